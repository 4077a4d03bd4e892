/* fastchess's report block.  See matchreport.h. */
#include "matchreport.h"

#include <string.h>
#include <strings.h>

#include "elotext.h"
#include "game.h"

static void option_or(const EngineSpec *s, const char *name, const char *suffix, const char *dflt, char *buf, size_t len)
{
    for (int k = 0; k < s->nopts; k++)
        if (!strcasecmp(s->opts[k].name, name)) {
            snprintf(buf, len, "%s%s", s->opts[k].value, suffix);
            return;
        }
    snprintf(buf, len, "%s", dflt);
}

/* a / b with two decimals; "inf" or "nan" when b is 0 (as fastchess prints them). */
static const char *ratio(uint64_t a, uint64_t b, char *buf, size_t len)
{
    if (b == 0)
        snprintf(buf, len, a ? "inf" : "nan");
    else
        snprintf(buf, len, "%.2f", (double)a / (double)b);
    return buf;
}

void match_report(FILE *out, const MatchConfig *cfg, const MatchTally *t, const SprtSpec *s,
                  const SprtStop *stop)
{
    char r1[32], r2[32];
    char tc0[96], tc1[96], th0[32], th1[32], h0[32], h1[32], tc[200], th[70], hash[70];
    tc_format(&cfg->eng[0].tc, tc0, sizeof tc0);
    tc_format(&cfg->eng[1].tc, tc1, sizeof tc1);
    option_or(&cfg->eng[0], "Threads", "t", "1t", th0, sizeof th0);
    option_or(&cfg->eng[1], "Threads", "t", "1t", th1, sizeof th1);
    /* The hash only when set: the engines' own defaults are not known here. */
    option_or(&cfg->eng[0], "Hash", "MB", "", h0, sizeof h0);
    option_or(&cfg->eng[1], "Hash", "MB", "", h1, sizeof h1);
    snprintf(tc, sizeof tc, strcmp(tc0, tc1) ? "%s - %s" : "%s", tc0, tc1);
    snprintf(th, sizeof th, strcmp(th0, th1) ? "%s - %s" : "%s", th0, th1);
    if (!*h0 && !*h1)
        hash[0] = '\0';
    else
        snprintf(hash, sizeof hash, strcmp(h0, h1) ? ", %s - %s" : ", %s", *h0 ? h0 : "default",
                 *h1 ? h1 : "default");
    const char *book = strrchr(cfg->book_path, '/');
    book = book ? book + 1 : cfg->book_path;

    EloEstimate e;
    match_estimate(t, &e);
    double points = (double)t->wins + 0.5 * (double)t->draws;
    fprintf(out, "--------------------------------------------------\n");
    fprintf(out, "Results of %s vs %s (%s, %s%s%s%s):\n", cfg->eng[0].name, cfg->eng[1].name, tc, th, hash,
            book[0] ? ", " : "", book);
    char elo[160], nelo[160];
    fprintf(out, "Elo: %s, nElo: %s\n",
            elo_text(elo, sizeof elo, e.elo, e.elo_err, 2, false, t->ptnml, t->wins, t->losses, t->draws),
            elo_has_interval(e.nelo, e.nelo_err)
                ? elo_text(nelo, sizeof nelo, e.nelo, e.nelo_err, 2, false, t->ptnml, t->wins, t->losses, t->draws)
                : "n/a");
    if (t->pairs > 0)
        fprintf(out, "LOS: %.2f %%, DrawRatio: %.2f %%, PairsRatio: %s\n", e.los * 100, e.draw_ratio * 100,
                ratio(t->ptnml[3] + t->ptnml[4], t->ptnml[0] + t->ptnml[1], r1, sizeof r1));
    else
        fprintf(out, "LOS: %.2f %%, DrawRatio: %.2f %%\n", e.los * 100, e.draw_ratio * 100);
    fprintf(out, "Games: %llu, Wins: %llu, Losses: %llu, Draws: %llu, Points: %.1f (%.2f %%)\n",
            (unsigned long long)t->games, (unsigned long long)t->wins, (unsigned long long)t->losses,
            (unsigned long long)t->draws, points, t->games ? points / (double)t->games * 100 : 0.0);
    if (t->pairs > 0)
        fprintf(out, "Ptnml(0-2): [%llu, %llu, %llu, %llu, %llu], WL/DD Ratio: %s\n", (unsigned long long)t->ptnml[0],
                (unsigned long long)t->ptnml[1], (unsigned long long)t->ptnml[2], (unsigned long long)t->ptnml[3],
                (unsigned long long)t->ptnml[4], ratio(t->penta_wl, t->penta_dd, r2, sizeof r2));
    int verdict = 0;
    if (s && s->on) {
        double llr, lo, up;
        verdict = sprt_check(t, s, &llr, &lo, &up);
        fprintf(out, "LLR: %.2f (%.2f, %.2f) [%.2f, %.2f]\n", llr, lo, up, s->elo0, s->elo1);
    }
    fprintf(out, "--------------------------------------------------\n");
    if (s && s->on && stop && stop->verdict != 0) {
        uint64_t after = t->games > stop->games ? t->games - stop->games : 0;
        fprintf(out, "SPRT ([%.2f, %.2f]) completed - %s was accepted at %llu games (LLR %.2f)", s->elo0, s->elo1,
                stop->verdict > 0 ? "H1" : "H0", (unsigned long long)stop->games, stop->llr);
        if (after)
            fprintf(out, "; %llu game%s finished after the verdict %s counted above", (unsigned long long)after,
                    after == 1 ? "" : "s", after == 1 ? "is" : "are");
        fputc('\n', out);
    } else if (s && s->on) {
        fprintf(out, "SPRT ([%.2f, %.2f]) %s\n", s->elo0, s->elo1,
                verdict > 0 ? "completed - H1 was accepted"
                : verdict < 0 ? "completed - H0 was accepted"
                              : "not decided");
    }
    for (int i = 0; i < 2; i++)
        fprintf(out, "Player: %s\n  Time losses: %llu\n  Crashes: %llu\n  Illegal moves: %llu\n  Restarts: %llu\n",
                cfg->eng[i].name, (unsigned long long)t->time_losses[i], (unsigned long long)t->crashes[i],
                (unsigned long long)t->illegal[i], (unsigned long long)t->restarts[i]);
}
