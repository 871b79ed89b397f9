/*
 * cli/shell.c: the SQL front end of the `tarn` command, in the manner of the sqlite3 and
 * duckdb shells: `tarn [OPTIONS] [DIR [SQL]]` runs -cmd commands, then -c texts and -f files in
 * order (or the SQL argument), else the interactive shell on a terminal (libedit with the
 * locale's UTF-8, history appended to ~/.tarn_history after each statement, Ctrl-C cancels the
 * running statement or clears the line), else stdin. Input is read as lines: a line starting
 * with '.' where a statement would start is a dot-command (shell_dot.c), the rest is SQL run
 * once a statement ends with ';'. Piped input and -f files go on after an error unless -bail;
 * the exit status is non-zero when anything failed. Results: shell_render.c.
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <editline/readline.h>

#include "cli/cli.h"
#include "cli/shell.h"
#include "tarn.h"

/* ---------------------------------------------------------------------------------------------
 * Ctrl-C: while a statement runs, SIGINT asks the session to stop it (tn_sql_session_interrupt
 * is one atomic store); at the prompt it ends readline() (no SA_RESTART), which the loop tells
 * from end of input by g_sigint.
 */
static tn_sql_session *volatile g_session;
static volatile sig_atomic_t g_sigint, g_running;

static void on_sigint(int sig) {
    (void)sig;
    g_sigint = 1;
    if (g_running && g_session) tn_sql_session_interrupt(g_session);
}

static void install_sigint(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;                        /* interrupt the prompt's read() */
    sigaction(SIGINT, &sa, NULL);
}

void sh_print_error(void) {
    const char *m = tn_error_message();
    if (tn_error_code_last() == TN_EINTERRUPT) {
        fprintf(stderr, "Interrupted\n");
        return;
    }
    if (!m || !*m) m = tn_error_code_name(tn_error_code_last());
    fprintf(stderr, tn_error_class_len(m) ? "%s\n" : "Error: %s\n", m);   /* "Binder Error: ..." */
}

/* ---------------------------------------------------------------------------------------------
 * Progress bar: a thread that, once a statement has run for a second, redraws one line on
 * stderr every 100 ms from the rows the statement's scans have read against the rows its
 * sources hold (known when it is planned), with those rows and the bytes read of the bytes
 * opened, and erases it when the statement ends.
 */
/* 1234, 12.3K, 4.5M, 6.0G */
static void human_count(char *buf, size_t cap, uint64_t n, const char *const *units) {
    if (n < 10000) { snprintf(buf, cap, "%llu%s", (unsigned long long)n, units[0]); return; }
    double v = (double)n;
    int u = 0;
    while (v >= 1000.0 && units[u + 1]) { v /= 1000.0; u++; }
    snprintf(buf, cap, "%.1f%s", v, units[u]);
}
typedef struct progress {
    shell *sh;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop, running, drawn;
} progress;

static void *progress_main(void *arg) {
    progress *pg = arg;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pthread_mutex_lock(&pg->mu);
    while (!pg->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000L;
        if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&pg->cv, &pg->mu, &ts);
        if (pg->stop) break;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
        uint64_t done = 0, total = 0;
        if (el < 1.0 || !tn_sql_session_progress(pg->sh->session, &done, &total) || total == 0) continue;
        int pct = done >= total ? 99 : (int)(done * 100 / total);
        enum { W = 30 };
        char bar[W + 1];
        int fill = pct * W / 100;
        for (int i = 0; i < W; i++) bar[i] = i < fill ? '=' : i == fill ? '>' : ' ';
        bar[W] = 0;
        static const char *const rows_u[] = {"", "K", "M", "G", "T", NULL};
        static const char *const bytes_u[] = {" B", " KB", " MB", " GB", " TB", NULL};
        char rd[16], rt[16], bd[16], bt[16];
        uint64_t bdone = 0, btotal = 0;
        (void)tn_sql_session_progress_bytes(pg->sh->session, &bdone, &btotal);
        human_count(rd, sizeof rd, done, rows_u);
        human_count(rt, sizeof rt, total, rows_u);
        human_count(bd, sizeof bd, bdone, bytes_u);
        human_count(bt, sizeof bt, btotal, bytes_u);
        fprintf(stderr, "\r%3d%% [%s] %s/%s rows, %s/%s %.1fs\033[K", pct, bar, rd, rt, bd, bt, el);
        fflush(stderr);
        pg->drawn = true;
    }
    pthread_mutex_unlock(&pg->mu);
    if (pg->drawn) {
        fputs("\r\033[2K", stderr);
        fflush(stderr);
    }
    return NULL;
}

