/*
 * sql/func_format.c: printf(fmt, ...) and format(fmt, ...), with DuckDB's semantics (DuckDB
 * formats through the {fmt} library: printf-style `%d %5.2f %-5s %x %%` and Python-style
 * `{} {:>5} {:.2f} {0}`). Arguments are bound as DuckDB binds them: integers as BIGINT,
 * FLOAT/DOUBLE/DECIMAL as DOUBLE, BOOLEAN and VARCHAR as they are, anything else cast to
 * VARCHAR; a specifier that does not fit the argument's kind is DuckDB's error ("Invalid type
 * specifier "d" for formatting a value of type string"). Owns only these two functions.
 */
#include "sql/functions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { A_INT, A_DBL, A_STR, A_BOOL } arg_kind;

typedef struct farg {
    arg_kind k;
    int64_t i;
    double d;
    tn_str s;
} farg;

typedef struct fmt_state {
    const farg *a;
    int na;
    int next;        /* next automatic argument */
    int mode;        /* 0 unknown, 1 automatic, 2 manual */
} fmt_state;

static const char *kind_name(arg_kind k) {
    return k == A_STR ? "string" : k == A_DBL ? "float" : "int";
}

static int bad_type(char c, arg_kind k) {
    return tn_error_set(TN_EINVAL, "Invalid type specifier \"%c\" for formatting a value of type %s", c, kind_name(k));
}

/* The argument at index (-1: the next automatic one), with {fmt}'s rules on mixing. */
static int get_arg(fmt_state *st, int index, const farg **out) {
    if (index < 0) {
        if (st->mode == 2) return tn_error_set(TN_EINVAL, "cannot switch from manual to automatic argument indexing");
        st->mode = 1;
        index = st->next++;
    } else {
        if (st->mode == 1) return tn_error_set(TN_EINVAL, "cannot switch from automatic to manual argument indexing");
        st->mode = 2;
    }
    if (index >= st->na) return tn_error_set(TN_EINVAL, "Argument index \"%d\" out of range", index);
    *out = &st->a[index];
    return 0;
}

static uint32_t cp_count(const char *s, uint32_t n) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

/* Byte length of the first `cps` code points of s. */
static uint32_t cp_prefix(const char *s, uint32_t n, int64_t cps) {
    uint32_t i = 0;
    while (i < n && cps > 0) {
        i++;
        while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
        cps--;
    }
    return i;
}

static int fill_n(tn_buf *b, const char *fill, size_t fill_len, uint64_t n) {
    int rc = 0;
    for (uint64_t k = 0; k < n && !rc; k++) rc = tn_buf_append(b, fill, fill_len);
    return rc;
}

/* Writes s padded to `width` code points. align '<' '>' '^' or '=' (after the first `prefix`
   bytes: sign and base prefix, for numbers). */
static int pad(tn_buf *b, const char *s, size_t len, int64_t width, char align, const char *fill,
               size_t fill_len, size_t prefix) {
    uint32_t w = cp_count(s, (uint32_t)len);
    uint64_t gap = width > (int64_t)w ? (uint64_t)width - w : 0;
    if (gap > ((uint64_t)1 << 31)) return tn_error_set(TN_ELIMIT, "format width %lld is too large", (long long)width);
    int rc = 0;
    switch (align) {
    case '<':
        rc = tn_buf_append(b, s, len);
        if (!rc) rc = fill_n(b, fill, fill_len, gap);
        break;
    case '^':
        rc = fill_n(b, fill, fill_len, gap / 2);
        if (!rc) rc = tn_buf_append(b, s, len);
        if (!rc) rc = fill_n(b, fill, fill_len, gap - gap / 2);
        break;
    case '=':
        rc = tn_buf_append(b, s, prefix);
        if (!rc) rc = fill_n(b, fill, fill_len, gap);
        if (!rc) rc = tn_buf_append(b, s + prefix, len - prefix);
        break;
    default:
        rc = fill_n(b, fill, fill_len, gap);
        if (!rc) rc = tn_buf_append(b, s, len);
    }
    return rc;
}

/* Digits of v in base 2, 8, 10 or 16 into t (reversed order is fixed up); returns length. */
static int utoa_base(uint64_t v, int base, bool upper, char *t) {
    const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char r[72];
    int n = 0;
    do {
        r[n++] = dig[v % (unsigned)base];
        v /= (unsigned)base;
    } while (v);
    for (int k = 0; k < n; k++) t[k] = r[n - 1 - k];
    t[n] = 0;
    return n;
}

