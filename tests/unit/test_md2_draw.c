/* test_md2_draw.c: Quake II models drawn: MD2 with a built PCX skin shows the skin's
 * colours where it stands, frames lerp half way, an SP2 sprite draws its PCX, damaged PCX
 * bytes are refused at every cut, and player bodies come from the player-skin configstring
 * (male fallback). Files are built here byte by byte; the world is the sample's e1m1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/demo/q2_local.h"
#include "../../src/demo/q2_rules.h"
#include "../../src/model/model.h"
#include "../../src/render/r_local.h"
#include "../fxbuild.h"
#include "../md2build.h"
#include "../test.h"

#define MAP "assets/maps/e1m1.bsp"

uint8_t *test_spr_build(size_t *len); /* test_model_build.c */
#define W 160
#define H 120

/* A skin of 8 x 8: columns 0..3 index 1 (red 200, 0, 0), 4..7 index 2 (green 0, 200, 0);
 * every other palette entry grey 100. */
static bytes two_colour_skin(void)
{
    uint8_t pix[64], pal[768];
    for (int i = 0; i < 64; i++)
        pix[i] = (i % 8) < 4 ? 1 : 2;
    memset(pal, 100, sizeof pal);
    memcpy(pal + 3, (uint8_t[]){200, 0, 0, 0, 200, 0}, 6);
    return pcx(8, 8, pix, pal);
}

/* A square of 32 x 32 units in the model's x-z plane (y = 0), facing -y, as two triangles
 * wound as id's alias models (clockwise from the front). Its texture coordinates cover
 * skin columns s0..s1 (of an 8 x 8 skin). nf frames: frame f moved by dx[f] along x. */
static bytes square_md2(int nf, const float *dx, int s0, int s1, const char *skin)
{
    uint8_t v[2 * 4 * 3];
    float scale[6], trans[6];
    static const uint8_t corner[4][3] = {{0, 0, 0}, {255, 0, 0}, {255, 0, 255}, {0, 0, 255}};
    for (int f = 0; f < nf; f++) {
        memcpy(v + f * 12, corner, 12);
        float s = 32.0f / 255.0f;
        float sc[3] = {s, 1, s}, tr[3] = {-16 + dx[f], 0, -16};
        memcpy(scale + 3 * f, sc, sizeof sc);
        memcpy(trans + 3 * f, tr, sizeof tr);
    }
    static const uint16_t tri[12] = {0, 2, 1, 0, 2, 1, 0, 3, 2, 0, 3, 2};
    int16_t st[8] = {(int16_t)s0, 8, (int16_t)s1, 8, (int16_t)s1, 0, (int16_t)s0, 0};
    return md2(nf, 4, v, scale, trans, 2, tri, 4, st, skin, 8, 8);
}

/* ---- a scene on e1m1 ---- */

typedef struct file {
    const char *name;
    bytes b;
} file;

typedef struct files {
    file f[48];
    int n;
} files;

static int reads;              /* read_files' calls */
static const char *reads_name; /* and of them, reads_of this name's */
static int reads_of;

static qd_err read_files(void *ctx, const char *name, uint8_t **data, size_t *len,
                         qd_error *err)
{
    const files *fs = ctx;
    reads++;
    reads_of += reads_name && strcmp(name, reads_name) == 0;
    for (int i = 0; i < fs->n; i++)
        if (strcmp(fs->f[i].name, name) == 0) {
            *data = malloc(fs->f[i].b.len);
            memcpy(*data, fs->f[i].b.p, fs->f[i].b.len);
            *len = fs->f[i].b.len;
            return QD_OK;
        }
    return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
}

static void add(files *fs, const char *name, bytes b)
{
    fs->f[fs->n].name = name;
    fs->f[fs->n].b = b;
    fs->n++;
}

static void files_free(files *fs)
{
    for (int i = 0; i < fs->n; i++)
        free(fs->f[i].b.p);
}

/* e1m1 in fs and a level naming it as model 1; NULL without the sample. */
static cl_state *scene(files *fs)
{
    size_t len = 0;
    uint8_t *map = test_read_file(MAP, &len);
    if (!map)
        return NULL;
    add(fs, "maps/e1m1.bsp", (bytes){map, len, len});
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    snprintf(cl->level.map, sizeof cl->level.map, "maps/e1m1.bsp");
    cl_set_model(cl, 1, "maps/e1m1.bsp");
    return cl;
}

/* A test's files fs and level cl on e1m1; skips without the sample. */
#define SCENE(fs, cl)                                                                      \
    files fs = {0};                                                                        \
    cl_state *cl = scene(&fs);                                                             \
    if (!cl)                                                                               \
    SKIP("run from the project root (" MAP ")")

/* The eye: e1m1's info_player_start (480 -352 88, facing +y) lifted by 22. */
static const float eye[3] = {480, -352, 110};

/* Render cl at t from the eye looking along +y (textured, gun as given). */
static rast_fb *shot(const r_assets *a, const cl_state *cl, double t, int gun)
{
    rast_fb *fb = rast_fb_new(W, H);
    r_camera cam = {.origin = {eye[0], eye[1], eye[2]}, .angles = {0, 90, 0}, .fov = 90};
    r_options o = {.mode = R_MODE_TEXTURED, .gun = gun};
    r_render(a, cl, t, &cam, &o, fb);
    return fb;
}

/* Entity 1 with model slot 2 at 64 units in front of the eye (frame f). */
static void place(cl_state *cl, double t, int frame)
{
    cl_frame_begin(cl, t);
    cl_entstate s;
    memset(&s, 0, sizeof s);
    s.origin[0] = eye[0];
    s.origin[1] = eye[1] + 64;
    s.origin[2] = eye[2];
    s.model = 2;
    s.frame = (uint16_t)frame;
    cl_entity_update(cl, 1, &s);
    cl_frame_end(cl, 1);
}

