/*
 * sql/func_string.c: string functions (UTF-8 aware, DuckDB semantics): length, lower/upper,
 * substr, left/right, concat/concat_ws/||, trim family, replace, split_part, starts_with,
 * ends_with, contains, instr, lpad/rpad, reverse, repeat, LIKE/ILIKE (with ESCAPE), s[k].
 * Regular expressions and GLOB are in func_regex.c.
 */
#include "sql/functions.h"

#include <stdlib.h>
#include <string.h>

#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out
#define STR(k, i) (((const tn_str *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define I64(k, i) (((const int64_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define VALID(i) tn_vector_is_valid(out, i)

/* ---------------------------------------------------------------------------------------------
 * UTF-8 helpers.
 */
static inline bool is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

static uint32_t utf8_count(const char *p, uint32_t n) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) k += !is_cont((unsigned char)p[i]);
    return k;
}

/* Byte offset of character index ch (0-based; clamps to n). */
static uint32_t utf8_offset(const char *p, uint32_t n, int64_t ch) {
    if (ch <= 0) return 0;
    uint32_t i = 0;
    int64_t k = 0;
    while (i < n) {
        if (!is_cont((unsigned char)p[i])) {
            if (k == ch) return i;
            k++;
        }
        i++;
    }
    return n;
}

static int utf8_put(tn_buf *b, uint32_t cp) {
    char t[4];
    return tn_buf_append(b, t, tn_utf8_encode(cp, t));
}

/* Case mapping for Latin-1, Latin Extended-A, Greek and Cyrillic (no locale involved). */
static uint32_t cp_lower(uint32_t c) {
    if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
    if (c >= 0x100 && c <= 0x137) return c | 1;
    if (c >= 0x139 && c <= 0x148) return (c & 1) ? c + 1 : c;
    if (c >= 0x14A && c <= 0x177) return c | 1;
    if (c == 0x178) return 0xFF;
    if (c >= 0x179 && c <= 0x17E) return (c & 1) ? c + 1 : c;
    if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
    if (c >= 0x410 && c <= 0x42F) return c + 32;
    if (c >= 0x400 && c <= 0x40F) return c + 80;
    return c;
}
static uint32_t cp_upper(uint32_t c) {
    if (c < 0x80) return c >= 'a' && c <= 'z' ? c - 32 : c;
    if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
    if (c == 0xFF) return 0x178;
    if (c >= 0x100 && c <= 0x137) return c & ~1u;
    if (c >= 0x139 && c <= 0x148) return (c & 1) ? c : c - 1;
    if (c >= 0x14A && c <= 0x177) return c & ~1u;
    if (c >= 0x179 && c <= 0x17E) return (c & 1) ? c : c - 1;
    if (c == 0x3C2) return 0x3A3;
    if (c >= 0x3B1 && c <= 0x3C9) return c - 32;
    if (c >= 0x430 && c <= 0x44F) return c - 32;
    if (c >= 0x450 && c <= 0x45F) return c - 80;
    return c;
}

static int map_case(tn_buf *b, tn_str s, bool upper) {
    tn_buf_clear(b);
    uint32_t i = 0;
    while (i < s.len) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c < 0x80) {
            if (tn_buf_append_byte(b, (uint8_t)(upper ? cp_upper(c) : cp_lower(c)))) return TN_ENOMEM;
            i++;
            continue;
        }
        uint32_t start = i, cp = tn_utf8_next(s.ptr, s.len, &i);
        uint32_t m = upper ? cp_upper(cp) : cp_lower(cp);
        int rc = m == cp ? tn_buf_append(b, s.ptr + start, i - start) : utf8_put(b, m);
        if (rc) return rc;
    }
    return 0;
}

static int set_buf(tn_vector *out, uint32_t i, const tn_buf *b) {
    return tn_vector_set_str(out, i, b->data ? (const char *)b->data : "", b->len);
}

/* Loop helper: for each valid row, or mark NULL rows empty. */
#define FOR_ROWS(...)                                                                     \
    for (uint32_t i = 0; i < n; i++) {                                                    \
        if (!VALID(i)) {                                                                  \
            tn_func_str_empty(out, i);                                                    \
            continue;                                                                     \
        }                                                                                 \
        __VA_ARGS__                                                                       \
    }

/* ---------------------------------------------------------------------------------------------
 * Functions.
 */
