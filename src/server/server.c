/*
 * server/server.c: `tarn serve`: the listening socket, one thread per connection (bounded by
 * max_connections; tarn's statements block their thread and use the session's worker pool, so
 * a thread per session is the simplest model that keeps a slow query from stalling others),
 * the registry of sessions (backend pid/key for CancelRequest, statement deadlines checked by
 * the accept loop), the log, and graceful shutdown on SIGTERM/SIGINT.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "server/connInt.h"

#define SHUTDOWN_GRACE_NS INT64_C(5000000000)   /* running statements may finish within 5 s */

struct tn_pg_server {
    tn_server_options o;
    pthread_mutex_t lock;
    pthread_cond_t idle;         /* signalled when a connection thread ends */
    tn_pg_backend *slots;        /* max_connections */
    int nthreads;                /* connection threads alive */
    int32_t next_pid;
    volatile int stopping;
    pthread_mutex_t log_lock;
    SSL_CTX *tls;                /* --tls-cert/--tls-key; NULL: SSLRequest answered 'N' */
    tn_pg_users *users;          /* --auth-file; NULL: --password or no authentication */
};

static volatile sig_atomic_t got_signal;
static void on_signal(int sig) { got_signal = sig; }

const tn_server_options *tn_pg_server_opts(const tn_pg_server *s) { return &s->o; }
SSL_CTX *tn_pg_server_tls(const tn_pg_server *s) { return s->tls; }
const tn_pg_users *tn_pg_server_users(const tn_pg_server *s) { return s->users; }

int tn_server_scram_verifier(const char *password, char *out, size_t cap) {
    tn_pg_scram k;
    int rc = tn_pg_scram_init(&k, password);
    if (!rc) tn_pg_scram_verifier(&k, out, cap);
    OPENSSL_cleanse(&k, sizeof k);
    return rc;
}
bool tn_pg_server_stopping(const tn_pg_server *s) { return __atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE) != 0; }

void tn_pg_server_log(tn_pg_server *s, const char *fmt, ...) {
    char when[32];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    pthread_mutex_lock(&s->log_lock);
    fprintf(stderr, "%s.%03ld UTC tarn serve: ", when, ts.tv_nsec / 1000000);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    pthread_mutex_unlock(&s->log_lock);
}

int tn_pg_server_attach(tn_pg_server *s, tn_sql_session *session, tn_pg_backend **out) {
    *out = NULL;
    int32_t key;
    if (RAND_bytes((unsigned char *)&key, sizeof key) != 1) return tn_error_set(TN_EINTERNAL, "no random bytes for a backend key");
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->o.max_connections; i++) {
        tn_pg_backend *b = &s->slots[i];
        if (b->used) continue;
        memset(b, 0, sizeof *b);
        b->used = true;
        b->session = session;
        b->pid = s->next_pid++;
        if (s->next_pid <= 0) s->next_pid = 1000;
        b->key = key;
        *out = b;
        break;
    }
    pthread_mutex_unlock(&s->lock);
    if (!*out) return tn_error_set(TN_ELIMIT, "sorry, too many clients already (max_connections %d)", s->o.max_connections);
    return 0;
}

void tn_pg_server_detach(tn_pg_server *s, tn_pg_backend *b) {
    pthread_mutex_lock(&s->lock);
    b->used = false;
    b->session = NULL;
    pthread_mutex_unlock(&s->lock);
}

void tn_pg_server_cancel(tn_pg_server *s, int32_t pid, int32_t key) {
    bool found = false;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->o.max_connections; i++) {
        tn_pg_backend *b = &s->slots[i];
        if (b->used && b->pid == pid && b->key == key) {
            tn_sql_session_interrupt(b->session);
            found = true;
        }
    }
    pthread_mutex_unlock(&s->lock);
    tn_pg_server_log(s, "cancel request for backend %d: %s", pid, found ? "statement canceled" : "no such backend or wrong key (ignored)");
}

/* The accept loop's periodic work: statement deadlines; after the grace period of a shutdown,
 * every running statement is canceled. */
static void watchdog(tn_pg_server *s, bool cancel_all) {
    int64_t now = (int64_t)tn_time_ns();
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->o.max_connections; i++) {
        tn_pg_backend *b = &s->slots[i];
        if (!b->used) continue;
        int64_t d = __atomic_load_n(&b->deadline_ns, __ATOMIC_ACQUIRE);
        if (d && now > d) {
            __atomic_store_n(&b->deadline_ns, 0, __ATOMIC_RELEASE);
            __atomic_store_n(&b->timed_out, 1, __ATOMIC_RELEASE);
            tn_sql_session_interrupt(b->session);
        } else if (cancel_all && __atomic_load_n(&b->running, __ATOMIC_ACQUIRE)) {
            tn_sql_session_interrupt(b->session);
        }
    }
    pthread_mutex_unlock(&s->lock);
}

