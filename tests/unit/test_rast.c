/* test_rast.c: the rasteriser: fill rule, depth, clipping, hostile floats, lines, determinism. */
#include "../test.h"

#include "../../src/render/rast.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t lcg_next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A float in [lo, hi) on the 1/256 grid, so snapping to 24.8 fixed point is exact. */
static float lcg_grid(uint32_t *s, int lo, int hi)
{
    return (float)((double)lo + (double)(lcg_next(s) % (uint32_t)((hi - lo) * 256)) / 256.0);
}

static rast_vert vtx(float x, float y, float z)
{
    rast_vert v = {x, y, z};
    return v;
}

/* Coverage counter: white at alpha 128 blended over black gives 0, 128, 192, 224 for
 * 0, 1, 2, 3 layers. */
#define COUNT_COLOR 0x80ffffffu
static int layers(uint32_t px)
{
    switch (px & 255) {
    case 0:
        return 0;
    case 128:
        return 1;
    case 192:
        return 2;
    default:
        return 3;
    }
}

static void tri(rast_fb *fb, rast_vert a, rast_vert b, rast_vert c, uint32_t col, unsigned fl)
{
    rast_vert v[3] = {a, b, c};
    rast_triangle(fb, v, col, fl);
}

static int count_nonzero(const rast_fb *fb, uint32_t bg)
{
    int n = 0;
    for (int i = 0; i < fb->w * fb->h; i++)
        n += fb->color[i] != bg;
    return n;
}

TEST(rast_fb_limits)
{
    CHECK(rast_fb_new(0, 10) == NULL);
    CHECK(rast_fb_new(10, 0) == NULL);
    CHECK(rast_fb_new(-5, 10) == NULL);
    CHECK(rast_fb_new(16385, 1) == NULL);
    CHECK(rast_fb_new(1, 16385) == NULL);
    rast_fb *fb = rast_fb_new(3, 2);
    CHECK(fb != NULL);
    rast_clear(fb, rast_rgb(1, 2, 3));
    CHECK_EQ(fb->color[5], rast_rgb(1, 2, 3));
    CHECK(fb->depth[5] == 0.0f);
    rast_fb_free(fb);
    rast_fb_free(NULL);
}

/* A rectangle split along either diagonal covers each pixel whose centre is inside exactly
 * once: left/top edges inclusive, right/bottom exclusive. */
TEST(rast_quad_covers_once)
{
    rast_fb *fb = rast_fb_new(64, 48);
    CHECK(fb != NULL);
    for (int diag = 0; diag < 4; diag++) {
        /* the second pair has its edges through pixel centres */
        const float x0 = diag < 2 ? 10.25f : 10.5f, y0 = diag < 2 ? 7.25f : 7.5f;
        const float x1 = diag < 2 ? 50.75f : 50.5f, y1 = diag < 2 ? 40.125f : 40.5f;
        rast_clear(fb, 0);
        rast_vert a = vtx(x0, y0, 1), b = vtx(x1, y0, 1), c = vtx(x1, y1, 1), d = vtx(x0, y1, 1);
        if (diag % 2 == 0) {
            tri(fb, a, b, c, COUNT_COLOR, RAST_BLEND);
            tri(fb, a, c, d, COUNT_COLOR, RAST_BLEND);
        } else {
            tri(fb, b, d, a, COUNT_COLOR, RAST_BLEND); /* other winding too */
            tri(fb, b, c, d, COUNT_COLOR, RAST_BLEND);
        }
        for (int y = 0; y < fb->h; y++)
            for (int x = 0; x < fb->w; x++) {
                int in = x + 0.5f >= x0 && x + 0.5f < x1 && y + 0.5f >= y0 && y + 0.5f < y1;
                CHECK_MSG(layers(fb->color[y * fb->w + x]) == in, "diag %d pixel %d,%d: %d layers",
                          diag, x, y, layers(fb->color[y * fb->w + x]));
            }
    }
    rast_fb_free(fb);
}

/* A jittered grid of quads, random diagonals and windings: no pixel twice, none missed. */
TEST(rast_mesh_no_cracks_no_overlap)
{
    enum { N = 12, W = 200, H = 150 };
    rast_fb *fb = rast_fb_new(W, H);
    CHECK(fb != NULL);
    uint32_t s = 12345;
    for (int round = 0; round < 20; round++) {
        rast_clear(fb, 0);
        rast_vert g[N + 1][N + 1];
        for (int j = 0; j <= N; j++)
            for (int i = 0; i <= N; i++) {
                float x = 4 + i * 15.0f, y = 3 + j * 11.5f;
                if (i > 0 && i < N && j > 0 && j < N) { /* outline stays a rectangle */
                    x += (float)((int)(lcg_next(&s) % 2048) - 1024) / 256.0f;
                    y += (float)((int)(lcg_next(&s) % 1536) - 768) / 256.0f;
                    x += (float)(lcg_next(&s) % 1000) * 1e-4f; /* off the 1/256 grid */
                }
                g[j][i] = vtx(x, y, 1);
            }
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                rast_vert a = g[j][i], b = g[j][i + 1], c = g[j + 1][i + 1], d = g[j + 1][i];
                if (lcg_next(&s) & 1) {
                    tri(fb, a, b, c, COUNT_COLOR, RAST_BLEND);
                    if (lcg_next(&s) & 1)
                        tri(fb, a, c, d, COUNT_COLOR, RAST_BLEND);
                    else
                        tri(fb, d, c, a, COUNT_COLOR, RAST_BLEND);
                } else {
                    tri(fb, b, c, d, COUNT_COLOR, RAST_BLEND);
                    tri(fb, d, a, b, COUNT_COLOR, RAST_BLEND);
                }
            }
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                float cx = x + 0.5f, cy = y + 0.5f;
                int in = cx >= 4 && cx < 4 + N * 15 && cy >= 3 && cy < 3 + N * 11.5f;
                int got = layers(fb->color[y * W + x]);
                CHECK_MSG(got == in, "round %d pixel %d,%d: %d layers", round, x, y, got);
            }
    }
    rast_fb_free(fb);
}

/* Convex polygons sharing edges, some with an extra vertex in the middle of a shared edge,
 * pushed a hair off the line so that one neighbour has a nearly straight reflex corner. */
