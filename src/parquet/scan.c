/*
 * parquet/scan.c: reading column chunks into tn_chunk vectors: one pread per column chunk, page
 * headers walked back to back with bounds checks, dictionary and data pages (v1 and v2), CRC
 * checks, every value encoding of Encodings.md, conversion to the logical type, and skipping of
 * row groups (statistics) and pages (ColumnIndex/OffsetIndex of predicate columns).
 * Page decoding: a data page is decoded whole into a typed array (nulls spread to their rows);
 * scan_next copies row ranges out of it. VARCHAR/VARBINARY values point into page buffers that
 * stay valid until the next tn_parquet_scan_next (or close): they are not copied.
 * Row filter (tn_parquet_scan_set_filter): filter columns first (dictionary pages tested once
 * per entry), then the other columns only for the rows that pass; scan reuse across row groups
 * (tn_parquet_scan_reset).
 */
#include "parquet/readerInt.h"

#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "scan.c reads PLAIN values in place and assumes a little-endian host"
#endif

/* Physical -> logical conversions (chosen once per column). */
enum {
    CV_BOOL, CV_I32_I8, CV_I32_I16, CV_I32, CV_U32_I64, CV_I32_DEC64, CV_I32_DEC128,
    CV_I64, CV_I64_MS, CV_I64_NS, CV_I64_DEC128, CV_U64_DEC128, CV_INT96, CV_F32, CV_F64,
    CV_F16, CV_FIXED_STR, CV_FIXED_DEC64, CV_FIXED_DEC128, CV_STR, CV_STR_DEC64, CV_STR_DEC128
};

typedef struct sbuf { uint8_t *p; size_t cap; } sbuf;           /* reusable scratch */
typedef struct pbuf { uint8_t *p; size_t cap; uint64_t gen; } pbuf; /* pooled page buffer */

/* Non-null values of a page in physical form, before conversion. */
typedef struct pdense {
    const uint8_t *fixed;     /* INT32/INT64/INT96/FLOAT/DOUBLE/FLBA: n * pw bytes, LE */
    const tn_str *strs;       /* BYTE_ARRAY */
    const uint8_t *bools;     /* BOOLEAN: 0/1 bytes */
} pdense;

/* A row filter term of one column (constants owned by the scan's arena). */
typedef struct fpred {
    tn_parquet_op op;
    bool in;                  /* IN (values) instead of op */
    tn_value constant;
    const tn_value *values;
    uint32_t nvalues;
} fpred;

typedef struct colreader {
    uint32_t col;
    const char *name;
    const pq_schema_element *elem;
    tn_type type;
    uint32_t width;           /* bytes per logical value */
    uint32_t pw;              /* bytes per physical fixed-width value (0: BOOLEAN, BYTE_ARRAY) */
    int conv, phys, max_def;
    bool is_str;
    /* row group */
    const pq_column_meta *cm;
    uint8_t *chunk; size_t chunk_len, chunk_cap;
    size_t pos;               /* next page header in chunk */
    int64_t next_row;         /* row (in the row group) of the next data page */
    uint32_t page_no;         /* pages walked in this chunk */
    bool seen_data;
    /* dictionary (lives for the row group) */
    bool has_dict;
    uint32_t dict_count;
    int dict_bits;            /* dict holds 1 << dict_bits entries (zero padded) */
    sbuf dict, dict_raw;
    /* current page */
    bool page_loaded;
    int64_t page_first;
    uint32_t page_rows;
    const uint8_t *vals;      /* page_rows logical values */
    const uint64_t *valid;    /* NULL when every row is valid */
    uint64_t page_gen;
    /* dictionary-encoded page: indices decoded lazily, straight into the output */
    bool dict_stream;
    uint32_t page_cursor;     /* first page row whose index has not been consumed */
    pq_rle_stream ds;
    /* scratch */
    sbuf s_defs, s_idx, s_i64, s_phys, s_strs, s_dense, s_vals, s_valid;
    /* page buffers (decompressed data, materialised strings) */
    pbuf *pool; uint32_t npool, pool_cap;       /* [0, nfree) free, [nfree, npool) in use */
    uint32_t nfree;
    /* row filter: the predicates on this column (filter_rows) */
    fpred *fp;
    uint32_t nfp;
    bool null_pass;           /* a NULL passes every predicate of the column */
    bool dpass_ok;            /* dpass is computed for the current dictionary */
    sbuf dpass;               /* per dictionary entry: 1 when it passes */
} colreader;

typedef struct row_range { int64_t lo, hi; } row_range;


struct tn_parquet_scan {
    tn_parquet_file *file;
    const char *path;
    tn_fs *fs;
    tn_file *fh;
    uint64_t file_size;
    uint64_t max_page_bytes;
    bool verify;
    uint32_t ncols;
    colreader *cols;
    uint32_t *rgs; uint32_t nrgs, rg_i;
    tn_parquet_predicate *preds; uint32_t npreds;
    tn_arena *arena;          /* predicate constants */
    tn_arena *rg_arena;       /* page index of the current row group */
    /* current row group */
    bool rg_active;
    uint32_t rg;
    int64_t rg_rows, rg_first;
    row_range *ranges; uint32_t nranges, ranges_cap, range_i;
    int64_t cur;
    int failed;
    tn_parquet_scan_counters counters;
    /* row filter: column order (filter columns first), scratch of one batch */
    bool filter;
    uint32_t *order, nfcols;
    uint32_t *sel, *idx;
    uint8_t *keep;
    int64_t *ids;             /* row ids for tn_parquet_scan_next */
};

/* ---------------------------------------------------------------------------------------------
 * Buffers.
 */
static void *sbuf_get(sbuf *b, size_t size) {
    if (size == 0) size = 1;
    if (b->cap < size) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < size) cap = cap > SIZE_MAX / 2 ? size : cap * 2;
        uint8_t *p = tn_realloc(b->p, cap);
        if (!p) return NULL;
        b->p = p;
        b->cap = cap;
    }
    return b->p;
}

static uint8_t *pool_get(colreader *cr, size_t size) {
    uint32_t slot;
    if (size == 0) size = 1;
    if (cr->nfree) {
        uint32_t pick = cr->nfree - 1;
        for (uint32_t i = 0; i < cr->nfree; i++)
            if (cr->pool[i].cap >= size) { pick = i; break; }
        pbuf t = cr->pool[pick];
        cr->pool[pick] = cr->pool[cr->nfree - 1];
        cr->pool[cr->nfree - 1] = t;
        slot = --cr->nfree;                       /* now the first in-use slot */
    } else {
        if (cr->npool == cr->pool_cap) {
            uint32_t cap = cr->pool_cap ? cr->pool_cap * 2 : 8;
            pbuf *p = tn_realloc(cr->pool, cap * sizeof *p);
            if (!p) return NULL;
            cr->pool = p;
            cr->pool_cap = cap;
        }
        cr->pool[cr->npool] = (pbuf){NULL, 0, 0};
        slot = cr->npool++;
    }
    pbuf *b = &cr->pool[slot];
    b->gen = cr->page_gen;
    if (b->cap < size) {
        uint8_t *p = tn_realloc(b->p, size);
        if (!p) return NULL;
        b->p = p;
        b->cap = size;
    }
    return b->p;
}

/* Returns in-use page buffers to the free list (but those of the current page if asked). */
static void pool_release(colreader *cr, bool keep_current) {
    for (uint32_t i = cr->nfree; i < cr->npool; i++) {
        if (keep_current && cr->page_loaded && cr->pool[i].gen == cr->page_gen) continue;
        pbuf t = cr->pool[i];
        cr->pool[i] = cr->pool[cr->nfree];
        cr->pool[cr->nfree] = t;
        cr->nfree++;
    }
}

static void colreader_free(colreader *cr) {
    tn_free(cr->chunk);
    sbuf *bufs[] = {&cr->dict, &cr->dict_raw, &cr->s_defs, &cr->s_idx, &cr->s_i64, &cr->s_phys,
                    &cr->s_strs, &cr->s_dense, &cr->s_vals, &cr->s_valid, &cr->dpass};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) tn_free(bufs[i]->p);
    for (uint32_t i = 0; i < cr->npool; i++) tn_free(cr->pool[i].p);
    tn_free(cr->pool);
    tn_free(cr->fp);
}

#define NOMEM() tn_error_set(TN_ENOMEM, "out of memory")

/* ---------------------------------------------------------------------------------------------
 * Value decoding: encoded bytes -> physical dense values.
 */
static int decode_plain(colreader *cr, const uint8_t *p, size_t len, uint32_t n, pdense *pd) {
    switch (cr->phys) {
    case PQ_BOOLEAN: {
        uint8_t *out = sbuf_get(&cr->s_phys, n);
        if (!out) return NOMEM();
        int rc = pq_plain_bool_decode(p, len, 0, n, out);
        if (rc) return rc;
        pd->bools = out;
        return 0;
    }
    case PQ_BYTE_ARRAY: {
        tn_str *s = sbuf_get(&cr->s_strs, (size_t)n * sizeof(tn_str));
        if (!s) return NOMEM();
        size_t off = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (len - off < 4)
                return tn_error_set(TN_ECORRUPT, "PLAIN: BYTE_ARRAY value %u of %u runs past the "
                                    "page", i, n);
            uint32_t l = tn_load_u32le(p + off);
            off += 4;
            if (l > len - off)
                return tn_error_set(TN_ECORRUPT, "PLAIN: BYTE_ARRAY value %u (%u bytes) runs past "
                                    "the page", i, l);
            s[i].ptr = (const char *)p + off;
            s[i].len = l;
            off += l;
        }
        pd->strs = s;
        return 0;
    }
    default:
        if ((uint64_t)n * cr->pw > len)
            return tn_error_set(TN_ECORRUPT, "PLAIN: %u values of %u bytes need %llu bytes, page "
                                "has %zu", n, cr->pw, (unsigned long long)n * cr->pw, len);
        pd->fixed = p;
        return 0;
    }
}

static int decode_rle_bool(colreader *cr, const uint8_t *p, size_t len, uint32_t n, pdense *pd) {
    if (len < 4) return tn_error_set(TN_ECORRUPT, "RLE booleans: missing length prefix");
    uint32_t l = tn_load_u32le(p);
    if (l > len - 4) return tn_error_set(TN_ECORRUPT, "RLE booleans: length %u past the page", l);
    uint32_t *tmp = sbuf_get(&cr->s_idx, (size_t)n * 4);
    uint8_t *out = sbuf_get(&cr->s_phys, n);
    if (!tmp || !out) return NOMEM();
    size_t used;
    int rc = pq_rle_decode(p + 4, l, 1, tmp, n, &used);
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++) out[i] = (uint8_t)(tmp[i] & 1);
    pd->bools = out;
    return 0;
}

