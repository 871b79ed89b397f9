/*
 * server/types.c: tarn's logical types as PostgreSQL types, in one table (OID, length, name),
 * and the value codecs of the wire: result values in text (format 0, PostgreSQL's output
 * spelling: t/f, Infinity, \x hex bytea, "+00" zones, "mons" intervals) and binary (format 1,
 * big-endian, dates and timestamps from 2000-01-01, base-10000 numeric), and Bind parameters
 * decoded from either format into tn_value.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/pgwireInt.h"

/* PostgreSQL epoch (2000-01-01) from the Unix epoch. */
#define PG_EPOCH_DAYS 10957
#define PG_EPOCH_US   INT64_C(946684800000000)

static const tn_pg_type_info type_table[] = {
    {TN_TYPE_NULL, 25, -1, "text"},          /* an untyped NULL column: text, all NULL */
    {TN_TYPE_BOOLEAN, 16, 1, "bool"},
    {TN_TYPE_TINYINT, 21, 2, "int2"},        /* no 1-byte integer in PostgreSQL: widened */
    {TN_TYPE_SMALLINT, 21, 2, "int2"},
    {TN_TYPE_INTEGER, 23, 4, "int4"},
    {TN_TYPE_BIGINT, 20, 8, "int8"},
    {TN_TYPE_FLOAT, 700, 4, "float4"},
    {TN_TYPE_DOUBLE, 701, 8, "float8"},
    {TN_TYPE_DECIMAL, 1700, -1, "numeric"},
    {TN_TYPE_VARCHAR, 25, -1, "text"},
    {TN_TYPE_VARBINARY, 17, -1, "bytea"},    /* bitmaps included (RoaringBitmap bytes) */
    {TN_TYPE_DATE, 1082, 4, "date"},
    {TN_TYPE_TIMESTAMP, 1114, 8, "timestamp"},
    {TN_TYPE_TIMESTAMP_TZ, 1184, 8, "timestamptz"},
    {TN_TYPE_INTERVAL, 1186, 16, "interval"},
    {TN_TYPE_LIST, 25, -1, "text"},          /* nested values in DuckDB's text spelling */
    {TN_TYPE_STRUCT, 25, -1, "text"},
    {TN_TYPE_MAP, 25, -1, "text"},
};
_Static_assert(sizeof type_table / sizeof type_table[0] == TN_TYPE_COUNT, "one row per tarn type");

/* Parameter types clients declare that are not a result type of their own. */
static const tn_pg_type_info param_alias[] = {
    {TN_TYPE_VARCHAR, 1043, -1, "varchar"},
    {TN_TYPE_VARCHAR, 1042, -1, "bpchar"},
    {TN_TYPE_VARCHAR, 19, 64, "name"},
    {TN_TYPE_VARCHAR, 705, -2, "unknown"},
    {TN_TYPE_BIGINT, 26, 4, "oid"},
};

const tn_pg_type_info *tn_pg_type_of(tn_type t) {
    return t.id < TN_TYPE_COUNT ? &type_table[t.id] : &type_table[TN_TYPE_VARCHAR];
}

const tn_pg_type_info *tn_pg_type_by_oid(uint32_t oid) {
    for (size_t i = 1; i < sizeof type_table / sizeof type_table[0]; i++)
        if (type_table[i].oid == oid && i != TN_TYPE_TINYINT) return &type_table[i];
    for (size_t i = 0; i < sizeof param_alias / sizeof param_alias[0]; i++)
        if (param_alias[i].oid == oid) return &param_alias[i];
    return NULL;
}

int32_t tn_pg_typmod(tn_type t) {
    if (t.id == TN_TYPE_DECIMAL) return (int32_t)(((uint32_t)t.precision << 16) | t.scale) + 4;
    return -1;
}

/* Shortest text that reads back as the same double, as PostgreSQL prints with
 * extra_float_digits > 0 (its default since version 12). */
