/*
 * tests/unit/test_sql_tables.c: table statements through the public C API (include/tarn.h):
 * tarn_open(DIR) opens a warehouse; DDL, INSERT with bound parameters, DESCRIBE HISTORY's
 * operations, the scan counters of a pruned table scan, errors naming the column, a second
 * connection seeing committed data, the Delta log the statements leave on disk, CREATE TABLE
 * AS SELECT in one commit (a failed one leaves no table), SHOW ALL TABLES, and COPY FROM a CSV
 * with a header (columns matched by name).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "tarn.h"
#include "testlib.h"

static char g_dir[256];

static const char *fresh_warehouse(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/tn_sql_tables.XXXXXX");
    if (!mkdtemp(g_dir)) return NULL;
    return g_dir;
}

/* Every table a test writes is checked by the Delta-protocol checker before it is removed. */
static void remove_warehouse(void) { tn_test_remove_tables(g_dir); }

/* Runs sql and returns its rows as text: values joined by '|', rows by '\n' (static buffer). */
static const char *rows_of(tarn_db *db, const char *sql) {
    static char out[8192];
    out[0] = 0;
    tarn_result *r = NULL;
    if (tarn_query(db, sql, &r) != 0) {
        snprintf(out, sizeof out, "ERROR: %s", tarn_last_error());
        return out;
    }
    size_t len = 0;
    uint32_t n, nc = tarn_result_column_count(r);
    while ((n = tarn_result_next_chunk(r)) > 0)
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t c = 0; c < nc; c++) {
                char v[512];
                int rc = tarn_result_value_text(r, c, i, v, sizeof v);
                len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", rc == 1 ? "NULL" : v,
                                        c + 1 < nc ? "|" : "\n");
                if (len >= sizeof out) len = sizeof out - 1;
            }
    tarn_result_free(r);
    return out;
}

