/*
 * sql/bind_name.c: result column names as DuckDB derives them from the AST (`a + 1`,
 * `count_star()`, `CAST(x AS INTEGER)`, ...), used for SELECT lists without an alias.
 */
#include <stdio.h>
#include <string.h>

#include "sql/bindInt.h"

static int name_rec(tn_buf *o, const tn_sql_expr *e);

static int name_list(tn_buf *o, const tn_sql_expr_list *l) {
    int rc = 0;
    for (int i = 0; i < l->n && !rc; i++) {
        if (i) rc = tn_buf_printf(o, ", ");
        if (!rc) rc = name_rec(o, l->items[i]);
    }
    return rc;
}

static const char *binop_text(tn_sql_binary_op op) {
    switch (op) {
    case TN_SQL_OP_OR: return "OR";
    case TN_SQL_OP_AND: return "AND";
    case TN_SQL_OP_EQ: return "=";
    case TN_SQL_OP_NE: return "!=";
    case TN_SQL_OP_LT: return "<";
    case TN_SQL_OP_LE: return "<=";
    case TN_SQL_OP_GT: return ">";
    case TN_SQL_OP_GE: return ">=";
    case TN_SQL_OP_IS_DISTINCT: return "IS DISTINCT FROM";
    case TN_SQL_OP_IS_NOT_DISTINCT: return "IS NOT DISTINCT FROM";
    case TN_SQL_OP_ADD: return "+";
    case TN_SQL_OP_SUB: return "-";
    case TN_SQL_OP_MUL: return "*";
    case TN_SQL_OP_DIV: return "/";
    case TN_SQL_OP_MOD: return "%";
    case TN_SQL_OP_CONCAT: return "||";
    }
    return "?";
}

static int name_string(tn_buf *o, const char *s, size_t n) {
    int rc = tn_buf_append_byte(o, '\'');
    for (size_t i = 0; i < n && !rc; i++) {
        if (s[i] == '\'') rc = tn_buf_append_byte(o, '\'');
        if (!rc) rc = tn_buf_append_byte(o, (uint8_t)s[i]);
    }
    if (!rc) rc = tn_buf_append_byte(o, '\'');
    return rc;
}

static int name_type(tn_buf *o, const tn_sql_type *t) {
    if (t->known) {
        char b[64];
        /* DuckDB names TIMESTAMP(p) and VARCHAR(n) with their parameter */
        if ((t->type.id == TN_TYPE_TIMESTAMP || t->type.id == TN_TYPE_VARCHAR) && t->n_params == 1)
            return tn_buf_printf(o, "%s(%lld)", tn_type_format(t->type, b, sizeof b), (long long)t->params[0]);
        return tn_buf_printf(o, "%s", tn_type_format(t->type, b, sizeof b));
    }
    return tn_buf_printf(o, "%s", t->name);
}

