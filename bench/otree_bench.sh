#!/usr/bin/env bash
# bench/otree_bench.sh: the OTree sampling index against qbeast's published figures and DuckDB,
# same machine, same run. The seed experiment of qbeast PR #375 (rollupSize): BENCH_BATCHES
# (default 500) appends of BENCH_ROWS (default 15,000) rows, two indexed columns, in three
# configurations (cubeSize/rollupSize 15000/15000, 15000/3000, 3000/3000); for each, the share
# of rows, bytes and files read (--stats) by TABLESAMPLE at 0.001%, 1% and 10%, beside qbeast's
# share read (whole files). Then, on 15000/3000: the time of SELECT avg(col_2) ... TABLESAMPLE
# (1 PERCENT) against the full scan and against DuckDB's USING SAMPLE 1% (and its full scan) over
# the same batches as Parquet; and the ingest of the batches into the OTree table against a plain
# Delta table and DuckDB COPY of each batch (files written, sizes, peak RSS). A copy of the
# 15000/3000 table is OPTIMIZEd (rollupSize 3000) and measured again (share read, times).
# Data: generated once with DuckDB (uniform col_1 INT, col_2 DOUBLE, a 20-byte payload).
# Timing: tarn -timer per statement (one tarn process, one warm-up, BENCH_REPS runs, median of
# the wall time, and of user + sys CPU time for tarn's own ratios);
# DuckDB through bench/duck_bench.mjs (same protocol); ingest as whole processes (wall clock).
# Check: every sample equals the rows with hash(col_1, col_2) < Weight(p); DuckDB reads the
# OTree's data files to the same count and sum as the batches.
# Environment: BUILD, BENCH_REPS (default 5), BENCH_BATCHES, BENCH_ROWS, BENCH_THREADS (default
# 2), BENCH_UPDATE_README=1 to write the tables into bench/README.md (section "OTree").
set -u
cd "$(dirname "$0")/.."
. bench/common.sh
NB=${BENCH_BATCHES:-500}
NR=${BENCH_ROWS:-15000}
TH=${BENCH_THREADS:-2}
for f in "$BUILD/tarn" /usr/bin/time; do
    [ -e "$f" ] || { echo "otree_bench: $f missing" >&2; exit 1; }
done
"$DUCK" "SELECT 1" >/dev/null || { echo "otree_bench: the DuckDB oracle does not run" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-otreebench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
load_before=$(load1)
bad=0
fail() { echo "otree_bench: $*" >&2; bad=1; }

# the batches: one Parquet file each (tmp/batches/b=N/*.parquet)
"$DUCK" "COPY (SELECT (hash(i * 2 + 1) % 1000000)::INTEGER AS col_1, (hash(i * 2 + 2) % 100000000) / 1e6 AS col_2,
          md5(i::VARCHAR)[1:20] AS payload, i // $NR AS b FROM range($((NB * NR))) r(i))
          TO '$tmp/batches' (FORMAT parquet, PARTITION_BY (b))" >/dev/null || { echo "otree_bench: data generation failed" >&2; exit 1; }
batch() { ls "$tmp/batches/b=$1/"*.parquet; }
TOTAL=$((NB * NR))

# ingest script for a table: CREATE then one INSERT per batch
ingest_sql() { # table create-clause hint
    echo "SET threads = $TH;"
    echo "CREATE TABLE $1 (col_1 INT, col_2 DOUBLE, payload STRING) $2;"
    for i in $(seq 0 $((NB - 1))); do echo "INSERT INTO $1 $3 SELECT col_1, col_2, payload FROM read_parquet('$(batch "$i")');"; done
}
ingest() { # name table create-clause hint -> "seconds rss_kb"
    ingest_sql "$2" "$3" "$4" >"$tmp/$1.sql"
    /usr/bin/time -f "%e %M" -o "$tmp/$1.time" "$BUILD/tarn" -w "$tmp/wh" -f "$tmp/$1.sql" >/dev/null 2>"$tmp/$1.err" ||
        fail "ingest $1: $(head -c 300 "$tmp/$1.err")"
    tail -1 "$tmp/$1.time"
}
weight() { awk -v p="$1" 'BEGIN { x = int(p / 100 * 4294967295 - 2147483648); if (x > 2147483647) x = 2147483647; printf "%d", x }'; }
stat() { sed -E "s/.*\"$1\":([0-9]+).*/\1/" "$2"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) print "n/a"; else printf "%.3f%%", 100 * a / b }'; }

# qbeast's published share read (PR #375), per configuration and fraction
qb() { case "$1/$2" in
    15000/15000/0.001) echo 16.84%;; 15000/15000/1) echo 100.00%;; 15000/15000/10) echo 100.00%;;
    15000/3000/0.001) echo 1.65%;; 15000/3000/1) echo 34.30%;; 15000/3000/10) echo 82.77%;;
    3000/3000/0.001) echo 1.77%;; 3000/3000/1) echo 78.43%;; 3000/3000/10) echo 95.13%;; esac; }

