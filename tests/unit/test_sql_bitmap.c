/*
 * tests/unit/test_sql_bitmap.c: every bitmap function through SQL against CRoaring used
 * directly (the reference: its own writer makes the input bytes, with and without run
 * containers, its own algebra the expected answers, its own reader checks the bytes tarn
 * returns), on random sparse, dense, run, 64-bit (the spec layout over CRoaring buckets) and
 * empty sets: thousands of cases per run.
 */
#include <roaring/roaring.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql.h"
#include "testlib.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random 32-bit set of one of five shapes. */
static roaring_bitmap_t *random_set(int shape) {
    roaring_bitmap_t *r = roaring_bitmap_create();
    switch (shape) {
    case 0: break;
    case 1: for (int i = 0, m = (int)(rnd() % 100); i < m; i++) roaring_bitmap_add(r, (uint32_t)(rnd() % 300000)); break;
    case 2: for (int i = 0, m = 5000 + (int)(rnd() % 10000); i < m; i++) roaring_bitmap_add(r, (uint32_t)(rnd() % 140000)); break;
    case 3: {
        uint32_t at = (uint32_t)(rnd() % 1000);
        for (int k = 0, m = 1 + (int)(rnd() % 8); k < m; k++) {
            uint32_t len = 1 + (uint32_t)(rnd() % 5000);
            roaring_bitmap_add_range_closed(r, at, at + len - 1);
            at += len + 1 + (uint32_t)(rnd() % 3000);
        }
        break;
    }
    case 4: for (int i = 0, m = (int)(rnd() % 50); i < m; i++) roaring_bitmap_add(r, (uint32_t)rnd()); break;
    default: /* a few values of a narrow universe: many of them OR into 1k-4k values per container */
        for (int i = 0, m = 30 + (int)(rnd() % 50); i < m; i++) roaring_bitmap_add(r, (uint32_t)(rnd() % 3000) + 65536 * (uint32_t)(rnd() % 2));
        break;
    }
    if (rnd() % 2) roaring_bitmap_run_optimize(r);
    return r;
}

static char *hex_of(const char *p, size_t n) {
    char *h = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) snprintf(h + 2 * i, 3, "%02X", (unsigned char)p[i]);
    h[2 * n] = 0;
    return h;
}

static char *portable_hex(const roaring_bitmap_t *r) {
    size_t n = roaring_bitmap_portable_size_in_bytes(r);
    char *b = malloc(n + 1);
    roaring_bitmap_portable_serialize(r, b);
    char *h = hex_of(b, n);
    free(b);
    return h;
}

/* The spec's 64-bit layout over CRoaring buckets: u64 count, then (u32 key, portable 32-bit). */
static char *portable64_hex(roaring_bitmap_t *const *bk, const uint32_t *keys, int n) {
    size_t total = 8;
    for (int i = 0; i < n; i++) total += 4 + roaring_bitmap_portable_size_in_bytes(bk[i]);
    char *b = malloc(total), *p = b;
    uint64_t c = (uint64_t)n;
    memcpy(p, &c, 8);
    p += 8;
    for (int i = 0; i < n; i++) {
        memcpy(p, &keys[i], 4);
        p += 4;
        p += roaring_bitmap_portable_serialize(bk[i], p);
    }
    char *h = hex_of(b, total);
    free(b);
    return h;
}

typedef struct strbuf {
    char *s;
    size_t n, cap;
} strbuf;

