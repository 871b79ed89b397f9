/*
 * layout/layout.h: how rows are placed into files, and which files and row groups a scan may
 * skip: the policies above table/'s mechanisms. A table's layout is chosen by its metadata
 * (metaData.configuration) from a small dispatch table in layout.c:
 *
 *   layout   recognised by                                 implementation
 *   plain    (anything else)                               layout/plain/  Hive partitions, rolling files
 *   bucket   'bucket' or 'bucket-key' configuration key    layout/bucket/ primary-key buckets
 *   otree    a 'qbeast.*' configuration key                layout/otree/  qbeast OTree cubes
 *   any      'tarn.layout' = '<name>' (explicit; wins)
 *
 * A layout that this build does not implement (or an unknown 'tarn.layout' name) is refused
 * for writes, naming it: writing such a table as plain would break its invariants. Scans of
 * such tables are planned as plain Delta scans (every layout keeps its table a valid Delta table,
 * so any Delta reader's answer is right; only the skipping is lost).
 *
 * Writers take chunks holding ALL the table's logical columns in schema order, with exactly the
 * schema's types (the SQL layer casts; static partition columns are given as constants). The
 * layout routes them to files (table/ file writers), and commits (a table/ transaction) at the
 * next free version with the layout's conflict scope. Any failure removes the files written and
 * commits nothing.
 *
 * Adding a layout: write layout/<name>/<name>.c defining a `const tn_layout_impl` (layoutInt.h)
 * and put it in the table of layout.c (replacing its NULL entry).
 */
#ifndef TN_LAYOUT_H
#define TN_LAYOUT_H

#include "table/table.h"

/* The name of t's layout ("plain", "bucket", "otree", or an explicit tarn.layout value), and
 * whether this build implements it. */
const char *tn_layout_name(const tn_table *t, bool *implemented);
/* 0 when this build can write t's layout, else TN_EUNSUPPORTED naming it. */
int tn_layout_check_writable(const tn_table *t);
/* The same for a table about to be created with this configuration (CREATE TABLE ... WITH). */
int tn_layout_check_config(const tn_delta_kv *conf, uint32_t nconf);
/* A table about to be created (columns, partition columns, configuration), checked against its
 * layout's rules (a primary-key table: key, bucket, merge options, with Paimon's messages). */
int tn_layout_check_create(const tn_table_create_options *o);
/* ALTER TABLE t SET/UNSET (value NULL) props, checked by t's layout before the metadata commit
 * (a primary-key table: 'bucket' may change, the key may not). */
int tn_layout_check_alter(const tn_table *t, const tn_delta_kv *props, uint32_t nprops);
/* DELETE FROM t, checked by t's layout before any row is read (a primary-key table: whether its
 * merge engine lets rows be deleted, with Paimon's messages). */
int tn_layout_check_delete(const tn_table *t);
/* UPDATE t SET <the columns with assigned[i] != 0>, checked by t's layout before any row is read
 * (a primary-key table: its merge engine allows updates and no key column is assigned). */
int tn_layout_check_update(const tn_table *t, const uint8_t *assigned);
/* MERGE INTO t: assigned[c] = column c is set by an UPDATE clause to something other than its
 * own key value; deletes = a DELETE clause. Primary-key tables: Paimon's rules (deduplicate and
 * partial-update only, no key column, deletes by the DELETE rule). */
int tn_layout_check_merge(const tn_table *t, const uint8_t *assigned, bool deletes);
/* What t's layout says of column col for DESCRIBE's extra column, into buf (NUL-terminated; ""
 * when nothing: a primary-key table names its bucket key, sequence field and each column's
 * aggregate function). */
int tn_layout_describe_column(const tn_table *t, uint32_t col, char *buf, size_t cap);

/* The configuration of a new OTree table (CREATE TABLE ... USING qbeast OPTIONS (...)): checks
 * 'columnsToIndex' and 'cubeSize' against the columns (errors name the table and option),
 * refuses partitioning, and returns conf plus qbeast's keys (qbeast.lastRevisionID, the staging
 * revision 0), allocated in arena. */
