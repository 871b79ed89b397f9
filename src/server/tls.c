/*
 * server/tls.c: TLS for `tarn serve` with OpenSSL: the server context built once from the
 * certificate chain and private key given by --tls-cert/--tls-key (refused at start, naming the
 * file and OpenSSL's reason, when either cannot be loaded or they do not match), the handshake
 * after an SSLRequest answered 'S', and the connection's byte I/O (plain socket or TLS), which
 * conn.c and server.c use for every send and receive. TLS 1.2 is the oldest version accepted.
 *
 *   client                         server
 *   SSLRequest (8 bytes, 80877103) 'S' (TLS configured) | 'N' (not configured: the client
 *   TLS handshake                  goes on in the clear or gives up, as sslmode says)
 *   StartupMessage ... over TLS
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "server/connInt.h"

#define TLS_HANDSHAKE_TIMEOUT_S 10

/* OpenSSL's queued errors as one line ("reason; reason"), the queue emptied. */
static const char *ssl_reason(char *buf, size_t cap) {
    buf[0] = 0;
    size_t n = 0;
    unsigned long e;
    while ((e = ERR_get_error()) != 0) {
        char one[256];
        ERR_error_string_n(e, one, sizeof one);
        const char *r = ERR_reason_error_string(e);
        n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s", n ? "; " : "", r ? r : one);
        if (n >= cap) break;
    }
    if (!buf[0]) snprintf(buf, cap, "%s", errno ? strerror(errno) : "unknown error");
    return buf;
}

int tn_pg_tls_context(const char *cert, const char *key, const char *ca, SSL_CTX **out) {
    *out = NULL;
    char why[512];
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) return tn_error_set(TN_EINTERNAL, "TLS: cannot create a context: %s", ssl_reason(why, sizeof why));
    int rc = 0;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    errno = 0;
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
        rc = tn_error_set(TN_EINVAL, "--tls-cert %s: cannot load the certificate (PEM expected): %s", cert,
                          ssl_reason(why, sizeof why));
        goto cleanup;
    }
    errno = 0;
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
            rc = tn_error_set(TN_EINVAL, "--tls-key %s does not match the certificate of --tls-cert %s", key, cert);
            goto cleanup;
        }
        rc = tn_error_set(TN_EINVAL, "--tls-key %s: cannot load the private key (unencrypted PEM expected): %s", key,
                          ssl_reason(why, sizeof why));
        goto cleanup;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        rc = tn_error_set(TN_EINVAL, "--tls-key %s does not match the certificate of --tls-cert %s: %s", key, cert,
                          ssl_reason(why, sizeof why));
        goto cleanup;
    }
    if (ca) {
        /* ask every TLS client for a certificate; one that does not verify fails the handshake
         * (none sent: conn.c decides, by --client-cert) */
        errno = 0;
        STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(ca);
        if (!names || SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) {
            if (names) sk_X509_NAME_pop_free(names, X509_NAME_free);
            rc = tn_error_set(TN_EINVAL, "--tls-ca %s: cannot load the CA certificates (PEM expected): %s", ca,
                              ssl_reason(why, sizeof why));
            goto cleanup;
        }
        SSL_CTX_set_client_CA_list(ctx, names);
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        SSL_CTX_set_verify_depth(ctx, 16);
    }
    *out = ctx;
    ctx = NULL;
cleanup:
    SSL_CTX_free(ctx);
    return rc;
}

void tn_pg_tls_context_free(SSL_CTX *ctx) { SSL_CTX_free(ctx); }

