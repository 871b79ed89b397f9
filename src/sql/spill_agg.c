/*
 * sql/spill_agg.c: the partition files of a hash aggregate past its share of memory_limit.
 * Once the aggregate spills, the group tables it holds stop growing and every later input row
 * (the aggregate's input columns, before any expression is evaluated) goes to one of
 * TN_AGG_SPILL_PARTS partitions chosen by the top bits of its group-key hash — the same bits
 * that split the in-memory groups (op_aggregate.c), so that each partition is finished alone:
 * its in-memory groups merged, its spilled rows aggregated again. No aggregate state is ever
 * written, so every aggregate (DISTINCT, string_agg, list, ordered, custom ones) spills alike.
 *
 * Rows wait per worker and partition in an encoded buffer (spill_file.c's chunk encoding,
 * several chunks back to back) that becomes one extent of the shared spill file when it passes
 * AGG_SPILL_FLUSH bytes; extents of a partition are replayed in the order they were written.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"

#define AGG_SPILL_FLUSH ((size_t)64 << 10)

typedef struct apart {
    tn_spill_extent *ext;
    uint32_t n, cap;
    uint64_t rows;
} apart;

struct tn_agg_spill {
    tn_exec *ex;
    tn_plan *node;
    uint32_t ncols;
    tn_type *types;
    int active;                    /* atomic */
    pthread_mutex_t mu;
    tn_spill_file *file;
    apart parts[TN_AGG_SPILL_PARTS];
};

struct tn_agg_spill_writer {
    tn_buf buf[TN_AGG_SPILL_PARTS];
    uint32_t rows[TN_AGG_SPILL_PARTS];
    uint32_t sel[TN_VECTOR_SIZE];
};

int tn_agg_spill_create(tn_exec *ex, tn_plan *node, uint32_t ncols, const tn_type *types, tn_agg_spill **out) {
    *out = NULL;
    tn_agg_spill *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    s->types = tn_malloc((ncols + 1) * sizeof *s->types);
    if (!s->types) {
        tn_free(s);
        return TN_ENOMEM;
    }
    if (ncols) memcpy(s->types, types, ncols * sizeof *types);
    s->ex = ex;
    s->node = node;
    s->ncols = ncols;
    pthread_mutex_init(&s->mu, NULL);
    *out = s;
    return 0;
}

void tn_agg_spill_free(tn_agg_spill *s) {
    if (!s) return;
    for (uint32_t p = 0; p < TN_AGG_SPILL_PARTS; p++) tn_free(s->parts[p].ext);
    tn_spill_file_close(s->file);
    pthread_mutex_destroy(&s->mu);
    tn_free(s->types);
    tn_free(s);
}

bool tn_agg_spill_active(const tn_agg_spill *s) { return s && __atomic_load_n(&s->active, __ATOMIC_RELAXED); }

void tn_agg_spill_activate(tn_agg_spill *s) { __atomic_store_n(&s->active, 1, __ATOMIC_RELAXED); }

uint64_t tn_agg_spill_rows(const tn_agg_spill *s, uint32_t p) { return s ? s->parts[p].rows : 0; }

void tn_agg_spill_writer_free(tn_agg_spill_writer *w) {
    if (!w) return;
    for (uint32_t p = 0; p < TN_AGG_SPILL_PARTS; p++) tn_buf_free(&w->buf[p]);
    tn_free(w);
}

/* Writes worker buffer p as one extent of partition p. */
static int flush_part(tn_agg_spill *s, tn_agg_spill_writer *w, uint32_t p) {
    if (!w->buf[p].len) return 0;
    pthread_mutex_lock(&s->mu);
    int rc = s->file ? 0 : tn_spill_file_open(s->ex, &s->file);
    pthread_mutex_unlock(&s->mu);
    tn_spill_extent e;
    if (!rc) rc = tn_spill_write_buf(s->file, &w->buf[p], w->rows[p], &e);
    if (rc) return rc;
    __atomic_add_fetch(&s->node->spilled, e.len, __ATOMIC_RELAXED);
    pthread_mutex_lock(&s->mu);
    apart *a = &s->parts[p];
    if (a->n == a->cap) {
        uint32_t cap = a->cap ? a->cap * 2 : 16;
        tn_spill_extent *n = tn_realloc(a->ext, cap * sizeof *n);
        if (!n) rc = TN_ENOMEM;
        else {
            a->ext = n;
            a->cap = cap;
        }
    }
    if (!rc) {
        a->ext[a->n++] = e;
        a->rows += e.rows;
    }
    pthread_mutex_unlock(&s->mu);
    tn_buf_clear(&w->buf[p]);
    w->rows[p] = 0;
    return rc;
}

int tn_agg_spill_write(tn_agg_spill *s, tn_agg_spill_writer **wp, const tn_chunk *in, const uint64_t *hashes) {
    if (!*wp && !(*wp = tn_calloc(1, sizeof **wp))) return TN_ENOMEM;
    tn_agg_spill_writer *w = *wp;
    /* rows of each partition together: a counting sort of the row numbers */
    uint32_t count[TN_AGG_SPILL_PARTS + 1] = {0}, pos[TN_AGG_SPILL_PARTS];
    for (uint32_t i = 0; i < in->count; i++) count[tn_agg_spill_part(hashes[i]) + 1]++;
    for (uint32_t p = 0; p < TN_AGG_SPILL_PARTS; p++) count[p + 1] += count[p];
    memcpy(pos, count, sizeof pos);
    for (uint32_t i = 0; i < in->count; i++) w->sel[pos[tn_agg_spill_part(hashes[i])]++] = i;
    int rc = 0;
    for (uint32_t p = 0; p < TN_AGG_SPILL_PARTS && !rc; p++) {
        uint32_t n = count[p + 1] - count[p];
        if (!n) continue;
        rc = tn_spill_encode(&w->buf[p], in, w->sel + count[p], n);
        w->rows[p] += n;
        if (!rc && w->buf[p].len >= AGG_SPILL_FLUSH) rc = flush_part(s, w, p);
    }
    return rc;
}

int tn_agg_spill_flush(tn_agg_spill *s, tn_agg_spill_writer *w) {
    int rc = 0;
    for (uint32_t p = 0; w && p < TN_AGG_SPILL_PARTS && !rc; p++) rc = flush_part(s, w, p);
    return rc;
}

int tn_agg_spill_replay(tn_agg_spill *s, uint32_t p, int (*fn)(void *ctx, const tn_chunk *c), void *ctx) {
    apart *a = &s->parts[p];
    if (!a->n) return 0;
    tn_chunk c;
    memset(&c, 0, sizeof c);
    tn_buf scratch = TN_BUF_INIT;
    int rc = tn_chunk_init(&c, s->ncols, s->types, TN_VECTOR_SIZE);
    for (uint32_t i = 0; i < a->n && !rc; i++) {
        if ((rc = tn_exec_check(s->ex))) break;
        rc = tn_spill_read_buf(s->file, &a->ext[i], &scratch);
        const uint8_t *q = scratch.data, *end = scratch.data + scratch.len;
        while (!rc && q < end) {
            rc = tn_spill_decode(&q, end, &c);
            if (!rc && c.count) rc = fn(ctx, &c);
        }
        if (!rc) tn_spill_file_punch(s->file, &a->ext[i]);
    }
    if (c.cols) tn_chunk_free(&c);
    tn_buf_free(&scratch);
    return rc;
}
