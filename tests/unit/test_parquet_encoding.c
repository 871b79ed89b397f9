/*
 * tests/unit/test_parquet_encoding.c: value encodings (encoding.c) and codecs (codec.c): known
 * byte strings from Encodings.md, random round trips incl. extremes, hostile input, and a small
 * page walker that decodes real golden files (delta encodings, byte stream split, RLE booleans,
 * dictionaries, GZIP members, Hadoop LZ4) and compares them with the upstream/DuckDB CSVs.
 */
#include "parquet/parquetInt.h"
#include "testlib.h"

#include <lz4.h>

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}

static const char *golden_root(void) {
    static char root[600];
    snprintf(root, sizeof root, "%s/parquet", tn_test_data_dir());
    return root;
}

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
    if (n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* ---------------------------------------------------------------------------------------------
 * RLE / bit-packing hybrid.
 */
TEST(rle_known_bytes) {
    /* Encodings.md: values 0..7 at width 3, one bit-packed group: 03 88 C6 FA */
    static const uint8_t bp[] = {0x03, 0x88, 0xc6, 0xfa};
    uint32_t out[8];
    size_t used;
    CHECK_OK(pq_rle_decode(bp, sizeof bp, 3, out, 8, &used));
    CHECK_EQ_INT(used, 4);
    for (uint32_t i = 0; i < 8; i++) CHECK_EQ_INT(out[i], i);
    uint32_t vals[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    tn_buf b = TN_BUF_INIT;
    CHECK_OK(pq_rle_encode(&b, 3, vals, 8));
    CHECK(b.len == 4 && memcmp(b.data, bp, 4) == 0);
    tn_buf_free(&b);
    /* rle_boolean_encoding.parquet v2 rep levels: 88 01 = RLE run of 68 zeros at width 0 */
    static const uint8_t w0[] = {0x88, 0x01};
    uint32_t z[68];
    memset(z, 0xff, sizeof z);
    CHECK_OK(pq_rle_decode(w0, sizeof w0, 0, z, 68, &used));
    CHECK_EQ_INT(used, 2);
    for (int i = 0; i < 68; i++) CHECK_EQ_INT(z[i], 0);
    /* RLE run: 10 x value 300 at width 9 (2 value bytes): 14 2c 01 */
    static const uint8_t r[] = {0x14, 0x2c, 0x01};
    uint32_t rv[10];
    CHECK_OK(pq_rle_decode(r, sizeof r, 9, rv, 10, &used));
    for (int i = 0; i < 10; i++) CHECK_EQ_INT(rv[i], 300);
    uint32_t ten[10];
    for (int i = 0; i < 10; i++) ten[i] = 300;
    CHECK_OK(pq_rle_encode(&b, 9, ten, 10));
    CHECK(b.len == 3 && memcmp(b.data, r, 3) == 0);
    tn_buf_free(&b);
    /* a bit-packed run padded past the needed count: stop at the count */
    uint32_t five[5];
    CHECK_OK(pq_rle_decode(bp, sizeof bp, 3, five, 5, &used));
    CHECK_EQ_INT(used, 4);
    CHECK_EQ_INT(five[4], 4);
    /* width 33 is refused, short input is an error */
    CHECK(pq_rle_decode(bp, sizeof bp, 33, out, 8, &used) == TN_ECORRUPT);
    CHECK(pq_rle_decode(bp, 3, 3, out, 8, &used) == TN_ECORRUPT);
    CHECK(pq_rle_decode(bp, sizeof bp, 3, out, 9, &used) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "RLE") != NULL);
    CHECK_EQ_INT(pq_bit_width(0), 0);
    CHECK_EQ_INT(pq_bit_width(1), 1);
    CHECK_EQ_INT(pq_bit_width(255), 8);
    CHECK_EQ_INT(pq_bit_width(256), 9);
    CHECK_EQ_INT(pq_bit_width(UINT64_MAX), 64);
}

static void gen_values(uint32_t *v, uint32_t n, int w, int pattern) {
    uint32_t mask = w == 32 ? 0xffffffffu : (w == 0 ? 0 : ((1u << w) - 1));
    uint32_t cur = (uint32_t)rnd() & mask;
    for (uint32_t i = 0; i < n; i++) {
        switch (pattern) {
        case 0: v[i] = (uint32_t)rnd() & mask; break;                          /* random */
        case 1: if (rnd() % 20 == 0) cur = (uint32_t)rnd() & mask; v[i] = cur; break;   /* runs */
        case 2: v[i] = (rnd() % 2) ? mask : 0; break;                          /* extremes */
        default: if (rnd() % 3 == 0) cur = (uint32_t)rnd() & mask; v[i] = (i / 7) % 2 ? cur : (uint32_t)rnd() & mask; break;
        }
    }
}

/* The run stream (pq_rle_*), which the scan reads dictionary indices and definition levels
 * with: any mix of chunk sizes and skips gives what pq_rle_decode gave (want), and ends where it
 * ended (used). */
static bool stream_matches(const uint8_t *buf, size_t len, int w, const uint32_t *want, uint32_t n,
                           size_t used) {
    uint32_t e[70], got = 0;
    pq_rle_stream r;
    pq_rle_init(&r, buf, len, w);
    while (got < n) {
        if (r.left == 0 && pq_rle_next_run(&r) != 0) return false;
        uint32_t k = 1 + (uint32_t)(rnd() % 70);
        if (k > r.left) k = r.left;
        if (k > n - got) k = n - got;
        if (rnd() % 4 == 0) {
            pq_rle_skip(&r, k);
        } else {
            if (r.packed) {
                pq_rle_unpack(&r, e, k);
            } else {
                for (uint32_t i = 0; i < k; i++) e[i] = r.value;
                pq_rle_skip(&r, k);
            }
            if (memcmp(e, want + got, k * sizeof *e) != 0) return false;
        }
        got += k;
    }
    return r.pos == used;
}

TEST(rle_roundtrip_all_widths) {
    int cases = 0;
    for (int w = 0; w <= 32; w++) {
        for (int pattern = 0; pattern < 4; pattern++) {
            static const uint32_t sizes[] = {0, 1, 7, 8, 9, 63, 64, 65, 1000, 4099};
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
                uint32_t n = sizes[si];
                uint32_t *v = malloc((n + 1) * sizeof *v), *d = malloc((n + 1) * sizeof *d);
                gen_values(v, n, w, pattern);
                tn_buf b = TN_BUF_INIT;
                CHECK_OK(pq_rle_encode(&b, w, v, n));
                /* decode from an exact-size heap copy (ASan sees any overread) */
                uint8_t *copy = malloc(b.len ? b.len : 1);
                if (b.len) memcpy(copy, b.data, b.len);
                size_t used;
                CHECK_OK(pq_rle_decode(copy, b.len, w, d, n, &used));
                CHECK_EQ_INT(used, b.len);
                CHECK_MSG(n == 0 || memcmp(v, d, n * sizeof *v) == 0, "width %d pattern %d n %u", w, pattern, n);
                CHECK_MSG(stream_matches(copy, b.len, w, d, n, used), "stream: width %d pattern %d n %u",
                          w, pattern, n);
                /* decoding a prefix of the values works too */
                if (n > 3) {
                    CHECK_OK(pq_rle_decode(copy, b.len, w, d, n - 3, &used));
                    CHECK(memcmp(v, d, (n - 3) * sizeof *v) == 0);
                }
                /* every truncation either fails or (inside a final padded run) is still right */
                for (size_t cut = 0; cut < b.len; cut += 1 + b.len / 50) {
                    uint8_t *t = malloc(cut ? cut : 1);
                    memcpy(t, b.data, cut);
                    int rc = pq_rle_decode(t, cut, w, d, n, &used);
                    CHECK(rc == TN_ECORRUPT || (rc == 0 && memcmp(v, d, n * sizeof *v) == 0));
                    free(t);
                }
                free(copy);
                tn_buf_free(&b);
                free(v);
                free(d);
                cases++;
            }
        }
    }
    /* a value wider than the bit width is refused by the encoder */
    uint32_t big = 8;
    tn_buf b = TN_BUF_INIT;
    CHECK(pq_rle_encode(&b, 3, &big, 1) == TN_EINVAL);
    tn_buf_free(&b);
    CHECK(cases > 1000);
}

