/* test_model_build.c: builders of small valid BSP29, MDL and SPR files for the model and
 * render tests (the tests build their own bytes; hostile variants are patched from these). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../testbuf.h"

/* Prototypes shared with test_model.c and test_render.c (which repeat them). */
uint8_t *test_bsp_build(const float (*quads)[4][3], const uint8_t *color, const uint8_t *light,
                        int n, const char *extra_ents, size_t *len);
uint8_t *test_bsp_build_fmt(const float (*quads)[4][3], const uint8_t *color,
                            const uint8_t *light, int n, const char *extra_ents, int fmt,
                            size_t *len);
uint8_t *test_bsp_build_polys(const float (*pts)[3], const int *counts, const uint8_t *color,
                             const uint8_t *light, int n, const char *extra_ents, int fmt,
                             size_t *len);
uint8_t *test_mdl_build(size_t *len);
uint8_t *test_spr_build(size_t *len);

static void set_u32(gbuf *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static void sub3(const float a[3], const float b[3], float o[3])
{
    for (int i = 0; i < 3; i++)
        o[i] = a[i] - b[i];
}
static void norm3(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0)
        for (int i = 0; i < 3; i++)
            v[i] /= l;
}
static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* A map of n quads (corners in winding order, drawn side facing the viewer when they appear
 * clockwise, as Quake's are): one node whose front child is leaf 1 (all quads, no vis data)
 * and back child the solid leaf 0. Quad i has a 16x16 texture of palette index color[i] and a
 * lightmap of constant light[i]. fmt 0 writes BSP29, 1 "BSP2" (32-bit indices, float node
 * and leaf bounds), 2 "2PSB" (32-bit indices, short bounds). */
uint8_t *test_bsp_build(const float (*quads)[4][3], const uint8_t *color, const uint8_t *light,
                        int n, const char *extra_ents, size_t *len)
{
    return test_bsp_build_fmt(quads, color, light, n, extra_ents, 0, len);
}

/* A count or index: 16 bits in BSP29, 32 in BSP2 and 2PSB. */
static void idx(gbuf *b, int fmt, uint32_t v)
{
    if (fmt)
        g32(b, v);
    else
        g16(b, v & 0xffff);
}

/* Node or leaf bounds: int16 except BSP2's floats. */
static void bound(gbuf *b, int fmt, int v)
{
    if (fmt == 1)
        gf32(b, (float)v);
    else
        g16(b, (unsigned)(uint16_t)v);
}

uint8_t *test_bsp_build_fmt(const float (*quads)[4][3], const uint8_t *color,
                            const uint8_t *light, int n, const char *extra_ents, int fmt,
                            size_t *len)
{
    int counts[64];
    for (int i = 0; i < n && i < 64; i++)
        counts[i] = 4;
    return test_bsp_build_polys((const float(*)[3])quads, counts, color, light, n, extra_ents,
                                fmt, len);
}

/* As test_bsp_build_fmt for n (at most 64) polygons of counts[i] corners each, their corners
 * one after another in pts. A polygon's plane and texture axes come from its corners 0, 1
 * and the last, as a quad's from 0, 1 and 3. */
uint8_t *test_bsp_build_polys(const float (*pts)[3], const int *counts, const uint8_t *color,
                             const uint8_t *light, int n, const char *extra_ents, int fmt,
                             size_t *len)
{
    gbuf lumps[15] = {{0}};
    if (n > 64)
        return NULL;
    int first[65];
    first[0] = 0;
    for (int i = 0; i < n; i++)
        first[i + 1] = first[i] + counts[i];
    /* planes: one per polygon, then the node's plane z = -8000 */
    float tvec[64][2][3];
    for (int i = 0; i < n; i++) {
        const float(*poly)[3] = pts + first[i];
        float e1[3], e2[3], nrm[3];
        sub3(poly[1], poly[0], e1);
        sub3(poly[counts[i] - 1], poly[0], e2);
        /* Quake faces wind clockwise seen from the front: normal = e2 x e1. */
        nrm[0] = e2[1] * e1[2] - e2[2] * e1[1];
        nrm[1] = e2[2] * e1[0] - e2[0] * e1[2];
        nrm[2] = e2[0] * e1[1] - e2[1] * e1[0];
        norm3(nrm);
        for (int j = 0; j < 3; j++)
            gf32(&lumps[1], nrm[j]);
        gf32(&lumps[1], dot3(nrm, poly[0]));
        g32(&lumps[1], 5);
        memcpy(tvec[i][0], e1, sizeof e1);
        memcpy(tvec[i][1], e2, sizeof e2);
        norm3(tvec[i][0]);
        norm3(tvec[i][1]);
    }
    gf32(&lumps[1], 0), gf32(&lumps[1], 0), gf32(&lumps[1], 1), gf32(&lumps[1], -8000);
    g32(&lumps[1], 2);
    /* textures */
    g32(&lumps[2], (uint32_t)n);
    for (int i = 0; i < n; i++)
        g32(&lumps[2], (uint32_t)(4 + 4 * n + i * (40 + 340)));
    for (int i = 0; i < n; i++) {
        char name[16] = {0};
        name[0] = 't';
        name[1] = (char)('a' + i % 26);
        gput(&lumps[2], name, 16);
        g32(&lumps[2], 16), g32(&lumps[2], 16);
        g32(&lumps[2], 40), g32(&lumps[2], 40 + 256), g32(&lumps[2], 40 + 320),
            g32(&lumps[2], 40 + 336);
        for (int j = 0; j < 340; j++)
            g8(&lumps[2], color[i]);
    }
    /* vertexes, edges (edge 0 unused), surfedges */
    idx(&lumps[12], fmt, 0), idx(&lumps[12], fmt, 0);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < counts[i]; k++) {
            for (int j = 0; j < 3; j++)
                gf32(&lumps[3], pts[first[i] + k][j]);
            idx(&lumps[12], fmt, (uint32_t)(first[i] + k));
            idx(&lumps[12], fmt, (uint32_t)(first[i] + (k + 1) % counts[i]));
            g32(&lumps[13], (uint32_t)(1 + first[i] + k));
        }
    /* texinfo, faces, lighting */
    for (int i = 0; i < n; i++) {
        for (int s = 0; s < 2; s++) {
            for (int j = 0; j < 3; j++)
                gf32(&lumps[6], tvec[i][s][j]);
            gf32(&lumps[6], 0);
        }
        g32(&lumps[6], (uint32_t)i), g32(&lumps[6], 0);
        double mins[2] = {1e30, 1e30}, maxs[2] = {-1e30, -1e30};
        for (int k = 0; k < counts[i]; k++)
            for (int s = 0; s < 2; s++) {
                const float *q = pts[first[i] + k];
                float v = (float)((double)q[0] * tvec[i][s][0] + (double)q[1] * tvec[i][s][1] +
                                  (double)q[2] * tvec[i][s][2]);
                mins[s] = v < mins[s] ? v : mins[s];
                maxs[s] = v > maxs[s] ? v : maxs[s];
            }
        size_t samples = 1;
        for (int s = 0; s < 2; s++)
            samples *= (size_t)((ceil(maxs[s] / 16) - floor(mins[s] / 16)) + 1);
        idx(&lumps[7], fmt, (uint32_t)i), idx(&lumps[7], fmt, 0);
        g32(&lumps[7], (uint32_t)first[i]), idx(&lumps[7], fmt, (uint32_t)counts[i]);
        idx(&lumps[7], fmt, (uint32_t)i);
        g8(&lumps[7], 0), g8(&lumps[7], 255), g8(&lumps[7], 255), g8(&lumps[7], 255);
        g32(&lumps[7], (uint32_t)lumps[8].len);
        for (size_t k = 0; k < samples; k++)
            g8(&lumps[8], light[i]);
    }
    /* one node, two leafs, marksurfaces, one model */
    g32(&lumps[5], (uint32_t)n);
    if (fmt)
        g32(&lumps[5], (uint32_t)-2), g32(&lumps[5], (uint32_t)-1);
    else
        g16(&lumps[5], (unsigned)(uint16_t)-2), g16(&lumps[5], (unsigned)(uint16_t)-1);
    for (int j = 0; j < 3; j++)
        bound(&lumps[5], fmt, -8192);
    for (int j = 0; j < 3; j++)
        bound(&lumps[5], fmt, 8192);
    idx(&lumps[5], fmt, 0), idx(&lumps[5], fmt, 0);
    for (int leaf = 0; leaf < 2; leaf++) {
        g32(&lumps[10], leaf ? (uint32_t)-1 : (uint32_t)-2);
        g32(&lumps[10], (uint32_t)-1);
        for (int j = 0; j < 3; j++)
            bound(&lumps[10], fmt, -8192);
        for (int j = 0; j < 3; j++)
            bound(&lumps[10], fmt, 8192);
        idx(&lumps[10], fmt, 0), idx(&lumps[10], fmt, leaf ? (uint32_t)n : 0);
        g32(&lumps[10], 0);
    }
    for (int i = 0; i < n; i++)
        idx(&lumps[11], fmt, (uint32_t)i);
    for (int j = 0; j < 6; j++)
        gf32(&lumps[14], j < 3 ? -8192.0f : 8192.0f);
    for (int j = 0; j < 3; j++)
        gf32(&lumps[14], 0);
    for (int j = 0; j < 4; j++)
        g32(&lumps[14], 0);
    g32(&lumps[14], 1), g32(&lumps[14], 0), g32(&lumps[14], (uint32_t)n);
    /* entities */
    const char *ws = "{\n\"classname\" \"worldspawn\"\n\"message\" \"synthetic\"\n}\n";
    gput(&lumps[0], ws, strlen(ws));
    if (extra_ents)
        gput(&lumps[0], extra_ents, strlen(extra_ents));
    g8(&lumps[0], 0);

    gbuf out = {0};
    if (fmt == 0)
        g32(&out, 29);
    else
        gput(&out, fmt == 1 ? "BSP2" : "2PSB", 4);
    for (int i = 0; i < 15; i++)
        g32(&out, 0), g32(&out, 0);
    for (int i = 0; i < 15; i++) {
        while (out.len % 4)
            g8(&out, 0);
        set_u32(&out, 4 + 8 * (size_t)i, (uint32_t)out.len);
        set_u32(&out, 8 + 8 * (size_t)i, (uint32_t)lumps[i].len);
        if (lumps[i].len)
            gput(&out, lumps[i].p, lumps[i].len);
        free(lumps[i].p);
    }
    *len = out.len;
    return out.p;
}

