#!/usr/bin/env bash
# tests/interop/text_duckdb.sh: tarn's CSV / NDJSON readers and writers against DuckDB.
# For generated files: tarn's detected column names and types equal DuckDB's DESCRIBE of
# read_csv / read_json, and the values equal DuckDB's COLUMNS(*)::VARCHAR text; then DuckDB reads
# the CSV and NDJSON files tarn's writers produce back to the same values. Driven through the
# hidden modes of $BUILD/tests/test_text. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tests/test_text
pass=0; fail=0
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_text_interop.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT   # checks every table written, then removes

ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "$2" | head -n 20 | sed 's/^/    /'; }

python3 - "$dir" <<'EOF'
import sys, random, json
d = sys.argv[1]
rnd = random.Random(7)
def w(name, text):
    with open(f"{d}/{name}", "w", newline="") as f: f.write(text)
def s(i):
    c = rnd.randrange(8)
    return ["plain%d" % i, "with, comma", 'say "hi"', "multi\nline", "", "tab\there", "é ü 漢", " pad "][c]
def q(v):
    return '"' + v.replace('"', '""') + '"' if (v == "" or any(ch in v for ch in ',"\r\n')) else v
rows = ["id,amount,flag,day,ts,name,score"]
for i in range(3000):
    amt = "" if i % 11 == 0 else "%d.%02d" % (rnd.randrange(-5000, 5000), rnd.randrange(100))
    flag = ["true", "false", ""][i % 3]
    day = "" if i % 13 == 0 else "20%02d-%02d-%02d" % (rnd.randrange(0, 30), rnd.randrange(1, 13), rnd.randrange(1, 29))
    ts = "2024-%02d-%02d %02d:%02d:%02d%s" % (rnd.randrange(1, 13), rnd.randrange(1, 29), rnd.randrange(24), rnd.randrange(60), rnd.randrange(60), "" if i % 4 else ".%d" % rnd.randrange(1, 999999))
    name = s(i)
    score = str(rnd.randrange(-10**12, 10**12))
    rows.append(",".join([str(i), amt, flag, day, ts, q(name) if name else '""', score]))
w("mixed.csv", "\n".join(rows) + "\n")
w("pipe.csv", "a|b|c\n" + "".join("%d|x%d|%s\n" % (i, i, "1e%d" % (i % 30)) for i in range(100)))
w("semi_nohdr.csv", "".join("%d;%d.5;2024-01-%02d\n" % (i, i, i % 28 + 1) for i in range(50)))
w("crlf.csv", "k,v\r\n" + "".join('%d,"a\r\nb%d"\r\n' % (i, i) for i in range(40)))
w("tz.csv", "t,u\n2024-01-02 03:04:05+01,1\n2024-06-30T23:59:59.5Z,2\n2024-12-31 00:00:00-05:30,3\n")
w("strings.csv", "first,second\nalpha,beta\ngamma,\n,delta\n")
w("zeros.csv", "code,big,neg\n007,99999999999999999999,-1\n010,1,-2\n")
w("tabs.csv", "a\tb\n\"x\ty\"\t1\n\"p\"\"q\"\t2\n")
w("bools.csv", "a,b,c\nT,yes,1\nf,no,0\nTRUE,NO,1\n")
w("dbl.csv", "a,b,c\n1,1e5,NaN\n2.5,-inf,1e400\n-0.0,.5,5.\n")
w("bom.csv", "\ufeffx,y\n1,2\n")
w("dup.csv", "a,a,,b\n1,2,3,4\n")
lines = []
for i in range(500):
    o = {"id": i, "name": "n%d\t\"%s\"" % (i, "é" if i % 2 else "\u2603"), "price": i * 1.25, "ok": i % 2 == 0,
         "day": "2024-02-%02d" % (i % 28 + 1), "at": "2024-02-01 10:00:%02d" % (i % 60)}
    if i % 5 == 0: o["price"] = None
    if i % 7 == 0: del o["name"]
    lines.append(json.dumps(o, ensure_ascii=(i % 3 == 0)))
w("scalars.json", "\n".join(lines) + "\n")
w("nested.json", "".join(json.dumps({"k": i, "obj": {"x": [i, i + 1], "y": "s%d" % i}, "arr": [i, "a"] if i % 2 else []}) + "\n" for i in range(30)))
w("mixed.json", '{"a":1,"b":2}\n{"a":"x","b":3}\n{"a":1.5,"b":null}\n{"a":true}\n')
w("ints.json", "".join('{"i":%d,"d":%s}\n' % (i * 1000003, str(i) if i % 2 else "%d.25" % i) for i in range(100)))
EOF

