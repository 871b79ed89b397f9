#!/usr/bin/env bash
# tests/interop/otree_write.sh: OTree tables tarn writes. The seed statements of DESIGN.md as
# written (CREATE ... USING qbeast OPTIONS, the hinted INSERT, TABLESAMPLE); samples equal the
# rows with hash(indexed columns) < Weight(p) (SQL hash(), not the layout's code) at many
# fractions and over many appends, with rows read (--stats) close to the fraction; every
# file's rows lie within its blocks' weight bounds and counts (recomputed from the rows); a
# new revision when the data outgrows the ranges; qbeast's metadata shape; DuckDB reads the
# data files to the same rows; bad options fail naming the option; every table written passes
# the Delta-protocol checker (tn_cleanup); OPTIMIZE ... WITH ('rollupSize') changes no answer and
# commits dataChange=false. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BIN=$TN_REPO/$BUILD/tarn
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected [$2] got [$3]"; fi; }
contains() { case "$3" in *"$2"*) ok "$1";; *) bad "$1: [$3] lacks [$2]";; esac; }
require_oracle
work=$(mktemp -d /tmp/otree-write.XXXXXX)
trap 'tn_cleanup "$work/wh/t" "$work/wh/u" "$work/wh/c" "$work/wh/q" "$work/wh/v"; rm -rf "$work"' EXIT
cd "$work"
tn() { "$BIN" -w wh --csv "$@"; }
weight() { node -e "const f=$1/100; let x=Math.trunc(f*4294967295-2147483648); if(x>2147483647)x=2147483647; console.log(x)"; }
# batches (deterministic): skewed col_1, uniform col_2, some NULLs
for b in 1 2 3 4 5 6; do
    "$DUCK" "COPY (SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE (pow((hash(i * 7 + $b) % 1000003) / 1000003.0, 2) * 100000)::INT END AS col_1,
             (hash(i * 13 + $b) % 1000003) / 1000.003 AS col_2, 'p' || i AS payload FROM range(15000) r(i)) TO '$work/batch$b.parquet' (FORMAT parquet)" >/dev/null
