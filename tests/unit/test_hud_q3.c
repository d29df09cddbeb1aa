/* test_hud_q3.c: Quake III's HUD (r_hud3.c): colour codes by hand, glyph placement in
 * OpenArena's bigchars, the status bar's digits of an OpenArena demo at a known moment
 * (values read from `qdemo dump`), the gauntlet's ammo hidden, and qdemo's own font standing
 * in for missing pictures. Tests needing Debian's OpenArena data or the real demo SKIP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../pak-loader/pak.h"
#include "../../src/app/player.h"
#include "../../src/app/world.h"
#include "../../src/output/out.h"
#include "../../src/render/r_local.h"
#include "../../src/timeline/timeline.h"
#include "../memread.h"
#include "../q3scan.h"
#include "../test.h"

#define OA_BASE "/usr/share/games/openarena"
#define DEMO088 "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71"
#define NEEDS "needs " DEMO088 " in the real data and Debian's OpenArena data"

/* q_shared.h: Q_IsColorString is '^' then anything but NUL and '^'; ColorIndex is
 * (c - '0') & 7; CG_DrawStrlen counts what is left. */
TEST(q3hud_color_codes)
{
    CHECK_EQ(r_q3_color_code("^1x"), 1);
    CHECK_EQ(r_q3_color_code("^7"), 7);
    CHECK_EQ(r_q3_color_code("^9"), 1);  /* '9' - '0' = 9, & 7 = 1 */
    CHECK_EQ(r_q3_color_code("^a"), 1);  /* 'a' is 97: 97 - 48 = 49, & 7 = 1 */
    CHECK_EQ(r_q3_color_code("^0"), 0);
    CHECK_EQ(r_q3_color_code("^^1"), -1); /* "^^" is no code */
    CHECK_EQ(r_q3_color_code("^"), -1);   /* at the end */
    CHECK_EQ(r_q3_color_code("a^1"), -1);
    CHECK_EQ(r_q3_color_rgb(1), rast_rgb(255, 0, 0));
    CHECK_EQ(r_q3_color_rgb(3), rast_rgb(255, 255, 0));
    CHECK_EQ(r_q3_color_rgb(4), rast_rgb(0, 0, 255));
    CHECK_EQ(r_q3_color_rgb(6), rast_rgb(255, 0, 255));
    CHECK_EQ(r_q3_color_rgb(8), rast_rgb(0, 0, 0));
    char out[16];
    CHECK_EQ(r_q3_text_plain("^1Sar^7ge", out, sizeof out), 5);
    CHECK(!strcmp(out, "Sarge"));
    /* "a^^b": 'a', then "^^" is not a code so '^' counts, then "^b" is a code */
    CHECK_EQ(r_q3_text_plain("a^^b", out, sizeof out), 2);
    CHECK(!strcmp(out, "a^"));
    CHECK_EQ(r_q3_text_plain("x^", out, sizeof out), 2);
    CHECK_EQ(r_q3_text_plain("^1abcdef", out, 4), 6); /* cut, terminated, all counted */
    CHECK(!strcmp(out, "abc"));
}

static qd_err read_fs(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    return pak_read((const pak_fs *)ctx, name, data, len, err);
}

/* OpenArena's search path (baseoa's pk3s), or NULL when it is not installed. */
static pak_fs *oa_fs(void)
{
    if (access(OA_BASE "/baseoa/pak0.pk3", R_OK) != 0)
        return NULL;
    pak_fs *fs = pak_fs_open();
    qd_error err;
    if (fs && pak_fs_add_game_dir(fs, OA_BASE "/baseoa", &err) != QD_OK) {
        pak_fs_close(fs);
        return NULL;
    }
    return fs;
}

static mdl_image *oa_image(pak_fs *fs, const char *name)
{
    mdl_image *im = NULL;
    return mdl_image_find(read_fs, fs, name, &im, NULL) == QD_OK ? im : NULL;
}

/* bigchars.tga is 16 x 16 glyphs; at 640 x 480 a 16-unit cell is 16 pixels, so "A" (65: row
 * 4, column 1) at (100, 50) is its cell's texels blended over black (c * a / 255), white; the
 * "^1" before it keeps only the red; nothing is drawn outside the cell. */
TEST(q3hud_glyph_placement)
{
    pak_fs *fs = oa_fs();
    if (!fs) {
        CHECK_MSG(access(OA_BASE "/baseoa/pak0.pk3", R_OK) != 0,
                  "OpenArena's pk3s are there but do not open as a game folder");
        SKIP("Debian's OpenArena data (" OA_BASE ") is not installed");
    }
    r_hud3 *h = r_hud3_load(read_fs, fs, NULL, NULL);
    mdl_image *cs = oa_image(fs, "gfx/2d/bigchars.tga");
    CHECK(h && cs);
    CHECK_EQ(cs->w, 256);
    CHECK_EQ(cs->h, 256);
    rast_fb *fb = rast_fb_new(640, 480);
    for (int pass = 0; pass < 2; pass++) {
        rast_clear(fb, 0);
        CHECK(r_hud3_text(h, fb, 100, 50, pass ? "^1A" : "A", 16, 16, 0));
        int bad = 0, lit = 0, outside = 0;
        for (int y = 0; y < 480; y++)
            for (int x = 0; x < 640; x++) {
                uint32_t got = fb->color[y * 640 + x];
                if (x < 100 || x >= 116 || y < 50 || y >= 66) {
                    outside += (got & 0xffffff) != 0;
                    continue;
                }
                uint32_t t = cs->pixels[(64 + y - 50) * 256 + 16 + x - 100], a = t >> 24;
                for (int ch = 0; ch < 3; ch++) {
                    int want = (int)(((t >> 8 * ch & 255) * a + 127) / 255);
                    if (pass && ch > 0)
                        want = 0;
                    int g = (int)(got >> 8 * ch & 255);
                    bad += g - want > 1 || want - g > 1;
                }
                lit += (got & 255) > 64;
            }
        CHECK_MSG(bad == 0, "pass %d: %d channel values differ", pass, bad);
        CHECK_EQ(outside, 0);
        CHECK(lit > 20); /* the glyph is really there */
    }
    rast_fb_free(fb);
    mdl_image_free(cs);
    r_hud3_free(h);
    pak_fs_close(fs);
}

