/*
 * sql/optimize_cost.c: cardinality estimates for the optimizer. Row counts come from the scans
 * (Parquet footers, Delta add.stats numRecords); a column's distinct count is bounded by its
 * min/max range (integers and dates, from the Parquet row-group statistics) and the rows;
 * filters multiply by selectivities (ranges interpolated between min and max, equality
 * 1/distinct, defaults otherwise); equi-joins give |L| * |R| / max(distinct keys). Estimates
 * only steer plan choices (join order, build sides); they never change results.
 */
#include <math.h>
#include <string.h>

#include "sql/optimizeInt.h"

#define SEL_DEFAULT 0.3     /* a predicate we cannot read */
#define SEL_EQ_GUESS 0.05   /* `col = const` without a distinct count */
#define SEL_LIKE 0.1

bool tn_opt_is_eq(const tn_expr *e) {
    return e->kind == TN_EXPR_FUNCTION && e->nargs == 2 && e->u.func.call.def &&
           strcmp(e->u.func.call.def->name, "=") == 0;
}

/* The scan and source column an output column comes from unchanged, or NULL. */
static const tn_plan *origin(const tn_plan *p, uint32_t col, uint32_t *src) {
    for (;;) {
        if (col >= p->ncols) return NULL;
        switch (p->kind) {
        case TN_PLAN_SCAN:
            *src = p->u.scan.cols[col];
            return p;
        case TN_PLAN_VALUES:             /* range(): distinct values */
            *src = 0;
            return p->u.values.is_range ? p : NULL;
        case TN_PLAN_FILTER:
            if (p->u.filter.out_cols) col = p->u.filter.out_cols[col];
            p = p->child[0];
            break;
        case TN_PLAN_PROJECT: {
            const tn_expr *e = p->u.project.exprs[col];
            if (e->kind == TN_EXPR_CAST && e->args[0]->kind == TN_EXPR_COLUMN) e = e->args[0];
            if (e->kind != TN_EXPR_COLUMN) return NULL;
            col = e->u.column;
            p = p->child[0];
            break;
        }
        case TN_PLAN_JOIN:
            if (col >= p->child[0]->ncols) {
                col -= p->child[0]->ncols;
                p = p->child[1];
            } else p = p->child[0];
            break;
        case TN_PLAN_SORT:
        case TN_PLAN_LIMIT:
        case TN_PLAN_WINDOW:
            p = p->child[0];
            break;
        case TN_PLAN_UNNEST:
            if (col >= p->child[0]->ncols) return NULL;
            p = p->child[0];
            break;
        case TN_PLAN_AGGREGATE:
            if (col >= p->u.agg.ngroups || p->u.agg.groups[col]->kind != TN_EXPR_COLUMN) return NULL;
            col = p->u.agg.groups[col]->u.column;
            p = p->child[0];
            break;
        default: return NULL;
        }
    }
}

/* A numeric view of a statistics value (integers, dates, timestamps, decimals, floats). */
static bool value_num(const tn_value *v, double *out) {
    if (v->is_null) return false;
    switch (v->type.id) {
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT:
    case TN_TYPE_DATE: case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ:
        *out = (double)v->u.i;
        return true;
    case TN_TYPE_DECIMAL:
        if (v->type.precision > 18) return false;
        *out = (double)v->u.i / pow(10.0, v->type.scale);
        return true;
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE:
        *out = v->u.d;
        return isfinite(v->u.d);
    default: return false;
    }
}

/* min/max of a Parquet source column over every file and row group. */
static bool scan_range(const tn_plan *scan, uint32_t src, double *lo, double *hi) {
    const tn_plan_scan *s = &scan->u.scan;
    if (s->format != TN_SCAN_PARQUET || !s->files || src >= s->nsrc) return false;
    bool any = false;
    for (uint32_t f = 0; f < s->npaths; f++) {
        const tn_parquet_file *file = s->files[f];
        if (!file) return false;
        uint32_t nrg = tn_parquet_num_row_groups(file);
        for (uint32_t g = 0; g < nrg; g++) {
            tn_parquet_stats st;
            double a, b;
            if (tn_parquet_row_group_num_rows(file, g) == 0) continue;
            if (tn_parquet_column_stats(file, g, src, &st) || !st.has_min_max ||
                !value_num(&st.min, &a) || !value_num(&st.max, &b))
                return false;
            if (!any || a < *lo) *lo = a;
            if (!any || b > *hi) *hi = b;
            any = true;
        }
    }
    return any;
}

