#!/usr/bin/env bash
# tests/interop/server_auth.sh: several users from `tarn serve --auth-file`: a verifier copied
# from PostgreSQL 15's pg_authid, a plain password, a verifier from `tarn serve
# --scram-verifier`; logins through psql, psycopg2 and node-pg as different users at once
# (current_user is the login), wrong passwords and unknown users both 28P01 with the same
# message; malformed files refused at start naming FILE:LINE.
set -u
source "$(dirname "$0")/lib.sh"
source "$TN_REPO/tests/server/lib.sh"
cd "$TN_REPO"
SRV_DIR=$(mktemp -d /tmp/server-auth-XXXXXX)
A=$SRV_DIR/users

v=$(echo 'c4rol!' | "$BUILD/tarn" serve --scram-verifier)
check "--scram-verifier prints a PostgreSQL verifier" "ok" \
    "$([[ "$v" =~ ^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$ ]] && echo ok || echo "$v")"
check "--scram-verifier salts afresh" "different" "$([ "$v" != "$(echo 'c4rol!' | "$BUILD/tarn" serve --scram-verifier)" ] && echo different)"
# alice's line is what PostgreSQL 15 stored for CREATE ROLE alice PASSWORD 'wonderland'
cat >"$A" <<EOF2
# tarn users
alice:SCRAM-SHA-256\$4096:P1lHq5sW0NuuNYqQ+4q1NQ==\$tXXe7lvD8jra8hpUiBpQxhsCRFw0leNEoMIdF/5RA4U=:7OtwYOZ6rCll+vAFDbiv7M4HygRc5D3U4XcGQMY6IUs=

bob:b0b pass:with colon
carol:$v
EOF2

# --- refused at start -------------------------------------------------------------------------------
serve_err() { "$BUILD/tarn" serve -w "$SRV_DIR/w0" --port 0 "$@" 2>&1; echo "rc=$?"; }
check_contains "missing file" "--auth-file $SRV_DIR/nope: No such file or directory" "$(serve_err --auth-file "$SRV_DIR/nope")"
printf '# ok\nalice\n' >"$SRV_DIR/bad1"
check_contains "line without ':'" "$SRV_DIR/bad1:2: expected name:password or name:SCRAM-SHA-256\$..." "$(serve_err --auth-file "$SRV_DIR/bad1")"
printf 'a:x\nb:y\na:z\n' >"$SRV_DIR/bad2"
check_contains "user twice" "$SRV_DIR/bad2:3: user 'a' is listed twice" "$(serve_err --auth-file "$SRV_DIR/bad2")"
printf 'a:SCRAM-SHA-256$4096:!!!$x:y\n' >"$SRV_DIR/bad3"
check_contains "bad verifier" "$SRV_DIR/bad3:1: user 'a': SCRAM verifier: the salt is not base64" "$(serve_err --auth-file "$SRV_DIR/bad3")"
printf 'a:\n' >"$SRV_DIR/bad4"
check_contains "empty password" "$SRV_DIR/bad4:1: user 'a' has an empty password" "$(serve_err --auth-file "$SRV_DIR/bad4")"
printf '# nobody\n\n' >"$SRV_DIR/bad5"
check_contains "no users" "--auth-file $SRV_DIR/bad5 lists no users" "$(serve_err --auth-file "$SRV_DIR/bad5")"
out=$(serve_err --auth-file "$A" --password x)
check_contains "auth file with --password" "--auth-file lists the users: give it without --user/--password" "$out"
check_contains "exits non-zero" "rc=1" "$out"

# --- logins --------------------------------------------------------------------------------------------
srv_start --auth-file "$A"
login() {   # login USER PASSWORD SQL
    PGPASSWORD=$2 psql -X -At -h 127.0.0.1 -p "$SRV_PORT" -U "$1" -d tarn -c "$3" 2>&1
}
check "alice (PostgreSQL's verifier)" "alice" "$(login alice wonderland 'select current_user')"
check "bob (plain password with a space and a colon)" "bob" "$(login bob 'b0b pass:with colon' 'select current_user')"
check "carol (--scram-verifier)" "carol" "$(login carol 'c4rol!' 'select current_user')"
check_contains "bob's password for alice: 28P01" 'password authentication failed for user "alice"' "$(login alice 'b0b pass:with colon' 'select 1')"
check_contains "unknown user: the same answer" 'password authentication failed for user "dave"' "$(login dave wonderland 'select 1')"
check "writes by one user, read by another" "1" "$(login alice wonderland 'create table shared (i int)' >/dev/null; login bob 'b0b pass:with colon' 'insert into shared values (1)' >/dev/null; login carol 'c4rol!' 'select count(*) from shared')"
check "psycopg2 as bob" "bob" "$(/usr/bin/python3 - "$SRV_PORT" <<'PY' 2>&1
import sys, psycopg2
c = psycopg2.connect(host="127.0.0.1", port=int(sys.argv[1]), user="bob", password="b0b pass:with colon", dbname="tarn")
cur = c.cursor(); cur.execute("select current_user"); print(cur.fetchone()[0])
PY
)"
check "psycopg2 wrong password: pgcode" "28P01" "$(/usr/bin/python3 - "$SRV_PORT" <<'PY' 2>&1
import sys, psycopg2
try:
    psycopg2.connect(host="127.0.0.1", port=int(sys.argv[1]), user="bob", password="nope", dbname="tarn")
    print("connected")
except psycopg2.OperationalError as e:
    print("28P01" if 'password authentication failed for user "bob"' in str(e) else str(e))
PY
)"
check "node-pg: three users at once" "alice,bob,carol" "$(node - "$SRV_PORT" <<'JS' 2>&1
const { Client } = require(process.cwd() + '/tests/server/node_modules/pg');
const users = [['alice', 'wonderland'], ['bob', 'b0b pass:with colon'], ['carol', 'c4rol!']];
(async () => {
    const cs = users.map(([user, password]) => new Client({ host: '127.0.0.1', port: Number(process.argv[2]), user, password, database: 'tarn' }));
    await Promise.all(cs.map(c => c.connect()));
    const rs = await Promise.all(cs.map(c => c.query('select current_user as u')));
    console.log(rs.map(r => r.rows[0].u).join(','));
    await Promise.all(cs.map(c => c.end()));
})().catch(e => console.log('error: ' + e.message));
JS
)"
check_contains "start logged with the user count" "SCRAM-SHA-256 authentication of 3 users from $A" "$(cat "$SRV_DIR/log")"
srv_stop
summary