TEST(rast_polygon_mesh_no_cracks_no_overlap)
{
    enum { N = 10, W = 200, H = 150 };
    rast_fb *fb = rast_fb_new(W, H);
    CHECK(fb != NULL);
    uint32_t s = 4242;
    for (int round = 0; round < 20; round++) {
        rast_clear(fb, 0);
        rast_vert g[N + 1][N + 1], hm[N + 1][N];
        int has[N + 1][N];
        for (int j = 0; j <= N; j++)
            for (int i = 0; i <= N; i++) {
                float x = 5 + i * 18.0f, y = 4 + j * 13.5f;
                if (i > 0 && i < N && j > 0 && j < N) {
                    x += (float)((int)(lcg_next(&s) % 1024) - 512) / 256.0f;
                    y += (float)((int)(lcg_next(&s) % 768) - 384) / 256.0f;
                }
                g[j][i] = vtx(x, y, 0.5f);
            }
        for (int j = 0; j <= N; j++)
            for (int i = 0; i < N; i++) {
                has[j][i] = j > 0 && j < N && lcg_next(&s) % 3 == 0;
                float nudge = (float)((int)(lcg_next(&s) % 5) - 2) / 512.0f;
                hm[j][i] = vtx((g[j][i].x + g[j][i + 1].x) / 2,
                               (g[j][i].y + g[j][i + 1].y) / 2 + nudge, 0.5f);
            }
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                rast_vert p[6];
                int n = 0;
                p[n++] = g[j][i];
                if (has[j][i])
                    p[n++] = hm[j][i];
                p[n++] = g[j][i + 1];
                p[n++] = g[j + 1][i + 1];
                if (has[j + 1][i])
                    p[n++] = hm[j + 1][i];
                p[n++] = g[j + 1][i];
                if (lcg_next(&s) & 1) /* either winding */
                    for (int k = 0; k < n / 2; k++) {
                        rast_vert t = p[k];
                        p[k] = p[n - 1 - k];
                        p[n - 1 - k] = t;
                    }
                rast_polygon(fb, p, n, COUNT_COLOR, RAST_BLEND);
            }
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                float cx = x + 0.5f, cy = y + 0.5f;
                int in = cx >= 5 && cx < 5 + N * 18 && cy >= 4 && cy < 4 + N * 13.5f;
                int got = layers(fb->color[y * W + x]);
                CHECK_MSG(got == in, "round %d pixel %d,%d: %d layers", round, x, y, got);
            }
    }
    rast_fb_free(fb);
}

/* The definition, pixel by pixel: all three edge functions at the centre > 0, or == 0 on a
 * top edge (horizontal, inside below) or a left edge (inside to its right). */
static int ref_inside(const rast_vert v[3], int px, int py)
{
    int64_t X[3], Y[3];
    for (int i = 0; i < 3; i++) {
        X[i] = (int64_t)floor(v[i].x * 256.0 + 0.5);
        Y[i] = (int64_t)floor(v[i].y * 256.0 + 0.5);
    }
    int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (Y[1] - Y[0]) * (X[2] - X[0]);
    if (area == 0)
        return 0;
    int64_t sgn = area > 0 ? 1 : -1;
    int64_t cx = px * 256 + 128, cy = py * 256 + 128;
    for (int e = 0; e < 3; e++) {
        int i = e, j = (e + 1) % 3;
        int64_t E = sgn * ((X[j] - X[i]) * (cy - Y[i]) - (Y[j] - Y[i]) * (cx - X[i]));
        int64_t A = -sgn * (Y[j] - Y[i]), B = sgn * (X[j] - X[i]);
        int tl = A > 0 || (A == 0 && B > 0);
        if (E < 0 || (E == 0 && !tl))
            return 0;
    }
    return 1;
}

TEST(rast_matches_reference_fill_rule)
{
    enum { W = 90, H = 70 };
    rast_fb *fb = rast_fb_new(W, H);
    CHECK(fb != NULL);
    uint32_t s = 777;
    for (int t = 0; t < 2000; t++) {
        rast_clear(fb, 0);
        rast_vert v[3];
        int span = t % 3 == 0 ? 20 : 130; /* small ones, and ones that cross the edges */
        for (int i = 0; i < 3; i++) {
            v[i] = vtx(lcg_grid(&s, -20, -20 + span), lcg_grid(&s, -20, -20 + span), 1);
            if (t % 5 == 0 && i == 1) /* exact horizontal and vertical edges */
                v[i].y = v[0].y;
            if (t % 3 == 0 && i == 2)
                v[i].x = v[1].x;
            if (t % 2 == 0) { /* centres exactly on edges */
                v[i].x = floorf(v[i].x) + 0.5f;
                v[i].y = floorf(v[i].y) + 0.5f;
            }
        }
        rast_triangle(fb, v, 0xffffffffu, RAST_COLOR_WRITE);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int want = ref_inside(v, x, y), got = fb->color[y * W + x] != 0;
                CHECK_MSG(want == got, "tri %d (%g,%g %g,%g %g,%g) pixel %d,%d: want %d got %d",
                          t, v[0].x, v[0].y, v[1].x, v[1].y, v[2].x, v[2].y, x, y, want, got);
            }
    }
    rast_fb_free(fb);
}

