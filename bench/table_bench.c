/*
 * bench/table_bench.c: the Delta-log part of the table benchmark, driven by bench/table_bench.sh
 * (which also times the ingest and Q1-Q6 through bench/sql_bench.c and DuckDB). Linked against
 * libtarn.a; uses the public API (tarn.h) for SQL and the delta layer (src/delta) directly.
 *   table_bench build WAREHOUSE N   table `t` (id BIGINT) with N commits (versions 0..N-1):
 *       CREATE TABLE through SQL, then N-1 blind appends of one 1-row file each, committed with
 *       tn_delta_commit (fsync disabled: this is test data) and a Parquet checkpoint every 10
 *       (tn_delta_maybe_checkpoint). The data files are hard links to one file written by SQL.
 *   table_bench sqlrate WAREHOUSE K  K single-row `INSERT INTO u VALUES (..)` through tarn_query
 *       (real fsyncs, checkpoints every 10), to tell how long building the table by SQL takes.
 *   table_bench open WAREHOUSE REPS [json]   one warm-up, then REPS timed
 *       tn_delta_snapshot_open of t's latest version (json: without checkpoints, replaying
 *       every JSON commit). Prints "time_ms=... cpu_ms=..." (wall and this thread's CPU time)
 *       per repetition; the script takes the medians.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tarn.h"
#include "base/base.h"
#include "delta/delta.h"

static double now_ms(void) { return (double)tn_time_ns() / 1e6; }
static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int fail(const char *what, const char *msg) {
    fprintf(stderr, "table_bench: %s: %s\n", what, msg);
    return 1;
}

static int sql(tarn_db *db, const char *text) {
    return tarn_query(db, text, NULL) ? fail(text, tarn_last_error()) : 0;
}

/* The default file system without fsync, to build test data quickly. */
static int nosync(tn_fs *fs, tn_file *file) { (void)fs; (void)file; return 0; }

static int build(const char *wh, long n) {
    if (n < 2) return fail("build", "N must be at least 2");
    tarn_db *db = NULL;
    tn_arena *keep = tn_arena_create(0), *arena = tn_arena_create(0);
    int status = 1;
    if (!keep || !arena) goto cleanup;
    const char *tpath = tn_arena_printf(keep, "%s/t", wh);
    const char *first = tn_arena_printf(keep, "%s/part-%05ld.parquet", tpath, 1L);
    const char *create = tn_arena_printf(
        keep, "CREATE TABLE t (id BIGINT); COPY (SELECT 0::BIGINT AS id) TO '%s' (FORMAT parquet)", first);
    if (!tpath || !first || !create) goto cleanup;
    if (tarn_open(wh, &db)) { fail("open", tarn_last_error()); goto cleanup; }
    double t0 = now_ms();
    if (sql(db, create)) goto cleanup;
    struct stat st;
    if (stat(first, &st)) { perror(first); goto cleanup; }
    tn_fs fs = *tn_fs_default();
    fs.sync = nosync;
    fs.sync_dir = NULL;
    double commit_ms = 0, ckpt_ms = 0;
    for (long v = 1; v < n; v++) {
        tn_arena_reset(arena);
        const char *path = tn_arena_printf(arena, "%s/part-%05ld.parquet", tpath, v);
        if (!path) goto cleanup;
        if (v > 1 && link(first, path)) { perror(path); goto cleanup; }
        int64_t now = tn_time_now_us() / 1000;
        char ci[512], add[1024];
        snprintf(ci, sizeof ci,
                 "{\"commitInfo\":{\"timestamp\":%" PRId64 ",\"operation\":\"WRITE\","
                 "\"operationParameters\":{\"mode\":\"Append\"},\"readVersion\":%ld,"
                 "\"isBlindAppend\":true,\"engineInfo\":\"tarn table_bench\"}}", now, v - 1);
        snprintf(add, sizeof add,
                 "{\"add\":{\"path\":\"part-%05ld.parquet\",\"partitionValues\":{},\"size\":%lld,"
                 "\"modificationTime\":%" PRId64 ",\"dataChange\":true,\"stats\":"
                 "\"{\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"id\\\":0},\\\"maxValues\\\":{\\\"id\\\":0},"
                 "\\\"nullCount\\\":{\\\"id\\\":0}}\"}}", v, (long long)st.st_size, now);
        tn_delta_action acts[2];
        if (tn_delta_action_parse(&acts[0], arena, ci, strlen(ci)) ||
            tn_delta_action_parse(&acts[1], arena, add, strlen(add))) {
            fail("parse", tn_error_message());
            goto cleanup;
        }
        double c0 = now_ms();
        if (tn_delta_commit(&fs, tpath, v, acts, 2)) { fail("commit", tn_error_message()); goto cleanup; }
        double c1 = now_ms();
        if (tn_delta_maybe_checkpoint(&fs, tpath, v)) { fail("checkpoint", tn_error_message()); goto cleanup; }
        commit_ms += c1 - c0;
        ckpt_ms += now_ms() - c1;
    }
    printf("built commits=%ld commit_ms=%.0f checkpoint_ms=%.0f total_ms=%.0f\n", n, commit_ms,
           ckpt_ms, now_ms() - t0);
    status = 0;
cleanup:
    tn_arena_destroy(arena);
    tn_arena_destroy(keep);
    tarn_close(db);
    return status;
}

