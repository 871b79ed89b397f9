/*
 * sql/expr_eval.c: bound expression nodes (construction with implicit casts, copy, free) and
 * their vectorized evaluation over chunks: per node a scratch vector in tn_expr_state,
 * constants kept as 1-row vectors and broadcast by the callee (TN_ARG_IDX), validity combined
 * word-wise, three-valued logic for AND/OR/NOT, selection vectors for filters.
 */
#include "sql/expr.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Vector helpers.
 */
static size_t vwords(uint32_t n) { return ((size_t)n + 63) / 64; }

/* Prepare v to receive `rows` rows, all valid. */
static int prep_vector(tn_vector *v, uint32_t rows) {
    tn_vector_reset(v);
    int rc = tn_vector_reserve(v, rows ? rows : 1);
    if (rc) return rc;
    v->count = rows;
    return 0;
}


/* Copy row `from` of src to row `to` of dst (same type; strings borrowed). */
static void copy_row(tn_vector *dst, uint32_t to, const tn_vector *src, uint32_t from) {
    size_t w = tn_type_width(dst->type);
    if (dst->children) {           /* nested: a deep copy (no borrowing of child vectors) */
        if (tn_vector_copy_row(dst, to, src, from)) tn_vector_set_valid_bit(dst, to, false);
        return;
    }
    if (!tn_vector_is_valid(src, from)) {
        tn_vector_set_valid_bit(dst, to, false);
        memset((uint8_t *)dst->data + (size_t)to * w, 0, w);
        return;
    }
    tn_vector_set_valid_bit(dst, to, true);
    if (w) memcpy((uint8_t *)dst->data + (size_t)to * w, (const uint8_t *)src->data + (size_t)from * w, w);
}