TEST(rast_depth_order_independent)
{
    rast_fb *a = rast_fb_new(40, 30), *b = rast_fb_new(40, 30);
    CHECK(a && b);
    rast_vert nearq[4] = {vtx(5, 5, 0.5f), vtx(30, 5, 0.5f), vtx(30, 25, 0.5f), vtx(5, 25, 0.5f)};
    rast_vert farq[4] = {vtx(0, 0, 0.1f), vtx(40, 0, 0.1f), vtx(40, 30, 0.1f), vtx(0, 30, 0.1f)};
    uint32_t red = rast_rgb(255, 0, 0), blue = rast_rgb(0, 0, 255);
    rast_clear(a, 0);
    rast_clear(b, 0);
    rast_polygon(a, nearq, 4, red, RAST_OPAQUE);
    rast_polygon(a, farq, 4, blue, RAST_OPAQUE);
    rast_polygon(b, farq, 4, blue, RAST_OPAQUE);
    rast_polygon(b, nearq, 4, red, RAST_OPAQUE);
    CHECK(memcmp(a->color, b->color, 40 * 30 * 4) == 0);
    CHECK(memcmp(a->depth, b->depth, 40 * 30 * 4) == 0);
    CHECK_EQ(a->color[10 * 40 + 10], red);
    CHECK_EQ(a->color[2 * 40 + 2], blue);
    CHECK(a->depth[10 * 40 + 10] == 0.5f);
    /* Without a depth write nothing is stored; without a test the far one paints over. */
    rast_polygon(a, farq, 4, rast_rgb(0, 255, 0), RAST_DEPTH_TEST | RAST_COLOR_WRITE);
    CHECK_EQ(a->color[10 * 40 + 10], red);
    rast_polygon(a, farq, 4, rast_rgb(0, 255, 0), RAST_COLOR_WRITE);
    CHECK_EQ(a->color[10 * 40 + 10], rast_rgb(0, 255, 0));
    CHECK(a->depth[10 * 40 + 10] == 0.5f);
    rast_fb_free(a);
    rast_fb_free(b);
}

/* Inverse depth is affine in screen space: check it against the barycentric value, and
 * that two interpenetrating triangles cross where their planes do. */
TEST(rast_depth_interpolated)
{
    enum { W = 64, H = 64 };
    rast_fb *fb = rast_fb_new(W, H);
    CHECK(fb != NULL);
    rast_clear(fb, 0);
    rast_vert v[3] = {vtx(0, 0, 1.0f), vtx(64, 0, 0.5f), vtx(0, 64, 0.25f)};
    rast_triangle(fb, v, rast_rgb(9, 9, 9), RAST_OPAQUE);
    for (int y = 0; y < H; y++)
        for (int x = 0; x + y < 63; x++) {
            double u = (x + 0.5) / 64.0, w = (y + 0.5) / 64.0;
            double want = 1.0 + u * (0.5 - 1.0) + w * (0.25 - 1.0);
            CHECK_MSG(fabs(fb->depth[y * W + x] - want) < 1e-5, "depth at %d,%d: %g vs %g", x, y,
                      fb->depth[y * W + x], want);
        }
    /* A plane tilted in x: z from 0.2 (left) to 0.8 (right), against a flat one at 0.5. */
    rast_clear(fb, 0);
    rast_vert flat[4] = {vtx(0, 0, 0.5f), vtx(64, 0, 0.5f), vtx(64, 64, 0.5f), vtx(0, 64, 0.5f)};
    rast_vert tilt[4] = {vtx(0, 0, 0.2f), vtx(64, 0, 0.8f), vtx(64, 64, 0.8f), vtx(0, 64, 0.2f)};
    uint32_t red = rast_rgb(255, 0, 0), blue = rast_rgb(0, 0, 255);
    rast_polygon(fb, flat, 4, red, RAST_OPAQUE);
    rast_polygon(fb, tilt, 4, blue, RAST_OPAQUE);
    for (int y = 0; y < H; y++) {
        CHECK_EQ(fb->color[y * W + 10], red);
        CHECK_EQ(fb->color[y * W + 31], red); /* z(31.5) = 0.4953 */
        CHECK_EQ(fb->color[y * W + 32], blue); /* z(32.5) = 0.5047 */
        CHECK_EQ(fb->color[y * W + 60], blue);
    }
    rast_fb_free(fb);
}

TEST(rast_offscreen_and_degenerate)
{
    enum { W = 50, H = 40 };
    rast_fb *fb = rast_fb_new(W, H);
    CHECK(fb != NULL);
    rast_clear(fb, 0);
    uint32_t c = rast_rgb(1, 1, 1);
    tri(fb, vtx(-30, -30, 1), vtx(-1, -30, 1), vtx(-1, -1, 1), c, RAST_OPAQUE);
    tri(fb, vtx(60, 5, 1), vtx(80, 5, 1), vtx(70, 30, 1), c, RAST_OPAQUE);
    tri(fb, vtx(5, 41, 1), vtx(45, 41, 1), vtx(25, 90, 1), c, RAST_OPAQUE);
    tri(fb, vtx(5, 5, 1), vtx(20, 20, 1), vtx(35, 35, 1), c, RAST_OPAQUE);  /* collinear */
    tri(fb, vtx(7, 7, 1), vtx(7, 7, 1), vtx(7, 7, 1), c, RAST_OPAQUE);      /* a point */
    tri(fb, vtx(5, 5.5f, 1), vtx(40, 5.5f, 1), vtx(20, 5.5f, 1), c, RAST_OPAQUE);
    tri(fb, vtx(3.6f, 3.6f, 1), vtx(4.4f, 3.6f, 1), vtx(4, 4.4f, 1), c, RAST_OPAQUE); /* tiny */
    rast_vert two[2] = {vtx(1, 1, 1), vtx(9, 9, 1)};
    rast_polygon(fb, two, 2, c, RAST_OPAQUE);
    rast_polygon(fb, two, 65, c, RAST_OPAQUE);
    CHECK_EQ(count_nonzero(fb, 0), 0);

    /* Huge coordinates: one triangle that holds the whole screen fills every pixel once. */
    tri(fb, vtx(-1e30f, -1e30f, 1), vtx(3e30f, -1e30f, 1), vtx(-1e30f, 3e30f, 1), COUNT_COLOR,
        RAST_BLEND);
    for (int i = 0; i < W * H; i++)
        CHECK_EQ(layers(fb->color[i]), 1);
    /* ...and one far vertex: the visible part follows the true edge y = x / 2 + 10. */
    rast_clear(fb, 0);
    tri(fb, vtx(0, 10, 1), vtx(2e9f, 1e9f + 10, 1), vtx(0, 1e9f, 1), c, RAST_COLOR_WRITE);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double cx = x + 0.5, cy = y + 0.5, e = cy - (cx / 2 + 10);
            if (fabs(e) > 0.01)
                CHECK_MSG((fb->color[y * W + x] != 0) == (e > 0), "far vertex pixel %d,%d", x, y);
        }
    rast_fb_free(fb);
}

