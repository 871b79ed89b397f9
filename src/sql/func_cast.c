/*
 * sql/func_cast.c: CAST and TRY_CAST between all tarn types with DuckDB's semantics and error
 * texts: string -> every type (trimmed; integers accept '1.5', '1e3', '0x1F', '1_000'),
 * every type -> VARCHAR via tn_value_format, numeric <-> numeric with range checks (DOUBLE ->
 * integer rounds half to even, DECIMAL -> integer half away from zero), DATE/TIMESTAMP(TZ).
 */
#include "sql/functions.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tn_cast_type_name(tn_type t) {
    switch (t.id) {
    case TN_TYPE_BOOLEAN: return "BOOL";
    case TN_TYPE_TINYINT: return "INT8";
    case TN_TYPE_SMALLINT: return "INT16";
    case TN_TYPE_INTEGER: return "INT32";
    case TN_TYPE_BIGINT: return "INT64";
    case TN_TYPE_FLOAT: return "FLOAT";
    case TN_TYPE_DOUBLE: return "DOUBLE";
    case TN_TYPE_VARBINARY: return "BLOB";
    default: return tn_type_id_name((tn_type_id)t.id);
    }
}

bool tn_cast_supported(tn_type from, tn_type to) {
    if (from.id == TN_TYPE_NULL || tn_type_equal(from, to)) return true;
    if (tn_type_is_nested(from) || tn_type_is_nested(to)) {
        if (to.id == TN_TYPE_VARCHAR) return true;
        if (from.id != to.id || from.nested->nchildren != to.nested->nchildren) return false;
        for (uint32_t i = 0; i < from.nested->nchildren; i++)
            if (!tn_cast_supported(from.nested->children[i], to.nested->children[i])) return false;
        return true;
    }
    if (to.id == TN_TYPE_VARCHAR || from.id == TN_TYPE_VARCHAR) return to.id != TN_TYPE_NULL;
    bool fn = tn_type_is_numeric(from) || from.id == TN_TYPE_BOOLEAN;
    bool tnum = tn_type_is_numeric(to) || to.id == TN_TYPE_BOOLEAN;
    if (fn && tnum) return true;
    bool fdt = from.id == TN_TYPE_DATE || from.id == TN_TYPE_TIMESTAMP || from.id == TN_TYPE_TIMESTAMP_TZ;
    bool tdt = to.id == TN_TYPE_DATE || to.id == TN_TYPE_TIMESTAMP || to.id == TN_TYPE_TIMESTAMP_TZ;
    if (fdt && tdt) return true;
    return false;
}

/* ---------------------------------------------------------------------------------------------
 * String parsing.
 */
static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static void trim(const char **s, size_t *n) {
    while (*n && is_space(**s)) (*s)++, (*n)--;
    while (*n && is_space((*s)[*n - 1])) (*n)--;
}

/* Parse a decimal number "[+-]digits[.digits][e[+-]digits]" (with '_' between digits) into an
 * integer scaled by 10^scale, rounding half away from zero. Returns false on bad syntax or
 * when |value| >= 10^maxdigits (maxdigits <= 38). */
static bool parse_scaled(const char *s, size_t n, int scale, int maxdigits, tn_int128 *out) {
    trim(&s, &n);
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    /* collect significant digits and the decimal exponent */
    char digits[80];
    int nd = 0, exp10 = 0;
    bool any = false, dot = false, dropped_nonzero = false;
    int first_dropped = -1;
    for (; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            any = true;
            if (nd == 0 && c == '0') {
                if (dot) exp10--;
                continue;
            }
            if (nd < 60) {
                digits[nd++] = c;
                if (dot) exp10--;
            } else {
                if (first_dropped < 0) first_dropped = c - '0';
                else if (c != '0') dropped_nonzero = true;
                if (!dot) exp10++;
            }
        } else if (c == '.' && !dot) {
            dot = true;
        } else if (c == '_' && any && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9' && !dot) {
            continue;
        } else {
            break;
        }
    }
    if (!any) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        if (i >= n || s[i] < '0' || s[i] > '9') return false;
        int e = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 100000) e = e * 10 + (s[i] - '0');
        exp10 += eneg ? -e : e;
    }
    if (i != n) return false;
    /* value = digits * 10^(exp10); we want round(value * 10^scale) */
    int shift = exp10 + scale;
    tn_int128 v = 0;
    tn_int128 limit = tn_pow10_i128[maxdigits];
    if (nd == 0) {
        *out = 0;
        return true;
    }
    if (shift >= 0) {
        if (nd + shift > maxdigits) return false;
        for (int k = 0; k < nd; k++) v = v * 10 + (digits[k] - '0');
        v *= tn_pow10_i128[shift];
    } else {
        int keep = nd + shift; /* digits before the rounding point */
        if (keep > maxdigits) return false;
        for (int k = 0; k < keep; k++) v = v * 10 + (digits[k] - '0');
        int rdigit = keep >= 0 ? digits[keep] - '0' : 0;
        if (keep < 0) rdigit = 0;
        if (rdigit >= 5) v += 1;
        (void)dropped_nonzero;
        (void)first_dropped;
    }
    if (v >= limit) return false;
    *out = neg ? -v : v;
    return true;
}

