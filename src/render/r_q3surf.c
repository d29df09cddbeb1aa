/* r_q3surf.c: textured Quake III surfaces: shaders resolved to images at load, each triangle
 * drawn with its texture times its lightmap (or vertex colours) through screen-space planes,
 * blended surfaces after the opaque ones, and the sky box.
 *
 * Lighting facts (ioq3 code/renderergl1/tr_bsp.c R_ColorShiftLightingBytes, GPL-2.0,
 * described, not copied): lightmap and vertex colour bytes are shifted left by
 * r_mapOverBrightBits (2) less the hardware overbright bit, and a colour that passes 255
 * is scaled down as a whole so its hue stays. ioquake3 as Debian runs it has that bit, in a
 * window too (its log: "GAMMA: hardware w/ 1 overbright bits"): the shift is 1, the texture
 * is multiplied by that light (GL_MODULATE) into a frame kept at half, and the frame is shown
 * doubled. So a lightmap byte of 64 shows the texture as it is, and a brighter one up to
 * twice it (before 2026-11-29 qdemo took the shift as 2 with no doubling, so its light
 * stopped at the texture's own colour). The models' light grid follows the same rule
 * (r_md3.c). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "r_local.h"

#define OVERBRIGHT_SHIFT 1
#define R_Q3_ALPHA_FADES 16
#define LM_SIZE 128
#define MAX_LEVELS 13 /* 4096 down to 1 */
/* Texels of all images of one map together; past it an image draws flat, as if missing. */
#define TEXEL_BUDGET ((size_t)256 << 20)

typedef struct q3_image {
    char name[64];
    uint8_t derived;     /* made here from another (inverted, premultiplied, faded): found
                          * by its key only, never by a file name (a review: a shader
                          * naming "x.png#a1/16" took a copy's place) */
    int levels;          /* 0: not found (drawn flat) */
    size_t charged;      /* what it took of TEXEL_BUDGET when loaded (load_image) */
    int w[MAX_LEVELS], h[MAX_LEVELS];
    uint32_t *texels[MAX_LEVELS]; /* powers of two each way: level k is w >> k by h >> k */
    uint32_t color;
} q3_image;

/* How a surface of one BSP shader is drawn. */
enum { LIGHT_MAP, LIGHT_VERTEX, LIGHT_CONST, LIGHT_MODEL };
typedef struct q3_mat {
    int32_t image;      /* index in images, or -1: flat */
    uint8_t sky, nodraw, blend, alpha, light, clamp, twosided;
    uint32_t constant;  /* LIGHT_CONST: the colour that modulates the texture */
    mdl_stage stage;    /* the drawn stage (tcMods) */
    /* the second layer blended over it (mdl_shader.stage2): image2 -1 none; its light is
     * its own colour (light2 LIGHT_CONST: white, rgbGen const or wave) or the vertices' */
    int32_t image2;
    uint8_t light2;
    uint32_t constant2;
    mdl_stage stage2;
    mdl_wave deform;    /* deformVertexes wave (func 0: none) and its spread per unit */
    float spread;
    mdl_wave deform2;   /* a second, after it (func 0: none) */
    float spread2;
    uint8_t autosprite; /* deformVertexes autosprite, then move (move_wave func 0: none) */
    float move[3];
    mdl_wave move_wave;
    /* alphaGen wave of a blended first layer: R_Q3_ALPHA_FADES copies of its image from
     * alpha_first on, at alphas (k + 1) / R_Q3_ALPHA_FADES (-1: none) */
    int32_t alpha_first;
    mdl_wave alpha_wave;
    /* animMap: each layer's frames (anim[0] is image, anim2[0] image2), the one drawn
     * chosen by the time (anim_image); anim_n below 2: a still */
    int32_t anim[MDL_ANIM_FRAMES], anim2[MDL_ANIM_FRAMES];
    uint8_t anim_n, anim2_n;
    /* the third and fourth layers (mdl_shader.more: blending as exactly, over the second),
     * -1 none; their light their own colour, or the vertices' (light_more LIGHT_VERTEX) */
    int32_t image_more[2];
    uint8_t light_more[2];
    uint32_t constant_more[2];
    mdl_stage stage_more[2];
    uint8_t lm_after;     /* a first layer of its own colour (rgbGen wave or const) or
                           * the vertices' (rgbGen vertex: OpenArena's chrome trims, whose
                           * environment map covers the stages before it) with a $lightmap
                           * stage after the layers: the lightmap multiplies them all at
                           * the end (lightmap_after) */
    uint8_t portal;       /* a portal shader: the frame's portal view shows on it */
    float portal_range;   /* its alphaGen portal's range (0: none) */
    int8_t portal_layers; /* its fog of alphaGen portal and the stage after (r_q3.portal), or
                           * -1 */
} q3_mat;

/* A portal shader's stages over its view (mdl_shader.more): the fog, blended by the
 * distance from the eye (alphaGen portal, tr_shade_calc.c: each corner's distance over the
 * range, at most 1), and the stage after it. */
#define R_Q3_PORTALS 4
typedef struct q3_portal {
    int32_t image[2]; /* -1: none */
    mdl_stage stage[2];
    float range;
} q3_portal;

struct r_q3 {
    struct prefetch *pre;    /* while load_q3 runs: images decoded ahead on another core */
    struct r_q3 *donor;      /* while load_q3 runs: the set before's, whose images of the
                              * same names are taken rather than decoded again (or NULL) */
    uint32_t num_mats, num_images, cap_images;
    uint32_t cap_mats;       /* mats' size: every material is counted ahead (load_q3) */
    uint32_t *index;         /* images by (name, derived): a hash of index + 1, 0 empty */
    uint32_t index_cap;      /* a power of two, at least twice num_images */
    q3_mat *mats;            /* one per mdl_bsp texture (BSP shader) */
    q3_image *images;
    uint32_t *lightmaps;     /* num_lightmaps pages of 128 x 128, shifted */
    uint32_t num_lightmaps;
    q3_image dlight;         /* tr_image.c R_CreateDlightImage's falloff, magnified */
    q3_image digits[11];     /* cgs.media.numberShaders: gfx/2d/numbers, 0..9 and minus */
    q3_image sky[6];         /* box sides +x, -x, +y, -y, +z, -z (rt, lf, bk, ft, up, dn) */
    int sky_box;             /* all six found */
    int sky_same;            /* and all of one size */
    /* the sky shader's cloud layers: its first stage with an image, then the next that
     * blends as qdemo draws (mdl_shader.stage2), each over what is below it */
    struct {
        int32_t image;       /* -1: none (a second without a first is not drawn) */
        uint8_t blend;       /* MDL_BLEND_*: how it meets the box or the layer below */
        mdl_stage stage;     /* its tcMods and rgbGen */
    } sky_layer[2];
    float sky_height;        /* the cloud layers' height (skyParms; ioq3 takes 0 as 512) */
    uint32_t sky_flat;
    char **missing;          /* names of shaders whose image was not found */
    int num_missing;
    size_t texels;           /* held by images and sky, against TEXEL_BUDGET */
    int32_t quad_mat;        /* cgame's quad damage shell, "powerups/quad", or -1 */
    int32_t shell_mats[3];   /* the battle suit's, regeneration's and invisibility's, or -1 */
    /* the explosions' (r_q3_fx_mat): their shaders' first two stages, and the next two and
     * two after (fx_more[0], [1]), or -1 */
    int32_t fx_mats[R_Q3FX_COUNT], fx_more[2][R_Q3FX_COUNT];
    /* cgame's smokePuff at alphas (k + 1) / R_Q3_SMOKE_FADES of its own (r_q3_smoke_mat), or
     * -1 */
    int32_t smoke_mats[R_Q3_SMOKE_FADES];
    int32_t blood_trail_mats[R_Q3_SMOKE_FADES]; /* "bloodTrail" (a gib's) the same way */
    int32_t rail_core;       /* "railCore" with its rgbGen vertex (r_q3_rail_mat), or -1 */
    int32_t rail_disc;       /* "railDisc", the rings' (r_q3_rail_disc_mat), or -1 */
    int32_t float_mats[CL_FLOAT_KINDS]; /* what floats over bodies (r_q3_float_mat), or -1 */
    /* the wall marks' (r_q3_mark_mat): each shader's material, and its copies at fades
     * (k + 1) / R_Q3_MARK_FADES when it fades so (mark_fades 1: a filter's inverted
     * image's colour, 2: the alpha; 0 none), or -1 */
    int32_t mark_mats[R_Q3MARK_COUNT][R_Q3_MARK_FADES + 1];
    uint8_t mark_fades[R_Q3MARK_COUNT];
    /* the map's fog volumes (mdl_bsp.fogs with their shaders' fogParms): the colour, 1 / (8
     * x the depth where the fog is opaque), the plane fog is seen through; on 0: no
     * fogParms found */
    struct q3_fog {
        uint8_t on, has_surface, has_bounds;
        uint32_t color;
        float tc_scale, normal[3], dist;
        float mins[3], maxs[3];
    } *fogs;
    uint32_t num_fogs;
    q3_image fog_image; /* tr_image.c R_CreateFogImage: white, alpha R_FogFactor(s, t) */
    q3_portal portal[R_Q3_PORTALS]; /* the portal shaders' fog layers (q3_mat.portal_layers) */
    int num_portals;
    int32_t white;                  /* "$whiteimage" for the fog's first half, or -1 */
};

/* ---- loading ---- */

static uint32_t shift_light(const uint8_t *rgb)
{
    int c[3], max = 255;
    for (int k = 0; k < 3; k++) {
        c[k] = rgb[k] << OVERBRIGHT_SHIFT;
        max = c[k] > max ? c[k] : max;
    }
    for (int k = 0; k < 3; k++)
        c[k] = c[k] * 255 / max;
    return rast_rgb((unsigned)c[0], (unsigned)c[1], (unsigned)c[2]);
}

static unsigned pow2_below(uint32_t n)
{
    unsigned p = 1;
    while (p * 2 <= n && p < MDL_IMAGE_MAX_SIZE)
        p *= 2;
    return p;
}

/* The rounded mean of four colours, channel by channel ((a + b + c + d + 2) / 4 each),
 * two channels at a time in 16-bit lanes (a lane's sum is at most 1022). */
static inline uint32_t mean4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    const uint32_t m = 0x00ff00ffu;
    uint32_t lo = (a & m) + (b & m) + (c & m) + (d & m) + 0x00020002u;
    uint32_t hi = (a >> 8 & m) + (b >> 8 & m) + (c >> 8 & m) + (d >> 8 & m) + 0x00020002u;
    return (lo >> 2 & m) | (hi >> 2 & m) << 8;
}

/* One row of a level from rows r0, r1 of the one above (uw texels wide): each texel
 * mean4 of a 2x2 box, the last column's box its own when uw is 1. Four texels at a time
 * with SSE2 where the row allows: the same sums in 16-bit lanes, so the same bytes. */
void r_q3_level_row(uint32_t *t, int lw, const uint32_t *r0, const uint32_t *r1, int uw)
{
    int x = 0;
#if defined(__SSE2__)
    if (uw >= 2) { /* (a power of two: even, every box whole) */
        const __m128i z = _mm_setzero_si128(), two = _mm_set1_epi16(2);
        for (; x + 4 <= lw; x += 4) {
            __m128i s[2];
            for (int h = 0; h < 2; h++) { /* texels 2x + 4h .. 2x + 4h + 3 of both rows */
                __m128i a = _mm_loadu_si128((const __m128i *)(r0 + 2 * x + 4 * h));
                __m128i b = _mm_loadu_si128((const __m128i *)(r1 + 2 * x + 4 * h));
                __m128i lo = _mm_add_epi16(_mm_unpacklo_epi8(a, z), _mm_unpacklo_epi8(b, z));
                __m128i hi = _mm_add_epi16(_mm_unpackhi_epi8(a, z), _mm_unpackhi_epi8(b, z));
                /* columns 0 + 1 and 2 + 3 of the four, side by side */
                s[h] = _mm_add_epi16(_mm_unpacklo_epi64(lo, hi), _mm_unpackhi_epi64(lo, hi));
                s[h] = _mm_srli_epi16(_mm_add_epi16(s[h], two), 2);
            }
            _mm_storeu_si128((__m128i *)(t + x), _mm_packus_epi16(s[0], s[1]));
        }
    }
#endif
    for (; x < lw; x++) {
        int x0 = 2 * x < uw ? 2 * x : uw - 1, x1 = 2 * x + 1 < uw ? 2 * x + 1 : uw - 1;
        t[x] = mean4(r0[x0], r0[x1], r1[x0], r1[x1]);
    }
}

/* im as a power-of-two mip chain (resampled to the powers at or below its size, nearest
 * texel, as ioq3's r_roundImagesDown), each level the 2x2 box of the one above. An image
 * already sized so gives its pixels as level 0 (im->pixels is then NULL: its caller frees
 * it next). */
static int build_levels(q3_image *q, mdl_image *im)
{
    int w = (int)pow2_below(im->w), h = (int)pow2_below(im->h);
    q->levels = 0;
    if (!im->pixels) /* (given to a chain, then freed for want of memory) */
        return 0;
    for (int k = 0; k < MAX_LEVELS; k++) {
        int lw = w >> k > 0 ? w >> k : 1, lh = h >> k > 0 ? h >> k : 1;
        int own = k == 0 && (uint32_t)w == im->w && (uint32_t)h == im->h;
        uint32_t *t = own ? im->pixels : malloc((size_t)lw * (size_t)lh * sizeof *t);
        if (!t)
            return 0;
        if (own)
            im->pixels = NULL; /* (most: sized so) */
        q->texels[k] = t;
        q->w[k] = lw;
        q->h[k] = lh;
        q->levels = k + 1;
        if (k == 0 && !own) {
            for (int y = 0; y < lh; y++) {
                const uint32_t *src = im->pixels + (size_t)y * im->h / (size_t)h * im->w;
                for (int x = 0; x < lw; x++)
                    t[(size_t)y * lw + x] = src[(size_t)x * im->w / (size_t)w];
            }
        } else if (k > 0) {
            const uint32_t *up = q->texels[k - 1];
            int uw = q->w[k - 1], uh = q->h[k - 1];
            for (int y = 0; y < lh; y++) {
                int y0 = 2 * y < uh ? 2 * y : uh - 1, y1 = 2 * y + 1 < uh ? 2 * y + 1 : uh - 1;
                r_q3_level_row(t + (size_t)y * lw, lw, up + (size_t)y0 * uw,
                               up + (size_t)y1 * uw, uw);
            }
        }
        if (lw == 1 && lh == 1)
            break;
    }
    q->color = im->color;
    return 1;
}

static void free_image(q3_image *q)
{
    for (int k = 0; k < q->levels; k++)
        free(q->texels[k]);
    q->levels = 0;
}

/* "$whiteimage" and "*white": one white texel. */
static int white_image(q3_image *q)
{
    q->texels[0] = malloc(sizeof(uint32_t));
    if (!q->texels[0])
        return 0;
    q->texels[0][0] = 0xffffffffu;
    q->w[0] = q->h[0] = 1;
    q->levels = 1;
    q->color = 0xffffffffu;
    return 1;
}

static int32_t image_lookup(const r_q3 *q, const char *name, int derived);

/* donor's image of a file named name (not given away yet; NULL: none), or NULL. */
static q3_image *donor_image(r_q3 *donor, const char *name)
{
    int32_t k = donor ? image_lookup(donor, name, 0) : -1;
    return k >= 0 && donor->images[k].levels ? &donor->images[k] : NULL;
}

/* ---- images decoded ahead ----
 * Opening a map is mostly reading and decoding its images (zlib, stb: two thirds of
 * opening oa_dm3), one after another as the shaders are resolved. A second thread decodes
 * the images the map's and models' shaders name, from the end of that list, while the
 * resolution walks it from the start; load_image takes a decoded one, waits for one being
 * decoded, or decodes one not yet begun itself. The result is mdl_image_find's for that
 * name, from the same read-only files, whichever thread made it, so the assets are the same
 * byte for byte; the list is only a guess (a name on it not asked for is freed at the end,
 * a name asked for and not on it decoded as before). */
enum { PRE_WAIT, PRE_BUSY, PRE_DONE, PRE_TAKEN };

typedef struct pre_img {
    char name[64];
    int state;      /* PRE_*: under mu */
    qd_err r;       /* mdl_image_find's result, and its image (PRE_DONE) */
    mdl_image *im;
    q3_image lv;    /* and build_levels' chain of it (lv.levels 0: none made) */
} pre_img;

typedef struct prefetch {
    pre_img *img;
    uint32_t n, cap;
    mdl_read_fn read;
    void *ctx;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop; /* under mu: load_q3 is done, the thread ends */
    struct r_q3 *donor; /* (its images are not listed) */
} prefetch;

/* The list's length: a guess needs no more (oa_dm3 names a few hundred), and its look-ups
 * are a scan each, so a hostile map's 65,536 shaders must not make it quadratic. */
#define PRE_MAX 1024

/* name onto the list (once; not "", "$..." or "*..."; none past PRE_MAX). 0 when out of
 * memory. */
static int pre_add(prefetch *p, const char *name)
{
    if (!name[0] || name[0] == '$' || name[0] == '*' || strlen(name) >= sizeof p->img[0].name ||
        p->n >= PRE_MAX || donor_image(p->donor, name))
        return 1; /* (the donor's are taken, not decoded) */
    for (uint32_t i = 0; i < p->n; i++)
        if (strcmp(p->img[i].name, name) == 0)
            return 1;
    if (p->n == p->cap) {
        uint32_t cap = p->cap ? 2 * p->cap : 256;
        pre_img *grown = realloc(p->img, (size_t)cap * sizeof *grown);
        if (!grown)
            return 0;
        p->img = grown;
        p->cap = cap;
    }
    pre_img *e = &p->img[p->n++];
    memset(e, 0, sizeof *e);
    strcpy(e->name, name); /* (length checked above) */
    return 1;
}

/* The names a shader's layers draw (or the image of its own name when there is none). */
static int pre_add_shader(prefetch *p, const char *name, const mdl_shader *sh)
{
    if (!sh)
        return pre_add(p, name);
    if (sh->flags & MDL_SHADER_NODRAW)
        return 1;
    int ok = pre_add(p, sh->stage.image) && pre_add(p, sh->stage2.image);
    for (int k = 0; ok && k < 4; k++)
        ok = pre_add(p, sh->more[k].image);
    return ok;
}

static void *pre_thread(void *arg)
{
    prefetch *p = arg;
    pthread_mutex_lock(&p->mu);
    for (uint32_t i = p->n; i-- > 0 && !p->stop;) {
        pre_img *e = &p->img[i];
        if (e->state != PRE_WAIT)
            continue;
        e->state = PRE_BUSY;
        pthread_mutex_unlock(&p->mu);
        mdl_image *im = NULL;
        qd_error err = {0};
        qd_err r = mdl_image_find(p->read, p->ctx, e->name, &im, &err);
        q3_image lv;
        memset(&lv, 0, sizeof lv);
        if (r == QD_OK && !build_levels(&lv, im))
            free_image(&lv); /* (out of memory: load_image builds them, or says so) */
        pthread_mutex_lock(&p->mu);
        e->r = r;
        e->im = im;
        e->lv = lv;
        e->state = PRE_DONE;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Starts the thread on p's list (p's names added). 0: none started (p is freed, as
 * pre_end does). */
static int pre_start(prefetch *p, mdl_read_fn read, void *ctx)
{
    p->read = read;
    p->ctx = ctx;
    if (p->n < 2 || pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p->img);
        p->img = NULL;
        return 0;
    }
    if (pthread_cond_init(&p->cv, NULL) != 0 || pthread_create(&p->th, NULL, pre_thread, p) != 0) {
        pthread_mutex_destroy(&p->mu);
        free(p->img);
        p->img = NULL;
        return 0;
    }
    return 1;
}

/* Stops and joins the thread; frees the images no one took. */
static void pre_end(prefetch *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->th, NULL);
    for (uint32_t i = 0; i < p->n; i++)
        if (p->img[i].state == PRE_DONE) {
            mdl_image_free(p->img[i].im);
            free_image(&p->img[i].lv);
        }
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p->img);
    p->img = NULL;
}

/* mdl_image_find(read, ctx, name) through p (NULL: directly); *lv its levels when the
 * thread made them (else lv->levels 0). */
static qd_err pre_find(prefetch *p, mdl_read_fn read, void *ctx, const char *name,
                       mdl_image **im, qd_error *err, q3_image *lv)
{
    lv->levels = 0;
    pre_img *e = NULL;
    for (uint32_t i = 0; p && i < p->n && !e; i++)
        if (strcmp(p->img[i].name, name) == 0)
            e = &p->img[i];
    if (e) {
        pthread_mutex_lock(&p->mu);
        while (e->state == PRE_BUSY)
            pthread_cond_wait(&p->cv, &p->mu);
        int state = e->state;
        e->state = PRE_TAKEN;
        pthread_mutex_unlock(&p->mu);
        if (state == PRE_DONE) {
            *im = e->im;
            *lv = e->lv;
            return e->r;
        }
    }
    return mdl_image_find(read, ctx, name, im, err);
}

/* Load name into q (levels 0 when it is not there, damaged or over the budget of texels
 * held so far, *texels). 0 only when out of memory. */
static int load_image(q3_image *q, const char *name, mdl_read_fn read, void *ctx,
                      size_t *texels, prefetch *pre, r_q3 *donor)
{
    memset(q, 0, sizeof *q);
    size_t n = strlen(name);
    if (n >= sizeof q->name)
        return 1;
    memcpy(q->name, name, n + 1);
    if (strcmp(name, "$whiteimage") == 0 || strcmp(name, "*white") == 0)
        return white_image(q);
    q3_image *given = donor_image(donor, name);
    if (given) { /* decoded by the set before from the same file: charged as then */
        if (given->charged > TEXEL_BUDGET - *texels)
            return 1;
        *texels += given->charged;
        *q = *given;
        given->levels = 0; /* (the donor frees it no more) */
        return 1;
    }
    mdl_image *im = NULL;
    qd_error e = {0};
    q3_image lv;
    qd_err r = pre_find(pre, read, ctx, name, &im, &e, &lv);
    if (r == QD_ERR_NOMEM)
        return 0;
    if (r != QD_OK)
        return 1;
    size_t need = (size_t)im->w * im->h / 3 * 4 + 1; /* the levels: 4/3 of level 0 at most */
    if (need > TEXEL_BUDGET - *texels) {
        mdl_image_free(im);
        free_image(&lv);
        return 1;
    }
    *texels += need;
    if (lv.levels) { /* made on the other core: the same chain */
        memcpy(lv.name, q->name, sizeof lv.name);
        *q = lv;
        q->charged = need;
        mdl_image_free(im);
        return 1;
    }
    q->charged = need;
    int ok = build_levels(q, im);
    mdl_image_free(im);
    if (!ok)
        free_image(q);
    return ok;
}

/* Room for one more image in q (animMaps name up to eight a layer, smoke its fades); 0: no
 * memory. */
