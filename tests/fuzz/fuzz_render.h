/* fuzz_render.h: the render step the model and map fuzz targets share: load the level's
 * models from the input (a Quake III map with its shaders' images, fuzz_q3_read), draw it from each camera in flat, wire and textured mode (x-ray
 * from the last camera; the textured frames through one cache, as a player keeps it) into a
 * tiny framebuffer, free everything. Each textured frame is drawn again in two and three
 * bands (r_render's threads, each band skipping what lies wholly above or below its rows)
 * and must give the same bytes: a difference aborts. */
#ifndef QD_FUZZ_RENDER_H
#define QD_FUZZ_RENDER_H

#include <stdlib.h>
#include <string.h>

#include "../../src/render/render.h"
#include "../memread.h"

/* Quake III's textured path (shaders, lit spans, the joined runs of triangles): every image
 * a map's shaders ask for is one 2x2 TGA of four colours (uncompressed, 32-bit, bottom-up:
 * TGA's origin), there are no scripts, the rest is the input's. */
static qd_err fuzz_q3_read(void *ctx, const char *name, uint8_t **data, size_t *len,
                           qd_error *err)
{
    static const uint8_t tga[18 + 16] = {
        0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 32, 8,
        0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 255, 40, 80, 120, 255};
    size_t n = strlen(name);
    if (n > 4 && (strcmp(name + n - 4, ".tga") == 0 || strcmp(name + n - 4, ".jpg") == 0)) {
        if (strcmp(name + n - 4, ".jpg") == 0)
            return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
        *data = malloc(sizeof tga);
        if (!*data)
            return QD_ERR_NOMEM;
        memcpy(*data, tga, sizeof tga);
        *len = sizeof tga;
        return QD_OK;
    }
    return memread_fn(ctx, name, data, len, err);
}

static int fuzz_q3_list(void *ctx, const char *prefix,
                        void (*fn)(void *u, const char *name, uint64_t size), void *u)
{
    (void)ctx;
    (void)prefix;
    (void)fn;
    (void)u;
    return 0;
}

static void fuzz_render(const cl_state *cl, const memread *in, const r_camera *cams, int ncams,
                        double t)
{
    rast_fb *fb = rast_fb_new(32, 24), *banded = rast_fb_new(32, 24);
    if (!fb || !banded) {
        rast_fb_free(fb);
        rast_fb_free(banded);
        return;
    }
    qd_error err;
    r_assets *a = r_assets_load(&cl->level, memread_fn, (void *)in, NULL, &err);
    if (a)
        (void)r_assets_q3_textures(a, fuzz_q3_read, fuzz_q3_list, (void *)in, &err);
    r_cache *cache = r_cache_new(1u << 20); /* small: the flush path is fuzzed too */
    /* the bands' own (a chain, one a band), as small: with the default 64 MB a hostile
     * face's lit block took 40 s to build under the sanitizers, 0.15 s without */
    r_cache *bands = r_cache_new(1u << 20);
    for (int c = 0; c < ncams; c++)
        for (int mode = 0; mode < 3; mode++) {
            r_options o = {.mode = mode, .xray = c == ncams - 1, .cache = cache};
            r_render(a, cl, t, &cams[c], &o, fb);
            for (int n = 2; mode == R_MODE_TEXTURED && n <= 3; n++) {
                r_options on = o;
                on.threads = n;
                on.cache = bands;
                r_render(a, cl, t, &cams[c], &on, banded);
                if (memcmp(fb->color, banded->color, 32 * 24 * sizeof *fb->color) != 0)
                    abort(); /* the bands drew other bytes than one thread */
            }
        }
    r_cache_free(cache);
    r_cache_free(bands);
    r_assets_free(a);
    rast_fb_free(fb);
    rast_fb_free(banded);
}

#endif
