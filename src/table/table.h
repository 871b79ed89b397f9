/*
 * table/table.h: a table = a Delta snapshot + its schema + its (plain, Hive-partitioned) layout.
 * Create a table (version 0), open a snapshot (latest, at a version, at a timestamp), plan and
 * run scans (projection, partition pruning, stats skipping, row-group/page pruning, deletion
 * vectors, partition constants, type widening, restriction to chosen files and row groups; one
 * morsel per (file, row group)), the write mechanisms (transactions: adds, removes, metadata,
 * txn, commitInfo, committed through the optimistic retry loop with a declared read set; file
 * writers: rows of one partition into rolling Parquet files with stats and tags), delete rows
 * (copy-on-write), alter metadata, history and vacuum. Depends on delta/, parquet/, types/,
 * base/. How rows are placed into files (partition routing, buckets, cubes) is layout/'s
 * business: layout/ drives writes through this API, table/ knows nothing of layouts.
 *
 * Conventions: functions return 0 or a negative TN_E* code with the message set; output
 * parameters first; a tn_table is an immutable snapshot (thread-safe to scan from many threads);
 * writes read the snapshot they were opened on and commit at the next free version.
 */
#ifndef TN_TABLE_H
#define TN_TABLE_H

#include "delta/delta.h"
#include "parquet/parquet.h"

#define TN_ENGINE_INFO "tarn/0.1.0"
#define TN_TABLE_DEFAULT_TARGET_FILE_BYTES ((uint64_t)128 << 20)
#define TN_TABLE_DEFAULT_RETENTION_HOURS 168.0
/* Columns a table may have: the writer and the scan keep per-column arrays of this size. */
#define TN_TABLE_MAX_COLUMNS 512

/* ---------------------------------------------------------------------------------------------
 * Create and open.
 */
typedef struct tn_table_column_def {
    const char *name;
    tn_type type;
    bool nullable;                     /* false = NOT NULL */
    const char *comment;               /* stored in the field metadata as "comment"; may be NULL */
} tn_table_column_def;

typedef struct tn_table_create_options {
    int version;                       /* TN_TABLE_CREATE_OPTIONS_VERSION */
    const tn_table_column_def *columns;
    uint32_t ncolumns;
    const char *const *partition_columns;   /* names (must be columns), in directory order */
    uint32_t npartition_columns;
    const tn_delta_kv *configuration;  /* WITH / OPTIONS / TBLPROPERTIES, stored as given */
    uint32_t nconfiguration;
    const char *name;                  /* metaData.name (optional) */
    const char *description;           /* metaData.description (optional) */
    bool if_not_exists;                /* an existing table is success (nothing written) */
    const char *operation;             /* commitInfo operation; NULL = "CREATE TABLE" */
} tn_table_create_options;
#define TN_TABLE_CREATE_OPTIONS_VERSION 1
#define TN_TABLE_CREATE_OPTIONS_INIT {TN_TABLE_CREATE_OPTIONS_VERSION, NULL, 0, NULL, 0, NULL, 0, \
                                      NULL, NULL, false, NULL}

/* Writes version 0 of a new Delta table at path (directories created): commitInfo (CREATE
 * TABLE), protocol (1,2) (or (3,7) with timestampNtz when a column is TIMESTAMP without zone),
 * metaData. Column names must be unique case-insensitively; nested types are not supported.
 * TN_EEXISTS "table 'path' already exists" unless if_not_exists. */
int tn_table_create(tn_fs *fs, const char *path, const tn_table_create_options *opts);

typedef struct tn_table tn_table;

/* CREATE TABLE AS SELECT in one commit: checks opts as tn_table_create does (no table may be at
 * path; if_not_exists is refused) and returns a table whose snapshot has version -1 and no
 * files. Only a writer may use it: its commit writes version 0 holding commitInfo, protocol,
 * metaData and the data files, so a failed write leaves no table (the directory may stay,
 * empty). Another create winning version 0 first fails the commit with TN_EEXISTS. Close it
 * with tn_table_close. */
int tn_table_create_staged(tn_table **out, tn_fs *fs, const char *path, const tn_table_create_options *opts);

typedef struct tn_table_open_options {
    int version;                       /* TN_TABLE_OPEN_OPTIONS_VERSION */
    int64_t at_version;                /* -1 = latest (VERSION AS OF n) */
    bool has_at_timestamp;             /* TIMESTAMP AS OF: latest commit with timestamp <= ms */
    int64_t at_timestamp_ms;
} tn_table_open_options;
#define TN_TABLE_OPEN_OPTIONS_VERSION 1
#define TN_TABLE_OPEN_OPTIONS_INIT {TN_TABLE_OPEN_OPTIONS_VERSION, -1, false, 0}

/* Loads a snapshot. opts may be NULL (latest). TN_ENOTFOUND "no Delta table at 'path'" when
 * there is no log. The fs must outlive the table. Close with tn_table_close. */
