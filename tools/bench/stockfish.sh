#!/bin/sh
# A third-party engine as the subject: Debian's Stockfish (package
# `stockfish`), its `Skill Level` option (a name with a space) tuned at 1000
# nodes with the default (classic) SPSA form.
#
#   1. The command of issue 15, as a user types it: 100 games from Skill
#      Level 5 with the OpenBench defaults c_end 1, r_end 0.002 (the default
#      SPSA form).
#   2. The classic fishtest/OpenBench form with gains sized for a short run
#      (those of tests/test_thirdparty.c): 400 games from Skill Level 1 with
#      c_end 2, r_end 0.02, SEEDS seeds; the figure is the median final value.
#   3. The reference, measured in the same run: a match of Skill Level at the
#      median exported value against Skill Level 1 (the start), 1000 nodes,
#      MATCH_GAMES games from the default book; Elo of the tuned value.
#
# Env: RATCHET_TUNE (default bin/ratchet-tune), RATCHET_STOCKFISH (default
# /usr/games/stockfish), SF_BENCH_SEEDS (default 3), SF_BENCH_GAMES (default 200).
set -eu
cd "$(dirname "$0")/../.."
RT=${RATCHET_TUNE:-bin/ratchet-tune}
SF=${RATCHET_STOCKFISH:-/usr/games/stockfish}
SEEDS=${SF_BENCH_SEEDS:-3}
MATCH_GAMES=${SF_BENCH_GAMES:-200}
if [ ! -x "$SF" ]; then
    echo "stockfish: $SF is missing (apt-get install stockfish); skipped"
    exit 0
fi
T=$(mktemp -d /tmp/ratchet-sfbench-XXXXXX)
trap 'rm -rf "$T"' EXIT

echo "-- 1. the issue's command: Skill Level 5, c_end 1, r_end 0.002, 100 games --"
printf 'Skill Level, int, 5, 0, 20, 1, 0.002\n' > "$T/skill.txt"
start=$(date +%s)
"$RT" run -engine cmd="$SF" -params file="$T/skill.txt" -each nodes=1000 -spsa games=100 \
    -out "$T/skill" > "$T/run1.log" 2>&1
echo "($(($(date +%s) - start)) s)"
"$RT" status "$T/skill" | sed -n '/^parameter/,$p'
"$RT" export "$T/skill" 2>/dev/null | sed -n 's/^[[:space:]]*\("Skill Level".*\)/export: \1/p'

echo
echo "-- 2. classic form: Skill Level 1, c_end 2, r_end 0.02, 400 games, $SEEDS seeds --"
printf 'Skill Level, int, 1, 0, 20, 2, 0.02\n' > "$T/skill1.txt"
: > "$T/ends"
s=1
while [ "$s" -le "$SEEDS" ]; do
    "$RT" run -engine cmd="$SF" -params file="$T/skill1.txt" -each nodes=1000 -spsa games=400 form=classic \
        -concurrency 2 -srand "$s" -out "$T/s$s" > "$T/run2.log" 2>&1
    end=$("$RT" status "$T/s$s" | awk '/^Skill Level/ { print $4 }')
    echo "seed $s: Skill Level 1 -> $end"
    echo "$end" >> "$T/ends"
    s=$((s + 1))
done
median=$(sort -n "$T/ends" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
tuned=$(awk -v m="$median" 'BEGIN { printf "%d", m + 0.5 }')
echo "median final value $median: exported as $tuned"

echo
echo "-- 3. Skill Level $tuned (tuned) vs 1 (start), 1000 nodes, $MATCH_GAMES games --"
"$RT" match -engine cmd="$SF" name=tuned "option.Skill Level=$tuned" \
    -engine cmd="$SF" name=start "option.Skill Level=1" \
    -each nodes=1000 -openings file=openings/default.epd order=random \
    -games 2 -rounds $((MATCH_GAMES / 2)) -repeat -concurrency 2 -srand 15 2>/dev/null |
    sed -n '/^Results of/,/^Ptnml/p'
