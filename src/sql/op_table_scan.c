/*
 * sql/op_table_scan.c: the pipeline source of a Delta table scan node (TN_SCAN_DELTA): has the
 * table's layout plan a tn_table_scan with the node's projection and its pushed-down `column OP
 * constant` predicates as table filters (partition pruning, stats skipping, row-group and page
 * pruning, the layout's own skipping), then runs one morsel per (file, row group) on the pool.
 * TABLESAMPLE: a layout may plan the sample itself (OTree); otherwise rows are kept by a seeded
 * hash of (file, row). The scan's counters go to the statement's --stats when the source is freed.
 */
#include <string.h>

#include "sql/stmt.h"

typedef struct tscan_shared {
    tn_exec *ex;
    tn_plan *node;
    tn_table_scan *scan;
    uint64_t live_rows;              /* rows counted into the statement's stats while running */
    tn_table_scan_stats at_open;     /* table totals, counted when the scan opened */
    bool layout_sampled;             /* the layout planned a sample: rows are not sampled again */
} tscan_shared;

typedef struct tscan_ctx {
    tscan_shared *sh;
    tn_pipeline *p;
    uint32_t worker;
    tn_chunk tmp;                    /* sampled rows */
} tscan_ctx;

static bool sampling(const tn_plan_scan *s) { return s->sample_percent > 0 || s->sample_rows != 0; }

static inline uint64_t smix(uint64_t h) {
    h ^= h >> 31;
    h *= 0x7fb5d329728ea185ULL;
    h ^= h >> 27;
    h *= 0x81dadef4bc2dd44dULL;
    h ^= h >> 33;
    return h;
}

static int sample_push(tscan_ctx *c, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    const tn_plan_scan *s = &c->sh->node->u.scan;
    if (s->sample_rows < 0) return 0;
    double pct = s->sample_percent;
    if (s->sample_rows > 0) pct = s->total_rows > 0 ? 100.0 * (double)s->sample_rows / (double)s->total_rows : 100.0;
    uint64_t threshold = pct >= 100 ? UINT64_MAX : (uint64_t)(pct / 100.0 * 18446744073709551615.0);
    uint32_t sel[TN_VECTOR_SIZE], n = 0;
    if (chunk->count > TN_VECTOR_SIZE) return tn_error_set(TN_EINTERNAL, "table scan chunk too large");
    for (uint32_t i = 0; i < chunk->count; i++) {
        uint64_t h = smix(s->sample_seed * 0x9E3779B97F4A7C15ULL + ((uint64_t)file << 40) + (uint64_t)(first_row + i));
        if (h <= threshold) sel[n++] = i;
    }
    if (n == chunk->count) return tn_pipe_push(c->p, 0, c->worker, chunk);
    if (n == 0) return 0;
    c->tmp.count = n;
    for (uint32_t k = 0; k < chunk->ncols; k++) {
        int rc = tn_vector_gather(&c->tmp.cols[k], &chunk->cols[k], sel, n);
        if (rc) return rc;
    }
    return tn_pipe_push(c->p, 0, c->worker, &c->tmp);
}

static int on_chunk(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    tscan_ctx *c = ctx;
    /* progress (tn_sql_session_progress) while the scan runs; corrected when it ends */
    __atomic_add_fetch(&c->sh->live_rows, chunk->count, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->sh->ex->stats.rows_scanned, chunk->count, __ATOMIC_RELAXED);
    if (sampling(&c->sh->node->u.scan) && !c->sh->layout_sampled) return sample_push(c, chunk, file, first_row);
    return tn_pipe_push(c->p, 0, c->worker, chunk);
}

static int tscan_read(tn_source *src, tn_pipeline *p, uint32_t m, uint32_t worker) {
    tscan_shared *sh = src->shared;
    tscan_ctx c;
    memset(&c, 0, sizeof c);
    c.sh = sh;
    c.p = p;
    c.worker = worker;
    int rc = 0;
    if (sampling(&sh->node->u.scan) && !sh->layout_sampled) {
        uint32_t n = tn_table_scan_num_columns(sh->scan);
        if (n) rc = tn_chunk_init(&c.tmp, n, tn_table_scan_types(sh->scan), TN_VECTOR_SIZE);
    }
    if (!rc) rc = tn_table_scan_run_morsel(sh->scan, m, on_chunk, &c);
    if (c.tmp.cols) tn_chunk_free(&c.tmp);
    return rc;
}

