/*
 * sql/func_datetime.c: date/time functions. Formatting and parsing with Java DateTimeFormatter
 * patterns (date_format, to_date, to_timestamp, from_unixtime: Spark/Flink) and with strftime
 * patterns (strftime, strptime: DuckDB), both compiled to one token list (once, in bind, when
 * the pattern is a constant); date_trunc, extract/date_part and year()..second(), datediff in
 * Spark's 2-argument and DuckDB's 3-argument forms, date_add/date_sub, now(), current_date.
 * Formatting writes digits by hand into a stack buffer (no printf per field); the common
 * patterns ('%Y-%m', '%Y-%m-%d', 'yyyy-MM-dd', '... HH:mm:ss') have straight-line writers, and
 * patterns that only depend on the day reuse the previous row's text while the day repeats.
 */
#include "sql/functions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out
#define VALID(i) tn_vector_is_valid(out, i)
#define STR(k, i) (((const tn_str *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define I64(k, i) (((const int64_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define I32(k, i) (((const int32_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])

#define US_PER_DAY 86400000000LL

static int64_t floordiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && ((a < 0) != (b < 0))); }

/* Broken-down time. */
typedef struct civil {
    int64_t year;
    unsigned month, day;
    int hour, minute, second;
    int micros;
    int64_t days;   /* since epoch */
    int dow;        /* 0 = Sunday */
    int doy;        /* 1-based */
} civil;

static void civil_from_micros(int64_t us, civil *c) {
    int64_t days = floordiv(us, US_PER_DAY), t = us - days * US_PER_DAY;
    tn_civil_from_days(days, &c->year, &c->month, &c->day);
    c->days = days;
    c->hour = (int)(t / 3600000000LL);
    c->minute = (int)(t / 60000000LL % 60);
    c->second = (int)(t / 1000000 % 60);
    c->micros = (int)(t % 1000000);
    c->dow = (int)(((days % 7) + 11) % 7); /* 1970-01-01 was a Thursday (4) */
    c->doy = (int)(days - tn_days_from_civil(c->year, 1, 1) + 1);
}

/* ISO 8601 week number and week-based year. */
static void iso_week(const civil *c, int *week, int64_t *year) {
    int isodow = c->dow == 0 ? 7 : c->dow;
    int64_t thursday = c->days - isodow + 4;
    int64_t y;
    unsigned m, d;
    tn_civil_from_days(thursday, &y, &m, &d);
    *year = y;
    *week = (int)((thursday - tn_days_from_civil(y, 1, 1)) / 7 + 1);
}

static const char *const g_month_full[] = {"January", "February", "March", "April", "May", "June", "July",
                                           "August", "September", "October", "November", "December"};
