/*
 * sql/parser_query.c: queries (WITH, SELECT with GROUP BY [ALL] and WINDOW clauses, VALUES,
 * UNION/INTERSECT/EXCEPT, parenthesized queries, ORDER BY [ALL]/LIMIT/OFFSET) and FROM items (tables with time travel and TABLESAMPLE,
 * table functions, subqueries, joins). Expressions are parser_expr.c.
 */
#include "sql/parserInt.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static tn_sql_query *new_query(tn_sql_parser *p, tn_sql_query_kind kind, tn_sql_pos pos) {
    tn_sql_query *q = tn_sqlp_alloc(p, sizeof *q);
    if (q) {
        q->kind = kind;
        q->pos = pos;
    }
    return q;
}

static tn_sql_tableref *file_ref(tn_sql_parser *p, tn_sql_pos pos);

static tn_sql_tableref *new_ref(tn_sql_parser *p, tn_sql_tableref_kind kind, tn_sql_pos pos) {
    tn_sql_tableref *r = tn_sqlp_alloc(p, sizeof *r);
    if (r) {
        r->kind = kind;
        r->pos = pos;
    }
    return r;
}

static bool tok_is(const tn_sql_parser *p, int ahead, tn_tok_type type) {
    return tn_sqlp_peek(p, ahead)->type == type;
}

/* '(' ... a query keyword, skipping any further '(': a parenthesized query in FROM. */
static bool paren_query_ahead(const tn_sql_parser *p) {
    int k = 0;
    while (tok_is(p, k, TK_LPAREN)) k++;
    return k > 0 && tn_sqlp_is_query_start(p, k);
}

/* ---------------------------------------------------------------------------------------------
 * FROM items.
 */
static tn_sql_tableref *join_chain(tn_sql_parser *p);

static bool sample_clause(tn_sql_parser *p, tn_sql_tableref *r) {
    tn_sql_sample *s = tn_sqlp_alloc(p, sizeof *s);
    if (!s) return false;
    s->pos = tn_sqlp_peek(p, 0)->pos;
    tn_sqlp_advance(p);                                    /* TABLESAMPLE */
    if (r->sample) return tn_sqlp_fail_at(p, s->pos, "duplicate TABLESAMPLE");
    if (tn_sqlp_tok_is_colid(tn_sqlp_peek(p, 0)) && tok_is(p, 1, TK_LPAREN)) {
        s->method = tn_sqlp_tok_ident(tn_sqlp_peek(p, 0));
        tn_sqlp_advance(p);
    }
    bool paren = tn_sqlp_accept(p, TK_LPAREN);
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type != TK_INTEGER && t->type != TK_DECIMAL && t->type != TK_FLOAT && t->type != TK_PARAM)
        return tn_sqlp_fail_expected(p, "a sample size (1 PERCENT, 10 ROWS)");
    s->size = tn_sqlp_unary(p);        /* just the number: in "10 %" the % is the unit */
    if (!s->size) return false;
    if (tn_sqlp_accept_kw(p, KW_PERCENT) || tn_sqlp_accept(p, TK_PERCENT)) {
        s->rows = false;
    } else if (tn_sqlp_accept_kw(p, KW_ROWS)) {
        s->rows = true;
    } else if (!paren) {
        return tn_sqlp_fail_expected(p, "PERCENT or ROWS after the sample size");
    }
    if (paren && !tn_sqlp_expect(p, TK_RPAREN, "')' after the sample size")) return false;
    if (tn_sqlp_is_kw(p, 0, KW_REPEATABLE)) {
        tn_sqlp_advance(p);
        if (!tn_sqlp_expect(p, TK_LPAREN, "'(' after REPEATABLE")) return false;
        s->seed = tn_sqlp_expr(p);
        if (!s->seed || !tn_sqlp_expect(p, TK_RPAREN, "')' after REPEATABLE seed")) return false;
    }
    r->sample = s;
    return true;
}

/* SEMI / ANTI (not keywords, so that they stay usable as names) when JOIN follows: 1 = SEMI,
 * 2 = ANTI, 0 = neither. */
static int semi_anti_at(tn_sql_parser *p, int k) {
    const tn_sql_token *t = tn_sqlp_peek(p, k);
    if (t->type != TK_IDENT || t->kw != KW_NONE || !tn_sqlp_is_kw(p, k + 1, KW_JOIN)) return 0;
    tn_sql_ident id = tn_sqlp_tok_ident(t);
    if (id.quoted || !id.name) return 0;
    return strcmp(id.name, "semi") == 0 ? 1 : strcmp(id.name, "anti") == 0 ? 2 : 0;
}

