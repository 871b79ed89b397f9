/*
 * sql/functions.c: the registry of built-in scalar functions (this file's operator table plus
 * the tables of func_string.c, func_math.c, func_datetime.c, func_hash.c), overload resolution
 * with implicit-cast costs, and the operators: arithmetic with DuckDB's overflow errors and
 * type promotion (integers, FLOAT/DOUBLE, DECIMAL with precision/scale), comparisons, DATE +/-.
 */
#include "sql/functions.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const tn_int128 tn_pow10_i128[39] = {
#define P1 ((tn_int128)1)
    P1, P1 * 10, P1 * 100, P1 * 1000, P1 * 10000, P1 * 100000, P1 * 1000000, P1 * 10000000,
    P1 * 100000000, P1 * 1000000000, P1 * 10000000000LL, P1 * 100000000000LL, P1 * 1000000000000LL,
    P1 * 10000000000000LL, P1 * 100000000000000LL, P1 * 1000000000000000LL, P1 * 10000000000000000LL,
    P1 * 100000000000000000LL, P1 * 1000000000000000000LL,
    P1 * 1000000000000000000LL * 10, P1 * 1000000000000000000LL * 100, P1 * 1000000000000000000LL * 1000,
    P1 * 1000000000000000000LL * 10000, P1 * 1000000000000000000LL * 100000,
    P1 * 1000000000000000000LL * 1000000, P1 * 1000000000000000000LL * 10000000,
    P1 * 1000000000000000000LL * 100000000, P1 * 1000000000000000000LL * 1000000000,
    P1 * 1000000000000000000LL * 10000000000LL, P1 * 1000000000000000000LL * 100000000000LL,
    P1 * 1000000000000000000LL * 1000000000000LL, P1 * 1000000000000000000LL * 10000000000000LL,
    P1 * 1000000000000000000LL * 100000000000000LL, P1 * 1000000000000000000LL * 1000000000000000LL,
    P1 * 1000000000000000000LL * 10000000000000000LL, P1 * 1000000000000000000LL * 100000000000000000LL,
    P1 * 1000000000000000000LL * 1000000000000000000LL,
    P1 * 1000000000000000000LL * 1000000000000000000LL * 10,
    P1 * 1000000000000000000LL * 1000000000000000000LL * 100,
#undef P1
};

/* ---------------------------------------------------------------------------------------------
 * Statement clock.
 */
static _Thread_local int64_t g_stmt_time;
void tn_func_set_statement_time(int64_t micros) { g_stmt_time = micros; }
int64_t tn_func_statement_time(void) { return g_stmt_time ? g_stmt_time : tn_time_now_us(); }

/* ---------------------------------------------------------------------------------------------
 * Typed loops. A, B: element types of the two arguments; x, y: the current values; i the row.
 * Constant arguments (1 row) are read once, outside the loop.
 */
#define BIN_LOOP(A, B, BODY)                                                              \
    do {                                                                                  \
        const A *pa_ = (const A *)args[0]->data;                                          \
        const B *pb_ = (const B *)args[1]->data;                                          \
        if (args[0]->count == 1 && n != 1) {                                              \
            const A x = pa_[0];                                                           \
            for (uint32_t i = 0; i < n; i++) { const B y = pb_[i]; BODY; }                \
        } else if (args[1]->count == 1 && n != 1) {                                       \
            const B y = pb_[0];                                                           \
            for (uint32_t i = 0; i < n; i++) { const A x = pa_[i]; BODY; }                \
        } else {                                                                          \
            for (uint32_t i = 0; i < n; i++) { const A x = pa_[i]; const B y = pb_[i]; BODY; } \
        }                                                                                 \
    } while (0)

#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out

static const char *int_name(size_t width) {
    return width == 1 ? "INT8" : width == 2 ? "INT16" : width == 4 ? "INT32" : "INT64";
}

/* Find the first valid row where the operation overflowed and report it. */
#define OVERFLOW_REPORT(T, OPFN, WORD, SYM)                                               \
    do {                                                                                  \
        const T *pa_ = (const T *)args[0]->data, *pb_ = (const T *)args[1]->data;         \
        for (uint32_t i = 0; i < n; i++) {                                                \
            T x = pa_[TN_ARG_IDX(args[0], i)], y = pb_[TN_ARG_IDX(args[1], i)], r_;       \
            if (OPFN(x, y, &r_) && tn_vector_is_valid(out, i))                            \
                return tn_error_set(TN_ELIMIT, "Overflow in " WORD " of %s (%lld " SYM " %lld)!", \
                                    int_name(sizeof(T)), (long long)x, (long long)y);      \
        }                                                                                 \
    } while (0)

#define INT_ARITH(NAME, T, OPFN, WORD, SYM)                                               \
    static int NAME(FN_ARGS) {                                                            \
        T *r = (T *)out->data;                                                            \
        int ovf = 0;                                                                      \
        BIN_LOOP(T, T, { T t_; ovf |= OPFN(x, y, &t_); r[i] = t_; });                     \
        if (ovf) OVERFLOW_REPORT(T, OPFN, WORD, SYM);                                     \
        return 0;                                                                         \
    }

