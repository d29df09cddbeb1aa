/* r_surf.c: textured Quake surfaces: lit surface blocks (texture times lightmap through the
 * colormap) kept in a cache between frames, turbulent liquids, the two-layer sky, and the
 * texture planes that map a face's block onto the screen.
 *
 * Lighting follows the software Quake renderer's model (id's GPL r_surf.c R_BuildLightMap and
 * R_DrawSurfaceBlock8, described here, not copied): each luxel sums its lightmaps, each
 * scaled by its style's current value (22 per letter past 'a', 'm' = 264 the normal), the sum
 * b becomes a colormap row (65280 - b) / 1024 clamped to 0..63 (row 32 shows the texture as
 * it is, row 0 twice as bright), interpolated bilinearly across the 16-texel luxel grid, and
 * the texel's palette index goes through that row of gfx/colormap.lmp. The colormap leaves
 * the fullbright palette entries (224..255) alone, so they glow in the dark. Without a
 * colormap an RGB ramp of the same rows stands in. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define R_SURF_AVX2 1 /* block_row3_avx2: AVX2 by a function attribute, picked at run time */
#endif

#include "r_local.h"

/* Largest surface block in texels; a face whose block would be bigger at the wanted mip
 * level takes a coarser one, and past mip 3 it is drawn flat. */
#define R_SURF_MAX_TEXELS (1u << 20)
/* A face's block takes at most this many texels for each pixel it covers on the screen (or
 * R_SURF_SMALL_BLOCK): a hostile map's small faces with huge texture extents made 1 M-texel
 * blocks each, 3 s a frame (a review); a real map's blocks stay under it (the mip choice
 * gives about a texel a pixel). */
#define R_SURF_TEXELS_A_PIXEL 16
#define R_SURF_SMALL_BLOCK 16384u
/* ... but a face whose extents the engines take (WinQuake model.c CalcSurfaceExtents: "Bad
 * surface extents" past 256 texels on a lit face; qbsp cuts faces to fit) keeps the level
 * its distance asks: a review found the cap moving 0.6 % of e1m3's faces seen close at a
 * grazing angle a level down */
#define R_SURF_LEGAL_EXTENT 256
/* The largest unlit copy of a liquid or translucent texture: a finer level than fits is
 * taken a level down (a hostile map's 4096 x 4096 liquids took 16 M texels each) */
#define R_SURF_MAX_RGBA (1u << 18)
#define R_CACHE_BSPS 64
#define R_CACHE_LUTS 32 /* players' light tables kept: a 32-player match's colours */
#define R_LUT_ENTRIES (64 * 256)
#define NORMAL_STYLE 264 /* 'm' */

typedef struct r_surf {
    int32_t key[8];       /* light of styles 0..3, texture, mip, dynamic lights (two hashes
                           * of their exact numbers, 0 none) */
    int w, h;
    int lit[4];           /* the texels its dynamic lights changed: x0, y0, x1, y1 (empty
                           * when x1 <= x0) */
    uint32_t texels[];
} r_surf;

typedef struct r_cache_bsp {
    const mdl_bsp *b;
    uint32_t num_faces, num_textures;
    r_surf **faces;       /* num_faces * 4 (per mip) */
    r_surf **textures;    /* 3 a texture: its unlit copy (liquids) opaque, at 66 % and at
                           * 33 % (its alpha byte; shared by the entries of one texture's
                           * pixels, each alpha keeps its own) */
} r_cache_bsp;

struct r_cache {
    uint64_t serial;      /* r_assets.serial the entries were built for */
    size_t bytes, budget;
    uint64_t texels_built; /* every block's texels ever allocated here (r_cache_texels_built) */
    int num_bsps;
    r_cache_bsp bsps[R_CACHE_BSPS];
    struct r_cache *next; /* the next band thread's */
    /* r_render's bands (the first cache of a chain keeps them): for split_n threads, band
     * i's first row is split[i] of the height; 0 bands: none yet */
    int split_n;
    double split[R_MAX_THREADS + 1];
    r_marks *marks;       /* Quake III's wall marks' pieces (r_q3_marks_make), or NULL */
    /* light tables with a player's colours put in (r_cache_player_lut), replaced in turn */
    struct {
        const uint32_t *base;
        int colours; /* top << 4 | bottom */
        uint32_t *lut;
    } luts[R_CACHE_LUTS];
    int next_lut;
    struct r_cache *portal; /* the portal views' own chain (r_cache_portal), or NULL */
    rast_fb *portal_fb;   /* their frame (r_cache_portal_fb), or NULL */
};

r_marks **r_cache_marks(r_cache *c) { return c ? &c->marks : NULL; }

void r_cache_bands(r_cache *c, int n, int h, int y[R_MAX_THREADS + 1])
{
    for (int i = 0; i <= n; i++)
        y[i] = c && c->split_n == n ? (int)(c->split[i] * h + 0.5)
                                    : (int)((int64_t)h * i / n); /* even bands */
    y[0] = 0;
    y[n] = h;
    for (int i = 1; i < n; i++) /* each band keeps a row */
        y[i] = y[i] < y[i - 1] + 1 ? y[i - 1] + 1 : y[i] > h - (n - i) ? h - (n - i) : y[i];
}

void r_cache_bands_took(r_cache *c, int n, int h, const int y[R_MAX_THREADS + 1],
                        const double took[R_MAX_THREADS])
{
    if (!c || n < 2 || h < n)
        return;
    /* the work as a function of the row, linear inside each band; the new boundaries split
     * it evenly, half way from the old ones (a frame's times are noisy) */
    double total = 0, cum[R_MAX_THREADS + 1] = {0};
    for (int i = 0; i < n; i++) {
        double t = took[i] > 1e-9 && isfinite(took[i]) ? took[i] : 1e-9;
        cum[i + 1] = cum[i] + t;
        total += t;
    }
    double next[R_MAX_THREADS + 1];
    next[0] = 0;
    next[n] = 1;
    for (int k = 1; k < n; k++) {
        double want = total * k / n;
        int i = 0;
        while (i < n - 1 && cum[i + 1] < want)
            i++;
        double part = (want - cum[i]) / (cum[i + 1] - cum[i]);
        double row = y[i] + part * (y[i + 1] - y[i]);
        double old = c->split_n == n ? c->split[k] : (double)k / n;
        next[k] = 0.5 * old + 0.5 * row / h;
    }
    for (int k = 0; k <= n; k++)
        c->split[k] = next[k];
    c->split_n = n;
}

void r_cache_set_bands(r_cache *c, int n, const double *split)
{
    if (!c || n < 2 || n > R_MAX_THREADS)
        return;
    for (int k = 1; k < n; k++)
        if (!(split[k] >= (k == 1 ? 0 : split[k - 1]) && split[k] <= 1))
            return; /* (not rising within 0..1: the bands stay as they were) */
    for (int k = 0; k <= n; k++)
        c->split[k] = k == 0 ? 0 : k == n ? 1 : split[k];
    c->split_n = n;
}

r_cache *r_cache_new(size_t budget)
{
    r_cache *c = calloc(1, sizeof *c);
    if (c)
        c->budget = budget ? budget : (size_t)64 << 20;
    return c;
}

static void cache_flush(r_cache *c)
{
    for (int i = 0; i < c->num_bsps; i++) {
        r_cache_bsp *cb = &c->bsps[i];
        for (uint32_t k = 0; k < cb->num_faces * 4u; k++)
            free(cb->faces[k]);
        for (uint32_t k = 0; k < cb->num_textures * 3; k++)
            free(cb->textures[k]);
        free(cb->faces);
        free(cb->textures);
    }
    c->num_bsps = 0;
    c->bytes = 0;
    for (int i = 0; i < R_CACHE_LUTS; i++) {
        free(c->luts[i].lut);
        c->luts[i].lut = NULL;
        c->luts[i].base = NULL;
    }
}

void r_player_lut(uint32_t *out, const uint32_t *base, const uint8_t map[256])
{
    for (int row = 0; row < 64; row++)
        for (int i = 0; i < 256; i++)
            out[row * 256 + i] = base[row * 256 + map[i]];
}

const uint32_t *r_cache_player_lut(r_cache *c, const uint32_t *base, int top, int bottom,
                                   const uint8_t map[256])
{
    int colours = (top & 15) << 4 | (bottom & 15);
    for (int i = 0; i < R_CACHE_LUTS; i++)
        if (c->luts[i].lut && c->luts[i].base == base && c->luts[i].colours == colours)
            return c->luts[i].lut;
    uint32_t *lut = malloc(R_LUT_ENTRIES * sizeof *lut);
    if (!lut)
        return NULL;
    r_player_lut(lut, base, map);
    int k = c->next_lut;
    c->next_lut = (k + 1) % R_CACHE_LUTS;
    if (c->luts[k].lut)
        c->bytes -= R_LUT_ENTRIES * sizeof *lut;
    free(c->luts[k].lut);
    c->luts[k].base = base;
    c->luts[k].colours = colours;
    c->luts[k].lut = lut;
    c->bytes += R_LUT_ENTRIES * sizeof *lut;
    return lut;
}

void r_cache_free(r_cache *c)
{
    while (c) {
        r_cache *next = c->next;
        cache_flush(c);
        r_marks_free(c->marks);
        r_cache_free(c->portal);
        rast_fb_free(c->portal_fb);
        free(c);
        c = next;
    }
}

uint64_t r_cache_texels_built(const r_cache *c)
{
    uint64_t n = 0;
    for (; c; c = c->next)
        n += c->texels_built;
    return n;
}

r_cache *r_cache_portal(r_cache *c)
{
    if (c && !c->portal)
        c->portal = r_cache_new(c->budget);
    return c ? c->portal : NULL;
}

rast_fb *r_cache_portal_fb(r_cache *c, int w, int h)
{
    if (!c)
        return NULL;
    if (c->portal_fb && (c->portal_fb->w != w || c->portal_fb->h != h)) {
        rast_fb_free(c->portal_fb);
        c->portal_fb = NULL;
    }
    if (!c->portal_fb)
        c->portal_fb = rast_fb_new(w, h);
    return c->portal_fb;
}

r_cache *r_cache_next(r_cache *c)
{
    if (!c->next)
        c->next = r_cache_new(c->budget);
    return c->next;
}

void r_cache_bind(r_cache *c, const r_assets *a)
{
    if (c && c->serial != a->serial) {
        cache_flush(c);
        c->serial = a->serial;
    }
}

