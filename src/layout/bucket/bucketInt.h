/*
 * layout/bucket/bucketInt.h: private to layout/bucket/: the primary-key table specification
 * parsed from metaData.configuration (spec.c), Paimon's default bucket function (hash.c), and the
 * merge engines that fold the rows of one key into one (merge.c). bucket.c is the layout (writer,
 * scan planning) built from them.
 *
 * Configuration keys (Paimon's option names, stored as given in metaData.configuration):
 *   primary-key                    'c1,c2'   the key (CREATE TABLE's PRIMARY KEY writes it)
 *   bucket                         'N' > 0   buckets per partition (default 1; Phoenix SALT_BUCKETS);
 *                                  '-1'      dynamic buckets (dynamic.c; bucketCount tag -1)
 *   dynamic-bucket.target-row-num  'N' > 0   keys per dynamic bucket before a new one (2,000,000)
 *   dynamic-bucket.max-buckets     'N' (-1)  at most N dynamic buckets per partition (-1: 32767)
 *   bucket-key                     'c1'      hashed columns (default: the key minus partition columns)
 *   merge-engine                   deduplicate | partial-update | aggregation | first-row
 *   sequence.field                 'c'       which row of a key wins (larger wins; ties: later row)
 *   fields.<c>.aggregate-function  sum | min | max | count | product | last_value | ... | rbm32
 *   fields.default-aggregate-function         the same, for columns without their own
 *   fields.<c>.ignore-retract      true|false: retract rows leave the column's aggregate as it is
 *                                  (aggregation engine only; else the function retracts or fails)
 *   rowkind.field                  'c'       a string column: each row's kind, '+I' '+U' '-U' '-D'
 *   ignore-delete                  true|false retract rows (-U, -D) are dropped (also
 *                                  deduplicate. / partial-update. / first-row.ignore-delete)
 *   changelog-producer             none (others refused)
 *   bucket-function.type           default (Paimon's hash; others refused)
 *
 * AddFile tags of every file: bucket = '<b>', bucketCount = '<N at write time>' (-1: dynamic buckets).
 */
#ifndef TN_LAYOUT_BUCKET_INT_H
#define TN_LAYOUT_BUCKET_INT_H

#include "layout/layoutInt.h"

#define TN_BUCKET_MAX_KEYS 32
#define TN_BUCKET_TAG "bucket"
#define TN_BUCKET_COUNT_TAG "bucketCount"

typedef enum tn_bucket_engine {
    TN_BUCKET_DEDUPLICATE = 0,
    TN_BUCKET_PARTIAL_UPDATE,
    TN_BUCKET_AGGREGATION,
    TN_BUCKET_FIRST_ROW,
} tn_bucket_engine;

/* Aggregate functions of the aggregation merge engine (Paimon's names). */
#define TN_BUCKET_AGG_TABLE(X)                            \
    X(TN_AGG_LAST_NON_NULL, "last_non_null_value")        \
    X(TN_AGG_LAST, "last_value")                          \
    X(TN_AGG_FIRST_NON_NULL, "first_non_null_value")      \
    X(TN_AGG_FIRST, "first_value")                        \
    X(TN_AGG_SUM, "sum")                                  \
    X(TN_AGG_MIN, "min")                                  \
    X(TN_AGG_MAX, "max")                                  \
    X(TN_AGG_COUNT, "count")                              \
    X(TN_AGG_PRODUCT, "product")                          \
    X(TN_AGG_LISTAGG, "listagg")                          \
    X(TN_AGG_BOOL_AND, "bool_and")                        \
    X(TN_AGG_BOOL_OR, "bool_or")                          \
    X(TN_AGG_RBM32, "rbm32")

typedef enum tn_bucket_agg {
#define TN_AGG_ENUM(id, name) id,
    TN_BUCKET_AGG_TABLE(TN_AGG_ENUM)
#undef TN_AGG_ENUM
    TN_BUCKET_AGG_COUNT_
} tn_bucket_agg;

/* rbm32 (rbm.c): the OR of one key's bitmaps, built when a second non-NULL value comes. */
typedef struct tn_bucket_rbm {
    struct tn_bitmap *bm;
    bool merged;                       /* bm holds the key's values (else accv is the only one) */
} tn_bucket_rbm;
/* Fold v into the accumulator value accv (validated first; errors name table, column, bytes). */
int tn_bucket_rbm32_step(const tn_table *t, uint32_t col, tn_bucket_rbm *r, tn_value *accv, const tn_value *v);
/* When values were merged: accv = their serialized OR (bytes holds it). */
int tn_bucket_rbm32_finish(tn_bucket_rbm *r, tn_value *accv, tn_buf *bytes);
void tn_bucket_rbm_free(tn_bucket_rbm *r);

