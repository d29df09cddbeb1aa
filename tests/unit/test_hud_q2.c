/* test_hud_q2.c: Quake II's HUD from the server's layout programs (r_hud2.c) on a real demo:
 * the status bar numbers at the places Quake II's client puts them (cl_scrn.c: xv is the
 * screen's centre less 160, yb the bottom; SCR_DrawField right-aligns a 3-cell field 2 pixels
 * in, 16 pixels a cell), with the values read by hand from `qdemo dump`, and the scoreboard
 * layout while STAT_LAYOUTS is set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../src/client/cl.h"
#include "../../src/demo/demo.h"
#include "../../src/render/draw2d.h"
#include "../../src/render/render.h"
#include "../../src/timeline/timeline.h"
#include "../test.h"

#define DUEL "dm2/libq2_testdata_testduel.dm2"

/* The bounding box of the lit pixels (any channel over 40) of fb in the rectangle, as a
 * 0/1 mask copied to m (w x h at most 64 x 64); 0 when nothing is lit. */
static int lit_mask(const rast_fb *fb, int x0, int y0, int w, int h, uint8_t *m, int *mw,
                    int *mh)
{
    int ax = 1 << 30, ay = 1 << 30, bx = -1, by = -1;
    for (int y = y0; y < y0 + h; y++)
        for (int x = x0; x < x0 + w; x++) {
            uint32_t c = fb->color[y * fb->w + x];
            if ((c & 255) > 40 || (c >> 8 & 255) > 40 || (c >> 16 & 255) > 40) {
                ax = x < ax ? x : ax;
                ay = y < ay ? y : ay;
                bx = x > bx ? x : bx;
                by = y > by ? y : by;
            }
        }
    if (bx < 0 || bx - ax >= 64 || by - ay >= 64)
        return 0;
    *mw = bx - ax + 1;
    *mh = by - ay + 1;
    memset(m, 0, 64 * 64);
    for (int y = 0; y < *mh; y++)
        for (int x = 0; x < *mw; x++) {
            uint32_t c = fb->color[(ay + y) * fb->w + ax + x];
            m[y * 64 + x] = (c & 255) > 40 || (c >> 8 & 255) > 40 || (c >> 16 & 255) > 40;
        }
    return 1;
}

/* Which digit qdemo's font shows in the 32 x 48 output cell at (x, y) (a 16 x 24 number cell
 * at 2x): its lit shape against each digit drawn alone; -1 for an empty cell. */
static int cell_digit(const rast_fb *fb, int x, int y, int scale)
{
    uint8_t m[64 * 64], d[64 * 64];
    int mw, mh;
    if (!lit_mask(fb, x, y, 32, 48, m, &mw, &mh))
        return -1;
    rast_fb *g = rast_fb_new(64, 64);
    int best = -2;
    for (int k = 0; g && k < 10; k++) {
        char one[2] = {(char)('0' + k), 0};
        rast_clear(g, 0);
        draw_text(g, 4, 4, one, 0xffffffffu, scale);
        int dw, dh;
        if (lit_mask(g, 0, 0, 64, 64, d, &dw, &dh) && dw == mw && dh == mh &&
            memcmp(d, m, sizeof d) == 0) {
            best = k;
            break;
        }
    }
    rast_fb_free(g);
    return best;
}

/* Stat number stat as the svc_playerinfo (17) at offset off of a protocol 34 .dm2 sends it,
 * read by hand [DM2 3.18]: 16-bit PS_* flags, then for each set flag in wire order pm_type
 * (1 byte), origin and velocity (6 each), pm_time, pm_flags (1 each), gravity (2),
 * delta_angles (6), viewoffset (3), viewangles (6), kick_angles (3), the gun's index (1),
 * frame, offset and angles (7), the blend (4), fov, rdflags (1 each); then a 32-bit mask of
 * the stats sent and a short for each. 1 with *value set when it is there. */
