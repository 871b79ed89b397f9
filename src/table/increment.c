/*
 * table/increment.c: a table restricted to given add actions (tn_table_open_increment): the
 * snapshot of one version whose file list is replaced, so that the ordinary scan reads just the
 * files a continuous job's batch takes from a growing table (stream/). Knows nothing of jobs.
 */
#include "table/tableInt.h"

#include <stdlib.h>
#include <string.h>

static int by_path(const void *a, const void *b) {
    return strcmp(((const tn_delta_file *)a)->path, ((const tn_delta_file *)b)->path);
}

int tn_table_open_increment(tn_table **out, tn_fs *fs, const char *path, int64_t version,
                            const tn_delta_file *files, uint32_t nfiles) {
    *out = NULL;
    tn_table *t = NULL;
    tn_table_open_options o = TN_TABLE_OPEN_OPTIONS_INIT;
    o.at_version = version;
    int rc = tn_table_open(&t, fs, path, &o);
    if (!rc) rc = tn_table_own_snapshot(t);
    if (rc) {
        tn_table_close(t);
        return rc;
    }
    tn_delta_snapshot *snap = t->snap;
    tn_delta_file *v = tn_arena_alloc(snap->arena, sizeof *v * (nfiles + 1));
    if (!v) {
        tn_table_close(t);
        return TN_ENOMEM;
    }
    if (nfiles) memcpy(v, files, sizeof *v * nfiles);
    qsort(v, nfiles, sizeof *v, by_path);
    snap->files = v;
    snap->nfiles = nfiles;
    snap->tombstones = NULL;
    snap->ntombstones = 0;
    *out = t;
    return 0;
}
