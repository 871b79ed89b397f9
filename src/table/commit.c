/*
 * table/commit.c: tn_table_commit, a one-shot commit of actions assembled elsewhere (adds made
 * by the caller, e.g. files re-added with a new deletion vector, removes of snapshot files, a
 * new metaData) with a declared read set, run as a table transaction (txn.c). Layouts that
 * write files themselves use transactions and file writers directly.
 */
#include "table/tableInt.h"

#include <string.h>

int tn_table_commit(tn_table *t, const tn_table_commit_options *o, tn_table_commit_result *result) {
    tn_table_txn *txn = NULL;
    int rc = 0;
    if (t->snap->version < 0) {
        rc = tn_error_set(TN_EINVAL, "table '%s': tn_table_commit needs an existing table", t->path);
        goto cleanup;
    }
    rc = tn_table_txn_open(&txn, t, o->max_attempts);
    if (rc) goto cleanup;
    if (o->read_whole_table) rc = tn_table_txn_read_table(txn);
    for (uint32_t i = 0; i < o->nread_partitions && !rc; i++)
        rc = tn_table_txn_read_partition(txn, o->read_partitions[i].values, o->read_partitions[i].nvalues);
    for (uint32_t i = 0; i < o->nread_files && !rc; i++) rc = tb_txn_read_path(txn, o->read_files[i]);
    if (!rc && o->read_add) rc = tn_table_txn_read_matching(txn, o->read_add, o->read_add_ctx);
    for (uint32_t i = 0; i < o->nremoves && !rc; i++) rc = tn_table_txn_remove(txn, o->removes[i], o->data_change);
    for (uint32_t i = 0; i < o->nadds && !rc; i++) {
        tn_delta_file f = o->adds[i].u.file;
        f.data_change = o->data_change;
        rc = tn_table_txn_add(txn, &f);
    }
    if (!rc && o->metadata) rc = tn_table_txn_set_metadata(txn, o->metadata);
    if (!rc && o->app_id) rc = tn_table_txn_set_app(txn, o->app_id, o->app_version, NULL);
    if (!rc) rc = tn_table_txn_set_commit_info(txn, o->operation, o->operation_parameters, o->noperation_parameters,
                                               NULL, 0);
    if (rc) goto cleanup;
    tn_table_txn *tc = txn;
    txn = NULL;
    return tn_table_txn_commit(tc, result);
cleanup:
    tn_table_txn_abort(txn);
    if (result) {
        memset(result, 0, sizeof *result);
        result->version = -1;
    }
    return rc;
}
