/*
 * tests/unit/testlib.h: the unit-test harness. A test file defines tests with TEST(name) and
 * ends with TEST_MAIN(); the binary runs all tests (or those whose name contains argv[1]),
 * prints "ok NAME" or "FAIL NAME: file:line: what" per test and ends with "N passed, N failed".
 * CHECK* macros record a failure and return from the test.
 */
#ifndef TN_TESTLIB_H
#define TN_TESTLIB_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

/* Failure messages are cut to the harness's buffer on purpose; at -O1 (the sanitizer build)
 * gcc's -Wformat-truncation would otherwise turn every long CHECK_MSG into a build error. */
#ifndef __clang__                   /* clang has no such warning (and would warn of the name) */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <stdlib.h>
#include <string.h>

typedef void (*tn_test_fn)(void);
struct tn_test_entry { const char *name; tn_test_fn fn; };
extern struct tn_test_entry tn_tests[];
extern int tn_test_count;
extern int tn_test_failed_flag;
extern char tn_test_fail_msg[2048];

#define TEST(tname)                                                              \
    static void test_##tname(void);                                              \
    __attribute__((constructor)) static void register_##tname(void) {            \
        tn_tests[tn_test_count].name = #tname;                                   \
        tn_tests[tn_test_count++].fn = test_##tname;                             \
    }                                                                            \
    static void test_##tname(void)

#define FAILF(...)                                                                          \
    do {                                                                                    \
        int n_ = snprintf(tn_test_fail_msg, sizeof tn_test_fail_msg, "%s:%d: ", __FILE__, __LINE__); \
        snprintf(tn_test_fail_msg + n_, sizeof tn_test_fail_msg - (size_t)n_, __VA_ARGS__);  \
        tn_test_failed_flag = 1;                                                            \
        return;                                                                             \
    } while (0)

#define CHECK(cond) do { if (!(cond)) FAILF("check failed: %s", #cond); } while (0)
#define CHECK_MSG(cond, ...) do { if (!(cond)) FAILF(__VA_ARGS__); } while (0)
#define CHECK_EQ_INT(a, b)                                                                  \
    do { long long a_ = (long long)(a), b_ = (long long)(b);                                \
         if (a_ != b_) FAILF("%s == %lld, expected %s == %lld", #a, a_, #b, b_); } while (0)
#define CHECK_EQ_STR(a, b)                                                                  \
    do { const char *a_ = (a), *b_ = (b);                                                   \
         if (!a_ || !b_ || strcmp(a_, b_) != 0)                                             \
             FAILF("%s == \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } while (0)
/* The call must return 0; otherwise print tarn's error message. */
#define CHECK_OK(call)                                                                      \
    do { int rc_ = (call);                                                                  \
         if (rc_ != 0) FAILF("%s returned %d: %s", #call, rc_, tn_error_message()); } while (0)

#define TEST_MAIN()                                                                         \
    struct tn_test_entry tn_tests[512];                                                     \
    int tn_test_count;                                                                      \
    int tn_test_failed_flag;                                                                \
    char tn_test_fail_msg[2048];                                                            \
    int main(int argc, char **argv) {                                                       \
        int passed = 0, failed = 0;                                                         \
        for (int i = 0; i < tn_test_count; i++) {                                           \
            if (argc > 1 && !strstr(tn_tests[i].name, argv[1])) continue;                   \
            tn_test_failed_flag = 0;                                                        \
            tn_tests[i].fn();                                                               \
            if (tn_test_failed_flag) { failed++; printf("FAIL %s: %s\n", tn_tests[i].name, tn_test_fail_msg); } \
            else { passed++; printf("ok %s\n", tn_tests[i].name); }                         \
            fflush(stdout);                                                                 \
        }                                                                                   \
        printf("%d passed, %d failed\n", passed, failed);                                   \
        return failed ? 1 : 0;                                                              \
    }

/* The repository's test data (tests/data: golden files of other systems, the flights dataset;
 * provenance in tests/data/README.md): $TARN_TESTDATA, else tests/data relative to the
 * repository root, where scripts/run-tests.sh runs every suite. */
static inline const char *tn_test_data_dir(void) {
    const char *s = getenv("TARN_TESTDATA");
    return s && *s ? s : "tests/data";
}

/* The path of a file under tests/data/parquet, from a printf format: a static buffer, one of four
 * used in turn (so up to four results may be alive at once). */
static inline const char *tn_test_parquet_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *tn_test_parquet_path(const char *fmt, ...) {
    static char buf[4][1024];
    static int k;
    char rel[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    char *b = buf[k++ & 3];
    snprintf(b, 1024, "%s/parquet/%s", tn_test_data_dir(), rel);
    return b;
}

/* Removes a test's temporary directory after checking every Delta table under it with the
 * independent protocol checker (tests/delta_check/check.mjs; results recorded in
 * $TARN_DELTA_CHECK_OUT, counted by scripts/run-tests.sh). Directories holding tables corrupted
 * on purpose are removed with a plain rm instead. */
static inline void tn_test_remove_tables_opts(const char *dir, const char *opts) {
    char cmd[4600];
    const char *rec = getenv("TARN_DELTA_CHECK_OUT");
    if (strchr(dir, '\'') == NULL) {
        snprintf(cmd, sizeof cmd, "command -v node >/dev/null 2>&1 && node tests/delta_check/check.mjs %s %s%s%s '%s' >&2",
                 opts, rec ? "--record '" : "", rec ? rec : "", rec ? "'" : "", dir);
        if (system(cmd) != 0) fprintf(stderr, "delta-check: a table under %s is not valid Delta\n", dir);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    }
}
static inline void tn_test_remove_tables(const char *dir) { tn_test_remove_tables_opts(dir, ""); }
/* After writers were killed: checkpoints a killed writer did not write are not required. */
static inline void tn_test_remove_tables_after_crash(const char *dir) { tn_test_remove_tables_opts(dir, "--crashed"); }

#endif
