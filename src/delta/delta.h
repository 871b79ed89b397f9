/*
 * delta/delta.h: the Delta Lake transaction log, as the table layer sees it: actions (parse and
 * serialize one JSON line), the table schema (Spark StructType JSON <-> tarn columns), snapshots
 * (log listing, checkpoint + commit replay, time travel, protocol checks, column mapping),
 * deletion vectors, atomic commits (temp file + fsync + link) and the optimistic-concurrency
 * conflict check. All I/O goes through a tn_fs. Depends on types/ and base/ (and, privately,
 * parquet/ for checkpoints).
 *
 * Memory: actions, schemas and snapshots live in arenas; a snapshot owns its arena and is freed
 * with tn_delta_snapshot_free. Strings are NUL-terminated and owned by the arena that holds
 * their action.
 */
#ifndef TN_DELTA_H
#define TN_DELTA_H

#include "types/types.h"

/* ---------------------------------------------------------------------------------------------
 * Actions (PROTOCOL.md "Actions"). One JSON object per line of a commit file, one row of a
 * checkpoint. Unknown fields are ignored; unknown actions parse as TN_DELTA_UNKNOWN.
 *
 *   key                 required fields                      tarn struct
 *   commitInfo          (free-form)                          tn_delta_commit_info
 *   protocol            minReaderVersion, minWriterVersion   tn_delta_protocol
 *   metaData            id, schemaString, partitionColumns   tn_delta_metadata
 *   add                 path, partitionValues, size,         tn_delta_file
 *                       modificationTime, dataChange
 *   remove              path                                 tn_delta_file
 *   txn                 appId, version                       tn_delta_txn
 *   domainMetadata      domain, configuration, removed       tn_delta_domain
 *   sidecar             path, sizeInBytes                    tn_delta_sidecar
 *   checkpointMetadata  version                              (version only)
 *   cdc                 path, partitionValues, size          tn_delta_file (path, partition
 *                                                            values, size, tags)
 */
typedef enum tn_delta_action_kind {
    TN_DELTA_UNKNOWN = 0,
    TN_DELTA_COMMIT_INFO,
    TN_DELTA_PROTOCOL,
    TN_DELTA_METADATA,
    TN_DELTA_ADD,
    TN_DELTA_REMOVE,
    TN_DELTA_TXN,
    TN_DELTA_DOMAIN_METADATA,
    TN_DELTA_SIDECAR,
    TN_DELTA_CHECKPOINT_METADATA,
    TN_DELTA_CDC,
} tn_delta_action_kind;

typedef struct tn_delta_kv {
    const char *key;
    const char *value;               /* NULL = JSON null */
} tn_delta_kv;

/* Deletion vector descriptor. */
typedef struct tn_delta_dv {
    char storage_type;               /* 'u', 'i' or 'p' */
    const char *path_or_inline;
    bool has_offset;
    int32_t offset;                  /* 0 when absent ('u', 'p') */
    int32_t size_in_bytes;
    int64_t cardinality;
    const char *unique_id;           /* "<type><pathOrInlineDv>[@<offset>]" (derived) */
} tn_delta_dv;

/* add or remove. */
typedef struct tn_delta_file {
    const char *path;                /* as logged (URI-encoded) */
    const char *path_decoded;        /* percent-decoded exactly once */
    tn_delta_kv *partition_values;   /* keys are physical names under column mapping */
    uint32_t npartition_values;
    bool has_partition_values;
    bool has_size;
    int64_t size;
    int64_t modification_time;       /* add */
    bool has_deletion_timestamp;
    int64_t deletion_timestamp;      /* remove */
    bool data_change;
    bool extended_file_metadata;     /* remove */
    const char *stats;               /* JSON text or NULL */
    tn_delta_kv *tags;
    uint32_t ntags;
    bool has_dv;
    tn_delta_dv dv;
    bool has_base_row_id;
    int64_t base_row_id;
    bool has_default_row_commit_version;
    int64_t default_row_commit_version;
    const char *clustering_provider;
} tn_delta_file;

