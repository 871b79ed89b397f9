/*
 * sql/bind_unnest.c: binding of unnest (DuckDB) and explode / posexplode (Spark). In the select
 * list each call is a late column (a marker, bindInt.h) of one UNNEST node placed above the
 * window functions, so that unnest(list(x)) unnests an aggregate; FROM unnest(l) is the same
 * node over one empty row. The operator is op_unnest.c; the semantics are DuckDB's: calls of
 * one SELECT are zipped, the shorter lists padded with NULL, NULL and empty lists give no rows.
 */
#include "sql/bindInt.h"

#include <string.h>

bool tn_bind_is_unnest_name(const char *name) {
    return tn_str_iequal(name, "unnest") || tn_str_iequal(name, "explode") || tn_str_iequal(name, "posexplode");
}

/* The argument of unnest as a LIST expression; element type in *elem. */
static int unnest_arg(tn_binder *b, tn_sql_expr *e, tn_expr **arg, tn_type *elem) {
    const char *name = tn_bind_func_name(e);
    tn_type t = (*arg)->type;
    if (t.id == TN_TYPE_NULL) {
        tn_type lt;
        int rc = tn_type_list(&lt, t);
        if (!rc) rc = tn_expr_cast(arg, *arg, lt, false);
        if (rc) return tn_bind_error_at(b, rc, e->pos);
        t = lt;
    }
    if (t.id != TN_TYPE_LIST) {
        char tb[128];
        tn_expr_free(*arg);
        *arg = NULL;
        if (t.id == TN_TYPE_STRUCT)
            return tn_bind_error_code(b, TN_EUNSUPPORTED, e->pos, "%s of a STRUCT (one column per field) is not supported yet; "
                                      "use s.* or s.field", name);
        return tn_bind_error(b, e->pos, "%s() can only be applied to lists, not %s (as in DuckDB: map_entries(m) "
                             "unnests a MAP)", name, tn_type_format(t, tb, sizeof tb));
    }
    *elem = tn_type_element(t);
    return 0;
}

int tn_bind_unnest_call(bind_ctx *c, tn_sql_expr *e, int mode, tn_expr **out) {
    tn_binder *b = c->b;
    const char *name = tn_bind_func_name(e);
    late_info *L = c->late;
    if (c->in_agg) return tn_bind_error(b, e->pos, "%s() cannot be used inside an aggregate", name);
    if (!L || !L->allow_unnest)
        return tn_bind_error(b, e->pos, "%s() is only allowed in the select list%s", name,
                             c->clause && strcmp(c->clause, "SELECT") != 0 ? "" : " of a SELECT");
    if (L->in_unnest) return tn_bind_error_code(b, TN_EUNSUPPORTED, e->pos, "nested %s() calls are not supported yet", name);
    if (e->u.func.args.n != 1 || e->u.func.star || e->u.func.distinct || e->u.func.filter || e->u.func.order_by.n ||
        e->u.func.arg_names)
        return tn_bind_error(b, e->pos, "%s takes one argument: a list", name);
    tn_expr *arg = NULL;
    L->in_unnest = true;
    int rc = tn_bind_expr(c, e->u.func.args.items[0], &arg);
    L->in_unnest = false;
    if (!rc) rc = tn_bind_fold(b, &arg);
    if (rc) { tn_expr_free(arg); return rc; }
    tn_type elem;
    if ((rc = unnest_arg(b, e, &arg, &elem))) return rc;
    if (L->nunnests == L->ucap) {
        uint32_t cap = L->ucap ? L->ucap * 2 : 4;
        tn_expr **ne = tn_arena_calloc(b->arena, cap * sizeof *ne);
        uint8_t *nm = tn_arena_calloc(b->arena, cap);
        uint32_t *nk = tn_arena_calloc(b->arena, cap * sizeof *nk);
        if (!ne || !nm || !nk) { tn_expr_free(arg); return TN_ENOMEM; }
        if (L->nunnests) {
            memcpy(ne, L->unnests, L->nunnests * sizeof *ne);
            memcpy(nm, L->unnest_modes, L->nunnests);
            memcpy(nk, L->unnest_mark, L->nunnests * sizeof *nk);
        }
        L->unnests = ne;
        L->unnest_modes = nm;
        L->unnest_mark = nk;
        L->ucap = cap;
    }
    uint32_t k = L->nunnests++;
    L->unnests[k] = arg;
    L->unnest_modes[k] = (uint8_t)mode;
    L->unnest_mark[k] = L->nmarks++;
    tn_type t = mode == TN_UNNEST_POS0 ? tn_type_make(TN_TYPE_INTEGER) : elem;
    return tn_expr_column(out, TN_BIND_LATE_MARK + L->unnest_mark[k], t);
}

