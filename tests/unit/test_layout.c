/*
 * tests/unit/test_layout.c: the table-level write primitives (file writers with explicit row
 * groups, tags and name infixes; transactions with removes, configuration, metrics and a
 * declared read set, including conflict scoping below partitions), restricted scans (files,
 * file and row-group callbacks), and layout/: the dispatch by table metadata (unknown layouts
 * refused for writes), per-write options, and the plain writer.
 */
#include "layout/layout.h"
#include "testlib.h"

#include <dirent.h>
#include <jansson.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *make_tmpdir(void) {
    char tmpl[] = "/tmp/tarn-layout-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static void rm_rf(const char *path) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "rm failed: %s\n", path);
}

/* Regular .parquet files under dir (recursively). */
static int count_parquet(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) n += count_parquet(p);
        else if (strstr(e->d_name, ".parquet")) n++;
    }
    closedir(d);
    return n;
}

/* t(k BIGINT NOT NULL, v VARCHAR, p VARCHAR) PARTITIONED BY (p) [WITH conf]. */
static int create_kvp(const char *path, const tn_delta_kv *conf, uint32_t nconf) {
    tn_table_column_def cols[] = {{"k", tn_type_make(TN_TYPE_BIGINT), false, NULL},
                                  {"v", tn_type_make(TN_TYPE_VARCHAR), true, NULL},
                                  {"p", tn_type_make(TN_TYPE_VARCHAR), true, NULL}};
    const char *parts[] = {"p"};
    tn_table_create_options co = TN_TABLE_CREATE_OPTIONS_INIT;
    co.columns = cols;
    co.ncolumns = 3;
    co.partition_columns = parts;
    co.npartition_columns = 1;
    co.configuration = conf;
    co.nconfiguration = nconf;
    return tn_table_create(tn_fs_default(), path, &co);
}

/* Rows k = from..from+n-1, v = "v<k>", p = part (NULL = "p<k % 3>"). */
static int kvp_chunk(tn_chunk *c, int64_t from, uint32_t n, const char *part) {
    tn_type types[] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_VARCHAR)};
    int rc = tn_chunk_init(c, 3, types, n);
    char buf[32];
    for (uint32_t i = 0; i < n && !rc; i++) {
        int64_t k = from + i;
        ((int64_t *)c->cols[0].data)[i] = k;
        snprintf(buf, sizeof buf, "v%lld", (long long)k);
        rc = tn_vector_set_str(&c->cols[1], i, buf, strlen(buf));
        if (!rc) {
            if (part) snprintf(buf, sizeof buf, "%s", part);
            else snprintf(buf, sizeof buf, "p%lld", (long long)(k % 3));
            rc = tn_vector_set_str(&c->cols[2], i, buf, strlen(buf));
        }
    }
    for (uint32_t k = 0; k < 3; k++) c->cols[k].count = n;
    c->count = n;
    return rc;
}

typedef struct collect {
    int64_t sum, n;
    uint32_t files_seen[64];
    uint32_t nfiles_seen;
} collect;

static int collect_chunk(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    collect *c = ctx;
    (void)first_row;
    for (uint32_t i = 0; i < chunk->count; i++) c->sum += ((const int64_t *)chunk->cols[0].data)[i];
    c->n += chunk->count;
    bool seen = false;
    for (uint32_t i = 0; i < c->nfiles_seen; i++) seen = seen || c->files_seen[i] == file;
    if (!seen && c->nfiles_seen < 64) c->files_seen[c->nfiles_seen++] = file;
    return 0;
}

static int scan_k_files(tn_table *t, const tn_table_scan_options *extra, const uint32_t *files, uint32_t nfiles,
                        collect *out, tn_table_scan_stats *st) {
    tn_table_scan_options o = extra ? *extra : (tn_table_scan_options)TN_TABLE_SCAN_OPTIONS_INIT;
    uint32_t cols[] = {0};
    o.columns = cols;
    o.ncolumns = 1;
    o.all_columns = false;
    tn_table_scan *s = NULL;
    memset(out, 0, sizeof *out);
    int rc = tn_table_scan_open_files(&s, t, &o, files, nfiles);
    if (!rc) rc = tn_table_scan_run(s, collect_chunk, out);
    if (!rc && st) tn_table_scan_get_stats(s, st);
    tn_table_scan_close(s);
    return rc;
}

static int scan_k(tn_table *t, const tn_table_scan_options *extra, collect *out, tn_table_scan_stats *st) {
    return scan_k_files(t, extra, NULL, 0, out, st);
}

static const char *tag_of(const tn_delta_file *f, const char *key) {
    for (uint32_t i = 0; i < f->ntags; i++)
        if (strcmp(f->tags[i].key, key) == 0) return f->tags[i].value;
    return NULL;
}

/* Writes rows [from, from+n) of partition part tagged bucket=b into txn (one file writer). */
static int write_bucket(tn_table_txn *txn, const char *part, const char *bucket, int64_t from, uint32_t n) {
    tn_delta_kv pv[] = {{"p", part}};
    tn_delta_kv tags[] = {{"bucket", bucket}, {"bucketCount", "4"}};
    tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
    fo.partition_values = pv;
    fo.npartition_values = 1;
    fo.tags = tags;
    fo.ntags = 2;
    fo.name_infix = "bucket-b";
    tn_table_file_writer *fw = NULL;
    int rc = tn_table_file_writer_open(&fw, txn, &fo);
    if (rc) return rc;
    tn_chunk c;
    rc = kvp_chunk(&c, from, n, part);
    if (!rc) rc = tn_table_file_writer_write(fw, &c, NULL, n);
    tn_chunk_free(&c);
    if (rc) {
        tn_table_file_writer_abort(fw);
        return rc;
    }
    return tn_table_file_writer_close(fw);
}

