/*
 * types/types.h: logical types, values, column vectors (with validity bitmaps) and chunks of
 * vectors: the in-memory columnar format that the Parquet reader decodes into and the executor
 * computes on. Also the text spelling of values (DuckDB's, so results diff cleanly).
 * Depends on base/ only.
 */
#ifndef TN_TYPES_H
#define TN_TYPES_H

#include "base/base.h"

/* X(id, name, physical width in bytes) — one row per logical type. */
#define TN_TYPE_TABLE(X)                          \
    X(TN_TYPE_NULL, "NULL", 0)                    \
    X(TN_TYPE_BOOLEAN, "BOOLEAN", 1)              \
    X(TN_TYPE_TINYINT, "TINYINT", 1)              \
    X(TN_TYPE_SMALLINT, "SMALLINT", 2)            \
    X(TN_TYPE_INTEGER, "INTEGER", 4)              \
    X(TN_TYPE_BIGINT, "BIGINT", 8)                \
    X(TN_TYPE_FLOAT, "FLOAT", 4)                  \
    X(TN_TYPE_DOUBLE, "DOUBLE", 8)                \
    X(TN_TYPE_DECIMAL, "DECIMAL", 0)              \
    X(TN_TYPE_VARCHAR, "VARCHAR", 16)             \
    X(TN_TYPE_VARBINARY, "VARBINARY", 16)         \
    X(TN_TYPE_DATE, "DATE", 4)                    \
    X(TN_TYPE_TIMESTAMP, "TIMESTAMP", 8)          \
    X(TN_TYPE_TIMESTAMP_TZ, "TIMESTAMPTZ", 8)     \
    X(TN_TYPE_INTERVAL, "INTERVAL", 16)           \
    X(TN_TYPE_LIST, "LIST", 8)                    \
    X(TN_TYPE_STRUCT, "STRUCT", 0)                \
    X(TN_TYPE_MAP, "MAP", 8)

typedef enum tn_type_id {
#define TN_TYPE_ENUM(id, name, width) id,
    TN_TYPE_TABLE(TN_TYPE_ENUM)
#undef TN_TYPE_ENUM
    TN_TYPE_COUNT
} tn_type_id;

/*
 * A logical type. DECIMAL carries precision (1..38) and scale (0..precision); it is stored as
 * int64_t when precision <= 18, else as tn_int128. TIMESTAMP is microseconds since the epoch
 * without a zone (Parquet isAdjustedToUTC=false, Delta timestamp_ntz); TIMESTAMPTZ is a UTC
 * instant in microseconds (isAdjustedToUTC=true, Delta timestamp), spelled with "+00".
 * DATE is days since 1970-01-01. INTERVAL is DuckDB's (months, days, microseconds), stored as a
 * tn_interval; it is a computed type (literals, date/timestamp arithmetic), never a column of a
 * file or table.
 */
typedef struct tn_type_nested tn_type_nested;
typedef struct tn_type {
    uint8_t id;          /* tn_type_id */
    uint8_t precision;   /* DECIMAL only */
    uint8_t scale;       /* DECIMAL only */
    const tn_type_nested *nested;   /* LIST, STRUCT, MAP only (else NULL): see below */
} tn_type;

typedef __int128 tn_int128;

/* An INTERVAL value: the three parts are independent (1 month is not 30 days), as in DuckDB. */
typedef struct tn_interval {
    int32_t months;
    int32_t days;
    int64_t micros;
} tn_interval;

#define TN_DECIMAL_MAX_PRECISION 38
#define TN_DECIMAL_INT64_MAX_PRECISION 18

static inline tn_type tn_type_make(tn_type_id id) { tn_type t = {(uint8_t)id, 0, 0, NULL}; return t; }
static inline tn_type tn_type_decimal(int precision, int scale) {
    tn_type t = {TN_TYPE_DECIMAL, (uint8_t)precision, (uint8_t)scale, NULL};
    return t;
}

