#!/usr/bin/env bash
# The `tarn` command's SQL front end without a terminal: -f from /dev/stdin, a pipe and a
# process substitution (read to the end); input that is not UTF-8 refused naming where it is;
# empty and comment-only input. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cd "$TN_REPO"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-shell-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
T="$TN_REPO/$BUILD/tarn"
W=$tmp/wh
check() {   # check NAME WANT CMD...: stdout of CMD equals WANT
    local name=$1 want=$2; shift 2
    local got; got=$("$@" 2>"$tmp/err")
    [ "$got" = "$want" ] && ok "$name" || { ko "$name"; echo "  want: $want"; echo "  got:  $got"; sed 's/^/  err: /' "$tmp/err" | head -5; }
}

# -- -f reads pipes and process substitutions to the end (issue 16, item 6)
check "-f /dev/stdin from a pipe" $'x\n42' bash -c "printf 'SELECT 42 AS x;\n' | '$T' -w '$W' --csv -f /dev/stdin"
check "-f - from a pipe" $'x\n7' bash -c "printf 'SELECT 7 AS x;' | '$T' -w '$W' --csv -f -"
check "-f <(process substitution)" $'y\nps' bash -c "'$T' -w '$W' --csv -f <(printf 'SELECT %s AS y;' \"'ps'\")"
check "-f a FIFO" $'z\n1\nz\n2' bash -c "mkfifo '$tmp/fifo'; (printf 'SELECT 1 AS z;\nSELECT 2 AS z;\n' > '$tmp/fifo' &); '$T' -w '$W' --csv -f '$tmp/fifo'"
big=$(for i in $(seq 1 3000); do echo "SELECT $i AS n;"; done)
n=$(printf '%s\n' "$big" | "$T" -w "$W" --csv -f /dev/stdin | grep -c -v '^n$')
[ "$n" = 3000 ] && ok "-f /dev/stdin runs all 3000 statements of a long pipe" || ko "long pipe: $n rows"
"$T" -w "$W" -f "$tmp/missing.sql" 2>"$tmp/err"; rc=$?
[ $rc -ne 0 ] && grep -q "missing.sql" "$tmp/err" && ok "-f of a missing file fails naming it" || ko "missing -f: rc $rc $(cat "$tmp/err")"

# -- empty and comment-only input
check "empty -c" "" "$T" -w "$W" -c ""
check "comment-only -c" "" "$T" -w "$W" -c "-- nothing here"
check "comment-only pipe" "" bash -c "printf '/* x */\n-- y\n' | '$T' -w '$W'"

# -- text that is not UTF-8
printf 'id,name\n1,ok\n2,caf\xe9\n' > "$tmp/bad.csv"
"$T" -w "$W" --csv -c "SELECT * FROM read_csv('$tmp/bad.csv')" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -ne 0 ] && grep -q "bad.csv: line 3, column 'name': invalid UTF-8" "$tmp/err" && ok "CSV with invalid UTF-8 refused with file, line, column" || ko "CSV: rc $rc $(cat "$tmp/err")"
check "CSV invalid_utf8 = 'replace'" $'name\nok\ncaf\xef\xbf\xbd' "$T" -w "$W" --csv -c "SELECT name FROM read_csv('$tmp/bad.csv', invalid_utf8 = 'replace') ORDER BY id"
printf '{"s":"a\xff"}\n' > "$tmp/bad.json"
"$T" -w "$W" --csv -c "SELECT * FROM read_json('$tmp/bad.json')" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -ne 0 ] && grep -q "bad.json: line 1, column 's': invalid UTF-8" "$tmp/err" && ok "NDJSON with invalid UTF-8 refused" || ko "NDJSON: rc $rc $(cat "$tmp/err")"
"$T" -w "$W" --csv -c "$(printf "SELECT 'x\xc3'")" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -ne 0 ] && grep -q "line 1, column 10: invalid UTF-8" "$tmp/err" && ok "SQL literal with invalid UTF-8 refused" || ko "SQL: rc $rc $(cat "$tmp/err")"
if oracle_available; then
    # DuckDB refuses the same CSV: both engines agree that it is not text
    "$DUCK" "SELECT * FROM read_csv('$tmp/bad.csv')" >/dev/null 2>&1 && ko "DuckDB read the invalid CSV" || ok "DuckDB refuses it too"
    "$T" -w "$W" -c "COPY (SELECT name FROM read_csv('$tmp/bad.csv', invalid_utf8 = 'replace')) TO '$tmp/fixed.parquet'" 2>"$tmp/err" \
        && [ "$("$DUCK" "SELECT count(*) FROM read_parquet('$tmp/fixed.parquet') WHERE name LIKE 'caf%'" 2>&1 | tail -n 1)" = 1 ] \
        && ok "replaced text written to Parquet reads in DuckDB" || ko "replace to parquet: $(cat "$tmp/err")"
fi
tn_cleanup "$W"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
