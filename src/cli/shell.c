/*
 * cli/shell.c: the SQL front end of the `tarn` command: `tarn [-w DIR] [-c SQL]... [-f FILE]
 * [--csv|--json|--table] [--stats]`. Runs -c texts and -f files in order (or stdin when it is
 * not a terminal), else the interactive shell (libedit line editing, ~/.tarn_history,
 * dot-commands). Prints results as a table, CSV (RFC 4180, DuckDB's value spelling) or JSON;
 * CSV and JSON rows of a streaming query are written while it runs (bounded memory). Errors go
 * to stderr (also one that ends a stream after rows were printed) and make the exit status
 * non-zero. Uses only sql/sql.h of libtarn.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <editline/readline.h>

#include "cli/cli.h"
#include "sql/sql.h"
#include "text/text.h"


typedef enum { MODE_TABLE, MODE_CSV, MODE_JSON } out_mode;

typedef struct shell {
    tn_sql_session *session;
    out_mode mode;
    bool stats;
    bool timer;
    bool interactive;
    bool progress;               /* progress bar on stderr (a terminal only) */
    FILE *out;
} shell;

/* ---------------------------------------------------------------------------------------------
 * Output.
 */
static bool is_numeric_type(tn_type t) { return tn_type_is_numeric(t); }

/* A cell's text as DuckDB's shell prints it: tn_value_format (the ::VARCHAR spelling), except
 * that a NaN prints as "nan" whatever its sign bit ("-nan" is only CAST's spelling). */
static int format_cell(tn_buf *cell, const tn_vector *v, uint32_t i) {
    int f = tn_value_format(cell, v, i);
    if (f >= 0 && (v->type.id == TN_TYPE_DOUBLE || v->type.id == TN_TYPE_FLOAT) && cell->len == 4 &&
        memcmp(cell->data, "-nan", 4) == 0) {
        memmove(cell->data, cell->data + 1, 3);
        cell->len = 3;
        cell->data[3] = 0;
    }
    return f;
}

static int print_csv(shell *sh, tn_sql_result *r) {
    tn_buf b = TN_BUF_INIT;
    uint32_t nc = tn_sql_result_ncols(r);
    int rc = 0;
    for (uint32_t c = 0; c < nc && !rc; c++) {
        const char *n = tn_sql_result_name(r, c);
        if (c) rc = tn_buf_append_byte(&b, ',');
        if (!rc) rc = tn_csv_append_field(&b, n, strlen(n), ',', '"');
    }
    if (!rc) rc = tn_buf_append_byte(&b, '\n');
    tn_buf cell = TN_BUF_INIT;
    const tn_chunk *ch = NULL;
    while (!rc && !(rc = tn_sql_result_fetch(r, &ch)) && ch) {
        for (uint32_t i = 0; i < ch->count && !rc; i++) {
            for (uint32_t c = 0; c < nc && !rc; c++) {
                if (c) rc = tn_buf_append_byte(&b, ',');
                const tn_vector *v = &ch->cols[c];
                if (v->type.id == TN_TYPE_NULL || !tn_vector_is_valid(v, i)) continue;
                tn_buf_clear(&cell);
                int f = format_cell(&cell, v, i);
                if (f < 0) { rc = f; break; }
                rc = tn_csv_append_field(&b, cell.data ? (const char *)cell.data : "", cell.len, ',', '"');
            }
            if (!rc) rc = tn_buf_append_byte(&b, '\n');
            if (!rc && b.len > (1 << 16)) {
                fwrite(b.data, 1, b.len, sh->out);
                tn_buf_clear(&b);
            }
        }
    }
    if (b.len) fwrite(b.data, 1, b.len, sh->out);   /* the rows before an error too */
    tn_buf_free(&cell);
    tn_buf_free(&b);
    return rc;
}

