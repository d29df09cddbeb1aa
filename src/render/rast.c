/* rast.c: the span rasteriser behind rast.h: 24.8 fixed-point edge functions, exact spans.
 *
 * Compiled four times on x86-64: here for the baseline (SSE2), and by rast_avx2.c,
 * rast_avx2g.c (-mavx2) and rast_avx512.c (AVX-512 allowed) under other public names
 * (rast_avx2_*, rast_avx2g_*, rast_avx512_*). The textured entry points hand their polygons
 * to one of those copies when the processor has AVX2 (rast_simd): the same source, so the
 * same bytes (the same single-precision operations in the same order; -mavx2 brings no
 * FMA, and rast_avx512.c is built with contraction off, so nothing is fused), with
 * three-operand instructions and 256-bit blocks; rast_avx2g.c's copy (QD_RAST_GATHER) also
 * reads texels and light with vpgatherdd, which only some processors do quickly, and
 * rast_avx512.c's is encoded with AVX-512's 32 registers and masks. */
#if defined(QD_RAST_AVX2)
/* this copy's public names: rast_avx2g_* (rast_avx2g.c, gathers), rast_avx512_*
 * (rast_avx512.c), rast_avx2_* (rast_avx2.c, loads) */
#if defined(QD_RAST_GATHER)
#define RAST_NAME(n) rast_avx2g_##n
#elif defined(QD_RAST_AVX512)
#define RAST_NAME(n) rast_avx512_##n
#else
#define RAST_NAME(n) rast_avx2_##n
#endif
#define rast_fb_new RAST_NAME(fb_new)
#define rast_fb_free RAST_NAME(fb_free)
#define rast_clear RAST_NAME(clear)
#define rast_clear_rows RAST_NAME(clear_rows)
#define rast_cover_reset RAST_NAME(cover_reset)
#define rast_cover_begin_stale RAST_NAME(cover_begin_stale)
#define rast_finish_rows RAST_NAME(finish_rows)
#define rast_rect_hidden RAST_NAME(rect_hidden)
#define rast_triangle RAST_NAME(triangle)
#define rast_polygon RAST_NAME(polygon)
#define rast_triangle_rows RAST_NAME(triangle_rows)
#define rast_polygon_rows RAST_NAME(polygon_rows)
#define rast_polygon_tex RAST_NAME(polygon_tex)
#define rast_polygon_tex_rows RAST_NAME(polygon_tex_rows)
#define rast_line RAST_NAME(line)
#define rast_line_rows RAST_NAME(line_rows)
#define rast_polygon_outline RAST_NAME(polygon_outline)
#define rast_polygon_outline_rows RAST_NAME(polygon_outline_rows)
#define rast_simd RAST_NAME(simd)
#endif
#include "rast.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Vertices snap to 1/256 pixel. Anything further than GUARD pixels from the origin is
 * clipped away in double first, which keeps every edge-function product below 2^59. */
#define SUB_BITS 8
#define SUB_ONE (1 << SUB_BITS)
#define SUB_HALF (SUB_ONE / 2)
#define GUARD 1048576.0
#define FB_MAX 16384
#define POLY_MAX 64
/* A line passes the depth test where z * LINE_BIAS is not behind the stored depth. */
#define LINE_BIAS (1.0f + 1.0f / 128.0f)
/* Depth slopes are capped so that z stays finite (no inf * 0) along a 16384-pixel span. */
#define DZ_MAX 1e30

typedef struct dvert {
    double x, y, z;
} dvert;

/* What a span writes: colour, flags and the depth ramp of the triangle. */
typedef struct span_ctx {
    uint32_t color;
    unsigned flags;
    float dz, zlo, zhi;
    const rast_tex *tex; /* textured fill, or NULL */
} span_ctx;

/* A row's coverage: up to COVER_CAP sorted, disjoint, non-touching column ranges
 * [a, b); a row whose list would overflow keeps what it has (covering less is always
 * safe: the depth test decides). */
#define COVER_CAP 30
struct rast_cover {
    int16_t n;
    int16_t mixed; /* a span wrote depth here without covering since the reset: a covered
                    * column's depth and colour may not be the cleared ones */
    int16_t stale; /* not cleared (rast_cover_begin_stale): the uncovered columns hold old
                    * pixels that count as stale_color and depth 0 (row_finish writes them) */
    int16_t pad;
    uint32_t stale_color;
    int16_t iv[2 * COVER_CAP];
};

/* Internal span flag: the pixels are as cleared (depth 0, nothing drawn), so an opaque fill
 * passes the depth test everywhere and need not read what is there (span_cover sets it on
 * a row no span has written depth to without covering). */
#define RAST_FRESH 0x100u

rast_fb *rast_fb_new(int w, int h)
{
    if (w < 1 || h < 1 || w > FB_MAX || h > FB_MAX)
        return NULL;
    size_t n = (size_t)w * (size_t)h;
    if (n > SIZE_MAX / sizeof(float) || n > SIZE_MAX / sizeof(uint32_t))
        return NULL;
    rast_fb *fb = calloc(1, sizeof *fb);
    if (!fb)
        return NULL;
    fb->w = w;
    fb->h = h;
    fb->color = malloc(n * sizeof *fb->color);
    fb->depth = malloc(n * sizeof *fb->depth);
    fb->cover = calloc((size_t)h, sizeof *fb->cover);
    if (!fb->color || !fb->depth || !fb->cover) {
        rast_fb_free(fb);
        return NULL;
    }
    rast_clear(fb, 0);
    return fb;
}

void rast_fb_free(rast_fb *fb)
{
    if (!fb)
        return;
    free(fb->color);
    free(fb->depth);
    free(fb->cover);
    free(fb);
}

void rast_cover_reset(rast_fb *fb, int y0, int y1)
{
    y0 = y0 < 0 ? 0 : y0;
    y1 = y1 > fb->h ? fb->h : y1;
    for (int y = y0; fb->cover && y < y1; y++)
        fb->cover[y].n = fb->cover[y].mixed = 0;
}

/* A stale row made whole: its uncovered columns get the clear colour and depth 0. */
static __attribute__((noinline)) void row_finish_stale(rast_fb *fb, int y)
{
    rast_cover *rc = &fb->cover[y];
    rc->stale = 0;
    uint32_t *c = fb->color + (size_t)y * (size_t)fb->w;
    float *d = fb->depth + (size_t)y * (size_t)fb->w;
    int x = 0;
    for (int k = 0; k <= rc->n; k++) {
        int a = k < rc->n ? rc->iv[2 * k] : fb->w, b = k < rc->n ? rc->iv[2 * k + 1] : fb->w;
        a = a < 0 ? 0 : a > fb->w ? fb->w : a;
        for (; x < a; x++) {
            c[x] = rc->stale_color;
            d[x] = 0;
        }
        x = b > x ? b : x;
    }
}

/* row_finish_stale where the row is stale (a call only then: every span asks). */
static inline void row_finish(rast_fb *fb, int y)
{
    if (fb->cover[y].stale)
        row_finish_stale(fb, y);
}

void rast_cover_begin_stale(rast_fb *fb, uint32_t c, int y0, int y1)
{
    y0 = y0 < 0 ? 0 : y0;
    y1 = y1 > fb->h ? fb->h : y1;
    if (!fb->cover || fb->w > INT16_MAX) {
        rast_clear_rows(fb, c, y0, y1);
        return;
    }
    for (int y = y0; y < y1; y++) {
        rast_cover *rc = &fb->cover[y];
        rc->n = rc->mixed = 0;
        rc->stale = 1;
        rc->stale_color = c;
    }
}

void rast_finish_rows(rast_fb *fb, int y0, int y1)
{
    y0 = y0 < 0 ? 0 : y0;
    y1 = y1 > fb->h ? fb->h : y1;
    for (int y = y0; fb->cover && y < y1; y++)
        row_finish(fb, y);
}

void rast_clear_rows(rast_fb *fb, uint32_t c, int y0, int y1)
{
    y0 = y0 < 0 ? 0 : y0;
    y1 = y1 > fb->h ? fb->h : y1;
    if (y0 >= y1)
        return;
    size_t first = (size_t)y0 * (size_t)fb->w, n = (size_t)(y1 - y0) * (size_t)fb->w;
    uint32_t *p = fb->color + first;
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i v = _mm_set1_epi32((int)c);
    for (; i + 4 <= n; i += 4)
        _mm_storeu_si128((__m128i *)(p + i), v);
#endif
    for (; i < n; i++)
        p[i] = c;
    memset(fb->depth + first, 0, n * sizeof *fb->depth); /* 0.0f is all zero bits */
    for (int y = y0; fb->cover && y < y1; y++)
        fb->cover[y].stale = 0;
}

void rast_clear(rast_fb *fb, uint32_t c)
{
    rast_clear_rows(fb, c, 0, fb->h);
}

/* How many rows ahead poly_raster asks for the depths of its spans' rows (two and one
 * measured the same; four less). */
#define PF_ROWS 2

/* ---- spans ---------------------------------------------------------------------------- */

/* round(x / 255) for x in 0..255*255. */
static inline uint32_t div255(uint32_t x)
{
    x += 128;
    return (x + (x >> 8)) >> 8;
}

/* src over dst by src's alpha byte, per channel; alpha becomes a + da * (1 - a). */
static inline uint32_t blend_px(uint32_t src, uint32_t dst)
{
    uint32_t a = src >> 24, ia = 255 - a;
    uint32_t r = div255((src & 255) * a + (dst & 255) * ia);
    uint32_t g = div255((src >> 8 & 255) * a + (dst >> 8 & 255) * ia);
    uint32_t b = div255((src >> 16 & 255) * a + (dst >> 16 & 255) * ia);
    uint32_t oa = a + div255((dst >> 24) * ia);
    return r | g << 8 | b << 16 | oa << 24;
}

static inline float clampz(float z, float lo, float hi)
{
    z = z < lo ? lo : z;
    return z > hi ? hi : z;
}

/* The common case: depth test, depth write, colour write. The SSE2 path does the same
 * IEEE single operations in the same order as the scalar tail, so results are identical. */
static void span_opaque(uint32_t *restrict c, float *restrict d, int n, float zs,
                        const span_ctx *sc)
{
    int i = 0;
#if defined(__SSE2__)
    const __m128 vzs = _mm_set1_ps(zs), vdz = _mm_set1_ps(sc->dz);
    const __m128 vlo = _mm_set1_ps(sc->zlo), vhi = _mm_set1_ps(sc->zhi);
    const __m128i vcol = _mm_set1_epi32((int)sc->color);
    __m128i idx = _mm_setr_epi32(0, 1, 2, 3);
    const __m128i four = _mm_set1_epi32(4);
    for (; i + 4 <= n; i += 4) {
        __m128 z = _mm_add_ps(vzs, _mm_mul_ps(vdz, _mm_cvtepi32_ps(idx)));
        z = _mm_min_ps(_mm_max_ps(z, vlo), vhi);
        __m128 old = _mm_loadu_ps(d + i);
        __m128 pass = _mm_cmpgt_ps(z, old);
        idx = _mm_add_epi32(idx, four);
        if (!_mm_movemask_ps(pass)) /* hidden: leave the cache lines clean */
            continue;
        __m128i m = _mm_castps_si128(pass);
        _mm_storeu_ps(d + i, _mm_or_ps(_mm_and_ps(pass, z), _mm_andnot_ps(pass, old)));
        __m128i oc = _mm_loadu_si128((const __m128i *)(c + i));
        _mm_storeu_si128((__m128i *)(c + i),
                         _mm_or_si128(_mm_and_si128(m, vcol), _mm_andnot_si128(m, oc)));
    }
#endif
    for (; i < n; i++) {
        float z = clampz(zs + sc->dz * (float)i, sc->zlo, sc->zhi), od = d[i];
        int pass = z > od;
        d[i] = pass ? z : od;
        c[i] = pass ? sc->color : c[i];
    }
}

/* Every other flag combination; flags is a constant in each caller, so the branches fold. */
static inline void span_generic(uint32_t *restrict c, float *restrict d, int n, float zs,
                                const span_ctx *sc, unsigned flags)
{
    const uint32_t col = sc->color;
    for (int i = 0; i < n; i++) {
        float z = clampz(zs + sc->dz * (float)i, sc->zlo, sc->zhi);
        if ((flags & RAST_DEPTH_TEST) && !(z > d[i]))
            continue;
        if (flags & RAST_DEPTH_WRITE)
            d[i] = z;
        if (flags & RAST_BLEND)
            c[i] = blend_px(col, c[i]);
        else if (flags & RAST_COLOR_WRITE)
            c[i] = col;
    }
}

static void span_fill(uint32_t *restrict c, int n, uint32_t col)
{
    for (int i = 0; i < n; i++)
        c[i] = col;
}

/* A texel coordinate to 16.16 fixed point, NaN and far-off values pinned inside +-30000
 * texels first (textures are at most 16384 wide, so the clamp or the repeat decides). */
static inline int32_t tex_fix(float s)
{
    s = s > -30000.0f ? s : -30000.0f; /* NaN becomes -30000 too */
    s = s < 30000.0f ? s : 30000.0f;
    return (int32_t)(s * 65536.0f);
}

/* Pixels between exact divisions. Software Quake divided every 16 of its 320 columns; at
 * 1280 columns a run of 32 spans the angle of 8 of those. */
#define TEX_RUN 32
/* The longest run: twice that, where the perspective bends a run's coordinates by at most
 * a pixel's worth of texture across it (run_pixels, which also takes 16 or 8 where even
 * TEX_RUN would bend them more). */
#define LIT_RUN 64

/* The pixels of a run whose texture coordinates go linearly between its two exact ends,
 * `left` pixels of the span left from its start: the longest of LIT_RUN (TEX_RUN where
 * no more than that are left), half that, ... down to 8 along which the linear steps stray
 * from the exact coordinates by at most a pixel's worth of texture (the caller cuts it to
 * `left`).
 * Over k pixels along which q (the perspective's divisor, q at the run's start) changes by
 * dq a pixel, they stray most at the middle, by about k (k |dq| / q) / 4 pixels (the
 * texels a pixel cancel out, so whatever the level): at most one while k^2 |dq| <= 4 q.
 * The light's coordinates step alike. Measured along oa_dm3's flyby (60 frames at
 * 1280x720, each drawn run's middle against the exact perspective): with 32-pixel runs
 * everywhere and 64 only where q changed by under 1/160 across them, as before
 * 2026-11-30, 3.6 % of the runs strayed by a pixel or more and 0.6 % by two or more (6
 * at the worst: close walls and beams at a grazing angle, their texture's straight lines
 * bent at each run's end); so, 0.5 % by a pixel or more and none by two, for fewer
 * instructions (walls seen square take 64 more often: oa_dm3 -0.2 %, the bot match -0.5 %,
 * Quake's sample -1.6 %, which took no 64 before). Quake's own software renderer divides
 * every 16 pixels. */
static inline int run_pixels(float q, float dq, int left)
{
    const float a = fabsf(dq);
    return left > TEX_RUN && a * (64 * 64 / 4) <= q ? 64
           : a * (32 * 32 / 4) <= q                ? 32
           : a * (16 * 16 / 4) <= q                ? 16
                                                   : 8;
}
_Static_assert(TEX_RUN == 32 && LIT_RUN == 64, "run_pixels' lengths");

/* diff / steps truncated, as int32, for steps 1..LIT_RUN and |diff| < 2^32 (tex_fix pins
 * both ends within +-30000 texels): a full run's constant divisor becomes a shift, a
 * shorter run's a multiplication by a 38-bit reciprocal, M = floor(2^38 / d) + 1. That is
 * exact: a M / 2^38 = a / d + a (M d - 2^38) / (d 2^38), where the second term is below
 * 2^32 d / (d 2^38) = 1/64 and a / d sits at most (d - 1) / d past an integer, so for
 * d < 64 the floor is a / d's. (A 64-bit division is a long-latency instruction; a span's
 * last run takes four.) */
static inline __attribute__((unused)) int32_t run_step(int64_t diff, int steps)
{
    if (steps == TEX_RUN)
        return (int32_t)(diff / TEX_RUN);
    if (steps == LIT_RUN)
        return (int32_t)(diff / LIT_RUN);
#if defined(__SIZEOF_INT128__)
#define R38(d) (((uint64_t)1 << 38) / (d) + 1)
#define R38x8(k) R38(k), R38(k + 1), R38(k + 2), R38(k + 3), R38(k + 4), R38(k + 5), \
                 R38(k + 6), R38(k + 7)
    static const uint64_t recip[LIT_RUN] = {0,          R38(1),     R38(2),     R38(3),
                                            R38(4),     R38(5),     R38(6),     R38(7),
                                            R38x8(8),   R38x8(16),  R38x8(24),  R38x8(32),
                                            R38x8(40),  R38x8(48),  R38x8(56)};
#undef R38x8
#undef R38
    uint64_t a = diff < 0 ? (uint64_t)-diff : (uint64_t)diff;
    int64_t q = (int64_t)(uint64_t)(((unsigned __int128)a * recip[steps & (LIT_RUN - 1)]) >> 38);
    return (int32_t)(diff < 0 ? -q : q);
#else
    return (int32_t)(diff / steps);
#endif
}

#if defined(__SSE2__)
static inline __m128i ramp4(int32_t v, int32_t st);
static inline __m128i gather4v(const uint32_t *t, __m128i ix);

/* span_tex's palette-index pixels (Quake's skins through the colormap) four at a time, from
 * pixel j to the last whole block before end, as its scalar loop makes each: the depth ramp,
 * the coordinates clamped into the texture, the key index skipped, the light row from the
 * ramp l0 + dl j (NaN and below 0: row 0; from 63: 63), the texel lut[row][index]. The
 * coordinates at j are *sfu, *tfu, stepped by dsf, dtf (wrapping); on return they and the
 * returned pixel are where the scalar loop goes on. Needs w <= 32767 and h <= 32768 (the
 * madd of (t, s) by (w, 1)) and no blend. Inlined, so its constants are made once for a
 * batch of rows (skin_rows_draw: -2.5 % on the 16-player frame). */
