/*
 * sql/op_sort.c: ORDER BY. The sink collects rows per worker; with a LIMIT (top-N) each worker
 * keeps only its best limit+offset rows (compacting when it holds twice that, and dropping
 * incoming rows that cannot beat its current N-th row). At the end the rows are sorted by
 * their keys (NULLS LAST unless asked otherwise, DuckDB's default for ASC and DESC; ties keep
 * input order; tn_exec_sort: parallel, interruptible) and the [offset, offset+limit) slice
 * is emitted. A full sort past its share of memory_limit spills: a worker whose buffer passes
 * budget / workers (or holds 1 MiB when the statement nears its limit) writes it as a sorted run
 * (spill_sort.c), and the sort's output is then the merge of the runs instead of a collection.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"

typedef struct sort_shared {
    tn_exec *ex;
    tn_plan *node;
    tn_collection *result;
    int64_t keep;               /* top-N: rows to keep (limit + offset), -1: all */
    tn_sort_spill *spill;       /* full sorts under a memory_limit: the runs written */
    uint64_t worker_budget;     /* bytes a worker buffers before it writes a run */
} sort_shared;

typedef struct sort_local {
    tn_collection c;
    tn_chunk thr;               /* the current N-th row (top-N) */
    bool has_thr;
    uint64_t charged;           /* bytes accounted with tn_exec_mem for c */
    uint32_t sel[TN_VECTOR_SIZE];
} sort_local;

typedef struct cmp_ctx {
    const tn_plan *node;
    const tn_chunk *chunks;
} cmp_ctx;

#define cmp_rows tn_sort_cmp_rows

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
    sort_shared *sh = sink->shared;
    if (l->charged) tn_exec_mem(sh->ex, -(int64_t)l->charged);
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

/* Memory of the chunk's string bytes (the fixed part is counted per chunk). */
static uint64_t heap_bytes(const tn_chunk *c) {
    uint64_t n = 0;
    for (uint32_t k = 0; k < c->ncols; k++)
        if (c->cols[k].heap) n += tn_arena_bytes(c->cols[k].heap);
    return n;
}

/* Writes l's rows as one sorted run and empties l. */
static int spill_local(sort_shared *sh, sort_local *l, bool parallel) {
    uint64_t *refs = NULL;
    int rc = sort_refs(sh->ex, parallel, sh->node, &l->c, &refs);
    if (!rc) rc = tn_sort_spill_run(sh->spill, &l->c, refs, (size_t)l->c.nrows);
    tn_free(refs);
    if (rc) return rc;
    tn_collection_free(&l->c);
    if (l->charged) tn_exec_mem(sh->ex, -(int64_t)l->charged);
    l->charged = 0;
    return tn_collection_init(&l->c, sh->node->ncols, sh->node->types);
}

/* A full sort's worker after appending: account the new chunks; spill past the budget. */
static int account(sort_shared *sh, sort_local *l, uint32_t before) {
    if (l->c.nchunks == before) return 0;
    int64_t delta = (int64_t)(l->c.nchunks - before) * TN_VECTOR_SIZE * 16 * (l->c.ncols + 1);
    if (sh->spill)
        for (uint32_t i = before ? before - 1 : 0; i + 1 < l->c.nchunks; i++) delta += (int64_t)heap_bytes(&l->c.chunks[i]);
    l->charged += (uint64_t)delta;
    int rc = tn_exec_mem(sh->ex, delta);
    if (!sh->spill) return rc;
    bool over = rc == TN_ELIMIT || l->charged > sh->worker_budget ||
                (tn_exec_mem_tight(sh->ex) && l->charged > ((uint64_t)1 << 20));
    if (rc && rc != TN_ELIMIT) return rc;
    if (!over) return 0;
    tn_error_clear();
    return spill_local(sh, l, false);
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
        if (!rc && sh->keep < 0) rc = account(sh, l, before);
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
    if (!rc && tn_sort_spill_has_runs(sh->spill)) {
        /* the rows still in memory become the last run; the output is the merge (exec.c) */
        sort_local rest;
        memset(&rest, 0, sizeof rest);
        rest.c = all;
        rc = spill_local(sh, &rest, true);
        tn_collection_free(&rest.c);
        return rc;
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

static void sort_free_shared(tn_sink *sink) {
    sort_shared *sh = sink->shared;
    if (!sh) return;
    tn_sort_spill_free(sh->spill);
    tn_free(sh);
}

int tn_sink_sort(tn_exec *ex, tn_plan *node, tn_collection *result, tn_sink **out) {
    tn_sink *s = tn_calloc(1, sizeof *s);
    sort_shared *sh = tn_calloc(1, sizeof *sh);
    if (!s || !sh) { tn_free(s); tn_free(sh); return TN_ENOMEM; }
    sh->ex = ex;
    sh->node = node;
    sh->result = result;
    sh->keep = node->u.sort.limit >= 0 ? node->u.sort.limit + node->u.sort.offset : -1;
    /* a top-N that would hold more than its share of memory is a full sort that may spill (the
       slice [offset, offset + limit) is taken from its output either way) */
    uint64_t budget = tn_exec_spill_budget(ex);
    if (sh->keep > 0 && budget && (uint64_t)sh->keep * 2 * 16 * (node->ncols + 1) > budget / 4) sh->keep = -1;
    s->name = sh->keep >= 0 ? "TOP_N" : "ORDER_BY";
    s->shared = sh;
    s->worker_init = sort_init;
    s->worker_free = sort_free_local;
    s->consume = sort_consume;
    s->combine = sort_combine;
    s->free_shared = sort_free_shared;
    int rc = 0;
    if (sh->keep < 0 && tn_exec_spill_budget(ex)) {
        rc = tn_sort_spill_create(ex, node, &sh->spill);
        sh->worker_budget = tn_exec_spill_budget(ex) / (ex->nworkers ? ex->nworkers : 1);
    }
    if (!rc) rc = tn_collection_init(result, node->ncols, node->types);
    if (rc) { tn_sort_spill_free(sh->spill); tn_free(sh); tn_free(s); return rc; }
    *out = s;
    return 0;
}

tn_sort_spill *tn_sink_sort_take_spill(tn_sink *sink) {
    sort_shared *sh = sink->shared;
    if (!tn_sort_spill_has_runs(sh->spill)) return NULL;
    tn_sort_spill *s = sh->spill;
    sh->spill = NULL;
    return s;
}
