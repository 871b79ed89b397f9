/*
 * server/server.h: the interface of the server/ layer as the `tarn serve` command sees it: the
 * options of a PostgreSQL wire-protocol (v3) server over one warehouse, and the call that runs
 * it until SIGTERM/SIGINT. Everything else in server/ (frame codec, authentication, sessions,
 * type OIDs) is private to the layer (pgwireInt.h).
 */
#ifndef TN_SERVER_H
#define TN_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tn_server_options {
    const char *warehouse;       /* NULL: $TARN_WAREHOUSE, else ./warehouse */
    const char *host;            /* listen address; NULL: 127.0.0.1 */
    int port;                    /* 0: any free port (written to ready_file) */
    const char *user;            /* with password: the one user that may log in */
    const char *password;        /* NULL: no authentication (refused unless host is loopback) */
    const char *auth_file;       /* users and their passwords or SCRAM verifiers (server/users.c);
                                    instead of user/password */
    int max_connections;         /* 0: 64 */
    uint32_t max_message;        /* largest frontend message in bytes; 0: 64 MiB */
    int idle_timeout_s;          /* close a connection idle this long; 0: never */
    int statement_timeout_ms;    /* default statement_timeout; 0: none */
    int threads;                 /* worker threads per session; 0: tarn's default */
    bool read_only;              /* refuse statements that write */
    bool allow_file_access;      /* SQL may name files by path (read_parquet('/...'), COPY 'file') */
    bool log_queries;            /* log every statement on stderr */
    const char *tls_cert;        /* PEM certificate (chain) file; with tls_key: SSLRequest answered 'S' */
    const char *tls_key;         /* PEM private key file (unencrypted) */
    bool require_tls;            /* refuse connections that did not start TLS (cancel requests excepted) */
    const char *tls_ca;          /* PEM CA certificates: client certificates are asked for and verified */
    int tls_client_cert;         /* TN_SERVER_CLIENT_CERT_*: a verified certificate is required */
    const char *ready_file;      /* when set, "PORT\n" is written there once listening */
} tn_server_options;

#define TN_SERVER_OPTIONS_INIT {.port = 5433}
/* tls_client_cert, as PostgreSQL's clientcert: none; verify-ca (a certificate signed by the
 * tls_ca CAs); verify-full (that, and its CN equals the user name) */
#define TN_SERVER_CLIENT_CERT_NONE 0
#define TN_SERVER_CLIENT_CERT_VERIFY_CA 1
#define TN_SERVER_CLIENT_CERT_VERIFY_FULL 2

/* Listens and serves until SIGTERM or SIGINT (then stops accepting, lets running statements
 * finish for a short grace period, cancels the rest, and closes every connection). Returns 0
 * after a clean shutdown or a negative TN_E* code with the message set (bad options, cannot
 * listen). */
int tn_server_run(const tn_server_options *opts);

/* A SCRAM-SHA-256 verifier of password with a fresh salt, as --auth-file takes it and
 * PostgreSQL stores it ("SCRAM-SHA-256$4096:<salt>$<StoredKey>:<ServerKey>"), into out
 * (cap >= 160). 0 or a negative TN_E* code with the message set. */
int tn_server_scram_verifier(const char *password, char *out, size_t cap);

#endif
