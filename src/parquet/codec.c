/*
 * parquet/codec.c: page compression codecs over the system libraries: UNCOMPRESSED, SNAPPY
 * (snappy-c.h), GZIP (zlib, gzip wrapper, several members), ZSTD (several frames), LZ4_RAW
 * (block), BROTLI (libbrotlienc/libbrotlidec) and the deprecated LZ4 (read only: Hadoop framing,
 * else a bare block). LZO is refused by name. Decompression must produce exactly the expected size.
 *
 * Hadoop LZ4 framing: repeated [u32 BE uncompressed len][u32 BE compressed len][LZ4 block].
 */
#include "parquet/parquetInt.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <limits.h>
#include <lz4.h>
#include <pthread.h>
#include <snappy-c.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

static int size_mismatch(const char *codec, size_t got, size_t expected) {
    return tn_error_set(TN_ECORRUPT, "%s: page decompresses to %zu bytes, expected %zu", codec, got,
                        expected);
}

static int gzip_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t expected) {
    z_stream zs;
    uint8_t scratch[1];
    int rc = 0, zrc;
    memset(&zs, 0, sizeof zs);
    /* 15 + 32: gzip or zlib header, detected (Parquet's GZIP is gzip; be lenient) */
    if (inflateInit2(&zs, 15 + 32) != Z_OK) return tn_error_set(TN_ENOMEM, "GZIP: inflateInit failed");
    size_t in_done = 0, out_done = 0;
    for (;;) {
        size_t in_chunk = src_len - in_done > UINT_MAX ? UINT_MAX : src_len - in_done;
        size_t out_chunk = expected - out_done > UINT_MAX ? UINT_MAX : expected - out_done;
        zs.next_in = (Bytef *)(src + in_done);
        zs.avail_in = (uInt)in_chunk;
        if (out_chunk) {
            zs.next_out = dst + out_done;
            zs.avail_out = (uInt)out_chunk;
        } else {            /* all expected bytes produced: any more output is an error */
            zs.next_out = scratch;
            zs.avail_out = sizeof scratch;
        }
        zrc = inflate(&zs, Z_NO_FLUSH);
        in_done += in_chunk - zs.avail_in;
        if (out_chunk) out_done += out_chunk - zs.avail_out;
        else if (zs.avail_out == 0) {
            rc = tn_error_set(TN_ECORRUPT, "GZIP: page decompresses to more than %zu bytes", expected);
            goto cleanup;
        }
        if (zrc == Z_STREAM_END) {
            /* another member may follow (concatenated gzip members) */
            if (in_done < src_len) {
                if (inflateReset(&zs) != Z_OK) {
                    rc = tn_error_set(TN_ECORRUPT, "GZIP: inflateReset failed");
                    goto cleanup;
                }
                continue;
            }
            break;
        }
        if (zrc == Z_OK) continue;
        if (zrc == Z_BUF_ERROR) {
            if (in_done >= src_len) {
                rc = tn_error_set(TN_ECORRUPT, "GZIP: truncated stream (%zu of %zu bytes produced)",
                                  out_done, expected);
                goto cleanup;
            }
            continue;       /* output window was full; loop decides */
        }
        rc = tn_error_set(TN_ECORRUPT, "GZIP: %s", zs.msg ? zs.msg : "invalid data");
        goto cleanup;
    }
    if (out_done != expected) rc = size_mismatch("GZIP", out_done, expected);
cleanup:
    inflateEnd(&zs);
    return rc;
}

static int lz4_block(const uint8_t *src, size_t src_len, uint8_t *dst, size_t expected) {
    char scratch[1];
    if (src_len > INT_MAX || expected > INT_MAX) return -1;
    int n = LZ4_decompress_safe((const char *)src, expected ? (char *)dst : scratch, (int)src_len,
                                (int)expected);
    return n == (int)expected ? 0 : -1;
}

