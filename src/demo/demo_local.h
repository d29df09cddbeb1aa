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

/* A temporary entity as a decoder reads it off the wire, before it becomes a cl_fxev. */
typedef struct demo_temp {
    int type;      /* the game's TE_* number */
    int entity;    /* -1 none */
    float origin[3], end[3];
} demo_temp;

/* One row of a decoder's table from its game's entity effect bits (EF_*, RF_*, eFlags,
 * powerups) to the neutral CL_FX_* bits of cl_entstate.fx. */
typedef struct demo_fx_bit {
    uint32_t bit;  /* the game's bit */
    uint16_t fx;   /* CL_FX_* it looks like, 0 for none */
} demo_fx_bit;
/* The CL_FX_* bits of a game's bits: the or of the fx of every row whose bit is set.
 * Inline: a decoder maps every entity it emits, most with no bit set, and its constant
 * table unrolls into a few tests. */
static inline uint16_t demo_fx_map(const demo_fx_bit *rows, size_t n, uint32_t bits)
{
    uint16_t fx = 0;
    if (!bits)
        return 0;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 32
#endif
    for (size_t i = 0; i < n; i++)
        if (bits & rows[i].bit)
            fx = (uint16_t)(fx | rows[i].fx);
    return fx;
}

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
