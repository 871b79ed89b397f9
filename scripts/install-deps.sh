#!/usr/bin/env bash
# Installs what tarn's build, tests and benchmarks need on Debian 12. Idempotent: packages
# already present are left as they are. Run as root (or with sudo available).
set -euo pipefail
PKGS=(build-essential pkg-config clang libclang-rt-14-dev
      libroaring-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libjansson-dev
      libedit-dev libssl-dev libxxhash-dev libbrotli-dev libre2-dev libpcre2-dev
      tmux postgresql-client postgresql-15 libpostgresql-jdbc-java python3-psycopg2 python3-psycopg)
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The DuckDB oracle (tests/oracle) runs on Node.js; keep an existing node (it may not come
# from Debian), else take Debian's.
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
if [ ${#missing[@]} -ne 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The pinned DuckDB oracle, a dev dependency of the tests and benchmarks (tests/oracle/package.json,
# package-lock.json): npm ci into tests/oracle/node_modules when it is missing or the lock file
# changed. Without network this fails; the test suites that need it are then skipped, not failed.
oracle=$(cd "$(dirname "$0")/../tests/oracle" && pwd)
if ! cmp -s "$oracle/package-lock.json" "$oracle/node_modules/.package-lock.json.installed" 2>/dev/null ||
   [ ! -f "$oracle/node_modules/@duckdb/node-api/package.json" ]; then
    echo "install-deps: npm ci in tests/oracle (DuckDB oracle)"
    if (cd "$oracle" && npm ci --silent --no-audit --no-fund >/dev/null 2>&1); then
        cp "$oracle/package-lock.json" "$oracle/node_modules/.package-lock.json.installed"
    else
        echo "install-deps: WARNING: npm ci failed (no network?): the DuckDB oracle is not installed; suites that need it will be skipped" >&2
    fi
fi
# node-pg for the server suites (tests/server/package.json + package-lock.json), the same way.
srvdeps=$(cd "$(dirname "$0")/../tests/server" && pwd)
if ! cmp -s "$srvdeps/package-lock.json" "$srvdeps/node_modules/.package-lock.json.installed" 2>/dev/null ||
   [ ! -f "$srvdeps/node_modules/pg/package.json" ]; then
    echo "install-deps: npm ci in tests/server (node-pg)"
    if (cd "$srvdeps" && npm ci --silent --no-audit --no-fund >/dev/null 2>&1); then
        cp "$srvdeps/package-lock.json" "$srvdeps/node_modules/.package-lock.json.installed"
    else
        echo "install-deps: WARNING: npm ci failed in tests/server (no network?): the node-pg checks will fail" >&2
    fi
fi
echo "install-deps: ok"