static int f_length(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        tn_str s = STR(0, i);
        r[i] = VALID(i) ? utf8_count(s.ptr, s.len) : 0;
    }
    return 0;
}

static int f_octet_length(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = STR(0, i).len;
    return 0;
}

static int case_fn(FN_ARGS, bool upper) {
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    FOR_ROWS({
        rc = map_case(&b, STR(0, i), upper);
        if (!rc) rc = set_buf(out, i, &b);
        if (rc) break;
    })
    tn_buf_free(&b);
    return rc;
}
static int f_lower(FN_ARGS) { return case_fn(call, args, nargs, n, out, false); }
static int f_upper(FN_ARGS) { return case_fn(call, args, nargs, n, out, true); }

/* DuckDB substring: start counts from 1 (0 = one before the first character, negative from the
 * end); a negative length takes characters before start. */
static void substr_range(int64_t size, int64_t offset, int64_t len, bool has_len, int64_t *s0, int64_t *e0) {
    /* in 128 bits: offset and length may both be near the int64 limits */
    tn_int128 s = offset > 0 ? (tn_int128)offset - 1 : offset < 0 ? (tn_int128)size + offset : -1, e;
    if (!has_len) e = size;
    else if (len >= 0) e = s + len;
    else {
        e = s;
        s = s + len;
    }
    if (s < 0) s = 0;
    if (e > size) e = size;
    if (s > size) s = size;
    if (e < s) e = s;
    *s0 = (int64_t)s;
    *e0 = (int64_t)e;
}

static int f_substr(FN_ARGS) {
    int rc = 0;
    FOR_ROWS({
        tn_str s = STR(0, i);
        int64_t size = utf8_count(s.ptr, s.len), a, b;
        substr_range(size, I64(1, i), nargs > 2 ? I64(2, i) : 0, nargs > 2, &a, &b);
        uint32_t bs = utf8_offset(s.ptr, s.len, a), be = utf8_offset(s.ptr, s.len, b);
        if ((rc = tn_vector_set_str(out, i, s.ptr + bs, be - bs))) break;
    })
    return rc;
}

static int left_right(FN_ARGS, bool left) {
    int rc = 0;
    FOR_ROWS({
        tn_str s = STR(0, i);
        int64_t size = utf8_count(s.ptr, s.len), k = I64(1, i), a, b;
        if (left) {
            a = 0;
            b = k >= 0 ? (k < size ? k : size) : (size + k > 0 ? size + k : 0);
        } else {
            b = size;
            a = k >= 0 ? (k < size ? size - k : 0) : (k > -size ? -k : size);   /* no -INT64_MIN */
        }
        uint32_t bs = utf8_offset(s.ptr, s.len, a), be = utf8_offset(s.ptr, s.len, b);
        if ((rc = tn_vector_set_str(out, i, s.ptr + bs, be - bs))) break;
    })
    return rc;
}
tn_str tn_func_str_char_at(tn_str s, int64_t k) {
    int64_t nch = (int64_t)utf8_count(s.ptr, s.len);
    if (k < 0) k += nch + 1;
    if (k < 1 || k > nch) return (tn_str){"", 0};
    uint32_t a = utf8_offset(s.ptr, s.len, k - 1), b = a;
    tn_utf8_next(s.ptr, s.len, &b);
    return (tn_str){s.ptr + a, b - a};
}

/* array_extract(s, k): s[k] (DuckDB's string subscript). */
static int f_array_extract(FN_ARGS) {
    int rc = 0;
    FOR_ROWS({
        tn_str c = tn_func_str_char_at(STR(0, i), I64(1, i));
        if ((rc = tn_vector_set_str(out, i, c.ptr, c.len))) break;
    })
    return rc;
}

static int f_left(FN_ARGS) { return left_right(call, args, nargs, n, out, true); }
static int f_right(FN_ARGS) { return left_right(call, args, nargs, n, out, false); }

/* A result computed from user input is checked before it is built: one string value holds at
 * most 4 GiB - 1 bytes (tn_str's length). The evaluator prefixes the function's name. */
static int check_result_len(uint64_t bytes) {
    if (bytes > UINT32_MAX)
        return tn_error_set(TN_ELIMIT, "result of %llu bytes is too long (the limit is %u bytes)",
                            (unsigned long long)bytes, (unsigned)UINT32_MAX);
    return 0;
}