static void progress_start(shell *sh, progress *pg) {
    memset(pg, 0, sizeof *pg);
    pg->sh = sh;
    if (!sh->progress) return;
    pthread_mutex_init(&pg->mu, NULL);
    pthread_cond_init(&pg->cv, NULL);
    if (pthread_create(&pg->thread, NULL, progress_main, pg) != 0) {
        pthread_mutex_destroy(&pg->mu);
        pthread_cond_destroy(&pg->cv);
        return;
    }
    pg->running = true;
}

static void progress_stop(progress *pg) {
    if (!pg->running) return;
    pthread_mutex_lock(&pg->mu);
    pg->stop = true;
    pthread_cond_signal(&pg->cv);
    pthread_mutex_unlock(&pg->mu);
    pthread_join(pg->thread, NULL);
    pthread_mutex_destroy(&pg->mu);
    pthread_cond_destroy(&pg->cv);
    pg->running = false;
}

/* Only on a terminal, never in pipes or CI logs. */
static bool progress_wanted(void) {
    const char *term = getenv("TERM"), *off = getenv("TARN_NO_PROGRESS");
    if (!isatty(STDERR_FILENO) || getenv("CI") || (off && *off && strcmp(off, "0") != 0)) return false;
    return !term || strcmp(term, "dumb") != 0;
}

/* ---------------------------------------------------------------------------------------------
 * Running SQL.
 */
void sh_reset_output(shell *sh) {
    if (sh->out != stdout) fclose(sh->out);
    sh->out = stdout;
    sh->out_once = false;
}

static double tv_s(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

/* Runs every statement of text (stops at the first that fails). */
int sh_run_sql(shell *sh, const char *text, size_t len) {
    tn_sql_script *sc = NULL;
    if (tn_sql_script_parse(&sc, sh->session, text, len)) {
        sh_print_error();
        sh->errors++;
        return SH_FAILED;
    }
    int status = SH_OK;
    for (uint32_t i = 0; i < tn_sql_script_count(sc); i++) {
        if (g_sigint && sh->interactive) {      /* Ctrl-C between two statements of the text */
            fprintf(stderr, "Interrupted\n");
            status = SH_FAILED;
            sh->errors++;
            break;
        }
        tn_sql_result *r = NULL;
        progress pg;
        struct rusage ru0, ru1;
        struct timespec t0, t1;
        getrusage(RUSAGE_SELF, &ru0);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        progress_start(sh, &pg);
        g_running = 1;
        /* streams: rows are printed while the query runs (stays bounded in memory) */
        int erc = tn_sql_script_execute_stream(&r, sc, i, NULL, 0);
        /* the bar keeps drawing while a stream prints, unless the rows go to the terminal too */
        if (erc || !tn_sql_result_streaming(r) || isatty(fileno(sh->out))) progress_stop(&pg);
        int rc = 0;
        if (!erc && tn_sql_result_has_rows(r)) rc = sh_render(sh, r);
        g_running = 0;
        progress_stop(&pg);
        fflush(sh->out);
        if (erc || rc) {
            sh_print_error();
            tn_sql_result_free(r);
            status = SH_FAILED;
            sh->errors++;
            break;
        }
        if (sh->stats) {
            const tn_sql_stats *s = tn_sql_result_stats(r);
            fprintf(stderr,
                    "{\"files_scanned\":%llu,\"row_groups_scanned\":%llu,\"rows_scanned\":%llu,"
                    "\"bytes_scanned\":%llu,\"table_files\":%llu,\"table_rows\":%llu,\"table_bytes\":%llu}\n",
                    (unsigned long long)s->files_scanned, (unsigned long long)s->row_groups_scanned,
                    (unsigned long long)s->rows_scanned, (unsigned long long)s->bytes_scanned,
                    (unsigned long long)s->table_files, (unsigned long long)s->table_rows,
                    (unsigned long long)s->table_bytes);
        }
        if (sh->timer) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            getrusage(RUSAGE_SELF, &ru1);
            double real = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
            fprintf(stderr, "Run Time (s): real %.3f user %.6f sys %.6f\n", real,
                    tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime), tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime));
        }
        tn_sql_result_free(r);
    }
    tn_sql_script_free(sc);
    if (sh->out_once) sh_reset_output(sh);
    return status;
}

/* ---------------------------------------------------------------------------------------------
 * Input as lines: dot-commands where a statement would start, SQL run once a statement ends.
 */
