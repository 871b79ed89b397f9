/*
 * sql/parser_expr.c: expressions and type names. Precedence, loosest first (PostgreSQL's):
 *   OR < AND < NOT < IS [NOT] NULL/TRUE/FALSE/DISTINCT FROM < comparison (= == <> != < <= > >=)
 *   < [NOT] BETWEEN/IN/LIKE/ILIKE < || < + - < * / % < unary + - < :: < primary
 * Queries and FROM items are parser_query.c; statements are parser.c.
 */
#include "sql/parserInt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static tn_sql_expr *new_expr(tn_sql_parser *p, tn_sql_expr_kind kind, tn_sql_pos pos) {
    tn_sql_expr *e = tn_sqlp_alloc(p, sizeof *e);
    if (e) {
        e->kind = kind;
        e->pos = pos;
    }
    return e;
}

static tn_sql_expr *binary(tn_sql_parser *p, tn_sql_binary_op op, tn_sql_pos pos, tn_sql_expr *l,
                           tn_sql_expr *r) {
    if (!l || !r) return NULL;
    tn_sql_expr *e = new_expr(p, TN_SQL_E_BINARY, pos);
    if (e) {
        e->u.binary.op = op;
        e->u.binary.left = l;
        e->u.binary.right = r;
    }
    return e;
}

static bool tok_is(const tn_sql_parser *p, int ahead, tn_tok_type type) {
    return tn_sqlp_peek(p, ahead)->type == type;
}

/* An unquoted word (keyword or not) whose folded text is `w`. */
static bool tok_word(const tn_sql_token *t, const char *w) {
    return t->type == TK_IDENT && strcmp(t->text, w) == 0;
}

bool tn_sqlp_is_query_start(const tn_sql_parser *p, int ahead) {
    const tn_sql_token *t = tn_sqlp_peek(p, ahead);
    if (t->type != TK_IDENT) return false;
    if (t->kw == KW_SELECT || t->kw == KW_WITH || t->kw == KW_FROM) return true;   /* FROM-first (DuckDB) */
    return t->kw == KW_VALUES && tn_sqlp_peek(p, ahead + 1)->type == TK_LPAREN;
}

/* ---------------------------------------------------------------------------------------------
 * Literals.
 */
static void set_integer(tn_sql_expr *e, const char *text) {
    /* Value of the digits; fits_int64 when the (signed) value is representable. */
    bool neg = text[0] == '-';
    uint64_t v = 0;
    bool overflow = false;
    for (const char *s = text + neg; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) { overflow = true; break; }
        v = v * 10 + d;
    }
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    e->u.lit.fits_int64 = !overflow && v <= limit;
    if (e->u.lit.fits_int64) e->u.lit.int_value = neg ? (int64_t)(0 - v) : (int64_t)v;
}

static tn_sql_expr *number_literal(tn_sql_parser *p, const tn_sql_token *t) {
    tn_sql_expr *e = new_expr(p, TN_SQL_E_LITERAL, t->pos);
    if (!e) return NULL;
    e->u.lit.text = t->text;
    e->u.lit.len = t->text_len;
    if (t->type == TK_INTEGER) {
        e->u.lit.kind = TN_SQL_LIT_INTEGER;
        set_integer(e, t->text);
    } else {
        e->u.lit.kind = t->type == TK_FLOAT ? TN_SQL_LIT_FLOAT : TN_SQL_LIT_DECIMAL;
        e->u.lit.float_value = strtod(t->text, NULL);
    }
    return e;
}

static tn_sql_expr *string_literal(tn_sql_parser *p, const tn_sql_token *t, tn_sql_lit_kind kind) {
    tn_sql_expr *e = new_expr(p, TN_SQL_E_LITERAL, t->pos);
    if (!e) return NULL;
    e->u.lit.kind = kind;
    e->u.lit.text = t->text;
    e->u.lit.len = t->text_len;
    return e;
}

/* -<number literal> becomes one literal whose text starts with '-' (so -9223372036854775808
 * fits int64). */
static tn_sql_expr *negate_literal(tn_sql_parser *p, tn_sql_expr *e, tn_sql_pos pos) {
    char *text = tn_sqlp_alloc(p, e->u.lit.len + 2);
    if (!text) return NULL;
    if (e->u.lit.text[0] == '-') {
        memcpy(text, e->u.lit.text + 1, e->u.lit.len - 1);
        text[e->u.lit.len - 1] = '\0';
        e->u.lit.len--;
    } else {
        text[0] = '-';
        memcpy(text + 1, e->u.lit.text, e->u.lit.len + 1);
        e->u.lit.len++;
    }
    e->u.lit.text = text;
    e->pos = pos;
    if (e->u.lit.kind == TN_SQL_LIT_INTEGER) set_integer(e, text);
    else e->u.lit.float_value = -e->u.lit.float_value;
    return e;
}

/* ---------------------------------------------------------------------------------------------
 * Types.
 */
typedef struct type_alias {
    const char *word;
    const char *canon;
    int8_t id;              /* tn_type_id, -1 = parsed but not a tarn type */
} type_alias;

static const type_alias g_types[] = {
    {"boolean", "BOOLEAN", TN_TYPE_BOOLEAN},   {"bool", "BOOLEAN", TN_TYPE_BOOLEAN},
    {"tinyint", "TINYINT", TN_TYPE_TINYINT},   {"int1", "TINYINT", TN_TYPE_TINYINT},
    {"byte", "TINYINT", TN_TYPE_TINYINT},      {"smallint", "SMALLINT", TN_TYPE_SMALLINT},
    {"int2", "SMALLINT", TN_TYPE_SMALLINT},    {"short", "SMALLINT", TN_TYPE_SMALLINT},
    {"int", "INTEGER", TN_TYPE_INTEGER},       {"integer", "INTEGER", TN_TYPE_INTEGER},
    {"int4", "INTEGER", TN_TYPE_INTEGER},      {"signed", "INTEGER", TN_TYPE_INTEGER},
    {"bigint", "BIGINT", TN_TYPE_BIGINT},      {"int8", "BIGINT", TN_TYPE_BIGINT},
    {"long", "BIGINT", TN_TYPE_BIGINT},        {"float", "FLOAT", TN_TYPE_FLOAT},
    {"real", "FLOAT", TN_TYPE_FLOAT},          {"float4", "FLOAT", TN_TYPE_FLOAT},
    {"double", "DOUBLE", TN_TYPE_DOUBLE},      {"float8", "DOUBLE", TN_TYPE_DOUBLE},
    {"decimal", "DECIMAL", TN_TYPE_DECIMAL},   {"numeric", "DECIMAL", TN_TYPE_DECIMAL},
    {"dec", "DECIMAL", TN_TYPE_DECIMAL},       {"varchar", "VARCHAR", TN_TYPE_VARCHAR},
    {"string", "VARCHAR", TN_TYPE_VARCHAR},    {"text", "VARCHAR", TN_TYPE_VARCHAR},
    {"char", "VARCHAR", TN_TYPE_VARCHAR},      {"character", "VARCHAR", TN_TYPE_VARCHAR},
    {"bpchar", "VARCHAR", TN_TYPE_VARCHAR},    {"nvarchar", "VARCHAR", TN_TYPE_VARCHAR},
    {"varbinary", "VARBINARY", TN_TYPE_VARBINARY}, {"binary", "VARBINARY", TN_TYPE_VARBINARY},
    {"blob", "VARBINARY", TN_TYPE_VARBINARY},  {"bytea", "VARBINARY", TN_TYPE_VARBINARY},
    {"bytes", "VARBINARY", TN_TYPE_VARBINARY}, {"date", "DATE", TN_TYPE_DATE},
    {"timestamp", "TIMESTAMP", TN_TYPE_TIMESTAMP}, {"datetime", "TIMESTAMP", TN_TYPE_TIMESTAMP},
    {"timestamp_ntz", "TIMESTAMP", TN_TYPE_TIMESTAMP},
    {"timestamptz", "TIMESTAMPTZ", TN_TYPE_TIMESTAMP_TZ},
    {"timestamp_ltz", "TIMESTAMPTZ", TN_TYPE_TIMESTAMP_TZ},
    /* Phoenix's unsigned types: stored as the signed type of the same width (Phoenix's ranges
     * are the non-negative half of it); negative values are not refused */
    {"unsigned_tinyint", "TINYINT", TN_TYPE_TINYINT}, {"unsigned_smallint", "SMALLINT", TN_TYPE_SMALLINT},
    {"unsigned_int", "INTEGER", TN_TYPE_INTEGER}, {"unsigned_long", "BIGINT", TN_TYPE_BIGINT},
    {"unsigned_float", "FLOAT", TN_TYPE_FLOAT}, {"unsigned_double", "DOUBLE", TN_TYPE_DOUBLE},
    {"unsigned_date", "DATE", TN_TYPE_DATE},   {"unsigned_timestamp", "TIMESTAMP", TN_TYPE_TIMESTAMP},
    {"time", "TIME", -1},                      {"interval", "INTERVAL", -1},
    {"uuid", "UUID", -1},                      {"json", "JSON", -1},
    /* PostgreSQL's catalog types (clients' catalog queries): oid as BIGINT, name as VARCHAR;
     * regclass & co. become calls of the function of that name (func_pg.c) in postfix() */
    {"oid", "BIGINT", TN_TYPE_BIGINT},         {"name", "VARCHAR", TN_TYPE_VARCHAR},
    {"regclass", "REGCLASS", -1},              {"regtype", "REGTYPE", -1},
    {"regproc", "REGPROC", -1},                {"regprocedure", "REGPROC", -1},
    {"regnamespace", "REGNAMESPACE", -1},      {"regrole", "REGROLE", -1},
};

static const type_alias *find_type(const char *word) {
    for (size_t k = 0; k < sizeof g_types / sizeof g_types[0]; k++)
        if (strcmp(g_types[k].word, word) == 0) return &g_types[k];
    return NULL;
}