TEST(file_writer_explicit_row_groups_tags_infix) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_kvp(path, NULL, 0));
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    tn_table_txn *txn = NULL;
    CHECK_OK(tn_table_txn_open(&txn, t, 0));
    tn_delta_kv pv[] = {{"p", "a/b"}};
    tn_delta_kv tags[] = {{"revision", "1"}, {"blocks", "[{\"cubeId\":\"\"}]"}};
    tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
    fo.partition_values = pv;
    fo.npartition_values = 1;
    fo.tags = tags;
    fo.ntags = 2;
    fo.name_infix = "cube_0";
    fo.row_group_rows = UINT64_MAX;   /* explicit boundaries only */
    fo.data_change = false;
    tn_table_file_writer *fw = NULL;
    CHECK_OK(tn_table_file_writer_open(&fw, txn, &fo));
    /* three row groups of 10, 1 and 5 rows; a flush of an empty group is a no-op */
    tn_chunk c;
    CHECK_OK(kvp_chunk(&c, 0, 16, "a/b"));
    uint32_t sel[16];
    for (uint32_t i = 0; i < 16; i++) sel[i] = i;
    CHECK_OK(tn_table_file_writer_write(fw, &c, sel, 10));
    CHECK_OK(tn_table_file_writer_flush(fw));
    CHECK_OK(tn_table_file_writer_flush(fw));
    CHECK_OK(tn_table_file_writer_write(fw, &c, sel + 10, 1));
    CHECK_OK(tn_table_file_writer_flush(fw));
    CHECK_OK(tn_table_file_writer_write(fw, &c, sel + 11, 5));
    CHECK_EQ_INT(tn_table_file_writer_file_rows(fw), 16);
    CHECK(tn_table_file_writer_file_bytes(fw) > 0);
    /* a second file with other tags */
    CHECK_OK(tn_table_file_writer_roll(fw));
    tn_delta_kv tags2[] = {{"revision", "2"}};
    CHECK_OK(tn_table_file_writer_set_tags(fw, tags2, 1));
    CHECK_OK(tn_table_file_writer_write(fw, &c, NULL, 3));
    CHECK_EQ_INT(tn_table_file_writer_num_files(fw), 2);
    CHECK_OK(tn_table_file_writer_close(fw));
    tn_chunk_free(&c);
    CHECK_EQ_INT(tn_table_txn_num_adds(txn), 2);
    tn_delta_kv metrics[] = {{"numFiles", "2"}, {"numOutputRows", "19"}};
    tn_delta_kv params[] = {{"note", "test"}};
    CHECK_OK(tn_table_txn_set_commit_info(txn, "OPTIMIZE", params, 1, metrics, 2));
    tn_table_commit_result res;
    CHECK_OK(tn_table_txn_commit(txn, &res));
    CHECK_EQ_INT(res.version, 1);
    CHECK_EQ_INT(res.files_added, 2);
    CHECK_EQ_INT(res.rows_written, 19);
    tn_table_close(t);

    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    CHECK_EQ_INT(snap->nfiles, 2);
    int seen_rev1 = 0;
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        const tn_delta_file *f = &snap->files[i];
        CHECK_MSG(strstr(f->path_decoded, "p=a%2Fb/part-") == f->path_decoded, "%s", f->path_decoded);
        CHECK_MSG(strstr(f->path_decoded, "-cube_0-") != NULL, "%s", f->path_decoded);
        CHECK(!f->data_change);
        const char *rev = tag_of(f, "revision");
        CHECK(rev != NULL);
        if (strcmp(rev, "1") == 0) {
            seen_rev1 = 1;
            CHECK_EQ_STR(tag_of(f, "blocks"), "[{\"cubeId\":\"\"}]");
            /* the footer has exactly the three row groups asked for */
            const char *full = NULL;
            tn_arena *a = tn_arena_create(0);
            CHECK_OK(tn_delta_file_full_path(snap, f, a, &full));
            tn_parquet_file *pf = NULL;
            CHECK_OK(tn_parquet_open(&pf, tn_fs_default(), full, NULL));
            CHECK_EQ_INT(tn_parquet_num_row_groups(pf), 3);
            CHECK_EQ_INT(tn_parquet_row_group_num_rows(pf, 0), 10);
            CHECK_EQ_INT(tn_parquet_row_group_num_rows(pf, 1), 1);
            CHECK_EQ_INT(tn_parquet_row_group_num_rows(pf, 2), 5);
            tn_parquet_close(pf);
            tn_arena_destroy(a);
        } else {
            CHECK_EQ_STR(rev, "2");
            CHECK(tag_of(f, "blocks") == NULL);
        }
    }
    CHECK(seen_rev1);
    /* commitInfo carries the operation, parameters and metrics */
    tn_table_history h;
    CHECK_OK(tn_table_history_read(&h, tn_fs_default(), path, 1));
    CHECK_EQ_STR(h.entries[0].operation, "OPTIMIZE");
    CHECK(strstr(h.entries[0].operation_parameters, "\"note\":\"test\"") != NULL);
    tn_table_history_free(&h);
    char logp[1200];
    snprintf(logp, sizeof logp, "%s/_delta_log/00000000000000000001.json", path);
    tn_buf log = TN_BUF_INIT;
    CHECK_OK(tn_fs_read_all(tn_fs_default(), logp, &log));
    CHECK_OK(tn_buf_append_byte(&log, 0));
    CHECK(strstr((const char *)log.data, "\"operationMetrics\":{\"numFiles\":\"2\",\"numOutputRows\":\"19\"}") != NULL);
    tn_buf_free(&log);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

