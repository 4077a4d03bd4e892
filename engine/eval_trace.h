/* The evaluation as a linear function of its weights, for the evaluation
 * tuner (tools/texel/).  engine/eval.c is compiled a second time with
 * -DEVAL_TRACE into eval_trace(), which evaluates like evaluate() and
 * records, for every linear weight of engine/eval_weights.h, the count it
 * was multiplied by, per side.  The engine's own build has no trace code.
 *
 * With f = count[WHITE] - count[BLACK], phi = phase (0..EVAL_PHASE_MAX)
 * k = eg_scale and k' = mg_scale, White's score is
 *
 *   mg = sum_i f_i * w_mg[i] + nonlinear_mg          (integers)
 *   eg = sum_i f_i * w_eg[i]                         (integers)
 *   score = ((mg * k' / EVAL_SCALE_NORMAL) * phi + (eg * k / EVAL_SCALE_NORMAL) * (EVAL_PHASE_MAX - phi))
 *           / EVAL_PHASE_MAX
 *           + f_Tempo * Tempo
 *
 * with C's truncating division; evaluate() returns it for the side to move.
 * The real-valued form without the truncations is what the tuner fits: it
 * is linear in the weights once the position's phase, eg_scale (the drawish
 * scaling) and nonlinear part (king danger) are taken as they are. */
#ifndef RATCHET_EVAL_TRACE_H
#define RATCHET_EVAL_TRACE_H

#include "board.h"

/* The linear weights, in the order of engine/eval_weights.h. */
enum {
#define EVAL_W(name, mg, eg, what) EW_##name,
#define EVAL_REF(name, mg, eg, what) EW_##name,
#define EVAL_FLAT(name, value, what) EW_##name,
#define EVAL_SHAPE(name, value, what)
#include "eval_weights.h"
#undef EVAL_W
#undef EVAL_REF
#undef EVAL_FLAT
#undef EVAL_SHAPE
    EVAL_NWEIGHTS
};

enum { EVAL_PHASE_MAX = 24, EVAL_SCALE_NORMAL = 64 };

typedef struct {
    int count[EVAL_NWEIGHTS][2]; /* [weight][colour] */
    int nonlinear_mg[2];         /* king danger, [colour] */
    int phase;                   /* 0 (bare kings and pawns) .. EVAL_PHASE_MAX */
    int eg_scale;                /* 64ths of the endgame score kept: EVAL_SCALE_NORMAL, or less in a drawish ending */
    int mg_scale;                /* 64ths of the midgame score kept: EVAL_SCALE_NORMAL, or eg_scale in a drawn ending */
    int eval;                    /* what evaluate() returns (side to move's view) */
} EvalTrace;

/* Evaluates p like evaluate() and fills *t. */
void eval_trace(const Position *p, EvalTrace *t);

#endif