static int decode_delta_binary(colreader *cr, const uint8_t *p, size_t len, uint32_t n,
                               pdense *pd) {
    if (cr->phys != PQ_INT32 && cr->phys != PQ_INT64)
        return tn_error_set(TN_ECORRUPT, "DELTA_BINARY_PACKED on a non-integer column");
    int64_t *v = sbuf_get(&cr->s_i64, (size_t)n * 8);
    if (!v) return NOMEM();
    uint32_t cnt = 0;
    size_t used = 0;
    int rc = pq_delta_binary_decode(p, len, v, n, &cnt, &used, cr->phys == PQ_INT32);
    if (rc) return rc;
    if (cnt < n)
        return tn_error_set(TN_ECORRUPT, "DELTA_BINARY_PACKED: %u values, page needs %u", cnt, n);
    if (cr->phys == PQ_INT32) {
        int32_t *o = sbuf_get(&cr->s_phys, (size_t)n * 4);
        if (!o) return NOMEM();
        for (uint32_t i = 0; i < n; i++) o[i] = (int32_t)v[i];
        pd->fixed = (const uint8_t *)o;
    } else {
        pd->fixed = (const uint8_t *)v;
    }
    return 0;
}

static int decode_delta_length(colreader *cr, const uint8_t *p, size_t len, uint32_t n,
                               pdense *pd) {
    if (cr->phys != PQ_BYTE_ARRAY)
        return tn_error_set(TN_ECORRUPT, "DELTA_LENGTH_BYTE_ARRAY on a non-BYTE_ARRAY column");
    pq_delta_mem mem = {sbuf_get(&cr->s_i64, (size_t)n * 8), NULL, NULL, 0};
    tn_str *s = sbuf_get(&cr->s_strs, (size_t)n * sizeof(tn_str));
    if (!mem.lens || !s) return NOMEM();
    size_t used;
    int rc = pq_delta_length_byte_array_decode_mem(p, len, n, s, &mem, &used);
    if (rc) return rc;
    pd->strs = s;
    return 0;
}

/* DELTA_BYTE_ARRAY values are materialised in a page buffer (they live as long as the page). */
static void *pool_alloc(void *cr, size_t size) { return pool_get(cr, size); }

static int decode_delta_byte_array(colreader *cr, const uint8_t *p, size_t len, uint32_t n,
                                   uint64_t max_bytes, pdense *pd) {
    if (cr->phys != PQ_BYTE_ARRAY && cr->phys != PQ_FIXED_LEN_BYTE_ARRAY)
        return tn_error_set(TN_ECORRUPT, "DELTA_BYTE_ARRAY on a non-binary column");
    pq_delta_mem mem = {sbuf_get(&cr->s_i64, (size_t)n * 16), pool_alloc, cr, max_bytes};
    tn_str *s = sbuf_get(&cr->s_strs, (size_t)n * sizeof(tn_str));
    if (!mem.lens || !s) return NOMEM();
    size_t used;
    int rc = pq_delta_byte_array_decode_mem(p, len, n, s, &mem, &used);
    if (rc) return rc;
    if (cr->phys == PQ_BYTE_ARRAY) {
        pd->strs = s;
        return 0;
    }
    /* FIXED_LEN_BYTE_ARRAY: the values lie back to back, so n * pw bytes from the first */
    for (uint32_t i = 0; i < n; i++)
        if (s[i].len != cr->pw)
            return tn_error_set(TN_ECORRUPT, "DELTA_BYTE_ARRAY: value %u has %u bytes, column "
                                "width is %u", i, s[i].len, cr->pw);
    pd->fixed = (const uint8_t *)s[0].ptr;
    return 0;
}

static int decode_bss(colreader *cr, const uint8_t *p, size_t len, uint32_t n, pdense *pd) {
    if (cr->pw == 0)
        return tn_error_set(TN_ECORRUPT, "BYTE_STREAM_SPLIT on a variable-width column");
    if ((uint64_t)n * cr->pw > len)
        return tn_error_set(TN_ECORRUPT, "BYTE_STREAM_SPLIT: %u values of %u bytes, page has %zu",
                            n, cr->pw, len);
    uint8_t *out = cr->is_str ? pool_get(cr, (size_t)n * cr->pw)
                              : sbuf_get(&cr->s_phys, (size_t)n * cr->pw);
    if (!out) return NOMEM();
    int rc = pq_byte_stream_split_decode(p, (size_t)n * cr->pw, cr->pw, n, out);
    if (rc) return rc;
    pd->fixed = out;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Conversion: physical dense -> logical dense. *out points at the result (maybe the input).
 */
static int convert(colreader *cr, const pdense *pd, uint32_t n, const uint8_t **out) {
    const uint8_t *f = pd->fixed;
    uint8_t *d;
    switch (cr->conv) {
    case CV_BOOL: *out = pd->bools; return 0;
    case CV_I32: case CV_I64: case CV_F32: case CV_F64: *out = f; return 0;
    case CV_STR: *out = (const uint8_t *)pd->strs; return 0;
    default: break;
    }
    d = sbuf_get(&cr->s_dense, (size_t)n * cr->width);
    if (!d) return NOMEM();
    *out = d;
    switch (cr->conv) {
    case CV_I32_I8: {
        int8_t *o = (int8_t *)d;
        for (uint32_t i = 0; i < n; i++) o[i] = (int8_t)(int32_t)tn_load_u32le(f + 4 * i);
        return 0;
    }
    case CV_I32_I16: {
        int16_t *o = (int16_t *)d;
        for (uint32_t i = 0; i < n; i++) o[i] = (int16_t)(int32_t)tn_load_u32le(f + 4 * i);
        return 0;
    }
    case CV_U32_I64: {
        int64_t *o = (int64_t *)d;
        for (uint32_t i = 0; i < n; i++) o[i] = (int64_t)tn_load_u32le(f + 4 * i);
        return 0;
    }
    case CV_I32_DEC64: {
        int64_t *o = (int64_t *)d;
        for (uint32_t i = 0; i < n; i++) o[i] = (int32_t)tn_load_u32le(f + 4 * i);
        return 0;
    }
    case CV_I32_DEC128: {
        tn_int128 *o = (tn_int128 *)d;
        for (uint32_t i = 0; i < n; i++) o[i] = (int32_t)tn_load_u32le(f + 4 * i);
        return 0;
    }
    case CV_I64_MS: {
        int64_t *o = (int64_t *)d;
        for (uint32_t i = 0; i < n; i++) {
            if (__builtin_mul_overflow((int64_t)tn_load_u64le(f + 8 * i), 1000, &o[i]))
                return tn_error_set(TN_ECORRUPT, "timestamp (ms) value %u out of range", i);
        }
        return 0;
    }
    case CV_I64_NS: {
        int64_t *o = (int64_t *)d;
        for (uint32_t i = 0; i < n; i++) o[i] = (int64_t)tn_load_u64le(f + 8 * i) / 1000;
        return 0;
    }
    case CV_I64_DEC128: {
        tn_int128 *o = (tn_int128 *)d;
        for (uint32_t i = 0; i < n; i++) o[i] = (int64_t)tn_load_u64le(f + 8 * i);
        return 0;
    }
    case CV_U64_DEC128: {
        tn_int128 *o = (tn_int128 *)d;
        for (uint32_t i = 0; i < n; i++) o[i] = (tn_int128)tn_load_u64le(f + 8 * i);
        return 0;
    }
    case CV_INT96: {
        int64_t *o = (int64_t *)d;
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *q = f + 12 * i;
            int64_t nanos = (int64_t)tn_load_u64le(q);
            int64_t jd = (int32_t)tn_load_u32le(q + 8);
            /* Two's complement wrap-around in micros, as Spark writes it: int96_from_spark.md
             * row 6 (julian day -105862232) is 9089380393200000000 this way. */
            uint64_t us = (uint64_t)(jd - 2440588) * 86400000000ULL + (uint64_t)(nanos / 1000);
            o[i] = (int64_t)us;
        }
        return 0;
    }
    case CV_F16: {
        float *o = (float *)d;
        for (uint32_t i = 0; i < n; i++)
            o[i] = pq_rd_half_to_float((uint16_t)(f[2 * i] | (f[2 * i + 1] << 8)));
        return 0;
    }
    case CV_FIXED_STR: {
        tn_str *o = (tn_str *)d;
        for (uint32_t i = 0; i < n; i++) {
            o[i].ptr = (const char *)f + (size_t)i * cr->pw;
            o[i].len = cr->pw;
        }
        return 0;
    }
    case CV_FIXED_DEC64: case CV_FIXED_DEC128: case CV_STR_DEC64: case CV_STR_DEC128: {
        bool is128 = cr->conv == CV_FIXED_DEC128 || cr->conv == CV_STR_DEC128;
        bool fixed = cr->conv == CV_FIXED_DEC64 || cr->conv == CV_FIXED_DEC128;
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *q = fixed ? f + (size_t)i * cr->pw : (const uint8_t *)pd->strs[i].ptr;
            size_t l = fixed ? cr->pw : pd->strs[i].len;
            tn_int128 v;
            if (!pq_rd_be_to_i128(q, l, &v) || (!is128 && (v > INT64_MAX || v < INT64_MIN)))
                return tn_error_set(TN_ECORRUPT, "DECIMAL value %u does not fit DECIMAL(%u,%u)",
                                    i, cr->type.precision, cr->type.scale);
            if (is128) ((tn_int128 *)d)[i] = v;
            else ((int64_t *)d)[i] = (int64_t)v;
        }
        return 0;
    }
    default:
        return tn_error_set(TN_EINTERNAL, "parquet scan: bad conversion %d", cr->conv);
    }
}

/* Copies w-byte elements: dst[i] = src[idx[i]]. */
static void gather(uint8_t *dst, const uint8_t *src, const uint32_t *idx, uint32_t n, uint32_t w) {
#define GATHER(T)                                                              \
    do {                                                                       \
        T *d_ = (T *)dst;                                                      \
        const T *s_ = (const T *)src;                                          \
        for (uint32_t i = 0; i < n; i++) d_[i] = s_[idx[i]];                   \
    } while (0)
    switch (w) {
    case 1: GATHER(uint8_t); break;
    case 2: GATHER(uint16_t); break;
    case 4: GATHER(uint32_t); break;
    case 8: GATHER(uint64_t); break;
    case 16: {
        typedef struct { uint64_t a, b; } u128;
        GATHER(u128);
        break;
    }
    default:
        for (uint32_t i = 0; i < n; i++) memcpy(dst + (size_t)i * w, src + (size_t)idx[i] * w, w);
    }
#undef GATHER
}

