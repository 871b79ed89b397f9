#!/usr/bin/env bash
# tests/interop/cli_nonfinite.sh: non-finite floating point in the shell's outputs. --csv prints
# a NaN as DuckDB's CSV output does ("nan", whatever its sign bit: 0.0/0 is a negative NaN on
# x86), and --json prints NaN and infinities as the strings "nan", "inf", "-inf" (JSON has no
# such numbers), so the output parses as JSON. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/tarn
require_bin "$BIN"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
q="SELECT 0.0/0 AS n, -(0.0/0) AS pn, CAST('inf' AS DOUBLE) AS i, -CAST('inf' AS DOUBLE) AS ni, 1.5 AS x"

require_oracle
want=$("$DUCK" "$q" | tail -n 1)
got=$("$BIN" --csv -c "$q" | tail -n 1)
[ "$got" = "$want" ] && ok "csv spells NaN and infinities as DuckDB's CSV output ($got)" || bad "csv: '$got', DuckDB: '$want'"

json=$("$BIN" --json -c "$q")
if printf '%s' "$json" | python3 -c 'import json,sys; r=json.load(sys.stdin)[0]; sys.exit(0 if (r["n"],r["pn"],r["i"],r["ni"],r["x"])==("nan","nan","inf","-inf",1.5) else 1)' 2>/dev/null; then
    ok "json: NaN and infinities are strings, the output parses"
else
    bad "json output: $json"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
