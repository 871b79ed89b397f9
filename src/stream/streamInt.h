/*
 * stream/streamInt.h: private to stream/: a job's source (what its SQL streams from), positions
 * (where the next batch starts; JSON as in stream.h), and batch plans (the files of one
 * micro-batch and the position after it). source.c implements them, state.c the job files' formats,
 * job.c runs jobs on them.
 */
#ifndef TN_STREAM_INT_H
#define TN_STREAM_INT_H

#include <jansson.h>

#include "stream/stream.h"
#include "catalog/catalog.h"
#include "layout/layout.h"

typedef enum tn_stream_source_kind {
    TN_STREAM_TABLE = 0,               /* a Delta table: FROM name or delta_scan('path') */
    TN_STREAM_FILES,                   /* read_parquet / read_csv / read_json('pattern') */
} tn_stream_source_kind;

typedef struct tn_stream_source {
    tn_stream_source_kind kind;
    char *label;                       /* "raw_orders", "read_csv('in/x.csv')" */
    char *path;                        /* TABLE: the table directory */
    char *real;                        /* TABLE: its realpath (what the batch hook compares) */
    char *pattern;                     /* FILES: the pattern as written */
} tn_stream_source;

typedef struct tn_stream_pos {
    int64_t version;                   /* TABLE: next version to read */
    uint32_t index;                    /* data adds of it already taken */
    bool snapshot;                     /* reading the live files of snapshot `version` */
    char **taken;                      /* FILES: sorted; taken files with ctime >= watermark */
    uint32_t ntaken, cap;
    int64_t watermark_ns;              /* FILES: every file with a ctime before it was taken */
} tn_stream_pos;

typedef struct tn_stream_options {
    int64_t poll_ms;
    uint32_t max_files;
    bool ignore_deletes, ignore_changes;
    const char *starting;              /* "snapshot", "latest" or a version */
} tn_stream_options;

/* One micro-batch: the source files it reads and where the stream stands after it. */
typedef struct tn_stream_plan {
    tn_arena *arena;
    tn_table *hold;                    /* the snapshot whose files are borrowed (snapshot phase) */
    tn_delta_file *files;              /* TABLE: data adds */
    uint32_t nfiles, cap;
    int64_t read_version;              /* TABLE: the snapshot the batch reads them with */
    int64_t first_version, last_version;   /* TABLE: versions the batch spans */
    const char **paths;                /* FILES */
    uint32_t npaths;
    tn_stream_pos end;
    bool advanced;                     /* end differs from the start */
    bool more;                         /* stopped at max_files: more input is ready */
} tn_stream_plan;

/* The source and target of an INSERT INTO ... SELECT statement (names resolved in wh). */
int tn_stream_source_resolve(tn_stream_source *src, char **target_path, const char *wh, const tn_sql_stmt *st);
void tn_stream_source_free(tn_stream_source *src);
int tn_stream_options_parse(tn_stream_options *o, json_t *options);
/* Refuses options that do not apply to src's kind (table-source options on a file pattern). */
int tn_stream_options_check(const tn_stream_source *src, json_t *options);

/* The position a new job starts at. */
int tn_stream_pos_start(tn_stream_pos *p, const tn_stream_source *src, const tn_stream_options *o);
void tn_stream_pos_free(tn_stream_pos *p);
int tn_stream_pos_copy(tn_stream_pos *dst, const tn_stream_pos *src);
/* Whether pos can be a position of src: a table position within the source's log (a version no
 * later than the latest + 1, an index within its version's data files or its snapshot's files).
 * what prefixes the error (the file the position came from). */
int tn_stream_pos_check(const tn_stream_source *src, const tn_stream_pos *pos, const char *what);
/* "version 12", "15 files" */
char *tn_stream_pos_text(const tn_stream_source *src, const tn_stream_pos *p);

/* Plans the next batch from pos (end = pos and no files when nothing is new). */
int tn_stream_plan_next(tn_stream_plan *plan, const tn_stream_source *src, const tn_stream_pos *pos,
                        const tn_stream_options *o);
void tn_stream_plan_free(tn_stream_plan *plan);
/* Input not read yet: versions (TABLE) or files (FILES). */
int tn_stream_lag(const tn_stream_source *src, const tn_stream_pos *pos, int64_t *out);

/* ---------------------------------------------------------------------------------------------
 * The job directory's files (state.c): strict decoders of untrusted bytes (what names the file
 * in every error, e.g. "job state '/w/_jobs/j/state.json'"), encoders, atomic writes.
 */
/* Writes data to path atomically (temp file in the same directory, fsync, rename). */
int tn_stream_write_file(const char *path, const char *data, size_t n);
int tn_stream_write_json(const char *path, json_t *j);
/* Appends the file's bytes to out (TN_ENOTFOUND "<what> does not exist"; at most 256 MiB). */
int tn_stream_read_file(tn_buf *out, const char *path, const char *what);

json_t *tn_stream_pos_to_json(tn_stream_source_kind kind, const tn_stream_pos *p);
/* A position object (field names it: "position"); *kind is the position's own kind. */
int tn_stream_pos_decode(tn_stream_pos *p, tn_stream_source_kind *kind, json_t *j, const char *what,
                         const char *field);
/* Refuses a position of the other kind than src's. */
int tn_stream_pos_for_source(tn_stream_source_kind kind, const tn_stream_source *src, const char *what,
                             const char *field);

/* state.json (owned strings and positions: tn_stream_state_free). */
typedef struct tn_stream_state {
    const char *state;                 /* static: created restored running stopped canceled failed */
    tn_stream_source_kind kind;        /* of its positions */
    int64_t batch;                     /* last committed batch */
    tn_stream_pos pos;
    bool has_pending;                  /* batch + 1 may have committed with pending_pos after it */
    int64_t pending_batch;
    tn_stream_pos pending_pos;
    uint64_t rows;
    int64_t updated_ms, last_batch_ms;
    char *last_error, *savepoint;      /* NULL: none */
} tn_stream_state;
int tn_stream_state_decode(tn_stream_state *out, const char *data, size_t n, const char *what);
json_t *tn_stream_state_to_json(const tn_stream_state *s);
void tn_stream_state_free(tn_stream_state *s);

/* job.json: *out is the checked object; opts (may be NULL) its parsed options. */
int tn_stream_spec_decode(json_t **out, tn_stream_options *opts, const char *data, size_t n, const char *what);
/* Checks a job definition object (at: "" or "job." for a savepoint's). */
int tn_stream_spec_check(json_t *spec, tn_stream_options *opts, const char *what, const char *at);

/* A savepoint file. A file without the tarn_savepoint mark: TN_EINVAL "... is not a tarn job savepoint". */
typedef struct tn_stream_savepoint {
    json_t *job;                       /* the job's definition (checked), a reference */
    int64_t batch;                     /* last committed batch */
    tn_stream_source_kind kind;
    tn_stream_pos pos;
    uint64_t rows;
    int64_t created_ms;
} tn_stream_savepoint;
int tn_stream_savepoint_decode(tn_stream_savepoint *out, const char *data, size_t n, const char *what);
json_t *tn_stream_savepoint_to_json(const tn_stream_savepoint *s);
void tn_stream_savepoint_free(tn_stream_savepoint *s);

#endif
