/*
 * tests/unit/test_parquet_filter.c: the Parquet scan's row filter (tn_parquet_scan_set_filter):
 * files with dictionary and PLAIN pages, dictionary fallback, NULLs, NaN / -0.0, several pages
 * and row groups, and the shared flights file (Polars); every predicate set is compared with a
 * row-by-row evaluation (tn_value_compare) over an unfiltered scan of the same file, including
 * the row ids, and scans reused with tn_parquet_scan_reset.
 */
#include "parquet/parquet.h"
#include "testlib.h"

#include <math.h>
#include <unistd.h>

/* Columns of the generated file: id BIGINT (row number, required), i INTEGER (r % 97, NULL
 * every 13th), s VARCHAR ("k" r % 50, NULL every 7th; later rows unique: dictionary fallback),
 * d DOUBLE (NaN / -0.0 / 0.0 / values / NULLs), dt DATE, b BOOLEAN. */
#define NROWS 30000
enum { C_ID, C_I, C_S, C_D, C_DT, C_B, NC };

static int write_file(const char *path, bool dict) {
    tn_parquet_column_spec specs[NC] = {
        {"id", tn_type_make(TN_TYPE_BIGINT), false, -1},
        {"i", tn_type_make(TN_TYPE_INTEGER), true, -1},
        {"s", tn_type_make(TN_TYPE_VARCHAR), true, -1},
        {"d", tn_type_make(TN_TYPE_DOUBLE), true, -1},
        {"dt", tn_type_make(TN_TYPE_DATE), true, -1},
        {"b", tn_type_make(TN_TYPE_BOOLEAN), true, -1},
    };
    tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
    o.dictionary = dict;
    o.row_group_rows = 7000;
    o.page_rows = 900;
    o.dictionary_max_bytes = 2000;       /* s falls back to PLAIN inside a row group */
    tn_type types[NC];
    for (int c = 0; c < NC; c++) types[c] = specs[c].type;
    unlink(path);
    tn_parquet_writer *w = NULL;
    int rc = tn_parquet_writer_open(&w, tn_fs_default(), path, specs, NC, &o);
    if (rc) return rc;
    tn_chunk ch;
    rc = tn_chunk_init(&ch, NC, types, TN_VECTOR_SIZE);
    for (int r0 = 0; r0 < NROWS && !rc; r0 += 1000) {
        tn_chunk_reset(&ch);
        for (uint32_t k = 0; k < 1000; k++) {
            int r = r0 + (int)k;
            ((int64_t *)ch.cols[C_ID].data)[k] = r;
            ((int32_t *)ch.cols[C_I].data)[k] = r % 97;
            if (r % 13 == 0) tn_vector_set_null(&ch.cols[C_I], k);
            char buf[32];
            int n = r < 20000 ? snprintf(buf, sizeof buf, "k%d", r % 50)
                              : snprintf(buf, sizeof buf, "u%07d", r);
            tn_vector_set_str(&ch.cols[C_S], k, buf, (size_t)n);
            if (r % 7 == 0) tn_vector_set_null(&ch.cols[C_S], k);
            double d = (double)(r % 200) - 100.0;
            if (r % 31 == 0) d = NAN;
            if (r % 37 == 0) d = -0.0;
            ((double *)ch.cols[C_D].data)[k] = d;
            if (r % 11 == 0) tn_vector_set_null(&ch.cols[C_D], k);
            ((int32_t *)ch.cols[C_DT].data)[k] = 18000 + r % 400;
            if (r % 1000 < 300) tn_vector_set_null(&ch.cols[C_DT], k);   /* runs of NULLs */
            ((uint8_t *)ch.cols[C_B].data)[k] = (r / 3) % 2;
            if (r % 5 == 0) tn_vector_set_null(&ch.cols[C_B], k);
        }
        for (int c = 0; c < NC; c++) ch.cols[c].count = 1000;
        ch.count = 1000;
        rc = tn_parquet_writer_write(w, &ch);
    }
    tn_chunk_free(&ch);
    if (rc) {
        tn_parquet_writer_abort(w);
        return rc;
    }
    return tn_parquet_writer_close(w, NULL);
}

/* A filter term for the reference evaluation. */
typedef struct term {
    bool in;
    tn_parquet_predicate p;
    tn_parquet_in_list l;
} term;

