#!/usr/bin/env bash
# tests/interop/otree_qbeast.sh: qbeast-spark tables through the tarn command. The golden
# string-histogram-table (written by qbeast-spark): TABLESAMPLE (p PERCENT) returns exactly the
# rows qbeast-spark returns, hash(brand) < Weight(p/100) (Weight computed here independently:
# trunc(f * (2^32 - 1) - 2^31)), checked as row sets both ways at many fractions with the SQL
# hash() function (not the layout's code); the block minWeight equals min(hash(brand)); a
# sample below the block's minWeight reads no file (--stats); DuckDB reads the data file to the
# same rows; DESCRIBE INDEX reports the golden tables' index metrics. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BIN=$BUILD/tarn
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { # name expected actual
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected [$2] got [$3]"; fi
}
T=$DATA/qbeast/string-histogram-table
tn() { "$BIN" --csv "$@"; }
weight() { node -e "const f=$1/100; let x=Math.trunc(f*4294967295-2147483648); if(x>2147483647)x=2147483647; console.log(x)"; }

check "golden row count" "100000" "$(tn -c "SELECT count(*) FROM delta_scan('$T')" | tail -1)"
check "block minWeight = min(hash(brand))" "-2146260804" "$(tn -c "SELECT min(hash(brand)) FROM delta_scan('$T')" | tail -1)"

for p in 0.0001 0.001 0.01 0.1 0.5 1 2.5 5 10 20 33.3 50 75 99 99.99; do
    w=$(weight "$p")
    n_s=$(tn -c "SELECT count(*) FROM delta_scan('$T') TABLESAMPLE ($p PERCENT)" 2>&1 | tail -1)
    n_h=$(tn -c "SELECT count(*) FROM delta_scan('$T') WHERE hash(brand) < $w" 2>&1 | tail -1)
    check "sample $p% count = rows with hash(brand) < $w" "$n_h" "$n_s"
    d1=$(tn -c "SELECT count(*) FROM (SELECT * FROM delta_scan('$T') TABLESAMPLE ($p PERCENT) EXCEPT ALL
                SELECT * FROM delta_scan('$T') WHERE hash(brand) < $w)" 2>&1 | tail -1)
    d2=$(tn -c "SELECT count(*) FROM (SELECT * FROM delta_scan('$T') WHERE hash(brand) < $w EXCEPT ALL
                SELECT * FROM delta_scan('$T') TABLESAMPLE ($p PERCENT))" 2>&1 | tail -1)
    check "sample $p% row set = hash filter (both ways)" "0 0" "$d1 $d2"
done
# the sample grows with the fraction and is near it (the weights of distinct brands are uniform)
n10=$(tn -c "SELECT count(*) FROM delta_scan('$T') TABLESAMPLE (10 PERCENT)" | tail -1)
check "10% sample is 13748 rows (brand groups share a weight)" "13748" "$n10"
check "100% sample is the table" "100000" "$(tn -c "SELECT count(*) FROM delta_scan('$T') TABLESAMPLE (100 PERCENT)" | tail -1)"
# Weight(0.0001%) = -2147479353 < the block minWeight: the file is not read
st=$(tn --stats -c "SELECT count(*) FROM delta_scan('$T') TABLESAMPLE (0.0001 PERCENT)" 2>&1 >/dev/null)
case "$st" in *'"files_scanned":0,'*'"rows_scanned":0,'*) ok "sample below minWeight reads no file";; *) bad "stats: $st";; esac
st=$(tn --stats -c "SELECT avg(length(brand)) FROM delta_scan('$T') TABLESAMPLE (1 PERCENT)" 2>&1 >/dev/null)
case "$st" in *'"files_scanned":1,'*) ok "1% sample reads the one file";; *) bad "stats: $st";; esac
# sampling composes: GROUP BY, join with itself, views
g=$(tn -c "SELECT count(*) FROM (SELECT brand, count(*) FROM delta_scan('$T') TABLESAMPLE (5 PERCENT) GROUP BY brand)" | tail -1)
g2=$(tn -c "SELECT count(DISTINCT brand) + max(CASE WHEN brand IS NULL THEN 1 ELSE 0 END) FROM delta_scan('$T') WHERE hash(brand) < $(weight 5)" | tail -1)
check "GROUP BY over a sample" "$g2" "$g"

if oracle_available; then
    f=$(ls "$T"/*.parquet)
    a=$(tn -c "SELECT count(*), count(brand), count(DISTINCT user_session), min(event_time), max(price) FROM delta_scan('$T')" | tail -1)
    b=$("$DUCK" "SELECT count(*), count(brand), count(DISTINCT user_session), min(event_time), max(price) FROM read_parquet('$f')" 2>&1 | tail -1)
    check "DuckDB reads the golden file to the same aggregates" "$a" "$b"
else
    echo "DuckDB oracle not installed: DuckDB check skipped"
fi
# index metrics (DESCRIBE INDEX, qbeast's getIndexMetrics) of golden tables qbeast-spark wrote,
# from their logs: revision, columns:transformer, dimensions, cubeSize, elements, cubes, blocks,
# files, bytes (the add actions' sizes); the warehouse is the golden folder (read only)
mi() { "$BIN" -w "$DATA/qbeast" --csv -c "DESCRIBE INDEX \"$1\"" 2>&1 | tail -n +2 | cut -d, -f1-$2; }   # fields (a quoted list counts its commas)
check "DESCRIBE INDEX of string-histogram-table" "1,brand:histogram,1,5000000,100000,1,1,1,2275245" "$(mi string-histogram-table 9)"
check "DESCRIBE INDEX of the pre-0.6 table (one-cube tags)" '1,"user_id:linear,price:linear",2,10000,100,1,1,1,9666' "$(mi pre-0.6-table_with_remove 10)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
