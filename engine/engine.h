/* The engine's one-time start-up, shared by bin/ratchet, the tools that
 * search (the book generator, the labeller, the evaluation tuner) and the
 * tests. */
#ifndef RATCHET_ENGINE_H
#define RATCHET_ENGINE_H

/* One-time start-up, in this order: the rules' tables (rules_init), the
 * evaluation's tables with the piece-square table the positions keep their
 * sums from (eval_init), derived parameter tables, the default hash.  Call
 * it before setting up any position.  Safe to call more than once. */
void engine_init(void);

#endif
