/*
 * tests/unit/test_sql_engine.c: the SQL engine through sql/sql.h: results (names, types,
 * values as DuckDB answers them), binder errors with positions, parameters, scan counters and
 * pushdown, EXPLAIN, memory limit, thread-count independence, the group hash table, window
 * functions, correlated scalar subqueries, INTERVAL text and keys (GROUP BY / DISTINCT /
 * ORDER BY / join on normalized intervals), streaming results (same rows in the same order as
 * materialized ones, bounded memory, errors after the first chunk, early free, another
 * statement while one streams; also through the C API).
 * Expected values come from DuckDB 1.5 on the same data (tests/sql/data, flights-3m).
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"
#include "sql/sql.h"
#include "tarn.h"
#include "testlib.h"

static char g_t1[2048], g_flights[2048];

static void paths(void) {
    snprintf(g_t1, sizeof g_t1, "tests/sql/data/t1.parquet");
    snprintf(g_flights, sizeof g_flights, "%s/datasets/flights-3m.parquet", tn_test_data_dir());
}

/* Runs sql and returns the text of row r, column c of the result (static buffer). */
static const char *cell(tn_sql_result *res, int64_t r, uint32_t c) {
    static char buf[256];
    tn_sql_result_rewind(res);
    const tn_chunk *ch;
    while ((ch = tn_sql_result_next(res)) != NULL) {
        if (r < ch->count) {
            tn_buf b = TN_BUF_INIT;
            if (!tn_vector_is_valid(&ch->cols[c], (uint32_t)r)) snprintf(buf, sizeof buf, "NULL");
            else {
                tn_value_format(&b, &ch->cols[c], (uint32_t)r);
                snprintf(buf, sizeof buf, "%.*s", (int)b.len, b.data ? (const char *)b.data : "");
            }
            tn_buf_free(&b);
            return buf;
        }
        r -= ch->count;
    }
    return "<no row>";
}

static tn_sql_result *run(tn_sql_session *s, const char *sql) {
    tn_sql_result *r = NULL;
    if (tn_sql_execute(&r, s, sql) != 0) {
        fprintf(stderr, "query failed: %s\n  %s\n", sql, tn_error_message());
        return NULL;
    }
    return r;
}

TEST(select_constants) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    tn_sql_result *r = run(s, "SELECT 1 + 2, 7 / 2, 'a' || 'b' AS s, NULL, DATE '2024-02-29' + 1");
    CHECK(r != NULL);
    CHECK_EQ_INT(tn_sql_result_ncols(r), 5);
    CHECK_EQ_STR(tn_sql_result_name(r, 0), "(1 + 2)");
    CHECK_EQ_STR(tn_sql_result_name(r, 2), "s");
    CHECK_EQ_INT(tn_sql_result_type(r, 0).id, TN_TYPE_INTEGER);
    CHECK_EQ_INT(tn_sql_result_type(r, 1).id, TN_TYPE_DOUBLE);
    CHECK_EQ_STR(cell(r, 0, 0), "3");
    CHECK_EQ_STR(cell(r, 0, 1), "3.5");
    CHECK_EQ_STR(cell(r, 0, 2), "ab");
    CHECK_EQ_STR(cell(r, 0, 3), "NULL");
    CHECK_EQ_STR(cell(r, 0, 4), "2024-03-01");
    tn_sql_result_free(r);
    tn_sql_session_close(s);
}

TEST(flights_group_by_matches_duckdb) {
    paths();
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 0));
    char sql[4096];
    snprintf(sql, sizeof sql, "SELECT origin, count(*), avg(delay) FROM read_parquet('%s') GROUP BY origin "
             "ORDER BY 2 DESC LIMIT 5", g_flights);
    tn_sql_result *r = run(s, sql);
    CHECK(r != NULL);
    CHECK_EQ_INT(tn_sql_result_nrows(r), 5);
    CHECK_EQ_STR(tn_sql_result_name(r, 1), "count_star()");
    /* DuckDB 1.5.6 */
    CHECK_EQ_STR(cell(r, 0, 0), "ORD");
    CHECK_EQ_STR(cell(r, 0, 1), "166341");
    CHECK_EQ_STR(cell(r, 0, 2), "9.27365472132547");
    CHECK_EQ_STR(cell(r, 4, 0), "PHX");
    CHECK_EQ_STR(cell(r, 4, 2), "9.994400017197643");
    const tn_sql_stats *st = tn_sql_result_stats(r);
    CHECK_EQ_INT(st->table_rows, 3000000);
    CHECK_EQ_INT(st->rows_scanned, 3000000);
    CHECK_EQ_INT(st->row_groups_scanned, 11);
    CHECK_EQ_INT(st->files_scanned, 1);
    tn_sql_result_free(r);
    tn_sql_session_close(s);
}

