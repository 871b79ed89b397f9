/*
 * table/txn.c: transactions, the commit primitive every table write goes through. Collects the
 * actions of one commit (adds from file writers or given, removes of snapshot files, a new
 * metaData configuration, a txn appId/version, commitInfo with parameters and metrics) and the
 * read set (whole table, partitions, files, caller predicates), then commits them with the
 * optimistic loop of write.c (tb_commit) or, for a staged CREATE TABLE AS, as version 0.
 *
 * Commit layout: commitInfo, [metaData], [txn], remove*, add*  (one JSON line each).
 * Owns the cleanup of every data file its file writers created: on failure, abort or a txn
 * found applied by a concurrent writer, they are removed. Knows nothing of layouts.
 */
#include "table/tableInt.h"

#include <stdlib.h>
#include <string.h>

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return 0;
    uint32_t c = *cap ? *cap * 2 : 16;
    while (c < need) c *= 2;
    void *p = tn_realloc(*arr, elem * c);
    if (!p) return TN_ENOMEM;
    *arr = p;
    *cap = c;
    return 0;
}

static const char *adup(tn_table_txn *txn, const char *s, int *rc) {
    if (!s) return NULL;
    const char *d = tn_arena_strdup(txn->arena, s);
    if (!d) *rc = TN_ENOMEM;
    return d;
}

static tn_delta_kv *kv_copy(tn_table_txn *txn, const tn_delta_kv *kv, uint32_t n, int *rc) {
    tn_delta_kv *c = tn_arena_calloc(txn->arena, sizeof *c * (n ? n : 1));
    if (!c) { *rc = TN_ENOMEM; return NULL; }
    for (uint32_t i = 0; i < n; i++) {
        c[i].key = adup(txn, kv[i].key, rc);
        c[i].value = adup(txn, kv[i].value, rc);
    }
    return c;
}

int tn_table_txn_open(tn_table_txn **out, tn_table *t, int max_attempts) {
    *out = NULL;
    int rc = tn_delta_protocol_check_write(&t->snap->protocol);
    if (rc) return tn_error_prefix(rc, "table '%s'", t->path);
    tn_table_txn *txn = tn_calloc(1, sizeof *txn);
    if (!txn) return TN_ENOMEM;
    txn->t = t;
    txn->max_attempts = max_attempts;
    txn->app_version = -1;
    txn->arena = tn_arena_create(0);
    bool have_arena = txn->arena != NULL;
    if (!have_arena || pthread_mutex_init(&txn->lock, NULL) != 0) {
        tn_arena_destroy(txn->arena);
        tn_free(txn);
        return have_arena ? tn_error_set(TN_EIO, "table '%s': cannot create a mutex", t->path) : TN_ENOMEM;
    }
    *out = txn;
    return 0;
}

tn_table *tn_table_txn_table(const tn_table_txn *txn) { return txn->t; }

int tn_table_txn_read_table(tn_table_txn *txn) {
    txn->read_all = true;
    return 0;
}

int tn_table_txn_read_partition(tn_table_txn *txn, const tn_delta_kv *values, uint32_t nvalues) {
    int rc = grow((void **)&txn->parts, &txn->cap_parts, txn->nparts + 1, sizeof *txn->parts);
    if (rc) return rc;
    tn_delta_kv *v = kv_copy(txn, values, nvalues, &rc);
    if (rc) return rc;
    txn->parts[txn->nparts].values = v;
    txn->parts[txn->nparts].nvalues = nvalues;
    txn->nparts++;
    return 0;
}

int tb_txn_read_path(tn_table_txn *txn, const char *path) {
    int rc = grow((void **)&txn->read_paths, &txn->cap_read, txn->nread + 1, sizeof *txn->read_paths);
    if (rc) return rc;
    txn->read_paths[txn->nread++] = path;
    return 0;
}

int tn_table_txn_read_file(tn_table_txn *txn, const tn_delta_file *file) { return tb_txn_read_path(txn, file->path); }

