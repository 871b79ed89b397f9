/*
 * tests/unit/test_text.c: the CSV / NDJSON readers and writers (src/text/) over small files in
 * a temporary directory; expected types and values are DuckDB 1.5's read_csv / read_json
 * results for the same bytes. Hidden modes drive tests/interop/text_duckdb.sh:
 *   test_text --describe FILE      "name<TAB>TYPE" per detected column
 *   test_text --cat FILE           header + rows as CSV (NULL empty, "" for the empty string)
 *   test_text --rewrite IN OUT     read IN (CSV or .json NDJSON), write OUT (.csv or .json)
 */
#include "text/text.h"
#include "testlib.h"

#include <unistd.h>

static char tmpdir[256];

static const char *tmp_path(const char *name) {
    static char paths[8][512];
    static int slot;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/tn_text_XXXXXX");
        if (!mkdtemp(tmpdir)) return NULL;
    }
    char *p = paths[slot++ & 7];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

static const char *write_file(const char *name, const char *data, size_t n) {
    const char *p = tmp_path(name);
    FILE *f = fopen(p, "wb");
    if (!f) return NULL;
    fwrite(data, 1, n, f);
    fclose(f);
    return p;
}
#define WFILE(name, lit) write_file(name, lit, sizeof(lit) - 1)

static bool is_json_path(const char *path) {
    return tn_str_ends_with(path, ".json") || tn_str_ends_with(path, ".ndjson");
}

/* Renders a chunk's rows as CSV in the oracle's spelling. */
static int render_rows(tn_buf *out, const tn_chunk *c) {
    tn_buf val = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t row = 0; row < c->count; row++) {
        for (uint32_t col = 0; col < c->ncols; col++) {
            if (col) tn_buf_append_byte(out, ',');
            if (!tn_vector_is_valid(&c->cols[col], row)) continue;
            tn_buf_clear(&val);
            rc = tn_value_format(&val, &c->cols[col], row);
            if (rc < 0) goto cleanup;
            tn_csv_append_field(out, (const char *)val.data, val.len, ',', '"');
        }
        tn_buf_append_byte(out, '\n');
    }
    rc = 0;
cleanup:
    tn_buf_free(&val);
    return rc;
}

/* Reads a whole file: "name TYPE|name TYPE\n" then the rows as CSV. */
static int render_file(tn_buf *out, const char *path, const tn_csv_options *copts,
                       const tn_ndjson_options *jopts) {
    tn_csv_reader *cr = NULL;
    tn_ndjson_reader *jr = NULL;
    tn_chunk chunk = {0, 0, NULL};
    const char *const *names;
    const tn_type *types;
    uint32_t n;
    int rc;
    if (is_json_path(path)) {
        rc = tn_ndjson_open(&jr, tn_fs_default(), path, jopts);
        if (rc < 0) return rc;
        n = tn_ndjson_columns(jr, &names, &types);
    } else {
        rc = tn_csv_open(&cr, tn_fs_default(), path, copts);
        if (rc < 0) return rc;
        n = tn_csv_columns(cr, &names, &types);
    }
    for (uint32_t i = 0; i < n; i++) {
        char t[32];
        tn_buf_printf(out, "%s%s %s", i ? "|" : "", names[i], tn_type_format(types[i], t, sizeof t));
    }
    tn_buf_append_byte(out, '\n');
    for (;;) {
        rc = cr ? tn_csv_next(cr, &chunk) : tn_ndjson_next(jr, &chunk);
        if (rc < 0 || chunk.count == 0) break;
        rc = render_rows(out, &chunk);
        if (rc < 0) break;
    }
    tn_chunk_free(&chunk);
    tn_csv_close(cr);
    tn_ndjson_close(jr);
    return rc;
}

static char *render_str(const char *path, const tn_csv_options *copts) {
    static tn_buf b;
    tn_buf_clear(&b);
    if (render_file(&b, path, copts, NULL) < 0) return NULL;
    tn_buf_append_byte(&b, 0);
    return (char *)b.data;
}

#define CHECK_CSV(name, content, opts, expected)                                             \
    do {                                                                                    \
        const char *p_ = WFILE(name, content);                                              \
        const char *got_ = render_str(p_, opts);                                            \
        CHECK_MSG(got_ != NULL, "%s: %s", name, tn_error_message());                        \
        CHECK_EQ_STR(got_, expected);                                                       \
    } while (0)

/* Expects opening/reading to fail with exactly msg (after the path and ": "). */
static const char *render_error(const char *path, const tn_csv_options *opts) {
    static char msg[1024];
    tn_buf b = TN_BUF_INIT;
    int rc = render_file(&b, path, opts, NULL);
    tn_buf_free(&b);
    if (rc == 0) return "(no error)";
    const char *m = tn_error_message();
    size_t pl = strlen(path);
    if (strncmp(m, path, pl) == 0 && m[pl] == ':') m += pl + 2;
    snprintf(msg, sizeof msg, "%s", m);
    return msg;
}
#define CHECK_CSV_ERROR(name, content, opts, expected)                                       \
    do {                                                                                    \
        const char *p_ = WFILE(name, content);                                              \
        CHECK_EQ_STR(render_error(p_, opts), expected);                                     \
    } while (0)

/* ------------------------------------------------------------------------------------------ */

TEST(csv_basic_types) {
    CHECK_CSV("t1.csv", "a,b,c,d,e\n1,2.5,true,2024-01-02,2024-01-02 03:04:05\n,x,,,\n", NULL,
              "a BIGINT|b VARCHAR|c BOOLEAN|d DATE|e TIMESTAMP\n"
              "1,2.5,true,2024-01-02,2024-01-02 03:04:05\n,x,,,\n");
}

TEST(csv_quoting) {
    CHECK_CSV("q.csv", "a,b\n\"x, \"\"y\"\"\",2\n\"multi\nline\",3\n", NULL,
              "a VARCHAR|b BIGINT\n\"x, \"\"y\"\"\",2\n\"multi\nline\",3\n");
    CHECK_CSV("q2.csv", "a,b\n\"1\",\"2\"\n", NULL, "a BIGINT|b BIGINT\n1,2\n");
    CHECK_CSV("q3.csv", "\"a\",\"b\"\n\"1\",\"2\"\n", NULL, "a BIGINT|b BIGINT\n1,2\n");
}

TEST(csv_crlf_and_cr) {
    CHECK_CSV("crlf.csv", "a,b\r\n1,2\r\n3,\"x\r\ny\"\r\n", NULL,
              "a BIGINT|b VARCHAR\n1,2\n3,\"x\r\ny\"\n");
    CHECK_CSV("cr.csv", "a,b\r1,2\r", NULL, "a BIGINT|b BIGINT\n1,2\n");
    CHECK_CSV("noeol.csv", "a,b\n1,2", NULL, "a BIGINT|b BIGINT\n1,2\n");
}

