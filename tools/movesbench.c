/* bin/ratchet-movesbench: measures, on the simulator (tuner/spsa/simulate.h,
 * where the truth is known), how well moves.h tells real moves from noise,
 * and whether exporting the start value of the moves it calls noise
 * (`export -keep-noise=start`) loses less Elo than exporting every value.
 *
 *   bin/ratchet-movesbench [-seeds N] [-games N] [-z X]
 *
 * Landscapes: 8 parameters, c_end 10, range [0, 400], of which half matter
 * (curvatures 1, 3, 6 and 12 Elo at one c_end from the optimum, as the
 * suite's far8 spreads them; quadratic, or with plateaus
 * of width 3 c_end) and half are flat (the games ignore them).  Starts: at the
 * optimum ("good") and 5 c_end from it on every parameter ("far").  Default
 * form, draw ratio and opening bias of the suite.  Prints, per case, the
 * median over the seeds of: the Elo loss exporting every value, the loss
 * with the start value for noise, the share of flat parameters called real,
 * the share of parameters that matter called real, and the coverage of the
 * optimum by the interval for the parameters that matter. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moves.h"
#include "simulate.h"
#include "spsa.h"

enum { NP = 8, MAXROWS = 200000 };

typedef struct {
    double *theta; /* rows x NP */
    size_t rows;
} Trace;

static void on_batch(void *ctx, const SpsaState *st)
{
    Trace *t = ctx;
    if (t->rows >= MAXROWS)
        return;
    for (size_t i = 0; i < NP; i++)
        t->theta[t->rows * NP + i] = st->params[i].theta;
    t->rows++;
}