/* A test's scene and up to three frames, freed (NULL frames are skipped). */
static void scene_free(files *fs, cl_state *cl, r_assets *a, rast_fb *f0, rast_fb *f1,
                       rast_fb *f2)
{
    rast_fb_free(f0);
    rast_fb_free(f1);
    rast_fb_free(f2);
    r_assets_free(a);
    free(cl);
    files_free(fs);
}

typedef struct census {
    int changed, red, green, blue, other;
    double sum_x;
} census;

/* What differs between a and b (b: the scene without the model), by hue. */
static census count(const rast_fb *a, const rast_fb *b)
{
    census c = {0};
    for (int i = 0; i < W * H; i++) {
        uint32_t p = a->color[i];
        if (p == b->color[i])
            continue;
        c.changed++;
        c.sum_x += i % W;
        unsigned r = p & 255, g = p >> 8 & 255, bl = p >> 16 & 255;
        if (r > 0 && !g && !bl)
            c.red++;
        else if (g > 0 && !r && !bl)
            c.green++;
        else if (bl > 0 && !r && !g)
            c.blue++;
        else
            c.other++;
    }
    return c;
}

/* The square 64 units away is 32 units wide: 40 pixels at 80 pixels per unit of depth
 * (a 160-pixel screen at FOV 90), about 1600 pixels. Skin columns 0..3 are red, 4..7
 * green: the square mapped on one half shows that half's colour and nothing else. */
TEST(md2_skin_colours_where_the_model_is)
{
    for (int half = 0; half < 2; half++) {
        SCENE(fs, cl);
        add(&fs, "models/test/tris.md2",
            square_md2(1, (float[]){0}, half ? 4 : 0, half ? 8 : 4, "models/test/skin.pcx"));
        add(&fs, "models/test/skin.pcx", two_colour_skin());
        cl_set_model(cl, 2, "models/test/tris.md2");
        qd_error err = {0};
        r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
        CHECK(a && a->num_models > 2 && a->models[2].kind == R_KIND_MD2);
        CHECK(a->models[2].num_skins == 1 && a->models[2].skins[0].pic);
        rast_fb *bare = shot(a, cl, 0, 0);
        place(cl, 0, 0);
        rast_fb *with = shot(a, cl, 0, 0);
        census c = count(with, bare);
        CHECK_MSG(c.changed > 1200 && c.changed < 2000, "%d pixels changed", c.changed);
        CHECK_EQ(c.other, 0);
        CHECK_EQ(c.blue, 0);
        CHECK_EQ(half ? c.red : c.green, 0);
        CHECK_EQ(half ? c.green : c.red, c.changed);
        scene_free(&fs, cl, a, bare, with, NULL);
    }
}

/* A 2048 x 2048 PCX of index 7 (grey palette) as name in fs; 0 when out of memory. */
static int add_big_pcx(files *fs, const char *name)
{
    enum { SIDE = 2048 };
    uint8_t *pix = malloc((size_t)SIDE * SIDE), pal[768];
    if (!pix)
        return 0;
    memset(pix, 7, (size_t)SIDE * SIDE);
    memset(pal, 100, sizeof pal);
    add(fs, name, pcx(SIDE, SIDE, pix, pal));
    free(pix);
    return 1;
}

/* 40 slots of one MD2 (each slot loads its own skins, as Quake II players do) whose skin is
 * a 2048 x 2048 picture (4 M pixels, a 64 KiB light table and the 136,065 bytes of its file
 * read, 4,395,905 bytes a copy): the level holds at most R_SKIN_ROOM (128 MiB) of them, 30
 * copies (by hand: 134,217,728 / 4,395,905 = 30.5), the rest drawn flat. Before the fix each
 * slot decoded its own under a budget of its own: 40 copies, 170 MB (a review: 64 slots of
 * 32 skins, 2.6 GB and 37 s); before the file's bytes counted, 31 (a review: a 2 MB file of
 * one pixel named by every skin was read without bound). */
TEST(md2_skins_share_one_room_a_level)
{
    enum { SIDE = 2048, SLOTS = 40 };
    SCENE(fs, cl);
    CHECK(add_big_pcx(&fs, "models/big/skin.pcx"));
    if (test_failed()) {
        scene_free(&fs, cl, NULL, NULL, NULL, NULL);
        return;
    }
    add(&fs, "models/big/tris.md2", square_md2(1, (float[]){0}, 0, 4, "models/big/skin.pcx"));
    for (int i = 0; i < SLOTS; i++)
        cl_set_model(cl, 2 + i, "models/big/tris.md2");
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a && a->num_models >= 2 + SLOTS);
    int decoded = 0;
    for (int i = 0; a && i < SLOTS; i++) {
        const r_model *m = &a->models[2 + i];
        CHECK(m->kind == R_KIND_MD2);
        decoded += m->num_skins > 0 && m->skins[0].pic != NULL;
    }
    CHECK_MSG(decoded == 30, "%d copies of the skin decoded", decoded);
    scene_free(&fs, cl, a, NULL, NULL, NULL);
}

