/*
 * sql/functions.h: the built-in scalar function registry (one table: name, argument types,
 * result type, implementation) and overload resolution with DuckDB's implicit-cast rules.
 * Implementations live in functions.c (operators), func_string.c, func_math.c,
 * func_datetime.c, func_cast.c and func_hash.c. The evaluator (expr_eval.c) calls them per vector.
 */
#ifndef TN_SQL_FUNCTIONS_H
#define TN_SQL_FUNCTIONS_H

#include "types/types.h"

#define TN_FUNC_MAX_ARGS 64

/*
 * Signature argument codes: a concrete tn_type_id, or one of these pseudo types.
 *   TN_SIG_ANY      any type, passed as is (the function's bind may still ask for a cast)
 *   TN_SIG_DECIMAL  any DECIMAL(p,s); integers convert implicitly to DECIMAL(w,0)
 *   TN_SIG_NONE     end of the argument list
 */
enum {
    TN_SIG_NONE = 0xF0,
    TN_SIG_ANY,
    TN_SIG_DECIMAL,
};

/* Flags of a function definition. */
enum {
    TN_FUNC_VARIADIC = 1,       /* the last signature argument repeats (0..n times) */
    TN_FUNC_SPECIAL_NULLS = 2,  /* implementation handles NULL inputs itself (concat, hash) */
    TN_FUNC_VOLATILE = 4,       /* now(), current_date: value per statement, not per row */
    TN_FUNC_EXACT = 8,          /* only when the arguments match exactly (FLOAT / FLOAT) */
    TN_FUNC_PER_ROW = 16,       /* a value per row even when every argument is constant (nextval) */
};

typedef struct tn_func_def tn_func_def;

/*
 * One call site, as the evaluator passes it to an implementation. bind_data is what the
 * definition's bind callback prepared from constant arguments (a compiled regex or date
 * pattern); it is immutable during evaluation and shared by threads.
 */
typedef struct tn_func_call {
    const tn_func_def *def;
    tn_type ret;
    void *bind_data;
} tn_func_call;

/*
 * A scalar implementation. args[i] holds either `count` rows or exactly 1 row (a constant
 * broadcast to every row; use TN_ARG_IDX). `out` is prepared by the evaluator: type = ret,
 * capacity >= count, out->count = count, and (unless TN_FUNC_SPECIAL_NULLS) its validity is
 * already the AND of the arguments' validity; the function writes every row's value (rows that
 * are NULL get any value, strings an empty tn_str), may clear more validity bits
 * (tn_vector_set_null) and must not raise errors for rows that are NULL. Strings are copied
 * into out's heap. Returns 0 or a negative TN_E* code with the message set.
 */
typedef int (*tn_scalar_fn)(const tn_func_call *call, tn_vector *const *args, uint32_t nargs,
                            uint32_t count, tn_vector *out);

/*
 * Optional bind callback, run once when the call is resolved. May change binding->ret (DECIMAL
 * result precision) and binding->arg_types (ask the caller to cast an argument), and may look
 * at constant arguments to prepare *bind_data, which free_bind_data releases. consts[i] is NULL
 * when argument i is not a constant; otherwise it is the constant as written (before the cast
 * to arg_types[i], so check its type and NULL-ness before using it).
 */
typedef struct tn_func_binding tn_func_binding;
typedef int (*tn_func_bind_fn)(tn_func_binding *binding, const tn_value *const *consts,
                               void **bind_data);

struct tn_func_def {
    const char *name;              /* lower case; operators by their symbol: "+", "=", "||" */
    uint8_t args[6];               /* tn_type_id or TN_SIG_*; TN_SIG_NONE terminates */
    uint8_t ret;                   /* tn_type_id, or TN_SIG_ANY = decided by bind */
    uint8_t flags;
    tn_scalar_fn fn;
    tn_func_bind_fn bind;
    void (*free_bind_data)(void *bind_data);
};

/* The result of resolution: the chosen overload, the types each argument must be cast to
 * before the call (arg_types[i] differs from the argument's type exactly where the caller
 * must insert a CAST), and the result type. */
struct tn_func_binding {
    const tn_func_def *def;
    uint32_t nargs;
    tn_type arg_types[TN_FUNC_MAX_ARGS];
    tn_type ret;
};

/* Per-argument hints for resolution. */
enum {
    TN_FUNC_ARG_STRING_LITERAL = 1,   /* a VARCHAR literal: may convert to any type (cost 20) */
};

/*
 * Resolve name(args) to an overload. Names are case-insensitive; Spark/Flink spellings are
 * aliases (substring, power, ucase, char_length, ...). The overload with the lowest total
 * implicit-cast cost wins (numeric ladder TINYINT<SMALLINT<INTEGER<BIGINT<DECIMAL<FLOAT<DOUBLE,
 * DATE<TIMESTAMP<TIMESTAMPTZ, NULL to anything; with arg_flags a VARCHAR literal to anything);
 * ties go to the first in table order. Then the bind callback runs with consts (may be NULL).
 * Errors: TN_ENOTFOUND "Scalar Function with name x does not exist", TN_EBIND "No function
 * matches the given name and argument types 'f(INTEGER, DATE)'". Does not prepare bind_data:
 * tn_expr_function() does that.
 */