typedef struct tn_delta_protocol {
    int32_t min_reader_version;
    int32_t min_writer_version;
    const char **reader_features;    /* NULL when absent */
    uint32_t nreader_features;
    bool has_reader_features;
    const char **writer_features;
    uint32_t nwriter_features;
    bool has_writer_features;
} tn_delta_protocol;

/* One top-level column of the table schema. Nested types (struct, array, map, variant) are
 * kept with nested = true and type TN_TYPE_NULL; the table layer refuses them by name. */
typedef struct tn_delta_column {
    const char *name;                /* logical name */
    const char *physical_name;       /* delta.columnMapping.physicalName, else name */
    int32_t field_id;                /* delta.columnMapping.id, else -1 */
    tn_type type;
    bool nullable;
    bool nested;
    const char *type_text;           /* Spark type: "long", "decimal(12,5)", or nested JSON */
    const char *metadata_json;       /* the field's metadata object as JSON text ("{}") */
    bool is_partition;
    bool type_changed;               /* metadata has delta.typeChanges (type widening) */
    const char *invariant;           /* delta.invariants expression.expression, or NULL */
    const char *generation_expression;   /* delta.generationExpression, or NULL */
    bool identity;                   /* metadata has delta.identity.* (identity column) */
} tn_delta_column;

typedef enum tn_delta_column_mapping {
    TN_DELTA_CM_NONE = 0, TN_DELTA_CM_NAME, TN_DELTA_CM_ID
} tn_delta_column_mapping;

typedef struct tn_delta_metadata {
    const char *id;
    const char *name;
    const char *description;
    const char *format_provider;     /* "parquet" */
    tn_delta_kv *format_options;
    uint32_t nformat_options;
    const char *schema_string;
    tn_delta_column *columns;        /* parsed from schema_string */
    uint32_t ncolumns;
    const char **partition_columns;
    uint32_t npartition_columns;
    tn_delta_kv *configuration;
    uint32_t nconfiguration;
    bool has_created_time;
    int64_t created_time;
    tn_delta_column_mapping column_mapping;
} tn_delta_metadata;

typedef struct tn_delta_txn {
    const char *app_id;
    int64_t version;
    bool has_last_updated;
    int64_t last_updated;
} tn_delta_txn;

typedef struct tn_delta_commit_info {
    bool has_timestamp;
    int64_t timestamp;               /* ms */
    bool has_in_commit_timestamp;
    int64_t in_commit_timestamp;
    const char *operation;
    bool has_is_blind_append;
    bool is_blind_append;
    const char *json;                /* the whole object (serialized back as is) */
} tn_delta_commit_info;

typedef struct tn_delta_domain {
    const char *domain;
    const char *configuration;
    bool removed;
} tn_delta_domain;

typedef struct tn_delta_sidecar {
    const char *path;
    int64_t size_in_bytes;
    int64_t modification_time;
} tn_delta_sidecar;

typedef struct tn_delta_action {
    tn_delta_action_kind kind;
    union {
        tn_delta_commit_info commit_info;
        tn_delta_protocol protocol;
        tn_delta_metadata metadata;
        tn_delta_file file;          /* ADD, REMOVE, CDC */
        tn_delta_txn txn;
        tn_delta_domain domain;
        tn_delta_sidecar sidecar;
        int64_t checkpoint_version;  /* CHECKPOINT_METADATA */
    } u;
} tn_delta_action;

/* Parses one line (a JSON object with one action key). Errors (TN_ECORRUPT) say what is wrong
 * ("add: missing 'path'"); callers prefix file and line. Allocates from arena. */
int tn_delta_action_parse(tn_delta_action *out, tn_arena *arena, const char *line, size_t len);
/* Appends the action as one JSON line WITHOUT the trailing newline. */
int tn_delta_action_serialize(tn_buf *out, const tn_delta_action *action);