/* Whether value v (NULL or not) passes t; *unsure for floats the row filter always keeps. */
static bool ref_pass(const term *t, const tn_value *v, bool *unsure) {
    if (t->in) {
        if (v->is_null) return false;
        for (uint32_t i = 0; i < t->l.nvalues; i++)
            if (tn_value_compare(v, &t->l.values[i]) == 0) return true;
        if (v->type.id == TN_TYPE_DOUBLE && (isnan(v->u.d) || v->u.d == 0)) {
            *unsure = true;
            return true;
        }
        return false;
    }
    switch (t->p.op) {
    case TN_PQ_IS_NULL: return v->is_null;
    case TN_PQ_IS_NOT_NULL: return !v->is_null;
    default: break;
    }
    if (v->is_null) return false;
    if (v->type.id == TN_TYPE_DOUBLE && (isnan(v->u.d) || v->u.d == 0 || isnan(t->p.constant.u.d))) {
        *unsure = true;
        return true;
    }
    int c = tn_value_compare(v, &t->p.constant);
    switch (t->p.op) {
    case TN_PQ_EQ: return c == 0;
    case TN_PQ_NE: return c != 0;
    case TN_PQ_LT: return c < 0;
    case TN_PQ_LE: return c <= 0;
    case TN_PQ_GT: return c > 0;
    case TN_PQ_GE: return c >= 0;
    default: return true;
    }
}

static int g_case = -1;            /* for failure messages */

static uint32_t column_of(const term *t) { return t->in ? t->l.column : t->p.column; }

/* Scans cols of f with the terms as row filter and compares rows and row ids with the reference
 * (an unfiltered scan of every column, evaluated here). reuse: one scan reset per row group. */