static int name_rec(tn_buf *o, const tn_sql_expr *e) {
    int rc = 0;
    switch (e->kind) {
    case TN_SQL_E_LITERAL:
        switch (e->u.lit.kind) {
        case TN_SQL_LIT_NULL: return tn_buf_printf(o, "NULL");
        case TN_SQL_LIT_BOOL: return tn_buf_printf(o, "CAST('%c' AS BOOLEAN)", e->u.lit.bool_value ? 't' : 'f');
        case TN_SQL_LIT_STRING: return name_string(o, e->u.lit.text, e->u.lit.len);
        case TN_SQL_LIT_BLOB: return tn_buf_printf(o, "'\\x..'::BLOB");
        case TN_SQL_LIT_TYPED:
            rc = tn_buf_printf(o, "CAST(");
            if (!rc) rc = name_string(o, e->u.lit.text, e->u.lit.len);
            if (!rc) rc = tn_buf_printf(o, " AS \"%s\")", e->u.lit.typed_as ? e->u.lit.typed_as->name : "?");
            return rc;
        default: return tn_buf_append(o, e->u.lit.text, e->u.lit.len);
        }
    case TN_SQL_E_COLUMN: {
        const tn_sql_qname *q = &e->u.column;
        return tn_buf_printf(o, "%s", q->parts[q->n - 1].name);
    }
    case TN_SQL_E_STAR: return tn_buf_printf(o, "*");
    case TN_SQL_E_PARAM:
        return e->u.param.dollar ? tn_buf_printf(o, "$%d", e->u.param.index) : tn_buf_printf(o, "?");
    case TN_SQL_E_UNARY:
        if (e->u.unary.op == TN_SQL_OP_NOT) {
            rc = tn_buf_printf(o, "(NOT ");
            if (!rc) rc = name_rec(o, e->u.unary.arg);
            if (!rc) rc = tn_buf_printf(o, ")");
            return rc;
        }
        if (e->u.unary.op == TN_SQL_OP_NEG && e->u.unary.arg->kind == TN_SQL_E_LITERAL &&
            e->u.unary.arg->u.lit.kind != TN_SQL_LIT_STRING) {
            rc = tn_buf_printf(o, "-");
            return rc ? rc : name_rec(o, e->u.unary.arg);
        }
        rc = tn_buf_printf(o, "%s(", e->u.unary.op == TN_SQL_OP_NEG ? "-" : "+");
        if (!rc) rc = name_rec(o, e->u.unary.arg);
        if (!rc) rc = tn_buf_printf(o, ")");
        return rc;
    case TN_SQL_E_BINARY:
        rc = tn_buf_printf(o, "(");
        if (!rc) rc = name_rec(o, e->u.binary.left);
        if (!rc) rc = tn_buf_printf(o, " %s ", binop_text(e->u.binary.op));
        if (!rc) rc = name_rec(o, e->u.binary.right);
        if (!rc) rc = tn_buf_printf(o, ")");
        return rc;
    case TN_SQL_E_IS: {
        static const char *w[] = {"NULL", "TRUE", "FALSE"};
        rc = tn_buf_printf(o, "(");
        if (!rc) rc = name_rec(o, e->u.is.arg);
        if (!rc) rc = tn_buf_printf(o, " IS %s%s)", e->u.is.negated ? "NOT " : "", w[e->u.is.what]);
        return rc;
    }
    case TN_SQL_E_BETWEEN:
        rc = tn_buf_printf(o, "(");
        if (!rc) rc = name_rec(o, e->u.between.arg);
        if (!rc) rc = tn_buf_printf(o, e->u.between.negated ? " NOT BETWEEN " : " BETWEEN ");
        if (!rc) rc = name_rec(o, e->u.between.low);
        if (!rc) rc = tn_buf_printf(o, " AND ");
        if (!rc) rc = name_rec(o, e->u.between.high);
        if (!rc) rc = tn_buf_printf(o, ")");
        return rc;
    case TN_SQL_E_IN_LIST:
        rc = tn_buf_printf(o, "(");
        if (!rc) rc = name_rec(o, e->u.in_list.arg);
        if (!rc) rc = tn_buf_printf(o, e->u.in_list.negated ? " NOT IN (" : " IN (");
        if (!rc) rc = name_list(o, &e->u.in_list.list);
        if (!rc) rc = tn_buf_printf(o, "))");
        return rc;
    case TN_SQL_E_IN_QUERY:
        rc = tn_buf_printf(o, "(");
        if (!rc) rc = name_rec(o, e->u.in_query.arg);
        static const char *const ops[] = {"", "", "=", "<>", "<", "<=", ">", ">="};
        if (!rc && e->u.in_query.quantified)
            rc = tn_buf_printf(o, " %s %s (SELECT ...))", e->u.in_query.op <= TN_SQL_OP_GE ? ops[e->u.in_query.op] : "?",
                               e->u.in_query.all ? "ALL" : "ANY");
        else if (!rc) rc = tn_buf_printf(o, e->u.in_query.negated ? " NOT IN (SELECT ...))" : " IN (SELECT ...))");
        return rc;
    case TN_SQL_E_LIKE:
        rc = tn_buf_printf(o, "(");
        if (!rc) rc = name_rec(o, e->u.like.arg);
        if (!rc) rc = tn_buf_printf(o, " %s%s ", e->u.like.negated ? "!" : "", e->u.like.ilike ? "~~*" : "~~");
        if (!rc) rc = name_rec(o, e->u.like.pattern);
        if (!rc) rc = tn_buf_printf(o, ")");
        return rc;
    case TN_SQL_E_EXISTS: return tn_buf_printf(o, "EXISTS(SELECT ...)");
    case TN_SQL_E_SUBQUERY: return tn_buf_printf(o, "(SELECT ...)");
    case TN_SQL_E_CASE:
        rc = tn_buf_printf(o, "CASE ");
        for (int i = 0; i < e->u.case_.n_whens && !rc; i++) {
            rc = tn_buf_printf(o, " WHEN (");
            if (e->u.case_.operand) {
                if (!rc) rc = tn_buf_printf(o, "(");
                if (!rc) rc = name_rec(o, e->u.case_.operand);
                if (!rc) rc = tn_buf_printf(o, " = ");
                if (!rc) rc = name_rec(o, e->u.case_.whens[i].when);
                if (!rc) rc = tn_buf_printf(o, ")");
            } else if (!rc) rc = name_rec(o, e->u.case_.whens[i].when);
            if (!rc) rc = tn_buf_printf(o, ") THEN (");
            if (!rc) rc = name_rec(o, e->u.case_.whens[i].then);
            if (!rc) rc = tn_buf_printf(o, ")");
        }
        if (!rc) rc = tn_buf_printf(o, " ELSE ");
        if (!rc) rc = e->u.case_.else_expr ? name_rec(o, e->u.case_.else_expr) : tn_buf_printf(o, "NULL");
        if (!rc) rc = tn_buf_printf(o, " END");
        return rc;
    case TN_SQL_E_CAST:
        rc = tn_buf_printf(o, "%s(", e->u.cast.try_cast ? "TRY_CAST" : "CAST");
        if (!rc) rc = name_rec(o, e->u.cast.arg);
        if (!rc) rc = tn_buf_printf(o, " AS ");
        if (!rc) rc = name_type(o, e->u.cast.type);
        if (!rc) rc = tn_buf_printf(o, ")");
        return rc;
    case TN_SQL_E_FUNCTION: {
        const char *n = tn_bind_func_name(e);
        if (e->u.func.star || (tn_str_iequal(n, "count") && e->u.func.args.n == 0))
            rc = tn_buf_printf(o, "count_star()");
        else {
            if (tn_str_iequal(n, "coalesce")) n = "COALESCE";
            else if (tn_str_iequal(n, "nullif")) n = "NULLIF";
            rc = tn_buf_printf(o, "%s(%s", n, e->u.func.distinct ? "DISTINCT " : "");
            if (!rc) rc = name_list(o, &e->u.func.args);
            if (!rc) rc = tn_buf_printf(o, ")");
        }
        if (!rc && e->u.func.filter) {
            rc = tn_buf_printf(o, " FILTER (WHERE ");
            if (!rc) rc = name_rec(o, e->u.func.filter);
            if (!rc) rc = tn_buf_printf(o, ")");
        }
        return rc;
    }
    case TN_SQL_E_EXTRACT:
        rc = tn_buf_printf(o, "date_part('%s', ", e->u.extract.field);
        if (!rc) rc = name_rec(o, e->u.extract.arg);
        if (!rc) rc = tn_buf_printf(o, ")");
        return rc;
    case TN_SQL_E_INTERVAL: {
        static const char *fn[] = {"", "to_years", "to_months", "to_weeks", "to_days", "to_hours", "to_minutes",
                                   "to_seconds", "to_milliseconds", "to_microseconds"};
        tn_sql_interval_unit u = e->u.interval.unit;
        if (u == TN_SQL_UNIT_NONE) {
            rc = tn_buf_printf(o, "CAST(");
            if (!rc) rc = name_rec(o, e->u.interval.value);
            if (!rc) rc = tn_buf_printf(o, " AS INTERVAL)");
            return rc;
        }
        bool frac = u >= TN_SQL_UNIT_SECOND;
        rc = tn_buf_printf(o, "%s(%sCAST(", fn[u], frac ? "" : "CAST(trunc(");
        if (!rc) rc = name_rec(o, e->u.interval.value);
        if (!rc) rc = tn_buf_printf(o, frac ? " AS DOUBLE))" : " AS DOUBLE)) AS INTEGER))");
        return rc;
    }
    case TN_SQL_E_LIST:
        rc = tn_buf_printf(o, "[");
        if (!rc) rc = name_list(o, &e->u.list);
        if (!rc) rc = tn_buf_printf(o, "]");
        return rc;
    case TN_SQL_E_ROW:
        rc = tn_buf_printf(o, "ROW(");
        if (!rc) rc = name_list(o, &e->u.list);
        if (!rc) rc = tn_buf_printf(o, ")");
        return rc;
    }
    return 0;
}

int tn_bind_expr_name(tn_buf *out, const tn_sql_expr *e) { return name_rec(out, e); }
