/*
 * server/auth.c: SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL's server does it, with
 * OpenSSL: keys derived from the password with a fresh random salt per connection, the
 * client's proof checked against StoredKey, the server signature returned. Over TLS the server
 * also offers SCRAM-SHA-256-PLUS with channel binding tls-server-end-point (RFC 5929: the hash
 * of the server's certificate, which the caller computes), as PostgreSQL does: the binding data
 * the client sends back must be that hash, so a man in the middle with another certificate
 * cannot relay the exchange. A client saying "y" (it could bind but thinks the server cannot)
 * to a server that can is refused (a downgrade), as is "p=" without TLS.
 *
 *   client-first   gs2-header ("n,," | "y,," | "p=tls-server-end-point,,") client-first-bare
 *                  ("n=user,r=cnonce")
 *   server-first   "r=cnonce+snonce,s=base64(salt),i=4096"
 *   client-final   "c=base64(gs2-header [+ certificate hash with p=]),r=nonce,
 *                  p=base64(ClientKey XOR ClientSignature)"
 *   server-final   "v=base64(HMAC(ServerKey, AuthMessage))"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "server/pgwireInt.h"

#define SCRAM_ITERATIONS 4096

static int hmac(const uint8_t *key, size_t klen, const void *msg, size_t n, uint8_t out[32]) {
    unsigned int len = 32;
    if (!HMAC(EVP_sha256(), key, (int)klen, msg, n, out, &len)) return tn_error_set(TN_EINTERNAL, "HMAC-SHA-256 failed");
    return 0;
}

int tn_pg_scram_init(tn_pg_scram *s, const char *password) {
    uint8_t salt[16];
    if (RAND_bytes(salt, sizeof salt) != 1) return tn_error_set(TN_EINTERNAL, "no random bytes for a SCRAM salt");
    return tn_pg_scram_init_salt(s, password, salt, sizeof salt, SCRAM_ITERATIONS);
}

int tn_pg_scram_init_salt(tn_pg_scram *s, const char *password, const uint8_t *salt, size_t salt_len,
                          uint32_t iterations) {
    memset(s, 0, sizeof *s);
    if (salt_len == 0 || salt_len > sizeof s->salt) return tn_error_set(TN_EINVAL, "SCRAM salt of %zu bytes", salt_len);
    memcpy(s->salt, salt, salt_len);
    s->salt_len = (uint32_t)salt_len;
    s->iterations = iterations;
    uint8_t salted[32], client_key[32];
    if (PKCS5_PBKDF2_HMAC(password, (int)strlen(password), s->salt, (int)s->salt_len, (int)s->iterations, EVP_sha256(),
                          32, salted) != 1)
        return tn_error_set(TN_EINTERNAL, "PBKDF2 failed");
    int rc = hmac(salted, 32, "Client Key", 10, client_key);
    if (!rc) rc = hmac(salted, 32, "Server Key", 10, s->server_key);
    if (!rc) SHA256(client_key, 32, s->stored_key);
    OPENSSL_cleanse(salted, sizeof salted);
    OPENSSL_cleanse(client_key, sizeof client_key);
    return rc;
}

/* Decodes base64 text p[0..n) into out (at most cap bytes); the decoded length, or -1. */
static int unbase64(const char *p, size_t n, uint8_t *out, size_t cap) {
    if (n == 0 || n % 4 || n / 4 * 3 > cap + 2) return -1;
    uint8_t tmp[96];
    if (n / 4 * 3 > sizeof tmp) return -1;
    int len = EVP_DecodeBlock(tmp, (const unsigned char *)p, (int)n);
    if (len < 0) return -1;
    if (p[n - 1] == '=') len--;
    if (p[n - 2] == '=') len--;
    if ((size_t)len > cap) return -1;
    memcpy(out, tmp, (size_t)len);
    return len;
}

