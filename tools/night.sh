#!/bin/sh
# make night: the overnight SPSA run of bin/ratchet that tunes where the engine
# is played: at the clock 2+0.02, whose clock counts nodes (nodestime=), so the
# games keep their time management, reach the clock's depth (about 11 plies at
# nodestime=500), and are the same on a loaded or an idle machine.  Into
# runs/<NAME>/.  Values tuned at a fixed node count have lost at the clock
# (docs/results/tuning-night.md); see docs/tuning.md, "Which limit".
#
#   GAMES=N        games in the run (default 10000: about two hours on 2 idle cores,
#                  1.5 games a second measured)
#   TC=T           the clock (default 2+0.02)
#   NODESTIME=N    nodes per millisecond of that clock (default 500; 0 = the
#                  wall clock, which needs an otherwise idle machine)
#   CONCURRENCY=N  games at once (default: the number of cores)
#   ONLY=A,B,...   the parameters (default: sixteen margins and divisors of
#                  LMR, LMP, null move, futility, SEE, quiescence, FHR and LBR)
#   BOOK=FILE      openings (default openings/default.epd)
#   NAME=NAME      the run's name: runs/NAME (default: night-<date-time>)
#   SPSA=...       more -spsa keys (form=, ...), as `key=value key=value`
# A stopped night continues with: bin/ratchet-tune resume runs/NAME
set -e
cd "$(dirname "$0")/.."

GAMES=${GAMES:-10000}
TC=${TC:-2+0.02}
NODESTIME=${NODESTIME:-500}
CONCURRENCY=${CONCURRENCY:-$(nproc 2>/dev/null || echo 2)}
ONLY=${ONLY:-LmrQuietBase,LmrQuietDivisor,LmrNoisyBase,LmrNoisyDivisor,LmpBase,LmpScale,LmpImprovingBase,NmpEvalScale,NmpDepthDivisor,RfpMargin,FutilityMargin,SeeQuietMargin,SeeNoisyMargin,QsFutilityMargin,FhrMargin,LbrBonus}
BOOK=${BOOK:-openings/default.epd}
NAME=${NAME:-night-$(date +%Y%m%d-%H%M%S)}
OUT=runs/$NAME
TUNE=bin/ratchet-tune

for f in bin/ratchet $TUNE params/engine.json "$BOOK"; do
    if [ ! -e "$f" ]; then
        echo "make night: $f is missing; run make first" >&2
        exit 1
    fi
done

LIMIT="tc=$TC"
[ "$NODESTIME" != 0 ] && LIMIT="$LIMIT nodestime=$NODESTIME"
mkdir -p runs
echo "== make night: $GAMES games at $LIMIT, concurrency $CONCURRENCY, into $OUT =="
# shellcheck disable=SC2086
exec $TUNE run -engine cmd=bin/ratchet \
    -params file=params/engine.json only="$ONLY" \
    -each $LIMIT \
    -openings file="$BOOK" order=random \
    -draw movenumber=40 movecount=8 score=10 \
    -resign movecount=3 score=600 twosided=true \
    -spsa games="$GAMES" ${SPSA:-} \
    -concurrency "$CONCURRENCY" \
    -pgnout file="$OUT/games.pgn" \
    -out "$OUT"
