/* test_render.c: tests of the render front end: e1m1 from its player start (coverage, colours,
 * determinism), synthetic scenes for occlusion, exact near-plane clipping and handedness,
 * missing models and maps, and rendering from two threads at once. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/demo/quake_rules.h"
#include "../../src/model/model.h"
#include "../../src/output/out.h"
#include "../../src/render/r_local.h"
#include "../../src/render/render.h"
#include "../test.h"
#include "../testbuf.h"

uint8_t *test_bsp_build(const float (*quads)[4][3], const uint8_t *color, const uint8_t *light,
                        int n, const char *extra_ents, size_t *len);

/* ---- a read callback over a few named buffers or files ---- */

typedef struct files {
    int n;
    const char *name[8];
    const uint8_t *data[8]; /* in memory, or NULL: read path[i] from disk */
    size_t len[8];
    const char *path[8];
} files;

static qd_err files_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    const files *f = ctx;
    for (int i = 0; i < f->n; i++) {
        if (strcmp(f->name[i], name) != 0)
            continue;
        if (f->data[i]) {
            *data = malloc(f->len[i]);
            memcpy(*data, f->data[i], f->len[i]);
            *len = f->len[i];
            return QD_OK;
        }
        FILE *fp = fopen(f->path[i], "rb");
        if (!fp)
            break;
        fseek(fp, 0, SEEK_END);
        long n = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        *data = malloc(n > 0 ? (size_t)n : 1);
        *len = fread(*data, 1, (size_t)n, fp);
        fclose(fp);
        return QD_OK;
    }
    return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
}

static void palette(uint32_t pal[256])
{
    uint8_t lmp[768];
    FILE *fp = fopen("assets/palette.lmp", "rb");
    size_t n = fp ? fread(lmp, 1, sizeof lmp, fp) : 0;
    if (fp)
        fclose(fp);
    mdl_palette_from_lmp(lmp, n, pal);
}

static void save_png(const rast_fb *fb, const char *name)
{
    char path[512];
    qd_error err;
    snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
    out_png_write(path, fb, &err); /* for eyes only; a failure does not fail the test */
}

static cl_state *new_state(const char *map)
{
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    snprintf(cl->level.map, sizeof cl->level.map, "%s", map);
    snprintf(cl->level.models[1], sizeof cl->level.models[1], "%s", map);
    cl->level.num_models = 2;
    cl->view.view_entity = 1;
    return cl;
}

static void add_entity(cl_state *cl, int num, int model, float x, float y, float z, float yaw)
{
    cl_entity *e = &cl->entities[num];
    memset(e, 0, sizeof *e);
    e->cur.model = (uint16_t)model;
    e->cur.origin[0] = x;
    e->cur.origin[1] = y;
    e->cur.origin[2] = z;
    e->cur.angles[1] = yaw;
    e->prev = e->cur;
    e->active = 1;
    if (cl->num_entities <= num)
        cl->num_entities = num + 1;
}

