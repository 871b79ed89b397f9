/*
 * sql/sql.h: the interface of the sql/ layer as front ends (cli/, api/, server/) see it: a
 * session (warehouse directory, thread pool, options), scripts (parsed text holding one or more
 * statements), execution of one statement with parameters into a result (column names and
 * types, then chunks), the statement's scan counters (--stats), and the last error's position.
 * Everything else in sql/ (AST, binder, plan, executor) is private to the layer.
 */
#ifndef TN_SQL_H
#define TN_SQL_H

#include "types/types.h"
#include "sql/ast.h"

typedef struct tn_sql_session tn_sql_session;
typedef struct tn_sql_script tn_sql_script;
typedef struct tn_sql_result tn_sql_result;

/* Scan counters of one statement: what was read against what the scanned sources hold. */
typedef struct tn_sql_stats {
    uint64_t files_scanned;
    uint64_t row_groups_scanned;
    uint64_t rows_scanned;
    uint64_t bytes_scanned;
    uint64_t table_files;
    uint64_t table_rows;
    uint64_t table_bytes;
} tn_sql_stats;

/* Opens a session on a warehouse directory (may be NULL: files only; it need not exist yet).
 * threads <= 0: tn_default_threads(). The caller closes *out with tn_sql_session_close. */
int tn_sql_session_open(tn_sql_session **out, const char *warehouse, int threads);
void tn_sql_session_close(tn_sql_session *s);                 /* NULL ok */
int tn_sql_session_threads(const tn_sql_session *s);
/* Memory limit per query in bytes (0 = none; default: 80% of physical memory). */
void tn_sql_session_set_memory_limit(tn_sql_session *s, uint64_t bytes);
/* Progress of the statement running on the session now (safe to call from another thread, e.g.
 * a shell's progress bar): rows read by its scans so far and the rows the scanned sources hold
 * (both grow as the statement opens more scans). Returns false when no statement runs. */
bool tn_sql_session_progress(tn_sql_session *s, uint64_t *done, uint64_t *total);
/* The same in bytes: Parquet bytes its scans have read (counted per finished row group) and
 * the bytes of the sources opened so far. */
bool tn_sql_session_progress_bytes(tn_sql_session *s, uint64_t *done, uint64_t *total);

/* deny = true: SQL of this session may not name files by path (read_parquet/read_csv/
 * read_json/delta_scan, COPY ... FROM/TO 'file'): TN_EUNSUPPORTED naming the function. Tables of
 * the warehouse are unaffected. The pgwire server sets it unless started with file access. */
void tn_sql_session_deny_files(tn_sql_session *s, bool deny);

/* The client of the session as PostgreSQL's catalog shows it (pg_catalog.c): the user name
 * (current_user, the owner of every object) and the database name (current_database()).
 * Copied; NULL keeps "tarn". tn_sql_session_client returns the user ("" unset) and *database. */
int tn_sql_session_set_client(tn_sql_session *s, const char *user, const char *database);
const char *tn_sql_session_client(const tn_sql_session *s, const char **database);
/* The rows of pg_catalog.pg_settings (the front end's parameters, e.g. the pgwire server's):
 * fn(ctx, i, ...) fills parameter i and returns false past the last. NULL: pg_settings empty. */
typedef bool (*tn_sql_settings_fn)(void *ctx, int i, const char **name, const char **value, const char **desc);
void tn_sql_session_set_settings(tn_sql_session *s, tn_sql_settings_fn fn, void *ctx);

/* Asks the statement running on s (if any) to stop: it fails with TN_EINTERRUPT "Interrupted"
 * at its next check (within a chunk of rows or a block of a sort; a canceled write commits
 * nothing and removes its files; a streaming result's next fetch fails the same way). Safe to
 * call from any thread and from a signal handler (one atomic store). The request is cleared
 * when the next statement starts, so an interrupt with nothing running is forgotten then. */
void tn_sql_session_interrupt(tn_sql_session *s);

/* Micro-batches (stream/ runs each batch of a continuous job through this): while a batch is
 * set on a session, the tables and file patterns its statements read go through the hooks (so a
 * job's source yields only the batch's new data), and an INSERT commits with a txn action
 * (app_id, app_version) and the extra write options, then records what it committed. NULL
 * clears it. The batch and its strings are borrowed until cleared. */