int main(int argc, char **argv)
{
    int seeds = 25;
    unsigned long long games = 10000;
    double zthr = MOVES_Z;
    bool use_steps = true; /* -stat steps|signs: which z of moves.h calls a move real (moves.h uses steps) */
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-seeds"))
            seeds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-games"))
            games = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "-z"))
            zthr = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "-stat"))
            use_steps = !strcmp(argv[i + 1], "steps");
        else {
            fprintf(stderr, "usage: ratchet-movesbench [-seeds N] [-games N] [-z X]\n");
            return 2;
        }
    }
    if (seeds < 1 || seeds > 1000 || games < 100) {
        fprintf(stderr, "ratchet-movesbench: -seeds 1..1000, -games >= 100\n");
        return 2;
    }
    Trace tr = { .theta = malloc(sizeof(double) * MAXROWS * NP) };
    double *all = malloc(sizeof(double) * (size_t)seeds), *keep = malloc(sizeof(double) * (size_t)seeds),
           *fp = malloc(sizeof(double) * (size_t)seeds), *tp = malloc(sizeof(double) * (size_t)seeds),
           *cov = malloc(sizeof(double) * (size_t)seeds), *covsd = calloc((size_t)seeds, sizeof(double)),
           *covrw = calloc((size_t)seeds, sizeof(double)), *wsd = calloc((size_t)seeds, sizeof(double)),
           *wrw = calloc((size_t)seeds, sizeof(double)), *wbm = calloc((size_t)seeds, sizeof(double)),
           *wmv = calloc((size_t)seeds, sizeof(double)), *covmv = calloc((size_t)seeds, sizeof(double));
    const double nmatter = NP / 2;
    if (!tr.theta || !all || !keep || !fp || !tp || !cov)
        return 1;
    printf("| landscape | start | games | z | loss, every value | loss, start for noise | flat called real | "
           "matter called real | covers the optimum: moves.h / batch means / tail sd / tail steps | width in c_end, "
           "the same order |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (int land = 0; land < 2; land++)
        for (int far = 0; far < 2; far++) {
            double opt[NP], curv[NP], width[NP];
            SpsaParam p[NP];
            for (int i = 0; i < NP; i++) {
                bool matters = i % 2 == 0;
                opt[i] = 200;
                static const double CURV[4] = { 1, 3, 6, 12 };
                curv[i] = matters ? CURV[i / 2] : 0.0;
                width[i] = land ? 3.0 : 0.0;
                memset(&p[i], 0, sizeof p[i]);
                snprintf(p[i].name, sizeof p[i].name, "P%d", i);
                p[i].min = 0;
                p[i].max = 400;
                p[i].c_end = 10;
                p[i].r_end = 0.002;
                p[i].start = p[i].theta = far ? opt[i] + (i % 4 < 2 ? 50 : -50) : opt[i];
            }
            SimModel m = { .nparams = NP, .opt = opt, .curv = curv, .draw_ratio = SIM_DRAW_RATIO,
                           .opening_bias = SIM_OPENING_BIAS, .concurrency = 2, .width = land ? width : NULL };
            SpsaConfig cfg;
            spsa_config_default(&cfg);
            spsa_config_set_games(&cfg, games);
            for (int s = 0; s < seeds; s++) {
                tr.rows = 0;
                SimResult res;
                char err[256];
                if (sim_run_traced(p, NP, &cfg, &m, (uint64_t)s + 1, NULL, &res, NULL, on_batch, &tr, err,
                                   sizeof err) < 0) {
                    fprintf(stderr, "%s\n", err);
                    return 1;
                }
                double xall[NP], xkeep[NP];
                int nflat = 0, flat_real = 0, nmat = 0, mat_real = 0, covered = 0, cov_sd = 0, cov_rw = 0, cov_bm = 0;
                for (int i = 0; i < NP; i++) {
                    MoveVerdict v;
                    moves_judge(p[i].start, tr.theta + i, tr.rows, NP, &v);
                    bool real = fabs(use_steps ? v.z_steps : v.z_signs) > zthr;
                    xall[i] = floor(v.final + 0.5);
                    xkeep[i] = real ? xall[i] : p[i].start;
                    if (curv[i] == 0) {
                        nflat++;
                        flat_real += real;
                    } else {
                        nmat++;
                        mat_real += real;
                        covered += v.lo <= opt[i] && opt[i] <= v.hi;
                        /* batch means of theta over the tail (8 batches), their mean +/- t s.e. */
                        size_t tl = (size_t)ceil((double)tr.rows * MOVES_TAIL), per = tl / 8;
                        double bm[8] = { 0 };
                        for (int b = 0; b < 8 && per; b++) {
                            for (size_t k = 0; k < per; k++)
                                bm[b] += tr.theta[(tr.rows - 8 * per + (size_t)b * per + k) * NP + i];
                            bm[b] /= (double)per;
                        }
                        double bmm = gsl_stats_mean(bm, 1, 8);
                        double bmh = gsl_cdf_tdist_Pinv(0.975, 7) * gsl_stats_sd_m(bm, 1, 8, bmm) / sqrt(8.0);
                        cov_bm += fabs(bmm - opt[i]) <= bmh;
                        wbm[s] += 2 * bmh / nmatter;
                        /* candidates: the tail's mean +/- 2 sd of its values; the final value
                         * +/- 1.96 sqrt(sum of the tail's squared steps) */
                        size_t t0 = tr.rows - (size_t)ceil((double)tr.rows * MOVES_TAIL);
                        double mean = gsl_stats_mean(tr.theta + t0 * NP + i, NP, tr.rows - t0);
                        double sd = gsl_stats_sd_m(tr.theta + t0 * NP + i, NP, tr.rows - t0, mean);
                        cov_sd += fabs(mean - opt[i]) <= 2 * sd;
                        double ss = 0;
                        for (size_t k = t0 + 1; k < tr.rows; k++) {
                            double d = tr.theta[k * NP + i] - tr.theta[(k - 1) * NP + i];
                            ss += d * d;
                        }
                        cov_rw += fabs(v.final - opt[i]) <= 1.96 * sqrt(ss);
                        wsd[s] += 4 * sd / nmatter;
                        wrw[s] += 2 * 1.96 * sqrt(ss) / nmatter;
                        wmv[s] += (v.hi - v.lo) / nmatter;
                    }
                }
                all[s] = sim_elo_loss(&m, p, xall);
                keep[s] = sim_elo_loss(&m, p, xkeep);
                fp[s] = (double)flat_real / nflat;
                tp[s] = (double)mat_real / nmat;
                cov[s] = (double)cov_bm / nmat;
                covmv[s] = (double)covered / nmat;
                covsd[s] = (double)cov_sd / nmat;
                covrw[s] = (double)cov_rw / nmat;
            }
            double mfp = gsl_stats_mean(fp, 1, (size_t)seeds), mtp = gsl_stats_mean(tp, 1, (size_t)seeds),
                   mcov = gsl_stats_mean(cov, 1, (size_t)seeds);
            printf("| %s | %s | %llu | %.1f | %.2f | %.2f | %.0f%% | %.0f%% | %.0f%% / %.0f%% / %.0f%% / %.0f%% | %.1f / %.1f / %.1f / %.1f |\n",
                   land ? "plateaus (w=3)" : "quadratic", far ? "far (5 c_end)" : "at the optimum", games, zthr,
                   gsl_stats_median(all, 1, (size_t)seeds), gsl_stats_median(keep, 1, (size_t)seeds), 100 * mfp,
                   100 * mtp,
                   100 * gsl_stats_mean(covmv, 1, (size_t)seeds), 100 * mcov,
                   100 * gsl_stats_mean(covsd, 1, (size_t)seeds), 100 * gsl_stats_mean(covrw, 1, (size_t)seeds),
                   gsl_stats_median(wmv, 1, (size_t)seeds) / 10, gsl_stats_median(wbm, 1, (size_t)seeds) / 10,
                   gsl_stats_median(wsd, 1, (size_t)seeds) / 10, gsl_stats_median(wrw, 1, (size_t)seeds) / 10);
            fflush(stdout);
        }
    free(tr.theta);
    free(all);
    free(keep);
    free(fp);
    free(tp);
    free(cov);
    return 0;
}