/* ASOF / POSITIONAL before JOIN (DuckDB's join types tarn does not run yet): never an alias. */
static bool unsupported_join_at(tn_sql_parser *p, int k) {
    const tn_sql_token *t = tn_sqlp_peek(p, k);
    if (t->type != TK_IDENT || t->kw != KW_NONE) return false;
    if (strcmp(t->text, "asof") != 0 && strcmp(t->text, "positional") != 0) return false;
    /* [LEFT | RIGHT | FULL | INNER] [OUTER] JOIN */
    int j = k + 1;
    const tn_sql_token *n = tn_sqlp_peek(p, j);
    if (n->type == TK_IDENT && (n->kw == KW_LEFT || n->kw == KW_RIGHT || n->kw == KW_FULL || n->kw == KW_INNER)) j++;
    if (tn_sqlp_is_kw(p, j, KW_OUTER)) j++;
    return tn_sqlp_is_kw(p, j, KW_JOIN);
}

/* BlinkDB's `ERROR WITHIN e% AT CONFIDENCE c%` (approximate answers with error bounds) starts at
 * token `ahead`: the words are not keywords (ERROR is a fine alias), so they are matched by text. */
static bool word_at(const tn_sql_parser *p, int ahead, const char *w) {
    const tn_sql_token *t = tn_sqlp_peek(p, ahead);
    return t->type == TK_IDENT && strcmp(t->text, w) == 0;
}
static bool error_within_at(const tn_sql_parser *p, int ahead) {
    return word_at(p, ahead, "error") && word_at(p, ahead + 1, "within");
}

/* Parses the clause into q (BlinkDB's: numbers are percent, the % sign optional); false on error. */
static bool error_within_clause(tn_sql_parser *p, tn_sql_query *q) {
    tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
    if (q->error_within > 0) return tn_sqlp_fail_at(p, pos, "duplicate ERROR WITHIN clause");
    p->i += 2;                                                     /* ERROR WITHIN */
    double v[2];
    for (int k = 0; k < 2; k++) {
        const tn_sql_token *n = tn_sqlp_peek(p, 0);
        if (n->type != TK_INTEGER && n->type != TK_DECIMAL && n->type != TK_FLOAT)
            return tn_sqlp_fail_expected(p, k ? "a confidence after AT CONFIDENCE (95%)" : "an error bound after ERROR WITHIN (2%)");
        v[k] = strtod(n->text, NULL);
        if (k == 0 && !(v[0] > 0))
            return tn_sqlp_fail_at(p, n->pos, "ERROR WITHIN needs an error bound above 0%% (a relative error, e.g. 2%%)");
        if (k == 1 && !(v[1] > 0 && v[1] < 100))
            return tn_sqlp_fail_at(p, n->pos, "AT CONFIDENCE needs a confidence between 0%% and 100%% (e.g. 95%%)");
        tn_sqlp_advance(p);
        tn_sqlp_accept(p, TK_PERCENT);
        if (k == 0 && !(word_at(p, 0, "at") && word_at(p, 1, "confidence")))
            return tn_sqlp_fail_expected(p, "AT CONFIDENCE after the error bound");
        if (k == 0) p->i += 2;
    }
    q->error_within = v[0];
    q->confidence = v[1];
    q->error_pos = pos;
    return true;
}

/* [AS] alias [(cols)], TABLESAMPLE, VERSION/TIMESTAMP AS OF, in any order after a FROM item. */
static bool ref_suffixes(tn_sql_parser *p, tn_sql_tableref *r) {
    for (;;) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        if (t->type == TK_IDENT && t->kw == KW_TABLESAMPLE) {
            if (!sample_clause(p, r)) return false;
            continue;
        }
        if (r->kind == TN_SQL_T_TABLE && (t->kw == KW_VERSION || t->kw == KW_TIMESTAMP) &&
            t->type == TK_IDENT && tn_sqlp_is_kw(p, 1, KW_AS) && tn_sqlp_is_kw(p, 2, KW_OF)) {
            if (r->u.table.travel != TN_SQL_TT_NONE) return tn_sqlp_fail_at(p, t->pos, "duplicate time travel clause");
            r->u.table.travel = t->kw == KW_VERSION ? TN_SQL_TT_VERSION : TN_SQL_TT_TIMESTAMP;
            p->i += 3;
            r->u.table.travel_expr = tn_sqlp_expr(p);
            if (!r->u.table.travel_expr) return false;
            continue;
        }
        if (r->alias.name) return true;
        if (tn_sqlp_accept_kw(p, KW_AS)) {
            if (!tn_sqlp_ident(p, "an alias after AS", &r->alias)) return false;
        } else if (tn_sqlp_tok_is_colid(t) && !semi_anti_at(p, 0) && !unsupported_join_at(p, 0) && !error_within_at(p, 0) &&
                   !word_at(p, 0, "qualify")) {
            r->alias = tn_sqlp_tok_ident(t);
            tn_sqlp_advance(p);
        } else {
            return true;
        }
        if (tok_is(p, 0, TK_LPAREN)) {
            tn_sqlp_advance(p);
            if (!tn_sqlp_ident_list(p, "a column alias", &r->col_aliases, &r->n_col_aliases)) return false;
            for (int k = 0; k < r->n_col_aliases; k++) tn_sqlp_keep_case(p, &r->col_aliases[k]);
            if (!tn_sqlp_expect(p, TK_RPAREN, "')' after column aliases")) return false;
        }
    }
}

