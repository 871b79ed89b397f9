/*
 * server/extended.c: the extended query protocol of one connection: Parse (named and unnamed
 * prepared statements, declared parameter types), Bind (parameters in text or binary into
 * portals, result formats), Describe (ParameterDescription, RowDescription or NoData, without
 * running a query), Execute (with a row limit: the portal is suspended and resumed), Close,
 * Flush and Sync. After an error every message up to Sync is skipped, as PostgreSQL does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/connInt.h"

static void stmt_unref(tn_pg_stmt *s) {
    if (!s || --s->refs > 0) return;
    tn_sql_script_free(s->script);
    tn_pg_cmd_free(&s->cmd);
    tn_free(s->oids);
    tn_free(s->sql);
    tn_free(s->name);
    tn_free(s);
}

static void portal_free(tn_pg_portal *p) {
    tn_sql_result_free(p->cur.res);
    stmt_unref(p->stmt);
    tn_arena_destroy(p->arena);
    tn_free(p->name);
    tn_free(p);
}

static tn_pg_stmt *find_stmt(tn_pg_conn *c, const char *name) {
    for (tn_pg_stmt *s = c->stmts; s; s = s->next)
        if (strcmp(s->name, name) == 0) return s;
    return NULL;
}

static tn_pg_portal *find_portal(tn_pg_conn *c, const char *name) {
    for (tn_pg_portal *p = c->portals; p; p = p->next)
        if (strcmp(p->name, name) == 0) return p;
    return NULL;
}

static bool remove_stmt(tn_pg_conn *c, const char *name) {
    for (tn_pg_stmt **pp = &c->stmts; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->name, name) == 0) {
            tn_pg_stmt *s = *pp;
            *pp = s->next;
            stmt_unref(s);
            return true;
        }
    }
    return false;
}

static bool remove_portal(tn_pg_conn *c, const char *name) {
    for (tn_pg_portal **pp = &c->portals; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->name, name) == 0) {
            tn_pg_portal *p = *pp;
            *pp = p->next;
            portal_free(p);
            return true;
        }
    }
    return false;
}

/* Frees the portals but the one an Execute is running (DISCARD ALL run as its own portal,
 * which psycopg 3 sends on a reset): its statement, command and parameters are in use until
 * the Execute ends, and PostgreSQL's DISCARD ALL keeps the active portal too. It goes at Sync
 * (implicit transaction) or with the next drop. */
static void drop_portals(tn_pg_conn *c) {
    tn_pg_portal **pp = &c->portals;
    while (*pp) {
        tn_pg_portal *p = *pp;
        if (p == c->exec_portal) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        portal_free(p);
    }
}

void tn_pg_conn_drop_statements(tn_pg_conn *c) {
    while (c->stmts) {
        tn_pg_stmt *s = c->stmts;
        c->stmts = s->next;
        stmt_unref(s);
    }
}

void tn_pg_conn_drop_all(tn_pg_conn *c) {
    drop_portals(c);
    tn_pg_conn_drop_statements(c);
}

int tn_pg_conn_close_statement(tn_pg_conn *c, const char *name) {
    return remove_stmt(c, name) ? 0 : TN_ENOTFOUND;
}

/* An ErrorResponse for the extended protocol: skip to Sync afterwards. */
static int ext_fail(tn_pg_conn *c, const char *sqlstate, const char *fmt, const char *arg) {
    char m[512];
    snprintf(m, sizeof m, fmt, arg);
    tn_pg_put_error(&c->out, 'E', "ERROR", sqlstate, m, NULL, NULL, 0);
    if (c->txn == 'T') c->txn = 'E';
    c->ext_error = true;
    return 0;
}

static int ext_sql_fail(tn_pg_conn *c, int rc, const char *text) {
    tn_pg_conn_sql_error(c, rc, text, 0, text != NULL);
    c->ext_error = true;
    return 0;
}

