/*
 * tests/unit/test_bucket.c: layout/bucket/: Paimon's default bucket function against the values
 * Paimon's own tests assert (FixedBucketRowKeyExtractorTest#testBucket) and the BinaryRow bytes
 * of its format spec; the primary-key specification's checks (Paimon's messages); upserts through
 * the layout writer (one row per key within a batch and against the table, files tagged with
 * bucket and bucketCount); two writers of the same bucket (the second retries on the winner's
 * snapshot: no duplicate, no lost row) and of different buckets.
 */
#include "layout/bucket/bucketInt.h"
#include "testlib.h"

#include <unistd.h>

static tn_value int_value(int64_t v) {
    tn_value x;
    memset(&x, 0, sizeof x);
    x.type = tn_type_make(TN_TYPE_INTEGER);
    x.u.i = v;
    return x;
}

static tn_value str_value(const char *s) {
    tn_value x;
    memset(&x, 0, sizeof x);
    x.type = tn_type_make(TN_TYPE_VARCHAR);
    x.u.s.ptr = s;
    x.u.s.len = (uint32_t)strlen(s);
    return x;
}

static int32_t bucket_of(const tn_value *v, uint32_t n, int32_t nb) {
    int32_t h = 0;
    if (tn_bucket_hash_values(v, n, &h)) return -1;
    return tn_bucket_of_hash(h, nb);
}

/* Paimon FixedBucketRowKeyExtractorTest#testBucket: row (5, 6, 7) of INTs, 100 buckets. */
TEST(paimon_golden_buckets) {
    tn_value v[3] = {int_value(5), int_value(6), int_value(7)};
    CHECK_EQ_INT(bucket_of(v, 1, 100), 96);
    CHECK_EQ_INT(bucket_of(v, 2, 100), 27);
    CHECK_EQ_INT(bucket_of(v, 3, 100), 40);
}

/* RescaleBucketITCase's keys f0 = 1..5 with 2 and 4 buckets (derived from the same function). */
TEST(rescale_keys) {
    const int32_t two[5] = {0, 0, 1, 0, 0}, four[5] = {2, 0, 1, 2, 0};
    for (int k = 1; k <= 5; k++) {
        tn_value v = int_value(k);
        CHECK_EQ_INT(bucket_of(&v, 1, 2), two[k - 1]);
        CHECK_EQ_INT(bucket_of(&v, 1, 4), four[k - 1]);
    }
}

/* The fixed-width fast path (vectors straight to the BinaryRow bytes) hashes every row as the
 * BinaryRow of its values does, for each fixed-width type, several columns and NULLs. */
TEST(fixed_key_hash_equals_binary_row) {
    tn_type types[6] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_INTEGER), tn_type_make(TN_TYPE_SMALLINT),
                        tn_type_make(TN_TYPE_TINYINT), tn_type_make(TN_TYPE_DATE), tn_type_make(TN_TYPE_BOOLEAN)};
    tn_type dec = tn_type_make(TN_TYPE_DECIMAL);
    dec.precision = 18;
    dec.scale = 2;
    tn_vector v[7];
    for (int c = 0; c < 6; c++) CHECK_OK(tn_vector_init(&v[c], types[c], 512));
    CHECK_OK(tn_vector_init(&v[6], dec, 512));
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (uint32_t r = 0; r < 512; r++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        ((int64_t *)v[0].data)[r] = (int64_t)x;
        ((int32_t *)v[1].data)[r] = (int32_t)(x >> 7);
        ((int16_t *)v[2].data)[r] = (int16_t)(x >> 13);
        ((int8_t *)v[3].data)[r] = (int8_t)(x >> 29);
        ((int32_t *)v[4].data)[r] = (int32_t)(x % 40000) - 20000;
        ((bool *)v[5].data)[r] = (x >> 3) & 1;
        ((int64_t *)v[6].data)[r] = (int64_t)(x >> 5) - (int64_t)(x >> 3);
        if (r % 37 == 5) CHECK_OK(tn_vector_set_null(&v[1], r));
    }
    for (int c = 0; c < 7; c++) v[c].count = 512;
    const tn_vector *cols[7] = {&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]};
    for (uint32_t first = 0; first < 7; first++)
        for (uint32_t n = 1; first + n <= 7; n++) {
            CHECK(tn_bucket_fixed_keys(cols + first, n));
            for (uint32_t r = 0; r < 512; r++) {
                tn_value vals[7];
                for (uint32_t k = 0; k < n; k++) tn_vector_get_value(cols[first + k], r, &vals[k]);
                int32_t h = 0;
                CHECK_OK(tn_bucket_hash_values(vals, n, &h));
                CHECK_EQ_INT(tn_bucket_hash_fixed(cols + first, n, r), h);
            }
        }
    /* the one-column loop: BIGINT, DATE, DECIMAL(18); a column with NULLs or a narrow type: refused */
    int32_t hc[512];
    for (int c = 0; c < 7; c++) {
        bool ok = tn_bucket_hash_column(cols[c], 3, 512, hc);
        CHECK_EQ_INT(ok, c == 0 || c == 4 || c == 6);
        for (uint32_t r = 3; ok && r < 512; r++) CHECK_EQ_INT(hc[r], tn_bucket_hash_fixed(cols + c, 1, r));
    }
    tn_vector s;
    CHECK_OK(tn_vector_init(&s, tn_type_make(TN_TYPE_VARCHAR), 4));
    const tn_vector *sc[2] = {&v[0], &s};
    CHECK(!tn_bucket_fixed_keys(sc, 2));       /* strings take the BinaryRow path */
    tn_vector_free(&s);
    for (int c = 0; c < 7; c++) tn_vector_free(&v[c]);
}

