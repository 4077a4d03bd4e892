#!/bin/sh
# Value files with parameters moved away from their defaults, for the tests
# that compare a baked engine with `bin/ratchet --params` (make
# baked-test-engines).  Reads `bin/ratchet spsa` lines
# (name, int, value, min, max, c_end, r_end) on stdin, writes JSON on stdout.
#   all   every parameter moved by a quarter of its range (at least 1),
#         switches flipped
#   live  the same for every parameter with more than two values; switches
#         keep their values, so every technique stays on and its constants
#         are exercised
# Exits non-zero when the input holds no parameter line.
mode=${1:-all}
case "$mode" in all|live) ;; *) echo "usage: params_moved.sh all|live < spsa-lines" >&2; exit 2 ;; esac
awk -F', *' -v mode="$mode" '
BEGIN { n = 0 }
NF >= 5 && $2 == "int" {
    v = $3 + 0; lo = $4 + 0; hi = $5 + 0
    if (hi <= lo || (mode == "live" && hi - lo < 2)) next
    d = int((hi - lo) / 4); if (d < 1) d = 1
    nv = (v + d <= hi) ? v + d : v - d
    line[n++] = sprintf("    \"%s\": %d", $1, nv)
}
END {
    if (n == 0) { print "params_moved.sh: no parameter lines on stdin" > "/dev/stderr"; exit 1 }
    printf "{\n  \"source\": \"tests/params_moved.sh %s\",\n  \"params\": {\n", mode
    for (k = 0; k < n; k++) printf "%s%s\n", line[k], (k < n - 1 ? "," : "")
    print "  }\n}"
}'
