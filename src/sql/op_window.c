/*
 * sql/op_window.c: window functions (TN_PLAN_WINDOW). The sink evaluates each function's
 * arguments, PARTITION BY and ORDER BY expressions next to the input row and keeps the rows;
 * at the end, per function, rows are split into partitions by hashing the partition keys (the
 * group table), each partition is sorted on the ORDER BY keys, and ranks, offsets (lag/lead),
 * frame values and frame aggregates are computed. Rows leave in input order with one result
 * column per function appended. Touches no other operator's state.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"
#include "sql/functions.h"

/* Columns of the kept rows that hold a function's expressions. */
typedef struct win_cols {
    int32_t arg, def;            /* -1: none */
    uint32_t *part;
    uint32_t *order;
} win_cols;

typedef struct win_shared {
    tn_exec *ex;
    tn_plan *node;
    tn_collection *result;
    uint32_t nin;                /* input columns */
    uint32_t nextra;             /* evaluated expressions kept after them */
    const tn_expr **extra;
    tn_type *types;              /* nin + nextra */
    win_cols *cols;              /* per function */
} win_shared;

typedef struct win_local {
    tn_collection c;
    tn_expr_state **st;
    tn_vector *buf;
    tn_vector *view;             /* nin + nextra */
} win_local;

/* Column holding expression e: the input column itself, or a new evaluated one. */
static uint32_t add_expr(win_shared *sh, const tn_expr *e) {
    if (e->kind == TN_EXPR_COLUMN) return e->u.column;
    for (uint32_t j = 0; j < sh->nextra; j++)
        if (sh->extra[j] == e) return sh->nin + j;
    sh->extra[sh->nextra] = e;
    sh->types[sh->nin + sh->nextra] = e->type;
    return sh->nin + sh->nextra++;
}

static int win_init(tn_sink *sink, void **state) {
    win_shared *sh = sink->shared;
    win_local *l = tn_calloc(1, sizeof *l);
    if (!l) return TN_ENOMEM;
    *state = l;
    l->st = tn_calloc(sh->nextra + 1, sizeof *l->st);
    l->buf = tn_calloc(sh->nextra + 1, sizeof *l->buf);
    l->view = tn_calloc(sh->nin + sh->nextra + 1, sizeof *l->view);
    if (!l->st || !l->buf || !l->view) return TN_ENOMEM;
    int rc = tn_collection_init(&l->c, sh->nin + sh->nextra, sh->types);
    for (uint32_t j = 0; j < sh->nextra && !rc; j++) {
        rc = tn_expr_state_create(sh->extra[j], &l->st[j]);
        if (!rc) rc = tn_vector_init(&l->buf[j], sh->extra[j]->type, TN_VECTOR_SIZE);
    }
    return rc;
}

static void win_free_local(tn_sink *sink, void *state) {
    win_shared *sh = sink->shared;
    win_local *l = state;
    if (!l) return;
    tn_collection_free(&l->c);
    for (uint32_t j = 0; j < sh->nextra; j++) {
        if (l->st) tn_expr_state_free(l->st[j]);
        if (l->buf && l->buf[j].data) tn_vector_free(&l->buf[j]);
    }
    tn_free(l->st);
    tn_free(l->buf);
    tn_free(l->view);
    tn_free(l);
}