int tn_pg_tls_accept(tn_pg_conn *c, SSL_CTX *ctx) {
    char why[512];
    ERR_clear_error();
    SSL *ssl = SSL_new(ctx);
    if (!ssl || SSL_set_fd(ssl, c->fd) != 1) {
        tn_pg_server_log(c->srv, "%s: TLS: cannot start a session: %s", c->peer, ssl_reason(why, sizeof why));
        SSL_free(ssl);
        return TN_PG_EOF;
    }
    /* a client that stalls in the handshake does not hold the thread for ever */
    struct timeval tv = {TLS_HANDSHAKE_TIMEOUT_S, 0}, none = {0, 0};
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int r = SSL_accept(ssl);
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
    if (r != 1) {
        int e = SSL_get_error(ssl, r);
        tn_pg_server_log(c->srv, "%s: TLS handshake failed: %s", c->peer,
                         e == SSL_ERROR_SYSCALL && !ERR_peek_error() ? (errno ? strerror(errno) : "connection closed")
                                                                     : ssl_reason(why, sizeof why));
        SSL_free(ssl);
        return TN_PG_EOF;
    }
    c->ssl = ssl;
    return 0;
}

const char *tn_pg_tls_version(const tn_pg_conn *c) { return c->ssl ? SSL_get_version(c->ssl) : NULL; }
const char *tn_pg_tls_cipher(const tn_pg_conn *c) { return c->ssl ? SSL_get_cipher_name(c->ssl) : NULL; }

bool tn_pg_io_pending(const tn_pg_conn *c) { return c->ssl && SSL_pending(c->ssl) > 0; }

ssize_t tn_pg_io_send(tn_pg_conn *c, const void *p, size_t n) {
    if (!c->ssl) return send(c->fd, p, n, MSG_NOSIGNAL);
    ERR_clear_error();
    int r = SSL_write(c->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
    if (r > 0) return r;
    int e = SSL_get_error(c->ssl, r);
    if (e == SSL_ERROR_SYSCALL && errno == EINTR) return -1;
    if (e != SSL_ERROR_SYSCALL) errno = EPROTO;
    return e == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

ssize_t tn_pg_io_recv(tn_pg_conn *c, void *p, size_t n) {
    if (!c->ssl) return recv(c->fd, p, n, 0);
    ERR_clear_error();
    int r = SSL_read(c->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
    if (r > 0) return r;
    int e = SSL_get_error(c->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE || (e == SSL_ERROR_SYSCALL && errno == EINTR)) {
        errno = EINTR;          /* no application data yet (a post-handshake message): read again */
        return -1;
    }
    if (e != SSL_ERROR_SYSCALL) errno = EPROTO;
    return e == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

void tn_pg_tls_close(tn_pg_conn *c) {
    if (!c->ssl) return;
    if (!c->dead) SSL_shutdown(c->ssl);     /* close_notify; the client's answer is not awaited */
    SSL_free(c->ssl);
    c->ssl = NULL;
}

/* tls-server-end-point (RFC 5929 section 4.1), as PostgreSQL computes it: the hash of the
 * server's certificate (DER) with the hash of its signature algorithm, SHA-256 when that is MD5
 * or SHA-1. 0 bytes (no binding offered) without TLS or when the algorithm has no single hash
 * (Ed25519, RSA-PSS). */
uint32_t tn_pg_tls_end_point(const tn_pg_conn *c, uint8_t *out, uint32_t cap) {
    if (!c->ssl) return 0;
    X509 *cert = SSL_get_certificate(c->ssl);
    int md_nid = NID_undef;
    if (!cert || !OBJ_find_sigid_algs(X509_get_signature_nid(cert), &md_nid, NULL)) return 0;
    if (md_nid == NID_md5 || md_nid == NID_sha1) md_nid = NID_sha256;
    const EVP_MD *md = EVP_get_digestbynid(md_nid);
    unsigned int n = 0;
    if (!md || (uint32_t)EVP_MD_size(md) > cap || X509_digest(cert, md, out, &n) != 1) return 0;
    return n;
}

bool tn_pg_tls_peer_cn(const tn_pg_conn *c, char *cn, size_t cap) {
    cn[0] = 0;
    if (!c->ssl) return false;
    X509 *peer = SSL_get1_peer_certificate(c->ssl);
    if (!peer) return false;
    int n = SSL_get_verify_result(c->ssl) == X509_V_OK
                ? X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, (int)cap)
                : -1;
    bool ok = n > 0 && (size_t)n < cap && strlen(cn) == (size_t)n;   /* no NUL inside the CN */
    X509_free(peer);
    if (!ok) cn[0] = 0;
    return ok;
}
