/*
 * sql/optimize_reduce.c: semi-join reduction of grouped join inputs, the effect of DuckDB's
 * delim join for decorrelated subqueries. A join `L JOIN AGG_g(R) ON L.k = g AND ...` (INNER,
 * or LEFT with the aggregate on the right: what the binder makes of a correlated scalar
 * subquery, bind_query.c) uses only the groups whose key occurs in L. When k comes from a
 * small, cheap part of L (a filtered scan, a semi join over scans), a copy of that part
 * filters R before it is aggregated: AGG_g(R' SEMI JOIN copy ON g = k), the semi join placed as
 * deep in R as the group columns go (above the scan that provides them). Any superset of L's
 * keys gives the same answer, so the copy may leave out L's other joins and filters. Runs after
 * join ordering, before join keys are extracted (conditions are still expressions).
 */
#include <string.h>

#include "sql/optimizeInt.h"

#define MAX_KEYS 8

/* Rows read by the scans of p (what evaluating a copy of p costs, roughly). */
static double scanned(const tn_plan *p) {
    if (!p) return 0;
    if (p->kind == TN_PLAN_SCAN)
        return p->u.scan.total_rows >= 0 ? (double)p->u.scan.total_rows : p->est_rows;
    return scanned(p->child[0]) + scanned(p->child[1]);
}

/* Whether p is a tree this file can copy: file scans, filters, projections and joins whose
 * conditions are still expressions. */
static bool copyable(const tn_plan *p) {
    switch (p->kind) {
    case TN_PLAN_SCAN:
        return p->u.scan.format == TN_SCAN_PARQUET || p->u.scan.format == TN_SCAN_DELTA;
    case TN_PLAN_FILTER:
    case TN_PLAN_PROJECT:
        return copyable(p->child[0]);
    case TN_PLAN_JOIN:
        return p->u.join.nkeys == 0 && !p->u.join.residual && copyable(p->child[0]) && copyable(p->child[1]);
    default:
        return false;
    }
}

static void *dup(tn_arena *arena, const void *src, size_t n) {
    void *d = tn_arena_alloc(arena, n ? n : 1);
    if (d && n) memcpy(d, src, n);
    return d;
}

/* A deep copy of p (copyable); its scans borrow the original's files. NULL when out of memory
 * (what was copied is freed). */
static tn_plan *copy_plan(tn_arena *arena, const tn_plan *p) {
    tn_plan *c = tn_plan_new(arena, p->kind, p->ncols);
    if (!c) return NULL;
    memcpy(c->types, p->types, p->ncols * sizeof *c->types);
    memcpy(c->names, p->names, p->ncols * sizeof *c->names);
    c->est_rows = p->est_rows;
    bool ok = true;
    for (int i = 0; i < 2 && ok; i++)
        if (p->child[i] && !(c->child[i] = copy_plan(arena, p->child[i]))) ok = false;
    if (ok) switch (p->kind) {
    case TN_PLAN_SCAN:
        c->u.scan = p->u.scan;
        c->u.scan.borrowed = true;
        c->u.scan.cols = dup(arena, p->u.scan.cols, p->u.scan.ncols * sizeof *p->u.scan.cols);
        if (!c->u.scan.cols) ok = false;
        if (ok && p->u.scan.npreds &&
            !(c->u.scan.preds = dup(arena, p->u.scan.preds, p->u.scan.npreds * sizeof *p->u.scan.preds))) ok = false;
        break;
    case TN_PLAN_FILTER:
        c->u.filter = p->u.filter;
        if (!(c->u.filter.pred = tn_expr_copy(p->u.filter.pred))) ok = false;
        if (ok && p->u.filter.out_cols &&
            !(c->u.filter.out_cols = dup(arena, p->u.filter.out_cols, p->u.filter.nout * sizeof(uint32_t)))) ok = false;
        break;
    case TN_PLAN_PROJECT:
        if (!(c->u.project.exprs = tn_arena_calloc(arena, (p->ncols + 1) * sizeof(tn_expr *)))) { ok = false; break; }
        for (uint32_t i = 0; i < p->ncols && ok; i++)
            if (!(c->u.project.exprs[i] = tn_expr_copy(p->u.project.exprs[i]))) ok = false;
        break;
    case TN_PLAN_JOIN:
        c->u.join = p->u.join;
        c->u.join.cond = NULL;
        if (p->u.join.cond && !(c->u.join.cond = tn_expr_copy(p->u.join.cond))) ok = false;
        break;
    default:
        ok = false;
        break;
    }
    if (!ok) {
        tn_plan_free(c);
        return NULL;
    }
    return c;
}