TEST(create_insert_select_history) {
    const char *wh = fresh_warehouse();
    CHECK(wh != NULL);
    tarn_db *db = NULL;
    CHECK_OK(tarn_open(wh, &db));
    CHECK_OK(tarn_query(db, "CREATE TABLE ev (id BIGINT NOT NULL, kind VARCHAR, day DATE) PARTITIONED BY (day)", NULL));
    tarn_stmt *st = NULL;
    CHECK_OK(tarn_prepare(db, "INSERT INTO ev VALUES ($1, $2, CAST($3 AS DATE))", &st));
    CHECK_EQ_INT(tarn_stmt_param_count(st), 3);
    for (int i = 1; i <= 6; i++) {
        char kind[16], day[16];
        snprintf(kind, sizeof kind, "k%d", i % 2);
        snprintf(day, sizeof day, "2024-05-0%d", 1 + i % 3);
        CHECK_OK(tarn_bind_int64(st, 1, i));
        CHECK_OK(tarn_bind_text(st, 2, kind, strlen(kind)));
        CHECK_OK(tarn_bind_text(st, 3, day, strlen(day)));
        tarn_result *r = NULL;
        CHECK_OK(tarn_execute(st, &r));
        tarn_result_free(r);
    }
    tarn_finalize(st);
    CHECK_EQ_STR(rows_of(db, "SELECT day, count(*), sum(id) FROM ev GROUP BY day ORDER BY day"),
                 "2024-05-01|2|9\n2024-05-02|2|5\n2024-05-03|2|7\n");
    CHECK_OK(tarn_query(db, "DELETE FROM ev WHERE kind = 'k0' AND day = DATE '2024-05-01'", NULL));
    CHECK_EQ_STR(rows_of(db, "SELECT id FROM ev WHERE day = DATE '2024-05-01' ORDER BY id"), "3\n");

    /* a pruned scan reads one of the three partitions */
    tarn_result *r = NULL;
    CHECK_OK(tarn_query(db, "SELECT count(*) FROM ev WHERE day = DATE '2024-05-02'", &r));
    tarn_stats s;
    tarn_result_stats(r, &s);
    tarn_result_free(r);
    CHECK_MSG(s.table_files >= 3 && s.files_scanned >= 1 && s.files_scanned < s.table_files,
              "files_scanned %llu of %llu", (unsigned long long)s.files_scanned, (unsigned long long)s.table_files);
    CHECK_EQ_INT(s.table_rows, 5);

    /* an unfiltered count(*) is answered from the log's numRecords: no data file is opened,
     * and the count still equals the rows a full read returns */
    CHECK_OK(tarn_query(db, "SELECT count(*) FROM ev", &r));
    tarn_result_stats(r, &s);
    CHECK(tarn_result_next_chunk(r) == 1);
    char cnt[32];
    CHECK(tarn_result_value_text(r, 0, 0, cnt, sizeof cnt) == 0);
    tarn_result_free(r);
    CHECK_EQ_STR(cnt, "5");
    CHECK_EQ_INT(s.files_scanned, 0);
    CHECK_EQ_INT(s.rows_scanned, 0);
    CHECK_EQ_INT(s.table_rows, 5);
    CHECK_EQ_STR(rows_of(db, "SELECT count(id) FROM ev"), "5\n");

    /* history: newest first, one entry per statement */
    const char *h = rows_of(db, "DESCRIBE HISTORY ev");
    CHECK_MSG(strncmp(h, "7|", 2) == 0 && strstr(h, "|DELETE|") && strstr(h, "|CREATE TABLE|") && strstr(h, "\n0|"),
              "history: %s", h);
    CHECK_EQ_STR(rows_of(db, "SELECT count(*) FROM ev VERSION AS OF 3"), "3\n");

    /* errors name what is wrong */
    CHECK(tarn_query(db, "INSERT INTO ev (kind) VALUES ('x')", NULL) != 0);
    CHECK_MSG(strstr(tarn_last_error(), "'id'") != NULL, "%s", tarn_last_error());
    CHECK(tarn_query(db, "CREATE TABLE \"../x\" (a INT)", NULL) != 0);
    CHECK_MSG(strstr(tarn_last_error(), "../x") != NULL, "%s", tarn_last_error());

    /* another connection on the same warehouse sees the committed rows and appends */
    tarn_db *db2 = NULL;
    CHECK_OK(tarn_open(wh, &db2));
    CHECK_OK(tarn_query(db2, "INSERT INTO ev VALUES (100, 'z', NULL)", NULL));
    CHECK_EQ_STR(rows_of(db2, "SELECT count(*), count(day) FROM ev"), "6|5\n");
    CHECK_EQ_STR(rows_of(db, "SELECT id FROM ev WHERE day IS NULL"), "100\n");
    tarn_close(db2);

    /* what the statements left on disk: a Delta log and Hive partition directories */
    char path[512];
    snprintf(path, sizeof path, "%s/ev/_delta_log/00000000000000000000.json", wh);
    CHECK(access(path, F_OK) == 0);
    snprintf(path, sizeof path, "%s/ev/day=__HIVE_DEFAULT_PARTITION__", wh);
    CHECK(access(path, F_OK) == 0);
    tarn_close(db);
    remove_warehouse();
}

