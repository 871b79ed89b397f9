/*
 * tests/unit/test_table_faults.c: table writes under failure: a wrapping tn_fs that fails the
 * k-th write / sync / link leaves the previous state; concurrent writer processes (fork) append
 * without losing rows; an overwrite racing an append on the same partition conflicts; writers
 * SIGKILLed at random points leave only committed states.
 */
#include "table_testlib.h"

/* ---------------------------------------------------------------------------------------------
 * Fault injection: a tn_fs that fails the k-th write / sync / link.
 */
typedef struct fault_fs {
    tn_fs fs;
    tn_fs *base;
    int op;                          /* 0 write, 1 sync, 2 link, 3 open_write */
    int k;
    int calls;
} fault_fs;

#define FBASE(f) (((fault_fs *)(f)->state)->base)
static int ff_hit(tn_fs *f, int op) {
    fault_fs *x = f->state;
    if (x->op != op) return 0;
    if (++x->calls == x->k) return 1;
    return 0;
}
static int ff_open_read(tn_fs *f, const char *p, tn_file **o) { return FBASE(f)->open_read(FBASE(f), p, o); }
static int ff_open_write(tn_fs *f, const char *p, bool ex, tn_file **o) {
    if (ff_hit(f, 3)) return tn_error_set(TN_EIO, "%s: injected ENOSPC", p);
    return FBASE(f)->open_write(FBASE(f), p, ex, o);
}
static int ff_size(tn_fs *f, tn_file *fl, uint64_t *o) { return FBASE(f)->size(FBASE(f), fl, o); }
static int ff_pread(tn_fs *f, tn_file *fl, void *b, size_t n, uint64_t off) { return FBASE(f)->pread(FBASE(f), fl, b, n, off); }
static int ff_write(tn_fs *f, tn_file *fl, const void *b, size_t n) {
    if (ff_hit(f, 0)) {
        if (n > 1) FBASE(f)->write(FBASE(f), fl, b, n / 2);   /* short write */
        return tn_error_set(TN_EIO, "injected short write");
    }
    return FBASE(f)->write(FBASE(f), fl, b, n);
}
static int ff_sync(tn_fs *f, tn_file *fl) {
    if (ff_hit(f, 1)) return tn_error_set(TN_EIO, "injected fsync failure");
    return FBASE(f)->sync(FBASE(f), fl);
}
static int ff_close(tn_fs *f, tn_file *fl) { return FBASE(f)->close(FBASE(f), fl); }
static int ff_link(tn_fs *f, const char *a, const char *b) {
    if (ff_hit(f, 2)) return tn_error_set(TN_EIO, "%s: injected link failure", b);
    return FBASE(f)->link(FBASE(f), a, b);
}
static int ff_rename(tn_fs *f, const char *a, const char *b) { return FBASE(f)->rename(FBASE(f), a, b); }
static int ff_unlink(tn_fs *f, const char *p) { return FBASE(f)->unlink(FBASE(f), p); }
static int ff_mkdir(tn_fs *f, const char *p) { return FBASE(f)->mkdir_p(FBASE(f), p); }
static int ff_exists(tn_fs *f, const char *p, bool *o) { return FBASE(f)->exists(FBASE(f), p, o); }
static int ff_list(tn_fs *f, const char *p, int (*fn)(void *, const char *, bool), void *c) {
    return FBASE(f)->list_dir(FBASE(f), p, fn, c);
}

static int ff_stat(tn_fs *f, const char *p, tn_fs_stat *o) { return tn_fs_stat_path(FBASE(f), p, o); }
static int ff_rmdir(tn_fs *f, const char *p) { return tn_fs_rmdir(FBASE(f), p); }
static int ff_sync_dir(tn_fs *f, const char *p) { return tn_fs_sync_dir(FBASE(f), p); }

static void fault_init(fault_fs *x, int op, int k) {
    tn_fs fs = {.open_read = ff_open_read, .open_write = ff_open_write, .size = ff_size,
                .pread = ff_pread, .write = ff_write, .sync = ff_sync, .close = ff_close,
                .link = ff_link, .rename = ff_rename, .unlink = ff_unlink, .mkdir_p = ff_mkdir,
                .exists = ff_exists, .list_dir = ff_list, .state = x, .stat = ff_stat,
                .rmdir = ff_rmdir, .sync_dir = ff_sync_dir};
    x->fs = fs;
    x->base = tn_fs_default();
    x->op = op;
    x->k = k;
    x->calls = 0;
}

