#!/usr/bin/env bash
# bench/stream_bench.sh: continuous jobs (`tarn job`). (1) End-to-end latency: a source table is
# appended 10 times a second with 1,000 rows (one process per append, as another application
# would); a job with a 200 ms poll interval syncs it into a plain table and, in a second run, into
# a 16-bucket primary-key table. Latency of an append = the target commit that holds it minus the
# source commit (both commitInfo.timestamp, same clock); p50/p99 over every append. (2) Throughput
# of a bulk backlog: the job started on a source that already holds BENCH_STREAM_ROWS rows (in
# 100 commits) against a one-shot `INSERT INTO ... SELECT` of the same rows by tarn and by DuckDB
# (CREATE TABLE AS over the same Parquet files). Not a test: prints a table, and with
# BENCH_UPDATE_README=1 replaces the stream section of bench/README.md.
#   BUILD=build bench/stream_bench.sh   (BENCH_STREAM_SECONDS=15, BENCH_STREAM_ROWS=2000000)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
. tests/interop/lib.sh
python3 - "$BUILD/tarn" "$DUCK" <<'EOF'
import glob, json, os, re, shutil, statistics, subprocess, sys, tempfile, threading, time
tarn, duck = os.path.abspath(sys.argv[1]), sys.argv[2]
secs = float(os.environ.get("BENCH_STREAM_SECONDS", "15"))
bulk = int(os.environ.get("BENCH_STREAM_ROWS", "2000000"))
base = tempfile.mkdtemp(prefix="tn_streambench.")
wh = os.path.join(base, "wh"); os.makedirs(wh)
load0 = os.getloadavg()[0]

def t(sql):
    r = subprocess.run([tarn, "-w", wh, "--csv", "-c", sql], capture_output=True, text=True)
    if r.returncode: sys.exit("tarn failed: " + sql[:200] + "\n" + r.stderr)
    return r.stdout

def job(*a):
    return subprocess.run([tarn, "job", *a, "-w", wh], capture_output=True, text=True)

def status(n): return json.loads(job("status", n, "--json").stdout)

def commits(table):
    """version -> (timestamp ms, max seq among its added files)"""
    out = {}
    d = os.path.join(wh, table, "_delta_log")
    for f in sorted(glob.glob(os.path.join(d, "*.json"))):
        if len(os.path.basename(f)) != 25: continue
        ts, mx = None, None
        for line in open(f):
            a = json.loads(line)
            if "commitInfo" in a: ts = a["commitInfo"]["timestamp"]
            if "add" in a and a["add"].get("stats"):
                s = json.loads(a["add"]["stats"])
                v = s.get("maxValues", {}).get("seq")
                if v is not None: mx = v if mx is None else max(mx, v)
        out[int(os.path.basename(f)[:20])] = (ts, mx)
    return out

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

def latency_run(kind):
    src, tgt = f"src_{kind}", f"tgt_{kind}"
    t(f"CREATE TABLE {src} (id BIGINT, seq BIGINT, v DOUBLE, s VARCHAR)")
    if kind == "pk":
        t(f"CREATE TABLE {tgt} (id BIGINT, seq BIGINT, v DOUBLE, s VARCHAR, PRIMARY KEY (id) NOT ENFORCED) "
          "WITH ('bucket' = '16')")
    else:
        t(f"CREATE TABLE {tgt} (id BIGINT, seq BIGINT, v DOUBLE, s VARCHAR)")
    r = job("start", f"lat_{kind}", "-c", f"INSERT INTO {tgt} SELECT id, seq, v * 2, upper(s) FROM {src} WHERE v >= 0",
            "--poll-interval", "200ms")
    if r.returncode: sys.exit(r.stderr)
    n = int(secs * 10)
    start = time.time()
    for k in range(1, n + 1):
        subprocess.Popen([tarn, "-w", wh, "-c", f"INSERT INTO {src} SELECT range, {k}, range % 100, 'x' || (range % 7) "
                          f"FROM range({k * 1000}, {k * 1000 + 1000})"], stdout=subprocess.DEVNULL)
        time.sleep(max(0, start + k * 0.1 - time.time()))
    while True:          # every append in the source, then the job caught up
        if int(t(f"SELECT count(*) FROM {src}").splitlines()[1]) == n * 1000 and status(f"lat_{kind}")["lag"] == 0: break
        time.sleep(0.2)
    wall = time.time() - start
    job("stop", f"lat_{kind}")
    sc, tc = commits(src), commits(tgt)
    seq_ts = {mx: ts for v, (ts, mx) in sc.items() if mx is not None}
    lat = []
    tlist = sorted((v, ts, mx) for v, (ts, mx) in tc.items() if mx is not None)
    for k, sts in seq_ts.items():
        hit = next((ts for v, ts, mx in tlist if mx >= k), None)
        if hit is not None: lat.append(hit - sts)
    rows = int(t(f"SELECT count(*) FROM {tgt}").splitlines()[1])
    st = status(f"lat_{kind}")
    return {"appends": len(lat), "p50": pct(lat, 50), "p99": pct(lat, 99), "max": max(lat), "batches": st["batches"],
            "rows": rows, "rate": rows / wall}

res = {"plain": latency_run("plain"), "pk": latency_run("pk")}