TEST(rast_hostile_floats)
{
    rast_fb *fb = rast_fb_new(32, 32);
    CHECK(fb != NULL);
    rast_clear(fb, 0);
    const float bad[] = {NAN, INFINITY, -INFINITY, 3.4e38f, -3.4e38f, 1e-45f, 0.0f, -0.0f};
    const int nb = (int)(sizeof bad / sizeof bad[0]);
    int k = 0;
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < 9; j++) {
            rast_vert v[3] = {vtx(4, 4, 1), vtx(28, 6, 0.5f), vtx(10, 28, 0.25f)};
            rast_vert *p = &v[j / 3];
            if (j % 3 == 0)
                p->x = bad[i];
            else if (j % 3 == 1)
                p->y = bad[i];
            else
                p->z = bad[i];
            rast_triangle(fb, v, rast_rgb(200, 0, 0), RAST_OPAQUE);
            rast_polygon(fb, v, 3, rast_rgb(0, 200, 0), RAST_DEPTH_TEST | RAST_BLEND);
            rast_line(fb, v[0], v[1], rast_rgb(0, 0, 200), RAST_OPAQUE);
            rast_line(fb, v[1], v[2], rast_rgb(0, 0, 200), RAST_COLOR_WRITE);
            k++;
        }
    CHECK_EQ(k, nb * 9);
    /* a triangle with a corner at NaN or infinity on screen covers nothing */
    for (int i = 0; i < 3; i++)
        for (int axis = 0; axis < 2; axis++) {
            rast_fb *one = rast_fb_new(32, 32);
            CHECK(one);
            rast_clear(one, 0);
            rast_vert v[3] = {vtx(4, 4, 1), vtx(28, 6, 0.5f), vtx(10, 28, 0.25f)};
            if (axis)
                v[1].y = bad[i];
            else
                v[1].x = bad[i];
            rast_triangle(one, v, rast_rgb(200, 0, 0), RAST_OPAQUE);
            int drawn = 0;
            for (int p = 0; p < 32 * 32; p++)
                drawn += one->color[p] != 0;
            rast_fb_free(one);
            CHECK_MSG(drawn == 0, "corner %s at %g: %d pixels", axis ? "y" : "x", bad[i], drawn);
        }
    /* Nothing non-finite got into the depth buffer. */
    for (int i = 0; i < 32 * 32; i++)
        CHECK(isfinite(fb->depth[i]));
    /* Slivers with wild depth slopes keep z within their vertices' range. */
    rast_clear(fb, 0);
    tri(fb, vtx(0, 0, 1e-30f), vtx(32, 0.001f, 3e38f), vtx(0, 0.002f, 1), 1, RAST_OPAQUE);
    tri(fb, vtx(0, 3, 1e-30f), vtx(32, 30, 3e38f), vtx(0.0001f, 3, 1), 1, RAST_OPAQUE);
    for (int i = 0; i < 32 * 32; i++)
        CHECK(isfinite(fb->depth[i]) && fb->depth[i] >= 0);
    rast_fb_free(fb);
}

TEST(rast_lines)
{
    enum { W = 40, H = 30 };
    rast_fb *fb = rast_fb_new(W, H);
    CHECK(fb != NULL);
    rast_clear(fb, 0);
    uint32_t c = rast_rgb(255, 255, 255);
    rast_line(fb, vtx(2.5f, 2.5f, 1), vtx(10.5f, 5.5f, 1), c, RAST_COLOR_WRITE);
    CHECK_EQ(fb->color[2 * W + 2], c);
    CHECK_EQ(fb->color[5 * W + 10], c);
    CHECK_EQ(count_nonzero(fb, 0), 9); /* x-major: one pixel per column */
    rast_clear(fb, 0);
    rast_line(fb, vtx(20.5f, 3.5f, 1), vtx(20.5f, 3.5f, 1), c, RAST_COLOR_WRITE);
    CHECK_EQ(count_nonzero(fb, 0), 1);
    /* Clipped: a line a billion pixels long covers one row, a steep one one column. */
    rast_clear(fb, 0);
    rast_line(fb, vtx(-1e9f, 7.5f, 1), vtx(1e9f, 7.5f, 1), c, RAST_COLOR_WRITE);
    rast_line(fb, vtx(12.5f, 3e38f, 1), vtx(12.5f, -3e38f, 1), c, RAST_COLOR_WRITE);
    CHECK_EQ(count_nonzero(fb, 0), W + H - 1);
    for (int x = 0; x < W; x++)
        CHECK_EQ(fb->color[7 * W + x], c);
    rast_clear(fb, 0);
    rast_line(fb, vtx(-10, -10, 1), vtx(-1, 50, 1), c, RAST_COLOR_WRITE);
    rast_line(fb, vtx(41, -5, 1), vtx(1e6f, 1e6f, 1), c, RAST_COLOR_WRITE);
    rast_line(fb, vtx(NAN, 5, 1), vtx(10, 5, 1), c, RAST_COLOR_WRITE);
    CHECK_EQ(count_nonzero(fb, 0), 0);
    /* A diagonal across the screen is continuous: one pixel in every row and column. */
    rast_line(fb, vtx(-100, -75, 1), vtx(140, 105, 1), c, RAST_COLOR_WRITE);
    CHECK_EQ(count_nonzero(fb, 0), W);
    /* Depth-tested outlines show on their own tilted face, not through a nearer one. */
    rast_clear(fb, 0);
    rast_vert f[4] = {vtx(5, 5, 0.2f), vtx(35, 5, 0.6f), vtx(35, 25, 0.6f), vtx(5, 25, 0.2f)};
    rast_polygon(fb, f, 4, rast_rgb(0, 0, 80), RAST_OPAQUE);
    for (int i = 0; i < 4; i++)
        rast_line(fb, f[i], f[(i + 1) % 4], c, RAST_DEPTH_TEST | RAST_COLOR_WRITE);
    int edge = 0;
    for (int x = 5; x <= 34; x++)
        edge += fb->color[5 * W + x] == c;
    CHECK_EQ(edge, 30);
    rast_vert occ[4] = {vtx(0, 0, 0.9f), vtx(40, 0, 0.9f), vtx(40, 30, 0.9f), vtx(0, 30, 0.9f)};
    rast_polygon(fb, occ, 4, rast_rgb(80, 0, 0), RAST_OPAQUE);
    for (int i = 0; i < 4; i++)
        rast_line(fb, f[i], f[(i + 1) % 4], c, RAST_DEPTH_TEST | RAST_COLOR_WRITE);
    CHECK_EQ(count_nonzero(fb, rast_rgb(80, 0, 0)), 0);
    rast_fb_free(fb);
}

