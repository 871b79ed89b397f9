/*
 * sql/func_bitmap.c: the scalar bitmap functions over VARBINARY RoaringBitmap values (portable
 * format, validated by bitmap/ before use), under Doris/StarRocks and ClickHouse names: build
 * (to_bitmap, bitmap_empty, bitmap_from_string/base64, bitmap_hash[64]), inspect (bitmap_count,
 * bitmap_contains, bitmap_has_any/all, bitmap_min/max, bitmap_to_string/base64, bitmap_error),
 * combine (bitmap_and/or/xor/andnot and their _count forms) and cut (bitmap_subset_in_range,
 * bitmap_subset_limit, sub_bitmap, bitmap_remove). NULL rules as Doris documents them: or/or_count
 * skip NULL arguments, and/xor/andnot give NULL, their _count forms 0, bitmap_count(NULL) = 0.
 */
#include <stdio.h>
#include <string.h>

#include "bitmap/bitmap.h"
#include "sql/functions.h"

#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out
#define N TN_SIG_NONE
#define VB TN_TYPE_VARBINARY
#define BI TN_TYPE_BIGINT
#define VC TN_TYPE_VARCHAR
#define BO TN_TYPE_BOOLEAN

static tn_str arg_str(const tn_vector *v, uint32_t i) { return ((const tn_str *)v->data)[TN_ARG_IDX(v, i)]; }
static bool arg_valid(const tn_vector *v, uint32_t i) { return tn_vector_is_valid(v, TN_ARG_IDX(v, i)); }
static int64_t arg_i64(const tn_vector *v, uint32_t i) { return ((const int64_t *)v->data)[TN_ARG_IDX(v, i)]; }

/* Decode argument k of row i (valid) into *out (the caller frees). */
static int decode(const tn_func_call *call, const tn_vector *v, uint32_t k, uint32_t i, tn_bitmap **out) {
    tn_str s = arg_str(v, i);
    int rc = tn_bitmap_decode(out, s.ptr, s.len);
    if (rc == TN_ECORRUPT) {
        char hex[17] = "";
        uint32_t m = s.len < 8 ? s.len : 8;
        for (uint32_t j = 0; j < m; j++) snprintf(hex + 2 * j, 3, "%02X", (unsigned char)s.ptr[j]);
        rc = tn_error_prefix(rc, "argument %u: value X'%s%s' (%u bytes)", k + 1, hex, s.len > 8 ? "..." : "", s.len);
    }
    return rc;
}

static int put_bitmap(tn_vector *out, uint32_t i, const tn_bitmap *bm) {
    tn_buf b = TN_BUF_INIT;
    int rc = tn_bitmap_serialize(bm, TN_BITMAP_AUTO, &b);
    if (!rc) rc = tn_vector_set_str(out, i, b.data ? (const char *)b.data : "", b.len);
    tn_buf_free(&b);
    return rc;
}

static void set_i64(tn_vector *out, uint32_t i, int64_t v) { ((int64_t *)out->data)[i] = v; }
static void set_bool(tn_vector *out, uint32_t i, bool v) { ((uint8_t *)out->data)[i] = v; }
static void all_valid(tn_vector *out, uint32_t n) {
    if (out->validity) memset(out->validity, 0xff, ((size_t)n + 63) / 64 * 8);
}

/* ---------------------------------------------------------------------------------------------
 * Builders. The one-value builders share one loop: a value function gives row i's value, or
 * false for NULL (to_bitmap of a negative number or of text that is not one).
 */