static int win_consume(tn_sink *sink, void *state, uint32_t morsel, const tn_chunk *in) {
    win_shared *sh = sink->shared;
    win_local *l = state;
    int rc = 0;
    for (uint32_t k = 0; k < sh->nin; k++) l->view[k] = in->cols[k];
    for (uint32_t j = 0; j < sh->nextra && !rc; j++) {
        if (l->buf[j].capacity < in->count) rc = tn_vector_reserve(&l->buf[j], in->count);
        if (!rc) rc = tn_expr_eval(sh->extra[j], in, &l->buf[j], l->st[j]);
        l->view[sh->nin + j] = l->buf[j];
    }
    if (rc) return rc;
    tn_chunk v = {sh->nin + sh->nextra, in->count, l->view};
    uint32_t before = l->c.nchunks;
    rc = tn_collection_append(&l->c, &v, NULL, in->count);
    if (!rc && l->c.nchunks != before)
        rc = tn_exec_mem(sh->ex, (int64_t)(l->c.nchunks - before) * TN_VECTOR_SIZE * 16 * (l->c.ncols + 1));
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Computing one function over the kept rows.
 */
typedef struct win_run {
    const tn_collection *all;
    const tn_plan_window_func *f;
    const win_cols *wc;
    tn_vector *res;              /* per chunk of all */
    uint64_t *refs;              /* (chunk << 32) | row, partition-sorted */
    uint32_t *peer_start, *peer_end;
    tn_exec *ex;                 /* interrupt checks */
} win_run;

static inline const tn_vector *colv(const tn_collection *all, uint64_t ref, uint32_t col) {
    return &all->chunks[ref >> 32].cols[col];
}

static inline bool valid_at(const tn_vector *v, uint32_t row) {
    return v->type.id != TN_TYPE_NULL && tn_vector_is_valid(v, row);
}

typedef struct order_ctx {
    const tn_collection *all;
    const tn_plan_window_func *f;
    const win_cols *wc;
} order_ctx;

static int cmp_order(const order_ctx *c, uint64_t x, uint64_t y) {
    for (uint32_t k = 0; k < c->f->norder; k++) {
        uint32_t col = c->wc->order[k];
        const tn_vector *va = colv(c->all, x, col), *vb = colv(c->all, y, col);
        uint32_t ia = (uint32_t)x, ib = (uint32_t)y;
        bool na = !valid_at(va, ia), nb = !valid_at(vb, ib);
        if (na || nb) {
            if (na && nb) continue;
            bool nf = c->f->nulls_first[k];
            return na ? (nf ? -1 : 1) : (nf ? 1 : -1);
        }
        int r = tn_vector_cmp_rows(va, ia, vb, ib);
        if (r) return c->f->desc[k] ? -r : r;
    }
    return 0;
}

static int ref_cmp(const void *a, const void *b, void *ctx) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    int r = cmp_order(ctx, x, y);
    if (r) return r;
    return (x > y) - (x < y);
}

static int put_null(win_run *w, uint64_t ref) {
    return tn_vector_set_null(&w->res[ref >> 32], (uint32_t)ref);
}

static int put_i64(win_run *w, uint64_t ref, int64_t x) {
    ((int64_t *)w->res[ref >> 32].data)[(uint32_t)ref] = x;
    return 0;
}

static int put_f64(win_run *w, uint64_t ref, double x) {
    ((double *)w->res[ref >> 32].data)[(uint32_t)ref] = x;
    return 0;
}

/* Copy the value of column col at row src to the result at ref. */
static int put_copy(win_run *w, uint64_t ref, int32_t col, uint64_t src) {
    if (col < 0) return put_null(w, ref);
    const tn_vector *v = colv(w->all, src, (uint32_t)col);
    if (!valid_at(v, (uint32_t)src)) return put_null(w, ref);
    tn_value val;
    tn_vector_get_value(v, (uint32_t)src, &val);
    val.type = w->f->type;
    return tn_vector_set_value(&w->res[ref >> 32], (uint32_t)ref, &val);
}

typedef struct acc {
    int64_t cnt;
    tn_int128 isum;
    double dsum;
    bool has;
    uint64_t best;
} acc;

static void acc_add(const win_run *w, acc *a, uint64_t ref) {
    const tn_plan_window_func *f = w->f;
    if (f->kind == TN_WIN_COUNT_STAR) {
        a->cnt++;
        return;
    }
    const tn_vector *v = colv(w->all, ref, (uint32_t)w->wc->arg);
    uint32_t r = (uint32_t)ref;
    if (!valid_at(v, r)) return;
    a->cnt++;
    switch (f->kind) {
    case TN_WIN_SUM:
    case TN_WIN_AVG:
        switch (v->type.id) {
        case TN_TYPE_BIGINT: a->isum += ((const int64_t *)v->data)[r]; break;
        case TN_TYPE_DECIMAL: a->isum += tn_dec_get(v, r); break;
        default: a->dsum += ((const double *)v->data)[r]; break;
        }
        break;
    case TN_WIN_MIN:
    case TN_WIN_MAX:
        if (!a->has) {
            a->has = true;
            a->best = ref;
        } else {
            int c = tn_vector_cmp_rows(v, r, colv(w->all, a->best, (uint32_t)w->wc->arg), (uint32_t)a->best);
            if (f->kind == TN_WIN_MIN ? c < 0 : c > 0) a->best = ref;
        }
        break;
    default: break;
    }
}