TEST(rle_decode_speed_sanity) {
    /* 3M dictionary indices of width 13 (bit-packed) and 3M levels of width 1: must be fast */
    const uint32_t n = 3000000;
    uint32_t *v = malloc(n * sizeof *v), *d = malloc(n * sizeof *d);
    gen_values(v, n, 13, 0);
    tn_buf b = TN_BUF_INIT;
    CHECK_OK(pq_rle_encode(&b, 13, v, n));
    uint64_t t0 = tn_time_ns();
    size_t used;
    CHECK_OK(pq_rle_decode(b.data, b.len, 13, d, n, &used));
    uint64_t t1 = tn_time_ns();
    CHECK(memcmp(v, d, n * sizeof *v) == 0);
    printf("  3M values width 13: %.1f ms\n", (double)(t1 - t0) / 1e6);
    CHECK((t1 - t0) < 2000000000ull);
    tn_buf_free(&b);
    free(v);
    free(d);
}

TEST(rle_hostile_random) {
    uint32_t out[512];
    for (int iter = 0; iter < 50000; iter++) {
        size_t n = rnd() % 40;
        uint8_t *buf = malloc(n ? n : 1);
        for (size_t k = 0; k < n; k++) buf[k] = (uint8_t)rnd();
        size_t used;
        int w = (int)(rnd() % 34);
        int rc = pq_rle_decode(buf, n, w, out, (uint32_t)(rnd() % 512), &used);
        CHECK(rc == 0 || rc == TN_ECORRUPT);
        if (rc == 0) CHECK(used <= n);
        free(buf);
    }
}

TEST(rle_empty_runs_and_stream_errors) {
    /* empty RLE run (00 + value byte), empty bit-packed run (01), then 3 x 5 at width 3 */
    static const uint8_t s[] = {0x00, 0x07, 0x01, 0x06, 0x05};
    uint32_t out[3];
    size_t used;
    CHECK_OK(pq_rle_decode(s, sizeof s, 3, out, 3, &used));
    CHECK_EQ_INT(used, sizeof s);
    for (int i = 0; i < 3; i++) CHECK_EQ_INT(out[i], 5);
    pq_rle_stream r;
    pq_rle_init(&r, s, sizeof s, 3);
    CHECK_OK(pq_rle_next_run(&r));
    CHECK(!r.packed && r.left == 3 && r.value == 5);
    pq_rle_skip(&r, 3);
    CHECK(pq_rle_next_run(&r) == TN_ECORRUPT);          /* the data ends */
    CHECK(strstr(tn_error_message(), "RLE") != NULL);
    /* a bit-packed run cut short: the values whose bits are present, no more */
    static const uint8_t cut[] = {0x05, 0x88, 0xc6};     /* 2 groups declared, 2 bytes = 5 values */
    pq_rle_init(&r, cut, sizeof cut, 3);
    CHECK_OK(pq_rle_next_run(&r));
    CHECK(r.packed && r.left == 5);
    uint32_t five[5];
    pq_rle_unpack(&r, five, 5);
    for (uint32_t i = 0; i < 5; i++) CHECK_EQ_INT(five[i], i);
    CHECK(pq_rle_next_run(&r) == TN_ECORRUPT);
    /* pq_rle_decode checks RLE values against the width; the stream leaves it to the caller */
    static const uint8_t wide[] = {0x02, 0x09};           /* 1 x 9 at width 3 */
    CHECK(pq_rle_decode(wide, sizeof wide, 3, out, 1, &used) == TN_ECORRUPT);
    pq_rle_init(&r, wide, sizeof wide, 3);
    CHECK_OK(pq_rle_next_run(&r));
    CHECK_EQ_INT(r.value, 9);
}

/* ---------------------------------------------------------------------------------------------
 * DELTA_BINARY_PACKED.
 */
TEST(delta_known_bytes) {
    /* Encodings.md example 1: 1 2 3 4 5 */
    static const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    int64_t v1[] = {1, 2, 3, 4, 5};
    tn_buf b = TN_BUF_INIT;
    CHECK_OK(pq_delta_binary_encode(&b, v1, 5, false));
    CHECK(b.len == sizeof ex1 && memcmp(b.data, ex1, sizeof ex1) == 0);
    tn_buf_free(&b);
    int64_t out[64];
    uint32_t n;
    size_t used;
    CHECK_OK(pq_delta_binary_decode(ex1, sizeof ex1, out, 64, &n, &used, false));
    CHECK_EQ_INT(n, 5);
    CHECK_EQ_INT(used, sizeof ex1);
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(out[i], v1[i]);
    /* example 2: 7 5 3 1 2 3 4 5: min delta -2, width 2 */
    static const uint8_t ex2[] = {0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0x00, 0x00, 0x00,
                                  0xc0, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    int64_t v2[] = {7, 5, 3, 1, 2, 3, 4, 5};
    CHECK_OK(pq_delta_binary_encode(&b, v2, 8, true));
    CHECK(b.len == sizeof ex2 && memcmp(b.data, ex2, sizeof ex2) == 0);
    tn_buf_free(&b);
    /* with trailing bytes: consumed stops at the end of the stream */
    uint8_t more[sizeof ex2 + 5];
    memcpy(more, ex2, sizeof ex2);
    memset(more + sizeof ex2, 0x55, 5);
    CHECK_OK(pq_delta_binary_decode(more, sizeof more, out, 64, &n, &used, true));
    CHECK_EQ_INT(n, 8);
    CHECK_EQ_INT(used, sizeof ex2);
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(out[i], v2[i]);
    /* more values than the caller allows */
    CHECK(pq_delta_binary_decode(ex2, sizeof ex2, out, 7, &n, &used, true) == TN_ECORRUPT);
    /* 0 and 1 values: header only */
    CHECK_OK(pq_delta_binary_encode(&b, v1, 0, false));
    CHECK_EQ_INT(b.len, 5);
    CHECK_OK(pq_delta_binary_decode(b.data, b.len, out, 64, &n, &used, false));
    CHECK_EQ_INT(n, 0);
    tn_buf_clear(&b);
    CHECK_OK(pq_delta_binary_encode(&b, v2, 1, false));
    CHECK_OK(pq_delta_binary_decode(b.data, b.len, out, 64, &n, &used, false));
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(out[0], 7);
    CHECK_EQ_INT(used, b.len);
    tn_buf_free(&b);
    /* bad block size, width 33 for INT32 */
    static const uint8_t badblock[] = {0x40, 0x04, 0x05, 0x02};
    CHECK(pq_delta_binary_decode(badblock, sizeof badblock, out, 64, &n, &used, false) == TN_ECORRUPT);
    uint8_t w33[sizeof ex2];
    memcpy(w33, ex2, sizeof ex2);
    w33[6] = 33;
    CHECK(pq_delta_binary_decode(w33, sizeof w33, out, 64, &n, &used, true) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "DELTA_BINARY_PACKED") != NULL);
}

static void delta_roundtrip_one(const int64_t *v, uint32_t n, bool is_int32, int *fails) {
    tn_buf b = TN_BUF_INIT;
    if (pq_delta_binary_encode(&b, v, n, is_int32) != 0) { (*fails)++; return; }
    uint8_t *copy = malloc(b.len);
    memcpy(copy, b.data, b.len);
    int64_t *d = malloc((n + 1) * sizeof *d);
    uint32_t got;
    size_t used;
    if (pq_delta_binary_decode(copy, b.len, d, n, &got, &used, is_int32) != 0 || got != n ||
        used != b.len || (n && memcmp(v, d, n * sizeof *v) != 0))
        (*fails)++;
    /* truncations fail, or are lenient only inside the final miniblock's padding and correct */
    for (size_t cut = 0; cut < b.len; cut += 1 + b.len / 40) {
        uint8_t *t = malloc(cut ? cut : 1);
        memcpy(t, b.data, cut);
        int rc = pq_delta_binary_decode(t, cut, d, n, &got, &used, is_int32);
        if (rc == 0 && (got != n || (n && memcmp(v, d, n * sizeof *v) != 0))) (*fails)++;
        if (rc != 0 && rc != TN_ECORRUPT) (*fails)++;
        free(t);
    }
    free(d);
    free(copy);
    tn_buf_free(&b);
}