/* An unsigned 64-bit decimal number with optional surrounding spaces; false if not one. */
static bool parse_u64(const char *p, size_t len, uint64_t *out) {
    size_t i = 0;
    while (i < len && (p[i] == ' ' || p[i] == '\t')) i++;
    while (len > i && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
    if (i == len) return false;
    uint64_t v = 0;
    for (; i < len; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

typedef bool (*value_fn)(const tn_vector *arg, uint32_t i, uint64_t *v);

static bool v_int(const tn_vector *a, uint32_t i, uint64_t *v) {
    int64_t x = arg_i64(a, i);
    *v = (uint64_t)x;
    return x >= 0;
}
static bool v_text(const tn_vector *a, uint32_t i, uint64_t *v) {
    tn_str s = arg_str(a, i);
    return parse_u64(s.ptr, s.len, v);
}
/* Doris bitmap_hash: MurmurHash3 x86 32-bit of the string's bytes, seed 104729. */
static bool v_hash32(const tn_vector *a, uint32_t i, uint64_t *v) {
    tn_str s = arg_str(a, i);
    *v = tn_murmur3_32(s.ptr, s.len, 104729);
    return true;
}

static uint64_t fmix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    return k ^ k >> 33;
}
/* Doris/StarRocks bitmap_hash64: their 64-bit MurmurHash3 variant, seed 0: the x64 body on one
 * lane (8-byte little-endian blocks: k *= c1, rotl 31, *= c2; h ^= k, rotl 27, h*5 + 0x52dce729),
 * the tail as one block, then h ^= length and fmix64. 'hello' -> 15231136565543391023. */
static bool v_hash64(const tn_vector *a, uint32_t i, uint64_t *v) {
    tn_str s = arg_str(a, i);
    const uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
    const unsigned char *p = (const unsigned char *)s.ptr;
    uint64_t h = 0;
    size_t nb = s.len / 8;
    for (size_t b = 0; b < nb; b++) {
        uint64_t k;
        memcpy(&k, p + 8 * b, 8);
        k *= c1;
        k = k << 31 | k >> 33;
        k *= c2;
        h ^= k;
        h = h << 27 | h >> 37;
        h = h * 5 + 0x52dce729;
    }
    uint64_t k = 0;
    for (size_t t = s.len & 7; t-- > 0;) k ^= (uint64_t)p[8 * nb + t] << (8 * t);
    if (s.len & 7) {
        k *= c1;
        k = k << 31 | k >> 33;
        k *= c2;
        h ^= k;
    }
    *v = fmix64(h ^ (uint64_t)s.len);
    return true;
}

static int singleton(FN_ARGS, value_fn value) {
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        uint64_t v;
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        if (!value(args[0], i, &v)) { tn_func_str_empty(out, i); rc = tn_vector_set_null(out, i); continue; }
        tn_bitmap *bm = tn_bitmap_create();
        if (!bm) return TN_ENOMEM;
        rc = tn_bitmap_add(bm, v);
        if (!rc) rc = put_bitmap(out, i, bm);
        tn_bitmap_free(bm);
    }
    return rc;
}
static int f_to_bitmap_int(FN_ARGS) { return singleton(call, args, nargs, n, out, v_int); }
static int f_to_bitmap_str(FN_ARGS) { return singleton(call, args, nargs, n, out, v_text); }
static int f_bitmap_hash(FN_ARGS) { return singleton(call, args, nargs, n, out, v_hash32); }
static int f_bitmap_hash64(FN_ARGS) { return singleton(call, args, nargs, n, out, v_hash64); }

/* ----- bitmap_to_array(b) -> BIGINT[] (ascending) and bitmap_from_array(integer list) ----- */

static int bind_to_array(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    return tn_type_list(&b->ret, tn_type_make(TN_TYPE_BIGINT));
}

typedef struct to_list {
    tn_vector *out;
    uint32_t row;
} to_list;

static int push_value(void *ctx, uint64_t v) {
    to_list *t = ctx;
    tn_vector *c = &t->out->children[0];
    if (v > INT64_MAX)
        return tn_error_set(TN_ELIMIT, "bitmap_to_array: value %llu does not fit a BIGINT element (the bitmap holds "
                            "values of 2^63 and above)", (unsigned long long)v);
    int rc = 0;
    if (c->count >= c->capacity &&
        (rc = tn_vector_reserve(c, c->capacity * 2 > c->count + 1024 ? c->capacity * 2 : c->count + 1024)))
        return rc;
    ((int64_t *)c->data)[c->count] = (int64_t)v;
    if (c->validity) tn_vector_set_valid_bit(c, c->count, true);
    c->count++;
    ((tn_list_entry *)t->out->data)[t->row].length++;
    return 0;
}

static int f_to_array(FN_ARGS) {
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        ((tn_list_entry *)out->data)[i] = (tn_list_entry){out->children[0].count, 0};
        if (!tn_vector_is_valid(out, i)) continue;
        tn_bitmap *bm = NULL;
        if ((rc = decode(call, args[0], 0, i, &bm))) break;
        to_list t = {out, i};
        rc = tn_bitmap_iterate(bm, push_value, &t);
        tn_bitmap_free(bm);
    }
    return rc;
}

