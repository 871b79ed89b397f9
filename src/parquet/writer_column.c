/*
 * parquet/writer_column.c: one column of the Parquet writer: stages a vector's rows into
 * physical values (tight per-type loops), keeps page / chunk / file statistics, builds the
 * chunk dictionary (open addressing), and encodes + compresses v1 data pages (RLE definition
 * levels with a u32 length prefix; RLE_DICTIONARY or PLAIN values) and the dictionary page.
 * It never touches the file: writer.c writes the chunk's pages and the footer.
 */
#include "parquet/writerInt.h"

#include <math.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "PLAIN encoding assumes a little-endian host");

#define PQW_MIN_SLOT_BITS 10u
#define PQW_MAX_DICT_ENTRIES (1u << 24)   /* fall back to PLAIN past this many entries */

/* ---------------------------------------------------------------------------------------------
 * Small helpers.
 */
static int grow_array(void **p, uint32_t *cap, uint64_t need, size_t elem) {
    if (need <= *cap) return 0;
    if (need > UINT32_MAX / 2) return tn_error_set(TN_ELIMIT, "too many values in one page or dictionary");
    uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 1024;
    while (ncap < need) ncap *= 2;
    void *np = tn_realloc(*p, (size_t)ncap * elem);
    if (!np) return TN_ENOMEM;
    *p = np;
    *cap = (uint32_t)ncap;
    return 0;
}

static int put_uleb(tn_buf *b, uint64_t v) {
    uint8_t tmp[10];
    int n = 0;
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        tmp[n++] = byte | (v ? 0x80 : 0);
    } while (v);
    return tn_buf_append(b, tmp, (size_t)n);
}

static uint32_t decimal_flba_width(int precision) {
    tn_int128 p10 = 1;
    for (int i = 0; i < precision; i++) p10 *= 10;
    for (uint32_t n = 1; n < 16; n++) {
        tn_int128 maxv = ((tn_int128)1 << (8 * n - 1)) - 1;
        if (maxv >= p10 - 1) return n;
    }
    return 16;
}

static void put_be(uint8_t *dst, tn_int128 v, uint32_t width) {
    unsigned __int128 u = (unsigned __int128)v;
    for (uint32_t i = 0; i < width; i++) dst[width - 1 - i] = (uint8_t)(u >> (8 * i));
}

static inline uint32_t hash_slot(uint64_t k, uint32_t bits) {
    return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}
static inline uint64_t hash_x(tn_int128 x) {
    unsigned __int128 u = (unsigned __int128)x;
    return (uint64_t)u ^ ((uint64_t)(u >> 64) * 0xC2B2AE3D27D4EB4Full);
}