/* A floor seen at a grazing angle: depth changes by several percent per pixel near its far
 * edge, more than any fixed relative bias covers. Its outline still shows in full, and
 * still hides behind something nearer. */
TEST(rast_polygon_outline_on_steep_face)
{
    enum { W = 120, H = 60 };
    rast_fb *fb = rast_fb_new(W, H);
    CHECK(fb != NULL);
    uint32_t c = rast_rgb(255, 255, 255), floorc = rast_rgb(90, 70, 50);
    rast_vert fl[4] = {vtx(0, 59, 0.9f), vtx(120, 59, 0.9f), vtx(100, 20, 0.05f),
                       vtx(20, 20, 0.05f)};
    for (int pass = 0; pass < 2; pass++) {
        rast_clear(fb, 0);
        rast_polygon(fb, fl, 4, floorc, RAST_OPAQUE);
        if (pass == 1) { /* an occluder just in front of the whole floor */
            rast_vert occ[4] = {vtx(0, 0, 0.95f), vtx(120, 0, 0.95f), vtx(120, 60, 0.95f),
                                vtx(0, 60, 0.95f)};
            rast_polygon(fb, occ, 4, rast_rgb(0, 80, 0), RAST_OPAQUE);
        }
        rast_polygon_outline(fb, fl, 4, c, RAST_DEPTH_TEST | RAST_COLOR_WRITE);
        int far = 0;
        for (int x = 20; x <= 99; x++)
            far += fb->color[20 * W + x] == c;
        if (pass == 0)
            CHECK_EQ(far, 80);
        else
            CHECK_EQ(count_nonzero(fb, rast_rgb(0, 80, 0)), 0);
    }
    /* Hostile input draws nothing and does not crash. */
    rast_vert bad[3] = {vtx(1, 1, NAN), vtx(5, 5, 1), vtx(1, 9, 1)};
    rast_clear(fb, 0);
    rast_polygon_outline(fb, bad, 3, c, RAST_OPAQUE);
    rast_vert edge_on[3] = {vtx(1, 1, 0.1f), vtx(50, 50, 0.9f), vtx(25, 25, 0.5f)};
    rast_polygon_outline(fb, edge_on, 3, c, RAST_DEPTH_TEST | RAST_COLOR_WRITE);
    rast_polygon_outline(fb, fl, 65, c, RAST_OPAQUE);
    CHECK(count_nonzero(fb, 0) > 0 && count_nonzero(fb, 0) < 60);
    rast_fb_free(fb);
}

static void draw_scene(rast_fb *fb, int y0, int y1, uint32_t seed)
{
    uint32_t s = seed;
    for (int i = 0; i < 400; i++) {
        rast_vert v[5];
        float cx = lcg_grid(&s, -40, 360), cy = lcg_grid(&s, -40, 280);
        float r = 2 + (float)(lcg_next(&s) % 6000) / 100.0f;
        for (int k = 0; k < 5; k++) { /* a convex pentagon, z tilted */
            float a = (float)k * 1.2566371f + (float)(lcg_next(&s) % 100) * 0.001f;
            v[k] = vtx(cx + r * cosf(a), cy + r * sinf(a),
                       0.01f + (float)(lcg_next(&s) % 1000) / 1000.0f);
        }
        uint32_t col = lcg_next(&s) | 0xff000000u;
        unsigned fl = i % 10 == 9 ? (RAST_DEPTH_TEST | RAST_BLEND) : RAST_OPAQUE;
        if (i % 10 == 9)
            col = (col & 0xffffffu) | 0x60000000u;
        rast_polygon_rows(fb, v, 5, col, fl, y0, y1);
        rast_line_rows(fb, v[0], v[2], 0xffffffffu, RAST_DEPTH_TEST | RAST_COLOR_WRITE, y0, y1);
    }
}

/* Same calls, same bytes; and bands of rows drawn separately build the same frame. */
TEST(rast_deterministic)
{
    rast_fb *a = rast_fb_new(320, 240), *b = rast_fb_new(320, 240);
    CHECK(a && b);
    rast_clear(a, 0);
    rast_clear(b, 0);
    draw_scene(a, 0, 240, 99);
    draw_scene(b, 0, 240, 99);
    CHECK(memcmp(a->color, b->color, 320 * 240 * 4) == 0);
    CHECK(memcmp(a->depth, b->depth, 320 * 240 * 4) == 0);
    CHECK(count_nonzero(a, 0) > 320 * 240 / 2);
    rast_clear(b, 0);
    const int bands[] = {0, 37, 38, 120, 239, 240};
    for (int i = 0; i + 1 < 6; i++)
        draw_scene(b, bands[i], bands[i + 1], 99);
    CHECK(memcmp(a->color, b->color, 320 * 240 * 4) == 0);
    CHECK(memcmp(a->depth, b->depth, 320 * 240 * 4) == 0);
    rast_fb_free(a);
    rast_fb_free(b);
}

/* RAST_COVER: a covering fill's pixels are skipped by every later covering fill of the same
 * rows, even a nearer one (the caller promises nearest first), until rast_cover_reset; the
 * uncovered rest of a span is drawn with its depth continued along the span. */