TEST(results_do_not_depend_on_threads) {
    paths();
    char sql[4096];
    snprintf(sql, sizeof sql, "SELECT origin, destination, count(*), sum(distance), min(delay) FROM read_parquet('%s') "
             "WHERE delay > 30 GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 20", g_flights);
    tn_buf out[2] = {TN_BUF_INIT, TN_BUF_INIT};
    int threads[2] = {1, 4};
    for (int k = 0; k < 2; k++) {
        tn_sql_session *s = NULL;
        CHECK_OK(tn_sql_session_open(&s, NULL, threads[k]));
        tn_sql_result *r = run(s, sql);
        CHECK(r != NULL);
        for (int64_t i = 0; r && i < tn_sql_result_nrows(r); i++)
            for (uint32_t c = 0; c < 5; c++) tn_buf_printf(&out[k], "%s|", cell(r, i, c));
        tn_sql_result_free(r);
        tn_sql_session_close(s);
    }
    CHECK(out[0].len > 0);
    CHECK(out[0].len == out[1].len && memcmp(out[0].data, out[1].data, out[0].len) == 0);
    tn_buf_free(&out[0]);
    tn_buf_free(&out[1]);
}

TEST(pushdown_skips_row_groups) {
    paths();
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    char sql[4096];
    /* flights-3m is ordered by date: 11 row groups, the last one holds June 20 onwards */
    snprintf(sql, sizeof sql, "SELECT count(*) FROM read_parquet('%s') WHERE date >= TIMESTAMP '2001-06-20'", g_flights);
    tn_sql_result *r = run(s, sql);
    CHECK(r != NULL);
    CHECK_EQ_STR(cell(r, 0, 0), "185538");   /* DuckDB 1.5.6 */
    const tn_sql_stats *st = tn_sql_result_stats(r);
    CHECK_EQ_INT(st->table_rows, 3000000);
    CHECK_EQ_INT(st->row_groups_scanned, 1);
    CHECK(st->rows_scanned < 300000);
    tn_sql_result_free(r);
    /* count(*) alone reads no column data */
    snprintf(sql, sizeof sql, "SELECT count(*) FROM read_parquet('%s')", g_t1);
    r = run(s, sql);
    CHECK(r != NULL);
    CHECK_EQ_STR(cell(r, 0, 0), "1000");
    CHECK_EQ_INT(tn_sql_result_stats(r)->bytes_scanned, 0);
    tn_sql_result_free(r);
    tn_sql_session_close(s);
}

TEST(explain_shows_pushed_predicates) {
    paths();
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    char sql[4096];
    snprintf(sql, sizeof sql, "EXPLAIN SELECT grp, count(*) FROM read_parquet('%s') WHERE id > 900 GROUP BY grp", g_t1);
    tn_sql_result *r = run(s, sql);
    CHECK(r != NULL);
    tn_buf all = TN_BUF_INIT;
    for (int64_t i = 0; r && i < tn_sql_result_nrows(r); i++) tn_buf_printf(&all, "%s\n", cell(r, i, 0));
    tn_buf_append_byte(&all, 0);
    CHECK(strstr((const char *)all.data, "HASH_AGGREGATE") != NULL);
    CHECK(strstr((const char *)all.data, "pushed: [id > 900]") != NULL);
    CHECK(strstr((const char *)all.data, "columns: [id, grp]") != NULL);
    tn_buf_free(&all);
    tn_sql_result_free(r);
    snprintf(sql, sizeof sql, "EXPLAIN ANALYZE SELECT count(*) FROM read_parquet('%s') WHERE id > 900", g_t1);
    r = run(s, sql);
    CHECK(r != NULL);
    CHECK(r && strstr(cell(r, 0, 0), "rows: 1") != NULL);
    tn_sql_result_free(r);
    tn_sql_session_close(s);
}

/* A CTE referenced twice is computed once (optimize_cte.c): its scan produces the file's 1000
 * rows once, not twice; one referenced once is inlined, so filters still reach its scan. */
TEST(cte_referenced_twice_computed_once) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    char sql[4096];
    snprintf(sql, sizeof sql, "EXPLAIN ANALYZE WITH c AS (SELECT grp, count(*) AS n FROM read_parquet('%s') GROUP BY grp) "
             "SELECT count(*), sum(a.n) FROM c a, c b WHERE a.grp = b.grp", g_t1);
    tn_sql_result *r = run(s, sql);
    CHECK(r != NULL);
    tn_buf all = TN_BUF_INIT;
    for (int64_t i = 0; r && i < tn_sql_result_nrows(r); i++) tn_buf_printf(&all, "%s\n", cell(r, i, 0));
    tn_buf_append_byte(&all, 0);
    const char *t = (const char *)all.data;
    CHECK(strstr(t, "CTE_SCAN c (computed once)") != NULL);
    CHECK(strstr(t, "columns: [grp]  (rows: 1000,") != NULL);
    tn_buf_free(&all);
    tn_sql_result_free(r);
    snprintf(sql, sizeof sql, "WITH c AS (SELECT grp, count(*) AS n FROM read_parquet('%s') GROUP BY grp) "
             "SELECT count(*), sum(a.n) FROM c a, c b WHERE a.grp = b.grp", g_t1);
    r = run(s, sql);
    CHECK(r && strcmp(cell(r, 0, 0), "5") == 0 && strcmp(cell(r, 0, 1), "858") == 0);   /* DuckDB: 5, 858 */
    tn_sql_result_free(r);
    snprintf(sql, sizeof sql, "EXPLAIN WITH c AS (SELECT grp, count(*) AS n FROM read_parquet('%s') GROUP BY grp) "
             "SELECT n FROM c WHERE grp = 'a'", g_t1);
    r = run(s, sql);
    CHECK(r != NULL);
    all = (tn_buf)TN_BUF_INIT;
    for (int64_t i = 0; r && i < tn_sql_result_nrows(r); i++) tn_buf_printf(&all, "%s\n", cell(r, i, 0));
    tn_buf_append_byte(&all, 0);
    t = (const char *)all.data;
    CHECK(strstr(t, "CTE_SCAN") == NULL);
    CHECK(strstr(t, "pushed: [grp = a]") != NULL);
    tn_buf_free(&all);
    tn_sql_result_free(r);
    tn_sql_session_close(s);
}

