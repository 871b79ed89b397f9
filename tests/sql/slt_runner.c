/*
 * tests/sql/slt_runner.c: tarn's sqllogictest runner (the record format of SQLite's and DuckDB's
 * SQL suites). Records, separated by blank lines:
 *
 *   statement ok | statement error          then the SQL; for errors optionally "----" and a
 *                                           substring the error message must contain
 *   query <types> [nosort|rowsort|valuesort] then the SQL, "----", expected rows: one line per
 *                                           row, values separated by tabs (or runs of spaces
 *                                           when the line has no tab); NULL as NULL, the empty
 *                                           string as (empty). Types: I integer, R real
 *                                           (compared with relative tolerance 1e-9), T text.
 *   # comment | halt | require ... | load ...
 *
 * A record header may end in a connection name (DuckDB's `statement ok con2`, `query I con2`):
 * the record runs in that session, opened on first use on the same warehouse (so database-wide
 * settings and committed writes are shared, the session's own state is not).
 *
 * ${TESTDATA} and ${DATA} in SQL are replaced by the repository's test data ($TARN_TESTDATA, else
 * tests/data) and the directory of the test file's data (tests/sql/data). Each test file runs in its own session on a fresh, empty
 * warehouse directory (removed afterwards), which ${WAREHOUSE} names. Prints failures and
 * ends with "N passed, N failed"; exits 1 on any failure. Usage: slt_runner [-v] FILE...
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql.h"

static int g_pass, g_fail;
static bool g_verbose;
static const char *g_testdata = "tests/data";
static char g_data[4096];
static char g_warehouse[4096];

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

static void push(lines *l, char *s) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = s;
}

static char *subst(const char *sql) {
    size_t cap = strlen(sql) * 2 + 8192, n = 0;
    char *out = malloc(cap);
    for (const char *p = sql; *p;) {
        const char *rep = NULL;
        size_t skip = 0;
        if (strncmp(p, "${TESTDATA}", 11) == 0) { rep = g_testdata; skip = 11; }
        else if (strncmp(p, "${DATA}", 7) == 0) { rep = g_data; skip = 7; }
        else if (strncmp(p, "${WAREHOUSE}", 12) == 0) { rep = g_warehouse; skip = 12; }
        if (rep) {
            size_t rl = strlen(rep);
            if (n + rl + 1 >= cap) { cap = (n + rl) * 2 + 64; out = realloc(out, cap); }
            memcpy(out + n, rep, rl);
            n += rl;
            p += skip;
        } else {
            if (n + 2 >= cap) { cap *= 2; out = realloc(out, cap); }
            out[n++] = *p++;
        }
    }
    out[n] = 0;
    return out;
}

static void format_value(const tn_vector *v, uint32_t row, tn_buf *out) {
    tn_buf_clear(out);
    if (v->type.id == TN_TYPE_NULL || !tn_vector_is_valid(v, row)) {
        tn_buf_printf(out, "NULL");
        return;
    }
    tn_value_format(out, v, row);
    if (out->len == 0) tn_buf_printf(out, "(empty)");
    for (size_t i = 0; i < out->len; i++)
        if (out->data[i] == '\t' || out->data[i] == '\n') out->data[i] = ' ';
}

/* Split an expected line into values. */
static size_t split_values(char *line, char **vals, size_t max) {
    size_t n = 0;
    if (strchr(line, '\t')) {
        char *s = line;
        for (;;) {
            char *t = strchr(s, '\t');
            if (n < max) vals[n++] = s;
            if (!t) break;
            *t = 0;
            s = t + 1;
        }
        return n;
    }
    char *s = line;
    while (*s) {
        while (*s == ' ') s++;
        if (!*s) break;
        char *e = s;
        while (*e && !(e[0] == ' ' && (e[1] == ' ' || e[1] == 0 || n + 1 >= max))) e++;
        /* single spaces inside a value are kept; two or more separate values */
        char *end = strstr(s, "  ");
        if (end) e = end;
        else e = s + strlen(s);
        if (n < max) vals[n++] = s;
        if (!*e) break;
        *e = 0;
        s = e + 1;
    }
    return n;
}