static inline __attribute__((always_inline)) int
index_quads(const rast_tex *tx, uint32_t *restrict c, float *restrict d, int j, int end,
            int row_end, float zs, const span_ctx *sc, unsigned flags, float l0, float dl,
            uint32_t *sfu, uint32_t *tfu, uint32_t dsf, uint32_t dtf)
{
    const int j0 = j;
    const __m128 vdz = _mm_set1_ps(sc->dz), vzs = _mm_set1_ps(zs);
    const __m128 vlo = _mm_set1_ps(sc->zlo), vhi = _mm_set1_ps(sc->zhi);
    const __m128 vl0 = _mm_set1_ps(l0), vdl = _mm_set1_ps(dl);
    const __m128 zero = _mm_setzero_ps(), top = _mm_set1_ps(63.0f);
    const __m128 four = _mm_set1_ps(4.0f);
    const __m128i lim = _mm_setr_epi16((short)(tx->w - 1), (short)(tx->w - 1), (short)(tx->w - 1),
                                       (short)(tx->w - 1), (short)(tx->h - 1), (short)(tx->h - 1),
                                       (short)(tx->h - 1), (short)(tx->h - 1));
    const __m128i w1 = _mm_set1_epi32(tx->w << 16 | 1), izero = _mm_setzero_si128();
    const __m128i row63 = _mm_set1_epi32(63);
    const __m128i s4 = _mm_set1_epi32((int)(4 * dsf)), t4 = _mm_set1_epi32((int)(4 * dtf));
    __m128i s = ramp4((int32_t)*sfu, (int32_t)dsf), t = ramp4((int32_t)*tfu, (int32_t)dtf);
    __m128 jj = _mm_cvtepi32_ps(_mm_setr_epi32(j, j + 1, j + 2, j + 3));
    const __m128i lane = _mm_setr_epi32(0, 1, 2, 3);
    for (; j < end && (j + 4 <= end || j + 4 <= row_end);
         j += 4, jj = _mm_add_ps(jj, four), s = _mm_add_epi32(s, s4), t = _mm_add_epi32(t, t4)) {
        __m128 z4 = _mm_min_ps(_mm_max_ps(_mm_add_ps(vzs, _mm_mul_ps(vdz, jj)), vlo), vhi);
        __m128 old = _mm_loadu_ps(d + j);
        __m128 pass = flags & RAST_DEPTH_TEST ? _mm_cmpgt_ps(z4, old)
                                              : _mm_castsi128_ps(_mm_set1_epi32(-1));
        /* the lanes past the span's end (a last block the row has room for): not drawn,
         * their pixels stored back as they were (the band's rows are its own) */
        pass = _mm_and_ps(pass,
                          _mm_castsi128_ps(_mm_cmplt_epi32(lane, _mm_set1_epi32(end - j))));
        if (!_mm_movemask_ps(pass))
            continue;
        /* (s >> 16, t >> 16) clamped as 16-bit lanes (saturation keeps the side), times (1, w) */
        __m128i p = _mm_min_epi16(_mm_max_epi16(_mm_packs_epi32(_mm_srai_epi32(s, 16),
                                                                _mm_srai_epi32(t, 16)),
                                                izero),
                                  lim);
        int32_t ix[4], rw[4];
        _mm_storeu_si128((__m128i *)ix, _mm_madd_epi16(_mm_unpacklo_epi16(p, _mm_srli_si128(p, 8)), w1));
        /* the light row: 0 unless lr > 0 (NaN too), 63 unless lr < 63, else (int)lr */
        __m128 lr = _mm_add_ps(vl0, _mm_mul_ps(vdl, jj));
        __m128i in = _mm_castps_si128(_mm_cmplt_ps(lr, top));
        __m128i row = _mm_or_si128(_mm_and_si128(in, _mm_cvttps_epi32(lr)), _mm_andnot_si128(in, row63));
        row = _mm_and_si128(row, _mm_castps_si128(_mm_cmpgt_ps(lr, zero)));
        _mm_storeu_si128((__m128i *)rw, _mm_slli_epi32(row, 8));
        uint8_t idx[4];
        int32_t tc[4];
        for (int q = 0; q < 4; q++) {
            idx[q] = tx->index[ix[q]];
            tc[q] = (int32_t)(tx->lut[(size_t)rw[q] + idx[q]] | 0xff000000u);
        }
        __m128i m = _mm_castps_si128(pass);
        if (tx->has_key) {
            __m128i iv = _mm_setr_epi32(idx[0], idx[1], idx[2], idx[3]);
            m = _mm_andnot_si128(_mm_cmpeq_epi32(iv, _mm_set1_epi32(tx->key)), m);
        }
        if (flags & RAST_DEPTH_WRITE) {
            __m128 mp = _mm_castsi128_ps(m);
            _mm_storeu_ps(d + j, _mm_or_ps(_mm_and_ps(mp, z4), _mm_andnot_ps(mp, old)));
        }
        if (flags & RAST_COLOR_WRITE) {
            __m128i oc = _mm_loadu_si128((const __m128i *)(c + j));
            __m128i tv = _mm_loadu_si128((const __m128i *)tc);
            _mm_storeu_si128((__m128i *)(c + j), _mm_or_si128(_mm_and_si128(m, tv), _mm_andnot_si128(m, oc)));
        }
    }
    j = j < end ? j : end;
    *sfu += dsf * (uint32_t)(j - j0);
    *tfu += dtf * (uint32_t)(j - j0);
    return j;
}
#endif

/* Pixel j of span_tex's that passed its tests: depth z and colour texel by flags. */
static inline void put_px(uint32_t *restrict c, float *restrict d, int j, float z,
                          uint32_t texel, unsigned flags)
{
    if (flags & RAST_DEPTH_WRITE)
        d[j] = z;
    if (flags & RAST_BLEND)
        c[j] = blend_px(texel, c[j]);
    else if (flags & RAST_COLOR_WRITE)
        c[j] = texel | 0xff000000u;
}

/* span_tex's palette-index pixels j..end-1 one at a time (Quake's skins through the
 * colormap; index_quads takes whole blocks of four the same way): the coordinates at j are
 * sfu, tfu in 16.16, stepped by dsf, dtf (wrapping), clamped into the texture; the key
 * index is not drawn; the light row l0 + dl j (NaN and below 0: row 0; from 63: 63). */
static inline void index_pixels(const rast_tex *tx, uint32_t *restrict c, float *restrict d,
                                int j, int end, float zs, const span_ctx *sc, unsigned flags,
                                float l0, float dl, uint32_t sfu, uint32_t tfu, uint32_t dsf,
                                uint32_t dtf)
{
    const int32_t wmax = tx->w - 1, hmax = tx->h - 1;
    for (; j < end; j++, sfu += dsf, tfu += dtf) {
        float z = clampz(zs + sc->dz * (float)j, sc->zlo, sc->zhi);
        if ((flags & RAST_DEPTH_TEST) && !(z > d[j]))
            continue;
        int32_t si = (int32_t)sfu >> 16, ti = (int32_t)tfu >> 16;
        si = si < 0 ? 0 : si > wmax ? wmax : si;
        ti = ti < 0 ? 0 : ti > hmax ? hmax : ti;
        uint8_t idx = tx->index[(size_t)ti * (size_t)tx->w + (size_t)si];
        if (tx->has_key && idx == tx->key)
            continue;
        float lr = l0 + dl * (float)j;
        int row = lr > 0.0f ? (lr < 63.0f ? (int)lr : 63) : 0; /* NaN: 0 */
        uint32_t texel = tx->lut[(size_t)row * 256 + idx];
        put_px(c, d, j, z, texel, flags);
    }
}

/* Textured pixels x0..x0+n-1 of row y: the depth ramp as span_generic; the texel exact
 * (one division) at each run's end, a run run_pixels long from the span's start, linear in
 * 16.16 fixed point between. The planes are evaluated in double at the span's start and
 * stepped in float: the same operations whatever the thread. */
static void span_tex(rast_fb *fb, int y, int x0, int n, float zs, const span_ctx *sc)
{
    const rast_tex *tx = sc->tex;
    const unsigned flags = sc->flags;
    size_t o = (size_t)y * (size_t)fb->w + (size_t)x0;
    uint32_t *restrict c = fb->color + o;
    float *restrict d = fb->depth + o;
    double px = x0 + 0.5, py = y + 0.5;
    float s0 = (float)(tx->s[0] * px + tx->s[1] * py + tx->s[2]), ds = (float)tx->s[0];
    float t0 = (float)(tx->t[0] * px + tx->t[1] * py + tx->t[2]), dt = (float)tx->t[0];
    float q0 = (float)(tx->q[0] * px + tx->q[1] * py + tx->q[2]), dq = (float)tx->q[0];
    const uint32_t *tex = tx->texels;
    const int w = tx->w, h = tx->h;
    const int32_t wmax = w - 1, hmax = h - 1;
    const int32_t *warp = tx->warp;
    const int madd_ok = w <= 32767 && h <= 32768; /* the SSE2 loop's 16-bit texel index */
    (void)madd_ok;
    float l0 = (float)(tx->lrow[0] * px + tx->lrow[1] * py + tx->lrow[2]);
    float dl = (float)tx->lrow[0];
    if (tx->index && tx->q[0] == 0 && tx->q[1] == 0 && tx->q[2] == 1) {
        /* an affine skin (r_skin_tri: q = 1): one run, its steps the planes' own, no
         * division */
        uint32_t sfu = (uint32_t)tex_fix(s0), tfu = (uint32_t)tex_fix(t0);
        const uint32_t dsf = (uint32_t)tex_fix(ds), dtf = (uint32_t)tex_fix(dt);
        int j = 0;
#if defined(__SSE2__)
        if (!(flags & RAST_BLEND) && madd_ok)
            j = index_quads(tx, c, d, 0, n, fb->w - x0, zs, sc, flags, l0, dl, &sfu, &tfu, dsf,
                            dtf);
#endif
        index_pixels(tx, c, d, j, n, zs, sc, flags, l0, dl, sfu, tfu, dsf, dtf);
        return;
    }
    int32_t sa = 0, ta = 0;
    for (int i = 0; i < n;) {
        const int kr = run_pixels(q0 + dq * (float)i, dq, n - i);
        const int k = n - i < kr ? n - i : kr;
        if (i == 0) {
            float rq = 1.0f / (q0 > 1e-12f ? q0 : 1e-12f);
            sa = tex_fix(s0 * rq);
            ta = tex_fix(t0 * rq);
        }
        /* the run's far end: its last pixel for the span's last run, else the next run's
         * first pixel (so each exact point is computed once) */
        int e = i + k < n ? i + k : n - 1;
        float qe = q0 + dq * (float)e;
        float rqe = 1.0f / (qe > 1e-12f ? qe : 1e-12f); /* one division, two products */
        int32_t sb = tex_fix((s0 + ds * (float)e) * rqe), tb = tex_fix((t0 + dt * (float)e) * rqe);
        int steps = e - i > 0 ? e - i : 1;
        if ((flags & ~RAST_FRESH) == RAST_OPAQUE && !tx->wrap && !tx->index) {
            /* The common case (lit walls), kept small: the run's ends clamped into the
             * texture, so every step between stays inside it (and >= 0, so unsigned);
             * hidden pixels found four at a time (the same single operations as the scalar
             * z, as span_opaque); a texel is t1 + ct * m for the run's m-th pixel, stepped
             * by adding. */
            int32_t smax = wmax * 65536 + 65535, tmax = hmax * 65536 + 65535;
            int32_t s1 = sa < 0 ? 0 : sa > smax ? smax : sa, s2 = sb < 0 ? 0 : sb > smax ? smax : sb;
            int32_t t1 = ta < 0 ? 0 : ta > tmax ? tmax : ta, t2 = tb < 0 ? 0 : tb > tmax ? tmax : tb;
            int32_t cs = run_step(s2 - (int64_t)s1, steps), ct = run_step(t2 - (int64_t)t1, steps);
            uint32_t su = (uint32_t)s1, tu = (uint32_t)t1;
            const uint32_t ucs = (uint32_t)cs, uct = (uint32_t)ct;
            int j = i;
#if defined(__SSE2__)
            /* four pixels at once, branch-free: the texel index ti * w + si of a lane from
             * one _mm_madd_epi16 of (ti, si) by (w, 1), exact while both fit 16 signed
             * bits (the texture is at most 16384 each way); a hidden lane reads a texel
             * inside the texture and keeps its old colour and depth */
            const __m128 vdz = _mm_set1_ps(sc->dz), vzs = _mm_set1_ps(zs);
            const __m128 vlo = _mm_set1_ps(sc->zlo), vhi = _mm_set1_ps(sc->zhi);
            __m128i jv = _mm_setr_epi32(j, j + 1, j + 2, j + 3);
            const __m128i four = _mm_set1_epi32(4), wv = _mm_set1_epi32(1 << 16 | w);
            const __m128i hi16 = _mm_set1_epi32((int)0xffff0000u);
            const __m128i alpha = _mm_set1_epi32((int)0xff000000u);
            __m128i sv = _mm_setr_epi32((int)su, (int)(su + ucs), (int)(su + 2 * ucs),
                                        (int)(su + 3 * ucs));
            __m128i tv = _mm_setr_epi32((int)tu, (int)(tu + uct), (int)(tu + 2 * uct),
                                        (int)(tu + 3 * uct));
            const __m128i s4 = _mm_set1_epi32((int)(4 * ucs)), t4 = _mm_set1_epi32((int)(4 * uct));
            const int fresh = (flags & RAST_FRESH) != 0;
            for (const int last = madd_ok ? i + k - 4 : j - 1; fresh && j <= last; j += 4) {
                /* fresh pixels: every lane passes (z > 0), nothing old is read */
                __m128 jj = _mm_cvtepi32_ps(jv);
                jv = _mm_add_epi32(jv, four);
                __m128 z4 = _mm_min_ps(_mm_max_ps(_mm_add_ps(vzs, _mm_mul_ps(vdz, jj)), vlo), vhi);
                __m128i st = _mm_or_si128(_mm_srli_epi32(tv, 16), _mm_and_si128(sv, hi16));
                sv = _mm_add_epi32(sv, s4);
                tv = _mm_add_epi32(tv, t4);
                _mm_storeu_ps(d + j, z4);
                _mm_storeu_si128((__m128i *)(c + j),
                                 _mm_or_si128(gather4v(tex, _mm_madd_epi16(st, wv)), alpha));
            }
            for (const int last = madd_ok ? i + k - 4 : j - 1; j <= last; j += 4) {
                __m128 jj = _mm_cvtepi32_ps(jv);
                jv = _mm_add_epi32(jv, four);
                __m128 z4 = _mm_min_ps(_mm_max_ps(_mm_add_ps(vzs, _mm_mul_ps(vdz, jj)), vlo), vhi);
                __m128 old = _mm_loadu_ps(d + j), pass = _mm_cmpgt_ps(z4, old);
                __m128i st = _mm_or_si128(_mm_srli_epi32(tv, 16), _mm_and_si128(sv, hi16));
                sv = _mm_add_epi32(sv, s4);
                tv = _mm_add_epi32(tv, t4);
                if (!_mm_movemask_ps(pass))
                    continue;
                __m128i m = _mm_castps_si128(pass);
                __m128i tc = _mm_or_si128(gather4v(tex, _mm_madd_epi16(st, wv)), alpha);
                __m128i oc = _mm_loadu_si128((const __m128i *)(c + j));
                _mm_storeu_ps(d + j, _mm_or_ps(_mm_and_ps(pass, z4), _mm_andnot_ps(pass, old)));
                _mm_storeu_si128((__m128i *)(c + j),
                                 _mm_or_si128(_mm_and_si128(m, tc), _mm_andnot_si128(m, oc)));
            }
            su += ucs * (uint32_t)(j - i);
            tu += uct * (uint32_t)(j - i);
#endif
            for (; j < i + k; j++, su += ucs, tu += uct) {
                float z = clampz(zs + sc->dz * (float)j, sc->zlo, sc->zhi);
                if (!(flags & RAST_FRESH) && !(z > d[j]))
                    continue;
                d[j] = z;
                c[j] = tex[(size_t)(tu >> 16) * (size_t)w + (su >> 16)] | 0xff000000u;
            }
            sa = sb;
            ta = tb;
            i += k;
            continue;
        }
        int32_t dsf = run_step(sb - (int64_t)sa, steps), dtf = run_step(tb - (int64_t)ta, steps);
        /* stepped in uint32 (wrapping): past the run's last pixel a step may leave int32 */
        uint32_t sfu = (uint32_t)sa, tfu = (uint32_t)ta;
        int j = i;
#if defined(__SSE2__)
        if (tx->index && !(flags & RAST_BLEND) && madd_ok)
            j = index_quads(tx, c, d, i, i + k, i + k, zs, sc, flags, l0, dl, &sfu, &tfu,
                            (uint32_t)dsf, (uint32_t)dtf);
#endif
        if (tx->index) {
            index_pixels(tx, c, d, j, i + k, zs, sc, flags, l0, dl, sfu, tfu, (uint32_t)dsf,
                         (uint32_t)dtf);
            j = i + k;
        }
        for (; j < i + k; j++, sfu += (uint32_t)dsf, tfu += (uint32_t)dtf) {
            const int32_t sf = (int32_t)sfu, tf = (int32_t)tfu;
            float z = clampz(zs + sc->dz * (float)j, sc->zlo, sc->zhi);
            if ((flags & RAST_DEPTH_TEST) && !(z > d[j]))
                continue;
            uint32_t texel;
            if (tx->wrap) {
                int32_t si = sf, ti = tf;
                if (warp) {
                    si = sf + warp[(tf >> 16) & 127];
                    ti = tf + warp[(sf >> 16) & 127];
                }
                texel = tex[(size_t)((ti >> 16) & hmax) * (size_t)w + (size_t)((si >> 16) & wmax)];
            } else {
                int32_t si = sf >> 16, ti = tf >> 16;
                si = si < 0 ? 0 : si > wmax ? wmax : si;
                ti = ti < 0 ? 0 : ti > hmax ? hmax : ti;
                texel = tex[(size_t)ti * (size_t)w + (size_t)si];
            }
            put_px(c, d, j, z, texel, flags);
        }
        sa = sb;
        ta = tb;
        i += k;
    }
}

/* Bilinear read of a clamped w x h texture at 16.16 coordinates, texel centres at i + 0.5:
 * the colour channels interpolated with 8-bit weights, two channels per 32-bit lane. */
static inline __attribute__((always_inline)) uint32_t bilerp(const uint32_t *tex, int w, int h, int32_t sf, int32_t tf)
{
    int32_t x = sf - 32768, y = tf - 32768;
    int32_t x0 = x >> 16, y0 = y >> 16, x1 = x0 + 1, y1 = y0 + 1;
    uint32_t fx = (uint32_t)(x >> 8) & 255, fy = (uint32_t)(y >> 8) & 255;
    x0 = x0 < 0 ? 0 : x0 >= w ? w - 1 : x0;
    x1 = x1 < 0 ? 0 : x1 >= w ? w - 1 : x1;
    y0 = y0 < 0 ? 0 : y0 >= h ? h - 1 : y0;
    y1 = y1 < 0 ? 0 : y1 >= h ? h - 1 : y1;
    const uint32_t *r0 = tex + (size_t)y0 * (size_t)w, *r1 = tex + (size_t)y1 * (size_t)w;
    uint32_t c[4] = {r0[x0], r0[x1], r1[x0], r1[x1]}, rb[2], g[2];
    for (int k = 0; k < 2; k++) {
        uint32_t a = c[2 * k], b = c[2 * k + 1];
        rb[k] = (((a & 0xff00ffu) * (256 - fx) + (b & 0xff00ffu) * fx) >> 8) & 0xff00ffu;
        g[k] = (((a >> 8 & 0xffu) * (256 - fx) + (b >> 8 & 0xffu) * fx) >> 8) & 0xffu;
    }
    uint32_t orb = ((rb[0] * (256 - fy) + rb[1] * fy) >> 8) & 0xff00ffu;
    uint32_t og = ((g[0] * (256 - fy) + g[1] * fy) >> 8) & 0xffu;
    return orb | og << 8;
}

/* A repeating w x h texture (powers of two) read bilinearly between texel centres at 16.16
 * s, t (GL_LINEAR: the four texels around, weighted in 1/256, alpha too): the magnified
 * texels of rast_tex.mag_linear. Integer steps only, so every SIMD level's copy of the
 * rasteriser gives the same bytes. */
