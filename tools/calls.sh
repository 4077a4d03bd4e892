#!/bin/sh
# The call-cycle check (part of `make layers` and `make test`): reads the
# symbols of the built objects of base/, engine/ and tuner/ and fails when
# the calls form a cycle between modules: a module calls another when one of
# its objects leaves a function undefined (nm type U) that an object of the
# other defines (a global function, nm type T; static functions and data are
# not counted).  A module is a source file, as in tools/layers.sh (where
# x.c, x.h and x_impl.h are the module x).  The objects are
# those of the Makefile's rule BUILD/<source>.o (the libraries' objects,
# engine/main.o and tuner/commands/main.o) and the MPI build's BUILD/mpi/*.o,
# which are tuner/mpi/*.c and tuner/commands/main.c again.  An object whose
# source is gone (a moved or deleted file's leftover) is not read.
# Usage: sh tools/calls.sh [ROOT [BUILD]]   (ROOT: the source tree, default:
# the folder above this script; BUILD: the objects' folder, relative to
# ROOT, default: build).  NM names nm.  Exit 0 when no cycle (or, with a
# message, when there are no objects yet: `make layers` builds them first),
# 1 with one line per cycle, each followed by the functions behind its
# calls, otherwise.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$here/..}
build=${2:-build}
NM=${NM:-nm}
cd "$root"

objs=
for d in base engine tuner mpi; do
    [ ! -d "$build/$d" ] || objs="$objs $(find "$build/$d" -type f -name '*.o' | LC_ALL=C sort)"
done
# shellcheck disable=SC2086
set -- $objs
kept=
for o; do
    s=${o#"$build"/}
    s=${s%.o}.c
    case "$s" in
        mpi/*)
            n=${s#mpi/}
            if [ "$n" = main.c ]; then s=tuner/commands/$n; else s=tuner/mpi/$n; fi ;;
    esac
    [ ! -f "$s" ] || kept="$kept $o"
done
if [ -z "$kept" ]; then
    echo "calls: no objects of base/, engine/ or tuner/ under $build/ in $(pwd): skipped (make layers builds them)" >&2
    exit 0
fi

# shellcheck disable=SC2086
"$NM" -A $kept | LC_ALL=C awk -v build="$build" -f "$here/cycles.awk" -f /dev/fd/3 3<<'AWK'
function module(o) {
    if (index(o, build "/") == 1) o = substr(o, length(build) + 2)
    sub(/\.o$/, "", o)
    if (o == "mpi/main") o = "tuner/commands/main"
    else if (o ~ /^mpi\//) o = "tuner/" o
    sub(/_impl$/, "", o)
    return o
}
function cycle_found(c, path) {
    printf "calls: call cycle: %s\n%s\n", c, path
    bad = 1
}
{
    # file:address type name, or file: U name for an undefined symbol
    f = $1; sub(/:[^:]*$/, "", f)
    m = module(f)
    if (!(m in nodeseen)) { nodeseen[m] = 1; nodes[++nn] = m }
    t = $(NF - 1); s = $NF
    if (t == "T") {
        if (!((s, m) in defby)) { defby[s, m] = 1; defs[s] = defs[s] " " m }
    } else if (t == "U")
        use[++nu] = m SUBSEP s
}
END {
    for (i = 1; i <= nu; i++) {
        split(use[i], us, SUBSEP)
        a = us[1]; s = us[2]
        nd = split(defs[s], dl, " ")
        for (j = 1; j <= nd; j++) {
            b = dl[j]
            if (b == a) continue
            if (!((a, b) in edge)) {
                edge[a, b] = 1
                out[a, ++nout[a]] = b
                why[a, b] = s
                nwhy[a, b] = 1
            } else if (index(" " why[a, b] " ", " " s " ") == 0 && nwhy[a, b] <= 5) {
                # a few of the functions are enough to find the calls
                why[a, b] = why[a, b] (++nwhy[a, b] <= 5 ? " " s : " ...")
            }
        }
    }
    find_cycles()
    exit bad ? 1 : 0
}
AWK
