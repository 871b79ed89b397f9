#!/usr/bin/env bash
# tests/interop/server_safety.sh: `tarn serve` under bad input and abuse: malformed and oversize
# frames, garbage bytes, a protocol-2 startup, unknown message types (each closes that
# connection only, with an ErrorResponse naming the problem), wrong password and unknown user
# (28P01), cancel with a wrong key (ignored), statement_timeout and cancel (57014), a flood of
# connections past --max-connections (53300), a non-loopback address without a password
# (refused at start), --read-only; after each the server keeps serving.
set -u
source "$(dirname "$0")/lib.sh"
source "$TN_REPO/tests/server/lib.sh"
cd "$TN_REPO"
PY=/usr/bin/python3
raw() { "$PY" tests/server/raw_client.py "$SRV_PORT" "$@" 2>&1; }

srv_start --max-connections 6 --max-message 65536
check "garbage bytes" "E FATAL 08P01: invalid length of startup packet: 369295618 bytes (8 to 10000 expected)" "$(raw garbage | head -n 1)"
check "protocol 2 startup" "E FATAL 0A000: unsupported frontend protocol 2.0: server supports 3.0" "$(raw protocol2 | head -n 1)"
check_contains "startup of 2 GB" "E FATAL 08P01: invalid length of startup packet" "$(raw startup_too_long)"
check "no user" "E FATAL 28000: no PostgreSQL user name specified in startup packet" "$(raw no_user | head -n 1)"
check "SSLRequest answered N, then plain" "ssl answer N
row 42" "$(raw ssl_then_query)"
check "frame of 2 GB" "E FATAL 54000: message of type 'Q' is 2147483643 bytes, above the server's limit of 65536 bytes" "$(raw frame_2gb | grep '^E')"
check "frame length below 4" "E FATAL 08P01: invalid message length 2 for message type 'Q' (0x51)" "$(raw frame_negative | grep '^E')"
check "unknown message type" "E FATAL 08P01: invalid frontend message type '?' (0x07)" "$(raw bad_type | grep '^E')"
check "truncated Bind" "E FATAL 08P01: Bind message: truncated at byte 6: an int32 needs 4 bytes, 0 left" "$(raw truncated_bind | grep '^E')"
check "Bind parameter longer than the message" "E FATAL 08P01: Bind message: parameter 1 length 2147483647 exceeds the 3 bytes left" "$(raw bind_overlong_param | grep '^E')"
check "extended error skips to Sync" "E Z" "$(raw extended_error_skips_to_sync)"
# the statement releases the portal running it (a use-after-free under ASan once): PostgreSQL's
# answers, the portal's statement gone afterwards, the session serving
check "DEALLOCATE ALL / DISCARD ALL / DEALLOCATE itself from their own portal" "DEALLOCATE ALL: 1 1 2 n C DEALLOCATE ALL Z
  s2 afterwards: error 26000
DISCARD ALL: 1 1 2 n C DISCARD ALL Z
  s2 afterwards: error 26000
DEALLOCATE s1: 1 1 2 n C DEALLOCATE Z
  s2 afterwards: row 5
deallocate all: 1 1 2 n C DEALLOCATE ALL Z
  s2 afterwards: error 26000
row 7" "$(raw release_in_own_portal)"
check_contains "DISCARD ALL in a block: 25001" "25001: DISCARD ALL cannot run inside a transaction block" "$(q -c 'begin' -c 'discard all')"
check "cancel with a wrong key is ignored" "cancel reply: closed
row 7" "$(raw cancel_wrong_key)"
check "server still serves" "1" "$(q -c 'select 1')"
check_contains "cancel logged as ignored" "no such backend or wrong key (ignored)" "$(cat "$SRV_DIR/log")"

# no file paths over the wire
check_contains "read_parquet refused" "0A000: read_parquet reads files by path, which this session does not allow" "$(q -c "select * from read_parquet('/etc/passwd')")"
check_contains "delta_scan refused" "0A000: delta_scan reads files by path" "$(q -c "select * from delta_scan('/tmp')")"
check_contains "COPY to a file refused" "0A000: COPY writes a file, which this session does not allow" "$(q -c "copy (select 1) to '$SRV_DIR/out.csv'")"
check "no file written" "absent" "$([ -e "$SRV_DIR/out.csv" ] && echo present || echo absent)"
check_contains "COPY FROM STDIN of a missing table: 42P01" "42P01: Table with name big does not exist" "$(q -c "copy big from stdin" </dev/null)"

