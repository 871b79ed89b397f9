/*
 * layout/otree/metrics.c: qbeast's index metrics (getIndexMetrics, IndexMetrics.scala) of an
 * OTree table from its index: per revision the elements, cubes, blocks, files and bytes, the
 * tree's height against the least height that many elements allow, the average fanout and the
 * quartiles of elements per cube. Reads the log only (DESCRIBE INDEX t, sql/stmt_ddl.c).
 */
#include "layout/otree/otreeInt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* q-th quartile (0..4) of sorted v[0..n): the element at floor(q * (n - 1) / 4), as qbeast's
 * SizeStats takes quartiles from a sorted sequence. */
static int64_t quartile(const int64_t *v, uint32_t n, uint32_t q) { return n ? v[(uint64_t)q * (n - 1) / 4] : 0; }

static int one_revision(const ot_index *ix, uint32_t r, const tn_delta_snapshot *snap, tn_arena *a,
                        tn_layout_otree_metrics *m) {
    const ot_revision *rv = &ix->revs[r];
    const ot_rev_index *ri = &ix->rindex[r];
    memset(m, 0, sizeof *m);
    m->revision = rv->id;
    m->dimensions = rv->ncols;
    m->desired_cube_size = rv->cube_size;
    size_t len = 1;
    for (uint32_t c = 0; c < rv->ncols; c++) len += strlen(rv->cols[c].name) + strlen(rv->cols[c].transformer) + 2;
    char *cols = tn_arena_alloc(a, len);
    if (!cols) return TN_ENOMEM;
    cols[0] = 0;
    for (uint32_t c = 0, o = 0; c < rv->ncols; c++)
        o += (uint32_t)snprintf(cols + o, len - o, "%s%s:%s", c ? "," : "", rv->cols[c].name, rv->cols[c].transformer);
    m->columns = cols;
    for (uint32_t f = 0; f < ix->nfiles; f++) {
        if (ix->files[f].revision != rv->id) continue;
        m->files++;
        m->bytes += snap->files[f].size > 0 ? snap->files[f].size : 0;
        m->blocks += ix->files[f].nblocks;
        if (rv->id == 0) m->elements += tn_delta_file_num_records(&snap->files[f]) > 0 ? tn_delta_file_num_records(&snap->files[f]) : 0;
    }
    m->avg_file_bytes = m->files ? (double)m->bytes / (double)m->files : 0;
    m->cubes = ri->ncubes;
    if (!ri->ncubes) return 0;
    int64_t *counts = tn_malloc(sizeof *counts * ri->ncubes);
    uint32_t *children = tn_calloc(ri->ncubes, sizeof *children);
    if (!counts || !children) {
        tn_free(counts);
        tn_free(children);
        return TN_ENOMEM;
    }
    uint32_t cpl = ot_cube_chars_per_level(rv->ncols);
    char parent[OT_MAX_LEVELS * 2 + 8];
    for (uint32_t c = 0; c < ri->ncubes; c++) {
        const ot_cube *cu = &ri->cubes[c];
        counts[c] = cu->count;
        m->elements += cu->count;
        uint32_t depth = 0;
        (void)ot_cube_valid(cu->id, rv->ncols, &depth);
        if (depth + 1 > m->height) m->height = depth + 1;
        size_t l = strlen(cu->id);
        if (depth == 0 || l - cpl >= sizeof parent) continue;
        memcpy(parent, cu->id, l - cpl);
        parent[l - cpl] = 0;
        const ot_cube *pc = ot_rev_index_find(ri, parent);
        if (pc) children[pc - ri->cubes]++;
    }
    uint64_t inner = 0, kids = 0;
    for (uint32_t c = 0; c < ri->ncubes; c++)
        if (children[c]) {
            inner++;
            kids += children[c];
        }
    m->avg_fanout = inner ? (double)kids / (double)inner : 0;
    qsort(counts, ri->ncubes, sizeof *counts, cmp_i64);
    m->cube_min = quartile(counts, ri->ncubes, 0);
    m->cube_q1 = quartile(counts, ri->ncubes, 1);
    m->cube_median = quartile(counts, ri->ncubes, 2);
    m->cube_q3 = quartile(counts, ri->ncubes, 3);
    m->cube_max = quartile(counts, ri->ncubes, 4);
    m->cube_avg = (double)m->elements / (double)ri->ncubes;
    if (rv->cube_size > 0 && rv->ncols > 0 && rv->ncols < 60) {
        double fan = ldexp(1.0, (int)rv->ncols);
        double cubes = ceil((double)m->elements / (double)rv->cube_size);
        m->min_height = (uint32_t)ceil(log(cubes * (fan - 1) + 1) / log(fan));
    }
    tn_free(counts);
    tn_free(children);
    return 0;
}

int tn_layout_otree_metrics_get(const tn_table *t, tn_arena *arena, tn_layout_otree_metrics **out, uint32_t *n) {
    *out = NULL;
    *n = 0;
    bool impl = false;
    const char *layout = tn_layout_name(t, &impl);
    if (!layout || strcmp(layout, "otree") != 0)
        return tn_error_set(TN_EINVAL, "DESCRIBE INDEX: table '%s' has no OTree index (it is a %s table; USING qbeast "
                            "OPTIONS ('columnsToIndex' = ...) makes one)", tn_table_path(t), layout ? layout : "unknown");
    ot_index *ix = NULL;
    int rc = ot_index_load(&ix, t);
    if (rc) return rc;
    tn_layout_otree_metrics *m = tn_arena_calloc(arena, sizeof *m * (ix->nrevs ? ix->nrevs : 1));
    if (!m) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t r = 0; r < ix->nrevs && !rc; r++) {
        bool has_files = false;
        for (uint32_t f = 0; f < ix->nfiles && !has_files; f++) has_files = ix->files[f].revision == ix->revs[r].id;
        if (!has_files && ix->revs[r].id != ix->last_revision) continue;
        rc = one_revision(ix, r, tn_table_snapshot(t), arena, &m[*n]);
        if (!rc) (*n)++;
    }
    if (!rc) *out = m;
cleanup:
    ot_index_free(ix);
    return rc;
}
