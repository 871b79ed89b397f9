/*
 * sql/op_values.c: the VALUES source: constant rows (each expression evaluated once, over no
 * input), also the single empty row of a SELECT without FROM. One morsel. Also the rows of
 * range()/generate_series() (bind_range.c): integer ranges in morsels of RANGE_MORSEL rows, in
 * order; timestamp ranges (calendar steps, so each row from the previous one) in one morsel.
 */
#include <string.h>

#include "sql/exec.h"
#include "sql/functions.h"

#define RANGE_MORSEL ((uint64_t)TN_VECTOR_SIZE * 64)

static uint64_t range_morsel_rows(const tn_plan *node) {
    uint64_t n = node->u.values.range_count, per = RANGE_MORSEL;
    while (n / per >= UINT32_MAX / 2) per *= 2;      /* nmorsels stays a uint32 */
    return per;
}

static int range_push(tn_pipeline *p, uint32_t worker, tn_chunk *c, uint32_t k) {
    c->count = k;
    c->cols[0].count = k;
    return tn_pipe_push(p, 0, worker, c);
}

static int range_read(tn_source *src, tn_pipeline *p, uint32_t m, uint32_t worker) {
    tn_plan *node = src->shared;
    tn_chunk c;
    memset(&c, 0, sizeof c);
    int rc = tn_chunk_init(&c, 1, node->types, TN_VECTOR_SIZE);
    if (rc) return rc;
    int64_t *d = (int64_t *)c.cols[0].data;
    uint32_t k = 0;
    if (!node->u.values.range_ts) {
        uint64_t per = range_morsel_rows(node), total = node->u.values.range_count;
        uint64_t from = (uint64_t)m * per, to = total - from < per ? total : from + per;
        uint64_t start = (uint64_t)node->u.values.range_start, step = (uint64_t)node->u.values.range_step;
        for (uint64_t i = from; i < to && !rc && !p->stop; i++) {
            d[k++] = (int64_t)(start + i * step);          /* modular: stays within [start, stop] */
            if (k == TN_VECTOR_SIZE) { rc = range_push(p, worker, &c, k); k = 0; }
        }
    } else {
        int64_t cur = node->u.values.range_start, stop = node->u.values.range_stop;
        tn_interval iv = node->u.values.range_iv;
        bool up = iv.months >= 0 && iv.days >= 0 && iv.micros >= 0;
        bool incl = node->u.values.range_inclusive;
        while (!rc && !p->stop) {
            if (up ? (incl ? cur > stop : cur >= stop) : (incl ? cur < stop : cur <= stop)) break;
            d[k++] = cur;
            if (k == TN_VECTOR_SIZE) { rc = range_push(p, worker, &c, k); k = 0; }
            if (!tn_func_timestamp_add(cur, iv, &cur)) break;
        }
    }
    if (!rc && k) rc = range_push(p, worker, &c, k);
    tn_chunk_free(&c);
    return rc;
}

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
    if (node->u.values.is_range) {
        out->name = "RANGE";
        out->read = range_read;
        if (!node->u.values.range_ts && node->u.values.range_count) {
            uint64_t per = range_morsel_rows(node), n = node->u.values.range_count;
            out->nmorsels = (uint32_t)(n / per + (n % per != 0));
        }
    }
    out->free = NULL;
    return 0;
}
