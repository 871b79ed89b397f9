/*
 * sql/func_interval.c: INTERVAL functions with DuckDB's semantics: date/timestamp +/- interval
 * (months first, clamped to the month's last day, then days, then microseconds), timestamp -
 * timestamp (days and microseconds), interval arithmetic and comparison (a month counts 30 days
 * when comparing), to_years .. to_microseconds, and the text conversions the binder uses for
 * CAST(x AS INTERVAL) and CAST(interval AS VARCHAR) (func_cast.c does not know INTERVAL), and
 * __timestamp_round, which CAST(x AS TIMESTAMP(p)) with p < 6 adds after the cast.
 */
#include <math.h>
#include <string.h>

#include "sql/functions.h"

#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out
#define VALID(i) tn_vector_is_valid(out, i)
#define IV(k, i) (((const tn_interval *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define I64(k, i) (((const int64_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define I32(k, i) (((const int32_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define F64(k, i) (((const double *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define STR(k, i) (((const tn_str *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define US_PER_DAY 86400000000LL

static int range_error(void) { return tn_error_set(TN_ELIMIT, "Out of Range Error: timestamp out of range"); }

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static int days_in_month(int64_t y, unsigned m) {
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return d[m - 1];
}

/* ts (microseconds) + iv; false when the result leaves TIMESTAMP's range. The infinities stay
 * infinite (DuckDB). */
static bool ts_add(int64_t ts, tn_interval iv, int64_t *out) {
    if (!tn_ts_is_finite(ts)) {
        *out = ts;
        return true;
    }
    int64_t days = floor_div(ts, US_PER_DAY), tod = ts - days * US_PER_DAY;
    if (iv.months) {
        int64_t y;
        unsigned m, d;
        tn_civil_from_days(days, &y, &m, &d);
        int64_t mm = (int64_t)y * 12 + (m - 1) + iv.months;
        y = floor_div(mm, 12);
        m = (unsigned)(mm - y * 12) + 1;
        int dim = days_in_month(y, m);
        if ((int)d > dim) d = (unsigned)dim;
        days = tn_days_from_civil(y, m, d);
    }
    days += iv.days;
    tn_int128 r = (tn_int128)days * US_PER_DAY + tod + iv.micros;
    if (!tn_ts_in_range(r)) return false;
    *out = (int64_t)r;
    return true;
}

bool tn_func_timestamp_add(int64_t ts, tn_interval iv, int64_t *out) { return ts_add(ts, iv, out); }

static tn_interval iv_neg(tn_interval a) {
    tn_interval r = {-a.months, -a.days, -a.micros};
    return r;
}

/* ts - iv; the most negative parts cannot be negated, and no timestamp survives them anyway */
static bool ts_sub(int64_t ts, tn_interval iv, int64_t *out) {
    if (iv.months == INT32_MIN || iv.days == INT32_MIN || iv.micros == INT64_MIN) {
        if (tn_ts_is_finite(ts)) return false;
        *out = ts;
        return true;
    }
    return ts_add(ts, iv_neg(iv), out);
}

static int f_ts_add_iv(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++)
        if (VALID(i) && !ts_add(I64(0, i), IV(1, i), &r[i])) return range_error();
    return 0;
}
static int f_iv_add_ts(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++)
        if (VALID(i) && !ts_add(I64(1, i), IV(0, i), &r[i])) return range_error();
    return 0;
}
static int f_ts_sub_iv(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++)
        if (VALID(i) && !ts_sub(I64(0, i), IV(1, i), &r[i])) return range_error();
    return 0;
}
/* DATE as microseconds: the infinities map to TIMESTAMP's */
static int64_t date_us(int32_t d) {
    return tn_date_is_finite(d) ? (int64_t)d * US_PER_DAY : d > 0 ? TN_TS_INFINITY : -TN_TS_INFINITY;
}

static int f_date_add_iv(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++)
        if (VALID(i) && !ts_add(date_us(I32(0, i)), IV(1, i), &r[i])) return range_error();
    return 0;
}
static int f_iv_add_date(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++)
        if (VALID(i) && !ts_add(date_us(I32(1, i)), IV(0, i), &r[i])) return range_error();
    return 0;
}
static int f_date_sub_iv(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++)
        if (VALID(i) && !ts_sub(date_us(I32(0, i)), IV(1, i), &r[i])) return range_error();
    return 0;
}