static int dm2_sent_stat(const uint8_t *d, size_t len, size_t off, int stat, int *value)
{
    static const struct {
        unsigned bit, bytes;
    } rows[] = {{1u << 0, 1},  {1u << 1, 6}, {1u << 2, 6},  {1u << 3, 1},  {1u << 4, 1},
                {1u << 5, 2},  {1u << 6, 6}, {1u << 7, 3},  {1u << 8, 6},  {1u << 9, 3},
                {1u << 12, 1}, {1u << 13, 7}, {1u << 10, 4}, {1u << 11, 1}, {1u << 14, 1}};
    if (off + 3 > len || d[off] != 17)
        return 0;
    unsigned flags = d[off + 1] | (unsigned)d[off + 2] << 8;
    size_t p = off + 3;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        p += flags & rows[i].bit ? rows[i].bytes : 0;
    if (p + 4 > len)
        return 0;
    uint32_t bits = (uint32_t)d[p] | (uint32_t)d[p + 1] << 8 | (uint32_t)d[p + 2] << 16 |
                    (uint32_t)d[p + 3] << 24;
    p += 4;
    for (int i = 0; i < 32; i++) {
        if (!(bits >> i & 1))
            continue;
        if (p + 2 > len)
            return 0;
        if (i == stat) {
            *value = (int16_t)(d[p] | d[p + 1] << 8);
            return 1;
        }
        p += 2;
    }
    return 0;
}

TEST(q2hud_status_bar_from_the_layout_program)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, DUEL))
        SKIP("real data missing");
    qd_error err;
    demo_t *d = demo_open(path, &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    CHECK(tl);
    if (!tl)
        return;
    /* t = 60.0: the last svc_playerinfo before it to send stat 1 (health) is at offset
     * 55283, stat 3 (ammo) at 52551, stat 5 (armour) at 52982 (found with dump; the values
     * are read from those bytes here: 164, 12 and 53); the status bar program, configstring
     * 5 at 22422: "yb -24 xv 0 hnum xv 50 pic 0 if 2 xv 100 anum ... if 4 xv 200 rnum ..." */
    size_t flen = 0;
    uint8_t *bytes = test_read_file(path, &flen);
    int health = -1, ammo = -1, armor = -1;
    CHECK(bytes && dm2_sent_stat(bytes, flen, 55283, 1, &health) &&
          dm2_sent_stat(bytes, flen, 52551, 3, &ammo) &&
          dm2_sent_stat(bytes, flen, 52982, 5, &armor));
    free(bytes);
    CHECK_MSG(health == 164 && ammo == 12 && armor == 53, "the file sends %d %d %d", health,
              ammo, armor);
    const cl_state *cl = tl_state_at(tl, 60.0, &err);
    CHECK(cl && cl->layout.stats[1] == health && cl->layout.stats[3] == ammo &&
          cl->layout.stats[5] == armor);
    rast_fb *fb = rast_fb_new(960, 540); /* k = 540 / 240 = 2: a 480 x 270 layout screen */
    CHECK(fb);
    if (!cl || !fb) {
        rast_fb_free(fb);
        tl_close(tl);
        return;
    }
    rast_clear(fb, 0);
    CHECK(r_hud2_draw(NULL, cl, fb));
    /* y = 270 - 24 = 246; xv 0 = 480 / 2 - 160 = 80: "164" from 80 + 2 in cells 82, 98,
     * 114; xv 100 = 180: "12" from 180 + 2 + 16 in 198, 214 (182 empty); xv 200 = 280:
     * "53" in 298, 314 (282 empty) */
    static const struct {
        int x, digit;
    } want[] = {{82, 1}, {98, 6}, {114, 4}, {182, -1}, {198, 1},
                {214, 2}, {282, -1}, {298, 5}, {314, 3}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int got = cell_digit(fb, want[i].x * 2, 246 * 2, 4);
        CHECK_MSG(got == want[i].digit, "cell %d: %d, want %d", want[i].x, got, want[i].digit);
    }
    /* 104.8 s: svc_layout (offset 98260) "xv 72 yv 0 string2 \" Team          Frags\" ..."
     * under STAT_LAYOUTS; yv 0 = 270 / 2 - 120 = 15, xv 72 = 152: its first cell (a space),
     * then "Team" from 160 (output 320, 30) in the alternate colour (green) */
    cl = tl_state_at(tl, 104.8, &err);
    CHECK(cl && (cl->layout.stats[13] & 1));
    rast_clear(fb, 0);
    CHECK(r_hud2_draw(NULL, cl, fb));
    uint8_t m[64 * 64];
    int mw, mh, green = 0;
    CHECK(lit_mask(fb, 320, 30, 16, 16, m, &mw, &mh)); /* the "T" */
    for (int y = 30; y < 46; y++)
        for (int x = 320; x < 336; x++) {
            uint32_t c = fb->color[y * 960 + x];
            green += (c >> 8 & 255) > 150 && (c & 255) < 100;
        }
    CHECK(green > 10);
    /* no Quake II state: nothing */
    cl_state *q1 = calloc(1, sizeof *q1);
    if (q1) {
        cl_reset_zeroed(q1);
        CHECK(!r_hud2_draw(NULL, q1, fb));
        free(q1);
    }
    rast_fb_free(fb);
    tl_close(tl);
}

