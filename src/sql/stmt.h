/*
 * sql/stmt.h: private to sql/: the table statements (stmt_ddl.c: schemas, tables, views,
 * DESCRIBE, SHOW, history, VACUUM, SET; stmt_dml.c: INSERT, INSERT OVERWRITE, DELETE, COPY,
 * CREATE TABLE AS), the binding of table names, views, time travel and delta_scan() into plan
 * sources (bind_table.c) and the morsel source over a table scan (op_table_scan.c). The session
 * (session.c), the binder (bind.c) and the executor (exec.c) reach them through these hooks.
 */
#ifndef TN_SQL_STMT_H
#define TN_SQL_STMT_H

#include "catalog/catalog.h"
#include "layout/layout.h"
#include "sql/bindInt.h"

/* What a table statement returns: named, typed columns and rows (has_rows false: a status). */
typedef struct tn_stmt_output {
    uint32_t ncols;
    const char **names;          /* statement arena */
    tn_type *types;
    tn_collection rows;          /* moved into the result by the session */
    bool has_rows;
} tn_stmt_output;

/* stmt_ddl.c: whether stmt is one of the statements below (not a query, EXPLAIN or SET). */
bool tn_stmt_is_table(const tn_sql_stmt *stmt);
/* Runs a table statement; *out is initialized here (also on error: free with
 * tn_collection_free(&out->rows)). */
int tn_stmt_table_execute(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out);
/* The session's option store, written by settings.c (tn_setting_set) with validated values of
 * registered settings only; read them through tn_setting_get (settings.h). */
int tn_stmt_set_option(tn_sql_session *s, const tn_sql_option *o);
/* A stored session option (key compared case-insensitively) or NULL. */
const char *tn_stmt_get_option(const tn_sql_session *s, const char *key);
/* Frees the table state of a session (catalog handle, options); called by session close. */
void tn_stmt_session_free(tn_sql_session *s);
/* The session's catalog, opened on first use. create = false: TN_ENOTFOUND when the warehouse
 * directory does not exist (reads never create it). */
int tn_stmt_catalog(tn_binder *b, bool create, tn_catalog **out);
/* Output helpers shared by stmt_ddl.c and stmt_dml.c. */
int tn_stmt_output_init(tn_binder *b, tn_stmt_output *o, uint32_t ncols, const char *const *names,
                        const tn_type *types);
/* A one-column BIGINT status row, e.g. ("rows_inserted", n), with has_rows false. */
int tn_stmt_output_count(tn_binder *b, tn_stmt_output *o, const char *name, int64_t n);

/* approx.c: a query with ERROR WITHIN e% AT CONFIDENCE c% (stmt->u.query->error_within > 0) on
 * a qbeast table, run as sampled rounds until every estimate meets the bound; *out as above. */
int tn_approx_execute(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out);

/* stmt_dml.c */
int tn_stmt_insert(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out);
int tn_stmt_delete(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out);
/* OPTIMIZE t [WITH (...)]: the table's layout compacts it (stmt_dml.c). */
int tn_stmt_optimize(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out);
int tn_stmt_copy(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out);
/* The text after the statement's top-level WHERE keyword (trimmed), or NULL; and a predicate
 * list as commitInfo.operationParameters.predicate holds it (JSON array; [] for NULL). Arena. */
const char *tn_stmt_where_text(tn_binder *b, const char *sql);
const char *tn_stmt_predicate_json(tn_binder *b, const char *text);

/* stmt_update.c: UPDATE; the rows a rewrite writes (layout/rewrite.c), shared with MERGE. */
int tn_stmt_update(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out);
/* stmt_merge.c: MERGE INTO. */
int tn_stmt_merge(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out);
typedef struct tn_stmt_rows {
    tn_chunk out;                      /* what the rewrite writes for one chunk */
    tn_chunk fresh;                    /* the new rows of the chunk */
    uint8_t *is_new;
    uint32_t *sel;
    bool ready;
} tn_stmt_rows;
int tn_stmt_rows_init(tn_stmt_rows *r, tn_table *t);
void tn_stmt_rows_free(tn_stmt_rows *r);
void tn_stmt_rows_reset(tn_stmt_rows *r);
int tn_stmt_rows_add(tn_stmt_rows *r, const tn_vector *const *cols, const uint32_t *sel, uint32_t n);
int tn_stmt_rows_finish(tn_stmt_rows *r, tn_layout_rewrite_pass pass, const tn_chunk *chunk,
                        tn_layout_rewrite_rows *rows);
