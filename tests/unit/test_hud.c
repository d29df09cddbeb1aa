/* test_hud.c: Quake's status bar from gfx.wad: the WAD2 directory read as the file says, and
 * the sample's bar at 7 s showing the numbers `dump` shows there, digit by digit in the
 * wad's own pictures (read from the file's bytes by the test). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/app/player.h"
#include "../../src/app/world.h"
#include "../memread.h"
#include "../deadscan.h"
#include "../test.h"

#define WAD "assets/gfx.wad"

static uint8_t *slurp(const char *path, size_t *len)
{
    return test_read_file(path, len);
}

static uint32_t u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The lump of that name, by wad.h's layout: header "WAD2", numlumps, infotableofs; 32-byte
 * entries filepos, disksize, size, type, compression, pad[2], name[16]. */
static const uint8_t *lump(const uint8_t *w, size_t len, const char *name, uint32_t *size)
{
    uint32_t n = u32(w + 4), dir = u32(w + 8);
    for (uint32_t i = 0; i < n && dir + 32 * (i + 1) <= len; i++) {
        const uint8_t *e = w + dir + 32 * i;
        if (strncasecmp((const char *)e + 16, name, 16) == 0) {
            *size = u32(e + 4);
            return w + u32(e);
        }
    }
    return NULL;
}

/* The status bar's pictures from the wad's bytes in memory, as gfx.wad. */
static r_hud *hud_from(const uint8_t *w, size_t len, const uint32_t pal[256])
{
    memread m = {.data = w, .size = len, .names = {"gfx.wad"}};
    return r_hud_load(memread_fn, &m, pal, NULL);
}

TEST(hud_wad_directory)
{
    size_t len;
    uint8_t *w = slurp(WAD, &len);
    if (!w)
        SKIP("run from the project root (" WAD ")");
    mdl_wad *wad = NULL;
    qd_error err;
    CHECK_EQ(mdl_wad_load(w, len, "gfx.wad", &wad, &err), QD_OK);
    CHECK_EQ(u32(w + 4), 149); /* LibreQuake's gfx.wad: 149 lumps */
    uint32_t size;
    const uint8_t *sbar = lump(w, len, "SBAR", &size);
    CHECK(sbar && size >= 8);
    const mdl_pic *p = mdl_wad_pic(wad, "sbar");
    CHECK(p && p->width == u32(sbar) && p->height == u32(sbar + 4));
    CHECK(p->width == 320 && p->height == 24);
    CHECK(memcmp(p->pixels, sbar + 8, 320 * 24) == 0);
    const mdl_pic *cc = mdl_wad_pic(wad, "CONCHARS");
    CHECK(cc && cc->width == 128 && cc->height == 128);
    CHECK(mdl_wad_pic(wad, "no such pic") == NULL);
    mdl_wad_free(wad);
    /* a directory past the end is an error naming the offset; a cut file loads no further */
    for (size_t cut = 0; cut < 64; cut++)
        CHECK(mdl_wad_load(w, cut, "cut", &wad, &err) != QD_OK && !wad);
    free(w);
}

/* Does fb show pic p (index 255 see-through) at bar position (x, y), k pixels a unit, the
 * 320 x 24 sbar's top-left at (x0, y0)? */
static int shows(const rast_fb *fb, const uint32_t pal[256], const uint8_t *p, int x, int y,
                 int k, int x0, int y0)
{
    uint32_t w = u32(p), h = u32(p + 4);
    for (uint32_t py = 0; py < h; py++)
        for (uint32_t px = 0; px < w; px++) {
            uint8_t c = p[8 + py * w + px];
            if (c == 255)
                continue;
            int sx = x0 + (x + (int)px) * k, sy = y0 + (y + (int)py) * k;
            if (fb->color[(size_t)sy * (size_t)fb->w + (size_t)sx] != (pal[c] | 0xff000000u))
                return 0;
        }
    return 1;
}

