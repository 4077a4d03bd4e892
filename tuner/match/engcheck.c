/* The engine a run was started with; see engcheck.h. */
#include "engcheck.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "jsonget.h"

enum {
    BENCH_MS = 120000,  /* a bench may take a while on a loaded machine */
    QUIT_MS = 1000
};

/* The file execve would run: cmd as a path (relative to dir), or found in PATH. */
static int resolve(const EngineSpec *spec, char *out, size_t len)
{
    char cand[PATH_MAX * 2];
    if (strchr(spec->cmd, '/')) {
        if (spec->cmd[0] != '/' && spec->dir[0])
            snprintf(cand, sizeof cand, "%s/%s", spec->dir, spec->cmd);
        else
            snprintf(cand, sizeof cand, "%s", spec->cmd);
        return realpath(cand, out) && strlen(out) < len ? 0 : -1;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(cand, sizeof cand, "%.*s/%s", (int)n, n ? p : ".", spec->cmd);
        if (access(cand, X_OK) == 0 && realpath(cand, out))
            return 0;
        p += n + (p[n] == ':');
    }
    return -1;
}

bool engcheck_parse_bench(const char *line, unsigned long long *nodes)
{
    unsigned long long n, nps;
    char tail[2];
    if (sscanf(line, "%llu nodes %llu nps%1s", &n, &nps, tail) == 2) {
        *nodes = n;
        return true;
    }
    const char *s = strstr(line, "Nodes searched");
    if (s == line) {
        s += strlen("Nodes searched");
        while (*s == ' ')
            s++;
        if (*s == ':' && sscanf(s + 1, "%llu%1s", &n, tail) == 1) {
            *nodes = n;
            return true;
        }
    }
    return false;
}

int engcheck_measure(const EngineSpec *spec, EngineId *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (resolve(spec, out->path, sizeof out->path) < 0)
        return errmsg(err, errlen, "engine.cmd: cannot find the program '%s'", spec->cmd);
    struct stat st;
    if (stat(out->path, &st) < 0)
        return errmsg(err, errlen, "engine.cmd: %s: %s", out->path, strerror(errno));
    out->size = (long long)st.st_size;
    out->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;

    /* Started without the run's options: the signature of the build. */
    EngineLaunch l = { .name = spec->name, .cmd = spec->cmd, .argv = spec->argv, .dir = spec->dir,
                       .startup_ms = spec->startup_ms, .merge_stderr = true };
    EngineProc e;
    ep_init(&e, &l);
    char e2[512];
    if (ep_start(&e, e2, sizeof e2) < 0) {
        ep_destroy(&e);
        return errmsg(err, errlen, "engine.cmd: %s", e2);
    }
    snprintf(out->id_name, sizeof out->id_name, "%s", e.id_name);
    /* Commands are answered in order: readyok comes after bench's output
     * (at once from an engine that has no bench). */
    if (ep_send(&e, "bench") == 0 && ep_send(&e, "isready") == 0) {
        int64_t deadline = ep_now_ms() + BENCH_MS;
        const char *line;
        while (ep_read_line(&e, deadline, NULL, &line) == EP_LINE && strcmp(line, "readyok") != 0) {
            unsigned long long n;
            if (engcheck_parse_bench(line, &n)) {
                out->has_bench = true;
                out->bench = n;
            }
        }
    }
    ep_quit(&e, QUIT_MS);
    ep_destroy(&e);
    out->have = true;
    return 0;
}

#define APPEND(...)                                                                                       \
    do {                                                                                                  \
        if (n < len)                                                                                      \
            n += (size_t)snprintf(diff + n, len - n, "%s", count++ ? ", " : "");                          \
        if (n < len)                                                                                      \
            n += (size_t)snprintf(diff + n, len - n, __VA_ARGS__);                                        \
    } while (0)

int engcheck_compare(const EngineId *was, const EngineId *now, char *diff, size_t len)
{
    size_t n = 0;
    int count = 0;
    if (len)
        diff[0] = '\0';
    if (strcmp(was->id_name, now->id_name))
        APPEND("id name '%s' -> '%s'", was->id_name, now->id_name);
    if (strcmp(was->path, now->path))
        APPEND("program %s -> %s", was->path, now->path);
    if (was->size != now->size)
        APPEND("size %lld -> %lld bytes", was->size, now->size);
    if (was->mtime_ns != now->mtime_ns)
        APPEND("mtime %lld.%09lld -> %lld.%09lld", was->mtime_ns / 1000000000, was->mtime_ns % 1000000000,
               now->mtime_ns / 1000000000, now->mtime_ns % 1000000000);
    /* A record without a bench is not compared: older builds did not read
     * a bench printed to stderr (Stockfish's), so its absence there says
     * nothing about the engine. */
    if (was->has_bench && (!now->has_bench || was->bench != now->bench)) {
        char a[32] = "none", b[32] = "none";
        if (was->has_bench)
            snprintf(a, sizeof a, "%llu", was->bench);
        if (now->has_bench)
            snprintf(b, sizeof b, "%llu", now->bench);
        APPEND("bench signature %s -> %s", a, b);
    }
    return count;
}

