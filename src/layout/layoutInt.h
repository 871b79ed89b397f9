/*
 * layout/layoutInt.h: private to layout/ and its implementations (plain/, bucket/, otree/): the
 * implementation vtable the dispatch table of layout.c holds, the writer base struct, and the
 * helpers every layout shares: per-write option checking, chunk checking, and the partition
 * router (rows -> Hive partitions, with the static-partition and NOT NULL checks).
 */
#ifndef TN_LAYOUT_INT_H
#define TN_LAYOUT_INT_H

#include "layout/layout.h"

typedef struct tn_layout_impl tn_layout_impl;

/* Every implementation's writer struct starts with this. */
struct tn_layout_writer {
    const tn_layout_impl *impl;
};

struct tn_layout_impl {
    const char *name;
    /* the writer (all required) */
    int (*writer_open)(tn_layout_writer **out, tn_table *t, const tn_layout_write_options *opts);
    int (*writer_write)(tn_layout_writer *w, const tn_chunk *chunk);
    int (*writer_commit)(tn_layout_writer *w, tn_table_commit_result *result);   /* frees w */
    void (*writer_abort)(tn_layout_writer *w);                                    /* frees w */
    uint64_t (*writer_num_files)(const tn_layout_writer *w);
    /* scan planning; NULL = a plain table scan (no sample) */
    int (*scan_open)(tn_table_scan **out, bool *sampled, tn_table *t, const tn_layout_scan_options *opts);
    /* optional checks of CREATE TABLE and ALTER TABLE SET/UNSET (NULL: accepted) */
    int (*check_create)(const tn_table_create_options *o);
    int (*check_alter)(const tn_table *t, const tn_delta_kv *props, uint32_t nprops);
    /* OPTIMIZE (NULL: refused) */
    int (*optimize)(tn_table *t, const tn_layout_write_options *opts, tn_table_commit_result *result);
    /* optional check of DELETE FROM t before it runs (NULL: accepted) */
    int (*check_delete)(const tn_table *t);
    /* optional check of UPDATE t SET <assigned columns> (NULL: accepted) */
    int (*check_update)(const tn_table *t, const uint8_t *assigned);
    /* optional: what DESCRIBE says of column col in its extra column ("" = nothing) */
    int (*describe_column)(const tn_table *t, uint32_t col, char *buf, size_t cap);
    /* optional: rows with kinds (tn_layout_writer_write_kinds); NULL: refused */
    int (*writer_write_kinds)(tn_layout_writer *w, const tn_chunk *chunk, const uint8_t *kinds);
    /* optional check of MERGE INTO t (NULL: accepted) */
    int (*check_merge)(const tn_table *t, const uint8_t *assigned, bool deletes);
};

/* The implementations (one per folder). */
extern const tn_layout_impl tn_layout_plain;
extern const tn_layout_impl tn_layout_bucket;     /* layout/bucket/ */
/* Bytes a plain writer spilled so far (tn_layout_writer_spilled_bytes; the layouts that spill
 * are few, so this is not a vtable entry every implementation must fill). */
uint64_t tn_layout_plain_spilled_bytes(const tn_layout_writer *w);
extern const tn_layout_impl tn_layout_otree;
int tn_layout_otree_optimize(tn_table *t, const tn_layout_write_options *opts, tn_table_commit_result *result);

/* ---------------------------------------------------------------------------------------------
 * Helpers.
 */
/* Refuses any per-write option whose key (case-insensitive) is not in known[0..nknown):
 * TN_EUNSUPPORTED "table 't': write option 'k' is not supported by the <layout> layout
 * (supported: ...)". */
int tn_layout_options_check(const tn_table *t, const char *layout, const tn_delta_kv *options, uint32_t noptions,
                            const char *const *known, uint32_t nknown);
/* The value of a per-write option (case-insensitive key), or NULL. */
const char *tn_layout_option(const tn_delta_kv *options, uint32_t noptions, const char *key);
/* A chunk a writer accepts: every logical column in schema order with the schema's types. */
int tn_layout_check_chunk(const tn_table *t, const tn_chunk *chunk);
/* Refuses tables with nested columns (by name). */
int tn_layout_check_columns(const tn_table *t);

/* Per-partition writer state (parts.c): a table of fixed-size slots indexed by the router's
 * partition id, grown on demand; a new slot is zeroed. Every layout keeps its partitions so. */
typedef struct tn_layout_slots {
    void *items;
    size_t size;                       /* bytes per slot */
    uint32_t cap;                      /* slots allocated (ids 0..cap-1 are valid) */
} tn_layout_slots;
void tn_layout_slots_init(tn_layout_slots *s, size_t size);
/* The slot of partition id, allocating up to it; NULL when out of memory. Pointers to slots
 * stay valid until the next get of a larger id. */
void *tn_layout_slots_get(tn_layout_slots *s, uint32_t id);
/* The slot of id if allocated, else NULL (never allocates). */
void *tn_layout_slots_at(const tn_layout_slots *s, uint32_t id);
void tn_layout_slots_free(tn_layout_slots *s);
/* The target file size and codec of a write (per-write 'target_file_size' / 'compression',
 * else the writer options, else the table's properties; codec -1 = the table's default). */
