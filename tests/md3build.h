/* md3build.h: a Quake III MD3 built byte by byte for the tests (qfiles.h layout). */
#ifndef QD_MD3BUILD_H
#define QD_MD3BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void putf(uint8_t *p, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    put32(p, v);
}

/* A one-frame MD3 with one surface "s_body" (shader "old/shader") of one triangle whose three
 * vertices carry the normal bytes lng, lat (qfiles.h layout, counted by hand: header 108,
 * frame 56, surface header 108, shader 68, triangle 12, st 3 x 8, xyz 3 x 8). */
static inline uint8_t *tiny_md3(uint8_t lng, uint8_t lat, size_t *len)
{
    size_t surf = 108 + 56, n = surf + 108 + 68 + 12 + 24 + 24;
    uint8_t *b = calloc(1, n);
    memcpy(b, "IDP3", 4);
    put32(b + 4, 15);
    put32(b + 76, 1);           /* frames */
    put32(b + 80, 0);           /* tags */
    put32(b + 84, 1);           /* surfaces */
    put32(b + 92, 108);         /* ofsFrames */
    put32(b + 96, 108 + 56);    /* ofsTags (none) */
    put32(b + 100, (uint32_t)surf);
    put32(b + 104, (uint32_t)n);
    putf(b + 108 + 36, 10);     /* radius */
    uint8_t *s = b + surf;
    memcpy(s, "IDP3", 4);
    memcpy(s + 4, "s_body", 6);
    put32(s + 72, 1);   /* frames */
    put32(s + 76, 1);   /* shaders */
    put32(s + 80, 3);   /* verts */
    put32(s + 84, 1);   /* triangles */
    put32(s + 88, 108 + 68);           /* ofsTriangles */
    put32(s + 92, 108);                /* ofsShaders */
    put32(s + 96, 108 + 68 + 12);      /* ofsSt */
    put32(s + 100, 108 + 68 + 12 + 24); /* ofsXyzNormals */
    put32(s + 104, 108 + 68 + 12 + 24 + 24);
    memcpy(s + 108, "old/shader", 10);
    put32(s + 108 + 68 + 4, 1);
    put32(s + 108 + 68 + 8, 2);
    uint8_t *xyz = s + 108 + 68 + 12 + 24;
    for (int i = 0; i < 3; i++) {
        xyz[i * 8 + (i < 2 ? i * 2 : 4)] = 64; /* vertex i one unit along axis i */
        xyz[i * 8 + 6] = lng;
        xyz[i * 8 + 7] = lat;
    }
    *len = n;
    return b;
}

#endif