/* Which of the digit pictures 0..9 the 32 x 48 cell at (x, y) of a 640 x 480 frame shows
 * (the picture's texel nearest each pixel's centre, its red times its alpha over black),
 * -1 for an empty cell. */
static int cell_digit(const rast_fb *fb, mdl_image *const num[10], int x, int y)
{
    int best = -1;
    long best_err = 0, lit = 0;
    for (int yy = 0; yy < 48; yy++)
        for (int xx = 0; xx < 32; xx++)
            lit += (fb->color[(y + yy) * 640 + x + xx] & 255) > 32;
    if (lit < 20)
        return -1;
    for (int d = 0; d < 10; d++) {
        long e = 0;
        for (int yy = 0; yy < 48; yy++)
            for (int xx = 0; xx < 32; xx++) {
                uint32_t t = num[d]->pixels[(yy * 2 + 1) * num[d]->h / 96 * num[d]->w +
                                            (xx * 2 + 1) * num[d]->w / 64];
                long want = (long)((t & 255) * (t >> 24) / 255);
                long got = (long)(fb->color[(y + yy) * 640 + x + xx] & 255);
                e += want > got ? want - got : got - want;
            }
        if (best < 0 || e < best_err) {
            best = d;
            best_err = e;
        }
    }
    return best;
}

/* The recorded player's state of demo088-test1 at t, its HUD drawn at 640 x 480. */
typedef struct q3frame {
    timeline_t *tl; /* owns the demo */
    const cl_state *cl;
    pak_fs *fs;
    r_hud3 *h;
    rast_fb *fb;
    mdl_image *num[10];
} q3frame;

static void frame_close(q3frame *f);

/* 1 with f ready: the HUD of the real demo rel at t drawn over a frame of colour bg; 0 (f
 * closed) when the demo or OpenArena's data is missing, or with the test failed when they
 * are there and the frame cannot be made */
static int frame_open_(q3frame *f, const char *rel, double t, uint32_t bg);
static int frame_open_over(q3frame *f, const char *rel, double t, uint32_t bg)
{
    if (frame_open_(f, rel, t, bg))
        return 1;
    frame_close(f);
    return 0;
}

static int frame_open(q3frame *f, double t) { return frame_open_over(f, DEMO088, t, 0); }

static int frame_open_path(q3frame *f, const char *path, double t, uint32_t bg);
static int frame_open_(q3frame *f, const char *rel, double t, uint32_t bg)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", test_realdata(), rel);
    return frame_open_path(f, path, t, bg);
}

/* A frame that cannot be made although its demo and OpenArena's data are there: the test
 * fails (the caller's SKIP then counts as the failure it is). */
#define OPEN_FAILED(what) (test_fail_at(__FILE__, __LINE__, what), 0)

static int frame_open_path(q3frame *f, const char *path, double t, uint32_t bg)
{
    memset(f, 0, sizeof *f);
    if (access(path, R_OK) != 0 || access(OA_BASE "/baseoa/pak0.pk3", R_OK) != 0)
        return 0;
    if (!(f->fs = oa_fs()))
        return OPEN_FAILED("OpenArena's pk3s are there but do not open");
    qd_error err;
    demo_t *d = demo_open(path, &err);
    if (!d)
        return OPEN_FAILED(err.msg);
    if (!(f->tl = tl_open(d, 0, &err)) || !(f->cl = tl_state_at(f->tl, t, &err)))
        return OPEN_FAILED(err.msg);
    f->h = r_hud3_load(read_fs, f->fs, f->cl, NULL);
    f->fb = rast_fb_new(640, 480);
    if (!f->h || !f->fb)
        return OPEN_FAILED("the HUD or the frame could not be made");
    rast_clear(f->fb, bg);
    static const char *const names[10] = {"zero", "one", "two", "three", "four",
                                          "five", "six", "seven", "eight", "nine"};
    for (int i = 0; i < 10; i++) {
        char name[64];
        snprintf(name, sizeof name, "gfx/2d/numbers/%s_32b.tga", names[i]);
        if (!(f->num[i] = oa_image(f->fs, name)))
            return OPEN_FAILED("a digit picture of OpenArena's is missing");
    }
    if (!r_hud3_draw(f->h, f->cl, -1, 0, f->cl->time, f->fb))
        return OPEN_FAILED("r_hud3_draw drew nothing");
    return 1;
}

static void frame_close(q3frame *f)
{
    for (int i = 0; i < 10; i++)
        mdl_image_free(f->num[i]);
    rast_fb_free(f->fb);
    r_hud3_free(f->h);
    pak_fs_close(f->fs);
    tl_close(f->tl);
}

/* CG_DrawField(x, 432, 3, v): v's digits right-aligned in three 32-wide cells from x + 2
 * (cell i at x + 2 + 32 i); *ok 0 when a cell shows other than the digit it should, or a
 * cell before a short number is not empty. */
static void check_field(const q3frame *f, int x, int v, int *ok)
{
    int digits[3] = {-1, -1, -1};
    for (int i = 2; i >= 0 && (v > 0 || i == 2); i--, v /= 10)
        digits[i] = v % 10;
    for (int i = 0; i < 3; i++)
        if (cell_digit(f->fb, f->num, x + 2 + 32 * i, 432) != digits[i])
            *ok = 0;
}

