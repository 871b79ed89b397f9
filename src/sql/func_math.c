/*
 * sql/func_math.c: numeric functions with DuckDB's types and errors: abs, sign, round(x[, n])
 * (half away from zero), floor, ceil, trunc, sqrt, cbrt, ln, log (= log10; log(b, x)), log2,
 * exp, pow/power, pi, greatest/least (NULLs ignored), isnan/isinf/isfinite.
 */
#include "sql/functions.h"

#include <math.h>
#include <string.h>

#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out
#define VALID(i) tn_vector_is_valid(out, i)
#define ARGD(k, i) (((const double *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define ARGI(k, i) (((const int64_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])

/* ---------------------------------------------------------------------------------------------
 * abs / sign
 */
#define ABS_INT(SUF, T)                                                                   \
    static int abs_##SUF(FN_ARGS) {                                                       \
        const T *a = args[0]->data;                                                       \
        T *r = out->data;                                                                 \
        for (uint32_t i = 0; i < n; i++) {                                                \
            if (a[i] == (T)((uint64_t)1 << (sizeof(T) * 8 - 1)) && VALID(i))                     \
                return tn_error_set(TN_ELIMIT, "Overflow on abs(%lld)", (long long)a[i]); \
            r[i] = a[i] < 0 ? (T)(0 - (uint64_t)a[i]) : a[i];                             \
        }                                                                                 \
        return 0;                                                                         \
    }
ABS_INT(i8, int8_t)
ABS_INT(i16, int16_t)
ABS_INT(i32, int32_t)
ABS_INT(i64, int64_t)

static int abs_f32(FN_ARGS) {
    const float *a = args[0]->data;
    float *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = fabsf(a[i]);
    return 0;
}
static int abs_f64(FN_ARGS) {
    const double *a = args[0]->data;
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = fabs(a[i]);
    return 0;
}
static int abs_dec(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        tn_int128 v = tn_dec_get(args[0], i);
        tn_dec_put(out, i, v < 0 ? -v : v);
    }
    return 0;
}
static int bind_same_dec(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    b->ret = b->arg_types[0];
    return 0;
}

static int sign_i64(FN_ARGS) {
    const int64_t *a = args[0]->data;
    int8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = (int8_t)((a[i] > 0) - (a[i] < 0));
    return 0;
}
static int sign_f64(FN_ARGS) {
    const double *a = args[0]->data;
    int8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = (int8_t)((a[i] > 0) - (a[i] < 0));
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * round / floor / ceil / trunc
 */
static double round_digits(double x, int64_t d) {
    if (d == 0) return round(x);
    if (d > 0) {
        if (d > 300) return x;
        double m = pow(10.0, (double)d), y = round(x * m) / m;
        return isfinite(y) ? y : x;
    }
    if (d < -300) return 0;
    double m = pow(10.0, (double)-d);
    return round(x / m) * m;
}

static int round_f64(FN_ARGS) {
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = round_digits(ARGD(0, i), nargs > 1 ? ARGI(1, i) : 0);
    return 0;
}
static int round_f32(FN_ARGS) {
    const float *a = args[0]->data;
    float *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = (float)round_digits(a[i], nargs > 1 ? ARGI(1, i) : 0);
    return 0;
}
/* Integers: round to 10^-d for negative d (half away from zero), unchanged otherwise. */
static int64_t iget(const tn_vector *v, uint32_t i) {
    switch (v->type.id) {
    case TN_TYPE_TINYINT: return ((const int8_t *)v->data)[i];
    case TN_TYPE_SMALLINT: return ((const int16_t *)v->data)[i];
    case TN_TYPE_INTEGER: return ((const int32_t *)v->data)[i];
    default: return ((const int64_t *)v->data)[i];
    }
}
static bool iput(tn_vector *v, uint32_t i, int64_t x) {
    switch (v->type.id) {
    case TN_TYPE_TINYINT: ((int8_t *)v->data)[i] = (int8_t)x; return x >= INT8_MIN && x <= INT8_MAX;
    case TN_TYPE_SMALLINT: ((int16_t *)v->data)[i] = (int16_t)x; return x >= INT16_MIN && x <= INT16_MAX;
    case TN_TYPE_INTEGER: ((int32_t *)v->data)[i] = (int32_t)x; return x >= INT32_MIN && x <= INT32_MAX;
    default: ((int64_t *)v->data)[i] = x; return true;
    }
}
static int round_int(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        int64_t x = iget(args[0], TN_ARG_IDX(args[0], i)), d = nargs > 1 ? ARGI(1, i) : 0, r = x;
        if (d < -18) {
            r = 0;
        } else if (d < 0) {
            int64_t m = (int64_t)tn_pow10_i128[-d], q = x / m, rem = x % m;
            if (rem < 0) rem = -rem;
            if (rem * 2 >= m) q += x < 0 ? -1 : 1;
            if (__builtin_mul_overflow(q, m, &r) && VALID(i))
                return tn_error_set(TN_ELIMIT, "Overflow in round(%lld, %lld)", (long long)x, (long long)d);
        }
        if (!iput(out, i, r) && VALID(i))
            return tn_error_set(TN_ELIMIT, "Overflow in round(%lld, %lld)", (long long)x, (long long)d);
    }
    return 0;
}