static int format_float8(char *b, size_t cap, double d, int maxdigits, int efd) {
    if (isnan(d)) return snprintf(b, cap, "NaN");
    if (isinf(d)) return snprintf(b, cap, d > 0 ? "Infinity" : "-Infinity");
    int n = 0;
    if (efd <= 0) return snprintf(b, cap, "%.*g", (maxdigits == 9 ? 6 : 15) + efd < 1 ? 1 : (maxdigits == 9 ? 6 : 15) + efd, d);
    for (int p = maxdigits == 9 ? 6 : 15; p <= maxdigits; p++) {
        n = snprintf(b, cap, "%.*g", p, d);
        if (maxdigits == 9 ? (float)strtod(b, NULL) == (float)d : strtod(b, NULL) == d) break;
    }
    return n;
}

int tn_pg_format_interval(tn_buf *out, tn_interval iv) {
    int rc = 0;
    bool any = false;
    int32_t years = iv.months / 12, mons = iv.months % 12;
    if (years) { rc = tn_buf_printf(out, "%d year%s", years, years == 1 || years == -1 ? "" : "s"); any = true; }
    if (!rc && mons) { rc = tn_buf_printf(out, "%s%d mon%s", any ? " " : "", mons, mons == 1 || mons == -1 ? "" : "s"); any = true; }
    if (!rc && iv.days) { rc = tn_buf_printf(out, "%s%d day%s", any ? " " : "", iv.days, iv.days == 1 || iv.days == -1 ? "" : "s"); any = true; }
    if (!rc && (iv.micros || !any)) {
        uint64_t us = iv.micros < 0 ? (uint64_t)0 - (uint64_t)iv.micros : (uint64_t)iv.micros;
        uint64_t h = us / 3600000000u, m = us / 60000000u % 60, s = us / 1000000u % 60, f = us % 1000000u;
        rc = tn_buf_printf(out, "%s%s%02llu:%02llu:%02llu", any ? " " : "", iv.micros < 0 ? "-" : "",
                           (unsigned long long)h, (unsigned long long)m, (unsigned long long)s);
        if (!rc && f) {
            char fb[8];
            snprintf(fb, sizeof fb, "%06llu", (unsigned long long)f);
            size_t n = 6;
            while (n > 0 && fb[n - 1] == '0') n--;
            fb[n] = 0;
            rc = tn_buf_printf(out, ".%s", fb);
        }
    }
    return rc;
}

static const char hexd[] = "0123456789abcdef";

/* Text of the most common types written straight into the buffer (result streaming spends
 * its time here): integers, and dates and timestamps of the years 1-9999 as PostgreSQL's ISO
 * DateStyle shows them; other years (BC, 5 digits, infinity) go through tn_format_*. */
static char *put_int(char *p, int64_t x) {
    uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    char t[20];
    int n = 0;
    do { t[n++] = (char)('0' + u % 10); u /= 10; } while (u);
    if (x < 0) *p++ = '-';
    while (n) *p++ = t[--n];
    return p;
}

static char *put_2(char *p, unsigned v) {
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
    return p + 2;
}

/* NULL when the year is outside 1-9999. Consecutive rows often share a day: the thread keeps
 * the last one's text. */
static char *put_date(char *p, int64_t days) {
    static __thread int64_t last_days = INT64_MIN;
    static __thread char last[10];
    if (days < -719162 || days > 2932896) return NULL;      /* 0001-01-01 .. 9999-12-31 */
    if (days != last_days) {
        int64_t y;
        unsigned m, d;
        tn_civil_from_days(days, &y, &m, &d);
        char *q = put_2(last, (unsigned)(y / 100));
        q = put_2(q, (unsigned)(y % 100));
        *q++ = '-';
        q = put_2(q, m);
        *q++ = '-';
        put_2(q, d);
        last_days = days;
    }
    memcpy(p, last, 10);
    return p + 10;
}

