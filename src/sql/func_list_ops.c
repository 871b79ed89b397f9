/*
 * sql/func_list_ops.c: list functions with DuckDB's semantics: list_contains / list_position,
 * list_concat and || of lists, list_slice, list_sort / list_reverse_sort, list_distinct, flatten,
 * string_split, and the comparisons = <> < <= > >= of nested values (DuckDB's order: element
 * by element, a NULL element above every value and equal to another NULL). Registered in
 * functions.c as tn_funcs_list_ops; constructors and access are in func_list.c.
 */
#include "sql/functions.h"

#include <stdlib.h>
#include <string.h>

#define N TN_SIG_NONE
#define A TN_SIG_ANY
#define T_(x) TN_TYPE_##x

static tn_list_entry entry(const tn_vector *l, uint32_t r) {
    return ((const tn_list_entry *)l->data)[TN_ARG_IDX(l, r)];
}

/* Elements a[i] and b[j] compared with NULLs last (and equal to each other). */
static int elem_cmp(const tn_vector *a, uint32_t i, const tn_vector *b, uint32_t j) {
    bool va = a->type.id != TN_TYPE_NULL && tn_vector_is_valid(a, i);
    bool vb = b->type.id != TN_TYPE_NULL && tn_vector_is_valid(b, j);
    if (!va || !vb) return va == vb ? 0 : va ? -1 : 1;
    tn_value x, y;
    tn_vector_get_value(a, i, &x);
    tn_vector_get_value(b, j, &y);
    return tn_value_compare(&x, &y);
}

/* Start list row r of out: its elements will be appended to out's child from here. */
static void list_begin(tn_vector *out, uint32_t r) {
    ((tn_list_entry *)out->data)[r] = (tn_list_entry){out->children[0].count, 0};
}

/* Append element `at` of child src to out's row r (opened with list_begin). */
static int list_push(tn_vector *out, uint32_t r, const tn_vector *src, uint32_t at) {
    tn_vector *c = &out->children[0];
    int rc = 0;
    if (c->count >= c->capacity && (rc = tn_vector_reserve(c, c->capacity * 2 > c->count + 16 ? c->capacity * 2 : c->count + 16)))
        return rc;
    if ((rc = tn_vector_copy_row(c, c->count, src, at))) return rc;
    c->count++;
    ((tn_list_entry *)out->data)[r].length++;
    return 0;
}

/* ----- list_contains(l, x), list_position(l, x) ----- */

static int bind_list_elem(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    if (b->arg_types[0].id != TN_TYPE_LIST) return tn_error_set(TN_EBIND, "the first argument must be a LIST");
    tn_type el = tn_type_element(b->arg_types[0]), t;
    int rc = tn_func_common_type(el, b->arg_types[1], &t);
    if (rc) return rc;
    if (!tn_type_equal(t, el)) {
        if ((rc = tn_type_list(&b->arg_types[0], t))) return rc;
    }
    b->arg_types[1] = t;
    return 0;
}

static int f_list_contains(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                           tn_vector *out) {
    const tn_vector *l = args[0], *x = args[1], *c = &l->children[0];
    bool position = out->type.id != TN_TYPE_BOOLEAN;
    for (uint32_t r = 0; r < count; r++) {
        uint32_t xr = TN_ARG_IDX(x, r);
        bool xnull = x->type.id == TN_TYPE_NULL || !tn_vector_is_valid(x, xr);
        tn_list_entry e = entry(l, r);
        int64_t found = 0;
        if (!tn_vector_is_valid(l, TN_ARG_IDX(l, r)) || (xnull && !position)) {
            int rc = tn_vector_set_null(out, r);
            if (rc) return rc;
            continue;
        }
        for (uint32_t i = 0; i < e.length && !found; i++) {
            bool enull = c->type.id == TN_TYPE_NULL || !tn_vector_is_valid(c, e.offset + i);
            if (enull || xnull) {
                if (enull && xnull) found = i + 1;      /* list_position finds a NULL */
                continue;
            }
            if (elem_cmp(c, e.offset + i, x, xr) == 0) found = i + 1;
        }
        if (position) {
            if (found) ((int64_t *)out->data)[r] = found;
            else if (tn_vector_set_null(out, r)) return TN_ENOMEM;
        } else {
            if (out->validity) tn_vector_set_valid_bit(out, r, true);
            ((uint8_t *)out->data)[r] = found != 0;
        }
    }
    return 0;
}

