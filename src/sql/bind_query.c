/*
 * sql/bind_query.c: binding of query blocks into logical plans: SELECT (FROM, WHERE with
 * EXISTS / IN subqueries decorrelated into semi/anti joins, GROUP BY [ALL] and aggregates,
 * HAVING, WINDOW (named windows), the select list with `*`, DISTINCT, ORDER BY [ALL] with
 * ordinals, aliases and hidden sort columns,
 * LIMIT / OFFSET), set operations with type unification, VALUES, and WITH (CTEs). Late columns:
 * correlated scalar subqueries (SELECT agg FROM .. WHERE inner = outer ..) become LEFT JOINs on a
 * grouped aggregate, window functions one WINDOW node after HAVING.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/aggregates.h"
#include "sql/bindInt.h"
#include "sql/settings.h"

int tn_bind_sel_push(tn_binder *b, sel_list *l, tn_expr *e, const char *name, const char *alias,
                     tn_sql_expr *ast) {
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        sel_item *ni = tn_arena_calloc(b->arena, cap * sizeof *ni);
        if (!ni) { tn_expr_free(e); return TN_ENOMEM; }
        if (l->n) memcpy(ni, l->items, l->n * sizeof *ni);
        l->items = ni;
        l->cap = cap;
    }
    sel_item *it = &l->items[l->n++];
    it->expr = e;
    it->name = name;
    it->alias = alias;
    it->ast = ast;
    it->text = tn_bind_expr_text(b, e);
    return it->text ? 0 : TN_ENOMEM;
}

/* A growable list of bound expressions (arena array; the expressions are owned). */
typedef struct elist_t {
    tn_expr **items;
    uint32_t n, cap;
} elist_t;

static int el_add(tn_binder *b, elist_t *l, tn_expr *e) {
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 8;
        tn_expr **ni = tn_arena_calloc(b->arena, (cap + 1) * sizeof *ni);
        if (!ni) { tn_expr_free(e); return TN_ENOMEM; }
        if (l->n) memcpy(ni, l->items, l->n * sizeof *ni);
        l->items = ni;
        l->cap = cap;
    }
    l->items[l->n++] = e;
    return 0;
}

void tn_bind_sel_free(sel_list *l) {
    for (uint32_t i = 0; i < l->n; i++) tn_expr_free(l->items[i].expr);
    l->n = 0;
}

static tn_plan *one_row(tn_binder *b) {
    tn_plan *p = tn_plan_new(b->arena, TN_PLAN_VALUES, 0);
    if (!p) return NULL;
    p->u.values.nrows = 1;
    p->u.values.exprs = NULL;
    p->est_rows = 1;
    return p;
}

static int add_filter(tn_binder *b, tn_plan **plan, tn_expr *pred) {
    tn_plan *child = *plan;
    tn_plan *f = tn_plan_new(b->arena, TN_PLAN_FILTER, child->ncols);
    if (!f) { tn_expr_free(pred); return TN_ENOMEM; }
    memcpy(f->types, child->types, child->ncols * sizeof *f->types);
    memcpy(f->names, child->names, child->ncols * sizeof *f->names);
    f->u.filter.pred = pred;
    f->child[0] = child;
    f->est_rows = child->est_rows * 0.3;
    *plan = f;
    return 0;
}

/* A bare column reference is named by the column's declared name, not the reference's spelling
 * (DuckDB: SELECT bc FROM t(Bc) prints Bc); NULL when it does not name a column of s. */
static const char *declared_name(const bind_scope *s, const tn_sql_expr *e) {
    if (e->kind != TN_SQL_E_COLUMN) return NULL;
    const tn_sql_qname *q = &e->u.column;
    const char *col = q->parts[q->n - 1].name, *tab = q->n >= 2 ? q->parts[q->n - 2].name : NULL;
    for (uint32_t r = 0; r < s->nrels; r++) {
        const bind_rel *rel = &s->rels[r];
        if (tab && (!rel->alias || !tn_str_iequal(rel->alias, tab))) continue;
        for (uint32_t i = 0; i < rel->ncols; i++)
            if (tn_str_iequal(rel->names[i], col)) return rel->names[i];
    }
    return NULL;
}

static char *ast_name(tn_binder *b, tn_sql_expr *e) {
    tn_buf buf = TN_BUF_INIT;
    if (tn_bind_expr_name(&buf, e) || tn_buf_append_byte(&buf, 0)) {
        tn_buf_free(&buf);
        return NULL;
    }
    char *s = tn_arena_strdup(b->arena, (const char *)buf.data);
    tn_buf_free(&buf);
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * Subqueries.
 */
int tn_bind_run_subquery(tn_binder *b, tn_sql_query *q, bind_scope *outer, tn_collection *out,
                         uint32_t *ncols) {
    tn_plan *p = NULL;
    int rc = tn_bind_query(b, q, outer, &p);
    if (rc) return rc;
    rc = tn_optimize(&p, b->arena);
    if (!rc) rc = tn_exec_run(b->ex, p, out);
    if (!rc) *ncols = p->ncols;
    tn_plan_free(p);
    return rc;
}

/* Split an AST predicate on AND. */
static int split_and(tn_binder *b, tn_sql_expr *e, tn_sql_expr ***items, int *n, int *cap) {
    if (e->kind == TN_SQL_E_BINARY && e->u.binary.op == TN_SQL_OP_AND) {
        int rc = split_and(b, e->u.binary.left, items, n, cap);
        return rc ? rc : split_and(b, e->u.binary.right, items, n, cap);
    }
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 8;
        tn_sql_expr **ni = tn_arena_alloc(b->arena, (size_t)nc * sizeof *ni);
        if (!ni) return TN_ENOMEM;
        if (*n) memcpy(ni, *items, (size_t)*n * sizeof *ni);
        *items = ni;
        *cap = nc;
    }
    (*items)[(*n)++] = e;
    return 0;
}

static bool simple_select(const tn_sql_query *q) {
    if (q->kind != TN_SQL_Q_SELECT || q->limit || q->offset || q->n_ctes) return false;
    const tn_sql_select *s = &q->u.select;
    if (s->group_by.n || s->having || s->distinct || !s->from) return false;
    for (int i = 0; i < s->n_items; i++)
        if (tn_bind_contains_agg(s->items[i].expr) || tn_bind_contains_window(s->items[i].expr)) return false;
    return true;
}

/*
 * Try to turn a WHERE conjunct [NOT] EXISTS (q) / x [NOT] IN (q) whose q refers to the outer
 * query in its WHERE into a semi / anti join of *plan with q's FROM. Returns 0 with *done set
 * when it did; 0 with *done false when the conjunct is not of that form or not correlated.
 */
