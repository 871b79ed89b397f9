#!/usr/bin/env bash
# tests/interop/otree_crash.sh: OTree tables under process crashes and concurrent writers. (1)
# SIGKILL at several moments of a large indexed INSERT and of an OPTIMIZE leaves the table at a
# committed version (the rows before, or before + the whole write; OPTIMIZE: the same answers),
# readable, its samples still the rows with hash < Weight, and DuckDB reads the live files to the
# same rows. (2) Concurrent appenders (several processes) lose nothing: every row of every
# successful write is there. (3) Appends racing an OPTIMIZE lose nothing; OPTIMIZE either commits
# or fails with a conflict. (4) Two writers that each need a new revision (data outside the
# ranges): Delta's rules make one fail with a conflict naming the metadata (never two revisions
# under one number); the table holds exactly the successful writes. After each part every live
# file's rows lie within its blocks' weight bounds (recomputed with SQL hash()). Ends with
# "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BIN=$TN_REPO/$BUILD/tarn
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected [$2] got [$3]"; fi; }
require_oracle
work=$(mktemp -d /tmp/otree-crash.XXXXXX)
trap 'tn_cleanup "$work/wh/t" "$work/wh/c" "$work/wh/r"; rm -rf "$work"' EXIT
cd "$work"
tn() { "$BIN" -w wh --csv "$@"; }
weight() { node -e "const f=$1/100; let x=Math.trunc(f*4294967295-2147483648); if(x>2147483647)x=2147483647; console.log(x)"; }
count() { tn -c "SELECT count(*) FROM $1" | tail -1; }
gen() { # file rows seed [col_1 scale]
    "$DUCK" "COPY (SELECT (hash(i * 3 + $3) % ${4:-1000000})::INT AS col_1, (hash(i * 5 + $3) % 1000003) / 1000.003 AS col_2,
             'p' || i AS payload FROM range($2) r(i)) TO '$work/$1' (FORMAT parquet)" >/dev/null
}
# every live file: rows within the blocks' weight bounds, counts equal (independent of the writer)
blocks_ok() {
    node - "$BIN" "$work/wh/$1" <<'JS'
const fs = require('fs'), path = require('path'), { execFileSync } = require('child_process');
const [bin, dir] = process.argv.slice(2);
const live = new Map();
for (const f of fs.readdirSync(path.join(dir, '_delta_log')).filter(f => f.endsWith('.json')).sort())
  for (const line of fs.readFileSync(path.join(dir, '_delta_log', f), 'utf8').split('\n').filter(Boolean)) {
    const a = JSON.parse(line);
    if (a.add) live.set(a.add.path, a.add); if (a.remove) live.delete(a.remove.path);
  }
let bad = 0;
for (const [p, add] of live) {
  const blocks = JSON.parse(add.tags.blocks);
  const lo = Math.min(...blocks.map(b => b.minWeight)), hi = Math.max(...blocks.map(b => b.maxWeight));
  const cnt = blocks.reduce((s, b) => s + b.elementCount, 0);
  const out = execFileSync(bin, ['--csv', '-c', `SELECT count(*), min(hash(col_1, col_2)), max(hash(col_1, col_2)) FROM read_parquet('${path.join(dir, p)}')`]).toString().trim().split('\n')[1].split(',').map(Number);
  if (out[0] !== cnt || out[1] !== lo || out[2] > hi) bad++;
}
console.log(`bad ${bad} of ${live.size}`);
JS
}
sample_exact() { # table pct
    local w; w=$(weight "$2")
    check "$1: sample $2% = rows with hash < Weight" "$(tn -c "SELECT count(*) FROM $1 WHERE hash(col_1, col_2) < $w" | tail -1)" \
        "$(tn -c "SELECT count(*) FROM $1 TABLESAMPLE ($2 PERCENT)" | tail -1)"
}
duck_same() { # table
    local a d
    a=$(tn -c "SELECT count(*), sum(col_1) FROM $1" | tail -1)
    d=$(node -e "
const fs=require('fs');const dir='wh/$1/_delta_log';const live=new Set();
for(const f of fs.readdirSync(dir).filter(f=>f.endsWith('.json')).sort())for(const l of fs.readFileSync(dir+'/'+f,'utf8').split('\n').filter(Boolean)){const a=JSON.parse(l);if(a.add)live.add(a.add.path);if(a.remove)live.delete(a.remove.path)}
console.log([...live].map(p=>\"'wh/$1/\"+p+\"'\").join(','))")
    [ -n "$d" ] && d=$("$DUCK" "SELECT count(*), sum(col_1) FROM read_parquet([$d])" | tail -1) || d="0,"
    check "$1: DuckDB reads the live files to the same rows" "$a" "$d"
}

# (1) SIGKILL during a large indexed INSERT and during OPTIMIZE
gen base.parquet 20000 1
gen big.parquet 600000 2
gen mid.parquet 300000 4
tn -c "CREATE TABLE t (col_1 INT, col_2 DOUBLE, payload STRING) USING qbeast OPTIONS ('columnsToIndex' = 'col_1,col_2', 'cubeSize' = '20000')" \
   -c "INSERT INTO t SELECT * FROM read_parquet('base.parquet')" >/dev/null
committed=0
for delay in 0.2 0.8 2; do
    before=$(count t)
    "$BIN" -w wh -c "INSERT INTO t /*+ OPTIONS('rollupSize' = '5000') */ SELECT * FROM read_parquet('big.parquet')" >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    after=$(count t)
    if [ "$after" = "$before" ] || [ "$after" = "$((before + 600000))" ]; then
        ok "INSERT killed after ${delay}s: table at a committed version ($before -> $after rows)"
    else
        bad "INSERT killed after ${delay}s: $before -> $after rows"
    fi
    [ "$after" != "$before" ] && committed=$((committed + 1))
done
echo "  ($committed of 3 killed INSERTs had committed before the kill)"
sample_exact t 3
tn -c "INSERT INTO t SELECT * FROM read_parquet('mid.parquet')" >/dev/null
before_ans=$(tn -c "SELECT count(*), sum(col_1), round(sum(col_2), 3) FROM t" | tail -1)
for delay in 0.1 0.4 1.2; do
    v0=$(ls wh/t/_delta_log/*.json | wc -l)
    "$BIN" -w wh -c "OPTIMIZE t WITH ('rollupSize' = '5000')" >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    v1=$(ls wh/t/_delta_log/*.json | wc -l)
    check "OPTIMIZE killed after ${delay}s (log $v0 -> $v1 versions): same answers" "$before_ans" \
        "$(tn -c "SELECT count(*), sum(col_1), round(sum(col_2), 3) FROM t" | tail -1)"
done
sample_exact t 1
duck_same t
check "after the kills: blocks hold their rows" "bad 0" "$(blocks_ok t | cut -d' ' -f1-2)"

# (2) concurrent appenders: the first write covers the ranges, so the others are blind appends
gen c0.parquet 20000 3
for w in 1 2 3 4; do for k in 1 2 3; do gen "c$w$k.parquet" 5000 "$((w * 10 + k))"; done; done
tn -c "CREATE TABLE c (col_1 INT, col_2 DOUBLE, payload STRING) USING qbeast OPTIONS ('columnsToIndex' = 'col_1,col_2', 'cubeSize' = '4000')" \
   -c "INSERT INTO c SELECT * FROM read_parquet('c0.parquet')" -c "INSERT INTO c VALUES (0, 0, 'lo'), (999999, 1000, 'hi')" >/dev/null
pids=()
for w in 1 2 3 4; do
    ( for k in 1 2 3; do "$BIN" -w wh -c "INSERT INTO c /*+ OPTIONS('rollupSize' = '1000') */ SELECT * FROM read_parquet('c$w$k.parquet')" >/dev/null 2>"err$w$k" || echo "writer $w batch $k: $(cat "err$w$k")"; done ) >"writer$w.out" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
check "4 concurrent appenders x 3 batches: every write succeeded" "" "$(cat writer*.out)"
check "4 concurrent appenders: no row lost" "$((20002 + 4 * 3 * 5000))" "$(count c)"
sample_exact c 7
check "concurrent appends: blocks hold their rows" "bad 0" "$(blocks_ok c | cut -d' ' -f1-2)"

# (3) appends racing an OPTIMIZE
for k in 1 2 3 4 5 6; do gen "o$k.parquet" 4000 "$((100 + k))"; done
before=$(count c)
( for k in 1 2 3 4 5 6; do "$BIN" -w wh -c "INSERT INTO c SELECT * FROM read_parquet('o$k.parquet')" >/dev/null 2>"oerr$k" || echo "append $k: $(cat "oerr$k")"; done ) >appends.out &
ap=$!
"$BIN" -w wh -c "OPTIMIZE c WITH ('rollupSize' = '1000')" >/dev/null 2>opt.err
orc=$?
wait "$ap"
check "appends racing OPTIMIZE: every append succeeded" "" "$(cat appends.out)"
if [ "$orc" = 0 ]; then ok "OPTIMIZE racing appends committed"; else
    case "$(cat opt.err)" in *onflict*) ok "OPTIMIZE racing appends failed with a conflict: $(head -c 160 opt.err)";; *) bad "OPTIMIZE: $(cat opt.err)";; esac
fi
check "appends racing OPTIMIZE: no row lost" "$((before + 6 * 4000))" "$(count c)"
duck_same c
sample_exact c 2
check "after OPTIMIZE race: blocks hold their rows" "bad 0" "$(blocks_ok c | cut -d' ' -f1-2)"

# (4) two writers that both need a new revision
tn -c "CREATE TABLE r (col_1 INT, col_2 DOUBLE, payload STRING) USING qbeast OPTIONS ('columnsToIndex' = 'col_1,col_2', 'cubeSize' = '3000')" \
   -c "INSERT INTO r SELECT * FROM read_parquet('c11.parquet')" >/dev/null
gen wide1.parquet 30000 7 5000000
gen wide2.parquet 30000 8 9000000
rev_before=$(node -e "const fs=require('fs');let c;for(const f of fs.readdirSync('wh/r/_delta_log').filter(f=>f.endsWith('.json')).sort())for(const l of fs.readFileSync('wh/r/_delta_log/'+f,'utf8').split('\n').filter(Boolean)){const a=JSON.parse(l);if(a.metaData)c=a.metaData.configuration}console.log(c['qbeast.lastRevisionID'])")
"$BIN" -w wh -c "INSERT INTO r SELECT * FROM read_parquet('wide1.parquet')" >/dev/null 2>w1.err & p1=$!
"$BIN" -w wh -c "INSERT INTO r SELECT * FROM read_parquet('wide2.parquet')" >/dev/null 2>w2.err & p2=$!
wait "$p1"; r1=$?; wait "$p2"; r2=$?
n=$(count r)
want=5000
[ "$r1" = 0 ] && want=$((want + 30000))
[ "$r2" = 0 ] && want=$((want + 30000))
check "new-revision race: the table holds exactly the successful writes (rc $r1 $r2)" "$want" "$n"
for k in 1 2; do
    e=$(cat "w$k.err")
    if [ -n "$e" ]; then case "$e" in *onflict*metadata*|*metadata*onflict*) ok "writer $k failed with a metadata conflict";; *) bad "writer $k: $e";; esac; fi
done
if [ "$r1" != 0 ] || [ "$r2" != 0 ]; then ok "not both committed a new revision"; else
    revs=$(node -e "const fs=require('fs');let c;for(const f of fs.readdirSync('wh/r/_delta_log').filter(f=>f.endsWith('.json')).sort())for(const l of fs.readFileSync('wh/r/_delta_log/'+f,'utf8').split('\n').filter(Boolean)){const a=JSON.parse(l);if(a.metaData)c=a.metaData.configuration}console.log(c['qbeast.lastRevisionID'])")
    check "both committed: one after the other, two new revisions" "$((rev_before + 2))" "$revs"
fi
sample_exact r 10
check "revision race: blocks hold their rows" "bad 0" "$(blocks_ok r | cut -d' ' -f1-2)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
