#!/bin/sh
# make bench-recover: how much of a detune SPSA recovers on bin/ratchet, for
# the classic form and for the default form, at a fixed node count.
#
#   1. detune: every parameter of SET is moved DETUNE times its c_end from
#      its default toward the farther end of its range (clipped, rounded);
#   2. loss: a match of the detuned engine against the defaults;
#   3. SPSA runs of GAMES games: the default form from the detuned start,
#      the classic form (-spsa form=classic) from the detuned start, and the
#      default form from the shipped defaults; the same -srand for all;
#   4. each result against the defaults: ratchet-tune verify DIR -base
#      defaults.json -sprt off -rounds VERIFY_ROUNDS -bake no (the same -srand,
#      so the same openings, for every match);
#      (every game of a run is kept as OUT/ARM.pgn: positions labelled with
#      results, e.g. for fitting an evaluation);
#   5. the table: Elo against the defaults, and the fraction of the lost Elo
#      each form recovered, 1 - elo_result / elo_detuned, with a 95% error
#      bar propagated from both matches' intervals.
#
# Every step is kept in OUT: started again, the script skips what is done and
# resumes a stopped run or verify.  ARMS picks and orders the steps (ARM/run
# or ARM/verify for one half of an arm).  bin/ratchet is copied into OUT at
# the first start and every step plays that copy (its bench signature is in
# OUT/signature.txt), so a rebuilt engine cannot slip into the figures; the
# verify matches send the values as options (-bake no): at a fixed node
# count a baked build plays the same moves.  With the
# defaults it plays 2 x 2000 + 3 x (10000 + 2000) = 40000 games: about two
# hours on two idle cores (a game at nodes=5000 takes about 0.18 s per core).
# Fixed-node results do not depend on the machine's load.
#
# Env (all optional):
#   NODES=5000  CONCURRENCY=2  GAMES=10000  LOSS_ROUNDS=1000  VERIFY_ROUNDS=1000
#   DETUNE=13   (c_end units)  SEED=20261126
#   SET=LmrQuietBase,LmrQuietDivisor,LmrNoisyBase,LmrNoisyDivisor,LmrMinMoves,
#       LmpBase,LmpScale,FhrMargin,NmpEvalScale,RfpMargin,FutilityBase,
#       FutilityMargin,SeeQuietMargin   (13: the ten of the first recipe lost
#       95 +/- 19 Elo once the evaluation got stronger, short of the 100 the
#       benchmark wants; these lose 111 +/- 20)
#   FORM=       the default form's name for the record ("" = the tuner's default)
#   ARMS="loss detuned-default detuned-classic defaults-default"  (ARMS= prints the table only)
#   OUT=runs/bench-recover
set -eu
cd "$(dirname "$0")/../.."
RT=${RT:-bin/ratchet-tune}
NODES=${NODES:-5000}
CONCURRENCY=${CONCURRENCY:-2}
GAMES=${GAMES:-10000}
LOSS_ROUNDS=${LOSS_ROUNDS:-1000}
VERIFY_ROUNDS=${VERIFY_ROUNDS:-1000}
DETUNE=${DETUNE:-13}
SEED=${SEED:-20261126}
SET=${SET:-LmrQuietBase,LmrQuietDivisor,LmrNoisyBase,LmrNoisyDivisor,LmrMinMoves,LmpBase,LmpScale,FhrMargin,NmpEvalScale,RfpMargin,FutilityBase,FutilityMargin,SeeQuietMargin}
FORM=${FORM:-}
ARMS=${ARMS-loss detuned-default detuned-classic defaults-default}
OUT=${OUT:-runs/bench-recover}
BOOK=openings/default.epd
ADJ="-draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=600 twosided=true"

. tools/bench/frozen.sh
freeze_engine bench-recover "$OUT"
stamp() { date -u +%H:%M:%S; }
log() { echo "[$(stamp)] $*"; }

