/* err.c: the error string table and the error-record filler. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const err_names[QD_ERR_COUNT] = {
    [QD_OK] = "ok",
    [QD_ERR_IO] = "cannot read",
    [QD_ERR_TRUNCATED] = "truncated",
    [QD_ERR_BAD_DATA] = "damaged data",
    [QD_ERR_UNSUPPORTED] = "unsupported",
    [QD_ERR_LIMIT] = "over a size limit",
    [QD_ERR_NOMEM] = "out of memory",
    [QD_ERR_NOT_FOUND] = "not found",
    [QD_ERR_OUTPUT] = "cannot write output",
    [QD_ERR_USAGE] = "bad usage",
};

const char *qd_strerror(qd_err code)
{
    if ((unsigned)code >= QD_ERR_COUNT)
        return "unknown error";
    return err_names[code];
}

qd_err qd_fail(qd_error *e, qd_err code, uint64_t offset, const char *fmt, ...)
{
    if (e) {
        e->code = code;
        e->offset = offset;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}
