#!/bin/sh
# make tune: a real SPSA session of bin/ratchet on params/engine.json and
# openings/default.epd, at a fixed node count, into runs/<date-time>/.
#
# About twenty minutes on 2 idle cores (19m16s measured from a clean clone,
# the build included: about 2.9 games/s).  Override with environment or make
# variables, e.g. an overnight run:
#     make tune GAMES=60000 NODES=20000
#     GAMES=60000 NODES=20000 CONCURRENCY=8 ONLY=all sh tools/tune.sh
#
#   GAMES=N        games in the run (default 3000)
#   NODES=N        nodes per move (default 5000)
#   CONCURRENCY=N  games at once (default: the number of cores)
#   ONLY=A,B,...   the parameters to tune (default: eight search constants,
#                  see below); ONLY=all tunes every parameter of the spec
#   BOOK=FILE      openings (default openings/default.epd)
#   NAME=NAME      the run's name: runs/NAME (default: the date and time)
#
# Why a subset by default: in twenty minutes two cores play about three
# thousand games at 5000 nodes.  SPSA moves every parameter by the same few hundred
# noisy game-pair outcomes; with all 65 parameters each one would drift by a
# fraction of its c_end, indistinguishable from noise.  Eight continuous
# constants of the techniques this engine is about (LMR, LMP, FHR, null move,
# futility, reverse futility) get a visible trajectory.  An overnight run
# (ONLY=all, tens of thousands of games) is what tunes the whole spec; the
# on/off switches are best left to a match.
set -e
cd "$(dirname "$0")/.."

GAMES=${GAMES:-3000}
NODES=${NODES:-5000}
CONCURRENCY=${CONCURRENCY:-$(nproc 2>/dev/null || echo 2)}
ONLY=${ONLY:-LmrQuietBase,LmrQuietDivisor,LmpBase,LmpScale,FhrMargin,NmpEvalScale,FutilityMargin,RfpMargin}
BOOK=${BOOK:-openings/default.epd}
NAME=${NAME:-$(date +%Y%m%d-%H%M%S)}
OUT=runs/$NAME
TUNE=bin/ratchet-tune

for f in bin/ratchet $TUNE params/engine.json; do
    if [ ! -e "$f" ]; then
        echo "make tune: $f is missing; run make first" >&2
        exit 1
    fi
done

if [ ! -f "$BOOK" ]; then
    echo "make tune: the opening book $BOOK is missing."
    echo "           Using a small stand-in instead: 300 positions from bin/ratchet-genbook"
    echo "           (build/tune-book.epd).  Tuning on a real book is better: see openings/README.md."
    if [ ! -f build/tune-book.epd ]; then
        mkdir -p build
        bin/ratchet-genbook -o build/tune-book.epd -n 300 -s 1
    fi
    BOOK=build/tune-book.epd
fi

ONLY_ARG="only=$ONLY"
[ "$ONLY" = all ] && ONLY_ARG=

mkdir -p runs
echo "== make tune: $GAMES games at $NODES nodes, concurrency $CONCURRENCY, into $OUT =="
set +e
# Ctrl-C reaches the tuner from the terminal (same process group); it saves and
# stops, and this script then prints the next steps.  A TERM sent to this
# script alone is passed on to the tuner, which handles it like Ctrl-C.
trap ':' INT
$TUNE run -engine cmd=bin/ratchet \
    -params file=params/engine.json $ONLY_ARG \
    -each nodes="$NODES" \
    -openings file="$BOOK" order=random \
    -draw movenumber=40 movecount=8 score=10 \
    -resign movecount=3 score=600 twosided=true \
    -spsa games="$GAMES" \
    -concurrency "$CONCURRENCY" \
    -pgnout file="$OUT/games.pgn" \
    -out "$OUT" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' TERM
wait $pid
rc=$?
# A trapped signal ends `wait` early: wait again until the tuner has exited.
while kill -0 $pid 2>/dev/null; do
    wait $pid
    rc=$?
done
trap - INT TERM
set -e
[ $rc -eq 2 ] && exit 2   # configuration refused: nothing was played, the message says why
[ -f "$OUT/state.json" ] || exit $rc

cat <<EOF

== next steps ==
  status:  $TUNE status $OUT
  report:  $OUT/report.html   (open it in a browser; it was kept current during the run)
  export:  $TUNE export $OUT -o params/tuned/$NAME.json
           (-snapshot best|K for a validation point's values, -keep-noise=start to keep the
            start value where a move is not distinguishable from noise: docs/morning-after.md)
EOF
if [ $rc -ne 0 ]; then
    echo "  resume:  $TUNE resume $OUT"
fi
cat <<EOF
  verify:  $TUNE verify $OUT
           (exports the values, bakes them into an engine of their own and plays an SPRT,
            elo0=0 elo1=5, against the start values at $NODES nodes; the verdict goes to
            $OUT/verify.json, which status shows; stopped, it continues when run again)

== where these figures hold ==
  This run played at nodes=$NODES: its status, report and verify figures hold there only.
  Values tuned at a fixed node count have lost at the clock (docs/results/tuning-night.md).
  Verify at your clock:  $TUNE verify $OUT -restart -each tc=2+0.02 nodestime=500
  The night that tunes at the clock:  make night   (tools/night.sh, eight hours by default; HOURS=N)
EOF
exit $rc
