/*
 * tests/unit/test_parquet_read.c: the Parquet reader against the golden files of
 * tests/data/parquet (README table: READ / REJECT / ERROR), DuckDB-written and
 * minimal-writer files, projection, row-group and page skipping, and flights-3m.parquet against
 * figures computed with the DuckDB oracle.
 */
#include "parquet/parquetInt.h"   /* encoders and Thrift structures, to write DELTA_BYTE_ARRAY files */
#include "testlib.h"

#include <stdarg.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * Helpers: paths, CSV (RFC 4180, NULL = empty unquoted field), scanning a file to text cells.
 */
#define gpath tn_test_parquet_path

typedef struct table {
    uint32_t ncols;
    char **names;          /* ncols */
    size_t nrows;
    char **cells;          /* nrows * ncols; NULL = SQL NULL */
    int64_t *first_rows;   /* file row index of each row (scans only) */
} table;

static void table_free(table *t) {
    for (uint32_t c = 0; c < t->ncols && t->names; c++) free(t->names[c]);
    for (size_t i = 0; i < t->nrows * t->ncols && t->cells; i++) free(t->cells[i]);
    free(t->names);
    free(t->cells);
    free(t->first_rows);
    memset(t, 0, sizeof *t);
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) { free(s); fclose(f); return NULL; }
    s[n] = 0;
    fclose(f);
    return s;
}

/* Parses a CSV file (header row) into t. Returns 0 or -1. */
static int csv_load(const char *path, table *t) {
    memset(t, 0, sizeof *t);
    char *s = read_text(path);
    if (!s) return -1;
    size_t cap = 0, n = 0;
    char **cells = NULL;
    uint32_t rowlen = 0, ncols = 0;
    bool header = true;
    char **hdr = NULL;
    size_t nh = 0;
    char *p = s;
    while (*p) {
        /* one field */
        char *val = malloc(strlen(p) + 1);
        size_t vl = 0;
        bool quoted = false;
        if (*p == '"') {
            quoted = true;
            p++;
            for (;;) {
                if (!*p) break;
                if (*p == '"') {
                    if (p[1] == '"') { val[vl++] = '"'; p += 2; continue; }
                    p++;
                    break;
                }
                val[vl++] = *p++;
            }
        }
        while (*p && *p != ',' && *p != '\n' && *p != '\r') val[vl++] = *p++;
        val[vl] = 0;
        char *cell = (!quoted && vl == 0) ? (free(val), (char *)NULL) : val;
        if (header) {
            hdr = realloc(hdr, (nh + 1) * sizeof *hdr);
            hdr[nh++] = cell ? cell : strdup("");
        } else {
            if (n == cap) { cap = cap ? cap * 2 : 256; cells = realloc(cells, cap * sizeof *cells); }
            cells[n++] = cell;
        }
        rowlen++;
        if (*p == ',') { p++; continue; }
        if (*p == '\r') p++;
        if (*p == '\n') p++;
        /* end of row */
        if (header) { ncols = (uint32_t)nh; header = false; }
        else if (rowlen != ncols) { free(s); return -1; }
        rowlen = 0;
    }
    free(s);
    t->ncols = ncols;
    t->names = hdr;
    t->cells = cells;
    t->nrows = ncols ? n / ncols : 0;
    return 0;
}

/* Scans columns (all when cols == NULL) of an open file into text cells. Returns 0 or the scan
 * error. */
static int scan_table(tn_parquet_file *f, const uint32_t *cols, uint32_t ncols,
                      const tn_parquet_predicate *preds, uint32_t npreds, table *t,
                      tn_parquet_scan_counters *counters) {
    memset(t, 0, sizeof *t);
    uint32_t all[256];
    if (!cols) {
        ncols = tn_parquet_num_columns(f);
        for (uint32_t i = 0; i < ncols && i < 256; i++) all[i] = i;
        cols = all;
    }
    tn_type types[256];
    t->ncols = ncols;
    t->names = calloc(ncols ? ncols : 1, sizeof(char *));
    for (uint32_t i = 0; i < ncols; i++) {
        types[i] = tn_parquet_column(f, cols[i])->type;
        t->names[i] = strdup(tn_parquet_column(f, cols[i])->name);
    }
    tn_parquet_scan_options o = {cols, ncols, NULL, 0, preds, npreds, NULL};
    tn_parquet_scan *s = NULL;
    int rc = tn_parquet_scan_open(&s, f, &o);
    if (rc) return rc;
    tn_chunk ch;
    rc = tn_chunk_init(&ch, ncols, types, TN_VECTOR_SIZE);
    if (rc) { tn_parquet_scan_close(s); return rc; }
    size_t cap = 0;
    tn_buf b = TN_BUF_INIT;
    for (;;) {
        int64_t first = -1;
        rc = tn_parquet_scan_next(s, &ch, &first);
        if (rc || ch.count == 0) break;
        for (uint32_t r = 0; r < ch.count; r++) {
            if (t->nrows == cap) {
                cap = cap ? cap * 2 : 1024;
                t->cells = realloc(t->cells, cap * (ncols ? ncols : 1) * sizeof(char *));
                t->first_rows = realloc(t->first_rows, cap * sizeof(int64_t));
            }
            for (uint32_t c = 0; c < ncols; c++) {
                tn_buf_clear(&b);
                int fr = tn_value_format(&b, &ch.cols[c], r);
                char *cell = NULL;
                if (fr == 0) {
                    cell = malloc(b.len + 1);
                    memcpy(cell, b.data, b.len);
                    cell[b.len] = 0;
                }
                t->cells[t->nrows * ncols + c] = cell;
            }
            t->first_rows[t->nrows] = first + r;
            t->nrows++;
        }
    }
    if (counters) *counters = *tn_parquet_scan_stats(s);
    tn_buf_free(&b);
    tn_chunk_free(&ch);
    tn_parquet_scan_close(s);
    return rc;
}

/* Opens and scans a whole file. */
static int scan_path(const char *path, table *t, tn_parquet_scan_counters *counters) {
    tn_parquet_file *f = NULL;
    memset(t, 0, sizeof *t);
    int rc = tn_parquet_open(&f, NULL, path, NULL);
    if (rc) return rc;
    rc = scan_table(f, NULL, 0, NULL, 0, t, counters);
    tn_parquet_close(f);
    return rc;
}

static char g_msg[1024];

/* Compares got with want; on mismatch writes a description into g_msg and returns false. */
static bool tables_equal(const table *got, const table *want, bool check_names) {
    if (got->ncols != want->ncols) {
        snprintf(g_msg, sizeof g_msg, "%u columns, expected %u", got->ncols, want->ncols);
        return false;
    }
    if (check_names)
        for (uint32_t c = 0; c < got->ncols; c++)
            if (strcmp(got->names[c], want->names[c]) != 0) {
                snprintf(g_msg, sizeof g_msg, "column %u named '%s', expected '%s'", c,
                         got->names[c], want->names[c]);
                return false;
            }
    if (got->nrows != want->nrows) {
        snprintf(g_msg, sizeof g_msg, "%zu rows, expected %zu", got->nrows, want->nrows);
        return false;
    }
    for (size_t r = 0; r < got->nrows; r++)
        for (uint32_t c = 0; c < got->ncols; c++) {
            const char *a = got->cells[r * got->ncols + c], *b = want->cells[r * want->ncols + c];
            if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0)) {
                snprintf(g_msg, sizeof g_msg, "row %zu column '%s': got %s%.200s%s, expected "
                         "%s%.200s%s", r, want->names[c], a ? "'" : "", a ? a : "NULL",
                         a ? "'" : "", b ? "'" : "", b ? b : "NULL", b ? "'" : "");
                return false;
            }
        }
    return true;
}

