#!/bin/sh
# Every C file of the tree compiles without a warning under clang as well
# (part of `make test`; the gcc build of make test has -Werror): `clang
# -fsyntax-only -Wall -Wextra -Werror` with the parts' include paths, two
# files at a time.  tuner/mpi/ is checked with clang and mpicc's own flags
# (`mpicc --showme:compile`) when Open MPI is installed, mpi_worker.c also
# as the MPI test build compiles it.
# Usage: sh tools/warnings.sh [ROOT]
# Exit 0, or 1 with each file's warnings.
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 1
if ! command -v clang >/dev/null 2>&1; then
    echo "warnings: clang is not installed (make test installs it as root: tools/deps.sh)" >&2
    exit 1
fi
parts=$(sed -n 's/^PARTS *:= *//p' Makefile)
inc="-Ibuild"
for p in $parts; do inc="$inc -I$p"; done
pkg=$(pkg-config --cflags gsl libcjson plplot criterion 2>/dev/null)
mpi=$(mpicc --showme:compile 2>/dev/null) || mpi=""
export inc pkg mpi
files=$(for d in base engine tuner tools tests; do find "$d" -name '*.c'; done | LC_ALL=C sort)
out=$(printf '%s\n' $files | xargs -P 2 -n 8 sh -c '
    for f in "$@"; do
        extra=""
        case "$f" in
            tuner/mpi/*) [ -n "$mpi" ] || continue; extra="$mpi" ;;
            tests/fake/*) extra="-Itests/fake/lib" ;;
            tools/texel/*) extra="-Itools/texel" ;;
        esac
        # The MPI test build compiles mpi_worker.c with its test code (Makefile: MPI_LIAR) as well.
        for def in "" $([ "$f" = tuner/mpi/mpi_worker.c ] && echo -DRATCHET_TEST_LIAR); do
            # shellcheck disable=SC2086
            msg=$(clang -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsyntax-only $inc $pkg $extra $def "$f" 2>&1) ||
                printf "warnings: %s %s:\n%s\n" "$f" "$def" "$(printf "%s\n" "$msg" | head -8)"
        done
    done' sh)
if [ -n "$out" ]; then
    printf '%s\n' "$out"
    exit 1
fi
echo "warnings: $(printf '%s\n' $files | wc -l) files compile without a warning under clang"