TEST(hud_quake_status_bar_numbers)
{
    size_t len;
    uint8_t *w = slurp(WAD, &len);
    if (!w || access("assets/smoothme.dem", R_OK) != 0)
        SKIP("run from the project root");
    qd_error err;
    demo_t *d = demo_open("assets/smoothme.dem", &err);
    CHECK_MSG(d, "%s", err.msg);
    timeline_t *tl = tl_open(d, 0, &err);
    CHECK_MSG(tl, "%s", err.msg);
    app_opts o;
    memset(&o, 0, sizeof o);
    o.paks[o.num_paks++] = "assets";
    app_world world;
    memset(&world, 0, sizeof world);
    const cl_state *cl = tl_state_at(tl, 7.0, &err);
    CHECK_MSG(cl, "%s", err.msg);
    app_world_update(&world, &o, cl);
    CHECK(world.hud);
    rast_fb *fb = rast_fb_new(960, 720);
    rast_clear(fb, 0);
    player_draw_hud(PLAYER_HUD_GAME, -1, cl, world.hud, NULL, fb);
    /* 960 x 720: 3 pixels a unit, the bar centred: x0 = 0, the sbar's top at 720 - 72 */
    int k = 3, x0 = 0, y0 = 720 - 24 * k;
    /* The numbers are the recorder's state at 7 s (whatever the decoder read: checked
     * elsewhere); this moment has a three-digit health, an armour of 25 or less (red) and a
     * two-digit ammo count of shells, so alignment, the red digits and the ammo picture are
     * all seen. sbar.c Sbar_DrawNum(x, num, 3 digits): the number's digits right-aligned in
     * three 24-unit cells from x (health 136, armour 24, ammo 248); Sbar_DrawPic of the
     * shells at 224. */
    const cl_stats *st = cl_stats_of(cl, -1);
    CHECK(st);
    CHECK_MSG(st->health >= 100 && st->health < 1000 && st->armor >= 0 && st->armor <= 25 &&
                  st->ammo >= 10 && st->ammo < 100 && st->ammo_type == CL_AMMO_SHELLS,
              "health %d armor %d ammo %d: not the fields this test is about", st->health,
              st->armor, st->ammo);
    uint32_t s;
    CHECK(lump(w, len, "SBAR", &s));
    const uint8_t *shells = lump(w, len, "SB_SHELLS", &s);
    CHECK(shells && shows(fb, world.palette, shells, 224, 0, k, x0, y0));
    const struct {
        int value, x;
        const char *prefix;
    } fields[] = {{st->health, 136, "NUM_"}, {st->armor, 24, "ANUM_"}, {st->ammo, 248, "NUM_"}};
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        char digits[8];
        int n = snprintf(digits, sizeof digits, "%d", fields[f].value);
        CHECK(n >= 1 && n <= 3);
        for (int i = 0; i < n; i++) {
            char name[16];
            snprintf(name, sizeof name, "%s%c", fields[f].prefix, digits[i]);
            int x = fields[f].x + 24 * (3 - n + i);
            const uint8_t *pic = lump(w, len, name, &s);
            CHECK_MSG(pic && shows(fb, world.palette, pic, x, 0, k, x0, y0), "%s at %d", name,
                      x);
        }
    }
    /* the clock: demo time 7.0 s (the state at 7.0 is the first frame at or after it) as
     * "0:07" at the top right, four characters and one cell of margin at 3 pixels a unit */
    CHECK(cl->time >= 7.0 && cl->time < 7.1);
    rast_fb *ref = rast_fb_new(960, 720);
    rast_clear(ref, 0);
    CHECK(r_hud_text(world.hud, ref, 960 - 5 * 8 * k, 4 * k, "0:07", k));
    int same = 1, lit = 0;
    for (int y = 0; y < 40 * k; y++)
        for (int x = 960 - 6 * 8 * k; x < 960; x++) {
            same &= fb->color[y * 960 + x] == ref->color[y * 960 + x];
            lit += ref->color[y * 960 + x] != 0;
        }
    CHECK(same && lit > 0);
    rast_fb_free(ref);
    /* a red armour digit is not the plain one: the test tells them apart */
    CHECK(!shows(fb, world.palette, lump(w, len, "NUM_0", &s), 72, 0, k, x0, y0));
    /* --hud none draws nothing */
    rast_clear(fb, 0);
    player_draw_hud(PLAYER_HUD_NONE, -1, cl, world.hud, NULL, fb);
    int drawn = 0;
    for (size_t i = 0; i < (size_t)fb->w * (size_t)fb->h; i++)
        drawn += fb->color[i] != 0;
    CHECK_EQ(drawn, 0);
    rast_fb_free(fb);
    app_world_free(&world);
    tl_close(tl);
    free(w);
}

/* 1 when the three-cell number at x shows value as sbar.c's Sbar_DrawNum draws it: its
 * digits right-aligned in 24-unit cells, red (ANUM_) at or below red_at. */
