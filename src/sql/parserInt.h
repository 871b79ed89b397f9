/*
 * sql/parserInt.h: private to the SQL lexer and parser (lexer.c, keywords.c, parser*.c): the
 * keyword table, tokens, the parser state and the helpers the parser files share. Nothing
 * outside src/sql/parse*.c, lexer.c and keywords.c includes it; the binder uses ast.h/parse.h.
 */
#ifndef TN_SQL_PARSER_INT_H
#define TN_SQL_PARSER_INT_H

#include "sql/ast.h"
#include "sql/parse.h"

/* ---------------------------------------------------------------------------------------------
 * Keywords. Classes follow PostgreSQL's: RESERVED words are never identifiers unless quoted;
 * FUNC words (JOIN, LEFT, LIKE, ...) may name functions and types but not columns, tables or
 * aliases; UNRESERVED words are identifiers wherever the grammar allows (date, version, key...).
 * The parser recognises keywords by id; keywords.c holds the spelling and class of each.
 */
typedef enum tn_kw_class { KWC_UNRESERVED, KWC_FUNC, KWC_RESERVED } tn_kw_class;

#define TN_SQL_KEYWORDS(X)                                                                   \
    X(ADD, UNRESERVED) X(ALL, RESERVED) X(ALTER, UNRESERVED) X(ANALYZE, UNRESERVED)           \
    X(AND, RESERVED) X(AS, RESERVED) X(ASC, RESERVED) X(BETWEEN, UNRESERVED)                  \
    X(BY, UNRESERVED) X(CASCADE, UNRESERVED) X(CASE, RESERVED) X(CAST, RESERVED)              \
    X(COLUMN, RESERVED) X(COMMENT, UNRESERVED) X(CONSTRAINT, RESERVED) X(COPY, UNRESERVED)    \
    X(CREATE, RESERVED) X(CROSS, FUNC) X(CURRENT, UNRESERVED) X(CURRENT_DATE, RESERVED)      \
    X(CURRENT_TIME, RESERVED) X(CURRENT_TIMESTAMP, RESERVED) X(DATABASE, UNRESERVED)         \
    X(DATABASES, UNRESERVED) X(DATE, UNRESERVED) X(DEFAULT, RESERVED)                         \
    X(DELETE, UNRESERVED) X(DESC, RESERVED) X(DESCRIBE, UNRESERVED) X(DISTINCT, RESERVED)     \
    X(DOUBLE, UNRESERVED) X(DROP, UNRESERVED) X(DRY, UNRESERVED) X(ELSE, RESERVED)            \
    X(END, RESERVED) X(ENFORCED, UNRESERVED) X(ESCAPE, UNRESERVED) X(EXCEPT, RESERVED)        \
    X(EXISTS, UNRESERVED) X(EXPLAIN, UNRESERVED) X(EXTRACT, UNRESERVED) X(FALSE, RESERVED)    \
    X(FILTER, UNRESERVED) X(FIRST, UNRESERVED) X(FOLLOWING, UNRESERVED) X(FROM, RESERVED)     \
    X(FULL, FUNC) X(GROUP, RESERVED) X(GROUPS, UNRESERVED) X(HAVING, RESERVED)                \
    X(HISTORY, UNRESERVED) X(IF, UNRESERVED) X(ILIKE, FUNC) X(IN, RESERVED)                   \
    X(INNER, FUNC) X(INSERT, UNRESERVED) X(INTERSECT, RESERVED) X(INTERVAL, UNRESERVED)       \
    X(INTO, RESERVED) X(IS, FUNC) X(ISNULL, FUNC) X(JOIN, FUNC) X(KEY, UNRESERVED)            \
    X(LAST, UNRESERVED) X(LATERAL, RESERVED) X(LEFT, FUNC) X(LIKE, FUNC)                      \
    X(LIMIT, RESERVED) X(LOCATION, UNRESERVED) X(NATURAL, FUNC) X(NOT, RESERVED)              \
    X(NOTNULL, FUNC) X(NULL, RESERVED) X(NULLS, UNRESERVED) X(OF, UNRESERVED)                 \
    X(OFFSET, RESERVED) X(ON, RESERVED) X(OPTIMIZE, UNRESERVED) X(OPTIONS, UNRESERVED)        \
    X(OR, RESERVED) X(ORDER, RESERVED) X(OUTER, FUNC) X(OVER, UNRESERVED)                     \
    X(OVERWRITE, UNRESERVED) X(PARTITION, UNRESERVED) X(PARTITIONED, UNRESERVED)              \
    X(PERCENT, UNRESERVED) X(PRECEDING, UNRESERVED) X(PRECISION, UNRESERVED)                  \
    X(PRIMARY, RESERVED) X(RANGE, UNRESERVED) X(RECURSIVE, UNRESERVED) X(RENAME, UNRESERVED)  \
    X(REPEATABLE, UNRESERVED) X(REPLACE, UNRESERVED) X(RETAIN, UNRESERVED) X(RIGHT, FUNC)     \
    X(ROW, UNRESERVED) X(ROWS, UNRESERVED) X(RUN, UNRESERVED) X(SCHEMA, UNRESERVED)           \
    X(SCHEMAS, UNRESERVED) X(SELECT, RESERVED) X(SET, UNRESERVED) X(SHOW, UNRESERVED)         \
    X(SIMILAR, FUNC) X(TABLE, RESERVED) X(TABLES, UNRESERVED) X(TABLESAMPLE, FUNC)            \
    X(TBLPROPERTIES, UNRESERVED) X(TEMP, UNRESERVED) X(TEMPORARY, UNRESERVED)                 \
    X(THEN, RESERVED) X(TIME, UNRESERVED) X(TIMESTAMP, UNRESERVED) X(TO, RESERVED)            \
    X(TRUE, RESERVED) X(TRY_CAST, UNRESERVED) X(UNBOUNDED, UNRESERVED) X(UNION, RESERVED)     \
    X(UNIQUE, RESERVED) X(UPDATE, UNRESERVED) X(UPSERT, UNRESERVED) X(USING, RESERVED)        \
    X(VACUUM, UNRESERVED) X(VALUES, UNRESERVED) X(VARYING, UNRESERVED)                        \
    X(VERSION, UNRESERVED) X(VIEW, UNRESERVED) X(WHEN, RESERVED) X(WHERE, RESERVED)           \
    X(WINDOW, RESERVED) X(WITH, RESERVED) X(WITHOUT, UNRESERVED) X(ZONE, UNRESERVED)          \
    X(ZORDER, UNRESERVED)

