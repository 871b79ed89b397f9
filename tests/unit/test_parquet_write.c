/*
 * tests/unit/test_parquet_write.c: the Parquet writer, checked WITHOUT tarn's reader: files of
 * every type (nulls, NaN, -0.0, each codec, dictionary / PLAIN / fallback, several row groups
 * and pages) are decoded here from raw bytes (footer via pq_decode_file_meta, every page header,
 * decompressed bodies, RLE levels, PLAIN and dictionary values, the page index) and compared
 * with an independent expectation. DuckDB checks the same files in tests/interop/.
 */
#include "parquet/parquetInt.h"
#include "testlib.h"

#include <math.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * Test data: column c, row r -> value (or NULL).
 */
#define NT 19
static const char *g_names[NT] = {"b", "i8", "i16", "i32", "i64", "f32", "f64", "d9", "d18", "d38",
                                  "s", "bin", "date", "ts", "tstz", "allnull", "req", "lowcard", "grow"};

static tn_type col_type(int c) {
    switch (c) {
    case 0: return tn_type_make(TN_TYPE_BOOLEAN);
    case 1: return tn_type_make(TN_TYPE_TINYINT);
    case 2: return tn_type_make(TN_TYPE_SMALLINT);
    case 3: return tn_type_make(TN_TYPE_INTEGER);
    case 4: return tn_type_make(TN_TYPE_BIGINT);
    case 5: return tn_type_make(TN_TYPE_FLOAT);
    case 6: return tn_type_make(TN_TYPE_DOUBLE);
    case 7: return tn_type_decimal(9, 2);
    case 8: return tn_type_decimal(18, 4);
    case 9: return tn_type_decimal(38, 10);
    case 10: return tn_type_make(TN_TYPE_VARCHAR);
    case 11: return tn_type_make(TN_TYPE_VARBINARY);
    case 12: return tn_type_make(TN_TYPE_DATE);
    case 13: return tn_type_make(TN_TYPE_TIMESTAMP);
    case 14: return tn_type_make(TN_TYPE_TIMESTAMP_TZ);
    case 15: return tn_type_make(TN_TYPE_INTEGER);
    case 16: return tn_type_make(TN_TYPE_BIGINT);
    default: return tn_type_make(TN_TYPE_VARCHAR);
    }
}
static bool col_nullable(int c) { return c != 16; }

static char g_strbuf[NT][64];

/* Returns false for NULL. Strings point into g_strbuf (valid until the next call for c). */
static bool gen(int c, int64_t r, tn_value *v) {
    memset(v, 0, sizeof *v);
    v->type = col_type(c);
    if (c == 15) return false;
    if (col_nullable(c) && (r * 7 + c) % 13 == 0) return false;
    uint64_t h = (uint64_t)r * 0x9E3779B97F4A7C15ull;
    switch (c) {
    case 0: v->u.b = (r % 3) == 0; break;
    case 1: v->u.i = (int8_t)(r * 31); break;
    case 2: v->u.i = (int16_t)(r * 131); break;
    case 3: v->u.i = (int32_t)(uint32_t)(h >> 32); break;
    case 4: v->u.i = r % 100 - 50; break;
    case 5:
        if (r % 97 == 5) v->u.d = NAN;
        else if (r % 89 == 3) v->u.d = -0.0;
        else v->u.d = (float)((r % 50) * 0.5 - 10);
        break;
    case 6:
        if (r % 101 == 7) v->u.d = NAN;
        else if (r == 1001) v->u.d = INFINITY;
        else if (r == 2222) v->u.d = -INFINITY;
        else v->u.d = (double)r * 1.25 - 1000.0;
        break;
    case 7: v->u.i = (r % 1000) * 37 - 18000; break;
    case 8: v->u.i = r * 1000003 - 5000000000LL; break;
    case 9: {
        tn_int128 big = (tn_int128)(r % 37) * 100000000000000000LL * 1000;   /* dictionary pays */
        v->u.i128 = (r % 2 ? -big : big) + r;
        break;
    }
    case 10:
        if (r % 50 == 1) snprintf(g_strbuf[c], sizeof g_strbuf[c], "%s", "");
        else if (r % 7 == 2) snprintf(g_strbuf[c], sizeof g_strbuf[c], "\xc3\xa9t\xc3\xa9 %d", (int)(r % 40));
        else snprintf(g_strbuf[c], sizeof g_strbuf[c], "str-%05d", (int)(h % 1000));
        v->u.s.ptr = g_strbuf[c];
        v->u.s.len = (uint32_t)strlen(g_strbuf[c]);
        break;
    case 11: {
        int len = (int)(r % 5);
        for (int i = 0; i < len; i++) g_strbuf[c][i] = (char)(i == 0 ? 0 : (r * (i + 3)) & 0xff);
        v->u.s.ptr = g_strbuf[c];
        v->u.s.len = (uint32_t)len;
        break;
    }
    case 12: v->u.i = r % 4000 - 2000; break;
    case 13: v->u.i = r * 3600LL * 1000000 - 1000000000000LL; break;
    case 14: v->u.i = -r * 86400LL * 1000000 + 253402300799000000LL; break;
    case 16: v->u.i = r; break;
    case 18:
        snprintf(g_strbuf[c], sizeof g_strbuf[c], "g%05d", (int)(r / 10));
        v->u.s.ptr = g_strbuf[c];
        v->u.s.len = (uint32_t)strlen(g_strbuf[c]);
        break;
    default:
        snprintf(g_strbuf[c], sizeof g_strbuf[c], "k%d", (int)(r % 5));
        v->u.s.ptr = g_strbuf[c];
        v->u.s.len = (uint32_t)strlen(g_strbuf[c]);
        break;
    }
    return true;
}

static int fill_chunk(tn_chunk *ch, const int *cols, int ncols, int64_t row0, uint32_t n) {
    tn_chunk_reset(ch);
    for (int i = 0; i < ncols; i++) {
        for (uint32_t k = 0; k < n; k++) {
            tn_value v;
            if (gen(cols[i], row0 + k, &v)) {
                int rc = tn_vector_set_value(&ch->cols[i], k, &v);
                if (rc) return rc;
            } else {
                int rc = tn_vector_set_null(&ch->cols[i], k);
                if (rc) return rc;
            }
        }
        ch->cols[i].count = n;
    }
    ch->count = n;
    return 0;
}

/* Expected PLAIN bytes of a value (no BYTE_ARRAY length prefix) = statistics encoding. */
static uint32_t flba_width(int p) {
    static const uint8_t w[39] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5, 6, 6, 6, 7, 7, 8, 8, 8,
                                  9, 9, 10, 10, 10, 11, 11, 12, 12, 13, 13, 13, 14, 14, 15, 15, 16, 16, 16};
    return w[p];
}
static size_t expect_plain(const tn_value *v, uint8_t *out) {
    tn_type t = v->type;
    switch ((tn_type_id)t.id) {
    case TN_TYPE_BOOLEAN: out[0] = v->u.b; return 1;
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_DATE:
        tn_store_u32le(out, (uint32_t)(int32_t)v->u.i); return 4;
    case TN_TYPE_BIGINT: case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ:
        tn_store_u64le(out, (uint64_t)v->u.i); return 8;
    case TN_TYPE_FLOAT: { float f = (float)v->u.d; memcpy(out, &f, 4); return 4; }
    case TN_TYPE_DOUBLE: memcpy(out, &v->u.d, 8); return 8;
    case TN_TYPE_DECIMAL:
        if (t.precision <= 9) { tn_store_u32le(out, (uint32_t)(int32_t)v->u.i); return 4; }
        if (t.precision <= 18) { tn_store_u64le(out, (uint64_t)v->u.i); return 8; }
        {
            uint32_t w = flba_width(t.precision);
            unsigned __int128 u = (unsigned __int128)v->u.i128;
            for (uint32_t i = 0; i < w; i++) out[w - 1 - i] = (uint8_t)(u >> (8 * i));
            return w;
        }
    case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY: memcpy(out, v->u.s.ptr, v->u.s.len); return v->u.s.len;
    default: return 0;
    }
}

