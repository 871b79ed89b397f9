/*
 * sql/ast.h: the syntax tree the parser produces and the binder consumes. Private to sql/.
 * Every node lives in the arena given to tn_sql_parse(); nothing here is freed on its own.
 * Lists are (pointer, count) pairs; optional children are NULL. Identifiers are already folded
 * (unquoted ones to lower case) and every literal, identifier and expression keeps the source
 * position it came from, so the binder can point at it in its errors.
 */
#ifndef TN_SQL_AST_H
#define TN_SQL_AST_H

#include "base/base.h"
#include "types/types.h"

/* 1-based line and column (columns count UTF-8 characters), 0-based byte offset. */
typedef struct tn_sql_pos {
    uint32_t line;
    uint32_t col;
    uint32_t offset;
} tn_sql_pos;

/* An identifier: unquoted ones folded to lower case, quoted ("x" or `x`) ones kept as written. */
typedef struct tn_sql_ident {
    const char *name;      /* NUL-terminated, arena; NULL when the optional ident is absent */
    bool quoted;
    tn_sql_pos pos;
} tn_sql_ident;

/* A dotted name: `t`, `schema.t`, `cat.schema.t`, `t.col`. n >= 1 when present. */
typedef struct tn_sql_qname {
    tn_sql_ident *parts;
    int n;
} tn_sql_qname;

typedef struct tn_sql_expr tn_sql_expr;
typedef struct tn_sql_query tn_sql_query;
typedef struct tn_sql_tableref tn_sql_tableref;
typedef struct tn_sql_stmt tn_sql_stmt;

/* ---------------------------------------------------------------------------------------------
 * Types as written in DDL and casts. `known` says the name is one of the built-in spellings and
 * `type` holds its tarn type (DECIMAL precision/scale filled in, default 18,3 like DuckDB);
 * otherwise the binder reports "unknown type <name>" at pos.
 */
typedef struct tn_sql_type {
    const char *name;      /* canonical upper-case spelling: "VARCHAR", "DECIMAL", "TIMESTAMP" */
    bool known;
    tn_type type;
    int n_params;          /* numbers in parentheses as written: VARCHAR(10), DECIMAL(10,2) */
    int64_t params[2];
    tn_sql_pos pos;
} tn_sql_type;

/* ---------------------------------------------------------------------------------------------
 * Options: WITH ('k' = 'v'), OPTIONS (...), TBLPROPERTIES (...), Phoenix `SALT_BUCKETS=6`,
 * COPY (FORMAT parquet, HEADER), ALTER TABLE SET (...), SET k = v, hints. Keys from string
 * literals and from identifiers are kept as written (identifier parts joined with '.', unfolded:
 * Delta keys such as delta.appendOnly are case-sensitive); compare them case-insensitively.
 */
typedef enum tn_sql_value_kind {
    TN_SQL_VALUE_NONE,     /* key without a value: COPY ... (HEADER) */
    TN_SQL_VALUE_STRING,   /* 'text' */
    TN_SQL_VALUE_NUMBER,   /* 6, -1.5 (text as written) */
    TN_SQL_VALUE_BOOL,     /* "true" / "false" */
    TN_SQL_VALUE_IDENT,    /* parquet, GZ (as written) */
    TN_SQL_VALUE_NULL,
} tn_sql_value_kind;

typedef struct tn_sql_option {
    const char *key;
    const char *value;     /* NULL when kind is NONE or NULL */
    tn_sql_value_kind kind;
    tn_sql_pos pos;        /* of the key */
    tn_sql_pos value_pos;
    uint8_t scope;         /* SET/RESET: TN_SQL_SCOPE_* (DEFAULT: the setting's own scope) */
} tn_sql_option;

enum { TN_SQL_SCOPE_DEFAULT = 0, TN_SQL_SCOPE_GLOBAL = 1, TN_SQL_SCOPE_SESSION = 2 };

typedef struct tn_sql_options {
    tn_sql_option *items;
    int n;
} tn_sql_options;

/* An optimizer hint, a comment opened with slash-star-plus holding NAME(args); NAME folded to
 * lower case ("options"). Arguments `'k' = 'v'` become options with values; bare arguments
 * (`BROADCAST(t)`) become options of kind NONE. */
