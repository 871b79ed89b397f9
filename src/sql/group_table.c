/*
 * sql/group_table.c: the hash table behind GROUP BY, DISTINCT aggregates and set operations:
 * typed key columns plus open addressing over hashes, no per-row allocation. It owns key
 * storage and group ids only; aggregate states live in sql/op_aggregate.c, which (like
 * op_setop.c and op_window.c) drives it through tn_group_table_* in sql/exec.h.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"

/* ---------------------------------------------------------------------------------------------
 * Group table. Besides the key vectors (the output), every group keeps its keys as one row of
 * rowsize bytes in a canonical form: a null byte per key, then each value (doubles with -0.0
 * and NaN normalized; strings as 16 bytes: length, then up to 12 bytes inline zero-padded, or
 * a 4-byte prefix and a pointer to the bytes). Input rows are serialized the same way, so
 * two rows without long strings are equal exactly when their bytes are; the probe loop
 * prefetches slots and rows ahead. A table with one non-null string key also caches
 * (pointer, length) -> group within a lookup: strings decoded from a Parquet dictionary share
 * pointers, so most rows skip hashing and probing.
 */
#define PCACHE_SIZE 1024

typedef struct pcache_entry {
    const char *ptr;
    uint32_t len, gen;
    uint32_t gid;
} pcache_entry;

/* Bytes of key type t in a row; 0: no canonical form (the table then compares vectors). */
static uint32_t row_width(tn_type t) {
    switch (t.id) {
    case TN_TYPE_NULL: return 0;
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: return 16;
    case TN_TYPE_BOOLEAN:
    case TN_TYPE_TINYINT:
    case TN_TYPE_SMALLINT:
    case TN_TYPE_INTEGER:
    case TN_TYPE_BIGINT:
    case TN_TYPE_FLOAT:
    case TN_TYPE_DOUBLE:
    case TN_TYPE_DATE:
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ:
    case TN_TYPE_DECIMAL: return (uint32_t)tn_type_width(t);
    default: return UINT32_MAX;
    }
}

int tn_group_table_init(tn_group_table *t, uint32_t nkeys, const tn_type *types) {
    memset(t, 0, sizeof *t);
    t->nkeys = nkeys;
    t->key_types = tn_malloc((nkeys + 1) * sizeof *t->key_types);
    t->keys = tn_calloc(nkeys + 1, sizeof *t->keys);
    t->koff = tn_calloc(nkeys + 1, sizeof *t->koff);
    t->strings = tn_arena_create(0);
    t->hbuf = tn_malloc(TN_VECTOR_SIZE * sizeof *t->hbuf);
    if (!t->key_types || !t->keys || !t->koff || !t->strings || !t->hbuf) return TN_ENOMEM;
    uint32_t off = nkeys;
    bool rows_ok = nkeys > 0 && nkeys <= 64;
    for (uint32_t k = 0; k < nkeys; k++) {
        t->key_types[k] = types[k];
        int rc = tn_vector_init(&t->keys[k], types[k], 256);
        if (rc) return rc;
        uint32_t w = row_width(types[k]);
        if (w == UINT32_MAX) rows_ok = false;
        else {
            t->koff[k] = off;
            off += w;
        }
    }
    t->gcap = 256;
    if (rows_ok) {
        t->rowsize = (off + 7) & ~7u;
        t->rows = tn_malloc((size_t)t->gcap * t->rowsize);
        t->probe = tn_malloc((size_t)TN_VECTOR_SIZE * t->rowsize);
        t->plong = tn_malloc(TN_VECTOR_SIZE);
        if (!t->rows || !t->probe || !t->plong) return TN_ENOMEM;
    }
    t->hashes = tn_malloc(t->gcap * sizeof *t->hashes);
    t->slot_mask = 1023;
    t->slots = tn_calloc(t->slot_mask + 1, sizeof *t->slots);
    if (!t->hashes || !t->slots) return TN_ENOMEM;
    return 0;
}

void tn_group_table_free(tn_group_table *t) {
    if (!t) return;
    for (uint32_t k = 0; t->keys && k < t->nkeys; k++) tn_vector_free(&t->keys[k]);
    tn_free(t->keys);
    tn_free(t->key_types);
    tn_free(t->koff);
    tn_free(t->hashes);
    tn_free(t->slots);
    tn_free(t->hbuf);
    tn_free(t->rows);
    tn_free(t->probe);
    tn_free(t->plong);
    tn_free(t->pcache);
    tn_arena_destroy(t->strings);
    memset(t, 0, sizeof *t);
}

