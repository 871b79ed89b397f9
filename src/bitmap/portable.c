/*
 * bitmap/portable.c: the portable formats (byte tables in bitmap.h): the validating walker over
 * untrusted bytes (bounded by len, no allocation, every field checked before it is trusted), and
 * the serializer that writes containers as Java RoaringBitmap does after runOptimize(). Knows
 * nothing of CRoaring: bitmap.c hands it containers as rb_src views (bitmapInt.h).
 */
#include "bitmap/bitmapInt.h"

#include <stdio.h>
#include <string.h>

#define COOKIE_NO_RUN 12346u
#define COOKIE_RUN 12347u
#define NO_OFFSET_THRESHOLD 4u
#define MAX_ARRAY 4096u
#define BITSET_BYTES 8192u

static inline uint32_t ld16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline void st16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

/* ---------------------------------------------------------------------------------------------
 * Validation. `base` is the byte offset of buf within the whole value (for messages).
 */
static int bad(size_t at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(size_t at, const char *fmt, ...) {
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tn_error_set(TN_ECORRUPT, "not a RoaringBitmap: byte %zu: %s", at, what);
}

int tn_bitmap_walk32(const uint8_t *buf, size_t len, size_t base, rb_visit_fn visit, void *ctx,
                     size_t *used, uint64_t *card_out) {
    if (len < 4) return bad(base, "truncated: %zu bytes, a bitmap has at least 8", len);
    uint32_t cookie = tn_load_u32le(buf);
    size_t pos = 4;
    uint32_t n;
    bool has_run;
    if ((cookie & 0xffff) == COOKIE_RUN) {
        n = (cookie >> 16) + 1;
        has_run = true;
    } else if (cookie == COOKIE_NO_RUN) {
        if (len < 8) return bad(base + 4, "truncated container count");
        n = tn_load_u32le(buf + 4);
        pos = 8;
        if (n > 65536) return bad(base + 4, "%u containers (at most 65536)", n);
        has_run = false;
    } else {
        return bad(base, "unknown cookie %u (expected 12346 or 12347)", cookie & 0xffff);
    }
    const uint8_t *flags = buf + pos;
    size_t flag_bytes = has_run ? (n + 7) / 8 : 0;
    bool offsets = !has_run || n >= NO_OFFSET_THRESHOLD;
    size_t head = flag_bytes + (size_t)n * 4 + (offsets ? (size_t)n * 4 : 0);
    if (len - pos < head)
        return bad(base + pos, "truncated header: %u containers need %zu bytes, %zu left", n, head, len - pos);
    const uint8_t *desc = flags + flag_bytes;
    const uint8_t *offs = desc + (size_t)n * 4;
    pos += head;
    uint64_t total = 0;
    int64_t prev_key = -1;
    for (uint32_t k = 0; k < n; k++) {
        size_t dpos = base + (size_t)(desc - buf) + 4 * (size_t)k;
        uint32_t key = ld16(desc + 4 * (size_t)k);
        uint32_t card = ld16(desc + 4 * (size_t)k + 2) + 1;
        if ((int64_t)key <= prev_key)
            return bad(dpos, "container %u: key %u after key %lld (keys must ascend)", k, key, (long long)prev_key);
        prev_key = key;
        if (offsets) {
            uint32_t off = tn_load_u32le(offs + 4 * (size_t)k);
            if (off != pos)
                return bad(base + (size_t)(offs - buf) + 4 * (size_t)k,
                           "container %u (key %u): offset %u, but the container starts at byte %zu", k, key, off,
                           pos);
        }
        rb_src c = {.key = (uint16_t)key, .card = card};
        bool is_run = has_run && (flags[k / 8] >> (k % 8) & 1);
        if (is_run) {
            if (len - pos < 2) return bad(base + pos, "container %u (key %u): truncated run container", k, key);
            uint32_t nr = ld16(buf + pos);
            if (nr == 0) return bad(base + pos, "container %u (key %u): run container with no runs", k, key);
            if ((len - pos - 2) / 4 < nr)
                return bad(base + pos, "container %u (key %u): truncated: %u runs need %u bytes, %zu left", k, key, nr,
                           2 + 4 * nr, len - pos);
            const uint8_t *r = buf + pos + 2;
            int64_t prev_end = -2;
            uint32_t got = 0;
            for (uint32_t i = 0; i < nr; i++) {
                uint32_t start = ld16(r + 4 * (size_t)i), last = start + ld16(r + 4 * (size_t)i + 2);
                size_t at = base + pos + 2 + 4 * (size_t)i;
                if ((int64_t)start <= prev_end + 1)
                    return bad(at, "container %u (key %u): run %u starts at %u, overlapping or touching the run before",
                               k, key, i, start);
                if (last > 0xffff)
                    return bad(at, "container %u (key %u): run %u [%u, %u] goes past 65535", k, key, i, start, last);
                prev_end = last;
                got += last - start + 1;
            }
            if (got != card)
                return bad(dpos, "container %u (key %u): cardinality %u, but its runs hold %u values", k, key, card, got);
            c.kind = RB_RUN;
            c.n = nr;
            c.data = r;
            pos += 2 + 4 * (size_t)nr;
        } else if (card > MAX_ARRAY) {
            if (len - pos < BITSET_BYTES)
                return bad(base + pos, "container %u (key %u): truncated bitset container (%zu of 8192 bytes)", k, key,
                           len - pos);
            uint32_t got = 0;
            for (uint32_t w = 0; w < 1024; w++) got += (uint32_t)__builtin_popcountll(tn_load_u64le(buf + pos + 8 * (size_t)w));
            if (got != card)
                return bad(dpos, "container %u (key %u): cardinality %u, but its bitset holds %u values", k, key, card, got);
            c.kind = RB_BITSET;
            c.data = buf + pos;
            pos += BITSET_BYTES;
        } else {
            if ((len - pos) / 2 < card)
                return bad(base + pos, "container %u (key %u): truncated array container: %u values need %u bytes, %zu left",
                           k, key, card, 2 * card, len - pos);
            const uint8_t *a = buf + pos;
            for (uint32_t i = 1; i < card; i++)
                if (ld16(a + 2 * (size_t)i) <= ld16(a + 2 * (size_t)i - 2))
                    return bad(base + pos + 2 * (size_t)i, "container %u (key %u): array value %u after %u (values must ascend)",
                               k, key, ld16(a + 2 * (size_t)i), ld16(a + 2 * (size_t)i - 2));
            c.kind = RB_ARRAY;
            c.n = card;
            c.data = a;
            pos += 2 * (size_t)card;
        }
        total += card;
        if (visit) {
            int rc = visit(ctx, &c);
            if (rc) return rc;
        }
    }
    *used = pos;
    if (card_out) *card_out = total;
    return 0;
}

static bool is_cookie32(const uint8_t *b, size_t len) {
    if (len < 4) return false;
    uint32_t c = tn_load_u32le(b);
    return (c & 0xffff) == COOKIE_RUN || c == COOKIE_NO_RUN;
}

int tn_bitmap_walk(const uint8_t *buf, size_t len, rb_bucket_fn bucket, rb_visit_fn visit, void *ctx,
                   tn_bitmap_info *info) {
    tn_bitmap_info inf = {0};
    int rc;
    if (len >= 4 && buf[0] == 0xAC && buf[1] == 0xED && buf[2] == 0x00 && buf[3] == 0x05)
        return bad(0, "Java object serialization (AC ED 00 05), not the portable format; write bitmaps with "
                      "RoaringBitmap.serialize");
    if (is_cookie32(buf, len)) {
        size_t used = 0;
        if (bucket && (rc = bucket(ctx, 0, buf, len))) return rc;
        rc = tn_bitmap_walk32(buf, len, 0, visit, ctx, &used, &inf.cardinality);
        if (rc) return rc;
        if (used != len) return bad(used, "%zu bytes after the end of the bitmap", len - used);
        inf.buckets = 1;
        if (info) *info = inf;
        return 0;
    }
    if (len >= 5 && is_cookie32(buf + 1, len - 1) && buf[0] == 2)
        return bad(0, "a type byte (2) before a 32-bit bitmap: Doris/StarRocks bitmap_to_binary output, not the "
                      "portable format");
    if (len < 8) return bad(0, "truncated: %zu bytes is neither a 32-bit (cookie 12346/12347) nor a 64-bit bitmap", len);
    uint64_t nb = tn_load_u64le(buf);
    if (nb > (len - 8) / 12)
        return bad(0, "not a 32-bit bitmap (no cookie 12346/12347), and as a 64-bit bitmap its %llu buckets do not "
                      "fit in %zu bytes",
                   (unsigned long long)nb, len);
    size_t pos = 8;
    int64_t prev = -1;
    for (uint64_t i = 0; i < nb; i++) {
        if (len - pos < 4) return bad(pos, "64-bit bucket %llu: truncated", (unsigned long long)i);
        uint32_t hi = tn_load_u32le(buf + pos);
        if ((int64_t)hi <= prev)
            return bad(pos, "64-bit bucket %llu: high key %u after %lld (keys must ascend)", (unsigned long long)i, hi,
                       (long long)prev);
        prev = hi;
        pos += 4;
        size_t used = 0;
        uint64_t card = 0;
        if (bucket && (rc = bucket(ctx, hi, buf + pos, len - pos))) return rc;
        rc = tn_bitmap_walk32(buf + pos, len - pos, pos, visit, ctx, &used, &card);
        if (rc) return tn_error_prefix(rc, "64-bit bucket %llu (high key %u)", (unsigned long long)i, hi);
        pos += used;
        inf.cardinality += card;
    }
    if (pos != len) return bad(pos, "%zu bytes after the end of the 64-bit bitmap", len - pos);
    inf.is64 = true;
    inf.buckets = (uint32_t)nb;
    if (info) *info = inf;
    return 0;
}

int tn_bitmap_validate(const void *buf, size_t len, tn_bitmap_info *info) {
    return tn_bitmap_walk(buf, len, NULL, NULL, NULL, info);
}

/* ---------------------------------------------------------------------------------------------
 * Serialization with Java's container choices. A container of cardinality c and r runs is an
 * array when c <= 4096, else a bitset (what RoaringBitmap.add builds); runOptimize() then makes
 * it a run container when that is smaller: an array when 2c > 2 + 4r, a bitset when
 * 8192 > 2 + 4r (ArrayContainer/BitmapContainer.runOptimize; CRoaring's rule for arrays differs
 * by one: 2 + 4r < 2c + 2).
 */
static uint32_t src_runs(const rb_src *c) {
    uint32_t r = 0;
    switch (c->kind) {
    case RB_ARRAY:
        for (uint32_t i = 0; i < c->n; i++)
            if (i == 0 || ld16(c->data + 2 * (size_t)i) != ld16(c->data + 2 * (size_t)i - 2) + 1) r++;
        return r;
    case RB_RUN: {
        int64_t prev_end = -2;
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t s = ld16(c->data + 4 * (size_t)i), e = s + ld16(c->data + 4 * (size_t)i + 2);
            if ((int64_t)s != prev_end + 1) r++;
            prev_end = e;
        }
        return r;
    }
    default: {
        uint64_t carry = 0;   /* bit 63 of the previous word */
        for (uint32_t w = 0; w < 1024; w++) {
            uint64_t x = tn_load_u64le(c->data + 8 * (size_t)w);
            r += (uint32_t)__builtin_popcountll(x & ~((x << 1) | carry));
            carry = x >> 63;
        }
        return r;
    }
    }
}

