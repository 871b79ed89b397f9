/*
 * delta/conflict.c: optimistic-concurrency conflict detection between a transaction and one
 * winning commit (in the order of Spark's ConflictChecker, at Serializable isolation):
 *   1. the winner changed the protocol            -> conflict
 *   2. the winner changed the metadata            -> conflict
 *   3. we change metadata/protocol and the winner wrote files -> conflict
 *   4. both wrote the same domainMetadata domain  -> conflict
 *   5. the winner wrote a txn for an appId we write -> conflict
 *   6. unless we are a blind append: winner adds in what we read, winner removes of files
 *      (or partitions) we read                    -> conflict; "what we read" is the whole
 *      table, partitions, files, and added files the caller's read_add accepts (a bucket)
 *   7. both removed the same file                 -> conflict
 * Blind appends (no reads, only adds) never conflict on data.
 */
#include "delta/deltaInt.h"

#include <inttypes.h>
#include <string.h>

static bool spec_matches(const tn_delta_partition_spec *spec, const tn_delta_file *f) {
    for (uint32_t i = 0; i < spec->nvalues; i++) {
        bool found;
        const char *v = tn_delta_kv_get(f->partition_values, f->npartition_values, spec->values[i].key, &found);
        bool fnull = !found || !v || !v[0];
        const char *want = spec->values[i].value;
        bool wnull = !want;
        if (fnull != wnull) return false;
        if (!fnull && strcmp(v, want) != 0) return false;
    }
    return true;
}

/* Does file f fall into what the transaction read? Sets *why to the partition/file. */
static bool touches_read_set(const tn_delta_txn_info *info, const tn_delta_file *f, bool by_path) {
    if (info->read_whole_table) return true;
    if (info->read_add && !by_path && info->read_add(info->read_add_ctx, f)) return true;
    for (uint32_t i = 0; i < info->nread_partitions; i++)
        if (spec_matches(&info->read_partitions[i], f)) return true;
    if (by_path)
        for (uint32_t i = 0; i < info->nread_files; i++)
            if (strcmp(info->read_files[i], f->path) == 0) return true;
    return false;
}

static const char *describe_partition(const tn_delta_file *f, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < f->npartition_values && n + 1 < cap; i++) {
        int w = snprintf(buf + n, cap - n, "%s%s=%s", i ? "/" : "", f->partition_values[i].key,
                         f->partition_values[i].value ? f->partition_values[i].value : "NULL");
        if (w < 0) break;
        n += (size_t)w;
    }
    if (n >= cap) n = cap - 1;
    return n ? buf : "(unpartitioned)";
}

int tn_delta_check_conflict(const tn_delta_txn_info *info, const tn_delta_action *ours,
                            uint32_t nours, const tn_delta_action *winner, uint32_t nwinner,
                            int64_t winner_version) {
    bool we_change_meta = false, winner_files = false;
    char part[256];
    for (uint32_t i = 0; i < nours; i++)
        if (ours[i].kind == TN_DELTA_METADATA || ours[i].kind == TN_DELTA_PROTOCOL) we_change_meta = true;
    for (uint32_t i = 0; i < nwinner; i++) {
        const tn_delta_action *w = &winner[i];
        switch (w->kind) {
        case TN_DELTA_PROTOCOL:
            return tn_error_set(TN_ECONFLICT, "conflict: the protocol was changed by a concurrent "
                                "commit (version %" PRId64 ")", winner_version);
        case TN_DELTA_METADATA:
            return tn_error_set(TN_ECONFLICT, "conflict: the table metadata was changed by a "
                                "concurrent commit (version %" PRId64 ")", winner_version);
        case TN_DELTA_ADD:
        case TN_DELTA_REMOVE:
            winner_files = true;
            break;
        case TN_DELTA_DOMAIN_METADATA:
            for (uint32_t j = 0; j < nours; j++)
                if (ours[j].kind == TN_DELTA_DOMAIN_METADATA && strcmp(ours[j].u.domain.domain, w->u.domain.domain) == 0)
                    return tn_error_set(TN_ECONFLICT, "conflict: domain '%s' was changed by a "
                                        "concurrent commit (version %" PRId64 ")", w->u.domain.domain, winner_version);
            break;
        case TN_DELTA_TXN:
            for (uint32_t j = 0; j < info->napp_ids; j++)
                if (strcmp(info->app_ids[j], w->u.txn.app_id) == 0)
                    return tn_error_set(TN_ECONFLICT, "conflict: a concurrent commit (version %" PRId64
                                        ") wrote transaction %" PRId64 " of application '%s'",
                                        winner_version, w->u.txn.version, w->u.txn.app_id);
            for (uint32_t j = 0; j < nours; j++)
                if (ours[j].kind == TN_DELTA_TXN && strcmp(ours[j].u.txn.app_id, w->u.txn.app_id) == 0)
                    return tn_error_set(TN_ECONFLICT, "conflict: a concurrent commit (version %" PRId64
                                        ") wrote transaction %" PRId64 " of application '%s'",
                                        winner_version, w->u.txn.version, w->u.txn.app_id);
            break;
        default:
            break;
        }
    }
    if (we_change_meta && winner_files)
        return tn_error_set(TN_ECONFLICT, "conflict: this transaction changes the table metadata "
                            "but a concurrent commit (version %" PRId64 ") wrote files", winner_version);
    for (uint32_t i = 0; i < nwinner; i++) {
        const tn_delta_action *w = &winner[i];
        if (w->kind == TN_DELTA_ADD && !info->is_blind_append && touches_read_set(info, &w->u.file, false))
            return tn_error_set(TN_ECONFLICT, "conflict: a concurrent commit (version %" PRId64 ") "
                                "added files to partition %s that this transaction read or overwrites",
                                winner_version, describe_partition(&w->u.file, part, sizeof part));
        if (w->kind != TN_DELTA_REMOVE) continue;
        if (!info->is_blind_append && touches_read_set(info, &w->u.file, true))
            return tn_error_set(TN_ECONFLICT, "conflict: a concurrent commit (version %" PRId64 ") "
                                "removed file '%s' that this transaction read", winner_version,
                                w->u.file.path);
        for (uint32_t j = 0; j < nours; j++)
            if (ours[j].kind == TN_DELTA_REMOVE && strcmp(ours[j].u.file.path_decoded, w->u.file.path_decoded) == 0)
                return tn_error_set(TN_ECONFLICT, "conflict: file '%s' was removed by this "
                                    "transaction and by a concurrent commit (version %" PRId64 ")",
                                    w->u.file.path, winner_version);
    }
    return 0;
}
