/*
 * tarn.h: the public C API of libtarn, an embedded lakehouse engine (Parquet data + a Delta
 * Lake log in a directory, queried with SQL). This is the only public header; every other
 * header under src/ is internal. All symbols not declared here are hidden.
 *
 * Conventions: functions return 0 on success or a negative error code; the message of the last
 * error on the calling thread is tarn_last_error(). Handles are opaque. Output parameters come
 * last and are owned by the caller unless the comment says "borrowed".
 *
 * A session: tarn_open() a warehouse, tarn_prepare() a statement (bind parameters with
 * tarn_bind_*), tarn_execute() it into a tarn_result, walk the result chunk by chunk
 * (tarn_result_next_chunk) reading typed columns (tarn_result_column), free the result,
 * tarn_finalize() the statement, tarn_close() the warehouse. tarn_query() runs a text of one or
 * more statements directly. One tarn_db may be used by one thread at a time; results and
 * statements belong to the thread that uses their tarn_db (tarn_interrupt excepted).
 *
 * Streaming: a query made only of scans, filters, projections and LIMIT (no aggregate, ORDER
 * BY, join, window function, DISTINCT or set operation) is not materialized: tarn_execute /
 * tarn_query return once its first chunk is ready and the rest is produced while the caller
 * reads it, holding a few chunks in memory whatever the row count, in the plan's row order.
 * A query whose last step is ORDER BY (under projections and LIMIT) streams its sorted rows the
 * same way once the sort is done (a sort past memory_limit spills and streams its merge).
 * Other queries compute their whole result before tarn_execute returns. Consequences:
 *   - an error that happens after the first chunk (a corrupt page further in a file, a failed
 *     cast in a later row) is reported by tarn_result_next_chunk: it returns 0 as at the end,
 *     and tarn_result_error() then returns the negative code (the message is
 *     tarn_last_error()). Check tarn_result_error() after the loop. The chunks read before
 *     the error are a prefix of the result (with several threads, a failure in a later part
 *     of the input may end the rows before the part that precedes it is complete).
 *   - tarn_result_row_count() counts the rows read so far until the end is reached.
 *   - running another statement on the same tarn_db while a result still streams first reads
 *     the rest of that result into memory (it stays valid and readable).
 */
#ifndef TARN_H
#define TARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TARN_VERSION "0.1.0"
#define TARN_API __attribute__((visibility("default")))

/* The library's version string, e.g. "0.1.0". Static storage. */
TARN_API const char *tarn_version(void);

/* The message of the last error on this thread ("" if none). Borrowed: valid until the next
 * failing call on this thread. SQL errors name the line and column and show a caret. */
TARN_API const char *tarn_last_error(void);

/* Error codes (negative). */
enum {
    TARN_OK = 0,
    TARN_ENOMEM = -1,
    TARN_EIO = -2,
    TARN_EINVAL = -3,
    TARN_ECORRUPT = -4,
    TARN_EUNSUPPORTED = -5,
    TARN_ENOTFOUND = -6,
    TARN_EEXISTS = -7,
    TARN_ESYNTAX = -8,
    TARN_EBIND = -9,
    TARN_ECONFLICT = -10,
    TARN_ELIMIT = -11,
    TARN_ECONSTRAINT = -12,  /* NOT NULL violated */
    TARN_EINTERNAL = -13,
    TARN_ECHECKSUM = -14,
    TARN_EINTERRUPT = -15,   /* the statement was canceled by tarn_interrupt ("Interrupted") */
};

/* Column types of results (the logical types of tarn). */
typedef enum tarn_type {
    TARN_TYPE_NULL = 0,
    TARN_TYPE_BOOLEAN,      /* uint8_t 0/1 */
    TARN_TYPE_TINYINT,      /* int8_t */
    TARN_TYPE_SMALLINT,     /* int16_t */
    TARN_TYPE_INTEGER,      /* int32_t */
    TARN_TYPE_BIGINT,       /* int64_t */
    TARN_TYPE_FLOAT,        /* float */
    TARN_TYPE_DOUBLE,       /* double */
    TARN_TYPE_DECIMAL,      /* int64_t (precision <= 18) or __int128 unscaled values */
    TARN_TYPE_VARCHAR,      /* tarn_string (UTF-8) */
    TARN_TYPE_VARBINARY,    /* tarn_string (bytes) */
    TARN_TYPE_DATE,         /* int32_t days since 1970-01-01 */
    TARN_TYPE_TIMESTAMP,    /* int64_t microseconds since the epoch, no zone */
    TARN_TYPE_TIMESTAMP_TZ, /* int64_t microseconds since the epoch, UTC */
} tarn_type;

typedef struct tarn_string {
    const char *ptr;        /* not NUL-terminated */
    uint32_t len;
} tarn_string;

/* One column of the current chunk of a result. Everything is borrowed from the result and
 * valid until the next tarn_result_next_chunk / tarn_result_free. */
