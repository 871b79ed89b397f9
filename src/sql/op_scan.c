/*
 * sql/op_scan.c: pipeline sources that read data: Parquet files (one morsel per row group that
 * the pushed-down predicates do not rule out; columns projected; page skipping; counters for
 * --stats; row counts alone when no column is needed; the pushed predicates also filter rows
 * inside the scan; a worker reuses its open scan for its next row group), CSV and NDJSON files
 * (one morsel), and materialized collections (one morsel per chunk). TABLESAMPLE filters rows
 * by a seeded hash.
 */
#include <string.h>

#include "sql/exec.h"
#include "text/text.h"

typedef struct pq_morsel {
    uint32_t file;
    uint32_t rg;
} pq_morsel;

/* A worker's open Parquet scan, reused for its next morsel of the same file (tn_parquet_scan_reset
 * keeps the chunk and page buffers: fresh ones per row group cost page faults). */
typedef struct pq_cached {
    tn_parquet_scan *scan;
    uint32_t file;
    tn_chunk chunk;
    tn_chunk wide;             /* read_types: the rows in the columns' full types (else unused) */
} pq_cached;

static void cached_free_chunks(pq_cached *pc) {
    if (pc->chunk.cols) tn_chunk_free(&pc->chunk);
    if (pc->wide.cols) tn_chunk_free(&pc->wide);
    memset(&pc->chunk, 0, sizeof pc->chunk);
    memset(&pc->wide, 0, sizeof pc->wide);
}

typedef struct scan_shared {
    tn_exec *ex;
    tn_plan *node;
    pq_morsel *morsels;
    uint32_t nmorsels;
    pq_cached *cache;          /* per worker */
    uint32_t ncache;
} scan_shared;

static void count_stats(tn_exec *ex, const tn_parquet_scan_counters *c) {
    __atomic_add_fetch(&ex->stats.row_groups_scanned, c->row_groups_scanned, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ex->stats.rows_scanned, c->rows_scanned, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ex->stats.bytes_scanned, c->bytes_read, __ATOMIC_RELAXED);
}

static inline uint64_t smix(uint64_t h) {
    h ^= h >> 31;
    h *= 0x7fb5d329728ea185ULL;
    h ^= h >> 27;
    h *= 0x81dadef4bc2dd44dULL;
    h ^= h >> 33;
    return h;
}

/* TABLESAMPLE: keep rows whose hash of (seed, file, row) falls under the percentage. */
static int sample_push(scan_shared *sh, tn_pipeline *p, uint32_t worker, tn_chunk *chunk,
                       uint32_t file, int64_t first_row, tn_chunk *tmp) {
    const tn_plan_scan *s = &sh->node->u.scan;
    double pct = s->sample_percent;
    if (s->sample_rows > 0 && s->total_rows > 0) pct = 100.0 * (double)s->sample_rows / (double)s->total_rows;
    if (s->sample_rows < 0) return 0;
    if (pct <= 0 && s->sample_rows == 0) return tn_pipe_push(p, 0, worker, chunk);
    uint64_t threshold = pct >= 100 ? UINT64_MAX : (uint64_t)(pct / 100.0 * 18446744073709551615.0);
    uint32_t sel[TN_VECTOR_SIZE], n = 0;
    for (uint32_t i = 0; i < chunk->count; i++) {
        uint64_t h = smix(s->sample_seed * 0x9E3779B97F4A7C15ULL + ((uint64_t)file << 40) + (uint64_t)(first_row + i));
        if (h <= threshold) sel[n++] = i;
    }
    if (n == chunk->count) return tn_pipe_push(p, 0, worker, chunk);
    if (n == 0) return 0;
    tmp->count = n;
    for (uint32_t c = 0; c < chunk->ncols; c++) {
        int rc = tn_vector_gather(&tmp->cols[c], &chunk->cols[c], sel, n);
        if (rc) return rc;
    }
    return tn_pipe_push(p, 0, worker, tmp);
}

static bool sampling(const tn_plan_scan *s) { return s->sample_percent > 0 || s->sample_rows != 0; }