static r_cache_bsp *cache_bsp(r_cache *c, const mdl_bsp *b)
{
    for (int i = 0; i < c->num_bsps; i++)
        if (c->bsps[i].b == b)
            return &c->bsps[i];
    if (c->num_bsps == R_CACHE_BSPS)
        cache_flush(c);
    r_cache_bsp *cb = &c->bsps[c->num_bsps];
    cb->faces = calloc((size_t)b->num_faces * 4 + 1, sizeof *cb->faces);
    cb->textures = calloc((size_t)b->num_textures * 3 + 1, sizeof *cb->textures);
    if (!cb->faces || !cb->textures) {
        free(cb->faces);
        free(cb->textures);
        return NULL;
    }
    cb->b = b;
    cb->num_faces = b->num_faces;
    cb->num_textures = b->num_textures;
    c->num_bsps++;
    return cb;
}

/* A fresh block of w x h for slot, counted against the budget (the whole cache is emptied
 * first when it would pass it: the blocks are rebuilt as the frame needs them). */
static r_surf *cache_alloc(r_cache *c, r_surf **slot, int w, int h)
{
    size_t size = sizeof(r_surf) + (size_t)w * (size_t)h * sizeof(uint32_t);
    if (*slot) {
        c->bytes -= sizeof(r_surf) + (size_t)(*slot)->w * (size_t)(*slot)->h * 4;
        free(*slot);
        *slot = NULL;
    }
    r_surf *s = malloc(size);
    if (!s)
        return NULL;
    s->w = w;
    s->h = h;
    c->bytes += size;
    c->texels_built += (uint64_t)w * (uint64_t)h;
    *slot = s;
    return s;
}

/* ---- light styles ---- */

int r_style_value(const char *pattern, double t)
{
    size_t len = strnlen(pattern, CL_NAME_LEN);
    if (len == 0)
        return 256; /* Quake's R_AnimateLight: an unset style is plain full light */
    int64_t i = t > 0 && t < 1e9 ? (int64_t)(t * 10) : 0; /* (64 bits where long is 32) */
    int c = pattern[(size_t)i % len] - 'a';
    return (c < 0 ? 0 : c > 25 ? 25 : c) * 22;
}

/* ---- colours ---- */

void r_surf_lut(r_assets *a)
{
    for (int row = 0; row < 64; row++)
        for (int p = 0; p < 256; p++) {
            uint32_t out;
            if (a->colormap_ok) {
                out = a->palette[a->colormap[(size_t)row * 256 + (size_t)p]];
            } else if (p >= 224) {
                out = a->palette[p];
            } else {
                uint32_t c = a->palette[p], f = (uint32_t)(64 - row); /* 32 = as is */
                uint32_t r = (c & 255) * f / 32, g = (c >> 8 & 255) * f / 32,
                         b = (c >> 16 & 255) * f / 32;
                out = (r > 255 ? 255 : r) | (g > 255 ? 255 : g) << 8 | (b > 255 ? 255 : b) << 16;
            }
            a->lut[row * 256 + p] = out | 0xff000000u;
        }
}

/* The colour of palette index p under colormap row r (0..63). */
static inline uint32_t lit(const r_assets *a, int row, uint8_t p)
{
    return a->lut[(size_t)row * 256 + p];
}

/* The texture a face shows at time t in a brush entity's frame (R_WORLD_FRAME: the world's
 * faces). */
static int32_t anim_texture(const mdl_bsp *b, int32_t ti, int frame, double t)
{
    if (ti < 0 || (uint32_t)ti >= b->num_textures)
        return -1;
    const mdl_texture *tx = &b->textures[ti];
    if (b->format == MDL_BSP_Q2_38) {
        /* yquake2 R_TextureAnimation: the entity's frame (the world's: the time x 2, as
         * r_worldentity.frame) modulo the chain's length, walked along it from the texinfo */
        if (tx->anim_count <= 1)
            return ti;
        long k = frame >= 0 ? frame : t > 0 && t < 1e9 ? (long)(t * 2) : 0;
        int32_t r = ti;
        for (long i = k % tx->anim_count; i > 0 && r >= 0; i--) /* anim_count <= 64 */
            r = b->textures[r].anim_next;
        return r >= 0 ? r : ti;
    }
    int32_t first = tx->anim_first;
    int count = tx->anim_count;
    if (frame > 0 && tx->alt_count) {
        first = tx->alt_first;
        count = tx->alt_count;
    }
    if (count <= 1 || first < 0)
        return ti;
    int64_t k = t > 0 && t < 1e9 ? (int64_t)(t * 5) : 0; /* a frame every 0.2 s */
    int32_t r = first;
    for (int64_t i = k % count; i > 0; i--) /* count <= 10 */
        r = b->textures[r].anim_next;
    return r;
}

/* Quake II's SURF_FLOWING: how far the texture has moved along s at time t, in texels of a
 * level tw wide, as a shift in 0..tw-1 to add to s. yquake2 R_DrawGLFlowingPoly adds
 * -64 (t/40 - floor(t/40)) texture widths, which is -(1.6 t mod 1) widths. */
static int flow_shift(double t, int tw)
{
    double u = t > 0 && t < 1e9 ? fmod(t * 1.6, 1.0) : 0;
    int k = (int)(u * tw);
    return k > 0 && k < tw ? tw - k : 0;
}

/* Luxel grid g (lw x lh) at block texel (x, y), luxels `step` texels apart: bilinear. */
static inline int32_t bilerp(const int32_t *g, int lw, int lh, int x, int y, int step)
{
    int lx = x / step, fx = x % step, ly = y / step, fy = y % step;
    lx = lx < lw ? lx : lw - 1;
    ly = ly < lh ? ly : lh - 1;
    int lx1 = lx + 1 < lw ? lx + 1 : lw - 1, ly1 = ly + 1 < lh ? ly + 1 : lh - 1;
    int32_t a0 = g[(size_t)ly * lw + lx], a1 = g[(size_t)ly * lw + lx1];
    int32_t b0 = g[(size_t)ly1 * lw + lx], b1 = g[(size_t)ly1 * lw + lx1];
    int32_t top = a0 + (a1 - a0) * fx / step, bot = b0 + (b1 - b0) * fx / step;
    return top + (bot - top) * fy / step;
}

/* A texel's channel under light L (the styles' weighted sum, as the colormap rows take it):
 * the ramp of the colormap's rows, (L + 256) / 32768 times the texel, from 1/32 to 2. */
#define R_LIGHT_TOP (65536 - 256) /* the light where lit_channel's ramp stops: twice */
static inline uint32_t lit_channel(uint32_t c, int32_t L)
{
    int32_t f = L + 256;
    f = f < 1024 ? 1024 : f > 65536 ? 65536 : f;
    uint32_t v = (uint32_t)(((uint64_t)c * (uint32_t)f) >> 15);
    return v > 255 ? 255 : v;
}

/* What block_rows reads: the luxel grid g (nc channels of lw x lh), the texture's level
 * (tw x th palette indices, wrapping) and the block's first texel (s0, t0) in it. */
typedef struct block_src {
    const r_assets *a;
    const int32_t *g;
    int lw, lh;
    size_t luxels;
    int nc;
    const uint8_t *pix;
    int tw, th, s0, t0;
    int fullbright; /* palette indices from here on are not lit: 224 in Quake, none (256) in
                     * Quake II */
    int avx2;       /* block_row3_avx2 may build the three-channel rows */
    int x0, y0, x1, y1; /* the texels to build: all, or a dynamic light's (x0 a multiple of
                         * the luxel's texels) */
} block_src;

#if defined(R_SURF_AVX2)
/* block_rows' loops below, eight texels at a time with AVX2 (the same integers): a row's
 * group of eight at x (within one luxel: step = 1 << sh is 8 or 16), its texels' palette
 * indices from the texture's row src at column sx (tw >= 8: a group wraps at most once).
 * C's division by the power of two, rounding towards zero, is (v + (v < 0 ? step - 1 : 0))
 * >> sh. */
typedef struct row8 {
    __m256i lane, round, fyv;
    __m128i shv;
    int sh, lw;
} row8;

__attribute__((target("avx2"))) static inline __m256i row8_tdiv(const row8 *r, __m256i v)
{
    return _mm256_sra_epi32(
        _mm256_add_epi32(v, _mm256_and_si256(_mm256_srai_epi32(v, 31), r->round)), r->shv);
}

/* The eight texels' palette indices. */
__attribute__((target("avx2"))) static inline __m256i row8_index(const row8 *r,
                                                                 const uint8_t *src, int sx,
                                                                 int tw)
{
    __m256i idx = _mm256_add_epi32(_mm256_set1_epi32(sx), r->lane);
    const __m256i twv = _mm256_set1_epi32(tw);
    idx = _mm256_sub_epi32(idx, _mm256_andnot_si256(_mm256_cmpgt_epi32(twv, idx), twv));
    uint32_t pi[8];
    _mm256_storeu_si256((__m256i *)pi, idx);
    return _mm256_setr_epi32(src[pi[0]], src[pi[1]], src[pi[2]], src[pi[3]], src[pi[4]],
                             src[pi[5]], src[pi[6]], src[pi[7]]);
}

/* The light at the group at x of luxel rows ga, gb (bilerp's sums, as the loops make them). */
__attribute__((target("avx2"))) static inline __m256i row8_light(const row8 *r,
                                                                 const int32_t *ga,
                                                                 const int32_t *gb, int x)
{
    int lx = x >> r->sh, fx = x & ((1 << r->sh) - 1);
    int lx0 = lx < r->lw ? lx : r->lw - 1, lx1 = lx0 + 1 < r->lw ? lx0 + 1 : r->lw - 1;
    const __m256i fxv = _mm256_add_epi32(_mm256_set1_epi32(fx), r->lane);
    __m256i top = _mm256_add_epi32(
        _mm256_set1_epi32(ga[lx0]),
        row8_tdiv(r, _mm256_mullo_epi32(_mm256_set1_epi32(ga[lx1] - ga[lx0]), fxv)));
    __m256i bot = _mm256_add_epi32(
        _mm256_set1_epi32(gb[lx0]),
        row8_tdiv(r, _mm256_mullo_epi32(_mm256_set1_epi32(gb[lx1] - gb[lx0]), fxv)));
    return _mm256_add_epi32(top,
                            row8_tdiv(r, _mm256_mullo_epi32(_mm256_sub_epi32(bot, top), r->fyv)));
}