static int str_cmp(const char *a, uint32_t alen, const uint8_t *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    int r = n ? memcmp(a, b, n) : 0;
    if (r) return r;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Statistics.
 */
static void stat_reset(pqw_stat *st) {
    st->nulls = st->nans = st->nonnull = 0;
    st->has = false;
    st->smin_cut = st->smax_cut = false;
    st->imin = st->imax = 0;
    st->dmin = st->dmax = 0;
    st->xmin = st->xmax = 0;
    tn_buf_clear(&st->smin);
    tn_buf_clear(&st->smax);
}

static void stat_free(pqw_stat *st) {
    tn_buf_free(&st->smin);
    tn_buf_free(&st->smax);
}

static int set_buf(tn_buf *b, const void *p, size_t n) {
    tn_buf_clear(b);
    if (tn_buf_reserve(b, n ? n : 1)) return TN_ENOMEM;
    return tn_buf_append(b, p, n);
}

/* Statistics of long strings and binaries are bounds, not values (as parquet-mr's
 * BinaryTruncator, so one 300 MB value does not become 300 MB of min and max in every page
 * and in the footer): a min longer than PQW_STAT_MAX_BYTES is cut to a prefix (a lower bound),
 * a max is cut and rounded up (its last character, or byte for binaries, incremented: an upper
 * bound); VARCHAR cuts at UTF-8 character boundaries and stays valid UTF-8. The column chunk
 * statistics then say is_min/max_value_exact = false. A max that cannot be rounded up (all
 * U+10FFFF / 0xFF) is kept whole. */
#define PQW_STAT_MAX_BYTES 64

static bool utf8_cont(uint8_t b) { return (b & 0xC0) == 0x80; }

/* Decodes the UTF-8 character s[j..e); -1 if invalid. */
static int32_t utf8_decode(const uint8_t *s, size_t j, size_t e) {
    size_t n = e - j;
    uint8_t b = s[j];
    if (n == 1 && b < 0x80) return b;
    if (n == 2 && (b >> 5) == 6) return (int32_t)(((b & 0x1F) << 6) | (s[j + 1] & 0x3F));
    if (n == 3 && (b >> 4) == 14) return (int32_t)(((b & 0x0F) << 12) | ((s[j + 1] & 0x3F) << 6) | (s[j + 2] & 0x3F));
    if (n == 4 && (b >> 3) == 30)
        return (int32_t)(((b & 0x07) << 18) | ((s[j + 1] & 0x3F) << 12) | ((s[j + 2] & 0x3F) << 6) | (s[j + 3] & 0x3F));
    return -1;
}

static size_t utf8_encode(uint8_t *o, int32_t cp) {
    if (cp < 0x80) { o[0] = (uint8_t)cp; return 1; }
    if (cp < 0x800) { o[0] = (uint8_t)(0xC0 | (cp >> 6)); o[1] = (uint8_t)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (uint8_t)(0xE0 | (cp >> 12)); o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (uint8_t)(0xF0 | (cp >> 18)); o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* Where to cut s (n > PQW_STAT_MAX_BYTES bytes): at most PQW_STAT_MAX_BYTES bytes, at a
 * character start for strings. */
static size_t stat_cut(const pqw_col *c, const uint8_t *s, size_t n) {
    size_t k = PQW_STAT_MAX_BYTES;
    if (c->type.id == TN_TYPE_VARCHAR) {
        while (k > 0 && utf8_cont(s[k])) k--;
        if (k == 0) k = PQW_STAT_MAX_BYTES;            /* not UTF-8: cut bytes */
    }
    return k;
}

static int set_min(const pqw_col *c, pqw_stat *st, const void *p, size_t n) {
    if (n <= PQW_STAT_MAX_BYTES) {
        st->smin_cut = false;
        return set_buf(&st->smin, p, n);
    }
    st->smin_cut = true;
    return set_buf(&st->smin, p, stat_cut(c, p, n));
}

static int set_max(const pqw_col *c, pqw_stat *st, const void *pv, size_t n) {
    const uint8_t *p = pv;
    st->smax_cut = false;
    if (n <= PQW_STAT_MAX_BYTES) return set_buf(&st->smax, p, n);
    uint8_t tmp[PQW_STAT_MAX_BYTES + 4];
    size_t len = stat_cut(c, p, n);
    bool utf8 = c->type.id == TN_TYPE_VARCHAR;
    while (len > 0) {
        if (utf8) {
            size_t j = len - 1;
            while (j > 0 && utf8_cont(p[j])) j--;
            int32_t cp = utf8_decode(p, j, len);
            if (cp < 0) { utf8 = false; continue; }    /* not UTF-8: round bytes */
            if (cp < 0x10FFFF) {
                cp = cp + 1 == 0xD800 ? 0xE000 : cp + 1;
                memcpy(tmp, p, j);
                size_t e = utf8_encode(tmp + j, cp);
                st->smax_cut = true;
                return set_buf(&st->smax, tmp, j + e);
            }
            len = j;
        } else {
            if (p[len - 1] < 0xFF) {
                memcpy(tmp, p, len);
                tmp[len - 1]++;
                st->smax_cut = true;
                return set_buf(&st->smax, tmp, len);
            }
            len--;
        }
    }
    return set_buf(&st->smax, p, n);
}

/* Compares a's min (which = 0) or max (1) with b's; both must have min/max. */
static int stat_cmp(const pqw_col *c, const pqw_stat *a, const pqw_stat *b, int which) {
    switch (c->kind) {
    case PQW_BOOL: case PQW_I32: case PQW_I64: {
        int64_t x = which ? a->imax : a->imin, y = which ? b->imax : b->imin;
        return x < y ? -1 : x > y;
    }
    case PQW_FLOAT: case PQW_DOUBLE: {
        double x = which ? a->dmax : a->dmin, y = which ? b->dmax : b->dmin;
        return x < y ? -1 : x > y;
    }
    case PQW_FLBA: {
        tn_int128 x = which ? a->xmax : a->xmin, y = which ? b->xmax : b->xmin;
        return x < y ? -1 : x > y;
    }
    case PQW_BYTES: {
        const tn_buf *x = which ? &a->smax : &a->smin, *y = which ? &b->smax : &b->smin;
        return str_cmp((const char *)x->data, (uint32_t)x->len, y->data, y->len);
    }
    }
    return 0;
}

/* dst += src (counts, and min/max widened). */
static int stat_merge(const pqw_col *c, pqw_stat *dst, const pqw_stat *src) {
    dst->nulls += src->nulls;
    dst->nans += src->nans;
    dst->nonnull += src->nonnull;
    if (!src->has) return 0;
    bool first = !dst->has;
    dst->has = true;
    if (first || stat_cmp(c, src, dst, 0) < 0) {
        dst->imin = src->imin; dst->dmin = src->dmin; dst->xmin = src->xmin;
        if (c->kind == PQW_BYTES && set_buf(&dst->smin, src->smin.data, src->smin.len)) return TN_ENOMEM;
        dst->smin_cut = src->smin_cut;
    }
    if (first || stat_cmp(c, src, dst, 1) > 0) {
        dst->imax = src->imax; dst->dmax = src->dmax; dst->xmax = src->xmax;
        if (c->kind == PQW_BYTES && set_buf(&dst->smax, src->smax.data, src->smax.len)) return TN_ENOMEM;
        dst->smax_cut = src->smax_cut;
    }
    return 0;
}

static int stat_copy(const pqw_col *c, pqw_stat *dst, const pqw_stat *src) {
    stat_reset(dst);
    return stat_merge(c, dst, src);
}

/* Float statistics: -0.0 for a zero min, +0.0 for a zero max (parquet.thrift Statistics). */
static double norm_zero(double d, int which) {
    if (d == 0) return which ? 0.0 : -0.0;
    return d;
}

int pqw_stat_bytes(const pqw_col *c, const pqw_stat *st, int which, tn_buf *out) {
    uint8_t tmp[16];
    switch (c->kind) {
    case PQW_BOOL:
        tmp[0] = (uint8_t)((which ? st->imax : st->imin) != 0);
        return tn_buf_append(out, tmp, 1);
    case PQW_I32:
        tn_store_u32le(tmp, (uint32_t)(int32_t)(which ? st->imax : st->imin));
        return tn_buf_append(out, tmp, 4);
    case PQW_I64:
        tn_store_u64le(tmp, (uint64_t)(which ? st->imax : st->imin));
        return tn_buf_append(out, tmp, 8);
    case PQW_FLOAT: {
        float f = (float)norm_zero(which ? st->dmax : st->dmin, which);
        memcpy(tmp, &f, 4);
        return tn_buf_append(out, tmp, 4);
    }
    case PQW_DOUBLE: {
        double d = norm_zero(which ? st->dmax : st->dmin, which);
        memcpy(tmp, &d, 8);
        return tn_buf_append(out, tmp, 8);
    }
    case PQW_FLBA:
        put_be(tmp, which ? st->xmax : st->xmin, c->vw);
        return tn_buf_append(out, tmp, c->vw);
    case PQW_BYTES: {
        const tn_buf *b = which ? &st->smax : &st->smin;
        return b->len ? tn_buf_append(out, b->data, b->len) : tn_buf_reserve(out, 1);
    }
    }
    return tn_error_set(TN_EINTERNAL, "unknown column kind");
}

int pqw_stat_value(const pqw_col *c, const pqw_stat *st, int which, tn_arena *arena, tn_value *out) {
    memset(out, 0, sizeof *out);
    out->type = c->type;
    switch (c->kind) {
    case PQW_BOOL: out->u.b = (which ? st->imax : st->imin) != 0; break;
    case PQW_I32: case PQW_I64: out->u.i = which ? st->imax : st->imin; break;
    case PQW_FLOAT: case PQW_DOUBLE: out->u.d = norm_zero(which ? st->dmax : st->dmin, which); break;
    case PQW_FLBA: out->u.i128 = which ? st->xmax : st->xmin; break;
    case PQW_BYTES: {
        const tn_buf *b = which ? &st->smax : &st->smin;
        char *p = tn_arena_alloc(arena, b->len + 1);
        if (!p) return TN_ENOMEM;
        if (b->len) memcpy(p, b->data, b->len);
        p[b->len] = 0;
        out->u.s.ptr = p;
        out->u.s.len = (uint32_t)b->len;
        break;
    }
    }
    return 0;
}

/* Min/max (NaNs counted, not compared) of m FLOAT (u32 bits) or DOUBLE (u64 bits) values;
 * is_double is a constant at each call, so each gets its own loop. */
static inline __attribute__((always_inline)) void float_stats(pqw_stat *st, const pqw_scratch *s,
                                                              uint32_t m, const bool is_double) {
    bool has = st->has;
    double mn = st->dmin, mx = st->dmax;
    int64_t nans = 0;
    for (uint32_t i = 0; i < m; i++) {
        double f;
        if (is_double) {
            memcpy(&f, &s->u64[i], 8);
        } else {
            float x;
            memcpy(&x, &s->u32[i], 4);
            f = x;
        }
        if (f != f) { nans++; continue; }
        if (!has) { mn = mx = f; has = true; continue; }
        if (f < mn) mn = f;
        if (f > mx) mx = f;
    }
    st->dmin = mn; st->dmax = mx; st->has = has; st->nans += nans;
}

/* Page statistics over the m staged non-null values. */
static int stats_update(pqw_col *c, pqw_scratch *s, uint32_t m) {
    pqw_stat *st = &c->pst;
    st->nonnull += m;
    if (m == 0) return 0;
    switch (c->kind) {
    case PQW_BOOL: case PQW_I32: case PQW_I64: {
        int64_t mn, mx;
        uint32_t i = 0;
        if (st->has) { mn = st->imin; mx = st->imax; }
        else if (c->kind == PQW_BOOL) { mn = mx = s->u8[0]; }
        else if (c->kind == PQW_I32) { mn = mx = (int32_t)s->u32[0]; }
        else { mn = mx = (int64_t)s->u64[0]; }
        if (c->kind == PQW_BOOL) {
            for (; i < m; i++) { int64_t x = s->u8[i]; mn = x < mn ? x : mn; mx = x > mx ? x : mx; }
        } else if (c->kind == PQW_I32) {
            int32_t a = (int32_t)mn, b = (int32_t)mx;
            for (; i < m; i++) { int32_t x = (int32_t)s->u32[i]; a = x < a ? x : a; b = x > b ? x : b; }
            mn = a; mx = b;
        } else {
            for (; i < m; i++) { int64_t x = (int64_t)s->u64[i]; mn = x < mn ? x : mn; mx = x > mx ? x : mx; }
        }
        st->imin = mn; st->imax = mx; st->has = true;
        return 0;
    }
    case PQW_FLOAT: float_stats(st, s, m, false); return 0;
    case PQW_DOUBLE: float_stats(st, s, m, true); return 0;
    case PQW_FLBA: {
        tn_int128 mn = st->has ? st->xmin : s->x[0], mx = st->has ? st->xmax : s->x[0];
        for (uint32_t i = 0; i < m; i++) {
            tn_int128 x = s->x[i];
            if (x < mn) mn = x;
            if (x > mx) mx = x;
        }
        st->xmin = mn; st->xmax = mx; st->has = true;
        return 0;
    }
    case PQW_BYTES: {
        uint32_t i = 0;
        if (!st->has) {
            if (set_min(c, st, s->s[0].ptr, s->s[0].len) || set_max(c, st, s->s[0].ptr, s->s[0].len))
                return TN_ENOMEM;
            st->has = true;
            i = 1;
        }
        for (; i < m; i++) {
            tn_str x = s->s[i];
            if (str_cmp(x.ptr, x.len, st->smin.data, st->smin.len) < 0) {
                if (set_min(c, st, x.ptr, x.len)) return TN_ENOMEM;
            } else if (str_cmp(x.ptr, x.len, st->smax.data, st->smax.len) > 0) {
                if (set_max(c, st, x.ptr, x.len)) return TN_ENOMEM;
            }
        }
        return 0;
    }
    }
    return 0;
}

/* Page statistics of dictionary-encoded strings: each entry is compared once per page (the
 * first time the page uses it) instead of once per value. */
static int stats_update_dict_bytes(pqw_col *c, uint32_t m) {
    pqw_stat *st = &c->pst;
    const uint32_t *idx = c->idx + c->pnonnull;
    uint32_t seq = c->page_seq;
    st->nonnull += m;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t e = idx[i];
        if (c->dstamp[e] == seq) continue;
        c->dstamp[e] = seq;
        const char *p = (const char *)c->dbytes.data + c->doff[e];
        uint32_t len = c->dlen[e];
        if (!st->has) {
            if (set_min(c, st, p, len) || set_max(c, st, p, len)) return TN_ENOMEM;
            st->has = true;
        } else if (str_cmp(p, len, st->smin.data, st->smin.len) < 0) {
            if (set_min(c, st, p, len)) return TN_ENOMEM;
        } else if (str_cmp(p, len, st->smax.data, st->smax.len) > 0) {
            if (set_max(c, st, p, len)) return TN_ENOMEM;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Column setup.
 */
int pqw_col_init(pqw_col *c, const tn_parquet_column_spec *spec, const pqw_config *cfg) {
    memset(c, 0, sizeof *c);
    c->name = spec->name;
    c->type = spec->type;
    c->nullable = spec->nullable;
    c->max_def = spec->nullable ? 1 : 0;
    c->cfg = cfg;
    switch ((tn_type_id)spec->type.id) {
    case TN_TYPE_BOOLEAN: c->kind = PQW_BOOL; c->phys = PQ_BOOLEAN; c->vw = 0; break;
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_DATE:
        c->kind = PQW_I32; c->phys = PQ_INT32; c->vw = 4; break;
    case TN_TYPE_BIGINT: case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ:
        c->kind = PQW_I64; c->phys = PQ_INT64; c->vw = 8; break;
    case TN_TYPE_FLOAT: c->kind = PQW_FLOAT; c->phys = PQ_FLOAT; c->vw = 4; break;
    case TN_TYPE_DOUBLE: c->kind = PQW_DOUBLE; c->phys = PQ_DOUBLE; c->vw = 8; break;
    case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY: c->kind = PQW_BYTES; c->phys = PQ_BYTE_ARRAY; c->vw = 0; break;
    case TN_TYPE_DECIMAL:
        if (spec->type.precision < 1 || spec->type.precision > TN_DECIMAL_MAX_PRECISION ||
            spec->type.scale > spec->type.precision)
            return tn_error_set(TN_EINVAL, "column '%s': invalid DECIMAL(%d,%d)", spec->name,
                                spec->type.precision, spec->type.scale);
        if (spec->type.precision <= 9) { c->kind = PQW_I32; c->phys = PQ_INT32; c->vw = 4; }
        else if (spec->type.precision <= TN_DECIMAL_INT64_MAX_PRECISION) { c->kind = PQW_I64; c->phys = PQ_INT64; c->vw = 8; }
        else { c->kind = PQW_FLBA; c->phys = PQ_FIXED_LEN_BYTE_ARRAY; c->vw = decimal_flba_width(spec->type.precision); }
        break;
    default:
        return tn_error_set(TN_EUNSUPPORTED, "column '%s': type %s cannot be written to Parquet",
                            spec->name, tn_type_id_name((tn_type_id)spec->type.id));
    }
    c->dict_mode = cfg->dictionary && c->kind != PQW_BOOL;
    c->asc = c->desc = c->ci_ok = true;
    c->page_seq = 1;
    return 0;
}

static void dict_clear(pqw_col *c) {
    if (c->slots && c->dn) memset(c->slots, 0, sizeof(uint32_t) << c->slot_bits);
    c->dn = 0;
    c->dict_plain_bytes = 0;
    tn_buf_clear(&c->dbytes);
}

void pqw_col_free(pqw_col *c) {
    tn_free(c->slots);
    tn_free(c->dkey); tn_free(c->dx); tn_free(c->doff); tn_free(c->dlen); tn_free(c->dhash); tn_free(c->dstamp);
    tn_buf_free(&c->dbytes);
    tn_free(c->defs); tn_free(c->reps); tn_free(c->idx);
    tn_vector_free(&c->gather);
    tn_buf_free(&c->plain);
    tn_buf_free(&c->pages);
    tn_free(c->plist);
    tn_buf_free(&c->pstat_bytes);
    stat_free(&c->pst); stat_free(&c->prev); stat_free(&c->cst); stat_free(&c->fst);
    memset(c, 0, sizeof *c);
}

int pqw_scratch_init(pqw_scratch *s) {
    memset(s, 0, sizeof *s);
    s->u8 = tn_malloc(PQW_SEG);
    s->u32 = tn_malloc(PQW_SEG * sizeof(uint32_t));
    s->u64 = tn_malloc(PQW_SEG * sizeof(uint64_t));
    s->x = tn_malloc(PQW_SEG * sizeof(tn_int128));
    s->s = tn_malloc(PQW_SEG * sizeof(tn_str));
    if (!s->u8 || !s->u32 || !s->u64 || !s->x || !s->s) { pqw_scratch_free(s); return TN_ENOMEM; }
    return 0;
}

void pqw_scratch_free(pqw_scratch *s) {
    tn_free(s->u8); tn_free(s->u32); tn_free(s->u64); tn_free(s->x); tn_free(s->s);
    tn_buf_free(&s->body); tn_buf_free(&s->comp);
    memset(s, 0, sizeof *s);
}

size_t pqw_col_buffered(const pqw_col *c) {
    return c->pages.len + c->plain.len + (size_t)c->prow * 8 + c->dbytes.len + (size_t)c->dn * 8 +
           c->pstat_bytes.len;
}

/* ---------------------------------------------------------------------------------------------
 * Staging: rows [row0, row0+k) of v -> definition levels (appended to the page) and the
 * non-null values, compacted, in the scratch array of the column's kind. *m = non-null count.
 */
#define PQW_COMPACT(SRC_T, DST, CONV)                                                           \
    do {                                                                                        \
        const SRC_T *src_ = (const SRC_T *)v->data + row0;                                      \
        if (!v->validity) {                                                                     \
            for (uint32_t i_ = 0; i_ < k; i_++) { SRC_T x = src_[i_]; DST[i_] = (CONV); }       \
            m = k;                                                                              \
        } else {                                                                                \
            for (uint32_t i_ = 0; i_ < k; i_++) {                                               \
                SRC_T x = src_[i_];                                                             \
                DST[m] = (CONV);                                                                \
                m += (uint32_t)((v->validity[(row0 + i_) >> 6] >> ((row0 + i_) & 63)) & 1);     \
            }                                                                                   \
        }                                                                                       \
    } while (0)

static int stage(pqw_col *c, pqw_scratch *s, const tn_vector *v, uint32_t row0, uint32_t k, uint32_t *m_out,
                 bool levels) {
    uint32_t m = 0;
    if (c->nullable && levels) {
        int rc = grow_array((void **)&c->defs, &c->defs_cap, (uint64_t)c->prow + k, sizeof(uint32_t));
        if (rc) return rc;
        uint32_t *d = c->defs + c->prow;
        if (!v->validity) {
            for (uint32_t i = 0; i < k; i++) d[i] = 1;
        } else {
            for (uint32_t i = 0; i < k; i++)
                d[i] = (uint32_t)((v->validity[(row0 + i) >> 6] >> ((row0 + i) & 63)) & 1);
        }
    }
    switch ((tn_type_id)c->type.id) {
    case TN_TYPE_BOOLEAN: PQW_COMPACT(uint8_t, s->u8, (uint8_t)(x != 0)); break;
    case TN_TYPE_TINYINT: PQW_COMPACT(int8_t, s->u32, (uint32_t)(int32_t)x); break;
    case TN_TYPE_SMALLINT: PQW_COMPACT(int16_t, s->u32, (uint32_t)(int32_t)x); break;
    case TN_TYPE_INTEGER: case TN_TYPE_DATE: PQW_COMPACT(int32_t, s->u32, (uint32_t)x); break;
    case TN_TYPE_BIGINT: case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ:
        PQW_COMPACT(int64_t, s->u64, (uint64_t)x); break;
    case TN_TYPE_FLOAT: PQW_COMPACT(uint32_t, s->u32, x); break;
    case TN_TYPE_DOUBLE: PQW_COMPACT(uint64_t, s->u64, x); break;
    case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY: PQW_COMPACT(tn_str, s->s, x); break;
    case TN_TYPE_DECIMAL:
        if (c->kind == PQW_I32) {
            PQW_COMPACT(int64_t, s->u64, (uint64_t)x);
            for (uint32_t i = 0; i < m; i++) {
                int64_t x = (int64_t)s->u64[i];
                if (x < INT32_MIN || x > INT32_MAX)
                    return tn_error_set(TN_EINVAL, "column '%s': value out of range for DECIMAL(%d,%d)",
                                        c->name, c->type.precision, c->type.scale);
                s->u32[i] = (uint32_t)(int32_t)x;
            }
        } else if (c->kind == PQW_I64) {
            PQW_COMPACT(int64_t, s->u64, (uint64_t)x);
        } else {
            PQW_COMPACT(tn_int128, s->x, x);
            if (c->vw < 16) {
                tn_int128 lim = (tn_int128)1 << (8 * c->vw - 1);
                for (uint32_t i = 0; i < m; i++)
                    if (s->x[i] >= lim || s->x[i] < -lim)
                        return tn_error_set(TN_EINVAL, "column '%s': value out of range for DECIMAL(%d,%d)",
                                            c->name, c->type.precision, c->type.scale);
            }
        }
        break;
    default:
        return tn_error_set(TN_EINTERNAL, "column '%s': unexpected type", c->name);
    }
    *m_out = m;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Dictionary.
 */
static int dict_rehash(pqw_col *c, uint32_t bits) {
    uint32_t *ns = tn_calloc((size_t)1 << bits, sizeof(uint32_t));
    if (!ns) return TN_ENOMEM;
    uint32_t mask = (1u << bits) - 1;
    for (uint32_t e = 0; e < c->dn; e++) {
        uint64_t h;
        switch (c->kind) {
        case PQW_BYTES: h = c->dhash[e] >> (64 - bits); break;
        case PQW_FLBA: h = hash_slot(hash_x(c->dx[e]), bits); break;
        default: h = hash_slot(c->dkey[e], bits); break;
        }
        uint32_t p = (uint32_t)h;
        while (ns[p]) p = (p + 1) & mask;
        ns[p] = e + 1;
    }
    tn_free(c->slots);
    c->slots = ns;
    c->slot_bits = bits;
    return 0;
}

/* Room for `more` new entries at load factor <= 1/2. */
static int dict_reserve(pqw_col *c, uint32_t more) {
    uint64_t need = (uint64_t)c->dn + more;
    int rc = 0;
    if (need > c->dcap) {
        uint32_t cap = c->dcap;
        switch (c->kind) {
        case PQW_BYTES:
            rc = grow_array((void **)&c->doff, &cap, need, sizeof(uint32_t));
            if (!rc) { cap = c->dcap; rc = grow_array((void **)&c->dlen, &cap, need, sizeof(uint32_t)); }
            if (!rc) { cap = c->dcap; rc = grow_array((void **)&c->dhash, &cap, need, sizeof(uint64_t)); }
            if (!rc) { cap = c->dcap; rc = grow_array((void **)&c->dstamp, &cap, need, sizeof(uint32_t)); }
            break;
        case PQW_FLBA: rc = grow_array((void **)&c->dx, &cap, need, sizeof(tn_int128)); break;
        default: rc = grow_array((void **)&c->dkey, &cap, need, sizeof(uint64_t)); break;
        }
        if (rc) return rc;
        c->dcap = cap;
    }
    uint32_t bits = c->slot_bits ? c->slot_bits : PQW_MIN_SLOT_BITS;
    while (((uint64_t)1 << bits) < need * 2) bits++;
    if (bits > 31) return tn_error_set(TN_ELIMIT, "column '%s': dictionary too large", c->name);
    if (!c->slots || bits != c->slot_bits) return dict_rehash(c, bits);
    return 0;
}

/* Looks up / inserts the m staged values; appends their indices to the page. */
static int dict_encode(pqw_col *c, pqw_scratch *s, uint32_t m) {
    int rc = dict_reserve(c, m);
    if (rc) return rc;
    rc = grow_array((void **)&c->idx, &c->idx_cap, (uint64_t)c->pnonnull + m, sizeof(uint32_t));
    if (rc) return rc;
    uint32_t *out = c->idx + c->pnonnull;
    uint32_t *slots = c->slots, bits = c->slot_bits, mask = (1u << bits) - 1, dn = c->dn;
    switch (c->kind) {
    case PQW_I32: case PQW_FLOAT: case PQW_I64: case PQW_DOUBLE: {
        uint64_t *keys = c->dkey;
        bool narrow = c->kind == PQW_I32 || c->kind == PQW_FLOAT;
        for (uint32_t i = 0; i < m; i++) {
            uint64_t k = narrow ? s->u32[i] : s->u64[i];
            uint32_t h = hash_slot(k, bits);
            for (;;) {
                uint32_t sl = slots[h];
                if (!sl) { keys[dn] = k; slots[h] = ++dn; out[i] = dn - 1; break; }
                if (keys[sl - 1] == k) { out[i] = sl - 1; break; }
                h = (h + 1) & mask;
            }
        }
        c->dict_plain_bytes += (size_t)(dn - c->dn) * c->vw;
        break;
    }
    case PQW_FLBA: {
        tn_int128 *keys = c->dx;
        for (uint32_t i = 0; i < m; i++) {
            tn_int128 k = s->x[i];
            uint32_t h = hash_slot(hash_x(k), bits);
            for (;;) {
                uint32_t sl = slots[h];
                if (!sl) { keys[dn] = k; slots[h] = ++dn; out[i] = dn - 1; break; }
                if (keys[sl - 1] == k) { out[i] = sl - 1; break; }
                h = (h + 1) & mask;
            }
        }
        c->dict_plain_bytes += (size_t)(dn - c->dn) * c->vw;
        break;
    }
    case PQW_BYTES: {
        for (uint32_t i = 0; i < m; i++) {
            tn_str k = s->s[i];
            uint64_t hv = tn_hash_bytes(k.ptr, k.len, 0);
            uint32_t h = (uint32_t)(hv >> (64 - bits));
            for (;;) {
                uint32_t sl = slots[h];
                if (!sl) {
                    if (c->dbytes.len + k.len > UINT32_MAX) {
                        c->dn = dn;
                        return tn_error_set(TN_ELIMIT, "column '%s': dictionary too large", c->name);
                    }
                    c->doff[dn] = (uint32_t)c->dbytes.len;
                    c->dlen[dn] = k.len;
                    c->dhash[dn] = hv;
                    c->dstamp[dn] = 0;
                    if (k.len && tn_buf_append(&c->dbytes, k.ptr, k.len)) { c->dn = dn; return TN_ENOMEM; }
                    c->dict_plain_bytes += 4 + (size_t)k.len;
                    slots[h] = ++dn;
                    out[i] = dn - 1;
                    break;
                }
                uint32_t e = sl - 1;
                if (c->dhash[e] == hv && c->dlen[e] == k.len &&
                    (k.len == 0 || memcmp(c->dbytes.data + c->doff[e], k.ptr, k.len) == 0)) {
                    out[i] = e;
                    break;
                }
                h = (h + 1) & mask;
            }
        }
        break;
    }
    case PQW_BOOL:
        return tn_error_set(TN_EINTERNAL, "boolean columns are never dictionary-encoded");
    }
    c->dn = dn;
    return 0;
}

/* PLAIN encoding of dictionary entry e appended to b (space reserved by the caller or not). */
static int dict_entry_plain(const pqw_col *c, uint32_t e, tn_buf *b) {
    uint8_t tmp[16];
    switch (c->kind) {
    case PQW_I32: case PQW_FLOAT: tn_store_u32le(tmp, (uint32_t)c->dkey[e]); return tn_buf_append(b, tmp, 4);
    case PQW_I64: case PQW_DOUBLE: tn_store_u64le(tmp, c->dkey[e]); return tn_buf_append(b, tmp, 8);
    case PQW_FLBA: put_be(tmp, c->dx[e], c->vw); return tn_buf_append(b, tmp, c->vw);
    case PQW_BYTES:
        tn_store_u32le(tmp, c->dlen[e]);
        if (tn_buf_append(b, tmp, 4)) return TN_ENOMEM;
        return c->dlen[e] ? tn_buf_append(b, c->dbytes.data + c->doff[e], c->dlen[e]) : 0;
    case PQW_BOOL: break;
    }
    return tn_error_set(TN_EINTERNAL, "boolean columns are never dictionary-encoded");
}

/* ---------------------------------------------------------------------------------------------
 * PLAIN values.
 */
static int plain_append(pqw_col *c, pqw_scratch *s, uint32_t m) {
    if (m == 0) return 0;
    tn_buf *b = &c->plain;
    switch (c->kind) {
    case PQW_BOOL: c->page_plain_bytes += m; return tn_buf_append(b, s->u8, m);
    case PQW_I32: case PQW_FLOAT: c->page_plain_bytes += (size_t)m * 4; return tn_buf_append(b, s->u32, (size_t)m * 4);
    case PQW_I64: case PQW_DOUBLE: c->page_plain_bytes += (size_t)m * 8; return tn_buf_append(b, s->u64, (size_t)m * 8);
    case PQW_FLBA: {
        size_t n = (size_t)m * c->vw;
        if (tn_buf_reserve(b, n)) return TN_ENOMEM;
        uint8_t *p = b->data + b->len;
        for (uint32_t i = 0; i < m; i++, p += c->vw) put_be(p, s->x[i], c->vw);
        b->len += n;
        c->page_plain_bytes += n;
        return 0;
    }
    case PQW_BYTES: {
        size_t n = 0;
        for (uint32_t i = 0; i < m; i++) n += 4 + (size_t)s->s[i].len;
        if (tn_buf_reserve(b, n)) return TN_ENOMEM;
        uint8_t *p = b->data + b->len;
        for (uint32_t i = 0; i < m; i++) {
            tn_store_u32le(p, s->s[i].len);
            if (s->s[i].len) memcpy(p + 4, s->s[i].ptr, s->s[i].len);
            p += 4 + (size_t)s->s[i].len;
        }
        b->len += n;
        c->page_plain_bytes += n;
        return 0;
    }
    }
    return 0;
}

/* PLAIN size of the m staged values (dictionary pages: to judge whether the dictionary pays). */
static size_t plain_size(const pqw_col *c, const pqw_scratch *s, uint32_t m) {
    if (c->kind != PQW_BYTES) return (size_t)m * c->vw;
    size_t n = 0;
    for (uint32_t i = 0; i < m; i++) n += 4 + (size_t)s->s[i].len;
    return n;
}

static uint32_t index_bit_width(const pqw_col *c) {
    int w = c->dn ? pq_bit_width(c->dn - 1) : 0;
    return w < 1 ? 1 : (uint32_t)w;
}

static size_t page_bytes_estimate(const pqw_col *c) {
    if (c->dict_mode) return ((size_t)c->pnonnull * index_bit_width(c) + 7) / 8 + (c->nullable ? c->prow / 8 : 0);
    if (c->kind == PQW_BOOL) return c->plain.len / 8 + (c->nullable ? c->prow / 8 : 0);
    return c->plain.len + (c->nullable ? c->prow / 8 : 0);
}

/* ---------------------------------------------------------------------------------------------
 * Pages.
 */

/* Compresses s->body and appends PageHeader + stored body to out. *unc += header + body. */
static int store_page(pqw_col *c, pqw_scratch *s, pq_page_header *h, tn_buf *out, int64_t *unc,
                      int32_t *total) {
    const uint8_t *stored = s->body.data;
    size_t slen = s->body.len;
    int rc;
    if (c->cfg->codec != TN_CODEC_UNCOMPRESSED) {
        tn_buf_clear(&s->comp);
        rc = pq_compress(c->cfg->codec, c->cfg->level, s->body.data, s->body.len, &s->comp);
        if (rc) return tn_error_prefix(rc, "column '%s'", c->name);
        stored = s->comp.data;
        slen = s->comp.len;
    }
    if (s->body.len > INT32_MAX - 4096 || slen > INT32_MAX - 4096)
        return tn_error_set(TN_ELIMIT, "column '%s': page of %zu bytes is too large", c->name, s->body.len);
    h->uncompressed_page_size = (int32_t)s->body.len;
    h->compressed_page_size = (int32_t)slen;
    size_t at = out->len;
    rc = pq_encode_page_header(out, h);
    if (rc) return tn_error_prefix(rc, "column '%s': page header", c->name);
    size_t hlen = out->len - at;
    if (slen && tn_buf_append(out, stored, slen)) return TN_ENOMEM;
    *unc += (int64_t)(hlen + s->body.len);
    *total = (int32_t)(hlen + slen);
    return 0;
}

/* RLE levels with their u32 length prefix (v1 data pages): repetition levels (levels = reps,
 * max = max_rep) or definition levels (defs, max_def; flat columns take the all-equal fast path). */
static int encode_levels(pqw_col *c, tn_buf *b, const uint32_t *levels, uint32_t max) {
    size_t at = b->len;
    uint8_t zero[4] = {0, 0, 0, 0};
    int rc = tn_buf_append(b, zero, 4);
    if (rc) return rc;
    if (max == 1 && levels == c->defs && c->max_rep == 0 && (c->pnonnull == c->prow || c->pnonnull == 0)) {
        rc = put_uleb(b, (uint64_t)c->prow << 1);
        if (!rc) rc = tn_buf_append_byte(b, c->pnonnull ? 1 : 0);
    } else {
        rc = pq_rle_encode(b, pq_bit_width(max), levels, c->prow);
    }
    if (rc) return rc;
    size_t len = b->len - at - 4;
    if (len > UINT32_MAX) return tn_error_set(TN_ELIMIT, "levels too long");
    tn_store_u32le(b->data + at, (uint32_t)len);
    return 0;
}

static bool dict_pays(const pqw_col *c) {
    size_t idx_bytes = ((size_t)c->pnonnull * index_bit_width(c) + 7) / 8 + 1;
    return c->dict_plain_bytes + idx_bytes < c->page_plain_bytes;
}

/* Re-encodes the current page's indices as PLAIN values (the dictionary did not pay). */
static int page_indices_to_plain(pqw_col *c) {
    tn_buf_clear(&c->plain);
    size_t n = c->page_plain_bytes;
    if (n && tn_buf_reserve(&c->plain, n)) return TN_ENOMEM;
    for (uint32_t i = 0; i < c->pnonnull; i++) {
        int rc = dict_entry_plain(c, c->idx[i], &c->plain);
        if (rc) return rc;
    }
    return 0;
}

static int record_page(pqw_col *c, uint64_t offset, int32_t size) {
    int rc = grow_array((void **)&c->plist, &c->plist_cap, (uint64_t)c->npages + 1, sizeof(pqw_page));
    if (rc) return rc;
    pqw_page *p = &c->plist[c->npages];
    memset(p, 0, sizeof *p);
    p->offset = offset;
    p->size = size;
    p->first_row = c->chunk_recs;
    p->nulls = c->pst.nulls;
    p->null_page = c->pnonnull == 0;
    if (c->pst.has) {
        p->has_minmax = true;
        size_t a = c->pstat_bytes.len;
        rc = pqw_stat_bytes(c, &c->pst, 0, &c->pstat_bytes);
        size_t b = c->pstat_bytes.len;
        if (!rc) rc = pqw_stat_bytes(c, &c->pst, 1, &c->pstat_bytes);
        if (rc) return rc;
        if (c->pstat_bytes.len > UINT32_MAX) return tn_error_set(TN_ELIMIT, "page statistics too large");
        p->min_off = (uint32_t)a; p->min_len = (uint32_t)(b - a);
        p->max_off = (uint32_t)b; p->max_len = (uint32_t)(c->pstat_bytes.len - b);
    }
    /* Column index: boundary order over non-null pages; an all-NaN page has no usable bounds. */
    if (!p->null_page) {
        if (!c->pst.has) {
            c->ci_ok = false;
        } else {
            if (c->prev_set) {
                int a = stat_cmp(c, &c->pst, &c->prev, 0), b = stat_cmp(c, &c->pst, &c->prev, 1);
                if (a < 0 || b < 0) c->asc = false;
                if (a > 0 || b > 0) c->desc = false;
            }
            rc = stat_copy(c, &c->prev, &c->pst);
            if (rc) return rc;
            c->prev_set = true;
        }
    }
    c->npages++;
    return 0;
}

int pqw_col_flush_page(pqw_col *c, pqw_scratch *s) {
    if (c->prow == 0) return 0;
    int rc;
    if (c->dict_mode && c->pnonnull > 0 && !c->pay_checked) {
        c->pay_checked = true;
        if (!dict_pays(c)) {
            rc = page_indices_to_plain(c);
            if (rc) return rc;
            dict_clear(c);
            c->dict_mode = false;
        }
    }
    bool use_dict = c->dict_mode && c->pnonnull > 0;
    tn_buf *body = &s->body;
    tn_buf_clear(body);
    if (c->max_rep) {
        rc = encode_levels(c, body, c->reps, c->max_rep);
        if (rc) return tn_error_prefix(rc, "column '%s': repetition levels", c->name);
    }
    if (c->nullable) {
        rc = encode_levels(c, body, c->defs, c->max_def);
        if (rc) return tn_error_prefix(rc, "column '%s': definition levels", c->name);
    }
    if (use_dict) {
        uint32_t bw = index_bit_width(c);
        rc = tn_buf_append_byte(body, (uint8_t)bw);
        if (!rc) rc = pq_rle_encode(body, (int)bw, c->idx, c->pnonnull);
        if (rc) return tn_error_prefix(rc, "column '%s': dictionary indices", c->name);
    } else if (c->kind == PQW_BOOL) {
        size_t n = (c->plain.len + 7) / 8;
        if (tn_buf_reserve(body, n ? n : 1)) return TN_ENOMEM;
        uint8_t *p = body->data + body->len;
        memset(p, 0, n);
        const uint8_t *v = c->plain.data;
        for (size_t i = 0; i < c->plain.len; i++) p[i >> 3] |= (uint8_t)(v[i] << (i & 7));
        body->len += n;
    } else if (c->plain.len) {
        if (tn_buf_append(body, c->plain.data, c->plain.len)) return TN_ENOMEM;
    }

    pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = PQ_PAGE_DATA;
    h.has_data = true;
    h.data.num_values = (int32_t)c->prow;
    h.data.encoding = use_dict ? PQ_ENC_RLE_DICTIONARY : PQ_ENC_PLAIN;
    h.data.definition_level_encoding = PQ_ENC_RLE;
    h.data.repetition_level_encoding = PQ_ENC_RLE;
    uint64_t offset = c->pages.len;
    int32_t size = 0;
    rc = store_page(c, s, &h, &c->pages, &c->chunk_unc, &size);
    if (rc) return rc;
    c->pst.nulls = (int64_t)c->prow - c->pnonnull;
    rc = record_page(c, offset, size);
    if (rc) return rc;
    if (use_dict) c->pages_dict++;
    else c->pages_plain++;
    rc = stat_merge(c, &c->cst, &c->pst);
    if (rc) return rc;
    c->chunk_rows += c->prow;
    c->chunk_recs += c->prec;
    c->prow = c->pnonnull = c->prec = 0;
    c->page_plain_bytes = 0;
    tn_buf_clear(&c->plain);
    stat_reset(&c->pst);
    if (++c->page_seq == 0) {   /* wrapped: forget every entry's stamp */
        c->page_seq = 1;
        if (c->dstamp && c->dn) memset(c->dstamp, 0, (size_t)c->dn * sizeof(uint32_t));
    }
    /* Fallback: past the budget, the rest of the chunk is PLAIN (pages so far keep the dictionary). */
    if (c->dict_mode && (c->dict_plain_bytes > c->cfg->dict_max_bytes || c->dn > PQW_MAX_DICT_ENTRIES))
        c->dict_mode = false;
    return 0;
}

/* Statistics and encoding (dictionary indices or PLAIN) of the m values staged in s. */
static int encode_staged(pqw_col *c, pqw_scratch *s, uint32_t m) {
    int rc;
    if (c->dict_mode && c->kind == PQW_BYTES) {
        rc = dict_encode(c, s, m);
        if (!rc) rc = stats_update_dict_bytes(c, m);
        c->page_plain_bytes += plain_size(c, s, m);
        return rc;
    }
    rc = stats_update(c, s, m);
    if (rc) return rc;
    if (!c->dict_mode) return plain_append(c, s, m);
    rc = dict_encode(c, s, m);
    c->page_plain_bytes += plain_size(c, s, m);
    return rc;
}

/* Whether the current page is to end now. Until the dictionary has proven it pays, the page
 * may still become PLAIN: bound it by its PLAIN size too. */
static bool page_full(const pqw_col *c) {
    const pqw_config *cfg = c->cfg;
    return c->prow >= cfg->page_rows || page_bytes_estimate(c) >= cfg->page_bytes ||
           (c->dict_mode && !c->pay_checked && c->page_plain_bytes >= cfg->page_bytes) ||
           (c->dict_mode && (c->dict_plain_bytes > cfg->dict_max_bytes || c->dn > PQW_MAX_DICT_ENTRIES));
}

int pqw_col_append(pqw_col *c, pqw_scratch *s, const tn_vector *v, uint32_t row0, uint32_t n) {
    const pqw_config *cfg = c->cfg;
    int rc = 0;
    while (n > 0) {
        uint32_t k = n < PQW_SEG ? n : PQW_SEG;
        uint32_t room = cfg->page_rows > c->prow ? cfg->page_rows - c->prow : 1;
        if (k > room) k = room;
        if (!c->dict_mode && c->vw) {
            size_t fit = cfg->page_bytes > c->plain.len ? (cfg->page_bytes - c->plain.len) / c->vw : 0;
            if (fit < 1) fit = 1;
            if (k > fit) k = (uint32_t)fit;
        }
        if (c->kind == PQW_BYTES) {
            /* Bound the page (and a dictionary's growth) by bytes: stop after the row that fills it. */
            size_t used = c->dict_mode ? (c->pay_checked ? 0 : c->page_plain_bytes) : c->plain.len;
            size_t budget = cfg->page_bytes > used ? cfg->page_bytes - used : 1;
            const tn_str *src = (const tn_str *)v->data + row0;
            size_t sum = 0;
            uint32_t i = 0;
            while (i < k) {
                if (tn_vector_is_valid(v, row0 + i)) sum += 4 + (size_t)src[i].len;
                i++;
                if (sum >= budget) break;
            }
            k = i;
        }
        uint32_t m = 0;
        rc = stage(c, s, v, row0, k, &m, true);
        if (!rc) rc = encode_staged(c, s, m);
        if (rc) return rc;
        c->prow += k;
        c->prec += k;
        c->pnonnull += m;
        row0 += k;
        n -= k;
        if (page_full(c)) {
            rc = pqw_col_flush_page(c, s);
            if (rc) return rc;
        }
    }
    return 0;
}

int pqw_col_append_levels(pqw_col *c, pqw_scratch *s, const uint32_t *defs, const uint32_t *reps,
                          uint32_t nlev, const tn_vector *v, const uint32_t *sel, uint32_t nvals) {
    const pqw_config *cfg = c->cfg;
    uint32_t p = 0, vp = 0;
    int rc = 0;
    if (c->gather.capacity == 0 && (rc = tn_vector_init(&c->gather, c->type, PQW_SEG))) return rc;
    while (p < nlev) {
        /* A piece of at most PQW_SEG levels (so of values too), bounded in bytes for strings,
         * cut back to where a record starts when one does inside it. */
        size_t used = c->kind != PQW_BYTES ? 0 : c->dict_mode ? (c->pay_checked ? 0 : c->page_plain_bytes) : c->plain.len;
        size_t budget = cfg->page_bytes > used ? cfg->page_bytes - used : 1, sum = 0;
        const tn_str *strs = c->kind == PQW_BYTES ? (const tn_str *)v->data : NULL;
        uint32_t q = p, m = 0, last_start = p;
        while (q < nlev && q - p < PQW_SEG) {
            if (reps[q] == 0) last_start = q;
            if (defs[q] == c->max_def) {
                if (strs) sum += 4 + (size_t)strs[sel[vp + m]].len;
                m++;
            }
            q++;
            if (sum >= budget) break;
        }
        if (q < nlev && reps[q] != 0 && last_start > p) {
            q = last_start;                    /* end the piece at a record boundary */
            m = 0;
            for (uint32_t i = p; i < q; i++) m += defs[i] == c->max_def;
        }
        if (vp + m > nvals) return tn_error_set(TN_EINTERNAL, "column '%s': levels and values disagree", c->name);
        uint32_t k = q - p, recs = 0;
        rc = grow_array((void **)&c->defs, &c->defs_cap, (uint64_t)c->prow + k, sizeof(uint32_t));
        if (!rc && c->max_rep) rc = grow_array((void **)&c->reps, &c->reps_cap, (uint64_t)c->prow + k, sizeof(uint32_t));
        if (rc) return rc;
        if (c->nullable) memcpy(c->defs + c->prow, defs + p, (size_t)k * sizeof(uint32_t));
        if (c->max_rep) memcpy(c->reps + c->prow, reps + p, (size_t)k * sizeof(uint32_t));
        for (uint32_t i = p; i < q; i++) recs += reps[i] == 0;
        uint32_t staged = 0;
        rc = tn_vector_gather(&c->gather, v, sel + vp, m);
        if (!rc) rc = stage(c, s, &c->gather, 0, m, &staged, false);
        if (!rc) rc = encode_staged(c, s, m);
        if (rc) return rc;
        c->prow += k;
        c->prec += recs;
        c->pnonnull += m;
        vp += m;
        p = q;
        if ((p == nlev || reps[p] == 0) && page_full(c)) {
            rc = pqw_col_flush_page(c, s);
            if (rc) return rc;
        }
    }
    if (vp != nvals) return tn_error_set(TN_EINTERNAL, "column '%s': levels and values disagree", c->name);
    return 0;
}

int pqw_col_dict_page(pqw_col *c, pqw_scratch *s, tn_buf *out, int64_t *unc, int32_t *nentries) {
    *nentries = 0;
    if (c->pages_dict == 0 || c->dn == 0) return 0;
    tn_buf *body = &s->body;
    tn_buf_clear(body);
    if (tn_buf_reserve(body, c->dict_plain_bytes ? c->dict_plain_bytes : 1)) return TN_ENOMEM;
    for (uint32_t e = 0; e < c->dn; e++) {
        int rc = dict_entry_plain(c, e, body);
        if (rc) return rc;
    }
    pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = PQ_PAGE_DICTIONARY;
    h.has_dictionary = true;
    h.dictionary.num_values = (int32_t)c->dn;
    h.dictionary.encoding = PQ_ENC_PLAIN;
    int32_t size = 0;
    int rc = store_page(c, s, &h, out, unc, &size);
    if (rc) return rc;
    *nentries = (int32_t)c->dn;
    return 0;
}

int pqw_col_end_chunk(pqw_col *c) {
    int rc = stat_merge(c, &c->fst, &c->cst);
    stat_reset(&c->cst);
    stat_reset(&c->pst);
    stat_reset(&c->prev);
    dict_clear(c);
    c->dict_mode = c->cfg->dictionary && c->kind != PQW_BOOL;
    c->pay_checked = false;
    c->prow = c->pnonnull = c->prec = 0;
    c->page_plain_bytes = 0;
    tn_buf_clear(&c->plain);
    tn_buf_clear(&c->pages);
    tn_buf_clear(&c->pstat_bytes);
    c->npages = 0;
    c->chunk_rows = c->chunk_recs = 0;
    c->chunk_unc = 0;
    c->pages_dict = c->pages_plain = 0;
    c->prev_set = false;
    c->asc = c->desc = c->ci_ok = true;
    return rc;
}