TEST(delta_roundtrip_random_and_extremes) {
    int fails = 0, cases = 0;
    static const uint32_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 127, 128, 129, 130, 257, 1000, 5000};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        uint32_t n = sizes[si];
        int64_t *v = malloc((n + 1) * sizeof *v);
        for (int pattern = 0; pattern < 7; pattern++) {
            for (int is32 = 0; is32 < 2; is32++) {
                for (uint32_t i = 0; i < n; i++) {
                    int64_t x;
                    switch (pattern) {
                    case 0: x = (int64_t)rnd(); break;
                    case 1: x = (i % 2) ? INT64_MIN : INT64_MAX; break;          /* huge jumps */
                    case 2: x = (int64_t)i * 3 - 100; break;                     /* constant delta */
                    case 3: x = (int64_t)(rnd() % 1000) - 500; break;
                    case 4: x = (rnd() % 3 == 0) ? INT64_MIN : (int64_t)(rnd() % 17); break;
                    case 5: x = (int64_t)1 << (rnd() % 63); break;               /* all widths */
                    default: x = (int64_t)(rnd() >> (rnd() % 64)); break;
                    }
                    v[i] = is32 ? (int64_t)(int32_t)x : x;
                    if (is32 && pattern == 1) v[i] = (i % 2) ? INT32_MIN : INT32_MAX;
                }
                delta_roundtrip_one(v, n, is32, &fails);
                cases++;
            }
        }
        free(v);
    }
    CHECK_EQ_INT(fails, 0);
    CHECK(cases > 150);
}

TEST(delta_hostile_random) {
    int64_t out[300];
    for (int iter = 0; iter < 50000; iter++) {
        size_t n = rnd() % 48;
        uint8_t *buf = malloc(n ? n : 1);
        for (size_t k = 0; k < n; k++) buf[k] = (uint8_t)rnd();
        if (n > 4 && rnd() % 2) { buf[0] = 0x80; buf[1] = 0x01; buf[2] = 0x04; buf[3] = (uint8_t)(rnd() % 200); }
        uint32_t got;
        size_t used;
        int rc = pq_delta_binary_decode(buf, n, out, 300, &got, &used, rnd() % 2);
        CHECK(rc == 0 || rc == TN_ECORRUPT);
        if (rc == 0) CHECK(used <= n && got <= 300);
        tn_str s[300];
        tn_arena *a = tn_arena_create(0);
        (void)pq_delta_length_byte_array_decode(buf, n, (uint32_t)(rnd() % 300), s, a, &used);
        (void)pq_delta_byte_array_decode(buf, n, (uint32_t)(rnd() % 300), s, a, &used);
        tn_arena_destroy(a);
        free(buf);
    }
}

/* ---------------------------------------------------------------------------------------------
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, PLAIN booleans.
 */
TEST(delta_length_and_delta_byte_array) {
    const char *words[] = {"axis", "axle", "babble", "babyhood", "", "babyhood"};
    const uint32_t n = 6;
    int64_t lens[6], pre[6], suf[6];
    tn_buf b = TN_BUF_INIT;
    for (uint32_t i = 0; i < n; i++) lens[i] = (int64_t)strlen(words[i]);
    CHECK_OK(pq_delta_binary_encode(&b, lens, n, true));
    for (uint32_t i = 0; i < n; i++) tn_buf_append(&b, words[i], strlen(words[i]));
    tn_buf_append(&b, "TRAILER", 7);
    tn_str out[6];
    size_t used;
    tn_arena *a = tn_arena_create(0);
    CHECK_OK(pq_delta_length_byte_array_decode(b.data, b.len, n, out, a, &used));
    CHECK_EQ_INT(used, b.len - 7);
    for (uint32_t i = 0; i < n; i++) {
        CHECK_EQ_INT(out[i].len, strlen(words[i]));
        CHECK(memcmp(out[i].ptr, words[i], out[i].len) == 0);
        CHECK((const uint8_t *)out[i].ptr >= b.data && (const uint8_t *)out[i].ptr <= b.data + b.len);
    }
    CHECK(pq_delta_length_byte_array_decode(b.data, b.len, n + 1, out, a, &used) == TN_ECORRUPT);
    CHECK(pq_delta_length_byte_array_decode(b.data, b.len - 12, n, out, a, &used) == TN_ECORRUPT);
    tn_buf_clear(&b);
    /* front coding: prefix lengths 0 2 0 3 0 0, suffixes */
    const char *sfx[] = {"axis", "le", "babble", "yhood", "", "babyhood"};
    int64_t p[] = {0, 2, 0, 3, 0, 0};
    for (uint32_t i = 0; i < n; i++) { pre[i] = p[i]; suf[i] = (int64_t)strlen(sfx[i]); }
    CHECK_OK(pq_delta_binary_encode(&b, pre, n, true));
    CHECK_OK(pq_delta_binary_encode(&b, suf, n, true));
    for (uint32_t i = 0; i < n; i++) tn_buf_append(&b, sfx[i], strlen(sfx[i]));
    size_t total = b.len;
    tn_buf_append(&b, "XYZ", 3);
    CHECK_OK(pq_delta_byte_array_decode(b.data, b.len, n, out, a, &used));
    CHECK_EQ_INT(used, total);
    for (uint32_t i = 0; i < n; i++) {
        CHECK_EQ_INT(out[i].len, strlen(words[i]));
        CHECK(memcmp(out[i].ptr, words[i], out[i].len) == 0);
    }
    /* values are materialised in the arena: the input may be overwritten */
    memset(b.data, 0, b.len);
    CHECK(memcmp(out[3].ptr, "babyhood", 8) == 0);
    /* prefix longer than the previous value: error */
    tn_buf_clear(&b);
    int64_t badp[] = {0, 5, 0, 0, 0, 0};
    CHECK_OK(pq_delta_binary_encode(&b, badp, n, true));
    CHECK_OK(pq_delta_binary_encode(&b, suf, n, true));
    for (uint32_t i = 0; i < n; i++) tn_buf_append(&b, sfx[i], strlen(sfx[i]));
    CHECK(pq_delta_byte_array_decode(b.data, b.len, n, out, a, &used) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "prefix") != NULL);
    /* suffix bytes missing */
    CHECK(pq_delta_byte_array_decode(b.data, b.len - 20, n, out, a, &used) == TN_ECORRUPT);
    tn_buf_free(&b);
    tn_arena_destroy(a);
}

/* The _mem forms the scan uses: caller scratch for the lengths, values materialised back to back
 * in one block from the caller's allocator, a byte limit. */
typedef struct count_alloc { int calls; size_t bytes; uint8_t block[256]; } count_alloc;
static void *count_alloc_fn(void *ctx, size_t size) {
    count_alloc *c = ctx;
    c->calls++;
    c->bytes = size;
    return size <= sizeof c->block ? c->block : NULL;
}

