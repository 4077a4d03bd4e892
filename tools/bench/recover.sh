#!/bin/sh
# make bench-recover: how much of a detune SPSA recovers on bin/ratchet at a
# fixed node count, on recipes drawn from seeds and verified on openings the
# runs never played.
#
#   1. the books: openings/default.epd split by line, the odd lines for the
#      SPSA runs (OUT/book-run.epd), the even ones for every match that
#      measures (OUT/book-verify.epd), so no measured game starts from an
#      opening a run played;
#   2. per recipe seed R (RSEEDS, at least 3), the recipe drawn from R
#      (MINSTD generator in awk, the same on every awk): 8 to 13 parameters
#      out of POOL (default: every parameter of `bin/ratchet spsa` whose range
#      is at least 8 c_end, c_end >= 1, i.e. no switches), each moved in a
#      random direction by a distance uniform in 4..15 c_end (rounded,
#      clipped to the range; when that side has less than 4 c_end of room,
#      the other side);
#   3. loss: the detuned engine against the defaults, LOSS_ROUNDS pairs on
#      the verify book;
#   4. SPSA runs of each budget of BUDGETS (default 5000 and 10000 games)
#      from the detuned start with form=far, the form for starts known to be
#      poor (FORM, SPSA_EXTRA);
#   5. each result against the defaults: ratchet-tune verify DIR -base
#      defaults.json -openings file=book-verify.epd, VERIFY_ROUNDS pairs; every
#      match of the benchmark has a -srand of its own (SEED + 1000 R + k), so
#      the matches are independent of each other;
#   6. once (ARMS3X, not per recipe): from the shipped defaults of ONLY3X
#      (default: make tune's 8 parameters) with every c_end of the spec 3
#      times what bin/ratchet spsa prints, a run of
#      GAMES3X games of form FORM3X (default settle, the form for good
#      starts) and one with -spsa adapt=0, each verified against the
#      defaults over VERIFY3X_ROUNDS pairs;
#   7. the table: per recipe the parameters, the loss and, per budget, the
#      Elo against the defaults and the fraction recovered, 1 - elo_result /
#      elo_detuned with a 95% error bar propagated from both matches; then the
#      median over the recipes of the fraction recovered per budget.
#
# Every step is kept in OUT: started again, the script skips what is done and
# resumes a stopped run.  bin/ratchet is copied into OUT at the first start
# and every step plays that copy (tools/bench/frozen.sh).  With the defaults
# it plays per recipe 2000 + 5000 + 10000 + 2 x 2000 games, and once
# 2 x (10000 + 4000): 91000 games, about four and a half hours on two idle
# cores at nodes=5000 (0.18 s per game and core).
#
# Env (all optional):
#   NODES=5000  CONCURRENCY=2  BUDGETS="5000 10000"  LOSS_ROUNDS=1000
#   VERIFY_ROUNDS=1000  RSEEDS="1 2 3" (RSEEDS= skips the recipes)  SEED=20261128  POOL=(see 2.)
#   FORM=far (step 4)  FORM3X=settle (step 6)  SPSA_EXTRA=  (added to every run's -spsa, e.g. "adapt=0")
#   ARMS3X="default adapt0"  GAMES3X=10000  VERIFY3X_ROUNDS=2000  (ARMS3X= skips 6.)
#   OUT=runs/bench-recover
set -eu
cd "$(dirname "$0")/../.."
RT=${RT:-bin/ratchet-tune}
NODES=${NODES:-5000}
CONCURRENCY=${CONCURRENCY:-2}
BUDGETS=${BUDGETS:-5000 10000}
LOSS_ROUNDS=${LOSS_ROUNDS:-1000}
VERIFY_ROUNDS=${VERIFY_ROUNDS:-1000}
RSEEDS=${RSEEDS-1 2 3}
SEED=${SEED:-20261128}
POOL=${POOL:-}
FORM=${FORM:-far}
FORM3X=${FORM3X:-settle}
SPSA_EXTRA=${SPSA_EXTRA:-}
ARMS3X=${ARMS3X-default adapt0}
GAMES3X=${GAMES3X:-10000}
VERIFY3X_ROUNDS=${VERIFY3X_ROUNDS:-2000}
OUT=${OUT:-runs/bench-recover}
BOOK=openings/default.epd
ADJ="-draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=600 twosided=true"