/* A skin that is not there: the model is drawn flat (not an error, not a box). */
TEST(md2_missing_skin_draws_flat)
{
    SCENE(fs, cl);
    add(&fs, "models/test/tris.md2", square_md2(1, (float[]){0}, 0, 4, "models/test/none.pcx"));
    cl_set_model(cl, 2, "models/test/tris.md2");
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a && a->models[2].kind == R_KIND_MD2 && !a->models[2].skins[0].pic);
    CHECK_EQ(r_assets_missing(a), 0);
    rast_fb *bare = shot(a, cl, 0, 0);
    place(cl, 0, 0);
    rast_fb *with = shot(a, cl, 0, 0);
    census c = count(with, bare);
    /* the same square as the textured one's (about 1600 pixels: not a box's outline) */
    CHECK_MSG(c.changed > 1200 && c.changed < 2000, "%d pixels changed", c.changed);
    /* flat: every pixel it covers one colour (one face, facing the camera: one light) */
    uint32_t flat = 0;
    int colours = 0;
    for (int i = 0; i < W * H; i++)
        if (with->color[i] != bare->color[i] && (colours == 0 || with->color[i] != flat)) {
            flat = with->color[i];
            colours++;
        }
    CHECK_EQ(colours, 1);
    scene_free(&fs, cl, a, bare, with, NULL);
}

/* Frame 0 has the square 40 units left of the entity, frame 1 40 units right: vertex 0
 * (byte 0 on x: -16 + dx) is at -56 and +24, half way -16; drawn at the middle of the two
 * frames' times the square is centred on the screen (its pixels' mean column W / 2). */
TEST(md2_frames_lerp_half_way)
{
    bytes m = square_md2(2, (float[]){-40, 40}, 0, 4, "models/test/skin.pcx");
    mdl_md2 *md = NULL;
    qd_error err = {0};
    CHECK(mdl_md2_load(m.p, m.len, "square", &md, &err) == QD_OK);
    float p[3];
    mdl_md2_vertex(md, 0, 1, 0.5f, 0, p);
    CHECK(fabsf(p[0] - -16.0f) < 1e-4f && fabsf(p[1]) < 1e-6f && fabsf(p[2] - -16.0f) < 1e-4f);
    mdl_md2_vertex(md, 0, 1, 0.25f, 2, p); /* byte 255 on x: -16 + 32 + dx = -24, +56 */
    CHECK(fabsf(p[0] - -4.0f) < 1e-3f && fabsf(p[2] - 16.0f) < 1e-3f);
    mdl_md2_free(md);

    files fs = {0};
    cl_state *cl = scene(&fs);
    if (!cl) {
        free(m.p);
        SKIP("run from the project root (" MAP ")");
    }
    add(&fs, "models/test/tris.md2", m);
    add(&fs, "models/test/skin.pcx", two_colour_skin());
    cl_set_model(cl, 2, "models/test/tris.md2");
    r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a && a->models[2].kind == R_KIND_MD2);
    rast_fb *bare = shot(a, cl, 0, 0);
    place(cl, 0, 0);
    place(cl, 1, 1);
    rast_fb *mid = shot(a, cl, 0.5, 0), *end = shot(a, cl, 1, 0);
    census c = count(mid, bare), e = count(end, bare);
    CHECK_MSG(c.changed > 1200, "%d pixels changed", c.changed);
    double mx = c.sum_x / c.changed, ex = e.sum_x / e.changed;
    CHECK_MSG(fabs(mx - W / 2.0) < 2.0, "mean column %.1f", mx);
    /* 40 units right at 64 deep: 50 pixels right of the middle */
    CHECK_MSG(fabs(ex - (W / 2.0 + 50)) < 3.0, "mean column at the end %.1f", ex);
    scene_free(&fs, cl, a, bare, mid, end);
}

/* An SP2 with one frame of 16 x 16 whose PCX is blue (index 3) on its left half and
 * see-through (index 255) on its right half: 16 units at 64 deep is 20 pixels, so about
 * 20 x 10 blue pixels and nothing else changed. */
TEST(md2_sp2_sprite_draws_its_pcx)
{
    SCENE(fs, cl);
    uint8_t pix[256], pal[768];
    for (int i = 0; i < 256; i++)
        pix[i] = (i % 16) < 8 ? 3 : 255;
    memset(pal, 100, sizeof pal);
    memcpy(pal + 9, (uint8_t[]){0, 0, 220}, 3);
    add(&fs, "sprites/s.pcx", pcx(16, 16, pix, pal));
    bytes sp = {0};
    gput(&sp, "IDS2", 4);
    g32(&sp, 2);
    g32(&sp, 1);
    g32(&sp, 16);
    g32(&sp, 16);
    g32(&sp, 8);
    g32(&sp, 8);
    pname(&sp, "sprites/s.pcx", 64);
    add(&fs, "sprites/s.sp2", sp);
    cl_set_model(cl, 2, "sprites/s.sp2");
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a && a->models[2].kind == R_KIND_SPRITE && a->models[2].sprite->palette);
    rast_fb *bare = shot(a, cl, 0, 0);
    place(cl, 0, 0);
    rast_fb *with = shot(a, cl, 0, 0);
    census c = count(with, bare);
    CHECK_MSG(c.blue > 150 && c.blue < 260, "%d blue", c.blue);
    CHECK_EQ(c.changed, c.blue);
    scene_free(&fs, cl, a, bare, with, NULL);
}

/* An SP2 whose five frames all name one 2048 x 2048 PCX (4 Mi pixels; 136,065 bytes: rows
 * of 32 runs of 63 and one of 32, two bytes each, 66 x 2048, with the 128-byte header and
 * the 769 of the palette): the file is read once, frame 0 costs its bytes and pixels,
 * frames 1 and 2 copy them (4 Mi each), and frame 3 would pass the sprite's 16 Mi
 * (MDL_PICTURES_MAX_PIXELS: 16,777,216 - 136,065 - 3 x 4,194,304 = 4,058,239 left), so it
 * and frame 4 are left out as pictures not there (no pixels, grey) and the sprite still
 * loads (before, every frame decoded the picture again: a small file made memory without
 * bound; found by a review; and each frame read it again: a 2 MB file named by 4,096
 * frames was 8 GB read, another review). */