/* Scans `file` and compares it with the CSV `expect`. */
static bool check_read(const char *file, const char *expect, bool check_names) {
    table got, want;
    int rc = scan_path(file, &got, NULL);
    if (rc) {
        snprintf(g_msg, sizeof g_msg, "%s: %s", file, tn_error_message());
        table_free(&got);
        return false;
    }
    if (csv_load(expect, &want) != 0) {
        snprintf(g_msg, sizeof g_msg, "cannot parse %s", expect);
        table_free(&got);
        return false;
    }
    bool ok = tables_equal(&got, &want, check_names);
    if (!ok) {
        char tmp[2048];
        snprintf(tmp, sizeof tmp, "%s: %s", file, g_msg);
        snprintf(g_msg, sizeof g_msg, "%.1000s", tmp);
    }
    table_free(&got);
    table_free(&want);
    return ok;
}

/* ---------------------------------------------------------------------------------------------
 * READ files compared with DuckDB's output.
 */
static const char *const g_read_duckdb[] = {
    "data/alltypes_plain.parquet",
    "data/alltypes_plain.snappy.parquet",
    "data/alltypes_dictionary.parquet",
    "data/alltypes_tiny_pages.parquet",
    "data/alltypes_tiny_pages_plain.parquet",
    "data/binary.parquet",
    "data/int32_with_null_pages.parquet",
    "data/fixed_length_byte_array.parquet",
    "data/int32_decimal.parquet",
    "data/int64_decimal.parquet",
    "data/byte_array_decimal.parquet",
    "data/fixed_length_decimal.parquet",
    "data/fixed_length_decimal_legacy.parquet",
    "data/nan_in_stats.parquet",
    "data/single_nan.parquet",
    "data/floating_orders_nan_count.parquet",
    "data/rle_boolean_encoding.parquet",
    "data/dict-page-offset-zero.parquet",
    "data/column_chunk_key_value_metadata.parquet",
    "data/sort_columns.parquet",
    "data/binary_truncated_min_max.parquet",
    "data/unknown-logical-type.parquet",
    "data/data_index_bloom_encoding_stats.parquet",
    "data/data_index_bloom_encoding_with_length.parquet",
    "data/datapage_v1-uncompressed-checksum.parquet",
    "data/datapage_v1-snappy-compressed-checksum.parquet",
    "data/plain-dict-uncompressed-checksum.parquet",
    "data/rle-dict-snappy-checksum.parquet",
    "data/lz4_raw_compressed.parquet",
    "data/lz4_raw_compressed_larger.parquet",
    "data/concatenated_gzip_members.parquet",
    "data/delta_binary_packed.parquet",
    "data/delta_byte_array.parquet",
    "data/delta_length_byte_array.parquet",
    "data/delta_encoding_optional_column.parquet",
    "data/delta_encoding_required_column.parquet",
    "data/byte_stream_split.zstd.parquet",
    "data/datapage_v2_empty_datapage.snappy.parquet",
    "data/page_v2_empty_compressed.parquet",
    "bad_data/ARROW-GH-43605.parquet",
};

TEST(golden_read_vs_duckdb) {
    int failures = 0;
    char first[1024] = "";
    for (size_t i = 0; i < sizeof g_read_duckdb / sizeof g_read_duckdb[0]; i++) {
        const char *f = g_read_duckdb[i];
        if (!check_read(gpath("%s", f), gpath("expected_duckdb/%s/data.csv", f), true)) {
            printf("  mismatch: %s\n", g_msg);
            if (!failures) snprintf(first, sizeof first, "%s", g_msg);
            failures++;
        }
    }
    CHECK_MSG(failures == 0, "%d golden files differ; first: %s", failures, first);
}

/* Upstream expectations where they exist (header spellings differ: values only). */
TEST(golden_read_vs_upstream_expect) {
    const char *files[] = {"delta_binary_packed", "delta_byte_array",
                           "delta_encoding_optional_column", "delta_encoding_required_column"};
    for (size_t i = 0; i < 4; i++)
        CHECK_MSG(check_read(gpath("data/%s.parquet", files[i]),
                             gpath("data/%s_expect.csv", files[i]), false), "%s", g_msg);
}

TEST(duckdb_written_files) {
    const char *files[] = {"duckdb_gzip_rowgroups", "duckdb_lz4raw", "duckdb_uncompressed",
                           "duckdb_v1_snappy", "duckdb_v2_zstd"};
    for (size_t i = 0; i < 5; i++)
        CHECK_MSG(check_read(gpath("local/duckdb_written/%s.parquet", files[i]),
                             gpath("local/duckdb_written/expected.csv"), true), "%s", g_msg);
}

TEST(minimal_writer_files) {
    const char *files[] = {"min", "minv2", "mingzip", "minv2gzip"};
    for (size_t i = 0; i < 4; i++)
        CHECK_MSG(check_read(gpath("local/minimal_writer/%s.parquet", files[i]),
                             gpath("local/minimal_writer/expected.csv"), true), "%s", g_msg);
}

/* int96_from_spark.md: values as microseconds (DuckDB overflows on row 6). */
TEST(int96_from_spark_micros) {
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/int96_from_spark.parquet"), NULL));
    CHECK_EQ_INT(tn_parquet_column(f, 0)->type.id, TN_TYPE_TIMESTAMP);
    uint32_t col = 0;
    tn_parquet_scan_options o = {&col, 1, NULL, 0, NULL, 0, NULL};
    tn_parquet_scan *s = NULL;
    CHECK_OK(tn_parquet_scan_open(&s, f, &o));
    tn_type ty = tn_parquet_column(f, 0)->type;
    tn_chunk ch;
    CHECK_OK(tn_chunk_init(&ch, 1, &ty, TN_VECTOR_SIZE));
    CHECK_OK(tn_parquet_scan_next(s, &ch, NULL));
    const int64_t want[6] = {1704141296123456LL, 1704070800000000LL, 253402225200000000LL,
                             1735599600000000LL, 0, 9089380393200000000LL};
    CHECK_EQ_INT(ch.count, 6);
    for (int i = 0; i < 6; i++) {
        if (i == 4) { CHECK(!tn_vector_is_valid(&ch.cols[0], 4)); continue; }
        CHECK(tn_vector_is_valid(&ch.cols[0], (uint32_t)i));
        CHECK_EQ_INT(((int64_t *)ch.cols[0].data)[i], want[i]);
    }
    CHECK_OK(tn_parquet_scan_next(s, &ch, NULL));
    CHECK_EQ_INT(ch.count, 0);
    tn_chunk_free(&ch);
    tn_parquet_scan_close(s);
    tn_parquet_close(f);
}

/* Deprecated LZ4 (codec 5): the 4 rows of arrow-rs test_read_lz4_hadoop_fallback, which are
 * those of lz4_raw_compressed.parquet. */
TEST(lz4_hadoop_and_raw_block) {
    const char *files[] = {"hadoop_lz4_compressed", "non_hadoop_lz4_compressed"};
    for (size_t i = 0; i < 2; i++)
        CHECK_MSG(check_read(gpath("data/%s.parquet", files[i]),
                             gpath("expected_duckdb/data/lz4_raw_compressed.parquet/data.csv"),
                             true), "%s", g_msg);
}

/* byte_stream_split_extended: each *_byte_stream_split column equals its *_plain twin, and the
 * columns DuckDB can read equal its output. */
