/*
 * sql/spill_file.c: the temporary files of operators that pass their share of memory_limit
 * (external sort runs; later aggregate and join partitions), and the encoding of chunks in them.
 * Owns the statement's temp folder (SET temp_directory; default <warehouse>/_tarn_tmp, or
 * $TMPDIR without a warehouse) and max_temp_directory_size; touches nothing outside that folder.
 *
 * A spill file is opened with O_TMPFILE: it has no name, so the kernel frees it when it is
 * closed, when the statement fails or is cancelled, and when the process dies. Where the file
 * system lacks O_TMPFILE the file is created as tarn-spill-<pid>-<hex>.tmp and unlinked at once;
 * the first spill of a statement removes such names left by processes that no longer run. A
 * folder this code created is removed again when the statement's last spill file closes (only
 * if empty: rmdir never removes anything else).
 *
 * Chunk encoding (host byte order: spill files never leave the process), per extent:
 *   u32 rows | u32 ncols | per column, the vector encoding of its rows:
 *   u8 has_nulls | [ceil(rows / 8) validity bytes, bit r = row r valid] | by type:
 *     fixed width: rows * width value bytes (rows in order, NULL rows zero)
 *     VARCHAR / VARBINARY: rows u32 lengths, then the bytes back to back
 *     LIST / MAP: rows u32 lengths, then the element vector's encoding of all the elements
 *     STRUCT: each field's encoding of the same rows
 *     NULL: nothing
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "sql/exec.h"

#define SPILL_PREFIX "tarn-spill-"

struct tn_spill_file {
    tn_exec *ex;
    int fd;
    uint64_t end;                 /* next free offset (atomic) */
    uint64_t punched;             /* bytes given back with tn_spill_file_punch (atomic) */
};

/* ---------------------------------------------------------------------------------------------
 * The temp folder.
 */
static pthread_mutex_t g_dir_mu = PTHREAD_MUTEX_INITIALIZER;

/* Removes tarn-spill-<pid>-* names whose process is gone (never following symlinks). */
static void sweep_dead(int dfd) {
    int fd = dup(dfd);
    if (fd < 0) return;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = 0;
        char rest[8];
        if (sscanf(e->d_name, SPILL_PREFIX "%ld-%7[0-9a-f]", &pid, rest) != 2 || pid <= 0) continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}

uint64_t tn_spill_default_limit(const char *dir) {
    struct statvfs v;
    const char *d = dir && *dir ? dir : "/tmp";
    char parent[4096];
    if (statvfs(d, &v) != 0) {           /* not made yet: its parent's disk */
        snprintf(parent, sizeof parent, "%s", d);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent) *slash = '\0';
        else snprintf(parent, sizeof parent, "%s", slash ? "/" : ".");
        if (statvfs(parent, &v) != 0) return 0;
    }
    return (uint64_t)((double)v.f_bavail * (double)v.f_frsize * 0.9);
}

/* Opens (creating one level if missing) the statement's temp folder; sets ex->temp_dir_made. */
static int open_dir(tn_exec *ex, int *out) {
    const char *dir = ex->temp_dir && *ex->temp_dir ? ex->temp_dir : "/tmp";
    pthread_mutex_lock(&g_dir_mu);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 && errno == ENOENT) {
        if (mkdir(dir, 0700) == 0) __atomic_store_n(&ex->temp_dir_made, true, __ATOMIC_RELAXED);
        else if (errno != EEXIST) {
            int e = errno;
            pthread_mutex_unlock(&g_dir_mu);
            return tn_error_set(TN_EIO, "cannot create the temp directory '%s' for spilling: %s (SET temp_directory)",
                                dir, strerror(e));
        }
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    int e = errno;
    if (dfd >= 0 && !__atomic_exchange_n(&ex->temp_swept, true, __ATOMIC_RELAXED)) {
        sweep_dead(dfd);
        if (!ex->temp_limit) ex->temp_limit = tn_spill_default_limit(dir);   /* DuckDB's default */
    }
    pthread_mutex_unlock(&g_dir_mu);
    if (dfd < 0)
        return tn_error_set(TN_EIO, "cannot open the temp directory '%s' for spilling: %s (SET temp_directory)", dir,
                            strerror(e));
    *out = dfd;
    return 0;
}

