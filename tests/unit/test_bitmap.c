/*
 * tests/unit/test_bitmap.c: the bitmap layer against bytes written by Java RoaringBitmap and
 * CRoaring (tests/data/roaring: decoded sets, byte-identical re-serialization), malformed values
 * (named errors with byte offsets), and random sets checked against a sorted-array model and
 * against CRoaring's own reader of the bytes we write (thousands of cases per run); the OR
 * accumulator of the bitmap() aggregate against the same model, on bytes we and CRoaring write.
 */
#include <roaring/roaring.h>

#include "base/base.h"
#include "bitmap/bitmap.h"
#include "testlib.h"

static int read_golden(const char *name, tn_buf *out) {
    char path[512];
    snprintf(path, sizeof path, "%s/roaring/%s", tn_test_data_dir(), name);
    return tn_fs_read_all(tn_fs_default(), path, out);
}

/* S of the golden 32-bit files: multiples of 1000 in [0, 100000), 3k for k in [100000, 200000),
 * [700000, 800000). */
static bool in_S(uint64_t v) {
    if (v < 100000) return v % 1000 == 0;
    if (v >= 300000 && v < 600000) return v % 3 == 0;
    return v >= 700000 && v < 800000;
}

typedef struct collect {
    uint64_t *v;
    size_t n, cap;
} collect;

static int collect_cb(void *ctx, uint64_t v) {
    collect *c = ctx;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1024;
        c->v = realloc(c->v, c->cap * sizeof *c->v);
    }
    c->v[c->n++] = v;
    return 0;
}

TEST(golden_32bit_sets) {
    const char *files[] = {"bitmapwithoutruns.bin", "bitmapwithruns.bin"};
    for (int f = 0; f < 2; f++) {
        tn_buf b = TN_BUF_INIT;
        CHECK_OK(read_golden(files[f], &b));
        tn_bitmap_info info;
        CHECK_OK(tn_bitmap_validate(b.data, b.len, &info));
        CHECK(!info.is64);
        CHECK_EQ_INT(info.cardinality, 200100);
        tn_bitmap *bm = NULL;
        CHECK_OK(tn_bitmap_decode(&bm, b.data, b.len));
        CHECK_EQ_INT(tn_bitmap_cardinality(bm), 200100);
        collect c = {0};
        CHECK_OK(tn_bitmap_iterate(bm, collect_cb, &c));
        CHECK_EQ_INT(c.n, 200100);
        size_t expect = 0;
        for (uint64_t v = 0; v < 800000; v++)
            if (in_S(v)) {
                CHECK_MSG(c.v[expect] == v, "%s: value %zu is %llu, expected %llu", files[f], expect,
                          (unsigned long long)c.v[expect], (unsigned long long)v);
                expect++;
            }
        uint64_t mn = 1, mx = 0;
        CHECK(tn_bitmap_min(bm, &mn) && mn == 0);
        CHECK(tn_bitmap_max(bm, &mx) && mx == 799999);
        free(c.v);
        tn_bitmap_free(bm);
        tn_buf_free(&b);
    }
}

/* The same set, written by tarn, is byte for byte what Java wrote after runOptimize(): from the
 * decoded files, straight from the bytes, and from a set built value by value as Java's example
 * program builds it. The run-free file becomes the run file (Java's runOptimize makes the runs). */
