/*
 * api/api.c: the implementation of include/tarn.h: thin wrappers that translate the public
 * API onto the internal layers (sql/sql.h for sessions, statements and results). Owns only
 * the handle structs.
 */
#include <stdlib.h>
#include <string.h>

#include "tarn.h"

#include "base/base.h"
#include "sql/sql.h"

_Static_assert((int)TARN_TYPE_TIMESTAMP_TZ == (int)TN_TYPE_TIMESTAMP_TZ, "tarn_type mirrors tn_type_id");
_Static_assert((int)TARN_TYPE_DECIMAL == (int)TN_TYPE_DECIMAL, "tarn_type mirrors tn_type_id");
_Static_assert(sizeof(tarn_string) == sizeof(tn_str), "tarn_string mirrors tn_str");
_Static_assert((int)TARN_EINTERRUPT == (int)TN_EINTERRUPT, "TARN_E* mirror TN_E*");
_Static_assert((int)TARN_ECHECKSUM == (int)TN_ECHECKSUM, "TARN_E* mirror TN_E*");

struct tarn_db {
    tn_sql_session *session;
};

struct tarn_stmt {
    tarn_db *db;
    tn_sql_script *script;
    uint32_t nparams;
    tn_value *params;
    char **texts;                /* copies of bound strings */
    uint32_t results;            /* live results of it (a streaming one borrows the script) */
    bool finalized;              /* tarn_finalize came while results lived: freed with the last */
};

struct tarn_result {
    tn_sql_result *r;
    const tn_chunk *cur;
    tarn_stmt *stmt;             /* the statement it came from (tarn_execute), or NULL */
};

static void stmt_free(tarn_stmt *s);

const char *tarn_version(void) { return TARN_VERSION; }

const char *tarn_last_error(void) { return tn_error_message(); }

int tarn_open(const char *path, tarn_db **out) {
    *out = NULL;
    if (!path || !*path) path = getenv("TARN_WAREHOUSE");
    if (!path || !*path) path = "./warehouse";
    tarn_db *db = tn_calloc(1, sizeof *db);
    if (!db) return TN_ENOMEM;
    int rc = tn_sql_session_open(&db->session, path, 0);
    if (rc) {
        tn_free(db);
        return rc;
    }
    *out = db;
    return 0;
}

void tarn_close(tarn_db *db) {
    if (!db) return;
    tn_sql_session_close(db->session);
    tn_free(db);
}

void tarn_interrupt(tarn_db *db) {
    if (db) tn_sql_session_interrupt(db->session);
}

int tarn_query(tarn_db *db, const char *sql, tarn_result **out) {
    if (out) *out = NULL;
    if (!db || !sql) return tn_error_set(TN_EINVAL, "tarn_query: no database or no SQL");
    tn_sql_result *r = NULL;
    int rc = tn_sql_execute_stream(&r, db->session, sql);
    if (rc) return rc;
    if (!out) {
        tn_sql_result_free(r);
        return 0;
    }
    tarn_result *res = tn_calloc(1, sizeof *res);
    if (!res) {
        tn_sql_result_free(r);
        return TN_ENOMEM;
    }
    res->r = r;
    *out = res;
    return 0;
}

int tarn_prepare(tarn_db *db, const char *sql, tarn_stmt **out) {
    *out = NULL;
    if (!db || !sql) return tn_error_set(TN_EINVAL, "tarn_prepare: no database or no SQL");
    tarn_stmt *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    s->db = db;
    int rc = tn_sql_script_parse(&s->script, db->session, sql, strlen(sql));
    if (!rc && tn_sql_script_count(s->script) != 1)
        rc = tn_error_set(TN_EINVAL, "tarn_prepare: expected one statement, found %u",
                          tn_sql_script_count(s->script));
    if (!rc) {
        s->nparams = tn_sql_script_nparams(s->script, 0);
        s->params = tn_calloc(s->nparams + 1, sizeof *s->params);
        s->texts = tn_calloc(s->nparams + 1, sizeof *s->texts);
        if (!s->params || !s->texts) rc = TN_ENOMEM;
        for (uint32_t i = 0; !rc && i < s->nparams; i++) {
            s->params[i].type = tn_type_make(TN_TYPE_NULL);
            s->params[i].is_null = true;
        }
    }
    if (rc) {
        tarn_finalize(s);
        return rc;
    }
    *out = s;
    return 0;
}