/* concat(...): NULL arguments are skipped (DuckDB); the result is never NULL. */
static int f_concat(FN_ARGS) {
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    if (out->validity) memset(out->validity, 0xff, ((size_t)n + 63) / 64 * 8);
    for (uint32_t i = 0; i < n && !rc; i++) {
        tn_buf_clear(&b);
        uint64_t total = 0;
        for (uint32_t k = 0; k < nargs; k++) {
            uint32_t r = TN_ARG_IDX(args[k], i);
            if (tn_vector_is_valid(args[k], r)) total += ((const tn_str *)args[k]->data)[r].len;
        }
        rc = check_result_len(total);
        for (uint32_t k = 0; k < nargs && !rc; k++) {
            uint32_t r = TN_ARG_IDX(args[k], i);
            if (!tn_vector_is_valid(args[k], r)) continue;
            tn_str s = ((const tn_str *)args[k]->data)[r];
            rc = tn_buf_append(&b, s.ptr, s.len);
        }
        if (!rc) rc = set_buf(out, i, &b);
    }
    tn_buf_free(&b);
    return rc;
}

/* concat_ws(sep, ...): NULL separator gives NULL; NULL values are skipped. */
static int f_concat_ws(FN_ARGS) {
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        uint32_t r0 = TN_ARG_IDX(args[0], i);
        if (!tn_vector_is_valid(args[0], r0)) {
            rc = tn_vector_set_null(out, i);
            tn_func_str_empty(out, i);
            continue;
        }
        tn_str sep = ((const tn_str *)args[0]->data)[r0];
        tn_buf_clear(&b);
        uint64_t total = 0;
        for (uint32_t k = 1; k < nargs; k++) {
            uint32_t r = TN_ARG_IDX(args[k], i);
            if (tn_vector_is_valid(args[k], r)) total += ((const tn_str *)args[k]->data)[r].len + (uint64_t)sep.len;
        }
        rc = check_result_len(total > sep.len ? total - sep.len : 0);
        bool first = true;
        for (uint32_t k = 1; k < nargs && !rc; k++) {
            uint32_t r = TN_ARG_IDX(args[k], i);
            if (!tn_vector_is_valid(args[k], r)) continue;
            tn_str s = ((const tn_str *)args[k]->data)[r];
            if (!first) rc = tn_buf_append(&b, sep.ptr, sep.len);
            if (!rc) rc = tn_buf_append(&b, s.ptr, s.len);
            first = false;
        }
        if (!rc) rc = set_buf(out, i, &b);
        if (!rc && out->validity) tn_vector_set_valid_bit(out, i, true);
    }
    tn_buf_free(&b);
    return rc;
}

static int f_dpipe(FN_ARGS) {
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    FOR_ROWS({
        tn_str x = STR(0, i), y = STR(1, i);
        tn_buf_clear(&b);
        rc = check_result_len((uint64_t)x.len + y.len);
        if (!rc) rc = tn_buf_append(&b, x.ptr, x.len);
        if (!rc) rc = tn_buf_append(&b, y.ptr, y.len);
        if (!rc) rc = set_buf(out, i, &b);
        if (rc) break;
    })
    tn_buf_free(&b);
    return rc;
}

/* Binds that ask for every ANY argument as VARCHAR. */
static int bind_all_varchar(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    for (uint32_t i = 0; i < b->nargs; i++)
        if (b->arg_types[i].id != TN_TYPE_VARBINARY) b->arg_types[i] = tn_type_make(TN_TYPE_VARCHAR);
    b->ret = tn_type_make(TN_TYPE_VARCHAR);
    return 0;
}

/* concat(...) of strings: a list after the first argument does not concatenate (DuckDB's
 * error; a list first is list concatenation, func_list_ops.c). */
static int bind_concat(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    if (b->nargs == 0) return tn_error_set(TN_EBIND, "concat requires at least one argument");
    for (uint32_t i = 1; i < b->nargs; i++)
        if (b->arg_types[i].id == TN_TYPE_LIST) {
            char x[128], y[128];
            return tn_error_set(TN_EBIND, "Cannot concatenate types %s and %s - an explicit cast is required",
                                tn_type_format(b->arg_types[i - 1], x, sizeof x),
                                tn_type_format(b->arg_types[i], y, sizeof y));
        }
    return bind_all_varchar(b, consts, bd);
}