TEST(file_writer_and_txn_abort_remove_their_files) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_kvp(path, NULL, 0));
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    tn_table_txn *txn = NULL;
    CHECK_OK(tn_table_txn_open(&txn, t, 0));
    CHECK_OK(write_bucket(txn, "x", "0", 0, 10));   /* closed: its file belongs to txn */
    CHECK_EQ_INT(count_parquet(path), 1);
    /* a writer aborted: its files go, the closed writer's stay until the txn ends */
    tn_delta_kv pv[] = {{"p", "y"}};
    tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
    fo.partition_values = pv;
    fo.npartition_values = 1;
    fo.target_file_bytes = 1;   /* a file per write */
    tn_table_file_writer *fw = NULL;
    CHECK_OK(tn_table_file_writer_open(&fw, txn, &fo));
    tn_chunk c;
    CHECK_OK(kvp_chunk(&c, 0, 5, "y"));
    CHECK_OK(tn_table_file_writer_write(fw, &c, NULL, 5));
    CHECK_OK(tn_table_file_writer_write(fw, &c, NULL, 5));
    CHECK_EQ_INT(tn_table_file_writer_num_files(fw), 2);
    CHECK_EQ_INT(count_parquet(path), 3);
    tn_table_file_writer_abort(fw);
    CHECK_EQ_INT(count_parquet(path), 1);
    /* a NULL in the NOT NULL column k fails the write, the writer is then unusable */
    CHECK_OK(tn_table_file_writer_open(&fw, txn, &fo));
    tn_vector_set_null(&c.cols[0], 2);
    int rc = tn_table_file_writer_write(fw, &c, NULL, 5);
    CHECK(rc == TN_ECONSTRAINT);
    CHECK(tn_table_file_writer_write(fw, &c, NULL, 1) != 0);
    tn_chunk_free(&c);
    /* the txn abort frees the open writer and removes every file */
    tn_table_txn_abort(txn);
    CHECK_EQ_INT(count_parquet(path), 0);
    /* wrong partition values are refused */
    CHECK_OK(tn_table_txn_open(&txn, t, 0));
    tn_delta_kv bad[] = {{"v", "x"}};
    fo.partition_values = bad;
    CHECK(tn_table_file_writer_open(&fw, txn, &fo) == TN_EINVAL);
    fo.partition_values = NULL;
    fo.npartition_values = 0;
    CHECK(tn_table_file_writer_open(&fw, txn, &fo) == TN_EINVAL);
    fo.partition_values = pv;
    fo.npartition_values = 1;
    fo.name_infix = "../x";
    CHECK(tn_table_file_writer_open(&fw, txn, &fo) == TN_EINVAL);
    tn_table_txn_abort(txn);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

/* A bucket read scope: files of partition `part` tagged bucket `bucket`. */
typedef struct bucket_scope {
    const char *part, *bucket;
} bucket_scope;

static bool in_bucket(void *ctx, const tn_delta_file *f) {
    const bucket_scope *b = ctx;
    const char *p = f->npartition_values ? f->partition_values[0].value : NULL;
    const char *bk = tag_of(f, "bucket");
    return p && bk && strcmp(p, b->part) == 0 && strcmp(bk, b->bucket) == 0;
}

/* Rewrites bucket b of partition "x": reads its files, removes them, writes a replacement. */
static int rewrite_bucket(tn_table *t, const char *bucket, bucket_scope *scope, tn_table_commit_result *res,
                          tn_table_txn **out_txn) {
    tn_table_txn *txn = NULL;
    int rc = tn_table_txn_open(&txn, t, 0);
    if (rc) return rc;
    scope->part = "x";
    scope->bucket = bucket;
    rc = tn_table_txn_read_matching(txn, in_bucket, scope);
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    for (uint32_t i = 0; i < snap->nfiles && !rc; i++)
        if (in_bucket(scope, &snap->files[i])) rc = tn_table_txn_remove(txn, &snap->files[i], true);
    if (!rc) rc = write_bucket(txn, "x", bucket, 1000, 7);
    if (!rc) rc = tn_table_txn_set_commit_info(txn, "MERGE", NULL, 0, NULL, 0);
    if (rc) {
        tn_table_txn_abort(txn);
        return rc;
    }
    if (out_txn) {
        *out_txn = txn;
        return 0;
    }
    return tn_table_txn_commit(txn, res);
}

