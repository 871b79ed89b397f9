/*
 * parquet/metadata.c: Parquet's Thrift structures (parquet.thrift) <-> the pq_* structs of
 * parquetInt.h: FileMetaData (schema, row groups, column chunks, statistics, ...), PageHeader,
 * ColumnIndex, OffsetIndex, BloomFilterHeader. Decoding validates what a reader relies on:
 * required fields present, enums in range, sizes and counts not negative. The wire format
 * itself is thrift.c's business.
 *
 * Lifetimes: decode_file_meta / column_index / offset_index copy every string and byte field
 * into the arena (the input buffer may be freed afterwards); decode_page_header has no arena,
 * so its statistics' pq_bytes point into the input buffer.
 */
#include "parquet/parquetInt.h"

#include <string.h>

#define CK(x) do { rc = (x); if (rc) goto cleanup; } while (0)

typedef struct dec {
    pq_thrift_reader r;
    tn_arena *arena;                /* NULL: bytes point into the input buffer */
} dec;

/* A struct's name and field names (index = field id), for messages. */
typedef struct sdesc { const char *name; const char *const *fields; int nfields; } sdesc;
#define SDESC(var, sname, ...) \
    static const char *const var##_f[] = {__VA_ARGS__}; \
    static const sdesc var = {sname, var##_f, (int)(sizeof var##_f / sizeof var##_f[0])}

SDESC(D_FMD, "FileMetaData", NULL, "version", "schema", "num_rows", "row_groups",
      "key_value_metadata", "created_by", "column_orders", "encryption_algorithm",
      "footer_signing_key_metadata");
SDESC(D_SE, "SchemaElement", NULL, "type", "type_length", "repetition_type", "name",
      "num_children", "converted_type", "scale", "precision", "field_id", "logicalType");
SDESC(D_LT, "LogicalType", NULL);
SDESC(D_DEC, "DecimalType", NULL, "scale", "precision");
SDESC(D_TS, "TimestampType", NULL, "isAdjustedToUTC", "unit");
SDESC(D_INT, "IntType", NULL, "bitWidth", "isSigned");
SDESC(D_RG, "RowGroup", NULL, "columns", "total_byte_size", "num_rows", "sorting_columns",
      "file_offset", "total_compressed_size", "ordinal");
SDESC(D_CC, "ColumnChunk", NULL, "file_path", "file_offset", "meta_data", "offset_index_offset",
      "offset_index_length", "column_index_offset", "column_index_length", "crypto_metadata",
      "encrypted_column_metadata");
SDESC(D_CMD, "ColumnMetaData", NULL, "type", "encodings", "path_in_schema", "codec", "num_values",
      "total_uncompressed_size", "total_compressed_size", "key_value_metadata",
      "data_page_offset", "index_page_offset", "dictionary_page_offset", "statistics",
      "encoding_stats", "bloom_filter_offset", "bloom_filter_length");
SDESC(D_ST, "Statistics", NULL, "max", "min", "null_count", "distinct_count", "max_value",
      "min_value", "is_max_value_exact", "is_min_value_exact", "nan_count");
SDESC(D_KV, "KeyValue", NULL, "key", "value");
SDESC(D_SC, "SortingColumn", NULL, "column_idx", "descending", "nulls_first");
SDESC(D_PES, "PageEncodingStats", NULL, "page_type", "encoding", "count");
SDESC(D_PH, "PageHeader", NULL, "type", "uncompressed_page_size", "compressed_page_size", "crc",
      "data_page_header", "index_page_header", "dictionary_page_header", "data_page_header_v2");
SDESC(D_DPH, "DataPageHeader", NULL, "num_values", "encoding", "definition_level_encoding",
      "repetition_level_encoding", "statistics");
SDESC(D_DICT, "DictionaryPageHeader", NULL, "num_values", "encoding", "is_sorted");
SDESC(D_DPH2, "DataPageHeaderV2", NULL, "num_values", "num_nulls", "num_rows", "encoding",
      "definition_levels_byte_length", "repetition_levels_byte_length", "is_compressed",
      "statistics");
SDESC(D_CI, "ColumnIndex", NULL, "null_pages", "min_values", "max_values", "boundary_order",
      "null_counts");
SDESC(D_OI, "OffsetIndex", NULL, "page_locations");
SDESC(D_PL, "PageLocation", NULL, "offset", "compressed_page_size", "first_row_index");
SDESC(D_BF, "BloomFilterHeader", NULL, "numBytes", "algorithm", "hash", "compression");

static const char *fname(const sdesc *s, int id) {
    return id > 0 && id < s->nfields && s->fields[id] ? s->fields[id] : "?";
}

/* Adds "Struct: field N (name): " to an error raised while reading field id. */
static int field_ctx(int rc, const sdesc *s, int id) {
    if (id < 0) return tn_error_prefix(rc, "%s", s->name);
    return tn_error_prefix(rc, "%s: field %d (%s)", s->name, id, fname(s, id));
}

static int check_required(const sdesc *s, uint64_t seen, uint64_t required) {
    uint64_t missing = required & ~seen;
    if (!missing) return 0;
    int id = __builtin_ctzll(missing);
    return tn_error_set(TN_ECORRUPT, "%s: required field %d (%s) is missing", s->name, id,
                        fname(s, id));
}

static bool wire_ok(int got, int expected) {
    return got == expected || (expected == PQ_TT_BOOL_TRUE && got == PQ_TT_BOOL_FALSE);
}

static int want(const dec *d, int got, int expected) {
    bool ok = got == expected ||
              (expected == PQ_TT_BOOL_TRUE && got == PQ_TT_BOOL_FALSE);
    if (ok) return 0;
    return tn_error_set(TN_ECORRUPT, "wrong wire type %d (expected %d) at byte %zu", got,
                        expected, d->r.pos);
}

static int rd_i32(dec *d, int32_t *out) { return pq_thrift_read_i32(&d->r, out); }
static int rd_i64(dec *d, int64_t *out) { return pq_thrift_read_i64(&d->r, out); }

static int rd_enum(dec *d, int *out, int lo, int hi) {
    int32_t v;
    int rc = pq_thrift_read_i32(&d->r, &v);
    if (rc) return rc;
    if (v < lo || v > hi) {
        if (hi == INT32_MAX) return tn_error_set(TN_ECORRUPT, "enum value %d is negative", v);
        return tn_error_set(TN_ECORRUPT, "enum value %d out of range (%d..%d)", v, lo, hi);
    }
    *out = v;
    return 0;
}

static int rd_nonneg32(dec *d, int32_t *out) {
    int rc = pq_thrift_read_i32(&d->r, out);
    if (rc == 0 && *out < 0) rc = tn_error_set(TN_ECORRUPT, "negative value %d", *out);
    return rc;
}

static int rd_nonneg64(dec *d, int64_t *out) {
    int rc = pq_thrift_read_i64(&d->r, out);
    if (rc == 0 && *out < 0) rc = tn_error_set(TN_ECORRUPT, "negative value %lld", (long long)*out);
    return rc;
}

static int rd_string(dec *d, char **out) {
    const uint8_t *p;
    uint32_t n;
    int rc = pq_thrift_read_binary(&d->r, &p, &n);
    if (rc) return rc;
    *out = tn_arena_strndup(d->arena, (const char *)p, n);
    return *out ? 0 : TN_ENOMEM;
}

static int rd_bytes(dec *d, pq_bytes *out) {
    const uint8_t *p;
    uint32_t n;
    int rc = pq_thrift_read_binary(&d->r, &p, &n);
    if (rc) return rc;
    if (d->arena && n) {
        uint8_t *copy = tn_arena_alloc(d->arena, n);
        if (!copy) return TN_ENOMEM;
        memcpy(copy, p, n);
        p = copy;
    }
    out->ptr = p;
    out->len = n;
    out->present = true;
    return 0;
}

/* List header with element type check; *arr = arena array of size * elem_size (NULL if 0). */
static int rd_list(dec *d, int elem_type, uint32_t *size, void **arr, size_t elem_size) {
    int et;
    int rc = pq_thrift_list_begin(&d->r, &et, size);
    if (rc) return rc;
    if (*size && !(et == elem_type ||
                   (elem_type == PQ_TT_BOOL_TRUE && et == PQ_TT_BOOL_FALSE)))
        return tn_error_set(TN_ECORRUPT, "list of wire type %d, expected %d", et, elem_type);
    if (!arr) return 0;
    *arr = NULL;
    if (*size) {
        if (!d->arena) return tn_error_set(TN_EINTERNAL, "thrift: list without an arena");
        *arr = tn_arena_calloc(d->arena, (size_t)*size * elem_size);
        if (!*arr) return TN_ENOMEM;
    }
    return 0;
}

/* Iterates the fields of a struct: `id` is -1 outside a field. */
#define STRUCT_BEGIN(sd)                                          \
    const sdesc *sd_ = &(sd);                                      \
    int t = 0, id = -1, rc = 0;                                    \
    int16_t id16;                                                  \
    uint64_t seen = 0;                                             \
    uint32_t nfields = 0;                                          \
    CK(pq_thrift_struct_begin(&d->r));                             \
    for (;;) {                                                     \
        id = -1;                                                   \
        CK(pq_thrift_field(&d->r, &t, &id16));                     \
        if (t == PQ_TT_STOP) break;                                \
        id = id16;                                                 \
        nfields++;                                                 \
        if (id > 0 && id < 64) seen |= (uint64_t)1 << id;          \
        switch (id) {
#define STRUCT_END(required)                                       \
        default: CK(pq_thrift_skip_field(&d->r, t)); break;        \
        }                                                          \
    }                                                              \
    id = -1;                                                       \
    (void)nfields;                                                 \
    pq_thrift_struct_end(&d->r);                                   \
    CK(check_required(sd_, seen, (required)));
#define REQ(...) req_mask((const int[]){__VA_ARGS__, 0})
/* A known field with another wire type is skipped, as Thrift's generated code does (old
 * parquet-mr wrote a list as ColumnMetaData field 15: dict-page-offset-zero.parquet); if the
 * field is required, the struct then fails as "missing". */
#define FIELD(n, tt) case n: if (!wire_ok(t, tt)) {                \
        seen &= ~((uint64_t)1 << (n));                             \
        CK(pq_thrift_skip_field(&d->r, t));                        \
        break;                                                     \
    }
