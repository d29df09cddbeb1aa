/* rast.h: the rasteriser: framebuffers, triangles, spans, lines and a depth test.
 * It knows nothing of Quake (DESIGN.md): callers hand it screen-space vertices.
 *
 * Conventions
 * - Pixel (x, y) covers [x, x+1) x [y, y+1); its centre is (x + 0.5, y + 0.5). y grows down.
 * - Colours are packed RGBA8 in a uint32_t as bytes R, G, B, A in memory order, i.e. the
 *   value (a << 24 | b << 16 | g << 8 | r) on little-endian machines: use rast_rgb().
 * - Depth is inverse depth, z = 1/w: larger is nearer. The depth buffer is cleared to 0
 *   (infinitely far) and a pixel passes when its z is greater than the stored one. Because
 *   1/w is affine in screen space, interpolating it linearly is perspective-correct.
 * - Triangles use the top-left fill rule, so shared edges are drawn exactly once: no
 *   cracks, no double blending.
 * - Everything is deterministic: same calls, same bytes, on any thread. */
#ifndef QD_RAST_H
#define QD_RAST_H

#include <stdint.h>

typedef struct rast_cover rast_cover; /* per row: the columns already drawn (rast.c) */

typedef struct rast_fb {
    int w, h;
    uint32_t *color; /* w*h pixels, row-major, no padding */
    float *depth;    /* w*h inverse depths */
    rast_cover *cover; /* h rows of coverage for RAST_COVER (NULL: the flag is ignored) */
} rast_fb;

typedef struct rast_vert {
    float x, y; /* screen position in pixels */
    float z;    /* inverse depth 1/w, > 0 */
} rast_vert;

static inline uint32_t rast_rgb(unsigned r, unsigned g, unsigned b)
{
    return (uint32_t)(r & 255) | (uint32_t)(g & 255) << 8 | (uint32_t)(b & 255) << 16 |
           0xff000000u;
}

/* c's colour doubled, saturating, its alpha kept: a colour of a frame kept at half scale
 * as shown (Quake III's hardware overbright bit: rast_tex.light_x2). */
static inline uint32_t rast_twice(uint32_t c)
{
    uint32_t out = c & 0xff000000u;
    for (int sh = 0; sh < 24; sh += 8) {
        uint32_t x = (c >> sh & 255) * 2;
        out |= (x > 255 ? 255 : x) << sh;
    }
    return out;
}

/* 1 when every pixel of columns x0..x1-1, rows y0..y1-1 (clamped to the fb; none: 1)
 * already holds a depth of z or more, so that nothing with depths up to z could be drawn
 * there (a NaN depth counts as one it could); rows a put-off clear left are made whole
 * first. The rasteriser asks the same of each depth-tested fill's box itself. */
int rast_rect_hidden(rast_fb *fb, int x0, int y0, int x1, int y1, float z);

/* 1 when the box of the n points v (n >= 1) is under 4 pixels each way and holds no pixel
 * centre even widened by 1/128 of a pixel (more than the rasteriser's 1/256 snapping moves
 * a corner): a polygon there draws no pixel, so its set-up can be skipped (a distant body's
 * tiny triangles: two thirds of them). 0 otherwise, and for any non-finite point. */
static inline int rast_no_centre(const rast_vert *v, int n)
{
    float x0 = v[0].x, x1 = x0, y0 = v[0].y, y1 = y0;
    for (int i = 1; i < n; i++) {
        x0 = v[i].x < x0 ? v[i].x : x0;
        x1 = v[i].x > x1 ? v[i].x : x1;
        y0 = v[i].y < y0 ? v[i].y : y0;
        y1 = v[i].y > y1 ? v[i].y : y1;
    }
    if (!(x1 - x0 < 4 && y1 - y0 < 4 && x0 > -1e6f && x1 < 1e6f && y0 > -1e6f && y1 < 1e6f))
        return 0;
    /* centres k + 0.5 within [a, b]: floor(b - 0.5) >= ceil(a - 0.5) (floor by truncation
     * less one where it lies above: |values| < 1e6) */
    const float m = 1.0f / 128;
    float xa = x0 - m - 0.5f, xb = x1 + m - 0.5f, ya = y0 - m - 0.5f, yb = y1 + m - 0.5f;
    int fxb = (int)xb - ((float)(int)xb > xb), fyb = (int)yb - ((float)(int)yb > yb);
    int cxa = (int)xa + ((float)(int)xa < xa), cya = (int)ya + ((float)(int)ya < ya);
    return fxb < cxa || fyb < cya;
}