done
cp batch1.parquet batch.parquet
# the seed, as DESIGN.md writes it
out=$(tn -c "CREATE TABLE t (col_1 INT, col_2 DOUBLE, payload STRING) USING qbeast
        OPTIONS ('columnsToIndex' = 'col_1,col_2', 'cubeSize' = '15000');" \
   -c "INSERT INTO t /*+ OPTIONS('rollupSize' = '3000') */ SELECT * FROM read_parquet('batch.parquet');" \
   -c "SELECT avg(col_2) FROM t TABLESAMPLE (1 PERCENT);" 2>&1)
check "seed statements run" "0" "$?"
for b in 2 3 4 5 6; do
    tn -c "INSERT INTO t /*+ OPTIONS('rollupSize' = '3000') */ SELECT * FROM read_parquet('batch$b.parquet')" >/dev/null 2>&1 || bad "insert batch $b"
done
check "rows after 6 appends" "90000" "$(tn -c "SELECT count(*) FROM t" | tail -1)"
a=$(tn -c "SELECT count(*), count(col_1), sum(col_1), round(sum(col_2), 3) FROM t" | tail -1)
d=$("$DUCK" "SELECT count(*), count(col_1), sum(col_1), round(sum(col_2), 3) FROM read_parquet('$work/batch*.parquet') WHERE filename NOT LIKE '%batch.parquet'" 2>&1 | tail -1)
check "table holds the batches (DuckDB over the inputs)" "$d" "$a"
d2=$("$DUCK" "SELECT count(*), count(col_1), sum(col_1), round(sum(col_2), 3) FROM read_parquet('$work/wh/t/*.parquet')" 2>&1 | tail -1)
check "DuckDB reads the OTree data files to the same rows" "$a" "$d2"

for p in 0.01 0.1 1 3 10 25 50 90; do
    w=$(weight "$p")
    s=$(tn --stats -c "SELECT count(*) FROM t TABLESAMPLE ($p PERCENT)" 2>stats.txt | tail -1)
    h=$(tn -c "SELECT count(*) FROM t WHERE hash(col_1, col_2) < $w" | tail -1)
    check "sample $p% = rows with hash < Weight" "$h" "$s"
    x=$(tn -c "SELECT count(*) FROM (SELECT * FROM t TABLESAMPLE ($p PERCENT) EXCEPT ALL SELECT * FROM t WHERE hash(col_1, col_2) < $w)" | tail -1)
    y=$(tn -c "SELECT count(*) FROM (SELECT * FROM t WHERE hash(col_1, col_2) < $w EXCEPT ALL SELECT * FROM t TABLESAMPLE ($p PERCENT))" | tail -1)
    check "sample $p% row set both ways" "0 0" "$x $y"
    read_rows=$(sed -E 's/.*"rows_scanned":([0-9]+).*/\1/' stats.txt)
    files_read=$(sed -E 's/.*"files_scanned":([0-9]+).*/\1/' stats.txt)
    # rows read: each file's rows are in weight order with pages of 16 rows, then 1/8 of the rows
    # before them, so a file is read up to the end of the page holding its last sampled row:
    # at most 1/8 more than the sample, plus a first page per file touched
    lim=$(node -e "console.log(Math.ceil($s * 1.125) + 16 * $files_read)")
    if [ "$read_rows" -le "$lim" ]; then ok "sample $p% reads $read_rows rows (<= $lim)"; else bad "sample $p% reads $read_rows rows (> $lim)"; fi
done

# blocks: every file's rows within its blocks' weight bounds, counts equal (rows recomputed by
# SQL hash() over the file, independent of the writer)
node - "$BIN" "$work/wh/t" <<'JS' > blocks.txt
const fs = require('fs'), path = require('path'), { execFileSync } = require('child_process');
const [bin, dir] = process.argv.slice(2);
const live = new Map();
for (const f of fs.readdirSync(path.join(dir, '_delta_log')).filter(f => f.endsWith('.json')).sort())
  for (const line of fs.readFileSync(path.join(dir, '_delta_log', f), 'utf8').split('\n').filter(Boolean)) {
    const a = JSON.parse(line);
    if (a.add) live.set(a.add.path, a.add); if (a.remove) live.delete(a.remove.path);
  }
let bad = 0, n = 0;
for (const [p, add] of live) {
  const blocks = JSON.parse(add.tags.blocks);
  const lo = Math.min(...blocks.map(b => b.minWeight)), hi = Math.max(...blocks.map(b => b.maxWeight));
  const cnt = blocks.reduce((s, b) => s + b.elementCount, 0);
  const out = execFileSync(bin, ['--csv', '-c', `SELECT count(*), min(hash(col_1, col_2)), max(hash(col_1, col_2)) FROM read_parquet('${path.join(dir, p)}')`]).toString().trim().split('\n')[1].split(',').map(Number);
  if (out[0] !== cnt || out[1] !== lo || out[2] > hi) { bad++; console.log(`file ${p}: rows ${out} blocks ${lo}..${hi} count ${cnt}`); }
  for (const b of blocks) if (!(b.minWeight <= b.maxWeight) || typeof b.cubeId !== 'string' || !/^[A-Za-z0-9+/]*$/.test(b.cubeId)) bad++;
  if (add.tags.revision === undefined) bad++;
  n++;
}
console.log(`files ${n} bad ${bad}`);
JS
contains "every file's rows within its blocks' weights and counts" "bad 0" "$(tail -1 blocks.txt)"
# inside a file: rows in weight order, page starts in the footer (tarn.otree.pages); nothing but
# qbeast's tags in the log
big=$(ls -S "$work"/wh/t/*.parquet | head -1)
check "largest file's rows in weight order" "sorted" "$(tn -c "SET threads = 1" -c "SELECT hash(col_1, col_2) FROM read_parquet('$big')" | tail -n +2 |
    node -e "const w = require('fs').readFileSync(0, 'utf8').trim().split('\n').map(Number); console.log(w.length > 100 && w.every((x, i) => i == 0 || w[i - 1] <= x) ? 'sorted' : 'not sorted ' + w.length)")"
check "footer lists the page starts" "true" "$("$DUCK" "SELECT decode(value) LIKE '{\"rows\":%,\"pages\":[[0,%]]}' FROM parquet_kv_metadata('$big') WHERE decode(key) = 'tarn.otree.pages'" 2>&1 | tail -1)"
check "log holds only qbeast's tags" "0" "$(cat "$work"/wh/t/_delta_log/*.json | grep -c 'tarn\.')"
# cube ids recomputed from the rows, independently of the writer, as qbeast-spark computes them:
# coordinates by each file's revision (LinearTransformation: (v - min) * (1 / (max - min)), nulls
# at nullValue), the descent doubling each coordinate (>= 1: upper half, dimension 0 the high
# bit of the Base64 symbol), each row in the first cube of its path (among its file's blocks)
# whose maxWeight >= its weight; every row finds one, and the blocks' elementCounts match
node - "$BIN" "$work/wh/t" <<'JS' > cubes.txt
const fs = require('fs'), path = require('path'), { execFileSync } = require('child_process');
const [bin, dir] = process.argv.slice(2);
const live = new Map(); let conf;
for (const f of fs.readdirSync(path.join(dir, '_delta_log')).filter(f => f.endsWith('.json')).sort())
  for (const line of fs.readFileSync(path.join(dir, '_delta_log', f), 'utf8').split('\n').filter(Boolean)) {
    const a = JSON.parse(line);
    if (a.metaData) conf = a.metaData.configuration;
    if (a.add) live.set(a.add.path, a.add); if (a.remove) live.delete(a.remove.path);
  }
const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const lin = (t, v) => { const x = ((v === null ? t.nullValue : v) - t.minNumber) * (1 / (t.maxNumber - t.minNumber)); return x < 0 ? 0 : x > 1 ? 1 : x; };
let bad = 0, rows = 0, files = 0;
for (const [p, add] of live) {
  const rev = JSON.parse(conf['qbeast.revision.' + add.tags.revision]);
  if (rev.transformations.some(t => !t.className.endsWith('LinearTransformation'))) { bad++; continue; }
  const blocks = new Map(JSON.parse(add.tags.blocks).map(b => [b.cubeId, { ...b, n: 0 }]));
  const maxDepth = Math.max(...[...blocks.keys()].map(k => k.length));
  const out = execFileSync(bin, ['--csv', '-c', `SELECT col_1, col_2, hash(col_1, col_2) FROM read_parquet('${path.join(dir, p)}')`], { maxBuffer: 1 << 28 }).toString().trim().split('\n').slice(1);
  for (const line of out) {
    const [c1, c2, hs] = line.split(','), w = Number(hs);
    const x = [lin(rev.transformations[0], c1 === '' ? null : Number(c1)), lin(rev.transformations[1], c2 === '' ? null : Number(c2))];
    let id = '', found = null;
    for (let d = 0; d <= maxDepth; d++) {
      const b = blocks.get(id);
      if (b && w <= b.maxWeight) { found = b; break; }
      let sym = 0;
      for (let i = 0; i < 2; i++) { let y = x[i] * 2; if (y >= 1) { sym |= 1 << (5 - i); y -= 1; } x[i] = y; }
      id += A[sym];
    }
    if (!found || w < found.minWeight) bad++; else found.n++;
    rows++;
  }
  for (const b of blocks.values()) if (b.n !== b.elementCount) bad++;
  files++;
}
console.log(`files ${files} rows ${rows} bad ${bad}`);
JS
contains "cube ids recomputed from the rows (qbeast's transformation and descent)" "bad 0" "$(tail -1 cubes.txt)"
echo "  $(tail -1 cubes.txt)"
nfiles=$(ls wh/t/*.parquet | wc -l)
if [ "$nfiles" -lt 90 ]; then ok "rollup: $nfiles files for 6 appends"; else bad "rollup made $nfiles files"; fi

# OPTIMIZE as the seed writes it: every row re-indexed with exact counts, no answer changes,
# dataChange=false in the log, samples still exact and reading about the fraction
before_ans=$(tn -c "SELECT count(*), count(col_1), sum(col_1), round(sum(col_2), 3), count(DISTINCT payload) FROM t" | tail -1)
before_files=$(ls wh/t/*.parquet | wc -l)
o=$(tn -c "OPTIMIZE t WITH ('rollupSize' = '3000');" 2>&1 | tail -1)
case "$o" in [0-9]*,[1-9]*) ok "OPTIMIZE runs (files removed, added: $o)";; *) bad "OPTIMIZE: $o";; esac
check "OPTIMIZE changes no answer" "$before_ans" "$(tn -c "SELECT count(*), count(col_1), sum(col_1), round(sum(col_2), 3), count(DISTINCT payload) FROM t" | tail -1)"
lastlog=$(ls wh/t/_delta_log/*.json | tail -1)
dc=$(node -e "const l=require('fs').readFileSync('$lastlog','utf8').split('\n').filter(Boolean).map(JSON.parse);const a=l.filter(x=>x.add),r=l.filter(x=>x.remove);console.log(a.every(x=>x.add.dataChange===false)&&r.every(x=>x.remove.dataChange===false)&&a.length>0&&r.length>0, l.find(x=>x.commitInfo).commitInfo.operation)")
check "OPTIMIZE commits dataChange=false adds and removes" "true OPTIMIZE" "$dc"
for p in 1 10; do
    w=$(weight "$p")
    check "after OPTIMIZE: sample $p% exact" "$(tn -c "SELECT count(*) FROM t WHERE hash(col_1, col_2) < $w" | tail -1)" \
        "$(tn --stats -c "SELECT count(*) FROM t TABLESAMPLE ($p PERCENT)" 2>stats.txt | tail -1)"
    read_rows=$(sed -E 's/.*"rows_scanned":([0-9]+).*/\1/' stats.txt)
    lim=$(node -e "console.log(Math.ceil(90000*($p/100)*1.5 + 2048))")
    if [ "$read_rows" -le "$lim" ]; then ok "after OPTIMIZE: $p% reads $read_rows rows (<= $lim)"; else bad "after OPTIMIZE: $p% reads $read_rows rows (> $lim)"; fi
done
echo "files before OPTIMIZE $before_files, after $(ls wh/t/*.parquet | wc -l) (removed files stay until VACUUM)"

# OPTIMIZE streams (it re-reads the files it rewrites: a pass per tree level over the indexed
# columns, then rows staged per output file in partition buffers): on a table written by one
# INSERT (exact counts, no estimate) it rebuilds exactly the tree that write built (every block's
# cube, weights and count), also when the buffers spill (SET memory_limit small), and on a
# shallow (cubeSize 15000) and a deep (cubeSize 700) tree
blocks() { node -e "const fs=require('fs');const live=new Map();for(const f of fs.readdirSync('$1/_delta_log').filter(f=>f.endsWith('.json')).sort())for(const l of fs.readFileSync('$1/_delta_log/'+f,'utf8').split('\\n').filter(Boolean)){const a=JSON.parse(l);if(a.add)live.set(a.add.path,a.add);if(a.remove)live.delete(a.remove.path)}const b=[];for(const a of live.values())for(const x of JSON.parse(a.tags.blocks))b.push([x.cubeId,x.minWeight,x.maxWeight,x.elementCount].join(' '));b.sort();console.log(live.size+' files '+b.length+' blocks '+require('crypto').createHash('md5').update(b.join(';')).digest('hex'))"; }
for cs in 15000 700; do
    for lim in none 2MB; do
        rm -rf wh/e
        tn -c "CREATE TABLE e (col_1 INT, col_2 DOUBLE, payload STRING) USING qbeast OPTIONS ('columnsToIndex' = 'col_1,col_2', 'cubeSize' = '$cs')" \
           -c "INSERT INTO e SELECT * FROM read_parquet(['batch1.parquet', 'batch2.parquet', 'batch3.parquet', 'batch4.parquet', 'batch5.parquet', 'batch6.parquet'])" >/dev/null 2>&1 ||
            bad "OPTIMIZE stream ($cs): create"
        one=$(blocks wh/e)
        ans=$(tn -c "SELECT count(*), sum(col_1), round(sum(col_2), 3), count(DISTINCT payload) FROM e" | tail -1)
        set_lim=""; [ "$lim" = none ] || set_lim="SET memory_limit = '$lim';"
        o=$(tn -c "$set_lim OPTIMIZE e" 2>&1 | tail -1)
        case "$o" in [0-9]*,[1-9]*) ok "OPTIMIZE stream (cubeSize $cs, memory_limit $lim) runs ($o)";; *) bad "OPTIMIZE stream ($cs, $lim): $o";; esac
        check "OPTIMIZE stream (cubeSize $cs, memory_limit $lim) rebuilds the same tree as the write" "$one" "$(blocks wh/e)"
        check "OPTIMIZE stream (cubeSize $cs, memory_limit $lim) keeps the rows" "$ans" \
            "$(tn -c "SELECT count(*), sum(col_1), round(sum(col_2), 3), count(DISTINCT payload) FROM e" | tail -1)"
        w=$(weight 3)
        check "OPTIMIZE stream (cubeSize $cs, memory_limit $lim): sample exact" "$(tn -c "SELECT count(*) FROM e WHERE hash(col_1, col_2) < $w" | tail -1)" \
            "$(tn -c "SELECT count(*) FROM e TABLESAMPLE (3 PERCENT)" | tail -1)"
        [ -e wh/e/_tarn_tmp ] && bad "OPTIMIZE stream left wh/e/_tarn_tmp"
        echo "  cubeSize $cs: $one"
    done
