/*
 * sql/func_similarity.c: string distance and character-code functions with DuckDB's semantics:
 * levenshtein / editdist3, damerau_levenshtein (unrestricted, adjacent transpositions),
 * hamming / mismatches, jaccard (sets of bytes), jaro_similarity and jaro_winkler_similarity
 * (optional score cutoff), chr, ascii, unicode, translate. Distances work on bytes as DuckDB's
 * do; chr/ascii/unicode/translate on code points.
 */
#include "sql/functions.h"

#include <stdlib.h>
#include <string.h>

#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out
#define STR(k, i) (((const tn_str *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define I64(k, i) (((const int64_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define I32(k, i) (((const int32_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define DBL(k, i) (((const double *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define VALID(i) tn_vector_is_valid(out, i)

/* A scratch array of n int64 cells, grown as needed (freed by the caller). */
static int64_t *scratch(int64_t **buf, size_t *cap, size_t n) {
    if (n > *cap) {
        int64_t *p = tn_realloc(*buf, n * sizeof *p);
        if (!p) return NULL;
        *buf = p;
        *cap = n;
    }
    return *buf;
}

/* ---------------------------------------------------------------------------------------------
 * Edit distances.
 */
static int64_t levenshtein(const uint8_t *a, size_t la, const uint8_t *b, size_t lb, int64_t *row) {
    if (la == 0) return (int64_t)lb;
    if (lb == 0) return (int64_t)la;
    for (size_t j = 0; j <= lb; j++) row[j] = (int64_t)j;
    for (size_t i = 1; i <= la; i++) {
        int64_t diag = row[0];
        row[0] = (int64_t)i;
        for (size_t j = 1; j <= lb; j++) {
            int64_t up = row[j];
            int64_t v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v) v = up + 1;
            if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
        }
    }
    return row[lb];
}

static int f_levenshtein(FN_ARGS) {
    int64_t *r = out->data, *buf = NULL;
    size_t cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        r[i] = 0;
        if (!VALID(i)) continue;
        tn_str a = STR(0, i), b = STR(1, i);
        int64_t *row = scratch(&buf, &cap, (size_t)b.len + 1);
        if (!row) return TN_ENOMEM;
        r[i] = levenshtein((const uint8_t *)a.ptr, a.len, (const uint8_t *)b.ptr, b.len, row);
    }
    tn_free(buf);
    return 0;
}

/* Damerau-Levenshtein with adjacent transpositions (Lowrance-Wagner; a substring may be edited
 * more than once), over a (la+2) x (lb+2) matrix. */
static int f_damerau(FN_ARGS) {
    int64_t *r = out->data, *buf = NULL;
    size_t cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        r[i] = 0;
        if (!VALID(i)) continue;
        tn_str sa = STR(0, i), sb = STR(1, i);
        const uint8_t *a = (const uint8_t *)sa.ptr, *b = (const uint8_t *)sb.ptr;
        size_t la = sa.len, lb = sb.len, w = lb + 2;
        if (la == 0 || lb == 0) {
            r[i] = (int64_t)(la + lb);
            continue;
        }
        int64_t *d = scratch(&buf, &cap, (la + 2) * w);
        if (!d) return TN_ENOMEM;
        size_t da[256] = {0};
        int64_t maxd = (int64_t)(la + lb);
#define D(x, y) d[(size_t)(x) * w + (size_t)(y)]
        D(0, 0) = maxd;
        for (size_t x = 0; x <= la; x++) D(x + 1, 0) = maxd, D(x + 1, 1) = (int64_t)x;
        for (size_t y = 0; y <= lb; y++) D(0, y + 1) = maxd, D(1, y + 1) = (int64_t)y;
        for (size_t x = 1; x <= la; x++) {
            size_t db = 0;
            for (size_t y = 1; y <= lb; y++) {
                size_t k = da[b[y - 1]], l = db;
                int64_t cost = 1;
                if (a[x - 1] == b[y - 1]) cost = 0, db = y;
                int64_t v = D(x, y) + cost;                                  /* substitution */
                if (D(x + 1, y) + 1 < v) v = D(x + 1, y) + 1;                 /* insertion */
                if (D(x, y + 1) + 1 < v) v = D(x, y + 1) + 1;                 /* deletion */
                int64_t t = D(k, l) + (int64_t)(x - k - 1) + 1 + (int64_t)(y - l - 1);
                if (t < v) v = t;                                            /* transposition */
                D(x + 1, y + 1) = v;
            }
            da[a[x - 1]] = x;
        }
        r[i] = D(la + 1, lb + 1);
#undef D
    }
    tn_free(buf);
    return 0;
}