typedef struct feeder {
    tn_buf stmt;
    char q;                      /* inside a quoted string or identifier: its quote */
    bool block;                  /* inside a block comment */
    bool complete;               /* ends with ';' (outside quotes and comments) */
    bool force_bail;             /* -c texts stop at their first error */
} feeder;

static bool blank(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n') return false;
    return true;
}

static void scan_line(feeder *f, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (f->block) {
            if (c == '*' && i + 1 < n && s[i + 1] == '/') { f->block = false; i++; }
            continue;
        }
        if (f->q) {
            if (c == f->q) f->q = 0;
            continue;
        }
        if (c == '\'' || c == '"' || c == '`') { f->q = c; f->complete = false; continue; }
        if (c == '-' && i + 1 < n && s[i + 1] == '-') break;
        if (c == '/' && i + 1 < n && s[i + 1] == '*') { f->block = true; i++; continue; }
        if (c == ';') f->complete = true;
        else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') f->complete = false;
    }
}

static bool stop_now(shell *sh, const feeder *f, int st) {
    return st == SH_STOP || sh->quit || (st == SH_FAILED && (sh->bail || f->force_bail));
}

static int flush_stmt(shell *sh, feeder *f) {
    int st = SH_OK;
    if (f->stmt.len && !blank((const char *)f->stmt.data, f->stmt.len)) {
        if (sh->interactive) {
            tn_buf_append_byte(&f->stmt, 0);
            f->stmt.len--;
        }
        st = sh_run_sql(sh, (const char *)f->stmt.data, f->stmt.len);
    }
    tn_buf_clear(&f->stmt);
    f->q = 0;
    f->block = false;
    f->complete = false;
    return st;
}

/* One line (without its newline). Returns SH_STOP when input must end. */
static int feed_line(shell *sh, feeder *f, const char *line, size_t n) {
    bool at_start = f->stmt.len == 0 || blank((const char *)f->stmt.data, f->stmt.len);
    if (at_start) {
        size_t k = 0;
        while (k < n && (line[k] == ' ' || line[k] == '\t')) k++;
        if (k < n && line[k] == '.') {
            tn_buf_clear(&f->stmt);
            char *cmd = malloc(n - k + 1);
            if (!cmd) return SH_STOP;
            memcpy(cmd, line + k, n - k);
            cmd[n - k] = 0;
            if (sh->echo) fprintf(sh->out, "%s\n", cmd);
            int st = sh_dot_command(sh, cmd);
            free(cmd);
            if (st == SH_FAILED) sh->errors++;
            return stop_now(sh, f, st) ? SH_STOP : st;
        }
    }
    if (sh->echo && !(at_start && blank(line, n))) fprintf(sh->out, "%.*s\n", (int)n, line);
    if (f->stmt.len || !blank(line, n)) {
        tn_buf_append(&f->stmt, line, n);
        tn_buf_append_byte(&f->stmt, '\n');
    }
    scan_line(f, line, n);
    if (!f->complete || f->q || f->block) return SH_OK;
    int st = flush_stmt(sh, f);
    return stop_now(sh, f, st) ? SH_STOP : st;
}

/* Feeds text[0, len) line by line, then what is left (a last statement without ';'). */
static int feed_text(shell *sh, const char *text, size_t len, bool force_bail) {
    feeder f = {TN_BUF_INIT, 0, false, false, force_bail};
    int errors0 = sh->errors, st = SH_OK;
    size_t i = 0;
    while (i < len && st != SH_STOP) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) : len;
        st = feed_line(sh, &f, text + i, e - i);
        i = e + 1;
    }
    if (st != SH_STOP) st = flush_stmt(sh, &f);
    tn_buf_free(&f.stmt);
    if (st == SH_STOP || sh->quit) return SH_STOP;
    return sh->errors > errors0 ? SH_FAILED : SH_OK;
}

/* Reads until end of file, so pipes, /dev/stdin and process substitutions (whose size is 0)
 * are read whole. "-" is stdin. */
static int read_file(const char *path, tn_buf *out) {
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return tn_error_set(TN_EIO, "cannot open %s: %s", path, strerror(errno));
    char buf[65536];
    size_t n;
    int rc = 0;
    while (!rc && (n = fread(buf, 1, sizeof buf, f)) > 0)
        if (tn_buf_append(out, buf, n)) rc = TN_ENOMEM;
    if (!rc && ferror(f)) rc = tn_error_set(TN_EIO, "cannot read %s: %s", path, strerror(errno));
    if (f != stdin) fclose(f);
    return rc;
}

