#!/usr/bin/env bash
# tests/interop/stream_jobs.sh: continuous jobs (src/stream/, `tarn job ...`) end to end.
# (1) The seed use case: a job syncs raw_orders (appended by another process) into the bucketed
# verified_orders; stop with a savepoint; ALTER bucket 16 -> 32; INSERT OVERWRITE the current
# partition; restart from the savepoint; more appends; the table equals DuckDB's answer over
# every source row, each key once; a partition not rescaled gets Paimon's bucket-mismatch error
# (the job fails, nothing committed) and works once rescaled. (2) A running job keeps its bucket
# count across an ALTER; restarted, it gets the mismatch error. (3) GROUP BY with a join to a
# static table and functions into an aggregation-engine PK table keeps running totals equal to
# DuckDB's GROUP BY. (4, 5) Exactly once under 50 SIGKILLs each (random, and injected between
# commit and state write and before the commit) while the source grows, for a table and for a
# directory of CSV files. (5b) The taken set of a directory source stays bounded (watermark; names
# of files gone dropped) and still takes every file once, also files renamed in with an old
# mtime, and a removed file's name written again. (6) Bad input: a malformed file stops the job naming file and line,
# nothing of the batch committed; fixed or moved away, the job resumes. (7) Errors: name exists,
# not running, not a savepoint, stale savepoint, deletes in the source (ignoreDeletes); a damaged
# state.json or a position past the source's log refused naming the file and the problem.
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tarn
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_stream.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT   # checks every table written, then removes

python3 - "$BIN" "$dir" "$DUCK" <<'EOF'
import csv, glob, io, json, os, random, signal, subprocess, sys, threading, time
tarn, base, duck = sys.argv[1:4]
tarn = os.path.abspath(tarn)
wh = os.path.join(base, "wh")
os.makedirs(wh)
passed = failed = 0
rng = random.Random(20261202)
T0 = time.time()
def mark(what): print(f"# {time.time() - T0:.1f}s {what}")
jobs_started = set()