/* Decimal rounding: the result scale is decided in bind (constant n); here values are divided
 * by 10^(s_in - s_out) with rounding, or rounded at a negative position. */
typedef enum { R_ROUND, R_FLOOR, R_CEIL, R_TRUNC } rmode;
static tn_int128 dec_div_mode(tn_int128 v, int k, rmode m) {
    if (k <= 0) return v;
    if (k > 38) return 0;
    tn_int128 p = tn_pow10_i128[k], q = v / p, r = v % p;
    switch (m) {
    case R_ROUND: {
        tn_int128 ar = r < 0 ? -r : r;
        if (ar * 2 >= p) q += v < 0 ? -1 : 1;
        break;
    }
    case R_FLOOR: if (r < 0) q -= 1; break;
    case R_CEIL: if (r > 0) q += 1; break;
    case R_TRUNC: break;
    }
    return q;
}

static int dec_round_fn(FN_ARGS, rmode m) {
    int sin = args[0]->type.scale, sout = out->type.scale;
    for (uint32_t i = 0; i < n; i++) {
        tn_int128 v = tn_dec_get(args[0], TN_ARG_IDX(args[0], i));
        int64_t d = nargs > 1 ? ARGI(1, i) : 0;
        if (m == R_ROUND && d < 0 && sout == 0) {
            /* round to tens/hundreds: drop the fraction and -d more digits, scale back up */
            int k = sin + (int)(d < -38 ? 38 : -d);
            tn_int128 q = dec_div_mode(v, k, R_ROUND);
            int up = (int)(d < -38 ? 38 : -d);
            tn_dec_put(out, i, up <= 38 ? q * tn_pow10_i128[up] : 0);
            continue;
        }
        if (m == R_ROUND && d < 0 && sout == sin) {
            /* non-constant negative digits: round at 10^-d, keep the scale */
            int up = sin + (int)(d < -38 ? 38 : -d);
            if (up > 38) up = 38;
            tn_int128 q = dec_div_mode(v, up, R_ROUND);
            tn_dec_put(out, i, q * tn_pow10_i128[up]);
            continue;
        }
        if (m == R_ROUND && d >= 0 && d < sin && sout == sin) {
            /* non-constant digits: round in place, keep the scale */
            tn_int128 q = dec_div_mode(v, sin - (int)d, R_ROUND);
            tn_dec_put(out, i, q * tn_pow10_i128[sin - (int)d]);
            continue;
        }
        tn_dec_put(out, i, dec_div_mode(v, sin - sout, m));
    }
    return 0;
}
static int round_dec(FN_ARGS) { return dec_round_fn(call, args, nargs, n, out, R_ROUND); }
static int floor_dec(FN_ARGS) { return dec_round_fn(call, args, nargs, n, out, R_FLOOR); }
static int ceil_dec(FN_ARGS) { return dec_round_fn(call, args, nargs, n, out, R_CEIL); }
static int trunc_dec(FN_ARGS) { return dec_round_fn(call, args, nargs, n, out, R_TRUNC); }