TEST(binder_errors_name_position) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 1));
    tn_sql_result *r = NULL;
    int rc = tn_sql_execute(&r, s, "SELECT x\nFROM (VALUES (1)) t(x)\nWHERE yy > 1");
    CHECK_EQ_INT(rc, TN_EBIND);
    CHECK(strstr(tn_error_message(), "Referenced column \"yy\" not found") != NULL);
    CHECK(strstr(tn_error_message(), "line 3, column 7") != NULL);
    CHECK_EQ_INT(tn_sql_error_pos().line, 3);
    CHECK_EQ_INT(tn_sql_error_pos().col, 7);
    rc = tn_sql_execute(&r, s, "SELECT x, count(*) FROM (VALUES (1)) t(x)");
    CHECK_EQ_INT(rc, TN_EBIND);
    CHECK(strstr(tn_error_message(), "must appear in the GROUP BY clause") != NULL);
    rc = tn_sql_execute(&r, s, "WITH RECURSIVE t(n) AS (SELECT 1) SELECT * FROM t");
    CHECK_EQ_INT(rc, TN_EUNSUPPORTED);
    CHECK(strstr(tn_error_message(), "WITH RECURSIVE is not supported yet") != NULL);
    rc = tn_sql_execute(&r, s, "SELECT (1");
    CHECK_EQ_INT(rc, TN_ESYNTAX);
    CHECK(tn_sql_error_pos().line == 1);
    tn_sql_session_close(s);
}

TEST(parameters) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 1));
    tn_sql_script *sc = NULL;
    const char *sql = "SELECT x * $1, $2 || 'z' FROM (VALUES (1), (2)) t(x) WHERE x >= $1 ORDER BY 1";
    CHECK_OK(tn_sql_script_parse(&sc, s, sql, strlen(sql)));
    CHECK_EQ_INT(tn_sql_script_nparams(sc, 0), 2);
    tn_value p[2];
    memset(p, 0, sizeof p);
    p[0].type = tn_type_make(TN_TYPE_INTEGER);
    p[0].u.i = 2;
    p[1].type = tn_type_make(TN_TYPE_VARCHAR);
    p[1].u.s.ptr = "y";
    p[1].u.s.len = 1;
    tn_sql_result *r = NULL;
    CHECK_OK(tn_sql_script_execute(&r, sc, 0, p, 2));
    CHECK_EQ_INT(tn_sql_result_nrows(r), 1);
    CHECK_EQ_STR(cell(r, 0, 0), "4");
    CHECK_EQ_STR(cell(r, 0, 1), "yz");
    tn_sql_result_free(r);
    CHECK(tn_sql_script_execute(&r, sc, 0, p, 1) != 0);
    tn_sql_script_free(sc);
    tn_sql_session_close(s);
}

TEST(memory_limit) {
    paths();
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    tn_sql_session_set_memory_limit(s, 1 << 20);
    char sql[4096];
    snprintf(sql, sizeof sql, "SELECT * FROM read_parquet('%s') ORDER BY delay", g_flights);
    tn_sql_result *r = NULL;
    int rc = tn_sql_execute(&r, s, sql);
    CHECK_EQ_INT(rc, TN_ELIMIT);
    CHECK(strstr(tn_error_message(), "memory limit") != NULL);
    tn_sql_session_close(s);
}

/* A 50,000-term OR chain binds and runs as the AND chain does (an n-ary node, no deep
 * recursion), with the answer SQL gives: the rows equal to one of the terms. */
TEST(long_or_chain) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    tn_buf q = TN_BUF_INIT;
    CHECK_OK(tn_buf_printf(&q, "SELECT count(*) FROM (VALUES (1), (2), (60000), (NULL)) t(x) WHERE x = 0"));
    for (int i = 1; i < 50000; i++) CHECK_OK(tn_buf_printf(&q, " OR x = %d", i));
    CHECK_OK(tn_buf_append_byte(&q, 0));
    tn_sql_result *r = NULL;
    CHECK_OK(tn_sql_execute(&r, s, (const char *)q.data));
    const tn_chunk *ch = NULL;
    CHECK_OK(tn_sql_result_fetch(r, &ch));
    CHECK(ch && ch->count == 1);
    CHECK_EQ_INT(((const int64_t *)ch->cols[0].data)[0], 2);
    tn_sql_result_free(r);
    tn_buf_free(&q);
    tn_sql_session_close(s);
}

