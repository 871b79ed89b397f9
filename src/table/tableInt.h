/*
 * table/tableInt.h: private to table/: the tn_table and tn_table_txn structs and helpers shared
 * by table.c, scan.c, write.c, txn.c, history.c and vacuum.c (value comparison for skipping,
 * partition value text and Hive escaping, stats parsing, UUIDs, the commit retry loop).
 */
#ifndef TN_TABLE_INT_H
#define TN_TABLE_INT_H

#include "table/table.h"

#include <pthread.h>

struct tn_table {
    tn_fs *fs;
    char *path;
    tn_delta_snapshot *snap;           /* may be shared (delta's snapshot cache): read-only */
};

/* Gives t a snapshot of its own (a fork of the shared one) before code changes its files or
 * columns (increment.c, changes.c). */
int tn_table_own_snapshot(tn_table *t);

/* Random UUID v4 text. */
void tb_uuid(char out[37]);
/* Wall clock in ms. */
int64_t tb_now_ms(void);

/* Date, timestamp and decimal texts: types/parse.c (kept under these names for table/). */
#define tb_parse_timestamp_us tn_text_to_timestamp_us
#define tb_parse_date tn_text_to_date
#define tb_parse_decimal tn_text_to_decimal

/* Compares two non-null values that may differ in type (numeric families compared by value;
 * decimals of different scales; dates vs timestamps). Returns false when incomparable. */
bool tb_value_cmp(const tn_value *a, const tn_value *b, int *out);
/* Whether a non-null / null value satisfies `op constant` (exact, SQL semantics: a NULL value
 * only satisfies IS NULL). */
bool tb_filter_eval(const tn_table_filter *f, const tn_value *v);
/* Whether a file may hold a row matching all filters on non-partition columns, by add.stats.
 * Conservative: true when stats are missing or unusable. */
bool tb_stats_may_match(const tn_table *t, const tn_delta_file *file, const tn_table_filter *filters,
                        uint32_t nfilters);
/* Whether the file's partition values satisfy all filters on partition columns (exact). */
bool tb_partition_may_match(const tn_table *t, const tn_delta_file *file,
                            const tn_table_filter *filters, uint32_t nfilters);

/* Partition value text of a value as Delta logs it (NULL value -> *is_null); the public
 * tn_table_partition_text. */
int tb_partition_text(tn_buf *out, const tn_value *v, bool *is_null);
/* Hive/Spark path escaping of a partition column name or value (appends). */
int tb_hive_escape(tn_buf *out, const char *s, size_t len);

/* Stores a value (of v's type; numeric values are converted) at row (strings copied into the
 * vector's heap). Does not change v->count. */
int tb_vector_set_value(tn_vector *v, uint32_t row, const tn_value *val);
/* Converts a non-null value to type `to` (widening casts: integers, float -> double, integers
 * and decimals -> decimal, date -> timestamp, timestamp <-> timestamptz, string <-> binary).
 * TN_EUNSUPPORTED when there is no such widening. */
int tb_value_cast(tn_value *out, const tn_value *in, tn_type to);

/* The optimistic commit loop (write.c). Tries read_version+1, then on TN_EEXISTS reads the
 * winners, treats a winner carrying our txn appId at >= our version as "already applied"
 * (*skipped), checks conflicts, backs off and retries up to max_attempts. If the commit's fate
 * is unknown after an I/O error, the version file is compared with our bytes. */
int tb_commit(tn_table *t, const tn_delta_txn_info *info, tn_delta_action *actions,
              uint32_t nactions, int max_attempts, const char *app_id, int64_t app_version,
              int64_t *version, bool *skipped, int *attempts);
/* A remove action for live file f (deletionTimestamp now, dataChange true, no tags/stats). */
int tb_make_remove(tn_delta_action *out, const tn_delta_file *f, int64_t now);
/* Builds a commitInfo action with a JSON object holding timestamp, operation,
 * operationParameters (string values), operationMetrics (when nmetrics > 0), isBlindAppend,
 * engineInfo, txnId. */
int tb_commit_info(tn_delta_action *out, tn_arena *arena, const char *operation,
                   const tn_delta_kv *params, uint32_t nparams, const tn_delta_kv *metrics,
                   uint32_t nmetrics, bool is_blind_append, int64_t read_version);

/* ---------------------------------------------------------------------------------------------
 * Transactions (txn.c) as file writers (write.c) see them.
 */
typedef struct tb_txn_pred {
    tn_table_file_pred fn;
    void *ctx;
} tb_txn_pred;

typedef struct tb_txn_add {
    tn_delta_action action;
    uint64_t rows, bytes;            /* written by our file writers (0: tn_table_txn_add) */
} tb_txn_add;

typedef struct tb_txn_remove {
    const tn_delta_file *file;       /* a snapshot file */
    bool data_change;
} tb_txn_remove;

