/*
 * bitmap/bitmap.c: tn_bitmap, a set of 64-bit values as CRoaring 32-bit bitmaps keyed by their
 * high 32 bits (the Roaring64Map model), and its set algebra. Bytes reach CRoaring's decoder only
 * after portable.c validated them (libroaring 0.2.66 checks bounds, not content); serialization
 * goes through portable.c's writer so the container choices are Java's. CRoaring allocation
 * failures inside its in-place operations cannot be detected through its 0.2 API.
 */
#include "bitmap/bitmapInt.h"

#include <roaring/roaring.h>
#include <string.h>

struct tn_bitmap {
    uint32_t n, cap;
    uint32_t *hi;               /* ascending high keys */
    roaring_bitmap_t **bm;      /* never NULL; may be empty between operations */
};

tn_bitmap *tn_bitmap_create(void) { return tn_calloc(1, sizeof(tn_bitmap)); }

void tn_bitmap_clear(tn_bitmap *b) {
    if (!b) return;
    for (uint32_t i = 0; i < b->n; i++) roaring_bitmap_free(b->bm[i]);
    b->n = 0;
}

void tn_bitmap_free(tn_bitmap *b) {
    if (!b) return;
    tn_bitmap_clear(b);
    tn_free(b->hi);
    tn_free(b->bm);
    tn_free(b);
}

/* Index of bucket hi, or -(insertion point) - 1. */
static int64_t find(const tn_bitmap *b, uint32_t hi) {
    if (b->n && b->hi[b->n - 1] < hi) return -(int64_t)b->n - 1;
    int64_t lo = 0, up = (int64_t)b->n - 1;
    while (lo <= up) {
        int64_t mid = (lo + up) / 2;
        if (b->hi[mid] == hi) return mid;
        if (b->hi[mid] < hi) lo = mid + 1;
        else up = mid - 1;
    }
    return -lo - 1;
}

/* Insert bm (taken) as bucket hi at position at. */
static int insert_at(tn_bitmap *b, uint32_t at, uint32_t hi, roaring_bitmap_t *bm) {
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 1;
        uint32_t *nh = tn_realloc(b->hi, (size_t)cap * sizeof *nh);
        if (!nh) { roaring_bitmap_free(bm); return TN_ENOMEM; }
        b->hi = nh;
        roaring_bitmap_t **nb = tn_realloc(b->bm, (size_t)cap * sizeof *nb);
        if (!nb) { roaring_bitmap_free(bm); return TN_ENOMEM; }
        b->bm = nb;
        b->cap = cap;
    }
    memmove(b->hi + at + 1, b->hi + at, (size_t)(b->n - at) * sizeof *b->hi);
    memmove(b->bm + at + 1, b->bm + at, (size_t)(b->n - at) * sizeof *b->bm);
    b->hi[at] = hi;
    b->bm[at] = bm;
    b->n++;
    return 0;
}

static roaring_bitmap_t *bucket(tn_bitmap *b, uint32_t hi) {
    int64_t i = find(b, hi);
    if (i >= 0) return b->bm[i];
    roaring_bitmap_t *bm = roaring_bitmap_create();
    if (!bm) { tn_error_set(TN_ENOMEM, "out of memory"); return NULL; }
    if (insert_at(b, (uint32_t)(-i - 1), hi, bm)) return NULL;
    return bm;
}

static const roaring_bitmap_t *cbucket(const tn_bitmap *b, uint32_t hi) {
    int64_t i = find(b, hi);
    return i >= 0 ? b->bm[i] : NULL;
}

/* Drop empty buckets. */
static void compact(tn_bitmap *b) {
    uint32_t w = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (roaring_bitmap_is_empty(b->bm[i])) {
            roaring_bitmap_free(b->bm[i]);
            continue;
        }
        b->hi[w] = b->hi[i];
        b->bm[w++] = b->bm[i];
    }
    b->n = w;
}

tn_bitmap *tn_bitmap_copy(const tn_bitmap *b) {
    tn_bitmap *c = tn_bitmap_create();
    if (!c) return NULL;
    for (uint32_t i = 0; i < b->n; i++) {
        roaring_bitmap_t *bm = roaring_bitmap_copy(b->bm[i]);
        if (!bm || insert_at(c, c->n, b->hi[i], bm)) {
            tn_bitmap_free(c);
            tn_error_set(TN_ENOMEM, "out of memory");
            return NULL;
        }
    }
    return c;
}