done
tn_cleanup "$work/wh/e"

# a new revision when the data outgrows col_1's range (each random batch may widen it too, as
# in qbeast: the last revision's number before and after)
lastrev() { node -e "const fs=require('fs');let c;for(const f of fs.readdirSync('$1/_delta_log').filter(f=>f.endsWith('.json')).sort())for(const l of fs.readFileSync('$1/_delta_log/'+f,'utf8').split('\n').filter(Boolean)){const a=JSON.parse(l);if(a.metaData)c=a.metaData.configuration}const n=c['qbeast.lastRevisionID'];const r=JSON.parse(c['qbeast.revision.'+n]);const t=r.transformations[0];console.log(n,r.revisionID,r.desiredCubeSize,t.className.split('.').pop(),t.minNumber,t.maxNumber,r.columnTransformers.map(x=>x.className.split('.').pop()+':'+x.columnName).join(' '))"; }
before=$(lastrev wh/t | cut -d' ' -f1)
tn -c "INSERT INTO t VALUES (500000, 1.5, 'far'), (-7, 2.5, 'neg')" >/dev/null 2>&1
r=$(lastrev wh/t)
check "new revision when col_1 leaves the range (union of ranges, qbeast classes)" \
    "$((before + 1)) $((before + 1)) 15000 LinearTransformation -7 500000 LinearTransformer:col_1 LinearTransformer:col_2" "$r"