typedef struct tn_sql_hint {
    const char *name;
    tn_sql_options args;
    tn_sql_pos pos;
} tn_sql_hint;

/* ---------------------------------------------------------------------------------------------
 * Expressions.
 */
typedef enum tn_sql_expr_kind {
    TN_SQL_E_LITERAL,      /* lit */
    TN_SQL_E_COLUMN,       /* column: `a`, `t.a`, `s.t.a` */
    TN_SQL_E_STAR,         /* star: `*`, `t.*` (select lists and count(*) only) */
    TN_SQL_E_PARAM,        /* param: `?` (numbered 1, 2, ... in order) or `$n` */
    TN_SQL_E_UNARY,        /* unary: NOT, -, + */
    TN_SQL_E_BINARY,       /* binary: arithmetic, ||, comparison, AND, OR, IS [NOT] DISTINCT FROM */
    TN_SQL_E_IS,           /* is: x IS [NOT] NULL / TRUE / FALSE */
    TN_SQL_E_BETWEEN,      /* between: x [NOT] BETWEEN lo AND hi */
    TN_SQL_E_IN_LIST,      /* in_list: x [NOT] IN (a, b, ...) */
    TN_SQL_E_IN_QUERY,     /* in_query: x [NOT] IN (SELECT ...), x op ANY|ALL (SELECT ...) */
    TN_SQL_E_LIKE,         /* like: x [NOT] LIKE|ILIKE p [ESCAPE e] */
    TN_SQL_E_EXISTS,       /* subquery: EXISTS (SELECT ...) (NOT EXISTS is NOT over it) */
    TN_SQL_E_SUBQUERY,     /* subquery: (SELECT ...) used as a scalar */
    TN_SQL_E_CASE,         /* case */
    TN_SQL_E_CAST,         /* cast: CAST(x AS t), x::t, TRY_CAST(x AS t) */
    TN_SQL_E_FUNCTION,     /* func: f(args), count(*), count(DISTINCT x), FILTER, OVER */
    TN_SQL_E_EXTRACT,      /* extract: EXTRACT(field FROM x) */
    TN_SQL_E_INTERVAL,     /* interval: INTERVAL '1' DAY, INTERVAL 1 DAY, INTERVAL '1 day' */
    TN_SQL_E_LIST,         /* list: ['a', 'b'] (list literal, e.g. read_parquet(['a','b'])) */
    TN_SQL_E_ROW,          /* list: (a, b) row constructor */
} tn_sql_expr_kind;

typedef enum tn_sql_lit_kind {
    TN_SQL_LIT_NULL,
    TN_SQL_LIT_BOOL,       /* bool_value */
    TN_SQL_LIT_INTEGER,    /* text; int_value valid when fits_int64 (big ones: text only) */
    TN_SQL_LIT_DECIMAL,    /* 1.50 (text; no exponent) */
    TN_SQL_LIT_FLOAT,      /* 1e10, 2.5E-3 (text; float_value) */
    TN_SQL_LIT_STRING,     /* 'it''s' -> str/str_len "it's" */
    TN_SQL_LIT_BLOB,       /* X'CAFE' -> str/str_len bytes 0xCA 0xFE */
    TN_SQL_LIT_TYPED,      /* DATE '2024-01-01', TIMESTAMP '...': typed_as + str */
} tn_sql_lit_kind;

typedef enum tn_sql_unary_op { TN_SQL_OP_NOT, TN_SQL_OP_NEG, TN_SQL_OP_PLUS } tn_sql_unary_op;

typedef enum tn_sql_binary_op {
    TN_SQL_OP_OR,
    TN_SQL_OP_AND,
    TN_SQL_OP_EQ,          /* = and == */
    TN_SQL_OP_NE,          /* <> and != */
    TN_SQL_OP_LT,
    TN_SQL_OP_LE,
    TN_SQL_OP_GT,
    TN_SQL_OP_GE,
    TN_SQL_OP_IS_DISTINCT,      /* IS DISTINCT FROM */
    TN_SQL_OP_IS_NOT_DISTINCT,  /* IS NOT DISTINCT FROM */
    TN_SQL_OP_ADD,
    TN_SQL_OP_SUB,
    TN_SQL_OP_MUL,
    TN_SQL_OP_DIV,
    TN_SQL_OP_MOD,
    TN_SQL_OP_CONCAT,      /* || */
} tn_sql_binary_op;

