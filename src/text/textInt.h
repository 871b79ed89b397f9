/*
 * text/textInt.h: what the CSV / NDJSON readers and writers share, private to src/text/: the
 * buffered file input both readers tokenize from, the text-to-value parsers and the store of a
 * field's text into a typed vector slot (with the "could not convert" error), the candidate-type
 * sets of type detection, chunk preparation, and the buffered output both writers write through.
 * Implemented in text_common.c; nothing outside src/text/ includes it.
 */
#ifndef TN_TEXT_INT_H
#define TN_TEXT_INT_H

#include "text/text.h"

/* ---------------------------------------------------------------------------------------------
 * Buffered input. The readers tokenize buf[pos, len) in place; a refill keeps the unread bytes
 * (moved to the front), doubling the buffer (up to max_record) when they fill it.
 */
typedef struct tn_text_input {
    tn_fs *fs;
    tn_file *file;
    const char *path;            /* borrowed from the reader, for messages */
    uint64_t file_size;
    uint64_t file_off;           /* next byte of the file to read into buf */
    char *buf;
    size_t cap, len, pos;        /* unread bytes are buf[pos, len) */
    bool eof;                    /* file_off == file_size */
    size_t max_record;           /* longest record (line) accepted: the buffer's limit */
} tn_text_input;

/* Opens path for reading with a buffer of buffer_size bytes (0: 4 MiB; at least 16, at most the
 * file's size + 16) and records up to max_record_size bytes (0: 64 MiB; at most 1 GiB, at least
 * the buffer). *data_off is 3 after a UTF-8 byte order mark, else 0; nothing is buffered yet
 * (seek first). in must be zeroed; free it with tn_text_input_close, also after an error. */
int tn_text_input_open(tn_text_input *in, tn_fs *fs, const char *path, size_t buffer_size,
                       size_t max_record_size, uint64_t *data_off);
/* Keeps buf[pos, len) and reads more after it. what/line name the record in the error when it
 * would exceed max_record: "<path>: line <line>: <what> longer than <max_record> bytes". */
int tn_text_input_refill(tn_text_input *in, const char *what, uint64_t line);
/* Drops the buffered bytes; the next refill reads from file offset off. */
void tn_text_input_seek(tn_text_input *in, uint64_t off);
void tn_text_input_close(tn_text_input *in);

/* ---------------------------------------------------------------------------------------------
 * Converting a field's text into a vector slot. A reader fills one tn_text_conv once its columns
 * are known; the messages name its file, the record's line and the column:
 *   "f.csv: line 10432, column 'x': could not convert 'abc' to BIGINT"
 */
typedef struct tn_text_conv {
    const char *path;
    const char *const *names;    /* the reader's column names and types (borrowed) */
    const tn_type *types;
    const char *date_format;     /* strptime-style subset for DATE / TIMESTAMP; NULL: ISO 8601 */
    const char *ts_format;
    bool replace_invalid_utf8;   /* VARCHAR text that is not UTF-8: U+FFFD, else the error */
} tn_text_conv;

/* A VARCHAR value whose bytes are not UTF-8 (the first bad byte at offset `at`): the error
 * "f.csv: line 3, column 'x': invalid UTF-8 (byte 0xff at byte 4 of the value)", or, under
 * replace_invalid_utf8, the value with U+FFFD for each ill-formed sequence. */
int tn_text_store_bad_utf8(const tn_text_conv *cv, uint64_t line, uint32_t col, tn_vector *v,
                           uint32_t row, const char *s, size_t n, size_t at);
/* A column name (header field, JSON key) that must be UTF-8: 0 with *fixed NULL when it is;
 * with replace, 0 and *fixed a U+FFFD-replaced copy (tn_free); else the error
 * "<where>: column name 'a\xff' is not valid UTF-8". */
int tn_text_check_name(const char *where, const char *name, bool replace, char **fixed);
/* Stores s[0, n) as v[row] (VARCHAR) after checking it is UTF-8. */
static inline int tn_text_store_str(const tn_text_conv *cv, uint64_t line, uint32_t col,
                                    tn_vector *v, uint32_t row, const char *s, size_t n) {
    size_t at = tn_utf8_check(s, n);
    if (__builtin_expect(at != n, 0)) return tn_text_store_bad_utf8(cv, line, col, v, row, s, n, at);
    return tn_vector_set_str(v, row, s, n);
}