/* The columns a specification is checked against (a table's schema, or CREATE's definitions). */
typedef struct tn_bucket_column {
    const char *name;
    tn_type type;
    bool is_partition;
    bool nullable;
} tn_bucket_column;

typedef struct tn_bucket_spec {
    uint32_t ncols;
    uint32_t nkey;                     /* primary key columns (declared order) */
    uint32_t key[TN_BUCKET_MAX_KEYS];
    uint32_t nbkey;                    /* bucket key columns */
    uint32_t bkey[TN_BUCKET_MAX_KEYS];
    int32_t nbuckets;                  /* > 0 */
    tn_bucket_engine engine;
    int seq_col;                       /* sequence.field column, -1 none */
    uint8_t *is_key;                   /* per column */
    uint8_t *agg;                      /* per column: tn_bucket_agg (aggregation engine) */
    const char **delims;               /* per column: fields.<c>.list-agg-delimiter (NULL = ",") */
    bool remove_on_delete;             /* partial-update / aggregation.remove-record-on-delete */
    bool dynamic;                      /* 'bucket' = '-1' (nbuckets -1): Paimon's dynamic buckets */
    int64_t target_rows;               /* dynamic-bucket.target-row-num (default 2,000,000) */
    uint8_t *ignore_retract;           /* per column: fields.<c>.ignore-retract = true */
    int rowkind_col;                   /* rowkind.field column, -1 none */
    bool ignore_delete;                /* ignore-delete: retract rows are dropped at write */
    int32_t max_buckets;               /* dynamic-bucket.max-buckets (default -1: 32767) */
} tn_bucket_spec;

/* ---------------------------------------------------------------------------------------------
 * Dynamic buckets (dynamic.c): a partition's key hash -> bucket index, built from the bucket-key
 * columns of its live files, and Paimon's assignment of new keys (PartitionIndex.assign).
 */
typedef struct tn_bucket_dyn_index {
    uint64_t *slots;                   /* (uint32 hash) << 32 | (bucket + 1); 0 = empty */
    uint32_t mask, n;
    int64_t *count;                    /* per bucket: keys (distinct hashes) */
    int32_t nb;                        /* buckets in use: the largest id + 1 */
    int32_t cap;
} tn_bucket_dyn_index;
/* Reads the bucket-key columns of snapshot files[0..nfiles) (one partition, deletion vectors
 * applied) into ix. */
int tn_bucket_dyn_build(tn_bucket_dyn_index *ix, tn_table *t, const tn_bucket_spec *spec, const uint32_t *files,
                        uint32_t nfiles);
/* dest[r] = the bucket of hash[r] for r in 0..n (arrival order): the one the index has, else the
 * first bucket below target_rows keys, else the lowest unused id (more than max_buckets:
 * Paimon's error); the index takes the new keys. */
int tn_bucket_dyn_assign(tn_bucket_dyn_index *ix, const tn_bucket_spec *spec, const int32_t *hash, uint32_t n,
                         int32_t *dest);
void tn_bucket_dyn_free(tn_bucket_dyn_index *ix);

/* Parses and validates (Paimon's texts where Paimon has one) a specification; arrays in arena.
 * what names the table for messages. */
int tn_bucket_spec_parse(tn_bucket_spec *out, const char *what, const tn_bucket_column *cols, uint32_t ncols,
                         const tn_delta_kv *conf, uint32_t nconf, tn_arena *arena);
/* The specification of table t. */
int tn_bucket_spec_of_table(tn_bucket_spec *out, const tn_table *t, tn_arena *arena);
/* The layout's CREATE and ALTER checks. */
int tn_bucket_check_create(const tn_table_create_options *o);
int tn_bucket_check_alter(const tn_table *t, const tn_delta_kv *props, uint32_t nprops);
/* DELETE FROM t: Paimon's rule per merge engine (deduplicate; partial-update and aggregation with
 * their remove-record-on-delete option; never first-row), with Paimon's texts. */
int tn_bucket_check_delete(const tn_table *t);
/* UPDATE t SET <assigned>: deduplicate and partial-update only, no key column (Paimon's texts). */
int tn_bucket_check_update(const tn_table *t, const uint8_t *assigned);
/* MERGE INTO t: Paimon's rules (deduplicate and partial-update; no key column assigned; a DELETE
 * clause by tn_bucket_check_delete's rule). */