/* A scan reads at most `limit` columns at once: say which file and what the limit is. */
static int too_many_columns(const char *path, uint32_t n, size_t limit) {
    return tn_error_set(TN_ELIMIT, "%s: too many columns (%u read; the limit is %zu): select fewer columns", path, n, limit);
}

static int pq_read(tn_source *src, tn_pipeline *p, uint32_t m, uint32_t worker) {
    scan_shared *sh = src->shared;
    const tn_plan_scan *s = &sh->node->u.scan;
    pq_morsel *mo = &sh->morsels[m];
    tn_parquet_file *f = s->files[mo->file];
    int rc = 0;
    if (s->ncols == 0) {
        /* no column needed (count(*)): row counts from the footer */
        int64_t rows = tn_parquet_row_group_num_rows(f, mo->rg);
        tn_chunk c = {0, 0, NULL};
        tn_parquet_scan_counters cnt = {1, 0, 0, (uint64_t)rows, 0};
        count_stats(sh->ex, &cnt);
        for (int64_t done = 0; done < rows && !rc;) {
            uint32_t take = rows - done > TN_VECTOR_SIZE ? TN_VECTOR_SIZE : (uint32_t)(rows - done);
            c.count = take;
            if (sampling(s)) {
                tn_chunk tmp = {0, 0, NULL};
                rc = sample_push(sh, p, worker, &c, mo->file, done, &tmp);
            } else rc = tn_pipe_push(p, 0, worker, &c);
            done += take;
        }
        return rc;
    }
    pq_cached own, *pc = worker < sh->ncache ? &sh->cache[worker] : &own;
    tn_chunk tmp;
    memset(&own, 0, sizeof own);
    memset(&tmp, 0, sizeof tmp);
    if (pc->scan && pc->file == mo->file) {
        rc = tn_parquet_scan_reset(pc->scan, &mo->rg, 1);
        if (rc) goto cleanup;
    } else {
        tn_parquet_scan_close(pc->scan);
        pc->scan = NULL;
        cached_free_chunks(pc);
        tn_type types[TN_FUNC_MAX_ARGS * 64], rtypes[TN_FUNC_MAX_ARGS * 64];
        if (s->ncols > sizeof types / sizeof types[0]) { rc = too_many_columns(s->paths[mo->file], s->ncols, sizeof types / sizeof types[0]); goto cleanup; }
        for (uint32_t i = 0; i < s->ncols; i++) {
            types[i] = s->src_types[s->cols[i]];
            rtypes[i] = s->read_types && s->read_types[i].id == TN_TYPE_STRUCT ? s->read_types[i] : types[i];
        }
        tn_parquet_scan_options o;
        memset(&o, 0, sizeof o);
        o.columns = s->cols;
        o.ncolumns = s->ncols;
        o.row_groups = &mo->rg;
        o.nrow_groups = 1;
        o.predicates = s->preds;
        o.npredicates = s->npreds;
        if (s->read_types) o.column_types = rtypes;     /* only the used struct fields' leaves */
        rc = tn_parquet_scan_open(&pc->scan, f, &o);
        if (rc) goto cleanup;
        pc->file = mo->file;
        if ((s->npreds || s->has_join_in) && !sampling(s)) {
            /* the pushed predicates are conjuncts of the filter above: rows failing one are
             * dropped in the scan (before the other columns are decoded); the filter still runs.
             * So are a join's build keys (the join drops the rows without a match) */
            tn_parquet_row_filter rf = {s->preds, s->npreds, s->has_join_in ? &s->join_in : NULL, s->has_join_in ? 1 : 0};
            rc = tn_parquet_scan_set_filter(pc->scan, &rf);
            if (rc) goto cleanup;
        }
        rc = tn_chunk_init(&pc->chunk, s->ncols, rtypes, TN_VECTOR_SIZE);
        if (!rc && s->read_types) rc = tn_chunk_init(&pc->wide, s->ncols, types, TN_VECTOR_SIZE);
        if (rc) goto cleanup;
    }
    tn_parquet_scan *scan = pc->scan;
    tn_chunk *chunk = s->read_types ? &pc->wide : &pc->chunk;
    if (sampling(s)) {
        tn_type types[TN_FUNC_MAX_ARGS * 64];
        if (s->ncols > sizeof types / sizeof types[0]) { rc = too_many_columns(s->paths[mo->file], s->ncols, sizeof types / sizeof types[0]); goto cleanup; }
        for (uint32_t i = 0; i < s->ncols; i++) types[i] = s->src_types[s->cols[i]];
        rc = tn_chunk_init(&tmp, s->ncols, types, TN_VECTOR_SIZE);
        if (rc) goto cleanup;
    }
    uint64_t seen0 = tn_parquet_scan_stats(scan)->rows_scanned, inflight = 0, produced = 0;
    for (;;) {
        int64_t first = 0;
        rc = tn_parquet_scan_next(scan, &pc->chunk, &first);
        if (rc || pc->chunk.count == 0) break;
        if (s->read_types) {        /* hand the read fields to the full types, the others NULL */
            for (uint32_t i = 0; i < s->ncols && !rc; i++)
                rc = tn_vector_swap_widen(&pc->wide.cols[i], &pc->chunk.cols[i], pc->chunk.count);
            if (rc) break;
            pc->wide.count = pc->chunk.count;
        }
        /* rows of the morsel read so far, for the progress bar (counted for real below) */
        produced += chunk->count;
        uint64_t seen = tn_parquet_scan_stats(scan)->rows_scanned - seen0;
        if (produced > seen) seen = produced;
        if (seen > inflight) {
            __atomic_add_fetch(&sh->ex->progress_inflight, seen - inflight, __ATOMIC_RELAXED);
            inflight = seen;
        }
        rc = sampling(s) ? sample_push(sh, p, worker, chunk, mo->file, first, &tmp)
                         : tn_pipe_push(p, 0, worker, chunk);
        if (rc) break;
    }
    if (inflight) __atomic_sub_fetch(&sh->ex->progress_inflight, inflight, __ATOMIC_RELAXED);
cleanup:
    if (pc->scan) {
        count_stats(sh->ex, tn_parquet_scan_stats(pc->scan));
        if (rc || pc == &own) {
            tn_parquet_scan_close(pc->scan);
            pc->scan = NULL;
        }
    }
    if (!pc->scan && (pc->chunk.cols || pc->wide.cols)) {
        cached_free_chunks(pc);
    }
    if (tmp.cols) tn_chunk_free(&tmp);
    return rc;
}

