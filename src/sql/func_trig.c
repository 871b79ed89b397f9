/*
 * sql/func_trig.c: trigonometric, hyperbolic and number-theory functions with DuckDB's results
 * and error texts: sin cos tan cot asin acos atan atan2, sinh cosh tanh asinh acosh atanh,
 * degrees radians, gamma lgamma, even, signbit, nextafter, roundbankers/round_even, gcd lcm,
 * factorial, bit_length.
 */
#include "sql/functions.h"

#include <math.h>
#include <stdlib.h>

#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out
#define VALID(i) tn_vector_is_valid(out, i)
#define ARGD(k, i) (((const double *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define ARGF(k, i) (((const float *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define ARGI(k, i) (((const int64_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])

/* A DOUBLE -> DOUBLE function; CHECK (over x) is evaluated for valid rows and fails with MSG. */
#define DBL_FN(NAME, EXPR, CHECK, CODE, MSG)                                              \
    static int NAME(FN_ARGS) {                                                            \
        double *r = out->data;                                                            \
        for (uint32_t i = 0; i < n; i++) {                                                \
            double x = ARGD(0, i);                                                        \
            if (VALID(i) && (CHECK)) return tn_error_set(CODE, "%s", MSG);                   \
            r[i] = EXPR;                                                                  \
        }                                                                                 \
        return 0;                                                                         \
    }
#define NEVER false
#define INF_MSG(x) ((x) > 0 ? "Out of Range Error: input value inf is out of range for numeric function" \
                          : "Out of Range Error: input value -inf is out of range for numeric function")
#define INV TN_EINVAL
#define RANGE TN_ELIMIT
DBL_FN(f_sin, sin(x), isinf(x), RANGE, INF_MSG(x))
DBL_FN(f_cos, cos(x), isinf(x), RANGE, INF_MSG(x))
DBL_FN(f_tan, tan(x), isinf(x), RANGE, INF_MSG(x))
DBL_FN(f_cot, 1.0 / tan(x), x == 0, RANGE,
       "Out of Range Error: input value 0.000000 is out of range for numeric function cotangent")
DBL_FN(f_asin, asin(x), x < -1 || x > 1, INV, "Invalid Input Error: ASIN is undefined outside [-1,1]")
DBL_FN(f_acos, acos(x), x < -1 || x > 1, INV, "Invalid Input Error: ACOS is undefined outside [-1,1]")
DBL_FN(f_atan, atan(x), NEVER, 0, "")
DBL_FN(f_sinh, sinh(x), NEVER, 0, "")
DBL_FN(f_cosh, cosh(x), NEVER, 0, "")
DBL_FN(f_tanh, tanh(x), NEVER, 0, "")
DBL_FN(f_asinh, asinh(x), NEVER, 0, "")
DBL_FN(f_acosh, acosh(x), NEVER, 0, "")
DBL_FN(f_atanh, atanh(x), x < -1 || x > 1, INV, "Invalid Input Error: ATANH is undefined outside [-1,1]")
DBL_FN(f_degrees, x * (180.0 / M_PI), NEVER, 0, "")
DBL_FN(f_radians, x * (M_PI / 180.0), NEVER, 0, "")
DBL_FN(f_gamma, tgamma(x), x == 0, RANGE, "Out of Range Error: cannot take gamma of zero")
DBL_FN(f_lgamma, lgamma(x), x == 0, RANGE, "Out of Range Error: cannot take log gamma of zero")

/* even(x): away from zero to the next even integer. */
static double even(double x) {
    double v = x >= 0 ? ceil(x) : floor(x);
    if (fmod(v, 2) != 0) v += x >= 0 ? 1 : -1;
    return v;
}
DBL_FN(f_even, even(x), NEVER, 0, "")

static int f_atan2(FN_ARGS) {
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = atan2(ARGD(0, i), ARGD(1, i));
    return 0;
}

static int f_signbit(FN_ARGS) {
    uint8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = signbit(ARGD(0, i)) != 0;
    return 0;
}

static int f_nextafter(FN_ARGS) {
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = nextafter(ARGD(0, i), ARGD(1, i));
    return 0;
}

static int f_nextafterf(FN_ARGS) {
    float *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = nextafterf(ARGF(0, i), ARGF(1, i));
    return 0;
}

