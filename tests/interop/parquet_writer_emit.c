/*
 * tests/interop/parquet_writer_emit.c: helper of parquet_writer_duckdb.sh. `emit DIR` writes a
 * set of Parquet files with tarn's writer (every type, edge values, each codec, dictionary on /
 * off / fallback, many row groups and pages) and, for each file F, the expectations DuckDB must
 * reproduce: F.csv (values as DuckDB's ::VARCHAR spells them, via tn_value_format),
 * F.stats.csv (per row group and column: rows, null count, min, max computed here by brute
 * force) and F.schema.csv (parquet_schema columns). Lists the files in DIR/files.txt.
 */
#include "parquet/parquet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_ID, C_B, C_I8, C_I16, C_I32, C_I64, C_F32, C_F64, C_D9, C_D18, C_D25, C_D38, C_S, C_BIN,
       C_DT, C_TS, C_TSTZ, C_LC, C_NULLS, NC };

static const char *g_names[NC] = {"id", "b", "i8", "i16", "i32", "i64", "f32", "f64", "d9", "d18", "d25",
                                  "d38", "s", "bin", "dt", "ts", "tstz", "lc", "nulls"};
/* parquet_schema() columns: type,type_length,repetition_type,converted_type,scale,precision,field_id,duckdb_type */
static const char *g_schema[NC] = {
    "INT64,,REQUIRED,,,,7,BIGINT",
    "BOOLEAN,,OPTIONAL,,,,,BOOLEAN",
    "INT32,,OPTIONAL,INT_8,,,,TINYINT",
    "INT32,,OPTIONAL,INT_16,,,,SMALLINT",
    "INT32,,OPTIONAL,,,,,INTEGER",
    "INT64,,OPTIONAL,,,,,BIGINT",
    "FLOAT,,OPTIONAL,,,,,FLOAT",
    "DOUBLE,,OPTIONAL,,,,,DOUBLE",
    "INT32,,OPTIONAL,DECIMAL,2,9,,\"DECIMAL(9,2)\"",
    "INT64,,OPTIONAL,DECIMAL,4,18,,\"DECIMAL(18,4)\"",
    "FIXED_LEN_BYTE_ARRAY,11,OPTIONAL,DECIMAL,5,25,,\"DECIMAL(25,5)\"",
    "FIXED_LEN_BYTE_ARRAY,16,OPTIONAL,DECIMAL,10,38,,\"DECIMAL(38,10)\"",
    "BYTE_ARRAY,,OPTIONAL,UTF8,,,,VARCHAR",
    "BYTE_ARRAY,,OPTIONAL,,,,,BLOB",
    "INT32,,OPTIONAL,DATE,,,,DATE",
    "INT64,,OPTIONAL,TIMESTAMP_MICROS,,,,TIMESTAMP",
    "INT64,,OPTIONAL,TIMESTAMP_MICROS,,,,TIMESTAMP WITH TIME ZONE",
    "BYTE_ARRAY,,OPTIONAL,UTF8,,,,VARCHAR",
    "INT32,,OPTIONAL,,,,,INTEGER",
};

static tn_type col_type(int c) {
    switch (c) {
    case C_ID: case C_I64: return tn_type_make(TN_TYPE_BIGINT);
    case C_B: return tn_type_make(TN_TYPE_BOOLEAN);
    case C_I8: return tn_type_make(TN_TYPE_TINYINT);
    case C_I16: return tn_type_make(TN_TYPE_SMALLINT);
    case C_I32: case C_NULLS: return tn_type_make(TN_TYPE_INTEGER);
    case C_F32: return tn_type_make(TN_TYPE_FLOAT);
    case C_F64: return tn_type_make(TN_TYPE_DOUBLE);
    case C_D9: return tn_type_decimal(9, 2);
    case C_D18: return tn_type_decimal(18, 4);
    case C_D25: return tn_type_decimal(25, 5);
    case C_D38: return tn_type_decimal(38, 10);
    case C_S: case C_LC: return tn_type_make(TN_TYPE_VARCHAR);
    case C_BIN: return tn_type_make(TN_TYPE_VARBINARY);
    case C_DT: return tn_type_make(TN_TYPE_DATE);
    case C_TS: return tn_type_make(TN_TYPE_TIMESTAMP);
    default: return tn_type_make(TN_TYPE_TIMESTAMP_TZ);
    }
}

static uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static tn_int128 pow10_128(int n) {
    tn_int128 p = 1;
    for (int i = 0; i < n; i++) p *= 10;
    return p;
}

static const char *g_special_s[] = {"", "a,b", "say \"hi\"", "line\nbreak", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
                                    "\xf0\x9f\x98\x80 emoji", "\xc3\xa9", "back\\slash", " lead", "zzz~"};
#define NSPECIAL_S (sizeof g_special_s / sizeof g_special_s[0])

/* Value of column c at row r (false = NULL). Strings go to sbuf (>= 400 bytes). */
static bool gen(int c, int64_t r, tn_value *v, char *sbuf) {
    memset(v, 0, sizeof *v);
    v->type = col_type(c);
    if (c == C_NULLS) return false;
    if (c != C_ID && (r * 5 + c * 3) % 17 == 0) return false;
    uint64_t u = mix((uint64_t)r * 131 + (uint64_t)c);
    int64_t sp = r % 1000;
    switch (c) {
    case C_ID: v->u.i = r; break;
    case C_B: v->u.b = u & 1; break;
    case C_I8: v->u.i = sp == 1 ? -128 : sp == 2 ? 127 : (int8_t)u; break;
    case C_I16: v->u.i = sp == 1 ? -32768 : sp == 2 ? 32767 : (int16_t)u; break;
    case C_I32: v->u.i = sp == 1 ? INT32_MIN : sp == 2 ? INT32_MAX : (int32_t)u; break;
    case C_I64: v->u.i = sp == 1 ? INT64_MIN : sp == 2 ? INT64_MAX : (int64_t)u >> (u % 50); break;
    case C_F32: {
        static const float sf[] = {-0.0f, 0.0f, 1.5e-7f, 3.4028235e38f, -3.4028235e38f, 0.1f, 1e-45f};
        float f;
        if (r % 97 == 3) f = NAN;
        else if (r == 777) f = INFINITY;
        else if (r == 1234) f = -INFINITY;
        else if (r % 89 == 4) f = sf[(r / 89) % 7];
        else f = (float)((double)(int64_t)(u % 2000001 - 1000000) / 1024.0);
        v->u.d = f;
        break;
    }
    case C_F64: {
        static const double sd[] = {-0.0, 0.0, 0.1, 1e20, 5e-324, 1.7976931348623157e308, -2.5e-300, 1.0 / 3};
        double d;
        if (r % 101 == 7) d = NAN;
        else if (r == 778) d = INFINITY;
        else if (r % 83 == 5) d = sd[(r / 83) % 8];
        else d = (double)(int64_t)(u % 2000000001 - 1000000000) / 4096.0;
        v->u.d = d;
        break;
    }
    case C_D9: v->u.i = sp == 1 ? -999999999 : sp == 2 ? 999999999 : (int64_t)(u % 1999999999) - 999999999; break;
    case C_D18: {
        int64_t m = 999999999999999999LL;
        v->u.i = sp == 1 ? -m : sp == 2 ? m : (int64_t)(u % (uint64_t)m) * ((u >> 63) ? -1 : 1);
        break;
    }
    case C_D25: case C_D38: {
        tn_int128 m = pow10_128(c == C_D25 ? 25 : 38) - 1;
        if (sp == 1) v->u.i128 = -m;
        else if (sp == 2) v->u.i128 = m;
        else if (c == C_D25) {
            v->u.i128 = (tn_int128)(u % 50) * (m / 49) * ((u >> 63) ? -1 : 1);   /* dictionary */
        } else {
            unsigned __int128 x = ((unsigned __int128)mix(u) << 64) | u;
            tn_int128 val = (tn_int128)(x % (unsigned __int128)m);
            if (u % 3 == 0) val /= (tn_int128)(u % 1000000007 + 1);   /* varied magnitudes */
            v->u.i128 = (u >> 62) & 1 ? -val : val;
        }
        break;
    }
    case C_S: {
        int len;
        if (r % 13 == 1) len = snprintf(sbuf, 400, "%s", g_special_s[(r / 13) % NSPECIAL_S]);
        else if (r % 211 == 9) { len = 300; memset(sbuf, 'x', 300); sbuf[299] = (char)('a' + r % 26); sbuf[300] = 0; }
        else len = snprintf(sbuf, 400, "v%04x", (unsigned)(u % 5000));
        v->u.s.ptr = sbuf;
        v->u.s.len = (uint32_t)len;
        break;
    }
    case C_BIN: {
        static const uint8_t alphabet[] = {0x00, 0xff, '\\', ',', '"', 'A', 0x7f, 0x80, '\n', ' '};
        int len = (int)(u % 6);
        for (int i = 0; i < len; i++) sbuf[i] = (char)alphabet[(u >> (8 + 4 * i)) % sizeof alphabet];
        v->u.s.ptr = sbuf;
        v->u.s.len = (uint32_t)len;
        break;
    }
    case C_DT: {
        static const int32_t sdt[] = {-719162, 2932896, -1, 0, -25567, 11016};
        v->u.i = sp < 6 ? sdt[sp] : (int64_t)(u % 100000) - 50000;
        break;
    }
    case C_TS: case C_TSTZ: {
        static const int64_t sts[] = {-62135596800000000LL, 253402300799999999LL, -1, 0, 1, 951782400123456LL};
        v->u.i = sp < 6 ? sts[(sp + (c == C_TSTZ)) % 6]
                        : (int64_t)(u % 300000000000000000ULL) - 60000000000000000LL;
        break;
    }
    case C_LC: {
        int len = snprintf(sbuf, 400, "cat_%d", (int)(u % 7));
        v->u.s.ptr = sbuf;
        v->u.s.len = (uint32_t)len;
        break;
    }
    default: return false;
    }
    return true;
}