tn -c "INSERT INTO t VALUES (5, 1.5, 'in')" >/dev/null 2>&1
check "no new revision for data inside the ranges" "$((before + 1))" "$(lastrev wh/t | cut -d' ' -f1)"
tn -c "DELETE FROM t WHERE payload = 'in'" >/dev/null 2>&1
w=$(weight 5)
check "sample across revisions" "$(tn -c "SELECT count(*) FROM t WHERE hash(col_1, col_2) < $w" | tail -1)" "$(tn -c "SELECT count(*) FROM t TABLESAMPLE (5 PERCENT)" | tail -1)"
check "the far rows are there" "2" "$(tn -c "SELECT count(*) FROM t WHERE payload IN ('far', 'neg')" | tail -1)"

# TABLESAMPLE (n ROWS): exactly n rows, the n of lowest weight (the prefix of the order the
# percent samples take), across revisions, reading about n rows
for n in 1 10 777 5000; do
    s=$(tn --stats -c "SELECT count(*) FROM t TABLESAMPLE ($n ROWS)" 2>stats.txt | tail -1)
    check "$n ROWS: exactly $n rows" "$n" "$s"
    x=$(tn -c "SELECT count(*) FROM (SELECT * FROM t TABLESAMPLE ($n ROWS) EXCEPT ALL
               (SELECT * FROM t ORDER BY hash(col_1, col_2) LIMIT $n))" | tail -1)
    check "$n ROWS = the $n rows of lowest hash" "0" "$x"
    read_rows=$(sed -E 's/.*"rows_scanned":([0-9]+).*/\1/' stats.txt)
    lim=$((n * 2 + 8 * 2048))
    if [ "$read_rows" -le "$lim" ]; then ok "$n ROWS reads $read_rows rows (<= $lim)"; else bad "$n ROWS reads $read_rows rows (> $lim)"; fi
