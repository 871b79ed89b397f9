#!/usr/bin/env bash
# tests/interop/otree_properties.sh: properties of OTree tables on generated data, several
# shapes: 2-4 indexed columns of different types (integers, floating point, decimals, dates,
# timestamps, hashed strings), skewed, sorted and NULL-holding inputs, many small appends of
# random sizes, with and without rollup. For each table: a sample at several fractions is
# exactly the rows with hash(indexed columns) < Weight(p) (same count and the same ids), and
# reads at most 1/8 more rows than the sample plus a 16-row page per file touched; every file's
# rows lie within its blocks' weights and counts (recomputed with SQL hash() from the rows);
# after OPTIMIZE ... WHERE fraction <= 0.05 (qbeast's optimize(fraction): the files it selects,
# rows re-placed in the current cubes) and after a full OPTIMIZE every row is there exactly once
# (count, distinct ids, a fingerprint of every value), samples are still exact, and the files
# still match their blocks.
# The data is pseudo-random from OTREE_PROP_SEED (default: a fresh one, printed; set it to
# replay a failure). Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BIN=$TN_REPO/$BUILD/tarn
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected [$2] got [$3]"; fi; }
require_oracle
SEED=${OTREE_PROP_SEED:-$(( $(date +%s) % 100000 ))}
echo "# OTREE_PROP_SEED=$SEED"
work=$(mktemp -d /tmp/otree-prop.XXXXXX)
trap 'tn_cleanup "$work/wh/pa" "$work/wh/pb" "$work/wh/pc"; rm -rf "$work"' EXIT
cd "$work"
tn() { "$BIN" -w wh --csv "$@"; }
weight() { node -e "const f=$1/100; let x=Math.trunc(f*4294967295-2147483648); if(x>2147483647)x=2147483647; console.log(x)"; }
stat() { sed -E "s/.*\"$1\":([0-9]+).*/\1/" "$2"; }

# every live file's rows within its blocks' weight bounds, counts equal (hash expression $3)
blocks_ok() { # table-dir hash-expr
    node - "$BIN" "$1" "$2" <<'JS'
const fs = require('fs'), path = require('path'), { execFileSync } = require('child_process');
const [bin, dir, h] = process.argv.slice(2);
const live = new Map();
for (const f of fs.readdirSync(path.join(dir, '_delta_log')).filter(f => f.endsWith('.json')).sort())
  for (const line of fs.readFileSync(path.join(dir, '_delta_log', f), 'utf8').split('\n').filter(Boolean)) {
    const a = JSON.parse(line);
    if (a.add) live.set(a.add.path, a.add); if (a.remove) live.delete(a.remove.path);
  }
let bad = 0;
const q = [...live.keys()].map(p => `SELECT '${p}', count(*), min(${h}), max(${h}) FROM read_parquet('${path.join(dir, p)}')`);
const rows = [];
for (let i = 0; i < q.length; i += 40)   /* 40 files a statement */
  rows.push(...execFileSync(bin, ['--csv', '-c', q.slice(i, i + 40).join(' UNION ALL ')]).toString().trim().split('\n').slice(1));
for (const r of rows) {
  const [p, n, mn, mx] = r.split(',');
  const blocks = JSON.parse(live.get(p).tags.blocks);
  const lo = Math.min(...blocks.map(b => b.minWeight)), hi = Math.max(...blocks.map(b => b.maxWeight));
  const cnt = blocks.reduce((s, b) => s + b.elementCount, 0);
  if (Number(n) !== cnt || Number(mn) < lo || Number(mx) > hi) { bad++; console.log(`file ${p}: rows ${n} ${mn}..${mx}, blocks ${cnt} ${lo}..${hi}`); }
  for (const b of blocks) if (!(b.minWeight <= b.maxWeight) || !/^[A-Za-z0-9+/]*$/.test(b.cubeId)) bad++;
}
console.log(`files ${rows.length} bad ${bad}`);
JS
}