/* A SET value for column col of t, bound over scope and cast to the column's type. */
int tn_stmt_bind_set_value(tn_binder *b, bind_scope *scope, tn_table *t, uint32_t col, tn_sql_expr *expr,
                           tn_expr **out);
/* Writes the rows of plan (already cast to the table's types and in schema order: every
 * logical column) into t with opts; the plan is freed. */
int tn_stmt_write_plan(tn_binder *b, tn_table *t, tn_plan *plan, const tn_layout_write_options *opts,
                       tn_table_commit_result *res);
/* Binds and optimizes the query of a CREATE TABLE AS / INSERT. */
int tn_stmt_bind_query(tn_binder *b, tn_sql_query *q, tn_plan **out);

/* stmt_constraints.c: a table's CHECK constraints and invariants as a row check for writes. */
typedef struct tn_stmt_checks tn_stmt_checks;
/* NULL (no error) when the table has none. label names the table in messages. */
int tn_stmt_checks_compile(tn_binder *b, tn_table *t, const char *label, tn_stmt_checks **out);
/* One expression (ADD CONSTRAINT name CHECK (expr)), bound against t's columns. */
int tn_stmt_checks_compile_one(tn_binder *b, tn_table *t, const char *label, const char *name, const char *expr,
                               tn_stmt_checks **out);
/* tn_table_check_fn: TN_ECONSTRAINT naming the constraint and the row's values. Thread-safe. */
int tn_stmt_checks_run(void *ctx, const tn_chunk *chunk);
/* Rows of t's snapshot that violate the (first) check. */
int tn_stmt_checks_count_violations(tn_stmt_checks *c, tn_table *t, uint64_t *out);
void tn_stmt_checks_free(tn_stmt_checks *c);

/* bind_table.c */
/* FROM name: a table or view of the catalog (after CTEs), with time travel; *alias gets the
 * table's name when the FROM item has no alias. */
int tn_bind_table_name(tn_binder *b, tn_sql_tableref *t, tn_plan **out, const char **alias);
/* VERSION AS OF n / TIMESTAMP AS OF '...' of a FROM item into open options. */
int tn_bind_travel_options(tn_binder *b, tn_sql_tableref *t, tn_table_open_options *o);
/* bind_system.c: FROM t$files / t$buckets / t$partitions of a catalog table t (*found false:
 * not one; the name is bound as usual). */
int tn_bind_system_table(tn_binder *b, tn_sql_tableref *t, bool *found, tn_plan **out);
/* pg_catalog.c: pg_catalog.x and information_schema.x (PostgreSQL's catalogs) as VALUES. */
int tn_bind_pg_table(tn_binder *b, tn_sql_tableref *t, bool *found, tn_plan **out);
/* FROM delta_scan('path'). */
int tn_bind_delta_scan(tn_binder *b, tn_sql_tableref *t, tn_plan **out);
/* FROM table_changes('name', start[, end]): the table's change data feed (versions as integers,
 * or timestamps as strings), with _change_type, _commit_version, _commit_timestamp. */
int tn_bind_table_changes(tn_binder *b, tn_sql_tableref *t, tn_plan **out);
/* FROM range(...) / generate_series(...) (bind_range.c). */
bool tn_bind_is_range_function(const char *name);
int tn_bind_range(tn_binder *b, tn_sql_tableref *t, tn_plan **out);
/* FROM unnest_bitmap(constant bitmap) (bind_unnest_bitmap.c). */
bool tn_bind_is_unnest_bitmap(const char *name);
int tn_bind_unnest_bitmap(tn_binder *b, tn_sql_tableref *t, tn_plan **out);
/* A scan plan over an opened table (takes ownership of t, also on error). */
int tn_bind_table_plan(tn_binder *b, tn_table *t, const char *label, tn_plan **out);
/* Parses sql (one SELECT) into the statement arena and binds it, with error carets pointing
 * into sql. what names it in errors ("view 's.v'"). */