static const char *const g_month_abbr[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const char *const g_day_full[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
static const char *const g_day_abbr[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

/* ---------------------------------------------------------------------------------------------
 * Format tokens shared by Java patterns and strftime.
 */
typedef enum tk_kind {
    TK_LIT, TK_YEAR, TK_YEAR2, TK_MONTH, TK_MONTH_ABBR, TK_MONTH_FULL, TK_DAY, TK_DOY,
    TK_HOUR24, TK_HOUR12, TK_HOUR24_1, TK_HOUR12_0, TK_MINUTE, TK_SECOND, TK_FRAC, TK_AMPM,
    TK_WDAY_ABBR, TK_WDAY_FULL, TK_WDAY_SUN0, TK_WDAY_MON1, TK_ISOWEEK, TK_WEEK_SUN, TK_WEEK_MON,
    TK_ISOYEAR, TK_TZ_OFFSET, TK_TZ_HHMM, TK_TZ_Z, TK_TZ_NAME, TK_QUARTER, TK_ERA,
} tk_kind;

typedef struct fmt_token {
    uint8_t kind;
    uint8_t width;      /* minimum digits (0 = as is); TK_FRAC: digits */
    uint16_t lit_off;   /* TK_LIT: offset/length into the literal pool */
    uint16_t lit_len;
} fmt_token;

/* What run_format needs computed, and a straight-line writer for common patterns. */
enum { NEED_TIME = 1, NEED_DOW = 2, NEED_DOY = 4 };
typedef enum fast_kind { FAST_NONE = 0, FAST_YM, FAST_YMD, FAST_YMD_HMS } fast_kind;

typedef struct fmt_prog {
    fmt_token tok[128];
    uint32_t ntok;
    char lit[512];
    uint32_t nlit;
    uint8_t needs;      /* NEED_* (set by finish_prog) */
    uint8_t fast;       /* fast_kind */
    char sep[3];        /* FAST_*: separators between the fields ('-', '-', ' ' / 'T') */
    uint8_t strf;       /* strftime/strptime dialect (DuckDB): default year 1900, %z applied */
} fmt_prog;

/* Output bytes of one run_format are bounded: 128 tokens of at most 21 bytes (a signed 64-bit
 * number, a month name) plus a 512-byte literal pool. */
#define FMT_OUT_MAX (128 * 24 + 512)

static int add_tok(fmt_prog *p, tk_kind k, int width) {
    if (p->ntok >= 128) return tn_error_set(TN_ELIMIT, "format pattern is too long");
    p->tok[p->ntok].kind = (uint8_t)k;
    p->tok[p->ntok].width = (uint8_t)width;
    p->ntok++;
    return 0;
}

static int add_lit(fmt_prog *p, const char *s, size_t n) {
    if (n == 0) return 0;
    if (p->nlit + n > sizeof p->lit) return tn_error_set(TN_ELIMIT, "format pattern is too long");
    if (p->ntok && p->tok[p->ntok - 1].kind == TK_LIT && p->tok[p->ntok - 1].lit_off + p->tok[p->ntok - 1].lit_len == p->nlit) {
        p->tok[p->ntok - 1].lit_len = (uint16_t)(p->tok[p->ntok - 1].lit_len + n);
    } else {
        int rc = add_tok(p, TK_LIT, 0);
        if (rc) return rc;
        p->tok[p->ntok - 1].lit_off = (uint16_t)p->nlit;
        p->tok[p->ntok - 1].lit_len = (uint16_t)n;
    }
    memcpy(p->lit + p->nlit, s, n);
    p->nlit += (uint32_t)n;
    return 0;
}

static bool tok_is(const fmt_prog *p, uint32_t k, tk_kind kind, int width) {
    return k < p->ntok && p->tok[k].kind == kind && p->tok[k].width == width;
}
static bool tok_lit1(const fmt_prog *p, uint32_t k, char *c) {
    if (k >= p->ntok || p->tok[k].kind != TK_LIT || p->tok[k].lit_len != 1) return false;
    *c = p->lit[p->tok[k].lit_off];
    return true;
}

/* Computes what the pattern needs and recognises the common shapes. */
static void finish_prog(fmt_prog *p) {
    p->needs = 0;
    p->fast = FAST_NONE;
    for (uint32_t k = 0; k < p->ntok; k++) {
        switch ((tk_kind)p->tok[k].kind) {
        case TK_HOUR24: case TK_HOUR12: case TK_HOUR24_1: case TK_HOUR12_0: case TK_MINUTE:
        case TK_SECOND: case TK_FRAC: case TK_AMPM:
            p->needs |= NEED_TIME;
            break;
        case TK_WDAY_ABBR: case TK_WDAY_FULL: case TK_WDAY_SUN0: case TK_WDAY_MON1: case TK_ISOWEEK:
        case TK_ISOYEAR:
            p->needs |= NEED_DOW;
            break;
        case TK_DOY: p->needs |= NEED_DOY; break;
        case TK_WEEK_SUN: case TK_WEEK_MON: p->needs |= NEED_DOW | NEED_DOY; break;
        default: break;
        }
    }
    /* YYYY?MM[?DD[?HH:MM:SS]] with 4-digit year and 2-digit fields */
    if (!tok_is(p, 0, TK_YEAR, 4) || !tok_lit1(p, 1, &p->sep[0]) || !tok_is(p, 2, TK_MONTH, 2)) return;
    if (p->ntok == 3) { p->fast = FAST_YM; return; }
    if (!tok_lit1(p, 3, &p->sep[1]) || !tok_is(p, 4, TK_DAY, 2)) return;
    if (p->ntok == 5) { p->fast = FAST_YMD; return; }
    char c1, c2;
    if (p->ntok == 11 && tok_lit1(p, 5, &p->sep[2]) && tok_is(p, 6, TK_HOUR24, 2) && tok_lit1(p, 7, &c1) &&
        c1 == ':' && tok_is(p, 8, TK_MINUTE, 2) && tok_lit1(p, 9, &c2) && c2 == ':' && tok_is(p, 10, TK_SECOND, 2))
        p->fast = FAST_YMD_HMS;
}

/* Java DateTimeFormatter / SimpleDateFormat letters (the subset Spark and Flink document). */
static int compile_java(fmt_prog *p, const char *s, size_t n) {
    memset(p, 0, sizeof *p);
    size_t i = 0;
    int rc = 0;
    while (i < n && !rc) {
        char c = s[i];
        if (c == '\'') {
            if (i + 1 < n && s[i + 1] == '\'') {
                rc = add_lit(p, "'", 1);
                i += 2;
                continue;
            }
            size_t j = i + 1;
            while (j < n) {
                if (s[j] == '\'' && j + 1 < n && s[j + 1] == '\'') {
                    rc = add_lit(p, "'", 1);
                    j += 2;
                    continue;
                }
                if (s[j] == '\'') break;
                rc = add_lit(p, s + j, 1);
                j++;
            }
            i = j + 1;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            rc = add_lit(p, &c, 1);
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && s[j] == c) j++;
        int cnt = (int)(j - i);
        i = j;
        switch (c) {
        case 'y':
        case 'Y': rc = cnt == 2 ? add_tok(p, TK_YEAR2, 2) : add_tok(p, TK_YEAR, cnt); break;
        case 'M':
        case 'L':
            rc = cnt >= 4 ? add_tok(p, TK_MONTH_FULL, 0) : cnt == 3 ? add_tok(p, TK_MONTH_ABBR, 0) : add_tok(p, TK_MONTH, cnt);
            break;
        case 'd': rc = add_tok(p, TK_DAY, cnt); break;
        case 'D': rc = add_tok(p, TK_DOY, cnt); break;
        case 'H': rc = add_tok(p, TK_HOUR24, cnt); break;
        case 'h': rc = add_tok(p, TK_HOUR12, cnt); break;
        case 'k': rc = add_tok(p, TK_HOUR24_1, cnt); break;
        case 'K': rc = add_tok(p, TK_HOUR12_0, cnt); break;
        case 'm': rc = add_tok(p, TK_MINUTE, cnt); break;
        case 's': rc = add_tok(p, TK_SECOND, cnt); break;
        case 'S': rc = add_tok(p, TK_FRAC, cnt > 9 ? 9 : cnt); break;
        case 'a': rc = add_tok(p, TK_AMPM, 0); break;
        case 'E': rc = add_tok(p, cnt >= 4 ? TK_WDAY_FULL : TK_WDAY_ABBR, 0); break;
        case 'u': rc = add_tok(p, TK_WDAY_MON1, cnt); break;
        case 'Q':
        case 'q': rc = add_tok(p, TK_QUARTER, cnt); break;
        case 'G': rc = add_tok(p, TK_ERA, 0); break;
        case 'z':
        case 'V': rc = add_tok(p, TK_TZ_NAME, 0); break;
        case 'Z': rc = add_tok(p, TK_TZ_HHMM, 0); break;
        case 'X': rc = add_tok(p, TK_TZ_Z, 0); break;
        case 'x': rc = add_tok(p, TK_TZ_OFFSET, 0); break;
        default:
            rc = tn_error_set(TN_EINVAL, "Illegal pattern character '%c' in datetime pattern '%.*s'", c,
                              (int)(n > 200 ? 200 : n), s);
        }
    }
    if (!rc) finish_prog(p);
    return rc;
}

/* strftime specifiers as DuckDB supports them (%-x: no padding). */
static int compile_strftime(fmt_prog *p, const char *s, size_t n) {
    memset(p, 0, sizeof *p);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (s[i] != '%') {
            rc = add_lit(p, s + i, 1);
            continue;
        }
        if (++i >= n) return tn_error_set(TN_EINVAL, "Failed to parse format specifier %.*s: Trailing format character %%", (int)n, s);
        bool nopad = false;
        if (s[i] == '-' && i + 1 < n) nopad = true, i++;
        int w2 = nopad ? 0 : 2;
        switch (s[i]) {
        case 'Y': rc = add_tok(p, TK_YEAR, nopad ? 0 : 4); break;
        case 'y': rc = add_tok(p, TK_YEAR2, w2); break;
        case 'm': rc = add_tok(p, TK_MONTH, w2); break;
        case 'd': rc = add_tok(p, TK_DAY, w2); break;
        case 'H': rc = add_tok(p, TK_HOUR24, w2); break;
        case 'I': rc = add_tok(p, TK_HOUR12, w2); break;
        case 'M': rc = add_tok(p, TK_MINUTE, w2); break;
        case 'S': rc = add_tok(p, TK_SECOND, w2); break;
        case 'f': rc = add_tok(p, TK_FRAC, 6); break;
        case 'g': rc = add_tok(p, TK_FRAC, 3); break;
        case 'n': rc = add_tok(p, TK_FRAC, 6); break;
        case 'j': rc = add_tok(p, TK_DOY, nopad ? 0 : 3); break;
        case 'a': rc = add_tok(p, TK_WDAY_ABBR, 0); break;
        case 'A': rc = add_tok(p, TK_WDAY_FULL, 0); break;
        case 'b':
        case 'h': rc = add_tok(p, TK_MONTH_ABBR, 0); break;
        case 'B': rc = add_tok(p, TK_MONTH_FULL, 0); break;
        case 'p': rc = add_tok(p, TK_AMPM, 0); break;
        case 'w': rc = add_tok(p, TK_WDAY_SUN0, 0); break;
        case 'u': rc = add_tok(p, TK_WDAY_MON1, 0); break;
        case 'V': rc = add_tok(p, TK_ISOWEEK, w2); break;
        case 'U': rc = add_tok(p, TK_WEEK_SUN, w2); break;
        case 'W': rc = add_tok(p, TK_WEEK_MON, w2); break;
        case 'G': rc = add_tok(p, TK_ISOYEAR, 4); break;
        case 'z': rc = add_tok(p, TK_TZ_OFFSET, 0); break;
        case 'Z': break; /* zone name: empty for naive timestamps */
        case '%': rc = add_lit(p, "%", 1); break;
        case 'c':
            rc = compile_strftime(p, "", 0);
            if (!rc) rc = compile_strftime(p, "%Y-%m-%d %H:%M:%S", 17);
            break;
        default:
            return tn_error_set(TN_EINVAL, "Failed to parse format specifier %.*s: Unrecognized format for strftime/strptime: %%%c",
                                (int)(n > 200 ? 200 : n), s, s[i]);
        }
    }
    return rc;
}

/* %c %x %X are handled by expanding them before compiling (keeps compile_strftime simple). */
static int compile_strftime_full(fmt_prog *p, const char *s, size_t n) {
    char buf[1024];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = NULL;
        if (s[i] == '%' && i + 1 < n) {
            if (s[i + 1] == 'c') rep = "%Y-%m-%d %H:%M:%S";
            else if (s[i + 1] == 'x') rep = "%Y-%m-%d";
            else if (s[i + 1] == 'X') rep = "%H:%M:%S";
        }
        if (rep) {
            size_t rl = strlen(rep);
            if (k + rl >= sizeof buf) return tn_error_set(TN_ELIMIT, "format pattern is too long");
            memcpy(buf + k, rep, rl);
            k += rl;
            i++;
            continue;
        }
        if (s[i] == '%' && i + 1 < n) {
            if (k + 2 >= sizeof buf) return tn_error_set(TN_ELIMIT, "format pattern is too long");
            buf[k++] = s[i++];
        }
        if (k + 1 >= sizeof buf) return tn_error_set(TN_ELIMIT, "format pattern is too long");
        buf[k++] = s[i];
    }
    int rc = compile_strftime(p, buf, k);
    if (!rc) finish_prog(p);
    p->strf = 1;
    return rc;
}

/* Writes v (>= 0) with at least `width` digits (zero-padded); returns the bytes written. */
static size_t put_uint(char *o, uint64_t v, int width) {
    char t[24];
    size_t k = 0;
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while ((int)k < width && k < sizeof t) t[k++] = '0';
    for (size_t i = 0; i < k; i++) o[i] = t[k - 1 - i];
    return k;
}

/* printf("%0*lld") of a signed value: the sign counts towards the width. */
static size_t put_num(char *o, int64_t v, int width) {
    if (v >= 0) return put_uint(o, (uint64_t)v, width);
    o[0] = '-';
    return 1 + put_uint(o + 1, (uint64_t)0 - (uint64_t)v, width - 1);
}

static inline void put2(char *o, unsigned v) {
    o[0] = (char)('0' + v / 10);
    o[1] = (char)('0' + v % 10);
}

static size_t put_str(char *o, const char *s) {
    size_t n = strlen(s);
    memcpy(o, s, n);
    return n;
}

/* Broken-down time, computing only what the program needs. */
static void civil_for(const fmt_prog *p, int64_t us, civil *c) {
    int64_t days = floordiv(us, US_PER_DAY), t = us - days * US_PER_DAY;
    tn_civil_from_days(days, &c->year, &c->month, &c->day);
    c->days = days;
    c->hour = (int)(t / 3600000000LL);
    c->minute = (int)(t / 60000000LL % 60);
    c->second = (int)(t / 1000000 % 60);
    c->micros = (int)(t % 1000000);
    c->dow = (p->needs & NEED_DOW) ? (int)(((days % 7) + 11) % 7) : 0;
    c->doy = (p->needs & NEED_DOY) ? (int)(days - tn_days_from_civil(c->year, 1, 1) + 1) : 0;
}

/* Formats us into o (room for FMT_OUT_MAX bytes); returns the length. */
static size_t run_format(const fmt_prog *p, int64_t us, bool tz, char *o) {
    civil c;
    civil_for(p, us, &c);
    if (p->fast && c.year >= 0 && c.year <= 9999) {
        unsigned y = (unsigned)c.year;
        put2(o, y / 100);
        put2(o + 2, y % 100);
        o[4] = p->sep[0];
        put2(o + 5, c.month);
        if (p->fast == FAST_YM) return 7;
        o[7] = p->sep[1];
        put2(o + 8, c.day);
        if (p->fast == FAST_YMD) return 10;
        o[10] = p->sep[2];
        put2(o + 11, (unsigned)c.hour);
        o[13] = ':';
        put2(o + 14, (unsigned)c.minute);
        o[16] = ':';
        put2(o + 17, (unsigned)c.second);
        return 19;
    }
    size_t n = 0;
    for (uint32_t k = 0; k < p->ntok; k++) {
        const fmt_token *t = &p->tok[k];
        int h12 = c.hour % 12 == 0 ? 12 : c.hour % 12;
        switch ((tk_kind)t->kind) {
        case TK_LIT:
            memcpy(o + n, p->lit + t->lit_off, t->lit_len);
            n += t->lit_len;
            break;
        case TK_YEAR:
            if (c.year < 0 && t->width >= 4) {
                o[n++] = '-';
                n += put_num(o + n, -c.year, t->width);
            } else {
                n += put_num(o + n, c.year, t->width);
            }
            break;
        case TK_YEAR2: n += put_num(o + n, ((c.year % 100) + 100) % 100, t->width); break;
        case TK_MONTH: n += put_num(o + n, c.month, t->width); break;
        case TK_MONTH_ABBR: memcpy(o + n, g_month_abbr[c.month - 1], 3); n += 3; break;
        case TK_MONTH_FULL: n += put_str(o + n, g_month_full[c.month - 1]); break;
        case TK_DAY: n += put_num(o + n, c.day, t->width); break;
        case TK_DOY: n += put_num(o + n, c.doy, t->width); break;
        case TK_HOUR24: n += put_num(o + n, c.hour, t->width); break;
        case TK_HOUR12: n += put_num(o + n, h12, t->width); break;
        case TK_HOUR24_1: n += put_num(o + n, c.hour == 0 ? 24 : c.hour, t->width); break;
        case TK_HOUR12_0: n += put_num(o + n, c.hour % 12, t->width); break;
        case TK_MINUTE: n += put_num(o + n, c.minute, t->width); break;
        case TK_SECOND: n += put_num(o + n, c.second, t->width); break;
        case TK_FRAC: {
            /* micros as 6 digits then "000": the first `width` of those 9 */
            char fr[9];
            put_uint(fr, (uint64_t)c.micros, 6);
            memcpy(fr + 6, "000", 3);
            size_t w = t->width ? t->width : 6;
            memcpy(o + n, fr, w);
            n += w;
            break;
        }
        case TK_AMPM: memcpy(o + n, c.hour < 12 ? "AM" : "PM", 2); n += 2; break;
        case TK_WDAY_ABBR: memcpy(o + n, g_day_abbr[c.dow], 3); n += 3; break;
        case TK_WDAY_FULL: n += put_str(o + n, g_day_full[c.dow]); break;
        case TK_WDAY_SUN0: n += put_num(o + n, c.dow, 0); break;
        case TK_WDAY_MON1: n += put_num(o + n, c.dow == 0 ? 7 : c.dow, t->width); break;
        case TK_ISOWEEK:
        case TK_ISOYEAR: {
            int w;
            int64_t y;
            iso_week(&c, &w, &y);
            n += t->kind == TK_ISOWEEK ? put_num(o + n, w, t->width) : put_num(o + n, y, t->width);
            break;
        }
        case TK_WEEK_SUN: n += put_num(o + n, (c.doy + 6 - c.dow) / 7, t->width); break;
        case TK_WEEK_MON: n += put_num(o + n, (c.doy + 6 - (c.dow + 6) % 7) / 7, t->width); break;
        case TK_TZ_OFFSET: memcpy(o + n, "+00", 3); n += 3; break;
        case TK_TZ_HHMM: memcpy(o + n, "+0000", 5); n += 5; break;
        case TK_TZ_Z: o[n++] = 'Z'; break;
        case TK_TZ_NAME: (void)tz; memcpy(o + n, "UTC", 3); n += 3; break;
        case TK_QUARTER: n += put_num(o + n, (c.month - 1) / 3 + 1, t->width); break;
        case TK_ERA: memcpy(o + n, c.year > 0 ? "AD" : "BC", 2); n += 2; break;
        }
    }
    return n;
}

/* Parse s with the token list. 0 ok; -1 no match. */
static int read_num(const char *s, size_t n, size_t *i, int maxd, int64_t *v) {
    size_t st = *i;
    bool neg = false;
    if (*i < n && (s[*i] == '-' || s[*i] == '+') && maxd >= 4) neg = s[(*i)++] == '-';
    int64_t x = 0;
    int k = 0;
    while (*i < n && k < maxd && s[*i] >= '0' && s[*i] <= '9') x = x * 10 + (s[(*i)++] - '0'), k++;
    if (k == 0) {
        *i = st;
        return -1;
    }
    *v = neg ? -x : x;
    return 0;
}

static int read_name(const char *s, size_t n, size_t *i, const char *const *names, int count, int len) {
    for (int k = 0; k < count; k++) {
        size_t l = len ? (size_t)len : strlen(names[k]);
        if (*i + l <= n && tn_str_iequal_n(s + *i, l, names[k]) == true) {
            *i += l;
            return k;
        }
    }
    return -1;
}

static int run_parse(const fmt_prog *p, const char *s, size_t n, int64_t *out) {
    /* DuckDB's strptime defaults to 1900-01-01 (C's struct tm); Java patterns to 1970-01-01 */
    int64_t year = p->strf ? 1900 : 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, micros = 0, doy = -1, v;
    int64_t wday = -1, week_sun = -1, week_mon = -1, isoweek = -1, isoyear = -1, tz_us = 0;
    int pm = -1;
    bool h12 = false;
    size_t i = 0;
    for (uint32_t k = 0; k < p->ntok; k++) {
        const fmt_token *t = &p->tok[k];
        /* numbers directly followed by another number token take exactly `width` digits */
        bool adjacent = k + 1 < p->ntok && p->tok[k + 1].kind != TK_LIT;
        int maxd = adjacent && t->width ? t->width : 9;
        switch ((tk_kind)t->kind) {
        case TK_LIT:
            for (uint16_t j = 0; j < t->lit_len; j++) {
                char c = p->lit[t->lit_off + j];
                if (c == ' ') {
                    while (i < n && s[i] == ' ') i++;
                    continue;
                }
                if (i >= n || s[i] != c) return -1;
                i++;
            }
            break;
        case TK_YEAR:
            if (read_num(s, n, &i, adjacent ? 4 : 9, &year)) return -1;
            break;
        case TK_YEAR2:
            if (read_num(s, n, &i, 2, &v)) return -1;
            year = v < 70 ? 2000 + v : 1900 + v;
            break;
        case TK_MONTH:
            if (read_num(s, n, &i, adjacent ? 2 : (maxd > 2 ? 2 : maxd), &month)) return -1;
            break;
        case TK_MONTH_ABBR:
        case TK_MONTH_FULL: {
            int m = read_name(s, n, &i, g_month_full, 12, 0);
            if (m < 0) m = read_name(s, n, &i, g_month_abbr, 12, 3);
            if (m < 0) return -1;
            month = m + 1;
            break;
        }
        case TK_DAY:
            if (read_num(s, n, &i, 2, &day)) return -1;
            break;
        case TK_DOY:
            if (read_num(s, n, &i, 3, &doy) || doy < 1 || doy > 366) return -1;
            break;
        case TK_HOUR24:
        case TK_HOUR24_1:
            if (read_num(s, n, &i, 2, &hour)) return -1;
            if (t->kind == TK_HOUR24_1 && hour == 24) hour = 0;
            break;
        case TK_HOUR12:
        case TK_HOUR12_0:
            if (read_num(s, n, &i, 2, &hour)) return -1;
            h12 = true;
            break;
        case TK_MINUTE:
            if (read_num(s, n, &i, 2, &minute)) return -1;
            break;
        case TK_SECOND:
            if (read_num(s, n, &i, 2, &second)) return -1;
            break;
        case TK_FRAC: {
            size_t st = i;
            int64_t f = 0;
            int d = 0;
            int lim = adjacent ? t->width : 9;
            while (i < n && d < lim && s[i] >= '0' && s[i] <= '9') {
                if (d < 6) f = f * 10 + (s[i] - '0');
                d++;
                i++;
            }
            if (i == st) return -1;
            for (int q = d; q < 6; q++) f *= 10;
            micros = f;
            break;
        }
        case TK_AMPM:
            if (i + 2 <= n && tn_str_iequal_n(s + i, 2, "AM")) pm = 0;
            else if (i + 2 <= n && tn_str_iequal_n(s + i, 2, "PM")) pm = 1;
            else return -1;
            i += 2;
            break;
        case TK_WDAY_ABBR:
        case TK_WDAY_FULL: {
            int w = read_name(s, n, &i, g_day_full, 7, 0);
            if (w < 0) w = read_name(s, n, &i, g_day_abbr, 7, 3);
            if (w < 0) return -1;           /* DuckDB: read, neither checked nor used for %U/%W/%V */
            break;
        }
        case TK_WDAY_SUN0:                  /* %w: 0 = Sunday .. 6 */
            if (read_num(s, n, &i, 1, &v) || v > 6) return -1;
            wday = v;
            break;
        case TK_WDAY_MON1:                  /* %u: 1 = Monday .. 7 = Sunday */
            if (read_num(s, n, &i, 1, &v) || v < 1 || v > 7) return -1;
            wday = v % 7;
            break;
        case TK_WEEK_SUN:                   /* %U: weeks from the year's first Sunday (00..53) */
            if (read_num(s, n, &i, 2, &week_sun) || week_sun > 53) return -1;
            break;
        case TK_WEEK_MON:                   /* %W: from the first Monday */
            if (read_num(s, n, &i, 2, &week_mon) || week_mon > 53) return -1;
            break;
        case TK_ISOWEEK:                    /* %V: ISO 8601 week (01..53) */
            if (read_num(s, n, &i, 2, &isoweek) || isoweek < 1 || isoweek > 53) return -1;
            break;
        case TK_ISOYEAR:                    /* %G: the ISO week's year */
            if (read_num(s, n, &i, adjacent ? 4 : 9, &isoyear)) return -1;
            break;
        case TK_QUARTER:
            if (read_num(s, n, &i, 4, &v)) return -1;
            break;
        case TK_TZ_OFFSET:
            if (p->strf) {                  /* %z: Z, UTC, +HH, +HHMM, +HH:MM; the instant in UTC */
                if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
                    i++;
                } else if (i + 3 <= n && tn_str_iequal_n(s + i, 3, "UTC")) {
                    i += 3;
                } else {
                    if (i >= n || (s[i] != '+' && s[i] != '-')) return -1;
                    int sign = s[i++] == '-' ? -1 : 1;
                    int64_t hh = 0, mm = 0;
                    if (i + 2 > n || read_num(s, n, &i, 2, &hh) || hh > 23) return -1;
                    if (i < n && s[i] == ':') i++;
                    if (i + 2 <= n && s[i] >= '0' && s[i] <= '9') {
                        if (read_num(s, n, &i, 2, &mm) || mm > 59) return -1;
                    }
                    tz_us = sign * (hh * 3600 + mm * 60) * (int64_t)1000000;
                }
                break;
            }
            __attribute__((fallthrough));   /* Java patterns: the zone is consumed as before */
        case TK_TZ_HHMM:
        case TK_TZ_Z:
        case TK_TZ_NAME:
            if (i < n && (s[i] == 'Z' || s[i] == 'z')) i++;
            else if (i + 3 <= n && tn_str_iequal_n(s + i, 3, "UTC")) i += 3;
            else if (i < n && (s[i] == '+' || s[i] == '-')) {
                i++;
                while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ':')) i++;
            }
            break;
        case TK_ERA:
            if (i + 2 <= n) i += 2;
            break;
        }
    }
    if (i != n) return -1;
    if (h12) {
        if (hour < 1 || hour > 12) return -1;
        if (pm == 1 && hour != 12) hour += 12;
        if (pm == 0 && hour == 12) hour = 0;
    } else if (pm == 1 && hour < 12) {
        hour += 12;
    }
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return -1;
    int64_t days;
    if (year < -290000 || year > 294000 || (isoyear >= 0 && isoyear > 294000)) return -1;  /* beyond TIMESTAMP */
    if (isoweek > 0) {                      /* %G %V [%u]: Monday of ISO week 1 holds January 4 */
        int64_t jan4 = tn_days_from_civil(isoyear >= 0 ? isoyear : year, 1, 4);
        int64_t mon0 = (((jan4 % 7) + 7) % 7 + 3) % 7;     /* days since Monday (1970-01-01: Thursday) */
        days = jan4 - mon0 + (isoweek - 1) * 7 + (wday >= 0 ? (wday + 6) % 7 : 0);
    } else if (week_sun >= 0 || week_mon >= 0) {   /* %U / %W [%w %u %a]: as C's strptime */
        int64_t jan1 = tn_days_from_civil(year, 1, 1);
        int64_t dow = (((jan1 % 7) + 7) % 7 + 4) % 7;      /* 0 = Sunday */
        bool sun = week_sun >= 0;
        int64_t first_dow = sun ? dow : (dow + 6) % 7;       /* Jan 1 counted from the week's start */
        int64_t x0 = wday < 0 ? 0 : sun ? wday : (wday + 6) % 7;
        int64_t first = (7 - first_dow) % 7;                 /* offset of week 1's first day */
        days = jan1 + first + ((sun ? week_sun : week_mon) - 1) * 7 + x0;
    } else if (doy > 0) {
        days = tn_days_from_civil(year, 1, 1) + doy - 1;
    } else {
        days = tn_days_from_civil(year, (unsigned)month, (unsigned)day);
        int64_t y2;
        unsigned m2, d2;
        tn_civil_from_days(days, &y2, &m2, &d2);
        if (m2 != month || d2 != day) return -1; /* 2022-02-30 */
    }
    *out = days * US_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000000 + micros - tz_us;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Pattern binding: compiled once when the pattern is a constant.
 */