/* The status bar of demo088-test1.dm_71 at 22.1 s: the numbers are the recorded player's
 * state (whatever the decoder read: its values are checked elsewhere); this moment has a
 * two-digit ammo count (36), a two-digit health over 25 (95) and a three-digit armour
 * (105), so every field's right alignment and an empty leading cell are seen.
 * CG_DrawStatusBar: ammo at 0, health at 185, armour at 370; health over 25 and the
 * armour in colors[0] (1, 0.69, 0). The weapon must be the shotgun (its ammo icon at 100,
 * 432 is checked below). (The moment was 70.1 s while the decoder read OpenArena's
 * weapons mask, 238, as the armour: q3_state.mp_version.) */
TEST(q3hud_status_bar_digits)
{
    q3frame f;
    if (!frame_open(&f, 22.1))
        SKIP(NEEDS);
    const cl_stats *st = cl_stats_of(f.cl, -1);
    CHECK_MSG(st->ammo >= 10 && st->ammo < 100 && st->health > 25 && st->health < 100 &&
                  st->armor >= 100 && st->armor < 1000,
              "ammo %d health %d armor %d: not the field widths this test is about", st->ammo,
              st->health, st->armor);
    CHECK_EQ(st->weapon, CL_WP_SHOTGUN);
    int ammo_ok = 1, health_ok = 1, armor_ok = 1;
    check_field(&f, 0, st->ammo, &ammo_ok);
    check_field(&f, 185, st->health, &health_ok);
    check_field(&f, 370, st->armor, &armor_ok);
    CHECK_MSG(ammo_ok && health_ok && armor_ok, "fields drawn: ammo %d health %d armour %d",
              ammo_ok, health_ok, armor_ok);
    /* the colour: green / red over the health digits' lit pixels is 0.69 */
    double r = 0, g = 0, b = 0;
    for (int y = 432; y < 480; y++)
        for (int x = 219; x < 283; x++) {
            uint32_t c = f.fb->color[y * 640 + x];
            r += c & 255;
            g += c >> 8 & 255;
            b += c >> 16 & 255;
        }
    CHECK_MSG(r > 0 && g / r > 0.65 && g / r < 0.73 && b / r < 0.02, "g/r %.3f b/r %.3f",
              r > 0 ? g / r : 0, r > 0 ? b / r : 0);
    /* the shells' ammo icon at 100, 432 and the armour icon at 470, 432 are drawn */
    int icon = 0, armour = 0;
    for (int y = 432; y < 480; y++)
        for (int x = 0; x < 48; x++) {
            icon += (f.fb->color[y * 640 + 100 + x] & 0xffffff) != 0;
            armour += (f.fb->color[y * 640 + 470 + x] & 0xffffff) != 0;
        }
    CHECK(icon > 100 && armour > 100);
    frame_close(&f);
}

/* At 20.05 s the recorded player holds the gauntlet, whose ammo is -1 as a signed short
 * (g_client.c ClientSpawn gives WP_GAUNTLET ammo -1); CG_DrawStatusBar draws no ammo field
 * for it (ammo > -1), and the health field as ever. */
TEST(q3hud_gauntlet_has_no_ammo_field)
{
    q3frame f;
    if (!frame_open(&f, 20.05))
        SKIP(NEEDS);
    const cl_stats *st = cl_stats_of(f.cl, -1);
    CHECK_EQ(st->weapon, CL_WP_MELEE);
    CHECK_EQ(st->ammo, -1);
    for (int x = 2; x < 98; x += 32)
        CHECK_EQ(cell_digit(f.fb, f.num, x, 432), -1);
    CHECK(st->health > 0 && st->health < 1000);
    int ok = 1;
    check_field(&f, 185, st->health, &ok);
    CHECK_MSG(ok, "health %d not drawn as its digits", st->health);
    frame_close(&f);
}

/* A 16 x 16 TGA (type 2, 32 bits, top-left origin), all white and opaque. */
static size_t tiny_tga(uint8_t *out)
{
    memset(out, 0, 18);
    out[2] = 2;
    out[12] = 16;
    out[14] = 16;
    out[16] = 32;
    out[17] = 0x28;
    memset(out + 18, 255, 16 * 16 * 4);
    return 18 + 16 * 16 * 4;
}

/* Without any of Quake III's pictures r_hud3_load gives NULL (today's HUD is drawn); with
 * only bigchars the numbers come from qdemo's own font in the same cells and colour. */
TEST(q3hud_missing_pictures_fall_back)
{
    memread none = {.data = (const uint8_t *)"", .size = 0, .names = {NULL}};
    CHECK(r_hud3_load(memread_fn, &none, NULL, NULL) == NULL);
    static uint8_t tga[18 + 16 * 16 * 4];
    size_t len = tiny_tga(tga);
    memread m = {.data = tga, .size = len, .names = {"gfx/2d/bigchars.tga"}};
    r_hud3 *h = r_hud3_load(memread_fn, &m, NULL, NULL);
    CHECK(h);
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    cl_stats st;
    memset(&st, 0, sizeof st);
    st.health = 50;
    st.weapon = CL_WP_ROCKET_LAUNCHER;
    st.ammo = 5;
    cl_set_stats(cl, -1, &st);
    rast_fb *fb = rast_fb_new(640, 480);
    rast_clear(fb, 0);
    CHECK(r_hud3_draw(h, cl, -1, 0, 1.0, fb));
    /* health "50": cells at 219 and 251; ammo "5" at 66; yellow (255, 176, 0) */
    const int cells[3] = {66, 219, 251};
    for (int i = 0; i < 3; i++) {
        int yellow = 0;
        for (int y = 432; y < 480; y++)
            for (int x = cells[i]; x < cells[i] + 32; x++)
                yellow += fb->color[y * 640 + x] == (rast_rgb(255, 176, 0) | 0xff000000u);
        CHECK_MSG(yellow > 20, "cell %d: %d yellow pixels", cells[i], yellow);
    }
    /* the digits themselves: the ammo's "5" and the health's "5" are one pattern, the
     * health's "0" another */
    int same5 = 1, differ0 = 0;
    for (int y = 432; y < 480; y++)
        for (int x = 0; x < 32; x++) {
            uint32_t a5 = fb->color[y * 640 + 66 + x], h5 = fb->color[y * 640 + 219 + x];
            uint32_t h0 = fb->color[y * 640 + 251 + x];
            same5 &= a5 == h5;
            differ0 += h0 != h5;
        }
    CHECK_MSG(same5 && differ0 > 20, "the 5s alike: %d, pixels where 0 differs: %d", same5,
              differ0);
    int empty = 0;
    for (int y = 432; y < 480; y++)
        for (int x = 187; x < 219; x++)
            empty += (fb->color[y * 640 + x] & 0xffffff) == 0;
    CHECK_EQ(empty, 32 * 48);
    rast_fb_free(fb);
    free(cl);
    r_hud3_free(h);
}