static char *upper_dup(tn_sql_parser *p, const char *s) {
    size_t n = strlen(s);
    char *u = tn_sqlp_alloc(p, n + 1);
    if (!u) return NULL;
    for (size_t k = 0; k < n; k++) u[k] = s[k] >= 'a' && s[k] <= 'z' ? (char)(s[k] - 32) : s[k];
    return u;
}

/* The nested type names: STRUCT(a INT, ...) / ROW(...), MAP(K, V), LIST(T) / LIST<T>, and
 * Spark's ARRAY<T>, STRUCT<a: T, ...>, MAP<K, V>; T[] is handled after the base type
 * (tn_sqlp_type). */
static tn_sql_type *nested_type(tn_sql_parser *p, const tn_sql_token *t) {
    bool angle = tok_is(p, 1, TK_LT);
    tn_sql_type *ty = tn_sqlp_alloc(p, sizeof *ty);
    if (!ty) return NULL;
    ty->pos = t->pos;
    ty->known = true;
    p->i += 2;
    tn_tok_type close = angle ? TK_GT : TK_RPAREN;
    int rc = 0;
    if (strcmp(t->text, "array") == 0 || strcmp(t->text, "list") == 0) {
        tn_sql_type *el = tn_sqlp_type(p);
        if (!el) return NULL;
        if (!el->known) return tn_sqlp_fail_at(p, el->pos, "type %s is not supported inside a nested type", el->name);
        ty->name = "LIST";
        rc = tn_type_list(&ty->type, el->type);
    } else if (strcmp(t->text, "map") == 0) {
        tn_sql_type *k = tn_sqlp_type(p);
        if (!k || !tn_sqlp_expect(p, TK_COMMA, "',' between the key and value types of MAP")) return NULL;
        tn_sql_type *v = tn_sqlp_type(p);
        if (!v) return NULL;
        if (!k->known || !v->known) return tn_sqlp_fail_at(p, ty->pos, "unsupported type inside MAP");
        ty->name = "MAP";
        rc = tn_type_map(&ty->type, k->type, v->type);
    } else {
        const char *names[64];
        tn_type types[64];
        uint32_t n = 0;
        do {
            const tn_sql_token *f = tn_sqlp_peek(p, 0);
            if (f->type != TK_IDENT && f->type != TK_QIDENT && f->type != TK_STRING)
                return tn_sqlp_fail_expected(p, "a field name");
            if (n == 64) return tn_sqlp_fail_at(p, f->pos, "too many STRUCT fields (at most 64)");
            names[n] = f->text;
            tn_sqlp_advance(p);
            tn_sqlp_accept(p, TK_COLON);
            tn_sql_type *ft = tn_sqlp_type(p);
            if (!ft) return NULL;
            if (!ft->known) return tn_sqlp_fail_at(p, ft->pos, "type %s is not supported inside a STRUCT", ft->name);
            types[n++] = ft->type;
        } while (tn_sqlp_accept(p, TK_COMMA));
        ty->name = "STRUCT";
        rc = tn_type_struct(&ty->type, n, names, types);
    }
    if (rc) return tn_sqlp_fail_at(p, ty->pos, "%s", tn_error_message());
    if (!tn_sqlp_expect(p, close, angle ? "'>' to close the type" : "')' to close the type")) return NULL;
    return ty;
}

/* T ARRAY (the SQL standard's spelling, as DuckDB accepts it; not before '[') */
static bool array_word(tn_sql_parser *p) {
    return tok_word(tn_sqlp_peek(p, 0), "array") && !tok_is(p, 1, TK_LBRACKET) && !tok_is(p, 1, TK_LPAREN);
}

/* T[], T[][] and T ARRAY: lists (after a tarn type; PostgreSQL catalog spellings keep the old
 * meaning). */
static tn_sql_type *array_suffix(tn_sql_parser *p, tn_sql_type *ty) {
    for (;;) {
        if (tok_is(p, 0, TK_LBRACKET) && tok_is(p, 1, TK_RBRACKET)) p->i += 2;
        else if (array_word(p)) p->i += 1;
        else break;
        if (tn_type_list(&ty->type, ty->type)) return tn_sqlp_fail_at(p, ty->pos, "%s", tn_error_message());
        ty->name = "LIST";
        ty->n_params = 0;
    }
    return ty;
}

tn_sql_type *tn_sqlp_type(tn_sql_parser *p) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type == TK_IDENT &&
        (((strcmp(t->text, "struct") == 0 || strcmp(t->text, "row") == 0 || strcmp(t->text, "map") == 0) &&
          (tok_is(p, 1, TK_LPAREN) || tok_is(p, 1, TK_LT))) ||
         (strcmp(t->text, "array") == 0 && tok_is(p, 1, TK_LT)) ||
         (strcmp(t->text, "list") == 0 && (tok_is(p, 1, TK_LPAREN) || tok_is(p, 1, TK_LT))))) {
        tn_sql_type *ty = nested_type(p, t);
        return ty ? array_suffix(p, ty) : NULL;
    }
    bool pg_prefixed = false;
    if (t->type != TK_IDENT && t->type != TK_QIDENT) return tn_sqlp_fail_expected(p, "a type name");
    if (t->type == TK_IDENT && tn_sql_keyword_class(t->kw) == KWC_RESERVED)
        return tn_sqlp_fail_expected(p, "a type name");
    if (t->type == TK_IDENT && strcmp(t->text, "pg_catalog") == 0 && tok_is(p, 1, TK_DOT)) {
        p->i += 2;                     /* ::pg_catalog.text: PostgreSQL's schema of its types */
        pg_prefixed = true;
        t = tn_sqlp_peek(p, 0);
        if (t->type != TK_IDENT && t->type != TK_QIDENT) return tn_sqlp_fail_expected(p, "a type name");
    }
    tn_sql_type *ty = tn_sqlp_alloc(p, sizeof *ty);
    if (!ty) return NULL;
    ty->pos = t->pos;
    const type_alias *a = t->type == TK_IDENT || (t->type == TK_QIDENT && strcmp(t->text, "char") == 0)
                              ? find_type(t->text) : NULL;
    bool is_ts = a && a->id == TN_TYPE_TIMESTAMP && strcmp(t->text, "timestamp") == 0;
    if (a) {
        ty->name = a->canon;
        ty->known = a->id >= 0;
        if (a->id >= 0) ty->type = tn_type_make((tn_type_id)a->id);
    } else {
        ty->name = upper_dup(p, t->text);
        if (!ty->name) return NULL;
    }
    tn_sqlp_advance(p);
    /* Two-word spellings. */
    if (a && a->id == TN_TYPE_DOUBLE && strcmp(t->text, "double") == 0) tn_sqlp_accept_kw(p, KW_PRECISION);
    if (a && a->id == TN_TYPE_VARCHAR && (strcmp(t->text, "character") == 0 || strcmp(t->text, "char") == 0))
        tn_sqlp_accept_kw(p, KW_VARYING);
    tn_sql_pos lparen = tn_sqlp_peek(p, 0)->pos;
    if (tok_is(p, 0, TK_LPAREN)) {
        /* DuckDB's grammar has no parameters after these keywords (INTEGER(5) is a syntax error) */
        static const char *const bare[] = {"int", "integer", "smallint", "bigint", "real", "boolean"};
        for (size_t k = 0; a && k < sizeof bare / sizeof bare[0]; k++)
            if (strcmp(t->text, bare[k]) == 0)
                return tn_sqlp_fail_at(p, lparen, "syntax error at or near \"(\": %s takes no type parameters", ty->name);
        tn_sqlp_advance(p);
        for (;;) {
            const tn_sql_token *n = tn_sqlp_peek(p, 0);
            if (n->type != TK_INTEGER) return tn_sqlp_fail_expected(p, "an integer type parameter");
            if (ty->n_params == 2) return tn_sqlp_fail_at(p, n->pos, "too many type parameters");
            errno = 0;
            long long v = strtoll(n->text, NULL, 10);
            if (errno || v > 1000000000) return tn_sqlp_fail_at(p, n->pos, "type parameter too large");
            ty->params[ty->n_params++] = v;
            tn_sqlp_advance(p);
            if (!tn_sqlp_accept(p, TK_COMMA)) break;
        }
        if (!tn_sqlp_expect(p, TK_RPAREN, "')' after type parameters")) return NULL;
    }
    if (is_ts && (tn_sqlp_is_kw(p, 0, KW_WITH) || tn_sqlp_is_kw(p, 0, KW_WITHOUT)) &&
        tn_sqlp_is_kw(p, 1, KW_TIME) && tn_sqlp_is_kw(p, 2, KW_ZONE)) {
        if (tn_sqlp_is_kw(p, 0, KW_WITH)) {
            ty->name = "TIMESTAMPTZ";
            ty->type = tn_type_make(TN_TYPE_TIMESTAMP_TZ);
        }
        p->i += 3;
    }
    if (((tok_is(p, 0, TK_LBRACKET) && tok_is(p, 1, TK_RBRACKET)) || array_word(p)) && ty->known && !pg_prefixed &&
        strcmp(t->text, "name") != 0 && strcmp(t->text, "oid") != 0) {
        if (ty->known && ty->type.id == TN_TYPE_DECIMAL && ty->n_params) {
            int64_t prec = ty->params[0], scale = ty->n_params >= 2 ? ty->params[1] : 0;
            if (prec < 1 || prec > TN_DECIMAL_MAX_PRECISION || scale > prec)
                return tn_sqlp_fail_at(p, ty->pos, "invalid DECIMAL type parameters");
            ty->type = tn_type_decimal((int)prec, (int)scale);
        } else if (ty->known && ty->type.id == TN_TYPE_DECIMAL) ty->type = tn_type_decimal(18, 3);
        return array_suffix(p, ty);
    }
    if (tok_is(p, 0, TK_LBRACKET) && tok_is(p, 1, TK_RBRACKET)) {
        /* a PostgreSQL array type (text[]): tarn has no arrays; catalog array columns are
         * VARCHAR in PostgreSQL's array text form ('{a,b}'), and so is the cast */
        p->i += 2;
        ty->name = "VARCHAR";
        ty->known = true;
        ty->type = tn_type_make(TN_TYPE_VARCHAR);
        ty->n_params = 0;
        return ty;
    }
    if (ty->n_params && ty->known) {
        /* Which types take parameters, as in DuckDB: DECIMAL(p,s), VARCHAR(n) (ignored: no
         * length limit), FLOAT(p) and TIMESTAMP(p); and Phoenix's BINARY(n)/VARBINARY(n), a
         * VARBINARY as VARCHAR(n) is a VARCHAR (the bitmap DDL of the Phoenix dialect); any other
         * is an error, never ignored. */
        tn_type_id id = (tn_type_id)ty->type.id;
        if (id == TN_TYPE_TIMESTAMP) {
            if (ty->n_params != 1) return tn_sqlp_fail_at(p, ty->pos, "TIMESTAMP takes one type parameter, the precision");
            if (ty->params[0] > 9)
                return tn_sqlp_fail_at(p, ty->pos, "TIMESTAMP only supports until nano-second precision (9)");
            if (ty->params[0] > 6)
                return tn_sqlp_fail_at(p, ty->pos, "TIMESTAMP(%lld): nanosecond precision is not supported (tarn "
                                       "timestamps hold microseconds); use TIMESTAMP or TIMESTAMP(6)",
                                       (long long)ty->params[0]);
        } else if (id == TN_TYPE_TIMESTAMP_TZ && !(ty->n_params == 1 && ty->params[0] == 6)) {
            /* PostgreSQL's TIMESTAMP(6) WITH TIME ZONE is what tarn holds; DuckDB refuses any */
            return tn_sqlp_fail_at(p, ty->pos, "Type 'TIMESTAMP WITH TIME ZONE' does not take any type parameters");
        } else if (id != TN_TYPE_DECIMAL && id != TN_TYPE_VARCHAR && id != TN_TYPE_FLOAT &&
                   id != TN_TYPE_TIMESTAMP_TZ && !(id == TN_TYPE_VARBINARY && ty->n_params == 1)) {
            return tn_sqlp_fail_at(p, ty->pos, "Type '%s' does not take any type parameters", ty->name);
        }
    }
    if (ty->known && ty->type.id == TN_TYPE_DECIMAL) {
        int64_t prec = ty->n_params >= 1 ? ty->params[0] : 18;
        int64_t scale = ty->n_params >= 2 ? ty->params[1] : (ty->n_params == 1 ? 0 : 3);
        if (prec < 1 || prec > TN_DECIMAL_MAX_PRECISION)
            return tn_sqlp_fail_at(p, ty->pos, "DECIMAL precision must be between 1 and 38");
        if (scale > prec) return tn_sqlp_fail_at(p, ty->pos, "DECIMAL scale must not exceed its precision");
        ty->type = tn_type_decimal((int)prec, (int)scale);
    } else if (ty->known && ty->type.id == TN_TYPE_FLOAT && ty->n_params == 1 && ty->params[0] > 24) {
        ty->name = "DOUBLE";
        ty->type = tn_type_make(TN_TYPE_DOUBLE);
    }
    return ty;
}

