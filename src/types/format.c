/*
 * types/format.c: the text spelling of values, identical to DuckDB's CAST(x AS VARCHAR)
 * (checked against the DuckDB oracle; see tests/unit/test_types.c), and the proleptic
 * Gregorian civil-date conversions. The tn_format_* functions write a NUL-terminated string
 * into buf and return its length like snprintf (output truncated if cap is too small).
 */
#include "types/typesInt.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----- civil dates (Howard Hinnant's algorithms; floor division, any int64 day count) ----- */

int32_t tn_days_from_civil(int64_t year, unsigned month, unsigned day) {
    int64_t y = year - (month <= 2);
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (int64_t)(month + (month > 2 ? -3 : 9)) + 2) / 5 + (int64_t)day - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (int32_t)(era * 146097 + doe - 719468);
}

void tn_civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day) {
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    unsigned d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    unsigned m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *year = y + (m <= 2);
    *month = m;
    *day = d;
}

/* Copy a finished string into the caller's buffer, snprintf-style. */
static int emit(char *buf, size_t cap, const char *s, size_t len) {
    if (cap > 0) {
        size_t n = len < cap - 1 ? len : cap - 1;
        memcpy(buf, s, n);
        buf[n] = '\0';
    }
    return (int)len;
}

/* ----- DATE / TIMESTAMP ----- */

/* "YYYY-MM-DD" into tmp; *bc set when the year is <= 0 (spelled 1 - year with " (BC)"). */
static int date_part(char *tmp, size_t cap, int64_t days, bool *bc) {
    int64_t y;
    unsigned m, d;
    tn_civil_from_days(days, &y, &m, &d);
    *bc = y <= 0;
    if (*bc) y = 1 - y;
    return snprintf(tmp, cap, "%04lld-%02u-%02u", (long long)y, m, d);
}

int tn_format_date(char *buf, size_t cap, int32_t days) {
    char tmp[64];
    if (days == INT32_MAX) return emit(buf, cap, "infinity", 8);
    if (days == -INT32_MAX) return emit(buf, cap, "-infinity", 9);
    bool bc;
    int n = date_part(tmp, sizeof tmp, days, &bc);
    if (bc) n += snprintf(tmp + n, sizeof tmp - (size_t)n, " (BC)");
    return emit(buf, cap, tmp, (size_t)n);
}

int tn_format_timestamp(char *buf, size_t cap, int64_t micros) {
    const int64_t day_us = INT64_C(86400000000);
    char tmp[96];
    if (micros == INT64_MAX) return emit(buf, cap, "infinity", 8);
    if (micros == -INT64_MAX) return emit(buf, cap, "-infinity", 9);
    int64_t days = micros / day_us, rem = micros % day_us;
    if (rem < 0) {
        rem += day_us;
        days--;
    }
    bool bc;
    int n = date_part(tmp, sizeof tmp, days, &bc);
    if (bc) n += snprintf(tmp + n, sizeof tmp - (size_t)n, " (BC)");
    int64_t secs = rem / 1000000, frac = rem % 1000000;
    n += snprintf(tmp + n, sizeof tmp - (size_t)n, " %02d:%02d:%02d", (int)(secs / 3600),
                  (int)(secs / 60 % 60), (int)(secs % 60));
    if (frac) {
        char f[8];
        snprintf(f, sizeof f, "%06d", (int)frac);
        int flen = 6;
        while (f[flen - 1] == '0') flen--;
        n += snprintf(tmp + n, sizeof tmp - (size_t)n, ".%.*s", flen, f);
    }
    return emit(buf, cap, tmp, (size_t)n);
}

/* ----- DOUBLE / FLOAT: shortest round-trip digits, Python repr layout ----- */

/*
 * Significant digits of |x| rounded to p digits (via %.*e) into digits[], decimal exponent of
 * the first digit into *exp10; returns the digit count with trailing zeros removed.
 */
