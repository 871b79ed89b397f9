/*
 * parquet/describe.c: the human-readable dump of a Parquet file's metadata for
 * `tarn parquet meta`: file facts, schema with logical types, key-value metadata, and per row
 * group and column chunk the codec, encodings, sizes, offsets, statistics and the presence of
 * page index and bloom filter. Reads only the footer already decoded by reader.c.
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

static int put_value(tn_buf *out, const tn_value *v) {
    if (v->is_null) return tn_buf_printf(out, "NULL");
    int rc = tn_value_to_text(out, v);
    return rc < 0 ? rc : 0;
}

static int describe_chunk(const tn_parquet_file *f, uint32_t r, uint32_t c, tn_buf *out) {
    const pq_file_meta *m = pq_rd_meta(f);
    const pq_column_chunk *cc = &m->row_groups[r].columns[c];
    const pq_column_meta *cm = &cc->meta;
    const tn_parquet_column_info *ci = tn_parquet_column(f, c);
    char tbuf[48];
    int rc = tn_buf_printf(out, "  column %u '%s': %s (%s)\n", c, ci->name,
                           tn_type_format(ci->type, tbuf, sizeof tbuf), physical_name(cm->type));
    if (rc) return rc;
    rc = tn_buf_printf(out, "    codec %s, encodings ", tn_parquet_codec_name(cm->codec));
    for (uint32_t i = 0; i < cm->nencodings && !rc; i++) {
        const char *n = encoding_name(cm->encodings[i]);
        rc = n ? tn_buf_printf(out, "%s%s", i ? "," : "", n)
               : tn_buf_printf(out, "%s%d", i ? "," : "", cm->encodings[i]);
    }
    if (rc) return rc;
    rc = tn_buf_printf(out, "\n    values %lld, compressed %lld bytes, uncompressed %lld bytes\n"
                       "    data_page_offset %lld", (long long)cm->num_values,
                       (long long)cm->total_compressed_size, (long long)cm->total_uncompressed_size,
                       (long long)cm->data_page_offset);
    if (!rc && cm->has_dictionary_page_offset)
        rc = tn_buf_printf(out, ", dictionary_page_offset %lld",
                           (long long)cm->dictionary_page_offset);
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
    }
    if (rc) return rc;
    rc = tn_buf_printf(out, "    column_index %s, offset_index %s, bloom_filter %s\n",
                       cc->has_column_index ? "yes" : "no", cc->has_offset_index ? "yes" : "no",
                       cm->has_bloom_filter_offset ? "yes" : "no");
    for (uint32_t i = 0; i < cm->nkv && !rc; i++)
        rc = tn_buf_printf(out, "    kv %s = %s\n", cm->kv[i].key ? cm->kv[i].key : "",
                           cm->kv[i].value ? cm->kv[i].value : "(null)");
    return rc;
}

int tn_parquet_describe(const tn_parquet_file *f, tn_buf *out) {
    const pq_file_meta *m = pq_rd_meta(f);
    char tbuf[48];
    int rc = tn_buf_printf(out, "file: %s\nsize: %llu bytes\ncreated_by: %s\nformat version: %d\n"
                           "rows: %lld\nrow groups: %u\ncolumns: %u\n", tn_parquet_path(f),
                           (unsigned long long)tn_parquet_file_size(f),
                           m->created_by ? m->created_by : "(unknown)", (int)m->version,
                           (long long)tn_parquet_num_rows(f), m->nrow_groups,
                           tn_parquet_num_columns(f));
    for (uint32_t c = 0; c < tn_parquet_num_columns(f) && !rc; c++) {
        const tn_parquet_column_info *ci = tn_parquet_column(f, c);
        const pq_schema_element *e = pq_rd_leaf(f, c);
        rc = tn_buf_printf(out, "  %u %s %s%s, physical %s", c, ci->name,
                           tn_type_format(ci->type, tbuf, sizeof tbuf),
                           ci->nullable ? "" : " NOT NULL", physical_name(e->type));
        if (!rc && e->type == PQ_FIXED_LEN_BYTE_ARRAY)
            rc = tn_buf_printf(out, "(%d)", (int)e->type_length);
        if (!rc && ci->field_id >= 0) rc = tn_buf_printf(out, ", field_id %d", (int)ci->field_id);
        if (!rc) rc = tn_buf_printf(out, "\n");
    }
    if (!rc && m->nkv) rc = tn_buf_printf(out, "key-value metadata:\n");
    for (uint32_t i = 0; i < m->nkv && !rc; i++)
        rc = tn_buf_printf(out, "  %s = %s\n", m->kv[i].key ? m->kv[i].key : "",
                           m->kv[i].value ? m->kv[i].value : "(null)");
    for (uint32_t r = 0; r < m->nrow_groups && !rc; r++) {
        const pq_row_group *rg = &m->row_groups[r];
        rc = tn_buf_printf(out, "row group %u: rows %lld, first row %lld, bytes %lld", r,
                           (long long)rg->num_rows,
                           (long long)pq_rd_row_group_first_row(f, r), (long long)rg->total_byte_size);
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
        for (uint32_t c = 0; c < rg->ncolumns && !rc; c++) rc = describe_chunk(f, r, c, out);
    }
    return rc < 0 ? rc : 0;
}
