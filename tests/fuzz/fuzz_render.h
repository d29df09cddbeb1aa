/* fuzz_render.h: the render step the model and map fuzz targets share: load the level's
 * models from the input, draw it from each camera in flat, wire and textured mode (x-ray
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
