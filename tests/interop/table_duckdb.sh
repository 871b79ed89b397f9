#!/usr/bin/env bash
# tests/interop/table_duckdb.sh: DuckDB reads the tables tarn writes. The hidden mode
# `$BUILD/tests/test_table --write-interop DIR` writes Delta tables (every type, partitioned by a
# string and a date with values needing Hive escaping and NULL partitions; rolled files; a
# copy-on-write DELETE; a dynamic partition overwrite) and prints, per table, the files of the
# latest snapshot and tarn's rows (DuckDB's text spelling). DuckDB's read_parquet over exactly
# those files with hive_partitioning = true must give the same multiset of rows; DuckDB must
# also see the files' column types as the schema says. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tests/test_table
pass=0; fail=0
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_table_interop.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT   # checks every table written, then removes

if ! "$BIN" --write-interop "$dir/wh" >"$dir/tarn.txt" 2>"$dir/err.txt"; then
    echo "FAIL write-interop: $(cat "$dir/err.txt")"
    echo "0 passed, 1 failed"
    exit 1
fi

python3 - "$dir" "$DUCK" <<'EOF'
import csv, io, json, subprocess, sys
d, duck = sys.argv[1], sys.argv[2]
tables, cur = [], None
for line in open(f"{d}/tarn.txt", encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("TABLE "):
        _, name, path = line.split(" ", 2)
        cur = {"name": name, "path": path, "files": [], "rows": [], "cols": []}
        tables.append(cur)
    elif line.startswith("COLS "):
        cur["cols"] = line[5:].split(" ")
    elif line.startswith("FILE "):
        cur["files"].append(line[5:])
    elif line.startswith("ROW "):
        cur["rows"].append(tuple(json.loads(line[4:])))
passed = failed = 0
def report(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1; print(f"ok {name}")
    else:
        failed += 1; print(f"FAIL {name}"); print("    " + detail[:2000].replace("\n", "\n    "))
for t in tables:
    files = ",".join("'" + f.replace("'", "''") + "'" for f in t["files"])
    cols = ",".join('"%s"' % c for c in t["cols"])
    q = (f"SELECT coalesce(COLUMNS(*)::VARCHAR, '<NULL>') FROM (SELECT {cols} FROM "
         f"read_parquet([{files}], hive_partitioning = true, hive_types_autocast = false))")
    r = subprocess.run([duck, q], capture_output=True, text=True)
    if r.returncode != 0:
        report(False, t["name"] + " rows", r.stderr); continue
    rd = list(csv.reader(io.StringIO(r.stdout)))
    got = sorted(tuple(x) for x in rd[1:])
    want = sorted(t["rows"])
    if got == want:
        report(True, f"{t['name']} rows ({len(want)} rows, {len(t['files'])} files)")
    else:
        sg, sw = set(got), set(want)
        report(False, t["name"] + " rows",
               f"duckdb {len(got)} rows, tarn {len(want)} rows\nonly duckdb: {sorted(sg - sw)[:3]}\nonly tarn: {sorted(sw - sg)[:3]}")
    # the data files hold the non-partition columns with the schema's types
    q2 = f"SELECT name, type FROM parquet_schema('{t['files'][0]}') WHERE name <> 'duckdb_schema' AND num_children IS NULL"
    r2 = subprocess.run([duck, q2], capture_output=True, text=True)
    names = [row[0] for row in list(csv.reader(io.StringIO(r2.stdout)))[1:]]
    partitioned = "/ps=" in t["files"][0]
    ok = r2.returncode == 0 and "id" in names and (("ps" not in names and "pd" not in names) if partitioned
                                                   else ("ps" in names and "pd" in names))
    report(ok, t["name"] + (" partition columns not stored in files" if partitioned else " all columns stored"),
           r2.stdout + r2.stderr)
    # stats in the log are consistent with what DuckDB computes
    import glob, os
    log = sorted(glob.glob(os.path.join(t["path"], "_delta_log", "*.json")))
    adds = {}
    for lf in log:
        for l in open(lf, encoding="utf-8"):
            a = json.loads(l)
            if "add" in a: adds[a["add"]["path"]] = a["add"]
            if "remove" in a: adds.pop(a["remove"]["path"], None)
    bad = []
    for p, a in list(adds.items())[:5]:
        st = json.loads(a["stats"])
        full = os.path.join(t["path"], subprocess.run(["python3", "-c", "import sys,urllib.parse;print(urllib.parse.unquote(sys.argv[1]))", p], capture_output=True, text=True).stdout.strip())
        r3 = subprocess.run([duck, f"SELECT count(*), min(id), max(id), count(*) - count(dt) FROM read_parquet('{full}')"], capture_output=True, text=True)
        vals = list(csv.reader(io.StringIO(r3.stdout)))[1]
        if int(vals[0]) != st["numRecords"] or int(vals[1]) != st["minValues"]["id"] or int(vals[2]) != st["maxValues"]["id"] or int(vals[3]) != st["nullCount"]["dt"]:
            bad.append((p, vals, st))
    report(not bad, t["name"] + " add.stats match DuckDB's aggregates", str(bad))
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
EOF