/* Measure the engine of spec and compare it with *recorded (its path and
 * mtime not, when `moved`); `what` is the command that asks (for the
 * messages).  0 with *now set, or -1. */
static int check(const EngineId *recorded, const EngineSpec *spec, bool force, bool moved, const char *what,
                 EngineId *now, char *err, size_t errlen)
{
    if (engcheck_measure(spec, now, err, errlen) < 0)
        return -1;
    char diff[2 * PATH_MAX + 512];
    EngineId was = *recorded;
    if (moved && was.have) {
        if (strcmp(was.path, now->path) || was.mtime_ns != now->mtime_ns)
            fprintf(stderr, "ratchet-tune: note: the engine was named anew: %s -> %s (its path and mtime are not "
                            "compared; its id name, size and bench signature are)\n",
                    was.path, now->path);
        snprintf(was.path, sizeof was.path, "%s", now->path);
        was.mtime_ns = now->mtime_ns;
    }
    recorded = &was;
    if (!recorded->have) {
        if (!strcmp(what, "resume"))
            fprintf(stderr, "ratchet-tune: note: state.json has no record of its engine (written by an older build), "
                            "so the engine was not checked; recording %s ('%s') for the next resume\n",
                    now->path, now->id_name);
        else
            fprintf(stderr, "ratchet-tune: note: state.json has no record of its engine (written by an older build), "
                            "so the engine was not checked\n");
    } else if (engcheck_compare(recorded, now, diff, sizeof diff) > 0) {
        /* Only the mtime: a rebuild of the same source, or a change the
         * other marks do not see; the message says which marks agree. */
        bool only_mtime = !strcmp(recorded->id_name, now->id_name) && !strcmp(recorded->path, now->path) &&
                          recorded->size == now->size && recorded->has_bench == now->has_bench &&
                          (!recorded->has_bench || recorded->bench == now->bench);
        char hint[256] = "";
        if (only_mtime)
            snprintf(hint, sizeof hint,
                     "only its modification time changed: its %s are the same, as after a rebuild of the same "
                     "source (and after a change they do not show, as one to time management); ",
                     recorded->has_bench ? "id name, size and bench signature" : "id name and size");
        if (!force)
            return errmsg(err, errlen,
                          "engine.cmd: %s is not the engine this run was started with (%s); %s%s with -force "
                          "to continue with it anyway",
                          spec->cmd, diff, hint, what);
        fprintf(stderr, "ratchet-tune: warning: -force: continuing with a different engine %s (%s)\n", spec->cmd,
                diff);
    }
    return 0;
}

int engcheck_resume(EngineId *recorded, const EngineSpec *spec, bool force, bool moved, char *err, size_t errlen)
{
    EngineId now;
    if (check(recorded, spec, force, moved, "resume", &now, err, errlen) < 0)
        return -1;
    *recorded = now;
    return 0;
}

int engcheck_verify(const EngineId *recorded, const EngineSpec *spec, bool force, char *err, size_t errlen)
{
    EngineId now;
    return check(recorded, spec, force, false, "verify", &now, err, errlen);
}

cJSON *engcheck_to_json(const EngineId *id)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "id_name", id->id_name) && cJSON_AddStringToObject(o, "path", id->path)
              && cJSON_AddNumberToObject(o, "size", (double)id->size)
              && cJSON_AddNumberToObject(o, "mtime", (double)(id->mtime_ns / 1000000000))
              && cJSON_AddNumberToObject(o, "mtime_nsec", (double)(id->mtime_ns % 1000000000))
              && (!id->has_bench || cJSON_AddNumberToObject(o, "bench", (double)id->bench));
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* v is a count (json_count) of at most max. */
static bool whole(const cJSON *v, uint64_t max)
{
    uint64_t x;
    return json_count(v, &x) && x <= max;
}

int engcheck_from_json(EngineId *id, const cJSON *j, const char *origin, char *err, size_t errlen)
{
    memset(id, 0, sizeof *id);
    if (!j)
        return 0;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "id_name");
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(j, "path");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(j, "size");
    const cJSON *mtime = cJSON_GetObjectItemCaseSensitive(j, "mtime");
    const cJSON *nsec = cJSON_GetObjectItemCaseSensitive(j, "mtime_nsec");
    const cJSON *bench = cJSON_GetObjectItemCaseSensitive(j, "bench");
    if (!cJSON_IsObject(j) || !cJSON_IsString(name) || !cJSON_IsString(path) || !whole(size, 9000000000000000ULL)
        || !whole(mtime, 10000000000000ULL) || !whole(nsec, 999999999) || (bench && !whole(bench, 9000000000000000ULL)))
        return errmsg(err, errlen,
                      "%s: run.engine_check must hold id_name, path (strings), size, mtime, mtime_nsec and an optional "
                      "bench (non-negative integers)",
                      origin);
    snprintf(id->id_name, sizeof id->id_name, "%s", name->valuestring);
    snprintf(id->path, sizeof id->path, "%s", path->valuestring);
    id->size = (long long)size->valuedouble;
    id->mtime_ns = (long long)mtime->valuedouble * 1000000000LL + (long long)nsec->valuedouble;
    id->has_bench = bench != NULL;
    id->bench = bench ? (unsigned long long)bench->valuedouble : 0;
    id->have = true;
    return 0;
}
