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

/* Parses sql[0, len) into statements. Syntax errors: TN_ESYNTAX, message with line:column and
 * a caret (see parse.h). The script borrows the session; free it with tn_sql_script_free. */
int tn_sql_script_parse(tn_sql_script **out, tn_sql_session *s, const char *sql, size_t len);
void tn_sql_script_free(tn_sql_script *script);               /* NULL ok */
uint32_t tn_sql_script_count(const tn_sql_script *script);
const char *tn_sql_script_text(const tn_sql_script *script, uint32_t i);   /* borrowed */
/* Highest parameter number ($n or ?) statement i uses. */
uint32_t tn_sql_script_nparams(const tn_sql_script *script, uint32_t i);

/* Binds, plans and runs statement i with parameters params[0..nparams) ($1 = params[0];
 * strings are copied). On success *out holds the whole result; the caller frees it with
 * tn_sql_result_free. Errors: the message names the problem and, for binder errors, the
 * line:column with the source line and a caret (tn_sql_error_pos). */
int tn_sql_script_execute(tn_sql_result **out, tn_sql_script *script, uint32_t i,
                          const tn_value *params, uint32_t nparams);
/* Convenience: parse + execute every statement, keeping only the last result (NULL when the
 * text holds no statement). */
int tn_sql_execute(tn_sql_result **out, tn_sql_session *s, const char *sql);

/* Position of the last SQL error on this thread (line 0 when it had none). */
tn_sql_pos tn_sql_error_pos(void);

/* Results. Column names and types are borrowed from the result. */
uint32_t tn_sql_result_ncols(const tn_sql_result *r);
const char *tn_sql_result_name(const tn_sql_result *r, uint32_t col);
tn_type tn_sql_result_type(const tn_sql_result *r, uint32_t col);
int64_t tn_sql_result_nrows(const tn_sql_result *r);
/* Next chunk of rows (borrowed from the result, valid until the next call or free); NULL at
 * the end. tn_sql_result_rewind starts over. */
const tn_chunk *tn_sql_result_next(tn_sql_result *r);
void tn_sql_result_rewind(tn_sql_result *r);
/* Whether the statement returns rows (a query or EXPLAIN) rather than a status. */
bool tn_sql_result_has_rows(const tn_sql_result *r);
const tn_sql_stats *tn_sql_result_stats(const tn_sql_result *r);
uint64_t tn_sql_result_time_ns(const tn_sql_result *r);
void tn_sql_result_free(tn_sql_result *r);                     /* NULL ok */

#endif
