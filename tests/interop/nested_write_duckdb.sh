#!/usr/bin/env bash
# tests/interop/nested_write_duckdb.sh: nested values (LIST / STRUCT / MAP, nested up to 4 levels,
# NULLs at every level, empty lists and maps, lists of thousands of elements) written and read
# by tarn, checked both ways against DuckDB. Per seed, tests/interop/nested_gen.mjs makes a
# random query; DuckDB's text of its result (COLUMNS(*)::VARCHAR) is the reference, and must
# equal: tarn's text of the same query; DuckDB reading the file tarn's COPY TO wrote; tarn
# reading the file DuckDB's COPY TO wrote; tarn reading a Delta table it made by CREATE TABLE
# AS, and by CREATE TABLE with the nested DDL + INSERT ... SELECT; DuckDB reading those tables'
# data files; `tarn parquet copy` with tiny pages and row groups read by DuckDB. Also the Delta
# schema JSON of nested DDL (Spark's spellings too) and the Parquet layout DuckDB sees.
# TARN_NESTED_SEEDS="1 2 3" replays seeds. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
require_oracle
cd "$(dirname "$0")/../.."
T=$BUILD/tarn
require_bin "$T"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d /tmp/tarn_nested_w.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

compare() {   # name expected actual
    if cmp -s "$2" "$3"; then ok "$1"
    else bad "$1"; diff "$2" "$3" | head -n 10 | cut -c1-300; fi
}

seeds=${TARN_NESTED_SEEDS:-"1 2 3 4 5 6 7 8 9 $((RANDOM % 1000 + 10))"}
echo "seeds: $seeds"
for s in $seeds; do
    node tests/interop/nested_gen.mjs "$s" 30 >"$tmp/q$s.sql" 2>"$tmp/types$s.txt"
    Q=$(cat "$tmp/q$s.sql")
    "$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM ($Q) ORDER BY id::INTEGER" >"$tmp/ref$s.csv" 2>&1
    "$T" -c "$Q ORDER BY id" >"$tmp/t$s.csv" 2>&1
    compare "seed$s:query_text" "$tmp/ref$s.csv" "$tmp/t$s.csv"
    # tarn writes, DuckDB reads
    "$T" -c "COPY ($Q) TO '$tmp/a$s.parquet'" >/dev/null 2>"$tmp/err" || cat "$tmp/err"
    "$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM '$tmp/a$s.parquet' ORDER BY id::INTEGER" >"$tmp/da$s.csv" 2>&1
    compare "seed$s:duckdb_reads_tarn_copy" "$tmp/ref$s.csv" "$tmp/da$s.csv"
    "$T" -c "SELECT * FROM read_parquet('$tmp/a$s.parquet') ORDER BY id" >"$tmp/ta$s.csv" 2>&1
    compare "seed$s:tarn_reads_tarn_copy" "$tmp/ref$s.csv" "$tmp/ta$s.csv"
    # DuckDB writes, tarn reads
    "$DUCK" "COPY ($Q) TO '$tmp/b$s.parquet'" >/dev/null 2>&1
    "$T" -c "SELECT * FROM read_parquet('$tmp/b$s.parquet') ORDER BY id" >"$tmp/tb$s.csv" 2>&1
    compare "seed$s:tarn_reads_duckdb_copy" "$tmp/ref$s.csv" "$tmp/tb$s.csv"
    # tiny pages and row groups (a long list is longer than a page; records never split)
    "$T" parquet copy "$tmp/b$s.parquet" "$tmp/c$s.parquet" --page-rows 50 --row-group-rows 7 >/dev/null 2>"$tmp/err" || cat "$tmp/err"
    "$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM '$tmp/c$s.parquet' ORDER BY id::INTEGER" >"$tmp/dc$s.csv" 2>&1
    compare "seed$s:duckdb_reads_tiny_pages" "$tmp/ref$s.csv" "$tmp/dc$s.csv"
    # Delta: CREATE TABLE AS, and nested DDL + INSERT ... SELECT (twice: two files)
    W=$tmp/wh$s
    ddl=$(awk '{printf "%s%s", (NR>1?", ":""), $0}' "$tmp/types$s.txt")
    "$T" -w "$W" -c "CREATE TABLE t AS $Q" >/dev/null 2>"$tmp/err" || cat "$tmp/err"
    "$T" -w "$W" -c "SELECT * FROM t ORDER BY id" >"$tmp/tt$s.csv" 2>&1
    compare "seed$s:ctas_read_by_tarn" "$tmp/ref$s.csv" "$tmp/tt$s.csv"
    "$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM read_parquet('$W/t/*.parquet') ORDER BY id::INTEGER" >"$tmp/dt$s.csv" 2>&1
    compare "seed$s:ctas_read_by_duckdb" "$tmp/ref$s.csv" "$tmp/dt$s.csv"
    "$T" -w "$W" -c "CREATE TABLE u (id INTEGER, $ddl)" >/dev/null 2>"$tmp/err" || cat "$tmp/err"
    "$T" -w "$W" -c "INSERT INTO u SELECT * FROM ($Q) WHERE id < 15" >/dev/null 2>"$tmp/err" || cat "$tmp/err"
    "$T" -w "$W" -c "INSERT INTO u SELECT * FROM t WHERE id >= 15" >/dev/null 2>"$tmp/err" || cat "$tmp/err"
    "$T" -w "$W" -c "SELECT * FROM u ORDER BY id" >"$tmp/tu$s.csv" 2>&1
    compare "seed$s:ddl_insert_read_by_tarn" "$tmp/ref$s.csv" "$tmp/tu$s.csv"
    "$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM read_parquet('$W/u/*.parquet') ORDER BY id::INTEGER" >"$tmp/du$s.csv" 2>&1
    compare "seed$s:ddl_insert_read_by_duckdb" "$tmp/ref$s.csv" "$tmp/du$s.csv"
    delta_check "$W/t" "$W/u" || true