int tn_table_open(tn_table **out, tn_fs *fs, const char *path, const tn_table_open_options *opts);
void tn_table_close(tn_table *t);
/* Parses 'YYYY-MM-DD[ HH:MM:SS[.ffffff]][Z|+hh:mm]' (as UTC when no zone) into ms since epoch,
 * for TIMESTAMP AS OF. */
int tn_table_parse_timestamp_ms(const char *text, int64_t *out);

/* Accessors (borrowed from the table, valid until tn_table_close). */
const tn_delta_snapshot *tn_table_snapshot(const tn_table *t);
const char *tn_table_path(const tn_table *t);
tn_fs *tn_table_fs(const tn_table *t);
int64_t tn_table_version(const tn_table *t);
/* Logical columns in schema order (name, type, nullable, is_partition, nested ...). */
uint32_t tn_table_num_columns(const tn_table *t);
const tn_delta_column *tn_table_column(const tn_table *t, uint32_t i);
/* Index of a column by name (case-insensitive), -1 if none. */
int tn_table_column_index(const tn_table *t, const char *name);
/* Configuration value (metaData.configuration) or NULL. */
const char *tn_table_property(const tn_table *t, const char *key);

/* ---------------------------------------------------------------------------------------------
 * Scans. A filter is `column OP constant` on a LOGICAL column (index into the table's columns);
 * the constant should have the column's type (numeric constants of other numeric types are
 * compared by value; anything else incomparable just disables skipping for that filter).
 * Filters only skip data (partitions, files by add.stats, row groups and pages): the scan
 * returns a superset of the matching rows and the caller still evaluates its predicate —
 * except that files pruned on partition columns are exact.
 */
typedef struct tn_table_filter {
    uint32_t column;                   /* logical column index */
    tn_parquet_op op;
    tn_value constant;                 /* ignored for IS [NOT] NULL; strings borrowed */
} tn_table_filter;

/* Restricted scans (what layouts use to read just some files and row groups):
 * tn_table_scan_open_files limits the scan to chosen snapshot files; file_filter skips files
 * before any I/O (add.tags, add.stats); row_group_filter, after a file's footer is read, sets
 * keep[rg] = 0 to skip row group rg. It is called (on the planning thread, in file order) with
 * keep[] already 0 where statistics or the deletion vector skip the group, and may clear more
 * (or every entry: the file is skipped). The footer (pf: row groups, column chunk statistics,
 * key-value metadata) is borrowed for the call; file is the index into the snapshot's files; a
 * non-zero return fails the plan with that code. */
typedef int (*tn_table_scan_row_group_fn)(void *ctx, uint32_t file, const tn_delta_file *f,
                                          const tn_parquet_file *pf, uint8_t *keep, uint32_t nrow_groups);

/* Row limits (after row_group_filter): limit[rg] (preset to -1 = every row) may be set to n >= 0
 * to read only the row group's first n rows (0 skips it, counted as excluded): for layouts that
 * order a file's rows so that a query needs a prefix of each row group (OTree files in weight
 * order: a sample needs the rows below its weight). Same calling rules as row_group_filter. */
typedef int (*tn_table_scan_row_limit_fn)(void *ctx, uint32_t file, const tn_delta_file *f,
                                          const tn_parquet_file *pf, const uint8_t *keep, int64_t *limit,
                                          uint32_t nrow_groups);

typedef struct tn_table_scan_options {
    int version;                       /* TN_TABLE_SCAN_OPTIONS_VERSION */
    const uint32_t *columns;           /* logical columns to output, in order */
    uint32_t ncolumns;
    bool all_columns;                  /* ignore columns/ncolumns: every column in schema order */
    const tn_table_filter *filters;
    uint32_t nfilters;
    /* Layouts: a file for which file_filter returns false is skipped (counted as pruned), e.g.
     * a primary-key table's bucket pruning by add.tags, OTree files by their blocks' weights.
     * Runs before any I/O. NULL = every file. */
    bool (*file_filter)(void *ctx, const tn_delta_file *file);
    void *file_filter_ctx;
    /* Deletion vectors are not applied: chunks hold every row of the file, rows
     * [first_row, first_row + count) (a layout that writes DVs locates rows by position). */
    bool ignore_dvs;
    /* Layouts: per file, after its footer is read (see tn_table_scan_row_group_fn). NULL = all. */
    tn_table_scan_row_group_fn row_group_filter;
    void *row_group_filter_ctx;
    /* Layouts: an exact row filter (e.g. an OTree sample: hash(indexed columns) < weight). The
     * scan also reads row_filter_columns (logical indexes, not output) and calls row_filter with
     * a chunk of just those columns (after deletion vectors); it sets keep[i] = 0 for rows to
     * drop. Any thread; a non-zero return fails the morsel. NULL = every row. */
    const uint32_t *row_filter_columns;
    uint32_t nrow_filter_columns;
    int (*row_filter)(void *ctx, const tn_chunk *cols, uint8_t *keep);
    void *row_filter_ctx;
    void (*row_filter_free)(void *ctx);  /* called on row_filter_ctx by tn_table_scan_close (or a failed open) */
    /* Layouts: per file, after row_group_filter (see tn_table_scan_row_limit_fn). NULL = none. */
    tn_table_scan_row_limit_fn row_group_limit;
    void *row_group_limit_ctx;
    /* NULL, or per output column (columns/ncolumns order) a STRUCT type keeping only some of the
     * column's fields (logical names, at any depth), or TN_TYPE_NULL for the whole column: only
     * those fields' leaves are read from the files; the chunks still carry the column's full
     * type, the other fields NULL (callers that never look at them: sql/optimize_leaves.c). */
    const tn_type *read_types;
} tn_table_scan_options;
#define TN_TABLE_SCAN_OPTIONS_VERSION 1
#define TN_TABLE_SCAN_OPTIONS_INIT {TN_TABLE_SCAN_OPTIONS_VERSION, NULL, 0, false, NULL, 0, NULL, NULL, false, \
                                    NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL}

