/*
 * sql/parser.c: the parser's entry point (tn_sql_parse), the token helpers every parser file
 * shares, and the statements: DDL (CREATE TABLE/VIEW/SCHEMA, DROP, ALTER), DML (INSERT,
 * INSERT OVERWRITE, UPSERT, DELETE, UPDATE), OPTIMIZE, VACUUM, DESCRIBE, SHOW, COPY, SET,
 * EXPLAIN, and hint comments. Queries are parser_query.c, expressions parser_expr.c.
 */
#include "sql/parserInt.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Shared helpers.
 */
void *tn_sqlp_alloc(tn_sql_parser *p, size_t size) {
    void *m = tn_arena_calloc(p->arena, size ? size : 1);
    if (!m && !p->rc) p->rc = tn_error_set(TN_ENOMEM, "out of memory while parsing SQL");
    return m;
}

bool tn_sqlp_push(tn_sql_parser *p, tn_vec *v, const void *elem, size_t size) {
    if (v->n == v->cap) {
        int ncap = v->cap ? v->cap * 2 : 4;
        void *nd = tn_sqlp_alloc(p, (size_t)ncap * size);
        if (!nd) return false;
        if (v->n) memcpy(nd, v->data, (size_t)v->n * size);
        v->data = nd;
        v->cap = ncap;
    }
    memcpy((char *)v->data + (size_t)v->n * size, elem, size);
    v->n++;
    return true;
}

const tn_sql_token *tn_sqlp_peek(const tn_sql_parser *p, int ahead) {
    int k = p->i + ahead;
    return &p->toks[k < p->n_toks ? k : p->n_toks - 1];
}

void tn_sqlp_advance(tn_sql_parser *p) {
    if (p->i < p->n_toks - 1) p->i++;
}

bool tn_sqlp_is_kw(const tn_sql_parser *p, int ahead, tn_kw kw) {
    const tn_sql_token *t = tn_sqlp_peek(p, ahead);
    return t->type == TK_IDENT && t->kw == kw;
}

bool tn_sqlp_accept_kw(tn_sql_parser *p, tn_kw kw) {
    if (!tn_sqlp_is_kw(p, 0, kw)) return false;
    tn_sqlp_advance(p);
    return true;
}

bool tn_sqlp_accept(tn_sql_parser *p, tn_tok_type type) {
    if (tn_sqlp_peek(p, 0)->type != type) return false;
    tn_sqlp_advance(p);
    return true;
}

bool tn_sqlp_expect_kw(tn_sql_parser *p, tn_kw kw, const char *what) {
    if (tn_sqlp_accept_kw(p, kw)) return true;
    tn_sqlp_fail_expected(p, what);
    return false;
}

bool tn_sqlp_expect(tn_sql_parser *p, tn_tok_type type, const char *what) {
    if (tn_sqlp_accept(p, type)) return true;
    tn_sqlp_fail_expected(p, what);
    return false;
}

void *tn_sqlp_fail_at(tn_sql_parser *p, tn_sql_pos pos, const char *fmt, ...) {
    if (p->rc) return NULL;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->rc = tn_sql_syntax_error(p->src, p->src_len, pos, "%s", msg);
    return NULL;
}

void *tn_sqlp_fail_expected(tn_sql_parser *p, const char *what) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type == TK_EOF) return tn_sqlp_fail_at(p, t->pos, "expected %s, found end of input", what);
    /* The token as written, cut at a newline or after 40 bytes. */
    size_t n = t->len, max = 40;
    const char *s = p->src + t->pos.offset;
    const char *nl = memchr(s, '\n', n);
    bool cut = false;
    if (nl) { n = (size_t)(nl - s); cut = true; }
    if (n > max) { n = max; cut = true; }
    return tn_sqlp_fail_at(p, t->pos, "expected %s, found '%.*s%s'", what, (int)n, s, cut ? "..." : "");
}

bool tn_sqlp_enter(tn_sql_parser *p) {
    if (p->depth >= TN_SQL_MAX_DEPTH) {
        tn_sqlp_fail_at(p, tn_sqlp_peek(p, 0)->pos, "statement nested too deeply (more than %d levels)",
                        TN_SQL_MAX_DEPTH);
        return false;
    }
    p->depth++;
    return true;
}

bool tn_sqlp_tok_is_colid(const tn_sql_token *t) {
    if (t->type == TK_QIDENT) return true;
    return t->type == TK_IDENT && tn_sql_keyword_class(t->kw) == KWC_UNRESERVED;
}

bool tn_sqlp_tok_is_funcname(const tn_sql_token *t) {
    if (t->type == TK_QIDENT) return true;
    return t->type == TK_IDENT && tn_sql_keyword_class(t->kw) != KWC_RESERVED;
}

tn_sql_ident tn_sqlp_tok_ident(const tn_sql_token *t) {
    tn_sql_ident id;
    id.name = t->text;
    id.quoted = t->type == TK_QIDENT;
    id.pos = t->pos;
    return id;
}

void tn_sqlp_keep_case(tn_sql_parser *p, tn_sql_ident *id) {
    if (!id->name || id->quoted) return;
    size_t n = strlen(id->name);
    if (id->pos.offset > p->src_len || n > p->src_len - id->pos.offset) return;
    const char *w = p->src + id->pos.offset;
    if (!tn_str_iequal_n(w, n, id->name) || memcmp(w, id->name, n) == 0) return;
    char *s = tn_sqlp_alloc(p, n + 1);
    if (!s) return;              /* p->rc is set; the folded name stays */
    memcpy(s, w, n);
    s[n] = '\0';
    id->name = s;
}

bool tn_sqlp_ident(tn_sql_parser *p, const char *what, tn_sql_ident *out) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (!tn_sqlp_tok_is_colid(t)) {
        if (t->type == TK_IDENT && t->kw != KW_NONE) {
            char buf[160];
            snprintf(buf, sizeof buf, "%s (%s is a reserved word; quote it as \"%s\")", what,
                     tn_sql_keyword_name(t->kw), t->text);
            tn_sqlp_fail_expected(p, buf);
        } else {
            tn_sqlp_fail_expected(p, what);
        }
        return false;
    }
    *out = tn_sqlp_tok_ident(t);
    tn_sqlp_advance(p);
    return true;
}

bool tn_sqlp_qname(tn_sql_parser *p, const char *what, tn_sql_qname *out) {
    tn_vec parts = {0};
    tn_sql_ident id;
    if (!tn_sqlp_ident(p, what, &id) || !tn_sqlp_push(p, &parts, &id, sizeof id)) return false;
    while (tn_sqlp_peek(p, 0)->type == TK_DOT) {
        const tn_sql_token *n = tn_sqlp_peek(p, 1);
        if (n->type != TK_IDENT && n->type != TK_QIDENT) {
            tn_sqlp_advance(p);
            tn_sqlp_fail_expected(p, "a name after '.'");
            return false;
        }
        id = tn_sqlp_tok_ident(n);
        if (!tn_sqlp_push(p, &parts, &id, sizeof id)) return false;
        p->i += 2;
    }
    out->parts = parts.data;
    out->n = parts.n;
    return true;
}

bool tn_sqlp_ident_list(tn_sql_parser *p, const char *what, tn_sql_ident **out, int *n) {
    tn_vec v = {0};
    do {
        tn_sql_ident id;
        if (!tn_sqlp_ident(p, what, &id) || !tn_sqlp_push(p, &v, &id, sizeof id)) return false;
    } while (tn_sqlp_accept(p, TK_COMMA));
    *out = v.data;
    *n = v.n;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Options: key [=] [value], comma separated.
 */
static void *nomem(tn_sql_parser *p) {
    if (!p->rc) p->rc = tn_error_set(TN_ENOMEM, "out of memory while parsing SQL");
    return NULL;
}

static const char *tok_source(tn_sql_parser *p, const tn_sql_token *t) {
    char *s = tn_sqlp_alloc(p, t->len + 1);
    if (s) memcpy(s, p->src + t->pos.offset, t->len);
    return s;
}

/* A key: 'string' or word(.word)* kept as written. */
static bool option_key(tn_sql_parser *p, tn_sql_option *o) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    o->pos = t->pos;
    if (t->type == TK_STRING) {
        o->key = t->text;
        tn_sqlp_advance(p);
        return true;
    }
    if (t->type != TK_IDENT && t->type != TK_QIDENT) {
        tn_sqlp_fail_expected(p, "an option name");
        return false;
    }
    tn_buf b = TN_BUF_INIT;
    bool ok = false;
    for (;;) {
        t = tn_sqlp_peek(p, 0);
        if (t->type == TK_QIDENT) {
            if (tn_buf_append(&b, t->text, t->text_len)) goto cleanup;
        } else if (tn_buf_append(&b, p->src + t->pos.offset, t->len)) {
            goto cleanup;
        }
        tn_sqlp_advance(p);
        if (tn_sqlp_peek(p, 0)->type != TK_DOT) break;
        const tn_sql_token *n = tn_sqlp_peek(p, 1);
        if (n->type != TK_IDENT && n->type != TK_QIDENT) break;
        tn_sqlp_advance(p);
        if (tn_buf_append_byte(&b, '.')) goto cleanup;
    }
    o->key = tn_arena_strndup(p->arena, (const char *)b.data, b.len);
    ok = o->key != NULL;
cleanup:
    if (!ok && !p->rc) p->rc = tn_error_set(TN_ENOMEM, "out of memory while parsing SQL");
    tn_buf_free(&b);
    return ok;
}