int tn_layout_otree_table_config(const tn_table_column_def *cols, uint32_t ncols, uint32_t npartition_columns,
                                 const tn_delta_kv *conf, uint32_t nconf, const char *table, tn_arena *arena,
                                 tn_delta_kv **out, uint32_t *nout);

/* ALTER TABLE t SET TBLPROPERTIES ('columnsToIndex' = ..., ['cubeSize' = ...]) on a plain,
 * unpartitioned Delta table: qbeast's ConvertToQbeastCommand, one metadata commit adding the
 * configuration tn_layout_otree_table_config gives (props: the SET's keys, NULL values ignored).
 * The existing files become revision 0 (unindexed: samples read and filter them; OPTIMIZE
 * indexes them). An OTree table or another layout is refused by name. */
int tn_layout_otree_convert(tn_table *t, const tn_delta_kv *props, uint32_t nprops, int64_t *version);

/* qbeast's getIndexMetrics (IndexMetrics.scala), per revision that holds files (and the latest):
 * what DESCRIBE INDEX t prints. From the log only (blocks and file sizes): no data file is read. */
typedef struct tn_layout_otree_metrics {
    int64_t revision;
    uint32_t dimensions;
    int64_t desired_cube_size;
    const char *columns;               /* "col:transformer,..." */
    int64_t elements, cubes, blocks, files, bytes;
    uint32_t height;                   /* max cube depth + 1 */
    uint32_t min_height;               /* ceil(log(ceil(N / cubeSize) * (2^d - 1) + 1) / log(2^d)) */
    double avg_fanout;                 /* children per cube that has children (at most 2^d) */
    int64_t cube_min, cube_q1, cube_median, cube_q3, cube_max;   /* elements per cube */
    double cube_avg;
    double avg_file_bytes;
} tn_layout_otree_metrics;
/* The metrics of t (an OTree table; else TN_EINVAL naming it), in arena. */
int tn_layout_otree_metrics_get(const tn_table *t, tn_arena *arena, tn_layout_otree_metrics **out, uint32_t *n);

/* A primary-key table file's bucket and the bucket count it was written with (its AddFile tags
 * bucket and bucketCount); false when it has none (or they are invalid). */
bool tn_layout_file_bucket(const tn_delta_file *f, int32_t *bucket, int32_t *count);

/* ---------------------------------------------------------------------------------------------
 * Writes.
 */
typedef enum tn_layout_write_mode {
    TN_LAYOUT_APPEND = 0,              /* blind append (bucket: upsert by key) */
    TN_LAYOUT_OVERWRITE,               /* replace the whole table, or the static partition spec */
    TN_LAYOUT_OVERWRITE_DYNAMIC,       /* replace only the partitions present in the new data */
} tn_layout_write_mode;