static int try_decorrelate(tn_binder *b, tn_sql_expr *conj, bind_scope *S, tn_plan **plan,
                           bool *done) {
    *done = false;
    bool negated = false;
    tn_sql_expr *e = conj;
    if (e->kind == TN_SQL_E_UNARY && e->u.unary.op == TN_SQL_OP_NOT && e->u.unary.arg->kind == TN_SQL_E_EXISTS) {
        negated = true;
        e = e->u.unary.arg;
    }
    tn_sql_query *q;
    if (e->kind == TN_SQL_E_EXISTS) q = e->u.subquery.query;
    else if (e->kind == TN_SQL_E_IN_QUERY && !e->u.in_query.quantified) {
        q = e->u.in_query.query;
        negated = e->u.in_query.negated;
    } else return 0;
    if (!simple_select(q)) return 0;
    const tn_sql_select *s = &q->u.select;
    if (e->kind == TN_SQL_E_IN_QUERY && (s->n_items != 1 || s->items[0].expr->kind == TN_SQL_E_STAR)) return 0;
    if (!s->where) return 0;

    int rc = 0;
    bind_scope IS = {0};
    tn_plan *inner = NULL, *j = NULL;
    tn_expr *cond = NULL;
    sel_list corr = {0}, filt = {0};
    rc = tn_bind_tableref(b, s->from, &IS, S, &inner);
    if (rc) return rc;
    IS.parent = S;
    tn_sql_expr **conjs = NULL;
    int nc = 0, cap = 0;
    rc = split_and(b, s->where, &conjs, &nc, &cap);
    if (rc) goto cleanup;
    tn_sql_pos saved_pos = tn_sql_error_pos();
    for (int i = 0; i < nc; i++) {
        IS.correlated = false;
        IS.allow_outer = true;
        tn_expr *x = NULL;
        bind_ctx c = {b, &IS, NULL, false, "WHERE", NULL, NULL};
        rc = tn_bind_pred(&c, conjs[i], &x);
        IS.allow_outer = false;
        if (rc && rc != TN_ENOMEM) {
            /* A conjunct this join form cannot take (say, a scalar subquery correlated with q
               itself, TPC-H Q20): q is bound as a whole query instead, which decorrelates what
               it can and reports what it cannot. */
            tn_error_clear();
            tn_bind_set_pos(saved_pos);
            rc = 0;
            goto cleanup;
        }
        if (rc) goto cleanup;
        rc = tn_bind_sel_push(b, IS.correlated ? &corr : &filt, x, "", NULL, conjs[i]);
        if (rc) goto cleanup;
    }
    if (corr.n == 0) goto cleanup;   /* not correlated: bound as a value instead */
    uint32_t no = (*plan)->ncols, ni = IS.ncols;   /* the plan may hold late columns past S */
    /* inner filter */
    if (filt.n) {
        tn_expr *f = NULL;
        tn_expr **fx = tn_arena_alloc(b->arena, filt.n * sizeof *fx);
        if (!fx) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < filt.n; i++) { fx[i] = filt.items[i].expr; filt.items[i].expr = NULL; }
        if (filt.n == 1) f = fx[0];
        else if ((rc = tn_expr_and(&f, fx, filt.n))) goto cleanup;
        rc = tn_bind_fold(b, &f);   /* constants folded as in WHERE: date + interval bounds */
        if (rc) { tn_expr_free(f); goto cleanup; }
        rc = add_filter(b, &inner, f);
        if (rc) goto cleanup;
    }
    /* join condition over outer ++ inner */
    uint32_t *map = tn_arena_alloc(b->arena, (ni + no + 1) * sizeof *map);
    tn_expr **cx = tn_arena_calloc(b->arena, (corr.n + 2) * sizeof *cx);
    if (!map || !cx) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < ni; i++) map[i] = no + i;
    for (uint32_t o = 0; o < no; o++) map[ni + o] = o;
    uint32_t ncx = 0;
    for (uint32_t i = 0; i < corr.n; i++) {
        tn_expr_remap(corr.items[i].expr, map);
        cx[ncx++] = corr.items[i].expr;
        corr.items[i].expr = NULL;
    }
    if (e->kind == TN_SQL_E_IN_QUERY) {
        tn_expr *x = NULL, *y = NULL, *eq = NULL;
        bind_ctx oc = {b, S, NULL, false, "WHERE", NULL, NULL};
        bind_ctx icx = {b, &IS, NULL, false, "SELECT", NULL, NULL};
        rc = tn_bind_expr(&oc, e->u.in_query.arg, &x);
        if (!rc) rc = tn_bind_expr(&icx, s->items[0].expr, &y);
        if (rc) { tn_expr_free(x); for (uint32_t i = 0; i < ncx; i++) tn_expr_free(cx[i]); goto cleanup; }
        tn_expr_shift(y, (int64_t)no);
        tn_expr *xc = tn_expr_copy(x), *yc = tn_expr_copy(y);
        tn_expr *args[2] = {x, y};
        rc = tn_expr_function(&eq, "=", args, 2);
        if (rc) {
            tn_expr_free(xc); tn_expr_free(yc);
            for (uint32_t i = 0; i < ncx; i++) tn_expr_free(cx[i]);
            rc = tn_bind_error_at(b, rc, e->pos);
            goto cleanup;
        }
        if (negated) {
            /* NOT IN: no row where x = y or where either side is NULL */
            tn_expr *xn = NULL, *yn = NULL, *any = NULL;
            if (!xc || !yc) { rc = TN_ENOMEM; tn_expr_free(eq); goto cleanup; }
            rc = tn_expr_is_null(&xn, xc, false);
            if (!rc) rc = tn_expr_is_null(&yn, yc, false);
            else tn_expr_free(yc);
            if (rc) { tn_expr_free(eq); goto cleanup; }
            tn_expr *ors[3] = {eq, xn, yn};
            rc = tn_expr_or(&any, ors, 3);
            if (rc) goto cleanup;
            cx[ncx++] = any;
        } else {
            tn_expr_free(xc);
            tn_expr_free(yc);
            cx[ncx++] = eq;
        }
    }
    if (ncx == 1) cond = cx[0];
    else if ((rc = tn_expr_and(&cond, cx, ncx))) goto cleanup;
    j = tn_plan_new(b->arena, TN_PLAN_JOIN, (*plan)->ncols);
    if (!j) { rc = TN_ENOMEM; tn_expr_free(cond); goto cleanup; }
    memcpy(j->types, (*plan)->types, (*plan)->ncols * sizeof *j->types);
    memcpy(j->names, (*plan)->names, (*plan)->ncols * sizeof *j->names);
    j->u.join.kind = negated ? TN_JOIN_ANTI : TN_JOIN_SEMI;
    j->u.join.cond = cond;
    j->child[0] = *plan;
    j->child[1] = inner;
    j->est_rows = (*plan)->est_rows * 0.5;
    inner = NULL;
    *plan = j;
    *done = true;
cleanup:
    tn_bind_sel_free(&corr);
    tn_bind_sel_free(&filt);
    tn_plan_free(inner);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Late columns: decorrelated scalar subqueries and window functions.
 */
static int late_marks(tn_binder *b, late_info *L) {
    if (L->mark_col || L->nmarks == 0) return 0;
    L->mark_col = tn_arena_calloc(b->arena, (L->nmarks + 1) * sizeof *L->mark_col);
    return L->mark_col ? 0 : TN_ENOMEM;
}

int tn_bind_late_joins(tn_binder *b, late_info *L, tn_plan **plan) {
    int rc = late_marks(b, L);
    for (uint32_t j = 0; j < L->njoins && !rc; j++) {
        late_join *J = &L->joins[j];
        tn_plan *left = *plan, *inner = J->inner;
        uint32_t base = left->ncols;
        tn_expr **eqs = tn_arena_calloc(b->arena, (J->nkeys + 1) * sizeof *eqs);
        if (!eqs) return TN_ENOMEM;
        for (uint32_t i = 0; i < J->nkeys && !rc; i++) {
            tn_expr *args[2] = {J->outer_keys[i], NULL};
            J->outer_keys[i] = NULL;
            rc = tn_expr_column(&args[1], base + i, inner->types[i]);
            if (rc) { tn_expr_free(args[0]); break; }
            rc = tn_expr_function(&eqs[i], "=", args, 2);
        }
        tn_expr *cond = NULL;
        if (!rc) {
            if (J->nkeys == 1) cond = eqs[0];
            else rc = tn_expr_and(&cond, eqs, J->nkeys);
        } else {
            for (uint32_t i = 0; i < J->nkeys; i++) tn_expr_free(eqs[i]);
        }
        if (rc) break;
        tn_plan *jn = tn_plan_new(b->arena, TN_PLAN_JOIN, base + inner->ncols);
        if (!jn) { tn_expr_free(cond); return TN_ENOMEM; }
        memcpy(jn->types, left->types, base * sizeof *jn->types);
        memcpy(jn->names, left->names, base * sizeof *jn->names);
        memcpy(jn->types + base, inner->types, inner->ncols * sizeof *jn->types);
        memcpy(jn->names + base, inner->names, inner->ncols * sizeof *jn->names);
        jn->u.join.kind = TN_JOIN_LEFT;
        jn->u.join.cond = cond;
        jn->child[0] = left;
        jn->child[1] = inner;
        jn->est_rows = left->est_rows;
        J->inner = NULL;
        for (uint32_t i = 0; i < inner->ncols; i++) L->mark_col[J->mark0 + i] = base + i;
        *plan = jn;
    }
    return rc;
}

int tn_bind_late_windows(tn_binder *b, late_info *L, tn_plan **plan) {
    if (L->nwins == 0) return 0;
    int rc = late_marks(b, L);
    if (rc) return rc;
    tn_plan *child = *plan;
    uint32_t base = child->ncols, nf = L->nwins;
    tn_plan *w = tn_plan_new(b->arena, TN_PLAN_WINDOW, base + nf);
    tn_plan_window_func *funcs = tn_arena_calloc(b->arena, (nf + 1) * sizeof *funcs);
    if (!w || !funcs) return TN_ENOMEM;
    memcpy(w->types, child->types, base * sizeof *w->types);
    memcpy(w->names, child->names, base * sizeof *w->names);
    for (uint32_t f = 0; f < nf; f++) {
        funcs[f] = L->wins[f];
        tn_expr **slots[4 + 64];
        tn_expr ***sl = slots;
        uint32_t need = 2 + funcs[f].npart + funcs[f].norder;
        if (need > 4 + 64 && !(sl = tn_arena_alloc(b->arena, need * sizeof *sl))) return TN_ENOMEM;
        uint32_t ne = tn_window_func_exprs(&funcs[f], sl);
        for (uint32_t k = 0; k < ne; k++) tn_bind_late_resolve(L, *sl[k]);
        w->types[base + f] = funcs[f].type;
        w->names[base + f] = "#window";
        L->mark_col[L->win_mark[f]] = base + f;
    }
    L->nwins = 0;               /* the node owns the expressions now */
    w->u.window.funcs = funcs;
    w->u.window.nfuncs = nf;
    w->child[0] = child;
    w->est_rows = child->est_rows;
    *plan = w;
    return 0;
}

