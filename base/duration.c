/* Durations as people read them (see duration.h). */
#include "duration.h"

#include <math.h>
#include <stdio.h>

void duration_format_as(double s, DurationForm form, char *buf, size_t len)
{
    if (!(s >= 0) || s > 1e8) {
        snprintf(buf, len, "?");
        return;
    }
    long t = lround(s);
    if (form == DURATION_FULL)
        snprintf(buf, len, "%ldh%02ldm%02lds", t / 3600, t / 60 % 60, t % 60);
    else if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60 || form == DURATION_MINUTES)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

void duration_format(double s, char *buf, size_t len)
{
    duration_format_as(s, DURATION_SHORT, buf, len);
}
