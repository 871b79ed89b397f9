/*
 * bitmap/bitmap.h: RoaringBitmap values. A bounded, validating decoder of the portable formats
 * (32-bit RoaringBitmap, the spec's 64-bit Roaring64Map layout), a serializer that makes the
 * container choices Java RoaringBitmap makes after runOptimize() (so Java's deserialize reads the
 * bytes, and the same set gives the same bytes), and the set algebra the SQL bitmap functions use
 * (CRoaring underneath; its own decoder is never given bytes this layer has not validated).
 * Includes only base/.
 *
 * 32-bit portable format (all integers little-endian):
 *   u32 cookie       12346 (no run containers), then u32 n = container count; or
 *                    12347 | (n - 1) << 16, then ceil(n / 8) bytes: bit i = container i is a run
 *   n x (u16 key, u16 cardinality - 1)      keys ascending: the high 16 bits of the values
 *   n x u32 offset   byte offset of each container from the start; present unless the cookie
 *                    is 12347 and n < 4
 *   containers       run: u16 r, r x (u16 start, u16 length - 1), ascending, apart
 *                    array (cardinality <= 4096): cardinality x u16 ascending
 *                    bitset (cardinality > 4096): 1024 x u64, value v = bit v % 64 of word v / 64
 * 64-bit portable format: u64 b, then b x (u32 high key ascending, 32-bit portable bitmap).
 */
#ifndef TN_BITMAP_H
#define TN_BITMAP_H

#include "base/base.h"

/* A set of unsigned 64-bit integers (values below 2^32 are the 32-bit case). Opaque. */
typedef struct tn_bitmap tn_bitmap;

typedef enum tn_bitmap_layout {
    TN_BITMAP_AUTO = 0,   /* the 32-bit format when every value is below 2^32, else 64-bit */
    TN_BITMAP_32,         /* the 32-bit format; a value >= 2^32 is an error */
    TN_BITMAP_64,         /* the 64-bit format always */
} tn_bitmap_layout;

/* What tn_bitmap_validate learned. */
typedef struct tn_bitmap_info {
    bool is64;            /* the 64-bit layout */
    uint64_t cardinality;
    uint32_t buckets;     /* 32-bit bitmaps in it (1 for the 32-bit layout) */
} tn_bitmap_info;

/* Create an empty bitmap (NULL + TN_ENOMEM on failure). Free with tn_bitmap_free (NULL ok). */
tn_bitmap *tn_bitmap_create(void);
void tn_bitmap_free(tn_bitmap *b);
/* A copy of b (NULL + TN_ENOMEM on failure). */
tn_bitmap *tn_bitmap_copy(const tn_bitmap *b);
void tn_bitmap_clear(tn_bitmap *b);

/*
 * Validate buf[0, len) as a 32-bit or a 64-bit portable bitmap, reading nothing past len and
 * allocating nothing. The format is told by the first bytes: cookie 12346/12347 = 32-bit,
 * anything else = 64-bit (its first u64 is a bucket count). Errors (TN_ECORRUPT) name what is
 * wrong and the byte offset: "byte 18: container 2 (key 7): array values not ascending";
 * Java object serialization (AC ED 00 05) and Doris/StarRocks type-byte values are named as such.
 * info may be NULL.
 */
int tn_bitmap_validate(const void *buf, size_t len, tn_bitmap_info *info);
/* Validate, then decode into a new bitmap (*out, the caller frees). */
int tn_bitmap_decode(tn_bitmap **out, const void *buf, size_t len);
/* Validate, then OR the bytes into b (no intermediate copy of b). */
int tn_bitmap_or_bytes(tn_bitmap *b, const void *buf, size_t len);
/*
 * An accumulator of the OR of many values (the bitmap() aggregate): each value's bytes are
 * validated and OR-ed in container by container, no bitmap built per value (accum.c). An error
 * (TN_ECORRUPT naming the byte) may leave part of that value OR-ed in. _merge ORs src into dst
 * (src unchanged); _to_bitmap gives the set as a new tn_bitmap (for its bytes).
 */