/* dst (rows rows, prepared) = src broadcast or copied; strings borrowed. */
static int copy_vector(tn_vector *dst, const tn_vector *src, uint32_t rows) {
    size_t w = tn_type_width(dst->type);
    if (dst->children) {           /* nested: gather (elements copied, strings borrowed) */
        uint32_t *sel = NULL;
        if (src->count == 1 && rows != 1 && !(sel = tn_calloc(rows, sizeof *sel))) return TN_ENOMEM;
        int rc = tn_vector_gather(dst, src, sel, rows);
        tn_free(sel);
        return rc;
    }
    if (src->count == 1 && rows != 1) {
        if (!tn_vector_is_valid(src, 0)) {
            int rc = tn_vector_ensure_validity(dst);
            if (rc) return rc;
            memset(dst->validity, 0, vwords(rows) * 8);
            memset(dst->data, 0, w * rows);
            return 0;
        }
        for (uint32_t i = 0; i < rows; i++)
            memcpy((uint8_t *)dst->data + (size_t)i * w, src->data, w);
        return 0;
    }
    if (w) memcpy(dst->data, src->data, w * rows);
    if (src->validity) {
        int rc = tn_vector_ensure_validity(dst);
        if (rc) return rc;
        memcpy(dst->validity, src->validity, vwords(rows) * 8);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Construction.
 */
static tn_expr *node_new(tn_expr_kind kind, tn_type type, uint32_t nargs) {
    tn_expr *e = tn_calloc(1, sizeof *e);
    if (!e) return NULL;
    e->kind = kind;
    e->type = type;
    if (nargs) {
        e->args = tn_calloc(nargs, sizeof *e->args);
        if (!e->args) {
            tn_free(e);
            return NULL;
        }
    }
    e->nargs = nargs;
    return e;
}

static void free_args(tn_expr **args, uint32_t n) {
    if (!args) return;
    for (uint32_t i = 0; i < n; i++) tn_expr_free(args[i]);
}

static int value_copy_owned(tn_value *dst, const tn_value *src) {
    *dst = *src;
    if (!src->is_null && tn_type_is_nested(src->type)) {      /* a 1-row vector of its own */
        tn_vector *v = tn_malloc(sizeof *v);
        if (!v) return TN_ENOMEM;
        int rc = tn_vector_init(v, src->type, 1);
        if (!rc) rc = tn_vector_copy_row(v, 0, src->u.ref.vec, src->u.ref.row);
        if (rc) {
            tn_vector_free(v);
            tn_free(v);
            return rc;
        }
        v->count = 1;
        dst->u.ref.vec = v;
        dst->u.ref.row = 0;
        return 0;
    }
    if (!src->is_null && tn_type_is_string(src->type)) {
        char *p = tn_malloc(src->u.s.len ? src->u.s.len : 1);
        if (!p) return TN_ENOMEM;
        if (src->u.s.len) memcpy(p, src->u.s.ptr, src->u.s.len);
        dst->u.s.ptr = p;
    }
    return 0;
}

static void value_free_owned(tn_value *v) {
    if (!v->is_null && tn_type_is_string(v->type)) tn_free((void *)v->u.s.ptr);
    if (!v->is_null && tn_type_is_nested(v->type)) {
        tn_vector_free((tn_vector *)v->u.ref.vec);
        tn_free((void *)v->u.ref.vec);
    }
}

void tn_expr_free(tn_expr *e) {
    if (!e) return;
    free_args(e->args, e->nargs);
    tn_free(e->args);
    switch (e->kind) {
    case TN_EXPR_CONSTANT: value_free_owned(&e->u.value); break;
    case TN_EXPR_FUNCTION:
        if (e->u.func.call.bind_data && e->u.func.call.def->free_bind_data)
            e->u.func.call.def->free_bind_data(e->u.func.call.bind_data);
        break;
    case TN_EXPR_IN:
        for (uint32_t i = 0; i < e->u.in.nvalues; i++) value_free_owned(&e->u.in.values[i]);
        tn_free(e->u.in.values);
        break;
    default: break;
    }
    tn_free(e);
}

int tn_expr_constant(tn_expr **out, const tn_value *value) {
    *out = NULL;
    tn_expr *e = node_new(TN_EXPR_CONSTANT, value->type, 0);
    if (!e) return TN_ENOMEM;
    if (value_copy_owned(&e->u.value, value)) {
        tn_free(e);
        return TN_ENOMEM;
    }
    if (value->type.id == TN_TYPE_NULL) e->u.value.is_null = true;
    *out = e;
    return 0;
}

int tn_expr_column(tn_expr **out, uint32_t column, tn_type type) {
    *out = node_new(TN_EXPR_COLUMN, type, 0);
    if (!*out) return TN_ENOMEM;
    (*out)->u.column = column;
    return 0;
}

static int fold_cast_constant(tn_expr *arg, tn_type type, bool try_cast, tn_expr **out) {
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    tn_value v;
    int rc = tn_cast_value(&arg->u.value, type, try_cast, arena, &v);
    if (rc == 0) rc = tn_expr_constant(out, &v);
    tn_arena_destroy(arena);
    return rc;
}

int tn_expr_cast(tn_expr **out, tn_expr *arg, tn_type type, bool try_cast) {
    *out = NULL;
    int rc = 0;
    if (tn_type_equal(arg->type, type)) {
        *out = arg;
        return 0;
    }
    if (!tn_cast_supported(arg->type, type)) {
        char a[64], b[64];
        rc = tn_error_set(TN_EBIND, "Unimplemented type for cast (%s -> %s)",
                          tn_type_format(arg->type, a, sizeof a), tn_type_format(type, b, sizeof b));
        goto cleanup;
    }
    if (arg->kind == TN_EXPR_CONSTANT) {
        rc = fold_cast_constant(arg, type, try_cast, out);
        goto cleanup;
    }
    tn_expr *e = node_new(TN_EXPR_CAST, type, 1);
    if (!e) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    e->args[0] = arg;
    e->u.try_cast = try_cast;
    *out = e;
    return 0;
cleanup:
    tn_expr_free(arg);
    return rc;
}

/* Cast args[i] in place to types[i]; on failure frees nothing (caller frees args). */
static int cast_args(tn_expr **args, const tn_type *types, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (tn_type_equal(args[i]->type, types[i])) continue;
        tn_expr *arg = args[i];
        args[i] = NULL;
        int rc = tn_expr_cast(&args[i], arg, types[i], false);
        if (rc) return rc;
    }
    return 0;
}

int tn_expr_function_ex(tn_expr **out, const char *name, tn_expr **args, const uint8_t *arg_flags,
                        uint32_t nargs) {
    *out = NULL;
    int rc = 0;
    tn_expr *e = NULL;
    tn_type types[TN_FUNC_MAX_ARGS];
    const tn_value *consts[TN_FUNC_MAX_ARGS];
    void *bind_data = NULL;
    tn_func_binding *b = tn_calloc(1, sizeof *b);
    if (!b) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    if (nargs > TN_FUNC_MAX_ARGS) {
        rc = tn_error_set(TN_ELIMIT, "%s: too many arguments (%u)", name, nargs);
        goto cleanup;
    }
    for (uint32_t i = 0; i < nargs; i++) {
        types[i] = args[i]->type;
        consts[i] = args[i]->kind == TN_EXPR_CONSTANT ? &args[i]->u.value : NULL;
    }
    rc = tn_func_resolve_bind(name, types, arg_flags, nargs, consts, b, &bind_data);
    if (rc) goto cleanup;
    rc = cast_args(args, b->arg_types, nargs);
    if (rc) goto cleanup;
    e = node_new(TN_EXPR_FUNCTION, b->ret, nargs);
    if (!e) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    for (uint32_t i = 0; i < nargs; i++) {
        e->args[i] = args[i];
        args[i] = NULL;
    }
    e->u.func.call.def = b->def;
    e->u.func.call.bind_data = bind_data;
    bind_data = NULL;
    e->type = b->ret;
    e->u.func.call.ret = b->ret;
    *out = e;
    e = NULL;
cleanup:
    if (args) {
        for (uint32_t i = 0; i < nargs; i++) {
            tn_expr_free(args[i]);
            args[i] = NULL;
        }
    }
    if (bind_data && b && b->def && b->def->free_bind_data) b->def->free_bind_data(bind_data);
    tn_expr_free(e);
    tn_free(b);
    return rc;
}

int tn_expr_function(tn_expr **out, const char *name, tn_expr **args, uint32_t nargs) {
    return tn_expr_function_ex(out, name, args, NULL, nargs);
}

static int to_boolean(tn_expr **arg) {
    if ((*arg)->type.id == TN_TYPE_BOOLEAN) return 0;
    tn_expr *a = *arg;
    *arg = NULL;
    return tn_expr_cast(arg, a, tn_type_make(TN_TYPE_BOOLEAN), false);
}

static int make_logic(tn_expr **out, tn_expr_kind kind, tn_expr **args, uint32_t nargs) {
    *out = NULL;
    int rc = 0;
    tn_expr *e = node_new(kind, tn_type_make(TN_TYPE_BOOLEAN), nargs);
    if (!e) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    for (uint32_t i = 0; i < nargs; i++) {
        e->args[i] = args[i];
        args[i] = NULL;
    }
    for (uint32_t i = 0; i < nargs; i++) {
        rc = to_boolean(&e->args[i]);
        if (rc) goto cleanup;
    }
    *out = e;
    return 0;
cleanup:
    free_args(args, nargs);
    for (uint32_t i = 0; i < nargs; i++) args[i] = NULL;
    tn_expr_free(e);
    return rc;
}

int tn_expr_and(tn_expr **out, tn_expr **args, uint32_t nargs) {
    return make_logic(out, TN_EXPR_AND, args, nargs);
}
int tn_expr_or(tn_expr **out, tn_expr **args, uint32_t nargs) {
    return make_logic(out, TN_EXPR_OR, args, nargs);
}
int tn_expr_not(tn_expr **out, tn_expr *arg) { return make_logic(out, TN_EXPR_NOT, &arg, 1); }

int tn_expr_is_null(tn_expr **out, tn_expr *arg, bool negated) {
    *out = node_new(negated ? TN_EXPR_IS_NOT_NULL : TN_EXPR_IS_NULL, tn_type_make(TN_TYPE_BOOLEAN), 1);
    if (!*out) {
        tn_expr_free(arg);
        return TN_ENOMEM;
    }
    (*out)->args[0] = arg;
    return 0;
}

/* Cast every args[i] to their common type; *type gets it. */
static int unify(tn_expr **args, uint32_t n, tn_type *type) {
    tn_type t = tn_type_make(TN_TYPE_NULL);
    for (uint32_t i = 0; i < n; i++) {
        if (!args[i]) continue;
        int rc = tn_func_common_type(t, args[i]->type, &t);
        if (rc) return rc;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!args[i]) continue;
        tn_expr *a = args[i];
        args[i] = NULL;
        int rc = tn_expr_cast(&args[i], a, t, false);
        if (rc) return rc;
    }
    *type = t;
    return 0;
}