static inline __attribute__((always_inline)) uint32_t texel_linear(const uint32_t *tex, int w,
                                                                   int h, int32_t sf,
                                                                   int32_t tf, int wrap)
{
    int32_t x = (int32_t)((uint32_t)sf - 32768u), y = (int32_t)((uint32_t)tf - 32768u);
    int32_t x0, y0, x1, y1;
    if (wrap) {
        x0 = (x >> 16) & (w - 1);
        y0 = (y >> 16) & (h - 1);
        x1 = (x0 + 1) & (w - 1);
        y1 = (y0 + 1) & (h - 1);
    } else { /* GL_CLAMP_TO_EDGE (a clampmap): both neighbours kept within the image */
        int32_t xi = x >> 16, yi = y >> 16;
        x0 = xi < 0 ? 0 : xi > w - 1 ? w - 1 : xi;
        y0 = yi < 0 ? 0 : yi > h - 1 ? h - 1 : yi;
        x1 = xi + 1 < 0 ? 0 : xi + 1 > w - 1 ? w - 1 : xi + 1;
        y1 = yi + 1 < 0 ? 0 : yi + 1 > h - 1 ? h - 1 : yi + 1;
    }
    uint32_t fx = (uint32_t)(x >> 8) & 255, fy = (uint32_t)(y >> 8) & 255;
    const uint32_t *r0 = tex + (size_t)y0 * (size_t)w, *r1 = tex + (size_t)y1 * (size_t)w;
    uint32_t c[4] = {r0[x0], r0[x1], r1[x0], r1[x1]}, rb[2], ga[2];
    for (int k = 0; k < 2; k++) {
        uint32_t a = c[2 * k], b = c[2 * k + 1];
        /* (rounded: truncating each step darkened a dark wall by about a unit) */
        rb[k] = (((a & 0xff00ffu) * (256 - fx) + (b & 0xff00ffu) * fx + 0x800080u) >> 8) &
                0xff00ffu;
        ga[k] = (((a >> 8 & 0xff00ffu) * (256 - fx) + (b >> 8 & 0xff00ffu) * fx + 0x800080u) >>
                 8) &
                0xff00ffu;
    }
    uint32_t orb = ((rb[0] * (256 - fy) + rb[1] * fy + 0x800080u) >> 8) & 0xff00ffu;
    uint32_t oga = ((ga[0] * (256 - fy) + ga[1] * fy + 0x800080u) >> 8) & 0xff00ffu;
    return orb | oga << 8;
}

/* texel times light per channel (light's alpha ignored), the texel's alpha kept. */
static inline __attribute__((always_inline)) uint32_t modulate(uint32_t t, uint32_t l)
{
    uint32_t r = div255((t & 255) * (l & 255)), g = div255((t >> 8 & 255) * (l >> 8 & 255));
    uint32_t b = div255((t >> 16 & 255) * (l >> 16 & 255));
    return r | g << 8 | b << 16 | (t & 0xff000000u);
}

/* What RAST_ADD, RAST_MUL and RAST_BLEND make of src over dst (alpha 255). */
static inline uint32_t combine(uint32_t src, uint32_t dst, unsigned flags)
{
    if ((flags & (RAST_MUL | RAST_BLEND)) == (RAST_MUL | RAST_BLEND)) {
        src = modulate(dst, src); /* GL_DST_COLOR GL_SRC_COLOR: twice old x texel */
        flags = RAST_ADD;
        dst = src;
    }
    if ((flags & (RAST_ADD | RAST_MUL)) == (RAST_ADD | RAST_MUL))
        src = modulate(dst, src); /* GL_DST_COLOR GL_ONE: old + old x texel */
    if (flags & RAST_ADD) {
        uint32_t r = (src & 255) + (dst & 255), g = (src >> 8 & 255) + (dst >> 8 & 255);
        uint32_t b = (src >> 16 & 255) + (dst >> 16 & 255);
        return (r > 255 ? 255 : r) | (g > 255 ? 255 : g) << 8 | (b > 255 ? 255 : b) << 16 |
               0xff000000u;
    }
    if (flags & RAST_MUL)
        return modulate(dst, src) | 0xff000000u;
    if (flags & RAST_BLEND)
        return blend_px(src, dst) | 0xff000000u;
    return src | 0xff000000u;
}

#if defined(__SSE2__)
/* Four pixels of 8-bit channels, two per register as 16-bit lanes: lo (pixels 0, 1) and hi. */
typedef struct px16 {
    __m128i lo, hi;
} px16;

static inline px16 widen(__m128i v)
{
    const __m128i zero = _mm_setzero_si128();
    return (px16){_mm_unpacklo_epi8(v, zero), _mm_unpackhi_epi8(v, zero)};
}

/* (a * (256 - f) + b * f) >> 8 per channel, f per pixel as 16-bit lanes: bilerp's step
 * (every sum is below 65536, so 16-bit lanes hold it exactly). */
static inline __m128i lerp16(__m128i a, __m128i b, __m128i f)
{
    const __m128i k256 = _mm_set1_epi16(256);
    return _mm_srli_epi16(_mm_add_epi16(_mm_mullo_epi16(a, _mm_sub_epi16(k256, f)),
                                        _mm_mullo_epi16(b, f)),
                          8);
}

/* Per pixel weights 0..255 (32-bit lanes) spread over each pixel's four 16-bit channels. */
static inline px16 spread(__m128i f)
{
    __m128i f16 = _mm_packs_epi32(f, f);
    f16 = _mm_unpacklo_epi16(f16, f16);
    return (px16){_mm_unpacklo_epi32(f16, f16), _mm_unpackhi_epi32(f16, f16)};
}

/* (x + (x >> 8)) >> 8 per 16-bit lane (x up to 255 * 255 + 128: div255's step), as one
 * high multiply: x * 257 / 65536 = (x + x / 256) / 256, and no multiple of 256 lies between
 * the integer x + floor(x / 256) and that sum, so both floors agree. */
static inline __m128i div255_16(__m128i x)
{
    return _mm_mulhi_epu16(x, _mm_set1_epi16(257));
}

/* div255(t * l) per 16-bit channel, as modulate (t * l + 128 stays below 65536). */
static inline __m128i mod16(__m128i t, __m128i l)
{
    return div255_16(_mm_add_epi16(_mm_mullo_epi16(t, l), _mm_set1_epi16(128)));
}

/* The 16 texel indices y * lw + x of four pixels' bilinear corners at 16.16 light
 * coordinates ls, lt (texel centres at i + 0.5, each corner clamped into lw x lh, as
 * bilerp), into ix (x0y0, x1y0, x0y1, x1y1: a register of four each); their weights into
 * fx, fy. 1 when all four pixels have the same corners (then each register holds one
 * corner four times). */
static inline int corners4(__m128i ls, __m128i lt, int lw, int lh, __m128i ix[4],
                            __m128i *fx, __m128i *fy)
{
    const __m128i half = _mm_set1_epi32(32768), zero = _mm_setzero_si128();
    __m128i x = _mm_sub_epi32(ls, half), y = _mm_sub_epi32(lt, half);
    *fx = _mm_and_si128(_mm_srli_epi32(x, 8), _mm_set1_epi32(255));
    *fy = _mm_and_si128(_mm_srli_epi32(y, 8), _mm_set1_epi32(255));
    /* x0 in lanes 0-3 and y0 in lanes 4-7 (within +-30001: tex_fix pins the coordinates) */
    __m128i p0 = _mm_packs_epi32(_mm_srai_epi32(x, 16), _mm_srai_epi32(y, 16));
    __m128i p1 = _mm_add_epi16(p0, _mm_set1_epi16(1));
    /* the same unclamped x0 and y0 in every lane: the same corners after clamping too */
    __m128i first = _mm_shufflehi_epi16(_mm_shufflelo_epi16(p0, 0), 0);
    int same = _mm_movemask_epi8(_mm_cmpeq_epi16(p0, first)) == 0xffff;
    const __m128i lim = _mm_setr_epi16((short)(lw - 1), (short)(lw - 1), (short)(lw - 1),
                                       (short)(lw - 1), (short)(lh - 1), (short)(lh - 1),
                                       (short)(lh - 1), (short)(lh - 1));
    p0 = _mm_min_epi16(_mm_max_epi16(p0, zero), lim);
    p1 = _mm_min_epi16(_mm_max_epi16(p1, zero), lim);
    __m128i y0 = _mm_srli_si128(p0, 8), y1 = _mm_srli_si128(p1, 8);
    const __m128i wv = _mm_set1_epi32(1 << 16 | lw); /* y * lw + x * 1 */
    ix[0] = _mm_madd_epi16(_mm_unpacklo_epi16(y0, p0), wv);
    ix[1] = _mm_madd_epi16(_mm_unpacklo_epi16(y0, p1), wv);
    ix[2] = _mm_madd_epi16(_mm_unpacklo_epi16(y1, p0), wv);
    ix[3] = _mm_madd_epi16(_mm_unpacklo_epi16(y1, p1), wv);
    return same;
}

/* v, v + st, v + 2 st, v + 3 st (wrapping, as the scalar steps' int32 adds would): the
 * same sums mod 2^32 however made; in registers, not as four scalar sums packed. */
static inline __m128i ramp4(int32_t v, int32_t st)
{
    const __m128i vv = _mm_set1_epi32(v), dd = _mm_set1_epi32(st);
#if defined(__SSE4_1__)
    return _mm_add_epi32(vv, _mm_mullo_epi32(dd, _mm_setr_epi32(0, 1, 2, 3)));
#else
    const __m128i d1 = _mm_slli_si128(dd, 4); /* (0, st, st, st) */
    return _mm_add_epi32(_mm_add_epi32(vv, d1),
                         _mm_add_epi32(_mm_slli_si128(d1, 4), _mm_slli_si128(dd, 12)));
#endif
}

/* Four texels at the indices in the lanes of ix: vpgatherdd in rast_avx2g.c's copy, four
 * loads elsewhere (the same values). */
static inline __m128i gather4v(const uint32_t *t, __m128i ix)
{
#if defined(QD_RAST_GATHER)
    return _mm_i32gather_epi32((const int *)t, ix, 4);
#else
    int32_t i[4];
    _mm_storeu_si128((__m128i *)i, ix);
    return _mm_setr_epi32((int)t[i[0]], (int)t[i[1]], (int)t[i[2]], (int)t[i[3]]);
#endif
}

/* The bilinear light of four pixels at 16.16 light coordinates ls, lt (as bilerp reads it),
 * as 8-bit channels, one pixel per 32-bit lane. */
static inline __m128i light4(const rast_tex *tx, __m128i ls, __m128i lt)
{
    __m128i ix[4];
    __m128i fx, fy;
    int one_cell = corners4(ls, lt, tx->lw, tx->lh, ix, &fx, &fy);
    px16 wx = spread(fx), wy = spread(fy);
    px16 c00, c10, c01, c11;
    if (one_cell) { /* the four between the same four light texels */
        c00 = widen(_mm_set1_epi32((int)tx->light[_mm_cvtsi128_si32(ix[0])]));
        c10 = widen(_mm_set1_epi32((int)tx->light[_mm_cvtsi128_si32(ix[1])]));
        c01 = widen(_mm_set1_epi32((int)tx->light[_mm_cvtsi128_si32(ix[2])]));
        c11 = widen(_mm_set1_epi32((int)tx->light[_mm_cvtsi128_si32(ix[3])]));
    } else {
        c00 = widen(gather4v(tx->light, ix[0]));
        c10 = widen(gather4v(tx->light, ix[1]));
        c01 = widen(gather4v(tx->light, ix[2]));
        c11 = widen(gather4v(tx->light, ix[3]));
    }
    __m128i llo = lerp16(lerp16(c00.lo, c10.lo, wx.lo), lerp16(c01.lo, c11.lo, wx.lo), wy.lo);
    __m128i lhi = lerp16(lerp16(c00.hi, c10.hi, wx.hi), lerp16(c01.hi, c11.hi, wx.hi), wy.hi);
    return _mm_packus_epi16(llo, lhi);
}

#if defined(__AVX2__)
/* Eight texels at the indices in the lanes of ix: vpgatherdd in rast_avx2g.c's copy, eight
 * loads in rast_avx2.c's (the same values). */
static inline __m256i gather8(const uint32_t *t, __m256i ix)
{
#if defined(QD_RAST_GATHER)
    return _mm256_i32gather_epi32((const int *)t, ix, 4);
#else
    int32_t i[8];
    _mm256_storeu_si256((__m256i *)i, ix);
    return _mm256_setr_epi32((int)t[i[0]], (int)t[i[1]], (int)t[i[2]], (int)t[i[3]],
                             (int)t[i[4]], (int)t[i[5]], (int)t[i[6]], (int)t[i[7]]);
#endif
}
#endif

#if defined(__AVX2__)
/* Eight texels at the indices in the lanes of ix (*lo) and the eight after them (*hi):
 * gather8 at ix and at ix + 1, for a bilinear read whose right-hand texels sit just after
 * its left-hand ones in every lane (the caller checks); eight 64-bit loads where the two
 * gathers make sixteen of 32 bits (vpgatherdd's copy: the two gathers). */
static inline void gather8_pairs(const uint32_t *t, __m256i ix, __m256i *lo, __m256i *hi)
{
#if defined(QD_RAST_GATHER)
    *lo = gather8(t, ix);
    *hi = gather8(t, _mm256_add_epi32(ix, _mm256_set1_epi32(1)));
#else
    int32_t i[8];
    _mm256_storeu_si256((__m256i *)i, ix);
    uint64_t q[8];
    for (int k = 0; k < 8; k++)
        memcpy(&q[k], t + i[k], 8);
    /* a: pairs 0..3, b: pairs 4..7; per 128 bits the low dwords of two pairs of each, then
     * the 64-bit quarters put back in pixel order */
    __m256i a = _mm256_setr_epi64x((long long)q[0], (long long)q[1], (long long)q[2],
                                   (long long)q[3]);
    __m256i b = _mm256_setr_epi64x((long long)q[4], (long long)q[5], (long long)q[6],
                                   (long long)q[7]);
    __m256 l = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b),
                                 _MM_SHUFFLE(2, 0, 2, 0));
    __m256 h = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b),
                                 _MM_SHUFFLE(3, 1, 3, 1));
    *lo = _mm256_permute4x64_epi64(_mm256_castps_si256(l), _MM_SHUFFLE(3, 1, 2, 0));
    *hi = _mm256_permute4x64_epi64(_mm256_castps_si256(h), _MM_SHUFFLE(3, 1, 2, 0));
#endif
}

/* 1 when every lane of b is a's plus one */
static inline int all_next8(__m256i a, __m256i b)
{
    return _mm256_movemask_epi8(_mm256_cmpeq_epi32(b, _mm256_add_epi32(a, _mm256_set1_epi32(1)))) ==
           -1;
}
#endif

#if defined(__AVX2__)
/* lerp16 and mod16 on 256 bits: the same operations on twice the lanes. */
static inline __m256i lerp16x2(__m256i a, __m256i b, __m256i f)
{
    const __m256i k256 = _mm256_set1_epi16(256);
    return _mm256_srli_epi16(_mm256_add_epi16(_mm256_mullo_epi16(a, _mm256_sub_epi16(k256, f)),
                                              _mm256_mullo_epi16(b, f)),
                             8);
}

static inline __m256i mod16x2(__m256i t, __m256i l)
{
    __m256i x = _mm256_add_epi16(_mm256_mullo_epi16(t, l), _mm256_set1_epi16(128));
    return _mm256_mulhi_epu16(x, _mm256_set1_epi16(257)); /* div255_16 */
}

/* light4 for eight pixels (the AVX2 copy): every operation light4's within each 128-bit
 * half (AVX2's packs, unpacks and madds work half by half), pixels 0-3 in the low half and
 * 4-7 in the high, so each lane is bilerp's value again. */
/* a + (b - a) f as texel_linear's step: (a (256 - f) + b f + 128) / 256, 16-bit lanes (at
 * most 255 x 256 + 128: no lane overflows) */
static inline __m256i lerp16r(__m256i a, __m256i b, __m256i f)
{
    const __m256i k256 = _mm256_set1_epi16(256), k128 = _mm256_set1_epi16(128);
    return _mm256_srli_epi16(
        _mm256_add_epi16(_mm256_add_epi16(_mm256_mullo_epi16(a, _mm256_sub_epi16(k256, f)),
                                          _mm256_mullo_epi16(b, f)),
                         k128),
        8);
}

/* Four corners' texels of eight pixels mixed by 8-bit weights fx (across) and fy (down),
 * channel by channel in 16-bit lanes: a (256 - f) + b f, over 256, rounded when round
 * (texel_linear's steps) or not (bilerp's). */
static inline __attribute__((always_inline)) __m256i
mix8(__m256i c00, __m256i c10, __m256i c01, __m256i c11, __m256i fx, __m256i fy, int round)
{
    const __m256i zero = _mm256_setzero_si256();
    /* spread: each pixel's weight over its four 16-bit channels, as widen groups them */
    __m256i fx16 = _mm256_packs_epi32(fx, fx), fy16 = _mm256_packs_epi32(fy, fy);
    fx16 = _mm256_unpacklo_epi16(fx16, fx16);
    fy16 = _mm256_unpacklo_epi16(fy16, fy16);
    __m256i wxl = _mm256_unpacklo_epi32(fx16, fx16), wxh = _mm256_unpackhi_epi32(fx16, fx16);
    __m256i wyl = _mm256_unpacklo_epi32(fy16, fy16), wyh = _mm256_unpackhi_epi32(fy16, fy16);
#define MIX8_LERP(a, b, f) (round ? lerp16r((a), (b), (f)) : lerp16x2((a), (b), (f)))
    __m256i lo = MIX8_LERP(
        MIX8_LERP(_mm256_unpacklo_epi8(c00, zero), _mm256_unpacklo_epi8(c10, zero), wxl),
        MIX8_LERP(_mm256_unpacklo_epi8(c01, zero), _mm256_unpacklo_epi8(c11, zero), wxl), wyl);
    __m256i hi = MIX8_LERP(
        MIX8_LERP(_mm256_unpackhi_epi8(c00, zero), _mm256_unpackhi_epi8(c10, zero), wxh),
        MIX8_LERP(_mm256_unpackhi_epi8(c01, zero), _mm256_unpackhi_epi8(c11, zero), wxh), wyh);
#undef MIX8_LERP
    return _mm256_packus_epi16(lo, hi);
}

static inline __m256i light8(const rast_tex *tx, __m256i ls, __m256i lt)
{
    const __m256i half = _mm256_set1_epi32(32768), zero = _mm256_setzero_si256();
    const __m256i k255 = _mm256_set1_epi32(255);
    __m256i x = _mm256_sub_epi32(ls, half), y = _mm256_sub_epi32(lt, half);
    __m256i fx = _mm256_and_si256(_mm256_srli_epi32(x, 8), k255);
    __m256i fy = _mm256_and_si256(_mm256_srli_epi32(y, 8), k255);
    __m256i p0 = _mm256_packs_epi32(_mm256_srai_epi32(x, 16), _mm256_srai_epi32(y, 16));
    __m256i p1 = _mm256_add_epi16(p0, _mm256_set1_epi16(1));
    const __m256i lim = _mm256_setr_epi16(
        (short)(tx->lw - 1), (short)(tx->lw - 1), (short)(tx->lw - 1), (short)(tx->lw - 1),
        (short)(tx->lh - 1), (short)(tx->lh - 1), (short)(tx->lh - 1), (short)(tx->lh - 1),
        (short)(tx->lw - 1), (short)(tx->lw - 1), (short)(tx->lw - 1), (short)(tx->lw - 1),
        (short)(tx->lh - 1), (short)(tx->lh - 1), (short)(tx->lh - 1), (short)(tx->lh - 1));
    p0 = _mm256_min_epi16(_mm256_max_epi16(p0, zero), lim);
    p1 = _mm256_min_epi16(_mm256_max_epi16(p1, zero), lim);
    __m256i y0 = _mm256_srli_si256(p0, 8), y1 = _mm256_srli_si256(p1, 8);
    const __m256i wv = _mm256_set1_epi32(1 << 16 | tx->lw);
    const uint32_t *lt32 = tx->light;
    const __m256i i00 = _mm256_madd_epi16(_mm256_unpacklo_epi16(y0, p0), wv);
    const __m256i i10 = _mm256_madd_epi16(_mm256_unpacklo_epi16(y0, p1), wv);
    const __m256i i01 = _mm256_madd_epi16(_mm256_unpacklo_epi16(y1, p0), wv);
    __m256i c00, c10, c01, c11;
    if (all_next8(i00, i10)) { /* (then x1 is x0 + 1 in every lane, on both rows) */
        gather8_pairs(lt32, i00, &c00, &c10);
        gather8_pairs(lt32, i01, &c01, &c11);
    } else {
        c00 = gather8(lt32, i00);
        c10 = gather8(lt32, i10);
        c01 = gather8(lt32, i01);
        c11 = gather8(lt32, _mm256_madd_epi16(_mm256_unpacklo_epi16(y1, p1), wv));
    }
    return mix8(c00, c10, c01, c11, fx, fy, 0);
}