uint64_t tn_group_table_bytes(const tn_group_table *t) {
    uint64_t b = (uint64_t)(t->slot_mask + 1) * 8 + (uint64_t)t->gcap * (8 + t->rowsize) + tn_arena_bytes(t->strings);
    for (uint32_t k = 0; k < t->nkeys; k++) b += (uint64_t)t->gcap * tn_type_width(t->key_types[k]);
    return b;
}

static int grow_slots(tn_group_table *t, uint32_t need_groups) {
    uint64_t want = (uint64_t)need_groups * 2;
    if (want <= (uint64_t)t->slot_mask + 1) return 0;
    uint64_t cap = (uint64_t)t->slot_mask + 1;
    while (cap < want) cap *= 2;
    if (cap > ((uint64_t)1 << 31)) return tn_error_set(TN_ELIMIT, "too many groups");
    uint64_t *ns = tn_calloc(cap, sizeof *ns);
    if (!ns) return TN_ENOMEM;
    uint32_t mask = (uint32_t)(cap - 1);
    for (uint32_t g = 0; g < t->ngroups; g++) {
        uint64_t h = t->hashes[g];
        uint32_t pos = (uint32_t)h & mask;
        while (ns[pos]) pos = (pos + 1) & mask;
        ns[pos] = (h & 0xffffffff00000000ULL) | (uint64_t)(g + 1);
    }
    tn_free(t->slots);
    t->slots = ns;
    t->slot_mask = mask;
    return 0;
}

static int grow_groups(tn_group_table *t, uint32_t need) {
    if (need <= t->gcap) return 0;
    uint32_t cap = t->gcap;
    while (cap < need) cap *= 2;
    uint64_t *nh = tn_realloc(t->hashes, (size_t)cap * sizeof *nh);
    if (!nh) return TN_ENOMEM;
    t->hashes = nh;
    if (t->rowsize) {
        uint8_t *nr = tn_realloc(t->rows, (size_t)cap * t->rowsize);
        if (!nr) return TN_ENOMEM;
        t->rows = nr;
    }
    for (uint32_t k = 0; k < t->nkeys; k++) {
        int rc = tn_vector_reserve(&t->keys[k], cap);
        if (rc) return rc;
    }
    t->gcap = cap;
    return 0;
}

static int append_key(tn_group_table *t, tn_vector *const *keys, uint32_t row, uint32_t g) {
    for (uint32_t k = 0; k < t->nkeys; k++) {
        tn_vector *dst = &t->keys[k];
        const tn_vector *src = keys[k];
        bool valid = src->type.id != TN_TYPE_NULL && tn_vector_is_valid(src, row);
        if (!valid || dst->validity) {
            int rc = tn_vector_ensure_validity(dst);
            if (rc) return rc;
            tn_vector_set_valid_bit(dst, g, valid);
        }
        size_t w = tn_type_width(src->type);
        if (tn_type_is_string(src->type)) {
            tn_str s = valid ? ((const tn_str *)src->data)[row] : (tn_str){"", 0};
            if (s.len) {
                char *c = tn_arena_alloc(t->strings, s.len);
                if (!c) return TN_ENOMEM;
                memcpy(c, s.ptr, s.len);
                s.ptr = c;
            } else s.ptr = "";
            ((tn_str *)dst->data)[g] = s;
        } else if (dst->children) {            /* nested: a deep copy */
            int rc = tn_vector_copy_row(dst, g, src, row);
            if (rc) return rc;
        } else if (w) {
            memcpy((uint8_t *)dst->data + (size_t)g * w, (const uint8_t *)src->data + (size_t)row * w, w);
        }
        dst->count = g + 1;
    }
    return 0;
}

static inline bool key_eq(const tn_group_table *t, uint32_t g, tn_vector *const *keys, uint32_t row) {
    for (uint32_t k = 0; k < t->nkeys; k++) {
        const tn_vector *a = &t->keys[k], *b = keys[k];
        bool va = tn_vector_is_valid(a, g), vb = b->type.id != TN_TYPE_NULL && tn_vector_is_valid(b, row);
        if (va != vb) return false;
        if (!va) continue;
        if (!tn_vector_eq_rows(a, g, b, row)) return false;
    }
    return true;
}

