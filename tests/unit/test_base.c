/*
 * tests/unit/test_base.c: unit tests of base/: errors (set, prefix, save/restore across
 * threads), allocation, arenas, buffers, string helpers, hashes (published test vectors),
 * the POSIX file system (in a mkdtemp directory), clocks and the default thread count.
 */
#include "base/base.h"
#include "testlib.h"

#include <pthread.h>

#include <unistd.h>

/* ----- errors ----- */

TEST(error_set_and_prefix) {
    tn_error_clear();
    CHECK_EQ_INT(tn_error_code_last(), TN_OK);
    CHECK_EQ_STR(tn_error_message(), "");
    int rc = tn_error_set(TN_ECORRUPT, "page %d: bad RLE run", 3);
    CHECK_EQ_INT(rc, TN_ECORRUPT);
    CHECK_EQ_INT(tn_error_code_last(), TN_ECORRUPT);
    CHECK_EQ_STR(tn_error_message(), "page 3: bad RLE run");
    rc = tn_error_prefix(rc, "column '%s'", "x");
    CHECK_EQ_INT(rc, TN_ECORRUPT);
    rc = tn_error_prefix(rc, "f.parquet: row group %d", 2);
    CHECK_EQ_STR(tn_error_message(), "f.parquet: row group 2: column 'x': page 3: bad RLE run");
    CHECK_EQ_INT(tn_error_code_last(), TN_ECORRUPT);
    tn_error_clear();
    CHECK_EQ_INT(tn_error_code_last(), 0);
    CHECK_EQ_STR(tn_error_message(), "");
}

/* a prefix the callee already gave is not repeated (ENOSPC printed the path twice) */
TEST(error_prefix_not_doubled) {
    tn_error_set(TN_EIO, "/w/t/part-0.parquet: write: No space left on device");
    int rc = tn_error_prefix(TN_EIO, "%s", "/w/t/part-0.parquet");
    CHECK_EQ_INT(rc, TN_EIO);
    CHECK_EQ_STR(tn_error_message(), "/w/t/part-0.parquet: write: No space left on device");
    tn_error_set(TN_EIO, "IO Error: /w/a: write: No space left on device");
    tn_error_prefix(TN_EIO, "/w/a");
    CHECK_EQ_STR(tn_error_message(), "IO Error: /w/a: write: No space left on device");
    tn_error_set(TN_EIO, "/w/ab: write: x");     /* a longer name is not the same prefix */
    tn_error_prefix(TN_EIO, "/w/a");
    CHECK_EQ_STR(tn_error_message(), "/w/a: /w/ab: write: x");
    tn_error_clear();
}

TEST(error_long_messages_truncate) {
    char big[3000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    tn_error_set(TN_EIO, "%s", big);
    CHECK_EQ_INT(strlen(tn_error_message()), 1023);
    tn_error_prefix(TN_EIO, "ctx");
    CHECK_EQ_INT(strlen(tn_error_message()), 1023);
    CHECK(strncmp(tn_error_message(), "ctx: aaa", 8) == 0);
    tn_error_set(TN_EIO, "inner");
    tn_error_prefix(TN_EIO, "%s", big);
    CHECK_EQ_INT(strlen(tn_error_message()), 1023);
    tn_error_clear();
}

TEST(error_code_names) {
    CHECK_EQ_STR(tn_error_code_name(TN_OK), "ok");
    CHECK_EQ_STR(tn_error_code_name(TN_ENOMEM), "out of memory");
    CHECK_EQ_STR(tn_error_code_name(TN_ECONFLICT), "commit conflict");
    CHECK_EQ_STR(tn_error_code_name(TN_ECHECKSUM), "checksum mismatch");
    CHECK_EQ_STR(tn_error_code_name(-999), "unknown error");
}

static void *worker_fail(void *arg) {
    tn_error_state *st = arg;
    /* This thread's error must not be visible to the main thread until restored. */
    tn_error_set(TN_ECORRUPT, "worker: bad page");
    tn_error_prefix(TN_ECORRUPT, "file %d", 7);
    tn_error_save(st);
    return NULL;
}

TEST(error_thread_local_save_restore) {
    tn_error_set(TN_EINVAL, "main thread error");
    tn_error_state st;
    memset(&st, 0, sizeof st);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, worker_fail, &st) == 0);
    pthread_join(th, NULL);
    CHECK_EQ_INT(tn_error_code_last(), TN_EINVAL);
    CHECK_EQ_STR(tn_error_message(), "main thread error");
    CHECK_EQ_INT(st.code, TN_ECORRUPT);
    CHECK_EQ_STR(st.message, "file 7: worker: bad page");
    int rc = tn_error_restore(&st);
    CHECK_EQ_INT(rc, TN_ECORRUPT);
    CHECK_EQ_INT(tn_error_code_last(), TN_ECORRUPT);
    CHECK_EQ_STR(tn_error_message(), "file 7: worker: bad page");
    tn_error_clear();
}