TEST(rast_cover_skips_what_was_drawn)
{
    rast_fb *fb = rast_fb_new(40, 30);
    CHECK(fb);
    if (!fb)
        return;
    rast_clear(fb, 0);
    rast_cover_reset(fb, 0, 30);
    uint32_t red = rast_rgb(255, 0, 0), blue = rast_rgb(0, 0, 255), green = rast_rgb(0, 255, 0);
    /* columns 10..19, then a nearer quad over columns 0..39: only 0..9 and 20..39 drawn */
    rast_vert a[4] = {vtx(10, 0, 0.2f), vtx(20, 0, 0.2f), vtx(20, 30, 0.2f), vtx(10, 30, 0.2f)};
    rast_vert b[4] = {vtx(0, 0, 0.5f), vtx(40, 0, 0.5f), vtx(40, 30, 0.5f), vtx(0, 30, 0.5f)};
    rast_polygon(fb, a, 4, red, RAST_OPAQUE | RAST_COVER);
    rast_polygon(fb, b, 4, blue, RAST_OPAQUE | RAST_COVER);
    for (int y = 0; y < 30; y++)
        for (int x = 0; x < 40; x++) {
            int in = x >= 10 && x < 20;
            CHECK_MSG(fb->color[y * 40 + x] == (in ? red : blue), "(%d, %d)", x, y);
            CHECK(fb->depth[y * 40 + x] == (in ? 0.2f : 0.5f));
        }
    /* a depth ramp continues across the skipped part: z = 0.01 x at pixel centres */
    rast_cover_reset(fb, 0, 30);
    rast_clear(fb, 0);
    rast_vert c[4] = {vtx(10, 0, 0.1f), vtx(20, 0, 0.2f), vtx(20, 30, 0.2f), vtx(10, 30, 0.1f)};
    rast_vert d[4] = {vtx(0, 0, 0.0f + 1e-6f), vtx(40, 0, 0.4f), vtx(40, 30, 0.4f),
                      vtx(0, 30, 0.0f + 1e-6f)};
    rast_polygon(fb, c, 4, red, RAST_OPAQUE | RAST_COVER);
    rast_polygon(fb, d, 4, blue, RAST_OPAQUE | RAST_COVER);
    for (int x = 20; x < 40; x++)
        CHECK_MSG(fabsf(fb->depth[5 * 40 + x] - 0.01f * (x + 0.5f)) < 1e-5f, "x %d: %g", x,
                  (double)fb->depth[5 * 40 + x]);
    /* after a reset nothing is covered; without the flag, coverage is neither read nor made */
    rast_cover_reset(fb, 0, 30);
    rast_polygon(fb, b, 4, green, RAST_OPAQUE);
    rast_polygon(fb, b, 4, green, RAST_COLOR_WRITE | RAST_COVER);
    CHECK_EQ(fb->color[0], green);
    rast_fb_free(fb);
}

/* Many thin covering fills on one row: past the list's room a range stays uncovered, and the
 * depth test alone then decides, so the picture equals the depth buffer's. */
TEST(rast_cover_full_row_falls_back_to_depth)
{
    rast_fb *fb = rast_fb_new(200, 4), *ref = rast_fb_new(200, 4);
    CHECK(fb && ref);
    if (!fb || !ref) {
        rast_fb_free(fb);
        rast_fb_free(ref);
        return;
    }
    rast_clear(fb, 0);
    rast_clear(ref, 0);
    rast_cover_reset(fb, 0, 4);
    /* 60 one-pixel columns two apart (more ranges than a row keeps), nearest first, then a
     * far quad over all */
    for (int k = 0; k < 60; k++) {
        float x = (float)(2 * k + 1);
        rast_vert q[4] = {vtx(x, 0, 0.9f), vtx(x + 1, 0, 0.9f), vtx(x + 1, 4, 0.9f),
                          vtx(x, 4, 0.9f)};
        uint32_t col = rast_rgb((unsigned)k * 4, 100, 0);
        rast_polygon(fb, q, 4, col, RAST_OPAQUE | RAST_COVER);
        rast_polygon(ref, q, 4, col, RAST_OPAQUE);
    }
    rast_vert all[4] = {vtx(0, 0, 0.1f), vtx(200, 0, 0.1f), vtx(200, 4, 0.1f), vtx(0, 4, 0.1f)};
    rast_polygon(fb, all, 4, rast_rgb(0, 0, 255), RAST_OPAQUE | RAST_COVER);
    rast_polygon(ref, all, 4, rast_rgb(0, 0, 255), RAST_OPAQUE);
    CHECK(memcmp(fb->color, ref->color, 200 * 4 * 4) == 0);
    CHECK(memcmp(fb->depth, ref->depth, 200 * 4 * 4) == 0);
    rast_fb_free(fb);
    rast_fb_free(ref);
}

/* A 64 x 64 texture of distinct texels, clamped, its s and t planes at 1 texel a pixel from
 * (ox, oy), q 1: the lit walls' case (no wrap, no index, no light). */
static void wall_tex(rast_tex *tx, const uint32_t *texels, double ox, double oy)
{
    memset(tx, 0, sizeof *tx);
    tx->texels = texels;
    tx->w = tx->h = 64;
    tx->s[0] = 1, tx->s[2] = -ox;
    tx->t[1] = 1, tx->t[2] = -oy;
    tx->q[2] = 1;
}

/* A covering wall on fresh rows is written without reading the buffers (span_tex's RAST_FRESH
 * loop): the frame equals the one the plain depth-tested path draws. A plain opaque quad
 * drawn first (nearer, z 0.9) over rows 10..19 makes those rows "mixed": the covering wall
 * (z 0.5) drawn next must still lose to it there, and win elsewhere. */
TEST(rast_cover_fresh_rows_equal_the_tested_path)
{
    static uint32_t texels[64 * 64];
    for (int i = 0; i < 64 * 64; i++)
        texels[i] = rast_rgb((unsigned)(i * 7), (unsigned)(i >> 4), (unsigned)(i * 13));
    rast_tex tx;
    wall_tex(&tx, texels, 3, 2);
    rast_vert wall[4] = {{3, 2, 0.5f}, {61, 2, 0.5f}, {61, 50, 0.5f}, {3, 50, 0.5f}};
    rast_vert near[4] = {{0, 10, 0.9f}, {64, 10, 0.9f}, {64, 20, 0.9f}, {0, 20, 0.9f}};
    rast_fb *a = rast_fb_new(64, 64), *b = rast_fb_new(64, 64);
    CHECK(a && b);
    if (!a || !b)
        goto out;
    for (int pass = 0; pass < 2; pass++) {
        rast_clear(a, 0);
        rast_clear(b, 0);
        rast_cover_reset(a, 0, 64);
        if (pass) { /* the nearer plain quad first, in both */
            rast_polygon_rows(a, near, 4, rast_rgb(1, 2, 3), RAST_OPAQUE, 0, 64);
            rast_polygon_rows(b, near, 4, rast_rgb(1, 2, 3), RAST_OPAQUE, 0, 64);
        }
        rast_polygon_tex_rows(a, wall, 4, &tx, RAST_OPAQUE | RAST_COVER, 0, 64);
        rast_polygon_tex_rows(b, wall, 4, &tx, RAST_OPAQUE, 0, 64);
        int same = 1, walled = 0, hidden = 0;
        for (int i = 0; i < 64 * 64; i++) {
            same &= a->color[i] == b->color[i] && a->depth[i] == b->depth[i];
            walled += a->depth[i] == 0.5f;
            hidden += pass && i / 64 >= 10 && i / 64 < 20 && a->color[i] == rast_rgb(1, 2, 3);
        }
        CHECK_MSG(same, "pass %d: the covering wall differs from the tested one", pass);
        CHECK(walled > 58 * 30);
        if (pass)
            CHECK_EQ(hidden, 64 * 10); /* the near quad kept its rows */
    }
out:
    rast_fb_free(a);
    rast_fb_free(b);
}

