#!/usr/bin/env bash
# bench/table_bench.sh: tarn's Delta tables against DuckDB, same machine, same run (also run by
# `make bench` through bench/run.sh; BENCH_TABLE=0 skips it there). Needs $BUILD/libtarn.a and
# $BUILD/tarn (make). Environment: BUILD, BENCH_REPS (default 5), BENCH_THREADS
# (default "1 2"), BENCH_COMMITS (default 10000), BENCH_UPDATE_README=1 to write the tables into
# bench/README.md (section "Tables"). Helpers: bench/common.sh.
#  1. ingest flights-3m into a table partitioned by month: tarn `INSERT INTO f SELECT ...,
#     strftime(date, '%Y-%m') AS month FROM read_parquet(..)` into a table created beforehand
#     (bench/sql_bench.c times the INSERT in-process; each run appends 3M rows) vs DuckDB `COPY
#     (same SELECT) TO dir (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (month), APPEND)`
#     (the oracle's --time: the statement only; each run appends new files).
#  2. open the latest snapshot of a table with BENCH_COMMITS commits, a checkpoint every 10,
#     built once into bench/data/ (git-ignored) by bench/table_bench.c: tn_delta_snapshot_open,
#     and `SELECT count(*)` through SQL. tarn only: DuckDB's delta extension is not available
#     offline.
#  3. Q1-Q6 of bench/sql_bench.sh (the f_q* queries, taken from that script) on the tarn table
#     of step 1 vs DuckDB's read_parquet over that table's data files with hive_partitioning;
#     in-process on both sides (bench/sql_bench.c, bench/duck_bench.mjs), results compared with
#     sql_bench.sh's checker.
# Every figure is a median of BENCH_REPS runs after one warm-up.
set -u
cd "$(dirname "$0")/.."
. bench/common.sh
THREADS=${BENCH_THREADS:-1 2}
NCOMMITS=${BENCH_COMMITS:-10000}
DATA=bench/data
for f in "$BUILD/libtarn.a" "$BUILD/tarn" "$F"; do
    [ -f "$f" ] || { echo "table_bench: $f missing (run make)" >&2; exit 1; }
done
TB=$BUILD/bench/table_bench SB=$BUILD/bench/sql_bench
bench_cc "$TB" bench/table_bench.c -Isrc && bench_cc "$SB" bench/sql_bench.c ||
    { echo "table_bench: build failed" >&2; exit 1; }
"$DUCK" "SELECT 1" >/dev/null || { echo "table_bench: the DuckDB oracle does not run" >&2; exit 1; }
mkdir -p "$DATA"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-tablebench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
W=$tmp/wh
tarn_sql() { "$BUILD/tarn" -w "$W" -c "$1" >/dev/null || { echo "table_bench: tarn: $1" >&2; exit 1; }; }
first_line() { sed -n 1p "$1" 2>/dev/null; }
# "name median min" lines of bench/sql_bench and bench/duck_bench.mjs -> the median
med_of() { local n; read -r _ n _ <"$1" 2>/dev/null && echo "$n" || echo nan; }

load_before=$(load1)
COLS="date TIMESTAMP, delay BIGINT, distance BIGINT, origin VARCHAR, destination VARCHAR, month VARCHAR"
SEL="SELECT date, delay, distance, origin, destination, strftime(date, '%Y-%m') AS month FROM read_parquet('$F')"

# --- 1. ingest
declare -A TI DI
for th in $THREADS; do
    tarn_sql "CREATE TABLE ingest_$th ($COLS) PARTITIONED BY (month)"
    printf 'ingest\tINSERT INTO ingest_%s %s\n' "$th" "$SEL" >"$tmp/ingest.tsv"
    mkdir -p "$tmp/ti$th"
    TARN_WAREHOUSE=$W "$SB" "$tmp/ingest.tsv" "$th" "$REPS" "$tmp/ti$th" >"$tmp/ti$th.out" ||
        echo "table_bench: tarn ingest failed" >&2
    TI[$th]=$(med_of "$tmp/ti$th.out")
    DI[$th]=$(duck_time "$th" "COPY ($SEL) TO '$tmp/duck_$th' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (month), APPEND)") ||
        DI[$th]=nan
    echo "table_bench: ingest threads=$th: tarn ${TI[$th]} ms, DuckDB ${DI[$th]} ms" >&2