/* timestamp - timestamp: whole days and the rest in microseconds (both with the sign). */
static int f_ts_sub_ts(FN_ARGS) {
    tn_interval *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        tn_int128 d = (tn_int128)I64(0, i) - I64(1, i);
        if (!VALID(i)) continue;
        if (!tn_ts_is_finite(I64(0, i)) || !tn_ts_is_finite(I64(1, i)))
            return tn_error_set(TN_EINVAL, "Cannot subtract infinite timestamps");
        tn_int128 days = d / US_PER_DAY;
        if (days > INT32_MAX || days < INT32_MIN) return range_error();
        r[i].months = 0;
        r[i].days = (int32_t)days;
        r[i].micros = (int64_t)(d - days * US_PER_DAY);
    }
    return 0;
}

static int iv_overflow(void) { return tn_error_set(TN_ELIMIT, "Out of Range Error: interval value is out of range"); }

static int iv_combine(FN_ARGS, int sign) {
    tn_interval *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        tn_interval a = IV(0, i), b = IV(1, i);
        int64_t m = (int64_t)a.months + sign * (int64_t)b.months, d = (int64_t)a.days + sign * (int64_t)b.days;
        tn_int128 us = (tn_int128)a.micros + sign * (tn_int128)b.micros;
        if (m > INT32_MAX || m < INT32_MIN || d > INT32_MAX || d < INT32_MIN || us > INT64_MAX || us < INT64_MIN)
            return iv_overflow();
        r[i].months = (int32_t)m;
        r[i].days = (int32_t)d;
        r[i].micros = (int64_t)us;
    }
    return 0;
}
static int f_iv_add(FN_ARGS) { return iv_combine(call, args, nargs, n, out, 1); }
static int f_iv_sub(FN_ARGS) { return iv_combine(call, args, nargs, n, out, -1); }

static int f_iv_neg(FN_ARGS) {
    tn_interval *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        tn_interval a = IV(0, i);
        if (VALID(i) && (a.months == INT32_MIN || a.days == INT32_MIN || a.micros == INT64_MIN)) return iv_overflow();
        r[i] = VALID(i) ? iv_neg(a) : a;
    }
    return 0;
}

static int iv_mul(tn_interval a, int64_t k, tn_interval *r) {
    tn_int128 m = (tn_int128)a.months * k, d = (tn_int128)a.days * k, us = (tn_int128)a.micros * k;
    if (m > INT32_MAX || m < INT32_MIN || d > INT32_MAX || d < INT32_MIN || us > INT64_MAX || us < INT64_MIN)
        return iv_overflow();
    r->months = (int32_t)m;
    r->days = (int32_t)d;
    r->micros = (int64_t)us;
    return 0;
}
static int f_iv_mul(FN_ARGS) {
    tn_interval *r = out->data;
    for (uint32_t i = 0; i < n; i++)
        if (VALID(i)) {
            int rc = iv_mul(IV(0, i), I64(1, i), &r[i]);
            if (rc) return rc;
        }
    return 0;
}
static int f_mul_iv(FN_ARGS) {
    tn_interval *r = out->data;
    for (uint32_t i = 0; i < n; i++)
        if (VALID(i)) {
            int rc = iv_mul(IV(1, i), I64(0, i), &r[i]);
            if (rc) return rc;
        }
    return 0;
}

/* Comparisons on the normalized length. */
static inline tn_int128 iv_key(tn_interval a) {
    return ((tn_int128)a.months * 30 + a.days) * US_PER_DAY + a.micros;
}
#define IV_CMP(NAME, OP)                                                       \
    static int NAME(FN_ARGS) {                                                 \
        uint8_t *r = out->data;                                                \
        for (uint32_t i = 0; i < n; i++) r[i] = iv_key(IV(0, i)) OP iv_key(IV(1, i)); \
        return 0;                                                              \
    }
IV_CMP(f_iv_eq, ==)
IV_CMP(f_iv_ne, !=)
IV_CMP(f_iv_lt, <)
IV_CMP(f_iv_le, <=)
IV_CMP(f_iv_gt, >)
IV_CMP(f_iv_ge, >=)