static bool in_set(uint32_t cp, tn_str set) {
    uint32_t i = 0;
    while (i < set.len)
        if (tn_utf8_next(set.ptr, set.len, &i) == cp) return true;
    return false;
}

static int trim_fn(FN_ARGS, bool l, bool r) {
    int rc = 0;
    static const tn_str space = {" ", 1};
    FOR_ROWS({
        tn_str s = STR(0, i), set = nargs > 1 ? STR(1, i) : space;
        uint32_t a = 0, b = s.len;
        if (l) {
            while (a < b) {
                uint32_t k = a, cp = tn_utf8_next(s.ptr, s.len, &k);
                if (!in_set(cp, set)) break;
                a = k;
            }
        }
        if (r) {
            while (b > a) {
                uint32_t st = b - 1;
                while (st > a && is_cont((unsigned char)s.ptr[st])) st--;
                uint32_t k = st, cp = tn_utf8_next(s.ptr, s.len, &k);
                if (!in_set(cp, set)) break;
                b = st;
            }
        }
        if ((rc = tn_vector_set_str(out, i, s.ptr + a, b - a))) break;
    })
    return rc;
}
static int f_trim(FN_ARGS) { return trim_fn(call, args, nargs, n, out, true, true); }
static int f_ltrim(FN_ARGS) { return trim_fn(call, args, nargs, n, out, true, false); }
static int f_rtrim(FN_ARGS) { return trim_fn(call, args, nargs, n, out, false, true); }

static const char *find_bytes(const char *h, uint32_t hn, const char *nd, uint32_t nn) {
    if (nn == 0) return h;
    if (nn > hn) return NULL;
    return memmem(h, hn, nd, nn);
}

static int f_replace(FN_ARGS) {
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    FOR_ROWS({
        tn_str s = STR(0, i), from = STR(1, i), to = STR(2, i);
        tn_buf_clear(&b);
        uint32_t pos = 0;
        if (from.len && to.len > from.len) {     /* the result grows: its size first */
            uint64_t hits = 0;
            const char *hit;
            while ((hit = find_bytes(s.ptr + pos, s.len - pos, from.ptr, from.len)) != NULL) {
                hits++;
                pos = (uint32_t)(hit - s.ptr) + from.len;
            }
            pos = 0;
            if ((rc = check_result_len(s.len + hits * (to.len - from.len)))) break;
        }
        if (from.len) {
            const char *hit;
            while ((hit = find_bytes(s.ptr + pos, s.len - pos, from.ptr, from.len)) != NULL) {
                uint32_t at = (uint32_t)(hit - s.ptr);
                if ((rc = tn_buf_append(&b, s.ptr + pos, at - pos))) break;
                if ((rc = tn_buf_append(&b, to.ptr, to.len))) break;
                pos = at + from.len;
            }
        }
        if (!rc) rc = tn_buf_append(&b, s.ptr + pos, s.len - pos);
        if (!rc) rc = set_buf(out, i, &b);
        if (rc) break;
    })
    tn_buf_free(&b);
    return rc;
}

/* split_part(s, delim, idx): 1-based, negative counts from the end, out of range is ''. An
 * empty delimiter splits into characters. */
static int f_split_part(FN_ARGS) {
    int rc = 0;
    uint32_t *starts = NULL, *ends = NULL, cap = 0;
    FOR_ROWS({
        tn_str s = STR(0, i), d = STR(1, i);
        int64_t idx = I64(2, i);
        uint32_t np = 0, pos = 0;
        for (;;) {
            if (np == cap) {
                uint32_t nc = cap ? cap * 2 : 16;
                uint32_t *ns = realloc(starts, nc * sizeof *ns), *ne = ns ? realloc(ends, nc * sizeof *ne) : NULL;
                if (ns) starts = ns;
                if (!ns || !ne) {
                    rc = tn_error_set(TN_ENOMEM, "out of memory");
                    break;
                }
                ends = ne;
                cap = nc;
            }
            if (d.len == 0) {
                if (pos >= s.len) break;
                uint32_t k = pos;
                tn_utf8_next(s.ptr, s.len, &k);
                starts[np] = pos;
                ends[np++] = k;
                pos = k;
                continue;
            }
            const char *hit = find_bytes(s.ptr + pos, s.len - pos, d.ptr, d.len);
            starts[np] = pos;
            if (!hit) {
                ends[np++] = s.len;
                break;
            }
            ends[np++] = (uint32_t)(hit - s.ptr);
            pos = ends[np - 1] + d.len;
        }
        if (rc) break;
        int64_t k = idx > 0 ? idx - 1 : idx < 0 ? (int64_t)np + idx : -1;
        if (k < 0 || k >= (int64_t)np) rc = tn_vector_set_str(out, i, "", 0);
        else rc = tn_vector_set_str(out, i, s.ptr + starts[k], ends[k] - starts[k]);
        if (rc) break;
    })
    free(starts);
    free(ends);
    return rc;
}