/* The texel indices of eight pixels at 16.16 coordinates s8, t8 in a w x h level,
 * repeating or clamped to lim8 (w - 1 and h - 1 as 16-bit lanes, the four-pixel loop's
 * lim in both halves): that loop's indices, lane by lane. */
static inline __m256i index8(__m256i s8, __m256i t8, int wrap, int w, int h, __m256i lim8)
{
    __m256i sr = _mm256_srai_epi32(s8, 16), tr = _mm256_srai_epi32(t8, 16);
    if (wrap) {
        __m256i si = _mm256_and_si256(sr, _mm256_set1_epi32(w - 1));
        __m256i ti = _mm256_and_si256(tr, _mm256_set1_epi32(h - 1));
        return _mm256_madd_epi16(
            _mm256_or_si256(ti, _mm256_and_si256(_mm256_slli_epi32(si, 16),
                                                 _mm256_set1_epi32((int)0xffff0000u))),
            _mm256_set1_epi32(1 << 16 | w));
    }
    __m256i p = _mm256_min_epi16(
        _mm256_max_epi16(_mm256_packs_epi32(sr, tr), _mm256_setzero_si256()), lim8);
    return _mm256_madd_epi16(_mm256_unpacklo_epi16(p, _mm256_srli_si256(p, 8)),
                             _mm256_set1_epi32(w << 16 | 1));
}

/* Two blocks' texel indices into *ix (index8 at *s8, *t8), the coordinates stepped on to
 * the next two; 0 when no pixel of the two is in front (rest's low 8 bits: their lanes'
 * depth tests), the indices then not made. */
static inline int next8(__m256i *s8, __m256i *t8, __m256i s8s, __m256i t8s, uint64_t rest,
                        int wrap, int w, int h, __m256i lim8, __m256i *ix)
{
    const __m256i s_at = *s8, t_at = *t8;
    *s8 = _mm256_add_epi32(*s8, s8s);
    *t8 = _mm256_add_epi32(*t8, t8s);
    if (!(rest & 255))
        return 0;
    *ix = index8(s_at, t_at, wrap, w, h, lim8);
    return 1;
}

/* v + k st for k = 0..7 (wrapping, as the scalar steps' int32 adds would). */
static inline __m256i ramp8(int32_t v, int32_t st)
{
    return _mm256_add_epi32(_mm256_set1_epi32(v),
                            _mm256_mullo_epi32(_mm256_set1_epi32(st),
                                               _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}
#endif

/* Pixels j..j+4*m-1 (m <= LIT_RUN / 4 blocks of four: one run) of an opaque, repeating,
 * lightmapped span, from the level's texels (w x h). cur: the four attributes at pixel j,
 * step: their step per pixel. The light is read bilinearly (as bilerp) at every fourth
 * pixel (every eighth when wide), j, j + 4, ..., j + 4m, and is linear between: a luxel is
 * 16 world units, so two such reads are less than a luxel apart wherever a luxel is wider
 * than four pixels (at 1280x720 with a 90 degree view, nearer than about 2500 units),
 * where a bilinear light is close to linear. *l0 is the light at pixel j when *have_l0
 * (the last run's last read); on return, when carry (the run whole: m even, the next run
 * starting at j + 4m), the light at j + 4m for the next run. */
/* texel_linear at four (eight) pixels' s and t. */
#if defined(__AVX2__)
static inline __m256i linear8(const uint32_t *texels, int w, int h, __m256i s, __m256i t,
                              int wrap);
#endif
static inline __m128i linear4(const uint32_t *texels, int w, int h, __m128i s, __m128i t,
                              int wrap)
{
#if defined(__AVX2__)
    /* linear8 on the four lanes twice (the high half's reads the low half's again, in the
     * cache): texel_linear's value lane by lane; four scalar calls cost 8 % more of the
     * bot match's frame's instructions (README, 2026-11-30) */
    return _mm256_castsi256_si128(linear8(texels, w, h, _mm256_broadcastsi128_si256(s),
                                          _mm256_broadcastsi128_si256(t), wrap));
#else
    int32_t sv[4], tv[4];
    _mm_storeu_si128((__m128i *)sv, s);
    _mm_storeu_si128((__m128i *)tv, t);
    return _mm_setr_epi32((int)texel_linear(texels, w, h, sv[0], tv[0], wrap),
                          (int)texel_linear(texels, w, h, sv[1], tv[1], wrap),
                          (int)texel_linear(texels, w, h, sv[2], tv[2], wrap),
                          (int)texel_linear(texels, w, h, sv[3], tv[3], wrap));
#endif
}
#if defined(__AVX2__)
/* texel_linear at eight pixels, lane by lane the same integer steps (light8's layout). */
static inline __m256i linear8(const uint32_t *texels, int w, int h, __m256i s, __m256i t,
                              int wrap)
{
    const __m256i half = _mm256_set1_epi32(32768);
    const __m256i k255 = _mm256_set1_epi32(255), one = _mm256_set1_epi32(1);
    const __m256i wm = _mm256_set1_epi32(w - 1), hm = _mm256_set1_epi32(h - 1);
    const __m256i wv = _mm256_set1_epi32(w), zero = _mm256_setzero_si256();
    __m256i x = _mm256_sub_epi32(s, half), y = _mm256_sub_epi32(t, half);
    __m256i fx = _mm256_and_si256(_mm256_srli_epi32(x, 8), k255);
    __m256i fy = _mm256_and_si256(_mm256_srli_epi32(y, 8), k255);
    __m256i xi = _mm256_srai_epi32(x, 16), yi = _mm256_srai_epi32(y, 16), x0, y0, x1, y1;
    if (wrap) {
        x0 = _mm256_and_si256(xi, wm);
        y0 = _mm256_and_si256(yi, hm);
        x1 = _mm256_and_si256(_mm256_add_epi32(x0, one), wm);
        y1 = _mm256_and_si256(_mm256_add_epi32(y0, one), hm);
    } else { /* (texel_linear's clamp to the edge) */
        x0 = _mm256_min_epi32(_mm256_max_epi32(xi, zero), wm);
        y0 = _mm256_min_epi32(_mm256_max_epi32(yi, zero), hm);
        x1 = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(xi, one), zero), wm);
        y1 = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(yi, one), zero), hm);
    }
    __m256i r0 = _mm256_mullo_epi32(y0, wv), r1 = _mm256_mullo_epi32(y1, wv);
    __m256i c00, c10, c01, c11;
    if (all_next8(x0, x1)) { /* (the right-hand texels just after the left-hand ones) */
        gather8_pairs(texels, _mm256_add_epi32(r0, x0), &c00, &c10);
        gather8_pairs(texels, _mm256_add_epi32(r1, x0), &c01, &c11);
    } else {
        c00 = gather8(texels, _mm256_add_epi32(r0, x0));
        c10 = gather8(texels, _mm256_add_epi32(r0, x1));
        c01 = gather8(texels, _mm256_add_epi32(r1, x0));
        c11 = gather8(texels, _mm256_add_epi32(r1, x1));
    }
    return mix8(c00, c10, c01, c11, fx, fy, 1);
}

/* next8, then the two blocks' texels (bilinear when mag: texel_linear at the blocks' own
 * coordinates); 0 when no pixel of the two is in front. */
static inline int texels8(const uint32_t *texels, __m256i *s8, __m256i *t8, __m256i s8s,
                          __m256i t8s, uint64_t rest, int wrap, int w, int h, __m256i lim8,
                          int mag, __m256i *tex)
{
    const __m256i s_at = *s8, t_at = *t8;
    __m256i ix;
    if (!next8(s8, t8, s8s, t8s, rest, wrap, w, h, lim8, &ix))
        return 0;
    *tex = mag ? linear8(texels, w, h, s_at, t_at, wrap) : gather8(texels, ix);
    return 1;
}
#endif

#if defined(__AVX2__)
/* Blocks b and b + 1's texels (tex32: b's in the low half) times their light, as the
 * 4-pixel loop of lit_quads_t lights a block, half by half: each half's light linear from
 * its block's pair of reads in L (every 1 << sh pixels, b even), po_lo and po_hi the pixels'
 * places past the pair's first read; doubled when light_x2. The alpha bytes are the light's
 * product, not the texel's. */
static inline __attribute__((always_inline)) __m256i
lit_pair8(__m256i tex32, const uint32_t *L, int b, int sh, __m128i vsh, __m256i po_lo,
          __m256i po_hi, int light_x2)
{
    const __m256i zero8 = _mm256_setzero_si256();
    __m256i tlo = _mm256_unpacklo_epi8(tex32, zero8), thi = _mm256_unpackhi_epi8(tex32, zero8);
    int la_b = b >> (sh - 2), la_b1 = (b + 1) >> (sh - 2);
    __m256i lab = _mm256_unpacklo_epi8(
        _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadl_epi64((const __m128i *)(L + la_b))),
            _mm_loadl_epi64((const __m128i *)(L + la_b1)), 1),
        zero8);
    __m256i la = _mm256_unpacklo_epi64(lab, lab), lb = _mm256_unpackhi_epi64(lab, lab);
    __m256i d1 = _mm256_sub_epi16(lb, la);
    __m256i la4 = _mm256_sll_epi16(la, vsh);
    __m256i llo = _mm256_srl_epi16(_mm256_add_epi16(la4, _mm256_mullo_epi16(d1, po_lo)), vsh);
    __m256i lhi = _mm256_srl_epi16(_mm256_add_epi16(la4, _mm256_mullo_epi16(d1, po_hi)), vsh);
    __m256i lit8 = _mm256_packus_epi16(mod16x2(tlo, llo), mod16x2(thi, lhi));
    return light_x2 ? _mm256_adds_epu8(lit8, lit8) : lit8;
}
#endif

static inline __attribute__((always_inline)) void
lit_quads_t(const rast_tex *tx, const uint32_t *texels, int w, int h, uint32_t *restrict c,
            float *restrict d, int j, int m, const __m128 *zb, uint64_t any,
            const int32_t cur[4], const int32_t step[4], uint32_t *l0, int *have_l0,
            unsigned flags, int wrap, int wide, int carry, int mag)
{
    /* zb: the blocks' depths, any: their pixels in front, four bits a block (run_depths);
     * none, and the blocks cost only their depth reads */
    int had = *have_l0;
    *have_l0 = 0;
    if (!any)
        return;
    /* the light at pixels j + g i (g = 4, or 8 when wide), i = 0..last: i = 0 carried when
     * had, the rest eight (AVX2) or four at a time where that many are wanted, a last one
     * alone (light8's and light4's lanes are bilerp's values: the same whichever reads) */
    const int sh = wide ? 3 : 2; /* g = 1 << sh */
    const uint32_t l4s = (uint32_t)step[2] << sh, l4t = (uint32_t)step[3] << sh;
    const int last = ((m - 1) >> (sh - 2)) + 1; /* the last read the blocks use */
    uint32_t L[LIT_RUN / 4 + 8];
    int r = 0;
    if (had) {
        L[0] = *l0;
        r = 1;
    }
    if (tx->light_white) { /* (the opaque blocks read them; the blended ones do not) */
        memset(L, 0xff, (size_t)(last + 1) * sizeof L[0]);
        r = last + 1;
    }
    while (r <= last) {
        const int32_t ls = (int32_t)((uint32_t)cur[2] + (uint32_t)r * l4s),
                      lt = (int32_t)((uint32_t)cur[3] + (uint32_t)r * l4t);
#if defined(__AVX2__)
        if (last - r >= 4) {
            _mm256_storeu_si256((__m256i *)(L + r),
                                light8(tx, ramp8(ls, (int32_t)l4s), ramp8(lt, (int32_t)l4t)));
            r += 8;
            continue;
        }
#endif
        if (last - r >= 1) {
            _mm_storeu_si128((__m128i *)(L + r),
                             light4(tx, ramp4(ls, (int32_t)l4s), ramp4(lt, (int32_t)l4t)));
            r += 4;
            continue;
        }
        L[r++] = bilerp(tx->light, tx->lw, tx->lh, ls, lt);
    }
    if (carry) { /* the run's last read, at its end: the next run's first */
        *l0 = L[(4 * m) >> sh];
        *have_l0 = 1;
    }
    const __m128i vsh = _mm_cvtsi32_si128(sh);
#if defined(__AVX2__)
    __m256i s8 = ramp8(cur[0], step[0]), t8 = ramp8(cur[1], step[1]); /* pixels 0..7 */
    __m128i s = _mm256_castsi256_si128(s8), t = _mm256_castsi256_si128(t8);
#else
    __m128i s = ramp4(cur[0], step[0]), t = ramp4(cur[1], step[1]);
#endif
    const __m128i s4 = _mm_set1_epi32((int)(4 * (uint32_t)step[0]));
    const __m128i t4 = _mm_set1_epi32((int)(4 * (uint32_t)step[1]));
    const __m128i hi16 = _mm_set1_epi32((int)0xffff0000u);
    const __m128i wmax = _mm_set1_epi32(w - 1), hmax = _mm_set1_epi32(h - 1);
    const __m128i wv = _mm_set1_epi32(1 << 16 | w);
    /* clamped: s and t (16-bit, tex_fix keeps them within +-30000) pinned to the edges */
    const __m128i lim = _mm_setr_epi16((short)(w - 1), (short)(w - 1), (short)(w - 1),
                                       (short)(w - 1), (short)(h - 1), (short)(h - 1),
                                       (short)(h - 1), (short)(h - 1));
    const __m128i w1 = _mm_set1_epi32(w << 16 | 1);
    const __m128i alpha = _mm_set1_epi32((int)0xff000000u), zero = _mm_setzero_si128();
    const __m128i rgb = _mm_set1_epi32(0x00ffffff), a127 = _mm_set1_epi32(127);
    /* pixel p of a block takes (g - p) g-ths of its first light and p of the next (p past
     * the block's place between the two reads: 0, or 4 for a wide run's odd blocks) */
    const __m128i p_lo = _mm_setr_epi16(0, 0, 0, 0, 1, 1, 1, 1);
    const __m128i p_hi = _mm_setr_epi16(2, 2, 2, 2, 3, 3, 3, 3);
    int b = 0;
    uint64_t rest = any; /* block b's four bits lowest */
#if defined(__AVX2__)
    /* The AVX2 copy: blocks two at a time, block b in the low 128 bits and b + 1 in the
     * high, every operation the 4-pixel loop's below within its half (AVX2's unpacks, packs
     * and madds work half by half), so each pixel gets the same bytes; that loop takes a
     * run's last block when m is odd. First the opaque walls, then every other layer. */
    if (m >= 2) {
        const __m256i s8s = _mm256_set1_epi32((int)(8 * (uint32_t)step[0]));
        const __m256i t8s = _mm256_set1_epi32((int)(8 * (uint32_t)step[1]));
        const __m256i lim8 = _mm256_broadcastsi128_si256(lim), zero8 = _mm256_setzero_si256();
        const __m256i alpha8 = _mm256_set1_epi32((int)0xff000000u);
        /* p past each block's first light read: blocks b and b + 1 of a wide run share their
         * reads (b even), the second 4 pixels further on */
        const __m256i po_lo = _mm256_add_epi16(_mm256_broadcastsi128_si256(p_lo),
                                               _mm256_setr_epi16(0, 0, 0, 0, 0, 0, 0, 0, 4 * wide,
                                                                 4 * wide, 4 * wide, 4 * wide,
                                                                 4 * wide, 4 * wide, 4 * wide,
                                                                 4 * wide));
        const __m256i po_hi = _mm256_add_epi16(
            _mm256_broadcastsi128_si256(p_hi),
            _mm256_sub_epi16(po_lo, _mm256_broadcastsi128_si256(p_lo)));
        if (flags == RAST_OPAQUE) {
            for (; b + 2 <= m; b += 2, j += 8, rest >>= 8) {
                __m256i tex32;
                if (!texels8(texels, &s8, &t8, s8s, t8s, rest, wrap, w, h, lim8, mag, &tex32))
                    continue;
                __m256i lit8 = lit_pair8(tex32, L, b, sh, vsh, po_lo, po_hi, tx->light_x2);
                __m256i out = _mm256_or_si256(lit8, alpha8);
                __m256 z8 = _mm256_set_m128(zb[b + 1], zb[b]);
                if ((rest & 255) == 255) {
                    /* all eight in front (run_depths' test, against these same depths: no
                     * other pixel of the run is drawn between): stored without reading the
                     * colours back (at 1920x1080 that read waited on memory) */
                    _mm256_storeu_ps(d + j, z8);
                    _mm256_storeu_si256((__m256i *)(c + j), out);
                    continue;
                }
                __m256 old = _mm256_loadu_ps(d + j);
                __m256 pass = _mm256_cmp_ps(z8, old, _CMP_GT_OS); /* as _mm_cmpgt_ps */
                _mm256_storeu_ps(d + j, _mm256_blendv_ps(old, z8, pass));
                __m256i oc = _mm256_loadu_si256((const __m256i *)(c + j));
                _mm256_storeu_si256((__m256i *)(c + j),
                                    _mm256_blendv_epi8(oc, out, _mm256_castps_si256(pass)));
            }
            s = _mm256_castsi256_si128(s8);
            t = _mm256_castsi256_si128(t8);
        } else if ((flags & RAST_DEPTH_TEST) && (flags & RAST_COLOR_WRITE)) {
            /* A blended or alpha-tested layer (or one that writes no depth): blocks two at a
             * time as the opaque ones above, each pixel tested, lit (a white layer's lit colour
             * is the texel's) and combined as the 4-pixel loop below does it (the same
             * operations lane by lane: the same bytes). A bot match's bodies and pool sheets: a
             * tenth of its pixels; oa_dm3's grates and railings. */
            const __m256i rgb8 = _mm256_set1_epi32(0x00ffffff);
            const __m256i k255 = _mm256_set1_epi16(255), k128 = _mm256_set1_epi16(128);
            const __m256i k257 = _mm256_set1_epi16(257);
            for (; b + 2 <= m; b += 2, j += 8, rest >>= 8) {
                __m256i tex32, src;
                if (!texels8(texels, &s8, &t8, s8s, t8s, rest, wrap, w, h, lim8, mag, &tex32))
                    continue;
                src = tex32;
                if (!tx->light_white) { /* the lit colour, the texel's alpha kept (as modulate) */
                    __m256i lit8 = lit_pair8(tex32, L, b, sh, vsh, po_lo, po_hi, tx->light_x2);
                    src = _mm256_or_si256(_mm256_and_si256(lit8, rgb8),
                                          _mm256_andnot_si256(rgb8, tex32));
                }
                __m256 z8 = _mm256_set_m128(zb[b + 1], zb[b]);
                __m256 old = _mm256_loadu_ps(d + j);
                __m256 pass = _mm256_cmp_ps(z8, old, _CMP_GT_OS); /* as _mm_cmpgt_ps */
                if (flags & RAST_ALPHA_TEST) /* the texel's own alpha, before the light */
                    pass = _mm256_and_ps(pass, _mm256_castsi256_ps(_mm256_cmpgt_epi32(
                                                   _mm256_srli_epi32(tex32, 24),
                                                   _mm256_set1_epi32(127))));
                __m256i oc = _mm256_loadu_si256((const __m256i *)(c + j));
                __m256i slo = _mm256_unpacklo_epi8(src, zero8);
                __m256i shi = _mm256_unpackhi_epi8(src, zero8);
                __m256i dlo = _mm256_unpacklo_epi8(oc, zero8);
                __m256i dhi = _mm256_unpackhi_epi8(oc, zero8);
                __m256i out;
                if ((flags & (RAST_ADD | RAST_MUL)) == (RAST_ADD | RAST_MUL)) {
                    __m256i m2 = _mm256_packus_epi16(mod16x2(dlo, slo), mod16x2(dhi, shi));
                    out = _mm256_adds_epu8(m2, oc);
                } else if (flags & RAST_ADD) {
                    out = _mm256_adds_epu8(src, oc);
                } else if ((flags & (RAST_MUL | RAST_BLEND)) == (RAST_MUL | RAST_BLEND)) {
                    __m256i m2 = _mm256_packus_epi16(mod16x2(dlo, slo), mod16x2(dhi, shi));
                    out = _mm256_adds_epu8(m2, m2);
                } else if (flags & RAST_MUL) {
                    out = _mm256_packus_epi16(mod16x2(dlo, slo), mod16x2(dhi, shi));
                } else if (flags & RAST_BLEND) { /* blend_px: s a + d (255 - a), each / 255 */
                    __m256i alo = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(slo, 0xff), 0xff);
                    __m256i ahi = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(shi, 0xff), 0xff);
                    __m256i xlo = _mm256_add_epi16(
                        _mm256_add_epi16(_mm256_mullo_epi16(slo, alo),
                                         _mm256_mullo_epi16(dlo, _mm256_sub_epi16(k255, alo))),
                        k128);
                    __m256i xhi = _mm256_add_epi16(
                        _mm256_add_epi16(_mm256_mullo_epi16(shi, ahi),
                                         _mm256_mullo_epi16(dhi, _mm256_sub_epi16(k255, ahi))),
                        k128);
                    out = _mm256_packus_epi16(_mm256_mulhi_epu16(xlo, k257),
                                              _mm256_mulhi_epu16(xhi, k257));
                } else {
                    out = src;
                }
                out = _mm256_or_si256(out, alpha8);
                if (flags & RAST_DEPTH_WRITE)
                    _mm256_storeu_ps(d + j, _mm256_blendv_ps(old, z8, pass));
                _mm256_storeu_si256((__m256i *)(c + j),
                                    _mm256_blendv_epi8(oc, out, _mm256_castps_si256(pass)));
            }
            s = _mm256_castsi256_si128(s8);
            t = _mm256_castsi256_si128(t8);
        }
    }