static bool parse_int(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *out) {
    const char *p = s;
    size_t m = n;
    trim(&p, &m);
    if (m > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        uint64_t v = 0;
        for (size_t i = 2; i < m; i++) {
            int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                      : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0 || v > (UINT64_MAX >> 4)) return false;
            v = v * 16 + (uint64_t)d;
        }
        if (v > (uint64_t)hi) return false;
        *out = (int64_t)v;
        return true;
    }
    tn_int128 v;
    if (!parse_scaled(p, m, 0, 38, &v)) return false;
    if (v < lo || v > hi) return false;
    *out = (int64_t)v;
    return true;
}

static bool parse_double(const char *s, size_t n, double *out) {
    trim(&s, &n);
    if (n == 0 || n > 400) return false;
    char buf[408];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '_') continue;
        buf[k++] = s[i];
    }
    buf[k] = 0;
    if (k >= 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) return false;
    if (k >= 3 && (buf[0] == '+' || buf[0] == '-') && buf[1] == '0' && (buf[2] == 'x' || buf[2] == 'X')) return false;
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    if (end != buf + k || end == buf) return false;
    *out = d;
    return true;
}

static bool parse_bool(const char *s, size_t n, bool *out) {
    trim(&s, &n);
    static const char *t[] = {"true", "t", "yes", "y", "1"}, *f[] = {"false", "f", "no", "n", "0"};
    for (int i = 0; i < 5; i++) {
        if (tn_str_iequal_n(s, n, t[i])) return *out = true, true;
        if (tn_str_iequal_n(s, n, f[i])) return *out = false, true;
    }
    return false;
}

static int days_in_month(int64_t y, unsigned m) {
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : d[m - 1];
}

static int digits(const char *s, size_t n, size_t *i, int maxd, int64_t *out) {
    int k = 0;
    int64_t v = 0;
    while (*i < n && k < maxd && s[*i] >= '0' && s[*i] <= '9') v = v * 10 + (s[(*i)++] - '0'), k++;
    *out = v;
    return k;
}

/* Date part: [-]Y+-M-D. Returns 0 ok, 1 bad format, 2 out of range. */
static int parse_date_part(const char *s, size_t n, size_t *i, int32_t *days) {
    int64_t y, m, d;
    bool neg = false;
    if (*i < n && s[*i] == '-') neg = true, (*i)++;
    if (digits(s, n, i, 7, &y) == 0) return 1;
    if (*i >= n || (s[*i] != '-' && s[*i] != '/')) return 1;
    char sep = s[(*i)++];
    if (digits(s, n, i, 2, &m) == 0) return 1;
    if (*i >= n || s[*i] != sep) return 1;
    (*i)++;
    if (digits(s, n, i, 2, &d) == 0) return 1;
    if (neg) y = -y;
    /* " (BC)" suffix */
    if (*i + 5 <= n && tn_str_iequal_n(s + *i, 5, " (BC)")) {
        y = 1 - y;
        *i += 5;
    }
    if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, (unsigned)m)) return 2;
    /* DuckDB's DATE range, 5877642-06-25 (BC) .. 5881580-07-10: outside it is an error (NULL for
     * TRY_CAST), never a wrapped day count */
    int64_t md = m * 100 + d;
    if (y > 5881580 || (y == 5881580 && md > 710) || y < -5877641 || (y == -5877641 && md < 625)) return 2;
    *days = tn_days_from_civil(y, (unsigned)m, (unsigned)d);
    return 0;
}

static int parse_time_part(const char *s, size_t n, size_t *i, int64_t *micros, int64_t *offset_us,
                           bool *had_zone);