/* FNV-1a over name and the derived flag. */
static uint32_t image_hash(const char *name, int derived)
{
    uint32_t h = 2166136261u ^ (uint32_t)(derived != 0);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

/* The index of q's image named name (a copy made here when derived), or -1: one probe
 * run, where each new name was compared with every image before it (65,536 shader names:
 * 61 s to load; a review). */
static int32_t image_lookup(const r_q3 *q, const char *name, int derived)
{
    if (!q->index_cap)
        return -1;
    const uint32_t mask = q->index_cap - 1;
    for (uint32_t at = image_hash(name, derived) & mask;; at = (at + 1) & mask) {
        uint32_t k = q->index[at];
        if (!k)
            return -1;
        const q3_image *im = &q->images[k - 1];
        if (im->derived == (derived != 0) && strcmp(im->name, name) == 0)
            return (int32_t)(k - 1);
    }
}

/* List image i (just made) in the index, grown (to four times the images) when half full;
 * 0 when out of memory. */
static int image_listed(r_q3 *q, uint32_t i)
{
    if ((size_t)q->num_images * 2 >= q->index_cap) {
        size_t cap = 64;
        while (cap < (size_t)q->num_images * 4)
            cap *= 2;
        if (cap > UINT32_MAX / 2)
            return 0;
        uint32_t *grown = calloc(cap, sizeof *grown);
        if (!grown)
            return 0;
        free(q->index);
        q->index = grown;
        q->index_cap = (uint32_t)cap;
        for (uint32_t k = 0; k < q->num_images; k++)
            if (k != i && !image_listed(q, k))
                return 0;
    }
    const uint32_t mask = q->index_cap - 1;
    uint32_t at = image_hash(q->images[i].name, q->images[i].derived) & mask;
    while (q->index[at])
        at = (at + 1) & mask;
    q->index[at] = i + 1;
    return 1;
}

static int room_for_image(r_q3 *q)
{
    if (q->num_images < q->cap_images)
        return 1;
    if (q->cap_images > UINT32_MAX / 2 / sizeof *q->images)
        return 0;
    q3_image *grown = realloc(q->images, 2 * (size_t)q->cap_images * sizeof *grown);
    if (!grown)
        return 0;
    q->images = grown;
    q->cap_images *= 2;
    return 1;
}

/* The image named name among q's (loaded now when new): its index, or -1. -2: no memory. */
static int32_t find_image(r_q3 *q, const char *name, mdl_read_fn read, void *ctx)
{
    if (!name[0])
        return -1;
    int32_t i = image_lookup(q, name, 0);
    if (i >= 0)
        return q->images[i].levels ? i : -1;
    if (!room_for_image(q))
        return -2;
    q3_image *im = &q->images[q->num_images];
    if (!load_image(im, name, read, ctx, &q->texels, q->pre, q->donor))
        return -2;
    im->derived = 0;
    q->num_images++;
    if (!image_listed(q, q->num_images - 1))
        return -2;
    return im->levels ? (int32_t)(q->num_images - 1) : -1;
}

/* The image named name made over for a filter or an add to draw blend pair tx
 * (MDL_BLENDTEX_INVERT: every level's texels inverted, MDL_BLENDTEX_PREMUL: times their
 * alpha; alpha kept), kept among q's images as "name#inv" or "name#pre"; for
 * MDL_BLENDTEX_NONE, or a name too long for the mark, the image itself. Its index, -1
 * none, -2 no memory. */
static int32_t find_image_tx(r_q3 *q, const char *name, int tx, mdl_read_fn read, void *ctx)
{
    const char *suffix = tx == MDL_BLENDTEX_INVERT   ? "#inv"
                         : tx == MDL_BLENDTEX_PREMUL ? "#pre"
                                                     : "";
    size_t n = strlen(name), ns = strlen(suffix);
    if (!suffix[0] || !name[0] || n + ns >= sizeof q->images[0].name)
        return find_image(q, name, read, ctx);
    char key[sizeof q->images[0].name];
    memcpy(key, name, n);
    memcpy(key + n, suffix, ns + 1);
    int32_t made = image_lookup(q, key, 1);
    if (made >= 0)
        return q->images[made].levels ? made : -1;
    int32_t base = find_image(q, name, read, ctx);
    if (base < 0)
        return base;
    if (!room_for_image(q))
        return -2;
    const q3_image *src = &q->images[base];
    q3_image *im = &q->images[q->num_images];
    *im = *src;
    memcpy(im->name, key, sizeof key);
    im->derived = 1;
    size_t total = 0;
    for (int l = 0; l < src->levels; l++)
        total += (size_t)src->w[l] * (size_t)src->h[l];
    if (total > TEXEL_BUDGET - q->texels) { /* over the budget: drawn flat, as if missing */
        im->levels = 0;
        q->num_images++;
        return image_listed(q, q->num_images - 1) ? -1 : -2;
    }
    q->texels += total;
    for (int l = 0; l < src->levels; l++) {
        size_t count = (size_t)src->w[l] * (size_t)src->h[l];
        if (!(im->texels[l] = malloc(count * sizeof(uint32_t)))) {
            im->levels = l;
            free_image(im);
            return -2;
        }
        for (size_t i = 0; i < count; i++) {
            uint32_t c = src->texels[l][i], out = c & 0xff000000u;
            for (int sh = 0; sh < 24; sh += 8) {
                uint32_t v = c >> sh & 255;
                v = tx == MDL_BLENDTEX_INVERT ? 255 - v : (v * (c >> 24) + 127) / 255;
                out |= v << sh;
            }
            im->texels[l][i] = out;
        }
    }
    uint32_t c = src->color, out = c & 0xff000000u;
    for (int sh = 0; sh < 24; sh += 8) {
        uint32_t v = c >> sh & 255;
        out |= (tx == MDL_BLENDTEX_INVERT ? 255 - v : (v * (c >> 24) + 127) / 255) << sh;
    }
    im->color = out;
    q->num_images++;
    return image_listed(q, q->num_images - 1) ? (int32_t)q->num_images - 1 : -2;
}

/* An animMap's frames (st->image and st->anim) into frames[], first the still's (first,
 * already found); *n 0 when the stage has none or a frame cannot be found (its first frame
 * stays, a still: ioq3 would not draw the shader at all). 0 when out of memory. */
static int find_frames(r_q3 *q, const mdl_stage *st, int32_t first, int32_t *frames,
                       uint8_t *n, mdl_read_fn read, void *ctx)
{
    *n = 0;
    if (st->anim_frames < 2 || first < 0)
        return 1;
    frames[0] = first;
    for (int k = 1; k < st->anim_frames && k < MDL_ANIM_FRAMES; k++) {
        frames[k] = find_image_tx(q, st->anim[k - 1], st->blend_tex, read, ctx);
        if (frames[k] == -2)
            return 0;
        if (frames[k] < 0)
            return 1;
    }
    *n = st->anim_frames < MDL_ANIM_FRAMES ? st->anim_frames : MDL_ANIM_FRAMES;
    return 1;
}

/* rgbGen const ( r g b ) as a colour. */
static uint32_t const_color(const float c[3])
{
    unsigned rgb[3];
    for (int k = 0; k < 3; k++)
        rgb[k] = c[k] > 0 ? c[k] < 1 ? (unsigned)(c[k] * 255 + 0.5f) : 255 : 0;
    return rast_rgb(rgb[0], rgb[1], rgb[2]);
}

/* q->white ("$whiteimage", for the layers drawn as white lit by something) found: 1, or 0
 * when out of memory (-1 left when it cannot be had). */
static int need_white(r_q3 *q, mdl_read_fn read, void *ctx)
{
    if (q->white < 0)
        q->white = find_image(q, "$whiteimage", read, ctx);
    return q->white != -2;
}

/* How a layer after the first is lit: a lightmap stage after it (lit) lights it, but a
 * filter (which multiplies what is drawn, the lightmap already in it: lit white it gives tex
 * x layer x lightmap, as the stages do in order; lit by the lightmap again it would square
 * it); add and blend distribute over the lightmap. Otherwise its own colour, or by vertex.
 * -1: not drawn (its own colour times the lightmap after it). */
static int later_light(const mdl_stage *st, int lit)
{
    if (lit && st->rgbgen != MDL_RGBGEN_DEFAULT && st->rgbgen != MDL_RGBGEN_IDENTITY)
        return -1;
    return lit && st->blend != MDL_BLEND_FILTER && st->blend != MDL_BLEND_MOD2X ? LIGHT_MAP
           : st->rgbgen == MDL_RGBGEN_VERTEX    ? LIGHT_VERTEX
                                                : LIGHT_CONST;
}

/* The second layer of shader sh (ioq3 ParseStage: a stage without rgbGen is
 * identityLighting or identity, white without hardware overbright bits), and the third and
 * fourth; a $lightmap stage after the second multiplies it as it does the first (LIGHT_MAP:
 * the first layer's light). The layers after the second are drawn when no lightmap stage
 * follows the second, over an opaque lightmap's first layer (each lit as the second when a
 * lightmap stage follows it, mdl_stage.lit_map: oa_ctf2's steel_r_shine, the steel, a
 * chrome shine added, the steel again as a filter, the lightmap; OpenArena's jump pads,
 * red_launchpad, the tread, a glow added, the pad's frame blended, the lightmap, a glow
 * added after it, unlit), or over a first layer of its own colour when the lightmap is the
 * last stage (lightmap_after multiplies them all at the end). An added layer qdemo cannot light so (its own colour times the lightmap:
 * later_light -1) is left out and the layers after it are still drawn; any other such
 * layer ends them. Not a portal's (portal_layers). 0 on error. */
static int resolve_layer2(r_q3 *q, q3_mat *m, const mdl_shader *sh, mdl_read_fn read,
                          void *ctx)
{
    if (!sh->stage2.image[0] || m->sky)
        return 1;
    const int map_first = m->light == LIGHT_MAP;
    /* (over an opaque first layer only: over a blended one the game's lightmap multiplies
     * what lies behind too, which lighting each layer does not do; oa_bases3's pool) */
    const int each_lit = map_first && m->blend == MDL_BLEND_NONE;
    const int more = !sh->more[0].alpha_portal &&
                     (!sh->stage2_lit || (sh->lightmap_last && !map_first) || each_lit);
    const mdl_stage *list[3] = {&sh->stage2, &sh->more[0], &sh->more[1]};
    for (int k = 0, slot = 0; k < (more ? 3 : 1) && list[k]->image[0]; k++) {
        const mdl_stage *st = list[k];
        /* (a lightmap stage after the layers of a first layer lit otherwise, its own
         * colour: drawn once over them all, lightmap_after) */
        int light = later_light(st, k == 0 ? sh->stage2_lit && map_first
                                           : each_lit && st->lit_map);
        if (light < 0) {
            if (st->blend == MDL_BLEND_ADD)
                continue;
            break;
        }
        int32_t im = find_image_tx(q, st->image, st->blend_tex, read, ctx);
        if (im == -2)
            return 0;
        uint32_t constant = st->rgbgen == MDL_RGBGEN_CONST ? const_color(st->rgbconst)
                                                           : 0xffffffffu;
        if (slot == 0) {
            m->image2 = im;
            m->stage2 = *st;
            if (!find_frames(q, st, im, m->anim2, &m->anim2_n, read, ctx))
                return 0;
            m->light2 = (uint8_t)light;
            m->constant2 = constant;
            if (im < 0)
                break; /* (not found: no layers over it) */
        } else {
            if (im < 0 || q->images[im].levels == 0)
                break;
            m->image_more[slot - 1] = im;
            m->stage_more[slot - 1] = *st;
            m->light_more[slot - 1] = (uint8_t)light;
            m->constant_more[slot - 1] = constant;
        }
        slot++;
    }
    return 1;
}

static int32_t faded_image(r_q3 *q, int32_t image, uint32_t num, uint32_t den, int colour);
static int charge_copies(r_q3 *q, int32_t image, size_t copies, int colour);

/* The drawing of shader sh (NULL: none in the scripts, the image named name). */
static int resolve_sh(r_q3 *q, q3_mat *m, const char *name, const mdl_shader *sh,
                      mdl_read_fn read, void *ctx)
{
    memset(m, 0, sizeof *m);
    m->light = LIGHT_MAP;
    m->image2 = -1;
    m->image_more[0] = m->image_more[1] = -1;
    m->alpha_first = -1;
    if (!sh) {
        m->image = find_image(q, name, read, ctx);
        return m->image != -2;
    }
    m->sky = (sh->flags & MDL_SHADER_SKY) != 0;
    m->nodraw = (sh->flags & MDL_SHADER_NODRAW) != 0;
    m->twosided = (sh->flags & MDL_SHADER_TWOSIDED) != 0;
    m->blend = sh->blend;
    m->stage = sh->stage;
    m->alpha = sh->stage.alpha_func != MDL_ALPHA_NONE;
    m->clamp = sh->stage.clamp;
    m->deform = sh->deform;
    m->autosprite = sh->autosprite;
    memcpy(m->move, sh->move, sizeof m->move);
    m->move_wave = sh->move_wave;
    /* ioq3 ParseDeform: the spread is 1 / div, 100 for a div of 0 */
    m->spread = sh->deform_div != 0 ? 1.0f / sh->deform_div : 100.0f;
    m->deform2 = sh->deform2;
    m->spread2 = sh->deform2_div != 0 ? 1.0f / sh->deform2_div : 100.0f;
    if (sh->stage.rgbgen == MDL_RGBGEN_VERTEX)
        m->light = LIGHT_VERTEX;
    else if (!(sh->flags & MDL_SHADER_LIGHTMAP) || sh->stage.rgbgen == MDL_RGBGEN_CONST ||
             sh->stage.rgbgen == MDL_RGBGEN_WAVE) {
        /* no lightmap stage: the image at its own colour, or a constant's */
        m->light = LIGHT_CONST;
        m->constant = 0xffffffffu;
        if (sh->stage.rgbgen == MDL_RGBGEN_CONST)
            m->constant = const_color(sh->stage.rgbconst);
    }
    /* a blended first stage, every stage after it, then the lightmap as a filter (the
     * water films: oa_dm7's over its floors, oa_bases3's pool): the lightmap multiplies
     * all that is drawn there at the end, what lies behind too (ioq3 draws the stages in
     * order); the stages before it unlit (lightmap_after) */
    if (m->blend != MDL_BLEND_NONE && m->light == LIGHT_MAP && sh->lightmap_last &&
        sh->lightmap_blend == MDL_BLEND_FILTER) {
        m->light = LIGHT_CONST;
        m->constant = 0xffffffffu;
    }
    m->image = find_image_tx(q, sh->stage.image, sh->stage.blend_tex, read, ctx);
    /* alphaGen wave on a blended layer (OpenArena's particle smoke fading as it rises) or
     * an add of the texel times its alpha (the health spheres' glow): its image at
     * R_Q3_ALPHA_FADES alphas (or, the add's, colours), the one at or under the wave's
     * value drawn */
    const int premul = m->blend == MDL_BLEND_ADD && sh->stage.blend_tex == MDL_BLENDTEX_PREMUL;
    if (m->image >= 0 && (m->blend == MDL_BLEND_ALPHA || premul) && sh->stage.alphawave.func &&
        charge_copies(q, m->image, R_Q3_ALPHA_FADES, premul ? 2 : 0)) { /* (over the budget:
                                                                         * unfaded) */
        m->alpha_wave = sh->stage.alphawave;
        for (uint32_t k = 0; k < R_Q3_ALPHA_FADES; k++) {
            int32_t im = faded_image(q, m->image, k + 1, R_Q3_ALPHA_FADES, premul ? 2 : 0);
            if (im < 0)
                return 0;
            if (k == 0)
                m->alpha_first = im;
        }
    }
    if (m->image == -2 || !find_frames(q, &sh->stage, m->image, m->anim, &m->anim_n, read, ctx) ||
        !resolve_layer2(q, m, sh, read, ctx))
        return 0;
    m->lm_after = (m->light == LIGHT_CONST || m->light == LIGHT_VERTEX) &&
                  (sh->flags & MDL_SHADER_LIGHTMAP) && m->image >= 0 &&
                  !m->sky && (m->image2 < 0 || sh->stage2_lit);
    if (m->lm_after && !need_white(q, read, ctx))
        return 0;
    m->lm_after &= q->white >= 0;
    m->portal = (sh->flags & MDL_SHADER_PORTAL) != 0 && m->blend != MDL_BLEND_NONE && !m->sky;
    m->portal_layers = -1;
    m->portal_range = sh->more[0].alpha_portal ? sh->more[0].portal_range : 0;
    if (sh->more[0].alpha_portal && q->num_portals < R_Q3_PORTALS) {
        q3_portal *p = &q->portal[q->num_portals];
        if (!need_white(q, read, ctx))
            return 0;
        for (int k = 0; k < 2; k++) {
            const mdl_stage *st = &sh->more[k];
            p->image[k] = st->image[0] ? find_image_tx(q, st->image, st->blend_tex, read, ctx) : -1;
            if (p->image[k] == -2)
                return 0;
            if (p->image[k] >= 0 && q->images[p->image[k]].levels == 0)
                p->image[k] = -1; /* (not found: not drawn) */
            p->stage[k] = *st;
        }
        p->range = sh->more[0].portal_range > 0 ? sh->more[0].portal_range : 256;
        if (q->white >= 0)
            m->portal_layers = (int8_t)q->num_portals++;
    }
    if (m->sky && sh->sky[0] && !q->sky_box) {
        static const char *const suf[6] = {"_rt", "_lf", "_bk", "_ft", "_up", "_dn"};
        int found = 0;
        for (int k = 0; k < 6; k++) {
            char nm[80];
            size_t len = strlen(sh->sky);
            if (len + 4 > sizeof nm)
                break;
            memcpy(nm, sh->sky, len);
            memcpy(nm + len, suf[k], 4);
            free_image(&q->sky[k]);
            if (!load_image(&q->sky[k], nm, read, ctx, &q->texels, q->pre, NULL))
                return 0;
            found += q->sky[k].levels > 0;
        }
        q->sky_box = found == 6;
        q->sky_same = q->sky_box;
        for (int k = 1; k < 6 && q->sky_box; k++)
            q->sky_same &= q->sky[k].w[0] == q->sky[0].w[0] && q->sky[k].h[0] == q->sky[0].h[0];
    }
    if (m->sky && q->sky_layer[0].image < 0 && m->image >= 0) {
        q->sky_layer[0].image = m->image;
        /* (a sky's layers blend as the three; GL_DST_COLOR GL_ONE taken as an add) */
        q->sky_layer[0].blend = m->blend == MDL_BLEND_MODADD ? MDL_BLEND_ADD : m->blend;
        memset(&q->sky_layer[0].stage, 0, sizeof q->sky_layer[0].stage);
        /* ioq3 ParseSkyParms: a height of 0 is 512; qdemo also takes a negative one (whose
         * sphere a view ray could miss) or one past 65536 as 512 */
        float hgt = sh ? sh->cloud_height : 0;
        q->sky_height = hgt > 0 && hgt <= 65536 ? hgt : 512;
        if (sh) {
            q->sky_layer[0].stage = sh->stage;
            if (sh->stage2.image[0]) { /* the second layer (resolve_layer2 skips a sky's) */
                int32_t im = find_image_tx(q, sh->stage2.image, sh->stage2.blend_tex, read, ctx);
                if (im == -2)
                    return 0;
                if (im >= 0 && q->images[im].levels > 0) {
                    q->sky_layer[1].image = im;
                    q->sky_layer[1].blend = sh->stage2.blend == MDL_BLEND_MODADD
                                                ? MDL_BLEND_ADD
                                                : sh->stage2.blend;
                    q->sky_layer[1].stage = sh->stage2;
                }
            }
        }
    }
    return 1;
}

static int resolve(r_q3 *q, q3_mat *m, const char *name, mdl_shader_set *set, mdl_read_fn read,
                   void *ctx)
{
    return resolve_sh(q, m, name, mdl_shader_find(set, name), read, ctx);
}

typedef struct list_ctx {
    mdl_shader_set *set;
    mdl_read_fn read;
    void *ctx;
} list_ctx;

static void add_script(void *u, const char *name, uint64_t size)
{
    list_ctx *l = u;
    size_t n = strlen(name);
    if (n < 7 || strcmp(name + n - 7, ".shader") != 0 || size > MDL_IMAGE_MAX_FILE)
        return;
    uint8_t *data = NULL;
    size_t len = 0;
    qd_error e = {0};
    if (l->read(l->ctx, name, &data, &len, &e) == QD_OK)
        (void)mdl_shader_parse(l->set, (const char *)data, len, name, &e); /* keeps what parsed */
    free(data);
}

/* The next material's place in q->mats, or NULL when every counted one is taken (load_q3
 * counts them ahead; a review found the explosions' third stage pair uncounted, and a
 * script giving every effect shader its images wrote past the array). */
static q3_mat *mat_next(r_q3 *q)
{
    return q->num_mats < q->cap_mats ? &q->mats[q->num_mats] : NULL;
}

/* The materials of the MD3 models' surfaces, after the map's in q->mats: each surface's
 * shader (or skin's) resolved as the map's are, lit by the model's light unless the shader
 * gives its own colour (rgbGen identity, const, wave). 0 when out of memory. */
static int model_mats(r_q3 *q, r_assets *a, mdl_shader_set *set, mdl_read_fn read, void *ctx)
{
    for (int i = 0; i < a->num_models; i++) {
        r_model *rm = &a->models[i];
        if (rm->kind != R_KIND_MD3 && rm->kind != R_KIND_Q3SPRITE)
            continue;
        uint32_t n = rm->kind == R_KIND_MD3 ? rm->md3->num_surfaces : 1;
        free(rm->mats);
        rm->mats = calloc(n + 1u, sizeof *rm->mats);
        if (!rm->mats)
            return 0;
        for (uint32_t k = 0; k < n; k++) {
            q3_mat *m = mat_next(q);
            if (!m) { /* (never: every surface is counted) */
                rm->mats[k] = -1;
                continue;
            }
            if (!resolve(q, m, rm->kind == R_KIND_MD3 ? rm->shaders[k] : rm->shader, set, read,
                         ctx))
                return 0;
            uint8_t g = m->stage.rgbgen;
            m->light = g == MDL_RGBGEN_IDENTITY || g == MDL_RGBGEN_CONST || g == MDL_RGBGEN_WAVE
                           ? LIGHT_CONST
                           : LIGHT_MODEL;
            if (g == MDL_RGBGEN_IDENTITY)
                m->constant = 0xffffffffu;
            rm->mats[k] = m->image >= 0 && !m->nodraw ? (int32_t)q->num_mats : -1;
            q->num_mats++;
            if (rm->kind == R_KIND_Q3SPRITE && m->image < 0 && !m->nodraw) {
                /* a sprite is only its shader: listed with the missing textures */
                if (!(q->missing[q->num_missing] = strdup(rm->shader)))
                    return 0;
                q->num_missing++;
            }
        }
    }
    return 1;
}

/* An effect's material (a powerup shell, an explosion) from shader sh (NULL: the image
 * named name), next in q->mats: its own colours (rgbGen identity, const or wave), added over
 * what is drawn when the shader says nothing else. Its index; -1 without an image, -2 out
 * of memory. */
static int32_t effect_mat(r_q3 *q, const char *name, const mdl_shader *sh, mdl_read_fn read,
                          void *ctx)
{
    q3_mat *m = mat_next(q);
    if (!m)
        return -1;
    if (!resolve_sh(q, m, name, sh, read, ctx))
        return -2;
    if (m->image < 0 || m->nodraw)
        return -1;
    m->light = LIGHT_CONST;
    m->constant = 0xffffffffu;
    if (m->blend == MDL_BLEND_NONE)
        m->blend = MDL_BLEND_ADD;
    /* (its stages after the second are materials of their own, fx_more, drawn after) */
    m->image_more[0] = m->image_more[1] = -1;
    return (int32_t)q->num_mats++;
}

/* The name of image's copy at fade num / den ("name#a1/16", "#c" for a colour fade) into
 * key; 0 when it does not fit (the copy then keeps its source's name, and is made anew). */
static int fade_key(const r_q3 *q, int32_t image, uint32_t num, uint32_t den, int colour,
                    char key[sizeof q->images[0].name])
{
    int n = snprintf(key, sizeof q->images[0].name, "%s#%c%u/%u", q->images[image].name,
                     "acm"[colour >= 0 && colour <= 2 ? colour : 0], num, den);
    return n > 0 && (size_t)n < sizeof q->images[0].name;
}

/* The index of q's image named key, or -1. */
static int32_t image_named(const r_q3 *q, const char *key) { return image_lookup(q, key, 1); }

/* Whether copies copies of image (fades 1 / copies .. copies / copies, colour ones or not)
 * fit in the texels left of TEXEL_BUDGET: charged to it when they do, unless they were
 * made already (faded_image's, made all or none; h-fuzz's review: one 4096 x 4096 image
 * named by the smoke's and marks' shaders made 96 uncharged copies, 8.6 GB). */
static int charge_copies(r_q3 *q, int32_t image, size_t copies, int colour)
{
    char key[sizeof q->images[0].name];
    if (copies && copies < 1000 &&
        fade_key(q, image, 1, (uint32_t)copies, colour, key) && image_named(q, key) >= 0)
        return 1;
    const q3_image *src = &q->images[image];
    size_t total = 0;
    for (int l = 0; l < src->levels; l++)
        total += (size_t)src->w[l] * (size_t)src->h[l];
    if (total && copies > (TEXEL_BUDGET - q->texels) / total)
        return 0;
    q->texels += total * copies;
    return 1;
}

/* A copy of image at fade num / den, next in q's images: every texel's alpha so faded, or
 * (colour 1) a filter's inverted texel (255 - t, the image holding 255 - t) whose t is so
 * faded, or (colour 2) its colour so faded (an add's: the light it adds) (its texels
 * charged by the caller: charge_copies). One made before for the same
 * image and fade is that one (every player model of a skin fades the same copies: each
 * made its own until 2026-11-30, and 24 bots' filled the texel budget). Its index; -2 out
 * of memory. */
static int32_t faded_image(r_q3 *q, int32_t image, uint32_t num, uint32_t den, int colour)
{
    char key[sizeof q->images[0].name];
    int keyed = fade_key(q, image, num, den, colour, key);
    int32_t made = keyed ? image_named(q, key) : -1;
    if (made >= 0)
        return made;
    if (!room_for_image(q))
        return -2;
    const q3_image *src = &q->images[image];
    q3_image *im = &q->images[q->num_images];
    *im = *src;
    im->derived = 1;
    if (keyed)
        memcpy(im->name, key, sizeof im->name);
    /* each channel's value as faded: alpha (colour 0) or each colour times num / den
     * (2), or each colour's distance from white (1) */
    uint8_t lut[256];
    for (uint32_t v = 0; v < 256; v++)
        lut[v] = (uint8_t)(colour == 1 ? 255 - (255 - v) * num / den : v * num / den);
    /* den a power of two (every caller's: 16 or 32 steps) and num within it: sh its log */
    int sh = -1;
    for (int k = 0; k < 16; k++)
        if (den == 1u << k && num <= den)
            sh = k;
    for (int l = 0; l < src->levels; l++) {
        size_t n = (size_t)src->w[l] * (size_t)src->h[l];
        if (!(im->texels[l] = malloc(n * sizeof(uint32_t)))) {
            im->levels = l;
            free_image(im);
            return -2;
        }
        const uint32_t *in = src->texels[l];
        uint32_t *out = im->texels[l];
        size_t i = 0;
#if defined(__SSE2__)
        if (sh >= 0) { /* four at a time: v x num / den is (v x num) >> sh, in 16-bit lanes */
            const __m128i mul = _mm_set1_epi16((short)num), rb = _mm_set1_epi32(0x00ff00ff),
                          g8 = _mm_set1_epi32(0xff), low = _mm_set1_epi32(0x00ffffff),
                          flip = _mm_set1_epi32(colour == 1 ? 0x00ffffff : 0);
            const __m128i sc = _mm_cvtsi32_si128(sh);
            for (; i + 4 <= n; i += 4) {
                __m128i x = _mm_loadu_si128((const __m128i *)(in + i)), y;
                if (!colour) {
                    __m128i a = _mm_srl_epi32(_mm_mullo_epi16(_mm_srli_epi32(x, 24), mul), sc);
                    y = _mm_or_si128(_mm_and_si128(x, low), _mm_slli_epi32(a, 24));
                } else { /* (colour 1: the same on each colour's distance from white) */
                    __m128i c = _mm_xor_si128(x, flip);
                    __m128i p = _mm_mullo_epi16(_mm_and_si128(c, rb), mul);       /* r, b */
                    __m128i q = _mm_mullo_epi16(_mm_and_si128(_mm_srli_epi32(c, 8), g8), mul);
                    p = _mm_and_si128(_mm_srl_epi16(p, sc), rb);
                    q = _mm_srl_epi16(q, sc);                                        /* g */
                    y = _mm_or_si128(_mm_andnot_si128(low, x),
                                     _mm_xor_si128(_mm_or_si128(p, _mm_slli_epi32(q, 8)), flip));
                }
                _mm_storeu_si128((__m128i *)(out + i), y);
            }
        }
#endif
        if (!colour) {
            for (; i < n; i++)
                out[i] = (in[i] & 0xffffffu) | (uint32_t)lut[in[i] >> 24] << 24;
        } else {
            for (; i < n; i++) {
                uint32_t c = in[i];
                out[i] = (c & 0xff000000u) | lut[c & 255] | (uint32_t)lut[c >> 8 & 255] << 8 |
                         (uint32_t)lut[c >> 16 & 255] << 16;
            }
        }
    }
    q->num_images++;
    /* (one that kept its source's name, the key not fitting, is not listed: made anew) */
    if (keyed && !image_listed(q, q->num_images - 1))
        return -2;
    return (int32_t)q->num_images - 1;
}

/* cg_effects.c CG_SmokePuff's shader (cgs.media.smokePuffShader, "smokePuff": its image
 * blended by alphaGen vertex, the puff's alpha) at R_Q3_SMOKE_FADES alphas: copies of its
 * image with every texel's alpha times (k + 1) / R_Q3_SMOKE_FADES, one material each (the
 * fills take alpha from the texel alone). mat: the shader's material, or -1 / -2 (none, no
 * memory) as effect_mat gives. 0 when out of memory. */
static int smoke_mats(r_q3 *q, int32_t mat, int32_t out[R_Q3_SMOKE_FADES])
{
    if (mat == -2)
        return 0;
    if (mat < 0 || q->mats[mat].image < 0)
        return 1;
    if (q->cap_mats - q->num_mats < R_Q3_SMOKE_FADES ||
        !charge_copies(q, q->mats[mat].image, R_Q3_SMOKE_FADES, 0))
        return 1; /* over the budget of texels: no puffs, as without the image */
    for (int k = 0; k < R_Q3_SMOKE_FADES; k++) {
        int32_t im = faded_image(q, q->mats[mat].image, (uint32_t)k + 1, R_Q3_SMOKE_FADES, 0);
        if (im < 0)
            return 0;
        q3_mat *m = &q->mats[q->num_mats];
        *m = q->mats[mat];
        m->image = im;
        m->anim_n = 0;
        out[k] = (int32_t)q->num_mats++;
    }
    return 1;
}

/* A wall mark's material from shader sh (cg_marks.c draws its pieces with
 * trap_R_AddPolyToScene): as the shader says, its rgbGen vertex the mark's colour, lit by
 * nothing else; and when its colour fades a filter by the inverted image (the burn and
 * hole marks: GL_ZERO GL_ONE_MINUS_SRC_COLOR, rgbGen vertex) or its alpha a blend
 * (the energy mark: alphaGen vertex), R_Q3_MARK_FADES copies of the image at fades
 * (k + 1) / R_Q3_MARK_FADES, one material each (the fills take neither from the corners).
 * 0 when out of memory. */
static int mark_mats(r_q3 *q, int k, const char *name, const mdl_shader *sh, mdl_read_fn read,
                     void *ctx)
{
    int32_t *mats = q->mark_mats[k];
    q->mark_fades[k] = 0;
    q3_mat *m = mat_next(q);
    if (!m || q->cap_mats - q->num_mats < 1 + R_Q3_MARK_FADES)
        return 1; /* (never: counted) */
    if (!resolve_sh(q, m, name, sh, read, ctx))
        return 0;
    if (m->image < 0 || m->nodraw)
        return 1;
    if (m->light == LIGHT_MAP) { /* (a polygon has no lightmap) */
        m->light = LIGHT_CONST;
        m->constant = 0xffffffffu;
    }
    mats[0] = (int32_t)q->num_mats++;
    int fades = !sh ? 0
                : m->light == LIGHT_VERTEX && m->blend == MDL_BLEND_FILTER &&
                        sh->stage.blend_tex == MDL_BLENDTEX_INVERT
                    ? 1
                : m->blend == MDL_BLEND_ALPHA && sh->stage.alphagen ? 2
                                                                    : 0;
    if (!fades)
        return 1;
    if (!charge_copies(q, q->mats[mats[0]].image, R_Q3_MARK_FADES, fades == 1)) {
        mats[0] = -1; /* over the budget of texels: no mark, as without the image */
        return 1;
    }
    for (int f = 0; f < R_Q3_MARK_FADES; f++) {
        int32_t im = faded_image(q, q->mats[mats[0]].image, (uint32_t)f + 1, R_Q3_MARK_FADES,
                                 fades == 1);
        if (im < 0)
            return 0;
        q3_mat *copy = &q->mats[q->num_mats];
        *copy = q->mats[mats[0]];
        if (fades == 1) /* its colour is in the copy: drawn white */
            copy->light = LIGHT_CONST, copy->constant = 0xffffffffu;
        copy->image = im;
        copy->anim_n = 0;
        mats[1 + f] = (int32_t)q->num_mats++;
    }
    q->mark_fades[k] = (uint8_t)fades;
    return 1;
}

/* tr_image.c R_CreateDlightImage (ioq3, GPL): 16 x 16 texels of 4000 / d^2 (d from the
 * centre, in texels), 255 at most, none under 75; GL magnifies it bilinearly, its edges
 * clamped. The rasteriser reads the nearest texel, so the magnification is done here once,
 * 8 x 8 texels for each. 0: no memory. */
#define DLIGHT_SIZE 16
#define DLIGHT_UP 8
static int dlight_image(q3_image *im)
{
    float b[DLIGHT_SIZE][DLIGHT_SIZE];
    for (int y = 0; y < DLIGHT_SIZE; y++)
        for (int x = 0; x < DLIGHT_SIZE; x++) {
            float dx = DLIGHT_SIZE / 2 - 0.5f - (float)x, dy = DLIGHT_SIZE / 2 - 0.5f - (float)y;
            int v = (int)(4000 / (dx * dx + dy * dy));
            b[y][x] = (float)(v > 255 ? 255 : v < 75 ? 0 : v);
        }
    enum { N = DLIGHT_SIZE * DLIGHT_UP };
    uint32_t *t = malloc((size_t)N * N * sizeof *t);
    if (!t)
        return 0;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            float u = ((float)x + 0.5f) / DLIGHT_UP - 0.5f, w = ((float)y + 0.5f) / DLIGHT_UP - 0.5f;
            u = u < 0 ? 0 : u > DLIGHT_SIZE - 1 ? DLIGHT_SIZE - 1 : u;
            w = w < 0 ? 0 : w > DLIGHT_SIZE - 1 ? DLIGHT_SIZE - 1 : w;
            int x0 = (int)u, y0 = (int)w;
            int x1 = x0 + 1 < DLIGHT_SIZE ? x0 + 1 : x0, y1 = y0 + 1 < DLIGHT_SIZE ? y0 + 1 : y0;
            float fx = u - (float)x0, fy = w - (float)y0;
            float v = (b[y0][x0] * (1 - fx) + b[y0][x1] * fx) * (1 - fy) +
                      (b[y1][x0] * (1 - fx) + b[y1][x1] * fx) * fy;
            unsigned c = (unsigned)(v + 0.5f);
            t[y * N + x] = rast_rgb(c, c, c) | 0xff000000u;
        }
    memset(im, 0, sizeof *im);
    strcpy(im->name, "*dlight");
    im->levels = 1;
    im->w[0] = im->h[0] = N;
    im->texels[0] = t;
    return 1;
}