static int acc_put(win_run *w, const acc *a, uint64_t ref) {
    const tn_plan_window_func *f = w->f;
    switch (f->kind) {
    case TN_WIN_COUNT_STAR:
    case TN_WIN_COUNT: return put_i64(w, ref, a->cnt);
    case TN_WIN_SUM:
        if (a->cnt == 0) return put_null(w, ref);
        if (f->type.id == TN_TYPE_DECIMAL) {
            tn_dec_put(&w->res[ref >> 32], (uint32_t)ref, a->isum);
            return 0;
        }
        return put_f64(w, ref, a->dsum);
    case TN_WIN_AVG: {
        if (a->cnt == 0) return put_null(w, ref);
        const tn_vector *v = colv(w->all, ref, (uint32_t)w->wc->arg);
        if (v->type.id == TN_TYPE_BIGINT || v->type.id == TN_TYPE_DECIMAL) {
            int scale = v->type.id == TN_TYPE_DECIMAL ? v->type.scale : 0;
            long double x = (long double)a->isum / (long double)a->cnt;
            for (int s = 0; s < scale; s++) x /= 10;
            return put_f64(w, ref, (double)x);
        }
        return put_f64(w, ref, a->dsum / (double)a->cnt);
    }
    case TN_WIN_MIN:
    case TN_WIN_MAX:
        if (!a->has) return put_null(w, ref);
        return put_copy(w, ref, w->wc->arg, a->best);
    default: return 0;
    }
}

/* Frame [*lo, *hi] (inclusive, may be empty) of row i of a partition of n rows. */
static void frame_of(const win_run *w, int64_t i, int64_t n, const uint32_t *ps, const uint32_t *pe,
                     int64_t *lo, int64_t *hi) {
    const tn_plan_window_func *f = w->f;
    int64_t a, b;
    switch (f->start) {
    case TN_WIN_UNBOUNDED_PRECEDING: a = 0; break;
    case TN_WIN_PRECEDING: a = i - f->start_off; break;   /* i, off in [0, 2^63): no overflow */
    case TN_WIN_CURRENT_ROW: a = f->rows ? i : (int64_t)ps[i]; break;
    case TN_WIN_FOLLOWING: a = f->start_off >= n - i ? n : i + f->start_off; break;
    default: a = n; break;
    }
    switch (f->end) {
    case TN_WIN_UNBOUNDED_PRECEDING: b = -1; break;
    case TN_WIN_PRECEDING: b = i - f->end_off; break;
    case TN_WIN_CURRENT_ROW: b = f->rows ? i : (int64_t)pe[i]; break;
    case TN_WIN_FOLLOWING: b = f->end_off >= n - i ? n - 1 : i + f->end_off; break;
    default: b = n - 1; break;
    }
    if (a < 0) a = 0;
    if (b > n - 1) b = n - 1;
    *lo = a;
    *hi = b;
}

static bool is_agg(tn_win_kind k) { return k >= TN_WIN_COUNT_STAR; }

