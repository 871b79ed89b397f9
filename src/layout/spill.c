/*
 * layout/spill.c: partition buffers for writes that touch more partitions than a writer keeps
 * files open for. Rows of each buffered partition are kept in memory as encoded blocks; when the
 * buffers pass their memory budget the largest are appended to one temporary file; at the end
 * of the write each partition's rows are replayed in input order (file extents, then memory),
 * so one file writer at a time turns them into ceil(size / target) files.
 *
 * The temporary file lives in <table>/_tarn_tmp/ (hidden from Delta readers: a leading '_'):
 * opened with O_TMPFILE (it has no name, so it vanishes when closed or when the process dies),
 * or, where the file system lacks it, created as spill-<pid>-<hex>.tmp and unlinked at once.
 * tn_layout_spill_cleanup (every writer open) removes named leftovers of dead processes and the
 * directory once empty. Nothing here follows a symlink.
 *
 * Block (host byte order: blocks never leave the process):
 *   u32 block bytes (header included) | u32 rows | per data (non-partition) column:
 *   u8 has_nulls | [ceil(rows / 8) validity bytes, bit r = row r valid] |
 *   fixed width: rows * width value bytes; strings: rows u32 lengths, then the bytes.
 */
#include "layout/layoutInt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPILL_DIR "_tarn_tmp"
#define STAGE_ROWS TN_VECTOR_SIZE
#define READ_WINDOW ((size_t)4 << 20)

typedef struct extent {
    uint64_t off, len;
} extent;

typedef struct spart {
    tn_buf mem;                        /* blocks in memory (after the extents) */
    extent *ext;                       /* blocks in the spill file, in order */
    uint32_t next, cap_ext;
    uint64_t rows;
} spart;

struct tn_layout_spill {
    const tn_table *t;
    uint32_t ncols;                    /* logical columns */
    uint32_t *data_cols;               /* logical index of each stored column */
    size_t *width;                     /* per stored column: value bytes, 0 = string */
    uint32_t ndata;
    uint64_t budget, used;             /* bytes of memory buffers (capacity), and the cap */
    spart *parts;
    uint32_t cap_parts;
    int fd;                            /* spill file, -1 until the first spill */
    uint64_t file_end;
    uint64_t spilled;                  /* bytes written to the spill file */
    tn_chunk stage;                    /* replayed rows */
    bool has_stage;
    tn_buf window;                     /* replay read buffer */
};

static const char *tpath(const tn_layout_spill *s) { return tn_table_path(s->t); }

int tn_layout_spill_open(tn_layout_spill **out, const tn_table *t, uint64_t budget) {
    *out = NULL;
    tn_layout_spill *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    s->t = t;
    s->fd = -1;
    s->budget = budget ? budget : 1;
    s->ncols = tn_table_num_columns(t);
    s->data_cols = tn_calloc(s->ncols + 1, sizeof *s->data_cols);
    s->width = tn_calloc(s->ncols + 1, sizeof *s->width);
    if (!s->data_cols || !s->width) {
        tn_layout_spill_close(s);
        return TN_ENOMEM;
    }
    for (uint32_t i = 0; i < s->ncols; i++) {
        const tn_delta_column *c = tn_table_column(t, i);
        if (c->is_partition) continue;
        s->data_cols[s->ndata] = i;
        s->width[s->ndata] = tn_type_is_string(c->type) ? 0 : tn_type_width(c->type);
        s->ndata++;
    }
    *out = s;
    return 0;
}