/* Distinct values of a Parquet source column from the row groups' distinct_count statistics
 * (DuckDB writes them): where every row group repeats its values (at most a tenth of its rows
 * distinct), the same few values are taken to recur, so the largest count; else their sum (at
 * most the rows). False when a row group has no count. */
static bool scan_distinct(const tn_plan *scan, uint32_t src, double *out) {
    const tn_plan_scan *s = &scan->u.scan;
    if (s->format != TN_SCAN_PARQUET || !s->files || src >= s->nsrc) return false;
    double most = 0, sum = 0, rows = 0;
    bool repeats = true, any = false;
    for (uint32_t f = 0; f < s->npaths; f++) {
        const tn_parquet_file *file = s->files[f];
        if (!file) return false;
        uint32_t nrg = tn_parquet_num_row_groups(file);
        for (uint32_t g = 0; g < nrg; g++) {
            tn_parquet_stats st;
            int64_t n = tn_parquet_row_group_num_rows(file, g);
            if (n == 0) continue;
            if (tn_parquet_column_stats(file, g, src, &st) || !st.has_distinct_count) return false;
            double d = (double)st.distinct_count;
            if (d > most) most = d;
            sum += d;
            rows += (double)n;
            if (d * 10 > (double)n) repeats = false;
            any = true;
        }
    }
    if (!any) return false;
    double nd = repeats ? most : sum < rows ? sum : rows;
    *out = nd < 1 ? 1 : nd;
    return true;
}

static bool discrete(tn_type t) {
    return tn_type_is_integer(t) || t.id == TN_TYPE_DATE || (t.id == TN_TYPE_DECIMAL && t.scale == 0);
}

/* Distinct values of p's column col: *domain at the origin (before filters), the result capped
   by p's rows. */
static double ndv_info(const tn_plan *p, uint32_t col, double *domain, bool *known) {
    double rows = p->est_rows > 1 ? p->est_rows : 1;
    double base = rows;
    *known = false;
    uint32_t src = 0;
    const tn_plan *o = origin(p, col, &src);
    if (o && o->kind == TN_PLAN_VALUES) {
        base = (double)o->u.values.range_count;
        *known = true;
    } else if (o) {
        double lo = 0, hi = 0;
        tn_type t = o->u.scan.src_types[src];
        base = o->est_rows > 1 ? o->est_rows : 1;
        if (t.id == TN_TYPE_BOOLEAN) {
            base = 2;
            *known = true;
        } else if (discrete(t) && scan_range(o, src, &lo, &hi)) {
            if (hi - lo + 1 < base) base = hi - lo + 1;
            *known = true;
        }
        double nd;
        if (t.id != TN_TYPE_BOOLEAN && scan_distinct(o, src, &nd)) {
            if (nd < base) base = nd;
            *known = true;
        }
    }
    if (base < 1) base = 1;
    *domain = base;
    return base < rows ? base : rows;
}

double tn_opt_ndv(const tn_plan *p, uint32_t col, bool *known) {
    double domain;
    bool k;
    double n = ndv_info(p, col, &domain, &k);
    if (known) *known = k;
    return n;
}

/* A join key's distinct values on its side (over that side's columns). */
static double key_info(const tn_plan *side, const tn_expr *k, double *domain, bool *known) {
    if (k->kind == TN_EXPR_CAST && k->args[0]->kind == TN_EXPR_COLUMN) k = k->args[0];
    if (k->kind == TN_EXPR_COLUMN) return ndv_info(side, k->u.column, domain, known);
    *known = false;
    *domain = side->est_rows > 1 ? side->est_rows : 1;
    return *domain;
}

double tn_opt_join_sel(const tn_plan *l, const tn_expr *lk, const tn_plan *r, const tn_expr *rk) {
    double dl, dr;
    bool kl, kr;
    double nl = key_info(l, lk, &dl, &kl), nr = key_info(r, rk, &dr, &kr);
    /* an unknown side takes its values from the other side's domain (a foreign key) */
    if (!kl && kr && dr < nl) nl = dr;
    if (!kr && kl && dl < nr) nr = dl;
    return 1 / (nl > nr ? nl : nr);
}

