/* libFuzzer harness: a run's validation.csv (validate_parse, the reader of
 * status, export -snapshot best, the report and resume's validate_trim), and
 * writing back what it accepted (validate_format, which sizes its buffer to
 * the rows): what was accepted must print, read back, and print the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    ValidationPoint *pts;
    size_t n;
    char err[1024];
    if (strlen(text) == size && validate_parse(text, "fuzz/validation.csv", &pts, &n, err, sizeof err) == 0) {
        size_t len, len2;
        char *out = validate_format(pts, n, &len);
        if (!out || strlen(out) != len)
            abort(); /* accepted rows must print */
        ValidationPoint *again;
        size_t n2;
        if (validate_parse(out, "fuzz/again.csv", &again, &n2, err, sizeof err) != 0 || n2 != n)
            abort(); /* ... and read back */
        char *out2 = validate_format(again, n2, &len2);
        if (!out2 || len2 != len || memcmp(out, out2, len) != 0)
            abort(); /* ... the same */
        for (size_t i = 0; i < n; i++)
            if (again[i].point != pts[i].point || again[i].pairs != pts[i].pairs || again[i].wins != pts[i].wins)
                abort();
        free(out);
        free(out2);
        free(again);
        free(pts);
    }
    free(text);
    return 0;
}
