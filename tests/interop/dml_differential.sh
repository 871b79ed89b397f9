#!/usr/bin/env bash
# tests/interop/dml_differential.sh: UPDATE (and MERGE INTO, when the statement list has them)
# on Delta tables against DuckDB. The same table is built in tarn and in a DuckDB database file;
# a sequence of random statements (seeded: TARN_DML_SEED replays, the seed is printed) runs on
# both, and after each one the two tables must hold the same multiset of rows, and the
# statements' row counts must agree. Table variants: unpartitioned, partitioned (updates that
# move rows between partitions), deletion vectors, change data feed. At the end DuckDB reads the
# copy-on-write tables' live files (from the log) to the same rows, the change data feed holds
# the pre/post images, and failing statements (bad column, CHECK violation, append-only table)
# leave the table at its version. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tarn
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_dml.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT   # checks every table written, then removes
seed=${TARN_DML_SEED:-$(( $(date +%s) % 100000 ))}
echo "dml_differential: seed $seed (TARN_DML_SEED=$seed replays)"
python3 - "$BIN" "$dir" "$DUCK" "$seed" <<'EOF'
import csv, io, json, os, random, subprocess, sys, urllib.parse
tarn, d, duck, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
wh = os.path.join(d, "wh")
passed = failed = 0

def report(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}")
        print("    " + str(detail)[:3000].replace("\n", "\n    "))

def rows_of(text):
    return sorted(tuple(r) for r in list(csv.reader(io.StringIO(text)))[1:])

