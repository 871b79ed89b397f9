/*
 * text/csv_reader.c: the streaming CSV reader: a record tokenizer over the shared buffered input
 * (RFC 4180 quotes, LF/CRLF/CR, records straddling buffer refills), the dialect/header/type
 * sniffer, and rows into chunks (values parsed by text_common.c). Owns nothing outside
 * src/text/; reads only through the tn_fs vtable.
 */
#include "text/textInt.h"

#include <stdio.h>
#include <string.h>

/* One field of the current record: bytes in the read buffer, or (quoted fields with escaped
 * quotes) in the scratch buffer at `off` until the record is complete. */
typedef struct csv_field {
    const char *ptr;
    uint32_t len;
    uint32_t off;
    uint8_t quoted;
    uint8_t in_scratch;
} csv_field;

struct tn_csv_reader {
    tn_text_input in;            /* the file and its buffer */
    char *path;
    uint64_t line;               /* physical line number (1-based) where the next record starts */
    uint64_t rec_line;           /* line where the current record started */
    uint64_t data_off, data_line; /* where data starts (after BOM and skip_rows) */
    char delim, quote, escape;
    uint8_t special[256];        /* bytes that end an unquoted field */
    csv_field *fields;
    uint32_t nfields, fields_cap;
    tn_buf scratch;
    /* options kept */
    char *null_string;
    size_t null_len;
    char *date_format, *ts_format;
    /* schema */
    uint32_t ncols;
    char **names;
    tn_type *types;
    tn_text_conv conv;           /* names, types and formats for parsing values */
    bool header;
    bool done, failed;
    uint64_t row_lines[TN_VECTOR_SIZE];   /* line of each row of the last chunk */
};

#define NEED_MORE 2
#define SWAR_ZERO(v) (((v) - 0x0101010101010101ULL) & ~(v) & 0x8080808080808080ULL)

/* ---------------------------------------------------------------------------------------------
 * Buffering and tokenizing.
 */
static void set_special(tn_csv_reader *r) {
    memset(r->special, 0, sizeof r->special);
    r->special[(uint8_t)r->delim] = 1;
    r->special['\n'] = 1;
    r->special['\r'] = 1;
}

static void seek_to(tn_csv_reader *r, uint64_t off, uint64_t line) {
    tn_text_input_seek(&r->in, off);
    r->line = line;
}

static uint64_t abs_pos(const tn_csv_reader *r) { return r->in.file_off - (r->in.len - r->in.pos); }

static int grow_fields(tn_csv_reader *r) {
    uint32_t ncap = r->fields_cap ? r->fields_cap * 2 : 64;
    csv_field *nf = tn_realloc(r->fields, (size_t)ncap * sizeof *nf);
    if (!nf) return TN_ENOMEM;
    r->fields = nf;
    r->fields_cap = ncap;
    return 0;
}

static uint64_t count_nl(const char *p, const char *end) {
    uint64_t n = 0;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    return n;
}

/* Parses one record at buf[pos]. 1: record in fields; 0: end of input; NEED_MORE: the record
 * runs past the buffered bytes; < 0: error. pos and line only advance on 1. */