# bulk backlog
t("CREATE TABLE bulk (id BIGINT, seq BIGINT, v DOUBLE, s VARCHAR)")
per = bulk // 100
for k in range(100):
    t(f"INSERT INTO bulk SELECT range, {k}, range % 100, 'x' || (range % 7) FROM range({k * per}, {(k + 1) * per})")
SEL = "SELECT id, seq, v * 2, upper(s) FROM bulk WHERE v >= 0"
def timed(f):
    t0 = time.time(); f(); return time.time() - t0
one = []
for i in range(3):
    t(f"DROP TABLE IF EXISTS once{i}"); t(f"CREATE TABLE once{i} (id BIGINT, seq BIGINT, v DOUBLE, s VARCHAR)")
    r = subprocess.run([tarn, "-w", wh, "-timer", "-c", f"INSERT INTO once{i} {SEL}"], capture_output=True, text=True)
    one.append(float(re.search(r"real ([0-9.]+)", r.stderr).group(1)))   # the statement, as DuckDB's time
files = sorted(p for p in glob.glob(os.path.join(wh, "bulk", "*.parquet")))
flist = "[" + ",".join(f"'{p}'" for p in files) + "]"
dd = []
for i in range(3):
    r = subprocess.run([duck, f"CREATE TABLE x AS SELECT id, seq, v * 2, upper(s) FROM read_parquet({flist}) WHERE v >= 0",
                        "--db", os.path.join(base, f"d{i}.duckdb"), "--time"], capture_output=True, text=True)
    m = re.search(r"time_ms=([0-9.]+)", r.stderr)
    dd.append(float(m.group(1)) / 1000 if m else float("nan"))
def job_backlog(name, maxf):
    tgt = "j_" + name
    t(f"CREATE TABLE {tgt} (id BIGINT, seq BIGINT, v DOUBLE, s VARCHAR)")
    t0 = time.time()
    job("start", name, "-c", f"INSERT INTO {tgt} {SEL}", "--poll-interval", "50ms", "--max-batch-files", str(maxf))
    while True:
        st = status(name)
        if st["lag"] == 0 and st["batches"] > 0: break
        time.sleep(0.05)
    el = max(ts for ts, mx in commits(tgt).values()) / 1000 - t0   # job start to its last commit
    st = status(name); job("stop", name)
    # the batches' own time (plan to commit, as the job's log prints it): throughput once running
    log = open(os.path.join(wh, "_jobs", name, "log")).read()
    busy = sum(int(m) for m in re.findall(r"batch \d+: .* (\d+) ms$", log, re.M)) / 1000
    return el, st["batches"], busy
jb1, nb1, bb1 = job_backlog("bulk_all", 1000)
jb2, nb2, bb2 = job_backlog("bulk_10", 10)
onem = statistics.median(one)
load1 = os.getloadavg()[0]
shutil.rmtree(base)

lines = [f"Run: {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, load average {load0:.2f} before / {load1:.2f} after "
         "(well above 0: other work shared the cores, treat figures as rough).", "",
         "| latency run (10 appends/s x 1,000 rows, poll 200 ms) | appends | batches | p50 ms | p99 ms | max ms | rows/s |",
         "|---|---:|---:|---:|---:|---:|---:|"]
for k, lab in (("plain", "plain target"), ("pk", "16-bucket primary-key target")):
    r = res[k]
    lines.append(f"| {lab} | {r['appends']} | {r['batches']} | {r['p50']} | {r['p99']} | {r['max']} | {r['rate']:.0f} |")
lines += ["", f"| bulk backlog ({bulk:,} rows in 100 commits) | seconds | rows/s | vs one-shot tarn INSERT |",
          "|---|---:|---:|---:|",
          f"| tarn one-shot `INSERT INTO ... SELECT` (statement time, median of 3) | {onem:.2f} | {bulk / onem:,.0f} | 1.00 |",
          f"| DuckDB `CREATE TABLE AS SELECT` over the same Parquet files (median of 3) | {statistics.median(dd):.2f} | "
          f"{bulk / statistics.median(dd):,.0f} | {onem / statistics.median(dd):.2f} |",
          f"| tarn job, max-batch-files 1000 ({nb1} batch{'es' if nb1 != 1 else ''}; `job start` to its last commit) | {jb1:.2f} | {bulk / jb1:,.0f} | {onem / jb1:.2f} |",
          f"| same job, its batch time (plan to commit, from its log) | {bb1:.2f} | {bulk / bb1:,.0f} | {onem / bb1:.2f} |",
          f"| tarn job, max-batch-files 10 ({nb2} batches; `job start` to its last commit) | {jb2:.2f} | {bulk / jb2:,.0f} | {onem / jb2:.2f} |",
          f"| same job, its batch time | {bb2:.2f} | {bulk / bb2:,.0f} | {onem / bb2:.2f} |"]
text = "\n".join(lines)
print(text)
if os.environ.get("BENCH_UPDATE_README") == "1":
    p = "bench/README.md"
    s = open(p).read()
    a, b = "<!-- stream:start -->", "<!-- stream:end -->"
    if a in s and b in s:
        s = s[:s.index(a) + len(a)] + "\n" + text + "\n" + s[s.index(b):]
        open(p, "w").write(s)
EOF
