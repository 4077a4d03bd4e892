/* Run directory files: lock, atomic replacement, JSON files; see rd.h. */
#include "rd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "jsonget.h"
#include "readfile.h"

static char remove_failed[PATH_MAX];
static int remove_errno;

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    if (remove(path) == 0)
        return 0;
    snprintf(remove_failed, sizeof remove_failed, "%s", path);
    remove_errno = errno;
    return 1;
}

int rd_remove_tree(const char *dir, char *err, size_t errlen)
{
    struct stat sb;
    if (lstat(dir, &sb) != 0 && errno == ENOENT)
        return 0;
    remove_failed[0] = '\0';
    int rc = nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    if (rc == 0)
        return 0;
    if (remove_failed[0])
        return errmsg(err, errlen, "cannot remove %s: %s", remove_failed, strerror(remove_errno));
    return errmsg(err, errlen, "cannot remove %s: %s", dir, strerror(errno));
}

int rd_mkdir_p(const char *dir, char *err, size_t errlen)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
        errmsg(err, errlen, "directory name too long: '%s'", dir);
        return -1;
    }
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) < 0 && errno != EEXIST) {
            errmsg(err, errlen, "cannot create directory '%s': %s", p, strerror(errno));
            return -1;
        }
        *s = '/';
    }
    if (mkdir(p, 0777) < 0 && errno != EEXIST) {
        errmsg(err, errlen, "cannot create directory '%s': %s", p, strerror(errno));
        return -1;
    }
    struct stat sb;
    if (stat(p, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
        errmsg(err, errlen, "'%s' is not a directory", p);
        return -1;
    }
    return 0;
}