static uint32_t rd32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static int on_parse(tn_pg_conn *c, const uint8_t *body, uint32_t len) {
    tn_pg_parse m;
    int rc = tn_pg_decode_parse(body, len, &m);
    if (rc) return rc;
    if (m.name[0] && find_stmt(c, m.name)) return ext_fail(c, "42P05", "prepared statement \"%s\" already exists", m.name);
    tn_pg_stmt *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    s->refs = 1;
    s->name = tn_malloc(strlen(m.name) + 1);
    s->sql = tn_malloc(m.sql_len + 1);
    if (!s->name || !s->sql) {
        stmt_unref(s);
        return TN_ENOMEM;
    }
    strcpy(s->name, m.name);
    memcpy(s->sql, m.sql, m.sql_len + 1);
    s->sql_len = m.sql_len;
    /* one statement: the text up to its first top-level ';' (a second one is an error) */
    size_t pos = 0, start = 0, end = 0;
    bool one = tn_pg_split_next(s->sql, s->sql_len, &pos, &start, &end);
    size_t st2, en2;
    if (one && tn_pg_split_next(s->sql, s->sql_len, &pos, &st2, &en2)) {
        stmt_unref(s);
        return ext_fail(c, "42601", "cannot insert multiple commands into a prepared statement%s", "");
    }
    if (!one) s->cmd.kind = TN_PG_CMD_EMPTY;
    else tn_pg_classify(s->sql + start, end - start, &s->cmd);
    char *rw = NULL;               /* drivers' catalog queries tarn answers another way (compat.c) */
    const char *what = NULL;
    if (s->cmd.kind == TN_PG_CMD_NONE && tn_pg_compat_rewrite(s->sql + start, end - start, &rw, &what)) {
        if (tn_pg_server_opts(c->srv)->log_queries) tn_pg_server_log(c->srv, "%s: answered as %s", c->peer, what);
        tn_free(s->sql);
        s->sql = rw;
        s->sql_len = strlen(rw);
    }
    uint32_t np = m.nparams;
    if (s->cmd.kind == TN_PG_CMD_NONE || s->cmd.kind == TN_PG_CMD_DECLARE) {
        /* a DECLARE's parameters are its query's ($n in the query after FOR) */
        bool declare = s->cmd.kind == TN_PG_CMD_DECLARE;
        const char *q = declare ? s->cmd.value : s->sql;
        tn_sql_script *script = NULL;
        rc = tn_sql_script_parse(&script, c->session, q, declare ? strlen(q) : s->sql_len);
        if (rc) {
            stmt_unref(s);
            return ext_sql_fail(c, rc, declare ? q : m.sql);
        }
        if (tn_sql_script_count(script) == 1 && tn_sql_script_nparams(script, 0) > np)
            np = tn_sql_script_nparams(script, 0);
        if (declare) tn_sql_script_free(script);
        else s->script = script;
    }
    s->nparams = np;
    s->oids = tn_calloc(np + 1, sizeof *s->oids);
    if (!s->oids) {
        stmt_unref(s);
        return TN_ENOMEM;
    }
    for (uint32_t i = 0; i < m.nparams; i++) s->oids[i] = rd32(m.oids + 4 * i);
    if (!m.name[0]) remove_stmt(c, "");
    s->next = c->stmts;
    c->stmts = s;
    size_t at = tn_pg_begin(&c->out, '1');
    tn_pg_end(&c->out, at);
    return 0;
}