TEST(txn_conflicts_are_scoped_to_what_was_read) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_kvp(path, NULL, 0));
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    tn_table_txn *txn = NULL;
    CHECK_OK(tn_table_txn_open(&txn, t, 0));
    for (int b = 0; b < 4; b++) {
        char bs[4];
        snprintf(bs, sizeof bs, "%d", b);
        CHECK_OK(write_bucket(txn, "x", bs, b * 100, 10));
    }
    tn_table_commit_result res;
    CHECK_OK(tn_table_txn_commit(txn, &res));
    CHECK_EQ_INT(res.version, 1);
    tn_table_close(t);

    /* two writers on version 1 rewrite buckets 0 and 1 of partition x: no conflict */
    tn_table *t1 = NULL, *t2 = NULL;
    CHECK_OK(tn_table_open(&t1, tn_fs_default(), path, NULL));
    CHECK_OK(tn_table_open(&t2, tn_fs_default(), path, NULL));
    bucket_scope s1, s2;
    tn_table_txn *x1 = NULL, *x2 = NULL;
    CHECK_OK(rewrite_bucket(t1, "0", &s1, NULL, &x1));
    CHECK_OK(rewrite_bucket(t2, "1", &s2, NULL, &x2));
    tn_table_commit_result r1, r2;
    CHECK_OK(tn_table_txn_commit(x1, &r1));
    CHECK_OK(tn_table_txn_commit(x2, &r2));
    CHECK_EQ_INT(r1.version, 2);
    CHECK_EQ_INT(r2.version, 3);
    CHECK_EQ_INT(r2.attempts, 2);
    tn_table_close(t1);
    tn_table_close(t2);

    /* two writers rewrite the same bucket 2: the second conflicts (the same files removed) and
     * leaves no file behind */
    CHECK_OK(tn_table_open(&t1, tn_fs_default(), path, NULL));
    CHECK_OK(tn_table_open(&t2, tn_fs_default(), path, NULL));
    CHECK_OK(rewrite_bucket(t1, "2", &s1, NULL, &x1));
    CHECK_OK(rewrite_bucket(t2, "2", &s2, NULL, &x2));
    int files_before = count_parquet(path);
    CHECK_OK(tn_table_txn_commit(x1, &r1));
    int rc = tn_table_txn_commit(x2, &r2);
    CHECK_MSG(rc == TN_ECONFLICT, "rc %d: %s", rc, tn_error_message());
    CHECK_MSG(strstr(tn_error_message(), "conflict") != NULL, "%s", tn_error_message());
    CHECK_EQ_INT(r2.version, -1);
    CHECK_EQ_INT(count_parquet(path), files_before - 1);
    tn_table_close(t1);
    tn_table_close(t2);

    /* a winner that only ADDS to the bucket we read conflicts too (its rows may hold our keys);
     * one that adds to another bucket does not */
    CHECK_OK(tn_table_open(&t1, tn_fs_default(), path, NULL));
    CHECK_OK(tn_table_open(&t2, tn_fs_default(), path, NULL));
    CHECK_OK(rewrite_bucket(t2, "3", &s2, NULL, &x2));
    CHECK_OK(tn_table_txn_open(&x1, t1, 0));
    CHECK_OK(write_bucket(x1, "x", "0", 5000, 3));
    CHECK_OK(tn_table_txn_commit(x1, &r1));   /* blind append into bucket 0 */
    CHECK_OK(tn_table_txn_commit(x2, &r2));   /* bucket 3: fine */
    tn_table_close(t1);
    tn_table_close(t2);
    CHECK_OK(tn_table_open(&t1, tn_fs_default(), path, NULL));
    CHECK_OK(tn_table_open(&t2, tn_fs_default(), path, NULL));
    CHECK_OK(rewrite_bucket(t2, "3", &s2, NULL, &x2));
    CHECK_OK(tn_table_txn_open(&x1, t1, 0));
    CHECK_OK(write_bucket(x1, "x", "3", 6000, 3));
    CHECK_OK(tn_table_txn_commit(x1, &r1));
    rc = tn_table_txn_commit(x2, &r2);
    CHECK_MSG(rc == TN_ECONFLICT, "rc %d: %s", rc, tn_error_message());
    tn_table_close(t1);
    tn_table_close(t2);

    /* the table: buckets 0 (rewritten + 3 appended), 1, 2 (rewritten once), 3 (+3 appended) */
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    collect c;
    CHECK_OK(scan_k(t, NULL, &c, NULL));
    CHECK_EQ_INT(c.n, 7 + 3 + 7 + 7 + 7 + 3);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

TEST(txn_configuration_and_rewrite_without_data_change) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_kvp(path, NULL, 0));
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    tn_table_txn *txn = NULL;
    CHECK_OK(tn_table_txn_open(&txn, t, 0));
    CHECK_OK(write_bucket(txn, "x", "0", 0, 10));
    CHECK_OK(write_bucket(txn, "x", "0", 10, 10));
    tn_delta_kv conf[] = {{"qbeast.lastRevisionID", "1"}, {"qbeast.revision.1", "{}"}};
    CHECK_OK(tn_table_txn_set_configuration(txn, conf, 2));
    tn_table_commit_result res;
    CHECK_OK(tn_table_txn_commit(txn, &res));
    tn_table_close(t);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_STR(tn_table_property(t, "qbeast.lastRevisionID"), "1");
    /* compaction: the two files into one, dataChange = false on both sides */
    CHECK_OK(tn_table_txn_open(&txn, t, 0));
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    CHECK_EQ_INT(snap->nfiles, 2);
    for (uint32_t i = 0; i < snap->nfiles; i++) CHECK_OK(tn_table_txn_remove(txn, &snap->files[i], false));
    CHECK(tn_table_txn_remove(txn, &snap->files[0], false) == TN_EINVAL);   /* twice */
    tn_delta_kv pv[] = {{"p", "x"}};
    tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
    fo.partition_values = pv;
    fo.npartition_values = 1;
    fo.data_change = false;
    tn_table_file_writer *fw = NULL;
    CHECK_OK(tn_table_file_writer_open(&fw, txn, &fo));
    tn_chunk c;
    CHECK_OK(kvp_chunk(&c, 0, 20, "x"));
    CHECK_OK(tn_table_file_writer_write(fw, &c, NULL, 20));
    tn_chunk_free(&c);
    CHECK_OK(tn_table_file_writer_close(fw));
    tn_delta_kv unset[] = {{"qbeast.revision.1", NULL}};
    CHECK_OK(tn_table_txn_set_configuration(txn, unset, 1));
    CHECK_OK(tn_table_txn_set_commit_info(txn, "OPTIMIZE", NULL, 0, NULL, 0));
    CHECK_OK(tn_table_txn_commit(txn, &res));
    CHECK_EQ_INT(res.files_removed, 2);
    CHECK_EQ_INT(res.files_added, 1);
    tn_table_close(t);
    char logp[1200];
    snprintf(logp, sizeof logp, "%s/_delta_log/00000000000000000002.json", path);
    tn_buf log = TN_BUF_INIT;
    CHECK_OK(tn_fs_read_all(tn_fs_default(), logp, &log));
    CHECK_OK(tn_buf_append_byte(&log, 0));
    const char *text = (const char *)log.data;
    CHECK(strstr(text, "\"dataChange\":true") == NULL);
    CHECK(strstr(text, "\"remove\"") != NULL);
    CHECK(strstr(text, "\"metaData\"") != NULL);
    CHECK(strstr(text, "\"isBlindAppend\":false") != NULL);
    tn_buf_free(&log);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_STR(tn_table_property(t, "qbeast.lastRevisionID"), "1");
    CHECK(tn_table_property(t, "qbeast.revision.1") == NULL);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

