/*
 * parquet/parquet.h: the Parquet file format, as the layers above see it: open a file and read
 * its schema, metadata and statistics; scan chosen columns into chunks, skipping row groups and
 * pages that a simple predicate rules out; write chunks into a new file with bounded memory.
 * Flat schemas only (nested columns and encrypted files are refused by name; nested files open
 * for their metadata only). Depends on types/ and base/.
 */
#ifndef TN_PARQUET_H
#define TN_PARQUET_H

#include "types/types.h"

typedef enum tn_parquet_codec {
    TN_CODEC_UNCOMPRESSED = 0,
    TN_CODEC_SNAPPY = 1,
    TN_CODEC_GZIP = 2,
    TN_CODEC_LZO = 3,
    TN_CODEC_BROTLI = 4,
    TN_CODEC_LZ4 = 5,      /* deprecated Hadoop-framed LZ4: read only */
    TN_CODEC_ZSTD = 6,
    TN_CODEC_LZ4_RAW = 7,
} tn_parquet_codec;

const char *tn_parquet_codec_name(int codec);        /* "ZSTD"; "UNKNOWN(9)" style for others */
int tn_parquet_codec_parse(const char *name, tn_parquet_codec *out); /* case-insensitive */

/* ---------------------------------------------------------------------------------------------
 * Reading.
 */
typedef struct tn_parquet_file tn_parquet_file;

typedef struct tn_parquet_open_options {
    int version;                 /* TN_PARQUET_OPEN_OPTIONS_VERSION */
    bool verify_checksums;       /* check page CRCs where present (default true) */
    uint64_t max_page_bytes;     /* refuse pages larger than this uncompressed (default 1 GiB) */
    bool metadata_only;          /* accept nested schemas for describing the file: the columns
                                    are the leaves (named by dotted path, "a.list.element"),
                                    and tn_parquet_scan_open refuses the file (default false) */
} tn_parquet_open_options;
#define TN_PARQUET_OPEN_OPTIONS_VERSION 1
#define TN_PARQUET_OPEN_OPTIONS_INIT {TN_PARQUET_OPEN_OPTIONS_VERSION, true, (uint64_t)1 << 30, false}

/* Opens path, reads and validates the footer and schema. opts may be NULL (defaults).
 * Errors name the file and what is wrong ("x.parquet: column 'a': nested columns are not
 * supported"). The caller closes *out with tn_parquet_close. */
int tn_parquet_open(tn_parquet_file **out, tn_fs *fs, const char *path,
                    const tn_parquet_open_options *opts);
void tn_parquet_close(tn_parquet_file *file);
/* The open file descriptor behind a file, for callers that keep many files' metadata but a
 * bounded number of descriptors (table scans): tn_parquet_handle_close releases it (the
 * metadata stays; no tn_parquet_scan of the file may be open), tn_parquet_handle_open opens it
 * again (a no-op when open) and fails with TN_ECORRUPT if the file's size changed meanwhile. */
int tn_parquet_handle_open(tn_parquet_file *file);
void tn_parquet_handle_close(tn_parquet_file *file);
bool tn_parquet_handle_is_open(const tn_parquet_file *file);

/* The same as tn_parquet_open through the process's footer cache (cache.c): path is stat'ed, and
 * when a footer of the same file system, path, size, modification time and metadata_only was
 * parsed before and is still kept, *out is a copy of it opened without any I/O and without a
 * descriptor (tn_parquet_handle_open opens it, checking the size). Otherwise the file is opened
 * and its footer kept (LRU, 64 MiB by default; footers over an eighth of it are not kept). A
 * file system without stat opens uncached. Close *out with tn_parquet_close as usual. */
int tn_parquet_open_cached(tn_parquet_file **out, tn_fs *fs, const char *path,
                           const tn_parquet_open_options *opts);
/* The same for a file whose size and version the caller knows (a Delta table's data file: the
 * size and modificationTime its log gives, the file being immutable): no stat; the key is
 * (path, size, version) and a miss opens the file, used uncached when its size differs. The
 * descriptor's open (tn_parquet_handle_open) still checks the size. */
int tn_parquet_open_cached_known(tn_parquet_file **out, tn_fs *fs, const char *path, uint64_t size,
                                 int64_t version, const tn_parquet_open_options *opts);