int tn_table_txn_read_matching(tn_table_txn *txn, tn_table_file_pred fn, void *ctx) {
    if (!fn) return tn_error_set(TN_EINVAL, "table '%s': read predicate is NULL", txn->t->path);
    int rc = grow((void **)&txn->preds, &txn->cap_preds, txn->npreds + 1, sizeof *txn->preds);
    if (rc) return rc;
    txn->preds[txn->npreds].fn = fn;
    txn->preds[txn->npreds].ctx = ctx;
    txn->npreds++;
    return 0;
}

static bool append_only(const tn_table *t) {
    const char *v = tn_delta_config_get(&t->snap->metadata, "delta.appendOnly");
    return v && tn_str_iequal(v, "true");
}

int tn_table_txn_remove(tn_table_txn *txn, const tn_delta_file *file, bool data_change) {
    const tn_delta_snapshot *snap = txn->t->snap;
    if (file < snap->files || file >= snap->files + snap->nfiles)
        return tn_error_set(TN_EINVAL, "table '%s': a removed file must be a file of the snapshot", txn->t->path);
    for (uint32_t i = 0; i < txn->nremoves; i++)
        if (txn->removes[i].file == file)
            return tn_error_set(TN_EINVAL, "table '%s': file '%s' removed twice in one transaction", txn->t->path,
                                file->path);
    if (data_change && append_only(txn->t))
        return tn_error_set(TN_EUNSUPPORTED, "table '%s' is append-only (delta.appendOnly = true): removing data refused",
                            txn->t->path);
    int rc = grow((void **)&txn->removes, &txn->cap_removes, txn->nremoves + 1, sizeof *txn->removes);
    if (rc) return rc;
    txn->removes[txn->nremoves].file = file;
    txn->removes[txn->nremoves].data_change = data_change;
    txn->nremoves++;
    return 0;
}

int tb_txn_push_add(tn_table_txn *txn, const tn_delta_action *add, uint64_t rows, uint64_t bytes) {
    pthread_mutex_lock(&txn->lock);
    int rc = grow((void **)&txn->adds, &txn->cap_adds, txn->nadds + 1, sizeof *txn->adds);
    if (!rc) {
        txn->adds[txn->nadds].action = *add;
        txn->adds[txn->nadds].rows = rows;
        txn->adds[txn->nadds].bytes = bytes;
        txn->nadds++;
    }
    pthread_mutex_unlock(&txn->lock);
    return rc;
}

int tn_table_txn_add(tn_table_txn *txn, const tn_delta_file *file) {
    int rc = 0;
    tn_delta_action a;
    memset(&a, 0, sizeof a);
    a.kind = TN_DELTA_ADD;
    tn_delta_file *f = &a.u.file;
    *f = *file;
    f->path = adup(txn, file->path, &rc);
    f->path_decoded = adup(txn, file->path_decoded ? file->path_decoded : file->path, &rc);
    f->stats = adup(txn, file->stats, &rc);
    f->clustering_provider = adup(txn, file->clustering_provider, &rc);
    f->partition_values = kv_copy(txn, file->partition_values, file->npartition_values, &rc);
    f->tags = file->ntags ? kv_copy(txn, file->tags, file->ntags, &rc) : NULL;
    if (file->has_dv) {
        f->dv.path_or_inline = adup(txn, file->dv.path_or_inline, &rc);
        f->dv.unique_id = adup(txn, file->dv.unique_id, &rc);
    }
    if (!f->path) return tn_error_set(TN_EINVAL, "table '%s': an added file needs a path", txn->t->path);
    if (rc) return rc;
    return tb_txn_push_add(txn, &a, 0, 0);
}

int tn_table_txn_set_configuration(tn_table_txn *txn, const tn_delta_kv *props, uint32_t nprops) {
    int rc = 0;
    const tn_delta_metadata *base = txn->md ? txn->md : &txn->t->snap->metadata;
    const tn_delta_kv *cur = txn->conf_changed ? txn->conf : base->configuration;
    uint32_t ncur = txn->conf_changed ? txn->nconf : base->nconfiguration;
    tn_delta_kv *conf = tn_arena_calloc(txn->arena, sizeof *conf * (ncur + nprops + 1));
    if (!conf) return TN_ENOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < ncur; i++) {
        bool replaced = false;
        for (uint32_t j = 0; j < nprops; j++)
            if (strcmp(props[j].key, cur[i].key) == 0) replaced = true;
        if (!replaced) conf[n++] = cur[i];
    }
    for (uint32_t j = 0; j < nprops; j++) {
        bool dup = false;
        for (uint32_t k = j + 1; k < nprops; k++)
            if (strcmp(props[j].key, props[k].key) == 0) dup = true;   /* the last one wins */
        if (dup || !props[j].value) continue;
        conf[n].key = adup(txn, props[j].key, &rc);
        conf[n].value = adup(txn, props[j].value, &rc);
        n++;
    }
    if (rc) return rc;
    txn->conf = conf;
    txn->nconf = n;
    txn->conf_changed = true;
    return 0;
}

