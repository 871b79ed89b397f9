/*
 * parquet/scan_page.c: the page half of the scan: reusable and pooled buffers, every value
 * encoding of Encodings.md decoded to physical values, conversion to the logical type,
 * dictionary and data pages (v1 and v2, CRC checks, decompression), and copying row ranges of a
 * decoded page into tn_vectors. A data page is decoded whole into a typed array (nulls spread to
 * their rows); VARCHAR/VARBINARY values point into page buffers (not copied).
 */
#include "parquet/scanInt.h"

/* ---------------------------------------------------------------------------------------------
 * Buffers.
 */
void *pq_sc_sbuf_get(sbuf *b, size_t size) {
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
void pq_sc_pool_release(colreader *cr, bool keep_current) {
    for (uint32_t i = cr->nfree; i < cr->npool; i++) {
        if (keep_current && cr->page_loaded && cr->pool[i].gen == cr->page_gen) continue;
        pbuf t = cr->pool[i];
        cr->pool[i] = cr->pool[cr->nfree];
        cr->pool[cr->nfree] = t;
        cr->nfree++;
    }
}

void pq_sc_colreader_free(colreader *cr) {
    tn_free(cr->chunk);
    sbuf *bufs[] = {&cr->dict, &cr->dict_raw, &cr->s_defs, &cr->s_idx, &cr->s_i64, &cr->s_phys,
                    &cr->s_strs, &cr->s_dense, &cr->s_vals, &cr->s_valid, &cr->dpass,
                    &cr->nvals_buf};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) tn_free(bufs[i]->p);
    for (uint32_t i = 0; i < cr->npool; i++) tn_free(cr->pool[i].p);
    tn_free(cr->pool);
    tn_free(cr->fp);
    tn_free(cr->rep);
    tn_free(cr->def);
}


/* ---------------------------------------------------------------------------------------------
 * Value decoding: encoded bytes -> physical dense values.
 */