static void sb_add(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(strbuf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (b->s && (size_t)k < b->cap - b->n) { b->n += (size_t)k; return; }
        b->cap = (b->cap + (size_t)k + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
}

static bool it_str(uint32_t v, void *p) {
    strbuf *b = p;
    sb_add(b, b->n ? ",%u" : "%u", v);
    return true;
}

/* Expected values for one row, in select-list order. */
typedef struct expect {
    int kind;           /* 0: BIGINT, 1: BOOLEAN, 2: VARCHAR, 3: bitmap (compare as a set), 4: NULL */
    int64_t i;
    char *s;
    roaring_bitmap_t *bm;
} expect;

static int nexp;
static expect exps[64];
static strbuf sel;

static void want_i(const char *expr, int64_t v) { sb_add(&sel, "%s%s", nexp ? ", " : "", expr); exps[nexp++] = (expect){0, v, NULL, NULL}; }
static void want_b(const char *expr, bool v) { sb_add(&sel, "%s%s", nexp ? ", " : "", expr); exps[nexp++] = (expect){1, v, NULL, NULL}; }
static void want_s(const char *expr, char *v) { sb_add(&sel, "%s%s", nexp ? ", " : "", expr); exps[nexp++] = (expect){2, 0, v, NULL}; }
static void want_bm(const char *expr, roaring_bitmap_t *v) { sb_add(&sel, "%s%s", nexp ? ", " : "", expr); exps[nexp++] = (expect){3, 0, NULL, v}; }
static void want_null(const char *expr) { sb_add(&sel, "%s%s", nexp ? ", " : "", expr); exps[nexp++] = (expect){4, 0, NULL, NULL}; }

static int cases;

/* Run "SELECT <sel> FROM (VALUES (X'a', X'b')) t(a, b)" and compare every column. */
static int run_and_compare(tn_sql_session *s, const char *from, char *err, size_t errcap) {
    strbuf q = {0};
    sb_add(&q, "SELECT %s FROM %s", sel.s, from);
    tn_sql_result *r = NULL;
    int bad = 0;
    if (tn_sql_execute(&r, s, q.s) != 0) {
        snprintf(err, errcap, "query failed: %s", tn_error_message());
        bad = 1;
        goto done;
    }
    const tn_chunk *ch = tn_sql_result_next(r);
    if (!ch || ch->count != 1 || ch->ncols != (uint32_t)nexp) {
        snprintf(err, errcap, "expected one row of %d columns", nexp);
        bad = 1;
        goto done;
    }
    for (int c = 0; c < nexp && !bad; c++) {
        const tn_vector *v = &ch->cols[c];
        expect *e = &exps[c];
        bool valid = tn_vector_is_valid(v, 0);
        if (e->kind == 4) { if (valid) { snprintf(err, errcap, "column %d: expected NULL", c); bad = 1; } continue; }
        if (!valid) { snprintf(err, errcap, "column %d: NULL", c); bad = 1; continue; }
        if (e->kind == 0 && ((const int64_t *)v->data)[0] != e->i) {
            snprintf(err, errcap, "column %d: %lld, expected %lld", c, (long long)((const int64_t *)v->data)[0], (long long)e->i);
            bad = 1;
        } else if (e->kind == 1 && (((const uint8_t *)v->data)[0] != 0) != (e->i != 0)) {
            snprintf(err, errcap, "column %d: boolean differs", c);
            bad = 1;
        } else if (e->kind == 2) {
            tn_str x = ((const tn_str *)v->data)[0];
            if (x.len != strlen(e->s) || memcmp(x.ptr, e->s, x.len)) {
                snprintf(err, errcap, "column %d: '%.80s', expected '%.80s'", c, x.ptr, e->s);
                bad = 1;
            }
        } else if (e->kind == 3) {
            tn_str x = ((const tn_str *)v->data)[0];
            roaring_bitmap_t *got = roaring_bitmap_portable_deserialize_safe(x.ptr, x.len);
            if (!got || !roaring_bitmap_equals(got, e->bm) || roaring_bitmap_portable_deserialize_size(x.ptr, x.len) != x.len) {
                snprintf(err, errcap, "column %d: bitmap differs (card %llu, expected %llu)", c,
                         got ? (unsigned long long)roaring_bitmap_get_cardinality(got) : 0ull,
                         (unsigned long long)roaring_bitmap_get_cardinality(e->bm));
                bad = 1;
            }
            roaring_bitmap_free(got);
        }
        cases++;
    }
done:
    tn_sql_result_free(r);
    free(q.s);
    for (int c = 0; c < nexp; c++) {
        free(exps[c].s);
        if (exps[c].bm) roaring_bitmap_free(exps[c].bm);
    }
    nexp = 0;
    sel.n = 0;
    if (sel.s) sel.s[0] = 0;
    return bad;
}

static roaring_bitmap_t *op(const roaring_bitmap_t *a, const roaring_bitmap_t *b, int k) {
    return k == 0 ? roaring_bitmap_and(a, b) : k == 1 ? roaring_bitmap_or(a, b) : k == 2 ? roaring_bitmap_xor(a, b)
                                                                                      : roaring_bitmap_andnot(a, b);
}

TEST(scalar_functions_against_croaring) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    char err[512];
    const char *names[] = {"and", "or", "xor", "andnot"};
    for (int iter = 0; iter < 300; iter++) {
        roaring_bitmap_t *a = random_set((int)(rnd() % 5)), *b = random_set((int)(rnd() % 5));
        char *ha = portable_hex(a), *hb = portable_hex(b);
        strbuf from = {0};
        sb_add(&from, "(VALUES (X'%s', X'%s')) t(a, b)", ha, hb);
        uint64_t ca = roaring_bitmap_get_cardinality(a);
        char e[160];
        want_i("bitmap_count(a)", (int64_t)ca);
        want_i("bitmapCardinality(b)", (int64_t)roaring_bitmap_get_cardinality(b));
        for (int k = 0; k < 4; k++) {
            snprintf(e, sizeof e, "bitmap_%s(a, b)", names[k]);
            want_bm(e, op(a, b, k));
            roaring_bitmap_t *t = op(a, b, k);
            snprintf(e, sizeof e, "bitmap_%s_count(a, b)", names[k]);
            want_i(e, (int64_t)roaring_bitmap_get_cardinality(t));
            roaring_bitmap_free(t);
        }
        want_bm("bitmapXor(a, b, a)", roaring_bitmap_copy(b));
        want_b("bitmap_has_any(a, b)", roaring_bitmap_intersect(a, b));
        want_b("bitmap_has_all(a, b)", roaring_bitmap_is_subset(b, a));
        uint32_t x = ca && rnd() % 2 ? ({ uint32_t v; roaring_bitmap_select(a, (uint32_t)(rnd() % ca), &v); v; })
                                     : (uint32_t)rnd() % 300000;
        snprintf(e, sizeof e, "bitmap_contains(a, %u)", x);
        want_b(e, roaring_bitmap_contains(a, x));
        if (ca) {
            want_i("bitmap_min(a)", roaring_bitmap_minimum(a));
            want_i("bitmapMax(a)", roaring_bitmap_maximum(a));
        } else {
            want_null("bitmap_min(a)");
            want_null("bitmap_max(a)");
        }
        strbuf str = {0};
        sb_add(&str, "%s", "");
        roaring_iterate(b, it_str, &str);
        want_s("bitmap_to_string(b)", str.s);
        want_bm("bitmap_from_string(bitmap_to_string(b))", roaring_bitmap_copy(b));
        want_bm("bitmap_from_base64(bitmap_to_base64(a))", roaring_bitmap_copy(a));
        /* subsets */
        uint32_t lo = (uint32_t)(rnd() % 200000), hi = lo + (uint32_t)(rnd() % 100000);
        roaring_bitmap_t *rg = roaring_bitmap_from_range(lo, hi, 1);
        snprintf(e, sizeof e, "bitmap_subset_in_range(a, %u, %u)", lo, hi);
        want_bm(e, roaring_bitmap_and(a, rg));
        roaring_bitmap_free(rg);
        uint32_t lim = (uint32_t)(rnd() % 300);
        roaring_bitmap_t *sl = roaring_bitmap_create();
        roaring_uint32_iterator_t it;
        roaring_init_iterator(a, &it);
        roaring_move_uint32_iterator_equalorlarger(&it, lo);
        for (uint32_t k = 0; k < lim && it.has_value; k++) {
            roaring_bitmap_add(sl, it.current_value);
            roaring_advance_uint32_iterator(&it);
        }
        snprintf(e, sizeof e, "bitmapSubsetLimit(a, %u, %u)", lo, lim);
        want_bm(e, sl);
        if (ca) {
            uint32_t off = (uint32_t)(rnd() % ca);
            roaring_bitmap_t *sub = roaring_bitmap_create();
            for (uint32_t k = off; k < off + lim && k < ca; k++) {
                uint32_t v;
                roaring_bitmap_select(a, k, &v);
                roaring_bitmap_add(sub, v);
            }
            snprintf(e, sizeof e, "sub_bitmap(a, %u, %u)", off, lim);
            want_bm(e, sub);
            roaring_bitmap_t *rm = roaring_bitmap_copy(a);
            uint32_t v;
            roaring_bitmap_select(a, off, &v);
            roaring_bitmap_remove(rm, v);
            snprintf(e, sizeof e, "bitmap_remove(a, %u)", v);
            want_bm(e, rm);
        } else {
            want_null("sub_bitmap(a, 0, 1)");
        }
        want_bm("to_bitmap(x)", ({ roaring_bitmap_t *t = roaring_bitmap_create(); roaring_bitmap_add(t, x); t; }));
        want_i("bitmap_or_count(a, NULL, b)", (int64_t)roaring_bitmap_or_cardinality(a, b));
        want_null("bitmap_and(a, NULL)");
        want_i("bitmap_and_count(a, NULL)", 0);
        want_null("bitmap_error(a)");
        strbuf from2 = {0};
        sb_add(&from2, "(SELECT a, b, %u AS x FROM %s) s", x, from.s);
        int bad = run_and_compare(s, from2.s, err, sizeof err);
        CHECK_MSG(!bad, "iteration %d: %s", iter, err);
        free(from.s);
        free(from2.s);
        free(ha);
        free(hb);
        roaring_bitmap_free(a);
        roaring_bitmap_free(b);
    }
    CHECK(cases >= 7000);
    tn_sql_session_close(s);
}

/* Aggregates over a VALUES list of CRoaring-written bitmaps (several per group, NULLs). */
TEST(aggregates_against_croaring) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    char err[512];
    int agg_cases = 0;
    for (int iter = 0; iter < 120; iter++) {
        /* the last 20: groups of 20-60 small narrow sets, whose OR goes through the lazy union's
         * early bitsets and back to arrays (Java's choice below 4,096 values) */
        int n = iter < 100 ? 1 + (int)(rnd() % 6) : 20 + (int)(rnd() % 41);
        roaring_bitmap_t *bms[60];
        strbuf vals = {0};
        int nonnull = 0;
        roaring_bitmap_t *or_ = roaring_bitmap_create(), *and_ = NULL, *xor_ = roaring_bitmap_create();
        for (int i = 0; i < n; i++) {
            bool null = rnd() % 5 == 0;
            bms[i] = random_set(iter < 100 ? (int)(rnd() % 5) : 5);
            if (null) sb_add(&vals, "%s(NULL)", i ? ", " : "");
            else {
                char *h = portable_hex(bms[i]);
                sb_add(&vals, "%s(X'%s')", i ? ", " : "", h);
                free(h);
                roaring_bitmap_or_inplace(or_, bms[i]);
                roaring_bitmap_xor_inplace(xor_, bms[i]);
                if (!and_) and_ = roaring_bitmap_copy(bms[i]);
                else roaring_bitmap_and_inplace(and_, bms[i]);
                nonnull++;
            }
        }
        strbuf from = {0};
        sb_add(&from, "(VALUES %s) t(b)", vals.s);
        want_i("bitmap(b)", (int64_t)roaring_bitmap_get_cardinality(or_));
        want_i("bitmap_union_count(b)", (int64_t)roaring_bitmap_get_cardinality(or_));
        want_bm("bitmap_union(b)", roaring_bitmap_copy(or_));
        want_i("groupBitmapXor(b)", (int64_t)roaring_bitmap_get_cardinality(xor_));
        want_bm("bitmap_xor_agg(b)", roaring_bitmap_copy(xor_));
        if (and_) {
            want_bm("bitmap_intersect(b)", roaring_bitmap_copy(and_));
            want_i("groupBitmapAnd(b)", (int64_t)roaring_bitmap_get_cardinality(and_));
            want_bm("rbm32(b)", roaring_bitmap_copy(or_));
        } else {
            want_null("bitmap_intersect(b)");
            want_i("groupBitmapAnd(b)", 0);
            want_null("rbm32(b)");
        }
        int bad = run_and_compare(s, from.s, err, sizeof err);
        CHECK_MSG(!bad, "iteration %d (%d rows, %d non-NULL): %s", iter, n, nonnull, err);
        agg_cases++;
        free(vals.s);
        free(from.s);
        for (int i = 0; i < n; i++) roaring_bitmap_free(bms[i]);
        roaring_bitmap_free(or_);
        if (and_) roaring_bitmap_free(and_);
        roaring_bitmap_free(xor_);
    }
    CHECK(agg_cases == 120);
    tn_sql_session_close(s);
}