TEST(delta_byte_arrays_with_caller_memory) {
    const char *words[] = {"axis", "axle", "babble", "babyhood", "", "babyhood"};
    const char *sfx[] = {"axis", "le", "babble", "yhood", "", "babyhood"};
    const int64_t p[] = {0, 2, 0, 3, 0, 0};
    const uint32_t n = 6;
    int64_t pre[6], suf[6], lens[12];
    tn_buf b = TN_BUF_INIT;
    for (uint32_t i = 0; i < n; i++) { pre[i] = p[i]; suf[i] = (int64_t)strlen(sfx[i]); }
    CHECK_OK(pq_delta_binary_encode(&b, pre, n, true));
    CHECK_OK(pq_delta_binary_encode(&b, suf, n, true));
    for (uint32_t i = 0; i < n; i++) tn_buf_append(&b, sfx[i], strlen(sfx[i]));
    tn_str out[6];
    size_t used;
    count_alloc ca = {0, 0, {0}};
    pq_delta_mem mem = {lens, count_alloc_fn, &ca, 1000};
    CHECK_OK(pq_delta_byte_array_decode_mem(b.data, b.len, n, out, &mem, &used));
    CHECK_EQ_INT(used, b.len);
    CHECK_EQ_INT(ca.calls, 1);
    CHECK_EQ_INT(ca.bytes, 4 + 4 + 6 + 8 + 0 + 8);
    size_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        CHECK_EQ_INT(out[i].len, strlen(words[i]));
        CHECK(memcmp(out[i].ptr, words[i], out[i].len) == 0);
        if (out[i].len) CHECK((const uint8_t *)out[i].ptr == ca.block + off);   /* back to back */
        off += out[i].len;
    }
    CHECK_EQ_INT(lens[1], 2);                              /* prefixes, then suffixes */
    CHECK_EQ_INT(lens[6 + 3], 5);
    /* the limit: 30 bytes of values, 29 allowed */
    mem.max_bytes = 29;
    CHECK(pq_delta_byte_array_decode_mem(b.data, b.len, n, out, &mem, &used) == TN_ELIMIT);
    mem.max_bytes = 30;
    CHECK_OK(pq_delta_byte_array_decode_mem(b.data, b.len, n, out, &mem, &used));
    /* an allocator that fails */
    count_alloc small = {0, 0, {0}};
    mem.alloc_ctx = &small;
    mem.max_bytes = 1u << 20;
    tn_buf big = TN_BUF_INIT;
    int64_t bp[2] = {0, 0}, bs[2] = {200, 100};
    CHECK_OK(pq_delta_binary_encode(&big, bp, 2, true));
    CHECK_OK(pq_delta_binary_encode(&big, bs, 2, true));
    for (int i = 0; i < 300; i++) tn_buf_append(&big, "x", 1);
    CHECK(pq_delta_byte_array_decode_mem(big.data, big.len, 2, out, &mem, &used) == TN_ENOMEM);
    /* all values empty: the allocator is not called */
    tn_buf_clear(&b);
    int64_t zero[3] = {0, 0, 0};
    CHECK_OK(pq_delta_binary_encode(&b, zero, 3, true));
    CHECK_OK(pq_delta_binary_encode(&b, zero, 3, true));
    small.calls = 0;
    CHECK_OK(pq_delta_byte_array_decode_mem(b.data, b.len, 3, out, &mem, &used));
    CHECK(small.calls == 0 && out[2].len == 0);
    /* DELTA_LENGTH_BYTE_ARRAY: caller scratch or none, values point into the input */
    tn_buf_clear(&b);
    int64_t l[6];
    for (uint32_t i = 0; i < n; i++) l[i] = (int64_t)strlen(words[i]);
    CHECK_OK(pq_delta_binary_encode(&b, l, n, true));
    for (uint32_t i = 0; i < n; i++) tn_buf_append(&b, words[i], strlen(words[i]));
    for (int k = 0; k < 2; k++) {
        pq_delta_mem lm = {lens, NULL, NULL, 0};
        CHECK_OK(pq_delta_length_byte_array_decode_mem(b.data, b.len, n, out, k ? &lm : NULL, &used));
        CHECK_EQ_INT(used, b.len);
        for (uint32_t i = 0; i < n; i++) {
            CHECK_EQ_INT(out[i].len, strlen(words[i]));
            CHECK(memcmp(out[i].ptr, words[i], out[i].len) == 0);
            CHECK((const uint8_t *)out[i].ptr > b.data && (const uint8_t *)out[i].ptr <= b.data + b.len);
        }
    }
    /* a negative length is refused */
    tn_buf_clear(&b);
    int64_t neg[2] = {3, -1};
    CHECK_OK(pq_delta_binary_encode(&b, neg, 2, true));
    tn_buf_append(&b, "abcdef", 6);
    CHECK(pq_delta_length_byte_array_decode_mem(b.data, b.len, 2, out, NULL, &used) == TN_ECORRUPT);
    tn_buf_free(&b);
    tn_buf_free(&big);
}

TEST(byte_stream_split_and_plain_bool) {
    /* 3 floats of 4 bytes: streams of 3 bytes each */
    const float f[3] = {1.5f, -2.25f, 3.0e10f};
    uint8_t raw[12], enc[12], dec[12];
    memcpy(raw, f, 12);
    for (int i = 0; i < 3; i++) for (int j = 0; j < 4; j++) enc[j * 3 + i] = raw[i * 4 + j];
    CHECK_OK(pq_byte_stream_split_decode(enc, 12, 4, 3, dec));
    CHECK(memcmp(raw, dec, 12) == 0);
    CHECK_OK(pq_byte_stream_split_decode(enc, 12, 4, 2, dec));     /* first 2 of 3 */
    CHECK(memcmp(raw, dec, 8) == 0);
    CHECK(pq_byte_stream_split_decode(enc, 11, 4, 2, dec) == TN_ECORRUPT);
    CHECK(pq_byte_stream_split_decode(enc, 12, 4, 4, dec) == TN_ECORRUPT);
    /* width 5 (FLBA) */
    uint8_t r5[15], e5[15], d5[15];
    for (int i = 0; i < 15; i++) r5[i] = (uint8_t)(i * 7 + 1);
    for (int i = 0; i < 3; i++) for (int j = 0; j < 5; j++) e5[j * 3 + i] = r5[i * 5 + j];
    CHECK_OK(pq_byte_stream_split_decode(e5, 15, 5, 3, d5));
    CHECK(memcmp(r5, d5, 15) == 0);
    /* PLAIN booleans: encode, decode at every bit offset */
    uint8_t vals[300], outv[300];
    for (int i = 0; i < 300; i++) vals[i] = (uint8_t)(rnd() % 2);
    tn_buf b = TN_BUF_INIT;
    CHECK_OK(pq_plain_bool_encode(&b, vals, 300));
    CHECK_EQ_INT(b.len, 38);
    CHECK_EQ_INT(b.data[0], vals[0] | vals[1] << 1 | vals[2] << 2 | vals[3] << 3 | vals[4] << 4 |
                            vals[5] << 5 | vals[6] << 6 | vals[7] << 7);
    for (int off = 0; off < 300; off += 7) {
        CHECK_OK(pq_plain_bool_decode(b.data, b.len, (uint64_t)off, (uint32_t)(300 - off), outv));
        CHECK(memcmp(vals + off, outv, (size_t)(300 - off)) == 0);
    }
    CHECK(pq_plain_bool_decode(b.data, b.len, 10, 300, outv) == TN_ECORRUPT);
    tn_buf_free(&b);
}

/* ---------------------------------------------------------------------------------------------
 * Codecs.
 */
static const int all_codecs[] = {TN_CODEC_UNCOMPRESSED, TN_CODEC_SNAPPY, TN_CODEC_GZIP,
                                 TN_CODEC_ZSTD, TN_CODEC_LZ4_RAW, TN_CODEC_BROTLI};

