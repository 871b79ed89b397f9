/*
 * delta/dv.c: deletion vectors on read: the descriptor's storage ('i' inline Z85, 'u' random
 * prefix + Z85 UUID -> <table>/<prefix>/deletion_vector_<uuid>.bin, 'p' absolute path), the
 * DV file framing, and the RoaringBitmapArray bitmap (each 32-bit bucket's portable roaring
 * bitmap decoded and validated here).
 *
 *   DV file (big-endian framing)       bitmap (little-endian)
 *   u8   version = 1                   u32 magic 1681511377
 *   at `offset`: u32 dataSize          u64 numBuckets
 *                dataSize bytes -->    per bucket: u32 key (high 32 bits), portable roaring32
 *                u32 CRC-32 of data
 */
#include "delta/deltaInt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DV_MAGIC 1681511377u

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

/* ---------------------------------------------------------------------------------------------
 * The bitmap. Each bucket's 32-bit bitmap is in CRoaring's portable format, decoded here (not by
 * CRoaring: libroaring 0.2.66 has no validation, accepts unsorted arrays, overlapping runs and
 * wrong bitset cardinalities, and materialises every container):
 *   u32 cookie: 12347 | (containers - 1) << 16 (has run containers: a bit per container
 *               follows), or 12346 then u32 containers
 *   per container u16 key, u16 cardinality - 1; then u32 offsets unless there are run
 *   containers and fewer than 4 containers
 *   per container: run: u16 n, n x (u16 start, u16 length - 1); bitset (cardinality > 4096):
 *                  8192 bytes; array: cardinality x u16, ascending
 * A first pass validates everything and counts the rows (no allocation), so a bitmap whose
 * containers claim huge cardinalities is refused (too many, or not the log's cardinality)
 * before its rows are materialised; a second pass writes the rows.
 */
#define DV_MAX_ROWS ((uint64_t)1 << 27)   /* rows one DV may hold: 1 GiB of row indexes */
#define RB_COOKIE 12347u
#define RB_COOKIE_NO_RUN 12346u
#define RB_MAX_ARRAY 4096u
#define RB_NO_OFFSET_THRESHOLD 4u

