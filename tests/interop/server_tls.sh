#!/usr/bin/env bash
# tests/interop/server_tls.sh: `tarn serve --tls-cert/--tls-key` with real clients: psql
# (sslmode=require and verify-full against the configured certificate, a wrong CA refused),
# psycopg2, node-pg (CA-verified) and pgjdbc (sslmode=require), SCRAM over TLS, large COPY
# both ways through TLS records, --require-tls refusing clear connections; misconfigured
# certificates refused at start with the file and the reason; a server without TLS answers
# sslmode=require with 'N'. Every client's connection must be logged as TLS by the server.
set -u
source "$(dirname "$0")/lib.sh"
source "$TN_REPO/tests/server/lib.sh"
cd "$TN_REPO"
SRV_DIR=$(mktemp -d /tmp/server-tls-XXXXXX)
C=$SRV_DIR/certs
mkdir -p "$C"
mkcert() {   # mkcert NAME CN
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/$1.key" -out "$C/$1.crt" -subj "/CN=$2" -days 2 \
        >/dev/null 2>&1 || { echo "FAIL openssl req"; echo "0 passed, 1 failed"; exit 1; }
}
mkcert srv localhost
mkcert other other

# --- misconfiguration is refused at start, naming the file and why -----------------------------
serve_err() { "$BUILD/tarn" serve -w "$SRV_DIR/w0" --port 0 "$@" 2>&1; echo "rc=$?"; }
out=$(serve_err --tls-cert "$C/srv.crt")
check_contains "cert without key" "--tls-cert needs --tls-key too" "$out"
check_contains "cert without key exits non-zero" "rc=1" "$out"
check_contains "missing cert file" "--tls-cert $C/nope.crt: cannot load the certificate" "$(serve_err --tls-cert "$C/nope.crt" --tls-key "$C/srv.key")"
echo "not a certificate" >"$C/bad.crt"
check_contains "garbage cert file" "--tls-cert $C/bad.crt: cannot load the certificate (PEM expected): no start line" "$(serve_err --tls-cert "$C/bad.crt" --tls-key "$C/srv.key")"
check_contains "key of another certificate" "--tls-key $C/other.key does not match the certificate of --tls-cert $C/srv.crt" \
    "$(serve_err --tls-cert "$C/srv.crt" --tls-key "$C/other.key")"
check_contains "require-tls without a certificate" "--require-tls needs --tls-cert and --tls-key" "$(serve_err --require-tls)"

# --- a server without TLS: SSLRequest answered 'N' ------------------------------------------------
srv_start
check_contains "sslmode=require without TLS on the server" "server does not support SSL, but SSL was required" \
    "$(psql -X "host=127.0.0.1 port=$SRV_PORT user=tester dbname=tarn sslmode=require" -c 'select 1' 2>&1)"
check "sslmode=prefer falls back to clear" "1" "$(psql -X -At "host=127.0.0.1 port=$SRV_PORT user=tester dbname=tarn sslmode=prefer" -c 'select 1' 2>&1)"
srv_stop

# --- TLS with SCRAM -------------------------------------------------------------------------------
export PGPASSWORD=s3cret
srv_start --tls-cert "$C/srv.crt" --tls-key "$C/srv.key" --user tester --password s3cret
conn="port=$SRV_PORT user=tester dbname=tarn"
check_contains "psql sslmode=require" "SSL connection (protocol: TLSv1." "$(psql -X "host=127.0.0.1 $conn sslmode=require" -c '\conninfo' 2>&1)"
check "psql verify-full against the configured certificate" "42" \
    "$(psql -X -At "host=localhost $conn sslmode=verify-full sslrootcert=$C/srv.crt application_name=psql-verify" -c 'select 42' 2>&1)"
check_contains "another CA: certificate verify failed" "certificate verify failed" \
    "$(psql -X -At "host=localhost $conn sslmode=verify-full sslrootcert=$C/other.crt" -c 'select 1' 2>&1)"
