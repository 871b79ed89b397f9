/*
 * sql/bind_agg_order.c: aggregates with ORDER BY inside the call, as DuckDB binds them.
 * string_agg / group_concat / listagg, list / array_agg / collect_list, first / last /
 * any_value with ORDER BY (and last without) become the ordered aggregate of agg_ordered.c
 * over STRUCT(value, keys...), with FILTER as any aggregate's and DISTINCT only when every key
 * is the value (DuckDB's rule). sum / avg of DOUBLE add in the keys' order. Aggregates whose
 * result does not depend on the order (exact sums, count, min, ...) ignore the ORDER BY, as
 * DuckDB does.
 */
#include <stdio.h>
#include <string.h>

#include "sql/aggregates.h"
#include "sql/bindInt.h"
#include "sql/settings.h"

static const struct {
    const char *name;
    tn_agg_order_mode mode;
    bool skip_nulls;
} g_ordered[] = {
    {"string_agg", TN_AGG_ORDER_STRING_AGG, true}, {"group_concat", TN_AGG_ORDER_STRING_AGG, true},
    {"listagg", TN_AGG_ORDER_STRING_AGG, true},    {"list", TN_AGG_ORDER_LIST, false},
    {"array_agg", TN_AGG_ORDER_LIST, false},       {"collect_list", TN_AGG_ORDER_LIST, true},
    {"first", TN_AGG_ORDER_FIRST, false},          {"last", TN_AGG_ORDER_LAST, false},
    {"any_value", TN_AGG_ORDER_FIRST, true},       {"arbitrary", TN_AGG_ORDER_FIRST, true},
    {"sum", TN_AGG_ORDER_SUM, true},               {"avg", TN_AGG_ORDER_AVG, true},
    {"mean", TN_AGG_ORDER_AVG, true},
};

static int ordered_index(const char *name) {
    for (size_t i = 0; i < sizeof g_ordered / sizeof g_ordered[0]; i++)
        if (tn_str_iequal(name, g_ordered[i].name)) return (int)i;
    return -1;
}

bool tn_bind_is_ordered_agg(const tn_sql_expr *e, const char *name) {
    if (tn_str_iequal(name, "last") || tn_str_iequal(name, "first")) return true;   /* arrival order, NULLs too */
    if (!e->u.func.order_by.n) return false;
    if (tn_str_iequal(name, "collect_set")) return true;   /* refused below */
    return ordered_index(name) >= 0;
}

static int pack_field(tn_binder *b, tn_expr **args, int k, tn_expr *x) {
    char nm[16];
    snprintf(nm, sizeof nm, "f%d", k);
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = tn_type_make(TN_TYPE_VARCHAR);
    v.u.s.ptr = tn_arena_strdup(b->arena, nm);
    if (!v.u.s.ptr) return TN_ENOMEM;
    v.u.s.len = (uint32_t)strlen(nm);
    args[2 * k + 1] = x;
    return tn_expr_constant(&args[2 * k], &v);
}

static int bind_ordered(bind_ctx *c, tn_sql_expr *e, const char *name, tn_agg_order_mode mode, bool skip,
                        tn_expr **out);

int tn_bind_ordered_agg(bind_ctx *c, tn_sql_expr *e, const char *name, tn_expr **out) {
    if (tn_str_iequal(name, "collect_set"))
        return tn_bind_error_code(c->b, TN_EUNSUPPORTED, e->pos, "ORDER BY inside collect_set() is not supported "
                                  "(use list(DISTINCT x ORDER BY x))");
    int oi = ordered_index(name);
    return bind_ordered(c, e, name, oi >= 0 ? g_ordered[oi].mode : TN_AGG_ORDER_LAST, oi >= 0 && g_ordered[oi].skip_nulls,
                        out);
}

int tn_bind_nested_minmax(bind_ctx *c, tn_sql_expr *e, const char *name, bool max, bool any, tn_expr **out) {
    tn_sql_expr plain = *e;
    plain.u.func.order_by.n = 0;            /* an ORDER BY changes nothing here */
    return bind_ordered(c, &plain, name, any ? TN_AGG_ORDER_FIRST : max ? TN_AGG_ORDER_MAX : TN_AGG_ORDER_MIN, true, out);
}

