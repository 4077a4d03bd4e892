#!/bin/sh
# The layering check (part of `make test`): reads every #include "..." of
# the sources under base/, engine/ and tuner/, resolves each header as the
# compiler does (the including file's folder first, then the parts' folders
# in the Makefile's -I order) and fails when
#   - a lower part includes a higher one; the parts, bottom-up:
#       base (base) < rules (engine/rules) < engine (engine)
#       < match (tuner/match) < spsa (tuner/spsa) < tuning (tuner/tuning)
#       < report (tuner/report) < mpi (tuner/mpi) < commands (tuner/commands)
#     A part may include its own headers and those of any part below it.
#   - the includes form a cycle between modules (a module is a source, its
#     header and its private header: x.c, x.h and x_impl.h), within a part
#     or across parts.
# tools/ and tests/ are outside the layers and may include anything.
# Usage: sh tools/layers.sh [ROOT]   (ROOT: the source tree, default: the
# folder above this script).  Exit 0 when clean, 1 with one line per
# problem (file:line for a wrong include) otherwise.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$here/..}
cd "$root"

# folder:part, bottom-up; the same folders and order as the Makefile's PARTS.
parts="base:base engine/rules:rules engine:engine tuner/match:match tuner/spsa:spsa tuner/tuning:tuning tuner/report:report tuner/mpi:mpi tuner/commands:commands"

dirs=
for d in base engine tuner; do [ -d "$d" ] && dirs="$dirs $d"; done
# shellcheck disable=SC2086
files=$( [ -z "$dirs" ] || find $dirs -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' -o -name '*.def' \) | LC_ALL=C sort)
[ -n "$files" ] || { echo "layers: no sources under base/, engine/ or tuner/ in $(pwd)" >&2; exit 1; }

# One record per include: file:line:text.  /dev/null keeps the file name
# in grep's output even when there is a single file.
# shellcheck disable=SC2086
grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files /dev/null | LC_ALL=C awk -v parts="$parts" -v files="$files" \
    -v order="base < rules < engine < match < spsa < tuning < report < mpi < commands" \
    -f "$here/cycles.awk" -f /dev/fd/3 3<<'AWK'
function dirof(p) { return sub(/\/[^\/]*$/, "", p) ? p : "." }
function module(p) { sub(/\.[^.\/]*$/, "", p); sub(/_impl$/, "", p); return p }
function cycle_found(c, path) {
    printf "layers: include cycle: %s\n", c
    bad = 1
}
BEGIN {
    np = split(parts, pl, " ")
    for (i = 1; i <= np; i++) {
        split(pl[i], kv, ":")
        pdir[i] = kv[1]; pname[i] = kv[2]; rank[kv[1]] = i
    }
    nf = split(files, fl, "\n")
    for (i = 1; i <= nf; i++) {
        exists[fl[i]] = 1
        d = dirof(fl[i])
        if (!(d in rank)) {
            printf "layers: %s is in no part (%s is not one of the parts folders: see tools/layers.sh)\n", fl[i], d
            bad = 1
        }
        mod = module(fl[i])
        if (!(mod in nodeseen)) { nodeseen[mod] = 1; nodes[++nn] = mod }
    }
}
{
    # file:line:#include "name" ...
    f = $0; sub(/:.*/, "", f)
    rest = substr($0, length(f) + 2)
    ln = rest; sub(/:.*/, "", ln)
    h = rest; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
    r = ""
    if ((dirof(f) "/" h) in exists)
        r = dirof(f) "/" h
    else
        for (i = 1; i <= np && r == ""; i++)
            if ((pdir[i] "/" h) in exists)
                r = pdir[i] "/" h
    if (r == "")
        next   # a system header in quotes or a generated one (params_baked.h)
    from = rank[dirof(f)]; to = rank[dirof(r)]
    if (from && to && to > from) {
        printf "%s:%s: layers: %s includes %s (\"%s\" is %s): a part may include only itself and the parts below it (%s)\n", \
            f, ln, pname[from], pname[to], h, r, order
        bad = 1
    }
    a = module(f); b = module(r)
    if (a != b && !((a, b) in edge)) {
        edge[a, b] = 1
        out[a, ++nout[a]] = b
    }
}
END {
    find_cycles()
    exit bad ? 1 : 0
}
AWK