/* intersect_count(b, f, v1, ...) = |AND over vi of (OR of b where f = vi)|, unnest_bitmap's
 * rows, and bitmap_hash64's Doris test vector, against CRoaring. */
TEST(intersect_count_unnest_hash64_against_croaring) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    char err[512];
    int runs = 0;
    for (int iter = 0; iter < 80; iter++) {
        int n = 1 + (int)(rnd() % 8);
        roaring_bitmap_t *per[4] = {roaring_bitmap_create(), roaring_bitmap_create(), roaring_bitmap_create(),
                                    roaring_bitmap_create()};
        strbuf vals = {0};
        for (int i = 0; i < n; i++) {
            int f = (int)(rnd() % 4);
            if (rnd() % 6 == 0) { sb_add(&vals, "%s(%d, NULL)", i ? ", " : "", f); continue; }
            roaring_bitmap_t *b = random_set((int)(rnd() % 5));
            char *h = portable_hex(b);
            sb_add(&vals, "%s(%d, X'%s')", i ? ", " : "", f, h);
            free(h);
            roaring_bitmap_or_inplace(per[f], b);
            roaring_bitmap_free(b);
        }
        strbuf from = {0};
        sb_add(&from, "(VALUES %s) t(f, b)", vals.s);
        roaring_bitmap_t *a01 = roaring_bitmap_and(per[0], per[1]);
        roaring_bitmap_t *a013 = roaring_bitmap_and(a01, per[3]);
        want_i("intersect_count(b, f, 0, 1)", (int64_t)roaring_bitmap_get_cardinality(a01));
        want_i("intersect_count(b, f, 0, 1, 3)", (int64_t)roaring_bitmap_get_cardinality(a013));
        want_i("intersect_count(b, f, 2)", (int64_t)roaring_bitmap_get_cardinality(per[2]));
        want_i("intersect_count(b, f, 2, 7)", 0);
        int bad = run_and_compare(s, from.s, err, sizeof err);
        CHECK_MSG(!bad, "intersect_count iteration %d: %s", iter, err);
        /* unnest_bitmap over one of the sets: row count, sum, min, max */
        roaring_bitmap_t *u = per[iter % 4];
        uint64_t sum = 0, card = roaring_bitmap_get_cardinality(u);
        roaring_uint32_iterator_t *it = roaring_create_iterator(u);
        while (it->has_value) { sum += it->current_value; roaring_advance_uint32_iterator(it); }
        roaring_free_uint32_iterator(it);
        char *h = portable_hex(u);
        strbuf un = {0};
        sb_add(&un, "unnest_bitmap(X'%s')", h);
        free(h);
        want_i("count(*)", (int64_t)card);
        if (card) {
            want_i("sum(unnest_bitmap)", (int64_t)sum);
            want_i("min(unnest_bitmap)", (int64_t)roaring_bitmap_minimum(u));
            want_i("max(unnest_bitmap)", (int64_t)roaring_bitmap_maximum(u));
        } else {
            want_null("sum(unnest_bitmap)");
        }
        bad = run_and_compare(s, un.s, err, sizeof err);
        CHECK_MSG(!bad, "unnest_bitmap iteration %d: %s", iter, err);
        runs++;
        free(un.s);
        free(vals.s);
        free(from.s);
        roaring_bitmap_free(a01);
        roaring_bitmap_free(a013);
        for (int k = 0; k < 4; k++) roaring_bitmap_free(per[k]);
    }
    CHECK(runs == 80);
    /* Doris's murmur_hash3_x64_64 test: 'hello', seed 0 -> -3215607508166160593 as uint64 */
    want_s("bitmap_to_string(bitmap_hash64('hello'))", strdup("15231136565543391023"));
    want_s("bitmap_to_string(bitmap_hash('abc'))", strdup("3409700625"));
    want_s("bitmap_to_string(bitmap_hash64(''))", strdup("0"));
    int bad = run_and_compare(s, "(VALUES (1)) t(x)", err, sizeof err);
    CHECK_MSG(!bad, "hash vectors: %s", err);
    tn_sql_session_close(s);
}

