/*
 * delta/dv_write.c: deletion vectors on write: the RoaringBitmapArray of a set of row indexes
 * (run-optimized 32-bit portable bitmaps per high key, CRoaring), Z85 encoding, and a DV file
 * holding several vectors, each addressed by a 'u' descriptor (offset, size, cardinality).
 * The read side (framing, validation) is dv.c; this file writes what dv.c reads.
 *
 *   DV file <table>/deletion_vector_<uuid>.bin (big-endian framing)
 *   u8   version = 1
 *   per vector, at its descriptor's offset:
 *        u32 dataSize | dataSize bytes: u32 LE magic 1681511377, u64 LE numBuckets,
 *                       per bucket u32 LE key + portable roaring32 | u32 CRC-32 of the data
 *   descriptor: storageType 'u', pathOrInlineDv = Z85 of the 16 UUID bytes (no prefix),
 *               offset, sizeInBytes = dataSize, cardinality
 */
#include "delta/deltaInt.h"

#include <roaring/roaring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define DV_MAGIC 1681511377u

static const char z85_chars[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

int tn_delta_z85_encode(const uint8_t *data, size_t len, tn_buf *out) {
    if (len % 4 != 0) return tn_error_set(TN_EINVAL, "Z85: length %zu is not a multiple of 4", len);
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = (uint32_t)data[i] << 24 | (uint32_t)data[i + 1] << 16 | (uint32_t)data[i + 2] << 8 | data[i + 3];
        char g[5];
        for (int k = 4; k >= 0; k--) {
            g[k] = z85_chars[v % 85];
            v /= 85;
        }
        int rc = tn_buf_append(out, g, 5);
        if (rc) return rc;
    }
    return 0;
}

static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_be32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

int tn_delta_dv_encode_bitmap(const uint64_t *rows, uint64_t n, tn_buf *out) {
    int rc = 0;
    uint8_t hdr[12];
    uint64_t nbuckets = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (i && rows[i] <= rows[i - 1])
            return tn_error_set(TN_EINVAL, "deletion vector: row indexes must ascend (%llu after %llu)",
                                (unsigned long long)rows[i], (unsigned long long)rows[i - 1]);
        if (i == 0 || rows[i] >> 32 != rows[i - 1] >> 32) nbuckets++;
    }
    put_le32(hdr, DV_MAGIC);
    for (int i = 0; i < 8; i++) hdr[4 + i] = (uint8_t)(nbuckets >> (8 * i));
    rc = tn_buf_append(out, hdr, 12);
    for (uint64_t i = 0; i < n && !rc;) {
        uint32_t key = (uint32_t)(rows[i] >> 32);
        roaring_bitmap_t *bm = roaring_bitmap_create();
        if (!bm) return TN_ENOMEM;
        uint64_t j = i;
        while (j < n && (uint32_t)(rows[j] >> 32) == key) roaring_bitmap_add(bm, (uint32_t)rows[j++]);
        roaring_bitmap_run_optimize(bm);
        size_t sz = roaring_bitmap_portable_size_in_bytes(bm);
        uint8_t kb[4];
        put_le32(kb, key);
        rc = tn_buf_append(out, kb, 4);
        if (!rc) rc = tn_buf_reserve(out, sz);
        if (!rc) {
            size_t w = roaring_bitmap_portable_serialize(bm, (char *)out->data + out->len);
            out->len += w;
        }
        roaring_bitmap_free(bm);
        i = j;
    }
    return rc;
}

int tn_delta_dv_write_file(tn_fs *fs, const char *table_path, const uint64_t *const *rows, const uint64_t *counts,
                           uint32_t n, tn_arena *arena, tn_delta_dv *out, char **full_path) {
    int rc = 0;
    tn_buf file = TN_BUF_INIT, one = TN_BUF_INIT, z = TN_BUF_INIT;
    uint8_t uuid[16];
    char *path = NULL;
    *full_path = NULL;
    size_t got = 0;
    while (got < sizeof uuid) {
        ssize_t r = getrandom(uuid + got, sizeof uuid - got, 0);
        if (r <= 0) return tn_error_set(TN_EIO, "deletion vector: no random bytes for a file name");
        got += (size_t)r;
    }
    uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x40);
    uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
    rc = tn_delta_z85_encode(uuid, 16, &z);
    if (!rc) rc = tn_buf_append_byte(&z, 0);
    if (!rc) rc = tn_buf_append_byte(&file, 1);
    const char *zid = rc ? NULL : tn_arena_strdup(arena, (const char *)z.data);
    if (!rc && !zid) rc = TN_ENOMEM;
    for (uint32_t i = 0; i < n && !rc; i++) {
        tn_buf_clear(&one);
        rc = tn_delta_dv_encode_bitmap(rows[i], counts[i], &one);
        if (rc) break;
        if (file.len + one.len + 8 > INT32_MAX) {
            rc = tn_error_set(TN_ELIMIT, "deletion vector file over 2 GiB");
            break;
        }
        memset(&out[i], 0, sizeof out[i]);
        out[i].storage_type = 'u';
        out[i].path_or_inline = zid;
        out[i].has_offset = true;
        out[i].offset = (int32_t)file.len;
        out[i].size_in_bytes = (int32_t)one.len;
        out[i].cardinality = (int64_t)counts[i];
        out[i].unique_id = tn_arena_printf(arena, "u%s@%d", zid, out[i].offset);
        uint8_t b[4];
        put_be32(b, (uint32_t)one.len);
        rc = tn_buf_append(&file, b, 4);
        if (!rc) rc = tn_buf_append(&file, one.data, one.len);
        put_be32(b, tn_crc32(0, one.data, one.len));
        if (!rc) rc = tn_buf_append(&file, b, 4);
        if (!rc && !out[i].unique_id) rc = TN_ENOMEM;
    }
    if (rc) goto cleanup;
    const char *p = NULL;
    rc = tn_delta_dv_file_path(&p, arena, table_path, &out[0]);
    if (!rc && !(path = tn_strdup(p))) rc = TN_ENOMEM;
    if (!rc) rc = tn_fs_write_all(fs, path, file.data, file.len, true);
    if (rc) goto cleanup;
    *full_path = path;
    path = NULL;
cleanup:
    tn_free(path);
    tn_buf_free(&file);
    tn_buf_free(&one);
    tn_buf_free(&z);
    return rc;
}
