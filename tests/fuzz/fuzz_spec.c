/* libFuzzer harness: tuning specs in both formats, Ratchet's JSON and the
 * OpenBench/fishtest lines `name, int, value, min, max, c_end, r_end`
 * (spec_parse tells them apart by the text). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    SpsaParam *p = NULL;
    size_t n = 0;
    char err[1024];
    if (spec_parse(text, "fuzz.spec", &p, &n, err, sizeof err) == 0) {
        for (size_t i = 0; i < n; i++)
            if (!(p[i].min <= p[i].start && p[i].start <= p[i].max) || !(p[i].c_end > 0) || !(p[i].r_end > 0))
                abort(); /* an accepted spec is usable by SPSA */
        free(p);
    }
    free(text);
    return 0;
}
