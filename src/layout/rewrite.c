/*
 * layout/rewrite.c: row rewrites as one commit (UPDATE, MERGE; see layout.h). Finds the
 * candidate files with a filtered scan, asks the caller what happens to each row, writes new
 * rows through the table's layout writer, and at that writer's commit adds the removes (copy-on-
 * write) or deletion vectors, the change data, the read set and the commitInfo metrics. Knows
 * nothing of SQL: the decisions come from the callback.
 */
#include "layout/layoutInt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct tn_layout_rewrite {
    tn_table *t;
    const tn_layout_rewrite_options *o;
    tn_layout_writer *w;
    tn_table_cdc *cdc;                 /* change data feed tables */
    tn_table_dv_batch *dvb;            /* deletion-vector tables */
    tn_table_scan *scan;               /* the scan running now */
    tn_layout_rewrite_pass pass;
    uint8_t *action;
    uint32_t *sel;
    uint64_t *rows;
    uint64_t *file_changes;            /* per snapshot file: rows deleted or updated (MATCH pass) */
    uint8_t *file_scanned;
    tn_arena *arena;
    bool upsert;                       /* primary-key table: new rows replace theirs by key */
    tn_chunk del;                      /* upsert: the deleted rows of a chunk, written as -D rows */
    uint8_t *kinds;
    tn_layout_rewrite_result res;
};

/* Rows of the chunk with action a, into rw->sel; their count. */
static uint32_t select_action(tn_layout_rewrite *rw, uint32_t n, uint8_t a) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (rw->action[i] == a) rw->sel[k++] = i;
    return k;
}

static int write_out(tn_layout_rewrite *rw, const tn_layout_rewrite_rows *r) {
    const tn_chunk *out = r->out;
    if (!out || out->count == 0) return 0;
    int rc = tn_layout_writer_write(rw->w, out);
    if (rc) return rc;
    uint32_t nnew = 0;
    for (uint32_t i = 0; i < out->count; i++) {
        if (r->out_is_new && r->out_is_new[i]) rw->sel[nnew++] = i;
    }
    rw->res.rows_copied += out->count - nnew;
    if (rw->cdc && nnew) rc = tn_table_cdc_write(rw->cdc, out, rw->sel, nnew, "update_postimage");
    return rc;
}

static int on_chunk(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    tn_layout_rewrite *rw = ctx;
    int rc = tn_interrupt_check(rw->o->interrupt);
    if (rc) return rc;
    memset(rw->action, 0, chunk->count);
    tn_layout_rewrite_rows r = {rw->action, NULL, NULL};
    rc = rw->o->rows(rw->o->ctx, rw->pass, chunk, &r);
    if (rc) return rc;
    uint32_t ndel = select_action(rw, chunk->count, TN_LAYOUT_ROW_DELETE);
    if (rw->upsert && ndel) {
        /* a primary-key table: the deleted rows go to the bucket writer as deletes of their key */
        tn_chunk_reset(&rw->del);
        for (uint32_t c = 0; c < chunk->ncols && !rc; c++)
            rc = tn_vector_append_rows(&rw->del.cols[c], &chunk->cols[c], rw->sel, ndel);
        rw->del.count = ndel;
        if (!rc) rc = tn_layout_writer_write_kinds(rw->w, &rw->del, rw->kinds);
        if (rc) return rc;
    }
    uint32_t nupd = 0;
    for (uint32_t i = 0; i < chunk->count; i++) nupd += rw->action[i] == TN_LAYOUT_ROW_UPDATE;
    if (rw->pass == TN_LAYOUT_REWRITE_MATCH) {
        rw->file_changes[file] += ndel + nupd;
        return 0;
    }
    rw->res.rows_deleted += ndel;
    rw->res.rows_updated += nupd;
    /* change data: the deleted rows and the old images of the updated rows */
    if (rw->cdc && ndel && (rc = tn_table_cdc_write(rw->cdc, chunk, rw->sel, ndel, "delete"))) return rc;
    if (rw->cdc && nupd) {
        uint32_t k = select_action(rw, chunk->count, TN_LAYOUT_ROW_UPDATE);
        if ((rc = tn_table_cdc_write(rw->cdc, chunk, rw->sel, k, "update_preimage"))) return rc;
    }
    if (rw->dvb && ndel + nupd) {
        /* deletion vectors: mark the changed rows by their file row index */
        rc = tn_table_scan_row_indexes(rw->scan, file, first_row, chunk->count, rw->rows);
        uint32_t k = 0;
        for (uint32_t i = 0; i < chunk->count && !rc; i++)
            if (rw->action[i] != TN_LAYOUT_ROW_KEEP) rw->rows[k++] = rw->rows[i];
        if (!rc) rc = tn_table_dv_batch_mark(rw->dvb, file, rw->rows, k);
        if (rc) return rc;
    }
    return write_out(rw, &r);
}

