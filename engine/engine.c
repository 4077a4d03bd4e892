/* The engine's one-time start-up (engine.h). */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>

#include "board.h"
#include "eval.h"
#include "params.h"
#include "tt.h"

void engine_init(void)
{
    rules_init();
    eval_init();
    params_init();
    if (tt_size_mb() == 0 && tt_resize(TT_DEFAULT_MB) != 0) {
        fprintf(stderr, "ratchet: cannot allocate the %d MB hash table\n", TT_DEFAULT_MB);
        exit(1);
    }
}