typedef struct fmt_bind {
    fmt_prog prog;
} fmt_bind;

static void free_fmt(void *bd) { tn_free(bd); }

static int bind_pattern(const tn_value *const *consts, uint32_t idx, bool java, void **bd) {
    const tn_value *p = consts[idx];
    if (!p || p->is_null || p->type.id != TN_TYPE_VARCHAR) return 0;
    fmt_bind *f = tn_calloc(1, sizeof *f);
    if (!f) return TN_ENOMEM;
    int rc = java ? compile_java(&f->prog, p->u.s.ptr, p->u.s.len) : compile_strftime_full(&f->prog, p->u.s.ptr, p->u.s.len);
    if (rc) {
        tn_free(f);
        return rc;
    }
    *bd = f;
    return 0;
}
static int bind_java1(tn_func_binding *b, const tn_value *const *c, void **bd) { return bind_pattern(c, 1, true, bd); }
static int bind_strf1(tn_func_binding *b, const tn_value *const *c, void **bd) { return bind_pattern(c, 1, false, bd); }
/* strptime / try_strptime: a constant pattern with %z gives TIMESTAMPTZ (the instant, in UTC). */
static int bind_strptime(tn_func_binding *b, const tn_value *const *c, void **bd) {
    int rc = bind_pattern(c, 1, false, bd);
    const fmt_bind *f = *bd;
    for (uint32_t k = 0; !rc && f && k < f->prog.ntok; k++)
        if (f->prog.tok[k].kind == TK_TZ_OFFSET) b->ret = tn_type_make(TN_TYPE_TIMESTAMP_TZ);
    return rc;
}

