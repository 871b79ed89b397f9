/*
 * types/type.c: the logical-type table (names, widths) and predicates over tn_type.
 */
#include "types/typesInt.h"

#include <stdio.h>

static const char *const g_type_names[TN_TYPE_COUNT] = {
#define TN_TYPE_NAME(id, name, width) [id] = name,
    TN_TYPE_TABLE(TN_TYPE_NAME)
#undef TN_TYPE_NAME
};

static const uint8_t g_type_widths[TN_TYPE_COUNT] = {
#define TN_TYPE_WIDTH(id, name, width) [id] = width,
    TN_TYPE_TABLE(TN_TYPE_WIDTH)
#undef TN_TYPE_WIDTH
};

bool tn_type_equal(tn_type a, tn_type b) {
    if (a.id != b.id) return false;
    if (a.id == TN_TYPE_DECIMAL) return a.precision == b.precision && a.scale == b.scale;
    if (tn_type_is_nested(a)) return a.nested == b.nested;   /* interned */
    return true;
}

size_t tn_type_width(tn_type t) {
    switch (t.id) {
    case TN_TYPE_DECIMAL: return t.precision <= TN_DECIMAL_INT64_MAX_PRECISION ? 8 : 16;
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY: return sizeof(tn_str);
    case TN_TYPE_LIST:
    case TN_TYPE_MAP: return sizeof(tn_list_entry);
    default: return t.id < TN_TYPE_COUNT ? g_type_widths[t.id] : 0;
    }
}

const char *tn_type_id_name(tn_type_id id) {
    return (unsigned)id < TN_TYPE_COUNT ? g_type_names[id] : "UNKNOWN";
}

char *tn_type_format(tn_type t, char *buf, size_t cap) {
    if (cap == 0) return buf;
    if (t.id == TN_TYPE_DECIMAL)
        snprintf(buf, cap, "DECIMAL(%u,%u)", (unsigned)t.precision, (unsigned)t.scale);
    else if (tn_type_is_nested(t) && t.nested) {
        tn_buf b = TN_BUF_INIT;
        if (tn_type_append_name(&b, t) == 0 && b.len) snprintf(buf, cap, "%.*s", (int)b.len, (const char *)b.data);
        else snprintf(buf, cap, "%s", tn_type_id_name((tn_type_id)t.id));
        tn_buf_free(&b);
    } else
        snprintf(buf, cap, "%s", tn_type_id_name((tn_type_id)t.id));
    return buf;
}

bool tn_type_is_string(tn_type t) { return t.id == TN_TYPE_VARCHAR || t.id == TN_TYPE_VARBINARY; }

bool tn_type_is_integer(tn_type t) { return t.id >= TN_TYPE_TINYINT && t.id <= TN_TYPE_BIGINT; }

bool tn_type_is_numeric(tn_type t) {
    return tn_type_is_integer(t) || t.id == TN_TYPE_FLOAT || t.id == TN_TYPE_DOUBLE ||
           t.id == TN_TYPE_DECIMAL;
}

bool tn_type_is_decimal128(tn_type t) {
    return t.id == TN_TYPE_DECIMAL && t.precision > TN_DECIMAL_INT64_MAX_PRECISION;
}
