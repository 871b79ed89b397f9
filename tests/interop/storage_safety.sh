#!/usr/bin/env bash
# tests/interop/storage_safety.sh: nothing outside a table is ever deleted (issue 16 item 1) and
# VACUUM keeps time travel within the retention (item 2). In a temp dir holding a victim
# directory and symlinks: LOCATION must be missing, empty or a Delta table, relative LOCATIONs
# resolve against the warehouse, outside it needs SET allow_external_locations = true; DROP
# TABLE / DROP SCHEMA CASCADE / VACUUM never follow symlinks and never enter nested tables;
# VACUUM deletes only files the table owns and lists the rest; a removed file stays while its
# remove.deletionTimestamp is within the retention. An /etc-like case runs in a private mount
# namespace (unshare -rm) when the machine allows one. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$PWD/$BUILD/tarn
pass=0; fail=0; skip=0
require_bin "$BIN"
dir=$(mktemp -d /tmp/tn_safety.XXXXXX)
cd "$dir"   # a relative path resolved against the working directory lands here, not in the repository
trap 'rm -rf "$dir/victim" "$dir/ext"; tn_cleanup "$dir"' EXIT
wh=$dir/wh
mkdir -p "$wh" "$dir/victim/sub"
victim_files() { find "$dir/victim" -type f | sort | tr '\n' ' '; }
reset_victim() {
    rm -rf "$dir/victim"; mkdir -p "$dir/victim/sub"
    echo precious >"$dir/victim/a.txt"; echo precious >"$dir/victim/sub/b.txt"
    touch -d '30 days ago' "$dir/victim/a.txt" "$dir/victim/sub/b.txt"
}
reset_victim
VICTIM_WANT=$(victim_files)

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
victim_intact() { local got; got=$(victim_files); if [ "$got" = "$VICTIM_WANT" ]; then ok "$1"; else bad "$1" "victim now: $got"; fi; }
novac="SET 'spark.databricks.delta.retentionDurationCheck.enabled' = 'false';"

# --- LOCATION rules -----------------------------------------------------------------------------
expect_error "LOCATION: a non-empty directory outside the warehouse is refused" \
    "SET allow_external_locations = true; CREATE TABLE t1 (id INT) LOCATION '$dir/victim'" "neither empty nor a Delta table"
[ ! -e "$dir/victim/_delta_log" ] && ok "LOCATION: nothing written into the refused directory" || bad "LOCATION: _delta_log written into the victim"
expect_error "LOCATION: outside the warehouse needs allow_external_locations" \
    "CREATE TABLE t1 (id INT) LOCATION '$dir/ext/t1'" "allow_external_locations"
[ ! -e "$dir/ext" ] && ok "LOCATION: refused external path not created" || bad "LOCATION: refused external path created"
expect_error "LOCATION: .. escaping the warehouse counts as outside" \
    "CREATE TABLE t1 (id INT) LOCATION '../ext/t1'" "outside the warehouse"
expect_error "SET allow_external_locations takes a boolean" "SET allow_external_locations = 'maybe'" "true or false"
run "SET allow_external_locations = true; CREATE TABLE ext1 (id INT) LOCATION '$dir/ext/t1'; INSERT INTO ext1 VALUES (1), (2)"
[ -d "$dir/ext/t1/_delta_log" ] && ok "LOCATION: external table created when allowed" || bad "LOCATION: external table missing"
expect "LOCATION: external table reads" "SELECT sum(id) FROM ext1" $'sum(id)\n3'
run "CREATE TABLE rel1 (id INT) LOCATION 'data/rel1'; INSERT INTO rel1 VALUES (7)"
[ -d "$wh/data/rel1/_delta_log" ] && ok "LOCATION: a relative path resolves against the warehouse" \
    || bad "LOCATION: relative path" "$(ls -R "$wh" | head -20)"
(cd "$dir" && "$BIN" -w "$wh" -c "CREATE TABLE rel2 (id INT) LOCATION 'rel2'" >/dev/null 2>&1)
[ -d "$wh/rel2/_delta_log" ] || [ -d "$wh/rel2" ] && [ ! -d "$dir/rel2" ] && ok "LOCATION: not against the working directory" \
    || bad "LOCATION: relative resolved against cwd"
