/* testbuf.h: building protocol bytes inside a test: a fixed buffer and little-endian
 * writers in the wire formats' units (coords in 1/8 unit, as Quake and QuakeWorld send them). */
#ifndef QD_TESTBUF_H
#define QD_TESTBUF_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    uint8_t b[65536];
    size_t n;
} buf;

static inline void put8(buf *m, unsigned v)
{
    if (m->n < sizeof m->b)
        m->b[m->n++] = (uint8_t)v;
}
static inline void put16(buf *m, int v)
{
    put8(m, (unsigned)v & 255);
    put8(m, ((unsigned)v >> 8) & 255);
}
static inline void put32(buf *m, uint32_t v)
{
    put16(m, (int)(v & 0xffff));
    put16(m, (int)(v >> 16));
}
static inline void putf(buf *m, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(m, u);
}
static inline void putstr(buf *m, const char *s)
{
    do
        put8(m, (unsigned char)*s);
    while (*s++);
}
static inline void putcoord(buf *m, float c) { put16(m, (int)lroundf(c * 8)); }
static inline void putbuf(buf *m, const buf *src)
{
    for (size_t i = 0; i < src->n; i++)
        put8(m, src->b[i]);
}

/* A growing buffer for files of any size (maps built by the tests). */
typedef struct gbuf {
    uint8_t *p;
    size_t len, cap;
} gbuf;

static inline void gput(gbuf *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 4096;
        while (c < b->len + n)
            c *= 2;
        b->p = realloc(b->p, c);
        b->cap = c;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}
static inline void g8(gbuf *b, unsigned v)
{
    uint8_t x = (uint8_t)v;
    gput(b, &x, 1);
}
static inline void g16(gbuf *b, unsigned v)
{
    g8(b, v & 255);
    g8(b, v >> 8 & 255);
}
static inline void g32(gbuf *b, uint32_t v)
{
    g16(b, v & 0xffff);
    g16(b, v >> 16);
}
static inline void gf32(gbuf *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    g32(b, u);
}

/* With the environment variable env naming a folder, keep f there as the file name: the
 * fuzz corpus's written seeds (tests/fuzz/corpus/<target>/written_*). */
static inline void test_seed(const char *env, const char *name, const buf *f)
{
    const char *dir = getenv(env);
    char path[512];
    if (!dir || snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return;
    FILE *o = fopen(path, "wb");
    if (o) {
        fwrite(f->b, 1, f->n, o);
        fclose(o);
    }
}

#endif