static int parse_record(tn_csv_reader *r) {
    const char *buf = r->in.buf, *p = buf + r->in.pos, *end = buf + r->in.len;
    const char quote = r->quote, esc = r->escape, delim = r->delim;
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t kdelim = ones * (uint8_t)delim, klf = ones * '\n', kcr = ones * '\r';
    uint32_t nf = 0;
    uint64_t extra_lines = 0;
    r->rec_line = r->line;
    tn_buf_clear(&r->scratch);
    if (p == end) return r->in.eof ? 0 : NEED_MORE;
    for (;;) {
        if (nf == r->fields_cap && grow_fields(r) < 0) return TN_ENOMEM;
        csv_field *f = &r->fields[nf];
        if (quote && p < end && *p == quote) {
            const char *s = ++p;
            bool in_scratch = false;
            size_t soff = r->scratch.len;
            for (;;) {
                const char *q;
                if (esc == quote) {
                    q = memchr(p, quote, (size_t)(end - p));
                } else {
                    q = p;
                    while (q < end && *q != quote && *q != esc) q++;
                    if (q == end) q = NULL;
                }
                if (!q) {
                    if (!r->in.eof) return NEED_MORE;
                    return tn_error_set(TN_ECORRUPT, "%s: line %llu: unterminated quoted field",
                                        r->path, (unsigned long long)r->rec_line);
                }
                extra_lines += count_nl(p, q);
                if (q + 1 == end && !r->in.eof) return NEED_MORE;
                bool escaped = esc == quote ? (q + 1 < end && q[1] == quote)
                                            : (*q == esc && q + 1 < end);
                if (escaped) {
                    if (tn_buf_append(&r->scratch, s, (size_t)(q - s)) < 0 ||
                        tn_buf_append_byte(&r->scratch, (uint8_t)q[1]) < 0)
                        return TN_ENOMEM;
                    if (q[1] == '\n') extra_lines++;
                    in_scratch = true;
                    p = q + 2;
                    s = p;
                    continue;
                }
                if (*q != quote) { /* lone escape char at the very end of input */
                    return tn_error_set(TN_ECORRUPT, "%s: line %llu: unterminated quoted field",
                                        r->path, (unsigned long long)r->rec_line);
                }
                if (in_scratch) {
                    if (tn_buf_append(&r->scratch, s, (size_t)(q - s)) < 0) return TN_ENOMEM;
                    f->in_scratch = 1;
                    f->off = (uint32_t)soff;
                    f->len = (uint32_t)(r->scratch.len - soff);
                    f->ptr = NULL;
                } else {
                    f->in_scratch = 0;
                    f->ptr = s;
                    f->len = (uint32_t)(q - s);
                }
                f->quoted = 1;
                p = q + 1;
                break;
            }
            while (p < end && (*p == ' ' || *p == '\t') && *p != delim) p++;
            if (p < end && !r->special[(uint8_t)*p])
                return tn_error_set(TN_ECORRUPT,
                                    "%s: line %llu: unexpected character '%c' after a closing quote",
                                    r->path, (unsigned long long)(r->rec_line + extra_lines), *p);
        } else {
            const char *s = p;
            const uint8_t *sp = r->special;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* 8 bytes at a time: the lowest byte equal to delim, LF or CR (SWAR zero-byte
             * test; only bytes above a true match can be false positives). */
            while (end - p >= 8) {
                uint64_t w;
                memcpy(&w, p, 8);
                uint64_t m = SWAR_ZERO(w ^ kdelim) | SWAR_ZERO(w ^ klf) | SWAR_ZERO(w ^ kcr);
                if (m) {
                    p += __builtin_ctzll(m) >> 3;
                    goto field_end;
                }
                p += 8;
            }
#endif
            while (p < end && !sp[(uint8_t)*p]) p++;
            goto field_end;
field_end:
            f->ptr = s;
            f->len = (uint32_t)(p - s);
            f->quoted = 0;
            f->in_scratch = 0;
        }
        nf++;
        if (p == end) {
            if (!r->in.eof) return NEED_MORE;
            break;
        }
        if (*p == delim) {
            p++;
            continue;
        }
        /* newline */
        if (*p == '\r') {
            p++;
            if (p == end && !r->in.eof) return NEED_MORE;
            if (p < end && *p == '\n') p++;
        } else {
            p++;
        }
        break;
    }
    for (uint32_t i = 0; i < nf; i++)
        if (r->fields[i].in_scratch) r->fields[i].ptr = (const char *)r->scratch.data + r->fields[i].off;
    r->nfields = nf;
    r->in.pos = (size_t)(p - buf);
    r->line += 1 + extra_lines;
    return 1;
}

/* The record loop, with parse_record (the hot tokenizer) inlined into it. noinline: when gcc
 * inlines this into its callers it keeps parse_record out of line and allocates its registers
 * worse (~5% more tokenizer instructions, measured with callgrind). */