TEST(byte_stream_split_extended) {
    table got, want;
    int rc = scan_path(gpath("data/byte_stream_split_extended.gzip.parquet"), &got, NULL);
    CHECK_MSG(rc == 0, "%s", tn_error_message());
    CHECK_EQ_INT(got.ncols, 14);
    CHECK_EQ_INT(got.nrows, 200);
    for (uint32_t c = 0; c < 14; c += 2) {
        CHECK(strstr(got.names[c], "_plain") && strstr(got.names[c + 1], "_byte_stream_split"));
        for (size_t r = 0; r < got.nrows; r++) {
            const char *a = got.cells[r * 14 + c], *b = got.cells[r * 14 + c + 1];
            CHECK_MSG((a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0),
                      "%s row %zu: %s vs %s", got.names[c + 1], r, a ? a : "NULL", b ? b : "NULL");
        }
    }
    CHECK(csv_load(gpath("expected_duckdb/data/byte_stream_split_extended.gzip.parquet/"
                         "data_readable_columns.csv"), &want) == 0);
    CHECK_EQ_INT(want.nrows, 200);
    for (uint32_t wc = 0; wc < want.ncols; wc++) {
        uint32_t gc = 0;
        while (gc < got.ncols && strcmp(got.names[gc], want.names[wc]) != 0) gc++;
        CHECK_MSG(gc < got.ncols, "no column %s", want.names[wc]);
        for (size_t r = 0; r < want.nrows; r++) {
            const char *a = got.cells[r * got.ncols + gc], *b = want.cells[r * want.ncols + wc];
            CHECK_MSG((a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0),
                      "%s row %zu: %s, DuckDB %s", want.names[wc], r, a ? a : "NULL",
                      b ? b : "NULL");
        }
    }
    table_free(&got);
    table_free(&want);
}

/* ---------------------------------------------------------------------------------------------
 * REJECT and ERROR files.
 */
static int open_and_scan(const char *path) {
    table t;
    int rc = scan_path(path, &t, NULL);
    table_free(&t);
    return rc;
}

/* Nested files open (their reading is test_parquet_nested.c's), but for a MAP without values,
 * which DuckDB refuses too. */
TEST(golden_nested_open) {
    tn_parquet_file *f = NULL;
    int rc = tn_parquet_open(&f, NULL, gpath("data/map_no_value.parquet"), NULL);
    tn_parquet_close(f);
    CHECK_MSG(rc == TN_EUNSUPPORTED && strstr(tn_error_message(), "column 'my_map_no_v'") &&
              strstr(tn_error_message(), "a key and a value are required"), "rc %d: %s", rc,
              tn_error_message());
    f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/large_string_map.brotli.parquet"), NULL));
    CHECK_EQ_INT(tn_parquet_num_columns(f), 1);
    char buf[64];
    CHECK_EQ_STR(tn_type_format(tn_parquet_column(f, 0)->type, buf, sizeof buf), "MAP(VARCHAR, INTEGER)");
    tn_parquet_close(f);
}

TEST(golden_reject_encrypted) {
    const char *files[] = {"data/encrypt_columns_and_footer.parquet.encrypted",
                           "data/encrypt_columns_plaintext_footer.parquet.encrypted"};
    for (size_t i = 0; i < 2; i++) {
        tn_parquet_file *f = NULL;
        int rc = tn_parquet_open(&f, NULL, gpath("%s", files[i]), NULL);
        tn_parquet_close(f);
        CHECK_MSG(rc == TN_EUNSUPPORTED, "%s: rc %d", files[i], rc);
        CHECK_MSG(strstr(tn_error_message(), "encrypted Parquet files are not supported"), "%s: %s",
                  files[i], tn_error_message());
    }
}

TEST(golden_error_files) {
    const char *files[] = {
        "data/nation.dict-malformed.parquet", "bad_data/PARQUET-1481.parquet",
        "bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet", "bad_data/ARROW-GH-41321.parquet",
        "bad_data/ARROW-GH-41317.parquet", "bad_data/ARROW-GH-47662.parquet",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        int rc = open_and_scan(gpath("%s", files[i]));
        CHECK_MSG(rc < 0, "%s: no error", files[i]);
        CHECK_MSG(strstr(tn_error_message(), "parquet") || strstr(tn_error_message(), "Parquet"),
                  "%s: message does not name the file: %s", files[i], tn_error_message());
    }
}

TEST(corrupt_checksums) {
    int rc = open_and_scan(gpath("data/datapage_v1-corrupt-checksum.parquet"));
    CHECK_EQ_INT(rc, TN_ECHECKSUM);
    const char *m = tn_error_message();
    CHECK_MSG(strstr(m, "datapage_v1-corrupt-checksum.parquet") && strstr(m, "row group 0") &&
              strstr(m, "column 'a'") && strstr(m, "page 0") && strstr(m, "CRC"), "%s", m);
    rc = open_and_scan(gpath("data/rle-dict-uncompressed-corrupt-checksum.parquet"));
    CHECK_EQ_INT(rc, TN_ECHECKSUM);
    CHECK_MSG(strstr(tn_error_message(), "dictionary"), "%s", tn_error_message());
    /* without verification both read (DuckDB's values) */
    tn_parquet_open_options o = TN_PARQUET_OPEN_OPTIONS_INIT;
    o.verify_checksums = false;
    const char *files[] = {"datapage_v1-corrupt-checksum", "rle-dict-uncompressed-corrupt-checksum"};
    for (int i = 0; i < 2; i++) {
        tn_parquet_file *f = NULL;
        CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/%s.parquet", files[i]), &o));
        table got, want;
        rc = scan_table(f, NULL, 0, NULL, 0, &got, NULL);
        tn_parquet_close(f);
        CHECK_MSG(rc == 0, "%s", tn_error_message());
        CHECK(csv_load(gpath("expected_duckdb/data/%s.parquet/data.csv", files[i]), &want) == 0);
        CHECK_MSG(tables_equal(&got, &want, true), "%s: %s", files[i], g_msg);
        table_free(&got);
        table_free(&want);
    }
}

TEST(max_page_bytes_limit) {
    tn_parquet_open_options o = TN_PARQUET_OPEN_OPTIONS_INIT;
    o.max_page_bytes = 64;
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/alltypes_plain.parquet"), &o));
    table t;
    int rc = scan_table(f, NULL, 0, NULL, 0, &t, NULL);
    table_free(&t);
    tn_parquet_close(f);
    CHECK_EQ_INT(rc, TN_ELIMIT);
}

/* ---------------------------------------------------------------------------------------------
 * Schema, metadata, statistics.
 */
TEST(schema_mapping) {
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("local/duckdb_written/duckdb_v1_snappy.parquet"), NULL));
    const tn_type_id want[12] = {TN_TYPE_INTEGER, TN_TYPE_BIGINT, TN_TYPE_VARCHAR, TN_TYPE_VARCHAR,
                                 TN_TYPE_DATE, TN_TYPE_TIMESTAMP, TN_TYPE_TIMESTAMP_TZ,
                                 TN_TYPE_DOUBLE, TN_TYPE_FLOAT, TN_TYPE_BOOLEAN,
                                 TN_TYPE_VARBINARY, TN_TYPE_DECIMAL};
    CHECK_EQ_INT(tn_parquet_num_columns(f), 12);
    for (uint32_t i = 0; i < 12; i++) CHECK_EQ_INT(tn_parquet_column(f, i)->type.id, want[i]);
    CHECK_EQ_INT(tn_parquet_column(f, 11)->type.precision, 18);
    CHECK_EQ_INT(tn_parquet_column(f, 11)->type.scale, 3);
    CHECK_EQ_INT(tn_parquet_num_rows(f), 5000);
    CHECK_EQ_STR(tn_parquet_column(f, 0)->name, "id");
    CHECK_EQ_INT(tn_parquet_column(f, 0)->field_id, -1);
    tn_parquet_close(f);

    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/alltypes_tiny_pages.parquet"), NULL));
    CHECK_EQ_INT(tn_parquet_column(f, 2)->type.id, TN_TYPE_TINYINT);
    CHECK_EQ_INT(tn_parquet_column(f, 3)->type.id, TN_TYPE_SMALLINT);
    CHECK_EQ_INT(tn_parquet_column(f, 10)->type.id, TN_TYPE_TIMESTAMP);   /* INT96 */
    tn_parquet_close(f);

    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/floating_orders_nan_count.parquet"), NULL));
    CHECK_EQ_INT(tn_parquet_column(f, 4)->type.id, TN_TYPE_FLOAT);        /* FLOAT16 */
    CHECK(!tn_parquet_column(f, 4)->nullable);
    tn_parquet_close(f);

    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/concatenated_gzip_members.parquet"), NULL));
    /* UINT_64 -> DECIMAL(20,0) */
    CHECK_EQ_INT(tn_parquet_column(f, 0)->type.id, TN_TYPE_DECIMAL);
    CHECK_EQ_INT(tn_parquet_column(f, 0)->type.precision, 20);
    tn_parquet_close(f);
}