static uint32_t load_u16le(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static int bad_bitmap(uint64_t bucket, int64_t container, const char *what) {
    if (container < 0)
        return tn_error_set(TN_ECORRUPT, "deletion vector: invalid bitmap: bucket %llu: %s",
                            (unsigned long long)bucket, what);
    return tn_error_set(TN_ECORRUPT, "deletion vector: invalid bitmap: bucket %llu, container %lld: %s",
                        (unsigned long long)bucket, (long long)container, what);
}

/* Walks the portable 32-bit bitmap of bucket `bucket` (high key hi) at buf[0, len): validates it,
 * adds its row count to *n (failing past max_rows) and, when out is set, writes the rows at
 * out[*n...]. *used gets the bitmap's byte length. */
static int walk_bitmap32(const uint8_t *buf, size_t len, uint64_t bucket, uint64_t hi,
                         uint64_t max_rows, uint64_t *out, uint64_t *n, size_t *used) {
    size_t pos = 0;
    uint32_t size;
    bool has_run;
    if (len < 4) return bad_bitmap(bucket, -1, "truncated header");
    uint32_t cookie = tn_load_u32le(buf);
    pos = 4;
    if ((cookie & 0xffff) == RB_COOKIE) {
        size = (cookie >> 16) + 1;
        has_run = true;
    } else if (cookie == RB_COOKIE_NO_RUN) {
        if (len - pos < 4) return bad_bitmap(bucket, -1, "truncated header");
        size = tn_load_u32le(buf + pos);
        pos += 4;
        if (size > 65536) return bad_bitmap(bucket, -1, "more than 65536 containers");
        has_run = false;
    } else {
        return bad_bitmap(bucket, -1, "bad cookie");
    }
    const uint8_t *run_flags = buf + pos;
    size_t head = (has_run ? (size_t)(size + 7) / 8 : 0) + (size_t)size * 4 +
                  (!has_run || size >= RB_NO_OFFSET_THRESHOLD ? (size_t)size * 4 : 0);
    if (len - pos < head) return bad_bitmap(bucket, -1, "truncated container headers");
    const uint8_t *keycards = run_flags + (has_run ? (size + 7) / 8 : 0);
    pos += head;                                   /* offsets are not needed: read in order */
    int64_t prev_key = -1;
    for (uint32_t k = 0; k < size; k++) {
        uint32_t key = load_u16le(keycards + 4 * (size_t)k);
        uint32_t card = (uint32_t)load_u16le(keycards + 4 * (size_t)k + 2) + 1, got = 0;
        uint64_t base = hi << 32 | (uint64_t)key << 16;
        if ((int64_t)key <= prev_key) return bad_bitmap(bucket, k, "container keys not ascending");
        prev_key = key;
        if (has_run && (run_flags[k / 8] >> (k % 8) & 1)) {
            if (len - pos < 2) return bad_bitmap(bucket, k, "truncated run container");
            uint32_t nruns = load_u16le(buf + pos);
            pos += 2;
            if ((len - pos) / 4 < nruns) return bad_bitmap(bucket, k, "truncated run container");
            int64_t prev_end = -1;
            for (uint32_t i = 0; i < nruns; i++, pos += 4) {
                uint32_t start = load_u16le(buf + pos), last = start + load_u16le(buf + pos + 2);
                if ((int64_t)start <= prev_end) return bad_bitmap(bucket, k, "runs overlap or not ascending");
                if (last > 0xffff) return bad_bitmap(bucket, k, "run past 65535");
                prev_end = last;
                got += last - start + 1;
                if (got > card) break;                  /* reported below, before writing */
                if (out)
                    for (uint32_t v = start; v <= last; v++) out[(*n)++] = base | v;
            }
        } else if (card > RB_MAX_ARRAY) {
            if (len - pos < 8192) return bad_bitmap(bucket, k, "truncated bitset container");
            for (uint32_t w = 0; w < 1024; w++) got += (uint32_t)__builtin_popcountll(tn_load_u64le(buf + pos + 8 * (size_t)w));
            if (got == card && out)
                for (uint32_t w = 0; w < 1024; w++)
                    for (uint64_t word = tn_load_u64le(buf + pos + 8 * (size_t)w); word; word &= word - 1)
                        out[(*n)++] = base | (w * 64 + (uint32_t)__builtin_ctzll(word));
            pos += 8192;
        } else {
            if ((len - pos) / 2 < card) return bad_bitmap(bucket, k, "truncated array container");
            for (uint32_t i = 0; i < card; i++)
                if (i && load_u16le(buf + pos + 2 * (size_t)i) <= load_u16le(buf + pos + 2 * (size_t)i - 2))
                    return bad_bitmap(bucket, k, "array values not ascending");
            if (out)
                for (uint32_t i = 0; i < card; i++) out[(*n)++] = base | load_u16le(buf + pos + 2 * (size_t)i);
            pos += 2 * (size_t)card;
            got = card;
        }
        if (got != card) {
            char what[96];
            snprintf(what, sizeof what, "%u rows, the header says %u", got, card);
            return bad_bitmap(bucket, k, what);
        }
        if (!out) {
            *n += card;
            if (*n > max_rows)
                return tn_error_set(TN_ELIMIT, "deletion vector: more than %llu rows",
                                    (unsigned long long)max_rows);
        }
    }
    *used = pos;
    return 0;
}

/* Decodes a RoaringBitmapArray; expect >= 0: the rows it must hold (checked before the rows
 * are materialised). */
static int decode_bitmap(const uint8_t *buf, size_t len, int64_t expect, uint64_t **rows,
                         uint64_t *count) {
    int rc = 0;
    uint64_t *out = NULL, total = 0, n = 0;
    *rows = NULL;
    *count = 0;
    if (len < 12)
        return tn_error_set(TN_ECORRUPT, "deletion vector: invalid bitmap: %zu bytes is too short", len);
    uint32_t magic = tn_load_u32le(buf);
    if (magic != DV_MAGIC)
        return tn_error_set(TN_ECORRUPT, "deletion vector: invalid bitmap: bad magic %u (expected %u%s)",
                            magic, DV_MAGIC, magic == 1681511376u ? "; the native format is not supported" : "");
    uint64_t nbuckets = tn_load_u64le(buf + 4);
    if (nbuckets > (len - 12) / 12)
        return tn_error_set(TN_ECORRUPT, "deletion vector: invalid bitmap: %llu buckets do not fit",
                            (unsigned long long)nbuckets);
    for (int pass = 0; pass < 2; pass++) {
        size_t pos = 12;
        int64_t last_key = -1;
        for (uint64_t b = 0; b < nbuckets; b++) {
            if (len - pos < 4) { rc = bad_bitmap(b, -1, "truncated"); goto cleanup; }
            uint32_t key = tn_load_u32le(buf + pos);
            pos += 4;
            if ((int64_t)key <= last_key || key > 0x7fffffffu) {
                rc = bad_bitmap(b, -1, "bucket keys not ascending");
                goto cleanup;
            }
            last_key = key;
            size_t used = 0;
            rc = walk_bitmap32(buf + pos, len - pos, b, key, DV_MAX_ROWS, out, pass ? &n : &total, &used);
            if (rc) goto cleanup;
            pos += used;
        }
        if (pass == 0) {
            if (expect >= 0 && total != (uint64_t)expect) {
                rc = tn_error_set(TN_ECORRUPT, "deletion vector holds %llu rows, the log says cardinality %lld",
                                  (unsigned long long)total, (long long)expect);
                goto cleanup;
            }
            out = tn_malloc((size_t)(total ? total : 1) * sizeof *out);
            if (!out) { rc = TN_ENOMEM; goto cleanup; }
        }
    }
    *rows = out;
    *count = n;
    out = NULL;
cleanup:
    tn_free(out);
    return rc;
}

int tn_delta_dv_decode_bitmap(const uint8_t *buf, size_t len, uint64_t **rows, uint64_t *count) {
    return decode_bitmap(buf, len, -1, rows, count);
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
    if (dv->cardinality < 0)
        return tn_error_set(TN_ECORRUPT, "deletion vector: negative cardinality %lld", (long long)dv->cardinality);
    if ((uint64_t)dv->cardinality > DV_MAX_ROWS)
        return tn_error_set(TN_ELIMIT, "deletion vector: cardinality %lld is over the limit of %llu rows",
                            (long long)dv->cardinality, (unsigned long long)DV_MAX_ROWS);
    if (dv->storage_type == 'i') {
        if ((rc = tn_delta_z85_decode(dv->path_or_inline, strlen(dv->path_or_inline), &raw))) goto cleanup;
        if ((size_t)dv->size_in_bytes > raw.len) {
            rc = tn_error_set(TN_ECORRUPT, "inline deletion vector: %zu bytes, sizeInBytes says %d",
                              raw.len, dv->size_in_bytes);
            goto cleanup;
        }
        rc = decode_bitmap(raw.data, (size_t)dv->size_in_bytes, dv->cardinality, rows, count);
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
        if ((rc = decode_bitmap(data + 4, dsize, dv->cardinality, rows, count)))
            rc = tn_error_prefix(rc, "%s", path);
    }
cleanup:
    if (f) fs->close(fs, f);
    tn_free(data);
    tn_buf_free(&raw);
    tn_arena_destroy(arena);
    return rc;
}