/* round(DECIMAL(p,s)) -> DECIMAL(p,0); round(DECIMAL(p,s), k) -> DECIMAL(p,k) for a constant
 * 0 <= k < s, DECIMAL(max(p, p-s+1) up to 38, 0) for a constant k < 0 (DuckDB: rounding 9999 to
 * tens needs a fifth digit), unchanged for k >= s or a non-constant k. floor/ceil/trunc -> DECIMAL(p,0). */
static int bind_round_dec(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type t = b->arg_types[0];
    if (b->nargs == 1) {
        b->ret = tn_type_decimal(t.precision, 0);
        return 0;
    }
    const tn_value *k = consts[1];
    if (k && !k->is_null && tn_type_is_integer(k->type)) {
        if (k->u.i < 0) {
            int w = t.precision - t.scale + 1 > t.precision ? t.precision - t.scale + 1 : t.precision;
            b->ret = tn_type_decimal(w > 38 ? 38 : w, 0);
        }
        else if (k->u.i < t.scale) b->ret = tn_type_decimal(t.precision, (int)k->u.i);
        else b->ret = t;
    } else {
        b->ret = t;
    }
    return 0;
}

#define DBL_UNARY(NAME, EXPR)                                                             \
    static int NAME(FN_ARGS) {                                                            \
        const double *a = args[0]->data;                                                  \
        double *r = out->data;                                                            \
        for (uint32_t i = 0; i < n; i++) {                                                \
            double x = a[i];                                                              \
            r[i] = EXPR;                                                                  \
        }                                                                                 \
        return 0;                                                                         \
    }
DBL_UNARY(floor_f64, floor(x))
DBL_UNARY(ceil_f64, ceil(x))
DBL_UNARY(trunc_f64, trunc(x))
DBL_UNARY(exp_f64, exp(x))
DBL_UNARY(cbrt_f64, cbrt(x))

static int floor_f32(FN_ARGS) {
    const float *a = args[0]->data;
    float *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = floorf(a[i]);
    return 0;
}
static int ceil_f32(FN_ARGS) {
    const float *a = args[0]->data;
    float *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = ceilf(a[i]);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * sqrt / logarithms with DuckDB's errors.
 */
static int f_sqrt(FN_ARGS) {
    const double *a = args[0]->data;
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (a[i] < 0 && VALID(i)) return tn_error_set(TN_ELIMIT, "cannot take square root of a negative number");
        r[i] = sqrt(a[i]);
    }
    return 0;
}

static int log_check(double x, uint32_t i, tn_vector *out) {
    if (!VALID(i)) return 0;
    if (x == 0) return tn_error_set(TN_ELIMIT, "cannot take logarithm of zero");
    if (x < 0) return tn_error_set(TN_ELIMIT, "cannot take logarithm of a negative number");
    return 0;
}

#define LOG_FN(NAME, F)                                                                   \
    static int NAME(FN_ARGS) {                                                            \
        const double *a = args[0]->data;                                                  \
        double *r = out->data;                                                            \
        for (uint32_t i = 0; i < n; i++) {                                                \
            int rc = log_check(a[i], i, out);                                             \
            if (rc) return rc;                                                            \
            r[i] = F(a[i]);                                                               \
        }                                                                                 \
        return 0;                                                                         \
    }
LOG_FN(f_ln, log)
LOG_FN(f_log10, log10)
LOG_FN(f_log2, log2)

/* log(b, x): logarithm of x to base b. */
static int f_log_base(FN_ARGS) {
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        double b = ARGD(0, i), x = ARGD(1, i);
        int rc = log_check(x, i, out);
        if (!rc) rc = log_check(b, i, out);
        if (rc) return rc;
        r[i] = log(x) / log(b);
    }
    return 0;
}

static int f_pow(FN_ARGS) {
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = pow(ARGD(0, i), ARGD(1, i));
    return 0;
}

/* DuckDB's fmod: x - y * floor(x / y), the sign of the divisor (fmod(10, -3) = -2); the "%"
 * operator keeps C's truncated remainder. */
static int f_fmod(FN_ARGS) {
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        double x = ARGD(0, i), y = ARGD(1, i), v = x - y * floor(x / y);
        r[i] = v == 0 ? 0.0 : v;         /* fmod(6, -3) is 0.0, not -0.0 */
    }
    return 0;
}

