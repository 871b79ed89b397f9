/*
 * tests/unit/test_delta_dv.c: Delta deletion vectors: decoding the golden file and inline vectors
 * (delta-kernel-rs's), checksum and bound checks, every RoaringBitmap container kind (the bugs
 * fuzz_delta_dv found), and the writer: byte-identical to the file delta-rs/Spark wrote, and
 * readable back for every container kind and for rows past 2^32.
 */
#include "delta/delta.h"
#include "testlib.h"

#include <unistd.h>

/* The golden table with a two-row deletion vector on disk. */
static const char *dv_small_table(void) {
    static char buf[2048];
    snprintf(buf, sizeof buf, "%s/delta/table-with-dv-small", tn_test_data_dir());
    return buf;
}

static char *make_tmpdir(void) {
    static char buf[8][256];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, 256, "/tmp/tarn-dv-test-XXXXXX");
    return mkdtemp(b);
}

/* ---------------------------------------------------------------------------------------------
 * Deletion vectors.
 */
TEST(dv_small_file_decodes_to_0_and_9) {
    tn_delta_snapshot *s;
    CHECK_OK(tn_delta_snapshot_open(&s, tn_fs_default(), dv_small_table(), NULL));
    CHECK(s->files[0].has_dv && s->files[0].dv.storage_type == 'u');
    tn_arena *a = tn_arena_create(0);
    const char *p;
    CHECK_OK(tn_delta_dv_file_path(&p, a, s->table_path, &s->files[0].dv));
    CHECK(strstr(p, "/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin") != NULL);
    uint64_t *rows, n;
    CHECK_OK(tn_delta_dv_read(tn_fs_default(), s->table_path, &s->files[0].dv, &rows, &n));
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(rows[0], 0);
    CHECK_EQ_INT(rows[1], 9);
    tn_free(rows);
    tn_arena_destroy(a);
    tn_delta_snapshot_free(s);
}

TEST(dv_inline_kernel_vector) {
    tn_delta_dv dv = {'i', "^Bg9^0rr910000000000iXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", false, 0, 44, 6, NULL};
    uint64_t *rows, n;
    CHECK_OK(tn_delta_dv_read(tn_fs_default(), "/nonexistent", &dv, &rows, &n));
    static const uint64_t want[] = {3, 4, 7, 11, 18, 29};
    CHECK_EQ_INT(n, 6);
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(rows[i], want[i]);
    tn_free(rows);
    /* wrong cardinality is an error */
    dv.cardinality = 5;
    CHECK(tn_delta_dv_read(tn_fs_default(), "/nonexistent", &dv, &rows, &n) == TN_ECORRUPT);
    /* the spec's inline example uses the native magic: refused by name */
    tn_delta_dv bad = {'i', "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", false, 0, 40, 6, NULL};
    CHECK(tn_delta_dv_read(tn_fs_default(), "/nonexistent", &bad, &rows, &n) != 0);
    CHECK(strstr(tn_error_message(), "magic") != NULL);
}

TEST(dv_file_checksum_and_bounds) {
    char *dir = make_tmpdir();
    CHECK(dir);
    char src[4096], dst[4096];
    snprintf(src, sizeof src, "%s/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin", dv_small_table());
    snprintf(dst, sizeof dst, "%s/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin", dir);
    tn_buf b = TN_BUF_INIT;
    CHECK_OK(tn_fs_read_all(tn_fs_default(), src, &b));
    CHECK_EQ_INT(b.len, 45);
    b.data[30] ^= 0x40;                               /* inside the bitmap */
    CHECK_OK(tn_fs_write_all(tn_fs_default(), dst, b.data, b.len, false));
    tn_delta_dv dv = {'u', "vBn[lx{q8@P<9BNH/isA", true, 1, 36, 2, NULL};
    uint64_t *rows, n;
    CHECK(tn_delta_dv_read(tn_fs_default(), dir, &dv, &rows, &n) == TN_ECHECKSUM);
    CHECK(strstr(tn_error_message(), "checksum") != NULL);
    dv.offset = 20;                                   /* past the end */
    CHECK(tn_delta_dv_read(tn_fs_default(), dir, &dv, &rows, &n) == TN_ECORRUPT);
    tn_buf_free(&b);
    unlink(dst);
    rmdir(dir);
}