/* One partition: refs[0..n) sorted. */
static int run_partition(win_run *w, const uint64_t *refs, int64_t n) {
    const tn_plan_window_func *f = w->f;
    uint32_t *ps = w->peer_start, *pe = w->peer_end;
    order_ctx oc = {w->all, f, w->wc};
    int rc = 0;
    for (int64_t i = 0; i < n; i++)
        ps[i] = i > 0 && (f->norder == 0 || cmp_order(&oc, refs[i - 1], refs[i]) == 0) ? ps[i - 1] : (uint32_t)i;
    for (int64_t i = n - 1; i >= 0; i--) pe[i] = i < n - 1 && ps[i + 1] == ps[i] ? pe[i + 1] : (uint32_t)i;
    switch (f->kind) {
    case TN_WIN_ROW_NUMBER:
        for (int64_t i = 0; i < n; i++) put_i64(w, refs[i], i + 1);
        return 0;
    case TN_WIN_RANK:
        for (int64_t i = 0; i < n; i++) put_i64(w, refs[i], (int64_t)ps[i] + 1);
        return 0;
    case TN_WIN_DENSE_RANK: {
        int64_t d = 0;
        for (int64_t i = 0; i < n; i++) {
            if (ps[i] == (uint32_t)i) d++;
            put_i64(w, refs[i], d);
        }
        return 0;
    }
    case TN_WIN_PERCENT_RANK:
        for (int64_t i = 0; i < n; i++) put_f64(w, refs[i], n > 1 ? (double)ps[i] / (double)(n - 1) : 0.0);
        return 0;
    case TN_WIN_CUME_DIST:
        for (int64_t i = 0; i < n; i++) put_f64(w, refs[i], (double)(pe[i] + 1) / (double)n);
        return 0;
    case TN_WIN_NTILE: {
        int64_t buckets = f->offset > n ? n : f->offset;
        int64_t size = n / buckets, large = n - buckets * size, small_at = large * (size + 1);
        for (int64_t i = 0; i < n; i++)
            put_i64(w, refs[i], i < small_at ? 1 + i / (size + 1) : 1 + large + (i - small_at) / size);
        return 0;
    }
    case TN_WIN_LAG:
    case TN_WIN_LEAD:
        for (int64_t i = 0; i < n && !rc; i++) {
            /* offset in [0, 2^63): i - offset cannot overflow; i + offset is checked first */
            int64_t j = f->kind == TN_WIN_LAG ? i - f->offset : f->offset >= n - i ? n : i + f->offset;
            if (j >= 0 && j < n) rc = put_copy(w, refs[i], w->wc->arg, refs[j]);
            else rc = put_copy(w, refs[i], w->wc->def, refs[i]);
        }
        return rc;
    case TN_WIN_FIRST_VALUE:
    case TN_WIN_LAST_VALUE:
    case TN_WIN_NTH_VALUE:
        for (int64_t i = 0; i < n && !rc; i++) {
            int64_t lo, hi;
            frame_of(w, i, n, ps, pe, &lo, &hi);
            int64_t at = f->kind == TN_WIN_FIRST_VALUE  ? lo
                       : f->kind == TN_WIN_LAST_VALUE ? hi
                       : f->offset - 1 > hi - lo      ? hi + 1
                                                      : lo + f->offset - 1;
            if (lo > hi || at < lo || at > hi) rc = put_null(w, refs[i]);
            else rc = put_copy(w, refs[i], w->wc->arg, refs[at]);
        }
        return rc;
    default: break;
    }
    if (!is_agg(f->kind)) return tn_error_set(TN_EINTERNAL, "unknown window function %d", (int)f->kind);
    acc a;
    if (f->start == TN_WIN_UNBOUNDED_PRECEDING) {
        /* the frame's end never moves back: one running state */
        memset(&a, 0, sizeof a);
        int64_t added = -1;
        for (int64_t i = 0; i < n && !rc; i++) {
            int64_t lo, hi;
            frame_of(w, i, n, ps, pe, &lo, &hi);
            while (added < hi) acc_add(w, &a, refs[++added]);
            if (hi < 0) {
                acc e;
                memset(&e, 0, sizeof e);
                rc = acc_put(w, &e, refs[i]);
            } else rc = acc_put(w, &a, refs[i]);
        }
    } else if (f->end == TN_WIN_UNBOUNDED_FOLLOWING) {
        memset(&a, 0, sizeof a);
        int64_t added = n;
        for (int64_t i = n - 1; i >= 0 && !rc; i--) {
            int64_t lo, hi;
            frame_of(w, i, n, ps, pe, &lo, &hi);
            while (added > lo) acc_add(w, &a, refs[--added]);
            if (lo > n - 1) {
                acc e;
                memset(&e, 0, sizeof e);
                rc = acc_put(w, &e, refs[i]);
            } else rc = acc_put(w, &a, refs[i]);
        }
    } else {
        for (int64_t i = 0; i < n && !rc; i++) {
            int64_t lo, hi;
            frame_of(w, i, n, ps, pe, &lo, &hi);
            memset(&a, 0, sizeof a);
            for (int64_t j = lo; j <= hi; j++) acc_add(w, &a, refs[j]);
            rc = acc_put(w, &a, refs[i]);
            if (!rc && (i & 1023) == 1023) rc = tn_exec_check(w->ex);   /* frames of any width */
        }
    }
    return rc;
}