static bool option_value(tn_sql_parser *p, tn_sql_option *o) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    o->value_pos = t->pos;
    switch (t->type) {
    case TK_STRING:
        o->kind = TN_SQL_VALUE_STRING;
        o->value = t->text;
        tn_sqlp_advance(p);
        return true;
    case TK_MINUS:
    case TK_PLUS:
    case TK_INTEGER:
    case TK_DECIMAL:
    case TK_FLOAT: {
        const tn_sql_token *num = t;
        if (t->type == TK_MINUS || t->type == TK_PLUS) num = tn_sqlp_peek(p, 1);
        if (num->type != TK_INTEGER && num->type != TK_DECIMAL && num->type != TK_FLOAT) break;
        o->kind = TN_SQL_VALUE_NUMBER;
        o->value = num == t ? num->text : tn_arena_printf(p->arena, "%s%s", t->type == TK_MINUS ? "-" : "", num->text);
        if (!o->value) return nomem(p);
        p->i += num == t ? 1 : 2;
        return true;
    }
    case TK_IDENT:
        if (t->kw == KW_TRUE || t->kw == KW_FALSE) {
            o->kind = TN_SQL_VALUE_BOOL;
            o->value = t->kw == KW_TRUE ? "true" : "false";
        } else if (t->kw == KW_NULL) {
            o->kind = TN_SQL_VALUE_NULL;
        } else {
            o->kind = TN_SQL_VALUE_IDENT;
            o->value = tok_source(p, t);
            if (!o->value) return false;
        }
        tn_sqlp_advance(p);
        return true;
    case TK_QIDENT:
        o->kind = TN_SQL_VALUE_IDENT;
        o->value = t->text;
        tn_sqlp_advance(p);
        return true;
    default:
        break;
    }
    tn_sqlp_fail_expected(p, "an option value");
    return false;
}

/* One option; with `need_eq` the '=' is required and so is the value. */
static bool option(tn_sql_parser *p, tn_sql_option *o, bool need_eq) {
    memset(o, 0, sizeof *o);
    if (!option_key(p, o)) return false;
    tn_tok_type next = tn_sqlp_peek(p, 0)->type;
    if (!need_eq && (next == TK_COMMA || next == TK_RPAREN || next == TK_EOF || next == TK_SEMI)) {
        o->value_pos = o->pos;
        return true;
    }
    if (!tn_sqlp_accept(p, TK_EQ) && !(!need_eq && tn_sqlp_accept_kw(p, KW_TO)) && need_eq) {
        tn_sqlp_fail_expected(p, "'=' after the option name");
        return false;
    }
    return option_value(p, o);
}

/* '(' option, ... ')' appended to *opts. */
static bool option_list(tn_sql_parser *p, tn_sql_options *opts, bool need_eq, const char *after) {
    char what[80];
    snprintf(what, sizeof what, "'(' after %s", after);
    if (!tn_sqlp_expect(p, TK_LPAREN, what)) return false;
    tn_vec v = {opts->items, opts->n, opts->n};
    if (!tn_sqlp_accept(p, TK_RPAREN)) {
        do {
            tn_sql_option o;
            if (!option(p, &o, need_eq) || !tn_sqlp_push(p, &v, &o, sizeof o)) return false;
        } while (tn_sqlp_accept(p, TK_COMMA));
        snprintf(what, sizeof what, "')' after %s options", after);
        if (!tn_sqlp_expect(p, TK_RPAREN, what)) return false;
    }
    opts->items = v.data;
    opts->n = v.n;
    return true;
}

static bool string_arg(tn_sql_parser *p, const char *what, const char **out) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type != TK_STRING) {
        tn_sqlp_fail_expected(p, what);
        return false;
    }
    *out = t->text;
    tn_sqlp_advance(p);
    return true;
}

static bool word_is_(const tn_sql_token *t, const char *w) { return t->type == TK_IDENT && strcmp(t->text, w) == 0; }

static bool if_not_exists(tn_sql_parser *p) {
    if (tn_sqlp_is_kw(p, 0, KW_IF) && tn_sqlp_is_kw(p, 1, KW_NOT) && tn_sqlp_is_kw(p, 2, KW_EXISTS)) {
        p->i += 3;
        return true;
    }
    return false;
}

static bool if_exists(tn_sql_parser *p) {
    if (tn_sqlp_is_kw(p, 0, KW_IF) && tn_sqlp_is_kw(p, 1, KW_EXISTS)) {
        p->i += 2;
        return true;
    }
    return false;
}