int tn_spill_file_open(tn_exec *ex, tn_spill_file **out) {
    *out = NULL;
    tn_spill_file *f = tn_calloc(1, sizeof *f);
    if (!f) return TN_ENOMEM;
    f->ex = ex;
    f->fd = -1;
    int dfd = -1;
    int rc = open_dir(ex, &dfd);
    if (rc) {
        tn_free(f);
        return rc;
    }
    __atomic_add_fetch(&ex->temp_files, 1, __ATOMIC_RELAXED);
    f->fd = tn_fs_anon_temp_open(dfd, SPILL_PREFIX);
    int e = errno;
    close(dfd);
    if (f->fd < 0) {
        tn_spill_file_close(f);
        return tn_error_set(TN_EIO, "cannot create a spill file in '%s': %s (SET temp_directory)",
                            ex->temp_dir ? ex->temp_dir : "/tmp", strerror(e));
    }
    *out = f;
    return 0;
}

void tn_spill_file_close(tn_spill_file *f) {
    if (!f) return;
    tn_exec *ex = f->ex;
    if (f->fd >= 0) close(f->fd);
    __atomic_sub_fetch(&ex->temp_used, f->end - f->punched, __ATOMIC_RELAXED);
    tn_free(f);
    pthread_mutex_lock(&g_dir_mu);
    if (__atomic_sub_fetch(&ex->temp_files, 1, __ATOMIC_RELAXED) == 0 && ex->temp_dir_made) {
        if (rmdir(ex->temp_dir) == 0) ex->temp_dir_made = false;
    }
    pthread_mutex_unlock(&g_dir_mu);
}

void tn_spill_file_punch(tn_spill_file *f, const tn_spill_extent *e) {
#ifdef FALLOC_FL_PUNCH_HOLE
    if (fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)e->off, (off_t)e->len) == 0) {
        __atomic_add_fetch(&f->punched, e->len, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&f->ex->temp_used, e->len, __ATOMIC_RELAXED);
    }
#else
    (void)f;
    (void)e;
#endif
}

uint64_t tn_spill_file_bytes(const tn_spill_file *f) { return f ? __atomic_load_n(&f->end, __ATOMIC_RELAXED) : 0; }

/* ---------------------------------------------------------------------------------------------
 * Encoding.
 */
static int put_u32(tn_buf *b, uint32_t x) { return tn_buf_append(b, &x, 4); }

static int enc_vector(tn_buf *b, const tn_vector *v, const uint32_t *sel, uint32_t n);

static int enc_lengths(tn_buf *b, const tn_vector *v, const uint32_t *sel, uint32_t n, uint64_t *total) {
    int rc = tn_buf_reserve(b, (size_t)n * 4);
    if (rc) return rc;
    uint32_t *lens = (uint32_t *)(void *)(b->data + b->len);
    *total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = sel ? sel[i] : i;
        uint32_t len = 0;
        if (tn_vector_is_valid(v, r)) {
            if (tn_type_is_string(v->type)) len = ((const tn_str *)v->data)[r].len;
            else len = ((const tn_list_entry *)v->data)[r].length;
        }
        memcpy(&lens[i], &len, 4);
        *total += len;
    }
    b->len += (size_t)n * 4;
    return 0;
}

