/*
 * text/json_writer.c: writes chunks as NDJSON (one object per line) through the shared
 * buffered output: numbers and booleans as JSON literals (non-finite doubles as NaN / Infinity /
 * -Infinity, as DuckDB writes them), everything else as escaped strings spelled by
 * tn_value_format, NULL as null. Owns nothing outside src/text/.
 */
#include "text/textInt.h"

#include <string.h>

struct tn_ndjson_writer {
    tn_text_output o;            /* file, column types, buffers, row count */
    uint32_t nkeys;
    tn_buf *keys;                /* "name": per column, pre-escaped */
};

int tn_json_append_string(tn_buf *out, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    int rc = tn_buf_reserve(out, n + 2);
    if (rc < 0) return rc;
    out->data[out->len++] = '"';
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        if (i > start && (rc = tn_buf_append(out, s + start, i - start)) < 0) return rc;
        char esc[7];
        size_t len = 2;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
            esc[4] = hex[c >> 4]; esc[5] = hex[c & 15];
            len = 6;
            break;
        }
        if ((rc = tn_buf_append(out, esc, len)) < 0) return rc;
        start = i + 1;
    }
    if (n > start && (rc = tn_buf_append(out, s + start, n - start)) < 0) return rc;
    return tn_buf_append_byte(out, '"');
}

/* Releases the keys and w (the output is released by the caller). */
static void free_writer(tn_ndjson_writer *w) {
    if (w->keys)
        for (uint32_t c = 0; c < w->nkeys; c++) tn_buf_free(&w->keys[c]);
    tn_free(w->keys);
    tn_free(w);
}

int tn_ndjson_writer_open(tn_ndjson_writer **out, tn_fs *fs, const char *path, uint32_t ncolumns,
                          const char *const *names, const tn_type *types) {
    int rc = 0;
    *out = NULL;
    tn_ndjson_writer *w = tn_calloc(1, sizeof *w);
    if (!w) return TN_ENOMEM;
    w->nkeys = ncolumns;
    w->keys = tn_calloc(ncolumns ? ncolumns : 1, sizeof *w->keys);
    if (!w->keys) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t c = 0; c < ncolumns; c++) {
        rc = tn_json_append_string(&w->keys[c], names[c], strlen(names[c]));
        if (rc < 0 || (rc = tn_buf_append_byte(&w->keys[c], ':')) < 0) goto cleanup;
    }
    rc = tn_text_output_open(&w->o, fs, path, ncolumns, types);
    if (rc < 0) goto cleanup;
cleanup:
    if (rc < 0) {
        tn_text_output_free(&w->o);
        free_writer(w);
        return rc;
    }
    *out = w;
    return 0;
}

static int append_value(tn_ndjson_writer *w, const tn_vector *v, uint32_t row) {
    tn_buf *out = &w->o.out, *val = &w->o.val;
    int rc;
    if (!tn_vector_is_valid(v, row)) return tn_buf_append(out, "null", 4);
    switch (v->type.id) {
    case TN_TYPE_VARCHAR: {
        const tn_str *s = &((const tn_str *)v->data)[row];
        return tn_json_append_string(out, s->ptr, s->len);
    }
    case TN_TYPE_BOOLEAN:
    case TN_TYPE_TINYINT:
    case TN_TYPE_SMALLINT:
    case TN_TYPE_INTEGER:
    case TN_TYPE_BIGINT:
    case TN_TYPE_DECIMAL:
        rc = tn_value_format(out, v, row);
        return rc < 0 ? rc : 0;
    case TN_TYPE_FLOAT:
    case TN_TYPE_DOUBLE: {
        tn_buf_clear(val);
        rc = tn_value_format(val, v, row);
        if (rc < 0) return rc;
        const char *t = (const char *)val->data;
        size_t n = val->len;
        if (n == 3 && memcmp(t, "nan", 3) == 0) return tn_buf_append(out, "NaN", 3);
        if (n == 4 && memcmp(t, "-nan", 4) == 0) return tn_buf_append(out, "NaN", 3);
        if (n == 3 && memcmp(t, "inf", 3) == 0) return tn_buf_append(out, "Infinity", 8);
        if (n == 4 && memcmp(t, "-inf", 4) == 0) return tn_buf_append(out, "-Infinity", 9);
        return tn_buf_append(out, t, n);
    }
    default:
        tn_buf_clear(val);
        rc = tn_value_format(val, v, row);
        if (rc < 0) return rc;
        return tn_json_append_string(out, (const char *)val->data, val->len);
    }
}

int tn_ndjson_writer_write(tn_ndjson_writer *w, const tn_chunk *chunk) {
    int rc = tn_text_output_check(&w->o, chunk);
    if (rc < 0) return rc;
    tn_buf *out = &w->o.out;
    for (uint32_t row = 0; row < chunk->count; row++) {
        if ((rc = tn_buf_append_byte(out, '{')) < 0) return rc;
        for (uint32_t c = 0; c < w->o.ncols; c++) {
            if (c && (rc = tn_buf_append_byte(out, ',')) < 0) return rc;
            if ((rc = tn_buf_append(out, w->keys[c].data, w->keys[c].len)) < 0) return rc;
            if ((rc = append_value(w, &chunk->cols[c], row)) < 0) return rc;
        }
        if ((rc = tn_buf_append(out, "}\n", 2)) < 0) return rc;
        if ((rc = tn_text_output_row_done(&w->o)) < 0) return rc;
    }
    w->o.rows += chunk->count;
    return 0;
}

int tn_ndjson_writer_close(tn_ndjson_writer *w) {
    if (!w) return 0;
    int rc = tn_text_output_close(&w->o);
    free_writer(w);
    return rc;
}

int64_t tn_ndjson_writer_rows(const tn_ndjson_writer *w) { return w->o.rows; }
