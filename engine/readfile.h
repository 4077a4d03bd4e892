/* Reading a whole file into memory: the one reader behind the value files
 * (paramfile.c), the specs, the PGN and the run directory's files. */
#ifndef RATCHET_READFILE_H
#define RATCHET_READFILE_H

#include <stddef.h>
#include <stdio.h>

/* The rest of the stream f, NUL-terminated (free it), its length in *len
 * (len may be NULL).  NULL, with errno set, on a read error; errno is
 * ENOMEM when out of memory and EFBIG when the stream holds more than max
 * bytes (max 0: any size). */
char *read_stream(FILE *f, size_t max, size_t *len);

#endif