TEST(views_schemas_and_session_options) {
    const char *wh = fresh_warehouse();
    CHECK(wh != NULL);
    tarn_db *db = NULL;
    CHECK_OK(tarn_open(wh, &db));
    CHECK_OK(tarn_query(db, "CREATE SCHEMA global_temp; CREATE TABLE global_temp.n AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(x, y)", NULL));
    CHECK_OK(tarn_query(db, "CREATE VIEW global_temp.nv AS SELECT x * 10 AS x10 FROM global_temp.n", NULL));
    CHECK_EQ_STR(rows_of(db, "SELECT * FROM global_temp.nv ORDER BY 1"), "10\n20\n");
    CHECK_EQ_STR(rows_of(db, "SHOW TABLES IN global_temp"), "n|table\nnv|view\n");
    CHECK_OK(tarn_query(db, "SET 'table.exec.sink.not-null-enforcer' = 'error'", NULL));
    /* a value tarn does not implement is refused, never stored and ignored */
    CHECK(tarn_query(db, "SET 'table.exec.sink.not-null-enforcer' = 'drop'", NULL) != 0);
    CHECK_MSG(strstr(tarn_last_error(), "not-null-enforcer") != NULL, "%s", tarn_last_error());
    CHECK_EQ_STR(rows_of(db, "DESCRIBE global_temp.nv"), "x10|INTEGER|YES|NULL|NULL|NULL\n");
    /* views that read each other fail instead of recursing forever */
    CHECK_OK(tarn_query(db, "CREATE VIEW va AS SELECT 1 AS x; CREATE VIEW vb AS SELECT * FROM va", NULL));
    CHECK_OK(tarn_query(db, "CREATE OR REPLACE VIEW va AS SELECT * FROM vb", NULL));
    CHECK(tarn_query(db, "SELECT * FROM va", NULL) != 0);
    CHECK_MSG(strstr(tarn_last_error(), "nested too deeply") != NULL, "%s", tarn_last_error());
    /* a view whose table went away fails naming it */
    CHECK(tarn_query(db, "DROP SCHEMA global_temp", NULL) != 0);
    CHECK_OK(tarn_query(db, "CREATE VIEW vn AS SELECT * FROM global_temp.n", NULL));
    CHECK_OK(tarn_query(db, "DROP SCHEMA global_temp CASCADE", NULL));
    CHECK(tarn_query(db, "SELECT * FROM vn", NULL) != 0);
    CHECK_MSG(strstr(tarn_last_error(), "global_temp.n") != NULL, "%s", tarn_last_error());
    tarn_close(db);
    remove_warehouse();
}

static bool file_exists(const char *path) { return access(path, F_OK) == 0; }

/* CREATE TABLE AS writes the schema and the data in version 0; one whose query fails after
 * some rows leaves nothing behind (no table, no directory). */
TEST(ctas_is_one_commit) {
    const char *wh = fresh_warehouse();
    CHECK(wh != NULL);
    tarn_db *db = NULL;
    CHECK_OK(tarn_open(wh, &db));
    CHECK_OK(tarn_query(db, "CREATE SCHEMA s; CREATE TABLE s.c PARTITIONED BY (k) AS SELECT x, x % 2 AS k FROM "
                            "(VALUES (1), (2), (3)) v(x)", NULL));
    CHECK_EQ_STR(rows_of(db, "SELECT k, count(*), sum(x) FROM s.c GROUP BY ALL ORDER BY ALL"), "0|1|2\n1|2|4\n");
    const char *h = rows_of(db, "DESCRIBE HISTORY s.c");
    CHECK_MSG(strncmp(h, "0|", 2) == 0 && strstr(h, "|CREATE TABLE AS SELECT|") && strchr(h, '\n') == h + strlen(h) - 1,
              "history: %s", h);
    char path[512];
    snprintf(path, sizeof path, "%s/s/c/_delta_log/00000000000000000001.json", wh);
    CHECK(!file_exists(path));
    /* an empty result still makes the table (schema only) */
    CHECK_OK(tarn_query(db, "CREATE TABLE e AS SELECT x FROM (VALUES (1)) v(x) WHERE x > 1", NULL));
    CHECK_EQ_STR(rows_of(db, "SELECT count(*) FROM e"), "0\n");
    /* a failure after rows were written: no table, no directory */
    char sql[1024];
    snprintf(sql, sizeof sql, "CREATE TABLE s.bad PARTITIONED BY (k) AS SELECT k, CAST(CASE WHEN x > 3000 THEN 'x' "
             "ELSE '1' END AS INTEGER) AS v FROM (SELECT id AS x, grp AS k FROM read_parquet('tests/sql/data/t1.parquet') "
             "UNION ALL SELECT id + 3000, grp FROM read_parquet('tests/sql/data/t1.parquet'))");
    CHECK(tarn_query(db, sql, NULL) != 0);
    CHECK_MSG(strstr(tarn_last_error(), "Could not convert") != NULL, "%s", tarn_last_error());
    snprintf(path, sizeof path, "%s/s/bad", wh);
    CHECK_MSG(!file_exists(path), "%s is left behind", path);
    CHECK_EQ_STR(rows_of(db, "SHOW ALL TABLES"), "default|e|table\ns|c|table\n");
    CHECK_OK(tarn_query(db, "CREATE VIEW s.v AS SELECT 1 AS one", NULL));
    CHECK_EQ_STR(rows_of(db, "SHOW ALL TABLES"), "default|e|table\ns|c|table\ns|v|view\n");
    /* the name is free again */
    CHECK_OK(tarn_query(db, "CREATE TABLE s.bad AS SELECT 1 AS one", NULL));
    CHECK_EQ_STR(rows_of(db, "SELECT * FROM s.bad"), "1\n");
    CHECK(tarn_query(db, "CREATE TABLE s.bad AS SELECT 2 AS one", NULL) != 0);
    CHECK_MSG(strstr(tarn_last_error(), "already exists") != NULL, "%s", tarn_last_error());
    tarn_close(db);
    remove_warehouse();
}

