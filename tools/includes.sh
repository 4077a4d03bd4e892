#!/bin/sh
# The unused-include check (part of `make layers` and `make test`): every
# #include "x.h" of a .c file under base/, engine/, tuner/, tests/ and
# tools/ must be used: the file must name, as a word outside comments,
# strings and its #include lines, at least one of the names x.h itself
# declares (a function, a typedef, a struct, union or enum tag, an enum
# constant, a macro, a variable).  The names are read by Universal Ctags
# (kinds d e f g p s t u v x; not struct members, not what x.h includes):
# a header included only for what it includes in turn is unused, and the
# fix is to include the header that declares what is used.  Only the
# project's own headers count: an include is resolved as the compiler does
# (the including file's folder first, then the parts' folders in the
# Makefile's -I order, then tests/fake/lib for the fake engines); a quoted
# name that resolves to no file here (a system header, the generated
# params_baked.h) and the .def and .inc lists are not checked, nor
# engine/eval_weights.h, an X-macro list that declares nothing itself (it
# is expanded by the macros defined before each #include of it).
# ROOT/tools/includes.allow, when there is one, lists the unused includes
# allowed for now, one "file.c header.h" a line (# starts a comment); an
# allowed include that is no longer unused (used, or gone) is a finding
# too, so the list only shrinks.
# Usage: sh tools/includes.sh [ROOT]   (ROOT: the source tree, default: the
# folder above this script).  CTAGS names ctags.  Exit 0 when every include
# is used, 1 with one line per unused include (file:line) or stale
# allowlist line otherwise, 2 when Universal Ctags is missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$here/..}
CTAGS=${CTAGS:-ctags}
cd "$root"

if ! "$CTAGS" --version 2>/dev/null | grep -q 'Universal Ctags'; then
    echo "includes: needs Universal Ctags as $CTAGS (Debian package universal-ctags: sh tools/deps.sh installs it)" >&2
    exit 2
fi

# folders an include is looked up in after the including file's own, in order:
# the Makefile's PARTS (as in tools/layers.sh), then the fakes' -Itests/fake/lib.
search="base engine/rules engine tuner/match tuner/spsa tuner/tuning tuner/report tuner/mpi tuner/commands"
search="$search tests/fake/lib"

dirs=
for d in base engine tuner tests tools; do [ -d "$d" ] && dirs="$dirs $d"; done
# shellcheck disable=SC2086
sources=$( [ -z "$dirs" ] || find $dirs -type f -name '*.c' | LC_ALL=C sort)
# shellcheck disable=SC2086
headers=$( [ -z "$dirs" ] || find $dirs -type f -name '*.h' | LC_ALL=C sort)
if [ -z "$sources" ]; then
    echo "includes: no .c files under base/, engine/, tuner/, tests/ or tools/ in $(pwd)" >&2
    exit 1
fi
allow=tools/includes.allow
[ -f "$allow" ] || allow=/dev/null

# The names each header declares, one "header name" a line (ctags -x: name
# kind line file text); an anonymous struct or enum has no name to use.
names=$(mktemp)
trap 'rm -f "$names"' EXIT
if [ -n "$headers" ]; then
    # shellcheck disable=SC2086
    "$CTAGS" -x --language-force=C --kinds-C=degfpstuvx -f - $headers |
        awk '$1 !~ /^__anon/ { print $4, $1 }' >"$names"
    # A header that expands an X-macro list (a .def, or engine/eval_weights.h,
    # in the header's own folder) declares the first argument of each of the
    # list's ENTRY(name, ...) lines too: params.h's globals from params.def.
    for h in $headers; do
        for l in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$h"); do
            case "$l" in *.def | eval_weights.h) ;; *) continue ;; esac
            [ -f "$(dirname "$h")/$l" ] || continue
            sed -n 's/^[A-Za-z_][A-Za-z0-9_]*([[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$(dirname "$h")/$l" |
                sed "s|^|$h |"
        done
    done >>"$names"
fi

# shellcheck disable=SC2086
LC_ALL=C awk -v search="$search" -v headers="$headers" -v allowfile="$allow" -v namesfile="$names" \
    -f /dev/fd/3 "$names" $sources 3<<'AWK'