/* to_years(n) .. to_microseconds(n). */
static int to_part(FN_ARGS, int part, int64_t mul) {
    tn_interval *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        tn_int128 x = (tn_int128)I64(0, i) * mul;
        memset(&r[i], 0, sizeof r[i]);
        if (part == 0) {
            if (x > INT32_MAX || x < INT32_MIN) return iv_overflow();
            r[i].months = (int32_t)x;
        } else if (part == 1) {
            if (x > INT32_MAX || x < INT32_MIN) return iv_overflow();
            r[i].days = (int32_t)x;
        } else {
            if (x > INT64_MAX || x < INT64_MIN) return iv_overflow();
            r[i].micros = (int64_t)x;
        }
    }
    return 0;
}
static int f_to_years(FN_ARGS) { return to_part(call, args, nargs, n, out, 0, 12); }
static int f_to_months(FN_ARGS) { return to_part(call, args, nargs, n, out, 0, 1); }
static int f_to_weeks(FN_ARGS) { return to_part(call, args, nargs, n, out, 1, 7); }
static int f_to_days(FN_ARGS) { return to_part(call, args, nargs, n, out, 1, 1); }
static int f_to_hours(FN_ARGS) { return to_part(call, args, nargs, n, out, 2, 3600000000LL); }
static int f_to_minutes(FN_ARGS) { return to_part(call, args, nargs, n, out, 2, 60000000LL); }

/* Fractional seconds / milliseconds / microseconds (DOUBLE argument). */
static int to_frac(FN_ARGS, double mul) {
    tn_interval *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        double x = F64(0, i) * mul;
        if (!(x < 9.2e18 && x > -9.2e18)) return iv_overflow();
        memset(&r[i], 0, sizeof r[i]);
        r[i].micros = (int64_t)llround(x);
    }
    return 0;
}
static int f_to_seconds(FN_ARGS) { return to_frac(call, args, nargs, n, out, 1e6); }
static int f_to_millis(FN_ARGS) { return to_frac(call, args, nargs, n, out, 1e3); }
static int f_to_micros(FN_ARGS) { return to_frac(call, args, nargs, n, out, 1.0); }

/* CAST(x AS TIMESTAMP(p)), p in 0..5: the microseconds rounded to a multiple of unit = 10^(6-p),
 * half away from zero in epoch terms, as DuckDB's TIMESTAMP -> TIMESTAMP_S/_MS cast does
 * (1960-01-01 12:34:56.5 -> 12:34:56). Past the largest timestamp is an error. */
static int f_ts_round(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        int64_t v = I64(0, i), unit = I64(1, i), x;
        if (unit <= 1) { r[i] = v; continue; }
        if (__builtin_add_overflow(v, v < 0 ? -(unit / 2) : unit / 2, &x)) return range_error();
        r[i] = x / unit * unit;
    }
    return 0;
}

/* Text conversions (CAST). */
static int f_text_to_iv(FN_ARGS) {
    tn_interval *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        tn_str s = STR(0, i);
        int rc = tn_parse_interval(s.ptr, s.len, &r[i]);
        if (rc) return rc;
    }
    return 0;
}
static int f_iv_to_text(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) {
            tn_func_str_empty(out, i);
            continue;
        }
        char buf[TN_FORMAT_BUF_SIZE * 2];
        int len = tn_format_interval(buf, sizeof buf, IV(0, i));
        int rc = tn_vector_set_str(out, i, buf, (size_t)(len < 0 ? 0 : len));
        if (rc) return rc;
    }
    return 0;
}

/* epoch(interval): its length in seconds, a month counting 30 days (DuckDB). */
static int f_iv_epoch(FN_ARGS) {
    double *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        tn_interval a = IV(0, i);
        r[i] = ((double)a.months * 30 + a.days) * 86400.0 + (double)a.micros / 1e6;
    }
    return 0;
}

#define N TN_SIG_NONE
#define T_(x) TN_TYPE_##x
#define IVT TN_TYPE_INTERVAL

