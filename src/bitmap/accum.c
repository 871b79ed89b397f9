/*
 * bitmap/accum.c: tn_bitmap_acc, the accumulator of an OR over many bitmap values (the bitmap()
 * aggregate and its family). Each value's bytes are validated and OR-ed in one walk of
 * portable.c, container by container, straight from the bytes: no CRoaring bitmap is built per
 * value (decoding one allocated a bitmap and its containers per row, which cost more than the
 * union itself). Containers are kept as a sorted u16 array while the union stays small and as an
 * 8 KB bitset past ACC_ARRAY_MAX values (the cardinality of a bitset is counted when asked), or as
 * "full" with no storage once a value holds all 65,536 (a run container of a few bytes must not
 * cost 8 KB: ranges of billions of values stay small), keyed by (high 32 bits, 16-bit key) in
 * ascending order. Knows nothing of CRoaring; the result becomes
 * a tn_bitmap (tn_bitmap_acc_to_bitmap) when bytes are wanted.
 */
#include "bitmap/bitmapInt.h"

#include <string.h>

/* An array container that would grow past this becomes a bitset: past it a merge of arrays
 * moves more bytes than setting bits does (CRoaring's lazy union uses the same bound). */
#define ACC_ARRAY_MAX 1024u
#define CARD_UNKNOWN UINT32_MAX
#define CARD_FULL 65536u     /* with no storage: every value of the container */

typedef struct acc_ct {
    uint64_t key;          /* high 32 bits << 16 | the container's 16-bit key */
    uint32_t card;         /* values; CARD_UNKNOWN for a bitset not counted since it changed;
                              CARD_FULL with arr = bits = NULL: all of them */
    uint32_t cap;          /* array: capacity in values; 0 = bitset */
    uint16_t *arr;         /* array: ascending values */
    uint64_t *bits;        /* bitset: 1024 words */
} acc_ct;

struct tn_bitmap_acc {
    acc_ct *c;
    uint32_t n, cap;
    uint32_t cursor;       /* where the walk of the current value is: its keys ascend */
    uint32_t hi;           /* the current value's high 32 bits (64-bit layout) */
};

static inline uint32_t ld16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

tn_bitmap_acc *tn_bitmap_acc_create(void) { return tn_calloc(1, sizeof(tn_bitmap_acc)); }

void tn_bitmap_acc_free(tn_bitmap_acc *a) {
    if (!a) return;
    for (uint32_t i = 0; i < a->n; i++) {
        tn_free(a->c[i].arr);
        tn_free(a->c[i].bits);
    }
    tn_free(a->c);
    tn_free(a);
}

/* The container of key, created empty (as an array) at its place when missing; NULL on ENOMEM. */
static acc_ct *container(tn_bitmap_acc *a, uint64_t key) {
    /* Every container before the cursor has a smaller key (a value's keys ascend, the cursor
     * starts at 0 per value): the place is at the cursor, the next one, or found by halving. */
    uint32_t lo = a->cursor, hi = a->n;
    if (lo < hi && a->c[lo].key < key) {
        lo++;
        while (lo < hi) {
            if (a->c[lo].key >= key) break;
            uint32_t mid = lo + (hi - lo) / 2;
            if (a->c[mid].key < key) lo = mid + 1;
            else hi = mid;
        }
    }
    a->cursor = lo;
    if (lo < a->n && a->c[lo].key == key) return &a->c[lo];
    if (a->n == a->cap) {
        uint32_t cap = a->cap ? a->cap * 2 : 4;
        acc_ct *c = tn_realloc(a->c, (size_t)cap * sizeof *c);
        if (!c) return NULL;
        a->c = c;
        a->cap = cap;
    }
    memmove(a->c + lo + 1, a->c + lo, (size_t)(a->n - lo) * sizeof *a->c);
    a->c[lo] = (acc_ct){.key = key};
    a->n++;
    return &a->c[lo];
}

