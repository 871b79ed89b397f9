/*
 * tests/fuzz/fuzz_delta_dv.c: libFuzzer target for deletion vectors (delta/dv.c): the input as a
 * RoaringBitmapArray (tn_delta_dv_decode_bitmap; decoded rows must ascend and re-encode to the
 * same rows), as a DV file read from memfs.h by tn_delta_dv_read (framing, CRC; the bitmap at
 * offset 5 is also decoded directly, past the CRC), as an inline Z85 DV, and as Z85 text and a
 * 'u' pathOrInlineDv. Errors are expected; crashes, leaks and wrong rows are bugs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "delta/delta.h"
#include "memfs.h"

#define DV_PATH "/t/deletion_vector.bin"

static void fail(const char *what) {
    fprintf(stderr, "fuzz_delta_dv: %s (%s)\n", what, tn_error_message());
    abort();
}

static void put_u32le(tn_buf *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    tn_buf_append(b, x, 4);
}

/* Encodes ascending rows as a RoaringBitmapArray (portable format, one bitmap per high key). */
static int encode_rows(tn_buf *out, const uint64_t *rows, uint64_t n) {
    uint64_t nb = 0;
    for (uint64_t i = 0; i < n; i++)
        if (i == 0 || rows[i] >> 32 != rows[i - 1] >> 32) nb++;
    put_u32le(out, 1681511377u);
    put_u32le(out, (uint32_t)nb);
    put_u32le(out, (uint32_t)(nb >> 32));
    for (uint64_t i = 0; i < n;) {
        uint64_t j = i;
        uint32_t key = (uint32_t)(rows[i] >> 32);
        roaring_bitmap_t *bm = roaring_bitmap_create();
        if (!bm) return -1;
        while (j < n && rows[j] >> 32 == key) roaring_bitmap_add(bm, (uint32_t)rows[j++]);
        roaring_bitmap_run_optimize(bm);
        size_t sz = roaring_bitmap_portable_size_in_bytes(bm);
        put_u32le(out, key);
        if (tn_buf_reserve(out, out->len + sz) != 0) { roaring_bitmap_free(bm); return -1; }
        out->len += roaring_bitmap_portable_serialize(bm, (char *)out->data + out->len);
        roaring_bitmap_free(bm);
        i = j;
    }
    return 0;
}

/* Decodes len bytes (copied to an exact-size block) and checks the rows; *card gets the count
 * (-1 on a decode error). */
static void decode_and_check(const uint8_t *p, size_t len, int64_t *card) {
    uint8_t *copy = malloc(len ? len : 1);
    uint64_t *rows = NULL, n = 0;
    *card = -1;
    if (!copy) return;
    if (len) memcpy(copy, p, len);
    if (tn_delta_dv_decode_bitmap(copy, len, &rows, &n) == 0) {
        *card = (int64_t)n;
        if (n && !rows) fail("rows without an array");
        for (uint64_t i = 1; i < n; i++)
            if (rows[i] <= rows[i - 1]) fail("decoded rows do not ascend");
        if (n && rows[n - 1] >> 32 > 0x7fffffffu) fail("a row index above the 31-bit high key limit");
        if (n <= (1u << 20)) {
            tn_buf enc = TN_BUF_INIT;
            uint64_t *rows2 = NULL, n2 = 0;
            if (encode_rows(&enc, rows, n) == 0) {
                if (tn_delta_dv_decode_bitmap(enc.data, enc.len, &rows2, &n2) != 0)
                    fail("re-encoded rows do not decode");
                if (n2 != n || (n && memcmp(rows, rows2, n * sizeof *rows) != 0))
                    fail("re-encoded rows decode differently");
            }
            tn_free(rows2);
            tn_buf_free(&enc);
        }
    } else if (rows || n) {
        fail("a failed decode returned rows");
    }
    tn_free(rows);
    free(copy);
    tn_error_clear();
}

static const char z85_chars[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/* Z85-encodes n bytes (n % 4 == 0) as a NUL-terminated string. */
static char *z85_encode(const uint8_t *p, size_t n) {
    char *s = malloc(n / 4 * 5 + 1), *o = s;
    if (!s) return NULL;
    for (size_t i = 0; i + 4 <= n; i += 4) {
        uint32_t v = (uint32_t)p[i] << 24 | (uint32_t)p[i + 1] << 16 | (uint32_t)p[i + 2] << 8 | p[i + 3];
        for (int k = 4; k >= 0; k--) {
            o[k] = z85_chars[v % 85];
            v /= 85;
        }
        o += 5;
    }
    *o = 0;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 20) return 0;
    int64_t card_all, card_framed = -1;

    /* 1. The whole input as a bitmap. */
    decode_and_check(data, size, &card_all);

    /* 2. The input as a DV file: u8 version, at offset 1 a u32 BE size, the bitmap, a CRC. */
    uint32_t dsize = 0;
    if (size >= 5) {
        dsize = (uint32_t)data[1] << 24 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 8 | data[4];
        size_t blen = dsize < size - 5 ? dsize : size - 5;
        decode_and_check(data + 5, blen, &card_framed);

        uint8_t *file = malloc(size);
        if (file) {
            memcpy(file, data, size);
            memfs m;
            memfs_init(&m);
            memfs_add(&m, DV_PATH, file, size);
            tn_delta_dv dv = {'p', DV_PATH, true, 1, (int32_t)(dsize & 0x7fffffff),
                              card_framed >= 0 ? card_framed : 0, NULL};
            uint64_t *rows = NULL, n = 0;
            int rc = tn_delta_dv_read(&m.fs, "/t", &dv, &rows, &n);
            memfs_check_closed(&m, "fuzz_delta_dv");
            if (rc == 0 && (int64_t)n != dv.cardinality) fail("dv_read ignored the cardinality");
            if (rc != 0 && (rows || n)) fail("a failed dv_read returned rows");
            tn_free(rows);
            tn_error_clear();
            free(file);
        }

        /* 3. The same bitmap bytes as an inline ('i') DV. */
        size_t ilen = blen & ~(size_t)3;
        char *z = z85_encode(data + 5, ilen);
        if (z) {
            int64_t card_inline;
            decode_and_check(data + 5, ilen, &card_inline);
            tn_delta_dv idv = {'i', z, false, 0, (int32_t)ilen, card_inline >= 0 ? card_inline : 0, NULL};
            uint64_t *rows = NULL, n = 0;
            int rc = tn_delta_dv_read(NULL, "/t", &idv, &rows, &n);
            if ((rc == 0) != (card_inline >= 0)) fail("inline DV and direct decode disagree");
            tn_free(rows);
            tn_error_clear();
            free(z);
        }
    }

    /* 4. The input as Z85 text, and as the pathOrInlineDv of a 'u' DV (NUL-terminated). */
    char *text = malloc(size + 1);
    tn_arena *arena = tn_arena_create(0);
    if (text && arena) {
        if (size) memcpy(text, data, size);
        text[size] = 0;
        tn_buf out = TN_BUF_INIT;
        if (tn_delta_z85_decode(text, size - size % 5, &out) == 0 && out.len != (size - size % 5) / 5 * 4)
            fail("Z85 decode length");
        tn_buf_free(&out);
        tn_error_clear();
        tn_delta_dv udv = {'u', text, false, 0, 0, 0, NULL};
        const char *path = NULL;
        (void)tn_delta_dv_file_path(&path, arena, "/t", &udv);
        tn_error_clear();
    }
    free(text);
    tn_arena_destroy(arena);
    (void)card_all;
    return 0;
}