TEST(md2_sp2_frames_share_a_pixel_budget)
{
    enum { SIDE = 2048, FRAMES = 5 };
    uint8_t *pix = malloc((size_t)SIDE * SIDE), pal[768];
    CHECK(pix != NULL);
    if (!pix)
        return;
    memset(pix, 7, (size_t)SIDE * SIDE);
    memset(pal, 100, sizeof pal);
    files fs = {0};
    add(&fs, "sprites/big.pcx", pcx(SIDE, SIDE, pix, pal));
    free(pix);
    bytes sp = {0};
    gput(&sp, "IDS2", 4);
    g32(&sp, 2);
    g32(&sp, FRAMES);
    for (int i = 0; i < FRAMES; i++) {
        g32(&sp, 16), g32(&sp, 16), g32(&sp, 8), g32(&sp, 8);
        pname(&sp, "sprites/big.pcx", 64);
    }
    mdl_sprite *s = NULL;
    qd_error err = {0};
    CHECK_EQ(fs.f[0].b.len, 136065);
    reads = 0;
    CHECK(mdl_sp2_load(sp.p, sp.len, "big.sp2", read_files, &fs, NULL, NULL, &s, &err) == QD_OK);
    CHECK_EQ(reads, 1);
    for (int i = 0; s && i < FRAMES; i++) {
        CHECK_MSG((s->frames[i].pixels != NULL) == (i < 3), "frame %d", i);
        CHECK(i < 3 ? s->frames[i].width == SIDE && s->frames[i].pixels[SIDE * SIDE - 1] == 7
                    : s->frames[i].color == MDL_RGB(128, 128, 128));
    }
    mdl_sprite_free(s);
    free(sp.p);
    files_free(&fs);
}

/* A level's sprites: one name in 40 slots is loaded once (the slots share it; a review: one
 * sprite in 4,000 slots took 4.5 GB), and 40 names, each an SP2 of one frame naming one
 * 2048 x 2048 PCX (136,065 bytes and 4 Mi pixels, md2_sp2_frames_share_a_pixel_budget),
 * take the level's room for pictures (R_SKIN_ROOM, 128 MiB) a sprite at a time: 134,217,728
 * / 4,330,369 = 30.99, so 30 have their picture and the other 10 are grey frames (before,
 * each had 16 Mi pixels of its own: 254 slots, 4 GB). A Quake sprite in 40 slots is one. */
TEST(md2_sprites_share_slots_and_the_level_room)
{
    enum { SIDE = 2048, SLOTS = 40 };
    SCENE(fs, cl);
    CHECK(add_big_pcx(&fs, "sprites/big.pcx"));
    if (test_failed()) {
        scene_free(&fs, cl, NULL, NULL, NULL, NULL);
        return;
    }
    static char names[SLOTS][32];
    for (int i = 0; i < SLOTS; i++) {
        snprintf(names[i], sizeof names[i], "sprites/s%d.sp2", i);
        bytes sp = {0};
        gput(&sp, "IDS2", 4);
        g32(&sp, 2);
        g32(&sp, 1);
        g32(&sp, 16), g32(&sp, 16), g32(&sp, 8), g32(&sp, 8);
        pname(&sp, "sprites/big.pcx", 64);
        add(&fs, names[i], sp);
    }
    /* one name in every slot: one read of its picture, one sprite */
    for (int i = 0; i < SLOTS; i++)
        cl_set_model(cl, 2 + i, names[0]);
    reads_name = "sprites/big.pcx";
    reads_of = 0;
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a && a->num_models >= 2 + SLOTS);
    CHECK_EQ(reads_of, 1);
    for (int i = 1; a && i < SLOTS; i++)
        CHECK(a->models[2 + i].kind == R_KIND_SPRITE &&
              a->models[2 + i].sprite == a->models[2].sprite);
    r_assets_free(a);
    /* forty names: thirty pictures */
    for (int i = 0; i < SLOTS; i++)
        cl_set_model(cl, 2 + i, names[i]);
    a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    int drawn = 0;
    for (int i = 0; a && i < SLOTS; i++) {
        const r_model *m = &a->models[2 + i];
        CHECK(m->kind == R_KIND_SPRITE);
        drawn += m->kind == R_KIND_SPRITE && m->sprite->frames[0].pixels != NULL;
    }
    CHECK_MSG(drawn == 30, "%d sprites with their picture", drawn);
    r_assets_free(a);
    /* a Quake sprite in every slot */
    size_t len = 0;
    uint8_t *spr = test_spr_build(&len);
    add(&fs, "progs/s.spr", (bytes){spr, len, len});
    for (int i = 0; i < SLOTS; i++)
        cl_set_model(cl, 2 + i, "progs/s.spr");
    reads_name = "progs/s.spr";
    reads_of = 0;
    a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK_EQ(reads_of, 1);
    for (int i = 1; a && i < SLOTS; i++)
        CHECK(a->models[2 + i].kind == R_KIND_SPRITE &&
              a->models[2 + i].sprite == a->models[2].sprite);
    reads_name = NULL;
    scene_free(&fs, cl, a, NULL, NULL, NULL);
}

/* A picture that is there but damaged (a PCX of version 3: byte 1) is drawn flat and said:
 * r_assets_load's error names it and its byte, for an SP2's frame and for an MD2's skin
 * (a review: both were silent, where a damaged model was said). */