TEST(codec_names) {
    CHECK_EQ_STR(tn_parquet_codec_name(6), "ZSTD");
    CHECK_EQ_STR(tn_parquet_codec_name(7), "LZ4_RAW");
    CHECK_EQ_STR(tn_parquet_codec_name(9), "UNKNOWN(9)");
    tn_parquet_codec c;
    CHECK_OK(tn_parquet_codec_parse("snappy", &c));
    CHECK_EQ_INT(c, TN_CODEC_SNAPPY);
    CHECK_OK(tn_parquet_codec_parse("Lz4_Raw", &c));
    CHECK_EQ_INT(c, TN_CODEC_LZ4_RAW);
    CHECK(tn_parquet_codec_parse("lzma", &c) < 0);
}

TEST(kv_and_describe) {
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/column_chunk_key_value_metadata.parquet"), NULL));
    CHECK_EQ_INT(tn_parquet_num_rows(f), 0);
    tn_buf b = TN_BUF_INIT;
    CHECK_OK(tn_parquet_describe(f, &b));
    CHECK_OK(tn_buf_append_byte(&b, 0));
    CHECK_MSG(strstr((char *)b.data, "kv foo = bar") &&
              strstr((char *)b.data, "thisiskeywithoutvalue = (null)"), "%s", (char *)b.data);
    tn_buf_free(&b);
    tn_parquet_close(f);

    CHECK_OK(tn_parquet_open(&f, NULL, gpath("local/duckdb_written/duckdb_v2_zstd.parquet"), NULL));
    CHECK_OK(tn_parquet_describe(f, &b));
    CHECK_OK(tn_buf_append_byte(&b, 0));
    const char *d = (const char *)b.data;
    CHECK_MSG(strstr(d, "codec ZSTD") && strstr(d, "DELTA_BINARY_PACKED") &&
              strstr(d, "created_by: DuckDB") && strstr(d, "min 0, max 4999"), "%s", d);
    tn_buf_free(&b);
    tn_parquet_close(f);

    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/alltypes_tiny_pages.parquet"), NULL));
    CHECK_OK(tn_parquet_describe(f, &b));
    CHECK_OK(tn_buf_append_byte(&b, 0));
    CHECK_MSG(strstr((char *)b.data, "column_index yes, offset_index yes"), "%s", (char *)b.data);
    tn_buf_free(&b);
    tn_parquet_close(f);
}

TEST(stats_exact_flags_and_nan) {
    tn_parquet_file *f = NULL;
    tn_parquet_stats st;
    /* binary_truncated_min_max README: utf8_full_truncation min "Al" max "Kf", both inexact */
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/binary_truncated_min_max.parquet"), NULL));
    uint32_t col = UINT32_MAX;
    for (uint32_t c = 0; c < tn_parquet_num_columns(f); c++)
        if (strcmp(tn_parquet_column(f, c)->name, "utf8_full_truncation") == 0) col = c;
    CHECK(col != UINT32_MAX);
    CHECK_OK(tn_parquet_column_stats(f, 0, col, &st));
    CHECK(st.has_min_max);
    CHECK(!st.min_exact && !st.max_exact);
    CHECK(st.min.u.s.len == 2 && memcmp(st.min.u.s.ptr, "Al", 2) == 0);
    CHECK(st.max.u.s.len == 2 && memcmp(st.max.u.s.ptr, "Kf", 2) == 0);
    tn_parquet_close(f);
    /* nan_in_stats: max is NaN -> no usable min/max */
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/nan_in_stats.parquet"), NULL));
    CHECK_OK(tn_parquet_column_stats(f, 0, 0, &st));
    CHECK(!st.has_min_max);
    tn_parquet_predicate p = {0, TN_PQ_GT, {tn_type_make(TN_TYPE_DOUBLE), false, {.d = 100.0}}};
    CHECK(tn_parquet_row_group_may_match(f, 0, &p, 1));
    tn_parquet_close(f);
    /* int32_with_null_pages.md: 275 nulls, min -2136906554, max 2145722375 */
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("data/int32_with_null_pages.parquet"), NULL));
    CHECK_OK(tn_parquet_column_stats(f, 0, 0, &st));
    CHECK(st.has_min_max && st.has_null_count);
    CHECK_EQ_INT(st.null_count, 275);
    CHECK_EQ_INT(st.min.u.i, -2136906554LL);
    CHECK_EQ_INT(st.max.u.i, 2145722375LL);
    CHECK_EQ_INT(st.num_values, 1000);
    tn_parquet_close(f);
}

/* ---------------------------------------------------------------------------------------------
 * Projection, row-group skipping, page skipping.
 */
TEST(projection) {
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("local/duckdb_written/duckdb_v1_snappy.parquet"), NULL));
    table all, some;
    tn_parquet_scan_counters ca, cs;
    CHECK_OK(scan_table(f, NULL, 0, NULL, 0, &all, &ca));
    uint32_t cols[2] = {3, 0};
    CHECK_OK(scan_table(f, cols, 2, NULL, 0, &some, &cs));
    CHECK_EQ_INT(some.nrows, 5000);
    CHECK_EQ_STR(some.names[0], "u");
    for (size_t r = 0; r < some.nrows; r++) {
        CHECK_EQ_STR(some.cells[r * 2], all.cells[r * 12 + 3]);
        CHECK_EQ_STR(some.cells[r * 2 + 1], all.cells[r * 12 + 0]);
    }
    CHECK(cs.bytes_read < ca.bytes_read);
    CHECK_EQ_INT(cs.rows_scanned, 5000);
    /* no columns at all: rows still counted */
    table none;
    CHECK_OK(scan_table(f, cols, 0, NULL, 0, &none, NULL));
    CHECK_EQ_INT(none.nrows, 5000);
    table_free(&none);
    table_free(&all);
    table_free(&some);
    tn_parquet_close(f);
}