/* Restricted scans: keep files tagged bucket 1 or 3, and in them the last row group only. */
typedef struct restrict_ctx {
    uint32_t file_calls, rg_calls;
    bool saw_footer_kv;
} restrict_ctx;

static bool odd_buckets(void *ctx, const tn_delta_file *f) {
    restrict_ctx *r = ctx;
    r->file_calls++;
    const char *b = tag_of(f, "bucket");
    return b && (strcmp(b, "1") == 0 || strcmp(b, "3") == 0);
}

static int last_row_group(void *ctx, uint32_t file, const tn_delta_file *f, const tn_parquet_file *pf, uint8_t *keep,
                          uint32_t nrg) {
    restrict_ctx *r = ctx;
    (void)file;
    (void)f;
    r->rg_calls++;
    for (uint32_t i = 0; i < tn_parquet_kv_count(pf); i++) {
        const char *k, *v;
        tn_parquet_kv(pf, i, &k, &v);
        if (strcmp(k, "writer.engine") == 0) r->saw_footer_kv = true;
    }
    for (uint32_t i = 0; i + 1 < nrg; i++) keep[i] = 0;
    return 0;
}

TEST(restricted_scans_files_and_row_groups) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_kvp(path, NULL, 0));
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    tn_table_txn *txn = NULL;
    CHECK_OK(tn_table_txn_open(&txn, t, 0));
    for (int b = 0; b < 4; b++) {
        /* bucket b: rows b*100 .. b*100+29 in row groups of 10 */
        tn_delta_kv pv[] = {{"p", "x"}};
        char bs[4];
        snprintf(bs, sizeof bs, "%d", b);
        tn_delta_kv tags[] = {{"bucket", bs}};
        tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
        fo.partition_values = pv;
        fo.npartition_values = 1;
        fo.tags = tags;
        fo.ntags = 1;
        fo.row_group_rows = 10;
        tn_table_file_writer *fw = NULL;
        CHECK_OK(tn_table_file_writer_open(&fw, txn, &fo));
        tn_chunk c;
        CHECK_OK(kvp_chunk(&c, b * 100, 30, "x"));
        CHECK_OK(tn_table_file_writer_write(fw, &c, NULL, 30));
        tn_chunk_free(&c);
        CHECK_OK(tn_table_file_writer_close(fw));
    }
    tn_table_commit_result res;
    CHECK_OK(tn_table_txn_commit(txn, &res));
    tn_table_close(t);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    collect c;
    tn_table_scan_stats st;
    CHECK_OK(scan_k(t, NULL, &c, &st));
    CHECK_EQ_INT(c.n, 120);
    /* by file callback */
    restrict_ctx rc = {0, 0, false};
    tn_table_scan_options o = TN_TABLE_SCAN_OPTIONS_INIT;
    o.file_filter = odd_buckets;
    o.file_filter_ctx = &rc;
    CHECK_OK(scan_k(t, &o, &c, &st));
    CHECK_EQ_INT(c.n, 60);
    CHECK_EQ_INT(c.sum, (100 * 30 + 435) + (300 * 30 + 435));
    CHECK_EQ_INT(rc.file_calls, 4);
    CHECK_EQ_INT(st.files_pruned, 2);
    CHECK_EQ_INT(st.files_scanned, 2);
    /* plus the last row group only (rows 20..29 of each) */
    o.row_group_filter = last_row_group;
    o.row_group_filter_ctx = &rc;
    CHECK_OK(scan_k(t, &o, &c, &st));
    CHECK_EQ_INT(c.n, 20);
    CHECK_EQ_INT(c.sum, (120 + 129) * 5 + (320 + 329) * 5);
    CHECK_EQ_INT(rc.rg_calls, 2);
    CHECK(rc.saw_footer_kv);
    CHECK_EQ_INT(st.row_groups_excluded, 4);
    CHECK_EQ_INT(st.row_groups_scanned, 2);
    /* a row-group callback also applies to count-only scans (no answer from numRecords) */
    tn_table_scan *s = NULL;
    tn_table_scan_options cnt = TN_TABLE_SCAN_OPTIONS_INIT;
    cnt.row_group_filter = last_row_group;
    cnt.row_group_filter_ctx = &rc;
    CHECK_OK(tn_table_scan_open(&s, t, &cnt));
    CHECK_EQ_INT(tn_table_scan_num_morsels(s), 4);
    tn_table_scan_close(s);
    /* by an explicit file list (indexes into the snapshot); an empty restricted list reads nothing */
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    uint32_t only[1] = {0};
    for (uint32_t i = 0; i < snap->nfiles; i++)
        if (strcmp(tag_of(&snap->files[i], "bucket"), "2") == 0) only[0] = i;
    CHECK_OK(scan_k_files(t, NULL, only, 1, &c, &st));
    CHECK_EQ_INT(c.n, 30);
    CHECK_EQ_INT(c.sum, 200 * 30 + 435);
    CHECK_EQ_INT(c.nfiles_seen, 1);
    CHECK_EQ_INT(c.files_seen[0], only[0]);
    CHECK_OK(scan_k_files(t, NULL, only, 0, &c, &st));
    CHECK_EQ_INT(c.n, 0);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

