/* DIR/ablation.json; see ablation_record.h. */
#include "ablation_record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonget.h"
#include "jsonput.h"

static const char *const TERM_NAMES[ABL_TERMS] = { "sum", "whole", "gap" };

int ablation_record_groups(AblationRecord *r, const AblGroups *gs)
{
    r->groups = calloc(gs->n + 1, sizeof *r->groups);
    if (!r->groups)
        return -1;
    r->has_groups = true;
    r->ngroups = gs->n;
    for (size_t g = 0; g < gs->n; g++) {
        AblGroupRecord *o = &r->groups[g];
        o->name = gs->g[g].name;
        o->nparams = gs->g[g].nparams;
        if (!(o->params = calloc(o->nparams + 1, sizeof *o->params)))
            return -1;
        for (size_t k = 0; k < o->nparams; k++)
            o->params[k] = gs->g[g].params[k];
    }
    return 0;
}

static bool same_text(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

bool ablation_record_same_groups(const AblationRecord *a, const AblationRecord *b)
{
    bool same = a->has_groups && b->has_groups && a->ngroups == b->ngroups;
    for (size_t g = 0; same && g < a->ngroups; g++) {
        const AblGroupRecord *x = &a->groups[g], *y = &b->groups[g];
        same = same_text(x->name, y->name) && x->nparams == y->nparams;
        for (size_t k = 0; same && k < x->nparams; k++)
            same = same_text(x->params[k], y->params[k]);
    }
    return same;
}

void ablation_record_fit(AblationRecord *r, const AblFit *f, const AblEffect *eff, const char *note)
{
    r->has_fit = f != NULL;
    r->fit_note = note;
    for (size_t g = 0; g < r->ngroups; g++) {
        AblGroupRecord *o = &r->groups[g];
        o->estimated = f != NULL;
        if (f) {
            o->eff = eff[g];
            o->verdict = ablation_verdict_name(eff[g].verdict);
        }
    }
    if (!f)
        return;
    r->fit_pairs = (double)f->pairs;
    r->intercept = f->mu;
    r->intercept_se = f->mu_se;
    r->sigma = f->sigma;
    r->has_additivity = f->whole_pairs > 0;
    r->whole_pairs = (double)f->whole_pairs;
    const double x[ABL_TERMS] = { f->sum, f->whole, f->gap }, se[ABL_TERMS] = { f->sum_se, f->whole_se, f->gap_se };
    for (int i = 0; i < ABL_TERMS; i++)
        r->terms[i] = (AblTermRecord){ .elo = ablation_elo(x[i]),
                                       .lo = ablation_elo(x[i] - f->t * se[i]),
                                       .hi = ablation_elo(x[i] + f->t * se[i]),
                                       .beta = x[i],
                                       .se = se[i] };
    double lo = f->gap - f->t * f->gap_se, hi = f->gap + f->t * f->gap_se;
    r->additivity_verdict = lo > 0 ? "more than the sum" : hi < 0 ? "less than the sum" : "adds up";
}

static cJSON *groups_json(const AblationRecord *r)
{
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    for (size_t g = 0; ok && g < r->ngroups; g++) {
        const AblGroupRecord *gr = &r->groups[g];
        cJSON *o = cJSON_CreateObject();
        cJSON *ps = o ? cJSON_AddArrayToObject(o, "params") : NULL;
        ok = ps && cJSON_AddItemToArray(a, o) && cJSON_AddStringToObject(o, "name", gr->name);
        if (!ok) {
            if (o && !ps)
                cJSON_Delete(o);
            break;
        }
        for (size_t k = 0; ok && k < gr->nparams; k++)
            ok = cJSON_AddItemToArray(ps, cJSON_CreateString(gr->params[k]));
        if (ok && gr->estimated) {
            const AblEffect *e = &gr->eff;
            ok = cJSON_AddNumberToObject(o, "elo", e->elo) && cJSON_AddNumberToObject(o, "elo_lo", e->elo_lo) &&
                 cJSON_AddNumberToObject(o, "elo_hi", e->elo_hi) && cJSON_AddNumberToObject(o, "beta", e->beta) &&
                 cJSON_AddNumberToObject(o, "se", e->se) && cJSON_AddStringToObject(o, "verdict", gr->verdict);
        }
    }
    if (ok)
        return a;
    cJSON_Delete(a);
    return NULL;
}

/* The additivity check: the groups' sum, the whole as the whole pairs
 * measured it and the gap, each as Elo with its 95% interval. */
static cJSON *additivity_json(const AblationRecord *r)
{
    JsonPut a = jput_new();
    jput_num(&a, "whole_pairs", r->whole_pairs);
    for (size_t i = 0; i < ABL_TERMS; i++) {
        const AblTermRecord *t = &r->terms[i];
        const struct {
            const char *suffix;
            double x;
        } members[] = { { "elo", t->elo }, { "lo", t->lo }, { "hi", t->hi }, { "beta", t->beta }, { "se", t->se } };
        for (size_t m = 0; m < sizeof members / sizeof members[0]; m++) {
            char k[32];
            snprintf(k, sizeof k, "%s_%s", TERM_NAMES[i], members[m].suffix);
            jput_num(&a, k, members[m].x);
        }
    }
    jput_str(&a, "verdict", r->additivity_verdict);
    return jput_done(&a);
}

static cJSON *pairs_json(const AblationRecord *r)
{
    cJSON *pairs = cJSON_CreateArray();
    bool ok = pairs != NULL;
    for (size_t i = 0; ok && i < r->npairs; i++) {
        const AblPairRecord *q = &r->pairs[i];
        cJSON *p = cJSON_CreateObject();
        ok = p && cJSON_AddItemToArray(pairs, p); /* the array owns p from here */
        ok = ok && cJSON_AddNumberToObject(p, "pair", (double)q->pair) &&
             cJSON_AddNumberToObject(p, "opening", (double)q->opening) &&
             cJSON_AddStringToObject(p, "design", q->design) && cJSON_AddNumberToObject(p, "diff", q->diff);
    }
    if (ok)
        return pairs;
    cJSON_Delete(pairs);
    return NULL;
}

cJSON *ablation_record_to_json(const AblationRecord *r)
{
    JsonPut w = jput_new();
    jput_num(&w, "version", 1);
    jput_str(&w, "status", r->status);
    jput_item(&w, "groups", groups_json(r));
    if (r->has_fit) {
        JsonPut f = jput_new();
        jput_num(&f, "pairs", r->fit_pairs);
        jput_num(&f, "intercept", r->intercept);
        jput_num(&f, "intercept_se", r->intercept_se);
        jput_num(&f, "sigma", r->sigma);
        jput_item(&w, "fit", jput_done(&f));
        if (r->has_additivity)
            jput_item(&w, "additivity", additivity_json(r));
    } else {
        jput_str(&w, "fit_note", r->fit_note);
    }
    jput_num(&w, "rounds", (double)r->rounds);
    jput_num(&w, "rounds_asked", (double)r->rounds_asked);
    jput_bool(&w, "capped", r->capped);
    jput_str(&w, "tc", r->tc);
    jput_str(&w, "book", r->book);
    JsonPut op = jput_new();
    jput_str(&op, "set", r->set);
    jput_str(&op, "file", r->openings_file);
    jput_num(&op, "count", (double)r->count);
    jput_num(&op, "book_size", (double)r->book_size);
    if (r->claimed) {
        jput_num(&op, "held_out_first", (double)r->held_out_first);
        jput_num(&op, "held_out_count", (double)r->held_out_count);
    }
    jput_item(&w, "openings", jput_done(&op));
    jput_num(&w, "seed", (double)r->seed);
    jput_str(&w, "design", r->design);
    jput_num(&w, "whole_every", r->whole_every);
    jput_str(&w, "groups_spec", r->groups_spec);
    jput_str(&w, "tuned_file", r->tuned_file);
    jput_item(&w, "args", r->nargs ? cJSON_CreateStringArray(r->args, r->nargs) : cJSON_CreateArray());
    if (r->dir)
        jput_str(&w, "dir", r->dir);
    jput_num(&w, "run_games", (double)r->run_games);
    jput_item(&w, "tuned", cJSON_Duplicate(r->tuned, true));
    jput_item(&w, "base", cJSON_Duplicate(r->base, true));
    jput_num(&w, "games", (double)r->games);
    jput_counts(&w, "ptnml", r->ptnml, 5);
    if (r->has_forfeits) {
        jput_num(&w, "forfeit_pairs", (double)r->forfeit_pairs);
        if (w.ok && !validate_forfeits_to_json(w.o, &r->forfeits))
            w.ok = false;
    }
    jput_item(&w, "pairs", pairs_json(r));
    jput_num(&w, "sessions", (double)r->sessions);
    jput_str(&w, "created", r->created);
    jput_str(&w, "updated", r->updated);
    return jput_done(&w);
}

/* "groups" of a file; -1 when out of memory. */
static int read_groups(AblationRecord *r, const cJSON *gs)
{
    r->has_groups = cJSON_IsArray(gs);
    if (!r->has_groups)
        return 0;
    size_t n = (size_t)cJSON_GetArraySize(gs);
    if (!(r->groups = calloc(n + 1, sizeof *r->groups)))
        return -1;
    const cJSON *g;
    cJSON_ArrayForEach(g, gs)
    {
        AblGroupRecord *o = &r->groups[r->ngroups++];
        o->name = json_get_text(g, "name");
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(g, "params"), *p;
        o->nparams = cJSON_IsArray(ps) ? (size_t)cJSON_GetArraySize(ps) : 0;
        if (!(o->params = calloc(o->nparams + 1, sizeof *o->params)))
            return -1;
        for (size_t k = 0; k < o->nparams; k++) {
            p = cJSON_GetArrayItem(ps, (int)k);
            o->params[k] = cJSON_IsString(p) ? p->valuestring : NULL;
        }
        o->eff = (AblEffect){ .elo = json_num_shown(g, "elo"), .elo_lo = json_num_shown(g, "elo_lo"),
                              .elo_hi = json_num_shown(g, "elo_hi"), .beta = json_num_shown(g, "beta"),
                              .se = json_num_shown(g, "se") };
        o->verdict = json_get_text(g, "verdict");
        o->estimated = o->verdict != NULL;
    }
    return 0;
}

static void read_additivity(AblationRecord *r, const cJSON *a)
{
    r->has_additivity = cJSON_IsObject(a);
    r->whole_pairs = json_num_shown(a, "whole_pairs");
    for (int i = 0; i < ABL_TERMS; i++) {
        char k[5][32];
        const char *suffix[5] = { "elo", "lo", "hi", "beta", "se" };
        for (int m = 0; m < 5; m++)
            snprintf(k[m], sizeof k[m], "%s_%s", TERM_NAMES[i], suffix[m]);
        r->terms[i] = (AblTermRecord){ .elo = json_num_shown(a, k[0]),
                                       .lo = json_num_shown(a, k[1]),
                                       .hi = json_num_shown(a, k[2]),
                                       .beta = json_num_shown(a, k[3]),
                                       .se = json_num_shown(a, k[4]) };
    }
    r->additivity_verdict = json_get_text(a, "verdict");
}

/* "pairs" of a file; -1 when out of memory. */
static int read_pairs(AblationRecord *r, const cJSON *pairs)
{
    r->has_pairs = cJSON_IsArray(pairs);
    if (!r->has_pairs)
        return 0;
    if (!(r->pairs = calloc((size_t)cJSON_GetArraySize(pairs) + 1, sizeof *r->pairs)))
        return -1;
    const cJSON *p;
    cJSON_ArrayForEach(p, pairs)
    {
        AblPairRecord *q = &r->pairs[r->npairs++];
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(p, "diff");
        json_get_u64(p, "opening", &q->opening);
        q->design = json_get_text(p, "design");
        q->diff = json_num_shown(p, "diff");
        q->ok = json_get_u64(p, "pair", &q->pair) && q->design && cJSON_IsNumber(y) && y->valuedouble >= -2 &&
                y->valuedouble <= 2 && y->valuedouble == floor(y->valuedouble);
    }
    return 0;
}

int ablation_record_from_json(AblationRecord *r, const cJSON *j, unsigned need, const char *path, char *err,
                              size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->status = json_get_text(j, "status");
    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(j, "fit");
    r->has_fit = cJSON_IsObject(fit);
    r->fit_pairs = json_num_shown(fit, "pairs");
    r->intercept = json_num_shown(fit, "intercept");
    r->intercept_se = json_num_shown(fit, "intercept_se");
    r->sigma = json_num_shown(fit, "sigma");
    r->fit_note = json_get_text(j, "fit_note");
    read_additivity(r, cJSON_GetObjectItemCaseSensitive(j, "additivity"));
    r->has_rounds = json_get_u64(j, "rounds", &r->rounds);
    json_get_u64(j, "rounds_asked", &r->rounds_asked);
    r->capped = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "capped"));
    r->tc = json_get_text(j, "tc");
    r->book = json_get_text(j, "book");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "openings");
    r->set = json_get_text(op, "set");
    r->openings_file = json_get_text(op, "file");
    json_get_u64(op, "count", &r->count);
    json_get_u64(op, "book_size", &r->book_size);
    r->claimed = json_get_u64(op, "held_out_first", &r->held_out_first) &&
                 json_get_u64(op, "held_out_count", &r->held_out_count);
    r->has_seed = json_get_u64(j, "seed", &r->seed);
    r->design = json_get_text(j, "design");
    /* A file of an older build has no whole pairs: its design goes on without them. */
    uint64_t every = 0;
    if (!json_get_u64(j, "whole_every", &every) || every > 1000)
        every = 0;
    r->whole_every = (unsigned)every;
    r->groups_spec = json_get_text(j, "groups_spec");
    r->tuned_file = json_get_text(j, "tuned_file");
    json_get_u64(j, "run_games", &r->run_games);
    r->tuned = cJSON_GetObjectItemCaseSensitive(j, "tuned");
    r->base = cJSON_GetObjectItemCaseSensitive(j, "base");
    r->has_games = json_get_u64(j, "games", &r->games);
    json_get_counts(j, "ptnml", r->ptnml, 5);
    const char *bad = "";
    r->has_forfeits = json_get_u64(j, "forfeit_pairs", &r->forfeit_pairs) &&
                      cJSON_GetObjectItemCaseSensitive(j, "forfeits") != NULL;
    if (r->has_forfeits && validate_forfeits_read(j, &r->forfeits, &bad) < 0) {
        r->has_forfeits = false; /* the pairs' results stand; continuing them refuses (below) */
        r->forfeits_bad = bad;
    }
    r->has_sessions = json_get_u64(j, "sessions", &r->sessions);
    r->created = json_get_text(j, "created");
    r->updated = json_get_text(j, "updated");
    if (read_groups(r, cJSON_GetObjectItemCaseSensitive(j, "groups")) < 0 ||
        read_pairs(r, cJSON_GetObjectItemCaseSensitive(j, "pairs")) < 0)
        return errmsg(err, errlen, "out of memory");
    if ((need & ABLREC_RESUME) && (!r->has_seed || !r->has_sessions || !r->created))
        return errmsg(err, errlen, "%s: \"seed\", \"sessions\" or \"created\" is missing; start over with -restart",
                      path);
    if ((need & ABLREC_PAIRS) && (!r->has_pairs || !r->design))
        return errmsg(err, errlen, "%s: \"pairs\" or \"design\" is missing; start over with -restart", path);
    if ((need & ABLREC_PAIRS) &&
        strcmp(r->design, r->whole_every ? ABLATION_DESIGN_WHOLE : ABLATION_DESIGN) != 0)
        return errmsg(err, errlen, "%s: a design this build does not draw (%s); start over with -restart", path,
                      r->design);
    if ((need & ABLREC_PAIRS) && r->forfeits_bad)
        return errmsg(err, errlen, "%s: \"forfeits\".%s is not a non-negative integer; start over with -restart",
                      path, r->forfeits_bad);
    if ((need & ABLREC_PAIRS) && r->has_forfeits &&
        (r->forfeit_pairs > r->npairs || validate_forfeits(&r->forfeits) > 2 * r->forfeit_pairs))
        return errmsg(err, errlen, "%s: \"forfeits\" count %llu games of %llu pairs, more than the %zu pairs played "
                      "hold; start over with -restart", path, (unsigned long long)validate_forfeits(&r->forfeits),
                      (unsigned long long)r->forfeit_pairs, r->npairs);
    if ((need & ABLREC_RESULT) && (!r->status || !cJSON_IsObject(r->tuned) || !cJSON_IsObject(r->base) ||
                                   !r->has_groups))
        return errmsg(err, errlen, "%s: not an ablation (\"status\", \"tuned\", \"base\" or \"groups\" is missing)",
                      path);
    return 0;
}

