/*
 * sql/bind_nested.c: binding of the nested-value syntax (LIST, STRUCT, MAP): list literals
 * [a, b] / ARRAY[a, b] as list_value, struct_pack(a := x) as __struct_pack('a', x), the
 * subscript x[i] by the kind of x (list_extract, struct_extract, map_extract, else the
 * PostgreSQL array text of the catalog), and the field path s.a.b of a struct column.
 * Called from bind_expr.c; the functions themselves are in func_list.c.
 */
#include "sql/bindInt.h"

#include <string.h>

int tn_bind_list_literal(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    int n = e->u.list.n;
    if (n > TN_FUNC_MAX_ARGS)
        return tn_bind_error_code(b, TN_ELIMIT, e->pos, "a list literal takes at most %d elements", TN_FUNC_MAX_ARGS);
    tn_expr *args[TN_FUNC_MAX_ARGS];
    for (int i = 0; i < n; i++) {
        int rc = tn_bind_expr(c, e->u.list.items[i], &args[i]);
        if (rc) {
            for (int j = 0; j < i; j++) tn_expr_free(args[j]);
            return rc;
        }
    }
    int rc = tn_expr_function(out, "list_value", args, (uint32_t)n);
    return rc ? tn_bind_error_at(b, rc, e->pos) : 0;
}

int tn_bind_struct_pack_named(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    int n = e->u.func.args.n;
    if (n == 0 || 2 * n > TN_FUNC_MAX_ARGS)
        return tn_bind_error(b, e->pos, "struct_pack takes 1 to %d named arguments", TN_FUNC_MAX_ARGS / 2);
    tn_expr *args[TN_FUNC_MAX_ARGS];
    for (int i = 0; i < n; i++) {
        const tn_sql_ident *id = e->u.func.arg_names ? &e->u.func.arg_names[i] : NULL;
        const tn_sql_expr *a = e->u.func.args.items[i];
        const char *name = id && id->name ? id->name
                           : a->kind == TN_SQL_E_COLUMN ? a->u.column.parts[a->u.column.n - 1].name : NULL;
        int rc = 0;
        if (!name) rc = tn_bind_error(b, a->pos, "Need named argument for struct pack, e.g. STRUCT_PACK(a := b)");
        tn_value v;
        memset(&v, 0, sizeof v);
        v.type = tn_type_make(TN_TYPE_VARCHAR);
        if (name) {
            v.u.s.ptr = name;
            v.u.s.len = (uint32_t)strlen(name);
        }
        if (!rc) rc = tn_expr_constant(&args[2 * i], &v);
        if (!rc && (rc = tn_bind_expr(c, e->u.func.args.items[i], &args[2 * i + 1]))) tn_expr_free(args[2 * i]);
        if (rc) {
            for (int j = 0; j < 2 * i; j++) tn_expr_free(args[j]);
            return rc;
        }
    }
    int rc = tn_expr_function(out, "__struct_pack", args, (uint32_t)(2 * n));
    return rc ? tn_bind_error_at(b, rc, e->pos) : 0;
}

const char *tn_bind_subscript_function(const tn_expr *x) {
    switch (x->type.id) {
    case TN_TYPE_LIST: return "list_extract";
    case TN_TYPE_STRUCT: return "struct_extract";
    case TN_TYPE_MAP: return "map_extract_value";
    default: return "pg_array_subscript";
    }
}

int tn_bind_field_path(bind_ctx *c, tn_expr **inout, const tn_sql_ident *parts, int n, tn_sql_pos pos) {
    for (int i = 0; i < n; i++) {
        if ((*inout)->type.id != TN_TYPE_STRUCT) {
            tn_expr_free(*inout);
            *inout = NULL;
            return tn_bind_error(c->b, parts[i].pos, "Cannot extract field \"%s\" from a value that is not a STRUCT",
                                 parts[i].name);
        }
        tn_value v;
        memset(&v, 0, sizeof v);
        v.type = tn_type_make(TN_TYPE_VARCHAR);
        v.u.s.ptr = parts[i].name;
        v.u.s.len = (uint32_t)strlen(parts[i].name);
        tn_expr *args[2] = {*inout, NULL};
        *inout = NULL;
        int rc = tn_expr_constant(&args[1], &v);
        if (rc) {
            tn_expr_free(args[0]);
            return rc;
        }
        rc = tn_expr_function(inout, "struct_extract", args, 2);
        if (rc) return tn_bind_error_at(c->b, rc, parts[i].pos);
    }
    (void)pos;
    return 0;
}