/* CG_DrawPowerups, on demo088's state at 70.1 s with two powerups given to the recorded
 * player: quad ending 12.5 s later, haste 3.25 s later. Above the score boxes (their top
 * 408, less 8: 400) one 48-unit row each, soonest lowest: haste's "3" on y 352, quad's "12"
 * on 304, as CG_DrawField(640 - 48 - 64 = 528, y, 2, seconds): digits from 528 + 2 + 32 x
 * (2 - length); each icon at x 592. */
TEST(q3hud_powerup_timers)
{
    q3frame f;
    if (!frame_open(&f, 70.1))
        SKIP(NEEDS);
    cl_state *cl = malloc(sizeof *cl);
    CHECK(cl);
    if (!cl) {
        frame_close(&f);
        return;
    }
    memcpy(cl, f.cl, sizeof *cl);
    cl_stats *st = (cl_stats *)cl_stats_of(cl, cl_view_player(cl));
    CHECK(st && st->health > 0);
    st->powerup_end[CL_PU_QUAD] = (float)(cl->time + 12.5);
    st->powerup_end[CL_PU_HASTE] = (float)(cl->time + 3.25);
    rast_clear(f.fb, 0);
    CHECK(r_hud3_draw(f.h, cl, -1, 0, cl->time, f.fb));
    char png[512];
    qd_error perr;
    snprintf(png, sizeof png, "%s/q3hud_powerups.png", test_tmpdir());
    out_png_write(png, f.fb, &perr); /* for eyes only */
    CHECK_EQ(cell_digit(f.fb, f.num, 530, 352), -1);
    CHECK_EQ(cell_digit(f.fb, f.num, 562, 352), 3);
    CHECK_EQ(cell_digit(f.fb, f.num, 530, 304), 1);
    CHECK_EQ(cell_digit(f.fb, f.num, 562, 304), 2);
    int quad = 0, haste = 0, above = 0;
    for (int y = 0; y < 48; y++)
        for (int x = 592; x < 640; x++) {
            quad += (f.fb->color[(304 + y) * 640 + x] & 0xffffff) != 0;
            haste += (f.fb->color[(352 + y) * 640 + x] & 0xffffff) != 0;
            above += (f.fb->color[(256 + y) * 640 + x] & 0xffffff) != 0;
        }
    CHECK(quad > 200 && haste > 200 && above == 0);
    /* dead: no timers */
    st->health = 0;
    rast_clear(f.fb, 0);
    r_hud3_draw(f.h, cl, -1, 0, cl->time, f.fb);
    CHECK_EQ(cell_digit(f.fb, f.num, 562, 352), -1);
    free(cl);
    frame_close(&f);
}

/* CG_DrawTeamBackground(0, 420, 640, 60, 0.33, team): in a team game the status bar's band is
 * the team's colour at alpha 0.33 over the scene. udt_dm_68_team_chat.dm_68 (baseq3,
 * g_gametype team: its players' configstrings, index 544.. in `dump`, say t\\2 for the
 * recorder "sausage", client 0: TEAM_BLUE). Over a pure red frame, a band pixel above the
 * digits (5, 425) is red * 0.67 plus blue * 0.33, as GL's SRC_ALPHA blend: about (171, 0,
 * 84); and a row above the band (y 415) keeps the red. */
TEST(q3hud_team_band_is_translucent)
{
    q3frame f;
    if (!frame_open_over(&f, "dm_68/udt_dm_68_team_chat.dm_68", 10.0, rast_rgb(255, 0, 0)))
        SKIP("needs dm_68/udt_dm_68_team_chat.dm_68 and Debian's OpenArena data");
    uint32_t c = f.fb->color[425 * 640 + 5], above = f.fb->color[415 * 640 + 5];
    int r = (int)(c & 255), g = (int)(c >> 8 & 255), b = (int)(c >> 16 & 255);
    CHECK_MSG(abs(r - 171) <= 2 && g == 0 && abs(b - 84) <= 2, "band pixel %d %d %d", r, g, b);
    CHECK_EQ(above & 0xffffff, 0x0000ffu);
    frame_close(&f);
}

/* Which of a team's three flag icons (icons/iconf_red1..3 or iconf_blu1..3: at base, taken,
 * dropped) the 40 x 24 rectangle at (x, y) of a 640 x 480 frame over black shows, as
 * cell_digit compares (texel nearest each pixel's centre, its colour times its alpha); -1
 * for an empty rectangle. */