static int round_digits(double x, int p, char *digits, int *exp10, char *text, size_t textcap) {
    snprintf(text, textcap, "%.*e", p - 1, x);
    int n = 0;
    const char *s = text;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9') digits[n++] = *s;
    *exp10 = *s == 'e' ? atoi(s + 1) : 0;
    while (n > 1 && digits[n - 1] == '0') n--;
    digits[n] = '\0';
    return n;
}

/*
 * Shortest digits of a double that read back as the same double (closest such on ties). If
 * rounding to 15 digits (DBL_DIG) round-trips, that rounding with trailing zeros dropped is
 * the shortest and closest; otherwise 16 or 17 digits. Subnormals search from one digit.
 */
static int shortest_digits(double x, char *digits, int *exp10) {
    char text[64];
    int lo = x < DBL_MIN ? 1 : 15, n = 0;
    for (int p = lo; p <= 17; p++) {
        n = round_digits(x, p, digits, exp10, text, sizeof text);
        if (strtod(text, NULL) == x) break;
    }
    return n;
}

/*
 * DuckDB spells FLOAT with fmt 6's Grisu3 shortest algorithm over the float's rounding
 * interval; when Grisu3 cannot decide (about 1% of floats) fmt falls back to a Dragon4 that
 * uses the *double* interval, so the result is the shortest double spelling of the float
 * (122810704.0 rather than 122810700.0, -3626911.25 rather than -3626911.2). To match it
 * byte for byte, grisu_float() below reproduces that Grisu3 run with the same cached powers
 * and rounding decisions and reports failure exactly when fmt does; the caller then uses the
 * double's shortest digits.
 */
typedef struct gfp {
    uint64_t f;
    int e;
} gfp;

/* Normalized 64-bit significands and binary exponents of 10^k, k = -348, -340, ..., 340
 * (rounded to nearest; generated with exact rational arithmetic). */