static int decode_plain(colreader *cr, const uint8_t *p, size_t len, uint32_t n, pdense *pd) {
    switch (cr->phys) {
    case PQ_BOOLEAN: {
        uint8_t *out = pq_sc_sbuf_get(&cr->s_phys, n);
        if (!out) return NOMEM();
        int rc = pq_plain_bool_decode(p, len, 0, n, out);
        if (rc) return rc;
        pd->bools = out;
        return 0;
    }
    case PQ_BYTE_ARRAY: {
        tn_str *s = pq_sc_sbuf_get(&cr->s_strs, (size_t)n * sizeof(tn_str));
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
    uint32_t *tmp = pq_sc_sbuf_get(&cr->s_idx, (size_t)n * 4);
    uint8_t *out = pq_sc_sbuf_get(&cr->s_phys, n);
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
    int64_t *v = pq_sc_sbuf_get(&cr->s_i64, (size_t)n * 8);
    if (!v) return NOMEM();
    uint32_t cnt = 0;
    size_t used = 0;
    int rc = pq_delta_binary_decode(p, len, v, n, &cnt, &used, cr->phys == PQ_INT32);
    if (rc) return rc;
    if (cnt < n)
        return tn_error_set(TN_ECORRUPT, "DELTA_BINARY_PACKED: %u values, page needs %u", cnt, n);
    if (cr->phys == PQ_INT32) {
        int32_t *o = pq_sc_sbuf_get(&cr->s_phys, (size_t)n * 4);
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
    pq_delta_mem mem = {pq_sc_sbuf_get(&cr->s_i64, (size_t)n * 8), NULL, NULL, 0};
    tn_str *s = pq_sc_sbuf_get(&cr->s_strs, (size_t)n * sizeof(tn_str));
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
    pq_delta_mem mem = {pq_sc_sbuf_get(&cr->s_i64, (size_t)n * 16), pool_alloc, cr, max_bytes};
    tn_str *s = pq_sc_sbuf_get(&cr->s_strs, (size_t)n * sizeof(tn_str));
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
                              : pq_sc_sbuf_get(&cr->s_phys, (size_t)n * cr->pw);
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
    d = pq_sc_sbuf_get(&cr->s_dense, (size_t)n * cr->width);
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
    uint64_t *bits = pq_sc_sbuf_get(&cr->s_valid, words * 8 + 8);
    uint32_t *tmp = pq_sc_sbuf_get(&cr->s_defs, 64 * 4);
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
int pq_sc_dict_take(colreader *cr, uint8_t *dst, uint32_t k) {
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
                idx = pq_sc_sbuf_get(&cr->s_idx, (size_t)TN_VECTOR_SIZE * 4);
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

/* Decompresses the page body src (slen bytes in cr's chunk) into dst, through the file's page
 * memo when it has one (a small cached file: page_memo.c). */
static int decompress_page(tn_parquet_scan *s, colreader *cr, const uint8_t *src, size_t slen,
                           uint8_t *dst, size_t ulen) {
    pq_page_memo *memo = s->file ? pq_rd_page_memo(s->file) : NULL;
    uint64_t offset = 0;
    if (memo && src >= cr->chunk && src < cr->chunk + cr->chunk_len) {
        offset = cr->chunk_start + (uint64_t)(src - cr->chunk);
        if (pq_page_memo_get(memo, offset, dst, ulen)) return 0;
    } else {
        memo = NULL;
    }
    int rc = pq_decompress(cr->cm->codec, src, slen, dst, ulen);
    if (rc == 0 && memo) pq_page_memo_put(memo, offset, dst, ulen);
    return rc;
}

/* Decompresses a page body into a pooled buffer; data with len==0 never reaches the codec. */
int pq_sc_page_data(tn_parquet_scan *s, colreader *cr, const uint8_t *src, size_t slen,
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
    int rc = decompress_page(s, cr, src, slen, dst, ulen);
    if (rc) return rc;
    *out = dst;
    *out_len = ulen;
    return 0;
}

/* Decodes the values section (n_nonnull values) of a data page into logical dense values. */
int pq_sc_decode_values(tn_parquet_scan *s, colreader *cr, int encoding, const uint8_t *p,
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
        uint8_t *dst = pq_sc_sbuf_get(&cr->dict_raw, (size_t)h->uncompressed_page_size);
        if (!dst) return NOMEM();
        int rc = decompress_page(s, cr, body, len, dst, (size_t)h->uncompressed_page_size);
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
    uint8_t *d = pq_sc_sbuf_get(&cr->dict, padded * cr->width);
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
        rc = pq_sc_page_data(s, cr, body, csize, usize, true, &vp, &vlen);
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
        rc = pq_sc_page_data(s, cr, body + skip, csize - skip, usize - skip, v2->is_compressed, &vp,
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
    rc = pq_sc_decode_values(s, cr, encoding, vp, vlen, nn, &dense);
    if (rc) return rc;
    if (cr->valid) {
        uint8_t *v = pq_sc_sbuf_get(&cr->s_vals, (size_t)n * cr->width);
        if (!v) return NOMEM();
        spread(v, dense, cr->valid, n, cr->width);
        cr->vals = v;
    } else {
        cr->vals = dense;
    }
    return 0;
}

static int check_crc(tn_parquet_scan *s, const pq_page_header *h, const uint8_t *body,
                     uint32_t page_no, const char *what) {
    if (!h->has_crc || !s->verify) return 0;
    uint32_t c = tn_crc32(0, body, (size_t)h->compressed_page_size);
    if (c == (uint32_t)h->crc) return 0;
    return tn_error_set(TN_ECHECKSUM, "page %u%s: CRC mismatch (stored %08x, computed %08x)",
                        page_no, what, (uint32_t)h->crc, c);
}

int pq_sc_next_page(tn_parquet_scan *s, colreader *cr, pq_page_header *h, const uint8_t **body,
                    uint32_t *page_no_out) {
    for (;;) {
        if (cr->pos >= cr->chunk_len) return 1;
        size_t hlen = 0;
        uint32_t page_no = cr->page_no++;
        int rc = pq_decode_page_header(h, cr->chunk + cr->pos, cr->chunk_len - cr->pos, &hlen);
        if (rc) return tn_error_prefix(rc, "page %u: header", page_no);
        if (h->compressed_page_size < 0 || h->uncompressed_page_size < 0 ||
            (uint64_t)h->compressed_page_size > cr->chunk_len - cr->pos - hlen)
            return tn_error_set(TN_ECORRUPT, "page %u: %d bytes at offset %zu run past the column "
                                "chunk (%zu bytes)", page_no, (int)h->compressed_page_size,
                                cr->pos + hlen, cr->chunk_len);
        if ((uint64_t)h->uncompressed_page_size > s->max_page_bytes)
            return tn_error_set(TN_ELIMIT, "page %u: %d bytes uncompressed exceeds the limit of "
                                "%llu", page_no, (int)h->uncompressed_page_size,
                                (unsigned long long)s->max_page_bytes);
        *body = cr->chunk + cr->pos + hlen;
        *page_no_out = page_no;
        cr->pos += hlen + (size_t)h->compressed_page_size;
        bool is_data = (h->type == PQ_PAGE_DATA && h->has_data) ||
                       (h->type == PQ_PAGE_DATA_V2 && h->has_data_v2);
        if (h->type == PQ_PAGE_DATA && !h->has_data)
            return tn_error_set(TN_ECORRUPT, "page %u: data page without header", page_no);
        if (h->type == PQ_PAGE_DATA_V2 && !h->has_data_v2)
            return tn_error_set(TN_ECORRUPT, "page %u: v2 data page without header", page_no);
        if (h->type != PQ_PAGE_DICTIONARY && !is_data) continue;   /* index / unknown pages */
        if (h->type == PQ_PAGE_DICTIONARY) {
            rc = check_crc(s, h, *body, page_no, " (dictionary)");
            if (rc) return rc;
            s->counters.pages_read++;
            rc = load_dictionary(s, cr, h, *body);
            if (rc) return tn_error_prefix(rc, "page %u", page_no);
            continue;
        }
        int32_t nv = h->type == PQ_PAGE_DATA ? h->data.num_values : h->data_v2.num_values;
        if (nv < 0) return tn_error_set(TN_ECORRUPT, "page %u: %d values", page_no, (int)nv);
        if ((uint64_t)nv * 16 > s->max_page_bytes * 4)
            return tn_error_set(TN_ELIMIT, "page %u: %d values exceed the page limit", page_no,
                                (int)nv);
        cr->seen_data = true;
        return 0;
    }
}

int pq_sc_check_crc(tn_parquet_scan *s, const pq_page_header *h, const uint8_t *body,
                    uint32_t page_no) {
    return check_crc(s, h, body, page_no, "");
}

/* Advances to the data page holding row `row` (in the row group), decoding it. */
int pq_sc_load_page(tn_parquet_scan *s, colreader *cr, int64_t row) {
    for (;;) {
        pq_page_header h;
        const uint8_t *body;
        uint32_t page_no;
        int rc = pq_sc_next_page(s, cr, &h, &body, &page_no);
        if (rc == 1)
            return tn_error_set(TN_ECORRUPT, "column chunk ends at row %lld, row group has %lld "
                                "rows", (long long)cr->next_row, (long long)s->rg_rows);
        if (rc) return rc;
        int32_t nv = h.type == PQ_PAGE_DATA ? h.data.num_values : h.data_v2.num_values;
        if (h.type == PQ_PAGE_DATA_V2 && h.data_v2.num_rows != nv)
            return tn_error_set(TN_ECORRUPT, "page %u: v2 page has %d rows but %d values in a "
                                "flat column", page_no, (int)h.data_v2.num_rows, (int)nv);
        if (nv > s->rg_rows - cr->next_row)
            return tn_error_set(TN_ECORRUPT, "page %u: %d values exceed the row group's %lld "
                                "rows", page_no, (int)nv, (long long)s->rg_rows);
        int64_t first = cr->next_row;
        cr->next_row += nv;
        if (first + nv <= row) {                    /* not needed: skip without decoding */
            s->counters.pages_skipped++;
            continue;
        }
        rc = check_crc(s, &h, body, page_no, "");
        if (rc) return rc;
        /* the previous page's buffers are unreferenced unless strings point into them */
        if (!cr->is_str) pq_sc_pool_release(cr, false);
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
        rc = pq_sc_dict_take(cr, NULL, skip);
        if (rc) return rc;
    }
    uint8_t *dst = (uint8_t *)v->data + (size_t)at * w;
    if (!cr->valid) {
        rc = pq_sc_dict_take(cr, dst, n);
        if (rc) return rc;
    } else {
        uint32_t k = count_valid(cr->valid, from, from + n);
        uint8_t *tmp = pq_sc_sbuf_get(&cr->s_dense, (size_t)(k ? k : 1) * w);
        if (!tmp) return NOMEM();
        rc = pq_sc_dict_take(cr, tmp, k);
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

int pq_sc_copy_out(colreader *cr, uint32_t from, uint32_t n, tn_vector *v, uint32_t at) {
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

int pq_sc_fill_column(tn_parquet_scan *s, colreader *cr, int64_t row, uint32_t n, tn_vector *v) {
    uint32_t off = 0;
    while (off < n) {
        int64_t r = row + off;
        if (!cr->page_loaded || r >= cr->page_first + cr->page_rows) {
            int rc = pq_sc_load_page(s, cr, r);
            if (rc) return rc;
        }
        if (r < cr->page_first)
            return tn_error_set(TN_EINTERNAL, "parquet scan: row %lld before page start %lld",
                                (long long)r, (long long)cr->page_first);
        int64_t avail = cr->page_first + cr->page_rows - r;
        uint32_t take = (uint32_t)(avail < (int64_t)(n - off) ? avail : (int64_t)(n - off));
        int rc = pq_sc_copy_out(cr, (uint32_t)(r - cr->page_first), take, v, off);
        if (rc) return rc;
        off += take;
    }
    return 0;
}