static tn_sql_stmt *new_stmt(tn_sql_parser *p, tn_sql_stmt_kind kind, tn_sql_pos pos) {
    tn_sql_stmt *s = tn_sqlp_alloc(p, sizeof *s);
    if (s) {
        s->kind = kind;
        s->pos = pos;
    }
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * Hints: NAME [( option, ... )] [, NAME ...] inside a hint comment.
 */
static bool parse_hint_span(tn_sql_parser *p, const tn_sql_hint_span *h, tn_vec *hints) {
    tn_sql_parser sub = *p;
    int rc = tn_sql_lex(p->arena, p->src, p->src_len, h->start, h->end, h->pos, false, &sub.toks, &sub.n_toks);
    if (rc) {
        p->rc = rc;
        return false;
    }
    sub.i = 0;
    sub.rc = 0;
    while (tn_sqlp_peek(&sub, 0)->type != TK_EOF) {
        tn_sql_hint hint = {0};
        const tn_sql_token *t = tn_sqlp_peek(&sub, 0);
        if (t->type != TK_IDENT) {
            tn_sqlp_fail_expected(&sub, "a hint name");
            break;
        }
        hint.name = t->text;
        hint.pos = t->pos;
        tn_sqlp_advance(&sub);
        if (tn_sqlp_peek(&sub, 0)->type == TK_LPAREN && !option_list(&sub, &hint.args, false, "the hint name"))
            break;
        if (!tn_sqlp_push(&sub, hints, &hint, sizeof hint)) break;
        tn_sqlp_accept(&sub, TK_COMMA);
    }
    if (sub.rc) p->rc = sub.rc;
    return p->rc == 0;
}

bool tn_sqlp_hints(tn_sql_parser *p, tn_sql_hint **out, int *n) {
    const tn_sql_token *after = tn_sqlp_peek(p, 0);
    if (!after->hints) return true;
    tn_vec hints = {0};
    for (const tn_sql_hint_span *h = after->hints; h; h = h->next)
        if (!parse_hint_span(p, h, &hints)) return false;
    *out = hints.data;
    *n = hints.n;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * CREATE.
 */
static bool pk_columns(tn_sql_parser *p, tn_sql_stmt *s, tn_sql_pos primary_pos) {
    if (s->u.create_table.pk_columns)
        return tn_sqlp_fail_at(p, primary_pos, "multiple primary keys for table") != NULL;
    if (!tn_sqlp_expect(p, TK_LPAREN, "'(' after PRIMARY KEY")) return false;
    tn_vec v = {0};
    do {
        tn_sql_ident id;
        if (!tn_sqlp_ident(p, "a column name", &id) || !tn_sqlp_push(p, &v, &id, sizeof id)) return false;
        if (!tn_sqlp_accept_kw(p, KW_ASC)) tn_sqlp_accept_kw(p, KW_DESC);   /* Phoenix row key order */
    } while (tn_sqlp_accept(p, TK_COMMA));
    if (!tn_sqlp_expect(p, TK_RPAREN, "')' after primary key columns")) return false;
    s->u.create_table.pk_columns = v.data;
    s->u.create_table.n_pk_columns = v.n;
    return true;
}

static bool not_enforced(tn_sql_parser *p) {
    if (tn_sqlp_is_kw(p, 0, KW_NOT) && tn_sqlp_is_kw(p, 1, KW_ENFORCED)) {
        p->i += 2;
        return true;
    }
    return false;
}

/* name type [NOT NULL | NULL | PRIMARY KEY [NOT ENFORCED] | DEFAULT e | COMMENT 's']... */
static bool column_def(tn_sql_parser *p, tn_sql_column_def *c, tn_sql_stmt *table) {
    memset(c, 0, sizeof *c);
    if (!tn_sqlp_ident(p, "a column name", &c->name)) return false;
    c->type = tn_sqlp_type(p);
    if (!c->type) return false;
    for (;;) {
        if (tn_sqlp_is_kw(p, 0, KW_NOT) && tn_sqlp_is_kw(p, 1, KW_NULL)) {
            p->i += 2;
            c->not_null = true;
        } else if (tn_sqlp_accept_kw(p, KW_NULL)) {
            c->not_null = false;
        } else if (tn_sqlp_is_kw(p, 0, KW_PRIMARY)) {
            tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
            tn_sqlp_advance(p);
            if (!tn_sqlp_expect_kw(p, KW_KEY, "KEY after PRIMARY")) return false;
            if (!table) return tn_sqlp_fail_at(p, pos, "PRIMARY KEY is not allowed here") != NULL;
            if (table->u.create_table.pk_columns)
                return tn_sqlp_fail_at(p, pos, "multiple primary keys for table") != NULL;
            c->primary_key = true;
            table->u.create_table.pk_columns = &c->name;   /* fixed up when columns move */
            table->u.create_table.n_pk_columns = 1;
            table->u.create_table.pk_not_enforced = not_enforced(p);
        } else if (tn_sqlp_accept_kw(p, KW_DEFAULT)) {
            c->default_expr = tn_sqlp_unary(p);
            if (!c->default_expr) return false;
        } else if (tn_sqlp_accept_kw(p, KW_COMMENT)) {
            if (!string_arg(p, "a string after COMMENT", &c->comment)) return false;
        } else {
            return true;
        }
    }
}

static bool table_element(tn_sql_parser *p, tn_sql_stmt *s, tn_vec *cols) {
    if (tn_sqlp_accept_kw(p, KW_CONSTRAINT)) {
        if (!tn_sqlp_ident(p, "a constraint name", &s->u.create_table.pk_name)) return false;
        if (!tn_sqlp_is_kw(p, 0, KW_PRIMARY)) return tn_sqlp_fail_expected(p, "PRIMARY KEY after the constraint name");
    }
    tn_sql_pos primary_pos = tn_sqlp_peek(p, 0)->pos;
    if (tn_sqlp_accept_kw(p, KW_PRIMARY)) {
        if (!tn_sqlp_expect_kw(p, KW_KEY, "KEY after PRIMARY")) return false;
        if (!pk_columns(p, s, primary_pos)) return false;
        s->u.create_table.pk_not_enforced = not_enforced(p);
        return true;
    }
    tn_sql_column_def c;
    return column_def(p, &c, s) && tn_sqlp_push(p, cols, &c, sizeof c);
}

static bool create_table_body(tn_sql_parser *p, tn_sql_stmt *s) {
    if (tn_sqlp_accept(p, TK_LPAREN)) {
        tn_vec cols = {0};
        /* Phoenix also accepts the table constraint without a comma: (a INT CONSTRAINT pk ...). */
        do {
            if (cols.n && tn_sqlp_peek(p, 0)->type == TK_RPAREN) break;     /* trailing comma */
            if (!table_element(p, s, &cols)) return false;
        } while (tn_sqlp_accept(p, TK_COMMA) || tn_sqlp_is_kw(p, 0, KW_CONSTRAINT));
        if (!tn_sqlp_expect(p, TK_RPAREN, "')' or ',' after a column definition")) return false;
        s->u.create_table.columns = cols.data;
        s->u.create_table.n_columns = cols.n;
        /* A column-level PRIMARY KEY pointed into the growing vector: point at the final copy. */
        for (int k = 0; k < cols.n; k++)
            if (s->u.create_table.columns[k].primary_key) s->u.create_table.pk_columns = &s->u.create_table.columns[k].name;
    }
    tn_sql_options *opts = &s->u.create_table.options;
    for (;;) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        if (t->type != TK_IDENT && t->type != TK_QIDENT) break;
        if (tn_sqlp_is_kw(p, 0, KW_USING)) {
            tn_sqlp_advance(p);
            if (!tn_sqlp_ident(p, "a table format after USING", &s->u.create_table.using_format)) return false;
        } else if (tn_sqlp_is_kw(p, 0, KW_PARTITIONED)) {
            tn_sqlp_advance(p);
            if (!tn_sqlp_expect_kw(p, KW_BY, "BY after PARTITIONED") ||
                !tn_sqlp_expect(p, TK_LPAREN, "'(' after PARTITIONED BY") ||
                !tn_sqlp_ident_list(p, "a column name", &s->u.create_table.partitioned_by,
                                    &s->u.create_table.n_partitioned_by) ||
                !tn_sqlp_expect(p, TK_RPAREN, "')' after partition columns"))
                return false;
        } else if (tn_sqlp_is_kw(p, 0, KW_WITH) && tn_sqlp_peek(p, 1)->type == TK_LPAREN) {
            tn_sqlp_advance(p);
            if (!option_list(p, opts, true, "WITH")) return false;
        } else if (tn_sqlp_is_kw(p, 0, KW_OPTIONS) || tn_sqlp_is_kw(p, 0, KW_TBLPROPERTIES)) {
            const char *after = t->kw == KW_OPTIONS ? "OPTIONS" : "TBLPROPERTIES";
            tn_sqlp_advance(p);
            if (!option_list(p, opts, true, after)) return false;
        } else if (tn_sqlp_is_kw(p, 0, KW_LOCATION)) {
            tn_sqlp_advance(p);
            if (!string_arg(p, "a string after LOCATION", &s->u.create_table.location)) return false;
        } else if (tn_sqlp_is_kw(p, 0, KW_COMMENT)) {
            tn_sqlp_advance(p);
            if (!string_arg(p, "a string after COMMENT", &s->u.create_table.comment)) return false;
        } else if (tn_sqlp_tok_is_colid(t) &&
                   (tn_sqlp_peek(p, 1)->type == TK_EQ || tn_sqlp_peek(p, 1)->type == TK_DOT)) {
            /* Phoenix: SALT_BUCKETS=6, COMPRESSION='GZ', cf.TTL=86400 */
            tn_vec v = {opts->items, opts->n, opts->n};
            do {
                tn_sql_option o;
                if (!option(p, &o, true) || !tn_sqlp_push(p, &v, &o, sizeof o)) return false;
            } while (tn_sqlp_accept(p, TK_COMMA));
            opts->items = v.data;
            opts->n = v.n;
        } else {
            break;
        }
    }
    if (tn_sqlp_accept_kw(p, KW_AS)) {
        s->u.create_table.as_query = tn_sqlp_query(p);
        if (!s->u.create_table.as_query) return false;
    } else if (!s->u.create_table.columns) {
        return tn_sqlp_fail_expected(p, "'(' with column definitions or AS query");
    }
    return true;
}

static tn_sql_stmt *create_stmt(tn_sql_parser *p) {
    tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
    tn_sqlp_advance(p);                                    /* CREATE */
    bool or_replace = false, temporary = false;
    if (tn_sqlp_is_kw(p, 0, KW_OR)) {
        tn_sqlp_advance(p);
        if (!tn_sqlp_expect_kw(p, KW_REPLACE, "REPLACE after OR")) return NULL;
        or_replace = true;
    }
    bool global = false;                                   /* Spark: GLOBAL TEMPORARY VIEW */
    {
        const tn_sql_token *g = tn_sqlp_peek(p, 0);
        if (g->type == TK_IDENT && g->text && tn_str_iequal(g->text, "global") &&
            (tn_sqlp_is_kw(p, 1, KW_TEMP) || tn_sqlp_is_kw(p, 1, KW_TEMPORARY))) {
            tn_sqlp_advance(p);
            global = true;
        }
    }
    if (tn_sqlp_accept_kw(p, KW_TEMP) || tn_sqlp_accept_kw(p, KW_TEMPORARY)) temporary = true;
    tn_sql_stmt *s;
    if (global && !tn_sqlp_is_kw(p, 0, KW_VIEW)) return tn_sqlp_fail_at(p, pos, "GLOBAL TEMPORARY applies to views only");
    if (tn_sqlp_accept_kw(p, KW_TABLE)) {
        s = new_stmt(p, TN_SQL_S_CREATE_TABLE, pos);
        if (!s) return NULL;
        s->u.create_table.or_replace = or_replace;
        s->u.create_table.temporary = temporary;
        s->u.create_table.if_not_exists = if_not_exists(p);
        if (!tn_sqlp_qname(p, "a table name", &s->u.create_table.name)) return NULL;
        return create_table_body(p, s) ? s : NULL;
    }
    if (tn_sqlp_accept_kw(p, KW_VIEW)) {
        s = new_stmt(p, TN_SQL_S_CREATE_VIEW, pos);
        if (!s) return NULL;
        s->u.create_view.or_replace = or_replace;
        s->u.create_view.temporary = temporary;
        s->u.create_view.global = global;
        s->u.create_view.if_not_exists = if_not_exists(p);
        if (!tn_sqlp_qname(p, "a view name", &s->u.create_view.name)) return NULL;
        if (tn_sqlp_accept(p, TK_LPAREN)) {
            if (!tn_sqlp_ident_list(p, "a column name", &s->u.create_view.columns, &s->u.create_view.n_columns) ||
                !tn_sqlp_expect(p, TK_RPAREN, "')' after view column names"))
                return NULL;
        }
        if (!tn_sqlp_expect_kw(p, KW_AS, "AS before the view's query")) return NULL;
        int first = p->i;
        s->u.create_view.query = tn_sqlp_query(p);
        if (!s->u.create_view.query) return NULL;
        const tn_sql_token *a = &p->toks[first], *b = &p->toks[p->i > first ? p->i - 1 : first];
        s->u.create_view.query_text =
            tn_arena_strndup(p->arena, p->src + a->pos.offset, b->pos.offset + b->len - a->pos.offset);
        if (!s->u.create_view.query_text) return nomem(p);
        return s;
    }
    if (tn_sqlp_accept_kw(p, KW_SCHEMA) || tn_sqlp_accept_kw(p, KW_DATABASE)) {
        if (or_replace || temporary) return tn_sqlp_fail_at(p, pos, "CREATE SCHEMA takes no OR REPLACE or TEMPORARY");
        s = new_stmt(p, TN_SQL_S_CREATE_SCHEMA, pos);
        if (!s) return NULL;
        s->u.create_schema.if_not_exists = if_not_exists(p);
        if (!tn_sqlp_qname(p, "a schema name", &s->u.create_schema.name)) return NULL;
        return s;
    }
    {
        const tn_sql_token *w = tn_sqlp_peek(p, 0);        /* parser_session.c */
        if (word_is_(w, "sequence")) return tn_sqlp_create_sequence(p, pos, or_replace, temporary);
        if (word_is_(w, "macro") || word_is_(w, "function")) return tn_sqlp_create_macro(p, pos, or_replace, temporary);
    }
    return tn_sqlp_fail_expected(p, "TABLE, VIEW or SCHEMA after CREATE");
}

static tn_sql_stmt *drop_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_DROP, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (tn_sqlp_accept_kw(p, KW_TABLE)) s->u.drop.object = TN_SQL_OBJ_TABLE;
    else if (tn_sqlp_accept_kw(p, KW_VIEW)) s->u.drop.object = TN_SQL_OBJ_VIEW;
    else if (tn_sqlp_accept_kw(p, KW_SCHEMA) || tn_sqlp_accept_kw(p, KW_DATABASE)) s->u.drop.object = TN_SQL_OBJ_SCHEMA;
    else if (word_is_(tn_sqlp_peek(p, 0), "sequence")) {
        tn_sqlp_advance(p);
        s->u.drop.object = TN_SQL_OBJ_SEQUENCE;
    } else if (word_is_(tn_sqlp_peek(p, 0), "macro") || word_is_(tn_sqlp_peek(p, 0), "function")) {
        tn_sqlp_advance(p);
        s->u.drop.object = tn_sqlp_accept_kw(p, KW_TABLE) ? TN_SQL_OBJ_MACRO_TABLE : TN_SQL_OBJ_MACRO;
    } else return tn_sqlp_fail_expected(p, "TABLE, VIEW, SCHEMA, SEQUENCE or MACRO after DROP");
    s->u.drop.if_exists = if_exists(p);
    if (!tn_sqlp_qname(p, "a name", &s->u.drop.name)) return NULL;
    if (tn_sqlp_accept_kw(p, KW_CASCADE)) s->u.drop.cascade = true;
    else if (tn_sqlp_peek(p, 0)->type == TK_IDENT && strcmp(tn_sqlp_peek(p, 0)->text, "restrict") == 0)
        tn_sqlp_advance(p);
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * DML.
 */
static tn_sql_stmt *insert_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_INSERT, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    bool upsert = tn_sqlp_is_kw(p, 0, KW_UPSERT);
    tn_sqlp_advance(p);
    if (upsert) {
        s->u.insert.upsert = true;
        if (!tn_sqlp_expect_kw(p, KW_INTO, "INTO after UPSERT")) return NULL;
    } else if (tn_sqlp_accept_kw(p, KW_OVERWRITE)) {
        s->u.insert.overwrite = true;
        tn_sqlp_accept_kw(p, KW_TABLE);
    } else {
        if (!tn_sqlp_expect_kw(p, KW_INTO, "INTO or OVERWRITE after INSERT")) return NULL;
        tn_sqlp_accept_kw(p, KW_TABLE);
    }
    if (!tn_sqlp_qname(p, "a table name", &s->u.insert.table)) return NULL;
    if (!tn_sqlp_hints(p, &s->u.insert.hints, &s->u.insert.n_hints)) return NULL;
    if (!upsert && tn_sqlp_is_kw(p, 0, KW_PARTITION) && tn_sqlp_peek(p, 1)->type == TK_LPAREN) {
        p->i += 2;
        tn_vec v = {0};
        do {
            tn_sql_partition_value pv = {0};
            if (!tn_sqlp_ident(p, "a partition column", &pv.column)) return NULL;
            if (tn_sqlp_accept(p, TK_EQ)) {
                pv.value = tn_sqlp_expr(p);
                if (!pv.value) return NULL;
            }
            if (!tn_sqlp_push(p, &v, &pv, sizeof pv)) return NULL;
        } while (tn_sqlp_accept(p, TK_COMMA));
        if (!tn_sqlp_expect(p, TK_RPAREN, "')' after the partition spec")) return NULL;
        s->u.insert.partition = v.data;
        s->u.insert.n_partition = v.n;
    }
    if (tn_sqlp_peek(p, 0)->type == TK_LPAREN && !tn_sqlp_is_query_start(p, 1) &&
        tn_sqlp_peek(p, 1)->type != TK_LPAREN) {
        tn_sqlp_advance(p);
        if (!tn_sqlp_ident_list(p, "a column name", &s->u.insert.columns, &s->u.insert.n_columns) ||
            !tn_sqlp_expect(p, TK_RPAREN, "')' after the column list"))
            return NULL;
    }
    if (!tn_sqlp_is_query_start(p, 0) && tn_sqlp_peek(p, 0)->type != TK_LPAREN)
        return tn_sqlp_fail_expected(p, "SELECT or VALUES");
    s->u.insert.query = tn_sqlp_query(p);
    return s->u.insert.query ? s : NULL;
}