/* One scan over the given snapshot files (filters: prune row groups; NULL: every row). */
static int run_scan(tn_layout_rewrite *rw, const uint32_t *files, uint32_t nfiles, bool filtered) {
    tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
    so.all_columns = true;
    if (filtered) {
        so.filters = rw->o->filters;
        so.nfilters = rw->o->nfilters;
    }
    tn_table_scan *scan = NULL;
    int rc = files ? tn_table_scan_open_files(&scan, rw->t, &so, files, nfiles) : tn_table_scan_open(&scan, rw->t, &so);
    if (rc) return rc;
    for (uint32_t m = 0; m < tn_table_scan_num_morsels(scan); m++) {
        uint32_t f, rg;
        tn_table_scan_morsel_info(scan, m, &f, &rg);
        if (!rw->file_scanned[f]) rw->res.files_scanned++;
        rw->file_scanned[f] = 1;
    }
    rw->scan = scan;
    rc = tn_table_scan_run(scan, on_chunk, rw);
    rw->scan = NULL;
    tn_table_scan_close(scan);
    return rc;
}

static int metric(tn_layout_rewrite *rw, tn_delta_kv *m, uint32_t *n, const char *key, uint64_t v) {
    char *s = tn_arena_printf(rw->arena, "%" PRIu64, v);
    if (!s) return TN_ENOMEM;
    m[(*n)++] = (tn_delta_kv){key, s};
    return 0;
}

/* The layout writer's commit hook: removes, deletion vectors, change data, reads, commitInfo. */
static int prepare_commit(void *ctx, tn_table_txn *txn) {
    tn_layout_rewrite *rw = ctx;
    tn_table *t = rw->t;
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    int rc = 0;
    for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++)
        if (rw->file_scanned[fi]) rc = tn_table_txn_read_file(txn, &snap->files[fi]);
    if (!rw->dvb) {
        for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++)
            if (rw->file_changes[fi]) {
                rc = tn_table_txn_remove(txn, &snap->files[fi], true);
                rw->res.files_removed++;
            }
    } else {
        tn_table_dv_result dvr;
        rc = tn_table_dv_batch_finish(rw->dvb, rw->arena, &dvr);
        if (!rc && dvr.dv_path) rc = tn_table_txn_track_file(txn, dvr.dv_path);
        for (uint32_t i = 0; i < dvr.nremoves && !rc; i++) rc = tn_table_txn_remove(txn, dvr.removes[i], true);
        for (uint32_t i = 0; i < dvr.nadds && !rc; i++) rc = tn_table_txn_add(txn, &dvr.adds[i].u.file);
    }
    if (!rc && rw->cdc) {
        tn_delta_action *cdcs = NULL;
        uint32_t ncdcs = 0;
        rc = tn_table_cdc_finish(rw->cdc, rw->arena, &cdcs, &ncdcs);
        for (uint32_t i = 0; i < ncdcs && !rc; i++) {
            const char *full = tn_arena_printf(rw->arena, "%s/%s", tn_table_path(t), cdcs[i].u.file.path_decoded);
            rc = full ? tn_table_txn_track_file(txn, full) : TN_ENOMEM;
            if (!rc) rc = tn_table_txn_add_cdc(txn, &cdcs[i].u.file);
        }
    }
    if (rc) return rc;
    rw->res.files_added = tn_table_txn_num_files_written(txn);
    bool merge = rw->o->operation && strcmp(rw->o->operation, "MERGE") == 0;
    tn_delta_kv m[12];
    uint32_t nm = 0;
    if (merge) {
        if (rw->o->num_source_rows >= 0) rc = metric(rw, m, &nm, "numSourceRows", (uint64_t)rw->o->num_source_rows);
        if (!rc) rc = metric(rw, m, &nm, "numTargetRowsInserted", rw->res.rows_inserted);
        if (!rc) rc = metric(rw, m, &nm, "numTargetRowsUpdated", rw->res.rows_updated);
        if (!rc) rc = metric(rw, m, &nm, "numTargetRowsDeleted", rw->res.rows_deleted);
        if (!rc) rc = metric(rw, m, &nm, "numTargetRowsCopied", rw->res.rows_copied);
        if (!rc) rc = metric(rw, m, &nm, "numOutputRows", rw->res.rows_inserted + rw->res.rows_updated + rw->res.rows_copied);
        if (!rc) rc = metric(rw, m, &nm, "numTargetFilesAdded", rw->res.files_added);
        if (!rc) rc = metric(rw, m, &nm, "numTargetFilesRemoved", rw->res.files_removed);
    } else {
        rc = metric(rw, m, &nm, "numUpdatedRows", rw->res.rows_updated);
        if (!rc) rc = metric(rw, m, &nm, "numDeletedRows", rw->res.rows_deleted);
        if (!rc) rc = metric(rw, m, &nm, "numCopiedRows", rw->res.rows_copied);
        if (!rc) rc = metric(rw, m, &nm, "numAddedFiles", rw->res.files_added);
        if (!rc) rc = metric(rw, m, &nm, "numRemovedFiles", rw->res.files_removed);
    }
    if (!rc && rw->dvb) rc = metric(rw, m, &nm, "numDeletionVectorsAdded", rw->res.rows_deleted + rw->res.rows_updated ? 1 : 0);
    if (rc) return rc;
    return tn_table_txn_set_commit_info(txn, rw->o->operation ? rw->o->operation : "UPDATE", rw->o->operation_parameters,
                                        rw->o->noperation_parameters, m, nm);
}