/* ----- list_concat(l, ...) (a NULL list counts as empty) and l1 || l2 (NULL if either is) ----- */

/* DuckDB's rule for concatenation: element types must meet without a cast between kinds (a
 * string and a number, a date and a number); numbers and booleans widen, NULL meets anything. */
static bool concat_kind_ok(tn_type a, tn_type b) {
    if (a.id == TN_TYPE_NULL || b.id == TN_TYPE_NULL || tn_type_equal(a, b)) return true;
    if (tn_type_is_nested(a) || tn_type_is_nested(b)) {
        if (a.id != b.id || a.nested->nchildren != b.nested->nchildren) return false;
        for (uint32_t i = 0; i < a.nested->nchildren; i++)
            if (!concat_kind_ok(a.nested->children[i], b.nested->children[i])) return false;
        return true;
    }
    bool na = tn_type_is_numeric(a) || a.id == TN_TYPE_BOOLEAN, nb = tn_type_is_numeric(b) || b.id == TN_TYPE_BOOLEAN;
    if (na || nb) return na && nb;
    bool ta = a.id == TN_TYPE_DATE || a.id == TN_TYPE_TIMESTAMP || a.id == TN_TYPE_TIMESTAMP_TZ;
    bool tb = b.id == TN_TYPE_DATE || b.id == TN_TYPE_TIMESTAMP || b.id == TN_TYPE_TIMESTAMP_TZ;
    return ta && tb;
}

/* DuckDB's name of an argument type in "No function matches" (a literal's own kind). */
static const char *arg_type_name(tn_type t, const tn_value *c, char *buf, size_t cap) {
    if (c && !c->is_null && tn_type_is_integer(t)) return "INTEGER_LITERAL";
    if (c && !c->is_null && t.id == TN_TYPE_VARCHAR) return "STRING_LITERAL";
    return tn_type_format(t, buf, cap);
}

/* The common list type of the arguments (NULL-typed ones excepted) into *out; NULL type when
 * every argument is an untyped NULL. `name`: list_concat's spelling, or NULL for || and
 * concat(), which name the two types that do not concatenate. */
static int concat_type(tn_func_binding *b, const tn_value *const *consts, const char *name, tn_type *out) {
    tn_type t = tn_type_make(TN_TYPE_NULL);
    char x[128], y[128];
    for (uint32_t i = 0; i < b->nargs; i++) {
        tn_type a = b->arg_types[i];
        if (a.id == TN_TYPE_NULL) continue;
        if (a.id != TN_TYPE_LIST && name) {
            tn_buf sig = TN_BUF_INIT;
            for (uint32_t j = 0; j < b->nargs; j++)
                tn_buf_printf(&sig, "%s%s", j ? ", " : "", arg_type_name(b->arg_types[j], consts[j], x, sizeof x));
            int rc = tn_error_set(TN_EBIND,
                                  "No function matches the given name and argument types '%s(%.*s)'. You might "
                                  "need to add explicit type casts.",
                                  name, (int)sig.len, sig.data ? (const char *)sig.data : "");
            tn_buf_free(&sig);
            return rc;
        }
        if (a.id != TN_TYPE_LIST) {
            tn_type l = i ? (t.id != TN_TYPE_NULL ? t : b->arg_types[i - 1]) : a;
            tn_type r = i ? a : b->arg_types[1];
            return tn_error_set(TN_EBIND, "Cannot concatenate types %s and %s - an explicit cast is required",
                                tn_type_format(l, x, sizeof x), tn_type_format(r, y, sizeof y));
        }
        if (t.id != TN_TYPE_NULL && !concat_kind_ok(tn_type_element(t), tn_type_element(a)))
            return tn_error_set(TN_EBIND, "Cannot concatenate lists of types %s and %s - an explicit cast is required",
                                tn_type_format(t, x, sizeof x), tn_type_format(a, y, sizeof y));
        int rc = tn_func_common_type(t, a, &t);
        if (rc) return rc;
    }
    *out = t;
    return 0;
}

static int bind_concat_as(tn_func_binding *b, const tn_value *const *consts, const char *name) {
    if (b->nargs == 0) return tn_error_set(TN_EBIND, "%s needs at least one list", name ? name : "concat");
    tn_type t;
    int rc = concat_type(b, consts, name, &t);
    if (rc) return rc;
    for (uint32_t i = 0; i < b->nargs; i++) b->arg_types[i] = t;
    b->ret = t;
    return 0;
}