int tn_parse_date(const char *s, size_t n, int32_t *out) {
    int sp = tn_text_datetime_special(s, n);
    if (sp) {
        *out = sp == 2 ? 0 : sp * TN_DATE_INFINITY;
        return 0;
    }
    trim(&s, &n);
    size_t i = 0;
    int rc = parse_date_part(s, n, &i, out);
    if (rc) return rc == 1 ? TN_EINVAL : TN_ELIMIT;
    if (i == n) return 0;
    /* a time part may follow and is ignored (DuckDB accepts timestamps as dates) */
    int64_t micros, off;
    bool zone;
    int trc = parse_time_part(s, n, &i, &micros, &off, &zone);
    if (trc == 0 && i == n) return 0;
    return trc == 2 ? TN_ELIMIT : TN_EINVAL;
}

/* Time and zone after the date. Returns 0 ok, 1 format, 2 range; *offset_us = zone offset. */
static int parse_time_part(const char *s, size_t n, size_t *i, int64_t *micros, int64_t *offset_us,
                           bool *had_zone) {
    int64_t h = 0, mi = 0, sec = 0, frac = 0;
    *micros = 0;
    *offset_us = 0;
    *had_zone = false;
    if (*i == n) return 0;
    if (s[*i] != ' ' && s[*i] != 'T') return 1;
    (*i)++;
    while (*i < n && s[*i] == ' ') (*i)++;
    if (digits(s, n, i, 2, &h) == 0) return 1;
    if (*i >= n || s[*i] != ':') return 1;
    (*i)++;
    if (digits(s, n, i, 2, &mi) != 2) return 1;
    if (*i < n && s[*i] == ':') {
        (*i)++;
        if (digits(s, n, i, 2, &sec) != 2) return 1;
        if (*i < n && s[*i] == '.') {
            (*i)++;
            int k = 0;
            while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
                if (k < 6) frac = frac * 10 + (s[*i] - '0');
                k++;
                (*i)++;
            }
            if (k == 0) return 1;
            for (; k < 6; k++) frac *= 10;
        }
    }
    while (*i < n && s[*i] == ' ') (*i)++;
    if (*i < n) {
        if (s[*i] == 'Z' || s[*i] == 'z') {
            (*i)++;
            *had_zone = true;
        } else if (s[*i] == '+' || s[*i] == '-') {
            int sign = s[*i] == '-' ? -1 : 1;
            int64_t oh = 0, om = 0, os = 0;
            (*i)++;
            if (digits(s, n, i, 2, &oh) == 0) return 1;
            if (*i < n && s[*i] == ':') (*i)++;
            digits(s, n, i, 2, &om);
            if (*i < n && s[*i] == ':') {
                (*i)++;
                digits(s, n, i, 2, &os);
            }
            *offset_us = sign * ((oh * 3600 + om * 60 + os) * 1000000);
            *had_zone = true;
        } else if (n - *i == 3 && tn_str_iequal_n(s + *i, 3, "UTC")) {
            *i += 3;
            *had_zone = true;
        } else if (n - *i == 3 && tn_str_iequal_n(s + *i, 3, "GMT")) {
            *i += 3;
            *had_zone = true;
        }
    }
    if (h > 24 || mi > 59 || sec > 60 || (h == 24 && (mi || sec || frac))) return 2;
    *micros = ((h * 60 + mi) * 60 + sec) * 1000000 + frac;
    return 0;
}

static int parse_ts_full(const char *s, size_t n, int64_t *out, int64_t *offset, bool *had_zone) {
    int sp = tn_text_datetime_special(s, n);
    if (sp) {
        *out = sp == 2 ? 0 : sp * TN_TS_INFINITY;
        *offset = 0;
        *had_zone = false;
        return 0;
    }
    trim(&s, &n);
    size_t i = 0;
    int32_t days;
    int rc = parse_date_part(s, n, &i, &days);
    if (rc) return rc;
    int64_t micros;
    rc = parse_time_part(s, n, &i, &micros, offset, had_zone);
    if (rc) return rc;
    if (i != n) return 1;
    /* in 128 bits: a 7-digit year passes INT64's range in microseconds */
    tn_int128 us = (tn_int128)days * 86400000000LL + micros;
    if (!tn_ts_in_range(us) || !tn_ts_in_range(us - *offset)) return 2;
    *out = (int64_t)us;
    return 0;
}

int tn_parse_timestamp(const char *s, size_t n, int64_t *out, bool *had_zone) {
    int64_t off;
    int rc = parse_ts_full(s, n, out, &off, had_zone);
    return rc == 0 ? 0 : rc == 1 ? TN_EINVAL : TN_ELIMIT;
}