void tn_bind_late_resolve(const late_info *L, tn_expr *e) {
    if (!e) return;
    if (e->kind == TN_EXPR_COLUMN) {
        if (e->u.column >= TN_BIND_LATE_MARK && L->mark_col && e->u.column - TN_BIND_LATE_MARK < L->nmarks)
            e->u.column = L->mark_col[e->u.column - TN_BIND_LATE_MARK];
        return;
    }
    for (uint32_t i = 0; i < e->nargs; i++) tn_bind_late_resolve(L, e->args[i]);
}

void tn_bind_late_free(late_info *L) {
    for (uint32_t j = 0; j < L->njoins; j++) {
        tn_plan_free(L->joins[j].inner);
        L->joins[j].inner = NULL;
        for (uint32_t i = 0; i < L->joins[j].nkeys; i++) {
            tn_expr_free(L->joins[j].outer_keys[i]);
            L->joins[j].outer_keys[i] = NULL;
        }
    }
    L->njoins = 0;
    for (uint32_t f = 0; f < L->nwins; f++) {
        tn_plan_window_func *fn = &L->wins[f];
        tn_expr_free(fn->arg);
        tn_expr_free(fn->def);
        for (uint32_t k = 0; k < fn->npart; k++) tn_expr_free(fn->part[k]);
        for (uint32_t k = 0; k < fn->norder; k++) tn_expr_free(fn->order[k]);
    }
    L->nwins = 0;
    tn_bind_late_unnests_free(L);
}

/* Whether e binds in scope IS alone (no outer references); the trial's error is cleared. */
static int bind_inner_only(tn_binder *b, bind_scope *IS, tn_sql_expr *e, bool pred, tn_expr **out) {
    bind_scope *parent = IS->parent;
    IS->parent = NULL;
    bind_ctx ic = {b, IS, NULL, false, "WHERE", NULL, NULL};
    tn_sql_pos saved = tn_sql_error_pos();
    int rc = pred ? tn_bind_pred(&ic, e, out) : tn_bind_expr(&ic, e, out);
    IS->parent = parent;
    if (rc && rc != TN_ENOMEM) {
        tn_error_clear();
        tn_bind_set_pos(saved);
        *out = NULL;
        return 1;
    }
    return rc;
}

/* Wrap count aggregates' columns (no match in a LEFT JOIN gives NULL) in COALESCE(x, 0) and
 * move every column of the inner aggregate to its marker. */
static int mark_inner(tn_expr **slot, const tn_plan *agg, uint32_t mark0) {
    tn_expr *e = *slot;
    if (e->kind == TN_EXPR_COLUMN) {
        uint32_t col = e->u.column;
        e->u.column = TN_BIND_LATE_MARK + mark0 + col;
        uint32_t ng = agg->u.agg.ngroups;
        if (col >= ng) {
            tn_agg_kind k = agg->u.agg.aggs[col - ng].kind;
            if (k == TN_AGG_COUNT || k == TN_AGG_COUNT_STAR || k == TN_AGG_APPROX_COUNT_DISTINCT ||
                (k == TN_AGG_CUSTOM && agg->u.agg.aggs[col - ng].func->zero_on_empty)) {
                tn_value zero;
                memset(&zero, 0, sizeof zero);
                zero.type = e->type;
                tn_expr *args[2] = {e, NULL};
                int rc = tn_expr_constant(&args[1], &zero);
                if (rc) return rc;
                *slot = NULL;
                rc = tn_expr_coalesce(slot, args, 2);
                return rc;
            }
        }
        return 0;
    }
    for (uint32_t i = 0; i < e->nargs; i++) {
        int rc = mark_inner(&e->args[i], agg, mark0);
        if (rc) return rc;
    }
    return 0;
}
/* An AGGREGATE node over child computing A's groups then aggregates; A's lists move into the
 * node (A is left empty, so its cleanup frees nothing the node owns). NULL when out of memory. */
static tn_plan *agg_plan_new(tn_binder *b, agg_info *A, tn_plan *child) {
    tn_plan *ag = tn_plan_new(b->arena, TN_PLAN_AGGREGATE, A->ngroups + A->naggs);
    if (!ag) return NULL;
    for (uint32_t g = 0; g < A->ngroups; g++) {
        ag->types[g] = A->groups[g]->type;
        ag->names[g] = "#group";
    }
    for (uint32_t k = 0; k < A->naggs; k++) {
        ag->types[A->ngroups + k] = A->aggs[k].type;
        ag->names[A->ngroups + k] = "#agg";
    }
    ag->u.agg.ngroups = A->ngroups;
    ag->u.agg.groups = A->groups;
    ag->u.agg.naggs = A->naggs;
    ag->u.agg.aggs = A->aggs;
    A->ngroups = A->naggs = 0;
    ag->child[0] = child;
    ag->est_rows = ag->u.agg.ngroups ? child->est_rows * 0.1 + 1 : 1;
    return ag;
}


int tn_bind_scalar_decorrelate(bind_ctx *c, tn_sql_query *q, tn_expr **out, bool *done) {
    tn_binder *b = c->b;
    late_info *L = c->late;
    *done = false;
    if (!L || q->kind != TN_SQL_Q_SELECT || q->limit || q->offset || q->n_ctes || q->order_by.n || q->order_all) return 0;
    tn_sql_select *s = &q->u.select;
    if (!s->from || !s->where || s->group_by.n || s->group_all || s->having || s->distinct || s->n_items != 1) return 0;
    tn_sql_expr *item = s->items[0].expr;
    if (item->kind == TN_SQL_E_STAR || !tn_bind_contains_agg(item) || tn_bind_contains_window(item)) return 0;

    int rc = 0;
    bind_scope IS = {0};
    tn_plan *inner = NULL;
    tn_expr *val = NULL;
    elist_t filt = {0}, ikeys = {0}, okeys = {0};
    agg_info A;
    memset(&A, 0, sizeof A);
    rc = tn_bind_tableref(b, s->from, &IS, c->scope, &inner);
    if (rc) return rc;
    tn_sql_expr **conjs = NULL;
    int nc = 0, cap = 0;
    rc = split_and(b, s->where, &conjs, &nc, &cap);
    for (int i = 0; i < nc && !rc; i++) {
        tn_expr *x = NULL;
        rc = bind_inner_only(b, &IS, conjs[i], true, &x);
        if (rc == 0) { rc = el_add(b, &filt, x); continue; }
        if (rc != 1) break;
        rc = 0;
        /* inner = outer */
        tn_sql_expr *ce = conjs[i];
        if (ce->kind != TN_SQL_E_BINARY || ce->u.binary.op != TN_SQL_OP_EQ) goto not_ours;
        tn_sql_expr *sides[2] = {ce->u.binary.left, ce->u.binary.right};
        tn_expr *ik = NULL, *ok = NULL;
        int which = -1;
        for (int k = 0; k < 2 && which < 0; k++) {
            rc = bind_inner_only(b, &IS, sides[k], false, &ik);
            if (rc > 1 || rc < 0) goto cleanup;
            if (rc == 1) { rc = 0; continue; }
            tn_expr *probe = NULL;
            rc = bind_inner_only(b, &IS, sides[1 - k], false, &probe);
            if (rc == 0) { tn_expr_free(probe); tn_expr_free(ik); ik = NULL; continue; }
            if (rc != 1) { tn_expr_free(ik); goto cleanup; }
            rc = 0;
            bind_ctx oc = *c;
            oc.late = NULL;
            rc = tn_bind_expr(&oc, sides[1 - k], &ok);
            if (rc) { tn_expr_free(ik); goto cleanup; }
            which = k;
        }
        if (which < 0) goto not_ours;
        rc = el_add(b, &ikeys, ik);
        if (!rc) rc = el_add(b, &okeys, ok);
        else tn_expr_free(ok);
    }
    if (rc) goto cleanup;
    if (ikeys.n == 0) goto not_ours;   /* not correlated (or not in a form we take) */
    /* inner filter */
    if (filt.n) {
        tn_expr *f = NULL;
        if (filt.n == 1) f = filt.items[0];
        else if ((rc = tn_expr_and(&f, filt.items, filt.n))) { filt.n = 0; goto cleanup; }
        filt.n = 0;
        rc = tn_bind_fold(b, &f);   /* constants folded as in WHERE: date + interval bounds */
        if (rc) { tn_expr_free(f); goto cleanup; }
        rc = add_filter(b, &inner, f);
        if (rc) goto cleanup;
    }
    /* grouped aggregate: the inner keys, then the select item's aggregates */
    A.pre = &IS;
    A.ngroups = ikeys.n;
    A.groups = ikeys.items;
    A.group_text = tn_arena_calloc(b->arena, (ikeys.n + 1) * sizeof *A.group_text);
    if (!A.group_text) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < ikeys.n; i++)
        if (!(A.group_text[i] = tn_bind_expr_text(b, ikeys.items[i]))) { rc = TN_ENOMEM; goto cleanup; }
    ikeys.n = 0;
    {
        IS.parent = NULL;
        bind_ctx ac = {b, &IS, &A, false, "SELECT", NULL, NULL};
        rc = tn_bind_expr(&ac, item, &val);
        if (!rc) rc = tn_bind_fold(b, &val);
        if (rc) goto cleanup;
    }
    tn_plan *ag = agg_plan_new(b, &A, inner);
    if (!ag) { rc = TN_ENOMEM; goto cleanup; }
    inner = ag;
    /* the late join */
    if (L->njoins == L->jcap) {
        uint32_t ncap = L->jcap ? L->jcap * 2 : 4;
        late_join *nj = tn_arena_calloc(b->arena, ncap * sizeof *nj);
        if (!nj) { rc = TN_ENOMEM; goto cleanup; }
        if (L->njoins) memcpy(nj, L->joins, L->njoins * sizeof *nj);
        L->joins = nj;
        L->jcap = ncap;
    }
    late_join *J = &L->joins[L->njoins];
    J->mark0 = L->nmarks;
    rc = mark_inner(&val, inner, J->mark0);
    if (rc) goto cleanup;
    J->inner = inner;
    J->nkeys = okeys.n;
    J->outer_keys = okeys.items;
    okeys.n = 0;
    inner = NULL;
    L->nmarks += J->inner->ncols;
    L->njoins++;
    *out = val;
    val = NULL;
    *done = true;
    goto cleanup;