/* list_concat(l, ...): a non-list argument is a resolution error, as DuckDB's. */
static int bind_list_concat(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    (void)bd;
    return bind_concat_as(b, consts, b->def->name);
}

/* l1 || l2 and concat(l, ...). */
static int bind_list_dpipe(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    (void)bd;
    return bind_concat_as(b, consts, NULL);
}

/* Rows of the arguments appended one after another; `strict` (||): rows the caller set NULL
 * (any argument NULL) stay NULL and empty. */
static int concat_rows(tn_vector *const *args, uint32_t nargs, uint32_t count, tn_vector *out, bool strict) {
    if (out->type.id != TN_TYPE_LIST) {          /* every argument an untyped NULL: NULL (type NULL) */
        int rc = tn_vector_ensure_validity(out);
        if (!rc) memset(out->validity, 0, ((size_t)count + 63) / 64 * 8);
        return rc;
    }
    if (!strict && out->validity) memset(out->validity, 0xff, ((size_t)count + 63) / 64 * 8);
    for (uint32_t r = 0; r < count; r++) {
        list_begin(out, r);
        if (strict && !tn_vector_is_valid(out, r)) continue;
        for (uint32_t a = 0; a < nargs; a++) {
            const tn_vector *l = args[a];
            if (l->type.id == TN_TYPE_NULL || !tn_vector_is_valid(l, TN_ARG_IDX(l, r))) continue;
            tn_list_entry e = entry(l, r);
            for (uint32_t i = 0; i < e.length; i++) {
                int rc = list_push(out, r, &l->children[0], e.offset + i);
                if (rc) return rc;
            }
        }
    }
    return 0;
}

static int f_list_concat(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                         tn_vector *out) {
    (void)call;
    return concat_rows(args, nargs, count, out, false);
}

static int f_list_dpipe(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                        tn_vector *out) {
    (void)call;
    return concat_rows(args, nargs, count, out, true);
}

/* ----- list_slice(l, begin, end): 1-based, inclusive, negative from the end ----- */

static int f_list_slice(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                        tn_vector *out) {
    const tn_vector *l = args[0], *bv = args[1], *ev = args[2];
    for (uint32_t r = 0; r < count; r++) {
        list_begin(out, r);
        if (!tn_vector_is_valid(out, r)) continue;
        tn_list_entry e = entry(l, r);
        int64_t len = e.length, b = ((const int64_t *)bv->data)[TN_ARG_IDX(bv, r)];
        int64_t en = ((const int64_t *)ev->data)[TN_ARG_IDX(ev, r)];
        if (b < 0) b = len + b + 1;
        if (en < 0) en = len + en + 1;
        if (b < 1) b = 1;
        if (en > len) en = len;
        for (int64_t i = b; i <= en; i++) {
            int rc = list_push(out, r, &l->children[0], e.offset + (uint32_t)(i - 1));
            if (rc) return rc;
        }
    }
    return 0;
}

/* ----- list_sort(l [, 'ASC'|'DESC' [, 'NULLS FIRST'|'NULLS LAST']]), list_reverse_sort ----- */

typedef struct sort_opts {
    bool desc, nulls_first;
} sort_opts;

static bool word_is(const tn_value *v, const char *w) {
    return v && !v->is_null && v->type.id == TN_TYPE_VARCHAR && tn_str_iequal_n(v->u.s.ptr, v->u.s.len, w);
}

static int bind_list_sort(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    if (b->arg_types[0].id != TN_TYPE_LIST) return tn_error_set(TN_EBIND, "list_sort: the first argument must be a LIST");
    sort_opts o = {strcmp(b->def->name, "list_reverse_sort") == 0, false};
    uint32_t k = 1;
    if (b->nargs > k && !o.desc) {
        if (word_is(consts[k], "desc")) o.desc = true;
        else if (!word_is(consts[k], "asc")) return tn_error_set(TN_EBIND, "list_sort: the sort order must be 'ASC' or 'DESC'");
        k++;
    }
    if (b->nargs > k) {
        if (word_is(consts[k], "nulls first")) o.nulls_first = true;
        else if (!word_is(consts[k], "nulls last"))
            return tn_error_set(TN_EBIND, "list_sort: the null order must be 'NULLS FIRST' or 'NULLS LAST'");
        k++;
    }
    if (b->nargs > k) return tn_error_set(TN_EBIND, "list_sort: too many arguments");
    *bd = (void *)(uintptr_t)(1 | (o.desc ? 2 : 0) | (o.nulls_first ? 4 : 0));
    b->ret = b->arg_types[0];
    return 0;
}