/* What a scan read against what the table holds (--stats). Atomically updated by morsels. */
typedef struct tn_table_scan_stats {
    uint64_t files_scanned;            /* files with at least one row group to read */
    uint64_t row_groups_scanned;
    uint64_t rows_scanned;             /* rows decoded from storage (before deletion vectors) */
    uint64_t bytes_scanned;            /* compressed bytes read */
    uint64_t table_files;
    uint64_t table_rows;               /* sum of numRecords (files without stats: footer rows) */
    uint64_t table_bytes;
    uint64_t files_pruned;             /* by partition values */
    uint64_t files_skipped;            /* by add.stats */
    uint64_t row_groups_skipped;       /* by row-group statistics */
    uint64_t row_groups_excluded;      /* by row_group_filter (file_filter counts as pruned) */
} tn_table_scan_stats;

typedef struct tn_table_scan tn_table_scan;

/* Plans the scan: prunes files, opens the footers of the remaining files, prunes row groups,
 * reads the deletion vectors of files with a row group left, and builds the morsel list. A nested column in the projection fails
 * by name ("column 'a' has nested type struct<...>: not supported"). The scan borrows t. */
int tn_table_scan_open(tn_table_scan **out, tn_table *t, const tn_table_scan_options *opts);
void tn_table_scan_close(tn_table_scan *scan);
/* A scan over some of the snapshot's files only (indexes into tn_table_snapshot(t)->files). */
int tn_table_scan_open_files(tn_table_scan **out, tn_table *t, const tn_table_scan_options *opts,
                             const uint32_t *files, uint32_t nfiles);
/* Output schema: ncolumns and their (logical, table) types. */
uint32_t tn_table_scan_num_columns(const tn_table_scan *scan);
const tn_type *tn_table_scan_types(const tn_table_scan *scan);
uint32_t tn_table_scan_num_morsels(const tn_table_scan *scan);
/* Index of the data file (in the snapshot's files) a morsel reads, and its row group. */
void tn_table_scan_morsel_info(const tn_table_scan *scan, uint32_t morsel, uint32_t *file,
                               uint32_t *row_group);
/* Runs one morsel (any thread; morsels are independent): calls fn with each output chunk
 * (the scan's output columns, at most TN_VECTOR_SIZE rows, deleted rows removed; count-only
 * chunks with ncols = 0 when no column was asked for). The chunk is borrowed for the call;
 * first_row is the file row index of the chunk's first row before DV removal. A non-zero
 * return from fn stops the morsel and is returned. */
typedef int (*tn_table_chunk_fn)(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row);
int tn_table_scan_run_morsel(tn_table_scan *scan, uint32_t morsel, tn_table_chunk_fn fn, void *ctx);
/* Runs every morsel in order on the calling thread. */
int tn_table_scan_run(tn_table_scan *scan, tn_table_chunk_fn fn, void *ctx);
/* Whether snapshot file f may hold a row matching every filter, by its add.stats (non-partition
 * columns) and partition values: false only when it certainly holds none (what layouts use to
 * know that new keys cannot be in a file without reading it). */
bool tn_table_file_may_match(const tn_table *t, const tn_delta_file *f, const tn_table_filter *filters,
                             uint32_t nfilters);
/* Counters so far (copied). */
void tn_table_scan_get_stats(const tn_table_scan *scan, tn_table_scan_stats *out);

/* Typed value of a partition value string for a column type (partition text spelling:
 * integers, true/false, decimals, YYYY-MM-DD, 'YYYY-MM-DD HH:MM:SS[.f]' or ISO-8601 with Z or
 * an offset). NULL, "" and __HIVE_DEFAULT_PARTITION__ give is_null. Strings borrow text. */
int tn_table_partition_value_parse(tn_value *out, tn_type type, const char *text);