/* Eight texels into dst + x, or the first w - x of them. */
__attribute__((target("avx2"))) static inline void row8_store(uint32_t *dst, int x, int w,
                                                              __m256i out)
{
    if (w - x >= 8) {
        _mm256_storeu_si256((__m256i *)(dst + x), out);
    } else {
        uint32_t o[8];
        _mm256_storeu_si256((__m256i *)o, out);
        memcpy(dst + x, o, (size_t)(w - x) * sizeof *o);
    }
}

__attribute__((target("avx2"))) static row8 row8_init(const block_src *bs, int sh, int fy)
{
    row8 r;
    r.lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    r.round = _mm256_set1_epi32((1 << sh) - 1);
    r.fyv = _mm256_set1_epi32(fy);
    r.shv = _mm_cvtsi32_si128(sh);
    r.sh = sh;
    r.lw = bs->lw;
    return r;
}

/* A row of a three-channel block: row y's luxel rows ly and ly1 of each channel, fy its
 * place between them; (c * f) >> 15 fits 32 bits (c <= 255, f <= 65536). */
__attribute__((target("avx2"))) static void block_row3_avx2(const block_src *bs, int sh,
                                                            int ly, int ly1, int fy, int sx0,
                                                            const uint8_t *src, uint32_t *dst)
{
    const int w = bs->x1;
    const row8 r = row8_init(bs, sh, fy);
    const int tw = bs->tw;
    const __m256i lo = _mm256_set1_epi32(1024), hi = _mm256_set1_epi32(65536);
    const __m256i byte = _mm256_set1_epi32(255), opaque = _mm256_set1_epi32((int)0xff000000u);
    const __m256i fbm = _mm256_set1_epi32(bs->fullbright - 1);
    const uint32_t *pal = bs->a->palette;
    for (int x = bs->x0, sx = sx0; x < w; x += 8, sx = sx + 8 >= tw ? sx + 8 - tw : sx + 8) {
        const __m256i p = row8_index(&r, src, sx, tw);
        uint32_t pp[8];
        _mm256_storeu_si256((__m256i *)pp, p);
        const __m256i c = _mm256_setr_epi32((int)pal[pp[0]], (int)pal[pp[1]], (int)pal[pp[2]],
                                            (int)pal[pp[3]], (int)pal[pp[4]], (int)pal[pp[5]],
                                            (int)pal[pp[6]], (int)pal[pp[7]]);
        __m256i out = opaque;
#pragma GCC unroll 3
        for (int k = 0; k < 3; k++) { /* (unrolled: constant shifts, the channels overlap) */
            const int32_t *ga = bs->g + (size_t)k * bs->luxels + (size_t)ly * (size_t)bs->lw,
                          *gb = bs->g + (size_t)k * bs->luxels + (size_t)ly1 * (size_t)bs->lw;
            __m256i f = _mm256_add_epi32(row8_light(&r, ga, gb, x), _mm256_set1_epi32(256));
            f = _mm256_min_epi32(_mm256_max_epi32(f, lo), hi);
            __m256i ch = _mm256_and_si256(_mm256_srli_epi32(c, 8 * k), byte);
            __m256i v = _mm256_srli_epi32(_mm256_mullo_epi32(ch, f), 15);
            v = _mm256_min_epi32(v, byte);
            out = _mm256_or_si256(out, _mm256_slli_epi32(v, 8 * k));
        }
        /* fullbright texels: the palette's colour */
        out = _mm256_blendv_epi8(out, _mm256_or_si256(c, opaque), _mm256_cmpgt_epi32(p, fbm));
        row8_store(dst, x, w, out);
    }
}

/* A row of a one-channel block: the light's colormap row (65280 - L) / 4 in 8.8, held
 * within rows 0..63, and the texel through it (lit). */
__attribute__((target("avx2"))) static void block_row1_avx2(const block_src *bs, int sh,
                                                            int ly, int ly1, int fy, int sx0,
                                                            const uint8_t *src, uint32_t *dst)
{
    const int w = bs->x1;
    const int32_t *ga = bs->g + (size_t)ly * (size_t)bs->lw,
                  *gb = bs->g + (size_t)ly1 * (size_t)bs->lw;
    const row8 r = row8_init(bs, sh, fy);
    const int tw = bs->tw;
    const __m256i full = _mm256_set1_epi32(255 * 256), lo = _mm256_set1_epi32(64),
                  hi = _mm256_set1_epi32(63 * 256 + 255);
    const uint32_t *lut = bs->a->lut;
    for (int x = bs->x0, sx = sx0; x < w; x += 8, sx = sx + 8 >= tw ? sx + 8 - tw : sx + 8) {
        const __m256i p = row8_index(&r, src, sx, tw);
        __m256i v = _mm256_srai_epi32(_mm256_sub_epi32(full, row8_light(&r, ga, gb, x)), 2);
        v = _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
        __m256i ix = _mm256_add_epi32(_mm256_slli_epi32(_mm256_srli_epi32(v, 8), 8), p);
        uint32_t i8[8];
        _mm256_storeu_si256((__m256i *)i8, ix);
        row8_store(dst, x, w,
                   _mm256_setr_epi32((int)lut[i8[0]], (int)lut[i8[1]], (int)lut[i8[2]],
                                     (int)lut[i8[3]], (int)lut[i8[4]], (int)lut[i8[5]],
                                     (int)lut[i8[6]], (int)lut[i8[7]]));
    }
}
#endif

/* The lit texels of block s, luxels step texels apart (inlined with step a constant, so
 * its divisions become shifts; the texture column wraps by counting, not by %). */
static inline __attribute__((always_inline)) void block_rows(const block_src *bs, int step,
                                                             r_surf *s)
{
    const r_assets *a = bs->a;
    const int32_t *g = bs->g;
    const int lw = bs->lw, lh = bs->lh, nc = bs->nc, tw = bs->tw, th = bs->th;
    const size_t luxels = bs->luxels;
    /* the texture column of the region's first texel */
    const int sx0 = ((int)(((int64_t)bs->s0 + bs->x0) % tw) + tw) % tw;
    for (int y = bs->y0; y < bs->y1; y++) {
        int ty = ((bs->t0 + y) % th + th) % th;
        const uint8_t *src = bs->pix + (size_t)ty * (size_t)tw;
        uint32_t *dst = s->texels + (size_t)y * (size_t)s->w;
        /* the row's luxel rows and its place between them (bilerp's sums a luxel cell at a
         * time: its four corners read once per cell) */
        int ly = y / step, fy = y % step;
        ly = ly < lh ? ly : lh - 1;
        int ly1 = ly + 1 < lh ? ly + 1 : lh - 1;
#if defined(R_SURF_AVX2)
        if (bs->avx2 && step >= 8 && tw >= 8) {
            (nc == 1 ? block_row1_avx2 : block_row3_avx2)(bs, step == 16 ? 4 : 3, ly, ly1, fy,
                                                          sx0, src, dst);
            continue;
        }
#endif
        if (nc == 1) {
            const int32_t *ga = g + (size_t)ly * (size_t)lw, *gb = g + (size_t)ly1 * (size_t)lw;
            for (int x = bs->x0, sx = sx0; x < bs->x1;) {
                int lx = x / step, lx0 = lx < lw ? lx : lw - 1;
                int lx1 = lx0 + 1 < lw ? lx0 + 1 : lw - 1;
                int32_t a0 = ga[lx0], da = ga[lx1] - a0, b0 = gb[lx0], db = gb[lx1] - b0;
                int end = (lx + 1) * step < bs->x1 ? (lx + 1) * step : bs->x1;
                for (int fx = x % step; x < end; x++, fx++, sx = sx + 1 == tw ? 0 : sx + 1) {
                    int32_t top = a0 + da * fx / step, bot = b0 + db * fx / step;
                    /* the colormap row: (65280 - L) / 4 in 8.8, 64 (row 0) at the brightest */
                    int32_t v = (255 * 256 - (top + (bot - top) * fy / step)) >> 2;
                    v = v < 64 ? 64 : v > 63 * 256 + 255 ? 63 * 256 + 255 : v;
                    dst[x] = lit(a, v >> 8, src[sx]);
                }
            }
            continue;
        }
        /* three channels: bilerp's sums taken as the one-channel loop takes them, a luxel
         * cell at a time (the same values: its corners read once per cell, not per texel) */
        for (int x = bs->x0, sx = sx0; x < bs->x1;) {
            int lx = x / step, lx0 = lx < lw ? lx : lw - 1;
            int lx1 = lx0 + 1 < lw ? lx0 + 1 : lw - 1;
            int32_t a0[3], da[3], b0[3], db[3];
            for (int k = 0; k < 3; k++) {
                const int32_t *ga = g + (size_t)k * luxels + (size_t)ly * (size_t)lw,
                              *gb = g + (size_t)k * luxels + (size_t)ly1 * (size_t)lw;
                a0[k] = ga[lx0];
                da[k] = ga[lx1] - a0[k];
                b0[k] = gb[lx0];
                db[k] = gb[lx1] - b0[k];
            }
            int end = (lx + 1) * step < bs->x1 ? (lx + 1) * step : bs->x1;
            for (int fx = x % step; x < end; x++, fx++, sx = sx + 1 == tw ? 0 : sx + 1) {
                uint8_t p = src[sx];
                if (p >= bs->fullbright) {
                    dst[x] = a->palette[p] | 0xff000000u; /* fullbright */
                    continue;
                }
                uint32_t c = a->palette[p], out = 0xff000000u;
                for (int k = 0; k < 3; k++) {
                    int32_t top = a0[k] + da[k] * fx / step, bot = b0[k] + db[k] * fx / step;
                    out |= lit_channel(c >> (8 * k) & 255, top + (bot - top) * fy / step)
                           << (8 * k);
                }
                dst[x] = out;
            }
        }
    }
}

/* Build face fi's lit block at mip level m with the given style values into s: the light of
 * each luxel (Quake's blocklights: samples times style values), bilinear across the block,
 * then through the colormap; with a .lit file (rgb, 3 samples per luxel) per channel. */
