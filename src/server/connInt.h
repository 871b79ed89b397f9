/*
 * server/connInt.h: private to server/: one connection's state (conn.c), its prepared
 * statements and portals (extended.c), COPY (copy.c), and the server registry the connections
 * use (server.c: backend keys for cancel requests, statement deadlines, shutdown, the log).
 */
#ifndef TN_CONN_INT_H
#define TN_CONN_INT_H

#include <openssl/ssl.h>
#include <sys/types.h>

#include "server/pgwireInt.h"
#include "server/server.h"
#include "sql/sql.h"

/* conn.c results beside TN_E* codes */
#define TN_PG_EOF     (-1001)   /* the client went away (or the connection must close) */
#define TN_PG_STOP    (-1002)   /* the server is shutting down */
#define TN_PG_IDLE    (-1003)   /* idle timeout */
/* A connection waiting for the client wakes this often to check shutdown and the idle timeout. */
#define TN_PG_QUIET_MS 200
/* codes carried through tn_error_set whose SQLSTATE the conn picks */
#define TN_PG_EREADONLY TN_EUNSUPPORTED
#define TN_PG_ENOSTMT   TN_ENOTFOUND
#define TN_PG_ENOUSER   TN_EINVAL

/* ---------------------------------------------------------------------------------------------
 * server.c
 */
typedef struct tn_pg_server tn_pg_server;

/* One live session in the registry. pid/key identify it to CancelRequest. */
typedef struct tn_pg_backend {
    int32_t pid, key;
    tn_sql_session *session;
    int64_t deadline_ns;         /* statement_timeout: the watchdog interrupts past it (0 none) */
    int timed_out;               /* set by the watchdog when it interrupted for the deadline */
    int running;                 /* a statement runs (shutdown cancels these after the grace) */
    bool used;
} tn_pg_backend;