#define BOOLV (t == PQ_TT_BOOL_TRUE)
#define CLEANUP_CTX  cleanup: if (rc) { if (id >= 0) field_ctx(rc, sd_, id); } return rc

static uint64_t req_mask(const int *ids) {
    uint64_t m = 0;
    for (; *ids; ids++) m |= (uint64_t)1 << *ids;
    return m;
}

/* ---------------------------------------------------------------------------------------------
 * Decoding.
 */
static int dec_empty_struct_member(dec *d, int *member) {
    /* a union: the id of the (first) member present; its contents are skipped */
    int t = 0, rc = 0;
    int16_t id16;
    *member = 0;
    CK(pq_thrift_struct_begin(&d->r));
    for (;;) {
        CK(pq_thrift_field(&d->r, &t, &id16));
        if (t == PQ_TT_STOP) break;
        if (*member == 0) *member = id16 > 0 ? id16 : PQ_LT_UNKNOWN_MEMBER;
        CK(pq_thrift_skip_field(&d->r, t));
    }
    pq_thrift_struct_end(&d->r);
cleanup:
    return rc;
}

static int dec_decimal(dec *d, pq_logical_type *lt) {
    STRUCT_BEGIN(D_DEC)
    FIELD(1, PQ_TT_I32) CK(rd_i32(d, &lt->scale)); break;
    FIELD(2, PQ_TT_I32) CK(rd_i32(d, &lt->precision)); break;
    STRUCT_END(REQ(1, 2))
    CLEANUP_CTX;
}

static int dec_time(dec *d, pq_logical_type *lt) {
    STRUCT_BEGIN(D_TS)
    FIELD(1, PQ_TT_BOOL_TRUE) lt->adjusted_to_utc = BOOLV; break;
    FIELD(2, PQ_TT_STRUCT) {
        int unit;
        CK(dec_empty_struct_member(d, &unit));
        lt->unit = unit >= PQ_UNIT_MILLIS && unit <= PQ_UNIT_NANOS ? unit : 0;
        break;
    }
    STRUCT_END(REQ(1, 2))
    CLEANUP_CTX;
}

static int dec_int_type(dec *d, pq_logical_type *lt) {
    STRUCT_BEGIN(D_INT)
    FIELD(1, PQ_TT_I8) { int8_t bw; CK(pq_thrift_read_i8(&d->r, &bw)); lt->bit_width = bw; break; }
    FIELD(2, PQ_TT_BOOL_TRUE) lt->is_signed = BOOLV; break;
    STRUCT_END(REQ(1, 2))
    CLEANUP_CTX;
}