# DuckDB runs in ONE node process (starting the oracle once per query took ~100 s): it reads
# "reader<TAB>file<TAB>result-stem" jobs and writes result-stem.types ("name<TAB>TYPE" per
# column, nested types as VARCHAR) and/or result-stem.values (COLUMNS(*)::VARCHAR as CSV in the
# oracle's spelling, nested columns as their JSON text); a failing query writes its error
# instead. The package is loaded from the oracle's install (tests/oracle, $ORACLE_DIR from
# lib.sh), the CSV spelling is q.mjs's.
cat > "$dir/batch.mjs" <<'EOF'
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const oracle = process.argv[2];
const req = createRequire(oracle + '/q.mjs');
const { DuckDBInstance } = await import(pathToFileURL(req.resolve('@duckdb/node-api')).href);
const csvField = (v) => {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : v.toString();
  return s === '' || /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
};
const instance = await DuckDBInstance.create(':memory:', {
  extension_directory: process.env.DUCKDB_EXTENSION_DIR || oracle + '/duckdb_extensions',
  autoinstall_known_extensions: 'false',
});
const conn = await instance.connect();
const rows = async (sql) => (await conn.runAndReadAll(sql)).getRows();
for (const job of readFileSync(0, 'utf8').split('\n').filter(Boolean)) {
  const [reader, file, stem, what] = job.split('\t');
  const src = `FROM (DESCRIBE SELECT * FROM ${reader}('${file}'))`;
  if (what !== 'values') {
    let text;
    try {
      text = (await rows(`SELECT column_name, CASE WHEN column_type = 'TIMESTAMP WITH TIME ZONE' THEN 'TIMESTAMPTZ'
               WHEN column_type = 'JSON' OR column_type LIKE 'STRUCT%' OR column_type LIKE '%[]' OR column_type LIKE 'MAP%'
               THEN 'VARCHAR' ELSE column_type END ${src}`)).map((r) => r[0] + '\t' + r[1]).join('\n');
    } catch (e) { text = String(e && e.message ? e.message : e); }
    writeFileSync(stem + '.types', text);
  }
  let text;
  try {
    const sel = (await rows(`SELECT string_agg(CASE WHEN column_type LIKE 'STRUCT%' OR column_type LIKE '%[]' OR column_type LIKE 'MAP%'
               THEN 'to_json("' || column_name || '") AS "' || column_name || '"'
               ELSE '"' || column_name || '"' END, ', ') ${src}`))[0][0];
    const r = await conn.runAndReadAll(`SELECT COLUMNS(*)::VARCHAR FROM (SELECT ${sel} FROM ${reader}('${file}'))`);
    text = [r.columnNames(), ...r.getRows()].map((row) => row.map(csvField).join(',')).join('\n');
  } catch (e) { text = String(e && e.message ? e.message : e); }
  writeFileSync(stem + '.values', text);
}
conn.closeSync();
EOF
duck_batch() { node "$dir/batch.mjs" "$ORACLE_DIR" < "$1"; }
reader_of() { case $1 in *.json) echo read_json;; *) echo read_csv;; esac; }

# tarn's side, and the jobs for DuckDB: each input file, and each file tarn's writers produce.
: > "$dir/jobs"
for f in "$dir"/*.csv "$dir"/*.json; do
    name=$(basename "$f")
    "$BIN" --describe "$f" > "$dir/$name.tarn_types" 2>&1
    "$BIN" --cat "$f" > "$dir/$name.tarn_values" 2>&1
    printf '%s\t%s\t%s\tboth\n' "$(reader_of "$name")" "$f" "$dir/$name.duck" >> "$dir/jobs"
    for ext in csv json; do
        out="$dir/out_${name%.*}_${name##*.}.$ext"
        if "$BIN" --rewrite "$f" "$out" > "$out.err" 2>&1; then
            printf '%s\t%s\t%s\tvalues\n' "$(reader_of "$out")" "$out" "$out.duck" >> "$dir/jobs"
        fi
    done
done
if ! err=$(duck_batch "$dir/jobs" 2>&1); then bad "duckdb batch" "$err"; fi

for f in "$dir"/*.csv "$dir"/*.json; do
    case $(basename "$f") in out_*) continue;; esac
    name=$(basename "$f")
    # types, values ($(< file) drops trailing newlines as the old $(command) captures did)
    want=$(< "$dir/$name.duck.types"); got=$(< "$dir/$name.tarn_types")
    if [ "$want" = "$got" ]; then ok "$name: types"; else bad "$name: types" "$(diff <(echo "$want") <(echo "$got"))"; fi
    want=$(< "$dir/$name.duck.values"); got=$(< "$dir/$name.tarn_values")
    if [ "$want" = "$got" ]; then ok "$name: values"; else bad "$name: values" "$(diff <(echo "$want") <(echo "$got"))"; fi
    # writers: DuckDB reads tarn's CSV and NDJSON output back to the same values
    for ext in csv json; do
        out="$dir/out_${name%.*}_${name##*.}.$ext"
        if [ ! -f "$out.duck.values" ]; then bad "$name -> $ext: write" "$(cat "$out.err")"; continue; fi
        back=$(< "$out.duck.values")
        if [ "$want" = "$back" ]; then ok "$name -> tarn $ext -> duckdb"; else bad "$name -> tarn $ext -> duckdb" "$(diff <(echo "$want") <(echo "$back"))"; fi
    done
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
