#!/usr/bin/env bash
# tests/interop/partitioned_write.sh: writes into tables with many partitions from unsorted
# input (issue 16, item 0): flights-3m into PARTITIONED BY (origin) (229 partitions) and a
# synthetic 2,000-partition input under a small memory_limit (rows buffered and spilled). Each
# partition must get about ceil(size / target) files (here: one), DuckDB must read exactly the
# source rows from the files the table's log lists, no temporary file may stay behind (also after
# a killed write), and the Delta checker validates the tables (tn_cleanup). Ends with
# "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BIN=$BUILD/tarn
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_partwrite.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT
wh=$dir/wh
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "    $2"; }
run() {   # tarn SQL; a failed statement fails the suite
    if ! "$BIN" -w "$wh" -c "$1" >/dev/null 2>"$dir/err"; then
        bad "setup: ${1:0:120}" "$(head -c 600 "$dir/err")"; echo "$pass passed, $fail failed"; exit 1
    fi
}

# Live files of a table (replayed from its JSON commits): "partition-dir<TAB>path" lines.
live_files() {
    python3 - "$1" <<'EOF'
import json, os, sys, urllib.parse
t = sys.argv[1]; log = os.path.join(t, "_delta_log"); live = {}
for f in sorted(x for x in os.listdir(log) if x.endswith(".json") and len(x) == 25):
    for line in open(os.path.join(log, f)):
        a = json.loads(line)
        if "add" in a: live[a["add"]["path"]] = 1
        if "remove" in a: live.pop(a["remove"]["path"], None)
for p in sorted(live):
    p = urllib.parse.unquote(p)
    print(os.path.dirname(p) + "\t" + os.path.join(t, p))
EOF
}
# checks_table name table source-sql-for-duckdb expected-partitions
check_table() {
    local name=$1 t=$2 src=$3 nparts=$4
    live_files "$t" >"$dir/live.tsv"
    local nfiles ndirs most
    nfiles=$(wc -l <"$dir/live.tsv")
    ndirs=$(cut -f1 "$dir/live.tsv" | sort -u | wc -l)
    most=$(cut -f1 "$dir/live.tsv" | sort | uniq -c | sort -rn | awk 'NR == 1 {print $1}')
    if [ "$ndirs" = "$nparts" ] && [ "$nfiles" = "$nparts" ]; then ok "$name: one file per partition ($nparts partitions)"
    else bad "$name: $nfiles files in $ndirs partitions (expected $nparts, one each; the most in one partition: $most)"; fi
    find "$t" -name '*.parquet' | sort >"$dir/disk.txt"
    cut -f2 "$dir/live.tsv" | sort >"$dir/log.txt"
    if cmp -s "$dir/disk.txt" "$dir/log.txt"; then ok "$name: the data files on disk are exactly the log's"
    else bad "$name: $(wc -l <"$dir/disk.txt") .parquet files on disk, $nfiles in the log"; fi
    if [ ! -e "$t/_tarn_tmp" ]; then ok "$name: no temporary files left"; else bad "$name: $t/_tarn_tmp remains" "$(ls -la "$t/_tarn_tmp" | head -5)"; fi
    # row-for-row: the multiset difference both ways is empty, and the counts agree (the glob
    # is the log's file list: same count on disk, checked above)
    "$DUCK" "WITH t AS (SELECT * FROM read_parquet('$t/*/*.parquet', hive_partitioning = true)), s AS ($src)
             SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM s),
                    (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM s)),
                    (SELECT count(*) FROM (SELECT * FROM s EXCEPT ALL SELECT * FROM t))" --no-header >"$dir/cmp.csv" 2>&1
    IFS=, read -r nt ns d1 d2 <"$dir/cmp.csv"
    if [ "${d1:-x}" = 0 ] && [ "${d2:-x}" = 0 ] && [ "$nt" = "$ns" ] && [ "$nt" -gt 0 ]; then
        ok "$name: DuckDB reads the source's $nt rows, row for row"
    else
        bad "$name: DuckDB over the table's files differs from the source" "$(head -c 600 "$dir/cmp.csv")"
    fi
}

