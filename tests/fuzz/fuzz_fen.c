/* libFuzzer harness: FEN parsing (pos_from_fen), and what the rules do with
 * a position it accepts: FEN out and back, legal moves, make/unmake, SAN. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool init;
    if (!init) {
        rules_init();
        init = true;
    }
    if (size > 1024)
        return 0;
    char fen[1025];
    memcpy(fen, data, size);
    fen[size] = '\0';
    static Position pos, again;
    char err[256];
    if (pos_from_fen(&pos, fen, err, sizeof err) != 0)
        return 0;
    char out[128];
    pos_to_fen(&pos, out, sizeof out);
    if (pos_from_fen(&again, out, err, sizeof err) != 0 || pos_key(&again) != pos_key(&pos))
        abort(); /* a FEN we print must read back as the same position */
    MoveList list;
    gen_legal(&pos, &list, GEN_ALL);
    for (int i = 0; i < list.count && pos_has_room(&pos); i++) {
        char san[16];
        move_to_san(&pos, list.moves[i], san);
        if (parse_san(&pos, san) != list.moves[i])
            abort(); /* the SAN we print must name the move */
        pos_make(&pos, list.moves[i]);
        pos_in_check(&pos);
        pos_unmake(&pos);
    }
    return 0;
}
