/*
 * sql/exec.h: the executor's internals (private to sql/): materialized chunk collections, the
 * push-based pipeline (a source split into morsels, streaming operators, a sink) that runs on
 * the session's thread pool, and the typed hash table of group keys shared by aggregation,
 * DISTINCT and set operations. exec.c drives pipelines; op_*.c implement the operators.
 *
 * A pipeline runs tn_pool_run over its source's morsels (Parquet row groups, or runs of chunks
 * of a collection). Each worker pushes a morsel's chunks through the operators with its own
 * per-worker state into the sink's per-worker state; the sink then combines the workers' states
 * (thread-local aggregation, then merge) and finalizes into a collection. Pipelines that hold a
 * LIMIT run on one thread in morsel order so that they can stop early.
 */
#ifndef TN_SQL_EXEC_H
#define TN_SQL_EXEC_H

#include "sql/plan.h"
#include "sql/sql.h"

#define TN_EXEC_STOP 1     /* positive return: the pipeline has all the rows it needs */

/* ---------------------------------------------------------------------------------------------
 * Collections: an ordered list of owned chunks of equal types (strings owned by the vectors).
 */
typedef struct tn_collection {
    uint32_t ncols;
    tn_type *types;
    tn_chunk *chunks;
    uint32_t nchunks, cap;
    int64_t nrows;
    uint64_t bytes;        /* approximate memory held */
} tn_collection;

int tn_collection_init(tn_collection *c, uint32_t ncols, const tn_type *types);
void tn_collection_free(tn_collection *c);
/* Append the rows sel[0..n) of src (all rows when sel is NULL, n = src->count); strings
 * copied. */
int tn_collection_append(tn_collection *c, const tn_chunk *src, const uint32_t *sel, uint32_t n);
/* Move all chunks of src to the end of dst (src is left empty). */
int tn_collection_move(tn_collection *dst, tn_collection *src);

/* A shallow view of src (shares buffers; never free it). */
static inline void tn_vector_view(tn_vector *dst, const tn_vector *src) { *dst = *src; }
/* Hash of each row's value of v combined into h (h[i] = combine(h[i], hash(v[i]))); when
 * init is true, h is overwritten. NULLs hash to a fixed value. */
void tn_vector_hash(const tn_vector *v, uint32_t n, uint64_t *h, bool init);
/* Compare rows of two vectors of the same type (NULL handling by the caller). */
int tn_vector_cmp_rows(const tn_vector *a, uint32_t ia, const tn_vector *b, uint32_t ib);
bool tn_vector_eq_rows(const tn_vector *a, uint32_t ia, const tn_vector *b, uint32_t ib);

/* ---------------------------------------------------------------------------------------------
 * Execution context of one statement.
 */
typedef struct tn_exec {
    tn_pool *pool;
    uint32_t nworkers;
    tn_arena *arena;           /* statement arena */
    tn_sql_stats stats;        /* updated atomically by scans */
    uint64_t memory_limit;     /* bytes, 0 = none */
    uint64_t memory_used;      /* approximate, atomically updated */
    bool analyze;              /* EXPLAIN ANALYZE: time operators */
    const int *interrupt;      /* the session's cancel flag (tn_sql_session_interrupt) or NULL */
    uint64_t progress_rows;    /* rows the bound scans hold (tn_sql_session_progress's total) */
    uint64_t progress_inflight; /* rows of Parquet morsels being read, not yet in stats */
    /* Spilling (spill_file.c): where the statement's temp files go, and how much they may hold. */
    const char *temp_dir;      /* temp_directory (borrowed from the session), or NULL: /tmp */
    uint64_t temp_limit;       /* max_temp_directory_size in bytes, 0 = none */
    uint64_t temp_used;        /* bytes in the statement's open spill files (atomic) */
    uint64_t temp_written;     /* bytes written to spill files in all (atomic; EXPLAIN ANALYZE) */
    uint32_t temp_files;       /* spill files open now (atomic) */
    bool temp_dir_made;        /* the folder was created for this statement: rmdir when unused */
    bool temp_swept;           /* leftovers of dead processes were removed */
} tn_exec;