# 1. flights-3m into PARTITIONED BY (origin): 229 partitions, rows not sorted by origin (before
#    the fix: ~240,000 files of ~12 rows).
run "CREATE TABLE f (date TIMESTAMP, delay BIGINT, distance BIGINT, origin VARCHAR, destination VARCHAR) PARTITIONED BY (origin)"
run "INSERT INTO f SELECT * FROM read_parquet('$FLIGHTS')"
check_table "flights-3m by origin" "$wh/f" \
    "SELECT date, delay, distance, destination, origin FROM read_parquet('$FLIGHTS')" 229

# 2. 2,000 partitions, every chunk touching most of them, under memory_limit = 48MB: one file
#    writer open for every ~1 MiB of a quarter of it, the other partitions buffered in 24 MiB and
#    spilled to the table's hidden temporary area.
syn=$dir/syn.parquet
"$DUCK" "COPY (SELECT (i * 7919) % 2000 AS p, i AS id, 'name-' || i AS s,
                CASE WHEN i % 13 = 0 THEN NULL ELSE CAST(i AS DOUBLE) * 0.5 END AS d,
                DATE '2020-01-01' + CAST(i % 1000 AS INTEGER) AS day
         FROM range(1500000) t(i)) TO '$syn' (FORMAT parquet)" >/dev/null ||
    { bad "setup: DuckDB could not write $syn"; echo "$pass passed, $fail failed"; exit 1; }
run "CREATE TABLE s (p INTEGER, id BIGINT, s VARCHAR, d DOUBLE, day DATE) PARTITIONED BY (p)"
/usr/bin/time -f "%M" -o "$dir/rss" "$BIN" -w "$wh" -c "SET memory_limit = '48MB'; INSERT INTO s SELECT * FROM read_parquet('$syn')" \
    >/dev/null 2>"$dir/err" || bad "2000 partitions: INSERT under memory_limit 48MB failed" "$(head -c 600 "$dir/err")"
check_table "2000 partitions, memory_limit 48MB" "$wh/s" \
    "SELECT id, s, d, day, p FROM read_parquet('$syn')" 2000
echo "    (peak RSS of that INSERT: $(cat "$dir/rss" 2>/dev/null) KiB)"

# 3. a write killed while it buffers/spills commits nothing and leaves nothing a reader sees; the
#    next write removes what it left in the temporary area.
run "CREATE TABLE k (p INTEGER, id BIGINT, s VARCHAR, d DOUBLE, day DATE) PARTITIONED BY (p)"
"$BIN" -w "$wh" -c "SET memory_limit = '48MB'; INSERT INTO k SELECT * FROM read_parquet('$syn')" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do   # until it has spilled (the temporary area exists), at most ~60 s
    [ -e "$wh/k/_tarn_tmp" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if [ -e "$wh/k/_tarn_tmp" ]; then
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    if [ ! -e "$wh/k/_delta_log/00000000000000000001.json" ]; then ok "killed write: nothing committed"
    else bad "killed write: a version was committed"; fi
    n=$("$BIN" -w "$wh" --csv -c "SELECT count(*) FROM k" 2>&1 | tail -1)
    [ "$n" = 0 ] && ok "killed write: readers see the table as it was" || bad "killed write: SELECT count(*) gives $n"
    left=$(find "$wh/k/_tarn_tmp" -type f 2>/dev/null | wc -l)
    [ "$left" = 0 ] && ok "killed write: no named spill file (O_TMPFILE or unlinked at once)" ||
        bad "killed write: $left spill files remain"
    run "INSERT INTO k VALUES (1, 1, 'a', 1.0, DATE '2024-01-01')"
    [ ! -e "$wh/k/_tarn_tmp" ] && ok "killed write: the next write removed the temporary area" ||
        bad "killed write: $wh/k/_tarn_tmp remains after the next write"
else
    wait "$pid"
    bad "killed write: the INSERT never spilled (no $wh/k/_tarn_tmp seen)"
fi
rm -rf "$wh/k"   # killed on purpose: its leftover data files are not the checker's business

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