TEST(row_group_skipping) {
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("local/duckdb_written/duckdb_gzip_rowgroups.parquet"),
                             NULL));
    CHECK_EQ_INT(tn_parquet_num_row_groups(f), 3);
    tn_parquet_predicate p = {0, TN_PQ_GE, {tn_type_make(TN_TYPE_INTEGER), false, {.i = 4500}}};
    CHECK(!tn_parquet_row_group_may_match(f, 0, &p, 1));
    CHECK(!tn_parquet_row_group_may_match(f, 1, &p, 1));
    CHECK(tn_parquet_row_group_may_match(f, 2, &p, 1));
    table t;
    tn_parquet_scan_counters c;
    uint32_t col = 0;
    CHECK_OK(scan_table(f, &col, 1, &p, 1, &t, &c));
    CHECK_EQ_INT(c.row_groups_scanned, 1);
    CHECK_EQ_INT(t.nrows, 904);
    CHECK_EQ_STR(t.cells[0], "4096");
    CHECK_EQ_INT(t.first_rows[0], 4096);
    table_free(&t);
    /* EQ inside, LT, IS NULL on a column without nulls */
    tn_parquet_predicate q = {0, TN_PQ_EQ, {tn_type_make(TN_TYPE_INTEGER), false, {.i = 2048}}};
    CHECK(!tn_parquet_row_group_may_match(f, 0, &q, 1));
    CHECK(tn_parquet_row_group_may_match(f, 1, &q, 1));
    q.op = TN_PQ_LT;
    CHECK(tn_parquet_row_group_may_match(f, 0, &q, 1));
    CHECK(!tn_parquet_row_group_may_match(f, 1, &q, 1));
    q.op = TN_PQ_IS_NULL;
    CHECK(!tn_parquet_row_group_may_match(f, 1, &q, 1));
    q.column = 2;                      /* s has nulls */
    CHECK(tn_parquet_row_group_may_match(f, 1, &q, 1));
    tn_parquet_close(f);
}

/* Scans with predicate p and checks: pages were skipped, every row matching `match` in the full
 * scan is returned, and every returned row equals the full scan's row at its file index. */
static void check_page_skip(const char *file, const tn_parquet_predicate *p,
                            bool (*match)(const char *cell)) {
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, gpath("%s", file), NULL));
    table all, some;
    tn_parquet_scan_counters ca, cs;
    CHECK_OK(scan_table(f, NULL, 0, NULL, 0, &all, &ca));
    CHECK_OK(scan_table(f, NULL, 0, p, 1, &some, &cs));
    uint32_t nc = all.ncols;
    CHECK_MSG(cs.pages_skipped > 0, "%s: no page skipped", file);
    CHECK_EQ_INT(ca.pages_skipped, 0);
    CHECK(some.nrows < all.nrows);
    size_t matches = 0, found = 0;
    for (size_t r = 0; r < all.nrows; r++) matches += match(all.cells[r * nc + p->column]);
    for (size_t r = 0; r < some.nrows; r++) {
        int64_t fr = some.first_rows[r];
        CHECK(fr >= 0 && (size_t)fr < all.nrows);
        for (uint32_t c = 0; c < nc; c++) {
            const char *a = some.cells[r * nc + c], *b = all.cells[(size_t)fr * nc + c];
            CHECK_MSG((a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0),
                      "%s: row %lld column %u differs after page skipping", file, (long long)fr, c);
        }
        found += match(some.cells[r * nc + p->column]);
    }
    CHECK_EQ_INT(found, matches);
    CHECK(matches > 0);
    table_free(&all);
    table_free(&some);
    tn_parquet_close(f);
}

static bool id_is_1234(const char *c) { return c && strcmp(c, "1234") == 0; }
static bool int_over_2e9(const char *c) { return c && atoll(c) > 2000000000LL; }
static bool is_null_cell(const char *c) { return c == NULL; }

TEST(page_skipping) {
    tn_parquet_predicate p = {0, TN_PQ_EQ, {tn_type_make(TN_TYPE_INTEGER), false, {.i = 1234}}};
    check_page_skip("data/alltypes_tiny_pages.parquet", &p, id_is_1234);
    check_page_skip("data/alltypes_tiny_pages_plain.parquet", &p, id_is_1234);
    tn_parquet_predicate q = {0, TN_PQ_GT, {tn_type_make(TN_TYPE_INTEGER), false, {.i = 2000000000}}};
    check_page_skip("data/int32_with_null_pages.parquet", &q, int_over_2e9);
    tn_parquet_predicate n = {0, TN_PQ_IS_NULL, {tn_type_make(TN_TYPE_INTEGER), true, {.i = 0}}};
    (void)n;
    (void)is_null_cell;
}

/* ---------------------------------------------------------------------------------------------
 * DELTA_BYTE_ARRAY through the scan (values materialised in page buffers): FIXED_LEN_BYTE_ARRAY
 * (the values must be back to back, n * width bytes) and an OPTIONAL BYTE_ARRAY with nulls, in
 * files written here page by page (no golden file has DELTA_BYTE_ARRAY on FLBA).
 */
#define DBA_ROWS 5000u
#define DBA_PAGE 1000u

static int dba_value(uint32_t row, int col, char *out) {    /* NULL (-1) every 7th row of col 1 */
    if (col == 0) {
        uint32_t v = row * 37u;
        out[0] = (char)(v >> 24); out[1] = (char)(v >> 16); out[2] = (char)(v >> 8); out[3] = (char)v;
        return 4;
    }
    if (row % 7 == 3) return -1;
    return snprintf(out, 96, "https://example.com/a/rather/long/shared/prefix/%06u", row / 3);
}

/* Appends one v1 data page of rows [r0, r0+n) of column col to file. bad_row: a row whose FLBA value
 * is written 5 bytes long (-1: none). */
static void dba_page(tn_buf *file, int col, uint32_t r0, uint32_t n, int64_t bad_row) {
    tn_buf body = TN_BUF_INIT, hdr = TN_BUF_INIT, sfx = TN_BUF_INIT;
    int64_t pre[DBA_PAGE], suf[DBA_PAGE];
    uint32_t defs[DBA_PAGE], nn = 0;
    char prev[96], cur[96];
    int prevlen = 0;
    for (uint32_t i = 0; i < n; i++) {
        int l = dba_value(r0 + i, col, cur);
        defs[i] = l >= 0;
        if (l < 0) continue;
        if ((int64_t)(r0 + i) == bad_row) cur[l++] = 'x';
        int p = 0;
        while (p < prevlen && p < l && prev[p] == cur[p]) p++;
        pre[nn] = p;
        suf[nn] = l - p;
        tn_buf_append(&sfx, cur + p, (size_t)(l - p));
        memcpy(prev, cur, (size_t)l);
        prevlen = l;
        nn++;
    }
    if (col == 1) {                                    /* definition levels: u32 length + RLE */
        tn_buf lv = TN_BUF_INIT;
        pq_rle_encode(&lv, 1, defs, n);
        uint8_t l4[4] = {(uint8_t)lv.len, (uint8_t)(lv.len >> 8), (uint8_t)(lv.len >> 16), 0};
        tn_buf_append(&body, l4, 4);
        tn_buf_append(&body, lv.data, lv.len);
        tn_buf_free(&lv);
    }
    pq_delta_binary_encode(&body, pre, nn, true);
    pq_delta_binary_encode(&body, suf, nn, true);
    tn_buf_append(&body, sfx.data, sfx.len);
    pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = PQ_PAGE_DATA;
    h.uncompressed_page_size = h.compressed_page_size = (int32_t)body.len;
    h.has_data = true;
    h.data.num_values = (int32_t)n;
    h.data.encoding = PQ_ENC_DELTA_BYTE_ARRAY;
    h.data.definition_level_encoding = h.data.repetition_level_encoding = PQ_ENC_RLE;
    pq_encode_page_header(&hdr, &h);
    tn_buf_append(file, hdr.data, hdr.len);
    tn_buf_append(file, body.data, body.len);
    tn_buf_free(&body);
    tn_buf_free(&hdr);
    tn_buf_free(&sfx);
}

