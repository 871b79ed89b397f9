#!/usr/bin/env bash
# tests/interop/storage_log.sh: the Delta log is read exactly (issue 16 item 3). A version
# missing after the last checkpoint is an error naming the hole, as before a checkpoint, and
# writers refuse rather than fill the hole; a 0-byte version file is an error; DESCRIBE HISTORY
# and writers cope with versions near 2^63. The logs are damaged by hand the way a lost file or
# a torn copy would damage them. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$PWD/$BUILD/tarn
pass=0; fail=0
require_bin "$BIN"
dir=$(mktemp -d /tmp/tn_storlog.XXXXXX)
cd "$dir"
trap 'rm -rf "$dir/wh/gap" "$dir/wh/gap0" "$dir/wh/empty"; tn_cleanup "$dir"' EXIT
wh=$dir/wh

ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "    $2" | head -c 2000; echo; }
run() { if ! "$BIN" -w "$wh" --csv -c "$1" >"$dir/out" 2>"$dir/err"; then bad "setup: $1" "$(cat "$dir/err")"; return 1; fi; }
q() { "$BIN" -w "$wh" --csv -c "$1" 2>&1; }
expect() { local got; got=$(q "$2"); if [ "$got" = "$3" ]; then ok "$1"; else bad "$1" "got: $got | expected: $3"; fi; }
expect_error() {
    local got rc
    got=$("$BIN" -w "$wh" -c "$2" 2>&1); rc=$?
    if [ $rc -ne 0 ] && [[ "$got" == *"$3"* ]]; then ok "$1"; else bad "$1" "rc=$rc got: $got | expected an error with: $3"; fi
}
v() { printf '%s/_delta_log/%020d.json' "$wh/$1" "$2"; }

# --- a hole after the last checkpoint -----------------------------------------------------------
run "CREATE TABLE gap (id INT) TBLPROPERTIES ('delta.checkpointInterval' = '4')"
for i in 1 2 3 4 5; do run "INSERT INTO gap VALUES ($i)"; done
[ -f "$wh/gap/_delta_log/00000000000000000004.checkpoint.parquet" ] && ok "setup: checkpoint at version 4" \
    || bad "setup: no checkpoint at 4" "$(ls "$wh/gap/_delta_log")"
run "INSERT INTO gap VALUES (6); INSERT INTO gap VALUES (7)"      # versions 6, 7
rm "$(v gap 6)"
expect_error "a version missing after the checkpoint is an error" "SELECT count(*) FROM gap" "versions are not contiguous"
expect_error "the error names the missing version" "SELECT sum(id) FROM gap" "version 6 is missing"
expect_error "a writer refuses the table with a hole" "INSERT INTO gap VALUES (8)" "versions are not contiguous"
[ ! -e "$(v gap 6)" ] && [ ! -e "$(v gap 8)" ] && ok "the writer did not fill the hole" || bad "hole filled" "$(ls "$wh/gap/_delta_log")"
expect_error "DESCRIBE HISTORY of the table with a hole" "DESCRIBE HISTORY gap" "versions are not contiguous"
# the same before any checkpoint (already an error: kept so)
run "CREATE TABLE gap0 (id INT); INSERT INTO gap0 VALUES (1); INSERT INTO gap0 VALUES (2); INSERT INTO gap0 VALUES (3)"
rm "$(v gap0 2)"
expect_error "a version missing before any checkpoint is an error" "SELECT count(*) FROM gap0" "versions are not contiguous"

# --- a 0-byte version file ----------------------------------------------------------------------
run "CREATE TABLE empty (id INT); INSERT INTO empty VALUES (1); INSERT INTO empty VALUES (2)"
: >"$(v empty 2)"
expect_error "a 0-byte version file is an error" "SELECT sum(id) FROM empty" "empty log file"
expect_error "the error names the file" "SELECT sum(id) FROM empty" "00000000000000000002.json"
expect_error "a writer refuses it too" "INSERT INTO empty VALUES (3)" "empty log file"
[ ! -s "$(v empty 2)" ] && [ ! -e "$(v empty 3)" ] && ok "the 0-byte file was not overwritten" || bad "0-byte file replaced"

# --- versions near 2^63 -------------------------------------------------------------------------
run "CREATE TABLE big (id INT) TBLPROPERTIES ('delta.checkpointInterval' = '2'); INSERT INTO big VALUES (1); INSERT INTO big VALUES (2); INSERT INTO big VALUES (3)"
L=$wh/big/_delta_log
rm "$L/00000000000000000000.json" "$L/00000000000000000001.json"
mv "$L/00000000000000000002.checkpoint.parquet" "$L/09223372036854775806.checkpoint.parquet"
mv "$L/00000000000000000002.json" "$L/09223372036854775806.json"
mv "$L/00000000000000000003.json" "$L/09223372036854775807.json"
sed -i 's/"version":2,/"version":9223372036854775806,/' "$L/_last_checkpoint"
expect "a table at version 2^63-1 reads" "SELECT sum(id) FROM big" $'sum(id)\n6'
got=$(q "SELECT version, operation, isBlindAppend FROM (DESCRIBE HISTORY big)" 2>&1)
[ "$got" = $'version,operation,isBlindAppend\n9223372036854775807,WRITE,true\n9223372036854775806,WRITE,true' ] \
    && ok "DESCRIBE HISTORY at version 2^63-1" || {
    got=$(q "DESCRIBE HISTORY big")
    if printf '%s' "$got" | LC_ALL=C grep -q '[^[:print:][:space:]]'; then bad "DESCRIBE HISTORY garbage bytes" "$got"
    elif [[ "$got" == *$'\n9223372036854775807,'*"WRITE"*$'\n9223372036854775806,'*"WRITE"* ]]; then ok "DESCRIBE HISTORY at version 2^63-1"
    else bad "DESCRIBE HISTORY near 2^63" "$got"; fi
}
expect_error "a commit after version 2^63-1 is refused" "INSERT INTO big VALUES (4)" "last one a Delta log can hold"
: >"$L/10000000000000000000.json"
expect_error "a version number above 2^63-1 is an error" "SELECT count(*) FROM big" "version number out of range"
rm "$L/10000000000000000000.json"
rm -rf "$wh/big"   # renamed by hand: not a table the checker should judge

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