static char *put_timestamp(char *p, int64_t us) {
    const int64_t day_us = INT64_C(86400000000);
    if (!tn_ts_is_finite(us)) return NULL;
    int64_t days = us / day_us, rem = us % day_us;
    if (rem < 0) {
        rem += day_us;
        days--;
    }
    if (!(p = put_date(p, days))) return NULL;
    unsigned secs = (unsigned)(rem / 1000000), frac = (unsigned)(rem % 1000000);
    *p++ = ' ';
    p = put_2(p, secs / 3600);
    *p++ = ':';
    p = put_2(p, secs / 60 % 60);
    *p++ = ':';
    p = put_2(p, secs % 60);
    if (frac) {
        *p++ = '.';
        for (unsigned div = 100000; frac; div /= 10) {
            *p++ = (char)('0' + frac / div);
            frac %= div;
        }
    }
    return p;
}

static int text_value(tn_buf *out, const tn_vector *v, uint32_t row, int efd) {
    char b[TN_FORMAT_BUF_SIZE];
    int n;
    if (tn_buf_reserve(out, 40)) return TN_ENOMEM;
    char *p = (char *)out->data + out->len, *e = NULL;
    switch ((tn_type_id)v->type.id) {
    case TN_TYPE_TINYINT: e = put_int(p, ((const int8_t *)v->data)[row]); break;
    case TN_TYPE_SMALLINT: e = put_int(p, ((const int16_t *)v->data)[row]); break;
    case TN_TYPE_INTEGER: e = put_int(p, ((const int32_t *)v->data)[row]); break;
    case TN_TYPE_BIGINT: e = put_int(p, ((const int64_t *)v->data)[row]); break;
    case TN_TYPE_DATE: {
        int32_t d = ((const int32_t *)v->data)[row];
        e = tn_date_is_finite(d) ? put_date(p, d) : NULL;
        break;
    }
    case TN_TYPE_TIMESTAMP: e = put_timestamp(p, ((const int64_t *)v->data)[row]); break;
    case TN_TYPE_TIMESTAMP_TZ:
        if ((e = put_timestamp(p, ((const int64_t *)v->data)[row]))) {
            memcpy(e, "+00", 3);
            e += 3;
        }
        break;
    case TN_TYPE_VARCHAR: {
        tn_str s = ((const tn_str *)v->data)[row];
        return tn_buf_append(out, s.ptr, s.len);
    }
    default: break;
    }
    if (e) {
        out->len += (size_t)(e - p);
        return 0;
    }
    switch ((tn_type_id)v->type.id) {
    case TN_TYPE_BOOLEAN:
        return tn_buf_append_byte(out, ((const uint8_t *)v->data)[row] ? 't' : 'f');
    case TN_TYPE_FLOAT:
        n = format_float8(b, sizeof b, ((const float *)v->data)[row], 9, efd);
        return tn_buf_append(out, b, (size_t)n);
    case TN_TYPE_DOUBLE:
        n = format_float8(b, sizeof b, ((const double *)v->data)[row], 17, efd);
        return tn_buf_append(out, b, (size_t)n);
    case TN_TYPE_DECIMAL: {
        tn_int128 x = tn_type_is_decimal128(v->type) ? ((const tn_int128 *)v->data)[row]
                                                     : ((const int64_t *)v->data)[row];
        n = tn_format_decimal(b, sizeof b, x, v->type.scale);
        return tn_buf_append(out, b, (size_t)n);
    }
    case TN_TYPE_VARBINARY: {
        tn_str s = ((const tn_str *)v->data)[row];
        int rc = tn_buf_reserve(out, 2 + 2 * (size_t)s.len);
        if (rc) return rc;
        out->data[out->len++] = '\\';
        out->data[out->len++] = 'x';
        for (uint32_t i = 0; i < s.len; i++) {
            out->data[out->len++] = (uint8_t)hexd[(uint8_t)s.ptr[i] >> 4];
            out->data[out->len++] = (uint8_t)hexd[(uint8_t)s.ptr[i] & 15];
        }
        return 0;
    }
    case TN_TYPE_TIMESTAMP_TZ: {
        int64_t us = ((const int64_t *)v->data)[row];
        n = tn_format_timestamp(b, sizeof b, us);
        int rc = tn_buf_append(out, b, (size_t)n);
        return rc || !tn_ts_is_finite(us) ? rc : tn_buf_append(out, "+00", 3);   /* 'infinity' as PostgreSQL */
    }
    case TN_TYPE_INTERVAL:
        return tn_pg_format_interval(out, ((const tn_interval *)v->data)[row]);
    default:
        return tn_value_format(out, v, row);
    }
}