/* LogicalType union: an unknown member is PQ_LT_UNKNOWN_MEMBER, never an error. */
static int dec_logical(dec *d, pq_logical_type *lt) {
    memset(lt, 0, sizeof *lt);
    STRUCT_BEGIN(D_LT)
    case PQ_LT_DECIMAL: if (t != PQ_TT_STRUCT) goto unknown;
        lt->kind = PQ_LT_DECIMAL; CK(dec_decimal(d, lt)); break;
    case PQ_LT_TIME: case PQ_LT_TIMESTAMP: if (t != PQ_TT_STRUCT) goto unknown;
        lt->kind = id; CK(dec_time(d, lt));
        if (lt->unit == 0) lt->kind = PQ_LT_UNKNOWN_MEMBER;   /* unknown TimeUnit */
        break;
    case PQ_LT_INTEGER: if (t != PQ_TT_STRUCT) goto unknown;
        lt->kind = PQ_LT_INTEGER; CK(dec_int_type(d, lt)); break;
    case PQ_LT_STRING: case PQ_LT_MAP: case PQ_LT_LIST: case PQ_LT_ENUM: case PQ_LT_DATE:
    case PQ_LT_UNKNOWN: case PQ_LT_JSON: case PQ_LT_BSON: case PQ_LT_UUID: case PQ_LT_FLOAT16:
        if (t != PQ_TT_STRUCT) goto unknown;
        lt->kind = id; CK(pq_thrift_skip(&d->r, t)); break;
    case 0: unknown:   /* id 0 never names a member; reached by goto for a bad wire type */
        lt->kind = PQ_LT_UNKNOWN_MEMBER;
        CK(pq_thrift_skip_field(&d->r, t));
        break;
    STRUCT_END(0)
    if (lt->kind == PQ_LT_NONE && nfields) lt->kind = PQ_LT_UNKNOWN_MEMBER;
    CLEANUP_CTX;
}

static int dec_schema_element(dec *d, pq_schema_element *se) {
    memset(se, 0, sizeof *se);
    se->type = -1; se->type_length = -1; se->repetition = -1;
    se->converted_type = PQ_CT_NONE; se->scale = -1; se->precision = -1; se->field_id = -1;
    STRUCT_BEGIN(D_SE)
    FIELD(1, PQ_TT_I32) CK(rd_enum(d, &se->type, PQ_BOOLEAN, PQ_FIXED_LEN_BYTE_ARRAY)); break;
    FIELD(2, PQ_TT_I32) CK(rd_nonneg32(d, &se->type_length)); break;
    FIELD(3, PQ_TT_I32) CK(rd_enum(d, &se->repetition, PQ_REQUIRED, PQ_REPEATED)); break;
    FIELD(4, PQ_TT_BINARY) CK(rd_string(d, &se->name)); break;
    FIELD(5, PQ_TT_I32) CK(rd_nonneg32(d, &se->num_children)); break;
    FIELD(6, PQ_TT_I32) CK(rd_enum(d, &se->converted_type, PQ_CT_UTF8, PQ_CT_INTERVAL)); break;
    FIELD(7, PQ_TT_I32) CK(rd_i32(d, &se->scale)); break;
    FIELD(8, PQ_TT_I32) CK(rd_i32(d, &se->precision)); break;
    FIELD(9, PQ_TT_I32) CK(rd_i32(d, &se->field_id)); break;
    FIELD(10, PQ_TT_STRUCT) CK(dec_logical(d, &se->logical)); break;
    STRUCT_END(REQ(4))
    CLEANUP_CTX;
}

static int dec_statistics(dec *d, pq_statistics *st) {
    memset(st, 0, sizeof *st);
    STRUCT_BEGIN(D_ST)
    FIELD(1, PQ_TT_BINARY) CK(rd_bytes(d, &st->max)); break;
    FIELD(2, PQ_TT_BINARY) CK(rd_bytes(d, &st->min)); break;
    /* negative counts (some writers put -1 for "unknown") are treated as absent */
    FIELD(3, PQ_TT_I64) CK(rd_i64(d, &st->null_count)); st->has_null_count = st->null_count >= 0; break;
    FIELD(4, PQ_TT_I64) CK(rd_i64(d, &st->distinct_count)); st->has_distinct_count = st->distinct_count >= 0; break;
    FIELD(5, PQ_TT_BINARY) CK(rd_bytes(d, &st->max_value)); break;
    FIELD(6, PQ_TT_BINARY) CK(rd_bytes(d, &st->min_value)); break;
    FIELD(7, PQ_TT_BOOL_TRUE) st->has_is_max_exact = true; st->is_max_value_exact = BOOLV; break;
    FIELD(8, PQ_TT_BOOL_TRUE) st->has_is_min_exact = true; st->is_min_value_exact = BOOLV; break;
    FIELD(9, PQ_TT_I64) CK(rd_i64(d, &st->nan_count)); st->has_nan_count = st->nan_count >= 0; break;
    STRUCT_END(0)
    CLEANUP_CTX;
}

static int dec_kv(dec *d, pq_kv *kv) {
    memset(kv, 0, sizeof *kv);
    STRUCT_BEGIN(D_KV)
    FIELD(1, PQ_TT_BINARY) CK(rd_string(d, &kv->key)); break;
    FIELD(2, PQ_TT_BINARY) CK(rd_string(d, &kv->value)); break;
    STRUCT_END(REQ(1))
    CLEANUP_CTX;
}

static int dec_kv_list(dec *d, pq_kv **out, uint32_t *n) {
    int rc = 0;
    uint32_t i = 0;
    CK(rd_list(d, PQ_TT_STRUCT, n, (void **)out, sizeof **out));
    for (i = 0; i < *n; i++) CK(dec_kv(d, &(*out)[i]));
cleanup:
    if (rc && i < *n) tn_error_prefix(rc, "element %u", i);
    return rc;
}

static int dec_sorting_column(dec *d, pq_sorting_column *sc) {
    memset(sc, 0, sizeof *sc);
    STRUCT_BEGIN(D_SC)
    FIELD(1, PQ_TT_I32) CK(rd_nonneg32(d, &sc->column_idx)); break;
    FIELD(2, PQ_TT_BOOL_TRUE) sc->descending = BOOLV; break;
    FIELD(3, PQ_TT_BOOL_TRUE) sc->nulls_first = BOOLV; break;
    STRUCT_END(REQ(1, 2, 3))
    CLEANUP_CTX;
}

static int dec_page_encoding_stats(dec *d, pq_page_encoding_stats *p) {
    memset(p, 0, sizeof *p);
    STRUCT_BEGIN(D_PES)
    FIELD(1, PQ_TT_I32) CK(rd_enum(d, &p->page_type, 0, INT32_MAX)); break;
    FIELD(2, PQ_TT_I32) CK(rd_enum(d, &p->encoding, 0, INT32_MAX)); break;
    FIELD(3, PQ_TT_I32) CK(rd_nonneg32(d, &p->count)); break;
    STRUCT_END(REQ(1, 2, 3))
    CLEANUP_CTX;
}