/* tr_main.c R_FogFactor with tr_init.c's fog table (FOG_TABLE_SIZE 256, each entry the
 * square root of its place): how much fog at s (distance, in eighths of the depth where
 * the fog is opaque) and t (depth into the fog: 1/32 none, 31/32 wholly inside). */
static float fog_factor(float s, float t)
{
    s -= 1.0f / 512;
    if (s < 0 || t < 1.0f / 32)
        return 0;
    if (t < 31.0f / 32)
        s *= (t - 1.0f / 32) / (30.0f / 32);
    s *= 8;
    if (s > 1)
        s = 1;
    return sqrtf((float)(int)(s * 255) / 255);
}

/* The map's fogs (load_q3): each one's fogParms from its shader, and the fog image,
 * 256 x 32 (FOG_S x FOG_T), texel (x, y) white at alpha 255 R_FogFactor((x + 0.5) / 256,
 * (y + 0.5) / 32), one level (the engine's has no mipmaps). 0 when out of memory. */
static int load_fogs(r_q3 *q, const mdl_bsp *b, mdl_shader_set *set)
{
    if (!b->num_fogs)
        return 1;
    q->fogs = calloc(b->num_fogs, sizeof *q->fogs);
    uint32_t *t = malloc(256 * 32 * sizeof *t);
    if (!q->fogs || !t) {
        free(t);
        return 0;
    }
    q->num_fogs = b->num_fogs;
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 256; x++) {
            float d = fog_factor((x + 0.5f) / 256, (y + 0.5f) / 32);
            t[y * 256 + x] = 0xffffffu | (uint32_t)(int)(255 * d) << 24;
        }
    q->fog_image.texels[0] = t;
    q->fog_image.w[0] = 256;
    q->fog_image.h[0] = 32;
    q->fog_image.levels = 1;
    q->fog_image.color = 0xffffffffu;
    for (uint32_t i = 0; i < b->num_fogs; i++) {
        const mdl_shader *sh = mdl_shader_find(set, b->fogs[i].shader);
        struct q3_fog *f = &q->fogs[i];
        if (!sh || !(sh->flags & MDL_SHADER_FOG))
            continue;
        /* tr_bsp.c R_LoadFogs: colorInt the colour at tr.identityLight (half, with the
         * overbright bit: shown doubled, so the colour itself here), tcScale 1 / (8 d) with
         * d at least 1 */
        unsigned c[3];
        for (int k = 0; k < 3; k++) {
            float v = sh->fog_color[k];
            c[k] = !(v > 0) ? 0 : v >= 1 ? 255 : (unsigned)(v * 255 + 0.5f);
        }
        f->color = rast_rgb(c[0], c[1], c[2]);
        float d = sh->fog_depth < 1 || !isfinite(sh->fog_depth) ? 1 : sh->fog_depth;
        f->tc_scale = 1.0f / (d * 8);
        f->has_surface = b->fogs[i].has_surface;
        memcpy(f->normal, b->fogs[i].normal, sizeof f->normal);
        f->dist = b->fogs[i].dist;
        f->has_bounds = b->fogs[i].has_bounds;
        memcpy(f->mins, b->fogs[i].mins, sizeof f->mins);
        memcpy(f->maxs, b->fogs[i].maxs, sizeof f->maxs);
        f->on = 1;
    }
    return 1;
}

static qd_err load_q3(r_q3 *q, r_assets *a, mdl_read_fn read, r_list_fn list, void *ctx)
{
    mdl_bsp *b = a->world.bsp;
    mdl_shader_set set = {0};
    qd_err r = QD_ERR_NOMEM;
    uint8_t *used = NULL;
    int fog_drawn = 0; /* a fog volume's side is drawn (used[i] & 2) */
    prefetch pre;
    memset(&pre, 0, sizeof pre);
    pre.donor = q->donor;
    q->pre = NULL;
    q->sky_layer[0].image = q->sky_layer[1].image = -1;
    q->quad_mat = -1;
    q->shell_mats[0] = q->shell_mats[1] = q->shell_mats[2] = -1;
    for (int k = 0; k < R_Q3FX_COUNT; k++)
        q->fx_mats[k] = q->fx_more[0][k] = q->fx_more[1][k] = -1;
    for (int k = 0; k < R_Q3_SMOKE_FADES; k++)
        q->smoke_mats[k] = q->blood_trail_mats[k] = -1;
    q->rail_core = q->rail_disc = -1;
    for (int k = 0; k < CL_FLOAT_KINDS; k++)
        q->float_mats[k] = -1;
    q->white = -1;
    for (int k = 0; k < R_Q3MARK_COUNT; k++)
        for (int f = 0; f <= R_Q3_MARK_FADES; f++)
            q->mark_mats[k][f] = -1;
    q->sky_flat = rast_rgb(96, 104, 140);
    size_t surfaces = 0;
    for (int i = 0; i < a->num_models; i++)
        surfaces += a->models[i].kind == R_KIND_MD3        ? a->models[i].md3->num_surfaces
                    : a->models[i].kind == R_KIND_Q3SPRITE ? 1
                                                           : 0;
    /* + the four powerup shells, the smoke's and blood trail's shaders, the explosions
     * (three each: fx_mats and fx_more's two), the rail's two, their smoke copies, the marks
     * with their copies and the floating sprites */
    size_t n = (size_t)b->num_textures + surfaces + 6 + 3 * R_Q3FX_COUNT + 2 +
               2 * R_Q3_SMOKE_FADES + R_Q3MARK_COUNT * (R_Q3_MARK_FADES + 1) + CL_FLOAT_KINDS;
    q->mats = calloc(n, sizeof *q->mats);
    q->cap_mats = (uint32_t)n;
    /* each shader names at most two images (its layers) */
    q->images = calloc(2 * n, sizeof *q->images);
    q->cap_images = (uint32_t)(2 * n);
    q->missing = calloc(n, sizeof *q->missing); /* the map's shaders, then sprites' */
    /* (`info`'s lean set names textures only: no lightmap is read) */
    q->num_lightmaps = a->lean ? 0 : b->num_lightmaps;
    q->lightmaps = calloc((size_t)q->num_lightmaps * LM_SIZE * LM_SIZE + 1, sizeof(uint32_t));
    if (!q->mats || !q->images || !q->missing || !q->lightmaps)
        goto out;
    if (!dlight_image(&q->dlight))
        goto out;
    if (!a->lean) {
        static const char *const digit[11] = {"zero", "one", "two",   "three", "four", "five",
                                              "six",  "seven", "eight", "nine", "minus"};
        for (int i = 0; i < 11; i++) {
            char name[64];
            snprintf(name, sizeof name, "gfx/2d/numbers/%s_32b.tga", digit[i]);
            if (!load_image(&q->digits[i], name, read, ctx, &q->texels, NULL, NULL))
                goto out;
        }
    }
    for (size_t i = 0; i < (size_t)q->num_lightmaps * LM_SIZE * LM_SIZE; i++)
        q->lightmaps[i] = shift_light(b->lightmaps + i * 3);
    if (list) {
        list_ctx l = {&set, read, ctx};
        list(ctx, "scripts/", add_script, &l);
    }
    q->num_mats = b->num_textures;
    /* which shaders a drawn face uses: one that only brushes, fogs or flares name (q3map's
     * "noshader") is never drawn, so it is not missing */
    used = calloc(b->num_textures ? b->num_textures : 1, 1); /* bit 1 used, 2 fog drawn */
    if (!used)
        goto out;
    for (uint32_t f = 0; f < b->num_faces; f++)
        if (b->faces[f].texture >= 0 && (uint32_t)b->faces[f].texture < b->num_textures)
            used[b->faces[f].texture] = 1;
    /* the images the map's faces and the models' surfaces draw, decoded ahead (not for
     * `info`'s lean set, which decodes none) */
    int ok = !a->lean;
    for (uint32_t i = 0; ok && i < b->num_textures; i++)
        ok = !used[i] || pre_add_shader(&pre, b->textures[i].name,
                                        mdl_shader_find(&set, b->textures[i].name));
    for (int i = 0; ok && i < a->num_models; i++) {
        const r_model *rm = &a->models[i];
        uint32_t ns = rm->kind == R_KIND_MD3 ? rm->md3->num_surfaces : 0;
        for (uint32_t k = 0; ok && k < ns; k++)
            ok = pre_add_shader(&pre, rm->shaders[k], mdl_shader_find(&set, rm->shaders[k]));
    }
    if (ok && pre_start(&pre, read, ctx))
        q->pre = &pre;
    else
        free(pre.img);
    for (uint32_t i = 0; i < b->num_textures; i++) {
        q3_mat *m = &q->mats[i];
        if (!resolve(q, m, b->textures[i].name, &set, read, ctx))
            goto out;
        /* a fog volume's side (CONTENTS_FOG) is drawn when its shader has a stage (lava,
         * water: ioq3 draws their stages and fogs them; a fog-only shader, sort SS_FOG,
         * draws nothing of its own): its faces drawable again */
        if (b->textures[i].fog && m->image >= 0 && !m->sky) {
            b->textures[i].flags &= (uint8_t)~MDL_SURF_NODRAW;
            used[i] |= 2; /* its faces: one pass after this loop */
            fog_drawn = 1;
        }
        if (b->textures[i].flags & MDL_SURF_NODRAW)
            m->nodraw = 1;
        if (b->textures[i].flags & MDL_SURF_SKY)
            m->sky = 1;
        if (m->sky && m->image >= 0)
            q->sky_flat = q->images[m->image].color | 0xff000000u;
        if (m->image < 0 && !m->sky && !m->nodraw && (used[i] & 1)) {
            q->missing[q->num_missing] = strdup(b->textures[i].name);
            if (!q->missing[q->num_missing])
                goto out;
            q->num_missing++;
        }
    }
    /* the fog volumes' drawn sides (above): their faces drawable again, in one pass (each
     * such shader walked every face: 65,536 of them over 400,000 triangles took 74 s; a
     * review), not a degenerate one (no normal) */
    for (uint32_t f = 0; fog_drawn && f < b->num_faces; f++) {
        mdl_face *fc = &b->faces[f];
        if (fc->texture >= 0 && (uint32_t)fc->texture < b->num_textures &&
            (used[fc->texture] & 2) &&
            fc->normal[0] * fc->normal[0] + fc->normal[1] * fc->normal[1] +
                    fc->normal[2] * fc->normal[2] > 0.5f)
            fc->flags &= (uint8_t)~MDL_SURF_NODRAW;
    }
    if (!model_mats(q, a, &set, read, ctx))
        goto out;
    /* cg_main.c CG_RegisterGraphics: quadShader "powerups/quad" (an added texture, lit by
     * nothing: rgbGen identity), drawn over a body and its weapon that has quad damage, and
     * battleSuitShader, regenShader and invisShader, the same kind of shells */
    static const char *const shells[4] = {"powerups/quad", "powerups/battleSuit",
                                          "powerups/regen", "powerups/invisibility"};
    for (int k = 0; k < 4; k++) {
        int32_t m = effect_mat(q, shells[k], mdl_shader_find(&set, shells[k]), read, ctx);
        if (m == -2)
            goto out;
        *(k == 0 ? &q->quad_mat : &q->shell_mats[k - 1]) = m;
    }
    /* the explosions' sprites; the stages after a shader's first two, two by two, as
     * materials of their own (OpenArena's rocket: four fire stages after the fireball's
     * two), drawn over the same sprite */
    static const char *const fx[R_Q3FX_COUNT] = {"grenadeExplosion", "rocketExplosion",
                                                 "bfgExplosion",     "plasmaExplosion",
                                                 "railExplosion",    "bulletExplosion",
                                                 "bloodExplosion",   "lightningBoltNew",
                                                 "teleportEffect"};
    for (int k = 0; k < R_Q3FX_COUNT; k++) {
        const mdl_shader *sh = mdl_shader_find(&set, fx[k]);
        q->fx_mats[k] = effect_mat(q, fx[k], sh, read, ctx);
        if (q->fx_mats[k] == -2)
            goto out;
        for (int p = 0; p < 2 && sh && sh->more[2 * p].image[0]; p++) {
            mdl_shader *more = malloc(sizeof *more);
            if (!more)
                goto out;
            *more = *sh;
            more->stage = sh->more[2 * p];
            more->stage2 = sh->more[2 * p + 1];
            more->blend = sh->more[2 * p].blend;
            more->stage2_lit = 0;
            q->fx_more[p][k] = effect_mat(q, fx[k], more, read, ctx);
            free(more);
            if (q->fx_more[p][k] == -2)
                goto out;
        }
    }
    if (!smoke_mats(q, effect_mat(q, "smokePuff", mdl_shader_find(&set, "smokePuff"), read, ctx),
                    q->smoke_mats) ||
        !smoke_mats(q, effect_mat(q, "bloodTrail", mdl_shader_find(&set, "bloodTrail"), read, ctx),
                    q->blood_trail_mats))
        goto out;
    /* cg_main.c: railCoreShader "railCore" and railRingsShader "railDisc", their colour
     * the vertices' (the shooter's) */
    static const char *const rail[2] = {"railCore", "railDisc"};
    for (int k = 0; k < 2; k++) {
        q3_mat *m = mat_next(q);
        const mdl_shader *sh = mdl_shader_find(&set, rail[k]);
        if (!m)
            break;
        if (!resolve_sh(q, m, rail[k], sh, read, ctx))
            goto out;
        if (m->image >= 0 && sh && m->light == LIGHT_VERTEX)
            *(k ? &q->rail_disc : &q->rail_core) = (int32_t)q->num_mats++;
    }
    /* cg_main.c CG_RegisterGraphics: connectionShader "disconnected", balloonShader
     * "sprites/balloon3", the medals "medal_impressive" .. "medal_capture", friendShader
     * "sprites/foe" (its name the game's: OpenArena's draws the friend's green mark) */
    static const char *const floats[CL_FLOAT_KINDS] = {
        NULL,           "disconnected",   "sprites/balloon3", "medal_impressive",
        "medal_excellent", "medal_gauntlet", "medal_defend",  "medal_assist",
        "medal_capture", "sprites/foe"};
    for (int k = 1; k < CL_FLOAT_KINDS; k++) {
        q3_mat *m = mat_next(q);
        if (!m)
            break;
        if (!resolve_sh(q, m, floats[k], mdl_shader_find(&set, floats[k]), read, ctx))
            goto out;
        if (m->image >= 0 && !m->nodraw) { /* (its image at its own colour, RT_SPRITE) */
            m->light = LIGHT_CONST;
            m->constant = 0xffffffffu;
            m->twosided = 1;
            q->float_mats[k] = (int32_t)q->num_mats++;
        }
    }
    static const char *const marks[R_Q3MARK_COUNT] = {
        "gfx/damage/bullet_mrk", "gfx/damage/burn_med_mrk", "gfx/damage/hole_lg_mrk",
        "gfx/damage/plasma_mrk", "bloodMark", "markShadow"};
    for (int k = 0; k < R_Q3MARK_COUNT; k++)
        if (!mark_mats(q, k, marks[k], mdl_shader_find(&set, marks[k]), read, ctx))
            goto out;
    if (!load_fogs(q, b, &set))
        goto out;
    r = QD_OK;
out:
    if (q->pre)
        pre_end(q->pre);
    q->pre = NULL;
    free(used);
    mdl_shader_set_clear(&set);
    return r;
}

