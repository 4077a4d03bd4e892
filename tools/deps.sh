#!/bin/sh
# Check the Debian packages Ratchet builds against; install them when root.
# Usage: tools/deps.sh [--fuzz] [extra-package ...]
#   --fuzz   also what `make fuzz` needs: clang's libFuzzer runtime
set -u
FUZZ_PKGS="libclang-rt-14-dev"
if [ "${1:-}" = --fuzz ]; then
    shift
    set -- $FUZZ_PKGS "$@"
fi
# libplplot-dev: the report's charts (PLplot's svg driver); chromium and libpng-dev: the
# report's browser test (headless rendering, reading its screenshot).
# libopenmpi-dev and openmpi-bin: bin/ratchet-tune-mpi and its tests.
# stockfish: the third-party engine of tests/test_thirdparty.c and tools/bench/stockfish.sh.
# universal-ctags: the names each header declares, for tools/includes.sh.
# clang: tools/warnings.sh (every file warning-free under clang too) and make fuzz.
PKGS="build-essential clang pkg-config libgsl-dev libcjson-dev libcriterion-dev libplplot-dev libpng-dev chromium libopenmpi-dev openmpi-bin stockfish universal-ctags $*"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "deps: installing missing Debian packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq $missing || {
        echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
else
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: run this once, then retry:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