/* An error from the operators above, about a value of a chunk this scan pushed (a cast that could
 * not convert it, tn_error_value): named by file, and by line and column when a string column
 * of the chunk holds the value, else by the chunk's lines. Errors not about a value, and errors
 * that name the file already (the reader's own), pass unchanged. */
static int name_row(const tn_plan_scan *s, uint32_t m, const tn_csv_reader *csv, const tn_ndjson_reader *js,
                    const tn_chunk *c, int rc) {
    const char *v, *path = s->paths[m];
    size_t vn;
    if (rc == TN_ENOMEM || rc == TN_EINTERRUPT || c->count == 0 || !tn_error_value(&v, &vn) ||
        strstr(tn_error_message(), path))
        return rc;
    for (uint32_t i = 0; i < c->count; i++)
        for (uint32_t k = 0; k < c->ncols; k++) {
            const tn_vector *vec = &c->cols[k];
            if (vec->type.id != TN_TYPE_VARCHAR || !tn_vector_is_valid(vec, i)) continue;
            const tn_str *st = (const tn_str *)vec->data + i;
            if (st->len != vn || (vn && memcmp(st->ptr, v, vn) != 0)) continue;
            uint64_t line = csv ? tn_csv_row_line(csv, i) : tn_ndjson_row_line(js, i);
            return tn_error_prefix(rc, "%s: line %llu, column '%s'", path, (unsigned long long)line,
                                   s->src_names[s->cols[k]]);
        }
    uint64_t a = csv ? tn_csv_row_line(csv, 0) : tn_ndjson_row_line(js, 0);
    uint64_t b = csv ? tn_csv_row_line(csv, c->count - 1) : tn_ndjson_row_line(js, c->count - 1);
    return tn_error_prefix(rc, "%s: lines %llu-%llu", path, (unsigned long long)a, (unsigned long long)b);
}