struct tn_table;
typedef struct tn_sql_batch {
    void *ctx;
    /* A table a statement reads (FROM name, delta_scan), just opened at its latest version: the
     * hook may replace *t (closing the old one) or leave it. On error *t stays the caller's. */
    int (*table)(void *ctx, struct tn_table **t);
    /* The file pattern of read_parquet/read_csv/read_json as written: *handled = true and the
     * files to read instead in *paths[0..*n) (borrowed for the statement), or handled false. */
    int (*files)(void *ctx, const char *pattern, const char *const **paths, uint32_t *n, bool *handled);
    const char *app_id;                /* txn of the INSERT's commit (NULL: none) */
    int64_t app_version;
    const char *const *write_keys;     /* per-write options added to INSERT's (its OPTIONS win) */
    const char *const *write_values;
    uint32_t nwrite;
    /* set by each INSERT: the committed version (-1 none), whether the txn was already applied
     * (nothing written), rows written */
    int64_t version;
    bool skipped;
    uint64_t rows_written;
} tn_sql_batch;
void tn_sql_session_set_batch(tn_sql_session *s, tn_sql_batch *batch);

/* Parses sql[0, len) into statements. Syntax errors: TN_ESYNTAX, message with line:column and
 * a caret (see parse.h). The script borrows the session; free it with tn_sql_script_free. */
int tn_sql_script_parse(tn_sql_script **out, tn_sql_session *s, const char *sql, size_t len);
void tn_sql_script_free(tn_sql_script *script);               /* NULL ok */
uint32_t tn_sql_script_count(const tn_sql_script *script);
const char *tn_sql_script_text(const tn_sql_script *script, uint32_t i);   /* borrowed */
/* Statement i's syntax tree (borrowed from the script; NULL past the end): front ends read its
 * kind (pgwire command tags). */
const tn_sql_stmt *tn_sql_script_stmt(const tn_sql_script *script, uint32_t i);
/* Binds and plans query i (TN_SQL_S_QUERY only) without running it: *out has the result's
 * column names and types and no rows (pgwire Describe). */
int tn_sql_script_describe(tn_sql_result **out, tn_sql_script *script, uint32_t i,
                           const tn_value *params, uint32_t nparams);
/* Highest parameter number ($n or ?) statement i uses. */
uint32_t tn_sql_script_nparams(const tn_sql_script *script, uint32_t i);

/* Binds, plans and runs statement i with parameters params[0..nparams) ($1 = params[0];
 * strings are copied). On success *out holds the whole result; the caller frees it with
 * tn_sql_result_free. Errors: the message names the problem and, for binder errors, the
 * line:column with the source line and a caret (tn_sql_error_pos). */
int tn_sql_script_execute(tn_sql_result **out, tn_sql_script *script, uint32_t i,
                          const tn_value *params, uint32_t nparams);
/* The same, but a query made only of streaming operators (scans, filters, projections,
 * LIMIT: no aggregate, sort, join, window or set operation) streams: it runs while the caller
 * reads the result, which then holds a few chunks at a time whatever the row count, in the
 * order the plan defines. It returns once the first chunk is ready (errors before the first row
 * are returned here); an error after that ends the rows: tn_sql_result_fetch returns it (the
 * message set on the calling thread) and tn_sql_result_error keeps it. The result borrows the
 * script (keep it until the result is freed). Running another statement on the session first
 * reads the rest of a result still streaming into memory. Blocking plans materialize as with
 * tn_sql_script_execute. */
int tn_sql_script_execute_stream(tn_sql_result **out, tn_sql_script *script, uint32_t i,
                                 const tn_value *params, uint32_t nparams);
/* Convenience: parse + execute every statement, keeping only the last result (NULL when the
 * text holds no statement). The _stream form streams the last statement's result (which then
 * owns the parsed text). */
int tn_sql_execute(tn_sql_result **out, tn_sql_session *s, const char *sql);
int tn_sql_execute_stream(tn_sql_result **out, tn_sql_session *s, const char *sql);