/* ---------------------------------------------------------------------------------------------
 * Lists.
 */
/* DuckDB accepts a trailing comma in a list (select list, VALUES, IN, GROUP BY, CREATE TABLE
 * columns): true when the token after a comma ends the list instead of starting an item. */
bool tn_sqlp_list_ends(const tn_sql_parser *p) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type == TK_RPAREN || t->type == TK_RBRACKET || t->type == TK_SEMI || t->type == TK_EOF) return true;
    if (t->type != TK_IDENT) return false;
    switch (t->kw) {
    case KW_FROM: case KW_WHERE: case KW_HAVING: case KW_LIMIT: case KW_OFFSET: case KW_UNION:
    case KW_EXCEPT: case KW_INTERSECT: case KW_WINDOW: case KW_INTO:
        return true;
    case KW_GROUP: case KW_ORDER: return tn_sqlp_is_kw(p, 1, KW_BY);
    default: return strcmp(t->text, "qualify") == 0;
    }
}

bool tn_sqlp_expr_list(tn_sql_parser *p, tn_sql_expr_list *out) {
    tn_vec v = {0};
    do {
        if (v.n && tn_sqlp_list_ends(p)) break;          /* trailing comma */
        tn_sql_expr *e = tn_sqlp_expr(p);
        if (!e || !tn_sqlp_push(p, &v, &e, sizeof e)) return false;
    } while (tn_sqlp_accept(p, TK_COMMA));
    out->items = v.data;
    out->n = v.n;
    return true;
}