/* Parses a Spark StructType JSON into top-level columns (arena). Primitive names: integer,
 * long, short, byte, float, double, boolean, string, binary, date, timestamp (TIMESTAMPTZ),
 * timestamp_ntz (TIMESTAMP), decimal(p,s). */
int tn_delta_schema_parse(tn_delta_column **out, uint32_t *ncolumns, tn_arena *arena,
                          const char *schema_string);
/* Builds a schemaString from flat columns (name, type, nullable; metadata_json if set). */
int tn_delta_schema_serialize(tn_buf *out, const tn_delta_column *columns, uint32_t ncolumns);
/* Spark primitive type name for a tarn type ("long", "decimal(10,2)"); NULL if none. */
const char *tn_delta_type_name(tn_type type, char *buf, size_t cap);
/* Spark's JSON type of a nested tn_type ({"type":"array","elementType":"integer",
 * "containsNull":true}, ...; every element, map value and struct field nullable), copied into
 * arena. */
int tn_delta_type_text(tn_arena *arena, tn_type type, const char **out);

/* Percent-decodes a URI path once ("+" stays "+"); arena copy. */
int tn_delta_uri_decode(const char **out, tn_arena *arena, const char *path);
/* Percent-encodes a relative path for the log (keeps '/', unreserved chars and "=+"). */
int tn_delta_uri_encode(tn_buf *out, const char *path);

/* Lookups (NULL when absent). */
const char *tn_delta_kv_get(const tn_delta_kv *kv, uint32_t n, const char *key, bool *found);
const char *tn_delta_config_get(const tn_delta_metadata *md, const char *key);
/* numRecords from add.stats; -1 when absent or unparsable. */
int64_t tn_delta_file_num_records(const tn_delta_file *file);

/* ---------------------------------------------------------------------------------------------
 * Snapshots.
 */
typedef struct tn_delta_last_checkpoint {
    bool present;                    /* _last_checkpoint existed and parsed */
    int64_t version;
    int64_t size;
    int64_t parts;                   /* 0 when absent */
    int64_t size_in_bytes;           /* sizeInBytes or size_in_bytes; -1 when absent */
    int64_t num_of_add_files;        /* -1 when absent */
    const char *v2_path;             /* v2Checkpoint.path or NULL */
} tn_delta_last_checkpoint;

typedef struct tn_delta_snapshot {
    const char *table_path;
    const char *log_path;            /* table_path/_delta_log */
    int64_t version;
    int64_t timestamp;               /* ms of the version's commitInfo (ICT first); -1 unknown */
    tn_delta_protocol protocol;
    tn_delta_metadata metadata;
    tn_delta_file *files;            /* live add files in commit order (of their add), unique by (path, dv id) */
    uint32_t nfiles;
    tn_delta_file *tombstones;       /* removes not re-added, sorted by path */
    uint32_t ntombstones;
    tn_delta_txn *txns;              /* latest version per appId, sorted by appId */
    uint32_t ntxns;
    tn_delta_domain *domains;        /* live (not removed) domains, sorted */
    uint32_t ndomains;
    int64_t checkpoint_version;      /* checkpoint replay started from; -1 none */
    const char *checkpoint_kind;     /* "classic", "multi-part", "v2-json", "v2-parquet", NULL */
    int64_t commits_replayed;        /* JSON commit files read */
    tn_delta_last_checkpoint last_checkpoint;
    bool type_widening;              /* a column's data files may hold a narrower type */
    tn_arena *arena;                 /* owns everything above, but what parent owns */
    /* Sharing (snapshot.c): a snapshot is immutable and may be shared; tn_delta_snapshot_free
     * releases one reference. A snapshot built from an earlier one plus later commits borrows
     * the earlier one's bytes (parent, referenced; depth = length of that chain). */
    struct tn_delta_snapshot *parent;
    uint32_t extra_refs;             /* references beyond the first (atomic) */
    uint32_t depth;
    uint64_t commit_size;            /* of the version's commit file, to tell a cached snapshot */
    int64_t commit_mtime_us;         /* from a table re-created at the same path */
} tn_delta_snapshot;

