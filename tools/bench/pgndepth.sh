#!/bin/sh
# The mean root depth of each engine in a PGN file whose moves carry
# Ratchet's comments {score/depth time}: one line per player (White and
# Black tags), with its moves, mean depth and mean seconds per move.
# Usage: sh tools/bench/pgndepth.sh FILE.pgn
set -eu
[ $# -eq 1 ] && [ -r "$1" ] || { echo "usage: sh tools/bench/pgndepth.sh FILE.pgn" >&2; exit 2; }
LC_ALL=C awk '
/^\[White "/ { w = $0; sub(/^\[White "/, "", w); sub(/"\]$/, "", w); next }
/^\[Black "/ { b = $0; sub(/^\[Black "/, "", b); sub(/"\]$/, "", b); ply = 0; next }
/^\[FEN "/ { split($0, f, " "); if (f[3] == "b") ply = 1; next }
/^\[/ { next }
{
    line = $0
    while (match(line, /\{[-+]?[0-9.M#]+\/[0-9]+ [0-9.]+s\}/)) {
        c = substr(line, RSTART + 1, RLENGTH - 2)
        line = substr(line, RSTART + RLENGTH)
        split(c, parts, /[\/ ]/)
        d = parts[2] + 0; t = parts[3]; sub(/s$/, "", t)
        who = (ply % 2 == 0) ? w : b
        ply++
        n[who]++; sd[who] += d; st[who] += t
    }
}
END {
    for (p in n)
        printf "%-20s moves %7d  mean depth %6.2f  mean %.4f s/move\n", p, n[p], sd[p] / n[p], st[p] / n[p]
}' "$1"
