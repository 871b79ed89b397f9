/*
 * text/csv_reader.c: the streaming CSV reader: a buffered record tokenizer (RFC 4180 quotes,
 * LF/CRLF/CR, records straddling buffer refills), the dialect/header/type sniffer, and the
 * text-to-value parsers (ISO dates and timestamps, also used by json_reader.c). Owns nothing
 * outside src/text/; reads only through the tn_fs vtable.
 */
#include "text/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One field of the current record: bytes in the read buffer, or (quoted fields with escaped
 * quotes) in the scratch buffer at `off` until the record is complete. */
typedef struct csv_field {
    const char *ptr;
    uint32_t len;
    uint32_t off;
    uint8_t quoted;
    uint8_t in_scratch;
} csv_field;

struct tn_csv_reader {
    tn_fs *fs;
    tn_file *file;
    char *path;
    uint64_t file_size;
    uint64_t file_off;           /* next byte of the file to read into buf */
    char *buf;
    size_t cap, len, pos;        /* unread bytes are buf[pos, len) */
    bool eof;                    /* file_off == file_size */
    uint64_t line;               /* physical line number (1-based) where the next record starts */
    uint64_t rec_line;           /* line where the current record started */
    uint64_t data_off, data_line; /* where data starts (after BOM and skip_rows) */
    char delim, quote, escape;
    uint8_t special[256];        /* bytes that end an unquoted field */
    csv_field *fields;
    uint32_t nfields, fields_cap;
    tn_buf scratch;
    size_t max_record;
    /* options kept */
    char *null_string;
    size_t null_len;
    char *date_format, *ts_format;
    /* schema */
    uint32_t ncols;
    char **names;
    tn_type *types;
    bool header;
    bool done, failed;
};

#define NEED_MORE 2
#define SWAR_ZERO(v) (((v) - 0x0101010101010101ULL) & ~(v) & 0x8080808080808080ULL)

/* ---------------------------------------------------------------------------------------------
 * Value parsers. All allow leading/trailing spaces.
 */
static void trim(const char **s, size_t *n) {
    const char *p = *s;
    size_t len = *n;
    while (len && (*p == ' ' || *p == '\t')) { p++; len--; }
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
    *s = p;
    *n = len;
}

static int ci_eq(const char *s, size_t n, const char *lit) {
    size_t m = strlen(lit);
    if (n != m) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
        if (c != lit[i]) return 0;
    }
    return 1;
}

static bool parse_bool(const char *s, size_t n, bool *out) {
    trim(&s, &n);
    if (ci_eq(s, n, "true") || ci_eq(s, n, "t") || ci_eq(s, n, "yes")) {
        *out = true;
        return true;
    }
    if (ci_eq(s, n, "false") || ci_eq(s, n, "f") || ci_eq(s, n, "no")) {
        *out = false;
        return true;
    }
    return false;
}

/* Lenient integer: optional sign, digits, range of int64. strict: no '+', no leading zeros. */
static bool parse_int(const char *s, size_t n, int64_t *out, bool strict) {
    trim(&s, &n);
    if (n == 0) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
        if (strict && s[0] == '+') return false;
        neg = s[0] == '-';
        i = 1;
    }
    if (i == n) return false;
    if (strict && s[i] == '0' && i + 1 < n) return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9) return false;
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1) return false;
        *out = (int64_t)(0 - v);
    } else {
        if (v > (uint64_t)INT64_MAX) return false;
        *out = (int64_t)v;
    }
    return true;
}

/* The strict grammar of a sniffed DOUBLE: [-]digits[.digits][e[+-]digits], [-].digits,
 * [-]digits., inf, infinity, nan (any case). No leading zeros before other digits. */
static bool double_syntax(const char *s, size_t n) {
    size_t i = 0;
    if (n && s[0] == '-') i = 1;
    if (ci_eq(s + i, n - i, "inf") || ci_eq(s + i, n - i, "infinity") || ci_eq(s + i, n - i, "nan"))
        return true;
    size_t int_start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    size_t int_digits = i - int_start;
    if (int_digits > 1 && s[int_start] == '0') return false;
    size_t frac_digits = 0;
    if (i < n && s[i] == '.') {
        i++;
        size_t f0 = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        frac_digits = i - f0;
    }
    if (int_digits + frac_digits == 0) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        size_t e0 = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        if (i == e0) return false;
    }
    return i == n;
}

static const double pow10_tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static bool parse_double(const char *s, size_t n, double *out) {
    trim(&s, &n);
    if (n == 0) return false;
    /* Fast path: [-]digits[.digits] with at most 15 significant digits is exact. */
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-') { neg = true; i = 1; }
    uint64_t m = 0;
    int digits = 0, frac = 0;
    bool dot = false, ok = i < n;
    for (; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            m = m * 10 + (uint64_t)(c - '0');
            if (m) digits++;
            if (dot) frac++;
            if (digits > 15) { ok = false; break; }
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            ok = false;
            break;
        }
    }
    if (ok && (n - (neg ? 1 : 0)) > (dot ? 1u : 0u)) {
        double d = (double)m / pow10_tab[frac];
        *out = neg ? -d : d;
        return true;
    }
    char tmp[128];
    char *heap = NULL, *z = tmp;
    if (n >= sizeof tmp) {
        heap = malloc(n + 1);
        if (!heap) return false;
        z = heap;
    }
    memcpy(z, s, n);
    z[n] = 0;
    char *endp;
    errno = 0;
    double d = strtod(z, &endp);
    bool good = endp == z + n && n > 0 && !(z[0] == '0' && (z[1] == 'x' || z[1] == 'X'));
    free(heap);
    if (!good) return false;
    *out = d;
    return true;
}