typedef struct tarn_column {
    tarn_type type;
    int precision, scale;   /* DECIMAL */
    uint32_t rows;
    const void *data;       /* rows values, laid out as tarn_type says */
    const uint64_t *validity; /* NULL: no NULLs; else bit (i % 64) of word i / 64 is 1 when valid */
} tarn_column;

typedef struct tarn_db tarn_db;
typedef struct tarn_stmt tarn_stmt;
typedef struct tarn_result tarn_result;

/* Opens the warehouse directory `path` (NULL: $TARN_WAREHOUSE, else ./warehouse). It need not
 * exist until tables are written. The caller closes *out with tarn_close. */
TARN_API int tarn_open(const char *path, tarn_db **out);
/* Closes the warehouse (NULL ok). Statements and results of it must be freed first. */
TARN_API void tarn_close(tarn_db *db);

/* Cancels the statement running on db: it stops at its next check (within a few milliseconds:
 * scans, joins, sorts, aggregations and writes all poll for it) and its call (tarn_query,
 * tarn_execute, or tarn_result_next_chunk of a streaming result) fails with TARN_EINTERRUPT,
 * message "Interrupted". A canceled write commits nothing and removes the files it wrote. The
 * one call that may be made from any thread while another uses db, and from a signal handler
 * (it is one atomic store). The request is forgotten when the next statement starts, so calling
 * it while nothing runs has no effect on later statements. */
TARN_API void tarn_interrupt(tarn_db *db);

/* Runs every statement of sql; *out (may be NULL: results discarded) receives the last
 * statement's result, owned by the caller (tarn_result_free). A text without a statement
 * (empty, blanks, comments) succeeds with a result of no columns and no rows. */
TARN_API int tarn_query(tarn_db *db, const char *sql, tarn_result **out);

/* Prepares one statement (the first of sql; more is an error). Parameters are `?` or `$n`.
 * The caller frees *out with tarn_finalize (results of it may outlive that call: the statement
 * is released with its last result); the statement borrows db. */
TARN_API int tarn_prepare(tarn_db *db, const char *sql, tarn_stmt **out);
TARN_API void tarn_finalize(tarn_stmt *stmt);              /* NULL ok */
TARN_API int tarn_stmt_param_count(const tarn_stmt *stmt);
/* Bind parameter `index` (1-based). Values are copied. Unbound parameters are NULL. */
TARN_API int tarn_bind_null(tarn_stmt *stmt, int index);
TARN_API int tarn_bind_bool(tarn_stmt *stmt, int index, bool value);
TARN_API int tarn_bind_int64(tarn_stmt *stmt, int index, int64_t value);
TARN_API int tarn_bind_double(tarn_stmt *stmt, int index, double value);
TARN_API int tarn_bind_text(tarn_stmt *stmt, int index, const char *text, size_t len);
/* Runs the statement with the bound parameters (may be run again). The caller frees *out
 * with tarn_result_free. */
TARN_API int tarn_execute(tarn_stmt *stmt, tarn_result **out);

/* Results: the column names and types, then chunks of rows. Names are borrowed. */
TARN_API uint32_t tarn_result_column_count(const tarn_result *r);
TARN_API const char *tarn_result_column_name(const tarn_result *r, uint32_t col);
TARN_API tarn_type tarn_result_column_type(const tarn_result *r, uint32_t col);
/* Rows of the result; for a streaming one, the rows read so far (the total at the end). */
TARN_API int64_t tarn_result_row_count(const tarn_result *r);
/* Moves to the next chunk; returns its number of rows, 0 at the end or when the execution
 * failed after the first chunk (then tarn_result_error() < 0 and tarn_last_error() says why;
 * the rows read before the error were correct, the remaining ones never come). */
TARN_API uint32_t tarn_result_next_chunk(tarn_result *r);
/* 0, or the negative error code that ended the result's rows early (see "Streaming"). */
TARN_API int tarn_result_error(const tarn_result *r);
/* Column col of the current chunk (after tarn_result_next_chunk returned > 0). */
TARN_API int tarn_result_column(const tarn_result *r, uint32_t col, tarn_column *out);
/* Text of one value of the current chunk as DuckDB spells it (NULL: returns 1 and writes "").
 * Writes at most cap bytes including the NUL; returns 0, 1, or a negative error. */
TARN_API int tarn_result_value_text(const tarn_result *r, uint32_t col, uint32_t row, char *buf,
                                    size_t cap);
/* Scan counters of the statement: files/row groups/rows/bytes read, and what the scanned
 * sources hold. For a streaming result they are final once tarn_result_next_chunk returned 0. */
typedef struct tarn_stats {
    uint64_t files_scanned, row_groups_scanned, rows_scanned, bytes_scanned;
    uint64_t table_files, table_rows, table_bytes;
} tarn_stats;
TARN_API void tarn_result_stats(const tarn_result *r, tarn_stats *out);
TARN_API void tarn_result_free(tarn_result *r);             /* NULL ok */

#ifdef __cplusplus
}
#endif
#endif