typedef enum tn_kw {
    KW_NONE = 0,
#define TN_KW_ENUM(name, cls) KW_##name,
    TN_SQL_KEYWORDS(TN_KW_ENUM)
#undef TN_KW_ENUM
    KW_COUNT_
} tn_kw;

/* Keyword id of a lower-case word, KW_NONE if it is not a keyword. */
tn_kw tn_sql_keyword_lookup(const char *word, size_t len);
tn_kw_class tn_sql_keyword_class(tn_kw kw);
const char *tn_sql_keyword_name(tn_kw kw);      /* upper case: "SELECT" */

/* ---------------------------------------------------------------------------------------------
 * Tokens. The lexer turns the whole input into an array ending with TK_EOF. Comments vanish;
 * a hint comment (slash-star-plus) is kept as a span attached to the token after it, lexed only
 * when the parser wants it (so hints where tarn takes none are ignored, as comments).
 */
typedef enum tn_tok_type {
    TK_EOF,
    TK_IDENT,      /* unquoted word: text folded to lower case, kw set if a keyword */
    TK_QIDENT,     /* "quoted" or `quoted`: text as written, "" / `` unescaped */
    TK_INTEGER,
    TK_DECIMAL,
    TK_FLOAT,
    TK_STRING,     /* text decoded ('' -> '), len may count NUL bytes */
    TK_BLOB,       /* X'..': text = decoded bytes */
    TK_PARAM,      /* ? (ival 0) or $n (ival n) */
    TK_LPAREN, TK_RPAREN, TK_LBRACKET, TK_RBRACKET, TK_COMMA, TK_SEMI, TK_DOT, TK_COLON,
    TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_PERCENT, TK_CONCAT,
    TK_EQ, TK_EQEQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE,
    TK_CAST,       /* :: */
    TK_ASSIGN,     /* := */
    TK_ARROW,      /* => */
    TK_REGEX,      /* ~ ~* !~ !~* (PostgreSQL regex match): ival bit 0 negated, bit 1 case-insensitive */
    TK_STARTS_WITH, /* ^@ (DuckDB, PostgreSQL): starts_with(a, b) */
    TK_LBRACE, TK_RBRACE,   /* { } (struct and map literals) */
} tn_tok_type;