/* ---------------------------------------------------------------------------------------------
 * Transactions (txn.c): the commit primitive. A transaction is opened on t's snapshot, collects
 * what the commit will hold (files added by file writers opened in it, removes of snapshot
 * files, a new metaData configuration, a txn appId/version, commitInfo operation, parameters
 * and metrics) and what it read, then commits at the next free version through the optimistic
 * loop: when another writer won a version, its actions are checked against what this
 * transaction declared it read (tn_delta_check_conflict) and the commit retries, or fails with
 * TN_ECONFLICT naming the conflict. Declare reads precisely: two transactions that rewrite
 * different buckets of one partition must declare those buckets (read_matching), not the
 * partition, or they will conflict; every removed file is read implicitly (a winner removing
 * it too conflicts).
 *
 * Layouts (layout/) build their writes from transactions and file writers; table/ itself
 * knows nothing of layouts. A transaction with nothing read, no removes and no metadata
 * change is a blind append (never conflicts on data). A failed or aborted transaction removes
 * every file its writers wrote; nothing is committed.
 */

/* What a commit did. */
typedef struct tn_table_commit_result {
    int64_t version;                   /* committed version; -1 when nothing was committed */
    bool skipped;                      /* txn app_id/version already applied: nothing done */
    uint64_t files_added, files_removed;
    uint64_t rows_written;             /* rows in added files */
    uint64_t rows_deleted;             /* DELETE: rows removed */
    uint64_t bytes_added;
    int attempts;                      /* commit attempts used */
} tn_table_commit_result;

typedef struct tn_table_txn tn_table_txn;

/* Opens a transaction on t's snapshot (t must stay open until commit/abort). Refuses tables
 * whose protocol this writer does not support. max_attempts: commit attempts (0 = 20). */
int tn_table_txn_open(tn_table_txn **out, tn_table *t, int max_attempts);
tn_table *tn_table_txn_table(const tn_table_txn *txn);

/* Read set. Partition values are keyed by physical column name (as add.partitionValues), value
 * text as logged (NULL = null); copied. A file is a snapshot file (borrowed from t). */
int tn_table_txn_read_table(tn_table_txn *txn);
int tn_table_txn_read_partition(tn_table_txn *txn, const tn_delta_kv *values, uint32_t nvalues);
int tn_table_txn_read_file(tn_table_txn *txn, const tn_delta_file *file);
/* A winner's added or removed file for which fn returns true conflicts (e.g. "partition p,
 * bucket 3"). fn and ctx must stay valid until commit; fn runs on the committing thread. */
typedef bool (*tn_table_file_pred)(void *ctx, const tn_delta_file *file);
int tn_table_txn_read_matching(tn_table_txn *txn, tn_table_file_pred fn, void *ctx);

/* Changes. remove: a file of t's snapshot (by pointer, e.g. &tn_table_snapshot(t)->files[i]),
 * data_change = false for rewrites that keep the data (OPTIMIZE, compaction); the file is read
 * implicitly. Removing twice is an error. Refused with data_change on a delta.appendOnly table. */
int tn_table_txn_remove(tn_table_txn *txn, const tn_delta_file *file, bool data_change);
/* An add action made elsewhere (e.g. a file with a new deletion vector); copied. File writers
 * add their files themselves (tn_table_file_writer_close). */
int tn_table_txn_add(tn_table_txn *txn, const tn_delta_file *file);
/* metaData.configuration changes in this commit (value NULL removes the key); cumulative. The
 * commit then also conflicts with any concurrent commit that wrote files or metadata. */
int tn_table_txn_set_configuration(tn_table_txn *txn, const tn_delta_kv *props, uint32_t nprops);
/* A whole new metaData (schema and configuration) in this commit; borrowed until commit. Later
 * tn_table_txn_set_configuration calls change its configuration. */
int tn_table_txn_set_metadata(tn_table_txn *txn, const tn_delta_metadata *md);
/* txn action (idempotent writes). Returns true in *applied when the snapshot already has app_id
 * at a version >= app_version: the caller should write nothing (a commit then skips). */
int tn_table_txn_set_app(tn_table_txn *txn, const char *app_id, int64_t app_version, bool *applied);
/* commitInfo: operation (NULL = "WRITE"), operationParameters and operationMetrics (string
 * values, as Delta writes them); copied. */
int tn_table_txn_set_commit_info(tn_table_txn *txn, const char *operation, const tn_delta_kv *params,
                                 uint32_t nparams, const tn_delta_kv *metrics, uint32_t nmetrics);
/* Cancel flag (base.h tn_interrupt_check) polled by the transaction's file writers (per write,
 * per finished file) and just before the commit: once set, they fail with TN_EINTERRUPT and the
 * transaction commits nothing (abort it). NULL: never interrupted. */
void tn_table_txn_set_interrupt(tn_table_txn *txn, const int *flag);
/* Data files of the transaction's file writers are not fsynced one by one as they close but all
 * together, from several threads, just before the commit (the same guarantee: nothing names a
 * file before it is on disk), which is much faster for writes of many files (a bucket layout's
 * 32 buckets per partition). */