check_contains "wrong password over TLS" "password authentication failed for user \"tester\"" \
    "$(PGPASSWORD=nope psql -X -At "host=127.0.0.1 $conn sslmode=require" -c 'select 1' 2>&1)"
check "clear connections still accepted without --require-tls" "1" \
    "$(psql -X -At "host=127.0.0.1 $conn sslmode=disable" -c 'select 1' 2>&1)"

# large transfers in both directions: many TLS records, decrypted bytes pending beyond poll(2)
seq 1 200000 | awk '{print $1 "\tv" $1}' >"$SRV_DIR/rows.tsv"
psql -X -q "host=127.0.0.1 $conn sslmode=require" -c "create table big (i bigint, s varchar)" >/dev/null 2>&1
check "COPY FROM STDIN over TLS (200k rows)" "COPY 200000" \
    "$(psql -X "host=127.0.0.1 $conn sslmode=require" -c "\\copy big from '$SRV_DIR/rows.tsv'" 2>&1)"
check "COPY TO STDOUT over TLS equals the input" "$(md5sum <"$SRV_DIR/rows.tsv")" \
    "$(psql -X "host=127.0.0.1 $conn sslmode=require" -c "copy (select * from big order by i) to stdout" 2>&1 | md5sum)"
check "select over TLS" "200000|20000100000" "$(psql -X -At "host=127.0.0.1 $conn sslmode=require" -c 'select count(*), sum(i) from big' 2>&1)"

check "psycopg2 verify-full" "[(3, 'x')]" "$(/usr/bin/python3 - "$SRV_PORT" "$C/srv.crt" <<'PY' 2>&1
import sys, psycopg2
c = psycopg2.connect(host="localhost", port=int(sys.argv[1]), user="tester", password="s3cret", dbname="tarn",
                     sslmode="verify-full", sslrootcert=sys.argv[2], application_name="psycopg-tls")
cur = c.cursor()
cur.execute("select %s + 1, %s", (2, "x"))
print(cur.fetchall())
PY
)"
check "node-pg with the CA" "5 tls" "$(node - "$SRV_PORT" "$C/srv.crt" <<'JS' 2>&1
const { Client } = require(process.cwd() + '/tests/server/node_modules/pg');
const fs = require('fs');
(async () => {
    const c = new Client({ host: 'localhost', port: Number(process.argv[2]), user: 'tester', password: 's3cret',
        database: 'tarn', application_name: 'node-tls', ssl: { ca: fs.readFileSync(process.argv[3]) } });
    await c.connect();
    const r = await c.query('select $1::int + 2 as n, $2::varchar as s', [3, 'tls']);
    console.log(r.rows[0].n + ' ' + r.rows[0].s);
    await c.end();
})().catch(e => { console.log('error: ' + e.message); });
JS
)"
if javac -d "$SRV_DIR/java" -cp /usr/share/java/postgresql.jar tests/server/TlsClient.java 2>"$SRV_DIR/javac.log"; then
    check "pgjdbc sslmode=require" "2 r3" "$(java -cp "$SRV_DIR/java:/usr/share/java/postgresql.jar" TlsClient "$SRV_PORT" s3cret 2>&1)"
else
    check "javac TlsClient" "" "$(cat "$SRV_DIR/javac.log")"
fi
# SCRAM-SHA-256-PLUS: libpq binds to the certificate by default (channel_binding=prefer) and
# when required; node-pg and pgjdbc (no channel binding in these versions) use plain SCRAM
check "psql channel_binding=require" "1" \
    "$(psql -X -At "host=127.0.0.1 $conn sslmode=require channel_binding=require application_name=psql-cb" -c 'select 1' 2>&1)"
check_contains "psql channel_binding=require, wrong password" "password authentication failed for user \"tester\"" \
    "$(PGPASSWORD=nope psql -X -At "host=127.0.0.1 $conn sslmode=require channel_binding=require" -c 'select 1' 2>&1)"
