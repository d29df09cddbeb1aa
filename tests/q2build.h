/* q2build.h: writing Quake II .dm2 bytes inside a test (test_q2.c, test_q2ext.c,
 * test_kmq2.c) and decoding them: blocks,
 * the messages every level starts with, entity headers (with Q2PRO's fifth bits byte) and
 * int23 coordinates, which .mvd2's entities share (test_mvd2.c). */
#ifndef QD_Q2BUILD_H
#define QD_Q2BUILD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/demo/demo.h"
#include "../src/demo/q2_local.h"
#include "testbuf.h"

/* [int32 size][messages] */
static inline void block(buf *f, const buf *m)
{
    put32(f, (uint32_t)m->n);
    putbuf(f, m);
}

/* svc_serverdata's 34 fields ("Test Level"); R1Q2's and Q2PRO's tails are the caller's. */
static inline void serverdata(buf *m, int proto, int isdemo, const char *gamedir, int player)
{
    put8(m, Q2_SVC_SERVERDATA);
    put32(m, (uint32_t)proto);
    put32(m, 0x10005); /* servercount */
    put8(m, (unsigned)isdemo);
    putstr(m, gamedir);
    put16(m, player);
    putstr(m, "Test Level");
}

static inline void configstring(buf *m, int index, const char *s)
{
    put8(m, Q2_SVC_CONFIGSTRING);
    put16(m, index);
    putstr(m, s);
}

/* The entity header: the bit bytes the bits need, then the number. With fifth (Q2PRO's
 * extended demos), bits 32..39 go in a fifth byte after U_MOREBITS4; without (34 and
 * KMQuake2, whose bits 28..31 are fields of its own), at most four bytes. */
static inline void ent_bits_in(buf *m, uint64_t bits, int num, int fifth)
{
    if (num >= 256)
        bits |= Q2_U_NUMBER16;
    if (fifth && (bits & 0xff00000000ull))
        bits |= Q2_U_MOREBITS4;
    if (bits & 0xffff000000ull)
        bits |= Q2_U_MOREBITS3;
    if (bits & 0xffffff0000ull)
        bits |= Q2_U_MOREBITS2;
    if (bits & 0xffffffff00ull)
        bits |= Q2_U_MOREBITS1;
    for (int k = 0; k < 5; k++) {
        put8(m, (unsigned)(bits >> 8 * k & 255));
        static const uint32_t more[4] = {Q2_U_MOREBITS1, Q2_U_MOREBITS2, Q2_U_MOREBITS3,
                                         Q2_U_MOREBITS4};
        if (k == 4 || (k == 3 && !fifth) || !(bits & more[k]))
            break;
    }
    if (bits & Q2_U_NUMBER16)
        put16(m, num);
    else
        put8(m, (unsigned)num);
}

static inline void ent_bits(buf *m, uint64_t bits, int num) { ent_bits_in(m, bits, num, 1); }

/* One decoder run over .dm2 bytes held by the caller (test_q2ext.c, test_kmq2.c). */
typedef struct q2_xrun {
    void *st;
    cl_state *cl;
    qd_error err;
    qd_err e;       /* the first error, QD_OK when the decode ran to its end */
    int done;
} q2_xrun;

/* Decode data whole (init, then steps until done or an error): 0 when the memory ran out. */
static inline int q2_xdecode(q2_xrun *x, const uint8_t *data, size_t len)
{
    memset(x, 0, sizeof *x);
    x->st = calloc(1, demo_q2_decoder.state_size);
    x->cl = malloc(sizeof *x->cl);
    if (!x->st || !x->cl)
        return 0;
    cl_reset(x->cl);
    x->e = demo_q2_decoder.init(x->st, data, len, &x->err);
    for (size_t n = 0; x->e == QD_OK && !x->done && n <= len + 1; n++)
        x->e = demo_q2_decoder.step(x->st, data, len, x->cl, NULL, &x->done, &x->err);
    return 1;
}

static inline void q2_xfree(q2_xrun *x)
{
    free(x->st);
    free(x->cl);
}

/* svc_frame in the 26..34 layout (with 34's suppress count): one byte of area bits. */
static inline void frame(buf *m, int serverframe, int deltaframe)
{
    put8(m, Q2_SVC_FRAME);
    put32(m, (uint32_t)serverframe);
    put32(m, (uint32_t)deltaframe);
    put8(m, 0); /* suppress count */
    put8(m, 1); /* one byte of area bits */
    put8(m, 0xff);
}

/* An entity with a model, an x and an old_origin at x old_x (y, z 0), and an event when
 * event is not 0: a new entity as a server sends it. */
static inline void ent_new_x(buf *m, int num, int model, float x, float old_x, int event)
{
    ent_bits(m, Q2_U_MODEL | Q2_U_ORIGIN1 | Q2_U_OLDORIGIN | (event ? Q2_U_EVENT : 0), num);
    put8(m, (unsigned)model);
    putcoord(m, x);
    putcoord(m, old_x);
    putcoord(m, 0);
    putcoord(m, 0);
    if (event)
        put8(m, (unsigned)event);
}

static inline void end_marker(buf *f) { put32(f, 0xffffffffu); }

/* QDEMO_Q2_SEEDS=DIR keeps a written demo there as a fuzz seed (tests/fuzz/corpus/dm2). */
static inline void q2_seed(const char *name, const buf *f) { test_seed("QDEMO_Q2_SEEDS", name, f); }

/* Q2PRO's int23 [Q2X] in its 3-byte (absolute) form: the 24 bits (v << 1) | 1, low byte
 * first. */
static inline void put_i23_abs(buf *m, int32_t v)
{
    uint32_t w = ((uint32_t)v << 1 | 1u) & 0xffffffu;
    put16(m, (int)(w & 0xffff));
    put8(m, w >> 16);
}

/* An int23 in its 2-byte (delta) form: the 16 bits d << 1, bit 0 clear. */
static inline void put_i23_delta(buf *m, int d) { put16(m, (int)(((unsigned)d << 1) & 0xffff)); }

/* The end of a Q2PRO EXTENSIONS_2 player state [Q2X] whose bits send the blend, the fog
 * (when fog), the fov and the stats: blend[0] 200, fov 100, stat 1 (health) 75, stat 40 read
 * past. */
static inline void put_ext2_ps_tail(buf *m, int fog)
{
    put8(m, 0x11);             /* the blend's mask: blend R and damage blend R */
    put8(m, 200);              /* blend[0] */
    put8(m, 77);               /* damage_blend[0]: read past */
    if (fog) {
        put8(m, 0x41);         /* fog: colour, start distance */
        put8(m, 10);
        put8(m, 20);
        put8(m, 30);
        put_i23_delta(m, 5);
    }
    put8(m, 100);              /* fov */
    /* stats 1 and 40: the mask 2 + 2^40 as a varint, 7 bits a byte: 82 80 80 80 80 20 */
    put8(m, 0x82);
    put8(m, 0x80);
    put8(m, 0x80);
    put8(m, 0x80);
    put8(m, 0x80);
    put8(m, 0x20);
    put16(m, 75);              /* health */
    put16(m, 999);             /* stat 40: read past */
}

#endif