done
# Check: DuckDB reads tarn's files (hive partitions) to the same per-month counts as its own.
th1=${THREADS%% *}
runs=$((REPS + 1))
permonth() { echo "SELECT month, count(*) AS n FROM read_parquet('$1/*/*.parquet', hive_partitioning = true) GROUP BY month ORDER BY month"; }
"$DUCK" "$(permonth "$W/ingest_$th1")" --no-header >"$tmp/pm_t.csv" 2>&1
"$DUCK" "$(permonth "$tmp/duck_$th1")" --no-header >"$tmp/pm_d.csv" 2>&1
total=$(awk -F, '{s += $2} END {print s + 0}' "$tmp/pm_t.csv")
if cmp -s "$tmp/pm_t.csv" "$tmp/pm_d.csv" && [ "$total" = $((runs * 3000000)) ]; then
    icheck="DuckDB reads tarn's files to the same per-month counts as its own output ($runs runs x 3,000,000 rows, $(wc -l <"$tmp/pm_t.csv") months)"
else
    icheck="PER-MONTH COUNTS DIFFER (tarn $(tr '\n' ' ' <"$tmp/pm_t.csv"); DuckDB $(tr '\n' ' ' <"$tmp/pm_d.csv"))"
fi
echo "table_bench: ingest check: $icheck" >&2
bytes_t=$(( ( $(find "$W/ingest_$th1" -name '*.parquet' -printf '%s+' 2>/dev/null; echo 0) ) / runs ))
bytes_d=$(( ( $(find "$tmp/duck_$th1" -name '*.parquet' -printf '%s+' 2>/dev/null; echo 0) ) / runs ))
files_t=$(( $(find "$W/ingest_$th1" -name '*.parquet' | wc -l) / runs ))
files_d=$(( $(find "$tmp/duck_$th1" -name '*.parquet' | wc -l) / runs ))
rm -rf "$W"/ingest_* "$tmp"/duck_*

# --- 2. snapshot of a table with NCOMMITS commits
H=$DATA/delta-$NCOMMITS
if [ "$(cat "$H.ok" 2>/dev/null | sed -n 's/^commits=\([0-9]*\) .*/\1/p')" != "$NCOMMITS" ]; then
    echo "table_bench: building $H ($NCOMMITS commits, once)" >&2
    rm -rf "$H" "$H.ok"
    "$TB" build "$H" "$NCOMMITS" >"$tmp/build.out" || { echo "table_bench: build of $H failed" >&2; exit 1; }
    sed -n 's/^built //p' "$tmp/build.out" >"$H.ok"
fi
build_info=$(cat "$H.ok")
"$TB" sqlrate "$tmp/rate" 200 >"$tmp/rate.out" || echo "table_bench: sqlrate failed" >&2
sql_commit_ms=$(tarn_field ms_per_commit "$tmp/rate.out")
declare -A SO
for mode in ckpt json; do
    "$TB" open "$H" "$REPS" $([ $mode = json ] && echo json) >"$tmp/open_$mode.out" ||
        echo "table_bench: snapshot open failed" >&2
    SO[$mode]=$(sed -n 's/^time_ms=\([^ ]*\).*/\1/p' "$tmp/open_$mode.out" | med | awk '{printf "%.1f", $1}')
    SO[$mode.cpu]=$(sed -n 's/.* cpu_ms=//p' "$tmp/open_$mode.out" | med | awk '{printf "%.1f", $1}')
    SO[$mode.info]=$(first_line "$tmp/open_$mode.out")
    echo "table_bench: snapshot open ($mode): ${SO[$mode]} ms, CPU ${SO[$mode.cpu]} ms (${SO[$mode.info]})" >&2
done
printf 'count\tSELECT count(*) FROM t\ncount_skip\tSELECT count(*) FROM t WHERE id > 0\n' >"$tmp/open.tsv"
declare -A SQ
for th in $THREADS; do
    mkdir -p "$tmp/so$th"
    TARN_WAREHOUSE=$H "$SB" "$tmp/open.tsv" "$th" "$REPS" "$tmp/so$th" >"$tmp/so$th.out" ||
        echo "table_bench: SELECT count(*) on $H failed" >&2
    while read -r name m _; do SQ[$name.$th]=$m; done <"$tmp/so$th.out"
    echo "table_bench: threads=$th: SELECT count(*) ${SQ[count.$th]:-nan} ms, with every file skipped ${SQ[count_skip.$th]:-nan} ms" >&2
