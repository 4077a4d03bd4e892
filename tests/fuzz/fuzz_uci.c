/* libFuzzer harness: the engine's UCI command handler (uci_loop) on a
 * script of commands.  Commands whose cost is not bounded by the input
 * (bench, go perft, a Hash resize, ParamsFile reading a file) are dropped;
 * searches are ended by the next command or the end of the script. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "uci.h"

static bool costly(const char *line, size_t n)
{
    static const char *const words[] = { "bench", "perft", "Hash", "hash", "ParamsFile", "paramsfile" };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (memmem(line, n, words[i], strlen(words[i])))
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    if (size > 4096 || !sink)
        return 0;
    char *script = malloc(size + 2);
    if (!script)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < size;) {
        const uint8_t *nl = memchr(data + i, '\n', size - i);
        size_t len = nl ? (size_t)(nl - (data + i)) + 1 : size - i;
        if (!costly((const char *)data + i, len)) {
            memcpy(script + n, data + i, len);
            n += len;
        }
        i += len;
    }
    script[n++] = '\n'; /* uci_loop stops a running search at the end of input */
    FILE *in = fmemopen(script, n, "r");
    if (in) {
        uci_loop(in, sink);
        fclose(in);
    }
    free(script);
    return 0;
}