static void dir_remove_if_empty(const char *table_path) {
    int dfd = open(table_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return;
    unlinkat(dfd, SPILL_DIR, AT_REMOVEDIR);   /* fails while another writer's file is there: fine */
    close(dfd);
}

void tn_layout_spill_close(tn_layout_spill *s) {
    if (!s) return;
    if (s->fd >= 0) {
        close(s->fd);
        dir_remove_if_empty(tpath(s));
    }
    for (uint32_t i = 0; i < s->cap_parts; i++) {
        tn_buf_free(&s->parts[i].mem);
        tn_free(s->parts[i].ext);
    }
    tn_free(s->parts);
    tn_free(s->data_cols);
    tn_free(s->width);
    if (s->has_stage) tn_chunk_free(&s->stage);
    tn_buf_free(&s->window);
    tn_free(s);
}

uint64_t tn_layout_spill_bytes_spilled(const tn_layout_spill *s) { return s ? s->spilled : 0; }
uint64_t tn_layout_spill_bytes_buffered(const tn_layout_spill *s) { return s ? s->used : 0; }

bool tn_layout_spill_has(const tn_layout_spill *s, uint32_t part) {
    return s && part < s->cap_parts && s->parts[part].rows > 0;
}

void tn_layout_spill_cleanup(const char *table_path) {
    int tfd = open(table_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (tfd < 0) return;
    int dfd = openat(tfd, SPILL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd >= 0) {
        DIR *d = fdopendir(dfd);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                long pid = 0;
                char rest[8];
                /* only our own names, and only when the process that made them is gone */
                if (sscanf(e->d_name, "spill-%ld-%7[0-9a-f]", &pid, rest) != 2 || pid <= 0) continue;
                if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
                unlinkat(dirfd(d), e->d_name, 0);
            }
            closedir(d);
        } else {
            close(dfd);
        }
        unlinkat(tfd, SPILL_DIR, AT_REMOVEDIR);
    }
    close(tfd);
}