/* [AS] alias after the target of DELETE/UPDATE (not SET/WHERE). */
static bool target_alias(tn_sql_parser *p, tn_sql_ident *alias) {
    if (tn_sqlp_accept_kw(p, KW_AS)) return tn_sqlp_ident(p, "an alias after AS", alias);
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (tn_sqlp_tok_is_colid(t) && !(t->type == TK_IDENT && t->kw == KW_SET)) {
        *alias = tn_sqlp_tok_ident(t);
        tn_sqlp_advance(p);
    }
    return true;
}

static tn_sql_stmt *delete_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_DELETE, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (!tn_sqlp_expect_kw(p, KW_FROM, "FROM after DELETE")) return NULL;
    if (!tn_sqlp_qname(p, "a table name", &s->u.delete_.table)) return NULL;
    if (!target_alias(p, &s->u.delete_.alias)) return NULL;
    if (tn_sqlp_accept_kw(p, KW_WHERE)) {
        s->u.delete_.where = tn_sqlp_expr(p);
        if (!s->u.delete_.where) return NULL;
    }
    return s;
}

static tn_sql_stmt *update_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_UPDATE, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (!tn_sqlp_qname(p, "a table name", &s->u.update.table)) return NULL;
    if (!target_alias(p, &s->u.update.alias)) return NULL;
    if (!tn_sqlp_expect_kw(p, KW_SET, "SET after the table name")) return NULL;
    tn_vec cols = {0}, vals = {0};
    do {
        tn_sql_ident c;
        if (!tn_sqlp_ident(p, "a column name", &c)) return NULL;
        if (!tn_sqlp_expect(p, TK_EQ, "'=' after the column name")) return NULL;
        tn_sql_expr *e = tn_sqlp_expr(p);
        if (!e || !tn_sqlp_push(p, &cols, &c, sizeof c) || !tn_sqlp_push(p, &vals, &e, sizeof e)) return NULL;
    } while (tn_sqlp_accept(p, TK_COMMA));
    s->u.update.set_columns = cols.data;
    s->u.update.set_values = vals.data;
    s->u.update.n_sets = cols.n;
    if (tn_sqlp_accept_kw(p, KW_WHERE)) {
        s->u.update.where = tn_sqlp_expr(p);
        if (!s->u.update.where) return NULL;
    }
    return s;
}


/* MERGE INTO target [[AS] t] USING source [[AS] s] ON cond
 *   { WHEN MATCHED [AND c] THEN { UPDATE SET { * | col = e, ... } | DELETE }
 *   | WHEN NOT MATCHED [BY TARGET] [AND c] THEN INSERT { * | [(cols)] VALUES (e, ...) }
 *   | WHEN NOT MATCHED BY SOURCE [AND c] THEN { UPDATE SET col = e, ... | DELETE } } ...
 * MATCHED, SOURCE and TARGET are plain words here (not keywords elsewhere). */
