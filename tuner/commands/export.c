/* Value files from runs; see export.h. */
#include "cli.h"
#include "export.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundir.h"

cJSON *export_values(const RunState *rs, const char *run_name)
{
    char date[32];
    rd_now_iso(date, sizeof date);
    cJSON *o = cJSON_CreateObject();
    cJSON *params = o ? cJSON_AddObjectToObject(o, "params") : NULL;
    bool ok = params != NULL;
    for (size_t i = 0; ok && i < rs->norder; i++) {
        double v;
        if (runstate_value(rs, rs->order[i], &v, NULL) == 0)
            ok = cJSON_AddNumberToObject(params, rs->order[i], v) != NULL;
    }
    ok = ok && cJSON_AddStringToObject(o, "source", "ratchet-tune") && cJSON_AddStringToObject(o, "run", run_name) &&
         cJSON_AddNumberToObject(o, "games", (double)rs->games) && cJSON_AddStringToObject(o, "date", date) &&
         cJSON_AddStringToObject(o, "engine", rs->engine) && cJSON_AddStringToObject(o, "tc", rs->tc);
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

static const char EXPORT_USAGE[] =
    "usage: ratchet-tune export DIR [-o FILE]\n"
    "\n"
    "Writes the value file of the run in DIR: {\"params\": {NAME: value, ...}, \"source\",\n"
    "\"run\", \"games\", \"date\", \"engine\", \"tc\"}, with every parameter of the run's spec:\n"
    "the tuned ones at theta rounded to the nearest integer (the iterate average when the\n"
    "run was started with -spsa average=F; float parameters unrounded, as JSON numbers),\n"
    "the others at their spec value.  Works during a run too (it reads the last saved\n"
    "state).  Without -o, the file goes to stdout; with -o,\n"
    "FILE (and its directory) is created, or replaced atomically.  Then:\n"
    "    make PARAMS=FILE             bin/ratchet with the values baked in\n"
    "    bin/ratchet --params FILE    the runtime engine with the values\n";

int export_main(int argc, char **argv)
{
    const char *dir, *outfile;
    int rc0 = cli_dir_output(argc, argv, EXPORT_USAGE, &dir, &outfile);
    if (rc0 >= 0)
        return rc0;
    RunState rs;
    char err[1024];
    if (runstate_load(&rs, dir, err, sizeof err) < 0) {
        fprintf(stderr, "ratchet-tune: export: %s\n", err);
        return 1;
    }
    char abs[PATH_MAX];
    rd_abs_path(dir, abs, sizeof abs);
    size_t l = strlen(abs);
    while (l > 1 && abs[l - 1] == '/')
        abs[--l] = '\0';
    const char *name = strrchr(abs, '/') ? strrchr(abs, '/') + 1 : abs;
    cJSON *j = export_values(&rs, name);
    runstate_free(&rs);
    if (!j) {
        fprintf(stderr, "ratchet-tune: export: out of memory\n");
        return 1;
    }
    int rc = 0;
    if (!outfile) {
        char *s = cJSON_Print(j);
        if (s)
            printf("%s\n", s);
        rc = s ? 0 : 1;
        free(s);
    } else {
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s", outfile);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent) {
            *slash = '\0';
            if (rd_mkdir_p(parent, err, sizeof err) < 0)
                rc = 1;
        }
        if (rc == 0 && rd_write_json(outfile, j, err, sizeof err) < 0)
            rc = 1;
        if (rc)
            fprintf(stderr, "ratchet-tune: export: %s\n", err);
        else
            fprintf(stderr, "wrote %s\n", outfile);
    }
    cJSON_Delete(j);
    return rc;
}