/* A Quake II state with no level but a status bar's inputs present, or NULL. */
static cl_state *q2_blank(void)
{
    cl_state *cl = calloc(1, sizeof *cl);
    if (cl) {
        cl_reset_zeroed(cl);
        cl->level.game = CL_GAME_Q2;
        cl->layout.has_stats = 1;
    }
    return cl;
}

/* Hostile programs (a demo's configstrings and layouts come from strangers): huge and
 * negative places, unterminated quotes, `if` without `endif`, commands without their
 * arguments, stat indices out of range; drawn without a fault, nothing outside the frame. */
TEST(q2hud_hostile_programs)
{
    static const char *const progs[] = {
        "xv 99999999999999 yv -99999999999 hnum anum rnum string \"x\"",
        "xl -2147483648 yt 2147483647 num 5 999999 num -5 -1 string \"unterminated",
        "if 31 xv 0 hnum if -7 if 99999 string \"y\"",
        "client 1 2 3 client 99999 -5 -9 1 2 3 ctf 0 0 -1 1 2 ctf",
        "xv yv pic picn stat_string num 3 cstring cstring2 string2 \"\\n\\n\\n\"",
        "xr -8 yb -8 cstring \"a\nbb\nccc\" xv 0 yv 0 num 2147483647 1",
    };
    cl_state *cl = q2_blank();
    rast_fb *fb = rast_fb_new(320, 240);
    CHECK(cl && fb);
    if (!cl || !fb) {
        free(cl);
        rast_fb_free(fb);
        return;
    }
    for (int i = 0; i < CL_LAYOUT_STATS; i++)
        cl->layout.stats[i] = (int16_t)(i % 2 ? -32768 : 32767);
    cl->layout.stats[13] = 1;
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        snprintf(cl->layout.statusbar, sizeof cl->layout.statusbar, "%s", progs[i]);
        snprintf(cl->layout.layout, sizeof cl->layout.layout, "%s", progs[(i + 1) % 6]);
        CHECK(r_hud2_draw(NULL, cl, fb));
    }
    /* a program of the whole size, one long string */
    memset(cl->layout.statusbar, 'x', sizeof cl->layout.statusbar - 1);
    cl->layout.statusbar[sizeof cl->layout.statusbar - 1] = 0;
    CHECK(r_hud2_draw(NULL, cl, fb));
    free(cl);
    rast_fb_free(fb);
}

/* ---- with pictures: Quake II's pics/ made here (no free data set has them) ---- */

#include <sys/stat.h>

#include "../../pak-loader/pak.h"