for pair in psql-cb:SCRAM-SHA-256-PLUS psql-verify:SCRAM-SHA-256-PLUS psycopg-tls:SCRAM-SHA-256-PLUS \
            node-tls:SCRAM-SHA-256 jdbc-tls:SCRAM-SHA-256; do
    check_contains "${pair%%:*} authenticated with ${pair#*:}" "auth=${pair#*:}" \
        "$(grep "application_name=${pair%%:*} " "$SRV_DIR/log" | sed 's/$/|/')"
done
check_contains "channel_binding=disable: plain SCRAM over TLS" "auth=SCRAM-SHA-256|" \
    "$(psql -X -At "host=127.0.0.1 $conn sslmode=require channel_binding=disable application_name=psql-nocb" -c 'select 1' >/dev/null 2>&1; grep 'application_name=psql-nocb ' "$SRV_DIR/log" | sed 's/$/|/')"
for app in psql-verify psycopg-tls node-tls jdbc-tls; do
    check_contains "server logged $app as TLS" "application_name=$app TLS=TLSv1." "$(grep "application_name=$app " "$SRV_DIR/log")"
done
check_contains "failed handshake logged" "TLS handshake failed" "$(cat "$SRV_DIR/log")"
srv_stop

# --- --require-tls ---------------------------------------------------------------------------------
srv_start --tls-cert "$C/srv.crt" --tls-key "$C/srv.key" --require-tls
check_contains "clear connection refused" "connection without TLS refused: the server was started with --require-tls" \
    "$(psql -X -At "host=127.0.0.1 port=$SRV_PORT user=tester dbname=tarn sslmode=disable" -c 'select 1' 2>&1)"
check "TLS connection accepted" "1" "$(psql -X -At "host=127.0.0.1 port=$SRV_PORT user=tester dbname=tarn sslmode=require" -c 'select 1' 2>&1)"
check "the server still serves after refusals" "7" "$(psql -X -At "host=127.0.0.1 port=$SRV_PORT user=tester dbname=tarn" -c 'select 7' 2>&1)"
srv_stop

# --- client certificates (--tls-ca, --client-cert): a CA signs the client certificates --------------
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/ca.key" -out "$C/ca.crt" -subj "/CN=test CA" -days 2 >/dev/null 2>&1
clientcert() {   # clientcert NAME CN: a key and a certificate signed by the test CA (libpq wants 0600 keys)
    openssl req -newkey rsa:2048 -nodes -keyout "$C/$1.key" -out "$C/$1.csr" -subj "/CN=$2" >/dev/null 2>&1
    openssl x509 -req -in "$C/$1.csr" -CA "$C/ca.crt" -CAkey "$C/ca.key" -CAcreateserial -out "$C/$1.crt" -days 2 >/dev/null 2>&1
    chmod 600 "$C/$1.key"
}
clientcert tester tester
clientcert alice alice
chmod 600 "$C/other.key"
check_contains "--client-cert without --tls-ca" "--client-cert needs --tls-ca" \
    "$(serve_err --tls-cert "$C/srv.crt" --tls-key "$C/srv.key" --client-cert verify-ca)"
check_contains "--tls-ca without a certificate" "--tls-ca needs --tls-cert and --tls-key" "$(serve_err --tls-ca "$C/ca.crt")"
check_contains "unreadable --tls-ca" "--tls-ca $C/nope.crt: cannot load the CA certificates" \
    "$(serve_err --tls-cert "$C/srv.crt" --tls-key "$C/srv.key" --tls-ca "$C/nope.crt")"
check_contains "bad --client-cert value" "--client-cert expects verify-ca or verify-full, got 'yes'" \
    "$(serve_err --tls-cert "$C/srv.crt" --tls-key "$C/srv.key" --tls-ca "$C/ca.crt" --client-cert yes)"