/* Spreads n_valid dense values over n rows according to the validity bitmap (nulls zeroed). */
static void spread(uint8_t *dst, const uint8_t *src, const uint64_t *valid, uint32_t n, uint32_t w) {
#define SPREAD(W)                                                              \
    do {                                                                       \
        size_t k_ = 0;                                                         \
        for (uint32_t r = 0; r < n; r++) {                                     \
            if ((valid[r >> 6] >> (r & 63)) & 1) {                             \
                memcpy(dst + (size_t)r * (W), src + k_ * (W), (W));            \
                k_++;                                                          \
            } else {                                                           \
                memset(dst + (size_t)r * (W), 0, (W));                         \
            }                                                                  \
        }                                                                      \
    } while (0)
    switch (w) {
    case 1: SPREAD(1); break;
    case 2: SPREAD(2); break;
    case 4: SPREAD(4); break;
    case 8: SPREAD(8); break;
    case 16: SPREAD(16); break;
    default: SPREAD(w); break;
    }
#undef SPREAD
}

/* ---------------------------------------------------------------------------------------------
 * Pages.
 */

/* Decodes definition levels (width 1) into the page validity bitmap. *nn = non-null count. */
static int decode_defs(colreader *cr, const uint8_t *p, size_t len, uint32_t n, uint32_t *nn) {
    pq_rle_stream r;
    pq_rle_init(&r, p, len, 1);
    cr->valid = NULL;
    int rc = pq_rle_next_run(&r);
    if (rc) return tn_error_prefix(rc, "definition levels");
    if (!r.packed && r.value == 1 && r.left >= n) {       /* the common case: no nulls */
        *nn = n;
        return 0;
    }
    size_t words = ((size_t)n + 63) / 64;
    uint64_t *bits = sbuf_get(&cr->s_valid, words * 8 + 8);
    uint32_t *tmp = sbuf_get(&cr->s_defs, 64 * 4);
    if (!bits || !tmp) return NOMEM();
    memset(bits, 0, words * 8);
    uint32_t row = 0, cnt = 0;
    while (row < n) {
        if (r.left == 0) {
            rc = pq_rle_next_run(&r);
            if (rc) return tn_error_prefix(rc, "definition levels");
        }
        uint32_t take = r.left < n - row ? r.left : n - row;
        if (!r.packed) {
            if (r.value > 1)
                return tn_error_set(TN_ECORRUPT, "definition level %u in a flat column", r.value);
            if (r.value == 1) {
                for (uint32_t i = row; i < row + take; i++) bits[i >> 6] |= (uint64_t)1 << (i & 63);
                cnt += take;
            }
            r.left -= take;
        } else {
            for (uint32_t done = 0; done < take;) {
                uint32_t k = take - done < 64 ? take - done : 64;
                pq_rle_unpack(&r, tmp, k);
                for (uint32_t i = 0; i < k; i++) {
                    uint32_t rr = row + done + i;
                    bits[rr >> 6] |= (uint64_t)(tmp[i] & 1) << (rr & 63);
                    cnt += tmp[i] & 1;
                }
                done += k;
            }
        }
        row += take;
    }
    *nn = cnt;
    if (cnt < n) cr->valid = bits;
    return 0;
}

/* Decodes the next k dictionary indices of the page and writes dict[index] to dst (k values of
 * cr->width bytes). dst NULL: skip them. */
static int dict_take(colreader *cr, uint8_t *dst, uint32_t k) {
    pq_rle_stream *r = &cr->ds;
    const uint32_t w = cr->width, cnt = cr->dict_count;
    const uint8_t *dict = cr->dict.p;
    uint32_t *idx = NULL;
    while (k > 0) {
        if (r->left == 0) {
            int rc = pq_rle_next_run(r);
            if (rc) return tn_error_prefix(rc, "dictionary indices");
        }
        uint32_t take = r->left < k ? r->left : k;
        if (!r->packed) {
            if (dst) {
                if (r->value >= cnt)
                    return tn_error_set(TN_ECORRUPT, "dictionary index %u out of range (dictionary "
                                        "has %u entries)", r->value, cnt);
                const uint8_t *src = dict + (size_t)r->value * w;
                switch (w) {
                case 1: memset(dst, src[0], take); break;
                case 4: {
                    uint32_t v;
                    memcpy(&v, src, 4);
                    uint32_t *d = (uint32_t *)dst;
                    for (uint32_t i = 0; i < take; i++) d[i] = v;
                    break;
                }
                case 8: {
                    uint64_t v;
                    memcpy(&v, src, 8);
                    uint64_t *d = (uint64_t *)dst;
                    for (uint32_t i = 0; i < take; i++) d[i] = v;
                    break;
                }
                default:
                    for (uint32_t i = 0; i < take; i++) memcpy(dst + (size_t)i * w, src, w);
                }
                dst += (size_t)take * w;
            }
            r->left -= take;
        } else if (!dst) {
            pq_rle_skip(r, take);
        } else {
            if (!idx) {
                idx = sbuf_get(&cr->s_idx, (size_t)TN_VECTOR_SIZE * 4);
                if (!idx) return NOMEM();
            }
            if (take > TN_VECTOR_SIZE) take = TN_VECTOR_SIZE;
            pq_rle_unpack(r, idx, take);
            uint32_t bad = 0;
            if (r->bw <= cr->dict_bits) {
                /* every index < 1 << dict_bits: gather first, check in the same pass */
#define GATHER_CHECKED(T)                                                                  \
    do {                                                                                   \
        T *d_ = (T *)dst;                                                                  \
        const T *s_ = (const T *)dict;                                                     \
        for (uint32_t i = 0; i < take; i++) {                                              \
            uint32_t x_ = idx[i];                                                          \
            bad |= x_ >= cnt;                                                              \
            d_[i] = s_[x_];                                                                \
        }                                                                                  \
    } while (0)
                switch (w) {
                case 1: GATHER_CHECKED(uint8_t); break;
                case 2: GATHER_CHECKED(uint16_t); break;
                case 4: GATHER_CHECKED(uint32_t); break;
                case 8: GATHER_CHECKED(uint64_t); break;
                default:
                    for (uint32_t i = 0; i < take; i++) bad |= idx[i] >= cnt;
                    if (!bad) gather(dst, dict, idx, take, w);
                }
#undef GATHER_CHECKED
            } else {
                for (uint32_t i = 0; i < take; i++) bad |= idx[i] >= cnt;
                if (!bad) gather(dst, dict, idx, take, w);
            }
            if (bad) {
                uint32_t mx = 0;
                for (uint32_t i = 0; i < take; i++) mx = idx[i] > mx ? idx[i] : mx;
                return tn_error_set(TN_ECORRUPT, "dictionary index %u out of range (dictionary "
                                    "has %u entries)", mx, cnt);
            }
            dst += (size_t)take * w;
        }
        k -= take;
    }
    return 0;
}

static uint32_t count_valid(const uint64_t *bits, uint32_t from, uint32_t to) {
    uint32_t c = 0;
    while (from < to && (from & 63)) { c += (bits[from >> 6] >> (from & 63)) & 1; from++; }
    while (from + 64 <= to) { c += (uint32_t)__builtin_popcountll(bits[from >> 6]); from += 64; }
    while (from < to) { c += (bits[from >> 6] >> (from & 63)) & 1; from++; }
    return c;
}

/* Decompresses a page body into a pooled buffer; data with len==0 never reaches the codec. */
static int page_data(tn_parquet_scan *s, colreader *cr, const uint8_t *src, size_t slen,
                     size_t ulen, bool compressed, const uint8_t **out, size_t *out_len) {
    if (!compressed || cr->cm->codec == TN_CODEC_UNCOMPRESSED) {
        *out = src;
        *out_len = slen;
        return 0;
    }
    if (slen == 0) {
        if (ulen != 0)
            return tn_error_set(TN_ECORRUPT, "empty compressed page claims %zu bytes", ulen);
        *out = src;
        *out_len = 0;
        return 0;
    }
    uint8_t *dst = pool_get(cr, ulen);
    if (!dst) return NOMEM();
    int rc = pq_decompress(cr->cm->codec, src, slen, dst, ulen);
    if (rc) return rc;
    *out = dst;
    *out_len = ulen;
    return 0;
}

/* Decodes the values section (n_nonnull values) of a data page into logical dense values. */
static int decode_values(tn_parquet_scan *s, colreader *cr, int encoding, const uint8_t *p,
                         size_t len, uint32_t nn, const uint8_t **dense) {
    pdense pd = {NULL, NULL, NULL};
    int rc;
    if (nn == 0) {
        *dense = NULL;
        return 0;
    }
    switch (encoding) {
    case PQ_ENC_PLAIN:
        rc = decode_plain(cr, p, len, nn, &pd);
        break;
    case PQ_ENC_RLE:
        if (cr->phys != PQ_BOOLEAN)
            return tn_error_set(TN_EUNSUPPORTED, "RLE value encoding on a non-boolean column");
        rc = decode_rle_bool(cr, p, len, nn, &pd);
        break;
    case PQ_ENC_DELTA_BINARY_PACKED:
        rc = decode_delta_binary(cr, p, len, nn, &pd);
        break;
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
        rc = decode_delta_length(cr, p, len, nn, &pd);
        break;
    case PQ_ENC_DELTA_BYTE_ARRAY:
        rc = decode_delta_byte_array(cr, p, len, nn, s->max_page_bytes, &pd);
        break;
    case PQ_ENC_BYTE_STREAM_SPLIT:
        rc = decode_bss(cr, p, len, nn, &pd);
        break;
    default:
        return tn_error_set(TN_EUNSUPPORTED, "value encoding %d is not supported", encoding);
    }
    if (rc) return rc;
    return convert(cr, &pd, nn, dense);
}

static int load_dictionary(tn_parquet_scan *s, colreader *cr, const pq_page_header *h,
                           const uint8_t *body) {
    if (!h->has_dictionary) return tn_error_set(TN_ECORRUPT, "dictionary page without header");
    if (cr->seen_data || cr->has_dict)
        return tn_error_set(TN_ECORRUPT, "dictionary page after the first page");
    int32_t n = h->dictionary.num_values;
    if (n < 0) return tn_error_set(TN_ECORRUPT, "dictionary with %d entries", (int)n);
    if (h->dictionary.encoding != PQ_ENC_PLAIN && h->dictionary.encoding != PQ_ENC_PLAIN_DICTIONARY)
        return tn_error_set(TN_EUNSUPPORTED, "dictionary page encoding %d",
                            h->dictionary.encoding);
    const uint8_t *data = body;
    size_t len = (size_t)h->compressed_page_size;
    if (cr->cm->codec != TN_CODEC_UNCOMPRESSED && len > 0) {
        uint8_t *dst = sbuf_get(&cr->dict_raw, (size_t)h->uncompressed_page_size);
        if (!dst) return NOMEM();
        int rc = pq_decompress(cr->cm->codec, body, len, dst, (size_t)h->uncompressed_page_size);
        if (rc) return rc;
        data = dst;
        len = (size_t)h->uncompressed_page_size;
    }
    pdense pd = {NULL, NULL, NULL};
    const uint8_t *dense = NULL;
    if (n > 0) {
        int rc = decode_plain(cr, data, len, (uint32_t)n, &pd);
        if (rc) return tn_error_prefix(rc, "dictionary page");
        rc = convert(cr, &pd, (uint32_t)n, &dense);
        if (rc) return tn_error_prefix(rc, "dictionary page");
    }
    /* padded to a power of two so that indices of up to dict_bits bits can be gathered before
     * they are checked (dict_take) */
    int bits = n > 1 ? pq_bit_width((uint64_t)n - 1) : 0;
    size_t padded = (size_t)1 << bits;
    uint8_t *d = sbuf_get(&cr->dict, padded * cr->width);
    if (!d) return NOMEM();
    if (n > 0) memcpy(d, dense, (size_t)n * cr->width);
    memset(d + (size_t)n * cr->width, 0, (padded - (size_t)n) * cr->width);
    cr->dict_bits = bits;
    cr->dict_count = (uint32_t)n;
    cr->has_dict = true;
    cr->dpass_ok = false;
    return 0;
}