TEST(csv_headerless) {
    CHECK_CSV("nohdr.csv", "1,2\n3,4\n", NULL, "column0 BIGINT|column1 BIGINT\n1,2\n3,4\n");
    CHECK_CSV("h2.csv", "1,2\n", NULL, "column0 BIGINT|column1 BIGINT\n1,2\n");
    CHECK_CSV("strhdr.csv", "x,1\ny,2\n", NULL, "column0 VARCHAR|column1 BIGINT\nx,1\ny,2\n");
    CHECK_CSV("many.csv", "1,2,3,4,5,6,7,8,9,10,11\n", NULL,
              "column00 BIGINT|column01 BIGINT|column02 BIGINT|column03 BIGINT|column04 BIGINT|"
              "column05 BIGINT|column06 BIGINT|column07 BIGINT|column08 BIGINT|column09 BIGINT|"
              "column10 BIGINT\n1,2,3,4,5,6,7,8,9,10,11\n");
}

TEST(csv_header_detection) {
    CHECK_CSV("allstr.csv", "a,b\nx,y\nz,w\n", NULL, "a VARCHAR|b VARCHAR\nx,y\nz,w\n");
    CHECK_CSV("h1.csv", "x,y\nx,y\n", NULL, "x VARCHAR|y VARCHAR\nx,y\n");
    CHECK_CSV("h3.csv", ",b\nx,y\n", NULL, "column0 VARCHAR|b VARCHAR\nx,y\n");
    CHECK_CSV("h4.csv", "a,b\n1,\n", NULL, "a BIGINT|b VARCHAR\n1,\n");
    CHECK_CSV("h5.csv", "1,b\n2,3\n", NULL, "1 BIGINT|b BIGINT\n2,3\n");
    CHECK_CSV("h6.csv", "a,b\n1,2\n1,x\n", NULL, "a BIGINT|b VARCHAR\n1,2\n1,x\n");
    CHECK_CSV("duph.csv", "a,a,\n1,2,3\n", NULL, "a BIGINT|a_1 BIGINT|column2 BIGINT\n1,2,3\n");
    CHECK_CSV("onlyhdr.csv", "a,b\n", NULL, "a VARCHAR|b VARCHAR\n");
    CHECK_CSV("empty.csv", "", NULL, "column0 VARCHAR\n");
}

TEST(csv_sniff_delimiter) {
    CHECK_CSV("pipe.csv", "a|b\n1|2\n", NULL, "a BIGINT|b BIGINT\n1,2\n");
    CHECK_CSV("semi.csv", "a;b\n1;2\n", NULL, "a BIGINT|b BIGINT\n1,2\n");
    CHECK_CSV("tab.csv", "a\tb\n1\t2\n", NULL, "a BIGINT|b BIGINT\n1,2\n");
    CHECK_CSV("semi2.csv", "a;b;c\n1,5;2;x,y\n3;4;z\n", NULL,
              "a VARCHAR|b BIGINT|c VARCHAR\n\"1,5\",2,\"x,y\"\n3,4,z\n");
    const char *p = WFILE("d.csv", "a|b\n1|2\n");
    tn_csv_reader *r;
    CHECK_OK(tn_csv_open(&r, tn_fs_default(), p, NULL));
    CHECK_EQ_INT(tn_csv_delimiter(r), '|');
    CHECK(tn_csv_has_header(r));
    tn_csv_close(r);
}

TEST(csv_type_detection) {
    CHECK_CSV("tf.csv", "a,b\n1,t\n2,f\n", NULL, "a BIGINT|b BOOLEAN\n1,true\n2,false\n");
    CHECK_CSV("tf2.csv", "a,b\nTRUE,NULL\nFalse,null\n", NULL,
              "a BOOLEAN|b VARCHAR\ntrue,NULL\nfalse,null\n");
    CHECK_CSV("tf3.csv", "a,b\nT,F\nyes,no\n", NULL, "a BOOLEAN|b BOOLEAN\ntrue,false\ntrue,false\n");
    CHECK_CSV("dbl.csv", "a,b\n1,1e5\n2,inf\n", NULL, "a BIGINT|b DOUBLE\n1,100000.0\n2,inf\n");
    CHECK_CSV("dbl2.csv", "a,b,c\nNaN,1e400,-0.0\n1.50,.5,5.\n", NULL,
              "a DOUBLE|b DOUBLE|c DOUBLE\nnan,inf,-0.0\n1.5,0.5,5.0\n");
    CHECK_CSV("mixnum.csv", "a\n1.0\n2\n", NULL, "a DOUBLE\n1.0\n2.0\n");
    CHECK_CSV("mix1.csv", "a,b,c,d\n2024-01-02,1,007,x\n2024-01-02 00:00:00,true,08,\n", NULL,
              "a VARCHAR|b VARCHAR|c VARCHAR|d VARCHAR\n2024-01-02,1,007,x\n"
              "2024-01-02 00:00:00,true,08,\n");
    CHECK_CSV("i64.csv", "a,b\n9223372036854775807,-9223372036854775808\n", NULL,
              "a BIGINT|b BIGINT\n9223372036854775807,-9223372036854775808\n");
    CHECK_CSV("i64o.csv", "a,b\n9223372036854775808,1\n", NULL,
              "a DOUBLE|b BIGINT\n9.223372036854776e+18,1\n");
    CHECK_CSV("tz.csv", "a,b\n2024-01-02 03:04:05+01,2024-01-02T03:04:05.1234567\n", NULL,
              "a TIMESTAMPTZ|b TIMESTAMP\n2024-01-02 02:04:05+00,2024-01-02 03:04:05.123456\n");
    CHECK_CSV("baddate.csv", "a\n2024-13-45\n2024-02-30\n", NULL, "a VARCHAR\n2024-13-45\n2024-02-30\n");
    CHECK_CSV("leap.csv", "a\n2024-02-29\n1999-12-31\n", NULL, "a DATE\n2024-02-29\n1999-12-31\n");
    CHECK_CSV("spaces.csv", "a, b ,c\n1, 2 , x \n", NULL, "a BIGINT| b  BIGINT|c VARCHAR\n1,2, x \n");
}

TEST(csv_nulls) {
    CHECK_CSV("qempty.csv", "a,b\n\"\",x\n,y\n", NULL, "a VARCHAR|b VARCHAR\n,x\n,y\n");
    CHECK_CSV("nullcol.csv", "a,b\n1,\n2,\n", NULL, "a BIGINT|b VARCHAR\n1,\n2,\n");
    CHECK_CSV("nullfirst.csv", "a,b\n,1\n2,3\n", NULL, "a BIGINT|b BIGINT\n,1\n2,3\n");
    tn_csv_options o = TN_CSV_OPTIONS_INIT;
    o.null_string = "NA";
    CHECK_CSV("na.csv", "a,b\n1,NA\nNA,\"NA\"\n", &o, "a BIGINT|b VARCHAR\n1,\n,NA\n");
}