srv_start --tls-cert "$C/srv.crt" --tls-key "$C/srv.key" --tls-ca "$C/ca.crt" --client-cert verify-full --user tester --password s3cret
conn="host=127.0.0.1 port=$SRV_PORT user=tester dbname=tarn sslmode=require"
check "psql with the user's certificate" "1" "$(psql -X -At "$conn sslcert=$C/tester.crt sslkey=$C/tester.key application_name=psql-cert" -c 'select 1' 2>&1)"
check_contains "server logged the certificate's CN" "client_cert_cn=tester" "$(grep 'application_name=psql-cert ' "$SRV_DIR/log")"
check_contains "no certificate: 28000" "connection requires a valid client certificate" \
    "$(psql -X -At "$conn sslcert=/nonexistent sslkey=/nonexistent" -c 'select 1' 2>&1)"
check_contains "another user's certificate with verify-full" "certificate validation (clientcert=verify-full) failed for user \"tester\"" \
    "$(psql -X -At "$conn sslcert=$C/alice.crt sslkey=$C/alice.key" -c 'select 1' 2>&1)"
check_contains "a certificate of another CA: the handshake fails" "unknown ca" \
    "$(psql -X -At "$conn sslcert=$C/other.crt sslkey=$C/other.key" -c 'select 1' 2>&1)"
check_contains "the right certificate, a wrong password" "password authentication failed for user \"tester\"" \
    "$(PGPASSWORD=nope psql -X -At "$conn sslcert=$C/tester.crt sslkey=$C/tester.key" -c 'select 1' 2>&1)"
check_contains "clear connection without a certificate" "connection requires a valid client certificate" \
    "$(psql -X -At "host=127.0.0.1 port=$SRV_PORT user=tester dbname=tarn sslmode=disable" -c 'select 1' 2>&1)"
check "psycopg2 with the user's certificate" "[(2,)]" "$(/usr/bin/python3 - "$SRV_PORT" "$C" <<'PY' 2>&1
import sys, psycopg2
c = psycopg2.connect(host="127.0.0.1", port=int(sys.argv[1]), user="tester", password="s3cret", dbname="tarn",
                     sslmode="require", sslcert=sys.argv[2] + "/tester.crt", sslkey=sys.argv[2] + "/tester.key")
cur = c.cursor(); cur.execute("select 2"); print(cur.fetchall())
PY
)"
check "node-pg with the user's certificate" "3" "$(node - "$SRV_PORT" "$C" <<'JS' 2>&1
const { Client } = require(process.cwd() + '/tests/server/node_modules/pg');
const fs = require('fs');
(async () => {
    const d = process.argv[3];
    const c = new Client({ host: 'localhost', port: Number(process.argv[2]), user: 'tester', password: 's3cret', database: 'tarn',
        ssl: { ca: fs.readFileSync(d + '/srv.crt'), cert: fs.readFileSync(d + '/tester.crt'), key: fs.readFileSync(d + '/tester.key') } });
    await c.connect();
    console.log((await c.query('select 3 as n')).rows[0].n);
    await c.end();
})().catch(e => { console.log('error: ' + e.message); });
JS
)"
srv_stop
srv_start --tls-cert "$C/srv.crt" --tls-key "$C/srv.key" --tls-ca "$C/ca.crt" --client-cert verify-ca
check "verify-ca: any certificate of the CA" "4" \
    "$(psql -X -At "host=127.0.0.1 port=$SRV_PORT user=tester dbname=tarn sslmode=require sslcert=$C/alice.crt sslkey=$C/alice.key" -c 'select 4' 2>&1)"
srv_stop
srv_start --tls-cert "$C/srv.crt" --tls-key "$C/srv.key" --tls-ca "$C/ca.crt"
check "--tls-ca alone: a certificate is optional" "5" \
    "$(psql -X -At "host=127.0.0.1 port=$SRV_PORT user=tester dbname=tarn sslmode=require sslcert=/nonexistent sslkey=/nonexistent" -c 'select 5' 2>&1)"
check_contains "--tls-ca alone: a certificate that does not verify fails" "unknown ca" \
    "$(psql -X -At "host=127.0.0.1 port=$SRV_PORT user=tester dbname=tarn sslmode=require sslcert=$C/other.crt sslkey=$C/other.key" -c 'select 5' 2>&1)"
srv_stop
summary