#define INT_ARITH_ALL(T, SUF)                                                             \
    INT_ARITH(add_##SUF, T, __builtin_add_overflow, "addition", "+")                      \
    INT_ARITH(sub_##SUF, T, __builtin_sub_overflow, "subtraction", "-")                   \
    INT_ARITH(mul_##SUF, T, __builtin_mul_overflow, "multiplication", "*")                \
    static int idiv_##SUF(FN_ARGS) {                                                      \
        T *r = (T *)out->data;                                                            \
        int zero = 0, ovf = 0;                                                            \
        BIN_LOOP(T, T, {                                                                  \
            T yy = y == 0 ? 1 : y;                                                        \
            zero |= y == 0;                                                               \
            ovf |= (yy == -1) & (x == (T)((uint64_t)1 << (sizeof(T) * 8 - 1)));                  \
            r[i] = yy == -1 ? (T)(0 - (uint64_t)x) : (T)(x / yy);                         \
        });                                                                               \
        return int_div_fixup_##SUF(args, n, out, zero, ovf, false);                       \
    }                                                                                     \
    static int imod_##SUF(FN_ARGS) {                                                      \
        T *r = (T *)out->data;                                                            \
        int zero = 0, ovf = 0;                                                            \
        BIN_LOOP(T, T, {                                                                  \
            T yy = y == 0 ? 1 : y;                                                        \
            zero |= y == 0;                                                               \
            ovf |= (yy == -1) & (x == (T)((uint64_t)1 << (sizeof(T) * 8 - 1)));                  \
            r[i] = yy == -1 ? 0 : (T)(x % yy);                                            \
        });                                                                               \
        return int_div_fixup_##SUF(args, n, out, zero, ovf, true);                        \
    }                                                                                     \
    static int neg_##SUF(FN_ARGS) {                                                       \
        const T *a = (const T *)args[0]->data;                                            \
        T *r = (T *)out->data;                                                            \
        for (uint32_t i = 0; i < n; i++) {                                                \
            if (a[i] == (T)((uint64_t)1 << (sizeof(T) * 8 - 1)) && tn_vector_is_valid(out, i))   \
                return tn_error_set(TN_ELIMIT, "Overflow in negation of numeric value!"); \
            r[i] = (T)(0 - (uint64_t)a[i]);                                               \
        }                                                                                 \
        return 0;                                                                         \
    }

/* Division by zero gives NULL; MIN / -1 is an overflow error (valid rows only). */
#define INT_DIV_FIXUP(T, SUF)                                                             \
    static int int_div_fixup_##SUF(tn_vector *const *args, uint32_t n, tn_vector *out, int zero, \
                                   int ovf, bool is_mod) {                                \
        const T *pa = (const T *)args[0]->data, *pb = (const T *)args[1]->data;           \
        (void)is_mod;                                                                     \
        if (ovf) {                                                                        \
            for (uint32_t i = 0; i < n; i++) {                                            \
                T x = pa[TN_ARG_IDX(args[0], i)], y = pb[TN_ARG_IDX(args[1], i)];         \
                if (y == -1 && x == (T)((uint64_t)1 << (sizeof(T) * 8 - 1)) && tn_vector_is_valid(out, i)) \
                    return tn_error_set(TN_ELIMIT, "Overflow in division of %lld / -1", (long long)x); \
            }                                                                             \
        }                                                                                 \
        if (zero) {                                                                       \
            for (uint32_t i = 0; i < n; i++) {                                            \
                if (pb[TN_ARG_IDX(args[1], i)] == 0) {                                    \
                    int rc = tn_vector_set_null(out, i);                                  \
                    if (rc) return rc;                                                    \
                }                                                                         \
            }                                                                             \
        }                                                                                 \
        return 0;                                                                         \
    }

INT_DIV_FIXUP(int8_t, i8)
INT_DIV_FIXUP(int16_t, i16)
INT_DIV_FIXUP(int32_t, i32)
INT_DIV_FIXUP(int64_t, i64)
INT_ARITH_ALL(int8_t, i8)
INT_ARITH_ALL(int16_t, i16)
INT_ARITH_ALL(int32_t, i32)
INT_ARITH_ALL(int64_t, i64)

#define FLT_ARITH_ALL(T, SUF, FMOD)                                                       \
    static int add_##SUF(FN_ARGS) { T *r = out->data; BIN_LOOP(T, T, r[i] = x + y); return 0; } \
    static int sub_##SUF(FN_ARGS) { T *r = out->data; BIN_LOOP(T, T, r[i] = x - y); return 0; } \
    static int mul_##SUF(FN_ARGS) { T *r = out->data; BIN_LOOP(T, T, r[i] = x * y); return 0; } \
    static int div_##SUF(FN_ARGS) { T *r = out->data; BIN_LOOP(T, T, r[i] = x / y); return 0; } \
    static int mod_##SUF(FN_ARGS) { T *r = out->data; BIN_LOOP(T, T, r[i] = FMOD(x, y)); return 0; } \
    static int neg_##SUF(FN_ARGS) {                                                       \
        const T *a = args[0]->data;                                                       \
        T *r = out->data;                                                                 \
        for (uint32_t i = 0; i < n; i++) r[i] = -a[i];                                    \
        return 0;                                                                         \
    }
FLT_ARITH_ALL(float, f32, fmodf)
FLT_ARITH_ALL(double, f64, fmod)