static int dec_column_meta(dec *d, pq_column_meta *m) {
    uint32_t i = 0;
    memset(m, 0, sizeof *m);
    STRUCT_BEGIN(D_CMD)
    FIELD(1, PQ_TT_I32) CK(rd_enum(d, &m->type, PQ_BOOLEAN, PQ_FIXED_LEN_BYTE_ARRAY)); break;
    FIELD(2, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_I32, &m->nencodings, (void **)&m->encodings, sizeof *m->encodings));
        for (i = 0; i < m->nencodings; i++) CK(rd_enum(d, &m->encodings[i], 0, INT32_MAX));
        break;
    FIELD(3, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_BINARY, &m->npath, (void **)&m->path, sizeof *m->path));
        for (i = 0; i < m->npath; i++) CK(rd_string(d, &m->path[i]));
        break;
    FIELD(4, PQ_TT_I32) CK(rd_enum(d, &m->codec, 0, INT32_MAX)); break;
    FIELD(5, PQ_TT_I64) CK(rd_nonneg64(d, &m->num_values)); break;
    FIELD(6, PQ_TT_I64) CK(rd_nonneg64(d, &m->total_uncompressed_size)); break;
    FIELD(7, PQ_TT_I64) CK(rd_nonneg64(d, &m->total_compressed_size)); break;
    FIELD(8, PQ_TT_LIST) CK(dec_kv_list(d, &m->kv, &m->nkv)); break;
    FIELD(9, PQ_TT_I64) CK(rd_nonneg64(d, &m->data_page_offset)); break;
    FIELD(10, PQ_TT_I64) CK(rd_nonneg64(d, &m->index_page_offset)); m->has_index_page_offset = true; break;
    FIELD(11, PQ_TT_I64)
        CK(rd_nonneg64(d, &m->dictionary_page_offset)); m->has_dictionary_page_offset = true; break;
    FIELD(12, PQ_TT_STRUCT) CK(dec_statistics(d, &m->statistics)); m->has_statistics = true; break;
    FIELD(13, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_STRUCT, &m->nencoding_stats, (void **)&m->encoding_stats,
                   sizeof *m->encoding_stats));
        for (i = 0; i < m->nencoding_stats; i++) CK(dec_page_encoding_stats(d, &m->encoding_stats[i]));
        break;
    FIELD(14, PQ_TT_I64) CK(rd_nonneg64(d, &m->bloom_filter_offset)); m->has_bloom_filter_offset = true; break;
    FIELD(15, PQ_TT_I32) CK(rd_nonneg32(d, &m->bloom_filter_length)); m->has_bloom_filter_length = true; break;
    STRUCT_END(REQ(1, 2, 3, 4, 5, 6, 7, 9))
    CLEANUP_CTX;
}

static int dec_column_chunk(dec *d, pq_column_chunk *c) {
    bool has_oi_off = false, has_oi_len = false, has_ci_off = false, has_ci_len = false;
    memset(c, 0, sizeof *c);
    STRUCT_BEGIN(D_CC)
    FIELD(2, PQ_TT_I64) CK(rd_i64(d, &c->file_offset)); break;
    FIELD(3, PQ_TT_STRUCT) CK(dec_column_meta(d, &c->meta)); c->has_meta_data = true; break;
    FIELD(4, PQ_TT_I64) CK(rd_nonneg64(d, &c->offset_index_offset)); has_oi_off = true; break;
    FIELD(5, PQ_TT_I32) CK(rd_nonneg32(d, &c->offset_index_length)); has_oi_len = true; break;
    FIELD(6, PQ_TT_I64) CK(rd_nonneg64(d, &c->column_index_offset)); has_ci_off = true; break;
    FIELD(7, PQ_TT_I32) CK(rd_nonneg32(d, &c->column_index_length)); has_ci_len = true; break;
    case 8: case 9: c->encrypted = true; CK(pq_thrift_skip_field(&d->r, t)); break;
    STRUCT_END(0)
    c->has_offset_index = has_oi_off && has_oi_len;
    c->has_column_index = has_ci_off && has_ci_len;
    CLEANUP_CTX;
}

static int dec_row_group(dec *d, pq_row_group *g) {
    uint32_t i = 0;
    memset(g, 0, sizeof *g);
    STRUCT_BEGIN(D_RG)
    FIELD(1, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_STRUCT, &g->ncolumns, (void **)&g->columns, sizeof *g->columns));
        for (i = 0; i < g->ncolumns; i++) {
            rc = dec_column_chunk(d, &g->columns[i]);
            if (rc) { tn_error_prefix(rc, "column %u", i); goto cleanup; }
        }
        break;
    FIELD(2, PQ_TT_I64) CK(rd_nonneg64(d, &g->total_byte_size)); break;
    FIELD(3, PQ_TT_I64) CK(rd_nonneg64(d, &g->num_rows)); break;
    FIELD(4, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_STRUCT, &g->nsorting_columns, (void **)&g->sorting_columns,
                   sizeof *g->sorting_columns));
        for (i = 0; i < g->nsorting_columns; i++) CK(dec_sorting_column(d, &g->sorting_columns[i]));
        break;
    FIELD(5, PQ_TT_I64) CK(rd_nonneg64(d, &g->file_offset)); g->has_file_offset = true; break;
    FIELD(6, PQ_TT_I64)
        CK(rd_nonneg64(d, &g->total_compressed_size)); g->has_total_compressed_size = true; break;
    FIELD(7, PQ_TT_I16) CK(pq_thrift_read_i16(&d->r, &g->ordinal)); g->has_ordinal = true; break;
    STRUCT_END(REQ(1, 2, 3))
    CLEANUP_CTX;
}

static int dec_file_meta(dec *d, pq_file_meta *m) {
    uint32_t i = 0;
    memset(m, 0, sizeof *m);
    STRUCT_BEGIN(D_FMD)
    FIELD(1, PQ_TT_I32) CK(rd_i32(d, &m->version)); break;
    FIELD(2, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_STRUCT, &m->nschema, (void **)&m->schema, sizeof *m->schema));
        for (i = 0; i < m->nschema; i++) {
            rc = dec_schema_element(d, &m->schema[i]);
            if (rc) { tn_error_prefix(rc, "schema element %u", i); goto cleanup; }
        }
        break;
    FIELD(3, PQ_TT_I64) CK(rd_nonneg64(d, &m->num_rows)); break;
    FIELD(4, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_STRUCT, &m->nrow_groups, (void **)&m->row_groups, sizeof *m->row_groups));
        for (i = 0; i < m->nrow_groups; i++) {
            rc = dec_row_group(d, &m->row_groups[i]);
            if (rc) { tn_error_prefix(rc, "row group %u", i); goto cleanup; }
        }
        break;
    FIELD(5, PQ_TT_LIST) CK(dec_kv_list(d, &m->kv, &m->nkv)); break;
    FIELD(6, PQ_TT_BINARY) CK(rd_string(d, &m->created_by)); break;
    FIELD(7, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_STRUCT, &m->ncolumn_orders, (void **)&m->column_orders,
                   sizeof *m->column_orders));
        for (i = 0; i < m->ncolumn_orders; i++) CK(dec_empty_struct_member(d, &m->column_orders[i]));
        break;
    case 8: case 9: m->encrypted = true; CK(pq_thrift_skip_field(&d->r, t)); break;
    STRUCT_END(REQ(1, 2, 3, 4))
    CLEANUP_CTX;
}

