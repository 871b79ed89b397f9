#!/usr/bin/env bash
# tests/interop/storage_resources.sh: bounded resources in the storage layers (issue 16 item 5).
# A table with more data files than the open-file limit reads (1,100 single-row INSERTs, then
# SELECTs under ulimit -n 1024, answers checked against DuckDB reading the same files);
# statistics of long strings and binaries are truncated: Parquet min/max to a 64-byte prefix,
# the max rounded up as parquet-mr does (checked with DuckDB's parquet_metadata), Delta stats to
# 32 characters (max + U+10FFFF), and skipping stays correct (tarn and DuckDB answer the same
# predicates on the truncated region); a 100 MB value writes a small file in bounded memory;
# too wide files and tables are refused naming the file/table and the limit.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$PWD/$BUILD/tarn
pass=0; fail=0
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_storres.XXXXXX)
cd "$dir"
trap 'tn_cleanup "$dir"' EXIT
wh=$dir/wh

ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "    $2" | head -c 2000; echo; }
run() { if ! "$BIN" -w "$wh" --csv -c "$1" >"$dir/out" 2>"$dir/err"; then bad "setup: $1" "$(cat "$dir/err")"; return 1; fi; }
q() { "$BIN" -w "$wh" --csv -c "$1" 2>&1; }
duck() { "$DUCK" "$1" 2>&1; }
same() {   # same NAME TARN-SQL DUCKDB-SQL: the two print the same rows
    local a b; a=$(q "$2" | tail -n +2); b=$(duck "$3" | tail -n +2)
    if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "$1"; else bad "$1" "tarn: $a | duckdb: $b"; fi
}

# --- more data files than file descriptors ------------------------------------------------------
{ echo "CREATE TABLE many (id INT, s VARCHAR);"; for i in $(seq 1 1100); do echo "INSERT INTO many VALUES ($i, 'v$i');"; done; } >"$dir/many.sql"
"$BIN" -w "$wh" -f "$dir/many.sql" >/dev/null 2>"$dir/err" || bad "setup: 1,100 INSERTs" "$(cat "$dir/err")"
n=$(ls "$wh/many" | grep -c '\.parquet$')
[ "$n" = 1100 ] && ok "1,100 single-row INSERTs give 1,100 files" || bad "file count $n"
lim() { (ulimit -n 1024 && "$BIN" -w "$wh" --csv -c "$1" 2>&1); }
got=$(lim "SELECT count(*), sum(id), min(s), max(s) FROM many WHERE id > 0")
want=$(duck "SELECT count(*), sum(id), min(s), max(s) FROM read_parquet('$wh/many/*.parquet') WHERE id > 0")
[ "$(echo "$got" | tail -1)" = "$(echo "$want" | tail -1)" ] && ok "a scan of 1,100 files under ulimit -n 1024" \
    || bad "scan under ulimit -n 1024" "tarn: $got | duckdb: $want"
got=$(lim "SELECT a.id, b.s FROM many a JOIN many b ON a.id = b.id + 1 WHERE a.id % 100 = 0 ORDER BY 1")
want=$(duck "SELECT a.id, b.s FROM read_parquet('$wh/many/*.parquet') a JOIN read_parquet('$wh/many/*.parquet') b ON a.id = b.id + 1 WHERE a.id % 100 = 0 ORDER BY 1")
[ "$(echo "$got" | tail -n +2)" = "$(echo "$want" | tail -n +2)" ] && ok "a self-join (two scans) of 1,100 files under ulimit -n 1024" \
    || bad "self-join under ulimit -n 1024" "tarn: $got | duckdb: $want"
got=$(lim "SELECT s FROM many ORDER BY id DESC LIMIT 2")
[ "$got" = $'s\nv1100\nv1099' ] && ok "ORDER BY over 1,100 files under ulimit -n 1024" || bad "ORDER BY under ulimit" "$got"

