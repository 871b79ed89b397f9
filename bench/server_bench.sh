#!/usr/bin/env bash
# bench/server_bench.sh: `tarn serve` against PostgreSQL 15 over the wire, same machine, same
# run, same client (pgbench from postgresql-15): custom scripts `SELECT 1` and a point query on
# a small table (1,000 rows, primary-key lookup in PostgreSQL), -M simple and -M prepared, 1 and
# 8 clients, BENCH_SECONDS each (default 5); then flights-3m group-bys and top-N through libpq
# (bench/pg_stream.c, the query's time on an open connection; tarn reads its table, PostgreSQL
# the same rows loaded with COPY; tarn's in-process time beside it); then result streaming:
# `SELECT *` of flights-3m through libpq in single-row mode (bench/pg_stream.c), text and
# binary, with the server's peak resident memory. Prints ratios (tarn / PostgreSQL tps and
# rows/s, PostgreSQL / tarn time). PostgreSQL runs under a temporary directory on a private port and
# socket directory, as the current (non-root) user, and is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SECS=${BENCH_SECONDS:-5}
PGBIN=/usr/lib/postgresql/15/bin
tmp=$(mktemp -d /tmp/server-bench-XXXXXX)
chmod 777 "$tmp"
RUNAS=()
[ "$(id -u)" -eq 0 ] && RUNAS=(runuser -u nobody --)     # initdb refuses root
pgport=$((20000 + RANDOM % 20000))
srv_pid=""
cleanup() {
    [ -n "$srv_pid" ] && kill -TERM "$srv_pid" 2>/dev/null && wait "$srv_pid" 2>/dev/null
    "${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$tmp/pg" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT
"${RUNAS[@]}" "$PGBIN/initdb" -D "$tmp/pg" -U bench -A trust >/dev/null
"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$tmp/pg" -l "$tmp/pg.log" -o "-p $pgport -k $tmp -c listen_addresses=127.0.0.1" -w start >/dev/null
"$BUILD/tarn" serve -w "$tmp/w" --port 0 --ready-file "$tmp/ready" 2>"$tmp/tarn.log" &
srv_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/ready" ] && break; sleep 0.1; done
tport=$(cat "$tmp/ready")
pg()   { psql -X -q -A -t -h 127.0.0.1 -p "$pgport" -U bench -d postgres "$@"; }
tarn() { psql -X -q -A -t -h 127.0.0.1 -p "$tport" -U bench -d tarn "$@"; }

pg -c "create table small (id int primary key, v varchar)" -c "insert into small select g, 'v' || g from generate_series(1, 1000) g"
vals=$(seq 1 1000 | awk '{printf "%s(%d, '"'"'v%d'"'"')", (NR > 1 ? "," : ""), $1, $1}')
tarn -c "create table small (id int, v varchar)" -c "insert into small values $vals"
echo "SELECT 1;" >"$tmp/select1.sql"
printf '\\set id random(1, 1000)\nSELECT v FROM small WHERE id = :id;\n' >"$tmp/point.sql"

tps() {   # tps PORT DB SCRIPT MODE CLIENTS
    "$PGBIN/pgbench" -n -h 127.0.0.1 -p "$1" -U bench -d "$2" -f "$3" -M "$4" -c "$5" -j "$5" -T "$SECS" 2>/dev/null |
        sed -n 's/^tps = \([0-9.]*\).*/\1/p'
}
echo "| query | protocol | clients | tarn tps | PostgreSQL tps | tarn / PostgreSQL |"
echo "|---|---|---:|---:|---:|---:|"
for script in select1 point; do
    for mode in simple prepared; do
        for clients in 1 8; do
            t=$(tps "$tport" tarn "$tmp/$script.sql" "$mode" "$clients")
            p=$(tps "$pgport" postgres "$tmp/$script.sql" "$mode" "$clients")
            printf '| %s | %s | %d | %.0f | %.0f | %.2f |\n' "$script" "$mode" "$clients" "$t" "$p" "$(echo "$t / $p" | bc -l)"
        done
    done
done

# flights-3m over the wire: the same rows in both
FLIGHTS=tests/data/datasets/flights-3m.parquet
"$BUILD/tarn" -w "$tmp/w" -c "create table flights as select * from read_parquet('$FLIGHTS')" >/dev/null
"$BUILD/tarn" -c "copy (select * from read_parquet('$FLIGHTS')) to '$tmp/flights.csv' (header false)" >/dev/null
pg -c "create table flights (date timestamp, delay bigint, distance bigint, origin varchar, destination varchar)" \
   -c "\\copy flights from '$tmp/flights.csv' csv" -c "analyze flights"
cc -O2 $(pkg-config --cflags libpq) bench/pg_stream.c -o "$tmp/pg_stream" $(pkg-config --libs libpq)
tconn="host=127.0.0.1 port=$tport user=bench dbname=tarn"
pconn="host=127.0.0.1 port=$pgport user=bench dbname=postgres"
timeq() {   # timeq CONNINFO SQL: the query's time over the wire (libpq, connected), best of 5, ms
    local best=""
    for _ in 1 2 3 4 5; do
        local ms; read -r _ _ ms < <("$tmp/pg_stream" "$1" 0 "$2")
        [ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
    done
    echo "$best"
}
inproc() {  # inproc SQL: the same query in one `tarn -c` process (warm: best of its 3 runs), ms
    "$BUILD/tarn" -w "$tmp/w" -c ".timer on" -c "$1" -c "$1" -c "$1" 2>&1 |
        sed -n 's/^Run Time (s): real \([0-9.]*\).*/\1/p' | sort -n | head -1 | awk '{printf "%d", $1 * 1000}'
}
echo
echo "| flights-3m query | tarn ms | PostgreSQL ms | PostgreSQL / tarn | tarn in-process ms |"
echo "|---|---:|---:|---:|---:|"
for qsql in "select origin, count(*), avg(delay) from flights group by origin order by 2 desc limit 10" \
            "select destination, sum(distance) from flights where delay > 60 group by destination order by 2 desc limit 5" \
            "select * from flights order by delay desc limit 10"; do
    t=$(timeq "$tconn" "$qsql"); p=$(timeq "$pconn" "$qsql")
    printf '| `%s` | %d | %d | %.1f | %s |\n' "$qsql" "$t" "$p" "$(echo "$p / ($t + 0.001)" | bc -l)" "$(inproc "$qsql")"
done

# result streaming: SELECT * of flights-3m, text and binary, one libpq client for both
rss() { awk '/^VmHWM/ {print int($2 / 1024)}' "/proc/$1/status"; }
echo
echo "| SELECT * FROM flights (3M rows) | tarn rows/s | PostgreSQL rows/s | tarn / PostgreSQL | tarn server peak RSS MB |"
echo "|---|---:|---:|---:|---:|"
for fmt in 0 1; do
    read -r trows _ tms < <("$tmp/pg_stream" "host=127.0.0.1 port=$tport user=bench dbname=tarn" "$fmt" "select * from flights")
    read -r prows _ pms < <("$tmp/pg_stream" "host=127.0.0.1 port=$pgport user=bench dbname=postgres" "$fmt" "select * from flights")
    [ "$trows" = "$prows" ] || { echo "server_bench: tarn sent $trows rows, PostgreSQL $prows" >&2; exit 1; }
    printf '| %s | %.0f | %.0f | %.2f | %d |\n' "$([ $fmt = 0 ] && echo text || echo binary)" \
        "$(echo "$trows * 1000 / $tms" | bc -l)" "$(echo "$prows * 1000 / $pms" | bc -l)" \
        "$(echo "$pms / $tms" | bc -l)" "$(rss "$srv_pid")"
done
