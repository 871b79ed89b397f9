/*
 * sql/agg_list.c: the list aggregates (table-defined, sql/aggregates.h): DuckDB's list /
 * array_agg (every value, NULLs included, in arrival order; list(DISTINCT x) drops duplicates
 * and NULLs), Spark's collect_list (NULLs dropped) and collect_set (distinct, NULLs dropped).
 * State per group: a vector of the group's values, grown as rows arrive; per-thread states
 * merge by appending; finalize appends the values to the LIST result's element vector. A
 * group with no values gives NULL, as DuckDB's list() of no rows.
 */
#include <string.h>

#include "sql/aggregates.h"

typedef struct lstate {
    tn_vector *vals;       /* NULL until the first value */
} lstate;

enum { OP_KEEP_NULLS = 1, OP_SKIP_NULLS };

static int ensure(lstate *st, tn_type t) {
    if (st->vals) return 0;
    st->vals = tn_calloc(1, sizeof *st->vals);
    if (!st->vals) return TN_ENOMEM;
    int rc = tn_vector_init(st->vals, t, 4);
    if (rc) {
        tn_free(st->vals);
        st->vals = NULL;
    }
    return rc;
}

static int update(const tn_agg_call *call, uint8_t *states, const uint32_t *gids, const tn_vector *v, uint32_t n,
                  const uint8_t *mask) {
    size_t sz = call->fn->state_size;
    bool skip_nulls = call->fn->op == OP_SKIP_NULLS;
    for (uint32_t i = 0; i < n; i++) {
        if (mask && !mask[i]) continue;
        if (skip_nulls && !tn_vector_is_valid(v, i)) continue;
        lstate *st = (lstate *)(states + (size_t)gids[i] * sz);
        int rc = ensure(st, v->type);
        if (!rc) rc = tn_vector_append_rows(st->vals, v, &i, 1);
        if (rc) return rc;
    }
    return 0;
}

static int merge(const tn_agg_call *call, void *dp, void *sp) {
    lstate *d = dp, *s = sp;
    if (!s->vals) return 0;
    if (!d->vals) {
        d->vals = s->vals;
        s->vals = NULL;
        return 0;
    }
    return tn_vector_append_rows(d->vals, s->vals, NULL, s->vals->count);
}

static int finalize(const tn_agg_call *call, void *sp, tn_vector *out, uint32_t row) {
    lstate *s = sp;
    if (!s->vals) return tn_vector_set_null(out, row);
    tn_vector *child = &out->children[0];
    uint32_t base = child->count;
    int rc = tn_vector_append_rows(child, s->vals, NULL, s->vals->count);
    if (rc) return rc;
    tn_list_entry *e = &((tn_list_entry *)out->data)[row];
    e->offset = base;
    e->length = s->vals->count;
    if (out->validity) tn_vector_set_valid_bit(out, row, true);
    return 0;
}

static void destroy(void *sp) {
    lstate *s = sp;
    if (s->vals) {
        tn_vector_free(s->vals);
        tn_free(s->vals);
        s->vals = NULL;
    }
}

#define LIST_AGG(NAME, OP, KEEPS_DISTINCT, FORCED)                                                                 \
    {NAME, TN_AGG_ANY_TYPE, TN_AGG_LIST_OF_ARG, false, sizeof(lstate), OP, update, merge, finalize, destroy,      \
     KEEPS_DISTINCT, FORCED}

const tn_agg_func tn_aggs_list[] = {
    LIST_AGG("list", OP_KEEP_NULLS, true, false),
    LIST_AGG("array_agg", OP_KEEP_NULLS, true, false),
    LIST_AGG("collect_list", OP_SKIP_NULLS, true, false),
    LIST_AGG("collect_set", OP_SKIP_NULLS, true, true),
    {NULL, 0, 0, false, 0, 0, NULL, NULL, NULL, NULL, false, false},
};
