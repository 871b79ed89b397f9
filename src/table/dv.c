/*
 * table/dv.c: deleting rows with deletion vectors (merge-on-read). A tn_table_dv_batch collects
 * the file row indexes a statement deletes, per data file of the snapshot; finish writes one DV
 * file (delta/dv_write.c) holding, for each touched file, its old DV united with the new rows,
 * and returns the actions: remove of the old logical file (path + old DV) and add of the new
 * one (same file, new DV, stats copied with "tightBounds": false, numRecords kept: the
 * protocol's requirement). A file whose every row is gone gets only the remove. DELETE uses it
 * on tables with delta.enableDeletionVectors = true; UPDATE, MERGE and primary-key writers are
 * meant to use the same batch (mark rows, then commit the actions with their own adds).
 */
#include "table/tableInt.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct dv_mark {
    uint32_t file;                   /* index into snap->files */
    uint64_t *rows;
    uint64_t n, cap;
} dv_mark;

struct tn_table_dv_batch {
    tn_table *t;
    dv_mark *marks;
    uint32_t nmarks, cap;
    const char *dv_path;             /* the DV file written by finish (arena of finish) */
};

bool tn_table_dv_enabled(const tn_table *t) {
    const char *v = tn_table_property(t, "delta.enableDeletionVectors");
    return v && tn_str_iequal(v, "true") && tn_delta_protocol_supports(&t->snap->protocol, "deletionVectors");
}

int tn_table_dv_batch_open(tn_table_dv_batch **out, tn_table *t) {
    *out = tn_calloc(1, sizeof **out);
    if (!*out) return TN_ENOMEM;
    (*out)->t = t;
    return 0;
}

void tn_table_dv_batch_free(tn_table_dv_batch *b) {
    if (!b) return;
    for (uint32_t i = 0; i < b->nmarks; i++) tn_free(b->marks[i].rows);
    tn_free(b->marks);
    tn_free(b);
}

int tn_table_dv_batch_mark(tn_table_dv_batch *b, uint32_t file, const uint64_t *rows, uint32_t n) {
    if (file >= b->t->snap->nfiles) return tn_error_set(TN_EINVAL, "deletion vector: no file %u", file);
    dv_mark *m = NULL;
    for (uint32_t i = b->nmarks; i-- > 0;)
        if (b->marks[i].file == file) {
            m = &b->marks[i];
            break;
        }
    if (!m) {
        if (b->nmarks == b->cap) {
            uint32_t cap = b->cap ? b->cap * 2 : 8;
            dv_mark *nm = tn_realloc(b->marks, sizeof *nm * cap);
            if (!nm) return TN_ENOMEM;
            b->marks = nm;
            b->cap = cap;
        }
        m = &b->marks[b->nmarks++];
        memset(m, 0, sizeof *m);
        m->file = file;
    }
    if (m->n + n > m->cap) {
        uint64_t cap = m->cap ? m->cap : 64;
        while (cap < m->n + n) cap *= 2;
        uint64_t *nr = tn_realloc(m->rows, sizeof *nr * cap);
        if (!nr) return TN_ENOMEM;
        m->rows = nr;
        m->cap = cap;
    }
    memcpy(m->rows + m->n, rows, sizeof *rows * n);
    m->n += n;
    return 0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted union of a (sorted unique) and b (sorted, may repeat) into out; returns its size. */
static uint64_t merge_rows(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb, uint64_t *out) {
    uint64_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        uint64_t v = j >= nb || (i < na && a[i] <= b[j]) ? a[i++] : b[j++];
        if (n == 0 || out[n - 1] != v) out[n++] = v;
    }
    return n;
}

