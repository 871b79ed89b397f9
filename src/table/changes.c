/*
 * table/changes.c: reading the change data feed (PROTOCOL.md "Reader Requirements for
 * AddCDCFile"): for each version of a range, its cdc files when it has any, else its add files as
 * inserted rows and its remove files as deleted rows (data-changing actions only). The result is
 * a tn_table whose snapshot lists exactly those files, with the table's columns plus:
 *
 *   column              kind                 value
 *   _change_type        data column          read from cdc files (NULL in add/remove files)
 *   __tn_change_type    partition constant   'insert' for adds, 'delete' for removes
 *   _commit_version     partition constant   the version
 *   _commit_timestamp   partition constant   the commit's timestamp (in-commit timestamp first)
 *
 * so the ordinary scan reads it (the SQL layer shows COALESCE(_change_type, __tn_change_type)).
 * The schema is the latest version's of the range; CDF must be enabled in every version read.
 */
#include "table/tableInt.h"

#include <stdio.h>
#include <string.h>

static int resolve_bounds(tn_fs *fs, const char *path, const tn_table_changes_options *o, int64_t latest,
                          int64_t *from, int64_t *to) {
    int rc = 0;
    *from = o->from_version;
    *to = o->to_version < 0 ? latest : o->to_version;
    if (o->has_from_timestamp || o->has_to_timestamp) {
        tn_table_history h;
        rc = tn_table_history_read(&h, fs, path, 0);
        if (rc) return rc;
        if (o->has_from_timestamp) {
            *from = latest + 1;   /* the first version committed at or after the timestamp */
            for (uint32_t i = 0; i < h.count; i++)
                if (h.entries[i].timestamp_ms >= o->from_timestamp_ms && h.entries[i].version < *from)
                    *from = h.entries[i].version;
        }
        if (o->has_to_timestamp) {
            *to = -1;             /* the last version committed at or before it */
            for (uint32_t i = 0; i < h.count; i++)
                if (h.entries[i].timestamp_ms >= 0 && h.entries[i].timestamp_ms <= o->to_timestamp_ms &&
                    h.entries[i].version > *to)
                    *to = h.entries[i].version;
        }
        tn_table_history_free(&h);
    }
    if (*from < 0) return tn_error_set(TN_EINVAL, "table_changes: the starting version must be >= 0");
    if (*from > latest)
        return tn_error_set(TN_EINVAL, "table_changes: the starting version %lld is after the latest version %lld of "
                            "table '%s'", (long long)*from, (long long)latest, path);
    if (*to > latest) *to = latest;
    if (*to < *from)
        return tn_error_set(TN_EINVAL, "table_changes: CDC range from start %lld to end %lld was invalid. End cannot be "
                            "before start.", (long long)*from, (long long)*to);
    return 0;
}

static bool cdf_on(const tn_delta_metadata *md) {
    const char *v = tn_delta_config_get(md, "delta.enableChangeDataFeed");
    return v && tn_str_iequal(v, "true");
}

typedef struct file_list {
    tn_delta_file *v;
    uint32_t n, cap;
} file_list;

static int push_file(file_list *l, tn_arena *arena, const tn_delta_file *f, const tn_delta_metadata *md,
                     const char *kind, int64_t version, int64_t ts_ms) {
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        tn_delta_file *nv = tn_arena_alloc(arena, sizeof *nv * cap);
        if (!nv) return TN_ENOMEM;
        if (l->n) memcpy(nv, l->v, sizeof *nv * l->n);
        l->v = nv;
        l->cap = cap;
    }
    tn_delta_file *c = &l->v[l->n];
    *c = *f;
    /* the table's partition values (by physical name) plus the three constants */
    uint32_t np = md->npartition_columns;
    c->partition_values = tn_arena_calloc(arena, sizeof *c->partition_values * (np + 3));
    if (!c->partition_values) return TN_ENOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < md->ncolumns; i++) {
        const tn_delta_column *col = &md->columns[i];
        if (!col->is_partition) continue;
        bool found = false;
        const char *v = tn_delta_kv_get(f->partition_values, f->npartition_values, col->physical_name, &found);
        c->partition_values[k].key = col->physical_name;
        c->partition_values[k++].value = found ? v : NULL;
    }
    char ts[48];
    int64_t days = ts_ms >= 0 ? ts_ms / 86400000 : -((-ts_ms + 86399999) / 86400000);
    int64_t rem = ts_ms - days * 86400000, y;
    unsigned mo, d;
    tn_civil_from_days(days, &y, &mo, &d);
    snprintf(ts, sizeof ts, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ", (long long)y, mo, d, (int)(rem / 3600000),
             (int)(rem / 60000 % 60), (int)(rem / 1000 % 60), (int)(rem % 1000));
    c->partition_values[k].key = "__tn_change_type";
    c->partition_values[k++].value = kind;
    c->partition_values[k].key = "_commit_version";
    c->partition_values[k++].value = tn_arena_printf(arena, "%lld", (long long)version);
    c->partition_values[k].key = "_commit_timestamp";
    c->partition_values[k++].value = tn_arena_strdup(arena, ts);
    if (!c->partition_values[k - 1].value || !c->partition_values[k - 2].value) return TN_ENOMEM;
    c->npartition_values = k;
    c->has_partition_values = true;
    l->n++;
    return 0;
}

