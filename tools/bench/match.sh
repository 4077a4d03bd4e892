#!/bin/sh
# The match runner's own cost: its CPU time per ply (getrusage of the runner,
# RUSAGE_SELF, against its reaped engines, RUSAGE_CHILDREN, as printed on the
# runner's "CPU:" line) and games per second, for `nodes=` matches with
# -concurrency 2.  The reference measured in the same run is the CPU the
# engines themselves spend per ply.  Each workload is played twice, short and
# long, so the runner's fixed start-up cost (the rules library's tables, the
# engine processes) can be told from its cost per ply: "marginal" is
# (CPU long - CPU short) / (plies long - plies short).
# Engines: the fake random mover (a near-zero-cost engine: the runner's share
# is as large as it gets), then Debian's Stockfish if installed, then
# bin/ratchet if built.  fastchess's 0.17 ms/ply and cutechess's 1 ms/ply are
# the figures quoted in docs/design.md for this machine, not measured here.
set -e
cd "$(dirname "$0")/../.."
make -s build/fake/fakeuci bin/ratchet-tune >/dev/null
TUNE=bin/ratchet-tune
BOOK=openings/default.epd
[ -f "$BOOK" ] && OPENINGS="-openings file=$BOOK format=epd order=random -srand 1" || OPENINGS=""

# run ROUNDS ENGINE1 ENGINE2 EACH...: prints "wall runner_s engines_s plies games"
run() {
    rounds=$1; e1=$2; e2=$3; shift 3
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    out=$($TUNE match -engine $e1 name=A -engine $e2 name=B -each "$@" -rounds "$rounds" -concurrency 2 $OPENINGS 2>&1) || {
        echo "$out" >&2; exit 1; }
    t1=$(date +%s.%N)
    cpu=$(echo "$out" | grep '^CPU: runner')
    games=$(echo "$out" | sed -n 's/^Games: \([0-9]*\), Wins.*/\1/p' | tail -n 1)
    echo "$cpu" | awk -v t0="$t0" -v t1="$t1" -v g="$games" \
        '{ printf "%.3f %s %s %s %s\n", t1 - t0, $3, $8, $12, g }'
}

# section LABEL SHORT_ROUNDS LONG_ROUNDS ENGINE1 ENGINE2 EACH...
section() {
    label=$1; short=$2; long=$3; shift 3
    a=$(run "$short" "$@")
    b=$(run "$long" "$@")
    echo "$a $b" | awk -v label="$label" '{
        wall = $6; rs = $7; es = $8; plies = $9; games = $10;
        dr = $7 - $2; dp = $9 - $4;
        printf "%s: %d games, %d plies, %.1f s: %.2f games/s, %.0f plies/s\n", label, games, plies, wall, games / wall, plies / wall;
        printf "  runner CPU  %.4f ms/ply (with start-up), %.4f ms/ply marginal\n", rs * 1000 / plies, (dp > 0 ? dr * 1000 / dp : 0);
        printf "  engines CPU %.4f ms/ply (reference, same run)\n", es * 1000 / plies;
        printf "  runner / engines: %.3f;  runner / fastchess 0.17 ms/ply (quoted): %.2f;  / cutechess 1 ms/ply (quoted): %.3f\n",
               rs / es, rs * 1000 / plies / 0.17, rs * 1000 / plies / 1.0;
    }'
}

FAKE=build/fake/fakeuci
section "fakeuci random mover, nodes=1" 20 200 "cmd=$FAKE" "cmd=$FAKE" nodes=1

SF=/usr/games/stockfish
if [ -x "$SF" ]; then
    section "stockfish ($($SF quit 2>/dev/null | head -n 1 | cut -d' ' -f1-2)), nodes=2000, Hash=16, Threads=1${OPENINGS:+, $BOOK}" \
        4 16 "cmd=$SF" "cmd=$SF" nodes=2000 option.Hash=16 option.Threads=1 -maxmoves 150
else
    echo "stockfish: not installed (apt-get install stockfish), section skipped"
fi
if [ -x bin/ratchet ]; then
    section "bin/ratchet, nodes=5000${OPENINGS:+, $BOOK}" 4 16 "cmd=bin/ratchet" "cmd=bin/ratchet" nodes=5000 -maxmoves 150
fi