int tn_pg_scram_init_verifier(tn_pg_scram *s, const char *v) {
    memset(s, 0, sizeof *s);
    static const char prefix[] = "SCRAM-SHA-256$";
    if (strncmp(v, prefix, sizeof prefix - 1) != 0) return tn_error_set(TN_EINVAL, "not a SCRAM-SHA-256 verifier");
    const char *it = v + sizeof prefix - 1;
    const char *colon = strchr(it, ':');
    const char *dollar = colon ? strchr(colon, '$') : NULL;
    const char *colon2 = dollar ? strchr(dollar, ':') : NULL;
    if (!colon || !dollar || !colon2)
        return tn_error_set(TN_EINVAL, "SCRAM verifier: expected SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>");
    char *end = NULL;
    unsigned long iters = strtoul(it, &end, 10);
    if (end != colon || iters < 1 || iters > 10000000)
        return tn_error_set(TN_EINVAL, "SCRAM verifier: iteration count '%.*s' is not a number from 1 to 10000000",
                            (int)(colon - it), it);
    s->iterations = (uint32_t)iters;
    int n = unbase64(colon + 1, (size_t)(dollar - colon - 1), s->salt, sizeof s->salt);
    if (n <= 0) return tn_error_set(TN_EINVAL, "SCRAM verifier: the salt is not base64 of 1 to 64 bytes");
    s->salt_len = (uint32_t)n;
    if (unbase64(dollar + 1, (size_t)(colon2 - dollar - 1), s->stored_key, 32) != 32 ||
        unbase64(colon2 + 1, strlen(colon2 + 1), s->server_key, 32) != 32)
        return tn_error_set(TN_EINVAL, "SCRAM verifier: StoredKey and ServerKey must be base64 of 32 bytes each");
    return 0;
}

void tn_pg_scram_verifier(const tn_pg_scram *s, char *out, size_t cap) {
    char salt64[96], stored64[48], server64[48];
    EVP_EncodeBlock((unsigned char *)salt64, s->salt, (int)s->salt_len);
    EVP_EncodeBlock((unsigned char *)stored64, s->stored_key, 32);
    EVP_EncodeBlock((unsigned char *)server64, s->server_key, 32);
    snprintf(out, cap, "SCRAM-SHA-256$%u:%s$%s:%s", s->iterations, salt64, stored64, server64);
}

static int malformed(const char *what) {
    return tn_error_set(TN_EINVAL, "malformed SCRAM message: %s", what);
}

/* Printable ASCII without ',' (RFC 5802 "printable"), as a nonce must be. */
static bool printable(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x21 || p[i] > 0x7e || p[i] == ',') return false;
    return n > 0;
}

int tn_pg_scram_first(tn_pg_scram *s, const uint8_t *msg, int32_t len, tn_buf *out) {
    uint8_t raw[18];
    char snonce[32];
    if (RAND_bytes(raw, sizeof raw) != 1) return tn_error_set(TN_EINTERNAL, "no random bytes for a SCRAM nonce");
    EVP_EncodeBlock((unsigned char *)snonce, raw, sizeof raw);
    return tn_pg_scram_first_nonce(s, msg, len, snonce, out);
}

int tn_pg_scram_first_nonce(tn_pg_scram *s, const uint8_t *msg, int32_t len, const char *snonce, tn_buf *out) {
    if (!msg || len <= 0 || len >= (int32_t)sizeof s->client_first_bare) return malformed("empty or too long client-first-message");
    char m[sizeof s->client_first_bare];
    memcpy(m, msg, (size_t)len);
    m[len] = 0;
    if (strlen(m) != (size_t)len) return malformed("NUL byte in client-first-message");
    if (m[0] == 'p') {
        if (!s->cbind_len) return tn_error_set(TN_EUNSUPPORTED, "SCRAM channel binding is not supported (the connection has no TLS)");
        if (!s->plus)
            return malformed("the client selected SCRAM-SHA-256 without channel binding, but the message includes channel binding data");
        if (strncmp(m, "p=tls-server-end-point,", 23) != 0) {
            size_t tl = strcspn(m + 2, ",");
            return tn_error_set(TN_EINVAL, "unsupported SCRAM channel-binding type \"%.*s\" (tls-server-end-point is)",
                                (int)(tl > 64 ? 64 : tl), m + 2);
        }
    } else if ((m[0] != 'n' && m[0] != 'y') || m[1] != ',') {
        return malformed("expected gs2 header \"n,,\"");
    } else if (s->plus) {
        return malformed("the client selected SCRAM-SHA-256-PLUS, but the message does not include channel binding data");
    } else if (m[0] == 'y' && s->cbind_len) {
        return tn_error_set(TN_EINVAL, "SCRAM channel binding negotiation error: the client supports SCRAM channel binding "
                                       "but thinks the server does not; this server does support channel binding");
    }
    const char *a = strchr(m, ',');                     /* the gs2 header: flag ',' authzid ',' */
    const char *p = a ? strchr(a + 1, ',') : NULL;      /* after the authzid field */
    if (!p) return malformed("gs2 header not terminated");
    if ((size_t)(p + 1 - m) >= sizeof s->gs2) return malformed("gs2 header too long");
    memcpy(s->gs2, m, (size_t)(p + 1 - m));
    s->gs2[p + 1 - m] = 0;
    const char *bare = p + 1;
    if (strncmp(bare, "n=", 2) != 0) return malformed("expected n= attribute");
    const char *r = strstr(bare, ",r=");
    if (!r) return malformed("no client nonce (r=)");
    r += 3;
    size_t rn = strcspn(r, ",");
    if (!printable(r, rn) || rn > 64) return malformed("invalid client nonce");
    strcpy(s->client_first_bare, bare);
    char salt64[96];
    EVP_EncodeBlock((unsigned char *)salt64, s->salt, (int)s->salt_len);
    snprintf(s->nonce, sizeof s->nonce, "%.*s%s", (int)rn, r, snonce);
    snprintf(s->server_first, sizeof s->server_first, "r=%s,s=%s,i=%u", s->nonce, salt64, s->iterations);
    return tn_buf_append(out, s->server_first, strlen(s->server_first));
}