static void build_block(const r_assets *a, const r_bsp *rb, uint32_t fi, const mdl_texture *tx,
                        int m, int flow, const int light[4], const struct r_dlight *const *dl,
                        int ndl, int rgb, int partial, r_surf *s, uint64_t *built)
{
    const mdl_bsp *b = rb->bsp;
    const mdl_face *f = &b->faces[fi];
    const mdl_face_lm *lm = &b->face_lm[fi];
    int lw = (lm->extents[0] >> 4) + 1, lh = (lm->extents[1] >> 4) + 1;
    size_t luxels = (size_t)lw * (size_t)lh;
    /* light channels: Quake's .lit and Quake II's lightmaps (R, G, B per luxel; the face's
     * offset counts bytes) have three */
    int q2 = b->light_rgb && !rb->lit;
    int nc = rb->lit || q2 ? 3 : 1;
    /* rgb: the block in three channels through the RGB ramp, a map lit in one its light in
     * each (QuakeWorld, as ezQuake draws its lightmaps: in 24 bits, its lights coloured) */
    int tinted = rgb && nc == 1;
    nc = tinted ? 3 : nc;
    /* a Quake map's light at the software renderer's scale (R_QUAKE_WORLD_GAIN), Quake II's
     * at the GL renderers' (R_LIGHT_GAIN) */
    int wgain = b->format == MDL_BSP_Q2_38 ? (int)R_LIGHT_GAIN : R_QUAKE_WORLD_GAIN;
    *built = 0;
    int32_t *g = malloc(luxels * (size_t)nc * sizeof *g);
    if (!g) {
        for (size_t i = 0; i < (size_t)s->w * (size_t)s->h; i++)
            s->texels[i] = f->color | 0xff000000u;
        s->lit[0] = s->lit[1] = 0; /* (all of it to be made again) */
        s->lit[2] = s->w;
        s->lit[3] = s->h;
        return;
    }
    for (int c = 0; c < nc; c++)
        for (size_t i = 0; i < luxels; i++) {
            int32_t sum = 0;
            if (f->flags & MDL_SURF_FULLBRIGHT || b->light_len == 0)
                sum = b->light_len == 0 ? 255 * 256 : 128 * NORMAL_STYLE;
            else if (rb->lit)
                for (int k = 0; k < lm->num_styles; k++)
                    sum += rb->lit[((size_t)lm->ofs + (size_t)k * luxels + i) * 3 + (size_t)c] *
                           light[k];
            else if (tinted && c > 0)
                sum = g[i] / (int32_t)wgain; /* (channel 0's, made just before) */
            else if (q2) {
                /* as Quake II's GL renderers show it: a luxel of 255 is the texture's own
                 * colour (the texture times the lightmap), where Quake's 128 is */
                for (int k = 0; k < lm->num_styles; k++)
                    sum += b->lightdata[(size_t)lm->ofs + ((size_t)k * luxels + i) * 3 +
                                        (size_t)c] *
                           light[k];
                sum = (int32_t)((int64_t)sum * 128 / 255);
            }
            else
                for (int k = 0; k < lm->num_styles; k++)
                    sum += b->lightdata[(size_t)lm->ofs + (size_t)k * luxels + i] * light[k];
            g[(size_t)c * luxels + i] = (int32_t)(sum * wgain);
        }
    /* WinQuake r_surf.c R_AddDynamicLights: each light's impact on the face's plane, and
     * (rad - dist) x 256 added to every luxel closer than rad - minlight, dist measured as
     * the larger of the s and t offsets plus half the smaller (white: every channel).
     * Quake II's (yquake2 gl1_light.c, the same walk) adds (rad - dist) x the light's colour
     * to a luxel of 0..255, where 255 is the texture's own colour: x 128 / 255 here */
    int ux0 = INT32_MAX, uy0 = INT32_MAX, ux1 = -1, uy1 = -1; /* the luxels lit */
    for (int k = 0; k < ndl; k++) {
        float gain[3] = {1, 1, 1};
        for (int c = 0; (q2 || rgb) && c < 3; c++)
            gain[c] = dl[k]->color[c] * (q2 ? 128.0f / 255.0f : 1);
        float pd = f->normal[0] * dl[k]->origin[0] + f->normal[1] * dl[k]->origin[1] +
                   f->normal[2] * dl[k]->origin[2] - f->dist;
        float rad = dl[k]->radius - fabsf(pd);
        if (rad < dl[k]->minlight)
            continue;
        float minlight = rad - dl[k]->minlight, impact[3], local[2];
        for (int i = 0; i < 3; i++)
            impact[i] = dl[k]->origin[i] - f->normal[i] * pd;
        for (int j = 0; j < 2; j++)
            local[j] = impact[0] * lm->vecs[j][0] + impact[1] * lm->vecs[j][1] +
                       impact[2] * lm->vecs[j][2] + lm->vecs[j][3] - (float)lm->mins[j];
        if (!(fabsf(local[0]) < 1e6f && fabsf(local[1]) < 1e6f))
            continue; /* a hostile map's axes: nowhere near the face, and no int holds it */
        for (int t = 0; t < lh; t++) {
            int td = (int)(local[1] - (float)(t * 16));
            td = td < 0 ? -td : td;
            for (int u = 0; u < lw; u++) {
                int sd = (int)(local[0] - (float)(u * 16));
                sd = sd < 0 ? -sd : sd;
                int d = sd > td ? sd + (td >> 1) : td + (sd >> 1);
                if (!((float)d < minlight))
                    continue;
                for (int c = 0; c < nc; c++)
                    g[(size_t)c * luxels + (size_t)t * (size_t)lw + (size_t)u] +=
                        (int32_t)((rad - (float)d) * 256 * wgain * gain[c]);
                ux0 = u < ux0 ? u : ux0;
                ux1 = u > ux1 ? u : ux1;
                uy0 = t < uy0 ? t : uy0;
                uy1 = t > uy1 ? t : uy1;
            }
        }
    }
    /* coloured light past the ramp's top keeps its hue: the GL engines scale a luxel's three
     * channels together when the largest passes the top (ezQuake r_lightmaps.c and Quake
     * II's gl_light.c R_BuildLightMap), where a cap on each would turn an orange explosion's
     * light yellow-white near its centre */
    if (nc == 3)
        for (size_t i = 0; i < luxels; i++) {
            int32_t *r = &g[i], *gr = &g[luxels + i], *bl = &g[2 * luxels + i];
            int32_t mx = *r > *gr ? *r : *gr;
            mx = mx > *bl ? mx : *bl;
            if (mx > R_LIGHT_TOP) {
                *r = (int32_t)((int64_t)*r * R_LIGHT_TOP / mx);
                *gr = (int32_t)((int64_t)*gr * R_LIGHT_TOP / mx);
                *bl = (int32_t)((int64_t)*bl * R_LIGHT_TOP / mx);
            }
        }
    const uint8_t *pix = tx->mips[m];
    int tw = (int)(tx->width >> m), th = (int)(tx->height >> m);
    /* mins within +-1.6e7 (mdl_bspcore clamps them), flow below 2048: no overflow */
    int s0 = (lm->mins[0] >> m) + flow, t0 = lm->mins[1] >> m;
    /* The texels the dynamic lights change: a luxel reaches the cells on either side of it
     * (the bilinear light), texels (u - 1) step .. (u + 1) step. Built partly, the block
     * makes again only those its lights changed before or change now; the rest are what
     * the same styles without them made (the same numbers as a whole build). */
    const int step = 16 >> m;
    int nl[4] = {0, 0, 0, 0};
    if (ux1 >= 0) {
        nl[0] = ux0 > 0 ? (ux0 - 1) * step : 0;
        nl[1] = uy0 > 0 ? (uy0 - 1) * step : 0;
        /* (the last luxel of a row or column is what every texel past it reads) */
        nl[2] = ux1 < lw - 1 && (ux1 + 1) * step < s->w ? (ux1 + 1) * step : s->w;
        nl[3] = uy1 < lh - 1 && (uy1 + 1) * step < s->h ? (uy1 + 1) * step : s->h;
    }
    int r[4] = {0, 0, s->w, s->h};
    if (partial) {
        const int *ol = s->lit;
        int oe = ol[2] <= ol[0] || ol[3] <= ol[1], ne = nl[2] <= nl[0] || nl[3] <= nl[1];
        r[0] = oe ? nl[0] : ne ? ol[0] : ol[0] < nl[0] ? ol[0] : nl[0];
        r[1] = oe ? nl[1] : ne ? ol[1] : ol[1] < nl[1] ? ol[1] : nl[1];
        r[2] = oe ? nl[2] : ne ? ol[2] : ol[2] > nl[2] ? ol[2] : nl[2];
        r[3] = oe ? nl[3] : ne ? ol[3] : ol[3] > nl[3] ? ol[3] : nl[3];
        if (oe && ne)
            r[2] = r[0]; /* neither: nothing to make */
    }
    memcpy(s->lit, nl, sizeof nl);
    const block_src bs = {a, g, lw, lh, luxels, nc, pix, tw, th, s0, t0,
                          b->format == MDL_BSP_Q2_38 ? 256 : 224, rast_simd(-1) >= 2,
                          r[0], r[1], r[2], r[3]};
    if (bs.x1 <= bs.x0 || bs.y1 <= bs.y0) {
        free(g);
        return;
    }
    *built = (uint64_t)(bs.x1 - bs.x0) * (uint64_t)(bs.y1 - bs.y0);
    switch (step) { /* block texels per luxel: a constant in each copy of the loop */
    case 16:
        block_rows(&bs, 16, s);
        break;
    case 8:
        block_rows(&bs, 8, s);
        break;
    case 4:
        block_rows(&bs, 4, s);
        break;
    default:
        block_rows(&bs, 16 >> m, s);
        break;
    }
    free(g);
}

/* The unlit RGBA of texture ti (liquids, Quake II's translucent surfaces): its level 0, or
 * the finest level within R_SURF_MAX_RGBA (*m), cached per texture's pixels (rb->tex_same);
 * the alpha byte is the face's SURF_TRANS33 or 66 (yquake2 R_DrawAlphaSurfaces: 0.33 and
 * 0.66 of 255), else 255. */
