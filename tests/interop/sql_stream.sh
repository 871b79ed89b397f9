#!/usr/bin/env bash
# tests/interop/sql_stream.sh: streaming results through the shell. A scan/filter/project query
# prints its rows while it runs: the same rows in the same order as DuckDB's (CSV text), a
# SELECT * of flights-3m piped to /dev/null keeps the peak RSS far under what its rows take
# (/usr/bin/time -v), and an error after the first chunk prints the rows before it, the error
# on stderr, and exits non-zero. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tarn
F=$FLIGHTS
require_bin "$BIN"
dir=$(mktemp -d /tmp/tn_stream.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT   # checks every table written, then removes
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# 1. rows and order equal DuckDB's, for 1 and 2 threads
q="SELECT * FROM read_parquet('$F') WHERE distance > 1000"
require_oracle
if true; then
    want=$("$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM ($q)" | md5sum)
    for t in 1 2; do
        got=$("$BIN" --csv -c "SET threads = $t" -c "$q" | md5sum)
        [ "$got" = "$want" ] && ok "csv rows equal DuckDB's (threads $t)" || bad "csv rows differ from DuckDB's (threads $t)"
    done
else
    bad "DuckDB oracle unavailable"
fi

# 2. bounded memory: SELECT * of 3M rows to /dev/null
if [ -x /usr/bin/time ] && [ "${TARN_SANITIZED:-}" != 1 ]; then
    /usr/bin/time -v "$BIN" --csv -c "SELECT * FROM read_parquet('$F')" >/dev/null 2>"$dir/time"
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time")
    if [ -n "$kb" ] && [ "$kb" -lt 100000 ]; then ok "SELECT * of 3M rows peaks at $kb KB"
    else bad "SELECT * of 3M rows peaks at ${kb:-?} KB (want < 100000)"; fi
    /usr/bin/time -v "$BIN" --json -c "SELECT origin, delay FROM read_parquet('$F')" >"$dir/json" 2>"$dir/time"
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time")
    n=$(grep -c '"origin"' "$dir/json")
    if [ -n "$kb" ] && [ "$kb" -lt 100000 ] && [ "$n" = 3000000 ]; then ok "JSON output streams ($n rows, $kb KB)"
    else bad "JSON output: $n rows, ${kb:-?} KB"; fi
else
    echo "skip memory checks (no /usr/bin/time or a sanitized build)"
fi

# 3. an error after the first chunk: rows before it, the error, exit status 1 (on one thread,
# where the failing row group is the first one)
"$BIN" --csv -c "SET threads = 1" -c "SELECT distance, CAST(CASE WHEN distance > 4900 THEN 'x' ELSE '1' END AS INTEGER) AS v FROM read_parquet('$F')" >"$dir/out" 2>"$dir/err"
st=$?
lines=$(wc -l <"$dir/out")
if [ $st -ne 0 ] && grep -q "Could not convert string 'x' to INT32" "$dir/err" && [ "$lines" -gt 1 ] && [ "$lines" -le 2757 ]; then
    ok "late error: exit $st after $((lines - 1)) rows"
else
    bad "late error: exit $st, $lines lines, stderr: $(head -c 200 "$dir/err")"
fi
# two threads: another row group may fail first; the rows printed are then still the file's
# first ones (a prefix), maybe none
for i in 1 2 3 4 5; do
    "$BIN" --csv -c "SELECT distance, CAST(CASE WHEN distance > 4900 THEN 'x' ELSE '1' END AS INTEGER) AS v FROM read_parquet('$F')" >"$dir/out$i" 2>/dev/null
    echo $? >"$dir/st$i"
done
"$BIN" --csv -c "SELECT distance FROM read_parquet('$F') LIMIT 3000" >"$dir/ref"
okp=1
for i in 1 2 3 4 5; do
    n=$(wc -l <"$dir/out$i")
    [ "$(cat "$dir/st$i")" -ne 0 ] || okp=0
    [ "$n" -le 2757 ] || okp=0
    if [ "$n" -gt 0 ] && ! cut -d, -f1 "$dir/out$i" | cmp -s - <(head -n "$n" "$dir/ref"); then okp=0; fi
done
[ $okp = 1 ] && ok "late error on two threads: exit 1, rows a prefix of the file's" || bad "late error on two threads: rows out of order or exit 0"
# the table mode too
"$BIN" --table -c "SELECT CAST(CASE WHEN distance > 4900 THEN 'x' ELSE '1' END AS INTEGER) AS v FROM read_parquet('$F')" >/dev/null 2>"$dir/err"
st=$?
if [ $st -ne 0 ] && grep -q "Could not convert" "$dir/err"; then ok "late error in table mode: exit $st"
else bad "late error in table mode: exit $st"; fi
# a failing statement stops the script
"$BIN" --csv -c "SELECT CAST(CASE WHEN distance > 4900 THEN 'x' ELSE '1' END AS INTEGER) AS v FROM read_parquet('$F'); SELECT 'after'" >"$dir/out" 2>/dev/null
if [ $? -ne 0 ] && ! grep -q after "$dir/out"; then ok "statements after a late error do not run"
else bad "statements after a late error ran"; fi

# 4. LIMIT streams and stops early; table mode counts every row
out=$("$BIN" --csv -c "SELECT delay FROM read_parquet('$F') LIMIT 3 OFFSET 2" | tr '\n' ' ')
want="delay 14 -13 1 "   # DuckDB
[ "$out" = "$want" ] && ok "LIMIT 3 OFFSET 2" || bad "LIMIT 3 OFFSET 2: '$out' want '$want'"
out=$("$BIN" --table -c "SELECT * FROM read_parquet('$F')" | tail -n 1)
[ "$out" = "3000000 rows (10000 shown)" ] && ok "table mode counts streamed rows" || bad "table mode footer: $out"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
