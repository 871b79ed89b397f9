/*
 * sql/optimize_date_cast.c: comparisons of a DATE widened to TIMESTAMP with a TIMESTAMP
 * constant become comparisons of the DATE itself. `date 'X' + interval 'N' day` is a TIMESTAMP
 * (as in DuckDB), so a range such as `d >= date 'X' AND d < date 'X' + interval '1' year` binds
 * as `CAST(d AS TIMESTAMP) < TIMESTAMP '...'`, which neither reaches the scan nor reads the
 * column's statistics. For a date d and a timestamp c (floor(c) = its day, ceil(c) = the first
 * day not before c), with the same NULLs:
 *     CAST(d AS TIMESTAMP) <  c  <=>  d <  ceil(c)      CAST(d AS TIMESTAMP) <= c  <=>  d <= floor(c)
 *     CAST(d AS TIMESTAMP) >  c  <=>  d >  floor(c)     CAST(d AS TIMESTAMP) >= c  <=>  d >= ceil(c)
 *     =, <> : only when c is midnight (then floor = ceil); otherwise left as written.
 */
#include <string.h>

#include "sql/optimizeInt.h"

#define US_PER_DAY 86400000000LL

static bool date_to_ts(const tn_expr *e) {
    return e->kind == TN_EXPR_CAST && !e->u.try_cast && e->type.id == TN_TYPE_TIMESTAMP && e->nargs == 1 &&
           e->args[0]->type.id == TN_TYPE_DATE;
}

static bool ts_const(const tn_expr *e) {
    return e->kind == TN_EXPR_CONSTANT && e->type.id == TN_TYPE_TIMESTAMP && !e->u.value.is_null;
}

static int rewrite(tn_expr **slot) {
    tn_expr *e = *slot;
    for (uint32_t i = 0; i < e->nargs; i++) {
        if (!e->args[i]) continue;
        int rc = rewrite(&e->args[i]);
        if (rc) return rc;
    }
    if (e->kind != TN_EXPR_FUNCTION || e->nargs != 2 || !e->u.func.call.def) return 0;
    const char *name = e->u.func.call.def->name;
    static const char *const ops[][2] = {{"<", ">"}, {"<=", ">="}, {">", "<"}, {">=", "<="}, {"=", "="}, {"<>", "<>"}};
    int op = -1;
    for (int i = 0; i < 6 && op < 0; i++)
        if (strcmp(name, ops[i][0]) == 0) op = i;
    if (op < 0) return 0;
    int ci;
    if (date_to_ts(e->args[0]) && ts_const(e->args[1])) ci = 0;
    else if (date_to_ts(e->args[1]) && ts_const(e->args[0])) ci = 1;
    else return 0;
    /* the operator as seen from the date: `c < CAST(d)` is `CAST(d) > c` */
    const char *dop = ops[op][ci];
    int64_t us = e->args[1 - ci]->u.value.u.i;
    int64_t fl = us / US_PER_DAY - (us % US_PER_DAY < 0 ? 1 : 0);
    bool exact = fl * US_PER_DAY == us;
    int64_t day;
    if (strcmp(dop, "<") == 0 || strcmp(dop, ">=") == 0) day = exact ? fl : fl + 1;
    else if (strcmp(dop, "<=") == 0 || strcmp(dop, ">") == 0) day = fl;
    else if (exact) day = fl;
    else return 0;
    if (day < INT32_MIN || day > INT32_MAX) return 0;
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = tn_type_make(TN_TYPE_DATE);
    v.u.i = day;
    tn_expr *k = NULL, *out = NULL;
    int rc = tn_expr_constant(&k, &v);
    if (rc) return rc;
    tn_expr *cast = e->args[ci];
    tn_expr *col = cast->args[0];
    tn_expr *args[2] = {col, k};
    cast->args[0] = NULL;
    cast->nargs = 0;
    rc = tn_expr_function(&out, dop, args, 2);     /* takes col and k, also on failure */
    if (rc) {
        /* the column is gone with the failed call: the comparison can no longer be evaluated */
        return rc;
    }
    tn_expr_free(e);
    *slot = out;
    return 0;
}

int tn_opt_date_casts(tn_plan *p) {
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++)
        if (p->child[i]) rc = tn_opt_date_casts(p->child[i]);
    if (rc) return rc;
    if (p->kind == TN_PLAN_FILTER && p->u.filter.pred) rc = rewrite(&p->u.filter.pred);
    else if (p->kind == TN_PLAN_JOIN && p->u.join.cond) rc = rewrite(&p->u.join.cond);
    return rc;
}
