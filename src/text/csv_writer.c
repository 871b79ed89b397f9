/*
 * text/csv_writer.c: writes chunks as CSV (header line, then RFC 4180 rows ending in LF) through
 * the shared buffered output, with values spelled by tn_value_format. Also the field-quoting
 * helper the shell's --csv output can share. Owns nothing outside src/text/.
 */
#include "text/textInt.h"

#include <string.h>

struct tn_csv_writer {
    tn_text_output o;            /* file, column types, buffers, row count */
    char delim, quote;
    char *null_string;
};

int tn_csv_append_field(tn_buf *out, const char *s, size_t n, char delim, char quote) {
    bool need = n == 0;
    for (size_t i = 0; i < n && !need; i++) {
        char c = s[i];
        need = c == delim || c == quote || c == '\n' || c == '\r';
    }
    if (!need) return tn_buf_append(out, s, n);
    int rc = tn_buf_reserve(out, n + 2);
    if (rc < 0) return rc;
    out->data[out->len++] = (uint8_t)quote;
    const char *p = s, *end = s + n;
    while (p < end) {
        const char *q = memchr(p, quote, (size_t)(end - p));
        if (!q) {
            rc = tn_buf_append(out, p, (size_t)(end - p));
            if (rc < 0) return rc;
            break;
        }
        rc = tn_buf_append(out, p, (size_t)(q - p + 1));
        if (rc < 0) return rc;
        rc = tn_buf_append_byte(out, (uint8_t)quote);
        if (rc < 0) return rc;
        p = q + 1;
    }
    return tn_buf_append_byte(out, (uint8_t)quote);
}

int tn_csv_writer_open(tn_csv_writer **out, tn_fs *fs, const char *path, uint32_t ncolumns,
                       const char *const *names, const tn_type *types,
                       const tn_csv_write_options *opts) {
    tn_csv_write_options defaults = TN_CSV_WRITE_OPTIONS_INIT;
    const tn_csv_write_options *o = opts ? opts : &defaults;
    int rc = 0;
    *out = NULL;
    tn_csv_writer *w = tn_calloc(1, sizeof *w);
    if (!w) return TN_ENOMEM;
    w->delim = o->delimiter ? o->delimiter : ',';
    w->quote = o->quote ? o->quote : '"';
    if (o->null_string && !(w->null_string = tn_strdup(o->null_string))) { rc = TN_ENOMEM; goto cleanup; }
    rc = tn_text_output_open(&w->o, fs, path, ncolumns, types);
    if (rc < 0) goto cleanup;
    if (o->header) {
        tn_buf *b = &w->o.out;
        for (uint32_t c = 0; c < ncolumns; c++) {
            if (c && (rc = tn_buf_append_byte(b, (uint8_t)w->delim)) < 0) goto cleanup;
            rc = tn_csv_append_field(b, names[c], strlen(names[c]), w->delim, w->quote);
            if (rc < 0) goto cleanup;
        }
        if ((rc = tn_buf_append_byte(b, '\n')) < 0) goto cleanup;
    }
    rc = 0;
cleanup:
    if (rc < 0) {
        tn_text_output_free(&w->o);
        tn_free(w->null_string);
        tn_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

int tn_csv_writer_write(tn_csv_writer *w, const tn_chunk *chunk) {
    int rc = tn_text_output_check(&w->o, chunk);
    if (rc < 0) return rc;
    tn_buf *out = &w->o.out, *val = &w->o.val;
    for (uint32_t row = 0; row < chunk->count; row++) {
        for (uint32_t c = 0; c < w->o.ncols; c++) {
            const tn_vector *v = &chunk->cols[c];
            if (c && (rc = tn_buf_append_byte(out, (uint8_t)w->delim)) < 0) return rc;
            if (!tn_vector_is_valid(v, row)) {
                if (w->null_string) {
                    rc = tn_buf_append(out, w->null_string, strlen(w->null_string));
                    if (rc < 0) return rc;
                }
                continue;
            }
            uint8_t id = v->type.id;
            if (id == TN_TYPE_VARCHAR) {
                const tn_str *s = &((const tn_str *)v->data)[row];
                rc = tn_csv_append_field(out, s->ptr, s->len, w->delim, w->quote);
            } else {
                tn_buf_clear(val);
                rc = tn_value_format(val, v, row);
                if (rc < 0) return rc;
                rc = tn_csv_append_field(out, (const char *)val->data, val->len, w->delim, w->quote);
            }
            if (rc < 0) return rc;
        }
        if ((rc = tn_buf_append_byte(out, '\n')) < 0) return rc;
        if ((rc = tn_text_output_row_done(&w->o)) < 0) return rc;
    }
    w->o.rows += chunk->count;
    return 0;
}

int tn_csv_writer_close(tn_csv_writer *w) {
    if (!w) return 0;
    int rc = tn_text_output_close(&w->o);
    tn_free(w->null_string);
    tn_free(w);
    return rc;
}

int64_t tn_csv_writer_rows(const tn_csv_writer *w) { return w->o.rows; }
