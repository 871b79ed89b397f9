/*
 * parquet/describe.c: the human-readable dump of a Parquet file's metadata for `tarn parquet
 * schema` and `tarn parquet meta`: the schema tree (every element with its repetition, group
 * kind or physical type, converted and logical type, max definition/repetition levels), file
 * facts, key-value metadata, and per row group and leaf column chunk the codec, encodings,
 * sizes, offsets, statistics and the page index and bloom filter locations. Nested files are
 * described as well (opened with metadata_only). Reads only the footer decoded by reader.c.
 */
#include "parquet/readerInt.h"

#include <string.h>

static const char *encoding_name(int e) {
    switch (e) {
    case PQ_ENC_PLAIN: return "PLAIN";
    case PQ_ENC_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case PQ_ENC_RLE: return "RLE";
    case PQ_ENC_BIT_PACKED: return "BIT_PACKED";
    case PQ_ENC_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case PQ_ENC_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case PQ_ENC_RLE_DICTIONARY: return "RLE_DICTIONARY";
    case PQ_ENC_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
    default: return NULL;
    }
}

static const char *physical_name(int t) {
    static const char *const names[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                                        "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return t >= 0 && t <= 7 ? names[t] : "?";
}

static const char *converted_name(int ct) {
    static const char *const names[] = {
        "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS",
        "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32",
        "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
    return ct >= 0 && ct <= PQ_CT_INTERVAL ? names[ct] : NULL;
}

static const char *repetition_name(int r) {
    return r == PQ_REQUIRED ? "REQUIRED" : r == PQ_OPTIONAL ? "OPTIONAL"
         : r == PQ_REPEATED ? "REPEATED" : "(no repetition)";
}

static int put_logical(tn_buf *out, const pq_logical_type *lt) {
    static const char *const units[] = {"?", "MILLIS", "MICROS", "NANOS"};
    const char *unit = lt->unit >= 1 && lt->unit <= 3 ? units[lt->unit] : units[0];
    switch (lt->kind) {
    case PQ_LT_STRING: return tn_buf_printf(out, "STRING");
    case PQ_LT_MAP: return tn_buf_printf(out, "MAP");
    case PQ_LT_LIST: return tn_buf_printf(out, "LIST");
    case PQ_LT_ENUM: return tn_buf_printf(out, "ENUM");
    case PQ_LT_DECIMAL:
        return tn_buf_printf(out, "DECIMAL(%d,%d)", (int)lt->precision, (int)lt->scale);
    case PQ_LT_DATE: return tn_buf_printf(out, "DATE");
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
        return tn_buf_printf(out, "%s(%s, utc=%s)", lt->kind == PQ_LT_TIME ? "TIME" : "TIMESTAMP",
                             unit, lt->adjusted_to_utc ? "true" : "false");
    case PQ_LT_INTEGER:
        return tn_buf_printf(out, "INTEGER(%d, %s)", lt->bit_width,
                             lt->is_signed ? "signed" : "unsigned");
    case PQ_LT_UNKNOWN: return tn_buf_printf(out, "UNKNOWN");
    case PQ_LT_JSON: return tn_buf_printf(out, "JSON");
    case PQ_LT_BSON: return tn_buf_printf(out, "BSON");
    case PQ_LT_UUID: return tn_buf_printf(out, "UUID");
    case PQ_LT_FLOAT16: return tn_buf_printf(out, "FLOAT16");
    default: return tn_buf_printf(out, "(unknown to tarn)");
    }
}

/* What an element is, in a word: the tarn type of a leaf; LIST, MAP or STRUCT for a group. */
static const char *element_kind(const tn_parquet_file *f, uint32_t i, char *buf, size_t cap) {
    const pq_schema_element *e = &pq_rd_meta(f)->schema[i];
    const pq_rd_node *nd = pq_rd_node_at(f, i);
    if (nd->leaf >= 0)
        return tn_type_format(pq_rd_leaf_type(f, (uint32_t)nd->leaf), buf, cap);
    if (e->logical.kind == PQ_LT_LIST || e->converted_type == PQ_CT_LIST) return "LIST";
    if (e->logical.kind == PQ_LT_MAP || e->converted_type == PQ_CT_MAP) return "MAP";
    return "STRUCT";
}

/* One line per schema element below the root, children indented under their parent. */
static int put_tree(const tn_parquet_file *f, const char *indent, tn_buf *out) {
    const pq_file_meta *m = pq_rd_meta(f);
    char kbuf[48];
    int name_w = 4, kind_w = 4, rc = 0;
    for (uint32_t i = 1; i < m->nschema; i++) {
        int w = 2 * (pq_rd_node_at(f, i)->depth - 1) + (int)strlen(m->schema[i].name);
        int k = (int)strlen(element_kind(f, i, kbuf, sizeof kbuf));
        if (w > name_w) name_w = w;
        if (k > kind_w) kind_w = k;
    }
    for (uint32_t i = 1; i < m->nschema && !rc; i++) {
        const pq_schema_element *e = &m->schema[i];
        const pq_rd_node *nd = pq_rd_node_at(f, i);
        int pad = 2 * (nd->depth - 1);
        rc = tn_buf_printf(out, "%s%*s%-*s  %-*s  %s ", indent, pad, "", name_w - pad, e->name,
                           kind_w, element_kind(f, i, kbuf, sizeof kbuf),
                           repetition_name(e->repetition));
        if (!rc && nd->leaf < 0)
            rc = tn_buf_printf(out, "group, %d %s", (int)e->num_children,
                               e->num_children == 1 ? "child" : "children");
        else if (!rc)
            rc = tn_buf_printf(out, "%s", physical_name(e->type));
        if (!rc && e->type == PQ_FIXED_LEN_BYTE_ARRAY)
            rc = tn_buf_printf(out, "(%d)", (int)e->type_length);
        if (!rc && e->converted_type != PQ_CT_NONE) {
            const char *cn = converted_name(e->converted_type);
            rc = cn ? tn_buf_printf(out, ", converted %s", cn)
                    : tn_buf_printf(out, ", converted %d", e->converted_type);
            if (!rc && e->converted_type == PQ_CT_DECIMAL)
                rc = tn_buf_printf(out, "(%d,%d)", (int)e->precision, (int)e->scale);
        }
        if (!rc && e->logical.kind != PQ_LT_NONE) {
            rc = tn_buf_printf(out, ", logical ");
            if (!rc) rc = put_logical(out, &e->logical);
        }
        if (!rc && e->field_id >= 0) rc = tn_buf_printf(out, ", field_id %d", (int)e->field_id);
        if (!rc) rc = tn_buf_printf(out, ", def %d, rep %d", (int)nd->def, (int)nd->rep);
        if (!rc && nd->leaf >= 0) rc = tn_buf_printf(out, ", column %d", (int)nd->leaf);
        if (!rc) rc = tn_buf_printf(out, "\n");
    }
    return rc;
}

int tn_parquet_describe_schema(const tn_parquet_file *f, tn_buf *out) {
    int rc = put_tree(f, "", out);
    uint32_t top = (uint32_t)(pq_rd_meta(f)->schema[0].num_children);
    if (!rc)
        rc = tn_buf_printf(out, "%lld rows, %u row groups, %u columns", (long long)tn_parquet_num_rows(f),
                           tn_parquet_num_row_groups(f), top);
    if (!rc && pq_rd_nested(f)) rc = tn_buf_printf(out, " (%u leaf columns)", pq_rd_num_leaves(f));
    if (!rc) rc = tn_buf_printf(out, "\n");
    return rc < 0 ? rc : 0;
}

/* A statistics value as text; backslashes and control characters of strings are escaped
 * (\\, \n, \r, \t, \xNN) so that every chunk field stays on its line. */
static int put_value(tn_buf *out, const tn_value *v) {
    if (v->is_null) return tn_buf_printf(out, "NULL");
    if (v->type.id == TN_TYPE_VARCHAR) {
        int rc = 0;
        for (uint32_t i = 0; i < v->u.s.len && !rc; i++) {
            unsigned char ch = (unsigned char)v->u.s.ptr[i];
            if (ch == '\\') rc = tn_buf_printf(out, "\\\\");
            else if (ch == '\n') rc = tn_buf_printf(out, "\\n");
            else if (ch == '\r') rc = tn_buf_printf(out, "\\r");
            else if (ch == '\t') rc = tn_buf_printf(out, "\\t");
            else if (ch < 0x20 || ch == 0x7f) rc = tn_buf_printf(out, "\\x%02x", ch);
            else rc = tn_buf_append_byte(out, ch);
        }
        return rc;
    }
    int rc = tn_value_to_text(out, v);
    return rc < 0 ? rc : 0;
}

/* One statistics field decoded as the column's values: "-" when absent, "nan" for a NaN (the
 * reader never prunes by it), "(undecodable, N bytes)" when it does not fit the type. */
static int put_stat_field(const tn_parquet_file *f, uint32_t c, const pq_bytes *b, tn_buf *out) {
    tn_value v;
    if (!b->present) return tn_buf_printf(out, "-");
    if (pq_rd_decode_value(f, c, b->ptr, b->len, &v) == 0) return put_value(out, &v);
    tn_error_clear();
    const pq_schema_element *e = pq_rd_leaf(f, c);
    bool nan = false;
    if (e->type == PQ_DOUBLE && b->len == 8) {
        double x;
        memcpy(&x, b->ptr, 8);
        nan = x != x;
    } else if (e->type == PQ_FLOAT && b->len == 4) {
        float x;
        memcpy(&x, b->ptr, 4);
        nan = x != x;
    } else if (e->logical.kind == PQ_LT_FLOAT16 && b->len == 2) {
        float x = pq_rd_half_to_float((uint16_t)(b->ptr[0] | (b->ptr[1] << 8)));
        nan = x != x;
    }
    return nan ? tn_buf_printf(out, "nan") : tn_buf_printf(out, "(undecodable, %u bytes)", b->len);
}

static int put_min_max(const tn_parquet_file *f, uint32_t c, const pq_bytes *mn, const pq_bytes *mx,
                       tn_buf *out) {
    int rc = tn_buf_printf(out, "min ");
    if (!rc) rc = put_stat_field(f, c, mn, out);
    if (!rc) rc = tn_buf_printf(out, ", max ");
    if (!rc) rc = put_stat_field(f, c, mx, out);
    return rc;
}

static int describe_chunk(const tn_parquet_file *f, uint32_t r, uint32_t c, uint32_t element,
                          tn_buf *out) {
    const pq_file_meta *m = pq_rd_meta(f);
    const pq_column_chunk *cc = &m->row_groups[r].columns[c];
    const pq_column_meta *cm = &cc->meta;
    const pq_rd_node *nd = pq_rd_node_at(f, element);
    char tbuf[48];
    int rc = tn_buf_printf(out, "  column %u '%s': %s (%s), def %d, rep %d", c, pq_rd_leaf_name(f, c),
                           tn_type_format(pq_rd_leaf_type(f, c), tbuf, sizeof tbuf), physical_name(cm->type),
                           (int)nd->def, (int)nd->rep);
    /* path_in_schema, when it is not the schema's path */
    const char *name = pq_rd_leaf_name(f, c);
    size_t at = 0, len = strlen(name);
    bool same = true;
    for (uint32_t i = 0; i < cm->npath && same; i++) {
        size_t n = strlen(cm->path[i]);
        same = at + n <= len && memcmp(name + at, cm->path[i], n) == 0 &&
               (i + 1 < cm->npath ? name[at + n] == '.' : at + n == len);
        at += n + 1;
    }
    if (!rc && (!same || cm->npath == 0)) {
        rc = tn_buf_printf(out, ", path_in_schema '");
        for (uint32_t i = 0; i < cm->npath && !rc; i++)
            rc = tn_buf_printf(out, "%s%s", i ? "." : "", cm->path[i]);
        if (!rc) rc = tn_buf_printf(out, "'");
    }
    if (!rc) rc = tn_buf_printf(out, "\n    codec %s, encodings ", tn_parquet_codec_name(cm->codec));
    for (uint32_t i = 0; i < cm->nencodings && !rc; i++) {
        const char *n = encoding_name(cm->encodings[i]);
        rc = n ? tn_buf_printf(out, "%s%s", i ? "," : "", n)
               : tn_buf_printf(out, "%s%d", i ? "," : "", cm->encodings[i]);
    }
    if (rc) return rc;
    rc = tn_buf_printf(out, "\n    values %lld, compressed %lld bytes, uncompressed %lld bytes\n"
                       "    file_offset %lld, data_page_offset %lld", (long long)cm->num_values,
                       (long long)cm->total_compressed_size, (long long)cm->total_uncompressed_size,
                       (long long)cc->file_offset, (long long)cm->data_page_offset);
    if (!rc && cm->has_dictionary_page_offset)
        rc = tn_buf_printf(out, ", dictionary_page_offset %lld",
                           (long long)cm->dictionary_page_offset);
    if (!rc && cm->has_index_page_offset)
        rc = tn_buf_printf(out, ", index_page_offset %lld", (long long)cm->index_page_offset);
    if (rc) return rc;
    rc = tn_buf_printf(out, "\n");
    tn_parquet_stats st;
    if (!rc) rc = tn_parquet_column_stats(f, r, c, &st);
    if (rc) return rc;
    if (!cm->has_statistics) {
        rc = tn_buf_printf(out, "    stats: none\n");
    } else {
        rc = tn_buf_printf(out, "    stats: min ");
        if (!rc) rc = st.has_min_max ? put_value(out, &st.min) : tn_buf_printf(out, "-");
        if (!rc && st.has_min_max && !st.min_exact) rc = tn_buf_printf(out, " (bound)");
        if (!rc) rc = tn_buf_printf(out, ", max ");
        if (!rc) rc = st.has_min_max ? put_value(out, &st.max) : tn_buf_printf(out, "-");
        if (!rc && st.has_min_max && !st.max_exact) rc = tn_buf_printf(out, " (bound)");
        if (!rc) {
            if (st.has_null_count)
                rc = tn_buf_printf(out, ", null_count %lld", (long long)st.null_count);
            else
                rc = tn_buf_printf(out, ", null_count unknown");
        }
        if (!rc && cm->statistics.has_distinct_count)
            rc = tn_buf_printf(out, ", distinct_count %lld",
                               (long long)cm->statistics.distinct_count);
        if (!rc && cm->statistics.has_nan_count)
            rc = tn_buf_printf(out, ", nan_count %lld", (long long)cm->statistics.nan_count);
        if (!rc) rc = tn_buf_printf(out, "\n");
        /* the fields themselves: min_value/max_value and the deprecated min/max */
        const pq_statistics *ps = &cm->statistics;
        if (!rc && (ps->min_value.present || ps->max_value.present)) {
            rc = tn_buf_printf(out, "    stats fields: min_value/max_value: ");
            if (!rc) rc = put_min_max(f, c, &ps->min_value, &ps->max_value, out);
            if (!rc) rc = tn_buf_printf(out, "\n");
        }
        if (!rc && (ps->min.present || ps->max.present)) {
            rc = tn_buf_printf(out, "    stats fields: deprecated min/max: ");
            if (!rc) rc = put_min_max(f, c, &ps->min, &ps->max, out);
            if (!rc) rc = tn_buf_printf(out, "\n");
        }
    }
    if (rc) return rc;
    rc = tn_buf_printf(out, "    column_index %s, offset_index %s, bloom_filter ",
                       cc->has_column_index ? "yes" : "no", cc->has_offset_index ? "yes" : "no");
    if (!rc && !cm->has_bloom_filter_offset) rc = tn_buf_printf(out, "no");
    else if (!rc) rc = tn_buf_printf(out, "at %lld", (long long)cm->bloom_filter_offset);
    if (!rc && cm->has_bloom_filter_length)
        rc = tn_buf_printf(out, " (%d bytes)", (int)cm->bloom_filter_length);
    if (!rc) rc = tn_buf_printf(out, "\n");
    for (uint32_t i = 0; i < cm->nkv && !rc; i++)
        rc = tn_buf_printf(out, "    kv %s = %s\n", cm->kv[i].key ? cm->kv[i].key : "",
                           cm->kv[i].value ? cm->kv[i].value : "(null)");
    return rc;
}

int tn_parquet_describe(const tn_parquet_file *f, tn_buf *out) {
    const pq_file_meta *m = pq_rd_meta(f);
    uint32_t ncols = pq_rd_num_leaves(f);
    uint32_t *element = tn_calloc(ncols ? ncols : 1, sizeof *element);
    if (!element) return TN_ENOMEM;
    for (uint32_t i = 1; i < m->nschema; i++)
        if (pq_rd_node_at(f, i)->leaf >= 0) element[pq_rd_node_at(f, i)->leaf] = i;
    int rc = tn_buf_printf(out, "file: %s\nsize: %llu bytes\ncreated_by: %s\nformat version: %d\n"
                           "rows: %lld\nrow groups: %u\ncolumns: %d", tn_parquet_path(f),
                           (unsigned long long)tn_parquet_file_size(f),
                           m->created_by ? m->created_by : "(unknown)", (int)m->version,
                           (long long)tn_parquet_num_rows(f), m->nrow_groups,
                           (int)m->schema[0].num_children);
    if (!rc && pq_rd_nested(f)) rc = tn_buf_printf(out, " (%u leaf columns)", ncols);
    if (!rc) rc = tn_buf_printf(out, "\nschema (root '%s'):\n", m->schema[0].name ? m->schema[0].name : "");
    if (!rc) rc = put_tree(f, "  ", out);
    if (!rc && m->nkv) rc = tn_buf_printf(out, "key-value metadata:\n");
    for (uint32_t i = 0; i < m->nkv && !rc; i++)
        rc = tn_buf_printf(out, "  %s = %s\n", m->kv[i].key ? m->kv[i].key : "",
                           m->kv[i].value ? m->kv[i].value : "(null)");
    for (uint32_t r = 0; r < m->nrow_groups && !rc; r++) {
        const pq_row_group *rg = &m->row_groups[r];
        rc = tn_buf_printf(out, "row group %u: rows %lld, first row %lld, columns %u, bytes %lld", r,
                           (long long)rg->num_rows, (long long)pq_rd_row_group_first_row(f, r),
                           rg->ncolumns, (long long)rg->total_byte_size);
        if (!rc && rg->has_total_compressed_size)
            rc = tn_buf_printf(out, ", compressed %lld", (long long)rg->total_compressed_size);
        if (!rc && rg->nsorting_columns) {
            rc = tn_buf_printf(out, ", sorted by");
            for (uint32_t i = 0; i < rg->nsorting_columns && !rc; i++)
                rc = tn_buf_printf(out, " %d%s%s", (int)rg->sorting_columns[i].column_idx,
                                   rg->sorting_columns[i].descending ? " DESC" : " ASC",
                                   rg->sorting_columns[i].nulls_first ? " NULLS FIRST" : "");
        }
        if (!rc) rc = tn_buf_printf(out, "\n");
        for (uint32_t c = 0; c < rg->ncolumns && !rc; c++) rc = describe_chunk(f, r, c, element[c], out);
    }
    tn_free(element);
    return rc < 0 ? rc : 0;
}
