/*
 * delta/snapshot.c: a table's state at a version: lists _delta_log (ignoring .tmp/, .crc and
 * unknown names), reads _last_checkpoint (and its variants), replays the newest usable
 * checkpoint (classic, multi-part, v2 JSON/Parquet with sidecars) plus the later JSON commits,
 * reconciles actions (latest protocol/metaData, files keyed by (path, DV unique id), tombstones,
 * txn per appId, domains), time travel by version or commit timestamp, and the protocol check.
 * The latest snapshot of a table with a _last_checkpoint is opened without listing the log:
 * that checkpoint, then the commits after it read by name until one is missing.
 *
 *   _delta_log name                                   meaning
 *   %020d.json                                        commit
 *   %020d.checkpoint.parquet                          classic checkpoint
 *   %020d.checkpoint.%010d.%010d.parquet              part o of p of a multi-part checkpoint
 *   %020d.checkpoint.<uuid>.json|parquet              v2 (UUID-named) checkpoint
 *   _last_checkpoint                                  hint: {version,size,parts,sizeInBytes,..}
 *   _sidecars/<name>.parquet                            file actions of v2 checkpoints
 */
#include "delta/deltaInt.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * A string -> index hash map (open addressing, keys owned elsewhere).
 */
typedef struct smap {
    const char **keys;
    uint32_t *vals;
    size_t cap, n;
} smap;

static void smap_free(smap *m) {
    tn_free(m->keys);
    tn_free(m->vals);
    memset(m, 0, sizeof *m);
}

static int smap_grow(smap *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    const char **keys = tn_calloc(cap, sizeof *keys);
    uint32_t *vals = tn_calloc(cap, sizeof *vals);
    if (!keys || !vals) { tn_free(keys); tn_free(vals); return TN_ENOMEM; }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t h = tn_hash_bytes(m->keys[i], strlen(m->keys[i]), 0) & (cap - 1);
        while (keys[h]) h = (h + 1) & (cap - 1);
        keys[h] = m->keys[i];
        vals[h] = m->vals[i];
    }
    tn_free(m->keys);
    tn_free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

/* Returns the slot for key; *found tells whether it holds key. */
static size_t smap_slot(const smap *m, const char *key, bool *found) {
    size_t h = tn_hash_bytes(key, strlen(key), 0) & (m->cap - 1);
    while (m->keys[h]) {
        if (strcmp(m->keys[h], key) == 0) { *found = true; return h; }
        h = (h + 1) & (m->cap - 1);
    }
    *found = false;
    return h;
}

/* Finds key or inserts it with value `fresh`; *val gets the stored value. */
static int smap_upsert(smap *m, const char *key, uint32_t fresh, uint32_t *val, bool *existed) {
    if ((m->n + 1) * 2 > m->cap) {
        int rc = smap_grow(m);
        if (rc) return rc;
    }
    bool found;
    size_t s = smap_slot(m, key, &found);
    if (!found) {
        m->keys[s] = key;
        m->vals[s] = fresh;
        m->n++;
    }
    *val = m->vals[s];
    *existed = found;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Replay state.
 */
typedef struct fentry {
    tn_delta_file file;
    bool live;                       /* add (true) or tombstone (false) */
} fentry;

typedef struct replay {
    tn_arena *arena;
    smap files_by_key;
    fentry *files;
    uint32_t nfiles, cap_files;
    smap txn_by_app;
    tn_delta_txn *txns;
    uint32_t ntxns, cap_txns;
    smap dom_by_name;
    tn_delta_domain *domains;
    uint32_t ndomains, cap_domains;
    bool has_protocol, has_metadata;
    tn_delta_protocol protocol;
    tn_delta_metadata metadata;
    /* v2 checkpoints: sidecars to read after the checkpoint body */
    tn_delta_sidecar *sidecars;
    uint32_t nsidecars, cap_sidecars;
    bool in_checkpoint;
    int64_t commit_timestamp;        /* of the last commit applied, -1 unknown */
} replay;

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return 0;
    uint32_t c = *cap ? *cap * 2 : 16;
    while (c < need) c *= 2;
    void *p = tn_realloc(*arr, (size_t)c * elem);
    if (!p) return TN_ENOMEM;
    *arr = p;
    *cap = c;
    return 0;
}

static int apply_file(replay *r, const tn_delta_file *f, bool live) {
    const char *dvid = f->has_dv ? f->dv.unique_id : "";
    size_t pl = strlen(f->path_decoded), dl = strlen(dvid);
    char *key = tn_arena_alloc(r->arena, pl + dl + 2);   /* path \x01 dv id */
    if (!key) return TN_ENOMEM;
    memcpy(key, f->path_decoded, pl);
    key[pl] = '\x01';
    memcpy(key + pl + 1, dvid, dl + 1);
    uint32_t idx;
    bool existed;
    int rc = smap_upsert(&r->files_by_key, key, r->nfiles, &idx, &existed);
    if (rc) return rc;
    if (!existed) {
        if ((rc = grow((void **)&r->files, &r->cap_files, r->nfiles + 1, sizeof *r->files))) return rc;
        r->nfiles++;
    }
    r->files[idx].file = *f;
    r->files[idx].live = live;
    return 0;
}

static int apply_action(replay *r, const tn_delta_action *a) {
    int rc = 0;
    uint32_t idx;
    bool existed;
    switch (a->kind) {
    case TN_DELTA_ADD: return apply_file(r, &a->u.file, true);
    case TN_DELTA_REMOVE: return apply_file(r, &a->u.file, false);
    case TN_DELTA_PROTOCOL: r->protocol = a->u.protocol; r->has_protocol = true; return 0;
    case TN_DELTA_METADATA: r->metadata = a->u.metadata; r->has_metadata = true; return 0;
    case TN_DELTA_TXN:
        if ((rc = smap_upsert(&r->txn_by_app, a->u.txn.app_id, r->ntxns, &idx, &existed))) return rc;
        if (!existed) {
            if ((rc = grow((void **)&r->txns, &r->cap_txns, r->ntxns + 1, sizeof *r->txns))) return rc;
            r->ntxns++;
        }
        r->txns[idx] = a->u.txn;
        return 0;
    case TN_DELTA_DOMAIN_METADATA:
        if ((rc = smap_upsert(&r->dom_by_name, a->u.domain.domain, r->ndomains, &idx, &existed))) return rc;
        if (!existed) {
            if ((rc = grow((void **)&r->domains, &r->cap_domains, r->ndomains + 1, sizeof *r->domains))) return rc;
            r->ndomains++;
        }
        r->domains[idx] = a->u.domain;
        return 0;
    case TN_DELTA_SIDECAR:
        if (!r->in_checkpoint) return 0;
        if ((rc = grow((void **)&r->sidecars, &r->cap_sidecars, r->nsidecars + 1, sizeof *r->sidecars))) return rc;
        r->sidecars[r->nsidecars++] = a->u.sidecar;
        return 0;
    case TN_DELTA_COMMIT_INFO:
        if (a->u.commit_info.has_in_commit_timestamp) r->commit_timestamp = a->u.commit_info.in_commit_timestamp;
        else if (a->u.commit_info.has_timestamp) r->commit_timestamp = a->u.commit_info.timestamp;
        return 0;
    default:
        return 0;
    }
}