/* An MDL: 3 verts, 1 triangle; skins: one single 8x4 of index 80, one group of two; frames:
 * a single frame, then a group of two poses. Scale 2, translate (-10, 0, 5). */
uint8_t *test_mdl_build(size_t *len)
{
    gbuf b = {0};
    gput(&b, "IDPO", 4);
    g32(&b, 6);
    gf32(&b, 2), gf32(&b, 2), gf32(&b, 2);
    gf32(&b, -10), gf32(&b, 0), gf32(&b, 5);
    gf32(&b, 30);
    gf32(&b, 0), gf32(&b, 0), gf32(&b, 22);
    g32(&b, 2), g32(&b, 8), g32(&b, 4);      /* skins, width, height */
    g32(&b, 3), g32(&b, 1), g32(&b, 2);      /* verts, tris, frames */
    g32(&b, 0), g32(&b, 8), gf32(&b, 10);     /* synctype, flags (EF_ROTATE), size */
    g32(&b, 0);
    for (int i = 0; i < 32; i++)
        g8(&b, 80);
    g32(&b, 1), g32(&b, 2), gf32(&b, 0.1f), gf32(&b, 0.2f);
    for (int i = 0; i < 64; i++)
        g8(&b, i < 32 ? 15 : 0);
    for (int i = 0; i < 3; i++)
        g32(&b, i == 2), g32(&b, (uint32_t)(i * 4)), g32(&b, (uint32_t)i);
    g32(&b, 1), g32(&b, 0), g32(&b, 1), g32(&b, 2);
    static const char names[3][16] = {"stand1", "run1", "run2"};
    for (int f = 0; f < 3; f++) {
        if (f == 0)
            g32(&b, 0);
        if (f == 1) {
            g32(&b, 1), g32(&b, 2);
            g32(&b, 0), g32(&b, 0);
            gf32(&b, 0.1f), gf32(&b, 0.2f);
        }
        g32(&b, 0), g32(&b, 0x000a0a0a); /* bboxmin (0,0,0), bboxmax (10,10,10) */
        gput(&b, names[f], 16);
        for (int v = 0; v < 3; v++)
            g8(&b, (unsigned)(v * 10 + f)), g8(&b, (unsigned)v), g8(&b, 100), g8(&b, 7);
    }
    *len = b.len;
    return b.p;
}

/* An SPR: a single 4x2 frame (half transparent) and a group of two 2x2 frames. */
uint8_t *test_spr_build(size_t *len)
{
    gbuf b = {0};
    gput(&b, "IDSP", 4);
    g32(&b, 1), g32(&b, 2), gf32(&b, 8);
    g32(&b, 4), g32(&b, 2), g32(&b, 2), gf32(&b, 0), g32(&b, 0);
    g32(&b, 0);
    g32(&b, (uint32_t)-2), g32(&b, 1), g32(&b, 4), g32(&b, 2);
    for (int i = 0; i < 8; i++)
        g8(&b, i < 4 ? 251 : 255);
    g32(&b, 1), g32(&b, 2), gf32(&b, 0.1f), gf32(&b, 0.2f);
    for (int f = 0; f < 2; f++) {
        g32(&b, (uint32_t)-1), g32(&b, 1), g32(&b, 2), g32(&b, 2);
        for (int i = 0; i < 4; i++)
            g8(&b, 254);
    }
    *len = b.len;
    return b.p;
}