/* ----- allocation ----- */

TEST(alloc_basic_and_enomem) {
    char *s = tn_strdup("hello");
    CHECK_EQ_STR(s, "hello");
    tn_free(s);
    s = tn_strndup("hello world", 5);
    CHECK_EQ_STR(s, "hello");
    tn_free(s);
    s = tn_strndup("ab", 10);
    CHECK_EQ_STR(s, "ab");
    tn_free(s);
    int *z = tn_calloc(100, sizeof(int));
    CHECK(z != NULL);
    for (int i = 0; i < 100; i++) CHECK_EQ_INT(z[i], 0);
    z = tn_realloc(z, 1000 * sizeof(int));
    CHECK(z != NULL);
    tn_free(z);
    tn_error_clear();
    void *p = tn_calloc(SIZE_MAX / 2, 4);   /* overflows: must fail cleanly */
    CHECK(p == NULL);
    CHECK_EQ_INT(tn_error_code_last(), TN_ENOMEM);
    tn_error_clear();
#if !defined(__SANITIZE_ADDRESS__)
    p = tn_malloc(SIZE_MAX - 4096);
    CHECK(p == NULL);
    CHECK_EQ_INT(tn_error_code_last(), TN_ENOMEM);
    CHECK(strstr(tn_error_message(), "out of memory allocating") != NULL);
    tn_error_clear();
#endif
}

/* ----- arena ----- */

TEST(arena_many_allocations_aligned) {
    tn_arena *a = tn_arena_create(1024);
    CHECK(a != NULL);
    size_t total = 0;
    char *ptrs[2000];
    for (int i = 0; i < 2000; i++) {
        size_t n = (size_t)(i * 37 % 500) + 1;
        if (i % 100 == 0) n = 5000;     /* larger than a block: own block */
        ptrs[i] = tn_arena_alloc(a, n);
        CHECK(ptrs[i] != NULL);
        CHECK_EQ_INT((uintptr_t)ptrs[i] % 16, 0);
        memset(ptrs[i], i & 0xff, n);
        total += n;
    }
    /* Earlier allocations were not overwritten by later ones. */
    for (int i = 0; i < 2000; i++) CHECK_EQ_INT((unsigned char)ptrs[i][0], i & 0xff);
    CHECK_EQ_INT(tn_arena_bytes(a), total);
    tn_arena_reset(a);
    CHECK_EQ_INT(tn_arena_bytes(a), 0);
    char *p = tn_arena_calloc(a, 100);
    CHECK(p != NULL);
    for (int i = 0; i < 100; i++) CHECK_EQ_INT(p[i], 0);
    CHECK(tn_arena_alloc(a, 0) != NULL);
    tn_arena_destroy(a);
    tn_arena_destroy(NULL);
}

