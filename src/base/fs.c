/*
 * base/fs.c: the POSIX tn_fs (tn_fs_default) and the read_all/write_all helpers over any tn_fs.
 * Every error message names the path and the failing call ("x.parquet: open: No such file or
 * directory"). errno maps to codes: ENOENT -> TN_ENOTFOUND, EEXIST -> TN_EEXISTS,
 * ENOMEM -> TN_ENOMEM, anything else -> TN_EIO; reading past the end -> TN_ECORRUPT.
 * remove_tree never follows a symlink and stops at nested tables (directories with _delta_log).
 */
#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct tn_file {
    int fd;
    char *path;
};

static int errno_code(int e) {
    switch (e) {
    case ENOENT: return TN_ENOTFOUND;
    case EEXIST: return TN_EEXISTS;
    case ENOMEM: return TN_ENOMEM;
    default: return TN_EIO;
    }
}

static int sys_error(const char *path, const char *op, int e) {
    return tn_error_set(errno_code(e), "%s: %s: %s", path, op, strerror(e));
}

static int open_common(const char *path, int flags, tn_file **out) {
    *out = NULL;
    tn_file *f = tn_malloc(sizeof *f);
    if (!f) return TN_ENOMEM;
    f->path = tn_strdup(path);
    if (!f->path) {
        free(f);
        return TN_ENOMEM;
    }
    int fd;
    do fd = open(path, flags | O_CLOEXEC, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int e = errno;
        free(f->path);
        free(f);
        return sys_error(path, "open", e);
    }
    f->fd = fd;
    *out = f;
    return 0;
}

static int posix_open_read(tn_fs *fs, const char *path, tn_file **out) {
    return open_common(path, O_RDONLY, out);
}

static int posix_open_write(tn_fs *fs, const char *path, bool exclusive, tn_file **out) {
    return open_common(path, O_WRONLY | O_CREAT | (exclusive ? O_EXCL : O_TRUNC), out);
}

static int posix_size(tn_fs *fs, tn_file *file, uint64_t *out) {
    struct stat st;
    if (fstat(file->fd, &st) != 0) return sys_error(file->path, "stat", errno);
    *out = (uint64_t)st.st_size;
    return 0;
}

static int posix_pread(tn_fs *fs, tn_file *file, void *buf, size_t n, uint64_t offset) {
    uint8_t *p = buf;
    size_t done = 0;
    if (offset > (uint64_t)INT64_MAX || n > (uint64_t)INT64_MAX - offset)
        return tn_error_set(TN_EINVAL, "%s: read of %zu bytes at offset %llu out of range",
                            file->path, n, (unsigned long long)offset);
    while (done < n) {
        ssize_t r = pread(file->fd, p + done, n - done, (off_t)(offset + done));
        if (r < 0) {
            if (errno == EINTR) continue;
            return sys_error(file->path, "read", errno);
        }
        if (r == 0)
            return tn_error_set(TN_ECORRUPT,
                                "%s: read of %zu bytes at offset %llu: unexpected end of file",
                                file->path, n, (unsigned long long)offset);
        done += (size_t)r;
    }
    return 0;
}

static int posix_write(tn_fs *fs, tn_file *file, const void *buf, size_t n) {
    const uint8_t *p = buf;
    size_t done = 0;
    while (done < n) {
        ssize_t r = write(file->fd, p + done, n - done);
        if (r < 0) {
            if (errno == EINTR) continue;
            return sys_error(file->path, "write", errno);
        }
        if (r == 0) return tn_error_set(TN_EIO, "%s: write: no progress", file->path);
        done += (size_t)r;
    }
    return 0;
}

static int posix_sync(tn_fs *fs, tn_file *file) {
    int r;
    do r = fsync(file->fd);
    while (r != 0 && errno == EINTR);
    if (r != 0) return sys_error(file->path, "fsync", errno);
    return 0;
}

static int posix_close(tn_fs *fs, tn_file *file) {
    if (!file) return 0;
    int rc = 0;
    if (close(file->fd) != 0 && errno != EINTR) rc = sys_error(file->path, "close", errno);
    free(file->path);
    free(file);
    return rc;
}

static int posix_link(tn_fs *fs, const char *from, const char *to) {
    if (link(from, to) != 0) {
        int e = errno;
        return tn_error_set(errno_code(e), "%s: link from %s: %s", to, from, strerror(e));
    }
    return 0;
}

static int posix_rename(tn_fs *fs, const char *from, const char *to) {
    if (rename(from, to) != 0) {
        int e = errno;
        return tn_error_set(errno_code(e), "%s: rename to %s: %s", from, to, strerror(e));
    }
    return 0;
}

