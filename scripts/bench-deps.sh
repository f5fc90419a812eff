#!/bin/sh
# bench-deps.sh - the Debian packages the peers of `make bench` need
# (Halide 14's JIT, OpenBLAS, a C++ compiler).  Run as root it installs
# them with apt-get; otherwise, or with --print, it prints the exact
# apt-get line and exits 1 when any is missing.  `--check` only says
# whether they are all present (exit 0) or not (exit 1), quietly.
set -u

PKGS="libhalide14-0-dev libopenblas-dev g++"
LINE="apt-get install -y --no-install-recommends $PKGS"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
        grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
[ "${1:-}" = --check ] && exit 1

if [ "${1:-}" != --print ] && [ "$(id -u)" = 0 ]; then
    echo "bench-deps: installing:$missing"
    apt-get update && DEBIAN_FRONTEND=noninteractive $LINE
    exit $?
fi
echo "bench-deps: missing:$missing; install them (as root) with:"
echo "    $LINE"
exit 1
