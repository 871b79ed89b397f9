/*
 * sql/func_list.c: scalar functions over nested values (LIST, STRUCT, MAP; representation in
 * types/types.h): constructors (list_value for [..] and ARRAY[..], __struct_pack for {'a': ..}
 * and struct_pack(a := ..)), access (list_extract for l[i], struct_extract for s.a / s['a']),
 * len / array_length / cardinality, and map_keys / map_values / map_entries. Registered in
 * functions.c as tn_funcs_list.
 */
#include "sql/functions.h"

#include <stdlib.h>
#include <string.h>

#define N TN_SIG_NONE
#define A TN_SIG_ANY
#define T_(x) TN_TYPE_##x

/* Append rows 0..count of src (broadcast when src is a 1-row constant) to dst. */
static int append_bcast(tn_vector *dst, const tn_vector *src, uint32_t count) {
    if (src->count == 1 && count != 1) {
        uint32_t *sel = tn_calloc(count ? count : 1, sizeof *sel);
        if (!sel) return TN_ENOMEM;
        int rc = tn_vector_append_rows(dst, src, sel, count);
        free(sel);
        return rc;
    }
    return tn_vector_append_rows(dst, src, NULL, count);
}

/* ----- list_value(a, b, ...) = [a, b, ...] ----- */

static int bind_list_value(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type t = tn_type_make(TN_TYPE_NULL);
    for (uint32_t i = 0; i < b->nargs; i++) {
        int rc = tn_func_common_type(t, b->arg_types[i], &t);
        if (rc) return rc;
    }
    for (uint32_t i = 0; i < b->nargs; i++) b->arg_types[i] = t;
    return tn_type_list(&b->ret, t);
}

static int f_list_value(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                        tn_vector *out) {
    tn_vector *child = &out->children[0];
    uint64_t total = (uint64_t)nargs * count;
    if (total > UINT32_MAX) return tn_error_set(TN_ELIMIT, "list_value: too many elements");
    int rc = tn_vector_reserve(child, (uint32_t)total ? (uint32_t)total : 1);
    if (rc) return rc;
    tn_list_entry *e = out->data;
    for (uint32_t r = 0; r < count; r++) {
        e[r].offset = r * nargs;
        e[r].length = nargs;
        for (uint32_t a = 0; a < nargs; a++)
            if ((rc = tn_vector_copy_row(child, r * nargs + a, args[a], TN_ARG_IDX(args[a], r)))) return rc;
    }
    child->count = (uint32_t)total;
    return 0;
}

/* ----- __struct_pack('a', x, 'b', y, ...) = {'a': x, 'b': y} (names are constants) ----- */

static int bind_struct_pack(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    if (b->nargs == 0 || b->nargs % 2) return tn_error_set(TN_EBIND, "struct_pack needs name/value pairs");
    uint32_t n = b->nargs / 2;
    const char *names[TN_FUNC_MAX_ARGS / 2];
    char buf[TN_FUNC_MAX_ARGS / 2][256];
    tn_type types[TN_FUNC_MAX_ARGS / 2];
    for (uint32_t i = 0; i < n; i++) {
        const tn_value *c = consts[2 * i];
        if (!c || c->is_null || c->type.id != TN_TYPE_VARCHAR || c->u.s.len == 0 || c->u.s.len >= sizeof buf[i])
            return tn_error_set(TN_EBIND, "struct field names must be non-empty constant strings");
        memcpy(buf[i], c->u.s.ptr, c->u.s.len);
        buf[i][c->u.s.len] = 0;
        names[i] = buf[i];
        types[i] = b->arg_types[2 * i + 1];
        for (uint32_t j = 0; j < i; j++)
            if (tn_str_iequal(names[i], names[j]))
                return tn_error_set(TN_EBIND, "Duplicate struct entry name \"%s\"", names[i]);
    }
    return tn_type_struct(&b->ret, n, names, types);
}

static int f_struct_pack(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                         tn_vector *out) {
    for (uint32_t i = 0; i + 1 < nargs; i += 2) {
        tn_vector *c = &out->children[i / 2];
        c->count = 0;
        int rc = append_bcast(c, args[i + 1], count);
        if (rc) return rc;
    }
    return 0;
}