. tools/bench/frozen.sh
freeze_engine bench-recover "$OUT"
stamp() { date -u +%H:%M:%S; }
log() { echo "[$(stamp)] $*"; }

set -- $RSEEDS
[ $# -ge 3 ] || echo "bench-recover: warning: $# recipe seed(s); the target is the median over at least 3" >&2

# ---- 1. the books -----------------------------------------------------------------------
if [ ! -s "$OUT/book-run.epd" ] || [ ! -s "$OUT/book-verify.epd" ]; then
    awk -v run="$OUT/book-run.epd.part" -v ver="$OUT/book-verify.epd.part" \
        '{ print > (NR % 2 ? run : ver) }' "$BOOK"
    mv "$OUT/book-run.epd.part" "$OUT/book-run.epd"
    mv "$OUT/book-verify.epd.part" "$OUT/book-verify.epd"
fi
RUNBOOK=$OUT/book-run.epd
VERBOOK=$OUT/book-verify.epd
log "books: $(wc -l < "$RUNBOOK") openings for the runs, $(wc -l < "$VERBOOK") others for every measuring match"

"$ENGINE" spsa > "$OUT/spec-defaults.txt"
# {"params": {...}} of the defaults, for verify -base
awk -F', *' '{ s = s (s ? ", " : "") "\"" $1 "\": " $3 } END { print "{\"params\": {" s "}}" }' \
    "$OUT/spec-defaults.txt" > "$OUT/defaults.json"

FORM_SPSA=
[ -n "$FORM" ] && FORM_SPSA="form=$FORM"
# a member of DIR/verify.json (cJSON prints one member per line)
vj() { awk -F'[:,]' -v k="\"$2\"" '$1 ~ k"$" { gsub(/[ \t"]/, "", $2); print $2; exit }' "$1/verify.json" 2>/dev/null; }

# ---- 2. a recipe from a seed ---------------------------------------------------------------
# recipe R DIR: DIR/spec-detuned.txt, detuned.opts, only.txt, detune.txt
recipe() {
    awk -F', *' -v seed="$1" -v pool="$POOL" -v out="$2" '
        function u() { x = (x * 48271) % 2147483647; return x / 2147483647 }
        BEGIN { x = (seed * 7919 + 12345) % 2147483646 + 1; for (i = 0; i < 5; i++) u()
                if (pool != "") { np = split(pool, pl, ","); for (i = 1; i <= np; i++) inpool[pl[i]] = 1 } }
        { line[NR] = $0; name[NR] = $1; d[NR] = $3; lo[NR] = $4; hi[NR] = $5; c[NR] = $6
          ok = pool != "" ? ($1 in inpool) : ($5 - $4 >= 8 * $6 && $6 >= 1)
          if (ok) cand[++nc] = NR }
        END {
            if (pool != "") for (p in inpool) { found = 0; for (i = 1; i <= nc; i++) if (name[cand[i]] == p) found = 1
                if (!found) { print "bench-recover: POOL: " p " is not a parameter of bin/ratchet" > "/dev/stderr"; exit 1 } }
            n = 8 + int(u() * 6); if (n > nc) n = nc
            for (i = 1; i <= n; i++) {          # partial Fisher-Yates
                j = i + int(u() * (nc - i + 1)); t = cand[i]; cand[i] = cand[j]; cand[j] = t
                r = cand[i]; pick[r] = 1
                dir = u() < 0.5 ? -1 : 1; k = 4 + 11 * u()
                room = dir > 0 ? hi[r] - d[r] : d[r] - lo[r]
                if (room < 4 * c[r] && (dir > 0 ? d[r] - lo[r] : hi[r] - d[r]) > room) dir = -dir
                v = d[r] + dir * k * c[r]
                if (v > hi[r]) v = hi[r]
                if (v < lo[r]) v = lo[r]
                v = int(v + (v >= 0 ? 0.5 : -0.5)); val[r] = v
                only = only (only ? "," : "") name[r]
                opts = opts " option." name[r] "=" v
                table = table sprintf("  %-18s %6d -> %6d  %+6.1f c_end   [%d, %d], c_end %s\n",
                                      name[r], d[r], v, (v - d[r]) / c[r], lo[r], hi[r], c[r])
            }
            for (i = 1; i <= NR; i++) {
                split(line[i], f, ", *")
                if (i in pick) line[i] = f[1] ", " f[2] ", " val[i] ", " f[4] ", " f[5] ", " f[6] ", " f[7]
                print line[i] > (out "/spec-detuned.txt")
            }
            printf "%s", opts > (out "/detuned.opts")
            print only > (out "/only.txt")
            printf "recipe %d: %d parameters\n%s", seed, n, table > (out "/detune.txt")
        }' "$OUT/spec-defaults.txt"
}

# ---- steps ----------------------------------------------------------------------------------
loss_match() { # DIR SRAND
    f="$1/loss.txt"
    if [ -f "$f" ] && grep -q '^Finished match' "$f"; then
        log "$1: loss done earlier"
        return
    fi
    log "$1: loss, detuned against defaults, $LOSS_ROUNDS pairs at nodes=$NODES"
    # shellcheck disable=SC2046
    $RT match -engine cmd="$ENGINE" name=detuned $(cat "$1/detuned.opts") \
        -engine cmd="$ENGINE" name=defaults -each nodes="$NODES" \
        -openings file="$VERBOOK" order=random $ADJ -rounds "$LOSS_ROUNDS" -repeat \
        -concurrency "$CONCURRENCY" -srand "$2" > "$f.part" 2>&1
    mv "$f.part" "$f"
    grep -E '^(Elo|Ptnml)' "$f"
}

spsa_run() { # DIR SPEC ONLY GAMES SRAND SPSA-ARGS
    dir=$1
    if [ -f "$dir/state.json" ]; then
        if $RT status "$dir" | head -1 | grep -q complete; then
            log "$dir: run done earlier"
            return
        fi
        log "$dir: resuming the run"
        $RT resume "$dir" >> "$dir.log" 2>&1
        return
    fi
    log "$dir: SPSA, $4 games at nodes=$NODES ${6:-(the default form)}"
    # shellcheck disable=SC2086
    $RT run -engine cmd="$ENGINE" -params file="$2" only="$3" -each nodes="$NODES" \
        -openings file="$RUNBOOK" order=random $ADJ -spsa games="$4" $6 \
        -concurrency "$CONCURRENCY" -srand "$5" -out "$dir" > "$dir.log" 2>&1
}

verify_run() { # DIR ROUNDS SRAND
    if [ "$(vj "$1" status)" = done ]; then
        log "$1: verify done earlier"
        return
    fi
    log "$1: verify against the defaults, $2 pairs on the verify book"
    $RT verify "$1" -base "$OUT/defaults.json" -sprt off -rounds "$2" -bake no \
        -openings file="$VERBOOK" -srand "$3" > "$1.verify.log" 2>&1
    grep -A1 '^verify: the values' "$1.verify.log" | tail -2 || true
}

for r in $RSEEDS; do
    rd="$OUT/recipe$r"
    mkdir -p "$rd"
    recipe "$r" "$rd"
    cat "$rd/detune.txt"
    loss_match "$rd" $((SEED + 1000 * r))
    k=1
    for g in $BUDGETS; do
        # shellcheck disable=SC2086
        spsa_run "$rd/run$g" "$rd/spec-detuned.txt" "$(cat "$rd/only.txt")" "$g" $((SEED + 1000 * r + 10 * k)) "$FORM_SPSA $SPSA_EXTRA"
        verify_run "$rd/run$g" "$VERIFY_ROUNDS" $((SEED + 1000 * r + 10 * k + 1))
        k=$((k + 1))
    done
done

# ---- 6. from the defaults with c_end 3x ---------------------------------------------------
awk -F', *' '{ print $1 ", " $2 ", " $3 ", " $4 ", " $5 ", " 3 * $6 ", " $7 }' "$OUT/spec-defaults.txt" > "$OUT/spec-defaults-3x.txt"
ONLY3X=${ONLY3X:-LmrQuietBase,LmrQuietDivisor,LmpBase,LmpScale,FhrMargin,NmpEvalScale,FutilityMargin,RfpMargin}
k=1
for arm in $ARMS3X; do
    case "$arm" in
    default) extra="form=$FORM3X $SPSA_EXTRA" ;;
    adapt0) extra="form=$FORM3X adapt=0" ;;
    *) echo "bench-recover: unknown ARMS3X arm '$arm'" >&2; exit 2 ;;
    esac
    spsa_run "$OUT/defaults3x-$arm" "$OUT/spec-defaults-3x.txt" "$ONLY3X" "$GAMES3X" $((SEED + 500 + 10 * k)) "$extra"
    verify_run "$OUT/defaults3x-$arm" "$VERIFY3X_ROUNDS" $((SEED + 500 + 10 * k + 1))
    k=$((k + 1))