void r_q3_free(r_q3 *q)
{
    if (!q)
        return;
    for (uint32_t i = 0; i < q->num_images; i++)
        free_image(&q->images[i]);
    for (int k = 0; k < 6; k++)
        free_image(&q->sky[k]);
    free_image(&q->dlight);
    for (int i = 0; i < 11; i++)
        free_image(&q->digits[i]);
    free_image(&q->fog_image);
    free(q->fogs);
    for (int i = 0; i < q->num_missing; i++)
        free(q->missing[i]);
    free(q->missing);
    free(q->images);
    free(q->index);
    free(q->mats);
    free(q->lightmaps);
    free(q);
}

qd_err r_assets_q3_textures(r_assets *a, mdl_read_fn read, r_list_fn list, void *ctx,
                            qd_error *err)
{
    return r_assets_q3_textures_from(a, read, list, ctx, err, NULL);
}

qd_err r_assets_q3_textures_from(r_assets *a, mdl_read_fn read, r_list_fn list, void *ctx,
                                 qd_error *err, r_assets *donor)
{
    if (!a || !a->world.bsp || a->world.bsp->format != MDL_BSP_Q3_46)
        return QD_OK;
    r_q3_free(a->q3);
    a->q3 = calloc(1, sizeof *a->q3);
    if (a->q3)
        a->q3->donor = donor && donor != a ? donor->q3 : NULL;
    qd_err r = a->q3 ? load_q3(a->q3, a, read, list, ctx) : QD_ERR_NOMEM;
    if (a->q3)
        a->q3->donor = NULL;
    if (r != QD_OK) {
        r_q3_free(a->q3);
        a->q3 = NULL;
        return qd_fail(err, r, 0, "%s: textures: out of memory", a->map_name);
    }
    return QD_OK;
}

const char *r_assets_missing_texture(const r_assets *a, int i)
{
    if (!a || !a->q3 || i < 0 || i >= a->q3->num_missing)
        return NULL;
    return a->q3->missing[i];
}

/* ---- drawing ---- */

/* Two attributes on a triangle's plane (affine2_on) share the triangle's own part: its edges
 * from corner 0 and their Gram determinant. */
typedef struct tri_gram {
    double e1[3], e2[3], g11, g12, g22, det;
} tri_gram;

/* 0 for a degenerate triangle p. */
static inline int tri_gram_of(const float (*p)[3], tri_gram *g)
{
    for (int j = 0; j < 3; j++) {
        g->e1[j] = (double)p[1][j] - p[0][j];
        g->e2[j] = (double)p[2][j] - p[0][j];
    }
    const double *e1 = g->e1, *e2 = g->e2;
    g->g11 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
    g->g12 = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
    g->g22 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
    g->det = g->g11 * g->g22 - g->g12 * g->g12;
    return fabs(g->det) > 1e-12;
}

/* Two attributes on the plane of triangle p (its part g) through values a[0..2] and b[0..2]
 * at its corners: the in-plane gradients A, B and offsets ca, cb with dot(A, p_i) + ca = a_i
 * (and b's alike). */
static inline void affine2_on(const tri_gram *g, const float (*p)[3], const double a[3],
                              const double b[3], float A[3], float *ca, float B[3], float *cb)
{
    const double *v[2] = {a, b};
    float *G[2] = {A, B}, *c[2] = {ca, cb};
    for (int k = 0; k < 2; k++) {
        double d1 = v[k][1] - v[k][0], d2 = v[k][2] - v[k][0];
        double al = (d1 * g->g22 - d2 * g->g12) / g->det,
               be = (d2 * g->g11 - d1 * g->g12) / g->det;
        double off = v[k][0];
        for (int j = 0; j < 3; j++) {
            double x = al * g->e1[j] + be * g->e2[j];
            G[k][j] = (float)x;
            off -= x * p[0][j];
        }
        *c[k] = (float)off;
    }
}

static double wave_value(const mdl_wave *w, double t)
{
    double x = w->phase + t * w->freq;
    x -= floor(x);
    double f;
    switch (w->func) {
    case MDL_WAVE_SIN: f = sin(x * 2 * M_PI); break;
    case MDL_WAVE_TRIANGLE: f = x < 0.5 ? 4 * x - 1 : 3 - 4 * x; break;
    case MDL_WAVE_SQUARE: f = x < 0.5 ? 1 : -1; break;
    case MDL_WAVE_SAWTOOTH: f = x; break;
    case MDL_WAVE_INVSAWTOOTH: f = 1 - x; break;
    default: f = 0; break;
    }
    return w->base + w->amp * f;
}

/* rgbGen wave at time t: a grey of the wave's value clamped to 0..1 (RB_CalcWaveColor). */
static uint32_t wave_grey(const mdl_wave *w, double t)
{
    double x = wave_value(w, t > 0 && t < 1e7 ? t : 0);
    unsigned g = x > 0 ? x < 1 ? (unsigned)(x * 255 + 0.5) : 255 : 0;
    return rast_rgb(g, g, g);
}

/* The stage's tcMods at time t as one affine map of (s, t): m[0] s + m[1] t + m[2], m[3] s +
 * m[4] t + m[5] (ioq3 tr_shade_calc.c RB_CalcScrollTexCoords and the rest; turb, which
 * waves each vertex by its position, moves the whole surface instead). */
static void tcmod_matrix(const mdl_stage *st, double t, double m[6])
{
    m[0] = 1, m[1] = 0, m[2] = 0, m[3] = 0, m[4] = 1, m[5] = 0;
    double tm = t > 0 && t < 1e7 ? t : 0;
    for (int i = 0; i < st->num_tcmods && i < MDL_SHADER_MAX_TCMODS; i++) {
        const mdl_tcmod *tc = &st->tcmods[i];
        double n[6] = {1, 0, 0, 0, 1, 0};
        switch (tc->type) {
        case MDL_TCMOD_SCROLL:
            n[2] = fmod(tc->p[0] * tm, 1.0);
            n[5] = fmod(tc->p[1] * tm, 1.0);
            break;
        case MDL_TCMOD_SCALE:
            n[0] = tc->p[0];
            n[4] = tc->p[1];
            break;
        case MDL_TCMOD_ROTATE: {
            double r = -tc->p[0] * tm * M_PI / 180, cs = cos(r), sn = sin(r);
            n[0] = cs, n[1] = -sn, n[2] = 0.5 - 0.5 * cs + 0.5 * sn;
            n[3] = sn, n[4] = cs, n[5] = 0.5 - 0.5 * sn - 0.5 * cs;
            break;
        }
        case MDL_TCMOD_TURB: {
            double o = tc->wave.amp * sin((tc->wave.phase + tm * tc->wave.freq) * 2 * M_PI);
            n[2] = o, n[5] = o;
            break;
        }
        case MDL_TCMOD_STRETCH: {
            double w = wave_value(&tc->wave, tm);
            double p = fabs(w) > 1e-3 ? 1.0 / w : 1000.0;
            n[0] = p, n[2] = 0.5 - 0.5 * p, n[4] = p, n[5] = 0.5 - 0.5 * p;
            break;
        }
        default:
            continue;
        }
        double r[6] = {n[0] * m[0] + n[1] * m[3], n[0] * m[1] + n[1] * m[4],
                       n[0] * m[2] + n[1] * m[5] + n[2], n[3] * m[0] + n[4] * m[3],
                       n[3] * m[1] + n[4] * m[4], n[3] * m[2] + n[4] * m[5] + n[5]};
        memcpy(m, r, sizeof r);
    }
}

/* The triangle's corners' s, t (1.0: once across the image) from their st through the
 * tcMod map m. A repeating image's are moved by whole repeats so that the corners' least s
 * and t lie in 0..1: the same texels, and numbers small enough for the rasteriser's 16.16
 * coordinates in texels of level 0 (it pins them within +-30000 texels). */
static void tex_st(const float (*st)[2], const double m[6], int wrap, double s[3], double t[3])
{
    for (int k = 0; k < 3; k++) {
        s[k] = m[0] * st[k][0] + m[1] * st[k][1] + m[2];
        t[k] = m[3] * st[k][0] + m[4] * st[k][1] + m[5];
    }
    if (wrap) {
        double ls = fmin(s[0], fmin(s[1], s[2])), lt = fmin(t[0], fmin(t[1], t[2]));
        ls = isfinite(ls) && fabs(ls) < 1e9 ? floor(ls) : 0;
        lt = isfinite(lt) && fabs(lt) < 1e9 ? floor(lt) : 0;
        for (int k = 0; k < 3; k++) {
            s[k] -= ls;
            t[k] -= lt;
        }
    }
}

/* The 2x2 light texels whose bilinear read at (0.5 + u, 0.5 + v) is the corner colours'
 * interpolation (u, v the barycentric weights of corners 1 and 2). */
static void corner_light(const uint32_t c[3], uint32_t out[4])
{
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    unsigned ch[3];
    for (int s = 0, j = 0; s < 24; s += 8, j++) {
        int x = (int)(c[1] >> s & 255) + (int)(c[2] >> s & 255) - (int)(c[0] >> s & 255);
        ch[j] = (unsigned)(x < 0 ? 0 : x > 255 ? 255 : x);
    }
    out[3] = rast_rgb(ch[0], ch[1], ch[2]);
}

/* corner_light of a face's vertex colours, shifted as lightmaps. */
static void vertex_light(const mdl_face_q3 *fq, uint32_t out[4])
{
    uint32_t c[3];
    for (int k = 0; k < 3; k++)
        c[k] = shift_light(fq->rgba[k]);
    corner_light(c, out);
}

/* deformVertexes wave (ioq3 tr_shade_calc.c RB_CalcDeformVertexes): point p moved along
 * the normal n by the wave at a phase offset by (x + y + z) * spread, then by the second
 * wave from where the first left it (RB_DeformTessGeometry applies them in turn); how far,
 * in all. */
static float deform_at(const q3_mat *m, const float p[3], const float n[3], double t)
{
    const mdl_wave *waves[2] = {&m->deform, &m->deform2};
    const float spread[2] = {m->spread, m->spread2};
    float q[3] = {p[0], p[1], p[2]}, total = 0;
    for (int k = 0; k < 2 && waves[k]->func != MDL_WAVE_NONE; k++) {
        mdl_wave w = *waves[k];
        if (w.freq != 0) /* RB_CalcDeformVertexes: a wave of frequency 0 moves all alike */
            w.phase += (q[0] + q[1] + q[2]) * spread[k];
        float d = (float)wave_value(&w, t > 0 && t < 1e7 ? t : 0);
        total += d;
        for (int j = 0; j < 3; j++)
            q[j] += n[j] * d;
    }
    return total;
}

/* Its triangle pts (face f's) moved so; the moved triangle's plane into N, dist. 0 when it
 * degenerates (then it is drawn unmoved). */
static int deform(const q3_mat *m, const mdl_face *f, const float (*pts)[3], double t,
                  float out[3][3], float N[3], float *dist)
{
    for (int k = 0; k < 3; k++) {
        float d = deform_at(m, pts[k], f->normal, t);
        for (int j = 0; j < 3; j++)
            out[k][j] = pts[k][j] + f->normal[j] * d;
    }
    float e1[3], e2[3], n[3];
    for (int j = 0; j < 3; j++) {
        e1[j] = out[1][j] - out[0][j];
        e2[j] = out[2][j] - out[0][j];
    }
    /* the loader's winding: cross(b - a, c - a) points to the back */
    n[0] = -(e1[1] * e2[2] - e1[2] * e2[1]);
    n[1] = -(e1[2] * e2[0] - e1[0] * e2[2]);
    n[2] = -(e1[0] * e2[1] - e1[1] * e2[0]);
    float len = sqrtf(dot3(n, n));
    if (!(len > 1e-6f) || !isfinite(len))
        return 0;
    for (int j = 0; j < 3; j++)
        N[j] = n[j] / len;
    *dist = dot3(N, out[0]);
    return 1;
}

/* How a triangle is lit: light texels (size x size) read at the corners' la, lb. */
typedef struct tri_light {
    const uint32_t *texels;
    int size;
    double la[3], lb[3];
    uint32_t corners[4]; /* corner_light's texels, when texels points here */
    uint8_t x2;          /* the light is a lightmap's or the map's vertex colours, kept at
                          * half (shift_light): the lit colour is doubled (rast_tex) */
} tri_light;

/* Vertex light lt (its corner texels, doubled when x2) as a stage of rgbGen
 * oneMinusVertex takes it: 255 less each channel (ioq3 RB_CalcColorFromOneMinusEntity's
 * vertex form, CGEN_ONE_MINUS_VERTEX: 255 - the vertex colour, shifted as at load), alpha
 * kept. */
static void one_minus(tri_light *lt)
{
    for (int k = 0; k < 4; k++) {
        uint32_t c = lt->corners[k], out = c & 0xff000000u;
        for (int sh = 0; sh < 24; sh += 8) {
            uint32_t x = c >> sh & 255;
            x = lt->x2 ? (x * 2 > 255 ? 255 : x * 2) : x;
            out |= (255 - x) << sh;
        }
        lt->corners[k] = out;
    }
    lt->x2 = 0;
}

/* lt reads its own 2x2 corner texels. */
static void corner_planes(tri_light *lt)
{
    lt->texels = lt->corners;
    lt->size = 2;
    lt->x2 = 0;
    lt->la[0] = 0.5, lt->la[1] = 1.5, lt->la[2] = 0.5;
    lt->lb[0] = 0.5, lt->lb[1] = 0.5, lt->lb[2] = 1.5;
}

/* A stage's own colour: its rgbGen wave at v's time or its constant. */
static void stage_light(const r_view *v, const mdl_stage *st, uint32_t constant, tri_light *lt)
{
    uint32_t c = st->rgbgen == MDL_RGBGEN_WAVE ? wave_grey(&st->rgbwave, v->time) : constant;
    lt->corners[0] = lt->corners[1] = lt->corners[2] = lt->corners[3] = c;
    corner_planes(lt);
}

static void const_light(const r_view *v, const q3_mat *m, tri_light *lt)
{
    stage_light(v, &m->stage, m->constant, lt);
}

/* A dynamic light's blend, GL_DST_COLOR GL_ONE (tr_shade.c ProjectDlightTexture): the
 * surface's colour plus itself times the light. */
#define BLEND_DLIGHT 16

/* One drawn layer of a material: its image, stage (tcMods), blend and clamping. */
typedef struct q3_layer {
    const q3_image *im;
    const mdl_stage *stage;
    uint8_t blend, alpha, clamp;
} q3_layer;

/* The image of a layer at time t: an animMap's frame, looped (ioq3 R_BindAnimatedImage:
 * frame (int)(t x frequency x 1024) >> 10, never below 0, modulo the frames), else still. */
static int32_t anim_image(const int32_t *frames, int n, float freq, int32_t still, double t)
{
    if (n < 2)
        return still;
    double f = t * (double)freq * 1024.0;
    int64_t k = f > 0 && f < 1e15 ? (int64_t)f >> 10 : 0;
    return frames[k % n];
}

static q3_layer layer1(const r_view *v, const r_q3 *q, const q3_mat *m)
{
    int32_t im = anim_image(m->anim, m->anim_n, m->stage.anim_freq, m->image, v->time);
    if (m->alpha_first >= 0) { /* the alphaGen wave's copy at or under its value */
        double a = wave_value(&m->alpha_wave, v->time > 0 && v->time < 1e7 ? v->time : 0);
        int k = a > 0 ? a < 1 ? (int)(a * R_Q3_ALPHA_FADES) : R_Q3_ALPHA_FADES : 0;
        im = m->alpha_first + (k > 0 ? k - 1 : 0);
    }
    q3_layer l = {&q->images[im], &m->stage, m->blend, m->alpha, m->clamp};
    return l;
}

/* The screen planes s, t (in texels of level 0, w x h) of an image over triangle pts (its
 * part g, its 1/w plane q) from its corners' st through the tcMods' map tm. */
static inline void st_planes(const r_view *v, const tri_gram *g, const double q[3],
                             const float (*pts)[3], const float (*st)[2], const double tm[6],
                             int wrap, int w, int h, double s_out[3], double t_out[3])
{
    double s[3], t[3];
    float S[3], T[3], s0, t0;
    tex_st(st, tm, wrap, s, t);
    affine2_on(g, pts, s, t, S, &s0, T, &t0);
    float Sl[3], Tl[3];
    for (int j = 0; j < 3; j++) {
        Sl[j] = S[j] * (float)w;
        Tl[j] = T[j] * (float)h;
    }
    r_attr_from(v, q, Sl, s0 * (float)w, s_out);
    r_attr_from(v, q, Tl, t0 * (float)h, t_out);
}

/* The screen planes of light lt's texel places over triangle pts (as st_planes). */
static inline void light_planes(const r_view *v, const tri_gram *g, const double q[3],
                                const float (*pts)[3], const tri_light *lt, double ls[3],
                                double lt_out[3])
{
    float LA[3], LB[3], l0, l1;
    affine2_on(g, pts, lt->la, lt->lb, LA, &l0, LB, &l1);
    r_attr_from(v, q, LA, l0, ls);
    r_attr_from(v, q, LB, l1, lt_out);
}

/* The planes s, t of a layer's image over a triangle (in texels of level 0) and what they
 * are made from: its corners' st, the tcMods' map, the repeat and the image's size. */
typedef struct tex_made {
    float st[3][2];
    double tm[6];
    int wrap, w, h;
    double s[3], t[3];
} tex_made;

/* What the layers of one triangle share (share_tri): its part of affine2 (ok 0: degenerate,
 * no layer draws), its 1/w plane, its outline clipped in view space (clip, or NULL), and the
 * planes made over it with what they were made from, used again for the same: the light's
 * (of the same corner texel places) and the last two layers' s and t (OpenArena's kyonshi
 * draws its texture, an environment map, then the texture again blended by its alpha). */
typedef struct tri_share {
    tri_gram g;
    int ok;
    double q[3];
    const r_clipped *clip;
    int have_light, num_tex, next_tex;
    double la[3], lb[3], ls[3], lt[3];
    tex_made tex[2];
} tri_share;

/* sh for triangle pts of plane N, dist, its outline clip (r_clip_poly's, or NULL). */
static void share_tri(const r_view *v, const float (*pts)[3], const float N[3], float dist,
                      const r_clipped *clip, tri_share *sh)
{
    sh->ok = tri_gram_of(pts, &sh->g);
    sh->clip = clip;
    sh->have_light = sh->num_tex = sh->next_tex = 0;
    if (sh->ok)
        r_attr_q(v, N, dist, sh->q);
}

/* The s and t planes made for st, tm, wrap, w and h over sh's triangle pts. */
static const tex_made *share_tex(const r_view *v, tri_share *sh, const float (*pts)[3],
                                 const float (*st)[2], const double tm[6], int wrap, int w,
                                 int h)
{
    for (int k = 0; k < sh->num_tex; k++) {
        const tex_made *t = &sh->tex[k];
        if (memcmp(t->st, st, sizeof t->st) == 0 && memcmp(t->tm, tm, sizeof t->tm) == 0 &&
            t->wrap == wrap && t->w == w && t->h == h)
            return t;
    }
    tex_made *t = &sh->tex[sh->next_tex];
    sh->next_tex ^= 1;
    sh->num_tex += sh->num_tex < 2;
    st_planes(v, &sh->g, sh->q, pts, st, tm, wrap, w, h, t->s, t->t);
    memcpy(t->st, st, sizeof t->st);
    memcpy(t->tm, tm, sizeof t->tm);
    t->wrap = wrap, t->w = w, t->h = h;
    return t;
}

/* tex's planes (q, s, t, ls, lt) for layer m over triangle pts from sh, as textured_poly
 * makes them. */
