/* A duration as people read it in progress lines: "7s", "3m05s", "2h10m". */
#ifndef RATCHET_DURATION_H
#define RATCHET_DURATION_H

#include <stddef.h>

/* s seconds, rounded to the second, into buf; "?" when s is negative, not a
 * number or beyond 1e8 seconds (an ETA that cannot be estimated). */
void duration_format(double s, char *buf, size_t len);

#endif