not_ours:
    rc = 0;
cleanup:
    for (uint32_t i = 0; i < filt.n; i++) tn_expr_free(filt.items[i]);
    for (uint32_t i = 0; i < ikeys.n; i++) tn_expr_free(ikeys.items[i]);
    for (uint32_t i = 0; i < okeys.n; i++) tn_expr_free(okeys.items[i]);
    for (uint32_t g = 0; g < A.ngroups; g++) tn_expr_free(A.groups[g]);
    for (uint32_t k = 0; k < A.naggs; k++) {
        tn_expr_free(A.aggs[k].arg);
        tn_expr_free(A.aggs[k].sep);
        tn_expr_free(A.aggs[k].filter);
    }
    tn_expr_free(val);
    tn_plan_free(inner);
    return rc;
}

static int bind_where(tn_binder *b, tn_sql_expr *where, bind_scope *S, tn_plan **plan) {
    tn_sql_expr **conjs = NULL;
    int nc = 0, cap = 0;
    int rc = split_and(b, where, &conjs, &nc, &cap);
    if (rc) return rc;
    tn_expr **keep = tn_arena_calloc(b->arena, ((size_t)nc + 1) * sizeof *keep);
    if (!keep) return TN_ENOMEM;
    uint32_t nk = 0;
    late_info L;
    memset(&L, 0, sizeof L);
    for (int i = 0; i < nc; i++) {
        bool done = false;
        rc = try_decorrelate(b, conjs[i], S, plan, &done);
        if (rc) break;
        if (done) continue;
        bind_ctx c = {b, S, NULL, false, "WHERE", plan, &L};
        rc = tn_bind_pred(&c, conjs[i], &keep[nk]);
        if (rc) break;
        nk++;
    }
    if (!rc) rc = tn_bind_late_joins(b, &L, plan);
    for (uint32_t i = 0; i < nk && !rc; i++) tn_bind_late_resolve(&L, keep[i]);
    tn_bind_late_free(&L);
    if (rc) {
        for (uint32_t i = 0; i < nk; i++) tn_expr_free(keep[i]);
        return rc;
    }
    if (nk == 0) return 0;
    tn_expr *pred = keep[0];
    if (nk > 1 && (rc = tn_expr_and(&pred, keep, nk))) return rc;
    rc = tn_bind_fold(b, &pred);
    if (rc) { tn_expr_free(pred); return rc; }
    return add_filter(b, plan, pred);
}

/* ---------------------------------------------------------------------------------------------
 * ORDER BY / LIMIT.
 */
typedef struct order_key {
    uint32_t col;
    bool desc, nulls_first;
} order_key;

static int bind_limit(tn_binder *b, tn_sql_query *q, int64_t *limit, int64_t *offset) {
    *limit = -1;
    *offset = 0;
    int rc = 0;
    if (q->limit) {
        rc = tn_bind_const_int(b, q->limit, "LIMIT", limit);
        if (!rc && *limit < 0) rc = tn_bind_error(b, q->limit->pos, "LIMIT must not be negative");
    }
    if (!rc && q->offset) {
        rc = tn_bind_const_int(b, q->offset, "OFFSET", offset);
        if (!rc && *offset < 0) rc = tn_bind_error(b, q->offset->pos, "OFFSET must not be negative");
    }
    return rc;
}

/* Wrap plan in SORT (+limit) or LIMIT, then drop columns past nvisible. */
static int finish_query(tn_binder *b, tn_plan **plan, order_key *keys, uint32_t nkeys,
                        int64_t limit, int64_t offset, uint32_t nvisible) {
    tn_plan *p = *plan;
    if (nkeys) {
        tn_plan *s = tn_plan_new(b->arena, TN_PLAN_SORT, p->ncols);
        if (!s) return TN_ENOMEM;
        memcpy(s->types, p->types, p->ncols * sizeof *s->types);
        memcpy(s->names, p->names, p->ncols * sizeof *s->names);
        s->u.sort.nkeys = nkeys;
        s->u.sort.keys = tn_arena_alloc(b->arena, nkeys * sizeof(uint32_t));
        s->u.sort.desc = tn_arena_alloc(b->arena, nkeys * sizeof(bool));
        s->u.sort.nulls_first = tn_arena_alloc(b->arena, nkeys * sizeof(bool));
        if (!s->u.sort.keys || !s->u.sort.desc || !s->u.sort.nulls_first) return TN_ENOMEM;
        for (uint32_t i = 0; i < nkeys; i++) {
            s->u.sort.keys[i] = keys[i].col;
            s->u.sort.desc[i] = keys[i].desc;
            s->u.sort.nulls_first[i] = keys[i].nulls_first;
        }
        s->u.sort.limit = limit;
        s->u.sort.offset = offset;
        s->child[0] = p;
        s->est_rows = limit >= 0 && limit < p->est_rows ? (double)limit : p->est_rows;
        p = s;
    } else if (limit >= 0 || offset > 0) {
        tn_plan *l = tn_plan_new(b->arena, TN_PLAN_LIMIT, p->ncols);
        if (!l) return TN_ENOMEM;
        memcpy(l->types, p->types, p->ncols * sizeof *l->types);
        memcpy(l->names, p->names, p->ncols * sizeof *l->names);
        l->u.limit.limit = limit;
        l->u.limit.offset = offset;
        l->child[0] = p;
        l->est_rows = limit >= 0 && limit < p->est_rows ? (double)limit : p->est_rows;
        p = l;
    }
    if (nvisible < p->ncols) {
        tn_expr **ex = tn_arena_calloc(b->arena, (nvisible + 1) * sizeof *ex);
        if (!ex) return TN_ENOMEM;
        for (uint32_t i = 0; i < nvisible; i++) {
            int rc = tn_expr_column(&ex[i], i, p->types[i]);
            if (rc) {
                for (uint32_t k = 0; k < i; k++) tn_expr_free(ex[k]);
                return rc;
            }
        }
        int rc = tn_bind_project(b, p, ex, p->names, nvisible, &p);
        if (rc) return rc;
    }
    *plan = p;
    return 0;
}

/* DuckDB refuses ORDER BY 'text' / 1.5 (it would order by a constant) unless
 * SET order_by_non_integer_literal = true. */