/* ---------------------------------------------------------------------------------------------
 * Nested types (types/nested.c). LIST<T> (also T[] / ARRAY<T>), STRUCT(a T, ...) (ROW) and
 * MAP(K, V) nest to any depth (up to TN_TYPE_MAX_DEPTH levels). A nested tn_type points at an
 * interned, immutable descriptor that lives as long as the process: tn_type stays a small value
 * that is copied freely (no ownership, no free), and two nested types are equal exactly when
 * their id and descriptor pointer are. Descriptors:
 *   LIST:   nchildren 1, children[0] the element type, names NULL.
 *   STRUCT: nchildren = fields (>= 1), children[i] / names[i] the fields in order (names keep
 *           their spelling; lookups by name are case-insensitive, as DuckDB's).
 *   MAP:    nchildren 1, children[0] = STRUCT(key K, value V): a MAP is a LIST of key/value
 *           structs in type and in vector.
 * Spelled as DuckDB does: INTEGER[], STRUCT(a INTEGER, "b c" VARCHAR[]), MAP(VARCHAR, DOUBLE).
 *
 * Vectors of nested types (tn_vector.children, owned by the vector, freed with it):
 *   LIST / MAP: data[row] is a tn_list_entry {offset, length} into children[0], the one element
 *      vector (for MAP: the STRUCT(key, value) entries vector) whose count is the number of
 *      elements stored. Entries of different rows may point anywhere in the child (a producer
 *      normally writes them back to back, offset = running element count; gather/append write
 *      them back to back); readers must go through offset/length, never assume contiguity.
 *      A NULL list: validity bit 0 and length 0. An empty list: valid, length 0. A NULL
 *      element: the child vector's validity. MAP keys are never NULL and unique within a row.
 *   STRUCT: data holds nothing (width 0); children[i] is field i, with the parent's count and
 *      at least its capacity. A NULL struct: the struct's validity bit 0 AND every child NULL at
 *      that row (producers keep this so a field read alone, s.a, is right). A valid struct may
 *      have NULL fields.
 * Validity at each level is independent, so NULLs are expressible at every level:
 *   NULL list / empty list / list of one NULL element / valid struct with a NULL field.
 */
#define TN_TYPE_MAX_DEPTH 100

struct tn_type_nested {
    uint32_t nchildren;
    uint32_t depth;               /* 1 + the deepest child's depth (a scalar child counts 0) */
    const tn_type *children;
    const char *const *names;     /* STRUCT field names; MAP's entry struct: "key", "value" */
    uint64_t hash;
};

/* One row of a LIST or MAP vector. */
typedef struct tn_list_entry {
    uint32_t offset;
    uint32_t length;
} tn_list_entry;

static inline bool tn_type_is_nested(tn_type t) {
    return t.id == TN_TYPE_LIST || t.id == TN_TYPE_STRUCT || t.id == TN_TYPE_MAP;
}
/* Constructors (interned; thread-safe). 0, or TN_ELIMIT past TN_TYPE_MAX_DEPTH, TN_EINVAL for a
 * STRUCT with no fields, an empty or duplicate (case-insensitive) field name, TN_ENOMEM. */
int tn_type_list(tn_type *out, tn_type element);
int tn_type_map(tn_type *out, tn_type key, tn_type value);
int tn_type_struct(tn_type *out, uint32_t nfields, const char *const *names, const tn_type *types);
/* LIST's element type; MAP's key / value type; STRUCT's field i. Caller checks the id. */
static inline tn_type tn_type_element(tn_type t) { return t.nested->children[0]; }
static inline tn_type tn_type_map_key(tn_type t) { return t.nested->children[0].nested->children[0]; }
static inline tn_type tn_type_map_value(tn_type t) { return t.nested->children[0].nested->children[1]; }
/* Index of the STRUCT field called name (case-insensitive), or -1. */
int tn_type_struct_find(tn_type t, const char *name, size_t len);
/* Appends the DuckDB spelling of t ("INTEGER[]", "STRUCT(a INTEGER)") to out. */
int tn_type_append_name(tn_buf *out, tn_type t);
bool tn_type_equal(tn_type a, tn_type b);
size_t tn_type_width(tn_type t);                 /* bytes per value in a vector's data array */
const char *tn_type_id_name(tn_type_id id);      /* "INTEGER" */
/* "DECIMAL(18,3)" etc. into buf; returns buf. */
char *tn_type_format(tn_type t, char *buf, size_t cap);
bool tn_type_is_string(tn_type t);               /* VARCHAR or VARBINARY */
bool tn_type_is_integer(tn_type t);              /* TINYINT..BIGINT */
bool tn_type_is_numeric(tn_type t);              /* integers, FLOAT, DOUBLE, DECIMAL */
bool tn_type_is_decimal128(tn_type t);

/* A string or binary value: bytes not NUL-terminated, owned by the vector's heap (or borrowed). */
typedef struct tn_str {
    const char *ptr;
    uint32_t len;
} tn_str;

typedef struct tn_vector tn_vector;