/* 0, or TN_EINTERRUPT "Interrupted" once the statement was asked to stop. Polled by every
 * pipeline per morsel and per chunk, and by the long single-threaded loops (sorts, join builds,
 * aggregate merges and finalization, window evaluation, writes) every few thousand rows. */
static inline int tn_exec_check(const tn_exec *ex) {
    return ex && tn_interrupt_pending(ex->interrupt) ? tn_interrupt_check(ex->interrupt) : 0;
}

/* Account for bytes held by the query; TN_ELIMIT when past the limit. */
int tn_exec_mem(tn_exec *ex, int64_t delta);

/* The bytes an operator may hold before it spills (its share of memory_limit; 0 = never: no
 * limit, or spilling disabled by temp_directory = ''). */
static inline uint64_t tn_exec_spill_budget(const tn_exec *ex) {
    return ex && ex->memory_limit && ex->temp_dir ? ex->memory_limit / 2 : 0;
}
/* Whether the statement's accounted memory is near the limit (an operator should spill). */
static inline bool tn_exec_mem_tight(const tn_exec *ex) {
    return ex && ex->memory_limit &&
           __atomic_load_n(&ex->memory_used, __ATOMIC_RELAXED) > ex->memory_limit / 4 * 3;
}

/* ---------------------------------------------------------------------------------------------
 * Spill files (spill_file.c): anonymous temporary files in the statement's temp folder (see
 * there), holding encoded chunks at extents. Writes and reads at distinct extents may run on
 * several threads at once.
 */
typedef struct tn_spill_file tn_spill_file;
typedef struct tn_spill_extent {
    uint64_t off;
    uint32_t len, rows;
} tn_spill_extent;
int tn_spill_file_open(tn_exec *ex, tn_spill_file **out);
/* 90% of the space free at dir (or its parent when dir does not exist yet): DuckDB's default
 * max_temp_directory_size. */
uint64_t tn_spill_default_limit(const char *dir);
void tn_spill_file_close(tn_spill_file *f);
uint64_t tn_spill_file_bytes(const tn_spill_file *f);
/* Gives the disk space of an extent that will not be read again back (where the file system
 * can punch holes; the file is freed whole on close anyway). */
void tn_spill_file_punch(tn_spill_file *f, const tn_spill_extent *e);
/* Appends rows sel[0..n) of c (sel NULL: 0..n) encoded through scratch; *out: where. TN_ELIMIT past
 * max_temp_directory_size, TN_EIO (naming the folder) when the disk is full. */
int tn_spill_write_chunk(tn_spill_file *f, const tn_chunk *c, const uint32_t *sel, uint32_t n, tn_buf *scratch,
                         tn_spill_extent *out);
/* Reads the extent e into out (initialized with the written chunk's types; reset here). */
int tn_spill_read_chunk(tn_spill_file *f, const tn_spill_extent *e, tn_buf *scratch, tn_chunk *out);
/* The pieces of the two above, for extents that hold several encoded chunks: append one
 * chunk's encoding to dst; write dst as one extent of `rows` rows; read an extent's bytes; decode
 * the chunk at *pos (advanced past it) into out (reset here). */
int tn_spill_encode(tn_buf *dst, const tn_chunk *c, const uint32_t *sel, uint32_t n);
int tn_spill_write_buf(tn_spill_file *f, const tn_buf *buf, uint32_t rows, tn_spill_extent *out);
int tn_spill_read_buf(tn_spill_file *f, const tn_spill_extent *e, tn_buf *scratch);
int tn_spill_decode(const uint8_t **pos, const uint8_t *end, tn_chunk *out);