static int f_starts_with(FN_ARGS) {
    uint8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        tn_str s = STR(0, i), p = STR(1, i);
        r[i] = p.len <= s.len && (p.len == 0 || memcmp(s.ptr, p.ptr, p.len) == 0);
    }
    return 0;
}
static int f_ends_with(FN_ARGS) {
    uint8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        tn_str s = STR(0, i), p = STR(1, i);
        r[i] = p.len <= s.len && (p.len == 0 || memcmp(s.ptr + s.len - p.len, p.ptr, p.len) == 0);
    }
    return 0;
}
static int f_contains(FN_ARGS) {
    uint8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        tn_str s = STR(0, i), p = STR(1, i);
        r[i] = find_bytes(s.ptr, s.len, p.ptr, p.len) != NULL;
    }
    return 0;
}
static int f_instr(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        tn_str s = STR(0, i), p = STR(1, i);
        const char *hit = find_bytes(s.ptr, s.len, p.ptr, p.len);
        r[i] = hit ? (int64_t)utf8_count(s.ptr, (uint32_t)(hit - s.ptr)) + 1 : 0;
    }
    return 0;
}

static int pad_fn(FN_ARGS, bool left) {
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    FOR_ROWS({
        tn_str s = STR(0, i), p = STR(2, i);
        int64_t want = I64(1, i), have = utf8_count(s.ptr, s.len);
        tn_buf_clear(&b);
        if (want < 0) want = 0;
        if (want > 100000000) {
            rc = tn_error_set(TN_ELIMIT, "result of %lld characters is too long (the limit is 100000000)", (long long)want);
            break;
        }
        if (have >= want) {
            rc = tn_buf_append(&b, s.ptr, utf8_offset(s.ptr, s.len, want));
        } else {
            int64_t need = want - have;
            uint32_t plen = utf8_count(p.ptr, p.len);
            if (plen == 0) {
                rc = tn_error_set(TN_EINVAL, "Insufficient padding in %s.", left ? "LPAD" : "RPAD");
                break;
            }
            if (!left) rc = tn_buf_append(&b, s.ptr, s.len);
            for (int64_t k = 0; k < need && !rc; k += plen) {
                int64_t take = need - k < plen ? need - k : plen;
                rc = tn_buf_append(&b, p.ptr, utf8_offset(p.ptr, p.len, take));
            }
            if (left && !rc) rc = tn_buf_append(&b, s.ptr, s.len);
        }
        if (!rc) rc = set_buf(out, i, &b);
        if (rc) break;
    })
    tn_buf_free(&b);
    return rc;
}
static int f_lpad(FN_ARGS) { return pad_fn(call, args, nargs, n, out, true); }
static int f_rpad(FN_ARGS) { return pad_fn(call, args, nargs, n, out, false); }

/* Code points that extend the grapheme cluster before them (a subset of Unicode's
 * Grapheme_Extend: combining marks of the common scripts, ZWJ, variation selectors, emoji
 * modifiers and tags), sorted ranges. */
static const uint32_t grapheme_extend[][2] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x05BF, 0x05BF}, {0x05C1, 0x05C2},
    {0x05C4, 0x05C5}, {0x05C7, 0x05C7}, {0x0610, 0x061A}, {0x064B, 0x065F}, {0x0670, 0x0670},
    {0x06D6, 0x06DC}, {0x06DF, 0x06E4}, {0x06E7, 0x06E8}, {0x06EA, 0x06ED}, {0x0711, 0x0711},
    {0x0730, 0x074A}, {0x0900, 0x0903}, {0x093A, 0x094F}, {0x0951, 0x0957}, {0x0962, 0x0963},
    {0x0981, 0x0983}, {0x09BC, 0x09D7}, {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E},
    {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x200C, 0x200D}, {0x20D0, 0x20FF}, {0x302A, 0x302F},
    {0x3099, 0x309A}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0x1F3FB, 0x1F3FF}, {0xE0020, 0xE007F},
    {0xE0100, 0xE01EF},
};