/* Inserts `sep` every three digits of the integer part of the digit run at s[start, ...). */
static void group_digits(char *out, const char *s, char sep) {
    size_t start = (s[0] == '-' || s[0] == '+' || s[0] == ' ') ? 1 : 0, end = start;
    while (s[end] >= '0' && s[end] <= '9') end++;
    size_t o = 0;
    for (size_t k = 0; k < start; k++) out[o++] = s[k];
    for (size_t k = start; k < end; k++) {
        out[o++] = s[k];
        size_t left = end - k - 1;
        if (left > 0 && left % 3 == 0) out[o++] = sep;
    }
    strcpy(out + o, s + end);
}

/* The shortest text that reads back as d, as Python's repr (and {fmt}'s `{}`): 0.1, 3.0,
   1e+16, 1e-05, 1.2345678901234568e+16. */
static void shortest_double(char *t, size_t cap, double d) {
    if (isnan(d)) { snprintf(t, cap, "nan"); return; }
    if (isinf(d)) { snprintf(t, cap, d < 0 ? "-inf" : "inf"); return; }
    char e[40];
    int p = 1;
    for (; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, d);
        if (strtod(e, NULL) == d) break;
    }
    if (p > 17) p = 17;
    /* e: [-]D[.DDD]e[+-]XX */
    const char *s = e;
    bool neg = *s == '-';
    if (neg) s++;
    char digits[20];
    int nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9') digits[nd++] = *s;
    int ex = atoi(s + 1);
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    size_t o = 0;
    if (neg) t[o++] = '-';
    if (ex >= -4 && ex < 16) {
        if (ex < 0) {
            t[o++] = '0';
            t[o++] = '.';
            for (int k = -1; k > ex; k--) t[o++] = '0';
            for (int k = 0; k < nd; k++) t[o++] = digits[k];
        } else {
            for (int k = 0; k <= ex; k++) t[o++] = k < nd ? digits[k] : '0';
            t[o++] = '.';
            if (nd > ex + 1) for (int k = ex + 1; k < nd; k++) t[o++] = digits[k];
            else t[o++] = '0';
        }
        t[o] = 0;
    } else {
        t[o++] = digits[0];
        if (nd > 1) {
            t[o++] = '.';
            for (int k = 1; k < nd; k++) t[o++] = digits[k];
        }
        snprintf(t + o, cap - o, "e%c%02d", ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
    }
}

/* ---------------------------------------------------------------------------------------------
 * printf: %[n$][flags][width][.precision][length]type
 */