TEST(codec_roundtrips) {
    static const size_t sizes[] = {0, 1, 17, 1000, 65536, 300001};
    int cases = 0;
    for (size_t ci = 0; ci < sizeof all_codecs / sizeof *all_codecs; ci++) {
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            for (int kind = 0; kind < 2; kind++) {
                size_t n = sizes[si];
                uint8_t *src = malloc(n + 1), *dst = malloc(n + 1);
                for (size_t i = 0; i < n; i++) src[i] = kind ? (uint8_t)rnd() : (uint8_t)("abcabcx"[i % 7]);
                tn_buf c = TN_BUF_INIT;
                CHECK_OK(pq_compress(all_codecs[ci], 0, src, n, &c));
                uint8_t *cc = malloc(c.len ? c.len : 1);
                if (c.len) memcpy(cc, c.data, c.len);
                CHECK_MSG(pq_decompress(all_codecs[ci], cc, c.len, dst, n) == 0, "codec %d size %zu: %s",
                          all_codecs[ci], n, tn_error_message());
                CHECK(n == 0 || memcmp(src, dst, n) == 0);
                /* wrong expected size is an error, both ways */
                if (n > 0) {
                    CHECK(pq_decompress(all_codecs[ci], cc, c.len, dst, n - 1) == TN_ECORRUPT);
                    uint8_t *big = malloc(n + 10);
                    CHECK(pq_decompress(all_codecs[ci], cc, c.len, big, n + 10) == TN_ECORRUPT);
                    free(big);
                }
                /* truncated input is an error (uncompressed: a size mismatch) */
                if (c.len > 2) {
                    int rc = pq_decompress(all_codecs[ci], cc, c.len / 2, dst, n);
                    CHECK(rc == TN_ECORRUPT);
                }
                free(cc);
                tn_buf_free(&c);
                free(src);
                free(dst);
                cases++;
            }
        }
    }
    /* zero bytes for zero expected: fine for every codec, decompressor not called */
    for (int codec = 0; codec <= 7; codec++)
        if (codec != TN_CODEC_LZO) CHECK_OK(pq_decompress(codec, NULL, 0, NULL, 0));
    /* levels */
    uint8_t text[4000];
    for (size_t i = 0; i < sizeof text; i++) text[i] = (uint8_t)("hello world "[i % 12]);
    tn_buf c = TN_BUF_INIT;
    CHECK_OK(pq_compress(TN_CODEC_GZIP, 9, text, sizeof text, &c));
    CHECK(c.len > 10 && c.data[0] == 0x1f && c.data[1] == 0x8b);   /* gzip wrapper */
    tn_buf_clear(&c);
    CHECK_OK(pq_compress(TN_CODEC_ZSTD, 1, text, sizeof text, &c));
    tn_buf_free(&c);
    CHECK(cases >= 60);
}

TEST(codec_unsupported_and_garbage) {
    uint8_t src[16] = {1, 2, 3}, dst[64];
    tn_buf c = TN_BUF_INIT;
    CHECK(pq_decompress(TN_CODEC_BROTLI, src, sizeof src, dst, 64) == TN_ECORRUPT);
    CHECK(strncmp(tn_error_message(), "BROTLI: ", 8) == 0);
    CHECK(pq_decompress(TN_CODEC_LZO, src, sizeof src, dst, 64) == TN_EUNSUPPORTED);
    CHECK(strstr(tn_error_message(), "LZO") != NULL);
    CHECK(pq_decompress(42, src, sizeof src, dst, 64) == TN_EUNSUPPORTED);
    CHECK(pq_compress(TN_CODEC_BROTLI, 12, src, sizeof src, &c) == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "level 12") != NULL);
    CHECK(pq_compress(TN_CODEC_LZ4, 0, src, sizeof src, &c) == TN_EUNSUPPORTED);
    tn_buf_free(&c);
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = rnd() % 64, expect = rnd() % 128;
        uint8_t *buf = malloc(n ? n : 1), *out = malloc(expect ? expect : 1);
        for (size_t k = 0; k < n; k++) buf[k] = (uint8_t)rnd();
        if (n > 2 && rnd() % 3 == 0) { buf[0] = 0x1f; buf[1] = 0x8b; }
        int codec = (int)(rnd() % 8);
        int rc = pq_decompress(codec, buf, n, out, expect);
        CHECK(rc == 0 || rc == TN_ECORRUPT || rc == TN_EUNSUPPORTED);
        free(buf);
        free(out);
    }
}

TEST(codec_gzip_two_members) {
    uint8_t a[5000], b[3000], out[8000];
    for (size_t i = 0; i < sizeof a; i++) a[i] = (uint8_t)(i * 31);
    for (size_t i = 0; i < sizeof b; i++) b[i] = (uint8_t)rnd();
    tn_buf c = TN_BUF_INIT;
    CHECK_OK(pq_compress(TN_CODEC_GZIP, 0, a, sizeof a, &c));
    size_t first = c.len;
    CHECK_OK(pq_compress(TN_CODEC_GZIP, 0, b, sizeof b, &c));
    CHECK_OK(pq_decompress(TN_CODEC_GZIP, c.data, c.len, out, sizeof out));
    CHECK(memcmp(out, a, sizeof a) == 0);
    CHECK(memcmp(out + sizeof a, b, sizeof b) == 0);
    /* the first member alone is short */
    CHECK(pq_decompress(TN_CODEC_GZIP, c.data, first, out, sizeof out) == TN_ECORRUPT);
    /* garbage after the members */
    tn_buf_append(&c, "junk", 4);
    CHECK(pq_decompress(TN_CODEC_GZIP, c.data, c.len, out, sizeof out) == TN_ECORRUPT);
    tn_buf_free(&c);
}

TEST(codec_brotli_levels_and_trailing_bytes) {
    uint8_t a[5000], out[5000];
    for (size_t i = 0; i < sizeof a; i++) a[i] = (uint8_t)("brotli pages "[i % 13]);
    for (int level = 1; level <= 11; level += 5) {
        tn_buf c = TN_BUF_INIT;
        CHECK_OK(pq_compress(TN_CODEC_BROTLI, level, a, sizeof a, &c));
        CHECK(c.len < sizeof a / 10);
        CHECK_OK(pq_decompress(TN_CODEC_BROTLI, c.data, c.len, out, sizeof out));
        CHECK(memcmp(out, a, sizeof a) == 0);
        /* bytes after the stream's end are corruption, not ignored */
        tn_buf_append(&c, "junk", 4);
        CHECK(pq_decompress(TN_CODEC_BROTLI, c.data, c.len, out, sizeof out) == TN_ECORRUPT);
        CHECK(strstr(tn_error_message(), "after the end of the stream") != NULL);
        tn_buf_free(&c);
    }
    /* an empty page compresses to a stream that decodes to zero bytes */
    tn_buf e = TN_BUF_INIT;
    CHECK_OK(pq_compress(TN_CODEC_BROTLI, 0, a, 0, &e));
    CHECK(e.len > 0);
    CHECK_OK(pq_decompress(TN_CODEC_BROTLI, e.data, e.len, out, 0));
    CHECK(pq_decompress(TN_CODEC_BROTLI, e.data, e.len, out, 1) == TN_ECORRUPT);
    tn_buf_free(&e);
}

TEST(codec_lz4_hadoop_frames) {
    uint8_t a[3000], b[2000], out[5000];
    for (size_t i = 0; i < sizeof a; i++) a[i] = (uint8_t)("parquet"[i % 7]);
    for (size_t i = 0; i < sizeof b; i++) b[i] = (uint8_t)(i & 0x3f);
    uint8_t frame[16000];
    size_t n = 0;
    const uint8_t *parts[2] = {a, b};
    const size_t plen[2] = {sizeof a, sizeof b};
    for (int p = 0; p < 2; p++) {
        int c = LZ4_compress_default((const char *)parts[p], (char *)frame + n + 8, (int)plen[p], 8000);
        CHECK(c > 0);
        uint32_t u = (uint32_t)plen[p], cl = (uint32_t)c;
        uint8_t hdr[8] = {(uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u,
                          (uint8_t)(cl >> 24), (uint8_t)(cl >> 16), (uint8_t)(cl >> 8), (uint8_t)cl};
        memcpy(frame + n, hdr, 8);
        n += 8 + (size_t)c;
    }
    CHECK_OK(pq_decompress(TN_CODEC_LZ4, frame, n, out, sizeof out));
    CHECK(memcmp(out, a, sizeof a) == 0 && memcmp(out + sizeof a, b, sizeof b) == 0);
    /* a bare block (old parquet-cpp) is the fallback */
    uint8_t block[8000];
    int c = LZ4_compress_default((const char *)a, (char *)block, (int)sizeof a, (int)sizeof block);
    CHECK_OK(pq_decompress(TN_CODEC_LZ4, block, (size_t)c, out, sizeof a));
    CHECK(memcmp(out, a, sizeof a) == 0);
    CHECK(pq_decompress(TN_CODEC_LZ4, frame, n - 3, out, sizeof out) == TN_ECORRUPT);
}

/* ---------------------------------------------------------------------------------------------
 * A small page walker over golden files: decodes flat columns to text for comparison with CSVs.
 * (A test helper, not the reader: it exists to exercise the decoders on real bytes.)
 */
typedef struct col_text { char **v; int64_t n; } col_text;   /* v[i] NULL = NULL value */

static char *dup_n(const void *p, size_t n) {
    char *s = malloc(n + 1);
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

static char *fmt_value(int type, int conv, int tlen, const uint8_t *p, uint32_t len) {
    char tmp[64];
    switch (type) {
    case PQ_INT32: snprintf(tmp, sizeof tmp, "%d", (int32_t)tn_load_u32le(p)); break;
    case PQ_INT64:
        if (conv == PQ_CT_UINT_64) snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)tn_load_u64le(p));
        else snprintf(tmp, sizeof tmp, "%lld", (long long)tn_load_u64le(p));
        break;
    case PQ_FLOAT: { float f; memcpy(&f, p, 4); snprintf(tmp, sizeof tmp, "%a", (double)f); break; }
    case PQ_DOUBLE: { double d; memcpy(&d, p, 8); snprintf(tmp, sizeof tmp, "%a", d); break; }
    case PQ_BOOLEAN: return strdup(*p ? "true" : "false");
    case PQ_BYTE_ARRAY: return dup_n(p, len);
    default: {
        char *s = malloc((size_t)tlen * 2 + 1);
        for (int i = 0; i < tlen; i++) sprintf(s + 2 * i, "%02x", p[i]);
        return s;
    }
    }
    return strdup(tmp);
}