static void tscan_free(tn_source *src) {
    tscan_shared *sh = src->shared;
    if (!sh) return;
    if (sh->scan) {
        tn_table_scan_stats st;
        tn_table_scan_get_stats(sh->scan, &st);
        tn_sql_stats *x = &sh->ex->stats;
        __atomic_add_fetch(&x->files_scanned, st.files_scanned, __ATOMIC_RELAXED);
        __atomic_add_fetch(&x->row_groups_scanned, st.row_groups_scanned, __ATOMIC_RELAXED);
        uint64_t live = __atomic_load_n(&sh->live_rows, __ATOMIC_RELAXED);
        if (st.rows_scanned >= live) __atomic_add_fetch(&x->rows_scanned, st.rows_scanned - live, __ATOMIC_RELAXED);
        else __atomic_sub_fetch(&x->rows_scanned, live - st.rows_scanned, __ATOMIC_RELAXED);
        __atomic_add_fetch(&x->bytes_scanned, st.bytes_scanned, __ATOMIC_RELAXED);
        if (st.table_files > sh->at_open.table_files)
            __atomic_add_fetch(&x->table_files, st.table_files - sh->at_open.table_files, __ATOMIC_RELAXED);
        if (st.table_rows > sh->at_open.table_rows)
            __atomic_add_fetch(&x->table_rows, st.table_rows - sh->at_open.table_rows, __ATOMIC_RELAXED);
        if (st.table_bytes > sh->at_open.table_bytes)
            __atomic_add_fetch(&x->table_bytes, st.table_bytes - sh->at_open.table_bytes, __ATOMIC_RELAXED);
        tn_table_scan_close(sh->scan);
    }
    tn_free(sh);
    src->shared = NULL;
}

int tn_op_table_scan_source(tn_exec *ex, tn_plan *node, tn_source *out) {
    tn_plan_scan *s = &node->u.scan;
    if (!s->source) return tn_error_set(TN_EINTERNAL, "table scan without a table");
    tscan_shared *sh = tn_calloc(1, sizeof *sh);
    if (!sh) return TN_ENOMEM;
    sh->ex = ex;
    sh->node = node;
    out->name = "DELTA_SCAN";
    out->node = node;
    out->shared = sh;
    out->read = tscan_read;
    out->free = tscan_free;
    tn_table_filter *filters = NULL;
    int rc = 0;
    if (s->npreds) {
        filters = tn_calloc(s->npreds, sizeof *filters);
        if (!filters) return TN_ENOMEM;
        for (uint32_t i = 0; i < s->npreds; i++) {
            filters[i].column = s->preds[i].column;
            filters[i].op = s->preds[i].op;
            filters[i].constant = s->preds[i].constant;
        }
    }
    tn_layout_scan_options o = TN_LAYOUT_SCAN_OPTIONS_INIT;
    o.scan.columns = s->cols;
    o.scan.ncolumns = s->ncols;
    o.scan.filters = filters;
    o.scan.nfilters = s->npreds;
    o.scan.read_types = s->read_types;         /* struct fields the plan uses (optimize_leaves.c) */
    if (s->sample_rows == 0) o.sample_percent = s->sample_percent;
    if (s->sample_rows > 0) o.sample_rows = s->sample_rows;
    rc = tn_layout_scan_open(&sh->scan, &sh->layout_sampled, (tn_table *)s->source, &o);
    tn_free(filters);
    if (rc) return tn_error_prefix(rc, "%s", s->npaths ? s->paths[0] : "table");
    out->nmorsels = tn_table_scan_num_morsels(sh->scan);
    tn_table_scan_get_stats(sh->scan, &sh->at_open);
    __atomic_add_fetch(&ex->stats.table_files, sh->at_open.table_files, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ex->stats.table_rows, sh->at_open.table_rows, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ex->stats.table_bytes, sh->at_open.table_bytes, __ATOMIC_RELAXED);
    return 0;
}