/* ----- struct_extract(s, 'name') = s.name = s['name'] ----- */

static int bind_struct_extract(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type s = b->arg_types[0];
    const tn_value *c = consts[1];
    if (s.id != TN_TYPE_STRUCT) return tn_error_set(TN_EBIND, "struct_extract: the first argument must be a STRUCT");
    if (!c || c->is_null || c->type.id != TN_TYPE_VARCHAR)
        return tn_error_set(TN_EBIND, "Key name for struct_extract needs to be a constant string");
    int k = tn_type_struct_find(s, c->u.s.ptr, c->u.s.len);
    if (k < 0) {
        tn_buf cand = TN_BUF_INIT;
        for (uint32_t i = 0; i < s.nested->nchildren; i++)
            tn_buf_printf(&cand, "%s\"%s\"", i ? ", " : "", s.nested->names[i]);
        int rc = tn_error_set(TN_EBIND, "Could not find key \"%.*s\" in struct\nCandidate Entries: %.*s",
                              (int)c->u.s.len, c->u.s.ptr, (int)cand.len, cand.data ? (const char *)cand.data : "");
        tn_buf_free(&cand);
        return rc;
    }
    b->ret = s.nested->children[k];
    *bd = (void *)(uintptr_t)(k + 1);
    return 0;
}

static int f_struct_extract(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                            tn_vector *out) {
    uint32_t k = (uint32_t)(uintptr_t)call->bind_data - 1;
    out->count = 0;
    return append_bcast(out, &args[0]->children[k], count);   /* a NULL struct has NULL fields */
}

/* ----- list_extract(l, i): 1-based, negative from the end, NULL out of range ----- */

static int bind_list_extract(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type l = b->arg_types[0];
    if (l.id == TN_TYPE_VARCHAR) {      /* list_extract('abc', 2) is a substring in DuckDB */
        return tn_error_set(TN_EBIND, "list_extract of a VARCHAR is not supported; use substr");
    }
    if (l.id != TN_TYPE_LIST) return tn_error_set(TN_EBIND, "list_extract: the first argument must be a LIST");
    b->arg_types[1] = tn_type_make(TN_TYPE_BIGINT);
    b->ret = tn_type_element(l);
    return 0;
}

static int f_list_extract(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                          tn_vector *out) {
    const tn_vector *l = args[0], *ix = args[1], *child = &l->children[0];
    const tn_list_entry *e = l->data;
    for (uint32_t r = 0; r < count; r++) {
        int rc = 0;
        if (!tn_vector_is_valid(out, r)) {
            rc = tn_vector_set_null(out, r);
        } else {
            tn_list_entry le = e[TN_ARG_IDX(l, r)];
            int64_t i = ((const int64_t *)ix->data)[TN_ARG_IDX(ix, r)];
            int64_t at = i > 0 ? i - 1 : (int64_t)le.length + i;
            if (i == 0 || at < 0 || at >= (int64_t)le.length) rc = tn_vector_set_null(out, r);
            else rc = tn_vector_copy_row(out, r, child, le.offset + (uint32_t)at);
        }
        if (rc) return rc;
    }
    return 0;
}

/* ----- len(l) / array_length(l) / cardinality(m) ----- */

static int f_list_len(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                      tn_vector *out) {
    const tn_vector *l = args[0];
    const tn_list_entry *e = l->data;
    for (uint32_t r = 0; r < count; r++) ((int64_t *)out->data)[r] = e[TN_ARG_IDX(l, r)].length;
    return 0;
}

/* ----- __map_pack(k1, v1, k2, v2, ...) = MAP {k1: v1, ...}; map(keys, values) ----- */

static int bind_map_pack(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    if (b->nargs % 2) return tn_error_set(TN_EBIND, "a MAP literal needs key/value pairs");
    tn_type k = tn_type_make(TN_TYPE_NULL), v = tn_type_make(TN_TYPE_NULL);
    for (uint32_t i = 0; i < b->nargs; i += 2) {
        int rc = tn_func_common_type(k, b->arg_types[i], &k);
        if (!rc) rc = tn_func_common_type(v, b->arg_types[i + 1], &v);
        if (rc) return rc;
    }
    for (uint32_t i = 0; i < b->nargs; i += 2) b->arg_types[i] = k, b->arg_types[i + 1] = v;
    return tn_type_map(&b->ret, k, v);
}

