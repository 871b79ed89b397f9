/*
 * sql/op_aggregate.c: hash aggregation. Column-wise aggregate states (count, sum, avg, min,
 * max, stddev/variance, bool_and/or, string_agg, approx_count_distinct via HyperLogLog,
 * any_value), DISTINCT aggregates through a (group, value) set, and the sink: each worker
 * aggregates its morsels into its own group table (sql/group_table.c); the tables are merged at
 * the end (radix-partitioned when large) and finalized into chunks. Past its share of
 * memory_limit a GROUP BY spills (spill_agg.c): the tables stop growing, later input rows go to
 * disk by hash partition, and the output becomes a source that finishes one partition per
 * morsel (its in-memory groups merged, its spilled rows aggregated again).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sql/aggregates.h"
#include "sql/exec.h"

/* ---------------------------------------------------------------------------------------------
 * Aggregate states: per aggregate, arrays indexed by group.
 */
#define HLL_P 10
#define HLL_M (1u << HLL_P)

typedef struct welford {
    int64_t n;
    double mean, m2;
} welford;

typedef struct agg_state {
    const tn_plan_agg *def;
    tn_type in;                 /* argument type */
    size_t w1, w2;              /* element sizes of s1 / s2 */
    uint8_t *s1;                /* main state */
    uint8_t *s2;                /* counts (int64) or has-value flags (uint8) */
    tn_arena *arena;            /* strings of min/max/any_value, HLL registers */
    tn_buf *bufs;               /* string_agg per group */
    uint64_t str_bytes;         /* string_agg: bytes held by all groups (memory accounting) */
    const char *sep;
    uint32_t sep_len;
    /* DISTINCT: set of (group, value) */
    tn_group_table *dset;
    tn_vector dx;               /* scratch: the distinct values of a chunk */
    bool dx_init;
} agg_state;

struct tn_agg_states {
    uint32_t naggs;
    agg_state *a;
    uint32_t cap;               /* groups allocated */
};

static bool is_f64(tn_type t) { return t.id == TN_TYPE_DOUBLE; }
static bool is_dec128(tn_type t) { return t.id == TN_TYPE_DECIMAL && t.precision > TN_DECIMAL_INT64_MAX_PRECISION; }

static void state_sizes(agg_state *s) {
    const tn_plan_agg *d = s->def;
    size_t win = tn_type_width(s->in);
    switch (d->kind) {
    case TN_AGG_COUNT_STAR:
    case TN_AGG_COUNT: s->w1 = 8; s->w2 = 0; break;
    case TN_AGG_SUM:
    case TN_AGG_AVG:
        s->w1 = is_f64(s->in) ? 8 : 16;
        s->w2 = 8;
        break;
    case TN_AGG_MIN:
    case TN_AGG_MAX:
    case TN_AGG_ANY_VALUE:
        s->w1 = win ? win : 1;
        s->w2 = 1;
        break;
    case TN_AGG_STDDEV_SAMP:
    case TN_AGG_STDDEV_POP:
    case TN_AGG_VAR_SAMP:
    case TN_AGG_VAR_POP: s->w1 = sizeof(welford); s->w2 = 0; break;
    case TN_AGG_BOOL_AND:
    case TN_AGG_BOOL_OR: s->w1 = 1; s->w2 = 1; break;
    case TN_AGG_STRING_AGG: s->w1 = sizeof(tn_buf); s->w2 = 1; break;
    case TN_AGG_APPROX_COUNT_DISTINCT: s->w1 = sizeof(uint8_t *); s->w2 = 0; break;
    case TN_AGG_CUSTOM: s->w1 = d->func->state_size; s->w2 = 0; break;
    }
}

static int states_init(tn_agg_states *st, const tn_plan *node) {
    memset(st, 0, sizeof *st);
    st->naggs = node->u.agg.naggs;
    st->a = tn_calloc(st->naggs + 1, sizeof *st->a);
    if (!st->a) return TN_ENOMEM;
    for (uint32_t i = 0; i < st->naggs; i++) {
        agg_state *s = &st->a[i];
        s->def = &node->u.agg.aggs[i];
        s->in = s->def->arg ? s->def->arg->type : tn_type_make(TN_TYPE_BIGINT);
        state_sizes(s);
        s->arena = tn_arena_create(0);
        if (!s->arena) return TN_ENOMEM;
        if (s->def->kind == TN_AGG_STRING_AGG) {
            s->sep = ",";
            s->sep_len = 1;
            if (s->def->sep && s->def->sep->kind == TN_EXPR_CONSTANT && !s->def->sep->u.value.is_null) {
                s->sep = s->def->sep->u.value.u.s.ptr;
                s->sep_len = s->def->sep->u.value.u.s.len;
            } else if (s->def->sep && s->def->sep->kind == TN_EXPR_CONSTANT) {
                s->sep = "";
                s->sep_len = 0;
            }
        }
        if (s->def->distinct) {
            s->dset = tn_calloc(1, sizeof *s->dset);
            if (!s->dset) return TN_ENOMEM;
            tn_type kt[2] = {tn_type_make(TN_TYPE_BIGINT), s->in};
            int rc = tn_group_table_init(s->dset, 2, kt);
            if (rc) return rc;
        }
    }
    return 0;
}

static void states_free(tn_agg_states *st) {
    if (!st->a) return;
    for (uint32_t i = 0; i < st->naggs; i++) {
        agg_state *s = &st->a[i];
        if (s->def && s->def->kind == TN_AGG_STRING_AGG && s->s1)
            for (uint32_t g = 0; g < st->cap; g++) tn_buf_free(&((tn_buf *)s->s1)[g]);
        if (s->def && s->def->kind == TN_AGG_CUSTOM && s->def->func->destroy && s->s1)
            for (uint32_t g = 0; g < st->cap; g++) s->def->func->destroy(s->s1 + (size_t)g * s->w1);
        tn_free(s->s1);
        tn_free(s->s2);
        tn_arena_destroy(s->arena);
        if (s->dx_init) tn_vector_free(&s->dx);
        if (s->dset) {
            tn_group_table_free(s->dset);
            tn_free(s->dset);
        }
    }
    tn_free(st->a);
    st->a = NULL;
}

static void init_group_states(agg_state *s, uint32_t from, uint32_t to) {
    if (s->w1) memset(s->s1 + (size_t)from * s->w1, 0, (size_t)(to - from) * s->w1);
    if (s->w2) memset(s->s2 + (size_t)from * s->w2, 0, (size_t)(to - from) * s->w2);
    if (s->def->kind == TN_AGG_BOOL_AND)
        for (uint32_t g = from; g < to; g++) s->s1[g] = 1;
}

static int states_reserve(tn_agg_states *st, uint32_t ngroups) {
    if (ngroups <= st->cap) return 0;
    uint32_t cap = st->cap ? st->cap : 64;
    while (cap < ngroups) cap *= 2;
    for (uint32_t i = 0; i < st->naggs; i++) {
        agg_state *s = &st->a[i];
        uint8_t *n1 = tn_realloc(s->s1, (size_t)cap * s->w1 + 1);
        if (!n1) return TN_ENOMEM;
        s->s1 = n1;
        if (s->w2) {
            uint8_t *n2 = tn_realloc(s->s2, (size_t)cap * s->w2 + 1);
            if (!n2) return TN_ENOMEM;
            s->s2 = n2;
        }
        init_group_states(s, st->cap, cap);
    }
    st->cap = cap;
    return 0;
}

/* Update agg s with rows of v (n rows) for groups gids; mask (may be NULL) selects rows. */
#define LOOP_ROWS(BODY)                                                                     \
    do {                                                                                    \
        if (!mask && !v->validity) {   /* every row: the loop without per-row tests */      \
            for (uint32_t i = 0; i < n; i++) {                                              \
                uint32_t g = gids[i];                                                       \
                BODY;                                                                       \
            }                                                                               \
            break;                                                                          \
        }                                                                                   \
        for (uint32_t i = 0; i < n; i++) {                                                  \
            if (mask && !mask[i]) continue;                                                 \
            if (v->validity && !((v->validity[i >> 6] >> (i & 63)) & 1)) continue;          \
            uint32_t g = gids[i];                                                           \
            BODY;                                                                           \
        }                                                                                   \
    } while (0)

