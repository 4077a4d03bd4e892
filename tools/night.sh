#!/bin/sh
# make night: the whole night of bin/ratchet in one command (ratchet-tune
# night): SPSA at the clock 2+0.02, whose clock counts nodes (nodestime=), so
# the games keep their time management, reach the clock's depth (about 11
# plies at nodestime=500) and are the same on a loaded or an idle machine;
# then the ablation of the moved groups at the same limit, the export of the
# groups that pay, their confirmation at 2+0.02 on the wall clock (which needs
# the machine to itself) on openings no earlier step played, and the morning
# page, runs/<NAME>/morning.txt.  Sized by HOURS; see docs/tuning.md.
#
#   HOURS=H        the night's wall time (default 8), split by ratchet-tune night's
#                  rule from rates it measures on this machine first
#   GAMES=N        SPSA games instead of a share of HOURS
#   TC=T           the clock (default 2+0.02)
#   NODESTIME=N    nodes per millisecond of that clock while tuning (default 500; 0 =
#                  the wall clock; auto = what a ms of the confirmation's clock is worth
#                  on this machine, measured first: about 1500 on two idle cores here,
#                  where 500 searches 1.5 to 2 plies shallower than the wall clock
#                  (docs/results/clock-depth.md))
#   CONFIRM=...    the confirmation's limit (default: tc=TC on the wall clock)
#   CONCURRENCY=N  games at once (default: the number of cores)
#   ONLY=A,B,...   the parameters (default: sixteen margins and divisors of
#                  LMR, LMP, null move, futility, SEE, quiescence, FHR and LBR)
#   BOOK=FILE      openings (default openings/default.epd)
#   NAME=NAME      the night's name: runs/NAME (default: night-<date-time>)
#   SPSA=...       more -spsa keys (form=, ...), as `key=value key=value`
# A stopped night continues with: bin/ratchet-tune night runs/NAME
set -e
cd "$(dirname "$0")/.."

HOURS=${HOURS:-8}
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
PLAN="-hours $HOURS"
[ -n "${GAMES:-}" ] && PLAN="$PLAN -games $GAMES"
[ -n "${CONFIRM:-}" ] && PLAN="$PLAN -confirm $CONFIRM"
echo "== make night: $PLAN at $LIMIT, concurrency $CONCURRENCY, into $OUT =="
# shellcheck disable=SC2086
exec $TUNE night $PLAN -engine cmd=bin/ratchet \
    -params file=params/engine.json only="$ONLY" \
    -each $LIMIT \
    -openings file="$BOOK" order=random \
    -draw movenumber=40 movecount=8 score=10 \
    -resign movecount=3 score=600 twosided=true \
    ${SPSA:+-spsa $SPSA} \
    -concurrency "$CONCURRENCY" \
    -pgnout file="$OUT/games.pgn" \
    -out "$OUT"