static bool is_word(const tn_sql_parser *p, int ahead, const char *word) {
    const tn_sql_token *t = tn_sqlp_peek(p, ahead);
    return t->type == TK_IDENT && t->kw == KW_NONE && strcmp(t->text, word) == 0;
}

static bool expect_word(tn_sql_parser *p, const char *word, const char *what) {
    if (!is_word(p, 0, word)) return tn_sqlp_fail_expected(p, what) != NULL;
    tn_sqlp_advance(p);
    return true;
}

static bool merge_set_list(tn_sql_parser *p, tn_sql_merge_clause *c) {
    if (tn_sqlp_accept(p, TK_STAR)) {
        c->star = true;
        return true;
    }
    tn_vec cols = {0}, vals = {0};
    do {
        tn_sql_ident col;
        if (!tn_sqlp_ident(p, "a column name", &col)) return false;
        /* SET t.col = ...: the target's qualifier is allowed (Spark writes it) */
        if (tn_sqlp_accept(p, TK_DOT) && !tn_sqlp_ident(p, "a column name", &col)) return false;
        if (!tn_sqlp_expect(p, TK_EQ, "'=' after the column name")) return false;
        tn_sql_expr *e = tn_sqlp_expr(p);
        if (!e || !tn_sqlp_push(p, &cols, &col, sizeof col) || !tn_sqlp_push(p, &vals, &e, sizeof e)) return false;
    } while (tn_sqlp_accept(p, TK_COMMA));
    c->columns = cols.data;
    c->n_columns = cols.n;
    c->values = vals.data;
    c->n_values = vals.n;
    return true;
}

static bool merge_insert(tn_sql_parser *p, tn_sql_merge_clause *c) {
    if (tn_sqlp_accept(p, TK_STAR)) {
        c->star = true;
        return true;
    }
    if (tn_sqlp_is_kw(p, 0, KW_VALUES) == false && tn_sqlp_peek(p, 0)->type == TK_LPAREN) {
        tn_sqlp_advance(p);
        if (!tn_sqlp_ident_list(p, "a column name", &c->columns, &c->n_columns)) return false;
        if (!tn_sqlp_expect(p, TK_RPAREN, "')' after the column list")) return false;
    }
    if (!tn_sqlp_expect_kw(p, KW_VALUES, "VALUES or * after INSERT")) return false;
    if (!tn_sqlp_expect(p, TK_LPAREN, "'(' after VALUES")) return false;
    tn_sql_expr_list l;
    memset(&l, 0, sizeof l);
    if (!tn_sqlp_expr_list(p, &l)) return false;
    if (!tn_sqlp_expect(p, TK_RPAREN, "')' after the values")) return false;
    c->values = l.items;
    c->n_values = l.n;
    return true;
}

static tn_sql_stmt *merge_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_MERGE, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (!tn_sqlp_expect_kw(p, KW_INTO, "INTO after MERGE")) return NULL;
    if (!tn_sqlp_qname(p, "a table name", &s->u.merge.table)) return NULL;
    if (tn_sqlp_accept_kw(p, KW_AS)) {
        if (!tn_sqlp_ident(p, "an alias after AS", &s->u.merge.alias)) return NULL;
    } else if (tn_sqlp_tok_is_colid(tn_sqlp_peek(p, 0)) && !tn_sqlp_is_kw(p, 0, KW_USING)) {
        s->u.merge.alias = tn_sqlp_tok_ident(tn_sqlp_peek(p, 0));
        tn_sqlp_advance(p);
    }
    if (!tn_sqlp_expect_kw(p, KW_USING, "USING after the target table")) return NULL;
    s->u.merge.source = tn_sqlp_table_primary(p);
    if (!s->u.merge.source) return NULL;
    if (!tn_sqlp_expect_kw(p, KW_ON, "ON after the source")) return NULL;
    s->u.merge.on = tn_sqlp_expr(p);
    if (!s->u.merge.on) return NULL;
    tn_vec clauses = {0};
    while (tn_sqlp_is_kw(p, 0, KW_WHEN)) {
        tn_sql_merge_clause c;
        memset(&c, 0, sizeof c);
        c.pos = tn_sqlp_peek(p, 0)->pos;
        tn_sqlp_advance(p);
        c.when = TN_SQL_MERGE_MATCHED;
        if (tn_sqlp_accept_kw(p, KW_NOT)) {
            c.when = TN_SQL_MERGE_NOT_MATCHED;
            if (!expect_word(p, "matched", "MATCHED after WHEN NOT")) return NULL;
            if (tn_sqlp_accept_kw(p, KW_BY)) {
                if (is_word(p, 0, "source")) c.when = TN_SQL_MERGE_NOT_MATCHED_BY_SOURCE;
                else if (!is_word(p, 0, "target")) return tn_sqlp_fail_expected(p, "SOURCE or TARGET after NOT MATCHED BY");
                tn_sqlp_advance(p);
            }
        } else if (!expect_word(p, "matched", "MATCHED or NOT MATCHED after WHEN")) {
            return NULL;
        }
        if (tn_sqlp_accept_kw(p, KW_AND) && !(c.cond = tn_sqlp_expr(p))) return NULL;
        if (!tn_sqlp_expect_kw(p, KW_THEN, "THEN")) return NULL;
        if (tn_sqlp_accept_kw(p, KW_DELETE)) {
            if (c.when == TN_SQL_MERGE_NOT_MATCHED) return tn_sqlp_fail_at(p, c.pos, "WHEN NOT MATCHED takes INSERT, not DELETE");
            c.action = TN_SQL_MERGE_DELETE;
        } else if (tn_sqlp_accept_kw(p, KW_UPDATE)) {
            if (c.when == TN_SQL_MERGE_NOT_MATCHED) return tn_sqlp_fail_at(p, c.pos, "WHEN NOT MATCHED takes INSERT, not UPDATE");
            c.action = TN_SQL_MERGE_UPDATE;
            if (!tn_sqlp_expect_kw(p, KW_SET, "SET after UPDATE")) return NULL;
            if (!merge_set_list(p, &c)) return NULL;
            if (c.star && c.when == TN_SQL_MERGE_NOT_MATCHED_BY_SOURCE)
                return tn_sqlp_fail_at(p, c.pos, "WHEN NOT MATCHED BY SOURCE cannot UPDATE SET * (there is no source row)");
        } else if (tn_sqlp_accept_kw(p, KW_INSERT)) {
            if (c.when != TN_SQL_MERGE_NOT_MATCHED) return tn_sqlp_fail_at(p, c.pos, "INSERT is only allowed in WHEN NOT MATCHED");
            c.action = TN_SQL_MERGE_INSERT;
            if (!merge_insert(p, &c)) return NULL;
        } else {
            return tn_sqlp_fail_expected(p, "UPDATE, DELETE or INSERT after THEN");
        }
        if (!tn_sqlp_push(p, &clauses, &c, sizeof c)) return NULL;
    }
    if (clauses.n == 0) return tn_sqlp_fail_expected(p, "WHEN MATCHED or WHEN NOT MATCHED");
    s->u.merge.clauses = clauses.data;
    s->u.merge.n_clauses = clauses.n;
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * ALTER, OPTIMIZE, VACUUM, DESCRIBE, SHOW, COPY, SET, EXPLAIN.
 */