TEST(fault_injection_leaves_previous_state) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_all_types(path, false));
    tn_table_commit_result res;
    CHECK_OK(append_range(tn_fs_default(), path, 0, 300, NULL, &res));
    rows base = {0};
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_OK(scan_rows(t, NULL, 0, NULL, 0, &base, NULL));
    tn_table_close(t);
    int base_files = count_data_files(path);
    int failures = 0;
    int64_t next_id = 300;
    for (int op = 0; op < 4; op++) {
        for (int k = 1; k < 400; k += 1 + k / 8) {
            fault_fs ff;
            fault_init(&ff, op, k);
            tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
            wo.app_id = "faulty";
            wo.app_version = next_id;
            int rc = append_range(&ff.fs, path, next_id, 50, &wo, &res);
            if (getenv("TN_TEST_VERBOSE")) fprintf(stderr, "op %d k %d rc %d calls %d: %s\n", op, k, rc, ff.calls, rc ? tn_error_message() : "");
            if (rc == 0) {
                /* the fault came too late (or hit a best-effort step after the commit, such as
                 * the log directory fsync): this write committed; make it the new base */
                bool fired = ff.calls >= k;
                rows_free(&base);
                CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
                CHECK_OK(scan_rows(t, NULL, 0, NULL, 0, &base, NULL));
                tn_table_close(t);
                base_files = count_data_files(path);
                next_id += 50;
                if (!fired) break;
                continue;
            }
            failures++;
            rows now = {0};
            CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
            int64_t ver = tn_table_version(t);
            CHECK_OK(scan_rows(t, NULL, 0, NULL, 0, &now, NULL));
            tn_table_close(t);
            char err[1024];
            CHECK_MSG(!rows_diff(&now, &base, err, sizeof err), "op %d k %d: %s", op, k, err);
            CHECK_MSG(count_data_files(path) == base_files, "op %d k %d: %d data files, expected %d", op, k,
                      count_data_files(path), base_files);
            char vp[2048];
            snprintf(vp, sizeof vp, "%s/_delta_log/%020lld.json", path, (long long)(ver + 1));
            CHECK_MSG(access(vp, F_OK) != 0, "op %d k %d: version file appeared", op, k);
            rows_free(&now);
            /* the retry with the same txn is applied exactly once */
            tn_table_commit_result r2;
            CHECK_OK(append_range(tn_fs_default(), path, next_id, 50, &wo, &r2));
            CHECK(!r2.skipped);
            CHECK_OK(append_range(tn_fs_default(), path, next_id, 50, &wo, &r2));
            CHECK(r2.skipped);
            rows_free(&base);
            CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
            CHECK_OK(scan_rows(t, NULL, 0, NULL, 0, &base, NULL));
            tn_table_close(t);
            CHECK_EQ_INT(base.n, (size_t)next_id + 50);
            base_files = count_data_files(path);
            next_id += 50;
        }
    }
    CHECK_MSG(failures > 10, "only %d injected failures", failures);
    rows_free(&base);
    rm_rf_unchecked(wh);   /* injected failures skip checkpoints on purpose */
    free(wh);
}

/* ---------------------------------------------------------------------------------------------
 * Concurrency: writer processes (fork) appending while the parent reads.
 */
static int child_appends(const char *path, int child, int n) {
    for (int j = 0; j < n; j++) {
        tn_table_commit_result res;
        tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
        wo.max_attempts = 1000;
        int rc = append_range(tn_fs_default(), path, (int64_t)child * 100000 + j * 10, 10, &wo, &res);
        if (rc) {
            fprintf(stderr, "child %d append %d: %s\n", child, j, tn_error_message());
            return 1;
        }
    }
    return 0;
}

