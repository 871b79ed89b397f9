/*
 * sql/macro.c: CREATE [OR REPLACE] [TEMP] MACRO, DROP MACRO [TABLE], and the expansion of macro
 * calls (DuckDB's): scalar macros in expressions, table macros in FROM.
 *
 * A macro is kept as its CREATE statement's text: TEMP ones in the session, the others in the
 * warehouse (catalog/macro.c), so they outlive the process as DuckDB's do in its database file.
 * A call is expanded as DuckDB does it, by substitution: the body's text is lexed again, each
 * parameter name becomes a placeholder parameter $N (N >= TN_MACRO_PARAM_BASE), and the result is
 * parsed and bound where the call is. A placeholder binds the call's argument (or the default)
 * in the caller's scope, with the enclosing macro's frame current, so nested macros and
 * arguments that are themselves macro calls work. A macro whose body is an aggregate
 * (`AS sum(x)`) is not recognised as one in the select list yet.
 */
#include <stdio.h>
#include <string.h>

#include "sql/bindInt.h"
#include "sql/parse.h"
#include "sql/parserInt.h"
#include "sql/stmt.h"

typedef struct tn_temp_macro {
    char *name;
    tn_arena *arena;                  /* the parsed CREATE statement */
    tn_sql_stmt *stmt;
    struct tn_temp_macro *next;
} tn_temp_macro;

typedef struct tn_macro_frame {
    tn_sql_expr **args;               /* per parameter: the argument or the default */
    int n;
    struct tn_macro_frame *parent;
} tn_macro_frame;

void tn_macros_free(tn_sql_session *s) {
    while (s->macros) {
        tn_temp_macro *m = s->macros;
        s->macros = m->next;
        tn_arena_destroy(m->arena);
        tn_free(m->name);
        tn_free(m);
    }
}

static tn_temp_macro **temp_find(tn_sql_session *s, const char *name) {
    tn_temp_macro **pp = &s->macros;
    while (*pp && strcmp((*pp)->name, name) != 0) pp = &(*pp)->next;
    return pp;
}

/* Parses a stored CREATE MACRO into arena; NULL stmt when the text holds something else. */
static int parse_def(tn_arena *arena, const char *sql, tn_sql_stmt **out) {
    tn_sql_stmt_list l;
    *out = NULL;
    int rc = tn_sql_parse(arena, sql, &l);
    if (rc) return rc;
    if (l.n != 1 || l.stmts[0]->kind != TN_SQL_S_CREATE_MACRO)
        return tn_error_set(TN_ECORRUPT, "a stored macro is not a CREATE MACRO statement");
    *out = l.stmts[0];
    return 0;
}

static int macro_name(tn_binder *b, const tn_sql_qname *q, tn_sql_pos pos, tn_catalog_name *out) {
    if (q->n > 2) return tn_bind_error(b, pos, "a macro name has at most two parts (schema.name)");
    int rc = tn_catalog_name_make(out, "macro", q->n == 2 ? q->parts[0].name : NULL, q->parts[q->n - 1].name);
    return rc ? tn_bind_error_at(b, rc, pos) : 0;
}

/* The definition of the macro q names (temp first), parsed in b's arena; *out NULL if none. */
static int lookup(tn_binder *b, const tn_sql_qname *q, tn_sql_stmt **out) {
    *out = NULL;
    if (q->n > 2) return 0;
    const char *last = q->parts[q->n - 1].name;
    if (q->n == 1) {
        tn_temp_macro *m = *temp_find(b->session, last);
        if (m) {
            *out = m->stmt;
            return 0;
        }
    }
    if (!b->session->warehouse) return 0;
    tn_catalog_name n;
    if (tn_catalog_name_make(&n, "macro", q->n == 2 ? q->parts[0].name : NULL, last)) {
        tn_error_clear();                 /* not a name a macro can have: not a macro */
        return 0;
    }
    tn_catalog *cat = NULL;
    int rc = tn_stmt_catalog(b, false, &cat);
    if (rc == TN_ENOTFOUND) return tn_error_clear(), 0;
    if (rc) return rc;
    char *sql = NULL;
    if ((rc = tn_catalog_macro_get(cat, &n, &sql)) || !sql) return rc;
    rc = parse_def(b->arena, sql, out);
    tn_free(sql);
    return rc;
}

