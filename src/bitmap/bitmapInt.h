/*
 * bitmap/bitmapInt.h: internals shared by the bitmap layer's files: a container as a view over
 * little-endian bytes (a validated value, or CRoaring's own memory: the host is little-endian),
 * the validating walker (portable.c) and the 32-bit serializer over views.
 */
#ifndef TN_BITMAP_INT_H
#define TN_BITMAP_INT_H

#include "bitmap/bitmap.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "bitmap/: container views assume a little-endian host"
#endif

enum { RB_ARRAY = 1, RB_BITSET = 2, RB_RUN = 3 };

/* One container: kind, its 16-bit key, cardinality, and data: array: n x u16; bitset: 1024 x
 * u64; run: n x (u16 start, u16 length - 1). */
typedef struct rb_src {
    uint16_t key;
    uint8_t kind;
    uint32_t card;
    uint32_t n;
    const uint8_t *data;
} rb_src;

typedef int (*rb_visit_fn)(void *ctx, const rb_src *c);
typedef int (*rb_bucket_fn)(void *ctx, uint32_t hi, const uint8_t *p, size_t len);

/* Validate one 32-bit bitmap at buf[0, len) (a prefix of it may be the bitmap: *used says how
 * long it is); visit each container after it is checked. base: buf's offset in the value. */
int tn_bitmap_walk32(const uint8_t *buf, size_t len, size_t base, rb_visit_fn visit, void *ctx,
                     size_t *used, uint64_t *card);
/* Validate a whole value (32 or 64-bit); bucket(ctx, high key, bytes) before each 32-bit bitmap. */
int tn_bitmap_walk(const uint8_t *buf, size_t len, rb_bucket_fn bucket, rb_visit_fn visit, void *ctx,
                   tn_bitmap_info *info);
/* Append the 32-bit portable bytes of containers cs[0, n) (ascending keys, none empty). */
int tn_bitmap_put32(tn_buf *out, const rb_src *cs, uint32_t n);

#endif