struct tn_table_txn {
    tn_table *t;
    int max_attempts;
    tn_arena *arena;                 /* everything copied into the transaction */
    /* read set */
    bool read_all;
    tn_delta_partition_spec *parts;
    uint32_t nparts, cap_parts;
    const char **read_paths;         /* logged paths */
    uint32_t nread, cap_read;
    tb_txn_pred *preds;
    uint32_t npreds, cap_preds;
    /* actions */
    tb_txn_add *adds;
    uint32_t nadds, cap_adds;
    tb_txn_remove *removes;
    uint32_t nremoves, cap_removes;
    const tn_delta_metadata *md;     /* a whole new metaData (tn_table_txn_set_metadata), borrowed */
    const int *interrupt;            /* cancel flag, polled by file writers and before the commit */
    tn_delta_kv *conf;               /* new configuration when conf_changed */
    uint32_t nconf;
    bool conf_changed;
    const char *app_id;
    int64_t app_version;
    bool app_applied;                /* the snapshot already has it */
    const char *operation;
    tn_delta_kv *params, *metrics;
    uint32_t nparams, nmetrics;
    /* files written by the file writers (removed on failure) */
    char **written;
    uint32_t nwritten, cap_written;
    uint64_t file_counter;           /* part-%05d numbering */
    double ratio;                    /* file bytes / estimated bytes, learnt from finished files */
    tn_table_file_writer **open;     /* file writers not yet closed or aborted */
    uint32_t nopen, cap_open;
    bool constraints_checked;        /* rows written were checked against CHECK constraints */
    bool rows_from_table;            /* rows written are the table's own (DELETE rewrites) */
    bool defer_sync;                 /* data files are fsynced together at commit */
    /* File writers of one transaction may run on different threads at once (a bucket layout
     * writes its buckets as pool tasks): what they share here (arena, written, adds, open,
     * file_counter, ratio) is taken under lock. The rest of the API is one thread's. */
    pthread_mutex_t lock;
};

/* Registers a file about to be created (full path, copied) so that a failed transaction
 * removes it. */
int tb_txn_track_file(tn_table_txn *txn, const char *full_path);
/* Adds a logged path to the files read (borrowed until commit). */
int tb_txn_read_path(tn_table_txn *txn, const char *path);
/* Takes a finished file's add action (strings already in txn->arena). */
int tb_txn_push_add(tn_table_txn *txn, const tn_delta_action *add, uint64_t rows, uint64_t bytes);
/* Open file writers are listed so that an abort frees them. */
int tb_txn_writer_opened(tn_table_txn *txn, tn_table_file_writer *fw);
void tb_txn_writer_done(tn_table_txn *txn, tn_table_file_writer *fw);
/* Removes a file if it exists, keeping the current error. */
void tb_remove_file(tn_fs *fs, const char *full_path);

/* ---------------------------------------------------------------------------------------------
 * Metadata changes (alter.c).
 */
/* Commits md (and the protocol it needs, when that differs from the snapshot's) with a
 * commitInfo of operation/params; md's column_mapping and is_partition are refreshed first. */
int tb_metadata_commit(tn_table *t, tn_arena *arena, tn_delta_metadata *md, const tn_delta_protocol_request *req,
                       const char *operation, const tn_delta_kv *params, uint32_t nparams, int64_t *version);
/* Recomputes column_mapping (from the configuration), physical names and is_partition. */
void tb_metadata_refresh(tn_delta_metadata *md);
/* Gives columns [from, ncolumns) a column-mapping id and physical name ("col-<uuid>", or the
 * column's name when keep_names) and sets delta.columnMapping.maxColumnId. Arena. */
int tb_column_mapping_assign(tn_delta_metadata *md, tn_arena *arena, uint32_t from, bool keep_names);
int64_t tb_max_column_id(const tn_delta_metadata *md);
/* Sets (value NULL: removes) a configuration key, copying the array into arena. */
int tb_config_set(tn_delta_metadata *md, tn_arena *arena, const char *key, const char *value);

/* ---------------------------------------------------------------------------------------------
 * Table properties (props.c).
 */
typedef struct tb_props_result {
    tn_delta_kv *configuration;      /* the new configuration (canonical key spellings) */
    uint32_t nconfiguration;
    tn_delta_protocol_request request;   /* delta.feature.* / delta.min*Version (consumed) */
    bool constraints_changed;        /* ALTER sets a delta.constraints.* key */
    bool column_mapping_changed;     /* delta.columnMapping.mode given */
} tb_props_result;
/* Applies changes (value NULL = unset) to base: validates every delta.* key (refusing what tarn
 * does not honour, by name), canonicalizes spellings, lower-cases constraint names. Arena. */
int tb_props_apply(tn_arena *arena, const char *path, const tn_delta_kv *base, uint32_t nbase,
                   const tn_delta_kv *changes, uint32_t nchanges, bool create, tb_props_result *out);
bool tb_prop_is_constraint(const char *key);
/* Refuses a write that would not honour the table's features: generated or identity columns
 * (tarn does not compute them), CHECK constraints or invariants without o->row_check. */
int tb_write_check_features(const tn_table *t, bool constraints_checked, bool rows_from_table);
/* "interval 7 days" / "168 hours" / "1 week" -> hours; < 0 when not an interval. */
double tb_interval_hours(const char *s);

#endif