static int text_read(tn_source *src, tn_pipeline *p, uint32_t m, uint32_t worker) {
    scan_shared *sh = src->shared;
    const tn_plan_scan *s = &sh->node->u.scan;
    int rc = 0;
    tn_csv_reader *csv = NULL;
    tn_ndjson_reader *js = NULL;
    tn_chunk raw, out;
    memset(&raw, 0, sizeof raw);
    memset(&out, 0, sizeof out);
    if (s->format == TN_SCAN_CSV) {
        tn_csv_options o;
        tn_plan_scan_csv_options(s, &o);
        if (m > 0) {   /* later files of a pattern: the first file's dialect, columns and types */
            o.ncolumns = s->nsrc;
            o.column_names = (const char *const *)s->src_names;
            o.column_types = s->src_types;
        }
        rc = tn_csv_open(&csv, tn_fs_default(), s->paths[m], &o);
    } else {
        tn_ndjson_options jo;
        tn_plan_scan_ndjson_options(s, &jo);
        if (m > 0) {
            jo.ncolumns = s->nsrc;
            jo.column_names = (const char *const *)s->src_names;
            jo.column_types = s->src_types;
        }
        rc = tn_ndjson_open(&js, tn_fs_default(), s->paths[m], &jo);
    }
    if (rc) goto cleanup;
    tn_type *types = s->src_types;   /* only used for the sample chunk below */
    tn_type ptypes[4096];
    if (s->ncols > 4096) { rc = too_many_columns(s->paths[m], s->ncols, 4096); goto cleanup; }
    for (uint32_t i = 0; i < s->ncols; i++) ptypes[i] = s->src_types[s->cols[i]];
    types = ptypes;
    out.ncols = s->ncols;
    out.cols = tn_calloc(s->ncols + 1, sizeof *out.cols);
    if (!out.cols) { rc = TN_ENOMEM; goto cleanup; }
    int64_t row = 0;
    tn_chunk tmp;
    memset(&tmp, 0, sizeof tmp);
    if (sampling(s)) {
        rc = tn_chunk_init(&tmp, s->ncols, types, TN_VECTOR_SIZE);
        if (rc) goto cleanup;
    }
    for (;;) {
        rc = csv ? tn_csv_next(csv, &raw) : tn_ndjson_next(js, &raw);
        if (rc || raw.count == 0) break;
        if (raw.ncols != s->nsrc) {
            rc = tn_error_set(TN_ECORRUPT, "%s: the file's columns changed while reading", s->paths[m]);
            break;
        }
        for (uint32_t i = 0; i < s->ncols; i++) tn_vector_view(&out.cols[i], &raw.cols[s->cols[i]]);
        out.count = raw.count;
        __atomic_add_fetch(&sh->ex->stats.rows_scanned, raw.count, __ATOMIC_RELAXED);
        rc = sampling(s) ? sample_push(sh, p, worker, &out, m, row, &tmp) : tn_pipe_push(p, 0, worker, &out);
        row += raw.count;
        if (rc) {
            rc = name_row(s, m, csv, js, &out, rc);
            break;
        }
    }
    if (tmp.cols) tn_chunk_free(&tmp);
cleanup:
    tn_free(out.cols);
    if (raw.cols) tn_chunk_free(&raw);
    tn_csv_close(csv);
    tn_ndjson_close(js);
    return rc;
}

static void scan_free(tn_source *src) {
    scan_shared *sh = src->shared;
    if (!sh) return;
    for (uint32_t i = 0; i < sh->ncache; i++) {
        tn_parquet_scan_close(sh->cache[i].scan);
        cached_free_chunks(&sh->cache[i]);
    }
    tn_free(sh->cache);
    tn_free(sh->morsels);
    tn_free(sh);
    src->shared = NULL;
}