static int digits_at(const char *s, size_t n, size_t *i, int min, int max, int *out) {
    int v = 0, k = 0;
    while (*i < n && k < max && s[*i] >= '0' && s[*i] <= '9') {
        v = v * 10 + (s[*i] - '0');
        (*i)++;
        k++;
    }
    if (k < min) return 0;
    *out = v;
    return 1;
}

static bool valid_ymd(int64_t y, int m, int d) {
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1) return false;
    int lim = mdays[m - 1];
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) lim = 29;
    return d <= lim;
}

/* YYYY-MM-DD at s[*i]; advances *i. */
static bool parse_ymd(const char *s, size_t n, size_t *i, int32_t *out) {
    int y, m, d;
    if (!digits_at(s, n, i, 4, 4, &y)) return false;
    if (*i >= n || s[*i] != '-') return false;
    (*i)++;
    if (!digits_at(s, n, i, 1, 2, &m)) return false;
    if (*i >= n || s[*i] != '-') return false;
    (*i)++;
    if (!digits_at(s, n, i, 1, 2, &d)) return false;
    if (!valid_ymd(y, m, d)) return false;
    *out = tn_days_from_civil(y, (unsigned)m, (unsigned)d);
    return true;
}

bool tn_text_parse_date(const char *s, size_t n, int32_t *out) {
    trim(&s, &n);
    size_t i = 0;
    if (!parse_ymd(s, n, &i, out)) return false;
    return i == n;
}

bool tn_text_parse_timestamp(const char *s, size_t n, int64_t *out, bool *has_tz) {
    trim(&s, &n);
    size_t i = 0;
    int32_t days;
    int hh, mm, ss = 0;
    int64_t us = 0;
    *has_tz = false;
    if (!parse_ymd(s, n, &i, &days)) return false;
    if (i >= n || (s[i] != ' ' && s[i] != 'T')) return false;
    i++;
    if (!digits_at(s, n, &i, 2, 2, &hh) || i >= n || s[i] != ':') return false;
    i++;
    if (!digits_at(s, n, &i, 2, 2, &mm)) return false;
    if (i < n && s[i] == ':') {
        i++;
        if (!digits_at(s, n, &i, 2, 2, &ss)) return false;
        if (i < n && s[i] == '.') {
            i++;
            int k = 0;
            while (i < n && s[i] >= '0' && s[i] <= '9') {
                if (k < 6) us = us * 10 + (s[i] - '0');
                k++;
                i++;
            }
            if (k == 0) return false;
            for (; k < 6; k++) us *= 10;
        }
    }
    if (hh > 23 || mm > 59 || ss > 59) return false;
    int64_t offset_s = 0;
    if (i < n && s[i] == ' ') i++;   /* "2024-01-02 03:04:05 +01:00" */
    if (i < n) {
        if (s[i] == 'Z' || s[i] == 'z') {
            i++;
        } else if (s[i] == '+' || s[i] == '-') {
            int sign = s[i] == '-' ? -1 : 1, oh, om = 0;
            i++;
            if (!digits_at(s, n, &i, 2, 2, &oh)) return false;
            if (i < n && s[i] == ':') i++;
            if (i < n && !digits_at(s, n, &i, 2, 2, &om)) return false;
            if (oh > 23 || om > 59) return false;
            offset_s = sign * (oh * 3600 + om * 60);
        } else {
            return false;
        }
        *has_tz = true;
    }
    if (i != n) return false;
    *out = ((int64_t)days * 86400 + hh * 3600 + mm * 60 + ss - offset_s) * 1000000 + us;
    return true;
}

/* strptime-style subset: %Y %y %m %d %H %M %S %f %% and literals. want_time: %H.. allowed. */
static bool parse_with_format(const char *fmt, const char *s, size_t n, int64_t *out_us) {
    trim(&s, &n);
    size_t i = 0;
    int y = 1970, m = 1, d = 1, hh = 0, mi = 0, ss = 0;
    int64_t us = 0;
    for (const char *f = fmt; *f; f++) {
        if (*f != '%') {
            if (i >= n || s[i] != *f) return false;
            i++;
            continue;
        }
        f++;
        int v;
        switch (*f) {
        case 'Y': if (!digits_at(s, n, &i, 4, 4, &y)) return false; break;
        case 'y': if (!digits_at(s, n, &i, 2, 2, &v)) return false; y = v < 69 ? 2000 + v : 1900 + v; break;
        case 'm': if (!digits_at(s, n, &i, 1, 2, &m)) return false; break;
        case 'd': if (!digits_at(s, n, &i, 1, 2, &d)) return false; break;
        case 'H': if (!digits_at(s, n, &i, 1, 2, &hh) || hh > 23) return false; break;
        case 'M': if (!digits_at(s, n, &i, 1, 2, &mi) || mi > 59) return false; break;
        case 'S': if (!digits_at(s, n, &i, 1, 2, &ss) || ss > 59) return false; break;
        case 'f': {
            int k = 0;
            us = 0;
            while (i < n && s[i] >= '0' && s[i] <= '9' && k < 9) {
                if (k < 6) us = us * 10 + (s[i] - '0');
                k++;
                i++;
            }
            if (k == 0) return false;
            for (; k < 6; k++) us *= 10;
            break;
        }
        case '%': if (i >= n || s[i] != '%') return false; i++; break;
        default: return false;
        }
    }
    if (i != n || !valid_ymd(y, m, d)) return false;
    int64_t days = tn_days_from_civil(y, (unsigned)m, (unsigned)d);
    *out_us = (days * 86400 + hh * 3600 + mi * 60 + ss) * 1000000 + us;
    return true;
}