static int same_fb(const rast_fb *a, const rast_fb *b)
{
    size_t n = (size_t)a->w * a->h;
    return a->w == b->w && a->h == b->h && memcmp(a->color, b->color, n * 4) == 0 &&
           memcmp(a->depth, b->depth, n * 4) == 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int distinct_colours(const rast_fb *fb)
{
    size_t n = (size_t)fb->w * fb->h;
    uint32_t *c = malloc(n * 4);
    memcpy(c, fb->color, n * 4);
    qsort(c, n, 4, cmp_u32);
    int d = n > 0;
    for (size_t i = 1; i < n; i++)
        d += c[i] != c[i - 1];
    free(c);
    return d;
}

/* ---- e1m1 from its player start ---- */

TEST(render_e1m1_start)
{
    char path[512];
    if (!test_realfile(path, sizeof path, "bsp/id-maps-gpl_e1m1_bsp29+appendedzip.bsp"))
        SKIP("e1m1 not in realdata");
    uint32_t pal[256];
    palette(pal);
    files f = {1, {"maps/e1m1.bsp"}, {NULL}, {0}, {path}};
    cl_state *cl = new_state("maps/e1m1.bsp");
    qd_error err;
    r_assets *a = r_assets_load(&cl->level, files_read, &f, pal, &err);
    CHECK(a && r_assets_map(a));
    CHECK_EQ(err.code, QD_OK);
    CHECK_EQ(r_assets_missing(a), 0);

    const mdl_bsp *b = r_assets_map(a);
    char v[64];
    r_camera cam = {.origin = {0}, .angles = {0}, .fov = 0};
    CHECK(mdl_entity_value(b->entities, "info_player_start", 0, "origin", v, sizeof v));
    CHECK_EQ(sscanf(v, "%f %f %f", &cam.origin[0], &cam.origin[1], &cam.origin[2]), 3);
    cam.origin[2] += 22; /* Quake's view height */
    if (mdl_entity_value(b->entities, "info_player_start", 0, "angle", v, sizeof v))
        cam.angles[1] = (float)atof(v);

    rast_fb *fb = rast_fb_new(320, 240), *fb2 = rast_fb_new(320, 240);
    r_options flat = {.mode = R_MODE_FLAT}, wire = {.mode = R_MODE_WIRE}, xray = {.mode = R_MODE_WIRE, .xray = 1};
    int prims = r_render(a, cl, 0, &cam, &flat, fb);
    CHECK(prims > 50);
    save_png(fb, "e1m1_start_flat.png");
    size_t covered = 0, n = 320 * 240;
    for (size_t i = 0; i < n; i++)
        covered += fb->depth[i] > 0;
    CHECK_MSG(covered > n * 9 / 10, "flat covers %zu of %zu pixels", covered, n);
    int d = distinct_colours(fb);
    CHECK_MSG(d > 20, "%d distinct colours", d);
    r_render(a, cl, 0, &cam, &flat, fb2);
    CHECK(same_fb(fb, fb2));

    r_render(a, cl, 0, &cam, &wire, fb);
    save_png(fb, "e1m1_start_wire.png");
    size_t lit = 0;
    for (size_t i = 0; i < n; i++)
        lit += (fb->color[i] & 0xffffff) != 0;
    CHECK_MSG(lit > n / 50 && lit < n / 2, "wire lines cover %zu pixels", lit);
    r_render(a, cl, 0, &cam, &wire, fb2);
    CHECK(same_fb(fb, fb2));
    /* x-ray shows hidden edges too: more line pixels than the depth-tested wireframe */
    r_render(a, cl, 0, &cam, &xray, fb2);
    save_png(fb2, "e1m1_start_xray.png");
    size_t lit_x = 0;
    for (size_t i = 0; i < n; i++)
        lit_x += (fb2->color[i] & 0xffffff) != 0;
    CHECK_MSG(lit_x > lit, "xray %zu vs wire %zu line pixels", lit_x, lit);

    rast_fb_free(fb);
    rast_fb_free(fb2);
    r_assets_free(a);
    free(cl);
}

/* ---- synthetic scenes: the camera at the origin looking down +X, 320x240 ---- */

#define W 320
#define H 240
/* FOV 90 on 4:3: tan(fov_y / 2) = 0.75, so a unit at depth 1 is (H / 2) / 0.75 pixels. */
#define SCALE (H / 2 / 0.75)

static r_assets *scene(const float (*quads)[4][3], const uint8_t *colors, int nq, cl_state **clp,
                       uint8_t **bytes)
{
    static uint32_t pal[256];
    palette(pal);
    uint8_t light[8] = {128, 128, 128, 128, 128, 128, 128, 128};
    size_t len;
    *bytes = test_bsp_build(quads, colors, light, nq, NULL, &len);
    files f = {1, {"maps/synth.bsp"}, {*bytes}, {len}, {NULL}};
    *clp = new_state("maps/synth.bsp");
    qd_error err;
    return r_assets_load(&(*clp)->level, files_read, &f, pal, &err);
}

static uint32_t px(const rast_fb *fb, int x, int y) { return fb->color[y * fb->w + x]; }
static float dz(const rast_fb *fb, int x, int y) { return fb->depth[y * fb->w + x]; }

TEST(render_occlusion_and_sides)
{
    /* near quad at x=100 (y 10..50 is to the LEFT, z -20..20), far quad at x=200, both facing
     * the camera (clockwise seen from the front, as Quake's faces); listed far first, then
     * near first. A quad seen from behind is culled. */
    const float nearq[4][3] = {{100, 10, -20}, {100, 50, -20}, {100, 50, 20}, {100, 10, 20}};
    const float farq[4][3] = {{200, -80, -80}, {200, 80, -80}, {200, 80, 80}, {200, -80, 80}};
    for (int order = 0; order < 2; order++) {
        float q[2][4][3];
        memcpy(q[order], nearq, sizeof nearq);
        memcpy(q[order ^ 1], farq, sizeof farq);
        uint8_t col[2];
        col[order] = 251;     /* near: red */
        col[order ^ 1] = 208; /* far: blue */
        cl_state *cl;
        uint8_t *bytes;
        r_assets *a = scene((const float(*)[4][3])q, col, 2, &cl, &bytes);
        CHECK(a && r_assets_map(a));
        rast_fb *fb = rast_fb_new(W, H);
        r_camera cam = {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90};
        r_render(a, cl, 0, &cam, NULL, fb);
        if (order == 0)
            save_png(fb, "synth_occlusion.png");
        /* the near quad spans y 10..50 at depth 100: screen x = 160 - y * 1.6 */
        int xn = (int)(W / 2 - 30 * SCALE / 100); /* its centre, on the left half */
        int yc = H / 2;
        CHECK(xn < W / 2);
        CHECK(fabsf(dz(fb, xn, yc) - 1.0f / 100) < 1e-6f);
        /* right of the centre only the far quad: depth 1/200 */
        CHECK(fabsf(dz(fb, W / 2 + 40, yc) - 1.0f / 200) < 1e-6f);
        /* and shows its own colour there: red over blue for the near one, blue over red
         * for the far one */
        uint32_t cn = px(fb, xn, yc), cf = px(fb, W / 2 + 40, yc);
        CHECK_MSG((cn & 255) > (cn >> 16 & 255) && (cf >> 16 & 255) > (cf & 255),
                  "near %06x, far %06x", cn & 0xffffff, cf & 0xffffff);
        /* outside both (far quad spans 80 * 0.8 = 64 pixels each way): nothing */
        CHECK_EQ(dz(fb, W / 2, yc - 70), 0);
        CHECK_EQ(dz(fb, W / 2, yc + 66), 0);
        CHECK(dz(fb, W / 2, yc + 62) > 0);
        /* from behind (x=300 looking back down -X) both quads face away: nothing drawn */
        r_camera back = {.origin = {300, 0, 0}, .angles = {0, 180, 0}, .fov = 90};
        r_render(a, cl, 0, &back, NULL, fb);
        size_t covered = 0;
        for (int i = 0; i < W * H; i++)
            covered += fb->depth[i] > 0;
        CHECK_EQ(covered, 0);
        rast_fb_free(fb);
        r_assets_free(a);
        free(cl);
        free(bytes);
    }
}

TEST(render_near_plane_exact)
{
    /* a floor 1 below the eye from x=-50 (behind the camera) to x=300, 40 wide: it crosses
     * the near plane inside the view, and what is left must project exactly */
    const float floorq[1][4][3] = {{{-50, -20, -1}, {-50, 20, -1}, {300, 20, -1}, {300, -20, -1}}};
    const uint8_t col[1] = {79};
    cl_state *cl;
    uint8_t *bytes;
    r_assets *a = scene(floorq, col, 1, &cl, &bytes);
    CHECK(a);
    rast_fb *fb = rast_fb_new(W, H);
    r_camera cam = {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90};
    r_render(a, cl, 0, &cam, NULL, fb);
    save_png(fb, "synth_near_plane.png");
    /* Along the centre column, the row whose centre is py sees the floor at depth
     * z = SCALE / (py - H/2): covered while 2 <= z <= 300 (near plane, far edge). */
    int rows = 0, cut = 0;
    for (int y = 0; y < H; y++) {
        double py = y + 0.5, zf = py > H / 2 ? SCALE / (py - H / 2) : 1e30;
        float d = dz(fb, W / 2, y);
        if (zf >= 2.02 && zf <= 299) {
            CHECK_MSG(fabs(d * zf - 1) < 1e-3, "row %d: depth %g, want %g", y, d, 1 / zf);
            /* the floor is 40 wide: half-width 20 / z * SCALE pixels */
            double hw = 20 / zf * SCALE;
            if (hw > 2 && hw < W / 2 - 2) {
                CHECK(dz(fb, (int)(W / 2 + hw - 1.5), y) > 0);
                CHECK(dz(fb, (int)(W / 2 - hw + 1.5), y) > 0);
                CHECK_EQ(dz(fb, (int)(W / 2 + hw + 1.5), y), 0);
                CHECK_EQ(dz(fb, (int)(W / 2 - hw - 1.5), y), 0);
            }
            rows++;
        } else if (zf > 301 || zf < 1.98) {
            CHECK_MSG(d == 0, "row %d covered beyond the floor or before the near plane", y);
            cut += zf < 1.98;
        }
    }
    CHECK(rows > 60);
    CHECK(cut > 30); /* the near plane's cut is on screen */
    /* looking straight down (pitch 90): 1 unit above the floor it is clipped away, 10 units
     * above it fills the view at depth 10 */
    r_camera down = {.origin = {0, 0, 0}, .angles = {90, 0, 0}, .fov = 90};
    r_render(a, cl, 0, &down, NULL, fb);
    CHECK(dz(fb, W / 2, H / 2) == 0);
    down.origin[2] = 9;
    r_render(a, cl, 0, &down, NULL, fb);
    CHECK(fabsf(dz(fb, W / 2, H / 2) - 0.1f) < 1e-5f);
    rast_fb_free(fb);
    r_assets_free(a);
    free(cl);
    free(bytes);
}

/* ---- missing things ---- */

TEST(render_missing_model_box)
{
    const float wall[1][4][3] = {
        {{300, -200, -200}, {300, 200, -200}, {300, 200, 200}, {300, -200, 200}}};
    const uint8_t col[1] = {20}, light[1] = {128};
    size_t len;
    uint8_t *bytes = test_bsp_build(wall, col, light, 1, NULL, &len);
    cl_state *cl = new_state("maps/synth.bsp");
    snprintf(cl->level.models[2], sizeof cl->level.models[2], "progs/nothere.mdl");
    snprintf(cl->level.models[3], sizeof cl->level.models[3], "*7");
    cl->level.num_models = 4;
    files f = {1, {"maps/synth.bsp"}, {bytes}, {len}, {NULL}};
    qd_error err;
    r_assets *a = r_assets_load(&cl->level, files_read, &f, NULL, &err);
    CHECK(a && r_assets_map(a));
    CHECK_EQ(err.code, QD_ERR_NOT_FOUND);
    CHECK(strstr(err.msg, "nothere") != NULL);
    CHECK_EQ(r_assets_missing(a), 2);
    add_entity(cl, 2, 2, 150, 0, 0, 0);
    add_entity(cl, 3, 3, 150, 80, 0, 0);
    add_entity(cl, 4, 999, 150, -80, 0, 0); /* a model index past the precache list */
    rast_fb *fb = rast_fb_new(W, H);
    r_camera cam = {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90};
    for (int mode = 0; mode < 2; mode++) {
        r_options o = {.mode = mode};
        r_render(a, cl, 0, &cam, &o, fb);
        if (mode == 0)
            save_png(fb, "synth_missing_model.png");
        /* the boxes are yellow lines: in the middle third, the left third, the right third */
        int found[3] = {0, 0, 0};
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if (px(fb, x, y) == rast_rgb(255, 200, 0))
                    found[x * 3 / W] = 1;
        CHECK_MSG(found[0] && found[1] && found[2], "mode %d: boxes %d %d %d", mode, found[0],
                  found[1], found[2]);
    }
    rast_fb_free(fb);
    r_assets_free(a);
    free(cl);
    free(bytes);
}

TEST(render_missing_map)
{
    cl_state *cl = new_state("maps/gone.bsp");
    snprintf(cl->level.models[2], sizeof cl->level.models[2], "progs/gone.mdl");
    cl->level.num_models = 3;
    qd_error err;
    r_assets *a = r_assets_load(&cl->level, NULL, NULL, NULL, &err);
    CHECK(a);
    CHECK(r_assets_map(a) == NULL);
    CHECK_EQ(err.code, QD_ERR_NOT_FOUND);
    rast_fb *fb = rast_fb_new(W, H), *bare = rast_fb_new(W, H);
    r_camera cam = {.origin = {0, 0, 22}, .angles = {10, 0, 0}, .fov = 90};
    CHECK(r_render(a, cl, 0, &cam, NULL, bare) > 10); /* the grid's lines */
    add_entity(cl, 2, 2, 100, 0, -22, 0);
    int prims = r_render(a, cl, 0, &cam, NULL, fb);
    save_png(fb, "missing_map.png");
    CHECK(prims > 10); /* grid lines and the box */
    CHECK(distinct_colours(fb) >= 3); /* background, grid, box, text */
    /* the entity with no model file is the missing-model box (r_entity.c MISSING_COLOR,
     * 255 200 0), straight ahead: every pixel it adds is that yellow, around the middle
     * column */
    int added = 0, yellow = 0, off_middle = 0;
    for (int i = 0; i < W * H; i++)
        if (fb->color[i] != bare->color[i]) {
            added++;
            yellow += (fb->color[i] & 0xffffff) == (rast_rgb(255, 200, 0) & 0xffffff);
            off_middle += abs(i % W - W / 2) > W / 4;
        }
    CHECK_MSG(added > 20 && yellow == added && off_middle == 0, "%d added, %d yellow, %d aside",
              added, yellow, off_middle);
    rast_fb_free(bare);
    /* no assets at all is allowed too */
    CHECK(r_render(NULL, cl, 0, &cam, NULL, fb) > 0);
    rast_fb_free(fb);
    r_assets_free(a);
    free(cl);
}

/* ---- alias models, and threads ---- */

typedef struct job {
    const r_assets *a;
    const cl_state *cl;
    r_camera cam;
    rast_fb *fb;
} job;

static void *render_job(void *p)
{
    job *j = p;
    r_options o = {.mode = R_MODE_FLAT};
    r_render(j->a, j->cl, 0.25, &j->cam, &o, j->fb);
    return NULL;
}

/* A wall at x = 300 facing the camera at the origin and one model as progs/player.mdl (model
 * 2): from memory (mdl, mlen) or from the file at path. */
static r_assets *wall_and_model(const uint8_t *mdl, size_t mlen, const char *path,
                                uint8_t **bytes, cl_state **clp, uint32_t pal[256])
{
    const float wall[1][4][3] = {
        {{300, -200, -200}, {300, 200, -200}, {300, 200, 200}, {300, -200, 200}}};
    const uint8_t col[1] = {20}, light[1] = {128};
    size_t len;
    *bytes = test_bsp_build(wall, col, light, 1, NULL, &len);
    files f = {2, {"maps/synth.bsp", "progs/player.mdl"}, {*bytes, mdl}, {len, mlen}, {NULL, path}};
    cl_state *cl = *clp = new_state("maps/synth.bsp");
    snprintf(cl->level.models[2], sizeof cl->level.models[2], "progs/player.mdl");
    cl->level.num_models = 3;
    palette(pal);
    qd_error err;
    return r_assets_load(&cl->level, files_read, &f, pal, &err);
}

TEST(render_alias_and_threads)
{
    char mdl[512];
    if (!test_realfile(mdl, sizeof mdl, "mdl/qwtf-client-media_progs_player.mdl"))
        SKIP("player.mdl not in realdata");
    uint8_t *bytes;
    cl_state *cl;
    uint32_t pal[256];
    r_assets *a = wall_and_model(NULL, 0, mdl, &bytes, &cl, pal);
    CHECK(a);
    CHECK_EQ(r_assets_missing(a), 0);
    add_entity(cl, 1, 2, 60, -40, 0, 90); /* the view entity: not drawn in first person */
    add_entity(cl, 2, 2, 120, 0, 0, 180);
    cl->entities[2].prev.frame = 0;
    cl->entities[2].cur.frame = 6; /* a run frame */
    cl->entities[2].prev_time = 0;
    cl->entities[2].cur_time = 0.5;
    rast_fb *fb = rast_fb_new(W, H), *fb2 = rast_fb_new(W, H);
    r_camera cam = {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90};
    r_options o = {.mode = R_MODE_FLAT};
    r_render(a, cl, 0.25, &cam, &o, fb);
    save_png(fb, "synth_player.png");
    /* the player stands in the middle, nearer than the wall */
    CHECK(dz(fb, W / 2, H / 2) > 1.0f / 150);
    /* another moment of the blend draws another pose */
    r_render(a, cl, 0.5, &cam, &o, fb2);
    CHECK(!same_fb(fb, fb2));
    /* the view entity is drawn only when asked */
    r_options chase = {.mode = R_MODE_FLAT, .show_view_entity = 1};
    r_render(a, cl, 0.25, &cam, &chase, fb2);
    CHECK(!same_fb(fb, fb2));
    /* two threads rendering the same assets give the single-thread bytes */
    job j[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        j[i] = (job){a, cl, cam, rast_fb_new(W, H)};
        pthread_create(&th[i], NULL, render_job, &j[i]);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        CHECK(same_fb(fb, j[i].fb));
        rast_fb_free(j[i].fb);
    }
    rast_fb_free(fb);
    rast_fb_free(fb2);
    r_assets_free(a);
    free(cl);
    free(bytes);
}

/* A quad model (two triangles each way round, so one pair faces any viewer and the vertex
 * normals cancel: every vertex gets the ambient light only) in the model's y-z plane, 40
 * units square, whose 16x8 skin is palette index left in columns 0..7 and right in 8..15; the
 * corner at +y takes s = 0 and the one at -y s = 16 (MDL IDPO 6, Mod_LoadAliasModel's order). */
static uint8_t *split_skin_mdl(uint8_t left, uint8_t right, size_t *len)
{
    static buf m;
    m.n = 0;
    putstr(&m, "IDPO");
    m.n--; /* no NUL */
    put32(&m, 6);
    putf(&m, 1), putf(&m, 1), putf(&m, 1);       /* scale */
    putf(&m, -20), putf(&m, -20), putf(&m, -20); /* translate */
    putf(&m, 30);                                /* radius */
    putf(&m, 0), putf(&m, 0), putf(&m, 0);       /* eye */
    put32(&m, 1), put32(&m, 16), put32(&m, 8);   /* skins, width, height */
    put32(&m, 4), put32(&m, 4), put32(&m, 1);    /* verts, tris, frames */
    put32(&m, 0), put32(&m, 0), putf(&m, 10);    /* synctype, flags, size */
    put32(&m, 0);                                /* skin type: single */
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++)
            put8(&m, x < 8 ? left : right);
    /* corners: (y, z) = (+20, -20), (-20, -20), (-20, +20), (+20, +20) in model units */
    static const int ys[4] = {40, 0, 0, 40}, zs[4] = {0, 0, 40, 40};
    for (int i = 0; i < 4; i++)
        put32(&m, 0), put32(&m, ys[i] ? 0 : 16), put32(&m, zs[i] ? 0 : 8);
    static const int tri[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 2, 1}, {0, 3, 2}};
    for (int i = 0; i < 4; i++)
        put32(&m, 1), put32(&m, (uint32_t)tri[i][0]), put32(&m, (uint32_t)tri[i][1]),
            put32(&m, (uint32_t)tri[i][2]);
    put32(&m, 0); /* a single frame */
    put8(&m, 0), put8(&m, 0), put8(&m, 0), put8(&m, 0);
    put8(&m, 40), put8(&m, 40), put8(&m, 40), put8(&m, 0);
    for (int i = 0; i < 16; i++)
        put8(&m, 0); /* name */
    for (int i = 0; i < 4; i++)
        put8(&m, 20), put8(&m, (unsigned)ys[i]), put8(&m, (unsigned)zs[i]), put8(&m, 0);
    *len = m.n;
    return m.b;
}