/* Deprecated LZ4: Hadoop frames, falling back to one bare block (old parquet-cpp). */
static int lz4_hadoop_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t expected) {
    size_t in = 0, out = 0;
    bool ok = src_len >= 8;
    while (ok && in < src_len) {
        if (src_len - in < 8) { ok = false; break; }
        uint32_t ulen = ((uint32_t)src[in] << 24) | ((uint32_t)src[in + 1] << 16) |
                        ((uint32_t)src[in + 2] << 8) | src[in + 3];
        uint32_t clen = ((uint32_t)src[in + 4] << 24) | ((uint32_t)src[in + 5] << 16) |
                        ((uint32_t)src[in + 6] << 8) | src[in + 7];
        in += 8;
        if (clen > src_len - in || ulen > expected - out) { ok = false; break; }
        if (lz4_block(src + in, clen, dst + out, ulen) != 0) { ok = false; break; }
        in += clen;
        out += ulen;
    }
    if (ok && out == expected) return 0;
    if (lz4_block(src, src_len, dst, expected) == 0) return 0;
    return tn_error_set(TN_ECORRUPT, "LZ4: neither Hadoop-framed nor a raw block of %zu bytes",
                        expected);
}

/* One BROTLI stream (Parquet's framing-free use): it must end exactly at the expected size and
 * use all of the input. The streaming decoder tells "needs more output" (too large) from
 * "needs more input" (truncated). */
static int brotli_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t expected) {
    BrotliDecoderState *st = BrotliDecoderCreateInstance(NULL, NULL, NULL);
    if (!st) return tn_error_set(TN_ENOMEM, "BROTLI: cannot create a decoder");
    uint8_t scratch[1];
    const uint8_t *in = src;
    size_t avail_in = src_len, avail_out = expected ? expected : sizeof scratch;
    uint8_t *out = expected ? dst : scratch;
    int rc = 0;
    BrotliDecoderResult r = BrotliDecoderDecompressStream(st, &avail_in, &in, &avail_out, &out, NULL);
    size_t produced = expected ? expected - avail_out : sizeof scratch - avail_out;
    if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT && expected && avail_out == 0) {
        /* the output is full: the stream may still end without producing more */
        size_t one = sizeof scratch;
        uint8_t *sp = scratch;
        r = BrotliDecoderDecompressStream(st, &avail_in, &in, &one, &sp, NULL);
        produced += sizeof scratch - one;
    }
    if (r == BROTLI_DECODER_RESULT_SUCCESS) {
        if (avail_in != 0)
            rc = tn_error_set(TN_ECORRUPT, "BROTLI: %zu bytes after the end of the stream", avail_in);
        else if (produced != expected) rc = size_mismatch("BROTLI", produced, expected);
    } else if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
        rc = tn_error_set(TN_ECORRUPT, "BROTLI: page decompresses to more than %zu bytes", expected);
    } else if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
        rc = tn_error_set(TN_ECORRUPT, "BROTLI: truncated stream (%zu of %zu bytes produced)",
                          produced, expected);
    } else {
        rc = tn_error_set(TN_ECORRUPT, "BROTLI: invalid compressed data (%s)",
                          BrotliDecoderErrorString(BrotliDecoderGetErrorCode(st)));
    }
    BrotliDecoderDestroyInstance(st);
    return rc;
}

/* BROTLI quality 1..11; 0 = the default, 3 (chosen for write speed; higher levels trade much
 * slower writes for a few percent). */
static int brotli_compress(int level, const uint8_t *src, size_t src_len, tn_buf *out) {
    if (level == 0) level = 3;
    if (level < 0 || level > BROTLI_MAX_QUALITY)
        return tn_error_set(TN_EINVAL, "BROTLI: level %d not in 1..%d", level, BROTLI_MAX_QUALITY);
    size_t cap = BrotliEncoderMaxCompressedSize(src_len);
    if (cap == 0) return tn_error_set(TN_ELIMIT, "BROTLI: page of %zu bytes is too large", src_len);
    int rc = tn_buf_reserve(out, cap);
    if (rc) return rc;
    size_t n = cap;
    if (!BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, src_len, src, &n,
                               out->data + out->len))
        return tn_error_set(TN_EINTERNAL, "BROTLI: compression failed");
    out->len += n;
    return 0;
}

/* One ZSTD decompression context per thread, reused by every page it decompresses
 * (ZSTD_decompress creates and initialises one per call: most of the time of small pages),
 * freed when the thread exits. */
