/*
 * parquet/parquetInt.h: private to parquet/: the in-memory form of the Thrift structures of the
 * footer and page headers, the Thrift compact protocol, the value encodings and the codecs.
 * Field numbers are those of parquet.thrift (docs/formats.md, "Parquet").
 *
 * File layout:
 *   "PAR1" | row group 0: chunk 0 [dictionary page] data page+ | chunk 1 ... | row group 1 ...
 *   | ColumnIndex x chunks | OffsetIndex x chunks | FileMetaData (compact) | u32 LE len | "PAR1"
 */
#ifndef TN_PARQUET_INT_H
#define TN_PARQUET_INT_H

#include "parquet/parquet.h"

/* Physical types (parquet.thrift Type). */
enum { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_INT96 = 3, PQ_FLOAT = 4, PQ_DOUBLE = 5,
       PQ_BYTE_ARRAY = 6, PQ_FIXED_LEN_BYTE_ARRAY = 7 };
/* FieldRepetitionType */
enum { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };
/* Encoding */
enum { PQ_ENC_PLAIN = 0, PQ_ENC_PLAIN_DICTIONARY = 2, PQ_ENC_RLE = 3, PQ_ENC_BIT_PACKED = 4,
       PQ_ENC_DELTA_BINARY_PACKED = 5, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
       PQ_ENC_DELTA_BYTE_ARRAY = 7, PQ_ENC_RLE_DICTIONARY = 8, PQ_ENC_BYTE_STREAM_SPLIT = 9 };
/* PageType */
enum { PQ_PAGE_DATA = 0, PQ_PAGE_INDEX = 1, PQ_PAGE_DICTIONARY = 2, PQ_PAGE_DATA_V2 = 3 };
/* ConvertedType */
enum { PQ_CT_NONE = -1, PQ_CT_UTF8 = 0, PQ_CT_MAP = 1, PQ_CT_MAP_KEY_VALUE = 2, PQ_CT_LIST = 3,
       PQ_CT_ENUM = 4, PQ_CT_DECIMAL = 5, PQ_CT_DATE = 6, PQ_CT_TIME_MILLIS = 7,
       PQ_CT_TIME_MICROS = 8, PQ_CT_TIMESTAMP_MILLIS = 9, PQ_CT_TIMESTAMP_MICROS = 10,
       PQ_CT_UINT_8 = 11, PQ_CT_UINT_16 = 12, PQ_CT_UINT_32 = 13, PQ_CT_UINT_64 = 14,
       PQ_CT_INT_8 = 15, PQ_CT_INT_16 = 16, PQ_CT_INT_32 = 17, PQ_CT_INT_64 = 18, PQ_CT_JSON = 19,
       PQ_CT_BSON = 20, PQ_CT_INTERVAL = 21 };
/* LogicalType union member ids (0 = absent, PQ_LT_UNKNOWN_MEMBER = a member we do not know). */
enum { PQ_LT_NONE = 0, PQ_LT_STRING = 1, PQ_LT_MAP = 2, PQ_LT_LIST = 3, PQ_LT_ENUM = 4,
       PQ_LT_DECIMAL = 5, PQ_LT_DATE = 6, PQ_LT_TIME = 7, PQ_LT_TIMESTAMP = 8, PQ_LT_INTEGER = 10,
       PQ_LT_UNKNOWN = 11, PQ_LT_JSON = 12, PQ_LT_BSON = 13, PQ_LT_UUID = 14, PQ_LT_FLOAT16 = 15,
       PQ_LT_UNKNOWN_MEMBER = 1000 };
enum { PQ_UNIT_MILLIS = 1, PQ_UNIT_MICROS = 2, PQ_UNIT_NANOS = 3 };

typedef struct pq_logical_type {
    int kind;                       /* PQ_LT_* */
    int32_t scale, precision;       /* DECIMAL */
    bool adjusted_to_utc;           /* TIME, TIMESTAMP */
    int unit;                       /* TIME, TIMESTAMP: PQ_UNIT_* */
    int bit_width; bool is_signed;  /* INTEGER */
} pq_logical_type;

typedef struct pq_schema_element {
    int type;                       /* physical, -1 if absent (groups) */
    int32_t type_length;            /* FLBA width, -1 if absent */
    int repetition;                 /* -1 if absent */
    char *name;
    int32_t num_children;           /* 0 for leaves */
    int converted_type;             /* PQ_CT_*, PQ_CT_NONE if absent */
    int32_t scale, precision;       /* -1 if absent */
    int32_t field_id;               /* -1 if absent */
    pq_logical_type logical;
} pq_schema_element;