/* The BinaryRow image (Paimon's manifest spec, appendix BinaryRow). */
TEST(binary_row_layout) {
    tn_buf b = TN_BUF_INIT;
    tn_value v[3] = {int_value(-2), str_value("abc"), str_value("a longer string")};
    v[0].is_null = false;
    CHECK_OK(tn_bucket_binary_row(&b, v, 3));
    /* header 8 + 3 slots + 16 bytes of variable part */
    CHECK_EQ_INT(b.len, 8 + 24 + 16);
    CHECK_EQ_INT(b.data[0], 0);                      /* row kind INSERT, no nulls */
    CHECK_EQ_INT(b.data[1], 0);
    CHECK_EQ_INT(b.data[8], 0xFE);                   /* -2 as 4 LE bytes, upper slot bytes 0 */
    CHECK_EQ_INT(b.data[11], 0xFF);
    CHECK_EQ_INT(b.data[12], 0);
    CHECK(memcmp(b.data + 16, "abc", 3) == 0);       /* inline string: bytes, then 0x80 | len */
    CHECK_EQ_INT(b.data[23], 0x83);
    CHECK_EQ_INT(b.data[24], 15);                    /* long string: len, then offset 32 */
    CHECK_EQ_INT(b.data[28], 32);
    CHECK(memcmp(b.data + 32, "a longer string", 15) == 0);
    CHECK_EQ_INT(b.data[47], 0);                     /* zero padding to 8 bytes */
    /* a NULL field: bit (i + 8) of the header, slot zero */
    v[1].is_null = true;
    CHECK_OK(tn_bucket_binary_row(&b, v, 2));
    CHECK_EQ_INT(b.len, 24);
    CHECK_EQ_INT(b.data[1], 0x02);
    for (int i = 16; i < 24; i++) CHECK_EQ_INT(b.data[i], 0);
    /* 65 fields: a 16-byte header */
    tn_value many[65];
    for (int i = 0; i < 65; i++) many[i] = int_value(i);
    CHECK_OK(tn_bucket_binary_row(&b, many, 65));
    CHECK_EQ_INT(b.len, 16 + 65 * 8);
    tn_buf_free(&b);
}

/* Java's Math.abs(hash % n): the remainder keeps the dividend's sign. */
TEST(bucket_of_negative_hash) {
    CHECK_EQ_INT(tn_bucket_of_hash(-7, 4), 3);
    CHECK_EQ_INT(tn_bucket_of_hash(INT32_MIN, 3), 2);
    CHECK_EQ_INT(tn_bucket_of_hash(7, 4), 3);
}

/* ---------------------------------------------------------------------------------------------
 * Specification checks.
 */
static tn_bucket_column spec_cols[] = {
    {"a", {TN_TYPE_INTEGER, 0, 0, NULL}, false, false},
    {"b", {TN_TYPE_INTEGER, 0, 0, NULL}, false, false},
    {"c", {TN_TYPE_INTEGER, 0, 0, NULL}, false, true},
    {"dt", {TN_TYPE_VARCHAR, 0, 0, NULL}, true, false},
    {"s", {TN_TYPE_VARCHAR, 0, 0, NULL}, false, true},
};

static const char *spec_error(const tn_delta_kv *kv, uint32_t n) {
    static char msg[2048];
    tn_arena *a = tn_arena_create(0);
    tn_bucket_spec s;
    int rc = tn_bucket_spec_parse(&s, "table 't'", spec_cols, 5, kv, n, a);
    tn_arena_destroy(a);
    snprintf(msg, sizeof msg, "%s", rc ? tn_error_message() : "ok");
    return msg;
}

#define CHECK_SPEC_ERR(kv, text)                                                              \
    do { const char *m_ = spec_error(kv, sizeof kv / sizeof kv[0]);                           \
         CHECK_MSG(strstr(m_, text) != NULL, "expected '%s' in '%s'", text, m_); } while (0)