static _Thread_local const tn_vector *g_sort_child;
static _Thread_local sort_opts g_sort_opts;

static int sort_cmp(const void *pa, const void *pb) {
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const tn_vector *c = g_sort_child;
    bool va = c->type.id != TN_TYPE_NULL && tn_vector_is_valid(c, a);
    bool vb = c->type.id != TN_TYPE_NULL && tn_vector_is_valid(c, b);
    int r;
    if (!va || !vb) {
        if (va == vb) r = 0;
        else r = (!va) == g_sort_opts.nulls_first ? -1 : 1;
        return r ? r : (a > b) - (a < b);
    }
    r = elem_cmp(c, a, c, b);
    if (g_sort_opts.desc) r = -r;
    return r ? r : (a > b) - (a < b);     /* stable */
}

static int f_list_sort(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                       tn_vector *out) {
    const tn_vector *l = args[0];
    uintptr_t bits = (uintptr_t)call->bind_data;
    g_sort_child = &l->children[0];
    g_sort_opts = (sort_opts){(bits & 2) != 0, (bits & 4) != 0};
    uint32_t *idx = NULL, cap = 0;
    int rc = 0;
    for (uint32_t r = 0; r < count && !rc; r++) {
        list_begin(out, r);
        if (!tn_vector_is_valid(out, r)) continue;
        tn_list_entry e = entry(l, r);
        if (e.length > cap) {
            uint32_t *n = tn_realloc(idx, (size_t)e.length * sizeof *idx);
            if (!n) { rc = TN_ENOMEM; break; }
            idx = n;
            cap = e.length;
        }
        for (uint32_t i = 0; i < e.length; i++) idx[i] = e.offset + i;
        if (e.length > 1) qsort(idx, e.length, sizeof *idx, sort_cmp);
        for (uint32_t i = 0; i < e.length && !rc; i++) rc = list_push(out, r, g_sort_child, idx[i]);
    }
    free(idx);
    return rc;
}

/* ----- list_distinct(l): NULLs dropped; tarn keeps the first occurrences in order ----- */

static int f_list_distinct(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                           tn_vector *out) {
    const tn_vector *l = args[0], *c = &l->children[0];
    for (uint32_t r = 0; r < count; r++) {
        list_begin(out, r);
        if (!tn_vector_is_valid(out, r)) continue;
        tn_list_entry e = entry(l, r);
        for (uint32_t i = 0; i < e.length; i++) {
            uint32_t at = e.offset + i;
            if (c->type.id == TN_TYPE_NULL || !tn_vector_is_valid(c, at)) continue;
            bool seen = false;
            for (uint32_t j = 0; j < i && !seen; j++) seen = elem_cmp(c, at, c, e.offset + j) == 0;
            if (seen) continue;
            int rc = list_push(out, r, c, at);
            if (rc) return rc;
        }
    }
    return 0;
}

/* ----- flatten(ll): the inner lists concatenated, NULL inner lists skipped ----- */

static int bind_flatten(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type t = b->arg_types[0];
    if (t.id != TN_TYPE_LIST || tn_type_element(t).id != TN_TYPE_LIST)
        return tn_error_set(TN_EBIND, "flatten takes a list of lists");
    b->ret = tn_type_element(t);
    return 0;
}

static int f_flatten(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                     tn_vector *out) {
    const tn_vector *l = args[0], *inner = &l->children[0];
    for (uint32_t r = 0; r < count; r++) {
        list_begin(out, r);
        if (!tn_vector_is_valid(out, r)) continue;
        tn_list_entry e = entry(l, r);
        for (uint32_t i = 0; i < e.length; i++) {
            if (!tn_vector_is_valid(inner, e.offset + i)) continue;
            tn_list_entry ie = ((const tn_list_entry *)inner->data)[e.offset + i];
            for (uint32_t j = 0; j < ie.length; j++) {
                int rc = list_push(out, r, &inner->children[0], ie.offset + j);
                if (rc) return rc;
            }
        }
    }
    return 0;
}

/* ----- string_split(s, sep): an empty separator splits into characters (bytes of UTF-8) ----- */

static int bind_string_split(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    return tn_type_list(&b->ret, tn_type_make(TN_TYPE_VARCHAR));
}

