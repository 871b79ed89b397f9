/*
 * sql/copy_stdin.c: COPY ... FROM STDIN / TO STDOUT, whose rows travel over a client's stream
 * (the pgwire server decodes and encodes PostgreSQL's text and CSV formats): the options as
 * PostgreSQL defines them (tn_sql_copy_stdio_format), and the loader that appends the rows a
 * front end hands over, as text fields, to the table in one commit: each column's fields are
 * cast from text as string literals are (so '7' into an INTEGER, 't' into a BOOLEAN, '\x6162'
 * into bytea), NOT NULL and CHECK constraints hold, and nothing is committed unless every row
 * converts: a failed or abandoned COPY leaves the table as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/bindInt.h"
#include "sql/functions.h"
#include "sql/stmt.h"

bool tn_sql_copy_is_stdio(const tn_sql_stmt *st, bool *to) {
    if (!st || st->kind != TN_SQL_S_COPY || !st->u.copy.stdio) return false;
    if (to) *to = st->u.copy.to;
    return true;
}

static int one_char(const tn_sql_option *o, char *out) {
    const char *v = o->value ? o->value : "";
    if (strlen(v) != 1)
        return tn_error_set(TN_EINVAL, "COPY option %s must be a single one-byte character, not '%s'", o->key, v);
    *out = v[0];
    return 0;
}

int tn_sql_copy_stdio_format(const tn_sql_stmt *st, tn_sql_copy_format *f) {
    memset(f, 0, sizeof *f);
    const tn_sql_options *os = &st->u.copy.options;
    bool has_delim = false, has_null = false, has_quote = false, has_escape = false;
    int rc = 0;
    for (int i = 0; i < os->n && !rc; i++) {
        const tn_sql_option *o = &os->items[i];
        const char *v = o->value ? o->value : "";
        if (tn_str_iequal(o->key, "format")) {
            if (tn_str_iequal(v, "csv")) f->csv = true;
            else if (tn_str_iequal(v, "text")) f->csv = false;
            else if (tn_str_iequal(v, "binary")) f->binary = true;
            else rc = tn_error_set(TN_EINVAL, "COPY format \"%s\" not recognized (text, csv, binary)", v);
        } else if (tn_str_iequal(o->key, "header")) {
            if (o->kind == TN_SQL_VALUE_NONE || tn_str_iequal(v, "true") || tn_str_iequal(v, "on") || strcmp(v, "1") == 0)
                f->header = true;
            else if (tn_str_iequal(v, "false") || tn_str_iequal(v, "off") || strcmp(v, "0") == 0) f->header = false;
            else if (tn_str_iequal(v, "match"))
                rc = tn_error_set(TN_EUNSUPPORTED, "COPY HEADER MATCH is not supported yet (true or false)");
            else rc = tn_error_set(TN_EINVAL, "COPY option header requires a Boolean value, not '%s'", v);
        } else if (tn_str_iequal(o->key, "delimiter")) {
            rc = one_char(o, &f->delimiter);
            has_delim = true;
        } else if (tn_str_iequal(o->key, "quote")) {
            rc = one_char(o, &f->quote);
            has_quote = true;
        } else if (tn_str_iequal(o->key, "escape")) {
            rc = one_char(o, &f->escape);
            has_escape = true;
        } else if (tn_str_iequal(o->key, "null")) {
            if (strlen(v) >= sizeof f->null_string) rc = tn_error_set(TN_EINVAL, "COPY null string is too long");
            else snprintf(f->null_string, sizeof f->null_string, "%s", v);
            has_null = true;
        } else if (tn_str_iequal(o->key, "encoding")) {
            if (!tn_str_iequal(v, "utf8") && !tn_str_iequal(v, "utf-8") && !tn_str_iequal(v, "unicode"))
                rc = tn_error_set(TN_EUNSUPPORTED, "COPY encoding '%s' is not supported: text is UTF-8", v);
        } else {
            rc = tn_error_set(TN_EUNSUPPORTED, "COPY option %s is not supported (format, header, delimiter, null, "
                                               "quote, escape, encoding are)", o->key);
        }
    }
    if (rc) return rc;
    if (f->binary && (f->csv || f->header || has_delim || has_null || has_quote || has_escape))
        return tn_error_set(TN_EINVAL, "COPY: cannot specify %s in BINARY mode",
                            f->header ? "HEADER" : has_delim ? "DELIMITER" : has_null ? "NULL" : has_quote ? "QUOTE"
                            : has_escape ? "ESCAPE" : "FORMAT csv as well");
    if (!has_delim) f->delimiter = f->csv ? ',' : '\t';
    if (!has_null) snprintf(f->null_string, sizeof f->null_string, "%s", f->csv ? "" : "\\N");
    if (!f->csv && (has_quote || has_escape))
        return tn_error_set(TN_EINVAL, "COPY %s is available only in CSV mode", has_quote ? "quote" : "escape");
    if (!has_quote) f->quote = '"';
    if (!has_escape) f->escape = f->quote;
    if (f->delimiter == '\n' || f->delimiter == '\r' || (!f->csv && f->delimiter == '\\'))
        return tn_error_set(TN_EINVAL, "COPY delimiter cannot be newline, carriage return or (in text format) backslash");
    if (f->csv && f->delimiter == f->quote)
        return tn_error_set(TN_EINVAL, "COPY delimiter and quote must be different");
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The loader.
 */