static int hexval(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* ---------------------------------------------------------------------------------------------
 * Vector casts.
 */
typedef struct cast_ctx {
    const tn_vector *src;
    tn_vector *out;
    bool try_cast;
    tn_buf text;
} cast_ctx;

static int fail_string(cast_ctx *c, uint32_t i, tn_str s, const char *what) {
    if (c->try_cast) return tn_vector_set_null(c->out, i);
    return tn_error_set(TN_EINVAL, "Conversion Error: Could not convert string '%.*s' to %s", (int)(s.len > 200 ? 200 : s.len),
                        s.ptr, what);
}

static int fail_range(cast_ctx *c, uint32_t i, const char *value) {
    if (c->try_cast) return tn_vector_set_null(c->out, i);
    char tb[64];
    const char *tname = c->out->type.id == TN_TYPE_DECIMAL ? tn_type_format(c->out->type, tb, sizeof tb)
                                                           : tn_cast_type_name(c->out->type);
    return tn_error_set(TN_ELIMIT,
                        "Conversion Error: Type %s with value %s can't be cast because the value is out of range for the "
                        "destination type %s",
                        c->src->type.id == TN_TYPE_DECIMAL ? "DECIMAL" : tn_cast_type_name(c->src->type),
                        value, tname);
}

static void int_range(tn_type t, int64_t *lo, int64_t *hi) {
    switch (t.id) {
    case TN_TYPE_TINYINT: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case TN_TYPE_SMALLINT: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case TN_TYPE_INTEGER: *lo = INT32_MIN, *hi = INT32_MAX; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX; break;
    }
}

static void put_int(tn_vector *v, uint32_t i, int64_t x) {
    switch (v->type.id) {
    case TN_TYPE_BOOLEAN: ((uint8_t *)v->data)[i] = x != 0; break;
    case TN_TYPE_TINYINT: ((int8_t *)v->data)[i] = (int8_t)x; break;
    case TN_TYPE_SMALLINT: ((int16_t *)v->data)[i] = (int16_t)x; break;
    case TN_TYPE_INTEGER:
    case TN_TYPE_DATE: ((int32_t *)v->data)[i] = (int32_t)x; break;
    default: ((int64_t *)v->data)[i] = x; break;
    }
}

/* Source value classes. */
enum { SRC_INT, SRC_DBL, SRC_DEC };

static int64_t get_int(const tn_vector *v, uint32_t i) {
    switch (v->type.id) {
    case TN_TYPE_BOOLEAN: return ((const uint8_t *)v->data)[i] != 0;
    case TN_TYPE_TINYINT: return ((const int8_t *)v->data)[i];
    case TN_TYPE_SMALLINT: return ((const int16_t *)v->data)[i];
    case TN_TYPE_INTEGER:
    case TN_TYPE_DATE: return ((const int32_t *)v->data)[i];
    default: return ((const int64_t *)v->data)[i];
    }
}

static double get_dbl(const tn_vector *v, uint32_t i) {
    return v->type.id == TN_TYPE_FLOAT ? (double)((const float *)v->data)[i] : ((const double *)v->data)[i];
}

/* Divide by 10^k rounding half away from zero. */
static tn_int128 div_round(tn_int128 v, int k) {
    if (k <= 0) return v;
    tn_int128 p = tn_pow10_i128[k], q = v / p, r = v % p;
    if (r < 0) r = -r;
    if (r * 2 >= p) q += v < 0 ? -1 : 1;
    return q;
}

static int cast_numeric(cast_ctx *c, uint32_t n) {
    const tn_vector *src = c->src;
    tn_vector *out = c->out;
    int cls = src->type.id == TN_TYPE_FLOAT || src->type.id == TN_TYPE_DOUBLE ? SRC_DBL
              : src->type.id == TN_TYPE_DECIMAL                                ? SRC_DEC
                                                                               : SRC_INT;
    char vb[128];
    int rc = 0;
    uint8_t to = out->type.id;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        if (!tn_vector_is_valid(src, i)) continue;
        if (to == TN_TYPE_BOOLEAN) {
            bool b = cls == SRC_INT ? get_int(src, i) != 0 : cls == SRC_DBL ? get_dbl(src, i) != 0 : tn_dec_get(src, i) != 0;
            ((uint8_t *)out->data)[i] = b;
        } else if (tn_type_is_integer(out->type)) {
            int64_t lo, hi, x = 0;
            int_range(out->type, &lo, &hi);
            if (cls == SRC_INT) {
                x = get_int(src, i);
                if (x < lo || x > hi) {
                    snprintf(vb, sizeof vb, "%lld", (long long)x);
                    rc = fail_range(c, i, vb);
                    continue;
                }
            } else if (cls == SRC_DBL) {
                double d = nearbyint(get_dbl(src, i));
                if (!(d >= (double)lo && d < -(double)lo)) {
                    tn_format_double(vb, sizeof vb, get_dbl(src, i));
                    rc = fail_range(c, i, vb);
                    continue;
                }
                x = (int64_t)d;
                if (x < lo || x > hi) {
                    tn_format_double(vb, sizeof vb, get_dbl(src, i));
                    rc = fail_range(c, i, vb);
                    continue;
                }
            } else {
                tn_int128 v = div_round(tn_dec_get(src, i), src->type.scale);
                if (v < lo || v > hi) {
                    tn_format_decimal(vb, sizeof vb, tn_dec_get(src, i), src->type.scale);
                    rc = fail_range(c, i, vb);
                    continue;
                }
                x = (int64_t)v;
            }
            put_int(out, i, x);
        } else if (to == TN_TYPE_FLOAT || to == TN_TYPE_DOUBLE) {
            /* each source rounds once to the target: a DECIMAL through its exact digits, a
             * BIGINT straight to FLOAT (not through DOUBLE, which would round twice) */
            double d = cls == SRC_INT ? (double)get_int(src, i)
                       : cls == SRC_DBL ? get_dbl(src, i)
                                        : tn_decimal_to_double(tn_dec_get(src, i), src->type.scale);
            if (to == TN_TYPE_FLOAT) {
                if (isfinite(d) && fabs(d) > FLT_MAX) {
                    tn_format_double(vb, sizeof vb, d);
                    rc = fail_range(c, i, vb);
                    continue;
                }
                ((float *)out->data)[i] = cls == SRC_INT ? (float)get_int(src, i)
                                          : cls == SRC_DEC ? tn_decimal_to_float(tn_dec_get(src, i), src->type.scale)
                                                           : (float)d;
            } else {
                ((double *)out->data)[i] = d;
            }
        } else if (to == TN_TYPE_DECIMAL) {
            int p = out->type.precision, s = out->type.scale;
            tn_int128 lim = tn_pow10_i128[p], v = 0;
            bool ok = true;
            if (cls == SRC_INT) {
                v = get_int(src, i);
                ok = !__builtin_mul_overflow(v, tn_pow10_i128[s], &v) && v < lim && v > -lim;
                if (!ok && !c->try_cast) {
                    char tb[64];
                    rc = tn_error_set(TN_ELIMIT, "Conversion Error: Could not cast value %lld to %s", (long long)get_int(src, i),
                                      tn_type_format(out->type, tb, sizeof tb));
                    continue;
                }
            } else if (cls == SRC_DBL) {
                double d = get_dbl(src, i) * (double)tn_pow10_i128[s];
                d = round(d);
                ok = isfinite(d) && fabs(d) < (double)lim;
                if (ok) v = (tn_int128)d;
                if (!ok && !c->try_cast) {
                    char tb[64];
                    rc = tn_error_set(TN_ELIMIT, "Conversion Error: Could not cast value %f to %s", get_dbl(src, i),
                                      tn_type_format(out->type, tb, sizeof tb));
                    continue;
                }
            } else {
                int ss = src->type.scale;
                v = tn_dec_get(src, i);
                if (s >= ss) ok = !__builtin_mul_overflow(v, tn_pow10_i128[s - ss], &v);
                else v = div_round(v, ss - s);
                ok = ok && v < lim && v > -lim;
                if (!ok && !c->try_cast) {
                    char tb[64];
                    tn_format_decimal(vb, sizeof vb, tn_dec_get(src, i), ss);
                    rc = tn_error_set(TN_ELIMIT, "Conversion Error: Casting value \"%s\" to type %s failed: value is out of range!",
                                      vb, tn_type_format(out->type, tb, sizeof tb));
                    continue;
                }
            }
            if (!ok) {
                rc = tn_vector_set_null(out, i);
                continue;
            }
            tn_dec_put(out, i, v);
        }
    }
    return rc;
}