done

# ---- 7. the table -------------------------------------------------------------------------
loss_of() { sed -n 's/^Elo: \([-0-9.inf]*\) +\/- \([0-9.inf]*\),.*/\1 \2/p' "$1/loss.txt" 2>/dev/null || true; }
echo
echo "== bench-recover: nodes=$NODES, seed $SEED, recipes $RSEEDS, budgets $BUDGETS; every measure on book-verify.epd =="
: > "$OUT/fractions.txt"
for r in $RSEEDS; do
    rd="$OUT/recipe$r"
    cat "$rd/detune.txt"
    LOSS=$(loss_of "$rd")
    [ -n "$LOSS" ] && echo "$LOSS" | awk -v n="$LOSS_ROUNDS" '{ printf "  loss: detuned vs defaults %+.1f +/- %.1f Elo (%d games)\n", $1, $2, 2 * n }'
    for g in $BUDGETS; do
        d="$rd/run$g"
        [ -f "$d/verify.json" ] || continue
        elo=$(vj "$d" elo); err=$(vj "$d" elo_err); st=$(vj "$d" status); vg=$(vj "$d" games)
        rec=$(echo "$LOSS $elo $err" | awk '{ b = $1; sb = $2; a = $3; sa = $4;
            if (NF < 4 || b >= 0) { print "n/a (no loss)"; exit }
            f = 1 - a / b; s = sqrt(sa * sa / (b * b) + a * a * sb * sb / (b * b * b * b));
            printf "%.0f%% +/- %.0f%%", 100 * f, 100 * s }')
        echo "$LOSS $elo" | awk -v g="$g" 'NF == 3 && $1 < 0 { print g, 1 - $3 / $1 }' >> "$OUT/fractions.txt"
        [ "$st" = done ] || rec="$rec (verify $st after $vg games)"
        printf "  %6s games: %+7.1f +/- %-6.1f vs defaults, recovered %s\n" "$g" "$elo" "$err" "$rec"
    done
done
for g in $BUDGETS; do
    awk -v g="$g" '$1 == g { v[++n] = $2 } END {
        if (!n) exit
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        printf "median recovered after %s games over %d recipes: %.0f%% (target: 80%% at 5000)\n", g, n, 100 * m }' "$OUT/fractions.txt"
done
for arm in $ARMS3X; do
    d="$OUT/defaults3x-$arm"
    [ -f "$d/verify.json" ] || continue
    printf "from the defaults, c_end x3, %s: %+.1f +/- %.1f Elo vs defaults over %s games (target: above -3)\n" \
        "$arm" "$(vj "$d" elo)" "$(vj "$d" elo_err)" "$(vj "$d" games)"
done