static int posix_unlink(tn_fs *fs, const char *path) {
    if (unlink(path) != 0) return sys_error(path, "unlink", errno);
    return 0;
}

static int mkdir_one(const char *path) {
    if (mkdir(path, 0755) == 0) return 0;
    int e = errno;
    struct stat st;
    if (e == EEXIST && stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return 0;
        return tn_error_set(TN_EEXISTS, "%s: mkdir: exists and is not a directory", path);
    }
    return sys_error(path, "mkdir", e);
}

static int posix_mkdir_p(tn_fs *fs, const char *path) {
    int rc = 0;
    char *p = tn_strdup(path);
    if (!p) return TN_ENOMEM;
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/') p[--n] = '\0';
    for (size_t i = 1; i < n; i++) {
        if (p[i] != '/' || p[i - 1] == '/') continue;
        p[i] = '\0';
        rc = mkdir_one(p);
        p[i] = '/';
        if (rc) goto cleanup;
    }
    if (n > 0) rc = mkdir_one(p);
cleanup:
    free(p);
    return rc;
}

static int posix_exists(tn_fs *fs, const char *path, bool *out) {
    struct stat st;
    if (stat(path, &st) == 0) {
        *out = true;
        return 0;
    }
    *out = false;
    if (errno == ENOENT || errno == ENOTDIR) return 0;
    return sys_error(path, "stat", errno);
}

typedef struct dir_entry {
    char *name;
    bool is_dir;
} dir_entry;

static int cmp_entry(const void *a, const void *b) {
    return strcmp(((const dir_entry *)a)->name, ((const dir_entry *)b)->name);
}

static int posix_list_dir(tn_fs *fs, const char *path,
                          int (*fn)(void *ctx, const char *name, bool is_dir), void *ctx) {
    int rc = 0;
    dir_entry *ents = NULL;
    size_t n = 0, cap = 0;
    DIR *d = opendir(path);
    if (!d) return sys_error(path, "opendir", errno);
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (!de) {
            if (errno) rc = sys_error(path, "readdir", errno);
            break;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        bool is_dir;
        if (de->d_type == DT_DIR) is_dir = true;
        else if (de->d_type != DT_UNKNOWN && de->d_type != DT_LNK) is_dir = false;
        else {
            struct stat st;
            is_dir = fstatat(dirfd(d), de->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 32;
            dir_entry *ne = tn_realloc(ents, ncap * sizeof *ents);
            if (!ne) {
                rc = TN_ENOMEM;
                break;
            }
            ents = ne;
            cap = ncap;
        }
        ents[n].name = tn_strdup(de->d_name);
        if (!ents[n].name) {
            rc = TN_ENOMEM;
            break;
        }
        ents[n++].is_dir = is_dir;
    }
    closedir(d);
    if (rc) goto cleanup;
    if (n > 1) qsort(ents, n, sizeof *ents, cmp_entry);
    for (size_t i = 0; i < n; i++) {
        rc = fn(ctx, ents[i].name, ents[i].is_dir);
        if (rc) goto cleanup;
    }
cleanup:
    for (size_t i = 0; i < n; i++) free(ents[i].name);
    free(ents);
    return rc;
}

static int posix_stat(tn_fs *fs, const char *path, tn_fs_stat *out) {
    struct stat st;
    if (stat(path, &st) != 0) return sys_error(path, "stat", errno);
    out->size = (uint64_t)st.st_size;
    out->mtime_us = (int64_t)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
    out->is_dir = S_ISDIR(st.st_mode);
    out->is_link = false;
    return 0;
}

static int posix_lstat(tn_fs *fs, const char *path, tn_fs_stat *out) {
    struct stat st;
    if (lstat(path, &st) != 0) return sys_error(path, "lstat", errno);
    out->size = (uint64_t)st.st_size;
    out->mtime_us = (int64_t)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
    out->is_dir = S_ISDIR(st.st_mode);
    out->is_link = S_ISLNK(st.st_mode);
    return 0;
}

/* remove_tree: every step is relative to an open directory descriptor (openat with
 * O_NOFOLLOW|O_DIRECTORY, fstatat and unlinkat with AT_SYMLINK_NOFOLLOW semantics), so a
 * symlink anywhere, the top included, is unlinked and never entered, even if it replaces a
 * directory while the walk runs. A directory below the top that holds "_delta_log" is another
 * table: kept, and so are its ancestors. */
typedef struct rm_tree {
    bool dry_run;
    int table_depth;
    char *nested;                    /* first kept table */
    int rc;
} rm_tree;

static char *rm_join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = tn_malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Removes the contents of the open directory fd (path for messages); *kept counts entries
 * left in it. Takes fd. */
static int rm_dir_fd(rm_tree *r, int fd, const char *path, int depth, uint32_t *kept) {
    int rc = 0;
    char **names = NULL;
    size_t n = 0, cap = 0;
    *kept = 0;
    struct stat st;
    if (depth > r->table_depth && fstatat(fd, "_delta_log", &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!r->nested) r->nested = tn_strdup(path);
        close(fd);
        *kept = 1;
        return 0;
    }
    if (depth > 256) {
        close(fd);
        return tn_error_set(TN_ELIMIT, "%s: directories nested too deep to remove", path);
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return sys_error(path, "opendir", e);
    }
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (!de) {
            if (errno) rc = sys_error(path, "readdir", errno);
            break;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 32;
            char **nn = tn_realloc(names, ncap * sizeof *names);
            if (!nn) { rc = TN_ENOMEM; break; }
            names = nn;
            cap = ncap;
        }
        if (!(names[n] = tn_strdup(de->d_name))) { rc = TN_ENOMEM; break; }
        n++;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        char *sub = rm_join(path, names[i]);
        if (!sub) { rc = TN_ENOMEM; break; }
        if (fstatat(dirfd(d), names[i], &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT) rc = sys_error(sub, "lstat", errno);
        } else if (S_ISDIR(st.st_mode)) {
            int sfd = openat(dirfd(d), names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sfd < 0) {
                rc = sys_error(sub, "open directory", errno);
            } else {
                uint32_t sk = 0;
                rc = rm_dir_fd(r, sfd, sub, depth + 1, &sk);
                if (!rc && sk) (*kept)++;
                else if (!rc && !r->dry_run && unlinkat(dirfd(d), names[i], AT_REMOVEDIR) != 0)
                    rc = sys_error(sub, "rmdir", errno);
            }
        } else if (!r->dry_run && unlinkat(dirfd(d), names[i], 0) != 0 && errno != ENOENT) {
            rc = sys_error(sub, "unlink", errno);
        }
        tn_free(sub);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) tn_free(names[i]);
    tn_free(names);
    return rc;
}

