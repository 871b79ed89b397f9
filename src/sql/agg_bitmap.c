/*
 * sql/agg_bitmap.c: the bitmap aggregates, under the names of the systems users come from:
 * the seed's bitmap(col) (OR of RoaringBitmap bytes -> BIGINT cardinality), Doris/StarRocks
 * bitmap_union[_count], bitmap_intersect, bitmap_xor_agg, bitmap_agg, bitmap_union_int,
 * ClickHouse groupBitmap*, Paimon rbm32/rbm64, and intersect_count (a rewrite into the others,
 * below). State per group: for the ORs a tn_bitmap_acc (each value's bytes validated and OR-ed
 * in container by container; no bitmap decoded or re-serialized per row), for AND/XOR/integers a
 * tn_bitmap built in place; per-thread states merge by OR/AND/XOR. Bytes come from bitmap/
 * (validated decoder, Java-compatible writer).
 */
#include <stdio.h>
#include <string.h>

#include "bitmap/bitmap.h"
#include "sql/aggregates.h"
#include "sql/ast.h"

typedef struct bstate {
    tn_bitmap *bm;         /* AND, XOR, from integers */
    tn_bitmap_acc *acc;    /* OR of bitmap values */
    uint8_t seen;          /* a non-NULL value was folded in */
} bstate;

enum {
    OP_OR = 1,         /* OR of bitmap values */
    OP_AND,            /* AND of bitmap values (the first initializes) */
    OP_XOR,
    OP_BUILD,          /* bitmap of integer values (negative ones ignored, as StarRocks) */
    OP_BUILD_SIGNED,   /* bitmap of any BIGINT values, sign bit flipped (count(DISTINCT x)) */
};

/* How the result is given: cardinality, bytes (32-bit when it fits), 32-bit or 64-bit bytes;
 * and what no input gives: empty bitmap (Doris) or NULL (Paimon's field aggregates). */
enum { R_COUNT = 1, R_BYTES, R_BYTES32, R_BYTES64, R_BYTES_OR_NULL, R_BYTES32_OR_NULL, R_BYTES64_OR_NULL };

#define OPR(op, r) ((op) | (r) << 8)
#define OP_OF(call) ((call)->fn->op & 0xff)
#define RES_OF(call) ((call)->fn->op >> 8)

static int value_error(const tn_agg_call *call, const tn_str *s) {
    char hex[3 * 8 + 1] = "";
    uint32_t k = s->len < 8 ? s->len : 8;
    for (uint32_t i = 0; i < k; i++) snprintf(hex + 2 * i, 3, "%02X", (unsigned char)s->ptr[i]);
    return tn_error_prefix(tn_error_code_last(), "%s(%s): value X'%s%s' (%u bytes)", call->fn->name,
                           call->arg_name ? call->arg_name : "", hex, s->len > 8 ? "..." : "", s->len);
}

static int ensure(bstate *st, int op) {
    if (op == OP_OR) {
        if (!st->acc && !(st->acc = tn_bitmap_acc_create())) return TN_ENOMEM;
    } else if (!st->bm && !(st->bm = tn_bitmap_create())) {
        return TN_ENOMEM;
    }
    return 0;
}

static int upd_bytes(const tn_agg_call *call, uint8_t *states, const uint32_t *gids, const tn_vector *v, uint32_t n,
                     const uint8_t *mask) {
    const uint32_t sz = call->fn->state_size;
    const tn_str *x = v->data;
    int op = OP_OF(call);
    for (uint32_t i = 0; i < n; i++) {
        if (mask && !mask[i]) continue;
        if (!tn_vector_is_valid(v, i)) continue;
        bstate *st = (bstate *)(states + (size_t)gids[i] * sz);
        int rc = ensure(st, op);
        if (rc) return rc;
        if (op == OP_OR) {
            rc = tn_bitmap_acc_or_bytes(st->acc, x[i].ptr, x[i].len);
        } else {
            tn_bitmap *t = NULL;
            rc = tn_bitmap_decode(&t, x[i].ptr, x[i].len);
            if (!rc) {
                if (op == OP_AND && !st->seen) {
                    tn_bitmap_free(st->bm);
                    st->bm = t;
                    t = NULL;
                } else {
                    rc = op == OP_AND ? tn_bitmap_and(st->bm, t) : tn_bitmap_xor(st->bm, t);
                }
            }
            tn_bitmap_free(t);
        }
        if (rc) return rc == TN_ECORRUPT ? value_error(call, &x[i]) : rc;
        st->seen = 1;
    }
    return 0;
}

/* Integers: OP_BUILD ignores negative values (StarRocks); OP_BUILD_SIGNED (count(DISTINCT integer),
 * the binder's choice, bind_expr.c) takes any BIGINT with the sign bit flipped, so that negative
 * values are distinct bitmap values too. */
