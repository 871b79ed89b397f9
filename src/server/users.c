/*
 * server/users.c: the users of `tarn serve --auth-file FILE`, read once at start: each user's
 * SCRAM-SHA-256 keys, and stable mock keys for names that are not in the file (so that the
 * exchange does not tell which names exist). The file format (a malformed line stops the
 * server at start, naming FILE:LINE):
 *
 *   # comment            blank lines and lines starting with '#' are skipped
 *   name:SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>
 *                        a verifier as PostgreSQL stores it (pg_authid.rolpassword) or
 *                        `tarn serve --scram-verifier` prints it: the password is not stored
 *   name:password        anything else after the first ':' is the password itself
 *
 * A name is 1-63 bytes without ':' or spaces; a name given twice is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "server/connInt.h"

typedef struct user {
    char name[64];
    tn_pg_scram keys;
} user;

struct tn_pg_users {
    user *v;
    size_t n, cap;
    uint8_t mock_secret[32];
};

void tn_pg_users_free(tn_pg_users *u) {
    if (!u) return;
    OPENSSL_cleanse(u->v, u->cap * sizeof *u->v);
    tn_free(u->v);
    OPENSSL_cleanse(u->mock_secret, sizeof u->mock_secret);
    tn_free(u);
}

static int add_line(tn_pg_users *u, const char *path, int lineno, char *line) {
    char *colon = strchr(line, ':');
    if (!colon) return tn_error_set(TN_EINVAL, "%s:%d: expected name:password or name:SCRAM-SHA-256$...", path, lineno);
    *colon = 0;
    const char *name = line, *secret = colon + 1;
    size_t nl = strlen(name);
    if (nl == 0 || nl >= sizeof u->v->name || strpbrk(name, " \t"))
        return tn_error_set(TN_EINVAL, "%s:%d: user name '%s' must be 1 to 63 bytes without spaces", path, lineno, name);
    if (!*secret) return tn_error_set(TN_EINVAL, "%s:%d: user '%s' has an empty password", path, lineno, name);
    for (size_t i = 0; i < u->n; i++)
        if (strcmp(u->v[i].name, name) == 0)
            return tn_error_set(TN_EINVAL, "%s:%d: user '%s' is listed twice", path, lineno, name);
    if (u->n == u->cap) {
        size_t cap = u->cap ? 2 * u->cap : 8;
        user *v = tn_calloc(cap, sizeof *v);
        if (!v) return TN_ENOMEM;
        if (u->n) memcpy(v, u->v, u->n * sizeof *v);
        OPENSSL_cleanse(u->v, u->cap * sizeof *u->v);
        tn_free(u->v);
        u->v = v;
        u->cap = cap;
    }
    user *e = &u->v[u->n];
    memcpy(e->name, name, nl + 1);
    int rc = strncmp(secret, "SCRAM-SHA-256$", 14) == 0 ? tn_pg_scram_init_verifier(&e->keys, secret)
                                                        : tn_pg_scram_init(&e->keys, secret);
    if (rc) {
        char why[256];     /* the callee's message, copied: tn_error_set overwrites it */
        snprintf(why, sizeof why, "%s", tn_error_message());
        return tn_error_set(rc, "%s:%d: user '%s': %s", path, lineno, name, why);
    }
    u->n++;
    return 0;
}

int tn_pg_users_load(const char *path, tn_pg_users **out) {
    *out = NULL;
    tn_pg_users *u = tn_calloc(1, sizeof *u);
    if (!u) return TN_ENOMEM;
    int rc = 0, lineno = 0;
    char line[1024];
    FILE *f = fopen(path, "r");
    if (!f) {
        rc = tn_error_set(TN_EIO, "--auth-file %s: %s", path, strerror(errno));
        goto cleanup;
    }
    if (RAND_bytes(u->mock_secret, sizeof u->mock_secret) != 1) {
        rc = tn_error_set(TN_EINTERNAL, "no random bytes for the auth file's mock keys");
        goto cleanup;
    }
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            rc = tn_error_set(TN_EINVAL, "%s:%d: line longer than %zu bytes", path, lineno, sizeof line - 2);
            goto cleanup;
        }
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#') continue;
        if ((rc = add_line(u, path, lineno, line))) goto cleanup;
    }
    if (ferror(f)) {
        rc = tn_error_set(TN_EIO, "--auth-file %s: read error", path);
        goto cleanup;
    }
    if (!u->n) {
        rc = tn_error_set(TN_EINVAL, "--auth-file %s lists no users", path);
        goto cleanup;
    }
    *out = u;
    u = NULL;
cleanup:
    OPENSSL_cleanse(line, sizeof line);
    if (f) fclose(f);
    tn_pg_users_free(u);
    return rc;
}

size_t tn_pg_users_count(const tn_pg_users *u) { return u->n; }

bool tn_pg_users_lookup(const tn_pg_users *u, const char *name, tn_pg_scram *out) {
    for (size_t i = 0; i < u->n; i++) {
        if (strcmp(u->v[i].name, name) == 0) {
            *out = u->v[i].keys;
            return true;
        }
    }
    /* mock keys derived from the name: the same salt every time, as for a real user */
    memset(out, 0, sizeof *out);
    uint8_t h[32];
    unsigned int len = sizeof h;
    char msg[80];
    snprintf(msg, sizeof msg, "salt:%s", name);
    HMAC(EVP_sha256(), u->mock_secret, sizeof u->mock_secret, (const uint8_t *)msg, strlen(msg), h, &len);
    memcpy(out->salt, h, 16);
    out->salt_len = 16;
    out->iterations = 4096;
    snprintf(msg, sizeof msg, "keys:%s", name);
    HMAC(EVP_sha256(), u->mock_secret, sizeof u->mock_secret, (const uint8_t *)msg, strlen(msg), out->stored_key, &len);
    memcpy(out->server_key, out->stored_key, 32);
    return false;
}