done
check "ROWS beyond the table: every row" "90002" "$(tn -c "SELECT count(*) FROM t TABLESAMPLE (1000000 ROWS)" | tail -1)"
check "0 ROWS" "0" "$(tn -c "SELECT count(*) FROM t TABLESAMPLE (0 ROWS)" | tail -1)"
check "ROWS then WHERE (the sample is of the table)" \
    "$(tn -c "SELECT count(*) FROM (SELECT * FROM t ORDER BY hash(col_1, col_2) LIMIT 500) WHERE col_1 < 20000" | tail -1)" \
    "$(tn -c "SELECT count(*) FROM t TABLESAMPLE (500 ROWS) WHERE col_1 < 20000" | tail -1)"

# CTAS, strings hashed, dates, overwrite
tn -c "CREATE TABLE u USING qbeast OPTIONS ('columnsToIndex' = 'd,s', 'cubeSize' = '500') AS
       SELECT CAST('2020-01-01' AS DATE) + CAST(col_1 % 1000 AS INTEGER) AS d, payload AS s, col_2 FROM read_parquet('batch2.parquet') WHERE col_1 IS NOT NULL" >/dev/null 2>&1 || bad "CTAS"
n=$(tn -c "SELECT count(*) FROM u" | tail -1)
w=$(weight 20)
check "CTAS sample (date + hashed string)" "$(tn -c "SELECT count(*) FROM u WHERE hash(d, s) < $w" | tail -1)" "$(tn -c "SELECT count(*) FROM u TABLESAMPLE (20 PERCENT)" | tail -1)"
r=$(lastrev wh/u)
contains "date linear, string hashed" "LinearTransformer:d HashTransformer:s" "$r"
# filters on indexed columns skip the cubes whose subspace cannot match: same answers as a
# predicate that is not pushed down (s || '' = ...), fewer files and rows read (counts shown)
un=$(tn -c "SELECT count(*) FROM u" | tail -1)
for v in p3 p123 p4567 p14999 nosuch; do
    a=$(tn --stats -c "SELECT count(*), sum(col_2) FROM u WHERE s = '$v'" 2>stats.txt | tail -1)
    b=$(tn -c "SELECT count(*), sum(col_2) FROM u WHERE s || '' = '$v'" | tail -1)
    check "hashed column s = '$v': same answer as unpushed" "$b" "$a"
    fs=$(sed -E 's/.*"files_scanned":([0-9]+).*"table_files":([0-9]+).*/\1 \2/' stats.txt)
    rs=$(sed -E 's/.*"rows_scanned":([0-9]+).*/\1/' stats.txt)
    if [ "$rs" -le $((un / 2)) ]; then ok "s = '$v' reads $rs of $un rows (files read/total: $fs)"; else bad "s = '$v' reads $rs of $un rows (files $fs)"; fi
done
for q in "d < DATE '2020-03-01'" "d BETWEEN DATE '2021-01-01' AND DATE '2021-02-01'" "d IN (DATE '2020-01-05', DATE '2020-02-05')" \
         "d >= DATE '2022-09-01' AND s = 'p77'" "d = DATE '2020-06-06'"; do
    a=$(tn --stats -c "SELECT count(*), round(sum(col_2), 6) FROM u WHERE $q" 2>stats.txt | tail -1)
    b=$(tn -c "SELECT count(*), round(sum(col_2), 6) FROM (SELECT d + 0 AS d, s || '' AS s, col_2 FROM u) WHERE $q" | tail -1)
    check "filter $q: same answer as unpushed" "$b" "$a"
    echo "  $q: $(sed -E 's/.*"files_scanned":([0-9]+).*"rows_scanned":([0-9]+).*"table_files":([0-9]+).*/files \1 of \3, rows \2/' stats.txt) of $un rows"
done
w=$(weight 30)
check "sample and a filter on an indexed column" \
    "$(tn -c "SELECT count(*) FROM u WHERE hash(d, s) < $w AND d < DATE '2021-01-01'" | tail -1)" \
    "$(tn -c "SELECT count(*) FROM u TABLESAMPLE (30 PERCENT) WHERE d < DATE '2021-01-01'" | tail -1)"