/* Textured mode draws an alias model with its skin through the light rows: the left half of
 * the quad shows the left index, the right half the right one, each at the row of the
 * entity's light. Without a colormap the row r scales a colour by (64 - r) / 32. The light
 * trace under the entity finds no face (the built map's one node lies at z = -8000), so
 * R_DrawAliasModel's floor of 8 applies: ambient 8 and, the normals cancelling, L = 8 at
 * every vertex, times the textured mode's gain of 2 (r_local.h R_LIGHT_GAIN): 16, row
 * (255 - 16) / 4 = 59.75, drawn as row 59. */
TEST(render_alias_textured_skin)
{
    size_t mlen;
    /* below 224: lit (224 and up are fullbright); 20 is in the shirt range 16..31 */
    const uint8_t *mdl = split_skin_mdl(20, 200, &mlen);
    uint8_t *bytes;
    cl_state *cl;
    uint32_t pal[256];
    r_assets *a = wall_and_model(mdl, mlen, NULL, &bytes, &cl, pal);
    CHECK(a);
    CHECK_EQ(r_assets_missing(a), 0);
    float l = 1;
    CHECK(!mdl_bsp_light_point(r_assets_map(a), (float[3]){100, 0, 0}, NULL, &l) && l == 0);
    add_entity(cl, 2, 2, 100, 0, 0, 0);
    rast_fb *fb = rast_fb_new(W, H);
    r_camera cam = {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90};
    /* a cache kept between the frames, as the player keeps one (the light table with the
     * player's colours is kept in it by them) */
    r_cache *kept = r_cache_new(0);
    r_options o = {.mode = R_MODE_TEXTURED, .cache = kept};
    /* then as player 1's body with shirt colour 4: index 20 (shade 4 of the shirt range)
     * becomes 4 * 16 + 4 = 68 (colours below 8 run upwards), 200 stays; then with shirt
     * colour 12: 12 * 16 + 15 - 4 = 203 (colours from 8 run downwards) */
    cl_set_player_colors(cl, 0, 4, 13);
    for (int k = 0; k < 3; k++) {
        int player = k > 0;
        if (k == 2)
            cl_set_player_colors(cl, 0, 12, 13);
        cl->entities[2].cur.player = cl->entities[2].prev.player = (uint8_t)player;
        r_render(a, cl, 0, &cam, &o, fb);
        save_png(fb, "synth_skin.png");
        /* y = +10 (left on screen) has s = 4: the left half; y = -10 the right */
        int dx = (int)(10 * SCALE / 100);
        uint32_t want[2];
        for (int side = 0; side < 2; side++) {
            uint32_t c = pal[side ? 200 : k == 2 ? 203 : player ? 68 : 20];
            want[side] = 0xff000000u;
            for (int k = 0; k < 3; k++)
                want[side] |= ((c >> (8 * k) & 255) * (64 - 59) / 32) << (8 * k);
            CHECK_EQ(px(fb, W / 2 + (side ? dx : -dx), H / 2), want[side]);
        }
        CHECK(want[0] != want[1]);
    }
    r_cache_free(kept);
    rast_fb_free(fb);
    r_assets_free(a);
    free(cl);
    free(bytes);
}

