/* match -resume: the rounds a match already wrote to its -pgnout file, read
 * back so that the same command goes on where it stopped.  The PGN is the
 * record: each game's Round, White, Black, Result, Termination, PlyCount,
 * TimeControl and FEN tags.  A game that is not one this match would have
 * played in its round (other engine names, another opening or time
 * control, the wrong colours) is refused, naming the file, the game and its
 * line.  A round with fewer games than a round has (a pair cut short by a
 * stop) is removed from the file, atomically, and played again. */
#ifndef RATCHET_MATCH_RESUME_H
#define RATCHET_MATCH_RESUME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "match.h"

typedef struct {
    uint64_t *done;             /* the complete rounds' ids (Round - 1), ascending */
    PairResult *res;            /* their results, in the same order */
    size_t ndone;
    size_t cut_games, cut_rounds; /* games of unfinished rounds removed from the file, and their rounds */
} MatchResume;

/* Read cfg->pgnout (a file that does not exist is a match with nothing
 * played yet).  `games` is 1 or 2 per round; `rounds` the match's limit (0:
 * none).  0, or -1 with a message in err (nothing changed on disk). */
int match_resume_read(const MatchConfig *cfg, int games, uint64_t rounds, MatchResume *out, char *err,
                      size_t errlen);

/* Whether round id is among the complete ones. */
bool match_resume_done(const MatchResume *r, uint64_t id);

void match_resume_free(MatchResume *r);

#endif