static tn_sql_tableref *table_primary(tn_sql_parser *p) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    tn_sql_tableref *r;
    tn_sql_pos pos = t->pos;
    bool lateral = false;
    if (t->type == TK_IDENT && t->kw == KW_LATERAL) {
        lateral = true;
        tn_sqlp_advance(p);
        if (!paren_query_ahead(p)) return tn_sqlp_fail_expected(p, "a subquery after LATERAL");
    }
    if (tok_is(p, 0, TK_LPAREN)) {
        if (paren_query_ahead(p)) {
            r = new_ref(p, TN_SQL_T_SUBQUERY, pos);
            if (!r) return NULL;
            r->u.subquery.lateral = lateral;
            r->u.subquery.query = tn_sqlp_query(p);
            if (!r->u.subquery.query) return NULL;
        } else {
            tn_sqlp_advance(p);
            if (!tn_sqlp_enter(p)) return NULL;
            r = join_chain(p);
            tn_sqlp_leave(p);
            if (!r || !tn_sqlp_expect(p, TK_RPAREN, "')' after joined tables")) return NULL;
        }
    } else if (tok_is(p, 0, TK_STRING)) {
        r = file_ref(p, pos);                 /* FROM 'file.parquet' (DuckDB's replacement scan) */
        if (!r) return NULL;
        if (!ref_suffixes(p, r)) return NULL;
        if (r->kind == TN_SQL_T_FUNCTION) {
            if (!r->alias.name) r->alias = r->u.function->u.func.arg_names[0];   /* the file's stem */
            r->u.function->u.func.arg_names = NULL;
        }
        return r;
    } else {
        tn_sql_qname name;
        if (!tn_sqlp_qname(p, "a table name", &name)) return NULL;
        if (tok_is(p, 0, TK_LPAREN)) {
            r = new_ref(p, TN_SQL_T_FUNCTION, pos);
            if (!r) return NULL;
            r->u.function = tn_sqlp_func_call(p, name, true);
            if (!r->u.function) return NULL;
        } else {
            r = new_ref(p, TN_SQL_T_TABLE, pos);
            if (!r) return NULL;
            r->u.table.name = name;
            if (!tn_sqlp_hints(p, &r->u.table.hints, &r->u.table.n_hints)) return NULL;
        }
    }
    if (!ref_suffixes(p, r)) return NULL;
    return r;
}

/* FROM 'path' as DuckDB reads it: read_parquet, read_csv or read_json by the extension (before a
   .gz / .zst suffix), named by the file's stem; another extension is a table name, which then
   fails as one. The stem travels in arg_names[0] until the alias is known. */