typedef enum tn_sql_is_what { TN_SQL_IS_NULL, TN_SQL_IS_TRUE, TN_SQL_IS_FALSE } tn_sql_is_what;

typedef enum tn_sql_interval_unit {
    TN_SQL_UNIT_NONE,      /* INTERVAL '1 day 2 hours': the unit is inside the string */
    TN_SQL_UNIT_YEAR,
    TN_SQL_UNIT_MONTH,
    TN_SQL_UNIT_WEEK,
    TN_SQL_UNIT_DAY,
    TN_SQL_UNIT_HOUR,
    TN_SQL_UNIT_MINUTE,
    TN_SQL_UNIT_SECOND,
    TN_SQL_UNIT_MILLISECOND,
    TN_SQL_UNIT_MICROSECOND,
} tn_sql_interval_unit;

typedef struct tn_sql_order_item {
    tn_sql_expr *expr;     /* an integer literal is an ordinal: ORDER BY 1 */
    bool desc;
    int nulls;             /* 0 = default, 1 = NULLS FIRST, 2 = NULLS LAST */
} tn_sql_order_item;

typedef struct tn_sql_order_list {
    tn_sql_order_item *items;
    int n;
} tn_sql_order_list;

typedef struct tn_sql_expr_list {
    tn_sql_expr **items;
    int n;
} tn_sql_expr_list;

typedef enum tn_sql_frame_bound_kind {
    TN_SQL_BOUND_NONE,
    TN_SQL_BOUND_UNBOUNDED_PRECEDING,
    TN_SQL_BOUND_PRECEDING,        /* offset PRECEDING */
    TN_SQL_BOUND_CURRENT_ROW,
    TN_SQL_BOUND_FOLLOWING,        /* offset FOLLOWING */
    TN_SQL_BOUND_UNBOUNDED_FOLLOWING,
} tn_sql_frame_bound_kind;

/* OVER (...) or OVER name. Parsed only; tarn's executor may not run window functions. */
typedef struct tn_sql_window {
    tn_sql_ident name;             /* OVER w (name.name NULL for an inline spec) */
    tn_sql_expr_list partition_by;
    tn_sql_order_list order_by;
    int frame_mode;                /* 0 = none, 1 = ROWS, 2 = RANGE, 3 = GROUPS */
    tn_sql_frame_bound_kind start_kind, end_kind;   /* end NONE without BETWEEN */
    tn_sql_expr *start_offset, *end_offset;
} tn_sql_window;

/* What follows a star (DuckDB): `* EXCLUDE (a, t.b) REPLACE (e AS c) RENAME (d AS x)`, and
 * COLUMNS(...) (the star stands in an expression for each column it selects). */
typedef struct tn_sql_star_replace {
    tn_sql_expr *expr;
    tn_sql_ident name;             /* the column it replaces (or renames, for RENAME) */
    tn_sql_ident new_name;         /* RENAME only */
} tn_sql_star_replace;

typedef struct tn_sql_star_opts {
    tn_sql_qname *exclude;         /* EXCLUDE: names, optionally qualified */
    int n_exclude;
    tn_sql_star_replace *replace;  /* REPLACE (expr AS col) */
    int n_replace;
    tn_sql_star_replace *rename;   /* RENAME (col AS new) */
    int n_rename;
    bool columns;                  /* COLUMNS(*) / COLUMNS('regex'): an expression per column */
    tn_sql_expr *pattern;          /* COLUMNS('regex'): a string literal; NULL for COLUMNS(*) */
} tn_sql_star_opts;

typedef struct tn_sql_case_when {
    tn_sql_expr *when;
    tn_sql_expr *then;
} tn_sql_case_when;