# DESCRIBE INDEX against the metrics recomputed from the log (per revision with files: elements,
# distinct cubes, blocks, files, bytes, height = deepest cube + 1)
metrics_ok() { # label table dims
    local want got
    want=$(node - "wh/$2" "$3" <<'JS'
const fs = require('fs'), path = require('path');
const [dir, dims] = process.argv.slice(2);
const live = new Map();
for (const f of fs.readdirSync(path.join(dir, '_delta_log')).filter(f => f.endsWith('.json')).sort())
  for (const line of fs.readFileSync(path.join(dir, '_delta_log', f), 'utf8').split('\n').filter(Boolean)) {
    const a = JSON.parse(line);
    if (a.add) live.set(a.add.path, a.add); if (a.remove) live.delete(a.remove.path);
  }
const rev = new Map(), cpl = Math.ceil(dims / 6);
for (const add of live.values()) {
  const r = rev.get(add.tags.revision) || { e: 0, cubes: new Set(), b: 0, f: 0, bytes: 0, h: 0 };
  for (const b of JSON.parse(add.tags.blocks)) { r.e += b.elementCount; r.cubes.add(b.cubeId); r.b++; r.h = Math.max(r.h, b.cubeId.length / cpl + 1); }
  r.f++; r.bytes += add.size; rev.set(add.tags.revision, r);
}
for (const [id, r] of [...rev].sort((x, y) => x[0] - y[0])) console.log([id, r.e, r.cubes.size, r.b, r.f, r.bytes, r.h].join(','));
JS
)
    got=$(tn -c "DESCRIBE INDEX $2" 2>&1 | tail -n +2 |
          python3 -c 'import sys, csv
for r in csv.reader(sys.stdin):
    if int(r[7]) > 0: print(",".join([r[0], r[4], r[5], r[6], r[7], r[8], r[10]]))')
    check "$1: DESCRIBE INDEX = metrics recomputed from the log" "$want" "$got"
}

# samples: exact row set, rows read bounded
samples_ok() { # label table hash-expr
    local p w want got rr fr lim
    for p in 0.7 4 25; do
        w=$(weight "$p")
        want=$(tn -c "SELECT count(*), coalesce(sum(id), 0) FROM $2 WHERE $3 < $w" | tail -1)
        got=$(tn --stats -c "SELECT count(*), coalesce(sum(id), 0) FROM $2 TABLESAMPLE ($p PERCENT)" 2>st.txt | tail -1)
        check "$1: sample $p% = rows with hash < Weight (count, sum of ids)" "$want" "$got"
        rr=$(stat rows_scanned st.txt); fr=$(stat files_scanned st.txt)
        lim=$(( (${got%,*} * 9 + 7) / 8 + 16 * fr ))
        if [ "$rr" -le "$lim" ]; then ok "$1: sample $p% reads $rr rows (<= $lim)"; else bad "$1: sample $p% reads $rr rows (> $lim)"; fi
    done
}

# one table: generate the batches, append them, check, OPTIMIZE, check again
run_case() { # name columns-ddl columnsToIndex cubeSize hint hash-expr nbatches select-expr order-by
    local name=$1 ddl=$2 cols=$3 cs=$4 hint=$5 h=$6 nb=$7 sel=$8 ord=$9
    # batch b has 30 + hash(b, seed) % 1500 rows; ids unique across batches
    "$DUCK" "COPY (SELECT * FROM (SELECT b, (b * 100000 + i)::BIGINT AS id, $sel
              FROM range($nb) t(b), range(30 + (hash(b, $SEED) % 1500)::INT) r(i)) ORDER BY b, $ord)
              TO '$work/$name' (FORMAT parquet, PARTITION_BY (b))" >/dev/null || { bad "$name: generating data"; return; }
    {
        echo "CREATE TABLE $name (id BIGINT, $ddl) USING qbeast OPTIONS ('columnsToIndex' = '$cols', 'cubeSize' = '$cs');"
        for b in $(seq 0 $((nb - 1))); do
            echo "INSERT INTO $name $hint SELECT * FROM read_parquet('$(ls "$work/$name/b=$b/"*.parquet)');"
        done
    } >"$name.sql"
    tn -f "$name.sql" >/dev/null 2>"$name.err" || { bad "$name: appends: $(head -c 300 "$name.err")"; return; }
    local total
    total=$("$DUCK" "SELECT count(*) FROM read_parquet('$work/$name/*/*.parquet')" | tail -1)
    check "$name: $nb appends hold every row" "$total" "$(tn -c "SELECT count(*) FROM $name" | tail -1)"
    samples_ok "$name" "$name" "$h"
    metrics_ok "$name" "$name" "$(echo "$cols" | tr ',' '\n' | wc -l)"
    local r
    r=$(blocks_ok "wh/$name" "$h")
    case "$r" in *"bad 0") ok "$name: files within their blocks' weights and counts (${r% bad*})";; *) bad "$name: blocks: $r";; esac
    # every row exactly once across OPTIMIZE: count, distinct ids, a fingerprint of every value
    local fp="count(*), count(DISTINCT id), sum(id), sum(hash(id, $cols) % 1000003)"
    local before
    before=$(tn -c "SELECT $fp FROM $name" 2>&1 | tail -1)
    case "$before" in "$total,$total,"*) ;; *) bad "$name: fingerprint query: $before"; return;; esac
    # qbeast's optimize(fraction): the latest revision's files with a block of minWeight <= Weight(f)
    local want_rm got_rm
    want_rm=$(node - "wh/$name" <<'JS'
const fs = require('fs'), path = require('path');
const dir = process.argv[2], live = new Map();
for (const f of fs.readdirSync(path.join(dir, '_delta_log')).filter(f => f.endsWith('.json')).sort())
  for (const line of fs.readFileSync(path.join(dir, '_delta_log', f), 'utf8').split('\n').filter(Boolean)) {
    const a = JSON.parse(line);
    if (a.add) live.set(a.add.path, a.add); if (a.remove) live.delete(a.remove.path);
  }
const adds = [...live.values()], last = Math.max(...adds.map(a => Number(a.tags.revision)));
console.log(adds.filter(a => Number(a.tags.revision) === last &&
  JSON.parse(a.tags.blocks).some(b => (b.minWeight + 2147483648) / 4294967295 <= 0.05)).length);
JS
)
    got_rm=$(tn -c "OPTIMIZE $name WHERE fraction <= 0.05" 2>"$name.opt" | tail -1)
    check "$name: OPTIMIZE WHERE fraction <= 0.05 rewrites the latest revision's files with a block of minWeight <= 5%" \
        "$want_rm" "${got_rm%%,*}"
    check "$name: OPTIMIZE WHERE fraction keeps every row exactly once" "$before" "$(tn -c "SELECT $fp FROM $name" | tail -1)"
    samples_ok "$name after OPTIMIZE WHERE fraction" "$name" "$h"
    r=$(blocks_ok "wh/$name" "$h")
    case "$r" in *"bad 0") ok "$name after OPTIMIZE WHERE fraction: files within their blocks (${r% bad*})";; *) bad "$name after OPTIMIZE WHERE fraction: blocks: $r";; esac
    tn -c "OPTIMIZE $name" >/dev/null 2>"$name.opt" || { bad "$name: OPTIMIZE: $(head -c 300 "$name.opt")"; return; }
    check "$name: OPTIMIZE keeps every row exactly once" "$before" "$(tn -c "SELECT $fp FROM $name" | tail -1)"
    samples_ok "$name after OPTIMIZE" "$name" "$h"
    metrics_ok "$name after OPTIMIZE" "$name" "$(echo "$cols" | tr ',' '\n' | wc -l)"
    r=$(blocks_ok "wh/$name" "$h")
    case "$r" in *"bad 0") ok "$name after OPTIMIZE: files within their blocks (${r% bad*})";; *) bad "$name after OPTIMIZE: blocks: $r";; esac
}

