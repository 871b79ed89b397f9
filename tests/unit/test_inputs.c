/*
 * tests/unit/test_inputs.c: inputs that must be refused clearly or handled safely (issue 16,
 * item 6): tarn_query on a text without a statement gives an empty result that every accessor
 * accepts; text that is not UTF-8 is refused naming where it is (CSV and NDJSON values and
 * column names with file, line and column; SQL text with line and column; bound parameters)
 * or, with read_csv/read_json's invalid_utf8 = 'replace', stored with U+FFFD; the UTF-8
 * checker itself on the standard's edge cases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "tarn.h"
#include "testlib.h"

static char g_dir[256];

static void remove_dir(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_dir);
}

static const char *dir(void) {
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "/tmp/tn_inputs.XXXXXX");
        if (!mkdtemp(g_dir)) return NULL;
        atexit(remove_dir);
    }
    return g_dir;
}

static const char *write_file(const char *name, const char *data) {
    static char paths[4][512];
    static int slot;
    char *p = paths[slot++ & 3];
    snprintf(p, 512, "%s/%s", dir(), name);
    FILE *f = fopen(p, "wb");
    if (!f) return NULL;
    fputs(data, f);
    fclose(f);
    return p;
}

/* The single VARCHAR value of `sql`'s first row, column 0, into buf. */
static int one_value(tarn_db *db, const char *sql, char *buf, size_t cap) {
    tarn_result *r = NULL;
    int rc = tarn_query(db, sql, &r);
    if (rc) return rc;
    rc = tarn_result_next_chunk(r) > 0 ? tarn_result_value_text(r, 0, 0, buf, cap) : -100;
    tarn_result_free(r);
    return rc;
}

