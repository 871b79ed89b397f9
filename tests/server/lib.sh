# tests/server/lib.sh: sourced by the server suites (tests/interop/server_*.sh): starts
# `tarn serve` on a free loopback port over a fresh warehouse (srv_start [options]), stops it
# by its pid (srv_stop), and the pass/fail counters every suite ends with (check, summary).
SRV_PID=""
SRV_PORT=""
SRV_DIR=""
pass=0; fail=0

check() {      # check NAME EXPECTED ACTUAL
    if [ "$2" == "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL $1"; echo "  expected: $(printf '%s' "$2" | head -c 2000)"; echo "  actual:   $(printf '%s' "$3" | head -c 2000)"; fi
}
check_contains() {   # check_contains NAME NEEDLE HAYSTACK
    if [[ "$3" == *"$2"* ]]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL $1"; echo "  expected to contain: $2"; echo "  actual: $(printf '%s' "$3" | head -c 2000)"; fi
}
summary() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }

# srv_start [serve options...]: warehouse $SRV_DIR/w, log $SRV_DIR/log.
srv_start() {
    [ -n "$SRV_DIR" ] || SRV_DIR=$(mktemp -d /tmp/server-test-XXXXXX)
    rm -f "$SRV_DIR/ready"
    "$TN_REPO/$BUILD/tarn" serve -w "$SRV_DIR/w" --port 0 --ready-file "$SRV_DIR/ready" "$@" >>"$SRV_DIR/log" 2>&1 &
    SRV_PID=$!
    for _ in $(seq 1 200); do
        [ -s "$SRV_DIR/ready" ] && break
        kill -0 "$SRV_PID" 2>/dev/null || break
        sleep 0.05
    done
    SRV_PORT=$(cat "$SRV_DIR/ready" 2>/dev/null)
    if [ -z "$SRV_PORT" ]; then echo "FAIL server did not start"; cat "$SRV_DIR/log"; echo "0 passed, 1 failed"; exit 1; fi
}
srv_stop() {
    if [ -n "$SRV_PID" ]; then
        kill -TERM "$SRV_PID" 2>/dev/null
        wait "$SRV_PID" 2>/dev/null
        SRV_RC=$?
        SRV_PID=""
    fi
}
srv_cleanup() {
    srv_stop
    [ -n "$SRV_DIR" ] && tn_cleanup "$SRV_DIR"
}
trap srv_cleanup EXIT

# q SQL...: psql against the server, unaligned, tuples only, errors verbose (SQLSTATE shown).
q() {
    PGCONNECT_TIMEOUT=10 psql -X -q -A -t -h 127.0.0.1 -p "$SRV_PORT" -U tester -d tarn -v VERBOSITY=verbose "$@" 2>&1
}