static tn_sql_tableref *file_ref(tn_sql_parser *p, tn_sql_pos pos) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    const char *path = t->text, *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    char ext[16] = "";
    size_t stem = n;
    for (int pass = 0; pass < 2; pass++) {
        const char *dot = NULL;
        for (size_t k = 0; k < stem; k++)
            if (base[k] == '.') dot = base + k;
        if (!dot) break;
        size_t el = stem - (size_t)(dot - base) - 1;
        snprintf(ext, sizeof ext, "%.*s", (int)(el < sizeof ext ? el : sizeof ext - 1), dot + 1);
        for (char *c = ext; *c; c++) if (*c >= 'A' && *c <= 'Z') *c += 32;
        stem = (size_t)(dot - base);
        if (pass == 0 && strcmp(ext, "gz") != 0 && strcmp(ext, "zst") != 0) break;
    }
    const char *fn = strcmp(ext, "parquet") == 0 ? "read_parquet"
                     : strcmp(ext, "csv") == 0 || strcmp(ext, "tsv") == 0 ? "read_csv"
                     : strcmp(ext, "json") == 0 || strcmp(ext, "jsonl") == 0 || strcmp(ext, "ndjson") == 0 ? "read_json"
                     : NULL;
    if (!fn) {
        tn_sql_tableref *r = new_ref(p, TN_SQL_T_TABLE, pos);
        tn_sql_ident *part = tn_sqlp_alloc(p, sizeof *part);
        if (!r || !part) return NULL;
        part->name = path;
        part->quoted = true;
        part->pos = t->pos;
        r->u.table.name.parts = part;
        r->u.table.name.n = 1;
        tn_sqlp_advance(p);
        return r;
    }
    tn_sql_tableref *r = new_ref(p, TN_SQL_T_FUNCTION, pos);
    tn_sql_expr *f = tn_sqlp_alloc(p, sizeof *f), *lit = tn_sqlp_alloc(p, sizeof *lit);
    tn_sql_ident *name = tn_sqlp_alloc(p, sizeof *name), *stem_id = tn_sqlp_alloc(p, sizeof *stem_id);
    tn_sql_expr **args = tn_sqlp_alloc(p, sizeof *args);
    char *stem_text = tn_sqlp_alloc(p, stem + 1);
    if (!r || !f || !lit || !name || !stem_id || !args || !stem_text) return NULL;
    memcpy(stem_text, base, stem);
    lit->kind = TN_SQL_E_LITERAL;
    lit->pos = t->pos;
    lit->u.lit.kind = TN_SQL_LIT_STRING;
    lit->u.lit.text = t->text;
    lit->u.lit.len = t->text_len;
    name->name = fn;
    name->pos = t->pos;
    f->kind = TN_SQL_E_FUNCTION;
    f->pos = t->pos;
    f->u.func.name.parts = name;
    f->u.func.name.n = 1;
    args[0] = lit;
    f->u.func.args.items = args;
    f->u.func.args.n = 1;
    stem_id->name = stem_text;
    stem_id->quoted = true;
    stem_id->pos = t->pos;
    f->u.func.arg_names = stem_id;
    r->u.function = f;
    tn_sqlp_advance(p);
    return r;
}

tn_sql_tableref *tn_sqlp_table_primary(tn_sql_parser *p) { return table_primary(p); }

static tn_sql_tableref *join_chain(tn_sql_parser *p) {
    tn_sql_tableref *left = table_primary(p);
    while (left) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        if (t->type != TK_IDENT) break;
        tn_sql_pos pos = t->pos;
        bool natural = false;
        tn_sql_join_kind kind = TN_SQL_JOIN_INNER;
        int k = 0;
        if (t->kw == KW_NATURAL) {
            natural = true;
            k++;
        }
        tn_kw kw = tn_sqlp_peek(p, k)->type == TK_IDENT ? tn_sqlp_peek(p, k)->kw : KW_NONE;
        if (unsupported_join_at(p, k) || (kw == KW_LEFT && unsupported_join_at(p, k + 1))) {
            const tn_sql_token *w = tn_sqlp_peek(p, kw == KW_LEFT ? k + 1 : k);
            return tn_sqlp_fail_at(p, w->pos, "%s JOIN is not supported yet",
                                   strcmp(w->text, "asof") == 0 ? "ASOF" : "POSITIONAL");
        }
        if (kw == KW_JOIN) {
            k++;
        } else if (kw == KW_CROSS && natural) {
            p->i += k;
            return tn_sqlp_fail_expected(p, "JOIN after NATURAL");
        } else if (kw == KW_INNER || kw == KW_CROSS) {
            kind = kw == KW_INNER ? TN_SQL_JOIN_INNER : TN_SQL_JOIN_CROSS;
            k++;
            p->i += k;
            if (!tn_sqlp_expect_kw(p, KW_JOIN, kw == KW_INNER ? "JOIN after INNER" : "JOIN after CROSS"))
                return NULL;
            k = 0;
        } else if (semi_anti_at(p, k) || (kw == KW_LEFT && semi_anti_at(p, k + 1))) {
            if (kw == KW_LEFT) k++;                  /* Spark: LEFT SEMI JOIN, LEFT ANTI JOIN */
            kind = semi_anti_at(p, k) == 1 ? TN_SQL_JOIN_SEMI : TN_SQL_JOIN_ANTI;
            k += 2;
        } else if (kw == KW_LEFT || kw == KW_RIGHT || kw == KW_FULL) {
            kind = kw == KW_LEFT ? TN_SQL_JOIN_LEFT : kw == KW_RIGHT ? TN_SQL_JOIN_RIGHT : TN_SQL_JOIN_FULL;
            k++;
            p->i += k;
            tn_sqlp_accept_kw(p, KW_OUTER);
            if (!tn_sqlp_expect_kw(p, KW_JOIN, "JOIN")) return NULL;
            k = 0;
        } else if (natural) {
            p->i += k;
            return tn_sqlp_fail_expected(p, "JOIN after NATURAL");
        } else {
            break;
        }
        p->i += k;
        tn_sql_tableref *j = new_ref(p, TN_SQL_T_JOIN, pos);
        if (!j) return NULL;
        j->u.join.kind = kind;
        j->u.join.natural = natural;
        j->u.join.left = left;
        j->u.join.right = table_primary(p);
        if (!j->u.join.right) return NULL;
        if (kind != TN_SQL_JOIN_CROSS && !natural) {
            if (tn_sqlp_accept_kw(p, KW_ON)) {
                j->u.join.on = tn_sqlp_expr(p);
                if (!j->u.join.on) return NULL;
            } else if (tn_sqlp_accept_kw(p, KW_USING)) {
                if (!tn_sqlp_expect(p, TK_LPAREN, "'(' after USING")) return NULL;
                if (!tn_sqlp_ident_list(p, "a column name", &j->u.join.using_cols, &j->u.join.n_using))
                    return NULL;
                if (!tn_sqlp_expect(p, TK_RPAREN, "')' after USING columns")) return NULL;
            } else {
                return tn_sqlp_fail_expected(p, "ON or USING after the joined table");
            }
        }
        left = j;
    }
    return left;
}