/* Serialize rows [0, n) of keys into t->probe (and t->plong). */
static void serialize_rows(tn_group_table *t, tn_vector *const *keys, uint32_t n) {
    uint32_t rs = t->rowsize;
    uint8_t *base = t->probe;
    memset(base, 0, (size_t)n * rs);
    memset(t->plong, 0, n);
    for (uint32_t k = 0; k < t->nkeys; k++) {
        const tn_vector *v = keys[k];
        uint32_t off = t->koff[k];
        if (v->type.id == TN_TYPE_NULL) {
            for (uint32_t i = 0; i < n; i++) base[(size_t)i * rs + k] = 1;
            continue;
        }
        if (v->validity)
            for (uint32_t i = 0; i < n; i++)
                if (!((v->validity[i >> 6] >> (i & 63)) & 1)) base[(size_t)i * rs + k] = 1;
        uint8_t *p = base + off;
        switch (v->type.id) {
        case TN_TYPE_VARCHAR:
        case TN_TYPE_VARBINARY: {
            const tn_str *d = v->data;
            for (uint32_t i = 0; i < n; i++, p += rs) {
                if (base[(size_t)i * rs + k]) continue;
                uint32_t len = d[i].len;
                memcpy(p, &len, 4);
                if (len <= 12) {
                    if (len) memcpy(p + 4, d[i].ptr, len);
                } else {
                    memcpy(p + 4, d[i].ptr, 4);
                    memcpy(p + 8, &d[i].ptr, sizeof(char *));
                    t->plong[i] = 1;
                }
            }
            break;
        }
        case TN_TYPE_DOUBLE: {
            const double *d = v->data;
            for (uint32_t i = 0; i < n; i++, p += rs) {
                if (base[(size_t)i * rs + k]) continue;
                double x = d[i];
                if (x == 0) x = 0;
                if (x != x) x = __builtin_nan("");
                memcpy(p, &x, 8);
            }
            break;
        }
        case TN_TYPE_FLOAT: {
            const float *d = v->data;
            for (uint32_t i = 0; i < n; i++, p += rs) {
                if (base[(size_t)i * rs + k]) continue;
                float x = d[i];
                if (x == 0) x = 0;
                if (x != x) x = __builtin_nanf("");
                memcpy(p, &x, 4);
            }
            break;
        }
        case TN_TYPE_BOOLEAN: {
            const uint8_t *d = v->data;
            for (uint32_t i = 0; i < n; i++, p += rs)
                if (!base[(size_t)i * rs + k]) *p = d[i] != 0;
            break;
        }
        default: {
            size_t w = tn_type_width(v->type);
            const uint8_t *d = v->data;
            switch (w) {
            case 4:
                for (uint32_t i = 0; i < n; i++, p += rs)
                    if (!base[(size_t)i * rs + k]) memcpy(p, d + (size_t)i * 4, 4);
                break;
            case 8:
                for (uint32_t i = 0; i < n; i++, p += rs)
                    if (!base[(size_t)i * rs + k]) memcpy(p, d + (size_t)i * 8, 8);
                break;
            default:
                for (uint32_t i = 0; i < n; i++, p += rs)
                    if (!base[(size_t)i * rs + k]) memcpy(p, d + (size_t)i * w, w);
                break;
            }
            break;
        }
        }
    }
}

static inline bool row_eq_fast(const uint8_t *a, const uint8_t *b, uint32_t rs) {
    uint64_t diff = 0;
    for (uint32_t o = 0; o < rs; o += 8) {
        uint64_t x, y;
        memcpy(&x, a + o, 8);
        memcpy(&y, b + o, 8);
        diff |= x ^ y;
    }
    return diff == 0;
}

