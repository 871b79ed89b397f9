/*
 * sql/spill_sort.c: external merge sort for ORDER BY past its share of memory_limit. The sort
 * sink's workers (op_sort.c) write each full buffer as a sorted run (chunks of up to
 * TN_VECTOR_SIZE rows at extents of one spill file, spill_file.c); at the end the runs are merged
 * with a binary heap, fanin runs at a time where memory allows only that many readers (one chunk
 * decoded per reader), in passes until one merge remains, which is the sort's output source.
 * Extents already merged are punched out of the file so that the disk holds about one copy of
 * the data. Knows nothing of the pipeline above it but the source interface.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"

#define MAX_FANIN 256

typedef struct run {
    tn_spill_extent *ext;
    uint32_t n, cap;
    uint64_t rows;
} run;

struct tn_sort_spill {
    tn_exec *ex;
    const tn_plan *node;
    tn_spill_file *file;
    pthread_mutex_t mu;
    run *runs;
    uint32_t nruns, cap;
    uint32_t max_ext;          /* the largest extent's bytes (sizes readers) */
    uint64_t rows;
};

int tn_sort_spill_create(tn_exec *ex, const tn_plan *node, tn_sort_spill **out) {
    tn_sort_spill *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    s->ex = ex;
    s->node = node;
    pthread_mutex_init(&s->mu, NULL);
    *out = s;
    return 0;
}

static void run_free(run *r) {
    tn_free(r->ext);
    memset(r, 0, sizeof *r);
}

void tn_sort_spill_free(tn_sort_spill *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->nruns; i++) run_free(&s->runs[i]);
    tn_free(s->runs);
    tn_spill_file_close(s->file);
    pthread_mutex_destroy(&s->mu);
    tn_free(s);
}

bool tn_sort_spill_has_runs(const tn_sort_spill *s) { return s && s->nruns > 0; }

static int run_push(run *r, const tn_spill_extent *e) {
    if (r->n == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 16;
        tn_spill_extent *n = tn_realloc(r->ext, cap * sizeof *n);
        if (!n) return TN_ENOMEM;
        r->ext = n;
        r->cap = cap;
    }
    r->ext[r->n++] = *e;
    r->rows += e->rows;
    return 0;
}