static int dec_data_page_header(dec *d, pq_data_page_header *h) {
    memset(h, 0, sizeof *h);
    STRUCT_BEGIN(D_DPH)
    FIELD(1, PQ_TT_I32) CK(rd_nonneg32(d, &h->num_values)); break;
    FIELD(2, PQ_TT_I32) CK(rd_enum(d, &h->encoding, 0, INT32_MAX)); break;
    FIELD(3, PQ_TT_I32) CK(rd_enum(d, &h->definition_level_encoding, 0, INT32_MAX)); break;
    FIELD(4, PQ_TT_I32) CK(rd_enum(d, &h->repetition_level_encoding, 0, INT32_MAX)); break;
    FIELD(5, PQ_TT_STRUCT) CK(dec_statistics(d, &h->statistics)); h->has_statistics = true; break;
    STRUCT_END(REQ(1, 2, 3, 4))
    CLEANUP_CTX;
}

static int dec_dict_page_header(dec *d, pq_dictionary_page_header *h) {
    memset(h, 0, sizeof *h);
    STRUCT_BEGIN(D_DICT)
    FIELD(1, PQ_TT_I32) CK(rd_nonneg32(d, &h->num_values)); break;
    FIELD(2, PQ_TT_I32) CK(rd_enum(d, &h->encoding, 0, INT32_MAX)); break;
    FIELD(3, PQ_TT_BOOL_TRUE) h->has_is_sorted = true; h->is_sorted = BOOLV; break;
    STRUCT_END(REQ(1, 2))
    CLEANUP_CTX;
}

static int dec_data_page_header_v2(dec *d, pq_data_page_header_v2 *h) {
    memset(h, 0, sizeof *h);
    h->is_compressed = true;
    STRUCT_BEGIN(D_DPH2)
    FIELD(1, PQ_TT_I32) CK(rd_nonneg32(d, &h->num_values)); break;
    FIELD(2, PQ_TT_I32) CK(rd_nonneg32(d, &h->num_nulls)); break;
    FIELD(3, PQ_TT_I32) CK(rd_nonneg32(d, &h->num_rows)); break;
    FIELD(4, PQ_TT_I32) CK(rd_enum(d, &h->encoding, 0, INT32_MAX)); break;
    FIELD(5, PQ_TT_I32) CK(rd_nonneg32(d, &h->definition_levels_byte_length)); break;
    FIELD(6, PQ_TT_I32) CK(rd_nonneg32(d, &h->repetition_levels_byte_length)); break;
    FIELD(7, PQ_TT_BOOL_TRUE) h->is_compressed = BOOLV; break;
    FIELD(8, PQ_TT_STRUCT) CK(dec_statistics(d, &h->statistics)); h->has_statistics = true; break;
    STRUCT_END(REQ(1, 2, 3, 4, 5, 6))
    if (h->num_nulls > h->num_values) {
        rc = tn_error_set(TN_ECORRUPT, "DataPageHeaderV2: num_nulls %d > num_values %d",
                          h->num_nulls, h->num_values);
        goto cleanup;
    }
    CLEANUP_CTX;
}

static int dec_page_header(dec *d, pq_page_header *h) {
    memset(h, 0, sizeof *h);
    STRUCT_BEGIN(D_PH)
    FIELD(1, PQ_TT_I32) CK(rd_enum(d, &h->type, 0, INT32_MAX)); break;
    FIELD(2, PQ_TT_I32) CK(rd_nonneg32(d, &h->uncompressed_page_size)); break;
    FIELD(3, PQ_TT_I32) CK(rd_nonneg32(d, &h->compressed_page_size)); break;
    FIELD(4, PQ_TT_I32) CK(rd_i32(d, &h->crc)); h->has_crc = true; break;
    FIELD(5, PQ_TT_STRUCT) CK(dec_data_page_header(d, &h->data)); h->has_data = true; break;
    FIELD(7, PQ_TT_STRUCT) CK(dec_dict_page_header(d, &h->dictionary)); h->has_dictionary = true; break;
    FIELD(8, PQ_TT_STRUCT) CK(dec_data_page_header_v2(d, &h->data_v2)); h->has_data_v2 = true; break;
    STRUCT_END(REQ(1, 2, 3))
    if ((h->type == PQ_PAGE_DATA && !h->has_data) ||
        (h->type == PQ_PAGE_DICTIONARY && !h->has_dictionary) ||
        (h->type == PQ_PAGE_DATA_V2 && !h->has_data_v2)) {
        static const char *const what[] = {"data_page_header", "", "dictionary_page_header",
                                           "data_page_header_v2"};
        rc = tn_error_set(TN_ECORRUPT, "PageHeader: page type %d without %s", h->type, what[h->type]);
        goto cleanup;
    }
    if (h->has_data_v2 && h->type == PQ_PAGE_DATA_V2) {
        int64_t levels = (int64_t)h->data_v2.definition_levels_byte_length +
                         h->data_v2.repetition_levels_byte_length;
        if (levels > h->compressed_page_size || levels > h->uncompressed_page_size) {
            rc = tn_error_set(TN_ECORRUPT, "PageHeader: v2 level bytes %lld exceed the page size",
                              (long long)levels);
            goto cleanup;
        }
    }
    CLEANUP_CTX;
}

static int dec_column_index(dec *d, pq_column_index *ci) {
    uint32_t i = 0, nmin = 0, nmax = 0, nnull = 0;
    bool bad_null_count = false;
    memset(ci, 0, sizeof *ci);
    STRUCT_BEGIN(D_CI)
    FIELD(1, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_BOOL_TRUE, &ci->npages, (void **)&ci->null_pages, sizeof *ci->null_pages));
        for (i = 0; i < ci->npages; i++) CK(pq_thrift_read_bool_elem(&d->r, &ci->null_pages[i]));
        break;
    FIELD(2, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_BINARY, &nmin, (void **)&ci->min_values, sizeof *ci->min_values));
        for (i = 0; i < nmin; i++) CK(rd_bytes(d, &ci->min_values[i]));
        break;
    FIELD(3, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_BINARY, &nmax, (void **)&ci->max_values, sizeof *ci->max_values));
        for (i = 0; i < nmax; i++) CK(rd_bytes(d, &ci->max_values[i]));
        break;
    FIELD(4, PQ_TT_I32) CK(rd_enum(d, &ci->boundary_order, 0, 2)); break;
    FIELD(5, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_I64, &nnull, (void **)&ci->null_counts, sizeof *ci->null_counts));
        for (i = 0; i < nnull; i++) {
            CK(rd_i64(d, &ci->null_counts[i]));
            if (ci->null_counts[i] < 0) bad_null_count = true;   /* parquet-mr writes -1 */
        }
        break;
    STRUCT_END(REQ(1, 2, 3, 4))
    if (nmin != ci->npages || nmax != ci->npages || ((seen >> 5) & 1 && nnull != ci->npages)) {
        rc = tn_error_set(TN_ECORRUPT, "ColumnIndex: %u null_pages but %u min_values, %u max_values, "
                          "%u null_counts", ci->npages, nmin, nmax, nnull);
        goto cleanup;
    }
    /* null_counts absent, or holding a negative ("unknown") entry: NULL */
    if (!((seen >> 5) & 1) || bad_null_count) ci->null_counts = NULL;
    CLEANUP_CTX;
}