static tn_sql_tableref *from_list(tn_sql_parser *p) {
    tn_sql_tableref *left = join_chain(p);
    while (left && tok_is(p, 0, TK_COMMA)) {
        tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
        tn_sqlp_advance(p);
        tn_sql_tableref *j = new_ref(p, TN_SQL_T_JOIN, pos);
        if (!j) return NULL;
        j->u.join.kind = TN_SQL_JOIN_CROSS;
        j->u.join.comma = true;
        j->u.join.left = left;
        j->u.join.right = join_chain(p);
        if (!j->u.join.right) return NULL;
        left = j;
    }
    return left;
}

/* ---------------------------------------------------------------------------------------------
 * SELECT blocks and VALUES.
 */
static bool select_item(tn_sql_parser *p, tn_sql_select_item *it) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type == TK_STAR) {
        it->expr = tn_sqlp_alloc(p, sizeof *it->expr);
        if (!it->expr) return false;
        it->expr->kind = TN_SQL_E_STAR;
        it->expr->pos = t->pos;
        tn_sqlp_advance(p);
        return tn_sqlp_star_opts(p, it->expr);
    }
    it->expr = tn_sqlp_expr(p);
    if (!it->expr) return false;
    if (it->expr->kind == TN_SQL_E_STAR && !(it->expr->u.star.opts && it->expr->u.star.opts->columns))
        return tn_sqlp_star_opts(p, it->expr);
    if (tn_sqlp_is_regclass(it->expr)) {
        /* a regclass shown: its name (parserInt.h), labelled as PostgreSQL labels the cast (the
           column's name for c.oid::regclass, else "regclass"); an alias below replaces it */
        const tn_sql_expr *arg = it->expr->u.func.args.items[0];
        it->alias.name = arg->kind == TN_SQL_E_COLUMN ? arg->u.column.parts[arg->u.column.n - 1].name : "regclass";
        it->alias.pos = it->expr->pos;
        it->alias.quoted = false;
        if (!(it->expr = tn_sqlp_regclass_name(p, it->expr))) return false;
    }
    if (tn_sqlp_accept_kw(p, KW_AS)) {
        const tn_sql_token *a = tn_sqlp_peek(p, 0);
        /* After AS any word is a label (SELECT 1 AS date, x AS select), or a string ('x'). */
        if (a->type == TK_IDENT || a->type == TK_QIDENT || a->type == TK_STRING) {
            it->alias = tn_sqlp_tok_ident(a);
            it->alias.quoted = a->type != TK_IDENT;
            tn_sqlp_keep_case(p, &it->alias);
            tn_sqlp_advance(p);
            return true;
        }
        return tn_sqlp_fail_expected(p, "an alias after AS");
    }
    t = tn_sqlp_peek(p, 0);
    if (word_at(p, 0, "export_state") && it->expr->kind == TN_SQL_E_FUNCTION)
        return tn_sqlp_fail_at(p, t->pos, "not supported yet: EXPORT_STATE (aggregate states as values)");
    if (tn_sqlp_tok_is_colid(t) && !word_at(p, 0, "qualify")) {
        it->alias = tn_sqlp_tok_ident(t);
        tn_sqlp_keep_case(p, &it->alias);
        tn_sqlp_advance(p);
    }
    return true;
}

