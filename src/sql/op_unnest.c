/*
 * sql/op_unnest.c: the streaming UNNEST operator (TN_PLAN_UNNEST, bound in bind_unnest.c).
 * Per input chunk it evaluates the list expressions, then emits for each input row r as many
 * rows as r's longest list (NULL and empty lists count 0): the input columns repeated (gathered
 * by row index), and per list its j-th element (gathered from the list's element vector by
 * offset + j) or NULL past its end; POS0 columns are j. Output chunks hold at most
 * TN_VECTOR_SIZE rows, so a long list spans chunks.
 */
#include <string.h>

#include "sql/exec.h"

#define PAD UINT32_MAX

typedef struct unnest_state {
    tn_expr_state **st;
    tn_vector *lists;          /* evaluated list vectors (owned), one per expression */
    uint32_t *rowsel;          /* input row of each output row */
    uint32_t *elsel;           /* [k * TN_VECTOR_SIZE + o]: element index, or PAD */
    uint32_t *tmp;
    tn_chunk out;              /* owned vectors */
} unnest_state;

static void unnest_free(tn_op *op, void *state) {
    tn_plan *node = op->node;
    unnest_state *s = state;
    for (uint32_t k = 0; k < node->u.unnest.n; k++) {
        if (s->st) tn_expr_state_free(s->st[k]);
        if (s->lists && s->lists[k].type.id) tn_vector_free(&s->lists[k]);
    }
    tn_free(s->st);
    tn_free(s->lists);
    tn_free(s->rowsel);
    tn_free(s->elsel);
    tn_free(s->tmp);
    if (s->out.cols) tn_chunk_free(&s->out);
    tn_free(s);
}

static int unnest_init(tn_op *op, void **state) {
    tn_plan *node = op->node;
    uint32_t n = node->u.unnest.n;
    unnest_state *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    *state = s;
    s->st = tn_calloc(n + 1, sizeof *s->st);
    s->lists = tn_calloc(n + 1, sizeof *s->lists);
    s->rowsel = tn_malloc(TN_VECTOR_SIZE * sizeof *s->rowsel);
    s->elsel = tn_malloc(((size_t)n + 1) * TN_VECTOR_SIZE * sizeof *s->elsel);
    s->tmp = tn_malloc(TN_VECTOR_SIZE * sizeof *s->tmp);
    if (!s->st || !s->lists || !s->rowsel || !s->elsel || !s->tmp) return TN_ENOMEM;
    for (uint32_t k = 0; k < n; k++) {
        tn_expr *e = node->u.unnest.exprs[k];
        int rc = tn_expr_state_create(e, &s->st[k]);
        if (!rc) rc = tn_vector_init(&s->lists[k], e->type, TN_VECTOR_SIZE);
        if (rc) return rc;
    }
    return tn_chunk_init(&s->out, node->ncols, node->types, TN_VECTOR_SIZE);
}

/* Fill output column `dst` from element vector `el` by sel[0..n) (PAD = NULL). */
static int gather_elements(tn_vector *dst, const tn_vector *el, const uint32_t *sel, uint32_t n, uint32_t *tmp) {
    bool pad = false;
    for (uint32_t i = 0; i < n && !pad; i++) pad = sel[i] == PAD;
    if (!pad) return tn_vector_gather(dst, el, sel, n);
    if (el->count == 0) {
        tn_vector_reset(dst);
        return tn_vector_fill_null(dst, 0, n);
    }
    for (uint32_t i = 0; i < n; i++) tmp[i] = sel[i] == PAD ? 0 : sel[i];
    int rc = tn_vector_gather(dst, el, tmp, n);
    for (uint32_t i = 0; i < n && !rc; i++)
        if (sel[i] == PAD) rc = tn_vector_set_null(dst, i);
    return rc;
}

static int flush(tn_op *op, unnest_state *s, tn_pipeline *p, uint32_t stage, uint32_t worker, const tn_chunk *in,
                 uint32_t n) {
    tn_plan *node = op->node;
    uint32_t base = node->ncols - node->u.unnest.n;
    int rc = 0;
    for (uint32_t c = 0; c < base && !rc; c++) rc = tn_vector_gather(&s->out.cols[c], &in->cols[c], s->rowsel, n);
    for (uint32_t k = 0; k < node->u.unnest.n && !rc; k++) {
        tn_vector *dst = &s->out.cols[base + k];
        const uint32_t *sel = s->elsel + (size_t)k * TN_VECTOR_SIZE;
        if (node->u.unnest.modes[k] == TN_UNNEST_POS0) {
            tn_vector_reset(dst);
            int32_t *d = dst->data;
            const tn_list_entry *le = s->lists[k].data;
            for (uint32_t i = 0; i < n && !rc; i++) {
                if (sel[i] == PAD) rc = tn_vector_set_null(dst, i);
                else d[i] = (int32_t)(sel[i] - le[s->rowsel[i]].offset);
            }
            dst->count = n;
        } else {
            rc = gather_elements(dst, &s->lists[k].children[0], sel, n, s->tmp);
        }
    }
    if (rc) return rc;
    s->out.count = n;
    return tn_pipe_push(p, stage + 1, worker, &s->out);
}

static int unnest_exec(tn_op *op, void *state, tn_pipeline *p, uint32_t stage, uint32_t worker, const tn_chunk *in) {
    tn_plan *node = op->node;
    unnest_state *s = state;
    uint32_t nl = node->u.unnest.n;
    int rc = 0;
    for (uint32_t k = 0; k < nl; k++) {
        if (s->lists[k].capacity < in->count && (rc = tn_vector_reserve(&s->lists[k], in->count))) return rc;
        if ((rc = tn_expr_eval(node->u.unnest.exprs[k], in, &s->lists[k], s->st[k]))) return rc;
    }
    uint32_t o = 0;
    for (uint32_t r = 0; r < in->count; r++) {
        uint32_t len = 0;
        for (uint32_t k = 0; k < nl; k++) {
            const tn_vector *L = &s->lists[k];
            uint32_t l = tn_vector_is_valid(L, r) ? ((const tn_list_entry *)L->data)[r].length : 0;
            if (l > len) len = l;
        }
        for (uint32_t j = 0; j < len; j++) {
            s->rowsel[o] = r;
            for (uint32_t k = 0; k < nl; k++) {
                const tn_vector *L = &s->lists[k];
                const tn_list_entry *le = &((const tn_list_entry *)L->data)[r];
                s->elsel[(size_t)k * TN_VECTOR_SIZE + o] = tn_vector_is_valid(L, r) && j < le->length ? le->offset + j : PAD;
            }
            if (++o == TN_VECTOR_SIZE) {
                if ((rc = flush(op, s, p, stage, worker, in, o))) return rc;
                o = 0;
                if ((rc = tn_exec_check(p->ex))) return rc;
            }
        }
    }
    return o ? flush(op, s, p, stage, worker, in, o) : 0;
}

int tn_op_unnest(tn_exec *ex, tn_plan *node, tn_op **out) {
    tn_op *op = tn_calloc(1, sizeof *op);
    if (!op) return TN_ENOMEM;
    op->name = "UNNEST";
    op->node = node;
    op->worker_init = unnest_init;
    op->worker_free = unnest_free;
    op->execute = unnest_exec;
    *out = op;
    return 0;
}
