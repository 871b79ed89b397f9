#!/usr/bin/env bash
# bench/pk_bench.sh: primary-key tables (issue 8's benchmark) against DuckDB, same machine, same
# run. Needs $BUILD/libtarn.a and $BUILD/tarn (make). Environment: BUILD, BENCH_REPS (default 5),
# BENCH_PK_ROWS (default 1,000,000; the issue's scale is 10,000,000), BENCH_UPDATE_README=1 to
# write the table into bench/README.md (section "pk"). Helpers: bench/common.sh.
#  - data: ROWS rows (k BIGINT, p VARCHAR with 4 values, v DOUBLE, s VARCHAR) written by DuckDB
#    to Parquet; tarn: a primary-key table PRIMARY KEY (p, k) PARTITIONED BY (p), 'bucket' = '16';
#    DuckDB: a table with PRIMARY KEY (p, k) in a database file.
#  - upsert: batches of 1k / 10k / 100k rows, half of them updates of existing keys, half new
#    keys, each batch distinct (BENCH_REPS + 1 per size, the first a warm-up): tarn `INSERT INTO
#    pk SELECT * FROM read_parquet(batch)` (in-process, bench/pk_bench.c) vs DuckDB `INSERT OR
#    REPLACE INTO t SELECT * FROM read_parquet(batch)` (the oracle's --time). Also the files and
#    bytes each tarn batch wrote (its commit's adds). The same batches go, in the same tarn run,
#    into a second table pkdv with 'delta.enableDeletionVectors' = 'true' (deletion-vector
#    upserts: new rows in a new file per bucket, replaced rows marked in a DV) against the
#    copy-on-write table pk (every touched bucket rewritten).
#  - point lookup by the whole key, tarn vs DuckDB (its primary-key index), and the files tarn
#    read for it (--stats).
#  - rescale: a table rs with BENCH_PK_RESCALE_ROWS rows (default ROWS; the issue's: 10,000,000)
#    in one partition: BENCH_REPS + 1 rounds (the first a warm-up), each `CREATE TABLE AS` of the
#    partition's rows into a plain table, then `ALTER TABLE rs SET ('bucket' = ...)` (16 -> 32,
#    32 -> 16, ...) and `INSERT OVERWRITE rs PARTITION (p = 'r0')` from the table: both in the
#    same rounds, so the ratio is of the same machine load; median of each.
#  BENCH_PK_PARTS (default "upsert rescale"): "rescale" alone skips the upserts, lookups and
#  DuckDB (with BENCH_UPDATE_README=1 only the rescale rows of the README table change).
set -u
cd "$(dirname "$0")/.."
. bench/common.sh
ROWS=${BENCH_PK_ROWS:-1000000}
RS_ROWS=${BENCH_PK_RESCALE_ROWS:-$ROWS}
PARTS=${BENCH_PK_PARTS:-upsert rescale}
has_part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
for f in "$BUILD/libtarn.a" "$BUILD/tarn"; do
    [ -f "$f" ] || { echo "pk_bench: $f missing (run make)" >&2; exit 1; }
done
PB=$BUILD/bench/pk_bench
bench_cc "$PB" bench/pk_bench.c || { echo "pk_bench: build failed" >&2; exit 1; }
"$DUCK" "SELECT 1" >/dev/null || { echo "pk_bench: the DuckDB oracle does not run" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-pkbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
W=$tmp/wh DB=$tmp/duck.db
load_before=$(load1)
SIZES="1000 10000 100000"

# --- data (DuckDB writes every input file)
gen="COPY (SELECT i AS k, 'p' || (i % 4) AS p, i * 0.5 AS v, 'name' || i AS s FROM range($ROWS) r(i)) TO '$tmp/base.parquet' (FORMAT parquet);"
gen="$gen COPY (SELECT i AS k, 'r0' AS p, i * 0.5 AS v, 'name' || i AS s FROM range($RS_ROWS) r(i)) TO '$tmp/rs.parquet' (FORMAT parquet);"
si=0
for n in $SIZES; do
    for r in $(seq 0 "$REPS"); do
        half=$((n / 2))
        gen="$gen COPY (SELECT k, 'p' || (k % 4) AS p, k * 0.25 + $r AS v, 'upd' || k AS s FROM (
            SELECT (($r * $n + i) * 7919) % $ROWS AS k FROM range($half) r(i)
            UNION ALL SELECT $ROWS + $si * 100000000 + $r * $n + i FROM range($((n - half))) r(i))) TO '$tmp/b_${n}_$r.parquet' (FORMAT parquet);"
    done
    si=$((si + 1))