typedef struct tn_bitmap_acc tn_bitmap_acc;
tn_bitmap_acc *tn_bitmap_acc_create(void);
void tn_bitmap_acc_free(tn_bitmap_acc *a);
int tn_bitmap_acc_or_bytes(tn_bitmap_acc *a, const void *buf, size_t len);
int tn_bitmap_acc_merge(tn_bitmap_acc *dst, tn_bitmap_acc *src);
uint64_t tn_bitmap_acc_cardinality(tn_bitmap_acc *a);
int tn_bitmap_acc_to_bitmap(tn_bitmap_acc *a, tn_bitmap **out);
/* Serialize b with Java's container choices (array up to 4096 values, else bitset; then a run
 * container where runOptimize() makes one) into out (appended). */
int tn_bitmap_serialize(const tn_bitmap *b, tn_bitmap_layout layout, tn_buf *out);
/* Re-serialize validated bytes directly (no set built): what tn_bitmap_serialize writes for the
 * set they hold, in the layout they have (TN_BITMAP_AUTO) or the one asked. */
int tn_bitmap_reserialize(const void *buf, size_t len, tn_bitmap_layout layout, tn_buf *out);

uint64_t tn_bitmap_cardinality(const tn_bitmap *b);
bool tn_bitmap_is_empty(const tn_bitmap *b);
int tn_bitmap_add(tn_bitmap *b, uint64_t v);
/* Add n values (any order, duplicates fine). */
int tn_bitmap_add_many(tn_bitmap *b, const uint64_t *v, size_t n);
/* Add [lo, hi] (inclusive). */
int tn_bitmap_add_range(tn_bitmap *b, uint64_t lo, uint64_t hi);
int tn_bitmap_remove(tn_bitmap *b, uint64_t v);
bool tn_bitmap_contains(const tn_bitmap *b, uint64_t v);
/* Smallest / largest value; false when empty. */
bool tn_bitmap_min(const tn_bitmap *b, uint64_t *out);
bool tn_bitmap_max(const tn_bitmap *b, uint64_t *out);

/* In place: a = a op b. */
int tn_bitmap_or(tn_bitmap *a, const tn_bitmap *b);
int tn_bitmap_and(tn_bitmap *a, const tn_bitmap *b);
int tn_bitmap_xor(tn_bitmap *a, const tn_bitmap *b);
int tn_bitmap_andnot(tn_bitmap *a, const tn_bitmap *b);
uint64_t tn_bitmap_and_cardinality(const tn_bitmap *a, const tn_bitmap *b);
uint64_t tn_bitmap_or_cardinality(const tn_bitmap *a, const tn_bitmap *b);
uint64_t tn_bitmap_xor_cardinality(const tn_bitmap *a, const tn_bitmap *b);
uint64_t tn_bitmap_andnot_cardinality(const tn_bitmap *a, const tn_bitmap *b);
bool tn_bitmap_intersects(const tn_bitmap *a, const tn_bitmap *b);
/* Every value of sub is in b. */
bool tn_bitmap_is_subset(const tn_bitmap *sub, const tn_bitmap *b);

/* Values in ascending order: fn(ctx, value) for each, stopping when it returns non-zero (that
 * value is returned). */
int tn_bitmap_iterate(const tn_bitmap *b, int (*fn)(void *ctx, uint64_t v), void *ctx);
/* New bitmaps: the values in [lo, hi); up to `limit` values >= lo; `limit` values from the
 * `offset`-th smallest (0-based). */
int tn_bitmap_subset_range(tn_bitmap **out, const tn_bitmap *b, uint64_t lo, uint64_t hi);
int tn_bitmap_subset_limit(tn_bitmap **out, const tn_bitmap *b, uint64_t lo, uint64_t limit);
int tn_bitmap_sub(tn_bitmap **out, const tn_bitmap *b, uint64_t offset, uint64_t limit);

#endif