TEST(csv_bom_and_blank_lines) {
    CHECK_CSV("bom.csv", "\xef\xbb\xbf" "a,b\n1,2\n", NULL, "a BIGINT|b BIGINT\n1,2\n");
    CHECK_CSV("blank.csv", "a,b\n1,2\n\n3,4\n\n", NULL, "a BIGINT|b BIGINT\n1,2\n3,4\n");
    CHECK_CSV("blank1.csv", "a\n1\n\n3\n", NULL, "a BIGINT\n1\n\n3\n");
}

TEST(csv_options) {
    tn_csv_options o = TN_CSV_OPTIONS_INIT;
    o.header = 0;
    CHECK_CSV("o1.csv", "a,b\n1,2\n", &o, "column0 VARCHAR|column1 VARCHAR\na,b\n1,2\n");
    tn_csv_options o2 = TN_CSV_OPTIONS_INIT;
    o2.header = 1;
    CHECK_CSV("o2.csv", "1,2\n3,4\n", &o2, "1 BIGINT|2 BIGINT\n3,4\n");
    tn_csv_options o3 = TN_CSV_OPTIONS_INIT;
    o3.skip_rows = 2;
    CHECK_CSV("o3.csv", "junk line\nmore, junk\na,b\n1,2\n", &o3, "a BIGINT|b BIGINT\n1,2\n");
    tn_csv_options o4 = TN_CSV_OPTIONS_INIT;
    tn_type types[2] = {tn_type_make(TN_TYPE_INTEGER), tn_type_decimal(6, 2)};
    const char *names[2] = {"x", "y"};
    o4.ncolumns = 2;
    o4.column_types = types;
    o4.column_names = names;
    CHECK_CSV("o4.csv", "a,b\n1,2.345\n-7,10\n", &o4, "x INTEGER|y DECIMAL(6,2)\n1,2.35\n-7,10.00\n");
    tn_csv_options o5 = TN_CSV_OPTIONS_INIT;
    o5.escape = '\\';
    o5.delimiter = ';';
    CHECK_CSV("o5.csv", "a;b\n\"x\\\"y\";\"p;q\"\n", &o5, "a VARCHAR|b VARCHAR\n\"x\"\"y\",p;q\n");
    tn_csv_options o6 = TN_CSV_OPTIONS_INIT;
    o6.date_format = "%d/%m/%Y";
    o6.timestamp_format = "%d/%m/%Y %H:%M";
    CHECK_CSV("o6.csv", "a,b\n01/02/2024,31/12/1999 23:59\n", &o6,
              "a DATE|b TIMESTAMP\n2024-02-01,1999-12-31 23:59:00\n");
    tn_csv_options o7 = TN_CSV_OPTIONS_INIT;
    o7.all_varchar = true;
    CHECK_CSV("o7.csv", "a,b\n1,2\n", &o7, "a VARCHAR|b VARCHAR\n1,2\n");
}

TEST(csv_errors) {
    tn_csv_options o = TN_CSV_OPTIONS_INIT;
    o.sample_size = 3;
    CHECK_CSV_ERROR("late.csv", "x,y\n1,a\n2,b\n3,c\n4,d\n5,e\n6,f\n7,g\n8,h\nabc,i\n", &o,
                    "line 10, column 'x': could not convert 'abc' to BIGINT");
    CHECK_CSV_ERROR("ragged.csv", "a,b\n1,2\n3\n", NULL, "line 3: expected 2 fields, found 1");
    CHECK_CSV_ERROR("ragged2.csv", "a,b\n1,2\n3,4\n5,6,7\n", &o, "line 4: expected 2 fields, found 3");
    CHECK_CSV_ERROR("unterm.csv", "a,b\n1,\"abc\n2,3\n", NULL, "line 2: unterminated quoted field");
    CHECK_CSV_ERROR("garbage.csv", "a,b\n1,\"ab\"c\n", NULL,
                    "line 2: unexpected character 'c' after a closing quote");
    /* the line number counts newlines inside quoted fields */
    CHECK_CSV_ERROR("late2.csv", "x,y\n1,\"a\nb\"\n2,\"c\r\nd\"\n3,e\n4,f\nzz,g\n", &o,
                    "line 8, column 'x': could not convert 'zz' to BIGINT");
    const char *p = tmp_path("missing.csv");
    tn_csv_reader *r = NULL;
    CHECK(tn_csv_open(&r, tn_fs_default(), p, NULL) < 0);
    CHECK(strstr(tn_error_message(), "missing.csv") != NULL);
}

/* A file much larger than the read buffer: quoted fields with "" and newlines straddle every
 * refill; a record longer than the buffer makes it grow. */
TEST(csv_small_buffer_large_file) {
    tn_buf file = TN_BUF_INIT, expect = TN_BUF_INIT;
    tn_buf_printf(&file, "id,txt,v\n");
    tn_buf_printf(&expect, "id BIGINT|txt VARCHAR|v DOUBLE\n");
    for (int i = 0; i < 3000; i++) {
        if (i % 7 == 0) {
            tn_buf_printf(&file, "%d,\"q\"\"%d\nline, two\",%d.5\r\n", i, i, i);
            tn_buf_printf(&expect, "%d,\"q\"\"%d\nline, two\",%d.5\n", i, i, i);
        } else if (i == 1234) {
            tn_buf_printf(&file, "%d,\"", i);
            tn_buf_printf(&expect, "%d,", i);
            for (int k = 0; k < 500; k++) tn_buf_append(&file, "0123456789", 10);
            for (int k = 0; k < 500; k++) tn_buf_append(&expect, "0123456789", 10);
            tn_buf_printf(&file, "\",1\n");
            tn_buf_printf(&expect, ",1.0\n");
        } else {
            tn_buf_printf(&file, "%d,plain%d,%d\n", i, i, i % 100);
            tn_buf_printf(&expect, "%d,plain%d,%d.0\n", i, i, i % 100);
        }
    }
    tn_buf_append_byte(&expect, 0);
    const char *p = write_file("big.csv", (const char *)file.data, file.len);
    static const size_t sizes[] = {16, 61, 1000, 4096};
    for (size_t k = 0; k < 4; k++) {
        tn_csv_options o = TN_CSV_OPTIONS_INIT;
        o.buffer_size = sizes[k];
        const char *got = render_str(p, &o);
        CHECK_MSG(got != NULL, "buffer %zu: %s", sizes[k], tn_error_message());
        CHECK_MSG(strcmp(got, (const char *)expect.data) == 0, "buffer %zu: output differs", sizes[k]);
    }
    /* too-long record with a cap */
    tn_csv_options o = TN_CSV_OPTIONS_INIT;
    o.buffer_size = 64;
    o.max_record_size = 1024;
    CHECK_EQ_STR(render_error(p, &o), "line 1413: record longer than 1024 bytes");
    tn_buf_free(&file);
    tn_buf_free(&expect);
}

