/*
 * layout/bucket/merge.c: row sets (all columns of buffered rows with their buckets) and the merge
 * engines of primary-key tables: the rows of one key (a stored row, then new rows in arrival
 * order, reordered by sequence.field when set) fold into one row: deduplicate keeps the last,
 * first-row the first, partial-update takes each column's last non-NULL value, aggregation folds
 * each column with its aggregate function (the stored row is the accumulator; rbm32 in rbm.c). Output is ordered
 * by key.
 */
#include "layout/bucket/bucketInt.h"

#include <stdlib.h>
#include <string.h>

int tn_bucket_rows_init(tn_bucket_rows *r, const tn_table *t) {
    memset(r, 0, sizeof *r);
    uint32_t n = tn_table_num_columns(t);
    r->cols = tn_calloc(n + 1, sizeof *r->cols);
    r->skip = tn_calloc(n + 1, 1);
    if (!r->cols || !r->skip) return TN_ENOMEM;
    r->ncols = n;
    for (uint32_t i = 0; i < n; i++) {
        r->skip[i] = tn_table_column(t, i)->is_partition;
        int rc = tn_vector_init(&r->cols[i], tn_table_column(t, i)->type, 1024);
        if (rc) return rc;
    }
    return 0;
}

void tn_bucket_rows_free(tn_bucket_rows *r) {
    if (!r) return;
    for (uint32_t i = 0; r->cols && i < r->ncols; i++) tn_vector_free(&r->cols[i]);
    tn_free(r->cols);
    tn_free(r->skip);
    tn_free(r->bucket);
    tn_free(r->kind);
    memset(r, 0, sizeof *r);
}

int tn_bucket_rows_set_kinds(tn_bucket_rows *r, const uint8_t *kinds, const uint32_t *sel, uint32_t n) {
    bool any = false;
    for (uint32_t k = 0; k < n && !any; k++) any = kinds[sel ? sel[k] : k] != TN_BUCKET_ADD;
    if (!any && !r->kind) return 0;
    if (r->cap_kind < r->count) {
        uint32_t cap = r->cap_bucket > r->count ? r->cap_bucket : r->count;
        uint8_t *nk = tn_realloc(r->kind, cap);
        if (!nk) return TN_ENOMEM;
        memset(nk + r->cap_kind, TN_BUCKET_ADD, cap - r->cap_kind);
        r->kind = nk;
        r->cap_kind = cap;
    }
    for (uint32_t k = 0; k < n; k++) r->kind[r->count - n + k] = kinds[sel ? sel[k] : k];
    return 0;
}

static int reserve_buckets(tn_bucket_rows *r, uint32_t need) {
    if (need <= r->cap_bucket) return 0;
    uint32_t cap = r->cap_bucket > UINT32_MAX / 2 ? UINT32_MAX : r->cap_bucket * 2;
    if (cap < need) cap = need;
    int32_t *b = tn_realloc(r->bucket, (size_t)cap * sizeof *b);
    if (!b) return TN_ENOMEM;
    r->bucket = b;
    r->cap_bucket = cap;
    return 0;
}

/* Room for need rows, doubling; the new rows are not zeroed (a set's columns are written only by
 * appends, which write every row they add). */
static int grow_uninit(tn_vector *v, uint32_t need) {
    if (v->capacity >= need) return 0;
    uint32_t cap = v->capacity > UINT32_MAX / 2 ? UINT32_MAX : v->capacity * 2;
    return tn_vector_reserve_uninit(v, cap < need ? need : cap);
}

int tn_bucket_rows_append(tn_bucket_rows *r, const tn_chunk *chunk, const uint32_t *sel, uint32_t n,
                          const int32_t *buckets) {
    if (n == 0) return 0;
    if (r->count > UINT32_MAX - n) return tn_error_set(TN_ELIMIT, "primary-key write: too many rows in one write");
    uint32_t need = r->count + n;
    for (uint32_t c = 0; c < r->ncols; c++) {
        if (r->skip[c]) continue;
        if (!tn_type_equal(r->cols[c].type, chunk->cols[c].type))
            return tn_error_set(TN_EINTERNAL, "primary-key write: column %u has another type", c);
        int rc = grow_uninit(&r->cols[c], need);
        if (rc) return rc;
        rc = tn_vector_append_rows(&r->cols[c], &chunk->cols[c], sel, n);
        if (rc) return rc;
    }
    int rc = reserve_buckets(r, need);
    if (rc) return rc;
    for (uint32_t k = 0; k < n; k++) r->bucket[r->count + k] = buckets ? buckets[sel ? sel[k] : k] : 0;
    r->count = need;
    return 0;
}