static int cast_from_string(cast_ctx *c, uint32_t n) {
    const tn_vector *src = c->src;
    tn_vector *out = c->out;
    const tn_str *ss = src->data;
    int rc = 0;
    char tb[64];
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        if (!tn_vector_is_valid(src, i)) continue;
        tn_str s = ss[i];
        switch (out->type.id) {
        case TN_TYPE_BOOLEAN: {
            bool b;
            if (!parse_bool(s.ptr, s.len, &b)) rc = fail_string(c, i, s, "BOOL");
            else ((uint8_t *)out->data)[i] = b;
            break;
        }
        case TN_TYPE_TINYINT:
        case TN_TYPE_SMALLINT:
        case TN_TYPE_INTEGER:
        case TN_TYPE_BIGINT: {
            int64_t lo, hi, x;
            int_range(out->type, &lo, &hi);
            if (!parse_int(s.ptr, s.len, lo, hi, &x)) rc = fail_string(c, i, s, tn_cast_type_name(out->type));
            else put_int(out, i, x);
            break;
        }
        case TN_TYPE_FLOAT:
        case TN_TYPE_DOUBLE: {
            double d;
            if (!parse_double(s.ptr, s.len, &d) ||
                (out->type.id == TN_TYPE_FLOAT && isfinite(d) && fabs(d) > FLT_MAX))
                rc = fail_string(c, i, s, tn_cast_type_name(out->type));
            else if (out->type.id == TN_TYPE_FLOAT) ((float *)out->data)[i] = (float)d;
            else ((double *)out->data)[i] = d;
            break;
        }
        case TN_TYPE_DECIMAL: {
            tn_int128 v;
            if (!parse_scaled(s.ptr, s.len, out->type.scale, out->type.precision, &v)) {
                if (c->try_cast) rc = tn_vector_set_null(out, i);
                else
                    rc = tn_error_set(TN_EINVAL, "Conversion Error: Could not convert string \"%.*s\" to %s",
                                      (int)(s.len > 200 ? 200 : s.len), s.ptr,
                                      tn_type_format(out->type, tb, sizeof tb));
            } else {
                tn_dec_put(out, i, v);
            }
            break;
        }
        case TN_TYPE_DATE: {
            int32_t d;
            int prc = tn_parse_date(s.ptr, s.len, &d);
            if (prc == 0) ((int32_t *)out->data)[i] = d;
            else if (c->try_cast) rc = tn_vector_set_null(out, i);
            else if (prc == TN_ELIMIT)
                rc = tn_error_set(TN_EINVAL, "Conversion Error: date field value out of range: \"%.*s\"", (int)(s.len > 200 ? 200 : s.len), s.ptr);
            else
                rc = tn_error_set(TN_EINVAL, "Conversion Error: invalid date field format: \"%.*s\", expected format is (YYYY-MM-DD)",
                                  (int)(s.len > 200 ? 200 : s.len), s.ptr);
            break;
        }
        case TN_TYPE_TIMESTAMP:
        case TN_TYPE_TIMESTAMP_TZ: {
            int64_t ts, off;
            bool zone;
            int prc = parse_ts_full(s.ptr, s.len, &ts, &off, &zone);
            if (prc == 0) ((int64_t *)out->data)[i] = out->type.id == TN_TYPE_TIMESTAMP_TZ ? ts - off : ts;
            else if (c->try_cast) rc = tn_vector_set_null(out, i);
            else if (prc == 2)
                rc = tn_error_set(TN_EINVAL, "Conversion Error: timestamp field value out of range: \"%.*s\"",
                                  (int)(s.len > 200 ? 200 : s.len), s.ptr);
            else
                rc = tn_error_set(TN_EINVAL,
                                  "Conversion Error: invalid timestamp field format: \"%.*s\", expected format is "
                                  "(YYYY-MM-DD HH:MM:SS[.US][±HH[:MM[:SS]]| ZONE])",
                                  (int)(s.len > 200 ? 200 : s.len), s.ptr);
            break;
        }
        case TN_TYPE_VARBINARY: {
            /* '\xNN' escapes become bytes. A string that is only '\x' and an even number of hex
             * digits other than 2 is PostgreSQL's bytea hex format ('\x0001ff', '\x' empty), as
             * PostgreSQL clients send it (psycopg2 adapts bytes so); it means the same bytes. */
            tn_buf_clear(&c->text);
            bool bad = false;
            bool pg_hex = s.len >= 2 && s.len != 4 && s.len % 2 == 0 && s.ptr[0] == '\\' && s.ptr[1] == 'x';
            for (uint32_t k = 2; pg_hex && k < s.len; k++) pg_hex = hexval(s.ptr[k]) >= 0;
            if (pg_hex) {
                for (uint32_t k = 2; k < s.len; k += 2)
                    if (tn_buf_append_byte(&c->text, (uint8_t)(hexval(s.ptr[k]) * 16 + hexval(s.ptr[k + 1])))) return TN_ENOMEM;
                rc = tn_vector_set_str(out, i, (const char *)c->text.data, c->text.len);
                break;
            }
            for (uint32_t k = 0; k < s.len && !bad; k++) {
                if (s.ptr[k] == '\\' && k + 3 < s.len + 0 && (s.ptr[k + 1] == 'x' || s.ptr[k + 1] == 'X')) {
                    int h = hexval(s.ptr[k + 2]), l = hexval(s.ptr[k + 3]);
                    if (h < 0 || l < 0) bad = true;
                    else if (tn_buf_append_byte(&c->text, (uint8_t)(h * 16 + l))) return TN_ENOMEM;
                    k += 3;
                } else if (s.ptr[k] == '\\') {
                    bad = true;
                } else if (tn_buf_append_byte(&c->text, (uint8_t)s.ptr[k])) {
                    return TN_ENOMEM;
                }
            }
            if (bad) {
                if (c->try_cast) rc = tn_vector_set_null(out, i);
                else rc = tn_error_set(TN_EINVAL, "Conversion Error: Invalid hex escape code encountered in string -> blob conversion of string \"%.*s\"",
                                       (int)(s.len > 200 ? 200 : s.len), s.ptr);
            } else {
                rc = tn_vector_set_str(out, i, (const char *)c->text.data, c->text.len);
            }
            break;
        }
        default: rc = tn_error_set(TN_EUNSUPPORTED, "cast from VARCHAR to %s", tn_type_format(out->type, tb, sizeof tb));
        }
        /* the value that did not convert: a file scan below names its file and line */
        if (rc && rc != TN_ENOMEM && rc != TN_EUNSUPPORTED) tn_error_note_value(s.ptr, s.len);
    }
    return rc;
}

