/*
 * text/text.h: the text formats: a streaming CSV reader (RFC 4180 quoting, delimiter, header and
 * type detection as DuckDB's read_csv does them), an NDJSON reader (one JSON object per line,
 * types detected over a sample, nested values kept as JSON text), and CSV / NDJSON writers.
 * Readers produce tn_chunk batches with bounded memory; all I/O goes through a tn_fs.
 * Used by read_csv()/read_json() and COPY. Depends on types/ and base/ only.
 */
#ifndef TN_TEXT_H
#define TN_TEXT_H

#include "types/types.h"

/* ---------------------------------------------------------------------------------------------
 * CSV reading.
 *
 * Detection (when not given in the options), following DuckDB's sniffer:
 *   - delimiter: the one of , | ; TAB that splits the first rows into the most consistent
 *     number (> 1) of fields; ',' if none does.
 *   - types over the first `sample_size` rows, per column the first of BOOLEAN
 *     (true/false/t/f/yes/no), BIGINT (no leading zeros), DOUBLE, DATE (YYYY-MM-DD),
 *     TIMESTAMP (YYYY-MM-DD[T ]HH:MM[:SS[.f]]), TIMESTAMPTZ (the same with Z/+HH[:MM]) that
 *     every non-empty value parses as, else VARCHAR (also for all-NULL columns).
 *   - header: the first row is a header when some non-VARCHAR column's first-row value does
 *     not parse as the column's type, or when every column is VARCHAR. Empty header names
 *     become columnN, duplicates get _1, _2 ...; headerless files get column0, column1 ...
 *     (zero-padded to equal width: column00..column10 for 11 columns).
 * Empty fields (quoted or not) and fields equal to null_string (unquoted) are NULL. Blank
 * lines are skipped (single-column files: a blank line is a NULL row). A UTF-8 BOM is skipped.
 * Records end at LF, CRLF or CR. A value that does not parse as its column's type, a row with
 * the wrong number of fields, an unterminated quote: an error naming file, line and column,
 * e.g. "f.csv: line 10432, column 'x': could not convert 'abc' to BIGINT".
 */
typedef struct tn_csv_reader tn_csv_reader;

typedef struct tn_csv_options {
    int version;                     /* TN_CSV_OPTIONS_VERSION */
    char delimiter;                  /* 0 = detect among , | ; \t */
    char quote;                      /* default '"'; 0 = no quoting */
    char escape;                     /* 0 = same as quote ("" inside quotes); e.g. '\\' */
    int header;                      /* -1 = detect (default), 0 = no header, 1 = header */
    const char *null_string;         /* an unquoted field equal to this is NULL (plus empty) */
    uint32_t skip_rows;              /* records skipped before anything else (default 0) */
    uint32_t sample_size;            /* rows used for detection (default 20480) */
    bool all_varchar;                /* skip type detection: every column VARCHAR */
    /* Explicit columns (like DuckDB's names= / types= / columns=): either array may be NULL;
     * ncolumns must then match the file's field count. Given names replace the header's. */
    uint32_t ncolumns;
    const char *const *column_names;
    const tn_type *column_types;
    /* strptime-style formats (%Y %m %d %H %M %S %f %y %b %j-free subset: %Y %y %m %d %H %M %S
     * %f and literal characters) used for detection and parsing of DATE / TIMESTAMP columns
     * instead of ISO 8601; NULL = ISO. */
    const char *date_format;
    const char *timestamp_format;
    size_t buffer_size;              /* read buffer (default 4 MiB; grows for longer records) */
    size_t max_record_size;          /* longest record accepted (default 64 MiB) */
    /* VARCHAR values and header names that are not UTF-8: false (default) = an error naming
     * file, line and column; true = each ill-formed sequence becomes U+FFFD. */
    bool replace_invalid_utf8;
} tn_csv_options;
#define TN_CSV_OPTIONS_VERSION 1
#define TN_CSV_OPTIONS_INIT \
    {TN_CSV_OPTIONS_VERSION, 0, '"', 0, -1, NULL, 0, 20480, false, 0, NULL, NULL, NULL, NULL, \
     (size_t)4 << 20, (size_t)64 << 20, false}