static bool is_grapheme_extend(uint32_t cp) {
    size_t lo = 0, hi = sizeof grapheme_extend / sizeof *grapheme_extend;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < grapheme_extend[mid][0]) hi = mid;
        else if (cp > grapheme_extend[mid][1]) lo = mid + 1;
        else return true;
    }
    return false;
}

/* The code point at s[i] (valid UTF-8, checked at the parser and the readers) and its length. */
static uint32_t cp_at(const char *s, uint32_t len, uint32_t i, uint32_t *n) {
    const unsigned char *u = (const unsigned char *)s + i;
    uint32_t k = u[0] < 0x80 ? 1 : u[0] < 0xE0 ? 2 : u[0] < 0xF0 ? 3 : 4;
    if (k > len - i) k = len - i;
    uint32_t cp = k == 1 ? u[0] : u[0] & (0x7F >> k);
    for (uint32_t j = 1; j < k; j++) cp = (cp << 6) | (u[j] & 0x3F);
    *n = k;
    return cp;
}

/* reverse(s): grapheme clusters in reverse order, each kept as written (DuckDB's result for
 * 'S\u0308a' is 'aS\u0308', and an emoji ZWJ sequence stays one unit). */
static int f_reverse(FN_ARGS) {
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    FOR_ROWS({
        tn_str s = STR(0, i);
        tn_buf_clear(&b);
        if ((rc = tn_buf_reserve(&b, s.len))) break;
        b.len = s.len;
        uint32_t at = 0;
        while (at < s.len) {                        /* cluster [at, end) goes to the mirrored spot */
            uint32_t k, end = at;
            uint32_t cp = cp_at(s.ptr, s.len, end, &k);
            end += k;
            bool zwj = cp == 0x200D;
            while (end < s.len) {
                uint32_t next = cp_at(s.ptr, s.len, end, &k);
                if (!zwj && !is_grapheme_extend(next)) break;
                zwj = next == 0x200D;
                end += k;
            }
            memcpy(b.data + (s.len - end), s.ptr + at, end - at);
            at = end;
        }
        if ((rc = set_buf(out, i, &b))) break;
    })
    tn_buf_free(&b);
    return rc;
}