bool tn_sqlp_order_list(tn_sql_parser *p, tn_sql_order_list *out) {
    tn_vec v = {0};
    do {
        tn_sql_order_item it = {0};
        it.expr = tn_sqlp_expr(p);
        if (!it.expr) return false;
        if (tn_sqlp_accept_kw(p, KW_DESC)) it.desc = true;
        else tn_sqlp_accept_kw(p, KW_ASC);
        if (tn_sqlp_accept_kw(p, KW_NULLS)) {
            if (tn_sqlp_accept_kw(p, KW_FIRST)) it.nulls = 1;
            else if (tn_sqlp_accept_kw(p, KW_LAST)) it.nulls = 2;
            else return tn_sqlp_fail_expected(p, "FIRST or LAST after NULLS");
        }
        if (!tn_sqlp_push(p, &v, &it, sizeof it)) return false;
    } while (tn_sqlp_accept(p, TK_COMMA));
    out->items = v.data;
    out->n = v.n;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Function calls: f(), f(*), f(DISTINCT a, b ORDER BY c), name => v, FILTER, OVER.
 */
static bool frame_bound(tn_sql_parser *p, tn_sql_frame_bound_kind *kind, tn_sql_expr **offset) {
    if (tn_sqlp_accept_kw(p, KW_UNBOUNDED)) {
        if (tn_sqlp_accept_kw(p, KW_PRECEDING)) *kind = TN_SQL_BOUND_UNBOUNDED_PRECEDING;
        else if (tn_sqlp_accept_kw(p, KW_FOLLOWING)) *kind = TN_SQL_BOUND_UNBOUNDED_FOLLOWING;
        else return tn_sqlp_fail_expected(p, "PRECEDING or FOLLOWING");
        return true;
    }
    if (tn_sqlp_is_kw(p, 0, KW_CURRENT) && tn_sqlp_is_kw(p, 1, KW_ROW)) {
        p->i += 2;
        *kind = TN_SQL_BOUND_CURRENT_ROW;
        return true;
    }
    *offset = tn_sqlp_expr(p);
    if (!*offset) return false;
    if (tn_sqlp_accept_kw(p, KW_PRECEDING)) *kind = TN_SQL_BOUND_PRECEDING;
    else if (tn_sqlp_accept_kw(p, KW_FOLLOWING)) *kind = TN_SQL_BOUND_FOLLOWING;
    else return tn_sqlp_fail_expected(p, "PRECEDING or FOLLOWING");
    return true;
}

static tn_sql_window *window_spec(tn_sql_parser *p);
tn_sql_window *tn_sqlp_window_spec(tn_sql_parser *p) { return window_spec(p); }

static tn_sql_window *window_spec(tn_sql_parser *p) {
    tn_sql_window *w = tn_sqlp_alloc(p, sizeof *w);
    if (!w) return NULL;
    if (!tok_is(p, 0, TK_LPAREN)) {
        if (!tn_sqlp_ident(p, "a window name or '(' after OVER", &w->name)) return NULL;
        return w;
    }
    tn_sqlp_advance(p);
    if (tn_sqlp_is_kw(p, 0, KW_PARTITION)) {
        tn_sqlp_advance(p);
        if (!tn_sqlp_expect_kw(p, KW_BY, "BY after PARTITION")) return NULL;
        if (!tn_sqlp_expr_list(p, &w->partition_by)) return NULL;
    }
    if (tn_sqlp_accept_kw(p, KW_ORDER)) {
        if (!tn_sqlp_expect_kw(p, KW_BY, "BY after ORDER")) return NULL;
        if (!tn_sqlp_order_list(p, &w->order_by)) return NULL;
    }
    if (tn_sqlp_is_kw(p, 0, KW_ROWS) || tn_sqlp_is_kw(p, 0, KW_RANGE) || tn_sqlp_is_kw(p, 0, KW_GROUPS)) {
        tn_kw kw = tn_sqlp_peek(p, 0)->kw;
        w->frame_mode = kw == KW_ROWS ? 1 : kw == KW_RANGE ? 2 : 3;
        tn_sqlp_advance(p);
        if (tn_sqlp_accept_kw(p, KW_BETWEEN)) {
            if (!frame_bound(p, &w->start_kind, &w->start_offset)) return NULL;
            if (!tn_sqlp_expect_kw(p, KW_AND, "AND in window frame")) return NULL;
            if (!frame_bound(p, &w->end_kind, &w->end_offset)) return NULL;
        } else if (!frame_bound(p, &w->start_kind, &w->start_offset)) {
            return NULL;
        }
    }
    if (!tn_sqlp_expect(p, TK_RPAREN, "')' after window specification")) return NULL;
    return w;
}

static bool is_substring_name(tn_sql_qname name) {
    if (name.n != 1) return false;
    const char *w = name.parts[0].name;
    return strcasecmp(w, "substring") == 0 || strcasecmp(w, "substr") == 0;
}

/* The standard's spelling `substring(s FROM start [FOR length])` and `substring(s FOR length)`,
   after `s`: appends start (1 when only FOR is given) and length as ordinary arguments. */
static bool substring_from_for(tn_sql_parser *p, tn_vec *args, tn_vec *names) {
    tn_sql_ident none = {0};
    tn_sql_expr *start;
    if (tn_sqlp_accept_kw(p, KW_FROM)) {
        start = tn_sqlp_expr(p);
    } else {
        start = new_expr(p, TN_SQL_E_LITERAL, tn_sqlp_peek(p, 0)->pos);
        if (start) {
            start->u.lit.kind = TN_SQL_LIT_INTEGER;
            start->u.lit.text = "1";
            start->u.lit.len = 1;
            set_integer(start, "1");
        }
    }
    if (!start || !tn_sqlp_push(p, args, &start, sizeof start) || !tn_sqlp_push(p, names, &none, sizeof none))
        return false;
    if (!tok_word(tn_sqlp_peek(p, 0), "for")) return true;
    tn_sqlp_advance(p);
    tn_sql_expr *len = tn_sqlp_expr(p);
    return len && tn_sqlp_push(p, args, &len, sizeof len) && tn_sqlp_push(p, names, &none, sizeof none);
}

/* The standard's `trim([BOTH | LEADING | TRAILING] [chars] FROM s)` and `trim(BOTH s [, chars])`
   (DuckDB's grammar, after PostgreSQL's): the call becomes trim/ltrim/rtrim(s [, chars]).
   Returns 1 when it parsed the arguments, 0 when the call is an ordinary one, -1 on error. */
static int trim_special(tn_sql_parser *p, tn_sql_expr *e, tn_vec *args, tn_vec *names) {
    tn_sql_qname name = e->u.func.name;
    if (name.n != 1 || strcasecmp(name.parts[0].name, "trim") != 0) return 0;
    const tn_sql_token *t0 = tn_sqlp_peek(p, 0), *t1 = tn_sqlp_peek(p, 1);
    const char *fn = NULL;
    if (tok_word(t0, "both")) fn = "trim";
    else if (tok_word(t0, "leading")) fn = "ltrim";
    else if (tok_word(t0, "trailing")) fn = "rtrim";
    bool side = fn && t1->type != TK_RPAREN && t1->type != TK_COMMA && t1->type != TK_DOT &&
                t1->type != TK_CONCAT && t1->type != TK_CAST && t1->type != TK_LBRACKET;
    if (side) tn_sqlp_advance(p);
    else fn = "trim";                          /* `trim(chars FROM s)`, `trim(FROM s)`, trim(s, chars) */
    tn_sql_ident none = {0};
    tn_sql_expr *chars = NULL;
    if (!tn_sqlp_accept_kw(p, KW_FROM)) {
        chars = tn_sqlp_expr(p);
        if (!chars) return -1;
        if (!tn_sqlp_accept_kw(p, KW_FROM)) {
            if (!side) {                       /* an ordinary call: trim(s [, chars]) */
                if (!tn_sqlp_push(p, args, &chars, sizeof chars) || !tn_sqlp_push(p, names, &none, sizeof none))
                    return -1;
                while (tn_sqlp_accept(p, TK_COMMA)) {
                    tn_sql_expr *a = tn_sqlp_expr(p);
                    if (!a || !tn_sqlp_push(p, args, &a, sizeof a) || !tn_sqlp_push(p, names, &none, sizeof none))
                        return -1;
                }
                return 1;
            }
            /* BOTH s [, chars]: the first operand is the string */
            if (!tn_sqlp_push(p, args, &chars, sizeof chars) || !tn_sqlp_push(p, names, &none, sizeof none))
                return -1;
            chars = NULL;
            goto rest;
        }
    }
    {
        tn_sql_expr *s = tn_sqlp_expr(p);
        if (!s || !tn_sqlp_push(p, args, &s, sizeof s) || !tn_sqlp_push(p, names, &none, sizeof none))
            return -1;
    }
rest:
    while (tn_sqlp_accept(p, TK_COMMA)) {
        tn_sql_expr *a = tn_sqlp_expr(p);
        if (!a || !tn_sqlp_push(p, args, &a, sizeof a) || !tn_sqlp_push(p, names, &none, sizeof none))
            return -1;
    }
    if (chars && (!tn_sqlp_push(p, args, &chars, sizeof chars) || !tn_sqlp_push(p, names, &none, sizeof none)))
        return -1;
    tn_sql_ident *part = tn_sqlp_alloc(p, sizeof *part);
    if (!part) return -1;
    *part = name.parts[0];
    part->name = fn;
    part->quoted = false;
    e->u.func.name.parts = part;
    return 1;
}

tn_sql_expr *tn_sqlp_func_call(tn_sql_parser *p, tn_sql_qname name, bool table_function) {
    tn_sql_expr *e = new_expr(p, TN_SQL_E_FUNCTION, name.parts[0].pos);
    if (!e) return NULL;
    e->u.func.name = name;
    if (!tn_sqlp_expect(p, TK_LPAREN, "'('")) return NULL;
    if (tok_is(p, 0, TK_STAR) && tok_is(p, 1, TK_RPAREN)) {
        p->i += 2;
        e->u.func.star = true;
    } else if (tn_sqlp_accept(p, TK_RPAREN)) {
        /* no arguments */
    } else {
        tn_vec args = {0}, names = {0};
        bool any_named = false;
        int special = table_function ? 0 : trim_special(p, e, &args, &names);
        if (special < 0) return NULL;
        if (special) goto args_done;
        if (tn_sqlp_accept_kw(p, KW_DISTINCT)) e->u.func.distinct = true;
        else tn_sqlp_accept_kw(p, KW_ALL);
        do {
            tn_sql_ident nm = {0};
            const tn_sql_token *t1 = tn_sqlp_peek(p, 1);
            bool named = (t1->type == TK_ASSIGN || t1->type == TK_ARROW ||
                          (table_function && t1->type == TK_EQ)) &&
                         (tn_sqlp_peek(p, 0)->type == TK_QIDENT || tn_sqlp_peek(p, 0)->type == TK_IDENT) &&
                         tn_sql_keyword_class(tn_sqlp_peek(p, 0)->kw) != KWC_RESERVED;
            if (named) {
                nm = tn_sqlp_tok_ident(tn_sqlp_peek(p, 0));
                p->i += 2;
                any_named = true;
            }
            tn_sql_expr *a = tn_sqlp_expr(p);
            if (!a || !tn_sqlp_push(p, &args, &a, sizeof a) || !tn_sqlp_push(p, &names, &nm, sizeof nm))
                return NULL;
            if (args.n == 1 && !named && is_substring_name(name) &&
                (tn_sqlp_is_kw(p, 0, KW_FROM) || tok_word(tn_sqlp_peek(p, 0), "for"))) {
                if (!substring_from_for(p, &args, &names)) return NULL;
                break;
            }
        } while (tn_sqlp_accept(p, TK_COMMA));
    args_done:
        e->u.func.args.items = args.data;
        e->u.func.args.n = args.n;
        if (any_named) e->u.func.arg_names = names.data;
        if (tn_sqlp_accept_kw(p, KW_ORDER)) {
            if (!tn_sqlp_expect_kw(p, KW_BY, "BY after ORDER")) return NULL;
            if (!tn_sqlp_order_list(p, &e->u.func.order_by)) return NULL;
        }
        if (!tn_sqlp_expect(p, TK_RPAREN, "')' after function arguments")) return NULL;
    }
    if (table_function) return e;
    if (tn_sqlp_is_kw(p, 0, KW_FILTER) && tok_is(p, 1, TK_LPAREN)) {
        p->i += 2;
        if (!tn_sqlp_expect_kw(p, KW_WHERE, "WHERE after FILTER (")) return NULL;
        e->u.func.filter = tn_sqlp_expr(p);
        if (!e->u.func.filter) return NULL;
        if (!tn_sqlp_expect(p, TK_RPAREN, "')' after FILTER condition")) return NULL;
    }
    if (tn_sqlp_is_kw(p, 0, KW_OVER) &&
        (tok_is(p, 1, TK_LPAREN) || tn_sqlp_tok_is_colid(tn_sqlp_peek(p, 1)))) {
        tn_sqlp_advance(p);
        e->u.func.over = window_spec(p);
        if (!e->u.func.over) return NULL;
    }
    return e;
}

/* ---------------------------------------------------------------------------------------------
 * Primary expressions.
 */
static tn_sql_interval_unit interval_unit(const tn_sql_token *t) {
    static const struct { const char *w; tn_sql_interval_unit u; } units[] = {
        {"year", TN_SQL_UNIT_YEAR},     {"years", TN_SQL_UNIT_YEAR},
        {"month", TN_SQL_UNIT_MONTH},   {"months", TN_SQL_UNIT_MONTH},
        {"week", TN_SQL_UNIT_WEEK},     {"weeks", TN_SQL_UNIT_WEEK},
        {"day", TN_SQL_UNIT_DAY},       {"days", TN_SQL_UNIT_DAY},
        {"hour", TN_SQL_UNIT_HOUR},     {"hours", TN_SQL_UNIT_HOUR},
        {"minute", TN_SQL_UNIT_MINUTE}, {"minutes", TN_SQL_UNIT_MINUTE},
        {"second", TN_SQL_UNIT_SECOND}, {"seconds", TN_SQL_UNIT_SECOND},
        {"millisecond", TN_SQL_UNIT_MILLISECOND}, {"milliseconds", TN_SQL_UNIT_MILLISECOND},
        {"microsecond", TN_SQL_UNIT_MICROSECOND}, {"microseconds", TN_SQL_UNIT_MICROSECOND},
    };
    if (t->type != TK_IDENT) return TN_SQL_UNIT_NONE;
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (strcmp(units[k].w, t->text) == 0) return units[k].u;
    return TN_SQL_UNIT_NONE;
}

/* The standard's leading-field precision, `INTERVAL '90' DAY (3)`: at most that many digits
   (1 to 9) in the leading field of the literal `text` (NULL when the value is not a string). */
static bool interval_precision(tn_sql_parser *p, const tn_sql_token *text) {
    const tn_sql_token *n = tn_sqlp_peek(p, 1);
    if (n->type != TK_INTEGER || !tok_is(p, 2, TK_RPAREN))
        return tn_sqlp_fail_expected(p, "an interval precision such as DAY (3)") != NULL;
    long digits = strtol(n->text, NULL, 10);
    if (digits < 1 || digits > 9) {
        tn_sqlp_fail_at(p, n->pos, "interval precision %s is out of range (1 to 9)", n->text);
        return false;
    }
    if (text) {
        size_t i = 0, lead = 0;
        while (i < text->text_len && (text->text[i] == ' ' || text->text[i] == '-' || text->text[i] == '+')) i++;
        while (i + lead < text->text_len && text->text[i + lead] >= '0' && text->text[i + lead] <= '9') lead++;
        if ((long)lead > digits) {
            tn_sqlp_fail_at(p, text->pos, "interval '%.*s' has more than %ld digits in its leading field",
                            (int)text->text_len, text->text, digits);
            return false;
        }
    }
    p->i += 3;
    return true;
}

static tn_sql_expr *interval_expr(tn_sql_parser *p, tn_sql_pos pos) {
    tn_sql_expr *e = new_expr(p, TN_SQL_E_INTERVAL, pos);
    if (!e) return NULL;
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    bool is_string = t->type == TK_STRING;
    if (is_string) {
        e->u.interval.value = string_literal(p, t, TN_SQL_LIT_STRING);
        tn_sqlp_advance(p);
    } else if (t->type == TK_LPAREN) {
        tn_sqlp_advance(p);
        e->u.interval.value = tn_sqlp_expr(p);
        if (e->u.interval.value && !tn_sqlp_expect(p, TK_RPAREN, "')'")) return NULL;
    } else {
        bool neg = t->type == TK_MINUS;
        tn_sql_pos npos = t->pos;
        if (neg) t = tn_sqlp_peek(p, 1);
        if (t->type != TK_INTEGER && t->type != TK_DECIMAL && t->type != TK_FLOAT)
            return tn_sqlp_fail_expected(p, "a string or number after INTERVAL");
        p->i += neg ? 2 : 1;
        e->u.interval.value = number_literal(p, t);
        if (e->u.interval.value && neg) e->u.interval.value = negate_literal(p, e->u.interval.value, npos);
    }
    if (!e->u.interval.value) return NULL;
    e->u.interval.unit = interval_unit(tn_sqlp_peek(p, 0));
    if (e->u.interval.unit != TN_SQL_UNIT_NONE) {
        tn_sqlp_advance(p);
        if (tok_is(p, 0, TK_LPAREN) && !interval_precision(p, is_string ? t : NULL)) return NULL;
        if (tn_sqlp_is_kw(p, 0, KW_TO) && interval_unit(tn_sqlp_peek(p, 1)) != TN_SQL_UNIT_NONE) {
            e->u.interval.to_unit = interval_unit(tn_sqlp_peek(p, 1));
            p->i += 2;
        }
    } else if (!is_string) {
        return tn_sqlp_fail_expected(p, "an interval unit (DAY, HOUR, ...)");
    }
    return e;
}

static tn_sql_expr *case_expr(tn_sql_parser *p, tn_sql_pos pos) {
    tn_sql_expr *e = new_expr(p, TN_SQL_E_CASE, pos);
    if (!e) return NULL;
    if (!tn_sqlp_is_kw(p, 0, KW_WHEN)) {
        e->u.case_.operand = tn_sqlp_expr(p);
        if (!e->u.case_.operand) return NULL;
    }
    tn_vec whens = {0};
    while (tn_sqlp_accept_kw(p, KW_WHEN)) {
        tn_sql_case_when w;
        w.when = tn_sqlp_expr(p);
        if (!w.when || !tn_sqlp_expect_kw(p, KW_THEN, "THEN after WHEN condition")) return NULL;
        w.then = tn_sqlp_expr(p);
        if (!w.then || !tn_sqlp_push(p, &whens, &w, sizeof w)) return NULL;
    }
    if (whens.n == 0) return tn_sqlp_fail_expected(p, "WHEN in CASE");
    e->u.case_.whens = whens.data;
    e->u.case_.n_whens = whens.n;
    if (tn_sqlp_accept_kw(p, KW_ELSE)) {
        e->u.case_.else_expr = tn_sqlp_expr(p);
        if (!e->u.case_.else_expr) return NULL;
    }
    if (!tn_sqlp_expect_kw(p, KW_END, "END after CASE")) return NULL;
    return e;
}

static tn_sql_expr *cast_expr(tn_sql_parser *p, tn_sql_pos pos, bool try_cast) {
    tn_sql_expr *e = new_expr(p, TN_SQL_E_CAST, pos);
    if (!e) return NULL;
    e->u.cast.try_cast = try_cast;
    if (!tn_sqlp_expect(p, TK_LPAREN, try_cast ? "'(' after TRY_CAST" : "'(' after CAST")) return NULL;
    e->u.cast.arg = tn_sqlp_expr(p);
    if (!e->u.cast.arg || !tn_sqlp_expect_kw(p, KW_AS, "AS in CAST")) return NULL;
    e->u.cast.type = tn_sqlp_type(p);
    if (!e->u.cast.type || !tn_sqlp_expect(p, TK_RPAREN, "')' after CAST")) return NULL;
    return e;
}

static tn_sql_expr *extract_expr(tn_sql_parser *p, tn_sql_pos pos) {
    tn_sql_expr *e = new_expr(p, TN_SQL_E_EXTRACT, pos);
    if (!e) return NULL;
    p->i++;                                           /* ( */
    const tn_sql_token *f = tn_sqlp_peek(p, 0);
    if (f->type == TK_IDENT || f->type == TK_STRING) {
        char *lower = tn_sqlp_alloc(p, f->text_len + 1);
        if (!lower) return NULL;
        for (size_t k = 0; k < f->text_len; k++)
            lower[k] = f->text[k] >= 'A' && f->text[k] <= 'Z' ? (char)(f->text[k] + 32) : f->text[k];
        e->u.extract.field = lower;
        tn_sqlp_advance(p);
    } else {
        return tn_sqlp_fail_expected(p, "a field name in EXTRACT");
    }
    if (!tn_sqlp_expect_kw(p, KW_FROM, "FROM in EXTRACT")) return NULL;
    e->u.extract.arg = tn_sqlp_expr(p);
    if (!e->u.extract.arg || !tn_sqlp_expect(p, TK_RPAREN, "')' after EXTRACT")) return NULL;
    return e;
}

static tn_sql_expr *subquery_expr(tn_sql_parser *p, tn_sql_expr_kind kind, tn_sql_pos pos) {
    tn_sql_expr *e = new_expr(p, kind, pos);
    if (!e) return NULL;
    e->u.subquery.query = tn_sqlp_query(p);
    if (!e->u.subquery.query || !tn_sqlp_expect(p, TK_RPAREN, "')' after subquery")) return NULL;
    return e;
}

/* ( expr ), ( expr, expr ... ) or ( query ); the '(' is current. */
static tn_sql_expr *paren_expr(tn_sql_parser *p) {
    tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
    tn_sqlp_advance(p);
    if (tn_sqlp_is_query_start(p, 0)) return subquery_expr(p, TN_SQL_E_SUBQUERY, pos);
    tn_sql_expr *e = tn_sqlp_expr(p);
    if (!e) return NULL;
    if (tok_is(p, 0, TK_COMMA)) {
        tn_vec items = {0};
        if (!tn_sqlp_push(p, &items, &e, sizeof e)) return NULL;
        while (tn_sqlp_accept(p, TK_COMMA)) {
            tn_sql_expr *x = tn_sqlp_expr(p);
            if (!x || !tn_sqlp_push(p, &items, &x, sizeof x)) return NULL;
        }
        e = new_expr(p, TN_SQL_E_ROW, pos);
        if (!e) return NULL;
        e->u.list.items = items.data;
        e->u.list.n = items.n;
    }
    if (!tn_sqlp_expect(p, TK_RPAREN, "')'")) return NULL;
    return e;
}

/* A call of an internal constructor with the collected arguments. */
static tn_sql_expr *call_args(tn_sql_parser *p, const char *name, tn_sql_pos pos, tn_vec *args) {
    tn_sql_ident *id = tn_sqlp_alloc(p, sizeof *id);
    tn_sql_expr *e = new_expr(p, TN_SQL_E_FUNCTION, pos);
    if (!id || !e) return NULL;
    id->name = name;
    id->pos = pos;
    e->u.func.name.parts = id;
    e->u.func.name.n = 1;
    e->u.func.args.items = args->data;
    e->u.func.args.n = (int)args->n;
    return e;
}

/* {'a': 1, b: 'x'} -> __struct_pack('a', 1, 'b', 'x'); MAP {k: v, ...} -> __map_pack(k, v, ...). */
static tn_sql_expr *brace_literal(tn_sql_parser *p, bool map, tn_sql_pos pos) {
    tn_vec args = {0};
    tn_sqlp_advance(p);                       /* { */
    if (!tn_sqlp_accept(p, TK_RBRACE)) {
        do {
            tn_sql_expr *k;
            const tn_sql_token *t = tn_sqlp_peek(p, 0);
            if (!map && (t->type == TK_IDENT || t->type == TK_QIDENT || t->type == TK_STRING)) {
                k = string_literal(p, t, TN_SQL_LIT_STRING);
                tn_sqlp_advance(p);
            } else if (!map) {
                return tn_sqlp_fail_expected(p, "a field name in the struct literal");
            } else {
                k = tn_sqlp_expr(p);
            }
            if (!k || !tn_sqlp_expect(p, TK_COLON, map ? "':' after the map key" : "':' after the field name"))
                return NULL;
            tn_sql_expr *v = tn_sqlp_expr(p);
            if (!v || !tn_sqlp_push(p, &args, &k, sizeof k) || !tn_sqlp_push(p, &args, &v, sizeof v)) return NULL;
        } while (tn_sqlp_accept(p, TK_COMMA) && !tok_is(p, 0, TK_RBRACE));
        if (!tn_sqlp_expect(p, TK_RBRACE, "'}' to close the literal")) return NULL;
    }
    if (!map && args.n == 0) return tn_sqlp_fail_at(p, pos, "an empty struct literal {} is not valid");
    return call_args(p, map ? "__map_pack" : "__struct_pack", pos, &args);
}

static tn_sql_expr *list_literal(tn_sql_parser *p) {
    tn_sql_expr *e = new_expr(p, TN_SQL_E_LIST, tn_sqlp_peek(p, 0)->pos);
    if (!e) return NULL;
    tn_sqlp_advance(p);
    if (!tn_sqlp_accept(p, TK_RBRACKET)) {
        if (!tn_sqlp_expr_list(p, &e->u.list)) return NULL;
        if (!tn_sqlp_expect(p, TK_RBRACKET, "']' after list elements")) return NULL;
    }
    return e;
}

/* A word that starts a name: column, qualified column, t.*, function call. */
static tn_sql_expr *name_expr(tn_sql_parser *p) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    bool call = tok_is(p, 1, TK_LPAREN);
    if (!(call ? tn_sqlp_tok_is_funcname(t) : tn_sqlp_tok_is_colid(t)))
        return tn_sqlp_fail_expected(p, "an expression");
    if (call && t->type == TK_IDENT && strcmp(t->text, "columns") == 0) return tn_sqlp_columns(p);
    tn_vec parts = {0};
    tn_sql_ident id = tn_sqlp_tok_ident(t);
    if (!tn_sqlp_push(p, &parts, &id, sizeof id)) return NULL;
    tn_sqlp_advance(p);
    while (tok_is(p, 0, TK_DOT)) {
        const tn_sql_token *n = tn_sqlp_peek(p, 1);
        if (n->type == TK_STAR) {
            tn_sql_expr *e = new_expr(p, TN_SQL_E_STAR, parts.n ? ((tn_sql_ident *)parts.data)[0].pos : t->pos);
            if (!e) return NULL;
            e->u.star.qual.parts = parts.data;
            e->u.star.qual.n = parts.n;
            p->i += 2;
            return e;
        }
        if (n->type != TK_IDENT && n->type != TK_QIDENT) {
            tn_sqlp_advance(p);
            return tn_sqlp_fail_expected(p, "a name after '.'");
        }
        id = tn_sqlp_tok_ident(n);
        if (!tn_sqlp_push(p, &parts, &id, sizeof id)) return NULL;
        p->i += 2;
    }
    tn_sql_qname qn = {parts.data, parts.n};
    if (tok_is(p, 0, TK_LPAREN)) return tn_sqlp_func_call(p, qn, false);
    tn_sql_expr *e = new_expr(p, TN_SQL_E_COLUMN, qn.parts[0].pos);
    if (e) e->u.column = qn;
    return e;
}