TEST(group_table) {
    tn_type t[2] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_VARCHAR)};
    tn_group_table gt;
    CHECK_OK(tn_group_table_init(&gt, 2, t));
    tn_vector a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    CHECK_OK(tn_vector_init(&a, t[0], 2048));
    CHECK_OK(tn_vector_init(&b, t[1], 2048));
    uint32_t gids[2048];
    uint32_t total = 0;
    for (int round = 0; round < 3; round++) {
        tn_vector_reset(&a);
        tn_vector_reset(&b);
        for (uint32_t i = 0; i < 2048; i++) {
            uint32_t k = (i * 7 + (uint32_t)round * 2048) % 5000;
            ((int64_t *)a.data)[i] = k % 1000;
            char s[16];
            int n = snprintf(s, sizeof s, "s%u", k / 1000);
            CHECK_OK(tn_vector_set_str(&b, i, s, (size_t)n));
            if (k % 97 == 0) CHECK_OK(tn_vector_set_null(&a, i));
        }
        a.count = b.count = 2048;
        tn_vector *keys[2] = {&a, &b};
        CHECK_OK(tn_group_table_lookup(&gt, keys, 2048, gids));
        /* the same key twice gets the same group */
        uint32_t again[2048];
        CHECK_OK(tn_group_table_lookup(&gt, keys, 2048, again));
        CHECK(memcmp(gids, again, sizeof gids) == 0);
        total = gt.ngroups;
    }
    CHECK(total > 1000 && total <= 5000);
    tn_vector_free(&a);
    tn_vector_free(&b);
    tn_group_table_free(&gt);
}

/* Window functions over flights-3m: a WINDOW node over an aggregate, and partitions of 3M rows
 * (values from DuckDB 1.5). Both with 1 and 2 threads. */
TEST(window_functions_match_duckdb) {
    paths();
    char sql[4096];
    for (int threads = 1; threads <= 2; threads++) {
        tn_sql_session *s = NULL;
        CHECK_OK(tn_sql_session_open(&s, NULL, threads));
        snprintf(sql, sizeof sql, "SELECT origin, count(*) AS n, rank() OVER (ORDER BY count(*) DESC, origin) AS r, "
                 "sum(delay) FILTER (WHERE delay > 0) AS s, round(avg(avg(delay)) OVER (), 6) AS a FROM read_parquet('%s') "
                 "GROUP BY origin ORDER BY r LIMIT 3", g_flights);
        tn_sql_result *r = run(s, sql);
        CHECK(r != NULL);
        if (r) {
            CHECK_EQ_INT(tn_sql_result_nrows(r), 3);
            CHECK_EQ_STR(cell(r, 0, 0), "ORD");
            CHECK_EQ_STR(cell(r, 0, 1), "166341");
            CHECK_EQ_STR(cell(r, 1, 0), "DFW");
            CHECK_EQ_STR(cell(r, 2, 2), "3");
            CHECK_EQ_STR(cell(r, 2, 3), "1598662");
            CHECK_EQ_STR(cell(r, 1, 4), "5.907794");
            CHECK_EQ_STR(tn_sql_result_name(r, 2), "r");
            CHECK_EQ_INT(tn_sql_result_type(r, 2).id, TN_TYPE_BIGINT);
        }
        tn_sql_result_free(r);
        snprintf(sql, sizeof sql, "SELECT count(*), sum(rn), max(lagd) FROM (SELECT row_number() OVER (PARTITION BY origin "
                 "ORDER BY date, delay, distance, destination) rn, delay - lag(delay, 1, 0) OVER (PARTITION BY origin "
                 "ORDER BY date, delay, distance, destination) lagd FROM read_parquet('%s'))", g_flights);
        r = run(s, sql);
        CHECK(r != NULL);
        if (r) {
            CHECK_EQ_STR(cell(r, 0, 0), "3000000");
            CHECK_EQ_STR(cell(r, 0, 1), "90724520231");
            CHECK_EQ_STR(cell(r, 0, 2), "1690");
        }
        tn_sql_result_free(r);
        tn_sql_session_close(s);
    }
}