static int f_repeat(FN_ARGS) {
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    FOR_ROWS({
        tn_str s = STR(0, i);
        int64_t k = I64(1, i);
        tn_buf_clear(&b);
        uint64_t bytes = 0;      /* k * len, checked: a wrapped product must not pass the cap */
        if (k > 0 && (__builtin_mul_overflow((uint64_t)k, (uint64_t)s.len, &bytes) || bytes > 100000000)) {
            rc = tn_error_set(TN_ELIMIT, "result of %lld times %u bytes is too long (the limit is 100000000 bytes)",
                              (long long)k, s.len);
            break;
        }
        for (int64_t j = 0; j < k && !rc; j++) rc = tn_buf_append(&b, s.ptr, s.len);
        if (!rc) rc = set_buf(out, i, &b);
        if (rc) break;
    })
    tn_buf_free(&b);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * LIKE: '%' any sequence, '_' one character (UTF-8), optional escape character.
 */
static bool like_match(const char *s, uint32_t sn, const char *p, uint32_t pn, int esc) {
    uint32_t si = 0, pi = 0, star_p = UINT32_MAX, star_s = 0;
    while (si < sn) {
        if (pi < pn) {
            char c = p[pi];
            if (esc >= 0 && (unsigned char)c == (unsigned)esc && pi + 1 < pn) {
                if (p[pi + 1] == s[si]) {
                    pi += 2;
                    si++;
                    continue;
                }
            } else if (c == '%') {
                star_p = ++pi;
                star_s = si;
                continue;
            } else if (c == '_') {
                pi++;
                tn_utf8_next(s, sn, &si);
                continue;
            } else if (c == s[si]) {
                pi++;
                si++;
                continue;
            }
        }
        if (star_p == UINT32_MAX) return false;
        pi = star_p;
        tn_utf8_next(s, sn, &star_s);
        si = star_s;
    }
    while (pi < pn && p[pi] == '%') pi++;
    return pi == pn;
}

/* A pattern of literal segments between '%' (no '_', no escape): matched with byte searches.
 * Segments start at character boundaries ('%' is ASCII), so a byte match of a segment is a
 * match of its characters, and the leftmost match of each middle segment is the one the
 * backtracking matcher would settle on. */
#define LIKE_MAX_SEGS 16
typedef struct like_plan {
    const char *pat;            /* the pattern planned (pointer and length: reused per row) */
    uint32_t pat_len;
    bool simple;                /* only literals and '%' */
    bool anchored_start, anchored_end;
    uint32_t nsegs;
    tn_str segs[LIKE_MAX_SEGS];
} like_plan;

static void like_plan_make(like_plan *lp, const char *p, uint32_t pn) {
    lp->pat = p;
    lp->pat_len = pn;
    lp->simple = false;
    lp->nsegs = 0;
    for (uint32_t i = 0; i < pn; i++)
        if (p[i] == '_') return;
    lp->anchored_start = pn == 0 || p[0] != '%';
    lp->anchored_end = pn == 0 || p[pn - 1] != '%';
    uint32_t i = 0;
    while (i < pn) {
        while (i < pn && p[i] == '%') i++;
        uint32_t j = i;
        while (j < pn && p[j] != '%') j++;
        if (j > i) {
            if (lp->nsegs == LIKE_MAX_SEGS) return;
            lp->segs[lp->nsegs++] = (tn_str){p + i, j - i};
        }
        i = j;
    }
    /* "abc" alone is one segment anchored at both ends; "" matches only "" */
    lp->simple = true;
}

static bool like_plan_match(const like_plan *lp, const char *s, uint32_t sn) {
    uint32_t ns = lp->nsegs, first = 0, last = ns;
    uint32_t lo = 0, hi = sn;             /* the part of s the middle segments must lie in */
    if (ns == 0) return !(lp->anchored_start && lp->anchored_end) || sn == 0;
    if (lp->anchored_start) {
        tn_str g = lp->segs[0];
        if (g.len > sn || memcmp(s, g.ptr, g.len) != 0) return false;
        lo = g.len;
        first = 1;
        if (ns == 1 && lp->anchored_end) return g.len == sn;
    }
    if (lp->anchored_end && last > first) {
        tn_str g = lp->segs[ns - 1];
        if (g.len > hi - lo || memcmp(s + sn - g.len, g.ptr, g.len) != 0) return false;
        hi = sn - g.len;
        last = ns - 1;
    }
    for (uint32_t k = first; k < last; k++) {
        tn_str g = lp->segs[k];
        if (g.len > hi - lo) return false;
        const char *f = g.len == 1 ? memchr(s + lo, g.ptr[0], hi - lo) : memmem(s + lo, hi - lo, g.ptr, g.len);
        if (!f) return false;
        lo = (uint32_t)(f - s) + g.len;
    }
    return true;
}

static int like_fn(FN_ARGS, bool ci, bool neg, bool has_escape) {
    uint8_t *r = out->data;
    tn_buf a = TN_BUF_INIT, b = TN_BUF_INIT;
    int rc = 0;
    like_plan lp = {.pat = NULL, .pat_len = UINT32_MAX};
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!VALID(i)) {
            r[i] = 0;
            continue;
        }
        tn_str s = STR(0, i), p = STR(1, i);
        int esc = -1;
        if (has_escape) {
            tn_str e = STR(2, i);
            if (e.len > 1) {
                rc = tn_error_set(TN_EINVAL, "Like pattern must not contain an escape of more than one character");
                break;
            }
            if (e.len == 1) esc = (unsigned char)e.ptr[0];
        }
        if (ci) {
            if ((rc = map_case(&a, s, false)) || (rc = map_case(&b, p, false))) break;
            s.ptr = a.data ? (const char *)a.data : "", s.len = (uint32_t)a.len;
            p.ptr = b.data ? (const char *)b.data : "", p.len = (uint32_t)b.len;
        }
        if (esc < 0 && !ci) {
            if (p.ptr != lp.pat || p.len != lp.pat_len) like_plan_make(&lp, p.ptr, p.len);
            if (lp.simple) {
                r[i] = like_plan_match(&lp, s.ptr, s.len) != neg;
                continue;
            }
        }
        r[i] = like_match(s.ptr, s.len, p.ptr, p.len, esc) != neg;
    }
    tn_buf_free(&a);
    tn_buf_free(&b);
    return rc;
}
static int f_like(FN_ARGS) { return like_fn(call, args, nargs, n, out, false, false, false); }
static int f_ilike(FN_ARGS) { return like_fn(call, args, nargs, n, out, true, false, false); }
static int f_not_like(FN_ARGS) { return like_fn(call, args, nargs, n, out, false, true, false); }
static int f_not_ilike(FN_ARGS) { return like_fn(call, args, nargs, n, out, true, true, false); }
static int f_like_escape(FN_ARGS) { return like_fn(call, args, nargs, n, out, false, false, true); }
static int f_ilike_escape(FN_ARGS) { return like_fn(call, args, nargs, n, out, true, false, true); }