static tn_sql_expr *primary(tn_sql_parser *p) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    tn_sql_expr *e;
    switch (t->type) {
    case TK_INTEGER:
    case TK_DECIMAL:
    case TK_FLOAT:
        tn_sqlp_advance(p);
        return number_literal(p, t);
    case TK_STRING:
        tn_sqlp_advance(p);
        return string_literal(p, t, TN_SQL_LIT_STRING);
    case TK_BLOB:
        tn_sqlp_advance(p);
        return string_literal(p, t, TN_SQL_LIT_BLOB);
    case TK_PARAM:
        e = new_expr(p, TN_SQL_E_PARAM, t->pos);
        if (!e) return NULL;
        e->u.param.dollar = t->ival > 0;
        e->u.param.index = t->ival > 0 ? (int)t->ival : ++p->next_qparam;
        if (e->u.param.index > p->n_params) p->n_params = e->u.param.index;
        tn_sqlp_advance(p);
        return e;
    case TK_LPAREN:
        return paren_expr(p);
    case TK_LBRACKET:
        return list_literal(p);
    case TK_LBRACE:
        return brace_literal(p, false, t->pos);
    case TK_QIDENT:
        return name_expr(p);
    case TK_IDENT:
        break;
    default:
        return tn_sqlp_fail_expected(p, "an expression");
    }
    const tn_sql_token *n = tn_sqlp_peek(p, 1);
    tn_sql_pos pos = t->pos;
    switch (t->kw) {
    case KW_NULL:
    case KW_TRUE:
    case KW_FALSE:
        e = new_expr(p, TN_SQL_E_LITERAL, pos);
        if (!e) return NULL;
        e->u.lit.kind = t->kw == KW_NULL ? TN_SQL_LIT_NULL : TN_SQL_LIT_BOOL;
        e->u.lit.bool_value = t->kw == KW_TRUE;
        e->u.lit.text = t->text;
        e->u.lit.len = t->text_len;
        tn_sqlp_advance(p);
        return e;
    case KW_CASE:
        tn_sqlp_advance(p);
        return case_expr(p, pos);
    case KW_CAST:
        tn_sqlp_advance(p);
        return cast_expr(p, pos, false);
    case KW_TRY_CAST:
        if (n->type != TK_LPAREN) break;
        tn_sqlp_advance(p);
        return cast_expr(p, pos, true);
    case KW_EXTRACT:
        if (n->type != TK_LPAREN) break;
        tn_sqlp_advance(p);
        return extract_expr(p, pos);
    case KW_EXISTS:
        if (n->type != TK_LPAREN) break;
        p->i += 2;
        if (!tn_sqlp_is_query_start(p, 0)) return tn_sqlp_fail_expected(p, "a subquery after EXISTS (");
        return subquery_expr(p, TN_SQL_E_EXISTS, pos);
    case KW_INTERVAL:
        if (n->type != TK_STRING && n->type != TK_INTEGER && n->type != TK_DECIMAL &&
            n->type != TK_FLOAT && n->type != TK_MINUS && n->type != TK_LPAREN)
            break;
        tn_sqlp_advance(p);
        return interval_expr(p, pos);
    case KW_CURRENT_DATE:
    case KW_CURRENT_TIME:
    case KW_CURRENT_TIMESTAMP: {
        tn_sql_ident *id = tn_sqlp_alloc(p, sizeof *id);
        e = new_expr(p, TN_SQL_E_FUNCTION, pos);
        if (!id || !e) return NULL;
        *id = tn_sqlp_tok_ident(t);
        e->u.func.name.parts = id;
        e->u.func.name.n = 1;
        tn_sqlp_advance(p);
        if (tok_is(p, 0, TK_LPAREN) && tok_is(p, 1, TK_RPAREN)) p->i += 2;
        return e;
    }
    default:
        break;
    }
    /* A type name followed by a string: DATE '2024-01-01', TIMESTAMP '...', TIMESTAMPTZ '...'. */
    if (n->type == TK_STRING && find_type(t->text)) {
        e = new_expr(p, TN_SQL_E_LITERAL, pos);
        if (!e) return NULL;
        e->u.lit.typed_as = tn_sqlp_type(p);
        if (!e->u.lit.typed_as) return NULL;
        const tn_sql_token *s = tn_sqlp_peek(p, 0);
        if (s->type != TK_STRING) return tn_sqlp_fail_expected(p, "a string after the type name");
        e->u.lit.kind = TN_SQL_LIT_TYPED;
        e->u.lit.text = s->text;
        e->u.lit.len = s->text_len;
        tn_sqlp_advance(p);
        return e;
    }
    if (tok_word(t, "map") && n->type == TK_LBRACE) {
        tn_sqlp_advance(p);
        return brace_literal(p, true, pos);
    }
    if (tok_word(t, "array") && n->type == TK_LBRACKET) {
        tn_sqlp_advance(p);
        return list_literal(p);
    }
    return name_expr(p);
}

