/*
 * stream/streamInt.h: private to stream/: a job's source (what its SQL streams from), positions
 * (where the next batch starts; JSON as in stream.h), and batch plans (the files of one
 * micro-batch and the position after it). source.c implements them, job.c runs jobs on them.
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

/* The position a new job starts at. */
int tn_stream_pos_start(tn_stream_pos *p, const tn_stream_source *src, const tn_stream_options *o);
void tn_stream_pos_free(tn_stream_pos *p);
int tn_stream_pos_copy(tn_stream_pos *dst, const tn_stream_pos *src);
json_t *tn_stream_pos_to_json(const tn_stream_source *src, const tn_stream_pos *p);
/* what names the file for messages */
int tn_stream_pos_from_json(tn_stream_pos *p, const tn_stream_source *src, json_t *j, const char *what);
/* "version 12", "15 files" */
char *tn_stream_pos_text(const tn_stream_source *src, const tn_stream_pos *p);

/* Plans the next batch from pos (end = pos and no files when nothing is new). */
int tn_stream_plan_next(tn_stream_plan *plan, const tn_stream_source *src, const tn_stream_pos *pos,
                        const tn_stream_options *o);
void tn_stream_plan_free(tn_stream_plan *plan);
/* Input not read yet: versions (TABLE) or files (FILES). */
int tn_stream_lag(const tn_stream_source *src, const tn_stream_pos *pos, int64_t *out);

/* Writes data to path atomically (temp file in the same directory, fsync, rename). */
int tn_stream_write_file(const char *path, const char *data, size_t n);
int tn_stream_write_json(const char *path, json_t *j);
/* Reads a JSON object file (what names it in errors). */
int tn_stream_read_json(json_t **out, const char *path, const char *what);

#endif
