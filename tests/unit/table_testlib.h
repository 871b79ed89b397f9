/*
 * tests/unit/table_testlib.h: what the table tests share (test_table.c, test_table_faults.c):
 * temporary warehouses, rows scanned into sorted canonical strings and compared, the expected
 * rows of a golden table (expected.jsonl), and the all-types table written in ranges of ids.
 */
#ifndef TN_TABLE_TESTLIB_H
#define TN_TABLE_TESTLIB_H

#include "catalog/catalog.h"
#include "table/tableInt.h"
#include "layout/layout.h"
#include "testlib.h"

#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * Helpers.
 */
static inline char *make_tmpdir(void) {
    char tmpl[] = "/tmp/tarn-table-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

/* Every table a test writes is checked by the Delta-protocol checker before it is removed. */
static inline void rm_rf(const char *path) { tn_test_remove_tables(path); }
static inline void rm_rf_unchecked(const char *path) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "rm failed: %s\n", path);
}

/* Count regular files under dir (recursively), skipping _delta_log. */
static inline int count_data_files(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' && (e->d_name[1] == 0 || (e->d_name[1] == '.' && e->d_name[2] == 0))) continue;
        if (strcmp(e->d_name, "_delta_log") == 0) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) n += count_data_files(p);
        else if (strstr(e->d_name, ".parquet")) n++;
    }
    closedir(d);
    return n;
}

/* Canonical text of one value for comparisons. */
static inline void canon_value(tn_buf *out, const tn_value *v) {
    char tmp[128];
    if (v->is_null) {
        tn_buf_printf(out, "NULL");
        return;
    }
    switch (v->type.id) {
    case TN_TYPE_BOOLEAN: tn_buf_printf(out, "%s", v->u.b ? "true" : "false"); break;
    case TN_TYPE_FLOAT: tn_buf_printf(out, "%.9g", (double)(float)v->u.d); break;
    case TN_TYPE_DOUBLE: tn_buf_printf(out, "%.17g", v->u.d); break;
    case TN_TYPE_DECIMAL:
        tn_format_decimal(tmp, sizeof tmp, tn_type_is_decimal128(v->type) ? v->u.i128 : (tn_int128)v->u.i, v->type.scale);
        tn_buf_printf(out, "%s", tmp);
        break;
    case TN_TYPE_VARCHAR: tn_buf_append(out, v->u.s.ptr, v->u.s.len); break;
    case TN_TYPE_VARBINARY:
        for (uint32_t i = 0; i < v->u.s.len; i++) tn_buf_printf(out, "%02x", (unsigned char)v->u.s.ptr[i]);
        break;
    case TN_TYPE_DATE: tn_format_date(tmp, sizeof tmp, (int32_t)v->u.i); tn_buf_printf(out, "%s", tmp); break;
    default: tn_buf_printf(out, "%lld", (long long)v->u.i); break;
    }
}

/* Canonical text of an expected.jsonl value for a column of type t. */
static inline int canon_json(tn_buf *out, json_t *j, tn_type t) {
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    if (!j || json_is_null(j)) { v.is_null = true; canon_value(out, &v); return 0; }
    const char *s = json_is_string(j) ? json_string_value(j) : NULL;
    switch (t.id) {
    case TN_TYPE_BOOLEAN: v.u.b = json_is_true(j); break;
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: v.u.d = json_number_value(j); break;
    case TN_TYPE_DECIMAL: {
        if (!s || strncmp(s, "dec:", 4) != 0) return -1;
        tn_int128 x;
        if (tb_parse_decimal(s + 4, strlen(s + 4), t.scale, &x)) return -1;
        if (tn_type_is_decimal128(t)) v.u.i128 = x;
        else v.u.i = (int64_t)x;
        break;
    }
    case TN_TYPE_VARCHAR: if (!s) return -1; v.u.s.ptr = s; v.u.s.len = (uint32_t)strlen(s); break;
    case TN_TYPE_VARBINARY: if (!s || strncmp(s, "hex:", 4)) return -1; tn_buf_printf(out, "%s", s + 4); return 0;
    case TN_TYPE_DATE: { int32_t d; if (!s || tb_parse_date(s, strlen(s), &d)) return -1; v.u.i = d; break; }
    case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: {
        int64_t us;
        if (!s || tb_parse_timestamp_us(s, strlen(s), &us, NULL)) return -1;
        v.u.i = us;
        break;
    }
    default:
        if (s) v.u.i = strtoll(s, NULL, 10);
        else if (json_is_integer(j)) v.u.i = json_integer_value(j);
        else return -1;
    }
    canon_value(out, &v);
    return 0;
}

