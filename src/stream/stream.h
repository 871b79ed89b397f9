/*
 * stream/stream.h: continuous jobs: an `INSERT INTO target SELECT ... FROM source ...` that keeps
 * running on new source data. A job's source (the leftmost FROM item: a table or delta_scan, or a
 * read_parquet/read_csv/read_json pattern) is read by exact position (a log version and an index
 * in it; the set of files taken), one micro-batch per poll, each committed to the target in ONE
 * Delta commit carrying txn (appId = the job's id, version = the batch number), so that a batch
 * applies at most once even when the job dies between its commit and its state write. Owns the
 * job directory <warehouse>/_jobs/NAME/; processes, signals and daemons are the front end's.
 *
 * Job directory (every file replaced atomically: temp file, fsync, rename; read by strict decoders,
 * stream/state.c, that refuse a malformed file naming it and the field):
 *   file        written by           content
 *   job.json    create / savepoint   {"name", "app_id", "sql", "options": {k: v}, "created_ms"}
 *   state.json  the running job      {"state", "batch", "position", "pending", "rows", "batches",
 *                                     "last_error", "updated_ms", "last_batch_ms", ...}
 *   lock        the running job      flock()ed for its lifetime (running = locked)
 *   pid         the running job      its process id (informative; the lock decides)
 *   stop        `tarn job stop`      the savepoint path ("" = none), read at the next batch end
 *   log         the daemon           one line per batch, error or state change
 * pending = {"batch": N, "position": P} is written before batch N's commit and cleared after: on
 * restart, the target's txn version for app_id says whether N committed (take P) or not (plan N
 * again). A savepoint is a JSON file {"tarn_savepoint": 1, "job": job.json, "batch", "position"}.
 *
 * Positions: table {"kind": "table", "version": V, "index": I, "snapshot": b} = next to read is
 * data add I (in log order) of version V (snapshot true: of the live files of snapshot V, after
 * which version V + 1 follows); files {"kind": "files", "watermark_ns": W, "taken": [paths...]}
 * = every file matching the pattern with a status-change time (ctime) before W, and the files
 * named, were taken. The set stays bounded: after each listing W moves up to the oldest ctime of
 * a matching file not taken yet, but never past the listing's start minus
 * TN_STREAM_FILES_SETTLE_MS (ctime is the kernel's coarse clock; a file that appears later,
 * written in place or renamed into the directory (rename sets ctime), has a later ctime), and
 * names below W or of files gone from the listing are dropped. A file of a dropped name that
 * appears again is a new file; a taken file changed in place after it settled (its ctime moves)
 * is taken again (as Spark's file source, input files are to be placed whole and not changed).
 */
#ifndef TN_STREAM_H
#define TN_STREAM_H

#include "sql/sql.h"

#define TN_STREAM_JOBS_DIR "_jobs"
/* How far behind the listing time a files position's watermark stays (TARN_JOB_FILE_SETTLE_MS
 * overrides it, for tests). */
#define TN_STREAM_FILES_SETTLE_MS 10000

/* Job options (`--option key=value`): name, default, meaning. Unknown keys are refused. */
#define TN_STREAM_OPTION_TABLE(X)                                                                    \
    X("poll-interval", "1s", "time between polls: 200ms, 2s, 1m (a plain number is milliseconds)")    \
    X("max-batch-files", "1000", "source files (data adds, or new files) per micro-batch at most")   \
    X("starting-version", "snapshot", "table source: snapshot (its rows, then new commits), latest, or N") \
    X("ignoreDeletes", "false", "table source: skip commits that only remove files")                 \
    X("ignoreChanges", "false", "table source: take the adds of commits that rewrite files (updates)")

typedef struct tn_stream_kv {
    const char *key;
    const char *value;
} tn_stream_kv;

/* Creates job NAME (its directory, job.json, state.json) for sql in warehouse wh: one INSERT INTO
 * ... SELECT whose leftmost FROM item is the stream; the target and sources must exist. Errors:
 * TN_EEXISTS "job 'x' already exists ..." (saying how to resume or drop it), TN_EINVAL naming a
 * bad option or statement. */
int tn_stream_job_create(const char *wh, const char *name, const char *sql, const tn_stream_kv *opts,
                         uint32_t nopts);
/* Replaces job NAME's definition and state by a savepoint's (creating the job if needed; a
 * running job is refused). The target must not hold a batch of the job newer than the
 * savepoint's. TN_EINVAL "'p' is not a tarn job savepoint: ..." for anything else. */
int tn_stream_job_restore(const char *wh, const char *name, const char *savepoint);

/* A job being run by this process. */
typedef struct tn_stream_job tn_stream_job;

typedef struct tn_stream_run_options {
    int version;                       /* TN_STREAM_RUN_OPTIONS_VERSION */
    /* called once: 0 when the job runs (lock held, state recovered, first plan checked), else the
     * error that stops it before its first batch */
    void (*started)(void *ctx, int rc);
    void *started_ctx;
    int threads;                       /* worker threads (0: default) */
} tn_stream_run_options;
#define TN_STREAM_RUN_OPTIONS_VERSION 1
#define TN_STREAM_RUN_OPTIONS_INIT {TN_STREAM_RUN_OPTIONS_VERSION, NULL, NULL, 0}

/* Opens job NAME for running (reads job.json; nothing is locked yet). */
int tn_stream_job_open(tn_stream_job **out, const char *wh, const char *name);
void tn_stream_job_close(tn_stream_job *j);
/* Runs the job until it is stopped, canceled or fails: takes the lock (TN_EEXISTS "job 'x' is
 * already running (pid N)"), writes the pid, recovers (pending batch against the target's txn),
 * then polls. Returns 0 after a stop or cancel, else the error that failed the job (also in
 * state.json and the log, which is stderr). */
int tn_stream_job_run(tn_stream_job *j, const tn_stream_run_options *ro);
/* Safe from a signal handler (atomic stores): stop after the batch in flight (writing the
 * savepoint named in the stop file, if any), or cancel now (the batch in flight commits nothing). */
void tn_stream_job_request_stop(tn_stream_job *j);
void tn_stream_job_request_cancel(tn_stream_job *j);

/* Whether job NAME exists and whether a process runs it (its lock is held), with its pid. */
int tn_stream_job_probe(const char *wh, const char *name, bool *exists, bool *running, long *pid);
/* Writes the stop request (savepoint path, absolute or relative to the cwd; NULL = none) for the
 * running job to read; the caller then signals it. */
int tn_stream_job_write_stop(const char *wh, const char *name, const char *savepoint);
/* Removes the directory of a job that is not running. */
int tn_stream_job_drop(const char *wh, const char *name);

/* What `tarn job status` shows. Strings are owned by the info (tn_stream_info_free). */
typedef struct tn_stream_info {
    char *name, *state, *sql, *app_id, *source, *target, *position, *last_error, *options;
    bool running;
    long pid;
    int64_t batches;                   /* last committed batch number */
    uint64_t rows;                     /* rows written by the job's batches */
    int64_t lag;                       /* table: versions not read yet; files: files not taken; -1 unknown */
    const char *lag_unit;              /* "versions" / "files" */
    int64_t updated_ms, last_batch_ms; /* wall clock of the last state write / batch commit */
    char *savepoint;                   /* the last savepoint written, or NULL */
} tn_stream_info;
int tn_stream_job_info(tn_stream_info *out, const char *wh, const char *name);
void tn_stream_info_free(tn_stream_info *i);
/* Names of the jobs of wh, sorted (tn_free each and the array). */
int tn_stream_job_list(const char *wh, char ***names, uint32_t *n);

#endif
