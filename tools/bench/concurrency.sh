#!/bin/sh
# Games per second at the tuning limit (make bench section): the same
# games, bin/ratchet against itself at tc=2+0.02 nodestime=500 on the same
# openings and seed, played at -concurrency equal to the machine's cores
# (the reference) and at cores+1 and cores+2.  At nodestime an engine's
# clock counts nodes, so a game's moves do not depend on the load: the
# three play the very same games, and only their wall time differs.  Each
# concurrency is run CONC_RUNS times (default 3) in turn, A B C A B C ...,
# and the medians of games/s are compared; the machine should be idle.
# CONC_ROUNDS (default 20) game pairs a run.
set -e
cd "$(dirname "$0")/../.."
RUNS=${CONC_RUNS:-3}
ROUNDS=${CONC_ROUNDS:-20}
make -s bin/ratchet bin/ratchet-tune >/dev/null
CORES=$(nproc)
BOOK=openings/default.epd
[ -f "$BOOK" ] || { echo "concurrency bench: $BOOK is missing"; exit 1; }

# games/s of one run at concurrency $1, and its pentanomial (the same in every run)
run() {
    t0=$(date +%s.%N)
    out=$(bin/ratchet-tune match -engine cmd=bin/ratchet name=A -engine cmd=bin/ratchet name=B \
        -each tc=2+0.02 nodestime=500 -openings file=$BOOK format=epd order=random -srand 11 \
        -rounds "$ROUNDS" -games 2 -concurrency "$1" 2>&1) || { echo "$out" >&2; exit 1; }
    t1=$(date +%s.%N)
    ptnml=$(echo "$out" | sed -n 's/^Ptnml(0-2): \(\[[^]]*\]\).*/\1/p' | tail -n 1 | tr -d ' ')
    echo "$t0 $t1" | awk -v g=$((2 * ROUNDS)) -v p="$ptnml" '{ printf "%.4f %s\n", g / ($2 - $1), p }'
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "games/s at tc=2+0.02 nodestime=500, bin/ratchet against itself, $((2 * ROUNDS)) games a run, $CORES cores:"
ref=""
for k in 0 1 2; do eval "rates$k=''; ptnml$k=''"; done
i=0
while [ "$i" -lt "$RUNS" ]; do
    for k in 0 1 2; do
        r=$(run $((CORES + k)))
        eval "rates$k=\"\$rates$k ${r% *}\"; ptnml$k=\"${r#* }\""
    done
    i=$((i + 1))
done
for k in 0 1 2; do
    eval "rates=\$rates$k; p=\$ptnml$k"
    m=$(echo "$rates" | tr ' ' '\n' | grep . | median)
    [ "$k" = 0 ] && ref=$m
    awk -v c=$((CORES + k)) -v base="$CORES" -v m="$m" -v ref="$ref" -v r="$rates" -v p="$p" \
        'BEGIN { printf "  concurrency %d: median %.3f games/s, ratio %.2f against concurrency %d   runs:%s  Ptnml %s\n", c, m, m / ref, base, r, p }'
done
[ "$ptnml0" = "$ptnml1" ] && [ "$ptnml0" = "$ptnml2" ] || echo "  the pentanomials differ: the runs did not play the same games"