typedef struct conn_arg {
    tn_pg_server *srv;
    int fd;
    char peer[64];
} conn_arg;

static void *conn_thread(void *p) {
    conn_arg *a = p;
    tn_pg_server *s = a->srv;
    tn_pg_conn_run(s, a->fd, a->peer);
    tn_free(a);
    pthread_mutex_lock(&s->lock);
    s->nthreads--;
    pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Over the limit: one FATAL ErrorResponse and close (the client learns why). */
static void refuse(int fd, const char *sqlstate, const char *msg) {
    tn_pg_out o = {TN_BUF_INIT, 0};
    tn_pg_put_error(&o, 'E', "FATAL", sqlstate, msg, NULL, NULL, 0);
    if (!o.err) {
        ssize_t n = send(fd, o.buf.data, o.buf.len, MSG_NOSIGNAL);
        (void)n;
    }
    tn_buf_free(&o.buf);
    close(fd);
}

static bool is_loopback_host(const struct addrinfo *ai) {
    if (ai->ai_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr) >> 24) == 127;
    if (ai->ai_family == AF_INET6)
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr);
    return false;
}

static int listen_on(const tn_server_options *o, int *out_fd, int *out_port) {
    char port[16];
    snprintf(port, sizeof port, "%d", o->port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gr = getaddrinfo(o->host, port, &hints, &res);
    if (gr) return tn_error_set(TN_EINVAL, "cannot listen on %s:%d: %s", o->host, o->port, gai_strerror(gr));
    int rc = 0, fd = -1;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        if (!is_loopback_host(ai) && !o->password && !o->auth_file) {
            rc = tn_error_set(TN_EINVAL,
                              "refusing to listen on %s without authentication: give --user and --password or --auth-file (or listen on 127.0.0.1)",
                              o->host);
            break;
        }
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 128) == 0) break;
        rc = tn_error_set(TN_EIO, "cannot listen on %s:%d: %s", o->host, o->port, strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) return rc ? rc : tn_error_set(TN_EIO, "cannot listen on %s:%d", o->host, o->port);
    if (rc) {
        close(fd);
        return rc;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    *out_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
    *out_fd = fd;
    return 0;
}