/* Correlated scalar subqueries become LEFT JOINs on a grouped aggregate; COUNT of no rows is 0. */
TEST(correlated_scalar_subquery) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    tn_sql_result *r = run(s, "WITH t1(a, k) AS (VALUES (1, 1), (2, 2), (3, NULL), (4, 9)), "
                              "t2(k, x) AS (VALUES (1, 10), (1, 30), (2, 5), (NULL, 7)) "
                              "SELECT a, (SELECT max(x) FROM t2 WHERE t2.k = t1.k) mx, "
                              "(SELECT count(*) FROM t2 WHERE t2.k = t1.k AND x > 6) c FROM t1 ORDER BY a");
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ_INT(tn_sql_result_nrows(r), 4);
        CHECK_EQ_STR(cell(r, 0, 1), "30");
        CHECK_EQ_STR(cell(r, 0, 2), "2");
        CHECK_EQ_STR(cell(r, 1, 1), "5");
        CHECK_EQ_STR(cell(r, 1, 2), "0");
        CHECK_EQ_STR(cell(r, 2, 1), "NULL");
        CHECK_EQ_STR(cell(r, 3, 2), "0");
    }
    tn_sql_result_free(r);
    /* a form that does not decorrelate still says so, with a position */
    r = NULL;
    CHECK(tn_sql_execute(&r, s, "WITH t(a) AS (VALUES (1)) SELECT (SELECT a FROM t u WHERE u.a > t.a) FROM t") != 0);
    CHECK(strstr(tn_error_message(), "not supported") != NULL);
    CHECK(tn_sql_error_pos().line == 1);
    tn_sql_session_close(s);
}

/* INTERVAL text both ways, as DuckDB spells it. */
TEST(interval_text) {
    static const struct { const char *in, *out; } cases[] = {
        {"1 day", "1 day"}, {"2 hours", "02:00:00"}, {"1 year 2 months", "1 year 2 months"},
        {"-1 day 3 hours", "-1 day 03:00:00"}, {"90 minutes 1.5 seconds", "01:30:01.5"},
        {"0 days", "00:00:00"}, {"36 hours", "36:00:00"}, {"1 day 02:03:04.5", "1 day 02:03:04.5"},
        {"2 millisecond", "00:00:00.002"}, {"1.5 days", "1 day 12:00:00"}, {"1.5 years", "1 year 6 months"},
        {"1.5 months", "1 month 15 days"}, {"-14 months", "-1 year -2 months"}, {"2 days ago", "-2 days"},
        {"100:00:00", "100:00:00"}, {"1 h 2 m 3 s", "01:02:03"}, {"3 weeks", "21 days"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tn_interval iv;
        CHECK_OK(tn_parse_interval(cases[i].in, strlen(cases[i].in), &iv));
        char buf[TN_FORMAT_BUF_SIZE];
        tn_format_interval(buf, sizeof buf, iv);
        CHECK_EQ_STR(buf, cases[i].out);
    }
    tn_interval iv;
    CHECK(tn_parse_interval("abc", 3, &iv) == TN_EINVAL);
    CHECK(tn_parse_interval("", 0, &iv) == TN_EINVAL);
    CHECK(tn_parse_interval("1 fortnight", 11, &iv) == TN_EINVAL);
    CHECK(tn_parse_interval("99999999999 years", 17, &iv) != 0);
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 1));
    tn_sql_result *r = run(s, "SELECT TIMESTAMP '2024-01-02 10:00:00' - TIMESTAMP '2024-01-01 08:30:00', "
                              "DATE '2024-01-31' + INTERVAL 1 MONTH");
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ_INT(tn_sql_result_type(r, 0).id, TN_TYPE_INTERVAL);
        CHECK_EQ_STR(cell(r, 0, 0), "1 day 01:30:00");
        CHECK_EQ_INT(tn_sql_result_type(r, 1).id, TN_TYPE_TIMESTAMP);
        CHECK_EQ_STR(cell(r, 0, 1), "2024-02-29 00:00:00");
    }
    tn_sql_result_free(r);
    uint64_t done = 1, total = 1;
    CHECK(!tn_sql_session_progress(s, &done, &total));   /* nothing runs now */
    CHECK_EQ_INT(done, 0);
    tn_sql_session_close(s);
}

/* Text of column 0 of every row, one per line (materialized or streaming). */
static char *all_rows(tn_sql_result *r, uint32_t ncols) {
    tn_buf b = TN_BUF_INIT;
    const tn_chunk *ch = NULL;
    while (tn_sql_result_fetch(r, &ch) == 0 && ch)
        for (uint32_t i = 0; i < ch->count; i++) {
            for (uint32_t c = 0; c < ncols; c++) {
                if (c) tn_buf_append_byte(&b, '|');
                if (!tn_vector_is_valid(&ch->cols[c], i)) tn_buf_printf(&b, "NULL");
                else tn_value_format(&b, &ch->cols[c], i);
            }
            tn_buf_append_byte(&b, '\n');
        }
    tn_buf_append_byte(&b, 0);
    return (char *)b.data;
}

/* GROUP BY / DISTINCT / ORDER BY / joins on INTERVAL compare the normalized length, as DuckDB
 * does: 1 month = 30 days = 720 hours (expected rows from DuckDB 1.5). */