int rd_dir_state(const char *dir, char *err, size_t errlen)
{
    struct stat sb;
    if (stat(dir, &sb) < 0) {
        if (errno == ENOENT)
            return RD_ABSENT;
        errmsg(err, errlen, "'%s': %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        errmsg(err, errlen, "'%s' exists and is not a directory", dir);
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        errmsg(err, errlen, "cannot read directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    int state = RD_EMPTY;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && strcmp(e->d_name, RD_NIGHT_FILE) != 0 &&
            strcmp(e->d_name, RD_NIGHT_SUB) != 0) {
            state = RD_NONEMPTY;
            break;
        }
    closedir(d);
    return state;
}

static pid_t read_pid(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return (pid_t)strtol(buf, NULL, 10);
}

int rd_lock(const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, RUNDIR_LOCK);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
    if (fd < 0) {
        if (errno == ELOOP)
            errmsg(err, errlen, "lock file '%s' is a symbolic link: not followed (remove it if it is not yours)",
                   path);
        else
            errmsg(err, errlen, "cannot open lock file '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat sb = { 0 };
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_nlink > 1) {
        errmsg(err, errlen, "lock file '%s' is not a plain file of its own (%s): not used (remove it if it is not yours)",
               path, S_ISREG(sb.st_mode) ? "another name links to it" : "not a regular file");
        close(fd);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        pid_t pid = read_pid(fd);
        close(fd);
        if (e == EWOULDBLOCK) {
            if (pid > 0)
                errmsg(err, errlen, "run directory '%s' is in use by process %ld (lock file %s)", dir, (long)pid,
                       path);
            else
                errmsg(err, errlen, "run directory '%s' is in use by another process (lock file %s)", dir, path);
        } else {
            errmsg(err, errlen, "cannot lock '%s': %s", path, strerror(e));
        }
        return -1;
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
        errmsg(err, errlen, "cannot write lock file '%s': %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

void rd_unlock(int fd)
{
    if (fd < 0)
        return;
    if (ftruncate(fd, 0) < 0) {
        /* the pid is only informative */
    }
    flock(fd, LOCK_UN);
    close(fd);
}

pid_t rd_lock_holder(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, RUNDIR_LOCK);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return 0;
    pid_t pid = 0;
    if (flock(fd, LOCK_SH | LOCK_NB) < 0)
        pid = errno == EWOULDBLOCK ? read_pid(fd) : 0;
    else
        flock(fd, LOCK_UN);
    close(fd);
    return pid;
}

int rd_create_temp(const char *tmp, char *err, size_t errlen)
{
    if (unlink(tmp) < 0 && errno != ENOENT) {
        errmsg(err, errlen, "cannot remove the stale temporary file '%s': %s", tmp, strerror(errno));
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            errmsg(err, errlen, "cannot create '%s': another process created it meanwhile", tmp);
        else
            errmsg(err, errlen, "cannot create '%s': %s", tmp, strerror(errno));
        return -1;
    }
    return fd;
}

int rd_open_append(const char *path, bool create, char *err, size_t errlen)
{
    const char *why;
    int fd = open_regular(path, O_WRONLY | O_APPEND | (create ? O_CREAT : 0), 0644, &why);
    if (fd < 0)
        errmsg(err, errlen, "cannot open '%s': %s", path, why);
    return fd;
}

int rd_sub_check(const char *dir, char *err, size_t errlen)
{
    struct stat sb;
    if (lstat(dir, &sb) < 0)
        return errno == ENOENT ? 0 : errmsg(err, errlen, "'%s': %s", dir, strerror(errno));
    if (S_ISLNK(sb.st_mode))
        return errmsg(err, errlen, "cannot use directory '%s': a symbolic link: not followed", dir);
    if (!S_ISDIR(sb.st_mode))
        return errmsg(err, errlen, "cannot use directory '%s': not a directory", dir);
    return 0;
}

int rd_open_sub(const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return errmsg(err, errlen, "cannot create directory '%s': %s", dir, strerror(errno));
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        struct stat sb;
        bool link = lstat(dir, &sb) == 0 && S_ISLNK(sb.st_mode);
        errno = e;
        return errmsg(err, errlen, "cannot use directory '%s': %s", dir,
                      link ? "a symbolic link: not followed" : errno == ENOTDIR ? "not a directory" : strerror(errno));
    }
    return fd;
}

int rd_mkdir_sub(const char *dir, char *err, size_t errlen)
{
    int fd = rd_open_sub(dir, err, errlen);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* name in the directory dfd replaced by data through tmpname in the same
 * directory; shown is the directory's path, for messages. */
static int write_atomic_at(int dfd, const char *shown, const char *name, const char *tmpname, const char *data,
                           size_t len, char *err, size_t errlen)
{
    struct stat sb;
    if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(sb.st_mode))
        return errmsg(err, errlen, "cannot replace '%s/%s': %s", shown, name,
                      S_ISLNK(sb.st_mode) ? "a symbolic link: not followed" : "not a regular file: not used");
    if (unlinkat(dfd, tmpname, 0) < 0 && errno != ENOENT)
        return errmsg(err, errlen, "cannot remove the stale temporary file '%s/%s': %s", shown, tmpname,
                      strerror(errno));
    int fd = openat(dfd, tmpname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return errmsg(err, errlen, "cannot create '%s/%s': %s", shown, tmpname,
                      errno == EEXIST ? "another process created it meanwhile" : strerror(errno));
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            errmsg(err, errlen, "cannot write '%s/%s': %s", shown, tmpname, n < 0 ? strerror(errno) : "short write");
            close(fd);
            unlinkat(dfd, tmpname, 0);
            return -1;
        }
        off += (size_t)n;
    }
    if (fsync(fd) < 0) {
        errmsg(err, errlen, "cannot sync '%s/%s': %s", shown, tmpname, strerror(errno));
        close(fd);
        unlinkat(dfd, tmpname, 0);
        return -1;
    }
    close(fd);
    if (renameat(dfd, tmpname, dfd, name) < 0) {
        errmsg(err, errlen, "cannot rename '%s/%s' to '%s/%s': %s", shown, tmpname, shown, name, strerror(errno));
        unlinkat(dfd, tmpname, 0);
        return -1;
    }
    if (fsync(dfd) < 0)
        return errmsg(err, errlen, "cannot sync the directory '%s': %s", shown, strerror(errno));
    return 0;
}

/* path replaced through its basename plus suffix, in path's directory. */
static int write_atomic_via(const char *path, const char *suffix, const char *data, size_t len, char *err,
                            size_t errlen)
{
    char d[PATH_MAX], tmpname[NAME_MAX + 1];
    if (snprintf(d, sizeof d, "%s", path) >= (int)sizeof d)
        return errmsg(err, errlen, "path too long: '%s'", path);
    char *slash = strrchr(d, '/');
    const char *name = slash ? path + (slash - d) + 1 : path;
    if (slash == d)
        d[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        snprintf(d, sizeof d, ".");
    if (!name[0] || snprintf(tmpname, sizeof tmpname, "%s%s", name, suffix) >= (int)sizeof tmpname)
        return errmsg(err, errlen, "not a file name: '%s'", path);
    int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return errmsg(err, errlen, "cannot open the directory of '%s': %s", path, strerror(errno));
    int rc = write_atomic_at(dfd, d, name, tmpname, data, len, err, errlen);
    close(dfd);
    return rc;
}

int rd_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    return write_atomic_via(path, ".tmp", data, len, err, errlen);
}

int rd_write_atomic_private(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
    return write_atomic_via(path, suffix, data, len, err, errlen);
}

/* path opened to read as a regular file, or NULL with err (errno kept). */
static FILE *open_to_read(const char *path, char *err, size_t errlen)
{
    const char *why;
    FILE *f = fopen_regular(path, "r", &why);
    if (!f) {
        int e = errno;
        errmsg(err, errlen, "cannot open '%s': %s", path, why);
        errno = e;
    }
    return f;
}

char *rd_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = open_to_read(path, err, errlen);
    if (!f)
        return NULL;
    char *text = read_stream(f, 0, len);
    fclose(f);
    if (!text)
        errmsg(err, errlen, "cannot read '%s'", path);
    return text;
}

cJSON *rd_read_json(const char *path, char *err, size_t errlen)
{
    FILE *f = open_to_read(path, err, errlen);
    if (!f)
        return NULL;
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && (uint64_t)sb.st_size > RD_JSON_MAX) {
        fclose(f);
        errmsg(err, errlen, "cannot read '%s': %llu bytes, larger than " RD_JSON_MAX_TEXT
               " (no state file of a run is near that)", path, (unsigned long long)sb.st_size);
        errno = EFBIG;
        return NULL;
    }
    size_t len = 0;
    char *text = read_stream(f, RD_JSON_MAX, &len);
    int e = errno;
    fclose(f);
    if (!text) {
        errmsg(err, errlen, "cannot read '%s': %s", path,
               e == EFBIG ? "larger than " RD_JSON_MAX_TEXT " (no state file of a run is near that)" : strerror(e));
        return NULL;
    }
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        errmsg(err, errlen, "'%s': a NUL byte at offset %zu: not a JSON text", path, (size_t)(nul - text));
        free(text);
        return NULL;
    }
    cJSON *j = json_parse_text(text, path, err, errlen);
    free(text);
    return j;
}