# ---- 1. the detune ----------------------------------------------------------------
"$ENGINE" spsa > "$OUT/spec-defaults.txt"
awk -F', *' -v set="$SET" -v k="$DETUNE" -v out="$OUT" '
    BEGIN { n = split(set, names, ","); for (i = 1; i <= n; i++) want[names[i]] = 1 }
    {
        line = $0
        if ($1 in want) {
            d = $3; lo = $4; hi = $5; c = $6
            v = (hi - d >= d - lo) ? d + k * c : d - k * c
            if (v > hi) v = hi
            if (v < lo) v = lo
            v = int(v + (v >= 0 ? 0.5 : -0.5))
            line = $1 ", " $2 ", " v ", " $4 ", " $5 ", " $6 ", " $7
            det = det (det ? ", " : "") "\"" $1 "\": " v
            def = def (def ? ", " : "") "\"" $1 "\": " d
            opts = opts " option." $1 "=" v
            table = table sprintf("  %-16s %6d -> %6d   [%d, %d], c_end %s\n", $1, d, v, lo, hi, c)
            found[$1] = 1
        }
        print line > (out "/spec-detuned.txt")
    }
    END {
        for (p in want) if (!(p in found)) { print "bench-recover: " p " is not a parameter of bin/ratchet" > "/dev/stderr"; exit 1 }
        print "{\"params\": {" det "}}" > (out "/detuned.json")
        print "{\"params\": {" def "}}" > (out "/defaults.json")
        printf "%s", opts > (out "/detuned.opts")
        printf "%s", table > (out "/detune.txt")
    }' "$OUT/spec-defaults.txt"
log "detune: $(echo "$SET" | tr ',' '\n' | wc -l) parameters, each $DETUNE c_end toward the farther bound"
cat "$OUT/detune.txt"

# The tuner's name for the classic form, if it has several.
CLASSIC_SPSA=
if $RT run --help 2>&1 | grep -q 'form='; then CLASSIC_SPSA="form=classic"; fi
FORM_SPSA=
[ -n "$FORM" ] && FORM_SPSA="form=$FORM"

# ---- steps --------------------------------------------------------------------------
loss_match() {
    f="$OUT/loss.txt"
    if [ -f "$f" ] && grep -q '^Finished match' "$f"; then
        log "loss: done earlier ($f)"
        return
    fi
    log "loss: detuned against defaults, $LOSS_ROUNDS pairs at nodes=$NODES"
    # shellcheck disable=SC2046
    $RT match -engine cmd="$ENGINE" name=detuned $(cat "$OUT/detuned.opts") \
        -engine cmd="$ENGINE" name=defaults -each nodes="$NODES" \
        -openings file="$BOOK" order=random $ADJ -rounds "$LOSS_ROUNDS" -repeat \
        -concurrency "$CONCURRENCY" -srand "$SEED" > "$f.part" 2>&1
    mv "$f.part" "$f"
    grep -E '^(Elo|Ptnml)' "$f"
}

# spsa ARM SPEC FORMARGS: a run of GAMES games into OUT/ARM (resumed if stopped).
spsa_run() {
    dir="$OUT/$1"
    if [ -f "$dir/state.json" ]; then
        if $RT status "$dir" | head -1 | grep -q complete; then
            log "$1: run done earlier"
            return
        fi
        log "$1: resuming the run"
        $RT resume "$dir" >> "$dir.log" 2>&1
        return
    fi
    log "$1: SPSA, $GAMES games at nodes=$NODES ${3:-(the default form)}"
    # shellcheck disable=SC2086
    $RT run -engine cmd="$ENGINE" -params file="$2" only="$SET" -each nodes="$NODES" \
        -openings file="$BOOK" order=random $ADJ -spsa games="$GAMES" $3 \
        -concurrency "$CONCURRENCY" -srand "$SEED" -pgnout file="$dir.pgn" -out "$dir" > "$dir.log" 2>&1
}