/* An 8-bit PCX of w x h one-colour pixels (index idx, every byte written as a run of one,
 * 0xC1 idx, so any index is legal), palette entry i = (i, 255 - i, i / 2). */
static size_t make_pcx(uint8_t *out, int w, int h, uint8_t idx)
{
    memset(out, 0, 128);
    out[0] = 10, out[1] = 5, out[2] = 1, out[3] = 8;
    out[8] = (uint8_t)(w - 1), out[9] = (uint8_t)((w - 1) >> 8);
    out[10] = (uint8_t)(h - 1), out[11] = (uint8_t)((h - 1) >> 8);
    out[65] = 1;
    out[66] = (uint8_t)w, out[67] = (uint8_t)(w >> 8);
    size_t n = 128;
    for (int i = 0; i < w * h; i++) {
        out[n++] = 0xC1;
        out[n++] = idx;
    }
    out[n++] = 12;
    for (int i = 0; i < 256; i++) {
        out[n++] = (uint8_t)i;
        out[n++] = (uint8_t)(255 - i);
        out[n++] = (uint8_t)(i / 2);
    }
    return n;
}

static qd_err fs_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    return pak_read((const pak_fs *)ctx, name, data, len, err);
}

/* At 60 s the program draws "xv 50 pic 0": stat 0 is 2 (sent at offset 6831, read there),
 * CS_IMAGES + 2 is "i_health" (configstring 546 at 4340), so pics/i_health.pcx at (130,
 * 246); and the health "164" from num_1, num_6, num_4 at 82, 98, 114. Each picture here is
 * one colour (index 10 + its digit; i_health 200), so the output pixel names the picture. */
TEST(q2hud_pictures_from_pics)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, DUEL))
        SKIP("real data missing");
    char dir[1100], pics[1200];
    snprintf(dir, sizeof dir, "%s/q2game", test_tmpdir());
    snprintf(pics, sizeof pics, "%s/pics", dir);
    mkdir(dir, 0777);
    mkdir(pics, 0777);
    static uint8_t buf[128 + 2 * 128 * 128 + 769];
    for (int d = 0; d < 11; d++)
        for (int a = 0; a < 2; a++) {
            char name[1300];
            snprintf(name, sizeof name, "%s/%s_%s.pcx", pics, a ? "anum" : "num",
                     d < 10 ? (char[2]){(char)('0' + d), 0} : "minus");
            size_t n = make_pcx(buf, 16, 24, (uint8_t)(10 + d + 20 * a));
            FILE *f = fopen(name, "wb");
            if (f) {
                fwrite(buf, 1, n, f);
                fclose(f);
            }
        }
    char hp[1300];
    snprintf(hp, sizeof hp, "%s/i_health.pcx", pics);
    FILE *f = fopen(hp, "wb");
    if (f) {
        fwrite(buf, 1, make_pcx(buf, 24, 24, 200), f);
        fclose(f);
    }
    pak_fs *fs = pak_fs_open();
    qd_error err;
    CHECK(fs && pak_fs_add_game_dir(fs, dir, &err) == QD_OK);
    demo_t *d = demo_open(path, &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    const cl_state *cl = tl ? tl_state_at(tl, 60.0, &err) : NULL;
    size_t flen = 0;
    uint8_t *bytes = test_read_file(path, &flen);
    int icon = -1; /* stat 0 as the svc_playerinfo at 6831 sends it, read from its bytes */
    CHECK(bytes && dm2_sent_stat(bytes, flen, 6831, 0, &icon));
    free(bytes);
    CHECK_EQ(icon, 2);
    CHECK(cl && cl->layout.stats[0] == icon && !strcmp(cl->layout.images[2], "i_health"));
    r_hud2 *h = cl ? r_hud2_load(fs_read, fs, cl, NULL, NULL) : NULL;
    CHECK(h);
    rast_fb *fb = rast_fb_new(960, 540);
    if (h && fb) {
        rast_clear(fb, 0);
        CHECK(r_hud2_draw(h, cl, fb));
        /* palette entry i is (i, 255 - i, i / 2): rast colours are 0xAABBGGRR */
#define PAL(i) (0xff000000u | (uint32_t)((i) / 2) << 16 | (uint32_t)(255 - (i)) << 8 | (uint32_t)(i))
        CHECK_EQ(fb->color[(246 * 2 + 10) * 960 + 82 * 2 + 10], PAL(11));
        CHECK_EQ(fb->color[(246 * 2 + 10) * 960 + 98 * 2 + 10], PAL(16));
        CHECK_EQ(fb->color[(246 * 2 + 10) * 960 + 114 * 2 + 10], PAL(14));
        CHECK_EQ(fb->color[(246 * 2 + 10) * 960 + 130 * 2 + 10], PAL(200));
#undef PAL
    }
    rast_fb_free(fb);
    r_hud2_free(h);
    tl_close(tl);
    pak_fs_close(fs);
}