function dirof(p) { return sub(/\/[^\/]*$/, "", p) ? p : "." }
# a/b/../c -> a/c, ./a -> a
function norm(p,    n, i, k, part, out, s) {
    n = split(p, part, "/")
    k = 0
    for (i = 1; i <= n; i++) {
        if (part[i] == "." || part[i] == "") continue
        if (part[i] == ".." && k > 0 && out[k] != "..") { k--; continue }
        out[++k] = part[i]
    }
    s = ""
    for (i = 1; i <= k; i++) s = s (i > 1 ? "/" : "") out[i]
    return s
}
# The line without its comments, string and character literals (each left
# as a blank); incomment carries a /* comment over to the next line.
function strip(line,    out, tok, p) {
    out = ""
    while (line != "") {
        if (incomment) {
            if (!(p = index(line, "*/"))) return out
            line = substr(line, p + 2); incomment = 0; out = out " "
            continue
        }
        if (!match(line, /\/\*|\/\/|"|'/)) return out line
        out = out substr(line, 1, RSTART - 1) " "
        tok = substr(line, RSTART, RLENGTH)
        line = substr(line, RSTART + RLENGTH)
        if (tok == "/*") incomment = 1
        else if (tok == "//") return out
        else if (tok == "\"") line = match(line, /^([^"\\]|\\.)*"/) ? substr(line, RLENGTH + 1) : ""
        else line = match(line, /^([^'\\]|\\.)*'/) ? substr(line, RLENGTH + 1) : ""
    }
    return out
}
BEGIN {
    ns = split(search, sl, " ")
    nh = split(headers, hl, "\n")
    for (i = 1; i <= nh; i++) exists[hl[i]] = 1
    n = 0
    while ((getline l < allowfile) > 0) {
        n++
        sub(/#.*/, "", l)
        nw = split(l, w, " ")
        if (nw == 0) continue
        if (nw != 2) {
            printf "%s:%d: includes: not \"file.c header.h\": %s\n", allowfile, n, l
            bad = 1
            continue
        }
        allowed[w[1], w[2]] = allowfile ":" n
    }
}
FNR == 1 { incomment = 0 }
# the names first: "header name" a line
FILENAME == namesfile { nnames[$1]++; name[$1, nnames[$1]] = $2; next }
{
    if (!incomment && $0 ~ /^[ \t]*#[ \t]*include[ \t]*"/) {
        h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
        inc[++ni] = FILENAME SUBSEP FNR SUBSEP h
        next
    }
    t = strip($0)
    gsub(/[^A-Za-z0-9_]+/, " ", t)
    nw = split(t, w, " ")
    for (i = 1; i <= nw; i++) used[FILENAME, w[i]] = 1
}
END {
    for (k = 1; k <= ni; k++) {
        split(inc[k], r, SUBSEP)
        f = r[1]; ln = r[2]; h = r[3]
        if (h !~ /\.h$/) continue   # the .def and .inc lists are expanded, not declared
        p = norm(dirof(f) "/" h)
        for (i = 1; i <= ns && !(p in exists); i++) p = norm(sl[i] "/" h)
        if (!(p in exists)) continue   # a system header in quotes or a generated one
        if (p == "engine/eval_weights.h") continue   # an X-macro list: see above
        ok = 0
        for (i = 1; i <= nnames[p] && !ok; i++) ok = ((f, name[p, i]) in used)
        if ((f, h) in allowed) {
            if (ok) {
                printf "%s: includes: %s uses \"%s\" (%s) now: remove the line\n", allowed[f, h], f, h, p
                bad = 1
            }
            done[f, h] = 1
            continue
        }
        if (!ok) {
            printf "%s:%s: includes: \"%s\" is unused: %s names nothing %s declares\n", f, ln, h, f, p
            bad = 1
        }
    }
    for (a in allowed)
        if (!(a in done)) {
            split(a, r, SUBSEP)
            printf "%s: includes: %s no longer includes \"%s\": remove the line\n", allowed[a], r[1], r[2]
            bad = 1
        }
    exit bad ? 1 : 0
}
AWK
