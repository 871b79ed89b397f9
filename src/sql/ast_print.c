/*
 * sql/ast_print.c: a deterministic S-expression dump of the syntax tree (tests, debugging).
 * Owns only the text format below; it reads the tree and never changes it.
 *
 *   literals     (int 42) (dec 1.50) (float 1e3) (str 'it''s') (blob X'CAFE') null true false
 *                (lit DATE '2024-01-01')  (interval (str '1') day) (list ...) (row ...)
 *   names        (col a) (col t.a) (col "Mixed") * (star t) (param 1)
 *   operators    (+ a b) (|| a b) (= a b) (<> a b) (and a b) (or a b) (not a) (neg a)
 *                (is-null a) (is-not-null a) (is-distinct a b) (between a lo hi)
 *                (in a x y) (not-in a (select ...)) (like a p [(escape e)]) (ilike ...)
 *                (exists Q) (subquery Q) (case [(operand x)] (when c r)... [(else e)])
 *                (cast a TYPE) (try-cast a TYPE) (extract year a)
 *                (func name [distinct] args... [(named k v)] [(order-by ..)] [(filter e)] [(over ..)])
 *   queries      (select [distinct] (items e (as e alias)...) (from REF) (where e) (group-by e...)
 *                  (having e) (order-by e (desc e) (asc e nulls-last)) (limit e) (offset e))
 *                (union-all Q Q ...tail) (values (row ...)...) (with [recursive] (name Q)... BODY)
 *   FROM items   (table a.b [(version-as-of e)] [(sample 1 percent)] [(as x [cols])])
 *                (tablefunc (func ...) ...) (subquery Q ...) (join KIND L R [(on e)|(using a b)])
 *   statements   (create-table ...) (insert t ...) (insert-overwrite t ...) (upsert t ...) etc.
 */
#include "sql/parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct printer {
    tn_buf *out;
    int rc;
} printer;

static void put(printer *pr, const char *s) {
    if (!pr->rc) pr->rc = tn_buf_append(pr->out, s, strlen(s));
}

static void putf(printer *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(printer *pr, const char *fmt, ...) {
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        put(pr, tmp);
        return;
    }
    /* Longer than the scratch buffer: format straight into the output. */
    va_start(ap, fmt);
    char *big = tn_malloc((size_t)n + 1);
    if (big) {
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        put(pr, big);
        tn_free(big);
    } else if (!pr->rc) {
        pr->rc = TN_ENOMEM;
    }
    va_end(ap);
}

/* 'text' with '' doubling; bytes outside printable ASCII as \xNN. */
static void put_string(printer *pr, const char *s, size_t len) {
    put(pr, "'");
    for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)s[k];
        if (c == '\'') put(pr, "''");
        else if (c == '\\') put(pr, "\\\\");
        else if (c < 0x20 || c == 0x7f) putf(pr, "\\x%02X", c);
        else if (!pr->rc) pr->rc = tn_buf_append_byte(pr->out, c);
    }
    put(pr, "'");
}

static void put_ident(printer *pr, const tn_sql_ident *id) {
    if (!id->name) {
        put(pr, "?");
        return;
    }
    if (!id->quoted) {
        put(pr, id->name);
        return;
    }
    put(pr, "\"");
    for (const char *s = id->name; *s; s++) {
        if (*s == '"') put(pr, "\"\"");
        else if (!pr->rc) pr->rc = tn_buf_append_byte(pr->out, (uint8_t)*s);
    }
    put(pr, "\"");
}

static void put_qname(printer *pr, const tn_sql_qname *q) {
    for (int k = 0; k < q->n; k++) {
        if (k) put(pr, ".");
        put_ident(pr, &q->parts[k]);
    }
}

static void put_idents(printer *pr, const char *tag, const tn_sql_ident *ids, int n) {
    if (!n) return;
    putf(pr, " (%s", tag);
    for (int k = 0; k < n; k++) {
        put(pr, " ");
        put_ident(pr, &ids[k]);
    }
    put(pr, ")");
}

static void put_type(printer *pr, const tn_sql_type *t) {
    put(pr, t->name ? t->name : "?");
    if (t->n_params) {
        putf(pr, "(%lld", (long long)t->params[0]);
        if (t->n_params > 1) putf(pr, ",%lld", (long long)t->params[1]);
        put(pr, ")");
    }
}

