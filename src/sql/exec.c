/*
 * sql/exec.c: the executor's driver: chunk collections, vector helpers (gather, append, hash,
 * compare), running pipelines on the thread pool, the collecting sink (keeps morsel order),
 * and tn_exec_run, which turns a logical plan into pipelines: scans, filters, projections and
 * join probes stream; aggregates, sorts, set operations and join build sides materialize.
 * Streaming results (stmt.h, end of file): a plan of streaming operators runs on a producer
 * thread and hands its chunks over in order through a bounded queue.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"
#include "sql/stmt.h"

/* ---------------------------------------------------------------------------------------------
 * Memory accounting.
 */
int tn_exec_mem(tn_exec *ex, int64_t delta) {
    if (!ex) return 0;
    uint64_t now = __atomic_add_fetch(&ex->memory_used, (uint64_t)delta, __ATOMIC_RELAXED);
    if (delta > 0 && ex->memory_limit && now > ex->memory_limit)
        return tn_error_set(TN_ELIMIT, "Out of Memory Error: the query needs more than the memory limit "
                            "of %.1f MiB (SET memory_limit to raise it)", (double)ex->memory_limit / 1048576.0);
    return 0;
}

static inline uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static inline uint64_t hash_double(double d) {
    if (d == 0) d = 0;            /* -0.0 == 0.0 */
    if (d != d) return 0x7ff8000000000000ULL;
    uint64_t u;
    memcpy(&u, &d, 8);
    return mix(u);
}

/* Strings of dictionary-encoded columns repeat the same pointer: a per-thread cache keyed by
 * (pointer, length), valid for one call (generation stamps), skips hashing the bytes again. */
#define HCACHE_SIZE 1024
typedef struct hcache_entry {
    const char *p;
    uint32_t len, gen;
    uint64_t h;
} hcache_entry;
static _Thread_local hcache_entry hcache[HCACHE_SIZE];
static _Thread_local uint32_t hcache_gen;

static void hash_strings(const tn_vector *v, uint32_t n, uint64_t *h, bool init) {
    const uint64_t null_hash = 0xbf58476d1ce4e5b9ULL;
    bool use_cache = n >= 64;   /* small calls (one row) hash directly */
    if (use_cache && ++hcache_gen == 0) {
        memset(hcache, 0, sizeof hcache);
        hcache_gen = 1;
    }
    uint32_t gen = hcache_gen;
    const tn_str *d = v->data;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t tmp;
        if (!tn_vector_is_valid(v, i)) tmp = null_hash;
        else {
            const tn_str *s = &d[i];
            if (!use_cache) tmp = tn_hash_bytes(s->ptr, s->len, 0);
            else {
                uint32_t slot = (uint32_t)((((uintptr_t)s->ptr ^ s->len) * 0x9E3779B97F4A7C15ULL) >> 54);
                hcache_entry *e = &hcache[slot];
                if (e->gen == gen && e->p == s->ptr && e->len == s->len) tmp = e->h;
                else {
                    tmp = tn_hash_bytes(s->ptr, s->len, 0);
                    e->p = s->ptr;
                    e->len = s->len;
                    e->gen = gen;
                    e->h = tmp;
                }
            }
        }
        h[i] = init ? tmp : mix(h[i] * 31 + tmp);
    }
}

/* INTERVALs compare and group by their normalized length, as DuckDB does (1 month = 30 days,
 * 1 day = 24 hours: '1 month' and '30 days' are one group), like the comparison functions of
 * func_interval.c. */
#define IV_US_PER_DAY 86400000000LL
static inline tn_int128 iv_norm(const tn_vector *v, uint32_t i) {
    const tn_interval *x = &((const tn_interval *)v->data)[i];
    return ((tn_int128)x->months * 30 + x->days) * IV_US_PER_DAY + x->micros;
}

/* The hash of one element (row i of v) of a nested value, recursively: equal values (under
 * tn_vector_cmp_rows) hash equal. */
static uint64_t nested_row_hash(const tn_vector *v, uint32_t i) {
    const uint64_t null_hash = 0xbf58476d1ce4e5b9ULL;
    if (v->type.id == TN_TYPE_NULL || !tn_vector_is_valid(v, i)) return null_hash;
    if (!tn_type_is_nested(v->type)) {
        tn_vector one = *v;
        size_t w = tn_type_width(v->type);
        if (one.data) one.data = (uint8_t *)one.data + (size_t)i * w;
        one.validity = NULL;
        one.count = 1;
        uint64_t h;
        tn_vector_hash(&one, 1, &h, true);
        return h;
    }
    uint64_t h = mix((uint64_t)v->type.id * 0x9E3779B97F4A7C15ULL);
    if (v->type.id == TN_TYPE_STRUCT) {
        for (uint32_t f = 0; f < v->type.nested->nchildren; f++) h = mix(h * 31 + nested_row_hash(&v->children[f], i));
        return h;
    }
    tn_list_entry e = ((const tn_list_entry *)v->data)[i];
    h = mix(h ^ e.length);
    for (uint32_t k = 0; k < e.length; k++) h = mix(h * 31 + nested_row_hash(&v->children[0], e.offset + k));
    return h;
}

