/*
 * delta/commit.c: atomic commits of a version: the actions are written to a hidden temp file in
 * _delta_log (".tarn-<random>.tmp", which no reader mistakes for a version), fsynced, and
 * link()ed to %020d.json, which fails with TN_EEXISTS when another writer won; the temp file is
 * then removed. Never rename() over a version. Also the bounded optimistic-concurrency retry
 * loop (conflicts decided by conflict.c) and random names.
 */
#include "delta/deltaInt.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void dl_random_hex(char *out, size_t n) {
    static const char hex[] = "0123456789abcdef";
    uint8_t bytes[32];
    size_t nb = (n + 1) / 2;
    if (nb > sizeof bytes) nb = sizeof bytes;
    bool ok = false;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);   /* entropy, not table I/O */
    if (fd >= 0) {
        ok = read(fd, bytes, nb) == (ssize_t)nb;
        close(fd);
    }
    if (!ok) {
        uint64_t seed = tn_time_ns() ^ ((uint64_t)getpid() << 32);
        for (size_t i = 0; i < nb; i++) {
            seed = tn_hash_u64(seed + i);
            bytes[i] = (uint8_t)seed;
        }
    }
    for (size_t i = 0; i < n && i / 2 < nb; i++)
        out[i] = hex[(i & 1) ? bytes[i / 2] & 15 : bytes[i / 2] >> 4];
    out[n] = 0;
}

void dl_uuid(char out[37]) {
    char h[33];
    dl_random_hex(h, 32);
    h[12] = '4';                                   /* version 4 */
    h[16] = "89ab"[h[16] % 4];                     /* variant 10xx */
    snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", h, h + 8, h + 12, h + 16, h + 20);
}

int tn_delta_commit_serialize(tn_buf *out, const tn_delta_action *actions, uint32_t nactions) {
    for (uint32_t i = 0; i < nactions; i++) {
        int rc = tn_delta_action_serialize(out, &actions[i]);
        if (rc) return tn_error_prefix(rc, "action %u", i);
        if ((rc = tn_buf_append_byte(out, '\n'))) return rc;
    }
    return 0;
}

int tn_delta_commit(tn_fs *fs, const char *table_path, int64_t version,
                    const tn_delta_action *actions, uint32_t nactions) {
    tn_buf body = TN_BUF_INIT;
    tn_arena *arena = tn_arena_create(0);
    tn_file *f = NULL;
    bool tmp_created = false;
    int rc = 0;
    char rnd[17];
    if (!arena) return TN_ENOMEM;
    if (version < 0) { rc = tn_error_set(TN_EINVAL, "commit: negative version %" PRId64, version); goto cleanup; }
    const char *log = tn_arena_printf(arena, "%s/_delta_log", table_path);
    const char *final = tn_arena_printf(arena, "%s/%020" PRId64 ".json", log, version);
    dl_random_hex(rnd, 16);
    const char *tmp = tn_arena_printf(arena, "%s/.tarn-%s.tmp", log, rnd);
    if (!log || !final || !tmp) { rc = TN_ENOMEM; goto cleanup; }
    if ((rc = tn_delta_commit_serialize(&body, actions, nactions))) goto cleanup;
    if ((rc = fs->mkdir_p(fs, log))) goto cleanup;
    if (version > 0) {
        bool prev = false;
        const char *pp = tn_arena_printf(arena, "%s/%020" PRId64 ".json", log, version - 1);
        if (!pp) { rc = TN_ENOMEM; goto cleanup; }
        if ((rc = fs->exists(fs, pp, &prev))) goto cleanup;
        bool have_ckpt = false;
        if (!prev) {
            const char *cp = tn_arena_printf(arena, "%s/%020" PRId64 ".checkpoint.parquet", log, version - 1);
            if (!cp) { rc = TN_ENOMEM; goto cleanup; }
            if ((rc = fs->exists(fs, cp, &have_ckpt))) goto cleanup;
        }
        if (!prev && !have_ckpt) {
            rc = tn_error_set(TN_EINVAL, "%s: cannot commit version %" PRId64 ": version %" PRId64
                              " does not exist", log, version, version - 1);
            goto cleanup;
        }
    }
    if ((rc = fs->open_write(fs, tmp, true, &f))) goto cleanup;
    tmp_created = true;
    if ((rc = fs->write(fs, f, body.data, body.len))) goto cleanup;
    if ((rc = fs->sync(fs, f))) goto cleanup;
    rc = fs->close(fs, f);
    f = NULL;
    if (rc) goto cleanup;
    rc = fs->link(fs, tmp, final);
    if (rc == TN_EEXISTS) {
        rc = tn_error_set(TN_EEXISTS, "%s: version %" PRId64 " was already committed by another writer",
                          log, version);
        goto cleanup;
    }
    if (rc) goto cleanup;
    /* Committed. Making the directory entry durable is best effort: the version is visible now,
     * and reporting a failure here would make the caller retry a commit that happened. */
    if (fs->sync_dir) fs->sync_dir(fs, log);
    tn_error_clear();
cleanup:
    if (f) fs->close(fs, f);
    if (tmp_created) {
        tn_error_state saved;
        tn_error_save(&saved);
        fs->unlink(fs, tmp);
        tn_error_restore(&saved);
        if (rc == 0) tn_error_clear();
    }
    tn_buf_free(&body);
    tn_arena_destroy(arena);
    return rc;
}

int tn_delta_commit_retry(tn_fs *fs, const char *table_path, const tn_delta_txn_info *info,
                          const tn_delta_action *actions, uint32_t nactions, int max_attempts,
                          int64_t *committed) {
    if (info->read_version == INT64_MAX)
        return tn_error_set(TN_ELIMIT, "%s: version %lld is the last one a Delta log can hold", table_path,
                            (long long)INT64_MAX);
    int64_t v = info->read_version + 1;
    if (max_attempts <= 0) max_attempts = 100;
    *committed = -1;
    for (int attempt = 0; attempt < max_attempts && v >= 0; attempt++, v++) {
        int rc = tn_delta_commit(fs, table_path, v, actions, nactions);
        if (rc == 0) {
            *committed = v;
            /* A failed checkpoint never fails the commit; readers replay JSON instead. */
            int64_t every = info->checkpoint_interval ? info->checkpoint_interval : 10;
            if (every > 0 && v % every == 0 && tn_delta_maybe_checkpoint(fs, table_path, v, every) != 0)
                tn_error_clear();
            return 0;
        }
        if (rc != TN_EEXISTS) return rc;
        tn_arena *arena = tn_arena_create(0);
        tn_delta_action *win;
        uint32_t nwin;
        if (!arena) return TN_ENOMEM;
        rc = tn_delta_read_commit(fs, table_path, v, arena, &win, &nwin);
        if (rc == 0) rc = tn_delta_check_conflict(info, actions, nactions, win, nwin, v);
        tn_arena_destroy(arena);
        if (rc) return rc;
    }
    return tn_error_set(TN_ECONFLICT, "%s: commit gave up after %d attempts (versions %" PRId64
                        "..%" PRId64 " were taken by other writers)", table_path, max_attempts,
                        info->read_version + 1, v - 1);
}
