/* The files of a run directory, safely: creating the directory, the lock
 * that keeps a second process out, and files replaced atomically (a
 * temporary file, fsync, rename, then fsync of the directory), so a reader
 * or a crash sees either the old or the new content, never a mix. */
#ifndef RATCHET_RD_H
#define RATCHET_RD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#define RUNDIR_LOCK "lock"

/* mkdir -p.  0, or -1 with a message naming the directory. */
int rd_mkdir_p(const char *dir, char *err, size_t errlen);
/* rm -r without a shell: the tree at dir, depth first, links removed and
 * not followed.  An absent dir is no error.  0, or -1 with a message
 * naming what could not be removed.  One thread at a time (nftw's
 * callback has no context, so the failure is kept in a static). */
int rd_remove_tree(const char *dir, char *err, size_t errlen);

enum { RD_ABSENT, RD_EMPTY, RD_NONEMPTY };
/* A night's plan (`ratchet-tune night`, night.h), written before its run:
 * a directory that holds only these counts as empty for a new run. */
#define RD_NIGHT_FILE "night.json"
#define RD_NIGHT_SUB "night"
/* RD_ABSENT, RD_EMPTY (nothing in it but a night's plan), RD_NONEMPTY, or
 * -1 with a message (not a directory, unreadable). */
int rd_dir_state(const char *dir, char *err, size_t errlen);

/* Take DIR/lock: an exclusive flock(2) on a file holding our pid.  A lock
 * that is a symbolic link, not a regular file, or a file with other names
 * (hard links) is refused, never truncated.  The lock
 * dies with the process (also on SIGKILL), so a stale lock file never blocks
 * a later run.  The descriptor is close-on-exec, so engines do not inherit
 * it.  Returns the descriptor, or -1 with a message naming the process that
 * holds it. */
int rd_lock(const char *dir, char *err, size_t errlen);
void rd_unlock(int fd);
/* The pid of the process holding DIR/lock, 0 if nobody does (or it cannot
 * be told). */
pid_t rd_lock_holder(const char *dir);

/* Create the temporary file tmp for writing: a stale one (a file or a
 * symbolic link planted there) is removed first, then tmp is created with
 * O_EXCL | O_NOFOLLOW, so no other file is ever written through it.  The
 * descriptor, or -1 with a message. */
int rd_create_temp(const char *tmp, char *err, size_t errlen);
/* Open a run directory file for appending (created when create is set), not
 * through a symbolic link and only if it is a regular file.  The
 * descriptor, or -1 with a message naming path. */
int rd_open_append(const char *path, bool create, char *err, size_t errlen);

/* A directory inside a run directory (snapshots/, verify/...): created if
 * absent; it must be a directory, not a symbolic link to one.  0, or -1
 * with a message naming it. */
int rd_mkdir_sub(const char *dir, char *err, size_t errlen);
/* The same, and the directory opened (O_DIRECTORY | O_NOFOLLOW): files
 * written through the descriptor (rd_write_json_at) land in the directory
 * that was checked, whatever replaces its path meanwhile.  The descriptor
 * (close it), or -1 with a message. */
int rd_open_sub(const char *dir, char *err, size_t errlen);
/* The same check without creating it: 0 when dir is absent or a directory,
 * -1 with a message when it is a symbolic link or anything else. */
int rd_sub_check(const char *dir, char *err, size_t errlen);

/* Replace path with data atomically (path.tmp, fsync, rename, fsync dir);
 * the temporary file created as rd_create_temp does, in the directory
 * opened once, so the rename cannot land elsewhere.  A path that is a symbolic
 * link, a FIFO or anything but a regular file is refused, not replaced. */
int rd_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen);
/* The same through path.tmp.PID, for a file that two processes may replace
 * at once (a run and `ratchet-tune report` both write DIR/report.html). */
int rd_write_atomic_private(const char *path, const char *data, size_t len, char *err, size_t errlen);
/* The whole file, NUL-terminated (free it), or NULL with a message (errno
 * ENOENT when it is absent); a symbolic link, a FIFO or anything but a
 * regular file is refused, without blocking. */
char *rd_read_file(const char *path, size_t *len, char *err, size_t errlen);
/* Read and parse a JSON file of a run directory (state.json, verify.json,
 * ...): a regular file of its own name (as rd_read_file), at most
 * RD_JSON_MAX bytes (a larger one, a sparse file, is refused after that
 * many), without a NUL byte (which would end the text early), then
 * json_parse_text (jsonget.h). */
#define RD_JSON_MAX ((size_t)256 << 20)
#define RD_JSON_MAX_TEXT "256 MB"
cJSON *rd_read_json(const char *path, char *err, size_t errlen);
/* Print j (formatted) and write it atomically. */
int rd_write_json(const char *path, const cJSON *j, char *err, size_t errlen);
/* The same as the file name in the directory dfd (rd_open_sub); shown is
 * the directory's path, for messages. */
int rd_write_json_at(int dfd, const char *shown, const char *name, const cJSON *j, char *err, size_t errlen);

/* "2024-05-01T21:30:00Z" for now, UTC. */
void rd_now_iso(char *buf, size_t len);
/* An absolute path: path itself when it starts with '/', else cwd/path
 * (nothing resolved; the file need not exist).  Returns len-1 truncation safe. */
void rd_abs_path(const char *path, char *buf, size_t len);
/* path, a file under the directory `from`, taken under `to` instead, in
 * out; false when path is not under `from` or the result does not fit. */
bool rd_path_moved(const char *path, const char *from, const char *to, char *out, size_t len);

#endif