/* Textured mode draws a sprite's picture unlit, index 255 see-through (Quake's
 * D_SpriteDrawSpans): a 16x16 camera-facing picture (type 2, origin -8, 8) whose left half
 * is index 72 and right half 255, 100 units in front of the camera before the wall. */
TEST(render_sprite_textured)
{
    static buf m;
    m.n = 0;
    putstr(&m, "IDSP");
    m.n--;
    put32(&m, 1), put32(&m, 2), putf(&m, 12);  /* version, type VP_PARALLEL, radius */
    put32(&m, 16), put32(&m, 16), put32(&m, 1); /* max width, height, frames */
    putf(&m, 0), put32(&m, 0);                  /* beam length, sync type */
    put32(&m, 0);                               /* a single picture */
    put32(&m, (uint32_t)-8), put32(&m, 8), put32(&m, 16), put32(&m, 16);
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++)
            put8(&m, x < 8 ? 72 : 255);
    uint8_t *bytes;
    cl_state *cl;
    uint32_t pal[256];
    r_assets *a = wall_and_model(m.b, m.n, NULL, &bytes, &cl, pal);
    CHECK(a);
    CHECK_EQ(r_assets_missing(a), 0);
    rast_fb *with = rast_fb_new(W, H), *without = rast_fb_new(W, H);
    r_camera cam = {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90};
    r_options o = {.mode = R_MODE_TEXTURED};
    r_render(a, cl, 0, &cam, &o, without);
    add_entity(cl, 2, 2, 100, 0, 0, 0);
    r_render(a, cl, 0, &cam, &o, with);
    /* 3 pixels left of the centre is x = -1.9 units: the left half; 3 right, the right */
    CHECK_EQ(px(with, W / 2 - 3, H / 2), pal[72]);
    CHECK_EQ(px(with, W / 2 + 3, H / 2), px(without, W / 2 + 3, H / 2));
    CHECK(px(without, W / 2 - 3, H / 2) != pal[72]);
    rast_fb_free(with);
    rast_fb_free(without);
    r_assets_free(a);
    free(cl);
    free(bytes);
}

/* cg_view.c CG_OffsetFirstPersonView's bob on a Quake III recorded view, by hand: the two
 * playerStates at 1.0 s and 1.05 s have bobCycle 100 and 120 and speed 320 units/s; at
 * 1.025 s cgame's interpolated cycle is 100 + 0.5 x 20 = 110 (bit 7 clear: the first leg),
 * bobfracsin = |sin(110 / 127 x pi)| = 0.40830; pitch and roll rise by 0.40830 x 0.002 x 320
 * = 0.26131 degrees, the eye by 0.40830 x 320 x 0.005 = 0.65328 units. With the cycle's
 * bit 7 set (228, 248: 238 & 127 = 110) the roll turns the other way. A Quake view has no
 * such bob. A dead Quake III view does not bob: it lies at roll 40, pitch -15. */
TEST(render_q3_view_bob_by_hand)
{
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    if (!cl)
        return;
    for (int k = 0; k < 4; k++) {
        cl_reset(cl);
        cl_level_begin(cl, k == 2 ? CL_GAME_Q1 : CL_GAME_Q3, k == 2 ? 15 : 68, 1, "bob");
        cl_view v;
        memset(&v, 0, sizeof v);
        v.has_origin = 1;
        v.xyspeed = 320;
        v.bob_cycle = k == 1 ? 228 : 100;
        v.dead = k == 3;
        cl_frame_begin(cl, 1.0);
        cl_set_view(cl, &v);
        cl_frame_end(cl, 0);
        v.bob_cycle = k == 1 ? 248 : 120;
        cl_frame_begin(cl, 1.05);
        cl_set_view(cl, &v);
        cl_frame_end(cl, 0);
        r_camera cam;
        r_camera_from_view(cl, 1.025, &cam);
        if (k == 3) {
            /* dead: seen from behind (CG_OffsetThirdPersonView, no bob), by hand: the eye at
             * 0 looking along +x (yaw 0, STAT_DEAD_YAW 0, pitch 0): the camera 8 up and 40
             * back, (-40, 0, 8), looking at (512, 0, 0): pitch atan(8 / 552) = 0.83 degrees
             * down, no roll */
            CHECK(cam.pivoted && fabsf(cam.origin[0] + 40) < 1e-4f && fabsf(cam.origin[1]) < 1e-4f &&
                  fabsf(cam.origin[2] - 8) < 1e-4f);
            CHECK_MSG(fabsf(cam.angles[0] - 0.8303f) < 1e-3f && cam.angles[1] == 0 &&
                          cam.angles[2] == 0,
                      "angles %g %g %g", cam.angles[0], cam.angles[1], cam.angles[2]);
            continue;
        }
        float up = k == 2 ? 0 : 0.65328f, tilt = k == 2 ? 0 : 0.26131f;
        CHECK_MSG(fabsf(cam.origin[2] - up) < 1e-3f, "case %d: eye %f", k, cam.origin[2]);
        CHECK_MSG(fabsf(cam.angles[0] - tilt) < 1e-3f, "case %d: pitch %f", k, cam.angles[0]);
        CHECK_MSG(fabsf(cam.angles[2] - (k == 1 ? -tilt : tilt)) < 1e-3f, "case %d: roll %f", k,
                  cam.angles[2]);
    }
    free(cl);
}

/* The bands follow the work (r_cache_bands_took), by hand: two bands of 360 rows of a 720-row
 * frame took 1 s and 3 s, so the work is 1/360 s a row above 360 and 3/360 below; half of
 * it (2 s) is reached at row 360 + 1/3 x 360 = 480, and the new boundary is half way from
 * the old: (0.5 + 480/720) / 2 x 720 = 420. A new cache splits evenly. */
