/*
 * types/parse.c: the text forms of dates, timestamps and decimals that logs and partition
 * values use ('YYYY-MM-DD', 'YYYY-MM-DD[ |T]HH:MM[:SS[.f]][Z|+hh:mm| UTC]', decimal digits with an
 * optional exponent), parsed exactly into tarn's representations. Errors are TN_EINVAL naming
 * the text.
 */
#include "types/types.h"

#include <stdbool.h>
#include <string.h>

static bool digits(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return n > 0;
}

static int num(const char *s, size_t n) {
    int v = 0;
    for (size_t i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
    return v;
}

int tn_text_datetime_special(const char *s, size_t len) {
    size_t i = 0;
    while (i < len && s[i] == ' ') i++;
    bool neg = i < len && s[i] == '-';
    if (neg) i++;
    size_t rest = len - i, word;
    if (rest >= 8 && tn_str_iequal_n(s + i, 8, "infinity")) word = 8;
    else if (rest == 3 && tn_str_iequal_n(s + i, 3, "inf")) word = 3;
    else if (rest >= 5 && tn_str_iequal_n(s + i, 5, "epoch")) word = 5;
    else return 0;
    for (size_t k = i + word; k < len; k++)
        if (s[k] != ' ') return 0;
    return word == 5 ? 2 : neg ? -1 : 1;
}

int tn_text_to_date(const char *s, size_t len, int32_t *out) {
    /* [-]Y{4,}-MM-DD, or 'infinity' / '-infinity' / 'epoch' */
    int sp = tn_text_datetime_special(s, len);
    if (sp) {
        *out = sp == 2 ? 0 : sp * TN_DATE_INFINITY;
        return 0;
    }
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) { neg = s[i] == '-'; i++; }
    size_t ys = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    if (i - ys < 4 || i - ys > 6 || len - i != 6 || s[i] != '-' || s[i + 3] != '-' ||
        !digits(s + i + 1, 2) || !digits(s + i + 4, 2))
        return tn_error_set(TN_EINVAL, "invalid date '%.*s'", (int)len, s);
    int64_t y = num(s + ys, i - ys);
    if (neg) y = -y;
    int m = num(s + i + 1, 2), d = num(s + i + 4, 2);
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
        return tn_error_set(TN_EINVAL, "invalid date '%.*s'", (int)len, s);
    *out = tn_days_from_civil(y, (unsigned)m, (unsigned)d);
    return 0;
}

int tn_text_to_timestamp_us(const char *s, size_t len, int64_t *out, bool *has_zone) {
    size_t i = 0;
    while (i < len && s[i] != ' ' && s[i] != 'T' && s[i] != 't') i++;
    if (i > 0 && i < len && s[i] == ' ' && i + 1 < len && !(s[i + 1] >= '0' && s[i + 1] <= '9')) {
        /* "YYYY-MM-DD UTC" style: treat the rest as zone */
    }
    int sp = tn_text_datetime_special(s, len);
    if (sp) {
        *out = sp == 2 ? 0 : sp * TN_TS_INFINITY;
        if (has_zone) *has_zone = false;
        return 0;
    }
    int32_t days;
    int rc = tn_text_to_date(s, i, &days);
    if (rc || !tn_date_is_finite(days)) return tn_error_set(TN_EINVAL, "invalid timestamp '%.*s'", (int)len, s);
    /* 6 year digits can pass INT64's range in microseconds: sum in 128 bits, check at the end */
    tn_int128 us = (tn_int128)days * 86400000000LL;
    bool zone = false;
    int64_t offset_us = 0;
    if (i < len) {
        i++;
        int hh = 0, mi = 0, ss = 0;
        int64_t frac = 0;
        if (i + 5 > len || !digits(s + i, 2) || s[i + 2] != ':' || !digits(s + i + 3, 2)) goto bad;
        hh = num(s + i, 2);
        mi = num(s + i + 3, 2);
        i += 5;
        if (i < len && s[i] == ':') {
            if (i + 3 > len || !digits(s + i + 1, 2)) goto bad;
            ss = num(s + i + 1, 2);
            i += 3;
            if (i < len && s[i] == '.') {
                i++;
                size_t fs = i;
                while (i < len && s[i] >= '0' && s[i] <= '9') i++;
                size_t nd = i - fs;
                if (nd == 0 || nd > 9) goto bad;
                for (size_t k = 0; k < 6; k++) frac = frac * 10 + (k < nd ? s[fs + k] - '0' : 0);
            }
        }
        if (hh > 23 || mi > 59 || ss > 60) goto bad;
        us += ((int64_t)hh * 3600 + mi * 60 + ss) * 1000000LL + frac;
        while (i < len && s[i] == ' ') i++;
        if (i < len) {
            if ((s[i] == 'Z' || s[i] == 'z') && i + 1 == len) {
                zone = true;
            } else if (len - i == 3 && tn_str_iequal_n(s + i, 3, "UTC")) {
                zone = true;
            } else if (s[i] == '+' || s[i] == '-') {
                int sign = s[i] == '-' ? -1 : 1;
                i++;
                if (i + 2 > len || !digits(s + i, 2)) goto bad;
                int oh = num(s + i, 2), om = 0;
                i += 2;
                if (i < len && s[i] == ':') i++;
                if (i < len) {
                    if (i + 2 != len || !digits(s + i, 2)) goto bad;
                    om = num(s + i, 2);
                }
                zone = true;
                offset_us = sign * ((int64_t)oh * 3600 + om * 60) * 1000000LL;
            } else {
                goto bad;
            }
        }
    }
    if (!tn_ts_in_range(us - offset_us))
        return tn_error_set(TN_EINVAL, "timestamp '%.*s' is out of range", (int)len, s);
    *out = (int64_t)(us - offset_us);
    if (has_zone) *has_zone = zone;
    return 0;
bad:
    return tn_error_set(TN_EINVAL, "invalid timestamp '%.*s'", (int)len, s);
}

int tn_text_to_decimal(const char *s, size_t len, int scale, tn_int128 *out) {
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) { neg = s[i] == '-'; i++; }
    tn_int128 v = 0;
    int fdigits = 0, ndigits = 0;
    bool point = false;
    tn_int128 limit = 1;
    for (int k = 0; k < 38; k++) limit *= 10;
    for (; i < len; i++) {
        char c = s[i];
        if (c == '.' && !point) { point = true; continue; }
        if (c == 'e' || c == 'E') {
            /* exponent form (e.g. "0E-10"): value with exponent */
            int e = 0, es = 1;
            i++;
            if (i < len && (s[i] == '-' || s[i] == '+')) { es = s[i] == '-' ? -1 : 1; i++; }
            if (i >= len || !digits(s + i, len - i) || len - i > 4) goto bad;
            e = es * num(s + i, len - i);
            fdigits -= e;
            i = len;
            break;
        }
        if (c < '0' || c > '9') goto bad;
        if (point) fdigits++;
        if (++ndigits > 38) goto bad;   /* 38 digits stay below 10^38 */
        v = v * 10 + (c - '0');
    }
    if (ndigits == 0) goto bad;
    while (fdigits > scale) {
        if (v % 10 != 0) goto bad;   /* would lose digits */
        v /= 10;
        fdigits--;
    }
    while (fdigits < scale) {
        if (v >= limit / 10) goto bad;  /* v * 10 would reach 10^38 */
        v *= 10;
        fdigits++;
    }
    *out = neg ? -v : v;
    return 0;
bad:
    return tn_error_set(TN_EINVAL, "invalid decimal '%.*s' for scale %d", (int)len, s, scale);
}