static tn_sql_query *select_block(tn_sql_parser *p) {
    tn_sql_query *q = new_query(p, TN_SQL_Q_SELECT, tn_sqlp_peek(p, 0)->pos);
    if (!q) return NULL;
    tn_sql_select *s = &q->u.select;
    /* DuckDB's FROM-first: FROM items [SELECT list] [WHERE ...]; without SELECT it is SELECT * */
    bool from_first = tn_sqlp_accept_kw(p, KW_FROM);
    if (from_first && !(s->from = from_list(p))) return NULL;
    if (!from_first || tn_sqlp_is_kw(p, 0, KW_SELECT)) {
        tn_sqlp_advance(p);                                /* SELECT */
        if (tn_sqlp_accept_kw(p, KW_DISTINCT)) {
            s->distinct = true;
            if (tn_sqlp_accept_kw(p, KW_ON)) {                /* DISTINCT ON (exprs) */
                if (!tn_sqlp_expect(p, TK_LPAREN, "'(' after DISTINCT ON")) return NULL;
                if (!tn_sqlp_expr_list(p, &s->distinct_on)) return NULL;
                if (!tn_sqlp_expect(p, TK_RPAREN, "')' after the DISTINCT ON list")) return NULL;
            }
        } else {
            tn_sqlp_accept_kw(p, KW_ALL);
        }
        tn_vec items = {0};
        do {
            if (items.n && tn_sqlp_list_ends(p)) break;  /* trailing comma (DuckDB) */
            tn_sql_select_item it = {0};
            if (!select_item(p, &it) || !tn_sqlp_push(p, &items, &it, sizeof it)) return NULL;
        } while (tn_sqlp_accept(p, TK_COMMA));
        s->items = items.data;
        s->n_items = items.n;
    } else {
        tn_sql_select_item *it = tn_sqlp_alloc(p, sizeof *it);
        if (!it || !(it->expr = tn_sqlp_alloc(p, sizeof *it->expr))) return NULL;
        it->expr->kind = TN_SQL_E_STAR;
        it->expr->pos = q->pos;
        s->items = it;
        s->n_items = 1;
    }
    if (!from_first && tn_sqlp_accept_kw(p, KW_FROM)) {
        s->from = from_list(p);
        if (!s->from) return NULL;
    }
    if (tn_sqlp_accept_kw(p, KW_WHERE)) {
        s->where = tn_sqlp_expr(p);
        if (!s->where) return NULL;
    }
    if (tn_sqlp_accept_kw(p, KW_GROUP)) {
        if (!tn_sqlp_expect_kw(p, KW_BY, "BY after GROUP")) return NULL;
        if (tn_sqlp_accept_kw(p, KW_ALL)) s->group_all = true;      /* DuckDB: GROUP BY ALL */
        else if (!tn_sqlp_group_by(p, s)) return NULL;             /* parser_group.c */
    }
    if (tn_sqlp_accept_kw(p, KW_HAVING)) {
        s->having = tn_sqlp_expr(p);
        if (!s->having) return NULL;
    }
    if (tn_sqlp_accept_kw(p, KW_WINDOW)) {             /* WINDOW w AS (...) [, ...] */
        tn_vec wins = {0};
        do {
            tn_sql_named_window nw = {0};
            if (!tn_sqlp_ident(p, "a window name after WINDOW", &nw.name)) return NULL;
            if (!tn_sqlp_expect_kw(p, KW_AS, "AS after the window name")) return NULL;
            if (!tok_is(p, 0, TK_LPAREN)) return tn_sqlp_fail_expected(p, "'(' after AS");
            nw.spec = tn_sqlp_window_spec(p);
            if (!nw.spec || !tn_sqlp_push(p, &wins, &nw, sizeof nw)) return NULL;
        } while (tn_sqlp_accept(p, TK_COMMA));
        s->windows = wins.data;
        s->n_windows = wins.n;
    }
    if (word_at(p, 0, "qualify")) {                     /* QUALIFY pred (DuckDB, Snowflake) */
        tn_sqlp_advance(p);
        if (!(s->qualify = tn_sqlp_expr(p))) return NULL;
    }
    return q;
}