/* The program for row i: the bound one, or compiled from the row's pattern (cached). */
typedef struct prog_cache {
    fmt_prog prog;
    tn_str last;
    bool have;
} prog_cache;

static int row_prog(const tn_func_call *call, tn_vector *const *args, uint32_t k, uint32_t i, bool java,
                    prog_cache *pc, const fmt_prog **out) {
    if (call->bind_data) {
        *out = &((fmt_bind *)call->bind_data)->prog;
        return 0;
    }
    tn_str p = STR(k, i);
    if (!pc->have || p.len != pc->last.len || memcmp(p.ptr, pc->last.ptr, p.len) != 0) {
        int rc = java ? compile_java(&pc->prog, p.ptr, p.len) : compile_strftime_full(&pc->prog, p.ptr, p.len);
        if (rc) return rc;
        pc->last = p;
        pc->have = true;
    }
    *out = &pc->prog;
    return 0;
}

/* Row i of argument k in microseconds; an infinite DATE is an infinite TIMESTAMP. */
static int64_t ts_arg(tn_vector *const *args, uint32_t k, uint32_t i) {
    const tn_vector *v = args[k];
    uint32_t r = TN_ARG_IDX(v, i);
    if (v->type.id == TN_TYPE_DATE) {
        int32_t d = ((const int32_t *)v->data)[r];
        return tn_date_is_finite(d) ? (int64_t)d * US_PER_DAY : d > 0 ? TN_TS_INFINITY : -TN_TS_INFINITY;
    }
    return ((const int64_t *)v->data)[r];
}

