/*
 * sql/op_values.c: the VALUES source: constant rows (each expression evaluated once, over no
 * input), also the single empty row of a SELECT without FROM. One morsel.
 */
#include <string.h>

#include "sql/exec.h"

static int values_read(tn_source *src, tn_pipeline *p, uint32_t m, uint32_t worker) {
    tn_plan *node = src->shared;
    uint32_t nc = node->ncols, nr = node->u.values.nrows;
    tn_chunk c;
    memset(&c, 0, sizeof c);
    int rc = tn_chunk_init(&c, nc, node->types, nr ? nr : 1);
    if (rc) return rc;
    tn_arena *tmp = tn_arena_create(0);
    if (!tmp) { tn_chunk_free(&c); return TN_ENOMEM; }
    for (uint32_t r = 0; r < nr && !rc; r++) {
        for (uint32_t k = 0; k < nc && !rc; k++) {
            tn_value v;
            rc = tn_expr_fold(node->u.values.exprs[(size_t)r * nc + k], tmp, &v);
            if (rc) break;
            v.type = node->types[k];
            if (c.cols[k].capacity <= r) rc = tn_vector_reserve(&c.cols[k], r + 1);
            if (!rc) rc = tn_vector_set_value(&c.cols[k], r, &v);
            c.cols[k].count = r + 1;
        }
        c.count = r + 1;
    }
    /* rows of up to TN_VECTOR_SIZE per push */
    for (uint32_t done = 0; done < nr && !rc;) {
        uint32_t take = nr - done > TN_VECTOR_SIZE ? TN_VECTOR_SIZE : nr - done;
        if (done == 0 && take == nr) {
            c.count = nr;
            rc = tn_pipe_push(p, 0, worker, &c);
        } else {
            tn_chunk part;
            memset(&part, 0, sizeof part);
            rc = tn_chunk_init(&part, nc, node->types, take);
            uint32_t sel[TN_VECTOR_SIZE];
            for (uint32_t i = 0; i < take; i++) sel[i] = done + i;
            for (uint32_t k = 0; k < nc && !rc; k++) rc = tn_vector_gather(&part.cols[k], &c.cols[k], sel, take);
            part.count = take;
            if (!rc) rc = tn_pipe_push(p, 0, worker, &part);
            tn_chunk_free(&part);
        }
        done += take;
    }
    tn_arena_destroy(tmp);
    tn_chunk_free(&c);
    return rc;
}

int tn_op_values_source(tn_exec *ex, tn_plan *node, tn_source *out) {
    out->name = "VALUES";
    out->node = node;
    out->shared = node;
    out->nmorsels = 1;
    out->read = values_read;
    out->free = NULL;
    return 0;
}
