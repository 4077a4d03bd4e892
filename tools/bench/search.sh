#!/bin/sh
# Search benchmark (make bench section): bench nps, and for the bench
# positions at a fixed depth the nodes and the effective branching factor
# (nodes at depth D / nodes at depth D-1) with the default parameters, then
# with each of LMR, LMP, IIR, FHR, LBR, NMP and singular extensions switched
# off one at a time, and correction history, razoring and ProbCut (off by
# default) switched on.  The "defaults" row is
# the reference measured in the same run.
# Depth: SEARCH_BENCH_DEPTH (default 11).
set -e
cd "$(dirname "$0")/../.."
ENGINE=${RATCHET_ENGINE:-bin/ratchet}
D=${SEARCH_BENCH_DEPTH:-11}
[ -x "$ENGINE" ] || { echo "search bench: $ENGINE is not built (run make)"; exit 1; }

# bench_nodes DEPTH [OPTION[=VALUE]]: node count of the bench with OPTION set
# to VALUE (0 if not given).
bench_nodes() {
    if [ -n "$2" ]; then
        name=${2%%=*}
        value=0
        case $2 in *=*) value=${2#*=} ;; esac
        printf 'setoption name %s value %s\nbench %s\nquit\n' "$name" "$value" "$1" | "$ENGINE" | tail -n 1 | awk '{print $1}'
    else
        printf 'bench %s\nquit\n' "$1" | "$ENGINE" | tail -n 1 | awk '{print $1}'
    fi
}

line=$("$ENGINE" bench | tail -n 1)
sig=$(echo "$line" | awk '{print $1}')
pinned=$(grep -v '^#' tests/bench_signature.txt | head -n 1)
echo "bench (default depth): $line"
if [ "$sig" = "$pinned" ]; then
    echo "signature $sig matches tests/bench_signature.txt"
else
    echo "signature $sig differs from the pinned $pinned (tests/bench_signature.txt)"
fi
echo
printf '%-10s %14s %14s %7s %10s\n' "search" "nodes d=$((D - 1))" "nodes d=$D" "EBF" "vs defaults"
ref=""
for cfg in "defaults:" "LMR off:LmrEnabled" "LMP off:LmpEnabled" "IIR off:IirEnabled" "FHR off:FhrEnabled" \
           "LBR off:LbrEnabled" "NMP off:NmpEnabled" "SE off:SeEnabled" "Corr on:CorrEnabled=1" \
           "Razor on:RazorEnabled=1" "ProbCut on:ProbcutEnabled=1"; do
    label=${cfg%%:*}
    opt=${cfg#*:}
    a=$(bench_nodes $((D - 1)) "$opt")
    b=$(bench_nodes "$D" "$opt")
    [ -n "$ref" ] || ref=$b
    awk -v l="$label" -v a="$a" -v b="$b" -v r="$ref" \
        'BEGIN { printf "%-10s %14d %14d %7.3f %9.2fx\n", l, a, b, b / a, b / r }'
done
