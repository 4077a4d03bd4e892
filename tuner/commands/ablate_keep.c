/* `export DIR -ablation keep=...`; see ablate_keep.h. */
#include "ablate_keep.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "ablation.h"
#include "errmsg.h"
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
static int add_prediction(cJSON *info, const cJSON *abl, bool keep_pays, bool keep_unclear, const char *keep)
{
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(abl, "groups"), *g;
    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(abl, "fit");
    const cJSON *pairs = cJSON_GetObjectItemCaseSensitive(fit, "pairs");
    double sum = 0, var = 0;
    int n = 0;
    cJSON_ArrayForEach(g, groups)
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(g, "verdict");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(g, "beta"), *se = cJSON_GetObjectItemCaseSensitive(g, "se");
        if (!cJSON_IsString(v) || !cJSON_IsNumber(b) || !cJSON_IsNumber(se) ||
            !((keep_pays && !strcmp(v->valuestring, "pays")) || (keep_unclear && !strcmp(v->valuestring, "unclear"))))
            continue;
        sum += b->valuedouble;
        var += se->valuedouble * se->valuedouble;
        n++;
    }
    double dof = cJSON_IsNumber(pairs) && pairs->valuedouble > (double)cJSON_GetArraySize(groups) + 2
                     ? pairs->valuedouble - (double)cJSON_GetArraySize(groups) - 1
                     : 1;
    double t = gsl_cdf_tdist_Pinv(0.975, dof), lo = sum - t * sqrt(var), hi = sum + t * sqrt(var);
    const cJSON *ad = cJSON_GetObjectItemCaseSensitive(abl, "additivity");
    const cJSON *gap_lo = cJSON_GetObjectItemCaseSensitive(ad, "gap_lo"), *gap_hi = cJSON_GetObjectItemCaseSensitive(ad, "gap_hi");
    const cJSON *gap = cJSON_GetObjectItemCaseSensitive(ad, "gap_elo");
    const char *support = !cJSON_IsObject(ad) ? "unchecked (the ablation has no whole pairs)"
                          : !cJSON_IsNumber(gap_lo) || !cJSON_IsNumber(gap_hi) ? "unchecked"
                          : gap_hi->valuedouble < 0 ? "not supported: the whole scored less than the sum"
                          : gap_lo->valuedouble > 0 ? "not supported: the whole scored more than the sum"
                                                     : "supported: the whole scored as the sum";
    cJSON *pr = cJSON_AddObjectToObject(info, "prediction");
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(abl, "tc");
    if (!pr || !cJSON_AddNumberToObject(pr, "groups", n) || !cJSON_AddNumberToObject(pr, "elo", ablation_elo(sum)) ||
        !cJSON_AddNumberToObject(pr, "elo_lo", ablation_elo(lo)) ||
        !cJSON_AddNumberToObject(pr, "elo_hi", ablation_elo(hi)) ||
        !cJSON_AddStringToObject(pr, "tc", cJSON_IsString(tc) ? tc->valuestring : "?") ||
        !cJSON_AddStringToObject(pr, "model", "additive: the sum of the kept groups' estimates") ||
        !cJSON_AddStringToObject(pr, "additivity", support))
        return -1;
    fprintf(stderr, "-ablation keep=%s: the %d kept %s %+.1f [%+.1f, %+.1f] Elo together at %s (the sum of "
            "their estimates); the additivity check: %s", keep, n, n == 1 ? "group predicts" : "groups predict",
            ablation_elo(sum),
            ablation_elo(lo), ablation_elo(hi), cJSON_IsString(tc) ? tc->valuestring : "?", support);
    if (cJSON_IsNumber(gap))
        fprintf(stderr, " (gap %+.1f Elo)", gap->valuedouble);
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
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(j, "status");
    const cJSON *tuned = cJSON_GetObjectItemCaseSensitive(j, "tuned"), *base = cJSON_GetObjectItemCaseSensitive(j, "base");
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(j, "groups"), *g;
    cJSON *p;
    cJSON *params = cJSON_GetObjectItemCaseSensitive(values, "params");
    cJSON *info = NULL, *kept = NULL, *reset = NULL;
    if (!cJSON_IsString(status) || !cJSON_IsObject(tuned) || !cJSON_IsObject(base) || !cJSON_IsArray(groups)) {
        rc = errmsg(err, errlen, "-ablation: %s: not an ablation (\"status\", \"tuned\", \"base\" or \"groups\" is "
                    "missing)", path);
        goto out;
    }
    if (strcmp(status->valuestring, "done") != 0) {
        rc = errmsg(err, errlen, "-ablation: the ablation in %s is not finished (%s): finish it with ratchet-tune "
                    "verify %s -ablate", path, status->valuestring, dir);
        goto out;
    }
    /* The values the ablation played must be the run's values now: not a
     * value file's (-tuned), nor those of the run before it moved on. */
    const cJSON *tuned_file = cJSON_GetObjectItemCaseSensitive(j, "tuned_file");
    if (cJSON_IsString(tuned_file) && tuned_file->valuestring[0]) {
        rc = errmsg(err, errlen, "-ablation: %s was played on the values of %s (verify -ablate -tuned), not on the "
                    "run's: it judges that file's moves, which export does not write; play the run's with "
                    "ratchet-tune verify %s -ablate -restart", path, tuned_file->valuestring, dir);
        goto out;
    }
    cJSON_ArrayForEach(p, params)
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(tuned, p->string);
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
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(base, p->string);
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
        cJSON_ArrayForEach(g, groups)
        {
            const cJSON *ps = cJSON_GetObjectItemCaseSensitive(g, "params"), *q;
            cJSON_ArrayForEach(q, ps)
            {
                if (cJSON_IsString(q) && !strcmp(q->valuestring, p->string)) {
                    const cJSON *n = cJSON_GetObjectItemCaseSensitive(g, "name");
                    const cJSON *v = cJSON_GetObjectItemCaseSensitive(g, "verdict");
                    in = cJSON_IsString(n) ? n->valuestring : "?";
                    verdict = cJSON_IsString(v) ? v->valuestring : NULL;
                }
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
    if (add_prediction(info, j, keep_pays, keep_unclear, keep) < 0)
        rc = errmsg(err, errlen, "out of memory");
out:
    cJSON_Delete(j);
    return rc;
}