/* The list's elements must be integers (cast to BIGINT); NULL elements and negative values are
 * skipped, as bitmap_agg skips them (StarRocks). */
static int bind_from_array(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type t = b->arg_types[0];
    if (t.id == TN_TYPE_NULL) return tn_type_list(&b->arg_types[0], tn_type_make(TN_TYPE_BIGINT));
    if (t.id != TN_TYPE_LIST || !(tn_type_is_integer(tn_type_element(t)) || tn_type_element(t).id == TN_TYPE_NULL)) {
        char name[128];
        return tn_error_set(TN_EBIND, "%s takes a list of integers (BIGINT[]), not %s", b->def->name,
                            tn_type_format(t, name, sizeof name));
    }
    return tn_type_list(&b->arg_types[0], tn_type_make(TN_TYPE_BIGINT));
}

static int f_from_array(FN_ARGS) {
    const tn_vector *l = args[0], *c = &l->children[0];
    tn_bitmap *bm = tn_bitmap_create();
    if (!bm) return TN_ENOMEM;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        tn_list_entry e = ((const tn_list_entry *)l->data)[TN_ARG_IDX(l, i)];
        tn_bitmap_clear(bm);
        for (uint32_t k = 0; k < e.length && !rc; k++) {
            uint32_t at = e.offset + k;
            if (!tn_vector_is_valid(c, at)) continue;
            int64_t v = ((const int64_t *)c->data)[at];
            if (v >= 0) rc = tn_bitmap_add(bm, (uint64_t)v);
        }
        if (!rc) rc = put_bitmap(out, i, bm);
    }
    tn_bitmap_free(bm);
    return rc;
}

static int f_bitmap_empty(FN_ARGS) {
    tn_bitmap *bm = tn_bitmap_create();
    if (!bm) return TN_ENOMEM;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) rc = put_bitmap(out, i, bm);
    tn_bitmap_free(bm);
    return rc;
}

/* '1,2,3' (spaces around numbers allowed; '' is the empty bitmap); anything else gives NULL. */
static int f_from_string(FN_ARGS) {
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        tn_str s = arg_str(args[0], i);
        tn_bitmap *bm = tn_bitmap_create();
        if (!bm) return TN_ENOMEM;
        bool ok = true;
        size_t a = 0;
        bool blank = true;
        for (size_t k = 0; k < s.len; k++) blank &= s.ptr[k] == ' ';
        while (ok && !blank && a <= s.len) {
            size_t z = a;
            while (z < s.len && s.ptr[z] != ',') z++;
            uint64_t v;
            ok = parse_u64(s.ptr + a, z - a, &v) && tn_bitmap_add(bm, v) == 0;
            a = z + 1;
        }
        if (ok) rc = put_bitmap(out, i, bm);
        else { tn_func_str_empty(out, i); rc = tn_vector_set_null(out, i); }
        tn_bitmap_free(bm);
    }
    return rc;
}

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 text -> bitmap bytes: not base64 gives NULL; base64 of something that is not a
 * bitmap is an error (named). The value is stored as tarn writes that set. */