static int flag_shown(const q3frame *f, const char *team, int x, int y)
{
    int best = -1;
    long best_err = 0, lit = 0;
    for (int yy = 0; yy < 24; yy++)
        for (int xx = 0; xx < 40; xx++)
            lit += (f->fb->color[(y + yy) * 640 + x + xx] & 0xffffff) != 0;
    if (lit < 20)
        return -1;
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "icons/iconf_%s%d.tga", team, i + 1);
        mdl_image *im = oa_image(f->fs, name);
        if (!im)
            return -2;
        long e = 0;
        for (int yy = 0; yy < 24; yy++)
            for (int xx = 0; xx < 40; xx++) {
                uint32_t t = im->pixels[(yy * 2 + 1) * im->h / 48 * im->w + (xx * 2 + 1) * im->w / 80];
                uint32_t g = f->fb->color[(y + yy) * 640 + x + xx];
                for (int k = 0; k < 24; k += 8) {
                    long want = (long)((t >> k & 255) * (t >> 24) / 255), got = (long)(g >> k & 255);
                    e += want > got ? want - got : got - want;
                }
            }
        mdl_image_free(im);
        if (best < 0 || e < best_err) {
            best = i;
            best_err = e;
        }
    }
    return best;
}

/* CG_DrawScores in CTF: each team's flag state (CS_FLAGSTATUS, 23: the red flag's digit,
 * then the blue's; 0 at base, 1 taken, 2 dropped) as its icon one box above the team's score
 * box. tests/data/oa/oa_ctf4ish_follow.dm_71 (serverinfo g_gametype 4, GT_CTF; capturelimit
 * 0, so no limit is drawn) records CS_FLAGSTATUS "00" in its gamestate, the server command
 * cs 23 "01" at 55.0 s (the blue flag taken) and cs 23 "00" at 73.9 s (captured: cs 6, the
 * red score, becomes "1" at the same time), read from the file by q3scan.h and checked to
 * fall between the moments drawn. Scores " 0" and " 1" ("%2i") make boxes of
 * 2 x 16 + 8 = 40 units: blue at x 600, red at 560; their text at y 480 - 48 - 24 = 408, the
 * boxes from 404, the flags from 408 - 16 - 8 - 4 = 380, 24 high. */
TEST(q3hud_ctf_flag_status)
{
    static const struct {
        double t;
        int red, blue;
    } when[] = {{50.0, 0, 0}, {60.0, 0, 1}, {80.0, 0, 0}};
    double cs23[8] = {0};
    int n = q3scan_times("tests/data/oa/oa_ctf4ish_follow.dm_71", "cs 23 ", cs23);
    if (n < 0)
        SKIP("run from the project root");
    CHECK_MSG(n == 2 && cs23[0] > 50.0 && cs23[0] < 60.0 && cs23[1] > 60.0 && cs23[1] < 80.0,
              "%d flag status changes, at %.3f and %.3f", n, cs23[0], cs23[1]);
    for (size_t i = 0; i < sizeof when / sizeof when[0]; i++) {
        q3frame f;
        if (!frame_open_path(&f, "tests/data/oa/oa_ctf4ish_follow.dm_71", when[i].t, 0)) {
            frame_close(&f);
            SKIP("needs Debian's OpenArena data");
        }
        CHECK(f.cl->ctf);
        CHECK_EQ(f.cl->flag_status[0], when[i].red);
        CHECK_EQ(f.cl->flag_status[1], when[i].blue);
        CHECK_MSG(flag_shown(&f, "red", 560, 380) == when[i].red, "%.1f s: red icon %d",
                  when[i].t, flag_shown(&f, "red", 560, 380));
        CHECK_MSG(flag_shown(&f, "blu", 600, 380) == when[i].blue, "%.1f s: blue icon %d",
                  when[i].t, flag_shown(&f, "blu", 600, 380));
        /* nothing left of the red box and its flag (above the team band at 420): no limit */
        int lit = 0;
        for (int y = 380; y < 420; y++)
            for (int x = 500; x < 560; x++)
                lit += (f.fb->color[y * 640 + x] & 0xffffff) != 0;
        CHECK_EQ(lit, 0);
        frame_close(&f);
    }
}

/* A team deathmatch (udt_dm_68_team_chat.dm_68, g_gametype 3 in its serverinfo) is no
 * capture the flag: no flag status, so no flags drawn. */
TEST(q3hud_team_deathmatch_has_no_flags)
{
    q3frame f;
    if (!frame_open_over(&f, "dm_68/udt_dm_68_team_chat.dm_68", 10.0, 0))
        SKIP("needs dm_68/udt_dm_68_team_chat.dm_68 and Debian's OpenArena data");
    CHECK(!f.cl->ctf);
    frame_close(&f);
}

/* The leftmost lit column of the score row (y 404 .. 428) of a 640 x 480 frame over black. */
static int score_row_left(const rast_fb *fb)
{
    for (int x = 0; x < 640; x++)
        for (int y = 404; y < 428; y++)
            if (fb->color[y * 640 + x] & 0xffffff)
                return x;
    return 640;
}

/* CG_DrawScores draws the limit left of the boxes as bare "%2i" text: fraglimit outside
 * capture games. udt_one_frag_only_with_plasma.dm_68's serverinfo says fraglimit 20 and
 * g_gametype 1: "20" is 2 x 16 + 8 = 40 units wide, its text from 4 units in, so the row's
 * leftmost lit column moves 20 to 36 units left of the boxes' edge (a glyph's first lit
 * column lies within its 16). Without the limit the boxes' grey fill is the leftmost. */
TEST(q3hud_fraglimit_left_of_scores)
{
    q3frame f;
    if (!frame_open_over(&f, "dm_68/udt_one_frag_only_with_plasma.dm_68", 5.0, 0))
        SKIP("needs dm_68/udt_one_frag_only_with_plasma.dm_68 and Debian's OpenArena data");
    CHECK_EQ(f.cl->score_limit, 20);
    int with = score_row_left(f.fb);
    cl_state *cl = malloc(sizeof *cl);
    CHECK(cl);
    if (cl) {
        memcpy(cl, f.cl, sizeof *cl);
        cl->score_limit = 0;
        rast_clear(f.fb, 0);
        CHECK(r_hud3_draw(f.h, cl, -1, 0, cl->time, f.fb));
        int without = score_row_left(f.fb);
        CHECK_MSG(without < 640 && without - with >= 20 && without - with <= 36,
                  "boxes from %d, limit from %d", without, with);
        free(cl);
    }
    frame_close(&f);
}

