#!/usr/bin/env bash
# tests/interop/pk_duckdb.sh: primary-key tables (layout/bucket/) against DuckDB. (1) Random
# batches of upserts (duplicate keys inside a batch) and deletes on random keys, for each merge
# engine (deduplicate; sequence.field; partial-update; first-row; aggregation with every
# aggregate function): after each batch tarn's SELECT, DuckDB's read_parquet over exactly the
# files the table's _delta_log lists (copy-on-write per bucket: no deletion vectors; with
# delta.enableDeletionVectors the same engines again, DuckDB applying the DVs itself: this script
# decodes the DV files and drops those row positions with file_row_number), and DuckDB's
# own reference (INSERT OR REPLACE into a table with a PRIMARY KEY, or GROUP BY/window functions
# over every row inserted) are equal, and the live files hold one row per key. (2) Every live
# file's rows hash to the bucket its tags name (DuckDB reads the rows, tarn's bucket pruning
# finds each key). (3) Two processes upserting the same bucket at once: both succeed (conflicts
# retried), no key twice. (4) SIGKILL during an upsert and during a rescale overwrite leaves
# a committed state with one row per key, and the table takes writes afterwards. (5) OPTIMIZE
# t WHERE <partition predicate> compacts only those partitions (rows = DuckDB's reading of the
# live files, files reduced, each key in its bucket's file); SIGKILL during OPTIMIZE. (6) SHOW
# CREATE TABLE shows the key, partitioning and options, and its text makes the same table. (7) Retract
# rows ('rowkind.field') per engine against DuckDB's reference. (8) MERGE INTO against DuckDB's
# MERGE INTO on an equivalent table.
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tarn
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_pk.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT   # checks every table written, then removes

python3 - "$BIN" "$dir" "$DUCK" <<'EOF'
import csv, io, json, os, random, signal, subprocess, sys, time, urllib.parse, zlib
tarn, base, duck = sys.argv[1:4]
wh = os.path.join(base, "wh")
refdb = os.path.join(base, "ref.duckdb")
passed = failed = 0
rng = random.Random(20260802)