static void be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void be32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i)); }
static void be64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i)); }
static uint64_t rd_be(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

/* PostgreSQL's binary numeric: int16 ndigits, int16 weight, int16 sign, int16 dscale, then
 * ndigits base-10000 digits, the first of weight 10000^weight. */
static int numeric_binary(tn_buf *out, tn_int128 x, int scale) {
    bool neg = x < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)x : (unsigned __int128)x;
    char dec[48];
    int nd = 0;
    do { dec[nd++] = (char)('0' + (int)(u % 10)); u /= 10; } while (u);
    /* dec holds digits least significant first; pad to at least scale + 1 digits. */
    while (nd <= scale) dec[nd++] = '0';
    int int_digits = nd - scale;
    /* groups: integer part right-aligned to 4, fraction left-aligned to 4 */
    int int_groups = (int_digits + 3) / 4, frac_groups = (scale + 3) / 4;
    uint16_t groups[24];
    int ng = 0;
    for (int g = 0; g < int_groups + frac_groups; g++) {
        int val = 0;
        for (int k = 0; k < 4; k++) {
            /* position of this digit relative to the point: integer digit index from the left */
            int pos = g * 4 + k - (int_groups * 4 - int_digits);   /* 0 = first integer digit */
            int idx = nd - 1 - pos;                                  /* index into dec */
            int d = pos < 0 || idx < 0 ? 0 : dec[idx] - '0';
            val = val * 10 + d;
        }
        groups[ng++] = (uint16_t)val;
    }
    int first = 0, last = ng;
    while (first < ng && groups[first] == 0) first++;
    while (last > first && groups[last - 1] == 0) last--;
    int16_t weight = (int16_t)(int_groups - 1 - first);
    int ndig = last - first;
    if (ndig == 0) weight = 0;
    int rc = tn_buf_reserve(out, 8 + 2 * (size_t)ndig);
    if (rc) return rc;
    uint8_t *p = out->data + out->len;
    be16(p, (uint16_t)ndig);
    be16(p + 2, (uint16_t)weight);
    be16(p + 4, neg && ndig ? 0x4000 : 0);
    be16(p + 6, (uint16_t)scale);
    for (int i = 0; i < ndig; i++) be16(p + 8 + 2 * i, groups[first + i]);
    out->len += 8 + 2 * (size_t)ndig;
    return 0;
}

static int binary_value(tn_buf *out, const tn_vector *v, uint32_t row) {
    uint8_t b[16];
    switch ((tn_type_id)v->type.id) {
    case TN_TYPE_BOOLEAN: return tn_buf_append_byte(out, ((const uint8_t *)v->data)[row] ? 1 : 0);
    case TN_TYPE_TINYINT: be16(b, (uint16_t)(int16_t)((const int8_t *)v->data)[row]); return tn_buf_append(out, b, 2);
    case TN_TYPE_SMALLINT: be16(b, (uint16_t)((const int16_t *)v->data)[row]); return tn_buf_append(out, b, 2);
    case TN_TYPE_INTEGER: be32(b, (uint32_t)((const int32_t *)v->data)[row]); return tn_buf_append(out, b, 4);
    case TN_TYPE_BIGINT: be64(b, (uint64_t)((const int64_t *)v->data)[row]); return tn_buf_append(out, b, 8);
    case TN_TYPE_FLOAT: {
        uint32_t u;
        memcpy(&u, &((const float *)v->data)[row], 4);
        be32(b, u);
        return tn_buf_append(out, b, 4);
    }
    case TN_TYPE_DOUBLE: {
        uint64_t u;
        memcpy(&u, &((const double *)v->data)[row], 8);
        be64(b, u);
        return tn_buf_append(out, b, 8);
    }
    case TN_TYPE_DECIMAL: {
        tn_int128 x = tn_type_is_decimal128(v->type) ? ((const tn_int128 *)v->data)[row]
                                                     : ((const int64_t *)v->data)[row];
        return numeric_binary(out, x, v->type.scale);
    }
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: {
        tn_str s = ((const tn_str *)v->data)[row];
        return tn_buf_append(out, s.ptr, s.len);
    }
    case TN_TYPE_DATE:
        be32(b, (uint32_t)(((const int32_t *)v->data)[row] - PG_EPOCH_DAYS));
        return tn_buf_append(out, b, 4);
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ:
        be64(b, (uint64_t)(((const int64_t *)v->data)[row] - PG_EPOCH_US));
        return tn_buf_append(out, b, 8);
    case TN_TYPE_INTERVAL: {
        tn_interval iv = ((const tn_interval *)v->data)[row];
        be64(b, (uint64_t)iv.micros);
        be32(b + 8, (uint32_t)iv.days);
        be32(b + 12, (uint32_t)iv.months);
        return tn_buf_append(out, b, 16);
    }
    default:
        return text_value(out, v, row, 1);
    }
}