/* CG_GetColorForHealth, worked by hand: the armor counted is at most health * 0.66 / 0.34
 * (truncated), green falls from 1 at 60 to 0 at 30, blue from 1 at 100 to 0 at 66. */
TEST(q3hud_crosshair_health_color)
{
    static const struct {
        int health, armor;
        float r, g, b;
    } want[] = {
        {100, 0, 1, 1, 1},              /* full: white */
        {80, 0, 1, 1, 14 / 33.0f},      /* blue (80 - 66) / 33 */
        {50, 0, 1, 20 / 30.0f, 0},      /* green (50 - 30) / 30 */
        {20, 100, 1, 28 / 30.0f, 0},    /* 20 * 0.66 / 0.34 = 38.8: 38 armor, 58 in all */
        {20, 5, 1, 0, 0},               /* 25: red */
        {0, 200, 0, 0, 0},              /* dead: black */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        float c[3];
        r_hud3_health_color(want[i].health, want[i].armor, c);
        CHECK_MSG(fabsf(c[0] - want[i].r) < 1e-5f && fabsf(c[1] - want[i].g) < 1e-5f &&
                      fabsf(c[2] - want[i].b) < 1e-5f,
                  "health %d armor %d: %.4f %.4f %.4f", want[i].health, want[i].armor, c[0],
                  c[1], c[2]);
    }
}

/* The crosshair (gfx/2d/crosshaire, cg_drawCrosshair 4) is drawn in a first-person view only:
 * 24 x 24 pixels at the centre of 640 x 480 ((640 - 24) / 2 = 308, (480 - 24) / 2 = 228),
 * nothing else changes, and what it adds over black is the picture's premultiplied light
 * (white: the recorded player's health and armour at this moment give white, as
 * r_hud3_health_color says, which q3hud_crosshair_health_color checks by hand). Not with the
 * scoreboard up. */
TEST(q3hud_crosshair_first_person_only)
{
    q3frame f;
    if (!frame_open(&f, 70.1))
        SKIP(NEEDS);
    float white[3];
    r_hud3_health_color(cl_stats_of(f.cl, -1)->health, cl_stats_of(f.cl, -1)->armor, white);
    CHECK(white[0] == 1 && white[1] == 1 && white[2] == 1);
    mdl_image *ch = oa_image(f.fs, "gfx/2d/crosshaire.tga");
    uint32_t *before = malloc(640 * 480 * sizeof *before);
    CHECK(ch && before);
    if (ch && before) {
        memcpy(before, f.fb->color, 640 * 480 * sizeof *before); /* the HUD over black */
        rast_clear(f.fb, 0);
        CHECK(r_hud3_draw(f.h, f.cl, -1, R_HUD3_CROSSHAIR, f.cl->time, f.fb));
        int outside = 0;
        double lit = 0;
        for (int y = 0; y < 480; y++)
            for (int x = 0; x < 640; x++) {
                uint32_t a = before[y * 640 + x], b = f.fb->color[y * 640 + x];
                int in = x >= 308 && x < 332 && y >= 228 && y < 252;
                if (!in)
                    outside += (a & 0xffffff) != (b & 0xffffff);
                else
                    lit += (double)((b & 255) + (b >> 8 & 255) + (b >> 16 & 255)) / 3;
            }
        /* the picture's mean premultiplied light over its whole square, times 24 x 24 (each
         * pixel the area-weighted mean of the texels under it: the light is kept) */
        double want = 0;
        for (uint32_t i = 0; i < ch->w * ch->h; i++) {
            uint32_t p = ch->pixels[i];
            want += ((p & 255) + (p >> 8 & 255) + (p >> 16 & 255)) / 3.0 * (p >> 24) / 255.0;
        }
        want = want / (ch->w * ch->h) * 24 * 24;
        CHECK_EQ(outside, 0);
        CHECK_MSG(want > 300 && fabs(lit - want) < 0.05 * want, "lit %.0f, want %.0f", lit, want);
        /* without the flag the centre stays as the HUD left it; with the scoreboard up it
         * is the scoreboard's alone (what the scores draw there without the crosshair) */
        for (int k = 0; k < 2; k++) {
            if (k) {
                rast_clear(f.fb, 0);
                r_hud3_draw(f.h, f.cl, -1, R_HUD3_SCORES, f.cl->time, f.fb);
                memcpy(before, f.fb->color, 640 * 480 * sizeof *before);
            }
            rast_clear(f.fb, 0);
            r_hud3_draw(f.h, f.cl, -1, k ? R_HUD3_CROSSHAIR | R_HUD3_SCORES : 0, f.cl->time,
                        f.fb);
            int centre = 0;
            for (int y = 228; y < 252; y++)
                for (int x = 308; x < 332; x++)
                    centre += f.fb->color[y * 640 + x] != before[y * 640 + x];
            CHECK_MSG(centre == 0, "flags %d: %d centre pixels changed", k, centre);
        }
    }
    free(before);
    mdl_image_free(ch);
    frame_close(&f);
}

/* CG_Draw2D for a spectator (the recorder of stress_bases3.dm_70 flies free: PM_SPECTATOR,
 * TEAM_SPECTATOR): no status bar, CG_DrawSpectator's "SPECTATOR" in BIGCHAR (16 wide) at
 * 320 - 9 x 8, 440, and in a team game (capture the flag here: capturelimit 8 in its
 * serverinfo, players on red and blue) "press ESC and use the JOIN menu to play" at
 * 320 - 39 x 8, 460. Over black: the word's box lit, and nothing where the status bar's
 * 32-tall numbers and icons would begin (rows 432..439). */