static int run_func(tn_exec *ex, const tn_collection *all, const tn_plan_window_func *f, const win_cols *wc,
                    tn_vector *res, uint64_t *refs, uint32_t *scratch) {
    size_t N = (size_t)all->nrows;
    int rc = 0;
    uint32_t *gids = NULL, *count = NULL;
    tn_group_table gt;
    bool gt_init = false;
    uint64_t *sorted = NULL;
    size_t k = 0;
    for (uint32_t i = 0; i < all->nchunks; i++)
        for (uint32_t r = 0; r < all->chunks[i].count; r++) refs[k++] = ((uint64_t)i << 32) | r;
    /* partitions: group ids by hashing the keys, then a counting sort (stable) */
    uint32_t nparts = 1;
    size_t *start = NULL;
    if (f->npart) {
        tn_type *kt = tn_malloc(f->npart * sizeof *kt);
        gids = tn_malloc((N + 1) * sizeof *gids);
        sorted = tn_malloc((N + 1) * sizeof *sorted);
        if (!kt || !gids || !sorted) { tn_free(kt); rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t p = 0; p < f->npart; p++) kt[p] = all->types[wc->part[p]];
        rc = tn_group_table_init(&gt, f->npart, kt);
        tn_free(kt);
        if (rc) goto cleanup;
        gt_init = true;
        tn_vector *keys[64];
        if (f->npart > 64) { rc = tn_error_set(TN_ELIMIT, "too many PARTITION BY expressions"); goto cleanup; }
        size_t off = 0;
        for (uint32_t i = 0; i < all->nchunks && !rc; i++) {
            const tn_chunk *c = &all->chunks[i];
            if (!c->count) continue;
            for (uint32_t p = 0; p < f->npart; p++) keys[p] = (tn_vector *)&c->cols[wc->part[p]];
            rc = tn_exec_check(ex);
            if (!rc) rc = tn_group_table_lookup(&gt, keys, c->count, gids + off);
            off += c->count;
        }
        if (rc) goto cleanup;
        nparts = gt.ngroups;
        count = tn_calloc((size_t)nparts + 1, sizeof *count);
        start = tn_calloc((size_t)nparts + 2, sizeof *start);
        if (!count || !start) { rc = TN_ENOMEM; goto cleanup; }
        for (size_t i = 0; i < N; i++) count[gids[i]]++;
        for (uint32_t g = 0; g < nparts; g++) start[g + 1] = start[g] + count[g];
        memset(count, 0, (size_t)nparts * sizeof *count);
        for (size_t i = 0; i < N; i++) sorted[start[gids[i]] + count[gids[i]]++] = refs[i];
        memcpy(refs, sorted, N * sizeof *refs);
        rc = tn_exec_mem(ex, 0);
    } else {
        start = tn_calloc(3, sizeof *start);
        if (!start) { rc = TN_ENOMEM; goto cleanup; }
        start[1] = N;
    }
    win_run w = {all, f, wc, res, refs, scratch, scratch + N, ex};
    order_ctx oc = {all, f, wc};
    for (uint32_t g = 0; g < nparts && !rc; g++) {
        size_t s = start[g], n = start[g + 1] - s;
        if (n == 0) continue;
        rc = tn_exec_check(ex);
        if (!rc && f->norder && n > 1) rc = tn_exec_sort(ex, true, refs + s, n, ref_cmp, &oc);
        if (!rc) rc = run_partition(&w, refs + s, (int64_t)n);
    }
cleanup:
    if (gt_init) tn_group_table_free(&gt);
    tn_free(gids);
    tn_free(count);
    tn_free(start);
    tn_free(sorted);
    return rc;
}

static int win_combine(tn_sink *sink, void **states, uint32_t nstates) {
    win_shared *sh = sink->shared;
    tn_plan *node = sh->node;
    uint32_t nf = node->u.window.nfuncs;
    tn_collection all;
    tn_vector **res = NULL;
    uint64_t *refs = NULL;
    uint32_t *scratch = NULL;
    tn_vector *view = NULL;
    int rc = tn_collection_init(&all, sh->nin + sh->nextra, sh->types);
    if (rc) return rc;
    for (uint32_t w = 0; w < nstates && !rc; w++) {
        win_local *l = states[w];
        if (l) rc = tn_collection_move(&all, &l->c);
    }
    if (rc || all.nrows == 0) goto cleanup;
    size_t N = (size_t)all.nrows;
    res = tn_calloc(nf + 1, sizeof *res);
    refs = tn_malloc((N + 1) * sizeof *refs);
    scratch = tn_malloc((2 * N + 2) * sizeof *scratch);
    view = tn_calloc(node->ncols + 1, sizeof *view);
    if (!res || !refs || !scratch || !view) { rc = TN_ENOMEM; goto cleanup; }
    rc = tn_exec_mem(sh->ex, (int64_t)(N * (8 + 8 + 16 * nf)));
    for (uint32_t f = 0; f < nf && !rc; f++) {
        tn_plan_window_func *fn = &node->u.window.funcs[f];
        res[f] = tn_calloc(all.nchunks + 1, sizeof *res[f]);
        if (!res[f]) { rc = TN_ENOMEM; break; }
        for (uint32_t i = 0; i < all.nchunks && !rc; i++) {
            uint32_t cnt = all.chunks[i].count;
            rc = tn_vector_init(&res[f][i], fn->type, cnt ? cnt : 1);
            if (!rc && tn_type_width(fn->type) && res[f][i].data)
                memset(res[f][i].data, 0, (size_t)(cnt ? cnt : 1) * tn_type_width(fn->type));
            if (!rc && tn_type_is_string(fn->type))
                for (uint32_t r = 0; r < cnt; r++) ((tn_str *)res[f][i].data)[r] = (tn_str){"", 0};
            res[f][i].count = cnt;
        }
        if (!rc) rc = run_func(sh->ex, &all, fn, &sh->cols[f], res[f], refs, scratch);
    }
    for (uint32_t i = 0; i < all.nchunks && !rc; i++) {
        const tn_chunk *c = &all.chunks[i];
        if (!c->count) continue;
        for (uint32_t k = 0; k < sh->nin; k++) view[k] = c->cols[k];
        for (uint32_t f = 0; f < nf; f++) view[sh->nin + f] = res[f][i];
        tn_chunk v = {node->ncols, c->count, view};
        rc = tn_exec_check(sh->ex);
        if (!rc) rc = tn_collection_append(sh->result, &v, NULL, c->count);
    }
cleanup:
    if (res)
        for (uint32_t f = 0; f < nf; f++) {
            if (!res[f]) continue;
            for (uint32_t i = 0; i < all.nchunks; i++)
                if (res[f][i].data || res[f][i].heap || res[f][i].validity) tn_vector_free(&res[f][i]);
            tn_free(res[f]);
        }
    tn_free(res);
    tn_free(refs);
    tn_free(scratch);
    tn_free(view);
    tn_collection_free(&all);
    return rc;
}

