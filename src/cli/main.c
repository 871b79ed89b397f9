/*
 * cli/main.c: the `tarn` command's entry point: --version, --help (every option of the SQL
 * front end and the subcommands), and dispatch to the subcommands (parquet, demo, serve) or, for
 * anything else (options, a warehouse DIR, SQL), to the SQL front end (cli/shell.c), which
 * checks the options itself.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tarn.h"

/* Weak: NULL when the SQL front end (cli/shell.c) is not linked in. */
#pragma weak tn_cli_shell_main

static const char usage_text[] =
    "usage: tarn [OPTIONS] [DIR [SQL]]       SQL on the warehouse DIR (the interactive shell on a\n"
    "                                        terminal, else the SQL and dot-commands on stdin)\n"
    "       tarn parquet schema FILE         schema tree (nested too): types, repetition, levels\n"
    "       tarn parquet meta FILE           schema, row groups, leaf column chunks, codecs, stats\n"
    "       tarn parquet cat [--csv] [--columns a,b] [--limit N] FILE\n"
    "       tarn parquet copy IN OUT [--codec C] [--row-group-rows N] [--page-rows N]\n"
    "                                [--no-dictionary] [--no-page-index]\n"
    "       tarn demo [-w DIR]               copy, load and query a flights dataset\n"
    "       tarn serve [-w DIR] [--host 127.0.0.1] [--port 5433] [--user U --password P] (--help)\n"
    "       tarn job start|stop|cancel|status|list|drop ... (tarn job --help)   continuous jobs\n"
    "       tarn --version | --help\n"
    "\n"
    "SQL options (one or two leading dashes):\n"
    "  -w DIR           warehouse directory (also the DIR argument; default $TARN_WAREHOUSE,\n"
    "                   else ./warehouse)\n"
    "  -c SQL           run SQL and dot-commands, stop at the first error (repeatable)\n"
    "  -f FILE          run the SQL and dot-commands of FILE (- or /dev/stdin: standard input)\n"
    "  -cmd COMMAND     run COMMAND (SQL or a dot-command) before the rest (repeatable)\n"
    "  -init FILE       run FILE before the rest\n"
    "  -csv -json -jsonlines -table -box -line -list -markdown -tabs   output mode\n"
    "                   (default: table on a terminal, else csv)\n"
    "  -header -noheader  column names on or off (default on)\n"
    "  -nullvalue TEXT  how NULL is printed;  -separator SEP  list mode's separator\n"
    "  -bail            stop at the first error (piped input and -f files go on by default)\n"
    "  -echo            print each statement before running it\n"
    "  -timer           print the time of each statement on stderr\n"
    "  -stats           scan statistics (JSON) on stderr after each statement\n"
    "  -batch | -interactive   read stdin as a script / force the interactive shell\n"
    "The exit status is 1 when any statement or command failed, 2 for a usage error.\n"
    "In the shell, .help lists the dot-commands; Ctrl-C cancels the running statement.\n"
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

/* SIGINT/SIGTERM/SIGHUP: remove the temp files of outputs being written (COPY TO, parquet
 * copy), then die of the signal as before. */
static void on_fatal_signal(int sig) {
    tn_fs_temp_unlink_tracked();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Options of the SQL front end that take a value (skipped when looking for a subcommand). */
static bool sql_option_with_value(const char *a) {
    if (a[0] != '-') return false;
    const char *n = a + (a[1] == '-' ? 2 : 1);
    return !strcmp(a, "-w") || !strcmp(a, "-c") || !strcmp(a, "-f") || !strcmp(n, "cmd") ||
           !strcmp(n, "init") || !strcmp(n, "nullvalue") || !strcmp(n, "separator");
}

int main(int argc, char **argv) {
    signal(SIGINT, on_fatal_signal);
    signal(SIGTERM, on_fatal_signal);
    signal(SIGHUP, on_fatal_signal);
    const char *warehouse = NULL;
    int i = 1;
    bool sql_opts = false;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0 || strcmp(a, "-version") == 0) {
            printf("tarn %s\n", TARN_VERSION);
            return TN_CLI_OK;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0) {
            fputs(usage_text, stdout);
            return TN_CLI_OK;
        } else if (sql_option_with_value(a)) {
            if (i + 1 >= argc) return usage_error("option %s needs an argument", a);
            if (strcmp(a, "-w") == 0) warehouse = argv[i + 1];
            else sql_opts = true;
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            sql_opts = true;           /* checked by cli/shell.c */
        } else {
            break;                     /* a subcommand, or the warehouse DIR */
        }
    }
    if (i < argc && (strcmp(argv[i], "parquet") == 0 || strcmp(argv[i], "demo") == 0 ||
                     strcmp(argv[i], "serve") == 0 || strcmp(argv[i], "job") == 0)) {
        if (sql_opts) return usage_error("%s", "SQL options cannot be combined with a subcommand");
        if (strcmp(argv[i], "parquet") == 0) return tn_cli_parquet(argc - i, argv + i);
        if (strcmp(argv[i], "serve") == 0) return tn_cli_serve(argc - i, argv + i, warehouse);
        if (strcmp(argv[i], "job") == 0) return tn_cli_job(argc - i, argv + i, warehouse);
        return tn_cli_demo(argc - i, argv + i, warehouse);
    }
    if (tn_cli_shell_main != NULL) return tn_cli_shell_main(argc, argv);
    return usage_error("%s", "the SQL front end is not available in this build");
}
