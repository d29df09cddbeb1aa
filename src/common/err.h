/* err.h: qdemo's error codes, their strings, and the error record every parser fills. */
#ifndef QD_ERR_H
#define QD_ERR_H

#include <stdint.h>

/* One enum for the whole program; qd_strerror gives the text. Only main.c maps codes to
 * exit statuses. */
typedef enum qd_err {
    QD_OK = 0,
    QD_ERR_IO,          /* the file could not be opened or read */
    QD_ERR_TRUNCATED,   /* the data ends before a field it announces */
    QD_ERR_BAD_DATA,    /* a field holds a value the format does not allow */
    QD_ERR_UNSUPPORTED, /* a valid file of a version or variant qdemo does not decode */
    QD_ERR_LIMIT,       /* a count or size is over qdemo's cap */
    QD_ERR_NOMEM,       /* an allocation failed */
    QD_ERR_NOT_FOUND,   /* a named file is not on the search path */
    QD_ERR_OUTPUT,      /* output could not be written */
    QD_ERR_USAGE,       /* a bad argument from the caller */
    QD_ERR_COUNT
} qd_err;

/* A failure with its place: which byte of which file, and why. */
typedef struct qd_error {
    qd_err code;
    uint64_t offset;    /* byte offset in the file where the damage was found */
    char msg[200];      /* one line, no trailing newline */
} qd_error;

/* The fixed text for a code; never NULL. */
const char *qd_strerror(qd_err code);

/* Fill e (if not NULL) with code, offset and a printf-style reason; returns code so a
 * parser can write `return qd_fail(e, ...)`. */
qd_err qd_fail(qd_error *e, qd_err code, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
