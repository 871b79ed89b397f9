/*
 * sql/op_join.c: hash join. The build side is materialized into a collection, its key
 * expressions evaluated and hashed into a chained table (no per-row allocation); the probe
 * side streams: each probe chunk finds candidate pairs by hash and key equality, filters them
 * with the residual condition, and emits INNER / LEFT / RIGHT / FULL rows or SEMI / ANTI probe
 * rows. Rows of the build side never matched are emitted at the end (RIGHT / FULL); a SEMI /
 * ANTI join whose kept (left) side is the smaller builds on it, marks the build rows a probe
 * row matches and emits the matched (SEMI) or unmatched (ANTI) build rows at the end; so does a
 * LEFT join with the smaller left side (its unmatched build rows, NULL-extended). No keys:
 * a nested loop (CROSS JOIN, theta joins). NULL keys never match. Small integer key ranges use
 * a direct array instead of the hash table; build columns are flattened for gathering.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"

struct tn_join_table {
    tn_plan *node;
    bool build_left;
    tn_collection c;
    uint32_t nkeys;
    tn_vector *keyv;            /* nchunks * nkeys */
    uint64_t *refs;             /* row id -> (chunk << 32) | row */
    uint64_t *hashes;
    uint32_t *next;             /* chain: row id + 1, 0 = end */
    uint32_t *heads;
    uint32_t mask;
    uint32_t nrows;
    uint8_t *matched;
    uint8_t *keynull;
    int64_t *ikey;              /* one integer key: its value per row id (else NULL) */
    /* One integer key of a small range: direct[key - dmin] = first row id + 1 of the chain of
     * rows with exactly that key (chained by next), so a probe neither hashes nor compares. */
    uint32_t *direct;
    int64_t dmin;
    uint64_t drange;
    /* Build columns flattened in row-id order (views of the one chunk, or owned copies). */
    tn_vector *flat;
    bool flat_owned;
};

void tn_join_table_free(tn_join_table *t) {
    if (!t) return;
    if (t->keyv)
        for (uint32_t i = 0; i < t->c.nchunks * t->nkeys; i++) tn_vector_free(&t->keyv[i]);
    tn_free(t->keyv);
    tn_free(t->refs);
    tn_free(t->hashes);
    tn_free(t->next);
    tn_free(t->heads);
    tn_free(t->matched);
    tn_free(t->keynull);
    tn_free(t->ikey);
    tn_free(t->direct);
    if (t->flat && t->flat_owned)
        for (uint32_t c = 0; c < t->c.ncols; c++) tn_vector_free(&t->flat[c]);
    tn_free(t->flat);
    tn_collection_free(&t->c);
    tn_free(t);
}

/* Integer key types compared as int64 values (the fast path of one-key joins). */
static bool int_key_type(tn_type t) {
    switch (t.id) {
    case TN_TYPE_BOOLEAN:
    case TN_TYPE_TINYINT:
    case TN_TYPE_SMALLINT:
    case TN_TYPE_INTEGER:
    case TN_TYPE_BIGINT:
    case TN_TYPE_DATE:
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: return true;
    default: return false;
    }
}

/* Equal strings of the build side's string columns share one pointer afterwards (the bytes of
 * the first occurrence, owned by the same collection), so that consumers that cache by pointer
 * (the group table) see few distinct pointers. Only for build sides of moderate size. */
static int intern_strings(tn_exec *ex, tn_collection *c) {
    if (c->nrows == 0 || c->nrows > (1 << 20)) return 0;
    uint32_t cap = 16;
    while (cap < (uint32_t)c->nrows * 2) cap *= 2;
    tn_str *set = tn_malloc((size_t)cap * sizeof *set);
    uint64_t *hs = tn_malloc((size_t)cap * sizeof *hs);
    int rc = 0;
    if (!set || !hs) rc = TN_ENOMEM;
    for (uint32_t col = 0; col < c->ncols && !rc; col++) {
        if (!tn_type_is_string(c->types[col])) continue;
        memset(set, 0, (size_t)cap * sizeof *set);
        for (uint32_t ci = 0; ci < c->nchunks && !rc; ci++) {
            if ((rc = tn_exec_check(ex))) break;
            tn_vector *v = &c->chunks[ci].cols[col];
            tn_str *d = v->data;
            for (uint32_t r = 0; r < c->chunks[ci].count; r++) {
                if (!tn_vector_is_valid(v, r) || d[r].len == 0) continue;
                uint64_t h = tn_hash_bytes(d[r].ptr, d[r].len, 0);
                uint32_t pos = (uint32_t)h & (cap - 1);
                for (;;) {
                    if (!set[pos].ptr) {
                        set[pos] = d[r];
                        hs[pos] = h;
                        break;
                    }
                    if (hs[pos] == h && set[pos].len == d[r].len && memcmp(set[pos].ptr, d[r].ptr, d[r].len) == 0) {
                        d[r].ptr = set[pos].ptr;
                        break;
                    }
                    pos = (pos + 1) & (cap - 1);
                }
            }
        }
    }
    tn_free(set);
    tn_free(hs);
    return rc;
}

