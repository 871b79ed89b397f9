/*
 * sql/agg_ordered.c: aggregates with ORDER BY inside the call (DuckDB): string_agg(x, sep
 * ORDER BY k), list / array_agg / collect_list (x ORDER BY k), first / last / any_value (x
 * ORDER BY k), min / max of nested values (one row kept), sum / avg (x ORDER BY k) of DOUBLE values (added in that order, as DuckDB does:
 * floating-point sums depend on it), and first / last without ORDER BY (arrival order, NULLs included as in DuckDB;
 * only one row kept). The binder (bind_agg_order.c) packs the argument and the keys into one STRUCT
 * (x, k1, ..., kn); the state of a group keeps its rows, per-thread states merge by appending,
 * and finalize sorts the group's rows by the keys (stable, NULLs where the call says) and then
 * computes the aggregate in that order. DISTINCT (whose keys must be the argument itself, as
 * DuckDB requires) drops equal neighbours after the sort.
 */
#include <string.h>

#include "sql/aggregates.h"

typedef struct ostate {
    tn_vector *rows;       /* STRUCT (x, keys...); NULL until the first row */
} ostate;

/* min / max: whether row b of src beats row a of the kept rows (values compared as DuckDB
 * orders nested values). */
static bool beats(const tn_agg_order *o, const tn_vector *kept, uint32_t a, const tn_vector *src, uint32_t b) {
    tn_value x, y;
    tn_vector_get_value(&src->children[0], b, &x);
    tn_vector_get_value(&kept->children[0], a, &y);
    int c = tn_value_compare(&x, &y);
    return o->mode == TN_AGG_ORDER_MIN ? c < 0 : c > 0;
}

static int update(const tn_agg_call *call, uint8_t *states, const uint32_t *gids, const tn_vector *v, uint32_t n,
                  const uint8_t *mask) {
    size_t sz = call->fn->state_size;
    const tn_agg_order *o = call->order;
    /* first(x) / last(x) without ORDER BY: arrival order, one row kept */
    bool one = o->nkeys == 0 && !o->skip_nulls && (o->mode == TN_AGG_ORDER_FIRST || o->mode == TN_AGG_ORDER_LAST);
    for (uint32_t i = 0; i < n; i++) {
        if (mask && !mask[i]) continue;
        ostate *st = (ostate *)(states + (size_t)gids[i] * sz);
        if (one && st->rows && st->rows->count) {
            if (o->mode == TN_AGG_ORDER_FIRST) continue;
            tn_vector_reset(st->rows);
        }
        if (o->mode == TN_AGG_ORDER_MIN || o->mode == TN_AGG_ORDER_MAX) {
            if (!tn_vector_is_valid(&v->children[0], i) || !tn_vector_is_valid(v, i)) continue;
            if (st->rows && st->rows->count) {
                if (!beats(o, st->rows, 0, v, i)) continue;
                tn_vector_reset(st->rows);
            }
        }
        if (!st->rows) {
            if (!(st->rows = tn_calloc(1, sizeof *st->rows))) return TN_ENOMEM;
            int rc = tn_vector_init(st->rows, v->type, 4);
            if (rc) {
                tn_free(st->rows);
                st->rows = NULL;
                return rc;
            }
        }
        int rc = tn_vector_append_rows(st->rows, v, &i, 1);
        if (rc) return rc;
    }
    return 0;
}

static int merge(const tn_agg_call *call, void *dp, void *sp) {
    ostate *d = dp, *s = sp;
    if (!s->rows) return 0;
    if (!d->rows) {
        d->rows = s->rows;
        s->rows = NULL;
        return 0;
    }
    const tn_agg_order *o = call->order;
    if (o->mode == TN_AGG_ORDER_MIN || o->mode == TN_AGG_ORDER_MAX) {
        if (!s->rows->count || (d->rows->count && !beats(o, d->rows, 0, s->rows, 0))) return 0;
        tn_vector_reset(d->rows);
        return tn_vector_append_rows(d->rows, s->rows, NULL, 1);
    }
    if (o->nkeys == 0 && !o->skip_nulls && (o->mode == TN_AGG_ORDER_FIRST || o->mode == TN_AGG_ORDER_LAST)) {
        if (o->mode == TN_AGG_ORDER_FIRST) return 0;            /* one row kept, as in update */
        tn_vector_reset(d->rows);
    }
    return tn_vector_append_rows(d->rows, s->rows, NULL, s->rows->count);
}