static int order_literal_check(tn_binder *b, const tn_sql_expr *e) {
    if (e->kind != TN_SQL_E_LITERAL || e->u.lit.kind == TN_SQL_LIT_INTEGER || e->u.lit.kind == TN_SQL_LIT_TYPED ||
        e->u.lit.kind == TN_SQL_LIT_NULL || e->u.lit.kind == TN_SQL_LIT_BOOL)
        return 0;
    if (tn_setting_bool(b->session, "order_by_non_integer_literal")) return 0;
    return tn_bind_error(b, e->pos, "ORDER BY non-integer literal has no effect.\n* SET order_by_non_integer_literal=true "
                         "to allow this behavior.");
}

static bool order_nulls_first(tn_binder *b, const tn_sql_order_item *it) {
    return tn_setting_nulls_first(b->session, it->desc, it->nulls);   /* SET default_null_order */
}

/* ORDER BY ALL: every output column, left to right, in the one direction given. */
static int order_all_keys(tn_binder *b, const tn_sql_query *q, uint32_t ncols, order_key **out) {
    order_key *keys = tn_arena_calloc(b->arena, ((size_t)ncols + 1) * sizeof *keys);
    if (!keys) return TN_ENOMEM;
    for (uint32_t i = 0; i < ncols; i++) {
        keys[i].col = i;
        keys[i].desc = q->order_all_item.desc;
        keys[i].nulls_first = order_nulls_first(b, &q->order_all_item);
    }
    *out = keys;
    return 0;
}

/* ORDER BY over a finished plan's output (set operations and VALUES). */
static int order_over_output(tn_binder *b, tn_sql_query *q, tn_plan **plan) {
    int64_t limit, offset;
    int rc = bind_limit(b, q, &limit, &offset);
    if (rc) return rc;
    tn_plan *p = *plan;
    uint32_t nvis = p->ncols;
    if (q->order_all) {
        order_key *all = NULL;
        rc = order_all_keys(b, q, nvis, &all);
        if (!rc) rc = finish_query(b, &p, all, nvis, limit, offset, nvis);
        *plan = p;
        return rc;
    }
    uint32_t n = (uint32_t)q->order_by.n;
    order_key *keys = tn_arena_calloc(b->arena, (n + 1) * sizeof *keys);
    tn_expr **extra = tn_arena_calloc(b->arena, (n + 1) * sizeof *extra);
    if (!keys || !extra) return TN_ENOMEM;
    uint32_t nextra = 0;
    bind_scope S = {0};
    rc = tn_scope_add(b, &S, NULL, p->ncols, p->names, p->types);
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++) {
        tn_sql_order_item *it = &q->order_by.items[i];
        keys[i].desc = it->desc;
        keys[i].nulls_first = order_nulls_first(b, it);
        if ((rc = order_literal_check(b, it->expr))) break;
        if (it->expr->kind == TN_SQL_E_LITERAL && it->expr->u.lit.kind == TN_SQL_LIT_INTEGER) {
            int64_t k = it->expr->u.lit.int_value;
            if (k < 1 || k > (int64_t)nvis) {
                rc = tn_bind_error(b, it->expr->pos, "ORDER term out of range - should be between 1 and %u", nvis);
                break;
            }
            keys[i].col = (uint32_t)(k - 1);
            continue;
        }
        bind_ctx c = {b, &S, NULL, false, "ORDER BY", NULL, NULL};
        tn_expr *x = NULL;
        rc = tn_bind_expr(&c, it->expr, &x);
        if (rc) break;
        if (x->kind == TN_EXPR_COLUMN) {
            keys[i].col = x->u.column;
            tn_expr_free(x);
            continue;
        }
        keys[i].col = nvis + nextra;
        extra[nextra++] = x;
    }
    if (rc) {
        for (uint32_t i = 0; i < nextra; i++) tn_expr_free(extra[i]);
        return rc;
    }
    if (nextra) {
        uint32_t tot = nvis + nextra;
        tn_expr **ex = tn_arena_calloc(b->arena, (tot + 1) * sizeof *ex);
        const char **names = tn_arena_calloc(b->arena, (tot + 1) * sizeof *names);
        if (!ex || !names) return TN_ENOMEM;
        for (uint32_t i = 0; i < nvis; i++) {
            rc = tn_expr_column(&ex[i], i, p->types[i]);
            if (rc) return rc;
            names[i] = p->names[i];
        }
        for (uint32_t i = 0; i < nextra; i++) {
            ex[nvis + i] = extra[i];
            names[nvis + i] = "#order";
        }
        rc = tn_bind_project(b, p, ex, names, tot, &p);
        if (rc) return rc;
    }
    rc = finish_query(b, &p, keys, n, limit, offset, nvis);
    *plan = p;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * SELECT.
 */
static bool select_has_agg(tn_sql_query *q) {
    tn_sql_select *s = &q->u.select;
    if (s->group_by.n || s->group_all || s->having || s->n_grouping_sets) return true;
    for (int i = 0; i < s->n_items; i++)
        if (tn_bind_contains_agg(s->items[i].expr)) return true;
    for (int i = 0; i < q->order_by.n; i++)
        if (tn_bind_contains_agg(q->order_by.items[i].expr)) return true;
    return false;
}

/* GROUP BY ALL (DuckDB): the groups are the select items that hold no aggregate (nor window
 * function), `*` standing for its columns. */
static int bind_group_all(tn_binder *b, tn_sql_query *q, bind_scope *S, agg_info *A) {
    tn_sql_select *s = &q->u.select;
    uint32_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            A->groups = tn_arena_calloc(b->arena, ((size_t)n + 1) * sizeof *A->groups);
            A->group_text = tn_arena_calloc(b->arena, ((size_t)n + 1) * sizeof *A->group_text);
            if (!A->groups || !A->group_text) return TN_ENOMEM;
        }
        uint32_t k = 0;
        for (int i = 0; i < s->n_items; i++) {
            tn_sql_expr *e = s->items[i].expr;
            if (e->kind == TN_SQL_E_STAR || tn_bind_contains_columns(e)) {
                /* its columns (EXCLUDE / REPLACE applied); replacements with aggregates are no groups */
                sel_list cols = {0};
                bind_ctx c = {b, S, NULL, false, "GROUP BY", NULL, NULL};
                int rc = e->kind == TN_SQL_E_STAR && !tn_bind_contains_columns(e)
                             ? tn_bind_star(b, &c, S, e, &cols)
                             : tn_bind_columns_item(b, &c, S, &s->items[i], &cols);
                for (uint32_t m = 0; m < cols.n && !rc; m++) {
                    if (cols.items[m].ast && (tn_bind_contains_agg(cols.items[m].ast) ||
                                              tn_bind_contains_window(cols.items[m].ast)))
                        continue;
                    if (pass == 1) {
                        A->groups[k] = cols.items[m].expr;
                        cols.items[m].expr = NULL;
                        A->ngroups = k + 1;
                        if (!(A->group_text[k] = tn_bind_expr_text(b, A->groups[k]))) rc = TN_ENOMEM;
                    }
                    k++;
                }
                tn_bind_sel_free(&cols);
                if (rc) return rc;
                continue;
            }
            if (tn_bind_contains_agg(e) || tn_bind_contains_window(e)) continue;
            if (pass == 1) {
                bind_ctx c = {b, S, NULL, false, "GROUP BY", NULL, NULL};
                int rc = tn_bind_expr(&c, e, &A->groups[k]);
                if (!rc) rc = tn_bind_fold(b, &A->groups[k]);
                if (rc) return rc;
                A->ngroups = k + 1;
                if (!(A->group_text[k] = tn_bind_expr_text(b, A->groups[k]))) return TN_ENOMEM;
            }
            k++;
        }
        n = k;
    }
    return 0;
}