static const uint64_t g_pow10_sig[87] = {
    UINT64_C(0xfa8fd5a0081c0288), UINT64_C(0xbaaee17fa23ebf76), UINT64_C(0x8b16fb203055ac76),
    UINT64_C(0xcf42894a5dce35ea), UINT64_C(0x9a6bb0aa55653b2d), UINT64_C(0xe61acf033d1a45df),
    UINT64_C(0xab70fe17c79ac6ca), UINT64_C(0xff77b1fcbebcdc4f), UINT64_C(0xbe5691ef416bd60c),
    UINT64_C(0x8dd01fad907ffc3c), UINT64_C(0xd3515c2831559a83), UINT64_C(0x9d71ac8fada6c9b5),
    UINT64_C(0xea9c227723ee8bcb), UINT64_C(0xaecc49914078536d), UINT64_C(0x823c12795db6ce57),
    UINT64_C(0xc21094364dfb5637), UINT64_C(0x9096ea6f3848984f), UINT64_C(0xd77485cb25823ac7),
    UINT64_C(0xa086cfcd97bf97f4), UINT64_C(0xef340a98172aace5), UINT64_C(0xb23867fb2a35b28e),
    UINT64_C(0x84c8d4dfd2c63f3b), UINT64_C(0xc5dd44271ad3cdba), UINT64_C(0x936b9fcebb25c996),
    UINT64_C(0xdbac6c247d62a584), UINT64_C(0xa3ab66580d5fdaf6), UINT64_C(0xf3e2f893dec3f126),
    UINT64_C(0xb5b5ada8aaff80b8), UINT64_C(0x87625f056c7c4a8b), UINT64_C(0xc9bcff6034c13053),
    UINT64_C(0x964e858c91ba2655), UINT64_C(0xdff9772470297ebd), UINT64_C(0xa6dfbd9fb8e5b88f),
    UINT64_C(0xf8a95fcf88747d94), UINT64_C(0xb94470938fa89bcf), UINT64_C(0x8a08f0f8bf0f156b),
    UINT64_C(0xcdb02555653131b6), UINT64_C(0x993fe2c6d07b7fac), UINT64_C(0xe45c10c42a2b3b06),
    UINT64_C(0xaa242499697392d3), UINT64_C(0xfd87b5f28300ca0e), UINT64_C(0xbce5086492111aeb),
    UINT64_C(0x8cbccc096f5088cc), UINT64_C(0xd1b71758e219652c), UINT64_C(0x9c40000000000000),
    UINT64_C(0xe8d4a51000000000), UINT64_C(0xad78ebc5ac620000), UINT64_C(0x813f3978f8940984),
    UINT64_C(0xc097ce7bc90715b3), UINT64_C(0x8f7e32ce7bea5c70), UINT64_C(0xd5d238a4abe98068),
    UINT64_C(0x9f4f2726179a2245), UINT64_C(0xed63a231d4c4fb27), UINT64_C(0xb0de65388cc8ada8),
    UINT64_C(0x83c7088e1aab65db), UINT64_C(0xc45d1df942711d9a), UINT64_C(0x924d692ca61be758),
    UINT64_C(0xda01ee641a708dea), UINT64_C(0xa26da3999aef774a), UINT64_C(0xf209787bb47d6b85),
    UINT64_C(0xb454e4a179dd1877), UINT64_C(0x865b86925b9bc5c2), UINT64_C(0xc83553c5c8965d3d),
    UINT64_C(0x952ab45cfa97a0b3), UINT64_C(0xde469fbd99a05fe3), UINT64_C(0xa59bc234db398c25),
    UINT64_C(0xf6c69a72a3989f5c), UINT64_C(0xb7dcbf5354e9bece), UINT64_C(0x88fcf317f22241e2),
    UINT64_C(0xcc20ce9bd35c78a5), UINT64_C(0x98165af37b2153df), UINT64_C(0xe2a0b5dc971f303a),
    UINT64_C(0xa8d9d1535ce3b396), UINT64_C(0xfb9b7cd9a4a7443c), UINT64_C(0xbb764c4ca7a44410),
    UINT64_C(0x8bab8eefb6409c1a), UINT64_C(0xd01fef10a657842c), UINT64_C(0x9b10a4e5e9913129),
    UINT64_C(0xe7109bfba19c0c9d), UINT64_C(0xac2820d9623bf429), UINT64_C(0x80444b5e7aa7cf85),
    UINT64_C(0xbf21e44003acdd2d), UINT64_C(0x8e679c2f5e44ff8f), UINT64_C(0xd433179d9c8cb841),
    UINT64_C(0x9e19db92b4e31ba9), UINT64_C(0xeb96bf6ebadf77d9), UINT64_C(0xaf87023b9bf0ee6b),
};
static const int16_t g_pow10_exp[87] = {
    -1220, -1193, -1166, -1140, -1113, -1087, -1060, -1034, -1007, -980, -954,
    -927, -901, -874, -847, -821, -794, -768, -741, -715, -688, -661,
    -635, -608, -582, -555, -529, -502, -475, -449, -422, -396, -369,
    -343, -316, -289, -263, -236, -210, -183, -157, -130, -103, -77,
    -50, -24, 3, 30, 56, 83, 109, 136, 162, 189, 216,
    242, 269, 295, 322, 348, 375, 402, 428, 455, 481, 508,
    534, 561, 588, 614, 641, 667, 694, 720, 747, 774, 800,
    827, 853, 880, 907, 933, 960, 986, 1013, 1039, 1066,
};

static const uint64_t g_pow10_u64[20] = {
    UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000), UINT64_C(100000),
    UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
    UINT64_C(10000000000), UINT64_C(100000000000), UINT64_C(1000000000000),
    UINT64_C(10000000000000), UINT64_C(100000000000000), UINT64_C(1000000000000000),
    UINT64_C(10000000000000000), UINT64_C(100000000000000000), UINT64_C(1000000000000000000),
    UINT64_C(10000000000000000000),
};

/* (a * b) / 2^64 rounded half up. */
static uint64_t mul_hi_round(uint64_t a, uint64_t b) {
    unsigned __int128 p = (unsigned __int128)a * b;
    uint64_t hi = (uint64_t)(p >> 64);
    return ((uint64_t)p >> 63) ? hi + 1 : hi;
}

/* Shift left until bit 63 is set (the input has a set bit at or above bit 52). */
static gfp gfp_normalize(gfp v) {
    while (!(v.f & (UINT64_C(1) << 52))) {
        v.f <<= 1;
        v.e--;
    }
    v.f <<= 11;
    v.e -= 11;
    return v;
}