/* Independent ordering for expected statistics: -1/0/1; floats by value (caller skips NaN). */
static int cmp_val(const tn_value *a, const tn_value *b) {
    switch ((tn_type_id)a->type.id) {
    case TN_TYPE_BOOLEAN: return (a->u.b > b->u.b) - (a->u.b < b->u.b);
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: return (a->u.d > b->u.d) - (a->u.d < b->u.d);
    case TN_TYPE_DECIMAL:
        if (a->type.precision > 18) return (a->u.i128 > b->u.i128) - (a->u.i128 < b->u.i128);
        return (a->u.i > b->u.i) - (a->u.i < b->u.i);
    case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY: {
        uint32_t n = a->u.s.len < b->u.s.len ? a->u.s.len : b->u.s.len;
        int r = n ? memcmp(a->u.s.ptr, b->u.s.ptr, n) : 0;
        if (r) return r < 0 ? -1 : 1;
        return (a->u.s.len > b->u.s.len) - (a->u.s.len < b->u.s.len);
    }
    default: return (a->u.i > b->u.i) - (a->u.i < b->u.i);
    }
}

typedef struct exp_stats {
    bool has; int64_t nulls, nans;
    uint8_t min[64], max[64]; size_t min_len, max_len;
    tn_value vmin, vmax;
    char smin[64], smax[64];
} exp_stats;

static void expect_stats(int c, int64_t r0, int64_t r1, exp_stats *e) {
    memset(e, 0, sizeof *e);
    for (int64_t r = r0; r < r1; r++) {
        tn_value v;
        if (!gen(c, r, &v)) { e->nulls++; continue; }
        bool is_float = v.type.id == TN_TYPE_FLOAT || v.type.id == TN_TYPE_DOUBLE;
        if (is_float && isnan(v.u.d)) { e->nans++; continue; }
        if (!e->has || cmp_val(&v, &e->vmin) < 0) {
            e->vmin = v;
            if (v.type.id == TN_TYPE_VARCHAR || v.type.id == TN_TYPE_VARBINARY) {
                memcpy(e->smin, v.u.s.ptr, v.u.s.len);
                e->vmin.u.s.ptr = e->smin;
            }
        }
        if (!e->has || cmp_val(&v, &e->vmax) > 0) {
            e->vmax = v;
            if (v.type.id == TN_TYPE_VARCHAR || v.type.id == TN_TYPE_VARBINARY) {
                memcpy(e->smax, v.u.s.ptr, v.u.s.len);
                e->vmax.u.s.ptr = e->smax;
            }
        }
        e->has = true;
    }
    if (e->has) {
        if ((e->vmin.type.id == TN_TYPE_FLOAT || e->vmin.type.id == TN_TYPE_DOUBLE)) {
            if (e->vmin.u.d == 0) e->vmin.u.d = -0.0;
            if (e->vmax.u.d == 0) e->vmax.u.d = 0.0;
        }
        e->min_len = expect_plain(&e->vmin, e->min);
        e->max_len = expect_plain(&e->vmax, e->max);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Writing a test file.
 */
static char g_dir[256];

static const char *tmp_path(const char *name) {
    static char path[512];
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "/tmp/tarn_test_pqw_%d", (int)getpid());
        tn_fs_default()->mkdir_p(tn_fs_default(), g_dir);
    }
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    unlink(path);
    return path;
}

static int rm_entry(void *ctx, const char *name, bool is_dir) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", (const char *)ctx, name);
    if (!is_dir) unlink(p);
    return 0;
}
__attribute__((destructor)) static void remove_tmp_dir(void) {
    if (!g_dir[0] || getenv("TARN_KEEP_TEST_FILES")) return;
    tn_fs_default()->list_dir(tn_fs_default(), g_dir, rm_entry, g_dir);
    rmdir(g_dir);
}