int tn_pg_encode_value(tn_buf *out, const tn_vector *v, uint32_t row, int format, int extra_float_digits) {
    return format == 1 ? binary_value(out, v, row) : text_value(out, v, row, extra_float_digits);
}

/* ---------------------------------------------------------------------------------------------
 * Bind parameters.
 */
static int bad_param(uint32_t index, const char *tname, const uint8_t *data, int32_t len) {
    int n = len > 60 ? 60 : len;
    return tn_error_set(TN_EINVAL, "parameter $%u: invalid input syntax for type %s: \"%.*s\"", index, tname, n,
                        (const char *)data);
}

static bool parse_bool_text(const char *s, bool *out) {
    static const char *const t[] = {"t", "true", "1", "yes", "y", "on"};
    static const char *const f[] = {"f", "false", "0", "no", "n", "off"};
    for (size_t i = 0; i < 6; i++) {
        if (strcasecmp(s, t[i]) == 0) { *out = true; return true; }
        if (strcasecmp(s, f[i]) == 0) { *out = false; return true; }
    }
    return false;
}

static int text_param(tn_value *out, const tn_pg_type_info *ti, char *s, uint32_t len, uint32_t index) {
    char *end = NULL;
    const uint8_t *raw = (const uint8_t *)s;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n')) s[--len] = 0;
    while (*s == ' ' || *s == '\t' || *s == '\n') { s++; len--; }
    switch (ti->id) {
    case TN_TYPE_BOOLEAN:
        out->type = tn_type_make(TN_TYPE_BOOLEAN);
        if (!parse_bool_text(s, &out->u.b)) return bad_param(index, ti->name, raw, (int32_t)strlen((const char *)raw));
        return 0;
    case TN_TYPE_SMALLINT:
    case TN_TYPE_INTEGER:
    case TN_TYPE_BIGINT: {
        errno = 0;
        long long x = strtoll(s, &end, 10);
        if (!len || *end || errno) return bad_param(index, ti->name, raw, (int32_t)strlen((const char *)raw));
        if ((ti->id == TN_TYPE_SMALLINT && (x < INT16_MIN || x > INT16_MAX)) ||
            (ti->id == TN_TYPE_INTEGER && (x < INT32_MIN || x > INT32_MAX)))
            return tn_error_set(TN_EINVAL, "parameter $%u: value \"%s\" is out of range for type %s", index, s, ti->name);
        out->type = tn_type_make(ti->id);
        out->u.i = x;
        return 0;
    }
    case TN_TYPE_FLOAT:
    case TN_TYPE_DOUBLE: {
        double d;
        if (strcasecmp(s, "Infinity") == 0 || strcasecmp(s, "inf") == 0) d = INFINITY;
        else if (strcasecmp(s, "-Infinity") == 0 || strcasecmp(s, "-inf") == 0) d = -INFINITY;
        else if (strcasecmp(s, "NaN") == 0) d = NAN;
        else {
            d = strtod(s, &end);
            if (!len || *end) return bad_param(index, ti->name, raw, (int32_t)strlen((const char *)raw));
        }
        out->type = tn_type_make(TN_TYPE_DOUBLE);
        out->u.d = d;
        return 0;
    }
    case TN_TYPE_DECIMAL: {
        const char *dot = strchr(s, '.');
        int scale = 0;
        if (dot) for (const char *p = dot + 1; *p >= '0' && *p <= '9'; p++) scale++;
        if (scale > 38) scale = 38;
        tn_int128 x;
        if (!len || tn_text_to_decimal(s, len, scale, &x)) return bad_param(index, ti->name, raw, (int32_t)strlen((const char *)raw));
        out->type = tn_type_decimal(38, scale);
        out->u.i128 = x;
        return 0;
    }
    case TN_TYPE_DATE: {
        int32_t d;
        if (tn_text_to_date(s, len, &d)) return bad_param(index, ti->name, raw, (int32_t)strlen((const char *)raw));
        out->type = tn_type_make(TN_TYPE_DATE);
        out->u.i = d;
        return 0;
    }
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: {
        int64_t us;
        bool zone = false;
        if (tn_text_to_timestamp_us(s, len, &us, &zone)) return bad_param(index, ti->name, raw, (int32_t)strlen((const char *)raw));
        out->type = tn_type_make(ti->id);
        out->u.i = us;
        return 0;
    }
    case TN_TYPE_INTERVAL:
        if (tn_parse_interval(s, len, &out->u.iv)) return bad_param(index, ti->name, raw, (int32_t)strlen((const char *)raw));
        out->type = tn_type_make(TN_TYPE_INTERVAL);
        return 0;
    case TN_TYPE_VARBINARY: {
        out->type = tn_type_make(TN_TYPE_VARBINARY);
        if (len >= 2 && s[0] == '\\' && s[1] == 'x') {
            if ((len - 2) % 2) return bad_param(index, ti->name, raw, (int32_t)strlen((const char *)raw));
            uint32_t n = (len - 2) / 2;
            for (uint32_t i = 0; i < n; i++) {
                char h[3] = {s[2 + 2 * i], s[3 + 2 * i], 0};
                char *e = NULL;
                long x = strtol(h, &e, 16);
                if (*e || !h[0] || !h[1] || h[0] == '-' || h[0] == '+') return bad_param(index, ti->name, raw, (int32_t)strlen((const char *)raw));
                s[i] = (char)x;
            }
            out->u.s.ptr = s;
            out->u.s.len = n;
            return 0;
        }
        out->u.s.ptr = s;
        out->u.s.len = len;
        return 0;
    }
    default:
        return tn_error_set(TN_EINTERNAL, "parameter $%u: no text decoder for %s", index, ti->name);
    }
}