#endif
    for (; b < m; b++, j += 4, rest >>= 4) {
        const __m128i s_at = s, t_at = t;
        __m128i sr = _mm_srai_epi32(s, 16), tr = _mm_srai_epi32(t, 16);
        s = _mm_add_epi32(s, s4);
        t = _mm_add_epi32(t, t4);
        if (!(rest & 15))
            continue;
        __m128i ix;
        if (wrap) {
            __m128i si = _mm_and_si128(sr, wmax), ti = _mm_and_si128(tr, hmax);
            ix = _mm_madd_epi16(_mm_or_si128(ti, _mm_and_si128(_mm_slli_epi32(si, 16), hi16)), wv);
        } else {
            __m128i p = _mm_min_epi16(_mm_max_epi16(_mm_packs_epi32(sr, tr), zero), lim);
            /* (s, t) pairs times (1, w) */
            ix = _mm_madd_epi16(_mm_unpacklo_epi16(p, _mm_srli_si128(p, 8)), w1);
        }
        __m128i tex32 = mag ? linear4(texels, w, h, s_at, t_at, wrap) : gather4v(texels, ix);
        __m128i lit = tex32; /* (light_white: texel x 255 / 255, exactly) */
        if (!tx->light_white) {
            px16 tex = widen(tex32);
            /* both lights in one register: la's channels low, lb's high; lo pixels 0, 1 */
            int li = b >> (sh - 2);
            __m128i lab = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(L + li)), zero);
            __m128i la = _mm_unpacklo_epi64(lab, lab), lb = _mm_unpackhi_epi64(lab, lab);
            __m128i d1 = _mm_sub_epi16(lb, la); /* (g - p) la + p lb = g la + p (lb - la) */
            __m128i la4 = _mm_sll_epi16(la, vsh);
            __m128i po = _mm_set1_epi16((short)((b & (sh - 2)) * 4));
            __m128i llo = _mm_srl_epi16(
                _mm_add_epi16(la4, _mm_mullo_epi16(d1, _mm_add_epi16(p_lo, po))), vsh);
            __m128i lhi = _mm_srl_epi16(
                _mm_add_epi16(la4, _mm_mullo_epi16(d1, _mm_add_epi16(p_hi, po))), vsh);
            lit = _mm_packus_epi16(mod16(tex.lo, llo), mod16(tex.hi, lhi));
            if (tx->light_x2) /* (the alpha after is the texel's or opaque) */
                lit = _mm_adds_epu8(lit, lit);
        }
        __m128 z4 = zb[b];
        __m128 old = _mm_loadu_ps(d + j);
        __m128i mk = flags & RAST_DEPTH_TEST ? _mm_castps_si128(_mm_cmpgt_ps(z4, old))
                                             : _mm_set1_epi32(-1);
        if (flags & RAST_ALPHA_TEST) /* the texel's own alpha, before the light */
            mk = _mm_and_si128(mk, _mm_cmpgt_epi32(_mm_srli_epi32(tex32, 24), a127));
        __m128i oc = _mm_loadu_si128((const __m128i *)(c + j));
        __m128i out;
        if (flags == RAST_OPAQUE || !(flags & (RAST_ADD | RAST_MUL | RAST_BLEND))) {
            out = _mm_or_si128(lit, alpha);
        } else {
            /* combine's modes: the texel's alpha kept through the light, as modulate */
            __m128i src = _mm_or_si128(_mm_and_si128(lit, rgb), _mm_andnot_si128(rgb, tex32));
            px16 sw = widen(src), dw = widen(oc);
            if ((flags & (RAST_ADD | RAST_MUL)) == (RAST_ADD | RAST_MUL)) {
                __m128i m2 = _mm_packus_epi16(mod16(dw.lo, sw.lo), mod16(dw.hi, sw.hi));
                out = _mm_or_si128(_mm_adds_epu8(m2, oc), alpha);
            } else if (flags & RAST_ADD) {
                out = _mm_or_si128(_mm_adds_epu8(src, oc), alpha);
            } else if ((flags & (RAST_MUL | RAST_BLEND)) == (RAST_MUL | RAST_BLEND)) {
                __m128i m2 = _mm_packus_epi16(mod16(dw.lo, sw.lo), mod16(dw.hi, sw.hi));
                out = _mm_or_si128(_mm_adds_epu8(m2, m2), alpha);
            } else if (flags & RAST_MUL) {
                out = _mm_or_si128(_mm_packus_epi16(mod16(dw.lo, sw.lo), mod16(dw.hi, sw.hi)),
                                   alpha);
            } else { /* blend_px: s a + d (255 - a), each / 255 rounded */
                const __m128i k255 = _mm_set1_epi16(255), k128 = _mm_set1_epi16(128);
                __m128i alo = _mm_shufflehi_epi16(_mm_shufflelo_epi16(sw.lo, 0xff), 0xff);
                __m128i ahi = _mm_shufflehi_epi16(_mm_shufflelo_epi16(sw.hi, 0xff), 0xff);
                __m128i xlo = _mm_add_epi16(_mm_add_epi16(_mm_mullo_epi16(sw.lo, alo),
                                                          _mm_mullo_epi16(dw.lo, _mm_sub_epi16(k255, alo))),
                                            k128);
                __m128i xhi = _mm_add_epi16(_mm_add_epi16(_mm_mullo_epi16(sw.hi, ahi),
                                                          _mm_mullo_epi16(dw.hi, _mm_sub_epi16(k255, ahi))),
                                            k128);
                out = _mm_or_si128(_mm_packus_epi16(div255_16(xlo), div255_16(xhi)), alpha);
            }
        }
        if (flags & RAST_DEPTH_WRITE) {
            __m128 pass = _mm_castsi128_ps(mk);
            _mm_storeu_ps(d + j, _mm_or_ps(_mm_and_ps(pass, z4), _mm_andnot_ps(pass, old)));
        }
        if (flags & RAST_COLOR_WRITE)
            _mm_storeu_si128((__m128i *)(c + j),
                             _mm_or_si128(_mm_and_si128(mk, out), _mm_andnot_si128(mk, oc)));
    }
}

/* Blocks of any lit span but the opaque repeating walls' (blended layers, clamped images,
 * alpha-tested ones: flags and wrap as the span's); the walls' are inlined into their
 * copy of the span loop (no call, their attributes kept in registers). The layers' five
 * blends each get a copy with their flags constant (the tests in the blocks' loop fold
 * away): oa_bases3's floor is a detail texture's multiply over the whole ground, its bodies
 * add and blend two layers each, and rockets' lights add times their falloff (2.2 % fewer
 * of a bot match frame's instructions, 0.5 % of oa_dm3's). */
static void lit_quads_any(const rast_tex *tx, const uint32_t *texels, int w, int h,
                          uint32_t *restrict c, float *restrict d, int j, int m,
                          const __m128 *zb, uint64_t any, const int32_t cur[4],
                          const int32_t step[4], uint32_t *l0, int *have_l0, unsigned flags,
                          int wrap, int wide, int carry, int mag)
{
#define LIT_QUADS(f) lit_quads_t(tx, texels, w, h, c, d, j, m, zb, any, cur, step, l0, have_l0, \
                                 (f), wrap, wide, carry, mag)
    enum { LAYER = RAST_DEPTH_TEST | RAST_COLOR_WRITE };
    switch (flags) {
    case LAYER | RAST_MUL | RAST_BLEND: LIT_QUADS(LAYER | RAST_MUL | RAST_BLEND); break;
    case LAYER | RAST_ADD | RAST_MUL: LIT_QUADS(LAYER | RAST_ADD | RAST_MUL); break;
    case LAYER | RAST_BLEND: LIT_QUADS(LAYER | RAST_BLEND); break;
    case LAYER | RAST_ADD: LIT_QUADS(LAYER | RAST_ADD); break;
    case LAYER | RAST_MUL: LIT_QUADS(LAYER | RAST_MUL); break;
    default: LIT_QUADS(flags);
    }
#undef LIT_QUADS
}
#endif

/* The level of a mip chain to read for a run: Quake's thresholds (mip_for in r_surf.c),
 * from the texel footprint of its first pixel, the largest of the texel steps along the row
 * (step, 16.16) and down the column (the planes' y slopes at the pixel: d(s/q)/dy =
 * (s_y - (s/q) q_y) / q; rq is 1 / q). Level 0 while a pixel spans at most 1.25 texels, then one level
 * for each doubling. */
static inline __attribute__((unused)) int run_level(const rast_tex *tx, int32_t s, int32_t t, float rq,
                            const int32_t step[2])
{
    float sx = fabsf((float)step[0]), tx_ = fabsf((float)step[1]);
    float sy = fabsf(((float)tx->s[1] - (float)s * (1.0f / 65536.0f) * (float)tx->q[1]) * rq);
    float ty = fabsf(((float)tx->t[1] - (float)t * (1.0f / 65536.0f) * (float)tx->q[1]) * rq);
    float rho = (sx > tx_ ? sx : tx_) * (1.0f / 65536.0f);
    rho = sy > rho ? sy : rho;
    rho = ty > rho ? ty : rho;
    /* the least level with rho / 2^level <= 1.25: ceil(log2(rho / 1.25)) from the float's
     * exponent and mantissa bits (NaN and anything up to 1.25: level 0) */
    float x = rho * 0.8f;
    if (!(x > 1.0f))
        return 0;
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    int lvl = (int)(bits >> 23 & 255) - 127 + ((bits & 0x7fffffu) != 0);
    return lvl < tx->num_mips - 1 ? lvl : tx->num_mips - 1;
}

#if defined(__SSE2__)
/* The depths of pixels i..i+k-1 (k <= LIT_RUN) of a lit span, once for the run: each whole
 * block of four into zb (as the fills store them), the blocks' pixels in front of the
 * depth buffer into *any, four bits a block (all, without RAST_DEPTH_TEST). 0 when no pixel
 * of the run, the last k % 4 (the scalar loop's z) included, would be drawn. */
static inline int run_depths(const float *d, int i, int k, float zs, const span_ctx *sc,
                             unsigned flags, __m128 zb[LIT_RUN / 4], uint64_t *any)
{
    const __m128 vdz = _mm_set1_ps(sc->dz), vzs = _mm_set1_ps(zs);
    const __m128 vlo = _mm_set1_ps(sc->zlo), vhi = _mm_set1_ps(sc->zhi);
    const int m = k / 4;
    uint64_t a = 0;
    int b0 = 0;
#if defined(__AVX2__)
    /* two blocks at once: the same operations lane by lane (ISO C: no fused multiply-add) */
    const __m256 vdz8 = _mm256_set1_ps(sc->dz), vzs8 = _mm256_set1_ps(zs);
    const __m256 vlo8 = _mm256_set1_ps(sc->zlo), vhi8 = _mm256_set1_ps(sc->zhi);
    __m256 jj8 = _mm256_cvtepi32_ps(
        _mm256_add_epi32(_mm256_set1_epi32(i), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
    for (; b0 + 2 <= m; b0 += 2, jj8 = _mm256_add_ps(jj8, _mm256_set1_ps(8.0f))) {
        __m256 z8 =
            _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(vzs8, _mm256_mul_ps(vdz8, jj8)), vlo8), vhi8);
        _mm256_storeu_ps((float *)&zb[b0], z8);
        if (flags & RAST_DEPTH_TEST)
            a |= (uint64_t)_mm256_movemask_ps(
                     _mm256_cmp_ps(z8, _mm256_loadu_ps(d + i + 4 * b0), _CMP_GT_OS))
                 << (4 * b0);
    }
#endif
    __m128 jj = _mm_cvtepi32_ps(_mm_setr_epi32(i + 4 * b0, i + 4 * b0 + 1, i + 4 * b0 + 2,
                                               i + 4 * b0 + 3));
    for (int b = b0; b < m; b++, jj = _mm_add_ps(jj, _mm_set1_ps(4.0f))) {
        zb[b] = _mm_min_ps(_mm_max_ps(_mm_add_ps(vzs, _mm_mul_ps(vdz, jj)), vlo), vhi);
        if (flags & RAST_DEPTH_TEST)
            a |= (uint64_t)_mm_movemask_ps(_mm_cmpgt_ps(zb[b], _mm_loadu_ps(d + i + 4 * b)))
                 << (4 * b);
    }
    if (!(flags & RAST_DEPTH_TEST)) {
        *any = m ? ~(uint64_t)0 >> (64 - 4 * m) : 0;
        return 1;
    }
    *any = a;
    if (a)
        return 1;
    for (int j = i + 4 * m; j < i + k; j++)
        if (clampz(zs + sc->dz * (float)j, sc->zlo, sc->zhi) > d[j])
            return 1;
    return 0;
}
#endif

/* The lit span's loop: four attributes (s, t and the light's) exact at each run's end as
 * span_tex makes them, linear in 16.16 between; flags and wrap are constants in each copy.
 * With a mip chain (tx->mips), s and t are in texels of level 0 and each run reads the
 * level run_level picks for it. */