struct tn_sql_expr {
    tn_sql_expr_kind kind;
    tn_sql_pos pos;                /* first character of the expression (operator for binary) */
    union {
        struct {
            tn_sql_lit_kind kind;
            const char *text;      /* source text of numbers; decoded value of strings/blobs */
            size_t len;            /* byte length of text (strings may hold NUL bytes) */
            bool bool_value;
            bool fits_int64;
            int64_t int_value;
            double float_value;
            tn_sql_type *typed_as; /* LIT_TYPED */
        } lit;
        tn_sql_qname column;       /* last part is the column; earlier parts qualify it */
        struct {
            tn_sql_qname qual;     /* qualifier (n == 0 for a bare *) */
            tn_sql_star_opts *opts;   /* NULL when none */
        } star;
        struct {
            int index;             /* 1-based */
            bool dollar;           /* $n rather than ? */
        } param;
        struct {
            tn_sql_unary_op op;
            tn_sql_expr *arg;
        } unary;
        struct {
            tn_sql_binary_op op;
            tn_sql_expr *left, *right;
        } binary;
        struct {
            tn_sql_expr *arg;
            tn_sql_is_what what;
            bool negated;
        } is;
        struct {
            tn_sql_expr *arg, *low, *high;
            bool negated;
        } between;
        struct {
            tn_sql_expr *arg;
            tn_sql_expr_list list;
            bool negated;
        } in_list;
        struct {
            tn_sql_expr *arg;
            tn_sql_query *query;
            bool negated;
            /* x op ANY|SOME|ALL (SELECT ...) other than = ANY (IN) and <> ALL (NOT IN) */
            bool quantified;
            bool all;
            tn_sql_binary_op op;
        } in_query;
        struct {
            tn_sql_expr *arg, *pattern, *escape;
            bool negated;
            bool ilike;
        } like;
        struct {
            tn_sql_query *query;
        } subquery;                /* E_EXISTS and E_SUBQUERY */
        struct {
            tn_sql_expr *operand;  /* CASE x WHEN ... (NULL for a searched CASE) */
            tn_sql_case_when *whens;
            int n_whens;
            tn_sql_expr *else_expr;
        } case_;
        struct {
            tn_sql_expr *arg;
            tn_sql_type *type;
            bool try_cast;
            bool postfix;          /* written x::t */
        } cast;
        struct {
            tn_sql_qname name;     /* folded: "count", "read_parquet"; may be qualified */
            tn_sql_expr_list args;
            tn_sql_ident *arg_names; /* parallel to args or NULL; name NULL for positional */
            bool star;             /* count(*) (args empty) */
            bool distinct;
            tn_sql_order_list order_by;   /* string_agg(x, ',' ORDER BY y) */
            tn_sql_expr *filter;   /* FILTER (WHERE ...) */
            tn_sql_window *over;
        } func;
        struct {
            const char *field;     /* lower case: "year", "epoch", ... */
            tn_sql_expr *arg;
        } extract;
        struct {
            tn_sql_expr *value;    /* string or number literal, or any expression */
            tn_sql_interval_unit unit, to_unit;   /* to_unit: INTERVAL '1-2' YEAR TO MONTH */
        } interval;
        tn_sql_expr_list list;     /* E_LIST, E_ROW */
    } u;
};

/* ---------------------------------------------------------------------------------------------
 * Queries. A query is a SELECT block, a set operation of two queries, or VALUES rows, with the
 * WITH clause, ORDER BY, LIMIT and OFFSET that apply to the whole of it.
 */
typedef enum tn_sql_query_kind {
    TN_SQL_Q_SELECT,
    TN_SQL_Q_SETOP,
    TN_SQL_Q_VALUES,
} tn_sql_query_kind;

typedef enum tn_sql_setop { TN_SQL_UNION, TN_SQL_INTERSECT, TN_SQL_EXCEPT } tn_sql_setop;

typedef struct tn_sql_select_item {
    tn_sql_expr *expr;             /* E_STAR for * and t.* */
    tn_sql_ident alias;            /* alias.name NULL when none */
} tn_sql_select_item;

/* WINDOW name AS (spec) of a SELECT. */
typedef struct tn_sql_named_window {
    tn_sql_ident name;
    tn_sql_window *spec;
} tn_sql_named_window;

/* One grouping set of GROUP BY GROUPING SETS / ROLLUP / CUBE: indexes into select.group_by. */
typedef struct tn_sql_grouping_set {
    int *items;
    int n;
} tn_sql_grouping_set;