static void shared_planes(const r_view *v, tri_share *sh, const q3_layer *m,
                          const float (*pts)[3], const float (*st)[2], const double tm[6],
                          const tri_light *lt, rast_tex *tex)
{
    const tex_made *t = share_tex(v, sh, pts, st, tm, !m->clamp, m->im->w[0], m->im->h[0]);
    if (!sh->have_light || memcmp(sh->la, lt->la, sizeof sh->la) != 0 ||
        memcmp(sh->lb, lt->lb, sizeof sh->lb) != 0) {
        light_planes(v, &sh->g, sh->q, pts, lt, sh->ls, sh->lt);
        memcpy(sh->la, lt->la, sizeof sh->la);
        memcpy(sh->lb, lt->lb, sizeof sh->lb);
        sh->have_light = 1;
    }
    memcpy(tex->q, sh->q, sizeof tex->q);
    memcpy(tex->s, t->s, sizeof tex->s);
    memcpy(tex->t, t->t, sizeof tex->t);
    memcpy(tex->ls, sh->ls, sizeof tex->ls);
    memcpy(tex->lt, sh->lt, sizeof tex->lt);
}

/* Polygon poly (pn corners) in a layer's image, through the planes of triangle pts of its
 * plane (N, dist, facing the eye) and the triangle corners' st, modulated by lt; blended
 * surfaces as the layer blends. With sh (the triangle's, made for N and dist), its planes
 * are sh's; with sh's clip, poly is the triangle, drawn from the clip. */
static void textured_poly(r_view *v, const q3_layer *m, const float (*pts)[3],
                          const float (*st)[2], const float N[3], float dist,
                          const tri_light *lt, int blended, const float (*poly)[3], int pn,
                          tri_share *sh)
{
    const q3_image *im = m->im;
    double tm[6];
    tcmod_matrix(m->stage, v->time, tm);
    /* the level: chosen per 32-pixel run by the rasteriser from the texel footprint there
     * (the chain is powers of two, lit), so the far end of a long floor reads a coarser
     * level than its near end; s and t are in texels of level 0 */
    int w = im->w[0], h = im->h[0];
    rast_tex tex;
    memset(&tex, 0, sizeof tex);
    tex.texels = im->texels[0];
    tex.mips = (const uint32_t *const *)im->texels;
    tex.num_mips = im->levels;
    tex.w = w;
    tex.h = h;
    tex.wrap = !m->clamp;
    tex.mag_linear = 1;
    if (sh) {
        if (!sh->ok)
            return; /* degenerate: nothing to see */
        shared_planes(v, sh, m, pts, st, tm, lt, &tex);
    } else {
        tri_gram g;
        if (!tri_gram_of(pts, &g))
            return;
        r_attr_q(v, N, dist, tex.q); /* (once for the five planes) */
        st_planes(v, &g, tex.q, pts, st, tm, !m->clamp, w, h, tex.s, tex.t);
        light_planes(v, &g, tex.q, pts, lt, tex.ls, tex.lt);
    }
    tex.light = lt->texels;
    tex.light_x2 = lt->x2;
    tex.lw = tex.lh = lt->size;
    tex.light_white = lt->texels == lt->corners && !lt->x2 && lt->corners[0] == 0xffffffffu &&
                      lt->corners[1] == 0xffffffffu && lt->corners[2] == 0xffffffffu &&
                      lt->corners[3] == 0xffffffffu;
    unsigned flags = RAST_OPAQUE;
    if (blended) {
        flags = RAST_DEPTH_TEST | RAST_COLOR_WRITE |
                (m->blend == BLEND_DLIGHT || m->blend == MDL_BLEND_MODADD ? RAST_ADD | RAST_MUL
                 : m->blend == MDL_BLEND_ADD    ? RAST_ADD
                 : m->blend == MDL_BLEND_FILTER ? RAST_MUL
                 : m->blend == MDL_BLEND_MOD2X  ? RAST_MUL | RAST_BLEND
                                                : RAST_BLEND);
    }
    if (m->alpha)
        flags |= RAST_ALPHA_TEST;
    if (sh && sh->clip)
        r_draw_clipped_tex(v, sh->clip, &tex, flags);
    else
        r_draw_poly_tex(v, poly, pn, &tex, flags);
}

/* Triangle pts drawn so (the polygon the triangle itself). */
static void textured_tri(r_view *v, const q3_layer *m, const float (*pts)[3],
                         const float (*st)[2], const float N[3], float dist,
                         const tri_light *lt, int blended)
{
    textured_poly(v, m, pts, st, N, dist, lt, blended, pts, 3, NULL);
}

/* ioq3 tr_shade_calc.c RB_CalcEnvironmentTexCoords: each corner's st from the direction to
 * the eye reflected in the surface's normal (r = 2 (N.d) N - d, d the unit vector from the
 * corner to the eye): s = 0.5 + r_y / 2, t = 0.5 - r_z / 2. */
static void env_st(const r_view *v, const float (*pts)[3], const float N[3], const float eye[3],
                   float st[3][2])
{
    if (v->env) { /* (a model's, from its vertices) */
        memcpy(st, v->env, 3 * sizeof st[0]);
        return;
    }
    for (int k = 0; k < 3; k++) {
        float d[3] = {eye[0] - pts[k][0], eye[1] - pts[k][1], eye[2] - pts[k][2]};
        float len = sqrtf(dot3(d, d));
        if (len > 1e-6f)
            for (int j = 0; j < 3; j++)
                d[j] /= len;
        float nd = dot3(N, d);
        st[k][0] = 0.5f + (2 * nd * N[1] - d[1]) * 0.5f;
        st[k][1] = 0.5f - (2 * nd * N[2] - d[2]) * 0.5f;
    }
}

/* 1 when m's second layer would reach the holes of an alpha-tested first layer (its own
 * alpha test does not make up for it: it tests its own image) */
static int layer2_in_holes(const q3_mat *m) { return m->alpha; }

/* Layer l over the triangle just drawn with a material's first layer: the same corners
 * again, their depth raised by R_LAYER_ZREL so the strict depth test lets the layer onto
 * the first's pixels only, blended as the layer blends, lit (light) by the first layer's
 * light lit1, by vertex (2x2 corner texels, shifted as the first layer's light; NULL:
 * white) or by its stage's own colour (constant, or its rgbGen wave); sh as textured_poly
 * takes it. */
static void stacked_poly(r_view *v, const q3_layer *l, uint8_t light, uint32_t constant,
                         const tri_light *lit1, const uint32_t *vertex, const float (*pts)[3],
                         const float (*st)[2], const float N[3], float dist, const float eye[3],
                         const float (*shape)[3], int sn, tri_share *sh)
{
    tri_light lt;
    if (light == LIGHT_MAP) {
        lt = *lit1;
        if (lit1->texels == lit1->corners)
            lt.texels = lt.corners; /* its own copy of the corner texels */
    } else if (light == LIGHT_VERTEX && vertex) {
        memcpy(lt.corners, vertex, sizeof lt.corners);
        corner_planes(&lt);
        lt.x2 = lit1->x2; /* (a face's vertex colours, shifted as its lightmap) */
        if (l->stage->one_minus)
            one_minus(&lt);
    } else {
        stage_light(v, l->stage, light == LIGHT_VERTEX ? 0xffffffffu : constant, &lt);
    }
    float est[3][2];
    if (l->stage->env) {
        env_st(v, pts, N, eye, est);
        st = (const float(*)[2])est;
    }
    float save = v->zrel;
    v->zrel = R_LAYER_ZREL;
    textured_poly(v, l, pts, st, N, dist, &lt, 1, shape, sn, sh);
    v->zrel = save;
}

/* stacked_poly over the triangle itself. */
static void stacked_tri(r_view *v, const q3_layer *l, uint8_t light, uint32_t constant,
                        const tri_light *lit1, const uint32_t *vertex, const float (*pts)[3],
                        const float (*st)[2], const float N[3], float dist, const float eye[3])
{
    stacked_poly(v, l, light, constant, lit1, vertex, pts, st, N, dist, eye, pts, 3, NULL);
}

/* A material's second layer over the shape (sn corners) just drawn with its first
 * (stacked_poly: the triangle, or a run's polygon), lit by the first layer's light when a
 * lightmap stage follows it. */
static void layer2_tri(r_view *v, const r_q3 *q, const q3_mat *m, const float (*pts)[3],
                       const float (*st)[2], const float N[3], float dist,
                       const tri_light *lit1, const uint32_t *vertex, const float eye[3],
                       const float (*shape)[3], int sn, tri_share *sh)
{
    if (m->image2 < 0)
        return;
    int32_t im = anim_image(m->anim2, m->anim2_n, m->stage2.anim_freq, m->image2, v->time);
    q3_layer l = {&q->images[im], &m->stage2, m->stage2.blend,
                  m->stage2.alpha_func != MDL_ALPHA_NONE, m->stage2.clamp};
    stacked_poly(v, &l, m->light2, m->constant2, lit1, vertex, pts, st, N, dist, eye, shape, sn,
                 sh);
}

/* A material's third or fourth layer (k 0 or 1) over the triangle, as layer2_tri draws the
 * second (its light its own colour or by vertex). */
static void more_tri(r_view *v, const r_q3 *q, const q3_mat *m, int k, const float (*pts)[3],
                     const float (*st)[2], const float N[3], float dist, const tri_light *lit1,
                     const uint32_t *vertex, const float eye[3], const float (*shape)[3], int sn,
                     tri_share *sh)
{
    const mdl_stage *s = &m->stage_more[k];
    q3_layer l = {&q->images[m->image_more[k]], s, s->blend, s->alpha_func != MDL_ALPHA_NONE,
                  s->clamp};
    stacked_poly(v, &l, m->light_more[k], m->constant_more[k], lit1, vertex, pts, st, N, dist,
                 eye, shape, sn, sh);
}

static void fog_tri(r_view *v, const r_q3 *q, const struct q3_fog *f, const float (*pts)[3],
                    const float N[3], float dist);

int r_q3_model_tri(r_view *v, int32_t mat, const float (*pts)[3], const float (*st)[2],
                   const uint32_t light[3], int half)
{
    const r_q3 *q = v->assets ? v->assets->q3 : NULL;
    if (!q || mat < 0 || (uint32_t)mat >= q->num_mats || q->mats[mat].image < 0)
        return v->layers == R_LAYERS_BLENDED; /* (a flat fill: opaque) */
    const q3_mat *m = &q->mats[mat];
    if (v->layers != R_LAYERS_ALL &&
        (m->blend != MDL_BLEND_NONE) != (v->layers == R_LAYERS_BLENDED))
        return 1; /* the other part's */
    if (r_outside_band(v, pts, 3))
        return 1; /* another thread's rows */
    /* the plane facing the eye (the caller culled the back faces) */
    float e1[3], e2[3], N[3];
    for (int j = 0; j < 3; j++) {
        e1[j] = pts[1][j] - pts[0][j];
        e2[j] = pts[2][j] - pts[0][j];
    }
    N[0] = e1[1] * e2[2] - e1[2] * e2[1];
    N[1] = e1[2] * e2[0] - e1[0] * e2[2];
    N[2] = e1[0] * e2[1] - e1[1] * e2[0];
    float len = sqrtf(dot3(N, N));
    if (!(len > 1e-9f) || !isfinite(len))
        return 1;
    float rel = dot3(N, v->org) - dot3(N, pts[0]);
    for (int j = 0; j < 3; j++)
        N[j] = (rel < 0 ? -N[j] : N[j]) / len;
    tri_light lt;
    if (m->light == LIGHT_CONST) {
        const_light(v, m, &lt);
    } else {
        corner_light(light, lt.corners);
        corner_planes(&lt);
        lt.x2 = half != 0;
    }
    q3_layer l = layer1(v, q, m);
    float est[3][2]; /* (a first stage of tcGen environment: q3_face) */
    if (m->stage.env)
        env_st(v, pts, N, v->org, est);
    float dist = dot3(N, pts[0]);
    r_clipped clip;
    r_clip_poly(v, pts, 3, &clip);
    tri_share sh; /* (what its layers share) */
    share_tri(v, pts, N, dist, &clip, &sh);
    textured_poly(v, &l, pts, m->stage.env ? (const float(*)[2])est : st, N, dist, &lt,
                  m->blend != MDL_BLEND_NONE, pts, 3, &sh);
    if (!layer2_in_holes(m)) {
        uint32_t corners[4];
        corner_light(light, corners);
        layer2_tri(v, q, m, pts, st, N, dist, &lt, corners, v->org, pts, 3, &sh);
        /* and the third and fourth (OpenArena's kyonshi: its body, a gold shine added, the
         * body again blended by its alpha, which covers the shine but on the trim) */
        for (int k = 0; k < 2 && m->image2 >= 0 && m->image_more[k] >= 0; k++)
            more_tri(v, q, m, k, pts, st, N, dist, &lt, corners, v->org, pts, 3, &sh);
    }
    /* a body in a fog volume (r_draw_entity: model_fog), its opaque surfaces fogged */
    int fog = v->model_fog - 1;
    if (fog >= 0 && (uint32_t)fog < q->num_fogs && q->fogs[fog].on && m->blend == MDL_BLEND_NONE &&
        !m->alpha)
        fog_tri(v, q, &q->fogs[fog], pts, N, dist);
    return 1;
}

/* r_q3_quad with its vertices' colour light (an rgbGen vertex stage's) */
static int quad_lit(r_view *v, int32_t mat, const float (*q)[3], const float (*st)[2],
                    uint32_t light)
{
    const uint32_t lit[3] = {light, light, light};
    static const int corner[2][3] = {{0, 1, 2}, {0, 2, 3}};
    float tri[3][3], tst[3][2];
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < 3; i++) {
            memcpy(tri[i], q[corner[h][i]], sizeof tri[i]);
            memcpy(tst[i], st[corner[h][i]], sizeof tst[i]);
        }
        if (!r_q3_model_tri(v, mat, (const float(*)[3])tri, (const float(*)[2])tst, lit, 0))
            return 0;
    }
    return 1;
}

int r_q3_quad(r_view *v, int32_t mat, const float (*q)[3], const float (*st)[2])
{
    return quad_lit(v, mat, q, st, 0xffffffffu);
}

int32_t r_q3_quad_mat(const r_assets *a) { return a && a->q3 ? a->q3->quad_mat : -1; }

int32_t r_q3_fx_mat(const r_assets *a, int k, int more)
{
    if (!a || !a->q3 || k < 0 || k >= R_Q3FX_COUNT)
        return -1;
    return more == 1 || more == 2 ? a->q3->fx_more[more - 1][k] : a->q3->fx_mats[k];
}

int32_t r_q3_smoke_mat(const r_assets *a, float alpha)
{
    int k = (int)(alpha * R_Q3_SMOKE_FADES); /* the fade at or under alpha */
    if (!a || !a->q3 || !(k >= 1))
        return -1;
    return a->q3->smoke_mats[(k > R_Q3_SMOKE_FADES ? R_Q3_SMOKE_FADES : k) - 1];
}

int32_t r_q3_rail_mat(const r_assets *a) { return a && a->q3 ? a->q3->rail_core : -1; }

int32_t r_q3_rail_disc_mat(const r_assets *a) { return a && a->q3 ? a->q3->rail_disc : -1; }

int32_t r_q3_float_mat(const r_assets *a, int kind)
{
    return a && a->q3 && kind > 0 && kind < CL_FLOAT_KINDS ? a->q3->float_mats[kind] : -1;
}

int32_t r_q3_blood_trail_mat(const r_assets *a, float alpha)
{
    int k = (int)(alpha * R_Q3_SMOKE_FADES);
    if (!a || !a->q3 || !(k >= 1))
        return -1;
    return a->q3->blood_trail_mats[(k > R_Q3_SMOKE_FADES ? R_Q3_SMOKE_FADES : k) - 1];
}

int32_t r_q3_mark_mat(const r_assets *a, int k, const uint8_t rgb[3], int alpha,
                      uint32_t *light)
{
    *light = 0xffffffffu;
    if (!a || !a->q3 || k < 0 || k >= R_Q3MARK_COUNT || a->q3->mark_mats[k][0] < 0)
        return -1;
    const r_q3 *q = a->q3;
    int fades = q->mark_fades[k];
    if (q->mats[q->mark_mats[k][0]].light == LIGHT_VERTEX && fades != 1)
        *light = rast_rgb(rgb[0], rgb[1], rgb[2]);
    if (!fades)
        return q->mark_mats[k][0];
    /* the copy at or under the fade: the colour's brightest channel, or the alpha */
    int level = fades == 2 ? alpha : rgb[0] > rgb[1] ? (rgb[0] > rgb[2] ? rgb[0] : rgb[2])
                                                    : (rgb[1] > rgb[2] ? rgb[1] : rgb[2]);
    int f = level * R_Q3_MARK_FADES / 255;
    return f >= 1 ? q->mark_mats[k][f] : -1;
}

int32_t r_q3_shell_mat(const r_assets *a, int k)
{
    return a && a->q3 && k >= 0 && k < 3 ? a->q3->shell_mats[k] : -1;
}

float r_q3_mat_deform(const r_assets *a, int32_t mat, const float p[3], const float n[3],
                      double t)
{
    const r_q3 *q = a ? a->q3 : NULL;
    if (!q || mat < 0 || (uint32_t)mat >= q->num_mats ||
        q->mats[mat].deform.func == MDL_WAVE_NONE)
        return 0;
    float d = deform_at(&q->mats[mat], p, n, t);
    return isfinite(d) && fabsf(d) < 1024 ? d : 0;
}

int r_q3_mat_deforms(const r_assets *a, int32_t mat)
{
    const r_q3 *q = a ? a->q3 : NULL;
    return q && mat >= 0 && (uint32_t)mat < q->num_mats &&
           q->mats[mat].deform.func != MDL_WAVE_NONE;
}

void r_q3_digit_sprite(r_view *v, int digit, const float p[3], float radius, uint32_t rgb,
                       unsigned alpha)
{
    const r_q3 *q = v->assets ? v->assets->q3 : NULL;
    if (!q || digit < 0 || digit > 10 || q->digits[digit].levels < 1 || !alpha)
        return;
    const q3_image *im = &q->digits[digit];
    /* a sprite faces the eye: it projects to a square of its size at its depth */
    float c[2], rel[3] = {p[0] - v->org[0], p[1] - v->org[1], p[2] - v->org[2]};
    float z = dot3(rel, v->fwd);
    if (!(z > 1) || !r_project_point(v, p, c))
        return;
    /* (a plum far to one side, just ahead of the eye, projected billions of pixels off:
     * the pixel conversions below overflowed an int; a review) */
    if (!(fabsf(c[0]) < 1e6f && fabsf(c[1]) < 1e6f))
        return;
    float half = radius * v->scale / z;
    if (!(half > 0.01f) || !(half < 4096))
        return;
    /* the level whose texels are about a pixel (its texture minified as GL's mipmaps) */
    int lvl = 0;
    while (lvl + 1 < im->levels && (float)(im->w[lvl]) > 2 * half * 1.5f)
        lvl++;
    int w = im->w[lvl], h = im->h[lvl];
    const uint32_t *tx = im->texels[lvl];
    rast_fb *fb = v->fb;
    int x0 = (int)ceilf(c[0] - half - 0.5f), x1 = (int)floorf(c[0] + half - 0.5f);
    int y0 = (int)ceilf(c[1] - half - 0.5f), y1 = (int)floorf(c[1] + half - 0.5f);
    x0 = x0 < 0 ? 0 : x0;
    x1 = x1 > fb->w - 1 ? fb->w - 1 : x1;
    y0 = y0 < v->y0 ? v->y0 : y0; /* (this view's band of rows) */
    y1 = y1 > v->y1 - 1 ? v->y1 - 1 : y1;
    for (int y = y0; y <= y1; y++) {
        int tv = (int)((y + 0.5f - (c[1] - half)) / (2 * half) * (float)h);
        tv = tv < 0 ? 0 : tv > h - 1 ? h - 1 : tv;
        uint32_t *row = fb->color + (size_t)y * (size_t)fb->w;
        for (int x = x0; x <= x1; x++) {
            int tu = (int)((x + 0.5f - (c[0] - half)) / (2 * half) * (float)w);
            tu = tu < 0 ? 0 : tu > w - 1 ? w - 1 : tu;
            uint32_t t = tx[(size_t)tv * (size_t)w + (size_t)tu];
            /* GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA of the texel times the vertex colour */
            unsigned a8 = (t >> 24) * alpha / 255;
            if (!a8)
                continue;
            uint32_t d = row[x], out = 0xff000000u;
            for (int sh = 0; sh < 24; sh += 8) {
                unsigned sc = (t >> sh & 255) * (rgb >> sh & 255) / 255;
                unsigned dc = d >> sh & 255;
                out |= ((sc * a8 + dc * (255 - a8) + 127) / 255) << sh;
            }
            row[x] = out;
        }
    }
}

int r_q3_mat_blended(const r_assets *a, int32_t mat)
{
    const r_q3 *q = a ? a->q3 : NULL;
    return q && mat >= 0 && (uint32_t)mat < q->num_mats && q->mats[mat].image >= 0 &&
           q->mats[mat].blend != MDL_BLEND_NONE;
}

int r_q3_mat_env(const r_assets *a, int32_t mat)
{
    const r_q3 *q = a ? a->q3 : NULL;
    if (!q || mat < 0 || (uint32_t)mat >= q->num_mats)
        return 0;
    const q3_mat *m = &q->mats[mat];
    int any = m->stage.env || m->stage2.env;
    for (int k = 0; k < 2 && m->image_more[k] >= 0; k++)
        any |= m->stage_more[k].env;
    return any;
}

int r_q3_mat_autosprite(const r_assets *a, int32_t mat)
{
    const r_q3 *q = a ? a->q3 : NULL;
    return q && mat >= 0 && (uint32_t)mat < q->num_mats && q->mats[mat].autosprite;
}

int r_q3_mat_twosided(const r_assets *a, int32_t mat)
{
    const r_q3 *q = a ? a->q3 : NULL;
    return q && mat >= 0 && (uint32_t)mat < q->num_mats && q->mats[mat].twosided;
}

uint32_t r_q3_mat_color(const r_assets *a, int32_t mat)
{
    const r_q3 *q = a ? a->q3 : NULL;
    if (!q || mat < 0 || (uint32_t)mat >= q->num_mats || q->mats[mat].image < 0)
        return rast_rgb(128, 128, 128);
    return q->images[q->mats[mat].image].color | 0xff000000u;
}

/* The frame's dynamic lights on an opaque triangle, as tr_shade.c ProjectDlightTexture
 * (ioq3 GL1, GPL) projects them: each light's falloff image laid along the world's x and y
 * (s = 0.5 + (light - p).x / radius, t likewise with y) in its colour, full within half a
 * radius above or below the light and fading to nothing at a radius (per corner), added as
 * the surface's colour times the light (GL_DST_COLOR GL_ONE) where the depth is the
 * surface's; a triangle wholly off the image on one side is skipped. */
/* A dynamic light's pass goes over its triangle's pixels with their depth raised by this
 * fraction, not R_LAYER_ZREL: a run's polygon (r_q3_group) gives depths more than a
 * ten-thousandth off its triangles' 400 units away, and the light's pass, drawn per
 * triangle, failed its depth test in patches there (q3tex_dynamic_light_over_runs). Drawing the runs a light reaches as
 * triangles instead made them change texels whenever a light came or went (378 pixels
 * over 16 levels darker beside an explosion); a pass that only adds light to what is under
 * it may instead reach a surface within a thousandth of the depth in front (which its own
 * pass lights as well). */
#define R_DLIGHT_ZREL 1e-3f