static inline __attribute__((always_inline)) void
tex_lit_body(rast_fb *fb, int y, int x0, int n, float zs, const span_ctx *sc, unsigned flags,
             int wrap)
{
    const rast_tex *const tx = sc->tex;
    uint32_t *restrict c = &fb->color[(size_t)y * (size_t)fb->w + (size_t)x0];
    float *restrict d = &fb->depth[(size_t)y * (size_t)fb->w + (size_t)x0];
    /* the runs before the first with a pixel in front: skipped, and a span with none costs
     * only its depth reads (about a third of the lit spans of a Quake III view); the first
     * drawn run's depths are kept for it */
    int first = 0;
#if defined(__SSE2__)
    __m128 zr[LIT_RUN / 4];
    uint64_t zany = 0;
    while (first < n &&
           !run_depths(d, first, n - first < TEX_RUN ? n - first : TEX_RUN, zs, sc, flags, zr,
                       &zany))
        first += TEX_RUN;
    if (first >= n)
        return;
#endif
    /* s, t, the light's s and t (or s and t again), q: at the first pixel's centre */
    const double *pl[5] = {tx->s, tx->t, tx->light ? tx->ls : tx->s,
                           tx->light ? tx->lt : tx->t, tx->q};
    float a0[5], da[5];
    for (int k = 0; k < 5; k++) {
        a0[k] = (float)(pl[k][0] * (x0 + 0.5) + pl[k][1] * (y + 0.5) + pl[k][2]);
        da[k] = (float)pl[k][0];
    }
    float q0 = a0[4], dq = da[4];
    /* lit_quads' 16-bit index arithmetic: sizes up to 16384 (rast.h's limit) */
    const int quads = tx->light && tx->w <= 16384 && tx->h <= 16384 && tx->lw <= 16384 &&
                      tx->lh <= 16384;
    (void)quads;
    int32_t at[4] = {0, 0, 0, 0};
    float rqa = 1.0f; /* 1 / q at the run's first pixel */
    uint32_t lnext = 0; /* lit_quads' light at the next run's first pixel, when have_lnext */
    int have_lnext = 0;
#if defined(__SSE2__)
    /* the four attributes side by side: each run's end in one pass (tex_fix's pin, NaN
     * included: _mm_max_ps gives its second operand for a NaN), the steps from the pinned
     * floats' difference (the difference of two numbers within +-30000 texels, scaled by
     * 65536 / steps: at most a few 1/65536 of a texel from the integer division) */
    const __m128 va0 = _mm_loadu_ps(a0), vda = _mm_loadu_ps(da);
    const __m128 pin_lo = _mm_set1_ps(-30000.0f), pin_hi = _mm_set1_ps(30000.0f);
    const __m128 fix = _mm_set1_ps(65536.0f);
    __m128 fa = _mm_setzero_ps(); /* the run's first pixel's attributes, pinned, in texels */
    /* run_level's column slopes: s_y and t_y (lanes 0, 1), q_y */
    const __m128 slope_y = _mm_setr_ps((float)tx->s[1], (float)tx->t[1], 0, 0);
    const __m128 q_y = _mm_set1_ps((float)tx->q[1]), sign = _mm_set1_ps(-0.0f);
#endif
    int skipped = first > 0; /* the last run was hidden: this one's first point is not carried */
    (void)skipped; /* (the scalar build skips no run and carries no light) */
    (void)have_lnext;
    (void)lnext;
    for (int i = first; i < n;) {
        /* a run of up to LIT_RUN pixels (TEX_RUN where no more than that are left), shorter
         * where the perspective would make its linear steps stray by over a pixel
         * (run_pixels); a wall seen square keeps q along its rows and takes LIT_RUN */
        const int kr = run_pixels(q0 + dq * (float)i, dq, n - i);
        const int k = n - i < kr ? n - i : kr;
#if defined(__SSE2__)
        if (i == first && k > TEX_RUN) /* (the first run's depths were read for TEX_RUN) */
            run_depths(d, i, k, zs, sc, flags, zr, &zany);
        if (i > first && !run_depths(d, i, k, zs, sc, flags, zr, &zany)) {
            /* no pixel in front: skipped before its set-up (lit_quads would draw none) */
            skipped = 1;
            have_lnext = 0;
            i += k;
            continue;
        }
#endif
        int e = i + k < n ? i + k : n - 1;
        float qe = q0 + dq * (float)e;
        float rqe = 1.0f / (qe > 1e-12f ? qe : 1e-12f); /* one division, four products */
        int steps = e - i > 0 ? e - i : 1;
        int32_t step[4], cur[4];
#if defined(__SSE2__)
        if (i == 0) {
            rqa = 1.0f / (q0 > 1e-12f ? q0 : 1e-12f);
            fa = _mm_min_ps(_mm_max_ps(_mm_mul_ps(va0, _mm_set1_ps(rqa)), pin_lo), pin_hi);
            _mm_storeu_si128((__m128i *)at, _mm_cvttps_epi32(_mm_mul_ps(fa, fix)));
        } else if (skipped) { /* as the hidden run would have left it: its end is pixel i */
            float qi = q0 + dq * (float)i;
            rqa = 1.0f / (qi > 1e-12f ? qi : 1e-12f);
            fa = _mm_mul_ps(_mm_add_ps(va0, _mm_mul_ps(vda, _mm_set1_ps((float)i))),
                            _mm_set1_ps(rqa));
            fa = _mm_min_ps(_mm_max_ps(fa, pin_lo), pin_hi);
            _mm_storeu_si128((__m128i *)at, _mm_cvttps_epi32(_mm_mul_ps(fa, fix)));
        }
        skipped = 0;
        __m128 fb_ = _mm_mul_ps(_mm_add_ps(va0, _mm_mul_ps(vda, _mm_set1_ps((float)e))),
                                _mm_set1_ps(rqe));
        fb_ = _mm_min_ps(_mm_max_ps(fb_, pin_lo), pin_hi);
        __m128 scale = _mm_set1_ps(65536.0f / (float)steps);
        _mm_storeu_si128((__m128i *)step, _mm_cvttps_epi32(_mm_mul_ps(_mm_sub_ps(fb_, fa), scale)));
        memcpy(cur, at, sizeof cur);
        int32_t bt[4];
        _mm_storeu_si128((__m128i *)bt, _mm_cvttps_epi32(_mm_mul_ps(fb_, fix)));
        int lvl = 0, mag = 0;
        if (tx->mips) { /* run_level's footprint, s and t side by side */
            __m128 sv = _mm_mul_ps(_mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)step)),
                                   _mm_set1_ps(1.0f / 65536.0f));
            __m128 yv = _mm_mul_ps(_mm_sub_ps(slope_y, _mm_mul_ps(fa, q_y)), _mm_set1_ps(rqa));
            __m128 r = _mm_max_ps(_mm_andnot_ps(sign, sv), _mm_andnot_ps(sign, yv));
            r = _mm_max_ps(r, _mm_shuffle_ps(r, r, _MM_SHUFFLE(1, 1, 1, 1)));
            float x = _mm_cvtss_f32(r) * 0.8f; /* lane 0: the larger of s's and t's */
            /* under a texel a pixel (GL's magnification) */
            mag = tx->mag_linear && (flags & RAST_ALPHA_TEST) == 0 && x < 0.4f;
            if (x > 1.0f) {
                uint32_t bits;
                memcpy(&bits, &x, sizeof bits);
                lvl = (int)(bits >> 23 & 255) - 127 + ((bits & 0x7fffffu) != 0);
                lvl = lvl < tx->num_mips - 1 ? lvl : tx->num_mips - 1;
            }
        }
        fa = fb_;
#else
        if (i == 0) {
            rqa = 1.0f / (q0 > 1e-12f ? q0 : 1e-12f);
            for (int a = 0; a < 4; a++)
                at[a] = tex_fix(a0[a] * rqa);
        }
        int32_t bt[4];
        for (int a = 0; a < 4; a++) {
            bt[a] = tex_fix((a0[a] + da[a] * (float)e) * rqe);
            step[a] = run_step((int64_t)bt[a] - at[a], steps);
            cur[a] = at[a];
        }
        const int mag = 0; /* (the portable build reads texels nearest) */
#endif
        /* the level this run reads: s, t and their steps in its texels */
        const uint32_t *texels = tx->texels;
        int w = tx->w, h = tx->h;
        if (tx->mips) {
#if !defined(__SSE2__)
            int lvl = run_level(tx, at[0], at[1], rqa, step);
#endif
            texels = tx->mips[lvl];
            w = w >> lvl > 0 ? w >> lvl : 1;
            h = h >> lvl > 0 ? h >> lvl : 1;
            for (int a = 0; a < 2; a++) {
                cur[a] >>= lvl;
                step[a] >>= lvl;
            }
        }
        const int32_t wmax = w - 1, hmax = h - 1;
        int j = i;
#if defined(__SSE2__)
        /* blocks of four in sixteens (lit_quads' light reads every fourth pixel), the last
         * maybe fewer; where a luxel is wider than eight pixels along the row, the light
         * is read every eighth pixel and the run's blocks go in one (two such reads are
         * still within a luxel of each other, lit_quads' bound) */
        int wide = step[2] > -8192 && step[2] < 8192 && step[3] > -8192 && step[3] < 8192;
        int kb = k / 4; /* the run's blocks */
        /* A span's last run ending inside a block (k % 4 pixels) takes that block too, when
         * the row holds its four pixels: the lanes past the span have depth -inf, never in
         * front, and a block's stores give a hidden lane back what it held (the band's rows
         * are its own). Its pixels then take their light as the blocks' do, not one exact
         * read each (the loop below: 7 % of an oa_dm3 frame's instructions). */
        if ((k & 3) && quads && flags == RAST_OPAQUE && wrap && x0 + i + 4 * kb + 4 <= fb->w) {
            const int jt = i + 4 * kb;
            __m128 z4 = _mm_add_ps(_mm_set1_ps(zs),
                                   _mm_mul_ps(_mm_set1_ps(sc->dz),
                                              _mm_cvtepi32_ps(_mm_setr_epi32(jt, jt + 1, jt + 2,
                                                                             jt + 3))));
            z4 = _mm_min_ps(_mm_max_ps(z4, _mm_set1_ps(sc->zlo)), _mm_set1_ps(sc->zhi));
            const __m128i lane = _mm_setr_epi32(0, 1, 2, 3);
            const __m128 real = _mm_castsi128_ps(_mm_cmplt_epi32(lane, _mm_set1_epi32(k & 3)));
            z4 = _mm_or_ps(_mm_and_ps(real, z4), _mm_andnot_ps(real, _mm_set1_ps(-INFINITY)));
            zr[kb] = z4;
            zany |= (uint64_t)_mm_movemask_ps(_mm_cmpgt_ps(z4, _mm_loadu_ps(d + jt))) << (4 * kb);
            kb++;
        }
        if (quads && kb > 0) { /* the run's blocks in one go (at most LIT_RUN / 4) */
            uint64_t any = zany & (~(uint64_t)0 >> (64 - 4 * kb));
            /* a run not cut by the span's end passes its last read on (its blocks, 2 to 16,
             * are even: the read at its end); a cut one is the span's last */
            const int carry = k == kr;
            /* the walls' copy takes the light's spacing as a constant (its reads' indices
             * and weights then fold) */
            if (flags == RAST_OPAQUE && wrap && mag)
                lit_quads_t(tx, texels, w, h, c, d, j, kb, zr, any, cur, step, &lnext,
                            &have_lnext, RAST_OPAQUE, 1, wide, carry, 1);
            else if (flags == RAST_OPAQUE && wrap && wide)
                lit_quads_t(tx, texels, w, h, c, d, j, kb, zr, any, cur, step, &lnext,
                            &have_lnext, RAST_OPAQUE, 1, 1, carry, 0);
            else if (flags == RAST_OPAQUE && wrap)
                lit_quads_t(tx, texels, w, h, c, d, j, kb, zr, any, cur, step, &lnext,
                            &have_lnext, RAST_OPAQUE, 1, 0, carry, 0);
            else
                lit_quads_any(tx, texels, w, h, c, d, j, kb, zr, any, cur, step, &lnext,
                              &have_lnext, flags, wrap, wide, carry, mag);
            j += 4 * kb;
        }
        if (j > i && j < i + k) /* the scalar pixels' attributes, from pixel j on */
            for (int a = 0; a < 4; a++)
                cur[a] = (int32_t)((uint32_t)cur[a] + (uint32_t)(j - i) * (uint32_t)step[a]);
#endif
        for (; j < i + k; j++) {
            float z = clampz(zs + sc->dz * (float)j, sc->zlo, sc->zhi);
            int32_t sf = cur[0], tf = cur[1], lsf = cur[2], ltf = cur[3];
            for (int a = 0; a < 4; a++) /* wrapping, as lit_quads steps them */
                cur[a] = (int32_t)((uint32_t)cur[a] + (uint32_t)step[a]);
            if ((flags & RAST_DEPTH_TEST) && !(z > d[j]))
                continue;
            int32_t si = sf >> 16, ti = tf >> 16;
            if (wrap) {
                si &= wmax;
                ti &= hmax;
            } else {
                si = si < 0 ? 0 : si > wmax ? wmax : si;
                ti = ti < 0 ? 0 : ti > hmax ? hmax : ti;
            }
            uint32_t texel = mag ? texel_linear(texels, w, h, sf, tf, wrap)
                                 : texels[(size_t)ti * (size_t)w + (size_t)si];
            if ((flags & RAST_ALPHA_TEST) && (texel >> 24) < 128)
                continue;
            if (tx->light) {
                texel = modulate(texel, bilerp(tx->light, tx->lw, tx->lh, lsf, ltf));
                if (tx->light_x2)
                    texel = rast_twice(texel);
            }
            if (flags & RAST_DEPTH_WRITE)
                d[j] = z;
            if (flags & RAST_COLOR_WRITE)
                c[j] = combine(texel, c[j], flags);
        }
        for (int a = 0; a < 4; a++)
            at[a] = bt[a];
        rqa = rqe;
        i += k;
    }
}

/* Textured pixels with a light texture or a combine flag (span_tex keeps Quake's fills);
 * the common case (an opaque lightmapped wall, repeating) gets its own copy of the loop, and
 * so does each of the layers' five blends (their runs' depth tests and the flags' tests in
 * the blocks fold away): Quake III's second and later stages, its dynamic lights and its
 * sprites; oa_bases3's floor is a detail texture multiplied over the whole ground (the bot
 * match's frame: 3.3 % fewer instructions). */
static __attribute__((noinline)) void span_tex_lit(rast_fb *fb, int y, int x0, int n, float zs,
                                                  const span_ctx *sc)
{
    enum { LAYER = RAST_DEPTH_TEST | RAST_COLOR_WRITE };
    const unsigned f = sc->flags;
    const int wrap = sc->tex->wrap;
    if (f == RAST_OPAQUE && wrap && sc->tex->light)
        tex_lit_body(fb, y, x0, n, zs, sc, RAST_OPAQUE, 1);
    else if (f == (LAYER | RAST_MUL | RAST_BLEND) && wrap) /* (a detail texture: repeating) */
        tex_lit_body(fb, y, x0, n, zs, sc, LAYER | RAST_MUL | RAST_BLEND, 1);
    else if (f == (LAYER | RAST_ADD | RAST_MUL))
        tex_lit_body(fb, y, x0, n, zs, sc, LAYER | RAST_ADD | RAST_MUL, wrap);
    else if (f == (LAYER | RAST_BLEND))
        tex_lit_body(fb, y, x0, n, zs, sc, LAYER | RAST_BLEND, wrap);
    else if (f == (LAYER | RAST_ADD))
        tex_lit_body(fb, y, x0, n, zs, sc, LAYER | RAST_ADD, wrap);
    else if (f == (LAYER | RAST_MUL))
        tex_lit_body(fb, y, x0, n, zs, sc, LAYER | RAST_MUL, wrap);
    else
        tex_lit_body(fb, y, x0, n, zs, sc, f, wrap);
}

static void span_draw(rast_fb *fb, int y, int x0, int n, float zs, const span_ctx *sc);

/* Columns [a, b) of a row become covered: merged with the ranges they touch. */
static void cover_add(rast_cover *rc, int a, int b)
{
    int16_t *iv = rc->iv;
    int n = rc->n, i = 0;
    while (i < n && iv[2 * i + 1] < a)
        i++; /* ranges wholly before, not touching */
    int j = i;
    while (j < n && iv[2 * j] <= b) {
        a = iv[2 * j] < a ? iv[2 * j] : a;
        b = iv[2 * j + 1] > b ? iv[2 * j + 1] : b;
        j++; /* ranges it overlaps or touches: merged */
    }
    int grow = 1 - (j - i); /* ranges added less merged */
    if (n + grow > COVER_CAP)
        return; /* full: this range stays uncovered */
    memmove(&iv[2 * (i + 1)], &iv[2 * j], (size_t)(n - j) * 2 * sizeof iv[0]);
    iv[2 * i] = (int16_t)a;
    iv[2 * i + 1] = (int16_t)b;
    rc->n = (int16_t)(n + grow);
}

/* A RAST_COVER span: its parts no earlier covering fill drew, each drawn as usual (depth
 * continued along the span), then all of it covered. */
static void span_cover(rast_fb *fb, int y, int x0, int n, float zs, const span_ctx *sc)
{
    rast_cover *rc = &fb->cover[y];
    span_ctx s = *sc;
    s.flags &= ~(unsigned)RAST_COVER;
    /* the lit walls' loop (span_tex) writes fresh pixels without reading them; a row that
     * may not record this span's coverage (near COVER_CAP ranges) is made whole first, as
     * is a stale row under any other fill */
    int fresh = !rc->mixed && rc->n < COVER_CAP - 1 && s.flags == RAST_OPAQUE && s.tex &&
                !s.tex->light && !s.tex->wrap && !s.tex->index;
    if (fresh)
        s.flags |= RAST_FRESH;
    else if (rc->stale)
        row_finish(fb, y);
    int x = x0, end = x0 + n;
    for (int k = 0; k < rc->n && x < end; k++) {
        int a = rc->iv[2 * k], b = rc->iv[2 * k + 1];
        if (b <= x)
            continue;
        if (a >= end)
            break;
        if (a > x)
            span_draw(fb, y, x, a - x, zs + sc->dz * (float)(x - x0), &s);
        x = b;
    }
    if (x < end)
        span_draw(fb, y, x, end - x, zs + sc->dz * (float)(x - x0), &s);
    cover_add(rc, x0, end);
}

/* Pixels x0..x0+n-1 of row y, with depth zs at the first one. */
static void span_draw(rast_fb *fb, int y, int x0, int n, float zs, const span_ctx *sc)
{
    if (sc->flags & RAST_COVER) {
        if (fb->cover && fb->w <= INT16_MAX) {
            span_cover(fb, y, x0, n, zs, sc);
            return;
        }
        span_ctx s = *sc;
        s.flags &= ~(unsigned)RAST_COVER;
        span_draw(fb, y, x0, n, zs, &s);
        return;
    }
    if (fb->cover && !(sc->flags & RAST_FRESH)) {
        row_finish(fb, y); /* a fill that reads, or writes where coverage does not say */
        if (sc->flags & RAST_DEPTH_WRITE)
            fb->cover[y].mixed = 1; /* covered columns may now hold more than the clear */
    }
    if (sc->tex) {
        /* (a palette-index texture has no texels: span_tex's fills only, rast.h) */
        if (sc->tex->texels &&
            (sc->tex->light || (sc->flags & (RAST_ADD | RAST_MUL | RAST_ALPHA_TEST))))
            span_tex_lit(fb, y, x0, n, zs, sc);
        else
            span_tex(fb, y, x0, n, zs, sc);
        return;
    }
    size_t o = (size_t)y * (size_t)fb->w + (size_t)x0;
    uint32_t *c = fb->color + o;
    float *d = fb->depth + o;
    switch (sc->flags & 15u) {
    case RAST_OPAQUE:
        span_opaque(c, d, n, zs, sc);
        break;
    case RAST_COLOR_WRITE:
        span_fill(c, n, sc->color);
        break;
    case RAST_DEPTH_TEST | RAST_COLOR_WRITE:
        span_generic(c, d, n, zs, sc, RAST_DEPTH_TEST | RAST_COLOR_WRITE);
        break;
    case RAST_DEPTH_TEST | RAST_DEPTH_WRITE:
        span_generic(c, d, n, zs, sc, RAST_DEPTH_TEST | RAST_DEPTH_WRITE);
        break;
    case RAST_DEPTH_WRITE:
        span_generic(c, d, n, zs, sc, RAST_DEPTH_WRITE);
        break;
    case RAST_DEPTH_WRITE | RAST_COLOR_WRITE:
        span_generic(c, d, n, zs, sc, RAST_DEPTH_WRITE | RAST_COLOR_WRITE);
        break;
    case RAST_DEPTH_TEST | RAST_BLEND:
    case RAST_DEPTH_TEST | RAST_BLEND | RAST_COLOR_WRITE:
        span_generic(c, d, n, zs, sc, RAST_DEPTH_TEST | RAST_BLEND);
        break;
    case RAST_BLEND:
    case RAST_BLEND | RAST_COLOR_WRITE:
        span_generic(c, d, n, zs, sc, RAST_BLEND);
        break;
    default:
        span_generic(c, d, n, zs, sc, sc->flags);
        break;
    }
}

/* ---- triangles ------------------------------------------------------------------------ */

static inline int64_t floordiv(int64_t a, int64_t b) /* b > 0 */
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* floor(M / D) for an M that grows by dM each row, stepped without dividing. */
typedef struct stepper {
    int64_t q, r, d, dq, dr;
} stepper;

static void stepper_init(stepper *s, int64_t m, int64_t d, int64_t dm)
{
    s->d = d;
    s->q = floordiv(m, d);
    s->r = m - s->q * d;
    s->dq = floordiv(dm, d);
    s->dr = dm - s->dq * d;
}

static inline void stepper_next(stepper *s)
{
    /* without a branch: the carry's pattern along an edge is as good as random, and a
     * mispredicted jump a row and edge cost more than the two instructions */
    int64_t r = s->r + s->dr, carry = -(int64_t)(r >= s->d);
    s->q += s->dq - carry;
    s->r = r - (s->d & carry);
}

static inline int64_t to_fixed(double v)
{
    return (int64_t)floor(v * SUB_ONE + 0.5);
}

static void poly_raster(rast_fb *fb, const dvert *p, int n, span_ctx sc, int ylo, int yhi);

/* Twice the signed area of snapped triangle a, b, c. */
static inline int64_t cross3(const int64_t *X, const int64_t *Y, int a, int b, int c)
{
    return (X[b] - X[a]) * (Y[c] - Y[a]) - (Y[b] - Y[a]) * (X[c] - X[a]);
}