/* One step down from p with the columns cols[0..n) (rewritten to the child's): the child
 * whose values of those columns include p's, or NULL where p is the place to stop. `keep`
 * (the outer side) stops at a filtered scan and at a selective semi join, so the copy keeps
 * them; on the aggregate's side (!keep) only rows may be dropped, so outer joins are entered
 * on their preserved side only. */
static tn_plan *step(tn_plan *p, uint32_t *cols, uint32_t n, bool keep) {
    switch (p->kind) {
    case TN_PLAN_PROJECT:
        for (uint32_t i = 0; i < n; i++)
            if (p->u.project.exprs[cols[i]]->kind != TN_EXPR_COLUMN) return NULL;
        for (uint32_t i = 0; i < n; i++) cols[i] = p->u.project.exprs[cols[i]]->u.column;
        return p->child[0];
    case TN_PLAN_FILTER: {
        const tn_plan *c = p->child[0];
        if (c->kind == TN_PLAN_PROJECT) c = c->child[0];
        if (c->kind == TN_PLAN_SCAN) return NULL;      /* a filtered scan: the place */
        if (p->u.filter.out_cols)
            for (uint32_t i = 0; i < n; i++) cols[i] = p->u.filter.out_cols[cols[i]];
        return p->child[0];
    }
    case TN_PLAN_JOIN: {
        tn_join_kind k = p->u.join.kind;
        uint32_t nl = p->child[0]->ncols, left = 0;
        for (uint32_t i = 0; i < n; i++) left += cols[i] < nl;
        if (k == TN_JOIN_SEMI || k == TN_JOIN_ANTI) {
            if (keep && p->child[1]->est_rows <= p->child[0]->est_rows) return NULL;
            return p->child[0];
        }
        bool to_left = left == n, to_right = left == 0;
        if (k == TN_JOIN_INNER || (keep && k == TN_JOIN_LEFT)) {
            if (to_left) return p->child[0];
            if (!to_right) return NULL;
            for (uint32_t i = 0; i < n; i++) cols[i] -= nl;
            return p->child[1];
        }
        if (k == TN_JOIN_LEFT && to_left) return p->child[0];
        return NULL;
    }
    default:
        return NULL;
    }
}

/* The slot below *slot where the columns cols (of *slot) come from, as deep as step goes. */
static tn_plan **descend(tn_plan **slot, uint32_t *cols, uint32_t n, bool keep) {
    for (;;) {
        tn_plan *p = *slot, *c = step(p, cols, n, keep);
        if (!c) return slot;
        slot = p->child[0] == c ? &p->child[0] : &p->child[1];
    }
}

/* The column under e's casts, or NULL when e is not a (cast of a) column. */
static const tn_expr *key_column(const tn_expr *e) {
    while (e->kind == TN_EXPR_CAST) e = e->args[0];
    return e->kind == TN_EXPR_COLUMN ? e : NULL;
}

/* The aggregate below p's plain projections, with *col mapped to its output; NULL if none. */
static tn_plan *under_projects(tn_plan *p, uint32_t *col) {
    while (p->kind == TN_PLAN_PROJECT) {
        const tn_expr *x = p->u.project.exprs[*col];
        if (x->kind != TN_EXPR_COLUMN) return NULL;
        *col = x->u.column;
        p = p->child[0];
    }
    return p->kind == TN_PLAN_AGGREGATE ? p : NULL;
}

/* Point the one column reference of e (a cast chain over a column) at col. */
static void set_column(tn_expr *e, uint32_t col) {
    while (e->kind == TN_EXPR_CAST) e = e->args[0];
    e->u.column = col;
}

/* Reduce the aggregate on side `side` of join p (under plain projections) by a key source
 * taken from the other side. */