TEST(golden_32bit_bytes) {
    tn_buf runs = TN_BUF_INIT, noruns = TN_BUF_INIT, out = TN_BUF_INIT;
    CHECK_OK(read_golden("bitmapwithruns.bin", &runs));
    CHECK_OK(read_golden("bitmapwithoutruns.bin", &noruns));
    tn_buf *srcs[2] = {&runs, &noruns};
    for (int i = 0; i < 2; i++) {
        tn_bitmap *bm = NULL;
        CHECK_OK(tn_bitmap_decode(&bm, srcs[i]->data, srcs[i]->len));
        tn_buf_clear(&out);
        CHECK_OK(tn_bitmap_serialize(bm, TN_BITMAP_AUTO, &out));
        CHECK_EQ_INT(out.len, runs.len);
        CHECK(memcmp(out.data, runs.data, runs.len) == 0);
        tn_bitmap_free(bm);
        tn_buf_clear(&out);
        CHECK_OK(tn_bitmap_reserialize(srcs[i]->data, srcs[i]->len, TN_BITMAP_AUTO, &out));
        CHECK_EQ_INT(out.len, runs.len);
        CHECK(memcmp(out.data, runs.data, runs.len) == 0);
    }
    tn_bitmap *bm = tn_bitmap_create();
    for (uint32_t k = 0; k < 100000; k += 1000) CHECK_OK(tn_bitmap_add(bm, k));
    for (uint32_t k = 100000; k < 200000; ++k) CHECK_OK(tn_bitmap_add(bm, 3 * k));
    for (uint32_t k = 700000; k < 800000; ++k) CHECK_OK(tn_bitmap_add(bm, k));
    tn_buf_clear(&out);
    CHECK_OK(tn_bitmap_serialize(bm, TN_BITMAP_AUTO, &out));
    CHECK_EQ_INT(out.len, runs.len);
    CHECK(memcmp(out.data, runs.data, runs.len) == 0);
    tn_bitmap_free(bm);
    tn_buf_free(&runs);
    tn_buf_free(&noruns);
    tn_buf_free(&out);
}

TEST(golden_64bit) {
    tn_buf b = TN_BUF_INIT, out = TN_BUF_INIT;
    CHECK_OK(read_golden("bitmap64.bin", &b));
    tn_bitmap_info info;
    CHECK_OK(tn_bitmap_validate(b.data, b.len, &info));
    CHECK(info.is64);
    CHECK_EQ_INT(info.buckets, 3);
    CHECK_EQ_INT(info.cardinality, 1032769);
    tn_bitmap *bm = NULL;
    CHECK_OK(tn_bitmap_decode(&bm, b.data, b.len));
    /* evens in [0, 65536), [2^32, 2^32 + 1000000), 2^48 */
    collect c = {0};
    CHECK_OK(tn_bitmap_iterate(bm, collect_cb, &c));
    CHECK_EQ_INT(c.n, 1032769);
    size_t i = 0;
    for (uint64_t v = 0; v < 65536; v += 2) CHECK(c.v[i++] == v);
    for (uint64_t v = 1ull << 32; v < (1ull << 32) + 1000000; v++) CHECK(c.v[i++] == v);
    CHECK(c.v[i++] == 1ull << 48);
    free(c.v);
    CHECK_OK(tn_bitmap_serialize(bm, TN_BITMAP_AUTO, &out));
    CHECK_EQ_INT(out.len, b.len);
    CHECK(memcmp(out.data, b.data, b.len) == 0);
    tn_bitmap_free(bm);
    tn_buf_clear(&b);
    tn_buf_clear(&out);
    /* two buckets (0 and 1), each: [0, 0x9000] u [0xA000, 0xFFFF], 0x10000, 0x20000, 0x20005,
     * evens in [0x80000, 0x90000) */
    CHECK_OK(read_golden("portable_bitmap64.bin", &b));
    CHECK_OK(tn_bitmap_validate(b.data, b.len, &info));
    CHECK(info.is64);
    CHECK_EQ_INT(info.buckets, 2);
    CHECK_EQ_INT(info.cardinality, 188424);
    CHECK_OK(tn_bitmap_decode(&bm, b.data, b.len));
    for (uint64_t hi = 0; hi < 2; hi++) {
        uint64_t base = hi << 32;
        CHECK(tn_bitmap_contains(bm, base + 0x9000) && !tn_bitmap_contains(bm, base + 0x9001));
        CHECK(tn_bitmap_contains(bm, base + 0xA000) && tn_bitmap_contains(bm, base + 0x20005));
        CHECK(tn_bitmap_contains(bm, base + 0x80000) && !tn_bitmap_contains(bm, base + 0x80001));
    }
    CHECK_OK(tn_bitmap_serialize(bm, TN_BITMAP_AUTO, &out));
    CHECK_EQ_INT(out.len, b.len);
    CHECK(memcmp(out.data, b.data, b.len) == 0);
    tn_bitmap_free(bm);
    tn_buf_free(&b);
    tn_buf_free(&out);
}

