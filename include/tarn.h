/*
 * tarn.h: the public C API of libtarn, an embedded lakehouse engine (Parquet data + a Delta
 * Lake log in a directory, queried with SQL). This is the only public header; every other
 * header under src/ is internal. All symbols not declared here are hidden.
 *
 * Conventions: functions return 0 on success or a negative error code; the message of the last
 * error on the calling thread is tarn_last_error(). Handles are opaque.
 *
 * Status: the warehouse/SQL API (tarn_db, tarn_result, appends) arrives with the SQL engine;
 * today the library exposes its version and error reporting, and the `tarn` command exposes
 * the Parquet tools.
 */
#ifndef TARN_H
#define TARN_H

#ifdef __cplusplus
extern "C" {
#endif

#define TARN_VERSION "0.1.0"
#define TARN_API __attribute__((visibility("default")))

/* The library's version string, e.g. "0.1.0". Static storage. */
TARN_API const char *tarn_version(void);

/* The message of the last error on this thread ("" if none). Borrowed: valid until the next
 * failing call on this thread. */
TARN_API const char *tarn_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