/* A single value (constants, statistics, predicate operands). Strings are borrowed. */
typedef struct tn_value {
    tn_type type;
    bool is_null;
    union {
        bool b;              /* BOOLEAN */
        int64_t i;           /* integers, DATE, TIMESTAMP(TZ), DECIMAL with precision <= 18 */
        double d;            /* FLOAT (widened), DOUBLE */
        tn_int128 i128;      /* DECIMAL with precision > 18 */
        tn_str s;            /* VARCHAR, VARBINARY */
        tn_interval iv;      /* INTERVAL */
        struct {             /* LIST, STRUCT, MAP: borrowed row `row` of vector `vec` */
            const tn_vector *vec;
            uint32_t row;
        } ref;
    } u;
} tn_value;

/* Read row of v into *out (strings borrowed from v). */
void tn_vector_get_value(const tn_vector *v, uint32_t row, tn_value *out);
/* Store val at row of v (the inverse): a NULL value sets the row NULL; strings are copied into
 * the vector's heap; val must have v's type (FLOAT is read from u.d). */
int tn_vector_set_value(tn_vector *v, uint32_t row, const tn_value *val);
/* Total order used by statistics and sorting: NULLs excluded by the caller; strings compare
 * byte-wise unsigned; NaN sorts above every other float. Types must be equal. Nested values as
 * DuckDB orders them: lists element by element then by length, structs field by field, a NULL
 * element or field above every value and equal to another NULL ([1, NULL] = [1, NULL]). */
int tn_value_compare(const tn_value *a, const tn_value *b);
/* Append the value's text (same spelling as tn_value_format). NULL appends nothing. */
int tn_value_to_text(tn_buf *out, const tn_value *v);

/* ---------------------------------------------------------------------------------------------
 * Vectors. `data` holds `capacity` values of tn_type_width(type) bytes (tn_str for strings;
 * uint8_t 0/1 for BOOLEAN). `validity` is NULL when every row is valid, else bit i of word i/64
 * is 1 when row i is valid. String bytes live in `heap` (an arena owned by the vector, reset by
 * tn_vector_reset).
 */
struct tn_vector {
    tn_type type;
    uint32_t count;
    uint32_t capacity;
    void *data;
    uint64_t *validity;
    tn_arena *heap;
    tn_vector *children;   /* nested types only: type.nested->nchildren vectors (see above) */
};

#define TN_VECTOR_SIZE 2048

int tn_vector_init(tn_vector *v, tn_type type, uint32_t capacity);
void tn_vector_free(tn_vector *v);
void tn_vector_reset(tn_vector *v);                /* count = 0, all valid, heap emptied */
int tn_vector_reserve(tn_vector *v, uint32_t capacity); /* grow, keeps contents */
/* The same, but the data of the new rows [old capacity, capacity) is left uninitialised (the
 * validity bits say valid, as after tn_vector_reserve): for vectors written only by appends
 * (tn_vector_append_rows, tn_vector_fill_null), which write every row they add. */
int tn_vector_reserve_uninit(tn_vector *v, uint32_t capacity);
int tn_vector_ensure_validity(tn_vector *v);       /* allocate validity (all valid) if NULL */
static inline bool tn_vector_is_valid(const tn_vector *v, uint32_t row) {
    return v->validity == NULL || ((v->validity[row >> 6] >> (row & 63)) & 1);
}
/* Row of an integer-stored vector (BOOLEAN, TINYINT..BIGINT, DATE, TIMESTAMP(TZ), DECIMAL up to
 * 18 digits) as int64; NULLs are not checked. */
static inline int64_t tn_vector_int_at(const tn_vector *v, uint32_t i) {
    switch (v->type.id) {
    case TN_TYPE_BOOLEAN: return ((const uint8_t *)v->data)[i] != 0;
    case TN_TYPE_TINYINT: return ((const int8_t *)v->data)[i];
    case TN_TYPE_SMALLINT: return ((const int16_t *)v->data)[i];
    case TN_TYPE_INTEGER:
    case TN_TYPE_DATE: return ((const int32_t *)v->data)[i];
    default: return ((const int64_t *)v->data)[i];
    }
}
int tn_vector_set_null(tn_vector *v, uint32_t row); /* allocates validity on first null */
static inline void tn_vector_set_valid_bit(tn_vector *v, uint32_t row, bool valid) {
    if (valid) v->validity[row >> 6] |= (uint64_t)1 << (row & 63);
    else v->validity[row >> 6] &= ~((uint64_t)1 << (row & 63));
}
/* Copy bytes into the vector's heap and store them at row. */
int tn_vector_set_str(tn_vector *v, uint32_t row, const char *ptr, size_t len);
/* Append one row copied from src[row] (types must be equal). */
int tn_vector_append_from(tn_vector *dst, const tn_vector *src, uint32_t row);
/* Bulk, a column at a time. dst (initialized, type of src) receives src's rows sel[0..n) (sel
 * NULL: 0..n); string bytes are borrowed from src (valid while src is). */