# --- statistics of long values ------------------------------------------------------------------
run "CREATE TABLE st (id INT, s VARCHAR, u VARCHAR, b VARBINARY)"
run "INSERT INTO st VALUES (1, repeat('a', 100), repeat('é', 50) || 'x', CAST(repeat('z', 80) AS VARBINARY)), (2, repeat('a', 64), repeat('é', 40), CAST('a' AS VARBINARY)), (3, repeat('b', 100), 'e', CAST(repeat('y', 90) AS VARBINARY)), (4, repeat('a', 99) || 'c', NULL, NULL)"
f=$(ls "$wh"/st/*.parquet | head -1)
meta=$(duck "SELECT path_in_schema, length(stats_min_value), stats_min_value, stats_max_value, min_is_exact, max_is_exact FROM parquet_metadata('$f') WHERE path_in_schema <> 'id' ORDER BY 1")
a64=$(printf 'a%.0s' $(seq 64)); b63=$(printf 'b%.0s' $(seq 63)); e31=$(printf 'é%.0s' $(seq 31)); e32=$(printf 'é%.0s' $(seq 32))
z63=$(printf 'z%.0s' $(seq 63)); a=$'\n'
want="path_in_schema,length(stats_min_value),stats_min_value,stats_max_value,min_is_exact,max_is_exact${a}b,1,a,${z63}{,true,false${a}s,64,${a64},${b63}c,false,false${a}u,1,e,${e31}ê,true,false"
[ "$meta" = "$want" ] && ok "Parquet min/max: 64-byte prefixes, max rounded up (UTF-8 characters, bytes), exactness flags" \
    || bad "Parquet statistics" "got: $meta${a}want: $want"
sz=$(stat -c %s "$f")
[ "$sz" -lt 4000 ] && ok "the file holds no full-length statistics ($sz bytes)" || bad "file size $sz"
for p in "s = repeat('a', 100)" "s > repeat('a', 64)" "s < repeat('a', 64) || 'a'" "s >= repeat('a', 99) || 'c'" \
         "s <= repeat('b', 99)" "u > '$e32'" "u = repeat('é', 40)" "b > CAST(repeat('z', 79) AS VARBINARY)" \
         "s BETWEEN repeat('a', 65) AND repeat('a', 100)"; do
    same "skipping stays correct: $p" "SELECT id FROM st WHERE $p ORDER BY id" "SELECT id FROM read_parquet('$wh/st/*.parquet') WHERE $p ORDER BY id"
done
r=$(python3 - "$wh/st/_delta_log/00000000000000000001.json" <<'EOF'
import json, sys
for l in open(sys.argv[1]):
    a = json.loads(l)
    if "add" in a:
        st = json.loads(a["add"]["stats"])
        mn, mx = st["minValues"], st["maxValues"]
        ok = mn["s"] == "a" * 32 and mx["s"] == "b" * 32 + "\U0010ffff" and mn["u"] == "e" and \
             mx["u"] == "é" * 31 + "ê" and "b" not in mn
        print("yes" if ok else "no: " + json.dumps(st, ensure_ascii=False)[:600])
EOF
)
[ "$r" = yes ] && ok "Delta stats: 32-character prefixes, max + U+10FFFF" || bad "Delta stats" "$r"
# a table of 32+ character values: skipping by the Delta stats (files pruned) stays correct
run "CREATE TABLE st2 (s VARCHAR); INSERT INTO st2 VALUES (repeat('k', 40) || '1'); INSERT INTO st2 VALUES (repeat('k', 40) || '3'); INSERT INTO st2 VALUES ('m')"
same "Delta-stats skipping on a 32-character prefix: =" "SELECT s FROM st2 WHERE s = repeat('k', 40) || '3'" \
    "SELECT s FROM read_parquet('$wh/st2/*.parquet') WHERE s = repeat('k', 40) || '3'"
same "Delta-stats skipping on a 32-character prefix: >" "SELECT s FROM st2 WHERE s > repeat('k', 40) || '2' ORDER BY s" \
    "SELECT s FROM read_parquet('$wh/st2/*.parquet') WHERE s > repeat('k', 40) || '2' ORDER BY s"

# --- one 100 MB value ---------------------------------------------------------------------------
rss() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; }
base=$(rss "$BIN" -c "SELECT length(repeat('abcdefghij', 10000000))")
peak=$(rss "$BIN" -c "COPY (SELECT repeat('abcdefghij', 10000000) AS s) TO '$dir/big.parquet' (FORMAT parquet)")
sz=$(stat -c %s "$dir/big.parquet" 2>/dev/null || echo 0)
[ "$sz" -gt 0 ] && [ "$sz" -lt 1000000 ] && ok "a 100 MB value writes a small file ($sz bytes)" || bad "100 MB value: file of $sz bytes"
extra=$(( (peak - base) / 1024 ))
[ "$extra" -lt 600 ] && ok "writing it takes $extra MB more than computing it (under 6x the value)" \
    || bad "writing a 100 MB value took $extra MB over the query's own ${base} KB"
got=$(duck "SELECT length(s), s[99999991:100000000] FROM read_parquet('$dir/big.parquet')" | tail -1)
[ "$got" = "100000000,abcdefghij" ] && ok "DuckDB reads the 100 MB value back" || bad "DuckDB read" "$got"
rm -f "$dir/big.parquet"

# --- column limits: the message names the file or table and the limit ---------------------------
python3 -c "
print(','.join('c%d' % i for i in range(5000)))
print(','.join(str(i) for i in range(5000)))" >"$dir/wide.csv"
got=$(q "SELECT * FROM read_csv('$dir/wide.csv')")
[[ "$got" == *"$dir/wide.csv: too many columns (5000 read; the limit is 4096)"* ]] \
    && ok "read_csv of a 5,000-column file names the file and the limit" || bad "wide read_csv" "$got"
got=$(q "SELECT c4999 FROM read_csv('$dir/wide.csv')")
[ "$got" = $'c4999\n4999' ] && ok "a wide file reads when fewer columns are selected" || bad "wide projection" "$got"
duck "COPY (SELECT * FROM read_csv('$dir/wide.csv')) TO '$dir/wide.parquet'" >/dev/null
got=$(q "SELECT * FROM read_parquet('$dir/wide.parquet')")
[[ "$got" == *"$dir/wide.parquet: too many columns (5000 read; the limit is 4096)"* ]] \
    && ok "read_parquet of a 5,000-column file names the file and the limit" || bad "wide read_parquet" "$got"
cols=$(python3 -c "print(','.join('c%d INT' % i for i in range(600)))")
got=$(q "CREATE TABLE wide ($cols)")
[[ "$got" == *"wide': too many columns (600; the limit is 512)"* && ! -e "$wh/wide/_delta_log" ]] \
    && ok "CREATE TABLE of 600 columns is refused, naming the table and the limit" || bad "wide CREATE" "$got"
run "CREATE TABLE full512 ($(python3 -c "print(','.join('c%d INT' % i for i in range(512)))"))"
got=$(q "ALTER TABLE full512 ADD COLUMN d INT")
[[ "$got" == *"full512': too many columns (513; the limit is 512)"* ]] \
    && ok "ALTER TABLE ADD COLUMN past 512 is refused with the limit" || bad "wide ALTER" "$got"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