/* Identity (unary plus). */
static int identity_fn(FN_ARGS) {
    size_t w = tn_type_width(out->type);
    if (w) memcpy(out->data, args[0]->data, w * n);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * DECIMAL arithmetic: values are scaled integers; add/sub/mod see both arguments already cast
 * to the result type (bind); mul multiplies the raw values (scale s1 + s2).
 */
static char *dec_text(char *buf, size_t cap, tn_type t) { return tn_type_format(t, buf, cap); }

static int dec_overflow(const char *word, tn_type t) {
    char b[64];
    return tn_error_set(TN_ELIMIT, "Overflow in %s of %s!", word, dec_text(b, sizeof b, t));
}

#define DEC_BIN(NAME, WORD, EXPR)                                                         \
    static int NAME(FN_ARGS) {                                                            \
        const tn_int128 lim = tn_pow10_i128[out->type.precision];                         \
        DEC_FAST(WORD, EXPR)                                                              \
        for (uint32_t i = 0; i < n; i++) {                                                \
            tn_int128 x = tn_dec_get(args[0], TN_ARG_IDX(args[0], i));                    \
            tn_int128 y = tn_dec_get(args[1], TN_ARG_IDX(args[1], i)), r = 0;             \
            bool bad = EXPR;                                                              \
            if ((bad || r >= lim || r <= -lim) && tn_vector_is_valid(out, i))             \
                return dec_overflow(WORD, out->type);                                     \
            tn_dec_put(out, i, r);                                                        \
        }                                                                                 \
        return 0;                                                                         \
    }
/* Both arguments stored as int64 (the common case: DECIMAL columns of up to 18 digits): one
 * loop per result storage without the per-row storage test. EXPR on int64 operands and an
 * int64 r reports int64 overflow; into an int128 result, int64 operands cannot overflow. */
#define DEC_FAST(WORD, EXPR)                                                              \
    if (!tn_type_is_decimal128(args[0]->type) && !tn_type_is_decimal128(args[1]->type)) {  \
        const int64_t *xa = args[0]->data, *ya = args[1]->data;                           \
        const uint32_t xs = args[0]->count != 1, ys = args[1]->count != 1;                \
        if (!tn_type_is_decimal128(out->type)) {                                          \
            const int64_t lim64 = (int64_t)lim;                                           \
            int64_t *o = out->data;                                                       \
            for (uint32_t i = 0; i < n; i++) {                                            \
                int64_t x = xa[i * xs], y = ya[i * ys], r = 0;                            \
                bool bad = EXPR;                                                          \
                if ((bad || r >= lim64 || r <= -lim64) && tn_vector_is_valid(out, i))     \
                    return dec_overflow(WORD, out->type);                                 \
                o[i] = r;                                                                 \
            }                                                                             \
        } else {                                                                          \
            tn_int128 *o = out->data;                                                     \
            for (uint32_t i = 0; i < n; i++) {                                            \
                tn_int128 x = xa[i * xs], y = ya[i * ys], r = 0;                          \
                (void)(EXPR);                                                             \
                if ((r >= lim || r <= -lim) && tn_vector_is_valid(out, i))                \
                    return dec_overflow(WORD, out->type);                                 \
                o[i] = r;                                                                 \
            }                                                                             \
        }                                                                                 \
        return 0;                                                                         \
    }
DEC_BIN(add_dec, "addition", __builtin_add_overflow(x, y, &r))
DEC_BIN(sub_dec, "subtraction", __builtin_sub_overflow(x, y, &r))
DEC_BIN(mul_dec_any, "multiplication", __builtin_mul_overflow(x, y, &r))
#undef DEC_FAST

/* DECIMAL multiplication into a 128-bit result where an argument is stored in 128 bits (nested
 * products such as TPC-H Q1's price * (1 - discount) * (1 + tax)): operands whose values fit in
 * 64 bits multiply in one 64x64->128 step, which cannot overflow; others take the checked
 * 128-bit multiplication. */
static int mul_dec(FN_ARGS) {
    bool x128 = tn_type_is_decimal128(args[0]->type), y128 = tn_type_is_decimal128(args[1]->type);
    if (!tn_type_is_decimal128(out->type) || (!x128 && !y128)) return mul_dec_any(call, args, nargs, n, out);
    const tn_int128 lim = tn_pow10_i128[out->type.precision];
    const uint32_t xs = args[0]->count != 1, ys = args[1]->count != 1;
    tn_int128 *o = out->data;
    for (uint32_t i = 0; i < n; i++) {
        tn_int128 x = x128 ? ((const tn_int128 *)args[0]->data)[i * xs] : ((const int64_t *)args[0]->data)[i * xs];
        tn_int128 y = y128 ? ((const tn_int128 *)args[1]->data)[i * ys] : ((const int64_t *)args[1]->data)[i * ys];
        tn_int128 r;
        bool bad;
        if (x == (int64_t)x && y == (int64_t)y) {
            r = (tn_int128)(int64_t)x * (int64_t)y;
            bad = false;
        } else {
            bad = __builtin_mul_overflow(x, y, &r);
        }
        if ((bad || r >= lim || r <= -lim) && tn_vector_is_valid(out, i))
            return dec_overflow("multiplication", out->type);
        o[i] = r;
    }
    return 0;
}
#define DEC_FAST(WORD, EXPR)
DEC_BIN(mod_dec, "modulo", (y == 0 ? (r = 0, false) : (r = x % y, false)))

static int mod_dec_fn(FN_ARGS) {
    int rc = mod_dec(call, args, nargs, n, out);
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++)
        if (tn_dec_get(args[1], TN_ARG_IDX(args[1], i)) == 0 && (rc = tn_vector_set_null(out, i))) return rc;
    return 0;
}

static int neg_dec(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) tn_dec_put(out, i, -tn_dec_get(args[0], i));
    return 0;
}

static int dec_int_digits(tn_type t) { return t.precision - t.scale; }

/* + and -: both cast to DECIMAL(max int digits + max scale + 1, max scale). */
static int bind_dec_add(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type x = b->arg_types[0], y = b->arg_types[1];
    int s = x.scale > y.scale ? x.scale : y.scale;
    int d = dec_int_digits(x) > dec_int_digits(y) ? dec_int_digits(x) : dec_int_digits(y);
    int p = d + s + 1;
    if (p > 38) p = 38;
    b->ret = tn_type_decimal(p, s);
    b->arg_types[0] = b->arg_types[1] = b->ret;
    return 0;
}

/* % and comparisons: both cast to the common DECIMAL (no extra digit). */
static int bind_dec_common(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type x = b->arg_types[0], y = b->arg_types[1];
    int s = x.scale > y.scale ? x.scale : y.scale;
    int d = dec_int_digits(x) > dec_int_digits(y) ? dec_int_digits(x) : dec_int_digits(y);
    int p = d + s;
    if (p > 38) p = 38;
    b->arg_types[0] = b->arg_types[1] = tn_type_decimal(p, s);
    if (b->def->ret == TN_SIG_DECIMAL || b->def->ret == TN_SIG_ANY) b->ret = tn_type_decimal(p, s);
    return 0;
}

