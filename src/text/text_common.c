/*
 * text/text_common.c: what both text readers and both writers share (declared in textInt.h):
 * the buffered file input, the text-to-value parsers (lenient ones for reading a typed column,
 * strict ones for type detection, ISO 8601 and strptime-style dates and timestamps), the store
 * of a field's text into a typed vector slot, chunk preparation, and the buffered file output.
 * Owns nothing outside src/text/; all I/O goes through the tn_fs vtable.
 */
#include "text/textInt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FLUSH_BYTES ((size_t)1 << 20)
#define CHUNK_BYTES ((size_t)8 << 20)        /* a read chunk's vectors, at most (but 1 row) */

/* ---------------------------------------------------------------------------------------------
 * Buffered input.
 */
int tn_text_input_open(tn_text_input *in, tn_fs *fs, const char *path, size_t buffer_size,
                       size_t max_record_size, uint64_t *data_off) {
    int rc = 0;
    in->fs = fs;
    in->path = path;
    *data_off = 0;
    in->max_record = max_record_size ? max_record_size : (size_t)64 << 20;
    if (in->max_record > ((size_t)1 << 30)) in->max_record = (size_t)1 << 30; /* offsets are 32-bit */
    rc = fs->open_read(fs, path, &in->file);
    if (rc < 0) goto cleanup;
    rc = fs->size(fs, in->file, &in->file_size);
    if (rc < 0) goto cleanup;
    size_t cap = buffer_size ? buffer_size : (size_t)4 << 20;
    if (cap < 16) cap = 16;
    if (cap > in->file_size + 16) cap = (size_t)in->file_size + 16;
    if (cap > in->max_record) in->max_record = cap;
    in->cap = cap;
    in->buf = tn_malloc(cap);
    if (!in->buf) { rc = TN_ENOMEM; goto cleanup; }
    /* UTF-8 byte order mark. */
    if (in->file_size >= 3) {
        uint8_t bom[3];
        rc = fs->pread(fs, in->file, bom, 3, 0);
        if (rc < 0) goto cleanup;
        if (bom[0] == 0xEF && bom[1] == 0xBB && bom[2] == 0xBF) *data_off = 3;
    }
    rc = 0;
cleanup:
    return rc;
}

int tn_text_input_refill(tn_text_input *in, const char *what, uint64_t line) {
    size_t keep = in->len - in->pos;
    if (in->pos > 0 && keep > 0) memmove(in->buf, in->buf + in->pos, keep);
    in->len = keep;
    in->pos = 0;
    if (in->len == in->cap) {
        if (in->cap >= in->max_record)
            return tn_error_set(TN_ELIMIT, "%s: line %llu: %s longer than %zu bytes", in->path,
                                (unsigned long long)line, what, in->max_record);
        size_t ncap = in->cap * 2 > in->max_record ? in->max_record : in->cap * 2;
        char *nb = tn_realloc(in->buf, ncap);
        if (!nb) return TN_ENOMEM;
        in->buf = nb;
        in->cap = ncap;
    }
    uint64_t left = in->file_size - in->file_off;
    size_t n = in->cap - in->len;
    if (left < n) n = (size_t)left;
    if (n > 0) {
        int rc = in->fs->pread(in->fs, in->file, in->buf + in->len, n, in->file_off);
        if (rc < 0) return tn_error_prefix(rc, "%s", in->path);
        in->file_off += n;
        in->len += n;
    }
    in->eof = in->file_off >= in->file_size;
    return 0;
}

void tn_text_input_seek(tn_text_input *in, uint64_t off) {
    in->file_off = off;
    in->len = in->pos = 0;
    in->eof = off >= in->file_size;
}

void tn_text_input_close(tn_text_input *in) {
    if (in->file) in->fs->close(in->fs, in->file);
    in->file = NULL;
    tn_free(in->buf);
    in->buf = NULL;
}

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
    /* Fast path: [-]digits[.digits] with at most 15 significant digits and 22 fraction digits
     * (m / 10^frac, both exact doubles) is correctly rounded. */
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
            /* pow10_tab ends at 1e22: leading fraction zeros ("0.000...1") count in frac
             * but not in digits, so both are bounded. */
            if (digits > 15 || frac > 22) { ok = false; break; }
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

