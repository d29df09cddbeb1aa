/* file.c: safe opening of input files (regular files only, never blocking) and of output
 * files (always new, written beside the target and renamed over it). */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

const char *qd_file_kind(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a folder";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a file";
    }
}

int qd_open_input(const char *path, uint64_t *size, qd_error *err)
{
    if (size)
        *size = 0;
    if (!path || !*path) {
        qd_fail(err, QD_ERR_IO, 0, "cannot open: no file name");
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        qd_fail(err, QD_ERR_IO, 0, "cannot open: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        qd_fail(err, QD_ERR_IO, 0, "not a regular file (%s)", qd_file_kind(st.st_mode));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (size)
        *size = (uint64_t)st.st_size;
    return fd;
}

qd_err qd_read_input(const char *path, uint64_t max, uint8_t **data, size_t *len,
                     qd_error *err)
{
    *data = NULL;
    *len = 0;
    uint64_t size;
    int fd = qd_open_input(path, &size, err);
    if (fd < 0)
        return err ? err->code : QD_ERR_IO;
    if (size > max || size >= SIZE_MAX) {
        close(fd);
        return qd_fail(err, QD_ERR_LIMIT, 0, "the file is %llu bytes, over the %llu-byte limit",
                       (unsigned long long)size, (unsigned long long)max);
    }
    int ok = qd_read_fd(fd, (size_t)size, data, len);
    int e = errno;
    close(fd);
    if (ok)
        return QD_OK;
    if (e == ENOMEM)
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory for %llu bytes",
                       (unsigned long long)size);
    size_t at = *len;
    *len = 0;
    return qd_fail(err, QD_ERR_IO, at, "read error: %s", strerror(e));
}

/* From this size on, qd_alloc_bulk's huge pages. */
#define BULK_HUGE ((size_t)512 << 10)

static void *alloc_huge(size_t size)
{
    const size_t huge = (size_t)2 << 20;
    size_t round = (size + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, round);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p)
        madvise(p, round, MADV_HUGEPAGE); /* (a hint: without it, the same bytes in small pages) */
#endif
    return p;
}

void *qd_alloc_bulk(size_t size)
{
    if (size < BULK_HUGE || size > SIZE_MAX / 2)
        return malloc(size ? size : 1);
    return alloc_huge(size);
}

void *qd_alloc_bulk_zero(size_t size, size_t input)
{
    if (size < BULK_HUGE || input < BULK_HUGE || size > SIZE_MAX / 2)
        return calloc(1, size ? size : 1);
    void *p = alloc_huge(size);
    if (p)
        memset(p, 0, size);
    return p;
}

void qd_heap_huge(void)
{
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE)
    /* glibc's own glibc.malloc.hugetlb=1 (a GLIBC_TUNABLES setting, read only at start)
     * done by hand: blocks up to 32 MiB from the heap rather than each its own mapping
     * (a freed image's pages stay for the next one), the heap never trimmed, and grown
     * by 256 MiB at once (address space: only the pages touched are memory), which is
     * then asked for huge pages. */
    const size_t pad = (size_t)256 << 20;
    /* Under a cap on memory (ulimit -v or -d: tests/sweep.sh's runs) the heap's 256 MiB
     * steps could fail an allocation the cap would have let through: left as glibc has it. */
    struct rlimit as, data;
    if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur != RLIM_INFINITY ||
        getrlimit(RLIMIT_DATA, &data) != 0 || data.rlim_cur != RLIM_INFINITY)
        return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, -1);
    mallopt(M_TOP_PAD, (int)pad);
    uint8_t *probe = malloc((size_t)1 << 20); /* (more than the heap has free: it grows) */
    uint8_t *end = sbrk(0);
    if (probe && end != (void *)-1 && probe < end && (size_t)(end - probe) <= 2 * pad) {
        uintptr_t from = (uintptr_t)probe & ~(uintptr_t)4095;
        madvise((void *)from, (size_t)((uintptr_t)end - from), MADV_HUGEPAGE);
    }
    free(probe);
#endif
}

int qd_read_fd(int fd, size_t size, uint8_t **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    uint8_t *buf = size < SIZE_MAX ? qd_alloc_bulk(size + 1) : NULL;
    if (!buf) {
        errno = ENOMEM;
        return 0;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            free(buf);
            *len = got;
            errno = e;
            return 0;
        }
        if (n == 0)
            break; /* the file shrank meanwhile: take what is there */
        got += (size_t)n;
    }
    buf[got] = 0;
    *data = buf;
    *len = got;
    return 1;
}

int qd_create_new(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

int qd_create_temp(const char *path, char **tmp)
{
    static atomic_uint counter; /* only makes names unique within the process */
    *tmp = NULL;
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    size_t cap = strlen(path) + 64;
    char *name = malloc(cap);
    if (!name) {
        errno = ENOMEM;
        return -1;
    }
    for (int tries = 0; tries < 1000; tries++) {
        unsigned n = atomic_fetch_add(&counter, 1u);
        snprintf(name, cap, "%.*s.%s.qdemo-%ld-%u.tmp", (int)dirlen, path,
                 path + dirlen, (long)getpid(), n);
        int fd = qd_create_new(name);
        if (fd >= 0) {
            *tmp = name;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(name);
    errno = e;
    return -1;
}

int qd_write_all(int fd, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

qd_err qd_replace_file(const char *path, const void *data, size_t len, qd_error *err)
{
    char *tmp;
    int fd = qd_create_temp(path, &tmp);
    if (fd < 0)
        return qd_fail(err, QD_ERR_OUTPUT, 0, "%s: cannot create a file beside it: %s", path,
                       strerror(errno));
    int ok = qd_write_all(fd, data, len);
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        e = errno;
    }
    qd_err r = QD_OK;
    if (!ok) {
        unlink(tmp);
        r = qd_fail(err, QD_ERR_OUTPUT, 0, "%s: %s", path,
                    e == EISDIR ? "a folder is in the way" : strerror(e));
    }
    free(tmp);
    return r;
}

char *qd_path_join(const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    char *p = malloc(dl + nl + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, dl);
    p[dl] = '/';
    memcpy(p + dl + 1, name, nl + 1);
    return p;
}