static void win_free_shared(tn_sink *sink) {
    win_shared *sh = sink->shared;
    if (!sh) return;
    if (sh->cols)
        for (uint32_t f = 0; f < sh->node->u.window.nfuncs; f++) {
            tn_free(sh->cols[f].part);
            tn_free(sh->cols[f].order);
        }
    tn_free(sh->cols);
    tn_free(sh->extra);
    tn_free(sh->types);
    tn_free(sh);
}

int tn_sink_window(tn_exec *ex, tn_plan *node, tn_collection *result, tn_sink **out) {
    *out = NULL;
    tn_sink *s = tn_calloc(1, sizeof *s);
    win_shared *sh = tn_calloc(1, sizeof *sh);
    if (!s || !sh) { tn_free(s); tn_free(sh); return TN_ENOMEM; }
    s->shared = sh;
    s->name = "WINDOW";
    s->worker_init = win_init;
    s->worker_free = win_free_local;
    s->consume = win_consume;
    s->combine = win_combine;
    s->free_shared = win_free_shared;
    sh->ex = ex;
    sh->node = node;
    sh->result = result;
    uint32_t nf = node->u.window.nfuncs;
    sh->nin = node->ncols - nf;
    uint32_t maxx = 0;
    for (uint32_t f = 0; f < nf; f++) maxx += 2 + node->u.window.funcs[f].npart + node->u.window.funcs[f].norder;
    sh->extra = tn_calloc(maxx + 1, sizeof *sh->extra);
    sh->types = tn_calloc(sh->nin + maxx + 1, sizeof *sh->types);
    sh->cols = tn_calloc(nf + 1, sizeof *sh->cols);
    int rc = 0;
    if (!sh->extra || !sh->types || !sh->cols) { rc = TN_ENOMEM; goto fail; }
    memcpy(sh->types, node->child[0]->types, sh->nin * sizeof *sh->types);
    for (uint32_t f = 0; f < nf; f++) {
        tn_plan_window_func *fn = &node->u.window.funcs[f];
        win_cols *wc = &sh->cols[f];
        wc->part = tn_calloc(fn->npart + 1, sizeof *wc->part);
        wc->order = tn_calloc(fn->norder + 1, sizeof *wc->order);
        if (!wc->part || !wc->order) { rc = TN_ENOMEM; goto fail; }
        wc->arg = fn->arg ? (int32_t)add_expr(sh, fn->arg) : -1;
        wc->def = fn->def ? (int32_t)add_expr(sh, fn->def) : -1;
        for (uint32_t k = 0; k < fn->npart; k++) wc->part[k] = add_expr(sh, fn->part[k]);
        for (uint32_t k = 0; k < fn->norder; k++) wc->order[k] = add_expr(sh, fn->order[k]);
    }
    rc = tn_collection_init(result, node->ncols, node->types);
    if (rc) goto fail;
    *out = s;
    return 0;
fail:
    tn_sink_destroy(s);
    return rc;
}
