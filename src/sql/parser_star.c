/*
 * sql/parser_star.c: what DuckDB lets follow a star in a select list — `* EXCLUDE (a, t.b)`,
 * `* REPLACE (expr AS c)`, `* RENAME (c AS x)` (in that order, each at most once) — and
 * `COLUMNS(*)` / `COLUMNS('regex')` / `COLUMNS(* EXCLUDE (...))`, a star that stands for each
 * selected column inside an expression. Only the syntax; the binder expands (bind_star.c).
 */
#include "sql/parserInt.h"

#include <string.h>

static bool word_is(const tn_sql_token *t, const char *w) {
    return t->type == TK_IDENT && strcmp(t->text, w) == 0;
}

static const char *last_name(const tn_sql_qname *q) { return q->parts[q->n - 1].name; }

/* EXCLUDE name | EXCLUDE (name [, ...]); names may be qualified (t.a). */
static bool exclude_list(tn_sql_parser *p, tn_sql_star_opts *o) {
    tn_vec v = {0};
    bool paren = tn_sqlp_accept(p, TK_LPAREN);
    do {
        if (paren && v.n && tn_sqlp_list_ends(p)) break;
        tn_sql_qname q;
        if (!tn_sqlp_qname(p, "a column name in the EXCLUDE list", &q)) return false;
        for (int k = 0; k < (int)v.n; k++) {
            const tn_sql_qname *e = &((tn_sql_qname *)v.data)[k];
            if (e->n == q.n && tn_str_iequal(last_name(e), last_name(&q)) &&
                (q.n == 1 || tn_str_iequal(e->parts[0].name, q.parts[0].name)))
                return tn_sqlp_fail_at(p, q.parts[0].pos, "Duplicate entry \"%s\" in EXCLUDE list", last_name(&q));
        }
        if (!tn_sqlp_push(p, &v, &q, sizeof q)) return false;
    } while (paren && tn_sqlp_accept(p, TK_COMMA));
    if (paren && !tn_sqlp_expect(p, TK_RPAREN, "')' after the EXCLUDE list")) return false;
    o->exclude = v.data;
    o->n_exclude = (int)v.n;
    return true;
}

/* REPLACE (expr AS name [, ...]) or RENAME (name AS new [, ...]); one item without parentheses. */
static bool replace_list(tn_sql_parser *p, tn_sql_star_opts *o, bool rename) {
    const char *what = rename ? "RENAME" : "REPLACE";
    tn_vec v = {0};
    bool paren = tn_sqlp_accept(p, TK_LPAREN);
    do {
        if (paren && v.n && tn_sqlp_list_ends(p)) break;
        tn_sql_star_replace r;
        memset(&r, 0, sizeof r);
        if (rename) {
            tn_sql_qname q;
            if (!tn_sqlp_qname(p, "a column name in the RENAME list", &q)) return false;
            r.name = q.parts[q.n - 1];
        } else if (!(r.expr = tn_sqlp_expr(p))) {
            return false;
        }
        if (!tn_sqlp_expect_kw(p, KW_AS, rename ? "AS after the column to rename" : "AS after the replacing expression"))
            return false;
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        if (t->type != TK_IDENT && t->type != TK_QIDENT) return tn_sqlp_fail_expected(p, "a column name after AS");
        tn_sql_ident id = tn_sqlp_tok_ident(t);
        tn_sqlp_keep_case(p, &id);
        tn_sqlp_advance(p);
        if (rename) r.new_name = id;
        else r.name = id;
        for (int k = 0; k < (int)v.n; k++)
            if (tn_str_iequal(((tn_sql_star_replace *)v.data)[k].name.name, r.name.name))
                return tn_sqlp_fail_at(p, r.name.pos, "Duplicate entry \"%s\" in %s list", r.name.name, what);
        for (int k = 0; k < o->n_exclude; k++)
            if (tn_str_iequal(last_name(&o->exclude[k]), r.name.name))
                return tn_sqlp_fail_at(p, r.name.pos, "Column \"%s\" cannot occur in both EXCLUDE and %s list",
                                       r.name.name, what);
        if (!tn_sqlp_push(p, &v, &r, sizeof r)) return false;
    } while (paren && tn_sqlp_accept(p, TK_COMMA));
    if (paren && !tn_sqlp_expect(p, TK_RPAREN, rename ? "')' after the RENAME list" : "')' after the REPLACE list"))
        return false;
    if (rename) {
        o->rename = v.data;
        o->n_rename = (int)v.n;
    } else {
        o->replace = v.data;
        o->n_replace = (int)v.n;
    }
    return true;
}

bool tn_sqlp_star_opts(tn_sql_parser *p, tn_sql_expr *star) {
    tn_sql_star_opts *o = star->u.star.opts;
    if (!word_is(tn_sqlp_peek(p, 0), "exclude") && !word_is(tn_sqlp_peek(p, 0), "replace") &&
        !word_is(tn_sqlp_peek(p, 0), "rename"))
        return true;
    if (!o && !(o = star->u.star.opts = tn_sqlp_alloc(p, sizeof *o))) return false;
    if (word_is(tn_sqlp_peek(p, 0), "exclude")) {
        tn_sqlp_advance(p);
        if (!exclude_list(p, o)) return false;
    }
    if (word_is(tn_sqlp_peek(p, 0), "replace")) {
        tn_sqlp_advance(p);
        if (!replace_list(p, o, false)) return false;
    }
    if (word_is(tn_sqlp_peek(p, 0), "rename")) {
        tn_sqlp_advance(p);
        if (!replace_list(p, o, true)) return false;
    }
    return true;
}

/* After `COLUMNS`: '(' ( * [modifiers] | t.* [modifiers] | 'regex' ) ')'. */
tn_sql_expr *tn_sqlp_columns(tn_sql_parser *p) {
    tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
    tn_sqlp_advance(p);                                      /* COLUMNS */
    if (!tn_sqlp_expect(p, TK_LPAREN, "'(' after COLUMNS")) return NULL;
    tn_sql_expr *e = tn_sqlp_alloc(p, sizeof *e);
    tn_sql_star_opts *o = tn_sqlp_alloc(p, sizeof *o);
    if (!e || !o) return NULL;
    e->kind = TN_SQL_E_STAR;
    e->pos = pos;
    e->u.star.opts = o;
    o->columns = true;
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type == TK_STAR) {
        tn_sqlp_advance(p);
        if (!tn_sqlp_star_opts(p, e)) return NULL;
    } else if (t->type == TK_STRING) {
        if (!(o->pattern = tn_sqlp_unary(p))) return NULL;
        if (o->pattern->kind != TN_SQL_E_LITERAL)
            return tn_sqlp_fail_at(p, o->pattern->pos, "COLUMNS takes *, t.* or a regular expression string");
    } else {
        tn_sql_expr *x = tn_sqlp_expr(p);
        if (!x) return NULL;
        if (x->kind != TN_SQL_E_STAR)
            return tn_sqlp_fail_at(p, x->pos, "COLUMNS takes *, t.* or a regular expression string");
        e->u.star.qual = x->u.star.qual;
        if (!tn_sqlp_star_opts(p, e)) return NULL;
    }
    if (!tn_sqlp_expect(p, TK_RPAREN, "')' after COLUMNS(...")) return NULL;
    return e;
}