/* Bugs found by fuzz_delta_dv (tests/fuzz/regressions/fuzz_delta_dv-*): the bitmap is now
 * decoded and validated by dv.c (libroaring 0.2.66 has no validation function). */
static void put_le(tn_buf *b, uint64_t v, int n) {
    for (int i = 0; i < n; i++) tn_buf_append_byte(b, (uint8_t)(v >> (8 * i)));
}

/* Writes bitmap as the DV file of the 'u' descriptor below in dir (version, BE size, CRC);
 * returns the file's path. */
static const char *write_dv_file(const char *dir, const tn_buf *bitmap) {
    static char path[512];
    snprintf(path, sizeof path, "%s/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin", dir);
    tn_buf f = TN_BUF_INIT;
    uint32_t n = (uint32_t)bitmap->len, crc = tn_crc32(0, bitmap->data, bitmap->len);
    uint8_t head[5] = {1, (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    uint8_t tail[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc};
    tn_buf_append(&f, head, 5);
    tn_buf_append(&f, bitmap->data, bitmap->len);
    tn_buf_append(&f, tail, 4);
    int rc = tn_fs_write_all(tn_fs_default(), path, f.data, f.len, false);
    tn_buf_free(&f);
    return rc == 0 ? path : NULL;
}

/* A RoaringBitmapArray of one bucket (key 0) holding one portable bitmap of one array
 * container with the given u16 values (in the given order). */
static void array_bitmap(tn_buf *b, const uint16_t *v, uint32_t n) {
    tn_buf_clear(b);
    put_le(b, 1681511377u, 4);
    put_le(b, 1, 8);                                  /* buckets */
    put_le(b, 0, 4);                                  /* bucket key */
    put_le(b, 12346, 4);                              /* no run containers */
    put_le(b, 1, 4);                                  /* containers */
    put_le(b, 0, 2);                                  /* container key */
    put_le(b, n - 1, 2);                              /* cardinality - 1 */
    put_le(b, 16, 4);                                 /* offset */
    for (uint32_t i = 0; i < n; i++) put_le(b, v[i], 2);
}

/* fuzz_delta_dv-unsorted-array-container: an array container of 0x8500 0xc0e8 0x0000 0x8500.
 * CRoaring accepted it and its rows came out unsorted and duplicated; now refused by name. */
TEST(dv_unsorted_array_container) {
    static const uint8_t regression[40] = {
        0xd1, 0xd3, 0x39, 0x64, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x3a, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00,
        0x10, 0x00, 0x00, 0x00, 0x00, 0x85, 0xe8, 0xc0, 0x00, 0x00, 0x00, 0x85};
    uint64_t *rows = (uint64_t *)1, n = 1;
    CHECK(tn_delta_dv_decode_bitmap(regression, sizeof regression, &rows, &n) == TN_ECORRUPT);
    CHECK_EQ_STR(tn_error_message(), "deletion vector: invalid bitmap: bucket 0, container 0: array values not ascending");
    CHECK(rows == NULL && n == 0);
    /* the same values ascending decode; a repeated value is refused too */
    tn_buf b = TN_BUF_INIT;
    static const uint16_t sorted[4] = {0x0000, 0x8500, 0xc0e8, 0xc0e9}, dup[4] = {0, 0x8500, 0x8500, 0xc0e8};
    array_bitmap(&b, sorted, 4);
    CHECK(b.len == 40 && memcmp(b.data, regression, 32) == 0);
    CHECK_OK(tn_delta_dv_decode_bitmap(b.data, b.len, &rows, &n));
    CHECK_EQ_INT(n, 4);
    for (uint32_t i = 0; i < 4 && n == 4; i++) CHECK_EQ_INT(rows[i], sorted[i]);
    tn_free(rows);
    array_bitmap(&b, dup, 4);
    CHECK(tn_delta_dv_decode_bitmap(b.data, b.len, &rows, &n) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "container 0: array values not ascending") != NULL);
    /* through a DV file: the message names the file */
    char *dir = make_tmpdir();
    CHECK(dir);
    tn_buf_clear(&b);
    tn_buf_append(&b, regression, sizeof regression);
    const char *path = write_dv_file(dir, &b);
    CHECK(path);
    tn_delta_dv dv = {'u', "vBn[lx{q8@P<9BNH/isA", true, 1, 40, 4, NULL};
    CHECK(tn_delta_dv_read(tn_fs_default(), dir, &dv, &rows, &n) == TN_ECORRUPT);
    char want[1024];
    snprintf(want, sizeof want, "%s: deletion vector: invalid bitmap: bucket 0, container 0: array values not ascending", path);
    CHECK_EQ_STR(tn_error_message(), want);
    CHECK(rows == NULL && n == 0);
    unlink(path);
    rmdir(dir);
    tn_buf_free(&b);
}

/* A bitmap of one bucket (key 0) of ncont run containers, each the runs given as (start,
 * length - 1) pairs, with header cardinality card - 1 (card 0: the runs' true cardinality). */
static void run_bitmap(tn_buf *b, uint32_t ncont, const uint16_t *runs, uint32_t nruns, uint32_t card) {
    tn_buf_clear(b);
    put_le(b, 1681511377u, 4);
    put_le(b, 1, 8);
    put_le(b, 0, 4);
    put_le(b, 12347u | (ncont - 1) << 16, 4);         /* cookie with run containers */
    for (uint32_t i = 0; i < (ncont + 7) / 8; i++) tn_buf_append_byte(b, 0xff);
    if (!card)
        for (uint32_t r = 0; r < nruns; r++) card += runs[2 * r + 1] + 1u;
    for (uint32_t k = 0; k < ncont; k++) {
        put_le(b, k, 2);
        put_le(b, card - 1, 2);
    }
    uint32_t data = 4 + (ncont + 7) / 8 + 4 * ncont + (ncont >= 4 ? 4 * ncont : 0);
    if (ncont >= 4)                                   /* offsets */
        for (uint32_t k = 0; k < ncont; k++) put_le(b, data + k * (2 + 4 * nruns), 4);
    for (uint32_t k = 0; k < ncont; k++) {
        put_le(b, nruns, 2);
        for (uint32_t r = 0; r < 2 * nruns; r++) put_le(b, runs[r], 2);
    }
}

/* fuzz_delta_dv-oom-full-run-containers: 5000 run containers each [0, 65535] (70 KB for
 * 327,680,000 rows) made the decoder allocate 4 GB. Rows are now counted before anything is
 * materialised: over 2^27 rows (1 GiB of indexes) is refused, and a DV file must hold the log's
 * cardinality before its rows are allocated. */
TEST(dv_full_run_containers) {
    static const uint16_t full[2] = {0, 0xffff};
    tn_buf b = TN_BUF_INIT;
    uint64_t *rows = (uint64_t *)1, n = 1;
    run_bitmap(&b, 5000, full, 1, 0);
    CHECK_EQ_INT(b.len, 70645);                       /* byte for byte the regression file */
    CHECK(tn_delta_dv_decode_bitmap(b.data, b.len, &rows, &n) == TN_ELIMIT);
    CHECK_EQ_STR(tn_error_message(), "deletion vector: more than 134217728 rows");
    CHECK(rows == NULL && n == 0);
    /* as a DV file: the log's cardinality is checked first, then the rows are counted */
    char *dir = make_tmpdir();
    CHECK(dir);
    const char *path = write_dv_file(dir, &b);
    CHECK(path);
    tn_delta_dv dv = {'u', "vBn[lx{q8@P<9BNH/isA", true, 1, (int32_t)b.len, 327680000, NULL};
    CHECK(tn_delta_dv_read(tn_fs_default(), dir, &dv, &rows, &n) == TN_ELIMIT);
    CHECK_EQ_STR(tn_error_message(), "deletion vector: cardinality 327680000 is over the limit of 134217728 rows");
    dv.cardinality = 3;
    CHECK(tn_delta_dv_read(tn_fs_default(), dir, &dv, &rows, &n) == TN_ELIMIT);
    char want[1024];
    snprintf(want, sizeof want, "%s: deletion vector: more than 134217728 rows", path);
    CHECK_EQ_STR(tn_error_message(), want);
    CHECK(rows == NULL && n == 0);
    /* two full containers are fine: 131072 rows */
    run_bitmap(&b, 2, full, 1, 0);
    CHECK_OK(tn_delta_dv_decode_bitmap(b.data, b.len, &rows, &n));
    CHECK_EQ_INT(n, 131072);
    bool ok = n == 131072;
    for (uint64_t i = 0; ok && i < n; i++) ok = rows[i] == i;
    CHECK(ok);
    tn_free(rows);
    path = write_dv_file(dir, &b);
    dv.size_in_bytes = (int32_t)b.len;
    dv.cardinality = 131071;                          /* not the file's: refused before allocating */
    CHECK(tn_delta_dv_read(tn_fs_default(), dir, &dv, &rows, &n) == TN_ECORRUPT);
    snprintf(want, sizeof want, "%s: deletion vector holds 131072 rows, the log says cardinality 131071", path);
    CHECK_EQ_STR(tn_error_message(), want);
    dv.cardinality = 131072;
    CHECK_OK(tn_delta_dv_read(tn_fs_default(), dir, &dv, &rows, &n));
    CHECK_EQ_INT(n, 131072);
    tn_free(rows);
    /* containers that lie about their contents */
    static const uint16_t overlap[4] = {10, 5, 12, 1}, past[2] = {0xfff0, 0x20};
    run_bitmap(&b, 1, full, 1, 10);
    CHECK(tn_delta_dv_decode_bitmap(b.data, b.len, &rows, &n) == TN_ECORRUPT);
    CHECK_EQ_STR(tn_error_message(), "deletion vector: invalid bitmap: bucket 0, container 0: 65536 rows, the header says 10");
    run_bitmap(&b, 1, overlap, 2, 0);
    CHECK(tn_delta_dv_decode_bitmap(b.data, b.len, &rows, &n) == TN_ECORRUPT);
    CHECK_EQ_STR(tn_error_message(), "deletion vector: invalid bitmap: bucket 0, container 0: runs overlap or not ascending");
    run_bitmap(&b, 1, past, 1, 0);
    CHECK(tn_delta_dv_decode_bitmap(b.data, b.len, &rows, &n) == TN_ECORRUPT);
    CHECK_EQ_STR(tn_error_message(), "deletion vector: invalid bitmap: bucket 0, container 0: run past 65535");
    run_bitmap(&b, 2, full, 1, 0);
    b.data[b.len - 1] = 0xfe;                         /* the last run: 0..65279, header 65536 */
    CHECK(tn_delta_dv_decode_bitmap(b.data, b.len, &rows, &n) == TN_ECORRUPT);
    CHECK_EQ_STR(tn_error_message(), "deletion vector: invalid bitmap: bucket 0, container 1: 65280 rows, the header says 65536");
    unlink(path);
    rmdir(dir);
    tn_buf_free(&b);
}

/* A bitset container whose header cardinality is not its bit count (CRoaring took the header's
 * and wrote past the row array it sized by it). */
TEST(dv_bitset_cardinality) {
    tn_buf b = TN_BUF_INIT;
    put_le(&b, 1681511377u, 4);
    put_le(&b, 1, 8);
    put_le(&b, 7, 4);                                 /* bucket key 7: rows 7 << 32 | ... */
    put_le(&b, 12346, 4);
    put_le(&b, 1, 4);
    put_le(&b, 3, 2);                                 /* container key 3 */
    put_le(&b, 4999, 2);                              /* 5000 rows: a bitset */
    put_le(&b, 16, 4);
    for (uint32_t w = 0; w < 1024; w++) put_le(&b, w < 78 ? ~0ull : w == 78 ? 0xffull : 0, 8);  /* 5000 bits */
    uint64_t *rows, n;
    CHECK_OK(tn_delta_dv_decode_bitmap(b.data, b.len, &rows, &n));
    CHECK_EQ_INT(n, 5000);
    CHECK(n == 5000 && rows[0] == (7ull << 32 | 3u << 16) && rows[4999] == (7ull << 32 | 3u << 16 | 4999));
    tn_free(rows);
    b.data[b.len - 8 * (1024 - 78)] = 0xff;           /* unchanged: still 5000 */
    b.data[b.len - 8 * (1024 - 78) + 1] = 0x01;       /* 5001 bits */
    CHECK(tn_delta_dv_decode_bitmap(b.data, b.len, &rows, &n) == TN_ECORRUPT);
    CHECK_EQ_STR(tn_error_message(), "deletion vector: invalid bitmap: bucket 0, container 0: 5001 rows, the header says 5000");
    tn_buf_free(&b);
}

/* ---------------------------------------------------------------------------------------------
 * Deletion vectors on write: byte-identical to the golden file delta-rs/Spark wrote, and
 * decodable by the reader for every container kind and for rows past 2^32.
 */
TEST(dv_writer_matches_golden_file_bytes) {
    char path[1024];
    snprintf(path, sizeof path, "%s/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin", dv_small_table());
    tn_buf want = TN_BUF_INIT, bm = TN_BUF_INIT;
    CHECK_OK(tn_fs_read_all(tn_fs_default(), path, &want));
    CHECK_EQ_INT(want.len, 45);
    uint64_t rows[2] = {0, 9};
    CHECK_OK(tn_delta_dv_encode_bitmap(rows, 2, &bm));
    CHECK_EQ_INT(bm.len, 36);
    CHECK_MSG(memcmp(bm.data, want.data + 5, 36) == 0, "bitmap bytes differ from the golden DV");
    /* the whole file: version byte, BE size, bitmap, BE CRC-32 */
    char *dir = make_tmpdir();
    CHECK(dir != NULL);
    tn_arena *arena = tn_arena_create(0);
    tn_delta_dv dv;
    char *written = NULL;
    const uint64_t *sets[1] = {rows};
    uint64_t counts[1] = {2};
    CHECK_OK(tn_delta_dv_write_file(tn_fs_default(), dir, sets, counts, 1, arena, &dv, &written));
    tn_buf got = TN_BUF_INIT;
    CHECK_OK(tn_fs_read_all(tn_fs_default(), written, &got));
    CHECK_EQ_INT(got.len, 45);
    CHECK_MSG(memcmp(got.data, want.data, 45) == 0, "DV file bytes differ from the golden file");
    CHECK_EQ_INT(dv.offset, 1);
    CHECK_EQ_INT(dv.size_in_bytes, 36);
    CHECK_EQ_INT(dv.cardinality, 2);
    CHECK_EQ_INT(strlen(dv.path_or_inline), 20);
    /* the descriptor leads the reader back to the rows */
    uint64_t *back = NULL, nback = 0;
    CHECK_OK(tn_delta_dv_read(tn_fs_default(), dir, &dv, &back, &nback));
    CHECK(nback == 2 && back[0] == 0 && back[1] == 9);
    free(back);
    tn_buf_free(&want);
    tn_buf_free(&bm);
    tn_buf_free(&got);
    tn_arena_destroy(arena);
    unlink(written);
    tn_free(written);
    rmdir(dir);
}

TEST(dv_bitmap_roundtrip_arrays_bitmaps_buckets) {
    uint64_t n = 0;
    uint64_t *rows = malloc(sizeof *rows * 20000);
    CHECK(rows != NULL);
    for (uint64_t i = 0; i < 6000; i++) rows[n++] = i * 3;                 /* a bitmap container */
    for (uint64_t i = 0; i < 10; i++) rows[n++] = 70000 + i * 1000;      /* an array container */
    for (uint64_t i = 0; i < 5; i++) rows[n++] = ((uint64_t)5 << 32) + i; /* another bucket */
    tn_buf bm = TN_BUF_INIT;
    CHECK_OK(tn_delta_dv_encode_bitmap(rows, n, &bm));
    uint64_t *back = NULL, nb = 0;
    CHECK_OK(tn_delta_dv_decode_bitmap(bm.data, bm.len, &back, &nb));
    CHECK_EQ_INT(nb, n);
    for (uint64_t i = 0; i < n; i++) CHECK_MSG(back[i] == rows[i], "row %llu: %llu != %llu", (unsigned long long)i,
                                               (unsigned long long)back[i], (unsigned long long)rows[i]);
    uint64_t bad[2] = {5, 5};
    CHECK(tn_delta_dv_encode_bitmap(bad, 2, &bm) == TN_EINVAL);
    tn_error_clear();
    free(back);
    free(rows);
    tn_buf_free(&bm);
}

TEST_MAIN()