static int write_dba_file(const char *path, int64_t bad_row) {
    tn_buf file = TN_BUF_INIT, foot = TN_BUF_INIT;
    tn_buf_append(&file, "PAR1", 4);
    pq_column_chunk cc[2];
    char *paths[2][1] = {{"f"}, {"s"}};
    int encs[] = {PQ_ENC_DELTA_BYTE_ARRAY, PQ_ENC_RLE};
    memset(cc, 0, sizeof cc);
    for (int c = 0; c < 2; c++) {
        int64_t start = (int64_t)file.len;
        for (uint32_t r = 0; r < DBA_ROWS; r += DBA_PAGE) dba_page(&file, c, r, DBA_PAGE, c ? -1 : bad_row);
        pq_column_meta *m = &cc[c].meta;
        cc[c].file_offset = start;
        cc[c].has_meta_data = true;
        m->type = c ? PQ_BYTE_ARRAY : PQ_FIXED_LEN_BYTE_ARRAY;
        m->encodings = encs;
        m->nencodings = 2;
        m->path = paths[c];
        m->npath = 1;
        m->num_values = DBA_ROWS;
        m->total_uncompressed_size = m->total_compressed_size = (int64_t)file.len - start;
        m->data_page_offset = start;
    }
    pq_schema_element se[3];
    memset(se, 0, sizeof se);
    for (int i = 0; i < 3; i++) {
        se[i].type = -1; se[i].type_length = -1; se[i].repetition = -1;
        se[i].converted_type = PQ_CT_NONE; se[i].scale = se[i].precision = se[i].field_id = -1;
    }
    se[0].name = "schema"; se[0].num_children = 2;
    se[1].name = "f"; se[1].type = PQ_FIXED_LEN_BYTE_ARRAY; se[1].type_length = 4; se[1].repetition = PQ_REQUIRED;
    se[2].name = "s"; se[2].type = PQ_BYTE_ARRAY; se[2].repetition = PQ_OPTIONAL; se[2].converted_type = PQ_CT_UTF8;
    pq_row_group rg;
    memset(&rg, 0, sizeof rg);
    rg.columns = cc; rg.ncolumns = 2; rg.num_rows = DBA_ROWS; rg.total_byte_size = (int64_t)file.len;
    pq_file_meta fm;
    memset(&fm, 0, sizeof fm);
    fm.version = 1; fm.schema = se; fm.nschema = 3; fm.num_rows = DBA_ROWS;
    fm.row_groups = &rg; fm.nrow_groups = 1; fm.created_by = "test_parquet_read";
    int rc = pq_encode_file_meta(&foot, &fm);
    uint8_t l4[4] = {(uint8_t)foot.len, (uint8_t)(foot.len >> 8), (uint8_t)(foot.len >> 16), 0};
    tn_buf_append(&file, foot.data, foot.len);
    tn_buf_append(&file, l4, 4);
    tn_buf_append(&file, "PAR1", 4);
    if (!rc) rc = tn_fs_write_all(tn_fs_default(), path, file.data, file.len, false);
    tn_buf_free(&file);
    tn_buf_free(&foot);
    return rc;
}

/* Scans both columns, checking every value; returns the scan's error (0 at the end). */
static int scan_dba_file(const char *path, uint64_t max_page_bytes, uint32_t *rows, uint32_t *bad) {
    tn_parquet_open_options o = TN_PARQUET_OPEN_OPTIONS_INIT;
    if (max_page_bytes) o.max_page_bytes = max_page_bytes;
    tn_parquet_file *f = NULL;
    tn_parquet_scan *s = NULL;
    tn_chunk ch;
    uint32_t cols[2] = {0, 1};
    *rows = *bad = 0;
    int rc = tn_parquet_open(&f, NULL, path, &o);
    if (rc) return rc;
    tn_type types[2] = {tn_parquet_column(f, 0)->type, tn_parquet_column(f, 1)->type};
    tn_parquet_scan_options so = {cols, 2, NULL, 0, NULL, 0, NULL};
    if ((rc = tn_parquet_scan_open(&s, f, &so)) == 0 &&
        (rc = tn_chunk_init(&ch, 2, types, TN_VECTOR_SIZE)) == 0) {
        while ((rc = tn_parquet_scan_next(s, &ch, NULL)) == 0 && ch.count > 0) {
            const tn_str *fv = ch.cols[0].data, *sv = ch.cols[1].data;
            for (uint32_t i = 0; i < ch.count; i++, (*rows)++) {
                char want[96];
                int l = dba_value(*rows, 0, want);
                if (fv[i].len != (uint32_t)l || memcmp(fv[i].ptr, want, 4) != 0) (*bad)++;
                l = dba_value(*rows, 1, want);
                bool valid = tn_vector_is_valid(&ch.cols[1], i);
                if (l < 0 ? valid : (!valid || sv[i].len != (uint32_t)l ||
                                     memcmp(sv[i].ptr, want, (size_t)l) != 0)) (*bad)++;
            }
        }
        tn_chunk_free(&ch);
    }
    tn_parquet_scan_close(s);
    tn_parquet_close(f);
    return rc;
}

TEST(delta_byte_array_flba_and_nulls) {
    char path[256];
    uint32_t rows, bad;
    snprintf(path, sizeof path, "/tmp/tarn_test_pq_dba_%d.parquet", (int)getpid());
    CHECK_OK(write_dba_file(path, -1));
    CHECK_OK(scan_dba_file(path, 0, &rows, &bad));
    CHECK_EQ_INT(rows, DBA_ROWS);
    CHECK_EQ_INT(bad, 0);
    /* the values of a page expand past max_page_bytes (the page itself is below it) */
    CHECK_EQ_INT(scan_dba_file(path, 20000, &rows, &bad), TN_ELIMIT);
    CHECK_MSG(strstr(tn_error_message(), "DELTA_BYTE_ARRAY"), "%s", tn_error_message());
    /* an FLBA value of 5 bytes in the third page */
    CHECK_OK(write_dba_file(path, 2500));
    CHECK_EQ_INT(scan_dba_file(path, 0, &rows, &bad), TN_ECORRUPT);
    CHECK_MSG(strstr(tn_error_message(), "column width is 4") && strstr(tn_error_message(), "'f'"),
              "%s", tn_error_message());
    CHECK_EQ_INT(bad, 0);
    unlink(path);
}

/* ---------------------------------------------------------------------------------------------
 * flights-3m.parquet (3M rows, ZSTD, 11 row groups). Figures from DuckDB 1.5.6 (tests/oracle):
 *   SELECT count(*), sum(delay), min(delay), max(delay), sum(distance), min(distance),
 *          max(distance), min(date), max(date), sum(length(origin)) FROM 'flights-3m.parquet'
 *   -> 3000000, 20003603, -1116, 1688, 2194861208, 21, 4962, 2001-01-01 00:01:00,
 *      2001-07-01 00:00:00, 9000000 (no NULLs in any column).
 */
