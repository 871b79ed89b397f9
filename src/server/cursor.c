/*
 * server/cursor.c: SQL-level cursors of a connection, as psql (FETCH_COUNT), psycopg's named
 * (server-side) cursors and pgjdbc's users send them: DECLARE runs the query as a streaming
 * result kept open under the cursor's name; FETCH sends its next rows (RowDescription, rows,
 * "FETCH n"), MOVE skips them ("MOVE n"); CLOSE ends it. Cursors only go forward (NO SCROLL;
 * SCROLL and backward fetches are refused). A cursor WITHOUT HOLD needs a transaction block and
 * ends with it (COMMIT/ROLLBACK), as in PostgreSQL; WITH HOLD lives until CLOSE or the end of
 * the session. An extended-protocol DECLARE takes parameters ($n in its query, psycopg 3's
 * named cursors send them so), kept with the cursor. Each statement still reads one snapshot: the cursor's, taken at DECLARE.
 */
#include <stdio.h>
#include <string.h>

#include "server/connInt.h"

struct tn_pg_sqlcursor {
    char name[64];
    char *sql;                   /* the query text: the parsed script points into it */
    tn_sql_script *script;
    tn_sql_result *res;
    tn_pg_cursor cur;
    uint8_t formats[2];          /* the one format code of every column (int16 big-endian, as
                                    Bind sends them): 1 for DECLARE BINARY */
    bool hold;
    tn_value *params;            /* the Bind parameters of an extended-protocol DECLARE: the
                                    query streams after the portal that bound them is gone */
    uint32_t nparams;
    tn_arena *arena;             /* params and their strings */
    struct tn_pg_sqlcursor *next;
};

static void cursor_free(tn_pg_sqlcursor *k) {
    tn_sql_result_free(k->res);
    tn_sql_script_free(k->script);
    tn_arena_destroy(k->arena);
    tn_free(k->sql);
    tn_free(k);
}

static tn_pg_sqlcursor **find(tn_pg_conn *c, const char *name) {
    tn_pg_sqlcursor **p = &c->cursors;
    while (*p && strcmp((*p)->name, name) != 0) p = &(*p)->next;
    return p;
}

void tn_pg_cursors_close(tn_pg_conn *c, bool all) {
    tn_pg_sqlcursor **p = &c->cursors;
    while (*p) {
        tn_pg_sqlcursor *k = *p;
        if (all || !k->hold) {
            *p = k->next;
            cursor_free(k);
        } else {
            p = &k->next;
        }
    }
}

/* Copies the connection's Bind parameters (c->cur_params) into the cursor's arena. */
static int keep_params(tn_pg_conn *c, tn_pg_sqlcursor *k) {
    if (!c->cur_nparams) return 0;
    k->arena = tn_arena_create(0);
    k->params = k->arena ? tn_arena_alloc(k->arena, c->cur_nparams * sizeof *k->params) : NULL;
    if (!k->params) return TN_ENOMEM;
    for (uint32_t i = 0; i < c->cur_nparams; i++) {
        tn_value v = c->cur_params[i];
        if (!v.is_null && (v.type.id == TN_TYPE_VARCHAR || v.type.id == TN_TYPE_VARBINARY) && v.u.s.len) {
            char *copy = tn_arena_alloc(k->arena, v.u.s.len);
            if (!copy) return TN_ENOMEM;
            memcpy(copy, v.u.s.ptr, v.u.s.len);
            v.u.s.ptr = copy;
        } else if (!v.is_null && (v.type.id == TN_TYPE_LIST || v.type.id == TN_TYPE_STRUCT || v.type.id == TN_TYPE_MAP)) {
            return tn_error_set(TN_EUNSUPPORTED, "DECLARE CURSOR with a parameter of a nested type ($%u)", i + 1);
        }
        k->params[i] = v;
    }
    k->nparams = c->cur_nparams;
    return 0;
}

static int declare(tn_pg_conn *c, const tn_pg_cmd *cmd, char *tag, size_t cap) {
    if (!cmd->hold && c->txn == 'I')
        return tn_error_set(TN_EINVAL, "DECLARE CURSOR can only be used in transaction blocks (or WITH HOLD)");
    if (*find(c, cmd->name)) return tn_error_set(TN_EEXISTS, "cursor \"%s\" already exists", cmd->name);
    tn_pg_sqlcursor *k = tn_calloc(1, sizeof *k);
    if (!k) return TN_ENOMEM;
    snprintf(k->name, sizeof k->name, "%s", cmd->name);
    k->hold = cmd->hold;
    k->formats[1] = cmd->binary ? 1 : 0;
    size_t len = strlen(cmd->value);
    k->sql = tn_malloc(len + 1);
    if (!k->sql) {
        cursor_free(k);
        return TN_ENOMEM;
    }
    memcpy(k->sql, cmd->value, len + 1);
    int rc = keep_params(c, k);
    if (!rc) rc = tn_sql_script_parse(&k->script, c->session, k->sql, len);
    if (!rc && tn_sql_script_count(k->script) != 1)
        rc = tn_error_set(TN_EINVAL, "DECLARE CURSOR takes one query");
    const tn_sql_stmt *st = rc ? NULL : tn_sql_script_stmt(k->script, 0);
    if (!rc && st->kind != TN_SQL_S_QUERY) rc = tn_error_set(TN_EINVAL, "DECLARE CURSOR needs a SELECT (or VALUES) query");
    if (!rc) rc = tn_pg_conn_check_statement(c, st);
    if (!rc) {
        tn_pg_conn_begin_statement(c);
        rc = tn_sql_script_execute_stream(&k->res, k->script, 0, k->params, k->nparams);
        tn_pg_conn_end_statement(c);
    }
    if (!rc && !tn_sql_result_has_rows(k->res)) rc = tn_error_set(TN_EINVAL, "DECLARE CURSOR needs a query that returns rows");
    if (rc) {
        cursor_free(k);
        return rc;
    }
    k->cur.res = k->res;
    k->cur.formats = k->formats;
    k->cur.nformats = 1;
    k->next = c->cursors;
    c->cursors = k;
    snprintf(tag, cap, "DECLARE CURSOR");
    return 0;
}

