/* A night's steps and their figures; see nightsteps.h. */
#include "nightsteps.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "duration.h"
#include "elotext.h"
#include "errmsg.h"
#include "ablation_record.h"
#include "jsonget.h"
#include "rd.h"
#include "state.h"
#include "validate.h"

const char *const NIGHT_STEP_NAMES[NIGHT_NSTEPS] = { "spsa", "ablation", "export", "confirm", "morning" };

int night_step_index(const char *name)
{
    for (int i = 0; i < NIGHT_NSTEPS; i++)
        if (!strcmp(NIGHT_STEP_NAMES[i], name))
            return i;
    return -1;
}

double night_run_rate(const RunState *rs)
{
    return rs->elapsed > 0 ? ((double)rs->games + 2 * (double)rs->val.used) / rs->elapsed : 0;
}

int night_file_check(const cJSON *j, const char *path, char *err, size_t errlen)
{
    static const char *const STATUSES[] = { "todo", "running", "done", "stopped", "failed" };
    enum { NSTATUSES = sizeof STATUSES / sizeof *STATUSES };
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "version");
    if (!cJSON_IsNumber(v))
        return errmsg(err, errlen, "%s: no \"version\", where this build reads a night of version %d: not a "
                      "night.json that `night` wrote", path, NIGHT_FILE_VERSION);
    if (v->valuedouble != NIGHT_FILE_VERSION)
        return errmsg(err, errlen, "%s: version %.17g, where this build reads a night of version %d%s", path,
                      v->valuedouble, NIGHT_FILE_VERSION,
                      v->valuedouble > NIGHT_FILE_VERSION ? ": written by a newer build, continue it with that build"
                                                          : "");
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(j, "steps"), *s;
    if (!cJSON_IsArray(steps))
        return errmsg(err, errlen, "%s: \"steps\" is missing or not a list", path);
    bool seen[NIGHT_NSTEPS] = { false };
    int k = 0;
    cJSON_ArrayForEach(s, steps)
    {
        k++;
        const char *name = json_text_shown(s, "name"), *status = json_text_shown(s, "status");
        int i = night_step_index(name), st = 0;
        while (st < NSTATUSES && strcmp(STATUSES[st], status))
            st++;
        if (i < 0 || seen[i])
            return errmsg(err, errlen, "%s: step %d of \"steps\" is named \"%s\": %s", path, k, name,
                          i >= 0 ? "a step listed twice"
                                           : "not a step of a night (spsa, ablation, export, confirm, morning)");
        if (st == NSTATUSES)
            return errmsg(err, errlen, "%s: step %s has the status \"%s\", which a night does not give (todo, "
                          "running, done, stopped, failed)", path, name, status);
        seen[i] = true;
    }
    return 0;
}

static cJSON *read_in(const char *dir, const char *name, char *why, size_t len)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    why[0] = '\0';
    return access(path, F_OK) == 0 ? rd_read_json(path, why, len) : NULL;
}

static void spsa_figure(const RunState *rs, char *buf, size_t len)
{
    snprintf(buf, len, "%llu of %llu games at %s", (unsigned long long)rs->games,
             (unsigned long long)spsa_budget_games(&rs->spsa.cfg), rs->tc);
}

/* "pays: Lmr, Qs; costs: Lmp; unclear: Rfp": the groups by verdict, from buf[at]. */
static size_t verdict_list(const AblationRecord *a, char *buf, size_t len, size_t at)
{
    static const char *const VERDICTS[] = { "pays", "costs", "unclear" };
    size_t start = at;
    for (size_t v = 0; v < sizeof VERDICTS / sizeof *VERDICTS; v++) {
        int k = 0;
        for (size_t g = 0; g < a->ngroups; g++) {
            const AblGroupRecord *gr = &a->groups[g];
            if (strcmp(json_shown(gr->verdict), VERDICTS[v]) != 0)
                continue;
            if (k++)
                at = appendf(buf, len, at, ", %s", json_shown(gr->name));
            else
                at = appendf(buf, len, at, "%s%s: %s", at > start ? "; " : "", VERDICTS[v], json_shown(gr->name));
        }
    }
    return at;
}