/* Applies one commit's actions: removes first, then everything else (a commit may remove a
 * logical file and add the same path with a new DV). */
static int apply_commit(replay *r, const tn_delta_action *acts, uint32_t n) {
    int rc;
    r->commit_timestamp = -1;
    for (uint32_t i = 0; i < n; i++)
        if (acts[i].kind == TN_DELTA_REMOVE && (rc = apply_action(r, &acts[i]))) return rc;
    for (uint32_t i = 0; i < n; i++)
        if (acts[i].kind != TN_DELTA_REMOVE && (rc = apply_action(r, &acts[i]))) return rc;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Reading log files.
 */
static int parse_lines(const char *path, const tn_buf *buf, tn_arena *arena, tn_delta_action **out,
                       uint32_t *nout) {
    uint32_t n = 0, cap = 0;
    tn_delta_action *acts = NULL;
    int rc = 0;
    size_t pos = 0, line = 0;
    const char *data = (const char *)buf->data;
    while (pos < buf->len) {
        size_t end = pos;
        while (end < buf->len && data[end] != '\n') end++;
        line++;
        size_t s = pos, e = end;
        while (s < e && (data[s] == ' ' || data[s] == '\t' || data[s] == '\r')) s++;
        while (e > s && (data[e - 1] == ' ' || data[e - 1] == '\t' || data[e - 1] == '\r')) e--;
        if (e > s) {
            if (n == cap) {
                uint32_t c = cap ? cap * 2 : 16;
                tn_delta_action *p = tn_arena_alloc(arena, (size_t)c * sizeof *p);
                if (!p) { rc = TN_ENOMEM; goto cleanup; }
                if (n) memcpy(p, acts, (size_t)n * sizeof *p);
                acts = p;
                cap = c;
            }
            if ((rc = tn_delta_action_parse(&acts[n], arena, data + s, e - s))) {
                rc = tn_error_prefix(rc, "%s: line %zu", path, line);
                goto cleanup;
            }
            n++;
        }
        pos = end + 1;
    }
    *out = acts;
    *nout = n;
cleanup:
    return rc;
}

static int read_json_file(tn_fs *fs, const char *path, tn_arena *arena, tn_delta_action **out,
                          uint32_t *n) {
    tn_buf buf = TN_BUF_INIT;
    int rc = tn_fs_read_all(fs, path, &buf);
    if (rc == 0) rc = parse_lines(path, &buf, arena, out, n);
    /* a commit holds at least one action (commitInfo, protocol, ...): an empty file is a torn
     * or truncated write, never "nothing happened" */
    if (rc == 0 && *n == 0)
        rc = tn_error_set(TN_ECORRUPT, "%s: empty log file (%zu bytes, no actions)", path, buf.len);
    tn_buf_free(&buf);
    return rc;
}

int tn_delta_read_commit(tn_fs *fs, const char *table_path, int64_t version, tn_arena *arena,
                         tn_delta_action **out, uint32_t *nactions) {
    char *path = tn_arena_printf(arena, "%s/_delta_log/%020" PRId64 ".json", table_path, version);
    if (!path) return TN_ENOMEM;
    return read_json_file(fs, path, arena, out, nactions);
}

static int checkpoint_action(void *vctx, const tn_delta_action *a) { return apply_action(vctx, a); }

static int read_parquet_checkpoint(tn_fs *fs, replay *r, const char *path) {
    return dl_checkpoint_read_actions(fs, path, r->arena, checkpoint_action, r);
}

/* ---------------------------------------------------------------------------------------------
 * Log listing.
 */
typedef struct ckpt {
    int64_t version;
    int kind;                        /* 0 classic, 1 part, 2 v2 json, 3 v2 parquet */
    uint32_t part, nparts;
    const char *name;
} ckpt;

typedef struct listing {
    tn_arena *arena;
    int64_t *commits;
    uint32_t ncommits, cap_commits;
    ckpt *ckpts;
    uint32_t nckpts, cap_ckpts;
    bool has_last_checkpoint;
    int rc;
} listing;

static bool all_digits(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

static int list_entry(void *vctx, const char *name, bool is_dir) {
    listing *l = vctx;
    size_t n = strlen(name);
    if (is_dir) return 0;
    if (strcmp(name, "_last_checkpoint") == 0) { l->has_last_checkpoint = true; return 0; }
    if (n < 21 || !all_digits(name, 20) || name[20] != '.') return 0;
    if (strncmp(name, "09223372036854775807", 20) > 0) {
        l->rc = tn_error_set(TN_ECORRUPT, "%s: version number out of range (the largest is %lld)", name,
                             (long long)INT64_MAX);
        return l->rc;
    }
    int64_t v = strtoll(name, NULL, 10);
    const char *rest = name + 21;
    int rc;
    if (strcmp(rest, "json") == 0) {
        if ((rc = grow((void **)&l->commits, &l->cap_commits, l->ncommits + 1, sizeof *l->commits))) return rc;
        l->commits[l->ncommits++] = v;
        return 0;
    }
    if (strncmp(rest, "checkpoint.", 11) != 0) return 0;     /* .crc, .compacted.json, ... */
    rest += 11;
    ckpt c = {v, -1, 0, 0, NULL};
    size_t rn = strlen(rest);
    if (strcmp(rest, "parquet") == 0) {
        c.kind = 0;
    } else if (rn == 10 + 1 + 10 + 8 && all_digits(rest, 10) && rest[10] == '.' &&
               all_digits(rest + 11, 10) && strcmp(rest + 21, ".parquet") == 0) {
        c.kind = 1;
        c.part = (uint32_t)strtoul(rest, NULL, 10);
        c.nparts = (uint32_t)strtoul(rest + 11, NULL, 10);
        if (c.part < 1 || c.part > c.nparts) return 0;
    } else if (rn > 5 && strcmp(rest + rn - 5, ".json") == 0) {
        c.kind = 2;
    } else if (rn > 8 && strcmp(rest + rn - 8, ".parquet") == 0) {
        c.kind = 3;
    } else {
        return 0;
    }
    c.name = tn_arena_strdup(l->arena, name);
    if (!c.name) return TN_ENOMEM;
    if ((rc = grow((void **)&l->ckpts, &l->cap_ckpts, l->nckpts + 1, sizeof *l->ckpts))) return rc;
    l->ckpts[l->nckpts++] = c;
    return 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int read_last_checkpoint(tn_fs *fs, const char *log, tn_arena *arena,
                                tn_delta_last_checkpoint *out) {
    tn_buf buf = TN_BUF_INIT;
    char *path = tn_arena_printf(arena, "%s/_last_checkpoint", log);
    json_t *j = NULL;
    memset(out, 0, sizeof *out);
    out->size_in_bytes = -1;
    out->num_of_add_files = -1;
    if (!path) return TN_ENOMEM;
    int rc = tn_fs_read_all(fs, path, &buf);
    if (rc) {                        /* missing or unreadable: fall back to listing */
        tn_error_clear();
        rc = 0;
        goto cleanup;
    }
    j = json_loadb((const char *)buf.data, buf.len, 0, NULL);
    json_t *v = json_object_get(j, "version");
    if (!json_is_integer(v)) goto cleanup;          /* corrupt hint: ignored */
    out->present = true;
    out->version = json_integer_value(v);
    v = json_object_get(j, "size");
    if (json_is_integer(v)) out->size = json_integer_value(v);
    v = json_object_get(j, "parts");
    if (json_is_integer(v)) out->parts = json_integer_value(v);
    v = json_object_get(j, "sizeInBytes");
    if (!v) v = json_object_get(j, "size_in_bytes");
    if (json_is_integer(v)) out->size_in_bytes = json_integer_value(v);
    v = json_object_get(j, "numOfAddFiles");
    if (!v) v = json_object_get(j, "num_of_add_files");
    if (json_is_integer(v)) out->num_of_add_files = json_integer_value(v);
    v = json_object_get(json_object_get(j, "v2Checkpoint"), "path");
    if (json_is_string(v)) out->v2_path = tn_arena_strdup(arena, json_string_value(v));
cleanup:
    json_decref(j);
    tn_buf_free(&buf);
    return rc;
}

/* Picks the newest complete checkpoint with version <= target; returns its index range. */
static bool pick_checkpoint(const listing *l, int64_t target, const tn_delta_last_checkpoint *hint,
                            int64_t *version, int *kind, const ckpt **files, uint32_t *nfiles,
                            tn_arena *arena) {
    int64_t best = -1;
    int best_kind = -1;
    const ckpt *single = NULL;
    uint32_t best_parts = 0;
    for (uint32_t i = 0; i < l->nckpts; i++) {
        const ckpt *c = &l->ckpts[i];
        if (c->version > target || c->version < best) continue;
        bool usable = false;
        if (c->kind == 1) {
            /* complete only when every part 1..nparts is there */
            uint32_t count = 0;
            for (uint32_t p = 1; p <= c->nparts && p < 100000; p++) {
                bool found = false;
                for (uint32_t j = 0; j < l->nckpts && !found; j++)
                    found = l->ckpts[j].version == c->version && l->ckpts[j].kind == 1 &&
                            l->ckpts[j].nparts == c->nparts && l->ckpts[j].part == p;
                if (!found) break;
                count++;
            }
            usable = count == c->nparts;
        } else {
            usable = true;
        }
        if (!usable) continue;
        /* at one version prefer the _last_checkpoint's v2 file, then v2, then classic, then parts */
        int rank = c->kind == 1 ? 0 : c->kind == 0 ? 1 : 2;
        if (hint->present && hint->v2_path && c->version == hint->version && strcmp(c->name, hint->v2_path) == 0)
            rank = 3;
        int best_rank = best_kind < 0 ? -1 : best_kind == 1 ? 0 : best_kind == 0 ? 1 : 2;
        if (single && hint->present && hint->v2_path && best == hint->version && strcmp(single->name, hint->v2_path) == 0)
            best_rank = 3;
        if (c->version > best || rank > best_rank) {
            best = c->version;
            best_kind = c->kind;
            single = c;
            best_parts = c->nparts;
        }
    }
    if (best < 0) return false;
    *version = best;
    *kind = best_kind;
    if (best_kind == 1) {
        ckpt *parts = tn_arena_alloc(arena, sizeof *parts * best_parts);
        if (!parts) return false;
        for (uint32_t j = 0; j < l->nckpts; j++)
            if (l->ckpts[j].version == best && l->ckpts[j].kind == 1 && l->ckpts[j].nparts == best_parts)
                parts[l->ckpts[j].part - 1] = l->ckpts[j];
        *files = parts;
        *nfiles = best_parts;
    } else {
        *files = single;
        *nfiles = 1;
    }
    return true;
}

static int list_log(tn_fs *fs, const char *log, listing *l) {
    int rc = fs->list_dir(fs, log, list_entry, l);
    if (rc) return rc;
    if (l->ncommits) qsort(l->commits, l->ncommits, sizeof *l->commits, cmp_i64);
    return 0;
}

int tn_delta_latest_version(tn_fs *fs, const char *table_path, int64_t *out) {
    listing l;
    memset(&l, 0, sizeof l);
    int rc = 0;
    *out = -1;
    l.arena = tn_arena_create(0);
    char *log = l.arena ? tn_arena_printf(l.arena, "%s/_delta_log", table_path) : NULL;
    if (!log) { rc = TN_ENOMEM; goto cleanup; }
    rc = list_log(fs, log, &l);
    if (rc == TN_ENOTFOUND) { tn_error_clear(); rc = 0; goto cleanup; }
    if (rc) goto cleanup;
    if (l.ncommits) *out = l.commits[l.ncommits - 1];
cleanup:
    tn_free(l.commits);
    tn_free(l.ckpts);
    tn_arena_destroy(l.arena);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Snapshot.
 */
static int cmp_files(const void *a, const void *b) {
    const tn_delta_file *x = a, *y = b;
    int c = strcmp(x->path_decoded, y->path_decoded);
    if (c) return c;
    const char *dx = x->has_dv ? x->dv.unique_id : "", *dy = y->has_dv ? y->dv.unique_id : "";
    return strcmp(dx, dy);
}
static int cmp_txns(const void *a, const void *b) {
    return strcmp(((const tn_delta_txn *)a)->app_id, ((const tn_delta_txn *)b)->app_id);
}
static int cmp_domains(const void *a, const void *b) {
    return strcmp(((const tn_delta_domain *)a)->domain, ((const tn_delta_domain *)b)->domain);
}

static int commit_timestamp(tn_fs *fs, const char *log, int64_t version, tn_arena *scratch, int64_t *out) {
    char *path = tn_arena_printf(scratch, "%s/%020" PRId64 ".json", log, version);
    tn_delta_action *acts;
    uint32_t n;
    if (!path) return TN_ENOMEM;
    int rc = read_json_file(fs, path, scratch, &acts, &n);
    if (rc) return rc;
    *out = -1;
    for (uint32_t i = 0; i < n; i++)
        if (acts[i].kind == TN_DELTA_COMMIT_INFO) {
            if (acts[i].u.commit_info.has_in_commit_timestamp) *out = acts[i].u.commit_info.in_commit_timestamp;
            else if (acts[i].u.commit_info.has_timestamp) *out = acts[i].u.commit_info.timestamp;
        }
    return 0;
}

static int read_checkpoint(tn_fs *fs, replay *r, const char *log, int kind, const ckpt *files,
                           uint32_t nfiles) {
    int rc = 0;
    r->in_checkpoint = true;
    for (uint32_t i = 0; i < nfiles; i++) {
        char *path = tn_arena_printf(r->arena, "%s/%s", log, files[i].name);
        if (!path) return TN_ENOMEM;
        if (kind == 2) {
            tn_delta_action *acts;
            uint32_t n;
            if ((rc = read_json_file(fs, path, r->arena, &acts, &n))) return rc;
            for (uint32_t k = 0; k < n; k++)
                if ((rc = apply_action(r, &acts[k]))) return tn_error_prefix(rc, "%s", path);
        } else if ((rc = read_parquet_checkpoint(fs, r, path))) {
            return rc;
        }
    }
    for (uint32_t i = 0; i < r->nsidecars; i++) {
        const char *sp = r->sidecars[i].path, *full;
        const char *decoded;
        if ((rc = tn_delta_uri_decode(&decoded, r->arena, sp))) return rc;
        if (strncmp(decoded, "file:", 5) == 0 || decoded[0] == '/') {
            full = decoded[0] == '/' ? decoded : decoded + 5;
            while (full[0] == '/' && full[1] == '/') full++;
        } else {
            full = tn_arena_printf(r->arena, "%s/_sidecars/%s", log, decoded);
        }
        if (!full) return TN_ENOMEM;
        if ((rc = read_parquet_checkpoint(fs, r, full))) return tn_error_prefix(rc, "sidecar");
    }
    r->in_checkpoint = false;
    return 0;
}

/* Forgets everything a replay collected (its arena keeps the bytes). */
static void replay_clear(replay *r) {
    tn_arena *arena = r->arena;
    smap_free(&r->files_by_key);
    smap_free(&r->txn_by_app);
    smap_free(&r->dom_by_name);
    tn_free(r->files);
    tn_free(r->txns);
    tn_free(r->domains);
    tn_free(r->sidecars);
    memset(r, 0, sizeof *r);
    r->arena = arena;
    r->commit_timestamp = -1;
}

/* The latest snapshot without listing _delta_log (11,000 names for 10,000 commits): the
 * checkpoint _last_checkpoint names, then commits hint+1, hint+2, ... read by name until one
 * is missing (versions are contiguous). *done = false (nothing kept, no error) whenever that
 * cannot be trusted -- no commit after the checkpoint (a stale hint over a cleaned-up log looks
 * the same), a missing or unreadable file -- and the caller lists the log. */
static int replay_from_hint(tn_fs *fs, tn_delta_snapshot *s, replay *r, int64_t *target, bool *done) {
    const tn_delta_last_checkpoint *h = &s->last_checkpoint;
    const char *log = s->log_path;
    tn_arena *arena = s->arena;
    int rc = 0;
    *done = false;
    if (h->version < 0 || h->parts < 0 || h->parts > 100000) return 0;
    /* the first commit after the checkpoint must exist */
    tn_delta_action *acts;
    uint32_t n;
    int64_t v = h->version + 1;
    rc = tn_delta_read_commit(fs, s->table_path, v, arena, &acts, &n);
    if (rc) goto fallback;
    ckpt *files;
    uint32_t nfiles = h->parts > 0 && !h->v2_path ? (uint32_t)h->parts : 1;
    int kind = 0;
    files = tn_arena_calloc(arena, sizeof *files * nfiles);
    if (!files) return TN_ENOMEM;
    for (uint32_t i = 0; i < nfiles; i++) {
        files[i].version = h->version;
        if (h->v2_path) {
            size_t pl = strlen(h->v2_path);
            kind = pl > 5 && strcmp(h->v2_path + pl - 5, ".json") == 0 ? 2 : 3;
            files[i].name = h->v2_path;
        } else if (h->parts > 0) {
            kind = 1;
            files[i].name = tn_arena_printf(arena, "%020" PRId64 ".checkpoint.%010u.%010u.parquet", h->version,
                                            i + 1, nfiles);
        } else {
            files[i].name = tn_arena_printf(arena, "%020" PRId64 ".checkpoint.parquet", h->version);
        }
        if (!files[i].name) return TN_ENOMEM;
        if (strchr(files[i].name, '/')) goto fallback;     /* a v2 path outside _delta_log */
    }
    files[0].kind = kind;
    if ((rc = read_checkpoint(fs, r, log, kind, files, nfiles))) goto fallback;
    s->checkpoint_version = h->version;
    s->commits_replayed = 0;
    for (;;) {
        if ((rc = apply_commit(r, acts, n))) {
            rc = tn_error_prefix(rc, "%s/%020" PRId64 ".json", log, v);
            goto fallback;
        }
        s->commits_replayed++;
        if (v == INT64_MAX) break;
        rc = tn_delta_read_commit(fs, s->table_path, v + 1, arena, &acts, &n);
        if (rc == TN_ENOTFOUND) break;
        if (rc) goto fallback;
        v++;
    }
    tn_error_clear();
    {
        /* v + 1 is missing: a later commit behind the hole means the log is not contiguous
         * (the listing reports it); never read the versions before the hole as the latest,
         * or a writer would fill it */
        int64_t latest = -1;
        if ((rc = tn_delta_latest_version(fs, s->table_path, &latest))) return rc;
        if (latest > v) goto fallback;
    }
    static const char *const kinds[] = {"classic", "multi-part", "v2-json", "v2-parquet"};
    s->checkpoint_kind = kinds[kind];
    s->timestamp = r->commit_timestamp;
    *target = v;
    *done = true;
    return 0;
fallback:
    if (rc == TN_ENOMEM) return rc;
    tn_error_clear();
    replay_clear(r);
    s->checkpoint_version = -1;
    s->commits_replayed = 0;
    return 0;
}

/* Opens by listing _delta_log: any version (opts), the newest usable checkpoint at or below it,
 * then the JSON commits after it (which must all be there). */
static int open_by_listing(tn_fs *fs, tn_delta_snapshot *s, replay *rp, listing *lp, const tn_delta_open_options *opts,
                           const char *table_path, tn_arena *scratch, int64_t *target_out) {
    int rc = 0;
    const char *log = s->log_path;
    tn_arena *arena = s->arena;
    if ((rc = list_log(fs, log, lp))) {
        if (rc == TN_ENOTFOUND) rc = tn_error_set(TN_ENOTFOUND, "%s: not a Delta table (no _delta_log)", table_path);
        return rc;
    }
    if (lp->ncommits == 0) {
        rc = tn_error_set(TN_ENOTFOUND, "%s: no commits in the Delta log", log);
        return rc;
    }
    int64_t latest = lp->commits[lp->ncommits - 1];

    /* Target version. */
    int64_t target = latest;
    *target_out = -1;
    if (opts->at_version >= 0) {
        if (opts->at_version > latest) {
            rc = tn_error_set(TN_ENOTFOUND, "%s: version %" PRId64 " does not exist (latest is %" PRId64 ")",
                              table_path, opts->at_version, latest);
            return rc;
        }
        target = opts->at_version;
    } else if (opts->has_at_timestamp) {
        target = -1;
        int64_t first_ts = -1;
        for (uint32_t i = lp->ncommits; i-- > 0;) {
            int64_t ts;
            if ((rc = commit_timestamp(fs, log, lp->commits[i], scratch, &ts))) return rc;
            if (ts < 0) {
                rc = tn_error_set(TN_EUNSUPPORTED, "%s: version %" PRId64 " has no commit timestamp",
                                  table_path, lp->commits[i]);
                return rc;
            }
            if (ts <= opts->at_timestamp_ms) { target = lp->commits[i]; break; }
            first_ts = ts;
            tn_arena_reset(scratch);
        }
        if (target < 0) {
            /* said as timestamps (UTC), not epoch milliseconds */
            char want[64], first[64];
            if (opts->at_timestamp_ms < INT64_MIN / 1000 ||
                tn_format_timestamp(want, sizeof want, opts->at_timestamp_ms * 1000) < 0) want[0] = 0;
            if (first_ts < 0 || tn_format_timestamp(first, sizeof first, first_ts * 1000) < 0) first[0] = 0;
            rc = tn_error_set(TN_ENOTFOUND, "%s: TIMESTAMP AS OF '%s' is before the first commit (version %" PRId64
                              " at '%s' UTC)", table_path, want, lp->ncommits ? lp->commits[0] : 0, first);
            return rc;
        }
    }

    /* Checkpoint to start from. */
    int64_t cp_version = -1;
    int cp_kind = -1;
    const ckpt *cp_files = NULL;
    uint32_t cp_nfiles = 0;
    if (opts->use_checkpoints)
        if (!pick_checkpoint(lp, target, &s->last_checkpoint, &cp_version, &cp_kind, &cp_files,
                             &cp_nfiles, arena))
            cp_version = -1;

    /* Commits cp_version+1 .. target must all be there. */
    int64_t first = cp_version + 1;
    {
        int64_t expect = first;
        bool gap = false;
        for (uint32_t i = 0; i < lp->ncommits; i++) {
            int64_t v = lp->commits[i];
            if (v < first) continue;
            if (v > target) break;
            if (v != expect) { gap = true; break; }
            expect++;
        }
        if (!gap && expect != target + 1) gap = true;
        if (gap) {
            tn_buf b = TN_BUF_INIT;
            for (uint32_t i = 0; i < lp->ncommits && lp->commits[i] <= target; i++)
                if (lp->commits[i] >= first && lp->commits[i] <= target)
                    tn_buf_printf(&b, "%s%" PRId64, b.len ? ", " : "", lp->commits[i]);
            tn_buf_append_byte(&b, 0);
            rc = tn_error_set(TN_ECORRUPT, "%s: versions are not contiguous: ([%s]); version %" PRId64
                              " is missing", log, b.data ? (const char *)b.data : "", expect);
            tn_buf_free(&b);
            return rc;
        }
    }

    if (cp_version >= 0) {
        static const char *const kinds[] = {"classic", "multi-part", "v2-json", "v2-parquet"};
        if ((rc = read_checkpoint(fs, rp, log, cp_kind, cp_files, cp_nfiles))) return rc;
        s->checkpoint_version = cp_version;
        s->checkpoint_kind = kinds[cp_kind];
    } else {
        s->checkpoint_version = -1;
    }
    for (int64_t v = first; v <= target; v++) {
        tn_delta_action *acts;
        uint32_t n;
        if ((rc = tn_delta_read_commit(fs, table_path, v, arena, &acts, &n))) return rc;
        if ((rc = apply_commit(rp, acts, n))) {
            rc = tn_error_prefix(rc, "%s/%020" PRId64 ".json", log, v);
            return rc;
        }
        s->commits_replayed++;
    }
    s->timestamp = rp->commit_timestamp;
    if (first > target) {
        /* snapshot is exactly the checkpoint: take the timestamp from its commit if present */
        int64_t ts = -1;
        if (commit_timestamp(fs, log, target, scratch, &ts) == 0) s->timestamp = ts;
        else tn_error_clear();
    }

    *target_out = target;
    return 0;
}

/* The snapshot's arrays from a finished replay (in s's arena). */
static int collect(tn_delta_snapshot *s, const replay *r) {
    tn_arena *arena = s->arena;
    s->protocol = r->protocol;
    s->metadata = r->metadata;
    for (uint32_t i = 0; i < r->metadata.ncolumns; i++)
        if (r->metadata.columns[i].type_changed) s->type_widening = true;

    /* Collect live files and tombstones. */
    uint32_t nlive = 0, ntomb = 0;
    for (uint32_t i = 0; i < r->nfiles; i++) {
        if (r->files[i].live) nlive++;
        else ntomb++;
    }
    s->files = tn_arena_alloc(arena, sizeof *s->files * (nlive ? nlive : 1));
    s->tombstones = tn_arena_alloc(arena, sizeof *s->tombstones * (ntomb ? ntomb : 1));
    s->txns = tn_arena_alloc(arena, sizeof *s->txns * (r->ntxns ? r->ntxns : 1));
    s->domains = tn_arena_alloc(arena, sizeof *s->domains * (r->ndomains ? r->ndomains : 1));
    if (!s->files || !s->tombstones || !s->txns || !s->domains) return TN_ENOMEM;
    for (uint32_t i = 0; i < r->nfiles; i++) {
        if (r->files[i].live) s->files[s->nfiles++] = r->files[i].file;
        else s->tombstones[s->ntombstones++] = r->files[i].file;
    }
    /* Live files stay in replay order (the order their add actions were committed), so that a
     * table read without ORDER BY returns rows in commit order; checkpoints keep that order. */
    qsort(s->tombstones, s->ntombstones, sizeof *s->tombstones, cmp_files);
    if (r->ntxns) memcpy(s->txns, r->txns, sizeof *s->txns * r->ntxns);
    s->ntxns = r->ntxns;
    qsort(s->txns, s->ntxns, sizeof *s->txns, cmp_txns);
    for (uint32_t i = 0; i < r->ndomains; i++)
        if (!r->domains[i].removed) s->domains[s->ndomains++] = r->domains[i];
    qsort(s->domains, s->ndomains, sizeof *s->domains, cmp_domains);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Sharing and the process's snapshot cache. Each statement opens the tables it reads; on a table
 * with many files that meant re-reading a checkpoint of megabytes per statement. The cache keeps
 * the last snapshot of CACHE_SLOTS tables (latest opens with the default options on the default
 * file system only: a test's fault-injecting file system always reads); an open takes it, checks
 * that its version's commit file is unchanged (size and mtime: a dropped and re-created table
 * has other files), and replays only the commits after it. A snapshot so built borrows the
 * kept one's bytes; after CACHE_MAX_DEPTH such steps a fresh open (from the checkpoint)
 * bounds what a chain of snapshots keeps alive.
 *
 * The freshness check of a latest open costs a stat of the commit, a probe for the next one and
 * a listing of _delta_log (a commit behind a hole): about eight system calls, a quarter of a
 * server's point query. So a slot also keeps _delta_log's change stamp (base: tn_fs_dir_stamp),
 * taken before the check that proved its snapshot the latest: while the directory's stamp is
 * the same (and trusted: taken well after its last change), no commit, checkpoint or
 * re-creation happened since, and the kept snapshot is the latest with one stat. Commits are
 * new names in _delta_log (put-if-absent), never rewritten in place.
 */
#define CACHE_SLOTS 8
#define CACHE_MAX_DEPTH 16

typedef struct cache_slot {
    tn_delta_snapshot *snap;         /* a reference; NULL = free */
    uint64_t used;
    tn_fs_stamp stamp;               /* _delta_log when snap was proven the latest (untrusted: none) */
} cache_slot;

static pthread_mutex_t g_cache_mu = PTHREAD_MUTEX_INITIALIZER;
static cache_slot g_cache[CACHE_SLOTS];
static uint64_t g_cache_tick;

static void snap_ref(tn_delta_snapshot *s) { __atomic_add_fetch(&s->extra_refs, 1, __ATOMIC_ACQ_REL); }

static bool cacheable(tn_fs *fs, const tn_delta_open_options *opts) {
    return fs == tn_fs_default() && opts->use_checkpoints && opts->check_protocol && !opts->has_at_timestamp;
}

/* A reference to the kept snapshot of table_path (and its slot's stamp), or NULL. */
static tn_delta_snapshot *cache_get(const char *table_path, tn_fs_stamp *stamp) {
    tn_delta_snapshot *s = NULL;
    memset(stamp, 0, sizeof *stamp);
    pthread_mutex_lock(&g_cache_mu);
    for (uint32_t i = 0; i < CACHE_SLOTS && !s; i++)
        if (g_cache[i].snap && strcmp(g_cache[i].snap->table_path, table_path) == 0) {
            s = g_cache[i].snap;
            snap_ref(s);
            g_cache[i].used = ++g_cache_tick;
            *stamp = g_cache[i].stamp;
        }
    pthread_mutex_unlock(&g_cache_mu);
    return s;
}

/* Records stamp for the slot of s when s is still kept (s was proven the latest after it). */
static void cache_restamp(const tn_delta_snapshot *s, const tn_fs_stamp *stamp) {
    pthread_mutex_lock(&g_cache_mu);
    for (uint32_t i = 0; i < CACHE_SLOTS; i++)
        if (g_cache[i].snap == s) g_cache[i].stamp = *stamp;
    pthread_mutex_unlock(&g_cache_mu);
}

/* _delta_log's stamp before a latest open checks the log (untrusted when it cannot be had). */
static void log_stamp(tn_fs *fs, const char *table_path, tn_fs_stamp *out) {
    char path[4096];
    memset(out, 0, sizeof *out);
    if (snprintf(path, sizeof path, "%s/_delta_log", table_path) >= (int)sizeof path) return;
    if (tn_fs_dir_stamp(fs, path, out)) {
        tn_error_clear();
        memset(out, 0, sizeof *out);
    }
}

static int commit_stat(tn_fs *fs, const tn_delta_snapshot *s, tn_fs_stat *st) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%020" PRId64 ".json", s->log_path, s->version) >= (int)sizeof path)
        return TN_EINVAL;
    int rc = tn_fs_stat_path(fs, path, st);
    if (rc) tn_error_clear();
    return rc;
}

/* Keeps s (a new reference) as table's snapshot unless a newer one is kept, with stamp (NULL:
 * s is not known to be the latest). Before s is shared: records its commit file's size and mtime. */
static void cache_put(tn_fs *fs, tn_delta_snapshot *s, const tn_fs_stamp *stamp) {
    tn_fs_stat st;
    if (s->version < 0 || commit_stat(fs, s, &st)) return;
    s->commit_size = st.size;
    s->commit_mtime_us = st.mtime_us;
    tn_delta_snapshot *old = NULL;
    pthread_mutex_lock(&g_cache_mu);
    uint32_t slot = 0;
    bool found = false;
    for (uint32_t i = 0; i < CACHE_SLOTS && !found; i++)
        if (g_cache[i].snap && strcmp(g_cache[i].snap->table_path, s->table_path) == 0) { slot = i; found = true; }
    if (!found)
        for (uint32_t i = 1; i < CACHE_SLOTS; i++)
            if (!g_cache[i].snap || (g_cache[slot].snap && g_cache[i].used < g_cache[slot].used)) slot = i;
    if (!found || g_cache[slot].snap->version <= s->version) {
        old = g_cache[slot].snap;
        snap_ref(s);
        g_cache[slot].snap = s;
        g_cache[slot].used = ++g_cache_tick;
        if (stamp) g_cache[slot].stamp = *stamp;
        else memset(&g_cache[slot].stamp, 0, sizeof g_cache[slot].stamp);
    }
    pthread_mutex_unlock(&g_cache_mu);
    tn_delta_snapshot_free(old);
}

void tn_delta_snapshot_cache_clear(void) {
    tn_delta_snapshot *old[CACHE_SLOTS];
    pthread_mutex_lock(&g_cache_mu);
    for (uint32_t i = 0; i < CACHE_SLOTS; i++) {
        old[i] = g_cache[i].snap;
        g_cache[i].snap = NULL;
    }
    pthread_mutex_unlock(&g_cache_mu);
    for (uint32_t i = 0; i < CACHE_SLOTS; i++) tn_delta_snapshot_free(old[i]);
}

/* Seeds a replay with what snapshot p holds (its bytes stay p's). */
static int replay_seed(replay *r, const tn_delta_snapshot *p) {
    int rc = 0;
    for (uint32_t i = 0; i < p->nfiles && !rc; i++) rc = apply_file(r, &p->files[i], true);
    for (uint32_t i = 0; i < p->ntombstones && !rc; i++) rc = apply_file(r, &p->tombstones[i], false);
    for (uint32_t i = 0; i < p->ntxns && !rc; i++) {
        tn_delta_action a = {.kind = TN_DELTA_TXN, .u.txn = p->txns[i]};
        rc = apply_action(r, &a);
    }
    for (uint32_t i = 0; i < p->ndomains && !rc; i++) {
        tn_delta_action a = {.kind = TN_DELTA_DOMAIN_METADATA, .u.domain = p->domains[i]};
        rc = apply_action(r, &a);
    }
    r->protocol = p->protocol;
    r->metadata = p->metadata;
    r->has_protocol = r->has_metadata = true;
    return rc;
}

/* The snapshot at target (-1: latest) from the kept snapshot p of the same table: p itself when
 * no commit follows it, else p plus the commits after it. *done = false (no error) whenever the
 * caller should open from scratch instead (p stale, a commit unreadable or corrupt -- the fresh
 * open reports it --, the chain too long, target before p). */
static int open_from(tn_delta_snapshot **out, tn_fs *fs, tn_delta_snapshot *p, const tn_fs_stamp *kept,
                     int64_t target, bool *done) {
    int rc = 0;
    replay r;
    tn_fs_stat st;
    tn_fs_stamp now;
    tn_delta_snapshot *s = NULL;
    memset(&r, 0, sizeof r);
    *done = false;
    if (target >= 0 && target < p->version) return 0;
    if (target < 0) {
        log_stamp(fs, p->table_path, &now);          /* before the check below reads the log */
        if (tn_fs_stamp_same(kept, &now)) {          /* nothing changed in _delta_log since */
            snap_ref(p);
            *out = p;
            *done = true;
            return 0;
        }
    }
    if (commit_stat(fs, p, &st) || st.size != p->commit_size || st.mtime_us != p->commit_mtime_us) return 0;
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    tn_delta_action *acts = NULL;
    uint32_t n = 0;
    int64_t v = p->version + 1;
    if (target < 0 || target > p->version) {
        rc = tn_delta_read_commit(fs, p->table_path, v, arena, &acts, &n);
        if (rc == TN_ENOTFOUND && target < 0) {
            tn_error_clear();
            rc = 0;
            v = p->version;            /* nothing new */
        } else if (rc) {
            goto fallback;
        }
    } else {
        v = p->version;
    }
    if (v == p->version) {
        if (target < 0) {
            /* no commit after p: unless one lies behind a hole (the fresh open reports it) */
            int64_t latest = -1;
            if ((rc = tn_delta_latest_version(fs, p->table_path, &latest))) goto fallback;
            if (latest > p->version) goto fallback;
            cache_restamp(p, &now);
        }
        tn_arena_destroy(arena);
        snap_ref(p);
        *out = p;
        *done = true;
        return 0;
    }
    if (p->depth >= CACHE_MAX_DEPTH) goto fallback;
    s = tn_arena_calloc(arena, sizeof *s);
    if (!s) { rc = TN_ENOMEM; goto fallback; }
    *s = *p;
    s->arena = arena;
    s->parent = NULL;
    s->extra_refs = 0;
    r.arena = arena;
    r.commit_timestamp = -1;
    if ((rc = replay_seed(&r, p))) goto fallback;
    for (;;) {
        if ((rc = apply_commit(&r, acts, n))) goto fallback;
        s->commits_replayed++;
        if (v == target || v == INT64_MAX) break;
        rc = tn_delta_read_commit(fs, p->table_path, v + 1, arena, &acts, &n);
        if (rc == TN_ENOTFOUND && target < 0) break;
        if (rc) goto fallback;
        v++;
    }
    tn_error_clear();
    if (target < 0) {
        int64_t latest = -1;
        if ((rc = tn_delta_latest_version(fs, p->table_path, &latest))) goto fallback;
        if (latest > v) goto fallback;
    }
    if ((rc = tn_delta_protocol_check_read(&r.protocol))) goto fallback;
    s->version = v;
    s->timestamp = r.commit_timestamp;
    s->protocol = r.protocol;
    s->metadata = r.metadata;
    s->type_widening = false;
    s->files = NULL;
    s->nfiles = s->ntombstones = s->ntxns = s->ndomains = 0;
    if ((rc = collect(s, &r))) goto fallback;
    snap_ref(p);
    s->parent = p;
    s->depth = p->depth + 1;
    cache_put(fs, s, target < 0 ? &now : NULL);
    *out = s;
    *done = true;
    arena = NULL;
    rc = 0;
fallback:
    replay_clear(&r);
    tn_arena_destroy(arena);
    if (rc == TN_ENOMEM) return rc;
    if (rc) tn_error_clear();
    return 0;
}

int tn_delta_snapshot_fork(tn_delta_snapshot **out, tn_delta_snapshot *snap) {
    *out = NULL;
    tn_arena *arena = tn_arena_create(0);
    tn_delta_snapshot *s = arena ? tn_arena_alloc(arena, sizeof *s) : NULL;
    if (!s) {
        tn_arena_destroy(arena);
        return TN_ENOMEM;
    }
    *s = *snap;
    s->arena = arena;
    s->parent = snap;
    s->extra_refs = 0;
    s->depth = snap->depth + 1;
    snap_ref(snap);
    *out = s;
    return 0;
}

int tn_delta_snapshot_open(tn_delta_snapshot **out, tn_fs *fs, const char *table_path,
                           const tn_delta_open_options *opts) {
    tn_delta_open_options defaults = TN_DELTA_OPEN_OPTIONS_INIT;
    if (!opts) opts = &defaults;
    int rc = 0;
    *out = NULL;
    if (cacheable(fs, opts)) {
        tn_fs_stamp stamp;
        tn_delta_snapshot *kept = cache_get(table_path, &stamp);
        bool done = false;
        if (kept) {
            rc = open_from(out, fs, kept, &stamp, opts->at_version, &done);
            tn_delta_snapshot_free(kept);
            if (rc || done) return rc;
        }
    }
    replay r;
    listing l;
    tn_delta_snapshot *s = NULL;
    tn_arena *scratch = NULL;
    memset(&r, 0, sizeof r);
    memset(&l, 0, sizeof l);
    *out = NULL;
    tn_arena *arena = tn_arena_create(0);
    scratch = tn_arena_create(0);
    if (!arena || !scratch) { rc = TN_ENOMEM; goto cleanup; }
    s = tn_arena_calloc(arena, sizeof *s);
    if (!s) { rc = TN_ENOMEM; goto cleanup; }
    s->arena = arena;
    s->table_path = tn_arena_strdup(arena, table_path);
    s->log_path = tn_arena_printf(arena, "%s/_delta_log", table_path);
    if (!s->table_path || !s->log_path) { rc = TN_ENOMEM; goto cleanup; }
    const char *log = s->log_path;
    r.arena = arena;
    r.commit_timestamp = -1;
    l.arena = arena;

    int64_t target = -1;
    bool from_hint = false;
    tn_fs_stamp stamp;                             /* before the log is read: see cache_slot */
    bool latest = cacheable(fs, opts) && opts->at_version < 0;
    if (latest) log_stamp(fs, table_path, &stamp);
    if ((rc = read_last_checkpoint(fs, log, arena, &s->last_checkpoint))) goto cleanup;
    if (opts->use_checkpoints && opts->at_version < 0 && !opts->has_at_timestamp && s->last_checkpoint.present &&
        (rc = replay_from_hint(fs, s, &r, &target, &from_hint)))
        goto cleanup;
    if (!from_hint && (rc = open_by_listing(fs, s, &r, &l, opts, table_path, scratch, &target))) goto cleanup;

    if (!r.has_protocol) {
        rc = tn_error_set(TN_ECORRUPT, "%s: No protocol found (version %" PRId64 ")", table_path, target);
        goto cleanup;
    }
    if (opts->check_protocol && (rc = tn_delta_protocol_check_read(&r.protocol))) {
        rc = tn_error_prefix(rc, "%s", table_path);
        goto cleanup;
    }
    if (!r.has_metadata) {
        rc = tn_error_set(TN_ECORRUPT, "%s: No metadata found (version %" PRId64 ")", table_path, target);
        goto cleanup;
    }
    s->version = target;
    if ((rc = collect(s, &r))) goto cleanup;
    if (cacheable(fs, opts)) cache_put(fs, s, latest ? &stamp : NULL);
    *out = s;
    s = NULL;
cleanup:
    replay_clear(&r);
    tn_free(l.commits);
    tn_free(l.ckpts);
    tn_arena_destroy(scratch);
    if (rc && arena) tn_arena_destroy(arena);
    return rc;
}

void tn_delta_snapshot_free(tn_delta_snapshot *snap) {
    while (snap) {
        uint32_t e = __atomic_load_n(&snap->extra_refs, __ATOMIC_ACQUIRE);
        for (;;) {
            if (e == 0) break;         /* the last reference */
            if (__atomic_compare_exchange_n(&snap->extra_refs, &e, e - 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return;
        }
        tn_delta_snapshot *parent = snap->parent;
        tn_arena_destroy(snap->arena);
        snap = parent;
    }
}

int64_t tn_delta_snapshot_txn_version(const tn_delta_snapshot *snap, const char *app_id) {
    for (uint32_t i = 0; i < snap->ntxns; i++)
        if (strcmp(snap->txns[i].app_id, app_id) == 0) return snap->txns[i].version;
    return -1;
}

const char *tn_delta_partition_value(const tn_delta_snapshot *snap, const tn_delta_file *file,
                                     const char *column, bool *is_null) {
    const char *key = column;
    bool found = false;
    for (uint32_t i = 0; i < snap->metadata.ncolumns; i++)
        if (strcmp(snap->metadata.columns[i].name, column) == 0) key = snap->metadata.columns[i].physical_name;
    const char *v = tn_delta_kv_get(file->partition_values, file->npartition_values, key, &found);
    if (!found && key != column)
        v = tn_delta_kv_get(file->partition_values, file->npartition_values, column, &found);
    *is_null = !found || v == NULL || v[0] == 0;
    return *is_null ? NULL : v;
}

int tn_delta_file_full_path(const tn_delta_snapshot *snap, const tn_delta_file *file,
                            tn_arena *arena, const char **out) {
    const char *p = file->path_decoded;
    if (strncmp(p, "file:", 5) == 0) {
        p += 5;
        while (p[0] == '/' && p[1] == '/') p++;
        *out = tn_arena_strdup(arena, p);
    } else if (strstr(p, "://")) {
        return tn_error_set(TN_EUNSUPPORTED, "%s: remote file '%s' is not supported",
                            snap->table_path, file->path);
    } else if (p[0] == '/') {
        *out = tn_arena_strdup(arena, p);
    } else {
        *out = tn_arena_printf(arena, "%s/%s", snap->table_path, p);
    }
    return *out ? 0 : TN_ENOMEM;
}