/* Sets the cache's budget in bytes (0: no caching), evicting down to it. */
void tn_parquet_cache_configure(uint64_t max_bytes);
/* Forgets every kept footer (open copies stay valid). */
void tn_parquet_cache_clear(void);
/* page_memo_bytes: decompressed pages kept with the footers of small files (up to 4 MiB; at
 * most 16 MiB per file and 64 MiB in all), so that a statement re-reading a small table does not
 * decompress it again; freed with the footer. */
typedef struct tn_parquet_cache_stats {
    uint64_t hits, misses, entries, bytes, max_bytes, page_memo_bytes;
} tn_parquet_cache_stats;
void tn_parquet_cache_get_stats(tn_parquet_cache_stats *out);

typedef struct tn_parquet_column_info {
    const char *name;            /* borrowed from the file */
    tn_type type;
    bool nullable;
    int32_t field_id;            /* -1 if absent */
} tn_parquet_column_info;

uint32_t tn_parquet_num_columns(const tn_parquet_file *file);
const tn_parquet_column_info *tn_parquet_column(const tn_parquet_file *file, uint32_t column);
int64_t tn_parquet_num_rows(const tn_parquet_file *file);
uint32_t tn_parquet_num_row_groups(const tn_parquet_file *file);
int64_t tn_parquet_row_group_num_rows(const tn_parquet_file *file, uint32_t row_group);
uint64_t tn_parquet_file_size(const tn_parquet_file *file);
const char *tn_parquet_path(const tn_parquet_file *file);
/* Key-value metadata of the footer: value may be NULL. Returns count; index < count. */
uint32_t tn_parquet_kv_count(const tn_parquet_file *file);
void tn_parquet_kv(const tn_parquet_file *file, uint32_t index, const char **key, const char **value);

/* Statistics of one column chunk, as logical values (strings borrowed from the file). */
typedef struct tn_parquet_stats {
    bool has_min_max;            /* min/max present, exact or a bound, and not NaN */
    bool min_exact, max_exact;
    tn_value min, max;
    bool has_null_count;
    int64_t null_count;
    int64_t num_values;          /* values incl. nulls */
    uint64_t compressed_bytes;   /* bytes of the chunk on disk */
    bool has_distinct_count;     /* distinct non-null values, where the writer gave them */
    int64_t distinct_count;
} tn_parquet_stats;
int tn_parquet_column_stats(const tn_parquet_file *file, uint32_t row_group, uint32_t column,
                            tn_parquet_stats *out);

/* Human-readable dump for `tarn parquet meta` (schema tree, row groups, leaf column chunks:
 * encodings, codecs, sizes, offsets, stats, page index and bloom filter locations). */
int tn_parquet_describe(const tn_parquet_file *file, tn_buf *out);
/* The schema tree for `tarn parquet schema`: one line per element (name indented under its
 * parent, tarn type of a leaf or LIST/MAP/STRUCT, repetition, physical/converted/logical type,
 * max definition and repetition levels), then "N rows, N row groups, N columns". */
int tn_parquet_describe_schema(const tn_parquet_file *file, tn_buf *out);

/* A simple predicate `column OP constant` used to skip row groups (by statistics) and pages (by
 * the page index). Skipping is conservative: the scan returns a superset of matching rows, and
 * the caller still filters. */
typedef enum tn_parquet_op { TN_PQ_EQ, TN_PQ_NE, TN_PQ_LT, TN_PQ_LE, TN_PQ_GT, TN_PQ_GE,
                             TN_PQ_IS_NULL, TN_PQ_IS_NOT_NULL } tn_parquet_op;
typedef struct tn_parquet_predicate {
    uint32_t column;             /* file column index */
    tn_parquet_op op;
    tn_value constant;           /* same logical type as the column (ignored for IS [NOT] NULL) */
} tn_parquet_predicate;

/* `column IN (values)`: non-NULL values of the column's type (a row filter term). */
typedef struct tn_parquet_in_list {
    uint32_t column;             /* file column index */
    const tn_value *values;
    uint32_t nvalues;
} tn_parquet_in_list;

/* True when the row group might hold a row satisfying every predicate. */
bool tn_parquet_row_group_may_match(const tn_parquet_file *file, uint32_t row_group,
                                    const tn_parquet_predicate *preds, uint32_t npreds);