typedef struct pq_bytes { const uint8_t *ptr; uint32_t len; bool present; } pq_bytes;

typedef struct pq_statistics {
    pq_bytes max, min;              /* fields 1, 2 (deprecated, signed order) */
    bool has_null_count; int64_t null_count;
    bool has_distinct_count; int64_t distinct_count;
    pq_bytes max_value, min_value;  /* fields 5, 6 */
    bool has_is_max_exact; bool is_max_value_exact;
    bool has_is_min_exact; bool is_min_value_exact;
    bool has_nan_count; int64_t nan_count;
} pq_statistics;

typedef struct pq_kv { char *key; char *value; /* value NULL if absent */ } pq_kv;

typedef struct pq_page_encoding_stats { int page_type; int encoding; int32_t count; } pq_page_encoding_stats;

typedef struct pq_column_meta {
    int type;
    int *encodings; uint32_t nencodings;
    char **path; uint32_t npath;
    int codec;
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    pq_kv *kv; uint32_t nkv;
    int64_t data_page_offset;
    bool has_index_page_offset; int64_t index_page_offset;
    bool has_dictionary_page_offset; int64_t dictionary_page_offset;
    bool has_statistics; pq_statistics statistics;
    pq_page_encoding_stats *encoding_stats; uint32_t nencoding_stats;
    bool has_bloom_filter_offset; int64_t bloom_filter_offset;
    bool has_bloom_filter_length; int32_t bloom_filter_length;
} pq_column_meta;

typedef struct pq_column_chunk {
    int64_t file_offset;
    bool has_meta_data; pq_column_meta meta;
    bool has_offset_index; int64_t offset_index_offset; int32_t offset_index_length;
    bool has_column_index; int64_t column_index_offset; int32_t column_index_length;
    bool encrypted;                 /* crypto_metadata or encrypted_column_metadata present */
} pq_column_chunk;

typedef struct pq_sorting_column { int32_t column_idx; bool descending; bool nulls_first; } pq_sorting_column;

typedef struct pq_row_group {
    pq_column_chunk *columns; uint32_t ncolumns;
    int64_t total_byte_size;
    int64_t num_rows;
    pq_sorting_column *sorting_columns; uint32_t nsorting_columns;
    bool has_file_offset; int64_t file_offset;
    bool has_total_compressed_size; int64_t total_compressed_size;
    bool has_ordinal; int16_t ordinal;
} pq_row_group;

typedef struct pq_file_meta {
    int32_t version;
    pq_schema_element *schema; uint32_t nschema;
    int64_t num_rows;
    pq_row_group *row_groups; uint32_t nrow_groups;
    pq_kv *kv; uint32_t nkv;
    char *created_by;
    int *column_orders; uint32_t ncolumn_orders;   /* union member id per leaf (1 = TypeDefinedOrder) */
    bool encrypted;                 /* encryption_algorithm or footer_signing_key_metadata present */
} pq_file_meta;

typedef struct pq_data_page_header {
    int32_t num_values; int encoding; int definition_level_encoding; int repetition_level_encoding;
    bool has_statistics; pq_statistics statistics;
} pq_data_page_header;
typedef struct pq_dictionary_page_header { int32_t num_values; int encoding; bool has_is_sorted; bool is_sorted; } pq_dictionary_page_header;
typedef struct pq_data_page_header_v2 {
    int32_t num_values, num_nulls, num_rows; int encoding;
    int32_t definition_levels_byte_length, repetition_levels_byte_length;
    bool is_compressed;             /* default true when absent */
    bool has_statistics; pq_statistics statistics;
} pq_data_page_header_v2;

typedef struct pq_page_header {
    int type;
    int32_t uncompressed_page_size;
    int32_t compressed_page_size;
    bool has_crc; int32_t crc;
    bool has_data; pq_data_page_header data;
    bool has_dictionary; pq_dictionary_page_header dictionary;
    bool has_data_v2; pq_data_page_header_v2 data_v2;
} pq_page_header;

typedef struct pq_page_location { int64_t offset; int32_t compressed_page_size; int64_t first_row_index; } pq_page_location;
typedef struct pq_offset_index { pq_page_location *pages; uint32_t npages; } pq_offset_index;
typedef struct pq_column_index {
    bool *null_pages; uint32_t npages;
    pq_bytes *min_values; pq_bytes *max_values;   /* npages each */
    int boundary_order;             /* 0 UNORDERED, 1 ASCENDING, 2 DESCENDING */
    int64_t *null_counts;           /* NULL if absent, else npages */
} pq_column_index;