static void ablation_figure(const RunState *rs, const char *dir, const char *status, char *buf, size_t len,
                            double *played)
{
    cJSON *j = read_in(dir, ABLATION_FILE, buf, len);
    if (!j) {
        /* The night skips the ablation when SPSA moved nothing. */
        if (!buf[0] && !strcmp(status, "done") && rs && runstate_moved(rs) == 0)
            snprintf(buf, len, "nothing to ablate: no parameter moved from its start value");
        return; /* buf says why, or "" */
    }
    AblationRecord a;
    if (ablation_record_from_json(&a, j, 0, NULL, buf, len) < 0) {
        ablation_record_free(&a);
        cJSON_Delete(j);
        return; /* out of memory */
    }
    *played = (double)a.npairs;
    size_t at = appendf(buf, len, 0, "%d of %.0f pairs at %s", (int)a.npairs, a.has_rounds ? (double)a.rounds : NAN,
                        json_shown(a.tc));
    if (!strcmp(json_shown(a.status), "done")) {
        at = appendf(buf, len, at, "; ");
        size_t before = at;
        at = verdict_list(&a, buf, len, at);
        if (at == before)
            at = appendf(buf, len, at, "no group judged");
        const AblTermRecord *gap = &a.terms[ABL_TERM_GAP];
        if (a.has_additivity)
            at = appendf(buf, len, at, "; additivity gap %+.1f [%+.1f, %+.1f] Elo (%s)", elo_no_minus_zero(gap->elo, 1),
                    elo_no_minus_zero(gap->lo, 1), elo_no_minus_zero(gap->hi, 1),
                    json_shown(a.additivity_verdict));
    }
    char ff[400];
    appendf(buf, len, at, "; %s", ablation_record_forfeit_text(&a, ff, sizeof ff));
    ablation_record_free(&a);
    cJSON_Delete(j);
}

static void export_figure(const char *dir, char *buf, size_t len)
{
    char name[64];
    snprintf(name, sizeof name, "%s/kept.json", RD_NIGHT_SUB);
    cJSON *k = read_in(dir, name, buf, len);
    if (!k)
        return; /* buf says why, or "" */
    const cJSON *abl = cJSON_GetObjectItemCaseSensitive(k, "ablation");
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(abl, "prediction");
    size_t at = appendf(buf, len, 0, "%d parameter(s) kept at the tuned value, %d at the start",
                        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(abl, "kept")),
                        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(abl, "start")));
    if (cJSON_IsObject(pr))
        appendf(buf, len, at, "; predicted %+.1f [%+.1f, %+.1f] Elo together at %s",
                elo_no_minus_zero(json_num_shown(pr, "elo"), 1), elo_no_minus_zero(json_num_shown(pr, "elo_lo"), 1),
                elo_no_minus_zero(json_num_shown(pr, "elo_hi"), 1), json_text_shown(pr, "tc"));
    cJSON_Delete(k);
}

/* The confirmation's figure from verify.json, the pairs it counts and the
 * games per second of its play (0 before a minute of it). */