# 3 columns (INT sorted ascending, DOUBLE, DATE), small cubes, default rollup
run_case pa "a INT, x DOUBLE, d DATE" "a,x,d" 300 "" "hash(a, x, d)" 24 \
    "(hash(i, b, $SEED) % 100000)::INT AS a, (hash(i, b, $SEED + 1) % 1000000) / 997.0 AS x,
     DATE '2020-01-01' + (hash(i, b, $SEED + 2) % 2000)::INT AS d" "a"
# 2 columns (BIGINT skewed towards 0 with NULLs, a hashed string), rollup 200 per write
run_case pb "k BIGINT, s VARCHAR" "k,s" 1000 "/*+ OPTIONS('rollupSize' = '200') */" "hash(k, s)" 20 \
    "CASE WHEN hash(i, b, $SEED) % 17 = 0 THEN NULL ELSE (pow((hash(i, b, $SEED + 3) % 100003) / 100003.0, 4) * 1e12)::BIGINT END AS k,
     'v' || (hash(i, b, $SEED + 4) % 5000)::VARCHAR AS s" "id DESC"
# 4 columns (DECIMAL, TIMESTAMP with NULLs, SMALLINT, DOUBLE), no rollup
run_case pc "m DECIMAL(10, 2), ts TIMESTAMP, n SMALLINT, y DOUBLE" "m,ts,n,y" 500 "/*+ OPTIONS('rollupSize' = '0') */" "hash(m, ts, n, y)" 14 \
    "((hash(i, b, $SEED + 5) % 10000000) / 100.0)::DECIMAL(10, 2) AS m,
     CASE WHEN hash(i, b, $SEED + 6) % 11 = 0 THEN NULL ELSE TIMESTAMP '2021-01-01' + to_microseconds((hash(i, b, $SEED + 7) % 100000000000)::BIGINT) END AS ts,
     (hash(i, b, $SEED + 8) % 30000)::SMALLINT AS n, (hash(i, b, $SEED + 9) % 1000) / 7.0 AS y" "n"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