static int sqlrate(const char *wh, long k) {
    tarn_db *db = NULL;
    char q[256];
    int status = 1;
    if (tarn_open(wh, &db)) return fail("open", tarn_last_error());
    if (sql(db, "DROP TABLE IF EXISTS u; CREATE TABLE u (id BIGINT)")) goto cleanup;
    double t0 = now_ms();
    for (long i = 0; i < k; i++) {
        snprintf(q, sizeof q, "INSERT INTO u VALUES (%ld)", i);
        if (sql(db, q)) goto cleanup;
    }
    double ms = now_ms() - t0;
    printf("sql_inserts=%ld total_ms=%.0f ms_per_commit=%.2f\n", k, ms, ms / (double)k);
    status = sql(db, "DROP TABLE u");
cleanup:
    tarn_close(db);
    return status;
}

static int open_bench(const char *wh, int reps, bool json) {
    char tpath[4096];
    if (snprintf(tpath, sizeof tpath, "%s/t", wh) >= (int)sizeof tpath) return fail(wh, "path too long");
    tn_delta_open_options o = TN_DELTA_OPEN_OPTIONS_INIT;
    o.use_checkpoints = !json;
    for (int i = 0; i <= reps; i++) {
        tn_delta_snapshot *snap = NULL;
        double t0 = now_ms(), c0 = cpu_ms();
        if (tn_delta_snapshot_open(&snap, tn_fs_default(), tpath, &o))
            return fail("snapshot open", tn_error_message());
        double ms = now_ms() - t0, cms = cpu_ms() - c0;
        if (i > 0) printf("time_ms=%.3f cpu_ms=%.3f\n", ms, cms);
        else
            printf("version=%" PRId64 " files=%u checkpoint=%" PRId64 " json_commits_replayed=%" PRId64 "\n",
                   snap->version, snap->nfiles, snap->checkpoint_version, snap->commits_replayed);
        tn_delta_snapshot_free(snap);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "build")) return build(argv[2], atol(argv[3]));
    if (argc >= 4 && !strcmp(argv[1], "sqlrate")) return sqlrate(argv[2], atol(argv[3]));
    if (argc >= 4 && !strcmp(argv[1], "open")) {
        int reps = atoi(argv[3]);
        if (reps < 1 || reps > 10000) return 2;
        return open_bench(argv[2], reps, argc >= 5 && !strcmp(argv[4], "json"));
    }
    fprintf(stderr, "usage: table_bench build WAREHOUSE N | sqlrate WAREHOUSE K | open WAREHOUSE REPS [json]\n");
    return 2;
}
