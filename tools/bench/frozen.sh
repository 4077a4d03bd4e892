# Sourced by the benchmark scripts that play bin/ratchet for a long time
# (recover.sh, techniques.sh), from the top of the repository:
#   freeze_engine NAME OUT
# checks that bin/ratchet, $RT and $BOOK exist (NAME names the script in the
# message), and at the first start copies bin/ratchet into OUT with where it
# came from (OUT/engine.txt) and its bench signature (OUT/signature.txt), so
# every step plays the same build even if bin/ratchet is rebuilt meanwhile.
# Sets ENGINE to the copy's absolute path.
freeze_engine() {
    for f in bin/ratchet "$RT" "$BOOK"; do
        [ -e "$f" ] || { echo "$1: $f is missing (run make)" >&2; exit 1; }
    done
    mkdir -p "$2"
    if [ ! -x "$2/ratchet" ]; then
        cp -p bin/ratchet "$2/ratchet"
        echo "bin/ratchet of $(git rev-parse --short HEAD 2>/dev/null || echo '?'), copied $(date -u +%FT%TZ)" > "$2/engine.txt"
    fi
    ENGINE=$(cd "$2" && pwd)/ratchet
    [ -f "$2/signature.txt" ] || "$ENGINE" bench 2>/dev/null | tail -1 | cut -d' ' -f1 > "$2/signature.txt"
}
