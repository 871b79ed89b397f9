#!/usr/bin/env bash
# tests/interop/sql_sequences.sh: warehouse sequences across processes (sql/sequence.c,
# catalog/sequence.c). Four processes take values from one sequence at once, each in many
# statements (single values and batches of 500 rows): every value must be distinct and together
# they must be exactly start..start+total-1 (no value lost or given twice); a process killed with
# SIGKILL while taking values leaves the sequence readable and its next values unused; a TEMP
# sequence is invisible to another process. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$PWD/$BUILD/tarn
pass=0; fail=0
require_bin "$BIN"
dir=$(mktemp -d /tmp/tn_seq.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "    $2" | head -c 2000; echo; }

w=$dir/wh
"$BIN" -w "$w" -c "CREATE SEQUENCE ids START 100" >/dev/null 2>&1 && ok "create" || bad "create"
script=$dir/take.sql
: > "$script"
for i in $(seq 1 40); do echo "SELECT nextval('ids');" >> "$script"; echo "SELECT nextval('ids') FROM range(500);" >> "$script"; done
for p in 1 2 3 4; do "$BIN" -w "$w" -csv -f "$script" > "$dir/out$p.txt" 2> "$dir/err$p.txt" & done
wait
total=$((4 * 40 * 501))
cat "$dir"/out?.txt | grep -E '^-?[0-9]+$' | sort -n > "$dir/all.txt"
n=$(wc -l < "$dir/all.txt")
u=$(uniq "$dir/all.txt" | wc -l)
first=$(head -1 "$dir/all.txt"); last=$(tail -1 "$dir/all.txt")
[ "$n" = "$total" ] && ok "4 processes took $total values" || bad "values taken" "$n of $total; $(cat "$dir"/err?.txt | head -3)"
[ "$u" = "$n" ] && ok "no value given twice" || bad "duplicates" "$((n - u)) duplicate values"
[ "$first" = 100 ] && [ "$last" = $((100 + total - 1)) ] && ok "values are exactly 100..$((100 + total - 1))" \
    || bad "range" "first $first last $last"

# SIGKILL while taking values: the state file stays whole and later values are new
( for i in $(seq 1 200); do echo "SELECT nextval('ids') FROM range(100);"; done ) > "$dir/many.sql"
"$BIN" -w "$w" -csv -f "$dir/many.sql" > "$dir/killed.txt" 2>&1 &
kp=$!
sleep 0.5
kill -9 $kp 2>/dev/null; wait $kp 2>/dev/null
next=$("$BIN" -w "$w" -csv -c "SELECT nextval('ids')" 2>&1 | tail -1)
maxk=$(grep -E '^-?[0-9]+$' "$dir/killed.txt" | sort -n | tail -1)
[ -z "$maxk" ] && maxk=$last
if [[ "$next" =~ ^[0-9]+$ ]] && [ "$next" -gt "$maxk" ] && [ "$next" -gt "$last" ]; then
    ok "after SIGKILL the next value ($next) is above every value handed out"
else
    bad "after SIGKILL" "next '$next', last seen $maxk"
fi

out=$("$BIN" -w "$w" -csv -c "CREATE TEMP SEQUENCE mine; SELECT nextval('mine')" 2>&1 | tail -1)
[ "$out" = 1 ] && ok "temp sequence in its session" || bad "temp sequence" "$out"
out=$("$BIN" -w "$w" -csv -c "SELECT nextval('mine')" 2>&1 | head -1)
case "$out" in *"Sequence with name mine does not exist"*) ok "temp sequence not visible to another process";;
    *) bad "temp sequence leaked" "$out";; esac
[ ! -e "$w/_sequences/mine.json" ] && ok "temp sequence not written to the warehouse" || bad "temp sequence file"

echo "$pass passed, $fail failed"