static int bind_dec_mul(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type x = b->arg_types[0], y = b->arg_types[1];
    int s = x.scale + y.scale, p = x.precision + y.precision;
    if (s > 38) return tn_error_set(TN_EBIND, "DECIMAL multiplication would need scale %d > 38", s);
    if (p > 38) p = 38;
    b->ret = tn_type_decimal(p, s);
    return 0;
}

static int bind_dec_same(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    b->ret = b->arg_types[0];
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Comparisons: one function per (type, operator), all through a three-way compare.
 */
static inline int cmp_int(int64_t a, int64_t b) { return (a > b) - (a < b); }
static inline int cmp_dbl(double a, double b) {
    /* DuckDB: NaN equals NaN and sorts above everything. */
    if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}
static inline int cmp_str(tn_str a, tn_str b) {
    uint32_t m = a.len < b.len ? a.len : b.len;
    int c = m ? memcmp(a.ptr, b.ptr, m) : 0;
    if (c) return c < 0 ? -1 : 1;
    return (a.len > b.len) - (a.len < b.len);
}

#define CMP_OPS(X) X(eq, ==) X(ne, !=) X(lt, <) X(le, <=) X(gt, >) X(ge, >=)

#define CMP_FN_ONE(SUF, T, CMP3, OP, SYM)                                                 \
    static int cmp_##OP##_##SUF(FN_ARGS) {                                                \
        uint8_t *r = out->data;                                                           \
        BIN_LOOP(T, T, r[i] = (uint8_t)(CMP3(x, y) SYM 0));                               \
        return 0;                                                                         \
    }
#define CMP_FNS(SUF, T, CMP3)                                                             \
    CMP_FN_ONE(SUF, T, CMP3, eq, ==) CMP_FN_ONE(SUF, T, CMP3, ne, !=)                     \
    CMP_FN_ONE(SUF, T, CMP3, lt, <) CMP_FN_ONE(SUF, T, CMP3, le, <=)                      \
    CMP_FN_ONE(SUF, T, CMP3, gt, >) CMP_FN_ONE(SUF, T, CMP3, ge, >=)

CMP_FNS(b, uint8_t, cmp_int)
CMP_FNS(i8, int8_t, cmp_int)
CMP_FNS(i16, int16_t, cmp_int)
CMP_FNS(i32, int32_t, cmp_int)
CMP_FNS(i64, int64_t, cmp_int)
CMP_FNS(f32, float, cmp_dbl)
CMP_FNS(f64, double, cmp_dbl)
CMP_FNS(str, tn_str, cmp_str)

static inline int cmp_i128(tn_int128 a, tn_int128 b) { return (a > b) - (a < b); }
#define CMP_DEC_ONE(OP, SYM)                                                              \
    static int cmp_##OP##_dec(FN_ARGS) {                                                  \
        uint8_t *r = out->data;                                                           \
        if (args[0]->type.precision <= 18) BIN_LOOP(int64_t, int64_t, r[i] = (uint8_t)(cmp_int(x, y) SYM 0)); \
        else BIN_LOOP(tn_int128, tn_int128, r[i] = (uint8_t)(cmp_i128(x, y) SYM 0));      \
        return 0;                                                                         \
    }
CMP_OPS(CMP_DEC_ONE)

/* ---------------------------------------------------------------------------------------------
 * DATE arithmetic.
 */
/* DuckDB's DATE range: days in [-(2^31 - 2), 2^31 - 2] (5877642-06-25 (BC) .. 5881580-07-10);
 * +-(2^31 - 1) are the infinities. A result outside is an error, never a wrapped date. */