/* conchars.pcx (16 x 16 cells of 8 x 8, Draw_Char) draws each character's cell exactly, the
 * high half for string2 (DrawAltString: the bit 0x80 set), index 255 see-through. Texel
 * (u, v) of the cell of character ch here is index (ch + 3u + 7v) % 255. */
TEST(q2hud_conchars_glyphs_exact)
{
    char dir[1100], pics[1200], file[1300];
    snprintf(dir, sizeof dir, "%s/q2font", test_tmpdir());
    snprintf(pics, sizeof pics, "%s/pics", dir);
    mkdir(dir, 0777);
    mkdir(pics, 0777);
    static uint8_t buf[128 + 2 * 128 * 128 + 769];
    size_t n = make_pcx(buf, 128, 128, 0);
    for (int y = 0; y < 128; y++)
        for (int x = 0; x < 128; x++) {
            int ch = (y / 8) * 16 + x / 8, u = x % 8, v = y % 8;
            buf[128 + 2 * (y * 128 + x) + 1] = (uint8_t)((ch + 3 * u + 7 * v) % 255);
        }
    snprintf(file, sizeof file, "%s/conchars.pcx", pics);
    FILE *f = fopen(file, "wb");
    if (!f)
        SKIP("cannot write the test font");
    fwrite(buf, 1, n, f);
    fclose(f);
    pak_fs *fs = pak_fs_open();
    qd_error err;
    cl_state *cl = q2_blank();
    CHECK(fs && cl && pak_fs_add_game_dir(fs, dir, &err) == QD_OK);
    if (!fs || !cl) {
        pak_fs_close(fs);
        free(cl);
        return;
    }
    snprintf(cl->layout.statusbar, sizeof cl->layout.statusbar,
             "xl 8 yt 16 string \"Az\" xl 8 yt 32 string2 \"A\"");
    r_hud2 *h = r_hud2_load(fs_read, fs, cl, NULL, NULL);
    rast_fb *fb = rast_fb_new(320, 240); /* k = 1 */
    CHECK(h && fb);
    if (h && fb) {
        rast_clear(fb, 0);
        CHECK(r_hud2_draw(h, cl, fb));
        static const struct {
            int x, y, ch;
        } cells[] = {{8, 16, 'A'}, {16, 16, 'z'}, {8, 32, 'A' | 0x80}};
        for (size_t i = 0; i < 3; i++)
            for (int v = 0; v < 8; v++)
                for (int u = 0; u < 8; u++) {
                    int idx = (cells[i].ch + 3 * u + 7 * v) % 255;
                    uint32_t want = 0xff000000u | (uint32_t)(idx / 2) << 16 |
                                    (uint32_t)(255 - idx) << 8 | (uint32_t)idx;
                    uint32_t got = fb->color[(cells[i].y + v) * 320 + cells[i].x + u];
                    CHECK_MSG(got == want, "char %d texel %d,%d: %08x, want %08x", cells[i].ch,
                              u, v, got, want);
                }
        CHECK_EQ(fb->color[16 * 320 + 7], 0u); /* nothing left of the text */
    }
    rast_fb_free(fb);
    r_hud2_free(h);
    free(cl);
    pak_fs_close(fs);
}

