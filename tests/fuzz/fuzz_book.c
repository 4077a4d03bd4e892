/* libFuzzer harness: the EPD and PGN opening-book loaders (book_load).  The
 * first byte picks the format and the plies limit; the rest is the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "board.h"
#include "book.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool init;
    static int fd = -1;
    if (!init) {
        rules_init();
        fd = memfd_create("fuzz-book", 0);
        init = true;
    }
    if (size < 1 || fd < 0)
        return 0;
    const char *format = data[0] & 1 ? "pgn" : "epd";
    int plies = (data[0] >> 1) & 7;
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
        return 0;
    char path[64], err[1024];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    Book *b = book_load(path, format, plies, err, sizeof err);
    if (!b)
        return 0;
    book_set_order(b, data[0] & 16, 7, 0);
    static Position pos;
    for (size_t i = 0; i < book_size(b) && i < 64; i++)
        if (pos_from_fen(&pos, book_fen(b, book_pick(b, i)), err, sizeof err) != 0)
            abort(); /* every opening a book holds must be a legal position */
    book_free(b);
    return 0;
}