const tn_server_options *tn_pg_server_opts(const tn_pg_server *s);
SSL_CTX *tn_pg_server_tls(const tn_pg_server *s);   /* NULL: no TLS configured */
bool tn_pg_server_stopping(const tn_pg_server *s);
int tn_pg_server_attach(tn_pg_server *s, tn_sql_session *session, tn_pg_backend **out);
void tn_pg_server_detach(tn_pg_server *s, tn_pg_backend *b);
void tn_pg_server_cancel(tn_pg_server *s, int32_t pid, int32_t key);
void tn_pg_server_log(tn_pg_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------------------------------------
 * The connection.
 */
#define TN_PG_ROW_FORMATS 1664     /* PostgreSQL's limit of columns in a table */
/* Rows of a result being sent (simple query, or a portal across Executes). */
typedef struct tn_pg_cursor {
    tn_sql_result *res;
    const tn_chunk *chunk;
    uint32_t row;
    bool done;
    int64_t sent;
    const uint8_t *formats;      /* result format codes (Bind), NULL = text */
    uint16_t nformats;
    uint8_t fmt[TN_PG_ROW_FORMATS];   /* each column's format, set at a chunk's first row */
} tn_pg_cursor;

typedef struct tn_pg_stmt {
    char *name;
    char *sql;
    size_t sql_len;
    tn_pg_cmd cmd;               /* a session command, or kind NONE / EMPTY */
    tn_sql_script *script;       /* kind NONE: the parsed statement */
    uint32_t nparams;
    uint32_t *oids;              /* nparams: declared types (0 = unspecified) */
    int refs;                    /* the map's reference + one per portal */
    struct tn_pg_stmt *next;
} tn_pg_stmt;

typedef struct tn_pg_portal {
    char *name;
    tn_pg_stmt *stmt;
    tn_arena *arena;             /* parameter values, format codes */
    tn_value *params;
    uint32_t nparams;
    uint8_t *formats;
    uint16_t nformats;
    bool started;                /* executed (cursor live, or completed) */
    bool completed;              /* CommandComplete sent */
    tn_pg_cursor cur;
    char tag[64];
    struct tn_pg_portal *next;
} tn_pg_portal;

typedef struct tn_pg_sqlcursor tn_pg_sqlcursor;   /* cursor.c */

typedef struct tn_pg_conn {
    int fd;
    SSL *ssl;                    /* after an SSLRequest answered 'S' and the handshake; else NULL */
    tn_pg_server *srv;
    char peer[64];
    char user[64];
    char database[64];
    tn_sql_session *session;
    tn_pg_backend *backend;
    tn_pg_settings settings;
    char txn;                    /* ReadyForQuery status: 'I' idle, 'T' in a block, 'E' failed block */
    int txn_writes;              /* statements of the current block that wrote */
    bool ext_error;              /* extended protocol: skip messages until Sync */
    bool dead;                   /* the socket failed */
    const char *auth;            /* how the client authenticated: trust, SCRAM-SHA-256[-PLUS] */
    char cert_cn[256];           /* CN of the verified client certificate ("" none or not asked) */
    uint32_t max_message;
    tn_pg_out out;
    uint8_t rbuf[65536];
    size_t rpos, rlen;
    uint8_t *msg;
    uint32_t msg_cap;
    tn_pg_stmt *stmts;
    tn_pg_portal *portals;
    tn_pg_portal *exec_portal;   /* the portal an Execute runs: DISCARD ALL keeps it (extended.c) */
    tn_pg_sqlcursor *cursors;    /* DECLARE ... CURSOR (cursor.c) */
    const uint8_t *cur_formats;  /* formats for a session command's RowDescription */
    uint16_t cur_nformats;
    const tn_value *cur_params;  /* the Bind parameters of an extended-protocol DECLARE */
    uint32_t cur_nparams;
} tn_pg_conn;

void tn_pg_conn_run(tn_pg_server *srv, int fd, const char *peer);
int tn_pg_conn_flush(tn_pg_conn *c);
int tn_pg_conn_read_message(tn_pg_conn *c, uint8_t *type, const uint8_t **body, uint32_t *len);
void tn_pg_conn_error(tn_pg_conn *c, const char *severity, const char *sqlstate, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tn_pg_conn_notice(tn_pg_conn *c, const char *severity, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* ErrorResponse for tarn's last error (code rc); text/base locate its position when has_pos. */
void tn_pg_conn_sql_error(tn_pg_conn *c, int rc, const char *text, size_t base, bool has_pos);
void tn_pg_conn_complete(tn_pg_conn *c, const char *tag);
void tn_pg_conn_row_description(tn_pg_conn *c, uint32_t ncols, const char *const *names, const tn_type *types,
                                const uint8_t *formats, uint16_t nformats);
int tn_pg_conn_send_rows(tn_pg_conn *c, tn_pg_cursor *cur, int64_t max_rows, bool *more);
void tn_pg_conn_tag(const tn_sql_stmt *st, tn_sql_result *r, int64_t rows, char *tag, size_t cap);
int tn_pg_conn_check_statement(tn_pg_conn *c, const tn_sql_stmt *st);
void tn_pg_conn_begin_statement(tn_pg_conn *c);
void tn_pg_conn_end_statement(tn_pg_conn *c);
int tn_pg_conn_command(tn_pg_conn *c, const tn_pg_cmd *cmd, bool describe_rows, bool send_rows, char *tag,
                       size_t cap);

/* users.c: --auth-file (format at the top of users.c). load: an error names FILE:LINE.
 * lookup: the user's keys into out and true; false for an unknown name (out then holds mock
 * keys, the same for that name every time, so the exchange fails only at the proof). */
typedef struct tn_pg_users tn_pg_users;
int tn_pg_users_load(const char *path, tn_pg_users **out);
void tn_pg_users_free(tn_pg_users *u);
size_t tn_pg_users_count(const tn_pg_users *u);
bool tn_pg_users_lookup(const tn_pg_users *u, const char *name, tn_pg_scram *out);
const tn_pg_users *tn_pg_server_users(const tn_pg_server *s);   /* NULL without --auth-file */

/* tls.c: the context from --tls-cert/--tls-key (an error names the file and the reason), the
 * handshake (TN_PG_EOF after logging why it failed), and the connection's byte I/O. */
int tn_pg_tls_context(const char *cert, const char *key, const char *ca, SSL_CTX **out);
void tn_pg_tls_context_free(SSL_CTX *ctx);
int tn_pg_tls_accept(tn_pg_conn *c, SSL_CTX *ctx);
const char *tn_pg_tls_version(const tn_pg_conn *c);   /* NULL without TLS */
const char *tn_pg_tls_cipher(const tn_pg_conn *c);
void tn_pg_tls_close(tn_pg_conn *c);
/* The tls-server-end-point channel binding data of the connection into out (its length), 0
 * when there is none to offer (no TLS). */
uint32_t tn_pg_tls_end_point(const tn_pg_conn *c, uint8_t *out, uint32_t cap);
/* The CN of the client's certificate when it sent one that verified (--tls-ca), into cn
 * (NUL-terminated); false when there is none. */
bool tn_pg_tls_peer_cn(const tn_pg_conn *c, char *cn, size_t cap);
/* send(2)/recv(2) over the connection (TLS when c->ssl): bytes, 0 at a close, -1 with errno
 * (EINTR: call again). io_pending: TLS holds decrypted bytes that poll(2) cannot see. */
ssize_t tn_pg_io_send(tn_pg_conn *c, const void *p, size_t n);
ssize_t tn_pg_io_recv(tn_pg_conn *c, void *p, size_t n);
bool tn_pg_io_pending(const tn_pg_conn *c);

/* cursor.c: DECLARE / FETCH / MOVE / CLOSE (send_rows: run it; describe_rows: the
 * RowDescription of FETCH). cursors_close: those WITHOUT HOLD (end of a block), or all. */
int tn_pg_cursor_command(tn_pg_conn *c, const tn_pg_cmd *cmd, bool describe_rows, bool send_rows, char *tag,
                         size_t cap);
void tn_pg_cursors_close(tn_pg_conn *c, bool all);
int tn_pg_cursor_describe(tn_pg_conn *c, const char *name);   /* RowDescription; TN_ENOTFOUND */

/* extended.c */
int tn_pg_conn_extended(tn_pg_conn *c, uint8_t type, const uint8_t *body, uint32_t len);
/* drop_all: statements and portals (DISCARD ALL, the end of the connection); the portal an
 * Execute is running stays until that Execute and its Sync end, as in PostgreSQL.
 * drop_statements: DEALLOCATE ALL (portals keep their statement by its reference count). */
void tn_pg_conn_drop_all(tn_pg_conn *c);
void tn_pg_conn_drop_statements(tn_pg_conn *c);
int tn_pg_conn_close_statement(tn_pg_conn *c, const char *name); /* TN_ENOTFOUND when absent */

/* copy.c */
bool tn_pg_copy_is_stdio(const tn_sql_stmt *st);
/* Runs COPY ... FROM STDIN / TO STDOUT (statement i of sc) over the connection. 0, or < 0
 * after the ErrorResponse was queued. */
int tn_pg_copy_run(tn_pg_conn *c, tn_sql_script *sc, uint32_t i, const char *text, size_t base);

#endif
