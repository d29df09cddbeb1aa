/* rd.h: the one bounded little-endian reader under every parser in qdemo.
 *
 * A reader is a window on bytes it does not own. Every read goes through rd_need(), whose
 * single check (n > len - pos) cannot overflow. Past the end the reader sets a sticky error,
 * parks at the end and yields zeros, so a parser may read a whole record and check rd.err
 * once (the stb_image habit). */
#ifndef QD_RD_H
#define QD_RD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct rd {
    const uint8_t *p;
    size_t len;
    size_t pos;
    int err; /* sticky: set once any read ran past the end */
} rd_t;

static inline rd_t rd_make(const void *p, size_t len)
{
    rd_t r = {(const uint8_t *)p, len, 0, 0};
    return r;
}

static inline size_t rd_left(const rd_t *r) { return r->len - r->pos; }

/* 1 when n more bytes are there; otherwise sets err, parks at the end, returns 0. A reader
 * with err set is parked at its end (every place that sets err parks it, rd_seek keeps it
 * there), so for n >= 1 the length check alone answers for err too: one test a read. */
static inline int rd_need(rd_t *r, size_t n)
{
    if (n > r->len - r->pos || (n == 0 && r->err)) {
        r->err = 1;
        r->pos = r->len;
        return 0;
    }
    return 1;
}

static inline uint8_t rd_u8(rd_t *r)
{
    if (!rd_need(r, 1))
        return 0;
    return r->p[r->pos++];
}

static inline int8_t rd_s8(rd_t *r) { return (int8_t)rd_u8(r); }

static inline uint16_t rd_u16(rd_t *r)
{
    if (!rd_need(r, 2))
        return 0;
    const uint8_t *b = r->p + r->pos;
    r->pos += 2;
    return (uint16_t)(b[0] | b[1] << 8);
}

static inline int16_t rd_s16(rd_t *r) { return (int16_t)rd_u16(r); }

static inline uint32_t rd_u32(rd_t *r)
{
    if (!rd_need(r, 4))
        return 0;
    const uint8_t *b = r->p + r->pos;
    r->pos += 4;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline int32_t rd_s32(rd_t *r) { return (int32_t)rd_u32(r); }

static inline float rd_f32(rd_t *r)
{
    uint32_t u = rd_u32(r);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* A pointer to the next n bytes, or NULL (and err set) when they are not all there. */
static inline const uint8_t *rd_bytes(rd_t *r, size_t n)
{
    if (!rd_need(r, n))
        return NULL;
    const uint8_t *b = r->p + r->pos;
    r->pos += n;
    return b;
}

static inline void rd_skip(rd_t *r, size_t n) { (void)rd_bytes(r, n); }

/* Move to an absolute offset; past the end sets err. A reader with err set stays parked at
 * its end (rd_need's rule). */
static inline void rd_seek(rd_t *r, size_t pos)
{
    if (r->err || pos > r->len) {
        r->err = 1;
        r->pos = r->len;
    } else {
        r->pos = pos;
    }
}

/* Read a NUL-terminated string into dst (cap >= 1), always terminated; bytes that do not
 * fit are consumed and dropped. A string that runs off the end sets err. Returns the
 * stored length. */
static inline size_t rd_str(rd_t *r, char *dst, size_t cap)
{
    /* the NUL found with memchr and the kept part copied at once (a byte loop cost about
     * ten instructions a character) */
    size_t left = r->err ? 0 : r->len - r->pos;
    const uint8_t *s = left ? r->p + r->pos : NULL;
    const uint8_t *z = left ? (const uint8_t *)memchr(s, 0, left) : NULL;
    size_t k = z ? (size_t)(z - s) : left;
    size_t n = k < cap - 1 ? k : cap - 1;
    if (n)
        memcpy(dst, s, n);
    dst[n] = 0;
    if (z) {
        r->pos += k + 1;
    } else {
        r->err = 1;
        r->pos = r->len;
    }
    return n;
}

#endif
