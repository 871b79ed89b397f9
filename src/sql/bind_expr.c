/*
 * sql/bind_expr.c: binding of AST expressions into typed tn_expr trees: name resolution in
 * scopes (with outer references for correlated subqueries), literals and parameters, operators
 * and functions through the registry's implicit casts, aggregates (GROUP BY matching and
 * validation), subqueries used as values (run once when uncorrelated, decorrelated when they
 * can be), INTERVAL literals and casts, and constant folding. Window function calls are in
 * bind_window.c; DuckDB's names for result columns are in bind_name.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/aggregates.h"
#include "sql/bindInt.h"
#include "sql/settings.h"

/* ---------------------------------------------------------------------------------------------
 * Aggregate names.
 */
static const struct { const char *name; tn_agg_kind kind; } g_aggs[] = {
    {"count", TN_AGG_COUNT},          {"sum", TN_AGG_SUM},
    {"avg", TN_AGG_AVG},              {"mean", TN_AGG_AVG},
    {"min", TN_AGG_MIN},              {"max", TN_AGG_MAX},
    {"stddev", TN_AGG_STDDEV_SAMP},   {"stddev_samp", TN_AGG_STDDEV_SAMP},
    {"stddev_pop", TN_AGG_STDDEV_POP}, {"variance", TN_AGG_VAR_SAMP},
    {"var_samp", TN_AGG_VAR_SAMP},    {"var_pop", TN_AGG_VAR_POP},
    {"bool_and", TN_AGG_BOOL_AND},    {"every", TN_AGG_BOOL_AND},
    {"bool_or", TN_AGG_BOOL_OR},      {"string_agg", TN_AGG_STRING_AGG},
    {"group_concat", TN_AGG_STRING_AGG}, {"listagg", TN_AGG_STRING_AGG},
    {"approx_count_distinct", TN_AGG_APPROX_COUNT_DISTINCT},
    {"any_value", TN_AGG_ANY_VALUE},  {"first", TN_AGG_ANY_VALUE},
    {"arbitrary", TN_AGG_ANY_VALUE},
};

static int agg_lookup(const char *name) {
    for (size_t i = 0; i < sizeof g_aggs / sizeof g_aggs[0]; i++)
        if (tn_str_iequal(name, g_aggs[i].name)) return (int)g_aggs[i].kind;
    return -1;
}

bool tn_bind_is_agg_name(const char *name) {
    return agg_lookup(name) >= 0 || tn_agg_func_lookup(name) || tn_str_iequal(name, "intersect_count") ||
           tn_bind_is_grouping_name(name) || tn_str_iequal(name, "last");
}

static bool is_agg_call(const tn_sql_expr *e) {
    return e->kind == TN_SQL_E_FUNCTION && e->u.func.over == NULL && tn_bind_is_agg_name(tn_bind_func_name(e));
}

/* Visit e's direct child expressions (not subqueries). */
typedef bool (*ast_pred)(const tn_sql_expr *e);
static bool ast_any(const tn_sql_expr *e, ast_pred pred) {
    if (!e) return false;
    if (pred(e)) return true;
    switch (e->kind) {
    case TN_SQL_E_UNARY: return ast_any(e->u.unary.arg, pred);
    case TN_SQL_E_BINARY: return ast_any(e->u.binary.left, pred) || ast_any(e->u.binary.right, pred);
    case TN_SQL_E_IS: return ast_any(e->u.is.arg, pred);
    case TN_SQL_E_BETWEEN:
        return ast_any(e->u.between.arg, pred) || ast_any(e->u.between.low, pred) ||
               ast_any(e->u.between.high, pred);
    case TN_SQL_E_IN_LIST:
        if (ast_any(e->u.in_list.arg, pred)) return true;
        for (int i = 0; i < e->u.in_list.list.n; i++)
            if (ast_any(e->u.in_list.list.items[i], pred)) return true;
        return false;
    case TN_SQL_E_IN_QUERY: return ast_any(e->u.in_query.arg, pred);
    case TN_SQL_E_LIKE:
        return ast_any(e->u.like.arg, pred) || ast_any(e->u.like.pattern, pred) ||
               ast_any(e->u.like.escape, pred);
    case TN_SQL_E_CASE:
        if (ast_any(e->u.case_.operand, pred) || ast_any(e->u.case_.else_expr, pred)) return true;
        for (int i = 0; i < e->u.case_.n_whens; i++)
            if (ast_any(e->u.case_.whens[i].when, pred) || ast_any(e->u.case_.whens[i].then, pred))
                return true;
        return false;
    case TN_SQL_E_CAST: return ast_any(e->u.cast.arg, pred);
    case TN_SQL_E_FUNCTION:
        for (int i = 0; i < e->u.func.args.n; i++)
            if (ast_any(e->u.func.args.items[i], pred)) return true;
        return ast_any(e->u.func.filter, pred);
    case TN_SQL_E_EXTRACT: return ast_any(e->u.extract.arg, pred);
    case TN_SQL_E_INTERVAL: return ast_any(e->u.interval.value, pred);
    case TN_SQL_E_LIST:
    case TN_SQL_E_ROW:
        for (int i = 0; i < e->u.list.n; i++)
            if (ast_any(e->u.list.items[i], pred)) return true;
        return false;
    case TN_SQL_E_STAR:                /* * REPLACE (expr AS c) */
        if (e->u.star.opts)
            for (int i = 0; i < e->u.star.opts->n_replace; i++)
                if (ast_any(e->u.star.opts->replace[i].expr, pred)) return true;
        return false;
    default: return false;
    }
}

static bool is_columns(const tn_sql_expr *e) {
    return e->kind == TN_SQL_E_STAR && e->u.star.opts && e->u.star.opts->columns;
}
bool tn_bind_contains_columns(const tn_sql_expr *e) { return ast_any(e, is_columns); }

bool tn_bind_contains_agg(const tn_sql_expr *e) { return ast_any(e, is_agg_call); }
static bool is_window(const tn_sql_expr *e) {
    return e->kind == TN_SQL_E_FUNCTION && e->u.func.over != NULL;
}
bool tn_bind_contains_window(const tn_sql_expr *e) { return ast_any(e, is_window); }
static bool is_subquery(const tn_sql_expr *e) {
    return e->kind == TN_SQL_E_SUBQUERY || e->kind == TN_SQL_E_EXISTS || e->kind == TN_SQL_E_IN_QUERY;
}
bool tn_bind_contains_subquery(const tn_sql_expr *e) { return ast_any(e, is_subquery); }

/* ---------------------------------------------------------------------------------------------
 * Helpers.
 */
char *tn_bind_expr_text(tn_binder *b, const tn_expr *e) {
    tn_buf buf = TN_BUF_INIT;
    if (tn_expr_to_text(&buf, e) || tn_buf_append_byte(&buf, 0)) {
        tn_buf_free(&buf);
        return NULL;
    }
    char *s = tn_arena_strdup(b->arena, (const char *)buf.data);
    tn_buf_free(&buf);
    return s;
}

int tn_bind_fold(tn_binder *b, tn_expr **e) {
    tn_expr *x = *e;
    if (x == NULL || x->kind == TN_EXPR_CONSTANT || x->kind == TN_EXPR_COLUMN) return 0;
    if (tn_expr_is_constant(x)) {
        tn_value v;
        tn_arena *tmp = tn_arena_create(0);
        if (!tmp) return TN_ENOMEM;
        int rc = tn_expr_fold(x, tmp, &v);
        if (rc == 0) {
            tn_expr *c = NULL;
            v.type = x->type;
            rc = tn_expr_constant(&c, &v);
            tn_arena_destroy(tmp);
            if (rc) return rc;
            tn_expr_free(x);
            *e = c;
            return 0;
        }
        tn_arena_destroy(tmp);
        if (rc == TN_ENOMEM) return rc;
        tn_error_clear();          /* leave it to fail (or not) when it runs */
        return 0;
    }
    for (uint32_t i = 0; i < x->nargs; i++) {
        int rc = tn_bind_fold(b, &x->args[i]);
        if (rc) return rc;
    }
    return 0;
}

int tn_bind_const_value(tn_binder *b, tn_sql_expr *e, tn_value *out) {
    bind_scope empty = {0};
    bind_ctx c = {b, &empty, NULL, false, "constant", NULL, NULL};
    tn_expr *x = NULL;
    int rc = tn_bind_expr(&c, e, &x);
    if (rc) return rc;
    if (!tn_expr_is_constant(x)) {
        tn_expr_free(x);
        return tn_bind_error(b, e->pos, "expected a constant");
    }
    rc = tn_expr_fold(x, b->arena, out);
    if (!rc) out->type = x->type;
    tn_expr_free(x);
    if (rc) return tn_bind_error_at(b, rc, e->pos);
    return 0;
}