TEST(md2_damaged_pictures_named)
{
    for (int k = 0; k < 2; k++) {
        SCENE(fs, cl);
        bytes bad = two_colour_skin();
        bad.p[1] = 3;
        add(&fs, "sprites/bad.pcx", bad);
        if (k == 0) {
            bytes sp = {0};
            gput(&sp, "IDS2", 4);
            g32(&sp, 2);
            g32(&sp, 1);
            g32(&sp, 8), g32(&sp, 8), g32(&sp, 4), g32(&sp, 4);
            pname(&sp, "sprites/bad.pcx", 64);
            add(&fs, "sprites/s.sp2", sp);
            cl_set_model(cl, 2, "sprites/s.sp2");
        } else {
            add(&fs, "models/m/tris.md2", square_md2(1, (float[]){0}, 0, 4, "sprites/bad.pcx"));
            cl_set_model(cl, 2, "models/m/tris.md2");
        }
        qd_error err = {0};
        r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
        CHECK(a && a->models[2].kind == (k ? R_KIND_MD2 : R_KIND_SPRITE));
        CHECK_MSG(err.code == QD_ERR_UNSUPPORTED && strstr(err.msg, "sprites/bad.pcx") &&
                      err.offset == 1,
                  "%d: %d %s (byte %llu)", k, err.code, err.msg,
                  (unsigned long long)err.offset);
        scene_free(&fs, cl, a, NULL, NULL, NULL);
    }
}

/* Every cut of a PCX is refused (the palette's marker byte never lands where the pixels
 * were: no pixel is 0x0c), with the file's name and an offset inside the bytes given; so
 * are a 4-bit picture, bounds that end before they start, rows shorter than the width and a
 * size the data cannot fill. The whole file decodes to the pixels and palette built. */
TEST(md2_pcx_damaged_refused)
{
    bytes b = two_colour_skin();
    mdl_pcx *p = NULL;
    qd_error err = {0};
    CHECK(mdl_pcx_load(b.p, b.len, "skin.pcx", &p, &err) == QD_OK);
    CHECK(p->w == 8 && p->h == 8 && p->pixels[3] == 1 && p->pixels[60] == 2);
    CHECK(p->palette[1] == MDL_RGB(200, 0, 0) && p->palette[2] == MDL_RGB(0, 200, 0));
    mdl_pcx_free(p);
    for (size_t cut = 0; cut < b.len; cut++) {
        err = (qd_error){0};
        p = NULL;
        CHECK_MSG(mdl_pcx_load(b.p, cut, "skin.pcx", &p, &err) != QD_OK && !p, "cut %zu",
                  cut);
        CHECK(strstr(err.msg, "skin.pcx") && err.offset <= cut);
    }
    /* byte patches (offset, value; a second pair or offset 0 value 0x0a, a no-op):
     * 4 bits a pixel, version 3, not ZSoft, xmin 9 past xmax 7, ymin 9 past ymax 7, rows
     * of 4 bytes for 8 pixels, a height of 4096 rows that 64 bytes of runs cannot fill,
     * rows of 10 bytes for 8 pixels (ZSoft pads to an even count: 8 or 9 at most; a review:
     * 65,535 bytes a row made a 1 x 4096 picture cost 268 M steps) */
    static const uint8_t edits[][4] = {{3, 4, 0, 0x0a},  {1, 3, 0, 0x0a}, {0, 0x0b, 0, 0x0b},
                                       {4, 9, 0, 0x0a},  {6, 9, 0, 0x0a}, {66, 4, 0, 0x0a},
                                       {10, 0xff, 11, 0x0f}, {66, 10, 0, 0x0a}};
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        uint8_t *c = malloc(b.len);
        memcpy(c, b.p, b.len);
        c[edits[i][0]] = edits[i][1];
        c[edits[i][2]] = edits[i][3];
        err = (qd_error){0};
        p = NULL;
        CHECK_MSG(mdl_pcx_load(c, b.len, "skin.pcx", &p, &err) != QD_OK && !p, "edit %zu", i);
        CHECK(strstr(err.msg, "skin.pcx"));
        CHECK(i + 1 < sizeof edits / sizeof edits[0] ||
              (err.offset == 66 && strstr(err.msg, "past a row")));
        free(c);
    }
    free(b.p);
}

/* The player-skin configstring "name\model/skin" names client 0's body, skin and weapon
 * models; a body entity (modelindex 255, skinnum 0) uses them. A model that is not there
 * falls back to male's, wearing male/grunt.pcx. */
TEST(md2_player_from_configstring)
{
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    q2_names *nm = calloc(1, sizeof *nm);
    char cs[] = "bob\\female/athena";
    q2_configstring(cl, nm, Q2_CS_PLAYERSKINS, cs, 0);
    CHECK_STR(cl->level.models[256], "players/female/tris.md2");
    CHECK_STR(cl->level.models[256 + CL_SKIN_SLOTS], "players/female/athena.pcx");
    CHECK_STR(cl->level.models[256 + CL_SKIN_SLOTS + CL_MAX_PLAYERS], "players/female/weapon.md2");
    q2_ent q;
    memset(&q, 0, sizeof q);
    q.number = 1;
    q.model[0] = 255;
    q.model[1] = 255;
    cl_entstate e;
    q2_ent_look(&q, 8, nm, 0, &e);
    CHECK_EQ(e.model, 256);
    CHECK_EQ(e.model2, 256 + CL_SKIN_SLOTS + CL_MAX_PLAYERS);
    /* view weapons: "#" model names, weapon 1 the first; one named after the skins still
     * reaches the player: client 0's weapon 1 is slot 256 + 320 + 2 * 64 */
    char w1[] = "#w_shotgun.md2", w2[] = "#w_bfg.md2";
    q2_configstring(cl, nm, Q2_CS_MODELS + 9, w1, 0);
    q2_configstring(cl, nm, Q2_CS_MODELS + 12, w2, 0);
    CHECK_STR(cl->level.models[256 + 320 + 128], "players/female/w_shotgun.md2");
    CHECK_STR(cl->level.models[256 + 320 + 129], "players/female/w_bfg.md2");
    q.skin = 2 << 8;
    q2_ent_look(&q, 8, nm, 0, &e);
    CHECK_EQ(e.model2, 256 + 320 + 129);
    q.skin = 3 << 8; /* past the list: weapon.md2 */
    q2_ent_look(&q, 8, nm, 0, &e);
    CHECK_EQ(e.model2, 256 + CL_SKIN_SLOTS + CL_MAX_PLAYERS);

    files fs = {0};
    add(&fs, "players/male/tris.md2",
        square_md2(1, (float[]){0}, 0, 4, "players/male/other.pcx"));
    add(&fs, "players/male/grunt.pcx", two_colour_skin());
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a && a->models[256].kind == R_KIND_MD2 && a->models[256].male);
    CHECK(a->models[256].own_skin && a->models[256].skins[0].pic);
    r_assets_free(a);
    /* a second player of the same model shares the first one's mesh, not its skin */
    char cs2[] = "tom\\female/athena";
    q2_configstring(cl, nm, Q2_CS_PLAYERSKINS + 1, cs2, 0);
    a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a && a->models[257].kind == R_KIND_MD2 && a->models[257].shared);
    CHECK(a->models[9].kind == R_KIND_NONE); /* "#w_shotgun.md2" is no file to look for */
    CHECK(a->models[257].md2 == a->models[256].md2 && a->models[257].male);
    CHECK(a->models[257].skins != a->models[256].skins && a->models[257].skins[0].pic);
    r_assets_free(a);
    files_free(&fs);
    free(nm);
    free(cl);
}