static void src_bitset(const rb_src *c, uint64_t *words) {
    memset(words, 0, BITSET_BYTES);
    switch (c->kind) {
    case RB_ARRAY:
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t v = ld16(c->data + 2 * (size_t)i);
            words[v >> 6] |= (uint64_t)1 << (v & 63);
        }
        break;
    case RB_RUN:
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t s = ld16(c->data + 4 * (size_t)i), e = s + ld16(c->data + 4 * (size_t)i + 2);
            for (uint32_t v = s; v <= e;) {
                if ((v & 63) == 0 && e - v >= 63) {
                    words[v >> 6] = ~(uint64_t)0;
                    v += 64;
                } else {
                    words[v >> 6] |= (uint64_t)1 << (v & 63);
                    v++;
                }
            }
        }
        break;
    default:
        for (uint32_t w = 0; w < 1024; w++) words[w] = tn_load_u64le(c->data + 8 * (size_t)w);
        break;
    }
}

static uint8_t *put_array(uint8_t *p, const rb_src *c) {
    switch (c->kind) {
    case RB_ARRAY:
        memcpy(p, c->data, 2 * (size_t)c->n);   /* already little-endian u16 */
        return p + 2 * (size_t)c->n;
    case RB_RUN:
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t s = ld16(c->data + 4 * (size_t)i), e = s + ld16(c->data + 4 * (size_t)i + 2);
            for (uint32_t v = s; v <= e; v++, p += 2) st16(p, v);
        }
        return p;
    default:
        for (uint32_t w = 0; w < 1024; w++)
            for (uint64_t x = tn_load_u64le(c->data + 8 * (size_t)w); x; x &= x - 1, p += 2)
                st16(p, w * 64 + (uint32_t)__builtin_ctzll(x));
        return p;
    }
}

