#!/usr/bin/env bash
# bench/sql_bench.sh: tarn's SQL engine against DuckDB on the same queries, same machine, same
# run (also run by `make bench` through bench/run.sh). Needs $BUILD/libtarn.a (make).
#   BUILD (default build), BENCH_REPS (default 5),
#   BENCH_THREADS (default "1 2"), BENCH_ONLY (a regex of query names, e.g. 'f_q[56]'),
#   BENCH_UPDATE_README=1 to write the table into bench/README.md (section "SQL").
# Data: flights-3m.parquet (tests/data/datasets), and files generated once with DuckDB into bench/data/
# (git-ignored): gen-10m.parquet (10M rows), airports.parquet (a dimension of flights' airports),
# gen-dim.parquet (a 1000-row dimension of gen-10m's g1), nested-1m.parquet (a LIST and a STRUCT).
# Timing: both sides run every query in one process (tarn: bench/sql_bench.c over tarn.h;
# DuckDB: bench/duck_bench.mjs over the oracle's @duckdb/node-api): one warm-up, then
# BENCH_REPS runs; the median is reported. Process start-up is not timed on either side. The
# results of both are compared (rows sorted; numbers with a 1e-9 relative tolerance).
set -u
cd "$(dirname "$0")/.."
. bench/common.sh   # BUILD, F, DUCK, ORACLE_DIR, REPS
THREADS=${BENCH_THREADS:-1 2}
ONLY=${BENCH_ONLY:-.}
DATA=bench/data
LDLIBS="-lsnappy -lzstd -llz4 -lz -lbrotlienc -lbrotlidec -lbrotlicommon -ljansson -lroaring -lxxhash -ledit -lssl -lcrypto -lre2 -lstdc++ -lm -pthread"
[ -f "$BUILD/libtarn.a" ] || { echo "sql_bench: $BUILD/libtarn.a missing (run make)" >&2; exit 1; }
[ -f "$F" ] || { echo "sql_bench: $F missing" >&2; exit 1; }
mkdir -p "$BUILD/bench" "$DATA"
BIN=$BUILD/bench/sql_bench
${CC:-cc} -std=c11 -O2 -g -Iinclude -D_GNU_SOURCE -o "$BIN" bench/sql_bench.c "$BUILD/libtarn.a" $LDLIBS ||
    { echo "sql_bench: build failed" >&2; exit 1; }
"$DUCK" "SELECT 1" >/dev/null || { echo "sql_bench: the DuckDB oracle does not run" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-sqlbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- data (generated once)
G=$(pwd)/$DATA/gen-10m.parquet
A=$(pwd)/$DATA/airports.parquet
D=$(pwd)/$DATA/gen-dim.parquet
if [ ! -f "$G" ]; then
    echo "sql_bench: generating $G (10M rows)" >&2
    "$DUCK" "COPY (SELECT i::BIGINT AS k,
        (hash(i) % 1000)::INTEGER AS g1,
        'key' || lpad((hash(i + 7) % 50000)::VARCHAR, 5, '0') AS g2,
        CASE WHEN i % 100 = 0 THEN NULL ELSE ((hash(i + 13) % 1000000) / 100.0)::DOUBLE END AS v,
        (DATE '2020-01-01' + (hash(i + 21) % 1461)::INTEGER) AS d,
        (['red','green','blue','cyan','magenta','yellow','black','white'])[(hash(i + 3) % 8)::INTEGER + 1] AS s
      FROM range(10000000) t(i)) TO '$G.tmp' (FORMAT parquet, COMPRESSION zstd)" >/dev/null &&
        mv "$G.tmp" "$G" || { echo "sql_bench: generating $G failed" >&2; exit 1; }
fi
if [ ! -f "$A" ]; then
    "$DUCK" "COPY (SELECT code,
        chr(65 + (hash(code) % 26)::INTEGER) || chr(65 + (hash(code || 'x') % 26)::INTEGER) AS state,
        25 + (hash(code || 'lat') % 2300) / 100.0 AS lat, -125 + (hash(code || 'lon') % 5800) / 100.0 AS lon
      FROM (SELECT origin AS code FROM read_parquet('$F') UNION SELECT destination FROM read_parquet('$F'))
      ORDER BY code) TO '$A' (FORMAT parquet)" >/dev/null || { echo "sql_bench: generating $A failed" >&2; exit 1; }