TEST(interval_keys_match_duckdb) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    static const struct { const char *sql, *want; } cases[] = {
        {"SELECT CAST(i AS VARCHAR), count(*) FROM (VALUES (INTERVAL '1 month'), (INTERVAL '30 days'), "
         "(INTERVAL '720 hours'), (INTERVAL '1 day')) t(i) GROUP BY i ORDER BY 2, 1",
         "1 day|1\n1 month|3\n"},
        {"SELECT count(*) FROM (SELECT DISTINCT i FROM (VALUES (INTERVAL '1 month'), (INTERVAL '30 days'), "
         "(INTERVAL '1 day'), (INTERVAL '24 hours'), (INTERVAL '1 day 1 microsecond')) t(i))",
         "3\n"},
        {"SELECT CAST(i AS VARCHAR) FROM (VALUES (INTERVAL '1 month'), (INTERVAL '29 days 25 hours'), "
         "(INTERVAL '1 day'), (INTERVAL '-1 day'), (INTERVAL '1 year'), (INTERVAL '11 months 31 days')) t(i) ORDER BY i DESC, 1",
         "11 months 31 days\n1 year\n29 days 25:00:00\n1 month\n1 day\n-1 day\n"},
        {"SELECT a.k, b.k FROM (VALUES (1, INTERVAL '1 month'), (2, INTERVAL '2 days')) a(k, i) "
         "JOIN (VALUES (10, INTERVAL '30 days'), (20, INTERVAL '48 hours'), (30, INTERVAL '3 days')) b(k, i) "
         "ON a.i = b.i ORDER BY 1",
         "1|10\n2|20\n"},
        {"SELECT count(DISTINCT i) FROM (VALUES (INTERVAL '2 hours'), (INTERVAL '120 minutes'), (INTERVAL '7200 seconds')) t(i)",
         "1\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tn_sql_result *r = run(s, cases[k].sql);
        CHECK_MSG(r != NULL, "query %zu failed", k);
        if (!r) continue;
        char *got = all_rows(r, tn_sql_result_ncols(r));
        CHECK_MSG(strcmp(got, cases[k].want) == 0, "query %zu: got\n%swant\n%s", k, got, cases[k].want);
        free(got);
        tn_sql_result_free(r);
    }
    tn_sql_session_close(s);
}

/* An order-sensitive digest of every value of a result, read chunk by chunk. */
static int digest(tn_sql_result *r, uint64_t *h, int64_t *rows, uint32_t *chunks) {
    *h = 1469598103934665603ULL;
    *rows = 0;
    *chunks = 0;
    const tn_chunk *ch = NULL;
    uint64_t hv[TN_VECTOR_SIZE];
    int rc;
    while ((rc = tn_sql_result_fetch(r, &ch)) == 0 && ch) {
        (*chunks)++;
        for (uint32_t c = 0; c < ch->ncols; c++) tn_vector_hash(&ch->cols[c], ch->count, hv, c == 0);
        for (uint32_t i = 0; i < ch->count; i++) *h = (*h ^ hv[i]) * 1099511628211ULL;
        *rows += ch->count;
    }
    return rc;
}

static uint64_t peak_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    uint64_t v = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) v = strtoull(line + 6, NULL, 10);
    if (f) fclose(f);
    return v;
}

static uint64_t rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    uint64_t v = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) v = strtoull(line + 6, NULL, 10);
    if (f) fclose(f);
    return v;
}

/* Streaming results hold the same rows in the same order as materialized ones, for 1 and 2
 * threads, with and without LIMIT; blocking plans, small inputs (t1: a few rows,
 * tn_exec_small) and small top-Ns are not streamed; a full ORDER BY is. */
TEST(streaming_matches_materialized) {
    paths();
    char q[5][4096];
    snprintf(q[0], sizeof q[0], "SELECT * FROM read_parquet('%s') WHERE distance > 2500", g_flights);
    snprintf(q[1], sizeof q[1], "SELECT origin, delay * 2 AS d FROM read_parquet('%s') WHERE delay > 100 LIMIT 7000 OFFSET 11", g_flights);
    snprintf(q[2], sizeof q[2], "SELECT * FROM read_parquet('%s')", g_t1);
    snprintf(q[3], sizeof q[3], "SELECT origin, count(*) FROM read_parquet('%s') GROUP BY origin ORDER BY 2 DESC LIMIT 5", g_flights);
    snprintf(q[4], sizeof q[4], "SELECT origin, delay FROM read_parquet('%s') WHERE delay > 60 ORDER BY delay DESC, origin", g_flights);
    for (int threads = 1; threads <= 2; threads++) {
        tn_sql_session *s = NULL;
        CHECK_OK(tn_sql_session_open(&s, NULL, threads));
        for (int k = 0; k < 5; k++) {
            tn_sql_script *sc = NULL;
            CHECK_OK(tn_sql_script_parse(&sc, s, q[k], strlen(q[k])));
            tn_sql_result *m = NULL, *st = NULL;
            CHECK_OK(tn_sql_script_execute(&m, sc, 0, NULL, 0));
            CHECK_OK(tn_sql_script_execute_stream(&st, sc, 0, NULL, 0));
            if (!m || !st) {
                tn_sql_result_free(m);
                tn_sql_result_free(st);
                tn_sql_script_free(sc);
                continue;
            }
            CHECK_EQ_INT(tn_sql_result_streaming(st), k < 2 || k == 4);
            CHECK_EQ_INT(tn_sql_result_streaming(m), false);
            uint64_t h1, h2;
            int64_t n1, n2;
            uint32_t c1, c2;
            CHECK_OK(digest(m, &h1, &n1, &c1));
            CHECK_OK(digest(st, &h2, &n2, &c2));
            CHECK_MSG(n1 == n2 && h1 == h2, "threads %d query %d: %lld rows vs %lld streamed", threads, k,
                      (long long)n1, (long long)n2);
            CHECK(n1 > 0);
            CHECK_EQ_INT(tn_sql_result_nrows(st), n1);
            CHECK_EQ_INT(tn_sql_result_error(st), 0);
            CHECK_EQ_INT(tn_sql_result_streaming(st), false);       /* at its end */
            CHECK(tn_sql_result_stats(st)->rows_scanned > 0);
            tn_sql_result_free(m);
            tn_sql_result_free(st);
            tn_sql_script_free(sc);
        }
        tn_sql_session_close(s);
    }
}