TEST(csv_chunks_of_2048) {
    tn_buf file = TN_BUF_INIT;
    tn_buf_printf(&file, "n\n");
    for (int i = 0; i < 5000; i++) tn_buf_printf(&file, "%d\n", i);
    const char *p = write_file("n.csv", (const char *)file.data, file.len);
    tn_buf_free(&file);
    tn_csv_reader *r;
    CHECK_OK(tn_csv_open(&r, tn_fs_default(), p, NULL));
    tn_chunk c = {0, 0, NULL};
    uint32_t counts[4] = {0};
    int64_t sum = 0;
    for (int k = 0; k < 4; k++) {
        CHECK_OK(tn_csv_next(r, &c));
        counts[k] = c.count;
        for (uint32_t i = 0; i < c.count; i++) sum += ((int64_t *)c.cols[0].data)[i];
    }
    tn_chunk_free(&c);
    tn_csv_close(r);
    CHECK_EQ_INT(counts[0], 2048);
    CHECK_EQ_INT(counts[1], 2048);
    CHECK_EQ_INT(counts[2], 904);
    CHECK_EQ_INT(counts[3], 0);
    CHECK_EQ_INT(sum, 4999LL * 5000 / 2);
}

/* ------------------------------------------------------------------------------------------ */

TEST(ndjson_types_and_values) {
    const char *p = WFILE("j1.json",
        "{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":1.5,\"e\":\"2024-01-02\",\"f\":\"2024-01-02 03:04:05\","
        "\"g\":{\"x\": [1, 2]},\"h\":[1,2],\"i\":null}\n"
        "\n"
        "{\"a\":2,\"b\":\"y\\n\\u00e9\\ud83d\\ude00\",\"d\":2,\"j\":\"zz\",\"e\":null}\r\n");
    const char *got = render_str(p, NULL);
    CHECK_MSG(got != NULL, "%s", tn_error_message());
    CHECK_EQ_STR(got, "a BIGINT|b VARCHAR|c BOOLEAN|d DOUBLE|e DATE|f TIMESTAMP|g VARCHAR|h VARCHAR|"
                      "i VARCHAR|j VARCHAR\n"
                      "1,x,true,1.5,2024-01-02,2024-01-02 03:04:05,\"{\"\"x\"\":[1,2]}\",\"[1,2]\",,\n"
                      "2,\"y\n\xc3\xa9\xf0\x9f\x98\x80\",,2.0,,,,,,zz\n");
}

TEST(ndjson_mixed_kinds) {
    const char *p = WFILE("j2.json", "{\"a\":1}\n{\"a\":\"x\"}\n{\"a\":1.5}\n{\"a\":null}\n{\"a\":[ ]}\n");
    const char *got = render_str(p, NULL);
    CHECK_MSG(got != NULL, "%s", tn_error_message());
    CHECK_EQ_STR(got, "a VARCHAR\n1\n\"\"\"x\"\"\"\n1.5\n\n[]\n");
}

TEST(ndjson_errors) {
    const char *p = WFILE("bad.json", "{\"a\":1}\n{\"a\":2,}\n");
    CHECK_EQ_STR(render_error(p, NULL), "line 2: invalid JSON: expected a key at column 8");
    p = WFILE("bad2.json", "{\"a\":1}\n[1]\n");
    CHECK_EQ_STR(render_error(p, NULL), "line 2: invalid JSON: expected an object at column 1");
    p = WFILE("bad3.json", "{\"a\":\"abc}\n");
    CHECK_EQ_STR(render_error(p, NULL), "line 1: invalid JSON: unterminated string at column 6");
    tn_ndjson_options o = TN_NDJSON_OPTIONS_INIT;
    o.sample_size = 2;
    p = WFILE("late.json", "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n{\"a\":1.5}\n");
    tn_buf b = TN_BUF_INIT;
    CHECK(render_file(&b, p, NULL, &o) < 0);
    tn_buf_free(&b);
    CHECK(strstr(tn_error_message(), "late.json: line 4, column 'a': could not convert '1.5' to BIGINT"));
    /* deep nesting is refused, not a stack overflow */
    tn_buf deep = TN_BUF_INIT;
    tn_buf_printf(&deep, "{\"a\":");
    for (int i = 0; i < 5000; i++) tn_buf_append_byte(&deep, '[');
    for (int i = 0; i < 5000; i++) tn_buf_append_byte(&deep, ']');
    tn_buf_printf(&deep, "}\n");
    p = write_file("deep.json", (const char *)deep.data, deep.len);
    tn_buf_free(&deep);
    CHECK(strstr(render_error(p, NULL), "nesting too deep") != NULL);
}

TEST(ndjson_small_buffer) {
    tn_buf file = TN_BUF_INIT, expect = TN_BUF_INIT;
    tn_buf_printf(&expect, "id BIGINT|s VARCHAR|o VARCHAR\n");
    for (int i = 0; i < 2000; i++) {
        tn_buf_printf(&file, "{\"id\": %d, \"s\": \"v\\\"%d\", \"o\": {\"k\": %d}}\n", i, i, i);
        tn_buf_printf(&expect, "%d,\"v\"\"%d\",\"{\"\"k\"\":%d}\"\n", i, i, i);
    }
    tn_buf_append_byte(&expect, 0);
    const char *p = write_file("big.json", (const char *)file.data, file.len);
    tn_ndjson_options o = TN_NDJSON_OPTIONS_INIT;
    o.buffer_size = 20;
    tn_buf got = TN_BUF_INIT;
    CHECK_OK(render_file(&got, p, NULL, &o));
    tn_buf_append_byte(&got, 0);
    CHECK(strcmp((const char *)got.data, (const char *)expect.data) == 0);
    tn_buf_free(&got);
    tn_buf_free(&file);
    tn_buf_free(&expect);
}

/* ------------------------------------------------------------------------------------------ */

