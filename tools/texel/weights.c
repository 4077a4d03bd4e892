/* The weight table and the header writer; see weights.h. */
#include "weights.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "rd.h"

const WeightInfo texel_weights[] = {
#define EVAL_W(name, mg, eg, what) {#name, WK_TAPERED, mg, eg, what, EW_##name},
#define EVAL_REF(name, mg, eg, what) {#name, WK_REFERENCE, mg, eg, what, EW_##name},
#define EVAL_FLAT(name, value, what) {#name, WK_FLAT, value, value, what, EW_##name},
#define EVAL_SHAPE(name, value, what) {#name, WK_SHAPE, value, value, what, -1},
#include "eval_weights.h"
#undef EVAL_W
#undef EVAL_REF
#undef EVAL_FLAT
#undef EVAL_SHAPE
};
const size_t texel_nweights = sizeof texel_weights / sizeof texel_weights[0];

const WeightInfo *texel_weight(int i)
{
    for (size_t k = 0; k < texel_nweights; k++)
        if (texel_weights[k].index == i)
            return &texel_weights[k];
    return NULL;
}

/* The part of the header before the Source line. */
static const char preamble[] =
    "/* engine/eval_weights.h: every weight of the evaluation (engine/eval.c).\n"
    " * Written by bin/ratchet-texel (tools/texel/); a refit rewrites this file and\n"
    " * a rebuild takes it in.  Hand edits are fine if they keep the form.\n"
    " *\n"
    " *   EVAL_W(Name, mg, eg, \"what\")    tapered, the evaluation is linear in it: fitted\n"
    " *   EVAL_REF(Name, mg, eg, \"what\")  tapered and linear, but a reference level that\n"
    " *                                   another weight already spans: kept unless freed\n"
    " *   EVAL_FLAT(Name, value, \"what\")  linear, not tapered: fitted\n"
    " *   EVAL_SHAPE(Name, value, \"what\") the evaluation is not linear in it: never fitted\n"
    " *\n"
    " * Centipawns, mg = midgame, eg = endgame; a term adds weight * count for\n"
    " * each side (a penalty is a negative weight).\n";

/* The Source line: " * Source: " and the text, continued on " * " lines,
 * broken at spaces so that a line has at most SOURCE_WIDTH columns (a word
 * longer than that is not broken).  Reading each "\n * " between the lines
 * as one space gives the text back.  Line breaks in the text become spaces,
 * and a slash after a star gets a space before it, so nothing ends the
 * comment.  0, or -1 when out of memory. */
enum { SOURCE_WIDTH = 78 };

static int put_source(FILE *f, const char *source)
{
    char *text = malloc(2 * strlen(source) + 1);
    if (!text)
        return -1;
    size_t len = 0;
    for (const char *s = source; *s; s++) {
        if (*s == '\n' || *s == '\r') {
            text[len++] = ' ';
        } else if (*s == '/' && s > source && s[-1] == '*') {
            text[len++] = ' ';
            text[len++] = '/';
        } else {
            text[len++] = *s;
        }
    }
    text[len] = '\0';

    static const char first[] = " * Source: ", next[] = "\n * ";
    fputs(first, f);
    size_t col = sizeof first - 1;
    bool line_start = true;
    for (const char *w = text;;) {
        size_t n = strcspn(w, " ");
        if (!line_start && col + 1 + n > SOURCE_WIDTH) {
            fputs(next, f);
            col = sizeof next - 2;
        } else if (!line_start) {
            fputc(' ', f);
            col++;
        }
        fwrite(w, 1, n, f);
        col += n;
        line_start = false;
        if (!w[n])
            break;
        w += n + 1;
    }
    fputc('\n', f);
    free(text);
    return 0;
}

char *texel_header_text(const int *mg, const int *eg, const char *source)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputs(preamble, f);
    if (put_source(f, source ? source : "?") != 0) {
        fclose(f);
        free(buf);
        return NULL;
    }
    fputs(" */\n", f);
    for (size_t k = 0; k < texel_nweights; k++) {
        const WeightInfo *w = &texel_weights[k];
        switch (w->kind) {
        case WK_TAPERED:
        case WK_REFERENCE:
            fprintf(f, "%s(%s, %d, %d, \"%s\")\n", w->kind == WK_TAPERED ? "EVAL_W" : "EVAL_REF", w->name,
                    mg[w->index], eg[w->index], w->what);
            break;
        case WK_FLAT:
            fprintf(f, "EVAL_FLAT(%s, %d, \"%s\")\n", w->name, mg[w->index], w->what);
            break;
        case WK_SHAPE:
            fprintf(f, "EVAL_SHAPE(%s, %d, \"%s\")\n", w->name, w->mg, w->what);
            break;
        }
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int texel_header_write(const char *path, const int *mg, const int *eg, const char *source, char *err,
                       size_t errlen)
{
    char *text = texel_header_text(mg, eg, source);
    if (!text)
        return errmsg(err, errlen, "%s: out of memory", path);
    int rc = rd_write_atomic(path, text, strlen(text), err, errlen);
    free(text);
    return rc;
}
