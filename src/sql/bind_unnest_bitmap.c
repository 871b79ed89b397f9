/*
 * sql/bind_unnest_bitmap.c: the table function unnest_bitmap(b) (StarRocks): one BIGINT row per
 * value of a constant bitmap (a literal, a scalar function of constants, or an uncorrelated
 * scalar subquery such as (SELECT bitmap_union(b) FROM t)), ascending, in a column named
 * unnest_bitmap. It stands in for bitmap_to_array + UNNEST until tarn has LIST values; a
 * per-row (lateral) form is refused by the binder's "expected a constant".
 */
#include <string.h>

#include "bitmap/bitmap.h"
#include "sql/stmt.h"

bool tn_bind_is_unnest_bitmap(const char *name) { return strcmp(name, "unnest_bitmap") == 0; }

typedef struct rows_ctx {
    tn_plan *p;
    uint32_t row;
    int rc;
} rows_ctx;

static int put_row(void *ctx, uint64_t v) {
    rows_ctx *r = ctx;
    if (v > INT64_MAX) {
        r->rc = tn_error_set(TN_ELIMIT, "unnest_bitmap: value %llu does not fit in BIGINT", (unsigned long long)v);
        return 1;
    }
    tn_value x;
    memset(&x, 0, sizeof x);
    x.type = tn_type_make(TN_TYPE_BIGINT);
    x.u.i = (int64_t)v;
    r->rc = tn_expr_constant(&r->p->u.values.exprs[r->row++], &x);
    return r->rc ? 1 : 0;
}

int tn_bind_unnest_bitmap(tn_binder *b, tn_sql_tableref *t, tn_plan **out) {
    tn_sql_expr *f = t->u.function;
    if (f->u.func.args.n != 1)
        return tn_bind_error(b, f->pos, "unnest_bitmap takes one argument: a bitmap (VARBINARY)");
    tn_value v;
    int rc = tn_bind_const_value(b, f->u.func.args.items[0], &v);
    if (rc == TN_EBIND)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, f->u.func.args.items[0]->pos,
                                  "unnest_bitmap takes a constant bitmap (a literal, a function of constants or a "
                                  "scalar subquery such as (SELECT bitmap_union(b) FROM t)); unnesting each row's "
                                  "bitmap (a lateral join) is not supported yet");
    if (rc) return rc;
    if (v.type.id != TN_TYPE_VARBINARY && v.type.id != TN_TYPE_NULL)
        return tn_bind_error(b, f->pos, "unnest_bitmap takes a bitmap (VARBINARY), not %s", tn_type_id_name(v.type.id));
    tn_bitmap *bm = NULL;
    if (!v.is_null && v.type.id == TN_TYPE_VARBINARY) {
        rc = tn_bitmap_decode(&bm, v.u.s.ptr, v.u.s.len);
        if (rc) return tn_bind_error_at(b, tn_error_prefix(rc, "unnest_bitmap: argument 1"), f->pos);
    }
    uint64_t card = bm ? tn_bitmap_cardinality(bm) : 0;     /* NULL: no rows */
    if (card > UINT32_MAX - 1) {
        tn_bitmap_free(bm);
        return tn_bind_error_code(b, TN_ELIMIT, f->pos, "unnest_bitmap: %llu values are more rows than one VALUES "
                                  "list holds", (unsigned long long)card);
    }
    tn_plan *p = tn_plan_new(b->arena, TN_PLAN_VALUES, 1);
    if (!p) { tn_bitmap_free(bm); return TN_ENOMEM; }
    p->types[0] = tn_type_make(TN_TYPE_BIGINT);
    p->names[0] = "unnest_bitmap";
    p->u.values.exprs = tn_arena_calloc(b->arena, ((size_t)card + 1) * sizeof(tn_expr *));
    if (!p->u.values.exprs) { tn_bitmap_free(bm); return TN_ENOMEM; }
    rows_ctx r = {p, 0, 0};
    if (bm) tn_bitmap_iterate(bm, put_row, &r);
    tn_bitmap_free(bm);
    p->u.values.nrows = r.row;            /* what was built is freed with the plan */
    p->est_rows = (double)card;
    if (r.rc) return tn_bind_error_at(b, r.rc, f->pos);
    *out = p;
    return 0;
}
