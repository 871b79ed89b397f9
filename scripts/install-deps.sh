#!/usr/bin/env bash
# Installs what tarn's build, tests and benchmarks need on Debian 12. Idempotent: packages
# already present are left as they are. Run as root (or with sudo available).
set -euo pipefail
PKGS=(build-essential pkg-config clang libclang-rt-14-dev
      libroaring-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libjansson-dev
      libedit-dev libssl-dev libxxhash-dev)
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The DuckDB oracle (../shared/oracle) runs on Node.js; keep an existing node (it may not come
# from Debian), else take Debian's.
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
if [ ${#missing[@]} -ne 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
echo "install-deps: ok"