int tn_vector_gather(tn_vector *dst, const tn_vector *src, const uint32_t *sel, uint32_t n);
/* Append rows of src to dst at dst->count, copying strings into dst's heap (capacity grows
 * geometrically). Same physical type (VARCHAR and VARBINARY mix). */
int tn_vector_append_rows(tn_vector *dst, const tn_vector *src, const uint32_t *sel, uint32_t n);
/* Copy row srow of src into row drow of dst (same type; drow < dst->capacity); nested values
 * are copied deeply (list elements appended to dst's child). dst->count is not changed. */
int tn_vector_copy_row(tn_vector *dst, uint32_t drow, const tn_vector *src, uint32_t srow);
/* A copy of row `row` of src as a 1-row vector whose memory (data, validity, children, string
 * bytes) all lives in `arena`: valid until the arena is reset; never tn_vector_free it. */
int tn_vector_row_to_arena(tn_arena *arena, const tn_vector *src, uint32_t row, const tn_vector **out);
/* Hands rows [0, n) of `part` to `full`: part's type is full's STRUCT type keeping only some of
 * its fields (by name, at any depth), or full's own type. Buffers are swapped level by level,
 * not copied: after the call part holds full's former buffers (a valid vector of part's type,
 * to be refilled) and full's fields that part lacks are NULL for the n rows. */
int tn_vector_swap_widen(tn_vector *full, tn_vector *part, uint32_t n);
/* Set rows [from, from+n) of v to NULL (validity allocated). */
int tn_vector_fill_null(tn_vector *v, uint32_t from, uint32_t n);
uint32_t tn_vector_null_count(const tn_vector *v);

/* ---------------------------------------------------------------------------------------------
 * Chunks: a row batch of equal-length vectors (one per column).
 */
typedef struct tn_chunk {
    uint32_t ncols;
    uint32_t count;
    tn_vector *cols;
} tn_chunk;

int tn_chunk_init(tn_chunk *c, uint32_t ncols, const tn_type *types, uint32_t capacity);
void tn_chunk_free(tn_chunk *c);
void tn_chunk_reset(tn_chunk *c);

/* ---------------------------------------------------------------------------------------------
 * Text spelling of values, as DuckDB's CAST(x AS VARCHAR) spells them: booleans true/false,
 * DATE YYYY-MM-DD (years < 1 as "(BC)"), TIMESTAMP YYYY-MM-DD HH:MM:SS[.ffffff] with trailing
 * zeros of the fraction dropped, TIMESTAMPTZ the same plus "+00", DOUBLE/FLOAT in the shortest
 * form that round-trips (Python repr style: 1.0, 0.1, 1e+20, 1.5e-07, nan, inf, -inf),
 * DECIMAL with exactly `scale` fraction digits, VARBINARY with printable ASCII as is and other
 * bytes (and backslash) as \xNN. Appends to out; a NULL appends nothing and returns 1.
 * Nested: [1, 2, NULL], {'a': 1, 'b': x}, {k=1, j=NULL}; an element's text is quoted as
 * 'it\'s' when it is empty, is null (any case), has leading/trailing white space, or holds one
 * of [ ] { } ( ) , ' " : = (then ' and \ are backslash-escaped); struct field names are
 * always quoted.
 */
int tn_value_format(tn_buf *out, const tn_vector *v, uint32_t row);
int tn_format_double(char *buf, size_t cap, double d);
int tn_format_float(char *buf, size_t cap, float f);
int tn_format_date(char *buf, size_t cap, int32_t days);
int tn_format_timestamp(char *buf, size_t cap, int64_t micros);
int tn_format_decimal(char *buf, size_t cap, tn_int128 value, int scale);
/* value * 10^-scale correctly rounded to the nearest double / float (value.c): one exact IEEE
 * division when both operands are exact, else the decimal text through strtod/strtof (glibc
 * rounds correctly), never a chain of divisions that rounds twice. */
double tn_decimal_to_double(tn_int128 value, int scale);
float tn_decimal_to_float(tn_int128 value, int scale);
/* DuckDB's interval text: "1 year 2 months", "-1 day 03:00:00", "36:00:00", "00:00:00.002",
 * "00:00:00" for the zero interval. */
