#!/bin/sh
# Every header of base/, engine/ and tuner/ compiles on its own (part of
# `make test`): a translation unit that includes only it, with the parts'
# include paths, must pass `$CC -fsyntax-only`.  So a header includes what it uses,
# and its users need not know its order of includes.  X-macro lists
# (eval_weights.h: a list of EVAL_W(...) lines, included after the macros
# are defined) are not headers and are skipped; tuner/mpi/ is checked with
# mpicc when it is installed.
# Usage: CC=cc CFLAGS_EXTRA="..." sh tools/headers.sh [ROOT]
# Exit 0, or 1 with each header that does not compile and the compiler's
# first lines.
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 1
CC=${CC:-cc}
MPICC=${MPICC:-mpicc}
parts=$(sed -n 's/^PARTS *:= *//p' Makefile)
inc=""
for p in $parts; do inc="$inc -I$p"; done
pkg=$(pkg-config --cflags gsl libcjson plplot 2>/dev/null)
bad=0
for h in $(for d in base engine tuner; do [ ! -d "$d" ] || find "$d" -name '*.h'; done | LC_ALL=C sort); do
    case "$h" in
        engine/eval_weights.h) continue ;;
    esac
    cc=$CC
    case "$h" in
        tuner/mpi/mpi*.h)
            command -v "$MPICC" >/dev/null 2>&1 || continue
            cc=$MPICC ;;
    esac
    # shellcheck disable=SC2086
    msg=$(printf '#include "%s"\n' "$(basename "$h")" |
          $cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsyntax-only $inc -Ibuild $pkg ${CFLAGS_EXTRA:-} -x c - 2>&1)
    if [ $? -ne 0 ]; then
        echo "headers: $h does not compile on its own:"
        echo "$msg" | head -5
        bad=1
    fi
done
exit $bad