/* ---- the pictures' room (a review) ---- */

/* A 2048 x 2048 PCX of index 7 in runs of 63 (136,065 bytes: rows of 32 runs of 63 and one
 * of 32, two bytes each, 66 x 2048, and the 128-byte header and 769 of the palette). */
static uint8_t *big_pcx(size_t *len)
{
    enum { SIDE = 2048 };
    uint8_t *b = malloc(128 + 66 * SIDE + 769);
    if (!b)
        return NULL;
    size_t n = make_pcx(b, 1, 1, 0) - 771; /* (its header, for 1 x 1) */
    b[8] = (uint8_t)(SIDE - 1), b[9] = (uint8_t)((SIDE - 1) >> 8);
    b[10] = b[8], b[11] = b[9];
    b[66] = (uint8_t)SIDE, b[67] = (uint8_t)(SIDE >> 8);
    for (int y = 0; y < SIDE; y++)
        for (int left = SIDE; left > 0; left -= 63) {
            b[n++] = (uint8_t)(0xC0 | (left > 63 ? 63 : left));
            b[n++] = 7;
        }
    b[n++] = 12;
    memset(b + n, 9, 768);
    *len = n + 768;
    return b;
}

/* In-memory pictures, found whatever the case of the name asked (as the search path folds
 * it), each read counted. */
typedef struct mem_pics {
    const char *name[48];
    int n, reads[48];
    const uint8_t *data;
    size_t len;
} mem_pics;

static qd_err mem_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    mem_pics *m = ctx;
    for (int i = 0; i < m->n; i++)
        if (strcasecmp(m->name[i], name) == 0) {
            m->reads[i]++;
            *data = malloc(m->len);
            memcpy(*data, m->data, m->len);
            *len = m->len;
            return QD_OK;
        }
    return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
}

/* big_pcx's file (*len bytes) and a blank Quake II state, both to free; 0 (nothing to
 * free) when memory ran out. */
static int big_and_blank(uint8_t **big, size_t *len, cl_state **cl)
{
    *big = big_pcx(len);
    *cl = q2_blank();
    if (*big && *cl)
        return 1;
    free(*big);
    free(*cl);
    return 0;
}

/* 40 spellings of one picture ("/pics/big.pcx", "/PICS/big.pcx", ..., "\\pics\\big.pcx")
 * read it once (before: 40 decodes of 4 Mi pixels; 255 of a 4096 x 4096 one took 4.4 GB);
 * 40 different pictures of 4 Mi pixels share the room of 64 MiB, their bytes and pixels
 * counted: 67,108,864 / (136,065 + 4,194,304) = 15.5, so 15 are read whole, and the next
 * ones' bytes spend the 2,153,329 left: 15 x 136,065 leaves 112,354, spent by a 16th read;
 * 31 reads, then none; made again, 16 reads (below); a set made again for the same level (an image
 * registered since) takes the pictures of the set before, reading none of them again. */