const tn_func_def tn_funcs_interval[] = {
    {"+", {T_(TIMESTAMP), IVT, N}, T_(TIMESTAMP), 0, f_ts_add_iv, NULL, NULL},
    {"+", {IVT, T_(TIMESTAMP), N}, T_(TIMESTAMP), 0, f_iv_add_ts, NULL, NULL},
    {"+", {T_(DATE), IVT, N}, T_(TIMESTAMP), 0, f_date_add_iv, NULL, NULL},
    {"+", {IVT, T_(DATE), N}, T_(TIMESTAMP), 0, f_iv_add_date, NULL, NULL},
    {"+", {T_(TIMESTAMP_TZ), IVT, N}, T_(TIMESTAMP_TZ), 0, f_ts_add_iv, NULL, NULL},
    {"+", {IVT, IVT, N}, IVT, 0, f_iv_add, NULL, NULL},
    {"-", {T_(TIMESTAMP), IVT, N}, T_(TIMESTAMP), 0, f_ts_sub_iv, NULL, NULL},
    {"-", {T_(DATE), IVT, N}, T_(TIMESTAMP), 0, f_date_sub_iv, NULL, NULL},
    {"-", {T_(TIMESTAMP_TZ), IVT, N}, T_(TIMESTAMP_TZ), 0, f_ts_sub_iv, NULL, NULL},
    {"-", {IVT, IVT, N}, IVT, 0, f_iv_sub, NULL, NULL},
    {"-", {T_(TIMESTAMP), T_(TIMESTAMP), N}, IVT, 0, f_ts_sub_ts, NULL, NULL},
    {"-", {T_(TIMESTAMP_TZ), T_(TIMESTAMP_TZ), N}, IVT, 0, f_ts_sub_ts, NULL, NULL},
    {"-", {IVT, N}, IVT, 0, f_iv_neg, NULL, NULL},
    {"*", {IVT, T_(BIGINT), N}, IVT, 0, f_iv_mul, NULL, NULL},
    {"*", {T_(BIGINT), IVT, N}, IVT, 0, f_mul_iv, NULL, NULL},
    {"=", {IVT, IVT, N}, T_(BOOLEAN), 0, f_iv_eq, NULL, NULL},
    {"<>", {IVT, IVT, N}, T_(BOOLEAN), 0, f_iv_ne, NULL, NULL},
    {"<", {IVT, IVT, N}, T_(BOOLEAN), 0, f_iv_lt, NULL, NULL},
    {"<=", {IVT, IVT, N}, T_(BOOLEAN), 0, f_iv_le, NULL, NULL},
    {">", {IVT, IVT, N}, T_(BOOLEAN), 0, f_iv_gt, NULL, NULL},
    {">=", {IVT, IVT, N}, T_(BOOLEAN), 0, f_iv_ge, NULL, NULL},
    {"to_years", {T_(BIGINT), N}, IVT, 0, f_to_years, NULL, NULL},
    {"to_months", {T_(BIGINT), N}, IVT, 0, f_to_months, NULL, NULL},
    {"to_weeks", {T_(BIGINT), N}, IVT, 0, f_to_weeks, NULL, NULL},
    {"to_days", {T_(BIGINT), N}, IVT, 0, f_to_days, NULL, NULL},
    {"to_hours", {T_(BIGINT), N}, IVT, 0, f_to_hours, NULL, NULL},
    {"to_minutes", {T_(BIGINT), N}, IVT, 0, f_to_minutes, NULL, NULL},
    {"to_seconds", {T_(DOUBLE), N}, IVT, 0, f_to_seconds, NULL, NULL},
    {"to_milliseconds", {T_(DOUBLE), N}, IVT, 0, f_to_millis, NULL, NULL},
    {"to_microseconds", {T_(DOUBLE), N}, IVT, 0, f_to_micros, NULL, NULL},
    {"epoch", {IVT, N}, T_(DOUBLE), 0, f_iv_epoch, NULL, NULL},
    {"__timestamp_round", {T_(TIMESTAMP), T_(BIGINT), N}, T_(TIMESTAMP), 0, f_ts_round, NULL, NULL},
    {"__cast_to_interval", {T_(VARCHAR), N}, IVT, 0, f_text_to_iv, NULL, NULL},
    {"__cast_interval_to_varchar", {IVT, N}, T_(VARCHAR), 0, f_iv_to_text, NULL, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