TEST(spec_errors) {
    tn_delta_kv same[] = {{"primary-key", "dt"}, {"bucket", "4"}};
    CHECK_SPEC_ERR(same, "Primary key constraint [dt] should not be same with partition fields [dt], this will result "
                         "in only one record in a partition");
    tn_delta_kv cross[] = {{"primary-key", "a"}, {"bucket", "4"}};
    CHECK_SPEC_ERR(cross, "Primary key constraint [a] not include all partition fields [dt]");
    tn_delta_kv bk1[] = {{"primary-key", "a,dt"}, {"bucket-key", "n"}};
    CHECK_SPEC_ERR(bk1, "Field names [a, b, c, dt, s] should contains all bucket keys [n].");
    tn_delta_kv bk2[] = {{"primary-key", "b,dt"}, {"bucket-key", "a"}};
    CHECK_SPEC_ERR(bk2, "Primary keys [b, dt] should contains all bucket keys [a].");
    tn_delta_kv bk3[] = {{"primary-key", "a,dt"}, {"bucket-key", "dt"}};
    CHECK_SPEC_ERR(bk3, "Bucket keys [dt] should not in partition keys [dt].");
    tn_delta_kv z[] = {{"primary-key", "a,dt"}, {"bucket", "0"}};
    CHECK_SPEC_ERR(z, "The number of buckets needs to be greater than 0.");
    tn_delta_kv neg[] = {{"primary-key", "a,dt"}, {"bucket", "-5"}};
    CHECK_SPEC_ERR(neg, "The number of buckets needs to be greater than 0.");
    tn_delta_kv abc[] = {{"primary-key", "a,dt"}, {"bucket", "abc"}};
    CHECK_SPEC_ERR(abc, "Could not parse value 'abc' for key 'bucket'.");
    tn_delta_kv post[] = {{"primary-key", "a,dt"}, {"bucket", "-2"}};
    CHECK_SPEC_ERR(post, "postpone");
    tn_delta_kv dynbk[] = {{"primary-key", "a,dt"}, {"bucket", "-1"}, {"bucket-key", "a"}};
    CHECK_SPEC_ERR(dynbk, "Cannot define 'bucket-key' with bucket = -1, please remove the 'bucket-key' setting or "
                          "specify a bucket number.");
    tn_delta_kv dyncross[] = {{"primary-key", "a"}, {"bucket", "-1"}};
    CHECK_SPEC_ERR(dyncross, "cross-partition upserts");
    tn_delta_kv dyntarget[] = {{"primary-key", "a,dt"}, {"bucket", "4"}, {"dynamic-bucket.target-row-num", "9"}};
    CHECK_SPEC_ERR(dyntarget, "needs 'bucket' = '-1'");
    tn_delta_kv dynbad[] = {{"primary-key", "a,dt"}, {"bucket", "-1"}, {"dynamic-bucket.target-row-num", "0"}};
    CHECK_SPEC_ERR(dynbad, "Could not parse value '0' for key 'dynamic-bucket.target-row-num'.");
    tn_delta_kv me[] = {{"primary-key", "a,dt"}, {"merge-engine", "replace"}};
    CHECK_SPEC_ERR(me, "Could not parse value 'replace' for key 'merge-engine'");
    tn_delta_kv agg[] = {{"primary-key", "a,dt"}, {"merge-engine", "aggregation"}, {"fields.c.aggregate-function", "avg"}};
    CHECK_SPEC_ERR(agg, "Use unsupported aggregation: avg or spell aggregate function incorrectly!");
    tn_delta_kv aggt[] = {{"primary-key", "a,dt"}, {"merge-engine", "aggregation"}, {"fields.s.aggregate-function", "sum"}};
    CHECK_SPEC_ERR(aggt, "does not apply to column 's'");
    tn_delta_kv noagg[] = {{"primary-key", "a,dt"}, {"fields.c.aggregate-function", "sum"}};
    CHECK_SPEC_ERR(noagg, "needs 'merge-engine' = 'aggregation'");
    tn_delta_kv seq[] = {{"primary-key", "a,dt"}, {"sequence.field", "zz"}};
    CHECK_SPEC_ERR(seq, "Sequence field: 'zz' can not be found in table schema.");
    tn_delta_kv fr[] = {{"primary-key", "a,dt"}, {"merge-engine", "first-row"}, {"sequence.field", "c"}};
    CHECK_SPEC_ERR(fr, "Do not support use sequence field on FIRST_ROW merge engine.");
    tn_delta_kv unk[] = {{"primary-key", "a,dt"}, {"bucket", "2"}, {"write-buffer-size", "256mb"}};
    CHECK_SPEC_ERR(unk, "option 'write-buffer-size' is not supported for primary-key tables");
    tn_delta_kv cl[] = {{"primary-key", "a,dt"}, {"changelog-producer", "input"}};
    CHECK_SPEC_ERR(cl, "'changelog-producer' = 'input' is not supported");
    tn_delta_kv nopk[] = {{"bucket", "4"}};
    CHECK_SPEC_ERR(nopk, "needs a primary key");
    tn_delta_kv badpk[] = {{"primary-key", "a,zz,dt"}};
    CHECK_SPEC_ERR(badpk, "primary key column 'zz' is not a column of the table");
    tn_delta_kv ok[] = {{"primary-key", "a, b, dt"}, {"bucket", "8"}, {"merge-engine", "aggregation"},
                        {"fields.c.aggregate-function", "sum"}, {"fields.s.aggregate-function", "listagg"},
                        {"fields.c.ignore-retract", "true"}, {"delta.appendOnly", "false"}};
    CHECK_EQ_STR(spec_error(ok, sizeof ok / sizeof ok[0]), "ok");
    /* the bucket key defaults to the key minus the partition columns */
    tn_arena *ar = tn_arena_create(0);
    tn_bucket_spec s;
    CHECK_OK(tn_bucket_spec_parse(&s, "t", spec_cols, 5, ok, sizeof ok / sizeof ok[0], ar));
    CHECK_EQ_INT(s.nkey, 3);
    CHECK_EQ_INT(s.nbkey, 2);
    CHECK_EQ_INT(s.bkey[0], 0);
    CHECK_EQ_INT(s.bkey[1], 1);
    CHECK_EQ_INT(s.nbuckets, 8);
    CHECK_EQ_INT(s.agg[2], TN_AGG_SUM);
    CHECK_EQ_INT(s.agg[4], TN_AGG_LISTAGG);
    tn_arena_destroy(ar);
}