typedef struct tn_delta_open_options {
    int version;                     /* TN_DELTA_OPEN_OPTIONS_VERSION */
    int64_t at_version;              /* -1 = latest */
    bool has_at_timestamp;
    int64_t at_timestamp_ms;         /* latest version with commit timestamp <= this */
    bool use_checkpoints;            /* false: replay JSON from version 0 (tests) */
    bool check_protocol;             /* refuse unknown reader versions/features (default true) */
} tn_delta_open_options;
#define TN_DELTA_OPEN_OPTIONS_VERSION 1
#define TN_DELTA_OPEN_OPTIONS_INIT {TN_DELTA_OPEN_OPTIONS_VERSION, -1, false, 0, true, true}

/* Opens the snapshot of the Delta table at table_path. opts may be NULL (latest). Errors name
 * the log file and line, or the problem ("versions are not contiguous: ([0, 2])",
 * "No metadata found", "unsupported reader feature 'foo'").
 * On the default file system the process keeps the last snapshot of a few tables: opening the
 * latest version (or one at or after the kept one) reads only the commits after the kept
 * version (none: the kept snapshot itself is returned, shared), after checking that the kept
 * version's commit file is still the one it was read from (size, mtime). The result is
 * read-only; tn_delta_snapshot_fork gives a copy a caller may change. */
int tn_delta_snapshot_open(tn_delta_snapshot **out, tn_fs *fs, const char *table_path,
                           const tn_delta_open_options *opts);
void tn_delta_snapshot_free(tn_delta_snapshot *snap);
/* A shallow copy of snap that the caller may change (its arrays and metadata are snap's until
 * replaced; new ones go in its arena): holds a reference on snap. */
int tn_delta_snapshot_fork(tn_delta_snapshot **out, tn_delta_snapshot *snap);
/* Forgets the kept snapshots: the next opens read the log from scratch (tests that change a
 * checkpoint or delete commits under a table the process has read). */
void tn_delta_snapshot_cache_clear(void);

/* Latest committed version, -1 when there is no log (no error). */
int tn_delta_latest_version(tn_fs *fs, const char *table_path, int64_t *out);
/* Reads the actions of commit `version` into arena. */
int tn_delta_read_commit(tn_fs *fs, const char *table_path, int64_t version, tn_arena *arena,
                         tn_delta_action **out, uint32_t *nactions);
/* ---------------------------------------------------------------------------------------------
 * Table features and protocol versions (features.c).
 */
/* Checks a protocol against what tarn reads ("unsupported reader feature 'x'"). */
int tn_delta_protocol_check_read(const tn_delta_protocol *p);
/* Checks that tarn may write to a table with this protocol (every listed writer feature is one
 * tarn honours, or refuses by name when it is active). */
int tn_delta_protocol_check_write(const tn_delta_protocol *p);
/* Whether the name is a feature of the spec's list / a reader-writer feature. */
bool tn_delta_feature_known(const char *name);
bool tn_delta_feature_is_reader(const char *name);
/* Whether protocol p supports feature `name` (listed at writer 7, implied by legacy versions). */
bool tn_delta_protocol_supports(const tn_delta_protocol *p, const char *name);
/* The features md uses (borrowed static names; see features.c for the rules). */
int tn_delta_active_features(const tn_delta_metadata *md, const char **out, uint32_t cap, uint32_t *n);
/* What a user asked for on top of what the metadata uses: delta.feature.<name> = supported,
 * delta.minReaderVersion / delta.minWriterVersion. */