static int format_fn(FN_ARGS, bool java) {
    char *o = tn_malloc(FMT_OUT_MAX);
    prog_cache *pc = tn_calloc(1, sizeof *pc);
    int rc = pc && o ? 0 : TN_ENOMEM;
    bool tz = args[0]->type.id == TN_TYPE_TIMESTAMP_TZ;
    tn_str *res = out->data;
    /* a constant pattern without time fields gives the same text for every instant of a day:
     * rows of the same day as the last formatted row share its bytes */
    bool have_last = false;
    int64_t last_day = 0;
    uint32_t last_row = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!VALID(i)) {
            tn_func_str_empty(out, i);
            continue;
        }
        const fmt_prog *p;
        if ((rc = row_prog(call, args, 1, i, java, pc, &p))) break;
        int64_t us = ts_arg(args, 0, i);
        if (!tn_ts_is_finite(us)) {   /* DuckDB: the infinities format as their names */
            rc = tn_vector_set_str(out, i, us > 0 ? "infinity" : "-infinity", us > 0 ? 8 : 9);
            continue;
        }
        if (call->bind_data && !(p->needs & NEED_TIME)) {
            int64_t day = floordiv(us, US_PER_DAY);
            if (have_last && day == last_day) {
                res[i] = res[last_row];
                continue;
            }
            have_last = true;
            last_day = day;
            last_row = i;
        }
        size_t len = run_format(p, us, tz, o);
        rc = tn_vector_set_str(out, i, o, len);
    }
    tn_free(pc);
    tn_free(o);
    return rc;
}
static int f_date_format(FN_ARGS) { return format_fn(call, args, nargs, n, out, true); }
static int f_strftime(FN_ARGS) { return format_fn(call, args, nargs, n, out, false); }

/* from_unixtime(seconds[, java pattern]) (Spark): default 'yyyy-MM-dd HH:mm:ss'. */
static int f_from_unixtime(FN_ARGS) {
    char *o = tn_malloc(FMT_OUT_MAX);
    prog_cache *pc = tn_calloc(1, sizeof *pc);
    fmt_prog *def = tn_calloc(1, sizeof *def);
    int rc = pc && def && o ? compile_java(def, "yyyy-MM-dd HH:mm:ss", 19) : TN_ENOMEM;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!VALID(i)) {
            tn_func_str_empty(out, i);
            continue;
        }
        const fmt_prog *p = def;
        if (nargs > 1 && (rc = row_prog(call, args, 1, i, true, pc, &p))) break;
        int64_t sec = I64(0, i), us;
        if (__builtin_mul_overflow(sec, 1000000, &us)) {
            rc = tn_error_set(TN_ELIMIT, "from_unixtime: %lld is out of range", (long long)sec);
            break;
        }
        size_t len = run_format(p, us, false, o);
        rc = tn_vector_set_str(out, i, o, len);
    }
    tn_free(pc);
    tn_free(def);
    tn_free(o);
    return rc;
}

/* to_date / to_timestamp with a Java pattern (NULL when the text does not match, as Spark) and
 * strptime (DuckDB: an error; try_strptime: NULL). */
static int parse_fn(FN_ARGS, bool java, bool error_on_fail, bool to_date) {
    prog_cache *pc = tn_calloc(1, sizeof *pc);
    int rc = pc ? 0 : TN_ENOMEM;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!VALID(i)) continue;
        const fmt_prog *p;
        if ((rc = row_prog(call, args, 1, i, java, pc, &p))) break;
        tn_str s = STR(0, i);
        int64_t us;
        if (run_parse(p, s.ptr, s.len, &us) != 0) {
            if (error_on_fail) {
                tn_str f = STR(1, i);
                rc = tn_error_set(TN_EINVAL, "Invalid Input Error: Could not parse string \"%.*s\" according to format specifier \"%.*s\"",
                                  (int)(s.len > 200 ? 200 : s.len), s.ptr, (int)(f.len > 200 ? 200 : f.len), f.ptr);
            } else {
                rc = tn_vector_set_null(out, i);
            }
            continue;
        }
        if (to_date) ((int32_t *)out->data)[i] = (int32_t)floordiv(us, US_PER_DAY);
        else ((int64_t *)out->data)[i] = us;
    }
    tn_free(pc);
    return rc;
}
static int f_to_date_fmt(FN_ARGS) { return parse_fn(call, args, nargs, n, out, true, false, true); }
static int f_to_timestamp_fmt(FN_ARGS) { return parse_fn(call, args, nargs, n, out, true, false, false); }
static int f_strptime(FN_ARGS) { return parse_fn(call, args, nargs, n, out, false, true, false); }
static int f_try_strptime(FN_ARGS) { return parse_fn(call, args, nargs, n, out, false, false, false); }

