#!/usr/bin/env bash
# tests/interop/bitmap_seed.sh: the bitmap seed as written (Phoenix DDL with CONSTRAINT ...
# PRIMARY KEY and SALT_BUCKETS=6, then `select date, bitmap(dist_mem) memNum from
# global_temp.test_binary group by date`) over bitmaps written by Java RoaringBitmap
# (tests/data/roaring). Expected counts come from DuckDB count(DISTINCT) over the same ids
# generated from the golden files' documented contents; the stored bytes and bitmap_union's
# output are read back by DuckDB from the table's Parquet files and compared with the Java bytes.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tarn
require_bin "$BIN"
require_oracle
dir=$(mktemp -d /tmp/tn_bitmap_seed.XXXXXX)
trap 'tn_cleanup "$dir"' EXIT
wh=$dir/wh
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
run() {   # through a file: a statement with golden bitmaps is longer than one argument may be
    printf '%s;\n' "$1" > "$dir/stmt.sql"
    if ! "$BIN" -w "$wh" -f "$dir/stmt.sql" >/dev/null 2>"$dir/err"; then
        echo "FAIL setup: ${1:0:200}"; cat "$dir/err"; echo "$pass passed, $((fail + 1)) failed"; exit 1
    fi
}
q() { "$BIN" -w "$wh" --csv -c "$1" 2>&1; }
duck() { "$DUCK" "$1" 2>&1; }
hexof() { xxd -p "$1" | tr -d '\n' | tr a-f A-F; }
check() {   # name, got, expected
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1"; echo "  got:      $(echo "$2" | head -c 600)"; echo "  expected: $(echo "$3" | head -c 600)"; fi
}

RUNS=$(hexof "$DATA/roaring/bitmapwithruns.bin")
NORUNS=$(hexof "$DATA/roaring/bitmapwithoutruns.bin")
# S, the golden files' set, as DuckDB ids (RoaringFormatSpec testdata/README.md)
S="SELECT range AS id FROM range(0, 100000, 1000) UNION ALL SELECT 3 * range FROM range(100000, 200000) UNION ALL SELECT range FROM range(700000, 800000)"

# 1. the seed as written
run "CREATE TABLE IF NOT EXISTS test_binary (
    date VARCHAR NOT NULL,
    dist_mem VARBINARY,
    CONSTRAINT test_binary_pk PRIMARY KEY (date)
) SALT_BUCKETS=6"
run "INSERT INTO test_binary VALUES ('2024-01-01', X'$RUNS'), ('2024-01-02', X'$NORUNS'), ('2024-01-03', NULL)"
# IF NOT EXISTS: the second CREATE changes nothing
run "CREATE TABLE IF NOT EXISTS test_binary (
    date VARCHAR NOT NULL,
    dist_mem VARBINARY,
    CONSTRAINT test_binary_pk PRIMARY KEY (date)
) SALT_BUCKETS=6"
n=$(duck "SELECT count(DISTINCT id) FROM ($S)" | tail -1)
check "golden set size by DuckDB" "$n" "200100"
got=$(q "select date, bitmap(dist_mem) memNum from global_temp.test_binary group by date" | tail -n +2 | sort)
check "seed query: Java bitmaps, NULL group 0" "$got" "$(printf '2024-01-01,%s\n2024-01-02,%s\n2024-01-03,0' "$n" "$n")"
got=$(q "select date, bitmap(dist_mem) memNum from global_temp.test_binary group by date" | head -1)
check "the seed's alias keeps its case (as DuckDB and Spark print it)" "$got" "date,memNum"
got=$(q "select date, bitmap(dist_mem) memNum from test_binary group by date" | tail -n +2 | sort)
check "the same from test_binary" "$got" "$(printf '2024-01-01,%s\n2024-01-02,%s\n2024-01-03,0' "$n" "$n")"