/* A direct-address table for one integer key whose range is at most a few times the number
 * of build rows (dimension keys). */
static int build_direct(tn_exec *ex, tn_join_table *t) {
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    uint32_t nn = 0;
    for (uint32_t id = 0; id < t->nrows; id++) {
        if (t->keynull[id]) continue;
        int64_t x = t->ikey[id];
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
        nn++;
    }
    if (nn == 0) return 0;
    uint64_t range = (uint64_t)mx - (uint64_t)mn + 1;
    if (range == 0 || range > (uint64_t)4 * nn + 1024 || range > ((uint64_t)1 << 26)) return 0;
    uint32_t *d = tn_calloc((size_t)range, sizeof *d);
    if (!d) return TN_ENOMEM;
    int rc = tn_exec_mem(ex, (int64_t)range * 4);
    if (rc) {
        tn_free(d);
        return rc;
    }
    /* rebuild the chains per key (ascending ids, like the hash chains: probe order is unchanged
     * only up to pairs' order, which the join does not promise) */
    for (uint32_t id = t->nrows; id-- > 0;) {
        if (t->keynull[id]) continue;
        uint64_t slot = (uint64_t)t->ikey[id] - (uint64_t)mn;
        t->next[id] = d[slot];
        d[slot] = id + 1;
    }
    t->direct = d;
    t->dmin = mn;
    t->drange = range;
    return 0;
}

/* The build columns as one vector each in row-id order, so that gathering a pair is an indexed
 * load (no chunk lookup); strings still point into the collection. */
static int build_flat(tn_exec *ex, tn_join_table *t) {
    uint32_t nc = t->c.ncols;
    if (nc == 0 || t->nrows == 0) return 0;
    t->flat = tn_calloc(nc, sizeof *t->flat);
    if (!t->flat) return TN_ENOMEM;
    if (t->c.nchunks == 1) {
        for (uint32_t c = 0; c < nc; c++) tn_vector_view(&t->flat[c], &t->c.chunks[0].cols[c]);
        return 0;
    }
    if (t->nrows > (1u << 24)) {            /* big build sides: gather through refs */
        tn_free(t->flat);
        t->flat = NULL;
        return 0;
    }
    t->flat_owned = true;
    int64_t bytes = 0;
    for (uint32_t c = 0; c < nc; c++) {
        tn_type ty = t->c.types[c];
        size_t w = tn_type_width(ty);
        int rc = tn_vector_init(&t->flat[c], ty, t->nrows);
        if (rc) return rc;
        bytes += (int64_t)w * t->nrows;
        tn_vector *f = &t->flat[c];
        if (tn_type_is_nested(ty)) {        /* offsets point into each chunk's child: append deeply */
            for (uint32_t ci = 0; ci < t->c.nchunks && !rc; ci++) {
                if ((ci & 63) == 63 && (rc = tn_exec_check(ex))) break;
                rc = tn_vector_append_rows(f, &t->c.chunks[ci].cols[c], NULL, t->c.chunks[ci].count);
            }
            if (rc) return rc;
            continue;
        }
        uint32_t at = 0;
        for (uint32_t ci = 0; ci < t->c.nchunks; ci++) {
            if ((ci & 63) == 63 && (rc = tn_exec_check(ex))) return rc;
            const tn_vector *src = &t->c.chunks[ci].cols[c];
            uint32_t n = t->c.chunks[ci].count;
            if (w && src->data && n) memcpy((uint8_t *)f->data + (size_t)at * w, src->data, (size_t)n * w);
            if (src->validity || src->type.id == TN_TYPE_NULL) {
                rc = tn_vector_ensure_validity(f);
                if (rc) return rc;
                for (uint32_t r = 0; r < n; r++)
                    if (src->type.id == TN_TYPE_NULL || !tn_vector_is_valid(src, r))
                        tn_vector_set_valid_bit(f, at + r, false);
            }
            at += n;
        }
        f->count = at;
    }
    return tn_exec_mem(ex, bytes);
}