/* Fraction-of-second digits at s[*i]: at least one, at most max_digits, those after the 6th
 * truncated; *us the microseconds. Advances *i. */
static bool fraction_at(const char *s, size_t n, size_t *i, size_t max_digits, int64_t *us) {
    size_t k = 0;
    int64_t v = 0;
    while (*i < n && s[*i] >= '0' && s[*i] <= '9' && k < max_digits) {
        if (k < 6) v = v * 10 + (s[*i] - '0');
        k++;
        (*i)++;
    }
    if (k == 0) return false;
    for (; k < 6; k++) v *= 10;
    *us = v;
    return true;
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
            if (!fraction_at(s, n, &i, SIZE_MAX, &us)) return false;
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
        case 'f': if (!fraction_at(s, n, &i, 9, &us)) return false; break;
        case '%': if (i >= n || s[i] != '%') return false; i++; break;
        default: return false;
        }
    }
    if (i != n || !valid_ymd(y, m, d)) return false;
    int64_t days = tn_days_from_civil(y, (unsigned)m, (unsigned)d);
    *out_us = (days * 86400 + hh * 3600 + mi * 60 + ss) * 1000000 + us;
    return true;
}

bool tn_text_read_date(const tn_text_conv *cv, const char *s, size_t n, int32_t *out) {
    if (!cv->date_format) return tn_text_parse_date(s, n, out);
    int64_t us;
    if (!parse_with_format(cv->date_format, s, n, &us)) return false;
    *out = (int32_t)(us / 86400000000LL);
    return true;
}