/* stats with "tightBounds": false (the DV makes min/max possibly wide); arena copy. */
static const char *wide_stats(tn_arena *arena, const char *stats) {
    if (!stats) return NULL;
    json_t *o = json_loads(stats, JSON_DECODE_ANY, NULL);
    if (!json_is_object(o)) {
        json_decref(o);
        return tn_arena_strdup(arena, stats);
    }
    json_object_set_new(o, "tightBounds", json_false());
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    const char *r = s ? tn_arena_strdup(arena, s) : NULL;
    free(s);
    return r;
}

int tn_table_dv_batch_finish(tn_table_dv_batch *b, tn_arena *arena, tn_table_dv_result *out) {
    int rc = 0;
    const tn_delta_snapshot *snap = b->t->snap;
    uint64_t *old = NULL, nold = 0;
    uint64_t **sets = tn_calloc(b->nmarks + 1, sizeof *sets);
    uint64_t *counts = tn_calloc(b->nmarks + 1, sizeof *counts);
    tn_delta_dv *dvs = tn_calloc(b->nmarks + 1, sizeof *dvs);
    char *full = NULL;
    uint32_t ndv = 0;
    memset(out, 0, sizeof *out);
    out->adds = tn_arena_calloc(arena, sizeof *out->adds * (b->nmarks + 1));
    out->removes = tn_arena_calloc(arena, sizeof *out->removes * (b->nmarks + 1));
    if (!out->adds || !out->removes || !sets || !counts || !dvs) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < b->nmarks && !rc; i++) {
        dv_mark *m = &b->marks[i];
        const tn_delta_file *f = &snap->files[m->file];
        qsort(m->rows, m->n, sizeof *m->rows, cmp_u64);
        tn_free(old);
        old = NULL;
        nold = 0;
        if (f->has_dv && (rc = tn_delta_dv_read(b->t->fs, b->t->path, &f->dv, &old, &nold))) break;
        uint64_t *all = tn_malloc(sizeof *all * (nold + m->n + 1));
        if (!all) { rc = TN_ENOMEM; break; }
        uint64_t n = merge_rows(old, nold, m->rows, m->n, all);
        int64_t records = tn_delta_file_num_records(f);
        if (records < 0 || (n && all[n - 1] >= (uint64_t)records) || n == nold || n == (uint64_t)records) {
            tn_free(all);
            if (records < 0) {
                rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': file %s has no numRecords statistic: deletion vectors "
                                  "need it", b->t->path, f->path);
                break;
            }
            if (n == nold) continue;                         /* nothing new for this file */
            if (n == (uint64_t)records) {                    /* every row gone: the remove alone */
                out->rows_deleted += n - nold;
                out->removes[out->nremoves++] = f;
                continue;
            }
            rc = tn_error_set(TN_EINVAL, "table '%s': a deleted row of %s is past its %lld rows", b->t->path, f->path,
                              (long long)records);
            break;
        }
        out->rows_deleted += n - nold;
        out->removes[out->nremoves++] = f;
        tn_delta_action *a = &out->adds[out->nadds++];
        memset(a, 0, sizeof *a);
        a->kind = TN_DELTA_ADD;
        a->u.file = *f;
        a->u.file.data_change = true;
        a->u.file.modification_time = tb_now_ms();
        a->u.file.stats = wide_stats(arena, f->stats);
        a->u.file.has_dv = true;
        sets[ndv] = all;
        counts[ndv++] = n;
    }
    if (!rc && ndv) {
        rc = tn_delta_dv_write_file(b->t->fs, b->t->path, (const uint64_t *const *)sets, counts, ndv, arena, dvs, &full);
        for (uint32_t k = 0, j = 0; !rc && k < out->nadds; k++) out->adds[k].u.file.dv = dvs[j++];
        if (!rc && full) {
            out->dv_path = tn_arena_strdup(arena, full);
            if (!out->dv_path) rc = TN_ENOMEM;
        }
    }
cleanup:
    for (uint32_t i = 0; sets && i < ndv; i++) tn_free(sets[i]);
    tn_free(sets);
    tn_free(counts);
    tn_free(dvs);
    tn_free(full);
    tn_free(old);
    return rc;
}