/* ORDER BY's row order (op_sort.c): keys node->u.sort.keys with desc / nulls_first. */
static inline int tn_sort_cmp_rows(const tn_plan *node, const tn_chunk *ca, uint32_t ia, const tn_chunk *cb,
                                   uint32_t ib) {
    for (uint32_t k = 0; k < node->u.sort.nkeys; k++) {
        uint32_t col = node->u.sort.keys[k];
        const tn_vector *va = &ca->cols[col], *vb = &cb->cols[col];
        bool na = va->type.id == TN_TYPE_NULL || !tn_vector_is_valid(va, ia);
        bool nb = vb->type.id == TN_TYPE_NULL || !tn_vector_is_valid(vb, ib);
        if (na || nb) {
            if (na && nb) continue;
            bool nf = node->u.sort.nulls_first[k];
            return na ? (nf ? -1 : 1) : (nf ? 1 : -1);
        }
        int c = tn_vector_cmp_rows(va, ia, vb, ib);
        if (c) return node->u.sort.desc[k] ? -c : c;
    }
    return 0;
}

/* Sorts refs[0..n) by cmp (a total order, qsort_r's signature) polling the interrupt flag
 * (exec_sort.c). parallel: on the pool's workers (only from the statement's thread, never
 * inside a pool task). */
int tn_exec_sort(tn_exec *ex, bool parallel, uint64_t *refs, size_t n,
                 int (*cmp)(const void *, const void *, void *), void *ctx);

/* Runs plan and materializes its output into *out (initialized here). */
int tn_exec_run(tn_exec *ex, tn_plan *plan, tn_collection *out);

/* ---------------------------------------------------------------------------------------------
 * Pipelines.
 */
typedef struct tn_pipeline tn_pipeline;
typedef struct tn_op tn_op;

/* A streaming operator: transforms chunks, pushing its outputs on with tn_pipe_push. */
struct tn_op {
    const char *name;
    tn_plan *node;                       /* for EXPLAIN ANALYZE counters */
    void *shared;                        /* immutable during the run (or atomically updated) */
    int (*worker_init)(tn_op *op, void **state);   /* per-worker state; may be NULL */
    void (*worker_free)(tn_op *op, void *state);
    int (*execute)(tn_op *op, void *state, tn_pipeline *p, uint32_t stage, uint32_t worker,
                   const tn_chunk *in);
    /* After every morsel: emits remaining rows (RIGHT/FULL join) on the calling thread. */
    int (*finish)(tn_op *op, tn_pipeline *p, uint32_t stage);
    void (*free)(tn_op *op);
};

/* A source: morsels and how to read one. */
typedef struct tn_source {
    const char *name;
    tn_plan *node;
    void *shared;
    uint32_t nmorsels;
    /* Reads morsel m, pushing each chunk with tn_pipe_push(p, 0, worker, chunk). */
    int (*read)(struct tn_source *src, tn_pipeline *p, uint32_t morsel, uint32_t worker);
    void (*free)(struct tn_source *src);
} tn_source;

/* A sink: consumes chunks into per-worker state, combines and finalizes. */
typedef struct tn_sink {
    const char *name;
    void *shared;
    int (*worker_init)(struct tn_sink *sink, void **state);
    void (*worker_free)(struct tn_sink *sink, void *state);
    int (*consume)(struct tn_sink *sink, void *state, uint32_t morsel, const tn_chunk *in);
    /* Called once on the calling thread after all morsels with every worker's state. */
    int (*combine)(struct tn_sink *sink, void **states, uint32_t nstates);
    void (*free_shared)(struct tn_sink *sink);   /* NULL: tn_free(shared) */
} tn_sink;

#define TN_PIPE_MAX_OPS 32

struct tn_pipeline {
    tn_exec *ex;
    tn_source source;
    tn_op *ops[TN_PIPE_MAX_OPS];
    uint32_t nops;
    tn_sink *sink;
    bool sequential;                     /* one thread, morsels in order (LIMIT) */
    volatile int stop;                   /* set when an operator returned TN_EXEC_STOP */
    /* Per worker: op states then the sink state; current morsel. */
    void ***op_states;                   /* [worker][op] */
    void **sink_states;                  /* [worker] */
    uint32_t *cur_morsel;                /* [worker] */
};

/* Push chunk into stage `stage` (ops[stage], or the sink when stage == nops). */
int tn_pipe_push(tn_pipeline *p, uint32_t stage, uint32_t worker, const tn_chunk *chunk);
/* Runs p to completion (all morsels, then finish, then the sink's combine). */
int tn_pipe_run(tn_pipeline *p);

