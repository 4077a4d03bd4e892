#!/bin/sh
# Baked against runtime parameters: bench nps of bin/ratchet given a value
# file at run time (--params) and of an engine with the same file baked in
# (make PARAMS=...), measured in this run, alternating which goes first,
# median of RUNS each; the figure is the ratio baked/runtime (> 1: the baked
# build is faster).  Both must search the same number of nodes; a difference
# means baking changed the search, and the section fails.  Besides bench's
# own (wall-clock) nps, the CPU nps (nodes / user+sys seconds, from GNU time
# when installed) is printed: on a loaded machine it is the steadier figure.
#
# Env: BAKE_BENCH_VALUES (default params/engine.json, the defaults),
#      BAKE_BENCH_DEPTH (default: bench's own depth), BAKE_BENCH_RUNS (default 5).
set -eu
cd "$(dirname "$0")/../.."
VALUES=${BAKE_BENCH_VALUES:-params/engine.json}
DEPTH=${BAKE_BENCH_DEPTH:-}
RUNS=${BAKE_BENCH_RUNS:-5}
DIR=build/bench-baked
RUNTIME=bin/ratchet
BAKED=$DIR/ratchet

make --no-print-directory -s PARAMS="$VALUES" BAKED_DIR=$DIR BAKED_BIN=$BAKED $BAKED >/dev/null
if ! "$RUNTIME" --params "$VALUES" params >/dev/null; then
    echo "bake: $RUNTIME does not take --params (is it a baked build? run make first)" >&2
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

TIME=/usr/bin/time
[ -x "$TIME" ] || TIME=

# One bench run: appends to $tmp/$1.nodes, $tmp/$1.nps (bench's own) and
# $tmp/$1.cpunps (nodes per CPU second).
bench() {
    name=$1
    shift
    if [ -n "$TIME" ]; then
        "$TIME" -f '%U %S' -o "$tmp/cpu" "$@" bench $DEPTH >"$tmp/out"
    else
        "$@" bench $DEPTH >"$tmp/out"
    fi
    last=$(tail -n 1 "$tmp/out")
    echo "$last" | awk '{print $1}' >>"$tmp/$name.nodes"
    echo "$last" | awk '{print $3}' >>"$tmp/$name.nps"
    if [ -n "$TIME" ]; then
        awk -v n="${last%% *}" '{s = $1 + $2; print (s > 0 ? int(n / s) : 0)}' "$tmp/cpu" >>"$tmp/$name.cpunps"
    fi
}

i=1
while [ "$i" -le "$RUNS" ]; do
    if [ $((i % 2)) = 1 ]; then
        bench runtime "$RUNTIME" --params "$VALUES"
        bench baked "$BAKED"
    else
        bench baked "$BAKED"
        bench runtime "$RUNTIME" --params "$VALUES"
    fi
    i=$((i + 1))
done

median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
range() { sort -n "$1" | awk 'NR == 1 {lo = $1} {hi = $1} END {print lo "-" hi}'; }

nodes_rt=$(sort -u "$tmp/runtime.nodes")
nodes_bk=$(sort -u "$tmp/baked.nodes")
rt=$(median "$tmp/runtime.nps")
bk=$(median "$tmp/baked.nps")
tag=$(bin/ratchet-bake --tag "$VALUES")
echo "values: $VALUES (tag $tag), bench depth ${DEPTH:-default}, $RUNS runs each, alternating"
printf 'runtime (--params): %s nodes, %s nps median (range %s)\n' "$nodes_rt" "$rt" "$(range "$tmp/runtime.nps")"
printf 'baked:              %s nodes, %s nps median (range %s)\n' "$nodes_bk" "$bk" "$(range "$tmp/baked.nps")"
printf 'nps ratio baked/runtime: %.3f\n' "$(awk -v a="$bk" -v b="$rt" 'BEGIN {print a / b}')"
if [ -n "$TIME" ]; then
    crt=$(median "$tmp/runtime.cpunps")
    cbk=$(median "$tmp/baked.cpunps")
    printf 'CPU nps (nodes / CPU second), median: runtime %s (range %s), baked %s (range %s)\n' \
        "$crt" "$(range "$tmp/runtime.cpunps")" "$cbk" "$(range "$tmp/baked.cpunps")"
    printf 'CPU nps ratio baked/runtime: %.3f\n' "$(awk -v a="$cbk" -v b="$crt" 'BEGIN {print a / b}')"
fi
if [ "$nodes_rt" != "$nodes_bk" ]; then
    echo "bake: the baked engine searched $nodes_bk nodes, the runtime one $nodes_rt: baking changed the search" >&2
    exit 1
fi