void tn_vector_hash(const tn_vector *v, uint32_t n, uint64_t *h, bool init) {
    const uint64_t null_hash = 0xbf58476d1ce4e5b9ULL;
    uint64_t tmp;
    if (tn_type_is_nested(v->type)) {
        for (uint32_t i = 0; i < n; i++) {
            tmp = nested_row_hash(v, i);
            h[i] = init ? tmp : mix(h[i] * 31 + tmp);
        }
        return;
    }
    if (tn_type_is_string(v->type)) {
        hash_strings(v, n, h, init);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (v->type.id == TN_TYPE_NULL || !tn_vector_is_valid(v, i)) tmp = null_hash;
        else switch (v->type.id) {
            case TN_TYPE_BOOLEAN:
            case TN_TYPE_TINYINT: tmp = mix((uint64_t)(int64_t)((const int8_t *)v->data)[i]); break;
            case TN_TYPE_SMALLINT: tmp = mix((uint64_t)(int64_t)((const int16_t *)v->data)[i]); break;
            case TN_TYPE_INTEGER:
            case TN_TYPE_DATE: tmp = mix((uint64_t)(int64_t)((const int32_t *)v->data)[i]); break;
            case TN_TYPE_FLOAT: tmp = hash_double(((const float *)v->data)[i]); break;
            case TN_TYPE_DOUBLE: tmp = hash_double(((const double *)v->data)[i]); break;
            case TN_TYPE_VARCHAR:
            case TN_TYPE_VARBINARY: {
                const tn_str *s = &((const tn_str *)v->data)[i];
                tmp = tn_hash_bytes(s->ptr, s->len, 0);
                break;
            }
            case TN_TYPE_DECIMAL:
                if (v->type.precision > TN_DECIMAL_INT64_MAX_PRECISION) {
                    tn_int128 x = ((const tn_int128 *)v->data)[i];
                    tmp = mix((uint64_t)x ^ mix((uint64_t)(x >> 64)));
                } else tmp = mix((uint64_t)((const int64_t *)v->data)[i]);
                break;
            case TN_TYPE_INTERVAL: {
                tn_int128 x = iv_norm(v, i);
                tmp = mix((uint64_t)x ^ mix((uint64_t)(x >> 64)));
                break;
            }
            default: tmp = mix((uint64_t)((const int64_t *)v->data)[i]); break;
            }
        h[i] = init ? tmp : mix(h[i] * 31 + tmp);
    }
}

static inline int cmp_d(double a, double b) {
    bool an = a != a, bn = b != b;
    if (an || bn) return an == bn ? 0 : an ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
}

int tn_vector_cmp_rows(const tn_vector *a, uint32_t ia, const tn_vector *b, uint32_t ib) {
    switch (a->type.id) {
    case TN_TYPE_BOOLEAN: {
        int x = ((const uint8_t *)a->data)[ia] != 0, y = ((const uint8_t *)b->data)[ib] != 0;
        return x - y;
    }
    case TN_TYPE_TINYINT: {
        int8_t x = ((const int8_t *)a->data)[ia], y = ((const int8_t *)b->data)[ib];
        return (x > y) - (x < y);
    }
    case TN_TYPE_SMALLINT: {
        int16_t x = ((const int16_t *)a->data)[ia], y = ((const int16_t *)b->data)[ib];
        return (x > y) - (x < y);
    }
    case TN_TYPE_INTEGER:
    case TN_TYPE_DATE: {
        int32_t x = ((const int32_t *)a->data)[ia], y = ((const int32_t *)b->data)[ib];
        return (x > y) - (x < y);
    }
    case TN_TYPE_FLOAT: return cmp_d(((const float *)a->data)[ia], ((const float *)b->data)[ib]);
    case TN_TYPE_DOUBLE: return cmp_d(((const double *)a->data)[ia], ((const double *)b->data)[ib]);
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: {
        const tn_str *x = &((const tn_str *)a->data)[ia], *y = &((const tn_str *)b->data)[ib];
        uint32_t m = x->len < y->len ? x->len : y->len;
        int c = m ? memcmp(x->ptr, y->ptr, m) : 0;
        if (c) return c < 0 ? -1 : 1;
        return (x->len > y->len) - (x->len < y->len);
    }
    case TN_TYPE_INTERVAL: {
        tn_int128 x = iv_norm(a, ia), y = iv_norm(b, ib);
        return (x > y) - (x < y);
    }
    case TN_TYPE_DECIMAL:
        if (a->type.precision > TN_DECIMAL_INT64_MAX_PRECISION) {
            tn_int128 x = ((const tn_int128 *)a->data)[ia], y = ((const tn_int128 *)b->data)[ib];
            return (x > y) - (x < y);
        }
        /* fall through */
    default: {
        int64_t x = ((const int64_t *)a->data)[ia], y = ((const int64_t *)b->data)[ib];
        return (x > y) - (x < y);
    }
    case TN_TYPE_NULL: return 0;
    case TN_TYPE_LIST:
    case TN_TYPE_STRUCT:
    case TN_TYPE_MAP: {
        tn_value x, y;
        tn_vector_get_value(a, ia, &x);
        tn_vector_get_value(b, ib, &y);
        return tn_value_compare(&x, &y);
    }
    }
}