/* Decodes data page h (rows) into cr->vals / cr->valid. */
static int load_data_page(tn_parquet_scan *s, colreader *cr, const pq_page_header *h,
                          const uint8_t *body, uint32_t rows) {
    size_t csize = (size_t)h->compressed_page_size, usize = (size_t)h->uncompressed_page_size;
    const uint8_t *vp;
    size_t vlen;
    uint32_t n = rows, nn = n;
    int encoding, rc;
    cr->valid = NULL;
    if (h->type == PQ_PAGE_DATA) {
        encoding = h->data.encoding;
        rc = page_data(s, cr, body, csize, usize, true, &vp, &vlen);
        if (rc) return rc;
        if (cr->max_def > 0) {
            if (h->data.definition_level_encoding != PQ_ENC_RLE)
                return tn_error_set(TN_EUNSUPPORTED, "definition level encoding %d is not "
                                    "supported", h->data.definition_level_encoding);
            if (vlen < 4) return tn_error_set(TN_ECORRUPT, "definition levels: missing length");
            uint32_t dl = tn_load_u32le(vp);
            if (dl > vlen - 4)
                return tn_error_set(TN_ECORRUPT, "definition levels: length %u past the page", dl);
            rc = decode_defs(cr, vp + 4, dl, n, &nn);
            if (rc) return rc;
            vp += 4 + dl;
            vlen -= 4 + (size_t)dl;
        }
    } else {
        const pq_data_page_header_v2 *v2 = &h->data_v2;
        encoding = v2->encoding;
        if (v2->repetition_levels_byte_length < 0 || v2->definition_levels_byte_length < 0 ||
            (uint64_t)v2->repetition_levels_byte_length +
                    (uint64_t)v2->definition_levels_byte_length > csize ||
            (uint64_t)v2->repetition_levels_byte_length +
                    (uint64_t)v2->definition_levels_byte_length > usize)
            return tn_error_set(TN_ECORRUPT, "v2 level lengths exceed the page");
        size_t skip = (size_t)v2->repetition_levels_byte_length;
        size_t dl = (size_t)v2->definition_levels_byte_length;
        if (cr->max_def > 0) {
            rc = decode_defs(cr, body + skip, dl, n, &nn);
            if (rc) return rc;
        }
        skip += dl;
        rc = page_data(s, cr, body + skip, csize - skip, usize - skip, v2->is_compressed, &vp,
                       &vlen);
        if (rc) return rc;
    }
    cr->dict_stream = false;
    if (encoding == PQ_ENC_PLAIN_DICTIONARY || encoding == PQ_ENC_RLE_DICTIONARY) {
        if (!cr->has_dict)
            return tn_error_set(TN_ECORRUPT, "dictionary-encoded page without a dictionary page");
        int bw = 0;
        if (nn > 0) {
            if (vlen < 1) return tn_error_set(TN_ECORRUPT, "dictionary indices: missing bit width");
            bw = vp[0];
            if (bw > 32)
                return tn_error_set(TN_ECORRUPT, "dictionary indices: bit width %d too large", bw);
            vp++;
            vlen--;
        }
        pq_rle_init(&cr->ds, vp, vlen, bw);
        cr->dict_stream = true;
        cr->page_cursor = 0;
        cr->vals = NULL;
        return 0;
    }
    const uint8_t *dense = NULL;
    rc = decode_values(s, cr, encoding, vp, vlen, nn, &dense);
    if (rc) return rc;
    if (cr->valid) {
        uint8_t *v = sbuf_get(&cr->s_vals, (size_t)n * cr->width);
        if (!v) return NOMEM();
        spread(v, dense, cr->valid, n, cr->width);
        cr->vals = v;
    } else {
        cr->vals = dense;
    }
    return 0;
}

/* Advances to the data page holding row `row` (in the row group), decoding it. */
static int load_page(tn_parquet_scan *s, colreader *cr, int64_t row) {
    for (;;) {
        if (cr->pos >= cr->chunk_len)
            return tn_error_set(TN_ECORRUPT, "column chunk ends at row %lld, row group has %lld "
                                "rows", (long long)cr->next_row, (long long)s->rg_rows);
        pq_page_header h;
        size_t hlen = 0;
        uint32_t page_no = cr->page_no++;
        int rc = pq_decode_page_header(&h, cr->chunk + cr->pos, cr->chunk_len - cr->pos, &hlen);
        if (rc) return tn_error_prefix(rc, "page %u: header", page_no);
        if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0 ||
            (uint64_t)h.compressed_page_size > cr->chunk_len - cr->pos - hlen)
            return tn_error_set(TN_ECORRUPT, "page %u: %d bytes at offset %zu run past the column "
                                "chunk (%zu bytes)", page_no, (int)h.compressed_page_size,
                                cr->pos + hlen, cr->chunk_len);
        if ((uint64_t)h.uncompressed_page_size > s->max_page_bytes)
            return tn_error_set(TN_ELIMIT, "page %u: %d bytes uncompressed exceeds the limit of "
                                "%llu", page_no, (int)h.uncompressed_page_size,
                                (unsigned long long)s->max_page_bytes);
        const uint8_t *body = cr->chunk + cr->pos + hlen;
        cr->pos += hlen + (size_t)h.compressed_page_size;
        bool is_data = (h.type == PQ_PAGE_DATA && h.has_data) ||
                       (h.type == PQ_PAGE_DATA_V2 && h.has_data_v2);
        if (h.type == PQ_PAGE_DATA && !h.has_data)
            return tn_error_set(TN_ECORRUPT, "page %u: data page without header", page_no);
        if (h.type == PQ_PAGE_DATA_V2 && !h.has_data_v2)
            return tn_error_set(TN_ECORRUPT, "page %u: v2 data page without header", page_no);
        if (h.type != PQ_PAGE_DICTIONARY && !is_data) continue;   /* index / unknown pages */
        if (h.type == PQ_PAGE_DICTIONARY) {
            if (h.has_crc && s->verify) {
                uint32_t c = tn_crc32(0, body, (size_t)h.compressed_page_size);
                if (c != (uint32_t)h.crc)
                    return tn_error_set(TN_ECHECKSUM, "page %u (dictionary): CRC mismatch "
                                        "(stored %08x, computed %08x)", page_no, (uint32_t)h.crc, c);
            }
            s->counters.pages_read++;
            rc = load_dictionary(s, cr, &h, body);
            if (rc) return tn_error_prefix(rc, "page %u", page_no);
            continue;
        }
        int32_t nv = h.type == PQ_PAGE_DATA ? h.data.num_values : h.data_v2.num_values;
        if (h.type == PQ_PAGE_DATA_V2 && h.data_v2.num_rows != nv)
            return tn_error_set(TN_ECORRUPT, "page %u: v2 page has %d rows but %d values in a "
                                "flat column", page_no, (int)h.data_v2.num_rows, (int)nv);
        if (nv < 0 || nv > s->rg_rows - cr->next_row)
            return tn_error_set(TN_ECORRUPT, "page %u: %d values exceed the row group's %lld "
                                "rows", page_no, (int)nv, (long long)s->rg_rows);
        if ((uint64_t)nv * 16 > s->max_page_bytes * 4)
            return tn_error_set(TN_ELIMIT, "page %u: %d values exceed the page limit", page_no,
                                (int)nv);
        cr->seen_data = true;
        int64_t first = cr->next_row;
        cr->next_row += nv;
        if (first + nv <= row) {                    /* not needed: skip without decoding */
            s->counters.pages_skipped++;
            continue;
        }
        if (h.has_crc && s->verify) {
            uint32_t c = tn_crc32(0, body, (size_t)h.compressed_page_size);
            if (c != (uint32_t)h.crc)
                return tn_error_set(TN_ECHECKSUM, "page %u: CRC mismatch (stored %08x, computed "
                                    "%08x)", page_no, (uint32_t)h.crc, c);
        }
        /* the previous page's buffers are unreferenced unless strings point into them */
        if (!cr->is_str) pool_release(cr, false);
        cr->page_gen++;
        cr->page_loaded = true;
        cr->page_first = first;
        cr->page_rows = (uint32_t)nv;
        rc = load_data_page(s, cr, &h, body, (uint32_t)nv);
        if (rc) {
            cr->page_loaded = false;
            return tn_error_prefix(rc, "page %u", page_no);
        }
        s->counters.pages_read++;
        return 0;
    }
}

/* Copies rows [from, from+n) of the current page into v at row `at`. */
static int copy_out_dict(colreader *cr, uint32_t from, uint32_t n, tn_vector *v, uint32_t at) {
    size_t w = cr->width;
    int rc;
    if (from < cr->page_cursor)
        return tn_error_set(TN_EINTERNAL, "parquet scan: page rows read backwards");
    if (from > cr->page_cursor) {                 /* rows skipped inside the page */
        uint32_t skip = cr->valid ? count_valid(cr->valid, cr->page_cursor, from)
                                  : from - cr->page_cursor;
        rc = dict_take(cr, NULL, skip);
        if (rc) return rc;
    }
    uint8_t *dst = (uint8_t *)v->data + (size_t)at * w;
    if (!cr->valid) {
        rc = dict_take(cr, dst, n);
        if (rc) return rc;
    } else {
        uint32_t k = count_valid(cr->valid, from, from + n);
        uint8_t *tmp = sbuf_get(&cr->s_dense, (size_t)(k ? k : 1) * w);
        if (!tmp) return NOMEM();
        rc = dict_take(cr, tmp, k);
        if (rc) return rc;
        rc = tn_vector_ensure_validity(v);
        if (rc) return rc;
        size_t j = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = from + i;
            if ((cr->valid[r >> 6] >> (r & 63)) & 1) {
                memcpy(dst + (size_t)i * w, tmp + j * w, w);
                j++;
            } else {
                memset(dst + (size_t)i * w, 0, w);
                tn_vector_set_valid_bit(v, at + i, false);
            }
        }
    }
    cr->page_cursor = from + n;
    return 0;
}

