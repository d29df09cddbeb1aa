/* test_mdl_looks.c: Quake MDL looks of issue #12 part 1: skin groups run by demo time, and
 * the quad (blue) and pentagram (red) glows tint the model. */
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"
#include "../../src/render/r_local.h"
#include "../test.h"

uint8_t *test_mdl_build(size_t *len);

/* test_mdl_build's skin 1 is a group: a picture of index 15 for 0.1 s, then one of index 0
 * until 0.2 s, over and over (R_AliasSetupSkin); skin 0 is a single picture of index 80. */
TEST(mdl_skin_group_by_time)
{
    size_t len = 0;
    uint8_t *d = test_mdl_build(&len);
    mdl_alias *m = NULL;
    qd_error err = {0};
    CHECK(mdl_alias_load(d, len, "group.mdl", NULL, &m, &err) == QD_OK);
    CHECK_EQ(mdl_alias_skin(m, 1, 0.05)[0], 15);
    CHECK_EQ(mdl_alias_skin(m, 1, 0.15)[0], 0);
    CHECK_EQ(mdl_alias_skin(m, 1, 0.25)[31], 15);
    CHECK_EQ(mdl_alias_skin(m, 1, 0.39)[31], 0);
    CHECK_EQ(mdl_alias_skin(m, 0, 0.15)[0], 80);
    CHECK_EQ(mdl_alias_skin(m, 7, 0.15)[0], 80); /* out of range: skin 0 */
    for (size_t cut = 84; cut < 84 + 4 + 32 + 16 + 64; cut++) {
        mdl_alias *c = NULL;
        CHECK_MSG(mdl_alias_load(d, cut, "group.mdl", NULL, &c, &err) != QD_OK && !c,
                  "cut %zu", cut);
    }
    mdl_alias_free(m);
    free(d);
}

#define W 160
#define H 120

static qd_err read_assets(void *ctx, const char *name, uint8_t **data, size_t *len,
                          qd_error *err)
{
    (void)ctx;
    const char *path = strcmp(name, "maps/e1m1.bsp") == 0        ? "assets/maps/e1m1.bsp"
                       : strcmp(name, "progs/player.mdl") == 0   ? "assets/progs/player.mdl"
                       : strcmp(name, "gfx/colormap.lmp") == 0   ? "assets/gfx/colormap.lmp"
                                                                 : NULL;
    if (!path || !(*data = test_read_file(path, len)))
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
    return QD_OK;
}

/* The player model 64 units in front of e1m1's start with fx, textured: the mean of
 * (blue - red) and of (red - blue) over the pixels that differ from the empty view. */
static void glow_shot(uint16_t fx, double *blue_over, double *red_over, int *n)
{
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    snprintf(cl->level.map, sizeof cl->level.map, "maps/e1m1.bsp");
    cl_set_model(cl, 1, "maps/e1m1.bsp");
    cl_set_model(cl, 2, "progs/player.mdl");
    size_t plen = 0;
    uint8_t *pl = test_read_file("assets/palette.lmp", &plen);
    uint32_t pal[256];
    if (!pl || !mdl_palette_from_lmp(pl, plen, pal))
        mdl_palette_grey(pal);
    free(pl);
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_assets, NULL, pal, &err);
    r_camera cam = {.origin = {480, -352, 110}, .angles = {0, 90, 0}, .fov = 90};
    r_options o = {.mode = R_MODE_TEXTURED};
    rast_fb *bare = rast_fb_new(W, H), *with = rast_fb_new(W, H);
    r_render(a, cl, 0, &cam, &o, bare);
    cl_frame_begin(cl, 0);
    cl_entstate s;
    memset(&s, 0, sizeof s);
    s.origin[0] = 480;
    s.origin[1] = -352 + 64;
    s.origin[2] = 110 - 22;
    s.angles[1] = 270;
    s.model = 2;
    s.fx = fx;
    cl_entity_update(cl, 1, &s);
    cl_frame_end(cl, 1);
    r_render(a, cl, 0, &cam, &o, with);
    *blue_over = *red_over = 0;
    *n = 0;
    for (int i = 0; i < W * H; i++) {
        uint32_t c = with->color[i];
        if (c == bare->color[i])
            continue;
        int r = (int)(c & 255), b = (int)(c >> 16 & 255);
        *blue_over += b - r;
        *red_over += r - b;
        ++*n;
    }
    if (*n) {
        *blue_over /= *n;
        *red_over /= *n;
    }
    rast_fb_free(bare);
    rast_fb_free(with);
    r_assets_free(a);
    free(cl);
}

/* Quad damage pulls the model's colours half way to blue, the pentagram half way to red:
 * the mean blue-over-red of the model's pixels grows by well over 50 (half of a 255 - 48
 * tint gap, less the light), red-over-blue likewise for the pentagram. */
TEST(mdl_quad_and_pent_tint)
{
    size_t len = 0;
    uint8_t *probe = test_read_file("assets/progs/player.mdl", &len);
    if (!probe)
        SKIP("run from the project root (assets/progs/player.mdl)");
    free(probe);
    double b0, r0, bq, rq, bp, rp;
    int n0, nq, np;
    glow_shot(0, &b0, &r0, &n0);
    glow_shot(CL_FX_GLOW_BLUE, &bq, &rq, &nq);
    glow_shot(CL_FX_GLOW_RED, &bp, &rp, &np);
    CHECK_MSG(n0 > 300 && nq > 300 && np > 300, "%d %d %d pixels", n0, nq, np);
    CHECK_MSG(bq - b0 > 50, "blue over red %.1f -> %.1f", b0, bq);
    CHECK_MSG(rp - r0 > 50, "red over blue %.1f -> %.1f", r0, rp);
}
