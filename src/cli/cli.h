/*
 * cli/cli.h: private to the `tarn` command (src/cli/): the subcommand entry points that main.c
 * dispatches to, and the small helpers they share (error printing, CSV output, the Parquet
 * copy loop used by `parquet copy` and `demo`). Not part of libtarn.
 */
#ifndef TN_CLI_H
#define TN_CLI_H

#include <stdio.h>

#include "parquet/parquet.h"

/* Exit codes of the command. */
enum { TN_CLI_OK = 0, TN_CLI_ERROR = 1, TN_CLI_USAGE = 2 };

/* The SQL front end (cli/shell.c): argv is the command's whole argv (global options only, no
 * subcommand). main.c references it weakly, so the command links with or without shell.c. */
int tn_cli_shell_main(int argc, char **argv);
/* `tarn parquet ...`: argv[0] is "parquet". Returns the exit code. */
int tn_cli_parquet(int argc, char **argv);
/* `tarn demo [-w DIR]`: argv[0] is "demo"; warehouse is the -w given before "demo" (or NULL). */
int tn_cli_demo(int argc, char **argv, const char *warehouse);
/* `tarn serve [...]` (serve_cmd.c): argv[0] is "serve"; the PostgreSQL wire-protocol server. */
int tn_cli_serve(int argc, char **argv, const char *warehouse);
/* `tarn job ...` (job_cmd.c): argv[0] is "job"; continuous jobs. */
int tn_cli_job(int argc, char **argv, const char *warehouse);

/* Prints "tarn: <tarn's current error message>" to stderr, naming `path` first when the message
 * does not already mention it. Returns TN_CLI_ERROR. */
int tn_cli_fail(const char *path);
/* Prints "tarn: <fmt...>" to stderr; returns `code`. */
int tn_cli_errorf(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends one CSV field (RFC 4180): quoted when it is empty or holds , " CR or LF. */
int tn_cli_csv_field(tn_buf *out, const char *s, size_t n);

/* Streams every row of `in` into a new Parquet file at out_path with the same schema (names,
 * types, nullability, field ids) and key-value metadata. The file is written under a temporary
 * name next to out_path and renamed over it at the end, so a failed copy leaves the previous
 * out_path untouched. */
typedef struct tn_cli_copy_result {
    int64_t rows;
    uint64_t bytes_out;
} tn_cli_copy_result;
int tn_cli_copy_parquet(tn_parquet_file *in, const char *out_path,
                        const tn_parquet_writer_options *wopts, tn_cli_copy_result *out);

/* Writes the tmp file then renames it over `path`: helpers for idempotent outputs. */
char *tn_cli_tmp_name(const char *path);          /* tn_fs_temp_name: "<dir>/.<base>.tarn-tmp-<pid>-<n>"; caller frees */

/* Prints the schema lines of `tarn parquet schema` (columns, then rows / row groups). */
void tn_cli_print_schema(FILE *out, const tn_parquet_file *file);

#endif