static int posix_remove_tree(tn_fs *fs, const char *path, int table_depth, bool dry_run, char **nested) {
    rm_tree r = {dry_run, table_depth, NULL, 0};
    int rc = 0;
    if (nested) *nested = NULL;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        struct stat st;
        if (e == ENOENT) return sys_error(path, "open directory", e);
        if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
            /* a symlink (or a file): unlink it, never its target */
            if (!dry_run && unlink(path) != 0) return sys_error(path, "unlink", errno);
            return 0;
        }
        return sys_error(path, "open directory", e);
    }
    uint32_t kept = 0;
    rc = rm_dir_fd(&r, fd, path, 0, &kept);
    if (!rc && !kept && !dry_run && rmdir(path) != 0) rc = sys_error(path, "rmdir", errno);
    if (nested) *nested = r.nested;
    else tn_free(r.nested);
    return rc;
}

static int posix_rmdir(tn_fs *fs, const char *path) {
    if (rmdir(path) != 0) return sys_error(path, "rmdir", errno);
    return 0;
}

static int posix_sync_dir(tn_fs *fs, const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return sys_error(path, "open directory", errno);
    int rc = 0;
    if (fsync(fd) != 0) rc = sys_error(path, "fsync directory", errno);
    close(fd);
    return rc;
}

static int posix_open_lock(tn_fs *fs, const char *path, tn_file **out) {
    int rc = open_common(path, O_RDWR | O_CREAT, out);
    if (rc) return rc;
    int r;
    do r = flock((*out)->fd, LOCK_EX);
    while (r != 0 && errno == EINTR);
    if (r != 0) {
        int e = errno;
        posix_close(fs, *out);
        *out = NULL;
        return sys_error(path, "flock", e);
    }
    return 0;
}

static tn_fs g_posix_fs = {
    .open_read = posix_open_read,
    .open_write = posix_open_write,
    .size = posix_size,
    .pread = posix_pread,
    .write = posix_write,
    .sync = posix_sync,
    .close = posix_close,
    .link = posix_link,
    .rename = posix_rename,
    .unlink = posix_unlink,
    .mkdir_p = posix_mkdir_p,
    .exists = posix_exists,
    .list_dir = posix_list_dir,
    .state = NULL,
    .stat = posix_stat,
    .rmdir = posix_rmdir,
    .sync_dir = posix_sync_dir,
    .lstat = posix_lstat,
    .remove_tree = posix_remove_tree,
    .open_lock = posix_open_lock,
};

int tn_fs_open_lock(tn_fs *fs, const char *path, tn_file **out) {
    *out = NULL;
    if (!fs->open_lock) return tn_error_set(TN_EUNSUPPORTED, "%s: file locks are not supported by this file system", path);
    return fs->open_lock(fs, path, out);
}