static int copy_out(colreader *cr, uint32_t from, uint32_t n, tn_vector *v, uint32_t at) {
    size_t w = cr->width;
    if (n == 0) return 0;
    if (cr->dict_stream) return copy_out_dict(cr, from, n, v, at);
    memcpy((uint8_t *)v->data + (size_t)at * w, cr->vals + (size_t)from * w, (size_t)n * w);
    if (cr->valid) {
        int rc = tn_vector_ensure_validity(v);
        if (rc) return rc;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = from + i;
            if (!((cr->valid[r >> 6] >> (r & 63)) & 1)) tn_vector_set_valid_bit(v, at + i, false);
        }
    }
    return 0;
}

static int fill_column(tn_parquet_scan *s, colreader *cr, int64_t row, uint32_t n, tn_vector *v) {
    uint32_t off = 0;
    while (off < n) {
        int64_t r = row + off;
        if (!cr->page_loaded || r >= cr->page_first + cr->page_rows) {
            int rc = load_page(s, cr, r);
            if (rc) return rc;
        }
        if (r < cr->page_first)
            return tn_error_set(TN_EINTERNAL, "parquet scan: row %lld before page start %lld",
                                (long long)r, (long long)cr->page_first);
        int64_t avail = cr->page_first + cr->page_rows - r;
        uint32_t take = (uint32_t)(avail < (int64_t)(n - off) ? avail : (int64_t)(n - off));
        int rc = copy_out(cr, (uint32_t)(r - cr->page_first), take, v, off);
        if (rc) return rc;
        off += take;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Row filter (filter_rows): the filter columns of a batch are decoded and tested first (on
 * dictionary pages through a per-entry pass table), then the other columns are decoded for the
 * surviving rows only.
 */
#define IDX_PLAIN UINT32_MAX            /* the row's value did not come from the dictionary */
#define IDX_NULL (UINT32_MAX - 1)

static inline void put_val(uint8_t *dst, const uint8_t *src, uint32_t w) {
    switch (w) {
    case 1: *dst = *src; break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, w); break;
    }
}

/* Whether the filter can test values of type t against p (constant of the same type). */
static bool filter_supported(tn_type t, const fpred *p) {
    switch (t.id) {
    case TN_TYPE_BOOLEAN: case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER:
    case TN_TYPE_BIGINT: case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: case TN_TYPE_DECIMAL:
    case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY: case TN_TYPE_DATE: case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ:
        break;
    default:
        return false;
    }
    if (p->in) {
        for (uint32_t i = 0; i < p->nvalues; i++)
            if (p->values[i].is_null || !tn_type_equal(p->values[i].type, t)) return false;
        return true;
    }
    switch (p->op) {
    case TN_PQ_IS_NULL: case TN_PQ_IS_NOT_NULL: return true;
    case TN_PQ_EQ: case TN_PQ_NE: case TN_PQ_LT: case TN_PQ_LE: case TN_PQ_GT: case TN_PQ_GE:
        return !p->constant.is_null && tn_type_equal(p->constant.type, t);
    default: return false;
    }
}

#define CMP3(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

/* Compares the value at v (logical form, type t) with c. *unsure: floats that are NaN or zero
 * (SQL equality of -0.0/+0.0 and NaN is left to the caller's filter). */
static int cmp_raw(tn_type t, const uint8_t *v, const tn_value *c, bool *unsure) {
    switch (t.id) {
    case TN_TYPE_BOOLEAN: return CMP3((int)(*v != 0), (int)c->u.b);
    case TN_TYPE_TINYINT: return CMP3((int64_t)(int8_t)*v, c->u.i);
    case TN_TYPE_SMALLINT: { int16_t x; memcpy(&x, v, 2); return CMP3((int64_t)x, c->u.i); }
    case TN_TYPE_INTEGER: case TN_TYPE_DATE: { int32_t x; memcpy(&x, v, 4); return CMP3((int64_t)x, c->u.i); }
    case TN_TYPE_BIGINT: case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: {
        int64_t x;
        memcpy(&x, v, 8);
        return CMP3(x, c->u.i);
    }
    case TN_TYPE_DECIMAL:
        if (tn_type_is_decimal128(t)) {
            tn_int128 x;
            memcpy(&x, v, 16);
            return CMP3(x, c->u.i128);
        } else {
            int64_t x;
            memcpy(&x, v, 8);
            return CMP3(x, c->u.i);
        }
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: {
        double x;
        if (t.id == TN_TYPE_FLOAT) { float f; memcpy(&f, v, 4); x = f; }
        else memcpy(&x, v, 8);
        if (x != x || x == 0 || c->u.d != c->u.d) { *unsure = true; return 0; }
        return CMP3(x, c->u.d);
    }
    case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY: {
        tn_str a;
        memcpy(&a, v, sizeof a);
        uint32_t n = a.len < c->u.s.len ? a.len : c->u.s.len;
        int r = n ? memcmp(a.ptr, c->u.s.ptr, n) : 0;
        if (r) return r < 0 ? -1 : 1;
        return CMP3(a.len, c->u.s.len);
    }
    default:
        *unsure = true;
        return 0;
    }
}

/* Whether the non-NULL value at v may pass every predicate of cr. */
static bool pass_value(const colreader *cr, const uint8_t *v) {
    for (uint32_t i = 0; i < cr->nfp; i++) {
        const fpred *p = &cr->fp[i];
        bool unsure = false, ok;
        int c;
        if (p->in) {
            ok = false;
            for (uint32_t k = 0; k < p->nvalues && !ok; k++) {
                unsure = false;
                ok = cmp_raw(cr->type, v, &p->values[k], &unsure) == 0 || unsure;
            }
            if (!ok) return false;
            continue;
        }
        switch (p->op) {
        case TN_PQ_IS_NULL: return false;
        case TN_PQ_IS_NOT_NULL: continue;
        default: break;
        }
        c = cmp_raw(cr->type, v, &p->constant, &unsure);
        if (unsure) continue;
        switch (p->op) {
        case TN_PQ_EQ: ok = c == 0; break;
        case TN_PQ_NE: ok = c != 0; break;
        case TN_PQ_LT: ok = c < 0; break;
        case TN_PQ_LE: ok = c <= 0; break;
        case TN_PQ_GT: ok = c > 0; break;
        case TN_PQ_GE: ok = c >= 0; break;
        default: ok = true; break;
        }
        if (!ok) return false;
    }
    return true;
}

/* The pass table of the current dictionary (computed once per dictionary). */
static int dict_pass(colreader *cr, const uint8_t **out) {
    if (!cr->dpass_ok) {
        size_t n = (size_t)1 << cr->dict_bits;
        uint8_t *d = sbuf_get(&cr->dpass, n);
        if (!d) return NOMEM();
        memset(d, 0, n);
        for (uint32_t i = 0; i < cr->dict_count; i++)
            d[i] = pass_value(cr, cr->dict.p + (size_t)i * cr->width);
        cr->dpass_ok = true;
    }
    *out = cr->dpass.p;
    return 0;
}

/* Decodes the next k dictionary indices of the page into out, checked against the dictionary. */
static int dict_idx(colreader *cr, uint32_t *out, uint32_t k) {
    pq_rle_stream *r = &cr->ds;
    const uint32_t cnt = cr->dict_count;
    uint32_t bad = 0;
    while (k > 0) {
        if (r->left == 0) {
            int rc = pq_rle_next_run(r);
            if (rc) return tn_error_prefix(rc, "dictionary indices");
        }
        uint32_t take = r->left < k ? r->left : k;
        if (!r->packed) {
            uint32_t x = r->value;
            bad |= x >= cnt;
            for (uint32_t i = 0; i < take; i++) out[i] = x;
            r->left -= take;
        } else {
            pq_rle_unpack(r, out, take);
            for (uint32_t i = 0; i < take; i++) bad |= out[i] >= cnt;
        }
        out += take;
        k -= take;
    }
    if (bad) return tn_error_set(TN_ECORRUPT, "dictionary index out of range (dictionary has %u "
                                 "entries)", cnt);
    return 0;
}

/* Dictionary page: values of page rows prow[0..k) (ascending, >= page_cursor) to v at `at`;
 * idx (may be NULL) receives each row's dictionary index (IDX_NULL for NULLs). */
static int dict_sel(colreader *cr, const uint32_t *prow, uint32_t k, tn_vector *v, uint32_t at,
                    uint32_t *idx) {
    const uint32_t w = cr->width;
    const uint8_t *dict = cr->dict.p;
    uint8_t *dst = (uint8_t *)v->data + (size_t)at * w;
    uint32_t first = prow[0], last = prow[k - 1];
    int rc;
    if (first < cr->page_cursor || last >= cr->page_rows)
        return tn_error_set(TN_EINTERNAL, "parquet scan: page rows read backwards");
    if (first > cr->page_cursor) {
        uint32_t skip = cr->valid ? count_valid(cr->valid, cr->page_cursor, first)
                                  : first - cr->page_cursor;
        rc = dict_take(cr, NULL, skip);
        if (rc) return rc;
    }
    if (cr->valid) {
        rc = tn_vector_ensure_validity(v);
        if (rc) return rc;
    }
    uint32_t span = last + 1 - first;
    if ((uint64_t)k * 8 >= span) {                /* dense: decode every index of the span */
        uint32_t nv = cr->valid ? count_valid(cr->valid, first, last + 1) : span;
        uint32_t *tmp = sbuf_get(&cr->s_idx, (size_t)(nv ? nv : 1) * 4);
        if (!tmp) return NOMEM();
        rc = dict_idx(cr, tmp, nv);
        if (rc) return rc;
        if (!cr->valid) {
            for (uint32_t j = 0; j < k; j++) {
                uint32_t x = tmp[prow[j] - first];
                put_val(dst + (size_t)j * w, dict + (size_t)x * w, w);
                if (idx) idx[j] = x;
            }
        } else {
            uint32_t ord = 0, r = first;
            for (uint32_t j = 0; j < k; j++) {
                ord += count_valid(cr->valid, r, prow[j]);
                r = prow[j];
                if ((cr->valid[r >> 6] >> (r & 63)) & 1) {
                    uint32_t x = tmp[ord];
                    put_val(dst + (size_t)j * w, dict + (size_t)x * w, w);
                    tn_vector_set_valid_bit(v, at + j, true);
                    if (idx) idx[j] = x;
                } else {
                    memset(dst + (size_t)j * w, 0, w);
                    tn_vector_set_valid_bit(v, at + j, false);
                    if (idx) idx[j] = IDX_NULL;
                }
            }
        }
    } else {                                      /* sparse: skip the gaps */
        uint32_t cur = first;
        for (uint32_t j = 0; j < k; j++) {
            uint32_t r = prow[j];
            if (r > cur) {
                rc = dict_take(cr, NULL, cr->valid ? count_valid(cr->valid, cur, r) : r - cur);
                if (rc) return rc;
            }
            cur = r + 1;
            if (cr->valid && !((cr->valid[r >> 6] >> (r & 63)) & 1)) {
                memset(dst + (size_t)j * w, 0, w);
                tn_vector_set_valid_bit(v, at + j, false);
                if (idx) idx[j] = IDX_NULL;
                continue;
            }
            uint32_t x;
            rc = dict_idx(cr, &x, 1);
            if (rc) return rc;
            put_val(dst + (size_t)j * w, dict + (size_t)x * w, w);
            if (cr->valid) tn_vector_set_valid_bit(v, at + j, true);
            if (idx) idx[j] = x;
        }
    }
    cr->page_cursor = last + 1;
    return 0;
}

/* Values of the rows row0 + sel[0..m) (row-group rows, ascending) to v at `at`; idx as in
 * dict_sel (IDX_PLAIN for rows of non-dictionary pages; may be NULL). */
static int take_sel(tn_parquet_scan *s, colreader *cr, int64_t row0, const uint32_t *sel,
                    uint32_t m, tn_vector *v, uint32_t at, uint32_t *idx, uint32_t *prow) {
    const uint32_t w = cr->width;
    uint32_t i = 0;
    if (v->validity)          /* rows compacted away earlier in this call may have left NULLs */
        for (uint32_t q = at; q < at + m; q++) tn_vector_set_valid_bit(v, q, true);
    while (i < m) {
        int64_t r = row0 + sel[i];
        if (!cr->page_loaded || r >= cr->page_first + cr->page_rows) {
            int rc = load_page(s, cr, r);
            if (rc) return rc;
        }
        if (r < cr->page_first)
            return tn_error_set(TN_EINTERNAL, "parquet scan: row %lld before page start %lld",
                                (long long)r, (long long)cr->page_first);
        int64_t end = cr->page_first + cr->page_rows;
        uint32_t j = i;
        while (j < m && row0 + sel[j] < end) {
            prow[j - i] = (uint32_t)(row0 + sel[j] - cr->page_first);
            j++;
        }
        uint32_t k = j - i;
        bool contiguous = prow[k - 1] - prow[0] == k - 1;
        if (cr->dict_stream && (idx || !contiguous)) {
            int rc = dict_sel(cr, prow, k, v, at + i, idx ? idx + i : NULL);
            if (rc) return rc;
        } else if (contiguous) {
            int rc = copy_out(cr, prow[0], k, v, at + i);
            if (rc) return rc;
            if (idx) for (uint32_t q = i; q < j; q++) idx[q] = IDX_PLAIN;
        } else {
            uint8_t *dst = (uint8_t *)v->data + (size_t)(at + i) * w;
            if (cr->valid) {
                int rc = tn_vector_ensure_validity(v);
                if (rc) return rc;
            }
            for (uint32_t q = 0; q < k; q++) {
                uint32_t pr = prow[q];
                put_val(dst + (size_t)q * w, cr->vals + (size_t)pr * w, w);
                if (cr->valid)
                    tn_vector_set_valid_bit(v, at + i + q, (cr->valid[pr >> 6] >> (pr & 63)) & 1);
            }
            if (idx) for (uint32_t q = i; q < j; q++) idx[q] = IDX_PLAIN;
        }
        i = j;
    }
    return 0;
}

/* Keeps the rows j of v[at..at+m) with keep[j], moved down in order. */
static void compact_vec(tn_vector *v, uint32_t at, const uint8_t *keep, uint32_t m) {
    const uint32_t w = (uint32_t)tn_type_width(v->type);
    uint8_t *d = (uint8_t *)v->data;
    uint32_t o = at;
    for (uint32_t j = 0; j < m; j++) {
        if (!keep[j]) continue;
        uint32_t from = at + j;
        if (from != o) {
            put_val(d + (size_t)o * w, d + (size_t)from * w, w);
            if (v->validity) tn_vector_set_valid_bit(v, o, tn_vector_is_valid(v, from));
        }
        o++;
    }
}

/* Decodes the rows [row0, row0+n) of the row group that pass the filter, appending them to out
 * (at out->count; n <= room) and their file row indexes to row_ids. */
static int filter_batch(tn_parquet_scan *s, int64_t row0, uint32_t n, tn_chunk *out,
                        int64_t *row_ids) {
    uint32_t at = out->count, m = n;
    uint32_t *sel = s->sel, *idx = s->idx, *prow = s->idx + TN_VECTOR_SIZE;
    uint8_t *keep = s->keep;
    int rc = 0;
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++) sel[i] = i;
    for (uint32_t f = 0; f < s->nfcols && m > 0; f++) {
        c = s->order[f];
        colreader *cr = &s->cols[c];
        tn_vector *v = &out->cols[c];
        rc = take_sel(s, cr, row0, sel, m, v, at, idx, prow);
        if (rc) goto fail;
        const uint8_t *dp = NULL;
        const uint32_t w = cr->width;
        const uint8_t *vals = (const uint8_t *)v->data + (size_t)at * w;
        uint32_t kept = 0;
        for (uint32_t j = 0; j < m; j++) {
            uint32_t x = idx[j];
            bool ok;
            if (x == IDX_NULL) ok = cr->null_pass;
            else if (x != IDX_PLAIN) {
                if (!dp) {
                    rc = dict_pass(cr, &dp);
                    if (rc) goto fail;
                }
                ok = dp[x];
            } else if (!tn_vector_is_valid(v, at + j)) ok = cr->null_pass;
            else ok = pass_value(cr, vals + (size_t)j * w);
            keep[j] = ok;
            kept += ok;
        }
        if (kept == m) continue;
        for (uint32_t g = 0; g <= f; g++) compact_vec(&out->cols[s->order[g]], at, keep, m);
        uint32_t o = 0;
        for (uint32_t j = 0; j < m; j++)
            if (keep[j]) sel[o++] = sel[j];
        m = kept;
    }
    if (m > 0) {
        for (uint32_t f = s->nfcols; f < s->ncols; f++) {
            c = s->order[f];
            rc = take_sel(s, &s->cols[c], row0, sel, m, &out->cols[c], at, NULL, prow);
            if (rc) goto fail;
        }
    }
    if (row_ids)
        for (uint32_t j = 0; j < m; j++) row_ids[at + j] = s->rg_first + row0 + sel[j];
    out->count = at + m;
    for (uint32_t k = 0; k < s->ncols; k++) out->cols[k].count = out->count;
    return 0;
fail:
    return tn_error_prefix(rc, "%s: row group %u, column '%s'", s->path, s->rg, s->cols[c].name);
}