typedef struct tn_sql_select {
    bool distinct;
    tn_sql_expr_list distinct_on;  /* DISTINCT ON (exprs): n > 0 (distinct is set too) */
    tn_sql_select_item *items;
    int n_items;
    tn_sql_tableref *from;         /* NULL: SELECT without FROM; comma lists are CROSS joins */
    tn_sql_expr *where;
    tn_sql_expr_list group_by;     /* integer literals are ordinals */
    bool group_all;                /* GROUP BY ALL: every select item without an aggregate */
    /* GROUPING SETS / ROLLUP / CUBE (combined with plain keys: their cross product): the sets
     * over group_by's expressions; NULL for a plain GROUP BY */
    tn_sql_grouping_set *grouping_sets;
    int n_grouping_sets;
    tn_sql_expr *having;
    tn_sql_named_window *windows;  /* WINDOW w AS (...), ... (OVER w refers to them) */
    int n_windows;
    tn_sql_expr *qualify;          /* QUALIFY pred: after the window functions, before DISTINCT */
} tn_sql_select;

typedef struct tn_sql_cte {
    tn_sql_ident name;
    tn_sql_ident *columns;         /* WITH x(a, b) AS (...) */
    int n_columns;
    tn_sql_query *query;
} tn_sql_cte;

struct tn_sql_query {
    tn_sql_query_kind kind;
    tn_sql_pos pos;
    tn_sql_cte *ctes;              /* WITH clause of this query level */
    int n_ctes;
    bool recursive;
    union {
        tn_sql_select select;
        struct {
            tn_sql_setop op;
            bool all;
            tn_sql_query *left, *right;
        } setop;
        struct {
            tn_sql_expr_list *rows;
            int n_rows;
        } values;
    } u;
    tn_sql_order_list order_by;
    bool order_all;                /* ORDER BY ALL: every output column, left to right */
    tn_sql_order_item order_all_item;   /* its direction and NULLS (expr NULL) */
    tn_sql_expr *limit;            /* NULL when absent; LIMIT ALL is absent too */
    tn_sql_expr *offset;
    /* BlinkDB's ERROR WITHIN e% AT CONFIDENCE c% (sql/approx.c): error_within > 0 when given,
     * both in percent as written */
    double error_within, confidence;
    tn_sql_pos error_pos;
};

/* ---------------------------------------------------------------------------------------------
 * FROM items: tables, table functions, subqueries and joins, each with an optional alias,
 * column aliases and TABLESAMPLE.
 */
typedef enum tn_sql_tableref_kind {
    TN_SQL_T_TABLE,
    TN_SQL_T_FUNCTION,
    TN_SQL_T_SUBQUERY,
    TN_SQL_T_JOIN,
} tn_sql_tableref_kind;

typedef enum tn_sql_join_kind {
    TN_SQL_JOIN_INNER,
    TN_SQL_JOIN_LEFT,
    TN_SQL_JOIN_RIGHT,
    TN_SQL_JOIN_FULL,
    TN_SQL_JOIN_CROSS,             /* CROSS JOIN and comma lists (comma = true) */
    TN_SQL_JOIN_SEMI,              /* [LEFT] SEMI JOIN: left rows with a match, left columns */
    TN_SQL_JOIN_ANTI,              /* [LEFT] ANTI JOIN: left rows without a match */
} tn_sql_join_kind;

typedef enum tn_sql_time_travel { TN_SQL_TT_NONE, TN_SQL_TT_VERSION, TN_SQL_TT_TIMESTAMP } tn_sql_time_travel;

typedef struct tn_sql_sample {
    tn_sql_expr *size;             /* a number literal (or expression) */
    bool rows;                     /* false: PERCENT (also written %) */
    tn_sql_ident method;           /* BERNOULLI / SYSTEM / ... (name NULL if absent) */
    tn_sql_expr *seed;             /* REPEATABLE (n) */
    tn_sql_pos pos;
} tn_sql_sample;