static int cast_to_string(cast_ctx *c, uint32_t n) {
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        if (!tn_vector_is_valid(c->src, i)) {
            tn_func_str_empty(c->out, i);
            continue;
        }
        if (c->src->type.id == TN_TYPE_VARCHAR || c->src->type.id == TN_TYPE_VARBINARY) {
            if (c->out->type.id == c->src->type.id || c->src->type.id == TN_TYPE_VARCHAR) {
                const tn_str *s = (const tn_str *)c->src->data + i;
                rc = tn_vector_set_str(c->out, i, s->ptr, s->len);
                continue;
            }
        }
        tn_buf_clear(&c->text);
        rc = tn_value_format(&c->text, c->src, i);
        if (rc == 1) rc = 0;
        if (!rc) rc = tn_vector_set_str(c->out, i, c->text.data ? (const char *)c->text.data : "", c->text.len);
    }
    return rc;
}

static int cast_datetime(cast_ctx *c, uint32_t n) {
    uint8_t from = c->src->type.id, to = c->out->type.id;
    for (uint32_t i = 0; i < n; i++) {
        int64_t v = get_int(c->src, i);
        if (from == TN_TYPE_DATE) {
            int64_t us;
            if (!tn_date_is_finite((int32_t)v)) {   /* the infinities stay infinite */
                ((int64_t *)c->out->data)[i] = v > 0 ? TN_TS_INFINITY : -TN_TS_INFINITY;
                continue;
            }
            if (v < TN_TS_MIN_DAYS || v > TN_TS_MAX_DAYS) {   /* beyond TIMESTAMP's range */
                if (!tn_vector_is_valid(c->src, i)) continue;
                if (c->try_cast) {
                    int rc = tn_vector_set_null(c->out, i);
                    if (rc) return rc;
                    continue;
                }
                char db[40];
                tn_buf t = TN_BUF_INIT;
                tn_value dv;
                tn_vector_get_value(c->src, i, &dv);
                tn_value_to_text(&t, &dv);
                snprintf(db, sizeof db, "%.*s", (int)t.len, t.data ? (const char *)t.data : "");
                tn_buf_free(&t);
                return tn_error_set(TN_ELIMIT, "Conversion Error: Type DATE with value %s can't be cast to the destination type TIMESTAMP", db);
            }
            us = v * 86400000000LL;
            ((int64_t *)c->out->data)[i] = us;
        } else if (to == TN_TYPE_DATE) {
            if (!tn_ts_is_finite(v)) {
                ((int32_t *)c->out->data)[i] = v > 0 ? TN_DATE_INFINITY : -TN_DATE_INFINITY;
                continue;
            }
            int64_t d = v / 86400000000LL;
            if (v % 86400000000LL < 0) d--;
            ((int32_t *)c->out->data)[i] = (int32_t)d;
        } else {
            ((int64_t *)c->out->data)[i] = v;
        }
    }
    return 0;
}

