/*
 * base/fs_temp.c: temporary files beside a target, for outputs that appear whole or not at all
 * (write the temp, fsync, rename over the target): their names "<dir>/.<base>.tarn-tmp-<pid>-<n>",
 * the removal of those a killed process left behind (its pid no longer runs), and a list of the
 * temp files this process has open that a SIGINT/SIGTERM handler may unlink (async-signal-safe).
 */
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEMP_SLOTS 16

static char g_slots[TEMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t g_used[TEMP_SLOTS];
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long g_seq;

char *tn_fs_temp_name(const char *path) {
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    size_t cap = strlen(path) + 64;
    char *s = tn_malloc(cap);
    if (!s) return NULL;
    pthread_mutex_lock(&g_mu);
    unsigned long n = ++g_seq;
    pthread_mutex_unlock(&g_mu);
    snprintf(s, cap, "%.*s.%s.tarn-tmp-%ld-%lu", (int)dirlen, path, path + dirlen, (long)getpid(), n);
    return s;
}

typedef struct sweep {
    tn_fs *fs;
    const char *dir;
    const char *prefix;              /* ".<base>.tarn-tmp-" */
    uint32_t removed;
} sweep;

static int sweep_fn(void *ctx, const char *name, bool is_dir) {
    sweep *w = ctx;
    size_t pl = strlen(w->prefix);
    if (is_dir || strncmp(name, w->prefix, pl) != 0) return 0;
    char *end = NULL;
    long pid = strtol(name + pl, &end, 10);
    if (pid <= 0 || !end || *end != '-') return 0;
    if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) return 0;   /* still running */
    size_t len = strlen(w->dir) + strlen(name) + 2;
    char *p = tn_malloc(len);
    if (!p) return TN_ENOMEM;
    snprintf(p, len, "%s/%s", w->dir, name);
    if (w->fs->unlink(w->fs, p) == 0) w->removed++;
    else tn_error_clear();
    tn_free(p);
    return 0;
}

int tn_fs_temp_cleanup(tn_fs *fs, const char *path, uint32_t *removed) {
    if (removed) *removed = 0;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? tn_malloc((size_t)(slash - path) + 2) : tn_strdup(".");
    const char *base = slash ? slash + 1 : path;
    size_t pl = strlen(base) + 16;
    char *prefix = tn_malloc(pl);
    if (!dir || !prefix) {
        tn_free(dir);
        tn_free(prefix);
        return TN_ENOMEM;
    }
    if (slash) {
        size_t dl = (size_t)(slash - path);
        memcpy(dir, path, dl ? dl : 1);
        dir[dl ? dl : 1] = '\0';
    }
    snprintf(prefix, pl, ".%s.tarn-tmp-", base);
    sweep w = {fs, dir, prefix, 0};
    int rc = fs->list_dir(fs, dir, sweep_fn, &w);
    if (rc == TN_ENOTFOUND) {
        tn_error_clear();
        rc = 0;
    }
    if (removed) *removed = w.removed;
    tn_free(dir);
    tn_free(prefix);
    return rc;
}

void tn_fs_temp_track(const char *tmp) {
    if (!tmp || strlen(tmp) >= PATH_MAX) return;
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (!g_used[i]) {
            memcpy(g_slots[i], tmp, strlen(tmp) + 1);
            g_used[i] = 1;
            break;
        }
    pthread_mutex_unlock(&g_mu);
}

void tn_fs_temp_untrack(const char *tmp) {
    if (!tmp) return;
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (g_used[i] && strcmp(g_slots[i], tmp) == 0) {
            g_used[i] = 0;
            break;
        }
    pthread_mutex_unlock(&g_mu);
}

void tn_fs_temp_unlink_tracked(void) {
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (g_used[i]) unlink(g_slots[i]);
}

int tn_fs_anon_temp_open(int dfd, const char *prefix) {
    int fd = -1;
#ifdef O_TMPFILE
    fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (fd >= 0) return fd;
    static uint32_t counter;
    char name[128];
    snprintf(name, sizeof name, "%s%ld-%llx%x.tmp", prefix, (long)getpid(), (unsigned long long)tn_time_ns(),
             __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) unlinkat(dfd, name, 0);
    return fd;
}