static int print_json(shell *sh, tn_sql_result *r) {
    tn_buf b = TN_BUF_INIT, cell = TN_BUF_INIT;
    uint32_t nc = tn_sql_result_ncols(r);
    int rc = tn_buf_append_byte(&b, '[');
    bool first = true;
    const tn_chunk *ch = NULL;
    while (!rc && !(rc = tn_sql_result_fetch(r, &ch)) && ch) {
        for (uint32_t i = 0; i < ch->count && !rc; i++) {
            rc = tn_buf_printf(&b, "%s{", first ? "" : ",\n");
            first = false;
            for (uint32_t c = 0; c < nc && !rc; c++) {
                const char *n = tn_sql_result_name(r, c);
                if (c) rc = tn_buf_append_byte(&b, ',');
                if (!rc) rc = tn_json_append_string(&b, n, strlen(n));
                if (!rc) rc = tn_buf_append_byte(&b, ':');
                const tn_vector *v = &ch->cols[c];
                if (rc) break;
                if (v->type.id == TN_TYPE_NULL || !tn_vector_is_valid(v, i)) {
                    rc = tn_buf_printf(&b, "null");
                    continue;
                }
                tn_buf_clear(&cell);
                int f = format_cell(&cell, v, i);
                if (f < 0) { rc = f; break; }
                const char *s = cell.data ? (const char *)cell.data : "";
                /* JSON has no NaN or infinity: those print as the strings "nan", "inf", "-inf" */
                bool bare = v->type.id == TN_TYPE_BOOLEAN ||
                            (is_numeric_type(v->type) && !(cell.len == 3 && (!memcmp(s, "nan", 3) || !memcmp(s, "inf", 3))) &&
                             !(cell.len == 4 && !memcmp(s, "-inf", 4)));
                rc = bare ? tn_buf_append(&b, s, cell.len) : tn_json_append_string(&b, s, cell.len);
            }
            if (!rc) rc = tn_buf_append_byte(&b, '}');
            if (!rc && b.len > (1 << 16)) {
                fwrite(b.data, 1, b.len, sh->out);
                tn_buf_clear(&b);
            }
        }
    }
    if (!rc) rc = tn_buf_printf(&b, "]\n");
    if (b.len) fwrite(b.data, 1, b.len, sh->out);
    tn_buf_free(&cell);
    tn_buf_free(&b);
    return rc;
}

/* Display width of UTF-8 text (code points). */
static size_t utf8_width(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) w++;
    return w;
}

#define MAX_CELL 48
#define MAX_TABLE_ROWS 10000

/* Reads every row (a streaming result too: the first MAX_TABLE_ROWS are kept for display, the
 * rest only counted), then prints. */
static int print_table(shell *sh, tn_sql_result *r) {
    uint32_t nc = tn_sql_result_ncols(r);
    int64_t nrows = 0, shown = 0;
    size_t *w = calloc(nc + 1, sizeof *w);
    char **cells = calloc((size_t)MAX_TABLE_ROWS * nc + 1, sizeof *cells);
    if (!w || !cells) { free(w); free(cells); return TN_ENOMEM; }
    tn_buf cell = TN_BUF_INIT;
    char tb[64];
    for (uint32_t c = 0; c < nc; c++) {
        const char *n = tn_sql_result_name(r, c);
        w[c] = utf8_width(n, strlen(n));
        size_t tw = strlen(tn_type_format(tn_sql_result_type(r, c), tb, sizeof tb));
        if (tw > w[c]) w[c] = tw;
    }
    int64_t row = 0;
    const tn_chunk *ch = NULL;
    int rc = 0;
    while (!rc && !(rc = tn_sql_result_fetch(r, &ch)) && ch) {
        nrows += ch->count;
        for (uint32_t i = 0; i < ch->count && row < MAX_TABLE_ROWS && !rc; i++, row++) {
            for (uint32_t c = 0; c < nc; c++) {
                const tn_vector *v = &ch->cols[c];
                tn_buf_clear(&cell);
                if (v->type.id == TN_TYPE_NULL || !tn_vector_is_valid(v, i)) tn_buf_printf(&cell, "NULL");
                else if (format_cell(&cell, v, i) < 0) { rc = TN_ENOMEM; break; }
                size_t len = cell.len;
                char *s = malloc(len + 4);
                if (!s) { rc = TN_ENOMEM; break; }
                if (len) memcpy(s, cell.data, len);
                s[len] = 0;
                for (size_t k = 0; k < len; k++)
                    if (s[k] == '\n' || s[k] == '\r' || s[k] == '\t') s[k] = ' ';
                if (utf8_width(s, len) > MAX_CELL) {
                    size_t cut = 0, cw = 0;
                    while (cut < len && cw < MAX_CELL - 1) {
                        cut++;
                        while (cut < len && ((unsigned char)s[cut] & 0xC0) == 0x80) cut++;
                        cw++;
                    }
                    memcpy(s + cut, "\xe2\x80\xa6", 3);
                    s[cut + 3] = 0;
                }
                cells[row * nc + c] = s;
                size_t cw = utf8_width(s, strlen(s));
                if (cw > w[c]) w[c] = cw;
            }
        }
    }
    shown = row;
    tn_buf_free(&cell);
    if (!rc) {
        FILE *o = sh->out;
        #define RULE() do { for (uint32_t c = 0; c < nc; c++) { fputc('+', o); for (size_t k = 0; k < w[c] + 2; k++) fputc('-', o); } fputs("+\n", o); } while (0)
        RULE();
        for (uint32_t c = 0; c < nc; c++) {
            const char *n = tn_sql_result_name(r, c);
            fprintf(o, "| %s%*s ", n, (int)(w[c] - utf8_width(n, strlen(n))), "");
        }
        fputs("|\n", o);
        for (uint32_t c = 0; c < nc; c++) {
            const char *t = tn_type_format(tn_sql_result_type(r, c), tb, sizeof tb);
            fprintf(o, "| %s%*s ", t, (int)(w[c] - strlen(t)), "");
        }
        fputs("|\n", o);
        RULE();
        for (int64_t i = 0; i < shown; i++) {
            for (uint32_t c = 0; c < nc; c++) {
                const char *s = cells[i * nc + c] ? cells[i * nc + c] : "";
                int pad = (int)(w[c] - utf8_width(s, strlen(s)));
                if (is_numeric_type(tn_sql_result_type(r, c))) fprintf(o, "| %*s%s ", pad, "", s);
                else fprintf(o, "| %s%*s ", s, pad, "");
            }
            fputs("|\n", o);
        }
        RULE();
        #undef RULE
        fprintf(o, "%lld row%s", (long long)nrows, nrows == 1 ? "" : "s");
        if (shown < nrows) fprintf(o, " (%lld shown)", (long long)shown);
        fputc('\n', o);
    }
    for (int64_t i = 0; i < (int64_t)MAX_TABLE_ROWS * nc; i++) free(cells[i]);
    free(cells);
    free(w);
    return rc;
}