bool tn_vector_eq_rows(const tn_vector *a, uint32_t ia, const tn_vector *b, uint32_t ib) {
    switch (a->type.id) {
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: {
        const tn_str *x = &((const tn_str *)a->data)[ia], *y = &((const tn_str *)b->data)[ib];
        if (x->len != y->len) return false;
        if (x->ptr == y->ptr || x->len == 0) return true;
        if (x->len <= 16) {
            for (uint32_t k = 0; k < x->len; k++)
                if (x->ptr[k] != y->ptr[k]) return false;
            return true;
        }
        return memcmp(x->ptr, y->ptr, x->len) == 0;
    }
    case TN_TYPE_BIGINT:
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ:
        return ((const int64_t *)a->data)[ia] == ((const int64_t *)b->data)[ib];
    default: return tn_vector_cmp_rows(a, ia, b, ib) == 0;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Collections.
 */
int tn_collection_init(tn_collection *c, uint32_t ncols, const tn_type *types) {
    memset(c, 0, sizeof *c);
    c->ncols = ncols;
    c->types = tn_malloc((ncols + 1) * sizeof *c->types);
    if (!c->types) return TN_ENOMEM;
    if (ncols) memcpy(c->types, types, ncols * sizeof *types);
    return 0;
}

void tn_collection_free(tn_collection *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->nchunks; i++) tn_chunk_free(&c->chunks[i]);
    tn_free(c->chunks);
    tn_free(c->types);
    memset(c, 0, sizeof *c);
}

static int coll_new_chunk(tn_collection *c) {
    if (c->nchunks == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 8;
        tn_chunk *n = tn_realloc(c->chunks, cap * sizeof *n);
        if (!n) return TN_ENOMEM;
        c->chunks = n;
        c->cap = cap;
    }
    tn_chunk *ch = &c->chunks[c->nchunks];
    memset(ch, 0, sizeof *ch);
    int rc = tn_chunk_init(ch, c->ncols, c->types, TN_VECTOR_SIZE);
    if (rc) return rc;
    c->nchunks++;
    return 0;
}

int tn_collection_append(tn_collection *c, const tn_chunk *src, const uint32_t *sel, uint32_t n) {
    uint32_t done = 0;
    while (done < n) {
        if (c->nchunks == 0 || c->chunks[c->nchunks - 1].count >= TN_VECTOR_SIZE) {
            int rc = coll_new_chunk(c);
            if (rc) return rc;
        }
        tn_chunk *dst = &c->chunks[c->nchunks - 1];
        uint32_t room = TN_VECTOR_SIZE - dst->count;
        uint32_t take = n - done < room ? n - done : room;
        uint32_t tmp[TN_VECTOR_SIZE];
        const uint32_t *s = sel ? sel + done : NULL;
        if (!sel && done) {
            for (uint32_t i = 0; i < take; i++) tmp[i] = done + i;
            s = tmp;
        }
        for (uint32_t k = 0; k < c->ncols; k++) {
            int rc = tn_vector_append_rows(&dst->cols[k], &src->cols[k], s, take);
            if (rc) return rc;
        }
        dst->count += take;
        done += take;
    }
    c->nrows += n;
    return 0;
}

int tn_collection_move(tn_collection *dst, tn_collection *src) {
    for (uint32_t i = 0; i < src->nchunks; i++) {
        if (src->chunks[i].count == 0) {
            tn_chunk_free(&src->chunks[i]);
            continue;
        }
        if (dst->nchunks == dst->cap) {
            uint32_t cap = dst->cap ? dst->cap * 2 : 8;
            while (cap < dst->nchunks + 1) cap *= 2;
            tn_chunk *n = tn_realloc(dst->chunks, cap * sizeof *n);
            if (!n) return TN_ENOMEM;
            dst->chunks = n;
            dst->cap = cap;
        }
        dst->chunks[dst->nchunks++] = src->chunks[i];
    }
    dst->nrows += src->nrows;
    dst->bytes += src->bytes;
    tn_free(src->chunks);
    src->chunks = NULL;
    src->nchunks = src->cap = 0;
    src->nrows = 0;
    src->bytes = 0;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Pipelines.
 */
int tn_pipe_push(tn_pipeline *p, uint32_t stage, uint32_t worker, const tn_chunk *chunk) {
    if (chunk->count == 0) return 0;
    int rc = tn_exec_check(p->ex);            /* every chunk of every pipeline */
    if (rc) return rc;
    if (stage == 0 && p->source.node)
        __atomic_add_fetch(&p->source.node->rows_out, chunk->count, __ATOMIC_RELAXED);
    if (stage == p->nops) {
        return p->sink->consume(p->sink, p->sink_states[worker], p->cur_morsel[worker], chunk);
    }
    tn_op *op = p->ops[stage];
    if (op->node) __atomic_add_fetch(&op->node->rows_out, chunk->count, __ATOMIC_RELAXED);
    return op->execute(op, p->op_states[worker][stage], p, stage, worker, chunk);
}

static int worker_setup(tn_pipeline *p, uint32_t w) {
    if (p->op_states[w]) return 0;
    void **st = tn_calloc(p->nops + 1, sizeof *st);
    if (!st) return TN_ENOMEM;
    p->op_states[w] = st;
    for (uint32_t i = 0; i < p->nops; i++)
        if (p->ops[i]->worker_init) {
            int rc = p->ops[i]->worker_init(p->ops[i], &st[i]);
            if (rc) return rc;
        }
    if (p->sink->worker_init) return p->sink->worker_init(p->sink, &p->sink_states[w]);
    return 0;
}

static int pipe_task(void *ctx, uint32_t task, uint32_t worker) {
    tn_pipeline *p = ctx;
    if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) return 0;
    int rc = tn_exec_check(p->ex);            /* every morsel */
    if (!rc) rc = worker_setup(p, worker);
    if (rc) return rc;
    p->cur_morsel[worker] = task;
    uint64_t t0 = p->ex->analyze ? tn_time_ns() : 0;
    rc = p->source.read(&p->source, p, task, worker);
    if (p->ex->analyze && p->source.node)
        __atomic_add_fetch(&p->source.node->time_ns, tn_time_ns() - t0, __ATOMIC_RELAXED);
    if (rc == TN_EXEC_STOP) {
        __atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
        rc = 0;
    }
    return rc;
}

int tn_pipe_run(tn_pipeline *p) {
    uint32_t nw = p->sequential ? 1 : p->ex->nworkers;
    if (nw == 0) nw = 1;
    int rc = 0;
    p->op_states = tn_calloc(nw, sizeof *p->op_states);
    p->sink_states = tn_calloc(nw, sizeof *p->sink_states);
    p->cur_morsel = tn_calloc(nw, sizeof *p->cur_morsel);
    if (!p->op_states || !p->sink_states || !p->cur_morsel) { rc = TN_ENOMEM; goto cleanup; }
    if (p->sequential || nw == 1 || p->source.nmorsels <= 1 || !p->ex->pool) {
        for (uint32_t m = 0; m < p->source.nmorsels && !rc && !p->stop; m++) rc = pipe_task(p, m, 0);
    } else {
        rc = tn_pool_run(p->ex->pool, p->source.nmorsels, pipe_task, p);
    }
    if (!rc) rc = tn_exec_check(p->ex);
    if (rc) goto cleanup;
    /* operators with rows left to emit (RIGHT / FULL joins) run on worker 0's state */
    for (uint32_t i = 0; i < p->nops && !rc; i++)
        if (p->ops[i]->finish) {
            rc = worker_setup(p, 0);
            if (!rc) rc = p->ops[i]->finish(p->ops[i], p, i);
            if (rc == TN_EXEC_STOP) rc = 0;
        }
    if (rc) goto cleanup;
    if (!p->sink_states[0] && p->sink->worker_init) rc = worker_setup(p, 0);
    if (!rc) rc = p->sink->combine(p->sink, p->sink_states, nw);
cleanup:
    for (uint32_t w = 0; p->op_states && w < nw; w++) {
        if (p->op_states[w]) {
            for (uint32_t i = 0; i < p->nops; i++)
                if (p->ops[i]->worker_free && p->op_states[w][i]) p->ops[i]->worker_free(p->ops[i], p->op_states[w][i]);
            tn_free(p->op_states[w]);
        }
        if (p->sink_states && p->sink_states[w] && p->sink->worker_free) p->sink->worker_free(p->sink, p->sink_states[w]);
    }
    tn_free(p->op_states);
    tn_free(p->sink_states);
    tn_free(p->cur_morsel);
    p->op_states = NULL;
    p->sink_states = NULL;
    p->cur_morsel = NULL;
    return rc;
}

static void pipe_free(tn_pipeline *p) {
    for (uint32_t i = 0; i < p->nops; i++)
        if (p->ops[i]) {
            if (p->ops[i]->free) p->ops[i]->free(p->ops[i]);
            tn_free(p->ops[i]);
        }
    p->nops = 0;
    if (p->source.free) p->source.free(&p->source);
    memset(&p->source, 0, sizeof p->source);
}

/* ---------------------------------------------------------------------------------------------
 * The collecting sink: per worker, one collection per morsel; combined in morsel order.
 */
typedef struct collect_part {
    uint32_t morsel;
    tn_collection c;
} collect_part;

typedef struct collect_local {
    collect_part *parts;
    uint32_t n, cap;
} collect_local;

typedef struct collect_shared {
    tn_exec *ex;
    uint32_t ncols;
    tn_type *types;
    tn_collection *result;
} collect_shared;

static int collect_init(tn_sink *s, void **state) {
    *state = tn_calloc(1, sizeof(collect_local));
    return *state ? 0 : TN_ENOMEM;
}

static void collect_free_local(tn_sink *s, void *state) {
    collect_local *l = state;
    for (uint32_t i = 0; i < l->n; i++) tn_collection_free(&l->parts[i].c);
    tn_free(l->parts);
    tn_free(l);
}

static int collect_consume(tn_sink *s, void *state, uint32_t morsel, const tn_chunk *in) {
    collect_shared *sh = s->shared;
    collect_local *l = state;
    if (l->n == 0 || l->parts[l->n - 1].morsel != morsel) {
        if (l->n == l->cap) {
            uint32_t cap = l->cap ? l->cap * 2 : 8;
            collect_part *np = tn_realloc(l->parts, cap * sizeof *np);
            if (!np) return TN_ENOMEM;
            l->parts = np;
            l->cap = cap;
        }
        collect_part *pt = &l->parts[l->n];
        int rc = tn_collection_init(&pt->c, sh->ncols, sh->types);
        if (rc) return rc;
        pt->morsel = morsel;
        l->n++;
    }
    tn_collection *c = &l->parts[l->n - 1].c;
    uint32_t before = c->nchunks;
    int rc = tn_collection_append(c, in, NULL, in->count);
    if (rc) return rc;
    if (c->nchunks != before) return tn_exec_mem(sh->ex, (int64_t)(c->nchunks - before) * TN_VECTOR_SIZE * 16 * (sh->ncols + 1));
    return 0;
}

static int part_cmp(const void *a, const void *b) {
    const collect_part *x = *(const collect_part *const *)a, *y = *(const collect_part *const *)b;
    return (x->morsel > y->morsel) - (x->morsel < y->morsel);
}

static int collect_combine(tn_sink *s, void **states, uint32_t n) {
    collect_shared *sh = s->shared;
    uint32_t total = 0;
    for (uint32_t w = 0; w < n; w++)
        if (states[w]) total += ((collect_local *)states[w])->n;
    collect_part **all = tn_malloc((total + 1) * sizeof *all);
    if (!all) return TN_ENOMEM;
    uint32_t k = 0;
    for (uint32_t w = 0; w < n; w++) {
        collect_local *l = states[w];
        if (!l) continue;
        for (uint32_t i = 0; i < l->n; i++) all[k++] = &l->parts[i];
    }
    qsort(all, k, sizeof *all, part_cmp);
    int rc = 0;
    for (uint32_t i = 0; i < k && !rc; i++) rc = tn_collection_move(sh->result, &all[i]->c);
    tn_free(all);
    return rc;
}

static void collect_free_shared(tn_sink *s) {
    collect_shared *sh = s->shared;
    if (!sh) return;
    tn_free(sh->types);
    tn_free(sh);
}

int tn_sink_collect(tn_exec *ex, uint32_t ncols, const tn_type *types, tn_collection *result,
                    tn_sink **out) {
    tn_sink *s = tn_calloc(1, sizeof *s);
    collect_shared *sh = tn_calloc(1, sizeof *sh);
    if (!s || !sh) { tn_free(s); tn_free(sh); return TN_ENOMEM; }
    sh->ex = ex;
    sh->ncols = ncols;
    sh->types = tn_malloc((ncols + 1) * sizeof *sh->types);
    if (!sh->types) { tn_free(s); tn_free(sh); return TN_ENOMEM; }
    if (ncols) memcpy(sh->types, types, ncols * sizeof *types);
    sh->result = result;
    s->name = "COLLECT";
    s->shared = sh;
    s->worker_init = collect_init;
    s->worker_free = collect_free_local;
    s->consume = collect_consume;
    s->combine = collect_combine;
    s->free_shared = collect_free_shared;
    int rc = tn_collection_init(result, ncols, types);
    if (rc) { tn_free(sh->types); tn_free(sh); tn_free(s); return rc; }
    *out = s;
    return 0;
}

void tn_sink_destroy(tn_sink *sink) {
    if (!sink) return;
    if (sink->free_shared) sink->free_shared(sink);
    else tn_free(sink->shared);
    tn_free(sink);
}

/* ---------------------------------------------------------------------------------------------
 * Plan -> pipelines.
 */
/* The rows the scans of plan will read (what the sources hold, known once bound), added to
 * ex->progress_rows before the plan runs so a progress bar's total is right from the start
 * (the scans' own table_rows grow only as each opens, which a join's probe side does late). */
static void note_plan_rows(tn_exec *ex, const tn_plan *p) {
    if (!p) return;
    if (p->kind == TN_PLAN_SCAN && p->u.scan.total_rows > 0)
        __atomic_add_fetch(&ex->progress_rows, (uint64_t)p->u.scan.total_rows, __ATOMIC_RELAXED);
    note_plan_rows(ex, p->child[0]);
    note_plan_rows(ex, p->child[1]);
}

static int run_into(tn_exec *ex, tn_plan *node, tn_sink *sink);

static int add_op(tn_pipeline *p, tn_op *op) {
    if (p->nops >= TN_PIPE_MAX_OPS) {
        if (op->free) op->free(op);
        tn_free(op);
        return tn_error_set(TN_ELIMIT, "query too complex: more than %d operators in a pipeline", TN_PIPE_MAX_OPS);
    }
    p->ops[p->nops++] = op;
    return 0;
}

static void cte_result_free(void *result) {
    tn_collection_free(result);
    tn_free(result);
}

/* A CTE leaf (optimize_cte.c): the definition's rows, computed by the first leaf to run and
 * kept with the definition for the statement's other leaves. */
static int cte_source(tn_exec *ex, tn_plan *node, tn_pipeline *p) {
    tn_plan_cte *def = node->u.cte.def;
    int rc = 0;
    if (!def->result) {
        if (!def->plan) return tn_error_set(TN_EINTERNAL, "CTE %s: no definition to compute", def->name);
        if (!def->optimized) {
            def->optimized = true;
            if ((rc = tn_optimize(&def->plan, def->arena))) return rc;
        }
        tn_collection *res = tn_calloc(1, sizeof *res);
        if (!res) return TN_ENOMEM;
        tn_sink *sink = NULL;
        uint64_t t0 = tn_time_ns();
        rc = tn_sink_collect(ex, def->plan->ncols, def->plan->types, res, &sink);
        if (!rc) rc = run_into(ex, def->plan, sink);
        tn_sink_destroy(sink);
        if (ex->analyze) node->time_ns += tn_time_ns() - t0;
        if (rc) {
            tn_collection_free(res);
            tn_free(res);
            return rc;
        }
        def->result = res;
        def->result_free = cte_result_free;
        def->result_rows = res->nrows;
    }
    rc = tn_op_collection_source(ex, node, def->result, false, &p->source);
    return rc;
}

/* Builds p so that it produces node's output. */
static int build(tn_exec *ex, tn_plan *node, tn_pipeline *p) {
    int rc = 0;
    tn_op *op = NULL;
    switch (node->kind) {
    case TN_PLAN_SCAN:
        if (node->u.scan.format == TN_SCAN_DELTA) return tn_op_table_scan_source(ex, node, &p->source);
        return tn_op_scan_source(ex, node, &p->source);
    case TN_PLAN_VALUES: return tn_op_values_source(ex, node, &p->source);
    case TN_PLAN_CTE: return cte_source(ex, node, p);
    case TN_PLAN_FILTER:
        rc = build(ex, node->child[0], p);
        if (!rc) rc = tn_op_filter(ex, node, &op);
        if (!rc) rc = add_op(p, op);
        return rc;
    case TN_PLAN_PROJECT:
        rc = build(ex, node->child[0], p);
        if (!rc) rc = tn_op_project(ex, node, &op);
        if (!rc) rc = add_op(p, op);
        return rc;
    case TN_PLAN_UNNEST:
        rc = build(ex, node->child[0], p);
        if (!rc) rc = tn_op_unnest(ex, node, &op);
        if (!rc) rc = add_op(p, op);
        return rc;
    case TN_PLAN_LIMIT:
        rc = build(ex, node->child[0], p);
        if (!rc) rc = tn_op_limit(ex, node, &op);
        if (!rc) rc = add_op(p, op);
        p->sequential = true;
        return rc;
    case TN_PLAN_JOIN: {
        bool bl = node->u.join.build_left;
        tn_plan *bnode = node->child[bl ? 0 : 1], *pnode = node->child[bl ? 1 : 0];
        tn_collection bc;
        tn_sink *sink = NULL;
        rc = tn_sink_collect(ex, bnode->ncols, bnode->types, &bc, &sink);
        if (rc) return rc;
        rc = run_into(ex, bnode, sink);
        tn_sink_destroy(sink);
        tn_join_table *jt = NULL;
        if (!rc) rc = tn_join_build(ex, node, &bc, bl, &jt);   /* takes bc */
        else tn_collection_free(&bc);
        if (!rc) rc = tn_join_scan_filter(jt, pnode);
        if (rc) { tn_join_table_free(jt); return rc; }
        rc = build(ex, pnode, p);
        if (rc) { tn_join_table_free(jt); return rc; }
        rc = tn_op_join_probe(ex, node, jt, &op);               /* takes jt */
        if (!rc) rc = add_op(p, op);
        return rc;
    }
    case TN_PLAN_AGGREGATE:
    case TN_PLAN_SORT:
    case TN_PLAN_WINDOW:
    case TN_PLAN_SETOP: {
        tn_collection *res = tn_calloc(1, sizeof *res);
        if (!res) return TN_ENOMEM;
        uint64_t t0 = tn_time_ns();
        if (node->kind == TN_PLAN_SETOP) {
            rc = tn_collection_init(res, node->ncols, node->types);
            tn_collection side[2];
            memset(side, 0, sizeof side);
            for (int s = 0; s < 2 && !rc; s++) {
                tn_sink *sink = NULL;
                rc = tn_sink_collect(ex, node->ncols, node->types, &side[s], &sink);
                if (!rc) rc = run_into(ex, node->child[s], sink);
                tn_sink_destroy(sink);
            }
            if (!rc) {
                tn_sink *sink = NULL;
                tn_collection_free(res);
                rc = tn_sink_setop(ex, node, res, &sink);
                if (!rc) {
                    /* feed both sides through the set-operation sink: morsel 0 = left, 1 = right */
                    void *st = NULL;
                    rc = sink->worker_init(sink, &st);
                    for (int s = 0; s < 2 && !rc; s++)
                        for (uint32_t i = 0; i < side[s].nchunks && !rc; i++) {
                            rc = tn_exec_check(ex);
                            if (!rc) rc = sink->consume(sink, st, (uint32_t)s, &side[s].chunks[i]);
                        }
                    if (!rc) rc = sink->combine(sink, &st, 1);
                    if (st) sink->worker_free(sink, st);
                    tn_sink_destroy(sink);
                }
            }
            tn_collection_free(&side[0]);
            tn_collection_free(&side[1]);
        } else {
            tn_sink *sink = NULL;
            rc = node->kind == TN_PLAN_AGGREGATE ? tn_sink_aggregate(ex, node, res, &sink)
                 : node->kind == TN_PLAN_WINDOW  ? tn_sink_window(ex, node, res, &sink)  /* op_window.c */
                                                 : tn_sink_sort(ex, node, res, &sink);
            if (!rc) rc = run_into(ex, node->child[0], sink);
            tn_sort_spill *spill = !rc && node->kind == TN_PLAN_SORT ? tn_sink_sort_take_spill(sink) : NULL;
            if (!rc && node->kind == TN_PLAN_AGGREGATE) {
                /* a spilled GROUP BY: its output is a source finishing one partition per morsel */
                int got = tn_sink_aggregate_take_spill(sink, &p->source);
                if (got) {
                    tn_sink_destroy(sink);
                    if (ex->analyze) node->time_ns += tn_time_ns() - t0;
                    tn_collection_free(res);
                    tn_free(res);
                    return got < 0 ? got : 0;
                }
            }
            tn_sink_destroy(sink);
            if (spill) {
                /* the sort spilled: its output is the merge of its runs, read in order */
                if (ex->analyze) node->time_ns += tn_time_ns() - t0;
                tn_collection_free(res);
                tn_free(res);
                int64_t off = node->u.sort.offset > 0 ? node->u.sort.offset : 0;
                rc = tn_sort_spill_source(spill, node, off, node->u.sort.limit, &p->source);
                p->sequential = true;
                return rc;
            }
        }
        if (ex->analyze) node->time_ns += tn_time_ns() - t0;
        if (rc) {
            tn_collection_free(res);
            tn_free(res);
            return rc;
        }
        node->rows_out += (uint64_t)res->nrows;
        rc = tn_op_collection_source(ex, node, res, true, &p->source);
        if (rc) {
            tn_collection_free(res);
            tn_free(res);
        }
        p->source.node = NULL;   /* counted above */
        return rc;
    }
    }
    return tn_error_set(TN_EINTERNAL, "unknown plan node %d", (int)node->kind);
}

static int run_into(tn_exec *ex, tn_plan *node, tn_sink *sink) {
    tn_pipeline p;
    memset(&p, 0, sizeof p);
    p.ex = ex;
    p.sink = sink;
    int rc = build(ex, node, &p);
    if (!rc) rc = tn_pipe_run(&p);
    pipe_free(&p);
    return rc;
}

int tn_exec_run(tn_exec *ex, tn_plan *plan, tn_collection *out) {
    note_plan_rows(ex, plan);
    tn_sink *sink = NULL;
    memset(out, 0, sizeof *out);
    int rc = tn_sink_collect(ex, plan->ncols, plan->types, out, &sink);
    if (rc) return rc;
    rc = run_into(ex, plan, sink);
    tn_sink_destroy(sink);
    if (rc) tn_collection_free(out);
    return rc;
}

/* EXPLAIN ANALYZE: the rows are counted, not kept (a result past memory_limit runs too). */
static int count_consume(tn_sink *s, void *state, uint32_t morsel, const tn_chunk *in) {
    __atomic_add_fetch((int64_t *)s->shared, (int64_t)in->count, __ATOMIC_RELAXED);
    return 0;
}

static int count_combine(tn_sink *s, void **states, uint32_t n) { return 0; }

static void count_free_shared(tn_sink *s) {}

int tn_exec_run_count(tn_exec *ex, tn_plan *plan, int64_t *rows) {
    note_plan_rows(ex, plan);
    *rows = 0;
    tn_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.name = "COUNT";
    sink.shared = rows;
    sink.consume = count_consume;
    sink.combine = count_combine;
    sink.free_shared = count_free_shared;
    return run_into(ex, plan, &sink);
}

/* Runs plan into a caller's sink (stmt.h: INSERT writes through its own sink). */
int tn_exec_run_sink(tn_exec *ex, tn_plan *plan, tn_sink *sink) {
    note_plan_rows(ex, plan);
    return run_into(ex, plan, sink);
}

/* ---------------------------------------------------------------------------------------------
 * Streaming (stmt.h): a plan made only of streaming operators (scan, values, filter, project,
 * limit) runs on a producer thread while the consumer reads chunks. The producer's pipeline runs
 * as usual on the pool, into a sink that hands chunks over in morsel order through a bounded
 * queue:
 *   - the worker of the current morsel `cur` (the lowest one not finished; morsels are claimed
 *     in order, so some worker always holds it) appends to the queue, waiting while it is full;
 *   - workers of later morsels buffer their chunks per morsel, waiting while all such buffers
 *     together hold STREAM_PENDING_MAX chunks;
 *   - when morsel cur finishes, cur advances and the next morsel's buffer moves to the queue.
 * So memory is bounded by (queue + pending) chunks whatever the input size, rows keep their
 * order, and the consumer never waits on a worker that waits on it. An error stops the pool,
 * wakes every waiter and is handed to the consumer after the rows queued before it; freeing the
 * stream early cancels the producer (waiters return TN_EXEC_STOP).
 */
#define STREAM_QUEUE_MAX 8
#define STREAM_PENDING_MAX 16

typedef struct stream_item {
    struct stream_item *next;
    tn_chunk chunk;
} stream_item;

typedef struct stream_list {
    stream_item *head, *tail;
    uint32_t n;
} stream_list;

typedef struct stream_morsel {     /* a later morsel's buffered output */
    uint32_t morsel;
    bool done;
    stream_list chunks;
} stream_morsel;

struct tn_exec_stream {
    tn_exec *ex;
    tn_plan *plan;
    int64_t stmt_time;
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* guarded by mu */
    stream_list queue;
    stream_morsel *pend;
    uint32_t npend, pcap, pending_chunks;
    uint32_t cur;
    bool finished, cancel, failed;
    int rc;
    tn_error_state err;
    /* producer side */
    int (*orig_read)(tn_source *src, tn_pipeline *p, uint32_t morsel, uint32_t worker);
    /* consumer side */
    stream_item *out;                /* the chunk handed out last */
};

static bool list_empty(const stream_list *l) { return l->head == NULL; }

static void list_push(stream_list *l, stream_item *it) {
    it->next = NULL;
    if (l->tail) l->tail->next = it;
    else l->head = it;
    l->tail = it;
    l->n++;
}

static stream_item *list_pop(stream_list *l) {
    stream_item *it = l->head;
    if (!it) return NULL;
    l->head = it->next;
    if (!l->head) l->tail = NULL;
    l->n--;
    return it;
}

static void item_free(stream_item *it) {
    if (!it) return;
    if (it->chunk.cols) tn_chunk_free(&it->chunk);
    tn_free(it);
}

static void list_free(stream_list *l) {
    stream_item *it;
    while ((it = list_pop(l)) != NULL) item_free(it);
}

/* Appends list src to dst (src left empty). */
static void list_concat(stream_list *dst, stream_list *src) {
    if (!src->head) return;
    if (dst->tail) dst->tail->next = src->head;
    else dst->head = src->head;
    dst->tail = src->tail;
    dst->n += src->n;
    memset(src, 0, sizeof *src);
}

/* A copy of in (strings copied), made outside the lock. */
static int item_copy(tn_exec_stream *st, const tn_chunk *in, stream_item **out) {
    stream_item *it = tn_calloc(1, sizeof *it);
    if (!it) return TN_ENOMEM;
    int rc = tn_chunk_init(&it->chunk, st->plan->ncols, st->plan->types, in->count);
    for (uint32_t c = 0; c < st->plan->ncols && !rc; c++)
        rc = tn_vector_append_rows(&it->chunk.cols[c], &in->cols[c], NULL, in->count);
    if (rc) {
        item_free(it);
        return rc;
    }
    it->chunk.count = in->count;
    *out = it;
    return 0;
}

static stream_morsel *pend_find(tn_exec_stream *st, uint32_t morsel, bool add) {
    for (uint32_t i = 0; i < st->npend; i++)
        if (st->pend[i].morsel == morsel) return &st->pend[i];
    if (!add) return NULL;
    if (st->npend == st->pcap) {
        uint32_t cap = st->pcap ? st->pcap * 2 : 8;
        stream_morsel *n = tn_realloc(st->pend, cap * sizeof *n);
        if (!n) return NULL;
        st->pend = n;
        st->pcap = cap;
    }
    stream_morsel *m = &st->pend[st->npend++];
    memset(m, 0, sizeof *m);
    m->morsel = morsel;
    return m;
}

static void pend_remove(tn_exec_stream *st, stream_morsel *m) {
    st->pending_chunks -= m->chunks.n;
    list_free(&m->chunks);
    *m = st->pend[--st->npend];
}

/* Under mu: moves finished morsels from cur on, then the buffer of the new cur, to the queue. */
static void stream_advance(tn_exec_stream *st) {
    for (;;) {
        stream_morsel *m = pend_find(st, st->cur, false);
        if (!m) return;
        st->pending_chunks -= m->chunks.n;
        list_concat(&st->queue, &m->chunks);
        if (!m->done) return;
        pend_remove(st, m);
        st->cur++;
    }
}

static int stream_consume(tn_sink *sink, void *state, uint32_t morsel, const tn_chunk *in) {
    tn_exec_stream *st = sink->shared;
    stream_item *it = NULL;
    int rc = item_copy(st, in, &it);
    if (rc) return rc;
    pthread_mutex_lock(&st->mu);
    for (;;) {
        if (st->cancel || st->failed) {
            rc = TN_EXEC_STOP;
            break;
        }
        if (morsel == st->cur) {
            if (st->queue.n < STREAM_QUEUE_MAX) {
                list_push(&st->queue, it);
                it = NULL;
                pthread_cond_broadcast(&st->cv);
                break;
            }
        } else if (st->pending_chunks < STREAM_PENDING_MAX) {
            stream_morsel *m = pend_find(st, morsel, true);
            if (!m) { rc = TN_ENOMEM; break; }
            list_push(&m->chunks, it);
            it = NULL;
            st->pending_chunks++;
            break;
        }
        pthread_cond_wait(&st->cv, &st->mu);
    }
    pthread_mutex_unlock(&st->mu);
    item_free(it);
    return rc;
}

static int stream_combine(tn_sink *sink, void **states, uint32_t n) { return 0; }

/* The source's read, then: the morsel is finished. */
static int stream_read(tn_source *src, tn_pipeline *p, uint32_t morsel, uint32_t worker) {
    tn_exec_stream *st = p->sink->shared;
    int rc = st->orig_read(src, p, morsel, worker);
    pthread_mutex_lock(&st->mu);
    if (st->failed || st->cancel) {
        /* stopped by another morsel's error (or the consumer): its rows must not move up */
    } else if (rc >= 0 && morsel == st->cur) {
        st->cur++;
        stream_advance(st);
    } else if (rc >= 0) {
        stream_morsel *m = pend_find(st, morsel, true);
        if (m) m->done = true;
        else rc = TN_ENOMEM;
    }
    if (rc < 0) st->failed = true;          /* wakes the workers waiting for morsel cur */
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    return rc;
}

static void *stream_main(void *arg) {
    tn_exec_stream *st = arg;
    tn_func_set_statement_time(st->stmt_time);
    tn_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.name = "STREAM";
    sink.shared = st;
    sink.consume = stream_consume;
    sink.combine = stream_combine;
    tn_pipeline p;
    memset(&p, 0, sizeof p);
    p.ex = st->ex;
    p.sink = &sink;
    int rc = build(st->ex, st->plan, &p);
    if (!rc) {
        st->orig_read = p.source.read;
        p.source.read = stream_read;
        rc = tn_pipe_run(&p);
    }
    pipe_free(&p);              /* sources count their --stats when freed */
    pthread_mutex_lock(&st->mu);
    if (rc < 0 && !st->cancel) {
        st->rc = rc;
        tn_error_save(&st->err);
    }
    st->finished = true;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    return NULL;
}

bool tn_exec_streamable(const tn_plan *plan) {
    switch (plan->kind) {
    case TN_PLAN_SCAN:
    case TN_PLAN_VALUES: return true;
    case TN_PLAN_FILTER:
    case TN_PLAN_PROJECT:
    case TN_PLAN_UNNEST:
    case TN_PLAN_LIMIT: return tn_exec_streamable(plan->child[0]);
    default: return false;
    }
}

bool tn_exec_sort_rooted(const tn_plan *plan) {
    while (plan->kind == TN_PLAN_PROJECT || plan->kind == TN_PLAN_FILTER || plan->kind == TN_PLAN_LIMIT)
        plan = plan->child[0];
    return plan->kind == TN_PLAN_SORT;
}

bool tn_exec_group_rooted(const tn_plan *plan) {
    while (plan->kind == TN_PLAN_PROJECT || plan->kind == TN_PLAN_FILTER || plan->kind == TN_PLAN_LIMIT)
        plan = plan->child[0];
    return plan->kind == TN_PLAN_AGGREGATE && plan->u.agg.ngroups > 0;
}

bool tn_exec_small(const tn_plan *plan) {
    switch (plan->kind) {
    case TN_PLAN_SORT:   /* a small top-N, or the sort of a small input */
        return (plan->u.sort.limit >= 0 && plan->u.sort.limit + plan->u.sort.offset <= TN_EXEC_SMALL_ROWS) ||
               tn_exec_small(plan->child[0]);
    case TN_PLAN_SCAN: return plan->u.scan.total_rows >= 0 && plan->u.scan.total_rows <= TN_EXEC_SMALL_ROWS;
    case TN_PLAN_VALUES:
        return plan->u.values.is_range ? !plan->u.values.range_ts && plan->u.values.range_count <= TN_EXEC_SMALL_ROWS
                                       : plan->u.values.nrows <= TN_EXEC_SMALL_ROWS;
    case TN_PLAN_FILTER:
    case TN_PLAN_PROJECT:
    case TN_PLAN_LIMIT: return tn_exec_small(plan->child[0]);
    default: return false;
    }
}

int tn_exec_stream_start(tn_exec_stream **out, tn_exec *ex, tn_plan *plan) {
    *out = NULL;
    note_plan_rows(ex, plan);
    tn_exec_stream *st = tn_calloc(1, sizeof *st);
    if (!st) return TN_ENOMEM;
    st->ex = ex;
    st->plan = plan;
    st->stmt_time = tn_func_statement_time();
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->cv, NULL);
    if (pthread_create(&st->thread, NULL, stream_main, st) != 0) {
        tn_exec_stream_free(st);
        return tn_error_set(TN_ENOMEM, "cannot start the query's producer thread");
    }
    st->started = true;
    /* Wait for the first chunk (or the end), so that errors before any row reach the caller. */
    pthread_mutex_lock(&st->mu);
    while (list_empty(&st->queue) && !st->finished) pthread_cond_wait(&st->cv, &st->mu);
    int rc = list_empty(&st->queue) && st->finished ? st->rc : 0;
    pthread_mutex_unlock(&st->mu);
    if (rc) {
        tn_error_restore(&st->err);
        tn_exec_stream_free(st);
        return rc;
    }
    *out = st;
    return 0;
}

