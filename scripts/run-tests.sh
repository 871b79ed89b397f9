#!/usr/bin/env bash
# Runs every test suite and ends with one line "N passed, N failed, N skipped" (the sums over
# the suites). Suites: each unit-test binary in $BUILD/tests/, then each tests/interop/*.sh
# script (run with BUILD set). Every suite prints its own "N passed, N failed[, N skipped]" as
# its last line; a suite that crashes or prints no such line counts as one failure. A suite
# skips only what needs something the machine could not install (the DuckDB oracle without
# network): tests/interop/lib.sh. TEST_FILTER=substr runs matching suites.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
total_pass=0; total_fail=0; total_skip=0; failed_suites=(); skipped_suites=()
log_dir=$BUILD/test-logs; mkdir -p "$log_dir"

run_suite() {
    local name=$1; shift
    local log="$log_dir/$name.log"
    local checks="$log_dir/$name.delta-check"
    local start=$(date +%s)
    rm -f "$checks"
    TARN_DELTA_CHECK_OUT="$PWD/$checks" "$@" >"$log" 2>&1
    local rc=$?
    local line; line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    local p=0 f=0 s=0
    if [ -n "$line" ]; then
        p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
        f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
        if [[ "$line" =~ ([0-9]+)\ skipped ]]; then s=${BASH_REMATCH[1]}; fi
    fi
    if [ -z "$line" ] || { [ $rc -ne 0 ] && [ "$f" -eq 0 ]; }; then f=$((f + 1)); fi
    # every table the suite wrote, validated by tests/delta_check when the suite cleaned up
    local tp=0 tf=0 ts=0
    if [ -f "$checks" ]; then
        tp=$(grep -c '^PASS ' "$checks"); tf=$(grep -c '^FAIL ' "$checks"); ts=$(grep -c '^SKIP ' "$checks")
        p=$((p + tp)); f=$((f + tf)); s=$((s + ts))
    fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
    printf '%-40s %5d passed %3d failed %3d skipped  (%ds)%s\n' "$name" "$p" "$f" "$s" $(( $(date +%s) - start )) \
        "$( [ $((tp + tf + ts)) -gt 0 ] && echo "  [$((tp + tf + ts)) Delta tables checked]")"
    if [ "$s" -ne 0 ]; then skipped_suites+=("$name: $(grep -m1 -iE 'skip' "$log" | cut -c1-120)"); fi
    if [ "$f" -ne 0 ]; then
        failed_suites+=("$name")
        grep -E '^FAIL|ERROR|error|Sanitizer|runtime error' "$log" | head -n 30 | sed 's/^/    /'
        [ -f "$checks" ] && grep '^FAIL ' "$checks" | head -n 10 | cut -c1-400 | sed 's/^/    delta-check: /'
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    [[ -n "${TEST_FILTER:-}" && "$name" != *"$TEST_FILTER"* ]] && continue
    run_suite "$name" "$t"
done
for t in tests/interop/*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    [ "$name" = lib ] && continue                   # sourced by the suites, not one itself
    [[ -n "${TEST_FILTER:-}" && "$name" != *"$TEST_FILTER"* ]] && continue
    run_suite "$name" bash "$t"
done

for s in "${skipped_suites[@]}"; do echo "skipped: $s"; done
if [ ${#failed_suites[@]} -ne 0 ]; then echo "failed suites: ${failed_suites[*]} (logs in $log_dir)"; fi
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
