/*
 * tests/fuzz/memfs.h: a read-only in-memory tn_fs shared by the fuzz targets: a small table of
 * (path, bytes) files (bytes borrowed, e.g. the fuzzer's input); directories are implied by the
 * paths (list_dir gives the sorted immediate children). Every open handle is counted so a target
 * can abort on a leaked one (memfs_check_closed). Writes fail with TN_EUNSUPPORTED.
 */
#ifndef TN_FUZZ_MEMFS_H
#define TN_FUZZ_MEMFS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define MEMFS_MAX_FILES 16

typedef struct memfs_file {
    const char *path;
    const uint8_t *data;
    size_t size;
} memfs_file;

typedef struct memfs {
    tn_fs fs;                        /* first member: a tn_fs * is also a memfs * */
    memfs_file files[MEMFS_MAX_FILES];
    uint32_t nfiles;
    int open_files;
} memfs;

static inline memfs *memfs_of(tn_fs *fs) { return (memfs *)fs->state; }

static inline memfs_file *memfs_find(memfs *m, const char *path) {
    for (uint32_t i = 0; i < m->nfiles; i++)
        if (strcmp(m->files[i].path, path) == 0) return &m->files[i];
    return NULL;
}

/* True when some file lies under directory `path` ("a/b" for "a/b/c"). */
static inline bool memfs_is_dir(memfs *m, const char *path) {
    size_t n = strlen(path);
    for (uint32_t i = 0; i < m->nfiles; i++)
        if (strncmp(m->files[i].path, path, n) == 0 && m->files[i].path[n] == '/') return true;
    return false;
}

/* The one handle of a file is its table entry (tn_file is opaque). */
static inline int memfs_open_read(tn_fs *fs, const char *path, tn_file **out) {
    memfs *m = memfs_of(fs);
    memfs_file *f = memfs_find(m, path);
    if (!f) return tn_error_set(TN_ENOTFOUND, "%s: no such file", path);
    m->open_files++;
    *out = (tn_file *)f;
    return 0;
}
static inline int memfs_open_write(tn_fs *fs, const char *path, bool exclusive, tn_file **out) {
    (void)fs; (void)exclusive; (void)out;
    return tn_error_set(TN_EUNSUPPORTED, "%s: read-only fs", path);
}
static inline int memfs_size(tn_fs *fs, tn_file *file, uint64_t *out) {
    (void)fs;
    *out = ((memfs_file *)file)->size;
    return 0;
}
static inline int memfs_pread(tn_fs *fs, tn_file *file, void *buf, size_t n, uint64_t offset) {
    memfs_file *f = (memfs_file *)file;
    (void)fs;
    if (offset > f->size || n > f->size - offset)
        return tn_error_set(TN_EIO, "%s: short read (%zu bytes at %llu of %zu)", f->path, n,
                            (unsigned long long)offset, f->size);
    if (n) memcpy(buf, f->data + offset, n);
    return 0;
}
static inline int memfs_write(tn_fs *fs, tn_file *file, const void *buf, size_t n) {
    (void)fs; (void)file; (void)buf; (void)n;
    return tn_error_set(TN_EUNSUPPORTED, "read-only fs");
}
static inline int memfs_sync(tn_fs *fs, tn_file *file) { (void)fs; (void)file; return 0; }
static inline int memfs_close(tn_fs *fs, tn_file *file) {
    (void)file;
    memfs_of(fs)->open_files--;
    return 0;
}
static inline int memfs_link(tn_fs *fs, const char *from, const char *to) {
    (void)fs; (void)to;
    return tn_error_set(TN_EUNSUPPORTED, "%s: read-only fs", from);
}
static inline int memfs_unlink(tn_fs *fs, const char *path) {
    (void)fs;
    return tn_error_set(TN_EUNSUPPORTED, "%s: read-only fs", path);
}
static inline int memfs_mkdir_p(tn_fs *fs, const char *path) {
    (void)fs;
    return tn_error_set(TN_EUNSUPPORTED, "%s: read-only fs", path);
}
static inline int memfs_exists(tn_fs *fs, const char *path, bool *out) {
    memfs *m = memfs_of(fs);
    *out = memfs_find(m, path) != NULL || memfs_is_dir(m, path);
    return 0;
}