/* col (of p) compared with a constant: the fraction of rows passing, or -1 when unknown. */
static double range_sel(const tn_plan *p, const tn_expr *col, const char *op, const tn_expr *k) {
    uint32_t src = 0;
    const tn_plan *scan = origin(p, col->u.column, &src);
    double lo = 0, hi = 0, c = 0;
    if (!scan || !tn_type_equal(col->type, k->type) || !value_num(&k->u.value, &c) ||
        !scan_range(scan, src, &lo, &hi))
        return -1;
    if (hi <= lo) return -1;
    double width = hi - lo + (discrete(col->type) ? 1 : 0);
    double below = (c - lo) / width;              /* fraction < c */
    if (discrete(col->type) && op[1] == '=') below += op[0] == '<' ? 1 / width : -1 / width;
    double s = op[0] == '<' ? below : 1 - below;
    double floor = 1 / (p->est_rows > 1 ? p->est_rows : 1);
    return s < floor ? floor : s > 1 ? 1 : s;
}

static double eq_sel(const tn_plan *p, const tn_expr *col) {
    bool known = false;
    double ndv = tn_opt_ndv(p, col->u.column, &known);
    return known ? 1 / ndv : SEL_EQ_GUESS;
}

double tn_opt_selectivity(const tn_plan *p, const tn_expr *e) {
    double s = SEL_DEFAULT;
    switch (e->kind) {
    case TN_EXPR_CONSTANT:
        return e->type.id == TN_TYPE_BOOLEAN && !e->u.value.is_null && e->u.value.u.b ? 1 : 0;
    case TN_EXPR_AND:
        s = 1;
        for (uint32_t i = 0; i < e->nargs; i++) s *= tn_opt_selectivity(p, e->args[i]);
        return s;
    case TN_EXPR_OR: {
        double none = 1;
        for (uint32_t i = 0; i < e->nargs; i++) none *= 1 - tn_opt_selectivity(p, e->args[i]);
        return 1 - none;
    }
    case TN_EXPR_NOT: return 1 - tn_opt_selectivity(p, e->args[0]);
    case TN_EXPR_IS_NULL: return 0.05;
    case TN_EXPR_IS_NOT_NULL: return 0.95;
    case TN_EXPR_IN:
        if (e->args[0]->kind == TN_EXPR_COLUMN) s = e->u.in.nvalues * eq_sel(p, e->args[0]);
        return s > 1 ? 1 : s;
    case TN_EXPR_FUNCTION: break;
    default: return SEL_DEFAULT;
    }
    if (!e->u.func.call.def) return SEL_DEFAULT;
    const char *name = e->u.func.call.def->name;
    if (strcmp(name, "~~") == 0 || strcmp(name, "~~*") == 0) return SEL_LIKE;
    if (strcmp(name, "!~~") == 0 || strcmp(name, "!~~*") == 0) return 1 - SEL_LIKE;
    if (e->nargs != 2) return SEL_DEFAULT;
    const tn_expr *a = e->args[0], *b = e->args[1];
    bool flip = false;
    if (a->kind == TN_EXPR_CONSTANT && b->kind == TN_EXPR_COLUMN) {
        const tn_expr *t = a;
        a = b;
        b = t;
        flip = true;
    }
    if (a->kind != TN_EXPR_COLUMN) return SEL_DEFAULT;
    if (strcmp(name, "=") == 0) {
        if (b->kind == TN_EXPR_COLUMN) {
            double x = tn_opt_ndv(p, a->u.column, NULL), y = tn_opt_ndv(p, b->u.column, NULL);
            return 1 / (x > y ? x : y);
        }
        return b->kind == TN_EXPR_CONSTANT ? eq_sel(p, a) : SEL_DEFAULT;
    }
    if (strcmp(name, "<>") == 0) return b->kind == TN_EXPR_CONSTANT ? 1 - eq_sel(p, a) : 0.9;
    if (b->kind != TN_EXPR_CONSTANT || b->u.value.is_null) return SEL_DEFAULT;
    const char *op = NULL;
    static const char *const ops[][2] = {{"<", ">"}, {"<=", ">="}, {">", "<"}, {">=", "<="}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(name, ops[i][0]) == 0) op = ops[i][flip ? 1 : 0];
    if (!op) return SEL_DEFAULT;
    s = range_sel(p, a, op, b);
    return s < 0 ? SEL_DEFAULT : s;
}

