/*
 * sql/op_sort.c: ORDER BY. The sink collects rows per worker; with a LIMIT (top-N) each worker
 * keeps only its best limit+offset rows (compacting when it holds twice that, and dropping
 * incoming rows that cannot beat its current N-th row). At the end the rows are sorted by
 * their keys (NULLS LAST unless asked otherwise, DuckDB's default for ASC and DESC; ties keep
 * input order; tn_exec_sort: parallel, interruptible) and the [offset, offset+limit) slice
 * is emitted.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"

typedef struct sort_shared {
    tn_exec *ex;
    tn_plan *node;
    tn_collection *result;
    int64_t keep;               /* top-N: rows to keep (limit + offset), -1: all */
} sort_shared;

typedef struct sort_local {
    tn_collection c;
    tn_chunk thr;               /* the current N-th row (top-N) */
    bool has_thr;
    uint32_t sel[TN_VECTOR_SIZE];
} sort_local;

typedef struct cmp_ctx {
    const tn_plan *node;
    const tn_chunk *chunks;
} cmp_ctx;

static inline int cmp_rows(const tn_plan *node, const tn_chunk *ca, uint32_t ia, const tn_chunk *cb,
                           uint32_t ib) {
    for (uint32_t k = 0; k < node->u.sort.nkeys; k++) {
        uint32_t col = node->u.sort.keys[k];
        const tn_vector *va = &ca->cols[col], *vb = &cb->cols[col];
        bool na = va->type.id == TN_TYPE_NULL || !tn_vector_is_valid(va, ia);
        bool nb = vb->type.id == TN_TYPE_NULL || !tn_vector_is_valid(vb, ib);
        if (na || nb) {
            if (na && nb) continue;
            bool nf = node->u.sort.nulls_first[k];
            return na ? (nf ? -1 : 1) : (nf ? 1 : -1);
        }
        int c = tn_vector_cmp_rows(va, ia, vb, ib);
        if (c) return node->u.sort.desc[k] ? -c : c;
    }
    return 0;
}

static int ref_cmp(const void *a, const void *b, void *ctx) {
    const cmp_ctx *c = ctx;
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    int r = cmp_rows(c->node, &c->chunks[x >> 32], (uint32_t)x, &c->chunks[y >> 32], (uint32_t)y);
    if (r) return r;
    return (x > y) - (x < y);
}

/* Sorted row references of c (caller frees); parallel: on the pool (see tn_exec_sort). */
static int sort_refs(tn_exec *ex, bool parallel, const tn_plan *node, const tn_collection *c, uint64_t **out) {
    uint64_t *refs = tn_malloc(((size_t)c->nrows + 1) * sizeof *refs);
    if (!refs) return TN_ENOMEM;
    size_t k = 0;
    for (uint32_t i = 0; i < c->nchunks; i++)
        for (uint32_t r = 0; r < c->chunks[i].count; r++) refs[k++] = ((uint64_t)i << 32) | r;
    cmp_ctx ctx = {node, c->chunks};
    int rc = tn_exec_sort(ex, parallel, refs, k, ref_cmp, &ctx);
    if (rc) {
        tn_free(refs);
        return rc;
    }
    *out = refs;
    return 0;
}

/* Append rows refs[0..n) of src's chunks to dst. */
static int append_refs(tn_exec *ex, tn_collection *dst, const tn_collection *src, const uint64_t *refs, size_t n) {
    int rc = 0;
    size_t i = 0, runs = 0;
    while (i < n && !rc) {
        if (++runs % 64 == 0 && (rc = tn_exec_check(ex))) break;
        /* runs of rows from one chunk go together */
        uint32_t ci = (uint32_t)(refs[i] >> 32);
        uint32_t sel[TN_VECTOR_SIZE];
        uint32_t m = 0;
        while (i < n && m < TN_VECTOR_SIZE && (uint32_t)(refs[i] >> 32) == ci) sel[m++] = (uint32_t)refs[i++];
        rc = tn_collection_append(dst, &src->chunks[ci], sel, m);
    }
    return rc;
}

static int sort_init(tn_sink *sink, void **state) {
    sort_shared *sh = sink->shared;
    sort_local *l = tn_calloc(1, sizeof *l);
    if (!l) return TN_ENOMEM;
    *state = l;
    return tn_collection_init(&l->c, sh->node->ncols, sh->node->types);
}

static void sort_free_local(tn_sink *sink, void *state) {
    sort_local *l = state;
    tn_collection_free(&l->c);
    if (l->thr.cols) tn_chunk_free(&l->thr);
    tn_free(l);
}

/* Keep only the best `keep` rows of l->c; remember the last as the threshold. */
static int compact(sort_shared *sh, sort_local *l) {
    uint64_t *refs = NULL;
    int rc = sort_refs(sh->ex, false, sh->node, &l->c, &refs);   /* on a pool worker */
    if (rc) return rc;
    size_t keep = (size_t)sh->keep < (size_t)l->c.nrows ? (size_t)sh->keep : (size_t)l->c.nrows;
    tn_collection nc;
    rc = tn_collection_init(&nc, l->c.ncols, l->c.types);
    if (!rc) rc = append_refs(sh->ex, &nc, &l->c, refs, keep);
    if (!rc && keep > 0) {
        if (l->thr.cols) tn_chunk_free(&l->thr);
        memset(&l->thr, 0, sizeof l->thr);
        rc = tn_chunk_init(&l->thr, l->c.ncols, l->c.types, 1);
        uint64_t last = refs[keep - 1];
        uint32_t r = (uint32_t)last;
        for (uint32_t k = 0; k < l->c.ncols && !rc; k++) {
            l->thr.cols[k].count = 0;
            rc = tn_vector_append_rows(&l->thr.cols[k], &l->c.chunks[last >> 32].cols[k], &r, 1);
        }
        l->thr.count = 1;
        l->has_thr = !rc && keep == (size_t)sh->keep;
    }
    tn_free(refs);
    if (rc) {
        tn_collection_free(&nc);
        return rc;
    }
    tn_collection_free(&l->c);
    l->c = nc;
    return 0;
}