int tn_bucket_check_merge(const tn_table *t, const uint8_t *assigned, bool deletes);
/* DESCRIBE's note on column col: "bucket key", "sequence field", "aggregate-function <f>". */
int tn_bucket_describe_column(const tn_table *t, uint32_t col, char *buf, size_t cap);
/* A file's bucket and bucket count from its add.tags; false when absent or invalid. */
bool tn_bucket_file_tags(const tn_delta_file *f, int32_t *bucket, int32_t *count);
/* Whether key is an option of primary-key tables (delta.* and tarn.* keys are checked elsewhere). */
bool tn_bucket_option_known(const char *key);

/* ---------------------------------------------------------------------------------------------
 * Paimon's default bucket function (hash.c): the bucket-key columns are laid out as a Paimon
 * BinaryRow (header byte 0 + null bits, padded to 8 bytes; one 8-byte slot per field; strings
 * of up to 7 bytes inline, longer ones and non-compact decimals/timestamps in the 8-byte-aligned
 * variable part), hashed with MurmurHash3 x86_32 by 4-byte little-endian words, seed 42, and
 * bucket = abs(hash % N) (Java remainder).
 */
/* The BinaryRow bytes of values[0..n) into out (cleared first). */
int tn_bucket_binary_row(tn_buf *out, const tn_value *values, uint32_t n);
int32_t tn_bucket_hash_bytes(const uint8_t *data, size_t len);
/* The same hash straight from the vectors' row when every column is fixed-width (integers, DATE,
 * BOOLEAN, DECIMAL(p <= 18): tn_bucket_fixed_keys), without building values and a buffer. */
bool tn_bucket_fixed_keys(const tn_vector *const *cols, uint32_t n);
int32_t tn_bucket_hash_fixed(const tn_vector *const *cols, uint32_t n, uint32_t row);
/* The same for rows first..end-1 of one bucket-key column of 4- or 8-byte integers without
 * NULLs, into out[row]; false (nothing written) for any other column. */
bool tn_bucket_hash_column(const tn_vector *v, uint32_t first, uint32_t end, int32_t *out);
/* The hashes of rows first..end-1 of the bucket-key columns kc[0..nk) into out[row], by the
 * fastest of the three paths above. */
int tn_bucket_hash_rows(const tn_vector *const *kc, uint32_t nk, uint32_t first, uint32_t end, int32_t *out);
/* hash of the BinaryRow of values; bucket of a hash for N buckets. */
int tn_bucket_hash_values(const tn_value *values, uint32_t n, int32_t *hash);
static inline int32_t tn_bucket_of_hash(int32_t hash, int32_t nbuckets) {
    int32_t r = hash % nbuckets;
    return r < 0 ? -r : r;
}

/* ---------------------------------------------------------------------------------------------
 * Row sets (merge.c): rows of the table's columns, appended from chunks, with per-row bucket
 * and arrival order; the merge folds the rows of each key into one and emits chunks. Partition
 * columns are not kept (cols[c] stays empty: a set's rows share their partition, and files do
 * not store them); emitted chunks carry them as zeros.
 */
typedef struct tn_bucket_rows {
    uint32_t ncols;
    tn_vector *cols;
    uint8_t *skip;                     /* per column: a partition column (not kept) */
    uint32_t count;
    int32_t *bucket;                   /* per row (the bucket-key hash until commit) */
    uint32_t cap_bucket;
    uint8_t *kind;                     /* per row: tn_bucket_kind; NULL while every row is an add */
    uint32_t cap_kind;
} tn_bucket_rows;

/* A row's kind (Paimon's RowKind): adds (+I, +U) and retractions (-U, -D). */
typedef enum tn_bucket_kind {
    TN_BUCKET_ADD = 0,
    TN_BUCKET_UPDATE_BEFORE,
    TN_BUCKET_DELETE,
} tn_bucket_kind;

int tn_bucket_rows_init(tn_bucket_rows *r, const tn_table *t);
void tn_bucket_rows_free(tn_bucket_rows *r);
/* Appends rows sel[0..n) of chunk (sel NULL: 0..n-1) with their buckets. */
int tn_bucket_rows_append(tn_bucket_rows *r, const tn_chunk *chunk, const uint32_t *sel, uint32_t n,
                          const int32_t *buckets);

/* Gives the last n rows appended the kinds kinds[sel[k]] (sel NULL: kinds[k]). */
int tn_bucket_rows_set_kinds(tn_bucket_rows *r, const uint8_t *kinds, const uint32_t *sel, uint32_t n);

/* Appends rows sel[0..n) of a projected chunk (column j of chunk is table column cols[j]); the
 * other columns of the set get NULLs. */