/* ---------------------------------------------------------------------------------------------
 * Table.
 */
#define N TN_SIG_NONE
#define V TN_TYPE_VARCHAR
#define B TN_TYPE_BIGINT
#define BOOL TN_TYPE_BOOLEAN
const tn_func_def tn_funcs_string[] = {
    {"length", {V, N}, B, 0, f_length, NULL, NULL},
    {"octet_length", {V, N}, B, 0, f_octet_length, NULL, NULL},
    {"octet_length", {TN_TYPE_VARBINARY, N}, B, 0, f_octet_length, NULL, NULL},
    {"lower", {V, N}, V, 0, f_lower, NULL, NULL},
    {"upper", {V, N}, V, 0, f_upper, NULL, NULL},
    {"substr", {V, B, N}, V, 0, f_substr, NULL, NULL},
    {"substr", {V, B, B, N}, V, 0, f_substr, NULL, NULL},
    {"left", {V, B, N}, V, 0, f_left, NULL, NULL},
    {"array_extract", {V, B, N}, V, 0, f_array_extract, NULL, NULL},
    {"right", {V, B, N}, V, 0, f_right, NULL, NULL},
    {"concat", {TN_SIG_ANY, N}, V, TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, f_concat, bind_concat, NULL},
    {"concat_ws", {V, TN_SIG_ANY, N}, V, TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, f_concat_ws, bind_all_varchar, NULL},
    {"||", {V, V, N}, V, 0, f_dpipe, NULL, NULL},
    {"||", {TN_SIG_ANY, TN_SIG_ANY, N}, V, 0, f_dpipe, bind_all_varchar, NULL},
    {"trim", {V, N}, V, 0, f_trim, NULL, NULL},
    {"trim", {V, V, N}, V, 0, f_trim, NULL, NULL},
    {"ltrim", {V, N}, V, 0, f_ltrim, NULL, NULL},
    {"ltrim", {V, V, N}, V, 0, f_ltrim, NULL, NULL},
    {"rtrim", {V, N}, V, 0, f_rtrim, NULL, NULL},
    {"rtrim", {V, V, N}, V, 0, f_rtrim, NULL, NULL},
    {"replace", {V, V, V, N}, V, 0, f_replace, NULL, NULL},
    {"split_part", {V, V, B, N}, V, 0, f_split_part, NULL, NULL},
    {"starts_with", {V, V, N}, BOOL, 0, f_starts_with, NULL, NULL},
    {"ends_with", {V, V, N}, BOOL, 0, f_ends_with, NULL, NULL},
    {"contains", {V, V, N}, BOOL, 0, f_contains, NULL, NULL},
    {"instr", {V, V, N}, B, 0, f_instr, NULL, NULL},
    {"lpad", {V, B, V, N}, V, 0, f_lpad, NULL, NULL},
    {"rpad", {V, B, V, N}, V, 0, f_rpad, NULL, NULL},
    {"reverse", {V, N}, V, 0, f_reverse, NULL, NULL},
    {"repeat", {V, B, N}, V, 0, f_repeat, NULL, NULL},
    {"~~", {V, V, N}, BOOL, 0, f_like, NULL, NULL},
    {"~~*", {V, V, N}, BOOL, 0, f_ilike, NULL, NULL},
    {"!~~", {V, V, N}, BOOL, 0, f_not_like, NULL, NULL},
    {"!~~*", {V, V, N}, BOOL, 0, f_not_ilike, NULL, NULL},
    {"like_escape", {V, V, V, N}, BOOL, 0, f_like_escape, NULL, NULL},
    {"ilike_escape", {V, V, V, N}, BOOL, 0, f_ilike_escape, NULL, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