static int write_file(const char *path, const int *cols, int ncols, int64_t nrows, uint32_t chunk_rows,
                      const tn_parquet_writer_options *opts, tn_parquet_write_result *res) {
    tn_parquet_column_spec specs[NT];
    tn_type types[NT];
    for (int i = 0; i < ncols; i++) {
        specs[i].name = g_names[cols[i]];
        specs[i].type = types[i] = col_type(cols[i]);
        specs[i].nullable = col_nullable(cols[i]);
        specs[i].field_id = cols[i] == 3 ? 42 : -1;
    }
    tn_parquet_writer *w = NULL;
    tn_chunk ch;
    int rc = tn_chunk_init(&ch, (uint32_t)ncols, types, chunk_rows);
    if (rc) return rc;
    rc = tn_parquet_writer_open(&w, tn_fs_default(), path, specs, (uint32_t)ncols, opts);
    for (int64_t r = 0; !rc && r < nrows; r += chunk_rows) {
        uint32_t n = (uint32_t)(nrows - r < chunk_rows ? nrows - r : chunk_rows);
        rc = fill_chunk(&ch, cols, ncols, r, n);
        if (!rc) rc = tn_parquet_writer_write(w, &ch);
    }
    if (w) {
        if (rc) tn_parquet_writer_abort(w);
        else rc = tn_parquet_writer_close(w, res);
    }
    tn_chunk_free(&ch);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Independent decoding and checking of a written file. Returns NULL or a failure message.
 */
typedef struct file_check {
    tn_buf bytes;
    tn_arena *arena;
    pq_file_meta fm;
    int npages_total, ndict_pages;
    int dict_pages_data, plain_pages_data;   /* data pages per encoding, all chunks */
    int ci_count, oi_count;
} file_check;

static char g_msg[512];
#define BAD(...) do { snprintf(g_msg, sizeof g_msg, __VA_ARGS__); return g_msg; } while (0)

static const char *decode_plain_one(int phys, int32_t width, const uint8_t **p, const uint8_t *end,
                                    int *bitpos, const uint8_t **val, size_t *len) {
    switch (phys) {
    case PQ_BOOLEAN: {
        static uint8_t bit;
        if (*p >= end) BAD("PLAIN BOOLEAN: short");
        bit = (**p >> *bitpos) & 1;
        if (++*bitpos == 8) { *bitpos = 0; (*p)++; }
        *val = &bit; *len = 1;
        return NULL;
    }
    case PQ_INT32: case PQ_FLOAT: width = 4; break;
    case PQ_INT64: case PQ_DOUBLE: width = 8; break;
    case PQ_BYTE_ARRAY: {
        if (end - *p < 4) BAD("PLAIN BYTE_ARRAY: short length");
        uint32_t n = tn_load_u32le(*p);
        *p += 4;
        if ((size_t)(end - *p) < n) BAD("PLAIN BYTE_ARRAY: short value");
        *val = *p; *len = n; *p += n;
        return NULL;
    }
    default: break;
    }
    if (end - *p < width) BAD("PLAIN: short value");
    *val = *p; *len = (size_t)width; *p += width;
    return NULL;
}

static const char *check_file(file_check *fc, const char *path, const int *cols, int ncols, int64_t nrows,
                              const tn_parquet_writer_options *opts) {
    memset(&fc->fm, 0, sizeof fc->fm);
    tn_buf_clear(&fc->bytes);
    if (tn_fs_read_all(tn_fs_default(), path, &fc->bytes)) BAD("read: %s", tn_error_message());
    const uint8_t *b = fc->bytes.data;
    size_t size = fc->bytes.len;
    if (size < 12 || memcmp(b, "PAR1", 4) || memcmp(b + size - 4, "PAR1", 4)) BAD("bad magic");
    uint32_t flen = tn_load_u32le(b + size - 8);
    if (flen > size - 12) BAD("bad footer length");
    if (pq_decode_file_meta(&fc->fm, fc->arena, b + size - 8 - flen, flen)) BAD("footer: %s", tn_error_message());
    pq_file_meta *fm = &fc->fm;
    if (fm->version != 1) BAD("version %d", fm->version);
    if (!fm->created_by || strcmp(fm->created_by, "tarn version 0.1.0 (build tarn)")) BAD("created_by");
    if (fm->num_rows != nrows) BAD("num_rows %lld", (long long)fm->num_rows);
    if (fm->nschema != (uint32_t)ncols + 1 || fm->schema[0].num_children != ncols) BAD("schema size");
    if (fm->ncolumn_orders != (uint32_t)ncols) BAD("column_orders %u", fm->ncolumn_orders);
    for (int i = 0; i < ncols; i++) {
        pq_schema_element *e = &fm->schema[i + 1];
        tn_type t = col_type(cols[i]);
        if (fm->column_orders[i] != 1) BAD("column order %d", fm->column_orders[i]);
        if (strcmp(e->name, g_names[cols[i]])) BAD("name %s", e->name);
        if (e->repetition != (col_nullable(cols[i]) ? PQ_OPTIONAL : PQ_REQUIRED)) BAD("%s: repetition", e->name);
        if (e->field_id != (cols[i] == 3 ? 42 : -1)) BAD("%s: field_id %d", e->name, e->field_id);
        int phys = -1, ct = PQ_CT_NONE, lt = PQ_LT_NONE;
        switch ((tn_type_id)t.id) {
        case TN_TYPE_BOOLEAN: phys = PQ_BOOLEAN; break;
        case TN_TYPE_TINYINT: phys = PQ_INT32; ct = PQ_CT_INT_8; lt = PQ_LT_INTEGER; break;
        case TN_TYPE_SMALLINT: phys = PQ_INT32; ct = PQ_CT_INT_16; lt = PQ_LT_INTEGER; break;
        case TN_TYPE_INTEGER: phys = PQ_INT32; break;
        case TN_TYPE_BIGINT: phys = PQ_INT64; break;
        case TN_TYPE_FLOAT: phys = PQ_FLOAT; break;
        case TN_TYPE_DOUBLE: phys = PQ_DOUBLE; break;
        case TN_TYPE_DECIMAL:
            phys = t.precision <= 9 ? PQ_INT32 : t.precision <= 18 ? PQ_INT64 : PQ_FIXED_LEN_BYTE_ARRAY;
            ct = PQ_CT_DECIMAL; lt = PQ_LT_DECIMAL;
            if (e->scale != t.scale || e->precision != t.precision || e->logical.scale != t.scale ||
                e->logical.precision != t.precision) BAD("%s: decimal scale/precision", e->name);
            if (phys == PQ_FIXED_LEN_BYTE_ARRAY && e->type_length != (int32_t)flba_width(t.precision))
                BAD("%s: type_length %d", e->name, e->type_length);
            break;
        case TN_TYPE_VARCHAR: phys = PQ_BYTE_ARRAY; ct = PQ_CT_UTF8; lt = PQ_LT_STRING; break;
        case TN_TYPE_VARBINARY: phys = PQ_BYTE_ARRAY; break;
        case TN_TYPE_DATE: phys = PQ_INT32; ct = PQ_CT_DATE; lt = PQ_LT_DATE; break;
        case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ:
            phys = PQ_INT64; ct = PQ_CT_TIMESTAMP_MICROS; lt = PQ_LT_TIMESTAMP;
            if (e->logical.unit != PQ_UNIT_MICROS || e->logical.adjusted_to_utc != (t.id == TN_TYPE_TIMESTAMP_TZ))
                BAD("%s: timestamp logical type", e->name);
            break;
        default: break;
        }
        if (e->type != phys || e->converted_type != ct || e->logical.kind != lt)
            BAD("%s: type %d/%d/%d, expected %d/%d/%d", e->name, e->type, e->converted_type, e->logical.kind, phys, ct, lt);
        if (lt == PQ_LT_INTEGER && (!e->logical.is_signed || e->logical.bit_width != (t.id == TN_TYPE_TINYINT ? 8 : 16)))
            BAD("%s: integer logical type", e->name);
    }

    /* Row groups: contiguous chunks; every page decodes; values equal the generator's. */
    int64_t row_base = 0;
    uint64_t expect_off = 4;
    int64_t max_rg_rows = opts && opts->row_group_rows ? (int64_t)opts->row_group_rows : 1048576;
    uint32_t page_rows = opts && opts->page_rows ? opts->page_rows : 20000;
    bool want_index = !opts || opts->page_index;
    for (uint32_t g = 0; g < fm->nrow_groups; g++) {
        pq_row_group *rg = &fm->row_groups[g];
        if (rg->ncolumns != (uint32_t)ncols) BAD("rg %u: %u columns", g, rg->ncolumns);
        if (rg->num_rows <= 0 || rg->num_rows > max_rg_rows) BAD("rg %u: %lld rows", g, (long long)rg->num_rows);
        if (!rg->has_file_offset || rg->file_offset != (int64_t)expect_off) BAD("rg %u: file_offset", g);
        if (!rg->has_ordinal || rg->ordinal != (int16_t)g) BAD("rg %u: ordinal", g);
        int64_t rg_comp = 0, rg_unc = 0;
        for (int ci = 0; ci < ncols; ci++) {
            pq_column_chunk *cc = &rg->columns[ci];
            pq_column_meta *m = &cc->meta;
            pq_schema_element *se = &fm->schema[ci + 1];
            if (cc->file_offset != 0 || !cc->has_meta_data) BAD("chunk file_offset/meta");
            if (m->type != se->type || m->npath != 1 || strcmp(m->path[0], se->name)) BAD("chunk type/path");
            if (m->codec != (opts ? (int)opts->codec : TN_CODEC_ZSTD)) BAD("codec %d", m->codec);
            if (m->num_values != rg->num_rows) BAD("num_values");
            uint64_t start = m->has_dictionary_page_offset ? (uint64_t)m->dictionary_page_offset : (uint64_t)m->data_page_offset;
            if (start != expect_off) BAD("%s rg %u: chunk starts at %llu, expected %llu", se->name, g,
                                         (unsigned long long)start, (unsigned long long)expect_off);
            uint64_t end = start + (uint64_t)m->total_compressed_size;
            if (end > size) BAD("chunk past end");
            rg_comp += m->total_compressed_size;
            rg_unc += m->total_uncompressed_size;
            expect_off = end;
            bool has_enc[10] = {false};
            for (uint32_t k = 0; k < m->nencodings; k++)
                if (m->encodings[k] >= 0 && m->encodings[k] < 10) has_enc[m->encodings[k]] = true;
            int32_t es_dict = 0, es_rledict = 0, es_plain = 0;
            for (uint32_t k = 0; k < m->nencoding_stats; k++) {
                pq_page_encoding_stats *s = &m->encoding_stats[k];
                if (s->page_type == PQ_PAGE_DICTIONARY) es_dict += s->count;
                else if (s->encoding == PQ_ENC_RLE_DICTIONARY) es_rledict += s->count;
                else if (s->encoding == PQ_ENC_PLAIN) es_plain += s->count;
            }

            /* Walk the pages. */
            uint64_t pos = start;
            int64_t rows = 0, nulls = 0, unc = 0;
            uint8_t *dict = NULL; size_t dict_len = 0; uint32_t dict_n = 0;
            const uint8_t **dvals = NULL; size_t *dlens = NULL;
            int32_t n_dict = 0, n_rledict = 0, n_plain = 0;
            uint64_t first_data = 0;
            int page_no = 0;
            uint64_t page_offsets[4096]; int64_t page_first_rows[4096]; int32_t page_sizes[4096];
            int ndata = 0;
            while (pos < end) {
                pq_page_header h;
                size_t consumed = 0;
                if (pq_decode_page_header(&h, b + pos, end - pos, &consumed))
                    BAD("%s: page header at %llu: %s", se->name, (unsigned long long)pos, tn_error_message());
                if (h.compressed_page_size < 0 || pos + consumed + (uint64_t)h.compressed_page_size > end) BAD("page past chunk");
                uint8_t *body = tn_arena_alloc(fc->arena, (size_t)h.uncompressed_page_size + 1);
                if (pq_decompress(m->codec, b + pos + consumed, (size_t)h.compressed_page_size, body,
                                  (size_t)h.uncompressed_page_size))
                    BAD("%s: decompress: %s", se->name, tn_error_message());
                unc += (int64_t)consumed + h.uncompressed_page_size;
                const uint8_t *p = body, *pend = body + h.uncompressed_page_size;
                if (h.type == PQ_PAGE_DICTIONARY) {
                    if (page_no != 0 || !m->has_dictionary_page_offset || pos != start) BAD("dictionary page not first");
                    if (h.dictionary.encoding != PQ_ENC_PLAIN) BAD("dictionary encoding");
                    n_dict++;
                    dict = body; dict_len = (size_t)h.uncompressed_page_size;
                    dict_n = (uint32_t)h.dictionary.num_values;
                    dvals = tn_arena_alloc(fc->arena, (dict_n + 1) * sizeof *dvals);
                    dlens = tn_arena_alloc(fc->arena, (dict_n + 1) * sizeof *dlens);
                    int bitpos = 0;
                    for (uint32_t k = 0; k < dict_n; k++) {
                        const char *err = decode_plain_one(se->type, se->type_length, &p, pend, &bitpos, &dvals[k], &dlens[k]);
                        if (err) return err;
                    }
                    if (p != pend) BAD("dictionary page: trailing bytes");
                    (void)dict; (void)dict_len;
                } else if (h.type == PQ_PAGE_DATA) {
                    if (ndata == 0) first_data = pos;
                    if (ndata < 4096) { page_offsets[ndata] = pos; page_first_rows[ndata] = rows;
                                        page_sizes[ndata] = (int32_t)(consumed + (size_t)h.compressed_page_size); }
                    ndata++;
                    uint32_t nv = (uint32_t)h.data.num_values;
                    if (nv == 0 || nv > page_rows) BAD("%s: page of %u rows (page_rows %u)", se->name, nv, page_rows);
                    uint32_t *defs = tn_arena_alloc(fc->arena, nv * sizeof(uint32_t));
                    if (se->repetition == PQ_OPTIONAL) {
                        if (pend - p < 4) BAD("def levels: short");
                        uint32_t dl = tn_load_u32le(p);
                        p += 4;
                        if ((size_t)(pend - p) < dl) BAD("def levels: length");
                        size_t used = 0;
                        if (pq_rle_decode(p, dl, 1, defs, nv, &used)) BAD("def levels: %s", tn_error_message());
                        p += dl;
                    } else {
                        for (uint32_t k = 0; k < nv; k++) defs[k] = 1;
                    }
                    uint32_t nonnull = 0;
                    for (uint32_t k = 0; k < nv; k++) nonnull += defs[k];
                    uint32_t *idx = NULL;
                    if (h.data.encoding == PQ_ENC_RLE_DICTIONARY) {
                        n_rledict++;
                        if (!dvals) BAD("dictionary-encoded page without dictionary");
                        if (p >= pend) BAD("no bit width");
                        int bw = *p++;
                        idx = tn_arena_alloc(fc->arena, (nonnull + 1) * sizeof(uint32_t));
                        size_t used = 0;
                        if (nonnull && pq_rle_decode(p, (size_t)(pend - p), bw, idx, nonnull, &used))
                            BAD("indices: %s", tn_error_message());
                    } else if (h.data.encoding == PQ_ENC_PLAIN) {
                        n_plain++;
                    } else {
                        BAD("page encoding %d", h.data.encoding);
                    }
                    if (!has_enc[h.data.encoding]) BAD("encoding %d not listed", h.data.encoding);
                    int bitpos = 0;
                    uint32_t vi = 0;
                    for (uint32_t k = 0; k < nv; k++) {
                        int64_t r = row_base + rows + k;
                        tn_value v;
                        bool valid = gen(cols[ci], r, &v);
                        if (!defs[k]) {
                            nulls++;
                            if (valid) BAD("%s row %lld: NULL written for a value", se->name, (long long)r);
                            continue;
                        }
                        if (!valid) BAD("%s row %lld: value written for NULL", se->name, (long long)r);
                        const uint8_t *val; size_t len;
                        if (idx) {
                            if (idx[vi] >= dict_n) BAD("index out of range");
                            val = dvals[idx[vi]]; len = dlens[idx[vi]];
                        } else {
                            const char *err = decode_plain_one(se->type, se->type_length, &p, pend, &bitpos, &val, &len);
                            if (err) return err;
                        }
                        vi++;
                        uint8_t want[64];
                        size_t wl = expect_plain(&v, want);
                        bool is_nan = (v.type.id == TN_TYPE_FLOAT || v.type.id == TN_TYPE_DOUBLE) && isnan(v.u.d);
                        if (is_nan) {
                            if (len != wl) BAD("NaN width");
                            if (wl == 4) { float f; memcpy(&f, val, 4); if (!isnan(f)) BAD("NaN lost"); }
                            else { double d; memcpy(&d, val, 8); if (!isnan(d)) BAD("NaN lost"); }
                        } else if (len != wl || (wl && memcmp(val, want, wl))) {
                            BAD("%s row %lld: value differs (len %zu vs %zu)", se->name, (long long)r, len, wl);
                        }
                    }
                    if (!idx && bitpos) p++;
                    if (!idx && p != pend) BAD("%s: PLAIN page: %td trailing bytes", se->name, pend - p);
                    rows += nv;
                } else {
                    BAD("unexpected page type %d", h.type);
                }
                pos += consumed + (uint64_t)h.compressed_page_size;
                page_no++;
                fc->npages_total++;
            }
            if (pos != end) BAD("pages overrun chunk");
            if (rows != rg->num_rows) BAD("%s: page rows %lld vs %lld", se->name, (long long)rows, (long long)rg->num_rows);
            if (unc != m->total_uncompressed_size) BAD("%s: total_uncompressed_size %lld vs %lld", se->name,
                                                       (long long)m->total_uncompressed_size, (long long)unc);
            if (first_data != (uint64_t)m->data_page_offset) BAD("data_page_offset");
            if (es_dict != n_dict || es_rledict != n_rledict || es_plain != n_plain) BAD("%s: encoding_stats", se->name);
            if (!has_enc[PQ_ENC_PLAIN] || has_enc[PQ_ENC_RLE_DICTIONARY] != (n_rledict > 0)) BAD("encodings list");
            if (n_dict && col_type(cols[ci]).id == TN_TYPE_BOOLEAN) BAD("boolean dictionary");
            fc->ndict_pages += n_dict;
            fc->dict_pages_data += n_rledict;
            fc->plain_pages_data += n_plain;

            /* Statistics against an independent computation. */
            exp_stats e;
            expect_stats(cols[ci], row_base, row_base + rg->num_rows, &e);
            if (!opts || opts->statistics) {
                pq_statistics *st = &m->statistics;
                if (!m->has_statistics || !st->has_null_count || st->null_count != e.nulls || nulls != e.nulls)
                    BAD("%s: null_count", se->name);
                if (st->min_value.present != e.has || st->max_value.present != e.has) BAD("%s: min/max presence", se->name);
                if (e.has) {
                    if (st->min_value.len != e.min_len || memcmp(st->min_value.ptr, e.min, e.min_len))
                        BAD("%s rg %u: min_value differs", se->name, g);
                    if (st->max_value.len != e.max_len || memcmp(st->max_value.ptr, e.max, e.max_len))
                        BAD("%s rg %u: max_value differs", se->name, g);
                    if (!st->has_is_min_exact || !st->is_min_value_exact || !st->has_is_max_exact || !st->is_max_value_exact)
                        BAD("exact flags");
                }
                bool is_float = se->type == PQ_FLOAT || se->type == PQ_DOUBLE;
                if (is_float && (!st->has_nan_count || st->nan_count != e.nans)) BAD("%s: nan_count", se->name);
            }

            /* Page index. */
            if (want_index) {
                if (!cc->has_offset_index) BAD("no offset index");
                pq_offset_index oi;
                if (cc->offset_index_offset < 0 || (uint64_t)cc->offset_index_offset + (uint64_t)cc->offset_index_length > size ||
                    pq_decode_offset_index(&oi, fc->arena, b + cc->offset_index_offset, (size_t)cc->offset_index_length))
                    BAD("offset index: %s", tn_error_message());
                if (oi.npages != (uint32_t)ndata) BAD("offset index: %u pages vs %d", oi.npages, ndata);
                for (uint32_t k = 0; k < oi.npages && k < 4096; k++) {
                    pq_page_location *pl = &oi.pages[k];
                    if ((uint64_t)pl->offset != page_offsets[k] || pl->compressed_page_size != page_sizes[k] ||
                        pl->first_row_index != page_first_rows[k])
                        BAD("%s: offset index page %u", se->name, k);
                    pq_page_header h;
                    size_t consumed;
                    if (pq_decode_page_header(&h, b + pl->offset, size - (size_t)pl->offset, &consumed) || h.type != PQ_PAGE_DATA)
                        BAD("offset index points at no data page");
                }
                fc->oi_count++;
                if (cc->has_column_index) {
                    pq_column_index ci2;
                    if (pq_decode_column_index(&ci2, fc->arena, b + cc->column_index_offset, (size_t)cc->column_index_length))
                        BAD("column index: %s", tn_error_message());
                    if (ci2.npages != oi.npages || !ci2.null_counts) BAD("column index pages");
                    int64_t sum = 0;
                    for (uint32_t k = 0; k < ci2.npages; k++) {
                        sum += ci2.null_counts[k];
                        int64_t r0 = row_base + oi.pages[k].first_row_index;
                        int64_t r1 = row_base + (k + 1 < oi.npages ? oi.pages[k + 1].first_row_index : rg->num_rows);
                        exp_stats pe;
                        expect_stats(cols[ci], r0, r1, &pe);
                        if (ci2.null_counts[k] != pe.nulls) BAD("page null count");
                        if (ci2.null_pages[k] != (pe.nulls == r1 - r0)) BAD("null_pages");
                        if (pe.has && (ci2.min_values[k].len != pe.min_len || memcmp(ci2.min_values[k].ptr, pe.min, pe.min_len) ||
                                       ci2.max_values[k].len != pe.max_len || memcmp(ci2.max_values[k].ptr, pe.max, pe.max_len)))
                            BAD("%s: page %u min/max", se->name, k);
                        if (!pe.has && pe.nans) BAD("column index written for an all-NaN page");
                    }
                    if (sum != e.nulls) BAD("column index null counts");
                    if (ci2.boundary_order < 0 || ci2.boundary_order > 2) BAD("boundary order");
                    /* req = row number: ASCENDING; tstz decreases with the row: DESCENDING;
                     * i32 is random: UNORDERED. */
                    int want_bo = cols[ci] == 16 ? 1 : cols[ci] == 14 ? 2 : cols[ci] == 3 ? 0 : -1;
                    if (want_bo >= 0 && ci2.npages > 2 && ci2.boundary_order != want_bo)
                        BAD("%s: boundary order %d, expected %d", se->name, ci2.boundary_order, want_bo);
                    fc->ci_count++;
                }
            } else if (cc->has_offset_index || cc->has_column_index) {
                BAD("page index written although disabled");
            }
        }
        if (rg->total_byte_size != rg_unc || !rg->has_total_compressed_size || rg->total_compressed_size != rg_comp)
            BAD("rg %u: sizes", g);
        row_base += rg->num_rows;
    }
    if (row_base != nrows) BAD("rows %lld", (long long)row_base);
    return NULL;
}

static void fc_init(file_check *fc) {
    memset(fc, 0, sizeof *fc);
    fc->arena = tn_arena_create(0);
}
static void fc_free(file_check *fc) {
    tn_buf_free(&fc->bytes);
    tn_arena_destroy(fc->arena);
}

static const int ALL[NT] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18};

