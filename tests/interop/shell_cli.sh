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
# -- dot-commands and flags (sqlite3/duckdb spelling), without a terminal
D=$tmp/dots; mkdir -p "$D"
run() { "$T" -w "$W" "$@" 2>"$tmp/err"; }
check "-csv alias" $'a,b\n1,x' run -csv -c "SELECT 1 AS a, 'x' AS b"
check "-json alias" '[{"a":1,"b":"x"}]' run -json -c "SELECT 1 AS a, 'x' AS b"
check "-jsonlines" $'{"a":1}\n{"a":2}' run -jsonlines -c "SELECT * FROM (VALUES (1), (2)) t(a) ORDER BY a"
# nested values as JSON arrays / objects (maps keyed by the key's text), as DuckDB's to_json
check "--json nested values" '[{"a":[1,null],"b":{"a":"x","b":[1.5]},"c":{"k":1},"e":{"1":2},"d":["2020-01-01"],"f":null}]' \
    run --json -c "SELECT [1,NULL] a, {'a': 'x', 'b': [1.5]} b, MAP{'k': 1} c, MAP{1: 2} e, [DATE '2020-01-01'] d, NULL::INT[] f"
check "-noheader" '1' run -csv -noheader -c "SELECT 1 AS a"
check "-header after .headers off in -cmd" $'a\n1' run -csv -cmd ".headers off" -header -c ".headers on" -c "SELECT 1 AS a"
check ".headers off" $'1|x' run -c ".mode list" -c ".headers off" -c "SELECT 1 AS a, 'x' AS b"
check ".mode list with header" $'a|b\n1|x' run -c ".mode list" -c "SELECT 1 AS a, 'x' AS b"
check ".separator" $'a;b\n1;x' run -c ".mode list" -c ".separator ;" -c "SELECT 1 AS a, 'x' AS b"
check ".mode tabs" $'a\tb\n1\tx' run -c ".mode tabs" -c "SELECT 1 AS a, 'x' AS b"
check ".mode line" $'     a = 1\nlonger = x\n\n     a = 2\nlonger = NULL' run -c ".mode line" -c "SELECT * FROM (VALUES (1, 'x'), (2, NULL)) t(a, longer) ORDER BY a"
check ".mode markdown" $'| a   | b   |\n| --: | --- |\n|   1 | x   |' run -c ".mode markdown" -c "SELECT 1 AS a, 'x' AS b"
check ".mode table" $'+---------+---------+\n| a       | b       |\n| INTEGER | VARCHAR |\n+---------+---------+\n|       1 | x       |\n+---------+---------+\n1 row' run -c ".mode table" -c "SELECT 1 AS a, 'x' AS b"
check ".mode box" $'\u250c\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2510\n\u2502 a       \u2502\n\u2502 INTEGER \u2502\n\u251c\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2524\n\u2502       1 \u2502\n\u2514\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2518\n1 row' run -c ".mode box" -c "SELECT 1 AS a"
check ".mode json" '[{"a":1}]' run -c ".mode json" -c "SELECT 1 AS a"
check ".mode jsonlines" '{"a":null}' run -c ".mode jsonlines" -c "SELECT NULL AS a"
check ".mode csv (and -table overridden)" $'a\n1' run -table -c ".mode csv" -c "SELECT 1 AS a"
run -c ".mode nosuch" >/dev/null; rc=$?
[ $rc -ne 0 ] && grep -q "unknown mode 'nosuch'" "$tmp/err" && ok ".mode with an unknown mode fails" || ko ".mode nosuch: rc $rc"
check ".nullvalue in csv" $'a\nNIL' run -c ".nullvalue NIL" -c "SELECT NULL AS a"
check "-nullvalue in list" $'a|b\n-|1' run -list -nullvalue - -c "SELECT NULL AS a, 1 AS b"
check ".width fixes table widths (cut with …, right-aligned)" $'+-------+------+\n| a     | b    |\n| VARC… | VAR… |\n+-------+------+\n| abcd… |   xy |\n+-------+------+\n1 row' run -c ".mode table" -c ".width 5 -4" -c "SELECT 'abcdefgh' AS a, 'xy' AS b"
run -c ".output $D/out.csv" -c "SELECT 1 AS a" -c "SELECT 2 AS b" -c ".output" -c "SELECT 3 AS c" > "$D/stdout"
[ "$(cat "$D/out.csv")" = $'a\n1\nb\n2' ] && [ "$(cat "$D/stdout")" = $'c\n3' ] && ok ".output FILE then .output back to stdout" || ko ".output: $(cat "$D/out.csv") / $(cat "$D/stdout")"
run -c ".once $D/once.csv" -c "SELECT 1 AS a" -c "SELECT 2 AS b" > "$D/stdout"
[ "$(cat "$D/once.csv")" = $'a\n1' ] && [ "$(cat "$D/stdout")" = $'b\n2' ] && ok ".once writes only the next result" || ko ".once: $(cat "$D/once.csv") / $(cat "$D/stdout")"
printf 'id,name\n1,anna\n2,bo\n' > "$D/people.csv"
printf '{"id":3,"name":"cy"}\n' > "$D/more.json"
check ".import creates the table" $'n\n2' run -c ".import $D/people.csv people" -c "SELECT count(*) AS n FROM people"
check ".import into an existing table appends (JSON too)" $'id,name\n1,anna\n2,bo\n3,cy' run -c ".import $D/more.json people" -c "SELECT * FROM people ORDER BY id"
run -c ".import $D/nosuch.csv t2" >/dev/null; rc=$?
[ $rc -ne 0 ] && grep -q "nosuch.csv" "$tmp/err" && ok ".import of a missing file fails naming it" || ko ".import missing: rc $rc"
run -c "CREATE SCHEMA sales" -c "CREATE TABLE sales.orders (id BIGINT NOT NULL, \"Note\" VARCHAR, dt DATE) PARTITIONED BY (dt)" -c "CREATE VIEW sales.big AS SELECT id FROM sales.orders WHERE id > 10" >/dev/null
want=$'CREATE VIEW sales.big AS SELECT id FROM sales.orders WHERE id > 10;\nCREATE TABLE sales.orders (\n    id BIGINT NOT NULL,\n    "Note" VARCHAR,\n    dt DATE\n) PARTITIONED BY (dt);'
check ".schema prints CREATE statements" "$want" run -c ".schema sales.*"
schema_sql=$(run -c ".schema sales.orders")
rm -rf "$tmp/wh2"
"$T" -w "$tmp/wh2" -c "CREATE SCHEMA sales" -c "$schema_sql" >/dev/null 2>"$tmp/err" && [ "$("$T" -w "$tmp/wh2" -c ".schema orders")" = "$schema_sql" ] \
    && ok ".schema output runs and gives the same table" || ko ".schema replay: $(cat "$tmp/err")"
