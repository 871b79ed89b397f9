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
