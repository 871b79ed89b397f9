/*
 * layout/bucket/hash.c: Paimon's default bucket function, so that tarn puts a key in the bucket
 * Paimon would: the bucket-key values as a Paimon BinaryRow, MurmurHash3 x86_32 (seed 42) over
 * its bytes by little-endian 4-byte words, bucket = abs(hash % N).
 *
 * BinaryRow of n fields (all little-endian):
 *   offset 0        header: byte 0 = row kind (0, INSERT), then the null bits: field i is bit
 *                   i + 8; the header is ((n + 63 + 8) / 64) * 8 bytes
 *   then            one 8-byte slot per field, zero when NULL:
 *                     BOOLEAN, TINYINT 1 byte; SMALLINT 2; INT, DATE (days), FLOAT 4; BIGINT,
 *                     DOUBLE, DECIMAL(p <= 18) unscaled 8;
 *                     strings/binary of len <= 7: the bytes, slot byte 7 = 0x80 | len;
 *                     longer: (offset << 32) | len, the bytes in the variable part;
 *                     TIMESTAMP(6): (offset << 32) | nano-of-millisecond, the variable part
 *                     holds 8 bytes of epoch milliseconds;
 *                     DECIMAL(p > 18): (offset << 32) | len, 16 variable bytes reserved holding
 *                     the unscaled value's minimal big-endian two's complement bytes
 *   then            the variable part, each piece zero-padded to a multiple of 8 bytes
 */
#include "layout/bucket/bucketInt.h"