/* Row order by the keys (fields 1..n), then by arrival (stable). */
static int key_cmp(const tn_agg_order *o, const tn_vector *rows, uint32_t a, uint32_t b) {
    for (uint32_t k = 0; k < o->nkeys; k++) {
        const tn_vector *f = &rows->children[k + 1];
        bool va = tn_vector_is_valid(f, a), vb = tn_vector_is_valid(f, b);
        int c;
        if (!va || !vb) {
            if (va == vb) continue;
            c = !va ? -1 : 1;                       /* NULL first, then flipped for NULLS LAST */
            return o->nulls_first[k] ? c : -c;
        }
        tn_value x, y;
        tn_vector_get_value(f, a, &x);
        tn_vector_get_value(f, b, &y);
        c = tn_value_compare(&x, &y);
        if (c) return o->desc[k] ? -c : c;
    }
    return 0;
}

/* Stable merge sort of idx[0..n) with tmp as scratch. */
static void sort_rows(const tn_agg_order *o, const tn_vector *rows, uint32_t *idx, uint32_t *tmp, uint32_t n) {
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = key_cmp(o, rows, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
            while (i < mid) tmp[k++] = idx[i++];
            while (j < hi) tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
}

/* Whether x rows a and b are equal (both NULL counts as equal). */
static bool x_equal(const tn_vector *x, uint32_t a, uint32_t b) {
    bool va = tn_vector_is_valid(x, a), vb = tn_vector_is_valid(x, b);
    if (!va || !vb) return va == vb;
    tn_value p, q;
    tn_vector_get_value(x, a, &p);
    tn_vector_get_value(x, b, &q);
    return tn_value_compare(&p, &q) == 0;
}

static int finalize(const tn_agg_call *call, void *sp, tn_vector *out, uint32_t row) {
    ostate *s = sp;
    const tn_agg_order *o = call->order;
    if (!s->rows || s->rows->count == 0) return tn_vector_set_null(out, row);
    uint32_t n = s->rows->count;
    const tn_vector *x = &s->rows->children[0];
    uint32_t *idx = tn_malloc(2 * (size_t)n * sizeof *idx);
    if (!idx) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) idx[i] = i;
    sort_rows(o, s->rows, idx, idx + n, n);
    uint32_t m = 0;                               /* the rows the aggregate takes, in order */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = idx[i];
        bool valid = tn_vector_is_valid(x, r);
        if (!valid && o->skip_nulls) continue;
        if (o->distinct && m && x_equal(x, idx[m - 1], r)) continue;
        idx[m++] = r;
    }
    int rc = 0;
    switch (o->mode) {
    case TN_AGG_ORDER_STRING_AGG: {
        if (!m) { rc = tn_vector_set_null(out, row); break; }
        tn_buf b = TN_BUF_INIT;
        for (uint32_t i = 0; i < m && !rc; i++) {
            const tn_str *v = &((const tn_str *)x->data)[idx[i]];
            if (i && o->sep_len) rc = tn_buf_append(&b, o->sep, o->sep_len);
            if (!rc && v->len) rc = tn_buf_append(&b, v->ptr, v->len);
        }
        if (!rc) rc = tn_vector_set_str(out, row, b.data ? (const char *)b.data : "", b.len);
        if (!rc && out->validity) tn_vector_set_valid_bit(out, row, true);
        tn_buf_free(&b);
        break;
    }
    case TN_AGG_ORDER_LIST: {
        if (!m) { rc = tn_vector_set_null(out, row); break; }
        tn_vector *child = &out->children[0];
        uint32_t base = child->count;
        rc = tn_vector_append_rows(child, x, idx, m);
        if (rc) break;
        tn_list_entry *e = &((tn_list_entry *)out->data)[row];
        e->offset = base;
        e->length = m;
        if (out->validity) tn_vector_set_valid_bit(out, row, true);
        break;
    }
    case TN_AGG_ORDER_SUM:
    case TN_AGG_ORDER_AVG: {
        if (!m) { rc = tn_vector_set_null(out, row); break; }
        double sum = 0;
        for (uint32_t i = 0; i < m; i++) sum += ((const double *)x->data)[idx[i]];
        ((double *)out->data)[row] = o->mode == TN_AGG_ORDER_AVG ? sum / m : sum;
        if (out->validity) tn_vector_set_valid_bit(out, row, true);
        break;
    }
    case TN_AGG_ORDER_MIN:
    case TN_AGG_ORDER_MAX:
    case TN_AGG_ORDER_FIRST:
    case TN_AGG_ORDER_LAST:
        if (!m) { rc = tn_vector_set_null(out, row); break; }
        rc = tn_vector_copy_row(out, row, x, idx[o->mode == TN_AGG_ORDER_FIRST ? 0 : m - 1]);
        break;
    }
    tn_free(idx);
    return rc;
}

static void destroy(void *sp) {
    ostate *s = sp;
    if (s->rows) {
        tn_vector_free(s->rows);
        tn_free(s->rows);
        s->rows = NULL;
    }
}

const tn_agg_func tn_agg_ordered = {"#ordered", TN_AGG_ANY_TYPE, TN_AGG_ANY_TYPE, false, sizeof(ostate), 0,
                                    update, merge, finalize, destroy, false, false};