static void print_stats(const tn_sql_result *r) {
    const tn_sql_stats *s = tn_sql_result_stats(r);
    fprintf(stderr,
            "{\"files_scanned\":%llu,\"row_groups_scanned\":%llu,\"rows_scanned\":%llu,"
            "\"bytes_scanned\":%llu,\"table_files\":%llu,\"table_rows\":%llu,\"table_bytes\":%llu}\n",
            (unsigned long long)s->files_scanned, (unsigned long long)s->row_groups_scanned,
            (unsigned long long)s->rows_scanned, (unsigned long long)s->bytes_scanned,
            (unsigned long long)s->table_files, (unsigned long long)s->table_rows,
            (unsigned long long)s->table_bytes);
}

static void print_error(void) {
    const char *m = tn_error_message();
    if (!m || !*m) m = tn_error_code_name(tn_error_code_last());
    fprintf(stderr, "Error: %s\n", m);
}

/* ---------------------------------------------------------------------------------------------
 * Progress bar: a thread that, once a statement has run for a second, redraws one line on
 * stderr every 100 ms from the session's scan counters, and erases it when the statement ends.
 */
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
        enum { W = 40 };
        char bar[W + 1];
        int fill = pct * W / 100;
        for (int i = 0; i < W; i++) bar[i] = i < fill ? '=' : i == fill ? '>' : ' ';
        bar[W] = 0;
        fprintf(stderr, "\r%3d%% [%s] %.1fs", pct, bar, el);
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