fi
if [ ! -f "$D" ]; then
    "$DUCK" "COPY (SELECT i::INTEGER AS g1, 'region' || (i % 20) AS region, 'name' || i AS name
      FROM range(1000) t(i)) TO '$D' (FORMAT parquet)" >/dev/null || { echo "sql_bench: generating $D failed" >&2; exit 1; }
fi

N=$(pwd)/$DATA/nested-1m.parquet
if [ ! -f "$N" ]; then
    echo "sql_bench: generating $N (1M rows, LIST<BIGINT> of 10M elements, a 20-field STRUCT)" >&2
    "$DUCK" "COPY (SELECT i::BIGINT AS k,
        [hash(i) % 1000, hash(i + 1) % 1000, hash(i + 2) % 1000, hash(i + 3) % 1000, hash(i + 4) % 1000,
         hash(i + 5) % 1000, hash(i + 6) % 1000, hash(i + 7) % 1000, hash(i + 8) % 1000, hash(i + 9) % 1000]::BIGINT[] AS l,
        {'f0': i, 'f1': i + 1, 'f2': i * 2, 'f3': (hash(i) % 100000)::BIGINT, 'f4': i % 7, 'f5': 'v' || (i % 100),
         'f6': i / 3, 'f7': i % 11, 'f8': (i % 13)::DOUBLE, 'f9': 'w' || (i % 1000), 'f10': i + 10, 'f11': i + 11,
         'f12': i + 12, 'f13': i + 13, 'f14': i + 14, 'f15': i + 15, 'f16': i + 16, 'f17': i + 17, 'f18': i + 18,
         'f19': 'x' || i} AS s
      FROM range(1000000) t(i)) TO '$N.tmp' (FORMAT parquet, COMPRESSION zstd)" >/dev/null &&
        mv "$N.tmp" "$N" || { echo "sql_bench: generating $N failed" >&2; exit 1; }
fi

# --- queries: name, description, SQL
f="read_parquet('$F')"; g="read_parquet('$G')"; n="read_parquet('$N')"
cat >"$tmp/all.tsv" <<EOF
f_q1	flights: GROUP BY origin (count, avg, max)	SELECT origin, count(*), avg(delay), max(distance) FROM $f GROUP BY origin
f_q2	flights: selective filter + aggregate	SELECT count(*), avg(delay), max(distance) FROM $f WHERE origin = 'JFK' AND delay > 60
f_q3	flights: ORDER BY delay DESC, date LIMIT 10	SELECT * FROM $f ORDER BY delay DESC, date LIMIT 10
f_q4	flights JOIN airports, GROUP BY state	SELECT a.state, count(*), avg(fl.delay) FROM $f fl JOIN read_parquet('$A') a ON fl.origin = a.code GROUP BY a.state
f_q5	flights: count(DISTINCT destination) per origin	SELECT origin, count(DISTINCT destination) FROM $f GROUP BY origin
f_q6	flights: GROUP BY origin, destination, day (571k groups)	SELECT origin, destination, date_trunc('day', date) AS day, count(*), avg(delay) FROM $f GROUP BY origin, destination, day
g_q1	gen-10m: GROUP BY s (8 strings; count, avg, max)	SELECT s, count(*), avg(v), max(k) FROM $g GROUP BY s
g_q2	gen-10m: selective filter + aggregate	SELECT count(*), sum(v), min(d) FROM $g WHERE g1 = 42 AND s = 'red'
g_q3	gen-10m: ORDER BY v DESC, k LIMIT 10	SELECT * FROM $g ORDER BY v DESC, k LIMIT 10
g_q4	gen-10m JOIN 1000-row dim, GROUP BY region	SELECT dm.region, count(*), sum(x.v) FROM $g x JOIN read_parquet('$D') dm ON x.g1 = dm.g1 GROUP BY dm.region
g_q5	gen-10m: count(DISTINCT g2) per s	SELECT s, count(DISTINCT g2) FROM $g GROUP BY s
g_q6	gen-10m: GROUP BY g2, s, year(d) (1.6M groups)	SELECT g2, s, year(d) AS y, count(*), sum(v) FROM $g GROUP BY g2, s, y
n_q1	nested-1m: unnest a LIST<BIGINT> (10M elements) + aggregate	SELECT count(*), sum(x), max(x) FROM (SELECT unnest(l) AS x FROM $n)
n_q2	nested-1m: one leaf of a 20-field STRUCT	SELECT sum(s.f3), max(s.f3) FROM $n
n_q3	nested-1m: list_sum per row, grouped	SELECT k % 10 AS g, sum(list_sum(l)) FROM $n GROUP BY g
EOF
awk -F'\t' -v re="$ONLY" '$1 ~ re {print $1 "\t" $3}' "$tmp/all.tsv" >"$tmp/q.tsv"