static int add_column(tn_delta_column *c, const char *name, tn_type type, bool partition) {
    memset(c, 0, sizeof *c);
    c->name = c->physical_name = name;
    c->field_id = -1;
    c->type = type;
    c->nullable = true;
    c->metadata_json = "{}";
    c->is_partition = partition;
    return 0;
}

int tn_table_changes_open(tn_table **out, tn_fs *fs, const char *path, const tn_table_changes_options *o) {
    int rc = 0;
    tn_table *t = NULL, *base = NULL;
    *out = NULL;
    rc = tn_table_open(&base, fs, path, NULL);
    if (rc) return rc;
    int64_t from, to;
    rc = resolve_bounds(fs, base->path, o, base->snap->version, &from, &to);
    if (rc) goto cleanup;
    /* the schema of the range's last version */
    tn_table_open_options oo = TN_TABLE_OPEN_OPTIONS_INIT;
    oo.at_version = to;
    rc = tn_table_open(&t, fs, path, &oo);
    if (!rc) rc = tn_table_own_snapshot(t);   /* its files and columns are replaced below */
    if (rc) goto cleanup;
    tn_delta_snapshot *snap = t->snap;
    tn_arena *arena = snap->arena;
    /* CDF must be on from the start of the range */
    tn_table *start = NULL;
    oo.at_version = from;
    rc = tn_table_open(&start, fs, path, &oo);
    if (rc) goto cleanup;
    bool on = cdf_on(&start->snap->metadata);
    tn_table_close(start);
    if (!on) {
        rc = tn_error_set(TN_EINVAL, "table_changes: change data feed is not enabled on table '%s' at version %lld "
                          "(delta.enableChangeDataFeed)", path, (long long)from);
        goto cleanup;
    }
    tn_delta_metadata *md = &snap->metadata;
    file_list files;
    memset(&files, 0, sizeof files);
    for (int64_t v = from; v <= to; v++) {
        tn_delta_action *acts = NULL;
        uint32_t nacts = 0;
        rc = tn_delta_read_commit(fs, t->path, v, arena, &acts, &nacts);
        if (rc) goto cleanup;
        bool has_cdc = false;
        int64_t ts = -1;
        for (uint32_t i = 0; i < nacts; i++) {
            if (acts[i].kind == TN_DELTA_CDC) has_cdc = true;
            if (acts[i].kind == TN_DELTA_METADATA && !cdf_on(&acts[i].u.metadata)) {
                rc = tn_error_set(TN_EINVAL, "table_changes: error getting change data for range [%lld, %lld] as change "
                                  "data was not recorded for version [%lld]", (long long)from, (long long)to, (long long)v);
                goto cleanup;
            }
            if (acts[i].kind == TN_DELTA_COMMIT_INFO) {
                const tn_delta_commit_info *ci = &acts[i].u.commit_info;
                ts = ci->has_in_commit_timestamp ? ci->in_commit_timestamp : ci->has_timestamp ? ci->timestamp : -1;
            }
        }
        if (ts < 0) {
            char lp[4096];
            snprintf(lp, sizeof lp, "%s/_delta_log/%020lld.json", t->path, (long long)v);
            tn_fs_stat st;
            if (tn_fs_stat_path(fs, lp, &st) == 0) ts = st.mtime_us / 1000;   /* the file's time */
            else { tn_error_clear(); ts = 0; }
        }
        for (uint32_t i = 0; i < nacts && !rc; i++) {
            const tn_delta_action *a = &acts[i];
            if (has_cdc) {
                if (a->kind == TN_DELTA_CDC) rc = push_file(&files, arena, &a->u.file, md, NULL, v, ts);
            } else if (a->kind == TN_DELTA_ADD && a->u.file.data_change) {
                rc = push_file(&files, arena, &a->u.file, md, "insert", v, ts);
            } else if (a->kind == TN_DELTA_REMOVE && a->u.file.data_change) {
                rc = push_file(&files, arena, &a->u.file, md, "delete", v, ts);
            }
        }
        if (rc) goto cleanup;
    }
    /* the change columns */
    tn_delta_column *cols = tn_arena_calloc(arena, sizeof *cols * (md->ncolumns + 4));
    const char **pcs = tn_arena_calloc(arena, sizeof *pcs * (md->npartition_columns + 4));
    if (!cols || !pcs) { rc = TN_ENOMEM; goto cleanup; }
    memcpy(cols, md->columns, sizeof *cols * md->ncolumns);
    memcpy(pcs, md->partition_columns, sizeof *pcs * md->npartition_columns);
    uint32_t n = md->ncolumns, np = md->npartition_columns;
    add_column(&cols[n++], "_change_type", tn_type_make(TN_TYPE_VARCHAR), false);
    add_column(&cols[n++], "__tn_change_type", tn_type_make(TN_TYPE_VARCHAR), true);
    add_column(&cols[n++], "_commit_version", tn_type_make(TN_TYPE_BIGINT), true);
    add_column(&cols[n++], "_commit_timestamp", tn_type_make(TN_TYPE_TIMESTAMP_TZ), true);
    pcs[np++] = "__tn_change_type";
    pcs[np++] = "_commit_version";
    pcs[np++] = "_commit_timestamp";
    md->columns = cols;
    md->ncolumns = n;
    md->partition_columns = pcs;
    md->npartition_columns = np;
    md->schema_string = NULL;
    snap->files = files.v;
    snap->nfiles = files.n;
    snap->tombstones = NULL;
    snap->ntombstones = 0;
    *out = t;
    t = NULL;
cleanup:
    tn_table_close(t);
    tn_table_close(base);
    return rc;
}