static int enc_vector(tn_buf *b, const tn_vector *v, const uint32_t *sel, uint32_t n) {
    bool nulls = false;
    if (v->validity)
        for (uint32_t i = 0; i < n && !nulls; i++) nulls = !tn_vector_is_valid(v, sel ? sel[i] : i);
    int rc = tn_buf_append_byte(b, nulls);
    if (!rc && nulls) {
        size_t nb = ((size_t)n + 7) / 8;
        if ((rc = tn_buf_reserve(b, nb))) return rc;
        uint8_t *bits = b->data + b->len;
        memset(bits, 0, nb);
        for (uint32_t i = 0; i < n; i++)
            if (tn_vector_is_valid(v, sel ? sel[i] : i)) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
        b->len += nb;
    }
    if (rc) return rc;
    switch (v->type.id) {
    case TN_TYPE_NULL: return 0;
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: {
        uint64_t total = 0;
        if ((rc = enc_lengths(b, v, sel, n, &total))) return rc;
        if ((rc = tn_buf_reserve(b, (size_t)total))) return rc;
        const tn_str *s = v->data;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = sel ? sel[i] : i;
            if (!tn_vector_is_valid(v, r) || !s[r].len) continue;
            memcpy(b->data + b->len, s[r].ptr, s[r].len);
            b->len += s[r].len;
        }
        return 0;
    }
    case TN_TYPE_LIST:
    case TN_TYPE_MAP: {
        uint64_t total = 0;
        if ((rc = enc_lengths(b, v, sel, n, &total))) return rc;
        if (total > UINT32_MAX) return tn_error_set(TN_ELIMIT, "spill: a chunk holds more than 2^32 list elements");
        uint32_t *csel = tn_malloc(((size_t)total + 1) * sizeof *csel);
        if (!csel) return TN_ENOMEM;
        const tn_list_entry *e = v->data;
        size_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = sel ? sel[i] : i;
            if (!tn_vector_is_valid(v, r)) continue;
            for (uint32_t j = 0; j < e[r].length; j++) csel[k++] = e[r].offset + j;
        }
        rc = enc_vector(b, &v->children[0], csel, (uint32_t)k);
        tn_free(csel);
        return rc;
    }
    case TN_TYPE_STRUCT:
        for (uint32_t c = 0; c < v->type.nested->nchildren && !rc; c++) rc = enc_vector(b, &v->children[c], sel, n);
        return rc;
    default: {
        size_t w = tn_type_width(v->type);
        if ((rc = tn_buf_reserve(b, (size_t)n * w))) return rc;
        uint8_t *dst = b->data + b->len;
        const uint8_t *src = v->data;
        if (!sel) memcpy(dst, src, (size_t)n * w);
        else if (w == 8)
            for (uint32_t i = 0; i < n; i++) memcpy(dst + (size_t)i * 8, src + (size_t)sel[i] * 8, 8);
        else if (w == 4)
            for (uint32_t i = 0; i < n; i++) memcpy(dst + (size_t)i * 4, src + (size_t)sel[i] * 4, 4);
        else
            for (uint32_t i = 0; i < n; i++) memcpy(dst + (size_t)i * w, src + (size_t)sel[i] * w, w);
        b->len += (size_t)n * w;
        return 0;
    }
    }
}

typedef struct dec {
    const uint8_t *p, *end;
} dec;

static int corrupt(void) { return tn_error_set(TN_ECORRUPT, "spill file: a block does not decode (internal error)"); }

static const uint8_t *take(dec *d, size_t n) {
    if ((size_t)(d->end - d->p) < n) return NULL;
    const uint8_t *p = d->p;
    d->p += n;
    return p;
}

/* Decodes n rows into v (reset, count 0), setting v->count = n. */
static int dec_vector(dec *d, tn_vector *v, uint32_t n) {
    const uint8_t *flag = take(d, 1);
    if (!flag) return corrupt();
    int rc = tn_vector_reserve_uninit(v, n ? n : 1);
    if (rc) return rc;
    const uint8_t *bits = NULL;
    if (*flag) {
        if (!(bits = take(d, ((size_t)n + 7) / 8))) return corrupt();
        if ((rc = tn_vector_ensure_validity(v))) return rc;
        for (uint32_t i = 0; i < n; i++) tn_vector_set_valid_bit(v, i, (bits[i >> 3] >> (i & 7)) & 1);
    }
    switch (v->type.id) {
    case TN_TYPE_NULL: break;
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: {
        const uint8_t *lens = take(d, (size_t)n * 4);
        if (!lens) return corrupt();
        tn_str *s = v->data;
        for (uint32_t i = 0; i < n && !rc; i++) {
            uint32_t len;
            memcpy(&len, lens + (size_t)i * 4, 4);
            const uint8_t *p = take(d, len);
            if (!p) return corrupt();
            if (len) rc = tn_vector_set_str(v, i, (const char *)p, len);
            else s[i] = (tn_str){"", 0};
        }
        if (rc) return rc;
        break;
    }
    case TN_TYPE_LIST:
    case TN_TYPE_MAP: {
        const uint8_t *lens = take(d, (size_t)n * 4);
        if (!lens) return corrupt();
        tn_list_entry *e = v->data;
        uint64_t off = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t len;
            memcpy(&len, lens + (size_t)i * 4, 4);
            e[i].offset = (uint32_t)off;
            e[i].length = len;
            off += len;
        }
        if (off > UINT32_MAX) return corrupt();
        tn_vector *child = &v->children[0];
        tn_vector_reset(child);
        if ((rc = dec_vector(d, child, (uint32_t)off))) return rc;
        break;
    }
    case TN_TYPE_STRUCT:
        for (uint32_t c = 0; c < v->type.nested->nchildren && !rc; c++) rc = dec_vector(d, &v->children[c], n);
        if (rc) return rc;
        break;
    default: {
        size_t w = tn_type_width(v->type);
        const uint8_t *p = take(d, (size_t)n * w);
        if (!p) return corrupt();
        memcpy(v->data, p, (size_t)n * w);
        break;
    }
    }
    v->count = n;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Writing and reading extents.
 */