static void put_options(printer *pr, const char *tag, const tn_sql_options *o) {
    if (!o->n) return;
    putf(pr, " (%s", tag);
    for (int k = 0; k < o->n; k++) {
        const tn_sql_option *op = &o->items[k];
        put(pr, " (");
        put_string(pr, op->key, strlen(op->key));
        switch (op->kind) {
        case TN_SQL_VALUE_NONE: break;
        case TN_SQL_VALUE_STRING: put(pr, " "); put_string(pr, op->value, strlen(op->value)); break;
        case TN_SQL_VALUE_NULL: put(pr, " null"); break;
        default: put(pr, " "); put(pr, op->value); break;
        }
        put(pr, ")");
    }
    put(pr, ")");
}

static void expr(printer *pr, const tn_sql_expr *e);
static void query(printer *pr, const tn_sql_query *q);
static void stmt(printer *pr, const tn_sql_stmt *s);

static void expr_list(printer *pr, const tn_sql_expr_list *l) {
    for (int k = 0; k < l->n; k++) {
        put(pr, " ");
        expr(pr, l->items[k]);
    }
}

static void order_list(printer *pr, const tn_sql_order_list *l) {
    if (!l->n) return;
    put(pr, " (order-by");
    for (int k = 0; k < l->n; k++) {
        const tn_sql_order_item *it = &l->items[k];
        put(pr, " ");
        if (!it->desc && !it->nulls) {
            expr(pr, it->expr);
            continue;
        }
        put(pr, it->desc ? "(desc " : "(asc ");
        expr(pr, it->expr);
        if (it->nulls) put(pr, it->nulls == 1 ? " nulls-first" : " nulls-last");
        put(pr, ")");
    }
    put(pr, ")");
}