static const r_surf *texture_rgba(r_view *v, r_cache_bsp *cb, const r_bsp *rb, int32_t ti,
                                 uint8_t face_flags, int *m)
{
    const mdl_bsp *b = rb->bsp;
    if (rb->tex_same)
        ti = rb->tex_same[ti];
    /* the alpha is the face's own texinfo's (yquake2), which an animation frame may not share:
     * the cached copy names it in its key and is rebuilt when another is asked */
    uint32_t alpha = face_flags & MDL_SURF_TRANS33   ? 84u << 24
                     : face_flags & MDL_SURF_TRANS66 ? 168u << 24
                                                     : 0xff000000u;
    const mdl_texture *tx = &b->textures[ti];
    int mip = 0;
    while (mip < 4 && (uint64_t)(tx->width >> mip) * (tx->height >> mip) > R_SURF_MAX_RGBA)
        mip++;
    if (mip > 3 || !tx->mips[mip] || !(tx->width >> mip) || !(tx->height >> mip))
        return NULL;
    *m = mip;
    /* (one slot an alpha: a review found faces of one .wal at 33 and 66 % taking turns to
     * rebuild one shared copy) */
    size_t slot_at = (size_t)ti * 3 + (alpha >> 24 == 255 ? 0 : alpha >> 24 == 168 ? 1 : 2);
    r_surf **slot = &cb->textures[slot_at];
    if (*slot && (uint32_t)(*slot)->key[0] == alpha >> 24)
        return *slot;
    /* counted against the budget as the lit blocks are (many liquid textures of one map
     * kept 534 MB; a review) */
    if (v->cache->bytes > v->cache->budget) {
        cache_flush(v->cache);
        cb = cache_bsp(v->cache, b);
        if (!cb)
            return NULL;
        slot = &cb->textures[slot_at];
    }
    r_surf *s = cache_alloc(v->cache, slot, (int)(tx->width >> mip), (int)(tx->height >> mip));
    if (!s)
        return NULL;
    memset(s->key, 0, sizeof s->key);
    s->key[0] = (int)(alpha >> 24);
    for (size_t i = 0; i < (size_t)s->w * (size_t)s->h; i++)
        s->texels[i] = (v->assets->palette[tx->mips[mip][i]] & 0xffffffu) | alpha;
    return s;
}

/* The lit block of face fi at mip m, or a coarser one when that block would pass `most`
 * texels, from the cache or built now; NULL when it cannot be. */
static const r_surf *face_block(r_view *v, r_cache_bsp *cb, const r_bsp *rb, uint32_t fi,
                                int32_t ti, int *m, int dlit, uint64_t most)
{
    const mdl_bsp *b = rb->bsp;
    const mdl_face_lm *lm = &b->face_lm[fi];
    const mdl_texture *tx = &b->textures[ti];
    int mip = *m;
    if (most > R_SURF_MAX_TEXELS)
        most = R_SURF_MAX_TEXELS;
    while (mip < 4 && (uint64_t)((lm->extents[0] >> mip) + 1) * (uint64_t)((lm->extents[1] >> mip) + 1) >
                          most)
        mip++;
    if (mip > 3)
        return NULL; /* too big at every level (mips[] has four) */
    while (mip > 0 && !tx->mips[mip])
        mip--;
    if (!tx->mips[mip] || (tx->width >> mip) == 0 || (tx->height >> mip) == 0)
        return NULL;
    /* (stepping down to a level the texture has must not undo the cap: a map whose small
     * mips were missing built 35 M-texel blocks; a review) */
    if ((uint64_t)((lm->extents[0] >> mip) + 1) * (uint64_t)((lm->extents[1] >> mip) + 1) >
        most)
        return NULL;
    /* a flowing texture's shift names its block too (the block is rebuilt as it moves) */
    int flow = b->faces[fi].flags & MDL_SURF_FLOWING ? flow_shift(v->time, (int)(tx->width >> mip))
                                                      : 0;
    int key[8] = {0, 0, 0, 0, ti, mip + 4 * flow, 0, 0};
    for (int k = 0; k < lm->num_styles; k++)
        key[k] = v->style[lm->styles[k] < CL_MAX_LIGHTSTYLES ? lm->styles[k] : 0];
    /* the dynamic lights whose sphere reaches the face's plane (as R_MarkLights marks them)
     * light this block, and name it: their places and sizes hashed into the key */
    const struct r_dlight *dl[R_MAX_DLIGHTS];
    int ndl = 0;
    const mdl_face *f = &b->faces[fi];
    for (int k = 0; dlit && k < v->num_dlights; k++) {
        const struct r_dlight *d = &v->dlights[k];
        float pd = f->normal[0] * d->origin[0] + f->normal[1] * d->origin[1] +
                   f->normal[2] * d->origin[2] - f->dist;
        if (fabsf(pd) < d->radius - d->minlight && b->light_len > 0 &&
            !(f->flags & MDL_SURF_FULLBRIGHT)) {
            dl[ndl++] = d;
            /* the block depends on the exact numbers: two independent 32-bit hashes of their
             * bits, so a block is reused only for the same lights (one in 2^64 otherwise) */
            const float vals[8] = {d->origin[0], d->origin[1], d->origin[2], d->radius,
                                   d->minlight, d->color[0], d->color[1], d->color[2]};
            uint32_t h1 = (uint32_t)key[6] ^ 2166136261u, h2 = (uint32_t)key[7] + 0x9e3779b9u;
            for (int j = 0; j < 8; j++) {
                uint32_t bits;
                memcpy(&bits, &vals[j], 4);
                h1 = (h1 ^ bits) * 16777619u;
                h2 = (h2 + bits) * 0x85ebca6bu;
                h2 ^= h2 >> 13;
            }
            key[6] = (int32_t)(h1 | 1u);
            key[7] = (int32_t)h2;
        }
    }
    r_surf **slot = &cb->faces[(size_t)fi * 4 + (size_t)mip];
    *m = mip;
    if (*slot && memcmp((*slot)->key, key, sizeof key) == 0)
        return *slot;
    int w = lm->extents[0] >> mip, h = lm->extents[1] >> mip;
    w = w > 0 ? w : 1;
    h = h > 0 ? h : 1;
    uint64_t built;
    if (*slot && memcmp((*slot)->key, key, 6 * sizeof key[0]) == 0 && (*slot)->w == w &&
        (*slot)->h == h) {
        /* only the dynamic lights differ: the texels they reach, before or now, made again */
        r_surf *s = *slot;
        memcpy(s->key, key, sizeof key);
        build_block(v->assets, rb, fi, tx, mip, flow, key, dl, ndl,
                    v->cl && v->cl->level.game == CL_GAME_QW, 1, s, &built);
        v->cache->texels_built += built;
        return s;
    }
    if (v->cache->bytes > v->cache->budget) {
        cache_flush(v->cache);
        cb = cache_bsp(v->cache, b);
        if (!cb)
            return NULL;
        slot = &cb->faces[(size_t)fi * 4 + (size_t)mip];
    }
    r_surf *s = cache_alloc(v->cache, slot, w, h);
    if (!s)
        return NULL;
    memcpy(s->key, key, sizeof key);
    build_block(v->assets, rb, fi, tx, mip, flow, key, dl, ndl,
                v->cl && v->cl->level.game == CL_GAME_QW, 0, s, &built);
    return s;
}

/* A light's place is a number a map can hold (a hostile demo's may not be: the key's hash and
 * the luxel distances convert it to integers). */
static int in_reach(const float o[3])
{
    for (int j = 0; j < 3; j++)
        if (!(fabsf(o[j]) < 1e6f))
            return 0;
    return 1;
}

/* A Quake III dynamic light (trap_R_AddLightToScene); 0 when the list is full or o is out
 * of reach. */
static int q3_light(r_view *v, const float o[3], float radius, float r, float g, float b)
{
    if (v->num_dlights >= R_MAX_DLIGHTS || !in_reach(o) || !(radius > 0))
        return 0;
    struct r_dlight *d = &v->dlights[v->num_dlights++];
    memcpy(d->origin, o, sizeof d->origin);
    d->radius = radius;
    d->minlight = 0;
    d->color[0] = r;
    d->color[1] = g;
    d->color[2] = b;
    return 1;
}

/* cgame's lights, from ioq3 (GPL) cg_weapons.c CG_RegisterWeapon (each weapon's
 * flashDlightColor; the rocket's missileDlight 200 in 1, 0.75, 0), CG_AddPlayerWeapon (the
 * flash's light, 300 + (rand() & 31): 316 here, while the flash shows), cg_players.c
 * CG_PlayerPowerups (quad damage 200 + (rand() & 31), 0.2 0.2 1; a carried flag the same in
 * its team's colour) and cg_localents.c CG_AddExplosion (an explosion's light at full
 * radius for half its life, then shrinking to nothing). A muzzle flash is placed 16 units
 * up and 20 ahead of its player's origin, near the weapon's tag_flash. */
static void q3_dlights(r_view *v, const cl_state *cl, double t)
{
    /* by the entity's weapon_t (bg_public.h: 1 gauntlet, 2 machinegun, 3 shotgun, 4 grenade
     * launcher, 5 rocket launcher, 6 lightning, 7 railgun, 8 plasma gun, 9 BFG, 10 grapple),
     * as the decoder keeps it in an effect's style */
    enum { GRENADE = 4, ROCKET = 5 };
    static const float flash[11][3] = {
        {0, 0, 0},     {0.6f, 0.6f, 1}, {1, 1, 0},       {1, 1, 0},      {1, 0.7f, 0},
        {1, 0.75f, 0}, {0.6f, 0.6f, 1}, {1, 0.5f, 0},    {0.6f, 0.6f, 1}, {1, 0.7f, 1},
        {0.6f, 0.6f, 1},
    };
    int n = cl->num_entities < CL_MAX_ENTITIES ? cl->num_entities : CL_MAX_ENTITIES;
    for (int i = 1; i < n; i++) {
        cl_entstate s;
        if (!r_entity_at(v->assets, cl, i, t, &s, NULL, NULL))
            continue;
        if (s.fx & CL_FX_ROCKET)
            q3_light(v, s.origin, 200, 1, 0.75f, 0);
        if (s.fx & CL_FX_GLOW_BLUE)
            q3_light(v, s.origin, 216, 0.2f, 0.2f, 1);
        if (s.fx & CL_FX_FLAG_RED)
            q3_light(v, s.origin, 216, 1, 0.2f, 0.2f);
        if (s.fx & CL_FX_FLAG_BLUE)
            q3_light(v, s.origin, 216, 0.2f, 0.2f, 1);
    }
    const cl_fxev *fx[256];
    int nfx = cl_fx_at(cl, t, fx, 256);
    for (int i = 0; i < nfx; i++) {
        const cl_fxev *e = fx[i];
        double age = t - e->t0;
        if (e->kind == CL_FXK_EXPLOSION && e->radius > 0 && e->life > 0 &&
            (e->style == ROCKET || e->style == GRENADE)) {
            double f = (age > 0 ? age : 0) / e->life;
            float k = f < 0.5 ? 1 : (float)(1 - (f - 0.5) * 2);
            q3_light(v, e->origin, e->radius * k, e->rgb[0] / 255.0f, e->rgb[1] / 255.0f,
                     e->rgb[2] / 255.0f);
        } else if (e->kind == CL_FXK_MUZZLE && e->style < 11 &&
                   (flash[e->style][0] > 0 || flash[e->style][2] > 0) &&
                   !(e->entity > 0 && e->entity == v->hidden_body && !v->gun_shown)) {
            cl_entstate s;
            float o[3] = {e->origin[0], e->origin[1], e->origin[2]}, yaw = 0;
            if (e->entity > 0 && cl_entity_at(cl, e->entity, t, &s, NULL, NULL)) {
                memcpy(o, s.origin, sizeof o);
                yaw = s.angles[1] * (float)M_PI / 180;
            }
            o[0] += 20 * cosf(yaw);
            o[1] += 20 * sinf(yaw);
            o[2] += 16;
            const float *c = flash[e->style];
            q3_light(v, o, 316, c[0], c[1], c[2]);
        }
    }
}