mkdir -p "$dir/ext/empty"
run "SET allow_external_locations = true; CREATE TABLE e2 (id INT) LOCATION '$dir/ext/empty'" && ok "LOCATION: an empty directory is accepted"
run "SET allow_external_locations = true; CREATE TABLE ext1again (id INT) LOCATION '$dir/ext/t1'" \
    && ok "LOCATION: an existing Delta table is registered"
expect "LOCATION: registered table reads the same data" "SELECT sum(id) FROM ext1again" $'sum(id)\n3'
# a symlink in the warehouse pointing out is outside too
ln -s "$dir/ext" "$wh/escape"
expect_error "LOCATION: through a symlink out of the warehouse is outside" \
    "CREATE TABLE t3 (id INT) LOCATION 'escape/t3'" "outside the warehouse"

# --- DROP never follows symlinks ----------------------------------------------------------------
run "CREATE TABLE d1 (id INT); INSERT INTO d1 VALUES (1)"
ln -s "$dir/victim" "$wh/d1/linkdir"; ln -s "$dir/victim/a.txt" "$wh/d1/linkfile"
run "DROP TABLE d1"
victim_intact "DROP TABLE: symlinks to a directory and a file are not followed"
[ ! -e "$wh/d1" ] && ! ls -a "$wh" | grep -q dropped && ok "DROP TABLE: the table is gone" || bad "DROP TABLE left" "$(ls -a "$wh")"
run "CREATE SCHEMA s1; CREATE TABLE s1.t (id INT); INSERT INTO s1.t VALUES (1)"
ln -s "$dir/victim" "$wh/s1/t/part-link"; ln -s "$dir/victim" "$wh/s1/stray"
run "DROP SCHEMA s1 CASCADE"
victim_intact "DROP SCHEMA CASCADE: symlinks are not followed"
[ ! -e "$wh/s1" ] && ok "DROP SCHEMA CASCADE: the schema is gone" || bad "DROP SCHEMA left" "$(ls -aR "$wh/s1")"
run "SET allow_external_locations = true; CREATE TABLE x1 (id INT) LOCATION '$dir/ext/x1'; INSERT INTO x1 VALUES (5); DROP TABLE x1"
[ -d "$dir/ext/x1/_delta_log" ] && ok "DROP TABLE of a LOCATION table keeps its data" || bad "DROP TABLE deleted external data"
# a nested table is refused, nothing deleted
run "CREATE TABLE n1 (id INT); INSERT INTO n1 VALUES (1)"
run "SET allow_external_locations = true; CREATE TABLE inner1 (id INT) LOCATION '$wh/n1/inner'; INSERT INTO inner1 VALUES (9)"
expect_error "DROP TABLE: a nested table is refused" "DROP TABLE n1" "holds another table"
expect "DROP TABLE: the nested table still reads" "SELECT id FROM inner1" $'id\n9'
expect "DROP TABLE: the outer table still reads" "SELECT id FROM n1" $'id\n1'

# --- VACUUM -------------------------------------------------------------------------------------
run "CREATE TABLE v1 (id INT, p VARCHAR) PARTITIONED BY (p); INSERT INTO v1 VALUES (1, 'a'), (2, 'b')"
run "INSERT OVERWRITE v1 VALUES (3, 'a')"
ln -s "$dir/victim" "$wh/v1/linkdir"
ln -s "$dir/victim" "$wh/v1/p=a/linkdir"
echo mine >"$wh/v1/notes.txt"; touch -d '30 days ago' "$wh/v1/notes.txt"
echo partfile >"$wh/v1/p=b/stray.txt"; touch -d '30 days ago' "$wh/v1/p=b/stray.txt"
mkdir -p "$wh/v1/sub"; echo deep >"$wh/v1/sub/keep.bin"; touch -d '30 days ago' "$wh/v1/sub/keep.bin"
run "SET allow_external_locations = true; CREATE TABLE nested2 (id INT) LOCATION '$wh/v1/nested'; INSERT INTO nested2 VALUES (4)"
find "$wh/v1" "$dir/victim" -type f -exec touch -h -d '30 days ago' {} +
out=$(q "$novac VACUUM v1 RETAIN 0 HOURS")
victim_intact "VACUUM: symlinked directories are not followed"
[ -f "$wh/v1/notes.txt" ] && [ -f "$wh/v1/sub/keep.bin" ] && ok "VACUUM: files the table does not own are kept" \
    || bad "VACUUM deleted foreign files" "$out"
