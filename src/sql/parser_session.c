/*
 * sql/parser_session.c: the grammar of the session objects' statements (DuckDB's spelling):
 * PREPARE name AS statement, EXECUTE name [(args)], DEALLOCATE [PREPARE] name | ALL,
 * CREATE [OR REPLACE] [TEMP] SEQUENCE name [options], CREATE [OR REPLACE] [TEMP] MACRO
 * name(params) AS expr | AS TABLE query. parser.c dispatches here after the first words; what
 * the statements do is in session.c / prepared.c, sequence.c and macro.c.
 */
#include "sql/parserInt.h"

#include <string.h>

static bool word_is(const tn_sql_token *t, const char *w) { return t->type == TK_IDENT && strcmp(t->text, w) == 0; }

static tn_sql_stmt *stmt_new(tn_sql_parser *p, tn_sql_stmt_kind kind, tn_sql_pos pos) {
    tn_sql_stmt *s = tn_sqlp_alloc(p, sizeof *s);
    if (!s) return NULL;
    s->kind = kind;
    s->pos = pos;
    return s;
}

/* The source text of tokens [first, p->i). */
static const char *text_since(tn_sql_parser *p, int first) {
    const tn_sql_token *a = &p->toks[first], *b = &p->toks[p->i > first ? p->i - 1 : first];
    const char *t = tn_arena_strndup(p->arena, p->src + a->pos.offset, b->pos.offset + b->len - a->pos.offset);
    if (!t) tn_sqlp_fail_at(p, a->pos, "out of memory");
    return t;
}

/* PREPARE name AS statement: the statement is parsed here (syntax errors show at PREPARE, as in
   DuckDB) and its text kept; its parameters count for EXECUTE, not for the PREPARE itself. */