/* ---------------------------------------------------------------------------------------------
 * Writes through the layout.
 */
static char *make_tmpdir(void) {
    char tmpl[] = "/tmp/tarn-bucket-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static void rm_rf(const char *path) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "rm failed: %s\n", path);
}

/* t(k BIGINT NOT NULL, v BIGINT) with 'primary-key' = 'k', 'bucket' = '4'. */
static int create_kv(const char *path) {
    tn_table_column_def cols[] = {{"k", tn_type_make(TN_TYPE_BIGINT), false, NULL},
                                  {"v", tn_type_make(TN_TYPE_BIGINT), true, NULL}};
    tn_delta_kv conf[] = {{"primary-key", "k"}, {"bucket", "4"}};
    tn_table_create_options co = TN_TABLE_CREATE_OPTIONS_INIT;
    co.columns = cols;
    co.ncolumns = 2;
    co.configuration = conf;
    co.nconfiguration = 2;
    return tn_table_create(tn_fs_default(), path, &co);
}

static int write_kv(tn_layout_writer *w, const int64_t *k, const int64_t *v, uint32_t n) {
    tn_type types[2] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_BIGINT)};
    tn_chunk c;
    int rc = tn_chunk_init(&c, 2, types, n);
    if (rc) return rc;
    memcpy(c.cols[0].data, k, n * sizeof *k);
    memcpy(c.cols[1].data, v, n * sizeof *v);
    c.count = c.cols[0].count = c.cols[1].count = n;
    rc = tn_layout_writer_write(w, &c);
    tn_chunk_free(&c);
    return rc;
}

typedef struct sums {
    int64_t rows, ksum, vsum;
    int64_t v_of[64];
} sums;

static int sum_chunk(void *ctx, const tn_chunk *c, uint32_t file, int64_t first_row) {
    (void)file;
    (void)first_row;
    sums *s = ctx;
    for (uint32_t i = 0; i < c->count; i++) {
        int64_t k = ((const int64_t *)c->cols[0].data)[i], v = ((const int64_t *)c->cols[1].data)[i];
        s->rows++;
        s->ksum += k;
        s->vsum += v;
        if (k >= 0 && k < 64) s->v_of[k] = v;
    }
    return 0;
}

static int read_sums(const char *path, sums *out) {
    memset(out, 0, sizeof *out);
    tn_table *t = NULL;
    tn_table_scan *scan = NULL;
    int rc = tn_table_open(&t, tn_fs_default(), path, NULL);
    if (!rc) rc = tn_layout_scan_open(&scan, NULL, t, NULL);
    if (!rc) rc = tn_table_scan_run(scan, sum_chunk, out);
    tn_table_scan_close(scan);
    tn_table_close(t);
    return rc;
}

TEST(upsert_one_row_per_key) {
    char *dir = make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/t", dir);
    CHECK_OK(create_kv(path));
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    tn_layout_writer *w = NULL;
    CHECK_OK(tn_layout_writer_open(&w, t, NULL));
    int64_t k1[] = {1, 2, 3, 1, 2, 1}, v1[] = {10, 20, 30, 11, 21, 12};
    CHECK_OK(write_kv(w, k1, v1, 6));
    tn_table_commit_result res;
    CHECK_OK(tn_layout_writer_commit(w, &res));
    CHECK_EQ_INT(res.version, 1);
    tn_table_close(t);
    sums s;
    CHECK_OK(read_sums(path, &s));
    CHECK_EQ_INT(s.rows, 3);
    CHECK_EQ_INT(s.v_of[1], 12);               /* the later row of a key wins */
    CHECK_EQ_INT(s.v_of[2], 21);
    CHECK_EQ_INT(s.v_of[3], 30);
    /* against the table */
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_OK(tn_layout_writer_open(&w, t, NULL));
    int64_t k2[] = {3, 4}, v2[] = {33, 40};
    CHECK_OK(write_kv(w, k2, v2, 2));
    CHECK_OK(tn_layout_writer_commit(w, &res));
    tn_table_close(t);
    CHECK_OK(read_sums(path, &s));
    CHECK_EQ_INT(s.rows, 4);
    CHECK_EQ_INT(s.v_of[3], 33);
    CHECK_EQ_INT(s.v_of[4], 40);
    /* every live file names its bucket and count (the bucket of 3 was rewritten: one file) */
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    CHECK(snap->nfiles >= 1 && snap->nfiles <= 5);
    int32_t b3 = 0;
    {
        tn_value kv = {.type = tn_type_make(TN_TYPE_BIGINT), .u.i = 3};
        int32_t h;
        CHECK_OK(tn_bucket_hash_values(&kv, 1, &h));
        b3 = tn_bucket_of_hash(h, 4);
    }
    uint32_t in_b3 = 0;
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        int32_t b, n;
        CHECK(tn_bucket_file_tags(&snap->files[i], &b, &n));
        CHECK_EQ_INT(n, 4);
        in_b3 += b == b3;
    }
    CHECK_EQ_INT(in_b3, 1);
    tn_table_close(t);
    rm_rf(dir);
    free(dir);
}