/* A string_agg result is one string value: at most 4 GiB - 1 bytes (tn_str's length), checked
 * before the buffer grows rather than truncated when it is read out. */
static int string_agg_check(size_t have, uint64_t add) {
    if ((uint64_t)have + add > UINT32_MAX)
        return tn_error_set(TN_ELIMIT, "string_agg: result of %llu bytes is too long (the limit is %u bytes)",
                            (unsigned long long)have + (unsigned long long)add, (unsigned)UINT32_MAX);
    return 0;
}

static int hll_update(agg_state *s, uint32_t g, uint64_t h) {
    uint8_t **regs = (uint8_t **)s->s1;
    if (!regs[g]) {
        regs[g] = tn_arena_calloc(s->arena, HLL_M);
        if (!regs[g]) return TN_ENOMEM;
    }
    uint32_t idx = (uint32_t)(h >> (64 - HLL_P));
    uint64_t rest = (h << HLL_P) | ((uint64_t)1 << (HLL_P - 1));
    uint8_t rank = (uint8_t)(__builtin_clzll(rest) + 1);
    if (rank > regs[g][idx]) regs[g][idx] = rank;
    return 0;
}

/* The rows of an aggregate without GROUP BY (one group): like LOOP_ROWS, but the state is in
 * locals the caller folds into group 0 afterwards, so consecutive rows do not wait on each
 * other's store. */
#define ONE_GROUP_ROWS(BODY)                                                                \
    do {                                                                                    \
        if (!mask && !v->validity) {                                                        \
            for (uint32_t i = 0; i < n; i++) { BODY; }                                      \
            break;                                                                          \
        }                                                                                   \
        for (uint32_t i = 0; i < n; i++) {                                                  \
            if (mask && !mask[i]) continue;                                                 \
            if (v->validity && !((v->validity[i >> 6] >> (i & 63)) & 1)) continue;          \
            BODY;                                                                           \
        }                                                                                   \
    } while (0)

/* Whether agg_update takes gids == NULL (every row in group 0) for this aggregate. */
static bool one_group_kind(tn_agg_kind k) {
    return k == TN_AGG_COUNT_STAR || k == TN_AGG_COUNT || k == TN_AGG_SUM || k == TN_AGG_AVG;
}

/* count / sum / avg of rows that all belong to group 0 (gids == NULL in agg_update); the
 * rows are added in order, so a double sum is the same as the grouped loop's. */
static void one_group_update(agg_state *s, const tn_vector *v, uint32_t n, const uint8_t *mask) {
    int64_t *c0 = s->def->kind == TN_AGG_SUM || s->def->kind == TN_AGG_AVG ? (int64_t *)s->s2 : (int64_t *)s->s1;
    int64_t cnt = 0;
    if (s->def->kind == TN_AGG_COUNT_STAR) {
        if (!mask) cnt = n;
        else for (uint32_t i = 0; i < n; i++) cnt += mask[i] != 0;
        c0[0] += cnt;
        return;
    }
    if (v->type.id == TN_TYPE_NULL) return;
    if (s->def->kind == TN_AGG_COUNT) {
        ONE_GROUP_ROWS(cnt++);
        c0[0] += cnt;
        return;
    }
    if (is_f64(s->in)) {
        double acc = ((double *)s->s1)[0];
        const double *x = v->data;
        ONE_GROUP_ROWS(acc += x[i]; cnt++);
        ((double *)s->s1)[0] = acc;
    } else {
        tn_int128 acc = 0;
        if (is_dec128(s->in)) {
            const tn_int128 *x = v->data;
            ONE_GROUP_ROWS(acc += x[i]; cnt++);
        } else {
            switch (tn_type_width(s->in)) {
            case 8: {
                /* int64 partial sums, moved into the 128-bit total before they could overflow */
                const int64_t *x = v->data;
                int64_t part = 0;
                ONE_GROUP_ROWS({
                    int64_t t;
                    if (__builtin_add_overflow(part, x[i], &t)) {
                        acc += part;
                        t = x[i];
                    }
                    part = t;
                    cnt++;
                });
                acc += part;
                break;
            }
            case 4: { const int32_t *x = v->data; int64_t part = 0; ONE_GROUP_ROWS(part += x[i]; cnt++); acc += part; break; }
            case 2: { const int16_t *x = v->data; int64_t part = 0; ONE_GROUP_ROWS(part += x[i]; cnt++); acc += part; break; }
            default: { const int8_t *x = v->data; int64_t part = 0; ONE_GROUP_ROWS(part += x[i]; cnt++); acc += part; break; }
            }
        }
        ((tn_int128 *)s->s1)[0] += acc;
    }
    c0[0] += cnt;
}

