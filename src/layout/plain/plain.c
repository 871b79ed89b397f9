/*
 * layout/plain/plain.c: the plain layout: Hive-style partitions (layout/route.c), one rolling
 * file writer per partition, and the commit of appends and overwrites (whole table, static
 * partition spec, dynamic partitions) as one table transaction. Per-write options:
 * 'target_file_size' (bytes or k/m/g) and 'compression' (a Parquet codec name).
 *
 * Many partitions: a partition keeps its file writer from its first row to the end of the write
 * (never closed early, so it gets ceil(size / target) files). Past the writers that memory allows
 * (max_open_files, and a quarter of memory_limit for their row groups), the rows of further
 * partitions are buffered (spill.c: half of memory_limit, then a temporary file) and written at
 * commit, one partition at a time.
 */
#include "layout/layoutInt.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct plain_part {
    tn_table_file_writer *fw;          /* open writer, or NULL */
    bool buffered;                     /* rows go to the partition buffers (w->spill) */
} plain_part;

typedef struct plain_writer {
    tn_layout_writer base;
    tn_table *t;
    tn_layout_write_options opts;
    tn_table_txn *txn;
    tn_layout_router *router;
    bool skip;                         /* txn already applied: writes are ignored */
    int sticky;                        /* first error: the writer is unusable afterwards */
    tn_layout_slots parts;             /* plain_part by partition id */
    uint32_t nopen, max_open;          /* open file writers, and how many memory allows */
    tn_layout_spill *spill;            /* rows of the buffered partitions (NULL until needed) */
    uint64_t spill_budget;
    uint64_t target;
    int codec;
    uint64_t rg_bytes;
} plain_writer;

static const char *const plain_options[] = {"target_file_size", "compression"};

static void plain_free(plain_writer *w) {
    if (!w) return;
    tn_table_txn_abort(w->txn);        /* frees the file writers still open */
    tn_layout_spill_close(w->spill);   /* the temporary file goes with it */
    tn_layout_router_close(w->router);
    tn_layout_slots_free(&w->parts);
    tn_free(w);
}

static int plain_open(tn_layout_writer **out, tn_table *t, const tn_layout_write_options *opts) {
    int rc = 0;
    *out = NULL;
    const char *append_only = tn_table_property(t, "delta.appendOnly");
    if (append_only && tn_str_iequal(append_only, "true") && opts->mode != TN_LAYOUT_APPEND)
        return tn_error_set(TN_EUNSUPPORTED, "table '%s' is append-only (delta.appendOnly = true): overwrite refused",
                            tn_table_path(t));
    rc = tn_layout_check_columns(t);
    if (rc) return rc;
    rc = tn_layout_options_check(t, "plain", opts->options, opts->noptions, plain_options,
                                 sizeof plain_options / sizeof plain_options[0]);
    if (rc) return rc;
    plain_writer *w = tn_calloc(1, sizeof *w);
    if (!w) return TN_ENOMEM;
    w->t = t;
    w->opts = *opts;
    tn_layout_slots_init(&w->parts, sizeof(plain_part));
    if (!w->opts.max_open_files) w->opts.max_open_files = 64;
    rc = tn_table_txn_open(&w->txn, t, opts->max_attempts);
    if (rc) goto cleanup;
    tn_table_txn_set_interrupt(w->txn, opts->interrupt);
    tn_table_txn_set_rows_checked(w->txn, opts->constraints_checked, false);
    rc = tn_layout_router_open(&w->router, t, opts->partition_spec, opts->npartition_spec);
    if (rc) goto cleanup;
    if (opts->npartition_spec && opts->mode != TN_LAYOUT_OVERWRITE) {
        rc = tn_error_set(TN_EINVAL, "table '%s': a static partition spec needs INSERT OVERWRITE", tn_table_path(t));
        goto cleanup;
    }
    /* sizes and codec: per-write option, then the writer options, then the table's */
    rc = tn_layout_file_settings(t, opts, &w->target, &w->codec);
    if (rc) goto cleanup;
    /* memory: a quarter of memory_limit (at most 256 MiB) for the row groups of the open files
     * (each at least 1 MiB, which bounds how many are open), half for the partition buffers,
     * the rest for the query producing the rows */
    bool partitioned = tn_table_snapshot(t)->metadata.npartition_columns > 0;
    uint64_t mem = opts->memory_limit ? opts->memory_limit : ((uint64_t)1 << 30);
    uint64_t files = mem / 4, mib = (uint64_t)1 << 20;
    w->max_open = w->opts.max_open_files;
    if (partitioned) {
        if (files > ((uint64_t)256 << 20)) files = (uint64_t)256 << 20;
        if (files / mib < w->max_open) w->max_open = files / mib ? (uint32_t)(files / mib) : 1;
        w->rg_bytes = files / w->max_open;
    } else {
        w->max_open = 1;
        w->rg_bytes = files < ((uint64_t)128 << 20) ? files : ((uint64_t)128 << 20);
    }
    if (w->rg_bytes < mib) w->rg_bytes = mib;
    if (w->rg_bytes > w->target) w->rg_bytes = w->target;
    w->spill_budget = mem / 2;
    if (opts->app_id) {
        rc = tn_table_txn_set_app(w->txn, opts->app_id, opts->app_version, &w->skip);
        if (rc) goto cleanup;
    }
    *out = &w->base;
    w = NULL;
cleanup:
    plain_free(w);
    return rc;
}