/* Top-N: the rows of in that sort before the threshold row thr, into sel. The first key is
 * compared with a typed loop when it is a plain number; only ties go through cmp_rows. */
static uint32_t prefilter(const tn_plan *node, const tn_chunk *in, const tn_chunk *thr, uint32_t *sel) {
    uint32_t col = node->u.sort.keys[0], n = 0;
    const tn_vector *v = &in->cols[col], *tv = &thr->cols[col];
    bool desc = node->u.sort.desc[0];
    bool typed = v->type.id == tv->type.id && tv->type.id != TN_TYPE_NULL && tn_vector_is_valid(tv, 0);
#define PREFILTER(T, NANCHECK)                                                                   \
    do {                                                                                         \
        const T *x = v->data;                                                                    \
        T t = ((const T *)tv->data)[0];                                                          \
        if (NANCHECK(t)) break;                                                                  \
        for (uint32_t i = 0; i < in->count; i++) {                                               \
            if ((!v->validity || tn_vector_is_valid(v, i)) && !NANCHECK(x[i])) {                 \
                if (desc ? x[i] > t : x[i] < t) { sel[n++] = i; continue; }                      \
                if (desc ? x[i] < t : x[i] > t) continue;                                        \
            }                                                                                    \
            if (cmp_rows(node, in, i, thr, 0) < 0) sel[n++] = i;                                 \
        }                                                                                        \
        return n;                                                                                \
    } while (0)
#define NONAN(x) 0
#define ISNAN(x) ((x) != (x))
    if (typed) switch (v->type.id) {
        case TN_TYPE_BIGINT:
        case TN_TYPE_TIMESTAMP:
        case TN_TYPE_TIMESTAMP_TZ: PREFILTER(int64_t, NONAN); break;
        case TN_TYPE_INTEGER:
        case TN_TYPE_DATE: PREFILTER(int32_t, NONAN); break;
        case TN_TYPE_DOUBLE: PREFILTER(double, ISNAN); break;
        default: break;
        }
#undef PREFILTER
#undef NONAN
#undef ISNAN
    for (uint32_t i = 0; i < in->count; i++)
        if (cmp_rows(node, in, i, thr, 0) < 0) sel[n++] = i;
    return n;
}

static int sort_consume(tn_sink *sink, void *state, uint32_t morsel, const tn_chunk *in) {
    sort_shared *sh = sink->shared;
    sort_local *l = state;
    int rc = 0;
    if (sh->keep == 0) return 0;
    if (l->has_thr && in->count <= TN_VECTOR_SIZE) {
        uint32_t n = prefilter(sh->node, in, &l->thr, l->sel);
        if (n == 0) return 0;
        rc = tn_collection_append(&l->c, in, l->sel, n);
    } else {
        uint32_t before = l->c.nchunks;
        rc = tn_collection_append(&l->c, in, NULL, in->count);
        if (!rc && sh->keep < 0 && l->c.nchunks != before)
            rc = tn_exec_mem(sh->ex, (int64_t)(l->c.nchunks - before) * TN_VECTOR_SIZE * 16 * (l->c.ncols + 1));
    }
    if (rc) return rc;
    if (sh->keep > 0) {
        int64_t lim = sh->keep * 2 > 16384 ? sh->keep * 2 : 16384;
        if (l->c.nrows > lim) rc = compact(sh, l);
    }
    return rc;
}

static int sort_combine(tn_sink *sink, void **states, uint32_t n) {
    sort_shared *sh = sink->shared;
    const tn_plan *node = sh->node;
    tn_collection all;
    int rc = tn_collection_init(&all, node->ncols, node->types);
    if (rc) return rc;
    for (uint32_t w = 0; w < n && !rc; w++) {
        sort_local *l = states[w];
        if (l) rc = tn_collection_move(&all, &l->c);
    }
    uint64_t *refs = NULL;
    if (!rc) rc = sort_refs(sh->ex, true, node, &all, &refs);
    if (!rc) {
        size_t total = (size_t)all.nrows;
        size_t from = node->u.sort.offset > 0 ? (size_t)node->u.sort.offset : 0;
        if (from > total) from = total;
        size_t to = total;
        if (node->u.sort.limit >= 0 && from + (size_t)node->u.sort.limit < to) to = from + (size_t)node->u.sort.limit;
        rc = append_refs(sh->ex, sh->result, &all, refs + from, to - from);
    }
    tn_free(refs);
    tn_collection_free(&all);
    return rc;
}

int tn_sink_sort(tn_exec *ex, tn_plan *node, tn_collection *result, tn_sink **out) {
    tn_sink *s = tn_calloc(1, sizeof *s);
    sort_shared *sh = tn_calloc(1, sizeof *sh);
    if (!s || !sh) { tn_free(s); tn_free(sh); return TN_ENOMEM; }
    sh->ex = ex;
    sh->node = node;
    sh->result = result;
    sh->keep = node->u.sort.limit >= 0 ? node->u.sort.limit + node->u.sort.offset : -1;
    s->name = node->u.sort.limit >= 0 ? "TOP_N" : "ORDER_BY";
    s->shared = sh;
    s->worker_init = sort_init;
    s->worker_free = sort_free_local;
    s->consume = sort_consume;
    s->combine = sort_combine;
    int rc = tn_collection_init(result, node->ncols, node->types);
    if (rc) { tn_free(sh); tn_free(s); return rc; }
    *out = s;
    return 0;
}