static int agg_update(agg_state *s, const tn_vector *v, const uint32_t *gids, uint32_t n,
                      const uint8_t *mask) {
    const tn_plan_agg *d = s->def;
    if (!gids) {
        one_group_update(s, v, n, mask);
        return 0;
    }
    switch (d->kind) {
    case TN_AGG_COUNT_STAR: {
        int64_t *c = (int64_t *)s->s1;
        for (uint32_t i = 0; i < n; i++)
            if (!mask || mask[i]) c[gids[i]]++;
        return 0;
    }
    case TN_AGG_COUNT: {
        int64_t *c = (int64_t *)s->s1;
        if (v->type.id == TN_TYPE_NULL) return 0;
        LOOP_ROWS(c[g]++);
        return 0;
    }
    case TN_AGG_SUM:
    case TN_AGG_AVG: {
        int64_t *cnt = (int64_t *)s->s2;
        if (v->type.id == TN_TYPE_NULL) return 0;
        if (is_f64(s->in)) {
            double *sum = (double *)s->s1;
            const double *x = v->data;
            LOOP_ROWS(sum[g] += x[i]; cnt[g]++);
        } else if (is_dec128(s->in)) {
            tn_int128 *sum = (tn_int128 *)s->s1;
            const tn_int128 *x = v->data;
            LOOP_ROWS(sum[g] += x[i]; cnt[g]++);
        } else {
            tn_int128 *sum = (tn_int128 *)s->s1;
            switch (tn_type_width(s->in)) {
            case 8: { const int64_t *x = v->data; LOOP_ROWS(sum[g] += x[i]; cnt[g]++); break; }
            case 4: { const int32_t *x = v->data; LOOP_ROWS(sum[g] += x[i]; cnt[g]++); break; }
            case 2: { const int16_t *x = v->data; LOOP_ROWS(sum[g] += x[i]; cnt[g]++); break; }
            default: { const int8_t *x = v->data; LOOP_ROWS(sum[g] += x[i]; cnt[g]++); break; }
            }
        }
        return 0;
    }
    case TN_AGG_MIN:
    case TN_AGG_MAX:
    case TN_AGG_ANY_VALUE: {
        if (v->type.id == TN_TYPE_NULL) return 0;
        uint8_t *has = s->s2;
        int dir = d->kind == TN_AGG_MIN ? -1 : 1;
        bool any = d->kind == TN_AGG_ANY_VALUE;
        if (tn_type_is_string(s->in)) {
            tn_str *st = (tn_str *)s->s1;
            const tn_str *x = v->data;
            for (uint32_t i = 0; i < n; i++) {
                if (mask && !mask[i]) continue;
                if (!tn_vector_is_valid(v, i)) continue;
                uint32_t g = gids[i];
                bool take = !has[g];
                if (!take && !any) {
                    uint32_t m = st[g].len < x[i].len ? st[g].len : x[i].len;
                    int c = m ? memcmp(x[i].ptr, st[g].ptr, m) : 0;
                    if (c == 0) c = (x[i].len > st[g].len) - (x[i].len < st[g].len);
                    take = dir < 0 ? c < 0 : c > 0;
                }
                if (take) {
                    char *copy = x[i].len ? tn_arena_alloc(s->arena, x[i].len) : (char *)"";
                    if (!copy) return TN_ENOMEM;
                    if (x[i].len) memcpy(copy, x[i].ptr, x[i].len);
                    st[g].ptr = copy;
                    st[g].len = x[i].len;
                    has[g] = 1;
                }
            }
            return 0;
        }
        if (s->in.id == TN_TYPE_DOUBLE || s->in.id == TN_TYPE_FLOAT) {
            bool f32 = s->in.id == TN_TYPE_FLOAT;
            for (uint32_t i = 0; i < n; i++) {
                if (mask && !mask[i]) continue;
                if (!tn_vector_is_valid(v, i)) continue;
                uint32_t g = gids[i];
                double x = f32 ? ((const float *)v->data)[i] : ((const double *)v->data)[i];
                double cur = f32 ? ((float *)s->s1)[g] : ((double *)s->s1)[g];
                bool take = !has[g];
                if (!take && !any) {
                    bool xn = x != x, cn = cur != cur;
                    int c = xn || cn ? (xn == cn ? 0 : xn ? 1 : -1) : (x > cur) - (x < cur);
                    take = dir < 0 ? c < 0 : c > 0;
                }
                if (take) {
                    if (f32) ((float *)s->s1)[g] = (float)x;
                    else ((double *)s->s1)[g] = x;
                    has[g] = 1;
                }
            }
            return 0;
        }
        if (is_dec128(s->in)) {
            tn_int128 *st = (tn_int128 *)s->s1;
            const tn_int128 *x = v->data;
            LOOP_ROWS(if (!has[g] || (!any && (dir < 0 ? x[i] < st[g] : x[i] > st[g]))) { st[g] = x[i]; has[g] = 1; });
            return 0;
        }
        size_t w = tn_type_width(s->in);
        if (s->in.id == TN_TYPE_BOOLEAN) w = 1;
#define MINMAX_INT(T)                                                                             \
        {                                                                                         \
            T *st = (T *)s->s1;                                                                   \
            const T *x = v->data;                                                                 \
            if (any) LOOP_ROWS(if (!has[g]) { st[g] = x[i]; has[g] = 1; });                       \
            else if (dir < 0) LOOP_ROWS(if (!has[g] || x[i] < st[g]) { st[g] = x[i]; has[g] = 1; }); \
            else LOOP_ROWS(if (!has[g] || x[i] > st[g]) { st[g] = x[i]; has[g] = 1; });           \
        }
        switch (w) {
        case 1:
            if (s->in.id == TN_TYPE_BOOLEAN) MINMAX_INT(uint8_t) else MINMAX_INT(int8_t)
            break;
        case 2: MINMAX_INT(int16_t) break;
        case 4: MINMAX_INT(int32_t) break;
        default: MINMAX_INT(int64_t) break;
        }
#undef MINMAX_INT
        return 0;
    }
    case TN_AGG_STDDEV_SAMP:
    case TN_AGG_STDDEV_POP:
    case TN_AGG_VAR_SAMP:
    case TN_AGG_VAR_POP: {
        if (v->type.id == TN_TYPE_NULL) return 0;
        welford *st = (welford *)s->s1;
        const double *x = v->data;
        LOOP_ROWS({
            welford *w = &st[g];
            w->n++;
            double delta = x[i] - w->mean;
            w->mean += delta / (double)w->n;
            w->m2 += delta * (x[i] - w->mean);
        });
        return 0;
    }
    case TN_AGG_BOOL_AND:
    case TN_AGG_BOOL_OR: {
        if (v->type.id == TN_TYPE_NULL) return 0;
        uint8_t *st = s->s1, *has = s->s2;
        const uint8_t *x = v->data;
        if (d->kind == TN_AGG_BOOL_AND) LOOP_ROWS(st[g] &= (x[i] != 0); has[g] = 1);
        else LOOP_ROWS(st[g] |= (x[i] != 0); has[g] = 1);
        return 0;
    }
    case TN_AGG_STRING_AGG: {
        if (v->type.id == TN_TYPE_NULL) return 0;
        tn_buf *st = (tn_buf *)s->s1;
        uint8_t *has = s->s2;
        const tn_str *x = v->data;
        for (uint32_t i = 0; i < n; i++) {
            if (mask && !mask[i]) continue;
            if (!tn_vector_is_valid(v, i)) continue;
            uint32_t g = gids[i];
            uint64_t add = (uint64_t)(has[g] ? s->sep_len : 0) + x[i].len;
            int rc = string_agg_check(st[g].len, add);
            if (!rc && has[g] && s->sep_len) rc = tn_buf_append(&st[g], s->sep, s->sep_len);
            if (!rc && x[i].len) rc = tn_buf_append(&st[g], x[i].ptr, x[i].len);
            if (rc) return rc;
            s->str_bytes += add;
            has[g] = 1;
        }
        return 0;
    }
    case TN_AGG_CUSTOM: {
        if (v->type.id == TN_TYPE_NULL) return 0;
        tn_agg_call call = {d->func, d->arg_name, d->order};
        return d->func->update(&call, s->s1, gids, v, n, mask);
    }
    case TN_AGG_APPROX_COUNT_DISTINCT: {
        if (v->type.id == TN_TYPE_NULL) return 0;
        /* the whole vector at once: a per-row view cannot address nested children (a STRUCT's
         * fields are not at data + i * width) */
        uint64_t *h = tn_malloc(((size_t)n + 1) * sizeof *h);
        if (!h) return TN_ENOMEM;
        tn_vector_hash(v, n, h, true);
        for (uint32_t i = 0; i < n; i++) {
            if (mask && !mask[i]) continue;
            if (!tn_vector_is_valid(v, i)) continue;
            int rc = hll_update(s, gids[i], h[i]);
            if (rc) { tn_free(h); return rc; }
        }
        tn_free(h);
        return 0;
    }
    }
    return 0;
}

/* Merge state of group `from` of src into group `to` of dst. */
static int agg_merge(agg_state *dst, uint32_t to, agg_state *src, uint32_t from) {
    const tn_plan_agg *d = dst->def;
    switch (d->kind) {
    case TN_AGG_COUNT_STAR:
    case TN_AGG_COUNT: ((int64_t *)dst->s1)[to] += ((int64_t *)src->s1)[from]; return 0;
    case TN_AGG_SUM:
    case TN_AGG_AVG:
        if (is_f64(dst->in)) ((double *)dst->s1)[to] += ((double *)src->s1)[from];
        else ((tn_int128 *)dst->s1)[to] += ((tn_int128 *)src->s1)[from];
        ((int64_t *)dst->s2)[to] += ((int64_t *)src->s2)[from];
        return 0;
    case TN_AGG_MIN:
    case TN_AGG_MAX:
    case TN_AGG_ANY_VALUE: {
        if (!src->s2[from]) return 0;
        /* build one-row vectors and reuse agg_update */
        tn_vector v;
        memset(&v, 0, sizeof v);
        v.type = src->in;
        v.count = 1;
        v.data = src->s1 + (size_t)from * src->w1;
        uint32_t g = to;
        return agg_update(dst, &v, &g, 1, NULL);
    }
    case TN_AGG_STDDEV_SAMP:
    case TN_AGG_STDDEV_POP:
    case TN_AGG_VAR_SAMP:
    case TN_AGG_VAR_POP: {
        welford *a = &((welford *)dst->s1)[to], *b = &((welford *)src->s1)[from];
        if (b->n == 0) return 0;
        if (a->n == 0) { *a = *b; return 0; }
        int64_t n = a->n + b->n;
        double delta = b->mean - a->mean;
        a->mean = a->mean + delta * (double)b->n / (double)n;
        a->m2 = a->m2 + b->m2 + delta * delta * (double)a->n * (double)b->n / (double)n;
        a->n = n;
        return 0;
    }
    case TN_AGG_BOOL_AND:
    case TN_AGG_BOOL_OR:
        if (!src->s2[from]) return 0;
        if (d->kind == TN_AGG_BOOL_AND) dst->s1[to] &= src->s1[from];
        else dst->s1[to] |= src->s1[from];
        dst->s2[to] = 1;
        return 0;
    case TN_AGG_STRING_AGG: {
        if (!src->s2[from]) return 0;
        tn_buf *a = &((tn_buf *)dst->s1)[to], *b = &((tn_buf *)src->s1)[from];
        uint64_t add = (uint64_t)(dst->s2[to] ? dst->sep_len : 0) + b->len;
        int rc = string_agg_check(a->len, add);
        if (rc) return rc;
        dst->str_bytes += add;
        if (dst->s2[to] && dst->sep_len) rc = tn_buf_append(a, dst->sep, dst->sep_len);
        if (!rc && b->len) rc = tn_buf_append(a, b->data, b->len);
        dst->s2[to] = 1;
        return rc;
    }
    case TN_AGG_CUSTOM: {
        tn_agg_call call = {d->func, d->arg_name, d->order};
        return d->func->merge(&call, dst->s1 + (size_t)to * dst->w1, src->s1 + (size_t)from * src->w1);
    }
    case TN_AGG_APPROX_COUNT_DISTINCT: {
        uint8_t *b = ((uint8_t **)src->s1)[from];
        if (!b) return 0;
        uint8_t **ar = (uint8_t **)dst->s1;
        if (!ar[to]) {
            ar[to] = tn_arena_calloc(dst->arena, HLL_M);
            if (!ar[to]) return TN_ENOMEM;
        }
        for (uint32_t i = 0; i < HLL_M; i++)
            if (b[i] > ar[to][i]) ar[to][i] = b[i];
        return 0;
    }
    }
    return 0;
}

