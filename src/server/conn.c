/*
 * server/conn.c: one client connection from accept to close, on its own thread: the startup
 * packet (SSLRequest: TLS in tls.c when configured, else 'N'; GSSENCRequest 'N'; CancelRequest
 * handed to the server), SCRAM
 * or trust authentication, the session (a tarn SQL session of its own, settings, prepared
 * statements, portals, transaction status), and the simple and extended query protocols.
 * Result rows are encoded straight from tarn's chunks and sent as they come (streaming results
 * stay bounded in memory). COPY lives in copy.c. Owns no global state: the server (server.c)
 * keeps the registry used by cancel requests and statement timeouts.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/connInt.h"

/* ---------------------------------------------------------------------------------------------
 * I/O.
 */
int tn_pg_conn_flush(tn_pg_conn *c) {
    if (c->out.err) return c->out.err;
    size_t off = 0;
    while (off < c->out.buf.len) {
        ssize_t n = tn_pg_io_send(c, c->out.buf.data + off, c->out.buf.len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            c->dead = true;
            return tn_error_set(TN_EIO, "connection to %s lost while sending: %s", c->peer,
                                n < 0 ? strerror(errno) : "closed");
        }
        off += (size_t)n;
    }
    tn_buf_clear(&c->out.buf);
    return 0;
}

/* Reads exactly n bytes. waiting: between messages (idle timeout and shutdown apply). */
static int conn_read(tn_pg_conn *c, void *dst, size_t n, bool waiting) {
    uint8_t *d = dst;
    int64_t idle_start = (int64_t)tn_time_ns();
    while (n) {
        if (c->rpos < c->rlen) {
            size_t k = c->rlen - c->rpos < n ? c->rlen - c->rpos : n;
            memcpy(d, c->rbuf + c->rpos, k);
            c->rpos += k;
            d += k;
            n -= k;
            continue;
        }
        /* Without TLS a blocking recv(2) whose SO_RCVTIMEO (set at accept) wakes it every
         * QUIET_MS: one system call per message batch instead of poll(2) + recv(2). TLS may hold
         * decrypted bytes that poll(2) cannot see, and SSL_read must not time out mid-record. */
        int pr = 1;
        if (c->ssl && !tn_pg_io_pending(c)) {
            struct pollfd p = {c->fd, POLLIN, 0};
            pr = poll(&p, 1, TN_PG_QUIET_MS);
        }
        if (pr < 0 && errno == EINTR) continue;
        ssize_t r = pr == 0 ? -1 : tn_pg_io_recv(c, c->rbuf, sizeof c->rbuf);
        if (pr == 0 || (r < 0 && !c->ssl && (errno == EAGAIN || errno == EWOULDBLOCK))) {
            if (tn_pg_server_stopping(c->srv)) return TN_PG_STOP;
            int idle = tn_pg_server_opts(c->srv)->idle_timeout_s;
            if (waiting && idle > 0 && (int64_t)tn_time_ns() - idle_start > (int64_t)idle * 1000000000)
                return TN_PG_IDLE;
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            c->dead = true;
            return TN_PG_EOF;
        }
        c->rpos = 0;
        c->rlen = (size_t)r;
    }
    return 0;
}

static uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