int tn_layout_file_settings(const tn_table *t, const tn_layout_write_options *opts, uint64_t *target, int *codec);
/* commitInfo.operationParameters.partitionBy: the partition columns as a JSON array (free()). */
char *tn_layout_partition_by_json(const tn_table *t);

/* Canonical spelling of a partition value text for a column type (parsed, then rendered as
 * tarn writes it), so that '1' and '01', or two spellings of one timestamp, compare equal.
 * Appends "\x01N\x02" for null, "\x01V<text>\x02" otherwise. */
int tn_layout_partition_key_append(tn_buf *key, tn_type type, const char *text);
/* The canonical key of a snapshot file's partition (all partition columns, in order). */
int tn_layout_file_partition_key(const tn_table *t, const tn_delta_file *f, tn_buf *key);

/* ---------------------------------------------------------------------------------------------
 * The partition router (route.c): groups the rows of a chunk by their partition-value tuple.
 * Each distinct tuple becomes a partition with a dense id (0, 1, ... in order of first sight,
 * stable for the router's life), its Delta partition texts and its canonical key; these are
 * built once per tuple (rows are routed by the typed bytes of their
 * partition values, hashed). NULL in a NOT NULL partition column and rows outside a static
 * partition spec fail (TN_ECONSTRAINT). Unpartitioned tables have one partition (id 0).
 */
typedef struct tn_layout_partition {
    uint32_t id;
    const tn_delta_kv *values;         /* physical name -> text (NULL = null), partition-column order */
    uint32_t nvalues;
    const char *key;                   /* canonical key (tn_layout_partition_key_append per column) */
} tn_layout_partition;

typedef struct tn_layout_route {
    uint32_t ngroups;
    const uint32_t *part;              /* per group: partition id */
    const uint32_t *start;             /* per group g: rows sel[start[g] .. start[g + 1]) */
    const uint32_t *sel;               /* row indexes, grouped, in input order within a group */
} tn_layout_route;

typedef struct tn_layout_router tn_layout_router;
/* spec: the static partition spec (column name -> value text, NULL = null), validated here. */
int tn_layout_router_open(tn_layout_router **out, const tn_table *t, const tn_delta_kv *spec, uint32_t nspec);
void tn_layout_router_close(tn_layout_router *r);
/* Routes chunk (checked with tn_layout_check_chunk by the caller). out is borrowed until the
 * next call. */
int tn_layout_router_route(tn_layout_router *r, const tn_chunk *chunk, tn_layout_route *out);
uint32_t tn_layout_router_num_partitions(const tn_layout_router *r);
const tn_layout_partition *tn_layout_router_partition(const tn_layout_router *r, uint32_t id);
/* The id of the routed partition with this canonical key, or -1. */
int64_t tn_layout_router_find_key(tn_layout_router *r, const char *key);
/* Whether a snapshot file lies in the static spec (every column of the spec equal). */
bool tn_layout_router_spec_matches(const tn_layout_router *r, const tn_delta_file *f);
/* The static spec keyed by physical name, for a transaction's read set. */
const tn_delta_kv *tn_layout_router_spec(const tn_layout_router *r, uint32_t *n);

/* ---------------------------------------------------------------------------------------------
 * Partition buffers (spill.c): rows of partitions a writer has no open file for, kept in memory
 * within a budget of bytes and spilled past it to a temporary file in <table>/_tarn_tmp/ (no
 * name on disk: it disappears with the writer or its process), then replayed partition by
 * partition in input order. Only the data (non-partition) columns are kept.
 */
typedef struct tn_layout_spill tn_layout_spill;
/* Replayed rows: chunks of ALL logical columns (partition columns empty, count 0), at most
 * TN_VECTOR_SIZE rows; borrowed for the call. */
typedef int (*tn_layout_spill_fn)(void *ctx, const tn_chunk *chunk);
int tn_layout_spill_open(tn_layout_spill **out, const tn_table *t, uint64_t budget);
/* Closes the temporary file (the kernel frees it) and frees s. NULL is fine. */
void tn_layout_spill_close(tn_layout_spill *s);
/* Buffers rows sel[0..n) (sel NULL = 0..n-1) of chunk for partition part; spills the largest
 * buffers to disk when the memory held passes the budget. */
int tn_layout_spill_append(tn_layout_spill *s, uint32_t part, const tn_chunk *chunk, const uint32_t *sel, uint32_t n);
/* Whether part has rows buffered. */
bool tn_layout_spill_has(const tn_layout_spill *s, uint32_t part);
/* Hands part's rows to fn in the order they were appended, then forgets them (memory freed). */
int tn_layout_spill_replay(tn_layout_spill *s, uint32_t part, tn_layout_spill_fn fn, void *ctx);
/* Bytes written to the spill file so far; bytes of memory buffers held now. */
uint64_t tn_layout_spill_bytes_spilled(const tn_layout_spill *s);
uint64_t tn_layout_spill_bytes_buffered(const tn_layout_spill *s);
/* Removes what killed writers of the table at table_path left in <table>/_tarn_tmp/ (named
 * spill files of processes that no longer exist) and the directory when empty. Never follows
 * symlinks; errors are ignored (a read-only table simply keeps them). */
void tn_layout_spill_cleanup(const char *table_path);

#endif
