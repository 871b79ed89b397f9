#!/usr/bin/env bash
# tests/interop/table_sql_duckdb.sh: tables created and filled through tarn's SQL (CREATE TABLE
# with PARTITIONED BY, CREATE TABLE AS, INSERT VALUES/SELECT, static and dynamic INSERT
# OVERWRITE, DELETE, ALTER TABLE ADD COLUMN, COPY FROM) are read by DuckDB with read_parquet
# over exactly the files that the table's _delta_log lists (replayed here from the JSON
# commits, hive_partitioning = true, union_by_name = true), and must give the same multiset of
# rows as tarn's own SELECT of the table (both spelled as VARCHAR). Also checks time travel
# against the files listed at an older version. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tarn
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_table_sql.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT   # checks every table written, then removes
wh=$dir/wh
data=tests/sql/data

run() {   # tarn SQL; fails the whole script when a statement fails
    if ! "$BIN" -w "$wh" -c "$1" >/dev/null 2>"$dir/err"; then
        echo "FAIL setup: $1"; cat "$dir/err"; echo "0 passed, 1 failed"; exit 1
    fi
}

# orders: the Flink seed flow on a table partitioned by a string
run "CREATE TABLE raw_orders (trade_order_id BIGINT, item_id BIGINT, item_price DOUBLE, gmt_create TIMESTAMP, order_status STRING)"
run "INSERT INTO raw_orders SELECT id, id % 17, val, CAST(d AS TIMESTAMP) + INTERVAL (id % 24) HOUR, CASE WHEN flag THEN 'verified' ELSE 'pending' END FROM read_parquet('$data/t1.parquet') WHERE id <= 400"
run "CREATE TABLE verified_orders (trade_order_id BIGINT, item_id BIGINT, item_price DOUBLE, dt STRING) PARTITIONED BY (dt)"
run "INSERT INTO verified_orders SELECT trade_order_id, item_id, item_price, DATE_FORMAT(gmt_create, 'yyyy-MM-dd') AS dt FROM raw_orders WHERE order_status = 'verified'"
run "INSERT OVERWRITE verified_orders PARTITION (dt = '2024-01-04') SELECT trade_order_id, item_id, item_price * 10 FROM verified_orders WHERE dt = '2024-01-04'"
run "INSERT OVERWRITE verified_orders SELECT trade_order_id, item_id, item_price, dt FROM verified_orders WHERE dt IN ('2024-01-01', '2024-01-07') AND item_id > 3"
run "DELETE FROM verified_orders WHERE item_price < 20"
# t1p: CREATE TABLE AS, partitioned by a string with NULLs, deletes, a new column
run "CREATE TABLE t1p PARTITIONED BY (grp) AS SELECT id, grp, val, d, flag, amt, name, small FROM read_parquet('$data/t1.parquet')"
run "DELETE FROM t1p WHERE id % 3 = 0 OR grp IS NULL AND id > 500"
run "ALTER TABLE t1p ADD COLUMN note VARCHAR"
run "INSERT INTO t1p (id, grp, note, name) VALUES (5001, 'A', 'new', 'x'), (5002, NULL, 'n2', NULL), (5003, 'Z''q', NULL, 'y')"
run "INSERT OVERWRITE t1p PARTITION (grp = 'B') SELECT id + 10000, val, d, flag, amt, name, small, 'overwritten' FROM t1p WHERE grp = 'B' AND id < 300"
# ev: two partition columns (date, int) with NULL partition values; COPY FROM a CSV
run "CREATE TABLE ev (id INT NOT NULL, v VARCHAR, day DATE, part_no INT) PARTITIONED BY (day, part_no)"
run "INSERT INTO ev VALUES (1, 'a', DATE '2024-03-01', 1), (2, 'b', DATE '2024-03-01', 2), (3, NULL, NULL, 1), (4, 'd', DATE '2024-03-02', NULL)"
run "COPY ev (id, v, day) FROM '$data/small.csv' (HEADER)"
run "INSERT OVERWRITE ev SELECT id * 100, v, day, part_no FROM ev WHERE part_no = 1"
run "DELETE FROM ev WHERE id = 200"