/* Files per bucket of path's snapshot (4 buckets); the largest count. */
static uint32_t max_files_per_bucket(const char *path) {
    tn_table *t = NULL;
    if (tn_table_open(&t, tn_fs_default(), path, NULL)) return 999;
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    uint32_t per[4] = {0}, mx = 0;
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        int32_t b, n;
        if (tn_bucket_file_tags(&snap->files[i], &b, &n) && b < 4 && ++per[b] > mx) mx = per[b];
    }
    tn_table_close(t);
    return mx;
}

static int write_batch(const char *path, const int64_t *k, const int64_t *v, uint32_t n) {
    tn_table *t = NULL;
    tn_layout_writer *w = NULL;
    tn_table_commit_result res;
    int rc = tn_table_open(&t, tn_fs_default(), path, NULL);
    if (!rc) rc = tn_layout_writer_open(&w, t, NULL);
    if (!rc) rc = write_kv(w, k, v, n);
    if (!rc) rc = tn_layout_writer_commit(w, &res);
    else if (w) tn_layout_writer_abort(w);
    tn_table_close(t);
    return rc;
}

/* Rows of a batch in a few sorted runs (a rescale's input: each bucket's rows come from old
 * buckets' files in key order) go through the natural merge sort; more than its 64 runs through
 * qsort. Either way the later row of a key wins. */
TEST(merge_sorted_runs) {
    char *dir = make_tmpdir();
    char path[512];
    enum { N = 4000 + 4000 + 64 };
    int64_t *k = malloc(sizeof *k * N), *v = malloc(sizeof *v * N);
    CHECK(k && v);
    for (uint32_t pass = 0; pass < 3; pass++) {
        snprintf(path, sizeof path, "%s/t%u", dir, pass);   /* 0, 2: merged runs; 1: qsort */
        CHECK_OK(create_kv(path));
        uint32_t n = 0;
        if (pass == 0) {               /* three runs: 0..3999, 2000..5999, 0..63 */
            for (int64_t i = 0; i < 4000; i++) k[n] = i, v[n++] = i * 10 + 1;
            for (int64_t i = 2000; i < 6000; i++) k[n] = i, v[n++] = i * 10 + 2;
            for (int64_t i = 0; i < 64; i++) k[n] = i, v[n++] = i * 10 + 3;
        } else if (pass == 2) {        /* two runs (a rescale from 32 to 16 buckets) */
            for (int64_t i = 0; i < 6000; i++) k[n] = i, v[n++] = i * 10 + 2;
            for (int64_t i = 0; i < 64; i++) k[n] = i, v[n++] = i * 10 + 3;
        } else {                       /* pass 1, descending: one run per row */
            for (int64_t i = 5999; i >= 0; i--) k[n] = i, v[n++] = i * 10 + 2;
            for (int64_t i = 0; i < 64; i++) k[n] = i, v[n++] = i * 10 + 3;
        }
        CHECK_OK(write_batch(path, k, v, n));
        sums s;
        CHECK_OK(read_sums(path, &s));
        CHECK_EQ_INT(s.rows, 6000);
        int64_t want = 0;
        for (int64_t i = 0; i < 6000; i++) want += i * 10 + (i < 64 ? 3 : i < 2000 && pass == 0 ? 1 : 2);
        CHECK_EQ_INT(s.vsum, want);
        for (int64_t i = 0; i < 64; i++) CHECK_EQ_INT(s.v_of[i], i * 10 + 3);
    }
    free(k);
    free(v);
    rm_rf(dir);
    free(dir);
}

/* The rows of key (the scan prunes by statistics; the rows are filtered here): rows and their v. */
typedef struct key_hits {
    int64_t key;
    sums *s;
} key_hits;

static int hit_chunk(void *ctx, const tn_chunk *c, uint32_t file, int64_t first_row) {
    (void)file;
    (void)first_row;
    key_hits *h = ctx;
    for (uint32_t i = 0; i < c->count; i++)
        if (((const int64_t *)c->cols[0].data)[i] == h->key) {
            h->s->rows++;
            h->s->vsum += ((const int64_t *)c->cols[1].data)[i];
        }
    return 0;
}

/* k = key through the layout scan (bucket pruning, then statistics). */
static int lookup(const char *path, int64_t key, sums *out) {
    memset(out, 0, sizeof *out);
    key_hits h = {key, out};
    tn_table *t = NULL;
    tn_table_scan *scan = NULL;
    tn_table_filter f;
    memset(&f, 0, sizeof f);
    f.column = 0;
    f.op = TN_PQ_EQ;
    f.constant.type = tn_type_make(TN_TYPE_BIGINT);
    f.constant.u.i = key;
    tn_layout_scan_options so = TN_LAYOUT_SCAN_OPTIONS_INIT;
    so.scan.filters = &f;
    so.scan.nfilters = 1;
    so.scan.all_columns = true;
    int rc = tn_table_open(&t, tn_fs_default(), path, NULL);
    if (!rc) rc = tn_layout_scan_open(&scan, NULL, t, &so);
    if (!rc) rc = tn_table_scan_run(scan, hit_chunk, &h);
    tn_table_scan_close(scan);
    tn_table_close(t);
    return rc;
}

