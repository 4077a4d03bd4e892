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

/* open(2) of a file that must be a regular file of its own name: never
 * through a symbolic link (O_NOFOLLOW), and a FIFO, device or directory is
 * refused without blocking on it (opened O_NONBLOCK, then fstat; the
 * descriptor is blocking again when returned).  flags are open(2)'s
 * (O_CLOEXEC is added), mode is for O_CREAT.  The descriptor, or -1 with
 * errno set (ENOENT when absent, as open(2) says) and *why a text for a
 * message: "a symbolic link: not followed", "not a regular file: not used",
 * or strerror(errno). */
int open_regular(const char *path, int flags, unsigned mode, const char **why);
/* A file the user names (a groups file, a value file), for reading: the
 * same checks, but a symbolic link is followed.  The descriptor, or -1 with
 * errno and *why as open_regular's. */
int open_user_file(const char *path, const char **why);
/* The same as a stream: mode "r" (read) or "a" (append, created if absent). */
FILE *fopen_regular(const char *path, const char *mode, const char **why);

#endif
