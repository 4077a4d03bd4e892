#!/bin/sh
# The SPSA forms on the landscape suite of `ratchet-tune simulate -suite`
# (tuner/commands/simulate_suite.c): far starts, a start at the optimum, unequal curvatures,
# plateaus,
# a flat parameter, an interacting pair, optima at a bound, 8 and 30
# parameters.  Every form is measured in the same run against the classic
# form at the spec's gains, medians over SEEDS seeds (default 25): games to an
# Elo loss under 1, the loss after 2k, 10k and 50k games, the issue-10
# targets at 10k games, and each form's curve (far8 against opt8 at 10k games
# as the gain is scaled).  Then the robustness grid (simulate -grid,
# tuner/commands/simulate_grid.c): c_end off by 0.2x to 5x and mixed, on landscapes drawn
# from the seeds GRID_SEED_BASE.. (default 1001, a range the per-parameter
# scale was not chosen on), with the fair classic baseline and the drift on a
# flat landscape.  Pure math: the figures do not depend on the load.
#
# Env: RATCHET_TUNE (default bin/ratchet-tune), SPSA_BENCH_SEEDS (default 25),
#      GRID_SEED_BASE (default 1001).
set -eu
cd "$(dirname "$0")/../.."
RT=${RATCHET_TUNE:-bin/ratchet-tune}
SEEDS=${SPSA_BENCH_SEEDS:-25}
"$RT" simulate -suite -seeds "$SEEDS"
echo
"$RT" simulate -grid -seeds "$SEEDS" -seed-base "${GRID_SEED_BASE:-1001}"