static int field_shows(const rast_fb *fb, const uint32_t pal[256], const uint8_t *w, size_t len,
                       int value, int x, int red_at, int k, int x0, int y0)
{
    char digits[16];
    int n = snprintf(digits, sizeof digits, "%d", value);
    if (n < 1 || n > 3)
        return 0;
    for (int i = 0; i < n; i++) {
        char name[16];
        uint32_t s;
        snprintf(name, sizeof name, "%s%c", value <= red_at ? "ANUM_" : "NUM_", digits[i]);
        const uint8_t *pic = lump(w, len, name, &s);
        if (!pic || !shows(fb, pal, pic, x + 24 * (3 - n + i), 0, k, x0, y0))
            return 0;
    }
    return 1;
}

/* QuakeWorld: a real MVD (ezQuake's manual demo skill-3, one player on dm3) at 2.0 s and
 * 5.0 s. The player's stats at those times are read from the file's dem_stats blocks by
 * tests/deadscan.h (not by qdemo): health (stat 0), ammo (3), armour (4), active weapon (10)
 * and items (15). At 2.0 s the player holds the axe (active weapon IT_AXE 4096, ammo 0), at
 * 5.0 s the rocket launcher (IT_ROCKET_LAUNCHER 32) with rockets. The bar is the sample's (3
 * pixels a unit, the bar's top at 720 - 72): armour in three cells from 24 with the yellow
 * armour picture at 0 (IT_ARMOR2 0x4000), health from 136, ammo from 248 beside its picture
 * at 224 (the rockets' with IT_ROCKETS 0x400 and a launcher in hand; none with the axe: Quake's
 * Sbar_Draw still draws STAT_AMMO, 0, in red). */
TEST(hud_quakeworld_status_bar_numbers)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/mvd/ezquake-source_manual_skill-3.mvd", test_realdata());
    size_t len;
    uint8_t *w = slurp(WAD, &len);
    if (!w)
        SKIP("run from the project root");
    if (access(path, R_OK) != 0) {
        free(w);
        SKIP("no real data");
    }
    qd_error err;
    demo_t *d = demo_open(path, &err);
    CHECK(d);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    CHECK(tl);
    size_t blen = 0;
    uint8_t *bytes = test_read_file(path, &blen);
    CHECK(bytes);
    if (!tl || !bytes) {
        free(w);
        free(bytes);
        tl_close(tl);
        return;
    }
    app_opts o;
    memset(&o, 0, sizeof o);
    o.paks[o.num_paks++] = "assets";
    app_world world;
    memset(&world, 0, sizeof world);
    int k = 3, x0 = 0, y0 = 720 - 24 * k;
    uint32_t s;
    rast_fb *fb = rast_fb_new(960, 720);
    for (int pass = 0; pass < 2; pass++) {
        const cl_state *cl = tl_state_at(tl, pass ? 5.0 : 2.0, &err);
        CHECK(cl);
        if (!cl)
            break;
        app_world_update(&world, &o, cl);
        CHECK(world.hud);
        rast_clear(fb, 0);
        player_draw_hud(PLAYER_HUD_GAME, -1, cl, world.hud, NULL, fb);
        int32_t st[32];
        double at = pass ? 5.0 : 2.0;
        CHECK(ds_mvd_stats_at(bytes, blen, at, 0, st) > 0);
        /* the moments this test is about: the axe, then the launcher with rockets */
        CHECK_MSG(st[10] == (pass ? 32 : 4096) && (st[15] & 0x4000) && st[0] > 25 &&
                      st[4] > 25 && (pass ? st[3] > 10 && (st[15] & 0x400) : st[3] == 0),
                  "at %.1f s: health %d armour %d ammo %d weapon %d items 0x%x", at, st[0],
                  st[4], st[3], st[10], st[15]);
        CHECK_MSG(field_shows(fb, world.palette, w, len, st[4], 24, 25, k, x0, y0) &&
                      field_shows(fb, world.palette, w, len, st[0], 136, 25, k, x0, y0) &&
                      field_shows(fb, world.palette, w, len, st[3], 248, 10, k, x0, y0),
                  "at %.1f s: armour %d, health %d or ammo %d not drawn", at, st[4], st[0],
                  st[3]);
        const uint8_t *armor2 = lump(w, len, "SB_ARMOR2", &s);
        const uint8_t *rocket = lump(w, len, "SB_ROCKET", &s);
        CHECK(armor2 && rocket && shows(fb, world.palette, armor2, 0, 0, k, x0, y0));
        CHECK_EQ(shows(fb, world.palette, rocket, 224, 0, k, x0, y0), pass);
    }
    rast_fb_free(fb);
    app_world_free(&world);
    tl_close(tl);
    free(bytes);
    free(w);
}