/* ---------------------------------------------------------------------------------------------
 * Tests.
 */
TEST(every_type_every_codec) {
    static const tn_parquet_codec codecs[] = {TN_CODEC_ZSTD, TN_CODEC_SNAPPY, TN_CODEC_GZIP, TN_CODEC_LZ4_RAW,
                                              TN_CODEC_UNCOMPRESSED};
    for (int k = 0; k < 5; k++) {
        tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
        o.codec = codecs[k];
        o.row_group_rows = 1500;
        o.page_rows = 400;
        const char *path = tmp_path("codec.parquet");
        tn_parquet_write_result res;
        CHECK_OK(write_file(path, ALL, NT, 4000, 1000, &o, &res));
        CHECK_EQ_INT(res.num_rows, 4000);
        file_check fc;
        fc_init(&fc);
        const char *err = check_file(&fc, path, ALL, NT, 4000, &o);
        uint32_t nrg = fc.fm.nrow_groups;
        int dictp = fc.ndict_pages, plainp = fc.plain_pages_data;
        CHECK_EQ_INT(res.file_bytes, fc.bytes.len);
        fc_free(&fc);
        tn_parquet_write_result_free(&res);
        CHECK_MSG(err == NULL, "codec %d: %s", (int)codecs[k], err);
        CHECK_EQ_INT(nrg, 3);
        CHECK(dictp > 0 && plainp > 0);
    }
}