done
"$DUCK" "$gen SELECT 1" >/dev/null || { echo "pk_bench: data generation failed" >&2; exit 1; }

# --- tarn
{
    if has_part upsert; then
        printf 'create\tCREATE TABLE pk (k BIGINT, p VARCHAR, v DOUBLE, s VARCHAR, PRIMARY KEY (p, k) NOT ENFORCED) PARTITIONED BY (p) WITH (%s)\n' "'bucket' = '16'"
        printf 'load\tINSERT INTO pk SELECT * FROM read_parquet(%s)\n' "'$tmp/base.parquet'"
        printf 'createdv\tCREATE TABLE pkdv (k BIGINT, p VARCHAR, v DOUBLE, s VARCHAR, PRIMARY KEY (p, k) NOT ENFORCED) PARTITIONED BY (p) WITH (%s)\n' "'bucket' = '16', 'delta.enableDeletionVectors' = 'true'"
        printf 'loaddv\tINSERT INTO pkdv SELECT * FROM read_parquet(%s)\n' "'$tmp/base.parquet'"
        for n in $SIZES; do
            for r in $(seq 0 "$REPS"); do
                printf 'up_%s_%s\tINSERT INTO pk SELECT * FROM read_parquet(%s)\n' "$n" "$r" "'$tmp/b_${n}_$r.parquet'"
                printf 'dv_%s_%s\tINSERT INTO pkdv SELECT * FROM read_parquet(%s)\n' "$n" "$r" "'$tmp/b_${n}_$r.parquet'"
            done
        done
        for r in $(seq 0 "$REPS"); do
            printf 'lookdv_%s\tSELECT v FROM pkdv WHERE p = %s AND k = %s\n' "$r" "'p$(( (r * 7 + 1) % 4 ))'" "$(( (r * 7 + 1) * 9973 % ROWS ))"
        done
        for r in $(seq 0 "$REPS"); do
            printf 'lookup_%s\tSELECT v FROM pk WHERE p = %s AND k = %s\n' "$r" "'p$(( (r * 7 + 1) % 4 ))'" "$(( (r * 7 + 1) * 9973 % ROWS ))"
        done
    fi
    if has_part rescale; then
        printf 'rs_create\tCREATE TABLE rs (k BIGINT, p VARCHAR, v DOUBLE, s VARCHAR, PRIMARY KEY (p, k) NOT ENFORCED) PARTITIONED BY (p) WITH (%s)\n' "'bucket' = '16'"
        printf 'rs_load\tINSERT INTO rs SELECT * FROM read_parquet(%s)\n' "'$tmp/rs.parquet'"
        for r in $(seq 0 "$REPS"); do
            printf 'ctas_%s\tCREATE TABLE rs_copy AS SELECT * FROM rs WHERE p = %s\n' "$r" "'r0'"
            printf 'drop_%s\tDROP TABLE rs_copy\n' "$r"
            printf 'alter_%s\tALTER TABLE rs SET (%s)\n' "$r" "'bucket' = '$(( r % 2 ? 16 : 32 ))'"
            printf 'rescale_%s\tINSERT OVERWRITE rs PARTITION (p = %s) SELECT k, v, s FROM rs WHERE p = %s\n' "$r" "'r0'" "'r0'"
        done
    fi
} >"$tmp/tarn.tsv"
"$PB" "$W" "$tmp/tarn.tsv" >"$tmp/tarn.out" || { echo "pk_bench: tarn failed" >&2; exit 1; }
tms() { awk -v n="$1" '$1 == n {print $2}' "$tmp/tarn.out"; }
tmed() { for r in $(seq 1 "$REPS"); do tms "${1}_$r"; done | med; }
tcpu() { for r in $(seq 1 "$REPS"); do awk -v n="${1}_$r" '$1 == n {print $3}' "$tmp/tarn.out"; done | med; }
rescale_rows() {
    local rs ct rc cc
    rs=$(tmed rescale) ct=$(tmed ctas) rc=$(tcpu rescale) cc=$(tcpu ctas)
    echo "| rescale: INSERT OVERWRITE of a $RS_ROWS-row partition 16 <-> 32 buckets, against CREATE TABLE AS of its rows (same rounds, median of $REPS) | $rs | (tarn CTAS) $ct | $(ratio "$rs" "$ct") | |"
    echo "| rescale, CPU time (user + system, all threads) against CTAS's | $rc | (tarn CTAS) $cc | $(ratio "$rc" "$cc") | |"
    echo "| initial load of the rescaled table ($RS_ROWS rows, 16 buckets) | $(tms rs_load) | | | |"
}
if has_part rescale; then
    # the rescaled table still holds every row once (and in the bucket its own count gives)
    rs_count=$("$BUILD/tarn" -w "$W" --csv -c "SELECT count(*), count(DISTINCT k) FROM rs" | tail -n 1)
    [ "$rs_count" = "$RS_ROWS,$RS_ROWS" ] || { echo "pk_bench: the rescaled table holds '$rs_count' rows,keys, not $RS_ROWS" >&2; exit 1; }