static int on_bind(tn_pg_conn *c, const uint8_t *body, uint32_t len) {
    tn_pg_bind m;
    int rc = tn_pg_decode_bind(body, len, &m);
    if (rc) return rc;
    tn_pg_stmt *s = find_stmt(c, m.stmt);
    if (!s) return ext_fail(c, "26000", m.stmt[0] ? "prepared statement \"%s\" does not exist" : "unnamed prepared statement does not exist%s", m.stmt);
    if (m.nparams != s->nparams) {
        char b[128];
        snprintf(b, sizeof b, "bind message supplies %u parameters, but prepared statement \"%s\" requires %u", m.nparams,
                 s->name, s->nparams);
        return ext_fail(c, "08P01", "%s", b);
    }
    if (m.portal[0] && find_portal(c, m.portal)) return ext_fail(c, "42P03", "portal \"%s\" already exists", m.portal);
    tn_pg_portal *p = tn_calloc(1, sizeof *p);
    if (!p) return TN_ENOMEM;
    p->arena = tn_arena_create(0);
    p->name = tn_malloc(strlen(m.portal) + 1);
    if (!p->arena || !p->name) {
        portal_free(p);
        return TN_ENOMEM;
    }
    strcpy(p->name, m.portal);
    p->stmt = s;
    s->refs++;
    p->nparams = m.nparams;
    p->params = tn_arena_alloc(p->arena, (m.nparams + 1) * sizeof *p->params);
    p->nformats = m.nresults;
    p->formats = tn_arena_alloc(p->arena, 2u * m.nresults + 1);
    if (!p->params || !p->formats) {
        portal_free(p);
        return TN_ENOMEM;
    }
    memcpy(p->formats, m.results, 2u * m.nresults);
    for (uint32_t i = 0; i < m.nparams; i++) {
        const uint8_t *d;
        int32_t l;
        tn_pg_bind_param(&m, i, &d, &l);
        rc = tn_pg_decode_param(&p->params[i], s->oids[i], tn_pg_format_at(m.formats, m.nformats, i), d, l, i + 1,
                                p->arena);
        if (rc) {
            portal_free(p);
            if (rc == TN_ENOMEM) return rc;
            return ext_sql_fail(c, rc == TN_EINVAL ? TN_EINVAL : rc, NULL);
        }
    }
    if (!m.portal[0]) remove_portal(c, "");
    p->next = c->portals;
    c->portals = p;
    size_t at = tn_pg_begin(&c->out, '2');
    tn_pg_end(&c->out, at);
    return 0;
}

/* Typed NULL parameters for describing a statement before Bind. */
static int typed_nulls(tn_pg_stmt *s, tn_value **out) {
    tn_value *v = tn_calloc(s->nparams + 1, sizeof *v);
    if (!v) return TN_ENOMEM;
    for (uint32_t i = 0; i < s->nparams; i++) {
        const tn_pg_type_info *ti = s->oids[i] ? tn_pg_type_by_oid(s->oids[i]) : NULL;
        v[i].type = tn_type_make(ti ? ti->id : TN_TYPE_VARCHAR);
        if (v[i].type.id == TN_TYPE_DECIMAL) v[i].type = tn_type_decimal(38, 10);
        v[i].is_null = true;
    }
    *out = v;
    return 0;
}

static bool stmt_has_rows(const tn_sql_stmt *st) {
    return st->kind == TN_SQL_S_QUERY || st->kind == TN_SQL_S_EXPLAIN || st->kind == TN_SQL_S_DESCRIBE ||
           st->kind == TN_SQL_S_SHOW;
}

/* Starts a portal's statement: a tarn result in p->cur, or the tag of a statement without rows.
 * Errors were sent (ext_error set) when it returns 1. */
static int portal_start(tn_pg_conn *c, tn_pg_portal *p) {
    tn_pg_stmt *s = p->stmt;
    p->started = true;
    p->cur.formats = p->formats;
    p->cur.nformats = p->nformats;
    if (s->cmd.kind != TN_PG_CMD_NONE) return 0;          /* session commands run at Execute */
    const tn_sql_stmt *st = tn_sql_script_stmt(s->script, 0);
    int rc = tn_pg_conn_check_statement(c, st);
    if (rc) {
        ext_sql_fail(c, rc, NULL);
        return 1;
    }
    if (st->kind == TN_SQL_S_COPY) {
        ext_fail(c, "0A000", "COPY is not supported in the extended query protocol: send it as a simple Query%s", "");
        return 1;
    }
    if (tn_pg_server_opts(c->srv)->log_queries)
        tn_pg_server_log(c->srv, "%s %s: execute %s: %s", c->peer, c->user, s->name[0] ? s->name : "<unnamed>", s->sql);
    tn_pg_conn_begin_statement(c);
    rc = tn_sql_script_execute_stream(&p->cur.res, s->script, 0, p->params, p->nparams);
    if (rc) {
        tn_pg_conn_end_statement(c);
        ext_sql_fail(c, rc, s->sql);
        return 1;
    }
    if (!tn_sql_result_has_rows(p->cur.res)) {
        tn_pg_conn_tag(st, p->cur.res, 0, p->tag, sizeof p->tag);
        if (c->txn == 'T' && st->kind != TN_SQL_S_SET) c->txn_writes++;
        tn_sql_result_free(p->cur.res);
        p->cur.res = NULL;
        tn_pg_conn_end_statement(c);
    }
    return 0;
}