static int build_chunk(tn_chunk *c) {
    tn_type types[6] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_VARCHAR),
                        tn_type_make(TN_TYPE_DOUBLE), tn_type_make(TN_TYPE_BOOLEAN),
                        tn_type_make(TN_TYPE_DATE), tn_type_make(TN_TYPE_TIMESTAMP)};
    int rc = tn_chunk_init(c, 6, types, 16);
    if (rc < 0) return rc;
    static const char *strs[4] = {"plain", "", "a,b \"q\"\nnext", NULL};
    for (uint32_t i = 0; i < 4; i++) {
        ((int64_t *)c->cols[0].data)[i] = (int64_t)i * 1000 - 1;
        if (strs[i]) tn_vector_set_str(&c->cols[1], i, strs[i], strlen(strs[i]));
        else tn_vector_set_null(&c->cols[1], i);
        ((double *)c->cols[2].data)[i] = i == 3 ? 1.0 / 0.0 : 0.1 * i;
        ((uint8_t *)c->cols[3].data)[i] = i & 1;
        ((int32_t *)c->cols[4].data)[i] = 19724 + (int32_t)i;
        ((int64_t *)c->cols[5].data)[i] = 1704164645000000LL + (int64_t)i * 500000;
    }
    tn_vector_set_null(&c->cols[0], 2);
    tn_vector_set_null(&c->cols[3], 1);
    for (uint32_t k = 0; k < 6; k++) c->cols[k].count = 4;
    c->count = 4;
    return 0;
}

static char *slurp(const char *path) {
    static tn_buf b;
    tn_buf_clear(&b);
    if (tn_fs_read_all(tn_fs_default(), path, &b) < 0) return NULL;
    tn_buf_append_byte(&b, 0);
    return (char *)b.data;
}

TEST(csv_writer) {
    tn_chunk c = {0, 0, NULL};
    CHECK_OK(build_chunk(&c));
    const char *names[6] = {"id", "s,x", "d", "b", "dt", "ts"};
    const tn_type types[6] = {c.cols[0].type, c.cols[1].type, c.cols[2].type,
                              c.cols[3].type, c.cols[4].type, c.cols[5].type};
    const char *p = tmp_path("w.csv");
    tn_csv_writer *w;
    CHECK_OK(tn_csv_writer_open(&w, tn_fs_default(), p, 6, names, types, NULL));
    CHECK_OK(tn_csv_writer_write(w, &c));
    CHECK_EQ_INT(tn_csv_writer_rows(w), 4);
    CHECK_OK(tn_csv_writer_close(w));
    tn_chunk_free(&c);
    CHECK_EQ_STR(slurp(p),
                 "id,\"s,x\",d,b,dt,ts\n"
                 "-1,plain,0.0,false,2024-01-02,2024-01-02 03:04:05\n"
                 "999,\"\",0.1,,2024-01-03,2024-01-02 03:04:05.5\n"
                 ",\"a,b \"\"q\"\"\nnext\",0.2,false,2024-01-04,2024-01-02 03:04:06\n"
                 "2999,,inf,true,2024-01-05,2024-01-02 03:04:06.5\n");
    /* and it reads back */
    CHECK_EQ_STR(render_str(p, NULL),
                 "id BIGINT|s,x VARCHAR|d DOUBLE|b BOOLEAN|dt DATE|ts TIMESTAMP\n"
                 "-1,plain,0.0,false,2024-01-02,2024-01-02 03:04:05\n"
                 "999,,0.1,,2024-01-03,2024-01-02 03:04:05.5\n"
                 ",\"a,b \"\"q\"\"\nnext\",0.2,false,2024-01-04,2024-01-02 03:04:06\n"
                 "2999,,inf,true,2024-01-05,2024-01-02 03:04:06.5\n");
}

TEST(ndjson_writer) {
    tn_chunk c = {0, 0, NULL};
    CHECK_OK(build_chunk(&c));
    const char *names[6] = {"id", "s\"x", "d", "b", "dt", "ts"};
    const tn_type types[6] = {c.cols[0].type, c.cols[1].type, c.cols[2].type,
                              c.cols[3].type, c.cols[4].type, c.cols[5].type};
    const char *p = tmp_path("w.json");
    tn_ndjson_writer *w;
    CHECK_OK(tn_ndjson_writer_open(&w, tn_fs_default(), p, 6, names, types));
    CHECK_OK(tn_ndjson_writer_write(w, &c));
    CHECK_OK(tn_ndjson_writer_close(w));
    tn_chunk_free(&c);
    CHECK_EQ_STR(slurp(p),
                 "{\"id\":-1,\"s\\\"x\":\"plain\",\"d\":0.0,\"b\":false,\"dt\":\"2024-01-02\","
                 "\"ts\":\"2024-01-02 03:04:05\"}\n"
                 "{\"id\":999,\"s\\\"x\":\"\",\"d\":0.1,\"b\":null,\"dt\":\"2024-01-03\","
                 "\"ts\":\"2024-01-02 03:04:05.5\"}\n"
                 "{\"id\":null,\"s\\\"x\":\"a,b \\\"q\\\"\\nnext\",\"d\":0.2,\"b\":false,"
                 "\"dt\":\"2024-01-04\",\"ts\":\"2024-01-02 03:04:06\"}\n"
                 "{\"id\":2999,\"s\\\"x\":null,\"d\":Infinity,\"b\":true,\"dt\":\"2024-01-05\","
                 "\"ts\":\"2024-01-02 03:04:06.5\"}\n");
    tn_buf s = TN_BUF_INIT;
    CHECK_OK(tn_json_append_string(&s, "\x01\t\\/", 4));
    tn_buf_append_byte(&s, 0);
    CHECK_EQ_STR((const char *)s.data, "\"\\u0001\\t\\\\/\"");
    tn_buf_free(&s);
}

/* The contract errors of both readers and writers, and NDJSON values read into given types
 * (what text_common.c shares between them). */