/* Flags for the fill calls. */
#define RAST_DEPTH_TEST 0x1   /* draw only where nearer than the depth buffer */
#define RAST_DEPTH_WRITE 0x2  /* store z where drawn */
#define RAST_COLOR_WRITE 0x4  /* store the colour where drawn */
#define RAST_BLEND 0x8        /* blend the colour over the old one by its alpha byte */
#define RAST_OPAQUE (RAST_DEPTH_TEST | RAST_DEPTH_WRITE | RAST_COLOR_WRITE)
/* Textured fills only (with RAST_COLOR_WRITE): how the texel meets the old colour. */
#define RAST_ADD 0x10        /* old + texel per channel, clamped at 255 */
#define RAST_MUL 0x20        /* old * texel / 255 per channel; with RAST_BLEND twice that,
                              * clamped at 255 (GL_DST_COLOR GL_SRC_COLOR); with RAST_ADD,
                              * old + that
                              * (GL_DST_COLOR GL_ONE: Quake III's dynamic lights) */
#define RAST_ALPHA_TEST 0x40 /* texels whose alpha byte is below 128 draw nothing */
/* Front-to-back drawing (a BSP's world in node order, Quake's span sorting in spirit): the
 * pixels of a row already covered by an earlier RAST_COVER fill are skipped before any
 * texel is read, and the fill's own pixels become covered. Only for fills whose pixels all
 * hide what comes after (opaque ones, drawn nearest first); the depth test still runs, so
 * a row whose list is full (rast_cover_reset) merely draws with it alone. */
#define RAST_COVER 0x80

/* A framebuffer of w x h (1..16384 each); NULL when out of memory. */
rast_fb *rast_fb_new(int w, int h);
void rast_fb_free(rast_fb *fb);
/* Fill colour with c and depth with 0. */
void rast_clear(rast_fb *fb, uint32_t c);
/* The same for rows y0..y1-1 (clamped to the framebuffer). */
void rast_clear_rows(rast_fb *fb, uint32_t c, int y0, int y1);
/* Forget the coverage of rows y0..y1-1 (clamped): nothing covered there. */
void rast_cover_reset(rast_fb *fb, int y0, int y1);
/* rast_clear_rows(fb, c, y0, y1) put off for a front-to-back walk of covering fills: the
 * coverage is forgotten and the rows count as cleared, but a row's uncovered pixels are only
 * written when a fill that reads the buffers or does not cover comes to it, or by
 * rast_finish_rows, which must come before the pixels are read otherwise. A covering lit
 * wall on such a row writes its pixels without clearing them first. */
void rast_cover_begin_stale(rast_fb *fb, uint32_t c, int y0, int y1);
void rast_finish_rows(rast_fb *fb, int y0, int y1);

/* A triangle in one colour. Vertices in any winding; degenerate ones draw nothing.
 * Vertices may lie off screen (the rasteriser clips to the framebuffer) but must have
 * z > 0: near-plane clipping is the caller's job, done in clip space. */
void rast_triangle(rast_fb *fb, const rast_vert v[3], uint32_t color, unsigned flags);

/* A convex polygon of n (3..64) vertices, as a fan of triangles. */
void rast_polygon(rast_fb *fb, const rast_vert *v, int n, uint32_t color, unsigned flags);

/* A texture for the textured fills: w x h texels (colours as above), row-major. The texture
 * coordinates of a pixel come from three planes in screen space: at the pixel's centre
 * (px, py) = (x + 0.5, y + 0.5), s/w = s[0] px + s[1] py + s[2], likewise t/w, and
 * q = 1/w; the texel is (s/w / q, t/w / q). For a planar polygon these are exact
 * (perspective-correct) however the polygon was clipped, so callers give the planes of the
 * whole surface. The texel's alpha is ignored unless the flags hold RAST_BLEND. */
typedef struct rast_tex {
    const uint32_t *texels;
    int w, h;       /* 1..16384 */
    int wrap;       /* 0: clamp to the edges; 1: repeat (w and h must be powers of two) */
    /* NULL, or 128 offsets in 1/65536 texels: a sine warp (Quake's turbulent liquids),
     * s += warp[t & 127] and t += warp[s & 127] with the unwarped integer s and t. */
    const int32_t *warp;
    double s[3], t[3], q[3];
    /* Instead of texels (NULL then): palette indices, w x h, coloured through lut (64 rows of
     * 256 colours) at the row of the light plane, lrow[0] px + lrow[1] py + lrow[2],
     * affine in screen space (as Quake's alias spans step their light), clamped to 0..63.
     * Such a texture is drawn opaque or blended by alpha; light, mips, RAST_ADD, RAST_MUL
     * and RAST_ALPHA_TEST do not apply to it. */
    const uint8_t *index;
    const uint32_t *lut;
    double lrow[3];
    uint8_t has_key, key; /* with index: texels of index key are not drawn (see-through) */
    /* NULL, or a second texture of lw x lh (1..16384) texels that modulates the first (a
     * lightmap; vertex colours as 2x2 texels): read at (ls/w / q, lt/w / q) with the planes
     * as s and t, bilinearly between texel centres and clamped to its edges. The pixel is
     * texel * light / 255 per channel, its alpha the first texel's. */
    const uint32_t *light;
    int lw, lh;
    double ls[3], lt[3];
    /* with light: the lit colour doubled, saturating (Quake III's light kept at half, as
     * ioquake3's frame is with its hardware overbright bit, and shown doubled: a light
     * past the texture's own colour shows, up to twice it) */
    uint8_t light_x2;
    /* with light: every light texel is opaque white and light_x2 is 0, so the lit colour is
     * the texel's (a layer of its own colour, white): the blended spans leave the light's
     * reads and products out (the same bytes) */
    uint8_t light_white;
    /* NULL, or (with light) num_mips levels of the texture, level k (w >> k) x (h >> k)
     * (at least 1 x 1; w and h powers of two), mips[0] the texels: s and t are then in
     * texels of level 0 and each run (8 to 64 pixels, rast.c run_pixels) reads the level
     * its texel footprint asks for (Quake's mip thresholds, per run instead of per face). */
    const uint32_t *const *mips;
    int num_mips;
    /* with mips: where a run's texels are larger than its pixels (level 0, under a texel a
     * pixel), its texels (not alpha-tested ones) are read bilinearly between texel centres,
     * as GL's GL_LINEAR magnification draws a Quake III wall or sprite close up (ioquake3's
     * r_textureMode GL_LINEAR_MIPMAP_NEAREST), a clamped image's neighbours kept at its edge
     * (GL_CLAMP_TO_EDGE); else nearest, as software Quake's */
    uint8_t mag_linear;
} rast_tex;

/* A convex polygon (as rast_polygon) filled from tex instead of one colour. */
void rast_polygon_tex(rast_fb *fb, const rast_vert *v, int n, const rast_tex *tex,
                      unsigned flags);
void rast_polygon_tex_rows(rast_fb *fb, const rast_vert *v, int n, const rast_tex *tex,
                           unsigned flags, int y0, int y1);

/* A line from a to b, one pixel wide, both ends included. With RAST_DEPTH_TEST it is drawn
 * where it is not behind the depth buffer, with a small bias so that a face's own edges
 * show on top of it. */
void rast_line(rast_fb *fb, rast_vert a, rast_vert b, uint32_t color, unsigned flags);

/* The n edges of a convex polygon (as rast_polygon takes it) as lines. With
 * RAST_DEPTH_TEST the bias follows the polygon's own depth slope, so its outline shows on
 * it even where it is seen at a grazing angle; a plain rast_line's relative bias does not
 * cover that. Corner pixels are drawn by both of their edges. */
void rast_polygon_outline(rast_fb *fb, const rast_vert *v, int n, uint32_t color,
                          unsigned flags);

/* The same calls limited to rows y0..y1-1 (clamped to the framebuffer). A pixel gets
 * the very bytes the full call would give it, so threads that each own a band of rows and
 * issue the same calls in the same order build the same frame as one thread. */
void rast_triangle_rows(rast_fb *fb, const rast_vert v[3], uint32_t color, unsigned flags,
                        int y0, int y1);
void rast_polygon_rows(rast_fb *fb, const rast_vert *v, int n, uint32_t color,
                       unsigned flags, int y0, int y1);
void rast_line_rows(rast_fb *fb, rast_vert a, rast_vert b, uint32_t color, unsigned flags,
                    int y0, int y1);
void rast_polygon_outline_rows(rast_fb *fb, const rast_vert *v, int n, uint32_t color,
                               unsigned flags, int y0, int y1);

/* The instruction set the textured fills run with: 4 AVX-512's encoding of the loads' copy
 * (rast_avx512.c's), 3 AVX2 with vpgatherdd (rast_avx2g.c's copy of the rasteriser), 2 AVX2
 * with loads (rast_avx2.c's), 1 SSE2, 0 plain C. On x86-64 processors with AVX2 the default
 * is 3 where gathers are quick (an Intel core that Linux lists as not affected by Gather
 * Data Sampling, Skylake or later), else 4 where the processor has AVX-512 (F, BW, VL and
 * DQ), else 2; QDEMO_SIMD=sse2, avx2, gather or avx512 in the environment picks one. want >= 0 picks that
 * level or the nearest the build and processor have (the SSE2 baseline is always there on
 * x86-64), want < 0 only asks. Every level draws the same bytes. Call it before drawing
 * starts, not while threads draw. */
int rast_simd(int want);

#endif