/* to_date(string) / to_timestamp(string) without a pattern: the CAST rules; NULL on failure. */
static int f_to_date_str(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        tn_str s = STR(0, i);
        int32_t d;
        if (tn_parse_date(s.ptr, s.len, &d)) {
            int rc = tn_vector_set_null(out, i);
            if (rc) return rc;
        } else {
            ((int32_t *)out->data)[i] = d;
        }
    }
    return 0;
}
static int f_to_timestamp_str(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        tn_str s = STR(0, i);
        int64_t t;
        bool z;
        if (tn_parse_timestamp(s.ptr, s.len, &t, &z)) {
            int rc = tn_vector_set_null(out, i);
            if (rc) return rc;
        } else {
            ((int64_t *)out->data)[i] = t;
        }
    }
    return 0;
}
static int f_ts_to_date(FN_ARGS) {
    int32_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        int64_t us = ts_arg(args, 0, i);
        r[i] = tn_ts_is_finite(us) ? (int32_t)floordiv(us, US_PER_DAY) : us > 0 ? TN_DATE_INFINITY : -TN_DATE_INFINITY;
    }
    return 0;
}

/* to_timestamp(seconds) -> TIMESTAMPTZ (DuckDB). */
static int f_to_timestamp_epoch(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        double s = ((const double *)args[0]->data)[TN_ARG_IDX(args[0], i)] * 1e6;
        /* TIMESTAMP's range; the largest double below 2^63 is 2^63 - 1024, inside it */
        if (!(s >= (double)TN_TS_MIN_US && s < 9223372036854775808.0) && VALID(i))
            return tn_error_set(TN_ELIMIT, "Conversion Error: Could not convert epoch seconds to TIMESTAMP WITH TIME ZONE");
        r[i] = VALID(i) ? (int64_t)llround(s) : 0;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Parts: extract / date_part, year() .. second(), date_trunc, datediff.
 */
typedef enum part {
    P_YEAR, P_QUARTER, P_MONTH, P_WEEK, P_DAY, P_DOW, P_ISODOW, P_DOY, P_HOUR, P_MINUTE, P_SECOND,
    P_MILLISECOND, P_MICROSECOND, P_EPOCH, P_DECADE, P_CENTURY, P_MILLENNIUM, P_ISOYEAR, P_YEARWEEK,
    P_INVALID
} part;

static const struct { const char *name; part p; } g_parts[] = {
    {"year", P_YEAR}, {"years", P_YEAR}, {"y", P_YEAR}, {"yr", P_YEAR}, {"yrs", P_YEAR},
    {"quarter", P_QUARTER}, {"quarters", P_QUARTER}, {"month", P_MONTH}, {"months", P_MONTH},
    {"mon", P_MONTH}, {"week", P_WEEK}, {"weeks", P_WEEK}, {"w", P_WEEK}, {"weekofyear", P_WEEK},
    {"day", P_DAY}, {"days", P_DAY}, {"d", P_DAY}, {"dayofmonth", P_DAY}, {"dow", P_DOW},
    {"dayofweek", P_DOW}, {"isodow", P_ISODOW}, {"doy", P_DOY}, {"dayofyear", P_DOY},
    {"hour", P_HOUR}, {"hours", P_HOUR}, {"h", P_HOUR}, {"hr", P_HOUR}, {"minute", P_MINUTE},
    {"minutes", P_MINUTE}, {"m", P_MINUTE}, {"min", P_MINUTE}, {"second", P_SECOND},
    {"seconds", P_SECOND}, {"s", P_SECOND}, {"sec", P_SECOND}, {"millisecond", P_MILLISECOND},
    {"milliseconds", P_MILLISECOND}, {"ms", P_MILLISECOND}, {"microsecond", P_MICROSECOND},
    {"microseconds", P_MICROSECOND}, {"us", P_MICROSECOND}, {"epoch", P_EPOCH},
    {"decade", P_DECADE}, {"century", P_CENTURY}, {"millennium", P_MILLENNIUM},
    {"isoyear", P_ISOYEAR}, {"yearweek", P_YEARWEEK},
};

static part part_of(tn_str s) {
    for (size_t i = 0; i < sizeof g_parts / sizeof g_parts[0]; i++)
        if (tn_str_iequal_n(s.ptr, s.len, g_parts[i].name)) return g_parts[i].p;
    return P_INVALID;
}

static int bad_part(tn_str s) {
    return tn_error_set(TN_EINVAL, "Unsupported date part '%.*s'", (int)(s.len > 100 ? 100 : s.len), s.ptr);
}

static int64_t part_value(part p, int64_t us, double *epoch) {
    civil c;
    civil_from_micros(us, &c);
    switch (p) {
    case P_YEAR: return c.year;
    case P_QUARTER: return (c.month - 1) / 3 + 1;
    case P_MONTH: return c.month;
    case P_WEEK: {
        int w;
        int64_t y;
        iso_week(&c, &w, &y);
        return w;
    }
    case P_ISOYEAR:
    case P_YEARWEEK: {
        int w;
        int64_t y;
        iso_week(&c, &w, &y);
        return p == P_ISOYEAR ? y : y * 100 + w;
    }
    case P_DAY: return c.day;
    case P_DOW: return c.dow;
    case P_ISODOW: return c.dow == 0 ? 7 : c.dow;
    case P_DOY: return c.doy;
    case P_HOUR: return c.hour;
    case P_MINUTE: return c.minute;
    case P_SECOND: return c.second;
    case P_MILLISECOND: return c.second * 1000 + c.micros / 1000;
    case P_MICROSECOND: return c.second * 1000000 + c.micros;
    case P_EPOCH:
        if (epoch) *epoch = (double)us / 1e6;
        return floordiv(us, 1000000);
    case P_DECADE: return floordiv(c.year, 10);
    case P_CENTURY: return c.year > 0 ? (c.year - 1) / 100 + 1 : -((-c.year) / 100 + 1);
    case P_MILLENNIUM: return c.year > 0 ? (c.year - 1) / 1000 + 1 : -((-c.year) / 1000 + 1);
    default: return 0;
    }
}

typedef struct part_bind {
    part p;
} part_bind;

static int bind_extract(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    const tn_value *v = consts[0];
    if (!v || v->is_null || v->type.id != TN_TYPE_VARCHAR) return 0;
    part p = part_of(v->u.s);
    if (p == P_INVALID) return bad_part(v->u.s);
    part_bind *pb = tn_calloc(1, sizeof *pb);
    if (!pb) return TN_ENOMEM;
    pb->p = p;
    *bd = pb;
    if (p == P_EPOCH) b->ret = tn_type_make(TN_TYPE_DOUBLE);
    return 0;
}

static int f_extract(FN_ARGS) {
    part_bind *pb = call->bind_data;
    bool dbl = out->type.id == TN_TYPE_DOUBLE;
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        part p;
        if (pb) p = pb->p;
        else if ((p = part_of(STR(0, i))) == P_INVALID) return bad_part(STR(0, i));
        double ep = 0;
        int64_t us = ts_arg(args, 1, i);
        if (!tn_ts_is_finite(us)) {   /* no part of an infinity (DuckDB: NULL) */
            int rc = tn_vector_set_null(out, i);
            if (rc) return rc;
            continue;
        }
        int64_t v = part_value(p, us, &ep);
        if (dbl) ((double *)out->data)[i] = ep;
        else ((int64_t *)out->data)[i] = v;
    }
    return 0;
}