static void confirm_figure(const char *dir, char *buf, size_t len, double *played, double *rate)
{
    cJSON *v = read_in(dir, VERIFY_FILE, buf, len);
    if (!v)
        return; /* buf says why, or "" */
    VerifyRecord r;
    verify_record_from_json(&r, v, false, NULL, NULL, 0);
    if (r.verdict && !strcmp(r.verdict, "identical")) {
        appendf(buf, len, 0, "nothing to play: the kept values are the start values");
        double rounds = verify_record_shown(&r, VREC_ROUNDS, r.rounds);
        *played = isfinite(rounds) ? rounds : 0; /* nothing is left to play either */
        verify_record_free(&r);
        cJSON_Delete(v);
        return;
    }
    const MatchTally *t = &r.tally;
    double pairs = verify_record_shown(&r, VREC_PAIRS, t->pairs);
    *played = isfinite(pairs) ? pairs : 0;
    double games = verify_record_shown(&r, VREC_GAMES, t->games);
    if (isfinite(games) && games > 0 && isfinite(r.elapsed_s) && r.elapsed_s >= 60)
        *rate = games / r.elapsed_s;
    size_t at = appendf(buf, len, 0, "%.0f of %.0f pairs at %s", pairs,
                        verify_record_shown(&r, VREC_ROUNDS, r.rounds), json_shown(r.tc));
    if (isfinite(r.est.elo) && isfinite(r.est.elo_err))
        at = appendf(buf, len, at, ": %+.1f +/- %.1f Elo", elo_no_minus_zero(r.est.elo, 1), r.est.elo_err);
    if (r.have & VREC_PTNML) {
        for (int k = 0; k < 5; k++)
            at = appendf(buf, len, at, "%s%llu", k ? ", " : " (Ptnml [", (unsigned long long)t->ptnml[k]);
        at = appendf(buf, len, at, "])");
    }
    if (r.have & VREC_TIME_LOSSES)
        at = appendf(buf, len, at, ", %llu time losses", (unsigned long long)(t->time_losses[0] + t->time_losses[1]));
    /* the sittings that started on a busy machine (verify_check_machine) */
    int busy = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(v, "machine"))
        busy += !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "idle"));
    if (busy)
        appendf(buf, len, at, "; %d sitting%s started on a busy machine", busy, busy == 1 ? "" : "s");
    verify_record_free(&r);
    cJSON_Delete(v);
}

/* What the steps not done still play, from night.json's plan and the files
 * the steps wrote, and how long: at the run's limit at its recent pace
 * (histrate.h), else at the rate of all its play time (the calibration's
 * before it played), the confirmation at the rate of its own play once
 * it played a minute, else at the rate measured at the user's limit. */
static void night_left(const MorningRun *m, const cJSON *j, const NightSteps *st, char *buf, size_t len)
{
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(j, "plan");
    const RunState *rs = m->rs;
    bool done[NIGHT_NSTEPS] = { false };
    double played[NIGHT_NSTEPS] = { 0 }, own[NIGHT_NSTEPS] = { 0 };
    for (size_t i = 0; i < st->n; i++) {
        int k = night_step_index(st->steps[i].name); /* night_file_check: every name is a step's */
        done[k] = !strcmp(st->steps[i].status, "done");
        played[k] = st->steps[i].played;
        own[k] = st->steps[i].rate;
    }
    buf[0] = '\0';
    if (!cJSON_IsObject(plan) || !rs)
        return;
    uint64_t total = spsa_budget_games(&rs->spsa.cfg);
    double spsa = done[0] || rs->games >= total ? 0 : (double)(total - rs->games);
    /* the pending point's pairs played are used: validate_pairs_planned counts all of its pairs */
    double planned = (double)validate_pairs_planned(&rs->val, total),
           used = (double)(rs->val.used + (rs->val.pending ? rs->val.pairs : 0));
    double val = done[0] || planned <= used ? 0 : 2 * (planned - used);
    double abl = done[1] ? 0 : 2 * (json_num_shown(plan, "ablation_pairs") - played[1]);
    double conf = done[3] ? 0 : 2 * (json_num_shown(plan, "confirm_pairs") - played[3]);
    abl = isfinite(abl) && abl > 0 ? abl : 0;
    conf = isfinite(conf) && conf > 0 ? conf : 0;
    if (spsa + val + abl + conf == 0)
        return;
    double secs, recent = hist_rate(&m->pace, &secs);
    double rate = isfinite(recent) ? recent : rs->elapsed > 60 ? night_run_rate(rs) : json_num_shown(plan, "rate_run");
    double rate_confirm = json_num_shown(plan, "rate_confirm");
    char t[32];
    size_t at = 0;
    if (spsa + val + abl > 0) {
        static const char *const NAMES[] = { "SPSA", "validation", "the ablation" };
        const double part[] = { spsa, val, abl };
        at = appendf(buf, len, at, "%.0f games at the run's limit (", spsa + val + abl);
        for (int k = 0, shown = 0; k < 3; k++)
            if (part[k] > 0)
                at = appendf(buf, len, at, "%s%s %.0f", shown++ ? ", " : "", NAMES[k], part[k]);
        at = appendf(buf, len, at, ")");
        if (isfinite(rate) && rate > 0) {
            duration_format((spsa + val + abl) / rate, t, sizeof t);
            char pace[64];
            if (isfinite(recent)) {
                char span[32];
                duration_format(secs, span, sizeof span);
                snprintf(pace, sizeof pace, "its last %s of play", span);
            } else {
                snprintf(pace, sizeof pace, "%s", rs->elapsed > 60 ? "its play so far" : "measured before it played");
            }
            at = appendf(buf, len, at, ", about %s at %.2f games/s (%s)", t, rate, pace);
        }
    }
    if (conf > 0) {
        at = appendf(buf, len, at, "%sthe confirmation's %.0f games", at ? "; " : "", conf);
        if (own[3] > 0) {
            duration_format(conf / own[3], t, sizeof t);
            appendf(buf, len, at, ", about %s at %.2f games/s (its play so far)", t, own[3]);
        } else if (isfinite(rate_confirm) && rate_confirm > 0) {
            duration_format(conf / rate_confirm, t, sizeof t);
            appendf(buf, len, at, ", about %s at %.2f games/s (measured at the user's limit)", t, rate_confirm);
        } else {
            appendf(buf, len, at, " (its rate not measured: a night sized in games, or one that adopted a run)");
        }
    }
}