/* The game's font draws conchars' cells exactly (index 0 see-through); the feed shows prints
 * for 3 s at the top left, centerprints for 2 s in the middle (con_notifytime,
 * scr_centertime), in that font. */
/* The bundled gfx.wad's font: the wad's bytes, the palette, the status bar's pictures from
 * them and the CONCHARS lump's 128 x 128 indices (NULL when not that size). 0 without the
 * wad (not run from the project root). */
typedef struct font_fix {
    uint8_t *w;
    uint32_t pal[256];
    const uint8_t *cc;
    r_hud *hud;
} font_fix;

static int font_open(font_fix *f)
{
    size_t len, pl;
    memset(f, 0, sizeof *f);
    f->w = slurp(WAD, &len);
    if (!f->w)
        return 0;
    uint8_t *lmp = slurp("assets/palette.lmp", &pl);
    int ok = lmp && mdl_palette_from_lmp(lmp, pl, f->pal);
    free(lmp);
    uint32_t size;
    f->cc = lump(f->w, len, "CONCHARS", &size);
    if (!ok || size != 16384)
        f->cc = NULL;
    f->hud = ok ? hud_from(f->w, len, f->pal) : NULL;
    return 1;
}

TEST(hud_font_and_messages)
{
    font_fix f;
    if (!font_open(&f))
        SKIP("run from the project root (" WAD ")");
    r_hud *hud = f.hud;
    const uint8_t *cc = f.cc;
    const uint32_t *pal = f.pal;
    CHECK(hud && cc);
    rast_fb *fb = rast_fb_new(320, 240);
    const char *s = "Aq\x91"; /* 'A', 'q' and a high-half (brown) glyph */
    rast_clear(fb, 0);
    CHECK(r_hud_text(hud, fb, 10, 20, s, 2));
    int lit = 0;
    for (int i = 0; s[i]; i++) {
        int c = (unsigned char)s[i];
        for (int r = 0; r < 8; r++)
            for (int q = 0; q < 8; q++) {
                uint8_t idx = cc[((c >> 4) * 8 + r) * 128 + (c & 15) * 8 + q];
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++) {
                        uint32_t got = fb->color[(20 + r * 2 + dy) * 320 + 10 + i * 16 + q * 2 + dx];
                        CHECK_EQ(got, idx ? pal[idx] | 0xff000000u : 0);
                        lit += idx != 0;
                    }
            }
    }
    CHECK(lit > 3 * 4 * 10); /* the glyphs are not empty */
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    cl_frame_begin(cl, 5.0);
    cl_message_add(cl, CL_MSG_PRINT, "hello\n");
    cl_message_add(cl, CL_MSG_CENTER, "middle");
    /* which region has pixels drawn: the feed's first row (4..12 units at 1 pixel a unit
     * on 240 rows) and the centre line (from 240 / 3) */
    for (int k = 0; k < 4; k++) {
        static const double at[4] = {5.5, 6.9, 7.5, 8.5};
        rast_clear(fb, 0);
        player_draw_messages(PLAYER_HUD_GAME, cl, hud, at[k], fb);
        int top = 0, mid = 0;
        for (int y = 0; y < 240; y++)
            for (int x = 0; x < 320; x++) {
                int on = fb->color[y * 320 + x] != 0;
                top += on && y >= 4 && y < 12;
                mid += on && y >= 80 && y < 88;
            }
        CHECK_MSG((top > 0) == (at[k] < 8.0), "feed at %.1f: %d pixels", at[k], top);
        CHECK_MSG((mid > 0) == (at[k] < 7.0), "centerprint at %.1f: %d pixels", at[k], mid);
    }
    free(cl);
    rast_fb_free(fb);
    r_hud_free(hud);
    free(f.w);
}

/* The shipped gfx.wad's HUD over a grey palette and an empty client state; 0 when the wad
 * is not there (not run from the project root). */
typedef struct hud_fix {
    uint8_t *wad;
    uint32_t pal[256];
    r_hud *hud;
    cl_state *cl;
} hud_fix;

static int hud_fix_open(hud_fix *f)
{
    size_t len;
    memset(f, 0, sizeof *f);
    f->wad = slurp(WAD, &len);
    if (!f->wad)
        return 0;
    mdl_palette_grey(f->pal);
    f->hud = hud_from(f->wad, len, f->pal);
    f->cl = calloc(1, sizeof *f->cl);
    if (f->cl)
        cl_reset(f->cl);
    return f->cl != NULL;
}