static int binary_param(tn_value *out, const tn_pg_type_info *ti, const uint8_t *d, int32_t len, uint32_t index) {
    int want = 0;
    switch (ti->oid) {
    case 16: want = 1; break;
    case 21: want = 2; break;
    case 23: case 700: case 1082: case 26: want = 4; break;
    case 20: case 701: case 1114: case 1184: want = 8; break;
    case 1186: want = 16; break;
    default: want = -1;
    }
    if (want > 0 && len != want)
        return tn_error_set(TN_EINVAL, "parameter $%u: binary %s value of %d bytes (%d expected)", index, ti->name, len, want);
    switch (ti->oid) {
    case 16: out->type = tn_type_make(TN_TYPE_BOOLEAN); out->u.b = d[0] != 0; return 0;
    case 21: out->type = tn_type_make(TN_TYPE_SMALLINT); out->u.i = (int16_t)rd_be(d, 2); return 0;
    case 23: out->type = tn_type_make(TN_TYPE_INTEGER); out->u.i = (int32_t)rd_be(d, 4); return 0;
    case 26: out->type = tn_type_make(TN_TYPE_BIGINT); out->u.i = (uint32_t)rd_be(d, 4); return 0;
    case 20: out->type = tn_type_make(TN_TYPE_BIGINT); out->u.i = (int64_t)rd_be(d, 8); return 0;
    case 700: {
        uint32_t u = (uint32_t)rd_be(d, 4);
        float f;
        memcpy(&f, &u, 4);
        out->type = tn_type_make(TN_TYPE_DOUBLE);
        out->u.d = f;
        return 0;
    }
    case 701: {
        uint64_t u = rd_be(d, 8);
        memcpy(&out->u.d, &u, 8);
        out->type = tn_type_make(TN_TYPE_DOUBLE);
        return 0;
    }
    case 1082: out->type = tn_type_make(TN_TYPE_DATE); out->u.i = (int32_t)rd_be(d, 4) + (int64_t)PG_EPOCH_DAYS; return 0;
    case 1114:
    case 1184: {
        int64_t x = (int64_t)rd_be(d, 8);
        if (x > INT64_MAX - PG_EPOCH_US)
            return tn_error_set(TN_EINVAL, "parameter $%u: %s out of range", index, ti->name);
        out->type = tn_type_make(ti->oid == 1114 ? TN_TYPE_TIMESTAMP : TN_TYPE_TIMESTAMP_TZ);
        out->u.i = x + PG_EPOCH_US;
        return 0;
    }
    case 1186:
        out->type = tn_type_make(TN_TYPE_INTERVAL);
        out->u.iv.micros = (int64_t)rd_be(d, 8);
        out->u.iv.days = (int32_t)rd_be(d + 8, 4);
        out->u.iv.months = (int32_t)rd_be(d + 12, 4);
        return 0;
    case 1700: {
        if (len < 8) return tn_error_set(TN_EINVAL, "parameter $%u: binary numeric of %d bytes", index, len);
        uint16_t nd = (uint16_t)rd_be(d, 2), sign = (uint16_t)rd_be(d + 4, 2), dscale = (uint16_t)rd_be(d + 6, 2);
        int16_t weight = (int16_t)rd_be(d + 2, 2);
        if (len != 8 + 2 * nd || (sign != 0 && sign != 0x4000) || dscale > 38)
            return tn_error_set(TN_EINVAL, "parameter $%u: invalid binary numeric (ndigits %u, sign 0x%x, dscale %u, %d bytes)",
                                index, nd, sign, dscale, len);
        /* value = sum digit[i] * 10000^(weight - i), scaled to dscale decimal places */
        int fracg = (dscale + 3) / 4;
        if (weight > 9) return tn_error_set(TN_EINVAL, "parameter $%u: numeric does not fit 38 digits", index);
        unsigned __int128 acc = 0;
        for (int e = weight; e >= -fracg; e--) {
            int i = weight - e;
            unsigned dg = i < nd ? (unsigned)rd_be(d + 8 + 2 * i, 2) : 0;
            if (dg > 9999) return tn_error_set(TN_EINVAL, "parameter $%u: numeric digit %u above 9999", index, dg);
            if (acc > ((unsigned __int128)1 << 126) / 10000)
                return tn_error_set(TN_EINVAL, "parameter $%u: numeric does not fit 38 digits", index);
            acc = acc * 10000 + dg;
        }
        for (int i = weight + fracg + 1 < 0 ? 0 : weight + fracg + 1; i < nd; i++)
            if (rd_be(d + 8 + 2 * i, 2))
                return tn_error_set(TN_EINVAL, "parameter $%u: numeric digits beyond its dscale %u", index, dscale);
        /* acc has 4 * ((dscale + 3) / 4) fraction digits: drop the padding */
        for (int k = 4 * ((dscale + 3) / 4) - dscale; k > 0; k--) acc /= 10;
        out->type = tn_type_decimal(38, dscale);
        out->u.i128 = sign ? -(tn_int128)acc : (tn_int128)acc;
        return 0;
    }
    default:
        return tn_error_set(TN_EINVAL, "parameter $%u: binary format of type %s is not supported", index, ti->name);
    }
}