typedef struct rows {
    char **r;
    size_t n, cap;
} rows;

static inline void rows_push(rows *rs, const char *s) {
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 64;
        rs->r = realloc(rs->r, sizeof(char *) * rs->cap);
    }
    rs->r[rs->n++] = strdup(s);
}

static inline void rows_free(rows *rs) {
    for (size_t i = 0; i < rs->n; i++) free(rs->r[i]);
    free(rs->r);
    memset(rs, 0, sizeof *rs);
}

static inline int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct collect_ctx {
    rows *rs;
    uint64_t nrows;
} collect_ctx;

static inline int collect_rows(void *ctx, const tn_chunk *c, uint32_t file, int64_t first_row) {
    collect_ctx *cc = ctx;
    tn_buf b = TN_BUF_INIT;
    for (uint32_t r = 0; r < c->count; r++) {
        tn_buf_clear(&b);
        for (uint32_t k = 0; k < c->ncols; k++) {
            tn_value v;
            tn_vector_get_value(&c->cols[k], r, &v);
            if (k) tn_buf_append_byte(&b, '|');
            canon_value(&b, &v);
        }
        tn_buf_append_byte(&b, 0);
        if (cc->rs) rows_push(cc->rs, (const char *)b.data);
    }
    cc->nrows += c->count;
    tn_buf_free(&b);
    return 0;
}

/* Scans t (projection cols or all flat columns when NULL) into sorted canonical rows. */
static inline int scan_rows(tn_table *t, const uint32_t *cols, uint32_t ncols, const tn_table_filter *filters,
                     uint32_t nfilters, rows *out, tn_table_scan_stats *stats) {
    tn_table_scan_options o = TN_TABLE_SCAN_OPTIONS_INIT;
    uint32_t flat[256];
    if (!cols) {
        ncols = 0;
        for (uint32_t i = 0; i < tn_table_num_columns(t); i++)
            if (!tn_table_column(t, i)->nested) flat[ncols++] = i;
        cols = flat;
    }
    o.columns = cols;
    o.ncolumns = ncols;
    o.filters = filters;
    o.nfilters = nfilters;
    tn_table_scan *s = NULL;
    int rc = tn_table_scan_open(&s, t, &o);
    if (rc) return rc;
    collect_ctx cc = {out, 0};
    rc = tn_table_scan_run(s, collect_rows, &cc);
    if (stats) tn_table_scan_get_stats(s, stats);
    tn_table_scan_close(s);
    if (out && out->n) qsort(out->r, out->n, sizeof(char *), cmpstr);
    return rc;
}

static inline int64_t count_rows(tn_table *t) {
    tn_table_scan_options o = TN_TABLE_SCAN_OPTIONS_INIT;
    tn_table_scan *s = NULL;
    if (tn_table_scan_open(&s, t, &o)) return -1;   /* no columns: counts only */
    collect_ctx cc = {NULL, 0};
    int rc = tn_table_scan_run(s, collect_rows, &cc);
    tn_table_scan_close(s);
    return rc ? -1 : (int64_t)cc.nrows;
}

/* ---------------------------------------------------------------------------------------------
 * Golden tables.
 */