static int push_str(tn_vector *out, uint32_t r, const char *p, size_t n) {
    tn_vector *c = &out->children[0];
    int rc = 0;
    if (c->count >= c->capacity && (rc = tn_vector_reserve(c, c->capacity * 2 > c->count + 16 ? c->capacity * 2 : c->count + 16)))
        return rc;
    if ((rc = tn_vector_set_str(c, c->count, p, n))) return rc;
    c->count++;
    ((tn_list_entry *)out->data)[r].length++;
    return 0;
}

static int f_string_split(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                          tn_vector *out) {
    const tn_vector *sv = args[0], *pv = args[1];
    int rc = tn_vector_ensure_validity(out);
    if (rc) return rc;
    for (uint32_t r = 0; r < count; r++) {
        list_begin(out, r);
        bool s_ok = sv->type.id != TN_TYPE_NULL && tn_vector_is_valid(sv, TN_ARG_IDX(sv, r));
        tn_vector_set_valid_bit(out, r, s_ok);
        if (!s_ok) continue;
        tn_str s = ((const tn_str *)sv->data)[TN_ARG_IDX(sv, r)];
        if (pv->type.id == TN_TYPE_NULL || !tn_vector_is_valid(pv, TN_ARG_IDX(pv, r))) {
            if ((rc = push_str(out, r, s.ptr, s.len))) return rc;      /* NULL separator: [s] */
            continue;
        }
        tn_str sep = ((const tn_str *)pv->data)[TN_ARG_IDX(pv, r)];
        if (sep.len == 0) {
            for (uint32_t i = 0; i < s.len && !rc;) {
                uint32_t n = 1;
                unsigned char ch = (unsigned char)s.ptr[i];
                if (ch >= 0xF0) n = 4;
                else if (ch >= 0xE0) n = 3;
                else if (ch >= 0xC0) n = 2;
                if (i + n > s.len) n = s.len - i;
                rc = push_str(out, r, s.ptr + i, n);
                i += n;
            }
            if (s.len == 0) rc = push_str(out, r, "", 0);
        } else {
            uint32_t start = 0;
            for (uint32_t i = 0; i + sep.len <= s.len && !rc;) {
                if (memcmp(s.ptr + i, sep.ptr, sep.len) == 0) {
                    rc = push_str(out, r, s.ptr + start, i - start);
                    i += sep.len;
                    start = i;
                } else i++;
            }
            if (!rc) rc = push_str(out, r, s.ptr + start, s.len - start);
        }
        if (rc) return rc;
    }
    return 0;
}

/* ----- comparisons of nested values ----- */

static int bind_nested_cmp(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type t;
    int rc = tn_func_common_type(b->arg_types[0], b->arg_types[1], &t);
    if (rc) return rc;
    b->arg_types[0] = b->arg_types[1] = t;
    return 0;
}

#define NESTED_CMP(fname, test)                                                                       \
    static int fname(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count, \
                     tn_vector *out) {                                                                 \
        for (uint32_t r = 0; r < count; r++) {                                                         \
            if (!tn_vector_is_valid(out, r)) continue;                                                 \
            int c = elem_cmp(args[0], TN_ARG_IDX(args[0], r), args[1], TN_ARG_IDX(args[1], r));        \
            ((uint8_t *)out->data)[r] = (test);                                                        \
        }                                                                                              \
        return 0;                                                                                      \
    }
NESTED_CMP(f_eq, c == 0)
NESTED_CMP(f_ne, c != 0)
NESTED_CMP(f_lt, c < 0)
NESTED_CMP(f_le, c <= 0)
NESTED_CMP(f_gt, c > 0)
NESTED_CMP(f_ge, c >= 0)

#define CMP_NESTED_ROWS(op, fn)                                                                      \
    {op, {T_(LIST), T_(LIST), N}, T_(BOOLEAN), 0, fn, bind_nested_cmp, NULL},                        \
    {op, {T_(STRUCT), T_(STRUCT), N}, T_(BOOLEAN), 0, fn, bind_nested_cmp, NULL},                    \
    {op, {T_(MAP), T_(MAP), N}, T_(BOOLEAN), 0, fn, bind_nested_cmp, NULL}

