/*
 * sql/func_hash.c: hashing functions. hash(x, ...) is Spark's: Murmur3 x86_32 with seed 42,
 * chained over the arguments (NULLs skipped), ints/dates via hashInt, longs/timestamps via
 * hashLong, strings via Spark's hashUnsafeBytes (tail bytes mixed one by one, sign-extended) ->
 * INTEGER, so tarn, Spark and qbeast agree. xxhash64(x, ...) is Spark's XXH64 seed 42 -> BIGINT.
 * md5/sha256 (OpenSSL EVP) -> lower-case hex VARCHAR; crc32 (zlib polynomial) -> BIGINT.
 */
#include "sql/functions.h"

#include <openssl/evp.h>
#include <string.h>

#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out

/* Spark's hash(): tn_spark_hash_value (types/jvm_hash.c) chained from seed 42. */
static int f_hash(FN_ARGS) {
    int32_t *res = out->data;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h = 42;
        for (uint32_t k = 0; k < nargs; k++) {
            uint32_t r = TN_ARG_IDX(args[k], i);
            if (args[k]->type.id == TN_TYPE_NULL || !tn_vector_is_valid(args[k], r)) continue;
            h = tn_spark_hash_value(args[k], r, h);
        }
        res[i] = (int32_t)h;
    }
    if (out->validity) memset(out->validity, 0xff, ((size_t)n + 63) / 64 * 8);
    return 0;
}

/* Spark XxHash64: ints are hashed as 4 bytes, longs as 8 (little-endian), strings as bytes. */
static uint64_t xx_row(const tn_vector *v, uint32_t r, uint64_t seed) {
    uint8_t b[16];
    switch (v->type.id) {
    case TN_TYPE_BOOLEAN: tn_store_u32le(b, ((const uint8_t *)v->data)[r] ? 1 : 0); return tn_xxh64(b, 4, seed);
    case TN_TYPE_TINYINT: tn_store_u32le(b, (uint32_t)(int32_t)((const int8_t *)v->data)[r]); return tn_xxh64(b, 4, seed);
    case TN_TYPE_SMALLINT: tn_store_u32le(b, (uint32_t)(int32_t)((const int16_t *)v->data)[r]); return tn_xxh64(b, 4, seed);
    case TN_TYPE_INTEGER:
    case TN_TYPE_DATE: tn_store_u32le(b, (uint32_t)((const int32_t *)v->data)[r]); return tn_xxh64(b, 4, seed);
    case TN_TYPE_BIGINT:
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: tn_store_u64le(b, (uint64_t)((const int64_t *)v->data)[r]); return tn_xxh64(b, 8, seed);
    case TN_TYPE_FLOAT: {
        float f = ((const float *)v->data)[r];
        if (f == 0) f = 0;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        tn_store_u32le(b, bits);
        return tn_xxh64(b, 4, seed);
    }
    case TN_TYPE_DOUBLE: {
        double d = ((const double *)v->data)[r];
        if (d == 0) d = 0;
        uint64_t bits;
        memcpy(&bits, &d, 8);
        tn_store_u64le(b, bits);
        return tn_xxh64(b, 8, seed);
    }
    case TN_TYPE_DECIMAL: {
        tn_int128 x = tn_dec_get(v, r);
        if (v->type.precision <= 18) {
            tn_store_u64le(b, (uint64_t)(int64_t)x);
            return tn_xxh64(b, 8, seed);
        }
        uint32_t k = tn_int128_java_bytes(x, b);
        return tn_xxh64(b, k, seed);
    }
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: {
        tn_str s = ((const tn_str *)v->data)[r];
        return tn_xxh64(s.ptr, s.len, seed);
    }
    default: return seed;
    }
}

static int f_xxhash64(FN_ARGS) {
    int64_t *res = out->data;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t h = 42;
        for (uint32_t k = 0; k < nargs; k++) {
            uint32_t r = TN_ARG_IDX(args[k], i);
            if (args[k]->type.id == TN_TYPE_NULL || !tn_vector_is_valid(args[k], r)) continue;
            h = xx_row(args[k], r, h);
        }
        res[i] = (int64_t)h;
    }
    if (out->validity) memset(out->validity, 0xff, ((size_t)n + 63) / 64 * 8);
    return 0;
}

static int digest_fn(FN_ARGS, const EVP_MD *md) {
    static const char hex[] = "0123456789abcdef";
    for (uint32_t i = 0; i < n; i++) {
        if (!tn_vector_is_valid(out, i)) {
            tn_func_str_empty(out, i);
            continue;
        }
        tn_str s = ((const tn_str *)args[0]->data)[TN_ARG_IDX(args[0], i)];
        unsigned char d[EVP_MAX_MD_SIZE];
        unsigned int dl = 0;
        if (EVP_Digest(s.ptr, s.len, d, &dl, md, NULL) != 1)
            return tn_error_set(TN_EINTERNAL, "OpenSSL digest failed");
        char text[EVP_MAX_MD_SIZE * 2];
        for (unsigned k = 0; k < dl; k++) text[2 * k] = hex[d[k] >> 4], text[2 * k + 1] = hex[d[k] & 15];
        int rc = tn_vector_set_str(out, i, text, dl * 2);
        if (rc) return rc;
    }
    return 0;
}
static int f_md5(FN_ARGS) { return digest_fn(call, args, nargs, n, out, EVP_md5()); }
static int f_sha256(FN_ARGS) { return digest_fn(call, args, nargs, n, out, EVP_sha256()); }
static int f_sha1(FN_ARGS) { return digest_fn(call, args, nargs, n, out, EVP_sha1()); }

static int f_crc32(FN_ARGS) {
    int64_t *res = out->data;
    for (uint32_t i = 0; i < n; i++) {
        tn_str s = ((const tn_str *)args[0]->data)[TN_ARG_IDX(args[0], i)];
        res[i] = tn_vector_is_valid(out, i) ? (int64_t)tn_crc32(0, s.ptr, s.len) : 0;
    }
    return 0;
}

#define N TN_SIG_NONE
const tn_func_def tn_funcs_hash[] = {
    {"hash", {TN_SIG_ANY, N}, TN_TYPE_INTEGER, TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, f_hash, NULL, NULL},
    {"xxhash64", {TN_SIG_ANY, N}, TN_TYPE_BIGINT, TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, f_xxhash64, NULL, NULL},
    {"md5", {TN_TYPE_VARCHAR, N}, TN_TYPE_VARCHAR, 0, f_md5, NULL, NULL},
    {"md5", {TN_TYPE_VARBINARY, N}, TN_TYPE_VARCHAR, 0, f_md5, NULL, NULL},
    {"sha256", {TN_TYPE_VARCHAR, N}, TN_TYPE_VARCHAR, 0, f_sha256, NULL, NULL},
    {"sha1", {TN_TYPE_VARCHAR, N}, TN_TYPE_VARCHAR, 0, f_sha1, NULL, NULL},
    {"crc32", {TN_TYPE_VARCHAR, N}, TN_TYPE_BIGINT, 0, f_crc32, NULL, NULL},
    {"crc32", {TN_TYPE_VARBINARY, N}, TN_TYPE_BIGINT, 0, f_crc32, NULL, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
