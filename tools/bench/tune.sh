#!/bin/sh
# Tuning-run throughput: `ratchet-tune run` (per-pair setoption of the tuned
# values, a checkpoint after every batch) against `ratchet-tune match` (the
# same runner, fixed options), same engine, node count, book, adjudication
# and concurrency, measured in the same session.
#
# Figures per side: games/s and ms per ply over the whole command (engine
# start-up included; the run starts the engine once more to check its
# options), and from the engine log, after the first game started: the
# engine's own time per move (go -> bestmove) and the rest of each worker's
# time per move (pipes, referee, hooks, checkpoints).  The run plays
# perturbed parameters, so its games and moves differ a little from the
# match's; the ratio of the "rest" per move is the cost of tuning over a
# plain match (1.00 = none).
#
# Env: TUNE_BENCH_GAMES (default 100), TUNE_BENCH_NODES (default 2000),
#      TUNE_BENCH_CONCURRENCY (default: the number of cores).
set -eu
cd "$(dirname "$0")/../.."
RT=bin/ratchet-tune
GAMES=${TUNE_BENCH_GAMES:-100}
NODES=${TUNE_BENCH_NODES:-2000}
CONC=${TUNE_BENCH_CONCURRENCY:-$(nproc 2>/dev/null || echo 2)}
BOOK=openings/default.epd
[ -f "$BOOK" ] || BOOK=build/tune-book.epd
if [ ! -f "$BOOK" ]; then
    mkdir -p build
    bin/ratchet-genbook -o "$BOOK" -n 300 -s 1 >/dev/null 2>&1
fi
if ! "$RT" run --help >/dev/null 2>&1; then
    echo "tune: '$RT run' is not available; skipped"
    exit 0
fi
TMP=$(mktemp -d /tmp/ratchet-tune-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
ADJ="-draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=600 twosided=true"

now() { date +%s.%N; }

t0=$(now)
# shellcheck disable=SC2086
"$RT" match -engine cmd=bin/ratchet name=a -engine cmd=bin/ratchet name=b -each nodes="$NODES" \
    -openings file="$BOOK" order=random -repeat -rounds $((GAMES / 2)) -concurrency "$CONC" -srand 1 $ADJ \
    -log file="$TMP/match.log" >"$TMP/match.out" 2>&1
t1=$(now)
# shellcheck disable=SC2086
"$RT" run -engine cmd=bin/ratchet -params file=params/engine.json \
    only=LmrQuietBase,LmrQuietDivisor,LmpBase,LmpScale,FhrMargin,NmpEvalScale,FutilityMargin,RfpMargin \
    -each nodes="$NODES" -openings file="$BOOK" order=random -spsa games="$GAMES" -concurrency "$CONC" -srand 1 \
    $ADJ -log file="$TMP/run.log" -out "$TMP/run" >"$TMP/run.out" 2>&1
t2=$(now)

# moves, engine ms per move, wall ms per move per worker (after the first game started)
permove() {
    awk -v c="$CONC" '
        /^\[/ { t = substr($1, 2, length($1) - 2) + 0; last = t }
        $2 ~ /^>/ && $3 == "go" { go[substr($2, 2)] = t }
        $2 ~ /^</ && $3 == "bestmove" { n = "" substr($2, 2); if (n in go) { eng += t - go[n]; moves++; delete go[n] } }
        $3 == "ucinewgame" && !first { first = t }
        END { printf "%d %.4f %.4f\n", moves, 1000 * eng / moves, 1000 * c * (last - first) / moves }' "$1"
}
set -- $(permove "$TMP/match.log") $(permove "$TMP/run.log")

awk -v g="$GAMES" -v n="$NODES" -v c="$CONC" -v t0="$t0" -v t1="$t1" -v t2="$t2" \
    -v mm="$1" -v me="$2" -v mw="$3" -v rm="$4" -v re="$5" -v rw="$6" 'BEGIN {
    m = t1 - t0
    r = t2 - t1
    printf "bin/ratchet, %d games at %d nodes, concurrency %d\n", g, n, c
    printf "  match (reference): %6.1f s  %5.2f games/s  %6d moves  engine %.3f ms/move  rest %.3f ms/move\n", m, g / m, mm, me, mw - me
    printf "  run (SPSA):        %6.1f s  %5.2f games/s  %6d moves  engine %.3f ms/move  rest %.3f ms/move\n", r, g / r, rm, re, rw - re
    printf "  ratio run/match: games/s %.2f, rest per move %.2f\n", (g / r) / (g / m), (rw - re) / (mw - me)
}'