#include <string.h>

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Minimal big-endian two's complement bytes of v (Java BigInteger.toByteArray). */
static int int128_bytes(tn_int128 v, uint8_t *out) {
    uint8_t be[16];
    unsigned __int128 u = (unsigned __int128)v;
    for (int i = 15; i >= 0; i--) {
        be[i] = (uint8_t)u;
        u >>= 8;
    }
    int start = 0;
    /* drop leading bytes that are pure sign extension */
    while (start < 15) {
        uint8_t b = be[start], next = be[start + 1];
        if ((b == 0x00 && !(next & 0x80)) || (b == 0xFF && (next & 0x80))) start++;
        else break;
    }
    memcpy(out, be + start, (size_t)(16 - start));
    return 16 - start;
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

int tn_bucket_binary_row(tn_buf *out, const tn_value *values, uint32_t n) {
    tn_buf_clear(out);
    size_t header = ((size_t)(n + 63 + 8) / 64) * 8;
    size_t fixed = header + 8 * (size_t)n;
    int rc = tn_buf_reserve(out, fixed + 64);
    if (rc) return rc;
    memset(out->data, 0, fixed);
    out->len = fixed;
    for (uint32_t i = 0; i < n; i++) {
        const tn_value *v = &values[i];
        size_t slot = header + 8 * (size_t)i;
        if (v->is_null || v->type.id == TN_TYPE_NULL) {
            uint32_t bit = i + 8;
            out->data[bit / 8] |= (uint8_t)(1u << (bit % 8));
            continue;
        }
        uint8_t *s = out->data + slot;
        switch ((tn_type_id)v->type.id) {
        case TN_TYPE_BOOLEAN: s[0] = v->u.b ? 1 : 0; break;
        case TN_TYPE_TINYINT: put_le(s, (uint64_t)v->u.i, 1); break;
        case TN_TYPE_SMALLINT: put_le(s, (uint64_t)v->u.i, 2); break;
        case TN_TYPE_INTEGER:
        case TN_TYPE_DATE: put_le(s, (uint64_t)v->u.i, 4); break;
        case TN_TYPE_BIGINT: put_le(s, (uint64_t)v->u.i, 8); break;
        case TN_TYPE_FLOAT: {
            float f = (float)v->u.d;
            uint32_t bits;
            memcpy(&bits, &f, 4);
            put_le(s, bits, 4);
            break;
        }
        case TN_TYPE_DOUBLE: {
            uint64_t bits;
            memcpy(&bits, &v->u.d, 8);
            put_le(s, bits, 8);
            break;
        }
        case TN_TYPE_DECIMAL:
            if (v->type.precision <= TN_DECIMAL_INT64_MAX_PRECISION) {
                put_le(s, (uint64_t)v->u.i, 8);
            } else {
                uint8_t bytes[16];
                int len = int128_bytes(v->u.i128, bytes);
                size_t off = out->len;
                uint8_t pad[16] = {0};
                rc = tn_buf_append(out, pad, 16);
                if (rc) return rc;
                memcpy(out->data + off, bytes, (size_t)len);
                put_le(out->data + slot, ((uint64_t)off << 32) | (uint32_t)len, 8);
            }
            break;
        case TN_TYPE_VARCHAR:
        case TN_TYPE_VARBINARY: {
            uint32_t len = v->u.s.len;
            if (len <= 7) {
                if (len) memcpy(s, v->u.s.ptr, len);
                s[7] = (uint8_t)(0x80 | len);
            } else {
                size_t off = out->len;
                size_t rounded = ((size_t)len + 7) / 8 * 8;
                rc = tn_buf_reserve(out, rounded);
                if (rc) return rc;
                memset(out->data + off, 0, rounded);
                memcpy(out->data + off, v->u.s.ptr, len);
                out->len = off + rounded;
                put_le(out->data + slot, ((uint64_t)off << 32) | len, 8);
            }
            break;
        }
        case TN_TYPE_TIMESTAMP:
        case TN_TYPE_TIMESTAMP_TZ: {
            int64_t micros = v->u.i;
            int64_t millis = floor_div(micros, 1000);
            uint32_t nano_of_milli = (uint32_t)((micros - millis * 1000) * 1000);
            size_t off = out->len;
            uint8_t ms[8];
            put_le(ms, (uint64_t)millis, 8);
            rc = tn_buf_append(out, ms, 8);
            if (rc) return rc;
            put_le(out->data + slot, ((uint64_t)off << 32) | nano_of_milli, 8);
            break;
        }
        default:
            return tn_error_set(TN_EUNSUPPORTED, "a bucket key of type %s is not supported",
                                tn_type_id_name((tn_type_id)v->type.id));
        }
    }
    return 0;
}

/* The slot width of a fixed-width bucket-key type (0: not one: strings, floats, timestamps,
 * wide decimals take tn_bucket_binary_row). */
static int fixed_width(tn_type t) {
    switch ((tn_type_id)t.id) {
    case TN_TYPE_BOOLEAN:
    case TN_TYPE_TINYINT: return 1;
    case TN_TYPE_SMALLINT: return 2;
    case TN_TYPE_INTEGER:
    case TN_TYPE_DATE: return 4;
    case TN_TYPE_BIGINT: return 8;
    case TN_TYPE_DECIMAL: return t.precision <= TN_DECIMAL_INT64_MAX_PRECISION ? 8 : 0;
    default: return 0;
    }
}

bool tn_bucket_fixed_keys(const tn_vector *const *cols, uint32_t n) {
    if (n == 0 || n > TN_BUCKET_MAX_KEYS) return false;
    for (uint32_t i = 0; i < n; i++)
        if (!fixed_width(cols[i]->type) || tn_type_width(cols[i]->type) != (size_t)fixed_width(cols[i]->type))
            return false;
    return true;
}

int32_t tn_bucket_hash_fixed(const tn_vector *const *cols, uint32_t n, uint32_t row) {
    uint8_t buf[8 + 8 * TN_BUCKET_MAX_KEYS + 8];
    size_t header = ((size_t)(n + 63 + 8) / 64) * 8, len = header + 8 * (size_t)n;
    memset(buf, 0, len);
    for (uint32_t i = 0; i < n; i++) {
        const tn_vector *v = cols[i];
        uint8_t *s = buf + header + 8 * (size_t)i;
        if (!tn_vector_is_valid(v, row)) {
            buf[(i + 8) / 8] |= (uint8_t)(1u << ((i + 8) % 8));
            continue;
        }
        int w = fixed_width(v->type);
        const uint8_t *src = (const uint8_t *)v->data + (size_t)row * (size_t)w;
        if (v->type.id == TN_TYPE_BOOLEAN) s[0] = src[0] ? 1 : 0;
        else memcpy(s, src, (size_t)w);   /* little-endian, as put_le writes them */
    }
    return (int32_t)tn_murmur3_32(buf, len, 42);
}

bool tn_bucket_hash_column(const tn_vector *v, uint32_t first, uint32_t end, int32_t *out) {
    int w = fixed_width(v->type);
    if ((w != 4 && w != 8) || tn_type_width(v->type) != (size_t)w) return false;
    if (v->validity)
        for (uint32_t r = first; r < end; r++)
            if (!tn_vector_is_valid(v, r)) return false;
    /* the BinaryRow of one non-NULL field: an 8-byte header of zeros, then the 8-byte slot (a
     * 4-byte value in its low half); 16 bytes, four blocks, seed 42 */
    const uint32_t h0 = tn_murmur3_block(tn_murmur3_block(42, 0), 0);
    if (w == 8) {
        const uint64_t *d = v->data;
        for (uint32_t r = first; r < end; r++)
            out[r] = (int32_t)tn_murmur3_final(tn_murmur3_block(tn_murmur3_block(h0, (uint32_t)d[r]), (uint32_t)(d[r] >> 32)), 16);
    } else {
        const uint32_t *d = v->data;
        for (uint32_t r = first; r < end; r++) out[r] = (int32_t)tn_murmur3_final(tn_murmur3_block(tn_murmur3_block(h0, d[r]), 0), 16);
    }
    return true;
}

int32_t tn_bucket_hash_bytes(const uint8_t *data, size_t len) {
    return (int32_t)tn_murmur3_32(data, len, 42);
}

int tn_bucket_hash_values(const tn_value *values, uint32_t n, int32_t *hash) {
    tn_buf b = TN_BUF_INIT;
    int rc = tn_bucket_binary_row(&b, values, n);
    if (!rc) *hash = tn_bucket_hash_bytes(b.data, b.len);
    tn_buf_free(&b);
    return rc;
}

int tn_bucket_hash_rows(const tn_vector *const *kc, uint32_t nk, uint32_t first, uint32_t end, int32_t *out) {
    if (nk == 1 && tn_bucket_hash_column(kc[0], first, end, out)) return 0;
    if (tn_bucket_fixed_keys(kc, nk)) {
        for (uint32_t r = first; r < end; r++) out[r] = tn_bucket_hash_fixed(kc, nk, r);
        return 0;
    }
    tn_value vals[TN_BUCKET_MAX_KEYS];
    tn_buf row = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t r = first; r < end && !rc; r++) {
        for (uint32_t k = 0; k < nk; k++) tn_vector_get_value(kc[k], r, &vals[k]);
        rc = tn_bucket_binary_row(&row, vals, nk);
        if (!rc) out[r] = tn_bucket_hash_bytes(row.data, row.len);
    }
    tn_buf_free(&row);
    return rc;
}
