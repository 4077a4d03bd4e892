#!/bin/sh
# make bench: run every benchmark section in tools/bench/ in order.
# Each prints its figures and a ratio against a reference measured in the same run.
set -e
cd "$(dirname "$0")/.."
for b in tools/bench/*.sh; do
    [ -f "$b" ] || continue
    # Hours of games against Stockfish: its own target, make bench-strength.
    [ "$(basename "$b")" = strength.sh ] && continue
    case "$b" in */recover.sh) continue ;; esac   # hours: make bench-recover
    echo "== $(basename "$b" .sh) =="
    sh "$b"
    echo
done