[[ "$out" == *"notes.txt (not written by this table)"* && "$out" == *"linkdir (a symlink"* && "$out" == *"nested (another table"* ]] \
    && ok "VACUUM: kept files are listed with the reason" || bad "VACUUM listing" "$out"
[ ! -e "$wh/v1/p=b/stray.txt" ] && ok "VACUUM: a file under the table's partition directory goes" || bad "VACUUM kept p=b/stray.txt"
expect "VACUUM: the nested table is untouched" "SELECT id FROM nested2" $'id\n4'
expect "VACUUM: the table still reads" "SELECT id, p FROM v1 ORDER BY id" $'id,p\n2,b\n3,a'
n=$(find "$wh/v1" -path "$wh/v1/nested" -prune -o -name 'part-*.parquet' -print | wc -l)
[ "$n" = 2 ] && ok "VACUUM: the removed data files went, the live one stayed" || bad "VACUUM data files: $n"
[ -L "$wh/v1/linkdir" ] && ok "VACUUM: the symlink itself is kept" || bad "VACUUM removed the symlink"

# --- item 2: VACUUM honours remove.deletionTimestamp, not mtime ---------------------------------
run "CREATE TABLE r1 (id INT); INSERT INTO r1 VALUES (1), (2), (3)"
find "$wh/r1" -name 'part-*.parquet' -exec touch -d '10 days ago' {} +
run "DELETE FROM r1 WHERE id = 2"
find "$wh/r1" -name 'part-*.parquet' -newermt '1 hour ago' -exec touch -d '10 days ago' {} +
expect "VACUUM: default VACUUM after a fresh remove" "VACUUM r1" $'files_deleted,bytes_deleted,dirs_deleted,files_not_owned,not_owned\n0,0,0,0,""'
expect "VACUUM: VERSION AS OF before the remove still reads" "SELECT sum(id) FROM r1 VERSION AS OF 1" $'sum(id)\n6'
# a remove older than the retention goes (the log's deletionTimestamp rewritten 8 days back)
python3 - "$wh/r1/_delta_log/00000000000000000002.json" <<'EOF'
import json, sys, time
p = sys.argv[1]
lines = [json.loads(l) for l in open(p) if l.strip()]
for a in lines:
    if "remove" in a: a["remove"]["deletionTimestamp"] = int((time.time() - 8 * 86400) * 1000)
open(p, "w").write("".join(json.dumps(a) + "\n" for a in lines))
EOF
out=$(q "VACUUM r1")
[[ "$out" == *$'\n1,'* ]] && ok "VACUUM: a remove older than the retention goes" || bad "VACUUM expired remove" "$out"
expect "VACUUM: the current version still reads" "SELECT sum(id) FROM r1" $'sum(id)\n4'
# an orphan (never in the log) with a recent mtime stays, an old tarn-named one goes
echo x >"$wh/r1/part-00000-11111111-2222-3333-4444-555555555555-c000.snappy.parquet"
out=$(q "VACUUM r1")
[ -f "$wh/r1/part-00000-11111111-2222-3333-4444-555555555555-c000.snappy.parquet" ] \
    && ok "VACUUM: a young orphan stays" || bad "VACUUM deleted a young orphan" "$out"
touch -d '10 days ago' "$wh/r1/part-00000-11111111-2222-3333-4444-555555555555-c000.snappy.parquet"
out=$(q "VACUUM r1")
[ ! -e "$wh/r1/part-00000-11111111-2222-3333-4444-555555555555-c000.snappy.parquet" ] \
    && ok "VACUUM: an old tarn-named orphan goes" || bad "VACUUM kept an old orphan" "$out"