static int upd_ints(const tn_agg_call *call, uint8_t *states, const uint32_t *gids, const tn_vector *v, uint32_t n,
                    const uint8_t *mask) {
    const uint32_t sz = call->fn->state_size;
    const int64_t *x = v->data;
    const bool is_signed = OP_OF(call) == OP_BUILD_SIGNED;
    for (uint32_t i = 0; i < n; i++) {
        if (mask && !mask[i]) continue;
        if (!tn_vector_is_valid(v, i)) continue;
        bstate *st = (bstate *)(states + (size_t)gids[i] * sz);
        int rc = ensure(st, OP_BUILD);
        if (rc) return rc;
        st->seen = 1;
        if (x[i] < 0 && !is_signed) continue;
        if ((rc = tn_bitmap_add(st->bm, is_signed ? (uint64_t)x[i] ^ ((uint64_t)1 << 63) : (uint64_t)x[i]))) return rc;
    }
    return 0;
}

static int merge(const tn_agg_call *call, void *dp, void *sp) {
    bstate *d = dp, *s = sp;
    if (!s->seen) return 0;
    if (!d->seen) {
        tn_bitmap_free(d->bm);
        tn_bitmap_acc_free(d->acc);
        *d = *s;
        s->bm = NULL;
        s->acc = NULL;
        s->seen = 0;
        return 0;
    }
    int op = OP_OF(call);
    if (op == OP_OR) return tn_bitmap_acc_merge(d->acc, s->acc);
    return op == OP_AND ? tn_bitmap_and(d->bm, s->bm) : op == OP_XOR ? tn_bitmap_xor(d->bm, s->bm) : tn_bitmap_or(d->bm, s->bm);
}

static int finalize(const tn_agg_call *call, void *sp, tn_vector *out, uint32_t row) {
    bstate *s = sp;
    tn_value v;
    memset(&v, 0, sizeof v);
    int r = RES_OF(call);
    if (r == R_COUNT) {
        v.type = tn_type_make(TN_TYPE_BIGINT);
        v.u.i = s->acc ? (int64_t)tn_bitmap_acc_cardinality(s->acc) : s->bm ? (int64_t)tn_bitmap_cardinality(s->bm) : 0;
        return tn_vector_set_value(out, row, &v);
    }
    v.type = tn_type_make(TN_TYPE_VARBINARY);
    bool or_null = r == R_BYTES_OR_NULL || r == R_BYTES32_OR_NULL || r == R_BYTES64_OR_NULL;
    if (!s->seen && (or_null || OP_OF(call) == OP_AND)) {
        v.is_null = true;
        return tn_vector_set_value(out, row, &v);
    }
    tn_bitmap_layout layout = (r == R_BYTES32 || r == R_BYTES32_OR_NULL) ? TN_BITMAP_32
                            : (r == R_BYTES64 || r == R_BYTES64_OR_NULL) ? TN_BITMAP_64 : TN_BITMAP_AUTO;
    tn_buf b = TN_BUF_INIT;
    tn_bitmap *owned = NULL;     /* the OR's set, or the empty bitmap of no input */
    const tn_bitmap *bm = s->bm;
    int rc = 0;
    if (s->acc && (rc = tn_bitmap_acc_to_bitmap(s->acc, &owned))) return rc;
    if (s->acc) bm = owned;
    if (!bm && !(bm = owned = tn_bitmap_create())) return TN_ENOMEM;
    rc = tn_bitmap_serialize(bm, layout, &b);
    if (rc) rc = tn_error_prefix(rc, "%s(%s)", call->fn->name, call->arg_name ? call->arg_name : "");
    if (!rc) {
        v.u.s.ptr = b.data ? (const char *)b.data : "";
        v.u.s.len = (uint32_t)b.len;
        rc = tn_vector_set_value(out, row, &v);
    }
    tn_buf_free(&b);
    tn_bitmap_free(owned);
    return rc;
}

static void destroy(void *sp) {
    bstate *s = sp;
    tn_bitmap_free(s->bm);
    tn_bitmap_acc_free(s->acc);
    s->bm = NULL;
    s->acc = NULL;
}

#define VB TN_TYPE_VARBINARY
#define BI TN_TYPE_BIGINT
#define BYTES_AGG(NAME, OP, R) {NAME, VB, VB, false, sizeof(bstate), OPR(OP, R), upd_bytes, merge, finalize, destroy, false, false}
#define COUNT_AGG(NAME, OP) {NAME, VB, BI, true, sizeof(bstate), OPR(OP, R_COUNT), upd_bytes, merge, finalize, destroy, false, false}
#define INT_AGG(NAME, R, RT) {NAME, BI, RT, (R) == R_COUNT, sizeof(bstate), OPR(OP_BUILD, R), upd_ints, merge, finalize, destroy, false, false}

