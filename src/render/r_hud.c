/* r_hud.c: the status bar in the game's look, from the game's own pictures: Quake's sbar and
 * ibar from gfx.wad (numbers, face, armour and ammo icons, weapons, ammo counts, keys and
 * powerups), drawn from the neutral stats (cl_stats), scaled by whole pixels.
 *
 * Layout facts: id's GPL Quake source, sbar.c (Sbar_Draw, Sbar_DrawInventory, Sbar_DrawFace,
 * Sbar_DrawNum) on a 320-unit-wide bar: the 24-unit sbar at the bottom, the ibar above it;
 * armour icon at 0 and number at 24, face at 112, health at 136, ammo icon at 224 and number
 * at 248, numbers three 24-unit digits right-aligned, red (anum) when low; weapons on the
 * ibar at 24-unit steps (the lightning gun 48 wide), ammo counts in the small conchars digits
 * (glyphs 18..27) at (6 i + 1) 8 - 2 + 4, keys and powerups at 192 + 16 i, sigils at 288 + 8 i. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "r_local.h"

struct r_hud {
    mdl_wad *wad;
    const mdl_pic *conchars; /* looked up once: each character looked it up by name, a
                              * scan of the wad's directory (65,000 lumps: 33 ms a frame
                              * of text; a review) */
    uint32_t palette[256];
};

r_hud *r_hud_load(mdl_read_fn read, void *ctx, const uint32_t palette[256], qd_error *damaged)
{
    uint8_t *data = NULL;
    size_t len = 0;
    qd_error e = {0};
    if (!read || read(ctx, "gfx.wad", &data, &len, &e) != QD_OK) {
        free(data);
        return NULL;
    }
    r_hud *h = calloc(1, sizeof *h);
    qd_err r = h ? mdl_wad_load(data, len, "gfx.wad", &h->wad, &e) : QD_ERR_NOMEM;
    r_damaged_aside(damaged, r, &e);
    if (r == QD_OK && mdl_wad_pic(h->wad, "sbar")) {
        h->conchars = mdl_wad_pic(h->wad, "conchars");
        if (palette)
            memcpy(h->palette, palette, sizeof h->palette);
        else
            mdl_palette_grey(h->palette);
    } else {
        r_hud_free(h);
        h = NULL;
    }
    free(data);
    return h;
}

void r_hud_free(r_hud *h)
{
    if (!h)
        return;
    mdl_wad_free(h->wad);
    free(h);
}

/* The bar's placement on fb: k framebuffer pixels per unit, the 320-unit bar centred. */
typedef struct bar {
    const r_hud *h;
    rast_fb *fb;
    int k, x0, y0; /* y0: the sbar's top */
    uint32_t tint; /* 0, or the colour (0xRRGGBB as rast_rgb) every pixel is multiplied by */
} bar;

