/*
 * parquet/scan_filter.c: the scan's row filter (tn_parquet_scan_set_filter): the filter columns
 * of a batch are decoded and tested first (dictionary pages through a per-entry pass table),
 * then the other columns are decoded for the surviving rows only.
 */
#include "parquet/scanInt.h"

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
bool pq_sc_filter_supported(tn_type t, const fpred *p) {
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
        if (p->ivals) {
            int64_t x;
            switch (cr->width) {
            case 1: x = (int8_t)*v; break;
            case 2: { int16_t y; memcpy(&y, v, 2); x = y; break; }
            case 4: { int32_t y; memcpy(&y, v, 4); x = y; break; }
            default: memcpy(&x, v, 8); break;
            }
            if (p->nivals == 0) return false;
            uint64_t o = (uint64_t)x - (uint64_t)p->ivals[0];
            if (p->ibits) {
                if (o >= p->ibits_range || !((p->ibits[o >> 6] >> (o & 63)) & 1)) return false;
                continue;
            }
            if (x > p->ivals[p->nivals - 1] || x < p->ivals[0]) return false;
            /* branchless: the last value <= x */
            const int64_t *b = p->ivals;
            uint32_t n = p->nivals;
            while (n > 1) {
                uint32_t half = n / 2;
                b = b[half] <= x ? b + half : b;
                n -= half;
            }
            if (*b != x) return false;
            continue;
        }
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
        uint8_t *d = pq_sc_sbuf_get(&cr->dpass, n);
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
        rc = pq_sc_dict_take(cr, NULL, skip);
        if (rc) return rc;
    }
    if (cr->valid) {
        rc = tn_vector_ensure_validity(v);
        if (rc) return rc;
    }
    uint32_t span = last + 1 - first;
    if ((uint64_t)k * 8 >= span) {                /* dense: decode every index of the span */
        uint32_t nv = cr->valid ? count_valid(cr->valid, first, last + 1) : span;
        uint32_t *tmp = pq_sc_sbuf_get(&cr->s_idx, (size_t)(nv ? nv : 1) * 4);
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
                rc = pq_sc_dict_take(cr, NULL, cr->valid ? count_valid(cr->valid, cur, r) : r - cur);
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
            int rc = pq_sc_load_page(s, cr, r);
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
            int rc = pq_sc_copy_out(cr, prow[0], k, v, at + i);
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

/* A nested column: rows [row0, row0+n) assembled into the column's scratch vector, the m
 * selected ones appended to v. */
static int nested_sel(tn_parquet_scan *s, colreader *cr, int64_t row0, uint32_t n,
                      const uint32_t *sel, uint32_t m, tn_vector *v) {
    nestcol *nc = cr->nc;
    if (!nc->tmp_init) {
        int rc = tn_vector_init(&nc->tmp, cr->type, TN_VECTOR_SIZE);
        if (rc) return rc;
        nc->tmp_init = true;
    }
    tn_vector_reset(&nc->tmp);
    int rc = pq_sc_nested_fill(s, cr, row0, n, &nc->tmp);
    return rc ? rc : tn_vector_append_rows(v, &nc->tmp, sel, m);
}

/* Whether row j of v (at + j), whose dictionary index take_sel gave as x, passes cr's
 * predicates; *dp caches the dictionary's pass table. */
static int row_passes(colreader *cr, const tn_vector *v, uint32_t at, uint32_t j, uint32_t x,
                      const uint8_t **dp, bool *ok) {
    if (x == IDX_NULL) *ok = cr->null_pass;
    else if (x != IDX_PLAIN) {
        if (!*dp) {
            int rc = dict_pass(cr, dp);
            if (rc) return rc;
        }
        *ok = (*dp)[x];
    } else if (!tn_vector_is_valid(v, at + j)) *ok = cr->null_pass;
    else *ok = pass_value(cr, (const uint8_t *)v->data + (size_t)(at + j) * cr->width);
    return 0;
}

/* The first filter column over all n rows of the batch: the rows [row0, row0+n) that pass go
 * to v at `at` and their batch positions to sel; *m is their count. On a dictionary page
 * without NULLs the test is fused with the decoding: each index is looked up in the pass table
 * and its value written at the next free slot, which only a passing row advances (no values
 * of failing rows kept, no compaction pass); other pages go through take_sel and are compacted
 * in place. */
static int filter_first(tn_parquet_scan *s, colreader *cr, int64_t row0, uint32_t n, tn_vector *v,
                        uint32_t at, uint32_t *sel, uint32_t *idx, uint32_t *prow, uint32_t *m) {
    const uint32_t w = cr->width;
    uint8_t *base = (uint8_t *)v->data + (size_t)at * w;
    uint32_t o = 0, i = 0;
    int rc;
    if (v->validity)
        for (uint32_t q = at; q < at + n; q++) tn_vector_set_valid_bit(v, q, true);
    while (i < n) {
        int64_t r = row0 + i;
        if (!cr->page_loaded || r >= cr->page_first + cr->page_rows) {
            if ((rc = pq_sc_load_page(s, cr, r))) return rc;
        }
        if (r < cr->page_first)
            return tn_error_set(TN_EINTERNAL, "parquet scan: row %lld before page start %lld",
                                (long long)r, (long long)cr->page_first);
        int64_t avail = cr->page_first + cr->page_rows - r;
        uint32_t k = avail < (int64_t)(n - i) ? (uint32_t)avail : n - i;
        uint32_t p0 = (uint32_t)(r - cr->page_first);
        if (cr->dict_stream && !cr->valid) {
            if (p0 < cr->page_cursor)
                return tn_error_set(TN_EINTERNAL, "parquet scan: page rows read backwards");
            if (p0 > cr->page_cursor && (rc = pq_sc_dict_take(cr, NULL, p0 - cr->page_cursor))) return rc;
            uint32_t *tmp = pq_sc_sbuf_get(&cr->s_idx, (size_t)k * 4);
            const uint8_t *dp;
            if (!tmp) return NOMEM();
            if ((rc = dict_idx(cr, tmp, k)) || (rc = dict_pass(cr, &dp))) return rc;
            const uint8_t *dict = cr->dict.p;
#define FUSED(T)                                                                             \
    do {                                                                                     \
        T *d_ = (T *)base;                                                                   \
        const T *s_ = (const T *)dict;                                                       \
        for (uint32_t j = 0; j < k; j++) {                                                   \
            uint32_t x = tmp[j];                                                             \
            d_[o] = s_[x];                                                                   \
            sel[o] = i + j;                                                                  \
            o += dp[x];                                                                      \
        }                                                                                    \
    } while (0)
            switch (w) {
            case 1: FUSED(uint8_t); break;
            case 2: FUSED(uint16_t); break;
            case 4: FUSED(uint32_t); break;
            case 8: FUSED(uint64_t); break;
            default:
                for (uint32_t j = 0; j < k; j++) {
                    uint32_t x = tmp[j];
                    put_val(base + (size_t)o * w, dict + (size_t)x * w, w);
                    sel[o] = i + j;
                    o += dp[x];
                }
            }
#undef FUSED
            cr->page_cursor = p0 + k;
        } else if (!cr->valid && !cr->dict_stream && cr->vals) {
            /* a plain page without NULLs: test each value where it was decoded, write it at
             * the next free slot */
            const uint8_t *src = cr->vals + (size_t)p0 * w;
            const fpred *p = &cr->fp[0];
            if (cr->nfp == 1 && p->ibits && (w == 4 || w == 8)) {
                const uint64_t *bits = p->ibits;
                const uint64_t lo = (uint64_t)p->ivals[0], range = p->ibits_range;
#define PLAIN_IN(T)                                                                          \
    do {                                                                                     \
        T *d_ = (T *)base;                                                                   \
        for (uint32_t j = 0; j < k; j++) {  /* page values need not be aligned: memcpy */  \
            T x;                                                                             \
            memcpy(&x, src + (size_t)j * sizeof(T), sizeof(T));                              \
            uint64_t off = (uint64_t)(int64_t)x - lo;                                        \
            d_[o] = x;                                                                       \
            sel[o] = i + j;                                                                  \
            o += off < range && ((bits[off >> 6] >> (off & 63)) & 1);                        \
        }                                                                                    \
    } while (0)
                if (w == 4) PLAIN_IN(int32_t);
                else PLAIN_IN(int64_t);
#undef PLAIN_IN
            } else {
                for (uint32_t j = 0; j < k; j++) {
                    put_val(base + (size_t)o * w, src + (size_t)j * w, w);
                    sel[o] = i + j;
                    o += pass_value(cr, src + (size_t)j * w);
                }
            }
        } else {
            /* the segment's rows decoded at o.., then the passing ones moved down */
            for (uint32_t j = 0; j < k; j++) sel[o + j] = i + j;
            if ((rc = take_sel(s, cr, row0, sel + o, k, v, at + o, idx, prow))) return rc;
            const uint8_t *dp = NULL;
            uint32_t o2 = o;
            for (uint32_t j = 0; j < k; j++) {
                bool ok;
                if ((rc = row_passes(cr, v, at, o + j, idx[j], &dp, &ok))) return rc;
                if (!ok) continue;
                if (o2 != o + j) {
                    put_val(base + (size_t)o2 * w, base + (size_t)(o + j) * w, w);
                    if (v->validity) tn_vector_set_valid_bit(v, at + o2, tn_vector_is_valid(v, at + o + j));
                }
                sel[o2++] = i + j;
            }
            if (v->validity)        /* slots left by failing rows are valid for the next rows */
                for (uint32_t q = at + o2; q < at + o + k; q++) tn_vector_set_valid_bit(v, q, true);
            o = o2;
        }
        i += k;
    }
    *m = o;
    return 0;
}

/* Decodes the rows [row0, row0+n) of the row group that pass the filter, appending them to out
 * (at out->count; n <= room) and their file row indexes to row_ids. */
int pq_sc_filter_batch(tn_parquet_scan *s, int64_t row0, uint32_t n, tn_chunk *out,
                        int64_t *row_ids) {
    uint32_t at = out->count, m = n;
    uint32_t *sel = s->sel, *idx = s->idx, *prow = s->idx + TN_VECTOR_SIZE;
    uint8_t *keep = s->keep;
    int rc = 0;
    uint32_t c = 0;
    uint32_t f0 = 0;
    if (s->nfcols > 0 && !s->cols[s->order[0]].nc) {
        c = s->order[0];
        rc = filter_first(s, &s->cols[c], row0, n, &out->cols[c], at, sel, idx, prow, &m);
        if (rc) goto fail;
        f0 = 1;
    } else {
        for (uint32_t i = 0; i < n; i++) sel[i] = i;
    }
    for (uint32_t f = f0; f < s->nfcols && m > 0; f++) {
        c = s->order[f];
        colreader *cr = &s->cols[c];
        tn_vector *v = &out->cols[c];
        rc = take_sel(s, cr, row0, sel, m, v, at, idx, prow);
        if (rc) goto fail;
        const uint8_t *dp = NULL;
        uint32_t kept = 0;
        for (uint32_t j = 0; j < m; j++) {
            bool ok;
            if ((rc = row_passes(cr, v, at, j, idx[j], &dp, &ok))) goto fail;
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
            if (s->cols[c].nc) {              /* nested: assembled whole, then selected */
                rc = nested_sel(s, &s->cols[c], row0, n, sel, m, &out->cols[c]);
                if (rc) goto fail;
                continue;
            }
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