static int bind_groups(tn_binder *b, tn_sql_query *q, bind_scope *S, agg_info *A) {
    tn_sql_select *s = &q->u.select;
    if (s->group_all) return bind_group_all(b, q, S, A);
    uint32_t n = (uint32_t)s->group_by.n;
    A->groups = tn_arena_calloc(b->arena, (n + 1) * sizeof *A->groups);
    A->group_text = tn_arena_calloc(b->arena, (n + 1) * sizeof *A->group_text);
    if (!A->groups || !A->group_text) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        tn_sql_expr *g = s->group_by.items[i];
        tn_sql_expr *src = g;
        if (g->kind == TN_SQL_E_LITERAL && g->u.lit.kind == TN_SQL_LIT_INTEGER) {
            int64_t k = g->u.lit.int_value;
            if (k < 1 || k > s->n_items)
                return tn_bind_error(b, g->pos, "GROUP BY term out of range - should be between 1 and %d", s->n_items);
            src = s->items[k - 1].expr;
            if (src->kind == TN_SQL_E_STAR) return tn_bind_error(b, g->pos, "cannot GROUP BY *");
        } else if (g->kind == TN_SQL_E_COLUMN && g->u.column.n == 1) {
            /* a select alias, unless it names a column */
            int idx, nf = 0;
            tn_type t;
            const char *o1 = NULL, *o2 = NULL;
            bool col_exists = false;
            for (uint32_t r = 0; r < S->nrels && !col_exists; r++)
                for (uint32_t c = 0; c < S->rels[r].ncols; c++)
                    if (tn_str_iequal(S->rels[r].names[c], g->u.column.parts[0].name)) { col_exists = true; break; }
            (void)idx; (void)nf; (void)t; (void)o1; (void)o2;
            if (!col_exists)
                for (int k = 0; k < s->n_items; k++)
                    if (s->items[k].alias.name && tn_str_iequal(s->items[k].alias.name, g->u.column.parts[0].name)) {
                        src = s->items[k].expr;
                        break;
                    }
        }
        if (tn_bind_contains_agg(src))
            return tn_bind_error(b, g->pos, "GROUP BY clause cannot contain aggregates!");
        bind_ctx c = {b, S, NULL, false, "GROUP BY", NULL, NULL};
        int rc = tn_bind_expr(&c, src, &A->groups[i]);
        if (!rc) rc = tn_bind_fold(b, &A->groups[i]);
        if (rc) {
            for (uint32_t k = 0; k < i; k++) tn_expr_free(A->groups[k]);
            A->ngroups = 0;
            return rc;
        }
        A->ngroups = i + 1;
        A->group_text[i] = tn_bind_expr_text(b, A->groups[i]);
        if (!A->group_text[i]) return TN_ENOMEM;
    }
    if (s->n_grouping_sets) return tn_bind_grouping_sets(b, s, S, A);   /* bind_group.c */
    return 0;
}

static int bind_select_inner(tn_binder *b, tn_sql_query *q, bind_scope *outer, tn_plan **out);

/* A SELECT with its WINDOW clause visible to OVER name while it is bound (a subquery's own
 * clause hides it). */
static int bind_select(tn_binder *b, tn_sql_query *q, bind_scope *outer, tn_plan **out) {
    tn_sql_select *s = &q->u.select;
    for (int i = 0; i < s->n_windows; i++)
        for (int k = 0; k < i; k++)
            if (tn_str_iequal(s->windows[i].name.name, s->windows[k].name.name))
                return tn_bind_error(b, s->windows[i].name.pos, "window \"%s\" is defined twice", s->windows[i].name.name);
    const tn_sql_named_window *saved = b->windows;
    int nsaved = b->n_windows;
    b->windows = s->windows;
    b->n_windows = s->n_windows;
    int rc = bind_select_inner(b, q, outer, out);
    b->windows = saved;
    b->n_windows = nsaved;
    return rc;
}

/* DISTINCT ON (keys): the first row of each key in ORDER BY order (DuckDB, PostgreSQL), as
 * row_number() OVER (PARTITION BY keys ORDER BY the query's keys) = 1 over the projection; an
 * arbitrary row of each key without ORDER BY. */
static int distinct_on(tn_binder *b, tn_plan **plan, const uint32_t *don, uint32_t n, const order_key *keys,
                       uint32_t nk) {
    tn_plan *child = *plan;
    uint32_t base = child->ncols;
    tn_plan *w = tn_plan_new(b->arena, TN_PLAN_WINDOW, base + 1);
    tn_plan_window_func *f = tn_arena_calloc(b->arena, sizeof *f);
    if (!w || !f) return TN_ENOMEM;
    memcpy(w->types, child->types, base * sizeof *w->types);
    memcpy(w->names, child->names, base * sizeof *w->names);
    f->kind = TN_WIN_ROW_NUMBER;
    f->type = tn_type_make(TN_TYPE_BIGINT);
    f->rows = true;
    f->start = TN_WIN_UNBOUNDED_PRECEDING;
    f->end = TN_WIN_CURRENT_ROW;
    f->npart = n;
    f->norder = nk;
    f->part = tn_arena_calloc(b->arena, (n + 1) * sizeof *f->part);
    f->order = tn_arena_calloc(b->arena, (nk + 1) * sizeof *f->order);
    f->desc = tn_arena_calloc(b->arena, nk + 1);
    f->nulls_first = tn_arena_calloc(b->arena, nk + 1);
    if (!f->part || !f->order || !f->desc || !f->nulls_first) return TN_ENOMEM;
    w->u.window.funcs = f;
    w->u.window.nfuncs = 1;
    w->types[base] = f->type;
    w->names[base] = "#distinct_on";
    w->child[0] = child;
    w->est_rows = child->est_rows;
    *plan = w;                   /* owns the expressions from here on */
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) rc = tn_expr_column(&f->part[i], don[i], child->types[don[i]]);
    for (uint32_t i = 0; i < nk && !rc; i++) {
        rc = tn_expr_column(&f->order[i], keys[i].col, child->types[keys[i].col]);
        f->desc[i] = keys[i].desc;
        f->nulls_first[i] = keys[i].nulls_first;
    }
    if (rc) return rc;
    tn_expr *rn = NULL, *pred = NULL;
    tn_value one;
    memset(&one, 0, sizeof one);
    one.type = f->type;
    one.u.i = 1;
    rc = tn_expr_column(&rn, base, f->type);
    if (!rc) rc = tn_expr_in(&pred, rn, &one, 1, false);
    if (rc) return rc;
    rc = add_filter(b, plan, pred);
    if (rc) return rc;
    (*plan)->est_rows = child->est_rows * 0.5;
    return 0;
}

/* An ORDER BY (or DISTINCT ON) key as an output column: an ordinal, a select alias, a select
 * item's expression or derived name, else a hidden column appended to extra (refused for
 * SELECT DISTINCT, whose rows are the select items). */
static int output_key(bind_ctx *c, bool distinct, sel_list *items, sel_list *extra, tn_sql_expr *oe,
                      const char *clause, uint32_t *col) {
    tn_binder *b = c->b;
    int rc = order_literal_check(b, oe);
    if (rc) return rc;
    if (oe->kind == TN_SQL_E_LITERAL && oe->u.lit.kind == TN_SQL_LIT_INTEGER) {
        int64_t k = oe->u.lit.int_value;
        if (k < 1 || k > (int64_t)items->n)
            return tn_bind_error(b, oe->pos, "%s term out of range - should be between 1 and %u",
                                 strcmp(clause, "ORDER BY") == 0 ? "ORDER" : clause, items->n);
        *col = (uint32_t)(k - 1);
        return 0;
    }
    if (oe->kind == TN_SQL_E_COLUMN && oe->u.column.n == 1)
        for (uint32_t k = 0; k < items->n; k++)
            if (items->items[k].alias && tn_str_iequal(items->items[k].alias, oe->u.column.parts[0].name)) {
                *col = k;
                return 0;
            }
    tn_expr *x = NULL;
    bind_ctx oc = *c;
    oc.clause = clause;
    rc = tn_bind_expr(&oc, oe, &x);
    if (rc == TN_EBIND && oe->kind == TN_SQL_E_COLUMN && oe->u.column.n == 1) {
        /* a select item's derived name */
        for (uint32_t k = 0; k < items->n; k++)
            if (tn_str_iequal(items->items[k].name, oe->u.column.parts[0].name)) {
                tn_error_clear();
                *col = k;
                return 0;
            }
    }
    if (!rc) rc = tn_bind_fold(b, &x);
    if (rc) {
        tn_expr_free(x);
        return rc;
    }
    char *text = tn_bind_expr_text(b, x);
    if (!text) {
        tn_expr_free(x);
        return TN_ENOMEM;
    }
    for (uint32_t k = 0; k < items->n; k++)
        if (strcmp(items->items[k].text, text) == 0) {
            tn_expr_free(x);
            *col = k;
            return 0;
        }
    for (uint32_t k = 0; k < extra->n; k++)
        if (strcmp(extra->items[k].text, text) == 0) {
            tn_expr_free(x);
            *col = items->n + k;
            return 0;
        }
    if (distinct) {
        tn_expr_free(x);
        return tn_bind_error(b, oe->pos, "For SELECT DISTINCT, ORDER BY expressions must appear in select list");
    }
    *col = items->n + extra->n;
    return tn_bind_sel_push(b, extra, x, "#order", NULL, oe);
}