static int dec_page_location(dec *d, pq_page_location *p) {
    memset(p, 0, sizeof *p);
    STRUCT_BEGIN(D_PL)
    FIELD(1, PQ_TT_I64) CK(rd_nonneg64(d, &p->offset)); break;
    FIELD(2, PQ_TT_I32) CK(rd_nonneg32(d, &p->compressed_page_size)); break;
    FIELD(3, PQ_TT_I64) CK(rd_nonneg64(d, &p->first_row_index)); break;
    STRUCT_END(REQ(1, 2, 3))
    CLEANUP_CTX;
}

static int dec_offset_index(dec *d, pq_offset_index *oi) {
    uint32_t i = 0;
    memset(oi, 0, sizeof *oi);
    STRUCT_BEGIN(D_OI)
    FIELD(1, PQ_TT_LIST)
        CK(rd_list(d, PQ_TT_STRUCT, &oi->npages, (void **)&oi->pages, sizeof *oi->pages));
        for (i = 0; i < oi->npages; i++) CK(dec_page_location(d, &oi->pages[i]));
        break;
    STRUCT_END(REQ(1))
    CLEANUP_CTX;
}

int pq_decode_file_meta(pq_file_meta *out, tn_arena *arena, const uint8_t *buf, size_t len) {
    dec d = {.arena = arena};
    pq_thrift_reader_init(&d.r, buf, len);
    int rc = dec_file_meta(&d, out);
    if (rc) memset(out, 0, sizeof *out);
    return rc;
}

int pq_decode_page_header(pq_page_header *out, const uint8_t *buf, size_t len, size_t *consumed) {
    dec d = {.arena = NULL};
    pq_thrift_reader_init(&d.r, buf, len);
    int rc = dec_page_header(&d, out);
    if (consumed) *consumed = rc ? 0 : d.r.pos;
    return rc;
}

int pq_decode_column_index(pq_column_index *out, tn_arena *arena, const uint8_t *buf, size_t len) {
    dec d = {.arena = arena};
    pq_thrift_reader_init(&d.r, buf, len);
    int rc = dec_column_index(&d, out);
    if (rc) memset(out, 0, sizeof *out);
    return rc;
}

int pq_decode_offset_index(pq_offset_index *out, tn_arena *arena, const uint8_t *buf, size_t len) {
    dec d = {.arena = arena};
    pq_thrift_reader_init(&d.r, buf, len);
    int rc = dec_offset_index(&d, out);
    if (rc) memset(out, 0, sizeof *out);
    return rc;
}

/* BloomFilterHeader: the three unions must hold member 1 (BLOCK, XXHASH, UNCOMPRESSED). */
static int dec_bloom_header(dec *d, int32_t *num_bytes) {
    static const char *const what[] = {"", "", "algorithm", "hash", "compression"};
    STRUCT_BEGIN(D_BF)
    FIELD(1, PQ_TT_I32) CK(rd_i32(d, num_bytes));
        if (*num_bytes <= 0) { rc = tn_error_set(TN_ECORRUPT, "numBytes %d", *num_bytes); goto cleanup; }
        break;
    case 2: case 3: case 4: {
        int member;
        CK(want(d, t, PQ_TT_STRUCT));
        CK(dec_empty_struct_member(d, &member));
        if (member != 1) {
            rc = tn_error_set(TN_EUNSUPPORTED, "bloom filter %s %d is not supported", what[id], member);
            goto cleanup;
        }
        break;
    }
    STRUCT_END(REQ(1, 2, 3, 4))
    CLEANUP_CTX;
}

