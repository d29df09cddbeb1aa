/* test_render_hostile.c: hostile input against the render front end and the rasteriser:
 * polygons whose clipped form would outgrow the clippers' buffers (issue #9). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"
#include "../../src/render/render.h"
#include "../memread.h"
#include "../test.h"

uint8_t *test_bsp_build_polys(const float (*pts)[3], const int *counts, const uint8_t *color,
                             const uint8_t *light, int n, const char *extra_ents, int fmt,
                             size_t *len);

#define COMB 1024 /* MDL_BSP_MAX_FACE_VERTS: the most edges a face may have */

/* A floor face at z = -16 of COMB corners: a saw whose 1022 teeth run along y from -128 to
 * 128 with their points alternately at x = -40 and x = 40, closed by a back at x = 60 (so it
 * winds clockwise seen from above, its drawn side). It is simple but not convex: the plane
 * x = 2 crosses every tooth. */
static void comb(float (*p)[3])
{
    const int teeth = COMB - 2;
    for (int i = 0; i < teeth; i++) {
        p[i][0] = i & 1 ? 40.0f : -40.0f;
        p[i][1] = -128.0f + 256.0f * (float)i / (float)(teeth - 1);
        p[i][2] = -16;
    }
    const float back[2][3] = {{60, 128, -16}, {60, -128, -16}};
    memcpy(p[teeth], back, sizeof back);
}

/* A convex floor face at z = -16 of COMB corners on a circle of radius 100 round (0, 0),
 * clockwise seen from above. */
static void disc(float (*p)[3])
{
    for (int i = 0; i < COMB; i++) {
        double a = -2 * 3.14159265358979 * i / COMB;
        p[i][0] = (float)(100 * cos(a));
        p[i][1] = (float)(100 * sin(a));
        p[i][2] = -16;
    }
}

/* Render a map of one polygon from cam; returns r_render's count, -1 when it did not load. */
static int render_one(const float (*pts)[3], int n, const r_camera *cam, rast_fb *fb)
{
    const uint8_t color = 80, light = 128;
    size_t len;
    uint8_t *bytes = test_bsp_build_polys(pts, &n, &color, &light, 1, NULL, 0, &len);
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    strcpy(cl->level.map, "maps/h.bsp");
    strcpy(cl->level.models[1], "maps/h.bsp");
    cl->level.num_models = 2;
    memread m = {.data = bytes, .size = len, .names = {"maps/h.bsp"}};
    qd_error err;
    r_assets *a = r_assets_load(&cl->level, memread_fn, &m, NULL, &err);
    int count = -1;
    if (a && r_assets_map(a))
        count = r_render(a, cl, 0, cam, NULL, fb);
    r_assets_free(a);
    free(cl);
    free(bytes);
    return count;
}

TEST(render_nonconvex_face_across_near_plane)
{
    /* Seen from the origin looking down +x, the near plane (x = 2) cuts all 1022 teeth:
     * clipping keeps the 511 points at x = 40, the back's 2 corners and a new point on each
     * of the 1023 edges that cross, 1536 in all, past what a face of at most 1024 edges
     * can become when convex (1024 + one per clip plane). The face is dropped whole. */
    float (*p)[3] = malloc(COMB * sizeof *p);
    comb(p);
    rast_fb *fb = rast_fb_new(32, 24);
    r_camera cam = {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90};
    CHECK_EQ(render_one((const float(*)[3])p, COMB, &cam, fb), 0);
    /* From above, wholly in view and in front: no clipping, so it is sent (as fans of at
     * most 64 corners: ceil(1022 / 62) pieces). */
    r_camera top = {.origin = {0, 0, 300}, .angles = {90, 0, 0}, .fov = 90};
    CHECK_EQ(render_one((const float(*)[3])p, COMB, &top, fb), (COMB - 2 + 61) / 62);
    rast_fb_free(fb);
    free(p);
}

TEST(render_convex_face_of_max_edges_clipped_by_every_plane)
{
    /* A convex face of 1024 corners seen from its centre, looking down at it at 45 degrees:
     * the near plane and all four guard-band sides cut it, each adding at most one corner,
     * so it stays within the clipper's bounds and is drawn: the centre pixel is covered. */
    float (*p)[3] = malloc(COMB * sizeof *p);
    disc(p);
    rast_fb *fb = rast_fb_new(32, 24);
    r_camera cam = {.origin = {0, 0, 0}, .angles = {45, 0, 0}, .fov = 90};
    CHECK(render_one((const float(*)[3])p, COMB, &cam, fb) > 0);
    CHECK(fb->depth[12 * 32 + 16] > 0);
    rast_fb_free(fb);
    free(p);
}

TEST(rast_nonconvex_polygon_past_guard_dropped)
{
    /* 64 corners zig-zagging across x = -2^20 (the rasteriser's guard): 32 inside, 32 at
     * x = -2e6, 63 crossing edges. Clipping would make 95 corners, past the 72 it has room
     * for: the polygon is dropped, nothing drawn (and nothing written past the buffer). A
     * convex polygon reaching as far is clipped and drawn. */
    rast_vert v[64];
    for (int i = 0; i < 64; i++) {
        v[i].x = i & 1 ? 30.0f : -2e6f;
        v[i].y = 24.0f * (float)i / 63.0f;
        v[i].z = 1;
    }
    const rast_vert tri[3] = {{-2e6f, 0, 1}, {30, 0, 1}, {30, 24, 1}};
    for (int convex = 0; convex < 2; convex++) {
        rast_fb *fb = rast_fb_new(32, 24);
        rast_clear(fb, 0);
        if (convex)
            rast_polygon(fb, tri, 3, rast_rgb(255, 0, 0), RAST_OPAQUE);
        else
            rast_polygon(fb, v, 64, rast_rgb(255, 0, 0), RAST_OPAQUE);
        size_t covered = 0;
        for (int i = 0; i < 32 * 24; i++)
            covered += fb->depth[i] > 0;
        rast_fb_free(fb);
        if (convex)
            CHECK(covered > 0);
        else
            CHECK_EQ(covered, 0);
    }
}
