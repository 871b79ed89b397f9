/*
 * table/vacuum.c: VACUUM [RETAIN n HOURS]: walks the table directory (skipping _delta_log and
 * hidden '_'/'.' entries, except partition directories "name=value"), and deletes files that
 * the latest snapshot does not reference (data files and 'u' deletion-vector files) and whose
 * modification time is older than the retention; then removes directories left empty.
 */
#include "table/tableInt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct vac {
    tn_table *t;
    char **keep;                     /* sorted full paths */
    uint32_t nkeep;
    int64_t cutoff_ms;
    bool dry_run;
    tn_table_vacuum_result *res;
    char **entries;                  /* names collected from one list_dir call */
    bool *is_dir;
    uint32_t n, cap;
} vac;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int collect(void *ctx, const char *name, bool is_dir) {
    vac *v = ctx;
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 32;
        char **e = tn_realloc(v->entries, sizeof *e * cap);
        if (!e) return TN_ENOMEM;
        v->entries = e;
        bool *d = tn_realloc(v->is_dir, sizeof *d * cap);
        if (!d) return TN_ENOMEM;
        v->is_dir = d;
        v->cap = cap;
    }
    v->entries[v->n] = tn_strdup(name);
    if (!v->entries[v->n]) return TN_ENOMEM;
    v->is_dir[v->n++] = is_dir;
    return 0;
}

static bool hidden(const char *name, bool is_dir) {
    if (name[0] == '.') return true;
    if (name[0] == '_') return !(is_dir && strchr(name, '='));
    return false;
}

/* Returns the number of entries left in dir (so the caller can remove it when empty). */
static int walk(vac *v, const char *dir, bool top, uint32_t *left) {
    int rc = 0;
    uint32_t start = v->n;
    *left = 0;
    rc = v->t->fs->list_dir(v->t->fs, dir, collect, v);
    if (rc) return rc;
    uint32_t end = v->n;
    for (uint32_t i = start; i < end && !rc; i++) {
        const char *name = v->entries[i];
        size_t len = strlen(dir) + strlen(name) + 2;
        char *path = tn_malloc(len);
        if (!path) return TN_ENOMEM;
        snprintf(path, len, "%s/%s", dir, name);
        if (hidden(name, v->is_dir[i]) || (top && strcmp(name, "_delta_log") == 0)) {
            (*left)++;
        } else if (v->is_dir[i]) {
            uint32_t sub = 0;
            rc = walk(v, path, false, &sub);
            if (!rc && sub == 0 && !v->dry_run) {
                if (tn_fs_rmdir(v->t->fs, path) == 0) v->res->dirs_deleted++;
                else (*left)++;
            } else if (!rc && sub == 0) {
                v->res->dirs_deleted++;
            } else {
                (*left)++;
            }
        } else {
            const char *key = path;
            bool referenced = bsearch(&key, v->keep, v->nkeep, sizeof *v->keep, cmp_str) != NULL;
            tn_fs_stat st;
            bool old = tn_fs_stat_path(v->t->fs, path, &st) == 0 && st.mtime_us / 1000 < v->cutoff_ms;
            if (!referenced && old) {
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

/* "interval 7 days" / "interval 168 hours" / "1 week" -> hours; < 0 unknown. */
static double parse_interval_hours(const char *s) {
    if (!s) return -1;
    const char *p = s;
    if (tn_str_iequal_n(p, 8, "interval")) p += 8;
    while (*p == ' ') p++;
    char *end;
    double n = strtod(p, &end);
    if (end == p) return -1;
    while (*end == ' ') end++;
    if (tn_str_iequal_n(end, 4, "week")) return n * 168;
    if (tn_str_iequal_n(end, 3, "day")) return n * 24;
    if (tn_str_iequal_n(end, 4, "hour")) return n;
    if (tn_str_iequal_n(end, 6, "minute")) return n / 60;
    if (tn_str_iequal_n(end, 6, "second")) return n / 3600;
    return -1;
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
    double configured = parse_interval_hours(tn_table_property(t, "delta.deletedFileRetentionDuration"));
    if (retain_hours < 0) retain_hours = configured >= 0 ? configured : TN_TABLE_DEFAULT_RETENTION_HOURS;
    double floor_h = configured >= 0 ? configured : TN_TABLE_DEFAULT_RETENTION_HOURS;
    if (floor_h > TN_TABLE_DEFAULT_RETENTION_HOURS) floor_h = TN_TABLE_DEFAULT_RETENTION_HOURS;
    if (retain_hours < floor_h && !force) {
        rc = tn_error_set(TN_EINVAL,
                          "table '%s': VACUUM with a retention of %g hours is refused: files younger than %g hours "
                          "may still be read by concurrent readers or time travel (use a longer retention, or force it)",
                          t->path, retain_hours, floor_h);
        goto cleanup;
    }
    rc = tn_delta_protocol_check_write(&snap->protocol);
    if (rc) goto cleanup;
    v.t = t;
    v.dry_run = dry_run;
    v.res = &res;
    v.cutoff_ms = tb_now_ms() - (int64_t)(retain_hours * 3600000.0);
    v.keep = tn_arena_alloc(arena, sizeof(char *) * (2 * (size_t)snap->nfiles + 1));
    if (!v.keep) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        const char *full;
        rc = tn_delta_file_full_path(snap, &snap->files[i], arena, &full);
        if (rc) goto cleanup;
        v.keep[v.nkeep++] = (char *)full;
        if (snap->files[i].has_dv && snap->files[i].dv.storage_type == 'u') {
            const char *dvp;
            rc = tn_delta_dv_file_path(&dvp, arena, t->path, &snap->files[i].dv);
            if (rc) goto cleanup;
            v.keep[v.nkeep++] = (char *)dvp;
        }
    }
    qsort(v.keep, v.nkeep, sizeof *v.keep, cmp_str);
    uint32_t left = 0;
    rc = walk(&v, t->path, true, &left);
cleanup:
    for (uint32_t i = 0; i < v.n; i++) tn_free(v.entries[i]);
    tn_free(v.entries);
    tn_free(v.is_dir);
    if (result) *result = res;
    tn_arena_destroy(arena);
    return rc;
}