static int type_width(int type, int tlen) {
    switch (type) {
    case PQ_INT32: case PQ_FLOAT: return 4;
    case PQ_INT64: case PQ_DOUBLE: return 8;
    case PQ_INT96: return 12;
    case PQ_FIXED_LEN_BYTE_ARRAY: return tlen;
    default: return 0;
    }
}

/* Decodes nv PLAIN values into texts; returns bytes used or -1. */
static long plain_values(const pq_schema_element *se, const uint8_t *p, size_t len, uint32_t nv, char **out) {
    size_t pos = 0;
    if (se->type == PQ_BOOLEAN) {
        uint8_t *b = malloc(nv + 1);
        if (pq_plain_bool_decode(p, len, 0, nv, b) != 0) { free(b); return -1; }
        for (uint32_t i = 0; i < nv; i++) out[i] = strdup(b[i] ? "true" : "false");
        free(b);
        return (long)((nv + 7) / 8);
    }
    for (uint32_t i = 0; i < nv; i++) {
        uint32_t l;
        if (se->type == PQ_BYTE_ARRAY) {
            if (len - pos < 4) return -1;
            l = tn_load_u32le(p + pos);
            pos += 4;
        } else l = (uint32_t)type_width(se->type, se->type_length);
        if (l > len - pos) return -1;
        out[i] = fmt_value(se->type, se->converted_type, se->type_length, p + pos, l);
        pos += l;
    }
    return (long)pos;
}