static int plain_append(const char *path, const tn_layout_write_options *wo, int64_t from, uint32_t n,
                        tn_table_commit_result *res) {
    tn_table *t = NULL;
    tn_layout_writer *w = NULL;
    int rc = tn_table_open(&t, tn_fs_default(), path, NULL);
    if (!rc) rc = tn_layout_writer_open(&w, t, wo);
    for (uint32_t done = 0; !rc && done < n; done += 100) {
        tn_chunk c;
        rc = kvp_chunk(&c, from + done, n - done < 100 ? n - done : 100, NULL);
        if (!rc) rc = tn_layout_writer_write(w, &c);
        tn_chunk_free(&c);
    }
    if (w) {
        if (rc) tn_layout_writer_abort(w);
        else rc = tn_layout_writer_commit(w, res);
    }
    tn_table_close(t);
    return rc;
}

TEST(layout_dispatch_refuses_unknown_layouts) {
    char *wh = make_tmpdir();
    struct {
        const char *name;
        tn_delta_kv conf;
        const char *layout;
        const char *msg;
        bool implemented;              /* in this build, but the writer refuses this table */
    } cases[] = {
        /* an OTree table with qbeast.lastRevisionID but no revision JSON: tests/unit/test_otree.c */
        {"b", {"bucket", "4"}, "bucket", "needs a primary key", true},
        {"z", {"tarn.layout", "zorder"}, "zorder", "layout 'zorder'", false},
        {"e", {"tarn.layout", "plain"}, "plain", NULL, true},
        {"d", {"delta.appendOnly", "false"}, "plain", NULL, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", wh, cases[i].name);
        CHECK_OK(create_kvp(path, &cases[i].conf, 1));
        tn_table *t = NULL;
        CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
        bool impl = false;
        CHECK_EQ_STR(tn_layout_name(t, &impl), cases[i].layout);
        CHECK_EQ_INT(impl, cases[i].implemented);
        tn_layout_writer *w = NULL;
        int rc = tn_layout_writer_open(&w, t, NULL);
        if (cases[i].msg) {
            CHECK_MSG(rc == TN_EUNSUPPORTED, "%s: rc %d", cases[i].name, rc);
            CHECK_MSG(strstr(tn_error_message(), cases[i].msg) != NULL, "%s", tn_error_message());
            CHECK(w == NULL);
            CHECK(tn_layout_check_writable(t) == (cases[i].implemented ? 0 : TN_EUNSUPPORTED));
        } else {
            CHECK_OK(rc);
            tn_layout_writer_abort(w);
            CHECK_OK(tn_layout_check_writable(t));
        }
        /* scans work whatever the layout: every layout keeps a valid Delta table */
        tn_table_scan *s = NULL;
        bool sampled = true;
        tn_layout_scan_options so = TN_LAYOUT_SCAN_OPTIONS_INIT;
        so.scan.all_columns = true;
        so.sample_percent = 10;
        CHECK_OK(tn_layout_scan_open(&s, &sampled, t, &so));
        CHECK(!sampled);
        tn_table_scan_close(s);
        tn_table_close(t);
    }
    rm_rf(wh);
    free(wh);
}

TEST(plain_write_options_honoured_or_refused) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_kvp(path, NULL, 0));
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    tn_delta_kv bad[] = {{"rollupSize", "3000"}};
    wo.options = bad;
    wo.noptions = 1;
    tn_table_commit_result res;
    int rc = plain_append(path, &wo, 0, 10, &res);
    CHECK(rc == TN_EUNSUPPORTED);
    CHECK_MSG(strstr(tn_error_message(), "write option 'rollupSize' is not supported by the plain layout") != NULL, "%s",
              tn_error_message());
    tn_delta_kv badsize[] = {{"target_file_size", "lots"}};
    wo.options = badsize;
    CHECK(plain_append(path, &wo, 0, 10, &res) == TN_EINVAL);
    tn_delta_kv badcodec[] = {{"COMPRESSION", "rot13"}};
    wo.options = badcodec;
    CHECK(plain_append(path, &wo, 0, 10, &res) != 0);
    CHECK_EQ_INT(count_parquet(path), 0);
    /* honoured: a tiny target rolls files, the codec shows in the names */
    tn_delta_kv good[] = {{"Target_File_Size", "1k"}, {"compression", "snappy"}};
    wo.options = good;
    wo.noptions = 2;
    CHECK_OK(plain_append(path, &wo, 0, 3000, &res));
    CHECK_MSG(res.files_added > 6, "%llu files", (unsigned long long)res.files_added);
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    for (uint32_t i = 0; i < snap->nfiles; i++) CHECK(strstr(snap->files[i].path, ".snappy.parquet") != NULL);
    collect c;
    CHECK_OK(scan_k(t, NULL, &c, NULL));
    CHECK_EQ_INT(c.n, 3000);
    CHECK_EQ_INT(c.sum, 2999 * 3000 / 2);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

/* ---------------------------------------------------------------------------------------------
 * Many partitions (issue 16, item 0): a partition keeps one file writer for the whole write;
 * partitions past the writers memory allows are buffered, spilled and written at commit.
 */
#define NPARTS 2000

/* Rows k = from..from+n-1 of t(k, v, p): v = "v<k>" (NULL when k % 7 == 0), p = "p<k*7919 % NPARTS>"
 * (every chunk touches most partitions, unsorted). */