TEST(utf8_checker) {
    struct { const char *s; size_t n, bad; } cases[] = {
        {"plain ascii text, longer than eight", 35, 35},
        {"h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", 18, 18},
        {"ab\xff", 3, 2},
        {"\xc0\xaf", 2, 0},                 /* overlong '/' */
        {"\xe0\x80\xaf", 3, 0},             /* overlong */
        {"x\xed\xa0\x80", 4, 1},            /* surrogate U+D800 */
        {"\xf4\x90\x80\x80", 4, 0},         /* > U+10FFFF */
        {"\xe6\x97", 2, 0},                 /* truncated */
        {"abcdefgh\x80", 9, 8},             /* lone continuation after an ASCII word */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK_MSG(tn_utf8_check(cases[i].s, cases[i].n) == cases[i].bad, "case %zu: %zu", i,
                  tn_utf8_check(cases[i].s, cases[i].n));
    tn_buf b = TN_BUF_INIT;
    CHECK_OK(tn_utf8_append_replaced(&b, "a\xe2\x82z\xff\xc3\xa9", 7));
    CHECK(b.len == 10 && memcmp(b.data, "a\xef\xbf\xbdz\xef\xbf\xbd\xc3\xa9", 10) == 0);
    tn_buf_free(&b);
}

TEST(query_without_statement_is_an_empty_result) {
    tarn_db *db = NULL;
    CHECK_OK(tarn_open(dir(), &db));
    const char *texts[] = {"", "   \n\t", "-- only a comment", "/* block */ -- and line\n", ";", " ; ;"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        tarn_result *r = NULL;
        int rc = tarn_query(db, texts[i], &r);
        CHECK_MSG(rc == 0 && r != NULL, "text %zu: rc %d %s", i, rc, tarn_last_error());
        CHECK_EQ_INT(tarn_result_column_count(r), 0);
        CHECK_EQ_INT(tarn_result_row_count(r), 0);
        CHECK(tarn_result_column_name(r, 0) == NULL);
        CHECK_EQ_INT(tarn_result_column_type(r, 0), TARN_TYPE_NULL);
        CHECK_EQ_INT(tarn_result_next_chunk(r), 0);
        CHECK_EQ_INT(tarn_result_next_chunk(r), 0);
        CHECK_EQ_INT(tarn_result_error(r), 0);
        tarn_column col;
        CHECK(tarn_result_column(r, 0, &col) == TARN_EINVAL);
        char buf[8];
        CHECK(tarn_result_value_text(r, 0, 0, buf, sizeof buf) == TARN_EINVAL);
        tarn_stats st;
        tarn_result_stats(r, &st);
        CHECK_EQ_INT(st.rows_scanned, 0);
        tarn_result_free(r);
        CHECK_OK(tarn_query(db, texts[i], NULL));
    }
    /* a statement after a comment-only text still runs; prepare of nothing is an error */
    char v[32];
    CHECK_OK(one_value(db, "-- x\nSELECT 'ok'", v, sizeof v));
    CHECK_EQ_STR(v, "ok");
    tarn_stmt *st = NULL;
    CHECK(tarn_prepare(db, "-- nothing", &st) == TARN_EINVAL && st == NULL);
    CHECK(strstr(tarn_last_error(), "found 0") != NULL);
    tarn_close(db);
}

TEST(csv_invalid_utf8_is_refused_with_file_line_column) {
    tarn_db *db = NULL;
    CHECK_OK(tarn_open(dir(), &db));
    const char *p = write_file("bad.csv", "id,name\n1,ok\n2,caf\xe9\n3,\xe6\x97\xa5\n");
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT name FROM read_csv('%s') ORDER BY id", p);
    tarn_result *r = NULL;
    int rc = tarn_query(db, sql, &r);
    if (rc == 0) {                          /* a streaming scan reports it while reading */
        while (tarn_result_next_chunk(r) > 0) {}
        rc = tarn_result_error(r);
        tarn_result_free(r);
    }
    CHECK_MSG(rc == TARN_ECORRUPT, "rc %d", rc);
    const char *m = tarn_last_error();
    CHECK_MSG(strstr(m, "bad.csv") && strstr(m, "line 3") && strstr(m, "column 'name'") &&
              strstr(m, "invalid UTF-8") && strstr(m, "0xe9"), "message: %s", m);
    /* replaced under the explicit option */
    char v[64];
    snprintf(sql, sizeof sql, "SELECT name FROM read_csv('%s', invalid_utf8 = 'replace') WHERE id = 2", p);
    CHECK_OK(one_value(db, sql, v, sizeof v));
    CHECK_EQ_STR(v, "caf\xef\xbf\xbd");
    snprintf(sql, sizeof sql, "SELECT name FROM read_csv('%s', invalid_utf8 = 'replace') WHERE id = 3", p);
    CHECK_OK(one_value(db, sql, v, sizeof v));
    CHECK_EQ_STR(v, "\xe6\x97\xa5");
    snprintf(sql, sizeof sql, "SELECT * FROM read_csv('%s', invalid_utf8 = 'ignore')", p);
    CHECK(tarn_query(db, sql, NULL) != 0 && strstr(tarn_last_error(), "'error' or 'replace'"));
    /* a header name */
    p = write_file("badhdr.csv", "id,n\xffme\n1,2\n");
    snprintf(sql, sizeof sql, "SELECT * FROM read_csv('%s')", p);
    CHECK(tarn_query(db, sql, NULL) == TARN_ECORRUPT);
    m = tarn_last_error();
    CHECK_MSG(strstr(m, "badhdr.csv") && strstr(m, "n\\xffme") && strstr(m, "not valid UTF-8"), "message: %s", m);
    snprintf(sql, sizeof sql, "SELECT column_name FROM (DESCRIBE SELECT * FROM read_csv('%s', invalid_utf8 = 'replace')) LIMIT 1 OFFSET 1", p);
    rc = one_value(db, sql, v, sizeof v);
    if (rc == 0) CHECK_EQ_STR(v, "n\xef\xbf\xbdme");
    else {   /* DESCRIBE as a subquery may not be supported: read the value instead */
        snprintf(sql, sizeof sql, "SELECT \"n\xef\xbf\xbdme\" FROM read_csv('%s', invalid_utf8 = 'replace')", p);
        CHECK_OK(one_value(db, sql, v, sizeof v));
        CHECK_EQ_STR(v, "2");
    }
    /* a table written from it holds only valid text */
    p = write_file("bad2.csv", "id,name\n1,caf\xe9\n");
    snprintf(sql, sizeof sql, "CREATE TABLE t_bad AS SELECT * FROM read_csv('%s')", p);
    CHECK(tarn_query(db, sql, NULL) == TARN_ECORRUPT);
    CHECK(tarn_query(db, "SELECT * FROM t_bad", NULL) != 0);   /* not created */
    tarn_close(db);
}

TEST(ndjson_invalid_utf8_is_refused) {
    tarn_db *db = NULL;
    CHECK_OK(tarn_open(dir(), &db));
    const char *p = write_file("bad.json", "{\"a\":1,\"s\":\"x\"}\n{\"a\":2,\"s\":\"y\xff\"}\n");
    char sql[1024], v[64];
    snprintf(sql, sizeof sql, "SELECT s FROM read_json('%s') ORDER BY a", p);
    tarn_result *r = NULL;
    int rc = tarn_query(db, sql, &r);
    if (rc == 0) {
        while (tarn_result_next_chunk(r) > 0) {}
        rc = tarn_result_error(r);
        tarn_result_free(r);
    }
    CHECK_MSG(rc == TARN_ECORRUPT, "rc %d", rc);
    const char *m = tarn_last_error();
    CHECK_MSG(strstr(m, "bad.json") && strstr(m, "line 2") && strstr(m, "column 's'") && strstr(m, "invalid UTF-8"),
              "message: %s", m);
    snprintf(sql, sizeof sql, "SELECT s FROM read_json('%s', invalid_utf8 = 'replace') WHERE a = 2", p);
    CHECK_OK(one_value(db, sql, v, sizeof v));
    CHECK_EQ_STR(v, "y\xef\xbf\xbd");
    /* nested values kept as JSON text are checked too */
    p = write_file("badnest.json", "{\"o\":{\"k\":\"\xc3\"}}\n");
    snprintf(sql, sizeof sql, "SELECT o FROM read_json('%s')", p);
    r = NULL;
    rc = tarn_query(db, sql, &r);
    if (rc == 0) {
        while (tarn_result_next_chunk(r) > 0) {}
        rc = tarn_result_error(r);
        tarn_result_free(r);
    }
    CHECK_MSG(rc == TARN_ECORRUPT && strstr(tarn_last_error(), "column 'o'"), "rc %d: %s", rc, tarn_last_error());
    /* a key */
    p = write_file("badkey.json", "{\"k\xfe\":1}\n");
    snprintf(sql, sizeof sql, "SELECT * FROM read_json('%s')", p);
    CHECK(tarn_query(db, sql, NULL) == TARN_ECORRUPT && strstr(tarn_last_error(), "not valid UTF-8"));
    tarn_close(db);
}

TEST(sql_text_and_parameters_must_be_utf8) {
    tarn_db *db = NULL;
    CHECK_OK(tarn_open(dir(), &db));
    CHECK(tarn_query(db, "SELECT 1;\nSELECT 'ab\xff'", NULL) == TARN_ESYNTAX);
    const char *m = tarn_last_error();
    CHECK_MSG(strstr(m, "invalid UTF-8") && strstr(m, "line 2, column 11") && strstr(m, "0xff"), "message: %s", m);
    CHECK(tarn_query(db, "CREATE TABLE u (s VARCHAR); INSERT INTO u VALUES ('\xe6\x97')", NULL) == TARN_ESYNTAX);
    CHECK(tarn_query(db, "SELECT * FROM u", NULL) != 0);    /* nothing of the text ran */
    char v[64];
    CHECK_OK(one_value(db, "SELECT 'h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac'", v, sizeof v));
    CHECK_EQ_STR(v, "h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac");
    tarn_stmt *st = NULL;
    CHECK_OK(tarn_prepare(db, "SELECT ?", &st));
    CHECK(tarn_bind_text(st, 1, "x\xc0\xaf", 3) == TARN_EINVAL);
    CHECK(strstr(tarn_last_error(), "parameter 1 is not valid UTF-8") != NULL);
    CHECK_OK(tarn_bind_text(st, 1, "\xc3\xa9", 2));
    tarn_finalize(st);
    tarn_close(db);
}

TEST_MAIN()