TEST(flights_3m) {
    char path[1024];
    snprintf(path, sizeof path, "%s/datasets/flights-3m.parquet", tn_test_data_dir());
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, path, NULL));
    CHECK_EQ_INT(tn_parquet_num_rows(f), 3000000);
    CHECK_EQ_INT(tn_parquet_num_row_groups(f), 11);
    uint32_t cols[5] = {0, 1, 2, 3, 4};
    tn_type types[5];
    for (int i = 0; i < 5; i++) types[i] = tn_parquet_column(f, (uint32_t)i)->type;
    CHECK_EQ_INT(types[0].id, TN_TYPE_TIMESTAMP);
    CHECK_EQ_INT(types[3].id, TN_TYPE_VARCHAR);
    tn_parquet_scan_options o = {cols, 5, NULL, 0, NULL, 0, NULL};
    tn_parquet_scan *s = NULL;
    CHECK_OK(tn_parquet_scan_open(&s, f, &o));
    tn_chunk ch;
    CHECK_OK(tn_chunk_init(&ch, 5, types, TN_VECTOR_SIZE));
    int64_t rows = 0, sum_delay = 0, min_delay = INT64_MAX, max_delay = INT64_MIN, sum_dist = 0;
    int64_t min_dist = INT64_MAX, max_dist = INT64_MIN, min_date = INT64_MAX, max_date = INT64_MIN;
    int64_t origin_bytes = 0, nulls = 0, expect_first = 0;
    uint64_t t0 = tn_time_ns();
    for (;;) {
        int64_t first;
        int rc = tn_parquet_scan_next(s, &ch, &first);
        CHECK_MSG(rc == 0, "%s", tn_error_message());
        if (ch.count == 0) break;
        CHECK_EQ_INT(first, expect_first);
        expect_first += ch.count;
        const int64_t *date = ch.cols[0].data, *delay = ch.cols[1].data, *dist = ch.cols[2].data;
        const tn_str *origin = ch.cols[3].data;
        for (int c = 0; c < 5; c++) nulls += tn_vector_null_count(&ch.cols[c]);
        for (uint32_t i = 0; i < ch.count; i++) {
            sum_delay += delay[i];
            if (delay[i] < min_delay) min_delay = delay[i];
            if (delay[i] > max_delay) max_delay = delay[i];
            sum_dist += dist[i];
            if (dist[i] < min_dist) min_dist = dist[i];
            if (dist[i] > max_dist) max_dist = dist[i];
            if (date[i] < min_date) min_date = date[i];
            if (date[i] > max_date) max_date = date[i];
            origin_bytes += origin[i].len;
        }
        rows += ch.count;
    }
    uint64_t t1 = tn_time_ns();
    const tn_parquet_scan_counters *c = tn_parquet_scan_stats(s);
    printf("  flights-3m: full scan of 5 columns in %.1f ms (%llu pages, %llu bytes)\n",
           (double)(t1 - t0) / 1e6, (unsigned long long)c->pages_read,
           (unsigned long long)c->bytes_read);
    CHECK_EQ_INT(rows, 3000000);
    CHECK_EQ_INT(nulls, 0);
    CHECK_EQ_INT(sum_delay, 20003603);
    CHECK_EQ_INT(min_delay, -1116);
    CHECK_EQ_INT(max_delay, 1688);
    CHECK_EQ_INT(sum_dist, 2194861208LL);
    CHECK_EQ_INT(min_dist, 21);
    CHECK_EQ_INT(max_dist, 4962);
    CHECK_EQ_INT(origin_bytes, 9000000);
    char buf[64];
    tn_format_timestamp(buf, sizeof buf, min_date);
    CHECK_EQ_STR(buf, "2001-01-01 00:01:00");
    tn_format_timestamp(buf, sizeof buf, max_date);
    CHECK_EQ_STR(buf, "2001-07-01 00:00:00");
    CHECK_EQ_INT(c->row_groups_scanned, 11);
    CHECK_EQ_INT(c->rows_scanned, 3000000);
    tn_chunk_free(&ch);
    tn_parquet_scan_close(s);
    tn_parquet_close(f);
}

/* ---------------------------------------------------------------------------------------------
 * Hostile input: golden files with random byte flips / truncations must give an error or data,
 * never a crash (meaningful under ASan+UBSan). Checksums off so damage reaches the decoders.
 */
static uint64_t g_rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rng(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

TEST(mutated_files_never_crash) {
    const char *files[] = {
        "data/alltypes_plain.parquet", "data/rle-dict-snappy-checksum.parquet",
        "data/delta_byte_array.parquet", "data/delta_encoding_optional_column.parquet",
        "data/byte_stream_split_extended.gzip.parquet", "data/int32_with_null_pages.parquet",
        "data/rle_boolean_encoding.parquet", "data/fixed_length_decimal.parquet",
        "data/int96_from_spark.parquet", "data/datapage_v2_empty_datapage.snappy.parquet",
        "local/minimal_writer/minv2.parquet", "local/duckdb_written/duckdb_v2_zstd.parquet",
    };
    char tmp[256];
    snprintf(tmp, sizeof tmp, "/tmp/tarn_test_pq_mut_%d.parquet", (int)getpid());
    tn_parquet_open_options o = TN_PARQUET_OPEN_OPTIONS_INIT;
    o.verify_checksums = false;
    o.max_page_bytes = 1 << 24;
    int iters = getenv("TARN_SANITIZED") ? 60 : 120;
    if (getenv("TARN_MUT_ITERS")) iters = atoi(getenv("TARN_MUT_ITERS"));     /* longer runs */
    if (getenv("TARN_MUT_SEED")) g_rng = strtoull(getenv("TARN_MUT_SEED"), NULL, 0) | 1;
    long opened = 0, scanned_ok = 0;
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        tn_buf src = TN_BUF_INIT;
        CHECK_OK(tn_fs_read_all(tn_fs_default(), gpath("%s", files[fi]), &src));
        uint8_t *m = malloc(src.len);
        for (int it = 0; it < iters; it++) {
            memcpy(m, src.data, src.len);
            size_t len = src.len;
            int kind = (int)(rng() % 4);
            int flips = 1 + (int)(rng() % 4);
            for (int k = 0; k < flips; k++) {
                /* aim half of the flips at the footer, where the structure lives */
                size_t pos = (rng() & 1) ? rng() % len : len - 8 - rng() % (len / 4 + 1);
                if (pos >= len) pos = rng() % len;
                m[pos] ^= (uint8_t)(1u << (rng() % 8));
                if (kind == 3) m[pos] = (uint8_t)rng();
            }
            if (kind == 2 && len > 16) {      /* chop bytes out of the middle, keep the tail */
                size_t cut = 1 + rng() % (len / 8 + 1), at = 4 + rng() % (len - 12);
                if (at + cut > len - 8) cut = len - 8 - at;
                memmove(m + at, m + at + cut, len - at - cut);
                len -= cut;
            }
            CHECK_OK(tn_fs_write_all(tn_fs_default(), tmp, m, len, false));
            tn_parquet_file *f = NULL;
            if (tn_parquet_open(&f, NULL, tmp, &o) != 0) continue;
            opened++;
            table t;
            if (scan_table(f, NULL, 0, NULL, 0, &t, NULL) == 0) scanned_ok++;
            table_free(&t);
            tn_parquet_close(f);
        }
        free(m);
        tn_buf_free(&src);
    }
    unlink(tmp);
    printf("  mutations: %ld opened, %ld scanned without error\n", opened, scanned_ok);
    CHECK(opened > 0);
}

/* The footer cache: a second open of the same file (path, size, mtime) reuses the parsed footer
 * with no I/O and scans the same rows; a file replaced (other size, or same size and a new mtime)
 * is read again; a copy outlives the cache's entry; a budget of 0 keeps nothing. */
static int copy_file(const char *from, const char *to) {
    char *text = NULL;
    FILE *in = fopen(from, "rb"), *out = NULL;
    int rc = -1;
    if (!in) return -1;
    fseek(in, 0, SEEK_END);
    long n = ftell(in);
    fseek(in, 0, SEEK_SET);
    text = malloc((size_t)n + 1);
    out = fopen(to, "wb");
    if (text && out && fread(text, 1, (size_t)n, in) == (size_t)n && fwrite(text, 1, (size_t)n, out) == (size_t)n)
        rc = 0;
    if (out && fclose(out) != 0) rc = -1;
    fclose(in);
    free(text);
    return rc;
}