/* Keys of one map row: never NULL, unique (DuckDB's errors). */
static int check_keys(const tn_vector *keys, uint32_t from, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (!tn_vector_is_valid(keys, from + i) || keys->type.id == TN_TYPE_NULL)
            return tn_error_set(TN_EINVAL, "Invalid Input Error: Map keys can not be NULL");
        tn_value a, c;
        tn_vector_get_value(keys, from + i, &a);
        for (uint32_t j = 0; j < i; j++) {
            tn_vector_get_value(keys, from + j, &c);
            if (tn_value_compare(&a, &c) == 0)
                return tn_error_set(TN_EINVAL, "Invalid Input Error: Map keys must be unique.");
        }
    }
    return 0;
}

static int f_map_pack(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                      tn_vector *out) {
    tn_vector *ent = &out->children[0], *keys = &ent->children[0], *vals = &ent->children[1];
    uint32_t per = nargs / 2;
    uint64_t total = (uint64_t)per * count;
    if (total > UINT32_MAX) return tn_error_set(TN_ELIMIT, "map: too many entries");
    int rc = tn_vector_reserve(ent, (uint32_t)total ? (uint32_t)total : 1);
    if (rc) return rc;
    tn_list_entry *e = out->data;
    for (uint32_t r = 0; r < count; r++) {
        e[r].offset = r * per;
        e[r].length = per;
        for (uint32_t a = 0; a < per; a++) {
            uint32_t at = r * per + a;
            if ((rc = tn_vector_copy_row(keys, at, args[2 * a], TN_ARG_IDX(args[2 * a], r))) ||
                (rc = tn_vector_copy_row(vals, at, args[2 * a + 1], TN_ARG_IDX(args[2 * a + 1], r))))
                return rc;
        }
        if ((rc = check_keys(keys, r * per, per))) return rc;
    }
    ent->count = keys->count = vals->count = (uint32_t)total;
    return 0;
}

static int bind_map_lists(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    if (b->nargs == 0) return tn_type_map(&b->ret, tn_type_make(TN_TYPE_NULL), tn_type_make(TN_TYPE_NULL));
    tn_type k = b->arg_types[0], v = b->arg_types[1];
    if (k.id != TN_TYPE_LIST || v.id != TN_TYPE_LIST)
        return tn_error_set(TN_EBIND, "map() takes two lists: the keys and the values");
    return tn_type_map(&b->ret, tn_type_element(k), tn_type_element(v));
}

static int f_map_lists(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                       tn_vector *out) {
    if (nargs == 0) {
        memset(out->data, 0, (size_t)count * sizeof(tn_list_entry));
        return 0;
    }
    const tn_vector *kl = args[0], *vl = args[1];
    tn_vector *ent = &out->children[0], *keys = &ent->children[0], *vals = &ent->children[1];
    tn_list_entry *e = out->data;
    for (uint32_t r = 0; r < count; r++) {
        if (!tn_vector_is_valid(out, r)) {
            e[r].offset = ent->count, e[r].length = 0;
            continue;
        }
        tn_list_entry ke = ((const tn_list_entry *)kl->data)[TN_ARG_IDX(kl, r)];
        tn_list_entry ve = ((const tn_list_entry *)vl->data)[TN_ARG_IDX(vl, r)];
        if (ke.length != ve.length)
            return tn_error_set(TN_EINVAL, "Invalid Input Error: Key list has a different size from Value list "
                                           "(%u keys, %u values)", ke.length, ve.length);
        uint32_t base = ent->count;
        int rc = tn_vector_reserve(ent, base + ke.length + 1);
        for (uint32_t i = 0; i < ke.length && !rc; i++) {
            rc = tn_vector_copy_row(keys, base + i, &kl->children[0], ke.offset + i);
            if (!rc) rc = tn_vector_copy_row(vals, base + i, &vl->children[0], ve.offset + i);
        }
        if (!rc) rc = check_keys(keys, base, ke.length);
        if (rc) return rc;
        ent->count = keys->count = vals->count = base + ke.length;
        e[r].offset = base;
        e[r].length = ke.length;
    }
    return 0;
}

