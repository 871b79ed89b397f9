# tests/interop/lib.sh: sourced by every interop suite (run from the repository root by
# scripts/run-tests.sh). Defines where things are (the build, the repository's test data, the
# pinned DuckDB oracle) and `require_oracle`, which ends a suite as skipped, not failed, when
# the oracle could not be installed (no network at install time).
TN_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
export BUILD
DATA=${TARN_TESTDATA:-$TN_REPO/tests/data}      # golden files + datasets (tests/data/README.md)
GOLDEN_PARQUET=$DATA/parquet
GOLDEN_DELTA=$DATA/delta
FLIGHTS=$DATA/datasets/flights-3m.parquet
ORACLE_DIR=$TN_REPO/tests/oracle                # package.json + node_modules of the oracle
DUCK=$ORACLE_DIR/duckdb

# require_bin PATH: a suite needs the built program PATH (make builds it); missing, the suite
# fails as one check.
require_bin() {
    [ -x "$1" ] || { echo "missing $1 (run make)"; echo "0 passed, 1 failed"; exit 1; }
}

oracle_available() { "$DUCK" "SELECT 1" >/dev/null 2>&1; }

# require_oracle: when DuckDB is not installed, say so and end the suite as one skipped check.
require_oracle() {
    if ! oracle_available; then
        echo "DuckDB oracle not installed (tests/oracle; scripts/install-deps.sh needs the npm registry): suite skipped"
        echo "0 passed, 0 failed, 1 skipped"
        exit 0
    fi
}

# The independent Delta-protocol checker (tests/delta_check/check.mjs). Every suite that writes
# tables removes its temporary directories with tn_cleanup, so each table the suite wrote is
# validated before it goes: results are appended to $TARN_DELTA_CHECK_OUT, which
# scripts/run-tests.sh sets per suite and counts (a PASS line is a passed check, FAIL a failed
# one); run alone, a suite prints them on stderr. Tables a test corrupts on purpose are removed
# with plain rm before the cleanup.
DELTA_CHECK=$TN_REPO/tests/delta_check/check.mjs
delta_check() {
    command -v node >/dev/null 2>&1 || return 0
    node "$DELTA_CHECK" ${TARN_DELTA_CHECK_OUT:+--record "$TARN_DELTA_CHECK_OUT"} "$@" >&2
}
tn_cleanup() {
    delta_check "$@" || true
    rm -rf "$@"
}
