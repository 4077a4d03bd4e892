/* `export DIR -ablation keep=...`; see ablate_keep.h. */
#include "ablate_keep.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "ablation.h"
#include "ablation_record.h"
#include "elotext.h"
#include "errmsg.h"
#include "jsonget.h"
#include "rd.h"

/* "pays" or "pays,unclear" -> which verdicts keep. */
static int parse_keep(const char *keep, bool *pays, bool *unclear, char *err, size_t errlen)
{
    *pays = *unclear = false;
    char buf[64];
    if (!keep || strlen(keep) >= sizeof buf)
        return errmsg(err, errlen, "-ablation keep=%s: expected keep=pays or keep=pays,unclear", keep ? keep : "");
    snprintf(buf, sizeof buf, "%s", keep);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "pays"))
            *pays = true;
        else if (!strcmp(t, "unclear"))
            *unclear = true;
        else
            return errmsg(err, errlen, "-ablation keep=%s: '%s' is not a verdict to keep (pays, unclear; a group "
                          "that costs is never kept)", keep, t);
    }
    if (!*pays)
        return errmsg(err, errlen, "-ablation keep=%s: expected keep=pays or keep=pays,unclear", keep);
    return 0;
}

static cJSON *names_array(cJSON *parent, const char *key)
{
    cJSON *a = cJSON_CreateArray();
    if (a && !cJSON_AddItemToObject(parent, key, a)) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

/* What the kept groups predict together: the sum of their estimates (the
 * groups' estimates are nearly uncorrelated under the balanced design, so
 * its variance is the sum of theirs), as Elo at the ablation's limit, and
 * whether the ablation's additivity check supports adding them. */
static int add_prediction(cJSON *info, const AblationRecord *abl, bool keep_pays, bool keep_unclear, const char *keep)
{
    double sum = 0, var = 0;
    int n = 0;
    for (size_t g = 0; g < abl->ngroups; g++) {
        const AblGroupRecord *gr = &abl->groups[g];
        const char *v = gr->verdict;
        if (!v || isnan(gr->eff.beta) || isnan(gr->eff.se) ||
            !((keep_pays && !strcmp(v, "pays")) || (keep_unclear && !strcmp(v, "unclear"))))
            continue;
        sum += gr->eff.beta;
        var += gr->eff.se * gr->eff.se;
        n++;
    }
    if (n == 0) {
        /* The values are the start values: nothing to predict or confirm. */
        fprintf(stderr, "-ablation keep=%s: no group kept: every moved parameter is at its start value\n", keep);
        return 0;
    }
    double pairs = abl->fit_pairs;
    double dof = !isnan(pairs) && pairs > (double)abl->ngroups + 2 ? pairs - (double)abl->ngroups - 1 : 1;
    double t = gsl_cdf_tdist_Pinv(0.975, dof), lo = sum - t * sqrt(var), hi = sum + t * sqrt(var);
    const AblTermRecord *gap = &abl->terms[ABL_TERM_GAP];
    const char *support = !abl->has_additivity ? "unchecked (the ablation has no whole pairs)"
                          : isnan(gap->lo) || isnan(gap->hi) ? "unchecked"
                          : gap->hi < 0 ? "not supported: the whole scored less than the sum"
                          : gap->lo > 0 ? "not supported: the whole scored more than the sum"
                                        : "supported: the gap between the whole and the sum holds 0";
    cJSON *pr = cJSON_AddObjectToObject(info, "prediction");
    const char *tc = json_shown(abl->tc);
    if (!pr || !cJSON_AddNumberToObject(pr, "groups", n) || !cJSON_AddNumberToObject(pr, "elo", ablation_elo(sum)) ||
        !cJSON_AddNumberToObject(pr, "elo_lo", ablation_elo(lo)) ||
        !cJSON_AddNumberToObject(pr, "elo_hi", ablation_elo(hi)) || !cJSON_AddStringToObject(pr, "tc", tc) ||
        !cJSON_AddStringToObject(pr, "model", "additive: the sum of the kept groups' estimates") ||
        !cJSON_AddStringToObject(pr, "additivity", support))
        return -1;
    fprintf(stderr, "-ablation keep=%s: the %d kept %s %+.1f [%+.1f, %+.1f] Elo together at %s (the sum of "
            "their estimates); the additivity check: %s", keep, n, n == 1 ? "group predicts" : "groups predict",
            elo_no_minus_zero(ablation_elo(sum), 1), elo_no_minus_zero(ablation_elo(lo), 1),
            elo_no_minus_zero(ablation_elo(hi), 1), tc, support);
    if (!isnan(gap->elo))
        fprintf(stderr, " (gap %+.1f [%+.1f, %+.1f] Elo)", elo_no_minus_zero(gap->elo, 1),
                elo_no_minus_zero(gap->lo, 1), elo_no_minus_zero(gap->hi, 1));
    fputc('\n', stderr);
    return 0;
}

int ablate_keep(const char *dir, const RunState *rs, cJSON *values, const char *keep, char *err, size_t errlen)
{
    bool keep_pays, keep_unclear;
    if (parse_keep(keep, &keep_pays, &keep_unclear, err, errlen) < 0)
        return -1;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, ABLATION_FILE);
    char e2[PATH_MAX + 256];
    cJSON *j = rd_read_json(path, e2, sizeof e2);
    if (!j)
        return errmsg(err, errlen, "-ablation: %s (play the ablation first: ratchet-tune verify %s -ablate)", e2,
                      dir);
    int rc = 0;
    AblationRecord abl;
    cJSON *p;
    cJSON *params = cJSON_GetObjectItemCaseSensitive(values, "params");
    cJSON *info = NULL, *kept = NULL, *reset = NULL;
    if (ablation_record_from_json(&abl, j, ABLREC_RESULT, path, e2, sizeof e2) < 0) {
        rc = errmsg(err, errlen, "-ablation: %s", e2);
        goto out;
    }
    if (strcmp(abl.status, "done") != 0) {
        rc = errmsg(err, errlen, "-ablation: the ablation in %s is not finished (%s): finish it with ratchet-tune "
                    "verify %s -ablate", path, abl.status, dir);
        goto out;
    }
    /* The values the ablation played must be the run's values now: not a
     * value file's (-tuned), nor those of the run before it moved on. */
    if (abl.tuned_file && abl.tuned_file[0]) {
        rc = errmsg(err, errlen, "-ablation: %s was played on the values of %s (verify -ablate -tuned), not on the "
                    "run's: it judges that file's moves, which export does not write; play the run's with "
                    "ratchet-tune verify %s -ablate -restart", path, abl.tuned_file, dir);
        goto out;
    }
    cJSON_ArrayForEach(p, params)
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(abl.tuned, p->string);
        if (!cJSON_IsNumber(t) || t->valuedouble != p->valuedouble) {
            rc = errmsg(err, errlen, "-ablation: %s was played on other values (%s: %g then, %g now): the run has "
                        "moved on; play it again with ratchet-tune verify %s -ablate", path, p->string,
                        cJSON_IsNumber(t) ? t->valuedouble : 0.0, p->valuedouble, dir);
            goto out;
        }
    }
    info = cJSON_AddObjectToObject(values, "ablation");
    if (!info || !cJSON_AddStringToObject(info, "keep", keep) || !(kept = names_array(info, "kept")) ||
        !(reset = names_array(info, "start"))) {
        rc = errmsg(err, errlen, "out of memory");
        goto out;
    }
    /* Every moved parameter goes back to its start unless a kept group holds it. */
    cJSON_ArrayForEach(p, params)
    {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(abl.base, p->string);
        char why[256];
        if (!cJSON_IsNumber(b)) {
            rc = errmsg(err, errlen, "-ablation: %s: base: %s is %s; play the ablation again with ratchet-tune verify "
                        "%s -ablate -restart", path, p->string, b ? "not a number" : "missing", dir);
            goto out;
        }
        if (runstate_check_value(rs, p->string, b->valuedouble, why, sizeof why) < 0) {
            rc = errmsg(err, errlen, "-ablation: %s: base: %s; play the ablation again with ratchet-tune verify %s "
                        "-ablate -restart", path, why, dir);
            goto out;
        }
        if (b->valuedouble == p->valuedouble)
            continue;
        const char *in = NULL, *verdict = NULL;
        for (size_t g = 0; g < abl.ngroups; g++) {
            const AblGroupRecord *gr = &abl.groups[g];
            for (size_t k = 0; k < gr->nparams; k++)
                if (gr->params[k] && !strcmp(gr->params[k], p->string)) {
                    in = json_shown(gr->name);
                    verdict = gr->verdict;
                }
        }
        if (in && !verdict) {
            rc = errmsg(err, errlen, "-ablation: %s: group %s has no verdict (too few pairs for an estimate)", path,
                        in);
            goto out;
        }
        bool keep_it = in && ((keep_pays && !strcmp(verdict, "pays")) || (keep_unclear && !strcmp(verdict, "unclear")));
        if (keep_it) {
            cJSON_AddItemToArray(kept, cJSON_CreateString(p->string));
            continue;
        }
        if (in)
            fprintf(stderr, "-ablation keep=%s: %s at its start value %g (tuned %g; group %s %s)\n", keep, p->string,
                    b->valuedouble, p->valuedouble, in, verdict);
        else
            fprintf(stderr, "-ablation keep=%s: %s at its start value %g (tuned %g; in no group, not judged)\n", keep,
                    p->string, b->valuedouble, p->valuedouble);
        cJSON_AddItemToArray(reset, cJSON_CreateString(p->string));
        cJSON_SetNumberValue(p, b->valuedouble);
    }
    fprintf(stderr, "-ablation keep=%s: %d moved parameter%s kept at the tuned value, %d at the start value\n", keep,
            cJSON_GetArraySize(kept), cJSON_GetArraySize(kept) == 1 ? "" : "s", cJSON_GetArraySize(reset));
    if (add_prediction(info, &abl, keep_pays, keep_unclear, keep) < 0)
        rc = errmsg(err, errlen, "out of memory");
out:
    ablation_record_free(&abl);
    cJSON_Delete(j);
    return rc;
}
