/* Probe an engine's UCI options; see probe.h.  The handshake itself is
 * engine_proc's: the lines it reads are captured through its log. */
#include "probe.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "uciopt.h"

enum { PROBE_QUIT_MS = 1000 };

int probe_parse_option(const char *line, ProbeOption *o)
{
    memset(o, 0, sizeof *o);
    const char *p = strstr(line, "option name ");
    if (!p)
        return -1;
    p += strlen("option name ");
    const char *t = strstr(p, " type ");
    if (!t)
        return -1;
    /* The name is the words between `name` and `type`. */
    char raw[256];
    size_t n = (size_t)(t - p);
    if (n >= sizeof raw)
        return -1;
    memcpy(raw, p, n);
    raw[n] = '\0';
    if (uciopt_words(raw, o->name, sizeof o->name) < 0 || !o->name[0])
        return -1;
    t += strlen(" type ");
    if (sscanf(t, "%15s", o->type) != 1)
        return -1;
    const char *m;
    if ((m = strstr(t, " min ")) && sscanf(m + 5, "%lld", &o->min) == 1)
        o->has_min = true;
    if ((m = strstr(t, " max ")) && sscanf(m + 5, "%lld", &o->max) == 1)
        o->has_max = true;
    return 0;
}

static int add_option(ProbeResult *r, const ProbeOption *o)
{
    ProbeOption *nv = realloc(r->opts, (r->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    r->opts = nv;
    r->opts[r->n++] = *o;
    return 0;
}

int probe_engine(const EngineSpec *spec, ProbeResult *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    EpLog log;
    memset(&log, 0, sizeof log);
    log.f = open_memstream(&text, &len);
    if (!log.f)
        return errmsg(err, errlen, "out of memory");
    pthread_mutex_init(&log.mu, NULL);
    log.t0 = ep_now_ms();
    EngineLaunch l = { .name = spec->name, .cmd = spec->cmd, .argv = spec->argv, .dir = spec->dir,
                       .opts = spec->opts, .nopts = spec->nopts, .startup_ms = spec->startup_ms, .log = &log };
    EngineProc e;
    ep_init(&e, &l);
    int rc = ep_start(&e, err, errlen);
    if (rc == 0)
        snprintf(out->id_name, sizeof out->id_name, "%s", e.id_name);
    ep_quit(&e, PROBE_QUIT_MS);
    ep_destroy(&e);
    ep_log_close(&log);
    if (rc == 0 && !text) {
        errmsg(err, errlen, "out of memory");
        rc = -1;
    }
    /* Log lines read from the engine look like "[t] <NAME: option name ...". */
    char prefix[80];
    snprintf(prefix, sizeof prefix, "<%s: option name ", spec->name);
    for (char *line = text, *nl; rc == 0 && line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *at = strstr(line, prefix);
        ProbeOption o;
        if (at && probe_parse_option(at + strlen(prefix) - strlen("option name "), &o) == 0 && add_option(out, &o) < 0) {
            errmsg(err, errlen, "out of memory");
            rc = -1;
        }
    }
    free(text);
    if (rc < 0)
        probe_free(out);
    return rc;
}

const ProbeOption *probe_find(const ProbeResult *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (uciopt_same(r->opts[i].name, name))
            return &r->opts[i];
    return NULL;
}

const ProbeOption *probe_nearest(const ProbeResult *r, const char *name)
{
    const ProbeOption *best = NULL;
    int best_d = 0;
    for (size_t i = 0; i < r->n; i++) {
        int d = name_distance(name, r->opts[i].name);
        if (!best || d < best_d) {
            best = &r->opts[i];
            best_d = d;
        }
    }
    return best;
}

void probe_free(ProbeResult *r)
{
    free(r->opts);
    memset(r, 0, sizeof *r);
}