/* a / b rounded down, b > 0. */
static long long floor_div(long long a, long long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* The texels [*from, *to) of a row (or column) of size texels, k pixels each, the first at
 * pixel origin, that land on pixels 0 .. limit - 1. */
static void texels_on(long long origin, long long k, uint32_t size, long long limit,
                      uint32_t *from, uint32_t *to)
{
    /* texel t covers pixels origin + t k .. origin + t k + k - 1 */
    long long lo = -floor_div(origin + k - 1, k); /* the first whose last pixel is >= 0 */
    long long hi = floor_div(limit - 1 - origin, k) + 1;
    lo = lo < 0 ? 0 : lo;
    hi = hi > (long long)size ? (long long)size : hi;
    *from = (uint32_t)(lo < hi ? lo : 0);
    *to = (uint32_t)(lo < hi ? hi : 0);
}

/* Picture p with its top-left at (x, y) in bar units; index key (or -1) is see-through.
 * Only its texels on the frame are walked (a gfx.wad whose every status bar picture is one
 * 4096 x 4096 was walked whole a picture a frame, 85 times the frame's time at 64x36; a
 * review, as r_hud2's blit). */
static void pic_at(const bar *b, const mdl_pic *p, int x, int y, int key)
{
    if (!p)
        return;
    rast_fb *fb = b->fb;
    int k = b->k;
    uint32_t px0, px1, py0, py1;
    texels_on((long long)b->x0 + (long long)x * k, k, p->width, fb->w, &px0, &px1);
    texels_on((long long)b->y0 + (long long)y * k, k, p->height, fb->h, &py0, &py1);
    for (uint32_t py = py0; py < py1; py++)
        for (uint32_t px = px0; px < px1; px++) {
            uint8_t c = p->pixels[(size_t)py * p->width + px];
            if (c == key)
                continue;
            uint32_t col = b->h->palette[c] | 0xff000000u;
            if (b->tint) /* a texel times the colour, channel by channel */
                col = ((col & 255) * (b->tint & 255) / 255) |
                      ((col >> 8 & 255) * (b->tint >> 8 & 255) / 255) << 8 |
                      ((col >> 16 & 255) * (b->tint >> 16 & 255) / 255) << 16 | 0xff000000u;
            int sx = b->x0 + (x + (int)px) * k, sy = b->y0 + (y + (int)py) * k;
            for (int yy = sy; yy < sy + k; yy++) {
                if (yy < 0 || yy >= fb->h)
                    continue;
                for (int xx = sx; xx < sx + k; xx++)
                    if (xx >= 0 && xx < fb->w)
                        fb->color[(size_t)yy * (size_t)fb->w + (size_t)xx] = col;
            }
        }
}

static void named_at(const bar *b, const char *name, int x, int y, int key)
{
    pic_at(b, mdl_wad_pic(b->h->wad, name), x, y, key);
}

/* Glyph c of conchars (16 x 16 cells of 8 x 8; index 0 see-through) at (x, y). */
static void char_at(const bar *b, int c, int x, int y)
{
    const mdl_pic *cc = b->h->conchars;
    if (!cc || cc->width != 128 || cc->height != 128)
        return;
    mdl_pic g = {"", 8, 8, NULL};
    uint8_t cell[64];
    for (int r = 0; r < 8; r++)
        for (int q = 0; q < 8; q++)
            cell[r * 8 + q] = cc->pixels[(size_t)((c >> 4 & 15) * 8 + r) * 128 +
                                         (size_t)((c & 15) * 8 + q)];
    g.pixels = cell;
    pic_at(b, &g, x, y, 0);
}

int r_hud_text(const r_hud *h, rast_fb *fb, int x, int y, const char *s, int k)
{
    if (!h || !h->conchars)
        return 0;
    bar b = {h, fb, k < 1 ? 1 : k, x, y, 0};
    /* Con_Print: text led by 1 or 2 (a chat line) is drawn in the high half, the
     * characters that are not already there */
    int mask = *s == 1 || *s == 2 ? 128 : 0;
    s += mask != 0;
    for (int cx = 0; *s; s++) {
        if (*s == '\n') {
            b.y0 += 8 * b.k;
            cx = 0;
            continue; /* (the colour goes on: Con_PrintW keeps it over a line's end) */
        }
        int code = r_hud_color_code(s, &b.tint);
        if (code) {
            s += code - 1;
            continue;
        }
        int c = (unsigned char)*s;
        char_at(&b, c | (c <= 0x7f ? mask : 0), cx, 0);
        cx += 8;
    }
    return 1;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

int r_hud_color_code(const char *s, uint32_t *tint)
{
    if (s[0] != '&')
        return 0;
    if (s[1] == 'r') {
        *tint = 0;
        return 2;
    }
    if (s[1] != 'c' || !s[2] || !s[3] || !s[4])
        return 0;
    int r = hex_digit(s[2]), g = hex_digit(s[3]), bl = hex_digit(s[4]);
    if (r < 0 || g < 0 || bl < 0)
        return 0;
    /* (a tint of 0 means none: &c000 is kept as 0x010101, which makes a texel as black) */
    uint32_t c = (uint32_t)(255 * r / 16) | (uint32_t)(255 * g / 16) << 8 |
                 (uint32_t)(255 * bl / 16) << 16;
    *tint = c ? c : 0x010101u;
    return 5;
}

/* Sbar_DrawNum: the last `digits` characters of n, right-aligned in 24-unit cells. */
static void num_at(const bar *b, int x, int y, int n, int digits, int red)
{
    char s[16];
    snprintf(s, sizeof s, "%d", n);
    int l = (int)strlen(s);
    const char *p = l > digits ? s + l - digits : s;
    x += (digits - (int)strlen(p)) * 24;
    for (; *p; p++, x += 24) {
        char name[16];
        if (*p == '-')
            snprintf(name, sizeof name, "%s_minus", red ? "anum" : "num");
        else
            snprintf(name, sizeof name, "%s_%c", red ? "anum" : "num", *p);
        named_at(b, name, x, y, 255);
    }
}

/* cl_weapon of each ibar slot, and its picture name (inv_ / inv2_ + this). */
static const struct {
    uint8_t weapon;
    const char *pic;
} ibar_weapons[7] = {
    {CL_WP_SHOTGUN, "shotgun"},          {CL_WP_SUPER_SHOTGUN, "sshotgun"},
    {CL_WP_NAILGUN, "nailgun"},          {CL_WP_SUPER_NAILGUN, "snailgun"},
    {CL_WP_GRENADE_LAUNCHER, "rlaunch"}, {CL_WP_ROCKET_LAUNCHER, "srlaunch"},
    {CL_WP_LIGHTNING, "lightng"},
};

int r_hud_draw(const r_hud *h, const cl_stats *st, double t, rast_fb *fb)
{
    (void)t;
    if (!h || !st || !fb || !(st->flags & CL_ST_VALID))
        return 0;
    int k = fb->h / 240 < fb->w / 320 ? fb->h / 240 : fb->w / 320;
    bar b = {h, fb, k < 1 ? 1 : k, 0, 0, 0};
    b.x0 = (fb->w - 320 * b.k) / 2;
    b.y0 = fb->h - 24 * b.k;

    /* the inventory bar: weapons owned (the current one lit), ammo counts, items */
    named_at(&b, "ibar", 0, -24, -1);
    for (int i = 0; i < 7; i++) {
        if (!(st->weapons & 1u << ibar_weapons[i].weapon))
            continue;
        char name[16];
        snprintf(name, sizeof name, "%s_%s", st->weapon == ibar_weapons[i].weapon ? "inv2" : "inv",
                 ibar_weapons[i].pic);
        named_at(&b, name, i * 24, -16, -1);
    }
    static const uint8_t ammo_row[4] = {CL_AMMO_SHELLS, CL_AMMO_BULLETS, CL_AMMO_ROCKETS,
                                        CL_AMMO_CELLS};
    for (int i = 0; i < 4; i++) {
        char s[8];
        int n = st->ammo_of[ammo_row[i]];
        snprintf(s, sizeof s, "%3d", n < 0 ? 0 : n > 999 ? 999 : n);
        for (int c = 0; c < 3; c++)
            if (s[c] != ' ')
                char_at(&b, 18 + s[c] - '0', (6 * i + 1) * 8 - 2 + c * 8 + 4, -24);
    }
    if (st->items & CL_IT_KEY_SILVER)
        named_at(&b, "sb_key1", 192, -16, 255);
    if (st->items & CL_IT_KEY_GOLD)
        named_at(&b, "sb_key2", 208, -16, 255);
    static const struct {
        uint8_t pu;
        const char *pic;
    } powerups[4] = {{CL_PU_INVIS, "sb_invis"}, {CL_PU_INVULN, "sb_invuln"},
                     {CL_PU_SUIT, "sb_suit"}, {CL_PU_QUAD, "sb_quad"}};
    for (int i = 0; i < 4; i++)
        if (st->powerup_end[powerups[i].pu] != 0)
            named_at(&b, powerups[i].pic, 224 + 16 * i, -16, 255);
    for (int i = 0; i < 4; i++)
        if (st->items & CL_IT_SIGIL(i)) {
            char name[16];
            snprintf(name, sizeof name, "sb_sigil%d", i + 1);
            named_at(&b, name, 288 + 8 * i, -16, 255);
        }

    /* the status bar: armour, face, health, ammo */
    named_at(&b, "sbar", 0, 0, -1);
    int invuln = st->powerup_end[CL_PU_INVULN] != 0;
    if (invuln) {
        num_at(&b, 24, 0, 666, 3, 1);
        named_at(&b, "disc", 0, 0, 255);
    } else {
        num_at(&b, 24, 0, st->armor, 3, st->armor <= 25);
        static const char *const armor_pic[CL_ARMOR_COUNT] = {
            [CL_ARMOR_LIGHT] = "sb_armor1", [CL_ARMOR_MEDIUM] = "sb_armor2",
            [CL_ARMOR_HEAVY] = "sb_armor3"};
        if (st->armor_type < CL_ARMOR_COUNT && armor_pic[st->armor_type])
            named_at(&b, armor_pic[st->armor_type], 0, 0, 255);
    }
    int invis = st->powerup_end[CL_PU_INVIS] != 0, quad = st->powerup_end[CL_PU_QUAD] != 0;
    const char *face = invis && invuln ? "face_inv2"
                       : quad          ? "face_quad"
                       : invis         ? "face_invis"
                       : invuln        ? "face_invul2"
                                       : NULL;
    char fname[16];
    if (!face) {
        int f = st->health >= 100 ? 4 : st->health <= 0 ? 0 : st->health / 20;
        snprintf(fname, sizeof fname, "face%d", 5 - f);
        face = fname;
    }
    named_at(&b, face, 112, 0, 255);
    num_at(&b, 136, 0, st->health, 3, st->health <= 25);
    static const char *const ammo_pic[CL_AMMO_COUNT] = {
        [CL_AMMO_SHELLS] = "sb_shells", [CL_AMMO_BULLETS] = "sb_nails",
        [CL_AMMO_ROCKETS] = "sb_rocket", [CL_AMMO_CELLS] = "sb_cells"};
    if (st->ammo_type < CL_AMMO_COUNT && ammo_pic[st->ammo_type])
        named_at(&b, ammo_pic[st->ammo_type], 224, 0, 255);
    num_at(&b, 248, 0, st->ammo, 3, st->ammo <= 10);
    return 1;
}