/* ---------------------------------------------------------------------------------------------
 * Thrift compact protocol: decoding (bounded, depth-capped, hostile input) into the structures
 * above, allocating from an arena (strings and pq_bytes point into the arena or the input
 * buffer, which must outlive them), and encoding them into a tn_buf. Decoders set *consumed to
 * the bytes read. Errors: TN_ECORRUPT with what and where ("PageHeader: field 2: ...").
 */
int pq_decode_file_meta(pq_file_meta *out, tn_arena *arena, const uint8_t *buf, size_t len);
int pq_decode_page_header(pq_page_header *out, const uint8_t *buf, size_t len, size_t *consumed);
int pq_decode_column_index(pq_column_index *out, tn_arena *arena, const uint8_t *buf, size_t len);
int pq_decode_offset_index(pq_offset_index *out, tn_arena *arena, const uint8_t *buf, size_t len);

int pq_encode_file_meta(tn_buf *out, const pq_file_meta *meta);
int pq_encode_page_header(tn_buf *out, const pq_page_header *header);
int pq_encode_column_index(tn_buf *out, const pq_column_index *index);
int pq_encode_offset_index(tn_buf *out, const pq_offset_index *index);

/* ---------------------------------------------------------------------------------------------
 * Codecs. Decompress exactly `expected` bytes (an error if the data decodes to another size);
 * GZIP may hold several members; a zero-length input for an expected 0 is fine for every codec.
 */
int pq_decompress(int codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t expected);

/* page_memo.c: decompressed pages of a small cached file, named by file offset (the footer
 * cache's master owns one; NULL for files too large to get one). get copies len bytes into dst
 * and says whether the page was kept with exactly that length. */
#define PQ_MEMO_MAX_FILE ((uint64_t)4 << 20)
#define PQ_MEMO_MAX_BYTES ((uint64_t)16 << 20)
#define PQ_MEMO_TOTAL_BYTES ((uint64_t)64 << 20)
typedef struct pq_page_memo pq_page_memo;
pq_page_memo *pq_page_memo_new(uint64_t file_size);
void pq_page_memo_free(pq_page_memo *m);
bool pq_page_memo_get(pq_page_memo *m, uint64_t offset, uint8_t *dst, size_t len);
void pq_page_memo_put(pq_page_memo *m, uint64_t offset, const uint8_t *src, size_t len);
uint64_t pq_page_memo_total_bytes(void);
/* Compresses src into out (appended). level 0 = codec default. */
int pq_compress(int codec, int level, const uint8_t *src, size_t src_len, tn_buf *out);

/* ---------------------------------------------------------------------------------------------
 * Encodings (Encodings.md). Decoders are bounded: they never read past `len` and report an
 * error naming the encoding when the input is short or malformed.
 */

/* RLE / bit-packing hybrid. Decodes `count` values of `bit_width` (0..32) into out; *consumed =
 * the bytes of the runs read (a final bit-packed run may be cut short after the needed values).
 * Empty runs are skipped; an RLE run value wider than bit_width is an error. */
int pq_rle_decode(const uint8_t *buf, size_t len, int bit_width, uint32_t *out, uint32_t count,
                  size_t *consumed);
/* The same hybrid decoded run by run (pq_rle_decode is a loop over it; the scan reads dictionary
 * indices and definition levels with it straight into its output). After pq_rle_next_run the
 * current run holds `left` (> 0) values: `value` repeated (!packed; consume them by lowering
 * `left` or with pq_rle_skip), or bit-packed (packed; pq_rle_unpack or pq_rle_skip). Run values
 * are not checked against bit_width (0..32, the caller's). */
typedef struct pq_rle_stream {
    const uint8_t *buf; size_t len, pos;   /* pos: next run header */
    int bw;
    bool packed;
    uint32_t left;                         /* values left in the current run */
    uint32_t value;                        /* RLE run: the value */
    const uint8_t *bits; size_t nbytes;    /* bit-packed run: its data; bytes readable from there */
    uint64_t index;                        /* bit-packed run: next value */
} pq_rle_stream;
void pq_rle_init(pq_rle_stream *r, const uint8_t *buf, size_t len, int bit_width);
/* Moves to the next non-empty run; TN_ECORRUPT "RLE: ..." when the data ends or is malformed. */
int pq_rle_next_run(pq_rle_stream *r);
void pq_rle_unpack(pq_rle_stream *r, uint32_t *out, uint32_t n);   /* packed run, n <= left */
void pq_rle_skip(pq_rle_stream *r, uint32_t n);                    /* n <= left */
int pq_rle_encode(tn_buf *out, int bit_width, const uint32_t *values, uint32_t count);
int pq_bit_width(uint64_t max_value);          /* bits needed for max_value (0 for 0) */