typedef struct tn_delta_protocol_request {
    const char *const *features;
    uint32_t nfeatures;
    int min_reader_version;          /* 0 = no request */
    int min_writer_version;
} tn_delta_protocol_request;
/* The protocol a table with metadata md needs: current (NULL for a new table) plus what md uses
 * and req asks for, never removing a supported feature. Legacy versions while every feature has
 * one, else writer 7 (reader 3 when a reader feature needs it) with every supported feature
 * listed. Feature names are arena copies. */
int tn_delta_protocol_required(tn_delta_protocol *out, tn_arena *arena, const tn_delta_protocol *current,
                               const tn_delta_metadata *md, const tn_delta_protocol_request *req);
bool tn_delta_protocol_equal(const tn_delta_protocol *a, const tn_delta_protocol *b);
/* Fails naming the first feature md uses that p does not support. */
int tn_delta_protocol_check_metadata(const tn_delta_protocol *p, const tn_delta_metadata *md);

/* Lookups on a snapshot. */
int64_t tn_delta_snapshot_txn_version(const tn_delta_snapshot *snap, const char *app_id); /* -1 none */
/* Partition value of file for partition column `column` (logical name): handles column mapping
 * (the log keys by physical name). *is_null for JSON null, "" or absent. */
const char *tn_delta_partition_value(const tn_delta_snapshot *snap, const tn_delta_file *file,
                                     const char *column, bool *is_null);
/* Full path of a data file: table_path/decoded path, or the local path of a file: URI. */
int tn_delta_file_full_path(const tn_delta_snapshot *snap, const tn_delta_file *file,
                            tn_arena *arena, const char **out);

/* ---------------------------------------------------------------------------------------------
 * Deletion vectors (dv.c). Reads the DV of a file ('i' inline Z85, 'u' UUID-named file in the
 * table, 'p' absolute path), checks size, magic, CRC and cardinality, and returns the deleted
 * row indexes ascending in *rows (tn_malloc'd; caller tn_free's it). */
int tn_delta_dv_read(tn_fs *fs, const char *table_path, const tn_delta_dv *dv, uint64_t **rows,
                     uint64_t *count);
/* Decodes a RoaringBitmapArray (magic 1681511377 + portable 64-bit bitmap). */
int tn_delta_dv_decode_bitmap(const uint8_t *buf, size_t len, uint64_t **rows, uint64_t *count);
/* Z85 decode (len % 5 == 0) into out (len/5*4 bytes). */
int tn_delta_z85_decode(const char *s, size_t len, tn_buf *out);
/* Path of a 'u' DV file: table/<prefix>/deletion_vector_<uuid>.bin (arena). */
int tn_delta_dv_file_path(const char **out, tn_arena *arena, const char *table_path,
                          const tn_delta_dv *dv);

/* Deletion vectors on write (dv_write.c). The RoaringBitmapArray bytes (magic + 64-bit portable
 * bitmap) of rows (ascending, distinct) appended to out. */
int tn_delta_dv_encode_bitmap(const uint64_t *rows, uint64_t n, tn_buf *out);
/* Z85 encode (len % 4 == 0), appended to out. */
int tn_delta_z85_encode(const uint8_t *data, size_t len, tn_buf *out);
/* Writes n deletion vectors (rows[i], counts[i] > 0 rows each) into one new DV file of the table
 * (<table>/deletion_vector_<uuid>.bin, fsynced) and fills out[0..n) with their 'u' descriptors
 * (strings in arena). *full_path gets the file's path (tn_malloc'd; the caller removes the file
 * if its commit fails, and frees the string). */
int tn_delta_dv_write_file(tn_fs *fs, const char *table_path, const uint64_t *const *rows, const uint64_t *counts,
                           uint32_t n, tn_arena *arena, tn_delta_dv *out, char **full_path);

/* ---------------------------------------------------------------------------------------------
 * Commits (commit.c). tn_delta_commit writes actions as `_delta_log/%020d.json` atomically:
 * `_delta_log/.tarn-<random>.tmp` is written, fsynced and link()ed to the version's name
 * (never renamed over it), then removed. Returns TN_EEXISTS when another writer already
 * committed `version` (the caller checks conflicts and retries). Creates _delta_log if needed.
 */