typedef struct tn_parquet_scan tn_parquet_scan;
typedef struct tn_parquet_scan_options {
    const uint32_t *columns;     /* file column indexes to read, in output order */
    uint32_t ncolumns;
    const uint32_t *row_groups;  /* row groups to read, ascending; NULL = all */
    uint32_t nrow_groups;
    const tn_parquet_predicate *predicates;  /* for skipping; may be NULL */
    uint32_t npredicates;
    const tn_type *column_types; /* NULL, or per output column the type to read: a nested
                                    column's type keeping only some of its struct fields
                                    (named as in the file, at any depth; a MAP keeps its key),
                                    so that only those fields' leaves are read; a flat column's
                                    own type */
} tn_parquet_scan_options;

/* A row filter: a conjunction of predicates and IN lists (SQL semantics: a comparison with NULL
 * is not true). */
typedef struct tn_parquet_row_filter {
    const tn_parquet_predicate *predicates;
    uint32_t npredicates;
    const tn_parquet_in_list *in_lists;
    uint32_t nin_lists;
} tn_parquet_row_filter;

typedef struct tn_parquet_scan_counters {
    uint64_t row_groups_scanned;
    uint64_t pages_read;
    uint64_t pages_skipped;
    uint64_t rows_scanned;
    uint64_t bytes_read;         /* compressed bytes read from storage */
} tn_parquet_scan_counters;

/* A scan borrows the file (close the scan first). */
int tn_parquet_scan_open(tn_parquet_scan **out, tn_parquet_file *file,
                         const tn_parquet_scan_options *opts);
/* Fills `out` (initialised with the projected columns' types, capacity >= TN_VECTOR_SIZE)
 * with up to TN_VECTOR_SIZE rows; out->count == 0 at the end. Rows of one call are
 * consecutive rows of the file starting at *first_row (file row index, may be NULL).
 * VARCHAR/VARBINARY values are BORROWED from the scan's page buffers: they stay valid only
 * until the next tn_parquet_scan_next or tn_parquet_scan_close; copy them to keep them. */
int tn_parquet_scan_next(tn_parquet_scan *scan, tn_chunk *out, int64_t *first_row);
/* Filters rows inside the scan (call before the first tn_parquet_scan_next; copies f): the
 * filter columns of each batch are decoded first and tested (on dictionary pages once per
 * dictionary entry, then per index); the other columns are decoded only for the rows that pass,
 * and their pages holding no such row are not decompressed. The scan then returns only rows
 * that may satisfy f: a superset (float NaN and zeros always pass; terms on columns that are not
 * projected, on INTERVAL columns or with a constant of another type are ignored), so the caller
 * keeps its own filter. Does not add skipping (give the predicates in the options for that).
 * Rows of one call are then ascending but not consecutive: *first_row is the first output
 * row's index; tn_parquet_scan_next_rows gives every row's. */
int tn_parquet_scan_set_filter(tn_parquet_scan *scan, const tn_parquet_row_filter *f);
/* tn_parquet_scan_next; row_ids (room for TN_VECTOR_SIZE, may be NULL) receives every output
 * row's file row index. One call never spans two row groups. */
int tn_parquet_scan_next_rows(tn_parquet_scan *scan, tn_chunk *out, int64_t *row_ids);
/* Restarts the scan on other row groups of the same file (ascending; NULL = all), keeping its
 * columns, predicates, row filter and buffers (so a reader of many row groups does not
 * allocate and fault in fresh buffers for each); counters restart at zero. */
int tn_parquet_scan_reset(tn_parquet_scan *scan, const uint32_t *row_groups, uint32_t nrow_groups);
/* Reads only rows [0, limit) of each row group started after the call (limit < 0: all rows):
 * pages past the limit are neither read from storage (when the column has an OffsetIndex) nor
 * decoded. For layouts whose rows are ordered so that a query needs a prefix of each row group. */
void tn_parquet_scan_set_row_limit(tn_parquet_scan *scan, int64_t limit);
const tn_parquet_scan_counters *tn_parquet_scan_stats(const tn_parquet_scan *scan);
void tn_parquet_scan_close(tn_parquet_scan *scan);

/* ---------------------------------------------------------------------------------------------
 * Writing.
 */
typedef struct tn_parquet_writer tn_parquet_writer;

