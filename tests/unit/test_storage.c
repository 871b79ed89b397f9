/*
 * tests/unit/test_storage.c: storage safety and durability below SQL (issue 16 items 1 and 7):
 * tn_fs_remove_tree never follows symlinks and keeps nested tables; a write fsyncs the new
 * partition directory and the table directory before the commit that names its files (seen
 * through a recording tn_fs); temp files of dead processes are swept, a live one's kept.
 */
#include "table/table.h"
#include "testlib.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *make_tmpdir(void) {
    char tmpl[] = "/tmp/tarn-storage-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static void rm_rf(const char *path) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "rm failed: %s\n", path);
}

static void put_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static bool exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

TEST(remove_tree_never_follows_symlinks_and_keeps_nested_tables) {
    char *d = make_tmpdir();
    char p[1024], q[1024];
    snprintf(p, sizeof p, "%s/victim", d); mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/victim/precious.txt", d); put_file(p, "x");
    snprintf(p, sizeof p, "%s/tree", d); mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/tree/a", d); mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/tree/a/f.parquet", d); put_file(p, "y");
    snprintf(p, sizeof p, "%s/victim", d); snprintf(q, sizeof q, "%s/tree/a/linkdir", d); CHECK(symlink(p, q) == 0);
    snprintf(p, sizeof p, "%s/victim/precious.txt", d); snprintf(q, sizeof q, "%s/tree/linkfile", d); CHECK(symlink(p, q) == 0);
    snprintf(p, sizeof p, "%s/tree/sub", d); mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/tree/sub/nested", d); mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/tree/sub/nested/_delta_log", d); mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/tree/sub/nested/_delta_log/00000000000000000000.json", d); put_file(p, "{}\n");
    snprintf(p, sizeof p, "%s/tree", d);
    char *nested = NULL;
    CHECK_OK(tn_fs_remove_tree(tn_fs_default(), p, 0, true, &nested));
    snprintf(q, sizeof q, "%s/tree/sub/nested", d);
    CHECK_MSG(nested && strcmp(nested, q) == 0, "nested: %s", nested ? nested : "(none)");
    free(nested);
    snprintf(q, sizeof q, "%s/tree/a/f.parquet", d);
    CHECK_MSG(exists(q), "a dry run deleted %s", q);
    CHECK_OK(tn_fs_remove_tree(tn_fs_default(), p, 0, false, NULL));
    snprintf(q, sizeof q, "%s/victim/precious.txt", d);
    CHECK_MSG(exists(q), "the symlink target %s was deleted", q);
    snprintf(q, sizeof q, "%s/tree/sub/nested/_delta_log/00000000000000000000.json", d);
    CHECK_MSG(exists(q), "the nested table was deleted");
    snprintf(q, sizeof q, "%s/tree/a", d);
    CHECK_MSG(!exists(q), "%s (no table) should be gone", q);
    snprintf(q, sizeof q, "%s/tree/linkfile", d);
    CHECK_MSG(!exists(q), "the symlink itself should be gone");
    /* a symlink at the top is unlinked, its target kept */
    snprintf(p, sizeof p, "%s/victim", d); snprintf(q, sizeof q, "%s/toplink", d); CHECK(symlink(p, q) == 0);
    CHECK_OK(tn_fs_remove_tree(tn_fs_default(), q, 0, false, NULL));
    CHECK(!exists(q));
    snprintf(q, sizeof q, "%s/victim/precious.txt", d);
    CHECK(exists(q));
    rm_rf(d);
    free(d);
}

/* A tn_fs that forwards to the POSIX one and records sync_dir / link / rename, in order. */
typedef struct rec_fs {
    tn_fs fs;
    char log[64][1100];
    int n;
} rec_fs;

static void rec(tn_fs *f, const char *op, const char *path) {
    rec_fs *r = f->state;
    if (r->n < 64) snprintf(r->log[r->n++], sizeof r->log[0], "%s %s", op, path);
}
static int rec_sync_dir(tn_fs *f, const char *p) {
    rec(f, "sync_dir", p);
    return tn_fs_sync_dir(tn_fs_default(), p);
}
static int rec_link(tn_fs *f, const char *a, const char *b) {
    rec(f, "link", b);
    return tn_fs_default()->link(tn_fs_default(), a, b);
}
static int rec_rename(tn_fs *f, const char *a, const char *b) {
    rec(f, "rename", b);
    return tn_fs_default()->rename(tn_fs_default(), a, b);
}

static int find_event(const rec_fs *r, const char *text) {
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->log[i], text) == 0) return i;
    return -1;
}
static int find_commit(const rec_fs *r, const char *suffix) {
    for (int i = 0; i < r->n; i++)
        if (strstr(r->log[i], suffix) && (strncmp(r->log[i], "link ", 5) == 0 || strncmp(r->log[i], "rename ", 7) == 0))
            return i;
    return -1;
}

