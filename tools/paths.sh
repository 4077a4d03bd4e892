#!/bin/sh
# The stale-path check (part of `make layers` and `make test`): every path
# of the form dir/file.ext that a source comment, a script, the Makefile or
# a document names must exist.  A path is looked up from the repository's
# root, from the naming file's folder, and from engine/, tuner/, tools/,
# tests/ and docs/ (a source names tuner/commands/verify.c as
# commands/verify.c, a document in docs/ names docs/img/x.png as img/x.png).
# Only paths that start with a folder of the repository are checked (base/,
# engine/, tuner/, tools/, tests/, docs/, params/, openings/, a part's
# folder such as commands/ or rules/, and the parts' former names run/,
# runner/ and dist/, so a path the renaming left behind is caught):
# system headers (sys/, gsl/), other projects' files (src/) and temporary
# folders are not the repository's.  Paths a run or a build writes (runs/,
# build/, bin/, params/tuned/) and patterns (NAME, XXX) are not checked, nor
# the trees that tests/test_layers.c plants and this script's own examples.
# Usage: sh tools/paths.sh [ROOT]   Exit 0 when every path exists, 1 with one
# line per stale path (file:line: path) otherwise.
set -eu
root=${1:-$(dirname "$0")/..}
cd "$root"

files=$(find base engine tuner tools tests docs Makefile README.md openings \
        -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' -o -name '*.def' -o -name '*.sh' \
                  -o -name '*.md' -o -name Makefile \) 2>/dev/null | grep -v -e '^docs/results/runs/' -e '^tests/test_layers.c$' -e '^tools/paths.sh$' | LC_ALL=C sort)
[ -n "$files" ] || { echo "paths: no files to check in $(pwd)" >&2; exit 1; }

# shellcheck disable=SC2086
grep -n -o -E '(\.\./)?[A-Za-z0-9_.-]*[A-Za-z0-9_-]/([A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.(c|h|md|sh|def|inc|json|epd|png|supp|txt)\b' \
    $files /dev/null | LC_ALL=C awk -F: '
function exists(p,    cmd, r) {
    if (p in known) return known[p]
    cmd = "test -e \"" p "\""
    r = (system(cmd) == 0)
    known[p] = r
    return r
}
function dirof(p) { return sub(/\/[^\/]*$/, "", p) ? p : "." }
{
    f = $1; line = $2; p = $3
    if (p !~ /^(base|engine|tuner|tools|tests|docs|params|openings|rules|match|spsa|tuning|report|mpi|commands|fake|fuzz|bench|texel|results|img|data|run|runner|dist)\//) next
    if (p ~ /^params\/tuned\// || p ~ /NAME|XXX/) next
    # a path inside a longer one that is absolute or a URL: the match starts after a / or a :
    d = dirof(f)
    if (exists(p) || exists(d "/" p)) next
    split("engine tuner tools tests docs", bases, " ")
    ok = 0
    for (b in bases) if (exists(bases[b] "/" p)) { ok = 1; break }
    if (ok) next
    printf "%s:%s: %s does not exist\n", f, line, p
    bad = 1
}
END { exit bad }'