TEST(reader_writer_contracts) {
    /* NDJSON: a line longer than max_record_size */
    tn_ndjson_options jo = TN_NDJSON_OPTIONS_INIT;
    jo.buffer_size = 16;
    jo.max_record_size = 32;
    const char *p = WFILE("long.json", "{\"a\":1}\n{\"a\":\"0123456789012345678901234567890123456789\"}\n");
    tn_buf b = TN_BUF_INIT;
    CHECK(render_file(&b, p, NULL, &jo) < 0);
    CHECK(strstr(tn_error_message(), "long.json: line 2: line longer than 32 bytes") != NULL);
    /* NDJSON into given types: JSON kinds gate the conversion */
    static const char *const names[] = {"b", "i", "f", "t", "d"};
    const tn_type types[] = {tn_type_make(TN_TYPE_BOOLEAN), tn_type_make(TN_TYPE_INTEGER),
                             tn_type_make(TN_TYPE_FLOAT), tn_type_make(TN_TYPE_TIMESTAMP),
                             tn_type_make(TN_TYPE_DATE)};
    jo = (tn_ndjson_options)TN_NDJSON_OPTIONS_INIT;
    jo.ncolumns = 5;
    jo.column_names = names;
    jo.column_types = types;
    p = WFILE("typed.json", "{\"b\":true,\"i\":\"7\",\"f\":\"2.5\",\"t\":\"2024-01-02\",\"d\":\"2024-01-03\"}\n"
                            "{\"b\":false,\"i\":-8,\"f\":1e3,\"t\":\"2024-01-02 03:04:05.123456789\"}\n");
    tn_buf_clear(&b);
    CHECK_OK(render_file(&b, p, NULL, &jo));
    tn_buf_append_byte(&b, 0);
    CHECK_EQ_STR((const char *)b.data, "b BOOLEAN|i INTEGER|f FLOAT|t TIMESTAMP|d DATE\n"
                                       "true,7,2.5,2024-01-02 00:00:00,2024-01-03\n"
                                       "false,-8,1000.0,2024-01-02 03:04:05.123456,\n");
    static const struct { const char *line, *msg; } bad[] = {
        {"{\"b\":1}", "line 1, column 'b': could not convert '1' to BOOLEAN"},
        {"{\"b\":\"true\"}", "line 1, column 'b': could not convert 'true' to BOOLEAN"},
        {"{\"i\":3000000000}", "line 1, column 'i': could not convert '3000000000' to INTEGER"},
        {"{\"i\":true}", "line 1, column 'i': could not convert 'true' to INTEGER"},
        {"{\"f\":[1]}", "line 1, column 'f': could not convert '[1]' to FLOAT"},
        {"{\"d\":20240103}", "line 1, column 'd': could not convert '20240103' to DATE"},
        {"{\"t\":{\"x\":1}}", "line 1, column 't': could not convert '{\"x\":1}' to TIMESTAMP"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char body[128];
        snprintf(body, sizeof body, "%s\n", bad[k].line);
        p = write_file("typed_bad.json", body, strlen(body));
        tn_buf_clear(&b);
        CHECK(render_file(&b, p, NULL, &jo) < 0);
        CHECK_MSG(strstr(tn_error_message(), bad[k].msg) != NULL, "%s: %s", bad[k].line,
                  tn_error_message());
    }
    tn_buf_free(&b);
    /* CSV: %f takes at most 9 digits (6 kept) */
    tn_csv_options co = TN_CSV_OPTIONS_INIT;
    co.timestamp_format = "%d/%m/%Y %H:%M:%S.%f";
    CHECK_CSV("fmt.csv", "t\n02/01/2024 03:04:05.123456789\n", &co,
              "t TIMESTAMP\n2024-01-02 03:04:05.123456\n");
    co.sample_size = 1;
    CHECK_CSV_ERROR("fmt10.csv", "t\n02/01/2024 03:04:05.1\n02/01/2024 03:04:05.1234567891\n", &co,
                    "line 3, column 't': could not convert '02/01/2024 03:04:05.1234567891' to TIMESTAMP");
    /* CSV reader: a chunk of another shape; after an error the reader stays failed */
    p = WFILE("two.csv", "a,b\n1,2\n");
    tn_csv_reader *r;
    CHECK_OK(tn_csv_open(&r, tn_fs_default(), p, NULL));
    tn_type one = tn_type_make(TN_TYPE_BIGINT);
    tn_chunk c = {0, 0, NULL};
    CHECK_OK(tn_chunk_init(&c, 1, &one, 16));
    CHECK(tn_csv_next(r, &c) == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "two.csv: chunk has 1 columns, reader 2") != NULL);
    CHECK_EQ_INT(c.count, 0);
    CHECK(tn_csv_next(r, &c) == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "two.csv: reader failed earlier") != NULL);
    tn_csv_close(r);
    /* writers: a chunk of another shape or type */
    tn_chunk w6 = {0, 0, NULL};
    CHECK_OK(build_chunk(&w6));
    const char *wn[2] = {"x", "y"};
    const tn_type wt[2] = {tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_BIGINT)};
    tn_csv_writer *cw;
    CHECK_OK(tn_csv_writer_open(&cw, tn_fs_default(), tmp_path("shape.csv"), 2, wn, wt, NULL));
    CHECK(tn_csv_writer_write(cw, &w6) == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "shape.csv: chunk has 6 columns, writer 2") != NULL);
    CHECK(tn_csv_writer_write(cw, &c) == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "shape.csv: chunk has 1 columns, writer 2") != NULL);
    CHECK_OK(tn_csv_writer_close(cw));
    CHECK_EQ_STR(slurp(tmp_path("shape.csv")), "x,y\n");
    tn_ndjson_writer *jw;
    CHECK_OK(tn_ndjson_writer_open(&jw, tn_fs_default(), tmp_path("shape.json"), 1, wn, wt));
    CHECK(tn_ndjson_writer_write(jw, &c) == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "shape.json: column 1: chunk type differs from the writer's") != NULL);
    CHECK_EQ_INT(tn_ndjson_writer_rows(jw), 0);
    CHECK_OK(tn_ndjson_writer_close(jw));
    CHECK_EQ_STR(slurp(tmp_path("shape.json")), "");
    tn_chunk_free(&w6);
    tn_chunk_free(&c);
}

TEST(parse_helpers) {
    int32_t d;
    int64_t ts;
    bool tz;
    CHECK(tn_text_parse_date("1970-01-01", 10, &d) && d == 0);
    CHECK(tn_text_parse_date(" 2000-03-01 ", 12, &d) && d == 11017);
    CHECK(!tn_text_parse_date("2023-02-29", 10, &d));
    CHECK(tn_text_parse_timestamp("1970-01-01T00:00:01.5Z", 22, &ts, &tz) && ts == 1500000 && tz);
    CHECK(tn_text_parse_timestamp("1970-01-01 01:00:00-01:30", 25, &ts, &tz) && ts == 9000000000LL);
    CHECK(!tn_text_parse_timestamp("1970-01-01 24:00:00", 19, &ts, &tz));
    int64_t i;
    CHECK(tn_text_parse_int(" +42 ", 5, &i) && i == 42);
    CHECK(!tn_text_parse_int("9223372036854775808", 19, &i));
    tn_int128 v;
    CHECK(tn_text_parse_decimal("-1.005", 6, 10, 2, &v) && v == -101);
    CHECK(!tn_text_parse_decimal("1000", 4, 3, 0, &v));
}

/* ------------------------------------------------------------------------------------------ */
/* Bugs found by the fuzz targets (tests/fuzz/regressions/<target>-<name>, the input after its
 * option byte); expected results are DuckDB's for the same bytes. */

/* fuzz_csv_reader-timeout-duplicate-header-names: 1501 header fields "a". Making the names unique
 * scanned every earlier name for every suffix tried (cubic: > 20 s under ASan); now linear, with
 * DuckDB's naming. */