static int f_pi(FN_ARGS) {
    ((double *)out->data)[0] = M_PI;
    for (uint32_t i = 1; i < n; i++) ((double *)out->data)[i] = M_PI;
    return 0;
}

static int f_isnan(FN_ARGS) {
    uint8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = isnan(ARGD(0, i));
    return 0;
}
static int f_isinf(FN_ARGS) {
    uint8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = isinf(ARGD(0, i));
    return 0;
}
static int f_isfinite(FN_ARGS) {
    uint8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = isfinite(ARGD(0, i));
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * greatest / least: NULL arguments are ignored; NULL only when all are NULL.
 */
static int extreme(FN_ARGS, int want) {
    int rc = tn_vector_ensure_validity(out);
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++) {
        tn_value best, v;
        bool have = false;
        for (uint32_t k = 0; k < nargs; k++) {
            tn_vector_get_value(args[k], TN_ARG_IDX(args[k], i), &v);
            if (v.is_null) continue;
            if (!have || tn_value_compare(&v, &best) * want > 0) best = v, have = true;
        }
        if (!have) {
            rc = tn_vector_set_null(out, i);
            if (tn_type_is_string(out->type)) tn_func_str_empty(out, i);
        } else {
            rc = tn_vector_set_value(out, i, &best);
        }
        if (rc) return rc;
    }
    return 0;
}
static int f_greatest(FN_ARGS) { return extreme(call, args, nargs, n, out, 1); }
static int f_least(FN_ARGS) { return extreme(call, args, nargs, n, out, -1); }

