/*
 * sql/func_regex.c: regular-expression functions over RE2 (base/regex.cc) with DuckDB's names,
 * options and results: regexp_matches (a match anywhere), regexp_full_match (SIMILAR TO),
 * regexp_replace, regexp_extract, regexp_escape; and GLOB (the "~~~" operator: * ? [a-z] [!x]
 * and \ escapes, over bytes, the whole string). A constant pattern with constant options is
 * compiled once at bind time; other patterns are compiled per row, reusing the last one.
 */
#include "sql/functions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out
#define STR(k, i) (((const tn_str *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define I64(k, i) (((const int64_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define VALID(i) tn_vector_is_valid(out, i)

/* Option letters that only some functions take, on top of the TN_REGEX_* flags. */
enum { OPT_GLOBAL = 0x100, OPT_KEEP = 0x200 };

/*
 * DuckDB's option letters: c (case-sensitive), i (case-insensitive), l (literal), m/n/p
 * (newline-sensitive: . does not match \n, the default), s (. matches \n); g (every match:
 * regexp_replace only), k (no match gives the input: regexp_extract only). A later letter wins.
 */
static int regex_flags(const char *o, size_t n, int allowed, int *flags) {
    int f = 0;
    for (size_t i = 0; i < n; i++) {
        switch (o[i]) {
        case 'c': f &= ~TN_REGEX_ICASE; break;
        case 'i': f |= TN_REGEX_ICASE; break;
        case 'l': f |= TN_REGEX_LITERAL; break;
        case 'm': case 'n': case 'p': f &= ~TN_REGEX_DOT_NL; break;
        case 's': f |= TN_REGEX_DOT_NL; break;
        case 'g':
            if (!(allowed & OPT_GLOBAL))
                return tn_error_set(TN_EINVAL, "Option 'g' (global replace) is only valid for regexp_replace");
            f |= OPT_GLOBAL;
            break;
        case 'k':
            if (!(allowed & OPT_KEEP)) return tn_error_set(TN_EINVAL, "Option 'k' is only valid for regexp_extract");
            f |= OPT_KEEP;
            break;
        default: return tn_error_set(TN_EINVAL, "Unrecognized Regex option %c", o[i]);
        }
    }
    *flags = f;
    return 0;
}

/* What bind prepared: the compiled constant pattern (or NULL), the options (constant, as
 * DuckDB requires) and regexp_extract's group. */
typedef struct regex_data {
    tn_regex *re;
    int flags;
    int64_t group;
} regex_data;

static void free_regex(void *bd) {
    regex_data *r = bd;
    if (!r) return;
    tn_regex_free(r->re);
    tn_free(r);
}

static bool const_str(const tn_value *v) { return v && !v->is_null && v->type.id == TN_TYPE_VARCHAR; }

/* The argument index of the options, per function (by its name and arity). */
static uint32_t opt_index(const tn_func_binding *b) {
    const char *nm = b->def->name;
    if (strcmp(nm, "regexp_replace") == 0) return 3;
    if (strcmp(nm, "regexp_extract") == 0) return 3;
    return 2;
}

static int opt_allowed(const char *nm) {
    if (strcmp(nm, "regexp_replace") == 0) return OPT_GLOBAL;
    if (strcmp(nm, "regexp_extract") == 0) return OPT_KEEP;
    return 0;
}

static int bind_regex(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    if (!consts) return 0;
    uint32_t oi = opt_index(b);
    int flags = 0, rc = 0;
    if (b->nargs > oi) {
        if (!consts[oi]) return tn_error_set(TN_EBIND, "%s: the options must be a constant", b->def->name);
        if (const_str(consts[oi]) &&
            (rc = regex_flags(consts[oi]->u.s.ptr, consts[oi]->u.s.len, opt_allowed(b->def->name), &flags)))
            return rc;
    }
    int64_t group = 0;
    if (strcmp(b->def->name, "regexp_extract") == 0 && b->nargs > 2) {
        const tn_value *g = consts[2];
        if (!g) return tn_error_set(TN_EBIND, "Group index field field must be a constant!");
        if (g->is_null) group = -1;      /* a NULL group extracts '' (DuckDB) */
        else {
            if (!tn_type_is_integer(g->type))
                return tn_error_set(TN_EBIND, "regexp_extract: the group index must be an integer");
            group = g->u.i;
            if (group < 0 || group > 9) return tn_error_set(TN_EINVAL, "Group index must be between 0 and 9!");
        }
    }
    regex_data *r = tn_calloc(1, sizeof *r);
    if (!r) return TN_ENOMEM;
    r->flags = flags;
    r->group = group;
    if (const_str(consts[1])) {
        rc = tn_regex_compile(&r->re, consts[1]->u.s.ptr, consts[1]->u.s.len,
                              flags & ~(OPT_GLOBAL | OPT_KEEP));
        if (rc) {
            free_regex(r);
            return rc;
        }
    }
    *bd = r;
    return 0;
}

/* The pattern of row i: the one compiled at bind, or row i's own (compiled when it differs
 * from the previous row's). *flags = the options. */
