#!/usr/bin/env bash
# tests/interop/parquet_writer_duckdb.sh: differential test of tarn's Parquet writer against
# DuckDB. Compiles tests/interop/parquet_writer_emit.c against $BUILD/libtarn.a, which writes
# files of every type (edge values, NULLs, NaN, -0.0, UTF-8, binary with 0x00, dates before 1970,
# far-future timestamps; each codec; dictionary on/off/fallback; many row groups and pages)
# plus the expected CSVs. For each file, DuckDB must produce exactly: the values
# (COLUMNS(*)::VARCHAR), the per-chunk statistics (parquet_metadata) and the schema
# (parquet_schema). Ends with "N passed, N failed"; exits non-zero on failure.
set -u
. "$(dirname "$0")/lib.sh"
require_oracle
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
DUCKDB=$DUCK
CC=${CC:-cc}
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

tmp=$(mktemp -d /tmp/tarn_pqw_duckdb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$BUILD/libtarn.a" ]; then
    echo "FAIL build: $BUILD/libtarn.a missing (run make BUILD=$BUILD)"
    echo "0 passed, 1 failed"; exit 1
fi
san=()
if [ "${TARN_SANITIZED:-0}" = 1 ] || nm "$BUILD/libtarn.a" 2>/dev/null | grep -q __asan_; then
    san=(-fsanitize=address,undefined)
fi
if ! $CC -std=c11 -g -O1 "${san[@]}" -Isrc -Iinclude -D_GNU_SOURCE -o "$tmp/emit" \
        tests/interop/parquet_writer_emit.c "$BUILD/libtarn.a" \
        -lsnappy -lzstd -llz4 -lz -lbrotlienc -lbrotlidec -lbrotlicommon -ljansson -lroaring -lxxhash -ledit -lssl -lcrypto -lre2 -lstdc++ -lm -pthread \
        2>"$tmp/cc.log"; then
    cat "$tmp/cc.log"; echo "FAIL compile emit"; echo "0 passed, 1 failed"; exit 1
fi
ok compile
if "$tmp/emit" emit "$tmp" 2>"$tmp/emit.log"; then ok emit_and_write_result_stats
else cat "$tmp/emit.log"; bad emit_and_write_result_stats; fi

compare() {   # name expected actual
    if cmp -s "$2" "$3"; then ok "$1"
    else bad "$1"; diff "$2" "$3" | head -n 20; fi
}

while read -r name; do
    f="$tmp/$name.parquet"
    if "$DUCKDB" "SELECT COLUMNS(*)::VARCHAR FROM read_parquet('$f')" >"$tmp/$name.got.csv" 2>"$tmp/$name.err"; then
        # DuckDB prints only the header for an empty result; so do we.
        compare "$name:values" "$tmp/$name.csv" "$tmp/$name.got.csv"
    else
        bad "$name:values"; head -n 5 "$tmp/$name.err"
    fi
    if "$DUCKDB" "SELECT row_group_id, column_id, row_group_num_rows, stats_null_count, stats_min, stats_max,
                        stats_min_value, stats_max_value
                  FROM parquet_metadata('$f') ORDER BY row_group_id, column_id" \
            >"$tmp/$name.got.stats.csv" 2>"$tmp/$name.err"; then
        compare "$name:statistics" "$tmp/$name.stats.csv" "$tmp/$name.got.stats.csv"
    else
        bad "$name:statistics"; head -n 5 "$tmp/$name.err"
    fi
    if "$DUCKDB" "SELECT name, type, type_length, repetition_type, converted_type, scale, precision, field_id,
                        duckdb_type FROM parquet_schema('$f')" >"$tmp/$name.got.schema.csv" 2>"$tmp/$name.err"; then
        compare "$name:schema" "$tmp/$name.schema.csv" "$tmp/$name.got.schema.csv"
    else
        bad "$name:schema"; head -n 5 "$tmp/$name.err"
    fi
done <"$tmp/files.txt"

# Encodings and page layout DuckDB sees: dictionary on -> RLE_DICTIONARY somewhere; off -> none.
enc=$("$DUCKDB" "SELECT count(*) FROM parquet_metadata('$tmp/zstd_dict.parquet') WHERE encodings LIKE '%RLE_DICTIONARY%'" --no-header 2>&1)
if [ "${enc:-0}" -gt 0 ] 2>/dev/null; then ok zstd_dict:uses_dictionary; else bad "zstd_dict:uses_dictionary ($enc)"; fi
enc=$("$DUCKDB" "SELECT count(*) FROM parquet_metadata('$tmp/snappy_plain.parquet') WHERE encodings LIKE '%DICTIONARY%'" --no-header 2>&1)
if [ "$enc" = 0 ]; then ok snappy_plain:no_dictionary; else bad "snappy_plain:no_dictionary ($enc)"; fi
n=$("$DUCKDB" "SELECT count(DISTINCT row_group_id) FROM parquet_metadata('$tmp/zstd_dict.parquet')" --no-header 2>&1)
if [ "$n" = 5 ]; then ok zstd_dict:row_groups; else bad "zstd_dict:row_groups ($n)"; fi
kv=$("$DUCKDB" "SELECT created_by FROM parquet_file_metadata('$tmp/zstd_dict.parquet')" --no-header 2>&1)
if [ "$kv" = "tarn version 0.1.0 (build tarn)" ]; then ok created_by; else bad "created_by ($kv)"; fi
# A filter that needs statistics-based pruning still returns the right rows.
got=$("$DUCKDB" "SELECT count(*) FROM read_parquet('$tmp/zstd_dict.parquet') WHERE id BETWEEN 1200 AND 1299 AND i8 IS NOT NULL" --no-header 2>&1)
want=$(awk -F, 'NR>1 && $1>=1200 && $1<=1299 && $3!="" {n++} END {print n+0}' "$tmp/zstd_dict.csv")
if [ "$got" = "$want" ]; then ok zstd_dict:filtered_count; else bad "zstd_dict:filtered_count ($got vs $want)"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