/* Runs every statement of text; returns 0 or 1 (an error was printed). */
static int run_text(shell *sh, const char *text, size_t len) {
    tn_sql_script *sc = NULL;
    if (tn_sql_script_parse(&sc, sh->session, text, len)) {
        print_error();
        return 1;
    }
    int status = 0;
    for (uint32_t i = 0; i < tn_sql_script_count(sc); i++) {
        tn_sql_result *r = NULL;
        progress pg;
        progress_start(sh, &pg);
        /* streams: rows are printed while the query runs (stays bounded in memory) */
        int erc = tn_sql_script_execute_stream(&r, sc, i, NULL, 0);
        /* the bar keeps drawing while a stream prints, unless the rows go to the terminal too */
        if (erc || !tn_sql_result_streaming(r) || isatty(fileno(sh->out))) progress_stop(&pg);
        if (erc) {
            print_error();
            status = 1;
            break;
        }
        int rc = 0;
        if (tn_sql_result_has_rows(r)) {
            if (sh->mode == MODE_CSV) rc = print_csv(sh, r);
            else if (sh->mode == MODE_JSON) rc = print_json(sh, r);
            else rc = print_table(sh, r);
        }
        progress_stop(&pg);
        fflush(sh->out);
        if (sh->stats) print_stats(r);
        if (sh->timer) fprintf(stderr, "Run Time: %.3f s\n", (double)tn_sql_result_time_ns(r) / 1e9);
        tn_sql_result_free(r);
        if (rc) {
            print_error();
            status = 1;
            break;
        }
    }
    tn_sql_script_free(sc);
    return status;
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

static int run_file(shell *sh, const char *path) {
    tn_buf b = TN_BUF_INIT;
    if (read_file(path, &b)) {
        fprintf(stderr, "Error: %s\n", tn_error_message());
        tn_buf_free(&b);
        return 1;
    }
    int st = run_text(sh, b.data ? (const char *)b.data : "", b.len);
    tn_buf_free(&b);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * Interactive shell.
 */
static const char help_text[] =
    ".help              this text\n"
    ".mode table|csv|json   result format\n"
    ".timer on|off      print the time of each statement\n"
    ".stats on|off      print scan statistics (JSON) after each statement\n"
    ".tables            list the tables and views of every schema (schema, name, kind)\n"
    ".schema [TABLE]    show table definitions\n"
    ".read FILE         run the SQL in FILE\n"
    ".progress on|off   progress bar on stderr for statements over a second (a terminal only)\n"
    ".quit              leave (also .exit, Ctrl-D)\n"
    "SQL statements end with ';'. Files: SELECT * FROM read_parquet('f.parquet');\n";


/* .schema [TABLE]: DESCRIBE the table, or every table SHOW TABLES lists. */
static void show_schema(shell *sh, const char *table) {
    char sql[600];
    if (table) {
        snprintf(sql, sizeof sql, "DESCRIBE %s", table);
        run_text(sh, sql, strlen(sql));
        return;
    }
    tn_sql_result *r = NULL;
    if (tn_sql_execute(&r, sh->session, "SHOW ALL TABLES")) {
        print_error();
        return;
    }
    const tn_chunk *ch;
    tn_buf name = TN_BUF_INIT;
    /* SHOW TABLES: the qualified name is (schema, name) when it has two columns */
    uint32_t nc = tn_sql_result_ncols(r);
    while ((ch = tn_sql_result_next(r)) != NULL)
        for (uint32_t i = 0; i < ch->count; i++) {
            tn_buf_clear(&name);
            bool two = nc >= 2 && strcmp(tn_sql_result_name(r, 0), "schema") == 0;
            for (uint32_t c = 0; c < (two ? 2u : 1u); c++) {
                if (c) tn_buf_append_byte(&name, '.');
                tn_buf_append_byte(&name, '"');
                tn_value_format(&name, &ch->cols[c], i);
                tn_buf_append_byte(&name, '"');
            }
            printf("%.*s:\n", (int)name.len, name.data ? (const char *)name.data : "");
            snprintf(sql, sizeof sql, "DESCRIBE %.*s", (int)name.len, name.data ? (const char *)name.data : "");
            run_text(sh, sql, strlen(sql));
        }
    tn_buf_free(&name);
    tn_sql_result_free(r);
}

/* Returns 1 to quit. */
static int dot_command(shell *sh, char *line) {
    char *cmd = strtok(line, " \t\r\n");
    char *arg = strtok(NULL, " \t\r\n");
    if (!cmd) return 0;
    if (strcmp(cmd, ".quit") == 0 || strcmp(cmd, ".exit") == 0 || strcmp(cmd, ".q") == 0) return 1;
    if (strcmp(cmd, ".help") == 0) fputs(help_text, stdout);
    else if (strcmp(cmd, ".mode") == 0) {
        if (!arg) printf("current mode: %s\n", sh->mode == MODE_CSV ? "csv" : sh->mode == MODE_JSON ? "json" : "table");
        else if (strcmp(arg, "csv") == 0) sh->mode = MODE_CSV;
        else if (strcmp(arg, "json") == 0) sh->mode = MODE_JSON;
        else if (strcmp(arg, "table") == 0 || strcmp(arg, "box") == 0 || strcmp(arg, "duckbox") == 0) sh->mode = MODE_TABLE;
        else fprintf(stderr, "Error: unknown mode '%s' (table, csv, json)\n", arg);
    } else if (strcmp(cmd, ".timer") == 0) sh->timer = arg && strcmp(arg, "on") == 0;
    else if (strcmp(cmd, ".stats") == 0) sh->stats = arg && strcmp(arg, "on") == 0;
    else if (strcmp(cmd, ".read") == 0) {
        if (!arg) fprintf(stderr, "Error: .read needs a file name\n");
        else run_file(sh, arg);
    } else if (strcmp(cmd, ".tables") == 0) {
        run_text(sh, "SHOW ALL TABLES", strlen("SHOW ALL TABLES"));
    } else if (strcmp(cmd, ".schema") == 0) {
        show_schema(sh, arg);
    } else if (strcmp(cmd, ".progress") == 0) {
        sh->progress = arg && strcmp(arg, "on") == 0 && isatty(STDERR_FILENO);
    } else fprintf(stderr, "Error: unknown command %s (try .help)\n", cmd);
    return 0;
}

/* Whether buf holds a complete statement: a ';' outside quotes and comments at the end. */
static bool statement_complete(const char *s) {
    char q = 0;
    bool done = false;
    for (const char *p = s; *p; p++) {
        if (q) {
            if (*p == q) q = 0;
            continue;
        }
        if (*p == '\'' || *p == '"' || *p == '`') { q = *p; done = false; continue; }
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n') p++;
            if (!*p) break;
            continue;
        }
        if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            if (!e) return false;
            p = e + 1;
            continue;
        }
        if (*p == ';') done = true;
        else if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') done = false;
    }
    return done && !q;
}