/* Malformed values: each must fail with TN_ECORRUPT and a message naming the problem and byte. */
static int expect_bad(const void *p, size_t n, const char *want) {
    tn_bitmap *bm = NULL;
    int rc = tn_bitmap_decode(&bm, p, n);
    tn_bitmap_free(bm);
    if (rc != TN_ECORRUPT) return 1;
    if (want && !strstr(tn_error_message(), want)) return 2;
    return 0;
}

#define CHECK_BAD(p, n, want)                                                                \
    do {                                                                                     \
        int r_ = expect_bad(p, n, want);                                                     \
        CHECK_MSG(r_ == 0, "expected an error containing '%s', got %s", want,                \
                  r_ == 1 ? "no TN_ECORRUPT" : tn_error_message());                          \
    } while (0)

TEST(malformed) {
    uint8_t java[] = {0xAC, 0xED, 0x00, 0x05, 0x73, 0x72, 0x00, 0x1f, 0x6f, 0x72, 0x67};
    CHECK_BAD(java, sizeof java, "Java object serialization (AC ED 00 05)");
    CHECK_BAD("", 0, "byte 0: truncated");
    uint8_t cookie_only[] = {0x3a, 0x30, 0, 0};
    CHECK_BAD(cookie_only, 4, "byte 4: truncated container count");
    /* {1, 2} as an array container: 3a300000 01000000 | key 0 card-1 1 | offset 16 | 1, 2 */
    uint8_t ok[] = {0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 1, 0, 2, 0};
    tn_bitmap *bm = NULL;
    CHECK_OK(tn_bitmap_decode(&bm, ok, sizeof ok));
    CHECK_EQ_INT(tn_bitmap_cardinality(bm), 2);
    tn_bitmap_free(bm);
    uint8_t t[sizeof ok];
    for (size_t n = 0; n < sizeof ok; n++) CHECK_MSG(expect_bad(ok, n, NULL) == 0, "prefix %zu accepted", n);
    memcpy(t, ok, sizeof ok);
    t[16] = 2; t[18] = 1;                                   /* 2, 1 */
    CHECK_BAD(t, sizeof t, "byte 18: container 0 (key 0): array value 1 after 2");
    memcpy(t, ok, sizeof ok);
    t[18] = 1;                                              /* 1, 1: duplicate */
    CHECK_BAD(t, sizeof t, "array value 1 after 1");
    memcpy(t, ok, sizeof ok);
    t[12] = 17;
    CHECK_BAD(t, sizeof t, "byte 12: container 0 (key 0): offset 17, but the container starts at byte 16");
    memcpy(t, ok, sizeof ok);
    t[0] = 0x39;
    CHECK_BAD(t, sizeof t, "not a 32-bit bitmap (no cookie 12346/12347)");
    uint8_t trailing[sizeof ok + 1];
    memcpy(trailing, ok, sizeof ok);
    trailing[sizeof ok] = 0;
    CHECK_BAD(trailing, sizeof trailing, "byte 20: 1 bytes after the end");
    /* two containers with keys 5, 5 and 5, 3 */
    uint8_t two[] = {0x3a, 0x30, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 24, 0, 0, 0, 26, 0, 0, 0, 1, 0, 1, 0};
    CHECK_BAD(two, sizeof two, "byte 12: container 1: key 5 after key 5");
    two[12] = 3;
    CHECK_BAD(two, sizeof two, "container 1: key 3 after key 5");
    /* run container: 3b300000 | flags 01 | key 0 card-1 | nruns 1 | start, len-1 */
    uint8_t run[] = {0x3b, 0x30, 0, 0, 1, 0, 0, 9, 0, 1, 0, 10, 0, 9, 0};
    CHECK_OK(tn_bitmap_decode(&bm, run, sizeof run));
    CHECK_EQ_INT(tn_bitmap_cardinality(bm), 10);
    CHECK(tn_bitmap_contains(bm, 10) && tn_bitmap_contains(bm, 19) && !tn_bitmap_contains(bm, 20));
    tn_bitmap_free(bm);
    uint8_t r2[sizeof run];
    memcpy(r2, run, sizeof run);
    r2[7] = 8;                                              /* card 9 vs 10 in the run */
    CHECK_BAD(r2, sizeof r2, "byte 5: container 0 (key 0): cardinality 9, but its runs hold 10 values");
    memcpy(r2, run, sizeof run);
    r2[11] = 0xfa; r2[12] = 0xff;                           /* start 65530, length 10 */
    CHECK_BAD(r2, sizeof r2, "goes past 65535");
    memcpy(r2, run, sizeof run);
    r2[9] = 0;                                              /* zero runs */
    CHECK_BAD(r2, sizeof r2, "run container with no runs");
    /* overlapping runs: [10, 19] and [15, 16] */
    uint8_t ov[] = {0x3b, 0x30, 0, 0, 1, 0, 0, 11, 0, 2, 0, 10, 0, 9, 0, 15, 0, 1, 0};
    CHECK_BAD(ov, sizeof ov, "byte 15: container 0 (key 0): run 1 starts at 15, overlapping");
    /* bitset with the wrong cardinality */
    uint8_t bs[16 + 8192];
    memset(bs, 0, sizeof bs);
    uint8_t hdr[] = {0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0x00, 0x10, 16, 0, 0, 0};   /* card 4097 */
    memcpy(bs, hdr, sizeof hdr);
    memset(bs + 16, 0xff, 4096 / 8);                        /* 4096 bits */
    CHECK_BAD(bs, sizeof bs, "cardinality 4097, but its bitset holds 4096 values");
    bs[16 + 512] = 1;
    CHECK_OK(tn_bitmap_decode(&bm, bs, sizeof bs));
    CHECK_EQ_INT(tn_bitmap_cardinality(bm), 4097);
    tn_bitmap_free(bm);
    CHECK_BAD(bs, sizeof bs - 1, "truncated bitset container");
    /* a StarRocks bitmap_to_binary value: type byte 2 + the portable bytes of {0,1,2,3} */
    uint8_t sr[] = {0x02, 0x3A, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x10, 0x00,
                    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00};
    CHECK_BAD(sr, sizeof sr, "Doris/StarRocks");
    CHECK_OK(tn_bitmap_decode(&bm, sr + 1, sizeof sr - 1));
    CHECK_EQ_INT(tn_bitmap_cardinality(bm), 4);
    tn_bitmap_free(bm);
    /* 64-bit: keys out of order, truncated, trailing */
    uint8_t e32[] = {0x3a, 0x30, 0, 0, 0, 0, 0, 0};
    uint8_t b64[8 + 2 * (4 + 8)];
    memset(b64, 0, sizeof b64);
    b64[0] = 2;
    b64[8] = 7; memcpy(b64 + 12, e32, 8);
    b64[20] = 7; memcpy(b64 + 24, e32, 8);
    CHECK_BAD(b64, sizeof b64, "byte 20: 64-bit bucket 1: high key 7 after 7");
    b64[20] = 8;
    CHECK_OK(tn_bitmap_decode(&bm, b64, sizeof b64));
    CHECK(tn_bitmap_is_empty(bm));
    tn_bitmap_free(bm);
    CHECK_BAD(b64, sizeof b64 - 1, "2 buckets do not fit in 31 bytes");
    b64[0] = 200;
    CHECK_BAD(b64, sizeof b64, "buckets do not fit");
}

