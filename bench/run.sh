#!/usr/bin/env bash
# bench/run.sh: tarn's Parquet reader and writer against DuckDB on the same file, same machine,
# same run (`make bench`, or bench/run.sh from anywhere). Needs $BUILD/libtarn.a (make).
#   BUILD (default build), BENCH_REPS (default 5),
#   BENCH_UPDATE_README=1 to write the table into bench/README.md.
# Each measurement: one warm-up, then BENCH_REPS repetitions; the median is reported.
#  - read: decode all 5 columns of flights-3m.parquet and compute min(date), max(delay),
#    sum(distance), max(origin), max(destination); DuckDB runs the same SELECT (query time only,
#    the oracle's --time), with 1 and 2 threads.
#  - write: the same 3M rows to a ZSTD file: tarn from rows already decoded in memory (only the
#    write is timed); DuckDB `COPY t TO ... (COMPRESSION zstd)` from a table in a DuckDB
#    database file (only the COPY is timed; it includes DuckDB reading its own table storage).
# Then runs the SQL benchmark, bench/sql_bench.sh (BENCH_SQL=0 skips it), and the table
# benchmark, bench/table_bench.sh (BENCH_TABLE=0 skips it), and the primary-key table benchmark,
# bench/pk_bench.sh (BENCH_PK=0 skips it). Helpers: bench/common.sh.
set -u
cd "$(dirname "$0")/.."
. bench/common.sh   # BUILD, F, DUCK, REPS; bench_cc, med, ratio, duck_time, tarn_field
[ -f "$BUILD/libtarn.a" ] || { echo "bench: $BUILD/libtarn.a missing (run make)" >&2; exit 1; }
[ -f "$F" ] || { echo "bench: $F missing" >&2; exit 1; }
BIN=$BUILD/bench/parquet_bench
bench_cc "$BIN" bench/parquet_bench.c -Isrc $(pkg-config --cflags libzstd 2>/dev/null) ||
    { echo "bench: build failed" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

load_before=$(load1)
echo "bench: flights-3m.parquet ($(stat -c %s "$F") bytes), $REPS repetitions, median" >&2
# --- read
read_query() { echo "SELECT min(date)::VARCHAR AS a, max(delay) AS b, sum(distance) AS c, max(origin) AS d, max(destination) AS e FROM read_parquet('$1')"; }
q=$(read_query "$F")
declare -A T_READ T_RSS D_READ
for th in 1 2; do
    "$BIN" read "$F" "$th" "$REPS" >"$tmp/tr$th.out" || { echo "bench: tarn read failed" >&2; exit 1; }
    T_READ[$th]=$(tarn_field median_ms "$tmp/tr$th.out"); T_RSS[$th]=$(tarn_field peak_rss_kb "$tmp/tr$th.out")
    D_READ[$th]=$(duck_time "$th" "$q") || exit 1
    echo "bench: read threads=$th: tarn ${T_READ[$th]} ms, DuckDB ${D_READ[$th]} ms" >&2
done
tarn_res=$(sed -n 's/^result=[0-9]* rows|//p' "$tmp/tr1.out" | tr '|' ',')
"$DUCK" "$q" --no-header >"$tmp/dres.csv"
duck_res=$(cat "$tmp/dres.csv")
check="results agree ($tarn_res)"
[ "$tarn_res" = "$duck_res" ] || check="RESULTS DIFFER: tarn $tarn_res, DuckDB $duck_res"
echo "bench: $check" >&2

# --- write
"$BIN" write "$F" "$tmp/tarn.parquet" "$REPS" >"$tmp/tw.out" || { echo "bench: tarn write failed" >&2; exit 1; }
T_WRITE=$(tarn_field median_ms "$tmp/tw.out"); T_WRSS=$(tarn_field peak_rss_kb "$tmp/tw.out")
T_LRSS=$(tarn_field loaded_rss_kb "$tmp/tw.out")
T_BYTES=$(sed -n 's/^result=.*|\([0-9]*\) bytes/\1/p' "$tmp/tw.out")
"$DUCK" "CREATE TABLE t AS SELECT * FROM read_parquet('$F')" --db "$tmp/bench.duckdb" >/dev/null ||
    { echo "bench: duckdb table failed" >&2; exit 1; }
declare -A D_WRITE
for th in 1 2; do
    D_WRITE[$th]=$(duck_time "$th" "COPY t TO '$tmp/duck.parquet' (FORMAT parquet, COMPRESSION zstd)" --db "$tmp/bench.duckdb") || exit 1
    echo "bench: write DuckDB threads=$th: ${D_WRITE[$th]} ms" >&2
done
D_BYTES=$(stat -c %s "$tmp/duck.parquet")
echo "bench: write tarn: $T_WRITE ms, $T_BYTES bytes (DuckDB $D_BYTES bytes)" >&2
# DuckDB reads tarn's file back to the same aggregates (a cheap correctness check).
"$DUCK" "$(read_query "$tmp/tarn.parquet")" --no-header >"$tmp/dres2.csv"
cmp -s "$tmp/dres.csv" "$tmp/dres2.csv" || check="$check; DuckDB READS TARN'S WRITTEN FILE DIFFERENTLY"

mb() { awk -v k="$1" 'BEGIN {printf "%.0f MB", k/1024}'; }
{
    echo "Run: $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), DuckDB $(duck_version), flights-3m.parquet (3,000,000 rows x 5 columns, $(stat -c %s "$F") bytes), median of $REPS; load average $load_before before / $(load1) after the run (anything well above 0 means other work shared the 2 cores: treat ratios as rough)."
    echo
    echo "| benchmark | tarn ms | DuckDB ms | tarn / DuckDB | tarn peak RSS |"
    echo "|---|---:|---:|---:|---:|"
    echo "| read 5 columns + 5 aggregates, 1 thread | ${T_READ[1]} | ${D_READ[1]} | $(ratio "${T_READ[1]}" "${D_READ[1]}") | $(mb "${T_RSS[1]}") |"
    echo "| read 5 columns + 5 aggregates, 2 threads | ${T_READ[2]} | ${D_READ[2]} | $(ratio "${T_READ[2]}" "${D_READ[2]}") | $(mb "${T_RSS[2]}") |"
    echo "| write 3M rows ZSTD (DuckDB threads=1) | $T_WRITE | ${D_WRITE[1]} | $(ratio "$T_WRITE" "${D_WRITE[1]}") | $(mb "$T_WRSS") ($(mb "$T_LRSS") = rows held in memory) |"
    echo "| write 3M rows ZSTD (DuckDB threads=2) | $T_WRITE | ${D_WRITE[2]} | $(ratio "$T_WRITE" "${D_WRITE[2]}") | |"
    echo
    echo "Written file: tarn $T_BYTES bytes, DuckDB $D_BYTES bytes (input $(stat -c %s "$F") bytes, pyarrow). Check: $check."
} >"$BUILD/bench/last.md"
cat "$BUILD/bench/last.md"
if [ "${BENCH_UPDATE_README:-0}" = 1 ]; then
    readme_section bench "$BUILD/bench/last.md" && echo "bench: bench/README.md updated" >&2
fi
# --- the SQL benchmark (bench/sql_bench.sh: same environment variables), unless BENCH_SQL=0,
# then the table benchmark (bench/table_bench.sh), unless BENCH_TABLE=0
sql_rc=0
if [ "${BENCH_SQL:-1}" = 1 ]; then
    BUILD=$BUILD bash bench/sql_bench.sh || sql_rc=1
fi
if [ "${BENCH_TABLE:-1}" = 1 ]; then
    BUILD=$BUILD bash bench/table_bench.sh || sql_rc=1
fi
# writes into many partitions (bench/partition_bench.sh), unless BENCH_PARTITION=0
if [ "${BENCH_PARTITION:-1}" = 1 ]; then
    BUILD=$BUILD bash bench/partition_bench.sh || sql_rc=1
fi
if [ "${BENCH_PK:-1}" = 1 ]; then       # primary-key tables (bench/pk_bench.sh)
    BUILD=$BUILD bash bench/pk_bench.sh || sql_rc=1
fi
case "$check" in *DIFFER*|*DIFFERENTLY*) exit 1;; esac
exit $sql_rc