void tn_table_txn_set_deferred_sync(tn_table_txn *txn, bool on);
/* What the rows its file writers get are: checked by the caller against the table's CHECK
 * constraints and invariants, or the table's own rows rewritten (DELETE). A file writer on a
 * table with constraints refuses to open without one of them; with generated or identity
 * columns, without rows_from_table (tarn does not compute them). */
void tn_table_txn_set_rows_checked(tn_table_txn *txn, bool constraints_checked, bool rows_from_table);
/* Adds a cdc action (change data file written by the caller, tracked for removal on failure). */
int tn_table_txn_add_cdc(tn_table_txn *txn, const tn_delta_file *cdc);
/* A file (full path) written for this transaction outside its file writers (a DV file, change
 * data): removed if the transaction aborts or fails. */
int tn_table_txn_track_file(tn_table_txn *txn, const char *full_path);
/* Adds collected so far (from closed file writers and tn_table_txn_add), borrowed. */
uint32_t tn_table_txn_num_adds(const tn_table_txn *txn);
const tn_delta_file *tn_table_txn_add_at(const tn_table_txn *txn, uint32_t i);
/* Data files written by the transaction's file writers so far (closed or not). */
uint64_t tn_table_txn_num_files_written(const tn_table_txn *txn);

/* Commits (every file writer must be closed or aborted); frees txn in every case. A
 * transaction with no action at all commits nothing (result version -1). On failure, or when
 * the txn appId turns out to be applied by a concurrent writer (result skipped), the files
 * written are removed. result may be NULL. */
int tn_table_txn_commit(tn_table_txn *txn, tn_table_commit_result *result);
/* Removes every file written and frees txn (and any file writer still open in it). */
void tn_table_txn_abort(tn_table_txn *txn);

/* ---------------------------------------------------------------------------------------------
 * File writers (write.c): the file-writer primitive. Writes rows of ONE partition into one data
 * file, or a rolling sequence of files at a target size, for a transaction. Rows come as chunks
 * holding ALL the table's logical columns in schema order with exactly the schema's types
 * (partition columns are not stored: the caller has routed the rows, and they are not checked).
 * Row groups end at row_group_rows / row_group_bytes, or where the caller says
 * (tn_table_file_writer_flush). Stats (add.stats) are collected per file. Each finished file
 * becomes an add action (dataChange as given, add.tags as given) that the transaction commits;
 * nothing is committed by the writer. Abort (or a failed write) removes what it wrote.
 *
 * File name: [<col=value>/...]part-<5 digits>-[<infix>-]<uuid>-c000.<codec>.parquet.
 *
 * Threads: the file writers of one transaction may run on different threads at once (each
 * writer used by one thread at a time; what they share in the transaction is locked), e.g. a
 * bucket layout writing its buckets as pool tasks. Every other call on a transaction is made
 * from one thread, with no file writer of it running.
 */
typedef struct tn_table_file_writer_options {
    int version;                       /* TN_TABLE_FILE_WRITER_OPTIONS_VERSION */
    /* one entry per partition column (any order; key = physical or logical name, value = the
     * Delta partition text, NULL = null); NULL/0 for an unpartitioned table */
    const tn_delta_kv *partition_values;
    uint32_t npartition_values;
    const tn_delta_kv *tags;           /* add.tags of every file written (copied) */
    uint32_t ntags;
    const char *name_infix;            /* [A-Za-z0-9._-]{0,64}: in the file names; NULL = none */
    uint64_t target_file_bytes;        /* roll past this size; 0 = the table's (tn_table_target_file_bytes), UINT64_MAX = never */
    int codec;                         /* a tn_parquet_codec; -1 = 'delta.parquet.compression.codec', else ZSTD */
    uint64_t row_group_rows;           /* automatic boundary; 0 = 122,880, UINT64_MAX = explicit flushes only */
    uint64_t row_group_bytes;          /* automatic boundary on buffered bytes; 0 = 128 MiB capped at the target */
    bool data_change;                  /* add.dataChange (false for rewrites: OPTIMIZE) */
} tn_table_file_writer_options;
#define TN_TABLE_FILE_WRITER_OPTIONS_VERSION 1
#define TN_TABLE_FILE_WRITER_OPTIONS_INIT {TN_TABLE_FILE_WRITER_OPTIONS_VERSION, NULL, 0, NULL, 0, NULL, \
                                           0, -1, 0, 0, true}

typedef struct tn_table_file_writer tn_table_file_writer;
/* Opens a writer in txn (no file is created before the first row). Refuses tables with nested
 * columns and partition values that do not name every partition column once. */
int tn_table_file_writer_open(tn_table_file_writer **out, tn_table_txn *txn,
                              const tn_table_file_writer_options *opts);
/* Appends rows sel[0..n) of chunk (sel NULL = rows 0..n-1). NOT NULL violations fail naming the
 * column (TN_ECONSTRAINT). After any failure the writer is unusable (abort it). */
