/* What the fake UCI engines share; see fakelib.h. */
#include "fakelib.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void fake_sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

void fake_position(Position *pos, char *cmd)
{
    char *p = cmd + strlen("position");
    char *mv = strstr(p, " moves");
    if (mv)
        *mv = '\0';
    while (*p == ' ')
        p++;
    if (strncmp(p, "fen ", 4) == 0) {
        char err[128];
        if (pos_from_fen(pos, p + 4, err, sizeof err) < 0) {
            printf("info string bad fen: %s\n", err);
            pos_startpos(pos);
        }
    } else {
        pos_startpos(pos);
    }
    if (!mv)
        return;
    for (char *tok = strtok(mv + strlen(" moves"), " "); tok; tok = strtok(NULL, " ")) {
        Move m = parse_uci(pos, tok);
        if (m == MOVE_NONE || !pos_has_room(pos)) {
            printf("info string illegal move %s\n", tok);
            return;
        }
        pos_make(pos, m);
    }
}