typedef struct tn_sql_hint_span {
    uint32_t start, end;           /* byte offsets of the text between slash-star-plus and star-slash */
    tn_sql_pos pos;                /* of the first byte of that text */
    struct tn_sql_hint_span *next;
} tn_sql_hint_span;

typedef struct tn_sql_token {
    tn_tok_type type;
    tn_kw kw;                      /* TK_IDENT only */
    tn_sql_pos pos;
    uint32_t len;                  /* bytes of source text */
    const char *text;              /* decoded, NUL-terminated (arena) */
    size_t text_len;
    int64_t ival;                  /* TK_PARAM: $n */
    tn_sql_hint_span *hints;       /* hint comments just before this token */
} tn_sql_token;

/* Lex src[start, end) whose first byte is at `pos`. Returns 0 or TN_ESYNTAX/TN_ENOMEM with the
 * message set (via tn_sql_syntax_error). Hint spans are recorded only when keep_hints. */
int tn_sql_lex(tn_arena *arena, const char *src, size_t src_len, uint32_t start, uint32_t end,
               tn_sql_pos pos, bool keep_hints, tn_sql_token **out, int *out_n);

/* Record "syntax error at line L, column C: <msg>" plus the source line and a caret line. */
int tn_sql_syntax_error(const char *src, size_t src_len, tn_sql_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---------------------------------------------------------------------------------------------
 * Parser state and shared helpers. The parse functions return the node, or NULL after
 * recording the error in p->rc and the thread's message (the first error wins). This departs
 * from the "return an int code" habit because a recursive-descent parser has hundreds of small
 * productions and an out-parameter on each would hide the grammar.
 */
#define TN_SQL_MAX_DEPTH 1000

typedef struct tn_sql_parser {
    tn_arena *arena;
    const char *src;
    size_t src_len;
    tn_sql_token *toks;
    int n_toks;
    int i;                         /* current token */
    int depth;
    int rc;                        /* 0 or the first error */
    int n_params;                  /* highest parameter number in the current statement */
    int next_qparam;               /* next number for '?' */
} tn_sql_parser;

/* A growable array in the arena (old storage is simply abandoned on growth). */
typedef struct tn_vec {
    void *data;
    int n, cap;
} tn_vec;

void *tn_sqlp_alloc(tn_sql_parser *p, size_t size);             /* zeroed; NULL on error */
bool tn_sqlp_push(tn_sql_parser *p, tn_vec *v, const void *elem, size_t size);
const tn_sql_token *tn_sqlp_peek(const tn_sql_parser *p, int ahead);
void tn_sqlp_advance(tn_sql_parser *p);
bool tn_sqlp_is_kw(const tn_sql_parser *p, int ahead, tn_kw kw);
bool tn_sqlp_accept_kw(tn_sql_parser *p, tn_kw kw);
bool tn_sqlp_accept(tn_sql_parser *p, tn_tok_type type);
bool tn_sqlp_expect_kw(tn_sql_parser *p, tn_kw kw, const char *what);
bool tn_sqlp_expect(tn_sql_parser *p, tn_tok_type type, const char *what);
/* "expected <what>, found '<tok>'" at the current token; returns NULL for convenience. */
void *tn_sqlp_fail_expected(tn_sql_parser *p, const char *what);
void *tn_sqlp_fail_at(tn_sql_parser *p, tn_sql_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool tn_sqlp_enter(tn_sql_parser *p);                             /* depth check */
static inline void tn_sqlp_leave(tn_sql_parser *p) { p->depth--; }

/* Identifier tests: a column/table/alias name (not RESERVED, not FUNC), a function name. */
bool tn_sqlp_tok_is_colid(const tn_sql_token *t);
bool tn_sqlp_tok_is_funcname(const tn_sql_token *t);
bool tn_sqlp_ident(tn_sql_parser *p, const char *what, tn_sql_ident *out);
/* A window specification after OVER: a name, or '(' [PARTITION BY] [ORDER BY] [frame] ')'
 * (parser_expr.c; the WINDOW clause of parser_query.c uses it too). */
tn_sql_window *tn_sqlp_window_spec(tn_sql_parser *p);
bool tn_sqlp_qname(tn_sql_parser *p, const char *what, tn_sql_qname *out);
/* The hint comments just before the next token (parser.c), parsed as hints; none: *out left. */
bool tn_sqlp_hints(tn_sql_parser *p, tn_sql_hint **out, int *n);
bool tn_sqlp_ident_list(tn_sql_parser *p, const char *what, tn_sql_ident **out, int *n);
tn_sql_ident tn_sqlp_tok_ident(const tn_sql_token *t);
/* An unquoted name that labels an output column (select alias, FROM/CTE column aliases) keeps
 * its spelling, as DuckDB and Spark print it (`memNum`); names still match case-insensitively. */
void tn_sqlp_keep_case(tn_sql_parser *p, tn_sql_ident *id);

/* parser_expr.c */
tn_sql_expr *tn_sqlp_expr(tn_sql_parser *p);
tn_sql_expr *tn_sqlp_unary(tn_sql_parser *p);     /* an operand: literal, -x, (e), f(x) */
tn_sql_type *tn_sqlp_type(tn_sql_parser *p);
/* PostgreSQL's regclass output: x::regclass shown (select list) or cast to text gives the
 * relation's name, as psql and drivers expect; tarn's regclass values are oids (BIGINT), so
 * the parser wraps such a regclass(...) call in pg_regclass_name(...) (a built-in macro,
 * macro.c). Returns e unchanged when it is no regclass call. */
bool tn_sqlp_is_regclass(const tn_sql_expr *e);
tn_sql_expr *tn_sqlp_regclass_name(tn_sql_parser *p, tn_sql_expr *e);
/* After a comma: the list ends here (DuckDB's trailing comma), parser_expr.c. */
bool tn_sqlp_list_ends(const tn_sql_parser *p);
bool tn_sqlp_expr_list(tn_sql_parser *p, tn_sql_expr_list *out);
bool tn_sqlp_order_list(tn_sql_parser *p, tn_sql_order_list *out);   /* after ORDER BY */
tn_sql_expr *tn_sqlp_func_call(tn_sql_parser *p, tn_sql_qname name, bool table_function);
bool tn_sqlp_is_query_start(const tn_sql_parser *p, int ahead);

/* parser_session.c: PREPARE (statement: the parser's statement production), EXECUTE,
 * DEALLOCATE, at their first word. */
tn_sql_stmt *tn_sqlp_prepare(tn_sql_parser *p, tn_sql_stmt *(*statement)(tn_sql_parser *));
tn_sql_stmt *tn_sqlp_execute(tn_sql_parser *p);
tn_sql_stmt *tn_sqlp_deallocate(tn_sql_parser *p);
/* After CREATE [OR REPLACE] [TEMP], at the word SEQUENCE / MACRO (or FUNCTION). */
tn_sql_stmt *tn_sqlp_create_sequence(tn_sql_parser *p, tn_sql_pos pos, bool or_replace, bool temporary);
tn_sql_stmt *tn_sqlp_create_macro(tn_sql_parser *p, tn_sql_pos pos, bool or_replace, bool temporary);

/* parser_star.c: EXCLUDE / REPLACE / RENAME after a star (none: nothing consumed), and
 * COLUMNS(...) at the word COLUMNS (an E_STAR with opts->columns). */
bool tn_sqlp_star_opts(tn_sql_parser *p, tn_sql_expr *star);
tn_sql_expr *tn_sqlp_columns(tn_sql_parser *p);

/* parser_group.c: the GROUP BY list after GROUP BY (plain keys, GROUPING SETS, ROLLUP, CUBE, ()). */
bool tn_sqlp_group_by(tn_sql_parser *p, tn_sql_select *s);

/* parser_query.c */
tn_sql_query *tn_sqlp_query(tn_sql_parser *p);
/* One table reference without joins: a table, table function or subquery, with its alias. */
tn_sql_tableref *tn_sqlp_table_primary(tn_sql_parser *p);

#endif