load_before=$(cut -d' ' -f1 /proc/loadavg)
declare -A TT DT
# Query by query, tarn then DuckDB right after it (so that both see about the same machine load).
for th in $THREADS; do
    mkdir -p "$tmp/t$th" "$tmp/d$th"
    while IFS=$'\t' read -r name sql; do
        printf '%s\t%s\n' "$name" "$sql" >"$tmp/one.tsv"
        "$BIN" "$tmp/one.tsv" "$th" "$REPS" "$tmp/t$th" >"$tmp/one.t" || echo "sql_bench: $name: tarn failed" >&2
        node bench/duck_bench.mjs "$tmp/one.tsv" "$th" "$REPS" "$tmp/d$th" >"$tmp/one.d" || echo "sql_bench: $name: DuckDB failed" >&2
        read -r _ TT[$name.$th] _ <"$tmp/one.t"
        read -r _ DT[$name.$th] _ <"$tmp/one.d"
        echo "sql_bench: threads=$th $name: tarn ${TT[$name.$th]} ms, DuckDB ${DT[$name.$th]} ms" >&2
    done <"$tmp/q.tsv"
done
load_after=$(cut -d' ' -f1 /proc/loadavg)

# --- result check (first thread count's results)
first=${THREADS%% *}
declare -A CHK
bad=0
while IFS=$'\t' read -r name _; do
    CHK[$name]=$(python3 bench/compare_rows.py "$tmp/t$first/$name.txt" "$tmp/d$first/$name.txt")
    case "${CHK[$name]}" in ok*) ;; *) bad=1; echo "sql_bench: $name: results ${CHK[$name]}" >&2;; esac
done <"$tmp/q.tsv"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "nan" || b == "nan" || a == "" || b == "" || b <= 0) print "n/a"; else printf "%.2f", a/b}'; }
{
    echo "Run: $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), DuckDB $(cd "$ORACLE_DIR" && node -p "require('./package.json').dependencies['@duckdb/node-api']" 2>/dev/null || echo '?'), median of $REPS runs after a warm-up, in-process on both sides; load average $load_before before / $load_after after (well above 0: other work shared the cores, treat ratios as rough)."
    echo
    hdr="| query |"; sep="|---|"
    for th in $THREADS; do hdr="$hdr tarn ms (t=$th) | DuckDB ms (t=$th) | ratio (t=$th) |"; sep="$sep---:|---:|---:|"; done
    echo "$hdr"; echo "$sep"
    while IFS=$'\t' read -r name _; do
        desc=$(awk -F'\t' -v n="$name" '$1 == n {print $2}' "$tmp/all.tsv")
        row="| $name: $desc |"
        for th in $THREADS; do
            t=${TT[$name.$th]:-nan}; d=${DT[$name.$th]:-nan}
            row="$row $t | $d | $(ratio "$t" "$d") |"
        done
        echo "$row"
    done <"$tmp/q.tsv"
    echo
    printf 'Result check (threads=%s, rows sorted, numbers to 1e-9 relative):' "$first"
    all_ok=1
    while IFS=$'\t' read -r name _; do case "${CHK[$name]}" in ok*) ;; *) all_ok=0; printf ' %s: %s;' "$name" "${CHK[$name]}";; esac; done <"$tmp/q.tsv"
    [ $all_ok = 1 ] && printf ' every query agrees with DuckDB.'
    echo
} >"$BUILD/bench/sql_last.md"
cat "$BUILD/bench/sql_last.md"
if [ "${BENCH_UPDATE_README:-0}" = 1 ]; then
    python3 - "$BUILD/bench/sql_last.md" bench/README.md <<'EOF'
import sys, re
table = open(sys.argv[1]).read().strip()
path = sys.argv[2]
s = open(path).read()
s = re.sub(r'(<!-- sqlbench:start -->\n).*?(\n<!-- sqlbench:end -->)', lambda m: m.group(1) + table + m.group(2), s, flags=re.S)
open(path, 'w').write(s)
EOF
    echo "sql_bench: bench/README.md updated" >&2
fi
exit $bad
