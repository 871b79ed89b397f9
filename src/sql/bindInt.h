/*
 * sql/bindInt.h: private to the binder (bind*.c) and the session (session.c): binder state,
 * name scopes, aggregate binding context and error helpers.
 */
#ifndef TN_SQL_BIND_INT_H
#define TN_SQL_BIND_INT_H

#include <pthread.h>

#include "sql/ast.h"
#include "sql/exec.h"
#include "sql/plan.h"
#include "sql/sql.h"

struct tn_sql_session {
    char *warehouse;
    bool warehouse_is_dir;         /* settings.c: the warehouse was seen to be a directory (once
                                      true, the default temp_directory stops stat(2)ing it) */
    tn_pool *pool;
    int threads;
    uint64_t memory_limit;
    pthread_mutex_t run_lock;      /* guards running (tn_sql_session_progress) */
    tn_exec *running;              /* the statement executing now, or NULL */
    struct tn_stmt_state *tables;  /* stmt_ddl.c: catalog handle and SET options (stmt.h) */
    struct tn_sql_result *streaming; /* session.c: the result still streaming, or NULL */
    int interrupted;               /* tn_sql_session_interrupt (atomic); cleared per statement */
    struct tn_temp_view *temp_views; /* temp_views.c: this session's temporary views */
    bool files_denied;             /* tn_sql_session_deny_files: no file paths in SQL */
    char client_user[64], client_database[64];   /* tn_sql_session_set_client */
    tn_sql_settings_fn settings_fn;                /* tn_sql_session_set_settings */
    void *settings_ctx;
    struct tn_setting_globals *globals; /* settings.c: the database's global settings */
    /* session.c: BEGIN ... COMMIT. Each statement still commits on its own; a ROLLBACK (or a
     * COMMIT after a failed statement) that would need to undo writes is refused. */
    bool txn_open;                 /* BEGIN seen: writes are refused until COMMIT/ROLLBACK */
    struct tn_txn_pin *pins;       /* bind_table.c: tables read in the transaction, at the
                                      version first read (its snapshot), freed at its end */
    uint32_t npins, pincap;
    tn_sql_batch *batch;           /* tn_sql_session_set_batch: a continuous job's micro-batch */
    struct tn_prepared *prepared;  /* prepared.c: PREPARE name AS ... of this session */
    struct tn_seq_handle *sequences; /* sequence.c: temp sequences and nextval handles */
    struct tn_temp_macro *macros;  /* macro.c: CREATE TEMP MACRO of this session */
};


/* Ends the transaction's snapshot (COMMIT, ROLLBACK, close): later reads see the latest. */
void tn_bind_txn_pins_free(tn_sql_session *s);

/* A FROM item visible by name. Columns are scope columns [offset, offset + ncols). */
typedef struct bind_rel {
    const char *alias;           /* NULL for an unnamed subquery */
    uint32_t ncols;
    const char **names;
    tn_type *types;
    uint32_t offset;
    bool *hidden;                /* hidden from `*` (USING duplicates); NULL = none */
} bind_rel;

typedef struct bind_scope {
    bind_rel *rels;
    uint32_t nrels, cap;
    uint32_t ncols;
    struct bind_scope *parent;   /* the enclosing query's scope (correlated references) */
    bool allow_outer;            /* outer references allowed (a subquery's WHERE) */
    bool correlated;             /* an outer reference was bound */
    /* DuckDB's select-list aliases: a name not found in the scope binds the expression of
     * alias_sel's item j < alias_limit named so (WHERE, HAVING, later select items) */
    const struct tn_sql_select *alias_sel;
    int alias_limit;
} bind_scope;

typedef struct cte_frame {
    tn_sql_cte *ctes;
    int n;
    tn_plan_cte **shared;          /* per CTE: its definition once referenced (optimize_cte.c) */
    struct cte_frame *parent;
} cte_frame;

typedef struct tn_binder {
    tn_sql_session *session;
    tn_arena *arena;
    const char *sql;             /* the whole script text (error carets) */
    size_t sql_len;
    const tn_value *params;
    uint32_t nparams;
    cte_frame *ctes;
    tn_exec *ex;                 /* runs uncorrelated subqueries during binding */
    int depth;
    const tn_sql_named_window *windows;   /* the WINDOW clause of the SELECT being bound */
    int n_windows;
    tn_sql_expr *columns_pick;   /* while a COLUMNS(...) item is expanded: the column it binds as */
    struct tn_macro_frame *macro_frame;   /* macro.c: the arguments of the macro being expanded */
} tn_binder;