/* Every prefix of the golden files and every single-byte corruption of their headers fails
 * cleanly or decodes to a valid set (never a crash: ASan runs this). */
TEST(golden_prefixes_and_flips) {
    const char *files[] = {"bitmapwithruns.bin", "bitmapwithoutruns.bin", "bitmap64.bin", "portable_bitmap64.bin"};
    for (int f = 0; f < 4; f++) {
        tn_buf b = TN_BUF_INIT;
        CHECK_OK(read_golden(files[f], &b));
        for (size_t n = 0; n < b.len; n += n < 300 ? 1 : 997)
            CHECK_MSG(expect_bad(b.data, n, NULL) == 0, "%s: prefix of %zu bytes accepted", files[f], n);
        uint8_t *t = malloc(b.len);
        for (size_t i = 0; i < 120 && i < b.len; i++) {
            for (int bit = 0; bit < 8; bit++) {
                memcpy(t, b.data, b.len);
                t[i] ^= (uint8_t)(1 << bit);
                tn_bitmap *bm = NULL;
                int rc = tn_bitmap_decode(&bm, t, b.len);
                CHECK_MSG(rc == 0 || rc == TN_ECORRUPT, "%s: flip at %zu: rc %d", files[f], i, rc);
                if (rc == 0) {
                    tn_buf o = TN_BUF_INIT;
                    CHECK_OK(tn_bitmap_serialize(bm, TN_BITMAP_AUTO, &o));
                    tn_buf_free(&o);
                }
                tn_bitmap_free(bm);
            }
        }
        free(t);
        tn_buf_free(&b);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Random sets against a sorted-array model.
 */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A random set: sparse, dense, runs, 64-bit or empty; sorted and unique. */
static size_t random_set(uint64_t *v, size_t cap, int shape) {
    size_t n = 0;
    switch (shape) {
    case 0: break;                                                           /* empty */
    case 1: for (size_t i = 0, m = rnd() % 200; i < m; i++) v[n++] = rnd() % 1000000; break;   /* sparse */
    case 2: for (size_t i = 0, m = 5000 + rnd() % 20000; i < m; i++) v[n++] = rnd() % 70000; break;   /* dense */
    case 3: {                                                                /* runs */
        uint64_t at = rnd() % 1000;
        for (int r = 0, m = 1 + (int)(rnd() % 20); r < m && n < cap - 5000; r++) {
            uint64_t len = 1 + rnd() % 3000;
            for (uint64_t k = 0; k < len; k++) v[n++] = at + k;
            at += len + 1 + rnd() % 5000;
        }
        break;
    }
    case 4: {                                                                /* 64-bit */
        for (size_t i = 0, m = rnd() % 300; i < m; i++) {
            uint64_t hi = rnd() % 4;
            v[n++] = (hi == 3 ? UINT64_MAX - (rnd() % 1000) : (hi << 32) + rnd() % 200000);
        }
        break;
    }
    default: {                                                               /* mixed 32-bit */
        for (size_t i = 0, m = rnd() % 3000; i < m; i++) v[n++] = rnd() & 0xffffffffu;
        for (size_t i = 0, m = rnd() % 3000; i < m; i++) v[n++] = 65536 * 3 + i;
        break;
    }
    }
    qsort(v, n, sizeof *v, cmp_u64);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (w == 0 || v[w - 1] != v[i]) v[w++] = v[i];
    return w;
}

static size_t model_op(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, int op, uint64_t *out) {
    size_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        bool ta = i < na && (j >= nb || a[i] <= b[j]);
        bool tb = j < nb && (i >= na || b[j] <= a[i]);
        uint64_t v = ta ? a[i] : b[j];
        bool keep = op == 0 ? true : op == 1 ? (ta && tb) : op == 2 ? (ta != tb) : (ta && !tb);
        if (keep) out[n++] = v;
        if (ta) i++;
        if (tb) j++;
    }
    return n;
}

static bool same_as(const tn_bitmap *bm, const uint64_t *v, size_t n) {
    collect c = {0};
    if (tn_bitmap_iterate(bm, collect_cb, &c)) return false;
    bool ok = c.n == n && (n == 0 || memcmp(c.v, v, n * sizeof *v) == 0);
    free(c.v);
    return ok && tn_bitmap_cardinality(bm) == n;
}

TEST(random_against_model) {
    enum { CAP = 60000 };
    uint64_t *a = malloc(CAP * 8), *b = malloc(CAP * 8), *m = malloc(2 * CAP * 8);
    int cases = 0;
    for (int iter = 0; iter < 1500; iter++) {
        size_t na = random_set(a, CAP, (int)(rnd() % 6)), nb = random_set(b, CAP, (int)(rnd() % 6));
        tn_bitmap *A = tn_bitmap_create(), *B = tn_bitmap_create();
        CHECK_OK(tn_bitmap_add_many(A, a, na));
        CHECK_OK(tn_bitmap_add_many(B, b, nb));
        CHECK(same_as(A, a, na));
        /* serialize, validate, decode: the same set; CRoaring reads the 32-bit bytes the same */
        tn_buf s = TN_BUF_INIT;
        CHECK_OK(tn_bitmap_serialize(A, TN_BITMAP_AUTO, &s));
        tn_bitmap_info info;
        CHECK_OK(tn_bitmap_validate(s.data, s.len, &info));
        CHECK_EQ_INT(info.cardinality, na);
        bool high = na && a[na - 1] > 0xffffffffu;
        CHECK(info.is64 == high);
        if (!high) {
            roaring_bitmap_t *cr = roaring_bitmap_portable_deserialize_safe((const char *)s.data, s.len);
            CHECK(cr && roaring_bitmap_get_cardinality(cr) == na);
            for (size_t i = 0; i < na; i += 1 + na / 50) CHECK(roaring_bitmap_contains(cr, (uint32_t)a[i]));
            roaring_bitmap_free(cr);
        }
        tn_bitmap *D = NULL;
        CHECK_OK(tn_bitmap_decode(&D, s.data, s.len));
        CHECK(same_as(D, a, na));
        /* re-serializing the bytes gives the same bytes */
        tn_buf s2 = TN_BUF_INIT;
        CHECK_OK(tn_bitmap_reserialize(s.data, s.len, TN_BITMAP_AUTO, &s2));
        CHECK(s2.len == s.len && memcmp(s2.data, s.data, s.len) == 0);
        tn_buf_clear(&s2);
        CHECK_OK(tn_bitmap_serialize(A, TN_BITMAP_64, &s2));
        tn_bitmap *D64 = NULL;
        CHECK_OK(tn_bitmap_decode(&D64, s2.data, s2.len));
        CHECK(same_as(D64, a, na));
        tn_bitmap_free(D64);
        tn_buf_free(&s2);
        tn_buf_free(&s);
        tn_bitmap_free(D);
        /* OR into bytes */
        tn_buf sb = TN_BUF_INIT;
        CHECK_OK(tn_bitmap_serialize(B, TN_BITMAP_AUTO, &sb));
        tn_bitmap *O = tn_bitmap_copy(A);
        CHECK_OK(tn_bitmap_or_bytes(O, sb.data, sb.len));
        size_t nm = model_op(a, na, b, nb, 0, m);
        CHECK(same_as(O, m, nm));
        tn_bitmap_free(O);
        tn_buf_free(&sb);
        /* the algebra */
        for (int op = 0; op < 4; op++) {
            nm = model_op(a, na, b, nb, op, m);
            tn_bitmap *R = tn_bitmap_copy(A);
            CHECK_OK(op == 0 ? tn_bitmap_or(R, B) : op == 1 ? tn_bitmap_and(R, B) : op == 2 ? tn_bitmap_xor(R, B)
                                                                                          : tn_bitmap_andnot(R, B));
            CHECK_MSG(same_as(R, m, nm), "iter %d op %d", iter, op);
            uint64_t card = op == 0 ? tn_bitmap_or_cardinality(A, B) : op == 1 ? tn_bitmap_and_cardinality(A, B)
                          : op == 2 ? tn_bitmap_xor_cardinality(A, B) : tn_bitmap_andnot_cardinality(A, B);
            CHECK_EQ_INT(card, nm);
            tn_bitmap_free(R);
            cases++;
        }
        size_t nand = model_op(a, na, b, nb, 1, m);
        CHECK(tn_bitmap_intersects(A, B) == (nand > 0));
        CHECK(tn_bitmap_is_subset(A, B) == (nand == na));
        /* elements, min/max, subsets */
        uint64_t x;
        CHECK(tn_bitmap_min(A, &x) == (na > 0) && (na == 0 || x == a[0]));
        CHECK(tn_bitmap_max(A, &x) == (na > 0) && (na == 0 || x == a[na - 1]));
        if (na) {
            size_t k = rnd() % na;
            CHECK(tn_bitmap_contains(A, a[k]));
            uint64_t lo = a[rnd() % na], hi = lo + rnd() % 100000, lim = rnd() % 500, off = rnd() % (na + 3);
            tn_bitmap *S = NULL;
            CHECK_OK(tn_bitmap_subset_range(&S, A, lo, hi));
            nm = 0;
            for (size_t i = 0; i < na; i++) if (a[i] >= lo && a[i] < hi) m[nm++] = a[i];
            CHECK(same_as(S, m, nm));
            tn_bitmap_free(S);
            CHECK_OK(tn_bitmap_subset_limit(&S, A, lo, lim));
            nm = 0;
            for (size_t i = 0; i < na && nm < lim; i++) if (a[i] >= lo) m[nm++] = a[i];
            CHECK(same_as(S, m, nm));
            tn_bitmap_free(S);
            CHECK_OK(tn_bitmap_sub(&S, A, off, lim));
            nm = 0;
            for (size_t i = off; i < na && nm < lim; i++) m[nm++] = a[i];
            CHECK(same_as(S, m, nm));
            tn_bitmap_free(S);
            CHECK_OK(tn_bitmap_remove(A, a[k]));
            CHECK(!tn_bitmap_contains(A, a[k]) && tn_bitmap_cardinality(A) == na - 1);
        }
        tn_bitmap_free(A);
        tn_bitmap_free(B);
    }
    CHECK(cases >= 6000);
    free(a);
    free(b);
    free(m);
}

/* The OR accumulator (tn_bitmap_acc): k random values, each as our bytes or CRoaring's (with
 * run containers after run_optimize), OR-ed into two accumulators that are then merged; the
 * union, its cardinality and its bytes against the sorted-array model. Small sets in one
 * container cross the array/bitset switch of the accumulator at every size. */
TEST(accumulator_against_model) {
    enum { CAP = 140000, K = 8 };
    uint64_t *v = malloc(CAP * 8), *u = malloc((size_t)K * CAP * 8), *t = malloc((size_t)K * CAP * 8);
    int cases = 0;
    for (int iter = 0; iter < 600; iter++) {
        tn_bitmap_acc *A = tn_bitmap_acc_create(), *B = tn_bitmap_acc_create();
        size_t nu = 0;
        int k = 1 + (int)(rnd() % K);
        for (int j = 0; j < k; j++) {
            int shape = (int)(rnd() % 9);
            size_t n;
            if (shape == 8) { /* a range covering a whole container (held as "full") */
                uint64_t base = (rnd() % 3) * 65536 + rnd() % 2 * (rnd() % 65536);
                n = 65536 + rnd() % 1000;
                for (size_t i = 0; i < n; i++) v[i] = base + i;
            } else if (shape >= 6) { /* small, one container: 1..400 values below 2048 or 65536 */
                n = 1 + rnd() % 400;
                uint64_t span = rnd() % 2 ? 2048 : 65536;
                for (size_t i = 0; i < n; i++) v[i] = rnd() % span;
                qsort(v, n, sizeof *v, cmp_u64);
                size_t w = 0;
                for (size_t i = 0; i < n; i++) if (w == 0 || v[w - 1] != v[i]) v[w++] = v[i];
                n = w;
            } else {
                n = random_set(v, CAP, shape);
            }
            tn_buf s = TN_BUF_INIT;
            bool high = n && v[n - 1] > 0xffffffffu;
            if (!high && rnd() % 2) { /* CRoaring's bytes */
                roaring_bitmap_t *cr = roaring_bitmap_create();
                for (size_t i = 0; i < n; i++) roaring_bitmap_add(cr, (uint32_t)v[i]);
                roaring_bitmap_run_optimize(cr);
                size_t len = roaring_bitmap_portable_size_in_bytes(cr);
                CHECK_OK(tn_buf_reserve(&s, len));
                s.len = roaring_bitmap_portable_serialize(cr, (char *)s.data);
                roaring_bitmap_free(cr);
            } else {
                tn_bitmap *b = tn_bitmap_create();
                CHECK_OK(tn_bitmap_add_many(b, v, n));
                CHECK_OK(tn_bitmap_serialize(b, rnd() % 4 ? TN_BITMAP_AUTO : TN_BITMAP_64, &s));
                tn_bitmap_free(b);
            }
            CHECK_OK(tn_bitmap_acc_or_bytes(j % 2 ? B : A, s.data, s.len));
            tn_buf_free(&s);
            nu = model_op(u, nu, v, n, 0, t);
            memcpy(u, t, nu * sizeof *u);
        }
        if (rnd() % 2) CHECK_OK(tn_bitmap_acc_merge(A, B));
        else {
            CHECK_OK(tn_bitmap_acc_merge(B, A));
            tn_bitmap_acc *x = A;
            A = B;
            B = x;
        }
        CHECK_MSG(tn_bitmap_acc_cardinality(A) == nu, "iter %d: cardinality %llu, model %zu", iter,
                  (unsigned long long)tn_bitmap_acc_cardinality(A), nu);
        tn_bitmap *R = NULL;
        CHECK_OK(tn_bitmap_acc_to_bitmap(A, &R));
        CHECK_MSG(same_as(R, u, nu), "iter %d", iter);
        /* merging the same sets again changes nothing; the source of a merge is unchanged */
        uint64_t nb = tn_bitmap_acc_cardinality(B);
        CHECK_OK(tn_bitmap_acc_merge(A, B));
        CHECK(tn_bitmap_acc_cardinality(A) == nu && tn_bitmap_acc_cardinality(B) == nb);
        tn_bitmap_free(R);
        tn_bitmap_acc_free(A);
        tn_bitmap_acc_free(B);
        cases++;
    }
    /* bytes that are not a bitmap: the validator's error, whatever came before */
    tn_bitmap_acc *A = tn_bitmap_acc_create();
    static const uint8_t java[] = {0xAC, 0xED, 0x00, 0x05, 0x73, 0x72};
    CHECK(tn_bitmap_acc_or_bytes(A, java, sizeof java) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "Java object serialization") != NULL);
    static const uint8_t unsorted[] = {0x3A, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 5, 0, 3, 0};
    CHECK(tn_bitmap_acc_or_bytes(A, unsorted, sizeof unsorted) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "ascend") != NULL);
    tn_bitmap_acc_free(A);
    CHECK(cases == 600);
    free(v);
    free(u);
    free(t);
}