/* ---------------------------------------------------------------------------------------------
 * Operators, from the tightest.
 */
/* A call of a function by name with 1-3 arguments (operators spelled as functions). */
static tn_sql_expr *call_n(tn_sql_parser *p, const char *name, tn_sql_pos pos, tn_sql_expr *a, tn_sql_expr *b,
                           tn_sql_expr *c) {
    tn_sql_ident *id = tn_sqlp_alloc(p, sizeof *id);
    tn_sql_expr **args = tn_sqlp_alloc(p, 3 * sizeof *args);
    tn_sql_expr *e = new_expr(p, TN_SQL_E_FUNCTION, pos);
    if (!id || !args || !e || !a) return NULL;
    id->name = name;
    id->pos = pos;
    e->u.func.name.parts = id;
    e->u.func.name.n = 1;
    args[0] = a, args[1] = b, args[2] = c;
    e->u.func.args.items = args;
    e->u.func.args.n = c ? 3 : b ? 2 : 1;
    return e;
}

/* expr COLLATE name: tarn compares strings byte-wise, which is PostgreSQL's "C" collation;
 * "default", "C", "POSIX" and "ucs_basic" (optionally pg_catalog.) are that, others refused. */
static bool collate_clause(tn_sql_parser *p) {
    tn_sqlp_advance(p);
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type == TK_IDENT && strcmp(t->text, "pg_catalog") == 0 && tok_is(p, 1, TK_DOT)) {
        p->i += 2;
        t = tn_sqlp_peek(p, 0);
    }
    if (t->type != TK_IDENT && t->type != TK_QIDENT) {
        tn_sqlp_fail_expected(p, "a collation name");
        return false;
    }
    if (!tn_str_iequal(t->text, "default") && !tn_str_iequal(t->text, "c") && !tn_str_iequal(t->text, "posix") &&
        !tn_str_iequal(t->text, "ucs_basic")) {
        tn_sqlp_fail_at(p, t->pos, "collation \"%s\" is not supported: strings compare byte-wise (collation \"C\")",
                        t->text);
        return false;
    }
    tn_sqlp_advance(p);
    return true;
}

