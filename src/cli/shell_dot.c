/*
 * cli/shell_dot.c: the shell's dot-commands, spelled as sqlite3's and duckdb's: .help, .quit,
 * .mode, .headers, .nullvalue, .separator, .width, .output/.once, .import, .tables, .schema
 * (CREATE statements rebuilt from DESCRIBE and the catalog's view definitions), .read, .timer,
 * .stats, .bail, .echo, .progress, .print, .show, .shell/.system (interactive only).
 * Arguments are split at blanks; '...' or "..." quote one with blanks in it.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "cli/shell.h"

static const char help_text[] =
    ".bail on|off            stop at the first error (scripts and piped input)\n"
    ".echo on|off            print each command and statement before running it\n"
    ".exit, .quit            leave the shell (also Ctrl-D)\n"
    ".headers on|off         column names in csv, list, tabs, table, box and markdown output\n"
    ".help                   this text\n"
    ".import FILE TABLE      load a CSV (or .json/.ndjson) file into TABLE, creating it if needed\n"
    "                        (--csv / --json pick the format)\n"
    ".mode [MODE]            output mode: table box csv json jsonlines line list markdown tabs\n"
    ".nullvalue TEXT         how NULL is printed (no TEXT: the mode's default)\n"
    ".once FILE              write the next result to FILE\n"
    ".output [FILE]          write results to FILE (no FILE: back to stdout)\n"
    ".print TEXT...          print the text\n"
    ".progress on|off        progress bar on stderr for statements over a second (a terminal only)\n"
    ".read FILE              run the SQL and dot-commands of FILE\n"
    ".schema [PATTERN]       CREATE statements of the tables and views (names matching PATTERN)\n"
    ".separator SEP          column separator of list mode (default |)\n"
    ".shell CMD, .system CMD run CMD in the system shell (interactive shell only)\n"
    ".show                   the current settings\n"
    ".stats on|off           scan statistics (JSON) on stderr after each statement\n"
    ".tables                 the tables and views of every schema\n"
    ".timer on|off           time each statement\n"
    ".width N...             column widths of table/box/markdown (0 automatic, < 0 right-aligned)\n"
    "SQL statements end with ';'. Ctrl-C cancels a running statement. Files: SELECT * FROM\n"
    "read_parquet('f.parquet'), read_csv('f.csv'), read_json('f.ndjson'), delta_scan('dir').\n";

#define MAX_ARGS 64

/* Splits line into argv (in place). */
static int split_args(char *line, char **argv) {
    int n = 0;
    char *p = line;
    while (*p && n < MAX_ARGS) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p) break;
        if (*p == '\'' || *p == '"') {
            char q = *p++;
            argv[n++] = p;
            while (*p && *p != q) p++;
            if (*p) *p++ = 0;
        } else {
            argv[n++] = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') p++;
            if (*p) *p++ = 0;
        }
    }
    return n;
}

/* on|off|true|false|1|0; -1 when neither. */
static int parse_bool(const char *s) {
    if (!strcmp(s, "on") || !strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1")) return 1;
    if (!strcmp(s, "off") || !strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "0")) return 0;
    return -1;
}