int tn_delta_commit(tn_fs *fs, const char *table_path, int64_t version,
                    const tn_delta_action *actions, uint32_t nactions);
/* Serializes actions as the commit file's bytes (one line each, '\n'-terminated). */
int tn_delta_commit_serialize(tn_buf *out, const tn_delta_action *actions, uint32_t nactions);

/* What a transaction read and how it writes, for conflict detection (conflict.c). */
typedef struct tn_delta_partition_spec {    /* a conjunction col = value (value NULL = null) */
    const tn_delta_kv *values;
    uint32_t nvalues;
} tn_delta_partition_spec;

typedef struct tn_delta_txn_info {
    int64_t read_version;            /* snapshot version the transaction read (-1: new table) */
    bool is_blind_append;            /* only adds, nothing read: never conflicts on data */
    bool read_whole_table;           /* read/overwrote everything (unpartitioned predicate) */
    const tn_delta_partition_spec *read_partitions;   /* partitions read or overwritten */
    uint32_t nread_partitions;
    const char *const *read_files;   /* logged paths of files read (and removed) */
    uint32_t nread_files;
    const char *const *app_ids;      /* txn appIds this transaction writes */
    uint32_t napp_ids;
    int64_t checkpoint_interval;     /* tn_delta_commit_retry: 0 = 10 (delta.checkpointInterval
                                        of the snapshot read, if set), < 0 = never */
    /* A finer read set than partitions (e.g. the buckets of a primary-key table): a winner's
     * add for which read_add returns true falls into what the transaction read. NULL: none. */
    bool (*read_add)(void *ctx, const tn_delta_file *add);
    void *read_add_ctx;
} tn_delta_txn_info;

/* Decides whether the winning commit (actions at winner_version) conflicts with the
 * transaction (info + its own actions). 0 = no conflict (retry at the next version);
 * TN_ECONFLICT with a message naming the kind of conflict and the file or partition. */
int tn_delta_check_conflict(const tn_delta_txn_info *info, const tn_delta_action *ours,
                            uint32_t nours, const tn_delta_action *winner, uint32_t nwinner,
                            int64_t winner_version);

/* Commit with the optimistic-concurrency loop: tries info->read_version + 1; on TN_EEXISTS reads
 * each winning commit, checks conflicts, and tries the next version, at most max_attempts
 * times (0 = 100). *committed gets the version written. After a successful commit at a
 * multiple of info->checkpoint_interval a checkpoint is written (its failure is ignored: the
 * commit stands and readers replay JSON). */
int tn_delta_commit_retry(tn_fs *fs, const char *table_path, const tn_delta_txn_info *info,
                          const tn_delta_action *actions, uint32_t nactions, int max_attempts,
                          int64_t *committed);

/* ---------------------------------------------------------------------------------------------
 * Checkpoints (checkpoint_write.c). Writes the classic single-file Parquet checkpoint of the
 * snapshot (`%020d.checkpoint.parquet`, via temp file + link) and then `_last_checkpoint`
 * ({"version","size","sizeInBytes","numOfAddFiles"}). An existing checkpoint for the version is
 * left alone (success). */
int tn_delta_checkpoint_write(tn_fs *fs, const tn_delta_snapshot *snap);
/* Writes a checkpoint when `version` is a multiple of `interval` (the table's
 * delta.checkpointInterval at that version; <= 0: 10), unless one exists and _last_checkpoint
 * names it or a later one (else the hint is moved up to it). Returns at once (no
 * I/O) for other versions, so it can be called after every commit. */
int tn_delta_maybe_checkpoint(tn_fs *fs, const char *table_path, int64_t version, int64_t interval);
/* delta.checkpointInterval of md (10 when absent or invalid; md may be NULL). */
int64_t tn_delta_checkpoint_interval(const tn_delta_metadata *md);

#endif