tn -c "INSERT OVERWRITE u SELECT d, s, col_2 FROM u WHERE col_2 < 500" >/dev/null 2>&1 || bad "overwrite"
check "overwrite" "$(tn -c "SELECT count(*) FROM u" | tail -1)" "$(tn -c "SELECT count(*) FROM u TABLESAMPLE (100 PERCENT)" | tail -1)"

# col:quantiles (qbeast's CDF transformers): quantiles from 'columnStats' as given, else computed
# from the write that starts the revision; appends inside keep the revision (values beyond the
# quantiles map to 0 or 1); a different columnStats list is a new revision; samples exact;
# range filters on a quantile-indexed string column prune
tn -c "CREATE TABLE q (a INT, s VARCHAR, x DOUBLE) USING qbeast OPTIONS ('columnsToIndex' = 'a:quantiles,s:quantiles', 'cubeSize' = '1000')" \
   -c "INSERT INTO q SELECT col_1, payload, col_2 FROM read_parquet('batch4.parquet')" >/dev/null 2>&1 || bad "quantiles table"
qrev() { node -e "const fs=require('fs');let c;for(const f of fs.readdirSync('wh/q/_delta_log').filter(f=>f.endsWith('.json')).sort())for(const l of fs.readFileSync('wh/q/_delta_log/'+f,'utf8').split('\n').filter(Boolean)){const a=JSON.parse(l);if(a.metaData)c=a.metaData.configuration}const n=c['qbeast.lastRevisionID'];const r=JSON.parse(c['qbeast.revision.'+n]);console.log(n, r.columnTransformers.map(x=>x.className.split('.').pop()+':'+x.columnName+':'+(x.orderedDataType||'')).join(' '), r.transformations.map(t=>t.className.split('.').pop()+':'+t.quantiles.length+':'+(t.dataType||'')).join(' '), JSON.stringify(r.transformations[0].quantiles.slice(0,3)))"; }
r=$(qrev)
contains "quantile classes as qbeast-spark writes them" "1 CDFNumericQuantilesTransformer:a:IntegerDataType CDFStringQuantilesTransformer:s: CDFNumericQuantilesTransformation:" "$r"
contains "string quantiles" "CDFStringQuantilesTransformation:50:" "$r"
w=$(weight 15)
check "quantiles: sample 15% exact" "$(tn -c "SELECT count(*) FROM q WHERE hash(a, s) < $w" | tail -1)" "$(tn -c "SELECT count(*) FROM q TABLESAMPLE (15 PERCENT)" | tail -1)"
qn=$(tn -c "SELECT count(*) FROM q" | tail -1)
a=$(tn --stats -c "SELECT count(*), round(sum(x), 6) FROM q WHERE s >= 'p100' AND s < 'p101'" 2>stats.txt | tail -1)
check "quantile string range: same answer as unpushed" "$(tn -c "SELECT count(*), round(sum(x), 6) FROM q WHERE s || '' >= 'p100' AND s || '' < 'p101'" | tail -1)" "$a"
rs=$(sed -E 's/.*"rows_scanned":([0-9]+).*/\1/' stats.txt)
if [ "$rs" -le $((qn / 2)) ]; then ok "quantile string range reads $rs of $qn rows"; else bad "quantile string range reads $rs of $qn rows"; fi
tn -c "INSERT INTO q VALUES (99999999, 'zzzz', 1), (-5, 'a', 2)" >/dev/null 2>&1 || bad "quantiles append"
check "quantiles: an append beyond the quantiles keeps the revision" "1" "$(qrev | cut -d' ' -f1)"
check "quantiles: the far rows are found by filters" "2" "$(tn -c "SELECT count(*) FROM q WHERE a > 9999999 OR a < 0" | tail -1)"
tn -c "ALTER TABLE q SET ('columnStats' = '{\"a_quantiles\": [0, 10, 100, 1000, 10000, 100000], \"s_quantiles\": [\"p1\", \"p5\", \"p9\"]}')" \
   -c "INSERT INTO q SELECT col_1, payload, col_2 FROM read_parquet('batch5.parquet')" >/dev/null 2>&1 || bad "columnStats quantiles"
r=$(qrev)
contains "columnStats quantiles: a new revision with the list as given" "2 " "$r"
contains "columnStats quantiles used as given" "CDFNumericQuantilesTransformation:6:IntegerDataType CDFStringQuantilesTransformation:3: [0,10,100]" "$r"
check "quantiles across revisions: sample exact" "$(tn -c "SELECT count(*) FROM q WHERE hash(a, s) < $w" | tail -1)" "$(tn -c "SELECT count(*) FROM q TABLESAMPLE (15 PERCENT)" | tail -1)"
e=$(tn -c "CREATE TABLE c (a INT) USING qbeast OPTIONS ('columnsToIndex' = 'a:quantiles', 'columnStats' = '{\"a_quantiles\": [3, 1]}')" 2>&1); contains "quantiles not increasing" "'a_quantiles' is not strictly increasing" "$e"
e=$(tn -c "CREATE TABLE c (a INT) USING qbeast OPTIONS ('columnsToIndex' = 'a', 'columnStats' = '{\"a_quantiles\": [1, 3]}')" 2>&1); contains "quantiles for a linear column" "indexed 'linear', not 'quantiles'" "$e"
e=$(tn -c "CREATE TABLE c (a INT) USING qbeast OPTIONS ('columnsToIndex' = 'a:quantiles', 'columnStats' = 'nope')" 2>&1); contains "columnStats not JSON" "'columnStats' is not a JSON object" "$e"
e=$(tn -c "CREATE TABLE c (a BOOLEAN) USING qbeast OPTIONS ('columnsToIndex' = 'a:quantiles')" 2>&1); contains "quantiles on a boolean" "cannot be indexed by quantiles" "$e"