int tn_bind_const_int(tn_binder *b, tn_sql_expr *e, const char *what, int64_t *out) {
    tn_value v, w;
    int rc = tn_bind_const_value(b, e, &v);
    if (rc) return rc;
    if (v.is_null) return tn_bind_error(b, e->pos, "%s must not be NULL", what);
    rc = tn_cast_value(&v, tn_type_make(TN_TYPE_BIGINT), false, b->arena, &w);
    if (rc || w.is_null) return tn_bind_error(b, e->pos, "%s must be an integer", what);
    *out = w.u.i;
    return 0;
}

static int make_const(tn_expr **out, tn_type t, bool is_null) {
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    v.is_null = is_null;
    return tn_expr_constant(out, &v);
}

/* ---------------------------------------------------------------------------------------------
 * Columns.
 */
static int find_in_scope(const bind_scope *s, const tn_sql_qname *q, int *found_idx, tn_type *type,
                         int *nfound, const char **other_alias, const char **first_alias) {
    const char *col = q->parts[q->n - 1].name;
    const char *tab = q->n >= 2 ? q->parts[q->n - 2].name : NULL;
    *nfound = 0;
    bool table_seen = false;
    for (uint32_t r = 0; r < s->nrels; r++) {
        const bind_rel *rel = &s->rels[r];
        if (tab) {
            if (!rel->alias || !tn_str_iequal(rel->alias, tab)) continue;
            table_seen = true;
        }
        for (uint32_t i = 0; i < rel->ncols; i++) {
            if (!tn_str_iequal(rel->names[i], col)) continue;
            if (!tab && rel->hidden && rel->hidden[i]) continue;
            if (*nfound == 0) {
                *found_idx = (int)(rel->offset + i);
                *type = rel->types[i];
                *first_alias = rel->alias;
            } else {
                *other_alias = rel->alias;
            }
            (*nfound)++;
            break;
        }
    }
    return table_seen || !tab ? 0 : 1;   /* 1: qualifier not found */
}

/* A select-list alias a bare column name stands for (DuckDB: SELECT a + 1 AS x, x * 2 ...
 * WHERE x > 1 HAVING x > 0): the item j < alias_limit so named, when the scope has no such
 * column; NULL otherwise. */
static const tn_sql_select_item *find_alias(bind_ctx *c, const tn_sql_expr *e, int *jout) {
    const bind_scope *S = c->agg ? c->agg->pre : c->scope;
    if (e->kind != TN_SQL_E_COLUMN || e->u.column.n != 1 || !S || !S->alias_sel || c->in_agg) return NULL;
    const char *col = e->u.column.parts[0].name;
    const tn_sql_select *sel = S->alias_sel;
    int j = 0;
    for (; j < S->alias_limit && j < sel->n_items; j++) {
        const tn_sql_select_item *it = &sel->items[j];
        if (it->alias.name && tn_str_iequal(it->alias.name, col) && it->expr->kind != TN_SQL_E_STAR) break;
    }
    if (j >= S->alias_limit || j >= sel->n_items) return NULL;
    int idx = -1, n = 0;
    tn_type t;
    const char *other = NULL, *first = NULL;
    find_in_scope(S, &e->u.column, &idx, &t, &n, &other, &first);
    if (n > 0) return NULL;                      /* the FROM clause's column wins */
    *jout = j;
    return &sel->items[j];
}

static int bind_column(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    const tn_sql_qname *q = &e->u.column;
    int idx = -1, n = 0;
    tn_type t = tn_type_make(TN_TYPE_NULL);
    const char *other = NULL, *first = NULL;
    const char *col = q->parts[q->n - 1].name;
    int miss_tab = find_in_scope(c->scope, q, &idx, &t, &n, &other, &first);
    if (n > 1)
        return tn_bind_error(b, e->pos, "Ambiguous reference to column name \"%s\" (use: \"%s.%s\" or \"%s.%s\")",
                             col, first ? first : "?", col, other ? other : "?", col);
    if (n == 1) return tn_expr_column(out, (uint32_t)idx, t);
    /* outer query */
    bind_scope *outer = c->scope->parent;
    if (outer) {
        int oidx = -1, on = 0;
        tn_type ot;
        int omiss = find_in_scope(outer, q, &oidx, &ot, &on, &other, &first);
        (void)omiss;
        if (on > 1)
            return tn_bind_error(b, e->pos, "Ambiguous reference to column name \"%s\"", col);
        if (on == 1) {
            if (!c->scope->allow_outer)
                return tn_bind_error_code(b, TN_EUNSUPPORTED, e->pos,
                                          "correlated reference to \"%s\" here is not supported yet "
                                          "(supported: [NOT] EXISTS and [NOT] IN subqueries in WHERE that "
                                          "refer to the outer query in their own WHERE)",
                                          col);
            c->scope->correlated = true;
            return tn_expr_column(out, c->scope->ncols + (uint32_t)oidx, ot);
        }
        if (outer->parent) {
            int pidx, pn = 0;
            find_in_scope(outer->parent, q, &pidx, &ot, &pn, &other, &first);
            if (pn > 0)
                return tn_bind_error_code(b, TN_EUNSUPPORTED, e->pos,
                                          "correlated reference to \"%s\" across two query levels is not supported yet",
                                          col);
        }
    }
    for (int k = (int)q->n - 1; k >= 1; k--) {         /* s.a.b: column s, then its fields */
        tn_sql_qname pre = {q->parts, k};
        int pidx = -1, pn = 0;
        tn_type pt;
        find_in_scope(c->scope, &pre, &pidx, &pt, &pn, &other, &first);
        if (pn != 1 || pt.id != TN_TYPE_STRUCT) continue;
        int rc = tn_expr_column(out, (uint32_t)pidx, pt);
        return rc ? rc : tn_bind_field_path(c, out, q->parts + k, (int)q->n - k, e->pos);
    }
    if (miss_tab && q->n >= 2)
        return tn_bind_error(b, e->pos, "Referenced table \"%s\" not found!", q->parts[q->n - 2].name);
    if (q->n == 1 && !q->parts[0].quoted && tn_pg_is_session_function(col) && !tn_str_iequal(col, "version")) {
        int rc = tn_pg_session_function(b, col, 0, out);     /* SQL's current_user, session_user, ... */
        return rc ? tn_bind_error_at(b, rc, e->pos) : 0;
    }
    return tn_bind_error(b, e->pos, "Referenced column \"%s\" not found in FROM clause!", col);
}

/* ---------------------------------------------------------------------------------------------
 * Literals.
 */
static int bind_literal(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    tn_value v;
    memset(&v, 0, sizeof v);
    switch (e->u.lit.kind) {
    case TN_SQL_LIT_NULL: return make_const(out, tn_type_make(TN_TYPE_NULL), true);
    case TN_SQL_LIT_BOOL:
        v.type = tn_type_make(TN_TYPE_BOOLEAN);
        v.u.b = e->u.lit.bool_value;
        return tn_expr_constant(out, &v);
    case TN_SQL_LIT_INTEGER:
        if (e->u.lit.fits_int64) {
            v.u.i = e->u.lit.int_value;
            v.type = tn_type_make(v.u.i >= INT32_MIN && v.u.i <= INT32_MAX ? TN_TYPE_INTEGER : TN_TYPE_BIGINT);
            return tn_expr_constant(out, &v);
        }
        /* too big for BIGINT: HUGEINT range as DECIMAL(38,0), else DOUBLE */
        if (e->u.lit.len <= 38) {
            tn_int128 x = 0;
            for (size_t i = 0; i < e->u.lit.len; i++)
                if (e->u.lit.text[i] >= '0' && e->u.lit.text[i] <= '9') x = x * 10 + (e->u.lit.text[i] - '0');
            v.type = tn_type_decimal(38, 0);
            v.u.i128 = x;
            return tn_expr_constant(out, &v);
        }
        v.type = tn_type_make(TN_TYPE_DOUBLE);
        v.u.d = strtod(e->u.lit.text, NULL);
        return tn_expr_constant(out, &v);
    case TN_SQL_LIT_DECIMAL: {
        const char *s = e->u.lit.text;
        size_t n = e->u.lit.len;
        int digits = 0, scale = 0;
        bool frac = false, lead = true;
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '.') { frac = true; continue; }
            if (s[i] < '0' || s[i] > '9') continue;
            if (frac) scale++;
            if (lead && s[i] == '0' && !frac) continue;
            lead = false;
            digits++;
        }
        int prec = digits > scale ? digits : scale;
        if (prec == 0) prec = 1;
        if (prec > 38) {
            v.type = tn_type_make(TN_TYPE_DOUBLE);
            v.u.d = strtod(s, NULL);
            return tn_expr_constant(out, &v);
        }
        tn_value sv;
        memset(&sv, 0, sizeof sv);
        sv.type = tn_type_make(TN_TYPE_VARCHAR);
        sv.u.s.ptr = s;
        sv.u.s.len = (uint32_t)n;
        int rc = tn_cast_value(&sv, tn_type_decimal(prec, scale), false, b->arena, &v);
        if (rc) return tn_bind_error_at(b, rc, e->pos);
        return tn_expr_constant(out, &v);
    }
    case TN_SQL_LIT_FLOAT:
        v.type = tn_type_make(TN_TYPE_DOUBLE);
        v.u.d = e->u.lit.float_value;
        return tn_expr_constant(out, &v);
    case TN_SQL_LIT_STRING:
    case TN_SQL_LIT_BLOB:
        v.type = tn_type_make(e->u.lit.kind == TN_SQL_LIT_STRING ? TN_TYPE_VARCHAR : TN_TYPE_VARBINARY);
        v.u.s.ptr = e->u.lit.text;
        v.u.s.len = (uint32_t)e->u.lit.len;
        return tn_expr_constant(out, &v);
    case TN_SQL_LIT_TYPED: {
        tn_sql_type *t = e->u.lit.typed_as;
        if (!t || !t->known) return tn_bind_error(b, e->pos, "unknown type %s", t ? t->name : "?");
        tn_value sv;
        memset(&sv, 0, sizeof sv);
        sv.type = tn_type_make(TN_TYPE_VARCHAR);
        sv.u.s.ptr = e->u.lit.text;
        sv.u.s.len = (uint32_t)e->u.lit.len;
        int rc = tn_cast_value(&sv, t->type, false, b->arena, &v);
        if (rc) return tn_bind_error_at(b, rc, e->pos);
        return tn_expr_constant(out, &v);
    }
    }
    return tn_bind_error(b, e->pos, "unknown literal");
}