static tn_sql_expr *postfix(tn_sql_parser *p) {
    tn_sql_expr *e = primary(p);
    for (;;) {
        if (e && tok_word(tn_sqlp_peek(p, 0), "collate") &&
            (tok_is(p, 1, TK_IDENT) || tok_is(p, 1, TK_QIDENT))) {
            if (!collate_clause(p)) return NULL;
            continue;
        }
        if (e && tok_is(p, 0, TK_LBRACKET)) {
            /* arr[i]: an element of a PostgreSQL array text (catalog columns; pg_catalog.c) */
            tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
            tn_sqlp_advance(p);
            tn_sql_expr *ix = tok_is(p, 0, TK_COLON) ? NULL : tn_sqlp_expr(p);
            if (!ix && !tok_is(p, 0, TK_COLON)) return NULL;
            if (tn_sqlp_accept(p, TK_COLON)) {
                /* l[a:b]: list_slice, a bound left out is the list's start or end */
                tn_sql_expr *hi = tok_is(p, 0, TK_RBRACKET) ? NULL : tn_sqlp_expr(p);
                if (!hi && !tok_is(p, 0, TK_RBRACKET)) return NULL;
                if (!tn_sqlp_expect(p, TK_RBRACKET, "']' after the slice")) return NULL;
                static const tn_sql_token one = {.type = TK_INTEGER, .text = "1", .text_len = 1};
                static const tn_sql_token minus1 = {.type = TK_INTEGER, .text = "-1", .text_len = 2};
                tn_sql_token t1 = one, t2 = minus1;
                t1.pos = t2.pos = pos;
                if (!ix) ix = number_literal(p, &t1);
                if (!hi) hi = number_literal(p, &t2);
                e = call_n(p, "list_slice", pos, e, ix, hi);
                continue;
            }
            if (!tn_sqlp_expect(p, TK_RBRACKET, "']' after the subscript")) return NULL;
            e = call_n(p, "pg_array_subscript", pos, e, ix, NULL);
            continue;
        }
        if (e && tok_is(p, 0, TK_DOT) && (tok_is(p, 1, TK_IDENT) || tok_is(p, 1, TK_QIDENT)) &&
            e->kind != TN_SQL_E_COLUMN) {
            /* (expr).field: a STRUCT field (func_list.c) */
            tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
            tn_sql_expr *f = string_literal(p, tn_sqlp_peek(p, 1), TN_SQL_LIT_STRING);
            p->i += 2;
            e = call_n(p, "struct_extract", pos, e, f, NULL);
            continue;
        }
        if (!e || !tok_is(p, 0, TK_CAST)) break;
        tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
        tn_sqlp_advance(p);
        tn_sql_expr *c = new_expr(p, TN_SQL_E_CAST, pos);
        if (!c) return NULL;
        c->u.cast.arg = e;
        c->u.cast.postfix = true;
        c->u.cast.type = tn_sqlp_type(p);
        if (!c->u.cast.type) return NULL;
        const tn_sql_type *ct = c->u.cast.type;
        if (tn_sqlp_is_regclass(e) && ((ct->known && ct->type.id == TN_TYPE_VARCHAR) || strcmp(ct->name, "NAME") == 0)) {
            e = tn_sqlp_regclass_name(p, e);          /* 'x'::regclass::text is the name */
            if (!e) return NULL;
            continue;
        }
        if (!c->u.cast.type->known && strncmp(c->u.cast.type->name, "REG", 3) == 0) {
            /* 'pg_class'::regclass: the function regclass (func_pg.c) */
            static const char *const fn[] = {"REGCLASS", "regclass", "REGTYPE", "regtype", "REGPROC", "regproc",
                                             "REGNAMESPACE", "regnamespace", "REGROLE", "regrole"};
            const char *name = "regclass";
            for (size_t k = 0; k < sizeof fn / sizeof fn[0]; k += 2)
                if (strcmp(fn[k], c->u.cast.type->name) == 0) name = fn[k + 1];
            c = call_n(p, name, pos, e, NULL, NULL);
            if (!c) return NULL;
        }
        e = c;
    }
    return e;
}

bool tn_sqlp_is_regclass(const tn_sql_expr *e) {
    return e && e->kind == TN_SQL_E_FUNCTION && e->u.func.name.n == 1 && e->u.func.args.n == 1 &&
           strcmp(e->u.func.name.parts[0].name, "regclass") == 0;
}

tn_sql_expr *tn_sqlp_regclass_name(tn_sql_parser *p, tn_sql_expr *e) {
    if (!tn_sqlp_is_regclass(e)) return e;
    return call_n(p, "pg_regclass_name", e->pos, e, NULL, NULL);
}

static tn_sql_expr *unary(tn_sql_parser *p);
tn_sql_expr *tn_sqlp_unary(tn_sql_parser *p) { return unary(p); }

static tn_sql_expr *unary(tn_sql_parser *p) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    if (t->type != TK_MINUS && t->type != TK_PLUS) return postfix(p);
    tn_sql_pos pos = t->pos;
    bool neg = t->type == TK_MINUS;
    if (!tn_sqlp_enter(p)) return NULL;
    tn_sqlp_advance(p);
    tn_sql_expr *arg = unary(p);
    tn_sqlp_leave(p);
    if (!arg) return NULL;
    if (neg && arg->kind == TN_SQL_E_LITERAL &&
        (arg->u.lit.kind == TN_SQL_LIT_INTEGER || arg->u.lit.kind == TN_SQL_LIT_DECIMAL ||
         arg->u.lit.kind == TN_SQL_LIT_FLOAT))
        return negate_literal(p, arg, pos);
    tn_sql_expr *e = new_expr(p, TN_SQL_E_UNARY, pos);
    if (!e) return NULL;
    e->u.unary.op = neg ? TN_SQL_OP_NEG : TN_SQL_OP_PLUS;
    e->u.unary.arg = arg;
    return e;
}

static tn_sql_expr *mul(tn_sql_parser *p) {
    tn_sql_expr *l = unary(p);
    while (l) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        tn_sql_binary_op op;
        if (t->type == TK_STAR) op = TN_SQL_OP_MUL;
        else if (t->type == TK_SLASH) op = TN_SQL_OP_DIV;
        else if (t->type == TK_PERCENT) op = TN_SQL_OP_MOD;
        else break;
        tn_sqlp_advance(p);
        l = binary(p, op, t->pos, l, unary(p));
    }
    return l;
}

static tn_sql_expr *add(tn_sql_parser *p) {
    tn_sql_expr *l = mul(p);
    while (l) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        if (t->type != TK_PLUS && t->type != TK_MINUS) break;
        tn_sqlp_advance(p);
        l = binary(p, t->type == TK_PLUS ? TN_SQL_OP_ADD : TN_SQL_OP_SUB, t->pos, l, mul(p));
    }
    return l;
}

static tn_sql_expr *concat(tn_sql_parser *p) {
    tn_sql_expr *l = add(p);
    while (l && tok_is(p, 0, TK_CONCAT)) {
        tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
        tn_sqlp_advance(p);
        l = binary(p, TN_SQL_OP_CONCAT, pos, l, add(p));
    }
    return l;
}

/* [NOT] BETWEEN / IN / LIKE / ILIKE after an operand. */
static tn_sql_expr *predicate(tn_sql_parser *p) {
    tn_sql_expr *l = concat(p);
    while (l) {
        int k = 0;
        bool neg = false;
        if (tn_sqlp_is_kw(p, 0, KW_NOT)) {
            tn_kw next = tn_sqlp_peek(p, 1)->kw;
            if (tn_sqlp_peek(p, 1)->type != TK_IDENT ||
                (next != KW_BETWEEN && next != KW_IN && next != KW_LIKE && next != KW_ILIKE &&
                 !tok_word(tn_sqlp_peek(p, 1), "glob") && !tok_word(tn_sqlp_peek(p, 1), "similar")))
                break;
            neg = true;
            k = 1;
        }
        const tn_sql_token *t = tn_sqlp_peek(p, k);
        if (t->type != TK_IDENT) break;
        tn_sql_pos pos = t->pos;
        tn_sql_expr *e;
        if (t->kw == KW_BETWEEN) {
            p->i += k + 1;
            e = new_expr(p, TN_SQL_E_BETWEEN, pos);
            if (!e) return NULL;
            e->u.between.arg = l;
            e->u.between.negated = neg;
            e->u.between.low = concat(p);
            if (!e->u.between.low || !tn_sqlp_expect_kw(p, KW_AND, "AND in BETWEEN")) return NULL;
            e->u.between.high = concat(p);
            if (!e->u.between.high) return NULL;
        } else if (t->kw == KW_IN) {
            p->i += k + 1;
            if (!tn_sqlp_expect(p, TK_LPAREN, "'(' after IN")) return NULL;
            if (tn_sqlp_is_query_start(p, 0)) {
                e = new_expr(p, TN_SQL_E_IN_QUERY, pos);
                if (!e) return NULL;
                e->u.in_query.arg = l;
                e->u.in_query.negated = neg;
                e->u.in_query.query = tn_sqlp_query(p);
                if (!e->u.in_query.query) return NULL;
            } else {
                e = new_expr(p, TN_SQL_E_IN_LIST, pos);
                if (!e) return NULL;
                e->u.in_list.arg = l;
                e->u.in_list.negated = neg;
                if (!tn_sqlp_expr_list(p, &e->u.in_list.list)) return NULL;
            }
            if (!tn_sqlp_expect(p, TK_RPAREN, "')' after IN list")) return NULL;
        } else if (t->kw == KW_LIKE || t->kw == KW_ILIKE) {
            p->i += k + 1;
            e = new_expr(p, TN_SQL_E_LIKE, pos);
            if (!e) return NULL;
            e->u.like.arg = l;
            e->u.like.negated = neg;
            e->u.like.ilike = t->kw == KW_ILIKE;
            e->u.like.pattern = concat(p);
            if (!e->u.like.pattern) return NULL;
            if (tn_sqlp_accept_kw(p, KW_ESCAPE)) {
                e->u.like.escape = concat(p);
                if (!e->u.like.escape) return NULL;
            }
        } else if (tok_word(t, "glob") || (tok_word(t, "similar") && tok_word(tn_sqlp_peek(p, k + 1), "to"))) {
            /* a GLOB p: DuckDB's ~~~ operator; a SIMILAR TO p: regexp_full_match (DuckDB) */
            bool glob = tok_word(t, "glob");
            p->i += k + (glob ? 1 : 2);
            tn_sql_expr *r = concat(p);
            if (!r) return NULL;
            e = call_n(p, glob ? "~~~" : "regexp_full_match", pos, l, r, NULL);
            if (e && neg) {
                tn_sql_expr *ne = new_expr(p, TN_SQL_E_UNARY, pos);
                if (!ne) return NULL;
                ne->u.unary.op = TN_SQL_OP_NOT;
                ne->u.unary.arg = e;
                e = ne;
            }
            if (!e) return NULL;
        } else {
            break;
        }
        l = e;
    }
    return l;
}