/* Builders used by exec.c (each file owns its operator). They take ownership of nothing in
 * the plan; they borrow exprs and files from it. */
int tn_op_scan_source(tn_exec *ex, tn_plan *node, tn_source *out);          /* op_scan.c */
int tn_op_collection_source(tn_exec *ex, tn_plan *node, tn_collection *c, bool owned,
                            tn_source *out);                                /* op_scan.c */
int tn_op_values_source(tn_exec *ex, tn_plan *node, tn_source *out);        /* op_values.c */
int tn_op_filter(tn_exec *ex, tn_plan *node, tn_op **out);                  /* op_filter_project.c */
int tn_op_project(tn_exec *ex, tn_plan *node, tn_op **out);
int tn_op_unnest(tn_exec *ex, tn_plan *node, tn_op **out);                  /* op_unnest.c */
int tn_op_limit(tn_exec *ex, tn_plan *node, tn_op **out);                   /* op_limit.c */
/* Sinks. Each finalizes into `result` (initialized by the builder) during combine. */
int tn_sink_collect(tn_exec *ex, uint32_t ncols, const tn_type *types, tn_collection *result,
                    tn_sink **out);                                         /* exec.c */
int tn_sink_aggregate(tn_exec *ex, tn_plan *node, tn_collection *result, tn_sink **out);
int tn_sink_sort(tn_exec *ex, tn_plan *node, tn_collection *result, tn_sink **out); /* op_sort.c */
int tn_sink_setop(tn_exec *ex, tn_plan *node, tn_collection *result, tn_sink **out); /* op_setop.c */
int tn_sink_window(tn_exec *ex, tn_plan *node, tn_collection *result, tn_sink **out); /* op_window.c */
void tn_sink_destroy(tn_sink *sink);
/* Hash join: build the table from the right (or left) input collection, then probe. */
typedef struct tn_join_table tn_join_table;
int tn_join_build(tn_exec *ex, tn_plan *node, tn_collection *build, bool build_is_left,
                  tn_join_table **out);
/* Dynamic join filter: when t's build side has at most a few hundred distinct keys of one
 * integer key and the probe key is a column that PROJECT / FILTER nodes pass down from a
 * Parquet scan, the scan under probe gets those keys as an IN list (rows without a match are
 * dropped there, before its other columns are decoded) — only for joins that drop the probe
 * rows without a match. Otherwise a list left by an earlier run is cleared. */
int tn_join_scan_filter(const tn_join_table *t, tn_plan *probe);                                     /* op_join.c */
int tn_op_join_probe(tn_exec *ex, tn_plan *node, tn_join_table *table, tn_op **out);
void tn_join_table_free(tn_join_table *t);

/* External sort (spill_sort.c): a sort's workers write sorted runs when their buffers pass
 * their share of memory; at the end the runs are merged k ways (in passes when there are more
 * runs than the memory allows readers) and the last merge is the source of the sort's output. */
typedef struct tn_sort_spill tn_sort_spill;
int tn_sort_spill_create(tn_exec *ex, const tn_plan *node, tn_sort_spill **out);
void tn_sort_spill_free(tn_sort_spill *s);
/* Writes rows refs[0..n) of c ((chunk << 32) | row, in sorted order) as one run. Thread-safe. */
int tn_sort_spill_run(tn_sort_spill *s, const tn_collection *c, const uint64_t *refs, size_t n);
bool tn_sort_spill_has_runs(const tn_sort_spill *s);
/* A source emitting the merged rows from `skip` on, at most `limit` (-1: all), in order; it
 * must be read sequentially (one thread, morsels in order). Takes s, also on error. */
int tn_sort_spill_source(tn_sort_spill *s, tn_plan *node, int64_t skip, int64_t limit, tn_source *out);
/* The sort sink's runs, handed over after the pipeline ran (NULL when it did not spill). */
tn_sort_spill *tn_sink_sort_take_spill(tn_sink *sink);