static int agg_finalize(agg_state *s, uint32_t g, tn_vector *out, uint32_t row) {
    const tn_plan_agg *d = s->def;
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = d->type;
    switch (d->kind) {
    case TN_AGG_COUNT_STAR:
    case TN_AGG_COUNT: v.u.i = ((int64_t *)s->s1)[g]; break;
    case TN_AGG_SUM: {
        int64_t cnt = ((int64_t *)s->s2)[g];
        if (cnt == 0) { v.is_null = true; break; }
        if (is_f64(s->in)) v.u.d = ((double *)s->s1)[g];
        else v.u.i128 = ((tn_int128 *)s->s1)[g];
        break;
    }
    case TN_AGG_AVG: {
        int64_t cnt = ((int64_t *)s->s2)[g];
        if (cnt == 0) { v.is_null = true; break; }
        if (is_f64(s->in)) v.u.d = ((double *)s->s1)[g] / (double)cnt;
        else {
            long double div = (long double)cnt;
            if (s->in.id == TN_TYPE_DECIMAL)
                for (int k = 0; k < s->in.scale; k++) div *= 10;
            v.u.d = (double)((long double)((tn_int128 *)s->s1)[g] / div);
        }
        break;
    }
    case TN_AGG_MIN:
    case TN_AGG_MAX:
    case TN_AGG_ANY_VALUE: {
        if (!s->s2[g]) { v.is_null = true; break; }
        tn_vector one;
        memset(&one, 0, sizeof one);
        one.type = s->in;
        one.count = 1;
        one.data = s->s1 + (size_t)g * s->w1;
        tn_vector_get_value(&one, 0, &v);
        v.type = d->type;
        break;
    }
    case TN_AGG_STDDEV_SAMP:
    case TN_AGG_STDDEV_POP:
    case TN_AGG_VAR_SAMP:
    case TN_AGG_VAR_POP: {
        welford *w = &((welford *)s->s1)[g];
        bool samp = d->kind == TN_AGG_STDDEV_SAMP || d->kind == TN_AGG_VAR_SAMP;
        if (w->n == 0 || (samp && w->n < 2)) { v.is_null = true; break; }
        double var = w->m2 / (double)(samp ? w->n - 1 : w->n);
        if (var < 0) var = 0;
        v.u.d = (d->kind == TN_AGG_STDDEV_SAMP || d->kind == TN_AGG_STDDEV_POP) ? sqrt(var) : var;
        break;
    }
    case TN_AGG_BOOL_AND:
    case TN_AGG_BOOL_OR:
        if (!s->s2[g]) { v.is_null = true; break; }
        v.u.b = s->s1[g] != 0;
        break;
    case TN_AGG_STRING_AGG: {
        if (!s->s2[g]) { v.is_null = true; break; }
        tn_buf *b = &((tn_buf *)s->s1)[g];
        v.u.s.ptr = b->data ? (const char *)b->data : "";
        v.u.s.len = (uint32_t)b->len;
        break;
    }
    case TN_AGG_CUSTOM: {
        tn_agg_call call = {d->func, d->arg_name, d->order};
        return d->func->finalize(&call, s->s1 + (size_t)g * s->w1, out, row);
    }
    case TN_AGG_APPROX_COUNT_DISTINCT: {
        uint8_t *r = ((uint8_t **)s->s1)[g];
        if (!r) { v.u.i = 0; break; }
        double sum = 0;
        uint32_t zeros = 0;
        for (uint32_t i = 0; i < HLL_M; i++) {
            sum += ldexp(1.0, -(int)r[i]);
            zeros += r[i] == 0;
        }
        double m = HLL_M;
        double est = 0.7213 / (1 + 1.079 / m) * m * m / sum;
        if (est <= 2.5 * m && zeros) est = m * log(m / (double)zeros);
        v.u.i = (int64_t)(est + 0.5);
        break;
    }
    }
    return tn_vector_set_value(out, row, &v);
}

/* ---------------------------------------------------------------------------------------------
 * The aggregate sink.
 */
typedef struct part_job part_job;

typedef struct agg_shared {
    tn_exec *ex;
    tn_plan *node;
    tn_collection *result;
    tn_type *key_types;
    tn_agg_spill *spill;        /* GROUP BY under a memory_limit: where rows go once it spills */
    uint64_t worker_budget;     /* bytes a worker's table may hold before the aggregate spills */
    part_job *spilled;          /* after a spilling combine: the frozen tables by partition */
} agg_shared;

typedef struct agg_local {
    tn_group_table table;
    tn_agg_states st;
    tn_expr_state **gst;        /* group expression states */
    tn_vector *gvec;            /* evaluated group keys */
    tn_expr_state **ast, **fst; /* aggregate arguments / filters */
    tn_vector *avec, *fvec;
    uint32_t gids[TN_VECTOR_SIZE];
    uint8_t mask[TN_VECTOR_SIZE];
    uint64_t mem;
    tn_agg_spill_writer *sw;    /* this worker's partition buffers once the aggregate spills */
    bool replay;                /* aggregates a spilled partition: never spills itself */
} agg_local;

static void agg_local_free(tn_sink *sink, void *state) {
    agg_shared *sh = sink->shared;
    agg_local *l = state;
    if (!l) return;
    const tn_plan *node = sh->node;
    for (uint32_t g = 0; g < node->u.agg.ngroups; g++) {
        if (l->gst) tn_expr_state_free(l->gst[g]);
        if (l->gvec) tn_vector_free(&l->gvec[g]);
    }
    for (uint32_t a = 0; a < node->u.agg.naggs; a++) {
        if (l->ast) tn_expr_state_free(l->ast[a]);
        if (l->fst) tn_expr_state_free(l->fst[a]);
        if (l->avec) tn_vector_free(&l->avec[a]);
        if (l->fvec) tn_vector_free(&l->fvec[a]);
    }
    tn_free(l->gst); tn_free(l->gvec); tn_free(l->ast); tn_free(l->fst); tn_free(l->avec); tn_free(l->fvec);
    tn_group_table_free(&l->table);
    states_free(&l->st);
    tn_agg_spill_writer_free(l->sw);
    if (l->mem) tn_exec_mem(sh->ex, -(int64_t)l->mem);
    tn_free(l);
}