fi
if ! has_part upsert; then
    rescale_rows | tee "$tmp/rescale.md"
    [ "${BENCH_UPDATE_README:-0}" = 1 ] || exit 0
    note="Rescale rows: $(date -u +%Y-%m-%d), BENCH_PK_PARTS=rescale run, load average $load_before before / $(load1) after."
    python3 - "$tmp/rescale.md" bench/README.md "$note" <<'EOF'
import sys
rows, path, note = open(sys.argv[1]).read().strip().splitlines(), sys.argv[2], sys.argv[3]
s = open(path).read()
a, b = s.index('<!-- pk:start -->'), s.index('<!-- pk:end -->')
sec = [l for l in s[a:b].rstrip('\n').split('\n')
       if not l.startswith(('| rescale', '| initial load of the rescaled', 'Rescale rows:'))]
while sec and not sec[-1].strip(): sec.pop()
last = max(i for i, l in enumerate(sec) if l.startswith('|'))
sec[last + 1:last + 1] = rows
sec += ['', note]
open(path, 'w').write(s[:a] + '\n'.join(sec) + '\n' + s[b:])
EOF
    exit 0
fi

# the files a point lookup reads (bucket pruning)
key=$(( (1 * 7 + 1) * 9973 % ROWS ))
"$BUILD/tarn" -w "$W" --stats -c "SELECT v FROM pk WHERE p = 'p1' AND k = $key" >/dev/null 2>"$tmp/stats" || true
lookup_files=$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])['files_scanned'])" "$tmp/stats" 2>/dev/null || echo '?')
"$BUILD/tarn" -w "$W" --stats -c "SELECT v FROM pkdv WHERE p = 'p1' AND k = $key" >/dev/null 2>"$tmp/stats" || true
lookdv_files=$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])['files_scanned'])" "$tmp/stats" 2>/dev/null || echo '?')
live_files=$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])['table_files'])" "$tmp/stats" 2>/dev/null || echo '?')