struct tn_sql_copy_in {
    tn_sql_session *session;
    tn_arena *arena;
    tn_table *table;
    char label[2 * TN_CATALOG_NAME_MAX + 2];
    uint32_t ncols;              /* the table's columns */
    uint32_t nfields;            /* fields per row: the column list's, else every column */
    int *target;                 /* field k fills table column target[k] */
    tn_type *types;              /* per table column */
    const char **names;
    tn_chunk text;               /* fields as VARCHAR, one column per field */
    tn_chunk typed;              /* every table column, cast */
    int64_t first_line;          /* line of the buffered chunk's first row */
    tn_layout_writer *writer;
    tn_stmt_checks *checks;
    uint64_t rows;
};

void tn_sql_copy_in_abort(tn_sql_copy_in *ci) {
    if (!ci) return;
    tn_layout_writer_abort(ci->writer);
    tn_stmt_checks_free(ci->checks);
    tn_table_close(ci->table);
    tn_chunk_free(&ci->text);
    tn_chunk_free(&ci->typed);
    tn_arena_destroy(ci->arena);
    tn_free(ci);
}

int tn_sql_copy_in_open(tn_sql_copy_in **out, tn_sql_session *s, const tn_sql_stmt *st, const char *sql, size_t len,
                        uint32_t *nfields) {
    *out = NULL;
    tn_sql_copy_in *ci = tn_calloc(1, sizeof *ci);
    if (!ci) return TN_ENOMEM;
    ci->session = s;
    ci->arena = tn_arena_create(0);
    if (!ci->arena) { tn_free(ci); return TN_ENOMEM; }
    tn_binder b;
    memset(&b, 0, sizeof b);
    b.session = s;
    b.arena = ci->arena;
    b.sql = sql;
    b.sql_len = len;
    tn_catalog_name cn;
    int rc = tn_bind_open_table(&b, &st->u.copy.table, &cn, &ci->table);
    if (rc) goto fail;
    tn_catalog_name_format(&cn, ci->label, sizeof ci->label);
    ci->ncols = tn_table_num_columns(ci->table);
    ci->types = tn_arena_calloc(ci->arena, (ci->ncols + 1) * sizeof *ci->types);
    ci->names = tn_arena_calloc(ci->arena, (ci->ncols + 1) * sizeof *ci->names);
    ci->target = tn_arena_calloc(ci->arena, (ci->ncols + 1) * sizeof *ci->target);
    if (!ci->types || !ci->names || !ci->target) { rc = TN_ENOMEM; goto fail; }
    for (uint32_t i = 0; i < ci->ncols; i++) {
        ci->types[i] = tn_table_column(ci->table, i)->type;
        ci->names[i] = tn_table_column(ci->table, i)->name;
    }
    if (st->u.copy.n_columns) {
        bool *seen = tn_arena_calloc(ci->arena, ci->ncols + 1);
        if (!seen) { rc = TN_ENOMEM; goto fail; }
        for (int k = 0; k < st->u.copy.n_columns; k++) {
            int idx = tn_table_column_index(ci->table, st->u.copy.columns[k].name);
            if (idx < 0) {
                rc = tn_bind_error(&b, st->u.copy.columns[k].pos, "column \"%s\" of relation \"%s\" does not exist",
                                   st->u.copy.columns[k].name, ci->label);
                goto fail;
            }
            if (seen[idx]) {
                rc = tn_bind_error(&b, st->u.copy.columns[k].pos, "column \"%s\" specified more than once",
                                   st->u.copy.columns[k].name);
                goto fail;
            }
            seen[idx] = true;
            ci->target[ci->nfields++] = idx;
        }
    } else {
        for (uint32_t i = 0; i < ci->ncols; i++) ci->target[ci->nfields++] = (int)i;
    }
    tn_type *vt = tn_arena_calloc(ci->arena, (ci->nfields + 1) * sizeof *vt);
    if (!vt) { rc = TN_ENOMEM; goto fail; }
    for (uint32_t k = 0; k < ci->nfields; k++) vt[k] = tn_type_make(TN_TYPE_VARCHAR);
    rc = tn_chunk_init(&ci->text, ci->nfields, vt, TN_VECTOR_SIZE);
    if (!rc) rc = tn_chunk_init(&ci->typed, ci->ncols, ci->types, TN_VECTOR_SIZE);
    if (!rc) rc = tn_stmt_checks_compile(&b, ci->table, ci->label, &ci->checks);
    if (rc) goto fail;
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.operation = "COPY INTO";
    wo.memory_limit = s->memory_limit;
    wo.interrupt = &s->interrupted;           /* a canceled COPY commits nothing */
    wo.constraints_checked = true;            /* tn_stmt_checks_run on every chunk */
    rc = tn_layout_writer_open(&ci->writer, ci->table, &wo);
    if (rc) goto fail;
    *nfields = ci->nfields;
    *out = ci;
    return 0;
fail:
    tn_sql_copy_in_abort(ci);
    return rc;
}