static int printf_one(tn_buf *b, fmt_state *st, const char **pp, const char *end) {
    const char *it = *pp;   /* after '%' */
    int arg_index = -1;
    bool minus = false, plus = false, space = false, alt = false, zero = false;
    int64_t width = -1, prec = -1;
    int rc;
    if (it < end && *it >= '0' && *it <= '9') {
        bool lead_zero = *it == '0';
        int64_t v = 0;
        while (it < end && *it >= '0' && *it <= '9') { if (v < 100000000) v = v * 10 + (*it - '0'); it++; }
        if (it < end && *it == '$') {
            it++;
            if (v == 0) return tn_error_set(TN_EINVAL, "argument index out of range");
            arg_index = (int)v - 1;
        } else {
            if (lead_zero) zero = true;
            if (v != 0) width = v;
        }
    }
    if (width < 0) {
        for (; it < end; it++) {
            if (*it == '-') minus = true;
            else if (*it == '+') plus = true;
            else if (*it == ' ') space = true;
            else if (*it == '#') alt = true;
            else if (*it == '0') zero = true;
            else break;
        }
        if (it < end && *it >= '0' && *it <= '9') {
            width = 0;
            while (it < end && *it >= '0' && *it <= '9') { if (width < 100000000) width = width * 10 + (*it - '0'); it++; }
        } else if (it < end && *it == '*') {
            it++;
            const farg *w;
            if ((rc = get_arg(st, -1, &w))) return rc;
            if (w->k != A_INT) return tn_error_set(TN_EINVAL, "width is not integer");
            width = w->i;
            if (width < 0) { minus = true; width = -width; }
        }
    }
    if (it < end && *it == '.') {
        it++;
        prec = 0;
        if (it < end && *it >= '0' && *it <= '9') {
            while (it < end && *it >= '0' && *it <= '9') { if (prec < 100000000) prec = prec * 10 + (*it - '0'); it++; }
        } else if (it < end && *it == '*') {
            it++;
            const farg *w;
            if ((rc = get_arg(st, -1, &w))) return rc;
            if (w->k != A_INT) return tn_error_set(TN_EINVAL, "precision is not integer");
            prec = w->i < 0 ? 0 : w->i;
        }
    }
    const farg *a;
    if ((rc = get_arg(st, arg_index, &a))) return rc;
    /* length modifiers: hh and h truncate integers (as C's printf); the others change nothing */
    int trunc = 0;
    if (it < end && *it == 'h') {
        it++;
        trunc = 16;
        if (it < end && *it == 'h') { it++; trunc = 8; }
    } else if (it < end && (*it == 'l' || *it == 'j' || *it == 'z' || *it == 't' || *it == 'L')) {
        if (*it == 'l' && it + 1 < end && it[1] == 'l') it++;
        it++;
    }
    /* {fmt} takes the last character as the type when the format ends early */
    char type = it < end ? *it++ : end[-1];
    *pp = it;
    if (width > 100000000 || prec > 100000000) return tn_error_set(TN_ELIMIT, "printf width or precision is too large");
    farg v = *a;
    if (v.k == A_BOOL) {
        if (type == 's') { v.k = A_STR; v.s.ptr = v.i ? "true" : "false"; v.s.len = v.i ? 4 : 5; }
        else v.k = A_INT;
    }
    char fill = ' ';
    if (v.k == A_STR) {
        if (type != 's') return bad_type(type, v.k);
        uint32_t len = prec >= 0 ? cp_prefix(v.s.ptr, v.s.len, prec) : v.s.len;
        return pad(b, v.s.ptr, len, width, minus ? '<' : '>', &fill, 1, 0);
    }
    char cf[48], t[400];
    size_t o = 0;
    cf[o++] = '%';
    if (minus && !zero) cf[o++] = '-';
    if (plus) cf[o++] = '+';
    if (space) cf[o++] = ' ';
    if (alt) cf[o++] = '#';
    if (zero) cf[o++] = '0';
    o += (size_t)snprintf(cf + o, sizeof cf - o, "%lld", (long long)(width < 0 ? 0 : width));
    if (prec >= 0) o += (size_t)snprintf(cf + o, sizeof cf - o, ".%lld", (long long)prec);
    if (v.k == A_DBL) {
        if (!strchr("eEfFgGaA", type)) return bad_type(type, v.k);
        cf[o++] = type;
        cf[o] = 0;
        int need = snprintf(NULL, 0, cf, v.d);
        if (need < 0) return tn_error_set(TN_EINVAL, "printf: cannot format %g", v.d);
        char *heap = (size_t)need < sizeof t ? t : malloc((size_t)need + 1);
        if (!heap) return TN_ENOMEM;
        snprintf(heap, (size_t)need + 1, cf, v.d);
        rc = tn_buf_append(b, heap, (size_t)need);
        if (heap != t) free(heap);
        return rc;
    }
    /* integers */
    bool is_signed = type == 'd' || type == 'i';
    int64_t x = v.i;
    uint64_t u = (uint64_t)x;
    if (trunc == 8) { x = (int8_t)x; u = (uint8_t)u; }
    else if (trunc == 16) { x = (int16_t)x; u = (uint16_t)u; }
    if (type == 'c') {
        char ch = (char)x;
        return pad(b, &ch, 1, width, minus ? '<' : '>', &fill, 1, 0);
    }
    if (type == 'b' || type == 'B') {
        char digits[80], s[100];
        int nd = utoa_base(u, 2, false, digits);
        size_t so = 0;
        if (plus) s[so++] = '+';
        else if (space) s[so++] = ' ';
        if (alt && u) { s[so++] = '0'; s[so++] = (char)type; }
        size_t prefix = so;
        for (int64_t k = nd; k < prec; k++) s[so++] = '0';
        memcpy(s + so, digits, (size_t)nd + 1);
        so += (size_t)nd;
        char zf = '0';
        return zero ? pad(b, s, so, width, '=', &zf, 1, prefix) : pad(b, s, so, width, minus ? '<' : '>', &fill, 1, 0);
    }
    if (!strchr("dixXou", type)) return bad_type(type, v.k);
    cf[o++] = 'l';
    cf[o++] = 'l';
    cf[o++] = type;
    cf[o] = 0;
    int n = is_signed ? snprintf(t, sizeof t, cf, (long long)x) : snprintf(t, sizeof t, cf, (unsigned long long)u);
    if (n < 0 || (size_t)n >= sizeof t) {
        char *heap = malloc((size_t)(n < 0 ? 0 : n) + 1);
        if (!heap || n < 0) { free(heap); return TN_ENOMEM; }
        if (is_signed) snprintf(heap, (size_t)n + 1, cf, (long long)x);
        else snprintf(heap, (size_t)n + 1, cf, (unsigned long long)u);
        rc = tn_buf_append(b, heap, (size_t)n);
        free(heap);
        return rc;
    }
    return tn_buf_append(b, t, (size_t)n);
}