TEST(q3hud_spectator)
{
    q3frame f;
    if (!frame_open_over(&f, "dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70", 10.0,
                         0))
        SKIP("needs stress_bases3.dm_70 and Debian's OpenArena data");
    const cl_stats *st = cl_stats_of(f.cl, -1);
    CHECK(st && (st->flags & CL_ST_SPECTATOR));
    int word = 0, bar = 0, join = 0;
    for (int y = 432; y < 480; y++)
        for (int x = 0; x < 640; x++) {
            int lit = (f.fb->color[y * 640 + x] & 0xffffff) != 0;
            bar += lit && y < 440;
            word += lit && y >= 440 && y < 456 && x >= 248 && x < 392;
            join += lit && y >= 460 && (x < 248 || x >= 392);
        }
    CHECK_EQ(bar, 0);
    CHECK_MSG(word > 200, "%d lit in SPECTATOR's box", word);
    CHECK_MSG(join > 200, "%d lit in the second line beyond it", join);
    frame_close(&f);
}

/* A HUD picture there but damaged is left out as one not there, and now said (a review:
 * silent): bigchars.tga of image type 99 (TGA knows 1-3 and 9-11) names the file in
 * *damaged, no set made from nothing else being there (NULL: none of bigchars and the
 * numbers). A missing picture says nothing. */
TEST(q3hud_damaged_picture_named)
{
    static uint8_t tga[18 + 16 * 16 * 4];
    size_t len = tiny_tga(tga);
    tga[2] = 99;
    memread m = {.data = tga, .size = len, .names = {"gfx/2d/bigchars.tga"}};
    qd_error e = {0};
    CHECK(r_hud3_load(memread_fn, &m, NULL, &e) == NULL);
    CHECK(e.code != QD_OK && e.code != QD_ERR_NOT_FOUND);
    CHECK_MSG(strstr(e.msg, "bigchars.tga") != NULL, "%s", e.msg);
    memread none = {.data = (const uint8_t *)"", .size = 0, .names = {NULL}};
    qd_error e2 = {0};
    CHECK(r_hud3_load(memread_fn, &none, NULL, &e2) == NULL);
    CHECK_EQ(e2.code, QD_OK);
}

/* One TGA under any name that ends in "icon_default.tga" (its reads counted) and a
 * 16 x 16 one as gfx/2d/bigchars.tga (so that a set is made). */
typedef struct icon_reads {
    const uint8_t *tga;
    size_t len;
    int reads;
} icon_reads;

static qd_err icon_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    icon_reads *r = ctx;
    static uint8_t chars[18 + 16 * 16 * 4];
    size_t n = strlen(name), cn = tiny_tga(chars);
    int icon = n >= 16 && strcmp(name + n - 16, "icon_default.tga") == 0;
    if (!icon && strcmp(name, "gfx/2d/bigchars.tga") != 0)
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
    r->reads += icon;
    *len = icon ? r->len : cn;
    *data = malloc(*len);
    if (!*data)
        return QD_ERR_NOMEM;
    memcpy(*data, icon ? r->tga : chars, *len);
    return QD_OK;
}

/* 64 players of one head share its icon, read once (a review: 64 decodes of a 4096 x 4096
 * icon took 4.5 GB); an icon past the HUD's side cap (1024) is left out as one not there,
 * and not said as damage; a set made of icons of 1024 x 1024 (4 MiB each) holds 15 of them
 * in its 64 MiB room beside bigchars' 1,024 bytes (by hand: (67,108,864 - 1,024) /
 * 4,194,304 = 15.99), so of 64 heads of different models 15 are drawn. */
TEST(q3hud_head_icons_read_once_and_bounded)
{
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl != NULL);
    if (!cl)
        return;
    cl_reset(cl);
    for (int i = 0; i < CL_MAX_PLAYERS; i++) {
        cl->players[i].active = 1;
        snprintf(cl->players[i].head, sizeof cl->players[i].head, "big/default");
    }
    static uint8_t small[18 + 16 * 16 * 4];
    icon_reads r = {small, tiny_tga(small), 0};
    qd_error e = {0};
    r_hud3 *h = r_hud3_load(icon_read, &r, cl, &e);
    CHECK(h != NULL);
    CHECK_EQ(r.reads, 1);
    r_hud3_free(h);
    /* 2048 x 2048: over the side cap */
    size_t big_len = 18 + (size_t)2048 * 2048 * 4;
    uint8_t *big = calloc(1, big_len);
    CHECK(big != NULL);
    if (!big) {
        free(cl);
        return;
    }
    tiny_tga(big);
    big[12] = 0, big[13] = 8, big[14] = 0, big[15] = 8; /* 2048 */
    icon_reads rb = {big, big_len, 0};
    qd_error eb = {0};
    h = r_hud3_load(icon_read, &rb, cl, &eb);
    CHECK(h != NULL && r_hud3_head(h, 0) == NULL && r_hud3_head(h, 63) == NULL);
    CHECK_EQ(eb.code, QD_OK);
    r_hud3_free(h);
    /* 1024 x 1024, each player a model of its own */
    big[13] = 4, big[15] = 4;
    rb = (icon_reads){big, 18 + (size_t)1024 * 1024 * 4, 0};
    for (int i = 0; i < CL_MAX_PLAYERS; i++)
        snprintf(cl->players[i].head, sizeof cl->players[i].head, "m%d/default", i);
    h = r_hud3_load(icon_read, &rb, cl, NULL);
    int held = 0;
    for (int i = 0; h && i < CL_MAX_PLAYERS; i++)
        held += r_hud3_head(h, i) != NULL;
    CHECK_EQ(held, 15);
    r_hud3_free(h);
    free(big);
    free(cl);
}