int tn_bucket_rows_append_columns(tn_bucket_rows *r, const tn_chunk *chunk, const uint32_t *cols, uint32_t ncols,
                                  const uint32_t *sel, uint32_t n) {
    if (n == 0) return 0;
    if (r->count > UINT32_MAX - n) return tn_error_set(TN_ELIMIT, "primary-key write: too many rows in one write");
    uint32_t need = r->count + n;
    int rc = 0;
    for (uint32_t c = 0; c < r->ncols && !rc; c++) {
        if (r->skip[c]) continue;
        uint32_t j = 0;
        while (j < ncols && cols[j] != c) j++;
        if (j == ncols) {
            tn_vector *v = &r->cols[c];
            rc = grow_uninit(v, need);
            if (!rc) rc = tn_vector_fill_null(v, r->count, n);
            if (!rc) r->cols[c].count = need;
        } else if (!tn_type_equal(r->cols[c].type, chunk->cols[j].type)) {
            rc = tn_error_set(TN_EINTERNAL, "primary-key write: column %u has another type", c);
        } else {
            rc = grow_uninit(&r->cols[c], need);
            if (!rc) rc = tn_vector_append_rows(&r->cols[c], &chunk->cols[j], sel, n);
        }
    }
    if (!rc) rc = reserve_buckets(r, need);
    if (rc) return rc;
    memset(r->bucket + r->count, 0, sizeof *r->bucket * n);
    r->count = need;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Ordering.
 */
typedef struct sort_ctx {
    const tn_bucket_spec *spec;
    tn_bucket_rows *const *sets;
    uint32_t nsort;                    /* key columns that are not partition columns (all the */
    uint32_t sort[TN_BUCKET_MAX_KEYS]; /* rows of one merge share their partition) */
    int seq_col;                       /* sequence.field, -1: none (or a partition column) */
} sort_ctx;

/* The fast path: one integer-like sort column (and an integer-like sequence field or none),
 * sorted as (key, sequence, arrival) triples of integers instead of through values. */
typedef struct int_ref {
    int64_t key, seq;
    uint64_t ord;                      /* set << 32 | row: arrival order */
    int seq_valid;                     /* 0: NULL sequence (sorts first, as in cmp_col) */
} int_ref;

static bool int_like(tn_type t) {
    switch ((tn_type_id)t.id) {
    case TN_TYPE_TINYINT:
    case TN_TYPE_SMALLINT:
    case TN_TYPE_INTEGER:
    case TN_TYPE_BIGINT:
    case TN_TYPE_DATE:
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: return true;
    case TN_TYPE_DECIMAL: return !tn_type_is_decimal128(t);
    default: return false;
    }
}

/* An integer key of width w (tn_type_width of the column, taken once per merge) at row. */
static inline int64_t int_at_w(const tn_vector *v, size_t w, uint32_t row) {
    switch (w) {
    case 1: return ((const int8_t *)v->data)[row];
    case 2: return ((const int16_t *)v->data)[row];
    case 4: return ((const int32_t *)v->data)[row];
    default: return ((const int64_t *)v->data)[row];
    }
}

static int64_t int_at(const tn_vector *v, uint32_t row) { return int_at_w(v, tn_type_width(v->type), row); }

static int int_ref_cmp(const void *pa, const void *pb) {
    const int_ref *x = pa, *y = pb;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->seq_valid != y->seq_valid) return x->seq_valid < y->seq_valid ? -1 : 1;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Sorts ir[0..n) by int_ref_cmp: a natural merge sort (the sorted runs of the input merged
 * pairwise), so that rows arriving in a few sorted runs (a rescale: each new bucket's rows come
 * from one or a few old buckets' files, each in key order) cost O(n log runs); many runs: qsort. */
#define MAX_RUNS 64

static int int_ref_sort(int_ref *ir, uint32_t n) {
    if (n < 2) return 0;
    uint32_t bounds[MAX_RUNS + 2], nruns = 1;
    bounds[0] = 0;
    for (uint32_t i = 1; i < n; i++)
        if (int_ref_cmp(&ir[i - 1], &ir[i]) > 0) {
            if (nruns == MAX_RUNS) {
                qsort(ir, n, sizeof *ir, int_ref_cmp);
                return 0;
            }
            bounds[nruns++] = i;
        }
    if (nruns == 1) return 0;
    bounds[nruns] = n;
    int_ref *tmp = tn_malloc(sizeof *tmp * n);
    if (!tmp) return TN_ENOMEM;
    int_ref *src = ir, *dst = tmp;
    while (nruns > 1) {
        uint32_t out = 0;
        for (uint32_t r = 0; r < nruns; r += 2) {
            uint32_t a = bounds[r], m = bounds[r + 1], e = r + 1 < nruns ? bounds[r + 2] : m, i = a, j = m, k = a;
            while (i < m && j < e) dst[k++] = int_ref_cmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
            while (i < m) dst[k++] = src[i++];
            while (j < e) dst[k++] = src[j++];
            bounds[out++] = a;
        }
        bounds[out] = n;
        nruns = out;
        int_ref *x = src;
        src = dst;
        dst = x;
    }
    if (src != ir) memcpy(ir, src, sizeof *ir * n);
    tn_free(tmp);
    return 0;
}

/* The fast path without a sequence field: refs arrive as a few runs of non-decreasing keys, each
 * in arrival order (a rescale: a new bucket's rows come from one old bucket's file, or two when
 * the count shrinks, each file in key order). The runs are merged k ways straight from the key
 * column (ties: the earlier run, which arrived first), so no (key, sequence, arrival) triples
 * are built; one run costs one pass and no memory. Returns 1 when there are more than
 * KWAY_RUNS runs (the caller sorts triples). */
#define KWAY_RUNS 16

static int key_runs_merge(tn_bucket_ref *refs, uint32_t n, tn_bucket_rows *const *sets, uint32_t kc) {
    if (n < 2) return 0;
    const tn_vector *kv[2] = {&sets[0]->cols[kc], &sets[1]->cols[kc]};
    size_t w = tn_type_width(kv[0]->type);
    uint32_t bounds[KWAY_RUNS + 1], nruns = 1;
    bounds[0] = 0;
    int64_t prev = int_at_w(kv[refs[0].set], w, refs[0].row);
    for (uint32_t i = 1; i < n; i++) {
        int64_t k = int_at_w(kv[refs[i].set], w, refs[i].row);
        if (k < prev) {
            if (nruns == KWAY_RUNS) return 1;
            bounds[nruns++] = i;
        }
        prev = k;
    }
    if (nruns == 1) return 0;
    bounds[nruns] = n;
    tn_bucket_ref *out = tn_malloc(sizeof *out * n);
    if (!out) return TN_ENOMEM;
    uint32_t pos[KWAY_RUNS];
    int64_t head[KWAY_RUNS];
    for (uint32_t r = 0; r < nruns; r++) {
        pos[r] = bounds[r];
        head[r] = int_at_w(kv[refs[pos[r]].set], w, refs[pos[r]].row);
    }
    for (uint32_t o = 0; o < n; o++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t r = 0; r < nruns; r++)
            if (pos[r] < bounds[r + 1] && (best == UINT32_MAX || head[r] < head[best])) best = r;
        out[o] = refs[pos[best]++];
        if (pos[best] < bounds[best + 1]) head[best] = int_at_w(kv[refs[pos[best]].set], w, refs[pos[best]].row);
    }
    memcpy(refs, out, sizeof *refs * n);
    tn_free(out);
    return 0;
}

static int cmp_col(const tn_vector *va, uint32_t ra, const tn_vector *vb, uint32_t rb) {
    bool na = !tn_vector_is_valid(va, ra), nb = !tn_vector_is_valid(vb, rb);
    if (na || nb) return na == nb ? 0 : na ? -1 : 1;     /* NULL first */
    tn_value a, b;
    tn_vector_get_value(va, ra, &a);
    tn_vector_get_value(vb, rb, &b);
    return tn_value_compare(&a, &b);
}

static int key_cmp(const sort_ctx *s, const tn_bucket_ref *x, const tn_bucket_ref *y) {
    for (uint32_t k = 0; k < s->nsort; k++) {
        uint32_t c = s->sort[k];
        int r = cmp_col(&s->sets[x->set]->cols[c], x->row, &s->sets[y->set]->cols[c], y->row);
        if (r) return r;
    }
    return 0;
}

static int ref_cmp(const void *pa, const void *pb, void *ctx) {
    const sort_ctx *s = ctx;
    const tn_bucket_ref *x = pa, *y = pb;
    int r = key_cmp(s, x, y);
    if (r) return r;
    if (s->seq_col >= 0) {
        uint32_t c = (uint32_t)s->seq_col;
        r = cmp_col(&s->sets[x->set]->cols[c], x->row, &s->sets[y->set]->cols[c], y->row);
        if (r) return r;
    }
    if (x->set != y->set) return x->set < y->set ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* ---------------------------------------------------------------------------------------------
 * Aggregates.
 */
typedef struct acc {
    tn_value v;                        /* v.is_null until a value */
    bool seen;                         /* first_value: a row was taken */
    tn_buf text;                       /* listagg; rbm32's merged bytes */
    tn_bucket_rbm rbm;                 /* rbm32 */
} acc;

static int overflow(const tn_table *t, uint32_t col, const char *fn) {
    return tn_error_set(TN_ELIMIT, "table '%s': aggregate function '%s' overflows column '%s'", tn_table_path(t), fn,
                        tn_table_column(t, col)->name);
}

static bool int_fits(tn_type t, int64_t v) {
    switch ((tn_type_id)t.id) {
    case TN_TYPE_TINYINT: return v >= INT8_MIN && v <= INT8_MAX;
    case TN_TYPE_SMALLINT: return v >= INT16_MIN && v <= INT16_MAX;
    case TN_TYPE_INTEGER: return v >= INT32_MIN && v <= INT32_MAX;
    default: return true;
    }
}

static int agg_step(const tn_table *t, uint32_t col, tn_bucket_agg fn, acc *a, const tn_value *v, bool stored,
                    const char *delim) {
    tn_type ty = v->type;
    bool is_float = ty.id == TN_TYPE_FLOAT || ty.id == TN_TYPE_DOUBLE;
    bool wide = ty.id == TN_TYPE_DECIMAL && ty.precision > TN_DECIMAL_INT64_MAX_PRECISION;
    switch (fn) {
    case TN_AGG_LAST: a->v = *v; return 0;
    case TN_AGG_LAST_NON_NULL:
        if (!v->is_null) a->v = *v;
        return 0;
    case TN_AGG_FIRST:
        if (!a->seen) a->v = *v;
        a->seen = true;
        return 0;
    case TN_AGG_FIRST_NON_NULL:
        if (a->v.is_null && !v->is_null) a->v = *v;
        return 0;
    case TN_AGG_RBM32: return tn_bucket_rbm32_step(t, col, &a->rbm, &a->v, v);
    case TN_AGG_COUNT: {
        int64_t cur = a->v.is_null ? 0 : a->v.u.i;
        int64_t add = stored ? (v->is_null ? 0 : v->u.i) : (v->is_null ? 0 : 1);
        if (__builtin_add_overflow(cur, add, &cur) || !int_fits(ty, cur)) return overflow(t, col, "count");
        a->v.type = ty;
        a->v.is_null = false;
        a->v.u.i = cur;
        return 0;
    }
    default: break;
    }
    if (v->is_null) return 0;
    if (a->v.is_null) {
        a->v = *v;
        if (fn == TN_AGG_LISTAGG) {
            tn_buf_clear(&a->text);
            int rc = tn_buf_append(&a->text, v->u.s.ptr, v->u.s.len);
            if (rc) return rc;
        }
        return 0;
    }
    switch (fn) {
    case TN_AGG_SUM:
        if (is_float) a->v.u.d += v->u.d;
        else if (wide) {
            if (__builtin_add_overflow(a->v.u.i128, v->u.i128, &a->v.u.i128)) return overflow(t, col, "sum");
        } else if (__builtin_add_overflow(a->v.u.i, v->u.i, &a->v.u.i) || !int_fits(ty, a->v.u.i))
            return overflow(t, col, "sum");
        return 0;
    case TN_AGG_PRODUCT:
        if (is_float) a->v.u.d *= v->u.d;
        else if (__builtin_mul_overflow(a->v.u.i, v->u.i, &a->v.u.i) || !int_fits(ty, a->v.u.i))
            return overflow(t, col, "product");
        return 0;
    case TN_AGG_MIN:
        if (tn_value_compare(v, &a->v) < 0) a->v = *v;
        return 0;
    case TN_AGG_MAX:
        if (tn_value_compare(v, &a->v) > 0) a->v = *v;
        return 0;
    case TN_AGG_BOOL_AND: a->v.u.b = a->v.u.b && v->u.b; return 0;
    case TN_AGG_BOOL_OR: a->v.u.b = a->v.u.b || v->u.b; return 0;
    case TN_AGG_LISTAGG: {
        const char *d = delim ? delim : ",";
        int rc = tn_buf_append(&a->text, d, strlen(d));
        if (!rc) rc = tn_buf_append(&a->text, v->u.s.ptr, v->u.s.len);
        return rc;
    }
    default: return 0;
    }
}

/* Paimon's FieldAggregator.retract for the functions that have one (sum subtracts, product
 * divides, last_value clears, last_non_null_value clears on a non-NULL retraction; count, tarn's
 * own, counts down); the others refuse with Paimon's text. */
static int agg_retract(const tn_table *t, uint32_t col, tn_bucket_agg fn, acc *a, const tn_value *v) {
    tn_type ty = v->type;
    bool is_float = ty.id == TN_TYPE_FLOAT || ty.id == TN_TYPE_DOUBLE;
    bool wide = ty.id == TN_TYPE_DECIMAL && ty.precision > TN_DECIMAL_INT64_MAX_PRECISION;
    switch (fn) {
    case TN_AGG_LAST:
        a->v.is_null = true;
        return 0;
    case TN_AGG_LAST_NON_NULL:
        if (!v->is_null) a->v.is_null = true;
        return 0;
    case TN_AGG_COUNT:
        if (v->is_null) return 0;
        if (a->v.is_null) {
            a->v.type = ty;
            a->v.is_null = false;
            a->v.u.i = 0;
        }
        if (__builtin_sub_overflow(a->v.u.i, 1, &a->v.u.i) || !int_fits(ty, a->v.u.i)) return overflow(t, col, "count");
        return 0;
    case TN_AGG_SUM:
        if (v->is_null) return 0;
        if (a->v.is_null) {        /* Paimon: the negated input */
            a->v = *v;
            if (is_float) a->v.u.d = -v->u.d;
            else if (wide) a->v.u.i128 = -v->u.i128;
            else if (__builtin_sub_overflow((int64_t)0, v->u.i, &a->v.u.i) || !int_fits(ty, a->v.u.i))
                return overflow(t, col, "sum");
            return 0;
        }
        if (is_float) a->v.u.d -= v->u.d;
        else if (wide) {
            if (__builtin_sub_overflow(a->v.u.i128, v->u.i128, &a->v.u.i128)) return overflow(t, col, "sum");
        } else if (__builtin_sub_overflow(a->v.u.i, v->u.i, &a->v.u.i) || !int_fits(ty, a->v.u.i))
            return overflow(t, col, "sum");
        return 0;
    case TN_AGG_PRODUCT:
        if (v->is_null) return 0;
        if (a->v.is_null) {        /* Paimon: the input itself */
            a->v = *v;
            return 0;
        }
        if (is_float) a->v.u.d /= v->u.d;
        else if (v->u.i == 0)
            return tn_error_set(TN_EINVAL, "table '%s': aggregate function 'product' of column '%s': retracting 0 "
                                "divides by zero", tn_table_path(t), tn_table_column(t, col)->name);
        else if (!(a->v.u.i == INT64_MIN && v->u.i == -1)) a->v.u.i /= v->u.i;
        else return overflow(t, col, "product");
        return 0;
    default: break;
    }
    static const char *const names[] = {
#define TN_AGG_NAME(id, name) name,
        TN_BUCKET_AGG_TABLE(TN_AGG_NAME)
#undef TN_AGG_NAME
    };
    return tn_error_set(TN_EUNSUPPORTED, "table '%s': column '%s': Aggregate function '%s' does not support "
                        "retraction, If you allow this function to ignore retraction messages, you can configure "
                        "'fields.${field_name}.ignore-retract'='true'.", tn_table_path(t), tn_table_column(t, col)->name,
                        names[fn]);
}

static inline uint8_t kind_of(const tn_bucket_rows *r, uint32_t row) {
    return r->kind && row < r->cap_kind ? r->kind[row] : TN_BUCKET_ADD;
}

static const char partial_delete_msg[] =
    "By default, Partial update can not accept delete records, you can choose one of the following solutions: "
    "1. Configure 'ignore-delete' to ignore delete records. "
    "2. Configure 'partial-update.remove-record-on-delete' to remove the whole row when receiving delete records. "
    "3. Configure 'sequence-group's to retract partial columns.";

/* The rows of one key, refs[a..b) in merge order, against their retractions: *start = the first
 * row that counts (after the last delete that removes the record), *deleted = the key has no
 * row afterwards. Paimon's rules: deduplicate keeps the last row, which may be a retraction
 * (the key goes); first-row refuses retractions; partial-update needs
 * partial-update.remove-record-on-delete (then -D removes the record, -U is ignored);
 * aggregation with aggregation.remove-record-on-delete removes the record on -D, else every
 * retraction goes to the field aggregates (agg_retract, or ignore-retract). */
static int group_kinds(const tn_bucket_spec *spec, const tn_table *t, tn_bucket_rows *const *sets,
                       const tn_bucket_ref *refs, uint32_t a, uint32_t b, uint32_t *start, bool *deleted) {
    *start = a;
    *deleted = false;
    if (!sets[1]->kind) return 0;                 /* stored rows are always adds */
    switch (spec->engine) {
    case TN_BUCKET_DEDUPLICATE: *deleted = kind_of(sets[refs[b - 1].set], refs[b - 1].row) != TN_BUCKET_ADD; return 0;
    case TN_BUCKET_FIRST_ROW:
        for (uint32_t k = a; k < b; k++)
            if (kind_of(sets[refs[k].set], refs[k].row) != TN_BUCKET_ADD)
                return tn_error_set(TN_EUNSUPPORTED, "table '%s': By default, First row merge engine can not accept "
                                    "DELETE/UPDATE_BEFORE records. You can config 'first-row.ignore-delete' to ignore "
                                    "the DELETE/UPDATE_BEFORE records.", tn_table_path(t));
        return 0;
    case TN_BUCKET_PARTIAL_UPDATE:
    case TN_BUCKET_AGGREGATION:
        if (spec->engine == TN_BUCKET_PARTIAL_UPDATE) {
            /* the record is the add rows after the last delete; none: nothing to write */
            bool add = false;
            for (uint32_t k = a; k < b; k++) {
                uint8_t kd = kind_of(sets[refs[k].set], refs[k].row);
                if (kd == TN_BUCKET_ADD) add = true;
                else if (!spec->remove_on_delete)
                    return tn_error_set(TN_EUNSUPPORTED, "table '%s': %s", tn_table_path(t), partial_delete_msg);
                else if (kd == TN_BUCKET_DELETE) {
                    *start = k + 1;
                    add = false;
                }
            }
            *deleted = !add;
            return 0;
        }
        /* aggregation: a -D removes the record (remove-record-on-delete), any later row starts
         * a new one; other retractions go to the field aggregates */
        for (uint32_t k = a; k < b; k++) {
            uint8_t kd = kind_of(sets[refs[k].set], refs[k].row);
            if (kd == TN_BUCKET_DELETE && spec->remove_on_delete) {
                *start = k + 1;
                *deleted = true;
            } else
                *deleted = false;
        }
        return 0;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The merge.
 */
typedef struct out_chunk {
    tn_chunk c;
    tn_bucket_emit_fn emit;
    void *ctx;
} out_chunk;

/* deduplicate and first-row: each output row is one input row (picked), copied column by column
 * when a chunk is full; strings are borrowed from the input sets (they outlive the emit). */
static int picks_flush(out_chunk *o, tn_bucket_rows *const *sets, const tn_bucket_ref *picks, uint32_t n) {
    if (n == 0) return 0;
    for (uint32_t c = 0; c < o->c.ncols; c++) {
        tn_vector *d = &o->c.cols[c];
        d->count = n;
        if (sets[0]->skip[c]) continue;          /* a partition column: zeros */
        size_t w = tn_type_width(d->type);
        bool nulls = false;
        for (uint32_t k = 0; k < n && !nulls; k++) nulls = sets[picks[k].set]->cols[c].validity != NULL;
        if (nulls) {
            int rc = tn_vector_ensure_validity(d);
            if (rc) return rc;
        }
        uint8_t *out = d->data;
        switch (w) {
        case 8:
            for (uint32_t k = 0; k < n; k++)
                ((uint64_t *)out)[k] = ((const uint64_t *)sets[picks[k].set]->cols[c].data)[picks[k].row];
            break;
        case 4:
            for (uint32_t k = 0; k < n; k++)
                ((uint32_t *)out)[k] = ((const uint32_t *)sets[picks[k].set]->cols[c].data)[picks[k].row];
            break;
        default:
            for (uint32_t k = 0; k < n; k++)
                memcpy(out + (size_t)k * w, (const uint8_t *)sets[picks[k].set]->cols[c].data + (size_t)picks[k].row * w, w);
            break;
        }
        if (d->validity)
            for (uint32_t k = 0; k < n; k++)
                tn_vector_set_valid_bit(d, k, tn_vector_is_valid(&sets[picks[k].set]->cols[c], picks[k].row));
        d->count = n;
    }
    o->c.count = n;
    int rc = o->emit(o->ctx, &o->c);
    tn_chunk_reset(&o->c);
    return rc;
}

static int out_flush(out_chunk *o) {
    if (o->c.count == 0) return 0;
    for (uint32_t i = 0; i < o->c.ncols; i++) o->c.cols[i].count = o->c.count;
    int rc = o->emit(o->ctx, &o->c);
    tn_chunk_reset(&o->c);
    return rc;
}

/* Deletion-vector upserts (dv != NULL): a key whose rows are all kept stored rows is left as it
 * is (not emitted); a key with new rows is emitted merged and its kept stored rows are listed as
 * deleted, except when the merge result is that kept row itself (first-row, or a larger stored
 * sequence.field): then nothing changes for the key. */
static bool dv_group(tn_bucket_dv *dv, const tn_bucket_ref *refs, uint32_t a, uint32_t b, const tn_bucket_ref *pick,
                     bool deleted) {
    bool fresh = false, kept = false;
    for (uint32_t k = a; k < b; k++) {
        if (refs[k].set != 0) fresh = true;
        else if (dv->kept[refs[k].row]) kept = true;
    }
    if (!kept) return !deleted;
    if (!fresh || (!deleted && pick && pick->set == 0 && dv->kept[pick->row])) return false;
    for (uint32_t k = a; k < b; k++)
        if (refs[k].set == 0 && dv->kept[refs[k].row]) dv->deleted[dv->ndeleted++] = refs[k].row;
    return !deleted;
}

int tn_bucket_merge(const tn_bucket_spec *spec, const tn_table *t, tn_bucket_rows *const *sets, tn_bucket_ref *refs,
                    uint32_t nrefs, tn_bucket_dv *dv, tn_bucket_emit_fn emit, void *ctx, uint64_t *rows_out) {
    sort_ctx s = {spec, sets, 0, {0}, -1};
    for (uint32_t k = 0; k < spec->nkey; k++)
        if (!tn_table_column(t, spec->key[k])->is_partition) s.sort[s.nsort++] = spec->key[k];
    uint32_t ncols = tn_table_num_columns(t);
    int64_t *fast_keys = NULL;         /* the fast path: sorted keys, refs[i]'s at [i] */
    out_chunk o;
    memset(&o, 0, sizeof o);
    o.emit = emit;
    o.ctx = ctx;
    acc *accs = NULL;
    tn_bucket_ref *picks = NULL;       /* deduplicate / first-row: the output rows of a chunk */
    uint32_t npicks = 0;
    tn_type *types = tn_calloc(ncols + 1, sizeof *types);
    if (!types) return TN_ENOMEM;
    for (uint32_t i = 0; i < ncols; i++) types[i] = tn_table_column(t, i)->type;
    int rc = tn_chunk_init(&o.c, ncols, types, TN_VECTOR_SIZE);
    tn_free(types);
    if (rc) return rc;
    if (spec->engine == TN_BUCKET_AGGREGATION) {
        accs = tn_calloc(ncols + 1, sizeof *accs);
        if (!accs) { rc = TN_ENOMEM; goto cleanup; }
    }
    if (spec->engine == TN_BUCKET_DEDUPLICATE || spec->engine == TN_BUCKET_FIRST_ROW) {
        picks = tn_malloc(sizeof *picks * TN_VECTOR_SIZE);
        if (!picks) { rc = TN_ENOMEM; goto cleanup; }
    }
    int seq_col = spec->seq_col >= 0 && !sets[0]->skip[spec->seq_col] ? spec->seq_col : -1;   /* a partition
                                       column as sequence.field: equal on every row of a merge */
    s.seq_col = seq_col;
    bool fast = s.nsort == 1 && int_like(tn_table_column(t, s.sort[0])->type) &&
                (seq_col < 0 || (int_like(tn_table_column(t, (uint32_t)seq_col)->type)));
    uint32_t kc0 = s.nsort ? s.sort[0] : 0;
    const tn_vector *kcv[2] = {&sets[0]->cols[kc0], &sets[1]->cols[kc0]};
    size_t kw = tn_type_width(kcv[0]->type);
    bool runs = false;                 /* fast, sorted by key_runs_merge: keys read from the column */
    if (fast && seq_col < 0) {
        rc = key_runs_merge(refs, nrefs, sets, kc0);
        if (rc < 0) goto cleanup;
        runs = rc == 0;
        rc = 0;
    }
    if (fast && !runs) {
        /* keys are never NULL (the writer refuses them); a NULL sequence sorts first, as in
         * cmp_col */
        int_ref *ir = tn_malloc(sizeof *ir * (nrefs ? nrefs : 1));
        fast_keys = tn_malloc(sizeof *fast_keys * (nrefs ? nrefs : 1));
        if (!ir || !fast_keys) {
            tn_free(ir);
            rc = TN_ENOMEM;
            goto cleanup;
        }
        uint32_t kc = s.sort[0];
        for (uint32_t i = 0; i < nrefs; i++) {
            const tn_bucket_rows *set = sets[refs[i].set];
            ir[i].key = int_at(&set->cols[kc], refs[i].row);
            ir[i].seq = 0;
            ir[i].seq_valid = 1;
            if (seq_col >= 0) {
                const tn_vector *sv = &set->cols[seq_col];
                ir[i].seq_valid = tn_vector_is_valid(sv, refs[i].row);
                if (ir[i].seq_valid) ir[i].seq = int_at(sv, refs[i].row);
            }
            ir[i].ord = (uint64_t)refs[i].set << 32 | refs[i].row;
        }
        rc = int_ref_sort(ir, nrefs);
        if (rc) {
            tn_free(ir);
            goto cleanup;
        }
        for (uint32_t i = 0; i < nrefs; i++) {
            refs[i].set = (uint32_t)(ir[i].ord >> 32);
            refs[i].row = (uint32_t)ir[i].ord;
            fast_keys[i] = ir[i].key;
        }
        tn_free(ir);
    } else if (!fast) {
        bool sorted = true;
        for (uint32_t i = 1; i < nrefs && sorted; i++) sorted = ref_cmp(&refs[i - 1], &refs[i], &s) <= 0;
        if (!sorted) qsort_r(refs, nrefs, sizeof *refs, ref_cmp, &s);
    }
    uint64_t nout = 0;
    for (uint32_t a = 0; a < nrefs && !rc;) {
        uint32_t b = a + 1;
        if (runs) {
            int64_t ka = int_at_w(kcv[refs[a].set], kw, refs[a].row);
            while (b < nrefs && int_at_w(kcv[refs[b].set], kw, refs[b].row) == ka) b++;
        } else if (fast)
            while (b < nrefs && fast_keys[b] == fast_keys[a]) b++;
        else
            while (b < nrefs && key_cmp(&s, &refs[a], &refs[b]) == 0) b++;
        uint32_t row = o.c.count;
        const tn_bucket_ref *pick = picks ? (spec->engine == TN_BUCKET_DEDUPLICATE ? &refs[b - 1] : &refs[a]) : NULL;
        uint32_t start;
        bool deleted;
        rc = group_kinds(spec, t, sets, refs, a, b, &start, &deleted);
        if (rc) break;
        if (dv ? !dv_group(dv, refs, a, b, pick, deleted) : deleted) {
            a = b;
            continue;
        }
        if (picks) {
            picks[npicks++] = *pick;
            nout++;
            if (npicks == TN_VECTOR_SIZE) {
                rc = picks_flush(&o, sets, picks, npicks);
                npicks = 0;
            }
            a = b;
            continue;
        } else if (spec->engine == TN_BUCKET_PARTIAL_UPDATE) {
            for (uint32_t c = 0; c < ncols && !rc; c++) {
                if (sets[0]->skip[c]) {
                    o.c.cols[c].count = row + 1;
                    continue;
                }
                const tn_bucket_ref *from = NULL;
                for (uint32_t k = b; k-- > start;)
                    if (kind_of(sets[refs[k].set], refs[k].row) == TN_BUCKET_ADD &&
                        tn_vector_is_valid(&sets[refs[k].set]->cols[c], refs[k].row)) {
                        from = &refs[k];
                        break;
                    }
                o.c.cols[c].count = row;
                if (from) rc = tn_vector_append_from(&o.c.cols[c], &sets[from->set]->cols[c], from->row);
                else {
                    rc = tn_vector_set_null(&o.c.cols[c], row);
                    o.c.cols[c].count = row + 1;
                }
            }
        } else {
            for (uint32_t c = 0; c < ncols && !rc; c++) {
                if (sets[0]->skip[c]) {
                    o.c.cols[c].count = row + 1;
                    continue;
                }
                acc *ac = &accs[c];
                memset(&ac->v, 0, sizeof ac->v);
                ac->v.type = tn_table_column(t, c)->type;
                ac->v.is_null = true;
                ac->seen = false;
                if (spec->is_key[c]) {
                    tn_vector_get_value(&sets[refs[a].set]->cols[c], refs[a].row, &ac->v);
                } else {
                    for (uint32_t k = start; k < b && !rc; k++) {
                        tn_value v;
                        tn_vector_get_value(&sets[refs[k].set]->cols[c], refs[k].row, &v);
                        if (kind_of(sets[refs[k].set], refs[k].row) == TN_BUCKET_ADD)
                            rc = agg_step(t, c, (tn_bucket_agg)spec->agg[c], ac, &v, refs[k].set == 0, spec->delims[c]);
                        else if (!spec->ignore_retract[c])
                            rc = agg_retract(t, c, (tn_bucket_agg)spec->agg[c], ac, &v);
                    }
                }
                if (!rc && !spec->is_key[c] && spec->agg[c] == TN_AGG_RBM32)
                    rc = tn_bucket_rbm32_finish(&ac->rbm, &ac->v, &ac->text);
                if (rc) break;
                if (!spec->is_key[c] && spec->agg[c] == TN_AGG_LISTAGG && !ac->v.is_null) {
                    ac->v.u.s.ptr = (const char *)ac->text.data;
                    ac->v.u.s.len = (uint32_t)ac->text.len;
                }
                rc = tn_vector_set_value(&o.c.cols[c], row, &ac->v);
                o.c.cols[c].count = row + 1;
            }
        }
        if (rc) break;
        o.c.count = row + 1;
        nout++;
        if (o.c.count == TN_VECTOR_SIZE) rc = out_flush(&o);
        a = b;
    }
    if (!rc && picks) rc = picks_flush(&o, sets, picks, npicks);
    if (!rc) rc = out_flush(&o);
    if (rows_out) *rows_out = nout;
cleanup:
    tn_free(picks);
    tn_free(fast_keys);
    if (accs) {
        for (uint32_t c = 0; c < ncols; c++) {
            tn_buf_free(&accs[c].text);
            tn_bucket_rbm_free(&accs[c].rbm);
        }
        tn_free(accs);
    }
    tn_chunk_free(&o.c);
    return rc;
}
