#!/usr/bin/env bash
# tests/interop/storage_atomic.sh: atomic outputs (issue 16 item 7). COPY ... TO 'file' and
# `tarn parquet copy` write a temp file beside the target and rename it: a COPY killed mid-way
# (SIGTERM or SIGKILL) leaves the old target whole, SIGTERM removes the temp file at once, and
# the next run removes the temp file a SIGKILLed run left. The target is checked to be either the
# old content or a complete new file (DuckDB reads it), never a truncated one.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$PWD/$BUILD/tarn
pass=0; fail=0
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_storatom.XXXXXX)
cd "$dir"
trap 'rm -rf "$dir"' EXIT

ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "    $2" | head -c 2000; echo; }
temps() { ls -a "$dir" | grep -c 'tmp-' ; }
old_or_whole() {   # old_or_whole NAME FILE FORMAT: the old marker, or a complete file of 3,000,000 rows
    local c
    if [ "$(head -c 3 "$2")" = "old" ]; then ok "$1 (the old file is intact)"; return; fi
    c=$("$DUCK" "SELECT count(*) FROM read_$3('$2')" 2>&1 | tail -1)
    [ "$c" = 3000000 ] && ok "$1 (the new file is complete)" || bad "$1" "neither old nor whole: $c"
}
kill_writing() {   # kill_writing SIG TARGET CMD...: runs CMD, sends SIG once the output (a temp file
                   # beside TARGET, or TARGET itself) holds over 1 MB, i.e. mid-write
    local sig=$1 target=$2; shift 2
    "$@" >/dev/null 2>&1 &
    local pid=$! i=0 big=""
    while [ $i -lt 600 ] && kill -0 "$pid" 2>/dev/null; do
        big=$(find "$(dirname "$target")" -maxdepth 1 \( -name ".$(basename "$target").*tmp*" -o -name "$(basename "$target")" \) -size +1M 2>/dev/null | head -1)
        [ -n "$big" ] && break
        sleep 0.05; i=$((i + 1))
    done
    kill -"$sig" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    [ -n "$big" ] || echo "note: the output never reached 1 MB before the process ended" >&2
}
Q="SELECT * FROM read_parquet('$FLIGHTS')"

# COPY TO, SIGTERM mid-way
echo old >"$dir/out.csv"
kill_writing TERM "$dir/out.csv" "$BIN" -c "COPY ($Q) TO '$dir/out.csv' (FORMAT csv, HEADER)"
old_or_whole "COPY TO killed by SIGTERM" "$dir/out.csv" csv
[ "$(temps)" = 0 ] && ok "SIGTERM removed the temp file" || bad "temp file after SIGTERM" "$(ls -a "$dir")"
# COPY TO, SIGKILL mid-way: the next COPY sweeps the temp file
echo old >"$dir/out.csv"
kill_writing KILL "$dir/out.csv" "$BIN" -c "COPY ($Q) TO '$dir/out.csv' (FORMAT csv, HEADER)"
old_or_whole "COPY TO killed by SIGKILL" "$dir/out.csv" csv
"$BIN" -c "COPY (SELECT 1 AS x) TO '$dir/out.csv' (FORMAT csv, HEADER)" >/dev/null 2>&1
[ "$(temps)" = 0 ] && ok "the next COPY removed the killed run's temp file" || bad "temp file left" "$(ls -a "$dir")"
[ "$(cat "$dir/out.csv")" = $'x\n1' ] && ok "the next COPY replaced the target" || bad "target" "$(head -c 200 "$dir/out.csv")"
# a failing COPY leaves the target as it was
echo old >"$dir/keep.csv"
"$BIN" -c "COPY (SELECT CAST('x' AS INTEGER) AS x) TO '$dir/keep.csv' (FORMAT csv)" >/dev/null 2>&1
[ "$(cat "$dir/keep.csv")" = old ] && [ "$(temps)" = 0 ] && ok "a failed COPY TO leaves the target and no temp file" \
    || bad "failed COPY" "$(cat "$dir/keep.csv"; ls -a "$dir")"
# parquet copy, SIGKILL then a new run
echo old >"$dir/copy.parquet"
kill_writing KILL "$dir/copy.parquet" "$BIN" parquet copy "$FLIGHTS" "$dir/copy.parquet" --codec gzip
old_or_whole "parquet copy killed by SIGKILL" "$dir/copy.parquet" parquet
"$BIN" parquet copy "$DATA/parquet/data/alltypes_plain.parquet" "$dir/copy.parquet" >/dev/null 2>&1
[ "$(temps)" = 0 ] && ok "the next parquet copy removed the killed run's temp file" || bad "parquet copy temp left" "$(ls -a "$dir")"
echo old >"$dir/copy2.parquet"
kill_writing TERM "$dir/copy2.parquet" "$BIN" parquet copy "$FLIGHTS" "$dir/copy2.parquet" --codec gzip
old_or_whole "parquet copy killed by SIGTERM" "$dir/copy2.parquet" parquet
[ "$(temps)" = 0 ] && ok "SIGTERM removed parquet copy's temp file" || bad "parquet copy temp after SIGTERM" "$(ls -a "$dir")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