/* Hash aggregate spilling (spill_agg.c): input rows of a spilling aggregate, split by the top
 * bits of their group-key hash (tn_vector_hash over the keys, as the group table hashes). */
#define TN_AGG_SPILL_PARTS 32
static inline uint32_t tn_agg_spill_part(uint64_t h) { return (uint32_t)(h >> 59) & (TN_AGG_SPILL_PARTS - 1); }
typedef struct tn_agg_spill tn_agg_spill;
typedef struct tn_agg_spill_writer tn_agg_spill_writer;   /* one worker's partition buffers */
/* Spilled rows have the types[0..ncols) of the aggregate's input; node gets the bytes spilled. */
int tn_agg_spill_create(tn_exec *ex, tn_plan *node, uint32_t ncols, const tn_type *types, tn_agg_spill **out);
void tn_agg_spill_free(tn_agg_spill *s);
bool tn_agg_spill_active(const tn_agg_spill *s);
void tn_agg_spill_activate(tn_agg_spill *s);                /* from now on rows go to disk */
uint64_t tn_agg_spill_rows(const tn_agg_spill *s, uint32_t part);
/* Appends in's rows to their partitions (hashes[i]: row i's key hash); *w made on first use. */
int tn_agg_spill_write(tn_agg_spill *s, tn_agg_spill_writer **w, const tn_chunk *in, const uint64_t *hashes);
int tn_agg_spill_flush(tn_agg_spill *s, tn_agg_spill_writer *w);   /* writes what w still holds */
void tn_agg_spill_writer_free(tn_agg_spill_writer *w);
/* Calls fn with each chunk of partition part's rows, in the order written. */
int tn_agg_spill_replay(tn_agg_spill *s, uint32_t part, int (*fn)(void *ctx, const tn_chunk *c), void *ctx);
/* After the aggregate sink ran: when it spilled, *out becomes the source of its output (one
 * morsel per partition: that partition's groups merged and finalized) and 1 is returned; 0 when
 * it did not spill (its result collection holds the output). */
int tn_sink_aggregate_take_spill(tn_sink *sink, tn_source *out);

/* ---------------------------------------------------------------------------------------------
 * Group table: a hash table of distinct key rows (typed columns; NULL is a key value like any
 * other) mapping each to a dense group index. Keys are stored column-wise in vectors whose
 * strings live in the table's arena.
 */
typedef struct tn_group_table {
    uint32_t nkeys;
    tn_type *key_types;
    tn_vector *keys;             /* nkeys vectors with ngroups rows */
    uint64_t *hashes;            /* per group */
    uint32_t ngroups, gcap;
    uint64_t *slots;             /* (hash high bits << 32) | (group + 1); 0 = empty */
    uint32_t slot_mask;
    tn_arena *strings;
    uint64_t *hbuf;              /* scratch: row hashes */
    /* A row-wise copy of the keys in a canonical byte form, so that comparing a row with a
     * group touches one cache line (op_aggregate.c); rowsize 0: not used for these types. */
    uint32_t rowsize;
    uint32_t *koff;              /* per key: byte offset of its value in a row */
    uint8_t *rows;               /* gcap rows */
    uint8_t *probe;              /* scratch: the input rows of one lookup, serialized */
    uint8_t *plong;              /* scratch: per input row, whether it holds a string > 12 bytes */
    void *pcache;                /* one string key: (pointer, length) -> group, per lookup */
    uint32_t pgen;
} tn_group_table;

int tn_group_table_init(tn_group_table *t, uint32_t nkeys, const tn_type *types);
void tn_group_table_free(tn_group_table *t);
/* For each of n rows of keys[0..nkeys) (vectors of n rows), find or insert its group, writing
 * group indexes to gids. *grew says whether new groups were added. */
int tn_group_table_lookup(tn_group_table *t, tn_vector *const *keys, uint32_t n, uint32_t *gids);
uint64_t tn_group_table_bytes(const tn_group_table *t);

/* Aggregate states (op_aggregate.c), column-wise over groups: used by the aggregate sink. */
typedef struct tn_agg_states tn_agg_states;

#endif