static int open_writer(plain_writer *w, uint32_t id, plain_part *p) {
    const tn_layout_partition *lp = tn_layout_router_partition(w->router, id);
    tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
    fo.partition_values = lp->values;
    fo.npartition_values = lp->nvalues;
    fo.target_file_bytes = w->target;
    fo.codec = w->codec;
    fo.row_group_rows = w->opts.row_group_rows;
    fo.row_group_bytes = w->rg_bytes;
    int rc = tn_table_file_writer_open(&p->fw, w->txn, &fo);
    if (!rc) w->nopen++;
    return rc;
}

/* The open writer of partition id, or NULL in *out when its rows are buffered. */
static int writer_for(plain_writer *w, uint32_t id, tn_table_file_writer **out) {
    plain_part *p = tn_layout_slots_get(&w->parts, id);
    int rc = 0;
    *out = NULL;
    if (!p) return TN_ENOMEM;
    if (!p->fw && !p->buffered) {
        if (w->nopen < w->max_open) {
            rc = open_writer(w, id, p);
        } else {
            p->buffered = true;
            if (!w->spill) rc = tn_layout_spill_open(&w->spill, w->t, w->spill_budget);
        }
        if (rc) return rc;
    }
    *out = p->fw;
    return 0;
}

static int plain_write(tn_layout_writer *base, const tn_chunk *chunk) {
    plain_writer *w = (plain_writer *)base;
    int rc = 0;
    if (w->sticky) return tn_error_set(w->sticky, "table '%s': the writer failed earlier", tn_table_path(w->t));
    if (w->skip || chunk->count == 0) return 0;
    rc = tn_interrupt_check(w->opts.interrupt);
    if (!rc) rc = tn_layout_check_chunk(w->t, chunk);
    if (rc) goto cleanup;
    tn_layout_route route;
    rc = tn_layout_router_route(w->router, chunk, &route);
    for (uint32_t g = 0; g < route.ngroups && !rc; g++) {
        tn_table_file_writer *fw = NULL;
        uint32_t first = route.start[g], n = route.start[g + 1] - first;
        const uint32_t *sel = n == chunk->count ? NULL : route.sel + first;
        rc = writer_for(w, route.part[g], &fw);
        if (!rc) rc = fw ? tn_table_file_writer_write(fw, chunk, sel, n) : tn_layout_spill_append(w->spill, route.part[g], chunk, sel, n);
    }
cleanup:
    if (rc) w->sticky = rc;
    return rc;
}

static char *spec_json(const tn_table *t, const tn_delta_kv *spec, uint32_t n) {
    json_t *o = json_object();
    for (uint32_t i = 0; i < n && o; i++) {
        int ci = tn_table_column_index(t, spec[i].key);
        json_object_set_new(o, tn_table_column(t, (uint32_t)ci)->name, spec[i].value ? json_string(spec[i].value) : json_null());
    }
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return s;
}

/* Overwrites: the removes and the read set of each mode. */
static int plan_overwrite(plain_writer *w, tn_delta_kv *params, uint32_t *nparams, char **spec_text) {
    int rc = 0;
    tn_table *t = w->t;
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    const tn_layout_write_options *o = &w->opts;
    tn_buf key = TN_BUF_INIT;
    bool partitioned = snap->metadata.npartition_columns > 0;
    if (o->npartition_spec) {
        /* static partition overwrite: files whose values match the spec */
        uint32_t nspec;
        const tn_delta_kv *spec = tn_layout_router_spec(w->router, &nspec);
        rc = tn_table_txn_read_partition(w->txn, spec, nspec);
        for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++)
            if (tn_layout_router_spec_matches(w->router, &snap->files[fi]))
                rc = tn_table_txn_remove(w->txn, &snap->files[fi], true);
        if (rc) goto cleanup;
        *spec_text = spec_json(t, o->partition_spec, o->npartition_spec);
        if (!*spec_text) { rc = TN_ENOMEM; goto cleanup; }
        params[(*nparams)++] = (tn_delta_kv){"partition", *spec_text};
    } else if (o->mode == TN_LAYOUT_OVERWRITE_DYNAMIC && partitioned) {
        /* the partitions present in the new data are read and replaced */
        uint32_t np = tn_layout_router_num_partitions(w->router);
        for (uint32_t id = 0; id < np && !rc; id++) {
            const tn_layout_partition *lp = tn_layout_router_partition(w->router, id);
            rc = tn_table_txn_read_partition(w->txn, lp->values, lp->nvalues);
        }
        for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++) {
            rc = tn_layout_file_partition_key(t, &snap->files[fi], &key);
            if (!rc && tn_layout_router_find_key(w->router, (const char *)key.data) >= 0)
                rc = tn_table_txn_remove(w->txn, &snap->files[fi], true);
        }
        if (rc) goto cleanup;
        params[(*nparams)++] = (tn_delta_kv){"partitionOverwriteMode", "DYNAMIC"};
    } else {
        rc = tn_table_txn_read_table(w->txn);
        for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++) rc = tn_table_txn_remove(w->txn, &snap->files[fi], true);
    }
