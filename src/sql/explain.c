/*
 * sql/explain.c: EXPLAIN text of a logical plan: one line per operator, indented by depth,
 * with its expressions; EXPLAIN ANALYZE adds the rows each operator produced and the time of
 * pipeline breakers and scans.
 */
#include <string.h>

#include "sql/aggregates.h"
#include "sql/plan.h"

static int exprs(tn_buf *o, tn_expr *const *e, uint32_t n) {
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (i) rc = tn_buf_printf(o, ", ");
        if (!rc) rc = tn_expr_to_text(o, e[i]);
    }
    return rc;
}

static const char *op_name(tn_parquet_op op) {
    static const char *n[] = {"=", "<>", "<", "<=", ">", ">=", "IS NULL", "IS NOT NULL"};
    return (unsigned)op < 8 ? n[op] : "?";
}

static int node_line(tn_buf *o, const tn_plan *p) {
    int rc = 0;
    switch (p->kind) {
    case TN_PLAN_SCAN: {
        const tn_plan_scan *s = &p->u.scan;
        rc = tn_buf_printf(o, "%s %s%s", s->format == TN_SCAN_PARQUET ? "PARQUET_SCAN" : s->format == TN_SCAN_CSV ? "READ_CSV" : s->format == TN_SCAN_DELTA ? "DELTA_SCAN" : "READ_JSON",
                           s->npaths ? s->paths[0] : "", s->npaths > 1 ? " ..." : "");
        if (!rc && s->npaths > 1) rc = tn_buf_printf(o, " (%u files)", s->npaths);
        if (!rc) rc = tn_buf_printf(o, " columns: [");
        for (uint32_t i = 0; i < s->ncols && !rc; i++)
            rc = tn_buf_printf(o, "%s%s", i ? ", " : "", s->src_names[s->cols[i]]);
        if (!rc) rc = tn_buf_printf(o, "]");
        if (!rc && s->npreds) {
            rc = tn_buf_printf(o, " pushed: [");
            for (uint32_t i = 0; i < s->npreds && !rc; i++) {
                const tn_parquet_predicate *pr = &s->preds[i];
                rc = tn_buf_printf(o, "%s%s %s", i ? ", " : "", s->src_names[pr->column], op_name(pr->op));
                if (!rc && pr->op != TN_PQ_IS_NULL && pr->op != TN_PQ_IS_NOT_NULL) {
                    rc = tn_buf_printf(o, " ");
                    if (!rc) rc = tn_value_to_text(o, &pr->constant);
                    if (rc == 1) rc = 0;
                }
            }
            if (!rc) rc = tn_buf_printf(o, "]");
        }
        if (!rc && (s->sample_percent > 0 || s->sample_rows))
            rc = tn_buf_printf(o, " sample: %g%%", s->sample_percent);
        break;
    }
    case TN_PLAN_VALUES:
        if (p->u.values.is_range) rc = tn_buf_printf(o, "RANGE %s", p->names[0]);
        else rc = tn_buf_printf(o, "VALUES %u rows", p->u.values.nrows);
        break;
    case TN_PLAN_FILTER:
        rc = tn_buf_printf(o, "FILTER ");
        if (!rc) rc = tn_expr_to_text(o, p->u.filter.pred);
        break;
    case TN_PLAN_PROJECT:
        rc = tn_buf_printf(o, "PROJECT ");
        if (!rc) rc = exprs(o, p->u.project.exprs, p->ncols);
        break;
    case TN_PLAN_AGGREGATE:
        rc = tn_buf_printf(o, "HASH_AGGREGATE groups: [");
        if (!rc) rc = exprs(o, p->u.agg.groups, p->u.agg.ngroups);
        if (!rc) rc = tn_buf_printf(o, "] aggregates: [");
        for (uint32_t i = 0; i < p->u.agg.naggs && !rc; i++) {
            const tn_plan_agg *a = &p->u.agg.aggs[i];
            rc = tn_buf_printf(o, "%s%s(%s", i ? ", " : "", a->kind == TN_AGG_CUSTOM ? a->func->name : tn_agg_kind_name(a->kind), a->distinct ? "DISTINCT " : "");
            if (!rc && a->arg) rc = tn_expr_to_text(o, a->arg);
            if (!rc) rc = tn_buf_printf(o, ")");
            if (!rc && a->filter) {
                rc = tn_buf_printf(o, " FILTER ");
                if (!rc) rc = tn_expr_to_text(o, a->filter);
            }
        }
        if (!rc) rc = tn_buf_printf(o, "]");
        break;
    case TN_PLAN_JOIN:
        rc = tn_buf_printf(o, "HASH_JOIN %s", tn_join_kind_name(p->u.join.kind));
        if (!rc && p->u.join.nkeys == 0 && !p->u.join.residual && !p->u.join.cond) rc = tn_buf_printf(o, " (cross product)");
        for (uint32_t i = 0; i < p->u.join.nkeys && !rc; i++) {
            rc = tn_buf_printf(o, "%s", i ? " AND " : " on ");
            if (!rc) rc = tn_expr_to_text(o, p->u.join.lkeys[i]);
            if (!rc) rc = tn_buf_printf(o, " = right.");
            if (!rc) rc = tn_expr_to_text(o, p->u.join.rkeys[i]);
        }
        if (!rc && p->u.join.residual) {
            rc = tn_buf_printf(o, " residual: ");
            if (!rc) rc = tn_expr_to_text(o, p->u.join.residual);
        }
        if (!rc && p->u.join.build_left) rc = tn_buf_printf(o, " (build: left)");
        break;
    case TN_PLAN_SORT:
        rc = tn_buf_printf(o, "%s", p->u.sort.limit >= 0 ? "TOP_N" : "ORDER_BY");
        for (uint32_t i = 0; i < p->u.sort.nkeys && !rc; i++)
            rc = tn_buf_printf(o, "%s#%u %s%s", i ? ", " : " ", p->u.sort.keys[i], p->u.sort.desc[i] ? "DESC" : "ASC",
                               p->u.sort.nulls_first[i] ? " NULLS FIRST" : "");
        if (!rc && p->u.sort.limit >= 0) rc = tn_buf_printf(o, " limit %lld", (long long)p->u.sort.limit);
        if (!rc && p->u.sort.offset > 0) rc = tn_buf_printf(o, " offset %lld", (long long)p->u.sort.offset);
        break;
    case TN_PLAN_LIMIT:
        rc = tn_buf_printf(o, "LIMIT %lld", (long long)p->u.limit.limit);
        if (!rc && p->u.limit.offset > 0) rc = tn_buf_printf(o, " OFFSET %lld", (long long)p->u.limit.offset);
        break;
    case TN_PLAN_SETOP: {
        static const char *n[] = {"UNION", "INTERSECT", "EXCEPT"};
        rc = tn_buf_printf(o, "%s%s", n[p->u.setop.op], p->u.setop.all ? " ALL" : "");
        break;
    }
    case TN_PLAN_CTE:
        rc = tn_buf_printf(o, "CTE_SCAN %s (computed once)", p->u.cte.def->name);
        break;
    case TN_PLAN_UNNEST:
        rc = tn_buf_printf(o, "UNNEST ");
        if (!rc) rc = exprs(o, p->u.unnest.exprs, p->u.unnest.n);
        break;
    case TN_PLAN_WINDOW:
        rc = tn_buf_printf(o, "WINDOW");
        for (uint32_t i = 0; i < p->u.window.nfuncs && !rc; i++) {
            const tn_plan_window_func *f = &p->u.window.funcs[i];
            rc = tn_buf_printf(o, "%s%s(", i ? ", " : " ", tn_win_kind_name(f->kind));
            if (!rc && f->arg) rc = tn_expr_to_text(o, f->arg);
            if (!rc) rc = tn_buf_printf(o, ") OVER (");
            if (!rc && f->npart) {
                rc = tn_buf_printf(o, "PARTITION BY ");
                if (!rc) rc = exprs(o, f->part, f->npart);
                if (!rc && f->norder) rc = tn_buf_printf(o, " ");
            }
            for (uint32_t k = 0; k < f->norder && !rc; k++) {
                rc = tn_buf_printf(o, "%s", k ? ", " : "ORDER BY ");
                if (!rc) rc = tn_expr_to_text(o, f->order[k]);
                if (!rc && f->desc[k]) rc = tn_buf_printf(o, " DESC");
            }
            if (!rc && f->rows) rc = tn_buf_printf(o, " ROWS");
            if (!rc) rc = tn_buf_printf(o, ")");
        }
        break;
    }
    return rc;
}