/* COPY FROM a CSV file with a header matches columns by name; errors name the column. */
TEST(copy_from_csv_header_by_name) {
    const char *wh = fresh_warehouse();
    CHECK(wh != NULL);
    tarn_db *db = NULL;
    CHECK_OK(tarn_open(wh, &db));
    char path[512], sql[1024];
    static const struct { const char *name, *text; } files[] = {
        {"swapped.csv", "Name,ID\nann,1\nbob,2\n"},
        {"plain.csv", "3,cy\n4,dee\n"},
        {"extra.csv", "id,name,age\n5,ed,40\n"},
        {"missing.csv", "name\nfay\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", wh, files[i].name);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            fputs(files[i].text, f);
            fclose(f);
        }
    }
    CHECK_OK(tarn_query(db, "CREATE TABLE p (id INTEGER, name VARCHAR)", NULL));
    snprintf(sql, sizeof sql, "COPY p FROM '%s/swapped.csv' (HEADER)", wh);
    CHECK_OK(tarn_query(db, sql, NULL));
    snprintf(sql, sizeof sql, "COPY p FROM '%s/plain.csv'", wh);
    CHECK_OK(tarn_query(db, sql, NULL));
    CHECK_EQ_STR(rows_of(db, "SELECT * FROM p ORDER BY ALL"), "1|ann\n2|bob\n3|cy\n4|dee\n");
    snprintf(sql, sizeof sql, "COPY p FROM '%s/extra.csv'", wh);
    CHECK(tarn_query(db, sql, NULL) != 0);
    CHECK_MSG(strstr(tarn_last_error(), "the file's column \"age\" (header field 3) is not a column of table p"),
              "%s", tarn_last_error());
    snprintf(sql, sizeof sql, "COPY p FROM '%s/missing.csv' (HEADER true)", wh);
    CHECK(tarn_query(db, sql, NULL) != 0);
    CHECK_MSG(strstr(tarn_last_error(), "the file's header has no column \"id\" of table p"), "%s", tarn_last_error());
    /* naming the columns loads a subset */
    snprintf(sql, sizeof sql, "COPY p (name) FROM '%s/missing.csv' (HEADER true)", wh);
    CHECK_OK(tarn_query(db, sql, NULL));
    CHECK_EQ_STR(rows_of(db, "SELECT count(*), count(id) FROM p"), "5|4\n");
    tarn_close(db);
    remove_warehouse();
}

TEST_MAIN()