int tn_text_convert_error(const tn_text_conv *cv, uint64_t line, uint32_t col, const char *s,
                          size_t n);
/* Sets v[row] NULL (the slot's bytes zeroed). */
int tn_text_store_null(tn_vector *v, uint32_t row);
/* true/false/t/f/yes/no in any case (the other lenient parsers are in text.h). */
bool tn_text_parse_bool(const char *s, size_t n, bool *out);
/* DATE / TIMESTAMP[TZ] text in cv's format (ISO 8601 when it has none). */
bool tn_text_read_date(const tn_text_conv *cv, const char *s, size_t n, int32_t *out);
bool tn_text_read_timestamp(const tn_text_conv *cv, const char *s, size_t n, int64_t *out,
                            bool *tz);

/* Parses s[0, n) as v's type into v[row]: integers with optional sign and range checks, DOUBLE
 * and FLOAT (inf / nan too), BOOLEAN (true/false/t/f/yes/no, 1/0), DATE, TIMESTAMP[TZ] (a date
 * is midnight), DECIMAL (rounded half up), VARCHAR / VARBINARY as is. On failure the convert
 * error for column col at line. Defined here, inline, because it is the CSV reader's per-field
 * step: out of line it cost ~7% more instructions on the CSV benchmark (callgrind). */