static int count_digits_u32(uint32_t n) {
    int d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

typedef struct grisu_state {
    char *buf;
    int size;
    uint64_t diff;   /* distance from the scaled value to the upper bound */
} grisu_state;

/* One generated digit, then Grisu3's round_weed: 1 = done, 0 = more digits, -1 = give up. */
static int grisu_digit(grisu_state *st, char digit, uint64_t divisor, uint64_t rem, uint64_t error,
                       int exp, bool integral) {
    st->buf[st->size++] = digit;
    if (rem >= error) return 0;
    if (!integral && -exp > 19) return -1;
    uint64_t unit = integral ? 1 : g_pow10_u64[-exp];
    uint64_t up = (st->diff - 1) * unit;
    while (rem < up && error - rem >= divisor && (rem + divisor < up || up - rem >= rem + divisor - up)) {
        st->buf[st->size - 1]--;
        rem += divisor;
    }
    uint64_t down = (st->diff + 1) * unit;
    if (rem < down && error - rem >= divisor && (rem + divisor < down || down - rem > rem + divisor - down))
        return -1;
    return (2 * unit <= rem && rem <= error - 4 * unit) ? 1 : -1;
}

/*
 * Grisu3 shortest digits of a positive finite float x (passed as double) into buf; returns
 * the digit count and sets *exp10 so that x ~= digits * 10^exp10, or -1 when Grisu3 gives up.
 */
static int grisu_float(double x, char *buf, int *exp10) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint64_t implicit = UINT64_C(1) << 52;
    gfp v = {bits & (implicit - 1), 0};
    int be = (int)((bits >> 52) & 0x7ff);
    if (be != 0) v.f += implicit;
    else be = 1;
    v.e = be - 1075;
    /* Boundaries halfway to the neighbouring floats (FLT_MIN_EXP - DBL_MANT_DIG = -178). */
    const int min_normal_e = -178;
    uint64_t half_ulp = UINT64_C(1) << 28;
    if (min_normal_e > v.e) half_ulp <<= min_normal_e - v.e;
    gfp upper = gfp_normalize((gfp){v.f + half_ulp, v.e});
    gfp lower = {v.f - (half_ulp >> ((v.f == implicit && v.e > min_normal_e) ? 1 : 0)), v.e};
    lower.f <<= lower.e - upper.e;
    v = gfp_normalize(v);
    /* Cached power of ten bringing the binary exponent into [-60, -32]. */
    int min_exponent = -60 - (v.e + 64);
    int64_t t = (int64_t)((uint64_t)(int64_t)(min_exponent + 63) * UINT64_C(0x4d104d42) +
                          UINT64_C(0xffffffff));
    int index = (int)(t >> 32);
    index = (index + 348 - 1) / 8 + 1;
    if (index < 0 || index >= 87) return -1;
    int cached_exp10 = -348 + index * 8;
    uint64_t cf = g_pow10_sig[index];
    v.f = mul_hi_round(v.f, cf);
    v.e = v.e + g_pow10_exp[index] + 64;
    uint64_t lo = mul_hi_round(lower.f, cf) - 1;
    uint64_t hi = mul_hi_round(upper.f, cf) + 1;
    grisu_state st = {buf, 0, hi - v.f};
    uint64_t error = hi - lo;
    /* Generate digits of the upper bound: integral part, then fraction. */
    int shift = -v.e;
    uint64_t one = UINT64_C(1) << shift;
    uint32_t integral = (uint32_t)(hi >> shift);
    uint64_t fractional = hi & (one - 1);
    int exp = count_digits_u32(integral);
    int r = 0;
    while (exp > 0) {
        uint32_t div = (uint32_t)g_pow10_u64[exp - 1];
        uint32_t digit = integral / div;
        integral %= div;
        exp--;
        uint64_t rem = ((uint64_t)integral << shift) + fractional;
        r = grisu_digit(&st, (char)('0' + digit), g_pow10_u64[exp] << shift, rem, error, exp, true);
        if (r) break;
    }
    while (r == 0) {
        fractional *= 10;
        error *= 10;
        char digit = (char)('0' + (int)(fractional >> shift));
        fractional &= one - 1;
        exp--;
        r = grisu_digit(&st, digit, one, fractional, error, exp, false);
        if (r == 0 && st.size >= 30) r = -1;
    }
    if (r < 0) return -1;
    *exp10 = exp - cached_exp10;
    return st.size;
}