int tn_table_file_writer_write(tn_table_file_writer *fw, const tn_chunk *chunk, const uint32_t *sel,
                               uint32_t n);
/* Ends the current row group (an explicit boundary; no-op when it is empty). */
int tn_table_file_writer_flush(tn_table_file_writer *fw);
/* Ends the current file; the next row starts a new one (no-op when no file is open). */
int tn_table_file_writer_roll(tn_table_file_writer *fw);
/* Tags for the current file (if one is open) and the following ones; copied. */
int tn_table_file_writer_set_tags(tn_table_file_writer *fw, const tn_delta_kv *tags, uint32_t ntags);
/* Extra Parquet footer key-value metadata (at most 8 pairs, copied) of the files opened after
 * the call (a layout's per-file reading aids, e.g. where an OTree file's weight-ordered pages
 * start); n = 0 clears. */
int tn_table_file_writer_set_footer(tn_table_file_writer *fw, const tn_delta_kv *kv, uint32_t n);
/* Ends the current data page of every column (an explicit page boundary; no-op without rows). */
int tn_table_file_writer_end_page(tn_table_file_writer *fw);
/* Bytes of the current file so far (written + buffered) and rows in it; files finished. */
uint64_t tn_table_file_writer_file_bytes(const tn_table_file_writer *fw);
uint64_t tn_table_file_writer_file_rows(const tn_table_file_writer *fw);
uint32_t tn_table_file_writer_num_files(const tn_table_file_writer *fw);
/* Memory the writer holds for the open file's current row group (encoded pages). */
uint64_t tn_table_file_writer_buffered_bytes(const tn_table_file_writer *fw);
/* Ends the open file and hands every file's add action to the transaction; frees fw in every
 * case (on failure the writer's files are removed, and the transaction should be aborted). */
int tn_table_file_writer_close(tn_table_file_writer *fw);
/* Removes every file fw wrote (none of its adds reach the transaction) and frees fw. */
void tn_table_file_writer_abort(tn_table_file_writer *fw);

/* The table's target file size: 'target_file_size', else 'delta.targetFileSize' (bytes, or
 * with a k/m/g suffix), else TN_TABLE_DEFAULT_TARGET_FILE_BYTES. */
uint64_t tn_table_target_file_bytes(const tn_table *t);
/* Parses a size text ("128m", "1048576", "64 KB"); 0 when not a positive size. */
uint64_t tn_table_parse_size(const char *text);
/* Delta partition text of a typed value ("" strings and NULL give *is_null); appends. */
int tn_table_partition_text(tn_buf *out, const tn_value *v, bool *is_null);

/* DELETE FROM t [WHERE ...], copy-on-write. filters (optional) skip files that cannot hold a
 * matching row; fn (NULL = every row matches) is called with chunks of ALL logical columns in
 * schema order and sets match[i] = 1 for each row to delete. Files without matches are left
 * untouched; the others are rewritten without the matching rows (the old file removed).
 * predicate_text goes into commitInfo.operationParameters.predicate. Retries like a write. */
typedef int (*tn_table_match_fn)(void *ctx, const tn_chunk *chunk, uint8_t *match);
typedef struct tn_table_delete_options {
    int version;                       /* TN_TABLE_DELETE_OPTIONS_VERSION */
    const tn_table_filter *filters;
    uint32_t nfilters;
    tn_table_match_fn match;
    void *match_ctx;
    const char *predicate_text;
    const char *app_id;
    int64_t app_version;
    int max_attempts;
    /* Cancel flag (base.h tn_interrupt_check), polled per file and chunk and just before the
     * commit: once set, the delete fails with TN_EINTERRUPT, removes its files and commits
     * nothing. NULL: never interrupted. */
    const int *interrupt;
} tn_table_delete_options;
#define TN_TABLE_DELETE_OPTIONS_VERSION 1
#define TN_TABLE_DELETE_OPTIONS_INIT {TN_TABLE_DELETE_OPTIONS_VERSION, NULL, 0, NULL, NULL, \
                                      NULL, NULL, -1, 0, NULL}
int tn_table_delete(tn_table *t, const tn_table_delete_options *opts, tn_table_commit_result *result);

/* A commit assembled by a layout, in one call (commit.c; a transaction underneath):
 * commitInfo (operation, parameters), txn (app_id), a remove for each of `removes` (live files
 * of the snapshot; a file re-added with a new deletion vector is removed with its old one and
 * re-added in `adds`), then `adds` (copied). data_change false marks every remove and add
 * dataChange=false (compaction: no logical change). The read set for the conflict check: the
 * removed files, read_files (logged paths), read_partitions, read_add (winner adds that fall
 * into what was read) and read_whole_table. isBlindAppend is derived from the read set
 * (is_blind_append is not consulted). Retries like a write. */