/* A string literal, or a parameter bound as text: both take the type their use asks for
 * ('5' = int_col; a text parameter from a PostgreSQL client whose type is unspecified). */
static bool is_string_literal(const bind_ctx *c, const tn_sql_expr *e) {
    if (e->kind == TN_SQL_E_PARAM) {
        int k = e->u.param.index;
        return k >= 1 && (uint32_t)k <= c->b->nparams && c->b->params[k - 1].type.id == TN_TYPE_VARCHAR &&
               !c->b->params[k - 1].is_null;
    }
    return e->kind == TN_SQL_E_LITERAL && e->u.lit.kind == TN_SQL_LIT_STRING;
}

/* ---------------------------------------------------------------------------------------------
 * Operators and functions.
 */
static int call2(bind_ctx *c, tn_sql_pos pos, const char *name, tn_sql_expr *l, tn_sql_expr *r,
                 tn_expr **out) {
    tn_expr *args[2] = {NULL, NULL};
    int rc = tn_bind_expr(c, l, &args[0]);
    if (rc) return rc;
    rc = tn_bind_expr(c, r, &args[1]);
    if (rc) {
        tn_expr_free(args[0]);
        return rc;
    }
    uint8_t flags[2] = {is_string_literal(c, l) ? TN_FUNC_ARG_STRING_LITERAL : 0,
                        is_string_literal(c, r) ? TN_FUNC_ARG_STRING_LITERAL : 0};
    rc = tn_expr_function_ex(out, name, args, flags, 2);
    if (rc) return tn_bind_error_at(c->b, rc, pos);
    return 0;
}

/* a IS [NOT] DISTINCT FROM b: COALESCE(a = b, a IS NULL AND b IS NULL). */
static int bind_distinct_from(bind_ctx *c, tn_sql_expr *e, bool negate_distinct, tn_expr **out) {
    tn_expr *eq = NULL;
    int rc = call2(c, e->pos, "=", e->u.binary.left, e->u.binary.right, &eq);
    if (rc) return rc;
    tn_expr *a = tn_expr_copy(eq->args[0]), *bb = tn_expr_copy(eq->args[1]);
    tn_expr *an = NULL, *bn = NULL, *both = NULL, *res = NULL;
    if (!a || !bb) {
        tn_expr_free(a); tn_expr_free(bb); tn_expr_free(eq);
        return TN_ENOMEM;
    }
    rc = tn_expr_is_null(&an, a, false);
    if (rc) { tn_expr_free(bb); tn_expr_free(eq); return rc; }
    rc = tn_expr_is_null(&bn, bb, false);
    if (rc) { tn_expr_free(an); tn_expr_free(eq); return rc; }
    tn_expr *ab[2] = {an, bn};
    rc = tn_expr_and(&both, ab, 2);
    if (rc) { tn_expr_free(eq); return rc; }
    tn_expr *co[2] = {eq, both};
    rc = tn_expr_coalesce(&res, co, 2);
    if (rc) return rc;
    if (negate_distinct) return tn_expr_not(out, res);
    *out = res;
    return 0;
}

static int bind_args(bind_ctx *c, tn_sql_expr_list *l, tn_expr ***args, uint8_t **flags) {
    *args = tn_arena_calloc(c->b->arena, ((size_t)l->n + 1) * sizeof **args);
    *flags = tn_arena_calloc(c->b->arena, (size_t)l->n + 1);
    if (!*args || !*flags) return TN_ENOMEM;
    for (int i = 0; i < l->n; i++) {
        int rc = tn_bind_expr(c, l->items[i], &(*args)[i]);
        if (rc) {
            for (int j = 0; j < i; j++) tn_expr_free((*args)[j]);
            return rc;
        }
        (*flags)[i] = is_string_literal(c, l->items[i]) ? TN_FUNC_ARG_STRING_LITERAL : 0;
    }
    return 0;
}

static void free_args(tn_expr **args, int n) {
    for (int i = 0; i < n; i++) tn_expr_free(args[i]);
}

static int bind_aggregate(bind_ctx *c, tn_sql_expr *e, tn_expr **out);