static void dlight_tris(r_view *v, const r_q3 *q, const float (*pts)[3], const float N[3],
                        float dist)
{
    static const mdl_stage none;
    q3_layer l = {&q->dlight, &none, BLEND_DLIGHT, 0, 1};
    for (int k = 0; k < v->num_dlights; k++) {
        const struct r_dlight *d = &v->dlights[k];
        float r = d->radius, pd = dot3(N, d->origin) - dist;
        if (!(fabsf(pd) < r))
            continue;
        float st[3][2];
        uint32_t c[3];
        unsigned all = 63;
        for (int i = 0; i < 3; i++) {
            float dx = d->origin[0] - pts[i][0], dy = d->origin[1] - pts[i][1],
                  dz = fabsf(d->origin[2] - pts[i][2]);
            st[i][0] = 0.5f + dx / r;
            st[i][1] = 0.5f + dy / r;
            unsigned clip = (st[i][0] < 0 ? 1u : st[i][0] > 1 ? 2u : 0u) |
                            (st[i][1] < 0 ? 4u : st[i][1] > 1 ? 8u : 0u) | (dz > r ? 16u : 0u);
            all &= clip;
            float mod = dz > r ? 0 : dz < r * 0.5f ? 1 : 2 * (r - dz) / r;
            unsigned ch[3];
            for (int j = 0; j < 3; j++) {
                float x = d->color[j] * 255 * mod;
                ch[j] = x > 0 ? x < 255 ? (unsigned)x : 255 : 0;
            }
            c[i] = rast_rgb(ch[0], ch[1], ch[2]);
        }
        if (all)
            continue;
        tri_light lt;
        corner_light(c, lt.corners);
        corner_planes(&lt);
        float save = v->zrel;
        v->zrel = R_DLIGHT_ZREL;
        textured_tri(v, &l, pts, (const float(*)[2])st, N, dist, &lt, 1);
        v->zrel = save;
    }
}

/* The middle of triangle fi's longest side and half the length of its others' longer: a
 * quad's centre and half-side when the triangle is half of it (q3map's two triangles of an
 * autosprite quad share its diagonal). */
static void tri_quad(const mdl_bsp *b, uint32_t fi, float mid[3], float *radius)
{
    const float(*p)[3] = (const float(*)[3])b->verts[b->faces[fi].first_vert];
    int best = 0;
    float len[3];
    for (int k = 0; k < 3; k++) {
        const float *a = p[k], *c = p[(k + 1) % 3];
        len[k] = sqrtf((a[0] - c[0]) * (a[0] - c[0]) + (a[1] - c[1]) * (a[1] - c[1]) +
                       (a[2] - c[2]) * (a[2] - c[2]));
        best = len[k] > len[best] ? k : best;
    }
    for (int j = 0; j < 3; j++)
        mid[j] = (p[best][j] + p[(best + 1) % 3][j]) / 2;
    /* tr_shade_calc.c AutospriteDeform: the corners' distance from the middle x 0.707 */
    *radius = len[best] / 2 * 0.707f;
}

/* ioq3 tr_shade_calc.c AutospriteDeform, then DeformVertexes move (facts only): a quad of a
 * deformVertexes autosprite shader is drawn as a square about its middle facing the eye,
 * half-side its corners' distance from the middle x 0.707, the view's left and up (texture
 * 0 0 at left + up, 1 1 at -left - up: RB_AddQuadStamp), then moved by move x the wave.
 * Triangle fi draws its quad unless the triangle before it, of the same shader, is the
 * other half of it (the same middle): once a quad. */
static void autosprite_face(r_view *v, const mdl_bsp *b, uint32_t fi, const q3_mat *m)
{
    float mid[3], radius, other[3], r2;
    tri_quad(b, fi, mid, &radius);
    if (fi > 0 && b->faces[fi - 1].texture == b->faces[fi].texture &&
        b->faces[fi - 1].num_verts == 3) {
        tri_quad(b, fi - 1, other, &r2);
        if (fabsf(other[0] - mid[0]) + fabsf(other[1] - mid[1]) + fabsf(other[2] - mid[2]) < 0.01f)
            return;
    }
    if (!(radius > 0) || !isfinite(radius))
        return;
    if (m->move_wave.func != MDL_WAVE_NONE) {
        float w = (float)wave_value(&m->move_wave, v->time > 0 && v->time < 1e7 ? v->time : 0);
        for (int j = 0; j < 3; j++)
            mid[j] += m->move[j] * (isfinite(w) && fabsf(w) < 1e4f ? w : 0);
    }
    r_q3_autosprite(v, (int32_t)(m - v->assets->q3->mats), mid, radius, 0xffffffffu);
}

void r_q3_autosprite(r_view *v, int32_t mat, const float mid[3], float radius, uint32_t light)
{
    float q[4][3];
    for (int j = 0; j < 3; j++) {
        float left = -v->right[j] * radius, up = v->up[j] * radius;
        q[0][j] = mid[j] + left + up;
        q[1][j] = mid[j] - left + up;
        q[2][j] = mid[j] - left - up;
        q[3][j] = mid[j] + left - up;
    }
    static const float st[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    quad_lit(v, mat, (const float(*)[3])q, st, light);
}

/* r_q3_face, its first layer drawn over poly (pn corners: the run's polygon, r_q3_group)
 * instead of the triangle, or not at all (pn < 0: a later triangle of the run, whose other
 * layers are still its own). */
/* A portal shader's polygon in the opaque pass of a frame with a portal view: the view's
 * own pixels there, its depth written (tr_main.c R_MirrorViewBySurface draws the portal's
 * view first, into the whole screen, and the surface's stages then blend over it; a pixel's
 * texel is its own pixel of portal_fb). */
static void portal_copy(r_view *v, const float (*pts)[3], int n)
{
    const rast_fb *pf = v->portal_fb;
    rast_tex tex;
    memset(&tex, 0, sizeof tex);
    tex.texels = pf->color;
    tex.w = pf->w;
    tex.h = pf->h;
    tex.s[0] = 1, tex.s[2] = -0.5; /* (x + 0.5) - 0.5 */
    tex.t[1] = 1, tex.t[2] = -0.5;
    tex.q[2] = 1;
    r_draw_poly_tex(v, pts, n, &tex, RAST_OPAQUE);
}

/* A grey of g (0..255) as a light texel. */
static uint32_t grey(uint32_t g) { return rast_rgb(g, g, g); }

/* A portal shader's fog and the stage after it over triangle pts (r_q3.portal): the fog
 * blended by alphaGen portal, each corner's alpha its distance from the eye over the
 * range, at most 1 (tr_shade.c ComputeColors, AGEN_PORTAL), interpolated between the
 * corners as GL does, drawn as a filter by 1 - alpha then an add of the fog times alpha (the
 * same sum as the blend); the fog's rgbGen identity is doubled (ioq3's frame is at half:
 * the overbright bit), as the sky's. */
static void portal_layers(r_view *v, const r_q3 *q, const q3_mat *m, const float (*pts)[3],
                          const float (*st)[2], const float N[3], float dist, const float eye[3])
{
    const q3_portal *p = &q->portal[m->portal_layers];
    tri_light lt;
    if (p->image[0] >= 0) {
        uint32_t a[3], keep[3];
        for (int k = 0; k < 3; k++) {
            float d[3] = {pts[k][0] - eye[0], pts[k][1] - eye[1], pts[k][2] - eye[2]};
            float len = sqrtf(dot3(d, d)) / p->range;
            uint32_t al = !(len > 0) ? 0 : len >= 1 ? 255 : (uint32_t)(len * 255);
            a[k] = grey(al);
            keep[k] = grey(255 - al);
        }
        q3_layer w = {&q->images[q->white], &p->stage[0], MDL_BLEND_FILTER, 0, 0};
        corner_light(keep, lt.corners);
        corner_planes(&lt);
        stacked_tri(v, &w, LIGHT_MAP, 0, &lt, NULL, pts, st, N, dist, eye);
        q3_layer f = {&q->images[p->image[0]], &p->stage[0], MDL_BLEND_ADD, 0,
                      p->stage[0].clamp};
        corner_light(a, lt.corners);
        corner_planes(&lt);
        lt.x2 = p->stage[0].rgbgen == MDL_RGBGEN_IDENTITY;
        stacked_tri(v, &f, LIGHT_MAP, 0, &lt, NULL, pts, st, N, dist, eye);
    }
    if (p->image[1] >= 0) {
        const mdl_stage *s2 = &p->stage[1];
        q3_layer l = {&q->images[p->image[1]], s2, s2->blend, s2->alpha_func != MDL_ALPHA_NONE,
                      s2->clamp};
        stacked_tri(v, &l, LIGHT_CONST, 0xffffffffu, NULL, NULL, pts, st, N, dist, eye);
    }
}

/* A face's lightmap as its light (its page, at half: doubled when drawn). */
static void face_lightmap(const r_q3 *q, const mdl_face_q3 *fq, tri_light *lt)
{
    lt->texels = q->lightmaps + (size_t)fq->lightmap * LM_SIZE * LM_SIZE;
    lt->size = LM_SIZE;
    lt->x2 = 1;
    for (int k = 0; k < 3; k++) {
        lt->la[k] = (double)fq->lm[k][0] * LM_SIZE;
        lt->lb[k] = (double)fq->lm[k][1] * LM_SIZE;
    }
}

/* The $lightmap stage of a shader whose first layer has its own colour (lm_after), over
 * all its layers: white lit by the face's lightmap (or its vertex colours where it has none)
 * as a filter, doubled as a lit colour is (the layers under it are at the half frame's
 * value: rgbGen wave, const or identity). */
static void lightmap_after(r_view *v, const r_q3 *q, const q3_mat *m, const mdl_face_q3 *fq,
                           const float (*pts)[3], const float N[3], float dist,
                           const float (*shape)[3], int sn)
{
    tri_light lt;
    if (fq->lightmap >= 0 && (uint32_t)fq->lightmap < q->num_lightmaps) {
        face_lightmap(q, fq, &lt);
    } else {
        vertex_light(fq, lt.corners);
        corner_planes(&lt);
        lt.x2 = 1;
    }
    /* over a blended first layer the pixels under the filter are what lies behind, lit
     * already (at the frame's value, not half of it): the lightmap as it is, undoubled */
    if (m->blend != MDL_BLEND_NONE)
        lt.x2 = 0;
    q3_layer l = {&q->images[q->white], &m->stage, MDL_BLEND_FILTER, 0, 0};
    stacked_poly(v, &l, LIGHT_MAP, 0, &lt, NULL, pts, (const float(*)[2])fq->st, N, dist, v->org,
                 shape, sn, NULL);
}

/* The fog pass over an opaque world triangle inside fog volume f (tr_shade_calc.c
 * RB_CalcFogTexCoords, tr_shade.c RB_FogPass): each corner's s its depth along the view
 * times tcScale, its t how deep it is under the fog's plane (with the eye outside: 1/32,
 * none, for a corner less than a unit under it, else the part of the sight line inside,
 * 1/32 + 30/32 t / (t - eyeT); with the eye inside: 31/32 under the plane, 1/32 above it),
 * the fog image read there, clamped, blended over the triangle's own pixels in the fog's
 * colour by its alpha. */
static void fog_tri(r_view *v, const r_q3 *q, const struct q3_fog *f, const float (*pts)[3],
                    const float N[3], float dist)
{
    float eye_t = f->has_surface ? f->dist - dot3(v->org, f->normal) : 1;
    float d0 = -dot3(v->org, v->fwd), st[3][2];
    for (int k = 0; k < 3; k++) {
        float t = (f->has_surface ? f->dist - dot3(pts[k], f->normal) : 1) + 1.0f / 512;
        if (eye_t < 0)
            t = t < 1 ? 1.0f / 32 : 1.0f / 32 + 30.0f / 32 * t / (t - eye_t);
        else
            t = t < 0 ? 1.0f / 32 : 31.0f / 32;
        st[k][0] = (dot3(pts[k], v->fwd) + d0) * f->tc_scale;
        st[k][1] = t;
    }
    static const mdl_stage plain; /* (no tcMods) */
    q3_layer l = {&q->fog_image, &plain, MDL_BLEND_ALPHA, 0, 1};
    stacked_tri(v, &l, LIGHT_CONST, f->color, NULL, NULL, pts, (const float(*)[2])st, N, dist,
                v->org);
}

static void q3_face(r_view *v, const r_bsp *rb, uint32_t fi, const float eye[3],
                    const float (*poly)[3], int pn, const float (*at)[3])
{
    const mdl_bsp *b = rb->bsp;
    const r_q3 *q = v->assets ? v->assets->q3 : NULL;
    const mdl_face *f = &b->faces[fi];
    if (!q || !b->face_q3 || f->texture < 0 || (uint32_t)f->texture >= b->num_textures ||
        (uint32_t)f->texture >= q->num_mats)
        return;
    const q3_mat *m = &q->mats[f->texture];
    int blended = m->blend != MDL_BLEND_NONE && !m->sky;
    /* a portal's view under its blended stages: drawn with the opaque surfaces */
    int copy = m->portal && blended && v->portal_fb && v->pass == R_PASS_TEXTURED && !at;
    if (m->nodraw || (blended != (v->pass == R_PASS_Q3_BLEND) && !copy))
        return;
    if (m->autosprite) { /* (facing the eye: no back) */
        if (pn >= 0)
            autosprite_face(v, b, fi, m);
        return;
    }
    const float(*pts)[3] = at ? at : (const float(*)[3])b->verts[f->first_vert];
    float N[3] = {f->normal[0], f->normal[1], f->normal[2]}, dist = f->dist;
    if (at) { /* moved (a mover's face): its plane anew, as the loader makes it */
        float e1[3], e2[3];
        for (int j = 0; j < 3; j++) {
            e1[j] = at[1][j] - at[0][j];
            e2[j] = at[2][j] - at[0][j];
        }
        N[0] = -(e1[1] * e2[2] - e1[2] * e2[1]);
        N[1] = -(e1[2] * e2[0] - e1[0] * e2[2]);
        N[2] = -(e1[0] * e2[1] - e1[1] * e2[0]);
        float len = sqrtf(dot3(N, N));
        if (!(len > 1e-9f) || !isfinite(len))
            return;
        for (int j = 0; j < 3; j++)
            N[j] /= len;
        dist = dot3(N, at[0]);
    }
    int back = dot3(N, eye) - dist <= 0.01f;
    if (back && !m->twosided && !v->xray)
        return;
    float moved[3][3];
    if (!at && m->deform.func != MDL_WAVE_NONE && deform(m, f, pts, v->time, moved, N, &dist))
        pts = (const float(*)[3])moved;
    int out = r_outside_band(v, pts, 3);
    if (out && !poly)
        return; /* another thread's rows (the walk's order is kept: it decides the bytes) */
    if (back) {
        for (int j = 0; j < 3; j++)
            N[j] = -N[j];
        dist = -dist;
    }
    if (copy) {
        portal_copy(v, pts, 3);
        return;
    }
    if (m->sky) {
        r_draw_poly(v, pts, 3, R_SKY_MARK, RAST_OPAQUE);
        v->sky_marked = 1;
        return;
    }
    if (m->image < 0) {
        r_draw_poly(v, pts, 3, rb->flat[fi], blended ? RAST_DEPTH_TEST | RAST_COLOR_WRITE
                                                     : RAST_OPAQUE);
        return;
    }
    const mdl_face_q3 *fq = &b->face_q3[fi];
    /* the light: a lightmap page, the vertex colours or a constant */
    tri_light lt;
    int light = m->light;
    if (light == LIGHT_MAP && (fq->lightmap < 0 || (uint32_t)fq->lightmap >= q->num_lightmaps))
        light = LIGHT_VERTEX;
    if (light == LIGHT_MAP) {
        face_lightmap(q, fq, &lt);
    } else if (light == LIGHT_VERTEX) {
        vertex_light(fq, lt.corners);
        corner_planes(&lt);
        lt.x2 = 1;
        if (m->light == LIGHT_VERTEX && m->stage.one_minus)
            one_minus(&lt);
    } else {
        const_light(v, m, &lt);
    }
    q3_layer l = layer1(v, q, m);
    /* over a portal's view (its depth written with it): the layers' depth raised, as a
     * second layer's */
    float zrel = v->zrel;
    if (m->portal && v->portal_fb)
        v->zrel = R_LAYER_ZREL;
    /* a first stage of tcGen environment (one that covers the stages before it:
     * mdl_shader.c restart) takes its st from the eye, as a layer's does (stacked_tri) */
    const float(*fst)[2] = (const float(*)[2])fq->st;
    float est[3][2];
    if (m->stage.env) {
        env_st(v, pts, N, eye, est);
        fst = (const float(*)[2])est;
    }
    if (poly && pn >= 3)
        textured_poly(v, &l, pts, fst, N, dist, &lt, blended, poly, pn, NULL);
    else if (!poly)
        textured_tri(v, &l, pts, fst, N, dist, &lt, blended);
    if (m->portal_layers >= 0 && blended && !poly && !out) {
        v->zrel = R_LAYER_ZREL; /* (over its first layer's pixels) */
        portal_layers(v, q, m, pts, (const float(*)[2])fq->st, N, dist, eye);
    }
    v->zrel = zrel;
    /* The passes over the first layer test depth, not what it wrote: over an alpha-tested
     * first layer they would draw in its holes, over whatever lies behind (and make sky
     * marks black). ioq3 draws dlights with GLS_DEPTHFUNC_EQUAL for this; without an
     * equal test, they are left out on such faces. The layers go over the shape the first
     * layer was drawn as: the triangle, or a run's polygon once, with its first triangle's
     * planes as that layer (r_q3_group runs only materials whose layers map so); a layer
     * raised by R_LAYER_ZREL meets its first layer's depths only made from the same
     * corners (a triangle's are a few millionths off the run polygon's far away). */
    if (!poly || pn >= 3) {
        const float(*shape)[3] = poly ? poly : pts;
        const int sn = poly ? pn : 3;
        if (m->image2 >= 0 && !layer2_in_holes(m)) {
            uint32_t corners[4];
            vertex_light(fq, corners);
            layer2_tri(v, q, m, pts, (const float(*)[2])fq->st, N, dist, &lt, corners, eye,
                       shape, sn, NULL);
            for (int k = 0; k < 2 && m->image_more[k] >= 0; k++)
                more_tri(v, q, m, k, pts, (const float(*)[2])fq->st, N, dist, &lt, corners, eye,
                         shape, sn, NULL);
        }
        if (m->lm_after && !m->alpha)
            lightmap_after(v, q, m, fq, pts, N, dist, shape, sn);
    }
    if (out)
        return; /* (the run's polygon reaches the band, this triangle does not) */
    if (v->num_dlights && !blended && !m->alpha)
        dlight_tris(v, q, pts, N, dist);
    /* tr_shader.c FinishShader: a fog pass for opaque shaders only (sort <= SS_OPAQUE) */
    if (!blended && fq->fog >= 0 && (uint32_t)fq->fog < q->num_fogs && q->fogs[fq->fog].on)
        fog_tri(v, q, &q->fogs[fq->fog], pts, N, dist);
}

int r_q3_fog_at(const r_assets *a, const float origin[3], float radius)
{
    const r_q3 *q = a ? a->q3 : NULL;
    for (uint32_t i = 0; q && i < q->num_fogs; i++) {
        const struct q3_fog *f = &q->fogs[i];
        int j = 0;
        while (j < 3 && f->on && f->has_bounds && origin[j] - radius < f->maxs[j] &&
               origin[j] + radius > f->mins[j])
            j++;
        if (j == 3)
            return (int)i + 1;
    }
    return 0;
}

const uint32_t *r_q3_fog_image(const r_assets *a)
{
    const r_q3 *q = a ? a->q3 : NULL;
    return q && q->fog_image.levels ? q->fog_image.texels[0] : NULL;
}

int r_q3_face_portal(const r_assets *a, uint32_t fi, float *range)
{
    const r_q3 *q = a ? a->q3 : NULL;
    const mdl_bsp *b = a ? a->world.bsp : NULL;
    if (!q || !b || !b->face_q3 || fi >= b->num_faces)
        return 0;
    int32_t tx = b->faces[fi].texture;
    if (tx < 0 || (uint32_t)tx >= b->num_textures || (uint32_t)tx >= q->num_mats ||
        !q->mats[tx].portal || q->mats[tx].nodraw)
        return 0;
    *range = q->mats[tx].portal_range;
    return 1;
}

void r_q3_face_at(r_view *v, const r_bsp *rb, uint32_t fi, const float (*at)[3])
{
    q3_face(v, rb, fi, v->org, NULL, 0, at);
}

void r_q3_face(r_view *v, const r_bsp *rb, uint32_t fi, const float eye[3])
{
    q3_face(v, rb, fi, eye, NULL, 0, NULL);
}

/* Whether m's layers have one mapping over a run's polygon: none lit by vertex, none of
 * tcGen environment. */
static int layers_map_over_runs(const q3_mat *m)
{
    if (m->image2 < 0)
        return 1;
    if (m->light2 == LIGHT_VERTEX || m->stage2.env)
        return 0;
    for (int k = 0; k < 2 && m->image_more[k] >= 0; k++)
        if (m->light_more[k] == LIGHT_VERTEX || m->stage_more[k].env)
            return 0;
    return 1;
}

int r_q3_group(r_view *v, const r_bsp *rb, uint32_t fi, const float eye[3])
{
    const mdl_bsp *b = rb->bsp;
    const r_q3 *q = v->assets ? v->assets->q3 : NULL;
    uint32_t g = rb->group && fi < b->num_faces ? rb->group[fi] : 0;
    if (g < 2 || g > b->num_faces - fi || !q || !b->face_q3 || v->pass != R_PASS_TEXTURED ||
        v->xray || !rb->poly_n || rb->poly_n[fi] < 3)
        return 0;
    const mdl_face *f = &b->faces[fi];
    if (f->texture < 0 || (uint32_t)f->texture >= b->num_textures ||
        (uint32_t)f->texture >= q->num_mats)
        return 0;
    const q3_mat *m = &q->mats[f->texture];
    if (m->portal && v->portal_fb)
        return 0; /* (a portal's view: its triangles copy it, q3_face) */
    if (m->nodraw || (m->blend != MDL_BLEND_NONE && !m->sky))
        return (int)g; /* none drawn in this pass (one shader: r_q3_groups) */
    /* the shaders whose first layer is one mapping over the run: a lightmap's or one
     * colour's, still (vertex colours and moving vertices are the triangles' own; an
     * autosprite's quads are squares facing the eye, q3_face) */
    if (m->deform.func != MDL_WAVE_NONE || m->autosprite || m->twosided ||
        (m->image < 0 && !m->sky) ||
        (!m->sky && m->light != LIGHT_MAP && m->light != LIGHT_CONST))
        return 0;
    /* the layers over its first are drawn over the run's polygon too (q3_face), so they
     * must map over it as the first does: not by vertex or from the eye (tcGen
     * environment: each triangle's own st); the first layer's light and lightmap_after's
     * need the lightmap (else each triangle's vertex colours) */
    if (m->stage.env || !layers_map_over_runs(m))
        return 0;
    const mdl_face_q3 *fq = &b->face_q3[fi];
    if (!m->sky && (m->light == LIGHT_MAP || m->lm_after) &&
        (fq->lightmap < 0 || (uint32_t)fq->lightmap >= q->num_lightmaps))
        return 0;
    for (uint32_t j = 0; j < g && q->num_fogs; j++)
        if (b->face_q3[fi + j].fog >= 0)
            return 0; /* (fogged: each triangle takes its fog, q3_face) */
    if (dot3(f->normal, eye) - f->dist <= 0.01f)
        return (int)g; /* the run's plane faces away */
    const float(*poly)[3] = (const float(*)[3])rb->poly_pts[rb->poly_first[fi]];
    int pn = rb->poly_n[fi];
    if (r_outside_band(v, poly, pn))
        return (int)g;
    if (m->sky) {
        r_draw_poly(v, poly, pn, R_SKY_MARK, RAST_OPAQUE);
        v->sky_marked = 1;
        return (int)g;
    }
    q3_face(v, rb, fi, eye, poly, pn, NULL);
    for (uint32_t j = 1; j < g; j++)
        q3_face(v, rb, fi + j, eye, (const float(*)[3])poly, -1, NULL);
    return (int)g;
}

/* ---- sky ---- */

/* A box side's texel for direction d (side, then s and t across it in -1..1). */
static uint32_t box_texel(const r_q3 *q, const float d[3])
{
    const uint32_t *tex[6];
    int w[6], h[6];
    for (int k = 0; k < 6; k++) {
        tex[k] = q->sky[k].texels[0];
        w[k] = q->sky[k].w[0];
        h[k] = q->sky[k].h[0];
    }
    return r_sky_box_texel(tex, w, h, d);
}

uint32_t r_sky_box_texel(const uint32_t *const tex[6], const int w[6], const int h[6],
                         const float d[3])
{
    float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]);
    int side;
    float s, t, dist;
    /* ioq3 tr_sky.c's st_to_vec, inverted: +x s = -y; -x s = y; +y s = x; -y s = -x, t = z on
     * the four walls; up s = -y, t = -x; down s = -y, t = x */
    if (ax >= ay && ax >= az) {
        side = d[0] > 0 ? 0 : 1;
        dist = ax;
        s = d[0] > 0 ? -d[1] : d[1];
        t = d[2];
    } else if (ay >= az) {
        side = d[1] > 0 ? 2 : 3;
        dist = ay;
        s = d[1] > 0 ? d[0] : -d[0];
        t = d[2];
    } else {
        side = d[2] > 0 ? 4 : 5;
        dist = az;
        s = -d[1];
        t = d[2] > 0 ? -d[0] : d[0];
    }
    float u = (s / dist + 1) * 0.5f, v = 1 - (t / dist + 1) * 0.5f;
    int x = (int)(u * (float)w[side]), y = (int)(v * (float)h[side]);
    x = x < 0 ? 0 : x >= w[side] ? w[side] - 1 : x;
    y = y < 0 ? 0 : y >= h[side] ? h[side] - 1 : y;
    return tex[side][(size_t)y * (size_t)w[side] + (size_t)x] | 0xff000000u;
}