tn_sql_stmt *tn_sqlp_prepare(tn_sql_parser *p, tn_sql_stmt *(*statement)(tn_sql_parser *)) {
    tn_sql_stmt *s = stmt_new(p, TN_SQL_S_PREPARE, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (!tn_sqlp_ident(p, "a prepared statement name", &s->u.prepare.name)) return NULL;
    if (tn_sqlp_peek(p, 0)->type == TK_LPAREN)
        return tn_sqlp_fail_at(p, tn_sqlp_peek(p, 0)->pos,
                               "Prepared statement argument types are not supported, use CAST");
    if (!tn_sqlp_expect_kw(p, KW_AS, "AS after the prepared statement's name")) return NULL;
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (word_is(t, "prepare") || word_is(t, "execute") || word_is(t, "deallocate"))
        return tn_sqlp_fail_expected(p, "a statement to prepare (SELECT, INSERT, ...)");
    int first = p->i;
    if (!tn_sqlp_enter(p)) return NULL;
    s->u.prepare.stmt = statement(p);
    tn_sqlp_leave(p);
    if (!s->u.prepare.stmt) return NULL;
    s->u.prepare.text = text_since(p, first);
    p->n_params = 0;
    p->next_qparam = 0;
    return s->u.prepare.text ? s : NULL;
}

/* EXECUTE name [(value, ...)] */
tn_sql_stmt *tn_sqlp_execute(tn_sql_parser *p) {
    tn_sql_stmt *s = stmt_new(p, TN_SQL_S_EXECUTE, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (!tn_sqlp_ident(p, "a prepared statement name", &s->u.execute.name)) return NULL;
    if (tn_sqlp_accept(p, TK_LPAREN) && !tn_sqlp_accept(p, TK_RPAREN)) {
        tn_sql_expr_list l = {0};
        if (!tn_sqlp_expr_list(p, &l) || !tn_sqlp_expect(p, TK_RPAREN, "')' after EXECUTE's values")) return NULL;
        s->u.execute.args = l.items;
        s->u.execute.n_args = l.n;
    }
    return s;
}

/* DEALLOCATE [PREPARE] name | DEALLOCATE [PREPARE] ALL (PostgreSQL's ALL; DuckDB has no ALL) */
tn_sql_stmt *tn_sqlp_deallocate(tn_sql_parser *p) {
    tn_sql_stmt *s = stmt_new(p, TN_SQL_S_DEALLOCATE, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (word_is(tn_sqlp_peek(p, 0), "prepare")) tn_sqlp_advance(p);
    if (tn_sqlp_accept_kw(p, KW_ALL)) {
        s->u.deallocate.all = true;
        return s;
    }
    if (!tn_sqlp_ident(p, "a prepared statement name or ALL", &s->u.deallocate.name)) return NULL;
    return s;
}

static bool if_not_exists(tn_sql_parser *p) {
    if (tn_sqlp_is_kw(p, 0, KW_IF) && tn_sqlp_is_kw(p, 1, KW_NOT) && tn_sqlp_is_kw(p, 2, KW_EXISTS)) {
        p->i += 3;
        return true;
    }
    return false;
}

/* A sequence option's value: an optionally signed integer (an expression the session folds). */
static tn_sql_expr *seq_value(tn_sql_parser *p) { return tn_sqlp_unary(p); }

/* CREATE [OR REPLACE] [TEMP] SEQUENCE [IF NOT EXISTS] name [START [WITH] n] [INCREMENT [BY] n]
   [MINVALUE n | NO MINVALUE] [MAXVALUE n | NO MAXVALUE] [[NO] CYCLE], options in any order. */
tn_sql_stmt *tn_sqlp_create_sequence(tn_sql_parser *p, tn_sql_pos pos, bool or_replace, bool temporary) {
    tn_sql_stmt *s = stmt_new(p, TN_SQL_S_CREATE_SEQUENCE, pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);                                   /* SEQUENCE */
    s->u.create_sequence.or_replace = or_replace;
    s->u.create_sequence.temporary = temporary;
    s->u.create_sequence.if_not_exists = if_not_exists(p);
    if (or_replace && s->u.create_sequence.if_not_exists)
        return tn_sqlp_fail_at(p, pos, "Cannot specify both OR REPLACE and IF NOT EXISTS");
    if (!tn_sqlp_qname(p, "a sequence name", &s->u.create_sequence.name)) return NULL;
    for (;;) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        tn_sql_expr **slot = NULL;
        const char *what = NULL;
        if (word_is(t, "start")) {
            tn_sqlp_advance(p);
            tn_sqlp_accept_kw(p, KW_WITH);
            slot = &s->u.create_sequence.start;
            what = "START";
        } else if (word_is(t, "increment")) {
            tn_sqlp_advance(p);
            tn_sqlp_accept_kw(p, KW_BY);
            slot = &s->u.create_sequence.increment;
            what = "INCREMENT";
        } else if (word_is(t, "minvalue")) {
            tn_sqlp_advance(p);
            slot = &s->u.create_sequence.minvalue;
            what = "MINVALUE";
        } else if (word_is(t, "maxvalue")) {
            tn_sqlp_advance(p);
            slot = &s->u.create_sequence.maxvalue;
            what = "MAXVALUE";
        } else if (word_is(t, "cycle")) {
            tn_sqlp_advance(p);
            s->u.create_sequence.cycle = true;
            continue;
        } else if (tn_sqlp_is_kw(p, 0, KW_NOT) || word_is(t, "no")) {
            const tn_sql_token *w = tn_sqlp_peek(p, 1);
            if (!word_is(w, "cycle") && !word_is(w, "minvalue") && !word_is(w, "maxvalue"))
                return tn_sqlp_fail_expected(p, "CYCLE, MINVALUE or MAXVALUE after NO");
            if (word_is(w, "cycle")) s->u.create_sequence.cycle = false;
            p->i += 2;                                    /* NO MINVALUE / NO MAXVALUE: the default */
            continue;
        } else {
            break;
        }
        if (*slot) return tn_sqlp_fail_at(p, t->pos, "%s given twice", what);
        *slot = seq_value(p);
        if (!*slot) return NULL;
    }
    return s;
}

/* CREATE [OR REPLACE] [TEMP] MACRO [IF NOT EXISTS] name(a, b := default, ...) AS expr
   | AS TABLE query (DuckDB's; FUNCTION is its synonym). */
tn_sql_stmt *tn_sqlp_create_macro(tn_sql_parser *p, tn_sql_pos pos, bool or_replace, bool temporary) {
    tn_sql_stmt *s = stmt_new(p, TN_SQL_S_CREATE_MACRO, pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);                                   /* MACRO / FUNCTION */
    s->u.create_macro.or_replace = or_replace;
    s->u.create_macro.temporary = temporary;
    s->u.create_macro.if_not_exists = if_not_exists(p);
    if (!tn_sqlp_qname(p, "a macro name", &s->u.create_macro.name)) return NULL;
    if (!tn_sqlp_expect(p, TK_LPAREN, "'(' after the macro's name")) return NULL;
    tn_vec params = {0}, defaults = {0};
    if (!tn_sqlp_accept(p, TK_RPAREN)) {
        do {
            tn_sql_ident id;
            tn_sql_expr *d = NULL;
            const tn_sql_token *at = tn_sqlp_peek(p, 0);
            if (!tn_sqlp_ident(p, "a parameter name", &id)) return NULL;
            if (tn_sqlp_accept(p, TK_ASSIGN)) {
                if (!(d = tn_sqlp_expr(p))) return NULL;
            } else if (defaults.n && ((tn_sql_expr **)defaults.data)[defaults.n - 1]) {
                return tn_sqlp_fail_at(p, at->pos, "Parameter without a default follows parameter with a default");
            }
            for (int k = 0; k < params.n; k++)
                if (tn_str_iequal(((tn_sql_ident *)params.data)[k].name, id.name))
                    return tn_sqlp_fail_at(p, at->pos, "Duplicate parameter '%s' in macro definition", id.name);
            if (!tn_sqlp_push(p, &params, &id, sizeof id) || !tn_sqlp_push(p, &defaults, &d, sizeof d)) return NULL;
        } while (tn_sqlp_accept(p, TK_COMMA));
        if (!tn_sqlp_expect(p, TK_RPAREN, "')' after the macro's parameters")) return NULL;
    }
    s->u.create_macro.params = params.data;
    s->u.create_macro.defaults = defaults.data;
    s->u.create_macro.n_params = params.n;
    if (!tn_sqlp_expect_kw(p, KW_AS, "AS before the macro's body")) return NULL;
    int first = p->i;
    if (tn_sqlp_accept_kw(p, KW_TABLE)) {
        s->u.create_macro.is_table = true;
        first = p->i;
        if (!(s->u.create_macro.query = tn_sqlp_query(p))) return NULL;
    } else if (!(s->u.create_macro.body = tn_sqlp_expr(p))) {
        return NULL;
    }
    s->u.create_macro.body_text = text_since(p, first);
    return s->u.create_macro.body_text ? s : NULL;
}
