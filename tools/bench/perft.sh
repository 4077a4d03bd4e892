#!/bin/sh
# Perft speed of bin/ratchet against Debian's stockfish, side by side in one run:
# startpos depth 6 and kiwipete depth 5 (312.8 million nodes), median of 3 runs.
set -e
KIWI="r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
SF=/usr/games/stockfish
if [ ! -x "$SF" ] && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stockfish >/dev/null 2>&1 || true
fi

# Seconds for both perfts in one engine process.
run() {
    start=$(date +%s.%N)
    out=$(printf 'position startpos\ngo perft 6\nposition fen %s\ngo perft 5\nisready\nquit\n' "$KIWI" | "$1" 2>/dev/null)
    end=$(date +%s.%N)
    nodes=$(echo "$out" | awk '/Nodes searched/ {s += $3} END {print s}')
    [ "$nodes" = 312751014 ] || { echo "perft: $1 counted $nodes nodes, expected 312751014" >&2; exit 1; }
    awk -v a="$start" -v b="$end" 'BEGIN {print b - a}'
}
median3() { printf '%s\n%s\n%s\n' "$1" "$2" "$3" | sort -g | sed -n 2p; }

r1=$(run bin/ratchet); r2=$(run bin/ratchet); r3=$(run bin/ratchet)
ours=$(median3 "$r1" "$r2" "$r3")
printf 'ratchet   perft: 312751014 nodes in %.3f s (median of 3), %.1f Mnps\n' "$ours" "$(awk -v t="$ours" 'BEGIN {print 312.751014 / t}')"
if [ -x "$SF" ]; then
    s1=$(run $SF); s2=$(run $SF); s3=$(run $SF)
    sf=$(median3 "$s1" "$s2" "$s3")
    printf 'stockfish perft: 312751014 nodes in %.3f s (median of 3), %.1f Mnps\n' "$sf" "$(awk -v t="$sf" 'BEGIN {print 312.751014 / t}')"
    printf 'speed ratio ratchet/stockfish: %.2f\n' "$(awk -v a="$sf" -v b="$ours" 'BEGIN {print a / b}')"
else
    echo "stockfish not installed (apt-get install stockfish): no reference ratio"
fi