static int describe_query(tn_pg_conn *c, tn_pg_stmt *s, const tn_value *params, const uint8_t *formats,
                          uint16_t nformats) {
    tn_sql_result *r = NULL;
    int rc = tn_sql_script_describe(&r, s->script, 0, params, s->nparams);
    if (rc) return rc;
    uint32_t n = tn_sql_result_ncols(r);
    const char **names = tn_calloc(n + 1, sizeof *names);
    tn_type *types = tn_calloc(n + 1, sizeof *types);
    if (names && types) {
        for (uint32_t i = 0; i < n; i++) {
            names[i] = tn_sql_result_name(r, i);
            types[i] = tn_sql_result_type(r, i);
        }
        tn_pg_conn_row_description(c, n, names, types, formats, nformats);
    } else {
        rc = TN_ENOMEM;
    }
    tn_free(names);
    tn_free(types);
    tn_sql_result_free(r);
    return rc;
}

static int describe_rows(tn_pg_conn *c, tn_pg_stmt *s, tn_pg_portal *p) {
    const uint8_t *formats = p ? p->formats : NULL;
    uint16_t nformats = p ? p->nformats : 0;
    if (s->cmd.kind == TN_PG_CMD_SHOW || (s->cmd.kind == TN_PG_CMD_FETCH && !s->cmd.move)) {
        c->cur_formats = formats;
        c->cur_nformats = nformats;
        char tag[64];
        int rc = tn_pg_conn_command(c, &s->cmd, true, false, tag, sizeof tag);
        c->cur_formats = NULL;
        c->cur_nformats = 0;
        return rc;
    }
    if (s->cmd.kind != TN_PG_CMD_NONE || !stmt_has_rows(tn_sql_script_stmt(s->script, 0))) {
        size_t at = tn_pg_begin(&c->out, 'n');          /* NoData */
        tn_pg_end(&c->out, at);
        return 0;
    }
    const tn_sql_stmt *st = tn_sql_script_stmt(s->script, 0);
    if (st->kind == TN_SQL_S_QUERY && !p) {
        tn_value *nulls = NULL;
        int rc = typed_nulls(s, &nulls);
        if (!rc) rc = describe_query(c, s, nulls, NULL, 0);
        tn_free(nulls);
        return rc;
    }
    /* A portal of a query, EXPLAIN, DESCRIBE, SHOW TABLES (read-only) runs now and keeps its
     * rows for Execute: describing it apart would bind and plan the statement twice (libpq's
     * PQexecPrepared sends Bind, Describe portal, Execute) */
    if (p) {
        if (!p->started && portal_start(c, p)) return 1;
        if (!p->cur.res) return tn_error_set(TN_EINTERNAL, "no result to describe");
        uint32_t n = tn_sql_result_ncols(p->cur.res);
        const char **names = tn_calloc(n + 1, sizeof *names);
        tn_type *types = tn_calloc(n + 1, sizeof *types);
        if (!names || !types) { tn_free(names); tn_free(types); return TN_ENOMEM; }
        for (uint32_t i = 0; i < n; i++) {
            names[i] = tn_sql_result_name(p->cur.res, i);
            types[i] = tn_sql_result_type(p->cur.res, i);
        }
        tn_pg_conn_row_description(c, n, names, types, formats, nformats);
        tn_free(names);
        tn_free(types);
        return 0;
    }
    tn_sql_result *r = NULL;
    int rc = tn_sql_script_execute(&r, s->script, 0, NULL, 0);
    if (rc) {
        /* parameters missing: the shape cannot be known before Bind */
        size_t at = tn_pg_begin(&c->out, 'n');
        tn_pg_end(&c->out, at);
        return 0;
    }
    uint32_t n = tn_sql_result_ncols(r);
    const char **names = tn_calloc(n + 1, sizeof *names);
    tn_type *types = tn_calloc(n + 1, sizeof *types);
    if (names && types) {
        for (uint32_t i = 0; i < n; i++) {
            names[i] = tn_sql_result_name(r, i);
            types[i] = tn_sql_result_type(r, i);
        }
        tn_pg_conn_row_description(c, n, names, types, NULL, 0);
    } else {
        rc = TN_ENOMEM;
    }
    tn_free(names);
    tn_free(types);
    tn_sql_result_free(r);
    return rc;
}