typedef struct tn_table_commit_options {
    int version;                       /* TN_TABLE_COMMIT_OPTIONS_VERSION */
    const char *operation;
    const tn_delta_kv *operation_parameters;
    uint32_t noperation_parameters;
    const tn_delta_file *const *removes;
    uint32_t nremoves;
    const tn_delta_action *adds;
    uint32_t nadds;
    bool data_change;
    bool is_blind_append;
    bool read_whole_table;
    const tn_delta_partition_spec *read_partitions;
    uint32_t nread_partitions;
    const char *const *read_files;
    uint32_t nread_files;
    bool (*read_add)(void *ctx, const tn_delta_file *add);
    void *read_add_ctx;
    const tn_delta_metadata *metadata; /* a new metaData in the same commit (NULL = unchanged) */
    const char *app_id;
    int64_t app_version;
    int max_attempts;
} tn_table_commit_options;
#define TN_TABLE_COMMIT_OPTIONS_VERSION 1
#define TN_TABLE_COMMIT_OPTIONS_INIT {TN_TABLE_COMMIT_OPTIONS_VERSION, NULL, NULL, 0, NULL, 0, NULL, 0, true, \
                                      false, false, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, -1, 0}
int tn_table_commit(tn_table *t, const tn_table_commit_options *opts, tn_table_commit_result *result);

/* ---------------------------------------------------------------------------------------------
 * Deletion vectors on write (dv.c) and change data (cdf.c): the building blocks DELETE uses and
 * UPDATE, MERGE and primary-key writers are meant to share.
 */
/* delta.enableDeletionVectors = true on a protocol with deletionVectors: deletes write DVs. */
bool tn_table_dv_enabled(const tn_table *t);
typedef struct tn_table_dv_batch tn_table_dv_batch;
typedef struct tn_table_dv_result {
    const tn_delta_file **removes;     /* old logical files (path + old DV): commit their removes */
    uint32_t nremoves;
    tn_delta_action *adds;             /* the same files with their new DV (stats tightBounds false) */
    uint32_t nadds;
    uint64_t rows_deleted;             /* rows newly deleted */
    const char *dv_path;               /* the DV file written (remove it if the commit fails) */
} tn_table_dv_result;
int tn_table_dv_batch_open(tn_table_dv_batch **out, tn_table *t);
/* Marks rows of t's snapshot file `file` (file row indexes: see tn_table_scan_row_indexes) as
 * deleted; any order, repeats and already-deleted rows allowed. */
int tn_table_dv_batch_mark(tn_table_dv_batch *b, uint32_t file, const uint64_t *rows, uint32_t n);
/* Writes the DV file (one DV per touched file: old DV united with the marks); actions in arena. */
int tn_table_dv_batch_finish(tn_table_dv_batch *b, tn_arena *arena, tn_table_dv_result *out);
void tn_table_dv_batch_free(tn_table_dv_batch *b);
/* The file row index of each of the `count` rows of a scan chunk (file, first_row as the chunk
 * callback got them), skipping the rows the file's DV already deletes. */
int tn_table_scan_row_indexes(const tn_table_scan *scan, uint32_t file, int64_t first_row, uint32_t count,
                              uint64_t *out);

/* delta.enableChangeDataFeed = true on a protocol with changeDataFeed. */
bool tn_table_cdf_enabled(const tn_table *t);
typedef struct tn_table_cdc tn_table_cdc;
int tn_table_cdc_open(tn_table_cdc **out, tn_table *t);
/* Records rows sel[0..n) (sel NULL: the first n) of chunk (ALL logical columns, schema order)
 * with _change_type = change_type ("delete", "insert", "update_preimage", "update_postimage"). */
int tn_table_cdc_write(tn_table_cdc *c, const tn_chunk *chunk, const uint32_t *sel, uint32_t n,
                       const char *change_type);
/* Closes the files: the cdc actions the commit must hold, in arena. */
int tn_table_cdc_finish(tn_table_cdc *c, tn_arena *arena, tn_delta_action **out, uint32_t *n);
/* abort: removes the files written and frees; free: keeps them (after a commit). */
void tn_table_cdc_abort(tn_table_cdc *c);
void tn_table_cdc_free(tn_table_cdc *c);
void tn_table_cdc_remove_files(tn_table_cdc *c);

/* The change data feed of versions [from, to] (changes.c): a table whose scan returns the rows
 * changed, with the table's columns (the range's last schema) then _change_type (from cdc files,
 * else NULL), __tn_change_type ('insert' / 'delete' for versions without cdc files: their adds
 * and removes), _commit_version and _commit_timestamp. Bounds by version (to < 0: latest) or
 * by timestamp (from: first commit at or after; to: last at or before). Errors name the range
 * or the version without change data. Close with tn_table_close. */
typedef struct tn_table_changes_options {
    int64_t from_version, to_version;
    bool has_from_timestamp, has_to_timestamp;
    int64_t from_timestamp_ms, to_timestamp_ms;
} tn_table_changes_options;
int tn_table_changes_open(tn_table **out, tn_fs *fs, const char *path, const tn_table_changes_options *o);