static int do_printf(tn_buf *b, tn_str f, const farg *a, int na) {
    fmt_state st = {a, na, 0, 0};
    const char *p = f.ptr, *end = f.ptr + f.len;
    int rc = 0;
    while (p < end && !rc) {
        const char *q = memchr(p, '%', (size_t)(end - p));
        if (!q) return tn_buf_append(b, p, (size_t)(end - p));
        if ((rc = tn_buf_append(b, p, (size_t)(q - p)))) break;
        p = q + 1;
        if (p < end && *p == '%') {
            rc = tn_buf_append_byte(b, '%');
            p++;
            continue;
        }
        rc = printf_one(b, &st, &p, end);
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * format: {[index]}, {[index]:[[fill]align][sign][#][0][width][,|_][.precision][type]}
 */
static int parse_uint(const char **pp, const char *end, int64_t *out) {
    const char *p = *pp;
    int64_t v = 0;
    while (p < end && *p >= '0' && *p <= '9') { if (v < 100000000) v = v * 10 + (*p - '0'); p++; }
    *out = v;
    *pp = p;
    return 0;
}

/* A nested {} or {n} for a dynamic width or precision. */
static int dynamic_int(fmt_state *st, const char **pp, const char *end, int64_t *out, const char *what) {
    const char *p = *pp + 1;
    int index = -1;
    if (p < end && *p >= '0' && *p <= '9') {
        int64_t v;
        parse_uint(&p, end, &v);
        index = (int)v;
    }
    if (p >= end || *p != '}') return tn_error_set(TN_EINVAL, "invalid format string");
    *pp = p + 1;
    const farg *a;
    int rc = get_arg(st, index, &a);
    if (rc) return rc;
    if (a->k != A_INT) return tn_error_set(TN_EINVAL, "%s is not integer", what);
    if (a->i < 0) return tn_error_set(TN_EINVAL, "negative %s", what);
    *out = a->i;
    return 0;
}

static int format_value(tn_buf *b, const farg *a0, char fill, char align, char sign, bool alt, bool zero,
                        int64_t width, char group, int64_t prec, char type) {
    farg v = *a0;
    if (v.k == A_BOOL) {
        if (type == 0 || type == 's') { v.k = A_STR; v.s.ptr = v.i ? "true" : "false"; v.s.len = v.i ? 4 : 5; }
        else v.k = A_INT;
    }
    if (v.k == A_STR) {
        if (type != 0 && type != 's') return bad_type(type, v.k);
        if (sign || alt || zero || align == '=') return tn_error_set(TN_EINVAL, "format specifier requires numeric argument");
        uint32_t len = prec >= 0 ? cp_prefix(v.s.ptr, v.s.len, prec) : v.s.len;
        return pad(b, v.s.ptr, len, width, align ? align : '<', &fill, 1, 0);
    }
    char t[400], g[600];
    size_t prefix = 0;
    if (v.k == A_INT) {
        if (prec >= 0) return tn_error_set(TN_EINVAL, "precision not allowed for this argument type");
        if (type && !strchr("dxXbBo", type)) return bad_type(type, v.k);
        int base = group ? 10 : type == 'x' || type == 'X' ? 16 : type == 'b' || type == 'B' ? 2 : type == 'o' ? 8 : 10;
        bool neg = v.i < 0;
        uint64_t u = neg ? (uint64_t)0 - (uint64_t)v.i : (uint64_t)v.i;
        size_t o = 0;
        if (neg) t[o++] = '-';
        else if (sign == '+') t[o++] = '+';
        else if (sign == ' ') t[o++] = ' ';
        if (alt && base != 10) {
            t[o++] = '0';
            if (base != 8) t[o++] = base == 16 ? (type == 'X' ? 'X' : 'x') : (type == 'B' ? 'B' : 'b');
        }
        prefix = o;
        utoa_base(u, base, type == 'X', t + o);
    } else {
        if (type && !strchr("eEfFgGaA", type)) return bad_type(type, v.k);
        if (type == 0 && prec < 0) {
            shortest_double(t + 1, sizeof t - 1, v.d);
        } else {
            char cf[32];
            if (prec > 300) return tn_error_set(TN_ELIMIT, "format precision %lld is too large", (long long)prec);
            if (prec < 0) snprintf(cf, sizeof cf, "%%%c", type);     /* C's defaults: 6 digits, %a exact */
            else snprintf(cf, sizeof cf, "%%%s.%lld%c", type ? "" : "#", (long long)prec, type ? type : 'g');
            snprintf(t + 1, sizeof t - 1, cf, v.d);
        }
        /* sign: a '-' from the conversion stays; + or space are added for the others */
        if (t[1] == '-') memmove(t, t + 1, strlen(t + 1) + 1);
        else if (sign == '+' || sign == ' ') t[0] = sign;
        else memmove(t, t + 1, strlen(t + 1) + 1);
        prefix = (t[0] == '-' || t[0] == '+' || t[0] == ' ') ? 1 : 0;
    }
    const char *s = t;
    if (group) {
        group_digits(g, t, group);
        s = g;
    }
    if (zero) {
        char zf = '0';
        return pad(b, s, strlen(s), width, '=', &zf, 1, prefix);
    }
    return pad(b, s, strlen(s), width, align ? align : '>', &fill, 1, prefix);
}

static int format_one(tn_buf *b, fmt_state *st, const char **pp, const char *end) {
    const char *p = *pp;   /* after '{' */
    int index = -1, rc;
    if (p < end && *p >= '0' && *p <= '9') {
        int64_t v;
        parse_uint(&p, end, &v);
        index = (int)v;
    } else if (p < end && (*p == '_' || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z'))) {
        const char *q = p;
        while (q < end && (*q == '_' || (*q >= '0' && *q <= '9') || ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z'))) q++;
        if (q < end && (*q == '}' || *q == ':'))
            return tn_error_set(TN_EINVAL,
                                "Argument with name \"%.*s\" not found, did you mean to use it as a format specifier (e.g. {:%.*s}",
                                (int)(q - p), p, (int)(q - p), p);
        return tn_error_set(TN_EINVAL, "invalid format string");
    }
    char fill = ' ', align = 0, sign = 0, group = 0, type = 0;
    bool alt = false, zero = false;
    int64_t width = -1, prec = -1;
    const farg *a;
    if (p < end && *p != ':' && *p != '}') return tn_error_set(TN_EINVAL, "invalid format string");
    if (p >= end) return tn_error_set(TN_EINVAL, "invalid format string");
    if ((rc = get_arg(st, index, &a))) return rc;     /* the value's index is taken before a {} width's */
    if (*p == ':') {
        p++;
        if (p + 1 < end && strchr("<>^=", p[1]) && !((unsigned char)*p & 0x80) && *p != '{' && *p != '}') {
            fill = *p;
            align = p[1];
            p += 2;
        } else if (p < end && strchr("<>^=", *p) && *p) {
            align = *p++;
        }
        if (p < end && (*p == '+' || *p == '-' || *p == ' ')) sign = *p++;
        if (p < end && *p == '#') { alt = true; p++; }
        if (p < end && *p == '0') { zero = true; p++; }
        if (p < end && *p >= '0' && *p <= '9') parse_uint(&p, end, &width);
        else if (p < end && *p == '{' && (rc = dynamic_int(st, &p, end, &width, "width"))) return rc;
        if (p < end && (*p == ',' || *p == '_')) group = *p++;
        if (p < end && *p == '.') {
            p++;
            if (p < end && *p >= '0' && *p <= '9') parse_uint(&p, end, &prec);
            else if (p < end && *p == '{') {
                if ((rc = dynamic_int(st, &p, end, &prec, "precision"))) return rc;
            } else return tn_error_set(TN_EINVAL, "missing precision specifier");
        }
        if (p < end && *p != '}') type = *p++;
        if (p >= end || *p != '}') return tn_error_set(TN_EINVAL, "missing '}' in format string");
    }
    *pp = p + 1;
    if (width > 100000000) return tn_error_set(TN_ELIMIT, "format width %lld is too large", (long long)width);
    return format_value(b, a, fill, align, sign == '-' ? 0 : sign, alt, zero, width, group, prec, type);
}

static int do_format(tn_buf *b, tn_str f, const farg *a, int na) {
    fmt_state st = {a, na, 0, 0};
    const char *p = f.ptr, *end = f.ptr + f.len;
    int rc = 0;
    while (p < end && !rc) {
        const char *q = p;
        while (q < end && *q != '{' && *q != '}') q++;
        if ((rc = tn_buf_append(b, p, (size_t)(q - p)))) break;
        if (q >= end) break;
        if (q + 1 < end && q[1] == *q) {
            rc = tn_buf_append_byte(b, (uint8_t)*q);
            p = q + 2;
            continue;
        }
        if (*q == '}') return tn_error_set(TN_EINVAL, "unmatched '}' in format string");
        p = q + 1;
        rc = format_one(b, &st, &p, end);
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Bind and the vector loop.
 */
static int bind_format(tn_func_binding *bd, const tn_value *const *consts, void **bind_data) {
    (void)consts;
    (void)bind_data;
    for (uint32_t i = 1; i < bd->nargs; i++) {
        switch (bd->arg_types[i].id) {
        case TN_TYPE_BOOLEAN: case TN_TYPE_BIGINT: case TN_TYPE_DOUBLE: case TN_TYPE_VARCHAR: break;
        case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER:
            bd->arg_types[i] = tn_type_make(TN_TYPE_BIGINT);
            break;
        case TN_TYPE_FLOAT: case TN_TYPE_DECIMAL:
            bd->arg_types[i] = tn_type_make(TN_TYPE_DOUBLE);
            break;
        default: bd->arg_types[i] = tn_type_make(TN_TYPE_VARCHAR);
        }
    }
    bd->arg_types[0] = tn_type_make(TN_TYPE_VARCHAR);
    bd->ret = tn_type_make(TN_TYPE_VARCHAR);
    return 0;
}

typedef int (*formatter)(tn_buf *b, tn_str f, const farg *a, int na);

static int format_rows(tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out, formatter fn) {
    farg a[TN_FUNC_MAX_ARGS];
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) {
            tn_func_str_empty(out, i);
            continue;
        }
        for (uint32_t k = 1; k < nargs; k++) {
            const tn_vector *v = args[k];
            uint32_t r = TN_ARG_IDX(v, i);
            farg *x = &a[k - 1];
            switch (v->type.id) {
            case TN_TYPE_BOOLEAN: x->k = A_BOOL; x->i = ((const uint8_t *)v->data)[r] != 0; break;
            case TN_TYPE_BIGINT: x->k = A_INT; x->i = ((const int64_t *)v->data)[r]; break;
            case TN_TYPE_DOUBLE: x->k = A_DBL; x->d = ((const double *)v->data)[r]; break;
            default: x->k = A_STR; x->s = ((const tn_str *)v->data)[r]; break;
            }
        }
        tn_buf_clear(&b);
        tn_str f = ((const tn_str *)args[0]->data)[TN_ARG_IDX(args[0], i)];
        rc = fn(&b, f, a, (int)nargs - 1);
        if (!rc && b.len > UINT32_MAX) rc = tn_error_set(TN_ELIMIT, "result of %zu bytes is too long", b.len);
        if (!rc) rc = tn_vector_set_str(out, i, b.data ? (const char *)b.data : "", b.len);
    }
    tn_buf_free(&b);
    return rc;
}

static int f_printf(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out) {
    (void)call;
    return format_rows(args, nargs, n, out, do_printf);
}

static int f_format(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out) {
    (void)call;
    return format_rows(args, nargs, n, out, do_format);
}

#define N TN_SIG_NONE
#define V TN_TYPE_VARCHAR
const tn_func_def tn_funcs_format[] = {
    {"printf", {V, TN_SIG_ANY, N}, V, TN_FUNC_VARIADIC, f_printf, bind_format, NULL},
    {"format", {V, TN_SIG_ANY, N}, V, TN_FUNC_VARIADIC, f_format, bind_format, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