def tarn(sql, ok=True):
    r = subprocess.run([tarn_bin, "-w", wh, "--csv", "-c", sql], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr

def duck_q(db, sql):
    r = subprocess.run([duck, sql, "--db", db], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr

tarn_bin = sys.argv[1]

COLS = "id INTEGER, grp VARCHAR, v DOUBLE, n BIGINT, d DATE, s VARCHAR"
def source_rows(rng, start, count):
    out = []
    for i in range(start, start + count):
        grp = rng.choice(["'a'", "'b'", "'c'", "NULL"])
        n = "NULL" if rng.random() < 0.1 else str(rng.randint(-50, 50))
        s = "NULL" if rng.random() < 0.1 else "'" + rng.choice(["apple", "berry", "cherry", "date", "élan", "fig"]) + str(i % 7) + "'"
        out.append(f"({i}, {grp}, {i * 1.5}, {n}, DATE '2024-01-01' + {i % 40}, {s})")
    return out

def gen_update(rng, partitioned):
    sets = []
    pool = [
        "n = n + 1", "n = NULL", "v = v * 2", "v = v + n", "s = upper(s)", "s = s || '!'",
        "s = CASE WHEN n > 0 THEN 'pos' ELSE s END", "d = d + 1", "n = coalesce(n, 0) * 3",
        "id = id + 100000",
    ]
    if partitioned: pool += ["grp = 'z'", "grp = NULL", "grp = upper(grp)"]
    for e in rng.sample(pool, rng.randint(1, 3)):
        col = e.split(" = ")[0]
        if any(x.startswith(col + " ") for x in sets): continue
        sets.append(e)
    wheres = ["", "WHERE id % 7 = 3", "WHERE grp = 'b'", "WHERE v > 300 AND n < 10", "WHERE s LIKE 'a%'",
              "WHERE n IS NULL", "WHERE d BETWEEN DATE '2024-01-05' AND DATE '2024-01-09'", "WHERE id < 40",
              "WHERE grp IS NULL OR id = 77", "WHERE false", "WHERE id IN (SELECT id FROM t WHERE n = 7)"]
    return f"UPDATE t SET {', '.join(sets)} {rng.choice(wheres)}".strip()

def gen_merge(rng, partitioned):
    on = rng.choice(["t.id = s.id", "t.id = s.id", "t.id = s.id AND t.grp = s.grp", "t.id + 0 = s.id - 0",
                     "t.id = s.id OR (t.id = -1 AND s.id = -1)"])   # the last: no hash key, every pair tried
    matched = [
        "WHEN MATCHED AND s.n > 20 THEN DELETE",
        "WHEN MATCHED AND t.v > 400 THEN UPDATE SET n = s.n, s = s.s || 'm'",
        "WHEN MATCHED AND s.grp IS NULL THEN UPDATE SET v = t.v + s.v",
    ]
    last_matched = ["", "WHEN MATCHED THEN UPDATE SET *", "WHEN MATCHED THEN DELETE",
                    "WHEN MATCHED THEN UPDATE SET n = coalesce(t.n, 0) + 1000"]
    not_matched = ["WHEN NOT MATCHED AND s.n IS NULL THEN INSERT (id, s) VALUES (s.id, 'was null')"]
    last_not_matched = ["", "WHEN NOT MATCHED THEN INSERT *",
                        "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.grp, s.v, s.n, s.d, upper(s.s))"]
    by_source = ["WHEN NOT MATCHED BY SOURCE AND t.id % 13 = 0 THEN DELETE",
                 "WHEN NOT MATCHED BY SOURCE AND t.n < -40 THEN UPDATE SET n = -1, s = 'orphan'"]
    clauses = rng.sample(matched, rng.randint(0, 2)) + [rng.choice(last_matched)]
    clauses += rng.sample(not_matched, rng.randint(0, 1)) + [rng.choice(last_not_matched)]
    clauses += rng.sample(by_source, rng.randint(0, 2))
    clauses = [c for c in clauses if c]
    if not clauses: clauses = ["WHEN MATCHED THEN DELETE"]
    return f"MERGE INTO {{T}} AS t USING {{S}} AS s ON {on} " + " ".join(clauses)

def live_files(table):
    logdir = os.path.join(table, "_delta_log")
    files = {}
    for f in sorted(x for x in os.listdir(logdir) if x.endswith(".json") and len(x) == 25):
        for line in open(os.path.join(logdir, f), encoding="utf-8"):
            a = json.loads(line)
            if "add" in a: files[a["add"]["path"]] = a["add"]
            if "remove" in a: files.pop(a["remove"]["path"], None)
    return files

def last_commit(table):
    v = version_of(table)
    for line in open(os.path.join(table, "_delta_log", "%020d.json" % v), encoding="utf-8"):
        a = json.loads(line)
        if "commitInfo" in a: return a["commitInfo"]
    return None

# every column as text, so both engines spell doubles the same way
SEL = "id, grp, CAST(v AS VARCHAR) AS v, n, d, s"

def version_of(table):
    logdir = os.path.join(table, "_delta_log")
    return max(int(x[:20]) for x in os.listdir(logdir) if x.endswith(".json") and len(x) == 25)

variants = [
    ("plain", "", ""),
    ("part", "PARTITIONED BY (grp)", ""),
    ("dv", "", "WITH ('delta.enableDeletionVectors' = 'true')"),
    ("cdf", "PARTITIONED BY (grp)", "WITH ('delta.enableChangeDataFeed' = 'true')"),
]
for vname, part, props in variants:
    rng = random.Random(seed * 31 + len(vname))
    tname = f"t_{vname}"
    db = os.path.join(d, f"{vname}.duckdb")
    setup = [f"CREATE TABLE t ({COLS}) {part} {props}"]
    for b in range(4):   # several files, so copy-on-write rewrites only some
        setup.append("INSERT INTO t VALUES " + ", ".join(source_rows(rng, b * 150, 150)))
    ok = True
    for st in setup:
        rc, out, err = tarn(st.replace(" t ", f" {tname} ", 1).replace("INTO t ", f"INTO {tname} "))
        if rc: report(False, f"{vname}: setup", err); ok = False; break
        drc, dout, derr = duck_q(db, st.replace(part, "").replace(props, ""))
        if drc: report(False, f"{vname}: duckdb setup", derr); ok = False; break
    if not ok: continue
    vprev = version_of(os.path.join(wh, tname))
    # the MERGE source: fresh ids and ids of the target, each once
    sname = f"src_{vname}"
    srows = source_rows(rng, 0, 200)
    ids = rng.sample(range(0, 800), 200)
    srows = [f"({i}," + r.split(",", 1)[1] for i, r in zip(ids, srows)]
    src_sql = f"CREATE TABLE {{S}} ({COLS}); INSERT INTO {{S}} VALUES " + ", ".join(srows)
    for q in src_sql.split("; "):
        rc, out, err = tarn(q.format(S=sname))
        if rc: report(False, f"{vname}: source setup", err)
    drc, dout, derr = duck_q(db, src_sql.format(S="src"))
    if drc: report(False, f"{vname}: duckdb source setup", derr)
    for k in range(12):
        if k % 2 == 0:
            st = gen_update(rng, bool(part))
            tst = st.replace("UPDATE t ", f"UPDATE {tname} ").replace("FROM t ", f"FROM {tname} ")
        else:
            st0 = gen_merge(rng, bool(part))
            tst, st = st0.format(T=tname, S=sname), st0.format(T="t", S="src")
        rc, out, err = tarn(tst)
        drc, dout, derr = duck_q(db, st)
        if (rc != 0) != (drc != 0):
            report(False, f"{vname}: statement {k} status differs: {st}", f"tarn rc={rc} {err}\nduckdb rc={drc} {derr}")
            break
        if rc == 0:
            # the row count: DuckDB's result against the commit's numUpdatedRows (no commit: 0)
            dc = int(rows_of(dout)[0][0])
            ci = last_commit(os.path.join(wh, tname))
            tc = 0
            if ci and version_of(os.path.join(wh, tname)) > vprev:
                om = ci.get("operationMetrics", {})
                if ci.get("operation") == "UPDATE": tc = int(om["numUpdatedRows"])
                if ci.get("operation") == "MERGE":
                    tc = sum(int(om[k]) for k in ("numTargetRowsUpdated", "numTargetRowsDeleted", "numTargetRowsInserted"))
            report(tc == dc, f"{vname}: statement {k} count: {st}", f"tarn {tc} duckdb {dc}")
        vprev = version_of(os.path.join(wh, tname))
        rc, tout, err = tarn(f"SELECT {SEL} FROM {tname}")
        drc, dout2, derr = duck_q(db, f"SELECT {SEL} FROM t")
        tr, dr = rows_of(tout), rows_of(dout2)
        same = rc == 0 and drc == 0 and tr == dr
        report(same, f"{vname}: rows after statement {k}: {st}",
               err + derr + "\n" + "\n".join(f"only tarn:   {x}" for x in sorted(set(tr) - set(dr))[:5]) +
               "\n" + "\n".join(f"only duckdb: {x}" for x in sorted(set(dr) - set(tr))[:5]))
        if not same: break
    table = os.path.join(wh, tname)
    if vname in ("plain", "part", "cdf"):
        # DuckDB reads the table's live files (copy-on-write: no deletion vectors) to the same rows
        files = live_files(table)
        flist = ",".join("'" + os.path.join(table, urllib.parse.unquote(p)).replace("'", "''") + "'" for p in files)
        cols = SEL
        drc, dout3, derr = duck_q(":memory:", f"SELECT {cols} FROM read_parquet([{flist}], hive_partitioning = {'true' if part else 'false'}, union_by_name = true)")
        rc, tout, err = tarn(f"SELECT {cols} FROM {tname}")
        report(drc == 0 and rows_of(dout3) == rows_of(tout), f"{vname}: DuckDB reads the live files", derr + err)
        report(all(not a.get("deletionVector") for a in files.values()), f"{vname}: copy-on-write writes no DV")
    if vname == "dv":
        # some UPDATE re-added a file with a deletion vector (a file whose rows all went is removed)
        logdir = os.path.join(table, "_delta_log")
        dv_adds = [l for x in sorted(os.listdir(logdir)) if x.endswith(".json")
                   for l in open(os.path.join(logdir, x), encoding="utf-8") if '"deletionVector"' in l and '"add"' in l]
        report(len(dv_adds) > 0, "dv: UPDATE wrote deletion vectors")
    if vname == "cdf":
        rc, out, err = tarn(f"SELECT _change_type, count(*) FROM table_changes('{tname}', 1) GROUP BY 1 ORDER BY 1")
        kinds = dict((r[0], int(r[1])) for r in rows_of(out)) if rc == 0 else {}
        report(rc == 0 and kinds.get("update_preimage", 0) == kinds.get("update_postimage", -1) and kinds.get("update_preimage", 0) > 0,
               "cdf: table_changes has matching update pre/post images", f"{err} {kinds}")
    # the last commit is an UPDATE with Delta's operation metrics
    last = None
    for x in sorted(os.listdir(os.path.join(table, "_delta_log"))):
        if x.endswith(".json") and len(x) == 25:
            for line in open(os.path.join(table, "_delta_log", x), encoding="utf-8"):
                a = json.loads(line)
                if "commitInfo" in a and a["commitInfo"].get("operation") == "UPDATE": last = a["commitInfo"]
    m = (last or {}).get("operationMetrics", {})
    report(last is not None and all(k in m for k in ("numUpdatedRows", "numCopiedRows", "numAddedFiles", "numRemovedFiles")),
           f"{vname}: commitInfo of UPDATE carries operation metrics", json.dumps(last))
    merges = [json.loads(l)["commitInfo"] for x in sorted(os.listdir(os.path.join(table, "_delta_log"))) if x.endswith(".json")
              for l in open(os.path.join(table, "_delta_log", x), encoding="utf-8") if '"operation":"MERGE"' in l]
    report(len(merges) > 0 and all(all(k in c.get("operationMetrics", {}) for k in ("numSourceRows", "numTargetRowsInserted",
           "numTargetRowsUpdated", "numTargetRowsDeleted", "numTargetRowsCopied", "numTargetFilesAdded")) for c in merges),
           f"{vname}: MERGE commits carry Delta's operation metrics", json.dumps(merges)[:800])

# statements that fail change nothing
rc, out, err = tarn("CREATE TABLE chk (id INT NOT NULL, v INT) WITH ('delta.constraints.v_pos' = 'v > 0')")
rc, out, err = tarn("INSERT INTO chk VALUES (1, 5), (2, 6), (3, 7)")
chk = os.path.join(wh, "chk")
v0 = version_of(chk)
cases = [
    ("UPDATE chk SET v = v - 6", "v_pos"),
    ("UPDATE chk SET id = NULL WHERE id = 2", "NOT NULL"),
    ("UPDATE chk SET nope = 1", "nope"),
    ("UPDATE chk SET v = 1, v = 2", "more than once"),
    ("UPDATE chk SET v = 'x'", "x"),
]
for st, want in cases:
    rc, out, err = tarn(st)
    report(rc != 0 and want in err and version_of(chk) == v0, f"refused: {st}", f"rc={rc} err={err}")
rc, out, err = tarn("SELECT id, v FROM chk ORDER BY id")
report(out.split() == ["id,v", "1,5", "2,6", "3,7"], "refused statements left chk as it was", out + err)
rc, out, err = tarn("CREATE TABLE dup AS SELECT * FROM (VALUES (1, 1), (1, 2), (5, 3)) x(id, v)")
merge_cases = [
    ("MERGE INTO chk USING dup ON chk.id = dup.id WHEN MATCHED THEN UPDATE SET v = dup.v", "multiple source rows matched"),
    ("MERGE INTO chk USING dup ON chk.id = dup.id WHEN NOT MATCHED THEN INSERT VALUES (dup.id, -dup.v)", "v_pos"),
    ("MERGE INTO chk USING dup ON chk.id = dup.id WHEN MATCHED THEN UPDATE SET nope = 1", "nope"),
    ("MERGE INTO chk USING dup ON chk.id = dup.id WHEN MATCHED THEN DELETE WHEN MATCHED AND dup.v > 1 THEN DELETE", "never apply"),
    ("MERGE INTO chk USING dup ON chk.id = dup.id WHEN NOT MATCHED THEN DELETE", "INSERT, not DELETE"),
    ("MERGE INTO chk USING (SELECT 1 AS k) s ON chk.id = s.k WHEN MATCHED THEN UPDATE SET *", "source column named 'id'"),
]
for st, want in merge_cases:
    rc, out, err = tarn(st)
    report(rc != 0 and want in err and version_of(chk) == v0, f"refused: {st}", f"rc={rc} err={err}")
# an unconditional DELETE may match a target row twice (Delta's exception)
rc, out, err = tarn("MERGE INTO chk USING dup ON chk.id = dup.id WHEN MATCHED THEN DELETE")
rc2, out2, err2 = tarn("SELECT id, v FROM chk ORDER BY id")
report(rc == 0 and out2.split() == ["id,v", "2,6", "3,7"], "MERGE ... WHEN MATCHED THEN DELETE with duplicate source rows", err + out2 + err2)
v0 = version_of(chk)
rc, out, err = tarn("CREATE TABLE ao (id INT) WITH ('delta.appendOnly' = 'true')")
rc, out, err = tarn("INSERT INTO ao VALUES (1)")
rc, out, err = tarn("UPDATE ao SET id = 2")
report(rc != 0 and "append-only" in err, "UPDATE of an append-only table is refused", err)
rc, out, err = tarn("UPDATE chk SET v = 100 WHERE id = 99")
report(rc == 0 and version_of(chk) == v0, "UPDATE matching nothing commits nothing", out + err)
# concurrent UPDATEs never lose an update: every one that succeeds is in the result, the others
# fail with a conflict (the files they read were rewritten by the winner)
tarn("CREATE TABLE cnt (id INT, n BIGINT)")
tarn("INSERT INTO cnt VALUES (1, 0), (2, 0)")
tarn("INSERT INTO cnt VALUES (3, 0)")
procs = [subprocess.Popen([tarn_bin, "-w", wh, "-c", "UPDATE cnt SET n = n + 1 WHERE id <= 2"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(6)]
results = [(p.wait(), p.stderr.read()) for p in procs]
ok_n = sum(1 for rc, _ in results if rc == 0)
bad = [e for rc, e in results if rc != 0 and "conflict" not in e.lower()]
rc, out, err = tarn("SELECT id, n FROM cnt ORDER BY id")
report(ok_n >= 1 and not bad and out.split() == ["id,n", f"1,{ok_n}", f"2,{ok_n}", "3,0"],
       "concurrent UPDATEs: no lost update, losers fail with a conflict", f"{ok_n} succeeded; {out}; {bad[:2]}")
# a blind append racing an UPDATE does not conflict (Delta's WriteSerializable)
p1 = subprocess.Popen([tarn_bin, "-w", wh, "-c", "UPDATE cnt SET n = n + 100 WHERE id = 3"], stderr=subprocess.PIPE, text=True)
p2 = subprocess.Popen([tarn_bin, "-w", wh, "-c", "INSERT INTO cnt VALUES (4, 0)"], stderr=subprocess.PIPE, text=True)
r1, r2 = p1.wait(), p2.wait()
rc, out, err = tarn("SELECT id, n FROM cnt WHERE id >= 3 ORDER BY id")
report(r1 == 0 and r2 == 0 and out.split() == ["id,n", "3,100", "4,0"], "UPDATE racing a blind append: both commit",
       f"{r1} {p1.stderr.read()} {r2} {p2.stderr.read()} {out}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
EOF
