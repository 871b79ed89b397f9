#!/usr/bin/env bash
# The repository stands alone: clones this repository (its committed HEAD) into an empty temp
# directory with nothing beside it, runs the install script there (a no-op when the machine
# already has the packages; the oracle's npm install runs offline from npm's cache) and the
# README's test command, `make test`, and expects every test to pass. Uncommitted changes are
# not in the clone: it checks what would land. Not run inside itself (TARN_IN_CLONE_TEST), nor
# in the sanitizer pass (the clone is the plain build). It costs a whole build and test run, so
# it runs when TARN_CLONE_TEST=1 (.ci/run sets it); otherwise it reports itself skipped.
# Ends with "N passed, N failed[, N skipped]".
set -u
. "$(dirname "$0")/lib.sh"
cd "$TN_REPO"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
if [ -n "${TARN_IN_CLONE_TEST:-}" ] || [ "${TARN_SANITIZED:-0}" = 1 ]; then
    echo "standalone clone: not run inside a clone test or under sanitizers"
    echo "0 passed, 0 failed"; exit 0
fi
if [ "${TARN_CLONE_TEST:-0}" != 1 ]; then
    echo "standalone clone: skipped (a full clone + make test; set TARN_CLONE_TEST=1, as .ci/run does)"
    echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-clone.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/alone"
if git clone -q --no-hardlinks "$TN_REPO" "$tmp/alone/tarn" 2>"$tmp/clone.err"; then
    ok "git clone into $tmp/alone (no ../shared beside it)"
else
    bad "git clone: $(cat "$tmp/clone.err")"; echo "$pass passed, $fail failed"; exit 1
fi
[ ! -e "$tmp/alone/shared" ] && ok "no sibling shared folder" || bad "a sibling shared folder exists"
cd "$tmp/alone/tarn"
# Nothing in the clone may name the workplace's shared folder.
refs=$(git grep -nE '\.\./shared|/work/shared|TARN_SHARED' -- . ':!tests/data' ':!tests/interop/standalone_clone.sh' | head -n 5)
[ -z "$refs" ] && ok "no reference to ../shared in the tree" || bad "references to ../shared: $refs"
if bash scripts/install-deps.sh >"$tmp/install.log" 2>&1; then ok "scripts/install-deps.sh"
else bad "scripts/install-deps.sh: $(tail -n 5 "$tmp/install.log")"; fi
jobs=$(nproc 2>/dev/null || echo 2)
if make -j"$jobs" >"$tmp/build.log" 2>&1; then ok "make"; else bad "make: $(tail -n 20 "$tmp/build.log")"; fi
env -u TEST_FILTER -u TARN_CLONE_TEST TARN_IN_CLONE_TEST=1 make test >"$tmp/test.log" 2>&1
rc=$?
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/test.log" | tail -n 1)
echo "clone: $line"
if [ $rc -eq 0 ] && [[ "$line" =~ ^([0-9]+)\ passed,\ 0\ failed ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]; then
    ok "make test in the clone: $line"
else
    # the runner's summary keeps only lines starting with FAIL: name the failed suites and their
    # first failures on such lines, so the outer log says what failed inside the clone
    suites=$(grep -E '^failed suites' "$tmp/test.log" | tail -n 1)
    bad "make test in the clone (exit $rc): $line; $suites"
    grep -E '^ +(FAIL|delta-check)|Sanitizer|runtime error' "$tmp/test.log" | head -n 20 | sed 's/^ */FAIL   in the clone: /'
    list=${suites#failed suites: }; list=${list%% (logs*}
    for s in $list; do
        [ -f "build/test-logs/$s.log" ] && tail -n 12 "build/test-logs/$s.log" | sed "s/^/FAIL   $s.log: /"
    done
fi
# With the oracle installed here, the clone must not skip anything either.
if oracle_available; then
    [[ "$line" =~ \ 0\ skipped ]] && ok "nothing skipped in the clone" || bad "suites skipped in the clone: $line"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
