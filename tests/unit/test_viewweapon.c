/* test_viewweapon.c: the first-person view weapon of Quake II (the playerstate's gunindex
 * and gunframe of a real .dm2, drawn from a built gun model at the eye) and Quake III (the
 * followed bot's weapon in an OpenArena demo), on by default in the recorded view and off
 * when the options leave it out (--no-gun, other cameras). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../pak-loader/pak.h"
#include "../../src/demo/demo.h"
#include "../../src/render/r_local.h"
#include "../../src/timeline/timeline.h"
#include "../md2build.h"
#include "../test.h"

#define W 160
#define H 120

typedef struct gun_files {
    const char *model; /* the name the gun answers to */
    bytes md2, skin;
} gun_files;

static qd_err read_gun(void *ctx, const char *name, uint8_t **data, size_t *len,
                       qd_error *err)
{
    const gun_files *g = ctx;
    const bytes *b = strcmp(name, g->model) == 0          ? &g->md2
                     : strcmp(name, "models/gun.pcx") == 0 ? &g->skin
                                                           : NULL;
    if (!b)
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
    *data = malloc(b->len);
    memcpy(*data, b->p, b->len);
    *len = b->len;
    return QD_OK;
}

/* A gun: a square of 16 x 16 units 20 units in front of the eye (plane x = 20 of the model,
 * facing -x, wound as id's alias models), its skin all index 1, red. 64 pixels wide on a
 * 160-pixel screen at FOV 90 (80 pixels per unit of depth). */
static void build_gun(gun_files *g)
{
    static const uint8_t v[12] = {0, 0, 0, 0, 255, 0, 0, 255, 255, 0, 0, 255};
    const float s = 16.0f / 255.0f, scale[3] = {1, s, s}, trans[3] = {20, -8, -8};
    static const uint16_t tri[12] = {0, 1, 2, 0, 1, 2, 0, 2, 3, 0, 2, 3};
    static const int16_t st[8] = {0, 0, 8, 0, 8, 8, 0, 8};
    g->md2 = md2(1, 4, v, scale, trans, 2, tri, 4, st, "models/gun.pcx", 8, 8);
    uint8_t pix[64], pal[768];
    memset(pix, 1, sizeof pix);
    memset(pal, 0, sizeof pal);
    pal[3] = 220;
    g->skin = pcx(8, 8, pix, pal);
}

static rast_fb *view(const r_assets *a, const cl_state *cl, double t, int gun)
{
    rast_fb *fb = rast_fb_new(W, H);
    r_camera cam;
    r_camera_from_view(cl, t, &cam);
    r_options o = {.mode = R_MODE_TEXTURED, .gun = gun};
    r_render(a, cl, t, &cam, &o, fb);
    return fb;
}

/* The demo at path opened on a timeline and its state dt seconds after its start (*t that
 * time); NULL when the file is not there (the caller skips), and NULL with the test failed
 * when it is there but does not open or play to that time (the skip then counts as the
 * failure it is). */
static timeline_t *state_at(const char *path, double dt, double *t, const cl_state **cl)
{
    if (access(path, R_OK) != 0)
        return NULL;
    qd_error err = {0};
    demo_t *d = demo_open(path, &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    *t = tl ? tl_start(tl) + dt : 0;
    *cl = tl ? tl_state_at(tl, *t, &err) : NULL;
    if (!*cl) {
        test_fail_at(__FILE__, __LINE__, err.msg[0] ? err.msg : "the demo does not open");
        tl_close(tl);
        return NULL;
    }
    return tl;
}

/* libq2's duel demo: after a second the recorded player holds a gun. Its gunindex is a
 * CS_MODELS index naming a view model (models/weapons/v_*); drawn from a built gun of that
 * name, the view shows about 64 x 64 red pixels in its middle with the gun on, none off. */
TEST(viewweapon_quake2_gunindex_drawn)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/dm2/libq2_testdata_testduel.dm2", test_realdata());
    double t;
    const cl_state *cl;
    timeline_t *tl = state_at(path, 5.0, &t, &cl);
    if (!tl)
        SKIP("no real data (dm2/libq2_testdata_testduel.dm2)");
    const cl_stats *st = cl_stats_of(cl, -1);
    CHECK(st && st->gun_model > 0 && st->gun_model < cl->level.num_models);
    qd_error err = {0};
    const char *name = cl->level.models[st->gun_model];
    CHECK_MSG(strncmp(name, "models/weapons/v_", 17) == 0, "gun model %s", name);
    gun_files g = {name, {0}, {0}};
    build_gun(&g);
    r_assets *a = r_assets_load(&cl->level, read_gun, &g, NULL, &err);
    CHECK(a && a->models[st->gun_model].kind == R_KIND_MD2);
    rast_fb *on = view(a, cl, t, 1), *off = view(a, cl, t, 0);
    int red_on = 0, red_off = 0;
    for (int i = 0; i < W * H; i++) {
        red_on += on->color[i] == on->color[(H / 2) * W + W / 2];
        red_off += off->color[i] == on->color[(H / 2) * W + W / 2];
    }
    uint32_t mid = on->color[(H / 2) * W + W / 2];
    CHECK_MSG((mid & 0xff) > 0 && !(mid >> 8 & 0xffff), "middle pixel %08x", (unsigned)mid);
    CHECK_MSG(red_on > 3500 && red_on < 4800, "%d gun pixels", red_on);
    CHECK_EQ(red_off, 0);
    rast_fb_free(on);
    rast_fb_free(off);
    r_assets_free(a);
    free(g.md2.p);
    free(g.skin.p);
    tl_close(tl);
}

