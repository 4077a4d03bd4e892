#!/bin/sh
# The values of a params JSON ({"params": {"NAME": value, ...}}, as
# `ratchet-tune export` writes it) that differ from bin/ratchet's defaults,
# as option.NAME=VALUE words: OPTS for tools/bench/techniques.sh.
#   tools/bench/options.sh FILE.json
set -eu
[ $# -eq 1 ] || { echo "usage: tools/bench/options.sh FILE.json" >&2; exit 2; }
cd "$(dirname "$0")/../.."
f=$1
case $f in /*) ;; *) f=$OLDPWD/$f ;; esac
[ -r "$f" ] || { echo "options.sh: cannot read $1" >&2; exit 2; }
ENGINE=${ENGINE:-bin/ratchet}
# name value pairs of the defaults, then of the file (cJSON prints one member per line)
# a temporary file of a name nobody can guess and plant a link at
table=$(mktemp "${TMPDIR:-/tmp}/ratchet-options.XXXXXX")
trap 'rm -f "$table"' EXIT
"$ENGINE" spsa | awk -F', *' '{ print "D", $1, $3 }' > "$table"
# the members of "params", one per line as cJSON prints them
awk -F'[:,]' -v file="$1" '
    inp && /^[ \t]*}/ { inp = 0; done = 1; next }
    inp { n = $1; v = $2; gsub(/[ \t"]/, "", n); gsub(/[ \t]/, "", v)
          if (n !~ /^[A-Za-z0-9_]+$/ || v !~ /^-?[0-9.]+$/) { print "options.sh: " file ":" NR ": not a \"NAME\": number member of params" > "/dev/stderr"; failed = 1; exit 1 }
          print "F", n, v; next }
    /^[ \t]*"params"[ \t]*:[ \t]*{[ \t]*$/ { inp = 1 }
    END { if (failed) exit 1; if (!done) { print "options.sh: " file ": no \"params\" object with one member per line (write it with ratchet-tune export)" > "/dev/stderr"; exit 1 } }' "$f" \
    >> "$table"
awk '$1 == "D" { d[$2] = $3; next }
         $1 == "F" { if (!($2 in d)) { print "options.sh: " $2 " is not a parameter of bin/ratchet" > "/dev/stderr"; bad = 1; next }
                     if ($3 + 0 != d[$2] + 0) { printf "%soption.%s=%s", sep, $2, $3; sep = " " } }
         END { print ""; exit bad }' "$table"