# the stored bytes are the Java bytes (DuckDB reads the Parquet files)
files=$(ls "$wh"/test_binary/*.parquet | tr '\n' ' ' | sed "s/ \$//; s/ /','/g")
got=$(duck "SELECT date, hex(dist_mem) FROM read_parquet(['$files']) WHERE dist_mem IS NOT NULL ORDER BY date" | tail -n +2)
check "stored bytes unchanged" "$got" "$(printf '2024-01-01,%s\n2024-01-02,%s' "$RUNS" "$NORUNS")"

# 2. several rows per group: OR, not sum (a Phoenix table keyed by (date, shard))
run "CREATE TABLE daily (date VARCHAR NOT NULL, shard INTEGER NOT NULL, dist_mem VARBINARY CONSTRAINT daily_pk PRIMARY KEY (date, shard)) SALT_BUCKETS=4"
run "INSERT INTO daily VALUES ('d1', 1, X'$RUNS'), ('d1', 2, X'$NORUNS'), ('d1', 3, NULL), ('d2', 1, X'$RUNS'), ('d3', 1, NULL), ('d3', 2, NULL)"
run "INSERT INTO daily SELECT 'd2', 2, bitmap_agg(id) FROM (SELECT CAST(i AS BIGINT) AS id FROM (VALUES (799999), (800000), (800001), (900000), (1)) v(i)) s"
run "INSERT INTO daily SELECT 'd4', CAST(id % 3 AS INTEGER), bitmap_agg(id * 7919 % 100003) FROM read_parquet('tests/sql/data/t1.parquet') GROUP BY id % 3"
e2=$(duck "SELECT count(DISTINCT id) FROM ($S UNION ALL SELECT unnest([799999, 800000, 800001, 900000, 1]))" | tail -1)
e4=$(duck "SELECT count(DISTINCT id * 7919 % 100003) FROM read_parquet('tests/sql/data/t1.parquet') WHERE id IS NOT NULL" | tail -1)
got=$(q "select date, bitmap(dist_mem) memNum from global_temp.daily group by date" | tail -n +2 | sort)
check "OR per group (not a sum), NULL-only group 0" "$got" "$(printf 'd1,%s\nd2,%s\nd3,0\nd4,%s' "$n" "$e2" "$e4")"

# 3. bitmap_union writes what Java wrote for the same set (runOptimize's containers)
run "CREATE TABLE u AS SELECT date, bitmap_union(dist_mem) AS b, rbm32(dist_mem) AS r FROM daily WHERE date = 'd1' GROUP BY date"
files=$(ls "$wh"/u/*.parquet | tr '\n' ' ' | sed "s/ \$//; s/ /','/g")
got=$(duck "SELECT hex(b) || '|' || hex(r) FROM read_parquet(['$files'])" | tail -1)
check "bitmap_union / rbm32 bytes = Java's bitmapwithruns.bin" "$got" "$RUNS|$RUNS"

# 4. a global temporary view shadows the table; views are never written to the warehouse
run "CREATE TABLE IF NOT EXISTS test_binary (date VARCHAR NOT NULL, dist_mem VARBINARY, CONSTRAINT test_binary_pk PRIMARY KEY (date)) SALT_BUCKETS=6"
got=$("$BIN" -w "$wh" --csv -c "CREATE GLOBAL TEMPORARY VIEW test_binary AS SELECT date, dist_mem FROM test_binary WHERE date = '2024-01-01'" \
      -c "select date, bitmap(dist_mem) memNum from global_temp.test_binary group by date" 2>&1 | tail -1)
check "global temporary view" "$got" "2024-01-01,$n"
check "temporary views are not stored" "$(ls "$wh" | sort | tr '\n' ' ')" "daily test_binary u "

# 5. bad bytes: Java object serialization is named, with the column
run "CREATE TABLE badbits (date VARCHAR NOT NULL, dist_mem VARBINARY, CONSTRAINT pk PRIMARY KEY (date)) SALT_BUCKETS=2"
run "INSERT INTO badbits VALUES ('x', X'ACED00057372001F6F7267')"
got=$(q "select date, bitmap(dist_mem) from global_temp.badbits group by date" | grep -c "bitmap(dist_mem): value X'ACED00057372001F...' (11 bytes): not a RoaringBitmap: byte 0: Java object serialization (AC ED 00 05)")
check "Java object serialization refused, naming the column" "$got" "1"
got=$(q "select date, bitmap_error(dist_mem) from badbits" | grep -c 'x,"not a RoaringBitmap: byte 0: Java object serialization (AC ED 00 05)')
check "bitmap_error finds the row" "$got" "1"

# 6. SALT_BUCKETS outside 1..256: Phoenix's error
got=$(q "CREATE TABLE s257 (k VARCHAR NOT NULL, CONSTRAINT pk PRIMARY KEY (k)) SALT_BUCKETS=257" | grep -c "Salt bucket numbers should be with 1 and 256")
check "SALT_BUCKETS=257 refused with Phoenix's text" "$got" "1"

# 7. Paimon's rbm32 aggregation merge engine: upserts OR-merge the bitmaps of a key. The Java
# no-runs file plus {0} (already in S) is S again, written as Java's runOptimize() writes S:
# bitmapwithruns.bin, byte for byte; a key's single value is kept as written (Paimon).
run "CREATE TABLE users_daily (k INT, users VARBINARY, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2', 'merge-engine' = 'aggregation', 'fields.users.aggregate-function' = 'rbm32')"
run "INSERT INTO users_daily VALUES (1, X'$NORUNS'), (2, X'$NORUNS'), (3, bitmap_from_string('1,2')), (4, NULL)"
run "INSERT INTO users_daily VALUES (1, to_bitmap(0)), (3, bitmap_from_string('2,3')), (3, to_bitmap(100000)), (4, NULL), (5, NULL)"
run "UPSERT INTO users_daily SELECT 3, bitmap_agg(CAST(i AS BIGINT)) FROM (VALUES (7), (8)) v(i)"
files=$(ls "$wh"/users_daily/*.parquet "$wh"/users_daily/*/*.parquet 2>/dev/null | tr '\n' ' ' | sed "s/ \$//; s/ /','/g")
live=$(q "SELECT k, bitmap_to_string(users) FROM users_daily WHERE k >= 3 ORDER BY k" | tail -n +2)
check "rbm32: OR per key over upserts, NULLs skipped" "$live" "$(printf '3,"1,2,3,7,8,100000"\n4,\n5,')"
got=$(q "SELECT k, bitmap_count(users) FROM users_daily WHERE k <= 2 ORDER BY k" | tail -n +2)
check "rbm32: Java bitmaps merged" "$got" "$(printf '1,%s\n2,%s' "$n" "$n")"
hex1=$(q "SELECT bitmap_to_base64(users) FROM users_daily WHERE k = 1" | tail -1 | base64 -d | xxd -p | tr -d '\n' | tr a-f A-F)
check "rbm32: merged bytes = Java's bitmapwithruns.bin" "$hex1" "$RUNS"
got=$(duck "SELECT k, hex(users) FROM read_parquet(['$files']) WHERE k <= 2 ORDER BY k" | tail -n +2 | sort | uniq | tr '\n' ' ')
case "$got" in *"1,$RUNS "*"2,$NORUNS "*) ok "rbm32: stored bytes (DuckDB reads them): merged = Java's, single = as written";; *) bad "rbm32 stored bytes"; echo "  got: ${got:0:300}";; esac
got=$(q "INSERT INTO users_daily VALUES (1, X'ACED0005')" | grep -c "column 'users' (aggregate-function rbm32): value X'ACED0005' (4 bytes): not a RoaringBitmap: byte 0: Java object serialization")
check "rbm32: a bad value fails the write, naming the column" "$got" "1"
got=$(q "INSERT INTO users_daily VALUES (1, X'$(hexof "$DATA/roaring/bitmap64.bin")')" | grep -c "rbm32 holds 32-bit values only")
check "rbm32: a 64-bit bitmap is refused" "$got" "1"
got=$(q "SELECT count(*), sum(bitmap_count(users)) FROM users_daily" | tail -1)
check "rbm32: failed writes left the table as it was" "$got" "5,$((2 * n + 6))"
got=$(q "CREATE TABLE rb_bad (k INT, users VARCHAR, PRIMARY KEY (k) NOT ENFORCED) WITH ('merge-engine' = 'aggregation', 'fields.users.aggregate-function' = 'rbm32')" | grep -c "Data type for roaring bitmap column must be 'VarBinaryType' but was 'VARCHAR'")
check "rbm32 on a VARCHAR column: Paimon's error" "$got" "1"
got=$(q "CREATE TABLE rb64 (k INT, users VARBINARY, PRIMARY KEY (k) NOT ENFORCED) WITH ('merge-engine' = 'aggregation', 'fields.users.aggregate-function' = 'rbm64')" | grep -c "'rbm64' is not supported: Paimon's rbm64 stores Java Roaring64Bitmap's own serialization")
check "rbm64 refused by name" "$got" "1"

# 8. output names as DuckDB gives them: aliases (quoted or not) as written, bare columns by their
# declared name (a Parquet file with mixed-case columns), FROM/CTE column aliases as written
duck "COPY (SELECT 1 AS Bc, 2 AS dEf) TO '$dir/mc.parquet'" >/dev/null
for sql in "SELECT bc, DEF AS memNum, bc x, Bc AS \"QuOt\", count(*) AS CNT, sum(bc) FROM read_parquet('$dir/mc.parquet') GROUP BY ALL" \
           "SELECT * FROM read_parquet('$dir/mc.parquet')" "SELECT t.BC FROM read_parquet('$dir/mc.parquet') t" \
           "WITH C(Kol) AS (SELECT 1) SELECT kol FROM C" "SELECT * FROM (VALUES (1)) V(Abc)" \
           "SELECT memNum FROM (SELECT 1 AS MemNum) s" "SELECT 1 AS Foo UNION ALL SELECT 2 AS bar"; do
    check "output names: $sql" "$(q "$sql" | head -1)" "$(duck "$sql" | head -1)"
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