/* 64-bit values: the spec's layout, built here from CRoaring buckets. */
TEST(bitmap64_against_croaring) {
    tn_sql_session *s = NULL;
    CHECK_OK(tn_sql_session_open(&s, NULL, 2));
    char err[512];
    for (int iter = 0; iter < 100; iter++) {
        int nb = 1 + (int)(rnd() % 3);
        roaring_bitmap_t *bk[3];
        uint32_t keys[3];
        uint32_t k0 = (uint32_t)(rnd() % 3);
        uint64_t card = 0;
        for (int i = 0; i < nb; i++) {
            keys[i] = (i ? keys[i - 1] + 1 : k0) + (uint32_t)(rnd() % 1000);
            bk[i] = random_set(1 + (int)(rnd() % 4));
            card += roaring_bitmap_get_cardinality(bk[i]);
        }
        char *h = portable64_hex(bk, keys, nb);
        strbuf from = {0}, str = {0};
        sb_add(&from, "(VALUES (X'%s')) t(a)", h);
        sb_add(&str, "%s", "");
        for (int i = 0; i < nb; i++) {
            roaring_uint32_iterator_t it;
            roaring_init_iterator(bk[i], &it);
            for (; it.has_value; roaring_advance_uint32_iterator(&it))
                sb_add(&str, str.n ? ",%llu" : "%llu", (unsigned long long)((uint64_t)keys[i] << 32 | it.current_value));
        }
        want_i("bitmap_count(a)", (int64_t)card);
        want_i("bitmap_count(bitmap_or(a, bitmap_empty()))", (int64_t)card);
        want_s("bitmap_to_string(a)", str.s);
        want_s("bitmap_to_string(bitmap_from_string(bitmap_to_string(a)))", strdup(str.s));
        want_i("bitmap_or_count(a, bitmap_from_string(bitmap_to_string(a)))", (int64_t)card);
        int bad = run_and_compare(s, from.s, err, sizeof err);
        CHECK_MSG(!bad, "iteration %d: %s", iter, err);
        free(h);
        free(from.s);
        for (int i = 0; i < nb; i++) roaring_bitmap_free(bk[i]);
    }
    tn_sql_session_close(s);
}

TEST_MAIN()