int night_steps_read(const MorningRun *m, NightSteps *out, char *err, size_t errlen)
{
    const char *dir = m->dir;
    memset(out, 0, sizeof *out);
    char why[PATH_MAX + 256];
    cJSON *j = read_in(dir, RD_NIGHT_FILE, why, sizeof why);
    if (!j)
        return why[0] ? errmsg(err, errlen, "%s", why) : 0;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, RD_NIGHT_FILE);
    if (night_file_check(j, path, err, errlen) < 0) {
        cJSON_Delete(j);
        return -1;
    }
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(j, "steps"))
    {
        if (out->n == NIGHT_STEPS_MAX)
            break;
        NightStep *st = &out->steps[out->n++];
        snprintf(st->name, sizeof st->name, "%s", json_text_shown(s, "name"));
        const char *status = json_text_shown(s, "status");
        snprintf(st->status, sizeof st->status, "%s",
                 !strcmp(status, "running") && m->holder <= 0 ? "interrupted" : status);
        if (!strcmp(status, "todo"))
            continue;
        if (!strcmp(st->name, "spsa"))
            spsa_figure(m->rs, st->figure, sizeof st->figure);
        else if (!strcmp(st->name, "ablation"))
            ablation_figure(m->rs, dir, status, st->figure, sizeof st->figure, &st->played);
        else if (!strcmp(st->name, "export"))
            export_figure(dir, st->figure, sizeof st->figure);
        else if (!strcmp(st->name, "confirm"))
            confirm_figure(dir, st->figure, sizeof st->figure, &st->played, &st->rate);
    }
    night_left(m, j, out, out->left, sizeof out->left);
    cJSON_Delete(j);
    snprintf(out->morning, sizeof out->morning, "%s/morning.txt", dir);
    if (access(out->morning, F_OK) != 0)
        out->morning[0] = '\0';
    return 1;
}

void night_steps_print(FILE *out, const NightSteps *s)
{
    fprintf(out, "\nnight (%s):\n", RD_NIGHT_FILE);
    for (size_t i = 0; i < s->n; i++) {
        const NightStep *st = &s->steps[i];
        fprintf(out, "  %-9s %s", st->name, st->status);
        if (st->figure[0])
            fprintf(out, "%*s%s", strlen(st->status) < 11 ? 12 - (int)strlen(st->status) : 1, "", st->figure);
        fputc('\n', out);
    }
    if (s->left[0])
        fprintf(out, "  left to play: %s\n", s->left);
    if (s->morning[0])
        fprintf(out, "  the morning page: %s\n", s->morning);
}