typedef struct regex_rows {
    tn_regex *local;
    tn_str last, last_opt;
} regex_rows;

static int row_regex(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t i,
                     uint32_t oi, regex_rows *rr, const tn_regex **re, int *flags) {
    const regex_data *bd = call->bind_data;
    if (bd && bd->re) {
        *re = bd->re;
        *flags = bd->flags;
        return 0;
    }
    tn_str p = STR(1, i);
    tn_str o = nargs > oi ? STR(oi, i) : (tn_str){"", 0};
    int rc = regex_flags(o.ptr, o.len, opt_allowed(call->def->name), flags);
    if (rc) return rc;
    if (!rr->local || p.len != rr->last.len || memcmp(p.ptr, rr->last.ptr, p.len) != 0 ||
        o.len != rr->last_opt.len || memcmp(o.ptr, rr->last_opt.ptr, o.len) != 0) {
        tn_regex_free(rr->local);
        rr->local = NULL;
        if ((rc = tn_regex_compile(&rr->local, p.ptr, p.len, *flags & ~(OPT_GLOBAL | OPT_KEEP)))) return rc;
        rr->last = p;
        rr->last_opt = o;
    }
    *re = rr->local;
    return 0;
}

static int match_fn(FN_ARGS, bool full) {
    uint8_t *r = out->data;
    regex_rows rr = {0};
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        r[i] = 0;
        if (!VALID(i)) continue;
        const tn_regex *re;
        int flags;
        if ((rc = row_regex(call, args, nargs, i, 2, &rr, &re, &flags))) break;
        tn_str s = STR(0, i);
        r[i] = full ? tn_regex_full_match(re, s.ptr, s.len) : tn_regex_search(re, s.ptr, s.len);
    }
    tn_regex_free(rr.local);
    return rc;
}

static int f_regexp_matches(FN_ARGS) { return match_fn(call, args, nargs, n, out, false); }
static int f_regexp_full_match(FN_ARGS) { return match_fn(call, args, nargs, n, out, true); }

/* regexp_replace(s, pattern, rewrite[, options]): the first match (every match with 'g')
 * replaced; \0..\9 in rewrite name the match and its groups. */
static int f_regexp_replace(FN_ARGS) {
    regex_rows rr = {0};
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!VALID(i)) {
            tn_func_str_empty(out, i);
            continue;
        }
        const tn_regex *re;
        int flags;
        if ((rc = row_regex(call, args, nargs, i, 3, &rr, &re, &flags))) break;
        tn_str s = STR(0, i), rw = STR(2, i);
        tn_buf_clear(&b);
        rc = tn_regex_replace(re, s.ptr, s.len, rw.ptr, rw.len, (flags & OPT_GLOBAL) != 0, &b);
        if (rc == TN_EINVAL) {
            char why[256];
            snprintf(why, sizeof why, "%s", tn_error_message());
            rc = tn_error_set(TN_EINVAL, "Invalid replacement string for regexp_replace (%s)", why);
        }
        if (!rc) rc = tn_vector_set_str(out, i, b.data ? (const char *)b.data : "", b.len);
    }
    tn_buf_free(&b);
    tn_regex_free(rr.local);
    return rc;
}

/* regexp_extract(s, pattern[, group[, options]]): the group (0 = the whole match) of the first
 * match, '' when there is none (the input with option 'k') or the group did not take part. */
static int f_regexp_extract(FN_ARGS) {
    regex_rows rr = {0};
    const regex_data *bd = call->bind_data;
    int rc = 0;
    bool own_nulls = (call->def->flags & TN_FUNC_SPECIAL_NULLS) != 0;   /* a NULL group is 0 */
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (own_nulls && (!tn_vector_is_valid(args[0], TN_ARG_IDX(args[0], i)) ||
                          !tn_vector_is_valid(args[1], TN_ARG_IDX(args[1], i))))
            rc = tn_vector_set_null(out, i);
        if (rc) break;
        if (!VALID(i)) {
            tn_func_str_empty(out, i);
            continue;
        }
        const tn_regex *re;
        int flags;
        if ((rc = row_regex(call, args, nargs, i, 3, &rr, &re, &flags))) break;
        int64_t g = bd ? bd->group : 0;
        /* a group the pattern does not have gives '' (DuckDB) */
        tn_regex_span sp[10];
        tn_str s = STR(0, i), res = {"", 0};
        int want = g >= 0 && g <= tn_regex_ngroups(re) ? (int)g + 1 : 1;
        if (g < 0) {
            /* NULL group: '' */
        } else if (tn_regex_find(re, s.ptr, s.len, 0, sp, want)) {
            if (g < want && sp[g].start >= 0) res = (tn_str){s.ptr + sp[g].start, (uint32_t)sp[g].len};
        } else if (flags & OPT_KEEP) {
            res = s;
        }
        rc = tn_vector_set_str(out, i, res.ptr, res.len);
    }
    tn_regex_free(rr.local);
    return rc;
}