int tn_layout_rewrite_insert(tn_layout_rewrite *rw, const tn_chunk *chunk) {
    if (chunk->count == 0) return 0;
    int rc = tn_layout_writer_write(rw->w, chunk);
    if (!rc && rw->cdc) rc = tn_table_cdc_write(rw->cdc, chunk, NULL, chunk->count, "insert");
    if (!rc) rw->res.rows_inserted += chunk->count;
    return rc;
}

int tn_layout_rewrite_run(tn_table *t, const tn_layout_rewrite_options *opts, tn_layout_rewrite_result *result) {
    int rc = 0;
    tn_layout_rewrite rw;
    memset(&rw, 0, sizeof rw);
    rw.res.version = -1;
    rw.t = t;
    rw.o = opts;
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    uint32_t *changed = NULL;
    const char *label = opts->operation ? opts->operation : "UPDATE";
    bool implemented;
    const char *layout = tn_layout_name(t, &implemented);
    /* a primary-key table's UPDATE is an upsert of the new rows (Paimon's batch UPDATE): each
     * replaces the row of its key through the bucket writer, the old rows are not touched here */
    rw.upsert = layout && strcmp(layout, "bucket") == 0 && (strcmp(label, "UPDATE") == 0 || strcmp(label, "MERGE") == 0);
    if (!layout || (strcmp(layout, "plain") != 0 && !rw.upsert)) {
        rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': %s of a table with the %s layout is not supported yet",
                          tn_table_path(t), label, layout ? layout : "unknown");
        goto cleanup;
    }
    const char *append_only = tn_table_property(t, "delta.appendOnly");
    if (append_only && tn_str_iequal(append_only, "true")) {
        rc = tn_error_set(TN_EUNSUPPORTED, "table '%s' is append-only (delta.appendOnly = true): %s refused",
                          tn_table_path(t), label);
        goto cleanup;
    }
    if (!opts->rows) {
        rc = tn_error_set(TN_EINVAL, "table '%s': %s without a row callback", tn_table_path(t), label);
        goto cleanup;
    }
    rw.arena = tn_arena_create(0);
    rw.action = tn_malloc(TN_VECTOR_SIZE);
    rw.sel = tn_malloc(sizeof(uint32_t) * TN_VECTOR_SIZE);
    rw.rows = tn_malloc(sizeof(uint64_t) * TN_VECTOR_SIZE);
    rw.file_changes = tn_calloc(snap->nfiles + 1, sizeof *rw.file_changes);
    rw.file_scanned = tn_calloc(snap->nfiles + 1, 1);
    changed = tn_malloc(sizeof *changed * (snap->nfiles + 1));
    if (!rw.arena || !rw.action || !rw.sel || !rw.rows || !rw.file_changes || !rw.file_scanned || !changed) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    if (rw.upsert) {
        uint32_t nc = tn_table_num_columns(t);
        tn_type *types = tn_arena_calloc(rw.arena, (nc + 1) * sizeof *types);
        rw.kinds = tn_malloc(TN_VECTOR_SIZE);
        if (!types || !rw.kinds) { rc = TN_ENOMEM; goto cleanup; }
        memset(rw.kinds, TN_LAYOUT_ROW_DELETE_KEY, TN_VECTOR_SIZE);
        for (uint32_t c = 0; c < nc; c++) types[c] = tn_table_column(t, c)->type;
        if ((rc = tn_chunk_init(&rw.del, nc, types, TN_VECTOR_SIZE))) goto cleanup;
    }
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.operation = label;
    wo.interrupt = opts->interrupt;
    wo.max_attempts = opts->max_attempts;
    wo.constraints_checked = opts->constraints_checked;
    if (!rw.upsert) {
        wo.prepare_commit = prepare_commit;
        wo.prepare_ctx = &rw;
    }
    rc = tn_layout_writer_open(&rw.w, t, &wo);
    if (rc) goto cleanup;
    if (!rw.upsert && tn_table_cdf_enabled(t) && (rc = tn_table_cdc_open(&rw.cdc, t))) goto cleanup;
    if (rw.upsert) {
        /* one pass: the new rows of the matching rows go to the bucket writer */
        rw.pass = TN_LAYOUT_REWRITE_CHANGED;
        rc = run_scan(&rw, NULL, 0, true);
    } else if (tn_table_dv_enabled(t)) {
        /* deletion vectors: one pass marks the changed rows and writes the new ones */
        rc = tn_table_dv_batch_open(&rw.dvb, t);
        rw.pass = TN_LAYOUT_REWRITE_CHANGED;
        if (!rc) rc = run_scan(&rw, NULL, 0, true);
    } else {
        /* copy-on-write: find the files that change, then write each again */
        rw.pass = TN_LAYOUT_REWRITE_MATCH;
        rc = run_scan(&rw, NULL, 0, true);
        uint32_t nchanged = 0;
        for (uint32_t fi = 0; fi < snap->nfiles; fi++)
            if (rw.file_changes[fi]) changed[nchanged++] = fi;
        rw.pass = TN_LAYOUT_REWRITE_ALL;
        for (uint32_t i = 0; i < nchanged && !rc; i++) rc = run_scan(&rw, &changed[i], 1, false);
    }
    if (!rc && opts->insert) rc = opts->insert(opts->ctx, &rw);
    if (rc) goto cleanup;
    if (rw.res.rows_updated + rw.res.rows_deleted + rw.res.rows_inserted == 0) goto cleanup;   /* no change */
    tn_table_commit_result cr;
    tn_layout_writer *w = rw.w;
    rw.w = NULL;
    rc = tn_layout_writer_commit(w, &cr);
    if (!rc) rw.res.version = cr.version;
cleanup:
    tn_layout_writer_abort(rw.w);
    if (rw.res.version < 0) tn_table_cdc_abort(rw.cdc);
    else tn_table_cdc_free(rw.cdc);
    tn_table_dv_batch_free(rw.dvb);
    if (rc) {
        memset(&rw.res, 0, sizeof rw.res);
        rw.res.version = -1;
    }
    if (result) *result = rw.res;
    tn_arena_destroy(rw.arena);
    if (rw.del.cols) tn_chunk_free(&rw.del);
    tn_free(rw.kinds);
    tn_free(rw.action);
    tn_free(rw.sel);
    tn_free(rw.rows);
    tn_free(rw.file_changes);
    tn_free(rw.file_scanned);
    tn_free(changed);
    return rc;
}