static inline int expected_rows(const char *table, tn_table *t, rows *out, char *err, size_t errcap) {
    char path[2048];
    snprintf(path, sizeof path, "%s/delta-expected/%s/expected.jsonl", tn_test_data_dir(), table);
    FILE *f = fopen(path, "r");
    if (!f) { snprintf(err, errcap, "cannot open %.400s", path); return -1; }
    char *line = NULL;
    size_t cap = 0;
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    while (getline(&line, &cap, f) > 0) {
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        if (!o) { snprintf(err, errcap, "bad json line"); rc = -1; break; }
        tn_buf_clear(&b);
        uint32_t k = 0;
        for (uint32_t i = 0; i < tn_table_num_columns(t); i++) {
            const tn_delta_column *c = tn_table_column(t, i);
            if (c->nested) continue;
            if (k++) tn_buf_append_byte(&b, '|');
            if (canon_json(&b, json_object_get(o, c->name), c->type) != 0) {
                snprintf(err, errcap, "column %s: cannot read expected value", c->name);
                rc = -1;
            }
        }
        tn_buf_append_byte(&b, 0);
        rows_push(out, (const char *)b.data);
        json_decref(o);
        if (rc) break;
    }
    free(line);
    fclose(f);
    tn_buf_free(&b);
    if (out->n) qsort(out->r, out->n, sizeof(char *), cmpstr);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Writing every type, partitioned.
 */
enum { C_ID, C_B, C_I8, C_I16, C_I32, C_F, C_D, C_DEC, C_DEC38, C_S, C_BIN, C_DT, C_TS, C_PS, C_PD, NCOLS_ALL };

static tn_table_column_def all_cols[NCOLS_ALL] = {
    {"id", {TN_TYPE_BIGINT, 0, 0, NULL}, false, NULL},
    {"b", {TN_TYPE_BOOLEAN, 0, 0, NULL}, true, NULL},
    {"i8", {TN_TYPE_TINYINT, 0, 0, NULL}, true, NULL},
    {"i16", {TN_TYPE_SMALLINT, 0, 0, NULL}, true, NULL},
    {"i32", {TN_TYPE_INTEGER, 0, 0, NULL}, true, NULL},
    {"f", {TN_TYPE_FLOAT, 0, 0, NULL}, true, NULL},
    {"d", {TN_TYPE_DOUBLE, 0, 0, NULL}, true, NULL},
    {"dec", {TN_TYPE_DECIMAL, 10, 2, NULL}, true, "ten two"},
    {"dec38", {TN_TYPE_DECIMAL, 30, 5, NULL}, true, NULL},
    {"s", {TN_TYPE_VARCHAR, 0, 0, NULL}, true, NULL},
    {"bin", {TN_TYPE_VARBINARY, 0, 0, NULL}, true, NULL},
    {"dt", {TN_TYPE_DATE, 0, 0, NULL}, true, NULL},
    {"ts", {TN_TYPE_TIMESTAMP_TZ, 0, 0, NULL}, true, NULL},
    {"ps", {TN_TYPE_VARCHAR, 0, 0, NULL}, true, NULL},
    {"pd", {TN_TYPE_DATE, 0, 0, NULL}, true, NULL},
};

static const char *pstrings[] = {"a/b", "x:y=z", "100%", "#hash", "with space", "plain", "ünï", NULL, "q?*[]^{}\\\"'", "tab\there"};
#define NPSTR 10

/* The value of column c in row i (is_null when null). */
static inline void gen_value(uint32_t c, int64_t i, tn_value *v, char *sbuf) {
    memset(v, 0, sizeof *v);
    v->type = all_cols[c].type;
    if (c != C_ID && c != C_PS && c != C_PD && i % 7 == 3) { v->is_null = true; return; }
    switch (c) {
    case C_ID: v->u.i = i; break;
    case C_B: v->u.b = i % 2 == 0; break;
    case C_I8: v->u.i = (int8_t)(i % 200 - 100); break;
    case C_I16: v->u.i = (int16_t)(i * 7 - 3000); break;
    case C_I32: v->u.i = (int32_t)(i * 1000003 % 2000000000 - 1000000000); break;
    case C_F: v->u.d = (float)(i * 0.25 - 10); break;
    case C_D: v->u.d = i * 1.5e-3 - 7.125; break;
    case C_DEC: v->u.i = i * 101 - 5000; break;
    case C_DEC38: v->u.i128 = (tn_int128)i * 1000000007LL * 1000000007LL - 12345; break;
    case C_S:
        snprintf(sbuf, 128, i % 5 == 0 ? "long string value number %lld padded beyond thirty-two chars" : "s%lld", (long long)i);
        v->u.s.ptr = sbuf;
        v->u.s.len = (uint32_t)strlen(sbuf);
        break;
    case C_BIN:
        sbuf[0] = (char)(i & 0xff);
        sbuf[1] = 0;
        sbuf[2] = (char)0xff;
        v->u.s.ptr = sbuf;
        v->u.s.len = (uint32_t)(i % 3);
        break;
    case C_DT: v->u.i = 19000 + i % 400; break;
    case C_TS: v->u.i = 1700000000000000LL + i * 1234567LL; break;
    case C_PS: {
        const char *p = pstrings[i % NPSTR];
        if (!p) { v->is_null = true; break; }
        v->u.s.ptr = p;
        v->u.s.len = (uint32_t)strlen(p);
        break;
    }
    case C_PD:
        if (i % 5 == 4) { v->is_null = true; break; }
        v->u.i = 19700 + i % 3;
        break;
    }
}

static inline int fill_chunk(tn_chunk *c, int64_t from, uint32_t n) {
    tn_type types[NCOLS_ALL];
    for (int k = 0; k < NCOLS_ALL; k++) types[k] = all_cols[k].type;
    int rc = tn_chunk_init(c, NCOLS_ALL, types, n);
    if (rc) return rc;
    char sbuf[128];
    for (uint32_t r = 0; r < n && !rc; r++)
        for (uint32_t k = 0; k < NCOLS_ALL && !rc; k++) {
            tn_value v;
            gen_value(k, from + r, &v, sbuf);
            rc = tb_vector_set_value(&c->cols[k], r, &v);
        }
    for (uint32_t k = 0; k < NCOLS_ALL; k++) c->cols[k].count = n;
    c->count = n;
    return rc;
}

static inline int create_all_types(const char *path, bool partitioned) {
    tn_table_create_options co = TN_TABLE_CREATE_OPTIONS_INIT;
    const char *parts[] = {"ps", "pd"};
    co.columns = all_cols;
    co.ncolumns = NCOLS_ALL;
    if (partitioned) {
        co.partition_columns = parts;
        co.npartition_columns = 2;
    }
    return tn_table_create(tn_fs_default(), path, &co);
}

static inline int append_range(tn_fs *fs, const char *path, int64_t from, int64_t n, const tn_layout_write_options *wo,
                        tn_table_commit_result *res) {
    tn_table *t = NULL;
    tn_layout_writer *w = NULL;
    int rc = tn_table_open(&t, fs, path, NULL);
    if (!rc) rc = tn_layout_writer_open(&w, t, wo);
    for (int64_t done = 0; !rc && done < n;) {
        uint32_t take = n - done > 1000 ? 1000 : (uint32_t)(n - done);
        tn_chunk c;
        rc = fill_chunk(&c, from + done, take);
        if (!rc) rc = tn_layout_writer_write(w, &c);
        tn_chunk_free(&c);
        done += take;
    }
    if (w) {
        if (rc) tn_layout_writer_abort(w);
        else rc = tn_layout_writer_commit(w, res);
    }
    tn_table_close(t);
    return rc;
}

/* Expected canonical rows for ids in [from, to) (all columns in schema order). */
static inline void expected_range(rows *out, int64_t from, int64_t to, bool (*keep)(int64_t)) {
    tn_buf b = TN_BUF_INIT;
    char sbuf[128];
    for (int64_t i = from; i < to; i++) {
        if (keep && !keep(i)) continue;
        tn_buf_clear(&b);
        for (uint32_t k = 0; k < NCOLS_ALL; k++) {
            tn_value v;
            gen_value(k, i, &v, sbuf);
            if (k == C_PS && !v.is_null && v.u.s.len == 0) v.is_null = true;
            if (k) tn_buf_append_byte(&b, '|');
            canon_value(&b, &v);
        }
        tn_buf_append_byte(&b, 0);
        rows_push(out, (const char *)b.data);
    }
    tn_buf_free(&b);
    if (out->n) qsort(out->r, out->n, sizeof(char *), cmpstr);
}

static inline int rows_diff(const rows *a, const rows *b, char *err, size_t cap) {
    if (a->n != b->n) { snprintf(err, cap, "%zu rows, expected %zu", a->n, b->n); return 1; }
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->r[i], b->r[i]) != 0) {
            snprintf(err, cap, "row %zu: got [%s] expected [%s]", i, a->r[i], b->r[i]);
            return 1;
        }
    return 0;
}
#endif