static bool rd_parse_date(const tn_csv_reader *r, const char *s, size_t n, int32_t *out) {
    if (!r->date_format) return tn_text_parse_date(s, n, out);
    int64_t us;
    if (!parse_with_format(r->date_format, s, n, &us)) return false;
    *out = (int32_t)(us / 86400000000LL);
    return true;
}

static bool rd_parse_ts(const tn_csv_reader *r, const char *s, size_t n, int64_t *out, bool *tz) {
    if (!r->ts_format) return tn_text_parse_timestamp(s, n, out, tz);
    *tz = false;
    return parse_with_format(r->ts_format, s, n, out);
}

/* ---------------------------------------------------------------------------------------------
 * Type detection: the set of candidate types a value parses as.
 */
enum { M_BOOL = 1, M_INT = 2, M_DOUBLE = 4, M_DATE = 8, M_TS = 16, M_TSTZ = 32, M_ALL = 63 };

static unsigned classify(const tn_csv_reader *r, const char *s, size_t n) {
    trim(&s, &n);
    if (n == 0) return 0;
    unsigned m = 0;
    char c = s[0];
    bool b;
    int64_t i64;
    if (parse_bool(s, n, &b)) return M_BOOL;
    if ((c >= '0' && c <= '9') || c == '-' || c == '.' || c == 'i' || c == 'I' || c == 'n' || c == 'N') {
        if (parse_int(s, n, &i64, true)) m |= M_INT | M_DOUBLE;
        else if (double_syntax(s, n)) m |= M_DOUBLE;
    }
    if (m) return m;
    int32_t days;
    if (rd_parse_date(r, s, n, &days)) m |= M_DATE;
    bool tz;
    if (rd_parse_ts(r, s, n, &i64, &tz)) m |= tz ? M_TSTZ : M_TS;
    return m;
}

static tn_type type_from_mask(unsigned mask, bool seen) {
    if (!seen) return tn_type_make(TN_TYPE_VARCHAR);
    if (mask & M_BOOL) return tn_type_make(TN_TYPE_BOOLEAN);
    if (mask & M_INT) return tn_type_make(TN_TYPE_BIGINT);
    if (mask & M_DOUBLE) return tn_type_make(TN_TYPE_DOUBLE);
    if (mask & M_DATE) return tn_type_make(TN_TYPE_DATE);
    if (mask & M_TS) return tn_type_make(TN_TYPE_TIMESTAMP);
    if (mask & M_TSTZ) return tn_type_make(TN_TYPE_TIMESTAMP_TZ);
    return tn_type_make(TN_TYPE_VARCHAR);
}

/* ---------------------------------------------------------------------------------------------
 * Buffering and tokenizing.
 */
static void set_special(tn_csv_reader *r) {
    memset(r->special, 0, sizeof r->special);
    r->special[(uint8_t)r->delim] = 1;
    r->special['\n'] = 1;
    r->special['\r'] = 1;
}

/* Keeps buf[keep_from, len) (moved to the front) and reads more of the file after it. */
static int refill(tn_csv_reader *r, size_t keep_from) {
    size_t keep = r->len - keep_from;
    if (keep_from > 0 && keep > 0) memmove(r->buf, r->buf + keep_from, keep);
    r->len = keep;
    r->pos = 0;
    if (r->len == r->cap) {
        if (r->cap >= r->max_record)
            return tn_error_set(TN_ELIMIT, "%s: line %llu: record longer than %zu bytes", r->path,
                                (unsigned long long)r->line, r->max_record);
        size_t ncap = r->cap * 2 > r->max_record ? r->max_record : r->cap * 2;
        char *nb = tn_realloc(r->buf, ncap);
        if (!nb) return TN_ENOMEM;
        r->buf = nb;
        r->cap = ncap;
    }
    uint64_t left = r->file_size - r->file_off;
    size_t n = r->cap - r->len;
    if (left < n) n = (size_t)left;
    if (n > 0) {
        int rc = r->fs->pread(r->fs, r->file, r->buf + r->len, n, r->file_off);
        if (rc < 0) return tn_error_prefix(rc, "%s", r->path);
        r->file_off += n;
        r->len += n;
    }
    r->eof = r->file_off >= r->file_size;
    return 0;
}

static void seek_to(tn_csv_reader *r, uint64_t off, uint64_t line) {
    r->file_off = off;
    r->len = r->pos = 0;
    r->eof = off >= r->file_size;
    r->line = line;
}

