/*
 * sql/func_list_agg.c: aggregates over the elements of one list, as DuckDB's list_sum,
 * list_min, list_max, list_avg, list_count, list_unique, list_first, list_last, list_any_value
 * and list_aggregate(l, 'name') (also list_aggr / array_aggregate / aggregate). NULL elements are
 * skipped (first and last take the element as is); a NULL list gives NULL; an empty (or all-NULL) list gives NULL, except the counts (0).
 * Result types follow the aggregates: sum of integers DECIMAL(38,0) (DuckDB's HUGEINT prints
 * the same), of DECIMAL(p,s) DECIMAL(38,s), of floats DOUBLE; avg DOUBLE; counts BIGINT.
 * Registered in functions.c as tn_funcs_list_agg.
 */
#include "sql/functions.h"

#include <string.h>

#define N TN_SIG_NONE
#define A TN_SIG_ANY
#define T_(x) TN_TYPE_##x

typedef enum { LA_SUM, LA_AVG, LA_MIN, LA_MAX, LA_COUNT, LA_UNIQUE, LA_FIRST, LA_LAST, LA_ANY } la_op;

static const struct { const char *name; la_op op; } g_ops[] = {
    {"sum", LA_SUM},     {"avg", LA_AVG},       {"mean", LA_AVG},     {"min", LA_MIN},
    {"max", LA_MAX},     {"count", LA_COUNT},   {"unique", LA_UNIQUE}, {"first", LA_FIRST},
    {"arbitrary", LA_FIRST}, {"any_value", LA_ANY}, {"last", LA_LAST},
};

/* The op of a function name: list_sum -> LA_SUM (bind_data of list_aggregate holds it). */
static int op_of_name(const char *name, size_t len, la_op *out) {
    for (size_t i = 0; i < sizeof g_ops / sizeof g_ops[0]; i++)
        if (strlen(g_ops[i].name) == len && strncmp(g_ops[i].name, name, len) == 0) {
            *out = g_ops[i].op;
            return 0;
        }
    return -1;
}

static int result_type(la_op op, tn_type el, tn_type *out) {
    char tb[128];
    switch (op) {
    case LA_SUM:
    case LA_AVG:
        if (el.id == TN_TYPE_NULL || el.id == TN_TYPE_BOOLEAN || tn_type_is_integer(el))
            *out = op == LA_AVG ? tn_type_make(TN_TYPE_DOUBLE) : tn_type_decimal(38, 0);
        else if (el.id == TN_TYPE_DECIMAL)
            *out = op == LA_AVG ? tn_type_make(TN_TYPE_DOUBLE) : tn_type_decimal(38, el.scale);
        else if (el.id == TN_TYPE_FLOAT || el.id == TN_TYPE_DOUBLE) *out = tn_type_make(TN_TYPE_DOUBLE);
        else
            return tn_error_set(TN_EBIND, "No function matches the given name and argument types '%s(%s)'",
                                op == LA_SUM ? "sum" : "avg", tn_type_format(el, tb, sizeof tb));
        return 0;
    case LA_COUNT:
    case LA_UNIQUE: *out = tn_type_make(TN_TYPE_BIGINT); return 0;
    default: *out = el.id == TN_TYPE_NULL ? tn_type_make(TN_TYPE_INTEGER) : el; return 0;
    }
}

static int bind_common(tn_func_binding *b, la_op op, void **bd) {
    if (b->arg_types[0].id != TN_TYPE_LIST) return tn_error_set(TN_EBIND, "the first argument must be a LIST");
    *bd = (void *)(uintptr_t)(op + 1);
    return result_type(op, tn_type_element(b->arg_types[0]), &b->ret);
}

#define BIND_OP(NAME, OP) \
    static int NAME(tn_func_binding *b, const tn_value *const *c, void **bd) { return bind_common(b, OP, bd); }
BIND_OP(bind_sum, LA_SUM)
BIND_OP(bind_avg, LA_AVG)
BIND_OP(bind_min, LA_MIN)
BIND_OP(bind_max, LA_MAX)
BIND_OP(bind_count, LA_COUNT)
BIND_OP(bind_unique, LA_UNIQUE)
BIND_OP(bind_first, LA_FIRST)
BIND_OP(bind_last, LA_LAST)
BIND_OP(bind_any, LA_ANY)

static int bind_aggregate(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    const tn_value *n = consts[1];
    if (!n || n->is_null || n->type.id != TN_TYPE_VARCHAR)
        return tn_error_set(TN_EBIND, "list_aggregate: the aggregate's name must be a constant string");
    la_op op;
    const char *p = n->u.s.ptr;
    size_t len = n->u.s.len;
    char low[32];
    if (len >= sizeof low) len = sizeof low - 1;
    for (size_t i = 0; i < len; i++) low[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]);
    if (op_of_name(low, len, &op))
        return tn_error_set(TN_EUNSUPPORTED, "list_aggregate: aggregate '%.*s' is not supported (sum, avg, min, max, "
                            "count, unique, first, last, any_value)", (int)n->u.s.len, p);
    return bind_common(b, op, bd);
}

static int elem_cmp(const tn_vector *c, uint32_t i, uint32_t j) {
    tn_value x, y;
    tn_vector_get_value(c, i, &x);
    tn_vector_get_value(c, j, &y);
    return tn_value_compare(&x, &y);
}

