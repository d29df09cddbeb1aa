/* test_rspeed.c: textured rendering's work split: band threads build each Quake surface
 * block once, not once per band. */
#include <unistd.h>

#include "../../src/app/world.h"
#include "../test.h"

/* Texels of surface blocks built while rendering 8 textured 320x240 frames spread over the
 * sample on e1m1 from its recorded view, with the given thread count, each frame with a
 * fresh cache; 0 when it cannot. (A cache kept between frames also keeps the times of the
 * bands, which split the next frame's rows by them: on a busy machine the split, and so
 * which band builds a face, then moved from run to run.) */
static uint64_t sample_texels_built(int threads)
{
    qd_error err;
    demo_t *d = demo_open("assets/smoothme.dem", &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    if (!tl)
        return 0;
    app_opts o = {.num_paks = 1, .paks = {"assets"}};
    app_world w;
    memset(&w, 0, sizeof w);
    rast_fb *fb = rast_fb_new(320, 240);
    uint64_t n = 0;
    for (int k = 0; fb && k < 8; k++) {
        r_cache *cache = r_cache_new(0);
        if (!cache)
            break;
        const r_options opt = {.mode = R_MODE_TEXTURED, .cache = cache, .threads = threads};
        double t = tl_start(tl) + (tl_end(tl) - tl_start(tl)) * (k + 0.5) / 8;
        const cl_state *cl = tl_state_at(tl, t, &err);
        app_world_update(&w, &o, cl);
        r_camera cam;
        r_camera_from_view(cl, t, &cam);
        r_render(w.assets, cl, t, &cam, &opt, fb);
        n += r_cache_texels_built(cache);
        r_cache_free(cache);
    }
    rast_fb_free(fb);
    app_world_free(&w);
    tl_close(tl);
    return n;
}

/* Two bands split the rows: a face wholly above the middle row is built by the top band
 * only, so only the faces crossing that row are built twice. When every band built every
 * face in view (as before), two threads built exactly twice one thread's texels. */
TEST(rspeed_bands_build_each_block_once)
{
    if (access("assets/smoothme.dem", R_OK) != 0)
        SKIP("assets/smoothme.dem missing");
    uint64_t one = sample_texels_built(1), two = sample_texels_built(2);
    CHECK(one > 0);
    CHECK(two >= one);      /* every face in view is still built by some band */
    CHECK(two < one * 3 / 2); /* and most by one band only */
}