int tn_pg_conn_read_message(tn_pg_conn *c, uint8_t *type, const uint8_t **body, uint32_t *len) {
    uint8_t h[5];
    int rc = conn_read(c, h, 1, true);
    if (!rc) rc = conn_read(c, h + 1, 4, false);
    if (rc) return rc;
    uint32_t n;
    rc = tn_pg_frame_check(h[0], (int32_t)be32(h + 1), c->max_message, &n);
    if (rc) return rc;
    if (n > c->msg_cap) {
        uint8_t *m = tn_realloc(c->msg, n);
        if (!m) return TN_ENOMEM;
        c->msg = m;
        c->msg_cap = n;
    }
    if (n && (rc = conn_read(c, c->msg, n, false))) return rc;
    *type = h[0];
    *body = c->msg;
    *len = n;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Backend messages of the session.
 */
void tn_pg_conn_error(tn_pg_conn *c, const char *severity, const char *sqlstate, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tn_pg_put_error(&c->out, 'E', severity, sqlstate, msg, NULL, NULL, 0);
    tn_pg_server_log(c->srv, "%s %s: %s: %s", c->peer, c->user, sqlstate, msg);
}

void tn_pg_conn_notice(tn_pg_conn *c, const char *severity, const char *fmt, ...) {
    const char *min = tn_pg_setting_get(&c->settings, "client_min_messages", NULL);
    if (min && strcmp(min, "error") == 0) return;
    if (min && strcmp(min, "warning") == 0 && strcmp(severity, "WARNING") != 0) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tn_pg_put_error(&c->out, 'N', severity, strcmp(severity, "WARNING") == 0 ? "01000" : "00000", msg, NULL, NULL, 0);
}

/* The message of tarn's last error as PostgreSQL shows it: the first line without the
 * DuckDB error class and the position (which goes in its own field). */
static void split_message(const char *m, char *out, size_t cap) {
    m += tn_error_class_len(m);   /* PostgreSQL has no "Binder Error: " class */
    const char *p = m;
    const char *colon = strstr(m, ": ");
    const char *nl = strchr(m, '\n');
    if (colon && (!nl || colon < nl) && strstr(m, " at line ") && strstr(m, " at line ") < colon) p = colon + 2;
    size_t n = nl && nl > p ? (size_t)(nl - p) : strlen(p);
    if (n >= cap) n = cap - 1;
    memcpy(out, p, n);
    out[n] = 0;
}

/* 1-based character position in the Query text of byte offset off of the piece at base. */
static uint32_t char_position(const char *text, size_t base, uint32_t off) {
    uint32_t chars = 0;
    for (size_t i = 0; i < base + off && text[i]; i++)
        if (((uint8_t)text[i] & 0xc0) != 0x80) chars++;
    return chars + 1;
}

void tn_pg_conn_sql_error(tn_pg_conn *c, int rc, const char *text, size_t base, bool has_pos) {
    const char *m = tn_error_message();
    char msg[2048];
    split_message(m && *m ? m : tn_error_code_name(rc), msg, sizeof msg);
    const char *state = tn_pg_sqlstate(rc, msg);
    if (rc == TN_EINTERRUPT) {
        bool timed_out = __atomic_exchange_n(&c->backend->timed_out, 0, __ATOMIC_ACQ_REL);
        snprintf(msg, sizeof msg, "canceling statement due to %s", timed_out ? "statement timeout" : "user request");
    }
    uint32_t pos = 0;
    if (has_pos && text) {
        tn_sql_pos p = tn_sql_error_pos();
        if (p.line) pos = char_position(text, base, p.offset);
    }
    tn_pg_put_error(&c->out, 'E', "ERROR", state, msg, NULL, NULL, pos);
    tn_pg_server_log(c->srv, "%s %s: statement failed: %s: %s", c->peer, c->user, state, msg);
    if (c->txn == 'T') c->txn = 'E';
}

static void put_ready(tn_pg_conn *c) {
    size_t at = tn_pg_begin(&c->out, 'Z');
    tn_pg_put_i8(&c->out, (uint8_t)c->txn);
    tn_pg_end(&c->out, at);
}

void tn_pg_conn_complete(tn_pg_conn *c, const char *tag) {
    size_t at = tn_pg_begin(&c->out, 'C');
    tn_pg_put_cstr(&c->out, tag);
    tn_pg_end(&c->out, at);
}

static void put_parameter_status(tn_pg_conn *c, const char *name, const char *value) {
    size_t at = tn_pg_begin(&c->out, 'S');
    tn_pg_put_cstr(&c->out, tn_pg_setting_wire_name(name));
    tn_pg_put_cstr(&c->out, value);
    tn_pg_end(&c->out, at);
}

static void put_empty(tn_pg_conn *c, uint8_t type) {
    size_t at = tn_pg_begin(&c->out, type);
    tn_pg_end(&c->out, at);
}

/* RowDescription of a result (formats: the Bind's result codes, or NULL = text). */
void tn_pg_conn_row_description(tn_pg_conn *c, uint32_t ncols, const char *const *names, const tn_type *types,
                                const uint8_t *formats, uint16_t nformats) {
    size_t at = tn_pg_begin(&c->out, 'T');
    tn_pg_put_i16(&c->out, (int16_t)ncols);
    for (uint32_t i = 0; i < ncols; i++) {
        const tn_pg_type_info *ti = tn_pg_type_of(types[i]);
        tn_pg_put_cstr(&c->out, names[i]);
        tn_pg_put_i32(&c->out, 0);                  /* table oid */
        tn_pg_put_i16(&c->out, 0);                  /* column number */
        tn_pg_put_i32(&c->out, (int32_t)ti->oid);
        tn_pg_put_i16(&c->out, ti->typlen);
        tn_pg_put_i32(&c->out, tn_pg_typmod(types[i]));
        tn_pg_put_i16(&c->out, (int16_t)tn_pg_format_at(formats, nformats, i));
    }
    tn_pg_end(&c->out, at);
}

static int result_row_description(tn_pg_conn *c, tn_sql_result *r, const uint8_t *formats, uint16_t nformats) {
    uint32_t n = tn_sql_result_ncols(r);
    const char **names = tn_calloc(n + 1, sizeof *names);
    tn_type *types = tn_calloc(n + 1, sizeof *types);
    if (!names || !types) {
        tn_free(names);
        tn_free(types);
        return TN_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        names[i] = tn_sql_result_name(r, i);
        types[i] = tn_sql_result_type(r, i);
    }
    tn_pg_conn_row_description(c, n, names, types, formats, nformats);
    tn_free(names);
    tn_free(types);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Running statements: timeouts, tags, rows.
 */
void tn_pg_conn_begin_statement(tn_pg_conn *c) {
    int64_t ms = c->settings.statement_timeout_ms;
    __atomic_store_n(&c->backend->timed_out, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&c->backend->deadline_ns, ms > 0 ? (int64_t)tn_time_ns() + ms * 1000000 : 0, __ATOMIC_RELEASE);
    __atomic_store_n(&c->backend->running, 1, __ATOMIC_RELEASE);
}

void tn_pg_conn_end_statement(tn_pg_conn *c) {
    __atomic_store_n(&c->backend->deadline_ns, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&c->backend->running, 0, __ATOMIC_RELEASE);
}

static bool writes(tn_sql_stmt_kind k, const tn_sql_stmt *st) {
    switch (k) {
    case TN_SQL_S_QUERY: case TN_SQL_S_DESCRIBE: case TN_SQL_S_SHOW: case TN_SQL_S_SET:
    case TN_SQL_S_TRANSACTION: case TN_SQL_S_CHECKPOINT: return false;
    case TN_SQL_S_EXPLAIN: return st->u.explain.analyze && writes(st->u.explain.stmt->kind, st->u.explain.stmt);
    case TN_SQL_S_COPY: return !st->u.copy.to;
    default: return true;
    }
}

/* Refuses what the server must not run: writes under --read-only, file access. */
int tn_pg_conn_check_statement(tn_pg_conn *c, const tn_sql_stmt *st) {
    if (tn_pg_server_opts(c->srv)->read_only && writes(st->kind, st))
        return tn_error_set(TN_PG_EREADONLY, "cannot run this statement: the server runs --read-only");
    return 0;
}

static int64_t status_count(tn_sql_result *r) {
    const tn_chunk *ch = NULL;
    if (tn_sql_result_ncols(r) != 1 || tn_sql_result_type(r, 0).id != TN_TYPE_BIGINT) return -1;
    if (tn_sql_result_fetch(r, &ch) || !ch || ch->count < 1) return -1;
    if (!tn_vector_is_valid(&ch->cols[0], 0)) return -1;
    return ((const int64_t *)ch->cols[0].data)[0];
}

void tn_pg_conn_tag(const tn_sql_stmt *st, tn_sql_result *r, int64_t rows, char *tag, size_t cap) {
    int64_t n;
    switch (st->kind) {
    case TN_SQL_S_QUERY: case TN_SQL_S_DESCRIBE: case TN_SQL_S_SHOW:
        snprintf(tag, cap, "SELECT %lld", (long long)rows);
        return;
    case TN_SQL_S_EXPLAIN: snprintf(tag, cap, "EXPLAIN"); return;
    case TN_SQL_S_INSERT:
        n = r ? status_count(r) : -1;
        snprintf(tag, cap, "INSERT 0 %lld", (long long)(n < 0 ? 0 : n));
        return;
    case TN_SQL_S_DELETE:
    case TN_SQL_S_UPDATE:
    case TN_SQL_S_MERGE:
        n = r ? status_count(r) : -1;
        snprintf(tag, cap, "%s %lld", st->kind == TN_SQL_S_DELETE ? "DELETE" : st->kind == TN_SQL_S_UPDATE ? "UPDATE" : "MERGE",
                 (long long)(n < 0 ? 0 : n));
        return;
    case TN_SQL_S_COPY:
        n = r ? status_count(r) : -1;
        snprintf(tag, cap, "COPY %lld", (long long)(n < 0 ? rows : n));
        return;
    case TN_SQL_S_CREATE_TABLE: snprintf(tag, cap, "CREATE TABLE"); return;
    case TN_SQL_S_CREATE_VIEW: snprintf(tag, cap, "CREATE VIEW"); return;
    case TN_SQL_S_CREATE_SCHEMA: snprintf(tag, cap, "CREATE SCHEMA"); return;
    case TN_SQL_S_DROP:
        snprintf(tag, cap, "DROP %s", st->u.drop.object == TN_SQL_OBJ_VIEW ? "VIEW"
                                      : st->u.drop.object == TN_SQL_OBJ_SCHEMA ? "SCHEMA" : "TABLE");
        return;
    case TN_SQL_S_ALTER_TABLE: snprintf(tag, cap, "ALTER TABLE"); return;
    case TN_SQL_S_OPTIMIZE: snprintf(tag, cap, "OPTIMIZE"); return;
    case TN_SQL_S_VACUUM: snprintf(tag, cap, "VACUUM"); return;
    case TN_SQL_S_SET: snprintf(tag, cap, "SET"); return;
    case TN_SQL_S_CHECKPOINT: snprintf(tag, cap, "CHECKPOINT"); return;
    case TN_SQL_S_TRANSACTION:
        snprintf(tag, cap, "%s", st->u.txn == TN_SQL_TXN_BEGIN ? "BEGIN" : st->u.txn == TN_SQL_TXN_COMMIT ? "COMMIT" : "ROLLBACK");
        return;
    /* the SQL-level statements of sql/ (not the protocol's Parse/Bind/Execute) */
    case TN_SQL_S_PREPARE: snprintf(tag, cap, "PREPARE"); return;
    case TN_SQL_S_EXECUTE: snprintf(tag, cap, "SELECT %lld", (long long)rows); return;
    case TN_SQL_S_DEALLOCATE: snprintf(tag, cap, st->u.deallocate.all ? "DEALLOCATE ALL" : "DEALLOCATE"); return;
    case TN_SQL_S_CREATE_SEQUENCE: snprintf(tag, cap, "CREATE SEQUENCE"); return;
    case TN_SQL_S_CREATE_MACRO: snprintf(tag, cap, "CREATE MACRO"); return;
    }
    snprintf(tag, cap, "OK");
}

/* Sends up to max_rows (0 = all) DataRows from cursor; *more when rows remain. */
int tn_pg_conn_send_rows(tn_pg_conn *c, tn_pg_cursor *cur, int64_t max_rows, bool *more) {
    *more = false;
    int64_t sent = 0;
    int rc = 0;
    bool fmt_set = false;
    for (;;) {
        if (!cur->chunk || cur->row >= cur->chunk->count) {
            cur->chunk = NULL;
            cur->row = 0;
            if (cur->done) break;
            rc = tn_sql_result_fetch(cur->res, &cur->chunk);
            if (rc) return rc;
            if (!cur->chunk) {
                cur->done = true;
                break;
            }
            continue;
        }
        if (max_rows > 0 && sent == max_rows) {
            *more = true;
            break;
        }
        const tn_chunk *ch = cur->chunk;
        uint32_t row = cur->row++;
        if (row == 0 || !fmt_set) {     /* the formats may change between calls (FETCH of a cursor) */
            if (ch->ncols > TN_PG_ROW_FORMATS)
                return tn_error_set(TN_ELIMIT, "a result of %u columns (at most %d)", ch->ncols, TN_PG_ROW_FORMATS);
            for (uint32_t k = 0; k < ch->ncols; k++) cur->fmt[k] = (uint8_t)tn_pg_format_at(cur->formats, cur->nformats, k);
            fmt_set = true;
        }
        /* DataRow: 'D', int32 length, int16 ncols, (int32 len (-1 NULL), bytes)[ncols] */
        if (tn_buf_reserve(&c->out.buf, 7)) return c->out.err = TN_ENOMEM;
        size_t at = c->out.buf.len;
        uint8_t *h = c->out.buf.data + at;
        h[0] = 'D';
        h[5] = (uint8_t)(ch->ncols >> 8);
        h[6] = (uint8_t)ch->ncols;
        c->out.buf.len += 7;
        for (uint32_t k = 0; k < ch->ncols && !c->out.err; k++) {
            const tn_vector *v = &ch->cols[k];
            if (tn_buf_reserve(&c->out.buf, 4)) {
                c->out.err = TN_ENOMEM;
                break;
            }
            size_t lat = c->out.buf.len;
            c->out.buf.len += 4;
            int32_t vl = -1;
            if (v->type.id != TN_TYPE_NULL && tn_vector_is_valid(v, row)) {
                int erc = tn_pg_encode_value(&c->out.buf, v, row, cur->fmt[k], c->settings.extra_float_digits);
                if (erc) {
                    c->out.err = erc;
                    break;
                }
                vl = (int32_t)(c->out.buf.len - lat - 4);
            }
            uint8_t *p = c->out.buf.data + lat;
            p[0] = (uint8_t)((uint32_t)vl >> 24);
            p[1] = (uint8_t)((uint32_t)vl >> 16);
            p[2] = (uint8_t)((uint32_t)vl >> 8);
            p[3] = (uint8_t)vl;
        }
        tn_pg_end(&c->out, at);
        if (c->out.err) return c->out.err;
        sent++;
        cur->sent++;
        if (c->out.buf.len >= 256 * 1024 && (rc = tn_pg_conn_flush(c))) return rc;
    }
    return tn_sql_result_error(cur->res);
}

/* ---------------------------------------------------------------------------------------------
 * Session commands (commands.c recognizes them).
 */
static void report_all(tn_pg_conn *c) {
    for (int i = 0; i < tn_pg_setting_count(); i++) {
        const char *name, *value, *desc;
        bool report;
        tn_pg_setting_at(&c->settings, i, &name, &value, &desc, &report);
        if (report) put_parameter_status(c, name, value);
    }
}

/* Runs a session command; the caller has checked that it is one. On success the tag is in
 * tag (and SHOW's rows were sent when send_rows). Errors: code, message set. */
int tn_pg_conn_command(tn_pg_conn *c, const tn_pg_cmd *cmd, bool describe_rows, bool send_rows, char *tag,
                       size_t cap) {
    bool reported = false;
    int rc = 0;
    switch (cmd->kind) {
    case TN_PG_CMD_BEGIN:
        if (cmd->read_only) return tn_error_set(TN_EUNSUPPORTED, "BEGIN READ ONLY is not supported (start the server with --read-only)");
        if (c->txn == 'T') tn_pg_conn_notice(c, "WARNING", "there is already a transaction in progress");
        c->txn = 'T';
        c->txn_writes = 0;
        snprintf(tag, cap, "BEGIN");
        return 0;
    case TN_PG_CMD_COMMIT:
        if (c->txn == 'I') tn_pg_conn_notice(c, "WARNING", "there is no transaction in progress");
        snprintf(tag, cap, c->txn == 'E' ? "ROLLBACK" : "COMMIT");
        c->txn = 'I';
        tn_pg_cursors_close(c, false);           /* cursors WITHOUT HOLD end with the block */
        return 0;
    case TN_PG_CMD_ROLLBACK:
        if (c->txn == 'I') tn_pg_conn_notice(c, "WARNING", "there is no transaction in progress");
        else if (c->txn_writes)
            tn_pg_conn_notice(c, "WARNING",
                              "ROLLBACK cannot undo the %d statement(s) of this block that wrote: each statement commits on its own",
                              c->txn_writes);
        c->txn = 'I';
        tn_pg_cursors_close(c, false);
        snprintf(tag, cap, "ROLLBACK");
        return 0;
    case TN_PG_CMD_SET:
        if (cmd->local) return tn_error_set(TN_EUNSUPPORTED, "SET LOCAL is not supported (statements commit on their own): use SET");
        rc = tn_pg_setting_set(&c->settings, cmd->name, cmd->value, &reported);
        if (rc) return rc;
        if (reported) {
            const char *canon = NULL;
            const char *v = tn_pg_setting_get(&c->settings, cmd->name, &canon);
            put_parameter_status(c, canon, v);
        }
        snprintf(tag, cap, "SET");
        return 0;
    case TN_PG_CMD_RESET:
        rc = tn_pg_setting_reset(&c->settings, cmd->name, &reported);
        if (rc) return rc;
        if (reported) report_all(c);
        snprintf(tag, cap, strcmp(cmd->name, "all") == 0 || true ? "RESET" : "SET");
        return 0;
    case TN_PG_CMD_SET_TXN:
        snprintf(tag, cap, "SET");
        return 0;
    case TN_PG_CMD_DISCARD: {
        bool all = strcmp(cmd->name, "all") == 0;      /* cmd may be a statement DISCARD drops */
        if (all && c->txn != 'I') return tn_error_set(TN_EINVAL, "DISCARD ALL cannot run inside a transaction block");
        if (all) {
            tn_pg_conn_drop_all(c);
            tn_pg_cursors_close(c, true);
            rc = tn_pg_setting_reset(&c->settings, "all", &reported);
            if (rc) return rc;
            report_all(c);
        }
        snprintf(tag, cap, "DISCARD %s", all ? "ALL" : "PLANS");
        return 0;
    }
    case TN_PG_CMD_DEALLOCATE: {
        bool all = strcmp(cmd->name, "all") == 0;
        if (all) tn_pg_conn_drop_statements(c);        /* portals keep theirs, as in PostgreSQL */
        else if (tn_pg_conn_close_statement(c, cmd->name))
            return tn_error_set(TN_PG_ENOSTMT, "prepared statement \"%s\" does not exist", cmd->name);
        snprintf(tag, cap, "DEALLOCATE%s", all ? " ALL" : "");
        return 0;
    }
    case TN_PG_CMD_SHOW: {
        static const char *const all_names[] = {"name", "setting", "description"};
        tn_type t[3] = {tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_VARCHAR)};
        bool all = strcmp(cmd->name, "all") == 0;
        const char *canon = cmd->name;
        const char *v = all ? NULL : tn_pg_setting_get(&c->settings, cmd->name, &canon);
        const char *one_name[1] = {canon};
        if (describe_rows) tn_pg_conn_row_description(c, all ? 3 : 1, all ? all_names : one_name, t, c->cur_formats, c->cur_nformats);
        if (send_rows) {
            int n = all ? tn_pg_setting_count() : 1;
            for (int i = 0; i < n; i++) {
                const char *name = canon, *value = v, *desc = NULL;
                bool rep;
                if (all) tn_pg_setting_at(&c->settings, i, &name, &value, &desc, &rep);
                const char *cols[3] = {all ? name : value, value, desc};
                size_t at = tn_pg_begin(&c->out, 'D');
                tn_pg_put_i16(&c->out, (int16_t)(all ? 3 : 1));
                for (int k = 0; k < (all ? 3 : 1); k++) {
                    tn_pg_put_i32(&c->out, (int32_t)strlen(cols[k]));
                    tn_pg_put_bytes(&c->out, cols[k], strlen(cols[k]));
                }
                tn_pg_end(&c->out, at);
            }
            snprintf(tag, cap, "SHOW");
        }
        return 0;
    }
    case TN_PG_CMD_DECLARE: case TN_PG_CMD_FETCH: case TN_PG_CMD_CLOSE:
        return tn_pg_cursor_command(c, cmd, describe_rows, send_rows, tag, cap);
    case TN_PG_CMD_UNSUPPORTED:
        return tn_error_set(TN_EUNSUPPORTED, "%s is not supported yet by tarn's server", cmd->name);
    case TN_PG_CMD_BAD:
        return tn_error_set(TN_ESYNTAX, "syntax error in SET %s: expected a value ('text', a word or a number)", cmd->name);
    default:
        return tn_error_set(TN_EINTERNAL, "not a session command");
    }
}

/* ---------------------------------------------------------------------------------------------
 * Simple query protocol.
 */
static bool aborted_block(tn_pg_conn *c, const tn_pg_cmd *cmd) {
    if (c->txn != 'E' || cmd->kind == TN_PG_CMD_COMMIT || cmd->kind == TN_PG_CMD_ROLLBACK) return false;
    tn_pg_put_error(&c->out, 'E', "ERROR", "25P02",
                    "current transaction is aborted, commands ignored until end of transaction block", NULL, NULL, 0);
    return true;
}

/* One tarn statement of a Query message (piece [start, end) of text). false after an error. */
static bool simple_tarn(tn_pg_conn *c, const char *text, size_t start, size_t end) {
    tn_sql_script *sc = NULL;
    int rc = tn_sql_script_parse(&sc, c->session, text + start, end - start);
    if (rc) {
        tn_pg_conn_sql_error(c, rc, text, start, true);
        return false;
    }
    bool ok = true;
    for (uint32_t i = 0; ok && i < tn_sql_script_count(sc); i++) {
        const tn_sql_stmt *st = tn_sql_script_stmt(sc, i);
        if (st->kind == TN_SQL_S_COPY && tn_pg_copy_is_stdio(st)) {
            ok = tn_pg_copy_run(c, sc, i, text, start) == 0;
            continue;
        }
        if ((rc = tn_pg_conn_check_statement(c, st))) {
            tn_pg_conn_sql_error(c, rc, text, start, false);
            ok = false;
            break;
        }
        if (tn_pg_server_opts(c->srv)->log_queries)
            tn_pg_server_log(c->srv, "%s %s: query: %.*s", c->peer, c->user, (int)(end - start), text + start);
        tn_pg_conn_begin_statement(c);
        tn_sql_result *r = NULL;
        rc = tn_sql_script_execute_stream(&r, sc, i, NULL, 0);
        if (!rc && tn_sql_result_has_rows(r)) {
            rc = result_row_description(c, r, NULL, 0);
            tn_pg_cursor cur = {.res = r};
            bool more;
            if (!rc) rc = tn_pg_conn_send_rows(c, &cur, 0, &more);
            char tag[64];
            if (!rc) {
                tn_pg_conn_tag(st, r, cur.sent, tag, sizeof tag);
                tn_pg_conn_complete(c, tag);
            }
        } else if (!rc) {
            char tag[64];
            tn_pg_conn_tag(st, r, 0, tag, sizeof tag);
            tn_pg_conn_complete(c, tag);
            if (writes(st->kind, st) && c->txn == 'T') c->txn_writes++;
        }
        tn_sql_result_free(r);
        tn_pg_conn_end_statement(c);
        if (rc) {
            tn_pg_conn_sql_error(c, rc, text, start, true);
            ok = false;
        }
    }
    tn_sql_script_free(sc);
    return ok;
}

static int simple_query(tn_pg_conn *c, const char *sql, uint32_t len) {
    size_t pos = 0, start, end;
    bool any = false;
    c->cur_formats = NULL;
    c->cur_nformats = 0;
    while (tn_pg_split_next(sql, len, &pos, &start, &end)) {
        any = true;
        tn_pg_cmd cmd;
        tn_pg_classify(sql + start, end - start, &cmd);
        bool ok = true;
        if (cmd.kind == TN_PG_CMD_EMPTY) {
            tn_pg_cmd_free(&cmd);
            continue;
        }
        if (aborted_block(c, &cmd)) {
            ok = false;
        } else if (cmd.kind != TN_PG_CMD_NONE) {
            char tag[64];
            int rc = tn_pg_conn_command(c, &cmd, true, true, tag, sizeof tag);
            if (rc) {
                tn_pg_conn_sql_error(c, rc, sql, start, false);
                ok = false;
            } else {
                tn_pg_conn_complete(c, tag);
            }
        } else {
            char *rw = NULL;           /* psql's catalog queries tarn answers another way (compat.c) */
            const char *what = NULL;
            if (tn_pg_compat_rewrite(sql + start, end - start, &rw, &what)) {
                if (tn_pg_server_opts(c->srv)->log_queries) tn_pg_server_log(c->srv, "%s: answered as %s", c->peer, what);
                ok = simple_tarn(c, rw, 0, strlen(rw));
                tn_free(rw);
            } else {
                ok = simple_tarn(c, sql, start, end);
            }
        }
        tn_pg_cmd_free(&cmd);
        if (!ok || c->dead) break;
    }
    if (!any) put_empty(c, 'I');
    put_ready(c);
    return tn_pg_conn_flush(c);
}

/* ---------------------------------------------------------------------------------------------
 * Startup and authentication.
 */
/* pg_catalog.pg_settings rows: this connection's parameters (sql/pg_catalog.c asks). */
static bool pg_settings_row(void *ctx, int i, const char **name, const char **value, const char **desc) {
    if (i < 0 || i >= tn_pg_setting_count()) return false;
    bool report;
    tn_pg_setting_at((const tn_pg_settings *)ctx, i, name, value, desc, &report);
    return true;
}

static int read_startup(tn_pg_conn *c, tn_pg_startup *st) {
    for (;;) {
        uint8_t h[4];
        int rc = conn_read(c, h, 4, true);
        if (rc) return rc;
        uint32_t len = be32(h);
        if (len < 8 || len > TN_PG_STARTUP_MAX) {
            tn_pg_conn_error(c, "FATAL", "08P01", "invalid length of startup packet: %u bytes (8 to %u expected)", len,
                             TN_PG_STARTUP_MAX);
            return TN_PG_EOF;
        }
        if (len - 4 > c->msg_cap) {
            uint8_t *m = tn_realloc(c->msg, len);
            if (!m) return TN_ENOMEM;
            c->msg = m;
            c->msg_cap = len;
        }
        if ((rc = conn_read(c, c->msg, len - 4, false))) return rc;
        rc = tn_pg_decode_startup(c->msg, len - 4, st);
        if (rc) {
            tn_pg_conn_error(c, "FATAL", rc == TN_EUNSUPPORTED ? "0A000" : "08P01", "%s", tn_error_message());
            return TN_PG_EOF;
        }
        if (st->kind == TN_PG_SSL || st->kind == TN_PG_GSSENC) {
            /* TLS when configured ('S', then the handshake); no GSSAPI encryption. 'N': the
             * client goes on in the clear (or gives up, as its sslmode says). */
            SSL_CTX *tls = st->kind == TN_PG_SSL && !c->ssl ? tn_pg_server_tls(c->srv) : NULL;
            uint8_t n = tls ? 'S' : 'N';
            if (send(c->fd, &n, 1, MSG_NOSIGNAL) != 1) return TN_PG_EOF;
            if (!tls) continue;
            if (c->rpos < c->rlen) {
                /* bytes sent after the SSLRequest before the handshake could be injected by a
                 * man in the middle (CVE-2021-23214): refused, as PostgreSQL does */
                tn_pg_server_log(c->srv, "%s: unencrypted data after SSLRequest: connection closed", c->peer);
                c->dead = true;
                return TN_PG_EOF;
            }
            if ((rc = tn_pg_tls_accept(c, tls))) {
                c->dead = true;
                return rc;
            }
            continue;
        }
        if (st->kind != TN_PG_CANCEL && !c->ssl && tn_pg_server_opts(c->srv)->require_tls) {
            tn_pg_conn_error(c, "FATAL", "28000",
                             "connection without TLS refused: the server was started with --require-tls "
                             "(connect with sslmode=require)");
            return TN_PG_EOF;
        }
        return 0;
    }
}

static int expect_password_message(tn_pg_conn *c, const uint8_t **body, uint32_t *len) {
    uint8_t type;
    int rc = tn_pg_conn_read_message(c, &type, body, len);
    if (rc) return rc;
    if (type != 'p') {
        tn_pg_conn_error(c, "FATAL", "08P01", "expected a password message, got message type '%c'",
                         type >= 32 && type < 127 ? type : '?');
        return TN_PG_EOF;
    }
    return 0;
}

static void put_auth(tn_pg_conn *c, int32_t code, const void *data, size_t n) {
    size_t at = tn_pg_begin(&c->out, 'R');
    tn_pg_put_i32(&c->out, code);
    if (n) tn_pg_put_bytes(&c->out, data, n);
    tn_pg_end(&c->out, at);
}

/* --client-cert (PostgreSQL's clientcert): a certificate that verified against --tls-ca, and
 * for verify-full one whose CN is the user name; before the password exchange, as PostgreSQL. */
static int check_client_cert(tn_pg_conn *c) {
    int mode = tn_pg_server_opts(c->srv)->tls_client_cert;
    if (mode == TN_SERVER_CLIENT_CERT_NONE) return 0;
    if (!tn_pg_tls_peer_cn(c, c->cert_cn, sizeof c->cert_cn)) {
        tn_pg_conn_error(c, "FATAL", "28000", "connection requires a valid client certificate");
        return TN_PG_EOF;
    }
    if (mode == TN_SERVER_CLIENT_CERT_VERIFY_FULL && strcmp(c->cert_cn, c->user) != 0) {
        tn_pg_server_log(c->srv, "%s: client certificate CN \"%s\" is not the user name \"%s\"", c->peer, c->cert_cn, c->user);
        tn_pg_conn_error(c, "FATAL", "28000", "certificate validation (clientcert=verify-full) failed for user \"%s\"", c->user);
        return TN_PG_EOF;
    }
    return 0;
}

static int authenticate(tn_pg_conn *c) {
    const tn_server_options *o = tn_pg_server_opts(c->srv);
    const tn_pg_users *users = tn_pg_server_users(c->srv);
    if (!o->password && !users) {
        put_auth(c, 0, NULL, 0);                 /* trust: only ever on a loopback listener */
        c->auth = "trust";
        return 0;
    }
    tn_pg_scram scram;
    bool user_ok;
    int rc = 0;
    if (users) {
        user_ok = tn_pg_users_lookup(users, c->user, &scram);   /* unknown: mock keys */
    } else {
        user_ok = !o->user || strcmp(o->user, c->user) == 0;
        /* An unknown user goes through the same exchange against a random password, so the
         * answer does not tell which user names exist. */
        char fake[33];
        if (!user_ok) {
            uint8_t r[16];
            for (int i = 0; i < 16; i++) r[i] = (uint8_t)(tn_time_ns() >> (i % 8));
            for (int i = 0; i < 16; i++) snprintf(fake + 2 * i, 3, "%02x", r[i]);
        }
        rc = tn_pg_scram_init(&scram, user_ok ? o->password : fake);
    }
    if (rc) {
        tn_pg_conn_error(c, "FATAL", "XX000", "%s", tn_error_message());
        return TN_PG_EOF;
    }
    /* over TLS SCRAM-SHA-256-PLUS first (channel binding tls-server-end-point), as PostgreSQL */
    scram.cbind_len = tn_pg_tls_end_point(c, scram.cbind, sizeof scram.cbind);
    if (scram.cbind_len) put_auth(c, 10, "SCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0", 34);
    else put_auth(c, 10, "SCRAM-SHA-256\0", 15);
    if ((rc = tn_pg_conn_flush(c))) return rc;
    const uint8_t *body;
    uint32_t len;
    if ((rc = expect_password_message(c, &body, &len))) return rc;
    tn_pg_sasl_initial init;
    if ((rc = tn_pg_decode_sasl_initial(body, len, &init))) {
        tn_pg_conn_error(c, "FATAL", "08P01", "%s", tn_error_message());
        return TN_PG_EOF;
    }
    scram.plus = scram.cbind_len && strcmp(init.mechanism, "SCRAM-SHA-256-PLUS") == 0;
    if (!scram.plus && strcmp(init.mechanism, "SCRAM-SHA-256") != 0) {
        tn_pg_conn_error(c, "FATAL", "28000", "SASL authentication mechanism \"%s\" is not supported (%s)",
                         init.mechanism, scram.cbind_len ? "SCRAM-SHA-256-PLUS and SCRAM-SHA-256 are" : "SCRAM-SHA-256 is");
        return TN_PG_EOF;
    }
    tn_buf reply = TN_BUF_INIT;
    rc = tn_pg_scram_first(&scram, init.data, init.len, &reply);
    if (rc) {
        tn_buf_free(&reply);
        tn_pg_conn_error(c, "FATAL", rc == TN_EUNSUPPORTED ? "0A000" : "08P01", "%s", tn_error_message());
        return TN_PG_EOF;
    }
    put_auth(c, 11, reply.data, reply.len);
    tn_buf_free(&reply);
    if ((rc = tn_pg_conn_flush(c))) return rc;
    if ((rc = expect_password_message(c, &body, &len))) return rc;
    rc = tn_pg_scram_final(&scram, body, (int32_t)len, &reply);
    if (rc || !user_ok) {
        tn_buf_free(&reply);
        if (rc && rc != TN_EEXISTS) tn_pg_conn_error(c, "FATAL", "08P01", "%s", tn_error_message());
        else tn_pg_conn_error(c, "FATAL", "28P01", "password authentication failed for user \"%s\"", c->user);
        return TN_PG_EOF;
    }
    put_auth(c, 12, reply.data, reply.len);
    tn_buf_free(&reply);
    put_auth(c, 0, NULL, 0);
    c->auth = scram.plus ? "SCRAM-SHA-256-PLUS" : "SCRAM-SHA-256";
    return 0;
}

/* "-c name=value" (also --name=value) items of the startup "options" parameter. */
static int apply_options(tn_pg_conn *c, const char *opts) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", opts);
    char *save = NULL;
    bool expect_value = false;
    for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (strcmp(tok, "-c") == 0) { expect_value = true; continue; }
        char *kv = tok;
        if (!expect_value) {
            if (strncmp(tok, "--", 2) == 0) kv = tok + 2;
            else if (strncmp(tok, "-c", 2) == 0) kv = tok + 2;
            else return tn_error_set(TN_EINVAL, "startup option \"%s\" is not supported (only -c name=value)", tok);
        }
        expect_value = false;
        char *eq = strchr(kv, '=');
        if (!eq) return tn_error_set(TN_EINVAL, "startup option \"%s\": expected name=value", kv);
        *eq = 0;
        for (char *p = kv; *p; p++) if (*p == '-') *p = '_';
        bool rep;
        int rc = tn_pg_setting_set(&c->settings, kv, eq + 1, &rep);
        if (rc) return rc;
    }
    return 0;
}

