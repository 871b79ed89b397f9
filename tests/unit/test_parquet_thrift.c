/*
 * tests/unit/test_parquet_thrift.c: the Thrift compact protocol (thrift.c) and Parquet's
 * structures (metadata.c): worked bytes from parquet-notes.md, the footers of every golden file
 * checked against DuckDB's parquet_metadata/parquet_schema/parquet_file_metadata, decode ->
 * encode -> decode equality, page headers / page index of golden files, hostile input.
 */
#include "parquet/parquetInt.h"
#include "testlib.h"

#include <dirent.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------------------------------------
 * Helpers: files, footers, CSV.
 */
static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
    if (n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* Footer bytes inside file (NULL if not a PAR1 file). */
static const uint8_t *footer_of(const uint8_t *file, size_t len, size_t *flen) {
    if (len < 12 || memcmp(file + len - 4, "PAR1", 4) != 0) return NULL;
    uint32_t n = tn_load_u32le(file + len - 8);
    if (n > len - 12) return NULL;
    *flen = n;
    return file + len - 8 - n;
}

typedef struct csv { char ***rows; int *ncols; int nrows; } csv;

static int csv_load(csv *c, const char *path) {
    size_t len;
    char *s = (char *)read_file(path, &len);
    memset(c, 0, sizeof *c);
    if (!s) return -1;
    size_t i = 0;
    int cap = 0;
    while (i < len) {
        char **row = NULL;
        int nc = 0, ccap = 0;
        for (;;) {
            char *field = malloc(len - i + 1);
            size_t fl = 0;
            if (i < len && s[i] == '"') {
                i++;
                while (i < len) {
                    if (s[i] == '"' && i + 1 < len && s[i + 1] == '"') { field[fl++] = '"'; i += 2; }
                    else if (s[i] == '"') { i++; break; }
                    else field[fl++] = s[i++];
                }
            }
            while (i < len && s[i] != ',' && s[i] != '\n') field[fl++] = s[i++];
            field[fl] = 0;
            if (nc == ccap) { ccap = ccap ? ccap * 2 : 8; row = realloc(row, (size_t)ccap * sizeof *row); }
            row[nc++] = field;
            if (i < len && s[i] == ',') { i++; continue; }
            if (i < len && s[i] == '\n') i++;
            break;
        }
        if (c->nrows == cap) {
            cap = cap ? cap * 2 : 16;
            c->rows = realloc(c->rows, (size_t)cap * sizeof *c->rows);
            c->ncols = realloc(c->ncols, (size_t)cap * sizeof *c->ncols);
        }
        c->rows[c->nrows] = row;
        c->ncols[c->nrows++] = nc;
    }
    free(s);
    return 0;
}

static void csv_free(csv *c) {
    for (int r = 0; r < c->nrows; r++) {
        for (int k = 0; k < c->ncols[r]; k++) free(c->rows[r][k]);
        free(c->rows[r]);
    }
    free(c->rows);
    free(c->ncols);
}

static int csv_col(const csv *c, const char *name) {
    for (int k = 0; c->nrows && k < c->ncols[0]; k++)
        if (strcmp(c->rows[0][k], name) == 0) return k;
    return -1;
}

static const char *cell(const csv *c, int row, const char *name) {
    int k = csv_col(c, name);
    return k >= 0 && k < c->ncols[row] ? c->rows[row][k] : "<missing column>";
}

static const char *type_name(int t) {
    static const char *const n[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                                    "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return t >= 0 && t < 8 ? n[t] : "";
}
static const char *codec_name(int c) {
    static const char *const n[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD",
                                    "LZ4_RAW"};
    return c >= 0 && c < 8 ? n[c] : "?";
}
static const char *enc_name(int e) {
    static const char *const n[] = {"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
                                    "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY",
                                    "DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
    return e >= 0 && e < 10 ? n[e] : "?";
}
static const char *conv_name(int c) {
    static const char *const n[] = {"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
        "TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16",
        "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
    return c >= 0 && c < 22 ? n[c] : "";
}
static const char *rep_name(int r) {
    static const char *const n[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
    return r >= 0 && r < 3 ? n[r] : "";
}

static void fmt_i64(char *buf, bool has, int64_t v) {
    if (has) snprintf(buf, 32, "%lld", (long long)v);
    else buf[0] = 0;
}

/* ---------------------------------------------------------------------------------------------
 * Deep comparison of decoded structures (for round trips).
 */
static bool bytes_eq(const pq_bytes *a, const pq_bytes *b) {
    return a->present == b->present && a->len == b->len && (!a->len || !memcmp(a->ptr, b->ptr, a->len));
}
static bool str_eq(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

static bool stats_eq(const pq_statistics *a, const pq_statistics *b) {
    return bytes_eq(&a->max, &b->max) && bytes_eq(&a->min, &b->min) &&
           bytes_eq(&a->max_value, &b->max_value) && bytes_eq(&a->min_value, &b->min_value) &&
           a->has_null_count == b->has_null_count && a->null_count == b->null_count &&
           a->has_distinct_count == b->has_distinct_count && a->distinct_count == b->distinct_count &&
           a->has_is_max_exact == b->has_is_max_exact && a->is_max_value_exact == b->is_max_value_exact &&
           a->has_is_min_exact == b->has_is_min_exact && a->is_min_value_exact == b->is_min_value_exact &&
           a->has_nan_count == b->has_nan_count && a->nan_count == b->nan_count;
}

static bool kv_eq(const pq_kv *a, uint32_t na, const pq_kv *b, uint32_t nb) {
    if (na != nb) return false;
    for (uint32_t i = 0; i < na; i++)
        if (!str_eq(a[i].key, b[i].key) || !str_eq(a[i].value, b[i].value)) return false;
    return true;
}

static bool meta_eq(const pq_file_meta *a, const pq_file_meta *b, char *why) {
#define NE(what) do { strcpy(why, what); return false; } while (0)
    if (a->version != b->version || a->num_rows != b->num_rows) NE("version/num_rows");
    if (a->nschema != b->nschema) NE("nschema");
    for (uint32_t i = 0; i < a->nschema; i++) {
        const pq_schema_element *x = &a->schema[i], *y = &b->schema[i];
        if (x->type != y->type || x->type_length != y->type_length || x->repetition != y->repetition ||
            !str_eq(x->name, y->name) || x->num_children != y->num_children ||
            x->converted_type != y->converted_type || x->scale != y->scale ||
            x->precision != y->precision || x->field_id != y->field_id) NE("schema element");
        /* an unknown LogicalType member cannot be re-encoded: it comes back absent */
        int xk = x->logical.kind == PQ_LT_UNKNOWN_MEMBER ? PQ_LT_NONE : x->logical.kind;
        if (xk != y->logical.kind) NE("logical kind");
        if (xk && memcmp(&x->logical, &y->logical, sizeof x->logical) != 0) NE("logical type");
    }
    if (a->nrow_groups != b->nrow_groups) NE("nrow_groups");
    for (uint32_t g = 0; g < a->nrow_groups; g++) {
        const pq_row_group *x = &a->row_groups[g], *y = &b->row_groups[g];
        if (x->ncolumns != y->ncolumns || x->total_byte_size != y->total_byte_size ||
            x->num_rows != y->num_rows || x->nsorting_columns != y->nsorting_columns ||
            x->has_file_offset != y->has_file_offset || x->file_offset != y->file_offset ||
            x->has_total_compressed_size != y->has_total_compressed_size ||
            x->total_compressed_size != y->total_compressed_size ||
            x->has_ordinal != y->has_ordinal || x->ordinal != y->ordinal) NE("row group");
        for (uint32_t s = 0; s < x->nsorting_columns; s++)
            if (memcmp(&x->sorting_columns[s], &y->sorting_columns[s], sizeof *x->sorting_columns))
                NE("sorting column");
        for (uint32_t c = 0; c < x->ncolumns; c++) {
            const pq_column_chunk *p = &x->columns[c], *q = &y->columns[c];
            if (p->file_offset != q->file_offset || p->has_meta_data != q->has_meta_data ||
                p->has_offset_index != q->has_offset_index ||
                p->offset_index_offset != q->offset_index_offset ||
                p->offset_index_length != q->offset_index_length ||
                p->has_column_index != q->has_column_index ||
                p->column_index_offset != q->column_index_offset ||
                p->column_index_length != q->column_index_length) NE("column chunk");
            const pq_column_meta *m = &p->meta, *n = &q->meta;
            if (m->type != n->type || m->nencodings != n->nencodings || m->npath != n->npath ||
                m->codec != n->codec || m->num_values != n->num_values ||
                m->total_uncompressed_size != n->total_uncompressed_size ||
                m->total_compressed_size != n->total_compressed_size ||
                m->data_page_offset != n->data_page_offset ||
                m->has_index_page_offset != n->has_index_page_offset ||
                m->has_dictionary_page_offset != n->has_dictionary_page_offset ||
                m->dictionary_page_offset != n->dictionary_page_offset ||
                m->has_statistics != n->has_statistics ||
                m->nencoding_stats != n->nencoding_stats ||
                m->has_bloom_filter_offset != n->has_bloom_filter_offset ||
                m->bloom_filter_offset != n->bloom_filter_offset ||
                m->has_bloom_filter_length != n->has_bloom_filter_length ||
                m->bloom_filter_length != n->bloom_filter_length) NE("column meta");
            for (uint32_t e = 0; e < m->nencodings; e++) if (m->encodings[e] != n->encodings[e]) NE("encodings");
            for (uint32_t e = 0; e < m->npath; e++) if (!str_eq(m->path[e], n->path[e])) NE("path");
            for (uint32_t e = 0; e < m->nencoding_stats; e++)
                if (memcmp(&m->encoding_stats[e], &n->encoding_stats[e], sizeof *m->encoding_stats))
                    NE("encoding stats");
            if (!kv_eq(m->kv, m->nkv, n->kv, n->nkv)) NE("column kv");
            if (m->has_statistics && !stats_eq(&m->statistics, &n->statistics)) NE("statistics");
        }
    }
    if (!kv_eq(a->kv, a->nkv, b->kv, b->nkv)) NE("kv");
    if (!str_eq(a->created_by, b->created_by)) NE("created_by");
    if (a->ncolumn_orders != b->ncolumn_orders) NE("ncolumn_orders");
    for (uint32_t i = 0; i < a->ncolumn_orders; i++)
        if (a->column_orders[i] != b->column_orders[i]) NE("column order");
    return true;
#undef NE
}

static bool page_header_eq(const pq_page_header *a, const pq_page_header *b) {
    if (a->type != b->type || a->uncompressed_page_size != b->uncompressed_page_size ||
        a->compressed_page_size != b->compressed_page_size || a->has_crc != b->has_crc ||
        a->crc != b->crc || a->has_data != b->has_data || a->has_dictionary != b->has_dictionary ||
        a->has_data_v2 != b->has_data_v2) return false;
    if (a->has_data) {
        const pq_data_page_header *x = &a->data, *y = &b->data;
        if (x->num_values != y->num_values || x->encoding != y->encoding ||
            x->definition_level_encoding != y->definition_level_encoding ||
            x->repetition_level_encoding != y->repetition_level_encoding ||
            x->has_statistics != y->has_statistics ||
            (x->has_statistics && !stats_eq(&x->statistics, &y->statistics))) return false;
    }
    if (a->has_dictionary && memcmp(&a->dictionary, &b->dictionary, sizeof a->dictionary)) return false;
    if (a->has_data_v2) {
        const pq_data_page_header_v2 *x = &a->data_v2, *y = &b->data_v2;
        if (x->num_values != y->num_values || x->num_nulls != y->num_nulls ||
            x->num_rows != y->num_rows || x->encoding != y->encoding ||
            x->definition_levels_byte_length != y->definition_levels_byte_length ||
            x->repetition_levels_byte_length != y->repetition_levels_byte_length ||
            x->is_compressed != y->is_compressed || x->has_statistics != y->has_statistics ||
            (x->has_statistics && !stats_eq(&x->statistics, &y->statistics))) return false;
    }
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Golden file list.
 */
#define MAXFILES 256
static char *g_files[MAXFILES];   /* relative to golden/parquet */
static int g_nfiles;

static void collect(const char *root, const char *rel) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char sub[1024], full[2048];
        snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (stat(full, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) collect(root, sub);
        else if (tn_str_ends_with(e->d_name, ".parquet") && g_nfiles < MAXFILES)
            g_files[g_nfiles++] = strdup(sub);
    }
    closedir(d);
}

static const char *golden_root(void) {
    static char root[900];
    snprintf(root, sizeof root, "%s/parquet", tn_test_data_dir());
    return root;
}

static void load_golden(void) {
    if (g_nfiles) return;
    collect(golden_root(), "data");
    collect(golden_root(), "local");
    collect(golden_root(), "bad_data");
}

/* ---------------------------------------------------------------------------------------------
 * Worked bytes (parquet-notes.md section 2).
 */
static bool has_bytes(const tn_buf *b, const uint8_t *needle, size_t n) {
    for (size_t i = 0; i + n <= b->len; i++)
        if (!memcmp(b->data + i, needle, n)) return true;
    return false;
}

static pq_schema_element leaf(const char *name, int type, int rep, int conv) {
    pq_schema_element e;
    memset(&e, 0, sizeof e);
    e.type = type; e.type_length = -1; e.repetition = rep; e.name = (char *)name;
    e.converted_type = conv; e.scale = -1; e.precision = -1; e.field_id = -1;
    return e;
}

TEST(worked_bytes_file_meta_prefix) {
    pq_schema_element s[7];
    s[0] = leaf("duckdb_schema", -1, PQ_REQUIRED, PQ_CT_NONE);
    s[0].num_children = 6;
    s[1] = leaf("a", PQ_INT32, PQ_OPTIONAL, PQ_CT_INT_32);
    for (int i = 2; i < 7; i++) s[i] = leaf("x", PQ_INT64, PQ_OPTIONAL, PQ_CT_NONE);
    pq_file_meta m;
    memset(&m, 0, sizeof m);
    m.version = 1; m.schema = s; m.nschema = 7;
    tn_buf out = TN_BUF_INIT;
    CHECK_OK(pq_encode_file_meta(&out, &m));
    static const uint8_t expect[] = {0x15, 0x02, 0x19, 0x7c, 0x35, 0x00, 0x18, 0x0d, 'd', 'u', 'c', 'k',
        'd', 'b', '_', 's', 'c', 'h', 'e', 'm', 'a', 0x15, 0x0c, 0x00,
        0x15, 0x02, 0x25, 0x02, 0x18, 0x01, 0x61, 0x25, 0x22, 0x00};
    CHECK(out.len > sizeof expect);
    CHECK(memcmp(out.data, expect, sizeof expect) == 0);
    tn_buf_free(&out);
}

TEST(worked_bytes_page_header) {
    static const uint8_t expect[] = {0x15, 0x00, 0x15, 0x34, 0x15, 0x46, 0x2c, 0x15, 0x0a, 0x15, 0x00,
                                     0x15, 0x06, 0x15, 0x06, 0x00, 0x00};
    pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = PQ_PAGE_DATA; h.uncompressed_page_size = 26; h.compressed_page_size = 35;
    h.has_data = true; h.data.num_values = 5; h.data.encoding = PQ_ENC_PLAIN;
    h.data.definition_level_encoding = PQ_ENC_RLE; h.data.repetition_level_encoding = PQ_ENC_RLE;
    tn_buf out = TN_BUF_INIT;
    CHECK_OK(pq_encode_page_header(&out, &h));
    CHECK_EQ_INT(out.len, sizeof expect);
    CHECK(memcmp(out.data, expect, sizeof expect) == 0);
    /* and back, with trailing page bytes after the header */
    uint8_t with_body[sizeof expect + 4];
    memcpy(with_body, expect, sizeof expect);
    memset(with_body + sizeof expect, 0xAB, 4);
    pq_page_header d;
    size_t consumed = 0;
    CHECK_OK(pq_decode_page_header(&d, with_body, sizeof with_body, &consumed));
    CHECK_EQ_INT(consumed, sizeof expect);
    CHECK(page_header_eq(&h, &d));
    CHECK_EQ_INT(d.data.num_values, 5);
    CHECK_EQ_INT(d.compressed_page_size, 35);
    tn_buf_free(&out);
}

TEST(worked_bytes_timestamp_schema_element) {
    static const uint8_t expect[] = {0x15, 0x04, 0x25, 0x02, 0x18, 0x02, 0x74, 0x73, 0x25, 0x14, 0x4c,
                                     0x8c, 0x11, 0x1c, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x00};
    pq_schema_element s[2];
    s[0] = leaf("r", -1, -1, PQ_CT_NONE);
    s[0].num_children = 1;
    s[1] = leaf("ts", PQ_INT64, PQ_OPTIONAL, PQ_CT_TIMESTAMP_MICROS);
    s[1].logical.kind = PQ_LT_TIMESTAMP; s[1].logical.adjusted_to_utc = true;
    s[1].logical.unit = PQ_UNIT_MICROS;
    pq_file_meta m;
    memset(&m, 0, sizeof m);
    m.version = 1; m.schema = s; m.nschema = 2;
    tn_buf out = TN_BUF_INIT;
    CHECK_OK(pq_encode_file_meta(&out, &m));
    CHECK(has_bytes(&out, expect, sizeof expect));
    tn_arena *a = tn_arena_create(0);
    pq_file_meta d;
    CHECK_OK(pq_decode_file_meta(&d, a, out.data, out.len));
    CHECK_EQ_INT(d.nschema, 2);
    CHECK_EQ_STR(d.schema[1].name, "ts");
    CHECK_EQ_INT(d.schema[1].logical.kind, PQ_LT_TIMESTAMP);
    CHECK_EQ_INT(d.schema[1].logical.unit, PQ_UNIT_MICROS);
    CHECK(d.schema[1].logical.adjusted_to_utc);
    CHECK_EQ_INT(d.schema[1].converted_type, PQ_CT_TIMESTAMP_MICROS);
    CHECK_EQ_INT(d.schema[0].num_children, 1);
    CHECK_EQ_INT(d.schema[0].type, -1);
    tn_arena_destroy(a);
    tn_buf_free(&out);
}

TEST(worked_bytes_column_index_null_pages) {
    bool nulls[3] = {true, false, true};
    pq_bytes mins[3] = {{NULL, 0, true}, {(const uint8_t *)"\x01\0\0\0", 4, true}, {NULL, 0, true}};
    int64_t nc[3] = {5, 0, 7};
    pq_column_index ci = {nulls, 3, mins, mins, 1, nc};
    tn_buf out = TN_BUF_INIT;
    CHECK_OK(pq_encode_column_index(&out, &ci));
    static const uint8_t expect[] = {0x19, 0x31, 0x01, 0x02, 0x01};
    CHECK(out.len > 5 && memcmp(out.data, expect, 5) == 0);
    tn_arena *a = tn_arena_create(0);
    pq_column_index d;
    CHECK_OK(pq_decode_column_index(&d, a, out.data, out.len));
    CHECK_EQ_INT(d.npages, 3);
    CHECK(d.null_pages[0] && !d.null_pages[1] && d.null_pages[2]);
    CHECK_EQ_INT(d.min_values[1].len, 4);
    CHECK_EQ_INT(d.null_counts[2], 7);
    CHECK_EQ_INT(d.boundary_order, 1);
    /* Go-style bool elements (0/1) are accepted: 0 = false, 1 = true */
    out.data[2] = 1; out.data[3] = 0; out.data[4] = 1;
    CHECK_OK(pq_decode_column_index(&d, a, out.data, out.len));
    CHECK(d.null_pages[0] && !d.null_pages[1] && d.null_pages[2]);
    tn_arena_destroy(a);
    tn_buf_free(&out);
}

/* ---------------------------------------------------------------------------------------------
 * Generic protocol.
 */
TEST(thrift_varints_and_zigzag_extremes) {
    tn_buf out = TN_BUF_INIT;
    pq_thrift_writer w;
    pq_thrift_writer_init(&w, &out);
    const int64_t v64[] = {0, -1, 1, INT64_MIN, INT64_MAX, -64, 63, 64, -65, 1LL << 40};
    const int32_t v32[] = {0, -1, 1, INT32_MIN, INT32_MAX, 300, -300};
    for (size_t i = 0; i < sizeof v64 / sizeof *v64; i++) pq_thrift_write_i64(&w, v64[i]);
    for (size_t i = 0; i < sizeof v32 / sizeof *v32; i++) pq_thrift_write_i32(&w, v32[i]);
    pq_thrift_write_double(&w, -2.5);
    pq_thrift_write_i8(&w, -3);
    CHECK_OK(w.rc);
    /* zigzag(INT64_MIN) = 2^64-1: 10 bytes; zigzag(-1) = 1 */
    CHECK_EQ_INT(out.data[0], 0);
    CHECK_EQ_INT(out.data[1], 1);
    pq_thrift_reader r;
    pq_thrift_reader_init(&r, out.data, out.len);
    for (size_t i = 0; i < sizeof v64 / sizeof *v64; i++) {
        int64_t v;
        CHECK_OK(pq_thrift_read_i64(&r, &v));
        CHECK_EQ_INT(v, v64[i]);
    }
    for (size_t i = 0; i < sizeof v32 / sizeof *v32; i++) {
        int32_t v;
        CHECK_OK(pq_thrift_read_i32(&r, &v));
        CHECK_EQ_INT(v, v32[i]);
    }
    double d;
    int8_t b;
    CHECK_OK(pq_thrift_read_double(&r, &d));
    CHECK(d == -2.5);
    CHECK_OK(pq_thrift_read_i8(&r, &b));
    CHECK_EQ_INT(b, -3);
    CHECK_EQ_INT(r.pos, out.len);
    CHECK(pq_thrift_read_i8(&r, &b) == TN_ECORRUPT);
    /* an i32 varint above 32 bits and an 11-byte varint are corrupt */
    static const uint8_t big[] = {0xff, 0xff, 0xff, 0xff, 0x7f};
    int32_t v32x;
    pq_thrift_reader_init(&r, big, sizeof big);
    CHECK(pq_thrift_read_i32(&r, &v32x) == TN_ECORRUPT);
    static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    int64_t v64x;
    pq_thrift_reader_init(&r, eleven, sizeof eleven);
    CHECK(pq_thrift_read_i64(&r, &v64x) == TN_ECORRUPT);
    tn_buf_free(&out);
}

/* A PageHeader carrying unknown fields of every type (long-form ids incl. 32767) decodes with
 * them skipped. */
TEST(thrift_skip_every_type_and_long_ids) {
    tn_buf out = TN_BUF_INIT;
    pq_thrift_writer w;
    pq_thrift_writer_init(&w, &out);
    pq_thrift_write_struct_begin(&w);
    pq_thrift_write_field(&w, 1, PQ_TT_I32); pq_thrift_write_i32(&w, PQ_PAGE_DICTIONARY);
    pq_thrift_write_field(&w, 2, PQ_TT_I32); pq_thrift_write_i32(&w, 10);
    pq_thrift_write_field(&w, 3, PQ_TT_I32); pq_thrift_write_i32(&w, 9);
    pq_thrift_write_field(&w, 7, PQ_TT_STRUCT);
    pq_thrift_write_struct_begin(&w);
    pq_thrift_write_field(&w, 1, PQ_TT_I32); pq_thrift_write_i32(&w, 3);
    pq_thrift_write_field(&w, 2, PQ_TT_I32); pq_thrift_write_i32(&w, 0);
    pq_thrift_write_bool_field(&w, 3, true);
    pq_thrift_write_bool_field(&w, 40, false);            /* unknown bool, long form */
    pq_thrift_write_struct_end(&w);
    pq_thrift_write_field(&w, 20, PQ_TT_I8); pq_thrift_write_i8(&w, 7);
    pq_thrift_write_field(&w, 21, PQ_TT_I16); pq_thrift_write_i32(&w, -5);
    pq_thrift_write_field(&w, 22, PQ_TT_I64); pq_thrift_write_i64(&w, INT64_MIN);
    pq_thrift_write_field(&w, 23, PQ_TT_DOUBLE); pq_thrift_write_double(&w, 1.5);
    pq_thrift_write_field(&w, 24, PQ_TT_UUID); pq_thrift_write_binary(&w, "0123456789abcde", 15);
    pq_thrift_write_field(&w, 25, PQ_TT_LIST);
    pq_thrift_write_list_begin(&w, PQ_TT_LIST, 2);
    pq_thrift_write_list_begin(&w, PQ_TT_BOOL_TRUE, 2);
    pq_thrift_write_bool_elem(&w, true); pq_thrift_write_bool_elem(&w, false);
    pq_thrift_write_list_begin(&w, PQ_TT_BINARY, 20);
    for (int i = 0; i < 20; i++) pq_thrift_write_binary(&w, "xy", 2);
    pq_thrift_write_field(&w, 26, PQ_TT_SET);
    pq_thrift_write_list_begin(&w, PQ_TT_STRUCT, 1);
    pq_thrift_write_struct_begin(&w);
    pq_thrift_write_field(&w, 5, PQ_TT_MAP);
    pq_thrift_write_uvarint(&w, 2);
    uint8_t kv = (PQ_TT_BINARY << 4) | PQ_TT_I32;
    tn_buf_append(&out, &kv, 1);
    pq_thrift_write_binary(&w, "k1", 2); pq_thrift_write_i32(&w, 1);
    pq_thrift_write_binary(&w, "k2", 2); pq_thrift_write_i32(&w, 2);
    pq_thrift_write_field(&w, 6, PQ_TT_MAP);
    pq_thrift_write_uvarint(&w, 0);                       /* empty map: no type byte */
    pq_thrift_write_struct_end(&w);
    pq_thrift_write_field(&w, 32767, PQ_TT_BINARY);
    pq_thrift_write_binary(&w, "extension", 9);
    pq_thrift_write_struct_end(&w);
    CHECK_OK(w.rc);
    /* UUID is 16 raw bytes: the binary writer above wrote a length byte + 15 bytes = 16 */
    pq_page_header h;
    size_t consumed;
    CHECK_OK(pq_decode_page_header(&h, out.data, out.len, &consumed));
    CHECK_EQ_INT(consumed, out.len);
    CHECK_EQ_INT(h.type, PQ_PAGE_DICTIONARY);
    CHECK(h.has_dictionary);
    CHECK_EQ_INT(h.dictionary.num_values, 3);
    CHECK(h.dictionary.has_is_sorted && h.dictionary.is_sorted);
    tn_buf_free(&out);
}

TEST(thrift_depth_cap_and_hostile_lists) {
    /* PageHeader with an unknown field 20 nesting 200 structs: rejected, no stack overflow */
    uint8_t deep[1 + 200 + 200];
    size_t n = 0;
    for (int i = 0; i < 200; i++) deep[n++] = 0x1c;       /* field +1, struct */
    for (int i = 0; i < 200; i++) deep[n++] = 0x00;
    pq_page_header h;
    size_t consumed;
    int rc = pq_decode_page_header(&h, deep, n, &consumed);
    CHECK(rc == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "64") != NULL);
    /* nested lists, too */
    uint8_t lists[300];
    n = 0;
    lists[n++] = 0x19;                                    /* field 1 list */
    for (int i = 0; i < 150; i++) lists[n++] = 0x19;      /* one element of type list */
    lists[n++] = 0x05;
    rc = pq_decode_page_header(&h, lists, n, &consumed);
    CHECK(rc == TN_ECORRUPT);
    /* list claiming 2^31 elements in a few bytes */
    static const uint8_t huge[] = {0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00};
    tn_arena *a = tn_arena_create(0);
    pq_file_meta m;
    CHECK(pq_decode_file_meta(&m, a, huge, sizeof huge) == TN_ECORRUPT);
    /* binary longer than the buffer */
    static const uint8_t longbin[] = {0x18, 0x7f, 'a', 0x00};
    CHECK(pq_decode_file_meta(&m, a, longbin, sizeof longbin) == TN_ECORRUPT);
    /* known field with the wrong wire type */
    static const uint8_t wrongtype[] = {0x18, 0x01, 'a', 0x00};   /* version as binary */
    CHECK(pq_decode_file_meta(&m, a, wrongtype, sizeof wrongtype) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "version") != NULL);
    tn_arena_destroy(a);
}

TEST(required_fields_and_negative_sizes) {
    pq_page_header h;
    size_t consumed;
    /* PageHeader without compressed_page_size */
    static const uint8_t no3[] = {0x15, 0x00, 0x15, 0x34, 0x00};
    CHECK(pq_decode_page_header(&h, no3, sizeof no3, &consumed) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "PageHeader") && strstr(tn_error_message(), "compressed_page_size"));
    /* negative compressed size */
    static const uint8_t neg[] = {0x15, 0x04, 0x15, 0x34, 0x15, 0x45, 0x00};
    CHECK(pq_decode_page_header(&h, neg, sizeof neg, &consumed) == TN_ECORRUPT);
    /* DATA_PAGE without its data_page_header */
    static const uint8_t nodata[] = {0x15, 0x00, 0x15, 0x34, 0x15, 0x46, 0x00};
    CHECK(pq_decode_page_header(&h, nodata, sizeof nodata, &consumed) == TN_ECORRUPT);
    /* unknown page type 9 is fine (the reader skips it) */
    static const uint8_t unknown_type[] = {0x15, 0x12, 0x15, 0x34, 0x15, 0x46, 0x00};
    CHECK_OK(pq_decode_page_header(&h, unknown_type, sizeof unknown_type, &consumed));
    CHECK_EQ_INT(h.type, 9);
    /* v2 header: is_compressed defaults to true */
    pq_page_header v2;
    memset(&v2, 0, sizeof v2);
    v2.type = PQ_PAGE_DATA_V2; v2.uncompressed_page_size = 10; v2.compressed_page_size = 8;
    v2.has_data_v2 = true; v2.data_v2.num_values = 4; v2.data_v2.num_rows = 4;
    v2.data_v2.definition_levels_byte_length = 2; v2.data_v2.is_compressed = false;
    tn_buf out = TN_BUF_INIT;
    CHECK_OK(pq_encode_page_header(&out, &v2));
    /* drop field 7 (bool false, a single header byte 0x12 after field 6) */
    size_t k;
    for (k = 0; k + 1 < out.len; k++) if (out.data[k] == 0x12 && out.data[k + 1] == 0x00) break;
    CHECK(k + 1 < out.len);
    memmove(out.data + k, out.data + k + 1, out.len - k - 1);
    out.len--;
    CHECK_OK(pq_decode_page_header(&h, out.data, out.len, &consumed));
    CHECK(h.has_data_v2 && h.data_v2.is_compressed);
    CHECK_EQ_INT(h.data_v2.definition_levels_byte_length, 2);
    tn_buf_free(&out);
}

TEST(unknown_logical_type_member_is_not_an_error) {
    /* SchemaElement list: root + leaf with LogicalType {2555: {}} and one with VARIANT (16) */
    pq_schema_element s[3];
    s[0] = leaf("r", -1, -1, PQ_CT_NONE);
    s[0].num_children = 2;
    s[1] = leaf("u", PQ_BYTE_ARRAY, PQ_OPTIONAL, PQ_CT_NONE);
    s[1].logical.kind = PQ_LT_STRING;
    s[2] = leaf("v", PQ_BYTE_ARRAY, PQ_OPTIONAL, PQ_CT_NONE);
    s[2].logical.kind = PQ_LT_JSON;
    pq_file_meta m;
    memset(&m, 0, sizeof m);
    m.version = 1; m.schema = s; m.nschema = 3;
    tn_buf out = TN_BUF_INIT;
    CHECK_OK(pq_encode_file_meta(&out, &m));
    /* patch member 1 (STRING: byte 0x1c) into a long-form id 2555, member 12 (JSON) into 16 */
    tn_buf patched = TN_BUF_INIT;
    for (size_t i = 0; i < out.len; i++) {
        if (i > 0 && out.data[i - 1] == 0x6c && out.data[i] == 0x1c) {
            uint8_t lf[] = {0x0c, 0xf6, 0x27};            /* zigzag(2555) = 5110 */
            tn_buf_append(&patched, lf, sizeof lf);
        } else if (i > 0 && out.data[i - 1] == 0x6c && out.data[i] == 0xcc) {
            uint8_t lf[] = {0x0c, 0x20};                  /* id 16 long form */
            tn_buf_append(&patched, lf, sizeof lf);
        } else tn_buf_append_byte(&patched, out.data[i]);
    }
    CHECK(patched.len == out.len + 3);
    tn_arena *a = tn_arena_create(0);
    pq_file_meta d;
    CHECK_OK(pq_decode_file_meta(&d, a, patched.data, patched.len));
    CHECK_EQ_INT(d.schema[1].logical.kind, PQ_LT_UNKNOWN_MEMBER);
    CHECK_EQ_INT(d.schema[2].logical.kind, PQ_LT_UNKNOWN_MEMBER);
    CHECK_EQ_INT(d.schema[1].type, PQ_BYTE_ARRAY);
    tn_arena_destroy(a);
    tn_buf_free(&out);
    tn_buf_free(&patched);
}

TEST(bloom_header_roundtrip) {
    tn_buf out = TN_BUF_INIT;
    CHECK_OK(pq_encode_bloom_header(&out, 1024));
    int32_t nb = 0;
    size_t consumed;
    CHECK_OK(pq_decode_bloom_header(&nb, out.data, out.len, &consumed));
    CHECK_EQ_INT(nb, 1024);
    CHECK_EQ_INT(consumed, out.len);
    /* the golden SBBF blob: 16-byte header + 1024-byte bitset */
    char path[1024];
    snprintf(path, sizeof path, "%s/data/bloom_filter.xxhash.bin", golden_root());
    size_t len;
    uint8_t *f = read_file(path, &len);
    CHECK(f != NULL);
    CHECK_OK(pq_decode_bloom_header(&nb, f, len, &consumed));
    CHECK_EQ_INT(nb, 1024);
    CHECK_EQ_INT(consumed, 16);
    CHECK_EQ_INT(len, 16 + 1024);
    free(f);
    tn_buf_free(&out);
}

/* ---------------------------------------------------------------------------------------------
 * Golden footers vs DuckDB.
 */
static int g_checked_files, g_checked_chunks, g_checked_stats;

static void check_against_duckdb(const char *rel, const pq_file_meta *m, size_t file_len,
                                 size_t footer_len, char *err, size_t errcap) {
    char path[2048];
    csv f, s, c;
    err[0] = 0;
    snprintf(path, sizeof path, "%s/expected_duckdb/%s/file.csv", golden_root(), rel);
    if (csv_load(&f, path) != 0) return;                   /* no expectation for this file */
    g_checked_files++;
#define BAD(...) do { snprintf(err, errcap, __VA_ARGS__); goto done; } while (0)
    char num[32];
    memset(&s, 0, sizeof s);
    memset(&c, 0, sizeof c);
    if (f.nrows < 2) BAD("file.csv empty");
    fmt_i64(num, true, m->num_rows);
    if (strcmp(cell(&f, 1, "num_rows"), num)) BAD("num_rows %s vs %s", num, cell(&f, 1, "num_rows"));
    fmt_i64(num, true, m->nrow_groups);
    if (strcmp(cell(&f, 1, "num_row_groups"), num)) BAD("num_row_groups");
    fmt_i64(num, true, m->version);
    if (strcmp(cell(&f, 1, "format_version"), num)) BAD("format_version");
    if (strcmp(cell(&f, 1, "created_by"), m->created_by ? m->created_by : "")) BAD("created_by");
    fmt_i64(num, true, (int64_t)footer_len);
    if (strcmp(cell(&f, 1, "footer_size"), num)) BAD("footer_size");
    fmt_i64(num, true, (int64_t)file_len);
    if (strcmp(cell(&f, 1, "file_size_bytes"), num)) BAD("file_size_bytes");

    snprintf(path, sizeof path, "%s/expected_duckdb/%s/schema.csv", golden_root(), rel);
    if (csv_load(&s, path) == 0) {
        if (s.nrows - 1 != (int)m->nschema) BAD("schema: %d rows vs %u elements", s.nrows - 1, m->nschema);
        for (uint32_t i = 0; i < m->nschema; i++) {
            const pq_schema_element *e = &m->schema[i];
            int r = (int)i + 1;
            if (strcmp(cell(&s, r, "name"), e->name)) BAD("schema %u name %s vs %s", i, e->name, cell(&s, r, "name"));
            if (strcmp(cell(&s, r, "type"), type_name(e->type))) BAD("schema %u type", i);
            if (strcmp(cell(&s, r, "repetition_type"), rep_name(e->repetition))) BAD("schema %u repetition", i);
            if (strcmp(cell(&s, r, "converted_type"), conv_name(e->converted_type))) BAD("schema %u converted", i);
            fmt_i64(num, e->num_children > 0 || (e->type < 0 && i == 0), e->num_children);
            if (strcmp(cell(&s, r, "num_children"), num)) BAD("schema %u num_children", i);
            fmt_i64(num, e->type_length >= 0, e->type_length);
            if (strcmp(cell(&s, r, "type_length"), num)) BAD("schema %u type_length", i);
            fmt_i64(num, e->field_id >= 0, e->field_id);
            /* -1 stands for "absent" in pq_schema_element; a file may also store -1 */
            if (strcmp(cell(&s, r, "field_id"), num) && strcmp(cell(&s, r, "field_id"), "-1"))
                BAD("schema %u field_id", i);
            fmt_i64(num, e->scale >= 0, e->scale);
            if (strcmp(cell(&s, r, "scale"), num)) BAD("schema %u scale", i);
            bool has_lt = cell(&s, r, "logical_type")[0] != 0;
            bool we_have = e->logical.kind != PQ_LT_NONE && e->logical.kind != PQ_LT_UNKNOWN_MEMBER;
            if (has_lt != we_have) BAD("schema %u logical type presence (%s)", i, cell(&s, r, "logical_type"));
        }
    }

    snprintf(path, sizeof path, "%s/expected_duckdb/%s/chunks.csv", golden_root(), rel);
    if (csv_load(&c, path) == 0) {
        int row = 1;
        for (uint32_t g = 0; g < m->nrow_groups; g++) {
            const pq_row_group *rg = &m->row_groups[g];
            for (uint32_t k = 0; k < rg->ncolumns; k++, row++) {
                if (row >= c.nrows) BAD("chunks.csv too short");
                const pq_column_meta *cm = &rg->columns[k].meta;
                g_checked_chunks++;
                fmt_i64(num, true, rg->num_rows);
                if (strcmp(cell(&c, row, "row_group_num_rows"), num)) BAD("rg %u num_rows", g);
                fmt_i64(num, true, cm->num_values);
                if (strcmp(cell(&c, row, "num_values"), num)) BAD("rg %u col %u num_values", g, k);
                if (strcmp(cell(&c, row, "compression"), codec_name(cm->codec))) BAD("rg %u col %u codec", g, k);
                if (strcmp(cell(&c, row, "type"), type_name(cm->type))) BAD("rg %u col %u type", g, k);
                char tmp[512] = "";
                for (uint32_t e = 0; e < cm->npath; e++) {
                    if (e) strcat(tmp, ".");
                    strncat(tmp, cm->path[e], sizeof tmp - strlen(tmp) - 2);
                }
                if (strcmp(cell(&c, row, "path_in_schema"), tmp) &&
                    !strchr(cell(&c, row, "path_in_schema"), ','))
                    BAD("rg %u col %u path %.200s vs %.200s", g, k, tmp, cell(&c, row, "path_in_schema"));
                tmp[0] = 0;
                for (uint32_t e = 0; e < cm->nencodings; e++) {
                    if (e) strcat(tmp, ", ");
                    strcat(tmp, enc_name(cm->encodings[e]));
                }
                if (strcmp(cell(&c, row, "encodings"), tmp)) BAD("rg %u col %u encodings %.200s vs %.200s", g, k, tmp, cell(&c, row, "encodings"));
                fmt_i64(num, true, cm->data_page_offset);
                if (strcmp(cell(&c, row, "data_page_offset"), num)) BAD("rg %u col %u data_page_offset", g, k);
                fmt_i64(num, cm->has_dictionary_page_offset, cm->dictionary_page_offset);
                if (strcmp(cell(&c, row, "dictionary_page_offset"), num)) BAD("rg %u col %u dict offset %s vs %s", g, k, num, cell(&c, row, "dictionary_page_offset"));
                fmt_i64(num, true, cm->total_compressed_size);
                if (strcmp(cell(&c, row, "total_compressed_size"), num)) BAD("rg %u col %u compressed size", g, k);
                fmt_i64(num, true, cm->total_uncompressed_size);
                if (strcmp(cell(&c, row, "total_uncompressed_size"), num)) BAD("rg %u col %u uncompressed size", g, k);
                fmt_i64(num, cm->has_bloom_filter_offset, cm->bloom_filter_offset);
                if (strcmp(cell(&c, row, "bloom_filter_offset"), num)) BAD("rg %u col %u bloom offset", g, k);
                fmt_i64(num, cm->has_bloom_filter_length, cm->bloom_filter_length);
                if (strcmp(cell(&c, row, "bloom_filter_length"), num)) BAD("rg %u col %u bloom length", g, k);
                const pq_statistics *st = &cm->statistics;
                fmt_i64(num, cm->has_statistics && st->has_null_count, st->null_count);
                if (strcmp(cell(&c, row, "stats_null_count"), num)) BAD("rg %u col %u null_count %s vs %s", g, k, num, cell(&c, row, "stats_null_count"));
                const char *ex = cell(&c, row, "min_is_exact");
                if (strcmp(ex, st->has_is_min_exact ? (st->is_min_value_exact ? "true" : "false") : ""))
                    BAD("rg %u col %u min_is_exact", g, k);
                ex = cell(&c, row, "max_is_exact");
                if (strcmp(ex, st->has_is_max_exact ? (st->is_max_value_exact ? "true" : "false") : ""))
                    BAD("rg %u col %u max_is_exact", g, k);
                /* min/max values: plain integers and printable strings */
                const pq_schema_element *leafel = NULL;
                for (uint32_t e = 1, lk = 0; e < m->nschema; e++)
                    if (m->schema[e].num_children == 0 && lk++ == k) { leafel = &m->schema[e]; break; }
                bool plain_int = leafel && leafel->converted_type == PQ_CT_NONE &&
                                 leafel->logical.kind == PQ_LT_NONE;
                for (int which = 0; which < 2 && cm->has_statistics; which++) {
                    const pq_bytes *v = which ? &st->max_value : &st->min_value;
                    const char *expect = cell(&c, row, which ? "stats_max_value" : "stats_min_value");
                    if (!v->present) continue;
                    char got[256];
                    if (cm->type == PQ_INT32 && v->len == 4 && plain_int)
                        snprintf(got, sizeof got, "%d", (int32_t)tn_load_u32le(v->ptr));
                    else if (cm->type == PQ_INT64 && v->len == 8 && plain_int)
                        snprintf(got, sizeof got, "%lld", (long long)tn_load_u64le(v->ptr));
                    else if (cm->type == PQ_BYTE_ARRAY && v->len < sizeof got && leafel &&
                             leafel->converted_type == PQ_CT_UTF8) {
                        bool printable = true;
                        for (uint32_t q = 0; q < v->len; q++) if (v->ptr[q] < 32 || v->ptr[q] > 126) printable = false;
                        if (!printable) continue;
                        memcpy(got, v->ptr, v->len);
                        got[v->len] = 0;
                    } else continue;
                    if (strcmp(got, expect)) BAD("rg %u col %u %s: %s vs %s", g, k, which ? "max" : "min", got, expect);
                    g_checked_stats++;
                }
            }
        }
        if (row != c.nrows) BAD("chunks.csv has %d rows, we have %d", c.nrows - 1, row - 1);
    }
done:
    csv_free(&f);
    csv_free(&s);
    csv_free(&c);
#undef BAD
}

TEST(golden_footers_match_duckdb) {
    load_golden();
    CHECK(g_nfiles > 60);
    int decoded = 0;
    for (int i = 0; i < g_nfiles; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", golden_root(), g_files[i]);
        size_t len, flen;
        uint8_t *file = read_file(path, &len);
        CHECK(file != NULL);
        const uint8_t *footer = footer_of(file, len, &flen);
        CHECK_MSG(footer != NULL, "%s: no footer", g_files[i]);
        tn_arena *a = tn_arena_create(0);
        pq_file_meta m;
        int rc = pq_decode_file_meta(&m, a, footer, flen);
        if (strstr(g_files[i], "PARQUET-1481")) {
            CHECK_MSG(rc == TN_ECORRUPT, "PARQUET-1481 decoded");
            const char *msg = tn_error_message();
            CHECK_MSG(strstr(msg, "type") && strstr(msg, "enum") && strstr(msg, "-7"), "message: %s", msg);
            tn_arena_destroy(a);
            free(file);
            continue;
        }
        if (strstr(g_files[i], "ARROW-GH-41317")) {
            /* a list<Encoding> written with i16 elements; DuckDB: "TProtocolException" too */
            CHECK_MSG(rc == TN_ECORRUPT, "ARROW-GH-41317 decoded");
            CHECK(strstr(tn_error_message(), "encodings") != NULL);
            tn_arena_destroy(a);
            free(file);
            continue;
        }
        CHECK_MSG(rc == 0, "%s: %s", g_files[i], tn_error_message());
        decoded++;
        CHECK_MSG(!m.encrypted, "%s: encrypted?", g_files[i]);
        char err[512];
        check_against_duckdb(g_files[i], &m, len, flen, err, sizeof err);
        CHECK_MSG(err[0] == 0, "%s: %s", g_files[i], err);
        tn_arena_destroy(a);
        free(file);
    }
    CHECK(decoded >= 70);
    CHECK_MSG(g_checked_files >= 60, "only %d files checked against DuckDB", g_checked_files);
    CHECK(g_checked_chunks >= 300);
    CHECK(g_checked_stats >= 100);
    printf("  golden: %d footers decoded, %d checked vs DuckDB (%d chunks, %d min/max)\n", decoded,
           g_checked_files, g_checked_chunks, g_checked_stats);
}

TEST(golden_specific_facts) {
    char path[2048];
    size_t len, flen;
    tn_arena *a = tn_arena_create(0);
    pq_file_meta m;
    /* sort_columns: a descending nulls first, b ascending nulls last, both row groups */
    snprintf(path, sizeof path, "%s/data/sort_columns.parquet", golden_root());
    uint8_t *f = read_file(path, &len);
    const uint8_t *ft = footer_of(f, len, &flen);
    CHECK_OK(pq_decode_file_meta(&m, a, ft, flen));
    CHECK_EQ_INT(m.nrow_groups, 2);
    for (int g = 0; g < 2; g++) {
        CHECK_EQ_INT(m.row_groups[g].nsorting_columns, 2);
        CHECK(m.row_groups[g].sorting_columns[0].column_idx == 0 &&
              m.row_groups[g].sorting_columns[0].descending &&
              m.row_groups[g].sorting_columns[0].nulls_first);
        CHECK(m.row_groups[g].sorting_columns[1].column_idx == 1 &&
              !m.row_groups[g].sorting_columns[1].descending &&
              !m.row_groups[g].sorting_columns[1].nulls_first);
    }
    CHECK_EQ_INT(m.ncolumn_orders, 2);
    CHECK_EQ_INT(m.column_orders[0], 1);
    free(f);
    /* column_chunk_key_value_metadata: {"foo":"bar","thisiskeywithoutvalue":null} */
    snprintf(path, sizeof path, "%s/data/column_chunk_key_value_metadata.parquet", golden_root());
    f = read_file(path, &len);
    ft = footer_of(f, len, &flen);
    CHECK_OK(pq_decode_file_meta(&m, a, ft, flen));
    CHECK_EQ_INT(m.num_rows, 0);
    const pq_column_meta *cm = &m.row_groups[0].columns[0].meta;
    CHECK_EQ_INT(cm->nkv, 2);
    CHECK_EQ_STR(cm->kv[0].key, "foo");
    CHECK_EQ_STR(cm->kv[0].value, "bar");
    CHECK_EQ_STR(cm->kv[1].key, "thisiskeywithoutvalue");
    CHECK(cm->kv[1].value == NULL);
    free(f);
    /* unknown-logical-type: column 2 carries LogicalType member 2555 */
    snprintf(path, sizeof path, "%s/data/unknown-logical-type.parquet", golden_root());
    f = read_file(path, &len);
    ft = footer_of(f, len, &flen);
    CHECK_OK(pq_decode_file_meta(&m, a, ft, flen));
    CHECK_EQ_INT(m.schema[1].logical.kind, PQ_LT_STRING);
    CHECK_EQ_INT(m.schema[2].logical.kind, PQ_LT_UNKNOWN_MEMBER);
    CHECK_EQ_INT(m.schema[2].type, PQ_BYTE_ARRAY);
    free(f);
    /* the plaintext-footer encrypted file decodes and is flagged */
    snprintf(path, sizeof path, "%s/data/encrypt_columns_plaintext_footer.parquet.encrypted", golden_root());
    f = read_file(path, &len);
    CHECK(f != NULL);
    ft = footer_of(f, len, &flen);
    CHECK(ft != NULL);
    CHECK_OK(pq_decode_file_meta(&m, a, ft, flen));
    CHECK(m.encrypted);
    bool any_chunk_encrypted = false;
    for (uint32_t k = 0; k < m.row_groups[0].ncolumns; k++)
        any_chunk_encrypted |= m.row_groups[0].columns[k].encrypted;
    CHECK(any_chunk_encrypted);
    free(f);
    /* the fully encrypted one has the PARE magic: no PAR1 footer */
    snprintf(path, sizeof path, "%s/data/encrypt_columns_and_footer.parquet.encrypted", golden_root());
    f = read_file(path, &len);
    CHECK(f != NULL && footer_of(f, len, &flen) == NULL);
    free(f);
    tn_arena_destroy(a);
}

TEST(golden_footers_roundtrip) {
    load_golden();
    int n = 0;
    for (int i = 0; i < g_nfiles; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", golden_root(), g_files[i]);
        size_t len, flen;
        uint8_t *file = read_file(path, &len);
        const uint8_t *footer = footer_of(file, len, &flen);
        tn_arena *a = tn_arena_create(0);
        pq_file_meta m, m2, m3;
        if (pq_decode_file_meta(&m, a, footer, flen) != 0) { tn_arena_destroy(a); free(file); continue; }
        tn_buf e1 = TN_BUF_INIT, e2 = TN_BUF_INIT;
        CHECK_OK(pq_encode_file_meta(&e1, &m));
        CHECK_OK(pq_decode_file_meta(&m2, a, e1.data, e1.len));
        char why[64] = "";
        CHECK_MSG(meta_eq(&m, &m2, why), "%s: round trip differs: %s", g_files[i], why);
        /* our encoding is a fixed point */
        CHECK_OK(pq_encode_file_meta(&e2, &m2));
        CHECK_MSG(e1.len == e2.len && !memcmp(e1.data, e2.data, e1.len), "%s: re-encoding differs", g_files[i]);
        CHECK_OK(pq_decode_file_meta(&m3, a, e2.data, e2.len));
        CHECK(meta_eq(&m2, &m3, why));
        /* the decoded strings and bytes live in the arena: the input may go away */
        memset(file, 0, len);
        memset(e1.data, 0, e1.len);
        CHECK(meta_eq(&m2, &m3, why));
        n++;
        tn_buf_free(&e1);
        tn_buf_free(&e2);
        tn_arena_destroy(a);
        free(file);
    }
    CHECK(n >= 70);
}

/* Walks every page header of every chunk of the golden files: counts must add up, and every
 * header round-trips; page indexes decode and round-trip too. */
TEST(golden_page_headers_and_page_index) {
    load_golden();
    int pages = 0, indexes = 0, files = 0;
    for (int i = 0; i < g_nfiles; i++) {
        if (strstr(g_files[i], "bad_data/")) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", golden_root(), g_files[i]);
        size_t len, flen;
        uint8_t *file = read_file(path, &len);
        const uint8_t *footer = footer_of(file, len, &flen);
        tn_arena *a = tn_arena_create(0);
        pq_file_meta m;
        CHECK_OK(pq_decode_file_meta(&m, a, footer, flen));
        bool nested = false;
        for (uint32_t e = 1; e < m.nschema; e++)
            if (m.schema[e].num_children > 0 || m.schema[e].repetition == PQ_REPEATED) nested = true;
        files++;
        for (uint32_t g = 0; g < m.nrow_groups; g++) {
            for (uint32_t k = 0; k < m.row_groups[g].ncolumns; k++) {
                const pq_column_chunk *cc = &m.row_groups[g].columns[k];
                const pq_column_meta *cm = &cc->meta;
                int64_t start = cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0
                                    ? cm->dictionary_page_offset : cm->data_page_offset;
                int64_t end = start + cm->total_compressed_size;
                if (strstr(g_files[i], "nation.dict-malformed")) end = start;  /* known bad */
                if (end > (int64_t)len) end = (int64_t)len;
                int64_t pos = start, values = 0;
                while (pos < end) {
                    pq_page_header h, h2;
                    size_t used;
                    CHECK_MSG(pq_decode_page_header(&h, file + pos, (size_t)(end - pos), &used) == 0,
                              "%s rg %u col %u at %lld: %s", g_files[i], g, k, (long long)pos, tn_error_message());
                    tn_buf e = TN_BUF_INIT;
                    CHECK_OK(pq_encode_page_header(&e, &h));
                    size_t used2;
                    CHECK_OK(pq_decode_page_header(&h2, e.data, e.len, &used2));
                    CHECK_EQ_INT(used2, e.len);
                    CHECK_MSG(page_header_eq(&h, &h2), "%s: page header round trip", g_files[i]);
                    tn_buf_free(&e);
                    if (h.type == PQ_PAGE_DATA) values += h.data.num_values;
                    if (h.type == PQ_PAGE_DATA_V2) values += h.data_v2.num_values;
                    pos += (int64_t)used + h.compressed_page_size;
                    pages++;
                }
                if (!strstr(g_files[i], "nation.dict-malformed") && !nested)
                    CHECK_MSG(values == cm->num_values, "%s rg %u col %u: %lld values in pages, %lld in meta",
                              g_files[i], g, k, (long long)values, (long long)cm->num_values);
                if (cc->has_offset_index && cc->offset_index_offset + cc->offset_index_length <= (int64_t)len) {
                    pq_offset_index oi, oi2;
                    CHECK_OK(pq_decode_offset_index(&oi, a, file + cc->offset_index_offset,
                                                    (size_t)cc->offset_index_length));
                    CHECK(oi.npages > 0);
                    CHECK(oi.pages[0].first_row_index == 0);
                    tn_buf e = TN_BUF_INIT;
                    CHECK_OK(pq_encode_offset_index(&e, &oi));
                    CHECK_OK(pq_decode_offset_index(&oi2, a, e.data, e.len));
                    CHECK_EQ_INT(oi2.npages, oi.npages);
                    CHECK(!memcmp(oi.pages, oi2.pages, oi.npages * sizeof *oi.pages));
                    tn_buf_free(&e);
                    indexes++;
                }
                if (cc->has_column_index && cc->column_index_offset + cc->column_index_length <= (int64_t)len) {
                    pq_column_index ci, ci2;
                    CHECK_MSG(pq_decode_column_index(&ci, a, file + cc->column_index_offset,
                                                     (size_t)cc->column_index_length) == 0,
                              "%s: %s", g_files[i], tn_error_message());
                    tn_buf e = TN_BUF_INIT;
                    CHECK_OK(pq_encode_column_index(&e, &ci));
                    CHECK_OK(pq_decode_column_index(&ci2, a, e.data, e.len));
                    CHECK_EQ_INT(ci2.npages, ci.npages);
                    CHECK_EQ_INT(ci2.boundary_order, ci.boundary_order);
                    CHECK((ci.null_counts == NULL) == (ci2.null_counts == NULL));
                    for (uint32_t p = 0; p < ci.npages; p++) {
                        CHECK(ci.null_pages[p] == ci2.null_pages[p]);
                        CHECK(bytes_eq(&ci.min_values[p], &ci2.min_values[p]));
                        CHECK(bytes_eq(&ci.max_values[p], &ci2.max_values[p]));
                        if (ci.null_counts) CHECK(ci.null_counts[p] == ci2.null_counts[p]);
                    }
                    tn_buf_free(&e);
                    indexes++;
                }
            }
        }
        tn_arena_destroy(a);
        free(file);
    }
    CHECK(pages > 300);
    CHECK(indexes > 20);
    printf("  %d files, %d page headers, %d page indexes\n", files, pages, indexes);
}

/* int32_with_null_pages.md: the column index and offset index tables. */
TEST(golden_int32_with_null_pages_index) {
    char path[2048];
    snprintf(path, sizeof path, "%s/data/int32_with_null_pages.parquet", golden_root());
    size_t len, flen;
    uint8_t *f = read_file(path, &len);
    const uint8_t *ft = footer_of(f, len, &flen);
    tn_arena *a = tn_arena_create(0);
    pq_file_meta m;
    CHECK_OK(pq_decode_file_meta(&m, a, ft, flen));
    const pq_column_chunk *cc = &m.row_groups[0].columns[0];
    CHECK(cc->has_column_index && cc->has_offset_index);
    pq_column_index ci;
    CHECK_OK(pq_decode_column_index(&ci, a, f + cc->column_index_offset, (size_t)cc->column_index_length));
    CHECK_EQ_INT(ci.npages, 10);
    CHECK_EQ_INT(ci.boundary_order, 0);
    static const int64_t nulls[10] = {8, 55, 100, 52, 16, 12, 5, 7, 8, 12};
    static const int32_t mins[10] = {-2135807632, -2104090659, 0, -2116849709, -2048691758,
                                     -2017923401, -2136906554, -2113313110, -2046900272, -1941944785};
    static const int32_t maxs[10] = {2144701119, 1745329571, 0, 2077105757, 2143189382, 2087827129,
                                     2125689411, 2145722375, 2087168549, 2078586537};
    for (int p = 0; p < 10; p++) {
        CHECK_EQ_INT(ci.null_counts[p], nulls[p]);
        CHECK(ci.null_pages[p] == (p == 2));
        if (p == 2) continue;
        CHECK_EQ_INT(ci.min_values[p].len, 4);
        CHECK_EQ_INT((int32_t)tn_load_u32le(ci.min_values[p].ptr), mins[p]);
        CHECK_EQ_INT((int32_t)tn_load_u32le(ci.max_values[p].ptr), maxs[p]);
    }
    pq_offset_index oi;
    CHECK_OK(pq_decode_offset_index(&oi, a, f + cc->offset_index_offset, (size_t)cc->offset_index_length));
    static const int64_t off[10] = {4, 419, 639, 670, 898, 1280, 1682, 2104, 2515, 2932};
    static const int32_t sz[10] = {415, 220, 31, 228, 382, 402, 422, 411, 417, 400};
    CHECK_EQ_INT(oi.npages, 10);
    for (int p = 0; p < 10; p++) {
        CHECK_EQ_INT(oi.pages[p].offset, off[p]);
        CHECK_EQ_INT(oi.pages[p].compressed_page_size, sz[p]);
        CHECK_EQ_INT(oi.pages[p].first_row_index, p * 100);
    }
    tn_arena_destroy(a);
    free(f);
}

TEST(bad_data_dictionary_header_negative) {
    char path[2048];
    snprintf(path, sizeof path, "%s/bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet", golden_root());
    size_t len, flen;
    uint8_t *f = read_file(path, &len);
    CHECK(f != NULL);
    const uint8_t *ft = footer_of(f, len, &flen);
    tn_arena *a = tn_arena_create(0);
    pq_file_meta m;
    CHECK_OK(pq_decode_file_meta(&m, a, ft, flen));
    bool rejected = false;
    for (uint32_t k = 0; k < m.row_groups[0].ncolumns; k++) {
        const pq_column_meta *cm = &m.row_groups[0].columns[k].meta;
        int64_t start = cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0
                            ? cm->dictionary_page_offset : cm->data_page_offset;
        int64_t end = start + cm->total_compressed_size, pos = start;
        if (end > (int64_t)len) end = (int64_t)len;
        while (pos < end) {
            pq_page_header h;
            size_t used;
            if (pq_decode_page_header(&h, f + pos, (size_t)(end - pos), &used) != 0) {
                /* column 0's first header is fuzzed too (num_values as i16: skipped -> missing) */
                const char *msg = tn_error_message();
                if (strstr(msg, "DictionaryPageHeader") && strstr(msg, "num_values") &&
                    strstr(msg, "negative") && strstr(msg, "-26"))
                    rejected = true;
                else
                    CHECK_MSG(strstr(msg, "missing"), "message: %s", msg);
                break;
            }
            pos += (int64_t)used + h.compressed_page_size;
        }
    }
    CHECK(rejected);
    tn_arena_destroy(a);
    free(f);
}

/* ---------------------------------------------------------------------------------------------
 * Hostile input: truncations and random corruption of real footers and page headers.
 */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}

TEST(hostile_truncations_fail) {
    load_golden();
    int cases = 0;
    for (int i = 0; i < g_nfiles; i += 3) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", golden_root(), g_files[i]);
        size_t len, flen;
        uint8_t *file = read_file(path, &len);
        const uint8_t *footer = footer_of(file, len, &flen);
        tn_arena *a = tn_arena_create(0);
        pq_file_meta m;
        if (pq_decode_file_meta(&m, a, footer, flen) == 0) {
            size_t step = flen > 3000 ? flen / 500 : 1;
            for (size_t cut = 0; cut < flen; cut += step) {
                /* a heap copy of exactly `cut` bytes so ASan sees any overread */
                uint8_t *copy = malloc(cut ? cut : 1);
                memcpy(copy, footer, cut);
                CHECK_MSG(pq_decode_file_meta(&m, a, copy, cut) == TN_ECORRUPT, "%s: cut %zu decoded",
                          g_files[i], cut);
                free(copy);
                cases++;
            }
        }
        tn_arena_destroy(a);
        free(file);
    }
    CHECK(cases > 1000);
}

TEST(hostile_random_corruption) {
    load_golden();
    int ok = 0, failed = 0;
    for (int iter = 0; iter < 4000; iter++) {
        int i = (int)(rnd() % (uint64_t)g_nfiles);
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", golden_root(), g_files[i]);
        size_t len, flen;
        uint8_t *file = read_file(path, &len);
        const uint8_t *footer = footer_of(file, len, &flen);
        uint8_t *copy = malloc(flen ? flen : 1);
        memcpy(copy, footer, flen);
        int nflip = 1 + (int)(rnd() % 4);
        for (int k = 0; k < nflip && flen; k++) {
            size_t at = rnd() % flen;
            switch (rnd() % 3) {
            case 0: copy[at] ^= (uint8_t)(1u << (rnd() % 8)); break;
            case 1: copy[at] = (uint8_t)rnd(); break;
            default: copy[at] = (uint8_t)(rnd() % 2 ? 0xff : 0x00); break;
            }
        }
        tn_arena *a = tn_arena_create(0);
        pq_file_meta m;
        int rc = pq_decode_file_meta(&m, a, copy, flen);
        if (rc == 0) {
            ok++;
            tn_buf e = TN_BUF_INIT;                  /* whatever decodes must re-encode */
            CHECK_OK(pq_encode_file_meta(&e, &m));
            tn_buf_free(&e);
        } else {
            failed++;
            CHECK(rc == TN_ECORRUPT || rc == TN_ENOMEM);
            CHECK(tn_error_message()[0] != 0);
        }
        /* page headers / indexes from random garbage of the footer bytes */
        pq_page_header h;
        size_t used;
        size_t off = flen ? rnd() % flen : 0;
        (void)pq_decode_page_header(&h, copy + off, flen - off, &used);
        pq_column_index ci;
        (void)pq_decode_column_index(&ci, a, copy + off, flen - off);
        pq_offset_index oi;
        (void)pq_decode_offset_index(&oi, a, copy + off, flen - off);
        free(copy);
        tn_arena_destroy(a);
        free(file);
    }
    CHECK(failed > 1000);
    printf("  random corruption: %d decoded anyway, %d rejected\n", ok, failed);
}

TEST(hostile_pure_garbage) {
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = rnd() % 64;
        uint8_t *buf = malloc(n ? n : 1);
        for (size_t k = 0; k < n; k++) buf[k] = (uint8_t)rnd();
        tn_arena *a = tn_arena_create(0);
        pq_file_meta m;
        pq_page_header h;
        pq_column_index ci;
        pq_offset_index oi;
        size_t used;
        int32_t nb;
        (void)pq_decode_file_meta(&m, a, buf, n);
        (void)pq_decode_page_header(&h, buf, n, &used);
        (void)pq_decode_column_index(&ci, a, buf, n);
        (void)pq_decode_offset_index(&oi, a, buf, n);
        (void)pq_decode_bloom_header(&nb, buf, n, &used);
        tn_arena_destroy(a);
        free(buf);
    }
    CHECK(1);
}

TEST_MAIN()