{
    echo "| cubeSize | rollupSize | sample | qbeast: table read | tarn: rows read | tarn: bytes read | tarn: files touched | files in table |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$tmp/share.md"
ing_otree=""
for cfg in 15000/15000 15000/3000 3000/3000; do
    cs=${cfg%/*}; rs=${cfg#*/}
    name="t_${cs}_${rs}"
    r=$(ingest "$name" "$name" "USING qbeast OPTIONS ('columnsToIndex' = 'col_1,col_2', 'cubeSize' = '$cs')" "/*+ OPTIONS('rollupSize' = '$rs') */")
    [ "$cfg" = 15000/3000 ] && ing_otree=$r
    nfiles=$(find "$tmp/wh/$name" -name '*.parquet' | wc -l)
    for p in 0.001 1 10; do
        got=$("$BUILD/tarn" -w "$tmp/wh" --csv --stats -c "SELECT count(*) FROM $name TABLESAMPLE ($p PERCENT)" 2>"$tmp/st" | tail -1)
        want=$("$BUILD/tarn" -w "$tmp/wh" --csv -c "SELECT count(*) FROM $name WHERE hash(col_1, col_2) < $(weight "$p")" | tail -1)
        [ "$got" = "$want" ] || fail "$name $p%: sample $got rows, hash filter $want"
        echo "| $cs | $rs | $p% | $(qb "$cfg" "$p") | $(pct "$(stat rows_scanned "$tmp/st")" "$(stat table_rows "$tmp/st")") |" \
             "$(pct "$(stat bytes_scanned "$tmp/st")" "$(stat table_bytes "$tmp/st")") | $(pct "$(stat files_scanned "$tmp/st")" "$(stat table_files "$tmp/st")") | $nfiles |" >>"$tmp/share.md"
    done
done
T=t_15000_3000
a=$("$BUILD/tarn" -w "$tmp/wh" --csv -c "SELECT count(*), round(sum(col_2), 3) FROM $T" | tail -1)
d=$("$DUCK" "SELECT count(*), round(sum(col_2), 3) FROM read_parquet('$tmp/wh/$T/*.parquet')" | tail -1)
e=$("$DUCK" "SELECT count(*), round(sum(col_2), 3) FROM read_parquet('$tmp/batches/*/*.parquet')" | tail -1)
[ "$a" = "$d" ] && [ "$a" = "$e" ] || fail "rows: tarn [$a], DuckDB over the OTree files [$d], the batches [$e]"

# the same table after OPTIMIZE (every row re-indexed with exact counts into one tree): a copy
cp -r "$tmp/wh/$T" "$tmp/wh/t_opt"
/usr/bin/time -f "%e %M" -o "$tmp/opt.time" "$BUILD/tarn" -w "$tmp/wh" -c "OPTIMIZE t_opt WITH ('rollupSize' = '3000')" >/dev/null 2>"$tmp/opt.err" ||
    fail "OPTIMIZE: $(head -c 300 "$tmp/opt.err")"
opt=$(tail -1 "$tmp/opt.time")
for p in 0.001 1 10; do
    got=$("$BUILD/tarn" -w "$tmp/wh" --csv --stats -c "SELECT count(*) FROM t_opt TABLESAMPLE ($p PERCENT)" 2>"$tmp/st" | tail -1)
    want=$("$BUILD/tarn" -w "$tmp/wh" --csv -c "SELECT count(*) FROM t_opt WHERE hash(col_1, col_2) < $(weight "$p")" | tail -1)
    [ "$got" = "$want" ] || fail "t_opt $p%: sample $got rows, hash filter $want"
    echo "| 15000 | 3000, then OPTIMIZE | $p% | | $(pct "$(stat rows_scanned "$tmp/st")" "$(stat table_rows "$tmp/st")") |" \
         "$(pct "$(stat bytes_scanned "$tmp/st")" "$(stat table_bytes "$tmp/st")") | $(pct "$(stat files_scanned "$tmp/st")" "$(stat table_files "$tmp/st")") | $(stat table_files "$tmp/st") |" >>"$tmp/share.md"
done

# qbeast's optimize(fraction) on another copy: only the files with a block of minWeight <= 1%
cp -r "$tmp/wh/$T" "$tmp/wh/t_part"
/usr/bin/time -f "%e %M" -o "$tmp/part.time" "$BUILD/tarn" -w "$tmp/wh" --csv -c "OPTIMIZE t_part WHERE fraction <= 0.01 WITH ('rollupSize' = '3000')" >"$tmp/part.out" 2>"$tmp/part.err" ||
    fail "OPTIMIZE WHERE fraction: $(head -c 300 "$tmp/part.err")"
part=$(tail -1 "$tmp/part.time")
for p in 0.001 1 10; do
    got=$("$BUILD/tarn" -w "$tmp/wh" --csv --stats -c "SELECT count(*) FROM t_part TABLESAMPLE ($p PERCENT)" 2>"$tmp/st" | tail -1)
    want=$("$BUILD/tarn" -w "$tmp/wh" --csv -c "SELECT count(*) FROM t_part WHERE hash(col_1, col_2) < $(weight "$p")" | tail -1)
    [ "$got" = "$want" ] || fail "t_part $p%: sample $got rows, hash filter $want"
    echo "| 15000 | 3000, then OPTIMIZE WHERE fraction <= 0.01 | $p% | | $(pct "$(stat rows_scanned "$tmp/st")" "$(stat table_rows "$tmp/st")") |" \
         "$(pct "$(stat bytes_scanned "$tmp/st")" "$(stat table_bytes "$tmp/st")") | $(pct "$(stat files_scanned "$tmp/st")" "$(stat table_files "$tmp/st")") | $(stat table_files "$tmp/st") |" >>"$tmp/share.md"
done

# plain Delta table and DuckDB COPY of the same batches
ing_plain=$(ingest plain plain "" "")
{
    echo "SET threads = $TH;"
    for i in $(seq 0 $((NB - 1))); do echo "COPY (SELECT col_1, col_2, payload FROM read_parquet('$(batch "$i")')) TO '$tmp/duck/$i.parquet' (FORMAT parquet);"; done
} >"$tmp/duck.sql"
mkdir -p "$tmp/duck"
/usr/bin/time -f "%e %M" -o "$tmp/duck.time" "$DUCK" - <"$tmp/duck.sql" >/dev/null 2>"$tmp/duck.err" || fail "DuckDB COPY: $(head -c 300 "$tmp/duck.err")"
ing_duck=$(tail -1 "$tmp/duck.time")

# query times (tarn: -timer in one process; DuckDB: duck_bench.mjs)
tarn_ms() { # table sql
    local args=() i
    for i in $(seq 0 "$REPS"); do args+=(-c "$2"); done
    "$BUILD/tarn" -w "$tmp/wh" -timer --csv -c "SET threads = $TH" "${args[@]}" 2>"$tmp/timer" >/dev/null || fail "tarn: $2"
    grep -o 'real [0-9.]*' "$tmp/timer" | tail -n +2 | awk '{print $2 * 1000}' | med
    # CPU time (user + sys) of the same runs: what a loaded machine distorts least
    grep -o 'user [0-9.]* sys [0-9.]*' "$tmp/timer" | tail -n +2 | awk '{print ($2 + $4) * 1000}' | med >"$tmp/cpu.$3"
}
s_ms=$(tarn_ms $T "SELECT avg(col_2) FROM $T TABLESAMPLE (1 PERCENT)" s)
f_ms=$(tarn_ms $T "SELECT avg(col_2) FROM $T" f)
p_ms=$(tarn_ms plain "SELECT avg(col_2) FROM plain" p)
ps_ms=$(tarn_ms t_part "SELECT avg(col_2) FROM t_part TABLESAMPLE (1 PERCENT)" ps)
# the sample in a fresh process: log, index and footers read from scratch (the -timer runs above
# are in one process, where snapshots and footers are kept between statements)
cold_ms=$("$BUILD/tarn" -w "$tmp/wh" -timer --csv -c "SET threads = $TH" -c "SELECT avg(col_2) FROM $T TABLESAMPLE (1 PERCENT)" 2>&1 >/dev/null |
          grep -o 'real [0-9.]*' | tail -1 | awk '{print $2 * 1000}')
os_ms=$(tarn_ms t_opt "SELECT avg(col_2) FROM t_opt TABLESAMPLE (1 PERCENT)" os)
of_ms=$(tarn_ms t_opt "SELECT avg(col_2) FROM t_opt" of)
cpu() { cat "$tmp/cpu.$1"; }
printf 'duck_sample\tSELECT avg(col_2) FROM read_parquet('"'"'%s/batches/*/*.parquet'"'"') USING SAMPLE 1%%\nduck_full\tSELECT avg(col_2) FROM read_parquet('"'"'%s/batches/*/*.parquet'"'"')\n' "$tmp" "$tmp" >"$tmp/q.txt"
mkdir -p "$tmp/dout"
node bench/duck_bench.mjs "$tmp/q.txt" "$TH" "$REPS" "$tmp/dout" >"$tmp/dt.txt" 2>"$tmp/dt.err" || fail "duck_bench: $(head -c 300 "$tmp/dt.err")"
ds_ms=$(awk '$1 == "duck_sample" {print $2}' "$tmp/dt.txt")
df_ms=$(awk '$1 == "duck_full" {print $2}' "$tmp/dt.txt")

sec_ms() { awk -v s="$1" 'BEGIN { printf "%.0f", s * 1000 }'; }
ot_s=${ing_otree% *}; ot_kb=${ing_otree#* }
pl_s=${ing_plain% *}; pl_kb=${ing_plain#* }
du_s=${ing_duck% *}; du_kb=${ing_duck#* }
of=$(find "$tmp/wh/$T" -name '*.parquet' | wc -l); pf=$(find "$tmp/wh/plain" -name '*.parquet' | wc -l); df=$(find "$tmp/duck" -name '*.parquet' | wc -l)
osz=$(find "$tmp/wh/$T" -name '*.parquet' -printf '%s\n' | awk '{s += $1; n++; if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1} END {printf "%.0f KB avg, %.0f-%.0f KB", s / n / 1024, min / 1024, max / 1024}')
{
    echo "| measurement | tarn ms | other ms | tarn / other | goal |"
    echo "|---|---:|---:|---:|---|"
    echo "| avg(col_2) TABLESAMPLE (1 PERCENT) vs tarn's full scan of the OTree table | $s_ms | $f_ms | $(ratio "$s_ms" "$f_ms") | <= 0.05 (20x) |"
    echo "| avg(col_2) TABLESAMPLE (1 PERCENT) vs DuckDB USING SAMPLE 1% over the batches | $s_ms | $ds_ms | $(ratio "$s_ms" "$ds_ms") | <= 0.1 (10x) |"
    echo "| the same, CPU time (user + sys) | $(cpu s) | $(cpu f) | $(ratio "$(cpu s)" "$(cpu f)") | |"
    echo "| the same, the sample in a fresh process (log and footers read from scratch) vs full scan | $cold_ms | $f_ms | $(ratio "$cold_ms" "$f_ms") | |"
    echo "| the same after OPTIMIZE WHERE fraction <= 0.01: TABLESAMPLE (1 PERCENT) vs full scan (before it) | $ps_ms | $f_ms | $(ratio "$ps_ms" "$f_ms") | |"
    echo "| the same after OPTIMIZE: TABLESAMPLE (1 PERCENT) vs full scan | $os_ms | $of_ms | $(ratio "$os_ms" "$of_ms") | <= 0.05 (20x) |"
    echo "| the same after OPTIMIZE, CPU time | $(cpu os) | $(cpu of) | $(ratio "$(cpu os)" "$(cpu of)") | |"
    echo "| the same after OPTIMIZE: TABLESAMPLE (1 PERCENT) vs DuckDB USING SAMPLE 1% | $os_ms | $ds_ms | $(ratio "$os_ms" "$ds_ms") | <= 0.1 (10x) |"
    echo "| full scan: OTree table vs DuckDB over the batches | $f_ms | $df_ms | $(ratio "$f_ms" "$df_ms") | |"
    echo "| full scan: plain Delta table vs DuckDB over the batches | $p_ms | $df_ms | $(ratio "$p_ms" "$df_ms") | |"
    echo "| ingest $NB batches: OTree (15000/3000) vs plain Delta | $(sec_ms "$ot_s") | $(sec_ms "$pl_s") | $(ratio "$ot_s" "$pl_s") | <= 1.5 |"
    echo "| ingest $NB batches: OTree vs DuckDB COPY per batch | $(sec_ms "$ot_s") | $(sec_ms "$du_s") | $(ratio "$ot_s" "$du_s") | |"
    echo
    echo "Ingest: OTree $of files ($(awk -v f="$of" -v b="$NB" 'BEGIN {printf "%.2f", f / b}') per batch; $osz), peak RSS $((ot_kb / 1024)) MB;" \
         "plain $pf files, peak RSS $((pl_kb / 1024)) MB; DuckDB $df files, peak RSS $((du_kb / 1024)) MB."
    echo "OPTIMIZE of the OTree table: $(sec_ms "${opt% *}") ms, peak RSS $((${opt#* } / 1024)) MB (it holds the rewritten rows in memory)."
    echo "OPTIMIZE WHERE fraction <= 0.01: $(sec_ms "${part% *}") ms, peak RSS $((${part#* } / 1024)) MB, files removed, added: $(tail -1 "$tmp/part.out")."
} >"$tmp/time.md"
{
    echo "$NB batches x $NR rows ($TOTAL rows), 2 indexed columns, threads $TH, load $load_before -> $(load1) (2 cores, shared)."
    echo "DuckDB $(duck_version). $(date -u +%Y-%m-%d)."
    echo
    cat "$tmp/share.md"
    echo
    cat "$tmp/time.md"
} >"$tmp/section.md"
cat "$tmp/section.md"
[ "${BENCH_UPDATE_README:-0}" = 1 ] && [ "$bad" = 0 ] && readme_section otree "$tmp/section.md"
exit "$bad"