const tn_func_def tn_funcs_list_ops[] = {
    {"list_contains", {T_(LIST), A, N}, T_(BOOLEAN), TN_FUNC_SPECIAL_NULLS, f_list_contains, bind_list_elem, NULL},
    {"list_has", {T_(LIST), A, N}, T_(BOOLEAN), TN_FUNC_SPECIAL_NULLS, f_list_contains, bind_list_elem, NULL},
    {"array_contains", {T_(LIST), A, N}, T_(BOOLEAN), TN_FUNC_SPECIAL_NULLS, f_list_contains, bind_list_elem, NULL},
    {"array_has", {T_(LIST), A, N}, T_(BOOLEAN), TN_FUNC_SPECIAL_NULLS, f_list_contains, bind_list_elem, NULL},
    {"list_position", {T_(LIST), A, N}, T_(BIGINT), TN_FUNC_SPECIAL_NULLS, f_list_contains, bind_list_elem, NULL},
    {"list_indexof", {T_(LIST), A, N}, T_(BIGINT), TN_FUNC_SPECIAL_NULLS, f_list_contains, bind_list_elem, NULL},
    {"array_position", {T_(LIST), A, N}, T_(BIGINT), TN_FUNC_SPECIAL_NULLS, f_list_contains, bind_list_elem, NULL},
#define CONCAT_VARIADIC TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS
    {"list_concat", {A, N}, A, CONCAT_VARIADIC, f_list_concat, bind_list_concat, NULL},
    {"list_cat", {A, N}, A, CONCAT_VARIADIC, f_list_concat, bind_list_concat, NULL},
    {"array_concat", {A, N}, A, CONCAT_VARIADIC, f_list_concat, bind_list_concat, NULL},
    {"array_cat", {A, N}, A, CONCAT_VARIADIC, f_list_concat, bind_list_concat, NULL},
    /* before the string table's ("||", ANY, ANY) and concat: lists concatenate as lists */
    {"concat", {T_(LIST), A, N}, A, CONCAT_VARIADIC, f_list_concat, bind_list_dpipe, NULL},
    {"||", {T_(LIST), A, N}, A, 0, f_list_dpipe, bind_list_dpipe, NULL},
    {"||", {A, T_(LIST), N}, A, 0, f_list_dpipe, bind_list_dpipe, NULL},
    {"list_slice", {T_(LIST), T_(BIGINT), T_(BIGINT), N}, A, 0, f_list_slice, NULL, NULL},
    {"array_slice", {T_(LIST), T_(BIGINT), T_(BIGINT), N}, A, 0, f_list_slice, NULL, NULL},
    {"list_sort", {T_(LIST), N}, A, 0, f_list_sort, bind_list_sort, NULL},
    {"list_sort", {T_(LIST), T_(VARCHAR), N}, A, 0, f_list_sort, bind_list_sort, NULL},
    {"list_sort", {T_(LIST), T_(VARCHAR), T_(VARCHAR), N}, A, 0, f_list_sort, bind_list_sort, NULL},
    {"array_sort", {T_(LIST), N}, A, 0, f_list_sort, bind_list_sort, NULL},
    {"list_reverse_sort", {T_(LIST), N}, A, 0, f_list_sort, bind_list_sort, NULL},
    {"list_reverse_sort", {T_(LIST), T_(VARCHAR), N}, A, 0, f_list_sort, bind_list_sort, NULL},
    {"list_distinct", {T_(LIST), N}, A, 0, f_list_distinct, NULL, NULL},
    {"array_distinct", {T_(LIST), N}, A, 0, f_list_distinct, NULL, NULL},
    {"flatten", {T_(LIST), N}, A, 0, f_flatten, bind_flatten, NULL},
    {"string_split", {T_(VARCHAR), T_(VARCHAR), N}, A, TN_FUNC_SPECIAL_NULLS, f_string_split, bind_string_split, NULL},
    {"str_split", {T_(VARCHAR), T_(VARCHAR), N}, A, TN_FUNC_SPECIAL_NULLS, f_string_split, bind_string_split, NULL},
    {"string_to_array", {T_(VARCHAR), T_(VARCHAR), N}, A, TN_FUNC_SPECIAL_NULLS, f_string_split, bind_string_split, NULL},
    {"split", {T_(VARCHAR), T_(VARCHAR), N}, A, TN_FUNC_SPECIAL_NULLS, f_string_split, bind_string_split, NULL},
    CMP_NESTED_ROWS("=", f_eq),
    CMP_NESTED_ROWS("<>", f_ne),
    CMP_NESTED_ROWS("<", f_lt),
    CMP_NESTED_ROWS("<=", f_le),
    CMP_NESTED_ROWS(">", f_gt),
    CMP_NESTED_ROWS(">=", f_ge),
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