/* OR a CRoaring bitmap (taken) into bucket hi. */
static int merge_taken(tn_bitmap *b, uint32_t hi, roaring_bitmap_t *bm) {
    if (roaring_bitmap_is_empty(bm)) {
        roaring_bitmap_free(bm);
        return 0;
    }
    int64_t i = find(b, hi);
    if (i < 0) return insert_at(b, (uint32_t)(-i - 1), hi, bm);
    if (roaring_bitmap_is_empty(b->bm[i])) {
        roaring_bitmap_free(b->bm[i]);
        b->bm[i] = bm;
        return 0;
    }
    roaring_bitmap_or_inplace(b->bm[i], bm);
    roaring_bitmap_free(bm);
    return 0;
}

int tn_bitmap_or_bytes(tn_bitmap *b, const void *buf, size_t len) {
    tn_bitmap_info info;
    int rc = tn_bitmap_validate(buf, len, &info);
    if (rc) return rc;
    const char *p = buf;
    if (!info.is64) {
        if (info.cardinality == 0) return 0;
        roaring_bitmap_t *bm = roaring_bitmap_portable_deserialize_safe(p, len);
        if (!bm) return tn_error_set(TN_ENOMEM, "out of memory decoding a bitmap");
        return merge_taken(b, 0, bm);
    }
    size_t pos = 8;
    for (uint32_t k = 0; k < info.buckets; k++) {
        uint32_t hi = tn_load_u32le((const uint8_t *)p + pos);
        pos += 4;
        size_t sz = roaring_bitmap_portable_deserialize_size(p + pos, len - pos);
        if (sz == 0) return tn_error_set(TN_EINTERNAL, "bitmap: CRoaring disagrees with the validator at byte %zu", pos);
        roaring_bitmap_t *bm = roaring_bitmap_portable_deserialize_safe(p + pos, sz);
        if (!bm) return tn_error_set(TN_ENOMEM, "out of memory decoding a bitmap");
        if ((rc = merge_taken(b, hi, bm))) return rc;
        pos += sz;
    }
    return 0;
}