TEST(concurrent_appends_from_4_processes) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_all_types(path, false));
    enum { NPROC = 4, NAPPEND = 50 };
    pid_t pids[NPROC];
    for (int c = 0; c < NPROC; c++) {
        pids[c] = fork();
        if (pids[c] == 0) _exit(child_appends(path, c, NAPPEND));
        CHECK(pids[c] > 0);
    }
    /* readers: every snapshot is a committed state (10 rows per data commit) */
    int reads = 0, bad = 0;
    for (;;) {
        tn_table *t = NULL;
        if (tn_table_open(&t, tn_fs_default(), path, NULL) == 0) {
            int64_t n = count_rows(t);
            if (n != tn_table_version(t) * 10) bad++;
            tn_table_close(t);
            reads++;
        } else {
            bad++;
        }
        int done = 0;
        for (int c = 0; c < NPROC; c++) {
            int st;
            if (pids[c] == 0) { done++; continue; }
            pid_t r = waitpid(pids[c], &st, WNOHANG);
            if (r == pids[c]) {
                CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d failed", c);
                pids[c] = 0;
                done++;
            }
        }
        if (done == NPROC) break;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(reads > 0);
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_INT(tn_table_version(t), NPROC * NAPPEND);
    rows got = {0};
    uint32_t cols[] = {C_ID};
    CHECK_OK(scan_rows(t, cols, 1, NULL, 0, &got, NULL));
    CHECK_EQ_INT(got.n, NPROC * NAPPEND * 10);
    /* every id exactly once */
    for (size_t i = 1; i < got.n; i++) CHECK_MSG(strcmp(got.r[i - 1], got.r[i]) != 0, "duplicate id %s", got.r[i]);
    rows_free(&got);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

TEST(overwrite_racing_append_on_same_partition_conflicts) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_all_types(path, true));
    tn_table_commit_result res;
    CHECK_OK(append_range(tn_fs_default(), path, 0, 20, NULL, &res));
    /* the overwrite reads version 1; an append to the same partition commits first */
    tn_table *t = NULL;
    tn_layout_writer *w = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.mode = TN_LAYOUT_OVERWRITE;
    tn_delta_kv spec[] = {{"ps", "plain"}, {"pd", "2023-12-11"}};
    wo.partition_spec = spec;
    wo.npartition_spec = 2;
    CHECK_OK(tn_layout_writer_open(&w, t, &wo));
    tn_chunk c;
    CHECK_OK(fill_chunk(&c, 5, 1));   /* id 5: ps plain, pd 19700+2 */
    CHECK_OK(tn_layout_writer_write(w, &c));
    tn_chunk_free(&c);
    CHECK_OK(append_range(tn_fs_default(), path, 35, 1, NULL, &res));   /* 35: plain, 19702 */
    int rc = tn_layout_writer_commit(w, &res);
    CHECK(rc == TN_ECONFLICT);
    CHECK_MSG(strstr(tn_error_message(), "onflict") || strstr(tn_error_message(), "oncurrent"), "%s", tn_error_message());
    tn_table_close(t);
    /* nothing lost: both earlier commits are there; no orphan file from the failed overwrite */
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_INT(count_rows(t), 21);
    CHECK_EQ_INT(count_data_files(path), (int)tn_table_snapshot(t)->nfiles);
    tn_table_close(t);
    /* a retry on the new snapshot succeeds */
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_OK(tn_layout_writer_open(&w, t, &wo));
    CHECK_OK(fill_chunk(&c, 5, 1));
    CHECK_OK(tn_layout_writer_write(w, &c));
    tn_chunk_free(&c);
    CHECK_OK(tn_layout_writer_commit(w, &res));
    tn_table_close(t);
    /* and an append to another partition racing an overwrite does not conflict */
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_OK(tn_layout_writer_open(&w, t, &wo));
    CHECK_OK(fill_chunk(&c, 5, 1));
    CHECK_OK(tn_layout_writer_write(w, &c));
    tn_chunk_free(&c);
    CHECK_OK(append_range(tn_fs_default(), path, 30, 1, NULL, &res));   /* 30: a/b */
    CHECK_OK(tn_layout_writer_commit(w, &res));
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

/* SIGKILL a writer at random points; the table always opens to a committed state. */
TEST(sigkill_writers_leave_committed_states) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_all_types(path, false));
    srand(12345);
    int64_t last_rows = 0;
    for (int it = 0; it < 25; it++) {
        pid_t pid = fork();
        if (pid == 0) _exit(child_appends(path, it, 1000));
        CHECK(pid > 0);
        struct timespec ts = {0, (long)(rand() % 40) * 1000000L + 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
        tn_table *t = NULL;
        CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
        int64_t n = count_rows(t);
        CHECK_MSG(n == tn_table_version(t) * 10, "iteration %d: %lld rows at version %lld", it, (long long)n,
                  (long long)tn_table_version(t));
        CHECK(n >= last_rows);
        last_rows = n;
        tn_table_close(t);
    }
    /* an idempotent retry after the kills is applied once */
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.app_id = "after-kill";
    wo.app_version = 1;
    tn_table_commit_result res;
    CHECK_OK(append_range(tn_fs_default(), path, 999999, 10, &wo, &res));
    CHECK_OK(append_range(tn_fs_default(), path, 999999, 10, &wo, &res));
    CHECK(res.skipped);
    tn_test_remove_tables_after_crash(wh);
    free(wh);
}

TEST_MAIN()