static tn_sql_query *values_block(tn_sql_parser *p) {
    tn_sql_query *q = new_query(p, TN_SQL_Q_VALUES, tn_sqlp_peek(p, 0)->pos);
    if (!q) return NULL;
    tn_sqlp_advance(p);                                    /* VALUES */
    tn_vec rows = {0};
    do {
        if (rows.n && tn_sqlp_list_ends(p)) break;       /* trailing comma (DuckDB) */
        tn_sql_expr_list row = {0};
        if (!tn_sqlp_expect(p, TK_LPAREN, "'(' before a VALUES row")) return NULL;
        if (!tn_sqlp_expr_list(p, &row)) return NULL;
        if (!tn_sqlp_expect(p, TK_RPAREN, "')' after a VALUES row")) return NULL;
        if (rows.n > 0 && row.n != ((tn_sql_expr_list *)rows.data)[0].n)
            return tn_sqlp_fail_at(p, row.items[0]->pos, "VALUES rows must all have the same number of values");
        if (!tn_sqlp_push(p, &rows, &row, sizeof row)) return NULL;
    } while (tn_sqlp_accept(p, TK_COMMA));
    q->u.values.rows = rows.data;
    q->u.values.n_rows = rows.n;
    return q;
}

/* SELECT * FROM (inner): used when clauses must apply on top of a query that has its own. */
static tn_sql_query *wrap_query(tn_sql_parser *p, tn_sql_query *inner) {
    tn_sql_query *q = new_query(p, TN_SQL_Q_SELECT, inner->pos);
    tn_sql_select_item *it = tn_sqlp_alloc(p, sizeof *it);
    tn_sql_tableref *r = new_ref(p, TN_SQL_T_SUBQUERY, inner->pos);
    if (!q || !it || !(it->expr = tn_sqlp_alloc(p, sizeof *it->expr)) || !r) return NULL;
    it->expr->kind = TN_SQL_E_STAR;
    it->expr->pos = inner->pos;
    r->u.subquery.query = inner;
    q->u.select.items = it;
    q->u.select.n_items = 1;
    q->u.select.from = r;
    return q;
}

static tn_sql_query *query_primary(tn_sql_parser *p) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type == TK_LPAREN) {
        tn_sqlp_advance(p);
        tn_sql_query *q = tn_sqlp_query(p);
        if (!q || !tn_sqlp_expect(p, TK_RPAREN, "')' after the query")) return NULL;
        return q;
    }
    if (tn_sqlp_is_kw(p, 0, KW_SELECT) || tn_sqlp_is_kw(p, 0, KW_FROM)) return select_block(p);
    if (tn_sqlp_is_kw(p, 0, KW_VALUES)) return values_block(p);
    return tn_sqlp_fail_expected(p, "SELECT, VALUES or '('");
}

static bool has_tail(const tn_sql_query *q) {
    return q->order_by.n || q->order_all || q->limit || q->offset || q->n_ctes;
}

static tn_sql_query *setop(tn_sql_parser *p, tn_sql_setop op, tn_sql_pos pos, tn_sql_query *l,
                           tn_sql_query *r, bool all) {
    if (!l || !r) return NULL;
    tn_sql_query *q = new_query(p, TN_SQL_Q_SETOP, pos);
    if (!q) return NULL;
    q->u.setop.op = op;
    q->u.setop.all = all;
    q->u.setop.left = l;
    q->u.setop.right = r;
    return q;
}

static bool setop_quantifier(tn_sql_parser *p) {
    if (tn_sqlp_accept_kw(p, KW_ALL)) return true;
    tn_sqlp_accept_kw(p, KW_DISTINCT);
    return false;
}

static tn_sql_query *intersect_term(tn_sql_parser *p) {
    tn_sql_query *l = query_primary(p);
    while (l && tn_sqlp_is_kw(p, 0, KW_INTERSECT)) {
        tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
        tn_sqlp_advance(p);
        bool all = setop_quantifier(p);
        l = setop(p, TN_SQL_INTERSECT, pos, l, query_primary(p), all);
    }
    return l;
}

static tn_sql_query *setop_expr(tn_sql_parser *p) {
    tn_sql_query *l = intersect_term(p);
    while (l && (tn_sqlp_is_kw(p, 0, KW_UNION) || tn_sqlp_is_kw(p, 0, KW_EXCEPT))) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        tn_sqlp_advance(p);
        bool all = setop_quantifier(p);
        l = setop(p, t->kw == KW_UNION ? TN_SQL_UNION : TN_SQL_EXCEPT, t->pos, l, intersect_term(p), all);
    }
    return l;
}

