/*
 * delta/dv_write.c: deletion vectors on write (PROTOCOL.md "Deletion Vector Format"): the
 * RoaringBitmapArray serialization of a sorted set of row indexes, and DV files holding one or
 * more of them, named deletion_vector_<uuid>.bin in the table directory and described by 'u'
 * descriptors (pathOrInlineDv = Z85 of the UUID's 16 bytes, offset = the dataSize field).
 *
 *   DV file (big-endian framing)       bitmap (little-endian)
 *   u8   version = 1                   u32 magic 1681511377
 *   per DV: u32 dataSize               u64 numBuckets
 *           dataSize bytes -->         per bucket (ascending key = row >> 32, MSB 0):
 *           u32 CRC-32 of the bytes        u32 key, portable 32-bit RoaringBitmap:
 *                                          u32 cookie 12346, u32 containers,
 *                                          per container u16 key, u16 cardinality-1,
 *                                          per container u32 offset, then the containers:
 *                                          <= 4096 values: u16 array; else a 8 KiB bitmap
 */
#include "delta/deltaInt.h"

#include <stdio.h>
#include <string.h>

#define DV_MAGIC 1681511377u

static int put_u32le(tn_buf *b, uint32_t v) {
    uint8_t x[4];
    tn_store_u32le(x, v);
    return tn_buf_append(b, x, 4);
}

static int put_u16le(tn_buf *b, uint32_t v) {
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    return tn_buf_append(b, x, 2);
}

/* One 32-bit bucket: lows[0..n) ascending. */
static int encode_bucket(tn_buf *out, const uint32_t *lows, uint64_t n) {
    /* containers: runs of equal high 16 bits */
    uint32_t ncont = 0;
    for (uint64_t i = 0; i < n; i++)
        if (i == 0 || (lows[i] >> 16) != (lows[i - 1] >> 16)) ncont++;
    int rc = put_u32le(out, 12346);
    if (!rc) rc = put_u32le(out, ncont);
    /* key/cardinality headers */
    for (uint64_t i = 0; i < n && !rc;) {
        uint64_t j = i;
        while (j < n && (lows[j] >> 16) == (lows[i] >> 16)) j++;
        rc = put_u16le(out, lows[i] >> 16);
        if (!rc) rc = put_u16le(out, (uint32_t)(j - i - 1));
        i = j;
    }
    /* offsets, from the start of this 32-bit bitmap */
    uint32_t off = 8 + 8 * ncont;
    for (uint64_t i = 0; i < n && !rc;) {
        uint64_t j = i;
        while (j < n && (lows[j] >> 16) == (lows[i] >> 16)) j++;
        rc = put_u32le(out, off);
        off += j - i > 4096 ? 8192 : (uint32_t)(2 * (j - i));
        i = j;
    }
    for (uint64_t i = 0; i < n && !rc;) {
        uint64_t j = i;
        while (j < n && (lows[j] >> 16) == (lows[i] >> 16)) j++;
        if (j - i > 4096) {
            uint8_t bits[8192];
            memset(bits, 0, sizeof bits);
            for (uint64_t k = i; k < j; k++) bits[(lows[k] & 0xffff) >> 3] |= (uint8_t)(1u << (lows[k] & 7));
            rc = tn_buf_append(out, bits, sizeof bits);   /* u64 words, little-endian = bytes in order */
        } else {
            for (uint64_t k = i; k < j && !rc; k++) rc = put_u16le(out, lows[k] & 0xffff);
        }
        i = j;
    }
    return rc;
}

int tn_delta_dv_encode_bitmap(tn_buf *out, const uint64_t *rows, uint64_t n) {
    uint32_t *lows = NULL;
    for (uint64_t i = 1; i < n; i++)
        if (rows[i] <= rows[i - 1]) return tn_error_set(TN_EINVAL, "deletion vector: rows not ascending");
    if (n && rows[n - 1] >> 63) return tn_error_set(TN_EINVAL, "deletion vector: row index out of range");
    uint64_t nb = 0;
    for (uint64_t i = 0; i < n; i++)
        if (i == 0 || (rows[i] >> 32) != (rows[i - 1] >> 32)) nb++;
    int rc = put_u32le(out, DV_MAGIC);
    uint8_t x[8];
    tn_store_u64le(x, nb);
    if (!rc) rc = tn_buf_append(out, x, 8);
    if (n) {
        lows = tn_malloc(sizeof *lows * n);
        if (!lows) return TN_ENOMEM;
    }
    for (uint64_t i = 0; i < n && !rc;) {
        uint64_t j = i;
        while (j < n && (rows[j] >> 32) == (rows[i] >> 32)) {
            lows[j - i] = (uint32_t)rows[j];
            j++;
        }
        rc = put_u32le(out, (uint32_t)(rows[i] >> 32));
        if (!rc) rc = encode_bucket(out, lows, j - i);
        i = j;
    }
    tn_free(lows);
    return rc;
}

