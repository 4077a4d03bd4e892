#!/bin/sh
# Engine speed (make bench section): bench nps of bin/ratchet as built
# (with -mpopcnt when the CPU has it, see the Makefile) against the same
# sources built for any x86-64 (ARCH=, no popcount instruction), the
# reference, built into build/bench-portable in the same run.  The two are
# run alternately, NPS_RUNS times each (default 5), at bench depth
# NPS_DEPTH (default 13: long enough that one run is not mostly start-up),
# and the medians are compared: the machine is shared and one run says
# little.
set -e
cd "$(dirname "$0")/../.."
RUNS=${NPS_RUNS:-5}
DEPTH=${NPS_DEPTH:-13}
[ -x bin/ratchet ] || { echo "nps bench: bin/ratchet is not built (run make)"; exit 1; }
make -s BUILD=build/bench-portable BINDIR=build/bench-portable/bin ARCH= build/bench-portable/bin/ratchet >/dev/null
REF=build/bench-portable/bin/ratchet

nps() { "$1" bench "$DEPTH" | tail -n 1 | awk '{print $3}'; }
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }

sig=$(bin/ratchet bench "$DEPTH" | tail -n 1 | awk '{print $1}')
refsig=$("$REF" bench "$DEPTH" | tail -n 1 | awk '{print $1}')
[ "$sig" = "$refsig" ] || { echo "nps bench: the two builds search differently ($sig and $refsig nodes)"; exit 1; }

a=""; b=""
i=0
while [ "$i" -lt "$RUNS" ]; do
    a="$a $(nps bin/ratchet)"
    b="$b $(nps "$REF")"
    i=$((i + 1))
done
ma=$(echo "$a" | tr ' ' '\n' | grep . | median)
mb=$(echo "$b" | tr ' ' '\n' | grep . | median)
echo "bench $DEPTH ($sig nodes), median nps of $RUNS alternating runs each:"
echo "  bin/ratchet (ARCH='$(make -s -f Makefile --eval 'print-arch: ; @echo $(ARCH)' print-arch 2>/dev/null)')  $ma   runs:$a"
echo "  portable build (ARCH=)          $mb   runs:$b"
awk -v a="$ma" -v b="$mb" 'BEGIN {printf "  ratio %.2fx\n", a / b}'
