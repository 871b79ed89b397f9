/*
 * delta/dv.c: deletion vectors on read: the descriptor's storage ('i' inline Z85, 'u' random
 * prefix + Z85 UUID -> <table>/<prefix>/deletion_vector_<uuid>.bin, 'p' absolute path), the
 * DV file framing, and the RoaringBitmapArray bitmap (CRoaring decodes each 32-bit bucket).
 *
 *   DV file (big-endian framing)       bitmap (little-endian)
 *   u8   version = 1                   u32 magic 1681511377
 *   at `offset`: u32 dataSize          u64 numBuckets
 *                dataSize bytes -->    per bucket: u32 key (high 32 bits), portable roaring32
 *                u32 CRC-32 of data
 */
#include "delta/deltaInt.h"

#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

#define DV_MAGIC 1681511377u
#define DV_MAX_ROWS ((uint64_t)1 << 32)

static const char z85_chars[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

int tn_delta_z85_decode(const char *s, size_t len, tn_buf *out) {
    int8_t map[256];
    memset(map, -1, sizeof map);
    for (int i = 0; i < 85; i++) map[(unsigned char)z85_chars[i]] = (int8_t)i;
    if (len % 5 != 0) return tn_error_set(TN_ECORRUPT, "Z85: length %zu is not a multiple of 5", len);
    int rc = tn_buf_reserve(out, len / 5 * 4);
    if (rc) return rc;
    for (size_t i = 0; i < len; i += 5) {
        uint64_t v = 0;
        for (int k = 0; k < 5; k++) {
            int d = map[(unsigned char)s[i + (size_t)k]];
            if (d < 0) return tn_error_set(TN_ECORRUPT, "Z85: invalid character at %zu", i + (size_t)k);
            v = v * 85 + (uint64_t)d;
        }
        if (v > 0xffffffffu) return tn_error_set(TN_ECORRUPT, "Z85: group at %zu out of range", i);
        uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
        tn_buf_append(out, b, 4);
    }
    return 0;
}

int tn_delta_dv_file_path(const char **out, tn_arena *arena, const char *table_path,
                          const tn_delta_dv *dv) {
    tn_buf raw = TN_BUF_INIT;
    const char *s = dv->path_or_inline;
    size_t n = strlen(s);
    int rc = 0;
    if (dv->storage_type == 'p') {
        const char *p;
        if ((rc = tn_delta_uri_decode(&p, arena, s))) return rc;
        if (strncmp(p, "file:", 5) == 0) {
            p += 5;
            while (p[0] == '/' && p[1] == '/') p++;
        } else if (strstr(p, "://")) {
            return tn_error_set(TN_EUNSUPPORTED, "deletion vector at remote path '%s'", s);
        }
        *out = p;
        return 0;
    }
    if (dv->storage_type != 'u')
        return tn_error_set(TN_EINVAL, "deletion vector of storage type '%c' has no file", dv->storage_type);
    if (n < 20) return tn_error_set(TN_ECORRUPT, "deletion vector: pathOrInlineDv '%s' is too short", s);
    if ((rc = tn_delta_z85_decode(s + n - 20, 20, &raw))) goto cleanup;
    const uint8_t *u = raw.data;
    *out = tn_arena_printf(arena,
                           "%s/%.*s%sdeletion_vector_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                           "%02x%02x%02x%02x%02x%02x.bin",
                           table_path, (int)(n - 20), s, n > 20 ? "/" : "", u[0], u[1], u[2], u[3],
                           u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    if (!*out) rc = TN_ENOMEM;
cleanup:
    tn_buf_free(&raw);
    return rc;
}

int tn_delta_dv_decode_bitmap(const uint8_t *buf, size_t len, uint64_t **rows, uint64_t *count) {
    int rc = 0;
    uint64_t *out = NULL, n = 0, cap = 0;
    *rows = NULL;
    *count = 0;
    if (len < 12) return tn_error_set(TN_ECORRUPT, "deletion vector bitmap: %zu bytes is too short", len);
    uint32_t magic = tn_load_u32le(buf);
    if (magic != DV_MAGIC)
        return tn_error_set(TN_ECORRUPT, "deletion vector bitmap: bad magic %u (expected %u%s)", magic,
                            DV_MAGIC, magic == 1681511376u ? "; the native format is not supported" : "");
    uint64_t nbuckets = tn_load_u64le(buf + 4);
    size_t pos = 12;
    if (nbuckets > (len - pos) / 12)
        return tn_error_set(TN_ECORRUPT, "deletion vector bitmap: %llu buckets do not fit", (unsigned long long)nbuckets);
    int64_t last_key = -1;
    for (uint64_t b = 0; b < nbuckets; b++) {
        if (len - pos < 4) { rc = tn_error_set(TN_ECORRUPT, "deletion vector bitmap: truncated"); goto cleanup; }
        uint32_t key = tn_load_u32le(buf + pos);
        pos += 4;
        if ((int64_t)key <= last_key || key > 0x7fffffffu) {
            rc = tn_error_set(TN_ECORRUPT, "deletion vector bitmap: bucket keys not ascending");
            goto cleanup;
        }
        last_key = key;
        size_t sz = roaring_bitmap_portable_deserialize_size((const char *)buf + pos, len - pos);
        roaring_bitmap_t *bm = sz ? roaring_bitmap_portable_deserialize_safe((const char *)buf + pos, len - pos) : NULL;
        if (!bm) { rc = tn_error_set(TN_ECORRUPT, "deletion vector bitmap: bad roaring bitmap in bucket %llu", (unsigned long long)b); goto cleanup; }
        pos += sz;
        uint64_t card = roaring_bitmap_get_cardinality(bm);
        if (n + card > DV_MAX_ROWS) {
            roaring_bitmap_free(bm);
            rc = tn_error_set(TN_ELIMIT, "deletion vector: too many rows");
            goto cleanup;
        }
        if (n + card > cap) {
            uint64_t c = cap ? cap : 64;
            while (c < n + card) c *= 2;
            uint64_t *p = tn_realloc(out, (size_t)c * sizeof *p);
            if (!p) { roaring_bitmap_free(bm); rc = TN_ENOMEM; goto cleanup; }
            out = p;
            cap = c;
        }
        uint32_t *vals = tn_malloc((size_t)(card ? card : 1) * sizeof *vals);
        if (!vals) { roaring_bitmap_free(bm); rc = TN_ENOMEM; goto cleanup; }
        roaring_bitmap_to_uint32_array(bm, vals);
        for (uint64_t i = 0; i < card; i++) out[n++] = ((uint64_t)key << 32) | vals[i];
        tn_free(vals);
        roaring_bitmap_free(bm);
    }
    *rows = out;
    *count = n;
    out = NULL;
cleanup:
    tn_free(out);
    return rc;
}

int tn_delta_dv_read(tn_fs *fs, const char *table_path, const tn_delta_dv *dv, uint64_t **rows,
                     uint64_t *count) {
    tn_buf raw = TN_BUF_INIT;
    tn_arena *arena = NULL;
    tn_file *f = NULL;
    uint8_t *data = NULL;
    int rc = 0;
    *rows = NULL;
    *count = 0;
    if (dv->size_in_bytes < 0) return tn_error_set(TN_ECORRUPT, "deletion vector: negative size");
    if (dv->storage_type == 'i') {
        if ((rc = tn_delta_z85_decode(dv->path_or_inline, strlen(dv->path_or_inline), &raw))) goto cleanup;
        if ((size_t)dv->size_in_bytes > raw.len) {
            rc = tn_error_set(TN_ECORRUPT, "inline deletion vector: %zu bytes, sizeInBytes says %d",
                              raw.len, dv->size_in_bytes);
            goto cleanup;
        }
        rc = tn_delta_dv_decode_bitmap(raw.data, (size_t)dv->size_in_bytes, rows, count);
    } else {
        const char *path;
        uint64_t fsize;
        arena = tn_arena_create(0);
        if (!arena) { rc = TN_ENOMEM; goto cleanup; }
        if ((rc = tn_delta_dv_file_path(&path, arena, table_path, dv))) goto cleanup;
        if ((rc = fs->open_read(fs, path, &f))) goto cleanup;
        if ((rc = fs->size(fs, f, &fsize))) goto cleanup;
        uint64_t need = (uint64_t)dv->offset + 4 + (uint64_t)dv->size_in_bytes + 4;
        if (dv->offset < 0 || need > fsize) {
            rc = tn_error_set(TN_ECORRUPT, "%s: deletion vector at offset %d (%d bytes) lies past the "
                              "end of the %llu-byte file", path, dv->offset, dv->size_in_bytes,
                              (unsigned long long)fsize);
            goto cleanup;
        }
        size_t total = (size_t)dv->size_in_bytes + 8;
        data = tn_malloc(total);
        if (!data) { rc = TN_ENOMEM; goto cleanup; }
        if ((rc = fs->pread(fs, f, data, total, (uint64_t)dv->offset))) goto cleanup;
        uint32_t dsize = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
        if (dsize != (uint32_t)dv->size_in_bytes) {
            rc = tn_error_set(TN_ECORRUPT, "%s: deletion vector size %u, the log says %d", path, dsize,
                              dv->size_in_bytes);
            goto cleanup;
        }
        const uint8_t *c = data + 4 + dsize;
        uint32_t want = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
        uint32_t got = tn_crc32(0, data + 4, dsize);
        if (want != got) {
            rc = tn_error_set(TN_ECHECKSUM, "%s: deletion vector checksum mismatch (stored %08x, computed %08x)",
                              path, want, got);
            goto cleanup;
        }
        if ((rc = tn_delta_dv_decode_bitmap(data + 4, dsize, rows, count)))
            rc = tn_error_prefix(rc, "%s", path);
    }
    if (rc == 0 && (int64_t)*count != dv->cardinality) {
        rc = tn_error_set(TN_ECORRUPT, "deletion vector holds %llu rows, the log says cardinality %lld",
                          (unsigned long long)*count, (long long)dv->cardinality);
        tn_free(*rows);
        *rows = NULL;
        *count = 0;
    }
cleanup:
    if (f) fs->close(fs, f);
    tn_free(data);
    tn_buf_free(&raw);
    tn_arena_destroy(arena);
    return rc;
}