static int many_chunk(tn_chunk *c, int64_t from, uint32_t n, int64_t nparts) {
    tn_type types[] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_VARCHAR)};
    int rc = tn_chunk_init(c, 3, types, n);
    char buf[32];
    for (uint32_t i = 0; i < n && !rc; i++) {
        int64_t k = from + i;
        ((int64_t *)c->cols[0].data)[i] = k;
        if (k % 7 == 0) {
            rc = tn_vector_set_null(&c->cols[1], i);
        } else {
            snprintf(buf, sizeof buf, "v%lld", (long long)k);
            rc = tn_vector_set_str(&c->cols[1], i, buf, strlen(buf));
        }
        snprintf(buf, sizeof buf, "p%lld", (long long)(k * 7919 % nparts));
        if (!rc) rc = tn_vector_set_str(&c->cols[2], i, buf, strlen(buf));
    }
    for (uint32_t k = 0; k < 3; k++) c->cols[k].count = n;
    c->count = n;
    return rc;
}

/* The POSIX file system without fsync (thousands of files: the test is about their number). */
static int no_sync(tn_fs *fs, tn_file *f) { (void)fs; (void)f; return 0; }
static int no_sync_dir(tn_fs *fs, const char *p) { (void)fs; (void)p; return 0; }
static tn_fs *nosync_fs(void) {
    static tn_fs fs;
    fs = *tn_fs_default();
    fs.sync = no_sync;
    fs.sync_dir = no_sync_dir;
    return &fs;
}

/* Opens a plain writer on path and writes rows [0, n) in chunks of 2048. */
static int many_write(const char *path, tn_table **t, tn_layout_writer **w, const tn_layout_write_options *wo,
                      int64_t n, int64_t nparts) {
    int rc = tn_table_open(t, nosync_fs(), path, NULL);
    if (!rc) rc = tn_layout_writer_open(w, *t, wo);
    for (int64_t done = 0; !rc && done < n; done += 2048) {
        tn_chunk c;
        rc = many_chunk(&c, done, n - done < 2048 ? (uint32_t)(n - done) : 2048, nparts);
        if (!rc) rc = tn_layout_writer_write(*w, &c);
        tn_chunk_free(&c);
    }
    return rc;
}

typedef struct kv_check {
    int64_t n, sum, nulls, bad;
} kv_check;

static int kv_check_chunk(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    kv_check *c = ctx;
    (void)file;
    (void)first_row;
    char buf[32];
    for (uint32_t i = 0; i < chunk->count; i++) {
        int64_t k = ((const int64_t *)chunk->cols[0].data)[i];
        c->n++;
        c->sum += k;
        if (!tn_vector_is_valid(&chunk->cols[1], i)) {
            c->nulls++;
            if (k % 7 != 0) c->bad++;
            continue;
        }
        const tn_str *sv = (const tn_str *)chunk->cols[1].data + i;
        snprintf(buf, sizeof buf, "v%lld", (long long)k);
        if (k % 7 == 0 || sv->len != strlen(buf) || memcmp(sv->ptr, buf, sv->len) != 0) c->bad++;
    }
    return 0;
}

static bool spill_dir_exists(const char *path) {
    char d[1200];
    snprintf(d, sizeof d, "%s/_tarn_tmp", path);
    struct stat st;
    return lstat(d, &st) == 0;
}

TEST(plain_many_partitions_one_file_each_within_memory_limit) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_kvp(path, NULL, 0));
    const int64_t nrows = 300000;
    /* 4 MiB: one open file (1 MiB of row groups), 2 MiB of buffers for the other partitions */
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.memory_limit = (uint64_t)4 << 20;
    tn_table *t = NULL;
    tn_layout_writer *w = NULL;
    CHECK_OK(many_write(path, &t, &w, &wo, nrows, NPARTS));
    uint64_t spilled = tn_layout_writer_spilled_bytes(w);
    CHECK_MSG(spilled > ((uint64_t)4 << 20), "spilled %llu bytes", (unsigned long long)spilled);
    tn_table_commit_result res;
    CHECK_OK(tn_layout_writer_commit(w, &res));
    tn_table_close(t);
    CHECK_EQ_INT(res.version, 1);
    CHECK_EQ_INT(res.files_added, NPARTS);           /* was ~the number of chunk x partition pairs */
    CHECK(!spill_dir_exists(path));
    CHECK_EQ_INT(count_parquet(path), NPARTS);       /* no stray file */
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    CHECK_EQ_INT(snap->nfiles, NPARTS);
    /* one file per partition, each holding exactly that partition's rows */
    char seen[NPARTS];
    memset(seen, 0, sizeof seen);
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        bool is_null;
        const char *pv = tn_delta_partition_value(snap, &snap->files[i], "p", &is_null);
        int id = pv && pv[0] == 'p' ? atoi(pv + 1) : -1;
        CHECK(id >= 0 && id < NPARTS && !seen[id]);
        if (id >= 0 && id < NPARTS) seen[id] = 1;
    }
    tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
    uint32_t cols[] = {0, 1};
    so.columns = cols;
    so.ncolumns = 2;
    so.all_columns = false;
    tn_table_scan *sc = NULL;
    kv_check kc;
    memset(&kc, 0, sizeof kc);
    CHECK_OK(tn_table_scan_open(&sc, t, &so));
    CHECK_OK(tn_table_scan_run(sc, kv_check_chunk, &kc));
    tn_table_scan_close(sc);
    CHECK_EQ_INT(kc.n, nrows);
    CHECK_EQ_INT(kc.sum, (nrows - 1) * nrows / 2);
    CHECK_EQ_INT(kc.nulls, (nrows + 6) / 7);
    CHECK_EQ_INT(kc.bad, 0);
    tn_table_close(t);
    /* with the default memory nothing spills, and the files are the same */
    char path2[1100];
    snprintf(path2, sizeof path2, "%s/u", wh);
    CHECK_OK(create_kvp(path2, NULL, 0));
    tn_layout_write_options wo2 = TN_LAYOUT_WRITE_OPTIONS_INIT;
    CHECK_OK(many_write(path2, &t, &w, &wo2, nrows, NPARTS));
    CHECK_EQ_INT(tn_layout_writer_spilled_bytes(w), 0);
    CHECK_OK(tn_layout_writer_commit(w, &res));
    tn_table_close(t);
    CHECK_EQ_INT(res.files_added, NPARTS);
    /* a small target size still rolls, buffered partitions too: about ceil(size / target) files
     * per partition (50 partitions of 6,000 rows, one open file) */
    char path3[1100];
    snprintf(path3, sizeof path3, "%s/v", wh);
    CHECK_OK(create_kvp(path3, NULL, 0));
    tn_delta_kv small[] = {{"target_file_size", "4k"}};
    wo.options = small;
    wo.noptions = 1;
    CHECK_OK(many_write(path3, &t, &w, &wo, nrows, 50));
    CHECK_OK(tn_layout_writer_commit(w, &res));
    tn_table_close(t);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path3, NULL));
    snap = tn_table_snapshot(t);
    uint32_t nf[NPARTS];
    int64_t bytes[NPARTS];
    memset(nf, 0, sizeof nf);
    memset(bytes, 0, sizeof bytes);
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        bool is_null;
        int id = atoi(tn_delta_partition_value(snap, &snap->files[i], "p", &is_null) + 1);
        nf[id]++;
        bytes[id] += snap->files[i].size;
    }
    uint32_t worst = 0, multi = 0;
    for (int id = 0; id < NPARTS; id++) {
        uint32_t want = (uint32_t)((bytes[id] + 4095) / 4096);
        if (nf[id] > want + 1 && nf[id] - want > worst) worst = nf[id] - want;
        multi += nf[id] > 1;
    }
    CHECK_MSG(worst == 0, "a partition has %u files more than ceil(size / target) + 1", worst);
    CHECK_MSG(multi == 50, "only %u partitions rolled to a second file (%u files)", multi, snap->nfiles);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