/* j printed (formatted) with a final newline, or NULL when out of memory. */
static char *json_text(const cJSON *j, size_t *len)
{
    char *s = cJSON_Print(j);
    size_t n = s ? strlen(s) : 0;
    char *t = s ? realloc(s, n + 2) : NULL;
    if (!t) {
        free(s);
        return NULL;
    }
    t[n] = '\n';
    t[n + 1] = '\0';
    *len = n + 1;
    return t;
}

int rd_write_json(const char *path, const cJSON *j, char *err, size_t errlen)
{
    size_t n;
    char *t = json_text(j, &n);
    if (!t)
        return errmsg(err, errlen, "out of memory writing '%s'", path);
    int rc = rd_write_atomic(path, t, n, err, errlen);
    free(t);
    return rc;
}

int rd_write_json_at(int dfd, const char *shown, const char *name, const cJSON *j, char *err, size_t errlen)
{
    char tmpname[NAME_MAX + 1];
    if (snprintf(tmpname, sizeof tmpname, "%s.tmp", name) >= (int)sizeof tmpname || strchr(name, '/'))
        return errmsg(err, errlen, "not a file name: '%s'", name);
    size_t n;
    char *t = json_text(j, &n);
    if (!t)
        return errmsg(err, errlen, "out of memory writing '%s/%s'", shown, name);
    int rc = write_atomic_at(dfd, shown, name, tmpname, t, n, err, errlen);
    free(t);
    return rc;
}

void rd_now_iso(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void rd_abs_path(const char *path, char *buf, size_t len)
{
    char cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd)) {
        snprintf(buf, len, "%s", path);
        return;
    }
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    snprintf(buf, len, "%s/%s", cwd, path);
}

bool rd_path_moved(const char *path, const char *from, const char *to, char *out, size_t len)
{
    size_t n = strlen(from);
    if (!n || strncmp(path, from, n) != 0 || path[n] != '/')
        return false;
    int k = snprintf(out, len, "%s%s", to, path + n);
    return k >= 0 && (size_t)k < len;
}