/* The aggregate being bound (SELECT with GROUP BY or aggregates). */
typedef struct agg_info {
    bind_scope *pre;             /* scope below the aggregate */
    uint32_t ngroups;
    tn_expr **groups;
    char **group_text;
    uint32_t naggs, cap;
    tn_plan_agg *aggs;
    char **agg_text;
    /* GROUPING SETS / ROLLUP / CUBE (bind_group.c): groups[0 .. nkeys) are the distinct keys,
     * groups[nkeys] the set number of the row (a column of the expanded input); set s holds
     * key k when bit k of set_masks[s] is set. nsets 0: a plain GROUP BY (nkeys unused). */
    uint32_t nsets, nkeys;
    uint64_t *set_masks;
    tn_expr *post_filter;        /* over the aggregate's output, placed right above it, or NULL */
} agg_info;

/*
 * Columns a SELECT computes late, above its FROM/WHERE (and aggregate): decorrelated scalar
 * subqueries (LEFT JOINs of a grouped inner query, placed first) and window functions (one
 * WINDOW node, placed after HAVING). Expressions bound before their place is known refer to them
 * by marker column indexes TN_BIND_LATE_MARK + k, which tn_bind_late_* rewrite.
 */
#define TN_BIND_LATE_MARK 0x40000000u

typedef struct late_join {
    tn_plan *inner;              /* output: the correlation keys, then the aggregates */
    uint32_t nkeys;
    tn_expr **outer_keys;        /* over the outer plan at the join point */
    uint32_t mark0;              /* markers mark0 .. mark0 + inner->ncols - 1 */
} late_join;

typedef struct late_info {
    bool allow_windows;
    uint32_t nmarks;
    uint32_t *mark_col;          /* resolved column of each marker (after placement) */
    late_join *joins;
    uint32_t njoins, jcap;
    tn_plan_window_func *wins;
    char **win_text;
    uint32_t *win_mark;
    uint32_t nwins, wcap;
    /* unnest(l) / explode(l) of the select list (bind_unnest.c): one UNNEST node after the
     * window functions */
    tn_expr **unnests;
    uint8_t *unnest_modes;       /* tn_unnest_mode */
    uint32_t *unnest_mark;
    uint32_t nunnests, ucap;
    bool allow_unnest;           /* the select list (and ORDER BY) of the SELECT being bound */
    bool in_unnest;              /* binding an unnest's argument */
} late_info;

typedef struct bind_ctx {
    tn_binder *b;
    bind_scope *scope;           /* names resolve here (the pre-aggregate scope in agg mode) */
    agg_info *agg;               /* non-NULL: bind over the aggregate's output */
    bool in_agg;                 /* inside an aggregate's arguments */
    const char *clause;          /* "WHERE", "GROUP BY", ... for messages */
    tn_plan **plan;              /* plan below this expression (for decorrelated subqueries) */
    late_info *late;             /* where window functions and correlated scalar subqueries go */
} bind_ctx;

/* prepared.c: PREPARE and DEALLOCATE run here (*exec NULL); EXECUTE gives the prepared script
 * (its statement 0) and its values (b's arena) for the session to run. */
int tn_prepared_statement(tn_binder *b, tn_sql_stmt *stmt, struct tn_sql_script **exec, tn_value **vals,
                          uint32_t *nvals);
void tn_prepared_free_all(tn_sql_session *s);
/* sequence.c: CREATE SEQUENCE / DROP SEQUENCE; nextval(name) / currval(name) over bound args
 * (owned: freed on failure); the session's sequence state at close. */
int tn_sequence_statement(tn_binder *b, tn_sql_stmt *stmt);
int tn_sequence_call(tn_binder *b, const char *fname, tn_expr **args, uint32_t n, tn_sql_pos pos, tn_expr **out);
void tn_sequences_free(tn_sql_session *s);
/* macro.c: CREATE MACRO / DROP MACRO; a call of a scalar macro (e) and a table macro in FROM (t):
 * 1 when no such macro exists (nothing done), else 0 or an error; a placeholder $N of a macro
 * body (N >= TN_MACRO_PARAM_BASE) binds the call's argument. */
#define TN_MACRO_PARAM_BASE 60000     /* the lexer takes $1 .. $65535 */
int tn_macro_statement(tn_binder *b, tn_sql_stmt *stmt);
int tn_macro_scalar(bind_ctx *c, tn_sql_expr *e, tn_expr **out);
int tn_macro_table(tn_binder *b, tn_sql_tableref *t, tn_plan **out);
int tn_macro_param(bind_ctx *c, int index, tn_sql_pos pos, tn_expr **out);
void tn_macros_free(tn_sql_session *s);