static int interactive(shell *sh) {
    char hist[4096] = "";
    const char *home = getenv("HOME");
    if (home) {
        snprintf(hist, sizeof hist, "%s/.tarn_history", home);
        read_history(hist);
    }
    printf("tarn %s: SQL over Parquet, CSV and JSON files. Enter \".help\" for usage hints.\n", "0.1.0");
    tn_buf stmt = TN_BUF_INIT;
    int status = 0;
    for (;;) {
        char *line = readline(stmt.len ? "   ...> " : "tarn> ");
        if (!line) {
            putchar('\n');
            break;
        }
        if (stmt.len == 0 && line[0] == '.') {
            add_history(line);
            int q = dot_command(sh, line);
            free(line);
            if (q) break;
            continue;
        }
        if (stmt.len == 0 && line[strspn(line, " \t")] == 0) {
            free(line);
            continue;
        }
        if (stmt.len) tn_buf_append_byte(&stmt, '\n');
        tn_buf_append(&stmt, line, strlen(line));
        free(line);
        tn_buf_append_byte(&stmt, 0);
        stmt.len--;
        if (!statement_complete((const char *)stmt.data)) continue;
        add_history((const char *)stmt.data);
        status = run_text(sh, (const char *)stmt.data, stmt.len);
        tn_buf_clear(&stmt);
    }
    if (hist[0]) write_history(hist);
    tn_buf_free(&stmt);
    return status;
}

/* ---------------------------------------------------------------------------------------------
 * Entry.
 */
int tn_cli_shell_main(int argc, char **argv) {
    shell sh;
    memset(&sh, 0, sizeof sh);
    sh.out = stdout;
    sh.mode = isatty(STDOUT_FILENO) ? MODE_TABLE : MODE_CSV;
    sh.progress = progress_wanted();
    const char *warehouse = getenv("TARN_WAREHOUSE");
    if (!warehouse || !*warehouse) warehouse = "./warehouse";
    int nwork = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-w") == 0 && i + 1 < argc) warehouse = argv[++i];
        else if ((strcmp(a, "-c") == 0 || strcmp(a, "-f") == 0) && i + 1 < argc) { nwork++; i++; }
        else if (strcmp(a, "--csv") == 0) sh.mode = MODE_CSV;
        else if (strcmp(a, "--json") == 0) sh.mode = MODE_JSON;
        else if (strcmp(a, "--table") == 0) sh.mode = MODE_TABLE;
        else if (strcmp(a, "--stats") == 0) sh.stats = true;
        else {
            fprintf(stderr, "tarn: unknown option %s\n", a);
            return 2;
        }
    }
    if (tn_sql_session_open(&sh.session, warehouse, 0)) {
        print_error();
        return 1;
    }
    int status = 0;
    if (nwork > 0) {
        for (int i = 1; i < argc && status == 0; i++) {
            if (strcmp(argv[i], "-c") == 0) status = run_text(&sh, argv[i + 1], strlen(argv[i + 1]));
            else if (strcmp(argv[i], "-f") == 0) status = run_file(&sh, argv[i + 1]);
            if (strcmp(argv[i], "-w") == 0 || strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "-f") == 0) i++;
        }
    } else if (isatty(STDIN_FILENO)) {
        sh.interactive = true;
        status = interactive(&sh);
    } else {
        status = run_file(&sh, "-");
    }
    tn_sql_session_close(sh.session);
    return status;
}
