/*
 * sql/op_filter_project.c: the streaming FILTER (predicate -> selection -> gathered columns,
 * passing only the columns needed above) and PROJECT (column references pass the input vector
 * through without copying; other expressions are evaluated per chunk) operators.
 */
#include <string.h>

#include "sql/exec.h"

/* ---------------------------------------------------------------------------------------------
 * FILTER.
 */
typedef struct filter_state {
    tn_expr_state *st;
    uint32_t *sel;
    uint32_t selcap;
    tn_chunk out;              /* gathered vectors (owned) */
    tn_chunk pass;             /* every row passed: views of the input's columns passed on */
} filter_state;

static int filter_init(tn_op *op, void **state) {
    tn_plan *node = op->node;
    filter_state *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    int rc = tn_expr_state_create(node->u.filter.pred, &s->st);
    if (!rc) rc = tn_chunk_init(&s->out, node->ncols, node->types, TN_VECTOR_SIZE);
    if (!rc && node->u.filter.out_cols) {
        s->pass.cols = tn_calloc(node->ncols + 1, sizeof *s->pass.cols);
        s->pass.ncols = node->ncols;
        if (!s->pass.cols) rc = TN_ENOMEM;
    }
    if (rc) {
        tn_free(s->pass.cols);
        tn_expr_state_free(s->st);
        tn_free(s);
        return rc;
    }
    *state = s;
    return 0;
}

static void filter_free(tn_op *op, void *state) {
    filter_state *s = state;
    tn_expr_state_free(s->st);
    tn_free(s->sel);
    tn_chunk_free(&s->out);
    tn_free(s->pass.cols);
    tn_free(s);
}

static int filter_exec(tn_op *op, void *state, tn_pipeline *p, uint32_t stage, uint32_t worker,
                       const tn_chunk *in) {
    tn_plan *node = op->node;
    filter_state *s = state;
    if (s->selcap < in->count) {
        tn_free(s->sel);
        s->sel = tn_malloc((in->count + 1) * sizeof *s->sel);
        if (!s->sel) { s->selcap = 0; return TN_ENOMEM; }
        s->selcap = in->count;
    }
    uint32_t n = 0;
    int rc = tn_expr_filter(node->u.filter.pred, in, s->sel, &n, s->st);
    if (rc || n == 0) return rc;
    const uint32_t *outc = node->u.filter.out_cols;
    if (n == in->count && !outc) return tn_pipe_push(p, stage + 1, worker, in);
    if (n == in->count) {
        for (uint32_t c = 0; c < node->ncols; c++) tn_vector_view(&s->pass.cols[c], &in->cols[outc[c]]);
        s->pass.count = n;
        return tn_pipe_push(p, stage + 1, worker, &s->pass);
    }
    for (uint32_t c = 0; c < node->ncols; c++) {
        rc = tn_vector_gather(&s->out.cols[c], &in->cols[outc ? outc[c] : c], n == in->count ? NULL : s->sel, n);
        if (rc) return rc;
    }
    s->out.count = n;
    return tn_pipe_push(p, stage + 1, worker, &s->out);
}

int tn_op_filter(tn_exec *ex, tn_plan *node, tn_op **out) {
    tn_op *op = tn_calloc(1, sizeof *op);
    if (!op) return TN_ENOMEM;
    op->name = "FILTER";
    op->node = node;
    op->worker_init = filter_init;
    op->worker_free = filter_free;
    op->execute = filter_exec;
    *out = op;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * PROJECT.
 */
typedef struct project_state {
    tn_expr_state **st;
    tn_vector *owned;          /* evaluated results (owned) */
    tn_chunk out;              /* views */
} project_state;

static void project_free(tn_op *op, void *state) {
    tn_plan *node = op->node;
    project_state *s = state;
    for (uint32_t i = 0; i < node->ncols; i++) {
        if (s->st) tn_expr_state_free(s->st[i]);
        if (s->owned && s->owned[i].data) tn_vector_free(&s->owned[i]);
        else if (s->owned && s->owned[i].heap) tn_vector_free(&s->owned[i]);
    }
    tn_free(s->st);
    tn_free(s->owned);
    tn_free(s->out.cols);
    tn_free(s);
}

static int project_init(tn_op *op, void **state) {
    tn_plan *node = op->node;
    project_state *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    *state = s;
    uint32_t n = node->ncols;
    s->st = tn_calloc(n + 1, sizeof *s->st);
    s->owned = tn_calloc(n + 1, sizeof *s->owned);
    s->out.cols = tn_calloc(n + 1, sizeof *s->out.cols);
    s->out.ncols = n;
    if (!s->st || !s->owned || !s->out.cols) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        tn_expr *e = node->u.project.exprs[i];
        if (e->kind == TN_EXPR_COLUMN) continue;
        int rc = tn_expr_state_create(e, &s->st[i]);
        if (!rc) rc = tn_vector_init(&s->owned[i], e->type, TN_VECTOR_SIZE);
        if (rc) return rc;
    }
    return 0;
}

static int project_exec(tn_op *op, void *state, tn_pipeline *p, uint32_t stage, uint32_t worker,
                        const tn_chunk *in) {
    tn_plan *node = op->node;
    project_state *s = state;
    for (uint32_t i = 0; i < node->ncols; i++) {
        tn_expr *e = node->u.project.exprs[i];
        if (e->kind == TN_EXPR_COLUMN) {
            if (e->u.column >= in->ncols) return tn_error_set(TN_EINTERNAL, "projection of a missing column");
            tn_vector_view(&s->out.cols[i], &in->cols[e->u.column]);
            continue;
        }
        if (s->owned[i].capacity < in->count) {
            int rc = tn_vector_reserve(&s->owned[i], in->count);
            if (rc) return rc;
        }
        int rc = tn_expr_eval(e, in, &s->owned[i], s->st[i]);
        if (rc) return rc;
        tn_vector_view(&s->out.cols[i], &s->owned[i]);
    }
    s->out.count = in->count;
    return tn_pipe_push(p, stage + 1, worker, &s->out);
}

int tn_op_project(tn_exec *ex, tn_plan *node, tn_op **out) {
    tn_op *op = tn_calloc(1, sizeof *op);
    if (!op) return TN_ENOMEM;
    op->name = "PROJECT";
    op->node = node;
    op->worker_init = project_init;
    op->worker_free = project_free;
    op->execute = project_exec;
    *out = op;
    return 0;
}