/* ---- Quake III ---- */

#define OA_DIR "/usr/share/games/openarena/baseoa"

static qd_err oa_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    return pak_read(ctx, name, data, len, err);
}

static int oa_list(void *ctx, const char *prefix,
                   void (*fn)(void *u, const char *name, uint64_t size), void *u)
{
    return pak_list_search_order(ctx, prefix, fn, u);
}

/* The OpenArena bot demo at 11 s: the followed bot holds a weapon; its world model
 * (models/weapons2/...) is the view's gun_model. With the gun on against off, many pixels
 * change, none in the top left quarter and nine in ten or more in the right half and in
 * the bottom half (the hand's tag lies right of and below the eye). */
TEST(viewweapon_quake3_held_weapon_drawn)
{
    FILE *f = fopen(OA_DIR "/pak0.pk3", "rb");
    if (!f)
        SKIP("OpenArena not installed (" OA_DIR ")");
    fclose(f);
    pak_fs *fs = pak_fs_open();
    qd_error err = {0};
    CHECK(fs && pak_fs_add_game_dir(fs, OA_DIR, &err) == QD_OK);
    double t;
    const cl_state *cl;
    timeline_t *tl = state_at("tests/data/fidelity/oa/oa_dm3_follow.dm_71", 11.0, &t, &cl);
    if (!tl) {
        pak_fs_close(fs);
        SKIP("run from the project root");
    }
    const cl_stats *st = cl_stats_of(cl, -1);
    CHECK(st && st->gun_model > 0 && st->gun_model < cl->level.num_models);
    CHECK_MSG(strncmp(cl->level.models[st->gun_model], "models/weapons2/", 16) == 0,
              "gun model %s", cl->level.models[st->gun_model]);
    r_assets *a = r_assets_load(&cl->level, oa_read, fs, NULL, &err);
    CHECK(a && r_assets_q3_textures(a, oa_read, oa_list, fs, &err) == QD_OK);
    rast_fb *on = view(a, cl, t, 1), *off = view(a, cl, t, 0);
    int changed = 0, left_top = 0, left = 0, top = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (on->color[y * W + x] != off->color[y * W + x]) {
                changed++;
                left_top += x < W / 2 && y < H / 2;
                left += x < W / 2;
                top += y < H / 2;
            }
    CHECK_MSG(changed > W * H / 40, "%d pixels changed", changed);
    CHECK_MSG(left_top == 0 && left * 10 < changed && top * 10 < changed,
              "%d changed, %d in the left half, %d in the top half", changed, left, top);
    rast_fb_free(on);
    rast_fb_free(off);
    r_assets_free(a);
    tl_close(tl);
    pak_fs_close(fs);
}

/* Quake II's gun takes the view's angles as they are (V_AddViewWeapon) and its renderer
 * negates an alias model's pitch (R_DrawAliasModel): the gun turns with the view, so
 * looking 30 degrees down or up leaves it where it was on the screen: the middle pixel
 * red and the same number of red pixels. Without a map (flat). */
TEST(viewweapon_quake2_gun_follows_pitch)
{
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    gun_files g = {"models/weapons/v_test/tris.md2", {0}, {0}};
    build_gun(&g);
    cl_set_model(cl, 2, g.model);
    cl_stats st;
    memset(&st, 0, sizeof st);
    st.gun_model = 2;
    cl_set_stats(cl, -1, &st);
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, read_gun, &g, NULL, &err);
    CHECK(a && a->models[2].kind == R_KIND_MD2);
    int count[3] = {0};
    for (int k = 0; k < 3; k++) {
        rast_fb *fb = rast_fb_new(W, H);
        r_camera cam = {.origin = {0, 0, 0}, .angles = {(float)(k - 1) * 30, 40, 0}, .fov = 90};
        r_options o = {.mode = R_MODE_FLAT, .gun = 1};
        r_render(a, cl, 0, &cam, &o, fb);
        uint32_t mid = fb->color[(H / 2) * W + W / 2];
        CHECK_MSG((mid & 0xff) > 0 && !(mid >> 8 & 0xffff), "pitch %d: middle %08x", (k - 1) * 30,
                  (unsigned)mid);
        for (int i = 0; i < W * H; i++)
            count[k] += fb->color[i] == mid;
        rast_fb_free(fb);
    }
    CHECK_MSG(count[0] == count[1] && count[1] == count[2], "%d %d %d", count[0], count[1],
              count[2]);
    r_assets_free(a);
    free(g.md2.p);
    free(g.skin.p);
    free(cl);
}

