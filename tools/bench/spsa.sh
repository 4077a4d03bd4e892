#!/bin/sh
# SPSA convergence benchmark, with `ratchet-tune simulate` on its built-in
# 6-parameter landscape (start values lose 21.5 Elo; every curvature is 1 Elo
# at c_end; draw ratio 0.5 and no opening bias, given explicitly because
# simulate's defaults are the measured 0.25 and 80; one pair per iteration;
# sequential batches).
#
# Figure: the number of games the classic fishtest/OpenBench form needs to
# bring the median (over SEEDS seeds) Elo loss of the final theta under 1 Elo.
# Found on a ladder of game budgets 4000 * 2^(i/4) (each budget is a separate
# run whose gain schedule is sized for it), log-log interpolated between the
# last budget above and the first below 1 Elo.  This is the baseline later
# work must beat; each option is measured the same way in the same run and
# printed with its ratio to the classic figure (< 1 = fewer games = better).
# Second figure: the median Elo loss after 400000 games (the noise floor that
# r_end sets), classic against the option.
#
# Every figure here is of the classic form (form=classic); the other forms are
# compared on the landscape suite by tools/bench/spsa_suite.sh (make bench-spsa).
#
# Env: RATCHET_TUNE (default bin/ratchet-tune), SPSA_BENCH_SEEDS (default 25).
set -eu
cd "$(dirname "$0")/../.."
RT=${RATCHET_TUNE:-bin/ratchet-tune}
SEEDS=${SPSA_BENCH_SEEDS:-25}
TARGET=1
CAP=2000000

if ! "$RT" simulate --help >/dev/null 2>&1; then
    echo "spsa: '$RT simulate' is not available (is tuner/commands/main.c built?); skipped"
    exit 0
fi

# median Elo loss over the seeds for a budget: median_loss GAMES [spsa key=value ...]
median_loss() {
    g=$1
    shift
    "$RT" simulate -quiet -draw-ratio 0.5 -opening-bias 0 -seeds "$SEEDS" -spsa form=classic games="$g" "$@" |
        sed -n 's/^median over [0-9]* seeds: Elo loss \([0-9.]*\).*/\1/p'
}

# games_to_target [spsa key=value ...]: prints the interpolated game count
games_to_target() {
    i=0
    prev_g=""
    prev_l=""
    while :; do
        g=$(awk -v i="$i" 'BEGIN { printf "%d", 4000 * 2 ^ (i / 4) + 0.5 }')
        if [ "$g" -gt "$CAP" ]; then
            echo "more than $CAP"
            return
        fi
        l=$(median_loss "$g" "$@")
        [ -n "$l" ] || { echo "spsa: simulate printed no median" >&2; exit 1; }
        if awk -v l="$l" -v t="$TARGET" 'BEGIN { exit !(l < t) }'; then
            if [ -z "$prev_g" ]; then
                echo "$g"
            else
                awk -v g0="$prev_g" -v l0="$prev_l" -v g1="$g" -v l1="$l" -v t="$TARGET" 'BEGIN {
                    f = (log(l0) - log(t)) / (log(l0) - log(l1));
                    printf "%d", exp(log(g0) + f * (log(g1) - log(g0))) + 0.5 }'
            fi
            return
        fi
        prev_g=$g
        prev_l=$l
        i=$((i + 1))
    done
}

ratio() {
    case "$1$2" in
    *more*) echo "n/a" ;;
    *) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' ;;
    esac
}

echo "simulate, built-in landscape, median over $SEEDS seeds"
classic=$(games_to_target)
echo "classic SPSA: $classic games to an Elo loss under $TARGET   (baseline)"
for f in 0.25 0.5; do
    avg=$(games_to_target average=$f)
    echo "average=$f:   $avg games to an Elo loss under $TARGET   ratio $(ratio "$avg" "$classic") vs classic"
done

floor_classic=$(median_loss 400000)
echo "classic SPSA: median Elo loss $floor_classic after 400000 games"
for f in 0.25 0.5; do
    fl=$(median_loss 400000 average=$f)
    echo "average=$f:   median Elo loss $fl after 400000 games   ratio $(ratio "$fl" "$floor_classic") vs classic"
done
