/* demo_trace.c: what the decoders share: trace lines for `qdemo dump`, escaping, small numbers
 * from text. */
#include <stdarg.h>
#include <stdio.h>

#include "../common/text.h"
#include "demo_local.h"

void demo_tracef(const demo_trace *tr, double t, uint32_t block, uint64_t offset,
                 const char *name, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tr->msg(tr->ctx, t, block, offset, name, buf);
}

const char *demo_escape(char *out, size_t cap, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (; *s && n + 5 < cap; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            out[n++] = '\\';
            out[n++] = (char)ch;
        } else if (ch == '\n') {
            out[n++] = '\\';
            out[n++] = 'n';
        } else if (ch < 32 || ch >= 127) {
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[ch >> 4];
            out[n++] = hex[ch & 15];
        } else {
            out[n++] = (char)ch;
        }
    }
    out[n] = 0;
    return out;
}

int demo_small_atoi(const char *s) { return qd_atoi(s); }