typedef struct memfs_entry {
    const char *name;                /* points into a file's path */
    size_t len;
    bool is_dir;
} memfs_entry;

static inline int memfs_entry_cmp(const void *a, const void *b) {
    const memfs_entry *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static inline int memfs_list_dir(tn_fs *fs, const char *path,
                                 int (*fn)(void *ctx, const char *name, bool is_dir), void *ctx) {
    memfs *m = memfs_of(fs);
    memfs_entry ents[MEMFS_MAX_FILES];
    uint32_t n = 0;
    size_t plen = strlen(path);
    if (!memfs_is_dir(m, path)) return tn_error_set(TN_ENOTFOUND, "%s: no such directory", path);
    for (uint32_t i = 0; i < m->nfiles; i++) {
        const char *p = m->files[i].path;
        if (strncmp(p, path, plen) != 0 || p[plen] != '/') continue;
        const char *name = p + plen + 1, *slash = strchr(name, '/');
        memfs_entry e = {name, slash ? (size_t)(slash - name) : strlen(name), slash != NULL};
        bool dup = false;
        for (uint32_t k = 0; k < n && !dup; k++) dup = memfs_entry_cmp(&ents[k], &e) == 0;
        if (!dup && e.len) ents[n++] = e;
    }
    qsort(ents, n, sizeof ents[0], memfs_entry_cmp);
    for (uint32_t i = 0; i < n; i++) {
        char name[512];
        if (ents[i].len >= sizeof name) continue;
        memcpy(name, ents[i].name, ents[i].len);
        name[ents[i].len] = 0;
        int rc = fn(ctx, name, ents[i].is_dir);
        if (rc) return rc;
    }
    return 0;
}

static inline int memfs_stat(tn_fs *fs, const char *path, tn_fs_stat *out) {
    memfs *m = memfs_of(fs);
    memfs_file *f = memfs_find(m, path);
    memset(out, 0, sizeof *out);
    if (f) out->size = f->size;
    else if (memfs_is_dir(m, path)) out->is_dir = true;
    else return tn_error_set(TN_ENOTFOUND, "%s: no such file", path);
    return 0;
}

/* An empty fs. Operations not set here (rmdir, sync_dir) are NULL: unsupported. */
static inline void memfs_init(memfs *m) {
    memset(m, 0, sizeof *m);
    m->fs.open_read = memfs_open_read;
    m->fs.open_write = memfs_open_write;
    m->fs.size = memfs_size;
    m->fs.pread = memfs_pread;
    m->fs.write = memfs_write;
    m->fs.sync = memfs_sync;
    m->fs.close = memfs_close;
    m->fs.link = memfs_link;
    m->fs.rename = memfs_link;
    m->fs.unlink = memfs_unlink;
    m->fs.mkdir_p = memfs_mkdir_p;
    m->fs.exists = memfs_exists;
    m->fs.list_dir = memfs_list_dir;
    m->fs.stat = memfs_stat;
    m->fs.state = m;
}

/* Adds (or replaces) a file; path and data are borrowed and must outlive the fs. */
static inline void memfs_add(memfs *m, const char *path, const void *data, size_t size) {
    memfs_file *f = memfs_find(m, path);
    if (!f) {
        if (m->nfiles == MEMFS_MAX_FILES) abort();          /* a bug in the target */
        f = &m->files[m->nfiles++];
    }
    f->path = path;
    f->data = data;
    f->size = size;
}

/* Aborts (a finding) when the code under test left a file open. */
static inline void memfs_check_closed(const memfs *m, const char *target) {
    if (m->open_files != 0) {
        fprintf(stderr, "%s: %d file handle(s) leaked\n", target, m->open_files);
        abort();
    }
}

#endif