static int bind_select_inner(tn_binder *b, tn_sql_query *q, bind_scope *outer, tn_plan **out) {
    tn_sql_select *s = &q->u.select;
    bind_scope S = {0};
    S.parent = outer;
    tn_plan *P = NULL;
    agg_info A;
    memset(&A, 0, sizeof A);
    sel_list items = {0};
    tn_expr *having = NULL;
    int rc = 0;
    order_key *keys = NULL;
    sel_list extra = {0};
    tn_expr *qualify = NULL;
    uint32_t *don = NULL;                    /* DISTINCT ON keys (output columns) */
    bool has_agg = select_has_agg(q);
    late_info L;
    memset(&L, 0, sizeof L);

    if (s->from) {
        rc = tn_bind_tableref(b, s->from, &S, outer, &P);
        if (rc) goto cleanup;
        S.parent = outer;
    } else {
        P = one_row(b);
        if (!P) { rc = TN_ENOMEM; goto cleanup; }
    }
    S.alias_sel = s;
    S.alias_limit = s->n_items;
    if (s->where) {
        if (tn_bind_contains_agg(s->where)) {
            rc = tn_bind_error(b, s->where->pos, "WHERE clause cannot contain aggregates!");
            goto cleanup;
        }
        rc = bind_where(b, s->where, &S, &P);
        if (rc) goto cleanup;
    }
    L.allow_windows = true;
    L.allow_unnest = true;
    bind_ctx c = {b, &S, NULL, false, "SELECT", &P, &L};
    if (has_agg) {
        A.pre = &S;
        rc = bind_groups(b, q, &S, &A);
        if (rc) goto cleanup;
        c.agg = &A;
        c.plan = NULL;
    }
    /* select list */
    for (int i = 0; i < s->n_items; i++) {
        tn_sql_select_item *it = &s->items[i];
        if (it->expr->kind == TN_SQL_E_STAR) {
            rc = tn_bind_star(b, &c, &S, it->expr, &items);
            if (rc) goto cleanup;
            continue;
        }
        if (tn_bind_contains_columns(it->expr)) {
            rc = tn_bind_columns_item(b, &c, &S, it, &items);
            if (rc) goto cleanup;
            continue;
        }
        tn_expr *x = NULL;
        S.alias_limit = i;                      /* earlier items' aliases only */
        if (it->expr->kind == TN_SQL_E_FUNCTION && !it->expr->u.func.over &&
            tn_str_iequal(tn_bind_func_name(it->expr), "posexplode")) {
            /* Spark: two columns, pos (0-based) and col */
            for (int m = 0; m < 2 && !rc; m++) {
                rc = tn_bind_unnest_call(&c, it->expr, m ? TN_UNNEST_VALUE : TN_UNNEST_POS0, &x);
                if (!rc) rc = tn_bind_sel_push(b, &items, x, m ? "col" : "pos", NULL, it->expr);
            }
            S.alias_limit = s->n_items;
            if (rc) goto cleanup;
            continue;
        }
        rc = tn_bind_expr(&c, it->expr, &x);
        S.alias_limit = s->n_items;
        if (!rc) rc = tn_bind_fold(b, &x);
        if (rc) { tn_expr_free(x); goto cleanup; }
        const char *name = it->alias.name;
        if (!name && it->expr->kind == TN_SQL_E_FUNCTION && tn_str_iequal(tn_bind_func_name(it->expr), "explode"))
            name = "col";                       /* Spark's name for explode's column */
        if (!name) name = declared_name(&S, it->expr);
        if (!name) name = ast_name(b, it->expr);
        if (!name) { tn_expr_free(x); rc = TN_ENOMEM; goto cleanup; }
        rc = tn_bind_sel_push(b, &items, x, name, it->alias.name, it->expr);
        if (rc) goto cleanup;
    }
    if (items.n == 0) {
        rc = tn_bind_error(b, q->pos, "SELECT list is empty after resolving * expressions!");
        goto cleanup;
    }
    if (s->having) {
        bind_ctx hc = c;
        hc.clause = "HAVING";
        L.allow_windows = false;
        L.allow_unnest = false;
        if (!has_agg) {
            rc = tn_bind_error(b, s->having->pos, "HAVING needs GROUP BY or an aggregate");
            goto cleanup;
        }
        rc = tn_bind_pred(&hc, s->having, &having);
        if (!rc) rc = tn_bind_fold(b, &having);
        L.allow_windows = true;
        L.allow_unnest = true;
        if (rc) goto cleanup;
    }
    /* ORDER BY: ordinals, aliases, select expressions, or hidden extra columns */
    uint32_t nk = (uint32_t)q->order_by.n;
    if (q->order_all) {
        nk = items.n;
        rc = order_all_keys(b, q, nk, &keys);
        if (rc) goto cleanup;
    } else {
        keys = tn_arena_calloc(b->arena, (nk + 1) * sizeof *keys);
        if (!keys) { rc = TN_ENOMEM; goto cleanup; }
    }
    for (uint32_t i = 0; i < (q->order_all ? 0 : nk); i++) {
        tn_sql_order_item *it = &q->order_by.items[i];
        keys[i].desc = it->desc;
        keys[i].nulls_first = order_nulls_first(b, it);
        rc = output_key(&c, s->distinct && !s->distinct_on.n, &items, &extra, it->expr, "ORDER BY", &keys[i].col);
        if (rc) goto cleanup;
    }
    /* QUALIFY: over the window functions (select list, ORDER BY and its own) */
    if (s->qualify) {
        bind_ctx qc = c;
        qc.clause = "QUALIFY";
        L.allow_unnest = false;
        rc = tn_bind_pred(&qc, s->qualify, &qualify);
        if (!rc) rc = tn_bind_fold(b, &qualify);
        L.allow_unnest = true;
        if (rc) goto cleanup;
        if (L.nwins == 0) {
            rc = tn_bind_error(b, s->qualify->pos, "at least one window function must appear in the SELECT column or "
                               "QUALIFY clause");
            goto cleanup;
        }
    }
    /* DISTINCT ON keys: output columns, as ORDER BY keys are */
    if (s->distinct_on.n) {
        don = tn_arena_calloc(b->arena, ((size_t)s->distinct_on.n + 1) * sizeof *don);
        if (!don) { rc = TN_ENOMEM; goto cleanup; }
        for (int i = 0; i < s->distinct_on.n; i++) {
            rc = output_key(&c, false, &items, &extra, s->distinct_on.items[i], "DISTINCT ON", &don[i]);
            if (rc) goto cleanup;
        }
    }
    /* aggregate node */
    if (has_agg) {
        if (A.nsets && (rc = tn_bind_grouping_plan(b, &A, &P))) goto cleanup;
        tn_plan *ag = agg_plan_new(b, &A, P);
        if (!ag) { rc = TN_ENOMEM; goto cleanup; }
        P = ag;
        if (A.post_filter) {                 /* GROUPING SETS with () (bind_group.c) */
            rc = add_filter(b, &P, A.post_filter);
            A.post_filter = NULL;
            if (rc) goto cleanup;
        }
    }
    /* late columns: decorrelated subqueries, then HAVING, then window functions */
    rc = tn_bind_late_joins(b, &L, &P);
    if (rc) goto cleanup;
    if (having) {
        tn_bind_late_resolve(&L, having);
        rc = add_filter(b, &P, having);
        having = NULL;
        if (rc) goto cleanup;
    }
    rc = tn_bind_late_windows(b, &L, &P);
    if (!rc && qualify) {
        tn_bind_late_resolve(&L, qualify);
        rc = add_filter(b, &P, qualify);
        qualify = NULL;
    }
    if (!rc) rc = tn_bind_late_unnests(b, &L, &P);       /* bind_unnest.c */
    if (rc) goto cleanup;
    for (uint32_t i = 0; i < items.n; i++) tn_bind_late_resolve(&L, items.items[i].expr);
    for (uint32_t i = 0; i < extra.n; i++) tn_bind_late_resolve(&L, extra.items[i].expr);
    /* projection: select items then hidden ORDER BY columns */
    {
        uint32_t tot = items.n + extra.n;
        tn_expr **ex = tn_arena_calloc(b->arena, (tot + 1) * sizeof *ex);
        const char **names = tn_arena_calloc(b->arena, (tot + 1) * sizeof *names);
        if (!ex || !names) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < items.n; i++) {
            ex[i] = items.items[i].expr;
            items.items[i].expr = NULL;
            names[i] = items.items[i].name;
        }
        for (uint32_t i = 0; i < extra.n; i++) {
            ex[items.n + i] = extra.items[i].expr;
            extra.items[i].expr = NULL;
            names[items.n + i] = "#order";
        }
        rc = tn_bind_project(b, P, ex, names, tot, &P);
        if (rc) goto cleanup;
    }
    if (s->distinct_on.n) {
        rc = distinct_on(b, &P, don, (uint32_t)s->distinct_on.n, keys, nk);
        if (rc) goto cleanup;
    } else if (s->distinct) {
        tn_plan *d = tn_plan_new(b->arena, TN_PLAN_AGGREGATE, P->ncols);
        if (!d) { rc = TN_ENOMEM; goto cleanup; }
        memcpy(d->types, P->types, P->ncols * sizeof *d->types);
        memcpy(d->names, P->names, P->ncols * sizeof *d->names);
        d->u.agg.ngroups = P->ncols;
        d->u.agg.groups = tn_arena_calloc(b->arena, (P->ncols + 1) * sizeof(tn_expr *));
        if (!d->u.agg.groups) { rc = TN_ENOMEM; goto cleanup; }
        d->child[0] = P;
        d->est_rows = P->est_rows * 0.5;
        P = d;
        for (uint32_t i = 0; i < d->ncols; i++) {
            rc = tn_expr_column(&d->u.agg.groups[i], i, d->types[i]);
            if (rc) goto cleanup;
        }
    }
    {
        int64_t limit, offset;
        rc = bind_limit(b, q, &limit, &offset);
        if (rc) goto cleanup;
        rc = finish_query(b, &P, keys, nk, limit, offset, items.n);
        if (rc) goto cleanup;
    }
    *out = P;
    P = NULL;