/* DELTA_BINARY_PACKED into int64 (INT32 callers narrow). *count_out = values in the stream. */
int pq_delta_binary_decode(const uint8_t *buf, size_t len, int64_t *out, uint32_t max_count,
                           uint32_t *count_out, size_t *consumed, bool is_int32);
int pq_delta_binary_encode(tn_buf *out, const int64_t *values, uint32_t count, bool is_int32);

/* BYTE_STREAM_SPLIT of `count` values of `width` bytes. */
int pq_byte_stream_split_decode(const uint8_t *buf, size_t len, size_t width, uint32_t count, uint8_t *out);

/* ---------------------------------------------------------------------------------------------
 * More encodings (PLAIN booleans, the DELTA byte arrays), Bloom filter headers, and the generic
 * Thrift compact protocol.
 */

/* PLAIN BOOLEAN: bit-packed LSB first. Decodes `count` values starting at bit `bit_offset` of
 * buf into out (one byte 0/1 each). Errors (TN_ECORRUPT) when buf holds fewer bits. */
int pq_plain_bool_decode(const uint8_t *buf, size_t len, uint64_t bit_offset, uint32_t count,
                         uint8_t *out);
/* Appends `count` booleans (bytes, nonzero = true) bit-packed LSB first, last byte zero-padded. */
int pq_plain_bool_encode(tn_buf *out, const uint8_t *values, uint32_t count);

/* DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY: exactly `count` values into out; *consumed = the
 * bytes of the length streams and of the values. One implementation each (the _mem forms); the
 * arena forms are shorthands for them.
 *
 * Memory (pq_delta_mem): `lens` is scratch for the length streams, room for `count`
 * (DELTA_LENGTH_BYTE_ARRAY) or 2 * `count` (DELTA_BYTE_ARRAY) int64s; NULL: allocated and freed
 * by the call. DELTA_BYTE_ARRAY materialises its values back to back, in order, in one block of
 * alloc(alloc_ctx, total) (not called when total is 0; NULL = out of memory), which must live as
 * long as out; total > max_bytes is TN_ELIMIT. DELTA_LENGTH_BYTE_ARRAY copies nothing: out[i]
 * points INTO buf, which must outlive out (mem may be NULL, alloc is not used). */
typedef struct pq_delta_mem {
    int64_t *lens;
    void *(*alloc)(void *ctx, size_t size);
    void *alloc_ctx;
    uint64_t max_bytes;
} pq_delta_mem;
int pq_delta_length_byte_array_decode_mem(const uint8_t *buf, size_t len, uint32_t count,
                                          tn_str *out, const pq_delta_mem *mem, size_t *consumed);
int pq_delta_byte_array_decode_mem(const uint8_t *buf, size_t len, uint32_t count, tn_str *out,
                                   const pq_delta_mem *mem, size_t *consumed);
/* Shorthands: heap scratch; DELTA_BYTE_ARRAY values in arena (buf may be freed afterwards),
 * capped at 2 GiB; DELTA_LENGTH_BYTE_ARRAY ignores arena (may be NULL). */
int pq_delta_length_byte_array_decode(const uint8_t *buf, size_t len, uint32_t count, tn_str *out,
                                      tn_arena *arena, size_t *consumed);
int pq_delta_byte_array_decode(const uint8_t *buf, size_t len, uint32_t count, tn_str *out,
                               tn_arena *arena, size_t *consumed);

/* BloomFilterHeader{1 numBytes, 2 algorithm{1 BLOCK}, 3 hash{1 XXHASH}, 4 compression{1
 * UNCOMPRESSED}}. Decode fails with TN_EUNSUPPORTED for another algorithm/hash/compression, and
 * with TN_ECORRUPT when num_bytes <= 0. Encode writes the only supported combination. */
int pq_decode_bloom_header(int32_t *num_bytes, const uint8_t *buf, size_t len, size_t *consumed);
int pq_encode_bloom_header(tn_buf *out, int32_t num_bytes);

