/* fuzz_rast.c: libFuzzer target for the rasteriser's textured fills: the bytes give a small
 * framebuffer, a convex polygon (any floats: NaN, infinities, huge), a texture (repeating or
 * clamped, powers of two or not), a palette-index texture (maybe affine, as a body's skin)
 * or a light texture with its mip chain, the attribute planes and the fill's flags; the
 * polygon is drawn twice over a depth buffer the first draw left. Whatever the numbers, every texel, light and pixel read or
 * written stays inside its array (ASan, UBSan). On a processor with AVX2 the draws are made
 * by each AVX2 copy (with gathers, with loads, in AVX-512's encoding) and by the SSE2
 * rasteriser (rast_simd) and must leave the same bytes: a difference aborts, which the
 * fuzzer reports as a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/render/rast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct cursor {
    const uint8_t *p;
    size_t n;
} cursor;

static uint8_t u8(cursor *c)
{
    if (!c->n)
        return 0;
    c->n--;
    return *c->p++;
}

static float f32(cursor *c)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)u8(c) << (8 * i);
    float f;
    memcpy(&f, &v, sizeof f);
    return f;
}

/* A plane's three coefficients: small ones mostly (so pixels get drawn), any floats too. */
static void plane(cursor *c, double p[3])
{
    uint8_t how = u8(c);
    for (int i = 0; i < 3; i++)
        p[i] = how & 1 ? (double)f32(c) : (double)((int8_t)u8(c)) / (double)(1 + (how >> 1 & 31));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cursor c = {data, size};
    int fw = 1 + u8(&c) % 48, fh = 1 + u8(&c) % 32;
    rast_fb *fb = rast_fb_new(fw, fh);
    if (!fb)
        return 0;
    int n = 3 + u8(&c) % 6;
    rast_vert v[8];
    uint8_t vmode = u8(&c);
    for (int i = 0; i < n; i++) {
        if (vmode & 1) {
            v[i].x = f32(&c), v[i].y = f32(&c), v[i].z = f32(&c);
        } else {
            v[i].x = (float)((int8_t)u8(&c)) + 16, v[i].y = (float)((int8_t)u8(&c)) + 16;
            v[i].z = (float)(1 + u8(&c)) / 64.0f;
        }
    }
    rast_tex t;
    memset(&t, 0, sizeof t);
    uint8_t kind = u8(&c);
    t.wrap = kind & 1;
    int pow2 = t.wrap || (kind & 2);
    t.w = pow2 ? 1 << (u8(&c) % 7) : 1 + u8(&c) % 70;
    t.h = pow2 ? 1 << (u8(&c) % 7) : 1 + u8(&c) % 70;
    size_t texels = (size_t)t.w * (size_t)t.h;
    uint32_t *tex = malloc(texels * sizeof *tex);
    uint32_t *mip[8] = {0};
    uint8_t *index = NULL;
    uint32_t *lut = NULL, *light = NULL;
    int32_t warp[128];
    if (!tex)
        goto out;
    for (size_t i = 0; i < texels; i++)
        tex[i] = 0x01000193u * (uint32_t)(i + 1) ^ (uint32_t)u8(&c) << 24;
    t.texels = tex;
    plane(&c, t.s);
    plane(&c, t.t);
    plane(&c, t.q);
    switch (kind >> 2 & 3) {
    case 1: /* palette indices through a 64-row colour table, maybe a see-through key */
        index = malloc(texels);
        lut = malloc(64 * 256 * sizeof *lut);
        if (!index || !lut)
            goto out;
        for (size_t i = 0; i < texels; i++)
            index[i] = (uint8_t)(i * 7 + u8(&c));
        for (int i = 0; i < 64 * 256; i++)
            lut[i] = 0xff000000u | (uint32_t)i * 2654435761u >> 8;
        t.index = index;
        t.lut = lut;
        t.texels = NULL;
        t.has_key = kind >> 4 & 1, t.key = u8(&c);
        plane(&c, t.lrow);
        if (kind & 0x40) { /* affine, as r_skin_tri makes a body's skin (poly_raster's two
                            * passes over its rows: skin_rows_draw) */
            t.q[0] = t.q[1] = 0;
            t.q[2] = 1;
        }
        break;
    case 2: /* a light texture, and with a repeating or power-of-two image its mip chain */
    case 3:
        t.lw = 1 + u8(&c) % 9, t.lh = 1 + u8(&c) % 9;
        light = malloc((size_t)t.lw * (size_t)t.lh * sizeof *light);
        if (!light)
            goto out;
        for (int i = 0; i < t.lw * t.lh; i++)
            light[i] = 0xff000000u | (uint32_t)u8(&c) << 16 | (uint32_t)u8(&c) << 8 | u8(&c);
        t.light = light;
        plane(&c, t.ls);
        plane(&c, t.lt);
        if (pow2 && (kind >> 2 & 3) == 3) {
            mip[0] = tex;
            int levels = 1;
            while (levels < 8 && (t.w >> levels > 0 || t.h >> levels > 0)) {
                int lw = t.w >> levels > 0 ? t.w >> levels : 1;
                int lh = t.h >> levels > 0 ? t.h >> levels : 1;
                mip[levels] = malloc((size_t)lw * (size_t)lh * sizeof *mip[0]);
                if (!mip[levels])
                    goto out;
                for (int i = 0; i < lw * lh; i++)
                    mip[levels][i] = 0xff000000u | (uint32_t)(levels * 40 + i);
                levels++;
            }
            t.mips = (const uint32_t *const *)mip;
            t.num_mips = levels;
        }
        break;
    default:
        break;
    }
    if (kind & 0x20 && t.wrap && !t.light) { /* Quake's turbulent warp */
        for (int i = 0; i < 128; i++)
            warp[i] = (int32_t)((int8_t)u8(&c)) * 16384;
        t.warp = warp;
    }
    static const unsigned modes[8] = {
        RAST_OPAQUE,
        RAST_OPAQUE | RAST_ALPHA_TEST,
        RAST_DEPTH_TEST | RAST_COLOR_WRITE | RAST_ADD,
        RAST_DEPTH_TEST | RAST_COLOR_WRITE | RAST_MUL,
        RAST_DEPTH_TEST | RAST_COLOR_WRITE | RAST_ADD | RAST_MUL,
        RAST_DEPTH_TEST | RAST_COLOR_WRITE | RAST_BLEND,
        RAST_COLOR_WRITE | RAST_BLEND,
        RAST_DEPTH_WRITE | RAST_COLOR_WRITE,
    };
    unsigned flags = modes[u8(&c) & 7];
    int levels = rast_simd(-1) >= 2 ? rast_simd(4) : 1; /* SSE2 last: the reference */
    for (int lv = levels; lv >= 1; lv--) {
        rast_fb *to = lv == levels ? fb : rast_fb_new(fw, fh);
        if (!to)
            break;
        if (levels > 1)
            rast_simd(lv);
        rast_clear(to, 0xff102030u);
        rast_polygon_tex(to, v, n, &t, flags);
        rast_polygon_tex(to, v, n, &t, flags); /* again over what it left */
        size_t px = (size_t)fw * (size_t)fh;
        if (to != fb) {
            if (memcmp(fb->color, to->color, px * 4) || memcmp(fb->depth, to->depth, px * 4)) {
                fprintf(stderr, "fuzz_rast: levels %d and %d of the rasteriser drew different "
                                "bytes\n", levels, lv);
                abort();
            }
            rast_fb_free(to);
        }
    }
    if (levels > 1)
        rast_simd(levels);
out:
    for (int i = 1; i < 8; i++)
        free(mip[i]);
    free(tex);
    free(index);
    free(lut);
    free(light);
    rast_fb_free(fb);
    return 0;
}