int tn_bind_query_text(tn_binder *b, const char *sql, const char *what, tn_plan **out);
/* Opens a catalog table by its SQL name (latest snapshot). */
int tn_bind_open_table(tn_binder *b, const tn_sql_qname *name, tn_catalog_name *cn, tn_table **out);
/* The catalog name of a qualified SQL name (kind: "table", "view", "schema"). */
int tn_bind_catalog_name(tn_binder *b, const tn_sql_qname *q, const char *kind, tn_catalog_name *out);
/* Simple conjuncts `column OP constant` of pred (over the table's logical columns) as table
 * filters for skipping; *out in the statement arena. */
int tn_bind_table_filters(tn_binder *b, const tn_table *t, const tn_expr *pred,
                          tn_table_filter **out, uint32_t *n);

/* op_table_scan.c: the pipeline source of a TN_SCAN_DELTA scan node. */
int tn_op_table_scan_source(tn_exec *ex, tn_plan *node, tn_source *out);

/* exec.c: runs plan into an arbitrary sink (the INSERT writer sink). */
int tn_exec_run_sink(tn_exec *ex, tn_plan *plan, tn_sink *sink);
/* exec.c: runs plan counting its rows without keeping them (EXPLAIN ANALYZE). */
int tn_exec_run_count(tn_exec *ex, tn_plan *plan, int64_t *rows);

/* exec.c: streaming results. A plan of streaming operators only (scan, values, filter, project,
 * limit: tn_exec_streamable) runs on a producer thread while the caller reads its chunks in plan
 * order; memory stays bounded by a few chunks per worker. tn_exec_stream_start returns once the
 * first chunk is ready or the plan has ended (errors before the first row are returned here).
 * The stream borrows ex and plan until it is freed. */
typedef struct tn_exec_stream tn_exec_stream;
bool tn_exec_streamable(const tn_plan *plan);
/* A plan whose rows come out of an ORDER BY (under projections, filters and a limit): it streams
 * too (the sort runs first, then its sorted rows or, when it spilled, the merge of its runs are
 * handed over), so that a sorted result larger than memory_limit reaches the client. */
bool tn_exec_sort_rooted(const tn_plan *plan);
/* The same for a GROUP BY (its groups, or a spilled aggregate's partitions, are handed over as
 * they are finished). */
bool tn_exec_group_rooted(const tn_plan *plan);
/* A streamable (or sort-rooted: a top-N of at most TN_EXEC_SMALL_ROWS is small too) plan over
 * at most TN_EXEC_SMALL_ROWS input rows (known table row counts, VALUES,
 * integer ranges): running it at once costs less than starting the producer thread (a point
 * query over the wire), and its result is small enough to hold. */
#define TN_EXEC_SMALL_ROWS 16384
bool tn_exec_small(const tn_plan *plan);
int tn_exec_stream_start(tn_exec_stream **out, tn_exec *ex, tn_plan *plan);
/* Next chunk in *out (borrowed until the next call or free; NULL at the end), or a negative
 * error of the execution with its message set on the calling thread. */
int tn_exec_stream_next(tn_exec_stream *st, const tn_chunk **out);
/* Cancels the producer if it still runs, waits for it and frees everything (NULL ok). */
void tn_exec_stream_free(tn_exec_stream *st);
/* Takes the chunk handed out last away from the stream (so that it outlives the stream's next
 * call or free); give it back to tn_exec_stream_release (NULL ok). */
void *tn_exec_stream_keep_current(tn_exec_stream *st);
void tn_exec_stream_release(void *kept);

/* Temporary views (temp_views.c): session-scoped, never in the warehouse. schema NULL: a bare
 * name; "global_temp": a global temporary view; any other schema never names one. */
int tn_temp_view_create(tn_binder *b, const char *name, bool global, const char *sql, const char *const *columns,
                        uint32_t ncolumns, bool or_replace, bool if_not_exists, tn_sql_pos pos);
int tn_temp_view_drop(tn_binder *b, const char *schema, const char *name, bool *dropped);
int tn_temp_view_bind(tn_binder *b, const char *schema, const char *name, tn_sql_pos pos, tn_plan **out,
                      bool *found);
bool tn_temp_view_is_global_schema(const char *schema);
void tn_temp_views_free(tn_sql_session *s);

#endif