/* A point lookup on a deletion-vector table reads a file's DV only when one of its row groups
 * passes the statistics: with the DV file broken on purpose, a key between two row groups of the
 * file still reads (nothing), a key inside one fails naming the deletion vector. */
TEST(dv_read_only_for_row_groups_read) {
    char *dir = make_tmpdir();
    char path[512], cmd[1200];
    snprintf(path, sizeof path, "%s/t", dir);
    tn_table_column_def cols[] = {{"k", tn_type_make(TN_TYPE_BIGINT), false, NULL},
                                  {"v", tn_type_make(TN_TYPE_BIGINT), true, NULL}};
    tn_delta_kv conf[] = {{"primary-key", "k"}, {"bucket", "1"}, {"delta.enableDeletionVectors", "true"}};
    tn_table_create_options co = TN_TABLE_CREATE_OPTIONS_INIT;
    co.columns = cols;
    co.ncolumns = 2;
    co.configuration = conf;
    co.nconfiguration = 3;
    CHECK_OK(tn_table_create(tn_fs_default(), path, &co));
    enum { N = 1000 };
    int64_t k[N], v[N];
    for (int64_t i = 0; i < N; i++) k[i] = 2 * i, v[i] = i;      /* 10 row groups of 100: [200g, 200g + 198] */
    tn_table *t = NULL;
    tn_layout_writer *w = NULL;
    tn_table_commit_result res;
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.row_group_rows = 100;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_OK(tn_layout_writer_open(&w, t, &wo));
    CHECK_OK(write_kv(w, k, v, N));
    CHECK_OK(tn_layout_writer_commit(w, &res));
    tn_table_close(t);
    for (int64_t i = 0; i < 5; i++) k[i] = 2 * i, v[i] = 1000 + i;   /* keys 0..8 replaced: a DV */
    CHECK_OK(write_batch(path, k, v, 5));
    sums s;
    CHECK_OK(lookup(path, 4, &s));
    CHECK_EQ_INT(s.rows, 1);
    CHECK_EQ_INT(s.vsum, 1002);
    CHECK_OK(lookup(path, 400, &s));
    CHECK_EQ_INT(s.rows, 1);
    CHECK_EQ_INT(s.vsum, 200);
    /* break the DV file */
    snprintf(cmd, sizeof cmd, "for f in '%s'/deletion_vector_*.bin; do printf 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' > \"$f\"; done", path);
    CHECK(system(cmd) == 0);
    CHECK_OK(lookup(path, 199, &s));           /* between row groups 0 and 1: no DV needed */
    CHECK_EQ_INT(s.rows, 0);
    CHECK_OK(lookup(path, 1999, &s));          /* past the file's range */
    CHECK_EQ_INT(s.rows, 0);
    int rc = lookup(path, 400, &s);
    CHECK(rc != 0);
    CHECK_MSG(strstr(tn_error_message(), "deletion vector") != NULL, "%s", tn_error_message());
    tn_error_clear();
    rm_rf(dir);
    free(dir);
}

/* New keys (outside every file's key range) add a file to their bucket instead of rewriting it;
 * Paimon's universal compaction keeps a bucket at <= 5 files; a key written again is merged. */
TEST(new_keys_append_files_compacted) {
    char *dir = make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/t", dir);
    CHECK_OK(create_kv(path));
    int64_t k[40], v[40];
    for (int b = 0; b < 30; b++) {
        for (int i = 0; i < 40; i++) {
            k[i] = 100 + b * 40 + i;
            v[i] = 1;
        }
        CHECK_OK(write_batch(path, k, v, 40));
        CHECK_MSG(max_files_per_bucket(path) <= 5, "batch %d: %u files in a bucket", b, max_files_per_bucket(path));
    }
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK(tn_table_snapshot(t)->nfiles > 4);     /* appends did not rewrite every bucket */
    int64_t removes = 0;
    for (int64_t ver = 2; ver <= tn_table_version(t); ver++) {
        tn_arena *ar = tn_arena_create(0);
        tn_delta_action *acts = NULL;
        uint32_t nacts = 0;
        CHECK_OK(tn_delta_read_commit(tn_fs_default(), path, ver, ar, &acts, &nacts));
        for (uint32_t i = 0; i < nacts; i++) removes += acts[i].kind == TN_DELTA_REMOVE;
        tn_arena_destroy(ar);
    }
    CHECK(removes > 0 && removes < 29 * 4);      /* some compaction, far from a rewrite per write */
    tn_table_close(t);
    sums s;
    CHECK_OK(read_sums(path, &s));
    CHECK_EQ_INT(s.rows, 1200);
    CHECK_EQ_INT(s.vsum, 1200);
    /* old and new keys again: merged, one row per key */
    for (int i = 0; i < 40; i++) {
        k[i] = i < 20 ? 100 + i * 7 : 2000 + i;
        v[i] = 5;
    }
    CHECK_OK(write_batch(path, k, v, 40));
    CHECK_OK(read_sums(path, &s));
    CHECK_EQ_INT(s.rows, 1220);
    CHECK_EQ_INT(s.vsum, 1200 - 20 + 40 * 5);
    CHECK(max_files_per_bucket(path) <= 5);
    rm_rf(dir);
    free(dir);
}

