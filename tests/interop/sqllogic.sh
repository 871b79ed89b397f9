#!/usr/bin/env bash
# The sqllogictest suite (tests/sql/*.test) run by tarn's own runner (tests/sql/slt_runner.c,
# compiled here against $BUILD/libtarn.a). Ends with the runner's "N passed, N failed" line.
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
runner=$BUILD/tests/slt_runner
if [ ! -x "$runner" ] || [ tests/sql/slt_runner.c -nt "$runner" ] || [ "$BUILD/libtarn.a" -nt "$runner" ]; then
    mkdir -p "$BUILD/tests"
    extra=""
    [ "${TARN_SANITIZED:-}" = 1 ] && extra="-fsanitize=address,undefined -fno-omit-frame-pointer"
    cc -std=c11 -g -O1 -D_GNU_SOURCE -Isrc -Iinclude $extra -o "$runner" tests/sql/slt_runner.c "$BUILD/libtarn.a" \
        -lsnappy -lzstd -llz4 -lz -lbrotlienc -lbrotlidec -lbrotlicommon -ljansson -lroaring -lxxhash -ledit -lssl -lcrypto -lre2 -lstdc++ -lm -pthread || {
        echo "cannot build the sqllogictest runner"; echo "0 passed, 1 failed"; exit 1; }
fi
exec "$runner" ${SLT_FILES:-tests/sql/*.test}