/* The select list being bound (bind_query.c): bound items with their output names. */
typedef struct sel_item {
    tn_expr *expr;
    const char *name;
    const char *alias;           /* as written, or NULL */
    char *text;                  /* bound text (ORDER BY matching) */
    tn_sql_expr *ast;            /* NULL for expanded stars */
} sel_item;

typedef struct sel_list {
    sel_item *items;
    uint32_t n, cap;
} sel_list;

/* Appends e (owned by the list from now on, freed on failure). */
int tn_bind_sel_push(tn_binder *b, sel_list *l, tn_expr *e, const char *name, const char *alias,
                     tn_sql_expr *ast);
void tn_bind_sel_free(sel_list *l);

/* bind_group.c: after the keys of GROUP BY GROUPING SETS / ROLLUP / CUBE are bound into
 * A->groups (one per group_by expression): keeps the distinct ones, computes the sets and adds
 * the set-number group. tn_bind_grouping binds GROUPING(k, ...) / grouping_id over the
 * aggregate; tn_bind_grouping_plan puts the expansion (each input row once per set, the keys a
 * set leaves out as NULL) below the aggregate node and rewrites its keys. */
int tn_bind_grouping_sets(tn_binder *b, const tn_sql_select *s, bind_scope *S, agg_info *A);
int tn_bind_grouping(bind_ctx *c, tn_sql_expr *e, tn_expr **out);
bool tn_bind_is_grouping_name(const char *name);
int tn_bind_grouping_plan(tn_binder *b, agg_info *A, tn_plan **child);

/* An aggregate bound into A->aggs (agg moved in; equal calls share one): *out is its column
 * over the aggregate's output (bind_expr.c). */
int tn_bind_agg_register(bind_ctx *c, tn_plan_agg *ag, tn_expr **out);
/* bind_agg_order.c: an aggregate call with ORDER BY whose result depends on the order
 * (string_agg, list, first, last, ...) and last(): the ordered aggregate of agg_ordered.c. */
bool tn_bind_is_ordered_agg(const tn_sql_expr *e, const char *name);
int tn_bind_ordered_agg(bind_ctx *c, tn_sql_expr *e, const char *name, tn_expr **out);
/* min / max / any_value of a LIST, STRUCT or MAP (compared as DuckDB orders them). */
int tn_bind_nested_minmax(bind_ctx *c, tn_sql_expr *e, const char *name, bool max, bool any, tn_expr **out);

/* The statement's name for messages: "INSERT", "MERGE", ... (bind.c). */
const char *tn_bind_stmt_name(const tn_sql_stmt *s);

/* bind_star.c: `*` / `t.*` with EXCLUDE / REPLACE / RENAME into select items (over the
 * aggregate's groups when c->agg), and a select item holding COLUMNS(...) into one item per
 * selected column. */
int tn_bind_star(tn_binder *b, bind_ctx *c, bind_scope *S, tn_sql_expr *star, sel_list *items);
int tn_bind_columns_item(tn_binder *b, bind_ctx *c, bind_scope *S, tn_sql_select_item *it, sel_list *items);

/* Errors: "binder error at line L, column C: msg" + source line + caret. Returns TN_EBIND
 * (or code). */