TEST(new_partition_and_table_directories_fsynced_before_the_commit) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    tn_table_column_def cols[] = {{"k", tn_type_make(TN_TYPE_BIGINT), false, NULL},
                                  {"p", tn_type_make(TN_TYPE_VARCHAR), true, NULL}};
    const char *parts[] = {"p"};
    tn_table_create_options co = TN_TABLE_CREATE_OPTIONS_INIT;
    co.columns = cols;
    co.ncolumns = 2;
    co.partition_columns = parts;
    co.npartition_columns = 1;
    CHECK_OK(tn_table_create(tn_fs_default(), path, &co));
    static rec_fs r;
    memset(&r, 0, sizeof r);
    r.fs = *tn_fs_default();
    r.fs.state = &r;
    r.fs.sync_dir = rec_sync_dir;
    r.fs.link = rec_link;
    r.fs.rename = rec_rename;
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, &r.fs, path, NULL));
    tn_table_txn *txn = NULL;
    CHECK_OK(tn_table_txn_open(&txn, t, 0));
    tn_delta_kv pv[] = {{"p", "new"}};
    tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
    fo.partition_values = pv;
    fo.npartition_values = 1;
    tn_table_file_writer *fw = NULL;
    CHECK_OK(tn_table_file_writer_open(&fw, txn, &fo));
    tn_type types[] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_VARCHAR)};
    tn_chunk c;
    CHECK_OK(tn_chunk_init(&c, 2, types, 4));
    for (uint32_t i = 0; i < 4; i++) {
        ((int64_t *)c.cols[0].data)[i] = i;
        CHECK_OK(tn_vector_set_str(&c.cols[1], i, "new", 3));
    }
    c.cols[0].count = c.cols[1].count = c.count = 4;
    CHECK_OK(tn_table_file_writer_write(fw, &c, NULL, 4));
    CHECK_OK(tn_table_file_writer_close(fw));
    tn_chunk_free(&c);
    tn_table_commit_result res;
    CHECK_OK(tn_table_txn_commit(txn, &res));
    CHECK_EQ_INT(res.version, 1);
    tn_table_close(t);
    char want[1200];
    snprintf(want, sizeof want, "sync_dir %s/p=new", path);
    int part = find_event(&r, want);
    snprintf(want, sizeof want, "sync_dir %s", path);
    int table = find_event(&r, want);
    int commit = find_commit(&r, "_delta_log/00000000000000000001.json");
    char all[4096] = "";
    for (int i = 0; i < r.n; i++) {
        strncat(all, r.log[i], sizeof all - strlen(all) - 3);
        strcat(all, "; ");
    }
    CHECK_MSG(commit >= 0, "no commit seen: %s", all);
    CHECK_MSG(part >= 0 && part < commit, "partition directory not fsynced before the commit: %s", all);
    CHECK_MSG(table >= 0 && table < commit, "table directory not fsynced before the commit: %s", all);
    rm_rf(wh);
    free(wh);
}

TEST(temp_files_of_dead_processes_are_swept) {
    char *d = make_tmpdir();
    char target[1024], dead[1100], live[1100], other[1100];
    snprintf(target, sizeof target, "%s/out.parquet", d);
    pid_t child = fork();
    if (child == 0) _exit(0);
    CHECK(child > 0);
    waitpid(child, NULL, 0);                 /* a pid that no longer runs */
    snprintf(dead, sizeof dead, "%s/.out.parquet.tarn-tmp-%ld-1", d, (long)child);
    snprintf(live, sizeof live, "%s/.out.parquet.tarn-tmp-%ld-7", d, (long)getppid());
    snprintf(other, sizeof other, "%s/.other.parquet.tarn-tmp-%ld-1", d, (long)child);
    put_file(dead, "x");
    put_file(live, "x");
    put_file(other, "x");
    uint32_t removed = 0;
    CHECK_OK(tn_fs_temp_cleanup(tn_fs_default(), target, &removed));
    CHECK_EQ_INT(removed, 1);
    CHECK_MSG(!exists(dead), "the dead process's temp file stayed");
    CHECK_MSG(exists(live), "a running process's temp file was removed");
    CHECK_MSG(exists(other), "another target's temp file was removed");
    char *name = tn_fs_temp_name(target);
    char prefix[1100];
    snprintf(prefix, sizeof prefix, "%s/.out.parquet.tarn-tmp-%ld-", d, (long)getpid());
    CHECK_MSG(name && strncmp(name, prefix, strlen(prefix)) == 0, "temp name %s", name ? name : "(null)");
    tn_free(name);
    rm_rf(d);
    free(d);
}

TEST_MAIN()