static int agg_local_init(tn_sink *sink, void **state) {
    agg_shared *sh = sink->shared;
    const tn_plan *node = sh->node;
    uint32_t ng = node->u.agg.ngroups, na = node->u.agg.naggs;
    agg_local *l = tn_calloc(1, sizeof *l);
    if (!l) return TN_ENOMEM;
    *state = l;
    int rc = tn_group_table_init(&l->table, ng, sh->key_types);
    if (!rc) rc = states_init(&l->st, node);
    if (rc) return rc;
    l->gst = tn_calloc(ng + 1, sizeof *l->gst);
    l->gvec = tn_calloc(ng + 1, sizeof *l->gvec);
    l->ast = tn_calloc(na + 1, sizeof *l->ast);
    l->fst = tn_calloc(na + 1, sizeof *l->fst);
    l->avec = tn_calloc(na + 1, sizeof *l->avec);
    l->fvec = tn_calloc(na + 1, sizeof *l->fvec);
    if (!l->gst || !l->gvec || !l->ast || !l->fst || !l->avec || !l->fvec) return TN_ENOMEM;
    for (uint32_t g = 0; g < ng; g++) {
        tn_expr *e = node->u.agg.groups[g];
        if (e->kind == TN_EXPR_COLUMN) continue;
        if ((rc = tn_expr_state_create(e, &l->gst[g]))) return rc;
        if ((rc = tn_vector_init(&l->gvec[g], e->type, TN_VECTOR_SIZE))) return rc;
    }
    for (uint32_t a = 0; a < na; a++) {
        const tn_plan_agg *ag = &node->u.agg.aggs[a];
        if (ag->arg && ag->arg->kind != TN_EXPR_COLUMN) {
            if ((rc = tn_expr_state_create(ag->arg, &l->ast[a]))) return rc;
            if ((rc = tn_vector_init(&l->avec[a], ag->arg->type, TN_VECTOR_SIZE))) return rc;
        }
        if (ag->filter) {
            if ((rc = tn_expr_state_create(ag->filter, &l->fst[a]))) return rc;
            if ((rc = tn_vector_init(&l->fvec[a], ag->filter->type, TN_VECTOR_SIZE))) return rc;
        }
    }
    if (ng == 0) {
        /* global aggregate: one group */
        l->table.ngroups = 1;
        if ((rc = states_reserve(&l->st, 1))) return rc;
    }
    return 0;
}

static int eval_into(const tn_expr *e, tn_expr_state *st, tn_vector *buf, const tn_chunk *in,
                     const tn_vector **out) {
    if (e->kind == TN_EXPR_COLUMN) {
        *out = &in->cols[e->u.column];
        return 0;
    }
    int rc = 0;
    if (buf->capacity < in->count && (rc = tn_vector_reserve(buf, in->count))) return rc;
    return tn_expr_eval_ref(e, in, buf, st, out);
}

/* Insert the (group, value) pairs of rows selected by mask into a DISTINCT set (n <= 2048). */
static int dset_insert(agg_state *as, const uint32_t *gids, const tn_vector *v, uint32_t n,
                       const uint8_t *mask) {
    int64_t gdata[TN_VECTOR_SIZE];
    uint32_t sel[TN_VECTOR_SIZE], out[TN_VECTOR_SIZE];
    int rc = 0;
    if (!as->dx_init) {
        rc = tn_vector_init(&as->dx, v->type, TN_VECTOR_SIZE);
        if (rc) return rc;
        as->dx_init = true;
    }
    uint32_t k = 0;
    bool nulltype = v->type.id == TN_TYPE_NULL;
    for (uint32_t i = 0; i < n && !nulltype; i++) {
        if (mask && !mask[i]) continue;
        if (!tn_vector_is_valid(v, i)) continue;
        gdata[k] = gids[i];
        sel[k++] = i;
    }
    if (k == 0) return 0;
    tn_vector gv;
    memset(&gv, 0, sizeof gv);
    gv.type = tn_type_make(TN_TYPE_BIGINT);
    gv.data = gdata;
    gv.count = gv.capacity = k;
    rc = tn_vector_gather(&as->dx, v, k == n ? NULL : sel, k);
    if (rc) return rc;
    tn_vector *keys[2] = {&gv, &as->dx};
    return tn_group_table_lookup(as->dset, keys, k, out);
}

/* A spilling aggregate: in's rows go to their key hash's partition on disk. */
static int spill_rows(agg_shared *sh, agg_local *l, const tn_chunk *in) {
    const tn_plan *node = sh->node;
    uint32_t ng = node->u.agg.ngroups;
    uint64_t h[TN_VECTOR_SIZE];
    int rc = 0;
    for (uint32_t g = 0; g < ng && !rc; g++) {
        const tn_vector *key;
        rc = eval_into(node->u.agg.groups[g], l->gst[g], &l->gvec[g], in, &key);
        if (!rc) tn_vector_hash(key, in->count, h, g == 0);
    }
    if (!rc) rc = tn_agg_spill_write(sh->spill, &l->sw, in, h);
    return rc;
}

/* Past the worker's budget (or the limit): spill from now on; a DISTINCT aggregate cannot. */
static int maybe_spill(agg_shared *sh, agg_local *l, int rc) {
    if (rc && rc != TN_ELIMIT) return rc;
    bool over = rc == TN_ELIMIT || l->mem > sh->worker_budget ||
                (tn_exec_mem_tight(sh->ex) && l->mem > ((uint64_t)1 << 20));
    if (!over) return 0;
    const tn_plan *node = sh->node;
    for (uint32_t a = 0; a < node->u.agg.naggs; a++)
        if (node->u.agg.aggs[a].distinct)
            return rc ? tn_error_set(TN_ELIMIT, "Out of Memory Error: the GROUP BY needs more than the memory limit of "
                                     "%.1f MiB and its aggregate %s(DISTINCT ...) cannot spill to disk yet "
                                     "(SET memory_limit to raise it)",
                                     (double)sh->ex->memory_limit / 1048576.0,
                                     node->u.agg.aggs[a].kind == TN_AGG_CUSTOM ? node->u.agg.aggs[a].func->name
                                                                               : tn_agg_kind_name(node->u.agg.aggs[a].kind))
                      : 0;
    tn_error_clear();
    tn_agg_spill_activate(sh->spill);
    return 0;
}

static int agg_consume(tn_sink *sink, void *state, uint32_t morsel, const tn_chunk *in) {
    agg_shared *sh = sink->shared;
    agg_local *l = state;
    const tn_plan *node = sh->node;
    uint32_t ng = node->u.agg.ngroups, na = node->u.agg.naggs;
    uint32_t n = in->count;
    int rc = 0;
    if (sh->spill && !l->replay && n <= TN_VECTOR_SIZE && tn_agg_spill_active(sh->spill)) return spill_rows(sh, l, in);
    for (uint32_t off = 0; off < n; off += TN_VECTOR_SIZE) {
        /* chunks larger than a vector (rare) go in slices */
        uint32_t m = n - off < TN_VECTOR_SIZE ? n - off : TN_VECTOR_SIZE;
        tn_chunk slice = *in;
        tn_vector views[in->ncols + 1];
        if (off || m != n) {
            uint32_t sel[TN_VECTOR_SIZE];
            for (uint32_t i = 0; i < m; i++) sel[i] = off + i;
            for (uint32_t c = 0; c < in->ncols; c++) {
                memset(&views[c], 0, sizeof views[c]);
                rc = tn_vector_init(&views[c], in->cols[c].type, m);
                if (!rc) rc = tn_vector_gather(&views[c], &in->cols[c], sel, m);
                if (rc) return rc;
            }
            slice.cols = views;
            slice.count = m;
        }
        const tn_chunk *ch = (off || m != n) ? &slice : in;
        const tn_vector *keys[ng + 1];
        for (uint32_t g = 0; g < ng && !rc; g++)
            rc = eval_into(node->u.agg.groups[g], l->gst[g], &l->gvec[g], ch, &keys[g]);
        if (!rc) {
            if (ng) {
                uint32_t before = l->table.ngroups;
                rc = tn_group_table_lookup(&l->table, (tn_vector *const *)keys, m, l->gids);
                if (!rc && l->table.ngroups != before) rc = states_reserve(&l->st, l->table.ngroups);
            } else memset(l->gids, 0, m * sizeof *l->gids);
        }
        for (uint32_t a = 0; a < na && !rc; a++) {
            const tn_plan_agg *ag = &node->u.agg.aggs[a];
            const tn_vector *arg = NULL;
            const uint8_t *mask = NULL;
            if (ag->filter) {
                const tn_vector *fv;
                rc = eval_into(ag->filter, l->fst[a], &l->fvec[a], ch, &fv);
                if (rc) break;
                for (uint32_t i = 0; i < m; i++)
                    l->mask[i] = tn_vector_is_valid(fv, i) && ((const uint8_t *)fv->data)[i];
                mask = l->mask;
            }
            if (ag->arg) {
                rc = eval_into(ag->arg, l->ast[a], &l->avec[a], ch, &arg);
                if (rc) break;
            }
            if (ag->distinct) rc = dset_insert(&l->st.a[a], l->gids, arg, m, mask);
            else {
                tn_vector dummy;
                memset(&dummy, 0, sizeof dummy);
                bool one = ng == 0 && one_group_kind(ag->kind);
                rc = agg_update(&l->st.a[a], arg ? arg : &dummy, one ? NULL : l->gids, m, mask);
            }
        }
        if (ch == &slice)
            for (uint32_t c = 0; c < in->ncols; c++) tn_vector_free(&views[c]);
        if (rc) return rc;
    }
    /* memory accounting, coarse */
    uint64_t mem = tn_group_table_bytes(&l->table) + (uint64_t)l->st.cap * 32 * (na + 1);
    for (uint32_t a = 0; a < na; a++) {
        mem += l->st.a[a].str_bytes;      /* string_agg text */
        if (l->st.a[a].dset) mem += tn_group_table_bytes(l->st.a[a].dset);
    }
    if (mem > l->mem + (1u << 20)) {
        rc = tn_exec_mem(sh->ex, (int64_t)(mem - l->mem));
        l->mem = mem;
        if (sh->spill && !l->replay) rc = maybe_spill(sh, l, rc);
        /* a spilled partition's table (about 1/32 of the groups) may go on while the operators
           that hold the rest spill; only one that alone passes its share fails */
        else if (l->replay && rc == TN_ELIMIT && l->mem <= tn_exec_spill_budget(sh->ex)) {
            tn_error_clear();
            rc = 0;
        }
    }
    return rc;
}