/* Container choices: Java's runOptimize rules at their edges. */
TEST(java_container_choices) {
    struct { uint64_t lo, hi; int expect_run; } cases[] = {
        {5, 7, 0},        /* 3 values, 1 run: array 6 bytes vs run 6: Java keeps the array */
        {5, 8, 1},        /* 4 values: array 8 > run 6 */
        {0, 65535, 1},    /* full container: run */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tn_bitmap *bm = tn_bitmap_create();
        CHECK_OK(tn_bitmap_add_range(bm, cases[i].lo, cases[i].hi));
        tn_buf s = TN_BUF_INIT;
        CHECK_OK(tn_bitmap_serialize(bm, TN_BITMAP_32, &s));
        uint32_t cookie = tn_load_u32le(s.data) & 0xffff;
        CHECK_EQ_INT(cookie, cases[i].expect_run ? 12347 : 12346);
        tn_buf_free(&s);
        tn_bitmap_free(bm);
    }
    /* 2048 runs in a bitset-sized container: 8192 > 2 + 4 * 2047 but not 2 + 4 * 2048 */
    for (int nr = 2047; nr <= 2048; nr++) {
        tn_bitmap *bm = tn_bitmap_create();
        for (int r = 0; r < nr; r++) CHECK_OK(tn_bitmap_add_range(bm, (uint64_t)r * 32, (uint64_t)r * 32 + 3));
        tn_buf s = TN_BUF_INIT;
        CHECK_OK(tn_bitmap_serialize(bm, TN_BITMAP_32, &s));
        CHECK_EQ_INT(tn_load_u32le(s.data) & 0xffff, nr == 2047 ? 12347 : 12346);
        CHECK_EQ_INT(s.len, nr == 2047 ? 4 + 1 + 4 + 2 + 4 * 2047 : 8 + 4 + 4 + 8192);
        tn_buf_free(&s);
        tn_bitmap_free(bm);
    }
    /* the empty bitmap: 3a300000 00000000 */
    tn_bitmap *bm = tn_bitmap_create();
    tn_buf s = TN_BUF_INIT;
    CHECK_OK(tn_bitmap_serialize(bm, TN_BITMAP_AUTO, &s));
    CHECK_EQ_INT(s.len, 8);
    CHECK(memcmp(s.data, "\x3a\x30\0\0\0\0\0\0", 8) == 0);
    tn_buf_clear(&s);
    CHECK_OK(tn_bitmap_add(bm, 1ull << 40));
    CHECK(tn_bitmap_serialize(bm, TN_BITMAP_32, &s) == TN_ELIMIT);
    tn_buf_free(&s);
    tn_bitmap_free(bm);
}

TEST_MAIN()