int sh_run_file(shell *sh, const char *path) {
    tn_buf b = TN_BUF_INIT;
    if (read_file(path, &b)) {
        fprintf(stderr, "Error: %s\n", tn_error_message());
        tn_buf_free(&b);
        sh->errors++;
        return sh->bail ? SH_STOP : SH_FAILED;
    }
    int st = feed_text(sh, b.data ? (const char *)b.data : "", b.len, false);
    tn_buf_free(&b);
    return st;
}

/* Standard input that is not a terminal, read line by line as it comes (a pipe may stay open
 * between statements). */
static int run_stdin(shell *sh) {
    feeder f = {TN_BUF_INIT, 0, false, false, false};
    int st = SH_OK;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (st != SH_STOP && (n = getline(&line, &cap, stdin)) >= 0) {
        if (n > 0 && line[n - 1] == '\n') n--;
        st = feed_line(sh, &f, line, (size_t)n);
    }
    if (st != SH_STOP) flush_stmt(sh, &f);
    free(line);
    tn_buf_free(&f.stmt);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * Interactive shell.
 */
static char g_hist[4096];

/* Saves the history at once, so a killed shell keeps every statement it ran: the whole
 * history (libedit's format, at most 5000 entries) to a temporary file renamed over the old
 * one, so a kill during the write leaves the previous file. */
static void remember(const char *entry) {
    add_history(entry);
    if (!g_hist[0]) return;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp-%d", g_hist, (int)getpid());
    if (write_history(tmp) == 0) {
        if (rename(tmp, g_hist) != 0) unlink(tmp);
    } else {
        unlink(tmp);
    }
}

static int interactive(shell *sh) {
    const char *home = getenv("HOME");
    const char *hf = getenv("TARN_HISTORY");
    if (hf && *hf) snprintf(g_hist, sizeof g_hist, "%s", hf);
    else if (home) snprintf(g_hist, sizeof g_hist, "%s/.tarn_history", home);
    rl_catch_signals = 0;
    using_history();
    stifle_history(5000);
    if (g_hist[0]) {
        if (access(g_hist, F_OK) != 0) write_history(g_hist);
        read_history(g_hist);
    }
    install_sigint();
    printf("tarn %s: SQL over Parquet, CSV and JSON files and Delta tables in %s.\n"
           "Enter \".help\" for usage hints.\n", TARN_VERSION, sh->warehouse);
    feeder f = {TN_BUF_INIT, 0, false, false, false};
    for (;;) {
        g_sigint = 0;
        char *line = readline(f.stmt.len ? "   ...> " : "tarn> ");
        if (!line) {
            if (g_sigint) {                     /* Ctrl-C at the prompt: drop the line */
                fputs("^C\n", stdout);
                fflush(stdout);
                tn_buf_clear(&f.stmt);
                f.q = 0; f.block = f.complete = false;
                continue;
            }
            putchar('\n');
            break;
        }
        size_t n = strlen(line);
        bool at_start = f.stmt.len == 0;
        if (at_start && line[strspn(line, " \t")] == '.') {
            remember(line + strspn(line, " \t"));
            int st = feed_line(sh, &f, line, n);
            free(line);
            if (st == SH_STOP && sh->quit) break;
            continue;
        }
        if (at_start && blank(line, n)) { free(line); continue; }
        tn_buf_append(&f.stmt, line, n);
        scan_line(&f, line, n);
        free(line);
        if (f.complete && !f.q && !f.block) {
            tn_buf_append_byte(&f.stmt, 0);
            remember((const char *)f.stmt.data);
            f.stmt.len--;
            g_sigint = 0;
            flush_stmt(sh, &f);
            if (sh->quit) break;
        } else {
            tn_buf_append_byte(&f.stmt, '\n');
        }
    }
    tn_buf_free(&f.stmt);
    return sh->errors ? 1 : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Entry.
 */
static const char *const mode_flags[] = {"table", "box", "csv", "json", "jsonlines", "line",
                                         "list", "markdown", "tabs", "ndjson", "duckbox"};

/* "-x" or "--x" equal to name. */
static bool flag_is(const char *a, const char *name) {
    if (a[0] != '-') return false;
    a += a[1] == '-' ? 2 : 1;
    return strcmp(a, name) == 0;
}

static bool takes_value(const char *a) {
    return strcmp(a, "-w") == 0 || strcmp(a, "-c") == 0 || strcmp(a, "-f") == 0 || flag_is(a, "cmd") ||
           flag_is(a, "nullvalue") || flag_is(a, "separator") || flag_is(a, "init");
}

int tn_cli_shell_main(int argc, char **argv) {
    shell sh;
    memset(&sh, 0, sizeof sh);
    sh.out = stdout;
    sh.mode = isatty(STDOUT_FILENO) ? MODE_TABLE : MODE_CSV;
    sh.headers = true;
    strcpy(sh.separator, "|");
    sh.progress = progress_wanted();
    /* UTF-8 in the line editor and for display widths; numbers stay in the C locale */
    setlocale(LC_CTYPE, "");
    if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0) setlocale(LC_CTYPE, "C.UTF-8");
    const char *warehouse = getenv("TARN_WAREHOUSE");
    if (!warehouse || !*warehouse) warehouse = "./warehouse";
    const char *dir_arg = NULL, *sql_arg = NULL;
    int nwork = 0;
    bool force_batch = false, force_interactive = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == 0) {
            if (!dir_arg) dir_arg = a;
            else if (!sql_arg) sql_arg = a;
            else return tn_cli_errorf(TN_CLI_USAGE, "too many arguments: '%s' (tarn [OPTIONS] [DIR [SQL]])", a);
            continue;
        }
        if (takes_value(a)) {
            if (i + 1 >= argc) return tn_cli_errorf(TN_CLI_USAGE, "option %s needs an argument", a);
            const char *v = argv[++i];
            if (strcmp(a, "-w") == 0) warehouse = v;
            else if (strcmp(a, "-c") == 0 || strcmp(a, "-f") == 0) nwork++;
            else if (flag_is(a, "nullvalue")) sh.nullvalue = strdup(v);
            else if (flag_is(a, "separator")) snprintf(sh.separator, sizeof sh.separator, "%s", v);
            continue;
        }
        bool known = false;
        for (size_t m = 0; m < sizeof mode_flags / sizeof mode_flags[0]; m++)
            if (flag_is(a, mode_flags[m])) { sh_mode_parse(mode_flags[m], &sh.mode); known = true; }
        if (known) continue;
        if (flag_is(a, "stats")) sh.stats = true;
        else if (flag_is(a, "header") || flag_is(a, "headers")) sh.headers = true;
        else if (flag_is(a, "noheader") || flag_is(a, "noheaders")) sh.headers = false;
        else if (flag_is(a, "bail")) sh.bail = true;
        else if (flag_is(a, "echo")) sh.echo = true;
        else if (flag_is(a, "batch")) force_batch = true;
        else if (flag_is(a, "interactive")) force_interactive = true;
        else if (flag_is(a, "timer")) sh.timer = true;
        else return tn_cli_errorf(TN_CLI_USAGE, "unknown option %s (tarn --help)", a);
    }
    if (dir_arg) warehouse = dir_arg;
    sh.warehouse = warehouse;
    if (tn_sql_session_open(&sh.session, warehouse, 0)) {
        sh_print_error();
        return 1;
    }
    g_session = sh.session;
    bool tty = (isatty(STDIN_FILENO) && !force_batch) || force_interactive;
    int st = SH_OK;
    /* -cmd and -init first, in order */
    for (int i = 1; i < argc && st != SH_STOP; i++) {
        if (takes_value(argv[i])) {
            if (flag_is(argv[i], "cmd")) st = feed_text(&sh, argv[i + 1], strlen(argv[i + 1]), sh.bail);
            else if (flag_is(argv[i], "init")) st = sh_run_file(&sh, argv[i + 1]);
            i++;
        } else if (argv[i][0] != '-' || argv[i][1] == 0) {
            /* positional */
        }
    }
    if (st == SH_STOP) {
    } else if (nwork > 0) {
        for (int i = 1; i < argc && st == SH_OK; i++) {
            if (!takes_value(argv[i])) continue;
            if (strcmp(argv[i], "-c") == 0) st = feed_text(&sh, argv[i + 1], strlen(argv[i + 1]), true);
            else if (strcmp(argv[i], "-f") == 0) st = sh_run_file(&sh, argv[i + 1]);
            i++;
        }
    } else if (sql_arg) {
        st = feed_text(&sh, sql_arg, strlen(sql_arg), true);
    } else if (tty) {
        sh.interactive = true;
        interactive(&sh);
    } else {
        run_stdin(&sh);
    }
    if (sh.out != stdout) sh_reset_output(&sh);
    g_session = NULL;
    tn_sql_session_close(sh.session);
    free(sh.nullvalue);
    return sh.errors ? 1 : 0;
}
