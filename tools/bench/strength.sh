#!/bin/sh
# Strength benchmark (make bench-strength; not part of make bench, which would
# take hours): bin/ratchet against Debian's Stockfish limited with
# UCI_LimitStrength/UCI_Elo, played by our own `ratchet-tune match` (game
# pairs from openings/default.epd, colours swapped), reported with Elo, its
# 95% interval, LOS and the pentanomial counts.  Stockfish's UCI_Elo is the
# reference measured in the same run: "Elo" is Ratchet's difference from it,
# so Ratchet's own rating is about UCI_Elo + Elo on Stockfish's scale.
#
# Env (or make variables of the same name without the STRENGTH_ prefix):
#   STRENGTH_ELO          Stockfish's UCI_Elo (default 2400; 1350..2850)
#   STRENGTH_GAMES        games, rounded up to whole pairs (default 200)
#   STRENGTH_TC           clock for both, fastchess form (default 10+0.1)
#   STRENGTH_CONCURRENCY  games at once (default 1: a strength figure at a
#                         clock needs one core per engine to move)
#   STRENGTH_ENGINE       the engine to measure (default bin/ratchet)
#   STRENGTH_STOCKFISH    default /usr/games/stockfish
#   STRENGTH_ADJUDICATE   1 (default): OpenBench's adjudication (draw after
#                         move 40 when both scores stay within 10 cp for 8
#                         moves; resign when both agree on 600 cp for 3);
#                         0: every game played out
#   STRENGTH_OVERHEAD     Move Overhead of both engines and the runner's
#                         timemargin, ms (default 100): Stockfish 15.1 keeps
#                         about 10 ms and at short clocks on a busy machine
#                         loses most games on time without it
#   STRENGTH_PGN          also write the games there
#   STRENGTH_SEED         seed of the random opening order (default 1)
set -eu
cd "$(dirname "$0")/../.."
ELO=${STRENGTH_ELO:-2400}
GAMES=${STRENGTH_GAMES:-200}
TC=${STRENGTH_TC:-10+0.1}
CONC=${STRENGTH_CONCURRENCY:-1}
ENGINE=${STRENGTH_ENGINE:-bin/ratchet}
SF=${STRENGTH_STOCKFISH:-/usr/games/stockfish}
ADJ=${STRENGTH_ADJUDICATE:-1}
SEED=${STRENGTH_SEED:-1}
OVERHEAD=${STRENGTH_OVERHEAD:-100}
BOOK=openings/default.epd
RT=bin/ratchet-tune

[ -x "$ENGINE" ] || { echo "strength: $ENGINE is not built (run make)" >&2; exit 2; }
[ -x "$RT" ] || { echo "strength: $RT is not built (run make)" >&2; exit 2; }
[ -x "$SF" ] || { echo "strength: $SF not found (apt-get install stockfish, or set STRENGTH_STOCKFISH)" >&2; exit 2; }
case $ELO in ''|*[!0-9]*) echo "strength: STRENGTH_ELO '$ELO' is not a number" >&2; exit 2 ;; esac
case $OVERHEAD in ''|*[!0-9]*) echo "strength: STRENGTH_OVERHEAD '$OVERHEAD' is not a number of ms" >&2; exit 2 ;; esac
case $GAMES in ''|*[!0-9]*|0) echo "strength: STRENGTH_GAMES '$GAMES' is not a positive number" >&2; exit 2 ;; esac
if [ "$ELO" -lt 1350 ] || [ "$ELO" -gt 2850 ]; then
    echo "strength: STRENGTH_ELO $ELO is outside Stockfish's UCI_Elo range 1350..2850" >&2
    exit 2
fi

rounds=$(( (GAMES + 1) / 2 ))
# Ratchet calls the option MoveOverhead (it also takes "Move Overhead" but
# does not list it), Stockfish "Move Overhead".
set -- -engine "cmd=$ENGINE" name=ratchet "option.MoveOverhead=$OVERHEAD" \
       -engine "cmd=$SF" "name=stockfish-$ELO" option.UCI_LimitStrength=true "option.UCI_Elo=$ELO" \
              "option.Move Overhead=$OVERHEAD" \
       -each "tc=$TC" "timemargin=$OVERHEAD" option.Hash=16 option.Threads=1 \
       -openings "file=$BOOK" format=epd order=random -srand "$SEED" \
       -rounds "$rounds" -repeat -concurrency "$CONC"
[ "$ADJ" = 0 ] || set -- "$@" -draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=600 twosided=true
[ -z "${STRENGTH_PGN:-}" ] || set -- "$@" -pgnout "file=$STRENGTH_PGN"

sfname=$("$SF" quit 2>/dev/null | head -n 1 | cut -d' ' -f1-2)
echo "strength: $ENGINE vs $sfname UCI_Elo=$ELO, tc=$TC, $((rounds * 2)) games, concurrency $CONC, $BOOK (seed $SEED)"
printf 'command: %s match' "$RT"
for a in "$@"; do
    case $a in *' '*) printf " '%s'" "$a" ;; *) printf ' %s' "$a" ;; esac
done
echo
out=$(mktemp /tmp/ratchet-strength.XXXXXX)
trap 'rm -f "$out"' EXIT
"$RT" match "$@" | tee "$out"
# The summary line: Elo against the limited Stockfish, Ratchet's estimate,
# and the time losses (a figure with many is a measure of the machine).
awk -v elo="$ELO" -v tc="$TC" '
    /^Elo: / { if ($2 == "n/a") { e = $0; sub(/^Elo: /, "", e); sub(/, nElo: .*/, "", e); pm = "" }
               else { e = $2; pm = $4; sub(",", "", pm) } }
    /^Games: [0-9]+, Wins/ { line = $0 }
    /^Player: / { who = $2 }
    /^  Time losses: / { tl = tl (tl == "" ? "" : ", ") who " " $3 }
    END {
        if (e == "") { print "strength: no result (see above)"; exit 1 }
        printf "strength: %s against Stockfish UCI_Elo=%d at tc=%s (%s; time losses: %s)",
               pm == "" ? "Elo " e : e " +/- " pm " Elo", elo, tc, line, tl
        if (e ~ /^[-+]?[0-9.]+$/) printf "; Ratchet ~ UCI_Elo %.0f", elo + e
        printf "\n"
    }' "$out"