/* SELECT * of 3M rows streamed: the peak RSS grows by a few MB, not by the ~200 MB the rows take
 * (not checked under ASan, whose quarantine keeps freed memory). */
TEST(streaming_bounded_memory) {
    paths();
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    char sql[4096];
    snprintf(sql, sizeof sql, "SELECT * FROM read_parquet('%s')", g_flights);
    FILE *f = fopen("/proc/self/clear_refs", "w");
    bool reset = f && fputs("5", f) >= 0;
    if (f && fclose(f) != 0) reset = false;
    uint64_t base = rss_kb();
    tn_sql_result *r = NULL;
    CHECK_OK(tn_sql_execute_stream(&r, s, sql));
    if (r) {
        uint64_t h;
        int64_t n;
        uint32_t chunks;
        CHECK_OK(digest(r, &h, &n, &chunks));
        CHECK_EQ_INT(n, 3000000);
        CHECK(chunks >= 3000000 / TN_VECTOR_SIZE);
    }
    uint64_t peak = peak_kb();
    tn_sql_result_free(r);
#if !defined(__SANITIZE_ADDRESS__)
    if (reset && peak && base) {
        CHECK_MSG(peak - base < 80 * 1024, "peak RSS grew by %llu KB while streaming 3M rows",
                  (unsigned long long)(peak - base));
    }
#endif
    (void)base;
    (void)peak;
    (void)reset;
    tn_sql_session_close(s);
}

/* A cast that fails in the second chunk: on one thread, the first chunk arrives, then the fetch
 * fails with DuckDB's message, and the error is kept. On two threads another row group may fail
 * first: then the rows before the failure (maybe none: execute fails) are a prefix of the
 * file's, never rows of a later row group. */
TEST(streaming_error_after_first_chunk) {
    paths();
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 1));
    char sql[4096];
    /* the first distance > 4900 is row 2757 of the file */
    snprintf(sql, sizeof sql, "SELECT distance, CAST(CASE WHEN distance > 4900 THEN 'x' ELSE '1' END AS INTEGER) "
             "FROM read_parquet('%s')", g_flights);
    tn_sql_result *r = NULL;
    CHECK_OK(tn_sql_execute_stream(&r, s, sql));
    if (r) {
        const tn_chunk *ch = NULL;
        CHECK_OK(tn_sql_result_fetch(r, &ch));
        CHECK(ch != NULL && ch->count > 0);
        int rc = 0;
        int64_t rows = ch ? ch->count : 0;
        while ((rc = tn_sql_result_fetch(r, &ch)) == 0 && ch) rows += ch->count;
        CHECK(rc < 0);
        CHECK(rows < 2757);
        CHECK(strstr(tn_error_message(), "Could not convert string 'x' to INT32") != NULL);
        CHECK_EQ_INT(tn_sql_result_error(r), rc);
        CHECK(tn_sql_result_next(r) == NULL);
        tn_sql_result_free(r);
    }
    /* the session is usable afterwards */
    tn_sql_result *r2 = run(s, "SELECT 42");
    CHECK(r2 != NULL);
    if (r2) CHECK_EQ_STR(cell(r2, 0, 0), "42");
    tn_sql_result_free(r2);
    tn_sql_session_close(s);
    /* two threads, many times: a failure is reported, the rows before it are the file's first */
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    for (int k = 0; k < 8 && s; k++) {
        tn_sql_result *r3 = NULL;
        int rc = tn_sql_execute_stream(&r3, s, sql);
        if (rc) {
            CHECK(strstr(tn_error_message(), "Could not convert") != NULL);
            continue;
        }
        const tn_chunk *ch = NULL;
        int64_t rows = 0;
        while ((rc = tn_sql_result_fetch(r3, &ch)) == 0 && ch) {
            /* distance of the first rows of the file: row 0 is 2176, row 1 is 215 */
            if (rows == 0) CHECK_EQ_INT(((const int64_t *)ch->cols[0].data)[0], 2176);
            if (rows == 0 && ch->count > 1) CHECK_EQ_INT(((const int64_t *)ch->cols[0].data)[1], 215);
            rows += ch->count;
        }
        CHECK(rc < 0);
        CHECK(rows < 2757);
        tn_sql_result_free(r3);
    }
    tn_sql_session_close(s);
}