/* The UNNEST node over child with the n list expressions (taken, also on failure). */
static int unnest_node(tn_binder *b, tn_plan *child, tn_expr **exprs, const uint8_t *modes, uint32_t n,
                       const char *name, tn_plan **out) {
    uint32_t base = child->ncols;
    tn_plan *u = tn_plan_new(b->arena, TN_PLAN_UNNEST, base + n);
    tn_expr **ex = tn_arena_calloc(b->arena, (n + 1) * sizeof *ex);
    uint8_t *md = tn_arena_calloc(b->arena, n + 1);
    if (!u || !ex || !md) {
        for (uint32_t i = 0; i < n; i++) tn_expr_free(exprs[i]);
        return TN_ENOMEM;
    }
    memcpy(u->types, child->types, base * sizeof *u->types);
    memcpy(u->names, child->names, base * sizeof *u->names);
    for (uint32_t i = 0; i < n; i++) {
        ex[i] = exprs[i];
        md[i] = modes[i];
        u->types[base + i] = modes[i] == TN_UNNEST_POS0 ? tn_type_make(TN_TYPE_INTEGER) : tn_type_element(exprs[i]->type);
        u->names[base + i] = name;
    }
    u->u.unnest.exprs = ex;
    u->u.unnest.modes = md;
    u->u.unnest.n = n;
    u->child[0] = child;
    u->est_rows = child->est_rows * 4;
    *out = u;
    return 0;
}

int tn_bind_late_unnests(tn_binder *b, late_info *L, tn_plan **plan) {
    if (L->nunnests == 0) return 0;
    if (!L->mark_col) {
        L->mark_col = tn_arena_calloc(b->arena, (L->nmarks + 1) * sizeof *L->mark_col);
        if (!L->mark_col) return TN_ENOMEM;
    }
    uint32_t n = L->nunnests, base = (*plan)->ncols;
    for (uint32_t i = 0; i < n; i++) tn_bind_late_resolve(L, L->unnests[i]);
    L->nunnests = 0;             /* the node owns the expressions now */
    int rc = unnest_node(b, *plan, L->unnests, L->unnest_modes, n, "#unnest", plan);
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++) L->mark_col[L->unnest_mark[i]] = base + i;
    return 0;
}

void tn_bind_late_unnests_free(late_info *L) {
    for (uint32_t i = 0; i < L->nunnests; i++) tn_expr_free(L->unnests[i]);
    L->nunnests = 0;
}

/* FROM unnest(l): one row per element of l (which may not refer to other FROM items). */
int tn_bind_unnest_table(tn_binder *b, tn_sql_tableref *t, tn_plan **out) {
    tn_sql_expr *f = t->u.function;
    const char *name = tn_bind_func_name(f);
    if (tn_str_iequal(name, "posexplode"))
        return tn_bind_error_code(b, TN_EUNSUPPORTED, f->pos, "posexplode is supported in the select list only");
    if (f->u.func.args.n != 1 || f->u.func.arg_names)
        return tn_bind_error(b, f->pos, "%s takes one argument: a list", name);
    bind_scope S = {0};
    bind_ctx c = {b, &S, NULL, false, "FROM", NULL, NULL};
    tn_expr *arg = NULL;
    int rc = tn_bind_expr(&c, f->u.func.args.items[0], &arg);
    if (!rc) rc = tn_bind_fold(b, &arg);
    if (rc) {
        tn_expr_free(arg);
        return rc;
    }
    tn_type elem;
    if ((rc = unnest_arg(b, f, &arg, &elem))) return rc;
    tn_plan *one = tn_plan_new(b->arena, TN_PLAN_VALUES, 0);
    if (!one) { tn_expr_free(arg); return TN_ENOMEM; }
    one->u.values.nrows = 1;
    one->est_rows = 1;
    uint8_t mode = TN_UNNEST_VALUE;
    return unnest_node(b, one, &arg, &mode, 1, tn_str_iequal(name, "explode") ? "col" : "unnest", out);
}