/* OPERATOR(pg_catalog.~): PostgreSQL's qualified operator; *op_at = the operator token's index. */
static bool operator_syntax(tn_sql_parser *p, int *op_at) {
    if (!tok_word(tn_sqlp_peek(p, 0), "operator") || !tok_is(p, 1, TK_LPAREN)) return false;
    int k = 2;
    while (tn_sqlp_peek(p, k)->type == TK_IDENT && tok_is(p, k + 1, TK_DOT)) k += 2;
    if (!tok_is(p, k + 1, TK_RPAREN)) return false;
    *op_at = k;
    return true;
}

static tn_sql_expr *comparison(tn_sql_parser *p) {
    tn_sql_expr *l = predicate(p);
    while (l) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        int skip = 0, op_at = 0;
        if (operator_syntax(p, &op_at)) {
            t = tn_sqlp_peek(p, op_at);
            skip = op_at + 1;          /* OPERATOR ( schema . op ): the tokens after op */
        }
        if (t->type == TK_REGEX) {     /* a ~ b: "~"(a, b [, 'i']), negated for !~ */
            tn_sql_pos pos = t->pos;
            int64_t flags = t->ival;
            p->i += skip + 1;
            tn_sql_expr *r = predicate(p), *opt = NULL;
            if (!r) return NULL;
            if (flags & 2) {
                tn_sql_token it = {0};
                it.type = TK_STRING;
                it.text = "i";
                it.text_len = 1;
                it.pos = pos;
                opt = string_literal(p, &it, TN_SQL_LIT_STRING);
                if (!opt) return NULL;
            }
            tn_sql_expr *m = call_n(p, "~", pos, l, r, opt);   /* regexp_matches or _full_match (binder) */
            if (!m) return NULL;
            if (flags & 1) {
                tn_sql_expr *n = new_expr(p, TN_SQL_E_UNARY, pos);
                if (!n) return NULL;
                n->u.unary.op = TN_SQL_OP_NOT;
                n->u.unary.arg = m;
                m = n;
            }
            l = m;
            continue;
        }
        if (t->type == TK_STARTS_WITH) {   /* a ^@ b */
            tn_sql_pos pos = t->pos;
            p->i += skip + 1;
            tn_sql_expr *r = predicate(p);
            if (!r || !(l = call_n(p, "starts_with", pos, l, r, NULL))) return NULL;
            continue;
        }
        tn_sql_binary_op op;
        switch (t->type) {
        case TK_EQ: case TK_EQEQ: op = TN_SQL_OP_EQ; break;
        case TK_NE: op = TN_SQL_OP_NE; break;
        case TK_LT: op = TN_SQL_OP_LT; break;
        case TK_LE: op = TN_SQL_OP_LE; break;
        case TK_GT: op = TN_SQL_OP_GT; break;
        case TK_GE: op = TN_SQL_OP_GE; break;
        default: return l;
        }
        p->i += skip + 1;
        const tn_sql_token *q = tn_sqlp_peek(p, 0);
        if ((tok_word(q, "any") || tok_word(q, "some") || tok_word(q, "all")) && tok_is(p, 1, TK_LPAREN) &&
            tn_sqlp_is_query_start(p, 2)) {
            /* x op ANY|SOME|ALL (subquery): = ANY is IN, <> ALL is NOT IN */
            bool all = tok_word(q, "all");
            p->i += 2;
            tn_sql_expr *e = new_expr(p, TN_SQL_E_IN_QUERY, t->pos);
            if (!e) return NULL;
            e->u.in_query.arg = l;
            e->u.in_query.op = op;
            e->u.in_query.all = all;
            if (op == TN_SQL_OP_EQ && !all) e->u.in_query.op = op;
            else if (op == TN_SQL_OP_NE && all) e->u.in_query.negated = true;
            else e->u.in_query.quantified = true;
            e->u.in_query.query = tn_sqlp_query(p);
            if (!e->u.in_query.query || !tn_sqlp_expect(p, TK_RPAREN, "')' after the subquery")) return NULL;
            l = e;
            continue;
        }
        if ((tok_word(q, "any") || tok_word(q, "some") || tok_word(q, "all")) && tok_is(p, 1, TK_LPAREN)) {
            /* x = ANY (array), x <> ALL (array): a PostgreSQL array text (catalog columns,
             * '{a,b}'; pg_catalog.c); other operators are not supported over arrays */
            bool all = tok_word(q, "all");
            if ((op != TN_SQL_OP_EQ || all) && (op != TN_SQL_OP_NE || !all))
                return tn_sqlp_fail_at(p, q->pos, "only = ANY (array) and <> ALL (array) are supported");
            p->i += 2;
            tn_sql_expr *arr = tn_sqlp_expr(p);
            tn_sql_expr *e = arr ? call_n(p, "pg_array_contains", t->pos, arr, l, NULL) : NULL;
            if (e && all) {
                tn_sql_expr *n = new_expr(p, TN_SQL_E_UNARY, t->pos);
                if (!n) return NULL;
                n->u.unary.op = TN_SQL_OP_NOT;
                n->u.unary.arg = e;
                e = n;
            }
            if (!e || !tn_sqlp_expect(p, TK_RPAREN, "')' after ANY / ALL")) return NULL;
            l = e;
            continue;
        }
        l = binary(p, op, t->pos, l, predicate(p));
    }
    return l;
}

static tn_sql_expr *is_expr(tn_sql_parser *p) {
    tn_sql_expr *l = comparison(p);
    while (l) {
        const tn_sql_token *t = tn_sqlp_peek(p, 0);
        tn_sql_pos pos = t->pos;
        if (t->type != TK_IDENT) break;
        if (t->kw == KW_ISNULL || t->kw == KW_NOTNULL) {
            tn_sqlp_advance(p);
            tn_sql_expr *e = new_expr(p, TN_SQL_E_IS, pos);
            if (!e) return NULL;
            e->u.is.arg = l;
            e->u.is.what = TN_SQL_IS_NULL;
            e->u.is.negated = t->kw == KW_NOTNULL;
            l = e;
            continue;
        }
        if (t->kw != KW_IS) break;
        tn_sqlp_advance(p);
        bool neg = tn_sqlp_accept_kw(p, KW_NOT);
        if (tn_sqlp_accept_kw(p, KW_DISTINCT)) {
            if (!tn_sqlp_expect_kw(p, KW_FROM, "FROM after IS DISTINCT")) return NULL;
            l = binary(p, neg ? TN_SQL_OP_IS_NOT_DISTINCT : TN_SQL_OP_IS_DISTINCT, pos, l, comparison(p));
            continue;
        }
        tn_sql_is_what what;
        if (tn_sqlp_accept_kw(p, KW_NULL)) what = TN_SQL_IS_NULL;
        else if (tn_sqlp_accept_kw(p, KW_TRUE)) what = TN_SQL_IS_TRUE;
        else if (tn_sqlp_accept_kw(p, KW_FALSE)) what = TN_SQL_IS_FALSE;
        else return tn_sqlp_fail_expected(p, "NULL, TRUE, FALSE or DISTINCT FROM after IS");
        tn_sql_expr *e = new_expr(p, TN_SQL_E_IS, pos);
        if (!e) return NULL;
        e->u.is.arg = l;
        e->u.is.what = what;
        e->u.is.negated = neg;
        l = e;
    }
    return l;
}

static tn_sql_expr *not_expr(tn_sql_parser *p) {
    if (!tn_sqlp_is_kw(p, 0, KW_NOT)) return is_expr(p);
    tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
    if (!tn_sqlp_enter(p)) return NULL;
    tn_sqlp_advance(p);
    tn_sql_expr *arg = not_expr(p);
    tn_sqlp_leave(p);
    if (!arg) return NULL;
    tn_sql_expr *e = new_expr(p, TN_SQL_E_UNARY, pos);
    if (!e) return NULL;
    e->u.unary.op = TN_SQL_OP_NOT;
    e->u.unary.arg = arg;
    return e;
}

static tn_sql_expr *and_expr(tn_sql_parser *p) {
    tn_sql_expr *l = not_expr(p);
    while (l && tn_sqlp_is_kw(p, 0, KW_AND)) {
        tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
        tn_sqlp_advance(p);
        l = binary(p, TN_SQL_OP_AND, pos, l, not_expr(p));
    }
    return l;
}

static tn_sql_expr *or_expr(tn_sql_parser *p) {
    tn_sql_expr *l = and_expr(p);
    while (l && tn_sqlp_is_kw(p, 0, KW_OR)) {
        tn_sql_pos pos = tn_sqlp_peek(p, 0)->pos;
        tn_sqlp_advance(p);
        l = binary(p, TN_SQL_OP_OR, pos, l, and_expr(p));
    }
    return l;
}

tn_sql_expr *tn_sqlp_expr(tn_sql_parser *p) {
    if (!tn_sqlp_enter(p)) return NULL;
    tn_sql_expr *e = or_expr(p);
    tn_sqlp_leave(p);
    return e;
}