struct tn_sql_tableref {
    tn_sql_tableref_kind kind;
    tn_sql_pos pos;
    tn_sql_ident alias;            /* alias.name NULL when none */
    tn_sql_ident *col_aliases;     /* t AS x(a, b) */
    int n_col_aliases;
    tn_sql_sample *sample;         /* TABLESAMPLE, NULL when absent */
    union {
        struct {
            tn_sql_qname name;
            tn_sql_time_travel travel;
            tn_sql_expr *travel_expr;   /* VERSION AS OF <expr> / TIMESTAMP AS OF <expr> */
            tn_sql_hint *hints;         /* a hint comment after the name: OPTIONS('k' = 'v') (Flink) */
            int n_hints;
        } table;
        tn_sql_expr *function;     /* an E_FUNCTION; named args in func.arg_names */
        struct {
            tn_sql_query *query;
            bool lateral;
        } subquery;
        struct {
            tn_sql_join_kind kind;
            bool natural;
            bool comma;
            tn_sql_tableref *left, *right;
            tn_sql_expr *on;
            tn_sql_ident *using_cols;
            int n_using;
        } join;
    } u;
};

/* ---------------------------------------------------------------------------------------------
 * Statements.
 */
typedef enum tn_sql_stmt_kind {
    TN_SQL_S_QUERY,            /* SELECT / VALUES / WITH / (query) */
    TN_SQL_S_CREATE_TABLE,
    TN_SQL_S_CREATE_VIEW,
    TN_SQL_S_CREATE_SCHEMA,
    TN_SQL_S_DROP,
    TN_SQL_S_INSERT,           /* INSERT INTO / INSERT OVERWRITE / UPSERT INTO */
    TN_SQL_S_DELETE,
    TN_SQL_S_UPDATE,
    TN_SQL_S_MERGE,            /* MERGE INTO target USING source ON cond WHEN ... */
    TN_SQL_S_ALTER_TABLE,
    TN_SQL_S_OPTIMIZE,
    TN_SQL_S_DESCRIBE,
    TN_SQL_S_SHOW,
    TN_SQL_S_COPY,
    TN_SQL_S_SET,
    TN_SQL_S_EXPLAIN,
    TN_SQL_S_VACUUM,
    TN_SQL_S_TRANSACTION,      /* BEGIN / START TRANSACTION, COMMIT / END, ROLLBACK / ABORT */
    TN_SQL_S_CHECKPOINT,       /* [FORCE] CHECKPOINT [name]: commits are durable already */
    TN_SQL_S_PREPARE,          /* PREPARE name AS statement (session.c, prepared.c) */
    TN_SQL_S_EXECUTE,          /* EXECUTE name [(value, ...)] */
    TN_SQL_S_DEALLOCATE,       /* DEALLOCATE [PREPARE] name | ALL */
    TN_SQL_S_CREATE_SEQUENCE,  /* CREATE [OR REPLACE] [TEMP] SEQUENCE (sequence.c) */
    TN_SQL_S_CREATE_MACRO,     /* CREATE [OR REPLACE] [TEMP] MACRO name(a, b := d) AS expr | TABLE q */
} tn_sql_stmt_kind;

typedef enum tn_sql_txn_op { TN_SQL_TXN_BEGIN, TN_SQL_TXN_COMMIT, TN_SQL_TXN_ROLLBACK } tn_sql_txn_op;

typedef struct tn_sql_column_def {
    tn_sql_ident name;
    tn_sql_type *type;
    bool not_null;
    bool primary_key;              /* `col INT PRIMARY KEY` */
    tn_sql_expr *default_expr;
    const char *comment;
} tn_sql_column_def;

typedef enum tn_sql_object_kind {
    TN_SQL_OBJ_TABLE, TN_SQL_OBJ_VIEW, TN_SQL_OBJ_SCHEMA,
    TN_SQL_OBJ_SEQUENCE, TN_SQL_OBJ_MACRO, TN_SQL_OBJ_MACRO_TABLE,   /* DROP SEQUENCE / MACRO [TABLE] */
} tn_sql_object_kind;

typedef enum tn_sql_alter_kind {
    TN_SQL_ALTER_SET_OPTIONS,      /* SET (...) / SET TBLPROPERTIES (...) / SET OPTIONS (...) */
    TN_SQL_ALTER_ADD_COLUMN,
    TN_SQL_ALTER_DROP_COLUMN,
    TN_SQL_ALTER_RENAME_TO,
    TN_SQL_ALTER_RENAME_COLUMN,
    TN_SQL_ALTER_ADD_CONSTRAINT,   /* ADD CONSTRAINT name CHECK (expr) */
    TN_SQL_ALTER_DROP_CONSTRAINT,  /* DROP CONSTRAINT [IF EXISTS] name */
    TN_SQL_ALTER_UNSET_OPTIONS,    /* UNSET TBLPROPERTIES [IF EXISTS] ('k', ...) */
} tn_sql_alter_kind;