int tn_expr_case(tn_expr **out, tn_expr **whens, tn_expr **thens, uint32_t n, tn_expr *else_expr) {
    *out = NULL;
    int rc = 0;
    uint32_t total = 2 * n + (else_expr ? 1 : 0);
    tn_expr *e = node_new(TN_EXPR_CASE, tn_type_make(TN_TYPE_NULL), total);
    tn_expr **vals = tn_calloc(n + 1, sizeof *vals);
    if (!e || !vals) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    for (uint32_t i = 0; i < n; i++) {
        e->args[2 * i] = whens[i];
        vals[i] = thens[i];
        whens[i] = thens[i] = NULL;
    }
    vals[n] = else_expr;
    else_expr = NULL;
    e->u.has_else = vals[n] != NULL;
    rc = unify(vals, n + 1, &e->type);
    for (uint32_t i = 0; i < n; i++) {
        e->args[2 * i + 1] = vals[i];
        vals[i] = NULL;
    }
    if (e->u.has_else) e->args[2 * n] = vals[n];
    vals[n] = NULL;
    if (rc) goto cleanup;
    for (uint32_t i = 0; i < n; i++) {
        rc = to_boolean(&e->args[2 * i]);
        if (rc) goto cleanup;
    }
    for (uint32_t i = 0; i < total; i++) {
        if (!e->args[i]) {
            rc = TN_ENOMEM;
            goto cleanup;
        }
    }
    *out = e;
    e = NULL;
cleanup:
    if (vals) free_args(vals, n + 1);
    tn_free(vals);
    tn_expr_free(e);
    tn_expr_free(else_expr);
    for (uint32_t i = 0; i < n && rc; i++) {
        tn_expr_free(whens[i]);
        tn_expr_free(thens[i]);
        whens[i] = thens[i] = NULL;
    }
    return rc;
}

int tn_expr_coalesce(tn_expr **out, tn_expr **args, uint32_t nargs) {
    *out = NULL;
    int rc = 0;
    tn_expr *e = node_new(TN_EXPR_COALESCE, tn_type_make(TN_TYPE_NULL), nargs);
    if (!e) {
        free_args(args, nargs);
        return TN_ENOMEM;
    }
    for (uint32_t i = 0; i < nargs; i++) {
        e->args[i] = args[i];
        args[i] = NULL;
    }
    rc = unify(e->args, nargs, &e->type);
    for (uint32_t i = 0; i < nargs && !rc; i++)
        if (!e->args[i]) rc = TN_ENOMEM;
    if (rc) {
        tn_expr_free(e);
        return rc;
    }
    *out = e;
    return 0;
}

int tn_expr_nullif(tn_expr **out, tn_expr *a, tn_expr *b) {
    *out = NULL;
    int rc = 0;
    tn_expr *e = NULL, *pair[2] = {a, b}, *eq = NULL;
    tn_type t;
    rc = unify(pair, 2, &t);
    if (rc) goto cleanup;
    tn_expr *acopy = tn_expr_copy(pair[0]);
    if (!acopy) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    tn_expr *eqargs[2] = {acopy, pair[1]};
    pair[1] = NULL;
    rc = tn_expr_function(&eq, "=", eqargs, 2);
    if (rc) goto cleanup;
    e = node_new(TN_EXPR_NULLIF, t, 2);
    if (!e) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    e->args[0] = pair[0];
    e->args[1] = eq;
    pair[0] = NULL;
    eq = NULL;
    *out = e;
cleanup:
    tn_expr_free(pair[0]);
    tn_expr_free(pair[1]);
    tn_expr_free(eq);
    return rc;
}

static int in_value_cmp(const void *a, const void *b) { return tn_value_compare(a, b); }

int tn_expr_in(tn_expr **out, tn_expr *x, const tn_value *values, uint32_t nvalues, bool negated) {
    *out = NULL;
    int rc = 0;
    tn_expr *e = NULL;
    tn_arena *arena = tn_arena_create(0);
    tn_type t = x->type;
    if (!arena) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    for (uint32_t i = 0; i < nvalues; i++) {
        rc = tn_func_common_type(t, values[i].type, &t);
        if (rc) goto cleanup;
    }
    if (!tn_type_equal(t, x->type)) {
        tn_expr *a = x;
        x = NULL;
        rc = tn_expr_cast(&x, a, t, false);
        if (rc) goto cleanup;
    }
    e = node_new(TN_EXPR_IN, tn_type_make(TN_TYPE_BOOLEAN), 1);
    if (!e || (nvalues && !(e->u.in.values = tn_calloc(nvalues, sizeof(tn_value))))) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    e->args[0] = x;
    x = NULL;
    for (uint32_t i = 0; i < nvalues; i++) {
        tn_value v;
        if (values[i].is_null || values[i].type.id == TN_TYPE_NULL) {
            e->u.in.has_null = true;
            continue;
        }
        rc = tn_cast_value(&values[i], t, false, arena, &v);
        if (rc) goto cleanup;
        rc = value_copy_owned(&e->u.in.values[e->u.in.nvalues], &v);
        if (rc) goto cleanup;
        e->u.in.nvalues++;
    }
    qsort(e->u.in.values, e->u.in.nvalues, sizeof(tn_value), in_value_cmp);
    if (negated) {
        rc = tn_expr_not(out, e);
        e = NULL;
        goto cleanup;
    }
    *out = e;
    e = NULL;
cleanup:
    tn_arena_destroy(arena);
    tn_expr_free(x);
    tn_expr_free(e);
    return rc;
}

