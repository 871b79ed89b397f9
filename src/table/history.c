/*
 * table/history.c: DESCRIBE HISTORY: one row per version still in the log (newest first) from
 * each commit's commitInfo: version, timestamp (inCommitTimestamp, else timestamp), operation,
 * operationParameters (as JSON object text), engineInfo, isBlindAppend. Versions whose commit
 * file was cleaned up (older than the oldest checkpoint) are left out.
 */
#include "table/tableInt.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void tn_table_history_free(tn_table_history *h) {
    if (!h) return;
    tn_arena_destroy(h->arena);
    memset(h, 0, sizeof *h);
}

int tn_table_history_read(tn_table_history *out, tn_fs *fs, const char *table_path, int64_t limit) {
    int rc = 0;
    memset(out, 0, sizeof *out);
    tn_arena *scratch = NULL;
    int64_t latest = -1;
    rc = tn_delta_latest_version(fs, table_path, &latest);
    if (rc) return rc;
    if (latest < 0) return tn_error_set(TN_ENOTFOUND, "no Delta table at '%s'", table_path);
    out->arena = tn_arena_create(0);
    if (!out->arena) return TN_ENOMEM;
    /* versions go up to INT64_MAX: count in uint64_t, grow the entries as commits are found
     * (the log may hold far fewer commits than latest + 1) */
    uint64_t n = (uint64_t)latest + 1, cap = 0;
    if (limit > 0 && (uint64_t)limit < n) n = (uint64_t)limit;
    for (int64_t v = latest; v >= 0 && out->count < n; v--) {
        tn_delta_action *acts = NULL;
        uint32_t nacts = 0;
        tn_arena_destroy(scratch);
        scratch = tn_arena_create(0);
        if (!scratch) { rc = TN_ENOMEM; goto cleanup; }
        rc = tn_delta_read_commit(fs, table_path, v, scratch, &acts, &nacts);
        if (rc == TN_ENOTFOUND) {   /* cleaned up: older versions are gone too */
            tn_error_clear();
            rc = 0;
            break;
        }
        if (rc) goto cleanup;
        if (out->count == cap) {
            uint64_t nc = cap ? cap * 2 : 16;
            tn_table_history_entry *ne = tn_arena_calloc(out->arena, sizeof *ne * nc);
            if (!ne) { rc = TN_ENOMEM; goto cleanup; }
            if (out->count) memcpy(ne, out->entries, sizeof *ne * out->count);
            out->entries = ne;
            cap = nc;
        }
        tn_table_history_entry *e = &out->entries[out->count++];
        e->version = v;
        e->timestamp_ms = -1;
        e->operation_parameters = "{}";
        for (uint32_t i = 0; i < nacts; i++) {
            if (acts[i].kind != TN_DELTA_COMMIT_INFO) continue;
            const tn_delta_commit_info *ci = &acts[i].u.commit_info;
            e->timestamp_ms = ci->has_in_commit_timestamp ? ci->in_commit_timestamp
                              : ci->has_timestamp ? ci->timestamp : -1;
            e->operation = ci->operation ? tn_arena_strdup(out->arena, ci->operation) : NULL;
            e->has_is_blind_append = ci->has_is_blind_append;
            e->is_blind_append = ci->is_blind_append;
            if (ci->json) {
                json_t *o = json_loads(ci->json, 0, NULL);
                json_t *p = o ? json_object_get(o, "operationParameters") : NULL;
                json_t *ei = o ? json_object_get(o, "engineInfo") : NULL;
                if (json_is_object(p)) {
                    char *s = json_dumps(p, JSON_COMPACT | JSON_PRESERVE_ORDER);
                    if (s) e->operation_parameters = tn_arena_strdup(out->arena, s);
                    free(s);
                }
                if (json_is_string(ei)) e->engine_info = tn_arena_strdup(out->arena, json_string_value(ei));
                json_decref(o);
            }
            break;
        }
    }
cleanup:
    tn_arena_destroy(scratch);
    if (rc) tn_table_history_free(out);
    return rc;
}