static uint8_t *put_runs(uint8_t *p, const rb_src *c, uint32_t nruns) {
    st16(p, nruns);
    p += 2;
    int64_t start = -1, end = -2;
#define EMIT(S, E)                                                   \
    do {                                                             \
        if ((int64_t)(S) == end + 1) end = (E);                      \
        else {                                                       \
            if (start >= 0) { st16(p, (uint32_t)start); st16(p + 2, (uint32_t)(end - start)); p += 4; } \
            start = (S);                                             \
            end = (E);                                               \
        }                                                            \
    } while (0)
    switch (c->kind) {
    case RB_ARRAY:
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t v = ld16(c->data + 2 * (size_t)i);
            EMIT(v, v);
        }
        break;
    case RB_RUN:
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t s = ld16(c->data + 4 * (size_t)i), e = s + ld16(c->data + 4 * (size_t)i + 2);
            EMIT(s, e);
        }
        break;
    default:
        for (uint32_t w = 0; w < 1024; w++) {
            uint64_t x = tn_load_u64le(c->data + 8 * (size_t)w);
            while (x) {
                uint32_t b = (uint32_t)__builtin_ctzll(x);
                uint64_t ones = ~(x >> b);   /* zeros where the run continues */
                uint32_t len = ones ? (uint32_t)__builtin_ctzll(ones) : 64 - b;
                if (b + len > 64) len = 64 - b;
                EMIT(w * 64 + b, w * 64 + b + len - 1);
                x = (b + len >= 64) ? 0 : x & ~(((uint64_t)1 << (b + len)) - 1);
            }
        }
        break;
    }
    if (start >= 0) { st16(p, (uint32_t)start); st16(p + 2, (uint32_t)(end - start)); p += 4; }