static const char *binary_name(tn_sql_binary_op op) {
    static const char *const names[] = {
        [TN_SQL_OP_OR] = "or",   [TN_SQL_OP_AND] = "and", [TN_SQL_OP_EQ] = "=",  [TN_SQL_OP_NE] = "<>",
        [TN_SQL_OP_LT] = "<",    [TN_SQL_OP_LE] = "<=",   [TN_SQL_OP_GT] = ">",  [TN_SQL_OP_GE] = ">=",
        [TN_SQL_OP_IS_DISTINCT] = "is-distinct", [TN_SQL_OP_IS_NOT_DISTINCT] = "is-not-distinct",
        [TN_SQL_OP_ADD] = "+",   [TN_SQL_OP_SUB] = "-",   [TN_SQL_OP_MUL] = "*", [TN_SQL_OP_DIV] = "/",
        [TN_SQL_OP_MOD] = "%",   [TN_SQL_OP_CONCAT] = "||",
    };
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

static const char *unit_name(tn_sql_interval_unit u) {
    static const char *const names[] = {"", "year", "month", "week", "day", "hour", "minute",
                                        "second", "millisecond", "microsecond"};
    return (unsigned)u < sizeof names / sizeof names[0] ? names[u] : "?";
}

static const char *bound_name(tn_sql_frame_bound_kind k) {
    switch (k) {
    case TN_SQL_BOUND_UNBOUNDED_PRECEDING: return "unbounded-preceding";
    case TN_SQL_BOUND_PRECEDING: return "preceding";
    case TN_SQL_BOUND_CURRENT_ROW: return "current-row";
    case TN_SQL_BOUND_FOLLOWING: return "following";
    case TN_SQL_BOUND_UNBOUNDED_FOLLOWING: return "unbounded-following";
    default: return "none";
    }
}

static void window(printer *pr, const tn_sql_window *w) {
    put(pr, " (over");
    if (w->name.name) {
        put(pr, " ");
        put_ident(pr, &w->name);
    }
    if (w->partition_by.n) {
        put(pr, " (partition-by");
        expr_list(pr, &w->partition_by);
        put(pr, ")");
    }
    order_list(pr, &w->order_by);
    if (w->frame_mode) {
        static const char *const modes[] = {"", "rows", "range", "groups"};
        putf(pr, " (frame %s (%s", modes[w->frame_mode & 3], bound_name(w->start_kind));
        if (w->start_offset) { put(pr, " "); expr(pr, w->start_offset); }
        put(pr, ")");
        if (w->end_kind != TN_SQL_BOUND_NONE) {
            putf(pr, " (%s", bound_name(w->end_kind));
            if (w->end_offset) { put(pr, " "); expr(pr, w->end_offset); }
            put(pr, ")");
        }
        put(pr, ")");
    }
    put(pr, ")");
}

static void literal(printer *pr, const tn_sql_expr *e) {
    switch (e->u.lit.kind) {
    case TN_SQL_LIT_NULL: put(pr, "null"); break;
    case TN_SQL_LIT_BOOL: put(pr, e->u.lit.bool_value ? "true" : "false"); break;
    case TN_SQL_LIT_INTEGER: putf(pr, "(int %s)", e->u.lit.text); break;
    case TN_SQL_LIT_DECIMAL: putf(pr, "(dec %s)", e->u.lit.text); break;
    case TN_SQL_LIT_FLOAT: putf(pr, "(float %s)", e->u.lit.text); break;
    case TN_SQL_LIT_STRING:
        put(pr, "(str ");
        put_string(pr, e->u.lit.text, e->u.lit.len);
        put(pr, ")");
        break;
    case TN_SQL_LIT_BLOB:
        put(pr, "(blob X'");
        for (size_t k = 0; k < e->u.lit.len; k++) putf(pr, "%02X", (unsigned char)e->u.lit.text[k]);
        put(pr, "')");
        break;
    case TN_SQL_LIT_TYPED:
        put(pr, "(lit ");
        put_type(pr, e->u.lit.typed_as);
        put(pr, " ");
        put_string(pr, e->u.lit.text, e->u.lit.len);
        put(pr, ")");
        break;
    }
}

static void expr(printer *pr, const tn_sql_expr *e) {
    if (!e) {
        put(pr, "<null>");
        return;
    }
    switch (e->kind) {
    case TN_SQL_E_LITERAL:
        literal(pr, e);
        break;
    case TN_SQL_E_COLUMN:
        put(pr, "(col ");
        put_qname(pr, &e->u.column);
        put(pr, ")");
        break;
    case TN_SQL_E_STAR:
        if (!e->u.star.qual.n) {
            put(pr, "*");
            break;
        }
        put(pr, "(star ");
        put_qname(pr, &e->u.star.qual);
        put(pr, ")");
        break;
    case TN_SQL_E_PARAM:
        putf(pr, "(param %d)", e->u.param.index);
        break;
    case TN_SQL_E_UNARY:
        put(pr, e->u.unary.op == TN_SQL_OP_NOT ? "(not " : e->u.unary.op == TN_SQL_OP_NEG ? "(neg " : "(pos ");
        expr(pr, e->u.unary.arg);
        put(pr, ")");
        break;
    case TN_SQL_E_BINARY:
        putf(pr, "(%s ", binary_name(e->u.binary.op));
        expr(pr, e->u.binary.left);
        put(pr, " ");
        expr(pr, e->u.binary.right);
        put(pr, ")");
        break;
    case TN_SQL_E_IS: {
        static const char *const what[] = {"null", "true", "false"};
        putf(pr, "(is-%s%s ", e->u.is.negated ? "not-" : "", what[e->u.is.what % 3]);
        expr(pr, e->u.is.arg);
        put(pr, ")");
        break;
    }
    case TN_SQL_E_BETWEEN:
        put(pr, e->u.between.negated ? "(not-between " : "(between ");
        expr(pr, e->u.between.arg);
        put(pr, " ");
        expr(pr, e->u.between.low);
        put(pr, " ");
        expr(pr, e->u.between.high);
        put(pr, ")");
        break;
    case TN_SQL_E_IN_LIST:
        put(pr, e->u.in_list.negated ? "(not-in " : "(in ");
        expr(pr, e->u.in_list.arg);
        expr_list(pr, &e->u.in_list.list);
        put(pr, ")");
        break;
    case TN_SQL_E_IN_QUERY:
        put(pr, e->u.in_query.quantified ? (e->u.in_query.all ? "(all " : "(any ")
                : e->u.in_query.negated ? "(not-in " : "(in ");
        expr(pr, e->u.in_query.arg);
        put(pr, " ");
        query(pr, e->u.in_query.query);
        put(pr, ")");
        break;
    case TN_SQL_E_LIKE:
        putf(pr, "(%s%s ", e->u.like.negated ? "not-" : "", e->u.like.ilike ? "ilike" : "like");
        expr(pr, e->u.like.arg);
        put(pr, " ");
        expr(pr, e->u.like.pattern);
        if (e->u.like.escape) {
            put(pr, " (escape ");
            expr(pr, e->u.like.escape);
            put(pr, ")");
        }
        put(pr, ")");
        break;
    case TN_SQL_E_EXISTS:
    case TN_SQL_E_SUBQUERY:
        put(pr, e->kind == TN_SQL_E_EXISTS ? "(exists " : "(subquery ");
        query(pr, e->u.subquery.query);
        put(pr, ")");
        break;
    case TN_SQL_E_CASE:
        put(pr, "(case");
        if (e->u.case_.operand) {
            put(pr, " (operand ");
            expr(pr, e->u.case_.operand);
            put(pr, ")");
        }
        for (int k = 0; k < e->u.case_.n_whens; k++) {
            put(pr, " (when ");
            expr(pr, e->u.case_.whens[k].when);
            put(pr, " ");
            expr(pr, e->u.case_.whens[k].then);
            put(pr, ")");
        }
        if (e->u.case_.else_expr) {
            put(pr, " (else ");
            expr(pr, e->u.case_.else_expr);
            put(pr, ")");
        }
        put(pr, ")");
        break;
    case TN_SQL_E_CAST:
        put(pr, e->u.cast.try_cast ? "(try-cast " : "(cast ");
        expr(pr, e->u.cast.arg);
        put(pr, " ");
        put_type(pr, e->u.cast.type);
        put(pr, ")");
        break;
    case TN_SQL_E_FUNCTION:
        put(pr, "(func ");
        put_qname(pr, &e->u.func.name);
        if (e->u.func.distinct) put(pr, " distinct");
        if (e->u.func.star) put(pr, " *");
        for (int k = 0; k < e->u.func.args.n; k++) {
            put(pr, " ");
            const tn_sql_ident *nm = e->u.func.arg_names ? &e->u.func.arg_names[k] : NULL;
            if (nm && nm->name) {
                put(pr, "(named ");
                put_ident(pr, nm);
                put(pr, " ");
            }
            expr(pr, e->u.func.args.items[k]);
            if (nm && nm->name) put(pr, ")");
        }
        order_list(pr, &e->u.func.order_by);
        if (e->u.func.filter) {
            put(pr, " (filter ");
            expr(pr, e->u.func.filter);
            put(pr, ")");
        }
        if (e->u.func.over) window(pr, e->u.func.over);
        put(pr, ")");
        break;
    case TN_SQL_E_EXTRACT:
        putf(pr, "(extract %s ", e->u.extract.field);
        expr(pr, e->u.extract.arg);
        put(pr, ")");
        break;
    case TN_SQL_E_INTERVAL:
        put(pr, "(interval ");
        expr(pr, e->u.interval.value);
        if (e->u.interval.unit) putf(pr, " %s", unit_name(e->u.interval.unit));
        if (e->u.interval.to_unit) putf(pr, " %s", unit_name(e->u.interval.to_unit));
        put(pr, ")");
        break;
    case TN_SQL_E_LIST:
    case TN_SQL_E_ROW:
        put(pr, e->kind == TN_SQL_E_LIST ? "(list" : "(row");
        expr_list(pr, &e->u.list);
        put(pr, ")");
        break;
    }
}

static void tableref(printer *pr, const tn_sql_tableref *r) {
    static const char *const joins[] = {"inner", "left", "right", "full", "cross", "semi", "anti"};
    switch (r->kind) {
    case TN_SQL_T_TABLE:
        put(pr, "(table ");
        put_qname(pr, &r->u.table.name);
        if (r->u.table.travel != TN_SQL_TT_NONE) {
            put(pr, r->u.table.travel == TN_SQL_TT_VERSION ? " (version-as-of " : " (timestamp-as-of ");
            expr(pr, r->u.table.travel_expr);
            put(pr, ")");
        }
        break;
    case TN_SQL_T_FUNCTION:
        put(pr, "(tablefunc ");
        expr(pr, r->u.function);
        break;
    case TN_SQL_T_SUBQUERY:
        put(pr, r->u.subquery.lateral ? "(lateral " : "(subquery ");
        query(pr, r->u.subquery.query);
        break;
    case TN_SQL_T_JOIN:
        putf(pr, "(join %s%s ", r->u.join.natural ? "natural-" : "", joins[r->u.join.kind % 7]);
        tableref(pr, r->u.join.left);
        put(pr, " ");
        tableref(pr, r->u.join.right);
        if (r->u.join.on) {
            put(pr, " (on ");
            expr(pr, r->u.join.on);
            put(pr, ")");
        }
        put_idents(pr, "using", r->u.join.using_cols, r->u.join.n_using);
        break;
    }
    if (r->sample) {
        put(pr, " (sample ");
        expr(pr, r->sample->size);
        put(pr, r->sample->rows ? " rows" : " percent");
        if (r->sample->method.name) {
            put(pr, " (method ");
            put_ident(pr, &r->sample->method);
            put(pr, ")");
        }
        if (r->sample->seed) {
            put(pr, " (repeatable ");
            expr(pr, r->sample->seed);
            put(pr, ")");
        }
        put(pr, ")");
    }
    if (r->alias.name) {
        put(pr, " (as ");
        put_ident(pr, &r->alias);
        for (int k = 0; k < r->n_col_aliases; k++) {
            put(pr, " ");
            put_ident(pr, &r->col_aliases[k]);
        }
        put(pr, ")");
    }
    put(pr, ")");
}

static void query(printer *pr, const tn_sql_query *q) {
    if (q->n_ctes) {
        put(pr, q->recursive ? "(with recursive" : "(with");
        for (int k = 0; k < q->n_ctes; k++) {
            put(pr, " (");
            put_ident(pr, &q->ctes[k].name);
            put_idents(pr, "columns", q->ctes[k].columns, q->ctes[k].n_columns);
            put(pr, " ");
            query(pr, q->ctes[k].query);
            put(pr, ")");
        }
        put(pr, " ");
    }
    switch (q->kind) {
    case TN_SQL_Q_SELECT: {
        const tn_sql_select *s = &q->u.select;
        put(pr, s->distinct ? "(select distinct (items" : "(select (items");
        for (int k = 0; k < s->n_items; k++) {
            put(pr, " ");
            if (s->items[k].alias.name) {
                put(pr, "(as ");
                expr(pr, s->items[k].expr);
                put(pr, " ");
                put_ident(pr, &s->items[k].alias);
                put(pr, ")");
            } else {
                expr(pr, s->items[k].expr);
            }
        }
        put(pr, ")");
        if (s->from) {
            put(pr, " (from ");
            tableref(pr, s->from);
            put(pr, ")");
        }
        if (s->where) {
            put(pr, " (where ");
            expr(pr, s->where);
            put(pr, ")");
        }
        if (s->group_by.n) {
            put(pr, " (group-by");
            expr_list(pr, &s->group_by);
            put(pr, ")");
        }
        if (s->having) {
            put(pr, " (having ");
            expr(pr, s->having);
            put(pr, ")");
        }
        break;
    }
    case TN_SQL_Q_SETOP: {
        static const char *const ops[] = {"union", "intersect", "except"};
        putf(pr, "(%s%s ", ops[q->u.setop.op % 3], q->u.setop.all ? "-all" : "");
        query(pr, q->u.setop.left);
        put(pr, " ");
        query(pr, q->u.setop.right);
        break;
    }
    case TN_SQL_Q_VALUES:
        put(pr, "(values");
        for (int k = 0; k < q->u.values.n_rows; k++) {
            put(pr, " (row");
            expr_list(pr, &q->u.values.rows[k]);
            put(pr, ")");
        }
        break;
    }
    order_list(pr, &q->order_by);
    if (q->limit) {
        put(pr, " (limit ");
        expr(pr, q->limit);
        put(pr, ")");
    }
    if (q->offset) {
        put(pr, " (offset ");
        expr(pr, q->offset);
        put(pr, ")");
    }
    put(pr, ")");
    if (q->n_ctes) put(pr, ")");
}

static void column_def(printer *pr, const tn_sql_column_def *c) {
    put(pr, "(col ");
    put_ident(pr, &c->name);
    put(pr, " ");
    put_type(pr, c->type);
    if (c->not_null) put(pr, " not-null");
    if (c->primary_key) put(pr, " primary-key");
    if (c->default_expr) {
        put(pr, " (default ");
        expr(pr, c->default_expr);
        put(pr, ")");
    }
    if (c->comment) {
        put(pr, " (comment ");
        put_string(pr, c->comment, strlen(c->comment));
        put(pr, ")");
    }
    put(pr, ")");
}

static void tagged_string(printer *pr, const char *tag, const char *s) {
    if (!s) return;
    putf(pr, " (%s ", tag);
    put_string(pr, s, strlen(s));
    put(pr, ")");
}

static void tagged_expr(printer *pr, const char *tag, const tn_sql_expr *e) {
    if (!e) return;
    putf(pr, " (%s ", tag);
    expr(pr, e);
    put(pr, ")");
}

static void stmt(printer *pr, const tn_sql_stmt *s) {
    switch (s->kind) {
    case TN_SQL_S_QUERY:
        query(pr, s->u.query);
        return;
    case TN_SQL_S_CREATE_TABLE: {
        const __typeof__(s->u.create_table) *c = &s->u.create_table;
        put(pr, "(create-table ");
        put_qname(pr, &c->name);
        if (c->if_not_exists) put(pr, " if-not-exists");
        if (c->or_replace) put(pr, " or-replace");
        if (c->temporary) put(pr, " temporary");
        if (c->n_columns) {
            put(pr, " (columns");
            for (int k = 0; k < c->n_columns; k++) {
                put(pr, " ");
                column_def(pr, &c->columns[k]);
            }
            put(pr, ")");
        }
        if (c->pk_columns) {
            put(pr, " (primary-key");
            if (c->pk_name.name) {
                put(pr, " ");
                put_ident(pr, &c->pk_name);
            }
            put_idents(pr, "columns", c->pk_columns, c->n_pk_columns);
            if (c->pk_not_enforced) put(pr, " not-enforced");
            put(pr, ")");
        }
        if (c->using_format.name) {
            put(pr, " (using ");
            put_ident(pr, &c->using_format);
            put(pr, ")");
        }
        put_idents(pr, "partitioned-by", c->partitioned_by, c->n_partitioned_by);
        put_options(pr, "options", &c->options);
        tagged_string(pr, "location", c->location);
        tagged_string(pr, "comment", c->comment);
        if (c->as_query) {
            put(pr, " (as ");
            query(pr, c->as_query);
            put(pr, ")");
        }
        break;
    }
    case TN_SQL_S_CREATE_VIEW:
        put(pr, "(create-view ");
        put_qname(pr, &s->u.create_view.name);
        if (s->u.create_view.if_not_exists) put(pr, " if-not-exists");
        if (s->u.create_view.or_replace) put(pr, " or-replace");
        if (s->u.create_view.temporary) put(pr, " temporary");
        put_idents(pr, "columns", s->u.create_view.columns, s->u.create_view.n_columns);
        put(pr, " ");
        query(pr, s->u.create_view.query);
        break;
    case TN_SQL_S_CREATE_SCHEMA:
        put(pr, "(create-schema ");
        put_qname(pr, &s->u.create_schema.name);
        if (s->u.create_schema.if_not_exists) put(pr, " if-not-exists");
        break;
    case TN_SQL_S_DROP: {
        static const char *const objs[] = {"table", "view", "schema"};
        putf(pr, "(drop %s ", objs[s->u.drop.object % 3]);
        put_qname(pr, &s->u.drop.name);
        if (s->u.drop.if_exists) put(pr, " if-exists");
        if (s->u.drop.cascade) put(pr, " cascade");
        break;
    }
    case TN_SQL_S_INSERT: {
        const __typeof__(s->u.insert) *in = &s->u.insert;
        put(pr, in->upsert ? "(upsert " : in->overwrite ? "(insert-overwrite " : "(insert ");
        put_qname(pr, &in->table);
        for (int k = 0; k < in->n_hints; k++) {
            char tag[96];
            snprintf(tag, sizeof tag, "hint %s", in->hints[k].name);
            if (in->hints[k].args.n) put_options(pr, tag, &in->hints[k].args);
            else putf(pr, " (%s)", tag);
        }
        if (in->n_partition) {
            put(pr, " (partition");
            for (int k = 0; k < in->n_partition; k++) {
                put(pr, " (");
                put_ident(pr, &in->partition[k].column);
                if (in->partition[k].value) {
                    put(pr, " ");
                    expr(pr, in->partition[k].value);
                }
                put(pr, ")");
            }
            put(pr, ")");
        }
        put_idents(pr, "columns", in->columns, in->n_columns);
        put(pr, " ");
        query(pr, in->query);
        break;
    }
    case TN_SQL_S_DELETE:
        put(pr, "(delete ");
        put_qname(pr, &s->u.delete_.table);
        if (s->u.delete_.alias.name) {
            put(pr, " (as ");
            put_ident(pr, &s->u.delete_.alias);
            put(pr, ")");
        }
        tagged_expr(pr, "where", s->u.delete_.where);
        break;
    case TN_SQL_S_UPDATE:
        put(pr, "(update ");
        put_qname(pr, &s->u.update.table);
        if (s->u.update.alias.name) {
            put(pr, " (as ");
            put_ident(pr, &s->u.update.alias);
            put(pr, ")");
        }
        put(pr, " (set");
        for (int k = 0; k < s->u.update.n_sets; k++) {
            put(pr, " (");
            put_ident(pr, &s->u.update.set_columns[k]);
            put(pr, " ");
            expr(pr, s->u.update.set_values[k]);
            put(pr, ")");
        }
        put(pr, ")");
        tagged_expr(pr, "where", s->u.update.where);
        break;
    case TN_SQL_S_MERGE: {
        static const char *const when[] = {"matched", "not-matched", "not-matched-by-source"};
        static const char *const action[] = {"update", "delete", "insert"};
        put(pr, "(merge ");
        put_qname(pr, &s->u.merge.table);
        if (s->u.merge.alias.name) {
            put(pr, " (as ");
            put_ident(pr, &s->u.merge.alias);
            put(pr, ")");
        }
        put(pr, " (using ");
        tableref(pr, s->u.merge.source);
        put(pr, ")");
        tagged_expr(pr, "on", s->u.merge.on);
        for (int k = 0; k < s->u.merge.n_clauses; k++) {
            const tn_sql_merge_clause *c = &s->u.merge.clauses[k];
            put(pr, " (");
            put(pr, when[c->when]);
            put(pr, " ");
            put(pr, action[c->action]);
            if (c->star) put(pr, " *");
            for (int i = 0; i < c->n_columns; i++) {
                put(pr, " ");
                put_ident(pr, &c->columns[i]);
            }
            for (int i = 0; i < c->n_values; i++) {
                put(pr, " ");
                expr(pr, c->values[i]);
            }
            tagged_expr(pr, "and", c->cond);
            put(pr, ")");
        }
        put(pr, ")");
        break;
    }
    case TN_SQL_S_ALTER_TABLE:
        put(pr, "(alter-table ");
        put_qname(pr, &s->u.alter.table);
        switch (s->u.alter.action) {
        case TN_SQL_ALTER_SET_OPTIONS:
            put_options(pr, "set-options", &s->u.alter.options);
            break;
        case TN_SQL_ALTER_ADD_COLUMN:
            put(pr, s->u.alter.if_exists ? " (add-column if-not-exists " : " (add-column ");
            column_def(pr, &s->u.alter.column);
            put(pr, ")");
            break;
        case TN_SQL_ALTER_DROP_COLUMN:
            put(pr, s->u.alter.if_exists ? " (drop-column if-exists " : " (drop-column ");
            put_ident(pr, &s->u.alter.column.name);
            put(pr, ")");
            break;
        case TN_SQL_ALTER_RENAME_TO:
            put(pr, " (rename-to ");
            put_qname(pr, &s->u.alter.new_name);
            put(pr, ")");
            break;
        case TN_SQL_ALTER_RENAME_COLUMN:
            put(pr, " (rename-column ");
            put_ident(pr, &s->u.alter.column.name);
            put(pr, " ");
            put_ident(pr, &s->u.alter.new_column);
            put(pr, ")");
            break;
        case TN_SQL_ALTER_UNSET_OPTIONS:
            put_options(pr, s->u.alter.if_exists ? "unset-options if-exists" : "unset-options", &s->u.alter.options);
            break;
        case TN_SQL_ALTER_ADD_CONSTRAINT:
            put(pr, " (add-constraint ");
            put_ident(pr, &s->u.alter.constraint_name);
            put(pr, " ");
            expr(pr, s->u.alter.check);
            put(pr, ")");
            break;
        case TN_SQL_ALTER_DROP_CONSTRAINT:
            put(pr, s->u.alter.if_exists ? " (drop-constraint if-exists " : " (drop-constraint ");
            put_ident(pr, &s->u.alter.constraint_name);
            put(pr, ")");
            break;
        }
        break;
    case TN_SQL_S_OPTIMIZE:
        put(pr, "(optimize ");
        put_qname(pr, &s->u.optimize.table);
        tagged_expr(pr, "where", s->u.optimize.where);
        put_idents(pr, "zorder", s->u.optimize.zorder, s->u.optimize.n_zorder);
        put_options(pr, "options", &s->u.optimize.options);
        break;
    case TN_SQL_S_DESCRIBE:
        put(pr, s->u.describe.history      ? "(describe-history "
                : s->u.describe.table_info ? "(table-info "
                : s->u.describe.show_create ? "(show-create "
                : s->u.describe.show_properties ? "(show-tblproperties "
                                            : "(describe ");
        if (s->u.describe.query) query(pr, s->u.describe.query);
        else put_qname(pr, &s->u.describe.table);
        if (s->u.describe.property) {
            put(pr, " (key ");
            put_string(pr, s->u.describe.property, strlen(s->u.describe.property));
            put(pr, ")");
        }
        break;
    case TN_SQL_S_SHOW:
        put(pr, s->u.show.what == TN_SQL_SHOW_TABLES ? "(show-tables" : "(show-schemas");
        if (s->u.show.in.n) {
            put(pr, " (in ");
            put_qname(pr, &s->u.show.in);
            put(pr, ")");
        }
        break;
    case TN_SQL_S_COPY:
        put(pr, "(copy ");
        if (s->u.copy.query) query(pr, s->u.copy.query);
        else put_qname(pr, &s->u.copy.table);
        put_idents(pr, "columns", s->u.copy.columns, s->u.copy.n_columns);
        put(pr, s->u.copy.to ? " to " : " from ");
        if (s->u.copy.stdio) put(pr, s->u.copy.to ? "stdout" : "stdin");
        else put_string(pr, s->u.copy.path, strlen(s->u.copy.path));
        put_options(pr, "options", &s->u.copy.options);
        break;
    case TN_SQL_S_SET: {
        tn_sql_options one = {(tn_sql_option *)&s->u.set, 1};
        put(pr, "(set");
        if (s->u.set.scope) put(pr, s->u.set.scope == TN_SQL_SCOPE_GLOBAL ? " (scope global)" : " (scope session)");
        put_options(pr, "option", &one);
        break;
    }
    case TN_SQL_S_EXPLAIN:
        put(pr, s->u.explain.analyze ? "(explain-analyze " : "(explain ");
        stmt(pr, s->u.explain.stmt);
        break;
    case TN_SQL_S_VACUUM:
        put(pr, "(vacuum ");
        put_qname(pr, &s->u.vacuum.table);
        if (s->u.vacuum.retain) putf(pr, " (retain-hours %s)", s->u.vacuum.retain);
        if (s->u.vacuum.dry_run) put(pr, " dry-run");
        break;
    case TN_SQL_S_TRANSACTION:
        put(pr, s->u.txn == TN_SQL_TXN_BEGIN ? "(begin" : s->u.txn == TN_SQL_TXN_COMMIT ? "(commit" : "(rollback");
        break;
    case TN_SQL_S_CHECKPOINT: put(pr, "(checkpoint"); break;
    case TN_SQL_S_PREPARE:
        putf(pr, "(prepare %s ", s->u.prepare.name.name);
        stmt(pr, s->u.prepare.stmt);
        break;
    case TN_SQL_S_EXECUTE: putf(pr, "(execute %s (%d args)", s->u.execute.name.name, s->u.execute.n_args); break;
    case TN_SQL_S_DEALLOCATE:
        putf(pr, "(deallocate %s", s->u.deallocate.all ? "all" : s->u.deallocate.name.name);
        break;
    case TN_SQL_S_CREATE_SEQUENCE:
        put(pr, "(create-sequence ");
        put_qname(pr, &s->u.create_sequence.name);
        break;
    case TN_SQL_S_CREATE_MACRO:
        put(pr, s->u.create_macro.is_table ? "(create-table-macro " : "(create-macro ");
        put_qname(pr, &s->u.create_macro.name);
        break;
    }
    put(pr, ")");
}

int tn_sql_print_stmt(tn_buf *out, const tn_sql_stmt *s) {
    printer pr = {out, 0};
    stmt(&pr, s);
    return pr.rc;
}

int tn_sql_print_query(tn_buf *out, const tn_sql_query *q) {
    printer pr = {out, 0};
    query(&pr, q);
    return pr.rc;
}

int tn_sql_print_expr(tn_buf *out, const tn_sql_expr *e) {
    printer pr = {out, 0};
    expr(&pr, e);
    return pr.rc;
}

int tn_sql_print_stmts(tn_buf *out, const tn_sql_stmt_list *list) {
    printer pr = {out, 0};
    for (int k = 0; k < list->n; k++) {
        stmt(&pr, list->stmts[k]);
        put(&pr, "\n");
    }
    return pr.rc;
}
