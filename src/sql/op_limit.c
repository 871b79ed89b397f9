/*
 * sql/op_limit.c: LIMIT / OFFSET as a streaming operator. Pipelines holding it run on one
 * thread in morsel order (so "the first n rows" is well defined) and stop early: the operator
 * returns TN_EXEC_STOP once it has passed `limit` rows.
 */
#include <string.h>

#include "sql/exec.h"

typedef struct limit_state {
    int64_t skip;          /* OFFSET rows still to drop */
    int64_t left;          /* rows still to pass (-1: no limit) */
    tn_chunk out;
} limit_state;

static int limit_init(tn_op *op, void **state) {
    tn_plan *node = op->node;
    limit_state *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    s->skip = node->u.limit.offset;
    s->left = node->u.limit.limit;
    int rc = tn_chunk_init(&s->out, node->ncols, node->types, TN_VECTOR_SIZE);
    if (rc) { tn_free(s); return rc; }
    *state = s;
    return 0;
}

static void limit_free(tn_op *op, void *state) {
    limit_state *s = state;
    tn_chunk_free(&s->out);
    tn_free(s);
}

static int limit_exec(tn_op *op, void *state, tn_pipeline *p, uint32_t stage, uint32_t worker,
                      const tn_chunk *in) {
    limit_state *s = state;
    if (s->left == 0) return TN_EXEC_STOP;
    uint32_t start = 0, n = in->count;
    if (s->skip > 0) {
        if ((int64_t)n <= s->skip) {
            s->skip -= n;
            return 0;
        }
        start = (uint32_t)s->skip;
        s->skip = 0;
    }
    uint32_t take = n - start;
    if (s->left >= 0 && (int64_t)take > s->left) take = (uint32_t)s->left;
    int rc = 0;
    if (start == 0 && take == n) rc = tn_pipe_push(p, stage + 1, worker, in);
    else {
        uint32_t sel[TN_VECTOR_SIZE];
        uint32_t *selp = sel;
        if (take > TN_VECTOR_SIZE) {
            selp = tn_malloc(take * sizeof *selp);
            if (!selp) return TN_ENOMEM;
        }
        for (uint32_t i = 0; i < take; i++) selp[i] = start + i;
        for (uint32_t c = 0; c < in->ncols && !rc; c++) rc = tn_vector_gather(&s->out.cols[c], &in->cols[c], selp, take);
        s->out.count = take;
        if (selp != sel) tn_free(selp);
        if (!rc) rc = tn_pipe_push(p, stage + 1, worker, &s->out);
    }
    if (rc) return rc;
    if (s->left >= 0) {
        s->left -= take;
        if (s->left == 0) return TN_EXEC_STOP;
    }
    return 0;
}

int tn_op_limit(tn_exec *ex, tn_plan *node, tn_op **out) {
    tn_op *op = tn_calloc(1, sizeof *op);
    if (!op) return TN_ENOMEM;
    op->name = "LIMIT";
    op->node = node;
    op->worker_init = limit_init;
    op->worker_free = limit_free;
    op->execute = limit_exec;
    *out = op;
    return 0;
}