typedef struct tn_layout_write_options {
    int version;                       /* TN_LAYOUT_WRITE_OPTIONS_VERSION */
    tn_layout_write_mode mode;
    /* INSERT OVERWRITE ... PARTITION (k = v, ...): partition column name -> value text (NULL =
     * null). Only files of that partition are replaced; every written row must belong to it. */
    const tn_delta_kv *partition_spec;
    uint32_t npartition_spec;
    const char *app_id;                /* txn: idempotent write (skipped when the table already */
    int64_t app_version;               /* has app_id at a version >= app_version) */
    /* Per-write options (the OPTIONS('k' = 'v') hint after the table name of INSERT): each layout
     * honours the keys it knows (otree: rollupSize; plain: target_file_size, compression) and
     * refuses the rest with TN_EUNSUPPORTED naming the key. */
    const tn_delta_kv *options;
    uint32_t noptions;
    uint64_t target_file_bytes;        /* 0: table property 'target_file_size' / delta.targetFileSize, else 128 MiB */
    tn_parquet_codec codec;            /* default ZSTD ('delta.parquet.compression.codec' honoured) */
    uint64_t row_group_rows;           /* 0 = 122,880 rows (a scan morsel each) */
    uint32_t max_open_files;           /* files open at once (0 = 64; fewer if memory_limit is small) */
    /* bytes the write may hold (0 = 1 GiB): plain gives a quarter (at most 256 MiB) to the row
     * groups of its open files, which bounds how many are open, and half to the rows of the
     * partitions beyond them, spilled past it to a temporary file in <table>/_tarn_tmp/ */
    uint64_t memory_limit;
    const char *operation;             /* commitInfo operation; NULL = "WRITE" */
    const tn_delta_kv *operation_parameters;   /* extra commitInfo.operationParameters */
    uint32_t noperation_parameters;
    int max_attempts;                  /* commit attempts (0 = 20) */
    /* Cancel flag (base.h tn_interrupt_check), polled per chunk, per finished file and just
     * before the commit: once set, the write fails with TN_EINTERRUPT, removes its files and
     * commits nothing. NULL: never interrupted. */
    const int *interrupt;
    /* The caller checked every row against the table's CHECK constraints and invariants (the SQL
     * writer does); without it a table that has them refuses the write, naming the constraint. */
    bool constraints_checked;
    /* Rewrites (layout/rewrite.c: UPDATE, MERGE): called at commit once the data files are
     * closed and the commitInfo is set, to add the rewrite's removes, deletion vectors, change
     * data, read set and commitInfo to the transaction. NULL: none. */
    int (*prepare_commit)(void *ctx, tn_table_txn *txn);
    void *prepare_ctx;
    /* OPTIMIZE t WHERE <partition predicate>: only snapshot files for which file_filter returns
     * true are compacted (the SQL layer evaluates the predicate on each file's partition
     * values). NULL: every file. Layouts that cannot restrict their compaction refuse it. */
    bool (*file_filter)(void *ctx, const tn_delta_file *file);
    void *file_filter_ctx;
    /* Threads a layout may run its commit-time work on (the bucket layout: one task per bucket
     * written), idle while the write runs; NULL: the calling thread only. */
    tn_pool *pool;
    /* OPTIMIZE of an OTree table, WHERE [revision = n AND] fraction <= f (qbeast's
     * optimize(revisionID, fraction)): only the files of that revision (-1: the latest) holding a
     * block whose minWeight, as a fraction, is <= f (< f when otree_fraction_strict) are
     * rewritten, their rows re-placed against the revision's current cube maxWeights; revision 0
     * indexes the oldest unindexed files up to f of their bytes. otree_select false: the whole
     * index is rebuilt. */
    bool otree_select;
    int64_t otree_revision;
    double otree_fraction;
    bool otree_fraction_strict;
} tn_layout_write_options;
#define TN_LAYOUT_WRITE_OPTIONS_VERSION 1
#define TN_LAYOUT_WRITE_OPTIONS_INIT {TN_LAYOUT_WRITE_OPTIONS_VERSION, TN_LAYOUT_APPEND, NULL, 0, \
                                      NULL, -1, NULL, 0, 0, TN_CODEC_ZSTD, 0, 0, 0, NULL, NULL, 0, 0, NULL, false, \
                                      NULL, NULL, NULL, NULL, NULL, false, -1, 1.0, false}

typedef struct tn_layout_writer tn_layout_writer;
/* Opens a writer on t's snapshot with t's layout (t must stay open until commit/abort). opts
 * may be NULL. Refuses layouts this build does not implement. */
int tn_layout_writer_open(tn_layout_writer **out, tn_table *t, const tn_layout_write_options *opts);
/* Accepts rows (see above). NOT NULL violations fail naming the column (TN_ECONSTRAINT). After
 * a failure the writer is unusable (commit fails; abort it). Not thread-safe: callers with
 * several producers serialise the calls. */
int tn_layout_writer_write(tn_layout_writer *w, const tn_chunk *chunk);
/* Row kinds (Paimon's RowKind) per row of chunk: TN_LAYOUT_ROW_ADD (+I, +U), TN_LAYOUT_ROW_UPDATE_BEFORE
 * (-U), TN_LAYOUT_ROW_DELETE_KEY (-D). Primary-key tables merge retractions by their merge engine
 * (a -D removes the key under deduplicate); other layouts refuse them. kinds NULL: all adds. */
