/*
 * sql/plan.c: logical plan nodes: release of what a tree holds (expressions, opened files),
 * and the column-index walks over bound expressions that the binder and optimizer share.
 */
#include <string.h>

#include "sql/plan.h"

void tn_plan_set_expr(tn_expr **slot, tn_expr *e) {
    if (*slot != e) tn_expr_free(*slot);
    *slot = e;
}

void tn_plan_free(tn_plan *p) {
    if (!p) return;
    tn_plan_free(p->child[0]);
    tn_plan_free(p->child[1]);
    p->child[0] = p->child[1] = NULL;
    switch (p->kind) {
    case TN_PLAN_SCAN:
        tn_free(p->u.scan.join_in_values);
        p->u.scan.join_in_values = NULL;
        p->u.scan.has_join_in = false;
        if (p->u.scan.borrowed) break;
        if (p->u.scan.files) {
            for (uint32_t i = 0; i < p->u.scan.npaths; i++) tn_parquet_close(p->u.scan.files[i]);
            p->u.scan.files = NULL;
        }
        if (p->u.scan.source_free && p->u.scan.source) p->u.scan.source_free(p->u.scan.source);
        p->u.scan.source = NULL;
        break;
    case TN_PLAN_VALUES:
        if (p->u.values.exprs)
            for (uint32_t i = 0; i < p->u.values.nrows * p->ncols; i++) tn_expr_free(p->u.values.exprs[i]);
        p->u.values.exprs = NULL;
        break;
    case TN_PLAN_FILTER:
        tn_expr_free(p->u.filter.pred);
        p->u.filter.pred = NULL;
        break;
    case TN_PLAN_PROJECT:
        if (p->u.project.exprs)
            for (uint32_t i = 0; i < p->ncols; i++) tn_expr_free(p->u.project.exprs[i]);
        p->u.project.exprs = NULL;
        break;
    case TN_PLAN_AGGREGATE:
        if (p->u.agg.groups)
            for (uint32_t i = 0; i < p->u.agg.ngroups; i++) tn_expr_free(p->u.agg.groups[i]);
        if (p->u.agg.aggs)
            for (uint32_t i = 0; i < p->u.agg.naggs; i++) {
                tn_expr_free(p->u.agg.aggs[i].arg);
                tn_expr_free(p->u.agg.aggs[i].sep);
                tn_expr_free(p->u.agg.aggs[i].filter);
            }
        p->u.agg.groups = NULL;
        p->u.agg.aggs = NULL;
        break;
    case TN_PLAN_JOIN:
        tn_expr_free(p->u.join.cond);
        tn_expr_free(p->u.join.residual);
        for (uint32_t i = 0; i < p->u.join.nkeys; i++) {
            tn_expr_free(p->u.join.lkeys[i]);
            tn_expr_free(p->u.join.rkeys[i]);
        }
        p->u.join.cond = p->u.join.residual = NULL;
        p->u.join.nkeys = 0;
        break;
    case TN_PLAN_WINDOW:
        for (uint32_t i = 0; p->u.window.funcs && i < p->u.window.nfuncs; i++) {
            tn_plan_window_func *f = &p->u.window.funcs[i];
            tn_expr_free(f->arg);
            tn_expr_free(f->def);
            for (uint32_t k = 0; k < f->npart; k++) tn_expr_free(f->part[k]);
            for (uint32_t k = 0; k < f->norder; k++) tn_expr_free(f->order[k]);
            f->arg = f->def = NULL;
            f->npart = f->norder = 0;
        }
        p->u.window.nfuncs = 0;
        break;
    case TN_PLAN_UNNEST:
        for (uint32_t i = 0; p->u.unnest.exprs && i < p->u.unnest.n; i++) tn_expr_free(p->u.unnest.exprs[i]);
        p->u.unnest.n = 0;
        break;
    case TN_PLAN_CTE:
        if (p->u.cte.def) tn_plan_cte_release(p->u.cte.def, true);
        p->u.cte.def = NULL;
        break;
    default: break;
    }
}

uint32_t tn_window_func_exprs(tn_plan_window_func *f, tn_expr ***out) {
    uint32_t n = 0;
    if (f->arg) out[n++] = &f->arg;
    if (f->def) out[n++] = &f->def;
    for (uint32_t k = 0; k < f->npart; k++) out[n++] = &f->part[k];
    for (uint32_t k = 0; k < f->norder; k++) out[n++] = &f->order[k];
    return n;
}

const char *tn_win_kind_name(tn_win_kind k) {
    static const char *n[] = {"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
                              "lag", "lead", "first_value", "last_value", "nth_value", "count_star",
                              "count", "sum", "avg", "min", "max"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

void tn_expr_remap(tn_expr *e, const uint32_t *map) {
    if (!e) return;
    if (e->kind == TN_EXPR_COLUMN) {
        e->u.column = map[e->u.column];
        return;
    }
    for (uint32_t i = 0; i < e->nargs; i++) tn_expr_remap(e->args[i], map);
}

void tn_expr_shift(tn_expr *e, int64_t delta) {
    if (!e) return;
    if (e->kind == TN_EXPR_COLUMN) {
        e->u.column = (uint32_t)((int64_t)e->u.column + delta);
        return;
    }
    for (uint32_t i = 0; i < e->nargs; i++) tn_expr_shift(e->args[i], delta);
}

void tn_expr_columns(const tn_expr *e, bool *used, uint32_t nused) {
    if (!e) return;
    if (e->kind == TN_EXPR_COLUMN) {
        if (e->u.column < nused) used[e->u.column] = true;
        return;
    }
    for (uint32_t i = 0; i < e->nargs; i++) tn_expr_columns(e->args[i], used, nused);
}

bool tn_expr_columns_within(const tn_expr *e, uint32_t lo, uint32_t hi) {
    if (!e) return true;
    if (e->kind == TN_EXPR_COLUMN) return e->u.column >= lo && e->u.column < hi;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (!tn_expr_columns_within(e->args[i], lo, hi)) return false;
    return true;
}

const char *tn_agg_kind_name(tn_agg_kind k) {
    static const char *n[] = {"count_star", "count", "sum", "avg", "min", "max", "stddev_samp",
                              "stddev_pop", "var_samp", "var_pop", "bool_and", "bool_or",
                              "string_agg", "approx_count_distinct", "any_value", "custom"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

const char *tn_join_kind_name(tn_join_kind k) {
    static const char *n[] = {"INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

void tn_plan_scan_csv_options(const tn_plan_scan *s, tn_csv_options *o) {
    *o = (tn_csv_options)TN_CSV_OPTIONS_INIT;
    if (s->text_sample_size) o->sample_size = s->text_sample_size;
    o->delimiter = s->csv_delim;
    if (s->csv_quote) o->quote = s->csv_quote;
    o->escape = s->csv_escape;
    o->header = s->csv_header;
    o->null_string = s->csv_null;
    o->all_varchar = s->csv_all_varchar;
    o->skip_rows = s->csv_skip;
    o->replace_invalid_utf8 = s->text_replace_utf8;
}

void tn_plan_scan_ndjson_options(const tn_plan_scan *s, tn_ndjson_options *o) {
    *o = (tn_ndjson_options)TN_NDJSON_OPTIONS_INIT;
    if (s->text_sample_size) o->sample_size = s->text_sample_size;
    o->replace_invalid_utf8 = s->text_replace_utf8;
}