static int f_from_base64(FN_ARGS) {
    int8_t map[256];
    memset(map, -1, sizeof map);
    for (int k = 0; k < 64; k++) map[(unsigned char)b64chars[k]] = (int8_t)k;
    tn_buf raw = TN_BUF_INIT, re = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        tn_str s = arg_str(args[0], i);
        tn_buf_clear(&raw);
        uint32_t acc = 0, bits = 0;
        bool ok = true, pad = false;
        for (uint32_t k = 0; k < s.len && ok; k++) {
            unsigned char c = (unsigned char)s.ptr[k];
            if (c == '=') { pad = true; continue; }
            if (c == '\n' || c == '\r' || c == ' ') continue;
            if (pad || map[c] < 0) { ok = false; break; }
            acc = acc << 6 | (uint32_t)map[c];
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                if ((rc = tn_buf_append_byte(&raw, (uint8_t)(acc >> bits)))) break;
            }
        }
        if (rc) break;
        if (!ok) { tn_func_str_empty(out, i); rc = tn_vector_set_null(out, i); continue; }
        tn_buf_clear(&re);
        rc = tn_bitmap_reserialize(raw.data ? raw.data : (const uint8_t *)"", raw.len, TN_BITMAP_AUTO, &re);
        if (rc == TN_ECORRUPT) rc = tn_error_prefix(rc, "the decoded bytes");
        if (!rc) rc = tn_vector_set_str(out, i, (const char *)re.data, re.len);
    }
    tn_buf_free(&raw);
    tn_buf_free(&re);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Inspection.
 */
static int f_count(FN_ARGS) {   /* NULL -> 0 */
    int rc = 0;
    all_valid(out, n);
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!arg_valid(args[0], i)) { set_i64(out, i, 0); continue; }
        tn_bitmap *bm = NULL;
        if ((rc = decode(call, args[0], 0, i, &bm))) break;
        set_i64(out, i, (int64_t)tn_bitmap_cardinality(bm));
        tn_bitmap_free(bm);
    }
    return rc;
}

typedef struct collect_str {
    tn_buf *b;
    bool first;
} collect_str;

static int put_num(void *ctx, uint64_t v) {
    collect_str *c = ctx;
    int rc = tn_buf_printf(c->b, c->first ? "%llu" : ",%llu", (unsigned long long)v);
    c->first = false;
    return rc;
}

static int f_to_string(FN_ARGS) {
    int rc = 0;
    tn_buf b = TN_BUF_INIT;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        tn_bitmap *bm = NULL;
        if ((rc = decode(call, args[0], 0, i, &bm))) break;
        tn_buf_clear(&b);
        collect_str c = {&b, true};
        rc = tn_bitmap_iterate(bm, put_num, &c);
        if (!rc) rc = tn_vector_set_str(out, i, b.data ? (const char *)b.data : "", b.len);
        tn_bitmap_free(bm);
    }
    tn_buf_free(&b);
    return rc;
}

/* The bitmap's bytes as tarn writes the set (Java's container choices), in base64. */
static int f_to_base64(FN_ARGS) {
    int rc = 0;
    tn_buf b = TN_BUF_INIT, t = TN_BUF_INIT;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        tn_str s = arg_str(args[0], i);
        tn_buf_clear(&b);
        rc = tn_bitmap_reserialize(s.ptr, s.len, TN_BITMAP_AUTO, &b);
        if (rc == TN_ECORRUPT) rc = tn_error_prefix(rc, "argument 1");
        if (rc) break;
        tn_buf_clear(&t);
        for (size_t k = 0; k < b.len && !rc; k += 3) {
            uint32_t x = (uint32_t)b.data[k] << 16 | (k + 1 < b.len ? (uint32_t)b.data[k + 1] << 8 : 0) |
                         (k + 2 < b.len ? b.data[k + 2] : 0);
            char q[4] = {b64chars[x >> 18 & 63], b64chars[x >> 12 & 63], k + 1 < b.len ? b64chars[x >> 6 & 63] : '=',
                         k + 2 < b.len ? b64chars[x & 63] : '='};
            rc = tn_buf_append(&t, q, 4);
        }
        if (!rc) rc = tn_vector_set_str(out, i, t.data ? (const char *)t.data : "", t.len);
    }
    tn_buf_free(&b);
    tn_buf_free(&t);
    return rc;
}