static int f_list_agg(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                      tn_vector *out) {
    la_op op = (la_op)((uintptr_t)call->bind_data - 1);
    const tn_vector *l = args[0], *c = &l->children[0];
    bool nullel = c->type.id == TN_TYPE_NULL;
    tn_type et = c->type;
    int rc = 0;
    for (uint32_t r = 0; r < count && !rc; r++) {
        if (!tn_vector_is_valid(out, r)) {
            if (tn_type_is_string(out->type)) tn_func_str_empty(out, r);
            continue;
        }
        tn_list_entry e = ((const tn_list_entry *)l->data)[TN_ARG_IDX(l, r)];
        int64_t n = 0, best = -1;
        tn_int128 isum = 0;
        double dsum = 0;
        if ((op == LA_FIRST || op == LA_LAST) && e.length) {
            /* first / last take the element as it is, NULL too (DuckDB's first / last) */
            uint32_t at = op == LA_FIRST ? e.offset : e.offset + e.length - 1;
            if (nullel || !tn_vector_is_valid(c, at)) {
                if (tn_type_is_string(out->type)) tn_func_str_empty(out, r);
                rc = tn_vector_set_null(out, r);
            } else {
                rc = tn_vector_copy_row(out, r, c, at);
            }
            continue;
        }
        for (uint32_t i = 0; i < e.length; i++) {
            uint32_t at = e.offset + i;
            if (nullel || !tn_vector_is_valid(c, at)) continue;
            if (op == LA_SUM || op == LA_AVG) {
                tn_value v;
                tn_vector_get_value(c, at, &v);
                if (et.id == TN_TYPE_FLOAT || et.id == TN_TYPE_DOUBLE) dsum += v.u.d;
                else if (et.id == TN_TYPE_BOOLEAN) isum += v.u.b;
                else if (tn_type_is_decimal128(et)) isum += v.u.i128;
                else isum += v.u.i;
            } else if (op == LA_UNIQUE) {
                bool seen = false;
                for (uint32_t j = 0; j < i && !seen; j++)
                    seen = tn_vector_is_valid(c, e.offset + j) && elem_cmp(c, at, e.offset + j) == 0;
                if (seen) continue;
            } else if (op == LA_MIN || op == LA_MAX) {
                if (best >= 0) {
                    int cmp = elem_cmp(c, at, (uint32_t)best);
                    if (op == LA_MIN ? cmp >= 0 : cmp <= 0) { n++; continue; }
                }
                best = at;
            } else if (op == LA_ANY) {
                if (best < 0) best = at;
            }
            n++;
        }
        if (op == LA_COUNT || op == LA_UNIQUE) {
            ((int64_t *)out->data)[r] = n;
            continue;
        }
        if (n == 0) {
            if (tn_type_is_string(out->type)) tn_func_str_empty(out, r);
            rc = tn_vector_set_null(out, r);
            continue;
        }
        if (op == LA_SUM || op == LA_AVG) {
            bool fl = et.id == TN_TYPE_FLOAT || et.id == TN_TYPE_DOUBLE;
            if (op == LA_AVG) {
                double x = fl ? dsum : et.id == TN_TYPE_DECIMAL ? tn_decimal_to_double(isum, et.scale) : (double)isum;
                ((double *)out->data)[r] = fl ? x / (double)n : x / (double)n;
            } else if (fl) {
                ((double *)out->data)[r] = dsum;
            } else {
                tn_dec_put(out, r, isum);
            }
            continue;
        }
        rc = tn_vector_copy_row(out, r, c, (uint32_t)best);
    }
    return rc;
}

const tn_func_def tn_funcs_list_agg[] = {
    {"list_sum", {T_(LIST), N}, A, 0, f_list_agg, bind_sum, NULL},
    {"list_avg", {T_(LIST), N}, A, 0, f_list_agg, bind_avg, NULL},
    {"list_min", {T_(LIST), N}, A, 0, f_list_agg, bind_min, NULL},
    {"list_max", {T_(LIST), N}, A, 0, f_list_agg, bind_max, NULL},
    {"list_count", {T_(LIST), N}, A, 0, f_list_agg, bind_count, NULL},
    {"list_unique", {T_(LIST), N}, A, 0, f_list_agg, bind_unique, NULL},
    {"array_unique", {T_(LIST), N}, A, 0, f_list_agg, bind_unique, NULL},
    {"list_first", {T_(LIST), N}, A, 0, f_list_agg, bind_first, NULL},
    {"list_any_value", {T_(LIST), N}, A, 0, f_list_agg, bind_any, NULL},
    {"list_last", {T_(LIST), N}, A, 0, f_list_agg, bind_last, NULL},
    {"list_aggregate", {T_(LIST), T_(VARCHAR), N}, A, 0, f_list_agg, bind_aggregate, NULL},
    {"list_aggr", {T_(LIST), T_(VARCHAR), N}, A, 0, f_list_agg, bind_aggregate, NULL},
    {"array_aggregate", {T_(LIST), T_(VARCHAR), N}, A, 0, f_list_agg, bind_aggregate, NULL},
    {"array_aggr", {T_(LIST), T_(VARCHAR), N}, A, 0, f_list_agg, bind_aggregate, NULL},
    {"aggregate", {T_(LIST), T_(VARCHAR), N}, A, 0, f_list_agg, bind_aggregate, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