int tn_macro_statement(tn_binder *b, tn_sql_stmt *stmt) {
    tn_sql_session *s = b->session;
    tn_catalog_name n;
    int rc;
    if (stmt->kind == TN_SQL_S_DROP) {
        bool table_only = stmt->u.drop.object == TN_SQL_OBJ_MACRO_TABLE;
        if ((rc = macro_name(b, &stmt->u.drop.name, stmt->pos, &n))) return rc;
        const char *what = table_only ? "Table Macro Function" : "Macro Function";
        tn_temp_macro **pp = n.schema[0] ? NULL : temp_find(s, n.name);
        if (pp && *pp && (!table_only || (*pp)->stmt->u.create_macro.is_table)) {
            tn_temp_macro *m = *pp;
            *pp = m->next;
            tn_arena_destroy(m->arena);
            tn_free(m->name);
            tn_free(m);
            return 0;
        }
        tn_sql_stmt *def = NULL;
        if ((rc = lookup(b, &stmt->u.drop.name, &def))) return tn_bind_error_at(b, rc, stmt->pos);
        if (!def || (table_only && !def->u.create_macro.is_table)) {
            if (stmt->u.drop.if_exists) return 0;
            return tn_bind_error_code(b, TN_ENOTFOUND, stmt->u.drop.name.parts[0].pos, "%s with name %s does not exist!",
                                      what, n.name);
        }
        tn_catalog *cat = NULL;
        bool dropped = false;
        rc = tn_stmt_catalog(b, false, &cat);
        if (!rc) rc = tn_catalog_macro_drop(cat, &n, &dropped);
        return rc ? tn_bind_error_at(b, rc, stmt->pos) : 0;
    }
    /* CREATE MACRO */
    if ((rc = macro_name(b, &stmt->u.create_macro.name, stmt->pos, &n))) return rc;
    bool or_replace = stmt->u.create_macro.or_replace, if_not_exists = stmt->u.create_macro.if_not_exists;
    if (stmt->u.create_macro.temporary) {
        if (n.schema[0] && strcmp(n.schema, "temp") != 0)
            return tn_bind_error(b, stmt->pos, "TEMPORARY macros cannot have a schema (%s)", n.schema);
        tn_temp_macro **pp = temp_find(s, n.name);
        if (*pp && !or_replace) {
            if (if_not_exists) return 0;
            return tn_bind_error_code(b, TN_EEXISTS, stmt->pos, "Macro Function with name \"%s\" already exists!", n.name);
        }
        tn_temp_macro *m = tn_calloc(1, sizeof *m);
        if (!m) return TN_ENOMEM;
        m->arena = tn_arena_create(0);
        m->name = tn_strdup(n.name);
        if (!m->arena || !m->name || (rc = parse_def(m->arena, stmt->text, &m->stmt))) {
            tn_arena_destroy(m->arena);
            tn_free(m->name);
            tn_free(m);
            return rc ? rc : TN_ENOMEM;
        }
        if (*pp) {                        /* OR REPLACE */
            tn_temp_macro *old = *pp;
            m->next = old->next;
            *pp = m;
            tn_arena_destroy(old->arena);
            tn_free(old->name);
            tn_free(old);
        } else {
            m->next = s->macros;
            s->macros = m;
        }
        return 0;
    }
    tn_catalog *cat = NULL;
    if ((rc = tn_stmt_catalog(b, true, &cat))) return tn_bind_error_at(b, rc, stmt->pos);
    bool existed = false;
    rc = tn_catalog_macro_put(cat, &n, stmt->text, or_replace, &existed);
    if (rc) return tn_bind_error_at(b, rc, stmt->pos);
    if (existed && !if_not_exists)
        return tn_bind_error_code(b, TN_EEXISTS, stmt->pos, "Macro Function with name \"%s\" already exists!", n.name);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Expansion.
 */

/* Matches the call's arguments to the macro's parameters (positional ones in order, then by
 * name; defaults for the rest) into frame->args. */
static int match_args(tn_binder *b, const tn_sql_stmt *def, const tn_sql_expr *call, tn_macro_frame *frame) {
    int np = def->u.create_macro.n_params, na = call->u.func.args.n;
    frame->n = np;
    frame->args = np ? tn_arena_calloc(b->arena, (size_t)np * sizeof *frame->args) : NULL;
    if (np && !frame->args) return TN_ENOMEM;
    bool bad = false;
    for (int i = 0; i < na && !bad; i++) {
        const char *an = call->u.func.arg_names ? call->u.func.arg_names[i].name : NULL;
        int k = -1;
        if (!an) k = i < np ? i : -1;
        else
            for (int j = 0; j < np; j++)
                if (tn_str_iequal(def->u.create_macro.params[j].name, an)) k = j;
        if (k < 0 || frame->args[k]) bad = true;
        else frame->args[k] = call->u.func.args.items[i];
    }
    for (int j = 0; j < np && !bad; j++) {
        if (!frame->args[j]) frame->args[j] = def->u.create_macro.defaults ? def->u.create_macro.defaults[j] : NULL;
        if (!frame->args[j]) bad = true;
    }
    if (!bad) return 0;
    tn_buf sig = TN_BUF_INIT;
    const tn_sql_qname *q = &def->u.create_macro.name;
    tn_buf_printf(&sig, "%s(", q->parts[q->n - 1].name);
    for (int j = 0; j < np; j++)
        tn_buf_printf(&sig, "%s%s%s", j ? ", " : "", def->u.create_macro.params[j].name,
                      def->u.create_macro.defaults && def->u.create_macro.defaults[j] ? " := ..." : "");
    tn_buf_append(&sig, ")", 2);
    int rc = tn_bind_error(b, call->pos,
                           "Macro %s() does not support the supplied arguments. You might need to add explicit type casts.\n"
                           "Candidate macros:\n\t%s",
                           q->parts[q->n - 1].name, sig.data ? (const char *)sig.data : "");
    tn_buf_free(&sig);
    return rc;
}

/* The body's text with each parameter reference replaced by its placeholder $N, parsed: the
 * expression (scalar) or the query (table) in b's arena. */
static int expand(tn_binder *b, const tn_sql_stmt *def, tn_sql_expr **expr, tn_sql_query **query) {
    const char *body = def->u.create_macro.body_text;
    size_t blen = strlen(body);
    tn_sql_token *toks = NULL;
    int nt = 0;
    tn_sql_pos start = {1, 1, 0};
    int rc = tn_sql_lex(b->arena, body, blen, 0, (uint32_t)blen, start, false, &toks, &nt);
    if (rc) return rc;
    tn_buf out = TN_BUF_INIT;
    const char *prefix = def->u.create_macro.is_table ? "" : "SELECT ";
    rc = tn_buf_append(&out, prefix, strlen(prefix));
    size_t at = 0;
    for (int i = 0; i < nt && !rc; i++) {
        const tn_sql_token *t = &toks[i];
        if (t->type != TK_IDENT && t->type != TK_QIDENT) continue;
        int k = -1;
        for (int j = 0; j < def->u.create_macro.n_params; j++)
            if (tn_str_iequal(def->u.create_macro.params[j].name, t->text)) k = j;
        if (k < 0) continue;
        tn_tok_type prev = i > 0 ? toks[i - 1].type : TK_EOF, next = i + 1 < nt ? toks[i + 1].type : TK_EOF;
        bool prev_as = i > 0 && toks[i - 1].type == TK_IDENT && toks[i - 1].kw == KW_AS;
        if (prev == TK_DOT || next == TK_DOT || next == TK_LPAREN || next == TK_ASSIGN || next == TK_ARROW || prev_as)
            continue;                     /* a qualified name, a function, a named argument, an alias */
        rc = tn_buf_append(&out, body + at, t->pos.offset - at);
        if (!rc) rc = tn_buf_printf(&out, "$%d", TN_MACRO_PARAM_BASE + k);
        at = t->pos.offset + t->len;
    }
    if (!rc) rc = tn_buf_append(&out, body + at, blen - at);
    if (!rc) rc = tn_buf_append_byte(&out, 0);
    if (rc) {
        tn_buf_free(&out);
        return rc;
    }
    char *text = tn_arena_strdup(b->arena, (const char *)out.data);
    tn_buf_free(&out);
    if (!text) return TN_ENOMEM;
    tn_sql_stmt_list l;
    if ((rc = tn_sql_parse(b->arena, text, &l))) return rc;
    if (l.n != 1 || l.stmts[0]->kind != TN_SQL_S_QUERY)
        return tn_error_set(TN_EINTERNAL, "the body of macro %s did not parse as a query", body);
    tn_sql_query *q = l.stmts[0]->u.query;
    if (query) {
        *query = q;
        return 0;
    }
    if (q->kind != TN_SQL_Q_SELECT || q->u.select.n_items != 1)
        return tn_error_set(TN_EINTERNAL, "the body of a scalar macro did not parse as one expression");
    *expr = q->u.select.items[0].expr;
    return 0;
}

int tn_macro_scalar(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    tn_sql_stmt *def = NULL;
    int rc = lookup(b, &e->u.func.name, &def);
    if (rc) return tn_bind_error_at(b, rc, e->pos);
    if (!def) return 1;
    if (def->u.create_macro.is_table)
        return tn_bind_error(b, e->pos,
                             "Function \"%s\" is a table function but it was used as a scalar function. This function has "
                             "to be called in a FROM clause (similar to a table).",
                             e->u.func.name.parts[e->u.func.name.n - 1].name);
    if (b->depth > 200) return tn_bind_error_code(b, TN_ELIMIT, e->pos, "macro expansion nested too deeply");
    tn_macro_frame frame = {0};
    if ((rc = match_args(b, def, e, &frame))) return rc;
    tn_sql_expr *body = NULL;
    if ((rc = expand(b, def, &body, NULL))) return tn_bind_error_at(b, rc, e->pos);
    frame.parent = b->macro_frame;
    b->macro_frame = &frame;
    b->depth++;
    rc = tn_bind_expr(c, body, out);
    b->depth--;
    b->macro_frame = frame.parent;
    return rc;
}

int tn_macro_table(tn_binder *b, tn_sql_tableref *t, tn_plan **out) {
    tn_sql_expr *f = t->u.function;
    tn_sql_stmt *def = NULL;
    int rc = lookup(b, &f->u.func.name, &def);
    if (rc) return tn_bind_error_at(b, rc, f->pos);
    if (!def || !def->u.create_macro.is_table) return 1;
    if (b->depth > 200) return tn_bind_error_code(b, TN_ELIMIT, f->pos, "macro expansion nested too deeply");
    tn_macro_frame frame = {0};
    if ((rc = match_args(b, def, f, &frame))) return rc;
    tn_sql_query *q = NULL;
    if ((rc = expand(b, def, NULL, &q))) return tn_bind_error_at(b, rc, f->pos);
    frame.parent = b->macro_frame;
    b->macro_frame = &frame;
    b->depth++;
    rc = tn_bind_query(b, q, NULL, out);
    b->depth--;
    b->macro_frame = frame.parent;
    return rc;
}

int tn_macro_param(bind_ctx *c, int index, tn_sql_pos pos, tn_expr **out) {
    tn_binder *b = c->b;
    tn_macro_frame *f = b->macro_frame;
    int k = index - TN_MACRO_PARAM_BASE;
    if (!f || k < 0 || k >= f->n) return tn_bind_error(b, pos, "parameter $%d has no value", index);
    b->macro_frame = f->parent;          /* the argument belongs to the caller's frame */
    int rc = tn_bind_expr(c, f->args[k], out);
    b->macro_frame = f;
    return rc;
}