TEST(render_bands_follow_the_work)
{
    r_cache *c = r_cache_new(0);
    CHECK(c);
    if (!c)
        return;
    int y[R_MAX_THREADS + 1];
    r_cache_bands(c, 2, 720, y);
    CHECK(y[0] == 0 && y[1] == 360 && y[2] == 720);
    const double took[R_MAX_THREADS] = {1, 3};
    r_cache_bands_took(c, 2, 720, y, took);
    r_cache_bands(c, 2, 720, y);
    CHECK_MSG(y[0] == 0 && y[1] == 420 && y[2] == 720, "boundary %d", y[1]);
    r_cache_bands(c, 3, 720, y); /* another thread count: even again */
    CHECK(y[1] == 240 && y[2] == 480 && y[3] == 720);
    r_cache_free(c);
}

/* A lightning beam of entity `ent` (TE_LIGHTNING2: style 6) logged at demo time t from
 * start to end. */
static void beam_at(cl_state *cl, double t, int ent, const float start[3], const float end[3])
{
    cl_frame_begin(cl, t);
    cl_fxev fx;
    memset(&fx, 0, sizeof fx);
    fx.kind = CL_FXK_BEAM_LIGHTNING;
    fx.life = 0.2f;
    fx.style = 6;
    fx.entity = (int16_t)ent;
    memcpy(fx.origin, start, sizeof fx.origin);
    memcpy(fx.end, end, sizeof fx.end);
    cl_fx_add(cl, &fx);
    cl_frame_end(cl, 0);
}

/* A Quake level of this protocol with the world and progs/bolt2.mdl (model 2): NULL when
 * out of memory. */
static cl_state *beam_level(int protocol)
{
    cl_state *cl = calloc(1, sizeof *cl);
    if (!cl)
        return NULL;
    cl_reset(cl);
    cl_level_begin(cl, CL_GAME_Q1, protocol, 1, "test");
    cl_set_model(cl, 1, "maps/test.bsp");
    cl_set_model(cl, 2, "progs/bolt2.mdl");
    return cl;
}

/* cl_tent.c CL_UpdateTEnts: a beam is a bolt model every 30 units from its start towards
 * its end (while d > 0: 100 units make segments at 0, 30, 60, 90), yawed and pitched along
 * it (truncated degrees, 0..360), for 0.2 s (CL_ParseBeam's endtime); a newer beam of the
 * same entity replaces it; one fired by the view entity starts at its origin. */
TEST(render_quake_lightning_beam_segments)
{
    cl_state *cl = beam_level(15);
    CHECK(cl);
    const float o[3] = {0, 0, 0}, x100[3] = {100, 0, 0}, y60[3] = {0, 60, -60};
    beam_at(cl, 1.0, 5, o, x100);
    cl_entstate seg[64];
    int n = r_beam_segments(cl, 1.05, seg, 64);
    CHECK_EQ(n, 4);
    for (int i = 0; i < n; i++) {
        CHECK(seg[i].model == 2 && seg[i].angles[0] == 0 && seg[i].angles[1] == 0);
        CHECK(fabsf(seg[i].origin[0] - 30.0f * (float)i) < 1e-3f);
    }
    CHECK_EQ(r_beam_segments(cl, 1.25, seg, 64), 0); /* gone after 0.2 s */
    /* the same entity's next beam, 60 along y and 60 down: yaw 90, pitch -45 as 315;
     * 84.9 units: segments at 0, 30, 60 */
    beam_at(cl, 1.1, 5, o, y60);
    n = r_beam_segments(cl, 1.15, seg, 64);
    CHECK_EQ(n, 3);
    CHECK(seg[0].angles[1] == 90 && seg[0].angles[0] == 315);
    free(cl);
}

/* A beam whose end is NaN or infinite (a protocol-999 or FTE float coordinate: review
 * 2026-12-02): qr_temp_fx logs no effect for it, and a beam logged so anyway (the client
 * state checks nothing) draws no segment, where its angles were converted to int from NaN
 * (undefined: the sanitizer run stops there). A finite beam next to it still draws. */
TEST(render_beam_to_nowhere_draws_nothing)
{
    const float o[3] = {0, 0, 0}, x100[3] = {100, 0, 0};
    const float bad[3][3] = {{NAN, 0, 0}, {0, INFINITY, 0}, {0, 0, -3e38f}};
    cl_fxev fx;
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(qr_temp_fx(CL_GAME_Q1, 6, 5, o, bad[i], &fx), 0);
        CHECK_EQ(qr_temp_fx(CL_GAME_Q1, 6, 5, bad[i], x100, &fx), 0);
        CHECK_EQ(qr_temp_fx(CL_GAME_Q1, 3, -1, bad[i], NULL, &fx), 0);
    }
    CHECK(qr_temp_fx(CL_GAME_Q1, 6, 5, o, x100, &fx) && fx.kind == CL_FXK_BEAM_LIGHTNING);
    cl_state *cl = beam_level(999);
    CHECK(cl);
    beam_at(cl, 1.0, 5, o, bad[0]);
    beam_at(cl, 1.0, 6, bad[1], x100);
    beam_at(cl, 1.0, 7, o, x100);
    cl_entstate seg[64];
    CHECK_EQ(r_beam_segments(cl, 1.05, seg, 64), 4); /* entity 7's: 0, 30, 60, 90 */
    free(cl);
}

/* A Quake model's light row (r_alias_row, WinQuake's R_AliasSetupLighting with the textured
 * mode's gain of 2): ambient + shade x the cosine to the fixed light (0.6, 0.2, 0.7746),
 * doubled, as row (255 - L) / 4; but never above the skin's own colour, row 32, as the GL
 * engines clamp a model's light at 1. By hand: 8 and 8 facing the light: L 32, row 55.75;
 * 20 and 20 facing away: L 40, row 53.75; 40 and 40 facing it: L 160, row 23.75, held at
 * 32; 128 and 64: L 384, held at 32. */
TEST(render_model_light_no_brighter_than_its_skin)
{
    const float to[3] = {0.6f, 0.2f, 0.7745967f}, away[3] = {-0.6f, -0.2f, -0.7745967f};
    CHECK(fabsf(r_alias_row(8, 8, to) - 55.75f) < 1e-3f);
    CHECK(fabsf(r_alias_row(20, 20, away) - 53.75f) < 1e-3f);
    CHECK_EQ(r_alias_row(40, 40, to), 32.0f);
    CHECK_EQ(r_alias_row(128, 64, to), 32.0f);
}

/* WinQuake's R_AliasSetupLighting: a dynamic light within its radius adds radius - distance
 * to a model's ambient light (the shade stays the floor's). The built map's light trace finds
 * no face, so the floor's light is R_DrawAliasModel's 8: ambient 8, shade 8; a light of
 * radius 200 at 150 units makes the ambient 8 + 50 = 58 (shade 8: 8 + 58 is under 192); one
 * at 250 units, none; in a Quake III level, none (its models take the light grid). The view's
 * gun gets 24 at least (R_DrawAliasModel: "always give the gun some light"). */
TEST(render_model_lit_by_dynamic_lights)
{
    static r_view v;
    cl_state *cl;
    uint8_t *bytes;
    uint32_t pal[256];
    size_t mlen;
    const uint8_t *model = split_skin_mdl(20, 200, &mlen);
    r_assets *a = wall_and_model(model, mlen, NULL, &bytes, &cl, pal);
    CHECK(a);
    memset(&v, 0, sizeof v);
    v.cl = cl;
    for (int i = 0; i < CL_MAX_LIGHTSTYLES; i++)
        v.style[i] = 256;
    const float at[3] = {100, 0, 0};
    float amb, shade;
    cl->level.game = CL_GAME_Q1;
    r_alias_light(&v, a, at, &amb, &shade);
    CHECK_MSG(amb == 8 && shade == 8, "%g %g", (double)amb, (double)shade);
    v.num_dlights = 1;
    v.dlights[0].radius = 200;
    v.dlights[0].origin[0] = 250; /* 150 units away */
    r_alias_light(&v, a, at, &amb, &shade);
    CHECK_MSG(amb == 58 && shade == 8, "%g %g", (double)amb, (double)shade);
    v.dlights[0].origin[0] = 350;
    r_alias_light(&v, a, at, &amb, &shade);
    CHECK_EQ(amb, 8);
    /* the first-person gun (drawn with R_GUN_ZBIAS) at least 24, ambient and shade */
    v.zbias = R_GUN_ZBIAS;
    r_alias_light(&v, a, at, &amb, &shade);
    CHECK_MSG(amb == 24 && shade == 24, "gun %g %g", (double)amb, (double)shade);
    v.zbias = 0;
    v.dlights[0].origin[0] = 250;
    cl->level.game = CL_GAME_Q3;
    r_alias_light(&v, a, at, &amb, &shade);
    CHECK_EQ(amb, 8);
    r_assets_free(a);
    free(cl);
    free(bytes);
}