def report(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1; print(f"ok {name}")
    else:
        failed += 1; print(f"FAIL {name}"); print("    " + str(detail)[:3000].replace("\n", "\n    "))

def finish():
    # every job this suite started is stopped: no process outlives the suite
    for n in sorted(jobs_started):
        subprocess.run([tarn, "job", "cancel", n, "-w", wh], capture_output=True, text=True)
        pf = os.path.join(wh, "_jobs", n, "pid")
        try:
            os.kill(int(open(pf).read().strip()), signal.SIGKILL)
        except Exception:
            pass
    print(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)

def t(sql, check=True):
    r = subprocess.run([tarn, "-w", wh, "--csv", "-c", sql], capture_output=True, text=True)
    if check and r.returncode != 0:
        report(False, "tarn: " + sql[:200], r.stderr); finish()
    return r

def rows_of(out):
    return sorted(tuple(x) for x in list(csv.reader(io.StringIO(out)))[1:])

def d(sql):
    r = subprocess.run([duck, "-"], input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        report(False, "duckdb: " + sql[:300], r.stderr); finish()
    return r.stdout

def job(*args, env=None):
    if args[0] == "start": jobs_started.add(args[1])
    e = dict(os.environ)
    e.pop("TARN_JOB_FAULT", None)
    if env: e.update(env)
    return subprocess.run([tarn, "job", *args, "-w", wh], capture_output=True, text=True, env=e)

def status(name):
    r = job("status", name, "--json")
    if r.returncode != 0:
        return {"state": "missing", "error": r.stderr}
    return json.loads(r.stdout)

def wait_caught(name, timeout=90):
    """Until the job has read everything (lag 0) or stopped running; returns its status."""
    end = time.time() + timeout
    while True:
        st = status(name)
        if st["state"] != "running" or st["lag"] == 0 or time.time() > end:
            return st
        time.sleep(0.03)

def wait_not_running(name, timeout=30):
    end = time.time() + timeout
    while True:
        st = status(name)
        if st["state"] != "running" or time.time() > end:
            return st
        time.sleep(0.02)

def parquet_files(table):
    return "[" + ",".join("'" + p + "'" for p in sorted(glob.glob(os.path.join(wh, table, "**", "*.parquet"), recursive=True))
                          if "/_delta_log/" not in p) + "]"

def live_adds(table):
    logdir = os.path.join(wh, table, "_delta_log")
    files = {}
    for f in sorted(f for f in os.listdir(logdir) if f.endswith(".json") and len(f) == 25):
        for line in open(os.path.join(logdir, f), encoding="utf-8"):
            a = json.loads(line)
            if "add" in a: files[a["add"]["path"]] = a["add"]
            if "remove" in a: files.pop(a["remove"]["path"], None)
    return files

def versions(table):
    return len([f for f in os.listdir(os.path.join(wh, table, "_delta_log")) if f.endswith(".json") and len(f) == 25])

# ---------------------------------------------------------------------------------------------
# (1) the seed use case
t("CREATE TABLE raw_orders (trade_order_id BIGINT, item_id BIGINT, item_price DOUBLE, order_status STRING, "
  "gmt_create TIMESTAMP)")
t("CREATE TABLE verified_orders (trade_order_id BIGINT, item_id BIGINT, item_price DOUBLE, dt STRING, "
  "PRIMARY KEY (dt, trade_order_id, item_id) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '16')")
next_id = [1]
def append_orders(n, days):
    vals = []
    for _ in range(n):
        i = next_id[0]; next_id[0] += 1
        day = rng.choice(days)
        st = rng.choice(["verified", "verified", "created", "canceled"])
        vals.append(f"({i}, {rng.randint(1, 40)}, {rng.randint(1, 400) / 4}, '{st}', "
                    f"TIMESTAMP '{day} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00')")
    t("INSERT INTO raw_orders VALUES " + ", ".join(vals))

SEED = ("INSERT INTO verified_orders SELECT trade_order_id, item_id, item_price, "
        "DATE_FORMAT(gmt_create, 'yyyy-MM-dd') AS dt FROM raw_orders WHERE order_status = 'verified'")

def seed_equal(label):
    got = rows_of(t("SELECT trade_order_id, item_id, CAST(item_price * 4 AS BIGINT), dt FROM verified_orders").stdout)
    want = rows_of(d(f"SELECT trade_order_id, item_id, CAST(item_price * 4 AS BIGINT), strftime(gmt_create, '%Y-%m-%d') AS dt "
                     f"FROM read_parquet({parquet_files('raw_orders')}) WHERE order_status = 'verified'"))
    keys = [r[:2] + r[3:] for r in got]
    report(got == want and len(set(keys)) == len(keys), label,
           f"tarn {len(got)} rows, DuckDB {len(want)}; first differences: "
           f"{sorted(set(got) ^ set(want))[:5]}; keys twice: {len(keys) - len(set(keys))}")

days3 = ["2022-06-20", "2022-06-21", "2022-06-22"]
append_orders(200, days3)
r = job("start", "seed", "-c", SEED, "--poll-interval", "100ms")
report(r.returncode == 0 and "started" in r.stdout, "seed: job start (daemon)", r.stderr)
for _ in range(8):                                  # another process appends while it runs
    append_orders(30, days3)
    time.sleep(0.05)
st = wait_caught("seed")
report(st["state"] == "running" and st["lag"] == 0 and st["batches"] >= 1, "seed: status running, caught up", st)
seed_equal("seed: verified_orders equals DuckDB while running")
sp = os.path.join(base, "seed.savepoint")
r = job("stop", "seed", "--savepoint", sp)
report(r.returncode == 0 and os.path.exists(sp) and "savepoint" in r.stdout, "seed: stop with savepoint", r.stdout + r.stderr)
report(status("seed")["state"] == "stopped", "seed: state stopped after stop")
t("ALTER TABLE verified_orders SET ('bucket' = '32')")
t("INSERT OVERWRITE verified_orders PARTITION (dt = '2022-06-22') SELECT trade_order_id, item_id, item_price "
  "FROM verified_orders WHERE dt = '2022-06-22'")
append_orders(60, ["2022-06-22"])                   # the source grows while the job is stopped
r = job("start", "seed", "--from-savepoint", sp, "--poll-interval", "100ms")
report(r.returncode != 0 and "options are given with -c" in r.stderr, "seed: options only at creation", r.stderr)
r = job("start", "seed", "--from-savepoint", sp)
report(r.returncode == 0, "seed: start from the savepoint", r.stderr)
for _ in range(5):
    append_orders(40, ["2022-06-22", "2022-06-23"])   # the rescaled partition and a new one
    time.sleep(0.05)
st = wait_caught("seed")
report(st["state"] == "running" and st["lag"] == 0, "seed: caught up after the restart", st)
seed_equal("seed: after savepoint, rescale and restart: equals DuckDB, every key once")
counts = {}
for a in live_adds("verified_orders").values():
    counts.setdefault(a["partitionValues"]["dt"], set()).add(a["tags"]["bucketCount"])
report(counts.get("2022-06-22") == {"32"} and counts.get("2022-06-23") == {"32"} and counts.get("2022-06-20") == {"16"},
       "seed: the rescaled partition and a new one have 32 buckets, the others keep 16", counts)
# Flink's rule for a restarted job: a partition not rescaled is refused with Paimon's message
v0 = versions("verified_orders")
append_orders(5, ["2022-06-20"])
next_id[0] += 0
st = wait_not_running("seed")
err = st.get("last_error") or ""
report(st["state"] == "failed" and "Try to write partition" in err and "new bucket num 32, but the previous bucket "
       "num is 16" in err and "INSERT OVERWRITE" in err, "seed: not-rescaled partition: Paimon's mismatch error", st)
report(versions("verified_orders") == v0, "seed: the failed batch committed nothing", versions("verified_orders"))
log = open(os.path.join(wh, "_jobs", "seed", "log")).read()
report("Try to write partition" in log, "seed: the error is in the job's log")
t("INSERT OVERWRITE verified_orders SELECT trade_order_id, item_id, item_price, dt FROM verified_orders "
  "WHERE dt IN ('2022-06-20', '2022-06-21')")
r = job("start", "seed")
report(r.returncode == 0, "seed: resume after rescaling the partition", r.stderr)
append_orders(50, days3)
st = wait_caught("seed")
report(st["state"] == "running" and st["lag"] == 0, "seed: caught up again", st)
seed_equal("seed: final table equals DuckDB over all source rows, every key once")
r = job("stop", "seed")
report(r.returncode == 0, "seed: stop", r.stderr)

# ---------------------------------------------------------------------------------------------
# (2) a running job keeps its bucket count; a restarted one gets the mismatch error
mark("seed done")
t("CREATE TABLE src2 (k BIGINT, v BIGINT)")
t("CREATE TABLE pk2 (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '4')")
t("INSERT INTO src2 SELECT range, range * 10 FROM range(0, 100)")
r = job("start", "keep", "-c", "INSERT INTO pk2 SELECT k, v FROM src2", "--poll-interval", "50ms")
st = wait_caught("keep")
t("ALTER TABLE pk2 SET ('bucket' = '8')")
t("INSERT INTO src2 SELECT range, range * 10 FROM range(100, 200)")
st = wait_caught("keep")
tags = {a["tags"]["bucketCount"] for a in live_adds("pk2").values()}
got = rows_of(t("SELECT count(*), count(DISTINCT k), sum(v) FROM pk2").stdout)
report(st["state"] == "running" and tags == {"4"} and got == [("200", "200", "199000")],
       "running job: ALTER bucket does not affect it (keeps writing 4 buckets)", (st, tags, got))
job("stop", "keep")
job("start", "keep")
t("INSERT INTO src2 VALUES (500, 5000)")
st = wait_not_running("keep")
report(st["state"] == "failed" and "Try to write table with a new bucket num 8, but the previous bucket num is 4"
       in (st.get("last_error") or ""), "restarted job: Paimon's mismatch error after the ALTER", st)

# ---------------------------------------------------------------------------------------------
# (3) GROUP BY + join with a static table + functions into an aggregation-engine PK table
mark("bucket rules done")
t("CREATE TABLE items (item_id BIGINT, name STRING, factor DOUBLE)")
t("INSERT INTO items SELECT range, 'item' || range, (range % 3) + 1 FROM range(1, 41)")
t("CREATE TABLE totals (item_id BIGINT, label STRING, n BIGINT, revenue DOUBLE, PRIMARY KEY (item_id) NOT ENFORCED) "
  "WITH ('merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', "
  "'fields.revenue.aggregate-function' = 'sum', 'fields.label.aggregate-function' = 'last_value')")
AGG = ("INSERT INTO totals SELECT o.item_id, upper(i.name), count(*), sum(o.item_price * i.factor) "
       "FROM raw_orders o JOIN items i ON o.item_id = i.item_id WHERE o.order_status <> 'canceled' "
       "GROUP BY o.item_id, upper(i.name)")
r = job("start", "agg", "-c", AGG, "--poll-interval", "50ms", "--max-batch-files", "2")
report(r.returncode == 0, "agg: job start", r.stderr)
for _ in range(6):
    append_orders(25, days3)
st = wait_caught("agg")
got = rows_of(t("SELECT item_id, label, n, CAST(revenue * 4 AS BIGINT) FROM totals").stdout)
want = rows_of(d(f"SELECT o.item_id, upper(i.name), count(*), CAST(sum(o.item_price * i.factor) * 4 AS BIGINT) FROM "
                 f"read_parquet({parquet_files('raw_orders')}) o JOIN read_parquet({parquet_files('items')}) i "
                 f"ON o.item_id = i.item_id WHERE o.order_status <> 'canceled' GROUP BY o.item_id, upper(i.name)"))
report(st["state"] == "running" and st["batches"] >= 4 and got == want,
       "agg: running totals (join, functions, GROUP BY, aggregation merge engine) equal DuckDB",
       f"{st}; {sorted(set(got) ^ set(want))[:6]}")
job("stop", "agg")

# ---------------------------------------------------------------------------------------------
# (4, 5) exactly once under SIGKILLs while the source grows
def kill_cycles(name, sql, grow, source_ids, target_table, cycles=50, extra_env=None):
    stop = threading.Event()
    pause = threading.Event()
    idle = threading.Event()
    def appender():
        while not stop.is_set():
            if not pause.is_set():
                idle.clear(); grow()
            else:
                idle.set()           # paused, and no append in flight
            time.sleep(0.06)
    th = threading.Thread(target=appender); th.start()
    dup_fail = []; eq_fail = []; kinds = {"random": 0, "after-commit": 0, "before-commit": 0}
    modes = [["random", "after-commit", "before-commit"][c % 3] for c in range(cycles)]
    def start_env(c):   # the job restarted before cycle c dies at that cycle's fault point, if any
        e = dict(extra_env or {})
        if c < cycles and modes[c] != "random": e.update({"TARN_JOB_FAULT": modes[c], "TARN_JOB_FAULT_PCT": "100"})
        return e
    try:
        r = job("start", name, "-c", sql, "--poll-interval", "20ms", "--max-batch-files", "3", env=start_env(0))
        if r.returncode != 0: report(False, f"{name}: start", r.stderr); return
        for c in range(cycles):
            mode = modes[c]
            if mode == "random":
                time.sleep(rng.random() * 0.25)
                try:
                    pid = int(open(os.path.join(wh, "_jobs", name, "pid")).read().strip())
                    os.kill(pid, signal.SIGKILL)
                except Exception:
                    pass
            st = wait_not_running(name)
            if st["state"] == "running": report(False, f"{name}: the job did not die", st); return
            kinds[mode] += 1
            ids = [int(x[0]) for x in rows_of(t(f"SELECT id FROM {target_table}").stdout)]
            src = set(source_ids())
            if len(ids) != len(set(ids)) or not set(ids) <= src:
                dup_fail.append((c, mode, len(ids) - len(set(ids)), len(set(ids) - src)))
            check = c % 10 == 9 or c == cycles - 1
            r = job("start", name, env=extra_env if check else start_env(c + 1))
            if r.returncode != 0: report(False, f"{name}: restart", r.stderr); return
            if check:
                idle.clear(); pause.set(); idle.wait(30)
                st = wait_caught(name)
                ids = sorted(int(x[0]) for x in rows_of(t(f"SELECT id FROM {target_table}").stdout))
                want = sorted(source_ids())
                if st["state"] != "running" or ids != want:
                    eq_fail.append((c, st["state"], len(ids), len(want)))
                pause.clear()
                if c + 1 < cycles and modes[c + 1] != "random":
                    job("stop", name)
                    job("start", name, env=start_env(c + 1))
    finally:
        stop.set(); th.join()
    log = open(os.path.join(wh, "_jobs", name, "log")).read()
    recovered = log.count("was committed to the target before the job stopped")
    replanned = log.count("was not committed before the job stopped")
    report(not dup_fail, f"{name}: {cycles} SIGKILLs {kinds}: never a duplicate or foreign row", dup_fail[:5])
    report(not eq_fail, f"{name}: after restarts the target equals the source (no loss, no duplicate)", eq_fail[:5])
    report(recovered >= kinds["after-commit"] and replanned >= 1,
           f"{name}: kills between commit and state write recovered ({recovered}), uncommitted batches planned "
           f"again ({replanned})")
    st = wait_caught(name)
    ids = sorted(int(x[0]) for x in rows_of(t(f"SELECT id FROM {target_table}").stdout))
    report(ids == sorted(source_ids()), f"{name}: final target equals the source", (len(ids), len(source_ids())))
    job("stop", name)

mark("agg done")
t("CREATE TABLE src3 (id BIGINT, v BIGINT)")
t("CREATE TABLE tgt3 (id BIGINT, v BIGINT)")
tid = [0]
def grow_table():
    a = tid[0]; tid[0] += 20
    subprocess.run([tarn, "-w", wh, "-c", f"INSERT INTO src3 SELECT range, range % 7 FROM range({a}, {a + 20})"],
                   capture_output=True)
def table_ids():
    return [int(x[0]) for x in rows_of(t("SELECT id FROM src3").stdout)]
kill_cycles("eo_table", "INSERT INTO tgt3 SELECT id, v * 2 FROM src3 WHERE v >= 0", grow_table, table_ids, "tgt3")

mark("eo_table done")
incoming = os.path.join(base, "incoming")
os.makedirs(incoming)
t("CREATE TABLE tgt4 (id BIGINT, v BIGINT)")
fid = [0]
made = []
def grow_files():
    k = fid[0]; fid[0] += 1
    rows = "".join(f"{k * 20 + i},{i}\n" for i in range(20))
    tmp = os.path.join(incoming, f".f{k:05d}.tmp")
    with open(tmp, "w") as f: f.write("id,v\n" + rows)
    made.extend(k * 20 + i for i in range(20))
    os.rename(tmp, os.path.join(incoming, f"f{k:05d}.csv"))   # files appear whole
# a 150 ms settle time: the files position's watermark moves (and drops names) all the time
kill_cycles("eo_files", f"INSERT INTO tgt4 SELECT id, v FROM read_csv('{incoming}/*.csv')", grow_files,
            lambda: list(made), "tgt4", extra_env={"TARN_JOB_FILE_SETTLE_MS": "150"})
st = json.load(open(os.path.join(wh, "_jobs", "eo_files", "state.json")))
report(st["position"]["watermark_ns"] > 0 and len(st["position"]["taken"]) < fid[0] // 2,
       "eo_files: the taken set stays small (watermark)", (len(st["position"]["taken"]), fid[0]))

# ---------------------------------------------------------------------------------------------
# (5b) the taken set is bounded: a watermark covers settled files, names of files gone are dropped
mark("eo_files done")
many = os.path.join(base, "many")
os.makedirs(many)
t("CREATE TABLE tgt8 (id BIGINT, v BIGINT)")
def put(name, ids, old_mtime=False):
    tmp = os.path.join(many, "." + name)
    with open(tmp, "w") as f: f.write("id,v\n" + "".join(f"{i},1\n" for i in ids))
    if old_mtime: os.utime(tmp, (946684800, 946684800))     # written long ago, renamed in now
    os.rename(tmp, os.path.join(many, name))
for k in range(120): put(f"a{k:04d}.csv", [k])
SETTLE = {"TARN_JOB_FILE_SETTLE_MS": "300"}
def taken_state():
    return json.load(open(os.path.join(wh, "_jobs", "many", "state.json")))["position"]
def ids8():
    return sorted(int(x[0]) for x in rows_of(t("SELECT id FROM tgt8").stdout))
r = job("start", "many", "-c", f"INSERT INTO tgt8 SELECT id, v FROM read_csv('{many}/*.csv')", "--poll-interval",
        "50ms", "--max-batch-files", "25", env=SETTLE)
st = wait_caught("many")
time.sleep(0.8)                                        # settled; an idle poll drops their names
pos = taken_state()
report(st["state"] == "running" and ids8() == list(range(120)) and pos["watermark_ns"] > 0 and pos["taken"] == [],
       "bounded: 120 files taken in 5 batches, then only the watermark remembers them", (st, len(pos["taken"])))
for k in range(0, 120, 6): os.unlink(os.path.join(many, f"a{k:04d}.csv"))   # consumed files removed
for k in range(120, 150): put(f"b{k:04d}.csv", [k], old_mtime=True)         # mtime before the watermark
st = wait_caught("many")
report(ids8() == list(range(150)), "bounded: files renamed in with an old mtime are taken (ctime), once each",
       len(ids8()))
job("stop", "many")
put("a0000.csv", [150])                              # a removed file's name again: a new file
for k in range(151, 160): put(f"c{k:04d}.csv", [k])
job("start", "many", env=SETTLE)
st = wait_caught("many")
time.sleep(0.8)
pos = taken_state()
report(ids8() == list(range(160)) and len(pos["taken"]) == 0 and st["lag"] == 0,
       "bounded: after a restart, new files once each, nothing taken twice; the set is empty again",
       (len(ids8()), pos["taken"][:5], st))
job("stop", "many")

# ---------------------------------------------------------------------------------------------
# (6) bad input in a directory source
mark("bounded done")
bad = os.path.join(base, "bad")
os.makedirs(bad)
t("CREATE TABLE tgt5 (id BIGINT, name STRING)")
open(os.path.join(bad, "a.csv"), "w").write("id,name\n1,a\n2,b\n")
r = job("start", "bad", "-c", f"INSERT INTO tgt5 SELECT * FROM read_json('{bad}/*.json')")
report(r.returncode == 0, "bad: a pattern matching nothing yet starts", r.stderr)
job("cancel", "bad"); job("drop", "bad")
r = job("start", "bad", "-c", f"INSERT INTO tgt5 SELECT * FROM read_csv('{bad}/*.csv')", "--poll-interval", "50ms")
st = wait_caught("bad")
job("stop", "bad")
open(os.path.join(bad, "b.csv"), "w").write("id,name\n3,c\n4,d\n")
open(os.path.join(bad, "c.csv"), "w").write("id,name\n5,e\n6,f,g\n7,h\n")
v0 = versions("tgt5")
job("start", "bad")
st = wait_not_running("bad")
err = st.get("last_error") or ""
report(st["state"] == "failed" and "c.csv: line 3" in err, "bad: a malformed file stops the job naming file and line", st)
report(versions("tgt5") == v0 and rows_of(t("SELECT count(*) FROM tgt5").stdout) == [("2",)],
       "bad: nothing of the batch was committed (not even the good file in it)")
open(os.path.join(bad, "c.csv"), "w").write("id,name\n5,e\n6,f\n7,h\n")
r = job("start", "bad")
st = wait_caught("bad")
report(st["state"] == "running" and rows_of(t("SELECT id FROM tgt5").stdout) == [(str(i),) for i in range(1, 8)],
       "bad: after the file is fixed the job resumes and takes it", st)
job("stop", "bad")
open(os.path.join(bad, "e.csv"), "w").write("id,name\n8,i\n")
open(os.path.join(bad, "f.csv"), "w").write("id,name\n9,j\nxyz,k\n")
job("start", "bad")
st = wait_not_running("bad")
err = st.get("last_error") or ""
report(st["state"] == "failed" and "f.csv: line 3" in err and "xyz" in err, "bad: a value that does not parse names "
       "file, line and column", st)
os.rename(os.path.join(bad, "f.csv"), os.path.join(base, "f.csv.moved"))
job("start", "bad")
st = wait_caught("bad")
report(st["state"] == "running" and rows_of(t("SELECT count(*) FROM tgt5").stdout) == [("8",)],
       "bad: after the file is moved away the job resumes", st)
job("stop", "bad")
# the first file of a batch: its column types are sniffed from it (id becomes VARCHAR), so the bad
# value fails the cast to the target's BIGINT, not the reader; the error still names file and line
open(os.path.join(bad, "h.csv"), "w").write("id,name\n11,m\nabc,n\n12,o\n")
v0 = versions("tgt5")
job("start", "bad")
st = wait_not_running("bad")
err = st.get("last_error") or ""
report(st["state"] == "failed" and "h.csv: line 3, column 'id'" in err and "'abc'" in err and versions("tgt5") == v0,
       "bad: a bad value in the first file of a batch names file, line and column; nothing committed", st)
os.rename(os.path.join(bad, "h.csv"), os.path.join(base, "h.csv.moved"))
job("start", "bad")
st = wait_caught("bad")
report(st["state"] == "running" and rows_of(t("SELECT count(*) FROM tgt5").stdout) == [("8",)],
       "bad: after that file is moved away the job resumes", st)
job("stop", "bad")

# ---------------------------------------------------------------------------------------------
# (7) errors
r = job("start", "bad", "-c", "INSERT INTO tgt5 SELECT * FROM tgt5")
report(r.returncode == 1 and "job 'bad' already exists" in r.stderr, "errors: job name exists", r.stderr)
job("start", "bad")
r = job("start", "bad")
report(r.returncode == 1 and "already running" in r.stderr, "errors: job already running", r.stderr)
job("cancel", "bad")
r = job("stop", "bad")
report(r.returncode == 1 and "job 'bad' is not running (state: canceled)" in r.stderr, "errors: stop a job that is "
       "not running", r.stderr)
r = job("cancel", "nosuch")
report(r.returncode == 1 and "does not exist" in r.stderr, "errors: cancel an unknown job", r.stderr)
notsp = os.path.join(base, "notsp.json"); open(notsp, "w").write('{"hello": 1}\n')
r = job("start", "bad", "--from-savepoint", notsp)
report(r.returncode == 1 and "is not a tarn job savepoint" in r.stderr, "errors: a savepoint path that is not a savepoint",
       r.stderr)
r = job("start", "bad", "--from-savepoint", os.path.join(base, "missing.json"))
report(r.returncode == 1 and "does not exist" in r.stderr, "errors: a missing savepoint", r.stderr)
# a stale savepoint (older than batches already committed) is refused
sp1 = os.path.join(base, "bad1.savepoint")
job("start", "bad"); st = wait_caught("bad"); job("stop", "bad", "--savepoint", sp1)
open(os.path.join(bad, "g.csv"), "w").write("id,name\n10,l\n")
job("start", "bad"); st = wait_caught("bad"); job("stop", "bad")
r = job("start", "bad", "--from-savepoint", sp1)
report(r.returncode == 1 and "is stale" in r.stderr, "errors: a stale savepoint", r.stderr)
r = job("start", "x1", "-c", "SELECT 1")
report(r.returncode == 1 and "INSERT INTO target SELECT" in r.stderr, "errors: not an INSERT ... SELECT", r.stderr)
r = job("start", "x2", "-c", "INSERT INTO tgt5 SELECT * FROM tgt5", "--option", "speed=fast")
report(r.returncode == 1 and "unknown job option 'speed'" in r.stderr, "errors: unknown option", r.stderr)
# deletes in a table source: refused by default, skipped with ignoreDeletes
t("CREATE TABLE src6 (id BIGINT)"); t("CREATE TABLE tgt6 (id BIGINT)"); t("CREATE TABLE tgt7 (id BIGINT)")
t("INSERT INTO src6 SELECT range FROM range(0, 10)")
job("start", "del1", "-c", "INSERT INTO tgt6 SELECT id FROM src6", "--poll-interval", "50ms")
job("start", "del2", "-c", "INSERT INTO tgt7 SELECT id FROM src6", "--poll-interval", "50ms",
    "--option", "ignoreDeletes=true")
wait_caught("del1"); wait_caught("del2")
t("DELETE FROM src6 WHERE id < 10")
t("INSERT INTO src6 VALUES (100)")
st1 = wait_not_running("del1", timeout=5)
report(st1["state"] == "failed" and "deletes data" in (st1.get("last_error") or "") and "ignoreDeletes=true" in
       (st1.get("last_error") or ""), "deletes: a job refuses a source commit that deletes (names ignoreDeletes)", st1)
st2 = wait_caught("del2")
report(st2["state"] == "running" and rows_of(t("SELECT count(*) FROM tgt7").stdout) == [("11",)],
       "deletes: with ignoreDeletes the job skips it and goes on", st2)
job("stop", "del2")
# strict job files: a damaged state.json, or a position no state of the source can hold, stops the
# start with the file and the problem named; the good state works again
t("CREATE TABLE src9 (id BIGINT)"); t("CREATE TABLE tgt9 (id BIGINT)")
t("INSERT INTO src9 VALUES (1)")
job("start", "st9", "-c", "INSERT INTO tgt9 SELECT id FROM src9", "--poll-interval", "50ms")
wait_caught("st9"); job("stop", "st9")
stp = os.path.join(wh, "_jobs", "st9", "state.json")
good = open(stp).read()
gj = json.loads(good)
def with_state(text, want, label):
    open(stp, "w").write(text)
    r = job("start", "st9")
    s = job("status", "st9")
    report(r.returncode == 1 and f"job state '{stp}'" in r.stderr and want in r.stderr and want in s.stdout + s.stderr,
           "strict state: " + label, r.stdout + r.stderr + s.stdout + s.stderr)
with_state(good[:len(good) // 2], "line ", "a truncated state.json")
with_state(json.dumps({**gj, "batch": "1"}), "field 'batch': expected an integer, got a string", "a mistyped field")
with_state(json.dumps({**gj, "position": {"kind": "files", "taken": []}}),
           "field 'position' is a files position, but the job's source src9 is a table", "a position of another kind")
with_state(json.dumps({**gj, "position": {"kind": "table", "version": 99, "index": 0, "snapshot": False}}),
           "is past the source's latest version 1", "a version past the source's log")
with_state(json.dumps({**gj, "position": {"kind": "table", "version": 1, "index": 5, "snapshot": False}}),
           "past that version's 1 data files", "an index past the version's data files")
open(stp, "w").write(good)
t("INSERT INTO src9 VALUES (2)")
r = job("start", "st9"); st = wait_caught("st9")
report(r.returncode == 0 and rows_of(t("SELECT id FROM tgt9").stdout) == [("1",), ("2",)],
       "strict state: the good state.json resumes exactly", (r.stderr, st))
job("stop", "st9")
# every source kind and option: read_parquet and read_json directories, delta_scan('path'),
# starting-version latest and N, ignoreChanges (refused by name, then honoured); table-source
# options on a file pattern and flags of another verb refused; cancel, then resume exactly
mark("sources and options")
def ids_of(table): return sorted(int(x[0]) for x in rows_of(t(f"SELECT id FROM {table}").stdout))
for fmt in ("parquet", "json"):
    d_ = os.path.join(base, "in_" + fmt); os.makedirs(d_)
    t(f"CREATE TABLE tf_{fmt} (id BIGINT, name STRING)")
    def put_f(k, fmt=fmt, d_=d_):
        tmp = os.path.join(base, f"tmp{k}.{fmt}")
        t(f"COPY (SELECT range AS id, 'n' || range AS name FROM range({k * 10}, {k * 10 + 10})) TO '{tmp}' (FORMAT {fmt})")
        os.rename(tmp, os.path.join(d_, f"f{k}.{fmt}"))
    put_f(0)
    r = job("start", "j_" + fmt, "-c", f"INSERT INTO tf_{fmt} SELECT id, name FROM read_{fmt}('{d_}/*.{fmt}')",
            "--poll-interval", "50ms")
    wait_caught("j_" + fmt)
    put_f(1); put_f(2)
    st = wait_caught("j_" + fmt)
    got = ids_of(f"tf_{fmt}")
    report(r.returncode == 0 and st["state"] == "running" and got == list(range(30)),
           f"sources: a read_{fmt} directory, new files once each", (r.stderr, st, got[:5], len(got)))
    job("stop", "j_" + fmt)
t("CREATE TABLE s11 (id BIGINT, v BIGINT)"); t("CREATE TABLE t11a (id BIGINT)"); t("CREATE TABLE t11b (id BIGINT)")
t("CREATE TABLE t11c (id BIGINT)")
t("INSERT INTO s11 SELECT range, 0 FROM range(0, 10)")        # version 1
t("INSERT INTO s11 SELECT range, 0 FROM range(10, 20)")       # version 2
r1 = job("start", "j11a", "-c", f"INSERT INTO t11a SELECT id FROM delta_scan('{wh}/s11')", "--poll-interval", "50ms")
r2 = job("start", "j11b", "-c", "INSERT INTO t11b SELECT id FROM s11", "--poll-interval", "50ms",
         "--starting-version", "latest")
r3 = job("start", "j11c", "-c", "INSERT INTO t11c SELECT id FROM s11", "--poll-interval", "50ms",
         "--option", "starting-version=2")
for n in ("j11a", "j11b", "j11c"): wait_caught(n)
t("INSERT INTO s11 SELECT range, 0 FROM range(20, 25)")
sts = [wait_caught(n) for n in ("j11a", "j11b", "j11c")]
report(all(r.returncode == 0 for r in (r1, r2, r3)) and ids_of("t11a") == list(range(25)),
       "sources: delta_scan('path') streams the snapshot, then new commits", (r1.stderr, sts[0]))
report(ids_of("t11b") == list(range(20, 25)), "options: starting-version latest takes only new commits", ids_of("t11b"))
report(ids_of("t11c") == list(range(10, 25)), "options: starting-version 2 starts at that version's commit",
       ids_of("t11c"))
r = job("start", "j11d", "-c", "INSERT INTO t11a SELECT id FROM s11", "--starting-version", "9")
report(r.returncode == 1 and "starting-version = 9: source s11 is at version 3" in r.stderr,
       "options: a starting-version past the source is refused", r.stderr)
# ignoreChanges: an UPDATE rewrites a file; refused by default naming the option, taken with it
job("stop", "j11a")
t("CREATE TABLE t11e (id BIGINT)")
r = job("start", "j11e", "-c", "INSERT INTO t11e SELECT id FROM s11", "--poll-interval", "50ms",
        "--option", "ignoreChanges=true")
wait_caught("j11e")
t("UPDATE s11 SET v = 1 WHERE id = 3")                        # rewrites the file of ids 0-9
st_b = wait_not_running("j11b", timeout=5)
st_e = wait_caught("j11e")
report(st_b["state"] == "failed" and "rewrites data" in (st_b.get("last_error") or "") and "ignoreChanges=true" in
       (st_b.get("last_error") or ""), "options: a commit that rewrites data is refused naming ignoreChanges", st_b)
# appends before a refused commit are still taken: the batch stops short of it
t("CREATE TABLE s13 (id BIGINT, v BIGINT)"); t("CREATE TABLE t13 (id BIGINT)")
t("INSERT INTO s13 SELECT range, 0 FROM range(0, 5)")
job("start", "j13", "-c", "INSERT INTO t13 SELECT id FROM s13", "--poll-interval", "50ms")
wait_caught("j13"); job("stop", "j13")
t("INSERT INTO s13 SELECT range, 0 FROM range(5, 10)")
t("DELETE FROM s13 WHERE id = 0")                             # copy-on-write: rewrites a file
job("start", "j13")
st = wait_not_running("j13", timeout=10)
report(st["state"] == "failed" and "rewrites data" in (st.get("last_error") or "") and ids_of("t13") == list(range(10)),
       "options: the appends before a refused commit are committed, the job stops at it", (st, ids_of("t13")))
report(st_e["state"] == "running" and ids_of("t11e") == sorted(list(range(25)) + list(range(10))),
       "options: with ignoreChanges the rewritten file is taken again", (st_e, len(ids_of("t11e"))))
for n in ("j11c", "j11e"): job("stop", n)
# cancel: the batch in flight commits nothing; a later start resumes from the last committed batch
t("CREATE TABLE s11f (id BIGINT)"); t("CREATE TABLE t11f (id BIGINT)")
t("INSERT INTO s11f SELECT range FROM range(0, 25)")
job("start", "j11f", "-c", "INSERT INTO t11f SELECT id FROM s11f", "--poll-interval", "50ms")
wait_caught("j11f")
r = job("cancel", "j11f")
st = status("j11f")
t("INSERT INTO s11f SELECT range FROM range(25, 30)")
job("start", "j11f"); st2 = wait_caught("j11f")
report(r.returncode == 0 and st["state"] == "canceled" and st2["state"] == "running" and
       ids_of("t11f") == list(range(30)), "cancel, then start: resumes from the last committed batch, exactly",
       (st, st2, ids_of("t11f")))
job("stop", "j11f")
# each batch is one target commit carrying txn (appId = the job's app_id, version = its batch number)
app = json.load(open(os.path.join(wh, "_jobs", "j11f", "job.json")))["app_id"]
per_commit = []
for f in sorted(os.listdir(os.path.join(wh, "t11f", "_delta_log"))):
    if not (f.endswith(".json") and len(f) == 25) or f.startswith("0" * 20): continue
    acts = [json.loads(l) for l in open(os.path.join(wh, "t11f", "_delta_log", f))]
    per_commit.append([(a["txn"]["appId"], a["txn"]["version"]) for a in acts if "txn" in a])
report(per_commit == [[(app, b)] for b in range(1, len(per_commit) + 1)] and len(per_commit) == status("j11f")["batches"],
       "txn: every batch is one commit with txn (the job's appId, its batch number)", per_commit)
# --foreground: the job runs in the calling process until stopped
t("INSERT INTO s11f VALUES (30)")
fg = subprocess.Popen([tarn, "job", "start", "j11f", "-w", wh, "--foreground"], stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)
time.sleep(0.3)
st = wait_caught("j11f")
r = job("stop", "j11f")
try:
    out, err = fg.communicate(timeout=30)
except subprocess.TimeoutExpired:
    fg.kill(); out, err = fg.communicate()
report(st["state"] == "running" and st["pid"] == fg.pid and fg.returncode == 0 and ids_of("t11f") == list(range(31))
       and "stopped at batch" in err, "--foreground: runs in the calling process (its log on stderr), stops on `job stop`",
       (st, fg.returncode, err[-500:]))
r = job("start", "j12", "-c", f"INSERT INTO tgt5 SELECT * FROM read_csv('{bad}/*.csv')", "--starting-version", "latest")
report(r.returncode == 1 and "starting-version applies to a table source" in r.stderr,
       "options: starting-version on a file pattern is refused", r.stderr)
r = job("start", "j12", "-c", f"INSERT INTO tgt5 SELECT * FROM read_csv('{bad}/*.csv')", "--option", "ignoreDeletes=true")
report(r.returncode == 1 and "ignoreDeletes applies to a table source" in r.stderr,
       "options: ignoreDeletes on a file pattern is refused", r.stderr)
r = job("stop", "j11f", "--from-savepoint", "x")
r2 = job("status", "j11f", "--savepoint", "x")
report(r.returncode != 0 and "--from-savepoint does not apply" in r.stderr and r2.returncode != 0 and
       "--savepoint does not apply" in r2.stderr, "flags of another verb are refused", r.stderr + r2.stderr)
r = job("start", "x3", "-c", "INSERT INTO tgt5 SELECT * FROM tgt5")
report(r.returncode == 1 and "is its target" in r.stderr, "errors: a job reading its own target", r.stderr)
r = job("list")
report(r.returncode == 0 and "seed" in r.stdout and "eo_files" in r.stdout, "list: the jobs", r.stdout)
job("start", "del2")
r = job("drop", "del2")
report(r.returncode == 1 and "is running" in r.stderr, "drop: a running job is refused", r.stderr)
job("stop", "del2")
r = job("drop", "del2")
report(r.returncode == 0 and not os.path.exists(os.path.join(wh, "_jobs", "del2")) and "del2" not in job("list").stdout,
       "drop: a stopped job is removed", r.stdout + r.stderr)
finish()
EOF