static pthread_key_t zstd_dkey;
static pthread_once_t zstd_donce = PTHREAD_ONCE_INIT;
static int zstd_dkey_ok;

static void zstd_free_dctx(void *p) { ZSTD_freeDCtx(p); }
static void zstd_dkey_init(void) { zstd_dkey_ok = pthread_key_create(&zstd_dkey, zstd_free_dctx) == 0; }

static ZSTD_DCtx *zstd_dctx(void) {
    pthread_once(&zstd_donce, zstd_dkey_init);
    if (!zstd_dkey_ok) return NULL;
    ZSTD_DCtx *c = pthread_getspecific(zstd_dkey);
    if (!c && (c = ZSTD_createDCtx()) != NULL && pthread_setspecific(zstd_dkey, c) != 0) {
        ZSTD_freeDCtx(c);
        c = NULL;
    }
    return c;
}

int pq_decompress(int codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t expected) {
    if (expected == 0 && src_len == 0 && codec != TN_CODEC_LZO) return 0;
    switch (codec) {
    case TN_CODEC_UNCOMPRESSED:
        if (src_len != expected) return size_mismatch("UNCOMPRESSED", src_len, expected);
        if (expected) memmove(dst, src, expected);
        return 0;
    case TN_CODEC_SNAPPY: {
        size_t n;
        if (snappy_uncompressed_length((const char *)src, src_len, &n) != SNAPPY_OK)
            return tn_error_set(TN_ECORRUPT, "SNAPPY: invalid data");
        if (n != expected) return size_mismatch("SNAPPY", n, expected);
        if (expected == 0) return 0;
        size_t out_len = expected;
        if (snappy_uncompress((const char *)src, src_len, (char *)dst, &out_len) != SNAPPY_OK)
            return tn_error_set(TN_ECORRUPT, "SNAPPY: invalid data");
        if (out_len != expected) return size_mismatch("SNAPPY", out_len, expected);
        return 0;
    }
    case TN_CODEC_GZIP:
        return gzip_decompress(src, src_len, dst, expected);
    case TN_CODEC_ZSTD: {
        uint8_t scratch[1];
        ZSTD_DCtx *dctx = zstd_dctx();
        size_t n = dctx ? ZSTD_decompressDCtx(dctx, expected ? dst : scratch, expected, src, src_len)
                        : ZSTD_decompress(expected ? dst : scratch, expected, src, src_len);
        if (ZSTD_isError(n)) {
            if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
                return tn_error_set(TN_ECORRUPT, "ZSTD: page decompresses to more than %zu bytes",
                                    expected);
            return tn_error_set(TN_ECORRUPT, "ZSTD: %s", ZSTD_getErrorName(n));
        }
        if (n != expected) return size_mismatch("ZSTD", n, expected);
        return 0;
    }
    case TN_CODEC_LZ4_RAW:
        if (lz4_block(src, src_len, dst, expected) != 0)
            return tn_error_set(TN_ECORRUPT, "LZ4_RAW: invalid block or not %zu bytes", expected);
        return 0;
    case TN_CODEC_LZ4:
        return lz4_hadoop_decompress(src, src_len, dst, expected);
    case TN_CODEC_BROTLI:
        return brotli_decompress(src, src_len, dst, expected);
    case TN_CODEC_LZO:
        return tn_error_set(TN_EUNSUPPORTED, "LZO codec is not supported");
    default:
        return tn_error_set(TN_EUNSUPPORTED, "unknown compression codec %d", codec);
    }
}

static int gzip_compress(int level, const uint8_t *src, size_t src_len, tn_buf *out) {
    z_stream zs;
    int rc = 0;
    memset(&zs, 0, sizeof zs);
    if (level == 0) level = 6;
    if (level < 1 || level > 9) return tn_error_set(TN_EINVAL, "GZIP: level %d not in 1..9", level);
    if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return tn_error_set(TN_ENOMEM, "GZIP: deflateInit failed");
    size_t bound = deflateBound(&zs, (uLong)src_len) + 32;
    if (src_len > UINT_MAX || bound > UINT_MAX) {
        rc = tn_error_set(TN_ELIMIT, "GZIP: page of %zu bytes is too large", src_len);
        goto cleanup;
    }
    if ((rc = tn_buf_reserve(out, bound)) != 0) goto cleanup;
    zs.next_in = (Bytef *)src;
    zs.avail_in = (uInt)src_len;
    zs.next_out = out->data + out->len;
    zs.avail_out = (uInt)bound;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
        rc = tn_error_set(TN_EINTERNAL, "GZIP: deflate did not finish");
        goto cleanup;
    }
    out->len += bound - zs.avail_out;