static void explosion_at(cl_state *cl, double t, int type, float x)
{
    cl_frame_begin(cl, t);
    cl_fxev fx;
    const float o[3] = {x, 20, 30};
    CHECK(qr_temp_fx(cl->level.game, type, 0, o, o, &fx));
    cl_fx_add(cl, &fx);
    cl_frame_end(cl, 0);
}

/* QuakeWorld's explosion sprite (r_explosion_sprites, after id QW cl_tent.c): LibreQuake's
 * s_explod.spr, whose header's frame count (the int at byte 24 of dsprite_t, read here from
 * the file) is how long it shows: frame 10 (t - t0), gone at that count / 10 s; not for a
 * tarbaby's TE_TAREXPLOSION, not in a Quake (NQ) demo, whose server sends the sprite as an
 * entity; of nine at once the newest eight. */
TEST(render_quakeworld_explosion_sprite)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, "librequake/id1/progs/s_explod.spr"))
        SKIP("LibreQuake's s_explod.spr missing");
    FILE *fp = fopen(path, "rb");
    uint8_t head[28] = {0};
    CHECK(fp && fread(head, 1, 28, fp) == 28);
    if (fp)
        fclose(fp);
    int frames = head[24] | head[25] << 8 | head[26] << 16 | head[27] << 24;
    CHECK(frames >= 2 && frames < 64);
    cl_state *cl = new_state("maps/none.bsp");
    cl_level_begin(cl, CL_GAME_QW, 28, 1, "test");
    cl_set_model(cl, 1, "maps/none.bsp");
    cl_set_model(cl, 2, "progs/s_explod.spr");
    files f = {1, {"progs/s_explod.spr"}, {NULL}, {0}, {path}};
    qd_error err;
    r_assets *a = r_assets_load(&cl->level, files_read, &f, NULL, &err);
    CHECK(a);
    explosion_at(cl, 1.0, 3, 10);
    cl_entstate s[64];
    CHECK_EQ(r_explosion_sprites(a, cl, 1.05, s, 64), 1);
    CHECK(s[0].model == 2 && s[0].frame == 0 && s[0].origin[0] == 10 && s[0].origin[2] == 30);
    CHECK_EQ(r_explosion_sprites(a, cl, 1.0 + (frames - 0.5) / 10, s, 64), 1);
    CHECK_EQ(s[0].frame, frames - 1);
    CHECK_EQ(r_explosion_sprites(a, cl, 1.0 + (frames + 0.01) / 10, s, 64), 0);
    explosion_at(cl, 3.0, 4, 10); /* TE_TAREXPLOSION */
    CHECK_EQ(r_explosion_sprites(a, cl, 3.05, s, 64), 0);
    for (int i = 0; i < 9; i++)
        explosion_at(cl, 5.0 + i * 0.01, 3, (float)i);
    CHECK_EQ(r_explosion_sprites(a, cl, 5.1, s, 64), 8);
    for (int i = 0; i < 8; i++)
        CHECK(s[i].origin[0] >= 1); /* the first (x = 0) left out */
    r_assets_free(a);
    /* the same in a Quake demo: none */
    cl_level_begin(cl, CL_GAME_Q1, 15, 1, "test");
    cl_set_model(cl, 1, "maps/none.bsp");
    cl_set_model(cl, 2, "progs/s_explod.spr");
    a = r_assets_load(&cl->level, files_read, &f, NULL, &err);
    CHECK(a);
    explosion_at(cl, 1.0, 3, 10);
    CHECK_EQ(r_explosion_sprites(a, cl, 1.05, s, 64), 0);
    r_assets_free(a);
    free(cl);
}

/* An effect of kind and style logged at t0, the rest zero. */
static cl_fxev fx_event(double t0, int kind, int style)
{
    cl_fxev e;
    memset(&e, 0, sizeof e);
    e.t0 = t0;
    e.kind = (uint8_t)kind;
    e.style = (uint8_t)style;
    return e;
}

/* QuakeWorld's TE_GUNSHOT and TE_BLOOD carry a count byte: cl_tent.c throws 20 x count
 * particles (R_RunParticleEffect(pos, vec3_origin, 0 or 73, 20 * cnt)); overkill.mvd sends
 * gunshots of 5 and 6. Each lives 0.1 x (rand() % 5) s, so at age 0 about four in five
 * are alive: more than one count's 20, at most 20 x count. Before a review they were 20
 * whatever the count. */
TEST(render_quakeworld_gunshot_count)
{
    static r_particle p[1024];
    cl_fxev e = fx_event(1, CL_FXK_IMPACT, 2); /* TE_GUNSHOT */
    CHECK(r_particles_of(&e, 0, p, 1024) <= 20); /* no count (Quake's): 20 */
    e.count = 5;
    int n = r_particles_of(&e, 0, p, 1024);
    CHECK_MSG(n > 20 && n <= 100, "gunshot of 5: %d alive", n);
    e.kind = CL_FXK_BLOOD;
    e.style = 12;
    e.count = 3;
    n = r_particles_of(&e, 0, p, 1024);
    CHECK_MSG(n > 20 && n <= 60, "blood of 3: %d alive", n);
    for (int i = 0; i < n; i++)
        CHECK(p[i].color >= 72 && p[i].color <= 79); /* colour 73's row (73 & ~7 .. + 7) */
}

/* The mission packs' TE_EXPLOSION2 (Quake's type 12: origin, colour start, colour length;
 * cl_tent.c CL_ParseTEnt) is R_ParticleExplosion2's: 512 particles through the colours start
 * .. start + length - 1 in turn, gone after 0.3 s. Before a review it was drawn as a
 * rocket's 1,024 orange ones for 0.8 s, its colours skipped. */
TEST(render_quake_explosion2_colours)
{
    static r_particle p[1024];
    const float o[3] = {10, 20, 30}, colours[3] = {100, 4, 0};
    cl_fxev e;
    CHECK(qr_temp_fx(CL_GAME_Q1, 12, -1, o, colours, &e));
    CHECK_EQ(e.kind, CL_FXK_EXPLOSION);
    e.t0 = 1;
    int n = r_particles_of(&e, 0, p, 1024);
    CHECK_EQ(n, 512);
    int seen[4] = {0};
    for (int i = 0; i < n; i++) {
        CHECK_MSG(p[i].color >= 100 && p[i].color <= 103, "colour %d", p[i].color);
        if (p[i].color >= 100 && p[i].color <= 103)
            seen[p[i].color - 100]++;
    }
    CHECK(seen[0] == 128 && seen[1] == 128 && seen[2] == 128 && seen[3] == 128);
    CHECK_EQ(r_particles_of(&e, 0.31f, p, 1024), 0);
}

/* Quake's particles (r_part.c, after WinQuake r_part.c and cl_tent.c): how many each effect
 * throws, for how long, where and in which colours. A spike's impact: 10 of colour 0's row
 * (0..7) within 8 units, gone after 0.4 s (0.1 x (rand() % 5)); an explosion: 1024 within 16
 * units in ramp1/ramp2's shades, gone once their ramps pass 8 (0.8 s at most, 10 a second
 * from 3); a teleport splash: 8 x 8 x 14 = 896 of 7..14, gone after 0.34 s; a lava splash:
 * 32 x 32 = 1024 of 224..231, all alive until 2 s (2 + 0.02 x (rand() & 31)), gone after
 * 2.62 s. */