/* LIST -> LIST, MAP -> MAP, STRUCT -> STRUCT of as many fields (by position, as DuckDB's
 * unnamed cast): the same entries and validity, each child cast. */
static int cast_nested(const tn_vector *src, tn_vector *out, bool try_cast) {
    if (src->type.id != out->type.id || src->type.nested->nchildren != out->type.nested->nchildren) {
        char a[128], b[128];
        return tn_error_set(TN_EUNSUPPORTED, "Unimplemented type for cast (%s -> %s)",
                            tn_type_format(src->type, a, sizeof a), tn_type_format(out->type, b, sizeof b));
    }
    if (src->type.id != TN_TYPE_STRUCT) memcpy(out->data, src->data, (size_t)src->count * sizeof(tn_list_entry));
    for (uint32_t i = 0; i < src->type.nested->nchildren; i++) {
        int rc = tn_cast_vector(&src->children[i], &out->children[i], try_cast);
        if (rc) return rc;
    }
    return 0;
}

int tn_cast_vector(const tn_vector *src, tn_vector *out, bool try_cast) {
    uint32_t n = src->count;
    int rc = 0;
    cast_ctx c = {src, out, try_cast, TN_BUF_INIT};
    tn_vector_reset(out);
    rc = tn_vector_reserve(out, n ? n : 1);
    if (rc) return rc;
    out->count = n;
    size_t w = tn_type_width(out->type);
    memset(out->data, 0, w * (n ? n : 1));
    if (src->validity || src->type.id == TN_TYPE_NULL) {
        rc = tn_vector_ensure_validity(out);
        if (rc) return rc;
        if (src->type.id == TN_TYPE_NULL) memset(out->validity, 0, ((size_t)n + 63) / 64 * 8);
        else memcpy(out->validity, src->validity, ((size_t)n + 63) / 64 * 8);
    }
    if (src->type.id == TN_TYPE_NULL) {
        if (out->children) rc = tn_vector_fill_null(out, 0, n);     /* struct fields NULL too */
        goto cleanup;
    }
    uint8_t from = src->type.id, to = out->type.id;
    if (tn_type_is_nested(src->type) && to != TN_TYPE_VARCHAR) {
        rc = cast_nested(src, out, try_cast);
    } else if (tn_type_equal(src->type, out->type) && !tn_type_is_string(src->type)) {
        if (w) memcpy(out->data, src->data, w * n);
    } else if (from == to && tn_type_is_string(src->type)) {
        rc = cast_to_string(&c, n);
    } else if (to == TN_TYPE_VARCHAR || (to == TN_TYPE_VARBINARY && from != TN_TYPE_VARCHAR)) {
        rc = cast_to_string(&c, n);
    } else if (from == TN_TYPE_VARCHAR) {
        rc = cast_from_string(&c, n);
    } else if ((tn_type_is_numeric(src->type) || from == TN_TYPE_BOOLEAN) &&
               (tn_type_is_numeric(out->type) || to == TN_TYPE_BOOLEAN)) {
        rc = cast_numeric(&c, n);
    } else if ((from == TN_TYPE_DATE || from == TN_TYPE_TIMESTAMP || from == TN_TYPE_TIMESTAMP_TZ) &&
               (to == TN_TYPE_DATE || to == TN_TYPE_TIMESTAMP || to == TN_TYPE_TIMESTAMP_TZ)) {
        rc = cast_datetime(&c, n);
    } else {
        char a[64], b[64];
        rc = tn_error_set(TN_EUNSUPPORTED, "Unimplemented type for cast (%s -> %s)",
                          tn_type_format(src->type, a, sizeof a), tn_type_format(out->type, b, sizeof b));
    }
cleanup:
    tn_buf_free(&c.text);
    return rc;
}