bool tn_text_read_timestamp(const tn_text_conv *cv, const char *s, size_t n, int64_t *out,
                            bool *tz) {
    if (!cv->ts_format) return tn_text_parse_timestamp(s, n, out, tz);
    *tz = false;
    return parse_with_format(cv->ts_format, s, n, out);
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

/* Exported forms of the lenient parsers (declared in text.h; bool in textInt.h). */
bool tn_text_parse_bool(const char *s, size_t n, bool *out) { return parse_bool(s, n, out); }
bool tn_text_parse_int(const char *s, size_t n, int64_t *out) { return parse_int(s, n, out, false); }
bool tn_text_parse_double(const char *s, size_t n, double *out) { return parse_double(s, n, out); }
bool tn_text_parse_decimal(const char *s, size_t n, int precision, int scale, tn_int128 *out) {
    return parse_decimal(s, n, precision, scale, out);
}

/* ---------------------------------------------------------------------------------------------
 * Type detection.
 */
unsigned tn_text_classify_temporal(const tn_text_conv *cv, const char *s, size_t n) {
    unsigned m = 0;
    int32_t days;
    int64_t i64;
    bool tz;
    if (tn_text_read_date(cv, s, n, &days)) m |= TN_TEXT_M_DATE;
    if (tn_text_read_timestamp(cv, s, n, &i64, &tz)) m |= tz ? TN_TEXT_M_TSTZ : TN_TEXT_M_TS;
    return m;
}

unsigned tn_text_classify(const tn_text_conv *cv, const char *s, size_t n) {
    trim(&s, &n);
    if (n == 0) return 0;
    unsigned m = 0;
    char c = s[0];
    bool b;
    int64_t i64;
    if (parse_bool(s, n, &b)) return TN_TEXT_M_BOOL;
    if ((c >= '0' && c <= '9') || c == '-' || c == '.' || c == 'i' || c == 'I' || c == 'n' || c == 'N') {
        if (parse_int(s, n, &i64, true)) m |= TN_TEXT_M_INT | TN_TEXT_M_DOUBLE;
        else if (double_syntax(s, n)) m |= TN_TEXT_M_DOUBLE;
    }
    if (m) return m;
    return tn_text_classify_temporal(cv, s, n);
}

tn_type tn_text_type_from_mask(unsigned mask, bool seen) {
    if (!seen) return tn_type_make(TN_TYPE_VARCHAR);
    if (mask & TN_TEXT_M_BOOL) return tn_type_make(TN_TYPE_BOOLEAN);
    if (mask & TN_TEXT_M_INT) return tn_type_make(TN_TYPE_BIGINT);
    if (mask & TN_TEXT_M_DOUBLE) return tn_type_make(TN_TYPE_DOUBLE);
    if (mask & TN_TEXT_M_DATE) return tn_type_make(TN_TYPE_DATE);
    if (mask & TN_TEXT_M_TS) return tn_type_make(TN_TYPE_TIMESTAMP);
    if (mask & TN_TEXT_M_TSTZ) return tn_type_make(TN_TYPE_TIMESTAMP_TZ);
    return tn_type_make(TN_TYPE_VARCHAR);
}

/* ---------------------------------------------------------------------------------------------
 * Converting fields into vectors.
 */
int tn_text_convert_error(const tn_text_conv *cv, uint64_t line, uint32_t col, const char *s,
                          size_t n) {
    char tname[32];
    tn_type_format(cv->types[col], tname, sizeof tname);
    int shown = n > 80 ? 80 : (int)n;
    return tn_error_set(TN_ECORRUPT, "%s: line %llu, column '%s': could not convert '%.*s%s' to %s",
                        cv->path, (unsigned long long)line, cv->names[col], shown, s,
                        n > 80 ? "..." : "", tname);
}

int tn_text_store_bad_utf8(const tn_text_conv *cv, uint64_t line, uint32_t col, tn_vector *v,
                           uint32_t row, const char *s, size_t n, size_t at) {
    if (!cv->replace_invalid_utf8)
        return tn_error_set(TN_ECORRUPT,
                            "%s: line %llu, column '%s': invalid UTF-8 (byte 0x%02x at byte %zu of the "
                            "value; read it with invalid_utf8 = 'replace' to store U+FFFD instead)",
                            cv->path, (unsigned long long)line, cv->names[col],
                            (unsigned)(unsigned char)s[at], at + 1);
    tn_buf b = TN_BUF_INIT;
    int rc = tn_utf8_append_replaced(&b, s, n);
    if (!rc) rc = tn_vector_set_str(v, row, b.data ? (const char *)b.data : "", b.len);
    tn_buf_free(&b);
    return rc;
}

int tn_text_check_name(const char *where, const char *name, bool replace, char **fixed) {
    *fixed = NULL;
    size_t n = strlen(name), at = tn_utf8_check(name, n);
    if (at == n) return 0;
    tn_buf b = TN_BUF_INIT;
    if (!replace) {
        for (size_t i = 0; i < n && i < 80; i++) {
            unsigned char c = (unsigned char)name[i];
            if (c >= 0x20 && c < 0x7F) tn_buf_append_byte(&b, c);
            else tn_buf_printf(&b, "\\x%02x", c);
        }
        int rc = tn_error_set(TN_ECORRUPT,
                              "%s: column name '%.*s' is not valid UTF-8 (invalid_utf8 = 'replace' "
                              "stores U+FFFD instead)", where, (int)b.len, b.data ? (const char *)b.data : "");
        tn_buf_free(&b);
        return rc;
    }
    if (tn_utf8_append_replaced(&b, name, n) || tn_buf_append_byte(&b, 0)) {
        tn_buf_free(&b);
        return TN_ENOMEM;
    }
    *fixed = (char *)b.data;
    return 0;
}

int tn_text_store_null(tn_vector *v, uint32_t row) {
    memset((char *)v->data + (size_t)row * tn_type_width(v->type), 0, tn_type_width(v->type));
    return tn_vector_set_null(v, row);
}

/* ---------------------------------------------------------------------------------------------
 * Chunks.
 */
int tn_text_chunk_begin(tn_chunk *out, const char *path, uint32_t ncols, const tn_type *types,
                        uint32_t *cap) {
    int rc = 0;
    if (!out->cols) {
        /* TN_VECTOR_SIZE rows, fewer when the columns are so many that the vectors would pass
         * CHUNK_BYTES (a 1 MB header of 500k fields would otherwise allocate 16 GB; 2048 rows of
         * 240 VARCHAR columns fit). */
        size_t row_bytes = 0;
        for (uint32_t c = 0; c < ncols; c++) row_bytes += tn_type_width(types[c]) + 1;
        uint32_t rows = TN_VECTOR_SIZE;
        if (row_bytes > CHUNK_BYTES / TN_VECTOR_SIZE)
            rows = row_bytes > CHUNK_BYTES ? 1 : (uint32_t)(CHUNK_BYTES / row_bytes);
        rc = tn_chunk_init(out, ncols, types, rows);
        if (rc < 0) return rc;
    } else if (out->ncols != ncols) {
        return tn_error_set(TN_EINVAL, "%s: chunk has %u columns, reader %u", path, out->ncols,
                            ncols);
    }
    tn_chunk_reset(out);
    *cap = TN_VECTOR_SIZE;
    for (uint32_t c = 0; c < out->ncols; c++)
        if (out->cols[c].capacity < *cap) *cap = out->cols[c].capacity;
    return 0;
}

int tn_text_chunk_end(tn_chunk *out, uint32_t n, int rc, bool *failed) {
    if (rc < 0) {
        *failed = true;
        n = 0;
    }
    if (out->cols)
        for (uint32_t c = 0; c < out->ncols; c++) out->cols[c].count = n;
    out->count = n;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Buffered output.
 */
int tn_text_output_open(tn_text_output *o, tn_fs *fs, const char *path, uint32_t ncols,
                        const tn_type *types) {
    o->fs = fs;
    o->ncols = ncols;
    o->path = tn_strdup(path);
    o->types = tn_calloc(ncols ? ncols : 1, sizeof *o->types);
    if (!o->path || !o->types) return TN_ENOMEM;
    memcpy(o->types, types, ncols * sizeof *types);
    return fs->open_write(fs, path, false, &o->file);
}

int tn_text_output_check(const tn_text_output *o, const tn_chunk *chunk) {
    if (chunk->ncols != o->ncols)
        return tn_error_set(TN_EINVAL, "%s: chunk has %u columns, writer %u", o->path, chunk->ncols,
                            o->ncols);
    for (uint32_t c = 0; c < o->ncols; c++)
        if (!tn_type_equal(chunk->cols[c].type, o->types[c]))
            return tn_error_set(TN_EINVAL, "%s: column %u: chunk type differs from the writer's",
                                o->path, c + 1);
    return 0;
}

static int flush(tn_text_output *o) {
    if (o->out.len == 0) return 0;
    int rc = o->fs->write(o->fs, o->file, o->out.data, o->out.len);
    if (rc < 0) return tn_error_prefix(rc, "%s", o->path);
    tn_buf_clear(&o->out);
    return 0;
}

int tn_text_output_row_done(tn_text_output *o) {
    return o->out.len >= FLUSH_BYTES ? flush(o) : 0;
}

void tn_text_output_free(tn_text_output *o) {
    if (o->file) o->fs->close(o->fs, o->file);
    o->file = NULL;
    tn_buf_free(&o->out);
    tn_buf_free(&o->val);
    tn_free(o->types);
    tn_free(o->path);
    o->types = NULL;
    o->path = NULL;
}

int tn_text_output_close(tn_text_output *o) {
    int rc = flush(o);
    int rc2 = o->fs->close(o->fs, o->file);
    o->file = NULL;
    if (rc == 0 && rc2 < 0) rc = tn_error_prefix(rc2, "%s", o->path);
    tn_text_output_free(o);
    return rc;
}