/* Mission64's v_blast (real data) names its skins, which are not here: it loads as an MD2
 * whose skins draw flat, not counted missing, and as the view weapon it shows in the lower
 * right of the screen (a view model sits right of and below the eye), none of it top left. */
TEST(md2_real_view_model_without_its_skins)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/md2/mission64-data_weapons_v_blast_tris.md2",
             test_realdata());
    size_t len = 0;
    uint8_t *data = test_read_file(path, &len);
    if (!data)
        SKIP("no real data (md2/mission64-data_weapons_v_blast_tris.md2)");
    files fs = {0};
    add(&fs, "models/weapons/v_blast/tris.md2", (bytes){data, len, len});
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    cl_set_model(cl, 2, "models/weapons/v_blast/tris.md2");
    cl_stats st;
    memset(&st, 0, sizeof st);
    st.gun_model = 2;
    st.gun_frame = 9; /* "idle101" (0..4 raise it from below the screen) */
    cl_set_stats(cl, -1, &st);
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a && a->models[2].kind == R_KIND_MD2 && a->models[2].num_skins >= 1);
    CHECK(!a->models[2].skins[0].pic);
    CHECK_STR(a->models[2].md2->skins[0], "models/weapons/v_blast/skin.pcx");
    CHECK_EQ(r_assets_missing(a), 0); /* no map named, no skin counted */
    rast_fb *on = rast_fb_new(W, H), *off = rast_fb_new(W, H);
    r_camera cam = {.fov = 90};
    r_options o = {.mode = R_MODE_FLAT, .gun = 1}, no = {.mode = R_MODE_FLAT};
    r_render(a, cl, 0, &cam, &o, on);
    r_render(a, cl, 0, &cam, &no, off);
    int quarter[4] = {0};
    for (int i = 0; i < W * H; i++)
        if (on->color[i] != off->color[i])
            quarter[(i % W >= W / 2) + 2 * (i / W >= H / 2)]++;
    CHECK_EQ(quarter[0], 0);
    CHECK_MSG(quarter[3] > W * H / 16, "%d pixels lower right", quarter[3]);
    scene_free(&fs, cl, a, on, off, NULL);
}

/* ---- Quake II's explosions ---- */

/* A box of 32 units round the origin, its four sides facing out (wound as the square), all
 * in skin columns 0..3 (red); nf frames, frame f raised by dz[f]: a box looks the same from
 * any yaw, so where it stands on the screen tells the frame whatever the explosion's turn. */