TEST(plain_only_and_single_page) {
    tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
    o.dictionary = false;
    const char *path = tmp_path("plain.parquet");
    CHECK_OK(write_file(path, ALL, NT, 3000, 2048, &o, NULL));
    file_check fc;
    fc_init(&fc);
    const char *err = check_file(&fc, path, ALL, NT, 3000, &o);
    int dictp = fc.ndict_pages, rledict = fc.dict_pages_data;
    uint32_t nrg = fc.fm.nrow_groups;
    fc_free(&fc);
    CHECK_MSG(err == NULL, "%s", err);
    CHECK_EQ_INT(dictp, 0);
    CHECK_EQ_INT(rledict, 0);
    CHECK_EQ_INT(nrg, 1);
}

TEST(dictionary_choice_and_fallback) {
    /* lowcard (5 values) and i64 (100 values) pay; i32 (unique) does not. */
    int cols[3] = {17, 4, 3};
    tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
    o.page_rows = 1000;
    const char *path = tmp_path("dict.parquet");
    CHECK_OK(write_file(path, cols, 3, 5000, 2048, &o, NULL));
    file_check fc;
    fc_init(&fc);
    const char *err = check_file(&fc, path, cols, 3, 5000, &o);
    CHECK_MSG(err == NULL, "%s", err);
    pq_column_meta *lc = &fc.fm.row_groups[0].columns[0].meta, *i64 = &fc.fm.row_groups[0].columns[1].meta,
                   *i32 = &fc.fm.row_groups[0].columns[2].meta;
    CHECK(lc->has_dictionary_page_offset && i64->has_dictionary_page_offset);
    CHECK(!i32->has_dictionary_page_offset);
    fc_free(&fc);

    /* Fallback: a 200-byte dictionary budget is passed during the chunk (values repeat 10 times,
     * so the first pages pay): dictionary pages first, PLAIN after, both listed. */
    int cols2[1] = {18};
    o.dictionary_max_bytes = 200;
    o.page_rows = 100;
    path = tmp_path("fallback.parquet");
    CHECK_OK(write_file(path, cols2, 1, 3000, 2048, &o, NULL));
    fc_init(&fc);
    err = check_file(&fc, path, cols2, 1, 3000, &o);
    CHECK_MSG(err == NULL, "%s", err);
    pq_column_meta *m = &fc.fm.row_groups[0].columns[0].meta;
    CHECK(m->has_dictionary_page_offset);
    CHECK(fc.dict_pages_data >= 1 && fc.plain_pages_data >= 1);
    CHECK_EQ_INT(m->nencodings, 3);
    fc_free(&fc);
}