#undef EMIT
    return p;
}

int tn_bitmap_put32(tn_buf *out, const rb_src *cs, uint32_t n) {
    /* decide kinds and sizes */
    uint8_t small_kind[64];
    uint32_t small_runs[64];
    uint8_t *kind = small_kind;
    uint32_t *runs = small_runs;
    int rc = 0;
    if (n > 64) {
        kind = tn_malloc(n);
        runs = tn_malloc((size_t)n * sizeof *runs);
        if (!kind || !runs) { rc = TN_ENOMEM; goto cleanup; }
    }
    bool has_run = false;
    size_t body = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t card = cs[k].card, r = src_runs(&cs[k]);
        uint8_t kd = card <= MAX_ARRAY ? RB_ARRAY : RB_BITSET;
        size_t sz = kd == RB_ARRAY ? 2 * (size_t)card : BITSET_BYTES;
        if (sz > 2 + 4 * (size_t)r) {
            kd = RB_RUN;
            sz = 2 + 4 * (size_t)r;
            has_run = true;
        }
        kind[k] = kd;
        runs[k] = r;
        body += sz;
    }
    bool offsets = !has_run || n >= NO_OFFSET_THRESHOLD;
    size_t head = has_run ? 4 + (n + 7) / 8 : 8;
    head += (size_t)n * 4 + (offsets ? (size_t)n * 4 : 0);
    if ((rc = tn_buf_reserve(out, head + body))) goto cleanup;
    uint8_t *start = out->data + out->len, *p = start;
    memset(p, 0, head);
    if (has_run) {
        tn_store_u32le(p, COOKIE_RUN | (n - 1) << 16);
        p += 4;
        for (uint32_t k = 0; k < n; k++)
            if (kind[k] == RB_RUN) p[k / 8] |= (uint8_t)(1u << (k % 8));
        p += (n + 7) / 8;
    } else {
        tn_store_u32le(p, COOKIE_NO_RUN);
        tn_store_u32le(p + 4, n);
        p += 8;
    }
    for (uint32_t k = 0; k < n; k++, p += 4) {
        st16(p, cs[k].key);
        st16(p + 2, cs[k].card - 1);
    }
    uint8_t *offp = p;
    if (offsets) p += 4 * (size_t)n;
    for (uint32_t k = 0; k < n; k++) {
        if (offsets) tn_store_u32le(offp + 4 * (size_t)k, (uint32_t)(p - start));
        if (kind[k] == RB_RUN) p = put_runs(p, &cs[k], runs[k]);
        else if (kind[k] == RB_ARRAY) p = put_array(p, &cs[k]);
        else {
            if (cs[k].kind == RB_BITSET) memcpy(p, cs[k].data, BITSET_BYTES);
            else {
                uint64_t words[1024];
                src_bitset(&cs[k], words);
                for (uint32_t w = 0; w < 1024; w++) tn_store_u64le(p + 8 * (size_t)w, words[w]);
            }
            p += BITSET_BYTES;
        }
    }
    out->len += (size_t)(p - start);