/* Column x's (or row y's, with cy) offset from the view's centre over its scale. */
static inline float view_quot(float x, float c, float scale)
{
    return (x + 0.5f - c) / scale;
}

/* The world direction through pixel (x, y)'s centre (not normalised). */
static void pixel_dir(const r_view *v, int x, int y, float d[3])
{
    float sx = view_quot((float)x, v->cx, v->scale), sy = view_quot((float)y, v->cy, v->scale);
    for (int j = 0; j < 3; j++)
        d[j] = v->fwd[j] + v->right[j] * sx - v->up[j] * sy;
}

/* A cloud layer's texel c over b (a sky box's, or the layer below) as the layer's blend
 * says (ioq3 draws a sky shader's stages over its farbox: RB_StageIteratorSky). */
static uint32_t over_box(uint32_t b, uint32_t c, int blend)
{
    uint32_t out = 0xff000000u, a = c >> 24;
    for (int sh = 0; sh < 24; sh += 8) {
        uint32_t x = b >> sh & 255, y = c >> sh & 255, r;
        switch (blend) {
        case MDL_BLEND_ADD: r = x + y > 255 ? 255 : x + y; break;
        case MDL_BLEND_FILTER: r = (x * y + 127) / 255; break;
        case MDL_BLEND_MOD2X: r = (x * y + 127) / 255 * 2; r = r > 255 ? 255 : r; break;
        case MDL_BLEND_ALPHA: r = (y * a + x * (255 - a) + 127) / 255; break;
        default: r = y; break;
        }
        out |= r << sh;
    }
    return out;
}

/* c's channels times tint's, each (x t + 127) / 255 (over_box's filter; tint's alpha is
 * opaque, so c's is kept). */
static uint32_t tint_px(uint32_t c, uint32_t tint)
{
    uint32_t out = 0;
    for (int sh = 0; sh < 32; sh += 8)
        out |= ((c >> sh & 255) * (tint >> sh & 255) + 127) / 255 << sh;
    return out;
}

/* ---- the cloud layers ----
 * ioq3 draws a sky shader's stages as layers of cloud on a sphere of radius R + H centred R
 * under the eye (tr_sky.c R_InitSkyTexCoords: R = 4096, H the skyParms cloud height): a
 * view ray in direction d meets it at p d, p = (-d_z R + sqrt(d_z^2 R^2 + |d|^2 (2 R H +
 * H^2))) / |d|^2, and the layer's texture coordinates there are the angles acos(v_x) and
 * acos(v_y) of v, the point seen from the sphere's centre over its radius, v = (p d + (0,
 * 0, R)) / (R + H); each stage's tcMods then move and scale them. It makes them at the
 * vertices of a grid on the sky box (SKY_SUBDIVISIONS 8 a side) and the hardware
 * interpolates between; qdemo makes them exactly at every SKY_CHUNK-th column of a row and
 * interpolates between. */

/* Pixels of a row the sky is worked for together (a power of two, a multiple of four). */
#define SKY_CHUNK 32
#define SKY_RADIUS 4096.0f

/* A layer drawn: its image, blend, and tcMods at the frame's time as one affine map of
 * (s, t) (tcmod_matrix). */
typedef struct sky_layer {
    const q3_image *im;
    int blend;
    int full; /* drawn at its image's colour into the half-scale frame: see r_q3_sky */
    uint32_t tint; /* its rgbGen const or wave colour times the image's (opaque white: none) */
    double m[6];
} sky_layer;

/* c's colour halved, rounding up, as GL stores 0.5 times it (alpha kept). */
static uint32_t half_of(uint32_t c)
{
    uint32_t out = c & 0xff000000u;
    for (int sh = 0; sh < 24; sh += 8)
        out |= ((c >> sh & 255) + 1) / 2 << sh;
    return out;
}

/* acos(x) for -1 <= x <= 1 within 7e-5 (Abramowitz and Stegun 4.4.45: sqrt(1 - |x|) times
 * a cubic, reflected for x < 0), a fiftieth of a texel of a 256-texel layer at scale 1:
 * the same operations as acos4's lanes. */
static float acos_as(float x)
{
    float ax = fabsf(x);
    float r = sqrtf(1.0f - ax) *
              (1.5707288f + ax * (-0.2121144f + ax * (0.0742610f + ax * -0.0187293f)));
    return x < 0 ? 3.14159265f - r : r;
}

/* The layers' texture coordinates (s, t), in repeats of the image before the tcMods, in
 * direction d. */
static void sky_angles(float height, const float d[3], float st[2])
{
    const float r = SKY_RADIUS, dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    float disc = d[2] * d[2] * r * r + dd * (2 * r * height + height * height);
    float p = dd > 0 ? (-d[2] * r + sqrtf(disc > 0 ? disc : 0)) / dd : 0;
    float k = p / (r + height);
    for (int j = 0; j < 2; j++) {
        float c = d[j] * k;
        c = c > 1 ? 1 : c >= -1 ? c : -1; /* (NaN: -1) */
        st[j] = acos_as(c);
    }
}

#if defined(__SSE2__)
/* acos_as in four lanes. */
static inline __m128 acos4(__m128 x)
{
    const __m128 sign = _mm_set1_ps(-0.0f);
    __m128 ax = _mm_andnot_ps(sign, x);
    __m128 poly = _mm_add_ps(_mm_set1_ps(0.0742610f), _mm_mul_ps(ax, _mm_set1_ps(-0.0187293f)));
    poly = _mm_add_ps(_mm_set1_ps(-0.2121144f), _mm_mul_ps(ax, poly));
    poly = _mm_add_ps(_mm_set1_ps(1.5707288f), _mm_mul_ps(ax, poly));
    __m128 r = _mm_mul_ps(_mm_sqrt_ps(_mm_sub_ps(_mm_set1_ps(1.0f), ax)), poly);
    __m128 neg = _mm_cmplt_ps(x, _mm_setzero_ps());
    return _mm_or_ps(_mm_and_ps(neg, _mm_sub_ps(_mm_set1_ps(3.14159265f), r)), _mm_andnot_ps(neg, r));
}

/* sky_angles in four lanes: s and t of directions d. */
static void sky_angles4(float height, const __m128 d[3], __m128 *s, __m128 *t)
{
    const __m128 r = _mm_set1_ps(SKY_RADIUS), zero = _mm_setzero_ps();
    __m128 dd = _mm_add_ps(_mm_add_ps(_mm_mul_ps(d[0], d[0]), _mm_mul_ps(d[1], d[1])),
                           _mm_mul_ps(d[2], d[2]));
    __m128 disc = _mm_add_ps(_mm_mul_ps(_mm_mul_ps(_mm_mul_ps(d[2], d[2]), r), r),
                             _mm_mul_ps(dd, _mm_set1_ps(2 * SKY_RADIUS * height + height * height)));
    disc = _mm_max_ps(disc, zero);
    __m128 p = _mm_div_ps(_mm_add_ps(_mm_xor_ps(_mm_mul_ps(d[2], r), _mm_set1_ps(-0.0f)), _mm_sqrt_ps(disc)), dd);
    p = _mm_and_ps(_mm_cmpgt_ps(dd, zero), p);
    __m128 k = _mm_div_ps(p, _mm_set1_ps(SKY_RADIUS + height));
    const __m128 one = _mm_set1_ps(1), mone = _mm_set1_ps(-1);
    /* clamped: max gives its second operand, -1, for a NaN */
    *s = acos4(_mm_min_ps(_mm_max_ps(_mm_mul_ps(d[0], k), mone), one));
    *t = acos4(_mm_min_ps(_mm_max_ps(_mm_mul_ps(d[1], k), mone), one));
}
#endif

/* x in 16.16, modulo 2^32 (the images are powers of two each way, so the texel a place
 * names is the same modulo 2^32); beyond +-2^31 or NaN: 0. */
static uint32_t sky_fix(double x)
{
    x *= 65536.0;
    return x > -2147483647.0 && x < 2147483647.0 ? (uint32_t)(int32_t)x : 0;
}

/* floor(x) without the library call (the x86-64 baseline has no rounding instruction);
 * past +-2^52 (or NaN), x itself is whole enough: 0 there, a place like any other. */
static inline double floor_d(double x)
{
    if (!(x > -4.5e15 && x < 4.5e15))
        return 0;
    double t = (double)(int64_t)x;
    return t > x ? t - 1 : t;
}

/* Places of a layer, 16.16 in texels of its level 0: u across, v down. */
typedef struct cloud_at {
    uint32_t u, v;
} cloud_at;

/* The layer's places at three points of a chunk (its first pixel, SKY_CHUNK pixels on, a
 * row below its first) from their (s, t): the first wrapped into the image, the others
 * from it by their difference, so that the steps between are the true ones. */
static void layer_places(const sky_layer *l, const float st[3][2], cloud_at out[3])
{
    double u[3], v[3];
    for (int k = 0; k < 3; k++) {
        u[k] = l->m[0] * st[k][0] + l->m[1] * st[k][1] + l->m[2];
        v[k] = l->m[3] * st[k][0] + l->m[4] * st[k][1] + l->m[5];
    }
    const double w = l->im->w[0], h = l->im->h[0];
    const double u0 = (u[0] - floor_d(u[0])) * w, v0 = (v[0] - floor_d(v[0])) * h;
    for (int k = 0; k < 3; k++) {
        out[k].u = sky_fix(u0 + (u[k] - u[0]) * w);
        out[k].v = sky_fix(v0 + (v[k] - v[0]) * h);
    }
}

/* |a - b| of two places, as a 16.16 texel count. */
static uint32_t place_span(uint32_t a, uint32_t b)
{
    uint32_t d = a - b;
    return d >> 31 ? 0u - d : d;
}

/* The level of the layer's mip chain for a chunk from places a (its first pixel), b
 * (SKY_CHUNK pixels on) and below (a row lower): the rasteriser's rule (run_level: level 0
 * while a pixel spans at most 1.25 texels, one more for each doubling) on the larger step,
 * along the row or down. The horizon's clouds read texels averaged over what a pixel
 * covers, as GL's mipmaps give them. */
static int cloud_level(const q3_image *im, cloud_at a, cloud_at b, cloud_at below)
{
    uint32_t rho = place_span(b.u, a.u) / SKY_CHUNK, r2 = place_span(b.v, a.v) / SKY_CHUNK;
    rho = r2 > rho ? r2 : rho;
    r2 = place_span(below.u, a.u);
    rho = r2 > rho ? r2 : rho;
    r2 = place_span(below.v, a.v);
    rho = r2 > rho ? r2 : rho;
    int lvl = 0;
    while (lvl < im->levels - 1 && (rho >> lvl) > 81920) /* 1.25 in 16.16 */
        lvl++;
    return lvl;
}

/* The layer's texel at place (u, v) of level lvl, alpha as the image has it. */
static inline uint32_t layer_texel(const q3_image *im, int lvl, uint32_t u, uint32_t v)
{
    const int sh = 16 + lvl;
    return im->texels[lvl][(size_t)(v >> sh & (uint32_t)(im->h[lvl] - 1)) * (size_t)im->w[lvl] +
                           (u >> sh & (uint32_t)(im->w[lvl] - 1))];
}

#if defined(__SSE2__)
/* pixel_dir's directions through four pixels of a row, whose columns' quotients are sxt[0..3]
 * and row's row_sy: the same single-precision operations in the same order, so the same
 * bits. */
static void dirs4(const r_view *v, const float *sxt, float row_sy, __m128 d[3])
{
    __m128 colx = _mm_loadu_ps(sxt);
    for (int j = 0; j < 3; j++)
        d[j] = _mm_sub_ps(_mm_add_ps(_mm_set1_ps(v->fwd[j]), _mm_mul_ps(_mm_set1_ps(v->right[j]), colx)),
                          _mm_set1_ps(v->up[j] * row_sy));
}

/* ty * w + tx for the four lanes' texel places in an image w wide (0 <= tx < w, 0 <= ty
 * below its height: sizes are at most MDL_IMAGE_MAX_SIZE, so each fits a 16-bit lane and
 * the sum the madd's 32 bits), into ix. */
static inline void index4(__m128i tx, __m128i ty, int w, int32_t ix[4])
{
    _Static_assert(MDL_IMAGE_MAX_SIZE <= 16384, "texel places in 16-bit lanes");
    __m128i p = _mm_packs_epi32(tx, ty); /* tx in lanes 0-3, ty in 4-7 */
    _mm_storeu_si128((__m128i *)ix, _mm_madd_epi16(_mm_unpacklo_epi16(p, _mm_srli_si128(p, 8)),
                                                   _mm_set1_epi32(w << 16 | 1)));
}

/* v, v + st, v + 2 st, v + 3 st (wrapping). */
static inline __m128i ramp4(int32_t v, int32_t st)
{
    const __m128i vv = _mm_set1_epi32(v), dd = _mm_set1_epi32(st);
    const __m128i d1 = _mm_slli_si128(dd, 4); /* (0, st, st, st) */
    return _mm_add_epi32(_mm_add_epi32(vv, d1),
                         _mm_add_epi32(_mm_slli_si128(d1, 4), _mm_slli_si128(dd, 12)));
}

/* The sky box's side (0..5, as r_sky_box_texel numbers them) and place across it (u and w4
 * in 0..1, before the clamp) in the four directions d: each lane takes the side, s, t and
 * distance the scalar branches would (the same comparisons, so the same choice for NaNs
 * too), then the same divisions and products. */
static void box_place4(const __m128 d[3], int32_t side[4], __m128 *u, __m128 *w4)
{
    const __m128 sign = _mm_set1_ps(-0.0f), zero = _mm_setzero_ps();
    __m128 ax = _mm_andnot_ps(sign, d[0]), ay = _mm_andnot_ps(sign, d[1]),
           az = _mm_andnot_ps(sign, d[2]);
    __m128 n0 = _mm_xor_ps(d[0], sign), n1 = _mm_xor_ps(d[1], sign);
    __m128 p0 = _mm_cmpgt_ps(d[0], zero), p1 = _mm_cmpgt_ps(d[1], zero),
           p2 = _mm_cmpgt_ps(d[2], zero);
    __m128 on_x = _mm_and_ps(_mm_cmpge_ps(ax, ay), _mm_cmpge_ps(ax, az));
    __m128 on_y = _mm_andnot_ps(on_x, _mm_cmpge_ps(ay, az));
    __m128 on_z = _mm_andnot_ps(_mm_or_ps(on_x, on_y), _mm_castsi128_ps(_mm_set1_epi32(-1)));
#define SEL(m, a, b) _mm_or_ps(_mm_and_ps((m), (a)), _mm_andnot_ps((m), (b)))
    __m128 sx = SEL(p0, n1, d[1]), sy = SEL(p1, d[0], n0), sz = n1;
    __m128 tz = SEL(p2, n0, d[0]);
    __m128 s = _mm_or_ps(_mm_and_ps(on_x, sx), _mm_or_ps(_mm_and_ps(on_y, sy), _mm_and_ps(on_z, sz)));
    __m128 t = _mm_or_ps(_mm_and_ps(_mm_or_ps(on_x, on_y), d[2]), _mm_and_ps(on_z, tz));
    __m128 dist = _mm_or_ps(_mm_and_ps(on_x, ax), _mm_or_ps(_mm_and_ps(on_y, ay), _mm_and_ps(on_z, az)));
#undef SEL
    const __m128 one = _mm_set1_ps(1), half = _mm_set1_ps(0.5f);
    *u = _mm_mul_ps(_mm_add_ps(_mm_div_ps(s, dist), one), half);
    *w4 = _mm_sub_ps(one, _mm_mul_ps(_mm_add_ps(_mm_div_ps(t, dist), one), half));
    /* the side as the scalar branches pick it: x's (0, 1 when not positive), else y's (2,
     * 3), else z's (4, 5) */
    const __m128i one_i = _mm_set1_epi32(1);
    __m128i sx_ = _mm_andnot_si128(_mm_castps_si128(p0), one_i);
    __m128i sy_ = _mm_add_epi32(_mm_andnot_si128(_mm_castps_si128(p1), one_i), _mm_set1_epi32(2));
    __m128i sz_ = _mm_add_epi32(_mm_andnot_si128(_mm_castps_si128(p2), one_i), _mm_set1_epi32(4));
    __m128i mxv = _mm_castps_si128(on_x), myv = _mm_castps_si128(on_y);
    __m128i sv = _mm_or_si128(_mm_and_si128(mxv, sx_),
                              _mm_andnot_si128(mxv, _mm_or_si128(_mm_and_si128(myv, sy_),
                                                                 _mm_andnot_si128(myv, sz_))));
    _mm_storeu_si128((__m128i *)side, sv);
}

/* x clamped to 0..hi (SSE2 has no 32-bit min and max: by compares). */
static inline __m128i clamp4(__m128i x, __m128i hi)
{
    x = _mm_andnot_si128(_mm_cmplt_epi32(x, _mm_setzero_si128()), x);
    __m128i g = _mm_cmpgt_epi32(x, hi);
    return _mm_or_si128(_mm_and_si128(g, hi), _mm_andnot_si128(g, x));
}

/* Four texels of side im at places (u, w4) in 0..1, clamped to its edges, as
 * r_sky_box_texel reads them. */
static inline __m128i box_texels4(const q3_image *im, __m128 u, __m128 w4)
{
    const int bw = im->w[0], bh = im->h[0];
    __m128i tx = clamp4(_mm_cvttps_epi32(_mm_mul_ps(u, _mm_set1_ps((float)bw))), _mm_set1_epi32(bw - 1));
    __m128i ty = clamp4(_mm_cvttps_epi32(_mm_mul_ps(w4, _mm_set1_ps((float)bh))), _mm_set1_epi32(bh - 1));
    int32_t ix[4];
    index4(tx, ty, bw, ix);
    const uint32_t *t = im->texels[0];
    return _mm_setr_epi32((int)t[ix[0]], (int)t[ix[1]], (int)t[ix[2]], (int)t[ix[3]]);
}

/* Four sky box texels of row y from x on, as pixel_dir and r_sky_box_texel make them one by
 * one. */
static void box4(const r_view *v, const r_q3 *q, const float *sxt, float row_sy, __m128i *out)
{
    __m128 d[3], u, w4;
    int32_t side[4];
    dirs4(v, sxt, row_sy, d);
    box_place4(d, side, &u, &w4);
    if (side[0] == side[1] && side[0] == side[2] && side[0] == side[3]) {
        *out = box_texels4(&q->sky[side[0]], u, w4);
        return;
    }
    float uu[4], ww[4];
    uint32_t t[4];
    _mm_storeu_ps(uu, u);
    _mm_storeu_ps(ww, w4);
    for (int i = 0; i < 4; i++) {
        const q3_image *im = &q->sky[side[i]];
        int bw = im->w[0], bh = im->h[0];
        int tx = (int)(uu[i] * (float)bw), ty = (int)(ww[i] * (float)bh);
        tx = tx < 0 ? 0 : tx >= bw ? bw - 1 : tx;
        ty = ty < 0 ? 0 : ty >= bh ? bh - 1 : ty;
        t[i] = im->texels[0][(size_t)ty * (size_t)bw + (size_t)tx];
    }
    *out = _mm_loadu_si128((const __m128i *)t);
}

/* floor(t / 255) of 16-bit lanes t <= 65534. */
static inline __m128i div255_4(__m128i t)
{
    return _mm_srli_epi16(_mm_add_epi16(_mm_add_epi16(t, _mm_set1_epi16(1)), _mm_srli_epi16(t, 8)), 8);
}

/* tint_px for four pixels, the same bytes. */
static inline __m128i tint4(__m128i c, __m128i t)
{
    const __m128i zero = _mm_setzero_si128(), k127 = _mm_set1_epi16(127);
    __m128i lo = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(c, zero),
                                               _mm_unpacklo_epi8(t, zero)), k127);
    __m128i hi = _mm_add_epi16(_mm_mullo_epi16(_mm_unpackhi_epi8(c, zero),
                                               _mm_unpackhi_epi8(t, zero)), k127);
    return _mm_packus_epi16(div255_4(lo), div255_4(hi));
}

/* over_box for four pixels: the layer's texels c over b, the same bytes. */
static inline __m128i over4(__m128i b, __m128i c, int blend)
{
    const __m128i alpha = _mm_set1_epi32((int)0xff000000u), zero = _mm_setzero_si128();
    if (blend == MDL_BLEND_ADD)
        return _mm_or_si128(_mm_adds_epu8(b, c), alpha);
    if (blend != MDL_BLEND_FILTER && blend != MDL_BLEND_ALPHA && blend != MDL_BLEND_MOD2X)
        return _mm_or_si128(c, alpha);
    __m128i out[2];
    for (int h = 0; h < 2; h++) {
        __m128i x = h ? _mm_unpackhi_epi8(b, zero) : _mm_unpacklo_epi8(b, zero);
        __m128i y = h ? _mm_unpackhi_epi8(c, zero) : _mm_unpacklo_epi8(c, zero);
        __m128i t;
        if (blend == MDL_BLEND_FILTER || blend == MDL_BLEND_MOD2X) {
            t = _mm_add_epi16(_mm_mullo_epi16(x, y), _mm_set1_epi16(127));
        } else { /* each pixel's alpha over its four channels */
            __m128i a = _mm_shufflehi_epi16(_mm_shufflelo_epi16(y, 0xff), 0xff);
            t = _mm_add_epi16(_mm_add_epi16(_mm_mullo_epi16(y, a),
                                            _mm_mullo_epi16(x, _mm_sub_epi16(_mm_set1_epi16(255), a))),
                              _mm_set1_epi16(127));
        }
        out[h] = div255_4(t);
        if (blend == MDL_BLEND_MOD2X) /* (twice, clamped by the pack) */
            out[h] = _mm_add_epi16(out[h], out[h]);
    }
    return _mm_or_si128(_mm_packus_epi16(out[0], out[1]), alpha);
}