cleanup:
    tn_buf_free(&key);
    return rc;
}

static int replay_rows(void *ctx, const tn_chunk *chunk) {
    return tn_table_file_writer_write(ctx, chunk, NULL, chunk->count);
}

static int plain_commit(tn_layout_writer *base, tn_table_commit_result *result) {
    plain_writer *w = (plain_writer *)base;
    int rc = 0;
    char *pby = NULL, *spec_text = NULL;
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    res.version = -1;
    if (w->sticky) {
        rc = tn_error_set(w->sticky, "table '%s': the writer failed earlier; nothing committed", tn_table_path(w->t));
        goto cleanup;
    }
    for (uint32_t i = 0; i < w->parts.cap && !rc; i++) {
        plain_part *p = tn_layout_slots_at(&w->parts, i);
        tn_table_file_writer *fw = p->fw;
        if (!fw) continue;
        p->fw = NULL;
        w->nopen--;
        rc = tn_table_file_writer_close(fw);
    }
    /* the buffered partitions, one file writer at a time */
    for (uint32_t i = 0; i < w->parts.cap && !rc; i++) {
        plain_part *p = tn_layout_slots_at(&w->parts, i);
        if (!p->buffered || !tn_layout_spill_has(w->spill, i)) continue;
        rc = open_writer(w, i, p);
        if (rc) break;
        rc = tn_layout_spill_replay(w->spill, i, replay_rows, p->fw);
        tn_table_file_writer *fw = p->fw;
        p->fw = NULL;
        w->nopen--;
        if (!rc) rc = tn_table_file_writer_close(fw);
        else tn_table_file_writer_abort(fw);
    }
    tn_layout_spill_close(w->spill);   /* the temporary file is gone from here on */
    w->spill = NULL;
    if (rc) goto cleanup;
    if (w->skip) {
        rc = tn_table_txn_commit(w->txn, &res);   /* skipped: nothing written, nothing committed */
        w->txn = NULL;
        goto cleanup;
    }
    const tn_layout_write_options *o = &w->opts;
    tn_delta_kv params[72];
    uint32_t nparams = 0;
    pby = tn_layout_partition_by_json(w->t);
    if (!pby) { rc = TN_ENOMEM; goto cleanup; }
    params[nparams++] = (tn_delta_kv){"mode", o->mode == TN_LAYOUT_APPEND ? "Append" : "Overwrite"};
    params[nparams++] = (tn_delta_kv){"partitionBy", pby};
    if (o->mode != TN_LAYOUT_APPEND) {
        rc = plan_overwrite(w, params, &nparams, &spec_text);
        if (rc) goto cleanup;
    }
    for (uint32_t i = 0; i < o->noperation_parameters && nparams < 72; i++) params[nparams++] = o->operation_parameters[i];
    rc = tn_table_txn_set_commit_info(w->txn, o->operation ? o->operation : "WRITE", params, nparams, NULL, 0);
    if (!rc && o->prepare_commit) rc = o->prepare_commit(o->prepare_ctx, w->txn);
    if (rc) goto cleanup;
    tn_table_txn *txn = w->txn;
    w->txn = NULL;
    rc = tn_table_txn_commit(txn, &res);
cleanup:
    if (rc) res.version = -1;
    if (result) *result = res;
    free(pby);
    free(spec_text);
    plain_free(w);
    return rc;
}

static void plain_abort(tn_layout_writer *base) { plain_free((plain_writer *)base); }

static uint64_t plain_num_files(const tn_layout_writer *base) {
    const plain_writer *w = (const plain_writer *)base;
    return w->txn ? tn_table_txn_num_files_written(w->txn) : 0;
}

uint64_t tn_layout_plain_spilled_bytes(const tn_layout_writer *base) {
    const plain_writer *w = (const plain_writer *)base;
    return tn_layout_spill_bytes_spilled(w->spill);
}

const tn_layout_impl tn_layout_plain = {
    "plain", plain_open, plain_write, plain_commit, plain_abort, plain_num_files, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    NULL, NULL,
};
