/*
 * types/jvm_hash.c: the JVM hashes other systems store or compare against: Spark's
 * Murmur3_x86_32 of one value (hashInt / hashLong / hashUnsafeBytes with its sign-extended byte
 * tail; the building block of Spark's hash(), qbeast's record weight) and Scala's
 * MurmurHash3.bytesHash (qbeast's hash transformation). Shared by sql/ and layout/otree/.
 */
#include "types/types.h"

#include <string.h>

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
static inline uint32_t mix_k1(uint32_t k1) {
    k1 *= 0xcc9e2d51u;
    k1 = rotl32(k1, 15);
    return k1 * 0x1b873593u;
}
static inline uint32_t mix_h1(uint32_t h1, uint32_t k1) {
    h1 ^= k1;
    h1 = rotl32(h1, 13);
    return h1 * 5 + 0xe6546b64u;
}
static inline uint32_t fmix32(uint32_t h1, uint32_t len) {
    h1 ^= len;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    return h1 ^ (h1 >> 16);
}
static inline uint32_t load32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint32_t h_int(uint32_t v, uint32_t seed) { return fmix32(mix_h1(seed, mix_k1(v)), 4); }
static uint32_t h_long(uint64_t v, uint32_t seed) {
    uint32_t h1 = mix_h1(seed, mix_k1((uint32_t)v));
    h1 = mix_h1(h1, mix_k1((uint32_t)(v >> 32)));
    return fmix32(h1, 8);
}
/* Spark's hashUnsafeBytes: each tail byte sign-extended and mixed as a whole block. */
static uint32_t h_bytes(const uint8_t *p, uint32_t n, uint32_t seed) {
    uint32_t aligned = n - n % 4, h1 = seed;
    for (uint32_t i = 0; i < aligned; i += 4) h1 = mix_h1(h1, mix_k1(load32(p + i)));
    for (uint32_t i = aligned; i < n; i++) h1 = mix_h1(h1, mix_k1((uint32_t)(int32_t)(int8_t)p[i]));
    return fmix32(h1, n);
}

/* Java BigInteger.toByteArray of a 128-bit value (big-endian, minimal two's complement). */
uint32_t tn_int128_java_bytes(tn_int128 v, uint8_t *out) {
    uint8_t be[16];
    for (int i = 0; i < 16; i++) be[15 - i] = (uint8_t)((unsigned __int128)v >> (8 * i));
    int s = 0;
    while (s < 15 && ((be[s] == 0 && !(be[s + 1] & 0x80)) || (be[s] == 0xFF && (be[s + 1] & 0x80)))) s++;
    memcpy(out, be + s, (size_t)(16 - s));
    return (uint32_t)(16 - s);
}

uint32_t tn_spark_hash_value(const tn_vector *v, uint32_t r, uint32_t seed) {
    switch (v->type.id) {
    case TN_TYPE_BOOLEAN: return h_int(((const uint8_t *)v->data)[r] ? 1 : 0, seed);
    case TN_TYPE_TINYINT: return h_int((uint32_t)(int32_t)((const int8_t *)v->data)[r], seed);
    case TN_TYPE_SMALLINT: return h_int((uint32_t)(int32_t)((const int16_t *)v->data)[r], seed);
    case TN_TYPE_INTEGER:
    case TN_TYPE_DATE: return h_int((uint32_t)((const int32_t *)v->data)[r], seed);
    case TN_TYPE_BIGINT:
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: return h_long((uint64_t)((const int64_t *)v->data)[r], seed);
    case TN_TYPE_FLOAT: {
        float f = ((const float *)v->data)[r];
        uint32_t bits;
        if (f == 0) f = 0;                             /* -0.0 hashes as 0.0 (Spark 3.5) */
        if (f != f) bits = 0x7fc00000u;                /* floatToIntBits: the canonical NaN */
        else memcpy(&bits, &f, 4);
        return h_int(bits, seed);
    }
    case TN_TYPE_DOUBLE: {
        double d = ((const double *)v->data)[r];
        uint64_t bits;
        if (d == 0) d = 0;
        if (d != d) bits = 0x7ff8000000000000ull;
        else memcpy(&bits, &d, 8);
        return h_long(bits, seed);
    }
    case TN_TYPE_DECIMAL: {
        tn_int128 x;
        if (tn_type_is_decimal128(v->type)) x = ((const tn_int128 *)v->data)[r];
        else x = ((const int64_t *)v->data)[r];
        if (v->type.precision <= 18) return h_long((uint64_t)(int64_t)x, seed);
        uint8_t b[16];
        uint32_t k = tn_int128_java_bytes(x, b);
        return h_bytes(b, k, seed);
    }
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: {
        tn_str s = ((const tn_str *)v->data)[r];
        return h_bytes((const uint8_t *)s.ptr, s.len, seed);
    }
    default: return seed;
    }
}

/* scala.util.hashing.MurmurHash3: standard Murmur3 x86_32 block mixing, Scala's tail handling
 * (the standard one) and finalization by length. */
int32_t tn_scala_bytes_hash(const uint8_t *p, uint32_t n) {
    uint32_t h = 0x3c074a61u, i = 0;
    for (; i + 4 <= n; i += 4) h = mix_h1(h, mix_k1(load32(p + i)));
    uint32_t k = 0, rem = n & 3;
    if (rem == 3) k ^= (uint32_t)p[i + 2] << 16;
    if (rem >= 2) k ^= (uint32_t)p[i + 1] << 8;
    if (rem >= 1) {
        k ^= (uint32_t)p[i];
        h ^= mix_k1(k);
    }
    return (int32_t)fmix32(h, n);
}