/* The increment a continuous job reads (increment.c): the snapshot at `version` with its file
 * list replaced by files[0..nfiles) (add actions of that or earlier versions; strings borrowed,
 * so they must outlive the table). A file removed since is read by path while it exists. Only
 * for reading. Close with tn_table_close. */
int tn_table_open_increment(tn_table **out, tn_fs *fs, const char *path, int64_t version,
                            const tn_delta_file *files, uint32_t nfiles);

/* Metadata changes (alter.c). Each commits a metaData action, and the protocol the new metadata
 * needs when it uses a feature the table's protocol lacks (features.c).
 *
 * ALTER TABLE t SET (k = v, ...) / UNSET (value NULL): every delta.* key is checked against the
 * properties tarn honours (props.c: others are refused by name); delta.feature.<f> = supported
 * and delta.minReaderVersion/minWriterVersion raise the protocol and are not stored;
 * delta.columnMapping.mode may go from none to name (the current names become the physical
 * names). A new delta.constraints.* key is refused here: tn_table_add_constraint adds it once the
 * caller checked the existing rows. */
int tn_table_set_properties(tn_table *t, const tn_delta_kv *props, uint32_t nprops,
                            int64_t *version);
/* ALTER TABLE t ADD COLUMN: appends nullable columns to the schema (old files read them as
 * NULL); under column mapping they get ids and physical names. */
int tn_table_add_columns(tn_table *t, const tn_table_column_def *cols, uint32_t ncols,
                         int64_t *version);
/* RENAME COLUMN / DROP COLUMN [IF EXISTS]: metadata only, so the table needs column mapping
 * (else TN_EUNSUPPORTED saying how to enable it). A column named by a CHECK constraint is not
 * renamed or dropped; partition columns are not dropped. *version = -1 when nothing was done. */
int tn_table_rename_column(tn_table *t, const char *from, const char *to, int64_t *version);
int tn_table_drop_column(tn_table *t, const char *name, bool if_exists, int64_t *version);
/* ADD CONSTRAINT name CHECK (expr): the caller has verified that every row of t's snapshot
 * satisfies expr (the commit conflicts with any concurrent write of files). Names are stored
 * lower-case as delta.constraints.<name>; an existing name is TN_EEXISTS with Delta's text.
 * DROP CONSTRAINT [IF EXISTS] name. tn_table_constraint: the expression or NULL. */
int tn_table_add_constraint(tn_table *t, const char *name, const char *expr, int64_t *version);
int tn_table_drop_constraint(tn_table *t, const char *name, bool if_exists, int64_t *version);
const char *tn_table_constraint(const tn_table *t, const char *name);

/* ---------------------------------------------------------------------------------------------
 * DESCRIBE HISTORY (history.c): one entry per version still in the log, newest first.
 */
typedef struct tn_table_history_entry {
    int64_t version;
    int64_t timestamp_ms;              /* commitInfo.timestamp (ICT first); -1 unknown */
    const char *operation;             /* NULL when the commit has no commitInfo */
    const char *operation_parameters;  /* JSON object text ("{}" when absent) */
    const char *engine_info;           /* may be NULL */
    bool has_is_blind_append;
    bool is_blind_append;
} tn_table_history_entry;

typedef struct tn_table_history {
    tn_table_history_entry *entries;
    uint32_t count;
    tn_arena *arena;                   /* owns everything */
} tn_table_history;
/* limit <= 0: all versions. Free with tn_table_history_free. */
int tn_table_history_read(tn_table_history *out, tn_fs *fs, const char *table_path, int64_t limit);
void tn_table_history_free(tn_table_history *h);

/* ---------------------------------------------------------------------------------------------
 * VACUUM (vacuum.c): deletes the files under the table directory that the table owns (the log
 * once referenced them, a tarn writer named them, or they lie under the table's partition
 * directories) and that no reader within the retention needs: a removed file once its
 * remove.deletionTimestamp is older than the retention, an unreferenced one once its mtime is.
 * Never follows a symlink, never enters a nested table (a directory with its own _delta_log),
 * never touches _delta_log/ or other directories starting with '_' or '.' (except partition
 * directories "name=value"); files it does not own are counted and listed (the first 100, as
 * "relative/path (why)"), not deleted. A retention under 168 hours is refused unless force is
 * set (as Delta's retentionDurationCheck); retain_hours < 0 = the table's
 * delta.deletedFileRetentionDuration ("interval N hours/days") or 168.
 */
typedef struct tn_table_vacuum_result {
    uint64_t files_deleted;
    uint64_t bytes_deleted;
    uint64_t dirs_deleted;
    uint64_t files_not_owned;          /* kept: symlinks, nested tables, foreign files */
    char **not_owned;                  /* tn_malloc'd; free with tn_table_vacuum_result_free */
    uint32_t nnot_owned;
} tn_table_vacuum_result;
int tn_table_vacuum(tn_table *t, double retain_hours, bool force, bool dry_run,
                    tn_table_vacuum_result *result);
void tn_table_vacuum_result_free(tn_table_vacuum_result *r);

#endif
