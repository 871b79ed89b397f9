/*
 * tests/unit/test_sql_spill.c: queries larger than memory_limit through the public C API. An
 * ORDER BY of ~10x the limit spills (EXPLAIN ANALYZE reports the bytes) and returns every row in
 * order; a GROUP BY of 300k groups spills and returns each group once with its aggregates; its spill files live in temp_directory, which is gone again afterwards, also when the
 * query fails (max_temp_directory_size passed) or is interrupted mid-spill. temp_directory = ''
 * disables spilling (the query then fails as DuckDB's does). Expected orders are checked row by
 * row against the definition of the order, not against tarn's own output.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "tarn.h"
#include "testlib.h"

static char g_dir[256], g_tmp[300];

static void remove_dir(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_dir);
}

static tarn_db *open_db(void) {
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "/tmp/tn_spill.XXXXXX");
        if (!mkdtemp(g_dir)) return NULL;
        atexit(remove_dir);
        snprintf(g_tmp, sizeof g_tmp, "%s/spilltmp", g_dir);
    }
    tarn_db *db = NULL;
    return tarn_open(g_dir, &db) == 0 ? db : NULL;
}

static int run(tarn_db *db, const char *sql) {
    tarn_result *r = NULL;
    int rc = tarn_query(db, sql, &r);
    while (!rc && tarn_result_next_chunk(r) > 0) {
    }
    if (!rc) rc = tarn_result_error(r);
    tarn_result_free(r);
    return rc;
}

/* Entries of dir (0 when it does not exist). */
static int entries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static bool exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

static void setup(tarn_db *db) {
    char sql[512];
    CHECK_OK(run(db, "SET memory_limit = '16MB'"));
    snprintf(sql, sizeof sql, "SET temp_directory = '%s'", g_tmp);
    CHECK_OK(run(db, sql));
}

/* 1.2M rows of (k BIGINT, s VARCHAR): ~10x a 16 MB limit, k a permutation of 0..N-1. */
#define N 1200000
#define PERM "(i * 7919) % 1200007"
static const char *q_sort = "SELECT " PERM " AS k, 'row-' || CAST(i AS VARCHAR) || '-padding-padding' AS s "
                            "FROM range(1200000) t(i) ORDER BY k DESC";

TEST(sort_spills_in_order_and_cleans_up) {
    tarn_db *db = open_db();
    CHECK(db != NULL);
    setup(db);
    /* EXPLAIN ANALYZE says the sort spilled */
    char sql[1024];
    snprintf(sql, sizeof sql, "EXPLAIN ANALYZE %s", q_sort);
    tarn_result *r = NULL;
    CHECK_OK(tarn_query(db, sql, &r));
    char text[8192] = "";
    while (tarn_result_next_chunk(r) > 0) tarn_result_value_text(r, 0, 0, text, sizeof text);
    tarn_result_free(r);
    CHECK_MSG(strstr(text, "spilled:") != NULL, "no spill reported: %s", text);
    CHECK_MSG(!exists(g_tmp) || entries(g_tmp) == 0, "%d entries left in %s", entries(g_tmp), g_tmp);
    /* every row, in descending order of k, and k is 0..N-1 once each (sum) */
    CHECK_OK(tarn_query(db, q_sort, &r));
    long long prev = -1, rows = 0, sum = 0;
    bool ordered = true;
    uint32_t n;
    while ((n = tarn_result_next_chunk(r)) > 0) {
        for (uint32_t i = 0; i < n; i++) {
            char v[64];
            tarn_result_value_text(r, 0, i, v, sizeof v);
            long long k = atoll(v);
            if (prev >= 0 && k >= prev) ordered = false;
            prev = k;
            sum += k;
            rows++;
        }
    }
    CHECK_OK(tarn_result_error(r));
    tarn_result_free(r);
    CHECK(ordered);
    CHECK_EQ_INT(rows, N);
    /* the permutation i*7919 mod p over i < N < p has distinct values; their sum: */
    long long want = 0;
    for (long long i = 0; i < N; i++) want += (i * 7919) % 1200007;
    CHECK_EQ_INT(sum, want);
    CHECK_MSG(!exists(g_tmp), "temp directory %s left behind", g_tmp);
    /* LIMIT / OFFSET past the memory: a full sort whose merge skips rows */
    snprintf(sql, sizeof sql, "SELECT k FROM (%s) LIMIT 3 OFFSET 600000", q_sort);
    CHECK_OK(tarn_query(db, sql, &r));
    CHECK(tarn_result_next_chunk(r) == 3);
    tarn_result_free(r);
    tarn_close(db);
}