static void hud_fix_close(hud_fix *f)
{
    free(f->cl);
    r_hud_free(f->hud);
    free(f->wad);
}

static int fb_blank(const rast_fb *fb)
{
    for (int i = 0; i < fb->w * fb->h; i++)
        if (fb->color[i])
            return 0;
    return 1;
}

/* Quake's level ends (gl_screen.c SCR_UpdateScreen, QuakeSpasm's Sbar_Draw "never draw sbar
 * during intermission"): no status bar at any of them; the deathmatch overlay at a
 * deathmatch intermission, the tally (Sbar_IntermissionOverlay) at a single-player one,
 * nothing over a finale or a cutscene. */
/* ezQuake's colour codes (console.c Con_PrintW): "&cRGB" colours what follows by 255 * digit
 * / 16 a channel (the glyph's texels times it), "&r" ends it; neither is drawn. KTX's team
 * messages are full of them ("{&cf00lost&cfff}"). "&cf80A&rA" draws two A's: the first each
 * texel's red x 239 / 255, green x 127 / 255, blue 0; the second the glyph's own colours. A
 * code cut short or not hex is text ("&cx" draws three glyphs). */
TEST(hud_ezquake_colour_codes)
{
    font_fix f;
    if (!font_open(&f))
        SKIP("run from the project root (" WAD ")");
    CHECK(f.hud && f.cc);
    rast_fb *fb = rast_fb_new(320, 240);
    rast_clear(fb, 0);
    CHECK(r_hud_text(f.hud, fb, 10, 20, "&cf80A&rA", 1));
    int lit = 0;
    for (int i = 0; i < 2; i++)
        for (int r = 0; r < 8; r++)
            for (int q = 0; q < 8; q++) {
                uint8_t idx = f.cc[(('A' >> 4) * 8 + r) * 128 + ('A' & 15) * 8 + q];
                uint32_t got = fb->color[(20 + r) * 320 + 10 + i * 8 + q], want = 0;
                if (idx) {
                    uint32_t t = f.pal[idx];
                    want = i ? t | 0xff000000u
                             : ((t & 255) * 239 / 255) | ((t >> 8 & 255) * 127 / 255) << 8 |
                                   0xff000000u;
                    lit++;
                }
                CHECK_EQ(got, want);
            }
    CHECK(lit > 2 * 10);
    CHECK(fb->color[20 * 320 + 10 + 16] == 0 && fb->color[27 * 320 + 10 + 23] == 0);
    /* Con_Print's chat mark: text led by 1 (a chat line; QuakeWorld's PRINT_CHAT the same
     * by con_ormask 128) is drawn in the high half, the mark not drawn: "\1A" as 'A' | 128 */
    rast_clear(fb, 0);
    CHECK(r_hud_text(f.hud, fb, 10, 20, "\001A", 1));
    for (int r = 0; r < 8; r++)
        for (int q = 0; q < 8; q++) {
            uint8_t idx = f.cc[((0xc1 >> 4) * 8 + r) * 128 + (0xc1 & 15) * 8 + q];
            CHECK_EQ(fb->color[(20 + r) * 320 + 10 + q], idx ? f.pal[idx] | 0xff000000u : 0);
        }
    /* a QuakeWorld chat line as ezQuake's FlushString prints it: all in the high half but
     * what is in braces after the name (the braces left out), where the colour codes work:
     * the feed's line is the same pixels as that text drawn by hand */
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    cl_reset(cl);
    cl->level.game = CL_GAME_QW;
    cl_frame_begin(cl, 5.0);
    cl_message_add(cl, CL_MSG_CHAT, "(a): b{c&c0f0d}e\n");
    rast_fb *want = rast_fb_new(320, 240);
    rast_clear(fb, 0);
    rast_clear(want, 0);
    player_draw_messages(PLAYER_HUD_GAME, cl, f.hud, 5.5, fb);
    static const char by_hand[] = {'(' | 128, 'a' | 128, ')' | 128, ':' | 128, ' ' | 128,
                                   'b' | 128, 'c', '&', 'c', '0', 'f', '0', 'd', 'e' | 128, 0};
    CHECK(r_hud_text(f.hud, want, 8, 4, by_hand, 1));
    CHECK(memcmp(fb->color, want->color, sizeof *fb->color * 320 * 240) == 0);
    rast_fb_free(want);
    free(cl);
    uint32_t tint = 7;
    CHECK_EQ(r_hud_color_code("&cx12", &tint), 0);
    CHECK_EQ(r_hud_color_code("&c12", &tint), 0);
    CHECK_EQ(tint, 7);
    CHECK_EQ(r_hud_color_code("&c000", &tint), 5);
    CHECK(tint != 0 && (tint & 0xfefefe) == 0); /* black, kept apart from "none" */
    CHECK_EQ(r_hud_color_code("&r", &tint), 2);
    CHECK_EQ(tint, 0);
    rast_fb_free(fb);
    r_hud_free(f.hud);
    free(f.w);
}