int tn_bitmap_decode(tn_bitmap **out, const void *buf, size_t len) {
    *out = NULL;
    tn_bitmap *b = tn_bitmap_create();
    if (!b) return TN_ENOMEM;
    int rc = tn_bitmap_or_bytes(b, buf, len);
    if (rc) {
        tn_bitmap_free(b);
        return rc;
    }
    *out = b;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Serialization: CRoaring's containers as views for portable.c's writer.
 */
static int views_of(const roaring_bitmap_t *bm, rb_src **out, uint32_t *n) {
    const roaring_array_t *ra = &bm->high_low_container;
    rb_src *cs = tn_malloc(((size_t)ra->size + 1) * sizeof *cs);
    if (!cs) return TN_ENOMEM;
    uint32_t m = 0;
    for (int32_t i = 0; i < ra->size; i++) {
        rb_src c = {.key = ra->keys[i]};
        switch (ra->typecodes[i]) {
        case BITSET_CONTAINER_TYPE_CODE: {
            const bitset_container_t *bc = ra->containers[i];
            c.kind = RB_BITSET;
            c.data = (const uint8_t *)bc->array;
            if (bc->cardinality >= 0) c.card = (uint32_t)bc->cardinality;
            else
                for (uint32_t w = 0; w < 1024; w++) c.card += (uint32_t)__builtin_popcountll(bc->array[w]);
            break;
        }
        case ARRAY_CONTAINER_TYPE_CODE: {
            const array_container_t *ac = ra->containers[i];
            c.kind = RB_ARRAY;
            c.n = c.card = (uint32_t)ac->cardinality;
            c.data = (const uint8_t *)ac->array;
            break;
        }
        case RUN_CONTAINER_TYPE_CODE: {
            const run_container_t *rc = ra->containers[i];
            c.kind = RB_RUN;
            c.n = (uint32_t)rc->n_runs;
            c.data = (const uint8_t *)rc->runs;
            for (int32_t r = 0; r < rc->n_runs; r++) c.card += (uint32_t)rc->runs[r].length + 1;
            break;
        }
        default:
            tn_free(cs);
            return tn_error_set(TN_EINTERNAL, "bitmap: CRoaring container type %u", ra->typecodes[i]);
        }
        if (c.card) cs[m++] = c;
    }
    *out = cs;
    *n = m;
    return 0;
}

static int put_bucket(tn_buf *out, const roaring_bitmap_t *bm) {
    rb_src *cs = NULL;
    uint32_t n = 0;
    int rc = views_of(bm, &cs, &n);
    if (!rc) rc = tn_bitmap_put32(out, cs, n);
    tn_free(cs);
    return rc;
}

int tn_bitmap_serialize(const tn_bitmap *b, tn_bitmap_layout layout, tn_buf *out) {
    uint32_t nonempty = 0;
    bool high = false;
    for (uint32_t i = 0; i < b->n; i++)
        if (!roaring_bitmap_is_empty(b->bm[i])) {
            nonempty++;
            high |= b->hi[i] != 0;
        }
    size_t start = out->len;
    int rc = 0;
    if (layout == TN_BITMAP_32 && high)
        return tn_error_set(TN_ELIMIT, "bitmap holds values >= 2^32; the 32-bit format cannot hold them");
    if (layout == TN_BITMAP_32 || (layout == TN_BITMAP_AUTO && !high)) {
        const roaring_bitmap_t *bm = cbucket(b, 0);
        if (bm) return put_bucket(out, bm);
        return tn_bitmap_put32(out, NULL, 0);
    }
    uint8_t hdr[8];
    tn_store_u64le(hdr, nonempty);
    if ((rc = tn_buf_append(out, hdr, 8))) return rc;
    for (uint32_t i = 0; i < b->n && !rc; i++) {
        if (roaring_bitmap_is_empty(b->bm[i])) continue;
        tn_store_u32le(hdr, b->hi[i]);
        rc = tn_buf_append(out, hdr, 4);
        if (!rc) rc = put_bucket(out, b->bm[i]);
    }
    if (rc) out->len = start;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Elements.
 */
uint64_t tn_bitmap_cardinality(const tn_bitmap *b) {
    uint64_t c = 0;
    for (uint32_t i = 0; i < b->n; i++) c += roaring_bitmap_get_cardinality(b->bm[i]);
    return c;
}

bool tn_bitmap_is_empty(const tn_bitmap *b) {
    for (uint32_t i = 0; i < b->n; i++)
        if (!roaring_bitmap_is_empty(b->bm[i])) return false;
    return true;
}

int tn_bitmap_add(tn_bitmap *b, uint64_t v) {
    roaring_bitmap_t *bm = bucket(b, (uint32_t)(v >> 32));
    if (!bm) return TN_ENOMEM;
    roaring_bitmap_add(bm, (uint32_t)v);
    return 0;
}

int tn_bitmap_add_many(tn_bitmap *b, const uint64_t *v, size_t n) {
    roaring_bitmap_t *cur = NULL;
    uint32_t cur_hi = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t hi = (uint32_t)(v[i] >> 32);
        if (!cur || hi != cur_hi) {
            if (!(cur = bucket(b, hi))) return TN_ENOMEM;
            cur_hi = hi;
        }
        roaring_bitmap_add(cur, (uint32_t)v[i]);
    }
    return 0;
}

int tn_bitmap_add_range(tn_bitmap *b, uint64_t lo, uint64_t hi) {
    if (lo > hi) return 0;
    for (uint64_t h = lo >> 32;; h++) {
        roaring_bitmap_t *bm = bucket(b, (uint32_t)h);
        if (!bm) return TN_ENOMEM;
        uint32_t a = h == lo >> 32 ? (uint32_t)lo : 0, z = h == hi >> 32 ? (uint32_t)hi : UINT32_MAX;
        roaring_bitmap_add_range_closed(bm, a, z);
        if (h == hi >> 32) break;
    }
    return 0;
}

int tn_bitmap_remove(tn_bitmap *b, uint64_t v) {
    int64_t i = find(b, (uint32_t)(v >> 32));
    if (i >= 0) roaring_bitmap_remove(b->bm[i], (uint32_t)v);
    compact(b);
    return 0;
}

bool tn_bitmap_contains(const tn_bitmap *b, uint64_t v) {
    const roaring_bitmap_t *bm = cbucket(b, (uint32_t)(v >> 32));
    return bm && roaring_bitmap_contains(bm, (uint32_t)v);
}

bool tn_bitmap_min(const tn_bitmap *b, uint64_t *out) {
    for (uint32_t i = 0; i < b->n; i++)
        if (!roaring_bitmap_is_empty(b->bm[i])) {
            *out = (uint64_t)b->hi[i] << 32 | roaring_bitmap_minimum(b->bm[i]);
            return true;
        }
    return false;
}

bool tn_bitmap_max(const tn_bitmap *b, uint64_t *out) {
    for (uint32_t i = b->n; i-- > 0;)
        if (!roaring_bitmap_is_empty(b->bm[i])) {
            *out = (uint64_t)b->hi[i] << 32 | roaring_bitmap_maximum(b->bm[i]);
            return true;
        }
    return false;
}

/* ---------------------------------------------------------------------------------------------
 * Algebra.
 */
int tn_bitmap_or(tn_bitmap *a, const tn_bitmap *b) {
    for (uint32_t j = 0; j < b->n; j++) {
        if (roaring_bitmap_is_empty(b->bm[j])) continue;
        int64_t i = find(a, b->hi[j]);
        if (i >= 0) roaring_bitmap_or_inplace(a->bm[i], b->bm[j]);
        else {
            roaring_bitmap_t *c = roaring_bitmap_copy(b->bm[j]);
            if (!c) return tn_error_set(TN_ENOMEM, "out of memory");
            int rc = insert_at(a, (uint32_t)(-i - 1), b->hi[j], c);
            if (rc) return rc;
        }
    }
    return 0;
}

int tn_bitmap_xor(tn_bitmap *a, const tn_bitmap *b) {
    for (uint32_t j = 0; j < b->n; j++) {
        int64_t i = find(a, b->hi[j]);
        if (i >= 0) roaring_bitmap_xor_inplace(a->bm[i], b->bm[j]);
        else if (!roaring_bitmap_is_empty(b->bm[j])) {
            roaring_bitmap_t *c = roaring_bitmap_copy(b->bm[j]);
            if (!c) return tn_error_set(TN_ENOMEM, "out of memory");
            int rc = insert_at(a, (uint32_t)(-i - 1), b->hi[j], c);
            if (rc) return rc;
        }
    }
    compact(a);
    return 0;
}

int tn_bitmap_and(tn_bitmap *a, const tn_bitmap *b) {
    for (uint32_t i = 0; i < a->n; i++) {
        const roaring_bitmap_t *o = cbucket(b, a->hi[i]);
        if (o) roaring_bitmap_and_inplace(a->bm[i], o);
        else roaring_bitmap_clear(a->bm[i]);
    }
    compact(a);
    return 0;
}

int tn_bitmap_andnot(tn_bitmap *a, const tn_bitmap *b) {
    for (uint32_t i = 0; i < a->n; i++) {
        const roaring_bitmap_t *o = cbucket(b, a->hi[i]);
        if (o) roaring_bitmap_andnot_inplace(a->bm[i], o);
    }
    compact(a);
    return 0;
}

uint64_t tn_bitmap_and_cardinality(const tn_bitmap *a, const tn_bitmap *b) {
    uint64_t c = 0;
    for (uint32_t i = 0; i < a->n; i++) {
        const roaring_bitmap_t *o = cbucket(b, a->hi[i]);
        if (o) c += roaring_bitmap_and_cardinality(a->bm[i], o);
    }
    return c;
}

uint64_t tn_bitmap_or_cardinality(const tn_bitmap *a, const tn_bitmap *b) {
    return tn_bitmap_cardinality(a) + tn_bitmap_cardinality(b) - tn_bitmap_and_cardinality(a, b);
}

uint64_t tn_bitmap_xor_cardinality(const tn_bitmap *a, const tn_bitmap *b) {
    return tn_bitmap_cardinality(a) + tn_bitmap_cardinality(b) - 2 * tn_bitmap_and_cardinality(a, b);
}

uint64_t tn_bitmap_andnot_cardinality(const tn_bitmap *a, const tn_bitmap *b) {
    return tn_bitmap_cardinality(a) - tn_bitmap_and_cardinality(a, b);
}

bool tn_bitmap_intersects(const tn_bitmap *a, const tn_bitmap *b) {
    for (uint32_t i = 0; i < a->n; i++) {
        const roaring_bitmap_t *o = cbucket(b, a->hi[i]);
        if (o && roaring_bitmap_intersect(a->bm[i], o)) return true;
    }
    return false;
}

bool tn_bitmap_is_subset(const tn_bitmap *sub, const tn_bitmap *b) {
    for (uint32_t i = 0; i < sub->n; i++) {
        if (roaring_bitmap_is_empty(sub->bm[i])) continue;
        const roaring_bitmap_t *o = cbucket(b, sub->hi[i]);
        if (!o || !roaring_bitmap_is_subset(sub->bm[i], o)) return false;
    }
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Iteration and subsets.
 */
typedef struct iter_ctx {
    int (*fn)(void *, uint64_t);
    void *ctx;
    int rc;
} iter_ctx;

static bool iter_cb(uint64_t v, void *p) {
    iter_ctx *c = p;
    c->rc = c->fn(c->ctx, v);
    return c->rc == 0;
}

int tn_bitmap_iterate(const tn_bitmap *b, int (*fn)(void *ctx, uint64_t v), void *ctx) {
    iter_ctx c = {fn, ctx, 0};
    for (uint32_t i = 0; i < b->n && !c.rc; i++) roaring_iterate64(b->bm[i], iter_cb, (uint64_t)b->hi[i] << 32, &c);
    return c.rc;
}

int tn_bitmap_subset_range(tn_bitmap **out, const tn_bitmap *b, uint64_t lo, uint64_t hi) {
    *out = tn_bitmap_create();
    if (!*out) return TN_ENOMEM;
    for (uint32_t i = 0; i < b->n && lo < hi; i++) {
        uint64_t base = (uint64_t)b->hi[i] << 32, top = base + ((uint64_t)1 << 32);
        if (top <= lo || base >= hi) continue;
        uint64_t a = lo > base ? lo - base : 0, z = hi < top ? hi - base : (uint64_t)1 << 32;
        roaring_bitmap_t *r = roaring_bitmap_from_range(a, z, 1);
        if (!r) goto nomem;
        roaring_bitmap_and_inplace(r, b->bm[i]);
        if (insert_at(*out, (*out)->n, b->hi[i], r)) goto nomem;
    }
    compact(*out);
    return 0;
nomem:
    tn_bitmap_free(*out);
    *out = NULL;
    return tn_error_set(TN_ENOMEM, "out of memory");
}

/* Up to limit values >= lo, starting in bucket i. */
static int take_from(tn_bitmap *o, const tn_bitmap *b, uint64_t lo, uint64_t limit) {
    uint32_t buf[256];
    for (uint32_t i = 0; i < b->n && limit; i++) {
        if (b->hi[i] < (uint32_t)(lo >> 32)) continue;
        roaring_uint32_iterator_t itv, *it = &itv;
        roaring_init_iterator(b->bm[i], it);
        bool more = b->hi[i] == (uint32_t)(lo >> 32) ? roaring_move_uint32_iterator_equalorlarger(it, (uint32_t)lo)
                                                   : it->has_value;
        roaring_bitmap_t *dst = NULL;
        while (more && limit) {
            uint32_t want = limit < 256 ? (uint32_t)limit : 256;
            uint32_t got = roaring_read_uint32_iterator(it, buf, want);
            if (got == 0) break;
            if (!dst && !(dst = bucket(o, b->hi[i]))) return TN_ENOMEM;
            roaring_bitmap_add_many(dst, got, buf);
            limit -= got;
            more = it->has_value;
        }
    }
    return 0;
}

int tn_bitmap_subset_limit(tn_bitmap **out, const tn_bitmap *b, uint64_t lo, uint64_t limit) {
    *out = tn_bitmap_create();
    if (!*out) return TN_ENOMEM;
    int rc = take_from(*out, b, lo, limit);
    if (rc) { tn_bitmap_free(*out); *out = NULL; }
    return rc;
}

int tn_bitmap_sub(tn_bitmap **out, const tn_bitmap *b, uint64_t offset, uint64_t limit) {
    *out = tn_bitmap_create();
    if (!*out) return TN_ENOMEM;
    for (uint32_t i = 0; i < b->n; i++) {
        uint64_t c = roaring_bitmap_get_cardinality(b->bm[i]);
        if (offset >= c) { offset -= c; continue; }
        uint32_t v;
        if (!roaring_bitmap_select(b->bm[i], (uint32_t)offset, &v)) break;
        int rc = take_from(*out, b, (uint64_t)b->hi[i] << 32 | v, limit);
        if (rc) { tn_bitmap_free(*out); *out = NULL; }
        return rc;
    }
    return 0;
}
