#!/bin/sh
# make fuzz: runs each libFuzzer harness (build/fuzz/bin/fuzz_NAME, built by
# `make fuzz-build`) for SECONDS seconds from its seed corpus
# tests/fuzz/corpus/NAME.  New inputs collect in build/fuzz/corpus/NAME,
# crashing inputs in build/fuzz/crashes/NAME, each run's output in
# build/fuzz/NAME.log.  Prints the executions and crashes per harness (also
# in build/fuzz/summary.txt); exits 1 if any harness crashed.  A crash, once
# fixed, belongs in tests/fuzz/regressions/NAME/ (make test replays it).
#
# Usage: sh tools/fuzz.sh SECONDS NAME...
set -u
secs=$1
shift
mkdir -p build/fuzz
summary=build/fuzz/summary.txt
printf '%-16s %12s %8s\n' harness executions crashes > "$summary"
total=0
failed=0
for n in "$@"; do
    corpus=build/fuzz/corpus/$n
    crashes=build/fuzz/crashes/$n
    mkdir -p "$corpus" "$crashes"
    echo "== fuzz_$n for ${secs}s =="
    build/fuzz/bin/fuzz_$n -max_total_time="$secs" -timeout=20 -print_final_stats=1 \
        -artifact_prefix="$crashes/" "$corpus" "tests/fuzz/corpus/$n" > "build/fuzz/$n.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build/fuzz/$n.log" | tail -n 1)
    found=$(ls "$crashes" | wc -l)
    [ -n "$runs" ] || runs=0
    total=$((total + runs))
    printf '%-16s %12s %8s\n' "$n" "$runs" "$found" | tee -a "$summary"
    if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
        failed=1
        echo "fuzz_$n: exit $rc; see build/fuzz/$n.log and $crashes/" >&2
    fi
done
printf '%-16s %12s\n' total "$total" | tee -a "$summary"
exit $failed
