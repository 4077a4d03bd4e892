/* A stand-in for libFuzzer's driver: runs a harness over the files named on
 * the command line (the seed corpus and the regression inputs, one
 * execution each), so that `make test` checks the harnesses build with any
 * compiler and that every crash the fuzzer ever found stays fixed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int done = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rbe");
        if (!f) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 2;
        }
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0, n;
        do {
            if (len == cap) {
                cap = cap ? 2 * cap : 4096;
                uint8_t *nb = realloc(buf, cap);
                if (!nb) {
                    fclose(f);
                    free(buf);
                    return 2;
                }
                buf = nb;
            }
            n = fread(buf + len, 1, cap - len, f);
            len += n;
        } while (n > 0);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        done++;
    }
    printf("replay: %d inputs\n", done);
    return 0;
}