/* roundbankers(x, d): half to even at d decimal places. */
static int f_roundbankers(FN_ARGS) {
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        double x = ARGD(0, i);
        int64_t d = nargs > 1 ? ARGI(1, i) : 0;
        if (!VALID(i) || !isfinite(x)) {
            r[i] = x;
            continue;
        }
        double m = pow(10.0, (double)d);
        double y = x * m;
        if (!isfinite(y) || m == 0) {
            r[i] = x;
            continue;
        }
        r[i] = nearbyint(y) / m;     /* the default rounding mode is to nearest, ties to even */
    }
    return 0;
}

static uint64_t gcd_u(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static uint64_t uabs(int64_t x) { return x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x; }

static int f_gcd(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t g = gcd_u(uabs(ARGI(0, i)), uabs(ARGI(1, i)));
        if (VALID(i) && g > (uint64_t)INT64_MAX) return tn_error_set(TN_ELIMIT, "Out of Range Error: gcd value is out of range");
        r[i] = (int64_t)g;
    }
    return 0;
}

static int f_lcm(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        r[i] = 0;
        if (!VALID(i)) continue;
        uint64_t a = uabs(ARGI(0, i)), b = uabs(ARGI(1, i));
        if (a == 0 || b == 0) continue;
        uint64_t q = a / gcd_u(a, b), v;
        if (__builtin_mul_overflow(q, b, &v) || v > (uint64_t)INT64_MAX)
            return tn_error_set(TN_ELIMIT, "Out of Range Error: lcm value is out of range");
        r[i] = (int64_t)v;
    }
    return 0;
}

static int f_factorial(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        r[i] = 0;
        if (!VALID(i)) continue;
        int64_t x = ARGI(0, i), v = 1;
        if (x < 0) return tn_error_set(TN_ELIMIT, "Out of Range Error: factorial of a negative number is undefined");
        for (int64_t k = 2; k <= x; k++)
            if (__builtin_mul_overflow(v, k, &v))
                return tn_error_set(TN_ELIMIT, "Out of Range Error: Value %lld is out of range for factorial", (long long)x);
        r[i] = v;
    }
    return 0;
}

static int f_bit_length(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = (int64_t)((const tn_str *)args[0]->data)[TN_ARG_IDX(args[0], i)].len * 8;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Table.
 */
#define N TN_SIG_NONE
#define D TN_TYPE_DOUBLE
#define B TN_TYPE_BIGINT
#define D1(NAME, FN) {NAME, {D, N}, D, 0, FN, NULL, NULL}
const tn_func_def tn_funcs_trig[] = {
    D1("sin", f_sin), D1("cos", f_cos), D1("tan", f_tan), D1("cot", f_cot),
    D1("asin", f_asin), D1("acos", f_acos), D1("atan", f_atan),
    D1("sinh", f_sinh), D1("cosh", f_cosh), D1("tanh", f_tanh),
    D1("asinh", f_asinh), D1("acosh", f_acosh), D1("atanh", f_atanh),
    D1("degrees", f_degrees), D1("radians", f_radians),
    D1("gamma", f_gamma), D1("lgamma", f_lgamma), D1("even", f_even),
    {"atan2", {D, D, N}, D, 0, f_atan2, NULL, NULL},
    {"signbit", {D, N}, TN_TYPE_BOOLEAN, 0, f_signbit, NULL, NULL},
    {"nextafter", {TN_TYPE_FLOAT, TN_TYPE_FLOAT, N}, TN_TYPE_FLOAT, TN_FUNC_EXACT, f_nextafterf, NULL, NULL},
    {"nextafter", {D, D, N}, D, 0, f_nextafter, NULL, NULL},
    {"roundbankers", {D, N}, D, 0, f_roundbankers, NULL, NULL},
    {"roundbankers", {D, B, N}, D, 0, f_roundbankers, NULL, NULL},
    {"round_even", {D, N}, D, 0, f_roundbankers, NULL, NULL},
    {"round_even", {D, B, N}, D, 0, f_roundbankers, NULL, NULL},
    {"gcd", {B, B, N}, B, 0, f_gcd, NULL, NULL},
    {"greatest_common_divisor", {B, B, N}, B, 0, f_gcd, NULL, NULL},
    {"lcm", {B, B, N}, B, 0, f_lcm, NULL, NULL},
    {"least_common_multiple", {B, B, N}, B, 0, f_lcm, NULL, NULL},
    {"factorial", {B, N}, B, 0, f_factorial, NULL, NULL},
    {"bit_length", {TN_TYPE_VARCHAR, N}, B, 0, f_bit_length, NULL, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
