/*
 * sql/aggregates.h: the registry of aggregate functions defined by tables (tn_agg_func) rather
 * than by a case of op_aggregate.c's built-in kinds: a family file (agg_bitmap.c, ...) lists its
 * functions with their argument and result types and a fixed-size state per group with
 * update / merge / finalize / destroy callbacks; the binder finds them by name (bind_expr.c) and
 * the hash aggregate runs them as TN_AGG_CUSTOM (op_aggregate.c), per thread, then merged.
 */
#ifndef TN_SQL_AGGREGATES_H
#define TN_SQL_AGGREGATES_H

#include "types/types.h"

typedef struct tn_agg_func tn_agg_func;

/* ORDER BY inside an aggregate call (agg_ordered.c): what to compute over the group's rows in
 * the order of nkeys keys. */
typedef enum tn_agg_order_mode {
    TN_AGG_ORDER_STRING_AGG,        /* the non-NULL values joined by sep; none: NULL */
    TN_AGG_ORDER_LIST,              /* list / array_agg (NULLs kept unless skip_nulls) */
    TN_AGG_ORDER_FIRST,             /* the first row's value (NULL too; any_value: skip_nulls) */
    TN_AGG_ORDER_LAST,
    TN_AGG_ORDER_SUM,               /* sum / avg of DOUBLE values added in order (NULLs skipped) */
    TN_AGG_ORDER_AVG,
    TN_AGG_ORDER_MIN,               /* min / max of LIST / STRUCT / MAP values (DuckDB's order): */
    TN_AGG_ORDER_MAX,               /* one row kept per group, NULLs skipped */
} tn_agg_order_mode;

typedef struct tn_agg_order {
    tn_agg_order_mode mode;
    uint32_t nkeys;
    const bool *desc, *nulls_first;
    const char *sep;                /* STRING_AGG */
    uint32_t sep_len;
    bool skip_nulls;                /* values that are NULL are not taken */
    bool distinct;                  /* equal neighbours (after sorting by the value) taken once */
} tn_agg_order;

/* One call's constant context: the definition and how to name its argument in errors. */
typedef struct tn_agg_call {
    const tn_agg_func *fn;
    const char *arg_name;           /* the argument as written (a column name), for messages */
    const tn_agg_order *order;      /* the ordered aggregate's spec (tn_agg_ordered), else NULL */
} tn_agg_call;

/* tn_agg_func.arg / ret pseudo types: any argument type (passed as is) / a LIST of it. */
#define TN_AGG_ANY_TYPE 0xF1
#define TN_AGG_LIST_OF_ARG 0xF2

struct tn_agg_func {
    const char *name;               /* lower case, as users type it (camelCase names lowered) */
    uint8_t arg;                    /* argument type: arguments cast to it implicitly */
    uint8_t ret;                    /* result type */
    bool zero_on_empty;             /* the result of no rows is 0, not NULL (count-like) */
    uint16_t state_size;            /* bytes of state per group, zero-filled when a group starts */
    int op;                         /* a constant the callbacks share between rows of a family */
    /* Rows [0, n) of v (non-NULL rows, selected by mask when set) into the states of their
     * groups: the state of row i is at states + gids[i] * state_size. */
    int (*update)(const tn_agg_call *call, uint8_t *states, const uint32_t *gids, const tn_vector *v,
                  uint32_t n, const uint8_t *mask);
    /* Fold src into dst (one group each); src may be emptied (moved from), then destroyed. */
    int (*merge)(const tn_agg_call *call, void *dst, void *src);
    /* The group's result into out[row] (tn_vector_set_value copies strings). */
    int (*finalize)(const tn_agg_call *call, void *state, tn_vector *out, uint32_t row);
    void (*destroy)(void *state);   /* may be NULL */
    bool keeps_distinct;            /* DISTINCT changes the result (else it is ignored) */
    bool forced_distinct;           /* always DISTINCT (collect_set) */
};

/* The definition of `name` (case-insensitive), or NULL. */
const tn_agg_func *tn_agg_func_lookup(const char *name);

/* intersect_count(b, f, v1, ...) rewritten, in arena a, into bitmap aggregates (agg_bitmap.c). */
struct tn_sql_expr;
int tn_bitmap_rewrite_intersect_count(tn_arena *a, const struct tn_sql_expr *e, struct tn_sql_expr **out);

/* Family tables, NULL-name terminated (concatenated by tn_agg_func_lookup in agg_bitmap.c). */
extern const tn_agg_func tn_aggs_bitmap[];
/* agg_ordered.c: not found by name; the binder uses it for an aggregate with ORDER BY (its
 * argument a STRUCT of the value and the keys, call->order the spec). */
extern const tn_agg_func tn_agg_ordered;
extern const tn_agg_func tn_aggs_list[];      /* agg_list.c: list / array_agg / collect_list / collect_set */

#endif