int tn_table_txn_set_metadata(tn_table_txn *txn, const tn_delta_metadata *md) {
    txn->md = md;
    txn->conf_changed = false;   /* the new metadata's configuration, until changed again */
    return 0;
}

void tn_table_txn_set_interrupt(tn_table_txn *txn, const int *flag) { txn->interrupt = flag; }
void tn_table_txn_set_deferred_sync(tn_table_txn *txn, bool on) { txn->defer_sync = on; }

void tn_table_txn_set_rows_checked(tn_table_txn *txn, bool constraints_checked, bool rows_from_table) {
    txn->constraints_checked = constraints_checked;
    txn->rows_from_table = rows_from_table;
}

int tn_table_txn_add_cdc(tn_table_txn *txn, const tn_delta_file *cdc) {
    int rc = tn_table_txn_add(txn, cdc);   /* copied like an add ... */
    if (rc) return rc;
    txn->adds[txn->nadds - 1].action.kind = TN_DELTA_CDC;   /* ... and committed as a cdc action */
    txn->adds[txn->nadds - 1].action.u.file.data_change = false;
    return 0;
}

int tn_table_txn_set_app(tn_table_txn *txn, const char *app_id, int64_t app_version, bool *applied) {
    int rc = 0;
    if (applied) *applied = false;
    if (!app_id) {
        txn->app_id = NULL;
        return 0;
    }
    txn->app_id = adup(txn, app_id, &rc);
    if (rc) return rc;
    txn->app_version = app_version;
    txn->app_applied = tn_delta_snapshot_txn_version(txn->t->snap, app_id) >= app_version;
    if (applied) *applied = txn->app_applied;
    return 0;
}

int tn_table_txn_set_commit_info(tn_table_txn *txn, const char *operation, const tn_delta_kv *params,
                                 uint32_t nparams, const tn_delta_kv *metrics, uint32_t nmetrics) {
    int rc = 0;
    txn->operation = adup(txn, operation, &rc);
    txn->params = kv_copy(txn, params, nparams, &rc);
    txn->metrics = kv_copy(txn, metrics, nmetrics, &rc);
    txn->nparams = nparams;
    txn->nmetrics = nmetrics;
    return rc;
}

uint32_t tn_table_txn_num_adds(const tn_table_txn *txn) { return txn->nadds; }
const tn_delta_file *tn_table_txn_add_at(const tn_table_txn *txn, uint32_t i) {
    return i < txn->nadds ? &txn->adds[i].action.u.file : NULL;
}
uint64_t tn_table_txn_num_files_written(const tn_table_txn *txn) { return txn->nwritten; }

int tb_txn_track_file(tn_table_txn *txn, const char *full_path) {
    pthread_mutex_lock(&txn->lock);
    int rc = grow((void **)&txn->written, &txn->cap_written, txn->nwritten + 1, sizeof *txn->written);
    if (!rc && !(txn->written[txn->nwritten] = tn_strdup(full_path))) rc = TN_ENOMEM;
    if (!rc) txn->nwritten++;
    pthread_mutex_unlock(&txn->lock);
    return rc;
}

int tn_table_txn_track_file(tn_table_txn *txn, const char *full_path) { return tb_txn_track_file(txn, full_path); }

int tb_txn_writer_opened(tn_table_txn *txn, tn_table_file_writer *fw) {
    pthread_mutex_lock(&txn->lock);
    int rc = grow((void **)&txn->open, &txn->cap_open, txn->nopen + 1, sizeof *txn->open);
    if (!rc) txn->open[txn->nopen++] = fw;
    pthread_mutex_unlock(&txn->lock);
    return rc;
}