/* rows f applies to: the infinities have no parts (NULL, as DuckDB) */
static int part_rows(tn_vector *const *args, uint32_t n, tn_vector *out, part p) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        int64_t us = ts_arg(args, 0, i);
        if (tn_ts_is_finite(us)) {
            r[i] = part_value(p, us, NULL);
        } else {
            int rc = tn_vector_set_null(out, i);
            if (rc) return rc;
        }
    }
    return 0;
}
#define PART_FN(NAME, P) \
    static int NAME(FN_ARGS) { return part_rows(args, n, out, P); }
PART_FN(f_year, P_YEAR)
PART_FN(f_quarter, P_QUARTER)
PART_FN(f_month, P_MONTH)
PART_FN(f_week, P_WEEK)
PART_FN(f_day, P_DAY)
PART_FN(f_dow, P_DOW)
PART_FN(f_isodow, P_ISODOW)
PART_FN(f_doy, P_DOY)
PART_FN(f_hour, P_HOUR)
PART_FN(f_minute, P_MINUTE)
PART_FN(f_second, P_SECOND)
PART_FN(f_epoch, P_EPOCH)

/* Whether truncating to p depends only on the day (so equal days give equal results). */
static bool trunc_by_day(part p) {
    switch (p) {
    case P_MILLENNIUM: case P_CENTURY: case P_DECADE: case P_YEAR: case P_QUARTER: case P_MONTH:
    case P_WEEK: case P_DAY: case P_DOW: case P_ISODOW: case P_DOY:
        return true;
    default: return false;
    }
}

static int64_t trunc_to(part p, int64_t us, bool *ok) {
    *ok = true;
    int64_t days = floordiv(us, US_PER_DAY);
    int64_t y = 0;
    unsigned m = 1, d = 1;
    switch (p) {
    case P_MILLENNIUM: case P_CENTURY: case P_DECADE: case P_YEAR: case P_QUARTER: case P_MONTH:
        tn_civil_from_days(days, &y, &m, &d);
        break;
    default: break;
    }
    switch (p) {
    case P_MILLENNIUM: return (int64_t)tn_days_from_civil(floordiv(y - 1, 1000) * 1000 + 1, 1, 1) * US_PER_DAY;
    case P_CENTURY: return (int64_t)tn_days_from_civil(floordiv(y - 1, 100) * 100 + 1, 1, 1) * US_PER_DAY;
    case P_DECADE: return (int64_t)tn_days_from_civil(floordiv(y, 10) * 10, 1, 1) * US_PER_DAY;
    case P_YEAR: return (int64_t)tn_days_from_civil(y, 1, 1) * US_PER_DAY;
    case P_QUARTER: return (int64_t)tn_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1) * US_PER_DAY;
    case P_MONTH: return (int64_t)tn_days_from_civil(y, m, 1) * US_PER_DAY;
    case P_WEEK: {
        int dow = (int)(((days % 7) + 11) % 7);   /* 0 = Sunday; weeks start on Monday */
        return (days - (dow + 6) % 7) * US_PER_DAY;
    }
    case P_DAY:
    case P_DOW:
    case P_ISODOW:
    case P_DOY: return days * US_PER_DAY;
    case P_HOUR: return floordiv(us, 3600000000LL) * 3600000000LL;
    case P_MINUTE: return floordiv(us, 60000000LL) * 60000000LL;
    case P_SECOND: return floordiv(us, 1000000) * 1000000;
    case P_MILLISECOND: return floordiv(us, 1000) * 1000;
    case P_MICROSECOND: return us;
    default: *ok = false; return 0;
    }
}

static int bind_part0(tn_func_binding *b, const tn_value *const *consts, void **bd) {
    const tn_value *v = consts[0];
    if (!v || v->is_null || v->type.id != TN_TYPE_VARCHAR) return 0;
    part p = part_of(v->u.s);
    if (p == P_INVALID) return bad_part(v->u.s);
    part_bind *pb = tn_calloc(1, sizeof *pb);
    if (!pb) return TN_ENOMEM;
    pb->p = p;
    *bd = pb;
    return 0;
}

static int f_date_trunc(FN_ARGS) {
    part_bind *pb = call->bind_data;
    int64_t *r = out->data;
    /* a constant part no finer than a day: rows of the last row's day share its result */
    bool by_day = pb && trunc_by_day(pb->p), have_last = false;
    int64_t last_day = 0, last = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        int64_t us = ts_arg(args, 1, i);
        if (!tn_ts_is_finite(us)) {   /* an infinity truncates to itself */
            r[i] = us;
            continue;
        }
        if (by_day) {
            int64_t day = floordiv(us, US_PER_DAY);
            if (have_last && day == last_day) {
                r[i] = last;
                continue;
            }
            bool ok;
            last = r[i] = trunc_to(pb->p, us, &ok);
            last_day = day;
            have_last = true;
            continue;
        }
        part p = pb ? pb->p : part_of(STR(0, i));
        bool ok;
        r[i] = trunc_to(p, us, &ok);
        if (!ok) return bad_part(STR(0, i));
    }
    return 0;
}

/* DuckDB datediff/date_diff(part, start, end): the number of part boundaries between. */
static int64_t diff_part(part p, int64_t a, int64_t b, bool *ok) {
    civil x, y;
    *ok = true;
    switch (p) {
    case P_YEAR:
    case P_QUARTER:
    case P_MONTH:
    case P_DECADE:
    case P_CENTURY:
    case P_MILLENNIUM:
        civil_from_micros(a, &x);
        civil_from_micros(b, &y);
        if (p == P_YEAR) return y.year - x.year;
        if (p == P_MONTH) return (y.year * 12 + y.month) - (x.year * 12 + x.month);
        if (p == P_QUARTER) return (y.year * 4 + (y.month - 1) / 3) - (x.year * 4 + (x.month - 1) / 3);
        if (p == P_DECADE) return floordiv(y.year, 10) - floordiv(x.year, 10);
        if (p == P_CENTURY) return floordiv(y.year, 100) - floordiv(x.year, 100);
        return floordiv(y.year, 1000) - floordiv(x.year, 1000);
    case P_WEEK: return (floordiv(b, US_PER_DAY) - floordiv(a, US_PER_DAY)) / 7;
    case P_DAY:
    case P_DOW:
    case P_ISODOW:
    case P_DOY: return floordiv(b, US_PER_DAY) - floordiv(a, US_PER_DAY);
    case P_HOUR: return floordiv(b, 3600000000LL) - floordiv(a, 3600000000LL);
    case P_MINUTE: return floordiv(b, 60000000LL) - floordiv(a, 60000000LL);
    case P_SECOND: return floordiv(b, 1000000) - floordiv(a, 1000000);
    case P_MILLISECOND: return floordiv(b, 1000) - floordiv(a, 1000);
    case P_MICROSECOND: {
        int64_t d;
        if (__builtin_sub_overflow(b, a, &d)) *ok = false;   /* the caller tells it from a bad part */
        return d;
    }
    default: *ok = false; return 0;
    }
}

static int f_datediff3(FN_ARGS) {
    part_bind *pb = call->bind_data;
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        part p = pb ? pb->p : part_of(STR(0, i));
        bool ok;
        int64_t a = ts_arg(args, 1, i), b = ts_arg(args, 2, i);
        if (!tn_ts_is_finite(a) || !tn_ts_is_finite(b)) {   /* DuckDB: NULL */
            int rc = tn_vector_set_null(out, i);
            if (rc) return rc;
            continue;
        }
        r[i] = diff_part(p, a, b, &ok);
        if (!ok && p == P_MICROSECOND)   /* DuckDB: the difference in microseconds overflows */
            return tn_error_set(TN_ELIMIT, "Overflow in subtraction of INT64 (%lld - %lld)!", (long long)b, (long long)a);
        if (!ok) return bad_part(STR(0, i));
    }
    return 0;
}

/* Spark datediff(end, start) = days from start to end. */
static int f_datediff2(FN_ARGS) {
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = (int64_t)I32(0, i) - I32(1, i);
    return 0;
}