def report(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1; print(f"ok {name}")
    else:
        failed += 1; print(f"FAIL {name}"); print("    " + str(detail)[:3000].replace("\n", "\n    "))

def t(sql, check=True):
    r = subprocess.run([tarn, "-w", wh, "--csv", "-c", sql], capture_output=True, text=True)
    if check and r.returncode != 0:
        print("FAIL tarn: " + sql[:300]); print("    " + r.stderr[:2000]); print(f"{passed} passed, {failed + 1} failed")
        sys.exit(1)
    return r

def rows_of(out):
    return sorted(tuple(x) for x in list(csv.reader(io.StringIO(out)))[1:])

def d(sql, db=None):
    args = [duck, "-"] + (["--db", db] if db else [])
    r = subprocess.run(args, input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL duckdb: " + sql[:600]); print("    " + r.stderr[:2000]); print(f"{passed} passed, {failed + 1} failed")
        sys.exit(1)
    return r.stdout

def live_files(table):
    logdir = os.path.join(wh, table, "_delta_log")
    files = {}
    for f in sorted(f for f in os.listdir(logdir) if f.endswith(".json") and len(f) == 25):
        for line in open(os.path.join(logdir, f), encoding="utf-8"):
            a = json.loads(line)
            if "add" in a: files[a["add"]["path"]] = a["add"]
            if "remove" in a: files.pop(a["remove"]["path"], None)
    return files

def parquet_list(table, files):
    return "[" + ",".join("'" + os.path.join(wh, table, urllib.parse.unquote(p)).replace("'", "''") + "'"
                          for p in sorted(files)) + "]"

# Deletion vectors read independently of tarn (Delta protocol: 'u' descriptors, RoaringBitmapArray
# of 32-bit portable roaring bitmaps, big-endian size + CRC-32 framing in the DV file).
Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

def z85_decode(s):
    out = b""
    for i in range(0, len(s), 5):
        v = 0
        for ch in s[i:i + 5]: v = v * 85 + Z85.index(ch)
        out += v.to_bytes(4, "big")
    return out

def u16(b, p): return int.from_bytes(b[p:p + 2], "little")

def roaring32(buf, off):
    cookie = int.from_bytes(buf[off:off + 4], "little")
    if cookie & 0xFFFF == 12347:
        size = (cookie >> 16) + 1; p = off + 4
        runbits = buf[p:p + (size + 7) // 8]; p += (size + 7) // 8
        hasrun = lambda i: runbits[i // 8] >> (i % 8) & 1
        offsets = size >= 4
    elif cookie == 12346:
        size = int.from_bytes(buf[off + 4:off + 8], "little"); p = off + 8
        hasrun = lambda i: 0
        offsets = True
    else:
        raise ValueError(f"bad roaring cookie {cookie}")
    hdr = [(u16(buf, p + 4 * i), u16(buf, p + 4 * i + 2) + 1) for i in range(size)]
    p += 4 * size + (4 * size if offsets else 0)
    vals = []
    for i, (key, card) in enumerate(hdr):
        hi = key << 16
        if hasrun(i):
            nr = u16(buf, p); p += 2
            for _ in range(nr):
                st, ln = u16(buf, p), u16(buf, p + 2); p += 4
                vals.extend(range(hi + st, hi + st + ln + 1))
        elif card > 4096:
            for j, byte in enumerate(buf[p:p + 8192]):
                vals.extend(hi + 8 * j + b for b in range(8) if byte >> b & 1)
            p += 8192
        else:
            vals.extend(hi + u16(buf, p + 2 * j) for j in range(card)); p += 2 * card
    return vals, p

def dv_rows(table, dv):
    assert dv["storageType"] == "u", dv
    s = dv["pathOrInlineDv"]
    prefix, u = s[:-20], z85_decode(s[-20:]).hex()
    path = os.path.join(wh, table, prefix, f"deletion_vector_{u[:8]}-{u[8:12]}-{u[12:16]}-{u[16:20]}-{u[20:]}.bin")
    buf = open(path, "rb").read()
    off = dv.get("offset", 1)
    size = int.from_bytes(buf[off:off + 4], "big")
    data = buf[off + 4:off + 4 + size]
    assert int.from_bytes(data[:4], "little") == 1681511377, "DV magic"
    assert zlib.crc32(data) == int.from_bytes(buf[off + 4 + size:off + 8 + size], "big"), "DV CRC"
    n, p, rows = int.from_bytes(data[4:12], "little"), 12, []
    for _ in range(n):
        key = int.from_bytes(data[p:p + 4], "little")
        vals, p = roaring32(data, p + 4)
        rows.extend((key << 32) + v for v in vals)
    assert len(rows) == dv["cardinality"], (len(rows), dv)
    return rows

def live_sql(table, files, cols, hive=True):
    # DuckDB over the live files with their deletion vectors applied
    opts = ", hive_partitioning = true, hive_types_autocast = false" if hive else ""
    src = f"read_parquet({parquet_list(table, files)}{opts}, filename = true, file_row_number = true)"
    dels = []
    for p, a in files.items():
        if a.get("deletionVector"):
            full = os.path.join(wh, table, urllib.parse.unquote(p)).replace("'", "''")
            dels += [f"('{full}', {r})" for r in dv_rows(table, a["deletionVector"])]
    if not dels: return f"SELECT {cols} FROM {src}"
    return (f"SELECT {cols} FROM {src} AS s ANTI JOIN (VALUES {', '.join(dels)}) AS dv(fn, rn) "
            "ON s.filename = dv.fn AND s.file_row_number = dv.rn")

def vc(cols):
    return ", ".join(f"coalesce(CAST({c} AS VARCHAR), '<NULL>')" for c in cols)

# ---------------------------------------------------------------------------------------------
# (1) random batches per merge engine
engines = {
    "dedup": ("", None),
    "seq": (", 'sequence.field' = 'sq'", None),
    "partial": (", 'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true'", None),
    "firstrow": (", 'merge-engine' = 'first-row'", None),
    "agg": (", 'merge-engine' = 'aggregation', 'aggregation.remove-record-on-delete' = 'true', "
            "'fields.a.aggregate-function' = 'sum', "
            "'fields.b.aggregate-function' = 'min', 'fields.c.aggregate-function' = 'max', "
            "'fields.n.aggregate-function' = 'count', 'fields.x.aggregate-function' = 'product', "
            "'fields.s.aggregate-function' = 'listagg', 'fields.f.aggregate-function' = 'bool_and', "
            "'fields.g.aggregate-function' = 'bool_or'", None),
    "agg2": (", 'merge-engine' = 'aggregation', 'aggregation.remove-record-on-delete' = 'true', "
             "'fields.a.aggregate-function' = 'last_value', "
             "'fields.b.aggregate-function' = 'last_non_null_value', 'fields.c.aggregate-function' = 'first_value', "
             "'fields.n.aggregate-function' = 'first_non_null_value', 'fields.s.aggregate-function' = 'listagg', "
             "'fields.s.list-agg-delimiter' = '|'", None),
}
# the same engines with deletion-vector upserts (merge-on-write)
DVOPT = ", 'delta.enableDeletionVectors' = 'true'"
for e in ["dedup", "seq", "partial", "firstrow", "agg"]:
    engines["dv_" + e] = (engines[e][0] + DVOPT, None)
# dynamic buckets ('bucket' = '-1'): keys placed by the partition's index, 40 keys a bucket
DYNOPT = ", 'dynamic-bucket.target-row-num' = '40'"
engines["dyn"] = (DYNOPT, None)
engines["dynagg"] = (engines["agg"][0] + DYNOPT, None)
engines["dv_dyn"] = (DYNOPT + DVOPT, None)

def base_engine_of(engine):
    e = engine[3:] if engine.startswith("dv_") else engine
    return {"dyn": "dedup", "dynagg": "agg"}.get(e, e)
cols = ["k", "a", "b", "c", "n", "x", "s", "f", "g", "sq", "p"]
val_cols = ["a", "b", "c", "n", "x", "s", "f", "g", "sq"]

def expected_sql(engine):
    engine = base_engine_of(engine)
    key = "p, k"
    o = "bt * 100000 + ord"
    if engine == "dedup":
        return "SELECT " + ", ".join(cols) + " FROM ref"
    if engine == "seq":
        return ("SELECT " + ", ".join(cols) + " FROM hist QUALIFY row_number() OVER (PARTITION BY p, k "
                f"ORDER BY sq DESC, {o} DESC) = 1")
    if engine == "firstrow":
        return ("SELECT " + ", ".join(cols) + f" FROM hist QUALIFY row_number() OVER (PARTITION BY p, k ORDER BY {o}) = 1")
    if engine == "partial":
        sel = ", ".join(f"arg_max({c}, {o}) FILTER (WHERE {c} IS NOT NULL) AS {c}" for c in val_cols)
        return f"SELECT k, {sel}, p FROM hist GROUP BY {key}"
    if engine == "agg":
        return (f"SELECT k, sum(a) AS a, min(b) AS b, max(c) AS c, count(n) AS n, product(x) AS x, "
                f"string_agg(s, ',' ORDER BY {o}) AS s, bool_and(f) AS f, bool_or(g) AS g, "
                f"arg_max(sq, {o}) FILTER (WHERE sq IS NOT NULL) AS sq, p FROM hist GROUP BY {key}")
    if engine == "agg2":
        return (f"SELECT k, last(a ORDER BY {o}) AS a, arg_max(b, {o}) FILTER (WHERE b IS NOT NULL) AS b, "
                f"first(c ORDER BY {o}) AS c, arg_min(n, {o}) FILTER (WHERE n IS NOT NULL) AS n, "
                f"arg_max(x, {o}) FILTER (WHERE x IS NOT NULL) AS x, string_agg(s, '|' ORDER BY {o}) AS s, "
                f"arg_max(f, {o}) FILTER (WHERE f IS NOT NULL) AS f, arg_max(g, {o}) FILTER (WHERE g IS NOT NULL) AS g, "
                f"arg_max(sq, {o}) FILTER (WHERE sq IS NOT NULL) AS sq, p FROM hist GROUP BY {key}")

def maybe(v, pnull=0.25):
    return "" if rng.random() < pnull else v

schema = ("k INT, a BIGINT, b INT, c INT, n BIGINT, x DOUBLE, s VARCHAR, f BOOLEAN, g BOOLEAN, sq BIGINT, p VARCHAR")
batches = 8

def latest_version(table):
    logdir = os.path.join(wh, table, "_delta_log")
    return max(int(f[:20]) for f in os.listdir(logdir) if f.endswith(".json") and len(f) == 25)

def live_at(table, version):
    logdir = os.path.join(wh, table, "_delta_log")
    files = {}
    for v in range(version + 1):
        for line in open(os.path.join(logdir, "%020d.json" % v), encoding="utf-8"):
            a = json.loads(line)
            if "add" in a: files[a["add"]["path"]] = a["add"]
            if "remove" in a: files.pop(a["remove"]["path"], None)
    return files

# Each batch is checked at the version it committed: tarn's time travel to it, DuckDB over the files
# live at it, and DuckDB's reference after the same statements (one DuckDB run per engine).
for engine, (opts, _) in engines.items():
    tname = "pk_" + engine
    nb = rng.choice([1, 3, 8]) if not engine.startswith("dv_") else rng.choice([1, 3])
    if "dyn" in engine: nb = -1
    t(f"CREATE TABLE {tname} ({schema}, PRIMARY KEY (k, p) NOT ENFORCED) PARTITIONED BY (p) "
      f"WITH ('bucket' = '{nb}'{opts})")
    ref_sql = f"CREATE TABLE ref ({schema}, PRIMARY KEY (p, k)); CREATE TABLE hist (bt INT, ord INT, {schema});\n"
    seqs = list(range(1, 100000)); rng.shuffle(seqs)
    checks = []          # (batch, version)
    for bt in range(batches):
        path = os.path.join(base, f"{engine}_{bt}.csv")
        nrows = rng.randint(1, 300)
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["ord"] + cols)
            for i in range(nrows):
                k = rng.randint(0, 120)
                p = rng.choice(["x", "y"])
                sq = "" if engine != "seq" else str(seqs.pop())
                row = [i, k, maybe(str(rng.randint(-50, 50))), maybe(str(rng.randint(-9, 9))), maybe(str(rng.randint(-9, 9))),
                       maybe(str(rng.randint(0, 5))), maybe(rng.choice(["0.5", "1.0", "2.0"])), maybe(rng.choice(["u", "v", "w"])),
                       maybe(rng.choice(["true", "false"])), maybe(rng.choice(["true", "false"])),
                       sq if engine == "seq" else maybe(str(rng.randint(0, 9))), p]
                w.writerow(row)
        src = (f"read_csv('{path}', header = true, columns = {{'ord': 'INTEGER', 'k': 'INTEGER', 'a': 'BIGINT', "
               "'b': 'INTEGER', 'c': 'INTEGER', 'n': 'BIGINT', 'x': 'DOUBLE', 's': 'VARCHAR', 'f': 'BOOLEAN', "
               "'g': 'BOOLEAN', 'sq': 'BIGINT', 'p': 'VARCHAR'})")
        t(f"INSERT INTO {tname} SELECT " + ", ".join(cols) + f" FROM read_csv('{path}', header = true)")
        ref_sql += (f"INSERT INTO hist SELECT {bt}, ord, " + ", ".join(cols) + f" FROM {src};\n"
                    f"INSERT OR REPLACE INTO ref SELECT " + ", ".join(cols) + f" FROM {src} "
                    "QUALIFY row_number() OVER (PARTITION BY p, k ORDER BY ord DESC) = 1;\n")
        if bt % 3 == 2 and base_engine_of(engine) == "firstrow":
            # Paimon refuses a batch delete on first-row tables; nothing is deleted
            r = t(f"DELETE FROM {tname} WHERE k % 7 = 0", check=False)
            if bt == 2:
                report(r.returncode != 0 and "Merge engine first-row can not support batch delete." in r.stderr,
                       f"{engine}: DELETE refused with Paimon's message", r.stderr)
        elif bt % 3 == 2:
            m = rng.randint(0, 6)
            t(f"DELETE FROM {tname} WHERE k % 7 = {m}")
            ref_sql += f"DELETE FROM hist WHERE k % 7 = {m}; DELETE FROM ref WHERE k % 7 = {m};\n"
        if bt % 3 == 1:
            # UPDATE: an upsert of the matching live rows with the SET applied (Paimon's batch
            # UPDATE), so the reference appends them to the history as the batch's last rows
            base_engine = base_engine_of(engine)
            m = rng.randint(0, 4)
            upd = f"UPDATE {tname} SET a = a + 1, s = 'u' WHERE k % 5 = {m}"
            if base_engine in ("dedup", "seq", "partial"):
                t(upd)
                set_cols = ", ".join({"a": "a + 1", "s": "'u'"}.get(c, c) for c in cols)
                ref_sql += (f"CREATE OR REPLACE TABLE upd AS SELECT * FROM ({expected_sql(engine)}) WHERE k % 5 = {m};\n"
                            f"INSERT INTO hist SELECT {bt}, 90000 + row_number() OVER (), {set_cols} FROM upd;\n"
                            f"INSERT OR REPLACE INTO ref SELECT {set_cols} FROM upd;\n")
            elif bt == 1:
                r = t(upd, check=False)
                name = "aggregation" if base_engine.startswith("agg") else "first-row"
                report(r.returncode != 0 and f"Merge engine {name} can not support batch update." in r.stderr,
                       f"{engine}: UPDATE refused with Paimon's message", r.stderr)
        ref_sql += f"CREATE TABLE snap_{bt} AS {expected_sql(engine)};\n"
        checks.append((bt, latest_version(tname)))
    parts = []
    for bt, v in checks:
        parts.append(f"SELECT {bt} AS bt, 'ref' AS src, {vc(cols)} FROM snap_{bt}")
        files = live_at(tname, v)
        if files:
            parts.append(f"SELECT {bt}, 'live', {vc(cols)} FROM ({live_sql(tname, files, '*')})")
    out = rows_of(d(ref_sql + " UNION ALL ".join(parts)))
    all_ok = True
    for bt, v in checks:
        ref = sorted(r[2:] for r in out if r[0] == str(bt) and r[1] == "ref")
        got_live = sorted(r[2:] for r in out if r[0] == str(bt) and r[1] == "live")
        mine = rows_of(t(f"SELECT {vc(cols)} FROM {tname} VERSION AS OF {v}").stdout)
        keys = [(r[-1], r[0]) for r in got_live]
        if not (mine == ref and got_live == ref and len(set(keys)) == len(keys)):
            all_ok = False
            report(False, f"{engine} batch {bt} (version {v})",
                   f"tarn {len(mine)} rows, live files {len(got_live)}, reference {len(ref)}\n"
                   f"only tarn: {sorted(set(mine) - set(ref))[:3]}\nonly reference: {sorted(set(ref) - set(mine))[:3]}\n"
                   f"live-file keys twice: {len(keys) - len(set(keys))}")
            break
    if all_ok and "dyn" in engine:
        # every live file says bucketCount -1; no bucket holds more than 40 keys (a new key goes to a
        # bucket below the target, else to a new one); a key is in one bucket only
        files = live_files(tname)
        per_bucket = {}
        for path, a in files.items():
            per_bucket.setdefault((a["partitionValues"]["p"], a["tags"]["bucket"]), []).append(path)
        counts = {}
        for (pv, b), paths in per_bucket.items():
            q = " UNION ALL ".join(f"SELECT k FROM read_parquet('{os.path.join(wh, tname, pp)}')" for pp in paths)
            counts[(pv, b)] = int(rows_of(d(f"SELECT count(DISTINCT k) FROM ({q})"))[0][0])
        ok = (all(a["tags"]["bucketCount"] == "-1" for a in files.values()) and max(counts.values()) <= 40
              and len(counts) > 2)
        report(ok, f"{engine}: dynamic buckets: {len(counts)} buckets of at most {max(counts.values())} keys "
               "(target 40), bucketCount -1", f"{counts}")
    if all_ok and engine.startswith("dv_"):
        # deletion vectors were written; the protocol names the feature; compaction keeps every
        # bucket at most 5 files (Paimon's num-sorted-run.compaction-trigger)
        files = live_files(tname)
        proto = [json.loads(l)["protocol"] for l in open(os.path.join(wh, tname, "_delta_log", "%020d.json" % 0))
                 if '"protocol"' in l][0]
        per_bucket = {}
        for a in files.values():
            b = (a["partitionValues"]["p"], a["tags"]["bucket"])
            per_bucket[b] = per_bucket.get(b, 0) + 1
        ndv = sum(1 for a in files.values() if a.get("deletionVector"))
        # (first-row never replaces a stored row and refuses DELETE: its upserts write no DV)
        ok = ((ndv > 0) != (engine == "dv_firstrow") and "deletionVectors" in proto.get("readerFeatures", [])
              and proto["minReaderVersion"] == 3
              and max(per_bucket.values()) <= 5)
        report(ok, f"{engine}: upserts wrote deletion vectors ({ndv} live files with one), protocol (3, 7) "
               f"deletionVectors, at most {max(per_bucket.values())} files per bucket", f"{proto} {per_bucket}")
    if all_ok:
        n = len([r for r in out if r[1] == "ref"])
        report(True, f"{engine}: {batches} batches ({nb} buckets, {n} rows checked): tarn = DuckDB over the live files = "
               "DuckDB's reference after every batch, one row per key")

# ---------------------------------------------------------------------------------------------
# (2) the seed table: every live file's bucket tag, DuckDB's rows, bucket pruning per key
t("CREATE TABLE raw_orders (trade_order_id BIGINT, item_id BIGINT, item_price DOUBLE, gmt_create TIMESTAMP, order_status STRING)")
src = os.path.join(base, "raw.parquet")
d(f"COPY (SELECT i // 3 AS trade_order_id, i % 5 AS item_id, i * 0.5 AS item_price, TIMESTAMP '2022-06-20' + to_hours(i % 72) AS gmt_create, "
  f"CASE WHEN i % 4 = 0 THEN 'pending' ELSE 'verified' END AS order_status FROM range(3000) r(i)) TO '{src}' (FORMAT parquet)")
t(f"INSERT INTO raw_orders SELECT * FROM read_parquet('{src}')")
t("""CREATE TABLE verified_orders (
    trade_order_id BIGINT, item_id BIGINT, item_price DOUBLE, dt STRING,
    PRIMARY KEY (dt, trade_order_id, item_id) NOT ENFORCED
) PARTITIONED BY (dt) WITH ('bucket' = '16')""")
t("""INSERT INTO verified_orders SELECT trade_order_id, item_id, item_price,
    DATE_FORMAT(gmt_create, 'yyyy-MM-dd') AS dt FROM raw_orders WHERE order_status = 'verified'""")
t("ALTER TABLE verified_orders SET ('bucket' = '32')")
t("""INSERT OVERWRITE verified_orders PARTITION (dt = '2022-06-22')
    SELECT trade_order_id, item_id, item_price FROM verified_orders WHERE dt = '2022-06-22'""")
files = live_files("verified_orders")
counts = {}
for p, a in files.items():
    counts.setdefault(a["partitionValues"]["dt"], set()).add(a["tags"]["bucketCount"])
report(counts == {"2022-06-20": {"16"}, "2022-06-21": {"16"}, "2022-06-22": {"32"}},
       "rescale: 2022-06-22 rewritten with 32 buckets, the others still 16 (AddFile tags)", counts)
want = rows_of(d(f"SELECT {vc(['trade_order_id', 'item_id', 'item_price', 'dt'])} FROM (SELECT trade_order_id, item_id, "
                 f"arg_max(item_price, rn) AS item_price, strftime(gmt_create, '%Y-%m-%d') AS dt FROM (SELECT *, row_number() OVER () AS rn "
                 f"FROM read_parquet('{src}')) WHERE order_status = 'verified' GROUP BY ALL)"))
live = rows_of(d(f"SELECT {vc(['trade_order_id', 'item_id', 'item_price', 'dt'])} FROM read_parquet({parquet_list('verified_orders', files)}, "
                 "hive_partitioning = true, hive_types_autocast = false)"))
mine = rows_of(t(f"SELECT {vc(['trade_order_id', 'item_id', 'item_price', 'dt'])} FROM verified_orders").stdout)
report(want == live == mine and len(want) > 1000,
       f"seed flow: DuckDB's own upsert of the raw rows = DuckDB over the live files = tarn ({len(want)} rows)",
       f"{len(want)} {len(live)} {len(mine)}")
# every key found through its bucket (pruned scans read one file per partition)
sample = rng.sample(mine, 25)
bad = []
for r in sample:
    q = (f"SELECT item_price FROM verified_orders WHERE dt = '{r[3]}' AND trade_order_id = {r[0]} AND item_id = {r[1]}")
    out = subprocess.run([tarn, "-w", wh, "--csv", "--stats", "-c", q], capture_output=True, text=True)
    st = json.loads(out.stderr.strip().splitlines()[-1])
    vals = rows_of(out.stdout)
    if vals != [(r[2],)] or st["files_scanned"] != 1: bad.append((r, vals, st["files_scanned"]))
report(not bad, "point lookups by the whole key: the row, from one file (bucket pruning with each file's own count)", bad[:3])

# ---------------------------------------------------------------------------------------------
# (3) two processes upserting the same bucket at once (copy-on-write, then deletion vectors:
# both rewrite or re-add the same file, so the later one conflicts and merges again)
def concurrent(tbl, opts, bucket="1"):
    t(f"CREATE TABLE {tbl} (k INT, v VARCHAR, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '{bucket}'{opts})")
    scripts = []
    expect_keys = set()
    for who, lo in (("A", 0), ("B", 50)):
        sql = os.path.join(base, f"{tbl}_{who}.sql")
        with open(sql, "w") as fh:
            for i in range(12):
                kk = [lo + (i * 7 + j) % 100 for j in range(10)]
                expect_keys |= set(str(k) for k in kk)
                ks = ", ".join(f"({k}, '{who}{i}')" for k in kk)
                fh.write(f"INSERT INTO {tbl} VALUES {ks};\n")
        scripts.append(subprocess.Popen([tarn, "-w", wh, "-f", sql], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    errs = [(p.wait(), p.stderr.read()) for p in scripts]
    rows = rows_of(t(f"SELECT k, v FROM {tbl}").stdout)
    live = rows_of(d(live_sql(tbl, live_files(tbl), "k", hive=False)))
    ok = all(rc == 0 for rc, _ in errs) and sorted(r[0] for r in rows) == sorted(expect_keys) and len(live) == len(expect_keys)
    versions = len([f for f in os.listdir(os.path.join(wh, tbl, "_delta_log")) if f.endswith(".json") and len(f) == 25])
    ok = ok and versions == 25
    report(ok, f"two processes x 12 upserts into one {'partition (dynamic buckets)' if bucket == '-1' else 'bucket'}"
           f"{' (deletion vectors)' if 'Deletion' in opts else ''}: all committed "
           f"({versions - 1} commits), {len(rows)} keys once each", f"{errs} rows={len(rows)} live={len(live)} versions={versions}")
concurrent("conc", "")
concurrent("concdv", ", 'delta.enableDeletionVectors' = 'true'")
# dynamic buckets: overlapping new keys from both; the later commit conflicts (the partition is its
# read scope) and assigns again on the winner's index, so no key lands in two buckets
concurrent("concdyn", ", 'dynamic-bucket.target-row-num' = '30'", bucket="-1")

# ---------------------------------------------------------------------------------------------
# (4) SIGKILL during an upsert and during a rescale overwrite
big = os.path.join(base, "big.parquet")
d(f"COPY (SELECT i AS k, 'v' || i AS v FROM range(1500000) r(i)) TO '{big}' (FORMAT parquet)")
t("CREATE TABLE crash (k BIGINT, v VARCHAR, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '4')")
t("INSERT INTO crash SELECT i, 'old' FROM (VALUES (1), (2), (3)) v(i)")
def crash_check(name, stmt, delays, finish=(), table="crash"):
    outcomes, lists = [], []
    for delay in delays:
        p = subprocess.Popen([tarn, "-w", wh, "-c", stmt], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        n = rows_of(t(f"SELECT count(*), count(DISTINCT k) FROM {table}").stdout)[0]
        outcomes.append(n)
        lists.append(live_sql(table, live_files(table), "k", hive=False))
    q = " UNION ALL ".join(f"SELECT {i} AS i, count(*), count(DISTINCT k) FROM ({l})" for i, l in enumerate(lists))
    live = sorted(rows_of(d(q)))
    for i, n in enumerate(outcomes):
        if n[0] != n[1] or live[i][1:] != n:
            report(False, name, f"after SIGKILL at {delays[i]}s: tarn {n}, DuckDB over live files {live[i]}")
            return
    for f in finish: t(f)
    t(f"INSERT INTO {table} VALUES (1, 'after')")
    v = rows_of(t(f"SELECT v FROM {table} WHERE k = 1").stdout)
    report(v == [("after",)], f"{name}: every SIGKILL left a committed state with one row per key {sorted(set(outcomes))}, writes go on",
           v)
crash_check("SIGKILL during an upsert", f"INSERT INTO crash SELECT k, v FROM read_parquet('{big}')", [0.2, 0.5, 1.0])
t("CREATE TABLE crashdv (k BIGINT, v VARCHAR, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '4', "
  "'delta.enableDeletionVectors' = 'true')")
t("INSERT INTO crashdv SELECT i * 2, 'old' FROM range(400000) r(i)")
crash_check("SIGKILL during a deletion-vector upsert", f"INSERT INTO crashdv SELECT k, v FROM read_parquet('{big}')",
            [0.2, 0.5, 1.0], table="crashdv")
t("ALTER TABLE crash SET ('bucket' = '8')")
crash_check("SIGKILL during a rescale INSERT OVERWRITE", "INSERT OVERWRITE crash SELECT k, v || 'x' FROM crash", [0.1, 0.3],
            ["INSERT OVERWRITE crash SELECT k, v FROM crash"])

# ---------------------------------------------------------------------------------------------
# (5) OPTIMIZE t WHERE <partition predicate>: only the chosen partitions' buckets are compacted
# (one file per bucket, rows merged by key), the others keep their files; the rows equal DuckDB's
# reading of the live files before and after; every compacted file holds exactly its bucket's keys
t("CREATE TABLE opt (k INT, v VARCHAR, p VARCHAR, PRIMARY KEY (p, k) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '4')")
t("INSERT INTO opt /*+ OPTIONS('target_file_size' = '2000') */ SELECT i, repeat('x', 40) || i, 'p' || (i % 3) FROM range(60000) r(i)")
t("INSERT INTO opt /*+ OPTIONS('target_file_size' = '2000') */ SELECT i * 3, 'new' || i, 'p' || (i % 3) FROM range(10000, 30000) r(i)")
def per_part(files):
    c = {}
    for a in files.values(): c[a["partitionValues"]["p"]] = c.get(a["partitionValues"]["p"], 0) + 1
    return c
def duck_rows(table):
    return rows_of(d(f"SELECT k, v, p FROM read_parquet({parquet_list(table, live_files(table))}, hive_partitioning = true, "
                     "hive_types_autocast = false)"))
before_files = live_files("opt")
before = duck_rows("opt")
v0 = latest_version("opt")
bad = t("OPTIMIZE opt WHERE k = 3", check=False)
report(bad.returncode != 0 and "Predicate references non-partition column 'k'. Only the partition columns may be "
       "referenced: [p]" in bad.stderr and latest_version("opt") == v0,
       "OPTIMIZE ... WHERE on a non-partition column: Delta's error, nothing committed", bad.stderr)
res = rows_of(t("OPTIMIZE opt WHERE p IN ('p0', 'p2')").stdout)
after_files = live_files("opt")
after = duck_rows("opt")
mine = rows_of(t("SELECT k, v, p FROM opt").stdout)
pb, pa = per_part(before_files), per_part(after_files)
kept = {f for f, a in before_files.items() if a["partitionValues"]["p"] == "p1"}
tags = {}
for a in after_files.values():
    tags.setdefault(a["partitionValues"]["p"], []).append(a["tags"]["bucket"])
removed = sum(pb[x] for x in ("p0", "p2"))
ok = (pb["p0"] > 4 and pb["p2"] > 4 and pa == {"p0": 4, "p1": pb["p1"], "p2": 4} and kept <= set(after_files)
      and sorted(tags["p0"]) == sorted(tags["p2"]) == ["0", "1", "2", "3"] and res == [(str(removed), "8")]
      and before == after == mine and len(mine) > 60000 and len({(r[2], r[0]) for r in mine}) == len(mine))
report(ok, f"OPTIMIZE opt WHERE p IN ('p0', 'p2'): files {pb} -> {pa}, p1's files untouched, rows = DuckDB's before and after "
       f"({len(mine)} rows)", f"before {pb} after {pa} result {res} tags {tags} rows {len(before)} {len(after)} {len(mine)}")
log = [json.loads(l) for l in open(os.path.join(wh, "opt", "_delta_log", "%020d.json" % latest_version("opt")))]
ci = [a["commitInfo"] for a in log if "commitInfo" in a][0]
ok = (ci["operation"] == "OPTIMIZE" and ci["operationParameters"]["predicate"] == '["p IN (\'p0\', \'p2\')"]'
      and all(a[k]["dataChange"] is False for a in log for k in ("add", "remove") if k in a))
report(ok, "the compaction commits OPTIMIZE with the predicate, dataChange = false", ci)
bad = []
for r in rng.sample([r for r in mine if r[2] != "p1"], 20):
    out = subprocess.run([tarn, "-w", wh, "--csv", "--stats", "-c", f"SELECT v FROM opt WHERE p = '{r[2]}' AND k = {r[0]}"],
                         capture_output=True, text=True)
    st = json.loads(out.stderr.strip().splitlines()[-1])
    if rows_of(out.stdout) != [(r[1],)] or st["files_scanned"] != 1: bad.append((r, out.stdout, st["files_scanned"]))
report(not bad, "after the compaction each key is found in its bucket's one file (bucket pruning)", bad[:3])
again = rows_of(t("OPTIMIZE opt WHERE p = 'p0'").stdout)
report(again == [("0", "0")], "OPTIMIZE of an already compacted partition: nothing to do, nothing committed", again)

# SIGKILL during a compaction: a committed state (before or after it), one row per key
t(f"INSERT OVERWRITE crash SELECT k, v FROM read_parquet('{big}')")
t("INSERT INTO crash /*+ OPTIONS('target_file_size' = '200000') */ SELECT k, v || 'y' FROM crash")
crash_check("SIGKILL during OPTIMIZE", "OPTIMIZE crash", [0.1, 0.3, 0.6])

# (6) SHOW CREATE TABLE: the key, partitioning and every option; the text makes the same table
def conf_of(table):
    md = None
    logdir = os.path.join(wh, table, "_delta_log")
    for f in sorted(f for f in os.listdir(logdir) if f.endswith(".json") and len(f) == 25):
        for line in open(os.path.join(logdir, f), encoding="utf-8"):
            a = json.loads(line)
            if "metaData" in a: md = a["metaData"]
    return md["configuration"], md["partitionColumns"], json.loads(md["schemaString"])["fields"]

ddls = {
    "sc_orders": "CREATE TABLE sc_orders (trade_order_id BIGINT, item_id BIGINT, item_price DOUBLE, dt STRING, "
                 "PRIMARY KEY (dt, trade_order_id, item_id) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '16')",
    "sc_agg": "CREATE TABLE sc_agg (k INT, s BIGINT, la VARCHAR, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2', "
              "'merge-engine' = 'aggregation', 'fields.s.aggregate-function' = 'sum', "
              "'fields.la.aggregate-function' = 'listagg', 'fields.la.list-agg-delimiter' = '''|', "
              "'fields.s.ignore-retract' = 'true')",
    '"sc Odd"': 'CREATE TABLE "sc Odd" ("order" INT NOT NULL, "Key" INT, CONSTRAINT pk PRIMARY KEY ("Key", "order")) '
                "WITH ('bucket' = '3', 'bucket-key' = 'order')",
}
for name, ddl in ddls.items():
    t(ddl)
    table = name.strip('"').lower()
    before = conf_of(table)
    text = list(csv.reader(io.StringIO(t(f"SHOW CREATE TABLE {name}").stdout)))
    t(f"DROP TABLE {name}")
    again = t(text[1][0], check=False)
    after = conf_of(table) if again.returncode == 0 else None
    text2 = list(csv.reader(io.StringIO(t(f"SHOW CREATE TABLE {name}").stdout))) if again.returncode == 0 else None
    ok = (text[0] == ["createtab_stmt"] and len(text) == 2 and "PRIMARY KEY (" in text[1][0] and " NOT ENFORCED" in text[1][0]
          and "'bucket' = '" in text[1][0] and before == after and text == text2)
    report(ok, f"SHOW CREATE TABLE {name}: key, partitioning and options, and its text makes the same table",
           f"{text} {again.stderr} {before} {after}")
report("'merge-engine' = 'aggregation'" in t("SHOW CREATE TABLE sc_agg").stdout, "SHOW CREATE TABLE shows the merge settings")

def first_mismatch(table, cols, ref_sql, checks, min_rows=0):
    """After ref_sql (which makes snap_<i> per check), each (i, version) of checks: tarn's time
    travel to the version = DuckDB over the files live at it = snap_<i>; the first mismatch or None."""
    parts = []
    for i, v in checks:
        parts.append(f"SELECT {i} AS i, 'ref' AS src, {vc(cols)} FROM snap_{i}")
        files = live_at(table, v)
        if files: parts.append(f"SELECT {i}, 'live', {vc(cols)} FROM ({live_sql(table, files, '*')})")
    out = rows_of(d(ref_sql + " UNION ALL ".join(parts)))
    for i, v in checks:
        ref = sorted(r[2:] for r in out if r[0] == str(i) and r[1] == "ref")
        live = sorted(r[2:] for r in out if r[0] == str(i) and r[1] == "live")
        mine = rows_of(t(f"SELECT {vc(cols)} FROM {table} VERSION AS OF {v}").stdout)
        if not (mine == ref == live) or len(ref) < min_rows:
            return (i, sorted(set(mine) - set(ref))[:3], sorted(set(ref) - set(mine))[:3], len(mine), len(live), len(ref))
    return None

# ---------------------------------------------------------------------------------------------
# (7) retract rows (Paimon's 'rowkind.field': '+I', '+U', '-U', '-D') in random batches: deduplicate
# keeps each key's last row unless it is a retraction; 'ignore-delete' drops retractions; the
# aggregation engine retracts field by field (sum subtracts, last_value clears, max with
# 'fields.c.ignore-retract' ignores them). Reference: DuckDB over every row written.
rk_engines = {
    "rk_dedup": ", 'rowkind.field' = 'op'",
    "rk_ignore": ", 'rowkind.field' = 'op', 'ignore-delete' = 'true'",
    "rk_agg": (", 'rowkind.field' = 'op', 'merge-engine' = 'aggregation', 'fields.a.aggregate-function' = 'sum', "
               "'fields.c.aggregate-function' = 'max', 'fields.c.ignore-retract' = 'true', "
               "'fields.lv.aggregate-function' = 'last_value', 'fields.op.aggregate-function' = 'last_value'"),
}
for e in list(rk_engines):
    rk_engines[e + "_dv"] = rk_engines[e] + DVOPT
rk_cols = ["k", "a", "c", "lv", "op", "p"]
add = "op IN ('+I', '+U')"
o = "bt * 100000 + ord"
def rk_expected(engine):
    if engine.startswith("rk_dedup"):
        return (f"SELECT k, a, c, lv, op, p FROM hist QUALIFY row_number() OVER (PARTITION BY p, k ORDER BY {o} DESC) = 1 "
                f"AND {add}")
    if engine.startswith("rk_ignore"):
        return (f"SELECT k, a, c, lv, op, p FROM hist WHERE {add} QUALIFY row_number() OVER (PARTITION BY p, k ORDER BY {o} DESC) = 1")
    return (f"SELECT k, sum(CASE WHEN {add} THEN a ELSE -a END) AS a, max(c) FILTER (WHERE {add}) AS c, "
            f"CASE WHEN arg_max({add}, {o}) THEN arg_max_null(lv, {o}) END AS lv, "
            f"CASE WHEN arg_max({add}, {o}) THEN arg_max(op, {o}) END AS op, p FROM hist GROUP BY p, k")
for engine, opts in rk_engines.items():
    t(f"CREATE TABLE {engine} (k INT, a BIGINT, c INT, lv INT, op VARCHAR, p VARCHAR, PRIMARY KEY (k, p) NOT ENFORCED) "
      f"PARTITIONED BY (p) WITH ('bucket' = '{rng.choice([1, 3])}'{opts})")
    ref_sql = "CREATE TABLE hist (bt INT, ord INT, k INT, a BIGINT, c INT, lv INT, op VARCHAR, p VARCHAR);\n"
    checks = []
    for bt in range(6):
        path = os.path.join(base, f"{engine}_{bt}.csv")
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["ord"] + rk_cols)
            for i in range(rng.randint(1, 200)):
                op = rng.choices(["+I", "+U", "-U", "-D"], [60, 15, 10, 15])[0]
                w.writerow([i, rng.randint(0, 60), maybe(str(rng.randint(-50, 50)), 0.1), maybe(str(rng.randint(-9, 9)), 0.1),
                            maybe(str(rng.randint(0, 9)), 0.2), op, rng.choice(["x", "y"])])
        t(f"INSERT INTO {engine} SELECT k, a, c, lv, op, p FROM read_csv('{path}', header = true)")
        ref_sql += (f"INSERT INTO hist SELECT {bt}, * FROM read_csv('{path}', header = true, columns = {{'ord': 'INTEGER', "
                    "'k': 'INTEGER', 'a': 'BIGINT', 'c': 'INTEGER', 'lv': 'INTEGER', 'op': 'VARCHAR', 'p': 'VARCHAR'});\n"
                    f"CREATE TABLE snap_{bt} AS {rk_expected(engine)};\n")
        checks.append((bt, latest_version(engine)))
    bad = first_mismatch(engine, rk_cols, ref_sql, checks)
    report(bad is None, f"{engine}: 6 batches of +I/+U/-U/-D rows: tarn = DuckDB over the live files = DuckDB's reference",
           bad)
r = t("CREATE TABLE rk_max (k INT, c INT, op VARCHAR, PRIMARY KEY (k) NOT ENFORCED) WITH ('merge-engine' = 'aggregation', "
      "'fields.c.aggregate-function' = 'max', 'rowkind.field' = 'op')")
t("INSERT INTO rk_max VALUES (1, 5, '+I')")
v0 = latest_version("rk_max")
r = t("INSERT INTO rk_max VALUES (1, 5, '-U'), (2, 1, '+I')", check=False)
report(r.returncode != 0 and "Aggregate function 'max' does not support retraction, If you allow this function to ignore "
       "retraction messages, you can configure 'fields.${field_name}.ignore-retract'='true'." in r.stderr
       and latest_version("rk_max") == v0, "a retraction of a max column without ignore-retract: Paimon's error, nothing written",
       r.stderr)

# ---------------------------------------------------------------------------------------------
# (8) MERGE INTO a primary-key table (Paimon's MERGE INTO: updated and inserted rows are upserts,
# deleted rows deletes of their key) against DuckDB's MERGE INTO on an equivalent table, in
# random rounds with every kind of clause; after each round tarn = DuckDB over the live files =
# DuckDB's table.
mg_engines = {
    "mg_dedup": ("3", ""),
    "mg_dv": ("2", DVOPT),
    "mg_partial": ("3", ", 'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true'"),
    "mg_partial_dv": ("1", ", 'merge-engine' = 'partial-update', 'partial-update.remove-record-on-delete' = 'true'" + DVOPT),
    "mg_dyn": ("-1", ", 'dynamic-bucket.target-row-num' = '20'"),
}
mg_cols = ["k", "a", "s", "p"]
for engine, (nb, opts) in mg_engines.items():
    t(f"CREATE TABLE {engine} (k INT, a INT, s VARCHAR, p VARCHAR, PRIMARY KEY (k, p) NOT ENFORCED) PARTITIONED BY (p) "
      f"WITH ('bucket' = '{nb}'{opts})")
    init = os.path.join(base, f"{engine}_init.csv")
    keys = rng.sample([(k, p) for k in range(90) for p in "xy"], 120)
    with open(init, "w", newline="") as fh:
        w = csv.writer(fh); w.writerow(mg_cols)
        for k, p in keys: w.writerow([k, rng.randint(-50, 50), rng.choice("uvw"), p])
    t(f"INSERT INTO {engine} SELECT * FROM read_csv('{init}', header = true)")
    ref_sql = (f"CREATE TABLE {engine} (k INT, a INT, s VARCHAR, p VARCHAR);\n"
               f"INSERT INTO {engine} SELECT * FROM read_csv('{init}', header = true, columns = {{'k': 'INTEGER', "
               "'a': 'INTEGER', 's': 'VARCHAR', 'p': 'VARCHAR'});\n")
    checks = []
    for rd in range(5):
        src = os.path.join(base, f"{engine}_{rd}.csv")
        with open(src, "w", newline="") as fh:
            w = csv.writer(fh); w.writerow(mg_cols + ["op"])
            for k, p in rng.sample([(k, p) for k in range(100) for p in "xy"], rng.randint(5, 80)):
                w.writerow([k, rng.randint(-50, 50), rng.choice("uvw"), p, rng.choice(["d", "u", "u", "n", "x", "i"])])
        m = rng.randint(0, 16)
        merge = (f"MERGE INTO {engine} USING (SELECT CAST(k AS INTEGER) AS k, CAST(a AS INTEGER) AS a, CAST(s AS VARCHAR) AS s, "
                 f"CAST(p AS VARCHAR) AS p, CAST(op AS VARCHAR) AS op FROM read_csv('{src}', header = true)) AS src "
                 f"ON {engine}.k = src.k AND {engine}.p = src.p "
                 "WHEN MATCHED AND src.op = 'd' THEN DELETE "
                 "WHEN MATCHED AND src.op = 'u' THEN UPDATE SET a = src.a, s = src.s "
                 f"WHEN MATCHED THEN UPDATE SET a = {engine}.a + 1 "
                 "WHEN NOT MATCHED AND src.op <> 'x' THEN INSERT (k, a, s, p) VALUES (src.k, src.a, src.s, src.p) "
                 f"WHEN NOT MATCHED BY SOURCE AND {engine}.k % 17 = {m} THEN DELETE")
        t(merge)
        ref_sql += merge + f";\nCREATE TABLE snap_{rd} AS SELECT * FROM {engine};\n"
        checks.append((rd, latest_version(engine)))
    bad = first_mismatch(engine, mg_cols, ref_sql, checks, min_rows=20)
    report(bad is None, f"{engine}: 5 MERGE INTO rounds (DELETE / UPDATE / INSERT / NOT MATCHED BY SOURCE DELETE): tarn = "
           "DuckDB over the live files = DuckDB's MERGE INTO", bad)
# Paimon's refusals: other merge engines, a changed key; nothing written
t("CREATE TABLE mg_agg (k INT, a INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('merge-engine' = 'aggregation')")
t("INSERT INTO mg_agg VALUES (1, 1)")
for sql, text, what in [
        ("MERGE INTO mg_agg USING (SELECT 1 AS k) s ON mg_agg.k = s.k WHEN MATCHED THEN UPDATE SET a = 2",
         "merge engine aggregation can not support MergeInto, currently only deduplicate, partial-update can support "
         "MergeInto.", "aggregation table"),
        ("MERGE INTO mg_dedup USING (SELECT 1 AS k, 'x' AS p) s ON mg_dedup.k = s.k AND mg_dedup.p = s.p "
         "WHEN MATCHED THEN UPDATE SET k = s.k + 100", "Can't update the primary key column in update clause.",
         "a key column set")]:
    tbl = sql.split()[2]
    v0 = latest_version(tbl)
    r = t(sql, check=False)
    report(r.returncode != 0 and text in r.stderr and latest_version(tbl) == v0, f"MERGE INTO refused ({what}): Paimon's "
           "text, nothing committed", r.stderr)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
EOF
