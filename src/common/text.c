/* text.c: info strings, one tokenizer and a bounded atoi, shared by every format. */
#include "text.h"

#include <string.h>

/* The end of an info string field: the next backslash or the NUL. */
static const char *field_end(const char *p)
{
    while (*p && *p != '\\')
        p++;
    return p;
}

int qd_concat(char *out, size_t cap, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int whole = la + lb < cap;
    if (la > cap - 1)
        la = cap - 1;
    if (lb > cap - 1 - la)
        lb = cap - 1 - la;
    memcpy(out, a, la);
    memcpy(out + la, b, lb);
    out[la + lb] = 0;
    return whole;
}

int qd_info_get(const char *info, const char *key, char *out, size_t cap)
{
    size_t klen = strlen(key);
    const char *p = info + (*info == '\\');
    out[0] = 0;
    while (*p) {
        const char *k = p, *kend = field_end(k);
        const char *v = kend + (*kend != 0), *vend = field_end(v);
        p = vend + (*vend != 0);
        if ((size_t)(kend - k) == klen && memcmp(k, key, klen) == 0) {
            size_t vl = (size_t)(vend - v);
            int r = QD_INFO_FOUND;
            if (vl >= cap) {
                vl = cap - 1;
                r = QD_INFO_CUT;
            }
            memcpy(out, v, vl);
            out[vl] = 0;
            return r;
        }
    }
    return QD_INFO_ABSENT;
}

int qd_atoi(const char *s)
{
    long long v = 0;
    int neg = 0;
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    for (; *s >= '0' && *s <= '9'; s++)
        if (v < QD_ATOI_MAX)
            v = v * 10 + (*s - '0');
    if (v > QD_ATOI_MAX)
        v = QD_ATOI_MAX;
    return (int)(neg ? -v : v);
}

/* Append c to tok if it fits; note a cut otherwise. */
static void put(char *tok, size_t cap, size_t *n, char c, unsigned *got)
{
    if (*n + 1 < cap)
        tok[(*n)++] = c;
    else
        *got |= QD_TOK_CUT;
}

const char *qd_token(const char *p, char *tok, size_t cap, unsigned flags, unsigned *got)
{
    unsigned g = 0;
    size_t n = 0;
    int braces = (flags & QD_TOK_BRACES) != 0;
    tok[0] = 0;
    if (got)
        *got = 0;
    for (;;) {
        while (*p && (unsigned char)*p <= ' ')
            p++;
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        break;
    }
    if (!*p)
        return NULL;
    if (*p == '"') {
        g |= QD_TOK_QUOTED;
        for (p++; *p && *p != '"'; p++)
            put(tok, cap, &n, *p, &g);
        if (*p == '"')
            p++;
    } else if (braces && (*p == '{' || *p == '}')) {
        put(tok, cap, &n, *p++, &g);
    } else {
        for (; (unsigned char)*p > ' '; p++) {
            if (braces && (*p == '{' || *p == '}' || *p == '"'))
                break;
            put(tok, cap, &n, *p, &g);
        }
    }
    tok[n] = 0;
    if (got)
        *got = g;
    return p;
}
