/* libFuzzer harness: `simulate -landscape file=L.json` (tuner/spsa/landscape.c)
 * for a fixed three-parameter spec.  An accepted landscape is usable by the
 * model: every optimum and start inside its bounds, finite curvatures,
 * skews in (-1, 1), couplings between distinct known parameters, and a loss
 * that is finite and not negative at the bounds' corners. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "landscape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    SpsaParam ps[3];
    memset(ps, 0, sizeof ps);
    static const char *const NAMES[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++) {
        strcpy(ps[i].name, NAMES[i]);
        ps[i].min = 0;
        ps[i].max = 100 * (i + 1);
        ps[i].start = ps[i].theta = 10 * (i + 1);
        ps[i].c_end = 2.5 * (i + 1);
        ps[i].r_end = 0.002;
    }
    SimLandscape l;
    char err[1024];
    if (landscape_init(&l, 3)) {
        free(text);
        return 0;
    }
    if (landscape_parse_json(&l, ps, text, "fuzz.json", err, sizeof err) == 0 &&
        landscape_finish(&l, ps, 1, err, sizeof err) == 0) {
        for (int i = 0; i < 3; i++)
            if (!(l.opt[i] >= ps[i].min && l.opt[i] <= ps[i].max) ||
                !(ps[i].theta >= ps[i].min && ps[i].theta <= ps[i].max) ||
                !(l.curv[i] >= 0 && isfinite(l.curv[i])) || !(l.skew[i] > -1 && l.skew[i] < 1) ||
                !(l.scale[i] > 0 && isfinite(l.scale[i])) || !(l.width[i] >= 0))
                abort();
        for (size_t j = 0; j < l.ncouplings; j++)
            if (l.couplings[j].a >= 3 || l.couplings[j].b >= 3 ||
                l.couplings[j].a == l.couplings[j].b)
                abort();
        SimModel m = landscape_model(&l, 0.25, 80, 1);
        for (int c = 0; c < 8; c++) {
            double x[3];
            for (int i = 0; i < 3; i++)
                x[i] = c >> i & 1 ? ps[i].max : ps[i].min;
            double loss = sim_elo_loss(&m, ps, x);
            if (!isfinite(loss) || loss < -1e-9 * (1 + fabs(loss)))
                abort();
        }
    }
    landscape_free(&l);
    free(text);
    return 0;
}