/* Equality of a group's row and an input row holding long strings. */
static bool row_eq_slow(const tn_group_table *t, const uint8_t *a, const uint8_t *b) {
    if (memcmp(a, b, t->nkeys)) return false;
    for (uint32_t k = 0; k < t->nkeys; k++) {
        if (a[k]) continue;
        uint32_t off = t->koff[k];
        if (tn_type_is_string(t->key_types[k])) {
            if (memcmp(a + off, b + off, 8)) return false;
            uint32_t len;
            memcpy(&len, a + off, 4);
            if (len <= 12) {
                if (memcmp(a + off + 8, b + off + 8, 8)) return false;
            } else {
                const char *pa, *pb;
                memcpy(&pa, a + off + 8, sizeof pa);
                memcpy(&pb, b + off + 8, sizeof pb);
                if (pa != pb && memcmp(pa, pb, len)) return false;
            }
        } else {
            uint32_t w = row_width(t->key_types[k]);
            if (w && memcmp(a + off, b + off, w)) return false;
        }
    }
    return true;
}

/* A new group g for input row i: keys, hash, slot, row. */
static inline int new_group(tn_group_table *t, tn_vector *const *keys, uint32_t i, uint64_t hh,
                            uint32_t pos, uint32_t *gout) {
    uint32_t g = t->ngroups++;
    int rc = append_key(t, keys, i, g);
    if (rc) return rc;
    t->hashes[g] = hh;
    t->slots[pos] = (hh & 0xffffffff00000000ULL) | (uint64_t)(g + 1);
    if (t->rowsize) {
        uint8_t *row = t->rows + (size_t)g * t->rowsize;
        memcpy(row, t->probe + (size_t)i * t->rowsize, t->rowsize);
        if (t->plong[i])   /* point long strings at the table's own copies */
            for (uint32_t k = 0; k < t->nkeys; k++)
                if (tn_type_is_string(t->key_types[k]) && !row[k]) {
                    const tn_str *s = &((const tn_str *)t->keys[k].data)[g];
                    if (s->len > 12) memcpy(row + t->koff[k] + 8, &s->ptr, sizeof s->ptr);
                }
    }
    *gout = g;
    return 0;
}

/* One non-null string key: the pointer cache in front of the hash table. */
static int lookup_str1(tn_group_table *t, const tn_vector *k0, uint32_t n, uint32_t *gids) {
    if (!t->pcache && !(t->pcache = tn_calloc(PCACHE_SIZE, sizeof(pcache_entry)))) return TN_ENOMEM;
    pcache_entry *pc = t->pcache;
    if (++t->pgen == 0) {
        memset(pc, 0, PCACHE_SIZE * sizeof *pc);
        t->pgen = 1;
    }
    uint32_t gen = t->pgen;
    const tn_str *d = k0->data;
    const tn_str *gk = t->keys[0].data;
    tn_vector *const keys[1] = {(tn_vector *)k0};
    uint32_t mask = t->slot_mask;
    for (uint32_t i = 0; i < n; i++) {
        const tn_str *s = &d[i];
        uintptr_t pv = (uintptr_t)s->ptr;
        /* multiplicative: strings of a dictionary lie a few bytes apart (pv >> 3 collides) */
        pcache_entry *e = &pc[(uint32_t)(((pv ^ s->len) * 0x9E3779B97F4A7C15ULL) >> 40) & (PCACHE_SIZE - 1)];
        if (e->gen == gen && e->ptr == s->ptr && e->len == s->len) {
            gids[i] = e->gid;
            continue;
        }
        uint64_t hh = tn_hash_bytes(s->ptr, s->len, 0);
        uint64_t tag = hh & 0xffffffff00000000ULL;
        uint32_t pos = (uint32_t)hh & mask, g;
        for (;;) {
            uint64_t x = t->slots[pos];
            if (x == 0) {
                if (t->rowsize) {   /* the row of this one input row */
                    uint8_t *p = t->probe + (size_t)i * t->rowsize;
                    memset(p, 0, t->rowsize);
                    t->plong[i] = s->len > 12;
                    memcpy(p + t->koff[0], &s->len, 4);
                    if (s->len <= 12) {
                        if (s->len) memcpy(p + t->koff[0] + 4, s->ptr, s->len);
                    } else {
                        memcpy(p + t->koff[0] + 4, s->ptr, 4);
                        memcpy(p + t->koff[0] + 8, &s->ptr, sizeof s->ptr);
                    }
                }
                int rc = new_group(t, keys, i, hh, pos, &g);
                if (rc) return rc;
                gk = t->keys[0].data;
                break;
            }
            if ((x & 0xffffffff00000000ULL) == tag) {
                g = (uint32_t)(x & 0xffffffffu) - 1;
                if (gk[g].len == s->len && (s->len == 0 || memcmp(gk[g].ptr, s->ptr, s->len) == 0)) break;
            }
            pos = (pos + 1) & mask;
        }
        e->ptr = s->ptr;
        e->len = s->len;
        e->gen = gen;
        e->gid = g;
        gids[i] = g;
    }
    return 0;
}