int tn_join_build(tn_exec *ex, tn_plan *node, tn_collection *build, bool build_is_left,
                  tn_join_table **out) {
    int rc = 0;
    tn_join_table *t = tn_calloc(1, sizeof *t);
    if (!t) {
        tn_collection_free(build);
        return TN_ENOMEM;
    }
    t->node = node;
    t->build_left = build_is_left;
    t->c = *build;
    memset(build, 0, sizeof *build);
    t->nkeys = node->u.join.nkeys;
    if (t->c.nrows > (int64_t)UINT32_MAX - 2) {
        tn_join_table_free(t);
        return tn_error_set(TN_ELIMIT, "join build side too large");
    }
    t->nrows = (uint32_t)t->c.nrows;
    uint32_t n = t->nrows;
    t->refs = tn_malloc(((size_t)n + 1) * sizeof *t->refs);
    t->hashes = tn_malloc(((size_t)n + 1) * sizeof *t->hashes);
    t->next = tn_calloc((size_t)n + 1, sizeof *t->next);
    t->matched = tn_calloc((size_t)n + 1, 1);
    t->keynull = tn_calloc((size_t)n + 1, 1);
    t->keyv = tn_calloc((size_t)t->c.nchunks * t->nkeys + 1, sizeof *t->keyv);
    uint32_t cap = 16;
    while (cap < n * 2u && cap < (1u << 31)) cap *= 2;
    t->mask = cap - 1;
    t->heads = tn_calloc(cap, sizeof *t->heads);
    if (!t->refs || !t->hashes || !t->next || !t->matched || !t->keynull || !t->keyv || !t->heads) {
        tn_join_table_free(t);
        return TN_ENOMEM;
    }
    rc = tn_exec_mem(ex, (int64_t)n * 40 + (int64_t)cap * 4);
    if (!rc) rc = intern_strings(ex, &t->c);
    tn_expr **keys = build_is_left ? node->u.join.lkeys : node->u.join.rkeys;
    tn_expr **pkeys = build_is_left ? node->u.join.rkeys : node->u.join.lkeys;
    if (!rc && t->nkeys == 1 && int_key_type(keys[0]->type) && pkeys[0]->type.id == keys[0]->type.id) {
        t->ikey = tn_malloc(((size_t)n + 1) * sizeof *t->ikey);
        if (!t->ikey) rc = TN_ENOMEM;
    }
    tn_expr_state **st = tn_calloc(t->nkeys + 1, sizeof *st);
    if (!st) rc = TN_ENOMEM;
    for (uint32_t k = 0; k < t->nkeys && !rc; k++) rc = tn_expr_state_create(keys[k], &st[k]);
    uint32_t id = 0;
    for (uint32_t ci = 0; ci < t->c.nchunks && !rc; ci++) {
        tn_chunk *ch = &t->c.chunks[ci];
        tn_vector *kv = &t->keyv[(size_t)ci * t->nkeys];
        if ((rc = tn_exec_check(ex))) break;
        for (uint32_t k = 0; k < t->nkeys && !rc; k++) {
            rc = tn_vector_init(&kv[k], keys[k]->type, ch->count ? ch->count : 1);
            if (!rc && tn_type_is_string(keys[k]->type) && keys[k]->kind != TN_EXPR_COLUMN) {
                /* a computed string key (lower(k)) points into st[k], which the next chunk
                   reuses: kv[k] keeps its own copy of the bytes */
                tn_vector tmp;
                rc = tn_vector_init(&tmp, keys[k]->type, ch->count ? ch->count : 1);
                if (!rc) rc = tn_expr_eval(keys[k], ch, &tmp, st[k]);
                if (!rc) {
                    kv[k].count = 0;
                    rc = tn_vector_append_rows(&kv[k], &tmp, NULL, ch->count);
                }
                tn_vector_free(&tmp);
            } else if (!rc) {
                rc = tn_expr_eval(keys[k], ch, &kv[k], st[k]);
            }
            if (!rc) tn_vector_hash(&kv[k], ch->count, t->hashes + id, k == 0);
        }
        for (uint32_t r = 0; r < ch->count && !rc; r++, id++) {
            t->refs[id] = ((uint64_t)ci << 32) | r;
            bool null = false;
            for (uint32_t k = 0; k < t->nkeys; k++)
                if (kv[k].type.id == TN_TYPE_NULL || !tn_vector_is_valid(&kv[k], r)) null = true;
            t->keynull[id] = null;
            if (null) continue;
            if (t->ikey) t->ikey[id] = tn_vector_int_at(&kv[0], r);
            if (t->nkeys == 0) continue;         /* linked below */
            uint32_t b = (uint32_t)t->hashes[id] & t->mask;
            t->next[id] = t->heads[b];
            t->heads[b] = id + 1;
        }
    }
    /* without keys (a nested loop: CROSS JOIN, ON TRUE, theta joins) the one chain is in build
     * order, linked from the last row back, so that each probe row's pairs come out in the
     * build side's order, as DuckDB's nested-loop join gives them (ORDER BY ties included) */
    for (uint32_t r = id; t->nkeys == 0 && r-- > 0 && !rc;) {
        t->next[r] = t->heads[0];
        t->heads[0] = r + 1;
    }
    for (uint32_t k = 0; st && k < t->nkeys; k++) tn_expr_state_free(st[k]);
    tn_free(st);
    if (!rc && t->ikey) rc = build_direct(ex, t);
    if (!rc) rc = build_flat(ex, t);
    if (rc) {
        tn_join_table_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Dynamic join filter into the probe side's Parquet scan.
 */
#define JOIN_FILTER_MAX_KEYS 1024

/* The scan whose file column probe's output column `col` is, through PROJECT and FILTER
 * nodes; *file_col receives it. NULL when the column is computed or comes from elsewhere. */
static tn_plan *scan_of_column(tn_plan *probe, uint32_t col, uint32_t *file_col) {
    for (tn_plan *p = probe; p;) {
        switch (p->kind) {
        case TN_PLAN_PROJECT: {
            const tn_expr *e = p->u.project.exprs[col];
            if (e->kind != TN_EXPR_COLUMN) return NULL;
            col = e->u.column;
            p = p->child[0];
            break;
        }
        case TN_PLAN_FILTER:
            if (p->u.filter.out_cols) col = p->u.filter.out_cols[col];
            p = p->child[0];
            break;
        case TN_PLAN_SCAN:
            if (p->u.scan.format != TN_SCAN_PARQUET || col >= p->u.scan.ncols) return NULL;
            *file_col = p->u.scan.cols[col];
            return p;
        default: return NULL;
        }
    }
    return NULL;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int tn_join_scan_filter(const tn_join_table *t, tn_plan *probe) {
    const tn_plan *node = t->node;
    tn_expr **pkeys = t->build_left ? node->u.join.rkeys : node->u.join.lkeys;
    if (t->nkeys != 1 || pkeys[0]->kind != TN_EXPR_COLUMN) return 0;
    uint32_t file_col = 0;
    tn_plan *scan = scan_of_column(probe, pkeys[0]->u.column, &file_col);
    if (!scan) return 0;
    tn_free(scan->u.scan.join_in_values);
    scan->u.scan.join_in_values = NULL;
    scan->u.scan.has_join_in = false;
    /* only where the probe rows without a match are not emitted */
    tn_join_kind k = node->u.join.kind;
    bool drops = k == TN_JOIN_INNER || k == TN_JOIN_SEMI || (k == TN_JOIN_ANTI && t->build_left) ||
                 (k == TN_JOIN_LEFT && t->build_left) || (k == TN_JOIN_RIGHT && !t->build_left);
    tn_type ty = pkeys[0]->type;
    if (!drops || !t->ikey || ty.id == TN_TYPE_BOOLEAN || !tn_type_equal(ty, scan->u.scan.src_types[file_col]))
        return 0;
    uint32_t nn = 0;
    for (uint32_t id = 0; id < t->nrows; id++) nn += !t->keynull[id];
    if (nn > 8 * JOIN_FILTER_MAX_KEYS) return 0;
    int64_t *keys = tn_malloc(((size_t)nn + 1) * sizeof *keys);
    if (!keys) return TN_ENOMEM;
    uint32_t m = 0;
    for (uint32_t id = 0; id < t->nrows; id++)
        if (!t->keynull[id]) keys[m++] = t->ikey[id];
    qsort(keys, m, sizeof *keys, cmp_i64);
    uint32_t d = 0;
    for (uint32_t i = 0; i < m; i++)
        if (d == 0 || keys[i] != keys[d - 1]) keys[d++] = keys[i];
    if (d > JOIN_FILTER_MAX_KEYS) {
        tn_free(keys);
        return 0;
    }
    tn_value *vals = tn_calloc((size_t)d + 1, sizeof *vals);
    if (!vals) {
        tn_free(keys);
        return TN_ENOMEM;
    }
    for (uint32_t i = 0; i < d; i++) {
        vals[i].type = ty;
        vals[i].u.i = keys[i];
    }
    tn_free(keys);
    scan->u.scan.join_in_values = vals;
    scan->u.scan.join_in = (tn_parquet_in_list){file_col, vals, d};
    scan->u.scan.has_join_in = true;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Probe.
 */
typedef struct probe_state {
    tn_expr_state **kst;
    tn_vector *kv;
    uint64_t *h;
    tn_expr_state *rst;         /* residual */
    uint32_t *psel;             /* candidate pairs: probe row, build id */
    uint32_t *bids;
    uint32_t npairs;
    uint8_t *pmatched;          /* per probe row */
    uint32_t *sel;
    tn_chunk pair;              /* pairs (left ++ right layout) */
    tn_vector *saved;           /* pair's own probe vectors while it holds views of the input */
    bool pair_views;
    tn_chunk out;               /* emitted rows */
    uint32_t nl, nr;
} probe_state;

static int gather_build(tn_vector *dst, const tn_join_table *t, uint32_t col, const uint32_t *ids,
                        uint32_t n) {
    int rc = 0;
    if (dst->capacity < n && (rc = tn_vector_reserve(dst, n))) return rc;
    if (tn_type_is_nested(dst->type)) {         /* offsets and children: the generic gathers */
        if (t->flat) return tn_vector_gather(dst, &t->flat[col], ids, n);
        tn_vector_reset(dst);
        for (uint32_t i = 0; i < n && !rc; i++) {
            uint64_t ref = t->refs[ids[i]];
            rc = tn_vector_append_from(dst, &t->c.chunks[ref >> 32].cols[col], (uint32_t)ref);
        }
        return rc;
    }
    if (t->flat && t->flat[col].type.id != TN_TYPE_NULL) {
        const tn_vector *f = &t->flat[col];
        size_t w = tn_type_width(dst->type);
#define FLAT_GATHER(T)                                                                       \
    do {                                                                                     \
        T *d_ = (T *)dst->data;                                                              \
        const T *s_ = (const T *)f->data;                                                    \
        for (uint32_t i = 0; i < n; i++) d_[i] = s_[ids[i]];                                 \
    } while (0)
        switch (w) {
        case 1: FLAT_GATHER(uint8_t); break;
        case 2: FLAT_GATHER(uint16_t); break;
        case 4: FLAT_GATHER(uint32_t); break;
        case 8: FLAT_GATHER(uint64_t); break;
        case 16: FLAT_GATHER(tn_str); break;
        default:
            for (uint32_t i = 0; i < n; i++)
                memcpy((uint8_t *)dst->data + (size_t)i * w, (const uint8_t *)f->data + (size_t)ids[i] * w, w);
        }
#undef FLAT_GATHER
        if (f->validity || dst->validity) {
            if ((rc = tn_vector_ensure_validity(dst))) return rc;
            for (uint32_t i = 0; i < n; i++) tn_vector_set_valid_bit(dst, i, tn_vector_is_valid(f, ids[i]));
        }
        dst->count = n;
        return 0;
    }
    size_t w = tn_type_width(dst->type);
    bool nulls = false;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ref = t->refs[ids[i]];
        const tn_vector *src = &t->c.chunks[ref >> 32].cols[col];
        uint32_t r = (uint32_t)ref;
        if (w && src->data) memcpy((uint8_t *)dst->data + (size_t)i * w, (const uint8_t *)src->data + (size_t)r * w, w);
        if (src->validity || src->type.id == TN_TYPE_NULL) nulls = true;
    }
    if (nulls || dst->validity) {
        if ((rc = tn_vector_ensure_validity(dst))) return rc;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t ref = t->refs[ids[i]];
            const tn_vector *src = &t->c.chunks[ref >> 32].cols[col];
            tn_vector_set_valid_bit(dst, i, src->type.id != TN_TYPE_NULL && tn_vector_is_valid(src, (uint32_t)ref));
        }
    }
    dst->count = n;
    return 0;
}

static int probe_init(tn_op *op, void **state) {
    tn_join_table *t = op->shared;
    tn_plan *node = t->node;
    probe_state *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    *state = s;
    tn_plan *l = node->child[0], *r = node->child[1];
    s->nl = l->ncols;
    s->nr = r->ncols;
    uint32_t nk = t->nkeys;
    tn_expr **keys = t->build_left ? node->u.join.rkeys : node->u.join.lkeys;
    s->kst = tn_calloc(nk + 1, sizeof *s->kst);
    s->kv = tn_calloc(nk + 1, sizeof *s->kv);
    s->h = tn_malloc(TN_VECTOR_SIZE * sizeof *s->h);
    s->psel = tn_malloc(TN_VECTOR_SIZE * sizeof *s->psel);
    s->bids = tn_malloc(TN_VECTOR_SIZE * sizeof *s->bids);
    s->pmatched = tn_malloc(TN_VECTOR_SIZE);
    s->sel = tn_malloc(TN_VECTOR_SIZE * sizeof *s->sel);
    if (!s->kst || !s->kv || !s->h || !s->psel || !s->bids || !s->pmatched || !s->sel) return TN_ENOMEM;
    int rc = 0;
    for (uint32_t k = 0; k < nk && !rc; k++) {
        rc = tn_expr_state_create(keys[k], &s->kst[k]);
        if (!rc) rc = tn_vector_init(&s->kv[k], keys[k]->type, TN_VECTOR_SIZE);
    }
    if (!rc && node->u.join.residual) rc = tn_expr_state_create(node->u.join.residual, &s->rst);
    tn_type types[s->nl + s->nr + 1];
    for (uint32_t i = 0; i < s->nl; i++) types[i] = l->types[i];
    for (uint32_t i = 0; i < s->nr; i++) types[s->nl + i] = r->types[i];
    if (!rc) rc = tn_chunk_init(&s->pair, s->nl + s->nr, types, TN_VECTOR_SIZE);
    if (!rc) {
        s->saved = tn_calloc(s->nl + s->nr + 1, sizeof *s->saved);
        if (!s->saved) rc = TN_ENOMEM;
    }
    if (!rc) rc = tn_chunk_init(&s->out, s->nl + s->nr, types, TN_VECTOR_SIZE);
    return rc;
}

static void probe_free(tn_op *op, void *state) {
    tn_join_table *t = op->shared;
    probe_state *s = state;
    for (uint32_t k = 0; k < t->nkeys; k++) {
        if (s->kst) tn_expr_state_free(s->kst[k]);
        if (s->kv) tn_vector_free(&s->kv[k]);
    }
    tn_free(s->kst);
    tn_free(s->kv);
    tn_free(s->h);
    tn_free(s->psel);
    tn_free(s->bids);
    tn_free(s->pmatched);
    tn_free(s->sel);
    tn_expr_state_free(s->rst);
    if (s->saved && s->pair.cols)          /* give the pair its own vectors back before freeing */
        for (uint32_t c = 0; c < s->nl + s->nr; c++)
            if (s->saved[c].data || s->saved[c].heap) s->pair.cols[c] = s->saved[c];
    tn_free(s->saved);
    if (s->pair.cols) tn_chunk_free(&s->pair);
    if (s->out.cols) tn_chunk_free(&s->out);
    tn_free(s);
}

/* Build the pair chunk from the pending candidates. */
static int fill_pairs(tn_join_table *t, probe_state *s, const tn_chunk *in) {
    int rc = 0;
    uint32_t n = s->npairs;
    uint32_t poff = t->build_left ? s->nl : 0, boff = t->build_left ? 0 : s->nl;
    uint32_t np = t->build_left ? s->nr : s->nl, nb = t->build_left ? s->nl : s->nr;
    /* every probe row once, in order (a foreign-key join): the probe columns are the input's */
    bool identity = n == in->count;
    for (uint32_t i = 0; i < n && identity; i++) identity = s->psel[i] == i;
    s->pair_views = identity;
    for (uint32_t c = 0; c < np && !rc; c++) {
        if (identity) {
            if (!s->saved[poff + c].data && !s->saved[poff + c].heap) s->saved[poff + c] = s->pair.cols[poff + c];
            tn_vector_view(&s->pair.cols[poff + c], &in->cols[c]);
        } else {
            if (s->saved[poff + c].data || s->saved[poff + c].heap) {
                s->pair.cols[poff + c] = s->saved[poff + c];
                memset(&s->saved[poff + c], 0, sizeof s->saved[poff + c]);
            }
            rc = tn_vector_gather(&s->pair.cols[poff + c], &in->cols[c], s->psel, n);
        }
    }
    for (uint32_t c = 0; c < nb && !rc; c++) rc = gather_build(&s->pair.cols[boff + c], t, c, s->bids, n);
    s->pair.count = n;
    return rc;
}

static int flush_pairs(tn_join_table *t, probe_state *s, tn_pipeline *p, uint32_t stage,
                       uint32_t worker, const tn_chunk *in) {
    tn_plan *node = t->node;
    tn_join_kind k = node->u.join.kind;
    uint32_t n = s->npairs;
    if (n == 0) return 0;
    /* one probe chunk may make millions of pairs (a large fan-out) that a residual filter
     * rejects, so nothing reaches the next stage's checks: poll here, per batch of pairs */
    int rc = tn_exec_check(p->ex);
    if (rc) return rc;
    rc = fill_pairs(t, s, in);
    if (rc) return rc;
    uint32_t npass = n;
    const uint32_t *pass = NULL;
    if (node->u.join.residual) {
        rc = tn_expr_filter(node->u.join.residual, &s->pair, s->sel, &npass, s->rst);
        if (rc) return rc;
        pass = s->sel;
    }
    for (uint32_t i = 0; i < npass; i++) {
        uint32_t j = pass ? pass[i] : i;
        s->pmatched[s->psel[j]] = 1;
        if (k == TN_JOIN_RIGHT || k == TN_JOIN_FULL || t->build_left) __atomic_store_n(&t->matched[s->bids[j]], 1, __ATOMIC_RELAXED);
    }
    s->npairs = 0;
    if (k == TN_JOIN_SEMI || k == TN_JOIN_ANTI || npass == 0) return 0;
    if (pass && npass != n) {
        for (uint32_t c = 0; c < s->out.ncols && !rc; c++) rc = tn_vector_gather(&s->out.cols[c], &s->pair.cols[c], pass, npass);
        s->out.count = npass;
        if (rc) return rc;
        return tn_pipe_push(p, stage + 1, worker, &s->out);
    }
    return tn_pipe_push(p, stage + 1, worker, &s->pair);
}

static inline bool keys_eq(const tn_join_table *t, const probe_state *s, uint32_t pi, uint32_t id) {
    uint64_t ref = t->refs[id];
    const tn_vector *bk = &t->keyv[(size_t)(ref >> 32) * t->nkeys];
    uint32_t br = (uint32_t)ref;
    for (uint32_t k = 0; k < t->nkeys; k++)
        if (!tn_vector_eq_rows(&bk[k], br, &s->kv[k], pi)) return false;
    return true;
}

static int probe_exec(tn_op *op, void *state, tn_pipeline *p, uint32_t stage, uint32_t worker,
                      const tn_chunk *in) {
    tn_join_table *t = op->shared;
    probe_state *s = state;
    tn_plan *node = t->node;
    tn_join_kind kind = node->u.join.kind;
    uint32_t n = in->count;
    int rc = 0;
    if (n > TN_VECTOR_SIZE) {
        /* split oversized chunks */
        tn_chunk part;
        memset(&part, 0, sizeof part);
        part.cols = tn_calloc(in->ncols + 1, sizeof *part.cols);
        if (!part.cols) return TN_ENOMEM;
        uint32_t sel[TN_VECTOR_SIZE];
        for (uint32_t off = 0; off < n && !rc; off += TN_VECTOR_SIZE) {
            uint32_t m = n - off < TN_VECTOR_SIZE ? n - off : TN_VECTOR_SIZE;
            for (uint32_t i = 0; i < m; i++) sel[i] = off + i;
            for (uint32_t c = 0; c < in->ncols && !rc; c++) {
                if (!part.cols[c].data && !part.cols[c].heap) rc = tn_vector_init(&part.cols[c], in->cols[c].type, m);
                if (!rc) rc = tn_vector_gather(&part.cols[c], &in->cols[c], sel, m);
            }
            part.ncols = in->ncols;
            part.count = m;
            if (!rc) rc = probe_exec(op, state, p, stage, worker, &part);
        }
        for (uint32_t c = 0; c < in->ncols; c++) tn_vector_free(&part.cols[c]);
        tn_free(part.cols);
        return rc;
    }
    tn_expr **keys = t->build_left ? node->u.join.rkeys : node->u.join.lkeys;
    for (uint32_t k = 0; k < t->nkeys && !rc; k++) rc = tn_expr_eval(keys[k], in, &s->kv[k], s->kst[k]);
    if (rc) return rc;
    bool direct = t->direct && s->kv[0].type.id != TN_TYPE_NULL;
    if (!direct)
        for (uint32_t k = 0; k < t->nkeys; k++) tn_vector_hash(&s->kv[k], n, s->h, k == 0);
    memset(s->pmatched, 0, n);
    bool semi_build = t->build_left && (kind == TN_JOIN_SEMI || kind == TN_JOIN_ANTI);
    bool first_only = (kind == TN_JOIN_SEMI || kind == TN_JOIN_ANTI) && !node->u.join.residual && !semi_build;
    s->npairs = 0;
    if (direct) {
        /* small integer key range: the slot holds exactly the rows of that key */
        const tn_vector *pk = &s->kv[0];
        for (uint32_t i = 0; i < n && !rc; i++) {
            if (pk->validity && !tn_vector_is_valid(pk, i)) continue;
            uint64_t slot = (uint64_t)tn_vector_int_at(pk, i) - (uint64_t)t->dmin;
            if (slot >= t->drange) continue;
            uint32_t e = t->direct[slot];
            if (e && first_only) {
                s->pmatched[i] = 1;
                continue;
            }
            while (e) {
                uint32_t id = e - 1;
                e = t->next[id];
                s->psel[s->npairs] = i;
                s->bids[s->npairs] = id;
                if (++s->npairs == TN_VECTOR_SIZE) {
                    rc = flush_pairs(t, s, p, stage, worker, in);
                    if (rc) break;
                }
            }
        }
    } else if (t->ikey && s->kv[0].type.id != TN_TYPE_NULL) {
        /* one integer key: compare values directly */
        const tn_vector *pk = &s->kv[0];
        for (uint32_t i = 0; i < n && !rc; i++) {
            if (pk->validity && !tn_vector_is_valid(pk, i)) continue;
            int64_t x = tn_vector_int_at(pk, i);
            uint32_t e = t->heads[(uint32_t)s->h[i] & t->mask];
            while (e) {
                uint32_t id = e - 1;
                e = t->next[id];
                if (t->ikey[id] != x) continue;
                if (first_only) {
                    s->pmatched[i] = 1;
                    break;
                }
                s->psel[s->npairs] = i;
                s->bids[s->npairs] = id;
                if (++s->npairs == TN_VECTOR_SIZE) {
                    rc = flush_pairs(t, s, p, stage, worker, in);
                    if (rc) break;
                }
            }
        }
    } else
    for (uint32_t i = 0; i < n && !rc; i++) {
        bool null = false;
        for (uint32_t k = 0; k < t->nkeys; k++)
            if (s->kv[k].type.id == TN_TYPE_NULL || !tn_vector_is_valid(&s->kv[k], i)) null = true;
        if (null) continue;
        uint64_t h = t->nkeys ? s->h[i] : 0;
        uint32_t e = t->heads[t->nkeys ? ((uint32_t)h & t->mask) : 0];
        while (e) {
            uint32_t id = e - 1;
            e = t->next[id];
            if (t->nkeys && (t->hashes[id] != h || !keys_eq(t, s, i, id))) continue;
            if (first_only) {
                s->pmatched[i] = 1;
                break;
            }
            s->psel[s->npairs] = i;
            s->bids[s->npairs] = id;
            if (++s->npairs == TN_VECTOR_SIZE) {
                rc = flush_pairs(t, s, p, stage, worker, in);
                if (rc) break;
            }
        }
    }
    if (!rc) rc = flush_pairs(t, s, p, stage, worker, in);
    if (rc) return rc;
    /* probe rows without a match, or the matched ones for SEMI; built on the left (SEMI, ANTI,
     * LEFT), the kept rows are the build side's, emitted by probe_finish */
    if (t->build_left) return 0;
    if (kind == TN_JOIN_LEFT || kind == TN_JOIN_FULL || kind == TN_JOIN_SEMI || kind == TN_JOIN_ANTI) {
        bool want = kind == TN_JOIN_SEMI;
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i++)
            if ((s->pmatched[i] != 0) == want) s->sel[m++] = i;
        if (m == 0) return 0;
        if (kind == TN_JOIN_SEMI || kind == TN_JOIN_ANTI) {
            if (m == n) return tn_pipe_push(p, stage + 1, worker, in);
            for (uint32_t c = 0; c < s->nl && !rc; c++) rc = tn_vector_gather(&s->out.cols[c], &in->cols[c], s->sel, m);
            if (rc) return rc;
            tn_chunk semi = {s->nl, m, s->out.cols};
            return tn_pipe_push(p, stage + 1, worker, &semi);
        }
        for (uint32_t c = 0; c < s->nl && !rc; c++) rc = tn_vector_gather(&s->out.cols[c], &in->cols[c], s->sel, m);
        for (uint32_t c = 0; c < s->nr && !rc; c++) {
            s->out.cols[s->nl + c].count = 0;
            rc = tn_vector_fill_null(&s->out.cols[s->nl + c], 0, m);
            s->out.cols[s->nl + c].count = m;
        }
        if (rc) return rc;
        s->out.count = m;
        return tn_pipe_push(p, stage + 1, worker, &s->out);
    }
    return 0;
}

/* RIGHT / FULL: build rows never matched, with NULLs for the probe side. SEMI / ANTI built on
 * the left: the build rows matched (SEMI) or not (ANTI). LEFT built on the left: the build rows
 * never matched, with NULLs for the right side. */
static int probe_finish(tn_op *op, tn_pipeline *p, uint32_t stage) {
    tn_join_table *t = op->shared;
    tn_join_kind kind = t->node->u.join.kind;
    bool semi_build = t->build_left && (kind == TN_JOIN_SEMI || kind == TN_JOIN_ANTI);
    bool left_build = t->build_left && kind == TN_JOIN_LEFT;
    if (kind != TN_JOIN_RIGHT && kind != TN_JOIN_FULL && !semi_build && !left_build) return 0;
    probe_state *s = p->op_states[0][stage];
    int rc = 0;
    uint32_t ids[TN_VECTOR_SIZE];
    uint32_t m = 0;
    uint8_t skip = kind == TN_JOIN_SEMI ? 0 : 1;   /* the matched[] value not emitted */
    for (uint32_t id = 0; id <= t->nrows && !rc; id++) {
        if (id < t->nrows && (t->matched[id] != 0) == skip) continue;
        if (id < t->nrows) ids[m++] = id;
        if (semi_build && (m == TN_VECTOR_SIZE || (id == t->nrows && m > 0))) {
            for (uint32_t c = 0; c < s->nl && !rc; c++) rc = gather_build(&s->out.cols[c], t, c, ids, m);
            tn_chunk out = {s->nl, m, s->out.cols};
            if (!rc) rc = tn_pipe_push(p, stage + 1, 0, &out);
            m = 0;
        } else if (left_build && (m == TN_VECTOR_SIZE || (id == t->nrows && m > 0))) {
            for (uint32_t c = 0; c < s->nl && !rc; c++) rc = gather_build(&s->out.cols[c], t, c, ids, m);
            for (uint32_t c = 0; c < s->nr && !rc; c++) {
                s->out.cols[s->nl + c].count = 0;
                rc = tn_vector_fill_null(&s->out.cols[s->nl + c], 0, m);
                s->out.cols[s->nl + c].count = m;
            }
            s->out.count = m;
            if (!rc) rc = tn_pipe_push(p, stage + 1, 0, &s->out);
            m = 0;
        } else if (m == TN_VECTOR_SIZE || (id == t->nrows && m > 0)) {
            for (uint32_t c = 0; c < s->nl && !rc; c++) {
                s->out.cols[c].count = 0;
                rc = tn_vector_fill_null(&s->out.cols[c], 0, m);
                s->out.cols[c].count = m;
            }
            for (uint32_t c = 0; c < s->nr && !rc; c++) rc = gather_build(&s->out.cols[s->nl + c], t, c, ids, m);
            s->out.count = m;
            if (!rc) rc = tn_pipe_push(p, stage + 1, 0, &s->out);
            m = 0;
        }
    }
    return rc;
}

static void probe_op_free(tn_op *op) {
    tn_join_table_free(op->shared);
    op->shared = NULL;
}

int tn_op_join_probe(tn_exec *ex, tn_plan *node, tn_join_table *table, tn_op **out) {
    tn_op *op = tn_calloc(1, sizeof *op);
    if (!op) {
        tn_join_table_free(table);
        return TN_ENOMEM;
    }
    op->name = "HASH_JOIN";
    op->node = node;
    op->shared = table;
    op->worker_init = probe_init;
    op->worker_free = probe_free;
    op->execute = probe_exec;
    op->finish = probe_finish;
    op->free = probe_op_free;
    *out = op;
    return 0;
}