enum { TN_LAYOUT_ROW_ADD = 0, TN_LAYOUT_ROW_UPDATE_BEFORE = 1, TN_LAYOUT_ROW_DELETE_KEY = 2 };
int tn_layout_writer_write_kinds(tn_layout_writer *w, const tn_chunk *chunk, const uint8_t *kinds);
/* Finishes the files and commits; frees w in every case. result may be NULL. */
int tn_layout_writer_commit(tn_layout_writer *w, tn_table_commit_result *result);
/* Removes the files written and frees w. NULL is fine. */
void tn_layout_writer_abort(tn_layout_writer *w);
/* Data files written so far (for tests and progress). */
uint64_t tn_layout_writer_num_files(const tn_layout_writer *w);
/* Bytes of buffered rows spilled to the writer's temporary file so far (0 when everything fit
 * in memory_limit, or the layout never spills). */
uint64_t tn_layout_writer_spilled_bytes(const tn_layout_writer *w);

/* ---------------------------------------------------------------------------------------------
 * Rewrites (rewrite.c): UPDATE and MERGE, as one commit. The caller decides, chunk by chunk of
 * the candidate files, what happens to each row (keep, delete, or replace by a new row); the
 * rewrite scans, writes the new rows through the table's layout writer (so a new partition
 * value routes to its partition), and removes what changed: copy-on-write (every file with a
 * changed row is removed and its kept rows written again) or, on tables with
 * delta.enableDeletionVectors, deletion vectors (changed rows are marked; only the new rows are
 * written). Change data (delta.enableChangeDataFeed) gets delete, update_preimage,
 * update_postimage and insert rows. The read set is every file scanned: a concurrent writer that
 * removes or rewrites one of them conflicts; blind appends do not. On a primary-key table (bucket
 * layout) UPDATE and MERGE are upserts, as Paimon's: the new rows (keys unchanged, see
 * tn_layout_check_update / tn_layout_check_merge) go through the bucket writer, which replaces
 * each key's row, and deleted rows go to it as deletes of their key (TN_LAYOUT_ROW_DELETE_KEY);
 * the OTree layout is refused by name.
 */
typedef enum tn_layout_row_action {
    TN_LAYOUT_ROW_KEEP = 0,
    TN_LAYOUT_ROW_DELETE,
    TN_LAYOUT_ROW_UPDATE,              /* deleted, and a new row written in its place */
} tn_layout_row_action;

typedef enum tn_layout_rewrite_pass {
    TN_LAYOUT_REWRITE_MATCH = 0,       /* only action[] is wanted (finding the files that change) */
    TN_LAYOUT_REWRITE_ALL,             /* out: the kept rows and the new rows of the chunk */
    TN_LAYOUT_REWRITE_CHANGED,         /* out: the new rows only (deletion vectors) */
} tn_layout_rewrite_pass;

typedef struct tn_layout_rewrite_rows {
    uint8_t *action;                   /* per input row (tn_layout_row_action), zeroed by the caller */
    const tn_chunk *out;               /* ALL/CHANGED: rows to write (all logical columns, schema
                                        * types), borrowed until the next call; NULL = none */
    const uint8_t *out_is_new;         /* per out row: 1 = a new row (change data postimage) */
} tn_layout_rewrite_rows;

/* Called for every chunk of the candidate files (all logical columns, schema order), on one
 * thread, file by file; a file that changes is seen twice (MATCH, then ALL) with copy-on-write.
 * Decisions must be the same on both visits. */
typedef int (*tn_layout_rewrite_fn)(void *ctx, tn_layout_rewrite_pass pass, const tn_chunk *chunk,
                                    tn_layout_rewrite_rows *rows);

typedef struct tn_layout_rewrite tn_layout_rewrite;
/* Rows added by the rewrite besides replacements (MERGE's WHEN NOT MATCHED ... INSERT). */
int tn_layout_rewrite_insert(tn_layout_rewrite *rw, const tn_chunk *chunk);