static int f_hamming(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        r[i] = 0;
        if (!VALID(i)) continue;
        tn_str a = STR(0, i), b = STR(1, i);
        if (a.len == 0 && b.len == 0)
            return tn_error_set(TN_EINVAL, "Invalid Input Error: Mismatch Function: Strings must not be empty!");
        if (a.len != b.len)
            return tn_error_set(TN_EINVAL, "Invalid Input Error: Mismatch Function: Strings must be of equal length!");
        int64_t k = 0;
        for (uint32_t j = 0; j < a.len; j++) k += a.ptr[j] != b.ptr[j];
        r[i] = k;
    }
    return 0;
}

/* jaccard: |A n B| / |A u B| over the sets of bytes of the two strings. */
static int f_jaccard(FN_ARGS) {
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        r[i] = 0;
        if (!VALID(i)) continue;
        tn_str a = STR(0, i), b = STR(1, i);
        if (a.len == 0 || b.len == 0)
            return tn_error_set(TN_EINVAL, "Invalid Input Error: Jaccard Function: An argument too short!");
        uint64_t sa[4] = {0}, sb[4] = {0};
        for (uint32_t j = 0; j < a.len; j++) sa[(uint8_t)a.ptr[j] >> 6] |= 1ull << ((uint8_t)a.ptr[j] & 63);
        for (uint32_t j = 0; j < b.len; j++) sb[(uint8_t)b.ptr[j] >> 6] |= 1ull << ((uint8_t)b.ptr[j] & 63);
        int inter = 0, uni = 0;
        for (int w = 0; w < 4; w++) inter += __builtin_popcountll(sa[w] & sb[w]), uni += __builtin_popcountll(sa[w] | sb[w]);
        r[i] = (double)inter / (double)uni;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Jaro and Jaro-Winkler similarity (bytes; 0 when either string is empty).
 */
/* As DuckDB's (rapidfuzz's) jaro: the longer string is cut to the shorter's length + the match
 * bound, a common prefix counts as matches, each character of b then takes the first free
 * equal character of a within the bound, and half the transpositions are rounded down. */
static double jaro(const uint8_t *a, size_t la0, const uint8_t *b, size_t lb0, uint8_t *flags) {
    if (la0 == 0 || lb0 == 0) return 0;
    if (la0 == 1 && lb0 == 1) return a[0] == b[0];
    size_t la = la0, lb = lb0, bound;
    if (lb > la) {
        bound = lb / 2 - 1;
        if (lb > la + bound) lb = la + bound;
    } else {
        bound = la / 2 - 1;
        if (la > lb + bound) la = lb + bound;
    }
    size_t c = 0;
    while (c < la && c < lb && a[c] == b[c]) c++;
    a += c, b += c, la -= c, lb -= c;
    uint8_t *fa = flags, *fb = flags + la;
    memset(flags, 0, la + lb);
    size_t m = 0;
    for (size_t j = 0; j < lb; j++) {
        size_t lo = j > bound ? j - bound : 0, hi = j + bound + 1 < la ? j + bound + 1 : la;
        for (size_t i = lo; i < hi; i++) {
            if (!fa[i] && a[i] == b[j]) {
                fa[i] = fb[j] = 1;
                m++;
                break;
            }
        }
    }
    size_t t = 0, k = 0;
    for (size_t j = 0; j < lb; j++) {
        if (!fb[j]) continue;
        while (!fa[k]) k++;
        t += a[k] != b[j];
        k++;
    }
    m += c;
    if (m == 0) return 0;
    double dm = (double)m;
    return (dm / (double)la0 + dm / (double)lb0 + (dm - (double)(t / 2)) / dm) / 3.0;
}

static int jaro_rows(FN_ARGS, bool winkler) {
    double *r = out->data;
    uint8_t *flags = NULL;
    size_t cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        r[i] = 0;
        if (!VALID(i)) continue;
        tn_str sa = STR(0, i), sb = STR(1, i);
        size_t need = (size_t)sa.len + sb.len + 1;
        if (need > cap) {
            uint8_t *p = tn_realloc(flags, need);
            if (!p) {
                tn_free(flags);
                return TN_ENOMEM;
            }
            flags = p;
            cap = need;
        }
        const uint8_t *a = (const uint8_t *)sa.ptr, *b = (const uint8_t *)sb.ptr;
        double sim = jaro(a, sa.len, b, sb.len, flags);
        if (winkler && sim > 0.7) {
            size_t p = 0;
            while (p < 4 && p < sa.len && p < sb.len && a[p] == b[p]) p++;
            sim += (double)p * 0.1 * (1.0 - sim);
        }
        if (nargs > 2 && sim < DBL(2, i)) sim = 0;
        r[i] = sim;
    }
    tn_free(flags);
    return 0;
}
static int f_jaro(FN_ARGS) { return jaro_rows(call, args, nargs, n, out, false); }
static int f_jaro_winkler(FN_ARGS) { return jaro_rows(call, args, nargs, n, out, true); }