static bytes box_md2(int nf, const float *dz, const char *skin)
{
    uint8_t v[49 * 8 * 3];
    float scale[49 * 3], trans[49 * 3];
    static const uint8_t corner[8][3] = {{0, 0, 0},     {255, 0, 0},     {255, 255, 0},
                                         {0, 255, 0},   {0, 0, 255},     {255, 0, 255},
                                         {255, 255, 255}, {0, 255, 255}};
    for (int f = 0; f < nf && f < 49; f++) {
        memcpy(v + f * 24, corner, 24);
        float s = 32.0f / 255.0f, sc[3] = {s, s, s}, tr[3] = {-16, -16, -16 + dz[f]};
        memcpy(scale + 3 * f, sc, sizeof sc);
        memcpy(trans + 3 * f, tr, sizeof tr);
    }
    /* each side seen from outside: bottom-left, bottom-right, top-right, top-left corners,
     * as two triangles (BL, TR, BR) and (BL, TL, TR) with the st of the same corners */
    static const uint8_t side[4][4] = {{0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
    uint16_t tri[8 * 6];
    for (int k = 0; k < 4; k++) {
        const uint8_t *c = side[k];
        uint16_t t[12] = {c[0], c[2], c[1], 0, 2, 1, c[0], c[3], c[2], 0, 3, 2};
        memcpy(tri + 12 * k, t, sizeof t);
    }
    int16_t st[8] = {0, 8, 4, 8, 4, 0, 0, 0};
    return md2(nf, 8, v, scale, trans, 8, tri, 4, st, skin, 8, 8);
}

/* Mean row of the pure red pixels of a that differ from b (the model: the explosion's
 * particles, drawn too, are other colours), and the census of all that differ. */
static double mean_row(const rast_fb *a, const rast_fb *b, census *c)
{
    *c = count(a, b);
    double sum = 0;
    for (int i = 0; i < W * H; i++) {
        uint32_t p = a->color[i];
        sum += p != b->color[i] && (p & 255) && !(p >> 8 & 0xffff) ? i / W : 0;
    }
    return c->red ? sum / c->red : -1;
}

/* cl_tent.c CL_ParseTEnt / CL_AddExplosions (id's, facts only): a grenade's explosion
 * (TE_GRENADE_EXPLOSION 8) is r_explode's frames 30.. for 19 frames, a rocket's
 * (TE_ROCKET_EXPLOSION 7) 15 frames, at 10 a second from 100 ms before the frame that
 * brought it (frac = age x 10 + 1), frame f + 1 lerped from f; skins 0..4 (here all red)
 * while f < 10, then translucent; gone at f = frames - 1. The model here rises 4 units a
 * frame from frame 28 (0 at 34): at 0.05 s (frames 31/32, half way) 10 units under the eye, at 0.45 s
 * (35/36) 6 over: 16 units at 48..80 deep is 16 to 27 rows up. */
TEST(md2_q2_explosion_model_frames)
{
    /* the decoder's side: which temporary entities show which model (CL_ParseTEnt) */
    static const struct {
        int te, boom;
    } te[] = {{7, CL_BOOM_ROCKET}, {5, CL_BOOM_ROCKET},   {28, CL_BOOM_ROCKET},
              {8, CL_BOOM_GRENADE}, {6, CL_BOOM_GRENADE}, {18, CL_BOOM_GRENADE},
              {53, CL_BOOM_BIG},   {20, CL_BOOM_NONE},   {21, CL_BOOM_NONE}};
    for (size_t i = 0; i < sizeof te / sizeof te[0]; i++) {
        cl_fxev f;
        memset(&f, 0, sizeof f);
        CHECK(q2_temp_fx(te[i].te, 34, &f) && f.kind == CL_FXK_EXPLOSION);
        CHECK_MSG(f.style == te[i].boom, "TE %d: style %d", te[i].te, f.style);
    }
    SCENE(fs, cl);
    float dz[49];
    for (int f = 0; f < 49; f++) /* (the rocket's frames, under 30: at the eye's height) */
        dz[f] = f >= 28 ? (float)(f - 34) * 4 : 0;
    add(&fs, "models/objects/r_explode/tris.md2",
        box_md2(49, dz, "models/objects/r_explode/skin.pcx"));
    add(&fs, "models/objects/r_explode/skin.pcx", two_colour_skin());
    cl->level.game = CL_GAME_Q2;
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a && a->q2_explode[0] > 0 && a->models[a->q2_explode[0]].kind == R_KIND_MD2);
    CHECK_EQ(r_assets_missing(a), 0); /* r_explode2 is not there: the client's, not missing */
    rast_fb *bare = shot(a, cl, 0, 0);
    const float at[3] = {eye[0], eye[1] + 64, eye[2]};
    cl_fxev fx = test_fx(CL_FXK_EXPLOSION, CL_BOOM_GRENADE, 1.7f, at);
    cl->time = 0;
    cl_fx_add(cl, &fx);
    rast_fb *early = shot(a, cl, 0.05, 0), *later = shot(a, cl, 0.45, 0),
            *fading = shot(a, cl, 1.2, 0);
    census ce, cl_, cf;
    double re = mean_row(early, bare, &ce), rl = mean_row(later, bare, &cl_);
    mean_row(fading, bare, &cf);
    CHECK_MSG(ce.red > 400 && cl_.red > 400, "%d, %d red pixels", ce.red, cl_.red);
    CHECK_MSG(re - rl >= 15 && re - rl <= 28, "rows %.1f then %.1f", re, rl);
    /* opaque in its skin (no green: columns 0..3 only), then (f 13: 3/16) blended into
     * the scene: hardly a pure red pixel left */
    CHECK_EQ(ce.green, 0);
    CHECK_MSG(cf.changed > 400 && cf.red < ce.red / 10, "%d changed, %d pure red",
              cf.changed, cf.red);
    /* a rocket's 15 frames: f 13 at 1.25 s drawn, f 14 at 1.35 s gone */
    cl_fxlog_clear(cl);
    fx.style = CL_BOOM_ROCKET;
    cl_fx_add(cl, &fx);
    rast_fb *last = shot(a, cl, 1.25, 0), *gone = shot(a, cl, 1.35, 0);
    census cs, cg;
    mean_row(last, bare, &cs);
    mean_row(gone, bare, &cg);
    CHECK_MSG(cs.changed > 400, "%d pixels at 1.25 s", cs.changed);
    CHECK_MSG(cg.changed < cs.changed / 4, "%d pixels at 1.35 s", cg.changed); /* particles */
    rast_fb_free(early);
    rast_fb_free(later);
    rast_fb_free(fading);
    scene_free(&fs, cl, a, bare, last, gone);
}

/* cl_fx.c CL_RocketTrail: a Quake II rocket (EF_ROCKET) 128 units ahead, flying from 160
 * units left of the view's axis to 160 right in 0.5 s, leaves its smoke and fire particles
 * along its path: half a second in, the frame changes where the path is and nowhere far
 * from it (a particle strays at most 5 units plus 20 a second for its age, 0.5 s, and rises
 * 10 a_age^2 or falls 20 a_age^2: within 20 units of the path, 12.5 rows at 128 deep, 2.5
 * more for a particle's size), where farther the rocket's light only brightens the walls;
 * without EF_ROCKET the same flight leaves nothing (no model). */
TEST(md2_q2_rocket_trail)
{
    SCENE(fs, cl);
    cl->level.game = CL_GAME_Q2;
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a);
    rast_fb *frames[2] = {NULL, NULL};
    for (int rocket = 0; rocket < 2; rocket++) {
        for (int k = 0; k < 2; k++) {
            cl_frame_begin(cl, 0.5 * k);
            cl_entstate s;
            memset(&s, 0, sizeof s);
            s.origin[0] = eye[0] - 160 + 320 * (float)k;
            s.origin[1] = eye[1] + 128;
            s.origin[2] = eye[2];
            s.fx = rocket ? CL_FX_ROCKET : 0;
            cl_entity_update(cl, 1, &s);
            cl_frame_end(cl, 1);
        }
        frames[rocket] = shot(a, cl, 0.5, 0);
        cl_reset(cl);
        snprintf(cl->level.map, sizeof cl->level.map, "maps/e1m1.bsp");
        cl_set_model(cl, 1, "maps/e1m1.bsp");
        cl->level.game = CL_GAME_Q2;
    }
    rast_fb *bare = shot(a, cl, 0.5, 0);
    census plain = count(frames[0], bare), trail = count(frames[1], bare);
    /* far from the path only the rocket's light (CL_AddPacketEntities: 200 in 1 1 0) shows:
     * walls brighter, none darker */
    int far = 0, lit = 0;
    for (int i = 0; i < W * H; i++) {
        uint32_t p = frames[1]->color[i], q = bare->color[i];
        if (p == q || !(fabs(i / W + 0.5 - H / 2.0) > 15))
            continue;
        int brighter = 1;
        for (int c = 0; c < 24; c += 8)
            brighter &= (p >> c & 255) >= (q >> c & 255);
        far += !brighter;
        lit += brighter;
    }
    CHECK_EQ(plain.changed, 0);
    CHECK_MSG(lit > 100, "%d pixels lit by the rocket", lit);
    /* (a particle's dot, 0.75 x 1.512 units across at 128 deep, is under a pixel of this
     * 160-wide frame: about a pixel a particle) */
    CHECK_MSG(trail.changed > 10, "%d pixels changed", trail.changed);
    CHECK_EQ(far, 0);
    rast_fb_free(frames[0]);
    scene_free(&fs, cl, a, bare, frames[1], NULL);
}