TEST(write_result_statistics) {
    tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
    o.row_group_rows = 700;
    const char *path = tmp_path("result.parquet");
    tn_parquet_write_result res;
    CHECK_OK(write_file(path, ALL, NT, 2500, 512, &o, &res));
    CHECK_EQ_INT(res.ncolumns, NT);
    for (int c = 0; c < NT; c++) {
        exp_stats e;
        expect_stats(c, 0, 2500, &e);
        tn_parquet_column_result *cr = &res.columns[c];
        CHECK_MSG(cr->null_count == e.nulls, "%s: null_count %lld vs %lld", g_names[c], (long long)cr->null_count,
                  (long long)e.nulls);
        CHECK_MSG(cr->has_min_max == e.has, "%s: has_min_max", g_names[c]);
        if (!e.has) continue;
        uint8_t a[64], bb[64];
        size_t al = expect_plain(&cr->min, a), bl = expect_plain(&cr->max, bb);
        CHECK_MSG(al == e.min_len && memcmp(a, e.min, al) == 0, "%s: result min", g_names[c]);
        CHECK_MSG(bl == e.max_len && memcmp(bb, e.max, bl) == 0, "%s: result max", g_names[c]);
        CHECK(tn_type_equal(cr->min.type, col_type(c)));
    }
    /* -0.0 is the minimum of f32 (its minimum value is -10 though); check signbit rule instead on
     * a column whose extremes are zeros. */
    tn_parquet_write_result_free(&res);
}

TEST(float_zero_and_nan_rules) {
    tn_type t[2] = {tn_type_make(TN_TYPE_DOUBLE), tn_type_make(TN_TYPE_FLOAT)};
    tn_parquet_column_spec specs[2] = {{"d", t[0], true, -1}, {"f", t[1], true, -1}};
    const char *path = tmp_path("zeros.parquet");
    tn_parquet_writer *w;
    CHECK_OK(tn_parquet_writer_open(&w, tn_fs_default(), path, specs, 2, NULL));
    tn_chunk ch;
    CHECK_OK(tn_chunk_init(&ch, 2, t, 16));
    double dv[4] = {0.0, NAN, -0.0, 0.0};
    float fv[4] = {NAN, NAN, NAN, NAN};
    for (int i = 0; i < 4; i++) { ((double *)ch.cols[0].data)[i] = dv[i]; ((float *)ch.cols[1].data)[i] = fv[i]; }
    ch.count = ch.cols[0].count = ch.cols[1].count = 4;
    int rc = tn_parquet_writer_write(w, &ch);
    tn_parquet_write_result res;
    if (rc) tn_parquet_writer_abort(w);
    else rc = tn_parquet_writer_close(w, &res);
    tn_chunk_free(&ch);
    CHECK_OK(rc);
    CHECK(res.columns[0].has_min_max);
    CHECK(res.columns[0].min.u.d == 0 && signbit(res.columns[0].min.u.d));
    CHECK(res.columns[0].max.u.d == 0 && !signbit(res.columns[0].max.u.d));
    CHECK(!res.columns[1].has_min_max);
    tn_parquet_write_result_free(&res);
    file_check fc;
    fc_init(&fc);
    tn_buf_clear(&fc.bytes);
    CHECK_OK(tn_fs_read_all(tn_fs_default(), path, &fc.bytes));
    size_t size = fc.bytes.len;
    uint32_t flen = tn_load_u32le(fc.bytes.data + size - 8);
    CHECK_OK(pq_decode_file_meta(&fc.fm, fc.arena, fc.bytes.data + size - 8 - flen, flen));
    pq_statistics *sd = &fc.fm.row_groups[0].columns[0].meta.statistics, *sf = &fc.fm.row_groups[0].columns[1].meta.statistics;
    double mn, mx;
    CHECK(sd->min_value.present && sd->min_value.len == 8);
    memcpy(&mn, sd->min_value.ptr, 8);
    memcpy(&mx, sd->max_value.ptr, 8);
    CHECK(mn == 0 && signbit(mn) && mx == 0 && !signbit(mx));
    CHECK(sd->has_nan_count && sd->nan_count == 1);
    CHECK(!sf->min_value.present && !sf->max_value.present && sf->nan_count == 4);
    /* the all-NaN page of f has no column index (bounds unknown), d has one */
    CHECK(fc.fm.row_groups[0].columns[0].has_column_index);
    CHECK(!fc.fm.row_groups[0].columns[1].has_column_index);
    CHECK(fc.fm.row_groups[0].columns[1].has_offset_index);
    fc_free(&fc);
}

