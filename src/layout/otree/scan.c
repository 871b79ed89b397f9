/*
 * layout/otree/scan.c: scans of OTree tables. TABLESAMPLE (p PERCENT) is qbeast-spark's sample:
 * the rows with weight (hash of the indexed columns) < Weight(p/100). Files are chosen as
 * qbeast's QueryExecutor does (per revision, a cube is visited while every indexed ancestor's
 * maxWeight is below the sample weight; of the visited cubes, the blocks with minWeight < W;
 * unindexed files always), row groups of tarn-written files by their weight range (tag
 * 'tarn.rowGroups', written by write.c), and the exact row filter on the weight runs inside the
 * table scan.
 */
#include "layout/otree/otreeInt.h"

#include <stdlib.h>
#include <string.h>

typedef struct row_filter_ctx {
    int32_t below;                     /* keep rows with weight < below */
    uint32_t ncols;
} row_filter_ctx;

static int weight_filter(void *ctx, const tn_chunk *cols, uint8_t *keep) {
    const row_filter_ctx *c = ctx;
    const tn_vector *v[64];
    for (uint32_t k = 0; k < c->ncols; k++) v[k] = &cols->cols[k];
    for (uint32_t r = 0; r < cols->count; r++)
        if (ot_weight_row(v, c->ncols, r) >= c->below) keep[r] = 0;
    return 0;
}

static void free_ctx(void *ctx) { tn_free(ctx); }

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

typedef struct file_ctx {
    const ot_index *ix;
    const tn_delta_snapshot *snap;
    int32_t w;
} file_ctx;

static bool file_sampled(void *ctx, const tn_delta_file *f) {
    const file_ctx *c = ctx;
    size_t fi = (size_t)(f - c->snap->files);
    if (fi >= c->ix->nfiles) return true;
    const ot_file *of = &c->ix->files[fi];
    if (of->revision == 0) return true;          /* unindexed: read, rows filtered */
    const ot_rev_index *ri = ot_index_rev_index(c->ix, of->revision);
    if (!ri) return true;
    for (uint32_t b = 0; b < of->nblocks; b++) {
        const ot_block *bl = &of->blocks[b];
        if (bl->min_weight < c->w && cube_visited(ri, bl->cube, ri->rev->ncols, c->w)) return true;
    }
    return false;
}

static const char *file_tag(const tn_delta_file *f, const char *key) {
    for (uint32_t i = 0; i < f->ntags; i++)
        if (f->tags[i].key && strcmp(f->tags[i].key, key) == 0) return f->tags[i].value;
    return NULL;
}

/* tarn's files: 'tarn.rowGroups' = [[block, minWeight, maxWeight, rows], ...] per row group (rows
 * of a block in weight order). A row group is read when its block's cube is visited and its
 * minWeight < W. A tag that does not fit the footer (row groups and their row counts, e.g. a
 * file another writer rewrote keeping the tags) is ignored: every row group is read. */
static int rg_sampled(void *ctx, uint32_t file, const tn_delta_file *f, const tn_parquet_file *pf, uint8_t *keep,
                      uint32_t nrg) {
    const file_ctx *c = ctx;
    const char *tag = file_tag(f, "tarn.rowGroups");
    if (!tag || file >= c->ix->nfiles) return 0;
    const ot_file *of = &c->ix->files[file];
    const ot_rev_index *ri = of->revision ? ot_index_rev_index(c->ix, of->revision) : NULL;
    if (!ri) return 0;
    uint8_t *want = tn_malloc(nrg ? nrg : 1);
    if (!want) return TN_ENOMEM;
    const char *p = tag;
    uint32_t k = 0;
    bool ok = *p++ == '[';
    while (ok && *p == '[') {
        char *end;
        long b = strtol(p + 1, &end, 10);
        ok = *end == ',';
        long mn = ok ? strtol(end + 1, &end, 10) : 0;
        ok = ok && *end == ',';
        long mx = ok ? strtol(end + 1, &end, 10) : 0;
        ok = ok && *end == ',';
        long rows = ok ? strtol(end + 1, &end, 10) : 0;
        ok = ok && *end == ']' && b >= 0 && (uint32_t)b < of->nblocks && k < nrg && mn <= mx &&
             rows == tn_parquet_row_group_num_rows(pf, k);
        if (!ok) break;
        const ot_block *bl = &of->blocks[b];
        want[k++] = mn < c->w && cube_visited(ri, bl->cube, ri->rev->ncols, c->w);
        p = end + 1;
        if (*p == ',') p++;
    }
    if (ok && *p == ']' && k == nrg)
        for (uint32_t i = 0; i < nrg; i++)
            if (!want[i]) keep[i] = 0;
    tn_free(want);
    return 0;
}

int ot_scan_open(tn_table_scan **out, bool *sampled, tn_table *t, const tn_layout_scan_options *opts) {
    *out = NULL;
    *sampled = false;
    if (!(opts->sample_percent > 0)) return tn_table_scan_open(out, t, &opts->scan);
    /* no revision at all (only qbeast.lastRevisionID): nothing indexed, the caller samples rows */
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    bool any_rev = false;
    for (uint32_t i = 0; i < md->nconfiguration && !any_rev; i++)
        any_rev = strncmp(md->configuration[i].key, "qbeast.revision.", 16) == 0;
    if (!any_rev) return tn_table_scan_open(out, t, &opts->scan);
    ot_index *ix = NULL;
    int rc = ot_index_load(&ix, t);
    if (rc) return rc;
    *sampled = true;
    tn_table_scan_options so = opts->scan;
    file_ctx fc = {ix, tn_table_snapshot(t), 0};
    if (opts->sample_percent < 100) {
        if (ix->ncols > 64) {
            rc = tn_error_set(TN_ELIMIT, "table '%s': more than 64 indexed columns", tn_table_path(t));
            goto cleanup;
        }
        row_filter_ctx *rf = tn_calloc(1, sizeof *rf);
        if (!rf) { rc = TN_ENOMEM; goto cleanup; }
        rf->below = ot_weight_of_fraction(opts->sample_percent / 100.0);
        rf->ncols = ix->ncols;
        fc.w = rf->below;
        so.file_filter = file_sampled;
        so.file_filter_ctx = &fc;
        so.row_group_filter = rg_sampled;
        so.row_group_filter_ctx = &fc;
        so.row_filter = weight_filter;
        so.row_filter_ctx = rf;
        so.row_filter_free = free_ctx;
        so.row_filter_columns = ix->cols;
        so.nrow_filter_columns = ix->ncols;
    }
    /* TABLESAMPLE (100 PERCENT) is the whole table (qbeast's hash < Int.MaxValue would drop the
     * rows whose weight is exactly Int.MaxValue) */
    rc = tn_table_scan_open(out, t, &so);
cleanup:
    ot_index_free(ix);
    return rc;
}
