#!/bin/sh
# make bench-techniques: does each of the seeds' techniques still pay its way?
# For every switch of SWITCHES, an SPRT of bin/ratchet as shipped (the switch
# on) against the same engine with the switch off (option.NAME=0), by
# `ratchet-tune match`: game pairs from openings/default.epd, colours
# swapped, fixed nodes (so the figures do not depend on the machine's load)
# or, with TC set, a clock (a technique that pays only at depth, as singular
# extensions did, shows there and not at 5000 nodes), OpenBench's adjudication, -sprt elo0=ELO0 elo1=ELO1 (H1: "on" is better by
# at least ELO1).  A test that has not decided after MAX_GAMES games stops
# there and is reported as undecided, with its Elo and LLR.
#
# Every match is kept in OUT/NAME.log (and .pgn); started again, the script
# skips a switch whose match finished and plays the others.  The engine is
# copied into OUT at the first start (its bench signature in
# OUT/signature.txt), so every match plays one build.
#
# Env (all optional):
#   SWITCHES="LmrEnabled LbrEnabled LmpEnabled IirEnabled FhrEnabled"
#   NODES=5000  CONCURRENCY=2  MAX_GAMES=4000  ELO0=0  ELO1=5  SEED=1
#   TC=         a clock for both engines instead of NODES, fastchess form
#               (2+0.02: about depth 13 on one core); each engine gets
#               MoveOverhead=OVERHEAD_MS and the runner a timemargin of
#               TIMEMARGIN_MS, so that a busy machine does not decide games
#               on time (defaults 20 and 100)
#   OPTS=       UCI options both engines play, e.g. the constants of a tune:
#               OPTS="$(tools/bench/options.sh tuned.json)" (the switch under
#               test is set to 0 after them in the "off" engine)
#   OUT=runs/bench-techniques
set -eu
cd "$(dirname "$0")/../.."
RT=${RT:-bin/ratchet-tune}
SWITCHES=${SWITCHES:-LmrEnabled LbrEnabled LmpEnabled IirEnabled FhrEnabled}
NODES=${NODES:-5000}
CONCURRENCY=${CONCURRENCY:-2}
MAX_GAMES=${MAX_GAMES:-4000}
ELO0=${ELO0:-0}
ELO1=${ELO1:-5}
SEED=${SEED:-1}
OUT=${OUT:-runs/bench-techniques}
OPTS=${OPTS:-}
case $OPTS in *[!A-Za-z0-9_.=\ +-]*) echo "bench-techniques: OPTS holds something other than option.NAME=VALUE words" >&2; exit 2 ;; esac
TC=${TC:-}
OVERHEAD_MS=${OVERHEAD_MS:-20}
TIMEMARGIN_MS=${TIMEMARGIN_MS:-100}
BOOK=openings/default.epd

case $MAX_GAMES in ''|*[!0-9]*|0) echo "bench-techniques: MAX_GAMES '$MAX_GAMES' is not a positive number" >&2; exit 2 ;; esac
case $OVERHEAD_MS$TIMEMARGIN_MS in *[!0-9]*) echo "bench-techniques: OVERHEAD_MS and TIMEMARGIN_MS are whole ms" >&2; exit 2 ;; esac
if [ -n "$TC" ]; then
    # ratchet-tune checks the clock's form itself; the budget named in the logs.
    budget="tc=$TC"
    set -- tc="$TC" timemargin="$TIMEMARGIN_MS" option.MoveOverhead="$OVERHEAD_MS"
else
    budget="nodes=$NODES"
    set -- nodes="$NODES"
fi
. tools/bench/frozen.sh
freeze_engine bench-techniques "$OUT"
known=$("$ENGINE" spsa | cut -d, -f1)
for s in $SWITCHES; do
    echo "$known" | grep -qx "$s" || { echo "bench-techniques: $s is not a parameter of bin/ratchet" >&2; exit 2; }
done

rounds=$(( (MAX_GAMES + 1) / 2 ))
for s in $SWITCHES; do
    log=$OUT/$s.log
    if [ -f "$log" ] && grep -q '^Finished match' "$log"; then
        echo "[$(date -u +%T)] $s: done earlier ($log)"
        continue
    fi
    echo "[$(date -u +%T)] $s: on against off, $budget, SPRT [$ELO0, $ELO1], at most $((rounds * 2)) games"
    # shellcheck disable=SC2086
    "$RT" match -engine cmd="$ENGINE" name=on $OPTS -engine cmd="$ENGINE" name=off $OPTS "option.$s=0" \
        -each "$@" -openings file="$BOOK" order=random -srand "$SEED" \
        -draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=600 twosided=true \
        -rounds "$rounds" -repeat -concurrency "$CONCURRENCY" -sprt elo0="$ELO0" elo1="$ELO1" \
        -pgnout file="$OUT/$s.pgn" > "$log.part" 2>&1
    mv "$log.part" "$log"
    grep -E '^(Elo|SPRT)' "$log"
done

echo
echo "== bench-techniques: $(cat "$OUT/engine.txt"), bench $(cat "$OUT/signature.txt"), $budget, SPRT [$ELO0, $ELO1]${OPTS:+, both engines with $(echo "$OPTS" | wc -w) options of OPTS} =="
printf "%-12s %6s %-22s %-8s %s\n" switch games "Elo (on - off)" LLR verdict
for s in $SWITCHES; do
    log=$OUT/$s.log
    [ -f "$log" ] || continue
    awk -v s="$s" '
        /^Elo: / { e = $2 == "n/a" ? "n/a" : $2 " +/- " $4; sub(",$", "", e) }
        /^Games: [0-9]+, Wins/ { g = $2; sub(",", "", g) }
        /^LLR: / { llr = $2 }
        /^SPRT / { v = $0; sub(/^SPRT \([^)]*\) /, "", v) }
        END {
            if (v ~ /H1 was accepted/) verdict = "pays (H1)"
            else if (v ~ /H0 was accepted/) verdict = "does not pay (H0)"
            else verdict = "undecided at the cap"
            printf "%-12s %6s %-22s %-8s %s\n", s, g, e, llr, verdict
        }' "$log"
done