static tn_sql_stmt *alter_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_ALTER_TABLE, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (!tn_sqlp_expect_kw(p, KW_TABLE, "TABLE after ALTER")) return NULL;
    if (!tn_sqlp_qname(p, "a table name", &s->u.alter.table)) return NULL;
    if (tn_sqlp_accept_kw(p, KW_SET)) {
        s->u.alter.action = TN_SQL_ALTER_SET_OPTIONS;
        const char *after = "SET";
        if (tn_sqlp_accept_kw(p, KW_TBLPROPERTIES)) after = "TBLPROPERTIES";
        else if (tn_sqlp_accept_kw(p, KW_OPTIONS)) after = "OPTIONS";
        if (!option_list(p, &s->u.alter.options, true, after)) return NULL;
    } else if (tn_sqlp_peek(p, 0)->type == TK_IDENT && tn_str_iequal(tn_sqlp_peek(p, 0)->text, "unset")) {
        tn_sqlp_advance(p);
        s->u.alter.action = TN_SQL_ALTER_UNSET_OPTIONS;
        const char *after = "UNSET";
        if (tn_sqlp_accept_kw(p, KW_TBLPROPERTIES)) after = "TBLPROPERTIES";
        s->u.alter.if_exists = if_exists(p);
        if (!option_list(p, &s->u.alter.options, false, after)) return NULL;
    } else if (tn_sqlp_is_kw(p, 0, KW_ADD) && tn_sqlp_is_kw(p, 1, KW_CONSTRAINT)) {
        tn_sqlp_advance(p);
        tn_sqlp_advance(p);
        s->u.alter.action = TN_SQL_ALTER_ADD_CONSTRAINT;
        if (!tn_sqlp_ident(p, "a constraint name", &s->u.alter.constraint_name)) return NULL;
        const tn_sql_token *ck = tn_sqlp_peek(p, 0);
        if (ck->type != TK_IDENT || !tn_str_iequal(ck->text, "check"))
            return tn_sqlp_fail_expected(p, "CHECK after the constraint name (tarn supports CHECK constraints)");
        tn_sqlp_advance(p);
        if (!tn_sqlp_expect(p, TK_LPAREN, "( after CHECK")) return NULL;
        uint32_t start = tn_sqlp_peek(p, 0)->pos.offset;
        s->u.alter.check = tn_sqlp_expr(p);
        if (!s->u.alter.check) return NULL;
        uint32_t end = tn_sqlp_peek(p, 0)->pos.offset;
        if (!tn_sqlp_expect(p, TK_RPAREN, ") after the CHECK expression")) return NULL;
        while (end > start && (p->src[end - 1] == ' ' || p->src[end - 1] == '\n' || p->src[end - 1] == '\t')) end--;
        s->u.alter.check_text = tn_arena_strndup(p->arena, p->src + start, end - start);
        if (!s->u.alter.check_text) return NULL;
    } else if (tn_sqlp_is_kw(p, 0, KW_DROP) && tn_sqlp_is_kw(p, 1, KW_CONSTRAINT)) {
        tn_sqlp_advance(p);
        tn_sqlp_advance(p);
        s->u.alter.action = TN_SQL_ALTER_DROP_CONSTRAINT;
        s->u.alter.if_exists = if_exists(p);
        if (!tn_sqlp_ident(p, "a constraint name", &s->u.alter.constraint_name)) return NULL;
    } else if (tn_sqlp_accept_kw(p, KW_ADD)) {
        s->u.alter.action = TN_SQL_ALTER_ADD_COLUMN;
        tn_sqlp_accept_kw(p, KW_COLUMN);
        s->u.alter.if_exists = if_not_exists(p);
        if (!column_def(p, &s->u.alter.column, NULL)) return NULL;
    } else if (tn_sqlp_accept_kw(p, KW_DROP)) {
        s->u.alter.action = TN_SQL_ALTER_DROP_COLUMN;
        tn_sqlp_accept_kw(p, KW_COLUMN);
        s->u.alter.if_exists = if_exists(p);
        if (!tn_sqlp_ident(p, "a column name", &s->u.alter.column.name)) return NULL;
    } else if (tn_sqlp_accept_kw(p, KW_RENAME)) {
        if (tn_sqlp_accept_kw(p, KW_TO)) {
            s->u.alter.action = TN_SQL_ALTER_RENAME_TO;
            if (!tn_sqlp_qname(p, "a table name", &s->u.alter.new_name)) return NULL;
        } else {
            s->u.alter.action = TN_SQL_ALTER_RENAME_COLUMN;
            tn_sqlp_accept_kw(p, KW_COLUMN);
            if (!tn_sqlp_ident(p, "TO or a column name after RENAME", &s->u.alter.column.name) ||
                !tn_sqlp_expect_kw(p, KW_TO, "TO after the column name") ||
                !tn_sqlp_ident(p, "a column name", &s->u.alter.new_column))
                return NULL;
        }
    } else {
        return tn_sqlp_fail_expected(p, "SET, UNSET, ADD, DROP or RENAME after the table name");
    }
    return s;
}

static tn_sql_stmt *optimize_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_OPTIMIZE, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    tn_sqlp_accept_kw(p, KW_TABLE);
    if (!tn_sqlp_qname(p, "a table name", &s->u.optimize.table)) return NULL;
    if (tn_sqlp_accept_kw(p, KW_WHERE)) {
        s->u.optimize.where = tn_sqlp_expr(p);
        if (!s->u.optimize.where) return NULL;
    }
    if (tn_sqlp_accept_kw(p, KW_ZORDER)) {
        if (!tn_sqlp_expect_kw(p, KW_BY, "BY after ZORDER")) return NULL;
        bool paren = tn_sqlp_accept(p, TK_LPAREN);
        if (!tn_sqlp_ident_list(p, "a column name", &s->u.optimize.zorder, &s->u.optimize.n_zorder)) return NULL;
        if (paren && !tn_sqlp_expect(p, TK_RPAREN, "')' after ZORDER BY columns")) return NULL;
    }
    if (tn_sqlp_accept_kw(p, KW_WITH) || tn_sqlp_accept_kw(p, KW_OPTIONS)) {
        if (!option_list(p, &s->u.optimize.options, true, "WITH")) return NULL;
    }
    return s;
}

static tn_sql_stmt *vacuum_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_VACUUM, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (!tn_sqlp_qname(p, "a table name", &s->u.vacuum.table)) return NULL;
    if (tn_sqlp_accept_kw(p, KW_RETAIN)) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        if (t->type != TK_INTEGER && t->type != TK_DECIMAL) return tn_sqlp_fail_expected(p, "a number of hours after RETAIN");
        s->u.vacuum.retain = t->text;
        tn_sqlp_advance(p);
        t = tn_sqlp_peek(p, 0);
        if (t->type != TK_IDENT || (strcmp(t->text, "hours") != 0 && strcmp(t->text, "hour") != 0))
            return tn_sqlp_fail_expected(p, "HOURS after the retention");
        tn_sqlp_advance(p);
    }
    if (tn_sqlp_is_kw(p, 0, KW_DRY) && tn_sqlp_is_kw(p, 1, KW_RUN)) {
        p->i += 2;
        s->u.vacuum.dry_run = true;
    }
    return s;
}

static tn_sql_stmt *describe_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_DESCRIBE, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    /* DESCRIBE HISTORY t, unless HISTORY is the table being described. */
    if (tn_sqlp_is_kw(p, 0, KW_HISTORY) && (tn_sqlp_tok_is_colid(tn_sqlp_peek(p, 1)) || tn_sqlp_is_kw(p, 1, KW_TABLE))) {
        tn_sqlp_advance(p);
        s->u.describe.history = true;
    } else if (is_word(p, 0, "index") && (tn_sqlp_tok_is_colid(tn_sqlp_peek(p, 1)) || tn_sqlp_is_kw(p, 1, KW_TABLE))) {
        tn_sqlp_advance(p);            /* DESCRIBE INDEX t (a plain word: "index" stays a name elsewhere) */
        s->u.describe.index = true;
    }
    if (!s->u.describe.history && !s->u.describe.index && (tn_sqlp_is_query_start(p, 0) || tn_sqlp_peek(p, 0)->type == TK_LPAREN)) {
        s->u.describe.query = tn_sqlp_query(p);
        return s->u.describe.query ? s : NULL;
    }
    tn_sqlp_accept_kw(p, KW_TABLE);
    if (!tn_sqlp_qname(p, "a table name", &s->u.describe.table)) return NULL;
    return s;
}

static tn_sql_stmt *show_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_SHOW, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (tn_sqlp_is_kw(p, 0, KW_CREATE) && tn_sqlp_is_kw(p, 1, KW_TABLE)) {   /* Spark, Flink: SHOW CREATE TABLE t */
        p->i += 2;
        s->kind = TN_SQL_S_DESCRIBE;
        s->u.describe.show_create = true;
        if (!tn_sqlp_qname(p, "a table name", &s->u.describe.table)) return NULL;
        return s;
    }
    if (tn_sqlp_is_kw(p, 0, KW_TBLPROPERTIES)) {      /* Spark, Delta: SHOW TBLPROPERTIES t [('key')] */
        tn_sqlp_advance(p);
        s->kind = TN_SQL_S_DESCRIBE;
        s->u.describe.show_properties = true;
        if (!tn_sqlp_qname(p, "a table name", &s->u.describe.table)) return NULL;
        if (tn_sqlp_peek(p, 0)->type == TK_LPAREN) {
            tn_sqlp_advance(p);
            if (!string_arg(p, "a property key (a string)", &s->u.describe.property)) return NULL;
            if (!tn_sqlp_expect(p, TK_RPAREN, "')' after the property key")) return NULL;
        }
        return s;
    }
    if (tn_sqlp_accept_kw(p, KW_ALL)) {              /* DuckDB: SHOW ALL TABLES */
        if (!tn_sqlp_accept_kw(p, KW_TABLES)) return tn_sqlp_fail_expected(p, "TABLES after SHOW ALL");
        s->u.show.what = TN_SQL_SHOW_TABLES;
        s->u.show.all = true;
    } else if (tn_sqlp_accept_kw(p, KW_TABLES)) {
        s->u.show.what = TN_SQL_SHOW_TABLES;
        if (tn_sqlp_accept_kw(p, KW_IN) || tn_sqlp_accept_kw(p, KW_FROM)) {
            if (!tn_sqlp_qname(p, "a schema name", &s->u.show.in)) return NULL;
        }
    } else if (tn_sqlp_accept_kw(p, KW_SCHEMAS) || tn_sqlp_accept_kw(p, KW_DATABASES)) {
        s->u.show.what = TN_SQL_SHOW_SCHEMAS;
    } else {
        return tn_sqlp_fail_expected(p, "TABLES, SCHEMAS, CREATE TABLE or TBLPROPERTIES after SHOW");
    }
    return s;
}