/* Generic Thrift compact protocol (thrift.c), used by metadata.c; usable for any other Thrift
 * structure. Reader: every read is bounds-checked, nesting is capped at PQ_THRIFT_MAX_DEPTH,
 * errors are TN_ECORRUPT "thrift: ... at byte N". Type ids are the compact ones below. */
enum { PQ_TT_STOP = 0, PQ_TT_BOOL_TRUE = 1, PQ_TT_BOOL_FALSE = 2, PQ_TT_I8 = 3, PQ_TT_I16 = 4,
       PQ_TT_I32 = 5, PQ_TT_I64 = 6, PQ_TT_DOUBLE = 7, PQ_TT_BINARY = 8, PQ_TT_LIST = 9,
       PQ_TT_SET = 10, PQ_TT_MAP = 11, PQ_TT_STRUCT = 12, PQ_TT_UUID = 13 };
#define PQ_THRIFT_MAX_DEPTH 64

typedef struct pq_thrift_reader {
    const uint8_t *buf;
    size_t len, pos;
    int depth;                      /* open structs */
    int16_t last_id[PQ_THRIFT_MAX_DEPTH + 1];
} pq_thrift_reader;

void pq_thrift_reader_init(pq_thrift_reader *r, const uint8_t *buf, size_t len);
int pq_thrift_struct_begin(pq_thrift_reader *r);           /* pushes a field-id counter */
void pq_thrift_struct_end(pq_thrift_reader *r);            /* after the stop field was read */
/* Next field header: *type = PQ_TT_STOP at the end of the struct. For a bool field *type is
 * PQ_TT_BOOL_TRUE or PQ_TT_BOOL_FALSE and there is no payload. */
int pq_thrift_field(pq_thrift_reader *r, int *type, int16_t *id);
int pq_thrift_read_i8(pq_thrift_reader *r, int8_t *out);
int pq_thrift_read_i16(pq_thrift_reader *r, int16_t *out);
int pq_thrift_read_i32(pq_thrift_reader *r, int32_t *out);
int pq_thrift_read_i64(pq_thrift_reader *r, int64_t *out);
int pq_thrift_read_double(pq_thrift_reader *r, double *out);
/* *ptr points into the reader's buffer. */
int pq_thrift_read_binary(pq_thrift_reader *r, const uint8_t **ptr, uint32_t *len);
/* List/set header; *size is checked against the bytes left (each element takes >= 1 byte). */
int pq_thrift_list_begin(pq_thrift_reader *r, int *elem_type, uint32_t *size);
int pq_thrift_read_bool_elem(pq_thrift_reader *r, bool *out);   /* list element: 1 = true */
/* Skips one value of `type` (a bool field value has no payload: pass PQ_TT_BOOL_* only for
 * list elements, where a bool is one byte; field bools need no skip). */
int pq_thrift_skip(pq_thrift_reader *r, int type);
int pq_thrift_skip_field(pq_thrift_reader *r, int type);  /* skip a field's value (bool: none) */
int pq_thrift_read_uvarint(pq_thrift_reader *r, uint64_t *out);

/* Writer: errors are sticky (first error kept in rc; later calls do nothing), so encoders
 * check w->rc once at the end. */
typedef struct pq_thrift_writer {
    tn_buf *out;
    int rc;
    int depth;
    int16_t last_id[PQ_THRIFT_MAX_DEPTH + 1];
} pq_thrift_writer;

void pq_thrift_writer_init(pq_thrift_writer *w, tn_buf *out);
void pq_thrift_write_struct_begin(pq_thrift_writer *w);
void pq_thrift_write_struct_end(pq_thrift_writer *w);      /* writes the stop byte */
void pq_thrift_write_field(pq_thrift_writer *w, int16_t id, int type);  /* not for bools */
void pq_thrift_write_bool_field(pq_thrift_writer *w, int16_t id, bool value);
void pq_thrift_write_i8(pq_thrift_writer *w, int8_t v);
void pq_thrift_write_i32(pq_thrift_writer *w, int32_t v);  /* also i16 and enums */
void pq_thrift_write_i64(pq_thrift_writer *w, int64_t v);
void pq_thrift_write_double(pq_thrift_writer *w, double v);
void pq_thrift_write_binary(pq_thrift_writer *w, const void *data, size_t len);
void pq_thrift_write_list_begin(pq_thrift_writer *w, int elem_type, uint32_t size);
void pq_thrift_write_bool_elem(pq_thrift_writer *w, bool v);  /* 1 = true, 2 = false */
void pq_thrift_write_uvarint(pq_thrift_writer *w, uint64_t v);

#endif