TEST(render_quake_particles)
{
    static r_particle p[1024];
    cl_fxev e;
    memset(&e, 0, sizeof e);
    e.t0 = 10;
    e.origin[0] = 100, e.origin[1] = 200, e.origin[2] = 300;
    e.kind = CL_FXK_IMPACT;
    e.style = 0; /* TE_SPIKE */
    int n = r_particles_of(&e, 0, p, 1024);
    CHECK(n > 0 && n <= 10);
    for (int i = 0; i < n; i++) {
        CHECK(p[i].color <= 7);
        for (int j = 0; j < 3; j++)
            CHECK(fabsf(p[i].org[j] - e.origin[j]) <= 8);
    }
    CHECK_EQ(r_particles_of(&e, 0.4f, p, 1024), 0);
    e.kind = CL_FXK_EXPLOSION;
    e.radius = 350;
    CHECK_EQ(r_particles_of(&e, 0, p, 1024), 1024);
    static const uint8_t shades[] = {0x6f, 0x6d, 0x6b, 0x69, 0x67, 0x65, 0x63, 0x61,
                                     0x6e, 0x6c, 0x6a, 0x68, 0x66};
    for (int i = 0; i < 1024; i++) {
        CHECK(memchr(shades, p[i].color, sizeof shades) != NULL);
        for (int j = 0; j < 3; j++)
            CHECK(fabsf(p[i].org[j] - e.origin[j]) <= 16);
    }
    CHECK_EQ(r_particles_of(&e, 0.81f, p, 1024), 0);
    e.kind = CL_FXK_TELEPORT;
    CHECK_EQ(r_particles_of(&e, 0, p, 1024), 896);
    for (int i = 0; i < 896; i++)
        CHECK(p[i].color >= 7 && p[i].color <= 14);
    CHECK_EQ(r_particles_of(&e, 0.35f, p, 1024), 0);
    e.kind = CL_FXK_SPLASH;
    CHECK_EQ(r_particles_of(&e, 1.99f, p, 1024), 1024);
    for (int i = 0; i < 1024; i++)
        CHECK(p[i].color >= 224 && p[i].color <= 231);
    CHECK_EQ(r_particles_of(&e, 2.63f, p, 1024), 0);
    /* the same effect gives the same particles every time */
    static r_particle q[1024];
    n = r_particles_of(&e, 1.0f, p, 1024);
    CHECK_EQ(n, r_particles_of(&e, 1.0f, q, 1024));
    for (int i = 0; i < n; i++)
        CHECK(p[i].color == q[i].color && !memcmp(p[i].org, q[i].org, sizeof p[i].org));
}

/* r_part.c r_trail_particles, after WinQuake's R_RocketTrail type 0: a rocket seen at x 0 at
 * 1.0 s and at x 100 at 1.1 s (1000 a second) has, at 1.1 s, a particle for every 3 units
 * it flew, 34 (k = 0 .. 33, none old enough to have died: ramp3 from at most 3 at 5 a
 * second ends at 6), each within 3 units of its path and in ramp3's shades. */
/* cl (a Quake level begun afresh) with entity 5 (model 2) seen at a at 1.0 s and at b at
 * 1.1 s. */
static void seen_twice(cl_state *cl, const float a[3], const float b[3])
{
    cl_reset(cl);
    cl_level_begin(cl, CL_GAME_Q1, 15, 1, "test");
    cl_entstate s;
    memset(&s, 0, sizeof s);
    s.model = 2;
    for (int k = 0; k < 2; k++) {
        cl_frame_begin(cl, 1.0 + 0.1 * k);
        memcpy(s.origin, k ? b : a, sizeof s.origin);
        cl_entity_update(cl, 5, &s);
        cl_frame_end(cl, 1);
    }
}

TEST(render_quake_rocket_trail)
{
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    seen_twice(cl, (const float[3]){0, 0, 0}, (const float[3]){100, 0, 0});
    static r_particle p[1024];
    int n = r_trail_particles(cl, NULL, 5, 0, 1.1, p, 1024);
    CHECK_EQ(n, 34);
    static const uint8_t ramp3[6] = {0x6d, 0x6b, 6, 5, 4, 3};
    for (int i = 0; i < n; i++) {
        CHECK(memchr(ramp3, p[i].color, sizeof ramp3) != NULL);
        CHECK(p[i].org[0] >= -3 - 1e-3f && p[i].org[0] <= 103 + 1e-3f);
        CHECK(fabsf(p[i].org[1]) <= 3 && p[i].org[2] >= -3 && p[i].org[2] <= 3.3f);
    }
    free(cl);
}

/* R_RocketTrail's other trails (r_part.c r_trail_particles), by the model flags
 * cl_main.c CL_RelinkEntities tests in order. A gib (EF_GIB: type 2) seen at 0, 0, 0 at
 * 1.0 s and at 60, 0, 20 at 1.1 s (speed 632.5) bleeds a particle every 3 units, 22 at
 * 1.1 s (k = 0 .. 21, all younger than their 2 s), colour 67 + 0..3, within 3 units of its
 * falling path (as the grenade's above) and falling 20 age^2 themselves. A wizard's spike
 * (EF_TRACER: type 3) from 0 to 100 along x at 1000 a second: 34 particles (0.5 s life,
 * none gone), exactly on the path but drifting 30 a second to the right (odd steps: y
 * -30 age) or left, colour 52, or 60 where the step's bit 4 is set. */
TEST(render_quake_gib_and_spike_trails)
{
    CHECK_EQ(r_trail_type(4), 2);
    CHECK_EQ(r_trail_type(32), 4);
    CHECK_EQ(r_trail_type(16), 3);
    CHECK_EQ(r_trail_type(64), 5);
    CHECK_EQ(r_trail_type(1), 0);
    CHECK_EQ(r_trail_type(2), 1);
    CHECK_EQ(r_trail_type(128 | 8), 6);
    CHECK_EQ(r_trail_type(8), -1);
    CHECK_EQ(r_trail_type(4 | 1), 2); /* EF_GIB before EF_ROCKET */
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    seen_twice(cl, (const float[3]){0, 0, 0}, (const float[3]){60, 0, 20});
    static r_particle p[1024];
    int n = r_trail_particles(cl, NULL, 5, 2, 1.1, p, 1024), off = 0, colour = 0;
    CHECK_EQ(n, 22);
    for (int i = 0; i < n; i++) {
        float a = (60 - p[i].org[0]) / 600;
        float z = 20 - 200 * a - 400 * a * a - 20 * a * a;
        off += fabsf(p[i].org[2] - z) > 3 + 4.3f || fabsf(p[i].org[1]) > 3;
        colour += p[i].color < 67 || p[i].color > 70;
    }
    CHECK_EQ(off, 0);
    CHECK_EQ(colour, 0);
    seen_twice(cl, (const float[3]){0, 0, 0}, (const float[3]){100, 0, 0});
    n = r_trail_particles(cl, NULL, 5, 3, 1.1, p, 1024);
    CHECK_EQ(n, 34);
    off = colour = 0;
    for (int i = 0; i < n; i++) {
        int k = (int)lroundf(p[i].org[0] / 3); /* laid at x 3 k */
        float age = (100 - 3.0f * (float)k) / 1000;
        colour += p[i].color != (k & 4 ? 60 : 52);
        off += fabsf(p[i].org[0] - 3.0f * (float)k) > 1e-3f || fabsf(p[i].org[2]) > 1e-3f ||
               fabsf(p[i].org[1] - (k & 1 ? -30 : 30) * age) > 1e-3f;
    }
    CHECK_EQ(colour, 0);
    CHECK_EQ(off, 0);
    free(cl);
}

/* view.c's screen tints (V_CalcBlend over the cshifts, by hand): a hit's 60 percent of red
 * (255, 0, 0) fades 150 a second (0.2353 alpha at once, 30 percent 0.2 s on, none at 0.4);
 * the bonus flash is 50 percent of gold (215, 186, 69) fading 100 a second; the quad 30
 * percent of blue. The hit and the quad together: alpha 0.2353 + 0.1176 x (1 - 0.2353) =
 * 0.3253, red 255 x (1 - 0.1176 / 0.3253) = 162.8, blue 255 x 0.3616 = 92.2. */