int tn_bucket_rows_append_columns(tn_bucket_rows *r, const tn_chunk *chunk, const uint32_t *cols, uint32_t ncols,
                                  const uint32_t *sel, uint32_t n);

/* One row of a merge input: set (0 = stored rows, 1 = new rows) and row; order = arrival. */
typedef struct tn_bucket_ref {
    uint32_t set;
    uint32_t row;
} tn_bucket_ref;

/* Sorts refs by (key, sequence field, arrival) and folds each key's rows with the spec's merge
 * engine into output rows, calling emit with chunks of all columns (at most TN_VECTOR_SIZE rows,
 * ordered by key). sets[0] holds stored rows (already one per key), sets[1] new rows. */
typedef int (*tn_bucket_emit_fn)(void *ctx, const tn_chunk *chunk);
/* Deletion-vector upserts: which stored rows lie in files that stay (with a deletion vector)
 * rather than being rewritten. The merge then emits only the keys that change (a key of kept
 * rows alone is not emitted) and lists in deleted[] (room for sets[0]->count) the kept rows
 * replaced. NULL: every stored row is rewritten (copy-on-write, compaction). */
typedef struct tn_bucket_dv {
    const uint8_t *kept;               /* per row of sets[0] */
    uint32_t *deleted;                 /* out: rows of sets[0] */
    uint32_t ndeleted;
} tn_bucket_dv;
int tn_bucket_merge(const tn_bucket_spec *spec, const tn_table *t, tn_bucket_rows *const *sets, tn_bucket_ref *refs,
                    uint32_t nrefs, tn_bucket_dv *dv, tn_bucket_emit_fn emit, void *ctx, uint64_t *rows_out);

/* ---------------------------------------------------------------------------------------------
 * Merge-on-write (mow.c): deletion-vector upserts read a bucket's kept files for the stored rows
 * whose key may be new (a hash set of the new keys; false positives are harmless, the merge
 * compares keys), each with its snapshot file and file row index.
 */
typedef struct tn_bucket_keyset {
    uint32_t ncols;                    /* non-partition key columns */
    uint32_t cols[TN_BUCKET_MAX_KEYS];
    uint8_t width[TN_BUCKET_MAX_KEYS]; /* 4/8: read raw from the vector, 0: through a value */
    uint64_t *slots;                   /* open addressing, 0 = empty */
    uint32_t *row;                     /* per slot: a new row with that hash */
    uint32_t mask;
    const tn_bucket_rows *rows;        /* the new rows (borrowed) */
    bool collision;                    /* two different new keys share a hash */
} tn_bucket_keyset;
int tn_bucket_keyset_build(tn_bucket_keyset *ks, const tn_table *t, const tn_bucket_spec *spec,
                           const tn_bucket_rows *rows, const uint32_t *sel, uint32_t n);
void tn_bucket_keyset_free(tn_bucket_keyset *ks);

/* Per stored row (index into the stored set): kept[] 1 when it came from a kept file, then its
 * snapshot file and row position; 0 for rows of rewritten files. */
typedef struct tn_bucket_kept {
    uint8_t *kept;
    uint32_t *file;
    uint64_t *pos;
    uint32_t cap;
} tn_bucket_kept;
/* Room for n rows (new entries kept = 0). */
int tn_bucket_kept_reserve(tn_bucket_kept *kp, uint32_t n);
void tn_bucket_kept_free(tn_bucket_kept *kp);
/* Scans snapshot files[0..nfiles) of t (filters only skip row groups) and appends to stored the
 * rows whose key is in ks, recording them in kp. seq_col -2: every column is read; else only the
 * key columns and column seq_col (-1: none), the others appended as NULLs: enough when a kept
 * row is never emitted, only kept or marked deleted (deduplicate with a sequence field,
 * first-row: tn_bucket_merge emits a key's kept row only when it is the pick, and then not at
 * all, since it stays where it is). */
int tn_bucket_read_kept(tn_table *t, const uint32_t *files, uint32_t nfiles, const tn_table_filter *filters,
                        uint32_t nfilters, const tn_bucket_keyset *ks, int seq_col, tn_bucket_rows *stored,
                        tn_bucket_kept *kp);
/* Reads only the key columns and records in kp[0..*n) the positions of the rows whose key equals
 * a new key (ks without collision): enough when no stored row can outlive a new row of its key
 * (deduplicate without a sequence field). */
int tn_bucket_read_kept_keys(tn_table *t, const uint32_t *files, uint32_t nfiles, const tn_table_filter *filters,
                             uint32_t nfilters, const tn_bucket_keyset *ks, tn_bucket_kept *kp, uint32_t *n);

#endif
