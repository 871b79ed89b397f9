#!/usr/bin/env bash
# The interactive shell on a terminal, driven through tmux (send-keys / capture-pane): UTF-8
# typed at the prompt round-trips (LANG=C.UTF-8), table and box output stay aligned with wide
# CJK, emoji and combining marks, Ctrl-C at the prompt clears the line, Ctrl-C during a long
# query prints "Interrupted" and returns to the prompt, Ctrl-C during a long INSERT leaves the
# table as it was (same rows, no new version), the history file holds each statement right
# after it ran (it survives kill -9), the progress bar advances, .shell runs. Every wait polls
# the screen for the expected text with a generous limit (no timed assertions).
# Ends with "N passed, N failed[, N skipped]".
set -u
. "$(dirname "$0")/lib.sh"
cd "$TN_REPO"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
if ! command -v tmux >/dev/null; then
    echo "tmux is not installed (scripts/install-deps.sh installs it)"; echo "0 passed, 1 failed"; exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tarn-shell-tty.XXXXXX")
SOCK="tarn-tty-$$"
X() { tmux -L "$SOCK" "$@"; }
cleanup() { X kill-server 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
T="$TN_REPO/$BUILD/tarn"
F=$FLIGHTS
S=none
wait_for=${TARN_TTY_WAIT:-60}      # seconds a step may take on a loaded machine (sanitizers)

nsess=0
start_shell() {   # start_shell [ENV...]: a fresh shell in a new 160x50 session (one server)
    S=s$((++nsess))
    X new-session -d -s $S -x 160 -y 50 "env LANG=C.UTF-8 LC_ALL= HOME=$tmp/home TERM=xterm $* $T $tmp/wh; sleep 600"
    mkdir -p "$tmp/home"
    await "tarn> " || { ko "shell did not start: $(shown 3)"; }
}
screen() { X capture-pane -p -J -t $S -S -200; }
shown() { screen | grep -v '^$' | tail -n "${1:-8}"; }
COMB=$'\u0301'     # a combining acute accent after 'e'
clear_screen() { X send-keys -t $S C-l; X clear-history -t $S; }
# await TEXT [N]: until the screen shows TEXT at least N times (default 1)
await() {
    local want=${2:-1} i
    for ((i = 0; i < wait_for * 5; i++)); do
        [ "$(screen | grep -F -c -- "$1")" -ge "$want" ] && return 0
        sleep 0.2
    done
    return 1
}
typ() {   # types a line and Enter (a trailing ';' escaped for tmux)
    local l=$1
    if [[ "$l" == *";" ]]; then X send-keys -t $S -l -- "${l%;}"; X send-keys -t $S '\;'; else X send-keys -t $S -l -- "$l"; fi
    X send-keys -t $S Enter
}
prompts() { screen | grep -c '^tarn> '; }
# more_prompts N: until the screen shows more than N prompts (the shell is reading a new line;
# keys sent before that may reach the previous one on a loaded machine)
more_prompts() {
    local i
    for ((i = 0; i < wait_for * 5; i++)); do [ "$(prompts)" -gt "$1" ] && return 0; sleep 0.2; done
    return 1
}

# -- UTF-8 typed at the prompt
start_shell TARN_NO_PROGRESS=1
typ "SELECT 'héllo 日本' AS s, length('héllo 日本') AS n, octet_length('héllo 日本'::BLOB) AS b;"
if await "1 row" && screen | grep -q "| héllo 日本 |      8 |     13 |"; then ok "UTF-8 typed at the prompt round-trips (8 characters, 13 bytes)"
else ko "UTF-8 input: $(shown 8)"; fi

# -- wide characters aligned in table and box modes (display width of every line equal)
aligned() {   # the lines of the last table on screen (from its first rule) all have one width
    screen | python3 -c '
import sys, unicodedata
def w(s):
    n = 0
    for ch in s:
        if unicodedata.combining(ch) or ch == "\u200d": continue
        n += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return n
lines = [l.rstrip("\n") for l in sys.stdin]
start = max(i for i, l in enumerate(lines) if l.startswith("tarn> SELECT"))
block = [l for l in lines[start + 1:] if l and l[0] in "+|\u250c\u2502\u251c\u2514"]
ws = {w(l) for l in block}
print(len(block), sorted(ws))
sys.exit(0 if len(block) >= 7 and len(ws) == 1 else 1)'
}
r=""
clear_screen
typ "SELECT * FROM (VALUES (1, '日本語テキスト', 'ab'), (2, 'emoji 😀🎉', 'x'), (3, 'cafe$COMB', '中'), (4, 'plain', 'ｆｕｌｌ')) t(id, wide, other);"
if await "4 rows" && r=$(aligned); then ok "table mode aligned with CJK, emoji, combining mark, fullwidth ($r)"; else ko "table alignment: $r $(shown 12)"; fi
clear_screen
r=""
np=$(prompts)
typ ".mode box"
more_prompts "$np"
typ "SELECT * FROM (VALUES (1, '日本語テキスト', 'ab'), (2, 'emoji 😀🎉', 'x'), (3, 'cafe$COMB', '中')) t(id, wide, other);"
if await "3 rows" && r=$(aligned); then ok "box mode aligned ($r)"; else ko "box alignment: $r $(shown 12)"; fi
np=$(prompts)
typ ".mode table"
more_prompts "$np"

# -- Ctrl-C at an idle prompt clears the line, the shell stays. The keys go out once the shell
# reads a new line and has echoed the text (it echoes only what it read): on a loaded machine a
# Ctrl-C sent earlier reaches the shell while it still runs the previous command.
clear_screen
await "tarn> "
X send-keys -t $S -l "SELECT 'this line is dropped"
await "this line is dropped"
sleep 0.3
X send-keys -t $S C-c
typ "SELECT 2 AS after_ctrl_c;"
if await "after_ctrl_c" 2 && await "1 row" && ! screen | grep -q "this line is dropped.*after"; then ok "Ctrl-C at the prompt clears the line"; else ko "idle Ctrl-C: $(shown 8)"; fi
X send-keys -t $S C-c; X send-keys -t $S C-c
typ "SELECT 'still here' AS s;"
await "still here" 2 && ok "repeated Ctrl-C at the prompt does not end the shell" || ko "shell ended on Ctrl-C: $(shown 5)"

# -- Ctrl-C during a long query
LONG="SELECT sum(a.delay * b.delay) FROM read_parquet('$F') a JOIN read_parquet('$F') b ON a.distance = b.distance + 1 AND a.origin = b.origin;"
clear_screen
typ "$LONG"
sleep 2
X send-keys -t $S C-c
if await "Interrupted"; then ok "Ctrl-C during a long join: Interrupted"; else ko "no Interrupted: $(shown 5)"; fi
typ "SELECT 3 AS alive;"
await "alive" 2 && await "1 row" && ok "back at the prompt after the interrupt" || ko "after interrupt: $(shown 5)"

# -- Ctrl-C during a long INSERT: nothing committed
typ "CREATE TABLE kept AS SELECT * FROM (VALUES (1), (2), (3)) v(x);"
typ "SELECT count(*) AS before_rows FROM kept;"
await "before_rows" 2
await "|           3 |" || await "3 |"
clear_screen
typ "INSERT INTO kept SELECT a.delay FROM read_parquet('$F') a JOIN read_parquet('$F') b ON a.distance = b.distance + 1 AND a.origin = b.origin;"
sleep 2
X send-keys -t $S C-c
if await "Interrupted"; then ok "Ctrl-C during a long INSERT: Interrupted"; else ko "INSERT not interrupted: $(shown 5)"; fi
typ "SELECT count(*) AS after_rows FROM kept;"
if await "after_rows" 2 && await "1 row" && screen | grep -A3 "after_rows" | grep -qE '\|\s+3 \|'; then ok "the canceled INSERT committed nothing (3 rows)"; else ko "rows after cancel: $(shown 8)"; fi
versions=$(ls "$tmp/wh/kept/_delta_log" | grep -c '\.json$')
[ "$versions" = 1 ] && ok "no new table version after the canceled INSERT" || ko "versions: $(ls "$tmp/wh/kept/_delta_log")"
stray=$(find "$tmp/wh/kept" -name '*.parquet' | wc -l)
[ "$stray" = 1 ] && ok "the canceled INSERT left no data file behind" || ko "data files: $stray"

# -- history written after each statement: survives kill -9
clear_screen
typ "SELECT 'remember me' AS h;"
await "remember me" 2
pid=$(pgrep -f "^$T $tmp/wh" | head -1)
grep -q "remember" "$tmp/home/.tarn_history" && ok "history file holds the statement right after it ran" || ko "history: $(cat "$tmp/home/.tarn_history" 2>&1 | tail -3)"
if [ -n "$pid" ]; then kill -9 "$pid"; ok "shell killed with SIGKILL"; else ko "shell pid not found"; fi
sleep 0.5
start_shell TARN_NO_PROGRESS=1
X send-keys -t $S Up
if await "tarn> SELECT 'remember me' AS h;"; then ok "history survives kill -9 (Up recalls the last statement)"; else ko "history after kill: $(shown 3)"; fi
np=$(prompts)
X send-keys -t $S C-c
more_prompts "$np"

# -- .shell in an interactive shell
typ ".shell echo shell-says-\$((6 * 7))"
await "shell-says-42" && ok ".shell runs a command" || ko ".shell: $(shown 3)"

# -- the progress bar advances (a join: the total is both sides from the start). The build side
# is read in the first second, so the bar starts near 50%; it must then go on past 50% as the
# probe side's rows are read, and show the rows and bytes read of the totals.
S=s$((++nsess))
X new-session -d -s $S -x 160 -y 50 "env -u CI -u TARN_NO_PROGRESS LANG=C.UTF-8 HOME=$tmp/home TERM=xterm $T $tmp/wh; sleep 600"
await "tarn> "
clear_screen
typ "$LONG"
: > "$tmp/bars"
# the bar as drawn on the screen, sampled every 0.2 s until it is past 50% with 3 row counts
# seen (at least 12 s, at most the wait limit: a loaded or sanitized run is slower)
for ((i = 0; i < wait_for * 5; i++)); do
    screen | grep -oE '^ *[0-9]+% \[[^]]*\] [0-9.]+[KMG]?/[0-9.]+[KMG]? rows, [0-9.]+ [KMG]?B/[0-9.]+ [KMG]?B' >> "$tmp/bars"
    sleep 0.2
    [ $i -ge 60 ] && [ "$(grep -oE '\] [0-9.]+[KMG]?/' "$tmp/bars" | sort -u | grep -c .)" -ge 3 ] &&
        [ "$(grep -oE '^ *[0-9]+%' "$tmp/bars" | tr -d ' %' | sort -n | tail -n 1)" -gt 50 ] && break
done
X send-keys -t $S C-c
await "Interrupted" && ok "Interrupted after the progress bar" || ko "progress run not interrupted: $(shown 3)"
pcts=$(grep -oE '^ *[0-9]+%' "$tmp/bars" | tr -d ' %' | sort -n -u)
first=$(echo "$pcts" | head -1); last=$(echo "$pcts" | tail -1); n=$(echo "$pcts" | grep -c .)
rows=$(grep -oE '\] [0-9.]+[KMG]?/' "$tmp/bars" | sort -u | grep -c .)
total=$(grep -oE '/[0-9.]+[KMG]? rows' "$tmp/bars" | sort -u)
if [ "$n" -ge 2 ] && [ "${last:-0}" -gt 50 ] && [ "${last:-0}" -gt "${first:-0}" ] && [ "$rows" -ge 3 ] && [ "$total" = "/6.0M rows" ]; then
    ok "progress bar advances past 50% ($n values, $first% .. $last%; $rows row counts of 6.0M; $(tail -n 1 "$tmp/bars" | grep -oE 'rows, .*'))"
else ko "progress: percents $(echo $pcts | head -c 200); $rows row counts; totals $total; $(tail -n 1 "$tmp/bars")"; fi

X kill-server 2>/dev/null
tn_cleanup "$tmp/wh"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