TEST(render_quake_screen_tints)
{
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    cl_reset(cl);
    cl_level_begin(cl, CL_GAME_Q1, 15, 1, "test");
    float c[4];
    CHECK(!r_quake_tint(NULL, cl, 1.0, NULL, c));
    cl->view.dmg_percent = 60;
    cl->view.dmg_rgb[0] = 255;
    cl->view.dmg_time = 1.0;
    CHECK(r_quake_tint(NULL, cl, 1.0, NULL, c));
    CHECK(fabsf(c[3] - 60 / 255.0f) < 1e-4f && fabsf(c[0] - 255) < 1e-3f && c[1] == 0);
    CHECK(r_quake_tint(NULL, cl, 1.2, NULL, c) && fabsf(c[3] - 30 / 255.0f) < 1e-4f);
    CHECK(!r_quake_tint(NULL, cl, 1.41, NULL, c));
    cl->view.bonus_time = 2.0;
    CHECK(r_quake_tint(NULL, cl, 2.0, NULL, c));
    CHECK(fabsf(c[3] - 50 / 255.0f) < 1e-4f && fabsf(c[0] - 215) < 1e-3f &&
          fabsf(c[1] - 186) < 1e-3f && fabsf(c[2] - 69) < 1e-3f);
    CHECK(!r_quake_tint(NULL, cl, 2.51, NULL, c));
    cl_stats st;
    memset(&st, 0, sizeof st);
    st.powerup_end[CL_PU_QUAD] = -1;
    cl_set_stats(cl, -1, &st);
    cl->view.dmg_time = 3.0;
    CHECK(r_quake_tint(NULL, cl, 3.0, NULL, c));
    CHECK_MSG(fabsf(c[3] - 0.3253f) < 1e-3f && fabsf(c[0] - 162.8f) < 0.2f &&
                  fabsf(c[2] - 92.2f) < 0.2f,
              "%g %g %g %g", (double)c[0], (double)c[1], (double)c[2], (double)c[3]);
    free(cl);
}

/* Quake II's rail trail (cl_fx.c CL_RailTrail): along 100 units, a spiral particle a unit
 * (100, colours 0x74..0x7b, 3 units from the line at first, fading over 1..1.2 s) and a
 * core particle every 0.75 units (134, colours 0..15, fading over 0.6..0.8 s): 234 at once,
 * the spiral's 100 at 0.9 s, none at 1.21 s. */
TEST(render_q2_rail_trail_particles)
{
    static r_particle p[1024];
    cl_fxev e;
    memset(&e, 0, sizeof e);
    e.kind = CL_FXK_BEAM_RAIL;
    e.t0 = 3;
    e.end[0] = 100;
    int n = r_q2_rail_particles(&e, 0, p, 1024), spiral = 0, core = 0;
    CHECK_EQ(n, 234);
    for (int i = 0; i < n; i++) {
        float r = sqrtf(p[i].org[1] * p[i].org[1] + p[i].org[2] * p[i].org[2]);
        if (p[i].color >= 0x74 && p[i].color <= 0x7b && fabsf(r - 3) < 1e-3f)
            spiral++;
        else if (p[i].color <= 15 && fabsf(p[i].org[1]) <= 3 && fabsf(p[i].org[2]) <= 3)
            core++;
        CHECK(p[i].alpha == 255);
    }
    CHECK(spiral == 100 && core == 134);
    CHECK_EQ(r_q2_rail_particles(&e, 0.9f, p, 1024), 100);
    CHECK_EQ(r_q2_rail_particles(&e, 1.21f, p, 1024), 0);
}

/* Quake II's explosion and impact particles (cl_fx.c): CL_ExplosionParticles throws 256 of
 * 0xe0..0xe7 within 16 units, gone by 1 s (alpha falling 0.8 over 0.5..0.8 s);
 * CL_ParticleEffect 60 of blood's 0xe8..0xef or 40 of a gunshot's 0..7 within 4 units, gone
 * by 0.8 s. */
TEST(render_q2_explosion_and_impact_particles)
{
    static r_particle p[1024];
    cl_fxev e;
    memset(&e, 0, sizeof e);
    e.t0 = 7;
    e.kind = CL_FXK_EXPLOSION;
    int n = r_q2_particles_of(&e, 0, p, 1024);
    CHECK_EQ(n, 256);
    for (int i = 0; i < n; i++) {
        CHECK(p[i].color >= 0xe0 && p[i].color <= 0xe7 && p[i].alpha == 255);
        for (int k = 0; k < 3; k++)
            CHECK(fabsf(p[i].org[k]) <= 16);
    }
    CHECK_EQ(r_q2_particles_of(&e, 1.01f, p, 1024), 0);
    static const struct {
        uint8_t kind, lo;
        int count;
    } fx[2] = {{CL_FXK_BLOOD, 0xe8, 60}, {CL_FXK_IMPACT, 0, 40}};
    for (int k = 0; k < 2; k++) {
        e.kind = fx[k].kind;
        n = r_q2_particles_of(&e, 0, p, 1024);
        CHECK_EQ(n, fx[k].count);
        for (int i = 0; i < n; i++)
            CHECK(p[i].color >= fx[k].lo && p[i].color <= fx[k].lo + 7 &&
                  fabsf(p[i].org[0]) <= 4);
        CHECK_EQ(r_q2_particles_of(&e, 0.81f, p, 1024), 0);
    }
}

/* R_RocketTrail type 1 (a grenade's smoke, EF_GRENADE): a grenade seen at the origin at 1.0 s
 * and at (60, 0, 20) at 1.1 s flies at (600, 0, 200) a second and falls at sv_gravity 800:
 * age a back it was at x = 60 - 600 a, z = 20 - 200 a - 400 a^2. At 1.1 s its particles (one
 * every 3 units of its flight, 0.1 s x 632 units a second: k = 0 .. 21) lie on that curve:
 * each within 3 units (the spread) of it, raised by pt_fire's 20 a^2, the spread in x moving
 * the curve's height by at most its slope x 3 (1.4 x 3); a rocket's straight path (type 0)
 * would be 400 a^2 higher. Then on e1m1 (the sample's map): a grenade that has just bounced
 * up off the floor (found here: the first solid unit under it) has its path before the
 * bounce in the floor: without the map some particles lie under the floor, with it none
 * (allowing the spread and the slope as above). */
TEST(render_quake_grenade_trail)
{
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    seen_twice(cl, (const float[3]){0, 0, 0}, (const float[3]){60, 0, 20});
    static r_particle p[1024];
    int n = r_trail_particles(cl, NULL, 5, 1, 1.1, p, 1024), off = 0;
    CHECK_EQ(n, 22);
    for (int i = 0; i < n; i++) {
        float a = (60 - p[i].org[0]) / 600;
        float z = 20 - 200 * a - 400 * a * a + 20 * a * a;
        off += fabsf(p[i].org[2] - z) > 3 + 4.3f || fabsf(p[i].org[1]) > 3;
    }
    CHECK_EQ(off, 0);
    size_t len = 0;
    uint8_t *data = test_read_file("assets/maps/e1m1.bsp", &len);
    mdl_bsp *b = NULL;
    qd_error err = {0};
    if (data && mdl_bsp_load(data, len, "e1m1.bsp", NULL, &b, &err) == QD_OK) {
        /* up at 500 a second, from the floor */
        seen_twice(cl, (const float[3]){480, -300, 20}, (const float[3]){480, -300, 70});
        /* the floor under it: the first solid unit down from the grenade */
        float floor_z = 70;
        for (float z = 70; z > -4096; z -= 1) {
            const float at[3] = {480, -300, z};
            uint32_t li = mdl_bsp_point_leaf(b, b->models[0].headnode, at);
            if (li < b->num_leaves && b->leaves[li].contents == MDL_CONTENTS_SOLID) {
                floor_z = z;
                break;
            }
        }
        int open = r_trail_particles(cl, NULL, 5, 1, 1.1, p, 1024), low = 0, under = 0;
        for (int i = 0; i < open; i++)
            under += p[i].org[2] < floor_z - 3 - 4.3f;
        int kept = r_trail_particles(cl, b, 5, 1, 1.1, p, 1024);
        for (int i = 0; i < kept; i++)
            low += p[i].org[2] < floor_z - 3 - 4.3f;
        CHECK_MSG(floor_z < 70 && under > 0, "floor %.0f, %d of %d under it", floor_z, under,
                  open);
        CHECK_MSG(kept < open, "%d without the map, %d with", open, kept);
        CHECK_EQ(low, 0);
        mdl_bsp_free(b);
    }
    free(data);
    free(cl);
}