#define DATE_DAYS_MAX 2147483646LL
static int date_arith(FN_ARGS, int sign) {
    const int32_t *pa = args[0]->data, *pb = args[1]->data;
    int32_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        int64_t x = pa[TN_ARG_IDX(args[0], i)], y = pb[TN_ARG_IDX(args[1], i)], v = sign > 0 ? x + y : x - y;
        /* an infinite date stays infinite (DuckDB); int + date has the date second */
        int32_t d = args[0]->type.id == TN_TYPE_DATE ? (int32_t)x : (int32_t)y;
        if (!tn_date_is_finite(d)) v = d;
        else if ((v > DATE_DAYS_MAX || v < -DATE_DAYS_MAX) && tn_vector_is_valid(out, i))
            return tn_error_set(TN_ELIMIT, "Date out of range");
        r[i] = (int32_t)v;
    }
    return 0;
}
static int date_add_int(FN_ARGS) { return date_arith(call, args, nargs, n, out, 1); }
static int int_add_date(FN_ARGS) { return date_arith(call, args, nargs, n, out, 1); }
static int date_sub_int(FN_ARGS) { return date_arith(call, args, nargs, n, out, -1); }
static int date_sub_date(FN_ARGS) {
    int64_t *r = out->data;
    BIN_LOOP(int32_t, int32_t, r[i] = (int64_t)x - y);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The operator table.
 */
#define N TN_SIG_NONE
#define T_(x) TN_TYPE_##x
#define ARITH_ROWS(SYM, OP)                                                               \
    {SYM, {T_(TINYINT), T_(TINYINT), N}, T_(TINYINT), 0, OP##_i8, NULL, NULL},            \
    {SYM, {T_(SMALLINT), T_(SMALLINT), N}, T_(SMALLINT), 0, OP##_i16, NULL, NULL},        \
    {SYM, {T_(INTEGER), T_(INTEGER), N}, T_(INTEGER), 0, OP##_i32, NULL, NULL},           \
    {SYM, {T_(BIGINT), T_(BIGINT), N}, T_(BIGINT), 0, OP##_i64, NULL, NULL}

#define CMP_ROWS(SYM, OP)                                                                 \
    {SYM, {T_(BOOLEAN), T_(BOOLEAN), N}, T_(BOOLEAN), 0, cmp_##OP##_b, NULL, NULL},       \
    {SYM, {T_(TINYINT), T_(TINYINT), N}, T_(BOOLEAN), 0, cmp_##OP##_i8, NULL, NULL},      \
    {SYM, {T_(SMALLINT), T_(SMALLINT), N}, T_(BOOLEAN), 0, cmp_##OP##_i16, NULL, NULL},   \
    {SYM, {T_(INTEGER), T_(INTEGER), N}, T_(BOOLEAN), 0, cmp_##OP##_i32, NULL, NULL},     \
    {SYM, {T_(BIGINT), T_(BIGINT), N}, T_(BOOLEAN), 0, cmp_##OP##_i64, NULL, NULL},       \
    {SYM, {TN_SIG_DECIMAL, TN_SIG_DECIMAL, N}, T_(BOOLEAN), 0, cmp_##OP##_dec, bind_dec_common, NULL}, \
    {SYM, {T_(FLOAT), T_(FLOAT), N}, T_(BOOLEAN), 0, cmp_##OP##_f32, NULL, NULL},         \
    {SYM, {T_(DOUBLE), T_(DOUBLE), N}, T_(BOOLEAN), 0, cmp_##OP##_f64, NULL, NULL},       \
    {SYM, {T_(VARCHAR), T_(VARCHAR), N}, T_(BOOLEAN), 0, cmp_##OP##_str, NULL, NULL},     \
    {SYM, {T_(VARBINARY), T_(VARBINARY), N}, T_(BOOLEAN), 0, cmp_##OP##_str, NULL, NULL}, \
    {SYM, {T_(DATE), T_(DATE), N}, T_(BOOLEAN), 0, cmp_##OP##_i32, NULL, NULL},           \
    {SYM, {T_(TIMESTAMP), T_(TIMESTAMP), N}, T_(BOOLEAN), 0, cmp_##OP##_i64, NULL, NULL}, \
    {SYM, {T_(TIMESTAMP_TZ), T_(TIMESTAMP_TZ), N}, T_(BOOLEAN), 0, cmp_##OP##_i64, NULL, NULL}

static const tn_func_def g_operators[] = {
    ARITH_ROWS("+", add),
    {"+", {TN_SIG_DECIMAL, TN_SIG_DECIMAL, N}, TN_SIG_ANY, 0, add_dec, bind_dec_add, NULL},
    {"+", {T_(FLOAT), T_(FLOAT), N}, T_(FLOAT), 0, add_f32, NULL, NULL},
    {"+", {T_(DOUBLE), T_(DOUBLE), N}, T_(DOUBLE), 0, add_f64, NULL, NULL},
    {"+", {T_(DATE), T_(INTEGER), N}, T_(DATE), 0, date_add_int, NULL, NULL},
    {"+", {T_(INTEGER), T_(DATE), N}, T_(DATE), 0, int_add_date, NULL, NULL},
    ARITH_ROWS("-", sub),
    {"-", {TN_SIG_DECIMAL, TN_SIG_DECIMAL, N}, TN_SIG_ANY, 0, sub_dec, bind_dec_add, NULL},
    {"-", {T_(FLOAT), T_(FLOAT), N}, T_(FLOAT), 0, sub_f32, NULL, NULL},
    {"-", {T_(DOUBLE), T_(DOUBLE), N}, T_(DOUBLE), 0, sub_f64, NULL, NULL},
    {"-", {T_(DATE), T_(INTEGER), N}, T_(DATE), 0, date_sub_int, NULL, NULL},
    {"-", {T_(DATE), T_(DATE), N}, T_(BIGINT), 0, date_sub_date, NULL, NULL},
    ARITH_ROWS("*", mul),
    {"*", {TN_SIG_DECIMAL, TN_SIG_DECIMAL, N}, TN_SIG_ANY, 0, mul_dec, bind_dec_mul, NULL},
    {"*", {T_(FLOAT), T_(FLOAT), N}, T_(FLOAT), 0, mul_f32, NULL, NULL},
    {"*", {T_(DOUBLE), T_(DOUBLE), N}, T_(DOUBLE), 0, mul_f64, NULL, NULL},
    /* "/" is floating-point division (7 / 2 = 3.5); x / 0 = inf, 0 / 0 = nan as DuckDB. */
    {"/", {T_(FLOAT), T_(FLOAT), N}, T_(FLOAT), TN_FUNC_EXACT, div_f32, NULL, NULL},
    {"/", {T_(DOUBLE), T_(DOUBLE), N}, T_(DOUBLE), 0, div_f64, NULL, NULL},
    /* "//" integer division (NULL on zero); on DOUBLE DuckDB divides plainly. */
    ARITH_ROWS("//", idiv),
    {"//", {T_(DOUBLE), T_(DOUBLE), N}, T_(DOUBLE), 0, div_f64, NULL, NULL},
    /* "%": sign of the dividend; NULL on zero for integers and DECIMAL, nan for DOUBLE. */
    ARITH_ROWS("%", imod),
    {"%", {TN_SIG_DECIMAL, TN_SIG_DECIMAL, N}, TN_SIG_ANY, 0, mod_dec_fn, bind_dec_common, NULL},
    {"%", {T_(FLOAT), T_(FLOAT), N}, T_(FLOAT), 0, mod_f32, NULL, NULL},
    {"%", {T_(DOUBLE), T_(DOUBLE), N}, T_(DOUBLE), 0, mod_f64, NULL, NULL},
    /* unary minus / plus */
    {"-", {T_(TINYINT), N}, T_(TINYINT), 0, neg_i8, NULL, NULL},
    {"-", {T_(SMALLINT), N}, T_(SMALLINT), 0, neg_i16, NULL, NULL},
    {"-", {T_(INTEGER), N}, T_(INTEGER), 0, neg_i32, NULL, NULL},
    {"-", {T_(BIGINT), N}, T_(BIGINT), 0, neg_i64, NULL, NULL},
    {"-", {TN_SIG_DECIMAL, N}, TN_SIG_ANY, 0, neg_dec, bind_dec_same, NULL},
    {"-", {T_(FLOAT), N}, T_(FLOAT), 0, neg_f32, NULL, NULL},
    {"-", {T_(DOUBLE), N}, T_(DOUBLE), 0, neg_f64, NULL, NULL},
    {"+", {TN_SIG_ANY, N}, TN_SIG_ANY, 0, identity_fn, NULL, NULL},
    CMP_ROWS("=", eq),
    CMP_ROWS("<>", ne),
    CMP_ROWS("<", lt),
    CMP_ROWS("<=", le),
    CMP_ROWS(">", gt),
    CMP_ROWS(">=", ge),
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};

/* Other spellings of registered names (Spark, Flink, DuckDB, PostgreSQL). */
static const struct { const char *alias, *name; } g_aliases[] = {
    {"==", "="}, {"!=", "<>"}, {"add", "+"}, {"subtract", "-"}, {"multiply", "*"},
    {"divide", "/"}, {"substring", "substr"}, {"power", "pow"}, {"ucase", "upper"},
    {"lcase", "lower"}, {"char_length", "length"}, {"character_length", "length"},
    {"len", "length"}, {"strlen", "octet_length"}, {"ceiling", "ceil"}, {"date_part", "extract"},
    {"datepart", "extract"}, {"dayofmonth", "day"}, {"dayofweek", "dow"}, {"dayofyear", "doy"},
    {"regexp_like", "regexp_matches"}, {"rlike", "regexp_matches"}, {"like", "~~"},
    {"ilike", "~~*"}, {"not_like", "!~~"}, {"not_ilike", "!~~*"}, {"prefix", "starts_with"},
    {"suffix", "ends_with"}, {"startswith", "starts_with"}, {"endswith", "ends_with"},
    {"strpos", "instr"}, {"position", "instr"}, {"localtimestamp", "now"},
    {"current_timestamp", "now"}, {"get_current_timestamp", "now"}, {"today", "current_date"},
    {"date_diff", "datediff"}, {"date_trunc", "date_trunc"}, {"datetrunc", "date_trunc"},
    {"truncate", "trunc"}, {"nvl2", "nvl2"}, {"mod", "%"}, {"str_to_date", "to_date"},
    {"chr", "chr"}, {"char", "chr"}, {"log10", "log"}, {"sha256", "sha256"},
};

/* Order matters only between overloads of equal cost: the first wins. tn_funcs_list_ops comes
 * before tn_funcs_string so that a list on either side of || concatenates lists. */
static const tn_func_def *const g_tables[] = {g_operators, tn_funcs_list_ops, tn_funcs_string, tn_funcs_math,
                                              tn_funcs_datetime, tn_funcs_hash, tn_funcs_interval, tn_funcs_pg,
                                              tn_funcs_bitmap, tn_funcs_similarity, tn_funcs_trig,
                                              tn_funcs_regex, tn_funcs_list, tn_funcs_list_agg, tn_funcs_format,
                                              tn_funcs_sequence};

static const char *canonical_name(const char *name, char *buf, size_t cap) {
    size_t n = strlen(name);
    if (n >= cap) n = cap - 1;
    for (size_t i = 0; i < n; i++) buf[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    buf[n] = 0;
    for (size_t i = 0; i < sizeof g_aliases / sizeof g_aliases[0]; i++)
        if (strcmp(buf, g_aliases[i].alias) == 0) return g_aliases[i].name;
    return buf;
}

/* Every definition of g_tables sorted by name, equal names in g_tables order (the order between
 * overloads of equal cost): a lookup is a binary search, not a strcmp over ~1,500 names (which
 * was 4% of a prepared point query's time in the server). Built once, never freed. */
typedef struct func_entry {
    const tn_func_def *def;
    size_t rank;                     /* position in g_tables order */
} func_entry;
static func_entry *g_index;
static size_t g_index_n;
static pthread_once_t g_index_once = PTHREAD_ONCE_INIT;

static int entry_cmp(const void *a, const void *b) {
    const func_entry *x = a, *y = b;
    int c = strcmp(x->def->name, y->def->name);
    return c ? c : (x->rank < y->rank ? -1 : x->rank > y->rank);
}

static void index_build(void) {
    size_t n = 0;
    for (size_t t = 0; t < sizeof g_tables / sizeof g_tables[0]; t++)
        for (const tn_func_def *d = g_tables[t]; d->name; d++) n++;
    func_entry *ix = malloc((n + 1) * sizeof *ix);
    if (!ix) return;                 /* lookups scan the tables instead */
    size_t k = 0;
    for (size_t t = 0; t < sizeof g_tables / sizeof g_tables[0]; t++)
        for (const tn_func_def *d = g_tables[t]; d->name; d++, k++) ix[k] = (func_entry){d, k};
    qsort(ix, n, sizeof *ix, entry_cmp);
    g_index = ix;
    g_index_n = n;
}

/* The definitions named c (canonical) in g_tables order, through next_def. */
typedef struct func_iter {
    size_t i, t;
    const tn_func_def *d;
    const char *c;
} func_iter;

static void iter_start(func_iter *it, const char *c) {
    pthread_once(&g_index_once, index_build);
    memset(it, 0, sizeof *it);
    it->c = c;
    if (!g_index) return;
    size_t lo = 0, hi = g_index_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(g_index[mid].def->name, c) < 0) lo = mid + 1;
        else hi = mid;
    }
    it->i = lo;
}

static const tn_func_def *next_def(func_iter *it) {
    if (g_index) {
        if (it->i >= g_index_n || strcmp(g_index[it->i].def->name, it->c) != 0) return NULL;
        return g_index[it->i++].def;
    }
    for (; it->t < sizeof g_tables / sizeof g_tables[0]; it->t++, it->d = NULL) {
        for (it->d = it->d ? it->d + 1 : g_tables[it->t]; it->d->name; it->d++)
            if (strcmp(it->d->name, it->c) == 0) return it->d;
    }
    return NULL;
}

bool tn_func_exists(const char *name) {
    char buf[64];
    func_iter it;
    iter_start(&it, canonical_name(name, buf, sizeof buf));
    return next_def(&it) != NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Implicit casts.
 */
static int numeric_rank(uint8_t id) {
    switch (id) {
    case TN_TYPE_TINYINT: return 1;
    case TN_TYPE_SMALLINT: return 2;
    case TN_TYPE_INTEGER: return 3;
    case TN_TYPE_BIGINT: return 4;
    case TN_TYPE_DECIMAL: return 5;
    case TN_TYPE_FLOAT: return 6;
    case TN_TYPE_DOUBLE: return 7;
    default: return 0;
    }
}

static tn_type int_as_decimal(tn_type t) {
    switch (t.id) {
    case TN_TYPE_TINYINT: return tn_type_decimal(3, 0);
    case TN_TYPE_SMALLINT: return tn_type_decimal(5, 0);
    case TN_TYPE_INTEGER: return tn_type_decimal(10, 0);
    case TN_TYPE_BIGINT: return tn_type_decimal(19, 0);
    case TN_TYPE_DECIMAL: return t;
    default: return tn_type_decimal(18, 3);
    }
}

/* Nested types convert implicitly child by child (INTEGER[] -> BIGINT[], "NULL"[] -> any list;
 * STRUCTs need the same field names). */
static int nested_cast_cost(tn_type from, tn_type to) {
    if (from.id != to.id || from.nested->nchildren != to.nested->nchildren) return -1;
    int total = 1;
    for (uint32_t i = 0; i < from.nested->nchildren; i++) {
        if (from.id == TN_TYPE_STRUCT && !tn_str_iequal(from.nested->names[i], to.nested->names[i])) return -1;
        int c = tn_func_implicit_cast_cost(from.nested->children[i], to.nested->children[i]);
        if (c < 0) return -1;
        total += c;
    }
    return total;
}

static int nested_common_type(tn_type a, tn_type b, tn_type *out) {
    char x[128], y[128];
    uint32_t n = a.nested->nchildren;
    if (a.id != b.id || n != b.nested->nchildren) goto mismatch;
    tn_type kids[64];
    if (n > 64) goto mismatch;
    for (uint32_t i = 0; i < n; i++) {
        if (a.id == TN_TYPE_STRUCT && !tn_str_iequal(a.nested->names[i], b.nested->names[i])) goto mismatch;
        int rc = tn_func_common_type(a.nested->children[i], b.nested->children[i], &kids[i]);
        if (rc) return rc;
    }
    if (a.id == TN_TYPE_LIST) return tn_type_list(out, kids[0]);
    if (a.id == TN_TYPE_MAP) return tn_type_map(out, kids[0].nested->children[0], kids[0].nested->children[1]);
    return tn_type_struct(out, n, a.nested->names, kids);
mismatch:
    return tn_error_set(TN_EBIND, "Cannot mix values of type %s and %s - an explicit cast is required",
                        tn_type_format(a, x, sizeof x), tn_type_format(b, y, sizeof y));
}

int tn_func_implicit_cast_cost(tn_type from, tn_type to) {
    if (tn_type_equal(from, to)) return 0;
    if (from.id == TN_TYPE_NULL) return 1;
    if (tn_type_is_nested(from) || tn_type_is_nested(to))
        return tn_type_is_nested(from) && tn_type_is_nested(to) ? nested_cast_cost(from, to) : -1;
    int rf = numeric_rank(from.id), rt = numeric_rank(to.id);
    if (rf && rt) {
        if (from.id == TN_TYPE_DECIMAL && to.id == TN_TYPE_DECIMAL) {
            /* widening only */
            if (to.scale >= from.scale && to.precision - to.scale >= from.precision - from.scale) return 1;
            return -1;
        }
        if (rt > rf) return rt - rf;
        return -1;
    }
    if (from.id == TN_TYPE_DATE && to.id == TN_TYPE_TIMESTAMP) return 1;
    if (from.id == TN_TYPE_DATE && to.id == TN_TYPE_TIMESTAMP_TZ) return 2;
    if (from.id == TN_TYPE_TIMESTAMP && to.id == TN_TYPE_TIMESTAMP_TZ) return 1;
    return -1;
}

static int sig_cost(tn_type from, uint8_t sig, uint8_t flags, tn_type *target) {
    if (sig == TN_SIG_ANY) {
        *target = from;
        return 0;
    }
    if (sig == TN_SIG_DECIMAL) {
        if (from.id == TN_TYPE_DECIMAL) {
            *target = from;
            return 0;
        }
        if (tn_type_is_integer(from)) {
            *target = int_as_decimal(from);
            return 5 - numeric_rank(from.id);
        }
        if (from.id == TN_TYPE_NULL) {
            *target = tn_type_decimal(18, 3);
            return 1;
        }
        if ((flags & TN_FUNC_ARG_STRING_LITERAL) && from.id == TN_TYPE_VARCHAR) {
            *target = tn_type_decimal(18, 3);
            return 20;
        }
        return -1;
    }
    if (sig == TN_TYPE_LIST || sig == TN_TYPE_STRUCT || sig == TN_TYPE_MAP) {   /* any of that kind */
        *target = from;
        return from.id == sig ? 0 : -1;
    }
    *target = tn_type_make((tn_type_id)sig);
    if (from.id == sig) return 0;
    if ((flags & TN_FUNC_ARG_STRING_LITERAL) && from.id == TN_TYPE_VARCHAR) return 20;
    return tn_func_implicit_cast_cost(from, *target);
}

int tn_func_common_type(tn_type a, tn_type b, tn_type *out) {
    if (tn_type_equal(a, b) || b.id == TN_TYPE_NULL) {
        *out = a;
        return 0;
    }
    if (a.id == TN_TYPE_NULL) {
        *out = b;
        return 0;
    }
    if (tn_type_is_nested(a) && tn_type_is_nested(b)) return nested_common_type(a, b, out);
    if (a.id == TN_TYPE_DECIMAL || b.id == TN_TYPE_DECIMAL) {
        int ra = numeric_rank(a.id), rb = numeric_rank(b.id);
        if (ra && rb && ra <= 5 && rb <= 5) {
            tn_type x = int_as_decimal(a), y = int_as_decimal(b);
            int s = x.scale > y.scale ? x.scale : y.scale;
            int d = dec_int_digits(x) > dec_int_digits(y) ? dec_int_digits(x) : dec_int_digits(y);
            *out = tn_type_decimal(d + s > 38 ? 38 : d + s, s);
            return 0;
        }
    }
    if (tn_func_implicit_cast_cost(a, b) >= 0) {
        *out = b;
        return 0;
    }
    if (tn_func_implicit_cast_cost(b, a) >= 0) {
        *out = a;
        return 0;
    }
    /* A string meets a non-string: DuckDB casts the string (literal) side. */
    if (a.id == TN_TYPE_VARCHAR && b.id != TN_TYPE_VARBINARY) {
        *out = b;
        return 0;
    }
    if (b.id == TN_TYPE_VARCHAR && a.id != TN_TYPE_VARBINARY) {
        *out = a;
        return 0;
    }
    char x[64], y[64];
    return tn_error_set(TN_EBIND, "Cannot mix values of type %s and %s - an explicit cast is required",
                        tn_type_format(a, x, sizeof x), tn_type_format(b, y, sizeof y));
}

/* ---------------------------------------------------------------------------------------------
 * Resolution.
 */
static uint32_t sig_len(const tn_func_def *d) {
    uint32_t k = 0;
    while (k < sizeof d->args && d->args[k] != TN_SIG_NONE) k++;
    return k;
}

static int try_overload(const tn_func_def *d, const tn_type *args, const uint8_t *flags, uint32_t nargs,
                        tn_func_binding *b) {
    uint32_t k = sig_len(d);
    bool variadic = (d->flags & TN_FUNC_VARIADIC) != 0;
    if (variadic ? nargs + 1 < k : nargs != k) return -1;
    int total = 0;
    for (uint32_t i = 0; i < nargs; i++) {
        uint8_t sig = i < k ? d->args[i] : d->args[k - 1];
        if (variadic && i >= k - 1) sig = d->args[k - 1];
        int c = sig_cost(args[i], sig, flags ? flags[i] : 0, &b->arg_types[i]);
        if (c < 0) return -1;
        if ((d->flags & TN_FUNC_EXACT) && c > 0 && args[i].id != TN_TYPE_NULL) return -1;
        total += c;
    }
    return total;
}

int tn_func_resolve_bind(const char *name, const tn_type *args, const uint8_t *arg_flags,
                         uint32_t nargs, const tn_value *const *consts, tn_func_binding *out,
                         void **bind_data) {
    char buf[64];
    const char *c = canonical_name(name, buf, sizeof buf);
    int best = -1;
    bool found_name = false;
    *bind_data = NULL;
    memset(out, 0, sizeof *out);
    if (nargs > TN_FUNC_MAX_ARGS) return tn_error_set(TN_ELIMIT, "%s: too many arguments", name);
    tn_func_binding *cand = tn_malloc(sizeof *cand);
    if (!cand) return TN_ENOMEM;
    func_iter it;
    iter_start(&it, c);
    for (const tn_func_def *d; (d = next_def(&it));) {
        found_name = true;
        int cost = try_overload(d, args, arg_flags, nargs, cand);
        if (cost < 0 || (best >= 0 && cost >= best)) continue;
        best = cost;
        cand->def = d;
        cand->nargs = nargs;
        *out = *cand;
    }
    tn_free(cand);
    if (!found_name) return tn_error_set(TN_ENOTFOUND, "Scalar Function with name %s does not exist!", name);
    if (best < 0) {
        tn_buf sig = TN_BUF_INIT;
        char tb[64];
        for (uint32_t i = 0; i < nargs; i++)
            tn_buf_printf(&sig, "%s%s", i ? ", " : "", tn_type_format(args[i], tb, sizeof tb));
        int rc = tn_error_set(TN_EBIND,
                              "No function matches the given name and argument types '%s(%.*s)'. You "
                              "might need to add explicit type casts.",
                              name, (int)sig.len, sig.data ? (const char *)sig.data : "");
        tn_buf_free(&sig);
        return rc;
    }
    out->ret = out->def->ret == TN_SIG_ANY ? (nargs ? out->arg_types[0] : tn_type_make(TN_TYPE_NULL))
                                           : tn_type_make((tn_type_id)out->def->ret);
    if (out->def->bind) {
        const tn_value *none[TN_FUNC_MAX_ARGS] = {0};
        int rc = out->def->bind(out, consts ? consts : none, bind_data);
        if (rc) {
            if (*bind_data && out->def->free_bind_data) out->def->free_bind_data(*bind_data);
            *bind_data = NULL;
            return rc;
        }
    }
    return 0;
}

int tn_func_resolve_ex(const char *name, const tn_type *args, const uint8_t *arg_flags,
                       uint32_t nargs, tn_func_binding *out) {
    void *bd = NULL;
    int rc = tn_func_resolve_bind(name, args, arg_flags, nargs, NULL, out, &bd);
    if (bd && out->def && out->def->free_bind_data) out->def->free_bind_data(bd);
    return rc;
}

int tn_func_resolve(const char *name, const tn_type *args, uint32_t nargs, tn_func_binding *out) {
    return tn_func_resolve_ex(name, args, NULL, nargs, out);
}
