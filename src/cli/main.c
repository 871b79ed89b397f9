/*
 * cli/main.c: the `tarn` command's entry point: global options (-w, -c, -f, output format,
 * --stats, --version, --help) and dispatch to the subcommands (parquet, demo); without a
 * subcommand, to the SQL front end (cli/shell.c: -c / -f / stdin / interactive shell) when it
 * is linked in, else "SQL is not available yet" (exit 2).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tarn.h"

/* Weak: NULL when the SQL front end (cli/shell.c) is not linked in. */
#pragma weak tn_cli_shell_main

static const char usage_text[] =
    "usage: tarn [-w DIR] [-c SQL]... [-f FILE] [--csv|--json|--table] [--stats]\n"
    "       tarn parquet schema FILE\n"
    "       tarn parquet meta FILE\n"
    "       tarn parquet cat [--csv] [--columns a,b] [--limit N] FILE\n"
    "       tarn parquet copy IN OUT [--codec C] [--row-group-rows N] [--page-rows N]\n"
    "                                [--no-dictionary] [--no-page-index]\n"
    "       tarn demo [-w DIR]\n"
    "       tarn serve [-w DIR] [--host 127.0.0.1] [--port 5433] [--user U --password P] (--help)\n"
    "       tarn --version | --help\n"
    "\n"
    "  -w DIR       warehouse directory (default $TARN_WAREHOUSE, else ./warehouse)\n"
    "  -c SQL       run SQL (repeatable)\n"
    "  -f FILE      run the SQL statements in FILE\n"
    "  --csv|--json|--table   result format\n"
    "  --stats      print scan statistics (JSON) on stderr after each statement\n"
    "\n"
    "parquet copy codecs: zstd (default), snappy, gzip, lz4_raw, none\n";

int tn_cli_errorf(int code, const char *fmt, ...) {
    va_list ap;
    fputs("tarn: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

int tn_cli_fail(const char *path) {
    const char *msg = tn_error_message();
    if (msg == NULL || msg[0] == '\0') msg = tn_error_code_name(tn_error_code_last());
    if (path != NULL && strstr(msg, path) == NULL)
        fprintf(stderr, "tarn: %s: %s\n", path, msg);
    else
        fprintf(stderr, "tarn: %s\n", msg);
    return TN_CLI_ERROR;
}

static int usage_error(const char *fmt, const char *arg) {
    fputs("tarn: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    fputs(usage_text, stderr);
    return TN_CLI_USAGE;
}

int main(int argc, char **argv) {
    const char *warehouse = NULL;
    int nsql = 0;
    bool sql_file = false;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
            printf("tarn %s\n", TARN_VERSION);
            return TN_CLI_OK;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return TN_CLI_OK;
        } else if (strcmp(a, "-w") == 0 || strcmp(a, "-c") == 0 || strcmp(a, "-f") == 0) {
            if (i + 1 >= argc) return usage_error("option %s needs an argument", a);
            if (a[1] == 'w') warehouse = argv[i + 1];
            else if (a[1] == 'c') nsql++;
            else sql_file = true;
            i++;
        } else if (strcmp(a, "--csv") == 0 || strcmp(a, "--json") == 0 ||
                   strcmp(a, "--table") == 0 || strcmp(a, "--stats") == 0) {
            /* Result options: cli/shell.c reads them from argv. */
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option %s", a);
        } else {
            break;                     /* a subcommand */
        }
    }
    if (i < argc) {
        if (nsql > 0 || sql_file)
            return usage_error("%s", "-c/-f cannot be combined with a subcommand");
        if (strcmp(argv[i], "parquet") == 0) return tn_cli_parquet(argc - i, argv + i);
        if (strcmp(argv[i], "demo") == 0) return tn_cli_demo(argc - i, argv + i, warehouse);
        if (strcmp(argv[i], "serve") == 0) return tn_cli_serve(argc - i, argv + i, warehouse);
        return usage_error("unknown command '%s'", argv[i]);
    }
    if (tn_cli_shell_main != NULL) return tn_cli_shell_main(argc, argv);
    if (nsql > 0 || sql_file) return tn_cli_errorf(TN_CLI_USAGE, "SQL is not available yet");
    return usage_error("%s", "no command given (the interactive SQL shell is not available yet)");
}