python3 - "$BIN" "$wh" "$DUCK" <<'EOF'
import csv, io, json, os, subprocess, sys, urllib.parse
tarn, wh, duck = sys.argv[1:4]
passed = failed = 0
def report(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1; print(f"ok {name}")
    else:
        failed += 1; print(f"FAIL {name}"); print("    " + str(detail)[:2000].replace("\n", "\n    "))

def live_files(table, version=None):
    logdir = os.path.join(table, "_delta_log")
    commits = sorted(f for f in os.listdir(logdir) if f.endswith(".json") and len(f) == 25)
    files, cols = {}, None
    for f in commits:
        v = int(f[:20])
        if version is not None and v > version: break
        for line in open(os.path.join(logdir, f), encoding="utf-8"):
            a = json.loads(line)
            if "add" in a: files[a["add"]["path"]] = 1
            if "remove" in a: files.pop(a["remove"]["path"], None)
            if "metaData" in a: cols = [fl["name"] for fl in json.loads(a["metaData"]["schemaString"])["fields"]]
    return [os.path.join(table, urllib.parse.unquote(p)) for p in sorted(files)], cols

def tarn_rows(sql):
    r = subprocess.run([tarn, "-w", wh, "--csv", "-c", sql], capture_output=True, text=True)
    if r.returncode != 0: return None, r.stderr
    return sorted(tuple(x) for x in list(csv.reader(io.StringIO(r.stdout)))[1:]), ""

def duck_rows(files, cols):
    if not files: return [], ""
    flist = ",".join("'" + f.replace("'", "''") + "'" for f in files)
    sel = ",".join(f'coalesce(CAST("{c}" AS VARCHAR), \'<NULL>\')' for c in cols)
    q = (f"SELECT {sel} FROM read_parquet([{flist}], hive_partitioning = true, hive_types_autocast = false, "
         f"union_by_name = true)")
    r = subprocess.run([duck, q], capture_output=True, text=True)
    if r.returncode != 0: return None, r.stderr
    return sorted(tuple(x) for x in list(csv.reader(io.StringIO(r.stdout)))[1:]), ""

def compare(name, table, version=None):
    files, cols = live_files(os.path.join(wh, table), version)
    sel = ", ".join(f"coalesce(CAST({c} AS VARCHAR), '<NULL>')" for c in cols)
    travel = f" VERSION AS OF {version}" if version is not None else ""
    want, err = tarn_rows(f"SELECT {sel} FROM {table}{travel}")
    if want is None: return report(False, name, "tarn: " + err)
    got, err = duck_rows(files, cols)
    if got is None: return report(False, name, "duckdb: " + err)
    if got == want and want:
        report(True, f"{name} ({len(want)} rows, {len(files)} files)")
    else:
        sg, sw = set(got), set(want)
        report(False, name, f"duckdb {len(got)} rows, tarn {len(want)} rows\nonly duckdb: {sorted(sg - sw)[:3]}\n"
                            f"only tarn: {sorted(sw - sg)[:3]}")

for t in ["raw_orders", "verified_orders", "t1p", "ev"]:
    compare(t, t)
compare("verified_orders VERSION AS OF 1", "verified_orders", 1)
compare("verified_orders VERSION AS OF 2", "verified_orders", 2)
# t1p: version 0 is CREATE TABLE AS (schema and rows in one commit), 1 the DELETE
compare("t1p VERSION AS OF 1", "t1p", 1)
compare("ev VERSION AS OF 1", "ev", 1)

# partition directories hold the partition columns, the files do not
files, _ = live_files(os.path.join(wh, "ev"))
ok = all("/day=" in f and "/part_no=" in f for f in files) and any("__HIVE_DEFAULT_PARTITION__" in f for f in files)
report(ok, "ev files in day=/part_no= directories, NULL as __HIVE_DEFAULT_PARTITION__", "\n".join(files))
# an independent check of the Flink flow's result: DuckDB computes it from the raw file
want, err = tarn_rows("SELECT dt, count(*), CAST(round(sum(item_price), 6) AS VARCHAR) FROM verified_orders GROUP BY dt")
q = ("WITH raw AS (SELECT id AS trade_order_id, id % 17 AS item_id, val AS item_price, "
     "CAST(d AS TIMESTAMP) + to_hours(id % 24) AS gmt_create, CASE WHEN flag THEN 'verified' ELSE 'pending' END AS order_status "
     "FROM read_parquet('tests/sql/data/t1.parquet') WHERE id <= 400), "
     "v1 AS (SELECT trade_order_id, item_id, item_price, strftime(gmt_create, '%Y-%m-%d') AS dt FROM raw WHERE order_status = 'verified'), "
     "v2 AS (SELECT trade_order_id, item_id, CASE WHEN dt = '2024-01-04' THEN item_price * 10 ELSE item_price END AS item_price, dt FROM v1), "
     "v3 AS (SELECT * FROM v2 WHERE dt NOT IN ('2024-01-01', '2024-01-07') OR item_id > 3) "
     "SELECT dt, count(*), CAST(round(sum(item_price), 6) AS VARCHAR) FROM v3 WHERE item_price IS NULL OR NOT item_price < 20 GROUP BY dt")
r = subprocess.run([duck, q], capture_output=True, text=True)
dk = sorted(tuple(x) for x in list(csv.reader(io.StringIO(r.stdout)))[1:]) if r.returncode == 0 else None
report(dk is not None and dk == want, "verified_orders after INSERT/OVERWRITE PARTITION/dynamic OVERWRITE/DELETE equals DuckDB's computation",
       f"duckdb {dk}\ntarn {want} {err} {r.stderr}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
EOF