/* A polygon that snapping left with a corner turned inwards, as a fan from an apex whose
 * triangles all turn the polygon's way (a reflex corner of a nearly convex polygon is
 * one). Those triangles tile the polygon exactly, so its neighbours still meet it.
 * Returns 0, drawing nothing, when no corner will do: the polygon was never convex. */
static int fan_raster(rast_fb *fb, const dvert *p, const int64_t *X, const int64_t *Y, int n,
                      double area, span_ctx sc, int ylo, int yhi)
{
    int apex = -1;
    for (int c = 0; c < n && apex < 0; c++) {
        int ok = 1;
        for (int i = 1; ok && i + 1 < n; i++) {
            double t = (double)cross3(X, Y, c, (c + i) % n, (c + i + 1) % n);
            ok = t == 0 || (t > 0) == (area > 0);
        }
        apex = ok ? c : -1;
    }
    if (apex < 0)
        return 0;
    for (int i = 1; i + 1 < n; i++) {
        dvert t[3] = {p[apex], p[(apex + i) % n], p[(apex + i + 1) % n]};
        poly_raster(fb, t, 3, sc, ylo, yhi);
    }
    return 1;
}

/* A row's columns *l..*r narrowed by the nl left and nr right edges, each then stepped to
 * the next row. */
static inline __attribute__((always_inline)) void row_bounds(stepper *lft, int nl,
                                                             stepper *rgt, int nr, int64_t *l,
                                                             int64_t *r)
{
    for (int e = 0; e < nl; e++) {
        *l = lft[e].q > *l ? lft[e].q : *l;
        stepper_next(&lft[e]);
    }
    for (int e = 0; e < nr; e++) {
        *r = rgt[e].q < *r ? rgt[e].q : *r;
        stepper_next(&rgt[e]);
    }
}

#if defined(__SSE2__)
/* An affine palette-index skin's row (span_tex's q = 1 case), its start worked out by
 * skin_row_start, drawn by skin_rows_draw. */
typedef struct skin_rowv {
    int y, x0, n;
    float zs, l0;
    uint32_t sfu, tfu;
} skin_rowv;
#define SKIN_BATCH 32

/* A skin's s and t planes side by side (lanes s, t), for skin_row_start. */
typedef struct skin_planes {
    __m128d a, b, c;
} skin_planes;

static inline skin_planes skin_planes_of(const rast_tex *tx)
{
    skin_planes sp = {_mm_setr_pd(tx->s[0], tx->t[0]), _mm_setr_pd(tx->s[1], tx->t[1]),
                      _mm_setr_pd(tx->s[2], tx->t[2])};
    return sp;
}

/* Row y's span from x0 (n pixels, depth zs at its start) as span_tex starts it: the s, t
 * and light-row planes at the first pixel's centre, the coordinates in 16.16 (tex_fix).
 * s and t in one pair of lanes, each lane the scalar operations in their order (max and
 * min as tex_fix's compares: a NaN takes the bound), a row's start 3 instructions fewer. */
static inline void skin_row_start(skin_rowv *rv, const rast_tex *tx, const skin_planes *sp,
                                  int y, int x0, int n, float zs)
{
    double px = x0 + 0.5, py = y + 0.5;
    __m128d st = _mm_add_pd(_mm_add_pd(_mm_mul_pd(sp->a, _mm_set1_pd(px)),
                                       _mm_mul_pd(sp->b, _mm_set1_pd(py))),
                            sp->c);
    __m128 f = _mm_max_ps(_mm_cvtpd_ps(st), _mm_set1_ps(-30000.0f));
    f = _mm_min_ps(f, _mm_set1_ps(30000.0f));
    __m128i fx = _mm_cvttps_epi32(_mm_mul_ps(f, _mm_set1_ps(65536.0f)));
    rv->y = y;
    rv->x0 = x0;
    rv->n = n;
    rv->zs = zs;
    rv->l0 = (float)(tx->lrow[0] * px + tx->lrow[1] * py + tx->lrow[2]);
    rv->sfu = (uint32_t)_mm_cvtsi128_si32(fx);
    rv->tfu = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(fx, 4));
}

/* The rows rv[0..k) of an affine skin, as span_draw and span_tex draw each (the row's
 * coverage bookkeeping, index_quads' blocks, index_pixels' last pixels): the same bytes.
 * poly_raster starts a triangle's rows first and draws them after, a batch at a time: a
 * body's row is 4.5 pixels on average, and worked out and drawn one after the other each
 * row waited on its own start (planes in double, then the texel reads). */
static void skin_rows_draw(rast_fb *fb, const span_ctx *sc, const skin_rowv *rv, int k)
{
    const rast_tex *tx = sc->tex;
    const unsigned flags = sc->flags;
    const uint32_t dsf = (uint32_t)tex_fix((float)tx->s[0]);
    const uint32_t dtf = (uint32_t)tex_fix((float)tx->t[0]);
    const float dl = (float)tx->lrow[0];
    for (int i = 0; i < k; i++) {
        const int y = rv[i].y, x0 = rv[i].x0, n = rv[i].n;
        if (fb->cover && !(flags & RAST_FRESH)) { /* span_draw's row bookkeeping */
            row_finish(fb, y);
            if (flags & RAST_DEPTH_WRITE)
                fb->cover[y].mixed = 1;
        }
        size_t o = (size_t)y * (size_t)fb->w + (size_t)x0;
        uint32_t sfu = rv[i].sfu, tfu = rv[i].tfu;
        int j = index_quads(tx, fb->color + o, fb->depth + o, 0, n, fb->w - x0, rv[i].zs, sc,
                            flags, rv[i].l0, dl, &sfu, &tfu, dsf, dtf);
        index_pixels(tx, fb->color + o, fb->depth + o, j, n, rv[i].zs, sc, flags, rv[i].l0,
                     dl, sfu, tfu, dsf, dtf);
    }
}

/* poly_raster's rows ya..yb of an affine skin (its skin case) whose edges are nl left and
 * nr right ones, none horizontal: the rows' bounds, depths and starts as its loop makes
 * them, then skin_rows_draw a batch at a time. Inlined with a triangle's nl and nr (1 and
 * 2, or 2 and 1) as constants, its edge loops unroll: a body's rows are 34 to a triangle. */
static inline __attribute__((always_inline)) void
skin_edge_rows(rast_fb *fb, const span_ctx *sc, stepper *lft, int nl, stepper *rgt, int nr,
               int64_t ya, int64_t yb, int64_t xa, int64_t xb, double x0, double y0, double z0,
               double dzdx, double dzdy, double zmin, double zmax)
{
    const skin_planes sp = skin_planes_of(sc->tex);
    skin_rowv batch[SKIN_BATCH];
    int nb = 0;
    for (int64_t y = ya; y <= yb; y++) {
        int64_t l = xa, r = xb;
        row_bounds(lft, nl, rgt, nr, &l, &r);
        if (l > r)
            continue;
        double zs = z0 + dzdx * ((double)l + 0.5 - x0) + dzdy * ((double)y + 0.5 - y0);
        zs = zs < zmin ? zmin : zs > zmax ? zmax : zs;
        skin_row_start(&batch[nb++], sc->tex, &sp, (int)y, (int)l, (int)(r - l + 1), (float)zs);
        if (nb == SKIN_BATCH) {
            skin_rows_draw(fb, sc, batch, nb);
            nb = 0;
        }
    }
    if (nb)
        skin_rows_draw(fb, sc, batch, nb);
}
#endif

/* A convex polygon whose vertices lie within GUARD, drawn into rows ylo..yhi-1 (inside the
 * fb) as the intersection of its edges' half-planes, one span per row. A pixel is drawn when
 * at its centre every edge function E is > 0, or == 0 on a top or left edge. Snapping can
 * turn a nearly straight corner inwards; such a polygon is drawn as a fan of triangles. */
static void poly_raster(rast_fb *fb, const dvert *p, int n, span_ctx sc, int ylo, int yhi)
{
    int64_t X[POLY_MAX + 8], Y[POLY_MAX + 8];
    for (int i = 0; i < n; i++) {
        X[i] = to_fixed(p[i].x);
        Y[i] = to_fixed(p[i].y);
    }
    /* Orientation and convexity from the turn at each corner. */
    int pos = 0, neg = 0;
    for (int i = 0; i < n; i++) {
        int j = i + 1 == n ? 0 : i + 1, k = j + 1 == n ? 0 : j + 1;
        int64_t t = (X[j] - X[i]) * (Y[k] - Y[j]) - (Y[j] - Y[i]) * (X[k] - X[j]);
        pos += t > 0;
        neg += t < 0;
    }
    if (!pos && !neg)
        return; /* all on one line */
    int64_t sgn = pos ? 1 : -1;
    if (pos && neg) {
        double area = 0;
        for (int i = 1; i + 1 < n; i++)
            area += (double)cross3(X, Y, 0, i, i + 1);
        if (area == 0 || fan_raster(fb, p, X, Y, n, area, sc, ylo, yhi))
            return;
        sgn = area > 0 ? 1 : -1; /* not convex at all: fill what all edges agree on */
    }

    /* Rows and columns whose pixel centres can be inside. */
    int64_t ymn = Y[0], ymx = Y[0], xmn = X[0], xmx = X[0];
    double zmin = p[0].z, zmax = p[0].z;
    for (int i = 1; i < n; i++) {
        ymn = Y[i] < ymn ? Y[i] : ymn;
        ymx = Y[i] > ymx ? Y[i] : ymx;
        xmn = X[i] < xmn ? X[i] : xmn;
        xmx = X[i] > xmx ? X[i] : xmx;
        zmin = p[i].z < zmin ? p[i].z : zmin;
        zmax = p[i].z > zmax ? p[i].z : zmax;
    }
    int64_t ya = -floordiv(SUB_HALF - ymn, SUB_ONE), yb = floordiv(ymx - SUB_HALF, SUB_ONE);
    int64_t xa = -floordiv(SUB_HALF - xmn, SUB_ONE), xb = floordiv(xmx - SUB_HALF, SUB_ONE);
    ya = ya < ylo ? ylo : ya;
    yb = yb > yhi - 1 ? yhi - 1 : yb;
    xa = xa < 0 ? 0 : xa;
    xb = xb > fb->w - 1 ? fb->w - 1 : xb;
    if (ya > yb || xa > xb)
        return;

    /* Depth plane z = z0 + dzdx (x - x0) + dzdy (y - y0) through the largest fan triangle
     * of the snapped positions. */
    int k = 1;
    int64_t best = -1;
    for (int i = 1; i + 1 < n; i++) {
        int64_t c = sgn * ((X[i] - X[0]) * (Y[i + 1] - Y[0]) - (Y[i] - Y[0]) * (X[i + 1] - X[0]));
        if (c > best) {
            best = c;
            k = i;
        }
    }
    double x0 = (double)X[0] / SUB_ONE, y0 = (double)Y[0] / SUB_ONE;
    double ex1 = (double)(X[k] - X[0]) / SUB_ONE, ey1 = (double)(Y[k] - Y[0]) / SUB_ONE;
    double ex2 = (double)(X[k + 1] - X[0]) / SUB_ONE, ey2 = (double)(Y[k + 1] - Y[0]) / SUB_ONE;
    double a = ex1 * ey2 - ey1 * ex2;
    double z0 = p[0].z, dz1 = p[k].z - z0, dz2 = p[k + 1].z - z0;
    double dzdx = a != 0 ? (dz1 * ey2 - dz2 * ey1) / a : 0;
    double dzdy = a != 0 ? (dz2 * ex1 - dz1 * ex2) / a : 0;
    dzdx = dzdx > DZ_MAX ? DZ_MAX : dzdx < -DZ_MAX ? -DZ_MAX : dzdx;
    dzdy = dzdy > DZ_MAX ? DZ_MAX : dzdy < -DZ_MAX ? -DZ_MAX : dzdy;
    sc.dz = (float)dzdx;
    sc.zlo = (float)zmin;
    sc.zhi = (float)zmax;

    /* Edge a->b, oriented so that the inside is positive: E = A (Px - Xa) + B (Py - Ya).
     * On row ya the test E - bias >= 0 reads 256 A x + K >= 0. Left edges (A > 0) bound x
     * from below, right edges (A < 0) from above, horizontal ones take or reject a row. */
    stepper lft[POLY_MAX + 8], rgt[POLY_MAX + 8];
    int64_t hk[POLY_MAX + 8], hdk[POLY_MAX + 8];
    int nl = 0, nr = 0, nh = 0;
    int64_t py = ya * SUB_ONE + SUB_HALF;
    for (int i = 0; i < n; i++) {
        int j = i + 1 == n ? 0 : i + 1;
        int64_t A = -sgn * (Y[j] - Y[i]), B = sgn * (X[j] - X[i]);
        if (A == 0 && B == 0)
            continue;
        int tl = A > 0 || (A == 0 && B > 0);
        int64_t K = A * (SUB_HALF - X[i]) + B * (py - Y[i]) - (tl ? 0 : 1);
        if (A > 0) {
            int64_t D = A * SUB_ONE;
            stepper_init(&lft[nl++], -K + D - 1, D, -B * SUB_ONE);
        } else if (A < 0) {
            stepper_init(&rgt[nr++], K, -A * SUB_ONE, B * SUB_ONE);
        } else {
            hk[nh] = K;
            hdk[nh++] = B * SUB_ONE;
        }
    }

    /* a lit or combined textured fill (most of a Quake III frame) goes to its span loop
     * straight from here, as span_draw would send it: one call a row instead of two */
    const int lit = !(sc.flags & RAST_COVER) && sc.tex && sc.tex->texels &&
                    (sc.tex->light || (sc.flags & (RAST_ADD | RAST_MUL | RAST_ALPHA_TEST)));
#if defined(__SSE2__)
    /* an affine skin's rows (span_tex's q = 1 case, not blended): skin_rows_draw */
    const int skin = !(sc.flags & (RAST_COVER | RAST_BLEND)) && sc.tex && sc.tex->index &&
                     !sc.tex->texels && sc.tex->q[0] == 0 && sc.tex->q[1] == 0 &&
                     sc.tex->q[2] == 1 && sc.tex->w <= 32767 && sc.tex->h <= 32768;
    if (skin && nh == 0 && nl == 1 && nr == 2) {
        skin_edge_rows(fb, &sc, lft, 1, rgt, 2, ya, yb, xa, xb, x0, y0, z0, dzdx, dzdy, zmin,
                       zmax);
        return;
    }
    if (skin && nh == 0 && nl == 2 && nr == 1) {
        skin_edge_rows(fb, &sc, lft, 2, rgt, 1, ya, yb, xa, xb, x0, y0, z0, dzdx, dzdy, zmin,
                       zmax);
        return;
    }
    const skin_planes sp = skin ? skin_planes_of(sc.tex) : (skin_planes){0};
    skin_rowv batch[SKIN_BATCH];
    int nb = 0;
#endif
    for (int64_t y = ya; y <= yb; y++) {
        int64_t l = xa, r = xb;
        int ok = 1;
        row_bounds(lft, nl, rgt, nr, &l, &r);
        for (int e = 0; e < nh; e++) {
            ok &= hk[e] >= 0;
            hk[e] += hdk[e];
        }
        if (!ok || l > r)
            continue;
        double zs = z0 + dzdx * ((double)l + 0.5 - x0) + dzdy * ((double)y + 0.5 - y0);
        zs = zs < zmin ? zmin : zs > zmax ? zmax : zs;
#if defined(__SSE2__)
        if (skin) {
            skin_row_start(&batch[nb++], sc.tex, &sp, (int)y, (int)l, (int)(r - l + 1), (float)zs);
            if (nb == SKIN_BATCH) {
                skin_rows_draw(fb, &sc, batch, nb);
                nb = 0;
            }
            continue;
        }
#endif
#if defined(__SSE2__)
        /* the depths of the row PF_ROWS below, asked for now: at 1920x1080 the depth buffer
         * (8 MB) is out of the caches, and a span's first depth read waited for it (12 % of
         * the lit spans' time at that one load, perf on oa_dm3); rows are 7.5 KB apart, so
         * the processor's own prefetcher does not see the next row coming. 1920x1080 on
         * oa_dm3's flyby 5-9 % faster (two builds in turn, README Speed), 1280x720 the same. */
        if (y + PF_ROWS <= yb) {
            const float *pd = fb->depth + (size_t)(y + PF_ROWS) * (size_t)fb->w;
            for (int64_t x = l & ~(int64_t)15; x <= r; x += 16)
                _mm_prefetch((const char *)(pd + x), _MM_HINT_T0);
        }
#endif
        if (lit) {
            if (fb->cover && !(sc.flags & RAST_FRESH)) { /* span_draw's row bookkeeping */
                row_finish(fb, (int)y);
                if (sc.flags & RAST_DEPTH_WRITE)
                    fb->cover[y].mixed = 1;
            }
            span_tex_lit(fb, (int)y, (int)l, (int)(r - l + 1), (float)zs, &sc);
        } else {
            span_draw(fb, (int)y, (int)l, (int)(r - l + 1), (float)zs, &sc);
        }
    }
#if defined(__SSE2__)
    if (nb)
        skin_rows_draw(fb, &sc, batch, nb);
#endif
}

/* 1 when every pixel of rows ya..yb, columns xa..xb (inside the fb) holds a depth of zhi or
 * more, so that a depth-tested fill whose depths go no higher than zhi would draw none of
 * them (a NaN depth counts as one it would draw over). Rows a put-off clear left are made
 * whole first, as a fill would. */
static int box_hidden(rast_fb *fb, int ya, int yb, int xa, int xb, float zhi)
{
    for (int y = ya; y <= yb; y++) {
        if (fb->cover)
            row_finish(fb, y);
        const float *d = fb->depth + (size_t)y * (size_t)fb->w;
        int x = xa;
#if defined(__SSE2__)
        const __m128 z = _mm_set1_ps(zhi);
        for (; x + 3 <= xb; x += 4)
            if (_mm_movemask_ps(_mm_cmple_ps(z, _mm_loadu_ps(d + x))) != 15)
                return 0;
#endif
        for (; x <= xb; x++)
            if (!(zhi <= d[x]))
                return 0;
    }
    return 1;
}

int rast_rect_hidden(rast_fb *fb, int x0, int y0, int x1, int y1, float z)
{
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > fb->w ? fb->w : x1;
    y1 = y1 > fb->h ? fb->h : y1;
    return x0 >= x1 || y0 >= y1 || box_hidden(fb, y0, y1 - 1, x0, x1 - 1, z);
}

/* Keep the part of a convex polygon where sign * coord <= GUARD (coord x when axis is 0).
 * New points are computed from the inside end of an edge, so two polygons sharing the
 * edge get the very same point. A convex polygon gains at most one point; one that is not
 * convex can gain many, and past cap points it is dropped (0 is returned). */
static int clip_guard(const dvert *in, int n, dvert *out, int cap, int axis, double sign)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m + 2 > cap)
            return 0;
        const dvert *a = &in[i], *b = &in[i + 1 == n ? 0 : i + 1];
        double ca = sign * (axis ? a->y : a->x), cb = sign * (axis ? b->y : b->x);
        int ina = ca <= GUARD, inb = cb <= GUARD;
        if (ina)
            out[m++] = *a;
        if (ina != inb) {
            const dvert *s = ina ? a : b, *o = ina ? b : a;
            double cs = ina ? ca : cb, co = ina ? cb : ca;
            double t = (GUARD - cs) / (co - cs);
            dvert v;
            v.x = s->x + (o->x - s->x) * t;
            v.y = s->y + (o->y - s->y) * t;
            v.z = s->z + (o->z - s->z) * t;
            if (axis)
                v.y = sign * GUARD;
            else
                v.x = sign * GUARD;
            out[m++] = v;
        }
    }
    return m;
}