TEST(hud_quake2_pictures_share_a_room)
{
    size_t len = 0;
    uint8_t *big;
    cl_state *cl;
    CHECK(big_and_blank(&big, &len, &cl));
    CHECK_EQ(len, 136065u);
    static mem_pics m;
    memset(&m, 0, sizeof m);
    m.data = big;
    m.len = len;
    m.name[m.n++] = "pics/big.pcx";
    for (int i = 1; i <= 40; i++) {
        char *s = cl->layout.images[i];
        snprintf(s, sizeof cl->layout.images[i], "/pics/big.pcx");
        for (int k = 0; k < 6; k++) /* letters of "pics/big" as the bits of i say */
            if (i >> k & 1)
                s[1 + k + (k >= 4)] = (char)(s[1 + k + (k >= 4)] - 'a' + 'A');
        if (i == 40)
            snprintf(s, sizeof cl->layout.images[i], "\\pics\\big.pcx");
    }
    r_hud2 *h = r_hud2_load(mem_read, &m, cl, NULL, NULL);
    CHECK(h != NULL);
    CHECK_EQ(m.reads[0], 1);
    r_hud2 *h2 = r_hud2_load(mem_read, &m, cl, h, NULL);
    CHECK(h2 != NULL);
    CHECK_EQ(m.reads[0], 1); /* taken over, not read again */
    r_hud2_free(h);
    r_hud2_free(h2);
    /* forty pictures */
    static char names[40][32];
    m.n = 0;
    memset(m.reads, 0, sizeof m.reads);
    for (int i = 0; i < 40; i++) {
        snprintf(names[i], sizeof names[i], "pics/b%d.pcx", i);
        m.name[m.n++] = names[i];
        snprintf(cl->layout.images[1 + i], sizeof cl->layout.images[1 + i], "b%d", i);
    }
    h = r_hud2_load(mem_read, &m, cl, NULL, NULL);
    int read = 0;
    for (int i = 0; i < 40; i++)
        read += m.reads[i];
    CHECK_EQ(read, 31);
    CHECK(m.reads[30] == 1 && m.reads[31] == 0);
    /* made again for the same names, the set before's fifteen are taken at what they cost
     * when read (bytes and pixels), so the room left is a fresh set's 2,153,329: sixteen
     * reads more, as fresh (charged their pixels only, 4,194,304 were left: 31 reads, and a
     * picture that fits there but not in a fresh set would be drawn; a review) */
    memset(m.reads, 0, sizeof m.reads);
    h2 = r_hud2_load(mem_read, &m, cl, h, NULL);
    read = 0;
    for (int i = 0; i < 40; i++)
        read += m.reads[i];
    CHECK_EQ(read, 16);
    CHECK(m.reads[14] == 0 && m.reads[15] == 1 && m.reads[30] == 1 && m.reads[31] == 0);
    r_hud2_free(h2);
    r_hud2_free(h);
    free(big);
    free(cl);
}

/* A HUD picture there but damaged is left out as one not there, and now said (a review:
 * silent): big_pcx's file cut to its 128-byte header (no pixels, no palette) as
 * pics/num_0.pcx names that file in *damaged, the set still made from conchars; a picture
 * past the room is not damage (hud_quake2_pictures_share_a_room's 40 pictures say nothing). */
TEST(hud_quake2_damaged_picture_named)
{
    size_t len = 0;
    uint8_t *big;
    cl_state *cl;
    CHECK(big_and_blank(&big, &len, &cl));
    static mem_pics m;
    memset(&m, 0, sizeof m);
    m.data = big;
    m.len = 128;
    m.name[m.n++] = "pics/num_0.pcx";
    qd_error e = {0};
    r_hud2 *h = r_hud2_load(mem_read, &m, cl, NULL, &e);
    CHECK(h == NULL); /* (nothing else there) */
    CHECK(e.code != QD_OK && e.code != QD_ERR_NOT_FOUND);
    CHECK_MSG(strstr(e.msg, "num_0.pcx") != NULL, "%s", e.msg);
    r_hud2_free(h);
    static char names[40][32];
    m.n = 0;
    m.len = len;
    for (int i = 0; i < 40; i++) {
        snprintf(names[i], sizeof names[i], "pics/b%d.pcx", i);
        m.name[m.n++] = names[i];
        snprintf(cl->layout.images[1 + i], sizeof cl->layout.images[1 + i], "b%d", i);
    }
    qd_error e2 = {0};
    h = r_hud2_load(mem_read, &m, cl, NULL, &e2);
    CHECK(h != NULL);
    CHECK_EQ(e2.code, QD_OK);
    r_hud2_free(h);
    free(big);
    free(cl);
}