expect_error "VACUUM RETAIN 0 HOURS says how to force it" "VACUUM r1 RETAIN 0 HOURS" \
    "SET spark.databricks.delta.retentionDurationCheck.enabled = false"

# a huge retention keeps everything (no overflow turning it into "delete all"); inf/NaN refused
run "DELETE FROM r1 WHERE id = 3"
python3 - "$wh/r1/_delta_log/00000000000000000003.json" <<'EOF'
import json, sys, time
p = sys.argv[1]
lines = [json.loads(l) for l in open(p) if l.strip()]
for a in lines:
    if "remove" in a: a["remove"]["deletionTimestamp"] = int((time.time() - 8 * 86400) * 1000)
open(p, "w").write("".join(json.dumps(a) + "\n" for a in lines))
EOF
expect "VACUUM RETAIN 10^20 HOURS deletes nothing" "VACUUM r1 RETAIN 99999999999999999999 HOURS" \
    $'files_deleted,bytes_deleted,dirs_deleted,files_not_owned,not_owned\n0,0,0,0,""'
expect "VACUUM RETAIN 10^320 HOURS deletes nothing" "VACUUM r1 RETAIN $(printf '9%.0s' $(seq 1 320)) HOURS" \
    $'files_deleted,bytes_deleted,dirs_deleted,files_not_owned,not_owned\n0,0,0,0,""'
expect "VACUUM: the removed file is still there for time travel" "SELECT sum(id) FROM r1 VERSION AS OF 2" $'sum(id)\n4'
for iv in "interval inf hours" "interval nan days" "interval 1e300 days"; do
    expect_error "delta.deletedFileRetentionDuration = '$iv' refused" \
        "CREATE TABLE rbad (id INT) WITH ('delta.deletedFileRetentionDuration' = '$iv')" "delta.deletedFileRetentionDuration"
done

# --- an /etc-like target, in a private mount namespace ------------------------------------------
if unshare -rm true 2>/dev/null; then
    out=$(unshare -rm bash -c '
        set -u
        mkdir -p "$1/fakeetc"; echo root >"$1/fakeetc/passwd"; echo h >"$1/fakeetc/hosts"
        mount --bind "$1/fakeetc" /etc || exit 3
        "$2" -w "$1/wh" -c "SET allow_external_locations = true; CREATE TABLE etc1 (id INT) LOCATION '"'"'/etc'"'"'" 2>&1
        echo "rc=$?"; ls /etc | tr "\n" " "' _ "$dir" "$BIN" 2>&1)
    if [[ "$out" == *"neither empty nor a Delta table"* && "$out" == *"hosts passwd"* && "$out" != *"_delta_log"* ]]; then
        ok "LOCATION '/etc' (a bind-mounted stand-in) is refused and untouched"
    else
        bad "LOCATION /etc" "$out"
    fi
else
    skip=$((skip + 1)); echo "skip LOCATION /etc: unshare -rm (a private mount namespace) is not available"
fi

# --- a full disk (a 2 MB tmpfs in a private mount namespace): the path is said once ------------
if unshare -rm true 2>/dev/null; then
    mkdir -p "$dir/small"
    out=$(unshare -rm bash -c '
        mount -t tmpfs -o size=2m tmpfs "$1" || exit 3
        "$2" -w "$1/wh" -c "CREATE TABLE full1 AS SELECT md5(CAST(r AS VARCHAR)) s FROM range(200000) t(r)" 2>&1
        echo "rc=$?"; ls "$1/wh/full1" 2>&1 | tr "\n" " "' _ "$dir/small" "$BIN" 2>&1)
    f=$(echo "$out" | grep -o '/part-[^:]*\.parquet' | head -1)
    if [[ "$out" == *"No space left on device"* && "$out" == *"rc=1"* && -n "$f" ]] \
        && [ "$(echo "$out" | grep -o -- "$f" | wc -l)" -eq 1 ]; then
        ok "ENOSPC: the error names the data file once"
    else
        bad "ENOSPC message" "$out"
    fi
else
    skip=$((skip + 1)); echo "skip ENOSPC: unshare -rm (a private mount namespace) is not available"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