/* PostgreSQL's pre-9.0 COPY options, still what psql's \copy and many scripts send:
 * [BINARY] [CSV [HEADER] [QUOTE [AS] 'q'] [ESCAPE [AS] 'e']] [DELIMITER [AS] 'd'] [NULL [AS] 'n'],
 * as options (format csv / binary, header, delimiter, null, quote, escape). */
static bool legacy_copy_options(tn_sql_parser *p, tn_sql_options *opts) {
    tn_vec v = {opts->items, opts->n, opts->n};
    for (;;) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        if (t->type != TK_IDENT) break;
        tn_sql_option o;
        memset(&o, 0, sizeof o);
        o.pos = o.value_pos = t->pos;
        const char *w = t->text;
        if (strcmp(w, "csv") == 0 || strcmp(w, "binary") == 0) {
            o.key = "format";
            o.value = w;
            o.kind = TN_SQL_VALUE_STRING;
            tn_sqlp_advance(p);
        } else if (strcmp(w, "header") == 0) {
            o.key = "header";
            tn_sqlp_advance(p);
        } else if (strcmp(w, "delimiter") == 0 || strcmp(w, "null") == 0 || strcmp(w, "quote") == 0 ||
                   strcmp(w, "escape") == 0 || strcmp(w, "encoding") == 0) {
            o.key = w;
            tn_sqlp_advance(p);
            tn_sqlp_accept_kw(p, KW_AS);
            o.value_pos = tn_sqlp_peek(p, 0)->pos;
            if (!string_arg(p, "a string", &o.value)) return false;
            o.kind = TN_SQL_VALUE_STRING;
        } else {
            break;
        }
        if (!tn_sqlp_push(p, &v, &o, sizeof o)) return false;
    }
    opts->items = v.data;
    opts->n = v.n;
    return true;
}

static tn_sql_stmt *copy_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_COPY, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    if (tn_sqlp_peek(p, 0)->type == TK_LPAREN) {
        tn_sqlp_advance(p);
        s->u.copy.query = tn_sqlp_query(p);
        if (!s->u.copy.query || !tn_sqlp_expect(p, TK_RPAREN, "')' after the query")) return NULL;
        if (!tn_sqlp_expect_kw(p, KW_TO, "TO after COPY (query)")) return NULL;
        s->u.copy.to = true;
    } else {
        if (!tn_sqlp_qname(p, "a table name or '(' query", &s->u.copy.table)) return NULL;
        if (tn_sqlp_accept(p, TK_LPAREN)) {
            if (!tn_sqlp_ident_list(p, "a column name", &s->u.copy.columns, &s->u.copy.n_columns) ||
                !tn_sqlp_expect(p, TK_RPAREN, "')' after the column list"))
                return NULL;
        }
        if (tn_sqlp_accept_kw(p, KW_TO)) s->u.copy.to = true;
        else if (!tn_sqlp_expect_kw(p, KW_FROM, "FROM or TO after the table name")) return NULL;
    }
    const tn_sql_token *w = tn_sqlp_peek(p, 0);
    if (w->type == TK_IDENT && strcmp(w->text, s->u.copy.to ? "stdout" : "stdin") == 0) {
        /* COPY ... FROM STDIN / TO STDOUT (the pgwire server streams it) */
        tn_sqlp_advance(p);
        s->u.copy.stdio = true;
        bool with = tn_sqlp_accept_kw(p, KW_WITH);
        if (tn_sqlp_peek(p, 0)->type == TK_LPAREN) {
            if (!option_list(p, &s->u.copy.options, false, "COPY")) return NULL;
        } else if (!legacy_copy_options(p, &s->u.copy.options)) {
            return NULL;
        }
        (void)with;
        return s;
    }
    if (!string_arg(p, "a file name string", &s->u.copy.path)) return NULL;
    bool with = tn_sqlp_accept_kw(p, KW_WITH);
    if (with || tn_sqlp_peek(p, 0)->type == TK_LPAREN) {
        if (!option_list(p, &s->u.copy.options, false, "COPY")) return NULL;
    }
    return s;
}

/* SET/RESET's optional scope word before the name: GLOBAL, SESSION or LOCAL (as SESSION). */
static uint8_t set_scope(tn_sql_parser *p) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0), *n = tn_sqlp_peek(p, 1);
    if (t->type != TK_IDENT || (n->type != TK_IDENT && n->type != TK_QIDENT && n->type != TK_STRING)) return 0;
    uint8_t scope = strcmp(t->text, "global") == 0 ? TN_SQL_SCOPE_GLOBAL
                    : strcmp(t->text, "session") == 0 || strcmp(t->text, "local") == 0 ? TN_SQL_SCOPE_SESSION
                                                                                        : TN_SQL_SCOPE_DEFAULT;
    if (scope) tn_sqlp_advance(p);
    return scope;
}

static tn_sql_stmt *set_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_SET, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    uint8_t scope = set_scope(p);
    if (!option(p, &s->u.set, false)) return NULL;
    s->u.set.scope = scope;
    return s;
}

/* PRAGMA name = value (as SET), PRAGMA table_info('t') (a DESCRIBE), PRAGMA show_tables. */
static tn_sql_stmt *pragma_stmt(tn_sql_parser *p) {
    tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
    tn_sqlp_advance(p);                                    /* PRAGMA */
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    tn_tok_type next = tn_sqlp_peek(p, 1)->type;
    if (t->type == TK_IDENT && (strcmp(t->text, "table_info") == 0 || strcmp(t->text, "show") == 0) &&
        next == TK_LPAREN) {
        tn_sql_stmt *s = new_stmt(p, TN_SQL_S_DESCRIBE, pos);
        if (!s) return NULL;
        s->u.describe.table_info = strcmp(t->text, "table_info") == 0;
        p->i += 2;
        const tn_sql_token *a = tn_sqlp_peek(p, 0);
        if (a->type == TK_STRING) {                        /* 'name' or 's.name' */
            const char *dot = memchr(a->text, '.', a->len);
            tn_sql_ident *parts = tn_sqlp_alloc(p, 2 * sizeof *parts);
            if (!parts) return NULL;
            s->u.describe.table.parts = parts;
            if (dot) {
                parts[0].name = tn_arena_strndup(p->arena, a->text, (size_t)(dot - a->text));
                parts[1].name = tn_arena_strndup(p->arena, dot + 1, a->len - (size_t)(dot - a->text) - 1);
                parts[0].pos = parts[1].pos = a->pos;
                s->u.describe.table.n = 2;
            } else {
                parts[0].name = tn_arena_strndup(p->arena, a->text, a->len);
                parts[0].pos = a->pos;
                s->u.describe.table.n = 1;
            }
            tn_sqlp_advance(p);
        } else if (!tn_sqlp_qname(p, "a table name", &s->u.describe.table)) {
            return NULL;
        }
        if (!tn_sqlp_expect(p, TK_RPAREN, "')' after the table name")) return NULL;
        return s;
    }
    if (t->type == TK_IDENT && strcmp(t->text, "show_tables") == 0 && (next == TK_SEMI || next == TK_EOF)) {
        tn_sql_stmt *s = new_stmt(p, TN_SQL_S_SHOW, pos);
        if (!s) return NULL;
        tn_sqlp_advance(p);
        s->u.show.what = TN_SQL_SHOW_TABLES;
        return s;
    }
    if ((t->type == TK_IDENT || t->type == TK_QIDENT) && (next == TK_EQ || tn_sqlp_is_kw(p, 1, KW_TO))) {
        tn_sql_stmt *s = new_stmt(p, TN_SQL_S_SET, pos);
        if (!s) return NULL;
        if (!option(p, &s->u.set, false)) return NULL;
        return s;
    }
    return tn_sqlp_fail_expected(p, "a PRAGMA tarn knows: name = value (a setting), table_info('t'), show_tables");
}

/* BEGIN [TRANSACTION], START TRANSACTION, COMMIT / END [TRANSACTION], ROLLBACK / ABORT. */
static tn_sql_stmt *txn_stmt(tn_sql_parser *p, tn_sql_txn_op op) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_TRANSACTION, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    s->u.txn = op;
    bool start = strcmp(tn_sqlp_peek(p, 0)->text, "start") == 0;
    tn_sqlp_advance(p);
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type == TK_IDENT && (strcmp(t->text, "transaction") == 0 || strcmp(t->text, "work") == 0))
        tn_sqlp_advance(p);
    else if (start)
        return tn_sqlp_fail_expected(p, "TRANSACTION after START");
    return s;
}