/* NULL for a valid bitmap, else what is wrong with it (to find bad rows). */
static int f_error(FN_ARGS) {
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        tn_str s = arg_str(args[0], i);
        if (tn_bitmap_validate(s.ptr, s.len, NULL) == 0) { tn_func_str_empty(out, i); rc = tn_vector_set_null(out, i); continue; }
        const char *m = tn_error_message();
        rc = tn_vector_set_str(out, i, m, strlen(m));
    }
    return rc;
}

static int f_contains(FN_ARGS) {
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) continue;
        tn_bitmap *bm = NULL;
        if ((rc = decode(call, args[0], 0, i, &bm))) break;
        int64_t x = arg_i64(args[1], i);
        set_bool(out, i, x >= 0 && tn_bitmap_contains(bm, (uint64_t)x));
        tn_bitmap_free(bm);
    }
    return rc;
}

enum { P_ANY, P_ALL };
static int pred2(FN_ARGS, int which) {
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) continue;
        tn_bitmap *a = NULL, *b = NULL;
        rc = decode(call, args[0], 0, i, &a);
        if (!rc) rc = decode(call, args[1], 1, i, &b);
        if (!rc) set_bool(out, i, which == P_ANY ? tn_bitmap_intersects(a, b) : tn_bitmap_is_subset(b, a));
        tn_bitmap_free(a);
        tn_bitmap_free(b);
    }
    return rc;
}
static int f_has_any(FN_ARGS) { return pred2(call, args, nargs, n, out, P_ANY); }
static int f_has_all(FN_ARGS) { return pred2(call, args, nargs, n, out, P_ALL); }

static int minmax(FN_ARGS, bool is_max) {
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) continue;
        tn_bitmap *bm = NULL;
        if ((rc = decode(call, args[0], 0, i, &bm))) break;
        uint64_t v;
        if (!(is_max ? tn_bitmap_max(bm, &v) : tn_bitmap_min(bm, &v))) rc = tn_vector_set_null(out, i);
        else if (v > INT64_MAX)
            rc = tn_error_set(TN_ELIMIT, "%llu does not fit in BIGINT", (unsigned long long)v);
        else set_i64(out, i, (int64_t)v);
        tn_bitmap_free(bm);
    }
    return rc;
}
static int f_min(FN_ARGS) { return minmax(call, args, nargs, n, out, false); }
static int f_max(FN_ARGS) { return minmax(call, args, nargs, n, out, true); }

/* ---------------------------------------------------------------------------------------------
 * Combination. OP_OR skips NULL arguments (all NULL: NULL); the others are NULL with any NULL.
 */
enum { OP_AND, OP_OR, OP_XOR, OP_ANDNOT };

static int combine_row(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t i, int op,
                       tn_bitmap **res) {
    tn_bitmap *acc = NULL;
    int rc = 0;
    *res = NULL;
    for (uint32_t k = 0; k < nargs && !rc; k++) {
        if (!arg_valid(args[k], i)) {
            if (op == OP_OR) continue;
            tn_bitmap_free(acc);
            return 0;                                   /* NULL */
        }
        tn_bitmap *b = NULL;
        if ((rc = decode(call, args[k], k, i, &b))) break;
        if (!acc) { acc = b; continue; }
        rc = op == OP_AND ? tn_bitmap_and(acc, b) : op == OP_OR ? tn_bitmap_or(acc, b)
           : op == OP_XOR ? tn_bitmap_xor(acc, b) : tn_bitmap_andnot(acc, b);
        tn_bitmap_free(b);
    }
    if (rc) { tn_bitmap_free(acc); return rc; }
    *res = acc;
    return 0;
}