TEST(csv_duplicate_header_names) {
    CHECK_CSV("dupn.csv", "a,a_1,a,a,b,a_2\n1,2,3,4,5,6\n", NULL,
              "a BIGINT|a_1 BIGINT|a_1_1 BIGINT|a_2 BIGINT|b BIGINT|a_2_1 BIGINT\n1,2,3,4,5,6\n");
    for (int pass = 0; pass < 2; pass++) {
        uint32_t ncols = pass == 0 ? 1501 : 50000;   /* the regression's header, then far more */
        tn_buf f = TN_BUF_INIT;
        for (uint32_t i = 0; i < ncols; i++) tn_buf_append(&f, i ? ",a" : "a", i ? 2 : 1);
        tn_buf_append_byte(&f, '\n');
        for (int row = 0; pass == 1 && row < 100; row++) {     /* 100 rows of 50000 BIGINTs */
            for (uint32_t i = 0; i < ncols; i++) tn_buf_printf(&f, i ? ",%u" : "%u", i % 10);
            tn_buf_append_byte(&f, '\n');
        }
        const char *p = write_file("dupbig.csv", (const char *)f.data, f.len);
        tn_buf_free(&f);
        tn_csv_reader *r = NULL;
        CHECK_OK(tn_csv_open(&r, tn_fs_default(), p, NULL));
        if (!r) return;
        const char *const *names;
        const tn_type *types;
        CHECK_EQ_INT(tn_csv_columns(r, &names, &types), ncols);
        CHECK(tn_csv_has_header(r));
        CHECK_EQ_STR(names[0], "a");
        CHECK_EQ_STR(names[1], "a_1");
        CHECK_EQ_STR(names[1500], "a_1500");
        char last[32];
        snprintf(last, sizeof last, "a_%u", ncols - 1);
        CHECK_EQ_STR(names[ncols - 1], last);
        CHECK(types[ncols - 1].id == (pass ? TN_TYPE_BIGINT : TN_TYPE_VARCHAR));
        /* so many columns: chunks of fewer rows (at most 8 MiB of vectors, not 50000 x 2048) */
        tn_chunk c = {0, 0, NULL};
        uint32_t rows = 0, chunks = 0;
        for (;;) {
            CHECK_OK(tn_csv_next(r, &c));
            if (c.count == 0) break;
            CHECK(c.count <= (8u << 20) / (ncols * 9));
            CHECK_EQ_INT(((const int64_t *)c.cols[ncols - 1].data)[0], (ncols - 1) % 10);
            rows += c.count;
            chunks++;
        }
        CHECK_EQ_INT(rows, pass ? 100 : 0);
        CHECK_EQ_INT(chunks, pass ? 6 : 0);               /* 18 rows a chunk */
        tn_chunk_free(&c);
        tn_csv_close(r);
    }
}

/* fuzz_{csv,ndjson}_reader-ub-double-leading-fraction-zeros: the fast path of the double parser
 * divided by pow10_tab[fraction digits], which leading fraction zeros pushed past its 23
 * entries (index 24: out of bounds). */
TEST(double_leading_fraction_zeros) {
    CHECK_CSV("fz.csv", "a\n0.0000000000000000000000001\n", NULL, "a DOUBLE\n1e-25\n");
    const char *p = WFILE("fz.json", "{\"d\":0.000000000000000000000001}\n");
    const char *got = render_str(p, NULL);
    CHECK_MSG(got != NULL, "%s", tn_error_message());
    CHECK_EQ_STR(got, "d DOUBLE\n1e-24\n");
    /* around the fast path's limit (22 fraction digits) every result is strtod's */
    static const char *const cases[] = {
        "0.0000000000000000000001", "0.00000000000000000000001", "-0.000000000000000000000000123",
        "0.000000000000000000000123456789012345", "123456789012345.0000000",
        "0.1234567890123456789012", "00000000000000000000000000.5"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double d = 0;
        CHECK_MSG(tn_text_parse_double(cases[i], strlen(cases[i]), &d), "%s", cases[i]);
        CHECK_MSG(d == strtod(cases[i], NULL), "%s: %.17g", cases[i], d);
    }
}

/* fuzz_ndjson_reader-heap-overflow-nul-in-key: a key decoded to "a\0bcd..." was copied with a
 * string copy (2 bytes) but compared over its 26 bytes. Now the key's bytes are kept: it is a
 * column of its own (named "a" as a C string), as in DuckDB. */
TEST(ndjson_nul_in_key) {
    const char *p = WFILE("nul.json", "{\"a\\u0000bcdefghijklmnopqrstuvwxyz\":1}\n{\"a\":2}\n"
                                      "{\"a\\u0000bcdefghijklmnopqrstuvwxyz\":3,\"a\\u0000b\":4}\n");
    tn_ndjson_options o = TN_NDJSON_OPTIONS_INIT;
    for (int pass = 0; pass < 2; pass++) {
        o.buffer_size = pass ? 16 : 0;
        tn_buf b = TN_BUF_INIT;
        CHECK_MSG(render_file(&b, p, NULL, &o) == 0, "%s", tn_error_message());
        tn_buf_append_byte(&b, 0);
        CHECK_EQ_STR((const char *)b.data, "a BIGINT|a BIGINT|a BIGINT\n1,,\n,2,\n3,,4\n");
        tn_buf_free(&b);
    }
}

/* fuzz_ndjson_reader-ub-empty-key: with only the empty key on the line, the decoded-string
 * scratch buffer had no block and its NULL data got an offset added. The column of key "" is
 * named C<index>, as in DuckDB. */
TEST(ndjson_empty_key) {
    const char *p = WFILE("ek.json", "{\"\":2}\n");
    const char *got = render_str(p, NULL);
    CHECK_MSG(got != NULL, "%s", tn_error_message());
    CHECK_EQ_STR(got, "C0 BIGINT\n2\n");
    /* C1 mixes a number and a string: DuckDB's JSON type, here VARCHAR holding JSON text */
    p = WFILE("ek2.json", "{\"x\":1,\"\":2,\"y\":\"\"}\n{\"\":\"\"}\n");
    got = render_str(p, NULL);
    CHECK_MSG(got != NULL, "%s", tn_error_message());
    CHECK_EQ_STR(got, "x BIGINT|C1 VARCHAR|y VARCHAR\n1,2,\"\"\n,\"\"\"\"\"\",\n");
}

/* A line of 20000 distinct keys: every key was looked up by a scan of all columns (quadratic:
 * ~2 s for a 260 KB line, a fuzz timeout under ASan); now a hash. Keys in another order on the
 * next line still land in their columns. */