typedef struct tn_layout_rewrite_options {
    int version;                       /* TN_LAYOUT_REWRITE_OPTIONS_VERSION */
    const char *operation;             /* commitInfo operation ("UPDATE", "MERGE") */
    const tn_delta_kv *operation_parameters;
    uint32_t noperation_parameters;
    const tn_table_filter *filters;    /* candidate files and row groups (a superset of the rows */
    uint32_t nfilters;                 /* the callback changes) */
    tn_layout_rewrite_fn rows;
    void *ctx;
    /* After the scan: adds rows with tn_layout_rewrite_insert. NULL = none. */
    int (*insert)(void *ctx, tn_layout_rewrite *rw);
    bool constraints_checked;          /* the caller checked new rows against CHECK constraints */
    const int *interrupt;
    int max_attempts;
    int64_t num_source_rows;           /* MERGE: commitInfo numSourceRows (-1: not reported) */
} tn_layout_rewrite_options;
#define TN_LAYOUT_REWRITE_OPTIONS_VERSION 1
#define TN_LAYOUT_REWRITE_OPTIONS_INIT {TN_LAYOUT_REWRITE_OPTIONS_VERSION, NULL, NULL, 0, NULL, 0, NULL, NULL, \
                                        NULL, false, NULL, 0, -1}

typedef struct tn_layout_rewrite_result {
    int64_t version;                   /* -1: nothing committed (nothing changed) */
    uint64_t rows_updated, rows_deleted, rows_inserted, rows_copied;
    uint64_t files_removed, files_added, files_scanned;
} tn_layout_rewrite_result;

/* Runs the rewrite and commits it (nothing changed: no commit). The metrics are also written to
 * commitInfo.operationMetrics under Delta's names (numUpdatedRows, numDeletedRows,
 * numTargetRowsInserted, numCopiedRows, numRemovedFiles, numAddedFiles, ...). */
int tn_layout_rewrite_run(tn_table *t, const tn_layout_rewrite_options *opts, tn_layout_rewrite_result *result);

/* OPTIMIZE t [WHERE partition predicate] [WITH (options)]: the layout compacts its files (a
 * primary-key table: every bucket with several files or deletion vectors becomes one file; with
 * opts->file_filter only the buckets of the files it accepts), committing removes and adds with
 * dataChange = false. Options: the layout's per-write keys; others refused by name. A layout
 * without compaction refuses (TN_EUNSUPPORTED naming it). result may be NULL. */
int tn_layout_optimize(tn_table *t, const tn_layout_write_options *opts, tn_table_commit_result *result);

/* ---------------------------------------------------------------------------------------------
 * Scans: the layout plans a table scan (adding its own file and row-group restrictions, e.g.
 * bucket pruning by the key, OTree files and blocks by sample weight).
 */
typedef struct tn_layout_scan_options {
    int version;                       /* TN_LAYOUT_SCAN_OPTIONS_VERSION */
    tn_table_scan_options scan;        /* columns, filters (restrictions are the layout's) */
    double sample_percent;             /* TABLESAMPLE (p PERCENT); 0 = no sample */
    int64_t sample_rows;               /* TABLESAMPLE (n ROWS), n > 0; 0 = none (a layout that cannot
                                        * sample rows leaves *sampled false: the caller samples) */
} tn_layout_scan_options;
#define TN_LAYOUT_SCAN_OPTIONS_VERSION 1
#define TN_LAYOUT_SCAN_OPTIONS_INIT {TN_LAYOUT_SCAN_OPTIONS_VERSION, TN_TABLE_SCAN_OPTIONS_INIT, 0, 0}

/* Plans the scan of t. *sampled (may be NULL) is set true when the layout itself reduced the
 * scan to a sample of about sample_percent (the caller must not sample again); false when it
 * returns every row (the caller samples rows, as for a plain table). */
int tn_layout_scan_open(tn_table_scan **out, bool *sampled, tn_table *t, const tn_layout_scan_options *opts);

#endif