/* Adds a finished run (taken) under the lock. */
static int add_run(tn_sort_spill *s, run *r) {
    pthread_mutex_lock(&s->mu);
    int rc = 0;
    if (s->nruns == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 16;
        run *n = tn_realloc(s->runs, cap * sizeof *n);
        if (!n) rc = TN_ENOMEM;
        else {
            s->runs = n;
            s->cap = cap;
        }
    }
    if (!rc) {
        for (uint32_t i = 0; i < r->n; i++)
            if (r->ext[i].len > s->max_ext) s->max_ext = r->ext[i].len;
        s->rows += r->rows;
        s->runs[s->nruns++] = *r;
        memset(r, 0, sizeof *r);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static int ensure_file(tn_sort_spill *s) {
    pthread_mutex_lock(&s->mu);
    int rc = s->file ? 0 : tn_spill_file_open(s->ex, &s->file);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int tn_sort_spill_run(tn_sort_spill *s, const tn_collection *c, const uint64_t *refs, size_t n) {
    if (n == 0) return 0;
    int rc = ensure_file(s);
    if (rc) return rc;
    tn_chunk stage;
    memset(&stage, 0, sizeof stage);
    tn_buf scratch = TN_BUF_INIT;
    run r;
    memset(&r, 0, sizeof r);
    rc = tn_chunk_init(&stage, c->ncols, c->types, TN_VECTOR_SIZE);
    for (size_t i = 0; i < n && !rc;) {
        if ((rc = tn_exec_check(s->ex))) break;
        tn_chunk_reset(&stage);
        size_t end = n - i < TN_VECTOR_SIZE ? n : i + TN_VECTOR_SIZE;
        while (i < end && !rc) {
            /* rows of one input chunk in a row go together */
            uint32_t ci = (uint32_t)(refs[i] >> 32), sel[TN_VECTOR_SIZE], m = 0;
            while (i < end && (uint32_t)(refs[i] >> 32) == ci) sel[m++] = (uint32_t)refs[i++];
            for (uint32_t k = 0; k < c->ncols && !rc; k++)
                rc = tn_vector_append_rows(&stage.cols[k], &c->chunks[ci].cols[k], sel, m);
            stage.count += m;
        }
        tn_spill_extent e;
        if (!rc) rc = tn_spill_write_chunk(s->file, &stage, NULL, stage.count, &scratch, &e);
        if (!rc) rc = run_push(&r, &e);
        if (!rc) __atomic_add_fetch(&((tn_plan *)s->node)->spilled, e.len, __ATOMIC_RELAXED);
    }
    if (!rc) rc = add_run(s, &r);
    run_free(&r);
    if (stage.cols) tn_chunk_free(&stage);
    tn_buf_free(&scratch);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * The k-way merge.
 */
typedef struct reader {
    run r;                     /* owned */
    uint32_t next;             /* next extent to read */
    tn_chunk cur;
    uint32_t pos;
    tn_buf scratch;
} reader;

typedef struct merger {
    tn_sort_spill *s;
    reader *rd;
    uint32_t nrd;
    uint32_t *heap, hn;
} merger;

static inline bool rless(const merger *m, uint32_t a, uint32_t b) {
    const reader *x = &m->rd[a], *y = &m->rd[b];
    int c = tn_sort_cmp_rows(m->s->node, &x->cur, x->pos, &y->cur, y->pos);
    return c < 0 || (c == 0 && a < b);
}

static void sift_down(merger *m, uint32_t i) {
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < m->hn && rless(m, m->heap[l], m->heap[best])) best = l;
        if (r < m->hn && rless(m, m->heap[r], m->heap[best])) best = r;
        if (best == i) return;
        uint32_t t = m->heap[i];
        m->heap[i] = m->heap[best];
        m->heap[best] = t;
        i = best;
    }
}

/* Frees the disk space of an extent already read (best effort: the file shrinks on close). */
static void release_extent(tn_sort_spill *s, const tn_spill_extent *e);

/* Loads reader i's next chunk; *more false at the end of its run. */
static int load(merger *m, uint32_t i, bool *more) {
    reader *r = &m->rd[i];
    *more = false;
    while (r->next < r->r.n) {
        const tn_spill_extent *e = &r->r.ext[r->next++];
        int rc = tn_spill_read_chunk(m->s->file, e, &r->scratch, &r->cur);
        if (rc) return rc;
        release_extent(m->s, e);
        r->pos = 0;
        if (r->cur.count) {
            *more = true;
            return 0;
        }
    }
    return 0;
}

static void merger_free(merger *m) {
    for (uint32_t i = 0; i < m->nrd; i++) {
        run_free(&m->rd[i].r);
        if (m->rd[i].cur.cols) tn_chunk_free(&m->rd[i].cur);
        tn_buf_free(&m->rd[i].scratch);
    }
    tn_free(m->rd);
    tn_free(m->heap);
    memset(m, 0, sizeof *m);
}

/* A merger over runs[0..n) (taken: the array's entries are zeroed). */
static int merger_open(merger *m, tn_sort_spill *s, run *runs, uint32_t n) {
    memset(m, 0, sizeof *m);
    m->s = s;
    m->rd = tn_calloc(n + 1, sizeof *m->rd);
    m->heap = tn_calloc(n + 1, sizeof *m->heap);
    if (!m->rd || !m->heap) {
        for (uint32_t i = 0; i < n; i++) run_free(&runs[i]);
        merger_free(m);
        return TN_ENOMEM;
    }
    m->nrd = n;
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        m->rd[i].r = runs[i];
        memset(&runs[i], 0, sizeof runs[i]);
    }
    for (uint32_t i = 0; i < n && !rc; i++) {
        rc = tn_chunk_init(&m->rd[i].cur, s->node->ncols, s->node->types, TN_VECTOR_SIZE);
        bool more = false;
        if (!rc) rc = load(m, i, &more);
        if (!rc && more) m->heap[m->hn++] = i;
    }
    for (uint32_t i = m->hn / 2; i-- > 0 && !rc;) sift_down(m, i);
    if (rc) merger_free(m);
    return rc;
}

/* Appends up to max merged rows to out (out->count grows); fewer only at the end. */
static int merger_fill(merger *m, tn_chunk *out, uint32_t max) {
    int rc = 0;
    uint32_t sel[TN_VECTOR_SIZE];
    while (out->count < max && m->hn && !rc) {
        uint32_t w = m->heap[0];
        reader *r = &m->rd[w];
        int64_t ru = -1;                       /* the runner-up: the better child of the root */
        if (m->hn > 1) ru = m->hn > 2 && rless(m, m->heap[2], m->heap[1]) ? m->heap[2] : m->heap[1];
        uint32_t room = max - out->count, k = 0;
        if (room > TN_VECTOR_SIZE) room = TN_VECTOR_SIZE;
        do sel[k++] = r->pos++;
        while (k < room && r->pos < r->cur.count && (ru < 0 || rless(m, w, (uint32_t)ru)));
        for (uint32_t c = 0; c < out->ncols && !rc; c++) rc = tn_vector_append_rows(&out->cols[c], &r->cur.cols[c], sel, k);
        out->count += k;
        if (rc) break;
        if (r->pos == r->cur.count) {
            bool more = false;
            if ((rc = load(m, w, &more))) break;
            if (!more) m->heap[0] = m->heap[--m->hn];
        }
        if (m->hn) sift_down(m, 0);
    }
    return rc;
}

/* Merges runs [from, from + n) of s into one new run appended to s. */
static int merge_pass(tn_sort_spill *s, uint32_t from, uint32_t n, run *out) {
    merger m;
    int rc = merger_open(&m, s, s->runs + from, n);
    if (rc) return rc;
    tn_chunk stage;
    memset(&stage, 0, sizeof stage);
    tn_buf scratch = TN_BUF_INIT;
    rc = tn_chunk_init(&stage, s->node->ncols, s->node->types, TN_VECTOR_SIZE);
    while (!rc && m.hn) {
        if ((rc = tn_exec_check(s->ex))) break;
        tn_chunk_reset(&stage);
        rc = merger_fill(&m, &stage, TN_VECTOR_SIZE);
        tn_spill_extent e;
        if (!rc && stage.count) rc = tn_spill_write_chunk(s->file, &stage, NULL, stage.count, &scratch, &e);
        if (!rc && stage.count) {
            __atomic_add_fetch(&((tn_plan *)s->node)->spilled, e.len, __ATOMIC_RELAXED);
            rc = run_push(out, &e);
            if (e.len > s->max_ext) s->max_ext = e.len;
        }
    }
    if (stage.cols) tn_chunk_free(&stage);
    tn_buf_free(&scratch);
    merger_free(&m);
    return rc;
}

/* How many runs one merge may read at once: a reader holds a decoded chunk and its bytes. */
static uint32_t fanin(const tn_sort_spill *s) {
    uint64_t budget = tn_exec_spill_budget(s->ex);
    uint64_t per = 3 * (uint64_t)(s->max_ext ? s->max_ext : 1) + 64 * 1024;
    uint64_t k = budget ? budget / per : MAX_FANIN;
    if (k < 2) k = 2;
    if (k > MAX_FANIN) k = MAX_FANIN;
    return (uint32_t)k;
}

/* Merges runs until at most fanin remain. */
static int reduce_runs(tn_sort_spill *s) {
    int rc = 0;
    uint32_t k = fanin(s);
    while (!rc && s->nruns > k) {
        uint32_t groups = (s->nruns + k - 1) / k, n = 0;
        run *next = tn_calloc(groups + 1, sizeof *next);
        if (!next) return TN_ENOMEM;
        for (uint32_t from = 0; from < s->nruns && !rc; from += k) {
            uint32_t cnt = s->nruns - from < k ? s->nruns - from : k;
            if (cnt == 1) {
                next[n++] = s->runs[from];
                memset(&s->runs[from], 0, sizeof s->runs[from]);
                continue;
            }
            rc = merge_pass(s, from, cnt, &next[n]);
            n++;
        }
        for (uint32_t i = 0; i < s->nruns; i++) run_free(&s->runs[i]);
        tn_free(s->runs);
        s->runs = next;
        s->nruns = n;
        s->cap = groups + 1;
        k = fanin(s);
    }
    return rc;
}

static void release_extent(tn_sort_spill *s, const tn_spill_extent *e) { tn_spill_file_punch(s->file, e); }

/* ---------------------------------------------------------------------------------------------
 * The output source.
 */
typedef struct merge_src {
    tn_sort_spill *s;
    merger m;
    tn_chunk out;
    int64_t skip, left;        /* rows still to drop, rows still to emit (-1: all) */
} merge_src;

static int src_read(tn_source *src, tn_pipeline *p, uint32_t morsel, uint32_t worker) {
    merge_src *ms = src->shared;
    int rc = 0;
    while (ms->skip > 0 && ms->m.hn && !rc) {
        tn_chunk_reset(&ms->out);
        uint32_t n = ms->skip < TN_VECTOR_SIZE ? (uint32_t)ms->skip : TN_VECTOR_SIZE;
        rc = merger_fill(&ms->m, &ms->out, n);
        ms->skip -= ms->out.count;
        if (!rc) rc = tn_exec_check(p->ex);
    }
    if (rc || ms->left == 0) return rc;
    tn_chunk_reset(&ms->out);
    uint32_t n = ms->left >= 0 && ms->left < TN_VECTOR_SIZE ? (uint32_t)ms->left : TN_VECTOR_SIZE;
    rc = merger_fill(&ms->m, &ms->out, n);
    if (rc || !ms->out.count) return rc;
    if (ms->left > 0) ms->left -= ms->out.count;
    return tn_pipe_push(p, 0, worker, &ms->out);
}

static void src_free(tn_source *src) {
    merge_src *ms = src->shared;
    if (!ms) return;
    merger_free(&ms->m);
    if (ms->out.cols) tn_chunk_free(&ms->out);
    tn_sort_spill_free(ms->s);
    tn_free(ms);
    src->shared = NULL;
}

int tn_sort_spill_source(tn_sort_spill *s, tn_plan *node, int64_t skip, int64_t limit, tn_source *out) {
    memset(out, 0, sizeof *out);
    merge_src *ms = tn_calloc(1, sizeof *ms);
    if (!ms) {
        tn_sort_spill_free(s);
        return TN_ENOMEM;
    }
    ms->s = s;
    ms->skip = skip > 0 ? skip : 0;
    ms->left = limit;
    out->name = "SORT_MERGE";
    out->node = node;
    out->shared = ms;
    out->read = src_read;
    out->free = src_free;
    int rc = reduce_runs(s);
    if (!rc) rc = tn_chunk_init(&ms->out, node->ncols, node->types, TN_VECTOR_SIZE);
    if (!rc) {
        uint32_t n = s->nruns;
        rc = merger_open(&ms->m, s, s->runs, n);
        s->nruns = 0;
    }
    if (rc) {
        src_free(out);
        memset(out, 0, sizeof *out);
        return rc;
    }
    uint64_t rows = s->rows > (uint64_t)ms->skip ? s->rows - (uint64_t)ms->skip : 0;
    if (limit >= 0 && (uint64_t)limit < rows) rows = (uint64_t)limit;
    out->nmorsels = (uint32_t)((rows + TN_VECTOR_SIZE - 1) / TN_VECTOR_SIZE);
    return 0;
}