static void free_texts(char **v, int64_t n) {
    for (int64_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* Reads column `name` of every row group. Returns 0, or -1 with err set. */
static int read_column(const char *rel, const char *name, col_text *out, char *err, size_t errcap) {
    char path[900];
    snprintf(path, sizeof path, "%s/%s", golden_root(), rel);
    size_t len;
    uint8_t *file = read_file(path, &len);
    int ret = -1;
    tn_arena *a = tn_arena_create(0);
    char **dict = NULL;
    uint32_t ndict = 0;
    memset(out, 0, sizeof *out);
#define FAIL_(...) do { snprintf(err, errcap, __VA_ARGS__); goto done; } while (0)
    if (!file) FAIL_("cannot read %s", path);
    uint32_t flen = tn_load_u32le(file + len - 8);
    pq_file_meta m;
    if (pq_decode_file_meta(&m, a, file + len - 8 - flen, flen) != 0) FAIL_("footer: %s", tn_error_message());
    int col = -1;
    const pq_schema_element *se = NULL;
    for (uint32_t e = 1, k = 0; e < m.nschema; e++) {
        if (m.schema[e].num_children > 0) continue;
        /* delta_encoding_required_column's names end with ':' (its CSV header does not) */
        size_t nl = strlen(name), el = strlen(m.schema[e].name);
        if (!strcmp(m.schema[e].name, name) ||
            (el == nl + 1 && !strncmp(m.schema[e].name, name, nl) && m.schema[e].name[nl] == ':')) {
            col = (int)k;
            se = &m.schema[e];
            break;
        }
        k++;
    }
    if (col < 0) FAIL_("no column %s", name);
    int max_def = se->repetition == PQ_OPTIONAL ? 1 : 0;
    out->v = calloc((size_t)m.num_rows + 1, sizeof *out->v);
    for (uint32_t g = 0; g < m.nrow_groups; g++) {
        const pq_column_meta *cm = &m.row_groups[g].columns[col].meta;
        int64_t pos = cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0
                          ? cm->dictionary_page_offset : cm->data_page_offset;
        int64_t end = pos + cm->total_compressed_size, rows_in_group = 0;
        free_texts(dict, ndict);
        dict = NULL;
        ndict = 0;
        while (pos < end && rows_in_group < m.row_groups[g].num_rows) {
            pq_page_header h;
            size_t used;
            if (pq_decode_page_header(&h, file + pos, (size_t)(end - pos), &used) != 0)
                FAIL_("page header: %s", tn_error_message());
            const uint8_t *body = file + pos + used;
            size_t clen = (size_t)h.compressed_page_size, ulen = (size_t)h.uncompressed_page_size;
            pos += (int64_t)used + (int64_t)clen;
            uint8_t *buf = malloc(ulen + 1);
            if (h.type == PQ_PAGE_DICTIONARY) {
                if (pq_decompress(cm->codec, body, clen, buf, ulen) != 0) { free(buf); FAIL_("dict: %s", tn_error_message()); }
                ndict = (uint32_t)h.dictionary.num_values;
                dict = calloc(ndict + 1, sizeof *dict);
                long r = plain_values(se, buf, ulen, ndict, dict);
                free(buf);
                if (r < 0) FAIL_("dictionary values");
                continue;
            }
            if (h.type != PQ_PAGE_DATA && h.type != PQ_PAGE_DATA_V2) { free(buf); continue; }
            uint32_t nvals;
            int encoding;
            const uint8_t *levels = NULL, *values;
            size_t levels_len = 0, values_len;
            if (h.type == PQ_PAGE_DATA) {
                nvals = (uint32_t)h.data.num_values;
                encoding = h.data.encoding;
                if (pq_decompress(cm->codec, body, clen, buf, ulen) != 0) { free(buf); FAIL_("page: %s", tn_error_message()); }
                values = buf;
                values_len = ulen;
                if (max_def) {
                    if (ulen < 4) { free(buf); FAIL_("short page"); }
                    levels_len = tn_load_u32le(buf);
                    if (levels_len > ulen - 4) { free(buf); FAIL_("level length"); }
                    levels = buf + 4;
                    values = buf + 4 + levels_len;
                    values_len = ulen - 4 - levels_len;
                }
            } else {
                nvals = (uint32_t)h.data_v2.num_values;
                encoding = h.data_v2.encoding;
                size_t rl = (size_t)h.data_v2.repetition_levels_byte_length;
                size_t dl = (size_t)h.data_v2.definition_levels_byte_length;
                levels = body + rl;
                levels_len = dl;
                const uint8_t *src = body + rl + dl;
                size_t slen = clen - rl - dl;
                values_len = ulen - rl - dl;
                if (h.data_v2.is_compressed && cm->codec != TN_CODEC_UNCOMPRESSED) {
                    if (pq_decompress(cm->codec, src, slen, buf, values_len) != 0) { free(buf); FAIL_("v2 page: %s", tn_error_message()); }
                } else {
                    if (slen != values_len) { free(buf); FAIL_("v2 sizes"); }
                    if (slen) memcpy(buf, src, slen);
                }
                values = buf;
            }
            uint32_t *def = malloc((nvals + 1) * sizeof *def);
            uint32_t nonnull = nvals;
            if (max_def) {
                size_t u2;
                if (pq_rle_decode(levels, levels_len, 1, def, nvals, &u2) != 0) { free(def); free(buf); FAIL_("def levels: %s", tn_error_message()); }
                nonnull = 0;
                for (uint32_t i = 0; i < nvals; i++) nonnull += def[i];
            } else for (uint32_t i = 0; i < nvals; i++) def[i] = 1;
            char **vals = calloc(nonnull + 1, sizeof *vals);
            int rc = 0;
            switch (encoding) {
            case PQ_ENC_PLAIN:
                rc = plain_values(se, values, values_len, nonnull, vals) < 0 ? -1 : 0;
                break;
            case PQ_ENC_PLAIN_DICTIONARY: case PQ_ENC_RLE_DICTIONARY: {
                if (nonnull == 0) break;
                if (values_len < 1) { rc = -1; break; }
                uint32_t *idx = malloc(nonnull * sizeof *idx);
                size_t u2;
                rc = pq_rle_decode(values + 1, values_len - 1, values[0], idx, nonnull, &u2);
                for (uint32_t i = 0; rc == 0 && i < nonnull; i++) {
                    if (idx[i] >= ndict) { rc = -1; snprintf(err, errcap, "index %u >= %u", idx[i], ndict); break; }
                    vals[i] = strdup(dict[idx[i]]);
                }
                free(idx);
                break;
            }
            case PQ_ENC_RLE: {          /* booleans: u32 length + hybrid at width 1 */
                if (values_len < 4) { rc = -1; break; }
                uint32_t *bv = malloc((nonnull + 1) * sizeof *bv);
                size_t u2;
                rc = pq_rle_decode(values + 4, tn_load_u32le(values), 1, bv, nonnull, &u2);
                for (uint32_t i = 0; rc == 0 && i < nonnull; i++) vals[i] = strdup(bv[i] ? "true" : "false");
                free(bv);
                break;
            }
            case PQ_ENC_DELTA_BINARY_PACKED: {
                int64_t *iv = malloc((nonnull + 1) * sizeof *iv);
                uint32_t got;
                size_t u2;
                rc = pq_delta_binary_decode(values, values_len, iv, nonnull, &got, &u2, se->type == PQ_INT32);
                if (rc == 0 && got != nonnull) rc = -1;
                for (uint32_t i = 0; rc == 0 && i < nonnull; i++) {
                    char t[32];
                    snprintf(t, sizeof t, "%lld", (long long)iv[i]);
                    vals[i] = strdup(t);
                }
                free(iv);
                break;
            }
            case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: case PQ_ENC_DELTA_BYTE_ARRAY: {
                tn_str *sv = malloc((nonnull + 1) * sizeof *sv);
                size_t u2;
                rc = encoding == PQ_ENC_DELTA_BYTE_ARRAY
                         ? pq_delta_byte_array_decode(values, values_len, nonnull, sv, a, &u2)
                         : pq_delta_length_byte_array_decode(values, values_len, nonnull, sv, a, &u2);
                for (uint32_t i = 0; rc == 0 && i < nonnull; i++)
                    vals[i] = se->type == PQ_BYTE_ARRAY ? dup_n(sv[i].ptr, sv[i].len)
                              : fmt_value(se->type, se->converted_type, se->type_length,
                                          (const uint8_t *)sv[i].ptr, sv[i].len);
                free(sv);
                break;
            }
            case PQ_ENC_BYTE_STREAM_SPLIT: {
                int w = type_width(se->type, se->type_length);
                uint8_t *raw = malloc((size_t)nonnull * (size_t)w + 1);
                rc = pq_byte_stream_split_decode(values, values_len, (size_t)w, nonnull, raw);
                for (uint32_t i = 0; rc == 0 && i < nonnull; i++)
                    vals[i] = fmt_value(se->type, se->converted_type, se->type_length, raw + (size_t)i * (size_t)w, (uint32_t)w);
                free(raw);
                break;
            }
            default: rc = -1; snprintf(err, errcap, "encoding %d", encoding); break;
            }
            if (rc != 0) {
                if (!err[0]) snprintf(err, errcap, "values (encoding %d): %s", encoding, tn_error_message());
                free_texts(vals, nonnull);
                free(def);
                free(buf);
                goto done;
            }
            for (uint32_t i = 0, k = 0; i < nvals && out->n < m.num_rows; i++) {
                out->v[out->n++] = def[i] ? vals[k] : NULL;
                if (def[i]) vals[k++] = NULL;
            }
            rows_in_group += nvals;
            free_texts(vals, nonnull);
            free(def);
            free(buf);
        }
    }
    if (out->n != m.num_rows) FAIL_("%lld rows of %lld", (long long)out->n, (long long)m.num_rows);
    ret = 0;
done:
    free_texts(dict, ndict);
    tn_arena_destroy(a);
    free(file);
    return ret;
#undef FAIL_
}

/* CSV with a flag for quoted-empty ("" = empty string, bare empty = NULL). */
typedef struct csv { char ***rows; int *ncols; int nrows; } csv;
static void csv_load(csv *c, const char *path) {
    size_t len;
    char *s = (char *)read_file(path, &len);
    memset(c, 0, sizeof *c);
    if (!s) return;
    char *scratch = malloc(len + 3);
    size_t i = 0;
    int cap = 0;
    while (i < len) {
        char **row = NULL;
        int nc = 0, ccap = 0;
        for (;;) {
            char *field = scratch;
            size_t fl = 0;
            bool quoted = false;
            if (i < len && s[i] == '"') {
                quoted = true;
                i++;
                while (i < len) {
                    if (s[i] == '"' && i + 1 < len && s[i + 1] == '"') { field[fl++] = '"'; i += 2; }
                    else if (s[i] == '"') { i++; break; }
                    else field[fl++] = s[i++];
                }
            }
            while (i < len && s[i] != ',' && s[i] != '\n') field[fl++] = s[i++];
            field[fl] = 0;
            if (quoted && fl == 0) strcpy(field, "\"\"");
            if (nc == ccap) { ccap = ccap ? ccap * 2 : 8; row = realloc(row, (size_t)ccap * sizeof *row); }
            row[nc++] = strdup(field);
            if (i < len && s[i] == ',') { i++; continue; }
            if (i < len && s[i] == '\n') i++;
            break;
        }
        if (c->nrows == cap) {
            cap = cap ? cap * 2 : 16;
            c->rows = realloc(c->rows, (size_t)cap * sizeof *c->rows);
            c->ncols = realloc(c->ncols, (size_t)cap * sizeof *c->ncols);
        }
        c->rows[c->nrows] = row;
        c->ncols[c->nrows++] = nc;
    }
    free(scratch);
    free(s);
}
static void csv_free(csv *c) {
    for (int r = 0; r < c->nrows; r++) {
        for (int k = 0; k < c->ncols[r]; k++) free(c->rows[r][k]);
        free(c->rows[r]);
    }
    free(c->rows);
    free(c->ncols);
}

/* Compares the named columns (all CSV columns if names == NULL) of a golden file with a CSV;
 * returns cells compared, or -1 with err. */
static long compare_with_csv(const char *rel, const char *csvrel, const char *const *names, char *err, size_t errcap) {
    char path[900];
    snprintf(path, sizeof path, "%s/%s", golden_root(), csvrel);
    csv c;
    csv_load(&c, path);
    long cells = 0;
    err[0] = 0;
    if (c.nrows < 1) { snprintf(err, errcap, "no csv %s", path); csv_free(&c); return -1; }
    for (int k = 0; k < c.ncols[0]; k++) {
        const char *name = c.rows[0][k];
        while (*name == ' ') name++;            /* " c_customer_id" in the delta_encoding CSVs */
        if (names) {
            bool want = false;
            for (const char *const *n = names; *n; n++) if (!strcmp(*n, name)) want = true;
            if (!want) continue;
        }
        col_text t;
        if (read_column(rel, name, &t, err, errcap) != 0) {
            char e2[512];
            snprintf(e2, sizeof e2, "%s: column %s: %s", rel, name, err);
            snprintf(err, errcap, "%s", e2);
            csv_free(&c);
            return -1;
        }
        if (t.n != c.nrows - 1) {
            snprintf(err, errcap, "%s: column %s: %lld rows, csv %d", rel, name, (long long)t.n, c.nrows - 1);
            free_texts(t.v, t.n);
            csv_free(&c);
            return -1;
        }
        for (int64_t r = 0; r < t.n; r++) {
            const char *want = k < c.ncols[r + 1] ? c.rows[r + 1][k] : "";
            const char *got = t.v[r] ? (t.v[r][0] ? t.v[r] : "\"\"") : "";
            if (strcmp(want, got) != 0) {
                snprintf(err, errcap, "%s: column %s row %lld: got '%s', want '%s'", rel, name, (long long)r, got, want);
                free_texts(t.v, t.n);
                csv_free(&c);
                return -1;
            }
            cells++;
        }
        free_texts(t.v, t.n);
    }
    csv_free(&c);
    return cells;
}

TEST(golden_delta_binary_packed_all_widths) {
    char err[1024];
    long n = compare_with_csv("data/delta_binary_packed.parquet", "data/delta_binary_packed_expect.csv", NULL, err, sizeof err);
    CHECK_MSG(n == 200 * 66, "%s (%ld)", err, n);
}

TEST(golden_delta_byte_array) {
    char err[1024];
    long n = compare_with_csv("data/delta_byte_array.parquet", "data/delta_byte_array_expect.csv", NULL, err, sizeof err);
    CHECK_MSG(n == 1000 * 9, "%s (%ld)", err, n);
}

TEST(golden_delta_encoding_required_and_optional) {
    char err[1024];
    long n = compare_with_csv("data/delta_encoding_required_column.parquet",
                              "data/delta_encoding_required_column_expect.csv", NULL, err, sizeof err);
    CHECK_MSG(n == 100 * 17, "%s (%ld)", err, n);
    n = compare_with_csv("data/delta_encoding_optional_column.parquet",
                         "data/delta_encoding_optional_column_expect.csv", NULL, err, sizeof err);
    CHECK_MSG(n == 100 * 17, "%s (%ld)", err, n);
}

TEST(golden_delta_length_byte_array_zstd) {
    char err[1024];
    long n = compare_with_csv("data/delta_length_byte_array.parquet",
                              "expected_duckdb/data/delta_length_byte_array.parquet/data.csv", NULL, err, sizeof err);
    CHECK_MSG(n == 1000, "%s (%ld)", err, n);
}

TEST(golden_rle_booleans_and_gzip_members) {
    char err[1024];
    long n = compare_with_csv("data/rle_boolean_encoding.parquet",
                              "expected_duckdb/data/rle_boolean_encoding.parquet/data.csv", NULL, err, sizeof err);
    CHECK_MSG(n == 68, "%s (%ld)", err, n);
    /* 513 UINT64 1..513 from two concatenated gzip members */
    n = compare_with_csv("data/concatenated_gzip_members.parquet",
                         "expected_duckdb/data/concatenated_gzip_members.parquet/data.csv", NULL, err, sizeof err);
    CHECK_MSG(n == 513, "%s (%ld)", err, n);
}

TEST(golden_duckdb_written_all_codecs) {
    static const char *const files[] = {"duckdb_v1_snappy", "duckdb_v2_zstd", "duckdb_gzip_rowgroups",
                                        "duckdb_uncompressed", "duckdb_lz4raw"};
    static const char *const cols[] = {"id", "k", "s", "u", "b", NULL};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char rel[256], err[1024];
        snprintf(rel, sizeof rel, "local/duckdb_written/%s.parquet", files[i]);
        long n = compare_with_csv(rel, "local/duckdb_written/expected.csv", cols, err, sizeof err);
        CHECK_MSG(n == 5000 * 5, "%s (%ld)", err, n);
    }
    static const char *const mcols[] = {"id", "name", "big", NULL};
    static const char *const mfiles[] = {"min", "minv2", "mingzip", "minv2gzip"};
    for (size_t i = 0; i < 4; i++) {
        char rel[256], err[1024];
        snprintf(rel, sizeof rel, "local/minimal_writer/%s.parquet", mfiles[i]);
        long n = compare_with_csv(rel, "local/minimal_writer/expected.csv", mcols, err, sizeof err);
        CHECK_MSG(n > 0, "%s (%ld)", err, n);
    }
}

TEST(golden_lz4_variants_and_plain_files) {
    char err[1024];
    static const char *const cols[] = {"c0", "c1", NULL};
    const char *expect = "expected_duckdb/data/lz4_raw_compressed.parquet/data.csv";
    CHECK_MSG(compare_with_csv("data/lz4_raw_compressed.parquet", expect, cols, err, sizeof err) == 8, "%s", err);
    CHECK_MSG(compare_with_csv("data/hadoop_lz4_compressed.parquet", expect, cols, err, sizeof err) == 8, "%s", err);
    CHECK_MSG(compare_with_csv("data/non_hadoop_lz4_compressed.parquet", expect, cols, err, sizeof err) == 8, "%s", err);
    static const char *const ids[] = {"id", "int_col", "bigint_col", "bool_col", NULL};
    CHECK_MSG(compare_with_csv("data/alltypes_plain.parquet", "expected_duckdb/data/alltypes_plain.parquet/data.csv", ids, err, sizeof err) == 32, "%s", err);
    CHECK_MSG(compare_with_csv("data/alltypes_dictionary.parquet", "expected_duckdb/data/alltypes_dictionary.parquet/data.csv", ids, err, sizeof err) == 8, "%s", err);
    CHECK_MSG(compare_with_csv("data/alltypes_plain.snappy.parquet", "expected_duckdb/data/alltypes_plain.snappy.parquet/data.csv", ids, err, sizeof err) == 8, "%s", err);
    static const char *const tiny[] = {"id", "int_col", "bigint_col", "string_col", NULL};
    CHECK_MSG(compare_with_csv("data/alltypes_tiny_pages.parquet", "expected_duckdb/data/alltypes_tiny_pages.parquet/data.csv", tiny, err, sizeof err) == 7300 * 4, "%s", err);
    /* dictionary with a single entry: indices at bit width 0 */
    CHECK_MSG(compare_with_csv("bad_data/ARROW-GH-43605.parquet", "expected_duckdb/bad_data/ARROW-GH-43605.parquet/data.csv", NULL, err, sizeof err) > 20000, "%s", err);
}

TEST(golden_byte_stream_split_twins) {
    static const char *const pairs[][2] = {
        {"float16_plain", "float16_byte_stream_split"}, {"float_plain", "float_byte_stream_split"},
        {"double_plain", "double_byte_stream_split"}, {"int32_plain", "int32_byte_stream_split"},
        {"int64_plain", "int64_byte_stream_split"}, {"flba5_plain", "flba5_byte_stream_split"},
        {"decimal_plain", "decimal_byte_stream_split"}};
    int compared = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        col_text p, s;
        char err[1024];
        CHECK_MSG(read_column("data/byte_stream_split_extended.gzip.parquet", pairs[i][0], &p, err, sizeof err) == 0, "%s", err);
        CHECK_MSG(read_column("data/byte_stream_split_extended.gzip.parquet", pairs[i][1], &s, err, sizeof err) == 0, "%s", err);
        CHECK_EQ_INT(p.n, s.n);
        for (int64_t r = 0; r < p.n; r++) {
            CHECK((p.v[r] == NULL) == (s.v[r] == NULL));
            if (p.v[r]) CHECK_MSG(!strcmp(p.v[r], s.v[r]), "%s row %lld", pairs[i][1], (long long)r);
            compared++;
        }
        free_texts(p.v, p.n);
        free_texts(s.v, s.n);
    }
    CHECK_EQ_INT(compared, 7 * 200);
    /* byte_stream_split.zstd: first f32 is 1.7640524 (numpy seed 0) */
    col_text f;
    char err[1024];
    CHECK_MSG(read_column("data/byte_stream_split.zstd.parquet", "f32", &f, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_INT(f.n, 300);
    float v = strtof(f.v[0], NULL);
    CHECK(v > 1.7640523f && v < 1.7640525f);
    free_texts(f.v, f.n);
}

TEST_MAIN()