cleanup:
    deflateEnd(&zs);
    return rc;
}

/* One ZSTD compression context per thread, reused by every page it compresses (ZSTD_compress
 * would allocate and zero megabytes of tables per page), freed when the thread exits. */
static pthread_key_t zstd_key;
static pthread_once_t zstd_once = PTHREAD_ONCE_INIT;
static int zstd_key_ok;

static void zstd_free_ctx(void *p) { ZSTD_freeCCtx(p); }
static void zstd_key_init(void) { zstd_key_ok = pthread_key_create(&zstd_key, zstd_free_ctx) == 0; }

static ZSTD_CCtx *zstd_ctx(void) {
    pthread_once(&zstd_once, zstd_key_init);
    if (!zstd_key_ok) return NULL;
    ZSTD_CCtx *c = pthread_getspecific(zstd_key);
    if (!c && (c = ZSTD_createCCtx()) != NULL && pthread_setspecific(zstd_key, c) != 0) {
        ZSTD_freeCCtx(c);
        c = NULL;
    }
    return c;
}

int pq_compress(int codec, int level, const uint8_t *src, size_t src_len, tn_buf *out) {
    int rc = 0;
    switch (codec) {
    case TN_CODEC_UNCOMPRESSED:
        return tn_buf_append(out, src, src_len);
    case TN_CODEC_SNAPPY: {
        size_t cap = snappy_max_compressed_length(src_len);
        if ((rc = tn_buf_reserve(out, cap)) != 0) return rc;
        size_t n = cap;
        if (snappy_compress((const char *)src, src_len, (char *)out->data + out->len, &n) != SNAPPY_OK)
            return tn_error_set(TN_EINTERNAL, "SNAPPY: compression failed");
        out->len += n;
        return 0;
    }
    case TN_CODEC_GZIP:
        return gzip_compress(level, src, src_len, out);
    case TN_CODEC_ZSTD: {
        size_t cap = ZSTD_compressBound(src_len);
        if ((rc = tn_buf_reserve(out, cap)) != 0) return rc;
        ZSTD_CCtx *cctx = zstd_ctx();
        size_t n = cctx ? ZSTD_compressCCtx(cctx, out->data + out->len, cap, src, src_len, level ? level : 3)
                        : ZSTD_compress(out->data + out->len, cap, src, src_len, level ? level : 3);
        if (ZSTD_isError(n)) return tn_error_set(TN_EINTERNAL, "ZSTD: %s", ZSTD_getErrorName(n));
        out->len += n;
        return 0;
    }
    case TN_CODEC_LZ4_RAW: {
        if (src_len > LZ4_MAX_INPUT_SIZE)
            return tn_error_set(TN_ELIMIT, "LZ4_RAW: page of %zu bytes is too large", src_len);
        int cap = LZ4_compressBound((int)src_len);
        if ((rc = tn_buf_reserve(out, (size_t)cap)) != 0) return rc;
        int n = LZ4_compress_default((const char *)src, (char *)out->data + out->len, (int)src_len, cap);
        if (n <= 0) return tn_error_set(TN_EINTERNAL, "LZ4_RAW: compression failed");
        out->len += (size_t)n;
        return 0;
    }
    case TN_CODEC_LZ4:
        return tn_error_set(TN_EUNSUPPORTED, "LZ4 (deprecated Hadoop) codec is not supported for "
                                             "writing; use LZ4_RAW");
    case TN_CODEC_BROTLI:
        return brotli_compress(level, src, src_len, out);
    case TN_CODEC_LZO:
        return tn_error_set(TN_EUNSUPPORTED, "LZO codec is not supported");
    default:
        return tn_error_set(TN_EUNSUPPORTED, "unknown compression codec %d", codec);
    }
}