TEST(ndjson_many_keys) {
    tn_buf f = TN_BUF_INIT;
    enum { NK = 20000 };
    for (int line = 0; line < 2; line++) {
        for (int i = 0; i < NK; i++) {
            int k = line ? NK - 1 - i : i;
            tn_buf_printf(&f, "%c\"k%d\":%d", i ? ',' : '{', k, line * 100000 + k);
        }
        tn_buf_printf(&f, "}\n");
    }
    const char *p = write_file("many.json", (const char *)f.data, f.len);
    tn_buf_free(&f);
    tn_ndjson_reader *r = NULL;
    CHECK_OK(tn_ndjson_open(&r, tn_fs_default(), p, NULL));
    if (!r) return;
    const char *const *names;
    CHECK_EQ_INT(tn_ndjson_columns(r, &names, NULL), NK);
    CHECK_EQ_STR(names[NK - 1], "k19999");
    tn_chunk c = {0, 0, NULL};
    CHECK_OK(tn_ndjson_next(r, &c));
    CHECK_EQ_INT(c.count, 2);
    bool ok = c.count == 2;
    for (int k = 0; ok && k < NK; k++)
        ok = ((const int64_t *)c.cols[k].data)[0] == k && ((const int64_t *)c.cols[k].data)[1] == 100000 + k;
    CHECK(ok);
    tn_chunk_free(&c);
    tn_ndjson_close(r);
}

/* ------------------------------------------------------------------------------------------ */
/* Hidden modes for the interop script. */

static int mode_describe(const char *path) {
    tn_buf b = TN_BUF_INIT;
    int rc = render_file(&b, path, NULL, NULL);
    if (rc < 0) { fprintf(stderr, "error: %s\n", tn_error_message()); return 1; }
    const char *s = (const char *)b.data, *nl = memchr(s, '\n', b.len);
    /* "a T|b T" -> one "a\tT" per line; names contain no '|' in the interop files */
    for (const char *p = s; p < nl;) {
        const char *e = memchr(p, '|', (size_t)(nl - p));
        if (!e) e = nl;
        const char *sp = p;
        for (const char *q = p; q < e; q++) if (*q == ' ') sp = q;
        printf("%.*s\t%.*s\n", (int)(sp - p), p, (int)(e - sp - 1), sp + 1);
        p = e + 1;
    }
    tn_buf_free(&b);
    return 0;
}

static int mode_cat(const char *path) {
    tn_buf b = TN_BUF_INIT;
    int rc = render_file(&b, path, NULL, NULL);
    if (rc < 0) { fprintf(stderr, "error: %s\n", tn_error_message()); tn_buf_free(&b); return 1; }
    /* replace the "name TYPE|..." line by the CSV header */
    const char *s = (const char *)b.data, *nl = memchr(s, '\n', b.len);
    tn_csv_reader *cr = NULL;
    tn_ndjson_reader *jr = NULL;
    const char *const *names;
    uint32_t n;
    if (is_json_path(path)) { tn_ndjson_open(&jr, tn_fs_default(), path, NULL); n = tn_ndjson_columns(jr, &names, NULL); }
    else { tn_csv_open(&cr, tn_fs_default(), path, NULL); n = tn_csv_columns(cr, &names, NULL); }
    tn_buf h = TN_BUF_INIT;
    for (uint32_t i = 0; i < n; i++) {
        if (i) tn_buf_append_byte(&h, ',');
        tn_csv_append_field(&h, names[i], strlen(names[i]), ',', '"');
    }
    if (h.len) fwrite(h.data, 1, h.len, stdout);
    fwrite(nl, 1, b.len - (size_t)(nl - s), stdout);
    tn_buf_free(&h);
    tn_buf_free(&b);
    tn_csv_close(cr);
    tn_ndjson_close(jr);
    return 0;
}

static int mode_rewrite(const char *in, const char *outp) {
    tn_csv_reader *cr = NULL;
    tn_ndjson_reader *jr = NULL;
    tn_csv_writer *cw = NULL;
    tn_ndjson_writer *jw = NULL;
    tn_chunk c = {0, 0, NULL};
    const char *const *names;
    const tn_type *types;
    uint32_t n;
    int rc;
    if (is_json_path(in)) {
        if ((rc = tn_ndjson_open(&jr, tn_fs_default(), in, NULL)) < 0) goto done;
        n = tn_ndjson_columns(jr, &names, &types);
    } else {
        if ((rc = tn_csv_open(&cr, tn_fs_default(), in, NULL)) < 0) goto done;
        n = tn_csv_columns(cr, &names, &types);
    }
    if (is_json_path(outp)) rc = tn_ndjson_writer_open(&jw, tn_fs_default(), outp, n, names, types);
    else rc = tn_csv_writer_open(&cw, tn_fs_default(), outp, n, names, types, NULL);
    if (rc < 0) goto done;
    for (;;) {
        rc = cr ? tn_csv_next(cr, &c) : tn_ndjson_next(jr, &c);
        if (rc < 0 || c.count == 0) break;
        rc = cw ? tn_csv_writer_write(cw, &c) : tn_ndjson_writer_write(jw, &c);
        if (rc < 0) break;
    }
    if (rc == 0) rc = cw ? tn_csv_writer_close(cw) : tn_ndjson_writer_close(jw);
    else { tn_csv_writer_close(cw); tn_ndjson_writer_close(jw); }
done:
    tn_chunk_free(&c);
    tn_csv_close(cr);
    tn_ndjson_close(jr);
    if (rc < 0) { fprintf(stderr, "error: %s\n", tn_error_message()); return 1; }
    return 0;
}

/* --bench FILE: read the whole file, print rows and MB/s. */
static int mode_bench(const char *path) {
    tn_csv_reader *r;
    tn_chunk c = {0, 0, NULL};
    uint64_t t0 = tn_time_ns();
    if (tn_csv_open(&r, tn_fs_default(), path, NULL) < 0) { fprintf(stderr, "error: %s\n", tn_error_message()); return 1; }
    int64_t rows = 0;
    int rc;
    while ((rc = tn_csv_next(r, &c)) == 0 && c.count) rows += c.count;
    tn_chunk_free(&c);
    tn_csv_close(r);
    if (rc < 0) { fprintf(stderr, "error: %s\n", tn_error_message()); return 1; }
    double secs = (double)(tn_time_ns() - t0) / 1e9;
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    double mb = (double)ftell(f) / 1e6;
    fclose(f);
    printf("rows=%lld time_ms=%.0f MB/s=%.1f\n", (long long)rows, secs * 1000, mb / secs);
    return 0;
}

static void cleanup_tmp(void) {
    if (!tmpdir[0]) return;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

#define main test_text_main
TEST_MAIN()
#undef main

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--describe") == 0) return mode_describe(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--cat") == 0) return mode_cat(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--bench") == 0) return mode_bench(argv[2]);
    if (argc == 4 && strcmp(argv[1], "--rewrite") == 0) return mode_rewrite(argv[2], argv[3]);
    int rc = test_text_main(argc, argv);
    cleanup_tmp();
    return rc;
}