void tarn_finalize(tarn_stmt *s) {
    if (!s) return;
    if (s->results) {
        s->finalized = true;
        return;
    }
    stmt_free(s);
}

static void stmt_free(tarn_stmt *s) {
    for (uint32_t i = 0; s->texts && i < s->nparams; i++) tn_free(s->texts[i]);
    tn_free(s->texts);
    tn_free(s->params);
    tn_sql_script_free(s->script);
    tn_free(s);
}

int tarn_stmt_param_count(const tarn_stmt *s) { return (int)s->nparams; }

static int param_slot(tarn_stmt *s, int index, tn_value **out) {
    if (index < 1 || (uint32_t)index > s->nparams)
        return tn_error_set(TN_EINVAL, "parameter index %d out of range (statement has %u)", index, s->nparams);
    tn_free(s->texts[index - 1]);
    s->texts[index - 1] = NULL;
    *out = &s->params[index - 1];
    memset(*out, 0, sizeof **out);
    return 0;
}

int tarn_bind_null(tarn_stmt *s, int index) {
    tn_value *v = NULL;
    int rc = param_slot(s, index, &v);
    if (rc) return rc;
    v->type = tn_type_make(TN_TYPE_NULL);
    v->is_null = true;
    return 0;
}

int tarn_bind_bool(tarn_stmt *s, int index, bool value) {
    tn_value *v = NULL;
    int rc = param_slot(s, index, &v);
    if (rc) return rc;
    v->type = tn_type_make(TN_TYPE_BOOLEAN);
    v->u.b = value;
    return 0;
}

int tarn_bind_int64(tarn_stmt *s, int index, int64_t value) {
    tn_value *v = NULL;
    int rc = param_slot(s, index, &v);
    if (rc) return rc;
    v->type = tn_type_make(value >= INT32_MIN && value <= INT32_MAX ? TN_TYPE_INTEGER : TN_TYPE_BIGINT);
    v->u.i = value;
    return 0;
}

int tarn_bind_double(tarn_stmt *s, int index, double value) {
    tn_value *v = NULL;
    int rc = param_slot(s, index, &v);
    if (rc) return rc;
    v->type = tn_type_make(TN_TYPE_DOUBLE);
    v->u.d = value;
    return 0;
}

int tarn_bind_text(tarn_stmt *s, int index, const char *text, size_t len) {
    tn_value *v = NULL;
    int rc = param_slot(s, index, &v);
    if (rc) return rc;
    size_t bad = tn_utf8_check(text, len);
    if (bad < len)
        return tn_error_set(TN_EINVAL, "tarn_bind_text: parameter %d is not valid UTF-8 (byte 0x%02x at byte %zu)",
                            index, (unsigned)(unsigned char)text[bad], bad + 1);
    char *copy = tn_malloc(len + 1);
    if (!copy) return TN_ENOMEM;
    if (len) memcpy(copy, text, len);
    copy[len] = 0;
    s->texts[index - 1] = copy;
    v->type = tn_type_make(TN_TYPE_VARCHAR);
    v->u.s.ptr = copy;
    v->u.s.len = (uint32_t)len;
    return 0;
}