int tn_server_run(const tn_server_options *opts) {
    tn_pg_server *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    s->o = *opts;
    if (!s->o.warehouse || !*s->o.warehouse) s->o.warehouse = getenv("TARN_WAREHOUSE");
    if (!s->o.warehouse || !*s->o.warehouse) s->o.warehouse = "./warehouse";
    if (!s->o.host) s->o.host = "127.0.0.1";
    if (s->o.max_connections <= 0) s->o.max_connections = 64;
    if (!s->o.max_message) s->o.max_message = 64u << 20;
    s->next_pid = 1000 + (int32_t)(getpid() % 1000) * 1000;
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->log_lock, NULL);
    pthread_cond_init(&s->idle, NULL);
    int lfd = -1, port = 0, rc = 0;
    s->slots = tn_calloc((size_t)s->o.max_connections, sizeof *s->slots);
    if (!s->slots) { rc = TN_ENOMEM; goto cleanup; }
    if (s->o.user && !s->o.password) {
        rc = tn_error_set(TN_EINVAL, "--user needs --password (without a password every user name is accepted)");
        goto cleanup;
    }
    if (!s->o.tls_cert != !s->o.tls_key) {
        rc = tn_error_set(TN_EINVAL, "%s needs %s too (TLS takes a certificate and its private key)",
                          s->o.tls_cert ? "--tls-cert" : "--tls-key", s->o.tls_cert ? "--tls-key" : "--tls-cert");
        goto cleanup;
    }
    if (s->o.require_tls && !s->o.tls_cert) {
        rc = tn_error_set(TN_EINVAL, "--require-tls needs --tls-cert and --tls-key");
        goto cleanup;
    }
    if (s->o.tls_ca && !s->o.tls_cert) {
        rc = tn_error_set(TN_EINVAL, "--tls-ca needs --tls-cert and --tls-key (client certificates come over TLS)");
        goto cleanup;
    }
    if (s->o.tls_client_cert && !s->o.tls_ca) {
        rc = tn_error_set(TN_EINVAL, "--client-cert needs --tls-ca (the CAs that sign the client certificates)");
        goto cleanup;
    }
    if (s->o.auth_file && (s->o.user || s->o.password)) {
        rc = tn_error_set(TN_EINVAL, "--auth-file lists the users: give it without --user/--password");
        goto cleanup;
    }
    if (s->o.auth_file && (rc = tn_pg_users_load(s->o.auth_file, &s->users))) goto cleanup;
    if (s->o.tls_cert && (rc = tn_pg_tls_context(s->o.tls_cert, s->o.tls_key, s->o.tls_ca, &s->tls))) goto cleanup;
    if ((rc = listen_on(&s->o, &lfd, &port))) goto cleanup;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    got_signal = 0;

    char authn[128];
    if (s->users) snprintf(authn, sizeof authn, "SCRAM-SHA-256 authentication of %zu users from %s",
                           tn_pg_users_count(s->users), s->o.auth_file);
    else snprintf(authn, sizeof authn, "%s", s->o.password ? "SCRAM-SHA-256 authentication" : "no authentication (loopback only)");
    tn_pg_server_log(s, "listening on %s port %d, warehouse %s, %s, %s, max %d connections", s->o.host, port,
                     s->o.warehouse, authn,
                     !s->tls ? "no TLS" : s->o.require_tls ? "TLS required" : "TLS offered",
                     s->o.max_connections);
    if (s->o.ready_file) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", s->o.ready_file);
        FILE *f = fopen(tmp, "w");
        if (f) {
            fprintf(f, "%d\n", port);
            fclose(f);
            rename(tmp, s->o.ready_file);
        }
    }
    while (!got_signal) {
        struct pollfd p = {lfd, POLLIN, 0};
        int pr = poll(&p, 1, 20);
        watchdog(s, false);
        if (pr <= 0) continue;
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct timeval tv = {60, 0};
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        struct timeval quiet = {0, TN_PG_QUIET_MS * 1000};      /* conn.c's reads wake to check shutdown */
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &quiet, sizeof quiet);
        conn_arg *a = tn_calloc(1, sizeof *a);
        if (!a) {
            refuse(fd, "53200", "out of memory");
            continue;
        }
        a->srv = s;
        a->fd = fd;
        char host[INET6_ADDRSTRLEN] = "?";
        int pport = 0;
        if (ss.ss_family == AF_INET) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
            pport = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof host);
            pport = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        }
        snprintf(a->peer, sizeof a->peer, "%s:%d", host, pport);
        pthread_mutex_lock(&s->lock);
        /* a connection thread per slot, plus a few for cancel requests and refusals */
        bool full = s->nthreads >= s->o.max_connections + 8;
        if (!full) s->nthreads++;
        pthread_mutex_unlock(&s->lock);
        if (full) {
            refuse(fd, "53300", "sorry, too many clients already");
            tn_free(a);
            continue;
        }
        pthread_t th;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 1u << 20);
        if (pthread_create(&th, &attr, conn_thread, a) != 0) {
            pthread_mutex_lock(&s->lock);
            s->nthreads--;
            pthread_mutex_unlock(&s->lock);
            refuse(fd, "53000", "cannot start a thread for the connection");
            tn_free(a);
        }
        pthread_attr_destroy(&attr);
    }
    tn_pg_server_log(s, "received %s: shutting down (running statements get %d s, then are canceled)",
                     got_signal == SIGINT ? "SIGINT" : "SIGTERM", (int)(SHUTDOWN_GRACE_NS / 1000000000));
    close(lfd);
    lfd = -1;
    __atomic_store_n(&s->stopping, 1, __ATOMIC_RELEASE);
    int64_t t0 = (int64_t)tn_time_ns();
    pthread_mutex_lock(&s->lock);
    while (s->nthreads > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50 * 1000000;
        if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
        pthread_cond_timedwait(&s->idle, &s->lock, &ts);
        pthread_mutex_unlock(&s->lock);
        watchdog(s, (int64_t)tn_time_ns() - t0 > SHUTDOWN_GRACE_NS);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    tn_pg_server_log(s, "shut down");
cleanup:
    if (lfd >= 0) close(lfd);
    tn_free(s->slots);
    tn_pg_tls_context_free(s->tls);
    tn_pg_users_free(s->users);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->log_lock);
    pthread_cond_destroy(&s->idle);
    tn_free(s);
    return rc;
}