/* l made empty, a Quake III level. */
static void q3_blank_level(cl_level *l)
{
    memset(l, 0, sizeof *l);
    l->game = CL_GAME_Q3;
}

/* Reads counted: of the map, of MD3 files, of images (names ending .tga, .jpg, .png). */
typedef struct counted_fs {
    const pak_fs *fs;
    int map, md3, images;
} counted_fs;

static qd_err counted_read(void *ctx, const char *name, uint8_t **data, size_t *len,
                           qd_error *err)
{
    counted_fs *c = ctx;
    qd_err r = pak_read(c->fs, name, data, len, err);
    size_t n = strlen(name);
    if (r == QD_OK) {
        c->map += strcmp(name, "maps/oa_dm3.bsp") == 0;
        c->md3 += n > 4 && strcmp(name + n - 4, ".md3") == 0;
        c->images += n > 4 && (!strcmp(name + n - 4, ".tga") || !strcmp(name + n - 4, ".jpg") ||
                               !strcmp(name + n - 4, ".png"));
    }
    return r;
}

static int counted_list(void *ctx, const char *prefix,
                        void (*fn)(void *u, const char *name, uint64_t size), void *u)
{
    return pak_list_search_order(((counted_fs *)ctx)->fs, prefix, fn, u);
}

/* A level of the same map with another model list (a Quake III player's new model: q3.c
 * names its meshes in the level's slots) loaded from the set before reads neither the map
 * nor an MD3 model or image of the same name again (a review: each such change read and
 * decoded the whole level, 0.9 s a frame of a demo sending one a snapshot): oa_dm3 with
 * sarge's lower.md3, then with major's beside it; the second load reads major's mesh and
 * none of the map's or sarge's files, where a fresh load of it reads the map, both meshes
 * and every image. (That what is drawn is a fresh load's: test_q3.c,
 * q3_same_map_model_change_draws_a_fresh_load.) */
TEST(q3_same_map_reload_takes_from_the_set_before)
{
    pak_fs *fs = oa_fs();
    if (!fs)
        SKIP("OpenArena is not installed");
    static cl_level one, two;
    q3_blank_level(&one);
    snprintf(one.map, sizeof one.map, "maps/oa_dm3.bsp");
    snprintf(one.models[1], CL_NAME_LEN, "maps/oa_dm3.bsp");
    snprintf(one.models[2], CL_NAME_LEN, "models/players/sarge/lower.md3");
    one.num_models = 3;
    two = one;
    snprintf(two.models[3], CL_NAME_LEN, "models/players/major/lower.md3");
    two.num_models = 4;
    counted_fs c = {fs, 0, 0, 0};
    qd_error e = {0};
    r_assets *a = r_assets_load(&one, counted_read, &c, NULL, &e);
    CHECK(a && r_assets_q3_textures(a, counted_read, counted_list, &c, &e) == QD_OK);
    CHECK(c.map == 1 && c.md3 >= 1 && c.images > 50);
    int fresh_images = c.images;
    c = (counted_fs){fs, 0, 0, 0};
    r_assets *b = r_assets_load_from(&two, counted_read, &c, NULL, &e, a);
    CHECK(b && r_assets_q3_textures_from(b, counted_read, counted_list, &c, &e, a) == QD_OK);
    r_assets_free(a);
    CHECK_EQ(c.map, 0);
    CHECK_MSG(c.md3 >= 1 && c.md3 < 4, "%d", c.md3); /* major's (and its levels of detail) */
    CHECK_MSG(c.images < fresh_images / 4, "%d of %d", c.images, fresh_images);
    CHECK(r_assets_map(b) != NULL);
    /* a fresh load of the second list reads it all */
    c = (counted_fs){fs, 0, 0, 0};
    r_assets *f = r_assets_load(&two, counted_read, &c, NULL, &e);
    CHECK(f && r_assets_q3_textures(f, counted_read, counted_list, &c, &e) == QD_OK);
    CHECK(c.map == 1 && c.images >= fresh_images);
    r_assets_free(f);
    r_assets_free(b);
    pak_fs_close(fs);
}

/* A model whose levels of detail the level's room left out is not given to a later load
 * (a review: the set after, with room for them, got the mesh without them where a fresh
 * load holds them). merman's lower.md3 (473,836 bytes in pak2-players.pk3) in a room of
 * that and one byte: its lower_1.md3 (348,652) does not fit; then merman and sarge taken
 * from that set with the whole room: merman read again, with its levels, as fresh. */
TEST(q3_model_cut_by_the_room_not_given)
{
    pak_fs *fs = oa_fs();
    if (!fs)
        SKIP("OpenArena is not installed");
    static cl_level one, two;
    q3_blank_level(&one);
    snprintf(one.models[2], CL_NAME_LEN, "models/players/merman/lower.md3");
    one.num_models = 3;
    two = one;
    snprintf(two.models[3], CL_NAME_LEN, "models/players/sarge/lower.md3");
    two.num_models = 4;
    qd_error e = {0};
    uint64_t room = r_model_room;
    r_model_room = 473836u + 1;
    r_assets *a = r_assets_load(&one, read_fs, fs, NULL, &e);
    r_model_room = room;
    CHECK(a && a->models[2].kind == R_KIND_MD3 && a->models[2].lod[0] == NULL);
    r_assets *b = r_assets_load_from(&two, read_fs, fs, NULL, &e, a);
    r_assets *f = r_assets_load(&two, read_fs, fs, NULL, &e);
    CHECK(f && f->models[2].lod[0] != NULL && f->models[2].lod[1] != NULL);
    CHECK(b && b->models[2].lod[0] != NULL && b->models[2].lod[1] != NULL);
    r_assets_free(a);
    r_assets_free(b);
    r_assets_free(f);
    pak_fs_close(fs);
}