/* GROUP BY of 300k groups over 1.2M rows under 16MB: group g holds k = g + 300000 j, j < 4. */
TEST(group_by_spills_and_cleans_up) {
    tarn_db *db = open_db();
    CHECK(db != NULL);
    setup(db);
    const char *q = "SELECT g, count(*) AS c, sum(k) AS s, min(k) AS mn, max('v' || CAST(k AS VARCHAR)) AS mx "
                    "FROM (SELECT i % 300000 AS g, i AS k FROM range(1200000) t(i)) GROUP BY g";
    char sql[1024];
    snprintf(sql, sizeof sql, "EXPLAIN ANALYZE SELECT count(*) FROM (%s)", q);
    tarn_result *r = NULL;
    CHECK_OK(tarn_query(db, sql, &r));
    char text[8192] = "", line[1024];
    uint32_t n;
    while ((n = tarn_result_next_chunk(r)) > 0)
        for (uint32_t i = 0; i < n; i++) {
            tarn_result_value_text(r, 0, i, line, sizeof line);
            if (strlen(text) + strlen(line) + 2 < sizeof text) strcat(strcat(text, line), "\n");
        }
    tarn_result_free(r);
    const char *agg = strstr(text, "HASH_AGGREGATE groups: [#");
    CHECK_MSG(agg && strstr(agg, "spilled:"), "no GROUP BY spill reported: %s", text);
    CHECK_OK(tarn_query(db, q, &r));
    long long rows = 0, bad = 0;
    static unsigned char seen[300000];
    memset(seen, 0, sizeof seen);
    while ((n = tarn_result_next_chunk(r)) > 0) {
        for (uint32_t i = 0; i < n; i++) {
            char v[5][64];
            for (uint32_t c = 0; c < 5; c++) tarn_result_value_text(r, c, i, v[c], sizeof v[c]);
            long long g = atoll(v[0]);
            char mx[64] = "", c4[64];
            for (int j = 0; j < 4; j++) {         /* max() of strings: byte order */
                snprintf(c4, sizeof c4, "v%lld", g + 300000LL * j);
                if (strcmp(c4, mx) > 0) strcpy(mx, c4);
            }
            if (g < 0 || g >= 300000 || seen[g] || atoll(v[1]) != 4 || atoll(v[2]) != 4 * g + 1800000 ||
                atoll(v[3]) != g || strcmp(v[4], mx) != 0)
                bad++;
            else seen[g] = 1;
            rows++;
        }
    }
    CHECK_OK(tarn_result_error(r));
    tarn_result_free(r);
    CHECK_EQ_INT(rows, 300000);
    CHECK_EQ_INT(bad, 0);
    CHECK_MSG(!exists(g_tmp), "temp directory %s left behind", g_tmp);
    tarn_close(db);
}

TEST(failed_spill_leaves_nothing) {
    tarn_db *db = open_db();
    CHECK(db != NULL);
    setup(db);
    CHECK_OK(run(db, "SET max_temp_directory_size = '2MB'"));
    int rc = run(db, q_sort);
    CHECK(rc != 0);
    CHECK_MSG(strstr(tarn_last_error(), "max_temp_directory_size") != NULL, "error: %s", tarn_last_error());
    CHECK_MSG(!exists(g_tmp), "temp directory %s left behind", g_tmp);
    CHECK_OK(run(db, "RESET max_temp_directory_size"));
    /* temp_directory = '': no spilling, the limit holds as before */
    CHECK_OK(run(db, "SET temp_directory = ''"));
    rc = run(db, q_sort);
    CHECK(rc != 0);
    CHECK_MSG(strstr(tarn_last_error(), "Out of Memory Error") != NULL, "error: %s", tarn_last_error());
    tarn_close(db);
}

typedef struct interrupter {
    tarn_db *db;
    int delay_ms;
    pthread_t thread;
} interrupter;

static void *interrupt_main(void *arg) {
    interrupter *it = arg;
    usleep((useconds_t)it->delay_ms * 1000);
    tarn_interrupt(it->db);
    return NULL;
}

TEST(interrupted_spill_leaves_nothing) {
    tarn_db *db = open_db();
    CHECK(db != NULL);
    setup(db);
    /* interrupts at several moments: while runs are written and while they merge */
    int delays[] = {150, 400, 800};
    for (size_t d = 0; d < sizeof delays / sizeof *delays; d++) {
        interrupter it = {db, delays[d], 0};
        pthread_create(&it.thread, NULL, interrupt_main, &it);
        int rc = run(db, d == 1 ? "SELECT i % 400000 AS g, count(*), max(i) FROM range(3000000) t(i) GROUP BY g" : q_sort);
        pthread_join(it.thread, NULL);
        CHECK_MSG(rc == TARN_EINTERRUPT || rc == 0, "rc %d: %s", rc, tarn_last_error());
        CHECK_MSG(!exists(g_tmp), "temp directory %s left behind (delay %d)", g_tmp, delays[d]);
    }
    tarn_close(db);
}

TEST_MAIN()