int tarn_execute(tarn_stmt *s, tarn_result **out) {
    *out = NULL;
    tn_sql_result *r = NULL;
    int rc = tn_sql_script_execute_stream(&r, s->script, 0, s->params, s->nparams);
    if (rc) return rc;
    tarn_result *res = tn_calloc(1, sizeof *res);
    if (!res) {
        tn_sql_result_free(r);
        return TN_ENOMEM;
    }
    res->r = r;
    res->stmt = s;
    s->results++;
    *out = res;
    return 0;
}

/* A text with no statement (empty, blanks or comments only) gives a result with r->r NULL:
 * no columns, no rows. Every accessor below accepts it. */
uint32_t tarn_result_column_count(const tarn_result *r) { return r->r ? tn_sql_result_ncols(r->r) : 0; }
const char *tarn_result_column_name(const tarn_result *r, uint32_t col) {
    if (!r->r || col >= tn_sql_result_ncols(r->r)) return NULL;
    return tn_sql_result_name(r->r, col);
}
tarn_type tarn_result_column_type(const tarn_result *r, uint32_t col) {
    if (!r->r || col >= tn_sql_result_ncols(r->r)) return TARN_TYPE_NULL;
    return (tarn_type)tn_sql_result_type(r->r, col).id;
}
int64_t tarn_result_row_count(const tarn_result *r) { return r->r ? tn_sql_result_nrows(r->r) : 0; }

uint32_t tarn_result_next_chunk(tarn_result *r) {
    r->cur = NULL;
    if (!r->r) return 0;
    if (tn_sql_result_fetch(r->r, &r->cur)) r->cur = NULL;   /* message set by the fetch */
    return r->cur ? r->cur->count : 0;
}

int tarn_result_error(const tarn_result *r) { return r->r ? tn_sql_result_error(r->r) : 0; }

int tarn_result_column(const tarn_result *r, uint32_t col, tarn_column *out) {
    memset(out, 0, sizeof *out);
    if (!r->cur) return tn_error_set(TN_EINVAL, "tarn_result_column: no current chunk");
    if (col >= r->cur->ncols) return tn_error_set(TN_EINVAL, "tarn_result_column: no column %u", col);
    const tn_vector *v = &r->cur->cols[col];
    out->type = (tarn_type)v->type.id;
    out->precision = v->type.precision;
    out->scale = v->type.scale;
    out->rows = r->cur->count;
    out->data = v->data;
    out->validity = v->validity;
    return 0;
}

int tarn_result_value_text(const tarn_result *r, uint32_t col, uint32_t row, char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    if (!r->cur || col >= r->cur->ncols || row >= r->cur->count)
        return tn_error_set(TN_EINVAL, "tarn_result_value_text: no value at column %u row %u", col, row);
    const tn_vector *v = &r->cur->cols[col];
    if (v->type.id == TN_TYPE_NULL || !tn_vector_is_valid(v, row)) return 1;
    tn_buf b = TN_BUF_INIT;
    int rc = tn_value_format(&b, v, row);
    if (rc < 0) {
        tn_buf_free(&b);
        return rc;
    }
    if (cap) {
        size_t n = b.len < cap - 1 ? b.len : cap - 1;
        if (n) memcpy(buf, b.data, n);
        buf[n] = 0;
    }
    tn_buf_free(&b);
    return 0;
}

void tarn_result_stats(const tarn_result *r, tarn_stats *out) {
    memset(out, 0, sizeof *out);
    if (!r->r) return;
    const tn_sql_stats *s = tn_sql_result_stats(r->r);
    out->files_scanned = s->files_scanned;
    out->row_groups_scanned = s->row_groups_scanned;
    out->rows_scanned = s->rows_scanned;
    out->bytes_scanned = s->bytes_scanned;
    out->table_files = s->table_files;
    out->table_rows = s->table_rows;
    out->table_bytes = s->table_bytes;
}

void tarn_result_free(tarn_result *r) {
    if (!r) return;
    tn_sql_result_free(r->r);
    tarn_stmt *s = r->stmt;
    if (s && --s->results == 0 && s->finalized) stmt_free(s);
    tn_free(r);
}