/* '\x6162' (bytea's text form) as its bytes; other text as its bytes. */
static int bytea_field(tn_vector *out, uint32_t row, const tn_vector *text, uint32_t r) {
    tn_str s = ((const tn_str *)text->data)[r];
    if (s.len < 2 || s.ptr[0] != '\\' || s.ptr[1] != 'x') return tn_vector_set_str(out, row, s.ptr, s.len);
    if (s.len % 2) return tn_error_set(TN_EINVAL, "invalid hexadecimal data: odd number of digits");
    char *b = tn_malloc(s.len / 2 + 1);
    if (!b) return TN_ENOMEM;
    for (uint32_t k = 2; k < s.len; k += 2) {
        int v = 0;
        for (int h = 0; h < 2; h++) {
            char c = s.ptr[k + h];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) {
                tn_free(b);
                return tn_error_set(TN_EINVAL, "invalid hexadecimal digit: \"%c\"", c);
            }
            v = v * 16 + d;
        }
        b[(k - 2) / 2] = (char)v;
    }
    int rc = tn_vector_set_str(out, row, b, (s.len - 2) / 2);
    tn_free(b);
    return rc;
}

/* Casts the buffered text rows into the table's types and hands them to the writer. */
static int flush_rows(tn_sql_copy_in *ci) {
    uint32_t n = ci->text.count;
    if (!n) return 0;
    tn_chunk_reset(&ci->typed);
    int rc = 0;
    bool *filled = tn_calloc(ci->ncols + 1, 1);
    if (!filled) return TN_ENOMEM;
    for (uint32_t k = 0; k < ci->nfields && !rc; k++) {
        int c = ci->target[k];
        filled[c] = true;
        tn_vector *src = &ci->text.cols[k], *dst = &ci->typed.cols[c];
        src->count = n;
        if (ci->types[c].id == TN_TYPE_VARBINARY) {
            dst->count = n;
            for (uint32_t r = 0; r < n && !rc; r++) {
                if (!tn_vector_is_valid(src, r)) rc = tn_vector_set_null(dst, r);
                else rc = bytea_field(dst, r, src, r);
                if (rc && rc != TN_ENOMEM)
                    rc = tn_error_prefix(rc, "COPY %s, line %lld, column %s", ci->label, (long long)(ci->first_line + r),
                                         ci->names[c]);
            }
            continue;
        }
        rc = tn_cast_vector(src, dst, false);
        if (rc && rc != TN_ENOMEM) {
            /* which row: cast them one by one to name it */
            for (uint32_t r = 0; r < n; r++) {
                tn_value v, o;
                tn_vector_get_value(src, r, &v);
                tn_error_clear();
                if (tn_cast_value(&v, ci->types[c], false, ci->arena, &o)) {
                    rc = tn_error_prefix(TN_EINVAL, "COPY %s, line %lld, column %s", ci->label,
                                         (long long)(ci->first_line + r), ci->names[c]);
                    break;
                }
            }
        }
    }
    for (uint32_t c = 0; c < ci->ncols && !rc; c++) {
        if (filled[c]) continue;
        tn_vector *dst = &ci->typed.cols[c];
        dst->count = n;
        for (uint32_t r = 0; r < n && !rc; r++) rc = tn_vector_set_null(dst, r);
    }
    tn_free(filled);
    ci->typed.count = n;
    for (uint32_t c = 0; c < ci->ncols; c++) ci->typed.cols[c].count = n;
    if (!rc && ci->checks) rc = tn_stmt_checks_run(ci->checks, &ci->typed);
    if (!rc) rc = tn_layout_writer_write(ci->writer, &ci->typed);
    if (!rc && tn_interrupt_check(&ci->session->interrupted)) rc = tn_error_set(TN_EINTERRUPT, "Interrupted");
    ci->rows += n;
    ci->first_line += n;
    tn_chunk_reset(&ci->text);
    return rc;
}