static int bind_function(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    const char *name = tn_bind_func_name(e);
    if (strcmp(name, "~") == 0)        /* the a ~ b operator (parser_expr.c): SET regex_match_operator_semantics */
        name = tn_str_iequal(tn_setting_get(b->session, "regex_match_operator_semantics"), "full") ? "regexp_full_match"
                                                                                                  : "regexp_matches";
    if (e->u.func.over) return tn_bind_window(c, e, out);
    if (tn_bind_is_unnest_name(name)) {                  /* bind_unnest.c */
        if (tn_str_iequal(name, "posexplode"))
            return tn_bind_error(b, e->pos, "posexplode() must be a whole item of the select list");
        return tn_bind_unnest_call(c, e, TN_UNNEST_VALUE, out);
    }
    if (tn_bind_is_agg_name(name)) {
        if (c->in_agg) return tn_bind_error(b, e->pos, "aggregate function calls cannot be nested");
        if (!c->agg)
            return tn_bind_error(b, e->pos, "aggregate functions are not allowed in %s", c->clause ? c->clause : "this context");
        if (tn_bind_is_grouping_name(name)) return tn_bind_grouping(c, e, out);     /* bind_group.c */
        if (tn_str_iequal(name, "intersect_count")) {   /* a rewrite into bitmap aggregates */
            tn_sql_expr *rw = NULL;
            int rc = tn_bitmap_rewrite_intersect_count(b->arena, e, &rw);
            return rc ? tn_bind_error_at(b, rc, e->pos) : tn_bind_expr(c, rw, out);
        }
        return bind_aggregate(c, e, out);
    }
    if (e->u.func.distinct || e->u.func.filter || e->u.func.order_by.n)
        return tn_bind_error(b, e->pos, "DISTINCT, FILTER and ORDER BY apply to aggregate functions only (%s is not one)", name);
    if (e->u.func.star) return tn_bind_error(b, e->pos, "%s(*) is not a function", name);
    if (!tn_func_exists(name) && !tn_str_iequal(name, "coalesce") && !tn_str_iequal(name, "nullif") &&
        !tn_str_iequal(name, "nextval") && !tn_str_iequal(name, "currval") && !tn_str_iequal(name, "current_setting") &&
        !tn_str_iequal(name, "pg_regclass_name") && !tn_pg_is_session_function(name)) {
        int mrc = tn_macro_scalar(c, e, out);            /* macro.c: 1 = no macro of that name */
        if (mrc <= 0) return mrc;
    }
    if (tn_str_iequal(name, "struct_pack")) return tn_bind_struct_pack_named(c, e, out);
    if (e->u.func.arg_names)
        for (int i = 0; i < e->u.func.args.n; i++)
            if (e->u.func.arg_names[i].name)
                return tn_bind_error(b, e->u.func.arg_names[i].pos, "named arguments are not supported for %s", name);
    tn_expr **args;
    uint8_t *flags;
    int n = e->u.func.args.n;
    int rc = bind_args(c, &e->u.func.args, &args, &flags);
    if (rc) return rc;
    if (tn_str_iequal(name, "coalesce") || tn_str_iequal(name, "ifnull") || tn_str_iequal(name, "nvl")) {
        if (n == 0) return tn_bind_error(b, e->pos, "%s needs at least one argument", name);
        rc = tn_expr_coalesce(out, args, (uint32_t)n);
    } else if (tn_str_iequal(name, "nullif")) {
        if (n != 2) { free_args(args, n); return tn_bind_error(b, e->pos, "nullif takes two arguments"); }
        rc = tn_expr_nullif(out, args[0], args[1]);
    } else if ((tn_str_iequal(name, "if") || tn_str_iequal(name, "iff")) && n == 3) {
        tn_expr *w = NULL;
        rc = tn_expr_cast(&w, args[0], tn_type_make(TN_TYPE_BOOLEAN), false);
        if (rc) { tn_expr_free(args[1]); tn_expr_free(args[2]); return tn_bind_error_at(b, rc, e->pos); }
        rc = tn_expr_case(out, &w, &args[1], 1, args[2]);
    } else if (tn_str_iequal(name, "nextval") || tn_str_iequal(name, "currval")) {
        return tn_sequence_call(b, name, args, (uint32_t)n, e->pos, out);  /* sequence.c */
    } else if (tn_str_iequal(name, "pg_regclass_name") && n == 1) {        /* pg_catalog.c */
        rc = tn_pg_regclass_name(b, args[0], out);
    } else if (tn_pg_is_session_function(name) && !tn_func_exists(name)) {   /* pg_catalog.c */
        rc = tn_pg_session_function(b, name, (uint32_t)n, out);
        free_args(args, n);
    } else if (tn_str_iequal(name, "current_setting")) {
        /* A constant, as in DuckDB: tarn's setting (settings.c), else the front end's
         * (the server's PostgreSQL parameters, tn_sql_session_set_settings); PostgreSQL's
         * current_setting(name, missing_ok) gives NULL for an unknown name when missing_ok. */
        if (n < 1 || n > 2 || args[0]->kind != TN_EXPR_CONSTANT || args[0]->u.value.is_null ||
            args[0]->u.value.type.id != TN_TYPE_VARCHAR ||
            (n == 2 && (args[1]->kind != TN_EXPR_CONSTANT || args[1]->u.value.is_null ||
                        args[1]->u.value.type.id != TN_TYPE_BOOLEAN))) {
            free_args(args, n);
            return tn_bind_error(b, e->pos,
                                 "current_setting takes a constant string (a setting's name) and optionally a constant "
                                 "boolean (missing_ok)");
        }
        bool missing_ok = n == 2 && args[1]->u.value.u.b;
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)args[0]->u.value.u.s.len, args[0]->u.value.u.s.ptr);
        tn_value v;
        rc = tn_setting_value(b->session, key, b->arena, &v);
        const char *pname, *pvalue, *pdesc;
        tn_sql_session *ss = b->session;
        for (int i = 0; rc && ss->settings_fn && ss->settings_fn(ss->settings_ctx, i, &pname, &pvalue, &pdesc); i++) {
            if (strcasecmp(pname, key) != 0) continue;
            memset(&v, 0, sizeof v);
            v.type = tn_type_make(TN_TYPE_VARCHAR);
            v.is_null = !pvalue;
            rc = 0;
            if (pvalue) {
                size_t len = strlen(pvalue);
                char *cp = tn_arena_alloc(b->arena, len + 1);
                if (!cp) rc = TN_ENOMEM;
                else {
                    memcpy(cp, pvalue, len + 1);
                    v.u.s.ptr = cp;
                    v.u.s.len = (uint32_t)len;
                }
            }
            break;
        }
        if (rc && missing_ok) {
            memset(&v, 0, sizeof v);
            v.type = tn_type_make(TN_TYPE_VARCHAR);
            v.is_null = true;
            rc = 0;
        }
        free_args(args, n);
        if (rc) return tn_bind_error_at(b, rc, e->u.func.args.items[0]->pos);
        rc = tn_expr_constant(out, &v);
    } else {
        if (!tn_func_exists(name)) {
            free_args(args, n);
            return tn_bind_error_code(b, TN_ENOTFOUND, e->pos, "Scalar Function with name %s does not exist!", name);
        }
        if (n == 2 && strcmp(name, "pg_array_subscript") == 0) name = tn_bind_subscript_function(args[0]);
        rc = tn_expr_function_ex(out, name, args, flags, (uint32_t)n);
    }
    if (rc) return tn_bind_error_at(b, rc, e->pos);
    return 0;
}

static int bind_aggregate(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    agg_info *A = c->agg;
    const char *name = tn_bind_func_name(e);
    tn_plan_agg ag;
    memset(&ag, 0, sizeof ag);
    int builtin = agg_lookup(name);
    ag.kind = builtin >= 0 ? (tn_agg_kind)builtin : TN_AGG_CUSTOM;
    ag.func = builtin >= 0 ? NULL : tn_agg_func_lookup(name);
    ag.distinct = e->u.func.distinct;
    int n = e->u.func.args.n;
    /* ORDER BY inside the call (bind_agg_order.c); ignored where the order changes nothing */
    if (tn_bind_is_ordered_agg(e, name)) return tn_bind_ordered_agg(c, e, name, out);
    bind_ctx ic = {b, A->pre, NULL, true, c->clause, NULL, NULL};
    int rc = 0;
    if (ag.kind == TN_AGG_COUNT && (e->u.func.star || n == 0)) {
        ag.kind = TN_AGG_COUNT_STAR;
        ag.distinct = false;
        ag.type = tn_type_make(TN_TYPE_BIGINT);
    } else {
        int want = ag.kind == TN_AGG_STRING_AGG ? -1 : 1;
        if ((want == 1 && n != 1) || (want == -1 && (n < 1 || n > 2)))
            return tn_bind_error(b, e->pos, "%s takes %s", name, want == 1 ? "one argument" : "one or two arguments");
        rc = tn_bind_expr(&ic, e->u.func.args.items[0], &ag.arg);
        if (rc) return rc;
        tn_type t = ag.arg->type;
        tn_type want_t = t;
        switch (ag.kind) {
        case TN_AGG_COUNT: ag.type = tn_type_make(TN_TYPE_BIGINT); break;
        case TN_AGG_APPROX_COUNT_DISTINCT: ag.type = tn_type_make(TN_TYPE_BIGINT); break;
        case TN_AGG_SUM:
        case TN_AGG_AVG:
            if (t.id == TN_TYPE_NULL) want_t = tn_type_make(TN_TYPE_INTEGER);
            else if (t.id == TN_TYPE_BOOLEAN && ag.kind == TN_AGG_SUM) want_t = tn_type_make(TN_TYPE_INTEGER);
            else if (!tn_type_is_numeric(t)) {
                tn_expr_free(ag.arg);
                char tb[64];
                return tn_bind_error(b, e->pos, "No function matches the given name and argument types '%s(%s)'",
                                     name, tn_type_format(t, tb, sizeof tb));
            }
            if (ag.kind == TN_AGG_AVG) ag.type = tn_type_make(TN_TYPE_DOUBLE);
            else if (tn_type_is_integer(want_t)) ag.type = tn_type_decimal(38, 0);
            else if (want_t.id == TN_TYPE_DECIMAL) ag.type = tn_type_decimal(38, want_t.scale);
            else ag.type = tn_type_make(TN_TYPE_DOUBLE);
            if (want_t.id == TN_TYPE_FLOAT) want_t = tn_type_make(TN_TYPE_DOUBLE);
            break;
        case TN_AGG_MIN:
        case TN_AGG_MAX:
        case TN_AGG_ANY_VALUE:
            if (t.id == TN_TYPE_LIST || t.id == TN_TYPE_STRUCT || t.id == TN_TYPE_MAP) {
                /* the state of these kinds holds flat values only (bind_agg_order.c) */
                tn_expr_free(ag.arg);
                return tn_bind_nested_minmax(c, e, name, ag.kind == TN_AGG_MAX, ag.kind == TN_AGG_ANY_VALUE, out);
            }
            ag.type = t;
            break;
        case TN_AGG_STDDEV_SAMP:
        case TN_AGG_STDDEV_POP:
        case TN_AGG_VAR_SAMP:
        case TN_AGG_VAR_POP:
            if (!tn_type_is_numeric(t) && t.id != TN_TYPE_NULL) {
                tn_expr_free(ag.arg);
                char tb[64];
                return tn_bind_error(b, e->pos, "No function matches the given name and argument types '%s(%s)'",
                                     name, tn_type_format(t, tb, sizeof tb));
            }
            want_t = ag.type = tn_type_make(TN_TYPE_DOUBLE);
            break;
        case TN_AGG_BOOL_AND:
        case TN_AGG_BOOL_OR: want_t = ag.type = tn_type_make(TN_TYPE_BOOLEAN); break;
        case TN_AGG_CUSTOM: {
            want_t = ag.func->arg == TN_AGG_ANY_TYPE ? t : tn_type_make((tn_type_id)ag.func->arg);
            ag.type = tn_type_make((tn_type_id)ag.func->ret);
            if (ag.func->ret == TN_AGG_LIST_OF_ARG && (rc = tn_type_list(&ag.type, want_t))) {
                tn_expr_free(ag.arg);
                return tn_bind_error_at(b, rc, e->pos);
            }
            if (!tn_type_equal(t, want_t) && tn_func_implicit_cast_cost(t, want_t) < 0) {
                tn_expr_free(ag.arg);
                char tb[64];
                return tn_bind_error(b, e->pos, "No function matches the given name and argument types '%s(%s)'",
                                     name, tn_type_format(t, tb, sizeof tb));
            }
            const tn_sql_expr *a0 = e->u.func.args.items[0];
            if (a0->kind == TN_SQL_E_COLUMN)
                ag.arg_name = a0->u.column.parts[a0->u.column.n - 1].name;
            else
                ag.arg_name = "its argument";
            ag.distinct = ag.func->forced_distinct || (ag.distinct && ag.func->keeps_distinct);
            break;
        }
        case TN_AGG_STRING_AGG:
            want_t = ag.type = tn_type_make(TN_TYPE_VARCHAR);
            if (n == 2) {
                rc = tn_bind_expr(&ic, e->u.func.args.items[1], &ag.sep);
                if (!rc && !tn_expr_is_constant(ag.sep))
                    rc = tn_bind_error_code(b, TN_EUNSUPPORTED, e->u.func.args.items[1]->pos,
                                            "string_agg separator must be a constant");
                if (!rc && !tn_type_equal(ag.sep->type, want_t))
                    rc = tn_expr_cast(&ag.sep, ag.sep, want_t, false);
                if (!rc) rc = tn_bind_fold(b, &ag.sep);
                if (rc) { tn_expr_free(ag.arg); tn_expr_free(ag.sep); return rc; }
                if (ag.sep->kind == TN_EXPR_CONSTANT && ag.sep->u.value.is_null) {
                    /* DuckDB: a NULL separator makes the result NULL (as string_agg of NULLs) */
                    tn_value nv;
                    memset(&nv, 0, sizeof nv);
                    nv.type = want_t;
                    nv.is_null = true;
                    tn_expr_free(ag.arg);
                    tn_expr_free(ag.sep);
                    ag.arg = ag.sep = NULL;
                    if ((rc = tn_expr_constant(&ag.arg, &nv))) return rc;
                    t = want_t;
                }
            }
            break;
        default: break;
        }
        if (ag.kind == TN_AGG_COUNT && ag.distinct && tn_type_is_integer(t)) {
            /* count(DISTINCT integer) through a bitmap: the same count, about 3x faster and a
             * fraction of the memory of the (group, value) set (bench/README.md, Bitmaps) */
            const tn_agg_func *f = tn_agg_func_lookup("count_distinct_bitmap");
            if (f) {
                ag.kind = TN_AGG_CUSTOM;
                ag.func = f;
                ag.distinct = false;
                ag.arg_name = "its argument";
                want_t = tn_type_make(TN_TYPE_BIGINT);
            }
        }
        if (!tn_type_equal(want_t, t) && ag.kind != TN_AGG_COUNT && ag.kind != TN_AGG_APPROX_COUNT_DISTINCT) {
            rc = tn_expr_cast(&ag.arg, ag.arg, want_t, false);
            if (rc) { tn_expr_free(ag.sep); return tn_bind_error_at(b, rc, e->pos); }
        }
        if (ag.kind == TN_AGG_MIN || ag.kind == TN_AGG_MAX || ag.kind == TN_AGG_ANY_VALUE ||
            ag.kind == TN_AGG_BOOL_AND || ag.kind == TN_AGG_BOOL_OR || ag.kind == TN_AGG_APPROX_COUNT_DISTINCT)
            ag.distinct = false;   /* no effect */
    }
    if (e->u.func.filter) {
        rc = tn_bind_pred(&ic, e->u.func.filter, &ag.filter);
        if (rc) { tn_expr_free(ag.arg); tn_expr_free(ag.sep); return rc; }
    }
    rc = tn_bind_fold(b, &ag.arg);
    if (rc) { tn_expr_free(ag.arg); tn_expr_free(ag.sep); tn_expr_free(ag.filter); return rc; }
    return tn_bind_agg_register(c, &ag, out);
}