/* A Quake II dynamic light: the GL refresh's cut-off (DLIGHT_CUTOFF 64) as minlight. */
static void q2_light(r_view *v, const float o[3], float radius, float r, float g, float b)
{
    if (q3_light(v, o, radius, r, g, b))
        v->dlights[v->num_dlights - 1].minlight = 64;
}

/* Quake II's lights, from yquake2 (GPL; facts only): cl_entities.c CL_AddPacketEntities'
 * (a rocket's and a blaster bolt's 200 in 1 1 0, the BFG ball's 200 in 0 1 0, a flag
 * carrier's 225 in its team's colour, the ion ripper's 100 and a plasma ball's 130 in
 * 1 0.5 0.5: the first of the chain that applies), cl_effects.c CL_ParseMuzzleFlash (the
 * decoder's radius and colour, plus rand() & 31, 18 ahead of the shooter and 16 to its
 * right, a newer flash of the same entity replacing it) and cl_tempentities.c
 * CL_AddExplosions (an explosion model's light, 350 x its alpha (16 - f) / 16, in the
 * effect's colour, while the model shows); TE_FLASHLIGHT's 400. */
static void q2_dlights(r_view *v, const cl_state *cl, double t)
{
    int n = cl->num_entities < CL_MAX_ENTITIES ? cl->num_entities : CL_MAX_ENTITIES;
    for (int i = 1; i < n && v->num_dlights < R_MAX_DLIGHTS; i++) {
        cl_entstate s;
        if (!cl->entities[i].active || !cl->entities[i].cur.fx ||
            !cl_entity_at(cl, i, t, &s, NULL, NULL))
            continue;
        if (s.fx & (CL_FX_ROCKET | CL_FX_BLASTER))
            q2_light(v, s.origin, 200, 1, 1, 0);
        else if (s.fx & CL_FX_LIGHT_BRIGHT)
            q2_light(v, s.origin, 200, 0, 1, 0);
        else if (s.fx & CL_FX_FLAG_RED)
            q2_light(v, s.origin, 225, 1, 0.1f, 0.1f);
        else if (s.fx & CL_FX_FLAG_BLUE)
            q2_light(v, s.origin, 225, 0.1f, 0.1f, 1);
        else if (s.fx & CL_FX_LIGHT_DIM)
            q2_light(v, s.origin, 100, 1, 0.5f, 0.5f);
        else if (s.fx & CL_FX_PLASMA)
            q2_light(v, s.origin, 130, 1, 0.5f, 0.5f);
    }
    const cl_fxev *fx[256];
    int nfx = cl_fx_at(cl, t, fx, 256);
    for (int i = 0; i < nfx && v->num_dlights < R_MAX_DLIGHTS; i++) {
        const cl_fxev *e = fx[i];
        float rgb[3] = {e->rgb[0] / 255.0f, e->rgb[1] / 255.0f, e->rgb[2] / 255.0f};
        if (e->kind == CL_FXK_MUZZLE) {
            int newer = 0;
            for (int j = i + 1; j < nfx && !newer; j++)
                newer = fx[j]->kind == CL_FXK_MUZZLE && fx[j]->entity == e->entity;
            if (newer || !(e->radius > 0) || !(rgb[0] + rgb[1] + rgb[2] > 0))
                continue;
            float o[3];
            memcpy(o, e->origin, sizeof o);
            cl_entstate s;
            if (e->entity > 0 && cl_entity_at(cl, e->entity, e->t0, &s, NULL, NULL)) {
                float yaw = s.angles[1] * (float)M_PI / 180, pitch = s.angles[0] * (float)M_PI / 180;
                float fwd[3] = {cosf(pitch) * cosf(yaw), cosf(pitch) * sinf(yaw), -sinf(pitch)};
                float right[3] = {sinf(yaw), -cosf(yaw), 0}; /* (AngleVectors without roll) */
                for (int j = 0; j < 3; j++)
                    o[j] = s.origin[j] + 18 * fwd[j] + 16 * right[j];
            }
            uint32_t bits;
            memcpy(&bits, &e->t0, sizeof bits);
            uint32_t h = (bits ^ (uint32_t)e->entity * 2654435761u) * 0x9e3779b9u;
            q2_light(v, o, e->radius + (float)(h >> 27), rgb[0], rgb[1], rgb[2]);
        } else if (e->kind == CL_FXK_EXPLOSION &&
                   (e->style == CL_BOOM_ROCKET || e->style == CL_BOOM_GRENADE ||
                    e->style == CL_BOOM_BIG) &&
                   e->radius > 0) {
            /* (r_md2.c r_q2_explosions: frame f from (t - t0) x 10 + 1, gone at frames - 1) */
            double frac = (t - e->t0) * 10 + 1;
            int f = (int)floor(frac), frames = e->style == CL_BOOM_GRENADE ? 19 : 15;
            if (frac >= 0 && f < frames - 1)
                q2_light(v, e->origin, e->radius * (float)(16 - f) / 16, rgb[0], rgb[1], rgb[2]);
        } else if (e->kind == CL_FXK_DLIGHT && e->radius > 0) {
            q2_light(v, e->origin, e->radius, 1, 1, 1);
        }
    }
}

/* A Quake light's colour: white (WinQuake, GLQuake, QuakeSpasm), or in QuakeWorld ezQuake's
 * (its dlightcolor table, in 128ths of white, with gl_colorlights 1, its default; facts
 * only): a dim or bright light 100 90 80, a muzzle flash or explosion 100 50 10, a rocket 90
 * 60 7, the quad's blue 0 0 128, the pentagram's red 128 0 0, both 128 0 128. */
enum { LT_DEFAULT, LT_MUZZLE, LT_ROCKET, LT_BLUE, LT_RED, LT_REDBLUE };
static void quake_light_colour(struct r_dlight *d, int qw, int type)
{
    static const uint8_t ez[6][3] = {{100, 90, 80}, {100, 50, 10}, {90, 60, 7},
                                     {0, 0, 128},   {128, 0, 0},   {128, 0, 128}};
    for (int j = 0; j < 3; j++)
        d->color[j] = qw ? ez[type][j] / 128.0f : 1;
}

void r_q3_respawns_collect(r_view *v, const cl_state *cl, double t)
{
    v->num_respawns = 0;
    if (!cl || cl->level.game != CL_GAME_Q3)
        return;
    const cl_fxev *fx[256];
    int n = cl_fx_at(cl, t, fx, 256);
    for (int i = 0; i < n && v->num_respawns < 64; i++)
        if (fx[i]->kind == CL_FXK_ITEM_RESPAWN && fx[i]->entity > 0) {
            v->respawns[v->num_respawns].entity = fx[i]->entity;
            v->respawns[v->num_respawns++].t0 = fx[i]->t0;
        }
}

void r_dlights_collect(r_view *v, const cl_state *cl, double t)
{
    v->num_dlights = 0;
    if (cl && cl->level.game == CL_GAME_Q3) {
        q3_dlights(v, cl, t);
        return;
    }
    if (cl && cl->level.game == CL_GAME_Q2) {
        q2_dlights(v, cl, t);
        return;
    }
    if (!cl || (cl->level.game != CL_GAME_Q1 && cl->level.game != CL_GAME_QW))
        return;
    int qw = cl->level.game == CL_GAME_QW;
    int n = cl->num_entities < CL_MAX_ENTITIES ? cl->num_entities : CL_MAX_ENTITIES;
    for (int i = 1; i < n && v->num_dlights < R_MAX_DLIGHTS; i++) {
        cl_entstate s;
        if (!cl_entity_at(cl, i, t, &s, NULL, NULL))
            continue;
        /* cl_main.c CL_RelinkEntities: a model flagged EF_ROCKET (missile.mdl, lavaball.mdl)
         * carries a 200 light */
        const r_assets *a = v->assets;
        int rocket = a && s.model < a->num_models && a->models[s.model].kind == R_KIND_ALIAS &&
                     a->models[s.model].alias && (a->models[s.model].alias->flags & 1);
        if (!rocket && !(s.fx & (CL_FX_LIGHT_BRIGHT | CL_FX_LIGHT_DIM | CL_FX_ROCKET |
                                 CL_FX_GLOW_BLUE | CL_FX_GLOW_RED)))
            continue;
        if (!in_reach(s.origin))
            continue;
        struct r_dlight *d = &v->dlights[v->num_dlights++];
        memcpy(d->origin, s.origin, sizeof d->origin);
        d->minlight = 0;
        int glow = s.fx & (CL_FX_GLOW_BLUE | CL_FX_GLOW_RED);
        quake_light_colour(d, qw,
                           glow == (CL_FX_GLOW_BLUE | CL_FX_GLOW_RED) ? LT_REDBLUE
                           : glow == CL_FX_GLOW_BLUE                  ? LT_BLUE
                           : glow == CL_FX_GLOW_RED                   ? LT_RED
                           : !(s.fx & (CL_FX_LIGHT_BRIGHT | CL_FX_LIGHT_DIM)) ? LT_ROCKET
                                                                            : LT_DEFAULT);
        if (s.fx & CL_FX_LIGHT_BRIGHT) {
            d->origin[2] += 16;
            d->radius = 400;
        } else { /* dim lights, rockets, the glows */
            d->radius = 200;
        }
    }
    const cl_fxev *fx[256];
    int nfx = cl_fx_at(cl, t, fx, 256);
    for (int i = 0; i < nfx && v->num_dlights < R_MAX_DLIGHTS; i++) {
        const cl_fxev *e = fx[i];
        if (e->kind == CL_FXK_MUZZLE) {
            /* a muzzle flash (qr_muzzle_flash): radius 200, minlight 32, for its 0.1 s;
             * CL_AllocDlight keys it by its entity, so a newer flash of the same one
             * replaces it */
            int newer = 0;
            for (int j = i + 1; j < nfx && !newer; j++)
                newer = fx[j]->kind == CL_FXK_MUZZLE && fx[j]->entity == e->entity;
            if (newer || !in_reach(e->origin))
                continue;
            struct r_dlight *d = &v->dlights[v->num_dlights++];
            memcpy(d->origin, e->origin, sizeof d->origin);
            d->radius = e->radius;
            d->minlight = 32;
            quake_light_colour(d, qw, LT_MUZZLE);
            continue;
        }
        if (e->kind != CL_FXK_EXPLOSION || e->radius <= 0)
            continue;
        /* cl_tent.c TE_EXPLOSION: radius 350, shrinking 300 a second, gone after 0.5 s (a
         * tarbaby's explosion has none: radius 0) */
        double age = t - e->t0;
        float r = e->radius - 300 * (float)(age > 0 ? age : 0);
        if (age > 0.5 || r <= 0 || !in_reach(e->origin))
            continue;
        struct r_dlight *d = &v->dlights[v->num_dlights++];
        memcpy(d->origin, e->origin, sizeof d->origin);
        d->radius = r;
        d->minlight = 0;
        quake_light_colour(d, qw, LT_MUZZLE); /* (ezQuake's explosion: the same colour) */
    }
}