int tn_expr_between(tn_expr **out, tn_expr *x, tn_expr *lo, tn_expr *hi, bool negated) {
    *out = NULL;
    int rc = 0;
    tn_expr *ge = NULL, *le = NULL, *both = NULL;
    tn_expr *x2 = tn_expr_copy(x);
    if (!x2) {
        rc = TN_ENOMEM;
        tn_expr_free(x);
        tn_expr_free(lo);
        tn_expr_free(hi);
        goto cleanup;
    }
    tn_expr *a1[2] = {x, lo}, *a2[2] = {x2, hi};
    rc = tn_expr_function(&ge, ">=", a1, 2);
    if (rc) {
        tn_expr_free(x2);
        tn_expr_free(hi);
        goto cleanup;
    }
    rc = tn_expr_function(&le, "<=", a2, 2);
    if (rc) goto cleanup;
    tn_expr *conj[2] = {ge, le};
    ge = le = NULL;
    rc = tn_expr_and(&both, conj, 2);
    if (rc) goto cleanup;
    if (negated) rc = tn_expr_not(out, both);
    else *out = both;
    both = NULL;
cleanup:
    tn_expr_free(ge);
    tn_expr_free(le);
    tn_expr_free(both);
    return rc;
}

int tn_expr_like(tn_expr **out, tn_expr *x, tn_expr *pattern, tn_expr *escape, bool ilike,
                 bool negated) {
    *out = NULL;
    tn_expr *args[3] = {x, pattern, escape};
    tn_expr *call = NULL;
    int rc = tn_expr_function(&call, escape ? (ilike ? "ilike_escape" : "like_escape") : (ilike ? "~~*" : "~~"),
                              args, escape ? 3 : 2);
    if (rc) return rc;
    if (negated) return tn_expr_not(out, call);
    *out = call;
    return 0;
}

tn_expr *tn_expr_copy(const tn_expr *e) {
    tn_expr *c = node_new(e->kind, e->type, e->nargs);
    if (!c) return NULL;
    c->u = e->u;
    /* Undo shared ownership before anything can fail. */
    if (e->kind == TN_EXPR_CONSTANT) c->u.value.is_null = true, c->u.value.type = tn_type_make(TN_TYPE_NULL);
    if (e->kind == TN_EXPR_FUNCTION) c->u.func.call.bind_data = NULL;
    if (e->kind == TN_EXPR_IN) c->u.in.values = NULL, c->u.in.nvalues = 0;
    for (uint32_t i = 0; i < e->nargs; i++) {
        c->args[i] = tn_expr_copy(e->args[i]);
        if (!c->args[i]) goto fail;
    }
    switch (e->kind) {
    case TN_EXPR_CONSTANT:
        if (value_copy_owned(&c->u.value, &e->u.value)) goto fail;
        break;
    case TN_EXPR_FUNCTION:
        if (e->u.func.call.def->bind && e->u.func.call.bind_data) {
            /* Re-run bind over the copied constant arguments. */
            tn_func_binding *b = tn_calloc(1, sizeof *b);
            const tn_value *consts[TN_FUNC_MAX_ARGS];
            if (!b) goto fail;
            b->def = e->u.func.call.def;
            b->nargs = e->nargs;
            b->ret = e->type;
            for (uint32_t i = 0; i < e->nargs; i++) {
                b->arg_types[i] = e->args[i]->type;
                consts[i] = c->args[i]->kind == TN_EXPR_CONSTANT ? &c->args[i]->u.value : NULL;
            }
            int rc = b->def->bind(b, consts, &c->u.func.call.bind_data);
            tn_free(b);
            if (rc) goto fail;
        }
        break;
    case TN_EXPR_IN:
        if (e->u.in.nvalues) {
            c->u.in.values = tn_calloc(e->u.in.nvalues, sizeof(tn_value));
            if (!c->u.in.values) goto fail;
            for (uint32_t i = 0; i < e->u.in.nvalues; i++) {
                if (value_copy_owned(&c->u.in.values[i], &e->u.in.values[i])) goto fail;
                c->u.in.nvalues++;
            }
        }
        break;
    default: break;
    }
    return c;
fail:
    tn_expr_free(c);
    return NULL;
}

bool tn_expr_is_constant(const tn_expr *e) {
    if (e->kind == TN_EXPR_COLUMN) return false;
    if (e->kind == TN_EXPR_FUNCTION && (e->u.func.call.def->flags & TN_FUNC_VOLATILE)) return false;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (!tn_expr_is_constant(e->args[i])) return false;
    return true;
}