int tn_pg_scram_final(tn_pg_scram *s, const uint8_t *msg, int32_t len, tn_buf *out) {
    if (!msg || len <= 0 || len > 1024) return malformed("empty or too long client-final-message");
    char m[1025];
    memcpy(m, msg, (size_t)len);
    m[len] = 0;
    if (strlen(m) != (size_t)len) return malformed("NUL byte in client-final-message");
    if (strncmp(m, "c=", 2) != 0) return malformed("expected c= attribute");
    const char *c_end = strchr(m, ',');
    if (!c_end) return malformed("no nonce");
    /* channel binding data: base64 of the gs2 header, followed with p= by the certificate hash */
    uint8_t cb[sizeof s->gs2 + sizeof s->cbind];
    size_t gl = strlen(s->gs2), cl = gl;
    memcpy(cb, s->gs2, gl);
    if (s->gs2[0] == 'p') {
        memcpy(cb + gl, s->cbind, s->cbind_len);
        cl += s->cbind_len;
    }
    char cb64[(sizeof cb + 2) / 3 * 4 + 1];
    int c64 = EVP_EncodeBlock((unsigned char *)cb64, cb, (int)cl);
    if (c_end - (m + 2) != c64 || memcmp(m + 2, cb64, (size_t)c64) != 0)
        return s->gs2[0] == 'p' ? tn_error_set(TN_EINVAL, "SCRAM channel binding check failed")
                                : malformed("unexpected channel binding data");
    if (strncmp(c_end, ",r=", 3) != 0) return malformed("expected r= attribute");
    const char *r = c_end + 3;
    size_t rn = strcspn(r, ",");
    if (rn != strlen(s->nonce) || memcmp(r, s->nonce, rn) != 0) return malformed("nonce does not match");
    const char *p = strstr(m, ",p=");
    if (!p) return malformed("no proof (p=)");
    size_t without_proof = (size_t)(p - m);
    const char *proof64 = p + 3;
    size_t pl = strlen(proof64);
    if (pl != 44) return malformed("proof is not 32 bytes");
    uint8_t proof[48];
    if (EVP_DecodeBlock(proof, (const unsigned char *)proof64, (int)pl) != 33) return malformed("proof is not base64");

    tn_buf auth = TN_BUF_INIT;
    int rc = tn_buf_printf(&auth, "%s,%s,%.*s", s->client_first_bare, s->server_first, (int)without_proof, m);
    uint8_t sig[32], client_key[32], stored[32];
    if (!rc) rc = hmac(s->stored_key, 32, auth.data, auth.len, sig);
    if (!rc) {
        for (int i = 0; i < 32; i++) client_key[i] = proof[i] ^ sig[i];
        SHA256(client_key, 32, stored);
        if (CRYPTO_memcmp(stored, s->stored_key, 32) != 0) rc = TN_EEXISTS;
    }
    uint8_t server_sig[32];
    char sig64[48];
    if (!rc) rc = hmac(s->server_key, 32, auth.data, auth.len, server_sig);
    if (!rc) {
        EVP_EncodeBlock((unsigned char *)sig64, server_sig, 32);
        rc = tn_buf_printf(out, "v=%s", sig64);
    }
    tn_buf_free(&auth);
    return rc;
}