static void check_filter(tn_parquet_file *f, const uint32_t *cols, uint32_t ncols,
                         const term *terms, uint32_t nterms, bool reuse, int64_t *matched) {
    uint32_t nf = tn_parquet_num_columns(f);
    /* reference */
    uint32_t all[16];
    tn_type atypes[16], types[16];
    for (uint32_t c = 0; c < nf; c++) { all[c] = c; atypes[c] = tn_parquet_column(f, c)->type; }
    for (uint32_t c = 0; c < ncols; c++) types[c] = atypes[cols[c]];
    tn_parquet_scan_options ao = {all, nf, NULL, 0, NULL, 0, NULL};
    tn_parquet_scan *as = NULL;
    CHECK_OK(tn_parquet_scan_open(&as, f, &ao));
    tn_chunk ach, ch;
    CHECK_OK(tn_chunk_init(&ach, nf, atypes, TN_VECTOR_SIZE));
    CHECK_OK(tn_chunk_init(&ch, ncols, types, TN_VECTOR_SIZE));
    /* the row filter ignores terms on columns not read and constants of another type */
    bool filtered[16];
    for (uint32_t t = 0; t < nterms; t++) {
        filtered[t] = false;
        for (uint32_t c = 0; c < ncols; c++) filtered[t] |= cols[c] == column_of(&terms[t]);
        tn_type ct = atypes[column_of(&terms[t])];
        if (!terms[t].in && terms[t].p.op != TN_PQ_IS_NULL && terms[t].p.op != TN_PQ_IS_NOT_NULL &&
            !tn_type_equal(terms[t].p.constant.type, ct))
            filtered[t] = false;
    }
    int64_t nrows = tn_parquet_num_rows(f);
    uint8_t *want = calloc((size_t)nrows + 1, 1);   /* 1 pass, 2 unsure */
    tn_buf *cells = calloc((size_t)nrows + 1, sizeof *cells);
    for (;;) {
        int64_t first = 0;
        CHECK_OK(tn_parquet_scan_next(as, &ach, &first));
        if (ach.count == 0) break;
        for (uint32_t r = 0; r < ach.count; r++) {
            bool ok = true, unsure = false;
            for (uint32_t t = 0; t < nterms && ok; t++) {
                if (!filtered[t]) continue;
                tn_value v;
                tn_vector_get_value(&ach.cols[column_of(&terms[t])], r, &v);
                ok = ref_pass(&terms[t], &v, &unsure);
            }
            want[first + r] = ok ? (unsure ? 2 : 1) : 0;
            if (!ok) continue;
            cells[first + r] = (tn_buf)TN_BUF_INIT;
            for (uint32_t c = 0; c < ncols; c++) {
                tn_value_format(&cells[first + r], &ach.cols[cols[c]], r);
                tn_buf_append(&cells[first + r], "|", 1);
            }
        }
    }
    tn_parquet_scan_close(as);
    /* filtered scan */
    tn_parquet_predicate preds[16];
    tn_parquet_in_list lists[16];
    uint32_t np = 0, nl = 0;
    for (uint32_t t = 0; t < nterms; t++) {     /* (skipping by an ignored term is tested in */
        if (!filtered[t]) continue;              /* test_parquet_read) */
        if (terms[t].in) lists[nl++] = terms[t].l;
        else preds[np++] = terms[t].p;
    }
    tn_parquet_row_filter rf = {preds, np, lists, nl};
    uint32_t nrg = tn_parquet_num_row_groups(f);
    tn_parquet_scan *s = NULL;
    int64_t ids[TN_VECTOR_SIZE], prev = -1, got = 0, expect = 0;
    tn_buf b = TN_BUF_INIT;
    for (int64_t r = 0; r < nrows; r++) expect += want[r] != 0;
    for (uint32_t g = 0; g < (reuse ? nrg : 1); g++) {
        if (!s) {
            tn_parquet_scan_options o = {cols, ncols, reuse ? &g : NULL, reuse ? 1 : 0, preds, np, NULL};
            CHECK_OK(tn_parquet_scan_open(&s, f, &o));
            CHECK_OK(tn_parquet_scan_set_filter(s, &rf));
        } else {
            CHECK_OK(tn_parquet_scan_reset(s, &g, 1));
        }
        for (;;) {
            CHECK_OK(tn_parquet_scan_next_rows(s, &ch, ids));
            if (ch.count == 0) break;
            for (uint32_t r = 0; r < ch.count; r++) {
                int64_t id = ids[r];
                CHECK_MSG(id > prev && id < nrows, "row id %lld after %lld", (long long)id, (long long)prev);
                prev = id;
                CHECK_MSG(want[id] != 0, "case %d: row %lld should have been filtered out", g_case,
                          (long long)id);
                tn_buf_clear(&b);
                for (uint32_t c = 0; c < ncols; c++) {
                    tn_value_format(&b, &ch.cols[c], r);
                    tn_buf_append(&b, "|", 1);
                }
                CHECK_MSG(b.len == cells[id].len && memcmp(b.data, cells[id].data, b.len) == 0,
                          "case %d: row %lld: got %.*s, expected %.*s", g_case, (long long)id, (int)b.len, b.data,
                          (int)cells[id].len, cells[id].data);
                want[id] = 3;
                got++;
            }
        }
    }
    for (int64_t r = 0; r < nrows; r++)
        CHECK_MSG(want[r] != 1, "case %d: row %lld passes but was not returned", g_case,
                  (long long)r);
    *matched = got;
    (void)expect;
    tn_parquet_scan_close(s);
    tn_buf_free(&b);
    for (int64_t r = 0; r < nrows; r++) tn_buf_free(&cells[r]);
    free(cells);
    free(want);
    tn_chunk_free(&ach);
    tn_chunk_free(&ch);
}

static term pred(uint32_t col, tn_parquet_op op, tn_value v) {
    term t;
    memset(&t, 0, sizeof t);
    t.p.column = col;
    t.p.op = op;
    t.p.constant = v;
    return t;
}
static tn_value vi(tn_type_id id, int64_t x) {
    tn_value v = {tn_type_make(id), false, {.i = x}};
    return v;
}
static tn_value vd(double x) {
    tn_value v = {tn_type_make(TN_TYPE_DOUBLE), false, {.d = x}};
    return v;
}
static tn_value vs(const char *s) {
    tn_value v = {tn_type_make(TN_TYPE_VARCHAR), false, {.s = {s, (uint32_t)strlen(s)}}};
    return v;
}
static tn_value vb(bool x) {
    tn_value v = {tn_type_make(TN_TYPE_BOOLEAN), false, {.b = x}};
    return v;
}