static __attribute__((noinline)) int next_record(tn_csv_reader *r) {
    for (;;) {
        int rc = parse_record(r);
        if (rc != NEED_MORE) return rc;
        rc = tn_text_input_refill(&r->in, "record", r->line);
        if (rc < 0) return rc;
    }
}

static bool record_blank(const tn_csv_reader *r) {
    return r->nfields == 1 && r->fields[0].len == 0 && !r->fields[0].quoted;
}

/* Next non-blank record (blank lines are skipped). */
static int next_nonblank(tn_csv_reader *r) {
    for (;;) {
        int rc = next_record(r);
        if (rc != 1 || !record_blank(r)) return rc;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Sniffing.
 */
static int sniff_delimiter(tn_csv_reader *r) {
    static const char cands[] = {',', '|', ';', '\t'};
    int best = -1;
    uint32_t best_rows = 0, best_cols = 0;
    for (int c = 0; c < 4; c++) {
        r->delim = cands[c];
        set_special(r);
        seek_to(r, r->data_off, r->data_line);
        uint32_t cols0 = 0, consistent = 0;
        int rc = 0;
        for (int row = 0; row < 24; row++) {
            rc = next_nonblank(r);
            if (rc <= 0) break;
            if (row == 0) cols0 = r->nfields;
            if (r->nfields == cols0) consistent++;
        }
        if (rc < 0) {
            if (rc == TN_ENOMEM || rc == TN_EIO) return rc;
            tn_error_clear();
            continue;
        }
        if (cols0 > 1 && (consistent > best_rows || (consistent == best_rows && cols0 > best_cols))) {
            best = c;
            best_rows = consistent;
            best_cols = cols0;
        }
    }
    r->delim = best >= 0 ? cands[best] : ',';
    set_special(r);
    return 0;
}

static bool is_null_field(const tn_csv_reader *r, const csv_field *f) {
    if (f->len == 0) return true;
    return r->null_string && !f->quoted && f->len == r->null_len &&
           memcmp(f->ptr, r->null_string, r->null_len) == 0;
}

static char *make_name(const char *prefix, uint32_t idx, int width) {
    char tmp[64];
    if (width > 10) width = 10;
    snprintf(tmp, sizeof tmp, "%.20s%0*u", prefix, width, idx);
    return tn_strdup(tmp);
}

static size_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;            /* FNV-1a */
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

/* Makes names[0..n) unique in order, as DuckDB: a name already used gets "_<k>" where k counts
 * its uses so far, and the result is made unique the same way (a,a_1,a,a,b,a_2 ->
 * a,a_1,a_1_1,a_2,b,a_2_1). `used` maps each final name so far (borrowed from names) to its
 * count of uses; every step bumps one count, and a name's suffixed form is met at most once, so
 * the work is linear in the names' bytes (the old scan of every earlier name per suffix tried
 * was cubic in the number of duplicates). */
static int uniquify_names(char **names, uint32_t n) {
    typedef struct used_name { const char *name; unsigned uses; } used_name;
    int rc = 0;
    size_t cap = 16;
    while (cap < (size_t)n * 2) cap *= 2;
    size_t mask = cap - 1;
    used_name *used = tn_calloc(cap, sizeof *used);
    if (!used) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        size_t h;
        for (;;) {
            h = name_hash(names[i]) & mask;
            while (used[h].name && strcmp(used[h].name, names[i]) != 0) h = (h + 1) & mask;
            if (!used[h].name) break;
            unsigned k = ++used[h].uses;
            size_t len = strlen(names[i]) + 16;
            char *next = tn_malloc(len);
            if (!next) { rc = TN_ENOMEM; goto cleanup; }
            snprintf(next, len, "%s_%u", names[i], k);
            tn_free(names[i]);
            names[i] = next;
        }
        used[h].name = names[i];
        used[h].uses = 0;
    }
cleanup:
    tn_free(used);
    return rc;
}

static int sniff(tn_csv_reader *r, const tn_csv_options *o) {
    int rc = 0;
    char **first = NULL;
    unsigned *masks = NULL, *first_masks = NULL;
    bool *seen = NULL, *first_seen = NULL;
    uint32_t ncols = 0, rows = 0;
    if (r->delim == 0) {
        rc = sniff_delimiter(r);
        if (rc < 0) goto cleanup;
    }
    seek_to(r, r->data_off, r->data_line);
    uint32_t sample = o->sample_size ? o->sample_size : 20480;
    while (rows <= sample) {
        rc = next_nonblank(r);
        if (rc < 0) goto cleanup;
        if (rc == 0) break;
        if (rows == 0) {
            ncols = r->nfields;
            first = tn_calloc(ncols, sizeof *first);
            masks = tn_calloc(ncols, sizeof *masks);
            first_masks = tn_calloc(ncols, sizeof *first_masks);
            seen = tn_calloc(ncols, sizeof *seen);
            first_seen = tn_calloc(ncols, sizeof *first_seen);
            if (!first || !masks || !first_masks || !seen || !first_seen) { rc = TN_ENOMEM; goto cleanup; }
            for (uint32_t c = 0; c < ncols; c++) {
                const csv_field *f = &r->fields[c];
                first[c] = tn_strndup(f->ptr ? f->ptr : "", f->len);
                if (!first[c]) { rc = TN_ENOMEM; goto cleanup; }
                masks[c] = TN_TEXT_M_ALL;
                if (!is_null_field(r, f)) {
                    first_seen[c] = true;
                    first_masks[c] = tn_text_classify(&r->conv, f->ptr, f->len);
                }
            }
        } else {
            if (r->nfields != ncols) {
                rc = tn_error_set(TN_ECORRUPT, "%s: line %llu: expected %u fields, found %u",
                                  r->path, (unsigned long long)r->rec_line, ncols, r->nfields);
                goto cleanup;
            }
            for (uint32_t c = 0; c < ncols; c++) {
                const csv_field *f = &r->fields[c];
                if (is_null_field(r, f) || masks[c] == 0) {
                    if (!is_null_field(r, f)) seen[c] = true;
                    continue;
                }
                seen[c] = true;
                masks[c] &= tn_text_classify(&r->conv, f->ptr, f->len);
            }
        }
        rows++;
    }
    if (o->ncolumns && ncols && o->ncolumns != ncols) {
        rc = tn_error_set(TN_EINVAL, "%s: %u columns given, but the file has %u", r->path,
                          o->ncolumns, ncols);
        goto cleanup;
    }
    if (ncols == 0) ncols = o->ncolumns ? o->ncolumns : 1; /* empty file */
    r->ncols = ncols;
    r->names = tn_calloc(ncols, sizeof *r->names);
    r->types = tn_calloc(ncols, sizeof *r->types);
    if (!r->names || !r->types) { rc = TN_ENOMEM; goto cleanup; }
    /* Types with and without the first row. */
    bool header;
    tn_type *t_rest = tn_calloc(ncols, sizeof *t_rest);
    if (!t_rest) { rc = TN_ENOMEM; goto cleanup; }
    bool all_varchar = true;
    for (uint32_t c = 0; c < ncols; c++) {
        if (o->column_types) t_rest[c] = o->column_types[c];
        else if (o->all_varchar || rows == 0) t_rest[c] = tn_type_make(TN_TYPE_VARCHAR);
        else if (rows == 1) t_rest[c] = tn_text_type_from_mask(first_masks[c], first_seen[c]);
        else t_rest[c] = tn_text_type_from_mask(masks[c], seen[c]);
        if (t_rest[c].id != TN_TYPE_VARCHAR) all_varchar = false;
    }
    if (o->header >= 0) {
        header = o->header != 0;
    } else if (rows == 0) {
        header = false;
    } else if (all_varchar) {
        header = true;
    } else {
        header = false;
        for (uint32_t c = 0; c < ncols && !header; c++) {
            unsigned bit;
            switch (t_rest[c].id) {
            case TN_TYPE_BOOLEAN: bit = TN_TEXT_M_BOOL; break;
            case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER:
            case TN_TYPE_BIGINT: bit = TN_TEXT_M_INT; break;
            case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: case TN_TYPE_DECIMAL: bit = TN_TEXT_M_DOUBLE; break;
            case TN_TYPE_DATE: bit = TN_TEXT_M_DATE; break;
            case TN_TYPE_TIMESTAMP: bit = TN_TEXT_M_TS; break;
            case TN_TYPE_TIMESTAMP_TZ: bit = TN_TEXT_M_TSTZ; break;
            default: bit = 0; break;     /* VARCHAR, VARBINARY: anything fits */
            }
            if (first_seen[c] && bit && !(first_masks[c] & bit)) header = true;
        }
    }
    for (uint32_t c = 0; c < ncols; c++) {
        if (o->column_types || o->all_varchar || rows <= 1 || header) {
            r->types[c] = t_rest[c];
        } else {
            unsigned m = masks[c];
            bool s = seen[c];
            if (first_seen[c]) {
                m &= first_masks[c];
                s = true;
            }
            r->types[c] = tn_text_type_from_mask(m, s);
        }
    }
    tn_free(t_rest);
    r->header = header;
    int width = 1;
    for (uint32_t v = ncols - 1; v >= 10; v /= 10) width++;
    for (uint32_t c = 0; c < ncols; c++) {
        if (o->column_names && o->column_names[c]) r->names[c] = tn_strdup(o->column_names[c]);
        else if (header && first && first[c][0]) r->names[c] = tn_strdup(first[c]);
        else r->names[c] = make_name("column", c, width);
        if (!r->names[c]) { rc = TN_ENOMEM; goto cleanup; }
        char *fixed = NULL;
        rc = tn_text_check_name(r->path, r->names[c], o->replace_invalid_utf8, &fixed);
        if (rc < 0) goto cleanup;
        if (fixed) { tn_free(r->names[c]); r->names[c] = fixed; }
    }
    rc = uniquify_names(r->names, ncols);
    if (rc < 0) goto cleanup;
    /* Position at the first data row. */
    seek_to(r, r->data_off, r->data_line);
    if (header) {
        rc = next_nonblank(r);
        if (rc < 0) goto cleanup;
        rc = 0;
    }
cleanup:
    if (first)
        for (uint32_t c = 0; c < ncols; c++) tn_free(first[c]);
    tn_free(first);
    tn_free(masks);
    tn_free(first_masks);
    tn_free(seen);
    tn_free(first_seen);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Open / close.
 */
static char *opt_dup(const char *s) { return s ? tn_strdup(s) : NULL; }

int tn_csv_open(tn_csv_reader **out, tn_fs *fs, const char *path, const tn_csv_options *opts) {
    tn_csv_options defaults = TN_CSV_OPTIONS_INIT;
    const tn_csv_options *o = opts ? opts : &defaults;
    int rc = 0;
    *out = NULL;
    tn_csv_reader *r = tn_calloc(1, sizeof *r);
    if (!r) return TN_ENOMEM;
    r->path = tn_strdup(path);
    if (!r->path) { rc = TN_ENOMEM; goto cleanup; }
    if ((o->null_string && !(r->null_string = opt_dup(o->null_string))) ||
        (o->date_format && !(r->date_format = opt_dup(o->date_format))) ||
        (o->timestamp_format && !(r->ts_format = opt_dup(o->timestamp_format)))) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    r->null_len = r->null_string ? strlen(r->null_string) : 0;
    r->conv.path = r->path;
    r->conv.date_format = r->date_format;
    r->conv.ts_format = r->ts_format;
    r->conv.replace_invalid_utf8 = o->replace_invalid_utf8;
    r->quote = o->quote;
    r->escape = o->escape ? o->escape : o->quote;
    r->delim = o->delimiter;
    if (r->delim && (r->delim == r->quote || r->delim == '\n' || r->delim == '\r')) {
        rc = tn_error_set(TN_EINVAL, "%s: invalid delimiter", path);
        goto cleanup;
    }
    if (r->delim) set_special(r);
    rc = tn_text_input_open(&r->in, fs, r->path, o->buffer_size, o->max_record_size, &r->data_off);
    if (rc < 0) goto cleanup;
    r->data_line = 1;
    if (o->skip_rows) {
        if (!r->delim) { r->delim = ','; set_special(r); }
        seek_to(r, r->data_off, 1);
        for (uint32_t i = 0; i < o->skip_rows; i++) {
            rc = next_record(r);
            if (rc < 0) goto cleanup;
            if (rc == 0) break;
        }
        r->data_off = abs_pos(r);
        r->data_line = r->line;
        if (!o->delimiter) r->delim = 0;
    }
    rc = sniff(r, o);
    if (rc < 0) goto cleanup;
    r->conv.names = (const char *const *)r->names;
    r->conv.types = r->types;
    rc = 0;
cleanup:
    if (rc < 0) {
        if (r->path && strncmp(tn_error_message(), r->path, strlen(r->path)) != 0)
            tn_error_prefix(rc, "%s", path);
        tn_csv_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

void tn_csv_close(tn_csv_reader *r) {
    if (!r) return;
    tn_text_input_close(&r->in);
    if (r->names)
        for (uint32_t c = 0; c < r->ncols; c++) tn_free(r->names[c]);
    tn_free(r->names);
    tn_free(r->types);
    tn_free(r->fields);
    tn_buf_free(&r->scratch);
    tn_free(r->path);
    tn_free(r->null_string);
    tn_free(r->date_format);
    tn_free(r->ts_format);
    tn_free(r);
}

uint32_t tn_csv_columns(const tn_csv_reader *r, const char *const **names, const tn_type **types) {
    if (names) *names = (const char *const *)r->names;
    if (types) *types = r->types;
    return r->ncols;
}

char tn_csv_delimiter(const tn_csv_reader *r) { return r->delim; }
bool tn_csv_has_header(const tn_csv_reader *r) { return r->header; }

/* ---------------------------------------------------------------------------------------------
 * Reading rows.
 */
int tn_csv_next(tn_csv_reader *r, tn_chunk *out) {
    int rc = 0;
    uint32_t cap, n = 0;
    if (r->failed) return tn_error_set(TN_EINVAL, "%s: reader failed earlier", r->path);
    rc = tn_text_chunk_begin(out, r->path, r->ncols, r->types, &cap);
    if (rc < 0) goto cleanup;
    while (n < cap && !r->done) {
        rc = next_record(r);
        if (rc < 0) goto cleanup;
        if (rc == 0) {
            r->done = true;
            break;
        }
        if (record_blank(r) && r->ncols != 1) continue;
        if (r->nfields != r->ncols) {
            rc = tn_error_set(TN_ECORRUPT, "%s: line %llu: expected %u fields, found %u", r->path,
                              (unsigned long long)r->rec_line, r->ncols, r->nfields);
            goto cleanup;
        }
        for (uint32_t c = 0; c < r->ncols; c++) {
            const csv_field *f = &r->fields[c];
            if (is_null_field(r, f)) rc = tn_text_store_null(&out->cols[c], n);
            else rc = tn_text_store_field(&r->conv, r->rec_line, c, &out->cols[c], n, f->ptr, f->len);
            if (rc < 0) goto cleanup;
        }
        r->row_lines[n++] = r->rec_line;
    }
    rc = 0;
cleanup:
    return tn_text_chunk_end(out, n, rc, &r->failed);
}

uint64_t tn_csv_row_line(const tn_csv_reader *r, uint32_t row) { return row < TN_VECTOR_SIZE ? r->row_lines[row] : 0; }
