#!/bin/sh
# make bench-mpi: how bin/ratchet-tune-mpi scales with its worker ranks, on
# one machine.  The engines are the fake UCI engine answering every `go` after
# a fixed sleep (--think, default 20 ms) and always playing its first legal
# move, so every game is the same length and the two cores do not bound the
# games: a perfect runner plays N times the games per second with N workers.
#
# Each worker rank plays one game at a time (-concurrency 1) and PAIRS pairs
# (default 4); the job is `mpirun -np N+1` (rank 0 coordinates).  The
# configurations are played in turn, REPS times (default 3), and medians are
# quoted.  games/s is the match's own figure (from the first pair handed out
# to the last result, start-up excluded).
#
#   scaling efficiency(N) = games/s with N workers / (N x games/s with 1 worker)
#     (the reference, 1 worker, is measured in the same run, alternating)
#   rank 0 CPU per game   = (CPU long - CPU short) / (games long - games short)
#     at the largest N: its getrusage (the match's "CPU: runner" line), a long
#     and a short match, so start-up (MPI_Init, the tables) cancels out
#   workers one rank 0 can feed = (1 s / CPU per game) / (games/s of 1 worker)
#   MPI / local: games/s against bin/ratchet-tune -concurrency N on this machine
#     (same engines, same N games at once, measured alternating with the MPI runs):
#     what the machine itself loses with N games at once is not the transport's
#
# Usage: sh tools/bench-mpi.sh   (THINK=ms PAIRS=n REPS=n WORKERS="1 2 4 8 16")
set -e
cd "$(dirname "$0")/.."
THINK=${THINK:-20}
PAIRS=${PAIRS:-4}
REPS=${REPS:-3}
WORKERS=${WORKERS:-"1 2 4 8 16"}
FAKE=build/fake/fakeuci
MPI_BIN=bin/ratchet-tune-mpi
command -v mpirun >/dev/null 2>&1 || { echo "bench-mpi: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }
make -s "$FAKE" "$MPI_BIN" >/dev/null
MPIRUN="mpirun --oversubscribe --allow-run-as-root --mca btl self,vader --mca btl_vader_single_copy_mechanism none"
OUT=$(mktemp -d /tmp/ratchet-bench-mpi-XXXXXX)
trap 'rm -rf "$OUT"' EXIT

# play N ROUNDS [local]: prints "games/s rank0_cpu_s games".  With "local":
# bin/ratchet-tune -concurrency N, the same N games at a time on one process
# (the reference: what this machine gives N games at once without MPI).
play() {
    n=$1; rounds=$2
    if [ "${3:-}" = local ]; then cmd="bin/ratchet-tune"; conc=$n; else cmd="$MPIRUN -np $((n + 1)) $MPI_BIN"; conc=1; fi
    # shellcheck disable=SC2086
    $cmd match \
        -engine cmd=$FAKE name=A "args=--first --think $THINK" \
        -engine cmd=$FAKE name=B "args=--first --think $THINK" \
        -each nodes=1 -maxmoves 40 -rounds "$rounds" -concurrency $conc >"$OUT/log" 2>&1 </dev/null || {
        cat "$OUT/log" >&2; exit 1; }
    tr '\r' '\n' <"$OUT/log" | sed 's/\x1b\[K//g' | awk '
        /^Games: [0-9]+\/[0-9]+ / { for (i = 1; i <= NF; i++) if ($i == "games/s") gps = $(i - 1) }
        /^CPU: runner/ { cpu = $3 }
        /^Games: [0-9]+, Wins/ { g = $2; sub(",", "", g) }
        END { printf "%s %s %s\n", gps, cpu, g }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

last=1
for n in $WORKERS; do last=$n; done
echo "fake engine: first legal move after $THINK ms per go; $PAIRS pairs per worker, -concurrency 1, $REPS rounds of every configuration"
for rep in $(seq 1 "$REPS"); do
    for n in $WORKERS; do
        play "$n" $((n * PAIRS)) | sed "s/^/$n /" >>"$OUT/runs"
        play "$n" $((n * PAIRS)) local | sed "s/^/local$n /" >>"$OUT/runs"
    done
    play "$last" "$last" | sed "s/^/short /" >>"$OUT/runs"
done

g1=$(awk '$1 == 1 { print $2 }' "$OUT/runs" | median)
printf "%8s %10s %10s %10s   %-28s %s\n" workers "games/s" "speed-up" efficiency "local -concurrency N games/s" "MPI / local"
for n in $WORKERS; do
    g=$(awk -v n="$n" '$1 == n { print $2 }' "$OUT/runs" | median)
    l=$(awk -v n="local$n" '$1 == n { print $2 }' "$OUT/runs" | median)
    awk -v n="$n" -v g="$g" -v g1="$g1" -v l="$l" 'BEGIN {
        printf "%8d %10.2f %10.2f %10.3f   %-28.2f %.3f\n", n, g, g / g1, g / (n * g1), l, g / l }'
done
cpu_long=$(awk -v n="$last" '$1 == n { print $3 }' "$OUT/runs" | median)
games_long=$(awk -v n="$last" '$1 == n { print $4 }' "$OUT/runs" | median)
cpu_short=$(awk '$1 == "short" { print $3 }' "$OUT/runs" | median)
games_short=$(awk '$1 == "short" { print $4 }' "$OUT/runs" | median)
awk -v cl="$cpu_long" -v cs="$cpu_short" -v gl="$games_long" -v gs="$games_short" -v g1="$g1" -v n="$last" 'BEGIN {
    per = (cl - cs) / (gl - gs);
    printf "rank 0 CPU at %d workers: %.3f s for %d games, %.3f s for %d games (medians): %.3f ms per game (marginal)\n",
           n, cl, gl, cs, gs, per * 1000;
    if (per > 0)
        printf "one rank 0 can coordinate %.0f games/s: about %.0f workers at this %.3f games/s each, or %.0f hosts playing 9 games/s (a 2-core host at nodes=5000)\n",
               1 / per, 1 / per / g1, g1, 1 / per / 9;
}'
