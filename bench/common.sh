# bench/common.sh: helpers shared by the benchmark scripts (sourced from the repository root,
# never run): the environment (BUILD, BENCH_REPS), building a bench program
# against $BUILD/libtarn.a, median and ratio, timing a DuckDB statement through the oracle, and
# replacing a marked section of bench/README.md. Functions that need scratch files use $tmp,
# which the caller creates (mktemp -d) and removes.
BUILD=${BUILD:-build}
F=tests/data/datasets/flights-3m.parquet   # the repository's copy (tests/data/README.md)
ORACLE_DIR=tests/oracle                    # the pinned DuckDB (scripts/install-deps.sh)
DUCK=$ORACLE_DIR/duckdb
REPS=${BENCH_REPS:-5}
BENCH_LDLIBS="-lsnappy -lzstd -llz4 -lz -lbrotlienc -lbrotlidec -lbrotlicommon -ljansson -lroaring -lxxhash -ledit -lssl -lcrypto -lre2 -lstdc++ -lm -pthread"

# bench_cc OUT SRC [flags...]: compiles one bench program against $BUILD/libtarn.a.
bench_cc() {
    local out=$1 src=$2; shift 2
    mkdir -p "$(dirname "$out")"
    ${CC:-cc} -std=c11 -O2 -g -Iinclude -D_GNU_SOURCE "$@" -o "$out" "$src" "$BUILD/libtarn.a" $BENCH_LDLIBS
}

# Median of the numbers on stdin (one a line); "nan" when there are none.
med() { sort -n | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit}; if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
# a / b with 2 decimals; "n/a" when either is missing or b is not positive.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "nan" || b == "nan" || a == "" || b == "" || b <= 0) print "n/a"; else printf "%.2f", a/b}'; }
# The value of key=value in a file (last occurrence).
tarn_field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" "$2" | tail -n 1; }
load1() { cut -d' ' -f1 /proc/loadavg; }
duck_version() { (cd "$ORACLE_DIR" && node -p "require('./package.json').dependencies['@duckdb/node-api']" 2>/dev/null) || echo '?'; }

# duck_time THREADS SQL [oracle args...]: one warm-up, then $REPS runs of the oracle, each in
# its own process, timed by its --time (the statement only, not start-up); prints the median ms.
duck_time() {
    local threads=$1 sql=$2; shift 2
    local i
    for i in $(seq 0 "$REPS"); do
        "$DUCK" "$sql" --threads "$threads" --time "$@" 2>"$tmp/d.err" >"$tmp/d.out" ||
            { echo "bench: duckdb failed: $(cat "$tmp/d.err")" >&2; return 1; }
        [ "$i" -gt 0 ] && sed -n 's/^time_ms=//p' "$tmp/d.err"
    done | med
}

# readme_section TAG FILE: replaces what lies between <!-- TAG:start --> and <!-- TAG:end -->
# in bench/README.md by FILE's text.
readme_section() {
    python3 - "$1" "$2" bench/README.md <<'EOF'
import sys, re
tag, table, path = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3]
s = open(path).read()
pat = r'(<!-- %s:start -->\n).*?(\n<!-- %s:end -->)' % (tag, tag)
if not re.search(pat, s, flags=re.S):
    sys.exit("bench: no <!-- %s:start/end --> markers in %s" % (tag, path))
s = re.sub(pat, lambda m: m.group(1) + table + m.group(2), s, flags=re.S)
open(path, 'w').write(s)
EOF
}