tn_fs *tn_fs_default(void) { return &g_posix_fs; }

int tn_fs_stat_path(tn_fs *fs, const char *path, tn_fs_stat *out) {
    if (!fs->stat) return tn_error_set(TN_EUNSUPPORTED, "%s: stat: not supported by this file system", path);
    return fs->stat(fs, path, out);
}

int tn_fs_dir_stamp(tn_fs *fs, const char *path, tn_fs_stamp *out) {
    memset(out, 0, sizeof *out);
    if (fs != &g_posix_fs) return tn_error_set(TN_EUNSUPPORTED, "%s: change stamp: not a local file system", path);
    struct stat st;
    if (stat(path, &st) != 0) return sys_error(path, "stat", errno);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    out->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    out->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
    int64_t now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
    int64_t last = out->mtime_ns > out->ctime_ns ? out->mtime_ns : out->ctime_ns;
    /* a file system with whole-second times (nsec 0 in both) is not trusted */
    out->trusted = S_ISDIR(st.st_mode) && (st.st_mtim.tv_nsec || st.st_ctim.tv_nsec) &&
                   now_ns - last > (int64_t)TN_FS_STAMP_MARGIN_US * 1000;
    return 0;
}

bool tn_fs_stamp_same(const tn_fs_stamp *a, const tn_fs_stamp *b) {
    return a->trusted && b->trusted && a->dev == b->dev && a->ino == b->ino && a->mtime_ns == b->mtime_ns &&
           a->ctime_ns == b->ctime_ns;
}

int tn_fs_rmdir(tn_fs *fs, const char *path) {
    if (!fs->rmdir) return tn_error_set(TN_EUNSUPPORTED, "%s: rmdir: not supported by this file system", path);
    return fs->rmdir(fs, path);
}

int tn_fs_sync_dir(tn_fs *fs, const char *path) {
    if (!fs->sync_dir) return tn_error_set(TN_EUNSUPPORTED, "%s: fsync directory: not supported by this file system", path);
    return fs->sync_dir(fs, path);
}

int tn_fs_lstat_path(tn_fs *fs, const char *path, tn_fs_stat *out) {
    if (!fs->lstat) return tn_error_set(TN_EUNSUPPORTED, "%s: lstat: not supported by this file system", path);
    return fs->lstat(fs, path, out);
}

int tn_fs_remove_tree(tn_fs *fs, const char *path, int table_depth, bool dry_run, char **nested) {
    if (nested) *nested = NULL;
    if (!fs->remove_tree)
        return tn_error_set(TN_EUNSUPPORTED, "%s: removing a directory tree: not supported by this file system", path);
    return fs->remove_tree(fs, path, table_depth, dry_run, nested);
}

/* Closes f (if open). After a failure (rc != 0) the close is best effort and the first error's
 * message is kept; otherwise a failing close is the error. */
static int close_keeping_error(tn_fs *fs, tn_file *f, int rc) {
    if (!f) return rc;
    if (rc == 0) return fs->close(fs, f);
    tn_error_state saved;
    tn_error_save(&saved);
    fs->close(fs, f);
    return tn_error_restore(&saved);
}

int tn_fs_read_all(tn_fs *fs, const char *path, tn_buf *out) {
    tn_file *f = NULL;
    uint64_t size = 0;
    int rc = fs->open_read(fs, path, &f);
    if (rc) goto cleanup;
    rc = fs->size(fs, f, &size);
    if (rc) goto cleanup;
    if (size > SIZE_MAX / 2) {
        rc = tn_error_set(TN_ELIMIT, "%s: file too large (%llu bytes)", path,
                          (unsigned long long)size);
        goto cleanup;
    }
    /* +1 so callers may NUL-terminate text without another reallocation. */
    rc = tn_buf_reserve(out, (size_t)size + 1);
    if (rc) goto cleanup;
    rc = fs->pread(fs, f, out->data + out->len, (size_t)size, 0);
    if (rc) goto cleanup;
    out->len += (size_t)size;
    out->data[out->len] = '\0';
cleanup:
    return close_keeping_error(fs, f, rc);
}

int tn_fs_write_all(tn_fs *fs, const char *path, const void *data, size_t n, bool do_sync) {
    tn_file *f = NULL;
    int rc = fs->open_write(fs, path, false, &f);
    if (rc) goto cleanup;
    rc = fs->write(fs, f, data, n);
    if (rc) goto cleanup;
    if (do_sync) rc = fs->sync(fs, f);
cleanup:
    return close_keeping_error(fs, f, rc);
}
