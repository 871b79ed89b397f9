#!/usr/bin/env bash
# tests/tpch/tpch_load.sh SF DIR: generates TPC-H at scale factor SF with build/tpch_dbgen into
# DIR, converts each .tbl to DIR/<table>.parquet with the types of tests/tpch/schema.txt (DuckDB
# writes them, so tarn is measured on files it did not write), removes the .tbl files, and
# writes DIR/views.sql: one CREATE VIEW <table> AS SELECT * FROM read_parquet(...) per table.
# Used by tests/interop/tpch_duckdb.sh and bench/tpch_bench.sh.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
sf=$1 dir=$2
BUILD=${BUILD:-build}
DUCK=${DUCK:-$repo/tests/oracle/duckdb}
mkdir -p "$dir"
"$repo/$BUILD/tpch_dbgen" -s "$sf" -o "$dir"
sql=""
: > "$dir/views.sql"
while read -r table cols; do
    case "$table" in ''|'#'*) continue ;; esac
    spec=""
    for c in $cols; do spec="$spec${spec:+, }'${c%%:*}': '${c#*:}'"; done
    sql="$sql COPY (SELECT * FROM read_csv('$dir/$table.tbl', delim = '|', header = false, quote = '', escape = '', columns = {$spec})) TO '$dir/$table.parquet' (FORMAT parquet);"
    echo "CREATE VIEW $table AS SELECT * FROM read_parquet('$dir/$table.parquet');" >> "$dir/views.sql"
done < "$here/schema.txt"
"$DUCK" "$sql SELECT 1" > /dev/null
rm -f "$dir"/*.tbl
