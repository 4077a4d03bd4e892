/* A duration as people read it: in progress lines "7s", "3m05s", "2h10m";
 * in the report's tables with minutes always shown ("0m07s") or in full
 * ("0h00m07s"). */
#ifndef RATCHET_DURATION_H
#define RATCHET_DURATION_H

#include <stddef.h>

/* s seconds, rounded to the second, into buf; "?" when s is negative, not a
 * number or beyond 1e8 seconds (an ETA that cannot be estimated). */
void duration_format(double s, char *buf, size_t len);

typedef enum {
    DURATION_SHORT,   /* "7s", "3m05s", "2h10m": duration_format */
    DURATION_MINUTES, /* "0m07s", "3m05s", "2h10m" */
    DURATION_FULL     /* "0h00m07s", "2h10m00s" */
} DurationForm;
/* The same in the given form. */
void duration_format_as(double s, DurationForm form, char *buf, size_t len);

#endif
