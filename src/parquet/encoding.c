/*
 * parquet/encoding.c: Parquet value encodings (Encodings.md), the only decoders of each in tarn
 * (scan.c and the checkpoint reader call them): the RLE / bit-packing hybrid (whole, or run by
 * run for the scan's levels and dictionary indices), DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
 * DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT and PLAIN booleans. Decoders never read past `len` and
 * fail with TN_ECORRUPT naming the encoding. PLAIN for other types is the reader's business.
 *
 *   hybrid run := ULEB((groups << 1) | 1) + groups * w bytes (8 values per group, LSB first)
 *              |  ULEB(count << 1) + value in ceil(w / 8) bytes LE
 *   delta      := ULEB block_size | ULEB miniblocks | ULEB total | zigzag first,
 *                 blocks of: zigzag min_delta | miniblocks width bytes | bit-packed miniblocks
 */
#include "parquet/parquetInt.h"

#include <string.h>

static inline uint64_t load64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static int read_uleb(const uint8_t *buf, size_t len, size_t *pos, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*pos >= len) return -1;
        uint8_t b = buf[(*pos)++];
        if (shift == 63 && (b & 0x7e)) return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) { *out = v; return 0; }
    }
    return -1;
}

static int read_zigzag(const uint8_t *buf, size_t len, size_t *pos, uint64_t *out) {
    uint64_t zz;
    if (read_uleb(buf, len, pos, &zz)) return -1;
    *out = (zz >> 1) ^ (0 - (zz & 1));
    return 0;
}

static void put_uleb(uint8_t *tmp, size_t *n, uint64_t v) {
    while (v >= 0x80) { tmp[(*n)++] = (uint8_t)(v | 0x80); v >>= 7; }
    tmp[(*n)++] = (uint8_t)v;
}

static inline uint64_t zigzag64(int64_t v) {
    uint64_t u = (uint64_t)v;
    return (u << 1) ^ (0 - (u >> 63));
}

