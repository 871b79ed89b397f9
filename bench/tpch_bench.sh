#!/usr/bin/env bash
# bench/tpch_bench.sh: the 22 TPC-H queries, tarn against DuckDB on the same Parquet files, same
# machine, same run. Data: tarn's generator (build/tpch_dbgen, tests/tpch/) at each scale factor
# of BENCH_TPCH_SF (default "1"), loaded into Parquet by DuckDB once into bench/data/tpch-sfN/
# (git-ignored). Both engines see the tables as temporary views over read_parquet, set up
# untimed; each query runs in its own process on each side (bench/sql_bench.c over tarn.h,
# bench/duck_bench.mjs over the pinned DuckDB): one warm-up, then BENCH_REPS (default 3) timed
# runs, the median reported, with the process's peak RSS (GNU time; DuckDB's includes node's
# own ~50 MB). Q15 runs in its common-table-expression form (one statement; the view form is
# what tests/interop/tpch_duckdb.sh checks). Results are compared (rows sorted, numbers to
# 1e-9). BENCH_THREADS (default "1 2"), BENCH_ONLY (regex of query names), BENCH_MEMORY_LIMIT
# (a SET memory_limit for both engines, e.g. 2GB),
# BENCH_UPDATE_README=1 writes the table into bench/README.md (section "TPC-H").
set -u
cd "$(dirname "$0")/.."
. bench/common.sh   # BUILD, DUCK, ORACLE_DIR, REPS (BENCH_REPS), med, ratio, load1, duck_version
REPS=${BENCH_REPS:-3}
SFS=${BENCH_TPCH_SF:-1}
THREADS=${BENCH_THREADS:-1 2}
ONLY=${BENCH_ONLY:-.}
[ -f "$BUILD/libtarn.a" ] && [ -x "$BUILD/tpch_dbgen" ] || { echo "tpch_bench: run make first" >&2; exit 1; }
BIN=$BUILD/bench/sql_bench
bench_cc "$BIN" bench/sql_bench.c || { echo "tpch_bench: build failed" >&2; exit 1; }
"$DUCK" "SELECT 1" >/dev/null || { echo "tpch_bench: the DuckDB oracle does not run" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-tpchbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# One line of SQL from a query file: comments dropped, whitespace folded.
one_line() { grep -v '^--' "$1" | tr '\n\t' '  ' | sed -e 's/  */ /g' -e 's/; *$//' -e 's/^ //'; }
q15_cte="with revenue0 (supplier_no, total_revenue) as (select l_suppkey, sum(l_extendedprice * (1 - l_discount)) from lineitem where l_shipdate >= date '1996-01-01' and l_shipdate < date '1996-01-01' + interval '3' month group by l_suppkey) select s_suppkey, s_name, s_address, s_phone, total_revenue from supplier, revenue0 where s_suppkey = supplier_no and total_revenue = (select max(total_revenue) from revenue0) order by s_suppkey"

declare -A TT DT TR DR CHK
load_before=$(load1)
for sf in $SFS; do
    data=$(pwd)/bench/data/tpch-sf$sf
    if [ ! -f "$data/views.sql" ]; then
        echo "tpch_bench: generating TPC-H SF $sf into $data" >&2
        BUILD=$BUILD tests/tpch/tpch_load.sh "$sf" "$data" || { echo "tpch_bench: generating failed" >&2; exit 1; }
    fi
    setup=$(sed 's/^CREATE VIEW/CREATE TEMP VIEW/' "$data/views.sql" | tr '\n' ' ')
    # BENCH_MEMORY_LIMIT (e.g. 2GB): both engines run under SET memory_limit (they spill past it)
    if [ -n "${BENCH_MEMORY_LIMIT:-}" ]; then setup="SET memory_limit = '$BENCH_MEMORY_LIMIT'; $setup"; fi
    for q in tests/tpch/queries/q*.sql; do
        name=$(basename "$q" .sql)
        [[ "$name" =~ $ONLY ]] || continue
        if [ "$name" = q15 ]; then sql=$q15_cte; else sql=$(one_line "$q" | sed 's/ day (3)/ day/'); fi
        printf '@setup\t%s\n%s\t%s\n' "$setup" "$name" "$sql" > "$tmp/one.tsv"
        for th in $THREADS; do
            k=$sf.$name.$th
            mkdir -p "$tmp/t$k" "$tmp/d$k"
            /usr/bin/time -f %M -o "$tmp/t.rss" "$BIN" "$tmp/one.tsv" "$th" "$REPS" "$tmp/t$k" > "$tmp/one.t" 2> "$tmp/t.err" ||
                echo "tpch_bench: SF $sf $name: tarn failed: $(head -c 300 "$tmp/t.err")" >&2
            /usr/bin/time -f %M -o "$tmp/d.rss" node bench/duck_bench.mjs "$tmp/one.tsv" "$th" "$REPS" "$tmp/d$k" > "$tmp/one.d" 2> "$tmp/d.err" ||
                echo "tpch_bench: SF $sf $name: DuckDB failed: $(head -c 300 "$tmp/d.err")" >&2
            read -r _ TT[$k] _ < "$tmp/one.t"
            read -r _ DT[$k] _ < "$tmp/one.d"
            TR[$k]=$(( $(tail -n 1 "$tmp/t.rss") / 1024 )); DR[$k]=$(( $(tail -n 1 "$tmp/d.rss") / 1024 ))
            CHK[$k]=$(python3 bench/compare_rows.py "$tmp/t$k/$name.txt" "$tmp/d$k/$name.txt")
            echo "tpch_bench: SF $sf threads=$th $name: tarn ${TT[$k]} ms ${TR[$k]} MB, DuckDB ${DT[$k]} ms ${DR[$k]} MB; ${CHK[$k]}" >&2
        done
    done
done
load_after=$(load1)

geomean() { awk '{ if ($1 > 0) { s += log($1); n++ } } END { if (n) printf "%.2f", exp(s / n); else print "n/a" }'; }
{
    echo "Run: $(date -u +%Y-%m-%d), $(nproc) cores, DuckDB $(duck_version), median of $REPS runs after a warm-up, each query in its own process on each side (start-up not timed); load average $load_before before / $load_after after$(awk -v l="$load_before" 'BEGIN { if (l > 1.5) print " (other work shared the cores: treat ratios as rough)" }')."
    for sf in $SFS; do
        echo
        hdr="| SF $sf |"; sep="|---|"
        for th in $THREADS; do hdr="$hdr tarn ms (t=$th) | DuckDB ms (t=$th) | ratio (t=$th) | tarn / DuckDB MB (t=$th) |"; sep="$sep---:|---:|---:|---:|"; done
        echo "$hdr"; echo "$sep"
        for q in tests/tpch/queries/q*.sql; do
            name=$(basename "$q" .sql)
            [[ "$name" =~ $ONLY ]] || continue
            row="| $name |"
            for th in $THREADS; do
                k=$sf.$name.$th
                t=${TT[$k]:-nan}; d=${DT[$k]:-nan}
                case "${CHK[$k]}" in ok*) c="" ;; *) c=" (result ${CHK[$k]%% *})" ;; esac
                row="$row $t | $d | $(ratio "$t" "$d")$c | ${TR[$k]} / ${DR[$k]} |"
            done
            echo "$row"
        done
        row="| geometric mean of the ratios |"
        for th in $THREADS; do
            g=$(for q in tests/tpch/queries/q*.sql; do n=$(basename "$q" .sql); [[ "$n" =~ $ONLY ]] || continue; ratio "${TT[$sf.$n.$th]:-nan}" "${DT[$sf.$n.$th]:-nan}"; echo; done | grep -v n/a | geomean)
            row="$row | | $g | |"
        done
        echo "$row"
    done
} > "$tmp/table.md"
cat "$tmp/table.md"
if [ "${BENCH_UPDATE_README:-0}" = 1 ]; then readme_section TPCH "$tmp/table.md"; fi