static int format_real(char *buf, size_t cap, double x, bool is_float) {
    char out[64], digits[40];
    size_t n = 0;
    if (isnan(x)) return signbit(x) ? emit(buf, cap, "-nan", 4) : emit(buf, cap, "nan", 3);
    if (isinf(x)) return x > 0 ? emit(buf, cap, "inf", 3) : emit(buf, cap, "-inf", 4);
    if (signbit(x)) {
        out[n++] = '-';
        x = -x;
    }
    int e = 0, nd = -1;
    if (is_float && x > 0) {
        int e10;
        nd = grisu_float(x, digits, &e10);
        if (nd > 0) {
            while (nd > 1 && digits[nd - 1] == '0') {
                nd--;
                e10++;
            }
            digits[nd] = '\0';
            e = e10 + nd - 1;
        }
    }
    /* Doubles, and floats Grisu3 gave up on: shortest digits of the double. */
    if (nd <= 0) nd = shortest_digits(x, digits, &e);
    if (x == 0) {
        nd = 1;
        e = 0;
        digits[0] = '0';
    }
    if (e < -4 || e >= 16) {
        out[n++] = digits[0];
        if (nd > 1) {
            out[n++] = '.';
            memcpy(out + n, digits + 1, (size_t)nd - 1);
            n += (size_t)nd - 1;
        }
        n += (size_t)snprintf(out + n, sizeof out - n, "e%c%02d", e < 0 ? '-' : '+', abs(e));
    } else if (e >= 0) {
        for (int i = 0; i <= e; i++) out[n++] = i < nd ? digits[i] : '0';
        out[n++] = '.';
        if (nd > e + 1) {
            memcpy(out + n, digits + e + 1, (size_t)(nd - e - 1));
            n += (size_t)(nd - e - 1);
        } else {
            out[n++] = '0';
        }
    } else {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -e - 1; i++) out[n++] = '0';
        memcpy(out + n, digits, (size_t)nd);
        n += (size_t)nd;
    }
    return emit(buf, cap, out, n);
}

int tn_format_double(char *buf, size_t cap, double d) { return format_real(buf, cap, d, false); }

int tn_format_float(char *buf, size_t cap, float f) { return format_real(buf, cap, (double)f, true); }

/* ----- DECIMAL ----- */