const tn_agg_func tn_aggs_bitmap[] = {
    /* the seed's UDAF: OR, cardinality, 0 for a group of NULLs */
    COUNT_AGG("bitmap", OP_OR),
    COUNT_AGG("bitmap_union_count", OP_OR),
    COUNT_AGG("groupbitmapor", OP_OR),
    COUNT_AGG("groupbitmapmerge", OP_OR),
    COUNT_AGG("groupbitmapand", OP_AND),
    COUNT_AGG("groupbitmapxor", OP_XOR),
    BYTES_AGG("bitmap_union", OP_OR, R_BYTES),
    BYTES_AGG("bitmap_or_agg", OP_OR, R_BYTES),
    BYTES_AGG("groupbitmapmergestate", OP_OR, R_BYTES),
    BYTES_AGG("groupbitmaporstate", OP_OR, R_BYTES),
    BYTES_AGG("bitmap_intersect", OP_AND, R_BYTES),
    BYTES_AGG("bitmap_and_agg", OP_AND, R_BYTES),
    BYTES_AGG("groupbitmapandstate", OP_AND, R_BYTES),
    BYTES_AGG("bitmap_xor_agg", OP_XOR, R_BYTES),
    BYTES_AGG("group_bitmap_xor", OP_XOR, R_BYTES),
    BYTES_AGG("groupbitmapxorstate", OP_XOR, R_BYTES),
    /* Paimon's field aggregates: NULL when every value is NULL; rbm32 is 32-bit only */
    BYTES_AGG("rbm32", OP_OR, R_BYTES32_OR_NULL),
    BYTES_AGG("rbm64", OP_OR, R_BYTES64_OR_NULL),
    /* from integers */
    INT_AGG("bitmap_agg", R_BYTES, VB),
    INT_AGG("groupbitmapstate", R_BYTES, VB),
    INT_AGG("groupbitmap", R_COUNT, BI),
    INT_AGG("bitmap_union_int", R_COUNT, BI),
    /* count(DISTINCT integer column), chosen by the binder */
    {"count_distinct_bitmap", BI, BI, true, sizeof(bstate), OPR(OP_BUILD_SIGNED, R_COUNT), upd_ints, merge, finalize, destroy, false, false},
    {NULL, 0, 0, false, 0, 0, NULL, NULL, NULL, NULL, false, false},
};

/* ---------------------------------------------------------------------------------------------
 * intersect_count(b, f, v1, ..., vn) (Doris/StarRocks): the size of the AND over i of the OR of
 * the bitmaps b of the rows whose f = vi. Rewritten before binding to
 * bitmap_and_count(bitmap_union(CASE WHEN f = v1 THEN b END), ...): a value no row has gives the
 * empty bitmap, so the count is 0, as in Doris.
 */
static tn_sql_expr *new_expr(tn_arena *a, tn_sql_expr_kind kind, tn_sql_pos pos) {
    tn_sql_expr *x = tn_arena_calloc(a, sizeof *x);
    if (x) {
        x->kind = kind;
        x->pos = pos;
    }
    return x;
}

static tn_sql_expr *new_call(tn_arena *a, const char *name, tn_sql_pos pos, int nargs) {
    tn_sql_expr *x = new_expr(a, TN_SQL_E_FUNCTION, pos);
    tn_sql_ident *id = tn_arena_calloc(a, sizeof *id);
    tn_sql_expr **args = tn_arena_calloc(a, (size_t)nargs * sizeof *args);
    if (!x || !id || !args) return NULL;
    id->name = name;
    id->pos = pos;
    x->u.func.name.parts = id;
    x->u.func.name.n = 1;
    x->u.func.args.items = args;
    x->u.func.args.n = nargs;
    return x;
}

int tn_bitmap_rewrite_intersect_count(tn_arena *a, const tn_sql_expr *e, tn_sql_expr **out) {
    int n = e->u.func.args.n;
    tn_sql_expr *const *args = e->u.func.args.items;
    if (n < 3 || e->u.func.star || e->u.func.distinct || e->u.func.filter)
        return tn_error_set(TN_EINVAL, "intersect_count takes (bitmap column, filter column, value, ...): at least "
                            "three arguments");
    tn_sql_expr *top = new_call(a, n == 3 ? "bitmap_union_count" : "bitmap_and_count", e->pos, n == 3 ? 1 : n - 2);
    if (!top) return TN_ENOMEM;
    for (int i = 2; i < n; i++) {
        tn_sql_expr *eq = new_expr(a, TN_SQL_E_BINARY, args[i]->pos);
        tn_sql_expr *cs = new_expr(a, TN_SQL_E_CASE, args[i]->pos);
        tn_sql_case_when *w = tn_arena_calloc(a, sizeof *w);
        tn_sql_expr *u = n == 3 ? top : new_call(a, "bitmap_union", args[i]->pos, 1);
        if (!eq || !cs || !w || !u) return TN_ENOMEM;
        eq->u.binary.op = TN_SQL_OP_EQ;
        eq->u.binary.left = args[1];
        eq->u.binary.right = args[i];
        w->when = eq;
        w->then = args[0];
        cs->u.case_.whens = w;
        cs->u.case_.n_whens = 1;
        u->u.func.args.items[0] = cs;
        if (n > 3) top->u.func.args.items[i - 2] = u;
    }
    *out = top;
    return 0;
}