done
ocheck="count(*) = $(cat "$tmp/so$th1/count.txt" 2>/dev/null), expected $((NCOMMITS - 1))"

# --- 3. Q1-Q6 on the table (one INSERT of flights-3m) vs DuckDB on the same files
tarn_sql "CREATE TABLE flights_m ($COLS) PARTITIONED BY (month); INSERT INTO flights_m $SEL"
A=$(pwd)/$DATA/airports.parquet
DSRC="read_parquet('$W/flights_m/*/*.parquet', hive_partitioning = true)"
# The f_q* queries of sql_bench.sh (name, description, SQL with $f and $A unexpanded).
awk -F'\t' '$1 ~ /^f_q[1-6]$/ && NF == 3' bench/sql_bench.sh >"$tmp/all.tsv"
[ "$(wc -l <"$tmp/all.tsv")" = 6 ] || { echo "table_bench: could not read Q1-Q6 from bench/sql_bench.sh" >&2; exit 1; }
[ -f "$A" ] || { echo "table_bench: $A missing (bench/sql_bench.sh generates it): skipping f_q4" >&2
                 sed -i '/^f_q4\t/d' "$tmp/all.tsv"; }
subst() { awk -F'\t' -v f="$1" -v a="$A" '{q = $3; gsub(/\$f/, f, q); gsub(/\$A/, a, q); print $1 "\t" q}' "$tmp/all.tsv"; }
subst flights_m >"$tmp/qt.tsv"
subst "$DSRC" >"$tmp/qd.tsv"
declare -A TT DT
for th in $THREADS; do
    mkdir -p "$tmp/t$th" "$tmp/d$th"
    while IFS=$'\t' read -r name _; do
        grep -P "^$name\t" "$tmp/qt.tsv" >"$tmp/one_t.tsv"
        grep -P "^$name\t" "$tmp/qd.tsv" >"$tmp/one_d.tsv"
        TARN_WAREHOUSE=$W "$SB" "$tmp/one_t.tsv" "$th" "$REPS" "$tmp/t$th" >"$tmp/one.t" ||
            echo "table_bench: $name: tarn failed" >&2
        node bench/duck_bench.mjs "$tmp/one_d.tsv" "$th" "$REPS" "$tmp/d$th" >"$tmp/one.d" ||
            echo "table_bench: $name: DuckDB failed" >&2
        TT[$name.$th]=$(med_of "$tmp/one.t"); DT[$name.$th]=$(med_of "$tmp/one.d")
        echo "table_bench: threads=$th $name: tarn ${TT[$name.$th]} ms, DuckDB ${DT[$name.$th]} ms" >&2
    done <"$tmp/qt.tsv"
done
load_after=$(load1)
# Result check with sql_bench.sh's own checker (its cmp.py, taken from that script).
awk '/^cat >"\$tmp\/cmp.py" <<.EOF.$/ {on = 1; next} on && /^EOF$/ {exit} on' bench/sql_bench.sh >"$tmp/cmp.py"
declare -A CHK
bad=0
while IFS=$'\t' read -r name _; do
    if [ -s "$tmp/cmp.py" ]; then CHK[$name]=$(python3 "$tmp/cmp.py" "$tmp/t$th1/$name.txt" "$tmp/d$th1/$name.txt")
    else CHK[$name]="not checked (no cmp.py in bench/sql_bench.sh)"; fi
    case "${CHK[$name]}" in ok*) ;; *) bad=1; echo "table_bench: $name: results ${CHK[$name]}" >&2;; esac
done <"$tmp/qt.tsv"
case "$icheck" in *DIFFER*) bad=1;; esac
[ "$(cat "$tmp/so$th1/count.txt" 2>/dev/null)" = $((NCOMMITS - 1)) ] || bad=1