static bool with_clause(tn_sql_parser *p, tn_sql_cte **out, int *n, bool *recursive) {
    tn_vec ctes = {0};
    tn_sqlp_advance(p);                                    /* WITH */
    *recursive = tn_sqlp_accept_kw(p, KW_RECURSIVE);
    do {
        tn_sql_cte c = {0};
        if (!tn_sqlp_ident(p, "a name for the WITH query", &c.name)) return false;
        if (tn_sqlp_accept(p, TK_LPAREN)) {
            if (!tn_sqlp_ident_list(p, "a column name", &c.columns, &c.n_columns)) return false;
            for (int k = 0; k < c.n_columns; k++) tn_sqlp_keep_case(p, &c.columns[k]);
            if (!tn_sqlp_expect(p, TK_RPAREN, "')' after column names")) return false;
        }
        if (!tn_sqlp_expect_kw(p, KW_AS, "AS after the WITH query name")) return false;
        if (!tn_sqlp_expect(p, TK_LPAREN, "'(' before the WITH query")) return false;
        c.query = tn_sqlp_query(p);
        if (!c.query || !tn_sqlp_expect(p, TK_RPAREN, "')' after the WITH query")) return false;
        if (!tn_sqlp_push(p, &ctes, &c, sizeof c)) return false;
    } while (tn_sqlp_accept(p, TK_COMMA));
    *out = ctes.data;
    *n = ctes.n;
    return true;
}

tn_sql_query *tn_sqlp_query(tn_sql_parser *p) {
    tn_sql_query *q = NULL;
    tn_sql_cte *ctes = NULL;
    int n_ctes = 0;
    bool recursive = false;
    if (!tn_sqlp_enter(p)) return NULL;
    if (tn_sqlp_is_kw(p, 0, KW_WITH) && !with_clause(p, &ctes, &n_ctes, &recursive)) goto cleanup;
    q = setop_expr(p);
    if (!q) goto cleanup;
    tn_sql_query approx = {0};                      /* ERROR WITHIN before ORDER BY / LIMIT */
    if (error_within_at(p, 0) && !error_within_clause(p, &approx)) {
        q = NULL;
        goto cleanup;
    }
    bool has_order = tn_sqlp_is_kw(p, 0, KW_ORDER);
    bool has_limit = tn_sqlp_is_kw(p, 0, KW_LIMIT) || tn_sqlp_is_kw(p, 0, KW_OFFSET);
    if ((n_ctes && q->n_ctes) || ((has_order || has_limit) && has_tail(q))) {
        q = wrap_query(p, q);
        if (!q) goto cleanup;
    }
    if (n_ctes) {
        q->ctes = ctes;
        q->n_ctes = n_ctes;
        q->recursive = recursive;
    }
    if (tn_sqlp_accept_kw(p, KW_ORDER)) {
        if (!tn_sqlp_expect_kw(p, KW_BY, "BY after ORDER")) {
            q = NULL;
            goto cleanup;
        }
        if (tn_sqlp_accept_kw(p, KW_ALL)) {             /* DuckDB: ORDER BY ALL [ASC|DESC] [NULLS ..] */
            tn_sql_order_item *it = &q->order_all_item;
            q->order_all = true;
            if (tn_sqlp_accept_kw(p, KW_DESC)) it->desc = true;
            else tn_sqlp_accept_kw(p, KW_ASC);
            if (tn_sqlp_accept_kw(p, KW_NULLS)) {
                if (tn_sqlp_accept_kw(p, KW_FIRST)) it->nulls = 1;
                else if (tn_sqlp_accept_kw(p, KW_LAST)) it->nulls = 2;
                else {
                    q = tn_sqlp_fail_expected(p, "FIRST or LAST after NULLS");
                    goto cleanup;
                }
            }
        } else if (!tn_sqlp_order_list(p, &q->order_by)) {
            q = NULL;
            goto cleanup;
        }
    }
    for (int k = 0; k < 2; k++) {
        if (!q->limit && tn_sqlp_accept_kw(p, KW_LIMIT)) {
            if (tn_sqlp_accept_kw(p, KW_ALL)) continue;
            q->limit = tn_sqlp_expr(p);
            if (!q->limit) { q = NULL; goto cleanup; }
        } else if (!q->offset && tn_sqlp_accept_kw(p, KW_OFFSET)) {
            q->offset = tn_sqlp_expr(p);
            if (!q->offset) { q = NULL; goto cleanup; }
            if (!tn_sqlp_accept_kw(p, KW_ROWS)) tn_sqlp_accept_kw(p, KW_ROW);
        }
    }
    if (approx.error_within > 0) {
        q->error_within = approx.error_within;
        q->confidence = approx.confidence;
        q->error_pos = approx.error_pos;
    }
    if (error_within_at(p, 0) && !error_within_clause(p, q)) q = NULL;
cleanup:
    tn_sqlp_leave(p);
    return q;
}