/* rast_cover_begin_stale puts the clear off: over a frame full of old pixels, a covering wall
 * drawn on the stale rows and then rast_finish_rows leave exactly what a clear and the same
 * wall leave (the wall's pixels, the clear colour and depth 0 around it); a plain fill on a
 * stale row first makes that row whole, so it too sees cleared pixels. */
TEST(rast_stale_rows_equal_a_clear)
{
    static uint32_t texels[64 * 64];
    for (int i = 0; i < 64 * 64; i++)
        texels[i] = rast_rgb((unsigned)(i * 5), (unsigned)(i >> 3), (unsigned)(i * 11));
    rast_tex tx;
    wall_tex(&tx, texels, 3, 2);
    rast_vert wall[4] = {{3, 2, 0.5f}, {40, 2, 0.5f}, {40, 50, 0.5f}, {3, 50, 0.5f}};
    rast_vert plain[4] = {{20, 30, 0.25f}, {64, 30, 0.25f}, {64, 40, 0.25f}, {20, 40, 0.25f}};
    rast_fb *a = rast_fb_new(64, 64), *b = rast_fb_new(64, 64);
    CHECK(a && b);
    if (!a || !b)
        goto out;
    for (int i = 0; i < 64 * 64; i++) { /* last frame's pixels */
        a->color[i] = 0xff123456u;
        a->depth[i] = 3.0f;
    }
    rast_cover_begin_stale(a, rast_rgb(7, 8, 9), 0, 64);
    rast_clear(b, rast_rgb(7, 8, 9));
    rast_cover_reset(b, 0, 64);
    rast_polygon_tex_rows(a, wall, 4, &tx, RAST_OPAQUE | RAST_COVER, 0, 64);
    rast_polygon_tex_rows(b, wall, 4, &tx, RAST_OPAQUE | RAST_COVER, 0, 64);
    rast_polygon_rows(a, plain, 4, rast_rgb(1, 2, 3), RAST_OPAQUE, 0, 64);
    rast_polygon_rows(b, plain, 4, rast_rgb(1, 2, 3), RAST_OPAQUE, 0, 64);
    rast_finish_rows(a, 0, 64);
    int same = 1, cleared = 0;
    for (int i = 0; i < 64 * 64; i++) {
        same &= a->color[i] == b->color[i] && a->depth[i] == b->depth[i];
        cleared += a->color[i] == rast_rgb(7, 8, 9) && a->depth[i] == 0;
    }
    CHECK(same);
    CHECK(cleared > 64 * 10);
out:
    rast_fb_free(a);
    rast_fb_free(b);
}

/* rast_no_centre, by hand: pixel centres lie at k + 0.5. A triangle within (10.6..11.4,
 * 20.6..21.4) holds none (the nearest, 10.5 and 11.5, are 0.1 outside); the right angle at
 * (10.6, 20.6) with legs of 2.4 holds (11.5, 21.5) (11.5 + 21.5 = 33 < 33.6); one ending 1/256 short of a centre is still sent (the rasteriser's
 * snapping may move a corner that far), and so are a wide box and a NaN corner. Each sent
 * one is drawn, or not, by the rasteriser itself: a skipped one would draw no pixel. */
TEST(rast_no_centre_by_hand)
{
    const rast_vert none[3] = {{10.6f, 20.6f, 1}, {11.4f, 20.6f, 1}, {11.0f, 21.4f, 1}};
    const rast_vert one[3] = {{10.6f, 20.6f, 1}, {13.0f, 20.6f, 1}, {10.6f, 23.0f, 1}};
    const rast_vert close[3] = {{10.6f, 20.6f, 1}, {11.5f - 1.0f / 256, 20.6f, 1},
                                {11.0f, 21.5f - 1.0f / 256, 1}};
    const rast_vert wide[3] = {{10.6f, 20.6f, 1}, {15.4f, 20.6f, 1}, {11.0f, 20.9f, 1}};
    const rast_vert nan_[3] = {{NAN, 20.6f, 1}, {11.4f, 20.6f, 1}, {11.0f, 21.4f, 1}};
    CHECK_EQ(rast_no_centre(none, 3), 1);
    CHECK_EQ(rast_no_centre(one, 3), 0);
    CHECK_EQ(rast_no_centre(close, 3), 0);
    CHECK_EQ(rast_no_centre(wide, 3), 0);
    CHECK_EQ(rast_no_centre(nan_, 3), 0);
    /* and the rasteriser agrees where it skips: the first draws nothing */
    rast_fb *fb = rast_fb_new(32, 32);
    rast_clear(fb, 0);
    rast_triangle(fb, none, 0xffffffffu, RAST_OPAQUE);
    int drawn = 0;
    for (int i = 0; i < 32 * 32; i++)
        drawn += fb->color[i] != 0;
    CHECK_EQ(drawn, 0);
    rast_triangle(fb, one, 0xffffffffu, RAST_OPAQUE);
    CHECK(fb->color[21 * 32 + 11] == 0xffffffffu);
    rast_fb_free(fb);
}