static int to_bitset(acc_ct *c) {
    uint64_t *bits = tn_calloc(1024, sizeof *bits);
    if (!bits) return TN_ENOMEM;
    for (uint32_t i = 0; i < c->card; i++) bits[c->arr[i] >> 6] |= (uint64_t)1 << (c->arr[i] & 63);
    tn_free(c->arr);
    c->arr = NULL;
    c->cap = 0;
    c->bits = bits;
    c->card = CARD_UNKNOWN;
    return 0;
}

static void set_range(uint64_t *bits, uint32_t start, uint32_t last) {
    uint32_t w0 = start >> 6, w1 = last >> 6;
    uint64_t m0 = ~(uint64_t)0 << (start & 63), m1 = ~(uint64_t)0 >> (63 - (last & 63));
    if (w0 == w1) {
        bits[w0] |= m0 & m1;
        return;
    }
    bits[w0] |= m0;
    for (uint32_t w = w0 + 1; w < w1; w++) bits[w] = ~(uint64_t)0;
    bits[w1] |= m1;
}

/* OR a validated container into a bitset. */
static void or_into_bits(uint64_t *bits, const rb_src *s) {
    if (s->kind == RB_ARRAY) {
        for (uint32_t i = 0; i < s->n; i++) {
            uint32_t v = ld16(s->data + 2 * (size_t)i);
            bits[v >> 6] |= (uint64_t)1 << (v & 63);
        }
    } else if (s->kind == RB_BITSET) {
        for (uint32_t w = 0; w < 1024; w++) bits[w] |= tn_load_u64le(s->data + 8 * (size_t)w);
    } else {
        for (uint32_t r = 0; r < s->n; r++) {
            uint32_t start = ld16(s->data + 4 * (size_t)r);
            set_range(bits, start, start + ld16(s->data + 4 * (size_t)r + 2));
        }
    }
}

/* The values of a small array or run container (at most ACC_ARRAY_MAX) into out. */
static uint32_t values_of(const rb_src *s, uint16_t *out) {
    if (s->kind == RB_ARRAY) {
        for (uint32_t i = 0; i < s->n; i++) out[i] = (uint16_t)ld16(s->data + 2 * (size_t)i);
        return s->n;
    }
    uint32_t m = 0;
    for (uint32_t r = 0; r < s->n; r++) {
        uint32_t start = ld16(s->data + 4 * (size_t)r), last = start + ld16(s->data + 4 * (size_t)r + 2);
        for (uint32_t v = start; v <= last; v++) out[m++] = (uint16_t)v;
    }
    return m;
}

/* Union of the ascending values v[0, n) into the array of c (room for card + n is ensured):
 * merged from the back into the free room, then the gap left by duplicates closed. */
static int or_into_array(acc_ct *c, const uint16_t *v, uint32_t n) {
    uint32_t need = c->card + n;
    if (need > c->cap) {
        uint32_t cap = c->cap ? c->cap : 8;
        while (cap < need) cap *= 2;
        uint16_t *arr = tn_realloc(c->arr, (size_t)cap * sizeof *arr);
        if (!arr) return TN_ENOMEM;
        c->arr = arr;
        c->cap = cap;
    }
    uint16_t *a = c->arr;
    int64_t i = (int64_t)c->card - 1, j = (int64_t)n - 1, w = (int64_t)need - 1;
    while (j >= 0) {
        if (i >= 0 && a[i] > v[j]) a[w--] = a[i--];
        else if (i >= 0 && a[i] == v[j]) { a[w--] = a[i--]; j--; }
        else a[w--] = v[j--];
    }
    /* a[0, i] are in place, a[w + 1, need) hold the rest: close the gap (w - i duplicates) */
    uint32_t gap = (uint32_t)(w - i);
    if (gap) memmove(a + i + 1, a + w + 1, (size_t)(need - (uint32_t)(w + 1)) * sizeof *a);
    c->card = need - gap;
    return 0;
}