static int startup_parameters(tn_pg_conn *c, const tn_pg_startup *st, tn_buf *unknown_protocol_opts, int *nunknown) {
    c->user[0] = 0;
    for (uint32_t i = 0; i < st->npairs; i++) {
        const char *n = st->names[i], *v = st->values[i];
        if (strcmp(n, "user") == 0) snprintf(c->user, sizeof c->user, "%s", v);
        else if (strcmp(n, "database") == 0) snprintf(c->database, sizeof c->database, "%s", v);
    }
    if (!c->user[0]) {
        snprintf(c->user, sizeof c->user, "-");
        return tn_error_set(TN_PG_ENOUSER, "no PostgreSQL user name specified in startup packet");
    }
    if (!c->database[0]) snprintf(c->database, sizeof c->database, "%s", c->user);
    int rc = tn_pg_settings_init(&c->settings, c->user, tn_pg_server_opts(c->srv)->read_only,
                                 tn_pg_server_opts(c->srv)->max_connections,
                                 tn_pg_server_opts(c->srv)->statement_timeout_ms);
    if (rc) return rc;
    for (uint32_t i = 0; i < st->npairs; i++) {
        const char *n = st->names[i], *v = st->values[i];
        bool rep;
        if (strcmp(n, "user") == 0 || strcmp(n, "database") == 0) continue;
        if (strncmp(n, "_pq_.", 5) == 0) {
            tn_buf_append(unknown_protocol_opts, n, strlen(n) + 1);
            (*nunknown)++;
            continue;
        }
        if (strcmp(n, "options") == 0) rc = apply_options(c, v);
        else if (strcmp(n, "replication") == 0) rc = tn_error_set(TN_EUNSUPPORTED, "replication connections are not supported");
        else if (strcasecmp(n, "TimeZone") == 0 && tn_pg_setting_set(&c->settings, n, v, &rep)) {
            /* Drivers send the client's zone (pgjdbc: the JVM's): accepted with a warning. */
            tn_pg_conn_notice(c, "WARNING", "TimeZone '%s' is not supported: timestamptz values are shown in UTC (+00)", v);
            rc = 0;
        } else rc = tn_pg_setting_set(&c->settings, n, v, &rep);
        if (rc) return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The connection.
 */
static void conn_free(tn_pg_conn *c) {
    tn_pg_cursors_close(c, true);
    tn_pg_conn_drop_all(c);
    if (c->backend) tn_pg_server_detach(c->srv, c->backend);
    tn_sql_session_close(c->session);
    tn_pg_settings_free(&c->settings);
    tn_buf_free(&c->out.buf);
    tn_free(c->msg);
    tn_pg_tls_close(c);
    close(c->fd);
    tn_free(c);
}

void tn_pg_conn_run(tn_pg_server *srv, int fd, const char *peer) {
    tn_pg_conn *c = tn_calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return;
    }
    c->fd = fd;
    c->srv = srv;
    c->txn = 'I';
    c->max_message = tn_pg_server_opts(srv)->max_message;
    snprintf(c->peer, sizeof c->peer, "%s", peer);
    snprintf(c->user, sizeof c->user, "-");
    tn_pg_startup st;
    tn_buf unknown = TN_BUF_INIT;
    int nunknown = 0;
    int rc = read_startup(c, &st);
    if (rc) goto done;
    if (st.kind == TN_PG_CANCEL) {
        tn_pg_server_cancel(srv, st.cancel_pid, st.cancel_key);
        goto done;                               /* no reply, as PostgreSQL */
    }
    if ((rc = startup_parameters(c, &st, &unknown, &nunknown))) {
        tn_pg_conn_error(c, "FATAL", rc == TN_PG_ENOUSER ? "28000" : tn_pg_sqlstate(rc, tn_error_message()), "%s",
                         tn_error_message());
        goto done;
    }
    if ((st.version & 0xffff) != 0 || nunknown) {
        /* NegotiateProtocolVersion: 3.0, and the protocol options not recognized */
        size_t at = tn_pg_begin(&c->out, 'v');
        tn_pg_put_i32(&c->out, 0);
        tn_pg_put_i32(&c->out, nunknown);
        tn_pg_put_bytes(&c->out, unknown.data, unknown.len);
        tn_pg_end(&c->out, at);
    }
    if (tn_pg_server_stopping(srv)) {
        tn_pg_conn_error(c, "FATAL", "57P03", "the database system is shutting down");
        goto done;
    }
    if ((rc = check_client_cert(c))) goto done;
    if ((rc = authenticate(c))) goto done;
    rc = tn_sql_session_open(&c->session, tn_pg_server_opts(srv)->warehouse, tn_pg_server_opts(srv)->threads);
    if (!rc) tn_sql_session_deny_files(c->session, !tn_pg_server_opts(srv)->allow_file_access);
    if (!rc) rc = tn_sql_session_set_client(c->session, c->user, c->database);
    if (!rc) tn_sql_session_set_settings(c->session, pg_settings_row, &c->settings);
    if (!rc) rc = tn_pg_server_attach(srv, c->session, &c->backend);
    if (rc) {
        tn_pg_conn_error(c, "FATAL", rc == TN_ELIMIT ? "53300" : "58000", "%s", tn_error_message());
        goto done;
    }
    if (c->ssl && !c->cert_cn[0]) tn_pg_tls_peer_cn(c, c->cert_cn, sizeof c->cert_cn);
    tn_pg_server_log(srv, "%s: connection authorized: user=%s database=%s application_name=%s%s%s%s%s auth=%s%s%s", c->peer,
                     c->user, c->database, tn_pg_setting_get(&c->settings, "application_name", NULL),
                     c->ssl ? " TLS=" : "", c->ssl ? tn_pg_tls_version(c) : "", c->ssl ? " cipher=" : "",
                     c->ssl ? tn_pg_tls_cipher(c) : "", c->auth, c->cert_cn[0] ? " client_cert_cn=" : "", c->cert_cn);
    size_t at = tn_pg_begin(&c->out, 'K');
    tn_pg_put_i32(&c->out, c->backend->pid);
    tn_pg_put_i32(&c->out, c->backend->key);
    tn_pg_end(&c->out, at);
    report_all(c);
    put_ready(c);
    if ((rc = tn_pg_conn_flush(c))) goto done;

    for (;;) {
        uint8_t type;
        const uint8_t *body;
        uint32_t len;
        rc = tn_pg_conn_read_message(c, &type, &body, &len);
        if (rc == TN_PG_STOP) {
            tn_pg_conn_error(c, "FATAL", "57P01", "terminating connection due to administrator command");
            break;
        }
        if (rc == TN_PG_IDLE) {
            tn_pg_conn_error(c, "FATAL", "57P05", "terminating connection due to idle timeout (%d s)",
                             tn_pg_server_opts(srv)->idle_timeout_s);
            break;
        }
        if (rc == TN_PG_EOF) break;
        if (rc) {
            tn_pg_conn_error(c, "FATAL", rc == TN_ELIMIT ? "54000" : "08P01", "%s", tn_error_message());
            break;
        }
        if (type == 'X') break;
        if (type == 'Q') {
            const char *sql;
            uint32_t sl;
            if ((rc = tn_pg_decode_query(body, len, &sql, &sl))) {
                tn_pg_conn_error(c, "FATAL", "08P01", "%s", tn_error_message());
                break;
            }
            c->ext_error = false;
            if (simple_query(c, sql, sl)) break;
            continue;
        }
        if (strchr("PBDECSH", type) && type) {
            rc = tn_pg_conn_extended(c, type, body, len);
            if (rc == TN_PG_EOF || c->dead) break;
            continue;
        }
        if (type == 'd' || type == 'c' || type == 'f') continue;    /* stray COPY data: ignored, as PostgreSQL */
        tn_pg_conn_error(c, "FATAL", "08P01", "invalid frontend message type '%c' (0x%02x)",
                         type >= 32 && type < 127 ? type : '?', type);
        break;
    }
done:
    tn_buf_free(&unknown);
    if (!c->dead) tn_pg_conn_flush(c);
    if (c->session) tn_pg_server_log(srv, "%s %s: disconnected", c->peer, c->user);
    conn_free(c);
}