/* ---------------------------------------------------------------------------------------------
 * Code points.
 */
static int f_chr(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) {
            tn_func_str_empty(out, i);
            continue;
        }
        int32_t cp = I32(0, i);
        if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return tn_error_set(TN_EINVAL, "Invalid Input Error: Invalid UTF8 Codepoint %d", cp);
        char t[4];
        int rc = tn_vector_set_str(out, i, t, tn_utf8_encode((uint32_t)cp, t));
        if (rc) return rc;
    }
    return 0;
}

/* ascii(s): the first code point (0 for ''); unicode(s): the same but -1 for ''. */
static int first_cp(FN_ARGS, int32_t empty) {
    int32_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        r[i] = 0;
        if (!VALID(i)) continue;
        tn_str s = STR(0, i);
        uint32_t at = 0;
        r[i] = s.len ? (int32_t)tn_utf8_next(s.ptr, s.len, &at) : empty;
    }
    return 0;
}
static int f_ascii(FN_ARGS) { return first_cp(call, args, nargs, n, out, 0); }
static int f_unicode(FN_ARGS) { return first_cp(call, args, nargs, n, out, -1); }

/* translate(s, from, to): each code point of s found in from becomes the one at the same place
 * in to, or is dropped when to is shorter; the first occurrence in from counts. */
static int f_translate(FN_ARGS) {
    tn_buf b = TN_BUF_INIT;
    uint32_t *fm = NULL, *to = NULL;
    size_t cap = 0;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!VALID(i)) {
            tn_func_str_empty(out, i);
            continue;
        }
        tn_str s = STR(0, i), f = STR(1, i), t = STR(2, i);
        size_t need = (size_t)f.len + t.len + 1;
        if (need > cap) {
            uint32_t *p = tn_realloc(fm, need * 2 * sizeof *p);
            if (!p) {
                rc = TN_ENOMEM;
                break;
            }
            fm = p;
            cap = need;
        }
        to = fm + cap;
        size_t nf = 0, nt = 0;
        for (uint32_t at = 0; at < f.len;) fm[nf++] = tn_utf8_next(f.ptr, f.len, &at);
        for (uint32_t at = 0; at < t.len;) to[nt++] = tn_utf8_next(t.ptr, t.len, &at);
        tn_buf_clear(&b);
        for (uint32_t at = 0; at < s.len && !rc;) {
            uint32_t start = at, cp = tn_utf8_next(s.ptr, s.len, &at);
            size_t k = 0;
            while (k < nf && fm[k] != cp) k++;
            if (k == nf) rc = tn_buf_append(&b, s.ptr + start, at - start);
            else if (k < nt) {
                char e[4];
                rc = tn_buf_append(&b, e, tn_utf8_encode(to[k], e));
            }
        }
        if (!rc) rc = tn_vector_set_str(out, i, b.data ? (const char *)b.data : "", b.len);
    }
    tn_free(fm);
    tn_buf_free(&b);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Table.
 */
#define N TN_SIG_NONE
#define V TN_TYPE_VARCHAR
#define B TN_TYPE_BIGINT
#define D TN_TYPE_DOUBLE
#define I TN_TYPE_INTEGER
const tn_func_def tn_funcs_similarity[] = {
    {"levenshtein", {V, V, N}, B, 0, f_levenshtein, NULL, NULL},
    {"editdist3", {V, V, N}, B, 0, f_levenshtein, NULL, NULL},
    {"damerau_levenshtein", {V, V, N}, B, 0, f_damerau, NULL, NULL},
    {"hamming", {V, V, N}, B, 0, f_hamming, NULL, NULL},
    {"mismatches", {V, V, N}, B, 0, f_hamming, NULL, NULL},
    {"jaccard", {V, V, N}, D, 0, f_jaccard, NULL, NULL},
    {"jaro_similarity", {V, V, N}, D, 0, f_jaro, NULL, NULL},
    {"jaro_similarity", {V, V, D, N}, D, 0, f_jaro, NULL, NULL},
    {"jaro_winkler_similarity", {V, V, N}, D, 0, f_jaro_winkler, NULL, NULL},
    {"jaro_winkler_similarity", {V, V, D, N}, D, 0, f_jaro_winkler, NULL, NULL},
    {"chr", {I, N}, V, 0, f_chr, NULL, NULL},
    {"ascii", {V, N}, I, 0, f_ascii, NULL, NULL},
    {"unicode", {V, N}, I, 0, f_unicode, NULL, NULL},
    {"translate", {V, V, V, N}, V, 0, f_translate, NULL, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