static bool pgjdbc_date(const char *s, uint32_t n) {
    if (n != 14 && n != 17) return false;
    for (uint32_t i = 0; i < n; i++) {
        char ch = s[i];
        bool digit = ch >= '0' && ch <= '9';
        if (i == 4 || i == 7) { if (ch != '-') return false; }
        else if (i == 10) { if (ch != ' ') return false; }
        else if (i == 11) { if (ch != '+' && ch != '-') return false; }
        else if (i == 14) { if (ch != ':') return false; }
        else if (!digit) return false;
    }
    return true;
}

/* Text the client sends (text-format values of every type, binary text values, COPY fields)
 * must be valid UTF-8 without NUL bytes, as PostgreSQL checks it before any input function:
 * 22021 naming the bytes. */
int tn_pg_text_check(const uint8_t *data, size_t len, const char *what) {
    size_t bad = tn_utf8_check((const char *)data, len);
    const uint8_t *nul = memchr(data, 0, len);
    if (nul && (size_t)(nul - data) < bad) bad = (size_t)(nul - data);
    if (bad >= len) return 0;
    uint8_t lead = data[bad];          /* the bytes of the sequence its lead byte announces */
    size_t want = lead >= 0xf0 && lead <= 0xf7 ? 4 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xc0 && lead <= 0xdf ? 2 : 1;
    char bytes[32];
    size_t n = 0;
    for (size_t k = 0; k < want && bad + k < len; k++)
        n += (size_t)snprintf(bytes + n, sizeof bytes - n, "%s0x%02x", k ? " " : "", data[bad + k]);
    return tn_error_set(TN_EINVAL, "%s: invalid byte sequence for encoding \"UTF8\": %s (byte %zu)", what, bytes, bad + 1);
}