static int or_container(tn_bitmap_acc *a, const rb_src *s) {
    acc_ct *c = container(a, (uint64_t)a->hi << 16 | s->key);
    if (!c) return TN_ENOMEM;
    bool full = !c->bits && c->card == CARD_FULL;
    if (full) return 0;
    if (s->card == CARD_FULL) {
        tn_free(c->arr);
        tn_free(c->bits);
        *c = (acc_ct){.key = c->key, .card = CARD_FULL};
        return 0;
    }
    if (!c->bits && (s->kind == RB_BITSET || c->card + s->card > ACC_ARRAY_MAX)) {
        int rc = to_bitset(c);
        if (rc) return rc;
    }
    if (c->bits) {
        or_into_bits(c->bits, s);
        c->card = CARD_UNKNOWN;
        return 0;
    }
    uint16_t vals[ACC_ARRAY_MAX];
    uint32_t n = values_of(s, vals);
    return or_into_array(c, vals, n);
}

static int acc_bucket(void *ctx, uint32_t hi, const uint8_t *p, size_t len) {
    (void)p;
    (void)len;
    tn_bitmap_acc *a = ctx;
    a->hi = hi;
    return 0;
}

static int acc_visit(void *ctx, const rb_src *c) { return or_container(ctx, c); }

int tn_bitmap_acc_or_bytes(tn_bitmap_acc *a, const void *buf, size_t len) {
    a->cursor = 0;
    a->hi = 0;
    return tn_bitmap_walk(buf, len, acc_bucket, acc_visit, a, NULL);
}

static uint32_t card_of(acc_ct *c) {
    if (c->card == CARD_UNKNOWN) {
        uint32_t n = 0;
        for (uint32_t w = 0; w < 1024; w++) n += (uint32_t)__builtin_popcountll(c->bits[w]);
        c->card = n;
    }
    return c->card;
}

/* A container of the accumulator as a view (host little-endian: arrays and bitsets are already
 * the bytes portable.c reads). */
static rb_src view_of(acc_ct *c) {
    static const uint8_t whole_run[4] = {0x00, 0x00, 0xff, 0xff}; /* start 0, length - 1 = 65535 */
    rb_src s = {.key = (uint16_t)(c->key & 0xffff), .card = card_of(c)};
    if (!c->bits && c->card == CARD_FULL) {
        s.kind = RB_RUN;
        s.n = 1;
        s.data = whole_run;
    } else if (c->bits) {
        s.kind = RB_BITSET;
        s.data = (const uint8_t *)c->bits;
    } else {
        s.kind = RB_ARRAY;
        s.n = c->card;
        s.data = (const uint8_t *)c->arr;
    }
    return s;
}

int tn_bitmap_acc_merge(tn_bitmap_acc *dst, tn_bitmap_acc *src) {
    dst->cursor = 0;
    for (uint32_t i = 0; i < src->n; i++) {
        acc_ct *c = &src->c[i];
        if (c->card == 0) continue;
        rb_src s = view_of(c);
        dst->hi = (uint32_t)(c->key >> 16);
        int rc = or_container(dst, &s);
        if (rc) return rc;
    }
    return 0;
}

uint64_t tn_bitmap_acc_cardinality(tn_bitmap_acc *a) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < a->n; i++) n += card_of(&a->c[i]);
    return n;
}

int tn_bitmap_acc_to_bitmap(tn_bitmap_acc *a, tn_bitmap **out) {
    *out = NULL;
    tn_bitmap *b = tn_bitmap_create();
    uint64_t *vals = tn_malloc(65536 * sizeof *vals);
    int rc = b && vals ? 0 : TN_ENOMEM;
    for (uint32_t i = 0; i < a->n && !rc; i++) {
        acc_ct *c = &a->c[i];
        uint64_t base = c->key << 16;
        uint32_t m = 0;
        if (!c->bits && c->card == CARD_FULL) {
            rc = tn_bitmap_add_range(b, base, base | 0xffff);
            continue;
        }
        if (c->bits) {
            for (uint32_t w = 0; w < 1024; w++)
                for (uint64_t x = c->bits[w]; x; x &= x - 1) vals[m++] = base | (w * 64 + (uint32_t)__builtin_ctzll(x));
        } else {
            for (uint32_t k = 0; k < c->card; k++) vals[m++] = base | c->arr[k];
        }
        rc = tn_bitmap_add_many(b, vals, m);
    }
    tn_free(vals);
    if (rc) {
        tn_bitmap_free(b);
        return rc;
    }
    *out = b;
    return 0;
}