static int bind_ordered(bind_ctx *c, tn_sql_expr *e, const char *name, tn_agg_order_mode mode, bool skip,
                        tn_expr **out) {
    tn_binder *b = c->b;
    agg_info *A = c->agg;
    int n = e->u.func.args.n, nk = e->u.func.order_by.n;
    bool sagg = mode == TN_AGG_ORDER_STRING_AGG;
    if (e->u.func.star || n < 1 || n > (sagg ? 2 : 1))
        return tn_bind_error(b, e->pos, "%s takes %s", name, sagg ? "one or two arguments" : "one argument");
    if (2 * (nk + 1) > TN_FUNC_MAX_ARGS)
        return tn_bind_error(b, e->pos, "ORDER BY inside %s() takes at most %d keys", name, TN_FUNC_MAX_ARGS / 2 - 1);
    tn_agg_order *o = tn_arena_calloc(b->arena, sizeof *o);
    bool *desc = tn_arena_calloc(b->arena, (size_t)nk + 1), *nf = tn_arena_calloc(b->arena, (size_t)nk + 1);
    if (!o || !desc || !nf) return TN_ENOMEM;
    o->mode = mode;
    o->nkeys = (uint32_t)nk;
    o->desc = desc;
    o->nulls_first = nf;
    o->skip_nulls = skip;
    o->distinct = e->u.func.distinct;
    bind_ctx ic = {b, A->pre, NULL, true, c->clause, NULL, NULL};
    tn_expr *args[TN_FUNC_MAX_ARGS];
    int na = 0, rc = 0;
    tn_plan_agg ag;
    memset(&ag, 0, sizeof ag);
    tn_expr *x = NULL;
    rc = tn_bind_expr(&ic, e->u.func.args.items[0], &x);
    if (!rc) rc = tn_bind_fold(b, &x);
    if (rc) return rc;
    char *xtext = tn_bind_expr_text(b, x);          /* before string_agg's cast (DISTINCT keys) */
    if (!xtext) { tn_expr_free(x); return TN_ENOMEM; }
    if (sagg && x->type.id != TN_TYPE_VARCHAR && (rc = tn_expr_cast(&x, x, tn_type_make(TN_TYPE_VARCHAR), false)))
        return tn_bind_error_at(b, rc, e->pos);
    tn_type xt = x->type;
    if (mode == TN_AGG_ORDER_SUM || mode == TN_AGG_ORDER_AVG) {
        if (xt.id != TN_TYPE_DOUBLE && xt.id != TN_TYPE_FLOAT) {
            /* exact sums (integers, decimals) do not depend on the order: the plain aggregate */
            tn_expr_free(x);
            tn_sql_expr plain = *e;
            plain.u.func.order_by.n = 0;
            return tn_bind_expr(c, &plain, out);
        }
        if (xt.id == TN_TYPE_FLOAT && (rc = tn_expr_cast(&x, x, tn_type_make(TN_TYPE_DOUBLE), false)))
            return tn_bind_error_at(b, rc, e->pos);
        xt = tn_type_make(TN_TYPE_DOUBLE);
    }
    rc = pack_field(b, args, 0, x);
    na = 2;
    if (!rc && sagg) {                                    /* the separator: a constant, ',' by default */
        o->sep = ",";
        o->sep_len = 1;
        if (n == 2) {
            tn_value sv;
            rc = tn_bind_const_value(b, e->u.func.args.items[1], &sv);
            if (!rc && !sv.is_null && !tn_type_is_string(sv.type))
                rc = tn_bind_error(b, e->u.func.args.items[1]->pos, "string_agg separator must be a string");
            if (!rc && sv.is_null) {
                rc = tn_bind_error_code(b, TN_EUNSUPPORTED, e->u.func.args.items[1]->pos,
                                        "a NULL separator with ORDER BY is not supported yet");
            } else if (!rc) {
                o->sep = tn_arena_strndup(b->arena, sv.u.s.ptr, sv.u.s.len);
                o->sep_len = sv.u.s.len;
                if (!o->sep) rc = TN_ENOMEM;
            }
        }
    }
    for (int k = 0; k < nk && !rc; k++) {
        tn_sql_order_item *it = &e->u.func.order_by.items[k];
        tn_expr *kx = NULL;
        rc = tn_bind_expr(&ic, it->expr, &kx);
        if (!rc) rc = tn_bind_fold(b, &kx);
        if (rc) break;
        if (o->distinct) {
            char *kt = tn_bind_expr_text(b, kx);
            if (!kt || strcmp(kt, xtext) != 0) {
                tn_expr_free(kx);
                rc = kt ? tn_bind_error(b, it->expr->pos, "In a DISTINCT aggregate, ORDER BY expressions must appear in "
                                        "the argument list")
                        : TN_ENOMEM;
                break;
            }
        }
        desc[k] = it->desc;
        nf[k] = tn_setting_nulls_first(b->session, it->desc, it->nulls);
        rc = pack_field(b, args, k + 1, kx);
        na += 2;
    }
    if (!rc) {
        rc = tn_expr_function(&ag.arg, "__struct_pack", args, (uint32_t)na);
        na = 0;
        if (rc) rc = tn_bind_error_at(b, rc, e->pos);
    }
    for (int i = 0; i < na; i++) tn_expr_free(args[i]);
    if (rc) return rc;
    if (e->u.func.filter && (rc = tn_bind_pred(&ic, e->u.func.filter, &ag.filter))) {
        tn_expr_free(ag.arg);
        return rc;
    }
    ag.kind = TN_AGG_CUSTOM;
    ag.func = &tn_agg_ordered;
    ag.order = o;
    const tn_sql_expr *a0 = e->u.func.args.items[0];
    ag.arg_name = a0->kind == TN_SQL_E_COLUMN ? a0->u.column.parts[a0->u.column.n - 1].name : "its argument";
    ag.type = xt;
    if (mode == TN_AGG_ORDER_LIST && (rc = tn_type_list(&ag.type, xt))) {
        tn_expr_free(ag.arg);
        tn_expr_free(ag.filter);
        return tn_bind_error_at(b, rc, e->pos);
    }
    if (sagg) ag.type = tn_type_make(TN_TYPE_VARCHAR);
    return tn_bind_agg_register(c, &ag, out);
}