tn_cleanup "$tmp/wh2"
run -c ".schema nothing_like_this" >/dev/null; [ $? -ne 0 ] && ok ".schema of no match fails" || ko ".schema no match"
run -c ".timer on" -c "SELECT 1" >/dev/null; grep -qE '^Run Time \(s\): real [0-9.]+ user [0-9.]+ sys [0-9.]+$' "$tmp/err" && ok ".timer prints Run Time" || ko ".timer: $(cat "$tmp/err")"
run -timer -c "SELECT 1" >/dev/null; grep -q "Run Time" "$tmp/err" && ok "-timer" || ko "-timer"
check ".echo prints each statement" $'SELECT 5 AS e;\ne\n5' bash -c "printf '.echo on\nSELECT 5 AS e;\n' | '$T' -w '$W'"
check "-echo" $'SELECT 6 AS e;\ne\n6' bash -c "printf 'SELECT 6 AS e;\n' | '$T' -w '$W' -echo"
printf 'SELECT 10 AS r;\n.mode list\nSELECT 11 AS r;\n' > "$D/inc.sql"
check ".read runs SQL and dot-commands" $'r\n10\nr\n11' run -c ".read $D/inc.sql"
check "dot-commands in -f files" $'r\n10\nr\n11' run -f "$D/inc.sql"
check "dot-commands in piped input" $'x|y\n1|2' bash -c "printf '.mode list\nSELECT 1 AS x,\n  2 AS y;\n' | '$T' -w '$W'"
# piped input goes on after an error and exits non-zero; -bail and .bail stop
out=$(printf 'SELECT 1 AS a;\nSELECT nope;\nSELECT 2 AS b;\n' | "$T" -w "$W" 2>"$tmp/err"); rc=$?
[ "$out" = $'a\n1\nb\n2' ] && [ $rc -eq 1 ] && grep -q "nope" "$tmp/err" && ok "piped input continues after an error, exit 1" || ko "continue: rc $rc out $out"
out=$(printf 'SELECT 1 AS a;\nSELECT nope;\nSELECT 2 AS b;\n' | "$T" -w "$W" -bail 2>/dev/null); rc=$?
[ "$out" = $'a\n1' ] && [ $rc -eq 1 ] && ok "-bail stops at the first error" || ko "-bail: rc $rc out $out"
out=$(printf '.bail on\nSELECT nope;\nSELECT 2 AS b;\n' | "$T" -w "$W" 2>/dev/null); rc=$?
[ -z "$out" ] && [ $rc -eq 1 ] && ok ".bail on stops" || ko ".bail: rc $rc out $out"
out=$(printf '.nosuchcommand\nSELECT 2 AS b;\n' | "$T" -w "$W" 2>"$tmp/err"); rc=$?
[ "$out" = $'b\n2' ] && [ $rc -eq 1 ] && grep -q "unknown command .nosuchcommand" "$tmp/err" && ok "an unknown dot-command fails, input goes on" || ko "unknown dot: rc $rc"
out=$(printf 'SELECT 1 AS a;\nSELECT nope;\nSELECT 2 AS b;\n' > "$D/err.sql"; "$T" -w "$W" -f "$D/err.sql" 2>/dev/null); rc=$?
[ "$out" = $'a\n1\nb\n2' ] && [ $rc -eq 1 ] && ok "-f goes on after an error, exit 1" || ko "-f error: rc $rc out $out"
run -c "SELECT 1 AS a; SELECT nope; SELECT 2 AS b" > "$D/c.out"; rc=$?
[ "$(cat "$D/c.out")" = $'a\n1' ] && [ $rc -eq 1 ] && ok "-c stops at its first error" || ko "-c error: rc $rc"
check "-cmd runs before piped input" $'a|b\n1|2' bash -c "echo 'SELECT 1 AS a, 2 AS b;' | '$T' -w '$W' -cmd '.mode list'"
# .shell / .system only interactively
for c in .shell .system; do
    out=$(printf '%s echo hi\n' $c | "$T" -w "$W" 2>"$tmp/err"); rc=$?
    [ -z "$out" ] && [ $rc -eq 1 ] && grep -q "only available in an interactive shell" "$tmp/err" && ok "$c refused without a terminal" || ko "$c: rc $rc out $out"
done
# tarn DIR [SQL]
"$T" -w "$tmp/wh3" -c "CREATE TABLE d AS SELECT 42 AS v" >/dev/null
check "tarn DIR SQL opens that warehouse" $'v\n42' "$T" "$tmp/wh3" "SELECT * FROM d"
check "tarn DIR with piped input" $'v\n42' bash -c "echo 'SELECT * FROM d;' | '$T' '$tmp/wh3'"
check "tarn DIR with -c" $'v\n42' "$T" "$tmp/wh3" -c "SELECT * FROM d"
tn_cleanup "$tmp/wh3"
"$T" a b c >/dev/null 2>&1; [ $? -eq 2 ] && ok "a third positional argument is a usage error" || ko "tarn a b c"
check ".print" 'hello world' run -c ".print hello world"
run -c ".show" | grep -q "mode: csv" && ok ".show lists the settings" || ko ".show"
run -c ".help" | grep -q "^.import FILE TABLE" && ok ".help lists the dot-commands" || ko ".help"
check ".tables" $'schema,name,kind\ndefault,people,table\nsales,big,view\nsales,orders,table' run -c ".tables"
tn_cleanup "$W"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