TEST(arena_strings) {
    tn_arena *a = tn_arena_create(0);
    CHECK(a != NULL);
    CHECK_EQ_STR(tn_arena_strdup(a, "abc"), "abc");
    CHECK_EQ_STR(tn_arena_strndup(a, "abcdef", 3), "abc");
    CHECK_EQ_STR(tn_arena_printf(a, "%s-%d-%05.1f", "x", 42, 3.14159), "x-42-003.1");
    char big[5000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char *s = tn_arena_printf(a, "<%s>", big);
    CHECK(s != NULL);
    CHECK_EQ_INT(strlen(s), 5001);
    CHECK(s[0] == '<' && s[5000] == '>');
    tn_arena_destroy(a);
}

TEST(arena_huge_alloc_fails_cleanly) {
    tn_arena *a = tn_arena_create(0);
    CHECK(a != NULL);
    tn_error_clear();
    CHECK(tn_arena_alloc(a, SIZE_MAX - 8) == NULL);
    CHECK_EQ_INT(tn_error_code_last(), TN_ENOMEM);
    tn_error_clear();
    tn_arena_destroy(a);
}

/* ----- buffers and strings ----- */

TEST(buf_append_printf) {
    tn_buf b = TN_BUF_INIT;
    CHECK_OK(tn_buf_append(&b, "abc", 3));
    CHECK_OK(tn_buf_append_byte(&b, 'd'));
    CHECK_OK(tn_buf_append(&b, NULL, 0));
    CHECK_EQ_INT(b.len, 4);
    CHECK(memcmp(b.data, "abcd", 4) == 0);
    for (int i = 0; i < 1000; i++) CHECK_OK(tn_buf_printf(&b, "%d,", i));
    CHECK(b.cap >= b.len);
    CHECK(memcmp(b.data, "abcd0,1,2,", 10) == 0);
    CHECK(memcmp(b.data + b.len - 4, "999,", 4) == 0);
    size_t cap = b.cap;
    tn_buf_clear(&b);
    CHECK_EQ_INT(b.len, 0);
    CHECK_EQ_INT(b.cap, cap);
    CHECK_OK(tn_buf_reserve(&b, 100000));
    CHECK(b.cap >= 100000);
    tn_buf_free(&b);
    CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
}

TEST(str_helpers) {
    CHECK(tn_str_iequal("SELECT", "select"));
    CHECK(!tn_str_iequal("SELECT", "selec"));
    CHECK(!tn_str_iequal("sel", "select"));
    CHECK(tn_str_iequal_n("FROMxyz", 4, "from"));
    CHECK(!tn_str_iequal_n("FROMxyz", 4, "fromx"));
    CHECK(!tn_str_iequal_n("FRO", 3, "from"));
    CHECK(tn_str_ends_with("a.parquet", ".parquet"));
    CHECK(!tn_str_ends_with("parquet", ".parquet"));
    CHECK(tn_str_ends_with("x", ""));
    uint8_t b[8];
    tn_store_u64le(b, UINT64_C(0x0102030405060708));
    CHECK_EQ_INT(b[0], 8);
    CHECK_EQ_INT(b[7], 1);
    CHECK(tn_load_u64le(b) == UINT64_C(0x0102030405060708));
    CHECK(tn_load_u32le(b) == 0x05060708u);
}

/* ----- hashes: published test vectors ----- */

TEST(hash_vectors) {
    const char *fox = "The quick brown fox jumps over the lazy dog";
    /* MurmurHash3_x86_32 reference vectors (SMHasher / Wikipedia). */
    CHECK(tn_murmur3_32("", 0, 0) == 0);
    CHECK(tn_murmur3_32("", 0, 1) == 0x514E28B7u);
    CHECK(tn_murmur3_32("", 0, 0xffffffffu) == 0x81F16F39u);
    CHECK(tn_murmur3_32("hello", 5, 0) == 0x248bfa47u);
    CHECK(tn_murmur3_32(fox, strlen(fox), 0) == 0x2e4ff723u);
    CHECK(tn_murmur3_32("test", 4, 0) == 0xba6bd213u);
    CHECK(tn_murmur3_32("Hello, world!", 13, 0x9747b28cu) == 0x24884CBAu);
    CHECK(tn_murmur3_32("\x21\x43\x65\x87", 4, 0) == 0xF55B516Bu);
    CHECK(tn_murmur3_32("\x21\x43\x65", 3, 0) == 0x7E4A8634u);
    CHECK(tn_murmur3_32("\x21\x43", 2, 0) == 0xA0F7B07Au);
    CHECK(tn_murmur3_32("\x21", 1, 0) == 0x72661CF4u);
    /* XXH64 / XXH3 of the empty input (xxHash reference). */
    CHECK(tn_xxh64("", 0, 0) == UINT64_C(0xEF46DB3751D8E999));
    CHECK(tn_hash_bytes("", 0, 0) == UINT64_C(0x2D06800538D394C2));
    CHECK(tn_hash_bytes("abc", 3, 0) != tn_hash_bytes("abc", 3, 1));
    /* CRC-32 check value; chained crc equals one-shot. */
    CHECK(tn_crc32(0, "123456789", 9) == 0xCBF43926u);
    CHECK(tn_crc32(tn_crc32(0, "1234", 4), "56789", 5) == 0xCBF43926u);
    /* The u64 mixer: distinct outputs for small inputs, and avalanche on one bit. */
    CHECK(tn_hash_u64(0) != tn_hash_u64(1));
    int bits = __builtin_popcountll(tn_hash_u64(12345) ^ tn_hash_u64(12345 ^ 1));
    CHECK(bits > 16 && bits < 48);
}

/* ----- file system ----- */

static char g_tmp[256];

static int make_tmpdir(void) {
    snprintf(g_tmp, sizeof g_tmp, "/tmp/tarn-test-base-XXXXXX");
    return mkdtemp(g_tmp) ? 0 : -1;
}

static void rm_rf(const char *path) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "rm -rf %s failed\n", path);
}