static int fail(const char *fmt, const char *arg) {
    fputs("Error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return SH_FAILED;
}

static int set_bool(bool *flag, int argc, char **argv) {
    int b = argc >= 2 ? parse_bool(argv[1]) : -1;
    if (b < 0) return fail("%s needs on or off", argv[0]);
    *flag = b == 1;
    return SH_OK;
}

/* 'text' with quotes doubled, for SQL string literals. */
static void sql_quote(tn_buf *b, const char *s) {
    tn_buf_append_byte(b, '\'');
    for (; *s; s++) {
        if (*s == '\'') tn_buf_append_byte(b, '\'');
        tn_buf_append_byte(b, (uint8_t)*s);
    }
    tn_buf_append_byte(b, '\'');
}

/* An identifier as written in a CREATE statement: bare when it is a lower-case word. */
static void ident(tn_buf *b, const char *s, size_t n) {
    bool bare = n > 0 && (islower((unsigned char)s[0]) || s[0] == '_');
    for (size_t i = 0; i < n && bare; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_')) bare = false;
    if (bare) { tn_buf_append(b, s, n); return; }
    tn_buf_append_byte(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') tn_buf_append_byte(b, '"');
        tn_buf_append_byte(b, (uint8_t)s[i]);
    }
    tn_buf_append_byte(b, '"');
}

static int run_sql_text(shell *sh, tn_buf *sql) {
    return sh_run_sql(sh, (const char *)sql->data, sql->len);
}

/* .import [--csv|--json] FILE TABLE */
static int dot_import(shell *sh, int argc, char **argv) {
    const char *fmt = NULL, *file = NULL, *table = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv") || !strcmp(argv[i], "-csv")) fmt = "csv";
        else if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-json")) fmt = "json";
        else if (argv[i][0] == '-' && argv[i][1]) return fail("unknown .import option %s (--csv, --json)", argv[i]);
        else if (!file) file = argv[i];
        else if (!table) table = argv[i];
        else return fail("%s", ".import takes FILE TABLE");
    }
    if (!file || !table) return fail("%s", "usage: .import [--csv|--json] FILE TABLE");
    if (access(file, R_OK) != 0) return fail("cannot read %s", file);
    if (!fmt) {
        size_t n = strlen(file);
        fmt = (n > 5 && !strcmp(file + n - 5, ".json")) || (n > 7 && !strcmp(file + n - 7, ".ndjson")) ? "json" : "csv";
    }
    tn_buf probe = TN_BUF_INIT, sql = TN_BUF_INIT;
    tn_buf_printf(&probe, "SELECT * FROM %s LIMIT 0", table);
    tn_sql_result *r = NULL;
    bool exists = tn_sql_execute(&r, sh->session, (const char *)probe.data) == 0;
    tn_sql_result_free(r);
    if (exists) tn_buf_printf(&sql, "INSERT INTO %s SELECT * FROM read_%s(", table, fmt);
    else tn_buf_printf(&sql, "CREATE TABLE %s AS SELECT * FROM read_%s(", table, fmt);
    sql_quote(&sql, file);
    tn_buf_printf(&sql, ")");
    int st = run_sql_text(sh, &sql);
    tn_buf_free(&probe);
    tn_buf_free(&sql);
    return st;
}

/* The text of value (col, row) of chunk ch ("" for NULL). */
static void value_text(tn_buf *b, const tn_chunk *ch, uint32_t col, uint32_t row) {
    tn_buf_clear(b);
    const tn_vector *v = &ch->cols[col];
    if (v->type.id != TN_TYPE_NULL && tn_vector_is_valid(v, row)) tn_value_format(b, v, row);
    tn_buf_append_byte(b, 0);
    b->len--;
}

/* CREATE TABLE for schema.name from DESCRIBE (types, NOT NULL, PARTITIONED BY). */
static int schema_table(shell *sh, tn_buf *o, const char *schema, const char *name) {
    tn_buf q = TN_BUF_INIT, v = TN_BUF_INIT, parts = TN_BUF_INIT, qname = TN_BUF_INIT;
    if (strcmp(schema, "default") != 0) {
        ident(&qname, schema, strlen(schema));
        tn_buf_append_byte(&qname, '.');
    }
    ident(&qname, name, strlen(name));
    tn_buf_printf(&q, "DESCRIBE %.*s", (int)qname.len, (const char *)qname.data);
    tn_sql_result *r = NULL;
    int rc = tn_sql_execute(&r, sh->session, (const char *)q.data);
    if (!rc) {
        tn_buf_printf(o, "CREATE TABLE %.*s (", (int)qname.len, (const char *)qname.data);
        uint32_t n = 0;
        const tn_chunk *ch;
        while ((ch = tn_sql_result_next(r)) != NULL)
            for (uint32_t i = 0; i < ch->count; i++) {
                tn_buf_printf(o, "%s\n    ", n++ ? "," : "");
                value_text(&v, ch, 0, i);
                ident(o, (const char *)v.data, v.len);
                value_text(&v, ch, 1, i);
                tn_buf_printf(o, " %s", (const char *)v.data);
                value_text(&v, ch, 2, i);
                if (!strcmp((const char *)v.data, "NO")) tn_buf_printf(o, " NOT NULL");
                if (ch->ncols > 3) {
                    value_text(&v, ch, 3, i);
                    if (!strcmp((const char *)v.data, "PARTITION")) {
                        if (parts.len) tn_buf_append(&parts, ", ", 2);
                        value_text(&v, ch, 0, i);
                        ident(&parts, (const char *)v.data, v.len);
                    }
                }
            }
        tn_buf_printf(o, "\n)");
        if (parts.len) tn_buf_printf(o, " PARTITIONED BY (%.*s)", (int)parts.len, (const char *)parts.data);
        tn_buf_printf(o, ";\n");
    }
    tn_sql_result_free(r);
    tn_buf_free(&q);
    tn_buf_free(&v);
    tn_buf_free(&parts);
    tn_buf_free(&qname);
    return rc;
}

static int schema_view(shell *sh, tn_catalog *cat, tn_buf *o, const char *schema, const char *name) {
    tn_catalog_name cn;
    tn_catalog_view view;
    memset(&view, 0, sizeof view);
    int rc = tn_catalog_name_make(&cn, "view", strcmp(schema, "default") ? schema : NULL, name);
    if (!rc) rc = cat ? tn_catalog_view_get(cat, &cn, &view) : TN_ENOTFOUND;
    if (rc) return rc;
    tn_buf_printf(o, "CREATE VIEW ");
    if (strcmp(schema, "default") != 0) {
        ident(o, schema, strlen(schema));
        tn_buf_append_byte(o, '.');
    }
    ident(o, name, strlen(name));
    if (view.ncolumns) {
        tn_buf_append(o, " (", 2);
        for (uint32_t i = 0; i < view.ncolumns; i++) {
            if (i) tn_buf_append(o, ", ", 2);
            ident(o, view.columns[i], strlen(view.columns[i]));
        }
        tn_buf_append_byte(o, ')');
    }
    size_t n = strlen(view.sql);
    while (n && (view.sql[n - 1] == ';' || view.sql[n - 1] == ' ' || view.sql[n - 1] == '\n')) n--;
    tn_buf_printf(o, " AS %.*s;\n", (int)n, view.sql);
    tn_catalog_view_free(&view);
    return 0;
}

/* .schema [PATTERN]: PATTERN (a glob) matches "name" or "schema.name". */
static int dot_schema(shell *sh, const char *pattern) {
    tn_sql_result *r = NULL;
    if (tn_sql_execute(&r, sh->session, "SHOW ALL TABLES")) {
        sh_print_error();
        return SH_FAILED;
    }
    tn_catalog *cat = NULL;
    if (tn_catalog_open(&cat, NULL, sh->warehouse)) cat = NULL;
    tn_buf o = TN_BUF_INIT, s = TN_BUF_INIT, n = TN_BUF_INIT, k = TN_BUF_INIT, full = TN_BUF_INIT;
    int st = SH_OK;
    bool any = false;
    const tn_chunk *ch;
    while ((ch = tn_sql_result_next(r)) != NULL)
        for (uint32_t i = 0; i < ch->count; i++) {
            value_text(&s, ch, 0, i);
            value_text(&n, ch, 1, i);
            value_text(&k, ch, 2, i);
            tn_buf_clear(&full);
            tn_buf_printf(&full, "%s.%s", (const char *)s.data, (const char *)n.data);
            if (pattern && fnmatch(pattern, (const char *)n.data, FNM_CASEFOLD) != 0 &&
                fnmatch(pattern, (const char *)full.data, FNM_CASEFOLD) != 0)
                continue;
            any = true;
            int rc = strcmp((const char *)k.data, "view") == 0
                         ? schema_view(sh, cat, &o, (const char *)s.data, (const char *)n.data)
                         : schema_table(sh, &o, (const char *)s.data, (const char *)n.data);
            if (rc) {
                sh_print_error();
                st = SH_FAILED;
            }
        }
    if (o.len) fwrite(o.data, 1, o.len, sh->out);
    fflush(sh->out);
    if (pattern && !any && st == SH_OK) st = fail("no table or view matches '%s'", pattern);
    tn_catalog_close(cat);
    tn_sql_result_free(r);
    tn_buf_free(&o);
    tn_buf_free(&s);
    tn_buf_free(&n);
    tn_buf_free(&k);
    tn_buf_free(&full);
    return st;
}

static int set_output(shell *sh, const char *path, bool once) {
    if (sh->out != stdout) fclose(sh->out);
    sh->out = stdout;
    sh->out_once = false;
    if (!path || !strcmp(path, "stdout") || !strcmp(path, "-")) return SH_OK;
    FILE *f = fopen(path, "w");
    if (!f) return fail("cannot open %s for writing", path);
    sh->out = f;
    sh->out_once = once;
    return SH_OK;
}

static void show(shell *sh) {
    fprintf(sh->out, "        bail: %s\n        echo: %s\n     headers: %s\n        mode: %s\n"
            "   nullvalue: \"%s\"\n      output: %s\n   separator: \"%s\"\n       stats: %s\n"
            "       timer: %s\n   warehouse: %s\n",
            sh->bail ? "on" : "off", sh->echo ? "on" : "off", sh->headers ? "on" : "off",
            sh_mode_name(sh->mode), sh->nullvalue ? sh->nullvalue : "", sh->out == stdout ? "stdout" : "file",
            sh->separator, sh->stats ? "on" : "off", sh->timer ? "on" : "off", sh->warehouse);
    fprintf(sh->out, "       width:");
    for (int i = 0; i < sh->nwidths; i++) fprintf(sh->out, " %d", sh->widths[i]);
    fputc('\n', sh->out);
}

int sh_dot_command(shell *sh, const char *line) {
    char *copy = strdup(line);
    if (!copy) return SH_FAILED;
    /* the rest of the line after the command word, for .shell and .print */
    const char *rest = line + strcspn(line, " \t");
    rest += strspn(rest, " \t");
    char *argv[MAX_ARGS];
    int argc = split_args(copy, argv);
    int st = SH_OK;
    if (argc == 0) goto done;
    const char *c = argv[0];
    const char *a1 = argc > 1 ? argv[1] : NULL;
    if (!strcmp(c, ".quit") || !strcmp(c, ".exit") || !strcmp(c, ".q")) {
        sh->quit = 1;
        st = SH_STOP;
    } else if (!strcmp(c, ".help")) {
        fputs(help_text, sh->out);
    } else if (!strcmp(c, ".mode")) {
        if (!a1) fprintf(sh->out, "current output mode: %s\n", sh_mode_name(sh->mode));
        else if (!sh_mode_parse(a1, &sh->mode))
            st = fail("unknown mode '%s' (table, box, csv, json, jsonlines, line, list, markdown, tabs)", a1);
        else if (sh->mode == MODE_LIST && argc > 2) snprintf(sh->separator, sizeof sh->separator, "%s", argv[2]);
    } else if (!strcmp(c, ".headers") || !strcmp(c, ".header")) {
        st = set_bool(&sh->headers, argc, argv);
    } else if (!strcmp(c, ".timer")) {
        st = set_bool(&sh->timer, argc, argv);
    } else if (!strcmp(c, ".stats")) {
        st = set_bool(&sh->stats, argc, argv);
    } else if (!strcmp(c, ".bail")) {
        st = set_bool(&sh->bail, argc, argv);
    } else if (!strcmp(c, ".echo")) {
        st = set_bool(&sh->echo, argc, argv);
    } else if (!strcmp(c, ".progress")) {
        bool on = false;
        st = set_bool(&on, argc, argv);
        if (st == SH_OK) sh->progress = on && isatty(STDERR_FILENO);
    } else if (!strcmp(c, ".nullvalue")) {
        free(sh->nullvalue);
        sh->nullvalue = a1 ? strdup(a1) : NULL;
    } else if (!strcmp(c, ".separator")) {
        if (!a1) st = fail("%s", ".separator needs a separator");
        else snprintf(sh->separator, sizeof sh->separator, "%s", a1);
    } else if (!strcmp(c, ".width")) {
        sh->nwidths = 0;
        for (int i = 1; i < argc && sh->nwidths < SH_MAX_WIDTHS; i++) {
            char *end;
            long w = strtol(argv[i], &end, 10);
            if (*end || w > 10000 || w < -10000) { st = fail("invalid width '%s'", argv[i]); sh->nwidths = 0; break; }
            sh->widths[sh->nwidths++] = (int)w;
        }
    } else if (!strcmp(c, ".output")) {
        st = set_output(sh, a1, false);
    } else if (!strcmp(c, ".once")) {
        if (!a1) st = fail("%s", ".once needs a file name");
        else st = set_output(sh, a1, true);
    } else if (!strcmp(c, ".import")) {
        st = dot_import(sh, argc, argv);
    } else if (!strcmp(c, ".tables")) {
        st = sh_run_sql(sh, "SHOW ALL TABLES", strlen("SHOW ALL TABLES"));
    } else if (!strcmp(c, ".schema")) {
        st = dot_schema(sh, a1);
    } else if (!strcmp(c, ".read")) {
        if (!a1) st = fail("%s", ".read needs a file name");
        else st = sh_run_file(sh, a1);
    } else if (!strcmp(c, ".print")) {
        fprintf(sh->out, "%s\n", rest);
    } else if (!strcmp(c, ".show")) {
        show(sh);
    } else if (!strcmp(c, ".shell") || !strcmp(c, ".system")) {
        if (!sh->interactive) st = fail("%s is only available in an interactive shell", c);
        else if (!*rest) st = fail("%s needs a command", c);
        else {
            fflush(sh->out);
            int rc = system(rest);
            if (rc != 0) st = SH_FAILED;
        }
    } else {
        st = fail("unknown command %s (try .help)", c);
    }
done:
    free(copy);
    if (st == SH_FAILED && sh->bail) return SH_STOP;
    return st;
}