/* ---------------------------------------------------------------------------------------------
 * Row groups: chunk reads and the page-index row ranges.
 */
static int chunk_load(tn_parquet_scan *s, colreader *cr, const pq_column_chunk *cc) {
    const pq_column_meta *cm = &cc->meta;
    cr->cm = cm;
    int64_t start = cm->data_page_offset;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0)
        start = cm->dictionary_page_offset;
    int64_t len = cm->total_compressed_size;
    if (start < 4 || len < 0 || (uint64_t)start > s->file_size ||
        (uint64_t)len > s->file_size - (uint64_t)start)
        return tn_error_set(TN_ECORRUPT, "column chunk at offset %lld, %lld bytes, lies outside "
                            "the %llu-byte file", (long long)start, (long long)len,
                            (unsigned long long)s->file_size);
    if ((size_t)len > cr->chunk_cap) {
        uint8_t *p = tn_realloc(cr->chunk, (size_t)len);
        if (!p) return NOMEM();
        cr->chunk = p;
        cr->chunk_cap = (size_t)len;
    }
    if (len > 0) {
        int rc = s->fs->pread(s->fs, s->fh, cr->chunk, (size_t)len, (uint64_t)start);
        if (rc) return rc;
    }
    s->counters.bytes_read += (uint64_t)len;
    cr->chunk_len = (size_t)len;
    cr->pos = 0;
    cr->next_row = 0;
    cr->page_no = 0;
    cr->seen_data = false;
    cr->has_dict = false;
    cr->dict_count = 0;
    cr->page_loaded = false;
    cr->valid = NULL;
    pool_release(cr, false);
    return 0;
}

static int ranges_push(tn_parquet_scan *s, row_range **arr, uint32_t *n, uint32_t *cap,
                       int64_t lo, int64_t hi) {
    if (lo >= hi) return 0;
    if (*n && (*arr)[*n - 1].hi >= lo) {
        if (hi > (*arr)[*n - 1].hi) (*arr)[*n - 1].hi = hi;
        return 0;
    }
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 16;
        row_range *p = tn_realloc(*arr, c * sizeof *p);
        if (!p) return NOMEM();
        *arr = p;
        *cap = c;
    }
    (*arr)[(*n)++] = (row_range){lo, hi};
    return 0;
}

static int read_blob(tn_parquet_scan *s, int64_t off, int32_t len, uint8_t **out) {
    *out = NULL;
    if (off < 0 || len <= 0 || (uint64_t)off > s->file_size ||
        (uint64_t)len > s->file_size - (uint64_t)off)
        return 1;                                        /* unusable: ignore the index */
    uint8_t *b = tn_arena_alloc(s->rg_arena, (size_t)len);
    if (!b) return NOMEM();
    int rc = s->fs->pread(s->fs, s->fh, b, (size_t)len, (uint64_t)off);
    if (rc) return rc;
    *out = b;
    return 0;
}

/* Row ranges of the row group's pages (of predicate p's column) that may match p. Returns 1
 * when the column has no usable page index (no restriction). */
static int page_ranges(tn_parquet_scan *s, const pq_row_group *rg, const tn_parquet_predicate *p,
                       row_range **out, uint32_t *nout, uint32_t *cap) {
    const pq_column_chunk *cc = &rg->columns[p->column];
    if (!cc->has_column_index || !cc->has_offset_index) return 1;
    uint8_t *cib, *oib;
    int rc = read_blob(s, cc->column_index_offset, cc->column_index_length, &cib);
    if (rc) return rc;
    rc = read_blob(s, cc->offset_index_offset, cc->offset_index_length, &oib);
    if (rc) return rc;
    pq_column_index ci;
    pq_offset_index oi;
    if (pq_decode_column_index(&ci, s->rg_arena, cib, (size_t)cc->column_index_length) != 0 ||
        pq_decode_offset_index(&oi, s->rg_arena, oib, (size_t)cc->offset_index_length) != 0) {
        tn_error_clear();
        return 1;
    }
    if (ci.npages != oi.npages || ci.npages == 0) return 1;
    for (uint32_t i = 0; i < oi.npages; i++) {
        int64_t lo = oi.pages[i].first_row_index;
        int64_t hi = i + 1 < oi.npages ? oi.pages[i + 1].first_row_index : rg->num_rows;
        if (lo < 0 || hi < lo || hi > rg->num_rows || (i == 0 && lo != 0)) {
            *nout = 0;
            return 1;
        }
    }
    tn_type type = tn_parquet_column(s->file, p->column)->type;
    *nout = 0;
    for (uint32_t i = 0; i < oi.npages; i++) {
        int64_t lo = oi.pages[i].first_row_index;
        int64_t hi = i + 1 < oi.npages ? oi.pages[i + 1].first_row_index : rg->num_rows;
        tn_parquet_stats st;
        memset(&st, 0, sizeof st);
        st.num_values = hi - lo;
        if (ci.null_counts) {
            st.has_null_count = true;
            st.null_count = ci.null_counts[i];
        }
        if (ci.null_pages[i]) {
            st.has_null_count = true;
            st.null_count = st.num_values;
        } else if (ci.min_values[i].present && ci.max_values[i].present &&
                   pq_rd_decode_value(s->file, p->column, ci.min_values[i].ptr,
                                      ci.min_values[i].len, &st.min) == 0 &&
                   pq_rd_decode_value(s->file, p->column, ci.max_values[i].ptr,
                                      ci.max_values[i].len, &st.max) == 0) {
            st.has_min_max = true;
        }
        if (pq_rd_stats_may_match(&st, type, p)) {
            rc = ranges_push(s, out, nout, cap, lo, hi);
            if (rc) return rc;
        }
    }
    return 0;
}