/* Two writers opened on the same snapshot upsert keys of the same bucket: the second commit
 * conflicts on the bucket, merges again on the winner's snapshot and commits; nothing is lost
 * or duplicated. Writers of different buckets never conflict. */
/* commitInfo.readVersion of commit v of the table at path (-1: not found). */
static long commit_read_version(const char *path, int v) {
    char f[640];
    snprintf(f, sizeof f, "%s/_delta_log/%020d.json", path, v);
    FILE *fp = fopen(f, "r");
    if (!fp) return -1;
    char line[8192];
    long rv = -1;
    while (rv < 0 && fgets(line, sizeof line, fp)) {
        const char *p = strstr(line, "\"readVersion\":");
        if (p) rv = strtol(p + strlen("\"readVersion\":"), NULL, 10);
    }
    fclose(fp);
    return rv;
}

TEST(concurrent_same_bucket_retries) {
    char *dir = make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/t", dir);
    CHECK_OK(create_kv(path));
    /* keys of one bucket (of 4) */
    int64_t same[3];
    int n = 0;
    int32_t want = -1;
    for (int64_t k = 0; k < 64 && n < 3; k++) {
        tn_value v;
        memset(&v, 0, sizeof v);
        v.type = tn_type_make(TN_TYPE_BIGINT);
        v.u.i = k;
        int32_t b = bucket_of(&v, 1, 4);
        if (want < 0) want = b;
        if (b == want) same[n++] = k;
    }
    CHECK_EQ_INT(n, 3);
    tn_table *t1 = NULL, *t2 = NULL;
    CHECK_OK(tn_table_open(&t1, tn_fs_default(), path, NULL));
    CHECK_OK(tn_table_open(&t2, tn_fs_default(), path, NULL));
    tn_layout_writer *w1 = NULL, *w2 = NULL;
    CHECK_OK(tn_layout_writer_open(&w1, t1, NULL));
    CHECK_OK(tn_layout_writer_open(&w2, t2, NULL));
    int64_t ka[] = {same[0], same[1]}, va[] = {1, 2};
    int64_t kb[] = {same[1], same[2]}, vb[] = {20, 30};
    CHECK_OK(write_kv(w1, ka, va, 2));
    CHECK_OK(write_kv(w2, kb, vb, 2));
    tn_table_commit_result r1, r2;
    CHECK_OK(tn_layout_writer_commit(w1, &r1));
    CHECK_OK(tn_layout_writer_commit(w2, &r2));
    CHECK_EQ_INT(r1.version, 1);
    CHECK_EQ_INT(r2.version, 2);
    tn_table_close(t1);
    tn_table_close(t2);
    sums s;
    CHECK_OK(read_sums(path, &s));
    CHECK_EQ_INT(s.rows, 3);
    CHECK_EQ_INT(s.v_of[same[0]], 1);
    CHECK_EQ_INT(s.v_of[same[1]], 20);         /* the later commit wins */
    CHECK_EQ_INT(s.v_of[same[2]], 30);
    /* the loser merged again on the winner's snapshot: its commit read version 1 */
    CHECK(commit_read_version(path, 2) == 1);
    rm_rf(dir);
    free(dir);
}

/* Two writers of different buckets: the second commits over the first without merging again
 * (its commit still reads version 0: the conflict check found nothing in its buckets). */
TEST(concurrent_other_buckets_no_conflict) {
    char *dir = make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/t", dir);
    CHECK_OK(create_kv(path));
    int64_t ka[2], kb[2];
    int na = 0, nb = 0;
    int32_t ba = -1;
    for (int64_t k = 0; k < 64 && (na < 2 || nb < 2); k++) {
        tn_value v;
        memset(&v, 0, sizeof v);
        v.type = tn_type_make(TN_TYPE_BIGINT);
        v.u.i = k;
        int32_t b = bucket_of(&v, 1, 4);
        if (ba < 0) ba = b;
        if (b == ba && na < 2) ka[na++] = k;
        else if (b != ba && nb < 2 && (nb == 0 || bucket_of(&v, 1, 4) == bucket_of(&(tn_value){.type = v.type, .u.i = kb[0]}, 1, 4)))
            kb[nb++] = k;
    }
    CHECK(na == 2 && nb == 2);
    tn_table *t1 = NULL, *t2 = NULL;
    CHECK_OK(tn_table_open(&t1, tn_fs_default(), path, NULL));
    CHECK_OK(tn_table_open(&t2, tn_fs_default(), path, NULL));
    tn_layout_writer *w1 = NULL, *w2 = NULL;
    CHECK_OK(tn_layout_writer_open(&w1, t1, NULL));
    CHECK_OK(tn_layout_writer_open(&w2, t2, NULL));
    int64_t va[] = {1, 2}, vb[] = {3, 4};
    CHECK_OK(write_kv(w1, ka, va, 2));
    CHECK_OK(write_kv(w2, kb, vb, 2));
    tn_table_commit_result r1, r2;
    CHECK_OK(tn_layout_writer_commit(w1, &r1));
    CHECK_OK(tn_layout_writer_commit(w2, &r2));
    CHECK_EQ_INT(r1.version, 1);
    CHECK_EQ_INT(r2.version, 2);
    tn_table_close(t1);
    tn_table_close(t2);
    CHECK(commit_read_version(path, 2) == 0);
    sums s;
    CHECK_OK(read_sums(path, &s));
    CHECK_EQ_INT(s.rows, 4);
    CHECK_EQ_INT(s.vsum, 10);
    rm_rf(dir);
    free(dir);
}

