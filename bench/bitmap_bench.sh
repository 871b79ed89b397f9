#!/usr/bin/env bash
# bench/bitmap_bench.sh: bitmap(col) per group against DuckDB computing the same answer from the
# raw ids, and tarn's bitmap merge / validation / serialization against CRoaring alone.
#   Data (DuckDB, deterministic): 100 groups g, each with an id universe of 1,000..100,000
#   (1000 + 1000 g); 10,000 rows r per group, each holding BENCH_IDS (default 10) ids hashed
#   into the universe: 1M rows. tarn's table bm(g, r, b) holds one bitmap per (g, r)
#   (CREATE TABLE AS ... bitmap_agg(id)); DuckDB reads the ids from Parquet.
#   Timed: tarn `SELECT g, bitmap(b) FROM bm GROUP BY g` (bitmap_bench sql: statement only) vs
#   DuckDB `SELECT g, count(DISTINCT id) FROM ids GROUP BY g` (--time); then bitmap_bench lib.
# BUILD, BENCH_REPS as bench/common.sh; BENCH_UPDATE_README=1 writes bench/README.md's section.
set -u
cd "$(dirname "$0")/.."
. bench/common.sh
BIN=$BUILD/bench/bitmap_bench
bench_cc "$BIN" bench/bitmap_bench.c -Isrc || { echo "bench: build failed" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-bitmap-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
IDS=${BENCH_IDS:-10}
gen="SELECT g::INTEGER AS g, r::INTEGER AS r, (hash(g, r, k) % (1000 + 1000 * g))::BIGINT AS id FROM range(100) a(g), range(10000) b(r), range($IDS) c(k)"
"$DUCK" "COPY ($gen ORDER BY g, r) TO '$tmp/ids.parquet' (FORMAT parquet)" >/dev/null || exit 1
"$DUCK" "COPY (SELECT * FROM '$tmp/ids.parquet' ORDER BY g, r) TO '$tmp/ids.csv' (HEADER)" >/dev/null || exit 1
wh=$tmp/wh
"$BUILD/tarn" -w "$wh" -c "CREATE TABLE bm AS SELECT g, r, bitmap_agg(id) AS b FROM read_parquet('$tmp/ids.parquet') GROUP BY g, r" || exit 1
q="SELECT g, bitmap(b) FROM bm GROUP BY g"
# same answers
"$BUILD/tarn" -w "$wh" --csv -c "$q ORDER BY g" > "$tmp/t.csv"
"$DUCK" "SELECT g, count(DISTINCT id) FROM '$tmp/ids.parquet' GROUP BY g ORDER BY g" > "$tmp/d.csv"
same=$(tail -n +2 "$tmp/t.csv" | cmp -s - <(tail -n +2 "$tmp/d.csv") && echo yes || echo NO)
t1=$("$BIN" sql "$wh" "$REPS" "$q" | sed -n 's/^ms=//p')
d1=$(duck_time 2 "SELECT g, count(DISTINCT id) FROM '$tmp/ids.parquet' GROUP BY g")
rss=$( { /usr/bin/time -f 'rss_kb=%M' "$BIN" sql "$wh" 1 "$q" >/dev/null; } 2>&1 | sed -n 's/^rss_kb=//p')
# count(DISTINCT x) over 10M BIGINTs (about 6.3M distinct), answered through a bitmap by tarn
"$DUCK" "COPY (SELECT (hash(i) % 10000000)::BIGINT AS x FROM range(10000000) t(i)) TO '$tmp/x10m.parquet' (FORMAT parquet)" >/dev/null || exit 1
cd_q="SELECT count(DISTINCT x) FROM read_parquet('$tmp/x10m.parquet')"
cd_same=$([ "$("$BUILD/tarn" --csv -c "$cd_q" | tail -1)" = "$("$DUCK" "$cd_q" --no-header | tail -1)" ] && echo yes || echo NO)
t2=$("$BIN" sql "$wh" "$REPS" "$cd_q" | sed -n 's/^ms=//p')
d2=$(duck_time 2 "$cd_q")
cd_rss=$( { /usr/bin/time -f 'rss_kb=%M' "$BUILD/tarn" -c "$cd_q" >/dev/null; } 2>&1 | sed -n 's/^rss_kb=//p')
"$BIN" lib "$tmp/ids.csv" "$REPS" > "$tmp/lib.txt" || exit 1
f() { tarn_field "$1" "$tmp/lib.txt"; }
cat > "$tmp/table.md" <<EOT
1,000,000 bitmap rows in 100 groups ($IDS ids a row, universes of 1k-100k ids), 2 threads,
median of $REPS after a warm-up, DuckDB $(duck_version); results identical: $same.

| measurement | tarn | reference | tarn / reference |
|---|---|---|---|
| \`SELECT g, bitmap(b) FROM bm GROUP BY g\` vs DuckDB \`count(DISTINCT id)\` over the $((IDS))M raw ids | ${t1} ms | ${d1} ms | $(ratio "$t1" "$d1") |
| the same merge in memory: \`tn_bitmap_acc_or_bytes\` (validating, bitmap()'s accumulator) vs CRoaring alone (deserialize + or) | $(f tarn_merge_ms) ms | $(f croaring_merge_ms) ms | $(ratio "$(f tarn_merge_ms)" "$(f croaring_merge_ms)") |
| serialization (Java container choices) vs CRoaring run_optimize + portable_serialize | $(f tarn_serialize_mb_s) MB/s | $(f croaring_serialize_mb_s) MB/s | $(ratio "$(f croaring_serialize_mb_s)" "$(f tarn_serialize_mb_s)") (time ratio) |
| validation of untrusted bytes | $(f tarn_validate_mb_s) MB/s | | |
| peak RSS of the 1M-row merge (whole process) | $((rss / 1024)) MiB | | |
| \`count(DISTINCT x)\` over 10M BIGINTs (~6.3M distinct, Parquet) vs DuckDB's (same answer: $cd_same) | ${t2} ms | ${d2} ms | $(ratio "$t2" "$d2") |
| peak RSS of that count(DISTINCT) (whole tarn process) | $((cd_rss / 1024)) MiB | | |
EOT
cat "$tmp/table.md"
[ "${BENCH_UPDATE_README:-0}" = 1 ] && readme_section bitmap "$tmp/table.md"
exit 0