int tn_format_interval(char *buf, size_t cap, tn_interval iv);
/* Parse DuckDB's interval text ("2 hours", "1 day 02:03:04.5", "1.5 years", "3 days ago",
 * "-1 year -2 months", "01:30:00"): 0 or TN_EINVAL (message set). */
int tn_parse_interval(const char *s, size_t n, tn_interval *out);
/* Added: the tn_format_* functions write a NUL-terminated string and return its length like
 * snprintf (truncated when cap is too small; 64 bytes always suffice). tn_format_decimal
 * always writes a "0" before the point; tn_format_decimal_p follows DuckDB exactly and omits
 * it when precision == scale (DECIMAL(3,3) 0.5 is ".500"), as tn_value_format does. */
#define TN_FORMAT_BUF_SIZE 64
int tn_format_decimal_p(char *buf, size_t cap, tn_int128 value, int precision, int scale);

/* DATE and TIMESTAMP limits, as DuckDB's: +-(2^31 - 1) days and +-(2^63 - 1) microseconds are
 * 'infinity' / '-infinity' (they sort after / before every finite value); finite dates lie in
 * [-(2^31 - 2), 2^31 - 2] days (5877642-06-25 (BC) .. 5881580-07-10), finite timestamps in
 * [TN_TS_MIN_US, TN_TS_MAX_US] (290309-12-22 (BC) 00:00:00 .. 294247-01-10 04:00:54.775806).
 * A result outside is an error (NULL for TRY_), never a wrapped value. */
#define TN_DATE_INFINITY INT32_MAX
#define TN_DATE_MAX_DAYS (INT32_MAX - 1)
#define TN_TS_INFINITY INT64_MAX
#define TN_TS_MIN_US (-9223372022400000000LL)
#define TN_TS_MAX_US (INT64_MAX - 1)
#define TN_TS_MIN_DAYS (-106751991LL)   /* the first day whose midnight is a finite timestamp */
#define TN_TS_MAX_DAYS 106751991LL      /* 294247-01-10: the last day with a finite midnight */
static inline bool tn_date_is_finite(int32_t d) { return d != TN_DATE_INFINITY && d != -TN_DATE_INFINITY; }
static inline bool tn_ts_is_finite(int64_t t) { return t != TN_TS_INFINITY && t != -TN_TS_INFINITY; }
static inline bool tn_ts_in_range(tn_int128 t) { return t >= TN_TS_MIN_US && t <= TN_TS_MAX_US; }
/* 'infinity', '-infinity' (any case; DuckDB also takes 'inf' / '-inf' at the end of the text) or
 * 'epoch' after leading spaces, then only spaces: 1 for +infinity, -1 for -infinity, 2 for epoch,
 * 0 when the text is none of these (parse.c). */
int tn_text_datetime_special(const char *s, size_t len);

/* Civil-date helpers (proleptic Gregorian). */
int32_t tn_days_from_civil(int64_t year, unsigned month, unsigned day);
/* parse.c: 'YYYY-MM-DD' (4-6 year digits, optional sign) -> days since epoch. */
int tn_text_to_date(const char *s, size_t len, int32_t *out);
/* 'YYYY-MM-DD' optionally followed by ' ' or 'T' and 'HH:MM[:SS[.f{1,9}]]', optionally 'Z',
 * ' UTC' or '+hh[:mm]' / '-hh[:mm]' -> micros since epoch (UTC when a zone is given). */
int tn_text_to_timestamp_us(const char *s, size_t len, int64_t *out, bool *has_zone);
/* A decimal number text (optional exponent) -> unscaled integer at `scale`, exactly (TN_EINVAL
 * when digits would be lost or it does not fit 38 digits). */
int tn_text_to_decimal(const char *s, size_t len, int scale, tn_int128 *out);
void tn_civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day);

/* JVM hashes (jvm_hash.c): Spark's Murmur3_x86_32 of row r of v chained from seed (a NULL row is
 * the caller's to skip; types Spark cannot hash return seed), and Scala's MurmurHash3.bytesHash. */
uint32_t tn_spark_hash_value(const tn_vector *v, uint32_t r, uint32_t seed);
int32_t tn_scala_bytes_hash(const uint8_t *p, uint32_t n);
/* Java BigInteger.toByteArray of v (big-endian, minimal two's complement) into out[16]; length. */
uint32_t tn_int128_java_bytes(tn_int128 v, uint8_t *out);

#endif
