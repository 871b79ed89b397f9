#!/usr/bin/env bash
# Differential test: random queries (tests/interop/sql_differential.mjs) answered by DuckDB (the
# oracle) and by tarn (tests/sql/slt_runner.c). Fixed seeds plus one random seed per run; a
# failing seed is printed so it can be replayed: TARN_DIFF_SEEDS="1234" bash this-script.
# Ends with "N passed, N failed". Needs node and the DuckDB oracle (tests/oracle).
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
per_seed=${TARN_DIFF_QUERIES:-400}
seeds=${TARN_DIFF_SEEDS:-"1 2 $(( (RANDOM << 15 | RANDOM) % 1000000 + 3 ))"}
runner=$BUILD/tests/slt_runner
if [ ! -x "$runner" ] || [ tests/sql/slt_runner.c -nt "$runner" ] || [ "$BUILD/libtarn.a" -nt "$runner" ]; then
    mkdir -p "$BUILD/tests"
    extra=""
    [ "${TARN_SANITIZED:-}" = 1 ] && extra="-fsanitize=address,undefined -fno-omit-frame-pointer"
    cc -std=c11 -g -O1 -D_GNU_SOURCE -Isrc -Iinclude $extra -o "$runner" tests/sql/slt_runner.c "$BUILD/libtarn.a" \
        -lsnappy -lzstd -llz4 -lz -lbrotlienc -lbrotlidec -lbrotlicommon -ljansson -lroaring -lxxhash -ledit -lssl -lcrypto -lre2 -lstdc++ -lm -pthread || {
        echo "cannot build the sqllogictest runner"; echo "0 passed, 1 failed"; exit 1; }
fi
require_oracle
work=$(mktemp -d "${TMPDIR:-/tmp}/tarn-diff.XXXXXX")
trap 'tn_cleanup "$work"' EXIT   # checks every table written, then removes
pass=0; fail=0; bad_seeds=()
for seed in $seeds; do
    node tests/interop/sql_differential.mjs "$work" "$seed" "$per_seed" || { echo "generator failed for seed $seed"; fail=$((fail + 1)); bad_seeds+=("$seed"); continue; }
    out=$("$runner" "$work/diff-$seed.test" 2>&1)
    line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    [ -z "$line" ] && { p=0; f=1; }
    pass=$((pass + p)); fail=$((fail + f))
    if [ "$f" != 0 ]; then
        bad_seeds+=("$seed")
        echo "$out" | grep -v '^[0-9]* passed' | head -n 60
    fi
    echo "seed $seed: $p passed, $f failed"
done
[ ${#bad_seeds[@]} -ne 0 ] && echo "failing seeds (replay with TARN_DIFF_SEEDS=\"...\"): ${bad_seeds[*]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