/* ----- m[k] = map_extract_value(m, k): the value, NULL when the key is absent; map_extract /
 * element_at(m, k): DuckDB 1.5's list of it ([v] or []) ----- */

static int bind_map_extract_value(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type m = b->arg_types[0];
    if (m.id != TN_TYPE_MAP) return tn_error_set(TN_EBIND, "map_extract: the first argument must be a MAP");
    b->arg_types[1] = tn_type_map_key(m);
    b->ret = tn_type_map_value(m);
    return 0;
}

static int bind_map_extract(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    int rc = bind_map_extract_value(b, consts, bd);
    if (!rc) rc = tn_type_list(&b->ret, b->ret);
    return rc;
}

static int f_map_extract(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                         tn_vector *out) {
    const tn_vector *m = args[0], *k = args[1];
    const tn_vector *keys = &m->children[0].children[0], *vals = &m->children[0].children[1];
    bool as_list = out->type.id == TN_TYPE_LIST;
    tn_vector *dst = as_list ? &out->children[0] : out;
    for (uint32_t r = 0; r < count; r++) {
        int rc = 0;
        bool found = false;
        uint32_t at = as_list ? dst->count : r;
        if (as_list && (rc = tn_vector_reserve(dst, at + 1))) return rc;
        if (tn_vector_is_valid(out, r)) {
            tn_list_entry e = ((const tn_list_entry *)m->data)[TN_ARG_IDX(m, r)];
            tn_value want, have;
            tn_vector_get_value(k, TN_ARG_IDX(k, r), &want);
            for (uint32_t i = 0; i < e.length && !found; i++) {
                tn_vector_get_value(keys, e.offset + i, &have);
                if (!have.is_null && tn_value_compare(&want, &have) == 0) {
                    found = true;
                    rc = tn_vector_copy_row(dst, at, vals, e.offset + i);
                }
            }
        }
        if (as_list) {
            ((tn_list_entry *)out->data)[r] = (tn_list_entry){at, found ? 1u : 0u};
            if (found) dst->count = at + 1;
        } else if (!found) rc = tn_vector_set_null(out, r);
        if (rc) return rc;
    }
    return 0;
}

/* ----- typeof(x): DuckDB's name of x's type ----- */

static int f_typeof(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count,
                    tn_vector *out) {
    tn_buf b = TN_BUF_INIT;
    tn_type t = args[0]->type;
    int rc = t.id == TN_TYPE_NULL ? tn_buf_append(&b, "\"NULL\"", 6) : tn_type_append_name(&b, t);
    if (!rc && t.id == TN_TYPE_DECIMAL) {       /* DuckDB: DECIMAL(18,3) */
        tn_buf_clear(&b);
        rc = tn_buf_printf(&b, "DECIMAL(%u,%u)", t.precision, t.scale);
    }
    for (uint32_t r = 0; r < count && !rc; r++)
        rc = tn_vector_set_str(out, r, b.data ? (const char *)b.data : "", b.len);
    if (out->validity) memset(out->validity, 0xff, ((size_t)count + 63) / 64 * 8);
    tn_buf_free(&b);
    return rc;
}


/* ----- map_keys(m), map_values(m), map_entries(m): the map's keys / values / STRUCT(key, value)
 * entries as a list in the map's order; NULL map -> NULL ----- */

static int bind_map_part(tn_func_binding *b, const tn_value *const *consts, void **bd, uintptr_t part) {
    tn_type m = b->arg_types[0];
    if (m.id != TN_TYPE_MAP) return tn_error_set(TN_EBIND, "the argument must be a MAP");
    *bd = (void *)(part + 1);
    tn_type el = part == 0 ? tn_type_map_key(m) : part == 1 ? tn_type_map_value(m) : tn_type_element(m);
    return tn_type_list(&b->ret, el);
}
static int bind_map_keys(tn_func_binding *b, const tn_value *const *c, void **bd) { return bind_map_part(b, c, bd, 0); }
static int bind_map_values(tn_func_binding *b, const tn_value *const *c, void **bd) { return bind_map_part(b, c, bd, 1); }
static int bind_map_entries(tn_func_binding *b, const tn_value *const *c, void **bd) { return bind_map_part(b, c, bd, 2); }

