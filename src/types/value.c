/*
 * types/value.c: reading one row of a vector into a tn_value, and the total order on values
 * (statistics, sorting). Text spelling lives in format.c.
 */
#include "types/typesInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 10^0 .. 10^22: exact as doubles */
static const double g_pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                         1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

double tn_decimal_to_double(tn_int128 value, int scale) {
    tn_int128 mag = value < 0 ? -value : value;
    if (scale >= 0 && scale <= 22 && mag <= ((tn_int128)1 << 53)) return (double)value / g_pow10_exact[scale];
    char buf[TN_FORMAT_BUF_SIZE];
    tn_format_decimal(buf, sizeof buf, value, scale);
    return strtod(buf, NULL);
}

float tn_decimal_to_float(tn_int128 value, int scale) {
    tn_int128 mag = value < 0 ? -value : value;
    if (scale >= 0 && scale <= 10 && mag <= ((tn_int128)1 << 24)) return (float)value / (float)g_pow10_exact[scale];
    char buf[TN_FORMAT_BUF_SIZE];
    tn_format_decimal(buf, sizeof buf, value, scale);
    return strtof(buf, NULL);
}

int tn_vector_set_value(tn_vector *v, uint32_t row, const tn_value *val) {
    if (val->is_null || val->type.id == TN_TYPE_NULL) return tn_vector_set_null(v, row);
    if (v->validity) tn_vector_set_valid_bit(v, row, true);
    switch (v->type.id) {
    case TN_TYPE_BOOLEAN: ((uint8_t *)v->data)[row] = val->u.b ? 1 : 0; return 0;
    case TN_TYPE_TINYINT: ((int8_t *)v->data)[row] = (int8_t)val->u.i; return 0;
    case TN_TYPE_SMALLINT: ((int16_t *)v->data)[row] = (int16_t)val->u.i; return 0;
    case TN_TYPE_INTEGER:
    case TN_TYPE_DATE: ((int32_t *)v->data)[row] = (int32_t)val->u.i; return 0;
    case TN_TYPE_BIGINT:
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: ((int64_t *)v->data)[row] = val->u.i; return 0;
    case TN_TYPE_FLOAT: ((float *)v->data)[row] = (float)val->u.d; return 0;
    case TN_TYPE_DOUBLE: ((double *)v->data)[row] = val->u.d; return 0;
    case TN_TYPE_DECIMAL:
        if (v->type.precision > TN_DECIMAL_INT64_MAX_PRECISION) ((tn_int128 *)v->data)[row] = val->u.i128;
        else ((int64_t *)v->data)[row] = val->u.i;
        return 0;
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: return tn_vector_set_str(v, row, val->u.s.ptr, val->u.s.len);
    case TN_TYPE_INTERVAL: ((tn_interval *)v->data)[row] = val->u.iv; return 0;
    case TN_TYPE_LIST:
    case TN_TYPE_STRUCT:
    case TN_TYPE_MAP: return tn_vector_copy_row(v, row, val->u.ref.vec, val->u.ref.row);
    default: return tn_vector_set_null(v, row);
    }
}

void tn_vector_get_value(const tn_vector *v, uint32_t row, tn_value *out) {
    memset(out, 0, sizeof *out);
    out->type = v->type;
    if (!tn_vector_is_valid(v, row)) {
        out->is_null = true;
        return;
    }
    const void *data = v->data;
    switch (v->type.id) {
    case TN_TYPE_NULL: out->is_null = true; break;
    case TN_TYPE_BOOLEAN: out->u.b = ((const uint8_t *)data)[row] != 0; break;
    case TN_TYPE_TINYINT: out->u.i = ((const int8_t *)data)[row]; break;
    case TN_TYPE_SMALLINT: out->u.i = ((const int16_t *)data)[row]; break;
    case TN_TYPE_INTEGER:
    case TN_TYPE_DATE: out->u.i = ((const int32_t *)data)[row]; break;
    case TN_TYPE_BIGINT:
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: out->u.i = ((const int64_t *)data)[row]; break;
    case TN_TYPE_FLOAT: out->u.d = ((const float *)data)[row]; break;
    case TN_TYPE_DOUBLE: out->u.d = ((const double *)data)[row]; break;
    case TN_TYPE_DECIMAL:
        if (tn_type_is_decimal128(v->type)) memcpy(&out->u.i128, (const tn_int128 *)data + row, sizeof(tn_int128));
        else out->u.i = ((const int64_t *)data)[row];
        break;
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: out->u.s = ((const tn_str *)data)[row]; break;
    case TN_TYPE_INTERVAL: memcpy(&out->u.iv, (const tn_interval *)data + row, sizeof(tn_interval)); break;
    case TN_TYPE_LIST:
    case TN_TYPE_STRUCT:
    case TN_TYPE_MAP:
        out->u.ref.vec = v;
        out->u.ref.row = row;
        break;
    default: out->is_null = true; break;
    }
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

static int cmp_double(double a, double b) {
    bool an = isnan(a), bn = isnan(b);
    if (an || bn) return an && bn ? 0 : an ? 1 : -1;
    return CMP(a, b);
}

int tn_value_compare(const tn_value *a, const tn_value *b) {
    switch (a->type.id) {
    case TN_TYPE_BOOLEAN: return CMP((int)a->u.b, (int)b->u.b);
    case TN_TYPE_FLOAT:
    case TN_TYPE_DOUBLE: return cmp_double(a->u.d, b->u.d);
    case TN_TYPE_DECIMAL: {
        /* Equal scale by contract; widen each side by its own precision to be safe. */
        tn_int128 x = tn_type_is_decimal128(a->type) ? a->u.i128 : (tn_int128)a->u.i;
        tn_int128 y = tn_type_is_decimal128(b->type) ? b->u.i128 : (tn_int128)b->u.i;
        return CMP(x, y);
    }
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: {
        uint32_t n = a->u.s.len < b->u.s.len ? a->u.s.len : b->u.s.len;
        int c = n ? memcmp(a->u.s.ptr, b->u.s.ptr, n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return CMP(a->u.s.len, b->u.s.len);
    }
    case TN_TYPE_NULL: return 0;
    case TN_TYPE_LIST:
    case TN_TYPE_STRUCT:
    case TN_TYPE_MAP: return tn_nested_compare(a->u.ref.vec, a->u.ref.row, b->u.ref.vec, b->u.ref.row);
    case TN_TYPE_INTERVAL: {
        /* DuckDB orders intervals by their normalized length (a month counts 30 days) */
        const tn_int128 day = (tn_int128)86400000000LL;
        tn_int128 x = ((tn_int128)a->u.iv.months * 30 + a->u.iv.days) * day + a->u.iv.micros;
        tn_int128 y = ((tn_int128)b->u.iv.months * 30 + b->u.iv.days) * day + b->u.iv.micros;
        return CMP(x, y);
    }
    default: return CMP(a->u.i, b->u.i);
    }
}