/* Key vectors of groups [off, off + m) of t, as views. */
/* A view of rows [off, off + m) of v (off a multiple of 64): a STRUCT's fields are shifted too,
 * their views in a tn_malloc'd array (shift_view_free); a LIST's entries hold absolute offsets,
 * so its child is the same. */
static int shift_view(tn_vector *out, const tn_vector *v, uint32_t off, uint32_t m) {
    *out = *v;
    size_t w = tn_type_width(v->type);
    if (out->data && w) out->data = (uint8_t *)out->data + (size_t)off * w;
    if (out->validity) out->validity += off / 64;
    out->count = m;
    if (v->type.id != TN_TYPE_STRUCT || !v->children) return 0;
    uint32_t n = v->type.nested->nchildren;
    out->children = tn_calloc(n, sizeof *out->children);
    if (!out->children) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        int rc = shift_view(&out->children[i], &v->children[i], off, m);
        if (rc) return rc;
    }
    return 0;
}

static void shift_view_free(tn_vector *v) {
    if (v->type.id != TN_TYPE_STRUCT || !v->children) return;
    for (uint32_t i = 0; i < v->type.nested->nchildren; i++) shift_view_free(&v->children[i]);
    tn_free(v->children);
    v->children = NULL;
}

/* Views of the group keys of rows [off, off + m); key_views_free releases them. */
static int key_views(const tn_group_table *t, uint32_t off, uint32_t m, tn_vector *views, tn_vector **vp) {
    int rc = 0;
    for (uint32_t k = 0; k < t->nkeys; k++) {
        if (!rc) rc = shift_view(&views[k], &t->keys[k], off, m);
        else views[k] = (tn_vector){.type = tn_type_make(TN_TYPE_NULL)};
        vp[k] = &views[k];
    }
    return rc;
}

static void key_views_free(const tn_group_table *t, tn_vector *views) {
    for (uint32_t k = 0; k < t->nkeys; k++) shift_view_free(&views[k]);
}