static int check_encoding(const uint8_t *data, int32_t len, uint32_t index) {
    char what[32];
    snprintf(what, sizeof what, "parameter $%u", index);
    return tn_pg_text_check(data, (size_t)len, what);
}

int tn_pg_decode_param(tn_value *out, uint32_t oid, int format, const uint8_t *data, int32_t len,
                       uint32_t index, tn_arena *arena) {
    int rc;
    memset(out, 0, sizeof *out);
    if (!data || len < 0) {
        out->type = tn_type_make(TN_TYPE_NULL);
        out->is_null = true;
        return 0;
    }
    const tn_pg_type_info *ti = oid ? tn_pg_type_by_oid(oid) : NULL;
    if (oid && !ti && format == 1)
        return tn_error_set(TN_EUNSUPPORTED, "parameter $%u: binary format of type oid %u is not supported", index, oid);
    if (!ti) ti = &param_alias[3];                        /* unspecified / unknown: text */
    bool is_text = ti->id == TN_TYPE_VARCHAR || (ti->id == TN_TYPE_VARBINARY && format == 1);
    if (format == 1 && !is_text) return binary_param(out, ti, data, len, index);
    if (!(ti->id == TN_TYPE_VARBINARY && format == 1) && (rc = check_encoding(data, len, index))) return rc;
    char *copy = tn_arena_alloc(arena, (size_t)len + 1);
    if (!copy) return TN_ENOMEM;
    memcpy(copy, data, (size_t)len);
    copy[len] = 0;
    if (is_text && oid == 0 && pgjdbc_date(copy, (uint32_t)len)) {
        /* pgjdbc sends setDate() untyped as "YYYY-MM-DD +hh[:mm]"; PostgreSQL reads a date from
         * it (the zone ignored). Bound as that DATE. */
        int32_t d;
        if (tn_text_to_date(copy, 10, &d) == 0) {
            out->type = tn_type_make(TN_TYPE_DATE);
            out->u.i = d;
            return 0;
        }
    }
    if (is_text) {
        out->type = tn_type_make(ti->id);
        out->u.s.ptr = copy;
        out->u.s.len = (uint32_t)len;
        return 0;
    }
    if (memchr(copy, 0, (size_t)len)) return bad_param(index, ti->name, data, len);
    return text_param(out, ti, copy, (uint32_t)len, index);
}
