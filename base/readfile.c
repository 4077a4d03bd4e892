/* Reading a whole file into memory; see readfile.h. */
#include "readfile.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* open_regular, and open_user_file with follow. */
static int open_checked(const char *path, int flags, unsigned mode, bool follow, const char **why)
{
    int fd = open(path, flags | (follow ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_CLOEXEC, (mode_t)mode);
    if (fd < 0) {
        int e = errno;
        struct stat sb;
        /* a FIFO without a reader, opened for writing, fails with ENXIO */
        bool other = e != ENOENT && e != ELOOP && (follow ? stat(path, &sb) : lstat(path, &sb)) == 0 &&
                     !S_ISREG(sb.st_mode);
        if (why)
            *why = e == ELOOP && !follow ? "a symbolic link: not followed"
                   : other               ? "not a regular file: not used"
                                         : strerror(e);
        errno = e;
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        if (why)
            *why = "not a regular file: not used";
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        int e = errno;
        close(fd);
        if (why)
            *why = strerror(e);
        errno = e;
        return -1;
    }
    return fd;
}

int open_regular(const char *path, int flags, unsigned mode, const char **why)
{
    return open_checked(path, flags, mode, false, why);
}

int open_user_file(const char *path, const char **why)
{
    return open_checked(path, O_RDONLY, 0, true, why);
}

FILE *fopen_regular(const char *path, const char *mode, const char **why)
{
    bool append = mode[0] == 'a';
    int fd = open_regular(path, append ? O_WRONLY | O_APPEND | O_CREAT : O_RDONLY, 0644, why);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, append ? "a" : "r");
    if (!f) {
        int e = errno;
        close(fd);
        if (why)
            *why = strerror(e);
        errno = e;
    }
    return f;
}

char *read_stream(FILE *f, size_t max, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (n + 1 >= cap) {
            char *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!bigger) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (max && n > max) {
            free(buf);
            errno = EFBIG;
            return NULL;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno ? errno : EIO;
        free(buf);
        errno = e;
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}
