/*
 * cli/serve_cmd.c: `tarn serve [-w DIR] [--host H] [--port N] [--user U --password P] ...`:
 * reads the options and runs the PostgreSQL wire-protocol server (server/server.h) until
 * SIGTERM/SIGINT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "server/server.h"
#include "tarn.h"

static const char serve_usage[] =
    "usage: tarn serve [-w DIR] [--host 127.0.0.1] [--port 5433] [--user U --password P]\n"
    "                  [--password-file FILE] [--max-connections N] [--max-message BYTES]\n"
    "                  [--idle-timeout SECONDS] [--statement-timeout MS] [--threads N]\n"
    "                  [--read-only] [--allow-file-access] [--log-queries] [--ready-file FILE]\n"
    "                  [--tls-cert FILE --tls-key FILE [--require-tls]\n"
    "                   [--tls-ca FILE [--client-cert verify-ca|verify-full]]] [--auth-file FILE]\n"
    "       tarn serve --scram-verifier < password\n"
    "\n"
    "PostgreSQL wire protocol v3 over the warehouse: psql, JDBC, node-pg, psycopg connect\n"
    "unchanged. SQL may not name files by path (read_parquet('/x'), COPY 'file') unless\n"
    "--allow-file-access is given. Without --password only a loopback address is accepted. The password may also\n"
    "come from $TARN_SERVER_PASSWORD or --password-file (first line).\n"
    "With --tls-cert/--tls-key (PEM) clients may connect with TLS (sslmode=require);\n"
    "--require-tls refuses those that do not. --tls-ca (also --ssl-ca): client certificates\n"
    "are asked for and verified against these CAs; --client-cert verify-ca requires one,\n"
    "verify-full also its CN to be the user name (as PostgreSQL's clientcert). --auth-file: one user a line, name:password or\n"
    "name:SCRAM-SHA-256$... (the verifier --scram-verifier prints for a password on stdin).\n";

static int int_arg(const char *opt, const char *v, long lo, long hi, long *out) {
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > hi)
        return tn_cli_errorf(TN_CLI_USAGE, "serve: %s expects a number from %ld to %ld, got '%s'", opt, lo, hi, v);
    *out = x;
    return 0;
}

/* `tarn serve --scram-verifier`: the verifier of the password on stdin's first line, for an
 * --auth-file line "name:SCRAM-SHA-256$...". */
static int scram_verifier(void) {
    char pw[1024], v[256];
    if (!fgets(pw, sizeof pw, stdin)) return tn_cli_errorf(TN_CLI_USAGE, "serve --scram-verifier: give the password on stdin");
    pw[strcspn(pw, "\r\n")] = 0;
    if (!pw[0]) return tn_cli_errorf(TN_CLI_USAGE, "serve --scram-verifier: the password is empty");
    if (tn_server_scram_verifier(pw, v, sizeof v)) return tn_cli_fail(NULL);
    printf("%s\n", v);
    return TN_CLI_OK;
}

int tn_cli_serve(int argc, char **argv, const char *warehouse) {
    tn_server_options o = TN_SERVER_OPTIONS_INIT;
    o.warehouse = warehouse;
    static char pwbuf[1024];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long x = 0;
        int rc = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(serve_usage, stdout);
            return TN_CLI_OK;
        }
        if (strcmp(a, "--read-only") == 0) { o.read_only = true; continue; }
        if (strcmp(a, "--log-queries") == 0) { o.log_queries = true; continue; }
        if (strcmp(a, "--allow-file-access") == 0) { o.allow_file_access = true; continue; }
        if (strcmp(a, "--require-tls") == 0) { o.require_tls = true; continue; }
        if (strcmp(a, "--scram-verifier") == 0) return scram_verifier();
        if (!v) return tn_cli_errorf(TN_CLI_USAGE, "serve: unknown option %s (or it needs a value)\n%s", a, serve_usage);
        i++;
        if (strcmp(a, "-w") == 0) o.warehouse = v;
        else if (strcmp(a, "--host") == 0) o.host = v;
        else if (strcmp(a, "--port") == 0) { if (!(rc = int_arg(a, v, 0, 65535, &x))) o.port = (int)x; }
        else if (strcmp(a, "--user") == 0) o.user = v;
        else if (strcmp(a, "--password") == 0) o.password = v;
        else if (strcmp(a, "--password-file") == 0) {
            FILE *f = fopen(v, "r");
            if (!f || !fgets(pwbuf, sizeof pwbuf, f)) {
                if (f) fclose(f);
                return tn_cli_errorf(TN_CLI_ERROR, "serve: cannot read a password from %s", v);
            }
            fclose(f);
            pwbuf[strcspn(pwbuf, "\r\n")] = 0;
            o.password = pwbuf;
        }
        else if (strcmp(a, "--max-connections") == 0) { if (!(rc = int_arg(a, v, 1, 10000, &x))) o.max_connections = (int)x; }
        else if (strcmp(a, "--max-message") == 0) { if (!(rc = int_arg(a, v, 1024, 1L << 30, &x))) o.max_message = (uint32_t)x; }
        else if (strcmp(a, "--idle-timeout") == 0) { if (!(rc = int_arg(a, v, 0, 1L << 30, &x))) o.idle_timeout_s = (int)x; }
        else if (strcmp(a, "--statement-timeout") == 0) { if (!(rc = int_arg(a, v, 0, 1L << 31, &x))) o.statement_timeout_ms = (int)x; }
        else if (strcmp(a, "--threads") == 0) { if (!(rc = int_arg(a, v, 1, 1024, &x))) o.threads = (int)x; }
        else if (strcmp(a, "--ready-file") == 0) o.ready_file = v;
        else if (strcmp(a, "--auth-file") == 0) o.auth_file = v;
        else if (strcmp(a, "--tls-cert") == 0) o.tls_cert = v;
        else if (strcmp(a, "--tls-key") == 0) o.tls_key = v;
        else if (strcmp(a, "--tls-ca") == 0 || strcmp(a, "--ssl-ca") == 0) o.tls_ca = v;
        else if (strcmp(a, "--client-cert") == 0) {
            if (strcmp(v, "verify-ca") == 0) o.tls_client_cert = TN_SERVER_CLIENT_CERT_VERIFY_CA;
            else if (strcmp(v, "verify-full") == 0) o.tls_client_cert = TN_SERVER_CLIENT_CERT_VERIFY_FULL;
            else return tn_cli_errorf(TN_CLI_USAGE, "serve: --client-cert expects verify-ca or verify-full, got '%s'", v);
        }
        else return tn_cli_errorf(TN_CLI_USAGE, "serve: unknown option %s\n%s", a, serve_usage);
        if (rc) return rc;
    }
    if (!o.password) {
        const char *env = getenv("TARN_SERVER_PASSWORD");
        if (env && *env) o.password = env;
    }
    if (o.password && !*o.password) return tn_cli_errorf(TN_CLI_USAGE, "serve: the password is empty");
    int rc = tn_server_run(&o);
    if (rc) return tn_cli_fail(NULL);
    return TN_CLI_OK;
}
