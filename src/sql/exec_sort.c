/*
 * sql/exec_sort.c: the executor's sort of 64-bit row references (ORDER BY, window partitions):
 * blocks of SORT_BLOCK references are sorted with qsort_r on the pool's workers, then merged
 * pairwise, level by level (each level's merges in parallel), between two buffers. Every block
 * and every SORT_CHECK merged references poll the statement's interrupt flag, so a sort of any
 * size stops within a few milliseconds of a cancel. The comparator must be a total order (the
 * callers break ties by the reference), which makes the result independent of the blocking.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"

#define SORT_BLOCK 32768
#define SORT_CHECK 8192

typedef struct sort_job {
    tn_exec *ex;
    uint64_t *a, *b;             /* source and destination of the current level */
    size_t n;
    size_t width;                /* run length of the current level's input */
    int (*cmp)(const void *, const void *, void *);
    void *ctx;
} sort_job;

static int block_task(void *arg, uint32_t task, uint32_t worker) {
    sort_job *j = arg;
    int rc = tn_exec_check(j->ex);
    if (rc) return rc;
    size_t from = (size_t)task * SORT_BLOCK;
    size_t n = j->n - from < SORT_BLOCK ? j->n - from : SORT_BLOCK;
    qsort_r(j->a + from, n, sizeof *j->a, j->cmp, j->ctx);
    return 0;
}

/* Merges runs [lo, mid) and [mid, hi) of j->a into j->b. */
static int merge_task(void *arg, uint32_t task, uint32_t worker) {
    sort_job *j = arg;
    size_t lo = (size_t)task * 2 * j->width;
    size_t mid = lo + j->width < j->n ? lo + j->width : j->n;
    size_t hi = mid + j->width < j->n ? mid + j->width : j->n;
    const uint64_t *a = j->a;
    uint64_t *d = j->b + lo;
    size_t x = lo, y = mid, since = 0;
    while (x < mid && y < hi) {
        if (++since == SORT_CHECK) {
            int rc = tn_exec_check(j->ex);
            if (rc) return rc;
            since = 0;
        }
        if (j->cmp(&a[y], &a[x], j->ctx) < 0) *d++ = a[y++];
        else *d++ = a[x++];
    }
    if (x < mid) memcpy(d, a + x, (mid - x) * sizeof *d);
    else if (y < hi) memcpy(d, a + y, (hi - y) * sizeof *d);
    return 0;
}

static int run_tasks(tn_exec *ex, bool parallel, uint32_t ntasks, tn_pool_task_fn fn, sort_job *j) {
    if (parallel && ntasks > 1 && ex && ex->pool && ex->nworkers > 1) return tn_pool_run(ex->pool, ntasks, fn, j);
    for (uint32_t t = 0; t < ntasks; t++) {
        int rc = fn(j, t, 0);
        if (rc) return rc;
    }
    return 0;
}

int tn_exec_sort(tn_exec *ex, bool parallel, uint64_t *refs, size_t n,
                 int (*cmp)(const void *, const void *, void *), void *ctx) {
    if (n < 2) return tn_exec_check(ex);
    sort_job j = {ex, refs, NULL, n, SORT_BLOCK, cmp, ctx};
    uint32_t nblocks = (uint32_t)((n + SORT_BLOCK - 1) / SORT_BLOCK);
    int rc = run_tasks(ex, parallel, nblocks, block_task, &j);
    if (rc || nblocks == 1) return rc;
    uint64_t *tmp = tn_malloc(n * sizeof *tmp);
    if (!tmp) return TN_ENOMEM;
    j.b = tmp;
    while (!rc && j.width < n) {
        uint32_t npairs = (uint32_t)((n + 2 * j.width - 1) / (2 * j.width));
        rc = run_tasks(ex, parallel, npairs, merge_task, &j);
        uint64_t *t = j.a;
        j.a = j.b;
        j.b = t;
        j.width *= 2;
    }
    if (!rc && j.a != refs) memcpy(refs, j.a, n * sizeof *refs);
    tn_free(tmp);
    return rc;
}
