#!/usr/bin/env bash
# Compiles examples/query.c against the public header alone (include/tarn.h) and libtarn.a,
# runs it on the flights dataset and compares its rows with DuckDB's answer to the same query.
set -u
. "$(dirname "$0")/lib.sh"
require_oracle
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
bin=$BUILD/tests/example_query
mkdir -p "$BUILD/tests"
extra=""
[ "${TARN_SANITIZED:-}" = 1 ] && extra="-fsanitize=address,undefined -fno-omit-frame-pointer"
if cc -std=c11 -Wall -Wextra -Werror -Iinclude $extra examples/query.c "$BUILD/libtarn.a" -o "$bin" \
      -lsnappy -lzstd -llz4 -lz -lbrotlienc -lbrotlidec -lbrotlicommon -ljansson -lroaring -lxxhash -ledit -lssl -lcrypto -lre2 -lstdc++ -lm -pthread; then
    ok "examples/query.c compiles against include/tarn.h only"
else
    ko "examples/query.c does not compile"; echo "$pass passed, $fail failed"; exit 1
fi
F=$FLIGHTS
out=$("$bin" "$F" 1000) && ok "example runs" || ko "example failed: $out"
want=$("$DUCK" "SELECT COLUMNS(*)::VARCHAR FROM (SELECT origin, count(*) AS flights, avg(delay) AS avg_delay FROM read_parquet('$F') WHERE distance >= 1000 GROUP BY origin ORDER BY flights DESC, origin LIMIT 5)" 2>&1)
got=$(echo "$out" | grep -v '^total=')
[ "$got" = "$want" ] && ok "rows equal DuckDB's" || { ko "rows differ"; echo "want:"; echo "$want"; echo "got:"; echo "$got"; }
echo "$out" | grep -q 'rows_scanned=3000000' && ok "stats reported" || ko "stats: $(echo "$out" | tail -1)"
"$bin" /nonexistent.parquet 1 2>/dev/null && ko "missing file accepted" || ok "missing file is an error"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