int tn_bind_agg_register(bind_ctx *c, tn_plan_agg *agp, tn_expr **out) {
    tn_binder *b = c->b;
    agg_info *A = c->agg;
    tn_plan_agg ag = *agp;
    /* identity for de-duplication */
    tn_buf key = TN_BUF_INIT;
    tn_buf_printf(&key, "%d|%s|%d|", (int)ag.kind, ag.func ? ag.func->name : "", ag.distinct);
    if (ag.order) {
        const tn_agg_order *o = ag.order;
        tn_buf_printf(&key, "o%d,%d,%d,", (int)o->mode, o->skip_nulls, o->distinct);
        for (uint32_t k = 0; k < o->nkeys; k++) tn_buf_printf(&key, "%d%d", o->desc[k], o->nulls_first[k]);
        if (o->sep) tn_buf_append(&key, o->sep, o->sep_len);
        tn_buf_printf(&key, "|");
    }
    if (ag.arg) tn_expr_to_text(&key, ag.arg);
    tn_buf_printf(&key, "|");
    if (ag.sep) tn_expr_to_text(&key, ag.sep);
    tn_buf_printf(&key, "|");
    if (ag.filter) tn_expr_to_text(&key, ag.filter);
    tn_buf_append_byte(&key, 0);
    uint32_t idx = A->naggs;
    for (uint32_t i = 0; key.data && i < A->naggs; i++)
        if (strcmp(A->agg_text[i], (const char *)key.data) == 0) { idx = i; break; }
    if (idx < A->naggs) {
        tn_buf_free(&key);
        tn_expr_free(ag.arg); tn_expr_free(ag.sep); tn_expr_free(ag.filter);
        return tn_expr_column(out, A->ngroups + idx, A->aggs[idx].type);
    }
    if (A->naggs == A->cap) {
        uint32_t cap = A->cap ? A->cap * 2 : 8;
        tn_plan_agg *na = tn_arena_calloc(b->arena, cap * sizeof *na);
        char **nt = tn_arena_calloc(b->arena, cap * sizeof *nt);
        if (!na || !nt) { tn_buf_free(&key); tn_expr_free(ag.arg); tn_expr_free(ag.sep); tn_expr_free(ag.filter); return TN_ENOMEM; }
        if (A->naggs) {
            memcpy(na, A->aggs, A->naggs * sizeof *na);
            memcpy(nt, A->agg_text, A->naggs * sizeof *nt);
        }
        A->aggs = na;
        A->agg_text = nt;
        A->cap = cap;
    }
    A->aggs[idx] = ag;
    A->agg_text[idx] = tn_arena_strdup(b->arena, key.data ? (const char *)key.data : "");
    tn_buf_free(&key);
    A->naggs++;
    return tn_expr_column(out, A->ngroups + idx, ag.type);
}

/* ---------------------------------------------------------------------------------------------
 * Subqueries used as values.
 */
/* x op ANY|ALL (S) over the materialized rows of S, as three-valued logic over the extreme:
 *   x > ANY (S)  = (x > min(S)) OR  (NULL if S holds a NULL else FALSE)
 *   x > ALL (S)  = (x > max(S)) AND (NULL if S holds a NULL else TRUE)
 * (< and <= swap min and max; = ALL and <> ANY compare with both); an empty S makes ANY false
 * and ALL true whatever x is. */
static int bind_quantified(bind_ctx *c, tn_sql_expr *e, tn_expr *x, const tn_collection *res, tn_expr **out) {
    tn_binder *b = c->b;
    tn_sql_binary_op op = e->u.in_query.op;
    bool all = e->u.in_query.all, has_null = false, any = false;
    tn_value lo, hi, v;
    memset(&lo, 0, sizeof lo);
    memset(&hi, 0, sizeof hi);
    uint64_t nrows = 0;
    for (uint32_t i = 0; i < res->nchunks; i++)
        for (uint32_t r = 0; r < res->chunks[i].count; r++) {
            nrows++;
            tn_vector_get_value(&res->chunks[i].cols[0], r, &v);
            v.type = res->types[0];
            if (v.is_null) { has_null = true; continue; }
            if (!any || tn_value_compare(&v, &lo) < 0) lo = v;
            if (!any || tn_value_compare(&v, &hi) > 0) hi = v;
            any = true;
        }
    tn_value k;
    memset(&k, 0, sizeof k);
    k.type = tn_type_make(TN_TYPE_BOOLEAN);
    if (nrows == 0) {
        tn_expr_free(x);
        k.u.b = all;
        return tn_expr_constant(out, &k);
    }
    static const char *const names[] = {"", "", "=", "<>", "<", "<=", ">", ">="};
    /* the extremes to compare with: one for the orderings, both for = and <> */
    bool use_lo, use_hi;
    if (op == TN_SQL_OP_EQ || op == TN_SQL_OP_NE) use_lo = use_hi = true;
    else if (op == TN_SQL_OP_GT || op == TN_SQL_OP_GE) use_lo = !all, use_hi = all;
    else use_lo = all, use_hi = !all;
    tn_expr *parts[3] = {NULL, NULL, NULL};
    uint32_t np = 0;
    int rc = 0;
    for (int side = 0; side < 2 && !rc; side++) {
        if (!(side == 0 ? use_lo : use_hi)) continue;
        tn_value m = side == 0 ? lo : hi;
        if (!any) {
            memset(&m, 0, sizeof m);
            m.type = res->types[0];
            m.is_null = true;
        }
        tn_expr *args[2] = {np == 0 ? x : tn_expr_copy(x), NULL};
        if (!args[0]) { rc = TN_ENOMEM; break; }
        rc = tn_expr_constant(&args[1], &m);
        if (rc) { tn_expr_free(args[0]); break; }
        rc = tn_expr_function(&parts[np], names[op], args, 2);
        if (!rc) np++;
    }
    if (np == 0) tn_expr_free(x);
    if (!rc) {
        k.is_null = has_null;
        k.u.b = all;                 /* the neutral element when S holds no NULL */
        rc = tn_expr_constant(&parts[np], &k);
        if (!rc) np++;
    }
    if (!rc) {
        /* = ALL: x = min AND x = max; <> ANY: x <> min OR x <> max */
        rc = all ? tn_expr_and(out, parts, np) : tn_expr_or(out, parts, np);
        np = 0;
    }
    for (uint32_t i = 0; i < np; i++) tn_expr_free(parts[i]);
    if (rc) rc = tn_bind_error_at(b, rc, e->pos);
    return rc;
}

