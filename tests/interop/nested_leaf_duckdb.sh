#!/usr/bin/env bash
# tests/interop/nested_leaf_duckdb.sh: struct-leaf projection (sql/optimize_leaves.c). A file
# with a 20-field STRUCT (nested struct and list fields, NULL structs and NULL fields, several
# row groups), written by DuckDB, read by tarn directly and as a Delta table tarn made from it:
# queries that use some fields through filters, projections, joins, aggregates, windows, sorts,
# unnest, set operations and CTEs, and queries that use the struct whole, must give DuckDB's
# answer (DuckDB's text of its result is the reference). Then --stats: a one-field query reads
# a small part of the bytes the whole-struct query reads. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
require_oracle
cd "$(dirname "$0")/../.."
T=$BUILD/tarn
require_bin "$T"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d /tmp/tarn_leaf.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
f=$tmp/wide.parquet
fields=""
for i in $(seq 0 15); do
    case $((i % 4)) in
    0) e="CASE WHEN k % 11 = $i THEN NULL ELSE k * $((i + 1)) END" ;;
    1) e="'v' || (k % $((i + 7)))" ;;
    2) e="(k % 97)::DOUBLE / $((i + 2))" ;;
    3) e="k % 5 = $((i % 5))" ;;
    esac
    fields="$fields, 'f$i': $e"
done
"$DUCK" "COPY (SELECT k, CASE WHEN k % 13 = 5 THEN NULL ELSE {'f0x': k % 1000 $fields, 'n': {'x': k % 7, 'y': CASE WHEN k % 3 = 0 THEN NULL ELSE 'y' || k END}, 'l': CASE WHEN k % 4 = 0 THEN NULL ELSE [k, k + 1, NULL] END, 'z': [{'a': k}], 'm': MAP {'a': k}} END AS s FROM range(20000) r(k)) TO '$f' (FORMAT PARQUET, ROW_GROUP_SIZE 6000)" >/dev/null
w=$tmp/wh
"$T" -w "$w" -c "CREATE TABLE t AS SELECT * FROM read_parquet('$f')" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; bad create_table; }

queries=(
"SELECT sum(s.f0x), max(s.f0x), count(s.f0x) FROM @"
"SELECT sum(s.f4), min(s.f5), max(s.f10) FROM @"
"SELECT k, s.f1 FROM @ WHERE s.f0x > 995 ORDER BY k LIMIT 20"
"SELECT s.n.x, count(*) FROM @ GROUP BY s.n.x ORDER BY 1 NULLS LAST"
"SELECT k, s.n FROM @ ORDER BY k LIMIT 8"
"SELECT k, s.n.y FROM @ WHERE k % 1000 = 7 ORDER BY k"
"SELECT k, s FROM @ WHERE k < 3 ORDER BY k"
"SELECT k, s.f1, s FROM @ WHERE k BETWEEN 4 AND 6 ORDER BY k"
"SELECT a.k, a.s.f0x, b.s.f4 FROM @ a JOIN @ b ON a.k = b.k + 1 WHERE a.k < 10 ORDER BY 1"
"SELECT a.k, b.s.f2 FROM @ a LEFT JOIN (SELECT * FROM @ WHERE k % 2 = 0) b ON a.s.f0x = b.k WHERE a.k < 8 ORDER BY 1, 2"
"SELECT count(*) FROM @ WHERE s IS NULL"
"SELECT count(*), count(s.f0) FROM @ WHERE s.f0 IS NULL"
"SELECT k, len(s.l), s.l[1] FROM @ ORDER BY k LIMIT 6"
"SELECT sum(x), count(x) FROM (SELECT unnest(s.l) AS x FROM @)"
"SELECT k, s.f7 FROM (SELECT * FROM @ WHERE s.f0x % 2 = 0) q ORDER BY k LIMIT 5"
"SELECT k, sum(s.f0x) OVER (ORDER BY k ROWS 2 PRECEDING) FROM @ ORDER BY k LIMIT 6"
"SELECT sum(v) FROM (SELECT s.f0x AS v FROM @ UNION ALL SELECT s.f4 FROM @)"
"SELECT k, s.f9 || 'x' FROM @ ORDER BY k LIMIT 3"
"WITH c AS (SELECT k, s FROM @) SELECT sum(c.s.f0x), max(c.s.n.x) FROM c"
"SELECT k, s.f0x + s.f4 FROM @ WHERE k IN (1, 2, 3) ORDER BY k"
"SELECT k FROM @ WHERE s.f0x IS NOT NULL ORDER BY s.f0x DESC, k LIMIT 5"
"SELECT k, struct_extract(s, 'f2'), s['f3'] FROM @ ORDER BY k LIMIT 3"
"SELECT s.n.x, sum(s.f0x) FILTER (WHERE s.f3) FROM @ GROUP BY 1 ORDER BY 1"
"SELECT k, s.z[1].a, s.m['a'] FROM @ WHERE k < 4 ORDER BY k"
"SELECT k, s.n, s.n.x FROM @ WHERE s.n.x = 3 ORDER BY k LIMIT 4"
)
i=0
for q in "${queries[@]}"; do
    i=$((i + 1))
    dq=${q//@/\'$f\'}
    "$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM ($dq)" 2>&1 | tail -n +2 >"$tmp/ref$i.csv"
    for src in file table; do
        if [ $src = file ]; then tq=${q//@/read_parquet(\'$f\')}; else tq=${q//@/t}; fi
        "$T" -w "$w" -c "$tq" 2>&1 | tail -n +2 >"$tmp/t$i$src.csv"
        if cmp -s "$tmp/ref$i.csv" "$tmp/t$i$src.csv"; then ok "q$i:$src"
        else bad "q$i:$src: $q"; diff "$tmp/ref$i.csv" "$tmp/t$i$src.csv" | head -n 6 | cut -c1-300; fi
    done
done

# bytes read: one field of the struct against all of it
bytes() { "$T" -w "$w" -stats -c "$1" 2>&1 >/dev/null | grep -o '"bytes_scanned":[0-9]*' | tail -1 | cut -d: -f2; }
for src in "read_parquet('$f')" t; do
    one=$(bytes "SELECT sum(s.f0x) FROM $src")
    all=$(bytes "SELECT count(s) FROM $src")
    echo "bytes $src: one field $one, whole struct $all"
    if [ -n "$one" ] && [ -n "$all" ] && [ "$one" -gt 0 ] && [ $((one * 8)) -lt "$all" ]; then ok "bytes:$src"
    else bad "bytes:$src (one field $one, whole struct $all)"; fi
done
tn_cleanup "$w"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