static tn_sql_stmt *checkpoint_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_CHECKPOINT, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    if (strcmp(tn_sqlp_peek(p, 0)->text, "force") == 0) tn_sqlp_advance(p);
    tn_sqlp_advance(p);                                    /* CHECKPOINT */
    if (tn_sqlp_tok_is_colid(tn_sqlp_peek(p, 0))) tn_sqlp_advance(p);   /* a database name */
    return s;
}

/* A statement word that is not a keyword (keywords.c stays small): MERGE, PRAGMA, ... */
static bool word_is(const tn_sql_token *t, const char *w) { return t->type == TK_IDENT && strcmp(t->text, w) == 0; }

static tn_sql_stmt *statement(tn_sql_parser *p);

static tn_sql_stmt *explain_stmt(tn_sql_parser *p) {
    tn_sql_stmt *s = new_stmt(p, TN_SQL_S_EXPLAIN, tn_sqlp_peek(p, 0)->pos);
    if (!s) return NULL;
    tn_sqlp_advance(p);
    s->u.explain.analyze = tn_sqlp_accept_kw(p, KW_ANALYZE);
    if (!tn_sqlp_enter(p)) return NULL;
    s->u.explain.stmt = statement(p);
    tn_sqlp_leave(p);
    return s->u.explain.stmt ? s : NULL;
}

static tn_sql_stmt *statement(tn_sql_parser *p) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (tn_sqlp_is_query_start(p, 0) || t->type == TK_LPAREN) {
        tn_sql_stmt *s = new_stmt(p, TN_SQL_S_QUERY, t->pos);
        if (!s) return NULL;
        s->u.query = tn_sqlp_query(p);
        return s->u.query ? s : NULL;
    }
    if (t->type == TK_IDENT) {
        switch (t->kw) {
        case KW_CREATE: return create_stmt(p);
        case KW_DROP: return drop_stmt(p);
        case KW_INSERT:
        case KW_UPSERT: return insert_stmt(p);
        case KW_DELETE: return delete_stmt(p);
        case KW_UPDATE: return update_stmt(p);
        case KW_ALTER: return alter_stmt(p);
        case KW_OPTIMIZE: return optimize_stmt(p);
        case KW_VACUUM: return vacuum_stmt(p);
        case KW_DESCRIBE:
        case KW_DESC: return describe_stmt(p);
        case KW_SHOW: return show_stmt(p);
        case KW_COPY: return copy_stmt(p);
        case KW_SET: return set_stmt(p);
        case KW_EXPLAIN: return explain_stmt(p);
        case KW_END:
            if (tn_sqlp_peek(p, 1)->type == TK_SEMI || tn_sqlp_peek(p, 1)->type == TK_EOF ||
                word_is(tn_sqlp_peek(p, 1), "transaction"))
                return txn_stmt(p, TN_SQL_TXN_COMMIT);
            break;
        case KW_NONE:
            if (strcmp(t->text, "merge") == 0 && tn_sqlp_is_kw(p, 1, KW_INTO)) return merge_stmt(p);
            if (strcmp(t->text, "pragma") == 0) return pragma_stmt(p);
            if (strcmp(t->text, "prepare") == 0 && tn_sqlp_peek(p, 1)->type != TK_EOF) return tn_sqlp_prepare(p, statement);
            if (strcmp(t->text, "execute") == 0 && tn_sqlp_peek(p, 1)->type != TK_EOF) return tn_sqlp_execute(p);
            if (strcmp(t->text, "deallocate") == 0) return tn_sqlp_deallocate(p);
            if (strcmp(t->text, "reset") == 0 && tn_sqlp_peek(p, 1)->type == TK_IDENT) {
                /* RESET name: SET name back to its default (a SET without value) */
                tn_sql_stmt *s = new_stmt(p, TN_SQL_S_SET, t->pos);
                if (!s) return NULL;
                tn_sqlp_advance(p);
                uint8_t scope = set_scope(p);
                if (!option_key(p, &s->u.set)) return NULL;
                s->u.set.scope = scope;
                s->u.set.value_pos = s->u.set.pos;
                return s;
            }
            if (strcmp(t->text, "begin") == 0 || (strcmp(t->text, "start") == 0 && word_is(tn_sqlp_peek(p, 1), "transaction")))
                return txn_stmt(p, TN_SQL_TXN_BEGIN);
            if (strcmp(t->text, "commit") == 0) return txn_stmt(p, TN_SQL_TXN_COMMIT);
            if (strcmp(t->text, "rollback") == 0 || strcmp(t->text, "abort") == 0) return txn_stmt(p, TN_SQL_TXN_ROLLBACK);
            if (strcmp(t->text, "checkpoint") == 0 ||
                (strcmp(t->text, "force") == 0 && word_is(tn_sqlp_peek(p, 1), "checkpoint")))
                return checkpoint_stmt(p);
            break;
        default: break;
        }
    }
    return tn_sqlp_fail_expected(p, "a statement (SELECT, INSERT, CREATE, ...)");
}

/* ---------------------------------------------------------------------------------------------
 * Entry point.
 */
int tn_sql_parse_n(tn_arena *arena, const char *sql, size_t len, tn_sql_stmt_list *out) {
    tn_sql_parser p = {0};
    tn_vec stmts = {0};
    tn_sql_pos start = {1, 1, 0};
    int rc = 0;
    out->stmts = NULL;
    out->n = 0;
    if (!arena || (!sql && len)) return tn_error_set(TN_EINVAL, "tn_sql_parse: no arena or no text");
    if (len >= UINT32_MAX / 2) return tn_error_set(TN_ELIMIT, "SQL text too long (%zu bytes)", len);
    p.arena = arena;
    p.src = sql ? sql : "";
    p.src_len = len;
    size_t bad = tn_utf8_check(p.src, len);
    if (bad < len) {                   /* a VARCHAR literal must hold UTF-8, as in DuckDB */
        uint32_t line = 1, col = 1;
        for (size_t i = 0; i < bad; i++) {
            if (p.src[i] == '\n') { line++; col = 1; }
            else if (((unsigned char)p.src[i] & 0xC0) != 0x80) col++;
        }
        /* the line shown under the message, with its ill-formed bytes as '?' */
        size_t ls = bad, le = bad;
        while (ls > 0 && p.src[ls - 1] != '\n') ls--;
        while (le < len && p.src[le] != '\n') le++;
        char *shown = tn_arena_alloc(arena, le - ls + 1);
        if (!shown) return TN_ENOMEM;
        for (size_t i = ls; i < le;) {
            size_t ok = tn_utf8_check(p.src + i, le - i);
            memcpy(shown + (i - ls), p.src + i, ok);
            i += ok;
            if (i < le) shown[i++ - ls] = '?';
        }
        tn_sql_pos at = {line, col, (uint32_t)(bad - ls)};
        return tn_sql_syntax_error(shown, le - ls, at, "invalid UTF-8 in the SQL text (byte 0x%02x)",
                                   (unsigned)(unsigned char)p.src[bad]);
    }
    rc = tn_sql_lex(arena, p.src, len, 0, (uint32_t)len, start, true, &p.toks, &p.n_toks);
    if (rc) goto cleanup;
    for (;;) {
        while (tn_sqlp_accept(&p, TK_SEMI)) {}
        if (tn_sqlp_peek(&p, 0)->type == TK_EOF) break;
        int first = p.i;
        p.n_params = 0;
        p.next_qparam = 0;
        p.depth = 0;
        tn_sql_stmt *s = statement(&p);
        if (s && !(tn_sqlp_peek(&p, 0)->type == TK_SEMI || tn_sqlp_peek(&p, 0)->type == TK_EOF))
            s = tn_sqlp_fail_expected(&p, "';' or end of input");
        if (!s) {
            rc = p.rc ? p.rc : tn_error_set(TN_EINTERNAL, "SQL parser failed without an error");
            goto cleanup;
        }
        const tn_sql_token *a = &p.toks[first], *b = &p.toks[p.i - 1];
        s->text = tn_arena_strndup(arena, p.src + a->pos.offset, b->pos.offset + b->len - a->pos.offset);
        s->n_params = p.n_params;
        if (!s->text || !tn_sqlp_push(&p, &stmts, &s, sizeof s)) {
            rc = p.rc ? p.rc : tn_error_set(TN_ENOMEM, "out of memory while parsing SQL");
            goto cleanup;
        }
    }
    out->stmts = stmts.data;
    out->n = stmts.n;
cleanup:
    return rc;
}

int tn_sql_parse(tn_arena *arena, const char *sql, tn_sql_stmt_list *out) {
    return tn_sql_parse_n(arena, sql, sql ? strlen(sql) : 0, out);
}