static int bind_subquery_value(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    tn_collection res;
    uint32_t ncols = 0;
    tn_sql_query *q = e->kind == TN_SQL_E_IN_QUERY ? e->u.in_query.query : e->u.subquery.query;
    int rc = 0;
    if (e->kind == TN_SQL_E_SUBQUERY && c->late) {
        bool done = false;
        rc = tn_bind_scalar_decorrelate(c, q, out, &done);
        if (rc || done) return rc;
    }
    /* Correlated references make the subquery bind fail with TN_EUNSUPPORTED: the WHERE
     * decorrelation in bind_query.c handles the forms it can before we get here. */
    rc = tn_bind_run_subquery(b, q, c->scope, &res, &ncols);
    if (rc) return rc;
    if (e->kind == TN_SQL_E_EXISTS) {
        tn_value v;
        memset(&v, 0, sizeof v);
        v.type = tn_type_make(TN_TYPE_BOOLEAN);
        v.u.b = res.nrows > 0;
        tn_collection_free(&res);
        return tn_expr_constant(out, &v);
    }
    if (ncols != 1) {
        tn_collection_free(&res);
        return tn_bind_error(b, e->pos, "Subquery returns %u columns - expected 1", ncols);
    }
    if (e->kind == TN_SQL_E_SUBQUERY) {
        tn_value v;
        memset(&v, 0, sizeof v);
        v.type = res.types[0];
        v.is_null = true;
        if (res.nrows > 1 && tn_setting_bool(b->session, "scalar_subquery_error_on_multiple_rows")) {
            tn_collection_free(&res);
            return tn_bind_error(b, e->pos, "More than one row returned by a subquery used as an expression - "
                                 "scalar subqueries can only return a single row.");
        }
        if (res.nrows >= 1)       /* the first row (scalar_subquery_error_on_multiple_rows = false) */
            for (uint32_t i = 0; i < res.nchunks; i++)
                if (res.chunks[i].count) { tn_vector_get_value(&res.chunks[i].cols[0], 0, &v); break; }
        v.type = res.types[0];
        rc = tn_expr_constant(out, &v);
        tn_collection_free(&res);
        return rc;
    }
    /* x [NOT] IN (subquery) */
    tn_expr *x = NULL;
    rc = tn_bind_expr(c, e->u.in_query.arg, &x);
    if (rc) { tn_collection_free(&res); return rc; }
    if (e->u.in_query.quantified) {
        rc = bind_quantified(c, e, x, &res, out);
        tn_collection_free(&res);
        return rc;
    }
    uint64_t nv = (uint64_t)res.nrows;
    tn_value *vals = tn_malloc((nv ? nv : 1) * sizeof *vals);
    if (!vals) { tn_expr_free(x); tn_collection_free(&res); return TN_ENOMEM; }
    uint32_t k = 0;
    for (uint32_t i = 0; i < res.nchunks; i++)
        for (uint32_t r = 0; r < res.chunks[i].count; r++) {
            tn_vector_get_value(&res.chunks[i].cols[0], r, &vals[k]);
            vals[k].type = res.types[0];
            k++;
        }
    if (k == 0) {
        /* x IN (empty) is false even for NULL x; NOT IN is true */
        tn_value v;
        memset(&v, 0, sizeof v);
        v.type = tn_type_make(TN_TYPE_BOOLEAN);
        v.u.b = e->u.in_query.negated;
        tn_expr_free(x);
        rc = tn_expr_constant(out, &v);
    } else {
        rc = tn_expr_in(out, x, vals, k, e->u.in_query.negated);
        if (rc) rc = tn_bind_error_at(b, rc, e->pos);
    }
    tn_free(vals);
    tn_collection_free(&res);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * The expression binder.
 */
static int bind_in_list(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    tn_expr *x = NULL;
    int rc = tn_bind_expr(c, e->u.in_list.arg, &x);
    if (rc) return rc;
    int n = e->u.in_list.list.n;
    tn_expr **items = tn_arena_calloc(b->arena, ((size_t)n + 1) * sizeof *items);
    tn_value *vals = tn_arena_calloc(b->arena, ((size_t)n + 1) * sizeof *vals);
    if (!items || !vals) { tn_expr_free(x); return TN_ENOMEM; }
    bool all_const = true;
    for (int i = 0; i < n; i++) {
        rc = tn_bind_expr(c, e->u.in_list.list.items[i], &items[i]);
        if (!rc) rc = tn_bind_fold(b, &items[i]);
        if (rc) { tn_expr_free(x); free_args(items, i); return rc; }
        if (items[i]->kind != TN_EXPR_CONSTANT) all_const = false;
    }
    if (all_const) {
        for (int i = 0; i < n; i++) vals[i] = items[i]->u.value;
        rc = tn_expr_in(out, x, vals, (uint32_t)n, e->u.in_list.negated);
        free_args(items, n);
        if (rc) return tn_bind_error_at(b, rc, e->pos);
        return 0;
    }
    /* x = a OR x = b ... */
    tn_expr **eqs = tn_arena_calloc(b->arena, ((size_t)n + 1) * sizeof *eqs);
    if (!eqs) { tn_expr_free(x); free_args(items, n); return TN_ENOMEM; }
    for (int i = 0; i < n; i++) {
        tn_expr *xc = i == n - 1 ? x : tn_expr_copy(x);
        if (!xc) { free_args(eqs, i); free_args(items + i, n - i); tn_expr_free(x); return TN_ENOMEM; }
        tn_expr *args[2] = {xc, items[i]};
        rc = tn_expr_function(&eqs[i], "=", args, 2);
        if (rc) {
            free_args(eqs, i);
            free_args(items + i + 1, n - i - 1);
            if (i != n - 1) tn_expr_free(x);
            return tn_bind_error_at(b, rc, e->pos);
        }
    }
    tn_expr *any = NULL;
    if (n == 1) any = eqs[0];
    else {
        rc = tn_expr_or(&any, eqs, (uint32_t)n);
        if (rc) return rc;
    }
    if (e->u.in_list.negated) return tn_expr_not(out, any);
    *out = any;
    return 0;
}

static int bind_case(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    int n = e->u.case_.n_whens;
    tn_expr **whens = tn_arena_calloc(b->arena, ((size_t)n + 1) * sizeof *whens);
    tn_expr **thens = tn_arena_calloc(b->arena, ((size_t)n + 1) * sizeof *thens);
    if (!whens || !thens) return TN_ENOMEM;
    tn_expr *operand = NULL, *els = NULL;
    int rc = 0;
    if (e->u.case_.operand) {
        rc = tn_bind_expr(c, e->u.case_.operand, &operand);
        if (rc) return rc;
    }
    int i = 0;
    for (; i < n && !rc; i++) {
        tn_sql_case_when *w = &e->u.case_.whens[i];
        if (operand) {
            tn_expr *v = NULL;
            rc = tn_bind_expr(c, w->when, &v);
            if (rc) break;
            tn_expr *oc = tn_expr_copy(operand);
            if (!oc) { tn_expr_free(v); rc = TN_ENOMEM; break; }
            tn_expr *args[2] = {oc, v};
            uint8_t fl[2] = {0, is_string_literal(c, w->when) ? TN_FUNC_ARG_STRING_LITERAL : 0};
            rc = tn_expr_function_ex(&whens[i], "=", args, fl, 2);
            if (rc) { rc = tn_bind_error_at(b, rc, w->when->pos); break; }
        } else {
            rc = tn_bind_pred(c, w->when, &whens[i]);
            if (rc) break;
        }
        rc = tn_bind_expr(c, w->then, &thens[i]);
        if (rc) { tn_expr_free(whens[i]); break; }
    }
    if (!rc && e->u.case_.else_expr) rc = tn_bind_expr(c, e->u.case_.else_expr, &els);
    tn_expr_free(operand);
    if (rc) {
        int done = i;
        if (done > n) done = n;
        free_args(whens, done);
        free_args(thens, done);
        return rc;
    }
    rc = tn_expr_case(out, whens, thens, (uint32_t)n, els);
    if (rc) return tn_bind_error_at(b, rc, e->pos);
    return 0;
}

static int bind_is(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_expr *x = NULL;
    int rc = tn_bind_expr(c, e->u.is.arg, &x);
    if (rc) return rc;
    if (e->u.is.what == TN_SQL_IS_NULL) return tn_expr_is_null(out, x, e->u.is.negated);
    rc = tn_expr_cast(&x, x, tn_type_make(TN_TYPE_BOOLEAN), false);
    if (rc) return tn_bind_error_at(c->b, rc, e->pos);
    if (e->u.is.what == TN_SQL_IS_FALSE) {
        rc = tn_expr_not(&x, x);
        if (rc) return rc;
    }
    tn_expr *f = NULL;
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = tn_type_make(TN_TYPE_BOOLEAN);
    rc = tn_expr_constant(&f, &v);
    if (rc) { tn_expr_free(x); return rc; }
    tn_expr *co[2] = {x, f};
    tn_expr *r = NULL;
    rc = tn_expr_coalesce(&r, co, 2);
    if (rc) return rc;
    if (e->u.is.negated) return tn_expr_not(out, r);
    *out = r;
    return 0;
}

/* INTERVAL 'text' / INTERVAL n UNIT, as DuckDB: a unit takes a number (truncated to an integer
 * except for seconds and smaller) through to_days(...) and its kin. */
static int bind_interval(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    tn_sql_interval_unit u = e->u.interval.unit;
    if (e->u.interval.to_unit)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, e->pos, "INTERVAL ... TO ... is not supported");
    tn_expr *x = NULL;
    int rc = tn_bind_expr(c, e->u.interval.value, &x);
    if (rc) return rc;
    const char *fn = NULL;
    bool frac = false;
    switch (u) {
    case TN_SQL_UNIT_NONE: fn = "__cast_to_interval"; break;
    case TN_SQL_UNIT_YEAR: fn = "to_years"; break;
    case TN_SQL_UNIT_MONTH: fn = "to_months"; break;
    case TN_SQL_UNIT_WEEK: fn = "to_weeks"; break;
    case TN_SQL_UNIT_DAY: fn = "to_days"; break;
    case TN_SQL_UNIT_HOUR: fn = "to_hours"; break;
    case TN_SQL_UNIT_MINUTE: fn = "to_minutes"; break;
    case TN_SQL_UNIT_SECOND: fn = "to_seconds"; frac = true; break;
    case TN_SQL_UNIT_MILLISECOND: fn = "to_milliseconds"; frac = true; break;
    case TN_SQL_UNIT_MICROSECOND: fn = "to_microseconds"; frac = true; break;
    }
    if (u == TN_SQL_UNIT_NONE) {
        if (x->type.id == TN_TYPE_INTERVAL) { *out = x; return 0; }
        rc = tn_expr_cast(&x, x, tn_type_make(TN_TYPE_VARCHAR), false);
    } else {
        rc = tn_expr_cast(&x, x, tn_type_make(TN_TYPE_DOUBLE), false);
        if (!rc && !frac) {
            tn_expr *arg = x;
            x = NULL;
            rc = tn_expr_function(&x, "trunc", &arg, 1);
        }
        if (!rc && !frac) rc = tn_expr_cast(&x, x, tn_type_make(TN_TYPE_BIGINT), false);
    }
    if (!rc) {
        tn_expr *arg = x;
        rc = tn_expr_function(out, fn, &arg, 1);
    }
    if (!rc) rc = tn_bind_fold(b, out);
    if (rc) return tn_bind_error_at(b, rc, e->pos);
    return 0;
}