/* A layer's texels over a chunk: from place a at its first pixel, b SKY_CHUNK pixels on,
 * linear between, at the level cloud_level picks with below. */
static void layer_chunk(const q3_image *im, const cloud_at p[3], __m128i out[SKY_CHUNK / 4])
{
    const int lvl = cloud_level(im, p[0], p[1], p[2]);
    const int32_t du = (int32_t)(p[1].u - p[0].u) / SKY_CHUNK,
                  dv = (int32_t)(p[1].v - p[0].v) / SKY_CHUNK;
    const __m128i sh = _mm_cvtsi32_si128(16 + lvl);
    const __m128i wm = _mm_set1_epi32(im->w[lvl] - 1), hm = _mm_set1_epi32(im->h[lvl] - 1);
    const uint32_t *t = im->texels[lvl];
    __m128i u4 = ramp4((int32_t)p[0].u, du), v4 = ramp4((int32_t)p[0].v, dv);
    const __m128i du4 = _mm_set1_epi32((int32_t)(4 * (uint32_t)du)),
                  dv4 = _mm_set1_epi32((int32_t)(4 * (uint32_t)dv));
    for (int g = 0; g < SKY_CHUNK / 4; g++) {
        int32_t ix[4];
        index4(_mm_and_si128(_mm_srl_epi32(u4, sh), wm), _mm_and_si128(_mm_srl_epi32(v4, sh), hm),
               im->w[lvl], ix);
        out[g] = _mm_setr_epi32((int)t[ix[0]], (int)t[ix[1]], (int)t[ix[2]], (int)t[ix[3]]);
        u4 = _mm_add_epi32(u4, du4);
        v4 = _mm_add_epi32(v4, dv4);
    }
}

/* The sky of the SKY_CHUNK pixels from column x0 (a multiple of SKY_CHUNK) of a row whose
 * quotient is sy (sy1 the next row's), into out, four pixels each, alpha opaque: the box
 * (each side's place worked at the chunk's ends and linear between when both see the same
 * side: a side's directions make a convex cone, so every pixel between sees it too; each
 * pixel on its own where the chunk crosses an edge of the box), the first layer over it as
 * its blend says (without a box, the first layer as it is), the second over that. */
static void sky_chunk(const r_view *v, const r_q3 *q, const sky_layer *lay, int nlay,
                      const float *sxt, size_t x0, float sy, float sy1, __m128i out[SKY_CHUNK / 4])
{
    /* the lanes' directions: (x0, y), (x0 + SKY_CHUNK, y), (x0, y + 1), (x0 + SKY_CHUNK, y + 1) */
    const __m128 colx = _mm_setr_ps(sxt[x0], sxt[x0 + SKY_CHUNK], sxt[x0], sxt[x0 + SKY_CHUNK]);
    const __m128 rowy = _mm_setr_ps(sy, sy, sy1, sy1);
    __m128 d[3];
    for (int j = 0; j < 3; j++)
        d[j] = _mm_sub_ps(_mm_add_ps(_mm_set1_ps(v->fwd[j]), _mm_mul_ps(_mm_set1_ps(v->right[j]), colx)),
                          _mm_mul_ps(_mm_set1_ps(v->up[j]), rowy));
    __m128i cl[SKY_CHUNK / 4];
    float st[3][2];
    if (nlay) { /* (lanes 0, 1, 2) */
        __m128 s4, t4;
        float sl[4], tl[4];
        sky_angles4(q->sky_height, d, &s4, &t4);
        _mm_storeu_ps(sl, s4);
        _mm_storeu_ps(tl, t4);
        for (int k = 0; k < 3; k++)
            st[k][0] = sl[k], st[k][1] = tl[k];
    }
    int drawn = 0;
    if (q->sky_box) {
        int32_t side[4];
        __m128 u, w4;
        box_place4(d, side, &u, &w4);
        if (side[0] == side[1]) {
            float uu[4], ww[4];
            _mm_storeu_ps(uu, u);
            _mm_storeu_ps(ww, w4);
            const float du = (uu[1] - uu[0]) * (1.0f / SKY_CHUNK), dw = (ww[1] - ww[0]) * (1.0f / SKY_CHUNK);
            const __m128 k4 = _mm_setr_ps(0, 1, 2, 3);
            for (int g = 0; g < SKY_CHUNK / 4; g++) {
                __m128 kk = _mm_add_ps(k4, _mm_set1_ps((float)(4 * g)));
                out[g] = box_texels4(&q->sky[side[0]],
                                     _mm_add_ps(_mm_set1_ps(uu[0]), _mm_mul_ps(_mm_set1_ps(du), kk)),
                                     _mm_add_ps(_mm_set1_ps(ww[0]), _mm_mul_ps(_mm_set1_ps(dw), kk)));
            }
        } else {
            for (int g = 0; g < SKY_CHUNK / 4; g++)
                box4(v, q, sxt + x0 + 4 * (size_t)g, sy, &out[g]);
        }
        for (int g = 0; g < SKY_CHUNK / 4; g++) /* (half_of, four at once) */
            out[g] = _mm_avg_epu8(out[g], _mm_setzero_si128());
        drawn = 1;
    }
    const __m128i rgb = _mm_set1_epi32(0xffffff);
    for (int k = 0; k < nlay; k++) {
        cloud_at p[3];
        layer_places(&lay[k], (const float(*)[2])st, p);
        layer_chunk(lay[k].im, p, cl);
        for (int g = 0; !lay[k].full && g < SKY_CHUNK / 4; g++) /* (half_of, alpha kept) */
            cl[g] = _mm_or_si128(_mm_and_si128(_mm_avg_epu8(cl[g], _mm_setzero_si128()), rgb),
                                 _mm_andnot_si128(rgb, cl[g]));
        if (lay[k].tint != 0xffffffffu) {
            const __m128i tv = _mm_set1_epi32((int)lay[k].tint);
            for (int g = 0; g < SKY_CHUNK / 4; g++)
                cl[g] = tint4(cl[g], tv);
        }
        for (int g = 0; g < SKY_CHUNK / 4; g++)
            out[g] = over4(drawn ? out[g] : _mm_setzero_si128(), cl[g],
                           drawn ? lay[k].blend : MDL_BLEND_NONE);
        drawn = 1;
    }
    for (int g = 0; g < SKY_CHUNK / 4; g++) /* (rast_twice, four at once) */
        out[g] = _mm_or_si128(_mm_adds_epu8(out[g], out[g]), _mm_set1_epi32((int)0xff000000u));
}
#endif

/* The sky in direction d, one pixel on its own (the SSE2 build's chunks' exact values at
 * level 0: the scalar build's way). */
static uint32_t sky_texel(const r_q3 *q, const sky_layer *lay, int nlay, const float d[3])
{
    uint32_t c = q->sky_box ? half_of(box_texel(q, d) | 0xff000000u) : 0;
    float st[2];
    sky_angles(q->sky_height, d, st);
    for (int k = 0; k < nlay; k++) {
        const float st3[3][2] = {{st[0], st[1]}, {st[0], st[1]}, {st[0], st[1]}};
        cloud_at p[3];
        layer_places(&lay[k], st3, p);
        uint32_t t = layer_texel(lay[k].im, 0, p[0].u, p[0].v);
        t = lay[k].full ? t : half_of(t);
        t = lay[k].tint != 0xffffffffu ? tint_px(t, lay[k].tint) : t;
        c = k || q->sky_box ? over_box(c, t, lay[k].blend) : t | 0xff000000u;
    }
    return nlay || q->sky_box ? rast_twice(c) | 0xff000000u : q->sky_flat;
}

/* ---- where the game draws its sky: the box sides' rectangles ----
 * ioquake3 does not draw the sky through its sky surfaces' pixels alone (tr_sky.c,
 * RB_ClipSkyPolygons and DrawSkyBox): it projects the whole of every sky triangle in view
 * (from the eye, cut by the planes between the box's sides) onto the six sides of the box,
 * takes each side's bounding rectangle of what falls on it, widens that to its grid of
 * quarters, and draws those rectangles first at the far depth, under everything else. So
 * where the map has a hole (oa_dm3's void under its platforms: no surface at all) the sky
 * shows through wherever the rectangles reach, and qdemo, which left such pixels at the
 * clear colour, drew black there. The faces taken are those of the frame's walk whose
 * shader is a sky, culled by their plane as the game culls a face (tr_world.c
 * R_CullSurface: behind it by more than 8 units). */
typedef struct sky_rects {
    float lo[6][2], hi[6][2]; /* per side (+x, -x, +y, -y, +z, -z): the rectangle, -1..1 */
    int any;                  /* some side has one */
} sky_rects;

/* The side a direction falls on (its largest component, ties as the game breaks them) and
 * its place there: the other two components over the largest; 0 when it is too close to
 * the side's plane to say (the game's 0.001). */
static int sky_side(const float d[3], int *side, float st[2])
{
    float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]);
    int k = ax > ay && ax > az ? 0 : ay > az && ay > ax ? 1 : 2;
    float dv = d[k] < 0 ? -d[k] : d[k];
    if (!(dv >= 0.001f))
        return 0;
    *side = 2 * k + (d[k] < 0);
    st[0] = d[k == 0 ? 1 : 0] / dv;
    st[1] = d[k == 2 ? 1 : 2] / dv;
    return 1;
}

/* A piece of a sky polygon within one side's wedge (the eye at the origin): its points'
 * places widen that side's rectangle. The side is the one of the points' sum. */
static void sky_rect_add(sky_rects *r, int n, const float (*p)[3])
{
    float sum[3] = {0, 0, 0}, st[2];
    int side;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 3; j++)
            sum[j] += p[i][j];
    if (!sky_side(sum, &side, st))
        return;
    int k = side >> 1;
    for (int i = 0; i < n; i++) {
        float dv = (side & 1) ? -p[i][k] : p[i][k];
        if (!(dv >= 0.001f))
            continue; /* (the game skips such a point) */
        float s = p[i][k == 0 ? 1 : 0] / dv, t = p[i][k == 2 ? 1 : 2] / dv;
        r->lo[side][0] = s < r->lo[side][0] ? s : r->lo[side][0];
        r->lo[side][1] = t < r->lo[side][1] ? t : r->lo[side][1];
        r->hi[side][0] = s > r->hi[side][0] ? s : r->hi[side][0];
        r->hi[side][1] = t > r->hi[side][1] ? t : r->hi[side][1];
    }
}

/* Cut a polygon of n <= 3 + stage points by the planes between the sides (x = +-y,
 * z = +-y, z = +-x), from plane `stage` on, and add each piece. A point within 0.1 of a
 * plane goes to both pieces, as in the game. */
static void sky_rect_clip(sky_rects *r, int n, const float (*p)[3], int stage)
{
    static const float cut[6][3] = {{1, 1, 0}, {1, -1, 0}, {0, -1, 1},
                                    {0, 1, 1}, {1, 0, 1},  {-1, 0, 1}};
    if (stage == 6) {
        sky_rect_add(r, n, p);
        return;
    }
    float dist[16];
    int side[16], front = 0, back = 0;
    for (int i = 0; i < n; i++) {
        dist[i] = dot3(p[i], cut[stage]);
        side[i] = dist[i] > 0.1f ? 1 : dist[i] < -0.1f ? -1 : 0;
        front |= side[i] > 0;
        back |= side[i] < 0;
    }
    if (!front || !back) {
        sky_rect_clip(r, n, p, stage + 1);
        return;
    }
    float piece[2][16][3];
    int pn[2] = {0, 0};
    for (int i = 0; i < n && pn[0] < 15 && pn[1] < 15; i++) {
        int i2 = i + 1 < n ? i + 1 : 0;
        if (side[i] >= 0)
            memcpy(piece[0][pn[0]++], p[i], sizeof p[i]);
        if (side[i] <= 0)
            memcpy(piece[1][pn[1]++], p[i], sizeof p[i]);
        if (side[i] == 0 || side[i2] == 0 || side[i2] == side[i])
            continue;
        float f = dist[i] / (dist[i] - dist[i2]);
        for (int j = 0; j < 3; j++)
            piece[0][pn[0]][j] = piece[1][pn[1]][j] = p[i][j] + f * (p[i2][j] - p[i][j]);
        pn[0]++;
        pn[1]++;
    }
    sky_rect_clip(r, pn[0], (const float(*)[3])piece[0], stage + 1);
    sky_rect_clip(r, pn[1], (const float(*)[3])piece[1], stage + 1);
}

/* The rectangles of the sky faces in the frame's walk, seen from v's eye (the same for
 * every band: the walk is the frame's). */
static void sky_rects_make(const r_view *v, const r_assets *a, sky_rects *r)
{
    for (int k = 0; k < 6; k++) {
        r->lo[k][0] = r->lo[k][1] = 9999;
        r->hi[k][0] = r->hi[k][1] = -9999;
    }
    r->any = 0;
    const r_q3 *q = a->q3;
    const mdl_bsp *b = a->world.bsp;
    const r_walk *w = v->walk;
    if (!q || !b || !b->face_q3 || !w)
        return;
    for (uint32_t k = 0; k < w->n; k++) {
        uint32_t fi = w->faces[k];
        if (fi >= b->num_faces)
            continue;
        const mdl_face *f = &b->faces[fi];
        if (f->texture < 0 || (uint32_t)f->texture >= q->num_mats || !q->mats[f->texture].sky)
            continue;
        if (!q->mats[f->texture].twosided && dot3(f->normal, v->org) < f->dist - 8)
            continue;
        const float(*pts)[3] = (const float(*)[3])b->verts[f->first_vert];
        float rel[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                rel[i][j] = pts[i][j] - v->org[j];
        sky_rect_clip(r, 3, (const float(*)[3])rel, 0);
    }
    /* out to the grid of quarters, within the side */
    for (int k = 0; k < 6; k++) {
        for (int j = 0; j < 2; j++) {
            float lo = floorf(r->lo[k][j] * 4) / 4, hi = ceilf(r->hi[k][j] * 4) / 4;
            r->lo[k][j] = lo < -1 ? -1 : lo;
            r->hi[k][j] = hi > 1 ? 1 : hi;
        }
        if (r->lo[k][0] < r->hi[k][0] && r->lo[k][1] < r->hi[k][1])
            r->any = 1;
        else
            r->lo[k][0] = r->hi[k][0] = 9999; /* (empty: no direction is inside) */
    }
}

/* The rectangles as the game draws its box, first, at the far depth, under everything
 * (DrawSkyBox): here, after the rest, the pixels of the band within one that nothing was
 * drawn on (the depth still cleared) take the mark, and the sky fills them as it fills the
 * sky faces'. Each rectangle, seen from the eye, is a convex polygon on the screen (clipped
 * as any polygon); a pixel is in it when its centre is, row by row. */
static void sky_rects_mark(r_view *v, const sky_rects *r)
{
    const float far = 1048576.0f; /* (past any map: 2^20 units) */
    rast_fb *fb = v->fb;
    const int top = v->y0 > 0 ? v->y0 : 0, bottom = v->y1 < fb->h ? v->y1 : fb->h;
    for (int side = 0; side < 6; side++) {
        if (!(r->lo[side][0] < r->hi[side][0]))
            continue;
        int k = side >> 1, sa = k == 0 ? 1 : 0, tb = k == 2 ? 1 : 2;
        float quad[4][3];
        for (int c = 0; c < 4; c++) {
            float d[3];
            d[k] = (side & 1) ? -1.0f : 1.0f;
            d[sa] = c == 1 || c == 2 ? r->hi[side][0] : r->lo[side][0];
            d[tb] = c >= 2 ? r->hi[side][1] : r->lo[side][1];
            for (int j = 0; j < 3; j++)
                quad[c][j] = v->org[j] + far * d[j];
        }
        rast_vert p[R_MAX_POLY];
        int n = r_screen_poly(v, (const float(*)[3])quad, 4, p);
        float ylo = 1e30f, yhi = -1e30f;
        for (int i = 0; i < n; i++) {
            ylo = p[i].y < ylo ? p[i].y : ylo;
            yhi = p[i].y > yhi ? p[i].y : yhi;
        }
        int y0 = n ? (int)ceilf(ylo - 0.5f) : 0, y1 = n ? (int)floorf(yhi - 0.5f) + 1 : 0;
        y0 = y0 < top ? top : y0;
        y1 = y1 > bottom ? bottom : y1;
        for (int y = y0; y < y1; y++) {
            /* the row's centre line across the polygon's edges: the span between */
            const float yc = (float)y + 0.5f;
            float xl = 1e30f, xr = -1e30f;
            for (int i = 0; i < n; i++) {
                const rast_vert *a = &p[i], *b = &p[i + 1 < n ? i + 1 : 0];
                if ((a->y <= yc) == (b->y <= yc))
                    continue;
                float x = a->x + (yc - a->y) * (b->x - a->x) / (b->y - a->y);
                xl = x < xl ? x : xl;
                xr = x > xr ? x : xr;
            }
            if (!(xl <= xr))
                continue;
            int x0 = (int)ceilf(xl - 0.5f), x1 = (int)floorf(xr - 0.5f) + 1;
            x0 = x0 < 0 ? 0 : x0;
            x1 = x1 > fb->w ? fb->w : x1;
            uint32_t *row = fb->color + (size_t)y * (size_t)fb->w;
            const float *dep = fb->depth + (size_t)y * (size_t)fb->w;
            int x = x0;
#if defined(__SSE2__)
            for (; x + 4 <= x1; x += 4) { /* (the mark is all zero bits) */
                __m128i clear = _mm_castps_si128(_mm_cmpeq_ps(_mm_loadu_ps(dep + x), _mm_setzero_ps()));
                if (_mm_movemask_epi8(clear))
                    _mm_storeu_si128((__m128i *)(row + x),
                                     _mm_andnot_si128(clear, _mm_loadu_si128((const __m128i *)(row + x))));
            }
#endif
            for (; x < x1; x++)
                if (dep[x] == 0)
                    row[x] = R_SKY_MARK;
        }
    }
}

void r_q3_sky(r_view *v, const r_assets *a)
{
    const r_q3 *q = a->q3;
    rast_fb *fb = v->fb;
    int top = v->y0 > 0 ? v->y0 : 0, bottom = v->y1 < fb->h ? v->y1 : fb->h;
    size_t w = (size_t)fb->w;
    sky_rects rects;
    sky_rects_make(v, a, &rects);
    if (!v->sky_marked && !rects.any)
        return; /* no sky face was drawn and none is in view: no pixel shows the sky */
    if (rects.any)
        sky_rects_mark(v, &rects);
    /* the cloud layers at this time: the sky shader's first stage, and the next over it */
    sky_layer lay[2];
    int nlay = 0;
    for (int k = 0; q && k < 2; k++) {
        int32_t im = q->sky_layer[k].image;
        if (im < 0 || q->images[im].levels < 1 || (k && !nlay))
            continue;
        lay[nlay].im = &q->images[im];
        lay[nlay].blend = q->sky_layer[k].blend;
        /* ioq3 as Debian runs it has the hardware overbright bit (its log: "GAMMA: hardware
         * w/ 1 overbright bits", in a window too): the frame is drawn at half scale and
         * shown doubled. The farbox and a stage at identityLighting (tr.identityLight, 0.5:
         * ParseStage's default where the source factor is GL_ONE or GL_SRC_ALPHA) go in at
         * half their images' colour, a stage at rgbGen identity (written, or the default
         * for a filter) at its image's: sky_chunk draws that frame (8 bits a channel, as
         * GL's) and doubles it, saturating. oa_dm3's clouds (sp_flatsky2.tga, rgbGen
         * identity) are bright as in the game only so, and oa_bases3's box plus its added
         * layer (past 1.0 shown, under it drawn) keeps its light through the red filter. */
        const mdl_stage *st = &q->sky_layer[k].stage;
        const uint8_t rgbgen = st->rgbgen;
        lay[nlay].full = rgbgen == MDL_RGBGEN_IDENTITY ||
                         (rgbgen == MDL_RGBGEN_DEFAULT && lay[nlay].blend == MDL_BLEND_FILTER);
        /* rgbGen const and wave: the image times that colour as it is shown (into the
         * half-scale frame at half, as identityLighting): hydronex's moonsky (stars and
         * clouds times dark teal) measured so against ioquake3's frames, its sky's pixels
         * exactly twice the game's when the colour went in at the frame's full value */
        lay[nlay].tint = rgbgen == MDL_RGBGEN_CONST  ? const_color(st->rgbconst)
                         : rgbgen == MDL_RGBGEN_WAVE ? wave_grey(&st->rgbwave, v->time)
                                                     : 0xffffffffu;
        tcmod_matrix(&q->sky_layer[k].stage, v->time, lay[nlay].m);
        nlay++;
    }
    const int any = q && (q->sky_box || nlay);
    /* each column's pixel_dir quotient, once for the band (a division less a pixel), and
     * SKY_CHUNK past the last column for the last chunk's far end */
    float *sxt = any ? malloc((w + SKY_CHUNK) * sizeof *sxt) : NULL;
    for (size_t x = 0; sxt && x < w + SKY_CHUNK; x++)
        sxt[x] = view_quot((float)(int)x, v->cx, v->scale);
    for (int y = top; y < bottom; y++) {
        uint32_t *row = fb->color + (size_t)y * w;
        const float sy = view_quot((float)y, v->cy, v->scale);
        for (size_t x = 0; x < w; x++) {
#if defined(__SSE2__)
            /* sixteen, then four at a time past pixels without the mark */
            const __m128i mark = _mm_set1_epi32((int)R_SKY_MARK);
            while (x + 16 <= w) {
                const __m128i *p = (const __m128i *)(row + x);
                __m128i hit = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi32(_mm_loadu_si128(p), mark),
                                 _mm_cmpeq_epi32(_mm_loadu_si128(p + 1), mark)),
                    _mm_or_si128(_mm_cmpeq_epi32(_mm_loadu_si128(p + 2), mark),
                                 _mm_cmpeq_epi32(_mm_loadu_si128(p + 3), mark)));
                if (_mm_movemask_epi8(hit))
                    break;
                x += 16;
            }
            while (x + 4 <= w &&
                   !_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(row + x)),
                                                      mark)))
                x += 4;
            if (x >= w)
                break;
            if (row[x] != R_SKY_MARK)
                continue;
            if (sxt) {
                /* the chunk of SKY_CHUNK columns holding x (at the same columns whatever the
                 * band, so the same bytes for any thread count): its pixels with the mark
                 * take the sky */
                const size_t x0 = x & ~(size_t)(SKY_CHUNK - 1);
                __m128i px[SKY_CHUNK / 4];
                sky_chunk(v, q, lay, nlay, sxt, x0, sy, view_quot((float)(y + 1), v->cy, v->scale),
                          px);
                if (x0 + SKY_CHUNK <= w) {
                    for (int g = 0; g < SKY_CHUNK / 4; g++) {
                        __m128i *p = (__m128i *)(row + x0 + 4 * (size_t)g);
                        __m128i old = _mm_loadu_si128(p), m = _mm_cmpeq_epi32(old, mark);
                        _mm_storeu_si128(p, _mm_or_si128(_mm_and_si128(m, px[g]),
                                                         _mm_andnot_si128(m, old)));
                    }
                } else {
                    uint32_t t[SKY_CHUNK];
                    memcpy(t, px, sizeof t);
                    for (size_t i = x0; i < w; i++)
                        if (row[i] == R_SKY_MARK)
                            row[i] = t[i - x0];
                }
                x = x0 + SKY_CHUNK - 1;
                continue;
            }
#endif
            if (row[x] != R_SKY_MARK)
                continue;
            float d[3];
            pixel_dir(v, (int)x, y, d);
            row[x] = !q ? a->sky_flat : any ? sky_texel(q, lay, nlay, d) : q->sky_flat;
        }
    }
    free(sxt);
}
