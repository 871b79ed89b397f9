#!/usr/bin/env bash
# bench/partition_bench.sh: writes into many partitions from unsorted input, tarn vs DuckDB, same
# machine, same run: flights-3m (rows not sorted by the partition columns) into a table
# PARTITIONED BY (origin) (229 partitions) and BY (origin, destination) (3,399 partitions).
# tarn: `CREATE TABLE ... PARTITIONED BY (...); INSERT INTO f SELECT * FROM read_parquet(..)` in
# one `tarn -c` process; DuckDB: `COPY (SELECT * FROM read_parquet(..)) TO dir (FORMAT parquet,
# COMPRESSION zstd, PARTITION_BY (...))` in one oracle process. Both timed as whole processes
# (wall clock, /usr/bin/time; DuckDB's includes node's start-up, ~0.2 s) with their peak RSS, and
# the files each wrote are counted. Check: DuckDB reads both outputs to the same row count per
# partition. Environment: BUILD, BENCH_REPS (default 3), BENCH_THREADS (default 2),
# BENCH_UPDATE_README=1 to write the table into bench/README.md (section "Partitioned writes").
set -u
cd "$(dirname "$0")/.."
. bench/common.sh
REPS=${BENCH_REPS:-3}
TH=${BENCH_THREADS:-2}
for f in "$BUILD/tarn" "$F" /usr/bin/time; do
    [ -e "$f" ] || { echo "partition_bench: $f missing" >&2; exit 1; }
done
"$DUCK" "SELECT 1" >/dev/null || { echo "partition_bench: the DuckDB oracle does not run" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-partbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
COLS="date TIMESTAMP, delay BIGINT, distance BIGINT, origin VARCHAR, destination VARCHAR"
load_before=$(load1)
bad=0
rows=()
for by in "origin" "origin, destination"; do
    : >"$tmp/t.txt"; : >"$tmp/d.txt"
    for i in $(seq 0 "$REPS"); do   # run 0 is the warm-up
        rm -rf "$tmp/wh" "$tmp/duck"
        /usr/bin/time -f "%e %M" -o "$tmp/t.time" "$BUILD/tarn" -w "$tmp/wh" -c "SET threads = $TH; CREATE TABLE f ($COLS) PARTITIONED BY ($by); INSERT INTO f SELECT * FROM read_parquet('$F')" >/dev/null 2>"$tmp/t.err" ||
            { echo "partition_bench: tarn failed: $(head -c 300 "$tmp/t.err")" >&2; bad=1; }
        /usr/bin/time -f "%e %M" -o "$tmp/d.time" "$DUCK" "COPY (SELECT * FROM read_parquet('$F')) TO '$tmp/duck' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY ($by))" --threads "$TH" >/dev/null 2>"$tmp/d.err" ||
            { echo "partition_bench: DuckDB failed: $(head -c 300 "$tmp/d.err")" >&2; bad=1; }
        [ "$i" -gt 0 ] && { tail -1 "$tmp/t.time" >>"$tmp/t.txt"; tail -1 "$tmp/d.time" >>"$tmp/d.txt"; }
    done
    ft=$(find "$tmp/wh/f" -name '*.parquet' | wc -l)
    fd=$(find "$tmp/duck" -name '*.parquet' | wc -l)
    parts=$(find "$tmp/wh/f" -name '*.parquet' -printf '%h\n' | sort -u | wc -l)
    tms=$(awk '{print $1 * 1000}' "$tmp/t.txt" | med); dms=$(awk '{print $1 * 1000}' "$tmp/d.txt" | med)
    trss=$(awk '{print $2 / 1024}' "$tmp/t.txt" | med); drss=$(awk '{print $2 / 1024}' "$tmp/d.txt" | med)
    q() { echo "SELECT $by, count(*) FROM read_parquet('$1/**/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL"; }
    "$DUCK" "$(q "$tmp/wh/f")" --no-header >"$tmp/ct.csv" 2>&1
    "$DUCK" "$(q "$tmp/duck")" --no-header >"$tmp/cd.csv" 2>&1
    if cmp -s "$tmp/ct.csv" "$tmp/cd.csv" && [ "$(wc -l <"$tmp/ct.csv")" = "$parts" ]; then chk="same rows per partition"
    else chk="ROW COUNTS PER PARTITION DIFFER"; bad=1; fi
    echo "partition_bench: BY ($by): $parts partitions; tarn $tms ms, $ft files, $trss MiB; DuckDB $dms ms, $fd files, $drss MiB; $chk" >&2
    rows+=("| \`PARTITIONED BY ($by)\` | $parts | $(printf '%.0f' "$tms") | $(printf '%.0f' "$dms") | $(ratio "$tms" "$dms") | $ft | $fd | $(printf '%.0f' "$trss") | $(printf '%.0f' "$drss") | $chk |")
done
load_after=$(load1)
{
    echo "Run: $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), DuckDB $(duck_version), threads=$TH, median of $REPS runs after a warm-up; load average $load_before before / $load_after after (well above 0: other work shared the cores, treat ratios as rough)."
    echo
    echo "| flights-3m (3,000,000 rows) into | partitions | tarn ms | DuckDB ms | tarn / DuckDB | tarn files | DuckDB files | tarn peak RSS MiB | DuckDB peak RSS MiB | check |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for r in "${rows[@]}"; do echo "$r"; done
} >"$tmp/last.md"
cat "$tmp/last.md"
mkdir -p "$BUILD/bench" && cp "$tmp/last.md" "$BUILD/bench/partition_last.md"
if [ "${BENCH_UPDATE_README:-0}" = 1 ]; then
    readme_section partitionbench "$tmp/last.md" && echo "partition_bench: bench/README.md updated" >&2
fi
exit $bad