/* The selectivity of the join's most selective equi-key into *sel. False: no key. */
static bool best_key(const tn_plan *p, const tn_expr *e, double *sel, bool *found) {
    uint32_t wl = p->child[0]->ncols, wr = p->child[1]->ncols;
    if (e->kind == TN_EXPR_AND) {
        for (uint32_t i = 0; i < e->nargs; i++) best_key(p, e->args[i], sel, found);
        return *found;
    }
    if (!tn_opt_is_eq(e)) return *found;
    const tn_expr *a = e->args[0], *b = e->args[1];
    if (tn_expr_is_constant(a) || tn_expr_is_constant(b)) return *found;
    if (!tn_expr_columns_within(a, 0, wl)) {
        const tn_expr *t = a;
        a = b;
        b = t;
    }
    if (!tn_expr_columns_within(a, 0, wl) || !tn_expr_columns_within(b, wl, wl + wr)) return *found;
    tn_expr *bs = tn_expr_copy(b);
    if (!bs) return *found;
    tn_expr_shift(bs, -(int64_t)wl);
    double s = tn_opt_join_sel(p->child[0], a, p->child[1], bs);
    tn_expr_free(bs);
    if (!*found || s < *sel) *sel = s;
    *found = true;
    return true;
}

static double join_rows(const tn_plan *p) {
    const tn_plan *l = p->child[0], *r = p->child[1];
    double L = l->est_rows > 1 ? l->est_rows : 1, R = r->est_rows > 1 ? r->est_rows : 1;
    double sel = 1;
    bool found = false;
    for (uint32_t k = 0; k < p->u.join.nkeys; k++) {
        double s = tn_opt_join_sel(l, p->u.join.lkeys[k], r, p->u.join.rkeys[k]);
        if (!found || s < sel) sel = s;
        found = true;
    }
    if (!found && p->u.join.cond) best_key(p, p->u.join.cond, &sel, &found);
    double inner = L * R * sel;
    if (!found && (p->u.join.cond || p->u.join.residual)) inner *= SEL_DEFAULT;
    /* semi: the share of left rows whose key has a partner (R's rows spread over the domain) */
    double frac = found ? R * sel : 0.5;
    if (frac > 1) frac = 1;
    switch (p->u.join.kind) {
    case TN_JOIN_INNER: return inner;
    case TN_JOIN_LEFT: return inner > L ? inner : L;
    case TN_JOIN_RIGHT: return inner > R ? inner : R;
    case TN_JOIN_FULL: return inner > L + R ? inner : L + R;
    case TN_JOIN_SEMI: return L * frac;
    case TN_JOIN_ANTI: return L * (frac > 0.9 ? 0.1 : 1 - frac);
    }
    return inner;
}

void tn_opt_estimate(tn_plan *p) {
    for (int i = 0; i < 2; i++)
        if (p->child[i]) tn_opt_estimate(p->child[i]);
    tn_plan *c = p->child[0];
    double in = c ? c->est_rows : 1;
    switch (p->kind) {
    case TN_PLAN_SCAN:
    case TN_PLAN_VALUES:
    case TN_PLAN_CTE:                            /* optimize_cte.c */
        break;                                   /* set by the binder */
    case TN_PLAN_FILTER:
        p->est_rows = in * tn_opt_selectivity(c, p->u.filter.pred);
        break;
    case TN_PLAN_PROJECT:
    case TN_PLAN_WINDOW:
        p->est_rows = in;
        break;
    case TN_PLAN_UNNEST:
        p->est_rows = in * 4;                    /* no list-length statistics */
        break;
    case TN_PLAN_SORT:
        p->est_rows = p->u.sort.limit >= 0 && (double)p->u.sort.limit < in ? (double)p->u.sort.limit : in;
        break;
    case TN_PLAN_LIMIT:
        p->est_rows = p->u.limit.limit >= 0 && (double)p->u.limit.limit < in ? (double)p->u.limit.limit : in;
        break;
    case TN_PLAN_AGGREGATE: {
        double g = 1;
        for (uint32_t k = 0; k < p->u.agg.ngroups && g < in; k++) {
            const tn_expr *e = p->u.agg.groups[k];
            g *= e->kind == TN_EXPR_COLUMN ? tn_opt_ndv(c, e->u.column, NULL) : in * 0.1 + 1;
        }
        p->est_rows = p->u.agg.ngroups == 0 ? 1 : g < in ? g : in;
        break;
    }
    case TN_PLAN_JOIN:
        p->est_rows = join_rows(p);
        break;
    case TN_PLAN_SETOP: {
        double r = p->child[1]->est_rows;
        p->est_rows = p->u.setop.op == TN_SETOP_UNION ? in + r : p->u.setop.op == TN_SETOP_INTERSECT && r < in ? r : in;
        break;
    }
    }
    if (p->est_rows < 1) p->est_rows = 1;
}
