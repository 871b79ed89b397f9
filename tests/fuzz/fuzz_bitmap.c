/*
 * tests/fuzz/fuzz_bitmap.c: libFuzzer target for the bitmap decoder (bitmap/portable.c): the
 * input as a 32-bit or 64-bit portable RoaringBitmap. Whatever validates must decode to its
 * stated cardinality, agree with CRoaring's reader (32-bit), serialize to bytes that validate
 * and decode to the same values, and re-serialize straight from the bytes to those same bytes;
 * the OR accumulator of bitmap() (tn_bitmap_acc) refuses what validate refuses and, OR-ing the
 * input twice and into our own bytes of it, holds the same set. Errors are expected; crashes, leaks and disagreements are bugs.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "bitmap/bitmap.h"

static void fail(const char *what) {
    fprintf(stderr, "fuzz_bitmap: %s (%s)\n", what, tn_error_message());
    abort();
}

typedef struct vals {
    uint64_t *v;
    size_t n, cap;
} vals;

static int collect(void *ctx, uint64_t v) {
    vals *c = ctx;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 256;
        c->v = realloc(c->v, c->cap * sizeof *c->v);
        if (!c->v) abort();
    }
    c->v[c->n++] = v;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tn_bitmap_info info;
    tn_bitmap_acc *acc = tn_bitmap_acc_create();
    if (!acc) abort();
    if (tn_bitmap_validate(data, size, &info)) {
        tn_bitmap *bm = NULL;
        if (tn_bitmap_decode(&bm, data, size) == 0) fail("decode accepted what validate refused");
        if (tn_bitmap_acc_or_bytes(acc, data, size) == 0) fail("the accumulator accepted what validate refused");
        tn_bitmap_acc_free(acc);
        return 0;
    }
    tn_bitmap *bm = NULL, *again = NULL;
    tn_buf out = TN_BUF_INIT, re = TN_BUF_INIT;
    vals a = {0}, b = {0};
    if (tn_bitmap_decode(&bm, data, size)) fail("decode refused what validate accepted");
    if (tn_bitmap_cardinality(bm) != info.cardinality) fail("cardinality differs from the header's");
    if (!info.is64) {
        roaring_bitmap_t *cr = roaring_bitmap_portable_deserialize_safe((const char *)data, size);
        if (!cr || roaring_bitmap_get_cardinality(cr) != info.cardinality) fail("CRoaring reads another cardinality");
        roaring_bitmap_free(cr);
    }
    /* A few KB of run containers can state hundreds of millions of values: those are compared
       by cardinality and bytes only, not value by value (which takes seconds per input). */
    bool by_value = info.cardinality <= (1u << 20);
    if (by_value) {
        if (tn_bitmap_iterate(bm, collect, &a)) fail("iterate");
        for (size_t i = 1; i < a.n; i++)
            if (a.v[i] <= a.v[i - 1]) fail("values not ascending");
    }
    if (tn_bitmap_serialize(bm, TN_BITMAP_AUTO, &out)) fail("serialize");
    if (tn_bitmap_decode(&again, out.data, out.len)) fail("our own bytes do not decode");
    if (tn_bitmap_cardinality(again) != info.cardinality) fail("round trip changed the cardinality");
    if (by_value) {
        if (tn_bitmap_iterate(again, collect, &b)) fail("iterate");
        if (a.n != b.n || (a.n && memcmp(a.v, b.v, a.n * sizeof *a.v))) fail("round trip changed the values");
    }
    if (tn_bitmap_reserialize(data, size, info.is64 ? TN_BITMAP_64 : TN_BITMAP_AUTO, &re)) fail("reserialize");
    if (!info.is64 && (re.len != out.len || memcmp(re.data, out.data, out.len))) fail("reserialize differs");
    tn_bitmap *o = tn_bitmap_create();
    if (!o || tn_bitmap_add(o, 12345) || tn_bitmap_or_bytes(o, data, size)) fail("or_bytes");
    if (tn_bitmap_cardinality(o) != info.cardinality + !tn_bitmap_contains(bm, 12345)) fail("or cardinality");
    tn_bitmap_free(o);
    if (tn_bitmap_acc_or_bytes(acc, data, size) || tn_bitmap_acc_or_bytes(acc, data, size) ||
        tn_bitmap_acc_or_bytes(acc, out.data, out.len))
        fail("the accumulator refused a valid bitmap");
    if (tn_bitmap_acc_cardinality(acc) != info.cardinality) fail("accumulator cardinality");
    if (by_value) {
        tn_bitmap *r = NULL;
        vals c = {0};
        if (tn_bitmap_acc_to_bitmap(acc, &r) || tn_bitmap_iterate(r, collect, &c)) fail("accumulator to bitmap");
        if (a.n != c.n || (a.n && memcmp(a.v, c.v, a.n * sizeof *a.v))) fail("the accumulator holds other values");
        tn_bitmap_free(r);
        free(c.v);
    }
    tn_bitmap_acc_free(acc);
    free(a.v);
    free(b.v);
    tn_buf_free(&out);
    tn_buf_free(&re);
    tn_bitmap_free(bm);
    tn_bitmap_free(again);
    return 0;
}
