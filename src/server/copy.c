/*
 * server/copy.c: COPY over the wire: `COPY t [(cols)] FROM STDIN` and `COPY t [(cols)] | (query)
 * TO STDOUT`, in PostgreSQL's text, CSV and binary formats (options: sql/copy_stdin.c).
 *
 *   FROM STDIN  server: CopyInResponse 'G' (int8 0 = text, int16 ncols, int16 0[ncols])
 *               client: CopyData 'd' (any split of the data) ... then CopyDone 'c' or CopyFail
 *               'f' (cstr why); Flush/Sync in between are ignored, as PostgreSQL does
 *               server: CommandComplete "COPY n", or ErrorResponse once the client has ended
 *               the copy (a bad row, a CopyFail: 57014; nothing is committed)
 *   TO STDOUT   server: CopyOutResponse 'H' (same layout), CopyData per row, CopyDone,
 *               CommandComplete "COPY n"
 *
 * Binary format: the responses' formats are 1; the header (signature "PGCOPY\n\377\r\n\0",
 * int32 flags 0, int32 extension length and extension), tuples (int16 field count, per field
 * int32 length or -1 for NULL and the value's binary encoding, as in binary result columns),
 * the trailer (int16 -1). TO STDOUT sends one CopyData per tuple and one of the trailer, the
 * first of them starting with the header, as PostgreSQL does. FROM STDIN reads any split;
 * fields are decoded by their columns' types (a row with another field count is an error).
 *
 * Text format: fields split by the delimiter (tab), rows by \n (\r\n accepted), the null string
 * (\N) unescaped marks NULL, backslash escapes \b \f \n \r \t \v \\ \ooo \xhh, a line "\." ends
 * the data. CSV: RFC 4180 quoting with quote/escape ("), quoted fields may hold newlines, an
 * unquoted field equal to the null string ('') is NULL, a quoted one never is; HEADER skips
 * (FROM) or writes (TO) the column names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/connInt.h"

bool tn_pg_copy_is_stdio(const tn_sql_stmt *st) { return tn_sql_copy_is_stdio(st, NULL); }

static void put_copy_response(tn_pg_conn *c, uint8_t type, uint32_t ncols, bool binary) {
    size_t at = tn_pg_begin(&c->out, type);
    tn_pg_put_i8(&c->out, binary ? 1 : 0);
    tn_pg_put_i16(&c->out, (int16_t)ncols);
    for (uint32_t i = 0; i < ncols; i++) tn_pg_put_i16(&c->out, binary ? 1 : 0);
    tn_pg_end(&c->out, at);
}

/* The binary format's header: signature, flags (no OIDs), no header extension. */
/* The binary format's header: signature, flags (no OIDs), no header extension. It opens the
 * CopyData of the first tuple (or of the trailer), as PostgreSQL sends it and psycopg reads it. */