static int io_error(const tn_spill_file *f, const char *what, int e) {
    if (e == ENOSPC || e == EDQUOT)
        return tn_error_set(TN_EIO, "Out of Memory Error: no space left for spill files in '%s' while %s "
                            "(free disk space or SET temp_directory to another disk)",
                            f->ex->temp_dir ? f->ex->temp_dir : "/tmp", what);
    return tn_error_set(TN_EIO, "spill file in '%s': %s: %s", f->ex->temp_dir ? f->ex->temp_dir : "/tmp", what,
                        e ? strerror(e) : "no progress");
}

int tn_spill_encode(tn_buf *dst, const tn_chunk *c, const uint32_t *sel, uint32_t n) {
    int rc = put_u32(dst, n);
    if (!rc) rc = put_u32(dst, c->ncols);
    for (uint32_t k = 0; k < c->ncols && !rc; k++) rc = enc_vector(dst, &c->cols[k], sel, n);
    return rc;
}

int tn_spill_write_buf(tn_spill_file *f, const tn_buf *buf, uint32_t rows, tn_spill_extent *out) {
    tn_exec *ex = f->ex;
    uint64_t used = __atomic_add_fetch(&ex->temp_used, buf->len, __ATOMIC_RELAXED);
    uint64_t off = __atomic_fetch_add(&f->end, buf->len, __ATOMIC_RELAXED);
    if (ex->temp_limit && used > ex->temp_limit)
        return tn_error_set(TN_ELIMIT, "Out of Memory Error: the query's spill files would pass max_temp_directory_size "
                            "of %.1f MiB (SET max_temp_directory_size or memory_limit to raise it)",
                            (double)ex->temp_limit / 1048576.0);
    const uint8_t *p = buf->data;
    size_t left = buf->len;
    uint64_t at = off;
    while (left > 0) {
        ssize_t w = pwrite(f->fd, p, left, (off_t)at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return io_error(f, "writing", w < 0 ? errno : 0);
        p += w;
        left -= (size_t)w;
        at += (uint64_t)w;
    }
    __atomic_add_fetch(&ex->temp_written, buf->len, __ATOMIC_RELAXED);
    out->off = off;
    out->len = (uint32_t)buf->len;
    out->rows = rows;
    return 0;
}

int tn_spill_write_chunk(tn_spill_file *f, const tn_chunk *c, const uint32_t *sel, uint32_t n, tn_buf *scratch,
                         tn_spill_extent *out) {
    tn_buf_clear(scratch);
    int rc = tn_spill_encode(scratch, c, sel, n);
    if (!rc) rc = tn_spill_write_buf(f, scratch, n, out);
    return rc;
}

int tn_spill_read_buf(tn_spill_file *f, const tn_spill_extent *e, tn_buf *scratch) {
    tn_buf_clear(scratch);
    int rc = tn_buf_reserve(scratch, e->len);
    if (rc) return rc;
    uint8_t *p = scratch->data;
    size_t left = e->len;
    uint64_t at = e->off;
    while (left > 0) {
        ssize_t r = pread(f->fd, p, left, (off_t)at);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return io_error(f, "reading", r < 0 ? errno : 0);
        p += r;
        left -= (size_t)r;
        at += (uint64_t)r;
    }
    scratch->len = e->len;
    return 0;
}

int tn_spill_decode(const uint8_t **pos, const uint8_t *end, tn_chunk *out) {
    dec d = {*pos, end};
    const uint8_t *h = take(&d, 8);
    if (!h) return corrupt();
    uint32_t rows, ncols;
    memcpy(&rows, h, 4);
    memcpy(&ncols, h + 4, 4);
    if (ncols != out->ncols) return corrupt();
    tn_chunk_reset(out);
    int rc = 0;
    for (uint32_t k = 0; k < ncols && !rc; k++) rc = dec_vector(&d, &out->cols[k], rows);
    if (rc) return rc;
    out->count = rows;
    *pos = d.p;
    return 0;
}

int tn_spill_read_chunk(tn_spill_file *f, const tn_spill_extent *e, tn_buf *scratch, tn_chunk *out) {
    int rc = tn_spill_read_buf(f, e, scratch);
    if (rc) return rc;
    const uint8_t *p = scratch->data, *end = scratch->data + scratch->len;
    rc = tn_spill_decode(&p, end, out);
    if (!rc && (p != end || out->count != e->rows)) rc = corrupt();
    return rc;
}