TEST(hud_quake_level_end_screens)
{
    hud_fix fx;
    if (!hud_fix_open(&fx))
        SKIP("run from the project root (" WAD ")");
    CHECK(fx.hud);
    cl_state *cl = fx.cl;
    cl_level_begin(cl, CL_GAME_Q1, 15, 1, "test");
    cl_set_player_name(cl, 0, "alpha");
    cl_stats st;
    memset(&st, 0, sizeof st);
    st.flags = CL_ST_VALID;
    st.health = 100;
    st.monsters_total = 7;
    cl_set_stats(cl, -1, &st);
    rast_fb *fb = rast_fb_new(320, 240);
    static const struct {
        int inter, max_clients, hud, scores; /* drawn or not */
    } cases[] = {{0, 1, 1, 0},
                 {CL_INTER_SHOW, 1, 0, 1},
                 {CL_INTER_SHOW, 4, 0, 1},
                 {CL_INTER_FINALE, 1, 0, 0},
                 {CL_INTER_CUTSCENE, 1, 0, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cl->intermission = (uint8_t)cases[k].inter;
        cl->level.max_clients = cases[k].max_clients;
        rast_clear(fb, 0);
        player_draw_hud(PLAYER_HUD_GAME, -1, cl, fx.hud, NULL, fb);
        CHECK_MSG(fb_blank(fb) != cases[k].hud, "case %zu: status bar", k);
        rast_clear(fb, 0);
        player_draw_scores(PLAYER_HUD_GAME, 0, cl, fx.hud, fx.pal, fb);
        CHECK_MSG(fb_blank(fb) != cases[k].scores, "case %zu: scores", k);
    }
    rast_fb_free(fb);
    hud_fix_close(&fx);
}

/* Sbar_DeathmatchOverlay's order: players by frags, most first, spectators left out; each
 * row's name at (80 + 64, 40 + 10 row) in the game's font; shown only when asked or at
 * intermission. */
TEST(hud_scoreboard_order)
{
    hud_fix fx;
    if (!hud_fix_open(&fx))
        SKIP("run from the project root (" WAD ")");
    CHECK(fx.hud);
    cl_state *cl = fx.cl;
    static const struct {
        const char *name;
        int frags, spectator;
    } who[4] = {{"alpha", 5, 0}, {"bravo", 12, 0}, {"charlie", -1, 0}, {"dave", 50, 1}};
    for (int i = 0; i < 4; i++) {
        cl_set_player_name(cl, i, who[i].name);
        cl->players[i].frags = who[i].frags;
        cl->players[i].spectator = (uint8_t)who[i].spectator;
    }
    rast_fb *fb = rast_fb_new(320, 240), *ref = rast_fb_new(320, 240);
    rast_clear(fb, 0);
    player_draw_scores(PLAYER_HUD_GAME, 0, cl, fx.hud, fx.pal, fb);
    for (int i = 0; i < 320 * 240; i++)
        CHECK(fb->color[i] == 0); /* not asked, no intermission: nothing */
    player_draw_scores(PLAYER_HUD_GAME, 1, cl, fx.hud, fx.pal, fb);
    static const char *const rows[3] = {"bravo", "alpha", "charlie"};
    /* three rows: the dim box ends 10 units a row plus 12 below its top at 32 */
    CHECK(fb->color[(32 + 41) * 320 + 73] != 0);
    CHECK(fb->color[(32 + 42) * 320 + 73] == 0);
    for (int r = 0; r < 3; r++) {
        /* the name's cells drawn alone over the same background */
        memcpy(ref->color, fb->color, sizeof(uint32_t) * 320 * 240);
        for (int y = 40 + 10 * r; y < 48 + 10 * r; y++)
            for (int x = 144; x < 144 + 64; x++)
                ref->color[y * 320 + x] = fb->color[(32 + 1) * 320 + 73]; /* the dim background */
        r_hud_text(fx.hud, ref, 144, 40 + 10 * r, rows[r], 1);
        int same = 1;
        for (int y = 40 + 10 * r; y < 48 + 10 * r; y++)
            for (int x = 144; x < 144 + 64; x++)
                same &= ref->color[y * 320 + x] == fb->color[y * 320 + x];
        CHECK_MSG(same, "row %d is not %s", r, rows[r]);
    }
    rast_fb_free(fb);
    rast_fb_free(ref);
    hud_fix_close(&fx);
}

/* A Quake II image registered during a level (gi.imageindex: G_SetStats' power armour
 * icon) makes the world's layout pictures stale, so the next update loads it; the same
 * level otherwise stays as it is. Before a review the pictures were those named when the
 * level began: the new one was never drawn (and a render starting later drew it). */
TEST(hud_quake2_image_registered_mid_level)
{
    static cl_state cl;
    cl_reset(&cl);
    cl_level_begin(&cl, CL_GAME_Q2, 34, 4, "test");
    cl_set_map(&cl, "maps/none.bsp");
    snprintf(cl.layout.images[1], sizeof cl.layout.images[1], "i_health");
    app_opts o;
    memset(&o, 0, sizeof o);
    app_world world;
    memset(&world, 0, sizeof world);
    app_world_update(&world, &o, &cl);
    CHECK(!app_world_stale(&world, &cl));
    snprintf(cl.layout.images[2], sizeof cl.layout.images[2], "i_powershield");
    CHECK(app_world_stale(&world, &cl));
    app_world_update(&world, &o, &cl);
    CHECK(!app_world_stale(&world, &cl));
    /* so does another sky (CS_SKY set mid-level; the box itself:
     * render_ibsp38_sky_box_named_again), and the level's assets stay */
    const r_assets *before = world.assets;
    snprintf(cl.level.sky, sizeof cl.level.sky, "unit2");
    CHECK(app_world_stale(&world, &cl));
    app_world_update(&world, &o, &cl);
    CHECK(!app_world_stale(&world, &cl));
    CHECK(world.assets == before);
    CHECK_STR(world.sky, "unit2");
    app_world_free(&world);
}

/* A gfx.wad there but damaged is said (a review: the bar was left out in silence): eight
 * bytes, "WAD2" and a lump count with no directory offset, name the file; the bar is not
 * made. */
TEST(hud_damaged_wad_named)
{
    static const uint8_t w[8] = {'W', 'A', 'D', '2', 1, 0, 0, 0};
    memread m = {.data = w, .size = sizeof w, .names = {"gfx.wad"}};
    qd_error e = {0};
    CHECK(r_hud_load(memread_fn, &m, NULL, &e) == NULL);
    CHECK(e.code != QD_OK && e.code != QD_ERR_NOT_FOUND);
    CHECK_MSG(strstr(e.msg, "gfx.wad") != NULL, "%s", e.msg);
}

/* mdl_wad_pic finds a picture by name as the scan it replaces did (case not counting, the
 * first of a name in the directory), in a directory of 20,000 lumps with LibreQuake's
 * pictures after 19,851 of one 1 x 1 picture named "jNNNNN" (a review: each look-up scanned
 * them all, 32 a frame): every lump of the real wad is found at its own pixels, a second
 * "SBAR" appended after them is not the one found, and "sbaR" finds the first. */
TEST(hud_wad_lookup_by_sorted_names)
{
    size_t len;
    uint8_t *w = slurp(WAD, &len);
    if (!w)
        SKIP("run from the project root (" WAD ")");
    uint32_t n = u32(w + 4), dir = u32(w + 8), junk = 20000 - n - 1;
    /* the file: the real one, a 1 x 1 picture (12 bytes), then the new directory */
    size_t pic = len, nd = pic + 12, total = nd + (size_t)20000 * 32;
    uint8_t *b = calloc(1, total);
    CHECK(b != NULL);
    if (!b) {
        free(w);
        return;
    }
    memcpy(b, w, len);
    b[pic] = 1, b[pic + 4] = 1, b[pic + 8] = 7;
    b[4] = (uint8_t)(20000 & 255), b[5] = (uint8_t)(20000 >> 8), b[6] = b[7] = 0;
    for (int k = 0; k < 4; k++)
        b[8 + k] = (uint8_t)(nd >> (8 * k));
    for (uint32_t i = 0; i < junk; i++) {
        uint8_t *e = b + nd + 32 * (size_t)i;
        for (int k = 0; k < 4; k++)
            e[k] = (uint8_t)(pic >> (8 * k)), e[4 + k] = (uint8_t)(12u >> (8 * k));
        e[12] = 0x42;
        snprintf((char *)e + 16, 16, "j%05u", (unsigned)i);
    }
    memcpy(b + nd + 32 * (size_t)junk, w + dir, (size_t)n * 32);
    /* a second SBAR pointing at the 1 x 1 picture, last */
    uint8_t *last = b + nd + 32 * (size_t)(junk + n);
    for (int k = 0; k < 4; k++)
        last[k] = (uint8_t)(pic >> (8 * k)), last[4 + k] = (uint8_t)(12u >> (8 * k));
    last[12] = 0x42;
    memcpy(last + 16, "SBAR", 5);
    mdl_wad *wad = NULL;
    qd_error err;
    CHECK_EQ(mdl_wad_load(b, total, "big.wad", &wad, &err), QD_OK);
    int found = 0, pictures = 0; /* (pictures: qpics and the raw conchars, from the file) */
    for (uint32_t i = 0; wad && i < n; i++) {
        const uint8_t *e = w + dir + 32 * i;
        char name[17] = {0};
        memcpy(name, e + 16, 16);
        const mdl_pic *p = mdl_wad_pic(wad, name);
        int qpic = e[12] == 0x42, raw = !qpic && u32(e + 4) == 16384;
        pictures += qpic || raw;
        found += (qpic && p && p->pixels == wad->data + u32(e) + 8) ||
                 (raw && p && p->pixels == wad->data + u32(e));
    }
    CHECK(pictures > 100);
    CHECK_EQ(found, pictures);
    const mdl_pic *s = mdl_wad_pic(wad, "sbaR");
    CHECK(s && s->width == 320 && s->height == 24);
    const mdl_pic *j = mdl_wad_pic(wad, "J00042");
    CHECK(j && j->width == 1 && j->pixels[0] == 7);
    CHECK(mdl_wad_pic(wad, "j20000") == NULL && mdl_wad_pic(wad, "") == NULL);
    mdl_wad_free(wad);
    free(b);
    free(w);
}

/* `render` says a Quake palette, light table or gfx.wad that is there but damaged, as it
 * says a damaged model (a review: each was left out in silence, the built-in palette, no
 * light table or qdemo's own bar drawn): the sample with a folder after the bundled data
 * holding gfx/palette.lmp of 100 bytes, then gfx/colormap.lmp of 1,000, then a gfx.wad of
 * 8 ("WAD2" and a count, no directory offset); each said with its byte. */
TEST(hud_damaged_palette_colormap_wad_said)
{
    const char *q = getenv("QDEMO");
    if (!q || !*q || access(q, X_OK) != 0 || access("assets/smoothme.dem", R_OK) != 0)
        SKIP("run from the project root with QDEMO set (make test)");
    static const struct {
        const char *file;
        size_t len;
        const char *said;
    } cases[3] = {
        {"gfx/palette.lmp", 100, "gfx/palette.lmp: 100 bytes, a palette needs 768 (byte 100)"},
        {"gfx/colormap.lmp", 1000, "gfx/colormap.lmp: 1000 bytes, a light table needs 16384 (byte 1000)"},
        {"gfx.wad", 8, "gfx.wad: shorter than a WAD header (byte 8)"}, /* (12 bytes) */
    };
    for (int c = 0; c < 3; c++) {
        char dir[1024], path[1200], out[4096];
        snprintf(dir, sizeof dir, "%s/dmgpal%d", test_tmpdir(), c);
        snprintf(path, sizeof path, "%s/gfx", dir);
        CHECK_EQ(test_capture(out, sizeof out, "mkdir -p '%s'", path), 0);
        snprintf(path, sizeof path, "%s/%s", dir, cases[c].file);
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        if (!f)
            return;
        static uint8_t bytes[1000] = {'W', 'A', 'D', '2', 1};
        fwrite(bytes, 1, cases[c].len, f);
        fclose(f);
        CHECK_EQ(test_capture(out, sizeof out,
                              "%s render assets/smoothme.dem --no-autodetect -p assets -p '%s' "
                              "-o '%s/out' --size 32x24 --fps 1 --to 1 2>&1",
                              q, dir, dir),
                 0);
        CHECK_MSG(strstr(out, "damaged, drawn without it: ") && strstr(out, cases[c].said),
                  "%d: %.400s", c, out);
    }
}
