/*
 * sql/optimize_cte.c: common table expressions referenced more than once are computed once
 * (DuckDB materializes such CTEs too). The binder turns each reference into a TN_PLAN_CTE leaf
 * sharing one tn_plan_cte; here, before a tree is optimized, a definition left with a single
 * reference and no rows is inlined into its leaf (so filters still reach its scans), and the
 * others are optimized on their own, once. exec.c computes a definition's rows when its first
 * leaf runs; the last release frees them.
 */
#include <string.h>

#include "sql/plan.h"

tn_plan *tn_plan_cte_leaf(tn_arena *arena, tn_plan_cte *def) {
    const tn_plan *q = def->plan;
    tn_plan *p = tn_plan_new(arena, TN_PLAN_CTE, q->ncols);
    if (!p) return NULL;
    memcpy(p->types, q->types, q->ncols * sizeof *p->types);
    memcpy(p->names, q->names, q->ncols * sizeof *p->names);
    p->est_rows = q->est_rows;
    p->u.cte.def = def;
    def->refs++;
    return p;
}

void tn_plan_cte_release(tn_plan_cte *def, bool leaf) {
    if (leaf && def->refs) def->refs--;
    if (!leaf) def->held = false;
    if (def->refs || def->held) return;
    tn_plan_free(def->plan);
    def->plan = NULL;
    if (def->result && def->result_free) def->result_free(def->result);
    def->result = NULL;
}

int tn_opt_ctes(tn_arena *arena, tn_plan *p) {
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++)
        if (p->child[i]) rc = tn_opt_ctes(arena, p->child[i]);
    if (rc || p->kind != TN_PLAN_CTE) return rc;
    tn_plan_cte *def = p->u.cte.def;
    if (!def->plan) return tn_error_set(TN_EINTERNAL, "CTE %s: reference to a released definition", def->name);
    if (def->refs == 1 && !def->result && !def->optimized) {
        /* the only reference: the leaf becomes the plan (keeping the names it was given) */
        tn_plan *q = def->plan;
        const char **names = p->names;
        def->plan = NULL;
        def->refs = 0;
        *p = *q;
        p->names = names;
        return tn_opt_ctes(arena, p);
    }
    if (!def->optimized) {
        def->optimized = true;
        rc = tn_optimize(&def->plan, def->arena);
        if (rc) return rc;
    }
    p->est_rows = def->result ? (double)def->result_rows : def->plan->est_rows;
    return 0;
}