void tb_txn_writer_done(tn_table_txn *txn, tn_table_file_writer *fw) {
    pthread_mutex_lock(&txn->lock);
    for (uint32_t i = 0; i < txn->nopen; i++)
        if (txn->open[i] == fw) {
            txn->open[i] = txn->open[--txn->nopen];
            break;
        }
    pthread_mutex_unlock(&txn->lock);
}

void tb_remove_file(tn_fs *fs, const char *full_path) {
    tn_error_state saved;
    tn_error_save(&saved);
    (void)fs->unlink(fs, full_path);   /* one already gone is fine */
    tn_error_restore(&saved);
}

static void remove_written(tn_table_txn *txn) {
    for (uint32_t i = 0; i < txn->nwritten; i++) tb_remove_file(txn->t->fs, txn->written[i]);
}

static void txn_free(tn_table_txn *txn) {
    if (!txn) return;
    for (uint32_t i = 0; i < txn->nwritten; i++) tn_free(txn->written[i]);
    tn_free(txn->written);
    tn_free(txn->parts);
    tn_free(txn->read_paths);
    tn_free(txn->preds);
    tn_free(txn->adds);
    tn_free(txn->removes);
    tn_free(txn->open);
    tn_arena_destroy(txn->arena);
    pthread_mutex_destroy(&txn->lock);
    tn_free(txn);
}

void tn_table_txn_abort(tn_table_txn *txn) {
    if (!txn) return;
    while (txn->nopen) tn_table_file_writer_abort(txn->open[txn->nopen - 1]);   /* unlists itself */
    remove_written(txn);
    txn_free(txn);
}

int tb_make_remove(tn_delta_action *out, const tn_delta_file *f, int64_t now) {
    memset(out, 0, sizeof *out);
    out->kind = TN_DELTA_REMOVE;
    out->u.file = *f;
    tn_delta_file *r = &out->u.file;
    r->has_deletion_timestamp = true;
    r->deletion_timestamp = now;
    r->data_change = true;
    r->extended_file_metadata = true;
    r->has_partition_values = true;
    r->tags = NULL;
    r->ntags = 0;
    r->stats = NULL;
    return 0;
}

/* Version 0 of a staged table: commitInfo, protocol, metaData, then the rest of actions[1..n).
 * Never retried: a table created meanwhile makes it fail. */
static int commit_create(tn_table *t, const tn_delta_metadata *md, const tn_delta_action *actions, uint32_t n,
                         tn_table_commit_result *res) {
    tn_delta_action *all = tn_malloc(sizeof *all * (n + 2));
    if (!all) return TN_ENOMEM;
    all[0] = actions[0];
    memset(&all[1], 0, sizeof all[1] * 2);
    all[1].kind = TN_DELTA_PROTOCOL;
    all[1].u.protocol = t->snap->protocol;
    all[2].kind = TN_DELTA_METADATA;
    all[2].u.metadata = *md;
    uint32_t k = 3;
    for (uint32_t i = 1; i < n; i++)
        if (actions[i].kind != TN_DELTA_METADATA) all[k++] = actions[i];
    int rc = tn_delta_commit(t->fs, t->path, 0, all, k);
    if (rc == TN_EEXISTS) rc = tn_error_set(TN_EEXISTS, "table '%s' already exists (created concurrently)", t->path);
    else if (rc) tn_error_prefix(rc, "table '%s': commit of version 0", t->path);
    tn_free(all);
    if (rc) return rc;
    res->version = 0;
    res->attempts = 1;
    return 0;
}

static bool txn_read_match(void *ctx, const tn_delta_file *f) {
    const tn_table_txn *txn = ctx;
    for (uint32_t i = 0; i < txn->npreds; i++)
        if (txn->preds[i].fn(txn->preds[i].ctx, f)) return true;
    return false;
}

/* The directories of the files this transaction wrote (new partition directories included),
 * and every directory up to the table's, are fsynced before the commit that names the files:
 * after a crash the commit must not name a file whose directory entry was lost. */