int tn_format_decimal_p(char *buf, size_t cap, tn_int128 value, int precision, int scale) {
    char digits[48], out[64];
    size_t nd = 0, n = 0;
    bool neg = value < 0;
    unsigned __int128 u = neg ? -(unsigned __int128)value : (unsigned __int128)value;
    if (scale < 0) scale = 0;
    if (scale > TN_DECIMAL_MAX_PRECISION) scale = TN_DECIMAL_MAX_PRECISION;
    do { /* reversed digits; at most 39 */
        digits[nd++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u > 0);
    while (nd < (size_t)scale) digits[nd++] = '0';
    if (neg) out[n++] = '-';
    size_t int_digits = nd - (size_t)scale;
    /* DuckDB writes "0" before the point unless precision == scale (DECIMAL(3,3) 0.5: ".500"). */
    if (int_digits == 0 && precision > scale) out[n++] = '0';
    for (size_t i = 0; i < int_digits; i++) out[n++] = digits[nd - 1 - i];
    if (scale > 0) {
        out[n++] = '.';
        for (size_t i = int_digits; i < nd; i++) out[n++] = digits[nd - 1 - i];
    }
    return emit(buf, cap, out, n);
}

int tn_format_decimal(char *buf, size_t cap, tn_int128 value, int scale) {
    return tn_format_decimal_p(buf, cap, value, TN_DECIMAL_MAX_PRECISION + 1, scale);
}

/* ----- intervals ----- */

int tn_format_interval(char *buf, size_t cap, tn_interval iv) {
    char out[128];
    size_t n = 0;
    if (iv.months != 0) {
        int32_t years = iv.months / 12, months = iv.months - years * 12;
        if (years)
            n += (size_t)snprintf(out + n, sizeof out - n, "%d year%s", years, years == 1 || years == -1 ? "" : "s");
        if (months)
            n += (size_t)snprintf(out + n, sizeof out - n, "%s%d month%s", n ? " " : "", months,
                                  months == 1 || months == -1 ? "" : "s");
    }
    if (iv.days)
        n += (size_t)snprintf(out + n, sizeof out - n, "%s%d day%s", n ? " " : "", iv.days,
                              iv.days == 1 || iv.days == -1 ? "" : "s");
    if (iv.micros || n == 0) {
        uint64_t m = iv.micros < 0 ? (uint64_t)0 - (uint64_t)iv.micros : (uint64_t)iv.micros;
        uint64_t hours = m / 3600000000ULL, rest = m % 3600000000ULL;
        unsigned min = (unsigned)(rest / 60000000ULL), sec = (unsigned)(rest / 1000000ULL % 60);
        unsigned frac = (unsigned)(rest % 1000000ULL);
        n += (size_t)snprintf(out + n, sizeof out - n, "%s%s%02llu:%02u:%02u", n ? " " : "", iv.micros < 0 ? "-" : "",
                              (unsigned long long)hours, min, sec);
        if (frac) {
            char f[8];
            snprintf(f, sizeof f, "%06u", frac);
            size_t fl = 6;
            while (fl > 0 && f[fl - 1] == '0') fl--;
            n += (size_t)snprintf(out + n, sizeof out - n, ".%.*s", (int)fl, f);
        }
    }
    return emit(buf, cap, out, n);
}

/* Unit words of interval text, with their scale: months, days or microseconds. */
static const struct { const char *w; int part; int64_t mul; } g_iv_units[] = {
    {"millennium", 0, 12000}, {"millennia", 0, 12000}, {"millenniums", 0, 12000},
    {"century", 0, 1200}, {"centuries", 0, 1200}, {"decade", 0, 120}, {"decades", 0, 120},
    {"year", 0, 12}, {"years", 0, 12}, {"y", 0, 12}, {"yr", 0, 12}, {"yrs", 0, 12},
    {"quarter", 0, 3}, {"quarters", 0, 3},
    {"month", 0, 1}, {"months", 0, 1}, {"mon", 0, 1}, {"mons", 0, 1},
    {"week", 1, 7}, {"weeks", 1, 7}, {"w", 1, 7},
    {"day", 1, 1}, {"days", 1, 1}, {"d", 1, 1},
    {"hour", 2, 3600000000LL}, {"hours", 2, 3600000000LL}, {"h", 2, 3600000000LL},
    {"hr", 2, 3600000000LL}, {"hrs", 2, 3600000000LL},
    {"minute", 2, 60000000LL}, {"minutes", 2, 60000000LL}, {"min", 2, 60000000LL},
    {"mins", 2, 60000000LL}, {"m", 2, 60000000LL},
    {"second", 2, 1000000LL}, {"seconds", 2, 1000000LL}, {"sec", 2, 1000000LL},
    {"secs", 2, 1000000LL}, {"s", 2, 1000000LL},
    {"millisecond", 2, 1000LL}, {"milliseconds", 2, 1000LL}, {"ms", 2, 1000LL},
    {"msec", 2, 1000LL}, {"msecs", 2, 1000LL},
    {"microsecond", 2, 1LL}, {"microseconds", 2, 1LL}, {"us", 2, 1LL}, {"usec", 2, 1LL},
    {"usecs", 2, 1LL},
};

static int iv_bad(const char *s, size_t n) {
    return tn_error_set(TN_EINVAL, "Conversion Error: could not convert string '%.*s' to INTERVAL", (int)(n > 200 ? 200 : n), s);
}

int tn_parse_interval(const char *s, size_t n, tn_interval *out) {
    tn_int128 months = 0, days = 0, micros = 0;
    size_t i = 0;
    bool any = false, ago = false;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i < n && s[i] == '@') i++;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
        if (i >= n) break;
        if (ago) return iv_bad(s, n);
        /* a signed number, or HH:MM[:SS[.f]] */
        bool neg = false;
        size_t st = i;
        if (s[i] == '+' || s[i] == '-') { neg = s[i] == '-'; i++; }
        size_t ds = i;
        tn_int128 ip = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            ip = ip * 10 + (s[i] - '0');
            if (ip > (tn_int128)1 << 80) return iv_bad(s, n);
            i++;
        }
        size_t nd = i - ds;
        if (i < n && s[i] == ':') {
            if (nd == 0) return iv_bad(s, n);
            tn_int128 parts[3] = {ip, 0, 0};
            int np = 1;
            while (i < n && s[i] == ':' && np < 3) {
                i++;
                size_t b = i;
                tn_int128 x = 0;
                while (i < n && s[i] >= '0' && s[i] <= '9' && i - b < 9) x = x * 10 + (s[i++] - '0');
                if (i == b) return iv_bad(s, n);
                parts[np++] = x;
            }
            tn_int128 t = parts[0] * 3600000000LL + parts[1] * 60000000LL + parts[2] * 1000000LL;
            if (i < n && s[i] == '.' && np == 3) {
                i++;
                int64_t scale = 100000;
                while (i < n && s[i] >= '0' && s[i] <= '9') {
                    t += (s[i] - '0') * scale;
                    scale /= 10;
                    i++;
                }
            }
            micros += neg ? -t : t;
            any = true;
            continue;
        }
        /* fraction */
        double frac = 0, fs = 0.1;
        if (i < n && s[i] == '.') {
            i++;
            while (i < n && s[i] >= '0' && s[i] <= '9') {
                frac += (s[i] - '0') * fs;
                fs /= 10;
                nd++;
                i++;
            }
        }
        if (nd == 0) {
            /* "ago" ends the text and negates it */
            if (i == st && n - i >= 3 && tn_str_iequal_n(s + i, 3, "ago") &&
                (n - i == 3 || s[i + 3] == ' ' || s[i + 3] == '\t')) {
                ago = true;
                i += 3;
                continue;
            }
            return iv_bad(s, n);
        }
        while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
        size_t ws = i;
        while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) i++;
        size_t wl = i - ws;
        int part = -1;
        int64_t mul = 0;
        for (size_t k = 0; k < sizeof g_iv_units / sizeof g_iv_units[0] && wl; k++)
            if (strlen(g_iv_units[k].w) == wl && tn_str_iequal_n(s + ws, wl, g_iv_units[k].w)) {
                part = g_iv_units[k].part;
                mul = g_iv_units[k].mul;
                break;
            }
        if (part < 0) {
            if (wl == 0 && i >= n && !any) {  /* a bare number: seconds */
                part = 2;
                mul = 1000000LL;
            } else return iv_bad(s, n);
        }
        tn_int128 whole = ip * mul;
        double fr = frac * (double)mul;
        if (part == 0) {
            tn_int128 fm = (tn_int128)fr;
            months += neg ? -(whole + fm) : whole + fm;
            /* what is left of a month becomes days (30 a month) */
            double fd = (fr - (double)fm) * 30.0;
            tn_int128 d = (tn_int128)fd;
            days += neg ? -d : d;
            tn_int128 us = (tn_int128)((fd - (double)d) * 86400000000.0 + 0.5);
            micros += neg ? -us : us;
        } else if (part == 1) {
            days += neg ? -whole : whole;
            tn_int128 us = (tn_int128)(fr * 86400000000.0 + 0.5);
            micros += neg ? -us : us;
        } else {
            tn_int128 us = whole + (tn_int128)(fr + 0.5);
            micros += neg ? -us : us;
        }
        any = true;
    }
    if (!any) return iv_bad(s, n);
    if (ago) {
        months = -months;
        days = -days;
        micros = -micros;
    }
    if (months > INT32_MAX || months < INT32_MIN || days > INT32_MAX || days < INT32_MIN ||
        micros > INT64_MAX || micros < INT64_MIN)
        return tn_error_set(TN_EINVAL, "Conversion Error: interval '%.*s' out of range", (int)(n > 200 ? 200 : n), s);
    out->months = (int32_t)months;
    out->days = (int32_t)days;
    out->micros = (int64_t)micros;
    return 0;
}

