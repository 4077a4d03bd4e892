/* libFuzzer harness: loading a run's state.json (runstate_from_json, which
 * reads the SPSA state, the configuration, the engine record and the kept
 * pairs), and writing back what it accepted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *j = cJSON_ParseWithLength((const char *)data, size);
    if (!j)
        return 0;
    RunState rs;
    char err[2048];
    if (runstate_from_json(&rs, j, "fuzz-state.json", err, sizeof err) == 0) {
        cJSON *back = runstate_to_json(&rs);
        RunState again;
        if (!back || runstate_from_json(&again, back, "fuzz-again.json", err, sizeof err) != 0)
            abort(); /* a state we accept must survive our own writing */
        runstate_free(&again);
        cJSON_Delete(back);
        runstate_free(&rs);
    }
    cJSON_Delete(j);
    return 0;
}