TEST(footer_cache) {
    char dir[] = "/tmp/tarn-footer-cache-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/f.parquet", dir);
    CHECK(copy_file(gpath("local/duckdb_written/duckdb_v1_snappy.parquet"), path) == 0);
    tn_parquet_cache_clear();
    tn_parquet_cache_stats st0, st;
    tn_parquet_cache_get_stats(&st0);
    tn_parquet_file *a = NULL, *b = NULL, *c = NULL;
    CHECK_OK(tn_parquet_open_cached(&a, NULL, path, NULL));
    CHECK_OK(tn_parquet_open_cached(&b, NULL, path, NULL));
    tn_parquet_cache_get_stats(&st);
    CHECK_EQ_INT(st.misses - st0.misses, 1);
    CHECK_EQ_INT(st.hits - st0.hits, 1);
    CHECK_EQ_INT(st.entries, 1);
    CHECK(!tn_parquet_handle_is_open(b));   /* a cached open does no I/O */
    CHECK_EQ_INT(tn_parquet_num_rows(b), 5000);
    /* a small cached file keeps its decompressed pages: a second scan decompresses nothing
     * and reads the same rows as an uncached open */
    table ta, tb, tc;
    CHECK_EQ_INT(st.page_memo_bytes, st0.page_memo_bytes);
    CHECK_OK(scan_table(a, NULL, 0, NULL, 0, &ta, NULL));
    tn_parquet_cache_get_stats(&st);
    CHECK(st.page_memo_bytes > st0.page_memo_bytes);
    uint64_t kept = st.page_memo_bytes;
    CHECK_OK(scan_table(b, NULL, 0, NULL, 0, &tb, NULL));
    tn_parquet_cache_get_stats(&st);
    CHECK_EQ_INT(st.page_memo_bytes, kept);
    CHECK(tables_equal(&tb, &ta, true));
    tn_parquet_file *plain = NULL;
    CHECK_OK(tn_parquet_open(&plain, NULL, path, NULL));
    CHECK_OK(scan_table(plain, NULL, 0, NULL, 0, &tc, NULL));
    CHECK(tables_equal(&tc, &ta, true));
    tn_parquet_close(plain);
    table_free(&ta);
    table_free(&tb);
    table_free(&tc);
    /* the entry goes; both copies stay usable and scan the same rows; the pages go with the
     * last copy */
    tn_parquet_cache_clear();
    CHECK_OK(scan_table(a, NULL, 0, NULL, 0, &ta, NULL));
    CHECK_OK(scan_table(b, NULL, 0, NULL, 0, &tb, NULL));
    CHECK_EQ_INT(tb.nrows, 5000);
    CHECK(tables_equal(&tb, &ta, true));
    table_free(&ta);
    table_free(&tb);
    tn_parquet_close(a);
    tn_parquet_close(b);
    tn_parquet_cache_get_stats(&st);
    CHECK_EQ_INT(st.page_memo_bytes, st0.page_memo_bytes);
    /* replaced by another file: another size, read again */
    CHECK_OK(tn_parquet_open_cached(&a, NULL, path, NULL));
    CHECK(copy_file(gpath("local/duckdb_written/duckdb_v2_zstd.parquet"), path) == 0);
    tn_parquet_cache_get_stats(&st0);
    CHECK_OK(tn_parquet_open_cached(&b, NULL, path, NULL));
    tn_parquet_cache_get_stats(&st);
    CHECK_EQ_INT(st.misses - st0.misses, 1);
    CHECK(tn_parquet_file_size(b) != tn_parquet_file_size(a));
    /* the old copy's descriptor now meets a file of another size: refused, not misread */
    CHECK(tn_parquet_handle_open(a) == TN_ECORRUPT);
    tn_error_clear();
    tn_parquet_close(a);
    /* the same bytes written again (same size, new mtime): read again */
    struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
    CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
    tn_parquet_cache_get_stats(&st0);
    CHECK_OK(tn_parquet_open_cached(&c, NULL, path, NULL));
    tn_parquet_cache_get_stats(&st);
    CHECK_EQ_INT(st.misses - st0.misses, 1);
    CHECK_EQ_INT(tn_parquet_file_size(c), tn_parquet_file_size(b));
    tn_parquet_close(b);
    tn_parquet_close(c);
    /* no budget: nothing kept */
    tn_parquet_cache_get_stats(&st0);
    tn_parquet_cache_configure(0);
    CHECK_OK(tn_parquet_open_cached(&a, NULL, path, NULL));
    tn_parquet_cache_get_stats(&st);
    CHECK_EQ_INT(st.entries, 0);
    CHECK(tn_parquet_handle_is_open(a));
    tn_parquet_close(a);
    tn_parquet_cache_configure(st0.max_bytes);
    /* a missing file: the plain open's error */
    char missing[300];
    snprintf(missing, sizeof missing, "%s/missing.parquet", dir);
    CHECK(tn_parquet_open_cached(&a, NULL, missing, NULL) == TN_ENOTFOUND);
    CHECK(strstr(tn_error_message(), "missing.parquet") != NULL);
    tn_error_clear();
    unlink(path);
    rmdir(dir);
}

/* A file system that counts preads (the default one underneath). */
static int g_preads;
static int cnt_pread(tn_fs *fs, tn_file *fl, void *b, size_t n, uint64_t off) {
    (void)fs;
    g_preads++;
    return tn_fs_default()->pread(tn_fs_default(), fl, b, n, off);
}

/* A cached file keeps the OffsetIndexes a scan decoded with its footer: a second scan with page
 * skipping reads only the ColumnIndex and the pages, the same rows as an uncached open. Opened by
 * a known size and version (a Delta file's), no stat; a wrong size is used uncached. */
TEST(offset_index_cache) {
    const char *path = gpath("data/alltypes_tiny_pages.parquet");
    struct stat sb;
    CHECK(stat(path, &sb) == 0);
    tn_fs fs = *tn_fs_default();
    fs.pread = cnt_pread;
    tn_parquet_cache_clear();
    tn_parquet_predicate p = {0, TN_PQ_EQ, {tn_type_make(TN_TYPE_INTEGER), false, {.i = 1234}}};
    tn_parquet_file *plain = NULL, *a = NULL, *b = NULL, *w = NULL;
    table want, ta, tb, tw;
    CHECK_OK(tn_parquet_open(&plain, NULL, path, NULL));
    CHECK_OK(scan_table(plain, NULL, 0, &p, 1, &want, NULL));
    CHECK(want.nrows > 0);
    tn_parquet_cache_stats st0, st;
    tn_parquet_cache_get_stats(&st0);
    CHECK_OK(tn_parquet_open_cached_known(&a, &fs, path, (uint64_t)sb.st_size, 42, NULL));
    CHECK_OK(tn_parquet_open_cached_known(&b, &fs, path, (uint64_t)sb.st_size, 42, NULL));
    tn_parquet_cache_get_stats(&st);
    CHECK_EQ_INT(st.misses - st0.misses, 1);
    CHECK_EQ_INT(st.hits - st0.hits, 1);
    g_preads = 0;
    CHECK_OK(scan_table(a, NULL, 0, &p, 1, &ta, NULL));
    int first = g_preads;
    g_preads = 0;
    CHECK_OK(scan_table(b, NULL, 0, &p, 1, &tb, NULL));
    int second = g_preads;
    CHECK(tables_equal(&ta, &want, true));
    CHECK(tables_equal(&tb, &want, true));
    /* one OffsetIndex (the predicate's column) per row group no longer read */
    uint32_t nrg = tn_parquet_num_row_groups(a);
    CHECK_MSG(second + (int)nrg == first, "preads: first scan %d, second %d, row groups %u", first, second, nrg);
    /* another version of the key: another entry; a wrong size: read, not kept */
    CHECK_OK(tn_parquet_open_cached_known(&w, &fs, path, (uint64_t)sb.st_size + 1, 42, NULL));
    CHECK(tn_parquet_handle_is_open(w));
    CHECK_OK(scan_table(w, NULL, 0, &p, 1, &tw, NULL));
    CHECK(tables_equal(&tw, &want, true));
    table_free(&want);
    table_free(&ta);
    table_free(&tb);
    table_free(&tw);
    tn_parquet_close(plain);
    tn_parquet_close(a);
    tn_parquet_close(b);
    tn_parquet_close(w);
    tn_parquet_cache_clear();
}

TEST_MAIN()