/* ---- the face ---- */

/* Screen-space planes of an attribute a = dot(A, p) + a0 over points p of the plane
 * dot(N, p) = dist (world space), as rast_tex wants them: a/w and, when A is NULL, q = 1/w.
 * With P the view-space point and dir(x, y) = ((x - cx)/scale, -(y - cy)/scale, 1), P = z dir
 * on the plane gives 1/z = dot(Nv, dir) / dv and a/z = dot(Av, dir) + (a at the eye) / z. */
void r_attr_q(const r_view *v, const float N[3], float dist, double q[3])
{
    double nv[3] = {dot3(N, v->right), dot3(N, v->up), dot3(N, v->fwd)};
    double dv = (double)dist - dot3(N, v->org);
    double inv = 1.0 / v->scale;
    q[0] = nv[0] * inv / dv;
    q[1] = -nv[1] * inv / dv;
    q[2] = (nv[2] - nv[0] * v->cx * inv + nv[1] * v->cy * inv) / dv;
}

void r_attr_from(const r_view *v, const double q[3], const float *A, float a0, double out[3])
{
    double inv = 1.0 / v->scale;
    double av[3] = {dot3(A, v->right), dot3(A, v->up), dot3(A, v->fwd)};
    double k = (double)dot3(A, v->org) + a0;
    out[0] = k * q[0] + av[0] * inv;
    out[1] = k * q[1] - av[1] * inv;
    out[2] = k * q[2] + av[2] - av[0] * v->cx * inv + av[1] * v->cy * inv;
}

void r_attr_plane(const r_view *v, const float N[3], float dist, const float *A, float a0,
                  double out[3])
{
    double q[3];
    r_attr_q(v, N, dist, q);
    if (!A)
        memcpy(out, q, sizeof q);
    else
        r_attr_from(v, q, A, a0, out);
}

/* Quake's mip choice by the nearest corner's depth: a texel per pixel or more is level 0,
 * then each halving of the texel size on screen a level down. */
static int mip_for(const r_view *v, const float (*pts)[3], int n, const float S[3],
                   const float T[3])
{
    float zmin = 1e30f;
    for (int i = 0; i < n; i++) {
        float d[3] = {pts[i][0] - v->org[0], pts[i][1] - v->org[1], pts[i][2] - v->org[2]};
        float z = dot3(d, v->fwd);
        zmin = z < zmin ? z : zmin;
    }
    zmin = zmin > R_NEAR ? zmin : R_NEAR;
    float ts = sqrtf(dot3(S, S)), tt = sqrtf(dot3(T, T));
    float tpu = ts > tt ? ts : tt; /* texels per world unit */
    float ppt = v->scale / (zmin * (tpu > 1e-6f ? tpu : 1e-6f)); /* pixels per texel */
    /* Quake's d_scalemip thresholds are 0.8x of the halvings (sharper than a plain box). */
    return ppt >= 0.8f ? 0 : ppt >= 0.4f ? 1 : ppt >= 0.2f ? 2 : 3;
}

/* Put off a translucent face until r_surf_trans; 0 when the list cannot grow (the face is
 * then not drawn: drawn now, in the front-to-back walk, what lies behind would cover it). */
static int defer_trans(r_view *v, const r_bsp *rb, uint32_t fi, const r_xform *x, int frame)
{
    if (v->num_trans == v->cap_trans) {
        int cap = v->cap_trans ? 2 * v->cap_trans : 64;
        if (cap > R_MAX_TRANS)
            return 0;
        r_trans *t = realloc(v->trans, (size_t)cap * sizeof *t);
        if (!t)
            return 0;
        v->trans = t;
        v->cap_trans = cap;
    }
    r_trans *e = &v->trans[v->num_trans++];
    memset(e, 0, sizeof *e);
    e->rb = rb;
    e->fi = fi;
    e->frame = frame;
    if (x) {
        e->placed = 1;
        e->x = *x;
    }
    return 1;
}

/* The most texels a face's lit block may take when it covers `area` pixels: any level its
 * distance asks for a face the engines take (R_SURF_LEGAL_EXTENT), else R_SURF_TEXELS_A_PIXEL
 * a pixel, at least R_SURF_SMALL_BLOCK (face_block caps it at R_SURF_MAX_TEXELS). */
static uint64_t block_room(const mdl_face_lm *lm, float area)
{
    if (lm->extents[0] <= R_SURF_LEGAL_EXTENT && lm->extents[1] <= R_SURF_LEGAL_EXTENT)
        return R_SURF_MAX_TEXELS;
    float room = area * R_SURF_TEXELS_A_PIXEL;
    return room > (float)R_SURF_SMALL_BLOCK ? (uint64_t)room : R_SURF_SMALL_BLOCK;
}

void r_surf_face(r_view *v, const r_bsp *rb, uint32_t fi, const r_xform *x, int frame,
                 const float (*pts)[3], int n)
{
    const mdl_bsp *b = rb->bsp;
    const mdl_face *f = &b->faces[fi];
    const mdl_face_lm *lm = &b->face_lm[fi];
    /* Quake II's translucent faces come after everything opaque, farthest first (a full
     * list draws them now) */
    /* (a sky face is sky whatever else it says, as yquake2 sorts it first; past R_MAX_TRANS
     * put off, a hostile map's, a translucent face is not drawn) */
    if ((f->flags & (MDL_SURF_TRANS | MDL_SURF_SKY)) == MDL_SURF_TRANS && !v->trans_now) {
        defer_trans(v, rb, fi, x, frame);
        return;
    }
    int32_t ti = anim_texture(b, f->texture, frame, v->time);
    r_cache_bsp *cb = v->cache ? cache_bsp(v->cache, b) : NULL;
    float area;
    if (r_poly_outside_rows(v, pts, n, &area))
        return; /* another band's face: building its block here would be wasted */
    if (f->flags & MDL_SURF_SKY) {
        r_draw_poly(v, pts, n, R_SKY_MARK, RAST_OPAQUE);
        v->sky_marked = 1;
        return;
    }
    /* translucent: blended over what is drawn, tested against its depth, writing none */
    unsigned fill = f->flags & MDL_SURF_TRANS ? RAST_DEPTH_TEST | RAST_COLOR_WRITE | RAST_BLEND
                                               : RAST_OPAQUE;
    uint32_t flat = rb->flat[fi];
    if (f->flags & MDL_SURF_TRANS)
        flat = (flat & 0xffffffu) | (f->flags & MDL_SURF_TRANS33 ? 84u : 168u) << 24;
    if (ti < 0 || !cb || !b->textures[ti].mips[0]) {
        r_draw_poly(v, pts, n, flat, fill);
        return;
    }
    /* The face's plane and texture axes in world space (x: the brush entity's placement;
     * axes scaled by s carry a model point m to origin + sum m_i axis_i, so a model-space
     * vector A maps to sum A_i axis_i / |axis_i|^2). */
    float N[3], S[3], T[3], dist = f->dist, s0 = lm->vecs[0][3], t0 = lm->vecs[1][3];
    if (x && !(x->identity && x->origin[0] == 0 && x->origin[1] == 0 && x->origin[2] == 0)) {
        float l2[3];
        for (int i = 0; i < 3; i++)
            l2[i] = dot3(x->axis[i], x->axis[i]);
        for (int j = 0; j < 3; j++) {
            N[j] = S[j] = T[j] = 0;
            for (int i = 0; i < 3; i++) {
                float k = l2[i] > 0 ? x->axis[i][j] / l2[i] : 0;
                N[j] += f->normal[i] * k;
                S[j] += lm->vecs[0][i] * k;
                T[j] += lm->vecs[1][i] * k;
            }
        }
        dist += dot3(N, x->origin);
        s0 -= dot3(S, x->origin);
        t0 -= dot3(T, x->origin);
    } else {
        memcpy(N, f->normal, sizeof N);
        memcpy(S, lm->vecs[0], sizeof S);
        memcpy(T, lm->vecs[1], sizeof T);
    }
    rast_tex tex;
    memset(&tex, 0, sizeof tex);
    if (f->flags & (MDL_SURF_TURB | MDL_SURF_TRANS)) { /* unlit, the texture repeating */
        int m = 0;
        const r_surf *s = texture_rgba(v, cb, rb, ti, f->flags, &m);
        if (!s || (s->w & (s->w - 1)) || (s->h & (s->h - 1))) { /* repeats need powers of 2 */
            r_draw_poly(v, pts, n, flat, fill);
            return;
        }
        if (m) { /* (an oversized texture's coarser level: its warp is in that level's
                  * texels) */
            float k = 1.0f / (float)(1 << m);
            for (int i = 0; i < 3; i++) {
                S[i] *= k;
                T[i] *= k;
            }
            s0 *= k;
            t0 *= k;
        }
        tex.texels = s->texels;
        tex.w = s->w;
        tex.h = s->h;
        tex.wrap = 1;
        if (f->flags & MDL_SURF_TURB) {
            tex.warp = v->turb;
            /* yquake2 EmitWaterPolys: a flowing liquid moves -64 (t/2 - floor(t/2)) texels */
            if (f->flags & MDL_SURF_FLOWING && v->time > 0 && v->time < 1e9)
                s0 -= (float)(64 * fmod(v->time * 0.5, 1.0));
        } else if (f->flags & MDL_SURF_FLOWING) {
            s0 += (float)flow_shift(v->time, s->w);
        }
        r_attr_q(v, N, dist, tex.q);
        r_attr_from(v, tex.q, S, s0, tex.s);
        r_attr_from(v, tex.q, T, t0, tex.t);
    } else {
        int m = mip_for(v, pts, n, S, T);
        /* dynamic lights on the world's faces (a brush entity's face is lit as it is) */
        const r_surf *s =
            face_block(v, cb, rb, fi, ti, &m,
                       !x || (x->identity && x->origin[0] == 0 && x->origin[1] == 0 &&
                              x->origin[2] == 0),
                       block_room(lm, area));
        if (!s) {
            r_draw_poly(v, pts, n, flat, fill);
            return;
        }
        float k = 1.0f / (float)(1 << m);
        float Sm[3] = {S[0] * k, S[1] * k, S[2] * k}, Tm[3] = {T[0] * k, T[1] * k, T[2] * k};
        tex.texels = s->texels;
        tex.w = s->w;
        tex.h = s->h;
        r_attr_q(v, N, dist, tex.q);
        r_attr_from(v, tex.q, Sm, (s0 - (float)lm->mins[0]) * k, tex.s);
        r_attr_from(v, tex.q, Tm, (t0 - (float)lm->mins[1]) * k, tex.t);
    }
    r_draw_poly_tex(v, pts, n, &tex, fill);
}