verify_run() {
    log "$1: verify against the defaults, $VERIFY_ROUNDS pairs"
    $RT verify "$OUT/$1" -base "$OUT/defaults.json" -sprt off -rounds "$VERIFY_ROUNDS" -bake no \
        -srand "$SEED" > "$OUT/$1.verify.log" 2>&1
    grep -A1 '^verify: the values' "$OUT/$1.verify.log" | tail -2
}

for step in $ARMS; do
    arm=${step%/*}
    half=${step#"$arm"}
    case "$arm" in
    loss) loss_match; continue ;;
    detuned-default) spec="$OUT/spec-detuned.txt" spsa="$FORM_SPSA" ;;
    detuned-classic) spec="$OUT/spec-detuned.txt" spsa="$CLASSIC_SPSA" ;;
    defaults-default) spec="$OUT/spec-defaults.txt" spsa="$FORM_SPSA" ;;
    *) echo "bench-recover: unknown arm '$arm'" >&2; exit 2 ;;
    esac
    [ "$half" = /verify ] || spsa_run "$arm" "$spec" "$spsa"
    [ "$half" = /run ] || verify_run "$arm"
done

# ---- the table ----------------------------------------------------------------------
# elo and elo_err of a verify.json (cJSON prints one member per line).
vj() { awk -F'[:,]' -v k="\"$2\"" '$1 ~ k"$" { gsub(/[ \t]/, "", $2); print $2; exit }' "$OUT/$1/verify.json" 2>/dev/null; }
LOSS=$(sed -n 's/^Elo: \([-0-9.inf]*\) +\/- \([0-9.inf]*\),.*/\1 \2/p' "$OUT/loss.txt" 2>/dev/null || true)
echo
echo "== bench-recover: nodes=$NODES, concurrency $CONCURRENCY, seed $SEED, $GAMES SPSA games per arm =="
echo "detune ($DETUNE c_end toward the farther bound):"
cat "$OUT/detune.txt"
if [ -n "$LOSS" ]; then
    echo "$LOSS" | awk -v n="$LOSS_ROUNDS" '{ printf "loss: detuned vs defaults %+.1f +/- %.1f Elo (%d games)\n", $1, $2, 2 * n }'
fi
printf "%-18s %-10s %6s %-22s %s\n" arm form games "Elo vs defaults" "recovered"
for arm in detuned-default detuned-classic defaults-default; do
    [ -f "$OUT/$arm/verify.json" ] || continue
    st=$(vj "$arm" status | tr -d '"')
    elo=$(vj "$arm" elo)
    err=$(vj "$arm" elo_err)
    vg=$(vj "$arm" games)
    form=$(awk -F'"' '/"form":/ { print $4; exit }' "$OUT/$arm/state.json" 2>/dev/null)
    [ -n "$form" ] || form=classic   # a state without a form: a build that had only the classic one
    g=$(awk -F'[:,]' '/"games":/ { gsub(/[ \t]/, "", $2); print $2; exit }' "$OUT/$arm/state.json")
    case "$arm" in
    detuned-*)
        rec=$(echo "$LOSS $elo $err" | awk '{ b = $1; sb = $2; a = $3; sa = $4;
            if (b >= 0) { print "n/a (no loss)"; exit }
            f = 1 - a / b; s = sqrt(sa * sa / (b * b) + a * a * sb * sb / (b * b * b * b));
            printf "%.0f%% +/- %.0f%%", 100 * f, 100 * s }') ;;
    *)
        rec=$(echo "$elo $err" | awk '{ printf "%s", ($1 + $2 >= 0) ? "no loss beyond the error bars" : "LOST Elo beyond the error bars" }') ;;
    esac
    [ "$st" = done ] || rec="$rec (verify $st after $vg games)"
    printf "%-18s %-10s %6s %+7.1f +/- %-11.1f %s\n" "$arm" "$form" "$g" "$elo" "$err" "$rec"
done
