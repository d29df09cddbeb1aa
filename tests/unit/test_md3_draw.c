/* test_md3_draw.c: Quake III models drawn: MD3 normals and skins, animation.cfg frames, the
 * tags that join OpenArena's sarge, and a bot of an OpenArena demo drawn textured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"
#include "../test.h"

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void putf(uint8_t *p, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    put32(p, v);
}

/* A one-frame MD3 with one surface "s_body" (shader "old/shader") of one triangle whose three
 * vertices carry the normal bytes lng, lat (qfiles.h layout, counted by hand: header 108,
 * frame 56, surface header 108, shader 68, triangle 12, st 3 x 8, xyz 3 x 8). */
static uint8_t *tiny_md3(uint8_t lng, uint8_t lat, size_t *len)
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

/* qfiles.h: the normal short is lat << 8 | lng, stored little-endian (lng first); the unit
 * vector is (cos lat sin lng, sin lat sin lng, cos lng) with 256 steps a turn. lng 64 is a
 * quarter turn: lat 0 gives +x, lat 64 gives +y; lng 0 is +z whatever lat. */
TEST(md3_normal_bytes_are_longitude_then_latitude)
{
    static const struct {
        uint8_t lng, lat;
        float n[3];
    } cases[] = {{64, 0, {1, 0, 0}}, {64, 64, {0, 1, 0}}, {0, 64, {0, 0, 1}}, {128, 0, {0, 0, -1}}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t len;
        uint8_t *b = tiny_md3(cases[c].lng, cases[c].lat, &len);
        mdl_md3 *m = NULL;
        qd_error err;
        CHECK(mdl_md3_load(b, len, "tiny.md3", &m, &err) == QD_OK);
        for (int j = 0; j < 3; j++)
            CHECK_MSG(fabsf(m->surfaces[0].normal[0][j] - cases[c].n[j]) < 1e-5f,
                      "case %zu axis %d: %f", c, j, m->surfaces[0].normal[0][j]);
        mdl_md3_free(m);
        free(b);
    }
}