void r_surf_trans(r_view *v)
{
    float pts[R_MAX_POLY][3];
    v->trans_now = 1;
    for (int i = v->num_trans - 1; i >= 0; i--) { /* the walks put the nearest first */
        const r_trans *e = &v->trans[i];
        const mdl_bsp *b = e->rb->bsp;
        const mdl_face *f = &b->faces[e->fi];
        const float(*at)[3] = (const float(*)[3])b->verts[f->first_vert];
        if (e->placed) {
            if (f->num_verts > MDL_BSP_MAX_FACE_VERTS)
                continue;
            for (uint32_t k = 0; k < f->num_verts; k++)
                r_xform_point(&e->x, b->verts[f->first_vert + k], pts[k]);
            at = (const float(*)[3])pts;
        }
        r_surf_face(v, e->rb, e->fi, e->placed ? &e->x : NULL, e->frame, at,
                    (int)f->num_verts);
    }
    v->trans_now = 0;
    free(v->trans);
    v->trans = NULL;
    v->num_trans = v->cap_trans = 0;
}

/* ---- turbulence and sky ---- */

void r_surf_turb_table(double t, int32_t out[128])
{
    /* Software Quake's D_DrawTurbulent8Span: an 8-texel sine of period 128 texels that runs
     * 20 texels a second, as an offset of 8 + 8 sin. */
    double phase = t > 0 && t < 1e9 ? fmod(t * 20.0, 128.0) : 0;
    for (int i = 0; i < 128; i++)
        out[i] = (int32_t)lround((8.0 + 8.0 * sin((i + phase) * (2 * M_PI / 128))) * 65536.0);
}

/* GLQuake's sky (R_DrawSkyChain, EmitSkyPolys; ezQuake draws the same): the direction to a
 * point, its height tripled and scaled to 378 / length, read two 128-texel layers moving 8
 * (back) and 16 (front) texels a second; the front layer's index 0 is see-through. */
/* Quake's sky in direction d (not normalised): the two layers, the back scrolled by back
 * and the front by front texels, the front's alpha 0 see-through. */
static inline uint32_t sky_layers_texel(const r_assets *a, float d[3], float back, float front)
{
    d[2] *= 3;
    float len = sqrtf(dot3(d, d));
    float k = len > 0 ? 378.0f / len : 0;
    float us = d[0] * k, ut = d[1] * k;
    int bs = (int)floorf(back + us) & 127, bt = (int)floorf(back + ut) & 127;
    int fs = (int)floorf(front + us) & 127, ft = (int)floorf(front + ut) & 127;
    uint32_t c = a->sky_front[ft * 128 + fs];
    return c >> 24 ? c : a->sky_back[bt * 128 + bs];
}

#if defined(__SSE2__)
/* floor of four floats within +-2^31, as (int)floorf: truncate, less one where that lies
 * above (NaN: the truncation's INT_MIN, as the scalar conversion gives) */
static inline __m128i floor4(__m128 x)
{
    __m128i t = _mm_cvttps_epi32(x);
    return _mm_add_epi32(t, _mm_castps_si128(_mm_cmpgt_ps(_mm_cvtepi32_ps(t), x)));
}

/* Pixels x..x+3 of a row whose direction's vertical part is dy: Quake's two layers as
 * r_surf_sky and sky_layers_texel make them one by one (the same single-precision
 * operations in the same order; |back + us| < 510, so floor4's range holds). */
static void sky_layers4(const r_view *v, const r_assets *a, int x, float dy, float inv,
                        float back, float front, uint32_t out[4])
{
    __m128 dx = _mm_mul_ps(_mm_sub_ps(_mm_add_ps(_mm_cvtepi32_ps(_mm_setr_epi32(x, x + 1, x + 2,
                                                                               x + 3)),
                                                 _mm_set1_ps(0.5f)),
                                      _mm_set1_ps(v->cx)),
                           _mm_set1_ps(inv));
    __m128 d[3];
    for (int j = 0; j < 3; j++)
        d[j] = _mm_add_ps(_mm_add_ps(_mm_set1_ps(v->fwd[j]), _mm_mul_ps(_mm_set1_ps(v->right[j]), dx)),
                          _mm_set1_ps(v->up[j] * dy));
    d[2] = _mm_mul_ps(d[2], _mm_set1_ps(3));
    __m128 len = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(d[0], d[0]), _mm_mul_ps(d[1], d[1])),
                                        _mm_mul_ps(d[2], d[2])));
    __m128 k = _mm_and_ps(_mm_cmpgt_ps(len, _mm_setzero_ps()), _mm_div_ps(_mm_set1_ps(378.0f), len));
    __m128 us = _mm_mul_ps(d[0], k), ut = _mm_mul_ps(d[1], k);
    const __m128 vb = _mm_set1_ps(back), vf = _mm_set1_ps(front);
    const __m128i m127 = _mm_set1_epi32(127);
    int32_t bs[4], bt[4], fs[4], ft[4];
    _mm_storeu_si128((__m128i *)bs, _mm_and_si128(floor4(_mm_add_ps(vb, us)), m127));
    _mm_storeu_si128((__m128i *)bt, _mm_and_si128(floor4(_mm_add_ps(vb, ut)), m127));
    _mm_storeu_si128((__m128i *)fs, _mm_and_si128(floor4(_mm_add_ps(vf, us)), m127));
    _mm_storeu_si128((__m128i *)ft, _mm_and_si128(floor4(_mm_add_ps(vf, ut)), m127));
    for (int i = 0; i < 4; i++) {
        uint32_t c = a->sky_front[ft[i] * 128 + fs[i]];
        out[i] = c >> 24 ? c : a->sky_back[bt[i] * 128 + bs[i]];
    }
}
#endif

void r_surf_sky(r_view *v, const r_assets *a)
{
    rast_fb *fb = v->fb;
    if (!v->sky_marked)
        return; /* no sky face in view: no pixel to scan for */
    int y0 = v->y0 > 0 ? v->y0 : 0, y1 = v->y1 < fb->h ? v->y1 : fb->h;
    if (!a->box_ok && !a->sky_ok) {
        for (size_t i = (size_t)y0 * (size_t)fb->w; i < (size_t)y1 * (size_t)fb->w; i++)
            if (fb->color[i] == R_SKY_MARK)
                fb->color[i] = a->sky_flat;
        return;
    }
    double tm = v->time > 0 && v->time < 1e9 ? v->time : 0;
    float back = (float)fmod(tm * 8.0, 128.0), front = (float)fmod(tm * 16.0, 128.0);
    /* Quake II's sky box (each marked pixel's direction into it), else Quake's layers */
    const uint32_t *tex[6] = {a->box[0], a->box[1], a->box[2], a->box[3], a->box[4], a->box[5]};
    float inv = 1.0f / v->scale;
    for (int y = y0; y < y1; y++) {
        uint32_t *row = fb->color + (size_t)y * (size_t)fb->w;
        float dy = -((float)y + 0.5f - v->cy) * inv;
        for (int x = 0; x < fb->w; x++) {
#if defined(__SSE2__)
            /* four at a time past pixels without the mark (as r_q3_sky) */
            const __m128i mark = _mm_set1_epi32((int)R_SKY_MARK);
            while (x + 4 <= fb->w &&
                   !_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(row + x)),
                                                      mark)))
                x += 4;
            if (x >= fb->w)
                break;
#endif
            if (row[x] != R_SKY_MARK)
                continue;
#if defined(__SSE2__)
            if (!a->box_ok && x + 4 <= fb->w && row[x + 1] == R_SKY_MARK &&
                row[x + 2] == R_SKY_MARK && row[x + 3] == R_SKY_MARK) {
                sky_layers4(v, a, x, dy, inv, back, front, row + x);
                x += 3;
                continue;
            }
#endif
            float dx = ((float)x + 0.5f - v->cx) * inv;
            float d[3];
            for (int j = 0; j < 3; j++)
                d[j] = v->fwd[j] + v->right[j] * dx + v->up[j] * dy;
            row[x] = a->box_ok ? r_sky_box_texel(tex, a->box_w, a->box_h, d)
                               : sky_layers_texel(a, d, back, front);
        }
    }
}