struct list_ctx { char names[16][64]; bool dirs[16]; int n; };
static int collect(void *ctx, const char *name, bool is_dir) {
    struct list_ctx *c = ctx;
    if (c->n < 16) {
        snprintf(c->names[c->n], 64, "%s", name);
        c->dirs[c->n++] = is_dir;
    }
    return 0;
}
static int stop_at_two(void *ctx, const char *name, bool is_dir) {
    int *n = ctx;
    return ++*n == 2 ? TN_ELIMIT : 0;
}

TEST(fs_roundtrip) {
    CHECK(make_tmpdir() == 0);
    tn_fs *fs = tn_fs_default();
    char path[512], path2[512], dir[512];
    snprintf(path, sizeof path, "%s/a.bin", g_tmp);
    snprintf(path2, sizeof path2, "%s/b.bin", g_tmp);
    /* write_all then read_all */
    char data[10000];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (char)(i * 7);
    CHECK_OK(tn_fs_write_all(fs, path, data, sizeof data, true));
    tn_buf b = TN_BUF_INIT;
    CHECK_OK(tn_fs_read_all(fs, path, &b));
    CHECK_EQ_INT(b.len, sizeof data);
    CHECK(memcmp(b.data, data, sizeof data) == 0);
    tn_buf_free(&b);
    /* pread at an offset; past the end is an error naming the path */
    tn_file *f = NULL;
    CHECK_OK(fs->open_read(fs, path, &f));
    uint64_t size = 0;
    CHECK_OK(fs->size(fs, f, &size));
    CHECK_EQ_INT(size, sizeof data);
    char got[100];
    CHECK_OK(fs->pread(fs, f, got, 100, 5000));
    CHECK(memcmp(got, data + 5000, 100) == 0);
    int rc = fs->pread(fs, f, got, 100, 9950);
    CHECK(rc < 0);
    CHECK(strstr(tn_error_message(), "a.bin") != NULL);
    CHECK_OK(fs->close(fs, f));
    /* exclusive create fails on an existing file */
    f = NULL;
    rc = fs->open_write(fs, path, true, &f);
    CHECK_EQ_INT(rc, TN_EEXISTS);
    CHECK(f == NULL);
    CHECK(strstr(tn_error_message(), "a.bin: open: File exists") != NULL);
    /* link: put-if-absent */
    CHECK_OK(fs->link(fs, path, path2));
    rc = fs->link(fs, path, path2);
    CHECK_EQ_INT(rc, TN_EEXISTS);
    CHECK(strstr(tn_error_message(), "b.bin") != NULL);
    bool ex = false;
    CHECK_OK(fs->exists(fs, path2, &ex));
    CHECK(ex);
    CHECK_OK(fs->unlink(fs, path2));
    CHECK_OK(fs->exists(fs, path2, &ex));
    CHECK(!ex);
    CHECK_OK(fs->rename(fs, path, path2));
    CHECK_OK(fs->exists(fs, path, &ex));
    CHECK(!ex);
    /* mkdir_p (twice: idempotent) and list_dir sorted with is_dir */
    snprintf(dir, sizeof dir, "%s/x/y/z/", g_tmp);
    CHECK_OK(fs->mkdir_p(fs, dir));
    CHECK_OK(fs->mkdir_p(fs, dir));
    snprintf(dir, sizeof dir, "%s/c.txt", g_tmp);
    CHECK_OK(tn_fs_write_all(fs, dir, "", 0, false));
    struct list_ctx lc;
    memset(&lc, 0, sizeof lc);
    CHECK_OK(fs->list_dir(fs, g_tmp, collect, &lc));
    CHECK_EQ_INT(lc.n, 3);
    CHECK_EQ_STR(lc.names[0], "b.bin");
    CHECK_EQ_STR(lc.names[1], "c.txt");
    CHECK_EQ_STR(lc.names[2], "x");
    CHECK(!lc.dirs[0] && !lc.dirs[1] && lc.dirs[2]);
    int calls = 0;
    CHECK_EQ_INT(fs->list_dir(fs, g_tmp, stop_at_two, &calls), TN_ELIMIT);
    CHECK_EQ_INT(calls, 2);
    /* mkdir_p through a file fails */
    snprintf(dir, sizeof dir, "%s/c.txt/sub", g_tmp);
    CHECK(fs->mkdir_p(fs, dir) < 0);
    rm_rf(g_tmp);
}