static int combine(FN_ARGS, int op, bool count) {
    int rc = 0;
    all_valid(out, n);
    for (uint32_t i = 0; i < n && !rc; i++) {
        tn_bitmap *r = NULL;
        if ((rc = combine_row(call, args, nargs, i, op, &r))) break;
        if (count) set_i64(out, i, r ? (int64_t)tn_bitmap_cardinality(r) : 0);
        else if (!r) { tn_func_str_empty(out, i); rc = tn_vector_set_null(out, i); }
        else rc = put_bitmap(out, i, r);
        tn_bitmap_free(r);
    }
    return rc;
}
static int f_and(FN_ARGS) { return combine(call, args, nargs, n, out, OP_AND, false); }
static int f_or(FN_ARGS) { return combine(call, args, nargs, n, out, OP_OR, false); }
static int f_xor(FN_ARGS) { return combine(call, args, nargs, n, out, OP_XOR, false); }
static int f_andnot(FN_ARGS) { return combine(call, args, nargs, n, out, OP_ANDNOT, false); }
static int f_and_count(FN_ARGS) { return combine(call, args, nargs, n, out, OP_AND, true); }
static int f_or_count(FN_ARGS) { return combine(call, args, nargs, n, out, OP_OR, true); }
static int f_xor_count(FN_ARGS) { return combine(call, args, nargs, n, out, OP_XOR, true); }
static int f_andnot_count(FN_ARGS) { return combine(call, args, nargs, n, out, OP_ANDNOT, true); }

/* ---------------------------------------------------------------------------------------------
 * Subsets. Negative bounds give NULL (StarRocks); sub_bitmap's negative offset counts from the
 * end (Doris), and an offset past the end gives NULL.
 */
enum { S_RANGE, S_LIMIT, S_SUB, S_REMOVE };

static int subset(FN_ARGS, int kind) {
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        int64_t x = arg_i64(args[1], i), y = kind == S_REMOVE ? 0 : arg_i64(args[2], i);
        tn_bitmap *bm = NULL, *r = NULL;
        if ((rc = decode(call, args[0], 0, i, &bm))) break;
        bool null = false;
        switch (kind) {
        case S_RANGE:
            if (x < 0 || y < 0) null = true;
            else rc = tn_bitmap_subset_range(&r, bm, (uint64_t)x, (uint64_t)y);
            break;
        case S_LIMIT:
            if (x < 0 || y < 0) null = true;
            else rc = tn_bitmap_subset_limit(&r, bm, (uint64_t)x, (uint64_t)y);
            break;
        case S_SUB: {
            int64_t card = (int64_t)tn_bitmap_cardinality(bm);
            if (x < 0) x += card;
            if (x < 0 || x >= card || y < 0) null = true;
            else rc = tn_bitmap_sub(&r, bm, (uint64_t)x, (uint64_t)y);
            break;
        }
        default:
            if (x >= 0) rc = tn_bitmap_remove(bm, (uint64_t)x);
            r = bm;
            bm = NULL;
            break;
        }
        if (!rc) {
            if (null) { tn_func_str_empty(out, i); rc = tn_vector_set_null(out, i); }
            else rc = put_bitmap(out, i, r);
        }
        tn_bitmap_free(bm);
        tn_bitmap_free(r);
    }
    return rc;
}
static int f_subset_in_range(FN_ARGS) { return subset(call, args, nargs, n, out, S_RANGE); }
static int f_subset_limit(FN_ARGS) { return subset(call, args, nargs, n, out, S_LIMIT); }
static int f_sub_bitmap(FN_ARGS) { return subset(call, args, nargs, n, out, S_SUB); }
static int f_remove(FN_ARGS) { return subset(call, args, nargs, n, out, S_REMOVE); }

#define SN TN_FUNC_SPECIAL_NULLS
#define VAR TN_FUNC_VARIADIC
#define F1(NAME, A, R, FL, FN) {NAME, {A, N}, R, FL, FN, NULL, NULL}
#define F2(NAME, A, B, R, FL, FN) {NAME, {A, B, N}, R, FL, FN, NULL, NULL}
#define F3(NAME, A, B, C, R, FN) {NAME, {A, B, C, N}, R, 0, FN, NULL, NULL}
#define COMB(NAME, FN, R) {NAME, {VB, VB, VB, N}, R, VAR | SN, FN, NULL, NULL}