static inline int tn_text_store_field(const tn_text_conv *cv, uint64_t line, uint32_t col,
                                      tn_vector *v, uint32_t row, const char *s, size_t n) {
    int64_t i64;
    switch (v->type.id) {
    case TN_TYPE_VARCHAR:
        return tn_text_store_str(cv, line, col, v, row, s, n);
    case TN_TYPE_VARBINARY:
        return tn_vector_set_str(v, row, s, n);
    case TN_TYPE_BIGINT:
        if (!tn_text_parse_int(s, n, &i64)) return tn_text_convert_error(cv, line, col, s, n);
        ((int64_t *)v->data)[row] = i64;
        return 0;
    case TN_TYPE_INTEGER:
        if (!tn_text_parse_int(s, n, &i64) || i64 < INT32_MIN || i64 > INT32_MAX)
            return tn_text_convert_error(cv, line, col, s, n);
        ((int32_t *)v->data)[row] = (int32_t)i64;
        return 0;
    case TN_TYPE_SMALLINT:
        if (!tn_text_parse_int(s, n, &i64) || i64 < INT16_MIN || i64 > INT16_MAX)
            return tn_text_convert_error(cv, line, col, s, n);
        ((int16_t *)v->data)[row] = (int16_t)i64;
        return 0;
    case TN_TYPE_TINYINT:
        if (!tn_text_parse_int(s, n, &i64) || i64 < INT8_MIN || i64 > INT8_MAX)
            return tn_text_convert_error(cv, line, col, s, n);
        ((int8_t *)v->data)[row] = (int8_t)i64;
        return 0;
    case TN_TYPE_DOUBLE: {
        double d;
        if (!tn_text_parse_double(s, n, &d)) return tn_text_convert_error(cv, line, col, s, n);
        ((double *)v->data)[row] = d;
        return 0;
    }
    case TN_TYPE_FLOAT: {
        double d;
        if (!tn_text_parse_double(s, n, &d)) return tn_text_convert_error(cv, line, col, s, n);
        ((float *)v->data)[row] = (float)d;
        return 0;
    }
    case TN_TYPE_BOOLEAN: {
        bool b;
        if (!tn_text_parse_bool(s, n, &b)) {
            /* read-time leniency as DuckDB's cast: 1 / 0 */
            if (tn_text_parse_int(s, n, &i64) && (i64 == 0 || i64 == 1)) b = i64 == 1;
            else return tn_text_convert_error(cv, line, col, s, n);
        }
        ((uint8_t *)v->data)[row] = b;
        return 0;
    }
    case TN_TYPE_DATE: {
        int32_t d;
        if (!tn_text_read_date(cv, s, n, &d)) return tn_text_convert_error(cv, line, col, s, n);
        ((int32_t *)v->data)[row] = d;
        return 0;
    }
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: {
        bool tz;
        int32_t d;
        if (tn_text_read_timestamp(cv, s, n, &i64, &tz)) {
            ((int64_t *)v->data)[row] = i64;
            return 0;
        }
        if (tn_text_read_date(cv, s, n, &d)) { /* a date is midnight */
            ((int64_t *)v->data)[row] = (int64_t)d * 86400000000LL;
            return 0;
        }
        return tn_text_convert_error(cv, line, col, s, n);
    }
    case TN_TYPE_DECIMAL: {
        tn_int128 d;
        if (!tn_text_parse_decimal(s, n, v->type.precision, v->type.scale, &d))
            return tn_text_convert_error(cv, line, col, s, n);
        if (v->type.precision <= TN_DECIMAL_INT64_MAX_PRECISION) ((int64_t *)v->data)[row] = (int64_t)d;
        else ((tn_int128 *)v->data)[row] = d;
        return 0;
    }
    default:
        return tn_text_convert_error(cv, line, col, s, n);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Type detection: the set of candidate types a value parses as; a column's set is the
 * intersection over its values, and its type the first candidate in this order.
 */
enum {
    TN_TEXT_M_BOOL = 1, TN_TEXT_M_INT = 2, TN_TEXT_M_DOUBLE = 4, TN_TEXT_M_DATE = 8,
    TN_TEXT_M_TS = 16, TN_TEXT_M_TSTZ = 32, TN_TEXT_M_ALL = 63,
    TN_TEXT_M_TEMPORAL = TN_TEXT_M_DATE | TN_TEXT_M_TS | TN_TEXT_M_TSTZ
};
/* Every candidate of a CSV field: BOOLEAN alone, else the strict numbers (no leading zeros, no
 * '+'), else the temporal ones. */
unsigned tn_text_classify(const tn_text_conv *cv, const char *s, size_t n);
/* Only the temporal candidates (DATE, TIMESTAMP or TIMESTAMPTZ by the zone's presence). */
unsigned tn_text_classify_temporal(const tn_text_conv *cv, const char *s, size_t n);
/* The first candidate in mask; VARCHAR when none or when no value was seen. */
tn_type tn_text_type_from_mask(unsigned mask, bool seen);

/* ---------------------------------------------------------------------------------------------
 * Chunks, for the readers' *_next. begin: initializes a zeroed out with the reader's types
 * (TN_VECTOR_SIZE rows, fewer for hundreds of columns: at most 8 MiB of vectors), else checks
 * its column count; resets it and sets *cap to the rows it may take. end: sets
 * the row count of out and its columns to n, or after an error (rc < 0) to 0 and *failed;
 * returns rc.
 */
int tn_text_chunk_begin(tn_chunk *out, const char *path, uint32_t ncols, const tn_type *types,
                        uint32_t *cap);
int tn_text_chunk_end(tn_chunk *out, uint32_t n, int rc, bool *failed);

/* ---------------------------------------------------------------------------------------------
 * Buffered output shared by the writers: rows are appended to `out`, which is written to the
 * file whenever it passes 1 MiB and at close.
 */
typedef struct tn_text_output {
    tn_fs *fs;
    tn_file *file;
    char *path;
    uint32_t ncols;
    tn_type *types;
    tn_buf out;                  /* bytes not yet written */
    tn_buf val;                  /* scratch: one value's text */
    int64_t rows;
} tn_text_output;

/* Copies path and types and creates (truncates) the file. o must be zeroed; after an error
 * release it with tn_text_output_free. */
int tn_text_output_open(tn_text_output *o, tn_fs *fs, const char *path, uint32_t ncols,
                        const tn_type *types);
/* The chunk's column count and types must be the writer's. */
int tn_text_output_check(const tn_text_output *o, const tn_chunk *chunk);
/* After each row: writes out when it has grown past the flush size. */
int tn_text_output_row_done(tn_text_output *o);
/* Flushes, closes the file and releases o (in every case). */
int tn_text_output_close(tn_text_output *o);
/* Closes the file if open and releases o without flushing. */
void tn_text_output_free(tn_text_output *o);

#endif