/* Freeing a stream early cancels it; another statement on the session reads the rest of a
 * stream into memory first (the rows stay readable, in order). */
TEST(streaming_cancel_and_interleave) {
    paths();
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    char sql[4096];
    snprintf(sql, sizeof sql, "SELECT delay, origin FROM read_parquet('%s')", g_flights);
    for (int k = 0; k < 3; k++) {
        tn_sql_result *r = NULL;
        CHECK_OK(tn_sql_execute_stream(&r, s, sql));
        const tn_chunk *ch = NULL;
        for (int i = 0; r && i < k; i++) CHECK_OK(tn_sql_result_fetch(r, &ch));
        tn_sql_result_free(r);                                   /* mid-stream */
    }
    snprintf(sql, sizeof sql, "SELECT delay, origin FROM read_parquet('%s') WHERE delay > 60", g_flights);
    tn_sql_result *m = run(s, sql);
    tn_sql_result *a = NULL;
    CHECK_OK(tn_sql_execute_stream(&a, s, sql));
    CHECK(m && a);
    if (m && a) {
        const tn_chunk *ch = NULL;
        CHECK_OK(tn_sql_result_fetch(a, &ch));
        CHECK(ch != NULL);
        uint32_t first = ch ? ch->count : 0;
        tn_buf before = TN_BUF_INIT, after = TN_BUF_INIT;
        if (ch) tn_value_format(&before, &ch->cols[1], first - 1);
        tn_sql_result *b = run(s, "SELECT count(*) FROM (VALUES (1), (2)) t(x)");   /* a is read into memory */
        CHECK(b != NULL);
        if (b) CHECK_EQ_STR(cell(b, 0, 0), "2");
        tn_sql_result_free(b);
        /* the chunk a handed out before stays readable until a's next fetch */
        if (ch) tn_value_format(&after, &ch->cols[1], first - 1);
        CHECK(before.len == after.len && before.len > 0 && memcmp(before.data, after.data, before.len) == 0);
        tn_buf_free(&before);
        tn_buf_free(&after);
        CHECK_EQ_INT(tn_sql_result_streaming(a), false);
        uint64_t h1, h2;
        int64_t n1, n2;
        uint32_t c1, c2;
        CHECK_OK(digest(m, &h1, &n1, &c1));
        CHECK_OK(digest(a, &h2, &n2, &c2));
        CHECK_EQ_INT(n2 + first, n1);
        CHECK_EQ_INT(tn_sql_result_nrows(a), n1);
    }
    tn_sql_result_free(m);
    tn_sql_result_free(a);
    tn_sql_session_close(s);
}

/* The C API streams too: tarn_result_next_chunk returns 0 on the late error and
 * tarn_result_error says so; a statement may be finalized before its streaming result. */
TEST(streaming_c_api) {
    paths();
    tarn_db *db = NULL;
    CHECK_OK(tarn_open("/nonexistent-tarn-warehouse", &db));
    if (!db) return;
    char sql[4096];
    snprintf(sql, sizeof sql, "SELECT distance, CAST(CASE WHEN distance > 4900 THEN 'x' ELSE '1' END AS INTEGER) "
             "FROM read_parquet('%s')", g_flights);
    tarn_result *r = NULL;
    CHECK_OK(tarn_query(db, "SET threads = 1", NULL));      /* the failing row group is the first */
    CHECK_OK(tarn_query(db, sql, &r));
    if (r) {
        uint32_t n, chunks = 0;
        while ((n = tarn_result_next_chunk(r)) > 0) chunks++;
        CHECK(chunks >= 1);
        CHECK(tarn_result_error(r) < 0);
        CHECK(strstr(tarn_last_error(), "Could not convert") != NULL);
        tarn_result_free(r);
    }
    snprintf(sql, sizeof sql, "SELECT origin FROM read_parquet('%s') WHERE delay > ? AND origin = 'LAS'", g_flights);
    tarn_stmt *st = NULL;
    CHECK_OK(tarn_prepare(db, sql, &st));
    if (st) {
        CHECK_OK(tarn_bind_int64(st, 1, 300));
        r = NULL;
        CHECK_OK(tarn_execute(st, &r));
        tarn_finalize(st);                     /* the result keeps what it borrows */
        int64_t rows = 0;
        uint32_t n;
        while (r && (n = tarn_result_next_chunk(r)) > 0) rows += n;
        if (r) CHECK_EQ_INT(tarn_result_error(r), 0);
        if (r) CHECK_EQ_INT(tarn_result_row_count(r), rows);
        CHECK_EQ_INT(rows, 46);                /* DuckDB: count(*) WHERE delay > 300 AND origin = 'LAS' */
        tarn_result_free(r);
    }
    tarn_close(db);
}

TEST_MAIN()