static int f_map_part(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t count, tn_vector *out) {
    uintptr_t part = (uintptr_t)call->bind_data - 1;
    const tn_vector *m = args[0], *ent = &m->children[0];
    const tn_vector *src = part == 2 ? ent : &ent->children[part];
    const tn_list_entry *me = m->data;
    tn_list_entry *oe = out->data;
    uint64_t total = 0;
    for (uint32_t r = 0; r < count; r++)
        if (tn_vector_is_valid(out, r)) total += me[TN_ARG_IDX(m, r)].length;
    if (total > UINT32_MAX) return tn_error_set(TN_ELIMIT, "map_keys: too many elements");
    uint32_t *sel = tn_malloc((total + 1) * sizeof *sel);
    if (!sel) return TN_ENOMEM;
    uint32_t n = 0, base = out->children[0].count;
    for (uint32_t r = 0; r < count; r++) {
        oe[r].offset = base + n;
        oe[r].length = 0;
        if (!tn_vector_is_valid(out, r)) continue;
        tn_list_entry e = me[TN_ARG_IDX(m, r)];
        for (uint32_t i = 0; i < e.length; i++) sel[n++] = e.offset + i;
        oe[r].length = e.length;
    }
    int rc = tn_vector_append_rows(&out->children[0], src, sel, n);
    tn_free(sel);
    return rc;
}

const tn_func_def tn_funcs_list[] = {
    {"list_value", {A, N}, A, TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, f_list_value, bind_list_value, NULL},
    {"list_pack", {A, N}, A, TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, f_list_value, bind_list_value, NULL},
    {"__struct_pack", {A, N}, A, TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, f_struct_pack, bind_struct_pack, NULL},
    {"struct_extract", {T_(STRUCT), T_(VARCHAR), N}, A, 0, f_struct_extract, bind_struct_extract, NULL},
    {"list_extract", {A, T_(BIGINT), N}, A, 0, f_list_extract, bind_list_extract, NULL},
    {"list_element", {A, T_(BIGINT), N}, A, 0, f_list_extract, bind_list_extract, NULL},
    {"array_extract", {A, T_(BIGINT), N}, A, 0, f_list_extract, bind_list_extract, NULL},
    {"length", {T_(LIST), N}, T_(BIGINT), 0, f_list_len, NULL, NULL},
    {"array_length", {T_(LIST), N}, T_(BIGINT), 0, f_list_len, NULL, NULL},
    {"cardinality", {T_(LIST), N}, T_(BIGINT), 0, f_list_len, NULL, NULL},
    {"cardinality", {T_(MAP), N}, T_(BIGINT), 0, f_list_len, NULL, NULL},
    {"__map_pack", {A, N}, A, TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, f_map_pack, bind_map_pack, NULL},
    {"map", {N}, A, 0, f_map_lists, bind_map_lists, NULL},
    {"map", {A, A, N}, A, 0, f_map_lists, bind_map_lists, NULL},
    {"map_extract", {T_(MAP), A, N}, A, 0, f_map_extract, bind_map_extract, NULL},
    {"map_extract_value", {T_(MAP), A, N}, A, 0, f_map_extract, bind_map_extract_value, NULL},
    {"element_at", {T_(MAP), A, N}, A, 0, f_map_extract, bind_map_extract, NULL},
    {"map_keys", {T_(MAP), N}, A, 0, f_map_part, bind_map_keys, NULL},
    {"map_values", {T_(MAP), N}, A, 0, f_map_part, bind_map_values, NULL},
    {"map_entries", {T_(MAP), N}, A, 0, f_map_part, bind_map_entries, NULL},
    {"typeof", {A, N}, T_(VARCHAR), TN_FUNC_SPECIAL_NULLS, f_typeof, NULL, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