TEST(row_group_bytes_and_no_index) {
    tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
    o.row_group_bytes = 20000;
    o.page_index = false;
    o.codec = TN_CODEC_SNAPPY;
    const char *path = tmp_path("rgbytes.parquet");
    CHECK_OK(write_file(path, ALL, NT, 6000, 256, &o, NULL));
    file_check fc;
    fc_init(&fc);
    const char *err = check_file(&fc, path, ALL, NT, 6000, &o);
    uint32_t nrg = fc.fm.nrow_groups;
    fc_free(&fc);
    CHECK_MSG(err == NULL, "%s", err);
    CHECK_MSG(nrg >= 3, "%u row groups", nrg);
}

TEST(kv_metadata_and_empty_file) {
    tn_parquet_kv_pair kv[2] = {{"a", "1"}, {"b", NULL}};
    tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
    o.kv = kv;
    o.nkv = 2;
    const char *path = tmp_path("empty.parquet");
    tn_parquet_write_result res;
    CHECK_OK(write_file(path, ALL, NT, 0, 16, &o, &res));
    CHECK_EQ_INT(res.num_rows, 0);
    CHECK(!res.columns[3].has_min_max);
    tn_parquet_write_result_free(&res);
    file_check fc;
    fc_init(&fc);
    const char *err = check_file(&fc, path, ALL, NT, 0, &o);
    CHECK_MSG(err == NULL, "%s", err);
    CHECK_EQ_INT(fc.fm.nrow_groups, 0);
    CHECK_EQ_INT(fc.fm.nkv, 2);
    CHECK_EQ_STR(fc.fm.kv[0].key, "a");
    CHECK_EQ_STR(fc.fm.kv[0].value, "1");
    CHECK(fc.fm.kv[1].value == NULL);
    fc_free(&fc);
}

/* Explicit page ends (tn_parquet_writer_end_page) and reading a row group's prefix
 * (tn_parquet_scan_set_row_limit): only the pages of the prefix are read and decoded. */
TEST(end_page_and_row_limit) {
    const char *path = tmp_path("pages.parquet");
    tn_type t[2] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_VARCHAR)};
    tn_parquet_column_spec specs[2] = {{"i", t[0], false, -1}, {"s", t[1], true, -1}};
    tn_parquet_writer *w = NULL;
    CHECK_OK(tn_parquet_writer_open(&w, tn_fs_default(), path, specs, 2, NULL));
    tn_chunk ch;
    CHECK_OK(tn_chunk_init(&ch, 2, t, 100));
    char buf[32];
    for (int64_t r = 0; r < 1000; r += 100) {
        tn_chunk_reset(&ch);
        for (uint32_t k = 0; k < 100; k++) {
            ((int64_t *)ch.cols[0].data)[k] = r + k;
            snprintf(buf, sizeof buf, "v%lld", (long long)((r + k) * 7919 % 1000));
            CHECK_OK(tn_vector_set_str(&ch.cols[1], k, buf, (uint32_t)strlen(buf)));
        }
        ch.cols[0].count = ch.cols[1].count = ch.count = 100;
        CHECK_OK(tn_parquet_writer_write(w, &ch));
        CHECK_OK(tn_parquet_writer_end_page(w));
        CHECK_OK(tn_parquet_writer_end_page(w));     /* nothing buffered: no empty page */
    }
    CHECK_OK(tn_parquet_writer_close(w, NULL));
    tn_chunk_free(&ch);
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, tn_fs_default(), path, NULL));
    CHECK_EQ_INT(tn_parquet_num_row_groups(f), 1);
    uint64_t full_bytes = 0, full_pages = 0;
    int64_t limits[4] = {-1, 250, 300, 0};
    for (int li = 0; li < 4; li++) {
        uint32_t cols[2] = {0, 1};
        tn_parquet_scan_options so = {cols, 2, NULL, 0, NULL, 0, NULL};
        tn_parquet_scan *s = NULL;
        CHECK_OK(tn_parquet_scan_open(&s, f, &so));
        tn_parquet_scan_set_row_limit(s, limits[li]);
        CHECK_OK(tn_chunk_init(&ch, 2, t, TN_VECTOR_SIZE));
        int64_t got = 0, first = 0;
        for (;;) {
            tn_chunk_reset(&ch);
            CHECK_OK(tn_parquet_scan_next(s, &ch, &first));
            if (ch.count == 0) break;
            for (uint32_t k = 0; k < ch.count; k++) CHECK_EQ_INT(((int64_t *)ch.cols[0].data)[k], got + k);
            got += ch.count;
        }
        const tn_parquet_scan_counters *c = tn_parquet_scan_stats(s);
        int64_t want = limits[li] < 0 ? 1000 : limits[li];
        CHECK_EQ_INT(got, want);
        CHECK_EQ_INT((int64_t)c->rows_scanned, want);
        /* pages of 100 rows: the prefix's pages per column (and each dictionary page) */
        if (li == 0) {
            full_bytes = c->bytes_read;
            full_pages = c->pages_read;
        }
        else if (want > 0) CHECK_MSG(c->bytes_read < full_bytes / 2, "limit %lld read %llu of %llu bytes",
                                     (long long)want, (unsigned long long)c->bytes_read, (unsigned long long)full_bytes);
        if (want > 0) CHECK_EQ_INT((int64_t)c->pages_read, 2 * ((want + 99) / 100) + (int64_t)(full_pages - 20));
        tn_chunk_free(&ch);
        tn_parquet_scan_close(s);
    }
    tn_parquet_close(f);
}

TEST(null_in_required_column) {
    tn_type t[1] = {tn_type_make(TN_TYPE_BIGINT)};
    tn_parquet_column_spec specs[1] = {{"id", t[0], false, -1}};
    const char *path = tmp_path("req.parquet");
    tn_parquet_writer *w;
    CHECK_OK(tn_parquet_writer_open(&w, tn_fs_default(), path, specs, 1, NULL));
    tn_chunk ch;
    CHECK_OK(tn_chunk_init(&ch, 1, t, 8));
    ch.count = ch.cols[0].count = 3;
    CHECK_OK(tn_vector_set_null(&ch.cols[0], 1));
    int rc = tn_parquet_writer_write(w, &ch);
    tn_chunk_free(&ch);
    tn_parquet_writer_abort(w);
    CHECK(rc == TN_ECONSTRAINT);
    CHECK(strstr(tn_error_message(), "'id'") != NULL);
    bool exists = true;
    CHECK_OK(tn_fs_default()->exists(tn_fs_default(), path, &exists));
    CHECK(!exists);
}