typedef enum tn_sql_show_kind { TN_SQL_SHOW_TABLES, TN_SQL_SHOW_SCHEMAS } tn_sql_show_kind;

typedef struct tn_sql_partition_value {
    tn_sql_ident column;
    tn_sql_expr *value;            /* NULL for a dynamic partition: PARTITION (dt) */
} tn_sql_partition_value;

/* One WHEN clause of MERGE INTO (Delta's grammar). */
typedef enum tn_sql_merge_when {
    TN_SQL_MERGE_MATCHED,
    TN_SQL_MERGE_NOT_MATCHED,              /* [BY TARGET]: a source row without a target row */
    TN_SQL_MERGE_NOT_MATCHED_BY_SOURCE,    /* a target row without a source row */
} tn_sql_merge_when;

typedef enum tn_sql_merge_action {
    TN_SQL_MERGE_UPDATE,
    TN_SQL_MERGE_DELETE,
    TN_SQL_MERGE_INSERT,
} tn_sql_merge_action;

typedef struct tn_sql_merge_clause {
    tn_sql_merge_when when;
    tn_sql_merge_action action;
    tn_sql_expr *cond;                     /* AND cond, or NULL */
    bool star;                             /* UPDATE SET * / INSERT * */
    tn_sql_ident *columns;                 /* UPDATE SET col = value; INSERT (cols): may be 0 */
    int n_columns;
    tn_sql_expr **values;                  /* UPDATE: n_columns values; INSERT VALUES (...) */
    int n_values;
    tn_sql_pos pos;
} tn_sql_merge_clause;