/* Finalize every group of table t with states st into chunks appended to result. */
static int emit_groups(tn_exec *ex, const tn_plan *node, const tn_group_table *t, tn_agg_states *st,
                       tn_collection *result) {
    uint32_t ng = node->u.agg.ngroups, na = node->u.agg.naggs;
    uint32_t total = t->ngroups;
    int rc = 0;
    for (uint32_t off = 0; off < total && !rc; off += TN_VECTOR_SIZE) {
        uint32_t m = total - off < TN_VECTOR_SIZE ? total - off : TN_VECTOR_SIZE;
        tn_chunk out;
        memset(&out, 0, sizeof out);
        if ((rc = tn_exec_check(ex))) break;
        rc = tn_chunk_init(&out, node->ncols, node->types, m);
        if (rc) break;
        if (ng) {
            tn_vector views[ng + 1];
            tn_vector *vp[ng + 1];
            rc = key_views(t, off, m, views, vp);
            for (uint32_t g = 0; g < ng && !rc; g++) rc = tn_vector_gather(&out.cols[g], vp[g], NULL, m);
            key_views_free(t, views);
        }
        for (uint32_t a = 0; a < na && !rc; a++) {
            tn_vector *ov = &out.cols[ng + a];
            agg_state *as = &st->a[a];
            if (ov->capacity < m) rc = tn_vector_reserve(ov, m);
            if (rc) break;
            if ((as->def->kind == TN_AGG_COUNT || as->def->kind == TN_AGG_COUNT_STAR) &&
                as->def->type.id == TN_TYPE_BIGINT) {
                memcpy(ov->data, as->s1 + (size_t)off * 8, (size_t)m * 8);
                if (ov->validity) memset(ov->validity, 0xff, (m + 63) / 64 * 8);
            } else {
                for (uint32_t i = 0; i < m && !rc; i++) rc = agg_finalize(as, off + i, ov, i);
            }
            ov->count = m;
        }
        out.count = m;
        if (!rc) rc = tn_collection_append(result, &out, NULL, m);
        tn_chunk_free(&out);
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Partitioned merge: with several workers and many groups, the groups of every worker's table
 * are split by hash into AGG_PARTS partitions; each partition is then merged and finalized by
 * one pool task, so the merge runs on every core. Output order is partition by partition.
 */
#define AGG_PARTS TN_AGG_SPILL_PARTS     /* the spill partitions are these partitions */
#define AGG_PART_MIN_GROUPS 20000

struct part_job {
    agg_shared *sh;
    agg_local **locals;
    uint32_t nlocals;
    uint32_t **idx;             /* per local: its group ids ordered by partition */
    uint32_t **start;           /* per local: AGG_PARTS + 1 offsets into idx */
    tn_collection *outs;        /* per partition */
};

static inline uint32_t part_of(uint64_t h) { return tn_agg_spill_part(h); }

static int part_index_task(void *ctx, uint32_t task, uint32_t worker) {
    part_job *j = ctx;
    const tn_group_table *t = &j->locals[task]->table;
    uint32_t *start = tn_calloc(AGG_PARTS + 2, sizeof *start);
    uint32_t *idx = tn_malloc(((size_t)t->ngroups + 1) * sizeof *idx);
    if (!start || !idx) {
        tn_free(start);
        tn_free(idx);
        return TN_ENOMEM;
    }
    for (uint32_t g = 0; g < t->ngroups; g++) start[part_of(t->hashes[g]) + 1]++;
    for (uint32_t p = 0; p < AGG_PARTS; p++) start[p + 1] += start[p];
    uint32_t pos[AGG_PARTS];
    memcpy(pos, start, sizeof pos);
    for (uint32_t g = 0; g < t->ngroups; g++) idx[pos[part_of(t->hashes[g])]++] = g;
    j->idx[task] = idx;
    j->start[task] = start;
    return 0;
}

/* Merges groups ids[0..cnt) of l (ids NULL: all of l's groups) into table t with states st. */
static int merge_local(agg_shared *sh, tn_group_table *t, tn_agg_states *st, agg_local *l, const uint32_t *ids,
                       uint32_t cnt, tn_vector *kv, tn_vector **kp) {
    const tn_plan *node = sh->node;
    uint32_t ng = node->u.agg.ngroups, na = node->u.agg.naggs;
    uint32_t gmap[TN_VECTOR_SIZE], seq[TN_VECTOR_SIZE];
    int rc = 0;
    for (uint32_t off = 0; off < cnt && !rc; off += TN_VECTOR_SIZE) {
        uint32_t m = cnt - off < TN_VECTOR_SIZE ? cnt - off : TN_VECTOR_SIZE;
        const uint32_t *from = ids ? ids + off : seq;
        if (!ids)
            for (uint32_t i = 0; i < m; i++) seq[i] = off + i;
        rc = tn_exec_check(sh->ex);
        for (uint32_t k = 0; k < ng && !rc; k++) rc = tn_vector_gather(&kv[k], &l->table.keys[k], from, m);
        if (!rc) rc = tn_group_table_lookup(t, kp, m, gmap);
        if (!rc) rc = states_reserve(st, t->ngroups);
        for (uint32_t a = 0; a < na && !rc; a++) {
            agg_state *dst = &st->a[a], *src = &l->st.a[a];
            tn_agg_kind kind = dst->def->kind;
            if (kind == TN_AGG_COUNT || kind == TN_AGG_COUNT_STAR) {
                int64_t *d = (int64_t *)dst->s1;
                const int64_t *sv = (const int64_t *)src->s1;
                for (uint32_t i = 0; i < m; i++) d[gmap[i]] += sv[from[i]];
            } else {
                for (uint32_t i = 0; i < m && !rc; i++) rc = agg_merge(dst, gmap[i], src, from[i]);
            }
        }
    }
    return rc;
}

static int replay_chunk(void *ctx, const tn_chunk *c) {
    void **a = ctx;
    return agg_consume(a[0], a[1], 0, c);
}

/* Partition p: the groups of every local in it merged, then (when the aggregate spilled) its
 * spilled rows aggregated again and merged; finalized into dst. */
static int merge_part(part_job *j, uint32_t p, tn_collection *dst) {
    agg_shared *sh = j->sh;
    const tn_plan *node = sh->node;
    uint32_t ng = node->u.agg.ngroups;
    tn_group_table t;
    tn_agg_states st;
    memset(&st, 0, sizeof st);
    tn_vector kv[ng + 1];
    tn_vector *kp[ng + 1];
    memset(kv, 0, sizeof kv);
    int rc = tn_group_table_init(&t, ng, sh->key_types);
    if (!rc) rc = states_init(&st, node);
    for (uint32_t k = 0; k < ng && !rc; k++) {
        rc = tn_vector_init(&kv[k], sh->key_types[k], TN_VECTOR_SIZE);
        kp[k] = &kv[k];
    }
    for (uint32_t w = 0; w < j->nlocals && !rc; w++)
        rc = merge_local(sh, &t, &st, j->locals[w], j->idx[w] + j->start[w][p], j->start[w][p + 1] - j->start[w][p],
                         kv, kp);
    if (!rc && tn_agg_spill_rows(sh->spill, p)) {
        tn_sink fake;
        memset(&fake, 0, sizeof fake);
        fake.shared = sh;
        void *L = NULL;
        rc = agg_local_init(&fake, &L);
        if (!rc) {
            ((agg_local *)L)->replay = true;
            void *ctx[2] = {&fake, L};
            rc = tn_agg_spill_replay(sh->spill, p, replay_chunk, ctx);
        }
        if (!rc) rc = merge_local(sh, &t, &st, L, NULL, ((agg_local *)L)->table.ngroups, kv, kp);
        if (L) agg_local_free(&fake, L);
    }
    if (!rc) rc = emit_groups(sh->ex, node, &t, &st, dst);
    for (uint32_t k = 0; k < ng; k++) tn_vector_free(&kv[k]);
    tn_group_table_free(&t);
    states_free(&st);
    return rc;
}

static int part_merge_task(void *ctx, uint32_t p, uint32_t worker) {
    part_job *j = ctx;
    return merge_part(j, p, &j->outs[p]);
}

static int agg_combine_partitioned(agg_shared *sh, agg_local **locals, uint32_t nlocals) {
    const tn_plan *node = sh->node;
    part_job j;
    memset(&j, 0, sizeof j);
    j.sh = sh;
    j.locals = locals;
    j.nlocals = nlocals;
    j.idx = tn_calloc(nlocals + 1, sizeof *j.idx);
    j.start = tn_calloc(nlocals + 1, sizeof *j.start);
    j.outs = tn_calloc(AGG_PARTS, sizeof *j.outs);
    int rc = 0;
    if (!j.idx || !j.start || !j.outs) rc = TN_ENOMEM;
    for (uint32_t p = 0; p < AGG_PARTS && !rc; p++) rc = tn_collection_init(&j.outs[p], node->ncols, node->types);
    if (!rc) rc = tn_pool_run(sh->ex->pool, nlocals, part_index_task, &j);
    if (!rc) rc = tn_pool_run(sh->ex->pool, AGG_PARTS, part_merge_task, &j);
    for (uint32_t p = 0; p < AGG_PARTS && !rc; p++) rc = tn_collection_move(sh->result, &j.outs[p]);
    for (uint32_t p = 0; j.outs && p < AGG_PARTS; p++) tn_collection_free(&j.outs[p]);
    for (uint32_t w = 0; w < nlocals; w++) {
        if (j.idx) tn_free(j.idx[w]);
        if (j.start) tn_free(j.start[w]);
    }
    tn_free(j.idx);
    tn_free(j.start);
    tn_free(j.outs);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * A spilled aggregate's output: the frozen tables indexed by partition, then a source that
 * finishes one partition per morsel (merge_part), on the pool's workers.
 */
static void spilled_free(agg_shared *sh, part_job *j) {
    if (!j) return;
    tn_sink fake;
    memset(&fake, 0, sizeof fake);
    fake.shared = sh;
    for (uint32_t w = 0; w < j->nlocals; w++) {
        agg_local_free(&fake, j->locals[w]);
        if (j->idx) tn_free(j->idx[w]);
        if (j->start) tn_free(j->start[w]);
    }
    tn_free(j->locals);
    tn_free(j->idx);
    tn_free(j->start);
    tn_free(j);
}

static int spill_combine(agg_shared *sh, void **states, uint32_t nstates) {
    part_job *j = tn_calloc(1, sizeof *j);
    if (!j) return TN_ENOMEM;
    sh->spilled = j;
    j->sh = sh;
    j->locals = tn_calloc(nstates + 1, sizeof *j->locals);
    j->idx = tn_calloc(nstates + 1, sizeof *j->idx);
    j->start = tn_calloc(nstates + 1, sizeof *j->start);
    if (!j->locals || !j->idx || !j->start) return TN_ENOMEM;
    int rc = 0;
    for (uint32_t w = 0; w < nstates; w++) {
        agg_local *l = states[w];
        if (!l) continue;
        states[w] = NULL;                      /* the spilled output owns it now */
        j->locals[j->nlocals++] = l;
        if (!rc) rc = tn_agg_spill_flush(sh->spill, l->sw);
        tn_agg_spill_writer_free(l->sw);
        l->sw = NULL;
    }
    if (!rc && sh->ex->pool && sh->ex->nworkers > 1 && j->nlocals > 1)
        rc = tn_pool_run(sh->ex->pool, j->nlocals, part_index_task, j);
    else
        for (uint32_t w = 0; w < j->nlocals && !rc; w++) rc = part_index_task(j, w, 0);
    return rc;
}

typedef struct agg_src {
    agg_shared sh;              /* a copy of the sink's: the sink is gone by the time this runs */
} agg_src;

static int aggsrc_read(tn_source *src, tn_pipeline *p, uint32_t morsel, uint32_t worker) {
    agg_src *a = src->shared;
    const tn_plan *node = a->sh.node;
    tn_collection out;
    int rc = tn_collection_init(&out, node->ncols, node->types);
    if (!rc) rc = merge_part(a->sh.spilled, morsel, &out);
    for (uint32_t i = 0; i < out.nchunks && !rc; i++) rc = tn_pipe_push(p, 0, worker, &out.chunks[i]);
    tn_collection_free(&out);
    return rc;
}

static void aggsrc_free(tn_source *src) {
    agg_src *a = src->shared;
    if (!a) return;
    spilled_free(&a->sh, a->sh.spilled);
    tn_agg_spill_free(a->sh.spill);
    tn_free(a);
    src->shared = NULL;
}

int tn_sink_aggregate_take_spill(tn_sink *sink, tn_source *out) {
    agg_shared *sh = sink->shared;
    if (!sh->spilled) return 0;
    agg_src *a = tn_calloc(1, sizeof *a);
    if (!a) return TN_ENOMEM;
    a->sh = *sh;
    a->sh.spilled->sh = &a->sh;
    sh->spilled = NULL;
    sh->spill = NULL;
    memset(out, 0, sizeof *out);
    out->name = "HASH_AGGREGATE_PARTITIONS";
    out->node = a->sh.node;
    out->shared = a;
    out->nmorsels = AGG_PARTS;
    out->read = aggsrc_read;
    out->free = aggsrc_free;
    return 1;
}

static void agg_free_shared(tn_sink *sink) {
    agg_shared *sh = sink->shared;
    if (!sh) return;
    spilled_free(sh, sh->spilled);
    tn_agg_spill_free(sh->spill);
    tn_free(sh);
}

static int agg_combine(tn_sink *sink, void **states, uint32_t nstates) {
    agg_shared *sh = sink->shared;
    const tn_plan *node = sh->node;
    uint32_t ng = node->u.agg.ngroups, na = node->u.agg.naggs;
    int rc = 0;
    if (tn_agg_spill_active(sh->spill)) return spill_combine(sh, states, nstates);
    /* the largest local table becomes the global one */
    agg_local *G = NULL;
    for (uint32_t w = 0; w < nstates; w++) {
        agg_local *l = states[w];
        if (l && (!G || l->table.ngroups > G->table.ngroups)) G = l;
    }
    if (!G) return tn_error_set(TN_EINTERNAL, "aggregate without state");
    {
        agg_local *locals[nstates + 1];
        uint32_t nl = 0;
        uint64_t groups = 0;
        bool distinct = false;
        for (uint32_t a = 0; a < na; a++) distinct |= node->u.agg.aggs[a].distinct;
        for (uint32_t w = 0; w < nstates; w++)
            if (states[w]) {
                locals[nl++] = states[w];
                groups += ((agg_local *)states[w])->table.ngroups;
            }
        if (ng && !distinct && nl > 1 && sh->ex->pool && sh->ex->nworkers > 1 && groups >= AGG_PART_MIN_GROUPS)
            return agg_combine_partitioned(sh, locals, nl);
    }
    uint32_t *gmap = tn_malloc(TN_VECTOR_SIZE * sizeof *gmap);
    if (!gmap) return TN_ENOMEM;
    for (uint32_t w = 0; w < nstates && !rc; w++) {
        agg_local *l = states[w];
        if (!l || l == G) continue;
        uint32_t *full = NULL;
        bool need_full = false;
        for (uint32_t a = 0; a < na; a++) need_full |= node->u.agg.aggs[a].distinct;
        if (need_full) {
            full = tn_malloc(((size_t)l->table.ngroups + 1) * sizeof *full);
            if (!full) { rc = TN_ENOMEM; break; }
        }
        for (uint32_t off = 0; off < l->table.ngroups && !rc; off += TN_VECTOR_SIZE) {
            uint32_t m = l->table.ngroups - off < TN_VECTOR_SIZE ? l->table.ngroups - off : TN_VECTOR_SIZE;
            if ((rc = tn_exec_check(sh->ex))) break;
            if (ng) {
                tn_vector views[ng + 1];
                tn_vector *vp[ng + 1];
                rc = key_views(&l->table, off, m, views, vp);
                uint32_t before = G->table.ngroups;
                if (!rc) rc = tn_group_table_lookup(&G->table, vp, m, gmap);
                key_views_free(&l->table, views);
                if (!rc && G->table.ngroups != before) rc = states_reserve(&G->st, G->table.ngroups);
            } else memset(gmap, 0, m * sizeof *gmap);
            for (uint32_t a = 0; a < na && !rc; a++) {
                if (node->u.agg.aggs[a].distinct) continue;
                for (uint32_t i = 0; i < m && !rc; i++) rc = agg_merge(&G->st.a[a], gmap[i], &l->st.a[a], off + i);
            }
            if (full) memcpy(full + off, gmap, m * sizeof *gmap);
        }
        /* DISTINCT sets: remap the group column and insert */
        for (uint32_t a = 0; a < na && !rc; a++) {
            if (!node->u.agg.aggs[a].distinct) continue;
            tn_group_table *ld = l->st.a[a].dset;
            for (uint32_t off = 0; off < ld->ngroups && !rc; off += TN_VECTOR_SIZE) {
                uint32_t m = ld->ngroups - off < TN_VECTOR_SIZE ? ld->ngroups - off : TN_VECTOR_SIZE;
                if ((rc = tn_exec_check(sh->ex))) break;
                tn_vector views[2];
                tn_vector *vp[2];
                rc = key_views(ld, off, m, views, vp);
                tn_vector gv;
                memset(&gv, 0, sizeof gv);
                if (!rc) rc = tn_vector_init(&gv, tn_type_make(TN_TYPE_BIGINT), m);
                if (!rc) {
                    for (uint32_t i = 0; i < m; i++)
                        ((int64_t *)gv.data)[i] = full[((const int64_t *)views[0].data)[i]];
                    gv.count = m;
                    vp[0] = &gv;
                    rc = tn_group_table_lookup(G->st.a[a].dset, vp, m, gmap);
                }
                tn_vector_free(&gv);
                key_views_free(ld, views);
            }
        }
        tn_free(full);
    }
    /* DISTINCT aggregates: feed the global sets' values */
    for (uint32_t a = 0; a < na && !rc; a++) {
        if (!node->u.agg.aggs[a].distinct) continue;
        tn_group_table *d = G->st.a[a].dset;
        for (uint32_t off = 0; off < d->ngroups && !rc; off += TN_VECTOR_SIZE) {
            uint32_t m = d->ngroups - off < TN_VECTOR_SIZE ? d->ngroups - off : TN_VECTOR_SIZE;
            if ((rc = tn_exec_check(sh->ex))) break;
            tn_vector views[2];
            tn_vector *vp[2];
            rc = key_views(d, off, m, views, vp);
            if (!rc) {
                for (uint32_t i = 0; i < m; i++) gmap[i] = (uint32_t)((const int64_t *)views[0].data)[i];
                rc = agg_update(&G->st.a[a], &views[1], gmap, m, NULL);
            }
            key_views_free(d, views);
        }
    }
    /* output */
    if (!rc) rc = emit_groups(sh->ex, node, &G->table, &G->st, sh->result);
    tn_free(gmap);
    return rc;
}


int tn_sink_aggregate(tn_exec *ex, tn_plan *node, tn_collection *result, tn_sink **out) {
    tn_sink *s = tn_calloc(1, sizeof *s);
    agg_shared *sh = tn_calloc(1, sizeof *sh);
    if (!s || !sh) { tn_free(s); tn_free(sh); return TN_ENOMEM; }
    sh->ex = ex;
    sh->node = node;
    sh->result = result;
    sh->key_types = tn_arena_alloc(ex->arena, (node->u.agg.ngroups + 1) * sizeof *sh->key_types);
    if (!sh->key_types) { tn_free(s); tn_free(sh); return TN_ENOMEM; }
    for (uint32_t g = 0; g < node->u.agg.ngroups; g++) sh->key_types[g] = node->u.agg.groups[g]->type;
    s->name = "HASH_AGGREGATE";
    s->shared = sh;
    s->worker_init = agg_local_init;
    s->worker_free = agg_local_free;
    s->consume = agg_consume;
    s->combine = agg_combine;
    s->free_shared = agg_free_shared;
    int rc = 0;
    uint64_t budget = tn_exec_spill_budget(ex);
    if (node->u.agg.ngroups && budget) {
        rc = tn_agg_spill_create(ex, node, node->child[0]->ncols, node->child[0]->types, &sh->spill);
        /* half of the share: a table doubles when it grows, and the frozen tables must leave
           room for the partitions' tables at the end */
        sh->worker_budget = budget / 2 / (ex->nworkers ? ex->nworkers : 1);
    }
    if (!rc) rc = tn_collection_init(result, node->ncols, node->types);
    if (rc) { tn_agg_spill_free(sh->spill); tn_free(sh); tn_free(s); return rc; }
    *out = s;
    return 0;
}