# bad input
e=$(tn -c "CREATE TABLE c (a INT) USING qbeast OPTIONS ('columnsToIndex' = 'a:foo')" 2>&1); contains "unknown transformer" "unknown transformer 'foo'" "$e"
e=$(tn -c "CREATE TABLE c (a INT) USING qbeast OPTIONS ('columnsToIndex' = 'b')" 2>&1); contains "missing column" "column 'b' does not exist" "$e"
e=$(tn -c "CREATE TABLE c (a INT) USING qbeast OPTIONS ('columnsToIndex' = 'a', 'cubeSize' = '0')" 2>&1); contains "cubeSize 0" "'cubeSize' = '0'" "$e"
e=$(tn -c "CREATE TABLE c (a INT) USING qbeast OPTIONS ('columnsToIndex' = 'a', 'cubeSize' = '-5')" 2>&1); contains "cubeSize negative" "'cubeSize' = '-5'" "$e"
e=$(tn -c "CREATE TABLE c (a INT) USING qbeast OPTIONS ('cubeSize' = '10')" 2>&1); contains "columnsToIndex required" "'columnsToIndex' is required" "$e"
e=$(tn -c "CREATE TABLE c (a INT, b BOOLEAN) USING qbeast OPTIONS ('columnsToIndex' = 'b:linear')" 2>&1); contains "unorderable linear" "cannot be indexed" "$e"
e=$(tn -c "CREATE TABLE c (a INT, p INT) USING qbeast OPTIONS ('columnsToIndex' = 'a') PARTITIONED BY (p)" 2>&1); contains "partitioning refused" "cannot be partitioned" "$e"
e=$(tn -c "CREATE TABLE c (a INT) WITH ('columnsToIndex' = 'a')" 2>&1); contains "columnsToIndex without USING qbeast" "USING qbeast" "$e"
e=$(tn -c "INSERT INTO t /*+ OPTIONS('rollupSize' = 'lots') */ SELECT * FROM read_parquet('batch.parquet')" 2>&1); contains "rollupSize garbage" "'rollupSize' = 'lots'" "$e"
e=$(tn -c "INSERT INTO t /*+ OPTIONS('cubeSize' = '10') */ SELECT * FROM read_parquet('batch.parquet')" 2>&1); contains "unknown write option" "'cubeSize' is not supported by the otree layout" "$e"
check "failed writes left the table" "90002" "$(tn -c "SELECT count(*) FROM t" | tail -1)"
# rollupSize 0: no rollup, a file per cube
tn -c "CREATE TABLE c (a INT, b DOUBLE) USING qbeast OPTIONS ('columnsToIndex' = 'a,b', 'cubeSize' = '1000')" >/dev/null
tn -c "INSERT INTO c /*+ OPTIONS('rollupSize' = '0') */ SELECT col_1, col_2 FROM read_parquet('batch3.parquet')" >/dev/null 2>&1 || bad "rollupSize 0 insert"
nb=$(node -e "const fs=require('fs');let n=0,f=0;for(const x of fs.readdirSync('wh/c/_delta_log').filter(x=>x.endsWith('.json')))for(const l of fs.readFileSync('wh/c/_delta_log/'+x,'utf8').split('\n').filter(Boolean)){const a=JSON.parse(l);if(a.add){f++;n+=JSON.parse(a.add.tags.blocks).length}}console.log(f===n&&f>1?'one block per file':'files '+f+' blocks '+n)")
check "rollupSize 0: one cube per file" "one block per file" "$nb"
# a plain Delta table converted to an OTree table (qbeast's ConvertToQbeastCommand): ALTER TABLE
# SET TBLPROPERTIES ('columnsToIndex', 'cubeSize') adds qbeast's metadata in one commit; the files
# stay, unindexed (revision 0: samples read and filter them); an append starts revision 1; OPTIMIZE
# indexes every file; no answer changes
tn -c "CREATE TABLE v (col_1 INT, col_2 DOUBLE, payload STRING)" \
   -c "INSERT INTO v SELECT * FROM read_parquet('batch1.parquet')" -c "INSERT INTO v SELECT * FROM read_parquet('batch2.parquet')" >/dev/null 2>&1 || bad "plain table v"