static uint64_t abs_pos(const tn_csv_reader *r) { return r->file_off - (r->len - r->pos); }

static int grow_fields(tn_csv_reader *r) {
    uint32_t ncap = r->fields_cap ? r->fields_cap * 2 : 64;
    csv_field *nf = tn_realloc(r->fields, (size_t)ncap * sizeof *nf);
    if (!nf) return TN_ENOMEM;
    r->fields = nf;
    r->fields_cap = ncap;
    return 0;
}

static uint64_t count_nl(const char *p, const char *end) {
    uint64_t n = 0;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    return n;
}

/* Parses one record at buf[pos]. 1: record in fields; 0: end of input; NEED_MORE: the record
 * runs past the buffered bytes; < 0: error. pos and line only advance on 1. */
static int parse_record(tn_csv_reader *r) {
    const char *buf = r->buf, *p = buf + r->pos, *end = buf + r->len;
    const char quote = r->quote, esc = r->escape, delim = r->delim;
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t kdelim = ones * (uint8_t)delim, klf = ones * '\n', kcr = ones * '\r';
    uint32_t nf = 0;
    uint64_t extra_lines = 0;
    r->rec_line = r->line;
    tn_buf_clear(&r->scratch);
    if (p == end) return r->eof ? 0 : NEED_MORE;
    for (;;) {
        if (nf == r->fields_cap && grow_fields(r) < 0) return TN_ENOMEM;
        csv_field *f = &r->fields[nf];
        if (quote && p < end && *p == quote) {
            const char *s = ++p;
            bool in_scratch = false;
            size_t soff = r->scratch.len;
            for (;;) {
                const char *q;
                if (esc == quote) {
                    q = memchr(p, quote, (size_t)(end - p));
                } else {
                    q = p;
                    while (q < end && *q != quote && *q != esc) q++;
                    if (q == end) q = NULL;
                }
                if (!q) {
                    if (!r->eof) return NEED_MORE;
                    return tn_error_set(TN_ECORRUPT, "%s: line %llu: unterminated quoted field",
                                        r->path, (unsigned long long)r->rec_line);
                }
                extra_lines += count_nl(p, q);
                if (q + 1 == end && !r->eof) return NEED_MORE;
                bool escaped = esc == quote ? (q + 1 < end && q[1] == quote)
                                            : (*q == esc && q + 1 < end);
                if (escaped) {
                    if (tn_buf_append(&r->scratch, s, (size_t)(q - s)) < 0 ||
                        tn_buf_append_byte(&r->scratch, (uint8_t)q[1]) < 0)
                        return TN_ENOMEM;
                    if (q[1] == '\n') extra_lines++;
                    in_scratch = true;
                    p = q + 2;
                    s = p;
                    continue;
                }
                if (*q != quote) { /* lone escape char at the very end of input */
                    return tn_error_set(TN_ECORRUPT, "%s: line %llu: unterminated quoted field",
                                        r->path, (unsigned long long)r->rec_line);
                }
                if (in_scratch) {
                    if (tn_buf_append(&r->scratch, s, (size_t)(q - s)) < 0) return TN_ENOMEM;
                    f->in_scratch = 1;
                    f->off = (uint32_t)soff;
                    f->len = (uint32_t)(r->scratch.len - soff);
                    f->ptr = NULL;
                } else {
                    f->in_scratch = 0;
                    f->ptr = s;
                    f->len = (uint32_t)(q - s);
                }
                f->quoted = 1;
                p = q + 1;
                break;
            }
            while (p < end && (*p == ' ' || *p == '\t') && *p != delim) p++;
            if (p < end && !r->special[(uint8_t)*p])
                return tn_error_set(TN_ECORRUPT,
                                    "%s: line %llu: unexpected character '%c' after a closing quote",
                                    r->path, (unsigned long long)(r->rec_line + extra_lines), *p);
        } else {
            const char *s = p;
            const uint8_t *sp = r->special;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* 8 bytes at a time: the lowest byte equal to delim, LF or CR (SWAR zero-byte
             * test; only bytes above a true match can be false positives). */
            while (end - p >= 8) {
                uint64_t w;
                memcpy(&w, p, 8);
                uint64_t m = SWAR_ZERO(w ^ kdelim) | SWAR_ZERO(w ^ klf) | SWAR_ZERO(w ^ kcr);
                if (m) {
                    p += __builtin_ctzll(m) >> 3;
                    goto field_end;
                }
                p += 8;
            }
#endif
            while (p < end && !sp[(uint8_t)*p]) p++;
            goto field_end;
field_end:
            f->ptr = s;
            f->len = (uint32_t)(p - s);
            f->quoted = 0;
            f->in_scratch = 0;
        }
        nf++;
        if (p == end) {
            if (!r->eof) return NEED_MORE;
            break;
        }
        if (*p == delim) {
            p++;
            continue;
        }
        /* newline */
        if (*p == '\r') {
            p++;
            if (p == end && !r->eof) return NEED_MORE;
            if (p < end && *p == '\n') p++;
        } else {
            p++;
        }
        break;
    }
    for (uint32_t i = 0; i < nf; i++)
        if (r->fields[i].in_scratch) r->fields[i].ptr = (const char *)r->scratch.data + r->fields[i].off;
    r->nfields = nf;
    r->pos = (size_t)(p - buf);
    r->line += 1 + extra_lines;
    return 1;
}