static void put_binary_header(tn_pg_conn *c) {
    static const uint8_t signature[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', 0xff, '\r', '\n', 0};
    tn_pg_put_bytes(&c->out, signature, sizeof signature);
    tn_pg_put_i32(&c->out, 0);
    tn_pg_put_i32(&c->out, 0);
}

/* ---------------------------------------------------------------------------------------------
 * FROM STDIN: records parsed out of the buffered data.
 */
typedef struct copy_in {
    tn_sql_copy_format f;
    tn_sql_copy_in *loader;
    uint32_t nfields;
    tn_buf data;                 /* data received and not yet parsed */
    size_t pos;
    int64_t line;                /* records seen */
    bool ended;                  /* "\." seen (binary: the trailer) */
    bool header_done;            /* binary: the header was read */
    const tn_type *types;        /* binary: the type of each field's column (NULL: the loader's) */
    tn_buf field;                /* unescaped field bytes, NUL-separated */
    tn_str *fields;
    bool *nulls;
    uint32_t cap;
} copy_in;

static int grow_fields(copy_in *ci, uint32_t n) {
    if (n <= ci->cap) return 0;
    uint32_t nc = n * 2 + 8;
    tn_str *f = tn_realloc(ci->fields, nc * sizeof *f);
    if (!f) return TN_ENOMEM;
    ci->fields = f;
    bool *b = tn_realloc(ci->nulls, nc * sizeof *b);
    if (!b) return TN_ENOMEM;
    ci->nulls = b;
    ci->cap = nc;
    return 0;
}

/* Offsets of field starts in ci->field, turned into tn_str once the record is complete. */
static int hand_over(copy_in *ci, const uint32_t *starts, uint32_t n) {
    for (uint32_t k = 0; k < n; k++) {
        uint32_t end = k + 1 < n ? starts[k + 1] : (uint32_t)ci->field.len;
        ci->fields[k].ptr = ci->field.data ? (const char *)ci->field.data + starts[k] : "";
        ci->fields[k].len = end - starts[k];
    }
    ci->line++;
    for (uint32_t k = 0; k < n; k++) {           /* PostgreSQL's encoding check (22021) */
        if (ci->nulls[k] || !ci->fields[k].len) continue;
        char what[64];
        snprintf(what, sizeof what, "COPY line %lld, column %u", (long long)ci->line, k + 1);
        int rc = tn_pg_text_check((const uint8_t *)ci->fields[k].ptr, ci->fields[k].len, what);
        if (rc) return rc;
    }
    if (ci->f.header && ci->line == 1) return 0;
    if (!ci->loader) return 0;             /* the decoder alone (tn_pg_copy_binary_check) */
    return tn_sql_copy_in_row(ci->loader, ci->fields, ci->nulls, n, ci->line);
}

static int octal(int c) { return c >= '0' && c <= '7' ? c - '0' : -1; }
static int hexd(int c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One text-format record s[0, n) (without its newline). */
static int text_record(copy_in *ci, const char *s, size_t n, uint32_t **starts, uint32_t *scap) {
    if (n && s[n - 1] == '\r') n--;
    if (n == 2 && s[0] == '\\' && s[1] == '.') { ci->ended = true; return 0; }
    ci->field.len = 0;
    uint32_t nf = 0;
    size_t i = 0;
    size_t nl = strlen(ci->f.null_string);
    for (;;) {
        size_t j = i;
        while (j < n && s[j] != ci->f.delimiter) j++;   /* a backslash never escapes the delimiter away */
        if (nf >= *scap) {
            uint32_t nc = *scap * 2 + 16;
            uint32_t *ns = tn_realloc(*starts, nc * sizeof *ns);
            if (!ns) return TN_ENOMEM;
            *starts = ns;
            *scap = nc;
        }
        if (grow_fields(ci, nf + 1)) return TN_ENOMEM;
        (*starts)[nf] = (uint32_t)ci->field.len;
        ci->nulls[nf] = j - i == nl && memcmp(s + i, ci->f.null_string, nl) == 0;
        int rc = 0;
        for (size_t k = i; k < j && !ci->nulls[nf] && !rc; k++) {
            char ch = s[k];
            if (ch == '\\' && k + 1 < j) {
                char e = s[++k];
                int v;
                switch (e) {
                case 'b': ch = '\b'; break;
                case 'f': ch = '\f'; break;
                case 'n': ch = '\n'; break;
                case 'r': ch = '\r'; break;
                case 't': ch = '\t'; break;
                case 'v': ch = '\v'; break;
                case 'x':
                    if (k + 1 < j && hexd(s[k + 1]) >= 0) {
                        v = hexd(s[++k]);
                        if (k + 1 < j && hexd(s[k + 1]) >= 0) v = v * 16 + hexd(s[++k]);
                        ch = (char)v;
                    } else {
                        ch = 'x';
                    }
                    break;
                default:
                    if (octal(e) >= 0) {
                        v = octal(e);
                        for (int d = 0; d < 2 && k + 1 < j && octal(s[k + 1]) >= 0; d++) v = v * 8 + octal(s[++k]);
                        ch = (char)v;
                    } else {
                        ch = e;
                    }
                }
            }
            rc = tn_buf_append_byte(&ci->field, (uint8_t)ch);
        }
        if (rc) return rc;
        nf++;
        if (j >= n) break;
        i = j + 1;
    }
    return hand_over(ci, *starts, nf);
}

/* One CSV record starting at s[0, n) when complete: *used = bytes through its newline, or 0
 * when it needs more data (at_end: the data is all there). */
static int csv_record(copy_in *ci, const char *s, size_t n, bool at_end, size_t *used, uint32_t **starts,
                      uint32_t *scap) {
    *used = 0;
    ci->field.len = 0;
    uint32_t nf = 0;
    size_t i = 0;
    size_t nl = strlen(ci->f.null_string);
    const tn_sql_copy_format *f = &ci->f;
    for (;;) {
        if (nf >= *scap) {
            uint32_t nc = *scap * 2 + 16;
            uint32_t *ns = tn_realloc(*starts, nc * sizeof *ns);
            if (!ns) return TN_ENOMEM;
            *starts = ns;
            *scap = nc;
        }
        if (grow_fields(ci, nf + 1)) return TN_ENOMEM;
        (*starts)[nf] = (uint32_t)ci->field.len;
        bool quoted = false;
        size_t st = i;
        int rc = 0;
        bool in_q = false;
        while (i < n) {
            char ch = s[i];
            if (in_q) {
                if (ch == f->escape && i + 1 < n && s[i + 1] == f->quote && (f->escape != f->quote || true)) {
                    rc |= tn_buf_append_byte(&ci->field, (uint8_t)f->quote);
                    i += 2;
                    continue;
                }
                if (ch == f->quote) {
                    if (f->escape == f->quote && i + 1 >= n && !at_end) return 0;   /* "" split across messages */
                    in_q = false;
                    i++;
                    continue;
                }
                rc |= tn_buf_append_byte(&ci->field, (uint8_t)ch);
                i++;
                continue;
            }
            if (ch == f->quote) { in_q = quoted = true; i++; continue; }
            if (ch == f->delimiter || ch == '\n' || ch == '\r') break;
            rc |= tn_buf_append_byte(&ci->field, (uint8_t)ch);
            i++;
        }
        if (rc) return rc;
        if (in_q) {
            if (!at_end) return 0;
            return tn_error_set(TN_EINVAL, "COPY: unterminated CSV quoted field at line %lld", (long long)ci->line + 1);
        }
        if (i >= n && !at_end) return 0;
        ci->nulls[nf] = !quoted && i - st == nl && memcmp(s + st, f->null_string, nl) == 0;
        nf++;
        if (i < n && s[i] == f->delimiter) { i++; continue; }
        if (i < n && s[i] == '\r') i++;
        if (i < n && s[i] == '\n') i++;
        break;
    }
    if (nf == 1 && !ci->nulls[0] && ci->field.len == 2 && memcmp(ci->field.data, "\\.", 2) == 0) {
        ci->ended = true;      /* end-of-data marker */
        *used = i;
        return 0;
    }
    *used = i;
    return hand_over(ci, *starts, nf);
}

/* Drops the parsed part of the buffered data (when all of it, or past 1 MiB). */
static void drop_parsed(copy_in *ci) {
    if (ci->pos && (ci->pos == ci->data.len || ci->pos > (1u << 20))) {
        memmove(ci->data.data, ci->data.data + ci->pos, ci->data.len - ci->pos);
        ci->data.len -= ci->pos;
        ci->pos = 0;
    }
}

static uint32_t rd32be(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* bytea's hex text ("\\x0aff"), which the loader's cast to VARBINARY reads. */
static int bytea_hex(tn_buf *out, const tn_value *v) {
    static const char hex[] = "0123456789abcdef";
    int rc = tn_buf_append(out, "\\x", 2);
    for (uint32_t i = 0; i < v->u.s.len && !rc; i++) {
        uint8_t b = (uint8_t)v->u.s.ptr[i];
        char two[2] = {hex[b >> 4], hex[b & 15]};
        rc = tn_buf_append(out, two, 2);
    }
    return rc;
}

/* Binary format: the header, then tuples, each decoded by its columns' types and handed over as
 * the text the loader casts (tn_value_to_text's, which casts back to the same value; bytea as
 * hex). Returns
 * with ci->pos at the first incomplete part unless at_end, where a cut-off tuple is an error. */
static int parse_binary(copy_in *ci, bool at_end) {
    uint32_t *starts = NULL, scap = 0;
    int rc = 0;
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    tn_buf text = TN_BUF_INIT;
    const uint8_t *d = ci->data.data;
    size_t n = ci->data.len;
    while (!rc && !ci->ended) {
        size_t p = ci->pos;
        if (!ci->header_done) {
            static const uint8_t signature[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', 0xff, '\r', '\n', 0};
            if (n - p < 19 || n - p < 19 + (size_t)rd32be(d + p + 15)) break;
            if (memcmp(d + p, signature, sizeof signature) != 0) {
                rc = tn_error_set(TN_EINVAL, "COPY file signature not recognized (binary format)");
                break;
            }
            if (rd32be(d + p + 11) & (1u << 16)) {
                rc = tn_error_set(TN_EUNSUPPORTED, "COPY binary data with OIDs is not supported");
                break;
            }
            ci->pos = p + 19 + rd32be(d + p + 15);
            ci->header_done = true;
            continue;
        }
        if (n - p < 2) break;
        int16_t nf = (int16_t)(d[p] << 8 | d[p + 1]);
        p += 2;
        if (nf == -1) {
            ci->ended = true;
            ci->pos = p;
            break;
        }
        if (nf != (int16_t)ci->nfields) {
            rc = tn_error_set(TN_EINVAL, "COPY: row %lld has %d fields, the copy takes %u", (long long)ci->line + 1, nf,
                              ci->nfields);
            break;
        }
        if ((rc = grow_fields(ci, ci->nfields))) break;
        if (scap < ci->nfields) {
            uint32_t *ns = tn_realloc(starts, ci->nfields * sizeof *ns);
            if (!ns) { rc = TN_ENOMEM; break; }
            starts = ns;
            scap = ci->nfields;
        }
        ci->field.len = 0;
        tn_arena_reset(arena);
        bool complete = true;
        for (uint32_t k = 0; k < ci->nfields && !rc; k++) {
            if (n - p < 4) { complete = false; break; }
            int32_t len = (int32_t)rd32be(d + p);
            p += 4;
            starts[k] = (uint32_t)ci->field.len;
            ci->nulls[k] = len < 0;
            if (len < 0) continue;
            if (n - p < (size_t)len) { complete = false; break; }
            tn_type t = ci->types ? ci->types[k] : tn_sql_copy_in_field_type(ci->loader, k);
            tn_value v;
            rc = tn_pg_decode_param(&v, tn_pg_type_of(t)->oid, 1, d + p, len, k + 1, arena);
            p += (size_t)len;
            if (rc) {
                rc = tn_error_prefix(rc, "COPY binary row %lld, field %u", (long long)ci->line + 1, k + 1);
                break;
            }
            text.len = 0;
            int trc = v.type.id == TN_TYPE_VARBINARY ? bytea_hex(&text, &v) : tn_value_to_text(&text, &v);
            if (trc < 0 || (trc > 0 && trc != 1)) { rc = trc; break; }
            if (trc == 1) ci->nulls[k] = true;
            else if (text.len) rc = tn_buf_append(&ci->field, text.data, text.len);
        }
        if (rc) break;
        if (!complete) {
            if (at_end) rc = tn_error_set(TN_EINVAL, "COPY binary data ends inside row %lld", (long long)ci->line + 1);
            break;
        }
        ci->pos = p;
        rc = hand_over(ci, starts, ci->nfields);
    }
    if (!rc && at_end && !ci->header_done)
        rc = tn_error_set(TN_EINVAL, "COPY file signature not recognized (binary format: the data has no header)");
    if (!rc && at_end && !ci->ended && ci->pos < ci->data.len)
        rc = tn_error_set(TN_EINVAL, "COPY binary data ends inside row %lld", (long long)ci->line + 1);
    tn_free(starts);
    tn_buf_free(&text);
    tn_arena_destroy(arena);
    return rc;
}

/* Parses every complete record of the buffered data (all of it when at_end). */
static int parse_data(copy_in *ci, bool at_end) {
    if (ci->f.binary) {
        int rc = parse_binary(ci, at_end);
        drop_parsed(ci);
        return rc;
    }
    uint32_t *starts = NULL, scap = 0;
    int rc = 0;
    while (!rc && !ci->ended && ci->pos < ci->data.len) {
        const char *s = (const char *)ci->data.data + ci->pos;
        size_t n = ci->data.len - ci->pos;
        if (!ci->f.csv) {
            const char *nl = memchr(s, '\n', n);
            if (!nl && !at_end) break;
            size_t len = nl ? (size_t)(nl - s) : n;
            rc = text_record(ci, s, len, &starts, &scap);
            ci->pos += len + (nl ? 1 : 0);
        } else {
            size_t used = 0;
            rc = csv_record(ci, s, n, at_end, &used, &starts, &scap);
            if (!rc && !used) break;
            ci->pos += used;
        }
    }
    tn_free(starts);
    drop_parsed(ci);
    return rc;
}

static void copy_in_free(copy_in *ci) {
    tn_buf_free(&ci->data);
    tn_buf_free(&ci->field);
    tn_free(ci->fields);
    tn_free(ci->nulls);
}

int tn_pg_copy_binary_check(const uint8_t *data, size_t len, size_t split, const tn_type *types, uint32_t ntypes) {
    copy_in ci;
    memset(&ci, 0, sizeof ci);
    ci.f.binary = true;
    ci.types = types;
    ci.nfields = ntypes;
    if (split > len) split = len;
    int rc = tn_buf_append(&ci.data, data, split);
    if (!rc) rc = parse_data(&ci, false);
    if (!rc && !ci.ended) rc = tn_buf_append(&ci.data, data + split, len - split);
    if (!rc) rc = parse_data(&ci, true);
    copy_in_free(&ci);
    return rc;
}

static int copy_from(tn_pg_conn *c, tn_sql_script *sc, uint32_t i, const tn_sql_copy_format *f) {
    copy_in ci;
    memset(&ci, 0, sizeof ci);
    ci.f = *f;
    const char *text = tn_sql_script_text(sc, i);
    int rc = tn_sql_copy_in_open(&ci.loader, c->session, tn_sql_script_stmt(sc, i), text, strlen(text), &ci.nfields);
    if (rc) return rc;
    put_copy_response(c, 'G', ci.nfields, f->binary);
    if ((rc = tn_pg_conn_flush(c))) { tn_sql_copy_in_abort(ci.loader); return TN_PG_EOF; }
    int err = 0;                 /* the first failure; the copy is drained to its end first */
    char failmsg[256] = "";
    for (;;) {
        uint8_t type;
        const uint8_t *body;
        uint32_t len;
        rc = tn_pg_conn_read_message(c, &type, &body, &len);
        if (rc) { err = TN_PG_EOF; break; }
        if (type == 'd') {
            if (err || ci.ended) continue;
            if (tn_buf_append(&ci.data, body, len)) err = TN_ENOMEM;
            else err = parse_data(&ci, false);
        } else if (type == 'c') {
            if (!err) err = parse_data(&ci, true);
            break;
        } else if (type == 'f') {
            const char *why = "";
            tn_pg_decode_cstr_only("CopyFail message", body, len, &why);
            snprintf(failmsg, sizeof failmsg, "%s", why ? why : "");
            if (!err) err = tn_error_set(TN_EINTERRUPT, "COPY from stdin failed: %s", failmsg);
            break;
        } else if (type == 'H' || type == 'S') {
            continue;
        } else {
            err = tn_error_set(TN_ECORRUPT, "unexpected message type '%c' during COPY from stdin",
                               type >= 32 && type < 127 ? type : '?');
            break;
        }
    }
    copy_in_free(&ci);
    if (err) {
        tn_sql_copy_in_abort(ci.loader);
        return err;
    }
    uint64_t rows = 0;
    tn_pg_conn_begin_statement(c);
    rc = tn_sql_copy_in_commit(ci.loader, &rows);
    tn_pg_conn_end_statement(c);
    if (rc) return rc;
    char tag[64];
    snprintf(tag, sizeof tag, "COPY %llu", (unsigned long long)rows);
    tn_pg_conn_complete(c, tag);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * TO STDOUT.
 */
/* The query a COPY ... TO STDOUT reads: its (query) text, or SELECT cols FROM table. */
static int source_query(const tn_sql_stmt *st, const char *text, tn_buf *out) {
    if (st->u.copy.query) {
        const char *p = strchr(text, '(');
        int depth = 0;
        for (const char *q = p; q && *q; q++) {
            if (*q == '\'' || *q == '"') {
                char qc = *q;
                for (q++; *q && *q != qc; q++) {}
                if (!*q) break;
                continue;
            }
            if (*q == '(') depth++;
            else if (*q == ')' && --depth == 0) return tn_buf_append(out, p + 1, (size_t)(q - p - 1));
        }
        return tn_error_set(TN_ESYNTAX, "COPY (query) TO STDOUT: cannot find the query's closing ')'");
    }
    int rc = tn_buf_printf(out, "SELECT ");
    for (int k = 0; k < st->u.copy.n_columns && !rc; k++) rc = tn_buf_printf(out, "%s\"%s\"", k ? ", " : "", st->u.copy.columns[k].name);
    if (!rc && !st->u.copy.n_columns) rc = tn_buf_printf(out, "*");
    if (!rc) rc = tn_buf_printf(out, " FROM ");
    for (int k = 0; k < st->u.copy.table.n && !rc; k++)
        rc = tn_buf_printf(out, "%s\"%s\"", k ? "." : "", st->u.copy.table.parts[k].name);
    return rc;
}

static int put_field(tn_buf *row, const tn_sql_copy_format *f, const char *s, size_t n, bool is_null) {
    int rc = 0;
    if (is_null) return tn_buf_append(row, f->null_string, strlen(f->null_string));
    if (!f->csv) {
        for (size_t k = 0; k < n && !rc; k++) {
            char ch = s[k];
            const char *esc = ch == '\\' ? "\\\\" : ch == '\n' ? "\\n" : ch == '\r' ? "\\r" : ch == '\t' ? "\\t" : NULL;
            if (!esc && ch == f->delimiter) {
                rc = tn_buf_append_byte(row, '\\');
                if (!rc) rc = tn_buf_append_byte(row, (uint8_t)ch);
            } else {
                rc = esc ? tn_buf_append(row, esc, strlen(esc)) : tn_buf_append_byte(row, (uint8_t)ch);
            }
        }
        return rc;
    }
    bool quote = (n == strlen(f->null_string) && memcmp(s, f->null_string, n) == 0) || (n == 0);
    for (size_t k = 0; k < n && !quote; k++)
        quote = s[k] == f->delimiter || s[k] == f->quote || s[k] == f->escape || s[k] == '\n' || s[k] == '\r';
    if (!quote) return tn_buf_append(row, s, n);
    rc = tn_buf_append_byte(row, (uint8_t)f->quote);
    for (size_t k = 0; k < n && !rc; k++) {
        if (s[k] == f->quote || s[k] == f->escape) rc = tn_buf_append_byte(row, (uint8_t)f->escape);
        if (!rc) rc = tn_buf_append_byte(row, (uint8_t)s[k]);
    }
    if (!rc) rc = tn_buf_append_byte(row, (uint8_t)f->quote);
    return rc;
}

static void put_data(tn_pg_conn *c, const tn_buf *row) {
    size_t at = tn_pg_begin(&c->out, 'd');
    tn_pg_put_bytes(&c->out, row->data, row->len);
    tn_pg_end(&c->out, at);
}

static int copy_to(tn_pg_conn *c, tn_sql_script *sc, uint32_t i, const tn_sql_copy_format *f) {
    tn_buf q = TN_BUF_INIT, row = TN_BUF_INIT, val = TN_BUF_INIT;
    tn_sql_script *qs = NULL;
    tn_sql_result *r = NULL;
    int rc = source_query(tn_sql_script_stmt(sc, i), tn_sql_script_text(sc, i), &q);
    if (!rc) rc = tn_sql_script_parse(&qs, c->session, q.data ? (const char *)q.data : "", q.len);
    if (!rc && tn_sql_script_count(qs) != 1)
        rc = tn_error_set(TN_ESYNTAX, "COPY (query) TO STDOUT takes one query");
    tn_pg_conn_begin_statement(c);
    if (!rc) rc = tn_sql_script_execute_stream(&r, qs, 0, NULL, 0);
    if (rc) goto done;
    uint32_t ncols = tn_sql_result_ncols(r);
    put_copy_response(c, 'H', ncols, f->binary);
    if (f->header) {
        row.len = 0;
        for (uint32_t k = 0; k < ncols && !rc; k++) {
            const char *nm = tn_sql_result_name(r, k);
            if (k) rc = tn_buf_append_byte(&row, (uint8_t)f->delimiter);
            if (!rc) rc = put_field(&row, f, nm, strlen(nm), false);
        }
        if (!rc) rc = tn_buf_append_byte(&row, '\n');
        if (!rc) put_data(c, &row);
    }
    uint64_t n = 0;
    while (!rc) {
        const tn_chunk *ch = NULL;
        rc = tn_sql_result_fetch(r, &ch);
        if (rc || !ch) break;
        for (uint32_t rr = 0; rr < ch->count && !rc && f->binary; rr++) {
            /* a tuple: its field count, then each field as a length word (-1: NULL) and the
             * value's binary encoding (the same as a binary result column's) */
            size_t at = tn_pg_begin(&c->out, 'd');
            if (n == 0) put_binary_header(c);
            tn_pg_put_i16(&c->out, (int16_t)ncols);
            for (uint32_t k = 0; k < ncols && !rc; k++) {
                const tn_vector *v = &ch->cols[k];
                if (!tn_vector_is_valid(v, rr)) {
                    tn_pg_put_i32(&c->out, -1);
                    continue;
                }
                val.len = 0;
                rc = tn_pg_encode_value(&val, v, rr, 1, c->settings.extra_float_digits);
                if (!rc) {
                    tn_pg_put_i32(&c->out, (int32_t)val.len);
                    tn_pg_put_bytes(&c->out, val.data, val.len);
                }
            }
            if (rc) {
                c->out.buf.len = at;                 /* no half tuple before the error */
                break;
            }
            tn_pg_end(&c->out, at);
            n++;
        }
        for (uint32_t rr = 0; rr < ch->count && !rc && !f->binary; rr++) {
            row.len = 0;
            for (uint32_t k = 0; k < ncols && !rc; k++) {
                if (k) rc = tn_buf_append_byte(&row, (uint8_t)f->delimiter);
                const tn_vector *v = &ch->cols[k];
                bool is_null = !tn_vector_is_valid(v, rr);
                val.len = 0;
                if (!is_null && !rc) rc = tn_pg_encode_value(&val, v, rr, 0, c->settings.extra_float_digits);
                if (!rc) rc = put_field(&row, f, val.data ? (const char *)val.data : "", val.len, is_null);
            }
            if (!rc) rc = tn_buf_append_byte(&row, '\n');
            if (!rc) put_data(c, &row);
            n++;
        }
        if (!rc && c->out.buf.len > (1u << 20)) rc = tn_pg_conn_flush(c) ? TN_PG_EOF : 0;
    }
    if (!rc && f->binary) {
        size_t at = tn_pg_begin(&c->out, 'd');
        if (n == 0) put_binary_header(c);
        tn_pg_put_i16(&c->out, -1);              /* the trailer */
        tn_pg_end(&c->out, at);
    }
    if (!rc) {
        size_t at = tn_pg_begin(&c->out, 'c');
        tn_pg_end(&c->out, at);
        char tag[64];
        snprintf(tag, sizeof tag, "COPY %llu", (unsigned long long)n);
        tn_pg_conn_complete(c, tag);
    }
done:
    tn_pg_conn_end_statement(c);
    tn_sql_result_free(r);
    tn_sql_script_free(qs);
    tn_buf_free(&q);
    tn_buf_free(&row);
    tn_buf_free(&val);
    return rc;
}

int tn_pg_copy_run(tn_pg_conn *c, tn_sql_script *sc, uint32_t i, const char *text, size_t base) {
    const tn_sql_stmt *st = tn_sql_script_stmt(sc, i);
    bool to = false;
    tn_sql_copy_is_stdio(st, &to);
    tn_sql_copy_format f;
    int rc = tn_pg_conn_check_statement(c, st);
    if (!rc) rc = tn_sql_copy_stdio_format(st, &f);
    if (!rc) {
        if (tn_pg_server_opts(c->srv)->log_queries)
            tn_pg_server_log(c->srv, "%s %s: query: %s", c->peer, c->user, tn_sql_script_text(sc, i));
        rc = to ? copy_to(c, sc, i, &f) : copy_from(c, sc, i, &f);
    }
    if (rc == TN_PG_EOF) {
        c->dead = true;
        return -1;
    }
    if (rc) {
        tn_pg_conn_sql_error(c, rc, text, base, false);
        return -1;
    }
    return 0;
}