/* TIMESTAMP(p) with p in 0..5 (the parser refuses p > 6): round the cast's result to that many
 * fractional digits, as DuckDB's TIMESTAMP_S (p = 0) and TIMESTAMP_MS (1..3) do. DuckDB keeps
 * microseconds for 4..6 and so does tarn. The value stays a microsecond TIMESTAMP. */
static int timestamp_precision(tn_binder *b, const tn_sql_type *t, tn_expr **inout) {
    if (t->type.id != TN_TYPE_TIMESTAMP || t->n_params != 1 || t->params[0] >= 4) return 0;
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = tn_type_make(TN_TYPE_BIGINT);
    v.u.i = t->params[0] == 0 ? 1000000 : 1000;
    tn_expr *args[2] = {*inout, NULL};
    int rc = tn_expr_constant(&args[1], &v);
    if (!rc) rc = tn_expr_function(inout, "__timestamp_round", args, 2);
    else tn_expr_free(args[0]);
    if (!rc) rc = tn_bind_fold(b, inout);
    return rc;
}

/* CAST(x AS INTERVAL) and CAST(interval AS VARCHAR), which func_cast.c does not know; *done
 * false for every other cast. */
static int bind_interval_cast(bind_ctx *c, tn_sql_expr *e, tn_expr **out, bool *done) {
    tn_binder *b = c->b;
    tn_sql_type *t = e->u.cast.type;
    bool to_iv = !t->known;
    *done = false;
    tn_expr *x = NULL;
    int rc = tn_bind_expr(c, e->u.cast.arg, &x);
    if (rc) return rc;
    if (!to_iv && x->type.id != TN_TYPE_INTERVAL) {
        /* not ours: bind the cast again the usual way (the argument is bound twice, which
         * costs only time) */
        tn_expr_free(x);
        return 0;
    }
    *done = true;
    if (to_iv) {
        if (x->type.id == TN_TYPE_INTERVAL) { *out = x; return 0; }
        if (x->type.id == TN_TYPE_NULL) {
            tn_expr_free(x);
            tn_value v;
            memset(&v, 0, sizeof v);
            v.type = tn_type_make(TN_TYPE_INTERVAL);
            v.is_null = true;
            return tn_expr_constant(out, &v);
        }
        if (x->type.id != TN_TYPE_VARCHAR) {
            char tb[64];
            rc = tn_bind_error(b, e->pos, "Unimplemented type for cast (%s -> INTERVAL)", tn_type_format(x->type, tb, sizeof tb));
            tn_expr_free(x);
            return rc;
        }
        rc = tn_expr_function(out, "__cast_to_interval", &x, 1);
    } else {
        rc = tn_expr_function(out, "__cast_interval_to_varchar", &x, 1);
    }
    if (rc) return tn_bind_error_at(b, rc, e->pos);
    return 0;
}

/* Does e name a select-list alias whose expression holds an aggregate or window function?
 * (Over an aggregate such an expression binds by parts, like one that holds them itself.) */
static _Thread_local bind_ctx *g_alias_ctx;
static bool is_agg_alias(const tn_sql_expr *e) {
    int j;
    const tn_sql_select_item *it = find_alias(g_alias_ctx, e, &j);
    return it && (tn_bind_contains_agg(it->expr) || tn_bind_contains_window(it->expr));
}