/* regexp_escape(s): s with every character RE2 treats specially preceded by a backslash. */
static int f_regexp_escape(FN_ARGS) {
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!VALID(i)) {
            tn_func_str_empty(out, i);
            continue;
        }
        tn_str s = STR(0, i);
        tn_buf_clear(&b);
        for (uint32_t k = 0; k < s.len && !rc; k++) {
            unsigned char c = (unsigned char)s.ptr[k];
            if (c < 0x80 && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '_')
                rc = tn_buf_append_byte(&b, '\\');
            if (!rc) rc = tn_buf_append_byte(&b, c);
        }
        if (!rc) rc = tn_vector_set_str(out, i, b.data ? (const char *)b.data : "", b.len);
    }
    tn_buf_free(&b);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * GLOB (DuckDB's and SQLite's): * any run, ? one byte, [abc] [a-z] [!x] one byte of a set (a
 * ']' first in the set is literal), \x the byte x; the whole string must match. A pattern with
 * an unterminated [ or a trailing \ matches nothing. Each token but * takes exactly one byte,
 * so a mismatch needs to retry only from the last *: linear per star, no exponential
 * backtracking.
 */

/* Whether the token at p[*pi] matches byte c; advances *pi past it. -1 = invalid pattern. */
static int glob_token(const char *p, size_t pn, size_t *pi, unsigned char c) {
    size_t i = *pi;
    unsigned char t = (unsigned char)p[i];
    if (t == '?') {
        *pi = i + 1;
        return 1;
    }
    if (t == '\\') {
        if (i + 1 >= pn) return -1;
        *pi = i + 2;
        return (unsigned char)p[i + 1] == c;
    }
    if (t != '[') {
        *pi = i + 1;
        return t == c;
    }
    i++;
    bool invert = i < pn && p[i] == '!';
    if (invert) i++;
    size_t start = i;
    bool hit = false;
    for (;;) {
        if (i >= pn) return -1;
        unsigned char a = (unsigned char)p[i];
        if (a == ']' && i > start) break;
        if (i + 1 >= pn) return -1;
        if (p[i + 1] == '-' && i + 2 < pn && p[i + 2] != ']') {
            unsigned char b = (unsigned char)p[i + 2];
            if (c >= a && c <= b) hit = true;
            i += 3;
        } else {
            if (c == a) hit = true;
            i++;
        }
    }
    *pi = i + 1;
    return hit != invert;
}

static bool glob_match(const char *s, size_t sn, const char *p, size_t pn) {
    size_t si = 0, pi = 0, star_p = (size_t)-1, star_s = 0;
    while (si < sn) {
        if (pi < pn && p[pi] == '*') {
            while (pi < pn && p[pi] == '*') pi++;
            if (pi == pn) return true;
            star_p = pi;
            star_s = si;
            continue;
        }
        if (pi < pn) {
            size_t next = pi;
            int m = glob_token(p, pn, &next, (unsigned char)s[si]);
            if (m < 0) return false;
            if (m) {
                pi = next;
                si++;
                continue;
            }
        }
        if (star_p == (size_t)-1) return false;
        pi = star_p;
        si = ++star_s;
    }
    while (pi < pn && p[pi] == '*') pi++;
    return pi == pn;
}

static int f_glob(FN_ARGS) {
    uint8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        r[i] = 0;
        if (!VALID(i)) continue;
        tn_str s = STR(0, i), p = STR(1, i);
        r[i] = glob_match(s.ptr, s.len, p.ptr, p.len);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Table.
 */
#define N TN_SIG_NONE
#define V TN_TYPE_VARCHAR
#define BOOL TN_TYPE_BOOLEAN
#define B TN_TYPE_BIGINT
const tn_func_def tn_funcs_regex[] = {
    {"regexp_matches", {V, V, N}, BOOL, 0, f_regexp_matches, bind_regex, free_regex},
    {"regexp_matches", {V, V, V, N}, BOOL, 0, f_regexp_matches, bind_regex, free_regex},
    {"regexp_full_match", {V, V, N}, BOOL, 0, f_regexp_full_match, bind_regex, free_regex},
    {"regexp_full_match", {V, V, V, N}, BOOL, 0, f_regexp_full_match, bind_regex, free_regex},
    {"regexp_replace", {V, V, V, N}, V, 0, f_regexp_replace, bind_regex, free_regex},
    {"regexp_replace", {V, V, V, V, N}, V, 0, f_regexp_replace, bind_regex, free_regex},
    {"regexp_extract", {V, V, N}, V, 0, f_regexp_extract, bind_regex, free_regex},
    {"regexp_extract", {V, V, B, N}, V, TN_FUNC_SPECIAL_NULLS, f_regexp_extract, bind_regex, free_regex},
    {"regexp_extract", {V, V, B, V, N}, V, 0, f_regexp_extract, bind_regex, free_regex},
    {"regexp_escape", {V, N}, V, 0, f_regexp_escape, NULL, NULL},
    {"~~~", {V, V, N}, BOOL, 0, f_glob, NULL, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