/* A wall seen at a grazing angle: q (the perspective's divisor) falls from 1 to 0.1 across
 * 256 columns, s = 0.4 x / q, so a pixel spans 0.4 texels at the left and about 40 at the
 * right. Texel i of a 1024 x 1 image holds i in its red and green bytes, so each pixel
 * tells which texel it read. Between a run's exact ends the texture coordinates step
 * linearly; at the run's middle they stray by about k (k |dq| / q) / 4 pixels' worth of
 * texture (rast.c run_pixels), which 32-pixel runs let grow past five pixels near the right
 * end (at q 0.17: 32 x 32 x 0.0035 / 0.68; measured with them: 6.2 at column 237, on both
 * spans). Every pixel must read a texel within one pixel's worth of
 * texture (the texel step at that pixel) and one texel (the nearest read) of the exact
 * s, by the plain textured span and by the lit one (white light: the texel as it is). */
TEST(rast_grazing_wall_texels_within_a_pixel)
{
    enum { W = 256, H = 4, TW = 1024 };
    static uint32_t texels[TW];
    for (int i = 0; i < TW; i++)
        texels[i] = rast_rgb((unsigned)i & 255, (unsigned)i >> 8, 0);
    static const uint32_t white[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    const double A = 0.4, q0 = 1.0, dq = -0.9 / W;
    rast_vert wall[4] = {{0, 0, 0.5f}, {W, 0, 0.5f}, {W, H, 0.5f}, {0, H, 0.5f}};
    rast_fb *fb = rast_fb_new(W, H);
    CHECK(fb != NULL);
    for (int lit = 0; fb && lit < 2; lit++) {
        rast_tex tx;
        memset(&tx, 0, sizeof tx);
        tx.texels = texels;
        tx.w = TW;
        tx.h = 1;
        tx.s[0] = A;
        tx.q[0] = dq, tx.q[2] = q0;
        if (lit) {
            tx.light = white;
            tx.lw = tx.lh = 2;
            tx.light_white = 1;
        }
        rast_clear(fb, 0);
        rast_polygon_tex_rows(fb, wall, 4, &tx, RAST_OPAQUE, 0, H);
        int worst = -1, drawn = 0;
        double worst_px = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                uint32_t c = fb->color[y * W + x];
                if (fb->depth[y * W + x] != 0.5f)
                    continue;
                drawn++;
                double px = x + 0.5, q = q0 + dq * px;
                double s = A * px / q, rate = A * q0 / (q * q); /* ds/dx */
                double got = (double)((c & 255) | (c >> 8 & 255) << 8);
                double off = fabs(got - s) - 1.0; /* past the nearest read's rounding */
                if (off > rate && off / rate > worst_px) {
                    worst_px = off / rate;
                    worst = x;
                }
            }
        CHECK_MSG(drawn == W * H, "%s: %d of %d pixels drawn", lit ? "lit" : "plain", drawn,
                  W * H);
        CHECK_MSG(worst < 0, "%s: column %d read %.2f pixels' worth of texture off",
                  lit ? "lit" : "plain", worst, worst_px);
    }
    rast_fb_free(fb);
}

/* A small depth-tested fill wholly behind what is drawn is dropped before its set-up
 * (rast.c box_hidden); it must still draw any pixel that would pass. By hand: a wall at
 * depth 0.5 over a 64 x 64 frame, and the triangle (10,10) (20,10) (10,20) at 0.3, farther:
 * it draws nothing. A hole at pixel (12,12) (centre 12.5,12.5: 2.5 + 2.5 <= 10 from the
 * right angle, inside) lowered to 0.1 shows it there alone; one at (18,18) (8.5 + 8.5 > 10,
 * outside the triangle but in its box) shows nothing; a pixel at exactly 0.3 keeps the
 * wall (a pixel passes only when nearer). Rows a put-off clear left with last frame's
 * depths (3.0, nearer than anything) count as cleared: the triangle draws there whole. */
TEST(rast_hidden_small_fill_by_hand)
{
    enum { W = 64, H = 64 };
    rast_fb *fb = rast_fb_new(W, H);
    CHECK(fb != NULL);
    if (!fb)
        return;
    const uint32_t wallc = rast_rgb(9, 9, 9), red = rast_rgb(255, 0, 0);
    rast_vert wall[4] = {vtx(0, 0, 0.5f), vtx(W, 0, 0.5f), vtx(W, H, 0.5f), vtx(0, H, 0.5f)};
    rast_vert t[3] = {vtx(10, 10, 0.3f), vtx(20, 10, 0.3f), vtx(10, 20, 0.3f)};
    rast_clear(fb, 0);
    rast_polygon(fb, wall, 4, wallc, RAST_OPAQUE);
    rast_triangle(fb, t, red, RAST_OPAQUE);
    int drawn = 0;
    for (int i = 0; i < W * H; i++)
        drawn += fb->color[i] != wallc || fb->depth[i] != 0.5f;
    CHECK_EQ(drawn, 0);
    fb->depth[12 * W + 12] = 0.1f; /* a hole inside the triangle */
    fb->depth[18 * W + 18] = 0.1f; /* one in its box, outside it */
    fb->depth[11 * W + 11] = 0.3f; /* as far as the triangle: not nearer */
    rast_triangle(fb, t, red, RAST_OPAQUE);
    drawn = 0;
    for (int i = 0; i < W * H; i++)
        drawn += fb->color[i] == red;
    CHECK_EQ(drawn, 1);
    CHECK_EQ(fb->color[12 * W + 12], red);
    CHECK(fb->depth[12 * W + 12] == 0.3f);
    CHECK_EQ(fb->color[18 * W + 18], wallc);
    CHECK_EQ(fb->color[11 * W + 11], wallc);
    /* last frame's pixels under a put-off clear: the triangle's 45 pixels are drawn (row
     * 10 + k, k = 0..9, holds the centres 10.5 .. 18.5 - k strictly inside, 9 - k of them;
     * the one at 19.5 - k lies on the slanted edge x + y = 30, a right edge, which the
     * fill rule leaves to the neighbour) */
    for (int i = 0; i < W * H; i++) {
        fb->color[i] = 0xff123456u;
        fb->depth[i] = 3.0f;
    }
    rast_cover_begin_stale(fb, rast_rgb(7, 8, 9), 0, H);
    rast_triangle(fb, t, red, RAST_OPAQUE);
    rast_finish_rows(fb, 0, H);
    drawn = 0;
    for (int i = 0; i < W * H; i++)
        drawn += fb->color[i] == red;
    CHECK_EQ(drawn, 45);
    rast_fb_free(fb);
}
