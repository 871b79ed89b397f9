#!/usr/bin/env bash
# tests/interop/spill.sh: queries larger than memory_limit through the shell. An ORDER BY of
# about 10x `SET memory_limit = '16MB'` (strings, NULLs, several keys, nested values, OFFSET)
# and GROUP BYs of 400-500k groups under 32MB (string and NULL keys, count/sum/avg/min/max/
# bool_or/FILTER/list) give DuckDB's rows in DuckDB's order (CSV text) on 1 and 2
# threads, peak near the limit plus the process's own footprint (/usr/bin/time), and leave the
# temp folder empty; a DISTINCT aggregate that cannot spill fails naming it; an INSERT ...
# ORDER BY spills too and the table reads back in order; a process killed with -9 mid-spill
# leaves no file (the files have no name) and the next run removes the folder it made.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tarn
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_spill.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
wh=$dir/wh
mkdir -p "$wh"
tmp=$wh/_tarn_tmp
LIM="SET memory_limit = '16MB'"

rss_kb() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }

# 1. sorted rows equal DuckDB's
Q1="SELECT i, 'row-' || CAST((i * 7919) % 2000003 AS VARCHAR) AS s, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 1000 END AS n
    FROM range(2000000) t(i) ORDER BY n DESC NULLS FIRST, s, i"
Q2="SELECT i, CAST([i, NULL, i + 1] AS VARCHAR) AS l, CAST({'a': i, 'b': 'x' || i} AS VARCHAR) AS st,
    CAST(map([i], ['v']) AS VARCHAR) AS m FROM range(500000) t(i) ORDER BY i % 1000, i DESC"
Q3="SELECT i, 'str' || i AS s FROM range(2000000) t(i) ORDER BY s DESC LIMIT 7 OFFSET 1234567"
n=0
for q in "$Q1" "$Q2" "$Q3"; do
    n=$((n + 1))
    want=$("$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM ($q)" | md5sum)
    for t in 1 2; do
        got=$("$BIN" -w "$wh" --csv -c "$LIM" -c "SET threads = $t" -c "$q" | md5sum)
        [ "$got" = "$want" ] && ok "query $n: rows equal DuckDB's under 16MB (threads $t)" \
            || bad "query $n: rows differ from DuckDB's under 16MB (threads $t)"
    done
done
out=$("$BIN" -w "$wh" --csv -c "$LIM" -c "EXPLAIN ANALYZE $Q1")
echo "$out" | grep -q "spilled:" && ok "EXPLAIN ANALYZE reports the spill" || bad "no spill reported: $out"
[ ! -e "$tmp" ] && ok "the temp folder is gone after the queries" || bad "left in $tmp: $(ls -a "$tmp" 2>&1)"

# 1b. GROUP BY past the limit: the same groups and aggregates as DuckDB's
AGG="SET memory_limit = '32MB'"
Q4="SELECT k % 500000 AS g, count(*) AS c, sum(v) AS s, avg(v) AS a, min(t) AS mn, max(t) AS mx, bool_or(v > 10) AS bo,
    count(t) FILTER (WHERE k % 3 = 0) AS f, list_sort(list(k)) AS l
    FROM (SELECT i AS k, i * 3 AS v, 'x' || (i % 17) AS t FROM range(2000000) t(i)) GROUP BY g ORDER BY g"
Q5="SELECT CASE WHEN i % 11 = 0 THEN NULL ELSE 'key-' || (i % 400000) END AS g, count(*) AS c, sum(i) AS s, max(i) AS m
    FROM range(2000000) t(i) GROUP BY g ORDER BY g NULLS FIRST"
for q in "$Q4" "$Q5"; do
    n=$((n + 1))
    want=$("$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM ($q)" | md5sum)
    for t in 1 2; do
        got=$("$BIN" -w "$wh" --csv -c "$AGG" -c "SET threads = $t" -c "SELECT COLUMNS(*)::VARCHAR FROM ($q)" 2>&1 | md5sum)
        [ "$got" = "$want" ] && ok "query $n (GROUP BY): rows equal DuckDB's under 32MB (threads $t)" \
            || bad "query $n (GROUP BY): rows differ from DuckDB's under 32MB (threads $t)"
    done
done
out=$("$BIN" -w "$wh" --csv -c "$AGG" -c "EXPLAIN ANALYZE SELECT count(*), sum(c) FROM ($Q5)")
echo "$out" | grep "HASH_AGGREGATE" | grep -q "spilled:" && ok "EXPLAIN ANALYZE reports the GROUP BY's spill" \
    || bad "no GROUP BY spill reported: $out"