/* Dynamic buckets ('bucket' = '-1', 2 keys a bucket): a new key goes to the first bucket below the
 * target, else to the lowest unused id; an update stays in its key's bucket; files say
 * bucketCount -1 (Paimon's PartitionIndex.assign). */
static void bucket_records(const char *path, int64_t *records, int32_t nb) {
    for (int32_t b = 0; b < nb; b++) records[b] = 0;
    tn_table *t = NULL;
    if (tn_table_open(&t, tn_fs_default(), path, NULL)) return;
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        int32_t b, c;
        if (!tn_bucket_file_tags(&snap->files[i], &b, &c) || c != -1 || b >= nb) records[nb - 1] = -100;
        else records[b] += tn_delta_file_num_records(&snap->files[i]);
    }
    tn_table_close(t);
}

TEST(dynamic_buckets_assign) {
    char *dir = make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/t", dir);
    tn_table_column_def cols[] = {{"k", tn_type_make(TN_TYPE_BIGINT), false, NULL},
                                  {"v", tn_type_make(TN_TYPE_BIGINT), true, NULL}};
    tn_delta_kv conf[] = {{"primary-key", "k"}, {"bucket", "-1"}, {"dynamic-bucket.target-row-num", "2"}};
    tn_table_create_options co = TN_TABLE_CREATE_OPTIONS_INIT;
    co.columns = cols;
    co.ncolumns = 2;
    co.configuration = conf;
    co.nconfiguration = 3;
    CHECK_OK(tn_table_create(tn_fs_default(), path, &co));
    int64_t k1[] = {10, 11, 12}, v1[] = {1, 1, 1};
    int64_t k2[] = {12, 13, 14, 15, 16}, v2[] = {2, 2, 2, 2, 2};
    const int64_t *ks[] = {k1, k2}, *vs[] = {v1, v2};
    uint32_t ns[] = {3, 5};
    for (int w = 0; w < 2; w++) {
        tn_table *t = NULL;
        tn_layout_writer *wr = NULL;
        CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
        CHECK_OK(tn_layout_writer_open(&wr, t, NULL));
        CHECK_OK(write_kv(wr, ks[w], vs[w], ns[w]));
        CHECK_OK(tn_layout_writer_commit(wr, NULL));
        tn_table_close(t);
    }
    /* 10, 11 -> 0 (full); 12 -> 1; then 12 stays in 1, 13 -> 1 (full), 14, 15 -> 2, 16 -> 3 */
    int64_t rec[5];
    bucket_records(path, rec, 5);
    CHECK_EQ_INT(rec[0], 2);
    CHECK_EQ_INT(rec[1], 2);
    CHECK_EQ_INT(rec[2], 2);
    CHECK_EQ_INT(rec[3], 1);
    CHECK_EQ_INT(rec[4], 0);
    sums s;
    CHECK_OK(read_sums(path, &s));
    CHECK_EQ_INT(s.rows, 7);
    CHECK_EQ_INT(s.v_of[12], 2);
    CHECK_EQ_INT(s.v_of[10], 1);
    rm_rf(dir);
    free(dir);
}

TEST(null_key_refused) {
    char *dir = make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/t", dir);
    tn_table_column_def cols[] = {{"k", tn_type_make(TN_TYPE_BIGINT), true, NULL},
                                  {"v", tn_type_make(TN_TYPE_BIGINT), true, NULL}};
    tn_delta_kv conf[] = {{"primary-key", "k"}, {"bucket", "2"}};
    tn_table_create_options co = TN_TABLE_CREATE_OPTIONS_INIT;
    co.columns = cols;
    co.ncolumns = 2;
    co.configuration = conf;
    co.nconfiguration = 2;
    CHECK_OK(tn_table_create(tn_fs_default(), path, &co));
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    tn_layout_writer *w = NULL;
    CHECK_OK(tn_layout_writer_open(&w, t, NULL));
    tn_type types[2] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_BIGINT)};
    tn_chunk c;
    CHECK_OK(tn_chunk_init(&c, 2, types, 2));
    c.count = c.cols[0].count = c.cols[1].count = 2;
    CHECK_OK(tn_vector_set_null(&c.cols[0], 1));
    int rc = tn_layout_writer_write(w, &c);
    tn_chunk_free(&c);
    CHECK_EQ_INT(rc, TN_ECONSTRAINT);
    CHECK(strstr(tn_error_message(), "NULL in primary key column 'k'") != NULL);
    tn_layout_writer_abort(w);
    CHECK_EQ_INT(tn_table_version(t), 0);
    tn_table_close(t);
    rm_rf(dir);
    free(dir);
}

TEST_MAIN()