static void run_cases(const char *path) {
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, path, NULL));
    uint32_t cols_all[NC] = {C_ID, C_I, C_S, C_D, C_DT, C_B};
    uint32_t cols_some[3] = {C_D, C_S, C_I};
    tn_value inv[3] = {vs("k3"), vs("k17"), vs("u0025000")};
    tn_value ini[2] = {vi(TN_TYPE_INTEGER, 5), vi(TN_TYPE_INTEGER, 90)};
    tn_value ind[2] = {vd(-50), vd(0.0)};
    struct { term t[3]; uint32_t n; int64_t min, max; } cases[] = {
        {{pred(C_I, TN_PQ_EQ, vi(TN_TYPE_INTEGER, 42))}, 1, 250, 350},
        {{pred(C_S, TN_PQ_EQ, vs("k7")), pred(C_I, TN_PQ_GT, vi(TN_TYPE_INTEGER, 50))}, 2, 1, 400},
        {{pred(C_S, TN_PQ_IS_NULL, vi(TN_TYPE_INTEGER, 0))}, 1, 4000, 4500},
        {{pred(C_DT, TN_PQ_IS_NOT_NULL, vi(TN_TYPE_INTEGER, 0)), pred(C_B, TN_PQ_EQ, vb(true))}, 2, 1, NROWS},
        {{pred(C_D, TN_PQ_GE, vd(90)), pred(C_D, TN_PQ_LT, vd(95))}, 2, 1, NROWS},
        {{pred(C_D, TN_PQ_NE, vd(10))}, 1, 1, NROWS},
        {{pred(C_S, TN_PQ_GT, vs("u0029990"))}, 1, 5, 10},
        {{pred(C_DT, TN_PQ_LE, vi(TN_TYPE_DATE, 18010))}, 1, 1, NROWS},
        {{pred(C_ID, TN_PQ_LT, vi(TN_TYPE_BIGINT, 0))}, 1, 0, 0},
        {{pred(C_I, TN_PQ_EQ, vi(TN_TYPE_BIGINT, 42))}, 1, 1, NROWS},    /* other type: ignored */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int reuse = 0; reuse < 2; reuse++) {
            int64_t m = -1;
            g_case = (int)k;
            check_filter(f, cols_all, NC, cases[k].t, cases[k].n, reuse, &m);
            if (tn_test_failed_flag) { tn_parquet_close(f); return; }
            CHECK_MSG(m >= cases[k].min && m <= cases[k].max, "case %zu: %lld rows", k, (long long)m);
            check_filter(f, cols_some, 3, cases[k].t, cases[k].n, reuse, &m);
            if (tn_test_failed_flag) { tn_parquet_close(f); return; }
        }
    }
    term in1[2];
    memset(in1, 0, sizeof in1);
    in1[0].in = true;
    in1[0].l = (tn_parquet_in_list){C_S, inv, 3};
    in1[1].in = true;
    in1[1].l = (tn_parquet_in_list){C_I, ini, 2};
    int64_t m = 0;
    g_case = 100;
    check_filter(f, cols_all, NC, in1, 1, false, &m);
    CHECK_EQ_INT(m, 687);           /* 2 x 400 rows of k3, k17 minus every 7th (NULL) + u0025000 */
    check_filter(f, cols_all, NC, in1, 2, true, &m);
    term in2;
    memset(&in2, 0, sizeof in2);
    in2.in = true;
    in2.l = (tn_parquet_in_list){C_D, ind, 2};
    g_case = 101;
    check_filter(f, cols_some, 3, &in2, 1, false, &m);
    tn_parquet_close(f);
}

TEST(filter_dictionary_pages) {
    char path[128];
    snprintf(path, sizeof path, "/tmp/tarn_test_pqf_dict_%d.parquet", (int)getpid());
    CHECK_OK(write_file(path, true));
    run_cases(path);
    unlink(path);
}

TEST(filter_plain_pages) {
    char path[128];
    snprintf(path, sizeof path, "/tmp/tarn_test_pqf_plain_%d.parquet", (int)getpid());
    CHECK_OK(write_file(path, false));
    run_cases(path);
    unlink(path);
}

/* The shared flights file (written by Polars: dictionary pages with PLAIN fallback). */
TEST(filter_flights) {
    char path[1024];
    snprintf(path, sizeof path, "%s/datasets/flights-3m.parquet", tn_test_data_dir());
    tn_parquet_file *f = NULL;
    CHECK_OK(tn_parquet_open(&f, NULL, path, NULL));
    uint32_t cols[3] = {3, 1, 2};   /* origin, delay, distance */
    term t[2] = {pred(3, TN_PQ_EQ, vs("JFK")), pred(1, TN_PQ_GT, vi(TN_TYPE_BIGINT, 60))};
    int64_t m = 0;
    check_filter(f, cols, 3, t, 2, true, &m);
    CHECK_EQ_INT(m, 2869);          /* DuckDB: count(*) WHERE origin = 'JFK' AND delay > 60 */
    tn_parquet_close(f);
}

TEST_MAIN()