/* Creates the spill file (see the top of the file). */
static int file_create(tn_layout_spill *s) {
    int rc = 0;
    for (int attempt = 0; attempt < 3 && s->fd < 0; attempt++) {
        int tfd = open(tpath(s), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (tfd < 0) break;
        if (mkdirat(tfd, SPILL_DIR, 0700) != 0 && errno != EEXIST) {
            close(tfd);
            break;
        }
        int dfd = openat(tfd, SPILL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(tfd);
        if (dfd < 0) continue;   /* removed by a writer finishing at the same moment: again */
        s->fd = tn_fs_anon_temp_open(dfd, "spill-");
        close(dfd);
    }
    if (s->fd < 0)
        rc = tn_error_set(TN_EIO, "table '%s': cannot create a spill file in %s/%s: %s", tpath(s), tpath(s), SPILL_DIR,
                          strerror(errno));
    return rc;
}

static int file_write(tn_layout_spill *s, const uint8_t *p, size_t n) {
    uint64_t off = s->file_end;
    while (n > 0) {
        ssize_t w = pwrite(s->fd, p, n, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return tn_error_set(TN_EIO, "table '%s': writing the spill file (%s/%s): %s", tpath(s), tpath(s),
                                SPILL_DIR, w < 0 ? strerror(errno) : "no progress");
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    s->spilled += off - s->file_end;
    s->file_end = off;
    return 0;
}

static int file_read(tn_layout_spill *s, uint8_t *p, size_t n, uint64_t off) {
    while (n > 0) {
        ssize_t r = pread(s->fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            return tn_error_set(TN_EIO, "table '%s': reading the spill file: %s", tpath(s),
                                r < 0 ? strerror(errno) : "unexpected end");
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

/* Moves part's memory blocks to the end of the spill file. */
static int spill_part(tn_layout_spill *s, uint32_t id) {
    spart *p = &s->parts[id];
    int rc = 0;
    if (p->mem.len == 0) return 0;
    if (s->fd < 0 && (rc = file_create(s))) return rc;
    if (p->next == p->cap_ext) {
        uint32_t cap = p->cap_ext ? p->cap_ext * 2 : 4;
        extent *e = tn_realloc(p->ext, sizeof *e * cap);
        if (!e) return TN_ENOMEM;
        p->ext = e;
        p->cap_ext = cap;
    }
    uint64_t off = s->file_end;
    rc = file_write(s, p->mem.data, p->mem.len);
    if (rc) return rc;
    /* consecutive spills of one partition are one extent */
    if (p->next && p->ext[p->next - 1].off + p->ext[p->next - 1].len == off) p->ext[p->next - 1].len += p->mem.len;
    else p->ext[p->next++] = (extent){off, p->mem.len};
    s->used -= p->mem.cap;
    tn_buf_free(&p->mem);
    return 0;
}

typedef struct by_size {
    size_t cap;
    uint32_t id;
} by_size;

static int by_size_cmp(const void *a, const void *b) {
    size_t x = ((const by_size *)a)->cap, y = ((const by_size *)b)->cap;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Over budget: spills the largest buffers until half the budget is free. */
static int spill_some(tn_layout_spill *s) {
    uint32_t n = 0;
    int rc = 0;
    by_size *v = tn_malloc(sizeof *v * (s->cap_parts ? s->cap_parts : 1));
    if (!v) return TN_ENOMEM;
    for (uint32_t i = 0; i < s->cap_parts; i++)
        if (s->parts[i].mem.cap) v[n++] = (by_size){s->parts[i].mem.cap, i};
    qsort(v, n, sizeof *v, by_size_cmp);
    for (uint32_t i = 0; i < n && !rc && s->used > s->budget / 2; i++) rc = spill_part(s, v[i].id);
    tn_free(v);
    return rc;
}

static int part_get(tn_layout_spill *s, uint32_t id, spart **out) {
    if (id >= s->cap_parts) {
        uint32_t cap = s->cap_parts ? s->cap_parts : 64;
        while (cap <= id) cap *= 2;
        spart *p = tn_realloc(s->parts, sizeof *p * cap);
        if (!p) return TN_ENOMEM;
        memset(p + s->cap_parts, 0, sizeof *p * (cap - s->cap_parts));
        s->parts = p;
        s->cap_parts = cap;
    }
    *out = &s->parts[id];
    return 0;
}

static inline uint32_t row_at(const uint32_t *sel, uint32_t i) { return sel ? sel[i] : i; }

int tn_layout_spill_append(tn_layout_spill *s, uint32_t part, const tn_chunk *chunk, const uint32_t *sel, uint32_t n) {
    spart *p;
    int rc = part_get(s, part, &p);
    if (rc || n == 0) return rc;
    /* size of the block */
    uint64_t bytes = 8;
    for (uint32_t k = 0; k < s->ndata; k++) {
        const tn_vector *v = &chunk->cols[s->data_cols[k]];
        bool nulls = false;
        if (v->validity)
            for (uint32_t i = 0; i < n && !nulls; i++) nulls = !tn_vector_is_valid(v, row_at(sel, i));
        bytes += 1 + (nulls ? (n + 7) / 8 : 0);
        if (s->width[k]) {
            bytes += (uint64_t)n * s->width[k];
        } else {
            const tn_str *sv = v->data;
            bytes += (uint64_t)n * 4;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t r = row_at(sel, i);
                if (tn_vector_is_valid(v, r)) bytes += sv[r].len;
            }
        }
    }
    if (bytes > UINT32_MAX) {
        /* a block's size is a u32: split the rows */
        uint32_t half = n / 2;
        uint32_t *tmp = NULL;
        if (!sel) {
            tmp = tn_malloc(sizeof *tmp * n);
            if (!tmp) return TN_ENOMEM;
            for (uint32_t i = 0; i < n; i++) tmp[i] = i;
        }
        const uint32_t *ss = sel ? sel : tmp;
        rc = tn_layout_spill_append(s, part, chunk, ss, half);
        if (!rc) rc = tn_layout_spill_append(s, part, chunk, ss + half, n - half);
        tn_free(tmp);
        return rc;
    }
    size_t old_cap = p->mem.cap;
    rc = tn_buf_reserve(&p->mem, (size_t)bytes);
    if (rc) return rc;
    s->used += p->mem.cap - old_cap;
    uint8_t *o = p->mem.data + p->mem.len;
    uint32_t hdr[2] = {(uint32_t)bytes, n};
    memcpy(o, hdr, 8);
    o += 8;
    for (uint32_t k = 0; k < s->ndata; k++) {
        const tn_vector *v = &chunk->cols[s->data_cols[k]];
        bool nulls = false;
        if (v->validity)
            for (uint32_t i = 0; i < n && !nulls; i++) nulls = !tn_vector_is_valid(v, row_at(sel, i));
        *o++ = nulls;
        if (nulls) {
            memset(o, 0, (n + 7) / 8);
            for (uint32_t i = 0; i < n; i++)
                if (tn_vector_is_valid(v, row_at(sel, i))) o[i >> 3] |= (uint8_t)(1u << (i & 7));
            o += (n + 7) / 8;
        }
        size_t w = s->width[k];
        if (w) {
            const uint8_t *d = v->data;
            if (!sel) {
                memcpy(o, d, (size_t)n * w);
                o += (size_t)n * w;
            } else if (w == 8) {
                for (uint32_t i = 0; i < n; i++, o += 8) memcpy(o, d + (size_t)sel[i] * 8, 8);
            } else if (w == 4) {
                for (uint32_t i = 0; i < n; i++, o += 4) memcpy(o, d + (size_t)sel[i] * 4, 4);
            } else {
                for (uint32_t i = 0; i < n; i++, o += w) memcpy(o, d + (size_t)sel[i] * w, w);
            }
        } else {
            const tn_str *sv = v->data;
            uint8_t *lens = o;
            o += (size_t)n * 4;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t r = row_at(sel, i);
                uint32_t len = tn_vector_is_valid(v, r) ? sv[r].len : 0;
                memcpy(lens + (size_t)i * 4, &len, 4);
                if (len) memcpy(o, sv[r].ptr, len);
                o += len;
            }
        }
    }
    p->mem.len += (size_t)bytes;
    p->rows += n;
    if (s->used > s->budget) rc = spill_some(s);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Replay.
 */
static int stage_init(tn_layout_spill *s) {
    if (s->has_stage) return 0;
    tn_type *types = tn_malloc(sizeof *types * (s->ncols + 1));
    if (!types) return TN_ENOMEM;
    for (uint32_t i = 0; i < s->ncols; i++) types[i] = tn_table_column(s->t, i)->type;
    int rc = tn_chunk_init(&s->stage, s->ncols, types, STAGE_ROWS);
    tn_free(types);
    if (!rc) s->has_stage = true;
    return rc;
}

static void stage_reset(tn_layout_spill *s) {
    for (uint32_t k = 0; k < s->ndata; k++) tn_vector_reset(&s->stage.cols[s->data_cols[k]]);
    s->stage.count = 0;
}

static int stage_emit(tn_layout_spill *s, tn_layout_spill_fn fn, void *ctx) {
    if (s->stage.count == 0) return 0;
    int rc = fn(ctx, &s->stage);
    stage_reset(s);
    return rc;
}

static int corrupt(const tn_layout_spill *s) {
    return tn_error_set(TN_ECORRUPT, "table '%s': the spill file holds a malformed block (was it changed?)", tpath(s));
}

/* Decodes one block (len bytes, checked) into the stage, emitting full stages first. */
static int decode_block(tn_layout_spill *s, const uint8_t *b, size_t len, tn_layout_spill_fn fn, void *ctx) {
    int rc = 0;
    uint32_t hdr[2];
    if (len < 8) return corrupt(s);
    memcpy(hdr, b, 8);
    uint32_t n = hdr[1];
    const uint8_t *p = b + 8, *end = b + len;
    if (s->stage.count && s->stage.count + n > STAGE_ROWS && (rc = stage_emit(s, fn, ctx))) return rc;
    uint32_t base = s->stage.count;
    for (uint32_t k = 0; k < s->ndata; k++) {
        tn_vector *v = &s->stage.cols[s->data_cols[k]];
        if ((rc = tn_vector_reserve(v, base + n))) return rc;
        if (p >= end) return corrupt(s);
        bool nulls = *p++;
        if (nulls) {
            size_t vb = (n + 7) / 8;
            if ((size_t)(end - p) < vb) return corrupt(s);
            if ((rc = tn_vector_ensure_validity(v))) return rc;
            for (uint32_t i = 0; i < n; i++)
                if (!((p[i >> 3] >> (i & 7)) & 1)) tn_vector_set_valid_bit(v, base + i, false);
            p += vb;
        }
        size_t w = s->width[k];
        if (w) {
            if ((uint64_t)(end - p) < (uint64_t)n * w) return corrupt(s);
            memcpy((uint8_t *)v->data + (size_t)base * w, p, (size_t)n * w);
            p += (size_t)n * w;
        } else {
            if ((uint64_t)(end - p) < (uint64_t)n * 4) return corrupt(s);
            const uint8_t *lens = p;
            p += (size_t)n * 4;
            uint64_t total = 0;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t l;
                memcpy(&l, lens + (size_t)i * 4, 4);
                total += l;
            }
            if ((uint64_t)(end - p) < total) return corrupt(s);
            if (!v->heap && !(v->heap = tn_arena_create(0))) return TN_ENOMEM;
            char *h = tn_arena_alloc(v->heap, total ? (size_t)total : 1);
            if (!h) return TN_ENOMEM;
            memcpy(h, p, (size_t)total);
            p += total;
            tn_str *sv = (tn_str *)v->data + base;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t l;
                memcpy(&l, lens + (size_t)i * 4, 4);
                sv[i].ptr = h;
                sv[i].len = l;
                h += l;
            }
        }
        v->count = base + n;
    }
    if (p != end) return corrupt(s);
    s->stage.count = base + n;
    return 0;
}

/* Decodes the blocks of buffer bytes [0, len); returns the bytes consumed (whole blocks). */
static int decode_blocks(tn_layout_spill *s, const uint8_t *b, size_t len, size_t *used, tn_layout_spill_fn fn,
                         void *ctx) {
    size_t at = 0;
    int rc = 0;
    while (!rc && len - at >= 8) {
        uint32_t blen;
        memcpy(&blen, b + at, 4);
        if (blen < 8) return corrupt(s);
        if (len - at < blen) break;
        rc = decode_block(s, b + at, blen, fn, ctx);
        at += blen;
    }
    *used = at;
    return rc;
}

static int replay_extent(tn_layout_spill *s, const extent *e, tn_layout_spill_fn fn, void *ctx) {
    int rc = 0;
    uint64_t pos = e->off, end = e->off + e->len;
    tn_buf *w = &s->window;
    tn_buf_clear(w);
    for (;;) {
        size_t used = 0;
        rc = decode_blocks(s, w->data, w->len, &used, fn, ctx);
        if (rc) return rc;
        if (used && w->len > used) memmove(w->data, w->data + used, w->len - used);
        w->len -= used;
        if (pos == end) break;
        size_t want = READ_WINDOW;
        if (w->len >= 8) {
            uint32_t blen;
            memcpy(&blen, w->data, 4);
            if (blen > want) want = blen;
        }
        if (want > end - pos) want = (size_t)(end - pos);
        if ((rc = tn_buf_reserve(w, want))) return rc;
        if ((rc = file_read(s, w->data + w->len, want, pos))) return rc;
        w->len += want;
        pos += want;
    }
    if (w->len) return corrupt(s);
    if (w->cap > 2 * READ_WINDOW) tn_buf_free(w);
    return 0;
}

int tn_layout_spill_replay(tn_layout_spill *s, uint32_t part, tn_layout_spill_fn fn, void *ctx) {
    if (!tn_layout_spill_has(s, part)) return 0;
    spart *p = &s->parts[part];
    int rc = stage_init(s);
    if (rc) return rc;
    stage_reset(s);
    for (uint32_t i = 0; i < p->next && !rc; i++) rc = replay_extent(s, &p->ext[i], fn, ctx);
    if (!rc && p->mem.len) {
        size_t used = 0;
        rc = decode_blocks(s, p->mem.data, p->mem.len, &used, fn, ctx);
        if (!rc && used != p->mem.len) rc = corrupt(s);
    }
    if (!rc) rc = stage_emit(s, fn, ctx);
    stage_reset(s);
    /* the partition is done: its memory goes back to the budget */
    s->used -= p->mem.cap;
    tn_buf_free(&p->mem);
    tn_free(p->ext);
    p->ext = NULL;
    p->next = p->cap_ext = 0;
    p->rows = 0;
    return rc;
}