const tn_func_def tn_funcs_bitmap[] = {
    F1("to_bitmap", BI, VB, 0, f_to_bitmap_int),
    F1("to_bitmap", VC, VB, 0, f_to_bitmap_str),
    {"bitmap_empty", {N}, VB, 0, f_bitmap_empty, NULL, NULL},
    F1("bitmap_from_string", VC, VB, 0, f_from_string),
    F1("bitmap_from_base64", VC, VB, 0, f_from_base64),
    F1("base64_to_bitmap", VC, VB, 0, f_from_base64),
    F1("bitmap_hash", VC, VB, 0, f_bitmap_hash),
    F1("bitmap_hash64", VC, VB, 0, f_bitmap_hash64),
    {"bitmap_to_array", {VB, N}, TN_SIG_ANY, 0, f_to_array, bind_to_array, NULL},
    {"bitmaptoarray", {VB, N}, TN_SIG_ANY, 0, f_to_array, bind_to_array, NULL},
    {"bitmap_from_array", {TN_SIG_ANY, N}, VB, 0, f_from_array, bind_from_array, NULL},
    {"bitmapbuild", {TN_SIG_ANY, N}, VB, 0, f_from_array, bind_from_array, NULL},
    F1("bitmap_count", VB, BI, SN, f_count),
    F1("bitmapcardinality", VB, BI, SN, f_count),
    F1("bitmap_to_string", VB, VC, 0, f_to_string),
    F1("bitmap_to_base64", VB, VC, 0, f_to_base64),
    F1("bitmap_error", VB, VC, 0, f_error),
    F2("bitmap_contains", VB, BI, BO, 0, f_contains),
    F2("bitmapcontains", VB, BI, BO, 0, f_contains),
    F2("bitmap_has_any", VB, VB, BO, 0, f_has_any),
    F2("bitmaphasany", VB, VB, BO, 0, f_has_any),
    F2("bitmap_has_all", VB, VB, BO, 0, f_has_all),
    F2("bitmaphasall", VB, VB, BO, 0, f_has_all),
    F1("bitmap_min", VB, BI, 0, f_min),
    F1("bitmapmin", VB, BI, 0, f_min),
    F1("bitmap_max", VB, BI, 0, f_max),
    F1("bitmapmax", VB, BI, 0, f_max),
    COMB("bitmap_and", f_and, VB),
    COMB("bitmapand", f_and, VB),
    COMB("bitmap_or", f_or, VB),
    COMB("bitmapor", f_or, VB),
    COMB("bitmap_xor", f_xor, VB),
    COMB("bitmapxor", f_xor, VB),
    COMB("bitmap_andnot", f_andnot, VB),
    COMB("bitmap_and_not", f_andnot, VB),
    COMB("bitmap_not", f_andnot, VB),
    COMB("bitmapandnot", f_andnot, VB),
    COMB("bitmap_and_count", f_and_count, BI),
    COMB("bitmapandcardinality", f_and_count, BI),
    COMB("bitmap_or_count", f_or_count, BI),
    COMB("bitmaporcardinality", f_or_count, BI),
    COMB("bitmap_xor_count", f_xor_count, BI),
    COMB("bitmapxorcardinality", f_xor_count, BI),
    COMB("bitmap_andnot_count", f_andnot_count, BI),
    COMB("bitmap_and_not_count", f_andnot_count, BI),
    COMB("bitmapandnotcardinality", f_andnot_count, BI),
    F3("bitmap_subset_in_range", VB, BI, BI, VB, f_subset_in_range),
    F3("bitmapsubsetinrange", VB, BI, BI, VB, f_subset_in_range),
    F3("bitmap_subset_limit", VB, BI, BI, VB, f_subset_limit),
    F3("bitmapsubsetlimit", VB, BI, BI, VB, f_subset_limit),
    F3("sub_bitmap", VB, BI, BI, VB, f_sub_bitmap),
    F3("subbitmap", VB, BI, BI, VB, f_sub_bitmap),
    F2("bitmap_remove", VB, BI, VB, 0, f_remove),
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
