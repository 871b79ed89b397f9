/*
 * text/csv_writer.c: writes chunks as CSV (header line, then RFC 4180 rows ending in LF) through
 * the tn_fs vtable, with values spelled by tn_value_format. Also the field-quoting helper the
 * shell's --csv output can share. Owns nothing outside src/text/.
 */
#include "text/text.h"

#include <string.h>

#define FLUSH_BYTES ((size_t)1 << 20)

struct tn_csv_writer {
    tn_fs *fs;
    tn_file *file;
    char *path;
    uint32_t ncols;
    tn_type *types;
    char delim, quote;
    char *null_string;
    tn_buf out;
    tn_buf val;
    int64_t rows;
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

static int flush(tn_csv_writer *w) {
    if (w->out.len == 0) return 0;
    int rc = w->fs->write(w->fs, w->file, w->out.data, w->out.len);
    if (rc < 0) return tn_error_prefix(rc, "%s", w->path);
    tn_buf_clear(&w->out);
    return 0;
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
    w->fs = fs;
    w->ncols = ncolumns;
    w->delim = o->delimiter ? o->delimiter : ',';
    w->quote = o->quote ? o->quote : '"';
    w->path = tn_strdup(path);
    w->types = tn_calloc(ncolumns ? ncolumns : 1, sizeof *w->types);
    if (!w->path || !w->types) { rc = TN_ENOMEM; goto cleanup; }
    if (o->null_string && !(w->null_string = tn_strdup(o->null_string))) { rc = TN_ENOMEM; goto cleanup; }
    memcpy(w->types, types, ncolumns * sizeof *types);
    rc = fs->open_write(fs, path, false, &w->file);
    if (rc < 0) goto cleanup;
    if (o->header) {
        for (uint32_t c = 0; c < ncolumns; c++) {
            if (c && (rc = tn_buf_append_byte(&w->out, (uint8_t)w->delim)) < 0) goto cleanup;
            rc = tn_csv_append_field(&w->out, names[c], strlen(names[c]), w->delim, w->quote);
            if (rc < 0) goto cleanup;
        }
        if ((rc = tn_buf_append_byte(&w->out, '\n')) < 0) goto cleanup;
    }
    rc = 0;
cleanup:
    if (rc < 0) {
        if (w->file) fs->close(fs, w->file);
        tn_buf_free(&w->out);
        tn_free(w->types);
        tn_free(w->path);
        tn_free(w->null_string);
        tn_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

int tn_csv_writer_write(tn_csv_writer *w, const tn_chunk *chunk) {
    int rc = 0;
    if (chunk->ncols != w->ncols)
        return tn_error_set(TN_EINVAL, "%s: chunk has %u columns, writer %u", w->path, chunk->ncols,
                            w->ncols);
    for (uint32_t c = 0; c < w->ncols; c++) {
        if (!tn_type_equal(chunk->cols[c].type, w->types[c]))
            return tn_error_set(TN_EINVAL, "%s: column %u: chunk type differs from the writer's",
                                w->path, c + 1);
    }
    for (uint32_t row = 0; row < chunk->count; row++) {
        for (uint32_t c = 0; c < w->ncols; c++) {
            const tn_vector *v = &chunk->cols[c];
            if (c && (rc = tn_buf_append_byte(&w->out, (uint8_t)w->delim)) < 0) return rc;
            if (!tn_vector_is_valid(v, row)) {
                if (w->null_string) {
                    rc = tn_buf_append(&w->out, w->null_string, strlen(w->null_string));
                    if (rc < 0) return rc;
                }
                continue;
            }
            uint8_t id = v->type.id;
            if (id == TN_TYPE_VARCHAR) {
                const tn_str *s = &((const tn_str *)v->data)[row];
                rc = tn_csv_append_field(&w->out, s->ptr, s->len, w->delim, w->quote);
            } else {
                tn_buf_clear(&w->val);
                rc = tn_value_format(&w->val, v, row);
                if (rc < 0) return rc;
                rc = tn_csv_append_field(&w->out, (const char *)w->val.data, w->val.len, w->delim,
                                         w->quote);
            }
            if (rc < 0) return rc;
        }
        if ((rc = tn_buf_append_byte(&w->out, '\n')) < 0) return rc;
        if (w->out.len >= FLUSH_BYTES && (rc = flush(w)) < 0) return rc;
    }
    w->rows += chunk->count;
    return 0;
}

int tn_csv_writer_close(tn_csv_writer *w) {
    if (!w) return 0;
    int rc = flush(w);
    int rc2 = w->fs->close(w->fs, w->file);
    if (rc == 0 && rc2 < 0) rc = tn_error_prefix(rc2, "%s", w->path);
    tn_buf_free(&w->out);
    tn_buf_free(&w->val);
    tn_free(w->types);
    tn_free(w->path);
    tn_free(w->null_string);
    tn_free(w);
    return rc;
}

int64_t tn_csv_writer_rows(const tn_csv_writer *w) { return w->rows; }
