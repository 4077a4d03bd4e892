/* For tools/bench/report.sh: a run directory of ROWS batches of NPARAMS
 * parameters, written by the run's own code (spsa, hist, runstate), with
 * game results drawn from a seeded RNG, so the report has a long, real-looking
 * history to draw.  Usage: reportgen DIR ROWS NPARAMS */
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rd.h"
#include "hist.h"
#include "state.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: reportgen DIR ROWS NPARAMS\n");
        return 2;
    }
    const char *dir = argv[1];
    unsigned long long rows = strtoull(argv[2], NULL, 10);
    size_t np = strtoul(argv[3], NULL, 10);
    char err[1024];
    if (rows == 0 || np == 0 || np > 200 || rd_mkdir_p(dir, err, sizeof err) < 0) {
        fprintf(stderr, "reportgen: bad arguments or directory\n");
        return 2;
    }
    SpsaParam *p = calloc(np, sizeof *p);
    for (size_t i = 0; i < np; i++) {
        snprintf(p[i].name, sizeof p[i].name, "Param%02zu", i);
        p[i].theta = p[i].start = 100;
        p[i].min = 0;
        p[i].max = 300;
        p[i].c_end = 8;
        p[i].r_end = 0.002;
    }
    RunState rs;
    runstate_init(&rs);
    SpsaConfig cfg;
    spsa_config_default(&cfg);
    spsa_config_set_games(&cfg, 2 * rows);
    if (spsa_init(&rs.spsa, p, np, &cfg, 1, err, sizeof err) < 0) {
        fprintf(stderr, "reportgen: %s\n", err);
        return 1;
    }
    snprintf(rs.engine, sizeof rs.engine, "Generated");
    snprintf(rs.tc, sizeof rs.tc, "5000 nodes");
    History h;
    if (hist_open(&h, dir, &rs.spsa, 0, err, sizeof err) < 0) {
        fprintf(stderr, "reportgen: %s\n", err);
        return 1;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    FILE *f = h.f;
    for (unsigned long long r = 1; r <= rows; r++) {
        SpsaBatch b;
        spsa_batch_begin(&rs.spsa, &b);
        /* the + engine wins more often when parameter 0 moves towards 130 */
        double edge = 0.02 * b.flip[0] * (130 - rs.spsa.params[0].theta) / 30;
        uint64_t w = 0, l = 0, d = 0;
        for (int g = 0; g < 2; g++) {
            double u = gsl_rng_uniform(rng);
            if (u < 0.3 + edge)
                w++;
            else if (u < 0.6)
                l++;
            else
                d++;
        }
        spsa_batch_apply_wld(&rs.spsa, &b, w, l, d);
        rs.games += 2;
        rs.ptnml[w * 2 + d > 4 ? 4 : w * 2 + d]++;
        HistRow row = { .row = r, .k = b.k, .games = rs.games, .wins = w, .losses = l, .draws = d,
                        .elapsed = 0.3 * (double)r };
        size_t len;
        char *text = hist_format_row(&row, &rs.spsa, &b, &len);
        fwrite(text, 1, len, f);
        free(text);
        spsa_batch_free(&b);
    }
    fflush(f);
    hist_close(&h);
    rs.elapsed = 0.3 * (double)rows;
    rs.sessions = 1;
    conf_set(&rs.conf, "engine", "cmd", "bin/ratchet", "reportgen");
    int rc = runstate_save(&rs, dir, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "reportgen: %s\n", err);
    gsl_rng_free(rng);
    runstate_free(&rs);
    free(p);
    return rc < 0;
}