/* Pixels that differ between two frames. */
static int differ(const rast_fb *x, const rast_fb *y)
{
    int n = 0;
    for (int i = 0; i < W * H; i++)
        n += x->color[i] != y->color[i];
    return n;
}

/* The view of cl at t with model slot off drawn (1) or hidden (0: its kind set to none for
 * the frame, as if the file were missing). */
static rast_fb *view_without(r_assets *a, const cl_state *cl, double t, int slot)
{
    r_kind k = a->models[slot].kind;
    a->models[slot].kind = R_KIND_NONE;
    rast_fb *fb = view(a, cl, t, 1);
    a->models[slot].kind = k;
    return fb;
}

/* OpenArena 0.8.8's own demo (demo088-test1.dm_71, oa_shouse, recorded by client 0 holding
 * the machine gun, weapon=2). `qdemo dump` of it: the first snapshot is serverTime 137300
 * (demo time 0); block 139, serverTime 144300 (7.000 s), has events=667:23,23 after block
 * 138's 666:1,23, so sequence 666's slot (666 & 1 = 0) newly holds 23, EV_FIRE_WEAPON of
 * the recorder itself, which only its playerState carries. cgame shows the weapon's flash
 * model for MUZZLE_FLASH_TIME, 20 ms (cg_weapons.c): at 7.005 s hiding the flash model
 * changes the picture, at 7.030 s (no shot: block 140 repeats 667) it does not. The machine
 * gun's barrel model (machinegun_barrel.md3) is drawn at the weapon's tag_barrel. */
TEST(viewweapon_quake3_flash_and_barrel_of_the_recorder)
{
    char path[4096];
    snprintf(path, sizeof path,
             "%s/dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71", test_realdata());
    FILE *f = fopen(OA_DIR "/pak0.pk3", "rb");
    if (!f)
        SKIP("OpenArena not installed (" OA_DIR ")");
    fclose(f);
    double t0;
    const cl_state *cl;
    timeline_t *tl = state_at(path, 0, &t0, &cl);
    if (!tl)
        SKIP("no real data (dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71)");
    pak_fs *fs = pak_fs_open();
    qd_error err = {0};
    CHECK(fs && pak_fs_add_game_dir(fs, OA_DIR, &err) == QD_OK);
    r_assets *a = NULL;
    int flash_on = -1, flash_off = -1, barrel = -1;
    for (int k = 0; k < 2; k++) {
        double t = t0 + (k ? 7.030 : 7.005);
        cl = tl_state_at(tl, t, &err);
        CHECK(cl);
        if (!cl)
            break;
        const cl_stats *st = cl_stats_of(cl, -1);
        CHECK(st && st->gun_model > 0);
        if (!st || !st->gun_model)
            break;
        CHECK_STR(cl->level.models[st->gun_model], "models/weapons2/machinegun/machinegun.md3");
        CHECK_STR(cl->level.models[st->gun_model + CL_FLASH_SLOTS],
                  "models/weapons2/machinegun/machinegun_flash.md3");
        if (!a) {
            a = r_assets_load(&cl->level, oa_read, fs, NULL, &err);
            CHECK(a && r_assets_q3_textures(a, oa_read, oa_list, fs, &err) == QD_OK);
        }
        CHECK(a->models[st->gun_model + CL_FLASH_SLOTS].kind == R_KIND_MD3);
        CHECK(a->models[st->gun_model + CL_BARREL_SLOTS].kind == R_KIND_MD3);
        rast_fb *all = view(a, cl, t, 1);
        rast_fb *no_flash = view_without(a, cl, t, st->gun_model + CL_FLASH_SLOTS);
        rast_fb *no_barrel = view_without(a, cl, t, st->gun_model + CL_BARREL_SLOTS);
        *(k ? &flash_off : &flash_on) = differ(all, no_flash);
        if (!k)
            barrel = differ(all, no_barrel);
        rast_fb_free(all);
        rast_fb_free(no_flash);
        rast_fb_free(no_barrel);
    }
    CHECK_MSG(flash_on > 20, "the flash changes %d pixels", flash_on);
    CHECK_EQ(flash_off, 0);
    CHECK_MSG(barrel > 20, "the barrel changes %d pixels", barrel);
    r_assets_free(a);
    tl_close(tl);
    pak_fs_close(fs);
}