static int next_record(tn_csv_reader *r) {
    for (;;) {
        int rc = parse_record(r);
        if (rc != NEED_MORE) return rc;
        rc = refill(r, r->pos);
        if (rc < 0) return rc;
    }
}

static bool record_blank(const tn_csv_reader *r) {
    return r->nfields == 1 && r->fields[0].len == 0 && !r->fields[0].quoted;
}

/* Next non-blank record (blank lines are skipped). */
static int next_nonblank(tn_csv_reader *r) {
    for (;;) {
        int rc = next_record(r);
        if (rc != 1 || !record_blank(r)) return rc;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Sniffing.
 */
static int sniff_delimiter(tn_csv_reader *r) {
    static const char cands[] = {',', '|', ';', '\t'};
    int best = -1;
    uint32_t best_rows = 0, best_cols = 0;
    for (int c = 0; c < 4; c++) {
        r->delim = cands[c];
        set_special(r);
        seek_to(r, r->data_off, r->data_line);
        uint32_t cols0 = 0, consistent = 0;
        int rc = 0;
        for (int row = 0; row < 24; row++) {
            rc = next_nonblank(r);
            if (rc <= 0) break;
            if (row == 0) cols0 = r->nfields;
            if (r->nfields == cols0) consistent++;
        }
        if (rc < 0) {
            if (rc == TN_ENOMEM || rc == TN_EIO) return rc;
            tn_error_clear();
            continue;
        }
        if (cols0 > 1 && (consistent > best_rows || (consistent == best_rows && cols0 > best_cols))) {
            best = c;
            best_rows = consistent;
            best_cols = cols0;
        }
    }
    r->delim = best >= 0 ? cands[best] : ',';
    set_special(r);
    return 0;
}

static bool is_null_field(const tn_csv_reader *r, const csv_field *f) {
    if (f->len == 0) return true;
    return r->null_string && !f->quoted && f->len == r->null_len &&
           memcmp(f->ptr, r->null_string, r->null_len) == 0;
}

static char *make_name(const char *prefix, uint32_t idx, int width) {
    char tmp[64];
    if (width > 10) width = 10;
    snprintf(tmp, sizeof tmp, "%.20s%0*u", prefix, width, idx);
    return tn_strdup(tmp);
}

static bool name_taken(char **names, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], name) == 0) return true;
    return false;
}

/* Makes names[i] unique against names[0..i) by appending _1, _2, ... */
static int uniquify(char **names, uint32_t i) {
    if (!name_taken(names, i, names[i])) return 0;
    size_t len = strlen(names[i]);
    char *tmp = tn_malloc(len + 24);
    if (!tmp) return TN_ENOMEM;
    for (unsigned k = 1;; k++) {
        snprintf(tmp, len + 24, "%s_%u", names[i], k);
        if (!name_taken(names, i, tmp)) break;
    }
    tn_free(names[i]);
    names[i] = tmp;
    return 0;
}