cleanup:
    if (kind != small_kind) tn_free(kind);
    if (runs != small_runs) tn_free(runs);
    return rc;
}

/* Re-serialization of validated bytes: collect each bucket's container views, then put32. */
typedef struct reser {
    tn_buf *out;
    rb_src *cs;
    uint32_t n, cap;
    int64_t hi;               /* current bucket's high key */
    bool w64;
    size_t count_at;          /* 64-bit: where the bucket count is */
    uint64_t nbuckets;
} reser;

static int reser_flush(reser *r) {
    if (r->hi < 0 || r->n == 0) return 0;   /* empty buckets are not written */
    uint8_t k[4];
    tn_store_u32le(k, (uint32_t)r->hi);
    int rc = tn_buf_append(r->out, k, 4);
    if (!rc) rc = tn_bitmap_put32(r->out, r->cs, r->n);
    r->nbuckets++;
    r->n = 0;
    return rc;
}

static int reser_bucket(void *ctx, uint32_t hi, const uint8_t *p, size_t len) {
    reser *r = ctx;
    int rc = r->w64 ? reser_flush(r) : 0;
    r->hi = hi;
    return rc;
}

static int reser_visit(void *ctx, const rb_src *c) {
    reser *r = ctx;
    if (!r->w64 && r->hi > 0)
        return tn_error_set(TN_ELIMIT, "bitmap holds values >= 2^32; the 32-bit format cannot hold them");
    if (r->n == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 16;
        rb_src *ncs = tn_realloc(r->cs, (size_t)cap * sizeof *ncs);
        if (!ncs) return TN_ENOMEM;
        r->cs = ncs;
        r->cap = cap;
    }
    r->cs[r->n++] = *c;
    return 0;
}

int tn_bitmap_reserialize(const void *buf, size_t len, tn_bitmap_layout layout, tn_buf *out) {
    tn_bitmap_info info;
    int rc = tn_bitmap_validate(buf, len, &info);
    if (rc) return rc;
    bool w64 = layout == TN_BITMAP_64 || (layout == TN_BITMAP_AUTO && info.is64);
    reser r = {.out = out, .hi = -1, .w64 = w64};
    size_t start = out->len;
    if (w64) {
        uint8_t z[8] = {0};
        if ((rc = tn_buf_append(out, z, 8))) return rc;
        r.count_at = start;
    }
    rc = tn_bitmap_walk(buf, len, reser_bucket, reser_visit, &r, NULL);
    if (!rc) rc = w64 ? reser_flush(&r) : tn_bitmap_put32(out, r.cs, r.n);
    if (!rc && w64) tn_store_u64le(out->data + r.count_at, r.nbuckets);
    tn_free(r.cs);
    if (rc) out->len = start;
    return rc;
}