/* RowDescription of the cursor's rows: in the formats of the Bind of an extended-protocol
 * FETCH when it gave any, else the cursor's own (text, or binary for DECLARE BINARY). */
static void pick_formats(tn_pg_conn *c, tn_pg_sqlcursor *k) {
    k->cur.formats = c->cur_nformats ? c->cur_formats : k->formats;
    k->cur.nformats = c->cur_nformats ? c->cur_nformats : 1;
}

static int describe(tn_pg_conn *c, tn_pg_sqlcursor *k) {
    pick_formats(c, k);
    int rc = 0;
    uint32_t n = tn_sql_result_ncols(k->res);
    const char **names = tn_calloc(n + 1, sizeof *names);
    tn_type *types = tn_calloc(n + 1, sizeof *types);
    if (!names || !types) rc = TN_ENOMEM;
    for (uint32_t i = 0; !rc && i < n; i++) {
        names[i] = tn_sql_result_name(k->res, i);
        types[i] = tn_sql_result_type(k->res, i);
    }
    if (!rc) tn_pg_conn_row_description(c, n, names, types, k->cur.formats, k->cur.nformats);
    tn_free(names);
    tn_free(types);
    return rc;
}

/* Describe Portal of a cursor's name (a cursor is a portal, as in PostgreSQL: psycopg 3
 * describes its server-side cursors so). TN_ENOTFOUND when there is none. */
int tn_pg_cursor_describe(tn_pg_conn *c, const char *name) {
    tn_pg_sqlcursor *k = *find(c, name);
    return k ? describe(c, k) : TN_ENOTFOUND;
}

static int fetch(tn_pg_conn *c, const tn_pg_cmd *cmd, bool describe_rows, bool send_rows, char *tag, size_t cap) {
    tn_pg_sqlcursor *k = *find(c, cmd->name);
    if (!k) return tn_error_set(TN_ENOTFOUND, "cursor \"%s\" does not exist", cmd->name);
    int rc = 0;
    if (describe_rows && !cmd->move && (rc = describe(c, k))) return rc;
    if (!send_rows) return 0;
    pick_formats(c, k);
    int64_t before = k->cur.sent;
    bool more = false;
    tn_pg_conn_begin_statement(c);
    if (cmd->move) {
        /* MOVE: the rows are read and dropped, nothing is sent */
        size_t mark = c->out.buf.len;
        while (!rc && (cmd->count == 0 || k->cur.sent - before < cmd->count)) {
            int64_t want = cmd->count == 0 ? 1024 : cmd->count - (k->cur.sent - before);
            rc = tn_pg_conn_send_rows(c, &k->cur, want < 1024 ? want : 1024, &more);
            c->out.buf.len = mark;
            if (!more) break;
        }
    } else {
        rc = tn_pg_conn_send_rows(c, &k->cur, cmd->count, &more);
    }
    tn_pg_conn_end_statement(c);
    if (rc) return rc;
    snprintf(tag, cap, "%s %lld", cmd->move ? "MOVE" : "FETCH", (long long)(k->cur.sent - before));
    return 0;
}

int tn_pg_cursor_command(tn_pg_conn *c, const tn_pg_cmd *cmd, bool describe_rows, bool send_rows, char *tag,
                         size_t cap) {
    switch (cmd->kind) {
    case TN_PG_CMD_DECLARE:
        if (!send_rows) return 0;      /* Describe of a DECLARE: NoData */
        return declare(c, cmd, tag, cap);
    case TN_PG_CMD_FETCH:
        return fetch(c, cmd, describe_rows, send_rows, tag, cap);
    case TN_PG_CMD_CLOSE:
        if (!send_rows) return 0;
        if (strcmp(cmd->name, "all") == 0) {
            tn_pg_cursors_close(c, true);
        } else {
            tn_pg_sqlcursor **p = find(c, cmd->name);
            if (!*p) return tn_error_set(TN_ENOTFOUND, "cursor \"%s\" does not exist", cmd->name);
            tn_pg_sqlcursor *k = *p;
            *p = k->next;
            cursor_free(k);
        }
        snprintf(tag, cap, "CLOSE CURSOR");
        return 0;
    default:
        return tn_error_set(TN_EINTERNAL, "not a cursor command");
    }
}