static const char *kind_name(tn_expr_kind k) {
    static const char *names[] = {"const", "col", "func", "CAST", "CASE", "AND", "OR", "NOT",
                                  "IS NULL", "IS NOT NULL", "IN", "COALESCE", "NULLIF"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

int tn_expr_to_text(tn_buf *out, const tn_expr *e) {
    int rc = 0;
    switch (e->kind) {
    case TN_EXPR_CONSTANT:
        if (e->u.value.is_null) return tn_buf_append(out, "NULL", 4);
        if (tn_type_is_string(e->type)) rc = tn_buf_append_byte(out, '\'');
        if (!rc) rc = tn_value_to_text(out, &e->u.value);
        if (rc == 1) rc = 0;
        if (!rc && tn_type_is_string(e->type)) rc = tn_buf_append_byte(out, '\'');
        return rc;
    case TN_EXPR_COLUMN: return tn_buf_printf(out, "#%u", e->u.column);
    case TN_EXPR_FUNCTION: rc = tn_buf_printf(out, "%s(", e->u.func.call.def->name); break;
    case TN_EXPR_CAST: {
        char t[64];
        rc = tn_buf_printf(out, "%s(", e->u.try_cast ? "TRY_CAST" : "CAST");
        if (!rc) rc = tn_expr_to_text(out, e->args[0]);
        if (!rc) rc = tn_buf_printf(out, " AS %s)", tn_type_format(e->type, t, sizeof t));
        return rc;
    }
    default: rc = tn_buf_printf(out, "%s(", kind_name(e->kind)); break;
    }
    for (uint32_t i = 0; i < e->nargs && !rc; i++) {
        if (i) rc = tn_buf_append(out, ", ", 2);
        if (!rc) rc = tn_expr_to_text(out, e->args[i]);
    }
    if (!rc && e->kind == TN_EXPR_IN) {
        for (uint32_t i = 0; i < e->u.in.nvalues && !rc; i++) {
            rc = tn_buf_append(out, i ? ", " : ", [", 2 + (i == 0));
            if (!rc) rc = tn_value_to_text(out, &e->u.in.values[i]);
            if (rc == 1) rc = 0;
        }
        if (!rc && e->u.in.nvalues) rc = tn_buf_append_byte(out, ']');
    }
    if (!rc) rc = tn_buf_append_byte(out, ')');
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Evaluation state: one node per expression node.
 */
typedef struct node_state node_state;
struct node_state {
    tn_vector scratch;          /* this node's result (when not a column reference) */
    bool has_scratch;
    tn_vector aux;              /* CASE: which rows are decided (BOOLEAN) */
    bool has_aux;
    tn_vector view;             /* CAST between equal storage: the child's vector retyped (borrowed) */
    node_state *children;
    uint32_t nchildren;
    tn_vector **argv;           /* children's result vectors during evaluation */
    /* IN over an integer-stored type: the list as a hash set (open addressing; empty slots hold
     * INT64_MIN, whose own presence is in_has_min) */
    int64_t *in_set;
    uint32_t in_mask;
    bool in_has_min;
};

struct tn_expr_state {
    node_state root;
};

static void node_state_free(node_state *s) {
    if (s->children) {
        for (uint32_t i = 0; i < s->nchildren; i++) node_state_free(&s->children[i]);
        tn_free(s->children);
    }
    tn_free(s->argv);
    if (s->has_scratch) tn_vector_free(&s->scratch);
    if (s->has_aux) tn_vector_free(&s->aux);
    tn_free(s->in_set);
}

static inline uint32_t in_slot(int64_t x, uint32_t mask) {
    return (uint32_t)(((uint64_t)x * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static bool in_int_type(tn_type t) {
    switch (t.id) {
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT:
    case TN_TYPE_DATE: case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: return true;
    case TN_TYPE_DECIMAL: return !tn_type_is_decimal128(t);
    default: return false;
    }
}

/* The hash set of an IN list whose values all have the argument's integer-stored type. */
static int in_set_build(node_state *s, const tn_expr *e) {
    tn_type t = e->args[0]->type;
    if (!in_int_type(t) || e->u.in.nvalues < 4) return 0;
    for (uint32_t k = 0; k < e->u.in.nvalues; k++)
        if (!tn_type_equal(e->u.in.values[k].type, t)) return 0;
    uint32_t cap = 16;
    while (cap < e->u.in.nvalues * 2u) cap *= 2;
    int64_t *set = tn_malloc((size_t)cap * sizeof *set);
    if (!set) return TN_ENOMEM;
    for (uint32_t i = 0; i < cap; i++) set[i] = INT64_MIN;
    for (uint32_t k = 0; k < e->u.in.nvalues; k++) {
        int64_t x = e->u.in.values[k].u.i;
        if (x == INT64_MIN) {
            s->in_has_min = true;
            continue;
        }
        uint32_t p = in_slot(x, cap - 1);
        while (set[p] != INT64_MIN && set[p] != x) p = (p + 1) & (cap - 1);
        set[p] = x;
    }
    s->in_set = set;
    s->in_mask = cap - 1;
    return 0;
}

static inline bool in_set_has(const node_state *s, int64_t x) {
    if (x == INT64_MIN) return s->in_has_min;
    for (uint32_t p = in_slot(x, s->in_mask);; p = (p + 1) & s->in_mask) {
        if (s->in_set[p] == x) return true;
        if (s->in_set[p] == INT64_MIN) return false;
    }
}

static int node_state_init(node_state *s, const tn_expr *e) {
    memset(s, 0, sizeof *s);
    int rc = 0;
    if (e->kind != TN_EXPR_COLUMN) {
        tn_type t = e->type.id == TN_TYPE_NULL ? tn_type_make(TN_TYPE_BOOLEAN) : e->type;
        rc = tn_vector_init(&s->scratch, t, e->kind == TN_EXPR_CONSTANT ? 1 : TN_VECTOR_SIZE);
        if (rc) return rc;
        s->has_scratch = true;
        if (e->kind == TN_EXPR_CONSTANT) {
            s->scratch.count = 1;
            rc = tn_vector_set_value(&s->scratch, 0, &e->u.value);
            if (rc) return rc;
        }
    }
    if (e->kind == TN_EXPR_CASE || e->kind == TN_EXPR_COALESCE) {
        rc = tn_vector_init(&s->aux, tn_type_make(TN_TYPE_BOOLEAN), TN_VECTOR_SIZE);
        if (rc) return rc;
        s->has_aux = true;
    }
    if (e->kind == TN_EXPR_IN && e->nargs == 1 && (rc = in_set_build(s, e))) return rc;
    if (e->nargs) {
        s->children = tn_calloc(e->nargs, sizeof *s->children);
        s->argv = tn_calloc(e->nargs, sizeof *s->argv);
        if (!s->children || !s->argv) return TN_ENOMEM;
        s->nchildren = e->nargs;
        for (uint32_t i = 0; i < e->nargs; i++) {
            rc = node_state_init(&s->children[i], e->args[i]);
            if (rc) return rc;
        }
    }
    return 0;
}

int tn_expr_state_create(const tn_expr *e, tn_expr_state **out) {
    *out = NULL;
    tn_expr_state *st = tn_calloc(1, sizeof *st);
    if (!st) return TN_ENOMEM;
    int rc = node_state_init(&st->root, e);
    if (rc) {
        node_state_free(&st->root);
        tn_free(st);
        return rc;
    }
    *out = st;
    return 0;
}

void tn_expr_state_free(tn_expr_state *state) {
    if (!state) return;
    node_state_free(&state->root);
    tn_free(state);
}

/* ---------------------------------------------------------------------------------------------
 * Evaluation proper.
 */
static int eval_node(const tn_expr *e, const tn_chunk *in, node_state *s, tn_vector **res);

/* Number of rows a node with these argument results produces: 1 if all are constant. */
static uint32_t result_rows(tn_vector *const *argv, uint32_t n, uint32_t rows) {
    for (uint32_t i = 0; i < n; i++)
        if (argv[i]->count != 1) return rows;
    return n ? 1 : rows;
}

static int eval_function(const tn_expr *e, const tn_chunk *in, node_state *s, tn_vector **res) {
    int rc = 0;
    const tn_func_def *def = e->u.func.call.def;
    for (uint32_t i = 0; i < e->nargs; i++) {
        rc = eval_node(e->args[i], in, &s->children[i], &s->argv[i]);
        if (rc) return rc;
    }
    uint32_t rows = (def->flags & TN_FUNC_PER_ROW) ? in->count
                    : e->nargs ? result_rows(s->argv, e->nargs, in->count) : 1;
    tn_vector *out = &s->scratch;
    rc = prep_vector(out, rows);
    if (rc) return rc;
    *res = out;
    if (!(def->flags & TN_FUNC_SPECIAL_NULLS)) {
        bool all_null = false;
        for (uint32_t i = 0; i < e->nargs; i++) {
            tn_vector *a = s->argv[i];
            if (!a->validity) continue;
            if (a->count == 1 && rows != 1) {
                if (!tn_vector_is_valid(a, 0)) all_null = true;
                continue;
            }
            rc = tn_vector_ensure_validity(out);
            if (rc) return rc;
            size_t nw = vwords(rows);
            for (size_t w = 0; w < nw; w++) out->validity[w] &= a->validity[w];
        }
        if (all_null) {
            rc = tn_vector_ensure_validity(out);
            if (rc) return rc;
            memset(out->validity, 0, vwords(rows) * 8);
            memset(out->data, 0, tn_type_width(out->type) * rows);
            return 0;
        }
    }
    rc = def->fn(&e->u.func.call, s->argv, e->nargs, rows, out);
    if (rc && tn_error_class_len(tn_error_message())) return rc;   /* "Conversion Error: ..." as DuckDB */
    if (rc) return tn_error_prefix(rc, "%s", def->name[0] >= 'a' && def->name[0] <= 'z' ? def->name : "operator");
    return 0;
}

/* Bit i of the result: row i is TRUE (valid and nonzero). */
static inline bool bool_true(const tn_vector *v, uint32_t i) {
    uint32_t r = TN_ARG_IDX(v, i);
    return tn_vector_is_valid(v, r) && ((const uint8_t *)v->data)[r];
}

static int eval_logic(const tn_expr *e, const tn_chunk *in, node_state *s, tn_vector **res) {
    int rc = 0;
    for (uint32_t i = 0; i < e->nargs; i++) {
        rc = eval_node(e->args[i], in, &s->children[i], &s->argv[i]);
        if (rc) return rc;
    }
    uint32_t rows = result_rows(s->argv, e->nargs, in->count);
    tn_vector *out = &s->scratch;
    rc = prep_vector(out, rows);
    if (rc) return rc;
    rc = tn_vector_ensure_validity(out);
    if (rc) return rc;
    *res = out;
    uint8_t *d = out->data;
    bool is_and = e->kind == TN_EXPR_AND;
    if (e->kind == TN_EXPR_NOT) {
        tn_vector *a = s->argv[0];
        const uint8_t *ad = a->data;
        for (uint32_t i = 0; i < rows; i++) d[i] = !ad[i];
        if (a->validity) memcpy(out->validity, a->validity, vwords(rows) * 8);
        return 0;
    }
    /* AND: FALSE if any arg is FALSE, else NULL if any is NULL, else TRUE (OR dually). */
    for (uint32_t i = 0; i < rows; i++) {
        bool decided = false, any_null = false;
        for (uint32_t k = 0; k < e->nargs; k++) {
            tn_vector *a = s->argv[k];
            uint32_t r = TN_ARG_IDX(a, i);
            if (!tn_vector_is_valid(a, r)) {
                any_null = true;
                continue;
            }
            bool v = ((const uint8_t *)a->data)[r] != 0;
            if (v != is_and) {
                decided = true;
                break;
            }
        }
        d[i] = decided ? !is_and : is_and;
        tn_vector_set_valid_bit(out, i, decided || !any_null);
    }
    return 0;
}

static int in_compare_row(const tn_vector *x, uint32_t r, const tn_value *vals, uint32_t n) {
    if (n > 0 && x->type.id == TN_TYPE_VARCHAR && vals[0].type.id == TN_TYPE_VARCHAR) {
        /* the byte order of tn_value_compare on strings, without building a value per step */
        tn_str a = ((const tn_str *)x->data)[r];
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            tn_str b = vals[mid].u.s;
            uint32_t m = a.len < b.len ? a.len : b.len;
            int c = m ? memcmp(b.ptr, a.ptr, m) : 0;
            if (c == 0) c = (b.len > a.len) - (b.len < a.len);
            if (c == 0) return 1;
            if (c < 0) lo = mid + 1;
            else hi = mid;
        }
        return 0;
    }
    tn_value v;
    tn_vector_get_value(x, r, &v);
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = tn_value_compare(&vals[mid], &v);
        if (c == 0) return 1;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

static int eval_in(const tn_expr *e, const tn_chunk *in, node_state *s, tn_vector **res) {
    int rc = eval_node(e->args[0], in, &s->children[0], &s->argv[0]);
    if (rc) return rc;
    tn_vector *x = s->argv[0];
    uint32_t rows = x->count == 1 ? 1 : in->count;
    tn_vector *out = &s->scratch;
    rc = prep_vector(out, rows);
    if (rc) return rc;
    rc = tn_vector_ensure_validity(out);
    if (rc) return rc;
    *res = out;
    uint8_t *d = out->data;
    for (uint32_t i = 0; i < rows; i++) {
        if (!tn_vector_is_valid(x, i)) {
            d[i] = 0;
            tn_vector_set_valid_bit(out, i, false);
            continue;
        }
        int found = s->in_set && tn_type_equal(x->type, e->args[0]->type)
                        ? in_set_has(s, tn_vector_int_at(x, i))
                        : in_compare_row(x, i, e->u.in.values, e->u.in.nvalues);
        d[i] = (uint8_t)found;
        tn_vector_set_valid_bit(out, i, found || !e->u.in.has_null);
    }
    return 0;
}

static int eval_case(const tn_expr *e, const tn_chunk *in, node_state *s, tn_vector **res) {
    int rc = 0;
    uint32_t nwhen = e->nargs / 2;
    for (uint32_t i = 0; i < e->nargs; i++) {
        rc = eval_node(e->args[i], in, &s->children[i], &s->argv[i]);
        if (rc) return rc;
    }
    uint32_t rows = result_rows(s->argv, e->nargs, in->count);
    tn_vector *out = &s->scratch;
    rc = prep_vector(out, rows);
    if (rc) return rc;
    rc = tn_vector_ensure_validity(out);
    if (rc) return rc;
    rc = prep_vector(&s->aux, rows);
    if (rc) return rc;
    *res = out;
    uint8_t *done = s->aux.data;
    memset(done, 0, rows);
    memset(out->validity, 0, vwords(rows) * 8);
    memset(out->data, 0, tn_type_width(out->type) * rows);
    for (uint32_t k = 0; k < nwhen; k++) {
        tn_vector *c = s->argv[2 * k], *v = s->argv[2 * k + 1];
        for (uint32_t i = 0; i < rows; i++) {
            if (done[i] || !bool_true(c, i)) continue;
            done[i] = 1;
            copy_row(out, i, v, TN_ARG_IDX(v, i));
        }
    }
    if (e->u.has_else) {
        tn_vector *v = s->argv[e->nargs - 1];
        for (uint32_t i = 0; i < rows; i++)
            if (!done[i]) copy_row(out, i, v, TN_ARG_IDX(v, i));
    }
    return 0;
}

static int eval_coalesce(const tn_expr *e, const tn_chunk *in, node_state *s, tn_vector **res) {
    int rc = 0;
    uint32_t rows = 1;
    /* Evaluate until every row has a value (later arguments are then skipped). */
    tn_vector *out = &s->scratch;
    uint32_t evaluated = 0;
    for (uint32_t i = 0; i < e->nargs; i++) {
        rc = eval_node(e->args[i], in, &s->children[i], &s->argv[i]);
        if (rc) return rc;
        evaluated = i + 1;
        if (s->argv[i]->count != 1) rows = in->count;
        if (s->argv[i]->count == 1 && tn_vector_is_valid(s->argv[i], 0)) break;
    }
    rc = prep_vector(out, rows);
    if (rc) return rc;
    rc = tn_vector_ensure_validity(out);
    if (rc) return rc;
    memset(out->validity, 0, vwords(rows) * 8);
    memset(out->data, 0, tn_type_width(out->type) * rows);
    *res = out;
    for (uint32_t i = 0; i < rows; i++) {
        for (uint32_t k = 0; k < evaluated; k++) {
            tn_vector *v = s->argv[k];
            uint32_t r = TN_ARG_IDX(v, i);
            if (tn_vector_is_valid(v, r)) {
                copy_row(out, i, v, r);
                break;
            }
        }
    }
    return 0;
}

static int eval_nullif(const tn_expr *e, const tn_chunk *in, node_state *s, tn_vector **res) {
    int rc = 0;
    for (uint32_t i = 0; i < 2; i++) {
        rc = eval_node(e->args[i], in, &s->children[i], &s->argv[i]);
        if (rc) return rc;
    }
    uint32_t rows = result_rows(s->argv, 2, in->count);
    tn_vector *out = &s->scratch, *a = s->argv[0], *eq = s->argv[1];
    rc = prep_vector(out, rows);
    if (rc) return rc;
    rc = tn_vector_ensure_validity(out);
    if (rc) return rc;
    *res = out;
    for (uint32_t i = 0; i < rows; i++) {
        if (bool_true(eq, i)) {
            tn_vector_set_valid_bit(out, i, false);
            memset((uint8_t *)out->data + i * tn_type_width(out->type), 0, tn_type_width(out->type));
        } else {
            copy_row(out, i, a, TN_ARG_IDX(a, i));
        }
    }
    return 0;
}

/* Whether a cast from a to b keeps every value's bytes and cannot fail: a DECIMAL widened at
 * the same scale within the same storage (the binder casts DECIMAL(15,2) to DECIMAL(16,2)
 * before an addition). */
static bool same_storage(tn_type a, tn_type b) {
    return a.id == TN_TYPE_DECIMAL && b.id == TN_TYPE_DECIMAL && a.scale == b.scale &&
           b.precision >= a.precision && tn_type_is_decimal128(a) == tn_type_is_decimal128(b);
}

static int eval_node(const tn_expr *e, const tn_chunk *in, node_state *s, tn_vector **res) {
    int rc = 0;
    switch (e->kind) {
    case TN_EXPR_CONSTANT: *res = &s->scratch; return 0;
    case TN_EXPR_COLUMN:
        if (e->u.column >= in->ncols)
            return tn_error_set(TN_EINTERNAL, "expression references column %u of a %u-column chunk",
                                e->u.column, in->ncols);
        *res = &in->cols[e->u.column];
        return 0;
    case TN_EXPR_FUNCTION: return eval_function(e, in, s, res);
    case TN_EXPR_CAST: {
        tn_vector *src;
        rc = eval_node(e->args[0], in, &s->children[0], &src);
        if (rc) return rc;
        if (same_storage(src->type, e->type)) {
            s->view = *src;             /* no copy: the values are the same bytes */
            s->view.type = e->type;
            *res = &s->view;
            return 0;
        }
        rc = tn_cast_vector(src, &s->scratch, e->u.try_cast);
        *res = &s->scratch;
        return rc;
    }
    case TN_EXPR_AND:
    case TN_EXPR_OR:
    case TN_EXPR_NOT: return eval_logic(e, in, s, res);
    case TN_EXPR_IS_NULL:
    case TN_EXPR_IS_NOT_NULL: {
        tn_vector *a;
        rc = eval_node(e->args[0], in, &s->children[0], &a);
        if (rc) return rc;
        uint32_t rows = a->count == 1 ? 1 : in->count;
        rc = prep_vector(&s->scratch, rows);
        if (rc) return rc;
        uint8_t *d = s->scratch.data;
        bool want_null = e->kind == TN_EXPR_IS_NULL;
        for (uint32_t i = 0; i < rows; i++) d[i] = tn_vector_is_valid(a, i) != want_null;
        *res = &s->scratch;
        return 0;
    }
    case TN_EXPR_IN: return eval_in(e, in, s, res);
    case TN_EXPR_CASE: return eval_case(e, in, s, res);
    case TN_EXPR_COALESCE: return eval_coalesce(e, in, s, res);
    case TN_EXPR_NULLIF: return eval_nullif(e, in, s, res);
    }
    return tn_error_set(TN_EINTERNAL, "unknown expression kind %d", (int)e->kind);
}

int tn_expr_eval(const tn_expr *e, const tn_chunk *input, tn_vector *out, tn_expr_state *state) {
    tn_vector *res = NULL;
    int rc = eval_node(e, input, &state->root, &res);
    if (rc) return rc;
    if (!tn_type_equal(out->type, e->type) && e->type.id != TN_TYPE_NULL)
        return tn_error_set(TN_EINTERNAL, "tn_expr_eval: output vector has the wrong type");
    rc = prep_vector(out, input->count);
    if (rc) return rc;
    if (e->type.id == TN_TYPE_NULL || res->type.id != out->type.id) {
        rc = tn_vector_ensure_validity(out);
        if (rc) return rc;
        memset(out->validity, 0, vwords(input->count) * 8);
        return 0;
    }
    return copy_vector(out, res, input->count);
}

int tn_expr_eval_ref(const tn_expr *e, const tn_chunk *input, tn_vector *buf, tn_expr_state *state,
                     const tn_vector **out) {
    tn_vector *res = NULL;
    int rc = eval_node(e, input, &state->root, &res);
    if (rc) return rc;
    if (res->count == input->count && e->type.id != TN_TYPE_NULL && tn_type_equal(res->type, e->type) &&
        !res->children) {
        *out = res;
        return 0;
    }
    *out = buf;
    rc = prep_vector(buf, input->count);
    if (rc) return rc;
    if (e->type.id == TN_TYPE_NULL || res->type.id != buf->type.id) {
        rc = tn_vector_ensure_validity(buf);
        if (rc) return rc;
        memset(buf->validity, 0, vwords(input->count) * 8);
        return 0;
    }
    return copy_vector(buf, res, input->count);
}

int tn_expr_filter(const tn_expr *pred, const tn_chunk *input, uint32_t *sel, uint32_t *nsel,
                   tn_expr_state *state) {
    tn_vector *res = NULL;
    *nsel = 0;
    int rc = eval_node(pred, input, &state->root, &res);
    if (rc) return rc;
    if (res->type.id != TN_TYPE_BOOLEAN)
        return tn_error_set(TN_EINTERNAL, "filter predicate is not BOOLEAN");
    uint32_t n = 0;
    if (res->count == 1 && input->count != 1) {
        if (bool_true(res, 0))
            for (uint32_t i = 0; i < input->count; i++) sel[n++] = i;
        *nsel = n;
        return 0;
    }
    const uint8_t *d = res->data;
    if (!res->validity) {
        for (uint32_t i = 0; i < input->count; i++) {
            sel[n] = i;
            n += d[i] != 0;
        }
    } else {
        for (uint32_t w = 0; w * 64 < input->count; w++) {
            uint64_t bits = res->validity[w];
            uint32_t base = w * 64, end = base + 64 < input->count ? base + 64 : input->count;
            if (bits == 0) continue;
            for (uint32_t i = base; i < end; i++) {
                sel[n] = i;
                n += (uint32_t)(((bits >> (i - base)) & 1) & (d[i] != 0));
            }
        }
    }
    *nsel = n;
    return 0;
}

int tn_expr_fold(const tn_expr *e, tn_arena *arena, tn_value *out) {
    tn_expr_state *st = NULL;
    tn_chunk c = {0, 1, NULL};
    tn_vector v;
    memset(out, 0, sizeof *out);
    int rc = tn_vector_init(&v, e->type.id == TN_TYPE_NULL ? tn_type_make(TN_TYPE_BOOLEAN) : e->type, 1);
    if (rc) return rc;
    rc = tn_expr_state_create(e, &st);
    if (rc) goto cleanup;
    rc = tn_expr_eval(e, &c, &v, st);
    if (rc) goto cleanup;
    tn_vector_get_value(&v, 0, out);
    out->type = e->type;
    if (e->type.id == TN_TYPE_NULL) out->is_null = true;
    if (!out->is_null && tn_type_is_nested(e->type)) {
        rc = tn_vector_row_to_arena(arena, &v, 0, &out->u.ref.vec);
        out->u.ref.row = 0;
    } else if (!out->is_null && tn_type_is_string(e->type)) {
        char *p = tn_arena_alloc(arena, out->u.s.len ? out->u.s.len : 1);
        if (!p) {
            rc = TN_ENOMEM;
            goto cleanup;
        }
        if (out->u.s.len) memcpy(p, out->u.s.ptr, out->u.s.len);
        out->u.s.ptr = p;
    }
cleanup:
    tn_expr_state_free(st);
    tn_vector_free(&v);
    return rc;
}
