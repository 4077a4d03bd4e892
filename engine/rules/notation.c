/* Move notation: UCI long algebraic and SAN, both ways. */
#include <ctype.h>
#include <string.h>

#include "board.h"

static const char promo_chars[] = "pnbrqk";

void move_to_uci(Move m, char *buf)
{
    if (m == MOVE_NONE || m == MOVE_NULL) {
        strcpy(buf, "0000");
        return;
    }
    int from = move_from(m), to = move_to(m);
    buf[0] = (char)('a' + sq_file(from));
    buf[1] = (char)('1' + sq_rank(from));
    buf[2] = (char)('a' + sq_file(to));
    buf[3] = (char)('1' + sq_rank(to));
    int n = 4;
    if (move_is_promo(m))
        buf[n++] = promo_chars[move_promo_type(m)];
    buf[n] = '\0';
}

Move parse_uci(const Position *p, const char *text)
{
    if (!text)
        return MOVE_NONE;
    size_t len = strlen(text);
    if (len != 4 && len != 5)
        return MOVE_NONE;
    MoveList l;
    gen_legal(p, &l, GEN_ALL);
    for (int i = 0; i < l.count; i++) {
        char buf[6];
        move_to_uci(l.moves[i], buf);
        if (!strcmp(buf, text))
            return l.moves[i];
    }
    return MOVE_NONE;
}

static const char san_pieces[] = "PNBRQK";

void move_to_san(const Position *p, Move m, char *buf)
{
    int from = move_from(m), to = move_to(m);
    int type = piece_type(p->board[from]);
    int n = 0;

    if (move_is_castle(m)) {
        strcpy(buf, move_flag(m) == MF_CASTLE_K ? "O-O" : "O-O-O");
        n = (int)strlen(buf);
    } else {
        if (type == PAWN) {
            if (move_is_capture(m))
                buf[n++] = (char)('a' + sq_file(from));
        } else {
            buf[n++] = san_pieces[type];
            /* Disambiguate by file, else by rank, else by both. */
            MoveList l;
            gen_legal(p, &l, GEN_ALL);
            bool clash = false, same_file = false, same_rank = false;
            for (int i = 0; i < l.count; i++) {
                Move o = l.moves[i];
                int of = move_from(o);
                if (o == m || move_to(o) != to || of == from || piece_type(p->board[of]) != type)
                    continue;
                clash = true;
                same_file |= sq_file(of) == sq_file(from);
                same_rank |= sq_rank(of) == sq_rank(from);
            }
            if (clash) {
                if (!same_file || same_rank)
                    buf[n++] = (char)('a' + sq_file(from));
                if (same_file)
                    buf[n++] = (char)('1' + sq_rank(from));
            }
        }
        if (move_is_capture(m))
            buf[n++] = 'x';
        buf[n++] = (char)('a' + sq_file(to));
        buf[n++] = (char)('1' + sq_rank(to));
        if (move_is_promo(m)) {
            buf[n++] = '=';
            buf[n++] = san_pieces[move_promo_type(m)];
        }
    }
    if (pos_gives_check(p, m)) {
        /* Mate needs a look at the replies; the position is restored. */
        Position *q = (Position *)p;
        MoveList replies;
        pos_make(q, m);
        gen_legal(q, &replies, GEN_ALL);
        pos_unmake(q);
        buf[n++] = replies.count ? '+' : '#';
    }
    buf[n] = '\0';
}

Move parse_san(const Position *p, const char *text)
{
    char s[16];
    size_t len = 0;
    if (!text)
        return MOVE_NONE;
    /* Drop check marks, annotations and the separators that carry no information. */
    for (const char *c = text; *c && len < sizeof s - 1; c++) {
        if (strchr("+#!?x:-=", *c) && !(*c == '-' && (c[1] == 'O' || c[1] == '0' || c[1] == 'o')))
            continue;
        s[len++] = *c;
    }
    if (strlen(text) >= sizeof s)
        return MOVE_NONE;
    s[len] = '\0';

    MoveList l;
    gen_legal(p, &l, GEN_ALL);

    if (!strcmp(s, "O-O") || !strcmp(s, "0-0") || !strcmp(s, "o-o") ||
        !strcmp(s, "O-O-O") || !strcmp(s, "0-0-0") || !strcmp(s, "o-o-o")) {
        int flag = len == 3 ? MF_CASTLE_K : MF_CASTLE_Q;
        for (int i = 0; i < l.count; i++)
            if (move_flag(l.moves[i]) == flag)
                return l.moves[i];
        return MOVE_NONE;
    }

    int type = PAWN, promo = NO_TYPE;
    size_t i = 0;
    if (len && strchr("NBRQK", s[0])) {
        type = (int)(strchr(san_pieces, s[0]) - san_pieces);
        i = 1;
    }
    /* A trailing piece letter after the destination is a promotion. */
    if (len >= 3 && type == PAWN && strchr("NBRQnbrq", s[len - 1]) && isdigit((unsigned char)s[len - 2])) {
        promo = (int)(strchr(san_pieces, toupper((unsigned char)s[len - 1])) - san_pieces);
        len--;
    }
    if (len < i + 2)
        return MOVE_NONE;
    char tf = s[len - 2], tr = s[len - 1];
    if (tf < 'a' || tf > 'h' || tr < '1' || tr > '8')
        return MOVE_NONE;
    int to = sq_make(tf - 'a', tr - '1');
    int from_file = -1, from_rank = -1;
    for (size_t k = i; k < len - 2; k++) {
        if (s[k] >= 'a' && s[k] <= 'h')
            from_file = s[k] - 'a';
        else if (s[k] >= '1' && s[k] <= '8')
            from_rank = s[k] - '1';
        else
            return MOVE_NONE;
    }

    Move found = MOVE_NONE;
    for (int k = 0; k < l.count; k++) {
        Move m = l.moves[k];
        int from = move_from(m);
        if (move_to(m) != to || piece_type(p->board[from]) != type || move_is_castle(m))
            continue;
        if (move_promo_type(m) != promo)
            continue;
        if ((from_file >= 0 && sq_file(from) != from_file) || (from_rank >= 0 && sq_rank(from) != from_rank))
            continue;
        if (found != MOVE_NONE)
            return MOVE_NONE; /* ambiguous */
        found = m;
    }
    return found;
}