int tn_op_scan_source(tn_exec *ex, tn_plan *node, tn_source *out) {
    tn_plan_scan *s = &node->u.scan;
    scan_shared *sh = tn_calloc(1, sizeof *sh);
    if (!sh) return TN_ENOMEM;
    sh->ex = ex;
    sh->node = node;
    out->shared = sh;
    out->node = node;
    out->free = scan_free;
    if (s->format != TN_SCAN_PARQUET) {
        out->name = s->format == TN_SCAN_CSV ? "READ_CSV" : "READ_JSON";
        out->nmorsels = s->npaths;     /* one morsel per file */
        out->read = text_read;
        __atomic_add_fetch(&ex->stats.files_scanned, s->npaths, __ATOMIC_RELAXED);
        __atomic_add_fetch(&ex->stats.table_files, s->npaths, __ATOMIC_RELAXED);
        return 0;
    }
    out->name = "PARQUET_SCAN";
    out->read = pq_read;
    sh->ncache = ex->nworkers > 0 ? ex->nworkers : 1;
    if (ex->pool && tn_pool_size(ex->pool) > sh->ncache) sh->ncache = tn_pool_size(ex->pool);
    sh->cache = tn_calloc(sh->ncache, sizeof *sh->cache);
    if (!sh->cache) return TN_ENOMEM;
    uint32_t total = 0;
    for (uint32_t f = 0; f < s->npaths; f++) total += tn_parquet_num_row_groups(s->files[f]);
    sh->morsels = tn_malloc((total + 1) * sizeof *sh->morsels);
    if (!sh->morsels) return TN_ENOMEM;
    uint64_t files_read = 0, bytes = 0;
    int64_t rows = 0;
    for (uint32_t f = 0; f < s->npaths; f++) {
        tn_parquet_file *pf = s->files[f];
        bool any = false;
        rows += tn_parquet_num_rows(pf);
        bytes += tn_parquet_file_size(pf);
        for (uint32_t rg = 0; rg < tn_parquet_num_row_groups(pf); rg++) {
            if (s->npreds && !tn_parquet_row_group_may_match(pf, rg, s->preds, s->npreds)) continue;
            if (tn_parquet_row_group_num_rows(pf, rg) == 0) continue;
            sh->morsels[sh->nmorsels].file = f;
            sh->morsels[sh->nmorsels].rg = rg;
            sh->nmorsels++;
            any = true;
        }
        files_read += any;
    }
    out->nmorsels = sh->nmorsels;
    __atomic_add_fetch(&ex->stats.files_scanned, files_read, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ex->stats.table_files, s->npaths, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ex->stats.table_rows, (uint64_t)rows, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ex->stats.table_bytes, bytes, __ATOMIC_RELAXED);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Collection source.
 */
typedef struct coll_shared {
    tn_collection *c;
    bool owned;
} coll_shared;

static int coll_read(tn_source *src, tn_pipeline *p, uint32_t m, uint32_t worker) {
    coll_shared *sh = src->shared;
    return tn_pipe_push(p, 0, worker, &sh->c->chunks[m]);
}

static void coll_free(tn_source *src) {
    coll_shared *sh = src->shared;
    if (!sh) return;
    if (sh->owned) {
        tn_collection_free(sh->c);
        tn_free(sh->c);
    }
    tn_free(sh);
    src->shared = NULL;
}

int tn_op_collection_source(tn_exec *ex, tn_plan *node, tn_collection *c, bool owned,
                            tn_source *out) {
    coll_shared *sh = tn_calloc(1, sizeof *sh);
    if (!sh) return TN_ENOMEM;
    sh->c = c;
    sh->owned = owned;
    out->name = "COLLECTION";
    out->node = node;
    out->shared = sh;
    out->nmorsels = c->nchunks;
    out->read = coll_read;
    out->free = coll_free;
    return 0;
}