/* Ordering for expected statistics (NaN excluded by the caller). */
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

/* CSV field as the oracle prints it: "" for the empty string, quotes when , " CR LF occur. */
static void csv_field(FILE *f, const char *s, size_t n, bool is_null) {
    if (is_null) return;
    bool quote = n == 0;
    for (size_t i = 0; i < n && !quote; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n') quote = true;
    if (!quote) { fwrite(s, 1, n, f); return; }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

static void value_field(FILE *f, const tn_value *v, bool present) {
    if (!present) return;
    tn_buf b = TN_BUF_INIT;
    tn_value_to_text(&b, v);
    csv_field(f, b.len ? (const char *)b.data : "", b.len, false);
    tn_buf_free(&b);
}

typedef struct stat_acc {
    bool has; int64_t nulls;
    tn_value min, max;
    char smin[400], smax[400];
} stat_acc;

static void acc_add(stat_acc *a, const tn_value *v, bool valid) {
    if (!valid) { a->nulls++; return; }
    if ((v->type.id == TN_TYPE_FLOAT || v->type.id == TN_TYPE_DOUBLE) && isnan(v->u.d)) return;
    bool str = v->type.id == TN_TYPE_VARCHAR || v->type.id == TN_TYPE_VARBINARY;
    if (!a->has || cmp_val(v, &a->min) < 0) {
        a->min = *v;
        if (str) { memcpy(a->smin, v->u.s.ptr, v->u.s.len); a->min.u.s.ptr = a->smin; }
    }
    if (!a->has || cmp_val(v, &a->max) > 0) {
        a->max = *v;
        if (str) { memcpy(a->smax, v->u.s.ptr, v->u.s.len); a->max.u.s.ptr = a->smax; }
    }
    a->has = true;
}

static void acc_finish(stat_acc *a) {
    if (a->has && (a->min.type.id == TN_TYPE_FLOAT || a->min.type.id == TN_TYPE_DOUBLE)) {
        if (a->min.u.d == 0) a->min.u.d = -0.0;
        if (a->max.u.d == 0) a->max.u.d = 0.0;
    }
}

/* Deprecated min/max are written for signed-order physical types only. */
static bool has_deprecated(int c) {
    tn_type t = col_type(c);
    if (t.id == TN_TYPE_VARCHAR || t.id == TN_TYPE_VARBINARY) return false;
    if (t.id == TN_TYPE_DECIMAL && t.precision > 18) return false;
    return true;
}

typedef struct config {
    const char *name;
    tn_parquet_codec codec;
    bool dictionary;
    uint64_t row_group_rows;
    uint32_t page_rows;
    uint32_t dict_max;
    int64_t nrows;
    uint32_t chunk_rows;
} config;

static const config g_configs[] = {
    {"zstd_dict", TN_CODEC_ZSTD, true, 1000, 100, 0, 5000, 2048},
    {"snappy_plain", TN_CODEC_SNAPPY, false, 2000, 300, 0, 5000, 1000},
    {"gzip_dict", TN_CODEC_GZIP, true, 0, 50, 0, 3000, 777},
    {"lz4raw_dict", TN_CODEC_LZ4_RAW, true, 700, 0, 0, 4000, 2048},
    {"brotli_dict", TN_CODEC_BROTLI, true, 900, 150, 0, 4000, 2048},
    {"brotli_plain", TN_CODEC_BROTLI, false, 0, 0, 0, 3000, 1000},
    {"uncompressed_fallback", TN_CODEC_UNCOMPRESSED, true, 2500, 200, 300, 5000, 2048},
    {"zstd_defaults", TN_CODEC_ZSTD, true, 0, 0, 0, 6000, 2048},
    {"one_row", TN_CODEC_SNAPPY, true, 0, 0, 0, 1, 1},
    {"empty", TN_CODEC_ZSTD, true, 0, 0, 0, 0, 16},
};

static int emit(const char *dir, const config *cf, FILE *list) {
    char path[1024], sbuf[400];
    tn_parquet_column_spec specs[NC];
    tn_type types[NC];
    for (int c = 0; c < NC; c++) {
        specs[c].name = g_names[c];
        specs[c].type = types[c] = col_type(c);
        specs[c].nullable = c != C_ID;
        specs[c].field_id = c == C_ID ? 7 : -1;
    }
    tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
    o.codec = cf->codec;
    o.dictionary = cf->dictionary;
    if (cf->row_group_rows) o.row_group_rows = cf->row_group_rows;
    if (cf->page_rows) o.page_rows = cf->page_rows;
    if (cf->dict_max) o.dictionary_max_bytes = cf->dict_max;
    snprintf(path, sizeof path, "%s/%s.parquet", dir, cf->name);
    remove(path);
    tn_parquet_writer *w = NULL;
    tn_chunk ch;
    if (tn_chunk_init(&ch, NC, types, cf->chunk_rows)) return 1;
    int rc = tn_parquet_writer_open(&w, tn_fs_default(), path, specs, NC, &o);
    for (int64_t r0 = 0; !rc && r0 < cf->nrows; r0 += cf->chunk_rows) {
        uint32_t n = (uint32_t)(cf->nrows - r0 < cf->chunk_rows ? cf->nrows - r0 : cf->chunk_rows);
        tn_chunk_reset(&ch);
        for (int c = 0; c < NC && !rc; c++) {
            for (uint32_t k = 0; k < n && !rc; k++) {
                tn_value v;
                if (gen(c, r0 + k, &v, sbuf)) {
                    rc = tn_vector_set_value(&ch.cols[c], k, &v);
                } else {
                    rc = tn_vector_set_null(&ch.cols[c], k);
                }
            }
            ch.cols[c].count = n;
        }
        ch.count = n;
        if (!rc) rc = tn_parquet_writer_write(w, &ch);
    }
    tn_parquet_write_result res;
    memset(&res, 0, sizeof res);
    if (w) {
        if (rc) tn_parquet_writer_abort(w);
        else rc = tn_parquet_writer_close(w, &res);
    }
    tn_chunk_free(&ch);
    if (rc) { fprintf(stderr, "%s: %s\n", cf->name, tn_error_message()); return 1; }

    /* Expected values. */
    snprintf(path, sizeof path, "%s/%s.csv", dir, cf->name);
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    for (int c = 0; c < NC; c++) fprintf(f, "%s%s", c ? "," : "", g_names[c]);
    fputc('\n', f);
    for (int64_t r = 0; r < cf->nrows; r++) {
        for (int c = 0; c < NC; c++) {
            tn_value v;
            bool ok = gen(c, r, &v, sbuf);
            if (c) fputc(',', f);
            value_field(f, &v, ok);
        }
        fputc('\n', f);
    }
    fclose(f);

    /* Expected statistics per row group (row groups are cut by rows here) and file-wide, the
     * latter checked against the write result. */
    int64_t rg_rows = cf->row_group_rows ? (int64_t)cf->row_group_rows : 1048576;
    snprintf(path, sizeof path, "%s/%s.stats.csv", dir, cf->name);
    f = fopen(path, "w");
    if (!f) return 1;
    fprintf(f, "row_group_id,column_id,row_group_num_rows,stats_null_count,stats_min,stats_max,stats_min_value,stats_max_value\n");
    int bad = 0;
    stat_acc *fileacc = calloc(NC, sizeof *fileacc);
    stat_acc *acc = calloc(1, sizeof *acc);
    for (int64_t g0 = 0, g = 0; g0 < cf->nrows; g0 += rg_rows, g++) {
        int64_t g1 = g0 + rg_rows < cf->nrows ? g0 + rg_rows : cf->nrows;
        for (int c = 0; c < NC; c++) {
            memset(acc, 0, sizeof *acc);
            for (int64_t r = g0; r < g1; r++) {
                tn_value v;
                bool ok = gen(c, r, &v, sbuf);
                acc_add(acc, &v, ok);
                acc_add(&fileacc[c], &v, ok);
            }
            acc_finish(acc);
            bool dep = acc->has && has_deprecated(c);
            /* DuckDB's parquet_metadata() shows an infinite float statistic as empty (the
             * bytes are written; DuckDB does not display non-finite bounds). */
            bool is_f = acc->has && (acc->min.type.id == TN_TYPE_FLOAT || acc->min.type.id == TN_TYPE_DOUBLE);
            bool min_ok = acc->has && !(is_f && isinf(acc->min.u.d));
            bool max_ok = acc->has && !(is_f && isinf(acc->max.u.d));
            fprintf(f, "%lld,%d,%lld,%lld,", (long long)g, c, (long long)(g1 - g0), (long long)acc->nulls);
            value_field(f, &acc->min, dep && min_ok);
            fputc(',', f);
            value_field(f, &acc->max, dep && max_ok);
            fputc(',', f);
            value_field(f, &acc->min, min_ok);
            fputc(',', f);
            value_field(f, &acc->max, max_ok);
            fputc('\n', f);
        }
    }
    fclose(f);
    for (int c = 0; c < NC; c++) {
        stat_acc *a = &fileacc[c];
        acc_finish(a);
        tn_parquet_column_result *cr = &res.columns[c];
        if (cr->null_count != a->nulls || cr->has_min_max != a->has ||
            (a->has && (cmp_val(&cr->min, &a->min) != 0 || cmp_val(&cr->max, &a->max) != 0 ||
                        ((a->min.type.id == TN_TYPE_FLOAT || a->min.type.id == TN_TYPE_DOUBLE) &&
                         (signbit(cr->min.u.d) != signbit(a->min.u.d) || signbit(cr->max.u.d) != signbit(a->max.u.d)))))) {
            fprintf(stderr, "%s: column %s: write result statistics differ\n", cf->name, g_names[c]);
            bad = 1;
        }
    }
    if (res.num_rows != cf->nrows) { fprintf(stderr, "%s: write result num_rows\n", cf->name); bad = 1; }
    free(acc);
    free(fileacc);
    tn_parquet_write_result_free(&res);

    /* Expected parquet_schema(). */
    snprintf(path, sizeof path, "%s/%s.schema.csv", dir, cf->name);
    f = fopen(path, "w");
    if (!f) return 1;
    fprintf(f, "name,type,type_length,repetition_type,converted_type,scale,precision,field_id,duckdb_type\n");
    fprintf(f, "schema,,,,,,,,\n");
    for (int c = 0; c < NC; c++) fprintf(f, "%s,%s\n", g_names[c], g_schema[c]);
    fclose(f);
    fprintf(list, "%s\n", cf->name);
    return bad;
}

int main(int argc, char **argv) {
    if (argc != 3 || strcmp(argv[1], "emit") != 0) {
        fprintf(stderr, "usage: %s emit DIR\n", argv[0]);
        return 2;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/files.txt", argv[2]);
    FILE *list = fopen(path, "w");
    if (!list) return 1;
    int bad = 0;
    for (size_t i = 0; i < sizeof g_configs / sizeof g_configs[0]; i++) bad |= emit(argv[2], &g_configs[i], list);
    fclose(list);
    return bad;
}