int pq_decode_bloom_header(int32_t *num_bytes, const uint8_t *buf, size_t len, size_t *consumed) {
    dec d = {.arena = NULL};
    pq_thrift_reader_init(&d.r, buf, len);
    int rc = dec_bloom_header(&d, num_bytes);
    if (consumed) *consumed = rc ? 0 : d.r.pos;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Encoding: fields in increasing id order, short headers when they fit (thrift.c).
 */
typedef pq_thrift_writer enc;

static void w_i32(enc *w, int16_t id, int32_t v) { pq_thrift_write_field(w, id, PQ_TT_I32); pq_thrift_write_i32(w, v); }
static void w_i64(enc *w, int16_t id, int64_t v) { pq_thrift_write_field(w, id, PQ_TT_I64); pq_thrift_write_i64(w, v); }
static void w_str(enc *w, int16_t id, const char *s) {
    pq_thrift_write_field(w, id, PQ_TT_BINARY);
    pq_thrift_write_binary(w, s, strlen(s));
}
static void w_bytes(enc *w, int16_t id, const pq_bytes *b) {
    if (!b->present) return;
    pq_thrift_write_field(w, id, PQ_TT_BINARY);
    pq_thrift_write_binary(w, b->ptr, b->len);
}
/* A union member holding an empty struct: {id: {}} */
static void w_empty_member(enc *w, int16_t id) {
    pq_thrift_write_field(w, id, PQ_TT_STRUCT);
    pq_thrift_write_struct_begin(w);
    pq_thrift_write_struct_end(w);
}

static void enc_statistics(enc *w, const pq_statistics *st) {
    pq_thrift_write_struct_begin(w);
    w_bytes(w, 1, &st->max);
    w_bytes(w, 2, &st->min);
    if (st->has_null_count) w_i64(w, 3, st->null_count);
    if (st->has_distinct_count) w_i64(w, 4, st->distinct_count);
    w_bytes(w, 5, &st->max_value);
    w_bytes(w, 6, &st->min_value);
    if (st->has_is_max_exact) pq_thrift_write_bool_field(w, 7, st->is_max_value_exact);
    if (st->has_is_min_exact) pq_thrift_write_bool_field(w, 8, st->is_min_value_exact);
    if (st->has_nan_count) w_i64(w, 9, st->nan_count);
    pq_thrift_write_struct_end(w);
}

static void enc_kv_list(enc *w, int16_t id, const pq_kv *kv, uint32_t n) {
    pq_thrift_write_field(w, id, PQ_TT_LIST);
    pq_thrift_write_list_begin(w, PQ_TT_STRUCT, n);
    for (uint32_t i = 0; i < n; i++) {
        pq_thrift_write_struct_begin(w);
        w_str(w, 1, kv[i].key ? kv[i].key : "");
        if (kv[i].value) w_str(w, 2, kv[i].value);
        pq_thrift_write_struct_end(w);
    }
}

static void enc_logical(enc *w, const pq_logical_type *lt) {
    pq_thrift_write_field(w, 10, PQ_TT_STRUCT);
    pq_thrift_write_struct_begin(w);
    switch (lt->kind) {
    case PQ_LT_DECIMAL:
        pq_thrift_write_field(w, PQ_LT_DECIMAL, PQ_TT_STRUCT);
        pq_thrift_write_struct_begin(w);
        w_i32(w, 1, lt->scale);
        w_i32(w, 2, lt->precision);
        pq_thrift_write_struct_end(w);
        break;
    case PQ_LT_TIME: case PQ_LT_TIMESTAMP:
        pq_thrift_write_field(w, (int16_t)lt->kind, PQ_TT_STRUCT);
        pq_thrift_write_struct_begin(w);
        pq_thrift_write_bool_field(w, 1, lt->adjusted_to_utc);
        pq_thrift_write_field(w, 2, PQ_TT_STRUCT);
        pq_thrift_write_struct_begin(w);
        w_empty_member(w, (int16_t)lt->unit);
        pq_thrift_write_struct_end(w);
        pq_thrift_write_struct_end(w);
        break;
    case PQ_LT_INTEGER:
        pq_thrift_write_field(w, PQ_LT_INTEGER, PQ_TT_STRUCT);
        pq_thrift_write_struct_begin(w);
        pq_thrift_write_field(w, 1, PQ_TT_I8);
        pq_thrift_write_i8(w, (int8_t)lt->bit_width);
        pq_thrift_write_bool_field(w, 2, lt->is_signed);
        pq_thrift_write_struct_end(w);
        break;
    default:
        w_empty_member(w, (int16_t)lt->kind);
        break;
    }
    pq_thrift_write_struct_end(w);
}

static void enc_schema_element(enc *w, const pq_schema_element *se) {
    pq_thrift_write_struct_begin(w);
    if (se->type >= 0) w_i32(w, 1, se->type);
    if (se->type_length >= 0) w_i32(w, 2, se->type_length);
    if (se->repetition >= 0) w_i32(w, 3, se->repetition);
    w_str(w, 4, se->name ? se->name : "");
    if (se->type < 0 || se->num_children > 0) w_i32(w, 5, se->num_children);
    if (se->converted_type != PQ_CT_NONE) w_i32(w, 6, se->converted_type);
    if (se->scale >= 0) w_i32(w, 7, se->scale);
    if (se->precision >= 0) w_i32(w, 8, se->precision);
    if (se->field_id >= 0) w_i32(w, 9, se->field_id);
    /* an unknown member cannot be re-encoded (its id is not kept): it is dropped */
    if (se->logical.kind != PQ_LT_NONE && se->logical.kind != PQ_LT_UNKNOWN_MEMBER)
        enc_logical(w, &se->logical);
    pq_thrift_write_struct_end(w);
}

static void enc_column_meta(enc *w, const pq_column_meta *m) {
    pq_thrift_write_struct_begin(w);
    w_i32(w, 1, m->type);
    pq_thrift_write_field(w, 2, PQ_TT_LIST);
    pq_thrift_write_list_begin(w, PQ_TT_I32, m->nencodings);
    for (uint32_t i = 0; i < m->nencodings; i++) pq_thrift_write_i32(w, m->encodings[i]);
    pq_thrift_write_field(w, 3, PQ_TT_LIST);
    pq_thrift_write_list_begin(w, PQ_TT_BINARY, m->npath);
    for (uint32_t i = 0; i < m->npath; i++) pq_thrift_write_binary(w, m->path[i], strlen(m->path[i]));
    w_i32(w, 4, m->codec);
    w_i64(w, 5, m->num_values);
    w_i64(w, 6, m->total_uncompressed_size);
    w_i64(w, 7, m->total_compressed_size);
    if (m->nkv) enc_kv_list(w, 8, m->kv, m->nkv);
    w_i64(w, 9, m->data_page_offset);
    if (m->has_index_page_offset) w_i64(w, 10, m->index_page_offset);
    if (m->has_dictionary_page_offset) w_i64(w, 11, m->dictionary_page_offset);
    if (m->has_statistics) {
        pq_thrift_write_field(w, 12, PQ_TT_STRUCT);
        enc_statistics(w, &m->statistics);
    }
    if (m->nencoding_stats) {
        pq_thrift_write_field(w, 13, PQ_TT_LIST);
        pq_thrift_write_list_begin(w, PQ_TT_STRUCT, m->nencoding_stats);
        for (uint32_t i = 0; i < m->nencoding_stats; i++) {
            pq_thrift_write_struct_begin(w);
            w_i32(w, 1, m->encoding_stats[i].page_type);
            w_i32(w, 2, m->encoding_stats[i].encoding);
            w_i32(w, 3, m->encoding_stats[i].count);
            pq_thrift_write_struct_end(w);
        }
    }
    if (m->has_bloom_filter_offset) w_i64(w, 14, m->bloom_filter_offset);
    if (m->has_bloom_filter_length) w_i32(w, 15, m->bloom_filter_length);
    pq_thrift_write_struct_end(w);
}

static void enc_column_chunk(enc *w, const pq_column_chunk *c) {
    pq_thrift_write_struct_begin(w);
    w_i64(w, 2, c->file_offset);
    if (c->has_meta_data) {
        pq_thrift_write_field(w, 3, PQ_TT_STRUCT);
        enc_column_meta(w, &c->meta);
    }
    if (c->has_offset_index) {
        w_i64(w, 4, c->offset_index_offset);
        w_i32(w, 5, c->offset_index_length);
    }
    if (c->has_column_index) {
        w_i64(w, 6, c->column_index_offset);
        w_i32(w, 7, c->column_index_length);
    }
    pq_thrift_write_struct_end(w);
}

static void enc_row_group(enc *w, const pq_row_group *g) {
    pq_thrift_write_struct_begin(w);
    pq_thrift_write_field(w, 1, PQ_TT_LIST);
    pq_thrift_write_list_begin(w, PQ_TT_STRUCT, g->ncolumns);
    for (uint32_t i = 0; i < g->ncolumns; i++) enc_column_chunk(w, &g->columns[i]);
    w_i64(w, 2, g->total_byte_size);
    w_i64(w, 3, g->num_rows);
    if (g->nsorting_columns) {
        pq_thrift_write_field(w, 4, PQ_TT_LIST);
        pq_thrift_write_list_begin(w, PQ_TT_STRUCT, g->nsorting_columns);
        for (uint32_t i = 0; i < g->nsorting_columns; i++) {
            pq_thrift_write_struct_begin(w);
            w_i32(w, 1, g->sorting_columns[i].column_idx);
            pq_thrift_write_bool_field(w, 2, g->sorting_columns[i].descending);
            pq_thrift_write_bool_field(w, 3, g->sorting_columns[i].nulls_first);
            pq_thrift_write_struct_end(w);
        }
    }
    if (g->has_file_offset) w_i64(w, 5, g->file_offset);
    if (g->has_total_compressed_size) w_i64(w, 6, g->total_compressed_size);
    if (g->has_ordinal) {
        pq_thrift_write_field(w, 7, PQ_TT_I16);
        pq_thrift_write_i32(w, g->ordinal);
    }
    pq_thrift_write_struct_end(w);
}

int pq_encode_file_meta(tn_buf *out, const pq_file_meta *m) {
    enc w;
    pq_thrift_writer_init(&w, out);
    pq_thrift_write_struct_begin(&w);
    w_i32(&w, 1, m->version);
    pq_thrift_write_field(&w, 2, PQ_TT_LIST);
    pq_thrift_write_list_begin(&w, PQ_TT_STRUCT, m->nschema);
    for (uint32_t i = 0; i < m->nschema; i++) enc_schema_element(&w, &m->schema[i]);
    w_i64(&w, 3, m->num_rows);
    pq_thrift_write_field(&w, 4, PQ_TT_LIST);
    pq_thrift_write_list_begin(&w, PQ_TT_STRUCT, m->nrow_groups);
    for (uint32_t i = 0; i < m->nrow_groups; i++) enc_row_group(&w, &m->row_groups[i]);
    if (m->nkv) enc_kv_list(&w, 5, m->kv, m->nkv);
    if (m->created_by) w_str(&w, 6, m->created_by);
    if (m->ncolumn_orders) {
        pq_thrift_write_field(&w, 7, PQ_TT_LIST);
        pq_thrift_write_list_begin(&w, PQ_TT_STRUCT, m->ncolumn_orders);
        for (uint32_t i = 0; i < m->ncolumn_orders; i++) {
            pq_thrift_write_struct_begin(&w);
            if (m->column_orders[i] > 0 && m->column_orders[i] <= INT16_MAX)
                w_empty_member(&w, (int16_t)m->column_orders[i]);
            pq_thrift_write_struct_end(&w);
        }
    }
    pq_thrift_write_struct_end(&w);
    return w.rc;
}

int pq_encode_page_header(tn_buf *out, const pq_page_header *h) {
    enc w;
    pq_thrift_writer_init(&w, out);
    pq_thrift_write_struct_begin(&w);
    w_i32(&w, 1, h->type);
    w_i32(&w, 2, h->uncompressed_page_size);
    w_i32(&w, 3, h->compressed_page_size);
    if (h->has_crc) w_i32(&w, 4, h->crc);
    if (h->has_data) {
        const pq_data_page_header *dp = &h->data;
        pq_thrift_write_field(&w, 5, PQ_TT_STRUCT);
        pq_thrift_write_struct_begin(&w);
        w_i32(&w, 1, dp->num_values);
        w_i32(&w, 2, dp->encoding);
        w_i32(&w, 3, dp->definition_level_encoding);
        w_i32(&w, 4, dp->repetition_level_encoding);
        if (dp->has_statistics) {
            pq_thrift_write_field(&w, 5, PQ_TT_STRUCT);
            enc_statistics(&w, &dp->statistics);
        }
        pq_thrift_write_struct_end(&w);
    }
    if (h->has_dictionary) {
        const pq_dictionary_page_header *dp = &h->dictionary;
        pq_thrift_write_field(&w, 7, PQ_TT_STRUCT);
        pq_thrift_write_struct_begin(&w);
        w_i32(&w, 1, dp->num_values);
        w_i32(&w, 2, dp->encoding);
        if (dp->has_is_sorted) pq_thrift_write_bool_field(&w, 3, dp->is_sorted);
        pq_thrift_write_struct_end(&w);
    }
    if (h->has_data_v2) {
        const pq_data_page_header_v2 *dp = &h->data_v2;
        pq_thrift_write_field(&w, 8, PQ_TT_STRUCT);
        pq_thrift_write_struct_begin(&w);
        w_i32(&w, 1, dp->num_values);
        w_i32(&w, 2, dp->num_nulls);
        w_i32(&w, 3, dp->num_rows);
        w_i32(&w, 4, dp->encoding);
        w_i32(&w, 5, dp->definition_levels_byte_length);
        w_i32(&w, 6, dp->repetition_levels_byte_length);
        pq_thrift_write_bool_field(&w, 7, dp->is_compressed);
        if (dp->has_statistics) {
            pq_thrift_write_field(&w, 8, PQ_TT_STRUCT);
            enc_statistics(&w, &dp->statistics);
        }
        pq_thrift_write_struct_end(&w);
    }
    pq_thrift_write_struct_end(&w);
    return w.rc;
}

int pq_encode_column_index(tn_buf *out, const pq_column_index *ci) {
    enc w;
    pq_thrift_writer_init(&w, out);
    pq_thrift_write_struct_begin(&w);
    pq_thrift_write_field(&w, 1, PQ_TT_LIST);
    pq_thrift_write_list_begin(&w, PQ_TT_BOOL_TRUE, ci->npages);
    for (uint32_t i = 0; i < ci->npages; i++) pq_thrift_write_bool_elem(&w, ci->null_pages[i]);
    for (int16_t f = 2; f <= 3; f++) {
        const pq_bytes *v = f == 2 ? ci->min_values : ci->max_values;
        pq_thrift_write_field(&w, f, PQ_TT_LIST);
        pq_thrift_write_list_begin(&w, PQ_TT_BINARY, ci->npages);
        for (uint32_t i = 0; i < ci->npages; i++) pq_thrift_write_binary(&w, v[i].ptr, v[i].len);
    }
    w_i32(&w, 4, ci->boundary_order);
    if (ci->null_counts) {
        pq_thrift_write_field(&w, 5, PQ_TT_LIST);
        pq_thrift_write_list_begin(&w, PQ_TT_I64, ci->npages);
        for (uint32_t i = 0; i < ci->npages; i++) pq_thrift_write_i64(&w, ci->null_counts[i]);
    }
    pq_thrift_write_struct_end(&w);
    return w.rc;
}

int pq_encode_offset_index(tn_buf *out, const pq_offset_index *oi) {
    enc w;
    pq_thrift_writer_init(&w, out);
    pq_thrift_write_struct_begin(&w);
    pq_thrift_write_field(&w, 1, PQ_TT_LIST);
    pq_thrift_write_list_begin(&w, PQ_TT_STRUCT, oi->npages);
    for (uint32_t i = 0; i < oi->npages; i++) {
        pq_thrift_write_struct_begin(&w);
        w_i64(&w, 1, oi->pages[i].offset);
        w_i32(&w, 2, oi->pages[i].compressed_page_size);
        w_i64(&w, 3, oi->pages[i].first_row_index);
        pq_thrift_write_struct_end(&w);
    }
    pq_thrift_write_struct_end(&w);
    return w.rc;
}

int pq_encode_bloom_header(tn_buf *out, int32_t num_bytes) {
    enc w;
    pq_thrift_writer_init(&w, out);
    pq_thrift_write_struct_begin(&w);
    w_i32(&w, 1, num_bytes);
    for (int16_t f = 2; f <= 4; f++) {
        pq_thrift_write_field(&w, f, PQ_TT_STRUCT);
        pq_thrift_write_struct_begin(&w);
        w_empty_member(&w, 1);
        pq_thrift_write_struct_end(&w);
    }
    pq_thrift_write_struct_end(&w);
    return w.rc;
}
