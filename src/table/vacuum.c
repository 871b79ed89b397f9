/*
 * table/vacuum.c: VACUUM [RETAIN n HOURS]. Walks the table directory (skipping _delta_log and
 * hidden '_'/'.' entries, except partition directories "name=value") without following symlinks
 * and without entering nested tables (a directory holding its own _delta_log). A file goes only
 * when the table owns it (the log once referenced it, a tarn writer named it, or it lies under
 * one of the table's partition directories) and it is expired: a removed file once its
 * remove.deletionTimestamp is older than the retention (as Delta), any other unreferenced file
 * once its mtime is. Files the table does not own are listed in the result, never deleted.
 */
#include "table/tableInt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VAC_LIST_MAX 100             /* not-owned paths kept in the result */

typedef struct vac {
    tn_table *t;
    tn_arena *arena;
    char **keep;                     /* sorted full paths: live, or removed within the retention */
    uint32_t nkeep, capkeep;
    char **known;                    /* sorted full paths the log ever referenced */
    uint32_t nknown, capknown;
    char **expired;                  /* sorted full paths of removes older than the retention */
    uint32_t nexpired, capexpired;
    int64_t cutoff_ms;
    bool dry_run;
    tn_table_vacuum_result *res;
    char **entries;                  /* names collected from one list_dir call */
    uint32_t n, cap;
} vac;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool in_set(char **set, uint32_t n, const char *path) {
    return n && bsearch(&path, set, n, sizeof *set, cmp_str) != NULL;
}

static int push(vac *v, char ***set, uint32_t *n, uint32_t *cap, const char *path) {
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 64;
        char **s = tn_arena_alloc(v->arena, sizeof *s * nc);
        if (!s) return TN_ENOMEM;
        if (*n) memcpy(s, *set, sizeof *s * *n);
        *set = s;
        *cap = nc;
    }
    (*set)[(*n)++] = (char *)path;
    return 0;
}

static int collect(void *ctx, const char *name, bool is_dir) {
    vac *v = ctx;
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 32;
        char **e = tn_realloc(v->entries, sizeof *e * cap);
        if (!e) return TN_ENOMEM;
        v->entries = e;
        v->cap = cap;
    }
    v->entries[v->n] = tn_strdup(name);
    if (!v->entries[v->n]) return TN_ENOMEM;
    v->n++;
    return 0;
}

static bool hidden(const char *name, bool is_dir) {
    if (name[0] == '.') return true;
    if (name[0] == '_') return !(is_dir && strchr(name, '='));
    return false;
}