# statement_timeout: a long statement is canceled with 57014 (a 4M-row cross join aggregate)
q -c "create table big as select * from (values (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)) v(x)" >/dev/null
long="select count(*) from big a, big b, big c, big d, big e, big f, big g, big h, big i"
check_contains "statement_timeout 57014" "ERROR:  57014: canceling statement due to statement timeout" "$(q -c 'set statement_timeout = 200' -c "$long")"
# psql sends a CancelRequest on SIGINT: the running statement stops with 57014
PGCONNECT_TIMEOUT=10 psql -X -q -A -t -h 127.0.0.1 -p "$SRV_PORT" -U tester -d tarn -v VERBOSITY=verbose -c "$long" >"$SRV_DIR/cancel.out" 2>&1 &
ppid=$!
sleep 1
kill -INT "$ppid"
wait "$ppid"
check_contains "cancel request 57014" "57014: canceling statement due to user request" "$(cat "$SRV_DIR/cancel.out")"

# connection flood: 6 held open, the 7th is told why
exec 3< <("$PY" - "$SRV_PORT" <<'PYEOF'
import socket, struct, sys, time
port = int(sys.argv[1]); held = []
for i in range(6):
    s = socket.create_connection(("127.0.0.1", port)); body = struct.pack("!i", 196608) + b"user\0u\0\0"
    s.sendall(struct.pack("!i", len(body) + 4) + body); held.append(s)
for s in held:
    while b"Z" not in s.recv(4096): pass
print("held", flush=True)
time.sleep(3)
PYEOF
)
read -r held_line <&3
check "six connections held" "held" "$held_line"
check_contains "7th connection refused 53300" "too many clients already" "$(q -c 'select 1')"
exec 3<&-
sleep 3.5
check "served again after the flood" "1" "$(q -c 'select 1')"
srv_stop
check "clean shutdown" "0" "$SRV_RC"

# authentication: SCRAM-SHA-256
srv_start --user alice --password 's3cret pw'
check "right password" "1" "$(PGPASSWORD='s3cret pw' psql -X -A -t -h 127.0.0.1 -p "$SRV_PORT" -U alice -d tarn -c 'select 1' 2>&1)"
check_contains "wrong password 28P01" "FATAL:  password authentication failed for user \"alice\"" \
    "$(PGPASSWORD=nope psql -X -A -t -h 127.0.0.1 -p "$SRV_PORT" -U alice -d tarn -v VERBOSITY=verbose -c 'select 1' 2>&1)"
check_contains "unknown user 28P01" "FATAL:  password authentication failed for user \"mallory\"" \
    "$(PGPASSWORD='s3cret pw' psql -X -A -t -h 127.0.0.1 -p "$SRV_PORT" -U mallory -d tarn -v VERBOSITY=verbose -c 'select 1' 2>&1)"
check "jdbc-style md5 not offered: psycopg2 with SCRAM" "ok" "$("$PY" -c "
import psycopg2
c = psycopg2.connect(host='127.0.0.1', port=$SRV_PORT, user='alice', password='s3cret pw', dbname='tarn')
cur = c.cursor(); cur.execute('select 1'); print('ok' if cur.fetchone() == (1,) else 'bad')" 2>&1)"
srv_stop

# start-up refusals
out=$("$BUILD/tarn" serve -w "$SRV_DIR/w" --host 0.0.0.0 --port 0 2>&1); rc=$?
check "non-loopback without password refused" "1 tarn: refusing to listen on 0.0.0.0 without authentication: give --user and --password or --auth-file (or listen on 127.0.0.1)" "$rc $out"

# --read-only
srv_start --read-only
check_contains "read-only refuses writes" "cannot run this statement: the server runs --read-only" "$(q -c 'insert into big values (11)')"
check "read-only reads" "10" "$(q -c 'select count(*) from big')"
srv_stop
summary