struct tn_delta_dv_writer {
    char *table_path;
    char uuid[37];
    uint8_t uuid_bytes[16];
    tn_buf data;
    uint32_t ndvs;
};

int tn_delta_dv_writer_open(tn_delta_dv_writer **out, const char *table_path) {
    *out = NULL;
    tn_delta_dv_writer *w = tn_calloc(1, sizeof *w);
    if (!w) return TN_ENOMEM;
    w->table_path = tn_strdup(table_path);
    if (!w->table_path) {
        tn_free(w);
        return TN_ENOMEM;
    }
    char hex[33];
    dl_random_hex(hex, 32);
    for (int i = 0; i < 16; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        w->uuid_bytes[i] = (uint8_t)v;
    }
    w->uuid_bytes[6] = (uint8_t)((w->uuid_bytes[6] & 0x0f) | 0x40);   /* UUID v4 */
    w->uuid_bytes[8] = (uint8_t)((w->uuid_bytes[8] & 0x3f) | 0x80);
    const uint8_t *b = w->uuid_bytes;
    snprintf(w->uuid, sizeof w->uuid, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    int rc = tn_buf_append_byte(&w->data, 1);     /* format version */
    if (rc) {
        tn_delta_dv_writer_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

int tn_delta_dv_writer_add(tn_delta_dv_writer *w, const uint64_t *rows, uint64_t n, tn_arena *arena,
                           tn_delta_dv *dv) {
    tn_buf bm = TN_BUF_INIT, z = TN_BUF_INIT;
    memset(dv, 0, sizeof *dv);
    int rc = tn_delta_dv_encode_bitmap(&bm, rows, n);
    if (rc) goto cleanup;
    if (w->data.len + bm.len + 8 > 0x7fffffff) {
        rc = tn_error_set(TN_ELIMIT, "deletion vector file over 2 GiB");
        goto cleanup;
    }
    size_t offset = w->data.len;
    uint8_t x[4];
    x[0] = (uint8_t)(bm.len >> 24), x[1] = (uint8_t)(bm.len >> 16), x[2] = (uint8_t)(bm.len >> 8), x[3] = (uint8_t)bm.len;
    rc = tn_buf_append(&w->data, x, 4);
    if (!rc) rc = tn_buf_append(&w->data, bm.data, bm.len);
    uint32_t crc = tn_crc32(0, bm.data, bm.len);
    x[0] = (uint8_t)(crc >> 24), x[1] = (uint8_t)(crc >> 16), x[2] = (uint8_t)(crc >> 8), x[3] = (uint8_t)crc;
    if (!rc) rc = tn_buf_append(&w->data, x, 4);
    if (!rc) rc = tn_delta_z85_encode(w->uuid_bytes, 16, &z);
    if (rc) goto cleanup;
    dv->storage_type = 'u';
    dv->path_or_inline = tn_arena_strndup(arena, (const char *)z.data, z.len);
    dv->has_offset = true;
    dv->offset = (int32_t)offset;
    dv->size_in_bytes = (int32_t)bm.len;
    dv->cardinality = (int64_t)n;
    dv->unique_id = dv->path_or_inline ? tn_arena_printf(arena, "u%s@%d", dv->path_or_inline, dv->offset) : NULL;
    if (!dv->path_or_inline || !dv->unique_id) rc = TN_ENOMEM;
    else w->ndvs++;
cleanup:
    tn_buf_free(&bm);
    tn_buf_free(&z);
    return rc;
}

int tn_delta_dv_writer_finish(tn_delta_dv_writer *w, tn_fs *fs, tn_arena *arena, const char **path) {
    if (path) *path = NULL;
    if (w->ndvs == 0) return 0;
    const char *p = tn_arena_printf(arena, "%s/deletion_vector_%s.bin", w->table_path, w->uuid);
    if (!p) return TN_ENOMEM;
    int rc = tn_fs_write_all(fs, p, w->data.data, w->data.len, true);
    if (rc) return tn_error_prefix(rc, "deletion vector file %s", p);
    if (path) *path = p;
    return 0;
}

void tn_delta_dv_writer_free(tn_delta_dv_writer *w) {
    if (!w) return;
    tn_buf_free(&w->data);
    tn_free(w->table_path);
    tn_free(w);
}