/* Validate, reject, guard-clip and draw a convex polygon into rows ylo..yhi-1, in one
 * colour or (tex not NULL) textured. */
static void poly_draw(rast_fb *fb, const rast_vert *v, int n, uint32_t color,
                      const rast_tex *tex, unsigned flags, int ylo, int yhi)
{
    if (!fb || !v || n < 3 || n > POLY_MAX)
        return;
    ylo = ylo < 0 ? 0 : ylo;
    yhi = yhi > fb->h ? fb->h : yhi;
    if (ylo >= yhi)
        return;
    dvert buf[2][POLY_MAX + 8];
    float xmn = v[0].x, xmx = v[0].x, ymn = v[0].y, ymx = v[0].y;
    int far = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i].x) || !isfinite(v[i].y) || !isfinite(v[i].z))
            return;
        xmn = v[i].x < xmn ? v[i].x : xmn;
        xmx = v[i].x > xmx ? v[i].x : xmx;
        ymn = v[i].y < ymn ? v[i].y : ymn;
        ymx = v[i].y > ymx ? v[i].y : ymx;
        far |= fabsf(v[i].x) > GUARD || fabsf(v[i].y) > GUARD;
        buf[0][i].x = v[i].x;
        buf[0][i].y = v[i].y;
        buf[0][i].z = v[i].z;
    }
    if (xmx < 0 || ymx < (float)ylo || xmn > (float)fb->w || ymn > (float)yhi)
        return;
    if (!far) {
        /* no pixel centre in the snapped box: poly_raster's own test (to_fixed keeps the
         * order, so the box's ends snap to the snapped corners' least and greatest), made
         * before its set-up; most of a distant body's tiny triangles end here */
        int64_t ya = -floordiv(SUB_HALF - to_fixed(ymn), SUB_ONE),
                yb = floordiv(to_fixed(ymx) - SUB_HALF, SUB_ONE);
        int64_t xa = -floordiv(SUB_HALF - to_fixed(xmn), SUB_ONE),
                xb = floordiv(to_fixed(xmx) - SUB_HALF, SUB_ONE);
        if ((ya > yb || xa > xb) || yb < ylo || ya > yhi - 1 || xb < 0 || xa > fb->w - 1)
            return;
        /* a depth-tested fill wholly behind what is drawn (a body's triangle behind a
         * wall, a nearer body or its own front; a Quake III face behind nearer ones):
         * dropped before its set-up. Its pixels' depths stay within its corners' (every
         * span clamps them to sc.zhi), so when each pixel of its box holds one at least as
         * high, none would pass: the same bytes. A third of the triangles of Quake's
         * 16-player frame end here. The box is read until a pixel would pass; one under
         * 256 pixels each way at most (the same times as no bound on oa_dm3's flyby; 32,
         * the models' triangles alone, left oa_dm3 2-3 % slower). */
        if ((flags & RAST_DEPTH_TEST) && !(flags & RAST_COVER) && xb - xa < 256 &&
            yb - ya < 256) {
            float zhi = v[0].z;
            for (int i = 1; i < n; i++)
                zhi = v[i].z > zhi ? v[i].z : zhi;
            if (box_hidden(fb, ya > ylo ? (int)ya : ylo, yb < yhi - 1 ? (int)yb : yhi - 1,
                           xa > 0 ? (int)xa : 0, xb < fb->w - 1 ? (int)xb : fb->w - 1, zhi))
                return;
        }
    }
    dvert *p = buf[0];
    if (far) {
        const int cap = POLY_MAX + 8;
        n = clip_guard(buf[0], n, buf[1], cap, 0, 1.0);
        n = clip_guard(buf[1], n, buf[0], cap, 0, -1.0);
        n = clip_guard(buf[0], n, buf[1], cap, 1, 1.0);
        n = clip_guard(buf[1], n, buf[0], cap, 1, -1.0);
    }
    span_ctx sc = {color, flags, 0, 0, 0, tex};
    if (n >= 3)
        poly_raster(fb, p, n, sc, ylo, yhi);
}

void rast_triangle(rast_fb *fb, const rast_vert v[3], uint32_t color, unsigned flags)
{
    if (fb)
        poly_draw(fb, v, 3, color, NULL, flags, 0, fb->h);
}

void rast_polygon(rast_fb *fb, const rast_vert *v, int n, uint32_t color, unsigned flags)
{
    if (fb)
        poly_draw(fb, v, n, color, NULL, flags, 0, fb->h);
}

void rast_triangle_rows(rast_fb *fb, const rast_vert v[3], uint32_t color, unsigned flags,
                        int y0, int y1)
{
    poly_draw(fb, v, 3, color, NULL, flags, y0, y1);
}

void rast_polygon_rows(rast_fb *fb, const rast_vert *v, int n, uint32_t color,
                       unsigned flags, int y0, int y1)
{
    poly_draw(fb, v, n, color, NULL, flags, y0, y1);
}

/* A texture is usable when its texels exist, its size is in range and, to repeat, a power
 * of two each way. */
static int tex_ok(const rast_tex *t)
{
    if (!t || (!t->texels && !(t->index && t->lut)) || t->w < 1 || t->h < 1 || t->w > FB_MAX || t->h > FB_MAX)
        return 0;
    if (t->wrap && ((t->w & (t->w - 1)) || (t->h & (t->h - 1))))
        return 0;
    for (int i = 0; i < 3; i++)
        if (!isfinite(t->s[i]) || !isfinite(t->t[i]) || !isfinite(t->q[i]) ||
            !isfinite(t->lrow[i]))
            return 0;
    if (t->light) {
        if (t->lw < 1 || t->lh < 1 || t->lw > FB_MAX || t->lh > FB_MAX)
            return 0;
        for (int i = 0; i < 3; i++)
            if (!isfinite(t->ls[i]) || !isfinite(t->lt[i]))
                return 0;
    }
    return 1;
}

/* The instruction set of the textured fills (rast.h). The AVX2 copies exist where this one
 * is the x86-64 baseline (rast_avx2.c and rast_avx2g.c compile them there); the processor
 * is asked once, on first use. */
#if defined(QD_RAST_AVX2)
int rast_simd(int want)
{
    (void)want;
    return 2;
}
#else
#if defined(__x86_64__) && defined(__SSE2__) && !defined(__AVX2__)
#define RAST_AVX2_COPY 1
#include <cpuid.h>
void rast_avx2_polygon_tex_rows(rast_fb *fb, const rast_vert *v, int n, const rast_tex *tex,
                                unsigned flags, int y0, int y1);
void rast_avx2g_polygon_tex_rows(rast_fb *fb, const rast_vert *v, int n, const rast_tex *tex,
                                 unsigned flags, int y0, int y1);
void rast_avx512_polygon_tex_rows(rast_fb *fb, const rast_vert *v, int n, const rast_tex *tex,
                                  unsigned flags, int y0, int y1);

/* The processor's features, asked with cpuid when the textured fills first run, not at
 * start: libgcc's __builtin_cpu_supports brings a constructor that runs its cpuid leaves
 * in every process, and in this VM cpuid traps to the hypervisor (a C program with the
 * constructor: 0.44 against 0.38 ms CPU a run, least of 200 each), 6 % of an `info` on a
 * small demo. The bits as Intel's SDM vol. 2A names them (CPUID.1:ECX OSXSAVE 27, AVX 28;
 * CPUID.(7,0):EBX AVX2 5, AVX512F 16, AVX512DQ 17, AVX512BW 30, AVX512VL 31), each extension
 * used only where XCR0 says the system saves its registers (bits 1, 2: XMM and YMM; 5, 6,
 * 7: the AVX-512 mask and ZMM state), as libgcc's own check does. */
typedef struct cpu_caps {
    int avx2, avx512, intel, family, model;
} cpu_caps;

static cpu_caps cpu_caps_read(void)
{
    cpu_caps c = {0, 0, 0, 0, 0};
    unsigned a, b, cx, d;
    if (!__get_cpuid(0, &a, &b, &cx, &d))
        return c;
    const unsigned max_leaf = a;
    c.intel = b == 0x756e6547u && d == 0x49656e69u && cx == 0x6c65746eu; /* "GenuineIntel" */
    if (!__get_cpuid(1, &a, &b, &cx, &d))
        return c;
    c.family = (int)(a >> 8 & 15);
    c.model = (int)(a >> 4 & 15);
    if (c.family == 6 || c.family == 15)
        c.model += (int)(a >> 16 & 15) << 4; /* (the extended model) */
    if (!(cx >> 27 & 1) || !(cx >> 28 & 1) || max_leaf < 7)
        return c;
    unsigned xlo, xhi;
    __asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
    (void)xhi;
    if ((xlo & 6u) != 6u)
        return c; /* the system does not keep the YMM registers */
    __cpuid_count(7, 0, a, b, cx, d);
    c.avx2 = (int)(b >> 5 & 1);
    c.avx512 = c.avx2 && (xlo & 0xe0u) == 0xe0u && (b >> 16 & 1) && (b >> 17 & 1) &&
               (b >> 30 & 1) && (b >> 31 & 1);
    return c;
}

/* Whether vpgatherdd beats loads here: on Intel's cores from Skylake on, unless the
 * microcode's Gather Data Sampling mitigation slows it; not on AMD's (dav1d's AVX2 code
 * dropped its gathers as slow on all AMD processors and on mitigated Intel ones, merge
 * request 1733; astc-encoder measured loads faster on Zen 2, Zen 4 and Intel's E-cores and
 * gathers faster on Skylake-X, issue 511). Linux says whether the mitigation applies. On
 * this project's Xeon (not affected) the gathers made oa_dm3's frame 10 % faster. Haswell
 * and Broadwell (family 6, the models libgcc's cpuinfo.h names for them: 0x3c, 0x3f, 0x45,
 * 0x46 and 0x3d, 0x47, 0x4f, 0x56) gather slowly too. */
static int fast_gathers(const cpu_caps *c)
{
    static const int slow[] = {0x3c, 0x3f, 0x45, 0x46, 0x3d, 0x47, 0x4f, 0x56};
    if (!c->intel)
        return 0;
    for (size_t i = 0; c->family == 6 && i < sizeof slow / sizeof slow[0]; i++)
        if (c->model == slow[i])
            return 0;
    FILE *f = fopen("/sys/devices/system/cpu/vulnerabilities/gather_data_sampling", "r");
    if (!f)
        return 0;
    char line[64] = "";
    int ok = fgets(line, sizeof line, f) && !strncmp(line, "Not affected", 12);
    fclose(f);
    return ok;
}
#endif
static int simd_best = -1, simd_use; /* the best this build runs here, the one in use */
static pthread_once_t simd_once = PTHREAD_ONCE_INIT;

static void simd_init(void)
{
    int dflt;
#if defined(__AVX2__)
    simd_best = dflt = 2;
#elif defined(__SSE2__)
    simd_best = dflt = 1;
#if defined(RAST_AVX2_COPY)
    const cpu_caps caps = cpu_caps_read();
    if (caps.avx2) {
        simd_best = 3;
        dflt = fast_gathers(&caps) ? 3 : 2;
        /* the AVX-512 encoding of the loads' copy: on this project's AMD EPYC guest
         * oa_dm3's textured frame 4-6 % faster than rast_avx2.c's (medians of six runs
         * each, in turn), the Quake sample's the same within the noise; the same bytes */
        if (caps.avx512) {
            simd_best = 4;
            dflt = dflt == 3 ? 3 : 4;
        }
    }
#endif
#else
    simd_best = dflt = 0;
#endif
    const char *e = getenv("QDEMO_SIMD");
    int want = !e ? dflt : !strcmp(e, "sse2") ? 1 : !strcmp(e, "avx2") ? 2
                         : !strcmp(e, "gather") ? 3 : !strcmp(e, "avx512") ? 4 : dflt;
    simd_use = want < simd_best ? want : simd_best;
    simd_use = simd_use < 1 && simd_best >= 1 ? 1 : simd_use;
}

int rast_simd(int want)
{
    pthread_once(&simd_once, simd_init);
    if (want >= 0) {
        simd_use = want < simd_best ? want : simd_best;
        simd_use = simd_use < 1 && simd_best >= 1 ? 1 : simd_use;
    }
    return simd_use;
}
#endif

void rast_polygon_tex_rows(rast_fb *fb, const rast_vert *v, int n, const rast_tex *tex,
                           unsigned flags, int y0, int y1)
{
#if defined(RAST_AVX2_COPY)
    pthread_once(&simd_once, simd_init);
    if (simd_use >= 2) {
        (simd_use == 4   ? rast_avx512_polygon_tex_rows
         : simd_use == 3 ? rast_avx2g_polygon_tex_rows
                         : rast_avx2_polygon_tex_rows)(fb, v, n, tex, flags, y0, y1);
        return;
    }
#endif
    if (fb && tex_ok(tex))
        poly_draw(fb, v, n, 0, tex, flags, y0, y1);
}

void rast_polygon_tex(rast_fb *fb, const rast_vert *v, int n, const rast_tex *tex,
                      unsigned flags)
{
    if (fb)
        rast_polygon_tex_rows(fb, v, n, tex, flags, 0, fb->h);
}

/* ---- lines ---------------------------------------------------------------------------- */

static inline void line_px(rast_fb *fb, int x, int y, float z, float bias, uint32_t color,
                           unsigned flags)
{
    size_t o = (size_t)y * (size_t)fb->w + (size_t)x;
    if (fb->cover) {
        row_finish(fb, y);
        if (flags & RAST_DEPTH_WRITE)
            fb->cover[y].mixed = 1; /* as span_draw: the row is no longer as cleared */
    }
    if ((flags & RAST_DEPTH_TEST) && z * LINE_BIAS + bias < fb->depth[o])
        return;
    if (flags & RAST_DEPTH_WRITE)
        fb->depth[o] = z;
    if (flags & RAST_BLEND)
        fb->color[o] = blend_px(color, fb->color[o]);
    else if (flags & RAST_COLOR_WRITE)
        fb->color[o] = color;
}

/* A line into rows y0..y1-1 (inside the fb); the depth test lets it through where
 * z * LINE_BIAS + bias is not behind the depth buffer. */
static void line_draw(rast_fb *fb, rast_vert a, rast_vert b, uint32_t color, unsigned flags,
                      int y0, int y1, float bias)
{
    if (!isfinite(a.x) || !isfinite(a.y) || !isfinite(a.z) || !isfinite(b.x) ||
        !isfinite(b.y) || !isfinite(b.z))
        return;
    double ax = a.x, ay = a.y, az = a.z, bx = b.x, by = b.y, bz = b.z;
    if ((ax < 0 && bx < 0) || (ax >= fb->w && bx >= fb->w) || (ay < y0 && by < y0) ||
        (ay >= y1 && by >= y1))
        return;
    /* Walk the major axis one pixel at a time, only over its on-screen part (at most
     * 16384 steps), sampling the minor axis at the pixel centre clamped to the segment. */
    int xmajor = fabs(bx - ax) >= fabs(by - ay);
    double ma = xmajor ? ax : ay, mb = xmajor ? bx : by;
    double na = xmajor ? ay : ax, nb = xmajor ? by : bx;
    if (mb < ma) {
        double t = ma;
        ma = mb;
        mb = t;
        t = na;
        na = nb;
        nb = t;
        t = az;
        az = bz;
        bz = t;
    }
    double len = mb - ma;
    double slope = len > 0 ? (nb - na) / len : 0, zslope = len > 0 ? (bz - az) / len : 0;
    double mlim = xmajor ? fb->w : y1, mlo = xmajor ? 0 : y0;
    double nlim = xmajor ? y1 : fb->w, nlo = xmajor ? y0 : 0;
    double c0 = floor(ma), c1 = floor(mb);
    c0 = c0 < mlo ? mlo : c0;
    c1 = c1 > mlim - 1 ? mlim - 1 : c1;
    if (c0 > c1)
        return;
    for (int c = (int)c0, ce = (int)c1; c <= ce; c++) {
        double s = c + 0.5;
        s = s < ma ? ma : s > mb ? mb : s;
        double nv = na + (s - ma) * slope; /* truncation is floor once nv >= nlo >= 0 */
        if (nv < nlo || nv >= nlim)
            continue;
        float z = (float)(az + (s - ma) * zslope);
        if (xmajor)
            line_px(fb, c, (int)nv, z, bias, color, flags);
        else
            line_px(fb, (int)nv, c, z, bias, color, flags);
    }
}

void rast_line_rows(rast_fb *fb, rast_vert a, rast_vert b, uint32_t color, unsigned flags,
                    int y0, int y1)
{
    if (!fb)
        return;
    y0 = y0 < 0 ? 0 : y0;
    y1 = y1 > fb->h ? fb->h : y1;
    if (y0 < y1)
        line_draw(fb, a, b, color, flags, y0, y1, 0.0f);
}

void rast_line(rast_fb *fb, rast_vert a, rast_vert b, uint32_t color, unsigned flags)
{
    if (fb)
        rast_line_rows(fb, a, b, color, flags, 0, fb->h);
}

/* A pixel's centre lies within half a pixel of the edge sample beside it, so the face's
 * depth there differs from the line's by at most (|dz/dx| + |dz/dy|) / 2: twice that is the
 * bias, capped at the face's own depth range (an edge-on face has an unbounded slope). */
void rast_polygon_outline_rows(rast_fb *fb, const rast_vert *v, int n, uint32_t color,
                               unsigned flags, int y0, int y1)
{
    if (!fb || !v || n < 3 || n > POLY_MAX)
        return;
    y0 = y0 < 0 ? 0 : y0;
    y1 = y1 > fb->h ? fb->h : y1;
    if (y0 >= y1)
        return;
    double zmin = v[0].z, zmax = v[0].z, best = 0, dzdx = 0, dzdy = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i].x) || !isfinite(v[i].y) || !isfinite(v[i].z))
            return;
        zmin = v[i].z < zmin ? v[i].z : zmin;
        zmax = v[i].z > zmax ? v[i].z : zmax;
    }
    for (int i = 1; i + 1 < n; i++) { /* plane through the largest fan triangle */
        double ex1 = (double)v[i].x - v[0].x, ey1 = (double)v[i].y - v[0].y;
        double ex2 = (double)v[i + 1].x - v[0].x, ey2 = (double)v[i + 1].y - v[0].y;
        double a = ex1 * ey2 - ey1 * ex2;
        if (fabs(a) > best) {
            double dz1 = (double)v[i].z - v[0].z, dz2 = (double)v[i + 1].z - v[0].z;
            best = fabs(a);
            dzdx = (dz1 * ey2 - dz2 * ey1) / a;
            dzdy = (dz2 * ex1 - dz1 * ex2) / a;
        }
    }
    double bias = best > 0 ? fabs(dzdx) + fabs(dzdy) : zmax - zmin;
    bias = isfinite(bias) && bias < zmax - zmin ? bias : zmax - zmin;
    for (int i = 0; i < n; i++)
        line_draw(fb, v[i], v[i + 1 == n ? 0 : i + 1], color, flags, y0, y1, (float)bias);
}

void rast_polygon_outline(rast_fb *fb, const rast_vert *v, int n, uint32_t color,
                          unsigned flags)
{
    if (fb)
        rast_polygon_outline_rows(fb, v, n, color, flags, 0, fb->h);
}