int tn_bind_error(tn_binder *b, tn_sql_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tn_bind_error_code(tn_binder *b, int code, tn_sql_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Adds the position (and caret) to an error raised by a callee, once. */
int tn_bind_error_at(tn_binder *b, int code, tn_sql_pos pos);
void tn_bind_set_pos(tn_sql_pos pos);

/* Scopes. */
int tn_scope_add(tn_binder *b, bind_scope *s, const char *alias, uint32_t ncols,
                 const char *const *names, const tn_type *types);
int tn_scope_merge(tn_binder *b, bind_scope *dst, const bind_scope *right);

/* bind_expr.c */
int tn_bind_expr(bind_ctx *c, tn_sql_expr *e, tn_expr **out);
/* Boolean predicate (casts as needed). */
int tn_bind_pred(bind_ctx *c, tn_sql_expr *e, tn_expr **out);
/* DuckDB's name for an expression's result column ("count_star()", "(a + 1)"). */
int tn_bind_expr_name(tn_buf *out, const tn_sql_expr *e);
/* The last part of a function call's (possibly qualified) name. */
static inline const char *tn_bind_func_name(const tn_sql_expr *e) {
    return e->u.func.name.parts[e->u.func.name.n - 1].name;
}
bool tn_bind_is_agg_name(const char *name);
/* pg_catalog.c: functions of the session resolved when bound (version(), current_user, ...). */
bool tn_pg_is_session_function(const char *name);
int tn_pg_session_function(tn_binder *b, const char *name, uint32_t nargs, tn_expr **out);
bool tn_bind_contains_agg(const tn_sql_expr *e);
bool tn_bind_contains_window(const tn_sql_expr *e);
bool tn_bind_contains_columns(const tn_sql_expr *e);      /* a COLUMNS(...) star inside */
/* bind_nested.c: [a, b] literals, struct_pack(a := x), x[i] by x's type, s.a.b field paths. */
int tn_bind_list_literal(bind_ctx *c, tn_sql_expr *e, tn_expr **out);
int tn_bind_struct_pack_named(bind_ctx *c, tn_sql_expr *e, tn_expr **out);
const char *tn_bind_subscript_function(const tn_expr *x);
int tn_bind_field_path(bind_ctx *c, tn_expr **inout, const tn_sql_ident *parts, int n, tn_sql_pos pos);
/* Fold constant sub-expressions of *e in place. */
int tn_bind_fold(tn_binder *b, tn_expr **e);
/* Bind a constant integer expression (LIMIT / OFFSET / sample sizes). */
int tn_bind_const_int(tn_binder *b, tn_sql_expr *e, const char *what, int64_t *out);
int tn_bind_const_value(tn_binder *b, tn_sql_expr *e, tn_value *out);
/* Text of a bound expression (structural identity). */
char *tn_bind_expr_text(tn_binder *b, const tn_expr *e);

/* Late columns (bind_query.c): add the decorrelation joins to *plan; add the WINDOW node;
 * rewrite marker columns of e (in place) to their placed columns; free what is left. */
int tn_bind_late_joins(tn_binder *b, late_info *L, tn_plan **plan);
int tn_bind_late_windows(tn_binder *b, late_info *L, tn_plan **plan);
void tn_bind_late_resolve(const late_info *L, tn_expr *e);
void tn_bind_late_free(late_info *L);
/* A correlated scalar subquery of the form (SELECT <aggregate expression> FROM ... WHERE
 * inner = outer AND ...) as a late LEFT JOIN on a grouped aggregate; *done false (and nothing
 * changed) when q does not have that form. */
int tn_bind_scalar_decorrelate(bind_ctx *c, tn_sql_query *q, tn_expr **out, bool *done);
/* A window function call (bind_expr.c) into c->late. */
int tn_bind_window(bind_ctx *c, tn_sql_expr *e, tn_expr **out);
bool tn_bind_contains_subquery(const tn_sql_expr *e);

/* bind_unnest.c: unnest(l) / explode(l) in the select list as a late UNNEST column (mode is a
 * tn_unnest_mode); the UNNEST node placed over *plan; the table function FROM unnest(l). */
bool tn_bind_is_unnest_name(const char *name);
int tn_bind_unnest_call(bind_ctx *c, tn_sql_expr *e, int mode, tn_expr **out);
int tn_bind_late_unnests(tn_binder *b, late_info *L, tn_plan **plan);
void tn_bind_late_unnests_free(late_info *L);
int tn_bind_unnest_table(tn_binder *b, tn_sql_tableref *t, tn_plan **out);

/* bind_query.c */
int tn_bind_query(tn_binder *b, tn_sql_query *q, bind_scope *outer, tn_plan **out);
/* Binds a subquery used in an expression; runs it when uncorrelated. */
int tn_bind_run_subquery(tn_binder *b, tn_sql_query *q, bind_scope *outer, tn_collection *out,
                         uint32_t *ncols);

/* bind.c */
int tn_bind_tableref(tn_binder *b, tn_sql_tableref *t, bind_scope *scope, bind_scope *outer,
                     tn_plan **out);
/* Wrap plan in a PROJECT of the given expressions (names copied). */
int tn_bind_project(tn_binder *b, tn_plan *child, tn_expr **exprs, const char **names,
                    uint32_t n, tn_plan **out);
/* Cast each column of plan to types[i] where it differs (adds a PROJECT). */
int tn_bind_cast_plan(tn_binder *b, tn_plan *plan, const tn_type *types, tn_plan **out);
/* Statement entry: binds and optimizes a statement into a plan (queries and EXPLAIN). */
int tn_bind_statement(tn_binder *b, tn_sql_stmt *stmt, tn_plan **out, bool *explain,
                      bool *analyze);

#endif
