#!/usr/bin/env bash
# Short fuzz run of every libFuzzer target (build-fuzz/fuzz_*, built by `make fuzz`):
#   scripts/fuzz-run.sh [SECONDS]     (default $FUZZ_SECONDS, else 30 seconds per target)
# First replays every file of tests/fuzz/regressions/ through each target (a past crash must
# stay fixed), then fuzzes each target for SECONDS over a temporary copy of its seed corpus
# tests/fuzz/corpus/<target without "fuzz_">/ (the checked-in corpus is never modified).
# A crash/leak/timeout/OOM found is copied to tests/fuzz/regressions/<target>-<kind>-<sha1>
# and fails that target. Prints one line per target, then "N passed, N failed".
# FUZZ_SEED=N fixes libFuzzer's random seed (CI does, so that its run is reproducible and a
# finding is not a matter of luck there); unset, every run explores from a new random seed, as
# the longer local campaigns should.
set -u
cd "$(dirname "$0")/.."
secs=${1:-${FUZZ_SECONDS:-30}}
[ -n "$secs" ] || secs=30
FUZZ_DIR=${FUZZ_DIR:-build-fuzz}
regress_dir=tests/fuzz/regressions
mkdir -p "$regress_dir"
# UBSan findings must stop the run (the library is built without -fno-sanitize-recover).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

# Build the targets if `make fuzz` did not (e.g. when this script is run alone).
shopt -s nullglob
srcs=(tests/fuzz/fuzz_*.c)
hdrs=(tests/fuzz/*.h)                     # shared harness code (memfs.h): every target uses it
need_build=0
for s in "${srcs[@]}"; do
    b=$FUZZ_DIR/$(basename "$s" .c)
    [ -x "$b" ] && [ "$b" -nt "$s" ] || need_build=1
    for h in "${hdrs[@]}"; do [ -x "$b" ] && [ "$b" -nt "$h" ] || need_build=1; done
done
if [ $need_build -eq 1 ]; then make -s fuzz >/dev/null || echo "fuzz-run: make fuzz failed" >&2; fi

pass=0; fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for s in "${srcs[@]}"; do
    target=$(basename "$s" .c)
    bin=$FUZZ_DIR/$target
    if [ ! -x "$bin" ]; then
        echo "FAIL $target: $bin was not built"; fail=$((fail + 1)); continue
    fi
    log=$tmp/$target.log
    # 1. Regressions: every saved input runs once (libFuzzer runs files given as arguments).
    regs=("$regress_dir"/*)
    regs_files=()
    for r in "${regs[@]}"; do [ -f "$r" ] && regs_files+=("$r"); done
    # Each file alone, so that every one still failing is named (not just the first).
    bad=0
    for r in "${regs_files[@]}"; do
        if ! "$bin" -runs=1 -timeout=20 "$r" >"$log" 2>&1; then
            [ $bad -eq 0 ] && echo "FAIL $target: regression input(s) fail again:"
            echo "    $r:"
            grep -E 'ERROR|SUMMARY|runtime error|^[a-z_]+: ' "$log" | grep -v '^INFO' | head -n 3 | sed 's/^/        /'
            bad=$((bad + 1))
        fi
    done
    if [ $bad -ne 0 ]; then fail=$((fail + 1)); continue; fi
    # 2. Fuzz over a copy of the seed corpus.
    corpus=$tmp/corpus-$target; art=$tmp/art-$target/
    mkdir -p "$corpus" "$art"
    seed_dir=tests/fuzz/corpus/${target#fuzz_}
    [ -d "$seed_dir" ] && cp "$seed_dir"/* "$corpus"/ 2>/dev/null
    seed_opt=()
    [ -n "${FUZZ_SEED:-}" ] && seed_opt=(-seed="$FUZZ_SEED")
    "$bin" "${seed_opt[@]}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=262144 \
        -artifact_prefix="$art" -print_final_stats=1 "$corpus" >"$log" 2>&1
    rc=$?
    # A slow unit (over libFuzzer's 10 s report threshold, under the 20 s timeout) is named,
    # not failed: on a loaded machine any input can cross it; a timeout or crash fails.
    for a in "$art"slow-unit-*; do
        echo "    slow input (kept out of regressions): $(basename "$a"), $(grep -m1 -o 'Slowest unit: [0-9]* s' "$log")"
        rm -f "$a"
    done
    found=("$art"*)
    if [ $rc -ne 0 ] || [ ${#found[@]} -ne 0 ]; then
        for a in "${found[@]}"; do
            name=$(basename "$a")                               # crash-<sha1>, leak-..., ...
            cp "$a" "$regress_dir/$target-$name"
            echo "    saved $regress_dir/$target-$name"
        done
        echo "FAIL $target (exit $rc):"
        grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "$log" | head -n 8 | sed 's/^/    /'
        fail=$((fail + 1))
    else
        runs=$(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}')
        echo "pass $target (${secs}s, ${runs:-?} runs, corpus $(ls "$corpus" | wc -l) inputs)"
        pass=$((pass + 1))
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