ans() { tn -c "SELECT count(*), count(col_1), sum(col_1), round(sum(col_2), 3) FROM v" | tail -1; }
e=$(tn -c "ALTER TABLE v SET TBLPROPERTIES ('columnsToIndex' = 'col_1,nope')" 2>&1); contains "convert: missing column" "column 'nope' does not exist" "$e"
e=$(tn -c "ALTER TABLE v SET TBLPROPERTIES ('columnsToIndex' = 'col_1', 'cubeSize' = '0')" 2>&1); contains "convert: cubeSize 0" "'cubeSize' = '0'" "$e"
check "convert: a refused conversion commits nothing" "3" "$(ls wh/v/_delta_log/*.json | wc -l)"
tn -c "ALTER TABLE v SET TBLPROPERTIES ('columnsToIndex' = 'col_1,col_2', 'cubeSize' = '4000')" >/dev/null 2>&1 || bad "convert v"
conf=$(node -e "const fs=require('fs');let c;for(const x of fs.readdirSync('wh/v/_delta_log').filter(x=>x.endsWith('.json')).sort())for(const l of fs.readFileSync('wh/v/_delta_log/'+x,'utf8').split('\n').filter(Boolean)){const a=JSON.parse(l);if(a.metaData)c=a.metaData.configuration}
const r=JSON.parse(c['qbeast.revision.0']);console.log(c['qbeast.lastRevisionID'],c.columnsToIndex,c.cubeSize,r.desiredCubeSize,r.columnTransformers.map(t=>t.className.split('.').pop()+':'+t.columnName).join(' '))")
check "convert: qbeast's staging revision 0" "0 col_1,col_2 4000 4000 EmptyTransformer:col_1 EmptyTransformer:col_2" "$conf"
wv=$(weight 10)
check "convert: sample of the unindexed files" "$(tn -c "SELECT count(*) FROM v WHERE hash(col_1, col_2) < $wv" | tail -1)" "$(tn -c "SELECT count(*) FROM v TABLESAMPLE (10 PERCENT)" | tail -1)"
tn -c "INSERT INTO v SELECT * FROM read_parquet('batch3.parquet')" >/dev/null 2>&1 || bad "append after convert"
check "convert: the append is revision 1" "1" "$(node -e "const fs=require('fs');let c;for(const x of fs.readdirSync('wh/v/_delta_log').filter(x=>x.endsWith('.json')).sort())for(const l of fs.readFileSync('wh/v/_delta_log/'+x,'utf8').split('\n').filter(Boolean)){const a=JSON.parse(l);if(a.metaData)c=a.metaData.configuration}console.log(c['qbeast.lastRevisionID'])")"
check "convert: sample over revisions 0 and 1" "$(tn -c "SELECT count(*) FROM v WHERE hash(col_1, col_2) < $wv" | tail -1)" "$(tn -c "SELECT count(*) FROM v TABLESAMPLE (10 PERCENT)" | tail -1)"
tn -c "OPTIMIZE v" >/dev/null 2>&1 || bad "OPTIMIZE after convert"
untagged=$(node -e "const fs=require('fs');const live=new Map();for(const x of fs.readdirSync('wh/v/_delta_log').filter(x=>x.endsWith('.json')).sort())for(const l of fs.readFileSync('wh/v/_delta_log/'+x,'utf8').split('\n').filter(Boolean)){const a=JSON.parse(l);if(a.add)live.set(a.add.path,a.add);if(a.remove)live.delete(a.remove.path)}
console.log([...live.values()].filter(a=>!a.tags||!a.tags.revision||a.tags.revision==='0').length, live.size>0)")
check "convert: OPTIMIZE indexed every file" "0 true" "$untagged"
check "convert, append, OPTIMIZE: the rows of the batches (DuckDB)" "$("$DUCK" "SELECT count(*), count(col_1), sum(col_1), round(sum(col_2), 3) FROM read_parquet(['$work/batch1.parquet', '$work/batch2.parquet', '$work/batch3.parquet'])" 2>&1 | tail -1)" "$(ans)"
check "convert: sample exact after OPTIMIZE" "$(tn -c "SELECT count(*) FROM v WHERE hash(col_1, col_2) < $wv" | tail -1)" "$(tn -c "SELECT count(*) FROM v TABLESAMPLE (10 PERCENT)" | tail -1)"
e=$(tn -c "ALTER TABLE v SET TBLPROPERTIES ('cubeSize' = '5000')" 2>&1); contains "convert: an OTree table keeps its index" "changing the OTree index of table" "$e"
tn -c "CREATE TABLE vp (a INT, p INT) PARTITIONED BY (p)" >/dev/null 2>&1
e=$(tn -c "ALTER TABLE vp SET TBLPROPERTIES ('columnsToIndex' = 'a')" 2>&1); contains "convert: partitioned table refused" "cannot be partitioned" "$e"
tn -c "CREATE TABLE vb (k INT, a INT) WITH ('primary-key' = 'k', 'bucket' = '2')" >/dev/null 2>&1
e=$(tn -c "ALTER TABLE vb SET TBLPROPERTIES ('columnsToIndex' = 'a')" 2>&1); contains "convert: bucket table refused" "only a plain Delta table converts" "$e"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