int tn_exec_stream_next(tn_exec_stream *st, const tn_chunk **out) {
    *out = NULL;
    item_free(st->out);
    st->out = NULL;
    int irc = tn_exec_check(st->ex);          /* interrupted: no more rows, even queued ones */
    if (irc) return irc;
    pthread_mutex_lock(&st->mu);
    while (list_empty(&st->queue) && !st->finished) pthread_cond_wait(&st->cv, &st->mu);
    stream_item *it = list_pop(&st->queue);
    int rc = it ? 0 : st->rc;
    if (it) pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    if (rc) return tn_error_restore(&st->err);
    st->out = it;
    if (it) *out = &it->chunk;
    return 0;
}

void *tn_exec_stream_keep_current(tn_exec_stream *st) {
    stream_item *it = st->out;
    st->out = NULL;
    return it;
}

void tn_exec_stream_release(void *kept) { item_free(kept); }

void tn_exec_stream_free(tn_exec_stream *st) {
    if (!st) return;
    if (st->started) {
        pthread_mutex_lock(&st->mu);
        st->cancel = true;
        pthread_cond_broadcast(&st->cv);
        pthread_mutex_unlock(&st->mu);
        pthread_join(st->thread, NULL);
    }
    item_free(st->out);
    list_free(&st->queue);
    while (st->npend) pend_remove(st, &st->pend[st->npend - 1]);
    tn_free(st->pend);
    pthread_mutex_destroy(&st->mu);
    pthread_cond_destroy(&st->cv);
    tn_free(st);
}
