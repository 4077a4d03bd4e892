/* libFuzzer harness: a snapshot file (DIR/snapshots/K.json) checked against
 * a run's spec by export_snapshot_check, as export -snapshot K and verify
 * -snapshot K do before a value reaches a file or an engine: two tuned
 * integer parameters (Alpha 0..100, Beta -50..50), a tuned float (Gamma
 * 0..1) and a fixed one (Delta).  What it accepts must hold every
 * parameter once, finite, integers where they must be, in range. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "export.h"
#include "fuzz.h"
#include "spsa.h"
#include "state.h"

static RunState *the_run(void)
{
    static RunState rs;
    static bool made;
    if (made)
        return &rs;
    runstate_init(&rs);
    SpsaParam p[3] = {
        { .name = "Alpha", .start = 50, .theta = 50, .min = 0, .max = 100, .c_end = 5, .r_end = 0.002 },
        { .name = "Beta", .start = 0, .theta = 0, .min = -50, .max = 50, .c_end = 5, .r_end = 0.002 },
        { .name = "Gamma", .start = 0.5, .theta = 0.5, .min = 0, .max = 1, .c_end = 0.1, .r_end = 0.002,
          .is_float = true },
    };
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 20);
    char err[512];
    if (spsa_init(&rs.spsa, p, 3, &cfg, 1, err, sizeof err) != 0)
        abort();
    rs.fixed = calloc(1, sizeof *rs.fixed);
    rs.order = calloc(4, sizeof *rs.order);
    if (!rs.fixed || !rs.order)
        abort();
    snprintf(rs.fixed[0].name, sizeof rs.fixed[0].name, "Delta");
    rs.fixed[0].value = 7;
    rs.nfixed = 1;
    static const char *const names[4] = { "Alpha", "Delta", "Beta", "Gamma" };
    for (int i = 0; i < 4; i++)
        snprintf(rs.order[i], sizeof rs.order[i], "%s", names[i]);
    rs.norder = 4;
    made = true;
    return &rs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    RunState *rs = the_run();
    cJSON *j = cJSON_ParseWithLength((const char *)data, size);
    if (!j)
        return 0;
    char err[1024];
    if (export_snapshot_check(rs, j, "fuzz-snapshot-1.json", err, sizeof err) == 0) {
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params"), *p;
        int n = 0;
        cJSON_ArrayForEach(p, params)
        {
            double x = p->valuedouble;
            bool is_int = strcmp(p->string, "Gamma") != 0;
            if (!cJSON_IsNumber(p) || !isfinite(x) || (is_int && x != floor(x)))
                abort();
            if ((!strcmp(p->string, "Alpha") && (x < 0 || x > 100)) || (!strcmp(p->string, "Beta") && (x < -50 || x > 50)) ||
                (!strcmp(p->string, "Gamma") && (x < 0 || x > 1)))
                abort();
            n++;
        }
        if (n != 4)
            abort(); /* every parameter once, nothing else */
    }
    cJSON_Delete(j);
    return 0;
}