int tn_sql_copy_in_row(tn_sql_copy_in *ci, const tn_str *fields, const bool *nulls, uint32_t n, int64_t line) {
    if (n != ci->nfields)
        return tn_error_set(TN_EINVAL, "COPY %s, line %lld: %s data for column \"%s\"", ci->label, (long long)line,
                            n < ci->nfields ? "missing" : "extra",
                            n < ci->nfields ? ci->names[ci->target[n]] : "(none: more fields than columns)");
    if (ci->text.count == 0) ci->first_line = line;
    uint32_t r = ci->text.count;
    for (uint32_t k = 0; k < n; k++) {
        tn_vector *v = &ci->text.cols[k];
        int rc = nulls[k] ? tn_vector_set_null(v, r) : tn_vector_set_str(v, r, fields[k].ptr, fields[k].len);
        if (rc) return rc;
        v->count = r + 1;
    }
    ci->text.count = r + 1;
    return ci->text.count == TN_VECTOR_SIZE ? flush_rows(ci) : 0;
}

tn_type tn_sql_copy_in_field_type(const tn_sql_copy_in *ci, uint32_t k) {
    return ci->types[ci->target[k]];
}

int tn_sql_copy_in_commit(tn_sql_copy_in *ci, uint64_t *rows) {
    int rc = flush_rows(ci);
    if (!rc) {
        tn_layout_writer *w = ci->writer;
        ci->writer = NULL;
        tn_table_commit_result res;
        memset(&res, 0, sizeof res);
        rc = tn_layout_writer_commit(w, &res);
        if (rc && rc != TN_ENOMEM && rc != TN_EINTERRUPT) rc = tn_error_prefix(rc, "COPY %s", ci->label);
    }
    if (rows) *rows = rc ? 0 : ci->rows;
    tn_sql_copy_in_abort(ci);
    return rc;
}