int ablation_record_pair_check(const AblationRecord *r, size_t i, const char *path, char *err, size_t errlen)
{
    return r->pairs[i].ok ? 0 : errmsg(err, errlen, "%s: a malformed entry in \"pairs\"; start over with -restart", path);
}

void ablation_record_free(AblationRecord *r)
{
    for (size_t g = 0; r->groups && g < r->ngroups; g++)
        free(r->groups[g].params);
    free(r->groups);
    free(r->pairs);
    r->groups = NULL;
    r->pairs = NULL;
    r->ngroups = r->npairs = 0;
}

const char *ablation_record_forfeit_text(const AblationRecord *r, char *buf, size_t len)
{
    if (!r->has_forfeits) {
        snprintf(buf, len, "its forfeits were not counted (a build that did not count them played it)");
        return buf;
    }
    uint64_t k = validate_forfeits(&r->forfeits);
    char why[160], of[96];
    validate_forfeit_text(&r->forfeits, why, sizeof why);
    if (r->forfeit_pairs == r->npairs)
        snprintf(of, sizeof of, "its %zu pairs", r->npairs);
    else
        snprintf(of, sizeof of, "%llu of its %zu pairs (a build that did not count them played the others)",
                 (unsigned long long)r->forfeit_pairs, r->npairs);
    if (k == 0)
        snprintf(buf, len, "no game ended by forfeit in %s", of);
    else
        snprintf(buf, len, "%llu game%s ended by forfeit (%s) in %s", (unsigned long long)k, k == 1 ? "" : "s", why,
                 of);
    return buf;
}