/* Slots naming one file however spelt share it, read once (a review: "Progs/big.mdl",
 * "./progs//big.mdl", ... each decoded the file again, 200 spellings of one 16 MB model took
 * 3.6 GB); and the level's models share a room: assets/progs/player.mdl (1 skin of 296 x 194,
 * 801 vertices, 1,060 triangles, 143 single frames: its header and frame types, read by
 * hand) holds 296 x 194 + 143 x 801 x 13 + 1,060 x 16 + 801 x 12 = 1,573,055 bytes decoded
 * (positions 12 and a normal byte a pose vertex, a triangle 16, a texture coordinate 12), so
 * a room of two and a half of those takes two models of other names and refuses the third,
 * saying so. */
TEST(mdl_slots_share_a_file_however_spelt_and_a_room)
{
    SCENE(fs, cl);
    size_t len = 0;
    uint8_t *mdl = test_read_file("assets/progs/player.mdl", &len);
    if (!mdl) {
        scene_free(&fs, cl, NULL, NULL, NULL, NULL);
        SKIP("run from the project root (assets/progs/player.mdl)");
    }
    add(&fs, "progs/player.mdl", (bytes){mdl, len, len});
    cl_set_model(cl, 2, "progs/player.mdl");
    cl_set_model(cl, 3, "Progs/PLAYER.mdl");
    cl_set_model(cl, 4, "./progs//player.mdl");
    reads = 0;
    reads_name = "progs/player.mdl";
    reads_of = 0;
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    CHECK(a != NULL);
    CHECK_EQ(reads_of, 1);
    for (int i = 2; a && i <= 4; i++)
        CHECK_MSG(a->models[i].kind == R_KIND_ALIAS && a->models[i].alias == a->models[2].alias,
                  "slot %d", i);
    r_assets_free(a);
    /* three names of one file's bytes in a room of two and a half */
    uint8_t *b = malloc(len), *c = malloc(len);
    CHECK(b && c);
    if (b && c) {
        memcpy(b, mdl, len);
        memcpy(c, mdl, len);
        add(&fs, "progs/b.mdl", (bytes){b, len, len});
        add(&fs, "progs/c.mdl", (bytes){c, len, len});
        b = c = NULL;
    }
    cl_set_model(cl, 3, "progs/b.mdl");
    cl_set_model(cl, 4, "progs/c.mdl");
    uint64_t room = r_model_room;
    r_model_room = 1573055u * 5 / 2;
    err = (qd_error){0};
    a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
    r_model_room = room;
    CHECK(a && a->models[2].kind == R_KIND_ALIAS && a->models[3].kind == R_KIND_ALIAS &&
          a->models[4].kind == R_KIND_MISSING);
    CHECK_MSG(err.code == QD_ERR_LIMIT && strstr(err.msg, "progs/c.mdl") &&
                  strstr(err.msg, "room for models"),
              "%d %s", err.code, err.msg);
    r_assets_free(a);
    /* the room's edge is that sum exactly: three fit in three of them, not in one byte less */
    for (int k = 0; k < 2; k++) {
        r_model_room = 1573055u * 3 - (uint64_t)k;
        a = r_assets_load(&cl->level, read_files, &fs, NULL, &err);
        r_model_room = room;
        CHECK_MSG(a && a->models[4].kind == (k ? R_KIND_MISSING : R_KIND_ALIAS), "%d", k);
        r_assets_free(a);
    }
    free(b);
    free(c);
    scene_free(&fs, cl, NULL, NULL, NULL, NULL);
}