static int sync_written_dirs(tn_table_txn *txn) {
    tn_table *t = txn->t;
    size_t tl = strlen(t->path);
    char **done = NULL;
    uint32_t nd = 0, cap = 0;
    int rc = 0;
    for (uint32_t i = 0; i < txn->nwritten && !rc; i++) {
        char *d = tn_strdup(txn->written[i]);
        if (!d) { rc = TN_ENOMEM; break; }
        for (;;) {
            char *slash = strrchr(d, '/');
            if (!slash) break;
            *slash = '\0';
            size_t dl = strlen(d);
            if (dl < tl || strncmp(d, t->path, tl) != 0) break;
            bool seen = false;
            for (uint32_t k = 0; k < nd && !seen; k++) seen = strcmp(done[k], d) == 0;
            if (seen) break;                 /* and so were its ancestors */
            if (nd == cap) {
                uint32_t nc = cap ? cap * 2 : 16;
                char **nn = tn_realloc(done, sizeof *nn * nc);
                if (!nn) { rc = TN_ENOMEM; break; }
                done = nn;
                cap = nc;
            }
            if (!(done[nd] = tn_strdup(d))) { rc = TN_ENOMEM; break; }
            nd++;
            rc = tn_fs_sync_dir(t->fs, d);
            if (rc == TN_EUNSUPPORTED) { tn_error_clear(); rc = 0; }
            if (rc || dl == tl) break;
        }
        tn_free(d);
    }
    for (uint32_t k = 0; k < nd; k++) tn_free(done[k]);
    tn_free(done);
    return rc;
}

/* Deferred fsyncs (tn_table_txn_set_deferred_sync): every file written, from up to 8 threads
 * (the device takes concurrent fsyncs in fewer journal commits). */
typedef struct sync_job {
    tn_table_txn *txn;
    int *rc;                           /* per file */
    tn_error_state *err;               /* per file: the message of a failure */
} sync_job;

static int sync_one(void *ctx, uint32_t task, uint32_t worker) {
    (void)worker;
    sync_job *j = ctx;
    tn_fs *fs = j->txn->t->fs;
    tn_file *f = NULL;
    int rc = fs->open_read(fs, j->txn->written[task], &f);
    if (rc == TN_ENOTFOUND) {          /* removed again (an aborted writer's): nothing names it */
        tn_error_clear();
        j->rc[task] = 0;
        return 0;
    }
    if (!rc) rc = fs->sync(fs, f);
    if (f) {
        int crc = fs->close(fs, f);
        if (!rc) rc = crc;
    }
    j->rc[task] = rc;
    if (rc) tn_error_save(&j->err[task]);
    return 0;
}

static int sync_written_files(tn_table_txn *txn) {
    uint32_t n = txn->nwritten;
    if (n == 0) return 0;
    sync_job j = {txn, tn_calloc(n, sizeof *j.rc), tn_calloc(n, sizeof *j.err)};
    tn_pool *pool = NULL;
    int rc = !j.rc || !j.err ? TN_ENOMEM : 0;
    if (!rc && n > 1 && tn_pool_create(&pool, n < 8 ? (int)n : 8) != 0) {
        tn_error_clear();
        pool = NULL;                   /* no threads: one after the other */
    }
    if (!rc) {
        if (pool) rc = tn_pool_run(pool, n, sync_one, &j);
        else
            for (uint32_t i = 0; i < n; i++) sync_one(&j, i, 0);
    }
    tn_pool_destroy(pool);
    for (uint32_t i = 0; i < n && !rc; i++)
        if (j.rc[i]) {
            tn_error_restore(&j.err[i]);
            rc = j.rc[i];
        }
    tn_free(j.rc);
    tn_free(j.err);
    return rc;
}