/* date +- days: in range or an error; an infinity stays infinite */
static int date_shift(FN_ARGS, int sign) {
    int32_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        int32_t x = I32(0, i);
        int64_t k = I64(1, i);
        tn_int128 d = (tn_int128)x + (sign > 0 ? (tn_int128)k : -(tn_int128)k);
        if (!tn_date_is_finite(x)) d = x;
        else if ((d < -TN_DATE_MAX_DAYS || d > TN_DATE_MAX_DAYS) && VALID(i)) return tn_error_set(TN_ELIMIT, "Date out of range");
        r[i] = (int32_t)d;
    }
    return 0;
}
static int f_date_add(FN_ARGS) { return date_shift(call, args, nargs, n, out, 1); }
static int f_date_sub(FN_ARGS) { return date_shift(call, args, nargs, n, out, -1); }

static int f_make_date(FN_ARGS) {
    int32_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (!VALID(i)) continue;
        int64_t y = I64(0, i), m = I64(1, i), d = I64(2, i);
        int64_t days = (m >= 1 && m <= 12 && d >= 1 && d <= 31 && y > -290000 && y < 290000)
                           ? tn_days_from_civil(y, (unsigned)m, (unsigned)d) : 0;
        int64_t y2;
        unsigned m2, d2;
        tn_civil_from_days(days, &y2, &m2, &d2);
        if (y2 != y || m2 != m || d2 != d)
            return tn_error_set(TN_EINVAL, "Date out of range: %lld-%lld-%lld", (long long)y, (long long)m, (long long)d);
        r[i] = (int32_t)days;
    }
    return 0;
}

/* isinf / isfinite of dates and timestamps (DuckDB): only the two infinities are infinite */
static int inf_rows(tn_vector *const *args, uint32_t n, tn_vector *out, bool want_inf) {
    uint8_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) r[i] = (uint8_t)(tn_ts_is_finite(ts_arg(args, 0, i)) != want_inf);
    return 0;
}
static int f_dt_isinf(FN_ARGS) { return inf_rows(args, n, out, true); }
static int f_dt_isfinite(FN_ARGS) { return inf_rows(args, n, out, false); }

static int f_now(FN_ARGS) {
    int64_t t = tn_func_statement_time();
    for (uint32_t i = 0; i < n; i++) ((int64_t *)out->data)[i] = t;
    return 0;
}
static int f_current_date(FN_ARGS) {
    int32_t d = (int32_t)floordiv(tn_func_statement_time(), US_PER_DAY);
    for (uint32_t i = 0; i < n; i++) ((int32_t *)out->data)[i] = d;
    return 0;
}

static int f_last_day(FN_ARGS) {
    int32_t *r = out->data;
    for (uint32_t i = 0; i < n; i++) {
        civil c;
        int64_t us = ts_arg(args, 0, i);
        if (!tn_ts_is_finite(us)) {   /* DuckDB: NULL */
            int rc = tn_vector_set_null(out, i);
            if (rc) return rc;
            continue;
        }
        civil_from_micros(us, &c);
        unsigned m = c.month == 12 ? 1 : c.month + 1;
        int64_t y = c.month == 12 ? c.year + 1 : c.year;
        r[i] = tn_days_from_civil(y, m, 1) - 1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Table.
 */
#define N TN_SIG_NONE
#define T_(x) TN_TYPE_##x
#define V TN_TYPE_VARCHAR
#define TS TN_TYPE_TIMESTAMP
#define TZ TN_TYPE_TIMESTAMP_TZ
#define DT TN_TYPE_DATE
#define B TN_TYPE_BIGINT
#define PART_ROWS(NAME, FN)                                                               \
    {NAME, {TS, N}, B, 0, FN, NULL, NULL}, {NAME, {TZ, N}, B, 0, FN, NULL, NULL}

const tn_func_def tn_funcs_datetime[] = {
    {"date_format", {TS, V, N}, V, 0, f_date_format, bind_java1, free_fmt},
    {"date_format", {TZ, V, N}, V, 0, f_date_format, bind_java1, free_fmt},
    {"strftime", {TS, V, N}, V, 0, f_strftime, bind_strf1, free_fmt},
    {"strftime", {TZ, V, N}, V, 0, f_strftime, bind_strf1, free_fmt},
    {"strptime", {V, V, N}, TS, 0, f_strptime, bind_strptime, free_fmt},
    {"try_strptime", {V, V, N}, TS, 0, f_try_strptime, bind_strptime, free_fmt},
    {"from_unixtime", {B, N}, V, 0, f_from_unixtime, NULL, NULL},
    {"from_unixtime", {B, V, N}, V, 0, f_from_unixtime, bind_java1, free_fmt},
    {"to_date", {V, N}, DT, 0, f_to_date_str, NULL, NULL},
    {"to_date", {V, V, N}, DT, 0, f_to_date_fmt, bind_java1, free_fmt},
    {"to_date", {TS, N}, DT, 0, f_ts_to_date, NULL, NULL},
    {"to_date", {TZ, N}, DT, 0, f_ts_to_date, NULL, NULL},
    {"to_timestamp", {V, N}, TS, 0, f_to_timestamp_str, NULL, NULL},
    {"to_timestamp", {V, V, N}, TS, 0, f_to_timestamp_fmt, bind_java1, free_fmt},
    {"to_timestamp", {T_(DOUBLE), N}, TZ, 0, f_to_timestamp_epoch, NULL, NULL},
    {"extract", {V, TS, N}, B, 0, f_extract, bind_extract, free_fmt},
    {"extract", {V, TZ, N}, B, 0, f_extract, bind_extract, free_fmt},
    {"date_trunc", {V, TS, N}, TS, 0, f_date_trunc, bind_part0, free_fmt},
    {"date_trunc", {V, TZ, N}, TZ, 0, f_date_trunc, bind_part0, free_fmt},
    {"datediff", {DT, DT, N}, B, 0, f_datediff2, NULL, NULL},
    {"datediff", {V, TS, TS, N}, B, 0, f_datediff3, bind_part0, free_fmt},
    {"datediff", {V, TZ, TZ, N}, B, 0, f_datediff3, bind_part0, free_fmt},
    {"date_add", {DT, B, N}, DT, 0, f_date_add, NULL, NULL},
    {"date_sub", {DT, B, N}, DT, 0, f_date_sub, NULL, NULL},
    {"date_sub", {V, TS, TS, N}, B, 0, f_datediff3, bind_part0, free_fmt},
    {"make_date", {B, B, B, N}, DT, 0, f_make_date, NULL, NULL},
    {"last_day", {TS, N}, DT, 0, f_last_day, NULL, NULL},
    PART_ROWS("year", f_year),
    PART_ROWS("quarter", f_quarter),
    PART_ROWS("month", f_month),
    PART_ROWS("week", f_week),
    PART_ROWS("weekofyear", f_week),
    PART_ROWS("day", f_day),
    PART_ROWS("dow", f_dow),
    PART_ROWS("isodow", f_isodow),
    PART_ROWS("doy", f_doy),
    PART_ROWS("hour", f_hour),
    PART_ROWS("minute", f_minute),
    PART_ROWS("second", f_second),
    PART_ROWS("epoch", f_epoch),
    {"isinf", {DT, N}, T_(BOOLEAN), 0, f_dt_isinf, NULL, NULL},
    {"isinf", {TS, N}, T_(BOOLEAN), 0, f_dt_isinf, NULL, NULL},
    {"isinf", {TZ, N}, T_(BOOLEAN), 0, f_dt_isinf, NULL, NULL},
    {"isfinite", {DT, N}, T_(BOOLEAN), 0, f_dt_isfinite, NULL, NULL},
    {"isfinite", {TS, N}, T_(BOOLEAN), 0, f_dt_isfinite, NULL, NULL},
    {"isfinite", {TZ, N}, T_(BOOLEAN), 0, f_dt_isfinite, NULL, NULL},
    {"now", {N}, TZ, TN_FUNC_VOLATILE, f_now, NULL, NULL},
    {"current_date", {N}, DT, TN_FUNC_VOLATILE, f_current_date, NULL, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