int tn_cast_value(const tn_value *src, tn_type to, bool try_cast, tn_arena *arena, tn_value *out) {
    tn_vector a, b;
    memset(out, 0, sizeof *out);
    out->type = to;
    if (src->is_null || src->type.id == TN_TYPE_NULL) {
        out->is_null = true;
        return 0;
    }
    int rc = tn_vector_init(&a, src->type, 1);
    if (rc) return rc;
    rc = tn_vector_init(&b, to, 1);
    if (rc) {
        tn_vector_free(&a);
        return rc;
    }
    a.count = 1;
    rc = tn_vector_set_value(&a, 0, src);
    if (!rc) rc = tn_cast_vector(&a, &b, try_cast);
    if (!rc) {
        tn_vector_get_value(&b, 0, out);
        if (!out->is_null && tn_type_is_nested(to)) {
            rc = tn_vector_row_to_arena(arena, &b, 0, &out->u.ref.vec);
            out->u.ref.row = 0;
        } else if (!out->is_null && tn_type_is_string(to)) {
            char *p = tn_arena_alloc(arena, out->u.s.len ? out->u.s.len : 1);
            if (!p) rc = TN_ENOMEM;
            else {
                if (out->u.s.len) memcpy(p, out->u.s.ptr, out->u.s.len);
                out->u.s.ptr = p;
            }
        }
    }
    tn_vector_free(&a);
    tn_vector_free(&b);
    return rc;
}