static int explain_rec(tn_buf *o, const tn_plan *p, int depth, bool analyze) {
    int rc = 0;
    for (int i = 0; i < depth && !rc; i++) rc = tn_buf_printf(o, "  ");
    if (!rc) rc = node_line(o, p);
    if (!rc && analyze) {
        rc = tn_buf_printf(o, "  (rows: %llu", (unsigned long long)p->rows_out);
        if (!rc && p->time_ns) rc = tn_buf_printf(o, ", time: %.3f ms", (double)p->time_ns / 1e6);
        if (!rc && p->spilled) rc = tn_buf_printf(o, ", spilled: %.1f MiB", (double)p->spilled / 1048576.0);
        if (!rc) rc = tn_buf_printf(o, ")");
    }
    if (!rc) rc = tn_buf_append_byte(o, '\n');
    for (int i = 0; i < 2 && !rc; i++)
        if (p->child[i]) rc = explain_rec(o, p->child[i], depth + 1, analyze);
    if (!rc && p->kind == TN_PLAN_CTE && p->u.cte.def->plan)
        rc = explain_rec(o, p->u.cte.def->plan, depth + 1, analyze);
    return rc;
}

int tn_plan_explain(tn_buf *out, const tn_plan *plan, bool analyze) {
    return explain_rec(out, plan, 0, analyze);
}