"$BIN" -w "$wh" --csv -c "SET memory_limit = '16MB'" -c "SELECT i % 1000000 AS g, count(DISTINCT 'x' || i) FROM range(4000000) t(i) GROUP BY g" >/dev/null 2>"$dir/err"
grep -q "aggregate count(DISTINCT ...) cannot spill" "$dir/err" && ok "a DISTINCT aggregate past the limit fails naming it" \
    || bad "DISTINCT past the limit: $(head -c 300 "$dir/err")"
[ ! -e "$tmp" ] && ok "the temp folder is gone after the GROUP BYs" || bad "left in $tmp: $(ls -a "$tmp" 2>&1)"

# 2. peak memory: the sort of ~10x the limit stays near it
if [ -x /usr/bin/time ] && [ "${TARN_SANITIZED:-}" != 1 ]; then
    /usr/bin/time -v "$BIN" -w "$wh" --csv -c "$LIM" -c "$Q1" >/dev/null 2>"$dir/time"
    kb=$(rss_kb "$dir/time")
    base=$( { /usr/bin/time -v "$BIN" -w "$wh" --csv -c "SELECT 1" >/dev/null; } 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): //p')
    if [ -n "$kb" ] && [ "$kb" -lt $((base + 40000)) ]; then ok "ORDER BY of 2M rows peaks at $kb KB (process alone: $base KB)"
    else bad "ORDER BY of 2M rows peaks at ${kb:-?} KB (process alone: $base KB; want < +40000)"; fi
    /usr/bin/time -v "$BIN" -w "$wh" --csv -c "$AGG" -c "$Q5" >/dev/null 2>"$dir/time"
    kb=$(rss_kb "$dir/time")
    if [ -n "$kb" ] && [ "$kb" -lt $((base + 48000)) ]; then ok "GROUP BY of 400k string groups under 32MB peaks at $kb KB"
    else bad "GROUP BY of 400k string groups under 32MB peaks at ${kb:-?} KB (process alone: $base KB; want < +48000)"; fi
else
    echo "skip memory checks (no /usr/bin/time or a sanitized build)"
fi

# 3. INSERT ... ORDER BY spills and keeps its order
"$BIN" -w "$wh" -c "$LIM" -c "CREATE TABLE sorted AS SELECT (i * 7919) % 2000003 AS k, 'pad-' || i AS s FROM range(1500000) t(i) ORDER BY k DESC" 2>"$dir/err"
want=$("$DUCK" "CREATE TABLE sorted AS SELECT (i * 7919) % 2000003 AS k FROM range(1500000) t(i) ORDER BY k DESC;
    SELECT k FROM sorted LIMIT 5 OFFSET 1000000" | md5sum)
want2=$("$DUCK" "SELECT count(*), min(k), max(k) FROM (SELECT (i * 7919) % 2000003 AS k FROM range(1500000) t(i))" | md5sum)
got1=$("$BIN" -w "$wh" --csv -c "SELECT k FROM sorted LIMIT 5 OFFSET 1000000" | md5sum)
got2=$("$BIN" -w "$wh" --csv -c "SELECT count(*), min(k), max(k) FROM sorted" | md5sum)
[ "$got1" = "$want" ] && [ "$got2" = "$want2" ] && ok "CREATE TABLE AS ... ORDER BY under 16MB: DuckDB's rows, in its order" \
    || bad "CREATE TABLE AS ... ORDER BY under 16MB differs from DuckDB's: $(head -c 200 "$dir/err")"

# 4. killed mid-spill: no file left; the next spilling run removes the folder it made
"$BIN" -w "$wh" --csv -c "$LIM" -c "SET threads = 1" -c "$Q1" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
files=$(find "$tmp" -type f 2>/dev/null | wc -l)
[ "$files" = 0 ] && ok "kill -9 mid-spill leaves no file" || bad "kill -9 mid-spill left $files files in $tmp"

# 5. temp_directory is honoured (and shown), '' disables spilling
td=$dir/elsewhere
out=$("$BIN" -w "$wh" --csv -c "SET temp_directory = '$td'" -c "SELECT current_setting('temp_directory')" | tail -1)
[ "$out" = "$td" ] && ok "current_setting('temp_directory')" || bad "current_setting('temp_directory') = $out"
"$BIN" -w "$wh" --csv -c "$LIM" -c "SET temp_directory = '$td'" -c "EXPLAIN ANALYZE $Q1" >"$dir/out" 2>&1
grep -q "spilled:" "$dir/out" && [ ! -e "$td" ] && ok "SET temp_directory: spilled there, folder removed after" \
    || bad "SET temp_directory: $(head -c 300 "$dir/out")"
"$BIN" -w "$wh" --csv -c "$LIM" -c "SET temp_directory = ''" -c "$Q1" >/dev/null 2>"$dir/err"
st=$?
[ $st -ne 0 ] && grep -q "Out of Memory Error" "$dir/err" && ok "temp_directory = '' disables spilling (exit $st)" \
    || bad "temp_directory = '': exit $st, $(head -c 200 "$dir/err")"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