# files and bytes of each tarn upsert commit (versions 2.. in the order of tarn.tsv): data files
# written (a file re-added with a new deletion vector is not one), and the DVs' bytes
for tb in pk pkdv; do
python3 - "$W/$tb/_delta_log" "$REPS" "$SIZES" >"$tmp/files_$tb.out" <<'EOF'
import json, os, sys
log, reps, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
v = 2
for n in sizes:
    files = []; size = []; dvs = []
    for r in range(reps + 1):
        adds = [json.loads(l)["add"] for l in open(os.path.join(log, "%020d.json" % v)) if l.startswith('{"add"')]
        new = [a for a in adds if not a.get("deletionVector")]
        if r > 0:
            files.append(len(new)); size.append(sum(a["size"] for a in new))
            dvs.append(sum(a["deletionVector"]["sizeInBytes"] + 8 for a in adds if a.get("deletionVector")))
        v += 1
    files.sort(); size.sort(); dvs.sort()
    print(n, files[len(files) // 2], size[len(size) // 2], dvs[len(dvs) // 2])
EOF
done

# --- DuckDB
"$DUCK" "CREATE TABLE t (k BIGINT, p VARCHAR, v DOUBLE, s VARCHAR, PRIMARY KEY (p, k)); INSERT INTO t SELECT * FROM read_parquet('$tmp/base.parquet'); SELECT count(*) FROM t" --db "$DB" >/dev/null ||
    { echo "pk_bench: DuckDB load failed" >&2; exit 1; }
dtime() { "$DUCK" "$1" --db "$DB" --threads 2 --time 2>"$tmp/d.err" >/dev/null && sed -n 's/^time_ms=//p' "$tmp/d.err"; }
declare -A DU
for n in $SIZES; do
    for r in $(seq 0 "$REPS"); do
        ms=$(dtime "INSERT OR REPLACE INTO t SELECT * FROM read_parquet('$tmp/b_${n}_$r.parquet')") ||
            { echo "pk_bench: DuckDB upsert failed: $(cat "$tmp/d.err")" >&2; exit 1; }
        [ "$r" -gt 0 ] && echo "$ms"
    done | med >"$tmp/du_$n"
    DU[$n]=$(cat "$tmp/du_$n")
done
for r in $(seq 0 "$REPS"); do
    ms=$(dtime "SELECT v FROM t WHERE p = 'p$(( (r * 7 + 1) % 4 ))' AND k = $(( (r * 7 + 1) * 9973 % ROWS ))")
    [ "$r" -gt 0 ] && echo "$ms"
done | med >"$tmp/dl"
DL=$(cat "$tmp/dl")

# checks: the same rows on both sides after every upsert
tsum=$("$BUILD/tarn" -w "$W" --csv -c "SELECT count(*), CAST(round(sum(v), 3) AS VARCHAR) FROM pk WHERE p <> 'p0'" | tail -n 1)
tsumdv=$("$BUILD/tarn" -w "$W" --csv -c "SELECT count(*), CAST(round(sum(v), 3) AS VARCHAR) FROM pkdv WHERE p <> 'p0'" | tail -n 1)
dsum=$("$DUCK" "SELECT count(*), CAST(round(sum(v), 3) AS VARCHAR) FROM t WHERE p <> 'p0'" --db "$DB" | tail -n 1)
check="same rows as DuckDB after the upserts ($tsum)"
[ "$tsum" = "$dsum" ] || check="MISMATCH: tarn $tsum, DuckDB $dsum"
[ "$tsumdv" = "$dsum" ] || check="MISMATCH: tarn (deletion vectors) $tsumdv, DuckDB $dsum"
echo "pk_bench: $check" >&2
load_after=$(load1)

{
    echo "Run: $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), DuckDB $(duck_version), $ROWS rows in 4 partitions x 16 buckets, median of $REPS batches after one warm-up; load average $load_before before / $load_after after (other work shared the cores: treat ratios as rough); check: $check."
    echo
    echo "| benchmark | tarn ms | DuckDB ms | tarn / DuckDB | tarn files / bytes written |"
    echo "|---|---:|---:|---:|---:|"
    for n in $SIZES; do
        read -r _ nf nb _ < <(awk -v n="$n" '$1 == n' "$tmp/files_pk.out")
        t=$(tmed "up_$n")
        echo "| upsert $n rows (50% updates), copy-on-write | $t | ${DU[$n]} | $(ratio "$t" "${DU[$n]}") | $nf / $nb |"
        read -r _ nf nb ndv < <(awk -v n="$n" '$1 == n' "$tmp/files_pkdv.out")
        t2=$(tmed "dv_$n")
        echo "| upsert $n rows (50% updates), deletion vectors | $t2 | ${DU[$n]} | $(ratio "$t2" "${DU[$n]}") | $nf / $nb + DVs $ndv |"
        echo "| deletion vectors against copy-on-write, $n rows | $t2 | (tarn CoW) $t | $(ratio "$t2" "$t") | |"
    done
    t=$(tmed lookup)
    echo "| point lookup by the whole key, copy-on-write table ($lookup_files file(s) read) | $t | $DL | $(ratio "$t" "$DL") | |"
    t=$(tmed lookdv)
    echo "| point lookup by the whole key, deletion-vector table ($lookdv_files file(s) read of its $live_files) | $t | $DL | $(ratio "$t" "$DL") | |"
    echo "| initial load ($ROWS rows into 64 buckets) | $(tms load) | | | |"
    if has_part rescale; then rescale_rows; fi
} >"$tmp/table.md"
cat "$tmp/table.md"
if [ "${BENCH_UPDATE_README:-0}" = 1 ]; then readme_section pk "$tmp/table.md"; fi
