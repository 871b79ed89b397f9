/*
 * layout/otree/scan.c: scans of OTree tables. TABLESAMPLE (p PERCENT) is qbeast-spark's sample:
 * the rows with weight (hash of the indexed columns) < Weight(p/100). TABLESAMPLE (n ROWS) is the
 * n rows of lowest weight (the shortest prefix of the same order: a pre-pass over the indexed
 * columns of a growing sample finds the n-th weight). Files are chosen as qbeast's QueryExecutor
 * does (per revision, a cube is visited while every indexed ancestor's maxWeight is below the
 * sample weight; of the visited cubes, the blocks with minWeight < W; unindexed files always);
 * in tarn-written files (rows in weight order, page starts in the footer, see write.c) only the
 * prefix of pages that can hold weights < W is read, and the exact row filter on the weight
 * runs inside the table scan. Filters on indexed
 * columns (`col OP constant`, with or without a sample) skip the blocks whose cube's subspace
 * cannot hold a matching row: the constants are mapped through each revision's transformations
 * into the cube space (ranges for ordered transformations, points for hashed columns' equality).
 */
#include "layout/otree/otreeInt.h"

#include <stdlib.h>
#include <string.h>

#define OT_BOX_EPS 1e-9                /* coordinates compared with slack: pruning stays a superset */

typedef struct row_filter_ctx {
    int32_t below;                     /* keep rows with weight < below ... */
    bool ties;                         /* ... and, when ties, rows of weight == below while ties_left > 0 */
    int64_t ties_left;
    uint32_t ncols;
} row_filter_ctx;

static int weight_filter(void *ctx, const tn_chunk *cols, uint8_t *keep) {
    row_filter_ctx *c = ctx;
    const tn_vector *v[64];
    for (uint32_t k = 0; k < c->ncols; k++) v[k] = &cols->cols[k];
    for (uint32_t r = 0; r < cols->count; r++) {
        if (!keep[r]) continue;
        int32_t w = ot_weight_row(v, c->ncols, r);
        if (w < c->below) continue;
        if (c->ties && w == c->below && __atomic_fetch_sub(&c->ties_left, 1, __ATOMIC_RELAXED) > 0) continue;
        keep[r] = 0;
    }
    return 0;
}

static void free_ctx(void *ctx) { tn_free(ctx); }

/* What the scan may skip: a sample weight and/or a query box per revision. */
typedef struct file_ctx {
    const ot_index *ix;
    const tn_delta_snapshot *snap;
    bool sample;                       /* blocks need minWeight < w and a visited cube */
    int32_t w;
    double *lo, *hi;                   /* per revision position: d bounds each (NULL: no box) */
    bool *boxed;                       /* per revision position: the box narrows a dimension */
} file_ctx;

/* Whether the cube would be visited by qbeast's DFS for sample weight w: every strict ancestor
 * present in the revision has maxWeight < w (missing ancestors do not stop the descent). */
static bool cube_visited(const ot_rev_index *ri, const char *id, uint32_t dims, int32_t w) {
    uint32_t cpl = ot_cube_chars_per_level(dims);
    size_t n = strlen(id);
    char buf[OT_MAX_LEVELS * 11 + 1];
    if (n >= sizeof buf) return true;
    for (size_t len = 0; len < n; len += cpl) {
        memcpy(buf, id, len);
        buf[len] = 0;
        const ot_cube *c = ot_rev_index_find(ri, buf);
        if (c && !(w > c->max_weight)) return false;
    }
    return true;
}

static uint32_t rev_pos(const ot_index *ix, const ot_rev_index *ri) { return (uint32_t)(ri - ix->rindex); }

/* The cube's subspace meets the query box of its revision. */
static bool cube_in_box(const file_ctx *c, const ot_rev_index *ri, const char *id) {
    uint32_t r = rev_pos(c->ix, ri), d = ri->rev->ncols;
    if (!c->boxed || !c->boxed[r]) return true;
    double from[64], to[64];
    if (d > 64) return true;
    ot_cube_bounds(id, d, from, to);
    const double *lo = c->lo + (size_t)r * d, *hi = c->hi + (size_t)r * d;
    for (uint32_t i = 0; i < d; i++)
        if (hi[i] < from[i] - OT_BOX_EPS || lo[i] > to[i] + OT_BOX_EPS) return false;
    return true;
}

static bool block_needed(const file_ctx *c, const ot_rev_index *ri, const ot_block *bl, int32_t min_weight) {
    if (c->sample && !(min_weight < c->w && cube_visited(ri, bl->cube, ri->rev->ncols, c->w))) return false;
    return cube_in_box(c, ri, bl->cube);
}