/* ----- whole values ----- */

static int append_blob(tn_buf *out, const uint8_t *p, uint32_t len) {
    static const char hex[] = "0123456789ABCDEF";
    int rc = tn_buf_reserve(out, (size_t)len * 4);
    if (rc) return rc;
    uint8_t *w = out->data + out->len;
    for (uint32_t i = 0; i < len; i++) {
        uint8_t c = p[i];
        if (c >= 0x20 && c <= 0x7e && c != '\\' && c != '\'' && c != '"') {
            *w++ = c;
        } else {
            *w++ = '\\';
            *w++ = 'x';
            *w++ = (uint8_t)hex[c >> 4];
            *w++ = (uint8_t)hex[c & 15];
        }
    }
    out->len = (size_t)(w - out->data);
    return 0;
}

int tn_value_to_text(tn_buf *out, const tn_value *v) {
    char tmp[128];
    int n;
    if (v->is_null || v->type.id == TN_TYPE_NULL) return 1;
    switch (v->type.id) {
    case TN_TYPE_BOOLEAN: return v->u.b ? tn_buf_append(out, "true", 4) : tn_buf_append(out, "false", 5);
    case TN_TYPE_TINYINT:
    case TN_TYPE_SMALLINT:
    case TN_TYPE_INTEGER:
    case TN_TYPE_BIGINT: n = snprintf(tmp, sizeof tmp, "%lld", (long long)v->u.i); break;
    case TN_TYPE_FLOAT: n = tn_format_float(tmp, sizeof tmp, (float)v->u.d); break;
    case TN_TYPE_DOUBLE: n = tn_format_double(tmp, sizeof tmp, v->u.d); break;
    case TN_TYPE_DECIMAL:
        n = tn_format_decimal_p(tmp, sizeof tmp,
                                tn_type_is_decimal128(v->type) ? v->u.i128 : (tn_int128)v->u.i,
                                v->type.precision, v->type.scale);
        break;
    case TN_TYPE_DATE: n = tn_format_date(tmp, sizeof tmp, (int32_t)v->u.i); break;
    case TN_TYPE_TIMESTAMP: n = tn_format_timestamp(tmp, sizeof tmp, v->u.i); break;
    case TN_TYPE_TIMESTAMP_TZ:
        n = tn_format_timestamp(tmp, sizeof tmp, v->u.i);
        if (v->u.i != INT64_MAX && v->u.i != -INT64_MAX) n += snprintf(tmp + n, sizeof tmp - (size_t)n, "+00");
        break;
    case TN_TYPE_VARCHAR: return tn_buf_append(out, v->u.s.ptr, v->u.s.len);
    case TN_TYPE_VARBINARY: return append_blob(out, (const uint8_t *)v->u.s.ptr, v->u.s.len);
    case TN_TYPE_INTERVAL: n = tn_format_interval(tmp, sizeof tmp, v->u.iv); break;
    case TN_TYPE_LIST:
    case TN_TYPE_STRUCT:
    case TN_TYPE_MAP: return tn_nested_to_text(out, v->u.ref.vec, v->u.ref.row);
    default: return tn_error_set(TN_EINTERNAL, "format: unknown type id %d", (int)v->type.id);
    }
    if (n < 0 || (size_t)n >= sizeof tmp) return tn_error_set(TN_EINTERNAL, "format: value too long");
    return tn_buf_append(out, tmp, (size_t)n);
}

int tn_value_format(tn_buf *out, const tn_vector *v, uint32_t row) {
    tn_value val;
    tn_vector_get_value(v, row, &val);
    return tn_value_to_text(out, &val);
}