struct tn_sql_stmt {
    tn_sql_stmt_kind kind;
    tn_sql_pos pos;
    const char *text;              /* this statement's source text (arena, NUL-terminated) */
    int n_params;                  /* highest parameter number used */
    union {
        tn_sql_query *query;
        struct {
            tn_sql_qname name;
            bool if_not_exists, or_replace, temporary;
            tn_sql_column_def *columns;
            int n_columns;
            tn_sql_ident pk_name;  /* CONSTRAINT name PRIMARY KEY (...) (name NULL if unnamed) */
            tn_sql_ident *pk_columns;   /* table-level or column-level PRIMARY KEY, NULL if none */
            int n_pk_columns;
            bool pk_not_enforced;
            tn_sql_ident using_format;  /* USING qbeast / delta / parquet */
            tn_sql_ident *partitioned_by;
            int n_partitioned_by;
            tn_sql_options options;     /* WITH / OPTIONS / TBLPROPERTIES / Phoenix K=V, in order */
            const char *location;
            const char *comment;
            tn_sql_query *as_query;     /* CREATE TABLE ... AS query */
        } create_table;
        struct {
            tn_sql_qname name;
            bool or_replace, if_not_exists, temporary;
            bool global;                /* Spark: CREATE GLOBAL TEMPORARY VIEW */
            tn_sql_ident *columns;
            int n_columns;
            tn_sql_query *query;
            const char *query_text;     /* source text of the query (stored as the definition) */
        } create_view;
        struct {
            tn_sql_qname name;
            bool if_not_exists;
        } create_schema;
        struct {
            tn_sql_object_kind object;
            tn_sql_qname name;
            bool if_exists, cascade;
        } drop;
        struct {
            tn_sql_qname table;
            bool overwrite;             /* INSERT OVERWRITE */
            bool upsert;                /* UPSERT INTO (Phoenix) */
            tn_sql_hint *hints;         /* hint comment OPTIONS('k' = 'v') after the name */
            int n_hints;
            tn_sql_partition_value *partition;  /* PARTITION (k = v, ...) */
            int n_partition;
            tn_sql_ident *columns;
            int n_columns;
            tn_sql_query *query;        /* SELECT or VALUES */
        } insert;
        struct {
            tn_sql_qname table;
            tn_sql_ident alias;
            tn_sql_expr *where;
        } delete_;
        struct {
            tn_sql_qname table;
            tn_sql_ident alias;
            tn_sql_ident *set_columns;
            tn_sql_expr **set_values;
            int n_sets;
            tn_sql_expr *where;
        } update;
        struct {
            tn_sql_qname table;
            tn_sql_ident alias;
            tn_sql_tableref *source;
            tn_sql_expr *on;
            tn_sql_merge_clause *clauses;
            int n_clauses;
        } merge;
        struct {
            tn_sql_qname table;
            tn_sql_alter_kind action;
            tn_sql_options options;     /* SET_OPTIONS */
            tn_sql_column_def column;   /* ADD_COLUMN; DROP/RENAME_COLUMN use column.name */
            tn_sql_ident new_column;    /* RENAME COLUMN a TO b */
            tn_sql_qname new_name;      /* RENAME TO */
            bool if_exists;             /* DROP COLUMN IF EXISTS / ADD COLUMN IF NOT EXISTS */
            tn_sql_ident constraint_name;   /* ADD/DROP CONSTRAINT */
            tn_sql_expr *check;         /* ADD CONSTRAINT: the CHECK expression */
            const char *check_text;     /* its source text, as written (arena) */
        } alter;
        struct {
            tn_sql_qname table;
            tn_sql_options options;
            tn_sql_expr *where;
            tn_sql_ident *zorder;
            int n_zorder;
        } optimize;
        struct {
            tn_sql_qname table;         /* n == 0 when describing a query */
            tn_sql_query *query;
            bool history;
            bool index;                 /* DESCRIBE INDEX t: the OTree's metrics */
            bool table_info;            /* PRAGMA table_info('t'): SQLite's/DuckDB's columns */
            bool show_create;           /* SHOW CREATE TABLE t: the DDL that makes t */
            bool show_properties;       /* SHOW TBLPROPERTIES t [('key')]: metaData.configuration */
            const char *property;       /* its key, NULL = every property */
        } describe;
        struct {
            tn_sql_show_kind what;
            tn_sql_qname in;            /* SHOW TABLES IN s (n == 0 when absent) */
            bool all;                   /* SHOW ALL TABLES: every schema (schema, name, kind) */
        } show;
        struct {
            tn_sql_qname table;         /* n == 0 when copying a query */
            tn_sql_ident *columns;
            int n_columns;
            tn_sql_query *query;        /* COPY (query) TO ... */
            bool to;                    /* false: COPY t FROM 'file' */
            bool stdio;                 /* FROM STDIN / TO STDOUT (path NULL): the client's stream */
            const char *path;
            tn_sql_options options;
        } copy;
        tn_sql_option set;              /* SET key = value (key/value like any option) */
        struct {
            bool analyze;
            tn_sql_stmt *stmt;
        } explain;
        struct {
            tn_sql_qname table;
            const char *retain;         /* RETAIN n HOURS: number text, NULL if absent */
            bool dry_run;
        } vacuum;
        tn_sql_txn_op txn;
        struct {
            tn_sql_ident name;
            tn_sql_stmt *stmt;          /* parsed to check it; EXECUTE re-parses text */
            const char *text;           /* the statement's source text (arena) */
        } prepare;
        struct {
            tn_sql_ident name;
            tn_sql_expr **args;
            int n_args;
        } execute;
        struct {
            tn_sql_ident name;          /* name NULL with all */
            bool all;
        } deallocate;
        struct {
            tn_sql_qname name;
            bool or_replace, if_not_exists, temporary, cycle;
            tn_sql_expr *start, *increment, *minvalue, *maxvalue;   /* NULL when not given */
        } create_sequence;
        struct {
            tn_sql_qname name;
            bool or_replace, if_not_exists, temporary, is_table;
            tn_sql_ident *params;       /* positional ones first, then those with defaults */
            tn_sql_expr **defaults;     /* per parameter: NULL or the `b := default` expression */
            int n_params;
            tn_sql_expr *body;          /* AS expr */
            tn_sql_query *query;        /* AS TABLE query */
            const char *body_text;      /* source text of the body (arena) */
        } create_macro;
    } u;
};

typedef struct tn_sql_stmt_list {
    tn_sql_stmt **stmts;
    int n;
} tn_sql_stmt_list;

#endif