typedef struct tn_parquet_column_spec {
    const char *name;
    tn_type type;
    bool nullable;
    int32_t field_id;            /* -1 = do not write */
} tn_parquet_column_spec;

typedef struct tn_parquet_kv_pair { const char *key; const char *value; } tn_parquet_kv_pair;

typedef struct tn_parquet_writer_options {
    int version;                     /* TN_PARQUET_WRITER_OPTIONS_VERSION */
    tn_parquet_codec codec;          /* default ZSTD */
    int compression_level;           /* 0 = codec default (ZSTD 3, GZIP 6) */
    uint64_t row_group_rows;         /* rows per row group (default 1,048,576) */
    uint64_t row_group_bytes;        /* or when buffered bytes pass this (default 128 MiB) */
    uint32_t page_bytes;             /* target uncompressed data page size (default 1 MiB) */
    uint32_t page_rows;              /* max rows per page (default 20,000) */
    bool dictionary;                 /* RLE_DICTIONARY where it pays (default true) */
    uint32_t dictionary_max_bytes;   /* fall back to PLAIN past this (default 1 MiB) */
    bool statistics;                 /* chunk statistics (default true) */
    bool page_index;                 /* ColumnIndex + OffsetIndex (default true) */
    const tn_parquet_kv_pair *kv;    /* footer key-value metadata */
    uint32_t nkv;
    bool no_sync;                    /* close does not fsync: the caller does, before naming it */
} tn_parquet_writer_options;
#define TN_PARQUET_WRITER_OPTIONS_VERSION 1
#define TN_PARQUET_WRITER_OPTIONS_INIT \
    {TN_PARQUET_WRITER_OPTIONS_VERSION, TN_CODEC_ZSTD, 0, 1048576, (uint64_t)128 << 20, \
     1 << 20, 20000, true, 1 << 20, true, true, NULL, 0, false}

/* Per-column statistics of a finished file (for Delta's add.stats). */
typedef struct tn_parquet_column_result {
    bool has_min_max;
    tn_value min, max;               /* strings owned by the result */
    int64_t null_count;
} tn_parquet_column_result;
typedef struct tn_parquet_write_result {
    int64_t num_rows;
    uint64_t file_bytes;
    uint32_t ncolumns;
    tn_parquet_column_result *columns;
    tn_arena *arena;                 /* owns columns and string bytes */
} tn_parquet_write_result;
void tn_parquet_write_result_free(tn_parquet_write_result *r);

/* Creates path (which must not exist). opts may be NULL (defaults). */
int tn_parquet_writer_open(tn_parquet_writer **out, tn_fs *fs, const char *path,
                           const tn_parquet_column_spec *columns, uint32_t ncolumns,
                           const tn_parquet_writer_options *opts);
/* Appends the rows of chunk (its vectors' types must equal the specs'). A NULL in a column
 * declared not nullable is an error naming the column. */
int tn_parquet_writer_write(tn_parquet_writer *w, const tn_chunk *chunk);
/* Flushes, writes the footer, fsyncs and closes; frees w. result may be NULL. On error the
 * partial file is removed. */
int tn_parquet_writer_close(tn_parquet_writer *w, tn_parquet_write_result *result);
/* Ends the current row group now (nothing happens when it holds no row): an explicit row-group
 * boundary, for layouts that put one unit (a cube block, a bucket run) in each row group. */
int tn_parquet_writer_flush(tn_parquet_writer *w);
/* Ends the current data page of every column now (no-op for a column without buffered rows):
 * explicit page boundaries, so that a reader can stop after a prefix of a row group (a layout
 * that orders rows, e.g. by sample weight, and records where its pages start). */
int tn_parquet_writer_end_page(tn_parquet_writer *w);
/* Bytes written to the file so far (finished row groups), bytes buffered for the current row
 * group (encoded pages, an estimate of what flushing it adds), row groups finished. */
uint64_t tn_parquet_writer_bytes_written(const tn_parquet_writer *w);
uint64_t tn_parquet_writer_bytes_buffered(const tn_parquet_writer *w);
uint32_t tn_parquet_writer_num_row_groups(const tn_parquet_writer *w);
/* Abandons the file (removes it) and frees w. */
void tn_parquet_writer_abort(tn_parquet_writer *w);

#endif