int tn_func_resolve(const char *name, const tn_type *args, uint32_t nargs, tn_func_binding *out);
/* Resolution plus bind with constants (tn_expr_function uses it); *bind_data to free with
 * out->def->free_bind_data. */
int tn_func_resolve_bind(const char *name, const tn_type *args, const uint8_t *arg_flags,
                         uint32_t nargs, const tn_value *const *consts, tn_func_binding *out,
                         void **bind_data);
int tn_func_resolve_ex(const char *name, const tn_type *args, const uint8_t *arg_flags,
                       uint32_t nargs, tn_func_binding *out);
bool tn_func_exists(const char *name);
/* Implicit-cast cost from -> to, or -1 if not implicit (shared with the binder for UNION etc.). */
int tn_func_implicit_cast_cost(tn_type from, tn_type to);
/* The common supertype of two types under implicit casts (CASE, COALESCE, IN lists, UNION):
 * 0 or TN_EBIND "Cannot mix values of type X and Y". */
int tn_func_common_type(tn_type a, tn_type b, tn_type *out);

/* Row index of an argument that may be a broadcast constant (1 row). */
#define TN_ARG_IDX(v, i) ((v)->count == 1 ? 0u : (i))

/* Casts (func_cast.c). Converts the src->count rows of src into out, an initialized vector
 * whose type is the target (reset and filled; out->count = src->count). try_cast turns
 * conversion failures into NULL; otherwise the first failure is an error with DuckDB's text,
 * e.g. "Could not convert string 'abc' to INT32". Strings are copied into out's heap. */
int tn_cast_vector(const tn_vector *src, tn_vector *out, bool try_cast);
/* Cast one value (binder constant folding); strings of the result live in `arena`. */
int tn_cast_value(const tn_value *src, tn_type to, bool try_cast, tn_arena *arena, tn_value *out);
/* ts (microseconds) + iv with DuckDB's calendar rules (func_interval.c); false on overflow. */
bool tn_func_timestamp_add(int64_t ts, tn_interval iv, int64_t *out);
/* Whether CAST(from AS to) is supported at all (binder check). */
bool tn_cast_supported(tn_type from, tn_type to);
/* DuckDB's internal names used in error texts: INT32, INT64, DOUBLE, BOOL, ... */
const char *tn_cast_type_name(tn_type t);

/* Parse helpers shared with the binder for literals (func_cast.c). 0 or TN_EINVAL. */
int tn_parse_date(const char *s, size_t n, int32_t *out);
int tn_parse_timestamp(const char *s, size_t n, int64_t *out, bool *had_zone);

/* Registry tables of the split files (concatenated by functions.c). */
extern const tn_func_def tn_funcs_string[];
extern const tn_func_def tn_funcs_math[];
extern const tn_func_def tn_funcs_datetime[];
extern const tn_func_def tn_funcs_hash[];
extern const tn_func_def tn_funcs_pg[];        /* pg_catalog.c */
/* PostgreSQL's type oid for a tarn type (pg_catalog.c). */
int64_t tn_pg_type_oid(tn_type t);
extern const tn_func_def tn_funcs_interval[];   /* func_interval.c */
extern const tn_func_def tn_funcs_bitmap[];     /* func_bitmap.c */
extern const tn_func_def tn_funcs_similarity[]; /* func_similarity.c */
extern const tn_func_def tn_funcs_regex[];      /* func_regex.c */
extern const tn_func_def tn_funcs_trig[];       /* func_trig.c */
extern const tn_func_def tn_funcs_list[];       /* func_list.c: LIST, STRUCT, MAP */
extern const tn_func_def tn_funcs_list_agg[];       /* func_list_agg.c */
extern const tn_func_def tn_funcs_list_ops[];   /* func_list_ops.c */
extern const tn_func_def tn_funcs_format[];     /* func_format.c: printf, format */
extern const tn_func_def tn_funcs_sequence[];   /* sequence.c: nextval, currval */

/* Decimal storage helpers shared by the function files. */
static inline tn_int128 tn_dec_get(const tn_vector *v, uint32_t i) {
    return v->type.precision > TN_DECIMAL_INT64_MAX_PRECISION ? ((const tn_int128 *)v->data)[i]
                                                              : (tn_int128)((const int64_t *)v->data)[i];
}
static inline void tn_dec_put(tn_vector *v, uint32_t i, tn_int128 x) {
    if (v->type.precision > TN_DECIMAL_INT64_MAX_PRECISION) ((tn_int128 *)v->data)[i] = x;
    else ((int64_t *)v->data)[i] = (int64_t)x;
}
extern const tn_int128 tn_pow10_i128[39];

/* Set out's row to the empty string (for NULL rows of string results). */
static inline void tn_func_str_empty(tn_vector *out, uint32_t row) {
    ((tn_str *)out->data)[row].ptr = "";
    ((tn_str *)out->data)[row].len = 0;
}

/* DuckDB's s[k] on a string: the k-th code point (1-based, negative counts from the end), the
 * empty string when k is 0 or out of range. Borrowed from s. */
tn_str tn_func_str_char_at(tn_str s, int64_t k);

/* Statement clock for now()/current_date (microseconds since epoch, UTC); 0 = wall clock. */
void tn_func_set_statement_time(int64_t micros);
int64_t tn_func_statement_time(void);

#endif