int pq_bit_width(uint64_t max_value) {
    return max_value ? 64 - __builtin_clzll(max_value) : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Bit unpacking, widths 1..32 into uint32, 8 values (= w bytes) at a time. The caller
 * guarantees w + 8 readable bytes at p (so every 8-byte load stays inside the buffer).
 */
static inline __attribute__((always_inline)) void unpack8(const uint8_t *p, uint32_t *o, const int w) {
    const uint64_t mask = w == 32 ? 0xffffffffu : (((uint64_t)1 << w) - 1);
    for (int j = 0; j < 8; j++) {
        const int bit = j * w;
        o[j] = (uint32_t)((load64(p + (bit >> 3)) >> (bit & 7)) & mask);
    }
}

#define UNPACK_CASE(W) case W: for (size_t g = 0; g < ngroups; g++) unpack8(p + g * W, o + g * 8, W); break;

static void unpack_groups(const uint8_t *p, uint32_t *o, size_t ngroups, int w) {
    switch (w) {
    case 8:
        for (size_t i = 0; i < ngroups * 8; i++) o[i] = p[i];
        break;
    UNPACK_CASE(1) UNPACK_CASE(2) UNPACK_CASE(3) UNPACK_CASE(4) UNPACK_CASE(5) UNPACK_CASE(6)
    UNPACK_CASE(7) UNPACK_CASE(9) UNPACK_CASE(10) UNPACK_CASE(11) UNPACK_CASE(12)
    UNPACK_CASE(13) UNPACK_CASE(14) UNPACK_CASE(15) UNPACK_CASE(16) UNPACK_CASE(17)
    UNPACK_CASE(18) UNPACK_CASE(19) UNPACK_CASE(20) UNPACK_CASE(21) UNPACK_CASE(22)
    UNPACK_CASE(23) UNPACK_CASE(24) UNPACK_CASE(25) UNPACK_CASE(26) UNPACK_CASE(27)
    UNPACK_CASE(28) UNPACK_CASE(29) UNPACK_CASE(30) UNPACK_CASE(31) UNPACK_CASE(32)
    default: break;
    }
}

/* Value i of width w (1..32), reading only the bytes below nbytes. */
static inline uint32_t get_bits32(const uint8_t *p, size_t nbytes, uint64_t i, int w) {
    const uint64_t bit = i * (uint64_t)w, mask = w == 32 ? 0xffffffffu : (((uint64_t)1 << w) - 1);
    const size_t byte = (size_t)(bit >> 3);
    uint64_t v = 0;
    if (byte + 8 <= nbytes) v = load64(p + byte);
    else for (size_t k = 0; byte + k < nbytes && k < 8; k++) v |= (uint64_t)p[byte + k] << (8 * k);
    return (uint32_t)((v >> (bit & 7)) & mask);
}

/* Unpacks values first .. first+n-1 of width w (0..32) from p, whose nbytes bytes hold them all.
 * Whole groups of 8 (w bytes, starting on a byte boundary) go through unpack_groups while their
 * 8-byte loads stay inside nbytes; the unaligned head and the last bytes value by value. */
static void unpack_bits(const uint8_t *p, size_t nbytes, int w, uint64_t first, uint32_t *o,
                        uint32_t n) {
    uint32_t i = 0;
    if (w == 0) {
        memset(o, 0, (size_t)n * sizeof *o);
        return;
    }
    while (i < n && ((first + i) & 7)) { o[i] = get_bits32(p, nbytes, first + i, w); i++; }
    const size_t off = (size_t)(((first + i) >> 3) * (uint64_t)w);
    size_t groups = (n - i) / 8, fast = 0;
    if (nbytes >= off + (size_t)w + 8) fast = (nbytes - off - (size_t)w - 8) / (size_t)w + 1;
    if (fast > groups) fast = groups;
    unpack_groups(p + off, o + i, fast, w);
    i += (uint32_t)(fast * 8);
    for (; i < n; i++) o[i] = get_bits32(p, nbytes, first + i, w);
}

/* ---------------------------------------------------------------------------------------------
 * RLE / bit-packing hybrid: the run stream, and pq_rle_decode on top of it.
 */
void pq_rle_init(pq_rle_stream *r, const uint8_t *buf, size_t len, int bit_width) {
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->len = len;
    r->bw = bit_width;
}

int pq_rle_next_run(pq_rle_stream *r) {
    for (;;) {
        uint64_t h;
        const size_t at = r->pos;
        if (read_uleb(r->buf, r->len, &r->pos, &h) || h > 0xffffffffu)
            return tn_error_set(TN_ECORRUPT, "RLE: bad or truncated run header at byte %zu", at);
        const size_t avail = r->len - r->pos;
        if (h & 1) {                                   /* bit-packed: groups of 8 values */
            uint64_t groups = h >> 1, bytes = groups * (uint64_t)r->bw, values = groups * 8;
            if (groups == 0) continue;                 /* empty run */
            if (bytes > avail) {                       /* a final run may be cut short */
                bytes = avail;
                values = (uint64_t)avail * 8 / (uint64_t)r->bw;
                if (values == 0)
                    return tn_error_set(TN_ECORRUPT, "RLE: bit-packed run at byte %zu truncated",
                                        at);
            }
            r->packed = true;
            r->bits = r->buf + r->pos;
            r->nbytes = avail;                         /* loads may run past the run: masked */
            r->index = 0;
            r->left = values > UINT32_MAX ? UINT32_MAX : (uint32_t)values;
            r->pos += (size_t)bytes;
        } else {                                       /* RLE: count x one value */
            const size_t vb = ((size_t)r->bw + 7) / 8;
            uint32_t v = 0;
            if (vb > avail)
                return tn_error_set(TN_ECORRUPT, "RLE: run value at byte %zu truncated", at);
            for (size_t i = 0; i < vb; i++) v |= (uint32_t)r->buf[r->pos + i] << (8 * i);
            r->pos += vb;
            if ((h >> 1) == 0) continue;               /* empty run */
            r->packed = false;
            r->value = v;
            r->left = (uint32_t)(h >> 1);
        }
        return 0;
    }
}

void pq_rle_unpack(pq_rle_stream *r, uint32_t *out, uint32_t n) {
    unpack_bits(r->bits, r->nbytes, r->bw, r->index, out, n);
    r->index += n;
    r->left -= n;
}

void pq_rle_skip(pq_rle_stream *r, uint32_t n) {
    if (r->packed) r->index += n;
    r->left -= n;
}

int pq_rle_decode(const uint8_t *buf, size_t len, int bit_width, uint32_t *out, uint32_t count,
                  size_t *consumed) {
    pq_rle_stream r;
    uint32_t n = 0;
    int rc = 0;
    pq_rle_init(&r, buf, len, bit_width);
    if (bit_width < 0 || bit_width > 32) {
        rc = tn_error_set(TN_ECORRUPT, "RLE: bit width %d too large (max 32)", bit_width);
        goto cleanup;
    }
    while (n < count) {
        if ((rc = pq_rle_next_run(&r)) != 0) {
            rc = tn_error_prefix(rc, "after %u of %u values", n, count);
            goto cleanup;
        }
        uint32_t take = r.left < count - n ? r.left : count - n;
        if (r.packed) {
            pq_rle_unpack(&r, out + n, take);
        } else {
            if (bit_width < 32 && (r.value >> bit_width) != 0) {
                rc = tn_error_set(TN_ECORRUPT, "RLE: run value %u wider than %d bits", r.value,
                                  bit_width);
                goto cleanup;
            }
            if (r.value == 0) memset(out + n, 0, (size_t)take * sizeof *out);
            else for (uint32_t i = 0; i < take; i++) out[n + i] = r.value;
            r.left -= take;
        }
        n += take;
    }
cleanup:
    if (consumed) *consumed = rc ? 0 : r.pos;
    return rc;
}

/* Bit writer into a caller-sized byte array (widths up to 64). */
typedef struct bitw { uint8_t *p; size_t n; uint64_t acc; int nb; } bitw;

static inline void bw_put32(bitw *b, uint64_t v, int w) {
    b->acc |= v << b->nb;
    b->nb += w;
    while (b->nb >= 8) { b->p[b->n++] = (uint8_t)b->acc; b->acc >>= 8; b->nb -= 8; }
}

static inline void bw_put(bitw *b, uint64_t v, int w) {
    if (w > 32) { bw_put32(b, v & 0xffffffffu, 32); bw_put32(b, v >> 32, w - 32); }
    else if (w > 0) bw_put32(b, v, w);
}

static uint32_t run_length(const uint32_t *v, uint32_t i, uint32_t count, uint32_t cap) {
    uint32_t j = i + 1;
    while (j < count && v[j] == v[i] && j - i < cap) j++;
    return j - i;
}

int pq_rle_encode(tn_buf *out, int bit_width, const uint32_t *values, uint32_t count) {
    int rc = 0;
    const uint32_t max_run = 0x7fffffff;
    if (bit_width < 0 || bit_width > 32)
        return tn_error_set(TN_EINVAL, "RLE: bit width %d out of range 0..32", bit_width);
    if (bit_width < 32)
        for (uint32_t i = 0; i < count; i++)
            if (values[i] >> bit_width)
                return tn_error_set(TN_EINVAL, "RLE: value %u does not fit %d bits", values[i],
                                    bit_width);
    const size_t vbytes = ((size_t)bit_width + 7) / 8;
    uint32_t i = 0;
    while (i < count) {
        uint8_t hdr[16];
        size_t hn = 0;
        uint32_t r = run_length(values, i, count, max_run);
        if (r >= 8) {                                   /* RLE run */
            put_uleb(hdr, &hn, (uint64_t)r << 1);
            for (size_t k = 0; k < vbytes; k++) hdr[hn++] = (uint8_t)(values[i] >> (8 * k));
            if ((rc = tn_buf_append(out, hdr, hn)) != 0) return rc;
            i += r;
            continue;
        }
        /* bit-packed groups of 8 until a run of >= 8 starts at a group boundary */
        uint32_t s = i;
        while (i < count) {
            i += count - i < 8 ? count - i : 8;
            if (i < count && run_length(values, i, count, 8) >= 8) break;
        }
        uint64_t groups = ((uint64_t)(i - s) + 7) / 8;
        put_uleb(hdr, &hn, (groups << 1) | 1);
        size_t nbytes = (size_t)groups * (size_t)bit_width;
        if ((rc = tn_buf_reserve(out, hn + nbytes)) != 0) return rc;
        memcpy(out->data + out->len, hdr, hn);
        out->len += hn;
        bitw b = {out->data + out->len, 0, 0, 0};
        for (uint64_t k = 0; k < groups * 8; k++)
            bw_put(&b, s + k < i ? values[s + k] : 0, bit_width);
        out->len += b.n;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * DELTA_BINARY_PACKED.
 */
static inline uint64_t get_bits64(const uint8_t *p, size_t avail, uint64_t bit, int w) {
    size_t byte = (size_t)(bit >> 3);
    int shift = (int)(bit & 7);
    uint64_t v;
    if (byte + 16 <= avail) {
        v = load64(p + byte) >> shift;
        if (shift + w > 64) v |= load64(p + byte + 8) << (64 - shift);
    } else {
        v = 0;
        int got = 0;
        for (size_t i = byte; i < avail && got < w + shift; i++, got += 8) {
            uint64_t b = p[i];
            if (got == 0) v = b >> shift;
            else if (got - shift < 64) v |= b << (got - shift);
        }
    }
    return w == 64 ? v : v & (((uint64_t)1 << w) - 1);
}

typedef struct delta_hdr { uint64_t block_size, miniblocks, total, first; } delta_hdr;

static int delta_header(const uint8_t *buf, size_t len, size_t *pos, delta_hdr *h) {
    if (read_uleb(buf, len, pos, &h->block_size) || read_uleb(buf, len, pos, &h->miniblocks) ||
        read_uleb(buf, len, pos, &h->total) || read_zigzag(buf, len, pos, &h->first))
        return tn_error_set(TN_ECORRUPT, "DELTA_BINARY_PACKED: truncated header");
    if (h->block_size == 0 || h->block_size % 128 || h->block_size > ((uint64_t)1 << 24) ||
        h->miniblocks == 0 || h->block_size % h->miniblocks ||
        (h->block_size / h->miniblocks) % 32)
        return tn_error_set(TN_ECORRUPT, "DELTA_BINARY_PACKED: bad block size %llu / %llu miniblocks",
                            (unsigned long long)h->block_size, (unsigned long long)h->miniblocks);
    return 0;
}

int pq_delta_binary_decode(const uint8_t *buf, size_t len, int64_t *out, uint32_t max_count,
                           uint32_t *count_out, size_t *consumed, bool is_int32) {
    size_t pos = 0;
    int rc = 0;
    delta_hdr h = {0, 0, 0, 0};
    uint64_t n = 0;
    if ((rc = delta_header(buf, len, &pos, &h)) != 0) goto cleanup;
    if (h.total > max_count) {
        rc = tn_error_set(TN_ECORRUPT, "DELTA_BINARY_PACKED: stream holds %llu values, at most %u "
                          "expected", (unsigned long long)h.total, max_count);
        goto cleanup;
    }
    const int max_w = is_int32 ? 32 : 64;
    const uint64_t vpm = h.block_size / h.miniblocks;
    uint64_t cur = h.first;
    if (h.total > 0) out[n++] = is_int32 ? (int64_t)(int32_t)(uint32_t)cur : (int64_t)cur;
    while (n < h.total) {
        uint64_t min_delta;
        if (read_zigzag(buf, len, &pos, &min_delta) || h.miniblocks > len - pos) {
            rc = tn_error_set(TN_ECORRUPT, "DELTA_BINARY_PACKED: truncated block header after %llu "
                              "of %llu values", (unsigned long long)n, (unsigned long long)h.total);
            goto cleanup;
        }
        const uint8_t *widths = buf + pos;
        pos += (size_t)h.miniblocks;
        for (uint64_t m = 0; m < h.miniblocks && n < h.total; m++) {
            int w = widths[m];
            if (w > max_w) {
                rc = tn_error_set(TN_ECORRUPT, "DELTA_BINARY_PACKED: miniblock bit width %d > %d", w,
                                  max_w);
                goto cleanup;
            }
            uint64_t take = h.total - n < vpm ? h.total - n : vpm;
            uint64_t full_bytes = vpm * (uint64_t)w / 8;
            size_t avail = len - pos;
            if ((take * (uint64_t)w + 7) / 8 > avail) {
                rc = tn_error_set(TN_ECORRUPT, "DELTA_BINARY_PACKED: truncated miniblock after %llu "
                                  "of %llu values", (unsigned long long)n, (unsigned long long)h.total);
                goto cleanup;
            }
            const uint8_t *p = buf + pos;
            if (w == 0) {
                for (uint64_t k = 0; k < take; k++) {
                    cur += min_delta;
                    out[n++] = is_int32 ? (int64_t)(int32_t)(uint32_t)cur : (int64_t)cur;
                }
            } else {
                for (uint64_t k = 0; k < take; k++) {
                    cur += min_delta + get_bits64(p, avail, k * (uint64_t)w, w);
                    out[n++] = is_int32 ? (int64_t)(int32_t)(uint32_t)cur : (int64_t)cur;
                }
            }
            pos += full_bytes < avail ? (size_t)full_bytes : avail;
        }
    }
cleanup:
    if (count_out) *count_out = rc ? 0 : (uint32_t)n;
    if (consumed) *consumed = rc ? 0 : pos;
    return rc;
}

int pq_delta_binary_encode(tn_buf *out, const int64_t *values, uint32_t count, bool is_int32) {
    enum { BLOCK = 128, MINIS = 4, VPM = BLOCK / MINIS };
    uint8_t tmp[16 + MINIS + BLOCK * 8 + 16];
    size_t n = 0;
    int rc;
    put_uleb(tmp, &n, BLOCK);
    put_uleb(tmp, &n, MINIS);
    put_uleb(tmp, &n, count);
    put_uleb(tmp, &n, zigzag64(count ? (is_int32 ? (int32_t)values[0] : values[0]) : 0));
    if ((rc = tn_buf_append(out, tmp, n)) != 0) return rc;
    for (uint32_t start = 1; start < count; start += BLOCK) {
        uint32_t nb = count - start < BLOCK ? count - start : BLOCK;
        uint64_t adj[BLOCK];
        int64_t min = INT64_MAX;
        for (uint32_t k = 0; k < nb; k++) {
            int64_t d;
            if (is_int32)
                d = (int32_t)((uint32_t)values[start + k] - (uint32_t)values[start + k - 1]);
            else
                d = (int64_t)((uint64_t)values[start + k] - (uint64_t)values[start + k - 1]);
            adj[k] = (uint64_t)d;
            if (d < min) min = d;
        }
        for (uint32_t k = 0; k < nb; k++) {
            adj[k] -= (uint64_t)min;
            if (is_int32) adj[k] &= 0xffffffffu;
        }
        n = 0;
        put_uleb(tmp, &n, zigzag64(min));
        size_t wpos = n;
        n += MINIS;
        for (int m = 0; m < MINIS; m++) {
            uint32_t lo = (uint32_t)m * VPM;
            if (lo >= nb) { tmp[wpos + (size_t)m] = 0; continue; }   /* unused: width, no data */
            uint32_t hi = lo + VPM < nb ? lo + VPM : nb;
            uint64_t mx = 0;
            for (uint32_t k = lo; k < hi; k++) mx |= adj[k];
            int w = pq_bit_width(mx);
            tmp[wpos + (size_t)m] = (uint8_t)w;
            bitw b = {tmp + n, 0, 0, 0};
            for (uint32_t k = lo; k < lo + VPM; k++) bw_put(&b, k < hi ? adj[k] : 0, w);
            n += b.n;
        }
        if ((rc = tn_buf_append(out, tmp, n)) != 0) return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY: one implementation each (the _mem forms); the
 * arena forms wrap them.
 */

/* Decodes a lengths stream of exactly `count` values into vals (room for count). */
static int decode_lengths(const uint8_t *buf, size_t len, uint32_t count, const char *enc,
                          const char *what, int64_t *vals, size_t *consumed) {
    uint32_t got = 0;
    int rc = pq_delta_binary_decode(buf, len, vals, count, &got, consumed, true);
    if (rc) return tn_error_prefix(rc, "%s: %s", enc, what);
    if (got != count)
        return tn_error_set(TN_ECORRUPT, "%s: %s stream holds %u values, expected %u", enc, what,
                            got, count);
    return 0;
}

/* The caller's length scratch, or a heap one of n int64s (*owned, freed by the caller). */
static int64_t *lens_scratch(const pq_delta_mem *mem, size_t n, int64_t **owned) {
    *owned = NULL;
    if (mem && mem->lens) return mem->lens;
    *owned = tn_malloc((n ? n : 1) * sizeof **owned);
    if (!*owned) tn_error_set(TN_ENOMEM, "out of memory");
    return *owned;
}

int pq_delta_length_byte_array_decode_mem(const uint8_t *buf, size_t len, uint32_t count,
                                          tn_str *out, const pq_delta_mem *mem, size_t *consumed) {
    static const char E[] = "DELTA_LENGTH_BYTE_ARRAY";
    int64_t *owned = NULL, *lens = lens_scratch(mem, count, &owned);
    size_t pos = 0;
    int rc = 0;
    if (!lens) { rc = TN_ENOMEM; goto cleanup; }
    if ((rc = decode_lengths(buf, len, count, E, "lengths", lens, &pos)) != 0) goto cleanup;
    for (uint32_t i = 0; i < count; i++) {
        int64_t l = lens[i];
        if ((uint64_t)l > len - pos) {                 /* a negative length too */
            rc = tn_error_set(TN_ECORRUPT, "%s: value %u has length %lld, %zu bytes left", E, i,
                              (long long)l, len - pos);
            goto cleanup;
        }
        out[i].ptr = (const char *)buf + pos;
        out[i].len = (uint32_t)l;
        pos += (size_t)l;
    }
cleanup:
    tn_free(owned);
    if (consumed) *consumed = rc ? 0 : pos;
    return rc;
}

int pq_delta_byte_array_decode_mem(const uint8_t *buf, size_t len, uint32_t count, tn_str *out,
                                   const pq_delta_mem *mem, size_t *consumed) {
    static const char E[] = "DELTA_BYTE_ARRAY";
    int64_t *owned = NULL, *prefix = lens_scratch(mem, 2 * (size_t)count, &owned);
    int64_t *suffix = prefix + count;
    size_t pos = 0, c = 0;
    int rc = 0;
    if (!prefix) { rc = TN_ENOMEM; goto cleanup; }
    if ((rc = decode_lengths(buf, len, count, E, "prefix lengths", prefix, &c)) != 0) goto cleanup;
    pos = c;
    rc = decode_lengths(buf + pos, len - pos, count, E, "suffix lengths", suffix, &c);
    if (rc) goto cleanup;
    pos += c;
    /* validate and size everything before copying */
    uint64_t total = 0, suffix_bytes = 0, prev = 0;
    for (uint32_t i = 0; i < count; i++) {
        int64_t p = prefix[i], s = suffix[i];
        if (p < 0 || s < 0) {
            rc = tn_error_set(TN_ECORRUPT, "%s: value %u has a negative length", E, i);
            goto cleanup;
        }
        if ((uint64_t)p > prev) {
            rc = tn_error_set(TN_ECORRUPT, "%s: value %u: prefix length %lld exceeds the previous "
                              "value's length %llu", E, i, (long long)p, (unsigned long long)prev);
            goto cleanup;
        }
        suffix_bytes += (uint64_t)s;
        if (suffix_bytes > len - pos) {
            rc = tn_error_set(TN_ECORRUPT, "%s: suffixes need more than the %zu bytes left", E,
                              len - pos);
            goto cleanup;
        }
        prev = (uint64_t)p + (uint64_t)s;
        total += prev;
        if (total > mem->max_bytes) {
            rc = tn_error_set(TN_ELIMIT, "%s: values expand to more than %llu bytes", E,
                              (unsigned long long)mem->max_bytes);
            goto cleanup;
        }
        if (prev > UINT32_MAX) {
            rc = tn_error_set(TN_ECORRUPT, "%s: value %u is longer than 4 GiB", E, i);
            goto cleanup;
        }
    }
    char *data = NULL;
    if (total) {
        data = mem->alloc(mem->alloc_ctx, (size_t)total);
        if (!data) { rc = tn_error_set(TN_ENOMEM, "%s: out of memory", E); goto cleanup; }
    }
    /* value i-1 ends where value i starts, so its prefix never overlaps the copy */
    size_t off = 0;
    const char *prev_ptr = NULL;
    for (uint32_t i = 0; i < count; i++) {
        size_t p = (size_t)prefix[i], s = (size_t)suffix[i];
        if (p) memcpy(data + off, prev_ptr, p);
        if (s) memcpy(data + off + p, buf + pos, s);
        out[i].ptr = data ? data + off : "";
        out[i].len = (uint32_t)(p + s);
        prev_ptr = out[i].ptr;
        off += p + s;
        pos += s;
    }
cleanup:
    tn_free(owned);
    if (consumed) *consumed = rc ? 0 : pos;
    return rc;
}

static void *arena_alloc(void *arena, size_t size) { return tn_arena_alloc(arena, size); }

int pq_delta_length_byte_array_decode(const uint8_t *buf, size_t len, uint32_t count, tn_str *out,
                                      tn_arena *arena, size_t *consumed) {
    return pq_delta_length_byte_array_decode_mem(buf, len, count, out, NULL, consumed);
}

int pq_delta_byte_array_decode(const uint8_t *buf, size_t len, uint32_t count, tn_str *out,
                               tn_arena *arena, size_t *consumed) {
    const pq_delta_mem mem = {NULL, arena_alloc, arena, (uint64_t)1 << 31};
    return pq_delta_byte_array_decode_mem(buf, len, count, out, &mem, consumed);
}

/* ---------------------------------------------------------------------------------------------
 * BYTE_STREAM_SPLIT: the stream stride is len / width (the page's value count), so the first
 * `count` values of a longer section can be decoded.
 */
int pq_byte_stream_split_decode(const uint8_t *buf, size_t len, size_t width, uint32_t count,
                                uint8_t *out) {
    if (width == 0 || len % width != 0 || len / width < count)
        return tn_error_set(TN_ECORRUPT, "BYTE_STREAM_SPLIT: %zu bytes do not hold %u values of "
                            "%zu bytes", len, count, width);
    size_t stride = len / width;
    if (width == 4) {
        const uint8_t *s0 = buf, *s1 = buf + stride, *s2 = buf + 2 * stride, *s3 = buf + 3 * stride;
        for (uint32_t i = 0; i < count; i++) {
            out[4 * (size_t)i] = s0[i]; out[4 * (size_t)i + 1] = s1[i];
            out[4 * (size_t)i + 2] = s2[i]; out[4 * (size_t)i + 3] = s3[i];
        }
        return 0;
    }
    for (size_t j = 0; j < width; j++) {
        const uint8_t *s = buf + j * stride;
        for (uint32_t i = 0; i < count; i++) out[(size_t)i * width + j] = s[i];
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * PLAIN BOOLEAN.
 */
int pq_plain_bool_decode(const uint8_t *buf, size_t len, uint64_t bit_offset, uint32_t count,
                         uint8_t *out) {
    if (bit_offset + count > (uint64_t)len * 8)
        return tn_error_set(TN_ECORRUPT, "PLAIN BOOLEAN: %u values at bit %llu need more than %zu "
                            "bytes", count, (unsigned long long)bit_offset, len);
    uint32_t i = 0;
    while (i < count && ((bit_offset + i) & 7)) {
        uint64_t b = bit_offset + i;
        out[i++] = (buf[b >> 3] >> (b & 7)) & 1;
    }
    for (; i + 8 <= count; i += 8) {
        uint8_t byte = buf[(bit_offset + i) >> 3];
        for (int k = 0; k < 8; k++) out[i + (uint32_t)k] = (byte >> k) & 1;
    }
    for (; i < count; i++) {
        uint64_t b = bit_offset + i;
        out[i] = (buf[b >> 3] >> (b & 7)) & 1;
    }
    return 0;
}

int pq_plain_bool_encode(tn_buf *out, const uint8_t *values, uint32_t count) {
    size_t nbytes = ((size_t)count + 7) / 8;
    int rc = tn_buf_reserve(out, nbytes);
    if (rc) return rc;
    uint8_t *p = out->data + out->len;
    memset(p, 0, nbytes);
    for (uint32_t i = 0; i < count; i++)
        if (values[i]) p[i >> 3] |= (uint8_t)(1u << (i & 7));
    out->len += nbytes;
    return 0;
}