done

# The Delta schema of nested DDL, every spelling (DuckDB's, Spark's, LIST(T)/LIST<T>).
W=$tmp/whddl
"$T" -w "$W" -c "CREATE TABLE sp (a INT[], b ARRAY<INT>, c LIST(INT), d LIST<BIGINT>, s STRUCT(x INT, y VARCHAR), s2 STRUCT<x: INT, y: STRING>, r ROW(q DOUBLE), m MAP(VARCHAR, INT[]), m2 MAP<STRING, ARRAY<BIGINT>>, n INT[][] NOT NULL)" >/dev/null 2>&1
schema=$(grep -h '"metaData"' "$W"/sp/_delta_log/*.json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const m=JSON.parse(s).metaData;process.stdout.write(JSON.stringify(JSON.parse(m.schemaString).fields.map(f=>[f.name,f.type,f.nullable])))})')
want='[["a",{"type":"array","elementType":"integer","containsNull":true},true],["b",{"type":"array","elementType":"integer","containsNull":true},true],["c",{"type":"array","elementType":"integer","containsNull":true},true],["d",{"type":"array","elementType":"long","containsNull":true},true],["s",{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}},{"name":"y","type":"string","nullable":true,"metadata":{}}]},true],["s2",{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}},{"name":"y","type":"string","nullable":true,"metadata":{}}]},true],["r",{"type":"struct","fields":[{"name":"q","type":"double","nullable":true,"metadata":{}}]},true],["m",{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"integer","containsNull":true},"valueContainsNull":true},true],["m2",{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"long","containsNull":true},"valueContainsNull":true},true],["n",{"type":"array","elementType":{"type":"array","elementType":"integer","containsNull":true},"containsNull":true},false]]'
if [ "$schema" = "$want" ]; then ok ddl_schema_json; else bad ddl_schema_json; echo "got  $schema"; echo "want $want"; fi
got=$("$T" -w "$W" -c "DESCRIBE sp" 2>&1 | cut -d, -f1-2 | tr '\n' ';')
want='column_name,column_type;a,INTEGER[];b,INTEGER[];c,INTEGER[];d,BIGINT[];s,"STRUCT(x INTEGER;s2,"STRUCT(x INTEGER;r,STRUCT(q DOUBLE);m,"MAP(VARCHAR;m2,"MAP(VARCHAR;n,INTEGER[][];'
if [ "$got" = "$want" ]; then ok ddl_describe; else bad ddl_describe; echo "got  $got"; fi
"$T" -w "$W" -c "INSERT INTO sp VALUES ([1], [2], [3], [4], {'x': 1, 'y': 'a'}, {'x': 2, 'y': 'b'}, {'q': 0.5}, MAP {'k': [1, NULL]}, MAP {}, [[1], []])" >/dev/null 2>&1
got=$("$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM read_parquet('$W/sp/*.parquet')" 2>&1 | tail -n 1)
want="[1],[2],[3],[4],\"{'x': 1, 'y': a}\",\"{'x': 2, 'y': b}\",{'q': 0.5},\"{k=[1, NULL]}\",{},\"[[1], []]\""
if [ "$got" = "$want" ]; then ok ddl_insert_values_duckdb; else bad ddl_insert_values_duckdb; echo "got  $got"; echo "want $want"; fi
# NOT NULL on a nested column is enforced; the table is unchanged after the refused write
out=$("$T" -w "$W" -c "INSERT INTO sp (a) VALUES ([5])" 2>&1)
n=$("$T" -w "$W" -c "SELECT count(*) FROM sp" 2>&1 | tail -n 1)
case "$out" in *"'n'"*) [ "$n" = 1 ] && ok not_null_nested || { bad not_null_nested; echo "$n"; } ;;
    *) bad not_null_nested; echo "$out" ;; esac
# the standard layouts, as DuckDB describes them
"$DUCK" "SELECT name, repetition_type, converted_type FROM parquet_schema('$W/sp/*.parquet') WHERE name <> 'schema'" >"$tmp/layout.csv" 2>&1
tr '\n' ';' <"$tmp/layout.csv" >"$tmp/layout1"
want='name,repetition_type,converted_type;a,OPTIONAL,LIST;list,REPEATED,;element,OPTIONAL,;b,OPTIONAL,LIST;list,REPEATED,;element,OPTIONAL,;c,OPTIONAL,LIST;list,REPEATED,;element,OPTIONAL,;d,OPTIONAL,LIST;list,REPEATED,;element,OPTIONAL,;s,OPTIONAL,;x,OPTIONAL,;y,OPTIONAL,UTF8;s2,OPTIONAL,;x,OPTIONAL,;y,OPTIONAL,UTF8;r,OPTIONAL,;q,OPTIONAL,;m,OPTIONAL,MAP;key_value,REPEATED,;key,REQUIRED,UTF8;value,OPTIONAL,LIST;list,REPEATED,;element,OPTIONAL,;m2,OPTIONAL,MAP;key_value,REPEATED,;key,REQUIRED,UTF8;value,OPTIONAL,LIST;list,REPEATED,;element,OPTIONAL,;n,REQUIRED,LIST;list,REPEATED,;element,OPTIONAL,LIST;list,REPEATED,;element,OPTIONAL,;'
if [ "$(cat "$tmp/layout1")" = "$want" ]; then ok parquet_layout; else bad parquet_layout; cat "$tmp/layout.csv"; fi
# a nested partition column is refused by name
out=$("$T" -w "$W" -c "CREATE TABLE pp (a INT, l INT[]) PARTITIONED BY (l)" 2>&1)
case "$out" in *"partition column 'l' has nested type"*) ok nested_partition_refused ;; *) bad nested_partition_refused; echo "$out" ;; esac
delta_check "$W/sp" || true

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