/* Opens path and detects its dialect, header and column types (reading the sample; the file
 * is then read from the start again by tn_csv_next). opts may be NULL (defaults). The caller
 * closes *out with tn_csv_close. Errors name the file. */
int tn_csv_open(tn_csv_reader **out, tn_fs *fs, const char *path, const tn_csv_options *opts);
/* Number of columns; *names and *types (may be NULL) are borrowed from the reader. */
uint32_t tn_csv_columns(const tn_csv_reader *r, const char *const **names, const tn_type **types);
char tn_csv_delimiter(const tn_csv_reader *r);     /* the detected or given delimiter */
bool tn_csv_has_header(const tn_csv_reader *r);    /* the detected or given header flag */
/* Reads the next batch (up to TN_VECTOR_SIZE rows) into out. If out->cols is NULL (a zeroed
 * chunk) it is initialized with the reader's column types (with fewer rows when hundreds of
 * columns would make its vectors pass 8 MiB), else it must have been (by an
 * earlier call or tn_chunk_init with the same types); it is reset first. out->count == 0 means
 * end of file. The caller frees out with tn_chunk_free. After an error the reader is unusable. */
int tn_csv_next(tn_csv_reader *r, tn_chunk *out);
void tn_csv_close(tn_csv_reader *r);                /* NULL ok */

/* ---------------------------------------------------------------------------------------------
 * NDJSON reading: one JSON object per line (blank lines skipped). Columns are the keys seen in
 * the first `sample_size` lines, in first-seen order (keys first seen later are ignored).
 * Types: true/false -> BOOLEAN; integers -> BIGINT; numbers with a fraction or exponent (or
 * integers mixed with them) -> DOUBLE; strings -> DATE / TIMESTAMP / TIMESTAMPTZ when every
 * sampled string parses as one (ISO 8601), else VARCHAR; objects and arrays -> VARCHAR holding
 * the compact JSON text ({"x":[1,2]}); a column mixing kinds (string and number, ...) ->
 * VARCHAR holding each value's JSON text ("x" with its quotes, 1.5), as DuckDB's JSON type
 * spells it; all-null columns -> VARCHAR. Missing keys and null are NULL. Errors name file,
 * line and column.
 */
typedef struct tn_ndjson_reader tn_ndjson_reader;

typedef struct tn_ndjson_options {
    int version;                     /* TN_NDJSON_OPTIONS_VERSION */
    uint32_t sample_size;            /* lines used for detection (default 20480) */
    uint32_t ncolumns;               /* explicit columns: names required, types optional */
    const char *const *column_names;
    const tn_type *column_types;
    size_t buffer_size;              /* default 4 MiB; grows for longer lines */
    size_t max_record_size;          /* longest line accepted (default 64 MiB) */
    bool replace_invalid_utf8;       /* as tn_csv_options (strings, nested text and keys) */
} tn_ndjson_options;
#define TN_NDJSON_OPTIONS_VERSION 1
#define TN_NDJSON_OPTIONS_INIT \
    {TN_NDJSON_OPTIONS_VERSION, 20480, 0, NULL, NULL, (size_t)4 << 20, (size_t)64 << 20, false}

int tn_ndjson_open(tn_ndjson_reader **out, tn_fs *fs, const char *path,
                   const tn_ndjson_options *opts);
uint32_t tn_ndjson_columns(const tn_ndjson_reader *r, const char *const **names,
                           const tn_type **types);