static int reduce(tn_arena *arena, tn_plan *p, int side) {
    tn_plan *other = p->child[1 - side], *agg = NULL;
    if (!p->u.join.cond) return 0;
    uint32_t nl = p->child[0]->ncols;
    uint32_t lo = side ? nl : 0, olo = side ? 0 : nl, nside = p->child[side]->ncols;
    /* conjuncts other-key = agg.group (either order); other-key is a column, maybe cast */
    const tn_expr *cond = p->u.join.cond;
    tn_expr *const *conj = (tn_expr *const *)&cond;
    uint32_t nconj = 1;
    if (cond->kind == TN_EXPR_AND) { conj = cond->args; nconj = cond->nargs; }
    uint32_t ocols[MAX_KEYS], gidx[MAX_KEYS], n = 0;
    const tn_expr *okeys[MAX_KEYS];
    for (uint32_t i = 0; i < nconj && n < MAX_KEYS; i++) {
        const tn_expr *e = conj[i];
        if (!tn_opt_is_eq(e)) continue;
        for (int a = 0; a < 2; a++) {
            const tn_expr *oc = key_column(e->args[a]), *g = e->args[1 - a];
            if (!oc || g->kind != TN_EXPR_COLUMN) continue;
            uint32_t x = oc->u.column, y = g->u.column;
            if (x < olo || x >= olo + other->ncols || y < lo || y >= lo + nside) continue;
            y -= lo;
            tn_plan *ag = under_projects(p->child[side], &y);
            if (!ag || (agg && ag != agg) || y >= ag->u.agg.ngroups) continue;
            agg = ag;
            ocols[n] = x - olo;
            okeys[n] = e->args[a];
            gidx[n] = y;
            n++;
            break;
        }
    }
    if (n == 0) return 0;
    /* the key source: as deep in the other side as the keys go */
    uint32_t scols[MAX_KEYS];
    memcpy(scols, ocols, n * sizeof *scols);
    tn_plan *src = *descend(&p->child[1 - side], scols, n, true);
    if (!copyable(src)) return 0;
    if (scanned(src) * 2 > scanned(agg->child[0]) || src->est_rows * 2 > agg->est_rows) return 0;
    /* where the semi join goes: as deep in the aggregate's input as the group columns go */
    tn_plan **at = &agg->child[0];
    uint32_t gcols[MAX_KEYS];
    bool plain = true;
    for (uint32_t i = 0; i < n; i++) {
        const tn_expr *g = agg->u.agg.groups[gidx[i]];
        if (g->kind != TN_EXPR_COLUMN) { plain = false; break; }
        gcols[i] = g->u.column;
    }
    if (plain) at = descend(at, gcols, n, false);
    tn_plan *target = *at;

    tn_plan *copy = copy_plan(arena, src);
    if (!copy) return TN_ENOMEM;
    tn_plan *proj = tn_plan_new(arena, TN_PLAN_PROJECT, n);
    tn_plan *semi = tn_plan_new(arena, TN_PLAN_JOIN, target->ncols);
    tn_expr **px = proj ? tn_arena_calloc(arena, (n + 1) * sizeof *px) : NULL;
    tn_expr *eqs[MAX_KEYS] = {0};
    int rc = (!proj || !semi || !px) ? TN_ENOMEM : 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        tn_type t = okeys[i]->type;
        proj->types[i] = t;
        proj->names[i] = src->names[scols[i]];
        if (!(px[i] = tn_expr_copy(okeys[i]))) { rc = TN_ENOMEM; break; }
        set_column(px[i], scols[i]);
        tn_expr *args[2] = {NULL, NULL};
        if (!rc) {
            args[0] = plain ? NULL : tn_expr_copy(agg->u.agg.groups[gidx[i]]);
            if (plain) rc = tn_expr_column(&args[0], gcols[i], target->types[gcols[i]]);
            else if (!args[0]) rc = TN_ENOMEM;
        }
        if (!rc) rc = tn_expr_column(&args[1], target->ncols + i, t);
        else break;
        if (!rc) rc = tn_expr_function(&eqs[i], "=", args, 2);
        else tn_expr_free(args[0]);
    }
    tn_expr *jc = NULL;
    if (!rc) {
        if (n == 1) { jc = eqs[0]; eqs[0] = NULL; }
        else { rc = tn_expr_and(&jc, eqs, n); memset(eqs, 0, sizeof eqs); }
    }
    if (rc) {
        for (uint32_t i = 0; i < n; i++) { tn_expr_free(eqs[i]); if (px) tn_expr_free(px[i]); }
        tn_plan_free(copy);
        return rc;
    }
    proj->u.project.exprs = px;
    proj->child[0] = copy;
    proj->est_rows = copy->est_rows;
    memcpy(semi->types, target->types, target->ncols * sizeof *semi->types);
    memcpy(semi->names, target->names, target->ncols * sizeof *semi->names);
    semi->u.join.kind = TN_JOIN_SEMI;
    semi->u.join.cond = jc;
    semi->child[0] = target;
    semi->child[1] = proj;
    semi->est_rows = target->est_rows;
    *at = semi;
    return 0;
}

int tn_opt_reduce_groups(tn_arena *arena, tn_plan *p) {
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++)
        if (p->child[i]) rc = tn_opt_reduce_groups(arena, p->child[i]);
    if (rc || p->kind != TN_PLAN_JOIN) return rc;
    if (p->u.join.kind == TN_JOIN_INNER || p->u.join.kind == TN_JOIN_LEFT) rc = reduce(arena, p, 1);
    if (!rc && p->u.join.kind == TN_JOIN_INNER) rc = reduce(arena, p, 0);
    return rc;
}