cleanup:
    for (uint32_t g = 0; g < A.ngroups; g++) tn_expr_free(A.groups[g]);
    for (uint32_t k = 0; k < A.naggs; k++) {
        tn_expr_free(A.aggs[k].arg);
        tn_expr_free(A.aggs[k].sep);
        tn_expr_free(A.aggs[k].filter);
    }
    tn_expr_free(having);
    tn_expr_free(qualify);
    tn_expr_free(A.post_filter);
    tn_bind_sel_free(&items);
    tn_bind_sel_free(&extra);
    tn_bind_late_free(&L);
    tn_plan_free(P);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * VALUES and set operations.
 */
static int bind_values(tn_binder *b, tn_sql_query *q, tn_plan **out) {
    int nrows = q->u.values.n_rows;
    if (nrows == 0) return tn_bind_error(b, q->pos, "VALUES needs at least one row");
    int ncols = q->u.values.rows[0].n;
    for (int r = 1; r < nrows; r++)
        if (q->u.values.rows[r].n != ncols)
            return tn_bind_error(b, q->u.values.rows[r].n ? q->u.values.rows[r].items[0]->pos : q->pos,
                                 "VALUES lists must all be the same length");
    tn_plan *p = tn_plan_new(b->arena, TN_PLAN_VALUES, (uint32_t)ncols);
    if (!p) return TN_ENOMEM;
    p->u.values.nrows = (uint32_t)nrows;
    p->u.values.exprs = tn_arena_calloc(b->arena, ((size_t)nrows * ncols + 1) * sizeof(tn_expr *));
    if (!p->u.values.exprs) return TN_ENOMEM;
    p->est_rows = nrows;
    *out = p;
    bind_scope empty = {0};
    bind_ctx c = {b, &empty, NULL, false, "VALUES", NULL, NULL};
    for (int r = 0; r < nrows; r++)
        for (int k = 0; k < ncols; k++) {
            tn_expr **slot = &p->u.values.exprs[(size_t)r * ncols + k];
            int rc = tn_bind_expr(&c, q->u.values.rows[r].items[k], slot);
            if (!rc) rc = tn_bind_fold(b, slot);
            if (rc) return rc;
            if (r == 0) p->types[k] = (*slot)->type;
            else {
                tn_type t;
                rc = tn_func_common_type(p->types[k], (*slot)->type, &t);
                if (rc) return tn_bind_error_at(b, rc, q->u.values.rows[r].items[k]->pos);
                p->types[k] = t;
            }
        }
    for (int k = 0; k < ncols; k++) {
        p->names[k] = tn_arena_printf(b->arena, "col%d", k);
        if (!p->names[k]) return TN_ENOMEM;
        for (int r = 0; r < nrows; r++) {
            tn_expr **slot = &p->u.values.exprs[(size_t)r * ncols + k];
            if (!tn_type_equal((*slot)->type, p->types[k])) {
                int rc = tn_expr_cast(slot, *slot, p->types[k], false);
                if (!rc) rc = tn_bind_fold(b, slot);
                if (rc) return tn_bind_error_at(b, rc, q->u.values.rows[r].items[k]->pos);
            }
        }
    }
    return 0;
}

static int bind_setop(tn_binder *b, tn_sql_query *q, tn_plan **out) {
    tn_plan *l = NULL, *r = NULL;
    int rc = tn_bind_query(b, q->u.setop.left, NULL, &l);
    if (rc) return rc;
    rc = tn_bind_query(b, q->u.setop.right, NULL, &r);
    if (rc) { tn_plan_free(l); return rc; }
    if (l->ncols != r->ncols) {
        tn_plan_free(l);
        tn_plan_free(r);
        return tn_bind_error(b, q->pos, "Set operations can only apply to expressions with the same number of "
                             "result columns");
    }
    tn_type *types = tn_arena_alloc(b->arena, (l->ncols + 1) * sizeof *types);
    if (!types) { tn_plan_free(l); tn_plan_free(r); return TN_ENOMEM; }
    for (uint32_t i = 0; i < l->ncols && !rc; i++) {
        rc = tn_func_common_type(l->types[i], r->types[i], &types[i]);
        if (!rc && types[i].id == TN_TYPE_NULL) types[i] = tn_type_make(TN_TYPE_INTEGER);
    }
    if (rc) { tn_plan_free(l); tn_plan_free(r); return tn_bind_error_at(b, rc, q->pos); }
    tn_plan *lc = NULL, *rcp = NULL;
    rc = tn_bind_cast_plan(b, l, types, &lc);
    if (rc) { tn_plan_free(l); tn_plan_free(r); return rc; }
    rc = tn_bind_cast_plan(b, r, types, &rcp);
    if (rc) { tn_plan_free(lc); tn_plan_free(r); return rc; }
    tn_plan *p = tn_plan_new(b->arena, TN_PLAN_SETOP, l->ncols);
    if (!p) { tn_plan_free(lc); tn_plan_free(rcp); return TN_ENOMEM; }
    memcpy(p->types, types, l->ncols * sizeof *types);
    memcpy(p->names, l->names, l->ncols * sizeof *p->names);
    p->u.setop.op = q->u.setop.op == TN_SQL_UNION ? TN_SETOP_UNION
                    : q->u.setop.op == TN_SQL_INTERSECT ? TN_SETOP_INTERSECT : TN_SETOP_EXCEPT;
    p->u.setop.all = q->u.setop.all;
    p->child[0] = lc;
    p->child[1] = rcp;
    p->est_rows = lc->est_rows + rcp->est_rows;
    *out = p;
    return 0;
}

int tn_bind_query(tn_binder *b, tn_sql_query *q, bind_scope *outer, tn_plan **out) {
    *out = NULL;
    if (q->recursive)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, q->pos, "WITH RECURSIVE is not supported yet");
    if (q->error_within > 0)     /* the session runs the outermost one through sql/approx.c */
        return tn_bind_error_code(b, TN_EUNSUPPORTED, q->error_pos, "ERROR WITHIN ... AT CONFIDENCE applies to the "
                                  "outermost SELECT of a statement only (not a subquery, view, EXPLAIN or INSERT)");
    if (++b->depth > 200) {
        b->depth--;
        return tn_bind_error_code(b, TN_ELIMIT, q->pos, "query nested too deeply");
    }
    cte_frame frame = {q->ctes, q->n_ctes, NULL, b->ctes};
    if (q->n_ctes) {
        frame.shared = tn_arena_calloc(b->arena, (size_t)q->n_ctes * sizeof *frame.shared);
        if (!frame.shared) {
            b->depth--;
            return TN_ENOMEM;
        }
        b->ctes = &frame;
    }
    int rc = 0;
    tn_plan *p = NULL;
    switch (q->kind) {
    case TN_SQL_Q_SELECT: rc = bind_select(b, q, outer, &p); break;
    case TN_SQL_Q_VALUES:
        rc = bind_values(b, q, &p);
        if (!rc) rc = order_over_output(b, q, &p);
        break;
    case TN_SQL_Q_SETOP:
        rc = bind_setop(b, q, &p);
        if (!rc) rc = order_over_output(b, q, &p);
        break;
    }
    b->ctes = frame.parent;
    for (int i = 0; i < q->n_ctes; i++)             /* the frame's hold; leaves keep theirs */
        if (frame.shared[i]) tn_plan_cte_release(frame.shared[i], false);
    b->depth--;
    if (rc) {
        tn_plan_free(p);
        return rc;
    }
    *out = p;
    return 0;
}
