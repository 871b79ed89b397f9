#!/usr/bin/env bash
# tests/interop/parquet_brotli_bloom.sh: BROTLI pages and bloom filters against DuckDB.
# BROTLI: DuckDB-written BROTLI files read by tarn give DuckDB's values; the files tarn writes
# with BROTLI (COPY option, table property, `tarn parquet copy`) are read back by DuckDB to the
# same values. Bloom filters: tarn reads DuckDB's filters and skips row groups for = and IN;
# tarn writes them when asked (bloom_filter_columns) and DuckDB probes them.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
require_oracle
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
TARN=$BUILD/tarn
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d /tmp/tarn_brotli_bloom.XXXXXX)
trap 'tn_cleanup "$tmp"' EXIT
wh=$tmp/wh

same() {   # name expected-file actual-file
    if cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; diff "$2" "$3" | head -n 10; fi
}
tarn_csv() { "$TARN" -w "$wh" --csv -c "$1"; }

# Rows every engine spells the same way: integers, strings (UTF-8, empty, NULL), doubles,
# dates, timestamps, booleans, decimals; several row groups and a low-cardinality column
# (dictionary pages) beside a unique one (plain pages after the dictionary fallback).
SRC="SELECT i::BIGINT AS id, (i % 7)::INTEGER AS small, 'name_' || (i % 13) AS cat,
            CASE WHEN i % 11 = 0 THEN NULL ELSE 'v' || i || '_ü日' END AS s,
            (i * 0.25 + 0.125)::DOUBLE AS d, DATE '2020-01-01' + (i % 400)::INTEGER AS dt,
            TIMESTAMP '2021-03-04 05:06:07' + to_microseconds(i * 1000003) AS ts,
            i % 3 = 0 AS b, (i / 8)::DECIMAL(12,2) AS dec
     FROM range(20000) t(i)"
ORDER="ORDER BY id"

# --- BROTLI: DuckDB writes, tarn reads ---------------------------------------------------------
"$DUCK" "COPY ($SRC) TO '$tmp/duck_brotli.parquet' (FORMAT parquet, COMPRESSION brotli, ROW_GROUP_SIZE 6000)" >/dev/null
"$DUCK" "SELECT compression, count(*) AS n FROM parquet_metadata('$tmp/duck_brotli.parquet') GROUP BY 1" >"$tmp/codec.csv"
if grep -q '^BROTLI,' "$tmp/codec.csv" && [ "$(wc -l <"$tmp/codec.csv")" = 2 ]; then ok duckdb_wrote_brotli
else bad duckdb_wrote_brotli; cat "$tmp/codec.csv"; fi
"$DUCK" "SELECT * FROM read_parquet('$tmp/duck_brotli.parquet') $ORDER" >"$tmp/expect.csv"
tarn_csv "SELECT * FROM read_parquet('$tmp/duck_brotli.parquet') $ORDER" >"$tmp/got.csv" 2>"$tmp/err"
same tarn_reads_duckdb_brotli "$tmp/expect.csv" "$tmp/got.csv"
[ -s "$tmp/err" ] && head -n 3 "$tmp/err"
"$TARN" parquet meta "$tmp/duck_brotli.parquet" >"$tmp/meta.txt" 2>&1
if [ "$(grep -c 'codec BROTLI' "$tmp/meta.txt")" -ge 9 ]; then ok meta_names_brotli
else bad meta_names_brotli; head -n 20 "$tmp/meta.txt"; fi

# --- BROTLI: tarn writes, DuckDB reads ---------------------------------------------------------
tarn_csv "COPY (SELECT * FROM read_parquet('$tmp/duck_brotli.parquet')) TO '$tmp/tarn_copy.parquet' (FORMAT parquet, COMPRESSION brotli)" >/dev/null 2>"$tmp/err" || head -n 3 "$tmp/err"
"$DUCK" "SELECT DISTINCT compression FROM parquet_metadata('$tmp/tarn_copy.parquet')" >"$tmp/c2.csv" 2>&1
if [ "$(tail -n +2 "$tmp/c2.csv")" = BROTLI ]; then ok copy_writes_brotli; else bad copy_writes_brotli; cat "$tmp/c2.csv"; fi
"$DUCK" "SELECT * FROM read_parquet('$tmp/tarn_copy.parquet') $ORDER" >"$tmp/got2.csv" 2>&1
same duckdb_reads_tarn_copy_brotli "$tmp/expect.csv" "$tmp/got2.csv"

tarn_csv "CREATE TABLE tb TBLPROPERTIES ('delta.parquet.compression.codec' = 'brotli') AS SELECT * FROM read_parquet('$tmp/duck_brotli.parquet')" >/dev/null 2>"$tmp/err" || head -n 3 "$tmp/err"
files=$(ls "$wh"/tb/*.parquet 2>/dev/null | tr '\n' ' ')
if [ -n "$files" ]; then
    list=$(for f in $files; do printf "'%s'," "$f"; done); list=${list%,}
    "$DUCK" "SELECT DISTINCT compression FROM parquet_metadata([$list])" >"$tmp/c3.csv" 2>&1
    if [ "$(tail -n +2 "$tmp/c3.csv")" = BROTLI ]; then ok table_property_writes_brotli; else bad table_property_writes_brotli; cat "$tmp/c3.csv"; fi
    "$DUCK" "SELECT * FROM read_parquet([$list]) $ORDER" >"$tmp/got3.csv" 2>&1
    same duckdb_reads_tarn_table_brotli "$tmp/expect.csv" "$tmp/got3.csv"
    tarn_csv "SELECT * FROM tb $ORDER" >"$tmp/got4.csv" 2>&1
    same tarn_reads_own_brotli_table "$tmp/expect.csv" "$tmp/got4.csv"
else
    bad table_property_writes_brotli; cat "$tmp/err"
fi

"$TARN" parquet copy "$tmp/duck_brotli.parquet" "$tmp/cli_copy.parquet" --codec brotli >/dev/null 2>"$tmp/err" || head -n 3 "$tmp/err"
"$DUCK" "SELECT * FROM read_parquet('$tmp/cli_copy.parquet') $ORDER" >"$tmp/got5.csv" 2>&1
same duckdb_reads_cli_copy_brotli "$tmp/expect.csv" "$tmp/got5.csv"

# A damaged BROTLI page is an error naming the codec, never garbage or a crash.
python3 - "$tmp/tarn_copy.parquet" "$tmp/broken.parquet" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
for i in range(200, 600): b[i] ^= 0x5a
open(sys.argv[2], 'wb').write(b)
EOF
if tarn_csv "SELECT * FROM read_parquet('$tmp/broken.parquet')" >/dev/null 2>"$tmp/err"; then
    bad damaged_brotli_page_is_an_error
elif grep -qi 'brotli\|corrupt\|page' "$tmp/err"; then ok damaged_brotli_page_is_an_error
else bad damaged_brotli_page_is_an_error; cat "$tmp/err"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