TEST(plain_spilled_write_that_fails_leaves_the_table_as_it_was) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_kvp(path, NULL, 0));
    for (int mode = 0; mode < 2; mode++) {
        int flag = 0;
        tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
        wo.memory_limit = (uint64_t)4 << 20;
        wo.interrupt = &flag;
        tn_table *t = NULL;
        tn_layout_writer *w = NULL;
        CHECK_OK(many_write(path, &t, &w, &wo, 200000, NPARTS));
        CHECK(tn_layout_writer_spilled_bytes(w) > 0);
        if (mode == 0) {
            flag = 1;                                    /* interrupted while writing the buffered partitions */
            CHECK(tn_layout_writer_commit(w, NULL) == TN_EINTERRUPT);
        } else {
            tn_layout_writer_abort(w);
        }
        tn_table_close(t);
        CHECK_EQ_INT(count_parquet(path), 0);
        CHECK(!spill_dir_exists(path));
        CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
        CHECK_EQ_INT(tn_table_snapshot(t)->version, 0);
        tn_table_close(t);
    }
    rm_rf(wh);
    free(wh);
}

static void touch(const char *dir, const char *name) {
    char p[1300];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) fclose(f);
}

static bool exists_in(const char *dir, const char *name) {
    char p[1300];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    return lstat(p, &st) == 0;
}

TEST(spill_leftovers_of_dead_writers_are_removed_at_the_next_write) {
    char *wh = make_tmpdir();
    char path[1024], tmp[1100], other[1100], dead[64], live[64];
    snprintf(path, sizeof path, "%s/t", wh);
    snprintf(tmp, sizeof tmp, "%s/_tarn_tmp", path);
    snprintf(other, sizeof other, "%s/elsewhere", wh);
    CHECK_OK(create_kvp(path, NULL, 0));
    pid_t child = fork();
    if (child == 0) _exit(0);
    CHECK(child > 0);
    waitpid(child, NULL, 0);                             /* a pid that no longer runs */
    snprintf(dead, sizeof dead, "spill-%ld-1a2b.tmp", (long)child);
    snprintf(live, sizeof live, "spill-%ld-3c4d.tmp", (long)getpid());
    CHECK(mkdir(tmp, 0700) == 0);
    touch(tmp, dead);
    touch(tmp, live);
    touch(tmp, "notes.txt");
    tn_table *t = NULL;
    tn_layout_writer *w = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_OK(tn_layout_writer_open(&w, t, NULL));
    tn_layout_writer_abort(w);
    CHECK(!exists_in(tmp, dead));                        /* its process is gone */
    CHECK(exists_in(tmp, live));                         /* a running writer's */
    CHECK(exists_in(tmp, "notes.txt"));                  /* not ours: kept */
    char p[1300];
    snprintf(p, sizeof p, "%s/%s", tmp, live);
    unlink(p);
    snprintf(p, sizeof p, "%s/notes.txt", tmp);
    unlink(p);
    CHECK_OK(tn_layout_writer_open(&w, t, NULL));
    tn_layout_writer_abort(w);
    CHECK(!spill_dir_exists(path));                      /* empty: removed */
    /* a symlinked _tarn_tmp is not followed */
    CHECK(mkdir(other, 0700) == 0);
    touch(other, dead);
    CHECK(symlink(other, tmp) == 0);
    CHECK_OK(tn_layout_writer_open(&w, t, NULL));
    tn_layout_writer_abort(w);
    CHECK(exists_in(other, dead));
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

TEST_MAIN()