int tn_bind_expr(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    int rc = 0;
    *out = NULL;
    if (++b->depth > 900) {
        b->depth--;
        return tn_bind_error_code(b, TN_ELIMIT, e->pos, "expression nested too deeply");
    }
    int alias_j = -1;
    const tn_sql_select_item *alias = find_alias(c, e, &alias_j);
    if (alias) {
        bind_scope *S = c->agg ? c->agg->pre : c->scope;
        int saved = S->alias_limit;
        S->alias_limit = alias_j;              /* no self or forward references */
        rc = tn_bind_expr(c, alias->expr, out);
        S->alias_limit = saved;
        goto done;
    }
    /* Over an aggregate: group expressions, aggregates, constants. */
    if (c->agg && !c->in_agg && !is_agg_call(e) && e->kind != TN_SQL_E_LITERAL &&
        e->kind != TN_SQL_E_PARAM && e->kind != TN_SQL_E_SUBQUERY && !tn_bind_contains_agg(e) &&
        !tn_bind_contains_window(e) && !(g_alias_ctx = c, ast_any(e, is_agg_alias))) {
        bind_ctx pc = {b, c->agg->pre, NULL, false, c->clause, NULL, NULL};
        tn_expr *x = NULL;
        rc = tn_bind_expr(&pc, e, &x);
        if (rc && rc != TN_ENOMEM && c->late && tn_bind_contains_subquery(e)) {
            /* a correlated subquery inside: bind the parts over the aggregate */
            tn_error_clear();
            rc = 0;
            goto parts;
        }
        if (rc) goto done;
        char *text = tn_bind_expr_text(b, x);
        if (!text) { tn_expr_free(x); rc = TN_ENOMEM; goto done; }
        for (uint32_t g = 0; g < c->agg->ngroups; g++)
            if (strcmp(text, c->agg->group_text[g]) == 0) {
                tn_type t = x->type;
                tn_expr_free(x);
                rc = tn_expr_column(out, g, t);
                goto done;
            }
        if (tn_expr_is_constant(x)) {
            *out = x;
            goto done;
        }
        tn_expr_free(x);
        if (e->kind == TN_SQL_E_COLUMN || e->kind == TN_SQL_E_STAR) {
            const char *col = e->kind == TN_SQL_E_COLUMN ? e->u.column.parts[e->u.column.n - 1].name : "*";
            rc = tn_bind_error(b, e->pos, "column \"%s\" must appear in the GROUP BY clause or must be part "
                               "of an aggregate function. Either add it to the GROUP BY list, or use "
                               "\"ANY_VALUE(%s)\" if the exact value of \"%s\" is not important.",
                               col, col, col);
            goto done;
        }
        /* else: bind the parts (some of them are group expressions) */
    }
parts:
    switch (e->kind) {
    case TN_SQL_E_LITERAL: rc = bind_literal(c, e, out); break;
    case TN_SQL_E_COLUMN: rc = bind_column(c, e, out); break;
    case TN_SQL_E_STAR:
        if (is_columns(e) && b->columns_pick) {
            rc = tn_bind_expr(c, b->columns_pick, out);        /* COLUMNS(...): bind_star.c */
            break;
        }
        rc = tn_bind_error(b, e->pos, is_columns(e) ? "COLUMNS(...) is allowed only in the select list"
                                                    : "* is allowed only in the select list and count(*)");
        break;
    case TN_SQL_E_PARAM: {
        int k = e->u.param.index;
        if (k >= TN_MACRO_PARAM_BASE && b->macro_frame) {      /* a macro's parameter (macro.c) */
            rc = tn_macro_param(c, k, e->pos, out);
            break;
        }
        if (k < 1 || (uint32_t)k > b->nparams) {
            rc = tn_bind_error(b, e->pos, "no value given for parameter %s%d", e->u.param.dollar ? "$" : "?", k);
            break;
        }
        rc = tn_expr_constant(out, &b->params[k - 1]);
        break;
    }
    case TN_SQL_E_UNARY: {
        tn_expr *x = NULL;
        rc = tn_bind_expr(c, e->u.unary.arg, &x);
        if (rc) break;
        if (e->u.unary.op == TN_SQL_OP_NOT) rc = tn_expr_not(out, x);
        else if (e->u.unary.op == TN_SQL_OP_PLUS) *out = x;
        else {
            rc = tn_expr_function(out, "-", &x, 1);
            if (rc) rc = tn_bind_error_at(b, rc, e->pos);
        }
        break;
    }
    case TN_SQL_E_BINARY: {
        tn_sql_binary_op op = e->u.binary.op;
        if (op == TN_SQL_OP_AND || op == TN_SQL_OP_OR) {
            /* a chain a OP b OP c ... (left-deep from the parser) becomes one n-ary node, walked
             * without recursion: a 50,000-term OR binds like the AND chain does */
            uint32_t nops = 1;
            const tn_sql_expr *l = e;
            while (l->kind == TN_SQL_E_BINARY && l->u.binary.op == op) { nops++; l = l->u.binary.left; }
            tn_sql_expr **ops = tn_arena_alloc(b->arena, (size_t)nops * sizeof *ops);
            tn_expr **args = tn_calloc(nops, sizeof *args);
            if (!ops || !args) { tn_free(args); rc = TN_ENOMEM; break; }
            uint32_t k = nops;
            tn_sql_expr *w = e;
            while (w->kind == TN_SQL_E_BINARY && w->u.binary.op == op) { ops[--k] = w->u.binary.right; w = w->u.binary.left; }
            ops[--k] = w;
            uint32_t nb = 0;
            for (; nb < nops && !rc; nb++) rc = tn_bind_expr(c, ops[nb], &args[nb]);
            if (rc) {
                for (uint32_t q = 0; q + 1 < nb; q++) tn_expr_free(args[q]);
                tn_free(args);
                break;
            }
            rc = op == TN_SQL_OP_AND ? tn_expr_and(out, args, nops) : tn_expr_or(out, args, nops);
            tn_free(args);
            if (rc) rc = tn_bind_error_at(b, rc, e->pos);
            break;
        }
        if (op == TN_SQL_OP_IS_DISTINCT || op == TN_SQL_OP_IS_NOT_DISTINCT) {
            rc = bind_distinct_from(c, e, op == TN_SQL_OP_IS_DISTINCT, out);
            break;
        }
        static const char *names[] = {"OR", "AND", "=", "<>", "<", "<=", ">", ">=", "", "", "+", "-",
                                      "*", "/", "%", "||"};
        rc = call2(c, e->pos, names[op], e->u.binary.left, e->u.binary.right, out);
        break;
    }
    case TN_SQL_E_IS: rc = bind_is(c, e, out); break;
    case TN_SQL_E_BETWEEN: {
        tn_expr *x = NULL, *lo = NULL, *hi = NULL;
        rc = tn_bind_expr(c, e->u.between.arg, &x);
        if (!rc) rc = tn_bind_expr(c, e->u.between.low, &lo);
        if (!rc) rc = tn_bind_expr(c, e->u.between.high, &hi);
        if (rc) { tn_expr_free(x); tn_expr_free(lo); break; }
        rc = tn_expr_between(out, x, lo, hi, e->u.between.negated);
        if (rc) rc = tn_bind_error_at(b, rc, e->pos);
        break;
    }
    case TN_SQL_E_IN_LIST: rc = bind_in_list(c, e, out); break;
    case TN_SQL_E_IN_QUERY:
    case TN_SQL_E_EXISTS:
    case TN_SQL_E_SUBQUERY: rc = bind_subquery_value(c, e, out); break;
    case TN_SQL_E_LIKE: {
        tn_expr *x = NULL, *p = NULL, *esc = NULL;
        rc = tn_bind_expr(c, e->u.like.arg, &x);
        if (!rc) rc = tn_bind_expr(c, e->u.like.pattern, &p);
        if (!rc && e->u.like.escape) rc = tn_bind_expr(c, e->u.like.escape, &esc);
        if (rc) { tn_expr_free(x); tn_expr_free(p); break; }
        rc = tn_expr_like(out, x, p, esc, e->u.like.ilike, e->u.like.negated);
        if (rc) rc = tn_bind_error_at(b, rc, e->pos);
        break;
    }
    case TN_SQL_E_CASE: rc = bind_case(c, e, out); break;
    case TN_SQL_E_CAST: {
        tn_sql_type *t = e->u.cast.type;
        if ((!t->known && tn_str_iequal(t->name, "INTERVAL")) ||
            (t->known && t->type.id == TN_TYPE_VARCHAR && !tn_bind_contains_subquery(e->u.cast.arg))) {
            bool done = false;
            rc = bind_interval_cast(c, e, out, &done);
            if (rc || done) break;
        }
        if (!t->known) {
            rc = tn_bind_error(b, t->pos, "Type with name %s does not exist!", t->name);
            break;
        }
        tn_expr *x = NULL;
        rc = tn_bind_expr(c, e->u.cast.arg, &x);
        if (rc) break;
        if (!tn_cast_supported(x->type, t->type) && x->type.id != TN_TYPE_NULL) {
            char a[64], bb[64];
            rc = tn_bind_error(b, e->pos, "Unimplemented type for cast (%s -> %s)",
                               tn_type_format(x->type, a, sizeof a), tn_type_format(t->type, bb, sizeof bb));
            tn_expr_free(x);
            break;
        }
        rc = tn_expr_cast(out, x, t->type, e->u.cast.try_cast);
        if (!rc) rc = timestamp_precision(b, t, out);
        if (rc) rc = tn_bind_error_at(b, rc, e->pos);
        break;
    }
    case TN_SQL_E_FUNCTION: rc = bind_function(c, e, out); break;
    case TN_SQL_E_EXTRACT: {
        tn_expr *args[2] = {NULL, NULL};
        tn_value v;
        memset(&v, 0, sizeof v);
        v.type = tn_type_make(TN_TYPE_VARCHAR);
        v.u.s.ptr = e->u.extract.field;
        v.u.s.len = (uint32_t)strlen(e->u.extract.field);
        rc = tn_expr_constant(&args[0], &v);
        if (!rc) rc = tn_bind_expr(c, e->u.extract.arg, &args[1]);
        if (rc) { tn_expr_free(args[0]); break; }
        rc = tn_expr_function(out, "extract", args, 2);
        if (rc) rc = tn_bind_error_at(b, rc, e->pos);
        break;
    }
    case TN_SQL_E_INTERVAL: rc = bind_interval(c, e, out); break;
    case TN_SQL_E_LIST: rc = tn_bind_list_literal(c, e, out); break;
    case TN_SQL_E_ROW:
        rc = tn_bind_error_code(b, TN_EUNSUPPORTED, e->pos, "row values are not supported yet");
        break;
    }
done:
    b->depth--;
    return rc;
}

int tn_bind_pred(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    int rc = tn_bind_expr(c, e, out);
    if (rc) return rc;
    if ((*out)->type.id != TN_TYPE_BOOLEAN) {
        rc = tn_expr_cast(out, *out, tn_type_make(TN_TYPE_BOOLEAN), false);
        if (rc) return tn_bind_error_at(c->b, rc, e->pos);
    }
    return 0;
}