static bool file_sampled(void *ctx, const tn_delta_file *f) {
    const file_ctx *c = ctx;
    size_t fi = (size_t)(f - c->snap->files);
    if (fi >= c->ix->nfiles) return true;
    const ot_file *of = &c->ix->files[fi];
    if (of->revision == 0) return true;          /* unindexed: read, rows filtered */
    const ot_rev_index *ri = ot_index_rev_index(c->ix, of->revision);
    if (!ri) return true;
    for (uint32_t b = 0; b < of->nblocks; b++)
        if (block_needed(c, ri, &of->blocks[b], of->blocks[b].min_weight)) return true;
    return false;
}

/* tarn's files: rows in weight order, the footer's OT_PAGES_KEY gives where pages start and
 * their first weight; a sample of weight w needs the rows before the first page that starts at
 * a weight >= w: each row group is read up to there (pages beyond are neither read nor
 * decoded, and their entries not parsed). A footer that does not fit the file (row count,
 * ascending starts and weights up to that page) is ignored: every row is read. */
static int rg_limit(void *ctx, uint32_t file, const tn_delta_file *f, const tn_parquet_file *pf, const uint8_t *keep,
                    int64_t *limit, uint32_t nrg) {
    (void)file;
    (void)f;
    (void)keep;
    const file_ctx *c = ctx;
    if (!c->sample) return 0;
    const char *text = NULL;
    for (uint32_t i = 0, n = tn_parquet_kv_count(pf); i < n && !text; i++) {
        const char *k, *v;
        tn_parquet_kv(pf, i, &k, &v);
        if (k && v && strcmp(k, OT_PAGES_KEY) == 0) text = v;
    }
    if (!text || strncmp(text, "{\"rows\":", 8) != 0) return 0;
    char *end;
    long long rows = strtoll(text + 8, &end, 10);
    if (rows != tn_parquet_num_rows(pf) || strncmp(end, ",\"pages\":[", 10) != 0) return 0;
    const char *q = end + 10;
    long long need = rows, prev_start = -1, prev_w = INT32_MIN;
    while (*q == '[') {
        long long st = strtoll(q + 1, &end, 10);
        if (*end != ',') return 0;
        long long wt = strtoll(end + 1, &end, 10);
        if (*end != ']' || st <= prev_start || st >= rows || (prev_start < 0 && st != 0) || wt < prev_w ||
            wt > INT32_MAX)
            return 0;
        prev_start = st;
        prev_w = wt;
        q = end + 1;
        if (wt >= c->w) {              /* the first page wholly outside the sample: the rest is */
            need = st;                 /* not read, so not parsed either */
            break;
        }
        if (*q == ',') q++;
    }
    if ((need == rows && *q != ']') || (rows > 0 && prev_start < 0)) return 0;
    int64_t first = 0;
    for (uint32_t rg = 0; rg < nrg; rg++) {
        int64_t n = tn_parquet_row_group_num_rows(pf, rg);
        int64_t lim = need - first;
        if (lim < n) limit[rg] = lim > 0 ? lim : 0;
        first += n;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Query boxes: per revision and dimension, [lo, hi] in the cube space from the filters.
 */
static bool ordered_transform(ot_transform_kind k) {
    return k == OT_T_LINEAR || k == OT_T_QUANTILES || k == OT_T_STRING_QUANTILES;
}

static void narrow(double *lo, double *hi, double a, double b) {
    if (a > *lo) *lo = a;
    if (b < *hi) *hi = b;
}

static int build_boxes(file_ctx *c, const tn_table_filter *filters, uint32_t nfilters, tn_arena *a) {
    const ot_index *ix = c->ix;
    bool any = false;
    for (uint32_t f = 0; f < nfilters && !any; f++)
        for (uint32_t i = 0; i < ix->ncols; i++) any = any || filters[f].column == ix->cols[i];
    if (!any) return 0;
    size_t total = 0;
    for (uint32_t r = 0; r < ix->nrevs; r++) total += ix->revs[r].ncols;
    c->lo = tn_arena_alloc(a, sizeof *c->lo * (total ? total : 1));
    c->hi = tn_arena_alloc(a, sizeof *c->hi * (total ? total : 1));
    c->boxed = tn_arena_calloc(a, sizeof *c->boxed * (ix->nrevs ? ix->nrevs : 1));
    if (!c->lo || !c->hi || !c->boxed) return TN_ENOMEM;
    size_t off = 0;
    for (uint32_t r = 0; r < ix->nrevs; r++) {
        const ot_revision *rv = &ix->revs[r];
        double *lo = c->lo + off, *hi = c->hi + off;
        /* cube_in_box finds revision r at r * d: every revision indexes the same d columns */
        for (uint32_t i = 0; i < rv->ncols; i++) {
            lo[i] = 0;
            hi[i] = 1;
            const ot_transform *tr = &rv->tr[i];
            for (uint32_t f = 0; f < nfilters; f++) {
                const tn_table_filter *q = &filters[f];
                if ((int)q->column != rv->cols[i].table_column) continue;
                tn_value nul = q->constant;
                nul.is_null = true;
                bool ord = ordered_transform(tr->kind);
                if (q->op == TN_PQ_IS_NULL && (ord || tr->kind == OT_T_HASH)) {
                    double x = ot_transform_coord(tr, &nul);
                    narrow(&lo[i], &hi[i], x, x);
                    continue;
                }
                if (q->op == TN_PQ_NE || q->op == TN_PQ_IS_NOT_NULL || q->constant.is_null) continue;
                double x = ot_transform_coord(tr, &q->constant);
                if (tr->kind == OT_T_HASH) {
                    if (q->op == TN_PQ_EQ) narrow(&lo[i], &hi[i], x, x);
                } else if (ord) {
                    if (q->op == TN_PQ_EQ) narrow(&lo[i], &hi[i], x, x);
                    else if (q->op == TN_PQ_LT || q->op == TN_PQ_LE) narrow(&lo[i], &hi[i], 0, x);
                    else if (q->op == TN_PQ_GT || q->op == TN_PQ_GE) narrow(&lo[i], &hi[i], x, 1);
                }
            }
            if (lo[i] > 0 || hi[i] < 1) c->boxed[r] = true;
        }
        off += rv->ncols;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * TABLESAMPLE (n ROWS): the n-th smallest weight, by scanning the indexed columns of samples of
 * growing fraction until one holds n rows.
 */
typedef struct collect_ctx {
    int32_t below;
    uint32_t ncols;
    int32_t *w;
    uint64_t n, cap;
    int err;
} collect_ctx;

static int collect(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    (void)file;
    (void)first_row;
    collect_ctx *c = ctx;
    const tn_vector *v[64];
    for (uint32_t k = 0; k < c->ncols; k++) v[k] = &chunk->cols[k];
    for (uint32_t r = 0; r < chunk->count; r++) {
        int32_t w = ot_weight_row(v, c->ncols, r);
        if (w >= c->below && c->below != INT32_MAX) continue;
        if (c->n == c->cap) {
            uint64_t cap = c->cap ? c->cap * 2 : 4096;
            int32_t *nw = tn_realloc(c->w, sizeof *nw * cap);
            if (!nw) return TN_ENOMEM;
            c->w = nw;
            c->cap = cap;
        }
        c->w[c->n++] = w;
    }
    return 0;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sets *wn to the n-th smallest weight of the rows matching the box (when any) and *ties to how
 * many rows of weight *wn belong to the sample; *all when the table has at most n rows. */
static int nth_weight(tn_table *t, file_ctx *fc, const tn_table_scan_options *base, int64_t n, int32_t *wn,
                      int64_t *ties, bool *all) {
    const ot_index *ix = fc->ix;
    *all = false;
    uint64_t total = 0;
    for (uint32_t f = 0; f < ix->nfiles; f++) {
        if (ix->files[f].revision == 0) {
            int64_t nr = tn_delta_file_num_records(&fc->snap->files[f]);
            total += nr > 0 ? (uint64_t)nr : 0;
        }
        for (uint32_t b = 0; b < ix->files[f].nblocks; b++) total += (uint64_t)ix->files[f].blocks[b].count;
    }
    double frac = total ? 1.25 * (double)n / (double)total + 1e-9 : 1;
    collect_ctx cc = {0};
    cc.ncols = ix->ncols;
    int rc = 0;
    for (;;) {
        if (frac > 1) frac = 1;
        cc.n = 0;
        cc.below = frac >= 1 ? INT32_MAX : ot_weight_of_fraction(frac);
        /* the sample is of the table: the WHERE's filters apply to it afterwards */
        tn_table_scan_options so = *base;
        so.filters = NULL;
        so.nfilters = 0;
        so.all_columns = false;
        so.columns = ix->cols;
        so.ncolumns = ix->ncols;
        so.read_types = NULL;            /* per column of the caller's projection */
        so.row_filter = NULL;
        so.row_filter_ctx = NULL;
        so.row_filter_free = NULL;
        so.row_filter_columns = NULL;
        so.nrow_filter_columns = 0;
        file_ctx pc = *fc;
        pc.boxed = NULL;
        pc.sample = frac < 1;
        pc.w = cc.below;
        so.file_filter = file_sampled;
        so.file_filter_ctx = &pc;
        so.row_group_limit = rg_limit;
        so.row_group_limit_ctx = &pc;
        tn_table_scan *scan = NULL;
        rc = tn_table_scan_open(&scan, t, &so);
        if (!rc) rc = tn_table_scan_run(scan, collect, &cc);
        tn_table_scan_close(scan);
        if (rc) break;
        if (cc.n >= (uint64_t)n) break;
        if (frac >= 1) {
            *all = true;               /* fewer rows than asked (after the filters): all of them */
            break;
        }
        frac = cc.n ? frac * ((double)n / (double)cc.n) * 1.5 : frac * 8;
    }
    if (!rc && !*all) {
        qsort(cc.w, cc.n, sizeof *cc.w, cmp_i32);
        *wn = cc.w[n - 1];
        uint64_t lt = 0;
        while (lt < cc.n && cc.w[lt] < *wn) lt++;
        *ties = n - (int64_t)lt;
    }
    tn_free(cc.w);
    return rc;
}

int ot_scan_open(tn_table_scan **out, bool *sampled, tn_table *t, const tn_layout_scan_options *opts) {
    *out = NULL;
    *sampled = false;
    bool want_sample = opts->sample_percent > 0 || opts->sample_rows > 0;
    /* no revision at all (only qbeast.lastRevisionID): nothing indexed, the caller samples rows */
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    bool any_rev = false;
    for (uint32_t i = 0; i < md->nconfiguration && !any_rev; i++)
        any_rev = strncmp(md->configuration[i].key, "qbeast.revision.", 16) == 0;
    if (!any_rev || (!want_sample && opts->scan.nfilters == 0)) return tn_table_scan_open(out, t, &opts->scan);
    ot_index *ix = NULL;
    tn_arena *box_arena = NULL;
    int rc = ot_index_load(&ix, t);
    if (rc) return rc;
    tn_table_scan_options so = opts->scan;
    file_ctx fc = {ix, tn_table_snapshot(t), false, 0, NULL, NULL, NULL};
    if (ix->ncols > 64) {
        rc = tn_error_set(TN_ELIMIT, "table '%s': more than 64 indexed columns", tn_table_path(t));
        goto cleanup;
    }
    box_arena = tn_arena_create(0);   /* the index is shared: nothing is added to its arena */
    rc = box_arena ? build_boxes(&fc, opts->scan.filters, opts->scan.nfilters, box_arena) : TN_ENOMEM;
    if (rc) goto cleanup;
    row_filter_ctx rf = {0, false, 0, ix->ncols};
    bool filter_rows = false;
    if (opts->sample_rows > 0) {
        int32_t wn = 0;
        int64_t ties = 0;
        bool all = false;
        rc = nth_weight(t, &fc, &opts->scan, opts->sample_rows, &wn, &ties, &all);
        if (rc) goto cleanup;
        *sampled = true;
        if (!all) {
            filter_rows = true;
            rf.below = wn;
            rf.ties = true;
            rf.ties_left = ties;
            /* blocks that may hold weights <= wn */
            if (wn < INT32_MAX) {
                fc.sample = true;
                fc.w = wn + 1;
            }
        }
    } else if (opts->sample_percent > 0) {
        *sampled = true;
        /* TABLESAMPLE (100 PERCENT) is the whole table (qbeast's hash < Int.MaxValue would drop
         * the rows whose weight is exactly Int.MaxValue) */
        if (opts->sample_percent < 100) {
            filter_rows = true;
            rf.below = ot_weight_of_fraction(opts->sample_percent / 100.0);
            fc.sample = true;
            fc.w = rf.below;
        }
    }
    if (filter_rows) {
        row_filter_ctx *p = tn_calloc(1, sizeof *p);
        if (!p) { rc = TN_ENOMEM; goto cleanup; }
        *p = rf;
        so.row_filter = weight_filter;
        so.row_filter_ctx = p;
        so.row_filter_free = free_ctx;
        so.row_filter_columns = ix->cols;
        so.nrow_filter_columns = ix->ncols;
    }
    if (fc.sample || fc.boxed) {
        so.file_filter = file_sampled;
        so.file_filter_ctx = &fc;
        so.row_group_limit = rg_limit;
        so.row_group_limit_ctx = &fc;
    }
    rc = tn_table_scan_open(out, t, &so);
cleanup:
    tn_arena_destroy(box_arena);
    ot_index_free(ix);
    return rc;
}
