/* The morning view's one reader of a run directory: the state, history.csv
 * in one pass for the table or the charts and for which moves are real, the
 * validation files and verify.json; see morning.h. */
#include "morning.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rd.h"
#include "validate.h"
#include "verify_record.h"

/* history.csv: status's table or the report's charts, and the verdicts, in
 * one pass; without the file, the verdicts are of the state alone and only
 * hist_err says so. */
static void read_history(MorningRun *m)
{
    const SpsaState *st = &m->rs->spsa;
    HistVisitor vis[3];
    HistDataView table;
    HistScanView charts;
    MovesView moves;
    if (m->charts) {
        /* the averaging window starts after this k (iterate averaging: spsa.h) */
        uint64_t avg_k0 =
            st->cfg.average > 0 ? (uint64_t)floor((1 - st->cfg.average) * (double)st->cfg.iterations) : 0;
        vis[0] = histscan_visitor(&charts, HISTSCAN_BUCKETS, avg_k0, &m->hist);
    } else {
        vis[0] = hist_data_visitor(&table, st, &m->table);
    }
    vis[1] = hist_rate_visitor(&m->pace);
    size_t n = 2;
    m->verdicts = calloc(st->nparams + 1, sizeof *m->verdicts);
    if (m->verdicts)
        vis[n++] = morning_moves_visitor(&moves, m->rs, m->verdicts);
    int rc = hist_scan(m->dir, st, st->completed, vis, n, m->hist_err, sizeof m->hist_err);
    bool absent = rc < 0 && errno == ENOENT;
    if (rc < 0) {
        hist_data_free(&m->table);
        histscan_free(&m->hist);
        hist_rate_free(&m->pace);
    }
    m->hist.np = st->nparams;
    if (!m->verdicts)
        return;
    morning_moves_end(&moves, rc == 0, m->verdicts_err, sizeof m->verdicts_err);
    /* The value export writes: the average under an averaging form. */
    if (st->cfg.average > 0 && st->avg_count > 0)
        for (size_t i = 0; i < st->nparams; i++)
            moves_verdict_at(&m->verdicts[i], st->params[i].start, spsa_value(st, i));
    if (rc < 0)
        snprintf(m->verdicts_err, sizeof m->verdicts_err, "%s", absent ? "" : m->hist_err);
}

/* The validation points the state counts (a row it does not count yet is
 * played again on resume), and those at the user's limit. */
static void read_validation(MorningRun *m)
{
    const Validation *v = &m->rs->val;
    m->val_rc = validate_read(m->dir, &m->pts, &m->npts, m->val_err, sizeof m->val_err);
    if (m->val_rc == 0 && m->npts > v->done)
        m->npts = (size_t)v->done;
    if (v->has_limit)
        m->limit_rc = validate_read_limit(m->dir, &m->limit_pts, &m->nlimit, m->limit_err, sizeof m->limit_err);
}

static void read_verify(MorningRun *m)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", m->dir, VERIFY_FILE);
    m->has_verify = access(path, F_OK) == 0;
    if (m->has_verify)
        m->verify = rd_read_json(path, m->verify_err, sizeof m->verify_err);
    if (m->verify)
        verify_record_from_json(&m->verify_record, m->verify, false, NULL, NULL, 0);
}

static void read_all(MorningRun *m, const char *dir, const RunState *rs, MorningHistory what)
{
    m->dir = dir;
    m->rs = rs;
    m->charts = what == MORNING_CHARTS;
    m->holder = rd_lock_holder(dir);
    read_history(m);
    read_validation(m);
    read_verify(m);
}

void morning_read(MorningRun *m, const char *dir, const RunState *rs, MorningHistory what)
{
    memset(m, 0, sizeof *m);
    read_all(m, dir, rs, what);
}

int morning_load(MorningRun *m, const char *dir, MorningHistory what, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (runstate_load(&m->own, dir, err, errlen) < 0) {
        runstate_free(&m->own);
        return -1;
    }
    m->owns = true;
    read_all(m, dir, &m->own, what);
    return 0;
}

void morning_free(MorningRun *m)
{
    hist_data_free(&m->table);
    histscan_free(&m->hist);
    hist_rate_free(&m->pace);
    free(m->verdicts);
    free(m->pts);
    free(m->limit_pts);
    verify_record_free(&m->verify_record);
    cJSON_Delete(m->verify);
    if (m->owns)
        runstate_free(&m->own);
    memset(m, 0, sizeof *m);
}