int tn_table_txn_commit(tn_table_txn *txn, tn_table_commit_result *result) {
    int rc = 0;
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    res.version = -1;
    tn_table *t = txn->t;
    tn_delta_action *actions = NULL;
    const char **read_files = NULL;
    if (txn->nopen) {
        rc = tn_error_set(TN_EINVAL, "table '%s': %u file writer(s) still open at commit", t->path, txn->nopen);
        goto cleanup;
    }
    if (txn->app_applied) {
        res.skipped = true;
        remove_written(txn);
        goto cleanup;
    }
    rc = tn_interrupt_check(txn->interrupt);     /* the last point at which nothing is committed */
    if (rc) goto cleanup;
    uint32_t cap = 3 + txn->nremoves + txn->nadds, n = 0;
    actions = tn_malloc(sizeof *actions * cap);
    read_files = tn_malloc(sizeof *read_files * (txn->nremoves + txn->nread + 1));
    if (!actions || !read_files) { rc = TN_ENOMEM; goto cleanup; }
    bool meta = txn->conf_changed || txn->md;
    bool blind = !txn->read_all && !txn->nparts && !txn->nread && !txn->npreds && !txn->nremoves && !meta;
    rc = tb_commit_info(&actions[n++], txn->arena, txn->operation ? txn->operation : "WRITE", txn->params,
                        txn->nparams, txn->metrics, txn->nmetrics, blind, t->snap->version);
    if (rc) goto cleanup;
    tn_delta_metadata md = txn->md ? *txn->md : t->snap->metadata;
    if (meta) {
        if (txn->conf_changed) {
            md.configuration = txn->conf;
            md.nconfiguration = txn->nconf;
        }
        memset(&actions[n], 0, sizeof actions[n]);
        actions[n].kind = TN_DELTA_METADATA;
        actions[n].u.metadata = md;
        n++;
    }
    if (txn->app_id) {
        memset(&actions[n], 0, sizeof actions[n]);
        actions[n].kind = TN_DELTA_TXN;
        actions[n].u.txn.app_id = txn->app_id;
        actions[n].u.txn.version = txn->app_version;
        actions[n].u.txn.has_last_updated = true;
        actions[n].u.txn.last_updated = tb_now_ms();
        n++;
    }
    int64_t now = tb_now_ms();
    uint32_t nread = 0;
    for (uint32_t i = 0; i < txn->nremoves; i++) {
        tb_make_remove(&actions[n], txn->removes[i].file, now);
        actions[n++].u.file.data_change = txn->removes[i].data_change;
        read_files[nread++] = txn->removes[i].file->path;
    }
    for (uint32_t i = 0; i < txn->nread; i++) read_files[nread++] = txn->read_paths[i];
    for (uint32_t i = 0; i < txn->nadds; i++) {
        actions[n++] = txn->adds[i].action;
        res.rows_written += txn->adds[i].rows;
        res.bytes_added += txn->adds[i].bytes;
    }
    res.files_added = txn->nadds;
    res.files_removed = txn->nremoves;
    if (txn->defer_sync) rc = sync_written_files(txn);
    if (!rc) rc = sync_written_dirs(txn);
    if (rc) goto cleanup;
    if (t->snap->version < 0) {
        /* a staged table (tn_table_create_staged): version 0 creates it with these files */
        rc = commit_create(t, &md, actions, n, &res);
        goto cleanup;
    }
    tn_delta_txn_info info;
    memset(&info, 0, sizeof info);
    info.read_version = t->snap->version;
    info.is_blind_append = blind;
    info.read_whole_table = txn->read_all;
    info.read_partitions = txn->parts;
    info.nread_partitions = txn->nparts;
    info.read_files = read_files;
    info.nread_files = nread;
    const char *ids[1] = {txn->app_id};
    if (txn->app_id) {
        info.app_ids = ids;
        info.napp_ids = 1;
    }
    if (txn->npreds) {
        info.read_add = txn_read_match;
        info.read_add_ctx = txn;
    }
    bool skipped = false;
    rc = tb_commit(t, &info, actions, n, txn->max_attempts, txn->app_id, txn->app_version, &res.version, &skipped,
                   &res.attempts);
    if (rc == 0 && skipped) {
        /* a concurrent writer already applied this txn */
        res.skipped = true;
        res.version = -1;
        res.files_added = res.files_removed = res.rows_written = res.bytes_added = 0;
        remove_written(txn);
    }
cleanup:
    if (rc) {
        remove_written(txn);
        memset(&res, 0, sizeof res);
        res.version = -1;
    }
    if (result) *result = res;
    tn_free(actions);
    tn_free(read_files);
    txn_free(txn);
    return rc;
}