TEST(fs_stat_rmdir_sync_dir) {
    CHECK(make_tmpdir() == 0);
    tn_fs *fs = tn_fs_default();
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s/sub", g_tmp);
    snprintf(file, sizeof file, "%s/f.txt", dir);
    CHECK_OK(fs->mkdir_p(fs, dir));
    int64_t before = tn_time_now_us();
    CHECK_OK(tn_fs_write_all(fs, file, "hello", 5, false));
    tn_fs_stat st;
    CHECK_OK(tn_fs_stat_path(fs, file, &st));
    CHECK_EQ_INT(st.size, 5);
    CHECK(!st.is_dir);
    /* mtime is within a few seconds of now (file systems round to their granularity) */
    CHECK(st.mtime_us > before - 5000000 && st.mtime_us < tn_time_now_us() + 5000000);
    CHECK_OK(tn_fs_stat_path(fs, dir, &st));
    CHECK(st.is_dir);
    CHECK_OK(tn_fs_sync_dir(fs, dir));
    /* rmdir refuses a non-empty directory, then removes the empty one */
    CHECK(tn_fs_rmdir(fs, dir) < 0);
    CHECK(strstr(tn_error_message(), "sub") != NULL);
    CHECK_OK(fs->unlink(fs, file));
    CHECK_OK(tn_fs_rmdir(fs, dir));
    CHECK_EQ_INT(tn_fs_stat_path(fs, dir, &st), TN_ENOTFOUND);
    CHECK(strstr(tn_error_message(), "sub: stat") != NULL);
    /* an fs without the optional operations says so */
    tn_fs bare = *fs;
    bare.stat = NULL;
    CHECK_EQ_INT(tn_fs_stat_path(&bare, g_tmp, &st), TN_EUNSUPPORTED);
}

TEST(fs_errors_name_path) {
    tn_fs *fs = tn_fs_default();
    tn_buf b = TN_BUF_INIT;
    int rc = tn_fs_read_all(fs, "/nonexistent-dir/x.parquet", &b);
    CHECK_EQ_INT(rc, TN_ENOTFOUND);
    CHECK_EQ_STR(tn_error_message(), "/nonexistent-dir/x.parquet: open: No such file or directory");
    CHECK(b.len == 0);
    rc = tn_fs_write_all(fs, "/nonexistent-dir/y.json", "x", 1, false);
    CHECK(rc < 0);
    CHECK(strstr(tn_error_message(), "/nonexistent-dir/y.json: open: ") != NULL);
    struct list_ctx lc;
    memset(&lc, 0, sizeof lc);
    rc = fs->list_dir(fs, "/nonexistent-dir", collect, &lc);
    CHECK_EQ_INT(rc, TN_ENOTFOUND);
    CHECK(strstr(tn_error_message(), "/nonexistent-dir") != NULL);
    bool ex = true;
    CHECK_OK(fs->exists(fs, "/nonexistent-dir/z", &ex));
    CHECK(!ex);
    tn_error_clear();
}

/* ----- time ----- */

TEST(time_and_threads) {
    uint64_t t0 = tn_time_ns();
    usleep(2000);
    uint64_t t1 = tn_time_ns();
    CHECK(t1 - t0 >= 2000000);
    int64_t now = tn_time_now_us();
    CHECK(now > INT64_C(1600000000000000)); /* after 2020 */
    setenv("TARN_THREADS", "3", 1);
    CHECK_EQ_INT(tn_default_threads(), 3);
    setenv("TARN_THREADS", "bogus", 1);
    CHECK(tn_default_threads() >= 1);
    unsetenv("TARN_THREADS");
    CHECK(tn_default_threads() >= 1);
}

TEST_MAIN()