static int bind_extreme_dec(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    tn_type t = b->arg_types[0];
    for (uint32_t i = 1; i < b->nargs; i++) {
        int rc = tn_func_common_type(t, b->arg_types[i], &t);
        if (rc) return rc;
    }
    for (uint32_t i = 0; i < b->nargs; i++) b->arg_types[i] = t;
    b->ret = t;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Table.
 */
#define N TN_SIG_NONE
#define T_(x) TN_TYPE_##x
#define D TN_TYPE_DOUBLE
#define DEC TN_SIG_DECIMAL
#define EXTREME(NAME, FN)                                                                 \
    {NAME, {T_(BOOLEAN), N}, T_(BOOLEAN), TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS | TN_FUNC_EXACT, FN, NULL, NULL}, \
    {NAME, {T_(INTEGER), N}, T_(INTEGER), TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, FN, NULL, NULL},  \
    {NAME, {T_(BIGINT), N}, T_(BIGINT), TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, FN, NULL, NULL},    \
    {NAME, {DEC, N}, TN_SIG_ANY, TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, FN, bind_extreme_dec, NULL}, \
    {NAME, {D, N}, D, TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, FN, NULL, NULL},                      \
    {NAME, {T_(VARCHAR), N}, T_(VARCHAR), TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, FN, NULL, NULL},  \
    {NAME, {T_(DATE), N}, T_(DATE), TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, FN, NULL, NULL},        \
    {NAME, {T_(TIMESTAMP), N}, T_(TIMESTAMP), TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, FN, NULL, NULL}, \
    {NAME, {T_(TIMESTAMP_TZ), N}, T_(TIMESTAMP_TZ), TN_FUNC_VARIADIC | TN_FUNC_SPECIAL_NULLS, FN, NULL, NULL}

const tn_func_def tn_funcs_math[] = {
    {"abs", {T_(TINYINT), N}, T_(TINYINT), 0, abs_i8, NULL, NULL},
    {"abs", {T_(SMALLINT), N}, T_(SMALLINT), 0, abs_i16, NULL, NULL},
    {"abs", {T_(INTEGER), N}, T_(INTEGER), 0, abs_i32, NULL, NULL},
    {"abs", {T_(BIGINT), N}, T_(BIGINT), 0, abs_i64, NULL, NULL},
    {"abs", {DEC, N}, TN_SIG_ANY, 0, abs_dec, bind_same_dec, NULL},
    {"abs", {T_(FLOAT), N}, T_(FLOAT), 0, abs_f32, NULL, NULL},
    {"abs", {D, N}, D, 0, abs_f64, NULL, NULL},
    {"sign", {T_(BIGINT), N}, T_(TINYINT), 0, sign_i64, NULL, NULL},
    {"sign", {D, N}, T_(TINYINT), 0, sign_f64, NULL, NULL},
    {"round", {T_(TINYINT), N}, T_(TINYINT), TN_FUNC_EXACT, round_int, NULL, NULL},
    {"round", {T_(SMALLINT), N}, T_(SMALLINT), TN_FUNC_EXACT, round_int, NULL, NULL},
    {"round", {T_(INTEGER), N}, T_(INTEGER), TN_FUNC_EXACT, round_int, NULL, NULL},
    {"round", {T_(BIGINT), N}, T_(BIGINT), TN_FUNC_EXACT, round_int, NULL, NULL},
    {"round", {T_(TINYINT), T_(BIGINT), N}, T_(TINYINT), TN_FUNC_EXACT, round_int, NULL, NULL},
    {"round", {T_(SMALLINT), T_(BIGINT), N}, T_(SMALLINT), TN_FUNC_EXACT, round_int, NULL, NULL},
    {"round", {T_(INTEGER), T_(BIGINT), N}, T_(INTEGER), 0, round_int, NULL, NULL},
    {"round", {T_(BIGINT), T_(BIGINT), N}, T_(BIGINT), 0, round_int, NULL, NULL},
    {"round", {DEC, N}, TN_SIG_ANY, TN_FUNC_EXACT, round_dec, bind_round_dec, NULL},
    {"round", {DEC, T_(BIGINT), N}, TN_SIG_ANY, 0, round_dec, bind_round_dec, NULL},
    {"round", {T_(FLOAT), N}, T_(FLOAT), TN_FUNC_EXACT, round_f32, NULL, NULL},
    {"round", {T_(FLOAT), T_(BIGINT), N}, T_(FLOAT), 0, round_f32, NULL, NULL},
    {"round", {D, N}, D, 0, round_f64, NULL, NULL},
    {"round", {D, T_(BIGINT), N}, D, 0, round_f64, NULL, NULL},
    {"floor", {DEC, N}, TN_SIG_ANY, TN_FUNC_EXACT, floor_dec, bind_round_dec, NULL},
    {"floor", {T_(FLOAT), N}, T_(FLOAT), TN_FUNC_EXACT, floor_f32, NULL, NULL},
    {"floor", {D, N}, D, 0, floor_f64, NULL, NULL},
    {"ceil", {DEC, N}, TN_SIG_ANY, TN_FUNC_EXACT, ceil_dec, bind_round_dec, NULL},
    {"ceil", {T_(FLOAT), N}, T_(FLOAT), TN_FUNC_EXACT, ceil_f32, NULL, NULL},
    {"ceil", {D, N}, D, 0, ceil_f64, NULL, NULL},
    {"trunc", {DEC, N}, TN_SIG_ANY, TN_FUNC_EXACT, trunc_dec, bind_round_dec, NULL},
    {"trunc", {D, N}, D, 0, trunc_f64, NULL, NULL},
    {"sqrt", {D, N}, D, 0, f_sqrt, NULL, NULL},
    {"cbrt", {D, N}, D, 0, cbrt_f64, NULL, NULL},
    {"exp", {D, N}, D, 0, exp_f64, NULL, NULL},
    {"ln", {D, N}, D, 0, f_ln, NULL, NULL},
    {"log", {D, N}, D, 0, f_log10, NULL, NULL},
    {"log", {D, D, N}, D, 0, f_log_base, NULL, NULL},
    {"log2", {D, N}, D, 0, f_log2, NULL, NULL},
    {"pow", {D, D, N}, D, 0, f_pow, NULL, NULL},
    {"fmod", {D, D, N}, D, 0, f_fmod, NULL, NULL},
    {"pi", {N}, D, 0, f_pi, NULL, NULL},
    {"isnan", {D, N}, T_(BOOLEAN), 0, f_isnan, NULL, NULL},
    {"isinf", {D, N}, T_(BOOLEAN), 0, f_isinf, NULL, NULL},
    {"isfinite", {D, N}, T_(BOOLEAN), 0, f_isfinite, NULL, NULL},
    EXTREME("greatest", f_greatest),
    EXTREME("least", f_least),
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