static int sniff(tn_csv_reader *r, const tn_csv_options *o) {
    int rc = 0;
    char **first = NULL;
    unsigned *masks = NULL, *first_masks = NULL;
    bool *seen = NULL, *first_seen = NULL;
    uint32_t ncols = 0, rows = 0;
    if (r->delim == 0) {
        rc = sniff_delimiter(r);
        if (rc < 0) goto cleanup;
    }
    seek_to(r, r->data_off, r->data_line);
    uint32_t sample = o->sample_size ? o->sample_size : 20480;
    while (rows <= sample) {
        rc = next_nonblank(r);
        if (rc < 0) goto cleanup;
        if (rc == 0) break;
        if (rows == 0) {
            ncols = r->nfields;
            first = tn_calloc(ncols, sizeof *first);
            masks = tn_calloc(ncols, sizeof *masks);
            first_masks = tn_calloc(ncols, sizeof *first_masks);
            seen = tn_calloc(ncols, sizeof *seen);
            first_seen = tn_calloc(ncols, sizeof *first_seen);
            if (!first || !masks || !first_masks || !seen || !first_seen) { rc = TN_ENOMEM; goto cleanup; }
            for (uint32_t c = 0; c < ncols; c++) {
                const csv_field *f = &r->fields[c];
                first[c] = tn_strndup(f->ptr ? f->ptr : "", f->len);
                if (!first[c]) { rc = TN_ENOMEM; goto cleanup; }
                masks[c] = M_ALL;
                if (!is_null_field(r, f)) {
                    first_seen[c] = true;
                    first_masks[c] = classify(r, f->ptr, f->len);
                }
            }
        } else {
            if (r->nfields != ncols) {
                rc = tn_error_set(TN_ECORRUPT, "%s: line %llu: expected %u fields, found %u",
                                  r->path, (unsigned long long)r->rec_line, ncols, r->nfields);
                goto cleanup;
            }
            for (uint32_t c = 0; c < ncols; c++) {
                const csv_field *f = &r->fields[c];
                if (is_null_field(r, f) || masks[c] == 0) {
                    if (!is_null_field(r, f)) seen[c] = true;
                    continue;
                }
                seen[c] = true;
                masks[c] &= classify(r, f->ptr, f->len);
            }
        }
        rows++;
    }
    if (o->ncolumns && ncols && o->ncolumns != ncols) {
        rc = tn_error_set(TN_EINVAL, "%s: %u columns given, but the file has %u", r->path,
                          o->ncolumns, ncols);
        goto cleanup;
    }
    if (ncols == 0) ncols = o->ncolumns ? o->ncolumns : 1; /* empty file */
    r->ncols = ncols;
    r->names = tn_calloc(ncols, sizeof *r->names);
    r->types = tn_calloc(ncols, sizeof *r->types);
    if (!r->names || !r->types) { rc = TN_ENOMEM; goto cleanup; }
    /* Types with and without the first row. */
    bool header;
    tn_type *t_rest = tn_calloc(ncols, sizeof *t_rest);
    if (!t_rest) { rc = TN_ENOMEM; goto cleanup; }
    bool all_varchar = true;
    for (uint32_t c = 0; c < ncols; c++) {
        if (o->column_types) t_rest[c] = o->column_types[c];
        else if (o->all_varchar || rows == 0) t_rest[c] = tn_type_make(TN_TYPE_VARCHAR);
        else if (rows == 1) t_rest[c] = type_from_mask(first_masks[c], first_seen[c]);
        else t_rest[c] = type_from_mask(masks[c], seen[c]);
        if (t_rest[c].id != TN_TYPE_VARCHAR) all_varchar = false;
    }
    if (o->header >= 0) {
        header = o->header != 0;
    } else if (rows == 0) {
        header = false;
    } else if (all_varchar) {
        header = true;
    } else {
        header = false;
        for (uint32_t c = 0; c < ncols && !header; c++) {
            unsigned bit;
            switch (t_rest[c].id) {
            case TN_TYPE_BOOLEAN: bit = M_BOOL; break;
            case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER:
            case TN_TYPE_BIGINT: bit = M_INT; break;
            case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: case TN_TYPE_DECIMAL: bit = M_DOUBLE; break;
            case TN_TYPE_DATE: bit = M_DATE; break;
            case TN_TYPE_TIMESTAMP: bit = M_TS; break;
            case TN_TYPE_TIMESTAMP_TZ: bit = M_TSTZ; break;
            default: bit = 0; break;     /* VARCHAR, VARBINARY: anything fits */
            }
            if (first_seen[c] && bit && !(first_masks[c] & bit)) header = true;
        }
    }
    for (uint32_t c = 0; c < ncols; c++) {
        if (o->column_types || o->all_varchar || rows <= 1 || header) {
            r->types[c] = t_rest[c];
        } else {
            unsigned m = masks[c];
            bool s = seen[c];
            if (first_seen[c]) {
                m &= first_masks[c];
                s = true;
            }
            r->types[c] = type_from_mask(m, s);
        }
    }
    tn_free(t_rest);
    r->header = header;
    int width = 1;
    for (uint32_t v = ncols - 1; v >= 10; v /= 10) width++;
    for (uint32_t c = 0; c < ncols; c++) {
        if (o->column_names && o->column_names[c]) r->names[c] = tn_strdup(o->column_names[c]);
        else if (header && first && first[c][0]) r->names[c] = tn_strdup(first[c]);
        else r->names[c] = make_name("column", c, width);
        if (!r->names[c]) { rc = TN_ENOMEM; goto cleanup; }
        rc = uniquify(r->names, c);
        if (rc < 0) goto cleanup;
    }
    /* Position at the first data row. */
    seek_to(r, r->data_off, r->data_line);
    if (header) {
        rc = next_nonblank(r);
        if (rc < 0) goto cleanup;
        rc = 0;
    }
cleanup:
    if (first)
        for (uint32_t c = 0; c < ncols; c++) tn_free(first[c]);
    tn_free(first);
    tn_free(masks);
    tn_free(first_masks);
    tn_free(seen);
    tn_free(first_seen);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Open / close.
 */
static char *opt_dup(const char *s) { return s ? tn_strdup(s) : NULL; }

int tn_csv_open(tn_csv_reader **out, tn_fs *fs, const char *path, const tn_csv_options *opts) {
    tn_csv_options defaults = TN_CSV_OPTIONS_INIT;
    const tn_csv_options *o = opts ? opts : &defaults;
    int rc = 0;
    *out = NULL;
    tn_csv_reader *r = tn_calloc(1, sizeof *r);
    if (!r) return TN_ENOMEM;
    r->fs = fs;
    r->path = tn_strdup(path);
    if (!r->path) { rc = TN_ENOMEM; goto cleanup; }
    if ((o->null_string && !(r->null_string = opt_dup(o->null_string))) ||
        (o->date_format && !(r->date_format = opt_dup(o->date_format))) ||
        (o->timestamp_format && !(r->ts_format = opt_dup(o->timestamp_format)))) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    r->null_len = r->null_string ? strlen(r->null_string) : 0;
    r->quote = o->quote;
    r->escape = o->escape ? o->escape : o->quote;
    r->delim = o->delimiter;
    if (r->delim && (r->delim == r->quote || r->delim == '\n' || r->delim == '\r')) {
        rc = tn_error_set(TN_EINVAL, "%s: invalid delimiter", path);
        goto cleanup;
    }
    if (r->delim) set_special(r);
    r->max_record = o->max_record_size ? o->max_record_size : (size_t)64 << 20;
    if (r->max_record > ((size_t)1 << 30)) r->max_record = (size_t)1 << 30; /* offsets are 32-bit */
    rc = fs->open_read(fs, path, &r->file);
    if (rc < 0) goto cleanup;
    rc = fs->size(fs, r->file, &r->file_size);
    if (rc < 0) goto cleanup;
    size_t cap = o->buffer_size ? o->buffer_size : (size_t)4 << 20;
    if (cap < 16) cap = 16;
    if (cap > r->file_size + 16) cap = (size_t)r->file_size + 16;
    if (cap > r->max_record) r->max_record = cap;
    r->cap = cap;
    r->buf = tn_malloc(cap);
    if (!r->buf) { rc = TN_ENOMEM; goto cleanup; }
    /* UTF-8 byte order mark. */
    r->data_off = 0;
    if (r->file_size >= 3) {
        uint8_t bom[3];
        rc = fs->pread(fs, r->file, bom, 3, 0);
        if (rc < 0) goto cleanup;
        if (bom[0] == 0xEF && bom[1] == 0xBB && bom[2] == 0xBF) r->data_off = 3;
    }
    r->data_line = 1;
    if (o->skip_rows) {
        if (!r->delim) { r->delim = ','; set_special(r); }
        seek_to(r, r->data_off, 1);
        for (uint32_t i = 0; i < o->skip_rows; i++) {
            rc = next_record(r);
            if (rc < 0) goto cleanup;
            if (rc == 0) break;
        }
        r->data_off = abs_pos(r);
        r->data_line = r->line;
        if (!o->delimiter) r->delim = 0;
    }
    rc = sniff(r, o);
    if (rc < 0) goto cleanup;
    rc = 0;
cleanup:
    if (rc < 0) {
        if (r->path && strncmp(tn_error_message(), r->path, strlen(r->path)) != 0)
            tn_error_prefix(rc, "%s", path);
        tn_csv_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

void tn_csv_close(tn_csv_reader *r) {
    if (!r) return;
    if (r->file) r->fs->close(r->fs, r->file);
    if (r->names)
        for (uint32_t c = 0; c < r->ncols; c++) tn_free(r->names[c]);
    tn_free(r->names);
    tn_free(r->types);
    tn_free(r->fields);
    tn_buf_free(&r->scratch);
    tn_free(r->buf);
    tn_free(r->path);
    tn_free(r->null_string);
    tn_free(r->date_format);
    tn_free(r->ts_format);
    tn_free(r);
}

uint32_t tn_csv_columns(const tn_csv_reader *r, const char *const **names, const tn_type **types) {
    if (names) *names = (const char *const *)r->names;
    if (types) *types = r->types;
    return r->ncols;
}

char tn_csv_delimiter(const tn_csv_reader *r) { return r->delim; }
bool tn_csv_has_header(const tn_csv_reader *r) { return r->header; }

/* ---------------------------------------------------------------------------------------------
 * Converting fields into vectors.
 */
static int convert_error(const tn_csv_reader *r, uint32_t col, const char *s, size_t n) {
    char tname[32];
    tn_type_format(r->types[col], tname, sizeof tname);
    int shown = n > 80 ? 80 : (int)n;
    return tn_error_set(TN_ECORRUPT, "%s: line %llu, column '%s': could not convert '%.*s%s' to %s",
                        r->path, (unsigned long long)r->rec_line, r->names[col], shown, s,
                        n > 80 ? "..." : "", tname);
}

static bool parse_decimal(const char *s, size_t n, int precision, int scale, tn_int128 *out) {
    trim(&s, &n);
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) { neg = s[i] == '-'; i++; }
    tn_int128 v = 0, limit = 1;
    for (int k = 0; k < precision; k++) limit *= 10;
    int frac = 0, ndig = 0;
    bool dot = false, round_up = false, dropped = false;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.' && !dot) { dot = true; continue; }
        if (c < '0' || c > '9') return false;
        ndig++;
        if (dot && frac >= scale) {     /* digits beyond the scale: round half up */
            if (!dropped) round_up = c >= '5';
            dropped = true;
            continue;
        }
        v = v * 10 + (c - '0');
        if (dot) frac++;
        if (v >= limit) return false;
    }
    if (ndig == 0) return false;
    for (; frac < scale; frac++) {
        v *= 10;
        if (v >= limit) return false;
    }
    if (round_up && ++v >= limit) return false;
    *out = neg ? -v : v;
    return true;
}

static int store_field(tn_csv_reader *r, tn_vector *v, uint32_t row, uint32_t col,
                       const csv_field *f) {
    if (is_null_field(r, f)) {
        memset((char *)v->data + (size_t)row * tn_type_width(v->type), 0, tn_type_width(v->type));
        return tn_vector_set_null(v, row);
    }
    const char *s = f->ptr;
    size_t n = f->len;
    int64_t i64;
    switch (v->type.id) {
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY:
        return tn_vector_set_str(v, row, s, n);
    case TN_TYPE_BIGINT:
        if (!parse_int(s, n, &i64, false)) return convert_error(r, col, s, n);
        ((int64_t *)v->data)[row] = i64;
        return 0;
    case TN_TYPE_INTEGER:
        if (!parse_int(s, n, &i64, false) || i64 < INT32_MIN || i64 > INT32_MAX)
            return convert_error(r, col, s, n);
        ((int32_t *)v->data)[row] = (int32_t)i64;
        return 0;
    case TN_TYPE_SMALLINT:
        if (!parse_int(s, n, &i64, false) || i64 < INT16_MIN || i64 > INT16_MAX)
            return convert_error(r, col, s, n);
        ((int16_t *)v->data)[row] = (int16_t)i64;
        return 0;
    case TN_TYPE_TINYINT:
        if (!parse_int(s, n, &i64, false) || i64 < INT8_MIN || i64 > INT8_MAX)
            return convert_error(r, col, s, n);
        ((int8_t *)v->data)[row] = (int8_t)i64;
        return 0;
    case TN_TYPE_DOUBLE: {
        double d;
        if (!parse_double(s, n, &d)) return convert_error(r, col, s, n);
        ((double *)v->data)[row] = d;
        return 0;
    }
    case TN_TYPE_FLOAT: {
        double d;
        if (!parse_double(s, n, &d)) return convert_error(r, col, s, n);
        ((float *)v->data)[row] = (float)d;
        return 0;
    }
    case TN_TYPE_BOOLEAN: {
        bool b;
        if (!parse_bool(s, n, &b)) {
            /* read-time leniency as DuckDB's cast: 1 / 0 */
            if (parse_int(s, n, &i64, false) && (i64 == 0 || i64 == 1)) b = i64 == 1;
            else return convert_error(r, col, s, n);
        }
        ((uint8_t *)v->data)[row] = b;
        return 0;
    }
    case TN_TYPE_DATE: {
        int32_t d;
        if (!rd_parse_date(r, s, n, &d)) return convert_error(r, col, s, n);
        ((int32_t *)v->data)[row] = d;
        return 0;
    }
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: {
        bool tz;
        int32_t d;
        if (rd_parse_ts(r, s, n, &i64, &tz)) {
            ((int64_t *)v->data)[row] = i64;
            return 0;
        }
        if (rd_parse_date(r, s, n, &d)) { /* a date is midnight */
            ((int64_t *)v->data)[row] = (int64_t)d * 86400000000LL;
            return 0;
        }
        return convert_error(r, col, s, n);
    }
    case TN_TYPE_DECIMAL: {
        tn_int128 d;
        if (!parse_decimal(s, n, v->type.precision, v->type.scale, &d))
            return convert_error(r, col, s, n);
        if (v->type.precision <= TN_DECIMAL_INT64_MAX_PRECISION) ((int64_t *)v->data)[row] = (int64_t)d;
        else ((tn_int128 *)v->data)[row] = d;
        return 0;
    }
    default:
        return convert_error(r, col, s, n);
    }
}

int tn_csv_next(tn_csv_reader *r, tn_chunk *out) {
    int rc = 0;
    if (r->failed) return tn_error_set(TN_EINVAL, "%s: reader failed earlier", r->path);
    if (!out->cols) {
        rc = tn_chunk_init(out, r->ncols, r->types, TN_VECTOR_SIZE);
        if (rc < 0) goto cleanup;
    } else if (out->ncols != r->ncols) {
        rc = tn_error_set(TN_EINVAL, "%s: chunk has %u columns, reader %u", r->path, out->ncols,
                          r->ncols);
        goto cleanup;
    }
    tn_chunk_reset(out);
    uint32_t cap = TN_VECTOR_SIZE;
    for (uint32_t c = 0; c < out->ncols; c++)
        if (out->cols[c].capacity < cap) cap = out->cols[c].capacity;
    uint32_t n = 0;
    while (n < cap && !r->done) {
        rc = next_record(r);
        if (rc < 0) goto cleanup;
        if (rc == 0) {
            r->done = true;
            break;
        }
        if (record_blank(r) && r->ncols != 1) continue;
        if (r->nfields != r->ncols) {
            rc = tn_error_set(TN_ECORRUPT, "%s: line %llu: expected %u fields, found %u", r->path,
                              (unsigned long long)r->rec_line, r->ncols, r->nfields);
            goto cleanup;
        }
        for (uint32_t c = 0; c < r->ncols; c++) {
            rc = store_field(r, &out->cols[c], n, c, &r->fields[c]);
            if (rc < 0) goto cleanup;
        }
        n++;
    }
    for (uint32_t c = 0; c < out->ncols; c++) out->cols[c].count = n;
    out->count = n;
    rc = 0;
cleanup:
    if (rc < 0) {
        r->failed = true;
        if (out->cols) {
            for (uint32_t c = 0; c < out->ncols; c++) out->cols[c].count = 0;
        }
        out->count = 0;
    }
    return rc;
}

/* Exported forms of the lenient parsers (declared in text.h). */
bool tn_text_parse_int(const char *s, size_t n, int64_t *out) { return parse_int(s, n, out, false); }
bool tn_text_parse_double(const char *s, size_t n, double *out) { return parse_double(s, n, out); }
bool tn_text_parse_decimal(const char *s, size_t n, int precision, int scale, tn_int128 *out) {
    return parse_decimal(s, n, precision, scale, out);
}
