/* libFuzzer harness: parameter value files (paramfile_parse), as the engine
 * reads them for --params and ParamsFile and the baking tool does. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "paramfile.h"
#include "params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    int values[PARAM_COUNT];
    bool given[PARAM_COUNT];
    char err[1024], tag[PARAMFILE_TAG_LEN];
    int n = paramfile_parse(text, size, "fuzz.json", values, given, err, sizeof err);
    if (n >= 0)
        for (int i = 0; i < PARAM_COUNT; i++)
            if (values[i] < param_specs[i].min || values[i] > param_specs[i].max)
                abort(); /* an accepted file holds values within the ranges */
    paramfile_tag(text, size, tag);
    free(text);
    return 0;
}