static int compute_ranges(tn_parquet_scan *s, const pq_row_group *rg) {
    s->nranges = 0;
    int rc = ranges_push(s, &s->ranges, &s->nranges, &s->ranges_cap, 0, rg->num_rows);
    if (rc) return rc;
    row_range *pr = NULL, *tmp = NULL;
    uint32_t npr = 0, prcap = 0, ntmp = 0, tmpcap = 0;
    for (uint32_t i = 0; i < s->npreds && s->nranges > 0; i++) {
        rc = page_ranges(s, rg, &s->preds[i], &pr, &npr, &prcap);
        if (rc < 0) goto cleanup;
        if (rc == 1) { rc = 0; continue; }
        /* intersect s->ranges with pr */
        ntmp = 0;
        uint32_t a = 0, b = 0;
        while (a < s->nranges && b < npr) {
            int64_t lo = s->ranges[a].lo > pr[b].lo ? s->ranges[a].lo : pr[b].lo;
            int64_t hi = s->ranges[a].hi < pr[b].hi ? s->ranges[a].hi : pr[b].hi;
            if (lo < hi) {
                rc = ranges_push(s, &tmp, &ntmp, &tmpcap, lo, hi);
                if (rc) goto cleanup;
            }
            if (s->ranges[a].hi < pr[b].hi) a++;
            else b++;
        }
        s->nranges = 0;
        for (uint32_t k = 0; k < ntmp; k++) {
            rc = ranges_push(s, &s->ranges, &s->nranges, &s->ranges_cap, tmp[k].lo, tmp[k].hi);
            if (rc) goto cleanup;
        }
    }
cleanup:
    tn_free(pr);
    tn_free(tmp);
    return rc;
}

static int rg_begin(tn_parquet_scan *s, uint32_t rg_index) {
    const pq_file_meta *m = pq_rd_meta(s->file);
    const pq_row_group *rg = &m->row_groups[rg_index];
    int rc;
    s->rg = rg_index;
    s->rg_rows = rg->num_rows;
    s->rg_first = pq_rd_row_group_first_row(s->file, rg_index);
    tn_arena_reset(s->rg_arena);
    rc = compute_ranges(s, rg);
    if (rc) return tn_error_prefix(rc, "%s: row group %u: page index", s->path, rg_index);
    s->range_i = 0;
    if (s->nranges == 0) return 0;             /* every page ruled out */
    for (uint32_t c = 0; c < s->ncols; c++) {
        colreader *cr = &s->cols[c];
        rc = chunk_load(s, cr, &rg->columns[cr->col]);
        if (rc) return tn_error_prefix(rc, "%s: row group %u, column '%s'", s->path, rg_index,
                                       cr->name);
    }
    s->counters.row_groups_scanned++;
    s->cur = s->ranges[0].lo;
    s->rg_active = true;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Public API.
 */
static int pick_conv(colreader *cr) {
    const pq_schema_element *e = cr->elem;
    tn_type t = cr->type;
    bool d128 = t.id == TN_TYPE_DECIMAL && t.precision > TN_DECIMAL_INT64_MAX_PRECISION;
    switch (e->type) {
    case PQ_BOOLEAN: cr->conv = CV_BOOL; cr->pw = 0; return 0;
    case PQ_INT32:
        cr->pw = 4;
        switch (t.id) {
        case TN_TYPE_TINYINT: cr->conv = CV_I32_I8; return 0;
        case TN_TYPE_SMALLINT: cr->conv = CV_I32_I16; return 0;
        case TN_TYPE_INTEGER: case TN_TYPE_DATE: cr->conv = CV_I32; return 0;
        case TN_TYPE_BIGINT: cr->conv = CV_U32_I64; return 0;
        case TN_TYPE_DECIMAL: cr->conv = d128 ? CV_I32_DEC128 : CV_I32_DEC64; return 0;
        default: break;
        }
        break;
    case PQ_INT64:
        cr->pw = 8;
        switch (t.id) {
        case TN_TYPE_BIGINT: cr->conv = CV_I64; return 0;
        case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: {
            int unit = pq_rd_ts_unit(e);
            cr->conv = unit == PQ_UNIT_MILLIS ? CV_I64_MS : unit == PQ_UNIT_NANOS ? CV_I64_NS : CV_I64;
            return 0;
        }
        case TN_TYPE_DECIMAL:
            cr->conv = pq_rd_is_unsigned(e) ? CV_U64_DEC128 : d128 ? CV_I64_DEC128 : CV_I64;
            return 0;
        default: break;
        }
        break;
    case PQ_INT96: cr->pw = 12; cr->conv = CV_INT96; return 0;
    case PQ_FLOAT: cr->pw = 4; cr->conv = CV_F32; return 0;
    case PQ_DOUBLE: cr->pw = 8; cr->conv = CV_F64; return 0;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        cr->pw = (uint32_t)e->type_length;
        if (t.id == TN_TYPE_FLOAT) { cr->conv = CV_F16; return 0; }
        if (t.id == TN_TYPE_DECIMAL) { cr->conv = d128 ? CV_FIXED_DEC128 : CV_FIXED_DEC64; return 0; }
        cr->conv = CV_FIXED_STR;
        return 0;
    case PQ_BYTE_ARRAY:
        cr->pw = 0;
        if (t.id == TN_TYPE_DECIMAL) { cr->conv = d128 ? CV_STR_DEC128 : CV_STR_DEC64; return 0; }
        cr->conv = CV_STR;
        return 0;
    default: break;
    }
    return tn_error_set(TN_EINTERNAL, "column '%s': no conversion to its type", e->name);
}

/* Copies a constant's string bytes into the scan's arena. */
static int own_value(tn_parquet_scan *s, tn_value *v) {
    if (v->is_null || !tn_type_is_string(v->type) || v->u.s.len == 0) return 0;
    char *c = tn_arena_alloc(s->arena, v->u.s.len);
    if (!c) return TN_ENOMEM;
    memcpy(c, v->u.s.ptr, v->u.s.len);
    v->u.s.ptr = c;
    return 0;
}

static int add_term(tn_parquet_scan *s, uint32_t column, const fpred *t, uint32_t max_terms) {
    for (uint32_t c = 0; c < s->ncols; c++) {
        colreader *cr = &s->cols[c];
        if (cr->col != column) continue;
        if (!filter_supported(cr->type, t)) return 0;
        if (!cr->fp) {
            cr->fp = tn_calloc(max_terms, sizeof *cr->fp);
            if (!cr->fp) return TN_ENOMEM;
        }
        fpred *d = &cr->fp[cr->nfp++];
        *d = *t;
        int rc = own_value(s, &d->constant);
        if (rc) return rc;
        if (t->in) {
            tn_value *vals = tn_arena_alloc(s->arena, (t->nvalues ? t->nvalues : 1) * sizeof *vals);
            if (!vals) return TN_ENOMEM;
            for (uint32_t k = 0; k < t->nvalues; k++) {
                vals[k] = t->values[k];
                rc = own_value(s, &vals[k]);
                if (rc) return rc;
            }
            d->values = vals;
        }
        return 0;                    /* a column projected twice is filtered once */
    }
    return 0;
}

/* Attaches the row-testable terms of f to their projected columns and orders the columns:
 * filter columns first (equality and IN before ranges), then the rest. */
int tn_parquet_scan_set_filter(tn_parquet_scan *s, const tn_parquet_row_filter *f) {
    int rc = 0;
    uint32_t nf = 0;
    int *rank = NULL;
    if (s->filter || s->rg_i)
        return tn_error_set(TN_EINVAL, "%s: the row filter is set once, before reading", s->path);
    if (!f || s->ncols == 0 || f->npredicates + f->nin_lists == 0) return 0;
    uint32_t max_terms = f->npredicates + f->nin_lists;
    for (uint32_t i = 0; i < f->npredicates && !rc; i++) {
        const tn_parquet_predicate *p = &f->predicates[i];
        fpred t = {p->op, false, p->constant, NULL, 0};
        rc = add_term(s, p->column, &t, max_terms);
    }
    for (uint32_t i = 0; i < f->nin_lists && !rc; i++) {
        const tn_parquet_in_list *l = &f->in_lists[i];
        if (l->nvalues && !l->values) continue;
        fpred t = {TN_PQ_EQ, true, {{TN_TYPE_NULL, 0, 0}, true, {0}}, l->values, l->nvalues};
        rc = add_term(s, l->column, &t, max_terms);
    }
    if (rc) goto cleanup;
    s->order = tn_calloc(s->ncols, sizeof *s->order);
    rank = tn_calloc(s->ncols, sizeof *rank);
    if (!s->order || !rank) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t c = 0; c < s->ncols; c++) {
        colreader *cr = &s->cols[c];
        if (!cr->nfp) continue;
        cr->null_pass = true;
        int r = 2;
        for (uint32_t i = 0; i < cr->nfp; i++) {
            const fpred *p = &cr->fp[i];
            if (p->in || p->op != TN_PQ_IS_NULL) cr->null_pass = false;
            if (p->in || p->op == TN_PQ_EQ || p->op == TN_PQ_IS_NULL) r = 0;
            else if (r > 1 && p->op != TN_PQ_NE && p->op != TN_PQ_IS_NOT_NULL) r = 1;
        }
        uint32_t k = nf++;
        while (k > 0 && rank[k - 1] > r) { s->order[k] = s->order[k - 1]; rank[k] = rank[k - 1]; k--; }
        s->order[k] = c;
        rank[k] = r;
    }
    if (nf == 0) goto cleanup;
    s->nfcols = nf;
    uint32_t o = nf;
    for (uint32_t c = 0; c < s->ncols; c++)
        if (!s->cols[c].nfp) s->order[o++] = c;
    s->sel = tn_malloc(TN_VECTOR_SIZE * sizeof *s->sel);
    s->idx = tn_malloc(2 * TN_VECTOR_SIZE * sizeof *s->idx);
    s->keep = tn_malloc(TN_VECTOR_SIZE);
    s->ids = tn_malloc(TN_VECTOR_SIZE * sizeof *s->ids);
    if (!s->sel || !s->idx || !s->keep || !s->ids) { rc = TN_ENOMEM; goto cleanup; }
    s->filter = true;
cleanup:
    tn_free(rank);
    if (rc == TN_ENOMEM) rc = NOMEM();
    return rc;
}