TEST(refuses_existing_file_and_bad_options) {
    const char *path = tmp_path("exists.parquet");
    CHECK_OK(tn_fs_write_all(tn_fs_default(), path, "x", 1, false));
    tn_parquet_column_spec specs[1] = {{"a", tn_type_make(TN_TYPE_INTEGER), true, -1}};
    tn_parquet_writer *w = NULL;
    CHECK(tn_parquet_writer_open(&w, tn_fs_default(), path, specs, 1, NULL) != 0);
    CHECK(w == NULL);
    tn_buf b = TN_BUF_INIT;
    CHECK_OK(tn_fs_read_all(tn_fs_default(), path, &b));
    CHECK_EQ_INT(b.len, 1);   /* untouched */
    tn_buf_free(&b);
    tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
    o.codec = TN_CODEC_LZ4;
    path = tmp_path("lz4.parquet");
    CHECK(tn_parquet_writer_open(&w, tn_fs_default(), path, specs, 1, &o) == TN_EUNSUPPORTED);
    tn_parquet_column_spec dup[2] = {{"a", tn_type_make(TN_TYPE_INTEGER), true, -1}, {"a", tn_type_make(TN_TYPE_INTEGER), true, -1}};
    CHECK(tn_parquet_writer_open(&w, tn_fs_default(), path, dup, 2, NULL) == TN_EINVAL);
    tn_parquet_column_spec bad[1] = {{"n", tn_type_make(TN_TYPE_NULL), true, -1}};
    CHECK(tn_parquet_writer_open(&w, tn_fs_default(), path, bad, 1, NULL) == TN_EUNSUPPORTED);
    bool exists = true;
    CHECK_OK(tn_fs_default()->exists(tn_fs_default(), path, &exists));
    CHECK(!exists);
}

TEST(decimal_out_of_range) {
    tn_type t[2] = {tn_type_decimal(9, 2), tn_type_decimal(20, 0)};
    for (int k = 0; k < 2; k++) {
        tn_parquet_column_spec specs[1] = {{"amount", t[k], true, -1}};
        const char *path = tmp_path("decimal.parquet");
        tn_parquet_writer *w;
        CHECK_OK(tn_parquet_writer_open(&w, tn_fs_default(), path, specs, 1, NULL));
        tn_chunk ch;
        CHECK_OK(tn_chunk_init(&ch, 1, &t[k], 4));
        if (k == 0) ((int64_t *)ch.cols[0].data)[1] = 10000000000LL;            /* > INT32 */
        else ((tn_int128 *)ch.cols[0].data)[1] = (tn_int128)1 << 72;             /* > 9 bytes */
        ch.count = ch.cols[0].count = 2;
        int rc = tn_parquet_writer_write(w, &ch);
        tn_chunk_free(&ch);
        tn_parquet_writer_abort(w);
        CHECK_EQ_INT(rc, TN_EINVAL);
        CHECK(strstr(tn_error_message(), "'amount'") != NULL);
    }
}

/* A file system whose writes fail once `budget` bytes have been written. */
static tn_fs g_faulty;
static int64_t g_budget;
static int faulty_write(tn_fs *fs, tn_file *f, const void *buf, size_t n) {
    (void)fs;
    if ((int64_t)n > g_budget) return tn_error_set(TN_EIO, "injected: no space left on device");
    g_budget -= (int64_t)n;
    return tn_fs_default()->write(tn_fs_default(), f, buf, n);
}

TEST(write_failure_removes_file) {
    g_faulty = *tn_fs_default();
    g_faulty.write = faulty_write;
    int budgets[3] = {2, 3000, 60000};
    for (int k = 0; k < 3; k++) {
        g_budget = budgets[k];
        const char *path = tmp_path("faulty.parquet");
        tn_parquet_column_spec specs[2] = {{"a", tn_type_make(TN_TYPE_BIGINT), true, -1},
                                           {"s", tn_type_make(TN_TYPE_VARCHAR), true, -1}};
        tn_type t[2] = {specs[0].type, specs[1].type};
        tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
        o.row_group_rows = 1000;
        o.codec = TN_CODEC_UNCOMPRESSED;
        tn_parquet_writer *w = NULL;
        int rc = tn_parquet_writer_open(&w, &g_faulty, path, specs, 2, &o);
        if (rc == 0) {
            tn_chunk ch;
            CHECK_OK(tn_chunk_init(&ch, 2, t, 1000));
            int cols[2] = {4, 10};
            for (int i = 0; i < 10 && rc == 0; i++) {
                CHECK_OK(fill_chunk(&ch, cols, 2, i * 1000, 1000));
                rc = tn_parquet_writer_write(w, &ch);
            }
            tn_chunk_free(&ch);
            if (rc) tn_parquet_writer_abort(w);
            else rc = tn_parquet_writer_close(w, NULL);
        }
        CHECK_MSG(rc == TN_EIO, "budget %d: rc %d", budgets[k], rc);
        CHECK(strstr(tn_error_message(), "no space") != NULL);
        bool exists = true;
        CHECK_OK(tn_fs_default()->exists(tn_fs_default(), path, &exists));
        CHECK_MSG(!exists, "budget %d: partial file left", budgets[k]);
    }
}

TEST(long_strings_bound_pages) {
    /* 200 strings of 10 KB with page_bytes 32 KB: pages are cut by bytes, not rows. */
    tn_type t[1] = {tn_type_make(TN_TYPE_VARBINARY)};
    tn_parquet_column_spec specs[1] = {{"blob", t[0], false, -1}};
    tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
    o.page_bytes = 32768;
    const char *path = tmp_path("long.parquet");
    tn_parquet_writer *w;
    CHECK_OK(tn_parquet_writer_open(&w, tn_fs_default(), path, specs, 1, &o));
    tn_chunk ch;
    CHECK_OK(tn_chunk_init(&ch, 1, t, 200));
    char *big = malloc(10000);
    for (int i = 0; i < 200; i++) {
        memset(big, 'a' + i % 26, 10000);
        big[0] = (char)i;
        CHECK_OK(tn_vector_set_str(&ch.cols[0], (uint32_t)i, big, 10000));
    }
    free(big);
    ch.count = ch.cols[0].count = 200;
    int rc = tn_parquet_writer_write(w, &ch);
    tn_chunk_free(&ch);
    if (rc) tn_parquet_writer_abort(w);
    else rc = tn_parquet_writer_close(w, NULL);
    CHECK_OK(rc);
    file_check fc;
    fc_init(&fc);
    CHECK_OK(tn_fs_read_all(tn_fs_default(), path, &fc.bytes));
    uint32_t flen = tn_load_u32le(fc.bytes.data + fc.bytes.len - 8);
    CHECK_OK(pq_decode_file_meta(&fc.fm, fc.arena, fc.bytes.data + fc.bytes.len - 8 - flen, flen));
    pq_column_chunk *cc = &fc.fm.row_groups[0].columns[0];
    pq_offset_index oi;
    CHECK_OK(pq_decode_offset_index(&oi, fc.arena, fc.bytes.data + cc->offset_index_offset, (size_t)cc->offset_index_length));
    CHECK_MSG(oi.npages >= 50, "%u pages", oi.npages);
    fc_free(&fc);
}

TEST_MAIN()