static bool values_equal(const char *got, const char *want, char type) {
    if (strcmp(got, want) == 0) return true;
    if (type == 'R' || type == 'I') {
        char *e1, *e2;
        double a = strtod(got, &e1), b = strtod(want, &e2);
        if (*e1 || *e2 || e1 == got || e2 == want) return false;
        if (isnan(a) && isnan(b)) return true;
        if (a == b) return true;
        double d = fabs(a - b), m = fmax(fabs(a), fabs(b));
        return type == 'R' && d <= 1e-9 * m + 1e-12;
    }
    return false;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct record {
    const char *file;
    int line;
} record;

static void fail(const record *r, const char *sql, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(const record *r, const char *sql, const char *fmt, ...) {
    g_fail++;
    printf("FAIL %s:%d\n  SQL: %s\n  ", r->file, r->line, sql);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static int run_query(tn_sql_session *s, const char *sql, tn_sql_result **out) {
    tn_sql_script *sc = NULL;
    *out = NULL;
    int rc = tn_sql_script_parse(&sc, s, sql, strlen(sql));
    if (rc) return rc;
    for (uint32_t i = 0; i < tn_sql_script_count(sc) && !rc; i++) {
        tn_sql_result_free(*out);
        *out = NULL;
        rc = tn_sql_script_execute(out, sc, i, NULL, 0);
    }
    tn_sql_script_free(sc);
    return rc;
}

/* Named connections of the file being run (the header's last word "con..."). */
static struct { char name[32]; tn_sql_session *s; } g_conns[8];
static int g_nconns;

static tn_sql_session *conn_for(tn_sql_session *main_s, const char *header) {
    const char *last = strrchr(header, ' ');
    if (!last || strncmp(last + 1, "con", 3) != 0) return main_s;
    last++;
    for (int k = 0; k < g_nconns; k++)
        if (strcmp(g_conns[k].name, last) == 0) return g_conns[k].s;
    if (g_nconns == 8 || strlen(last) >= sizeof g_conns[0].name) return NULL;
    tn_sql_session *s = NULL;
    if (tn_sql_session_open(&s, g_warehouse, 0)) return NULL;
    snprintf(g_conns[g_nconns].name, sizeof g_conns[0].name, "%s", last);
    g_conns[g_nconns++].s = s;
    return s;
}

static void run_file(tn_sql_session *main_s, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL %s: cannot open\n", path);
        g_fail++;
        return;
    }
    lines L = {0};
    char buf[1 << 16];
    while (fgets(buf, sizeof buf, f)) {
        size_t n = strlen(buf);
        while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = 0;
        push(&L, strdup(buf));
    }
    fclose(f);
    size_t i = 0;
    while (i < L.n) {
        char *ln = L.v[i];
        if (ln[0] == 0 || ln[0] == '#') { i++; continue; }
        if (strncmp(ln, "halt", 4) == 0) break;
        if (strncmp(ln, "require", 7) == 0 || strncmp(ln, "load", 4) == 0 || strncmp(ln, "mode", 4) == 0) { i++; continue; }
        record rec = {path, (int)i + 1};
        bool is_stmt = strncmp(ln, "statement", 9) == 0, is_query = strncmp(ln, "query", 5) == 0;
        if (!is_stmt && !is_query) {
            printf("FAIL %s:%zu: unknown record '%s'\n", path, i + 1, ln);
            g_fail++;
            i++;
            continue;
        }
        char header[256];
        snprintf(header, sizeof header, "%s", ln);
        i++;
        /* SQL until "----" or a blank line */
        tn_buf sqlb = TN_BUF_INIT;
        while (i < L.n && L.v[i][0] != 0 && strcmp(L.v[i], "----") != 0) {
            if (sqlb.len) tn_buf_append_byte(&sqlb, '\n');
            tn_buf_append(&sqlb, L.v[i], strlen(L.v[i]));
            i++;
        }
        tn_buf_append_byte(&sqlb, 0);
        char *sql = subst((const char *)sqlb.data);
        tn_buf_free(&sqlb);
        lines expect = {0};
        bool has_result = false;
        if (i < L.n && strcmp(L.v[i], "----") == 0) {
            has_result = true;
            i++;
            while (i < L.n && L.v[i][0] != 0) push(&expect, L.v[i++]);
        }
        if (g_verbose) printf("-- %s:%d %s\n", path, rec.line, sql);
        tn_sql_result *res = NULL;
        tn_sql_session *s = conn_for(main_s, header);
        if (!s) {
            fail(&rec, sql, "cannot open the connection named in '%s'", header);
            free(expect.v);
            free(sql);
            continue;
        }
        int rc = run_query(s, sql, &res);
        if (is_stmt) {
            bool want_ok = strstr(header, "error") == NULL;
            if (want_ok && rc) fail(&rec, sql, "expected ok, got error: %s", tn_error_message());
            else if (!want_ok && !rc) fail(&rec, sql, "expected an error, statement succeeded");
            else if (!want_ok && has_result && expect.n &&
                     strstr(tn_error_message(), expect.v[0]) == NULL)
                fail(&rec, sql, "error message mismatch:\n  want substring: %s\n  got: %s", expect.v[0], tn_error_message());
            else g_pass++;
        } else {
            char types[128] = "", sortmode[32] = "nosort";
            sscanf(header, "query %127s %31s", types, sortmode);
            if (strncmp(sortmode, "con", 3) == 0) snprintf(sortmode, sizeof sortmode, "nosort");
            if (rc) {
                fail(&rec, sql, "query failed: %s", tn_error_message());
            } else {
                uint32_t nc = tn_sql_result_ncols(res);
                lines got = {0};
                tn_buf cell = TN_BUF_INIT, row = TN_BUF_INIT;
                const tn_chunk *ch;
                while ((ch = tn_sql_result_next(res)) != NULL)
                    for (uint32_t r = 0; r < ch->count; r++) {
                        tn_buf_clear(&row);
                        for (uint32_t c = 0; c < nc; c++) {
                            format_value(&ch->cols[c], r, &cell);
                            if (c) tn_buf_append_byte(&row, '\t');
                            tn_buf_append(&row, cell.data, cell.len);
                        }
                        tn_buf_append_byte(&row, 0);
                        push(&got, strdup((const char *)row.data));
                    }
                tn_buf_free(&cell);
                tn_buf_free(&row);
                bool ok = true;
                char why[512] = "";
                if (strlen(types) != nc && types[0]) {
                    ok = false;
                    snprintf(why, sizeof why, "result has %u columns, record declares %zu", nc, strlen(types));
                }
                if (ok && strcmp(sortmode, "rowsort") == 0) {
                    if (got.n) qsort(got.v, got.n, sizeof *got.v, cmp_str);
                    if (expect.n) qsort(expect.v, expect.n, sizeof *expect.v, cmp_str);
                }
                if (ok && got.n != expect.n) {
                    ok = false;
                    snprintf(why, sizeof why, "expected %zu rows, got %zu", expect.n, got.n);
                }
                for (size_t k = 0; ok && k < got.n; k++) {
                    char *gv[256], *ev[256];
                    char *gcopy = strdup(got.v[k]), *ecopy = strdup(expect.v[k]);
                    size_t gn = 0;
                    for (char *p = gcopy;;) {
                        char *t = strchr(p, '\t');
                        if (gn < 256) gv[gn++] = p;
                        if (!t) break;
                        *t = 0;
                        p = t + 1;
                    }
                    size_t en = split_values(ecopy, ev, 256);
                    if (gn != en) {
                        ok = false;
                        snprintf(why, sizeof why, "row %zu: expected %zu values, got %zu", k + 1, en, gn);
                    }
                    for (size_t c = 0; ok && c < gn; c++)
                        if (!values_equal(gv[c], ev[c], c < strlen(types) ? types[c] : 'T')) {
                            ok = false;
                            snprintf(why, sizeof why, "row %zu column %zu: expected '%s', got '%s'", k + 1, c + 1, ev[c], gv[c]);
                        }
                    free(gcopy);
                    free(ecopy);
                }
                if (ok) g_pass++;
                else {
                    tn_buf all = TN_BUF_INIT;
                    for (size_t k = 0; k < got.n && k < 40; k++) tn_buf_printf(&all, "\n    %s", got.v[k]);
                    tn_buf_append_byte(&all, 0);
                    fail(&rec, sql, "%s; got:%s", why, (const char *)all.data);
                    tn_buf_free(&all);
                }
                for (size_t k = 0; k < got.n; k++) free(got.v[k]);
                free(got.v);
            }
        }
        tn_sql_result_free(res);
        free(expect.v);
        free(sql);
    }
    for (size_t k = 0; k < L.n; k++) free(L.v[k]);
    free(L.v);
    for (int k = 0; k < g_nconns; k++) tn_sql_session_close(g_conns[k].s);
    g_nconns = 0;
}

int main(int argc, char **argv) {
    const char *td = getenv("TARN_TESTDATA");
    if (td && *td) g_testdata = td;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) { g_verbose = true; continue; }
        const char *tmp = getenv("TMPDIR");
        snprintf(g_warehouse, sizeof g_warehouse, "%s/tn_slt_wh.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        tn_sql_session *s = NULL;
        if (!mkdtemp(g_warehouse) || tn_sql_session_open(&s, g_warehouse, 0)) {
            printf("FAIL %s: cannot open a session on a fresh warehouse\n", argv[i]);
            g_fail++;
            continue;
        }
        snprintf(g_data, sizeof g_data, "%s", argv[i]);
        char *slash = strrchr(g_data, '/');
        if (slash) snprintf(slash, sizeof g_data - (size_t)(slash - g_data), "/data");
        else snprintf(g_data, sizeof g_data, "data");
        int before = g_fail;
        run_file(s, argv[i]);
        if (g_verbose || g_fail != before) printf("%s: %d failed\n", argv[i], g_fail - before);
        tn_sql_session_close(s);
        char cmd[4200];
        /* every table the script wrote is checked by the Delta-protocol checker first */
        const char *rec = getenv("TARN_DELTA_CHECK_OUT");
        snprintf(cmd, sizeof cmd, "command -v node >/dev/null 2>&1 && node tests/delta_check/check.mjs %s%s%s '%s' >&2",
                 rec ? "--record '" : "", rec ? rec : "", rec ? "'" : "", g_warehouse);
        if (system(cmd) != 0) printf("warning: a table of %s is not valid Delta\n", argv[i]);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_warehouse);
        if (system(cmd) != 0) printf("warning: cannot remove %s\n", g_warehouse);
    }
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