static bool digits(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

/* 8-4-4-4-12 hex */
static bool uuid_at(const char *s) {
    for (int i = 0; i < 36; i++) {
        char c = s[i];
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return true;
}

/* Names tarn's writers give (table/write.c, delta/dv_write.c), which Spark's match:
 * part-<5 digits>-[<infix>-]<uuid>-c000[.<codec>].parquet and deletion_vector_<uuid>.bin. */
static bool writer_named(const char *name) {
    size_t n = strlen(name);
    if (n == 16 + 36 + 4 && strncmp(name, "deletion_vector_", 16) == 0 && uuid_at(name + 16) &&
        strcmp(name + 52, ".bin") == 0)
        return true;
    if (n < 11 + 36 + 5 + 8 || strncmp(name, "part-", 5) != 0 || !digits(name + 5, 5) || name[10] != '-') return false;
    if (strcmp(name + n - 8, ".parquet") != 0) return false;
    const char *c = strstr(name + 11, "-c000");
    return c && c - name >= 11 + 36 && uuid_at(c - 36) && (c[5] == '.' );
}

/* rel: the file's path relative to the table; true when its first directory is one of the
 * table's partition directories "<first partition column>=..." (logical or physical name). */
static bool under_partition_dir(const tn_table *t, const char *rel) {
    const tn_delta_metadata *md = &t->snap->metadata;
    if (md->npartition_columns == 0 || !strchr(rel, '/')) return false;
    const char *col = md->partition_columns[0];
    const char *phys = col;
    for (uint32_t i = 0; i < md->ncolumns; i++)
        if (strcmp(md->columns[i].name, col) == 0 && md->columns[i].physical_name) phys = md->columns[i].physical_name;
    size_t a = strlen(col), b = strlen(phys);
    return (strncmp(rel, col, a) == 0 && rel[a] == '=') || (strncmp(rel, phys, b) == 0 && rel[b] == '=');
}

static int note_not_owned(vac *v, const char *path, const char *why) {
    tn_table_vacuum_result *r = v->res;
    r->files_not_owned++;
    if (r->nnot_owned >= VAC_LIST_MAX) return 0;
    size_t rl = strlen(v->t->path);
    const char *rel = strncmp(path, v->t->path, rl) == 0 && path[rl] == '/' ? path + rl + 1 : path;
    size_t len = strlen(rel) + strlen(why) + 4;
    char *s = tn_malloc(len);
    if (!s) return TN_ENOMEM;
    snprintf(s, len, "%s (%s)", rel, why);
    char **l = tn_realloc(r->not_owned, sizeof *l * (r->nnot_owned + 1));
    if (!l) {
        tn_free(s);
        return TN_ENOMEM;
    }
    r->not_owned = l;
    l[r->nnot_owned++] = s;
    return 0;
}

/* *left: the number of entries left in dir (so the caller can remove it when empty). */
static int walk(vac *v, const char *dir, bool top, uint32_t *left) {
    int rc = 0;
    uint32_t start = v->n;
    *left = 0;
    rc = v->t->fs->list_dir(v->t->fs, dir, collect, v);
    if (rc) return rc;
    uint32_t end = v->n;
    size_t tl = strlen(v->t->path);
    for (uint32_t i = start; i < end && !rc; i++) {
        const char *name = v->entries[i];
        size_t len = strlen(dir) + strlen(name) + 2;
        char *path = tn_malloc(len);
        if (!path) { rc = TN_ENOMEM; break; }
        snprintf(path, len, "%s/%s", dir, name);
        tn_fs_stat st;
        rc = tn_fs_lstat_path(v->t->fs, path, &st);
        if (rc == TN_ENOTFOUND) {            /* gone meanwhile */
            tn_error_clear();
            rc = 0;
            tn_free(path);
            continue;
        }
        if (rc) { tn_free(path); break; }
        if (hidden(name, st.is_dir && !st.is_link) || (top && strcmp(name, "_delta_log") == 0)) {
            (*left)++;
        } else if (st.is_link) {
            (*left)++;
            rc = note_not_owned(v, path, "a symlink: never followed");
        } else if (st.is_dir) {
            size_t ll = strlen(path) + 12;
            char *log = tn_malloc(ll);
            tn_fs_stat ls;
            if (!log) { rc = TN_ENOMEM; tn_free(path); break; }
            snprintf(log, ll, "%s/_delta_log", path);
            bool nested = tn_fs_lstat_path(v->t->fs, log, &ls) == 0;
            tn_error_clear();
            tn_free(log);
            if (nested) {
                (*left)++;
                rc = note_not_owned(v, path, "another table: its own _delta_log");
            } else {
                uint32_t sub = 0;
                rc = walk(v, path, false, &sub);
                if (!rc && sub == 0 && !v->dry_run) {
                    if (tn_fs_rmdir(v->t->fs, path) == 0) v->res->dirs_deleted++;
                    else { tn_error_clear(); (*left)++; }
                } else if (!rc && sub == 0) {
                    v->res->dirs_deleted++;
                } else {
                    (*left)++;
                }
            }
        } else if (in_set(v->keep, v->nkeep, path)) {
            (*left)++;
        } else {
            const char *rel = path + tl + 1;
            bool known = in_set(v->known, v->nknown, path);
            bool owned = known || writer_named(name) || under_partition_dir(v->t, rel);
            bool expired = in_set(v->expired, v->nexpired, path) || st.mtime_us / 1000 < v->cutoff_ms;
            if (!owned) {
                (*left)++;
                rc = note_not_owned(v, path, "not written by this table");
            } else if (expired) {
                if (!v->dry_run) rc = v->t->fs->unlink(v->t->fs, path);
                if (!rc) {
                    v->res->files_deleted++;
                    v->res->bytes_deleted += st.size;
                }
            } else {
                (*left)++;
            }
        }
        tn_free(path);
    }
    for (uint32_t i = start; i < end; i++) tn_free(v->entries[i]);
    v->n = start;
    return rc;
}

/* Adds a file's full path (and its 'u' DV file's) to a set. */
static int add_file(vac *v, const tn_delta_file *f, char ***set, uint32_t *n, uint32_t *cap) {
    const tn_delta_snapshot *snap = v->t->snap;
    const char *full;
    int rc = tn_delta_file_full_path(snap, f, v->arena, &full);
    if (rc == TN_EUNSUPPORTED) {             /* a remote path: nothing of ours to delete */
        tn_error_clear();
        return 0;
    }
    if (!rc) rc = push(v, set, n, cap, full);
    if (!rc && f->has_dv && f->dv.storage_type == 'u') {
        const char *dvp;
        rc = tn_delta_dv_file_path(&dvp, v->arena, v->t->path, &f->dv);
        if (!rc) rc = push(v, set, n, cap, dvp);
    }
    return rc;
}

/* Every path the log's commits still on disk, and the snapshot, ever named. */
static int collect_known(vac *v) {
    const tn_delta_snapshot *snap = v->t->snap;
    int rc = 0;
    for (uint32_t i = 0; i < snap->nfiles && !rc; i++) rc = add_file(v, &snap->files[i], &v->known, &v->nknown, &v->capknown);
    for (uint32_t i = 0; i < snap->ntombstones && !rc; i++)
        rc = add_file(v, &snap->tombstones[i], &v->known, &v->nknown, &v->capknown);
    for (int64_t ver = 0; ver <= snap->version && !rc; ver++) {
        tn_delta_action *acts = NULL;
        uint32_t na = 0;
        rc = tn_delta_read_commit(v->t->fs, v->t->path, ver, v->arena, &acts, &na);
        if (rc == TN_ENOTFOUND) {            /* before a checkpoint, cleaned up by another writer */
            tn_error_clear();
            rc = 0;
            continue;
        }
        for (uint32_t k = 0; k < na && !rc; k++)
            if (acts[k].kind == TN_DELTA_ADD || acts[k].kind == TN_DELTA_REMOVE) {
                const tn_delta_file *f = &acts[k].u.file;
                rc = add_file(v, f, &v->known, &v->nknown, &v->capknown);
                /* a remove within the retention that a checkpoint no longer carries */
                if (!rc && acts[k].kind == TN_DELTA_REMOVE && f->has_deletion_timestamp &&
                    f->deletion_timestamp >= v->cutoff_ms)
                    rc = add_file(v, f, &v->keep, &v->nkeep, &v->capkeep);
            }
    }
    return rc;
}

int tn_table_vacuum(tn_table *t, double retain_hours, bool force, bool dry_run, tn_table_vacuum_result *result) {
    int rc = 0;
    vac v;
    tn_table_vacuum_result res;
    memset(&v, 0, sizeof v);
    memset(&res, 0, sizeof res);
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    const tn_delta_snapshot *snap = t->snap;
    double configured = tb_interval_hours(tn_table_property(t, "delta.deletedFileRetentionDuration"));
    if (retain_hours != retain_hours) {           /* NaN: no retention at all, never "0" */
        rc = tn_error_set(TN_EINVAL, "table '%s': VACUUM retention is not a number", t->path);
        goto cleanup;
    }
    if (retain_hours < 0) retain_hours = configured >= 0 ? configured : TN_TABLE_DEFAULT_RETENTION_HOURS;
    double floor_h = configured >= 0 ? configured : TN_TABLE_DEFAULT_RETENTION_HOURS;
    if (floor_h > TN_TABLE_DEFAULT_RETENTION_HOURS) floor_h = TN_TABLE_DEFAULT_RETENTION_HOURS;
    if (retain_hours < floor_h && !force) {
        rc = tn_error_set(TN_EINVAL,
                          "table '%s': VACUUM with a retention of %g hours is refused: files removed less than %g "
                          "hours ago may still be read by concurrent readers or time travel. Use RETAIN %g HOURS or "
                          "more, or, to force it, SET spark.databricks.delta.retentionDurationCheck.enabled = false",
                          t->path, retain_hours, floor_h, floor_h);
        goto cleanup;
    }
    rc = tn_delta_protocol_check_write(&snap->protocol);
    if (rc) goto cleanup;
    v.t = t;
    v.arena = arena;
    v.dry_run = dry_run;
    v.res = &res;
    /* a retention longer than the time since 1970 keeps everything (and a huge one must not
     * overflow the conversion to milliseconds) */
    int64_t now_ms = tb_now_ms();
    double keep_ms = retain_hours * 3600000.0;
    v.cutoff_ms = keep_ms >= (double)now_ms ? INT64_MIN : now_ms - (int64_t)keep_ms;
    for (uint32_t i = 0; i < snap->nfiles && !rc; i++) rc = add_file(&v, &snap->files[i], &v.keep, &v.nkeep, &v.capkeep);
    /* a removed file stays while its remove is younger than the retention (time travel), its
     * mtime aside; without a deletionTimestamp the file's mtime decides */
    for (uint32_t i = 0; i < snap->ntombstones && !rc; i++) {
        const tn_delta_file *f = &snap->tombstones[i];
        if (!f->has_deletion_timestamp) continue;
        if (f->deletion_timestamp >= v.cutoff_ms) rc = add_file(&v, f, &v.keep, &v.nkeep, &v.capkeep);
        else rc = add_file(&v, f, &v.expired, &v.nexpired, &v.capexpired);
    }
    if (!rc) rc = collect_known(&v);
    if (rc) goto cleanup;
    if (v.nkeep) qsort(v.keep, v.nkeep, sizeof *v.keep, cmp_str);
    if (v.nknown) qsort(v.known, v.nknown, sizeof *v.known, cmp_str);
    if (v.nexpired) qsort(v.expired, v.nexpired, sizeof *v.expired, cmp_str);
    uint32_t left = 0;
    rc = walk(&v, t->path, true, &left);
cleanup:
    for (uint32_t i = 0; i < v.n; i++) tn_free(v.entries[i]);
    tn_free(v.entries);
    if (result) *result = res;
    else tn_table_vacuum_result_free(&res);
    tn_arena_destroy(arena);
    return rc;
}

void tn_table_vacuum_result_free(tn_table_vacuum_result *r) {
    if (!r) return;
    for (uint32_t i = 0; i < r->nnot_owned; i++) tn_free(r->not_owned[i]);
    tn_free(r->not_owned);
    r->not_owned = NULL;
    r->nnot_owned = 0;
}
