/*
 * table/commit.c: the commit primitive for layouts that place files themselves (the bucket
 * layout of primary-key tables): commitInfo + txn + removes + adds (+ a new metaData), with a
 * caller-declared read set for the conflict check, dataChange=false for compactions, and the
 * optimistic retry loop of write.c (tb_commit).
 */
#include "table/tableInt.h"

#include <string.h>

int tn_table_commit(tn_table *t, const tn_table_commit_options *o, tn_table_commit_result *result) {
    int rc = 0;
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    res.version = -1;
    uint32_t cap = 3 + o->nremoves + o->nadds;
    tn_delta_action *actions = tn_malloc(sizeof *actions * cap);
    const char **read_files = tn_malloc(sizeof(char *) * (o->nremoves + o->nread_files + 1));
    tn_arena *arena = tn_arena_create(0);
    uint32_t n = 0, nread = 0;
    if (!actions || !read_files || !arena) { rc = TN_ENOMEM; goto cleanup; }
    if (t->snap->version < 0) {
        rc = tn_error_set(TN_EINVAL, "table '%s': tn_table_commit needs an existing table", t->path);
        goto cleanup;
    }
    rc = tb_commit_info(&actions[n++], arena, o->operation ? o->operation : "WRITE", o->operation_parameters,
                        o->noperation_parameters, o->is_blind_append, t->snap->version);
    if (rc) goto cleanup;
    if (o->metadata) {
        memset(&actions[n], 0, sizeof actions[n]);
        actions[n].kind = TN_DELTA_METADATA;
        actions[n].u.metadata = *o->metadata;
        n++;
    }
    if (o->app_id) {
        memset(&actions[n], 0, sizeof actions[n]);
        actions[n].kind = TN_DELTA_TXN;
        actions[n].u.txn.app_id = o->app_id;
        actions[n].u.txn.version = o->app_version;
        actions[n].u.txn.has_last_updated = true;
        actions[n].u.txn.last_updated = tb_now_ms();
        n++;
    }
    int64_t now = tb_now_ms();
    for (uint32_t i = 0; i < o->nremoves; i++) {
        tb_make_remove(&actions[n], o->removes[i], now);
        actions[n].u.file.data_change = o->data_change;
        n++;
        read_files[nread++] = o->removes[i]->path;
    }
    for (uint32_t i = 0; i < o->nread_files; i++) read_files[nread++] = o->read_files[i];
    for (uint32_t i = 0; i < o->nadds; i++) {
        actions[n] = o->adds[i];
        actions[n].u.file.data_change = o->data_change;
        res.rows_written += (uint64_t)(tn_delta_file_num_records(&o->adds[i].u.file) > 0
                                           ? tn_delta_file_num_records(&o->adds[i].u.file) : 0);
        if (o->adds[i].u.file.has_size) res.bytes_added += (uint64_t)o->adds[i].u.file.size;
        n++;
    }
    res.files_added = o->nadds;
    res.files_removed = o->nremoves;
    tn_delta_txn_info info;
    memset(&info, 0, sizeof info);
    info.read_version = t->snap->version;
    info.is_blind_append = o->is_blind_append;
    info.read_whole_table = o->read_whole_table;
    info.read_partitions = o->read_partitions;
    info.nread_partitions = o->nread_partitions;
    info.read_files = read_files;
    info.nread_files = nread;
    info.read_add = o->read_add;
    info.read_add_ctx = o->read_add_ctx;
    const char *ids[1] = {o->app_id};
    if (o->app_id) {
        info.app_ids = ids;
        info.napp_ids = 1;
    }
    bool skipped = false;
    rc = tb_commit(t, &info, actions, n, o->max_attempts, o->app_id, o->app_version, &res.version, &skipped,
                   &res.attempts);
    res.skipped = skipped;
    if (skipped) {
        res.files_added = res.files_removed = res.rows_written = res.bytes_added = 0;
        res.version = -1;
    }
cleanup:
    if (rc) res.version = -1;
    if (result) *result = res;
    tn_free(actions);
    tn_free(read_files);
    tn_arena_destroy(arena);
    return rc;
}