int tn_group_table_lookup(tn_group_table *t, tn_vector *const *keys, uint32_t n, uint32_t *gids) {
    int rc = 0;
    uint64_t *h = t->hbuf;
    if (n > TN_VECTOR_SIZE) {
        for (uint32_t off = 0; off < n && !rc; off += TN_VECTOR_SIZE) {
            uint32_t m = n - off < TN_VECTOR_SIZE ? n - off : TN_VECTOR_SIZE;
            tn_vector views[64];
            tn_vector *vp[64];
            if (t->nkeys > 64) return tn_error_set(TN_ELIMIT, "too many grouping columns");
            for (uint32_t k = 0; k < t->nkeys; k++) {
                views[k] = *keys[k];
                size_t w = tn_type_width(keys[k]->type);
                if (views[k].data) views[k].data = (uint8_t *)views[k].data + (size_t)off * w;
                if (views[k].validity) views[k].validity += off / 64;
                views[k].count = m;
                vp[k] = &views[k];
            }
            rc = tn_group_table_lookup(t, vp, m, gids + off);
        }
        return rc;
    }
    if ((rc = grow_slots(t, t->ngroups + n))) return rc;
    if ((rc = grow_groups(t, t->ngroups + n))) return rc;
    const tn_vector *k0 = t->nkeys ? keys[0] : NULL;
    if (t->nkeys == 1 && !k0->validity && !t->keys[0].validity && tn_type_is_string(k0->type))
        return lookup_str1(t, k0, n, gids);
    for (uint32_t k = 0; k < t->nkeys; k++) tn_vector_hash(keys[k], n, h, k == 0);
    if (t->nkeys == 0)
        for (uint32_t i = 0; i < n; i++) h[i] = 0;
    uint64_t *slots = t->slots;
    uint32_t mask = t->slot_mask;
    /* fast path: one non-null 8-byte integer key */
    bool fast8 = t->nkeys == 1 && !k0->validity && !t->keys[0].validity &&
                 (k0->type.id == TN_TYPE_BIGINT || k0->type.id == TN_TYPE_TIMESTAMP ||
                  k0->type.id == TN_TYPE_TIMESTAMP_TZ);
    uint32_t rs = t->rowsize;
    if (rs) serialize_rows(t, keys, n);
    /* prefetch slots and rows ahead only when the table outgrows the caches */
    bool pf = t->ngroups > 16384;
    for (uint32_t i = 0; i < n; i++) {
        if (pf) {
            if (i + 16 < n) __builtin_prefetch(&slots[(uint32_t)h[i + 16] & mask]);
            if (rs && i + 8 < n) {
                uint64_t e = slots[(uint32_t)h[i + 8] & mask];
                if (e) __builtin_prefetch(t->rows + (size_t)((uint32_t)e - 1) * rs);
            }
        }
        uint64_t hh = h[i];
        uint64_t tag = hh & 0xffffffff00000000ULL;
        uint32_t pos = (uint32_t)hh & mask;
        uint32_t g;
        const uint8_t *prow = rs ? t->probe + (size_t)i * rs : NULL;
        for (;;) {
            uint64_t e = slots[pos];
            if (e == 0) {
                rc = new_group(t, keys, i, hh, pos, &g);
                if (rc) return rc;
                break;
            }
            if ((e & 0xffffffff00000000ULL) == tag) {
                g = (uint32_t)(e & 0xffffffffu) - 1;
                bool eq;
                if (fast8) eq = ((const int64_t *)t->keys[0].data)[g] == ((const int64_t *)k0->data)[i];
                else if (rs) {
                    const uint8_t *grow = t->rows + (size_t)g * rs;
                    eq = t->plong[i] ? row_eq_slow(t, grow, prow) : row_eq_fast(grow, prow, rs);
                } else eq = key_eq(t, g, keys, i);
                if (eq) break;
            }
            pos = (pos + 1) & mask;
        }
        gids[i] = g;
    }
    return 0;
}
