/* demo_local.h: what the decoders share inside src/demo: trace formatting and escaping for
 * `qdemo dump`, and the error shorthand. Not for other stages. */
#ifndef QD_DEMO_LOCAL_H
#define QD_DEMO_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "demo.h"

/* Format one trace line and hand it to tr (which must not be NULL). */
void demo_tracef(const demo_trace *tr, double t, uint32_t block, uint64_t offset,
                 const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* s made printable for a trace line into out (cap >= 6): quotes and backslashes escaped,
 * newlines as \n, control and high bytes (Quake's coloured characters) as \xNN; cut short
 * rather than overflow. Returns out. */
const char *demo_escape(char *out, size_t cap, const char *s);

/* A decimal from text (info strings, configstrings): qd_atoi (src/common/text.h), kept
 * under this name until the decoders call qd_atoi themselves (issue #10, section 6). */
int demo_small_atoi(const char *s);

/* The decoders' contexts all hold `err` (the caller's qd_error): fail with an offset. */
#define DEMO_FAIL(c, code, ofs, ...) qd_fail((c)->err, (code), (ofs), __VA_ARGS__)

/* Trace a message of a context holding `trace`, `msg_ofs` and a state `s` with `time` and
 * `block`; formats nothing unless somebody listens. */
#define DEMO_TRACE(c, name, ...)                                                           \
    do {                                                                                   \
        if ((c)->trace)                                                                    \
            demo_tracef((c)->trace, (c)->s->time, (c)->s->block, (c)->msg_ofs, (name),     \
                        __VA_ARGS__);                                                      \
    } while (0)

#endif