{
    echo "Run: $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), DuckDB $(duck_version), median of $REPS runs after a warm-up; load average $load_before before / $load_after after (well above 0: other work shared the cores, treat ratios as rough)."
    echo
    echo "**1. Ingest** flights-3m.parquet (3,000,000 rows) into a table partitioned by month ($files_t files / $((bytes_t / 1024)) KiB per run for tarn, $files_d / $((bytes_d / 1024)) KiB for DuckDB; both ZSTD). Check: $icheck."
    echo
    echo "| ingest | tarn ms | DuckDB ms | tarn / DuckDB |"
    echo "|---|---:|---:|---:|"
    for th in $THREADS; do
        echo "| threads=$th | ${TI[$th]} | ${DI[$th]} | $(ratio "${TI[$th]}" "${DI[$th]}") |"
    done
    echo
    echo "**2. Snapshot of a table with $NCOMMITS commits** (one 1-row file added per commit, checkpoint every 10; tarn only, DuckDB's delta extension is not available offline). Built once into \`$H\` by \`table_bench build\`: $build_info (fsync off). Through SQL, one \`INSERT INTO u VALUES (..)\` commit takes $sql_commit_ms ms here (200 commits, fsync on), so about $(awk -v m="$sql_commit_ms" -v n="$NCOMMITS" 'BEGIN {printf "%.0f", m * n / 1000}') s for $NCOMMITS, plus checkpoints that grow with the table."
    echo
    echo "| snapshot | tarn ms | tarn CPU ms |"
    echo "|---|---:|---:|"
    echo "| \`tn_delta_snapshot_open\`, latest ($(echo "${SO[ckpt.info]}" | sed 's/ /, /g')) | ${SO[ckpt]} | ${SO[ckpt.cpu]} |"
    echo "| \`tn_delta_snapshot_open\` without checkpoints ($(echo "${SO[json.info]}" | sed 's/ checkpoint=-1//; s/ /, /g')) | ${SO[json]} | ${SO[json.cpu]} |"
    for th in $THREADS; do
        echo "| \`SELECT count(*) FROM t\` (answered from the log's numRecords), threads=$th | ${SQ[count.$th]:-nan} | |"
        echo "| \`SELECT count(*) FROM t WHERE id > 0\` (every file skipped by its stats), threads=$th | ${SQ[count_skip.$th]:-nan} | |"
    done
    echo
    echo "Check: $ocheck."
    echo
    echo "**3. Q1-Q6** of the SQL benchmark on the tarn table \`flights_m\` (one INSERT of flights-3m, partitioned by month) vs DuckDB on the same data files: \`read_parquet('<table>/*/*.parquet', hive_partitioning = true)\` (so \`SELECT *\` has the \`month\` column on both sides)."
    echo
    hdr="| query |"; sep="|---|"
    for th in $THREADS; do hdr="$hdr tarn ms (t=$th) | DuckDB ms (t=$th) | ratio (t=$th) |"; sep="$sep---:|---:|---:|"; done
    echo "$hdr"; echo "$sep"
    while IFS=$'\t' read -r name _; do
        desc=$(awk -F'\t' -v n="$name" '$1 == n {print $2}' "$tmp/all.tsv")
        row="| $name: $desc |"
        for th in $THREADS; do row="$row ${TT[$name.$th]} | ${DT[$name.$th]} | $(ratio "${TT[$name.$th]}" "${DT[$name.$th]}") |"; done
        echo "$row"
    done <"$tmp/qt.tsv"
    echo
    printf 'Result check (threads=%s, rows sorted, numbers to 1e-9 relative):' "$th1"
    all_ok=1
    while IFS=$'\t' read -r name _; do case "${CHK[$name]}" in ok*) ;; *) all_ok=0; printf ' %s: %s;' "$name" "${CHK[$name]}";; esac; done <"$tmp/qt.tsv"
    [ $all_ok = 1 ] && printf ' every query agrees with DuckDB.'
    echo
} >"$BUILD/bench/table_last.md"
cat "$BUILD/bench/table_last.md"
if [ "${BENCH_UPDATE_README:-0}" = 1 ]; then
    readme_section tablebench "$BUILD/bench/table_last.md" && echo "table_bench: bench/README.md updated" >&2
fi
exit $bad