/* Same contract as tn_csv_next. */
int tn_ndjson_next(tn_ndjson_reader *r, tn_chunk *out);
/* The line (1-based) that row `row` of the chunk the last next call returned starts at. */
uint64_t tn_csv_row_line(const tn_csv_reader *r, uint32_t row);
uint64_t tn_ndjson_row_line(const tn_ndjson_reader *r, uint32_t row);
void tn_ndjson_close(tn_ndjson_reader *r);         /* NULL ok */

/* ---------------------------------------------------------------------------------------------
 * Writing. Values are spelled by tn_value_format (DuckDB's spelling).
 * CSV: a header line (unless disabled), then RFC 4180 rows ending in LF: NULL as an empty
 * unquoted field (or null_string), the empty string as "", fields containing the delimiter,
 * the quote, CR or LF quoted with quotes doubled.
 * NDJSON: one object per line; numbers and booleans as JSON literals (NaN, Infinity, -Infinity
 * as DuckDB writes them), strings escaped (control characters as \uXXXX), NULL as null,
 * dates, timestamps and binary as strings.
 */
typedef struct tn_csv_writer tn_csv_writer;
typedef struct tn_ndjson_writer tn_ndjson_writer;

typedef struct tn_csv_write_options {
    int version;                     /* TN_CSV_WRITE_OPTIONS_VERSION */
    char delimiter;                  /* default ',' */
    char quote;                      /* default '"' */
    bool header;                     /* default true */
    const char *null_string;         /* default NULL: empty unquoted field */
} tn_csv_write_options;
#define TN_CSV_WRITE_OPTIONS_VERSION 1
#define TN_CSV_WRITE_OPTIONS_INIT {TN_CSV_WRITE_OPTIONS_VERSION, ',', '"', true, NULL}

/* Creates (truncates) path. names/types are copied. opts may be NULL. */
int tn_csv_writer_open(tn_csv_writer **out, tn_fs *fs, const char *path, uint32_t ncolumns,
                       const char *const *names, const tn_type *types,
                       const tn_csv_write_options *opts);
/* Appends chunk's rows (its column count and types must match). */
int tn_csv_writer_write(tn_csv_writer *w, const tn_chunk *chunk);
/* Flushes and closes; frees w in every case. */
int tn_csv_writer_close(tn_csv_writer *w);
int64_t tn_csv_writer_rows(const tn_csv_writer *w);

int tn_ndjson_writer_open(tn_ndjson_writer **out, tn_fs *fs, const char *path, uint32_t ncolumns,
                          const char *const *names, const tn_type *types);
int tn_ndjson_writer_write(tn_ndjson_writer *w, const tn_chunk *chunk);
int tn_ndjson_writer_close(tn_ndjson_writer *w);
int64_t tn_ndjson_writer_rows(const tn_ndjson_writer *w);

/* Appends one CSV field to out: quoted (quotes doubled) when it is empty or contains delim,
 * quote, CR or LF. For result printing (--csv) and the writer. */
int tn_csv_append_field(tn_buf *out, const char *s, size_t n, char delim, char quote);
/* Appends s as a JSON string literal (with the quotes). */
int tn_json_append_string(tn_buf *out, const char *s, size_t n);

/* Parsing helpers shared by both readers (and usable by CAST): strict ISO 8601 forms.
 * Return true and set *out on success. Leading/trailing spaces are allowed. */
bool tn_text_parse_date(const char *s, size_t n, int32_t *out);
/* *has_tz says whether a zone offset was present (then *out is the UTC instant). */
bool tn_text_parse_timestamp(const char *s, size_t n, int64_t *out, bool *has_tz);
/* Lenient forms used when reading a column of a known type: optional sign, int64 range. */
bool tn_text_parse_int(const char *s, size_t n, int64_t *out);
/* Decimal or exponent notation, inf, infinity, nan (any case). */
bool tn_text_parse_double(const char *s, size_t n, double *out);
/* Into a DECIMAL(precision, scale) unscaled value; extra fraction digits round half up. */
bool tn_text_parse_decimal(const char *s, size_t n, int precision, int scale, tn_int128 *out);

#endif