/* The scan's row groups: the asked ones (NULL: all), minus those the statistics rule out. */
static int select_row_groups(tn_parquet_scan *s, const uint32_t *row_groups, uint32_t nrow_groups) {
    const pq_file_meta *m = pq_rd_meta(s->file);
    uint32_t nask = row_groups ? nrow_groups : m->nrow_groups;
    tn_free(s->rgs);
    s->nrgs = 0;
    s->rgs = tn_calloc(nask ? nask : 1, sizeof *s->rgs);
    if (!s->rgs) return NOMEM();
    for (uint32_t i = 0; i < nask; i++) {
        uint32_t r = row_groups ? row_groups[i] : i;
        if (r >= m->nrow_groups || (i > 0 && row_groups && r <= row_groups[i - 1]))
            return tn_error_set(TN_EINVAL, "%s: row group list must be ascending and < %u",
                                s->path, m->nrow_groups);
        if (m->row_groups[r].num_rows == 0) continue;
        if (s->npreds && !tn_parquet_row_group_may_match(s->file, r, s->preds, s->npreds)) continue;
        s->rgs[s->nrgs++] = r;
    }
    return 0;
}

int tn_parquet_scan_reset(tn_parquet_scan *s, const uint32_t *row_groups, uint32_t nrow_groups) {
    s->rg_active = false;
    s->rg_i = 0;
    s->failed = 0;
    s->cur = 0;
    s->nranges = s->range_i = 0;
    memset(&s->counters, 0, sizeof s->counters);
    for (uint32_t c = 0; c < s->ncols; c++) {
        colreader *cr = &s->cols[c];
        cr->page_loaded = false;
        cr->has_dict = false;
        cr->dpass_ok = false;
        cr->valid = NULL;
        pool_release(cr, false);
    }
    int rc = select_row_groups(s, row_groups, nrow_groups);
    if (rc) s->failed = rc;
    return rc;
}

int tn_parquet_scan_open(tn_parquet_scan **out, tn_parquet_file *file,
                         const tn_parquet_scan_options *opts) {
    int rc = 0;
    *out = NULL;
    tn_parquet_scan *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    uint32_t nfcols = tn_parquet_num_columns(file);
    s->file = file;
    s->path = tn_parquet_path(file);
    s->fs = pq_rd_fs(file);
    s->fh = pq_rd_handle(file);
    s->file_size = tn_parquet_file_size(file);
    s->max_page_bytes = pq_rd_options(file)->max_page_bytes;
    s->verify = pq_rd_options(file)->verify_checksums;
    s->arena = tn_arena_create(0);
    s->rg_arena = tn_arena_create(0);
    if (!s->arena || !s->rg_arena) { rc = TN_ENOMEM; goto cleanup; }
    /* columns */
    s->ncols = opts ? opts->ncolumns : 0;
    s->cols = tn_calloc(s->ncols ? s->ncols : 1, sizeof *s->cols);
    if (!s->cols) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < s->ncols; i++) {
        uint32_t c = opts->columns[i];
        if (c >= nfcols) {
            rc = tn_error_set(TN_EINVAL, "%s: no column %u (file has %u)", s->path, c, nfcols);
            goto cleanup;
        }
        colreader *cr = &s->cols[i];
        const tn_parquet_column_info *ci = tn_parquet_column(file, c);
        cr->col = c;
        cr->name = ci->name;
        cr->elem = pq_rd_leaf(file, c);
        cr->type = ci->type;
        cr->width = (uint32_t)tn_type_width(ci->type);
        cr->phys = cr->elem->type;
        cr->max_def = cr->elem->repetition == PQ_REQUIRED ? 0 : 1;
        cr->is_str = tn_type_is_string(ci->type);
        rc = pick_conv(cr);
        if (rc) goto cleanup;
    }
    /* predicates (constants copied) */
    if (opts && opts->npredicates) {
        s->preds = tn_arena_alloc(s->arena, opts->npredicates * sizeof *s->preds);
        if (!s->preds) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < opts->npredicates; i++) {
            tn_parquet_predicate p = opts->predicates[i];
            if (p.column >= nfcols) continue;
            if (!p.constant.is_null && tn_type_is_string(p.constant.type) && p.constant.u.s.len) {
                char *c = tn_arena_alloc(s->arena, p.constant.u.s.len);
                if (!c) { rc = TN_ENOMEM; goto cleanup; }
                memcpy(c, p.constant.u.s.ptr, p.constant.u.s.len);
                p.constant.u.s.ptr = c;
            }
            s->preds[s->npreds++] = p;
        }
    }
    rc = select_row_groups(s, opts ? opts->row_groups : NULL, opts ? opts->nrow_groups : 0);
    if (rc) goto cleanup;
    *out = s;
    s = NULL;
cleanup:
    tn_parquet_scan_close(s);
    return rc;
}

/* scan_next with the row filter: batches of the current row group until out is nearly full. */
static int scan_next_filtered(tn_parquet_scan *s, tn_chunk *out, int64_t *row_ids) {
    int rc = 0;
    for (;;) {
        if (!s->rg_active) {
            if (out->count > 0) return 0;          /* strings may point into this row group */
            if (s->rg_i >= s->nrgs) return 0;
            rc = rg_begin(s, s->rgs[s->rg_i++]);
            if (rc) return rc;
            continue;
        }
        if (s->range_i >= s->nranges) { s->rg_active = false; continue; }
        row_range *r = &s->ranges[s->range_i];
        if (s->cur < r->lo) s->cur = r->lo;
        if (s->cur >= r->hi) { s->range_i++; continue; }
        int64_t left = r->hi - s->cur;
        uint32_t room = TN_VECTOR_SIZE - out->count;
        uint32_t n = left < room ? (uint32_t)left : room;
        rc = filter_batch(s, s->cur, n, out, row_ids);
        if (rc) return rc;
        s->cur += n;
        s->counters.rows_scanned += n;
        if (out->count + 256 > TN_VECTOR_SIZE) return 0;
    }
}

int tn_parquet_scan_next_rows(tn_parquet_scan *s, tn_chunk *out, int64_t *row_ids) {
    int rc = 0;
    if (s->failed) return s->failed;
    if (!s->filter) {
        int64_t first = 0;
        rc = tn_parquet_scan_next(s, out, &first);
        if (!rc && row_ids)
            for (uint32_t i = 0; i < out->count; i++) row_ids[i] = first + i;
        return rc;
    }
    tn_chunk_reset(out);
    if (out->ncols != s->ncols)
        return tn_error_set(TN_EINVAL, "%s: scan has %u columns, chunk has %u", s->path, s->ncols,
                            out->ncols);
    for (uint32_t c = 0; c < s->ncols; c++) {
        pool_release(&s->cols[c], true);
        if (out->cols[c].capacity < TN_VECTOR_SIZE || !tn_type_equal(out->cols[c].type, s->cols[c].type))
            return tn_error_set(TN_EINVAL, "%s: output column %u has the wrong type or capacity",
                                s->path, c);
    }
    rc = scan_next_filtered(s, out, row_ids);
    if (rc) {
        s->failed = rc;
        tn_chunk_reset(out);
    }
    return rc;
}

int tn_parquet_scan_next(tn_parquet_scan *s, tn_chunk *out, int64_t *first_row) {
    int rc = 0;
    if (s->filter) {
        rc = tn_parquet_scan_next_rows(s, out, s->ids);
        if (first_row) *first_row = !rc && out->count ? s->ids[0] : tn_parquet_num_rows(s->file);
        return rc;
    }
    if (s->failed) return s->failed;
    tn_chunk_reset(out);
    if (out->ncols != s->ncols)
        return tn_error_set(TN_EINVAL, "%s: scan has %u columns, chunk has %u", s->path, s->ncols,
                            out->ncols);
    for (uint32_t c = 0; c < s->ncols; c++) {
        pool_release(&s->cols[c], true);
        if (out->cols[c].capacity < TN_VECTOR_SIZE || !tn_type_equal(out->cols[c].type, s->cols[c].type))
            return tn_error_set(TN_EINVAL, "%s: output column %u has the wrong type or capacity",
                                s->path, c);
    }
    for (;;) {
        if (!s->rg_active) {
            if (s->rg_i >= s->nrgs) {
                if (first_row) *first_row = tn_parquet_num_rows(s->file);
                return 0;
            }
            rc = rg_begin(s, s->rgs[s->rg_i++]);
            if (rc) goto fail;
            continue;
        }
        if (s->range_i >= s->nranges) { s->rg_active = false; continue; }
        row_range *r = &s->ranges[s->range_i];
        if (s->cur < r->lo) s->cur = r->lo;
        if (s->cur >= r->hi) { s->range_i++; continue; }
        int64_t left = r->hi - s->cur;
        uint32_t n = left < TN_VECTOR_SIZE ? (uint32_t)left : TN_VECTOR_SIZE;
        for (uint32_t c = 0; c < s->ncols; c++) {
            rc = fill_column(s, &s->cols[c], s->cur, n, &out->cols[c]);
            if (rc) {
                rc = tn_error_prefix(rc, "%s: row group %u, column '%s'", s->path, s->rg,
                                     s->cols[c].name);
                goto fail;
            }
            out->cols[c].count = n;
        }
        out->count = n;
        if (first_row) *first_row = s->rg_first + s->cur;
        s->cur += n;
        s->counters.rows_scanned += n;
        return 0;
    }
fail:
    s->failed = rc;
    tn_chunk_reset(out);
    return rc;
}

const tn_parquet_scan_counters *tn_parquet_scan_stats(const tn_parquet_scan *s) {
    return &s->counters;
}

void tn_parquet_scan_close(tn_parquet_scan *s) {
    if (!s) return;
    for (uint32_t c = 0; c < s->ncols && s->cols; c++) colreader_free(&s->cols[c]);
    tn_free(s->cols);
    tn_free(s->order);
    tn_free(s->sel);
    tn_free(s->idx);
    tn_free(s->keep);
    tn_free(s->ids);
    tn_free(s->rgs);
    tn_free(s->ranges);
    tn_arena_destroy(s->arena);
    tn_arena_destroy(s->rg_arena);
    tn_free(s);
}