static int on_describe(tn_pg_conn *c, const uint8_t *body, uint32_t len) {
    tn_pg_target t;
    int rc = tn_pg_decode_target("Describe message", body, len, &t);
    if (rc) return rc;
    const char *sql = NULL;
    if (t.kind == 'S') {
        tn_pg_stmt *s = find_stmt(c, t.name);
        if (!s) return ext_fail(c, "26000", "prepared statement \"%s\" does not exist", t.name);
        size_t at = tn_pg_begin(&c->out, 't');
        tn_pg_put_i16(&c->out, (int16_t)s->nparams);
        for (uint32_t i = 0; i < s->nparams; i++) {
            const tn_pg_type_info *ti = s->oids[i] ? tn_pg_type_by_oid(s->oids[i]) : NULL;
            tn_pg_put_i32(&c->out, (int32_t)(s->oids[i] ? s->oids[i] : 25));
            (void)ti;
        }
        tn_pg_end(&c->out, at);
        sql = s->sql;
        rc = describe_rows(c, s, NULL);
    } else {
        tn_pg_portal *p = find_portal(c, t.name);
        if (!p && t.name[0] && tn_pg_cursor_describe(c, t.name) == 0) return 0;   /* DECLAREd cursor */
        if (!p) return ext_fail(c, "34000", "portal \"%s\" does not exist", t.name);
        sql = p->stmt->sql;
        rc = describe_rows(c, p->stmt, p);
    }
    if (rc == 1) return 0;
    if (rc && rc != TN_ENOMEM) return ext_sql_fail(c, rc, sql);
    return rc;
}

static int execute_portal(tn_pg_conn *c, tn_pg_portal *p, int64_t max_rows) {
    int rc;
    tn_pg_stmt *s = p->stmt;
    if (c->txn == 'E' && !(s->cmd.kind == TN_PG_CMD_COMMIT || s->cmd.kind == TN_PG_CMD_ROLLBACK))
        return ext_fail(c, "25P02", "current transaction is aborted, commands ignored until end of transaction block%s", "");
    if (s->cmd.kind == TN_PG_CMD_EMPTY) {
        size_t at = tn_pg_begin(&c->out, 'I');
        tn_pg_end(&c->out, at);
        return 0;
    }
    if (s->cmd.kind != TN_PG_CMD_NONE) {
        char tag[64];
        c->cur_formats = p->formats;
        c->cur_nformats = p->nformats;
        c->cur_params = p->params;
        c->cur_nparams = p->nparams;
        rc = tn_pg_conn_command(c, &s->cmd, false, true, tag, sizeof tag);
        c->cur_formats = NULL;
        c->cur_nformats = 0;
        c->cur_params = NULL;
        c->cur_nparams = 0;
        if (rc) return ext_sql_fail(c, rc, NULL);
        tn_pg_conn_complete(c, tag);
        return 0;
    }
    if (p->completed) {
        /* executing a completed portal again yields no more rows */
        tn_pg_conn_complete(c, p->tag);
        return 0;
    }
    if (!p->started && portal_start(c, p)) return 0;
    if (!p->cur.res) {
        p->completed = true;
        tn_pg_conn_complete(c, p->tag);
        return 0;
    }
    tn_pg_conn_begin_statement(c);
    bool more = false;
    rc = tn_pg_conn_send_rows(c, &p->cur, max_rows, &more);
    tn_pg_conn_end_statement(c);
    if (rc) {
        if (c->dead) return TN_PG_EOF;
        tn_sql_result_free(p->cur.res);
        p->cur.res = NULL;
        p->completed = true;
        snprintf(p->tag, sizeof p->tag, "SELECT 0");
        return ext_sql_fail(c, rc, s->sql);
    }
    if (more) {
        size_t at = tn_pg_begin(&c->out, 's');               /* PortalSuspended */
        tn_pg_end(&c->out, at);
        return 0;
    }
    tn_pg_conn_tag(tn_sql_script_stmt(s->script, 0), p->cur.res, p->cur.sent, p->tag, sizeof p->tag);
    tn_sql_result_free(p->cur.res);
    p->cur.res = NULL;
    p->completed = true;
    tn_pg_conn_complete(c, p->tag);
    return 0;
}