/* DuckDB's error class for a TN_E* code ("Binder Error", "Out of Range Error"), or NULL.
 * Messages leaving the session begin with "<class>: ". */
const char *tn_sql_error_class(int code);

/* COPY ... FROM STDIN / TO STDOUT (copy_stdin.c): the rows travel over a front end's stream
 * (the pgwire server). tn_sql_copy_is_stdio: whether st is such a COPY (*to: TO STDOUT). */
bool tn_sql_copy_is_stdio(const tn_sql_stmt *st, bool *to);
/* PostgreSQL's COPY options of st: format text (default), csv or binary, header, delimiter (tab / ','),
 * null string ('\N' / ''), quote and escape (csv, '"'), encoding UTF8; others refused. */
typedef struct tn_sql_copy_format {
    bool csv, header, binary;    /* binary: PostgreSQL's binary COPY format (no other option) */
    char delimiter, quote, escape;
    char null_string[64];
} tn_sql_copy_format;
int tn_sql_copy_stdio_format(const tn_sql_stmt *st, tn_sql_copy_format *out);
/* A loader of COPY t [(cols)] FROM STDIN (st, from the script whose text is sql[0, len) for
 * error carets): *nfields = fields per row. Rows go in as text fields (nulls[k]: NULL), each
 * cast to its column's type as a string literal is; errors name the line (the caller's count)
 * and the column. Nothing is visible until commit, which writes every row in one commit and
 * frees the loader; abort (also after a failed row) frees it and leaves the table as it was. */
typedef struct tn_sql_copy_in tn_sql_copy_in;
int tn_sql_copy_in_open(tn_sql_copy_in **out, tn_sql_session *s, const tn_sql_stmt *st, const char *sql, size_t len,
                        uint32_t *nfields);
int tn_sql_copy_in_row(tn_sql_copy_in *ci, const tn_str *fields, const bool *nulls, uint32_t n, int64_t line);
/* The type of the column field k fills (k < *nfields): binary COPY decodes by it. */
tn_type tn_sql_copy_in_field_type(const tn_sql_copy_in *ci, uint32_t k);
int tn_sql_copy_in_commit(tn_sql_copy_in *ci, uint64_t *rows);
void tn_sql_copy_in_abort(tn_sql_copy_in *ci);

/* Position of the last SQL error on this thread (line 0 when it had none). */
tn_sql_pos tn_sql_error_pos(void);

/* Results. Column names and types are borrowed from the result. */
uint32_t tn_sql_result_ncols(const tn_sql_result *r);
const char *tn_sql_result_name(const tn_sql_result *r, uint32_t col);
tn_type tn_sql_result_type(const tn_sql_result *r, uint32_t col);
/* Rows of the result; for a streamed one, the rows read so far (the total once at its end). */
int64_t tn_sql_result_nrows(const tn_sql_result *r);
/* Next chunk of rows in *out (borrowed from the result, valid until the next call or free;
 * NULL at the end), or a negative error of a streaming execution (message on this thread). */
int tn_sql_result_fetch(tn_sql_result *r, const tn_chunk **out);
/* The same, NULL at the end or on an error (then tn_sql_result_error says which). */
const tn_chunk *tn_sql_result_next(tn_sql_result *r);
/* 0, or the error that ended a streamed result's rows early. */
int tn_sql_result_error(const tn_sql_result *r);
/* Whether rows are still being produced (a streaming result not at its end). */
bool tn_sql_result_streaming(const tn_sql_result *r);
/* Starts over (materialized results only; a streamed result cannot go back). */
void tn_sql_result_rewind(tn_sql_result *r);
/* Whether the statement returns rows (a query or EXPLAIN) rather than a status. */
bool tn_sql_result_has_rows(const tn_sql_result *r);
/* Scan counters and time of the statement; for a streaming result they are set when its rows
 * have all been read (zero before). */
const tn_sql_stats *tn_sql_result_stats(const tn_sql_result *r);
uint64_t tn_sql_result_time_ns(const tn_sql_result *r);
void tn_sql_result_free(tn_sql_result *r);                     /* NULL ok */

#endif