static int on_execute(tn_pg_conn *c, const uint8_t *body, uint32_t len) {
    tn_pg_execute m;
    int rc = tn_pg_decode_execute(body, len, &m);
    if (rc) return rc;
    tn_pg_portal *p = find_portal(c, m.portal);
    if (!p) return ext_fail(c, "34000", "portal \"%s\" does not exist", m.portal);
    c->exec_portal = p;                /* DISCARD ALL keeps it (drop_portals) */
    rc = execute_portal(c, p, m.max_rows);
    c->exec_portal = NULL;
    return rc;
}

static int on_close(tn_pg_conn *c, const uint8_t *body, uint32_t len) {
    tn_pg_target t;
    int rc = tn_pg_decode_target("Close message", body, len, &t);
    if (rc) return rc;
    if (t.kind == 'S') remove_stmt(c, t.name);       /* closing what does not exist is not an error */
    else remove_portal(c, t.name);
    size_t at = tn_pg_begin(&c->out, '3');
    tn_pg_end(&c->out, at);
    return 0;
}

int tn_pg_conn_extended(tn_pg_conn *c, uint8_t type, const uint8_t *body, uint32_t len) {
    int rc = 0;
    if (type == 'S') {
        if ((rc = tn_pg_decode_empty("Sync message", len))) goto protocol;
        c->ext_error = false;
        if (c->txn == 'I') drop_portals(c);               /* the implicit transaction ends */
        size_t at = tn_pg_begin(&c->out, 'Z');
        tn_pg_put_i8(&c->out, (uint8_t)c->txn);
        tn_pg_end(&c->out, at);
        return tn_pg_conn_flush(c) ? TN_PG_EOF : 0;
    }
    if (type == 'H') {
        if ((rc = tn_pg_decode_empty("Flush message", len))) goto protocol;
        return tn_pg_conn_flush(c) ? TN_PG_EOF : 0;
    }
    if (c->ext_error) return 0;                           /* skipped until Sync */
    switch (type) {
    case 'P': rc = on_parse(c, body, len); break;
    case 'B': rc = on_bind(c, body, len); break;
    case 'D': rc = on_describe(c, body, len); break;
    case 'E': rc = on_execute(c, body, len); break;
    case 'C': rc = on_close(c, body, len); break;
    default: rc = TN_ECORRUPT;
    }
    if (rc == TN_PG_EOF) return rc;
    if (rc == TN_ECORRUPT) goto protocol;
    if (rc) {
        ext_sql_fail(c, rc, NULL);
        return 0;
    }
    if (c->out.buf.len >= 256 * 1024 && tn_pg_conn_flush(c)) return TN_PG_EOF;
    return 0;
protocol:
    tn_pg_conn_error(c, "FATAL", "08P01", "%s", tn_error_message());
    return TN_PG_EOF;
}
