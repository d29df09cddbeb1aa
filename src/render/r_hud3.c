/* r_hud3.c: Quake III's HUD as ioquake3's cgame draws it, on its 640x480 virtual screen.
 *
 * Facts (layout constants, colours, order) from ioquake3's GPL cgame, named by function:
 * cg_draw.c CG_Draw2D, CG_DrawStatusBar, CG_DrawField, CG_DrawUpperRight/CG_DrawTimer,
 * CG_DrawLowerRight/CG_DrawScores, CG_DrawFollow, CG_DrawCenterString; cg_drawtools.c
 * CG_DrawStringExt, CG_DrawChar, CG_AdjustFrom640, CG_FadeColor; cg_scoreboard.c
 * CG_DrawOldScoreboard, CG_DrawClientScore; client/cl_console.c Con_DrawNotify; q_shared
 * Q_IsColorString, ColorIndex, g_color_table. Pictures: gfx/2d/bigchars (16x16 glyphs),
 * gfx/2d/numbers/ *_32b, icons/icona_ *, icons/iconr_yellow, gfx/2d/select and the players'
 * models/players/<head>/icon_<skin>. A missing picture is drawn with qdemo's own font
 * (draw2d.h) or left out; never an error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw2d.h"
#include "r_local.h"

/* cg_local.h / cg_draw.c sizes in virtual units */
#define CHAR_WIDTH 32
#define CHAR_HEIGHT 48
#define TEXT_ICON_SPACE 4
#define ICON_SIZE 48
#define BIGCHAR 16
#define SMALLCHAR_W 8
#define SMALLCHAR_H 16
#define GIANT_W 32
#define GIANT_H 48
#define SCORE_NOT_PRESENT (-9999)

struct r_hud3 {
    mdl_image *chars;               /* gfx/2d/bigchars */
    mdl_image *num[11];             /* 0..9, minus */
    mdl_image *select;              /* gfx/2d/select */
    mdl_image *armor;               /* icons/iconr_yellow (cgs.media.armorIcon) */
    mdl_image *ammo[CL_WP_COUNT];   /* the weapon's ammo icon, else its weapon icon */
    mdl_image *head[CL_MAX_PLAYERS]; /* each player's head icon */
    uint8_t own_head[CL_MAX_PLAYERS]; /* head[i] is freed with the set (else an earlier
                                       * player's of the same head) */
    mdl_image *powerup[CL_PU_COUNT];  /* the powerup items' icons (bg_itemlist) */
    mdl_image *flag[2][3];          /* icons/iconf_red1..3, iconf_blu1..3: at base, taken,
                                     * dropped (cg_main.c CG_RegisterGraphics) */
    mdl_image *crosshair;           /* gfx/2d/crosshaire: cg_drawCrosshair's default 4 picks
                                     * crosshairShader[4] of 'a' + i (cg_main.c) */
};

/* The virtual screen on fb: CG_AdjustFrom640 stretches 640x480 over the whole output. */
typedef struct scr {
    const r_hud3 *h;
    rast_fb *fb;
    float sx, sy;
} scr;

typedef struct rgba {
    float r, g, b, a;
} rgba;

/* ---- colour codes ---- */

int r_q3_color_code(const char *s)
{
    if (!s || s[0] != '^' || !s[1] || s[1] == '^')
        return -1;
    return ((unsigned char)s[1] - '0') & 7;
}

uint32_t r_q3_color_rgb(int index)
{
    /* g_color_table: black, red, green, yellow, blue, cyan, magenta, white */
    static const uint8_t rgb[8][3] = {{0, 0, 0},     {255, 0, 0},   {0, 255, 0},
                                      {255, 255, 0}, {0, 0, 255},   {0, 255, 255},
                                      {255, 0, 255}, {255, 255, 255}};
    const uint8_t *c = rgb[index & 7];
    return rast_rgb(c[0], c[1], c[2]);
}

size_t r_q3_text_plain(const char *s, char *out, size_t cap)
{
    size_t n = 0, o = 0;
    if (!s)
        s = "";
    while (*s) {
        if (r_q3_color_code(s) >= 0) {
            s += 2;
            continue;
        }
        if (out && o + 1 < cap)
            out[o++] = *s;
        n++;
        s++;
    }
    if (out && cap)
        out[o] = 0;
    return n;
}

static rgba code_rgba(int index, float a)
{
    uint32_t c = r_q3_color_rgb(index);
    return (rgba){(c & 255) / 255.0f, (c >> 8 & 255) / 255.0f, (c >> 16 & 255) / 255.0f, a};
}

/* ---- loading ---- */

/* The HUD's pictures: sides of HUD3_MAX_SIDE at most (ioquake3's own are 256 or less; a
 * hi-res pack's bigchars 1024) and HUD3_ROOM bytes of pixels in all; one past either is
 * left out as one not there (a review: 64 head icons of 4096 x 4096 took 4.5 GB). */
#define HUD3_MAX_SIDE 1024
#define HUD3_ROOM ((uint64_t)64 << 20)

typedef struct loader {
    mdl_read_fn read;
    void *ctx;
    qd_error *damaged;
    uint64_t room; /* bytes of pixels left */
} loader;

static mdl_image *image(loader *l, const char *name)
{
    mdl_image *im = NULL;
    qd_error e = {0};
    qd_err r = l->read && l->room ? mdl_image_find_max(l->read, l->ctx, name, HUD3_MAX_SIDE, &im, &e)
                                  : QD_ERR_NOT_FOUND;
    if (r != QD_ERR_LIMIT)
        r_damaged_aside(l->damaged, r, &e); /* (a review: a damaged one was left out in
                                             * silence) */
    if (r != QD_OK)
        return NULL;
    uint64_t bytes = (uint64_t)im->w * im->h * 4;
    if (bytes > l->room) {
        mdl_image_free(im);
        l->room = 0; /* (nothing more is read) */
        return NULL;
    }
    l->room -= bytes;
    return im;
}

r_hud3 *r_hud3_load(mdl_read_fn read, void *ctx, const cl_state *cl, qd_error *damaged)
{
    r_hud3 *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    loader l = {read, ctx, damaged, HUD3_ROOM};
    int found = 0;
    h->chars = image(&l, "gfx/2d/bigchars.tga");
    found += h->chars != NULL;
    static const char *const digit[11] = {"zero", "one", "two",   "three", "four", "five",
                                          "six",  "seven", "eight", "nine", "minus"};
    for (int i = 0; i < 11; i++) {
        char name[64];
        snprintf(name, sizeof name, "gfx/2d/numbers/%s_32b.tga", digit[i]);
        h->num[i] = image(&l, name);
        found += h->num[i] != NULL;
    }
    h->select = image(&l, "gfx/2d/select.tga");
    h->crosshair = image(&l, "gfx/2d/crosshaire.tga");
    h->armor = image(&l, "icons/iconr_yellow.tga");
    /* bg_misc.c bg_itemlist: each weapon's ammo item icon; the gauntlet and grapple have
     * none, so their weapon icon stands in */
    static const struct {
        uint8_t wp;
        const char *ammo, *weapon;
    } icons[] = {
        {CL_WP_MELEE, NULL, "gauntlet"},
        {CL_WP_MACHINEGUN, "machinegun", "machinegun"},
        {CL_WP_SHOTGUN, "shotgun", "shotgun"},
        {CL_WP_GRENADE_LAUNCHER, "grenade", "grenade"},
        {CL_WP_ROCKET_LAUNCHER, "rocket", "rocket"},
        {CL_WP_LIGHTNING, "lightning", "lightning"},
        {CL_WP_RAILGUN, "railgun", "railgun"},
        {CL_WP_PLASMA, "plasma", "plasma"},
        {CL_WP_BFG, "bfg", "bfg"},
        {CL_WP_GRAPPLE, NULL, "grapple"},
        {CL_WP_NAILGUN, "nailgun", "nailgun"},
        {CL_WP_PROX, "proxlauncher", "proxlauncher"},
        {CL_WP_CHAINGUN, "chaingun", "chaingun"},
    };
    for (size_t i = 0; i < sizeof icons / sizeof icons[0]; i++) {
        char name[64];
        mdl_image *im = NULL;
        if (icons[i].ammo) {
            snprintf(name, sizeof name, "icons/icona_%s.tga", icons[i].ammo);
            im = image(&l, name);
        }
        if (!im) {
            snprintf(name, sizeof name, "icons/iconw_%s.tga", icons[i].weapon);
            im = image(&l, name);
        }
        h->ammo[icons[i].wp] = im;
    }
    /* bg_misc.c bg_itemlist: the powerups' icons (the flags have theirs, but cgame draws no
     * timer for them) */
    static const struct {
        uint8_t pu;
        const char *icon;
    } pus[] = {
        {CL_PU_QUAD, "icons/quad.tga"},   {CL_PU_SUIT, "icons/envirosuit.tga"},
        {CL_PU_HASTE, "icons/haste.tga"}, {CL_PU_INVIS, "icons/invis.tga"},
        {CL_PU_REGEN, "icons/regen.tga"}, {CL_PU_FLIGHT, "icons/flight.tga"},
    };
    for (size_t i = 0; i < sizeof pus / sizeof pus[0]; i++)
        h->powerup[pus[i].pu] = image(&l, pus[i].icon);
    for (int team = 0; team < 2; team++)
        for (int i = 0; i < 3; i++) {
            char name[64];
            snprintf(name, sizeof name, "icons/iconf_%s%d.tga", team ? "blu" : "red", i + 1);
            h->flag[team][i] = image(&l, name);
        }
    /* cg_players.c CG_RegisterClientModelname: models/players/<headModel>/icon_<headSkin>,
     * else icon_default. The decoder keeps head names to [A-Za-z0-9_-]. */
    for (int i = 0; cl && i < CL_MAX_PLAYERS; i++) {
        const cl_player *p = &cl->players[i];
        char model[32], name[96];
        const char *slash = strchr(p->head, '/');
        if (!p->active || !slash || slash == p->head)
            continue;
        /* players of one head share its icon, read once (a review: once a player) */
        int same = -1;
        for (int j = 0; j < i && same < 0; j++)
            if (cl->players[j].active && !strcmp(cl->players[j].head, p->head))
                same = j;
        if (same >= 0) {
            h->head[i] = h->head[same];
            continue;
        }
        snprintf(model, sizeof model, "%.*s", (int)(slash - p->head), p->head);
        snprintf(name, sizeof name, "models/players/%s/icon_%s.tga", model, slash + 1);
        h->head[i] = image(&l, name);
        if (!h->head[i]) {
            snprintf(name, sizeof name, "models/players/%s/icon_default.tga", model);
            h->head[i] = image(&l, name);
        }
        h->own_head[i] = h->head[i] != NULL;
    }
    if (!found) { /* none of Quake III's HUD pictures: the caller's own HUD instead */
        r_hud3_free(h);
        return NULL;
    }
    return h;
}

const mdl_image *r_hud3_head(const r_hud3 *h, int slot)
{
    return h && slot >= 0 && slot < CL_MAX_PLAYERS ? h->head[slot] : NULL;
}

void r_hud3_free(r_hud3 *h)
{
    if (!h)
        return;
    mdl_image_free(h->chars);
    for (int i = 0; i < 11; i++)
        mdl_image_free(h->num[i]);
    mdl_image_free(h->select);
    mdl_image_free(h->crosshair);
    mdl_image_free(h->armor);
    for (int i = 0; i < CL_WP_COUNT; i++)
        mdl_image_free(h->ammo[i]);
    for (int i = 0; i < CL_MAX_PLAYERS; i++)
        if (h->own_head[i])
            mdl_image_free(h->head[i]);
    for (int i = 0; i < CL_PU_COUNT; i++)
        mdl_image_free(h->powerup[i]);
    for (int i = 0; i < 6; i++)
        mdl_image_free(h->flag[i / 3][i % 3]);
    free(h);
}

/* ---- drawing on the virtual screen ---- */

/* A virtual coordinate as an output pixel edge (clamped so the sums below cannot overflow). */
static int px(float v, float scale)
{
    float p = floorf(v * scale + 0.5f);
    return p < -1e6f ? -1000000 : p > 1e6f ? 1000000 : (int)p;
}

static uint32_t pack(rgba c)
{
    float a = c.a < 0 ? 0 : c.a > 1 ? 1 : c.a;
    float r = c.r < 0 ? 0 : c.r > 1 ? 1 : c.r, g = c.g < 0 ? 0 : c.g > 1 ? 1 : c.g,
          b = c.b < 0 ? 0 : c.b > 1 ? 1 : c.b;
    /* rast_rgb's own alpha byte is 255: replaced by c's */
    return (rast_rgb((unsigned)(r * 255 + 0.5f), (unsigned)(g * 255 + 0.5f),
                     (unsigned)(b * 255 + 0.5f)) &
            0x00ffffffu) |
           (uint32_t)(a * 255 + 0.5f) << 24;
}

/* CG_FillRect: the rectangle in c, blended by its alpha. */
static void fill(const scr *s, float x, float y, float w, float h, rgba c)
{
    int x0 = px(x, s->sx), y0 = px(y, s->sy), x1 = px(x + w, s->sx), y1 = px(y + h, s->sy);
    draw_fill_rect(s->fb, x0, y0, x1 - x0, y1 - y0, pack(c));
}

/* trap_R_DrawStretchPic: texels [u0, u0 + uw) x [v0, v0 + vh) of im stretched over the
 * virtual rectangle, each texel times c and blended by its alpha times c.a (GL's modulate and
 * blend); the texel nearest each output pixel's centre. Clipped to the output. */
/* A modulated texel (r, g, b may pass 255: clamped) of alpha a over *o. */
static void blend_texel(uint32_t *o, uint32_t r, uint32_t g, uint32_t b, uint32_t a)
{
    r = r > 255 ? 255 : r;
    g = g > 255 ? 255 : g;
    b = b > 255 ? 255 : b;
    a = a > 255 ? 255 : a;
    uint32_t d = *o, ia = 255 - a;
    r = (r * a + (d & 255) * ia + 127) / 255;
    g = (g * a + (d >> 8 & 255) * ia + 127) / 255;
    b = (b * a + (d >> 16 & 255) * ia + 127) / 255;
    *o = r | g << 8 | b << 16 | 0xff000000u;
}

/* stretch's minifying path: each pixel the mean of the texels under it, each weighted by the
 * area it shares with the pixel and by its alpha, then blended as one texel is. A small
 * picture of thin lines (the crosshair: 60 lit texels of 128 x 128 drawn over 24 x 24
 * pixels) keeps its light instead of point sampling's hit or miss. In units of 1/dw of a
 * texel across, pixel i spans [i * uw, (i + 1) * uw) and texel u [u * dw, (u + 1) * dw). */
static void stretch_down(rast_fb *fb, int x0, int y0, int dw, int dh, int cx0, int cy0, int cx1,
                         int cy1, const mdl_image *im, int u0, int v0, int uw, int vh,
                         uint32_t mr, uint32_t mg, uint32_t mb, uint32_t ma)
{
    for (int yy = cy0; yy < cy1; yy++) {
        int64_t ylo = (int64_t)(yy - y0) * vh, yhi = ylo + vh;
        int64_t ra = ylo / dh, rb = (yhi + dh - 1) / dh; /* rows [ra, rb) of the part */
        uint32_t *out = fb->color + (size_t)yy * (size_t)fb->w;
        for (int xx = cx0; xx < cx1; xx++) {
            int64_t xlo = (int64_t)(xx - x0) * uw, xhi = xlo + uw;
            int64_t ca = xlo / dw, cb = (xhi + dw - 1) / dw;
            uint64_t sr = 0, sg = 0, sb = 0, sa = 0;
            for (int64_t r = ra; r < rb; r++) {
                int64_t v = v0 + r;
                if (v < 0 || v >= (int64_t)im->h)
                    continue;
                int64_t wy = (yhi < (r + 1) * dh ? yhi : (r + 1) * dh) -
                             (ylo > r * dh ? ylo : r * dh);
                const uint32_t *row = im->pixels + (size_t)v * im->w;
                for (int64_t c = ca; c < cb; c++) {
                    int64_t u = u0 + c;
                    if (u < 0 || u >= (int64_t)im->w)
                        continue;
                    int64_t wx = (xhi < (c + 1) * dw ? xhi : (c + 1) * dw) -
                                 (xlo > c * dw ? xlo : c * dw);
                    uint32_t t = row[u];
                    uint64_t wa = (uint64_t)(wx * wy) * (t >> 24);
                    sr += (t & 255) * wa;
                    sg += (t >> 8 & 255) * wa;
                    sb += (t >> 16 & 255) * wa;
                    sa += wa;
                }
            }
            if (!sa)
                continue;
            uint64_t area = (uint64_t)uw * (uint64_t)vh;
            uint32_t a = (uint32_t)((sa + area / 2) / area) * ma >> 8;
            if (!a)
                continue;
            /* the alpha-weighted mean colour, modulated as stretch modulates one texel */
            blend_texel(&out[xx], (uint32_t)((sr + sa / 2) / sa) * mr >> 8,
                        (uint32_t)((sg + sa / 2) / sa) * mg >> 8,
                        (uint32_t)((sb + sa / 2) / sa) * mb >> 8, a);
        }
    }
}

static void stretch(const scr *s, float x, float y, float w, float h, const mdl_image *im,
                    int u0, int v0, int uw, int vh, rgba c)
{
    if (!im || uw <= 0 || vh <= 0 || c.a <= 0)
        return;
    rast_fb *fb = s->fb;
    int x0 = px(x, s->sx), y0 = px(y, s->sy), x1 = px(x + w, s->sx), y1 = px(y + h, s->sy);
    int dw = x1 - x0, dh = y1 - y0;
    if (dw <= 0 || dh <= 0)
        return;
    int cx0 = x0 < 0 ? 0 : x0, cy0 = y0 < 0 ? 0 : y0;
    int cx1 = x1 > fb->w ? fb->w : x1, cy1 = y1 > fb->h ? fb->h : y1;
    uint32_t mr = (uint32_t)(c.r * 256), mg = (uint32_t)(c.g * 256), mb = (uint32_t)(c.b * 256),
             ma = (uint32_t)((c.a > 1 ? 1 : c.a) * 256);
    if (uw > dw || vh > dh) { /* shrunk: each pixel the mean of the texels it covers */
        stretch_down(fb, x0, y0, dw, dh, cx0, cy0, cx1, cy1, im, u0, v0, uw, vh, mr, mg, mb, ma);
        return;
    }
    for (int yy = cy0; yy < cy1; yy++) {
        int v = v0 + (int)(((int64_t)(yy - y0) * 2 + 1) * vh / (2 * (int64_t)dh));
        if (v < 0 || (uint32_t)v >= im->h)
            continue;
        const uint32_t *row = im->pixels + (size_t)v * im->w;
        uint32_t *out = fb->color + (size_t)yy * (size_t)fb->w;
        for (int xx = cx0; xx < cx1; xx++) {
            int u = u0 + (int)(((int64_t)(xx - x0) * 2 + 1) * uw / (2 * (int64_t)dw));
            if (u < 0 || (uint32_t)u >= im->w)
                continue;
            uint32_t t = row[u];
            uint32_t a = (t >> 24) * ma >> 8;
            if (!a)
                continue;
            blend_texel(&out[xx], (t & 255) * mr >> 8, (t >> 8 & 255) * mg >> 8,
                        (t >> 16 & 255) * mb >> 8, a);
        }
    }
}

static void pic(const scr *s, float x, float y, float w, float h, const mdl_image *im, rgba c)
{
    if (im)
        stretch(s, x, y, w, h, im, 0, 0, (int)im->w, (int)im->h, c);
}

/* qdemo's own font standing in for a missing picture: c (a printable character) filling as
 * much of the virtual cell as whole font pixels allow, at its top left. */
static void builtin_char(const scr *s, float x, float y, float w, float h, int c, rgba col)
{
    float kx = w * s->sx / DRAW_FONT_W, ky = h * s->sy / DRAW_FONT_H;
    int k = (int)(kx < ky ? kx : ky);
    char str[2] = {(char)(c < 32 || c > 126 ? '?' : c), 0};
    draw_text(s->fb, px(x, s->sx), px(y, s->sy), str, pack(col), k < 1 ? 1 : k);
}

/* CG_DrawChar: glyph ch of bigchars (16 x 16 cells of a quarter of 0.0625 each way); a
 * space draws nothing. */
static void draw_char(const scr *s, float x, float y, float w, float h, int ch, rgba c)
{
    ch &= 255;
    if (ch == ' ')
        return;
    const mdl_image *cs = s->h->chars;
    if (!cs) {
        builtin_char(s, x, y, w, h, ch, c);
        return;
    }
    int cw = (int)cs->w / 16, chh = (int)cs->h / 16;
    stretch(s, x, y, w, h, cs, (ch & 15) * cw, (ch >> 4) * chh, cw, chh, c);
}

/* CG_DrawStringExt: str at (x, y), cells of cw x ch, colour codes changing the colour unless
 * force is set (alpha stays c.a), a black shadow 2 units down and right first when shadow is
 * set; at most max characters (0: all). */
static void draw_string(const scr *s, float x, float y, const char *str, rgba c, int force,
                        int shadow, float cw, float ch, int max)
{
    if (shadow) {
        rgba black = {0, 0, 0, c.a};
        float xx = x;
        int n = 0;
        for (const char *p = str; *p && (!max || n < max);) {
            if (r_q3_color_code(p) >= 0) {
                p += 2;
                continue;
            }
            draw_char(s, xx + 2, y + 2, cw, ch, (unsigned char)*p, black);
            xx += cw;
            n++;
            p++;
        }
    }
    rgba cur = c;
    int n = 0;
    for (const char *p = str; *p && (!max || n < max);) {
        int code = r_q3_color_code(p);
        if (code >= 0) {
            if (!force)
                cur = code_rgba(code, c.a);
            p += 2;
            continue;
        }
        draw_char(s, x, y, cw, ch, (unsigned char)*p, cur);
        x += cw;
        n++;
        p++;
    }
}

static const rgba white = {1, 1, 1, 1};

/* CG_DrawBigString: BIGCHAR cells, shadowed, colour codes honoured. */
static void big_string(const scr *s, float x, float y, const char *str, float alpha)
{
    draw_string(s, x, y, str, (rgba){1, 1, 1, alpha}, 0, 1, BIGCHAR, BIGCHAR, 0);
}

static float plain_len(const char *str)
{
    return (float)r_q3_text_plain(str, NULL, 0);
}

/* CG_DrawField: value in `width` CHAR_WIDTH x CHAR_HEIGHT digit pictures, clamped to what
 * fits, right-aligned after 2 units, in colour c. */
static void draw_field(const scr *s, int x, int y, int width, int value, rgba c)
{
    if (width < 1)
        return;
    width = width > 5 ? 5 : width;
    static const int hi[6] = {0, 9, 99, 999, 9999, 99999}, lo[6] = {0, 0, -9, -99, -999, -9999};
    value = value > hi[width] ? hi[width] : value < lo[width] ? lo[width] : value;
    char num[16];
    snprintf(num, sizeof num, "%d", value);
    int l = (int)strlen(num);
    l = l > width ? width : l;
    x += 2 + CHAR_WIDTH * (width - l);
    for (const char *p = num; *p && l; p++, l--, x += CHAR_WIDTH) {
        int frame = *p == '-' ? 10 : *p - '0';
        if (s->h->num[frame])
            pic(s, (float)x, (float)y, CHAR_WIDTH, CHAR_HEIGHT, s->h->num[frame], c);
        else
            builtin_char(s, (float)x, (float)y, CHAR_WIDTH, CHAR_HEIGHT, *p, c);
    }
}

/* ---- the parts of CG_Draw2D ---- */

static int team_game(const cl_state *cl)
{
    for (int i = 0; i < CL_MAX_PLAYERS; i++)
        if (cl->players[i].active &&
            (cl->players[i].team == CL_TEAM_RED || cl->players[i].team == CL_TEAM_BLUE))
            return 1;
    return 0;
}

/* CG_DrawStatusBar without its 3D models: ammo at 0, the head icon at 285, health at 185,
 * armour at 370 with its icon at 470, all at y 432; the team's band behind. */
static void status_bar(const scr *s, const cl_state *cl, int slot, const cl_stats *st,
                       double t)
{
    static const rgba colors[4] = {
        {1, 0.69f, 0, 1},     /* normal */
        {1, 0.2f, 0.2f, 1},   /* low health */
        {0.5f, 0.5f, 0.5f, 1}, /* weapon firing (not in the neutral stats) */
        {1, 1, 1, 1},         /* health over 100 */
    };
    int team = slot >= 0 && slot < CL_MAX_PLAYERS ? cl->players[slot].team : CL_TEAM_NONE;
    /* CG_DrawTeamBackground(0, 420, 640, 60, 0.33, team) */
    if (team == CL_TEAM_RED)
        fill(s, 0, 420, 640, 60, (rgba){1, 0, 0, 0.33f});
    else if (team == CL_TEAM_BLUE)
        fill(s, 0, 420, 640, 60, (rgba){0, 0, 1, 0.33f});
    /* ammo: the field when the weapon counts it (ammo > -1), its icon after */
    if (st->weapon != CL_WP_NONE && st->ammo > -1) {
        draw_field(s, 0, 432, 3, st->ammo, colors[0]);
        if (st->weapon < CL_WP_COUNT)
            pic(s, CHAR_WIDTH * 3 + TEXT_ICON_SPACE, 432, ICON_SIZE, ICON_SIZE,
                s->h->ammo[st->weapon], white);
    }
    /* CG_DrawStatusBarHead: the head, here its icon */
    if (slot >= 0 && slot < CL_MAX_PLAYERS)
        pic(s, 185 + CHAR_WIDTH * 3 + TEXT_ICON_SPACE, 480 - ICON_SIZE, ICON_SIZE, ICON_SIZE,
            s->h->head[slot], white);
    /* health: white over 100, flashing red every 256 ms at 25 and below */
    int hv = st->health;
    rgba hc = hv > 100 ? colors[3]
              : hv > 25 ? colors[0]
              : hv > 0  ? colors[(int64_t)(t * 1000) >> 8 & 1]
                        : colors[1];
    draw_field(s, 185, 432, 3, hv, hc);
    if (st->armor > 0) {
        draw_field(s, 370, 432, 3, st->armor, colors[0]);
        pic(s, 370 + CHAR_WIDTH * 3 + TEXT_ICON_SPACE, 432, ICON_SIZE, ICON_SIZE, s->h->armor,
            white);
    }
}

/* CG_DrawTimer (cg_drawTimer): "m:ss" right-aligned at 635, y 2, the time since the
 * level's start (CS_LEVEL_START_TIME; the demo's clock when the state has none). */
static void timer(const scr *s, const cl_state *cl)
{
    double t = cl_game_clock(cl);
    int secs = (int)t, mins = secs / 60;
    secs -= mins * 60;
    char str[32];
    snprintf(str, sizeof str, "%d:%d%d", mins, secs / 10, secs % 10);
    big_string(s, 635 - plain_len(str) * BIGCHAR, 2, str, 1);
}

/* One score box of CG_DrawScores: "%2i" in a translucent box ending at *x, the select frame
 * over the viewed player's own; returns its width. */
static float score_box(const scr *s, float *x, float y, int value, rgba box, int mark)
{
    char str[16];
    snprintf(str, sizeof str, "%2d", value);
    float w = plain_len(str) * BIGCHAR + 8;
    *x -= w;
    fill(s, *x, y - 4, w, BIGCHAR + 8, box);
    if (mark)
        pic(s, *x, y - 4, w, BIGCHAR + 8, s->h->select, white);
    big_string(s, *x + 4, y, str, 1);
    return w;
}

/* CG_DrawScores' limit, left of the boxes: the number alone, no box. */
static void limit_box(const scr *s, float x, float y, int value)
{
    char str[16];
    if (!value)
        return;
    snprintf(str, sizeof str, "%2d", value);
    big_string(s, x - (plain_len(str) * BIGCHAR + 8) + 4, y, str, 1);
}

/* CG_DrawScores in capture the flag: a team's flag state (CS_FLAGSTATUS: at base, taken,
 * dropped) as its icon over the team's score box, one box height above it. */
static void flag_icon(const scr *s, const cl_state *cl, int team, float x, float w, float y)
{
    int st = cl->flag_status[team];
    if (st >= 0 && st <= 2)
        pic(s, x, y - BIGCHAR - 8 - 4, w, BIGCHAR + 8, s->h->flag[team][st], white);
}

/* CG_DrawPowerups: above the score boxes (y is their top), each powerup the viewed player
 * holds with an end time under 999 s away, soonest ending lowest: its seconds left in red
 * digits and its icon at the right edge, the icon blinking (alpha the fraction of the
 * second) in its last 5 s (POWERUP_BLINKS x POWERUP_BLINK_TIME). Nothing for the dead.
 * cgame's pulse on pickup needs the pickup's time, which the state does not keep. */
static void powerups(const scr *s, const cl_stats *st, double t, float y)
{
    if (!st || st->health <= 0)
        return;
    int order[CL_PU_COUNT], n = 0;
    double left[CL_PU_COUNT];
    for (int i = 0; i < CL_PU_COUNT; i++) {
        double l = st->powerup_end[i] - t;
        if (st->powerup_end[i] <= 0 || !s->h->powerup[i] || !(l >= 0 && l <= 999))
            continue; /* not held, held without end (a flag), or nothing to show */
        int k = n++;
        for (; k > 0 && left[order[k - 1]] >= l; k--)
            order[k] = order[k - 1]; /* insertion: soonest first */
        order[k] = i;
        left[i] = l;
    }
    const int x = 640 - ICON_SIZE - CHAR_WIDTH * 2;
    for (int k = 0; k < n; k++) {
        int i = order[k];
        y -= ICON_SIZE;
        draw_field(s, x, (int)y, 2, (int)left[i], (rgba){1, 0.2f, 0.2f, 1});
        float a = 1;
        if (left[i] < 5.0)
            a = (float)(left[i] - floor(left[i]));
        pic(s, 640 - ICON_SIZE, y, ICON_SIZE, ICON_SIZE, s->h->powerup[i], (rgba){a, a, a, a});
    }
}

/* CG_DrawLowerRight / CG_DrawScores: CS_SCORES1 and CS_SCORES2 (cl->team_score) at the
 * bottom right: the teams' (blue right of red, each under its flag's state in CTF) or, free
 * for all, the leader's and the second's with the viewed player's own marked; the limit
 * (capturelimit or fraglimit) left of them; then the powerups above them. */
static void lower_right(const scr *s, const cl_state *cl, const cl_stats *st, int slot,
                        double t)
{
    float y = 480 - ICON_SIZE - (BIGCHAR + 8), x = 640;
    int s1 = cl->team_score[0], s2 = cl->team_score[1];
    int team = slot >= 0 && slot < CL_MAX_PLAYERS ? cl->players[slot].team : CL_TEAM_NONE;
    if (team_game(cl)) {
        /* CG_DrawScores returns its boxes' top less 8, the flags' top less 8 in CTF */
        powerups(s, st, t, cl->ctf ? y - BIGCHAR - 8 - 8 : y - 8);
        float w = score_box(s, &x, y, s2, (rgba){0, 0, 1, 0.33f}, team == CL_TEAM_BLUE);
        if (cl->ctf)
            flag_icon(s, cl, 1, x, w, y);
        w = score_box(s, &x, y, s1, (rgba){1, 0, 0, 0.33f}, team == CL_TEAM_RED);
        if (cl->ctf)
            flag_icon(s, cl, 0, x, w, y);
        limit_box(s, x, y, cl->score_limit);
        return;
    }
    powerups(s, st, t, y - 8);
    if (!st)
        return;
    int score = st->score, spectator = (st->flags & CL_ST_SPECTATOR) != 0;
    rgba grey = {0.5f, 0.5f, 0.5f, 0.33f};
    if (s1 != score)
        s2 = score; /* always show your own score in the second box if not first */
    if (s2 != SCORE_NOT_PRESENT) {
        int mine = !spectator && score == s2 && score != s1;
        score_box(s, &x, y, s2, mine ? (rgba){1, 0, 0, 0.33f} : grey, mine);
    }
    if (s1 != SCORE_NOT_PRESENT) {
        int mine = !spectator && score == s1;
        score_box(s, &x, y, s1, mine ? (rgba){0, 0, 1, 0.33f} : grey, mine);
    }
    limit_box(s, x, y, cl->score_limit);
}

/* Con_DrawNotify: the last four console lines printed within con_notifytime (3 s), prints
 * and chat (cgame prints chat to the console), in SMALLCHAR cells from the top left, one
 * unit of indent, long lines wrapped at the console's width (78 characters). */
static void notify(const scr *s, const cl_state *cl, double t)
{
    enum { LINES = 4, WIDTH = 640 / SMALLCHAR_W - 2 };
    const char *line[LINES];
    int len[LINES], n = 0;
    uint32_t count = cl->message_count, have = count < CL_MAX_PRINTS ? count : CL_MAX_PRINTS;
    /* newest first: collect lines from the end of each message backwards */
    for (uint32_t i = 0; i < have && n < LINES; i++) {
        const cl_message *m = &cl->messages[(count - 1 - i) % CL_MAX_PRINTS];
        if (m->kind == CL_MSG_CENTER || m->time > t)
            continue;
        if (t - m->time >= 3.0)
            break;
        const char *starts[CL_TEXT_LEN];
        int lens[CL_TEXT_LEN], k = 0;
        const char *p = m->text;
        while (*p && k < CL_TEXT_LEN) {
            const char *e = p;
            int vis = 0;
            while (*e && *e != '\n' && vis < WIDTH) {
                if (r_q3_color_code(e) >= 0) {
                    e += 2;
                    continue;
                }
                vis++;
                e++;
            }
            starts[k] = p;
            lens[k++] = (int)(e - p);
            p = *e == '\n' ? e + 1 : e;
        }
        for (int j = k - 1; j >= 0 && n < LINES; j--) {
            line[n] = starts[j];
            len[n++] = lens[j];
        }
    }
    for (int i = 0; i < n; i++) { /* oldest at the top */
        char buf[CL_TEXT_LEN + 1];
        snprintf(buf, sizeof buf, "%.*s", len[n - 1 - i], line[n - 1 - i]);
        draw_string(s, SMALLCHAR_W, (float)(i * SMALLCHAR_H), buf, white, 0, 0, SMALLCHAR_W,
                    SMALLCHAR_H, 0);
    }
}

/* CG_DrawCenterString: the latest centerprint for cg_centertime (3 s), fading over its
 * last 200 ms, centred lines of at most 50 characters in 16 x 24 cells from y 144 up by
 * half its height, shadowed. */
static void center_string(const scr *s, const cl_state *cl, double t)
{
    uint32_t count = cl->message_count, have = count < CL_MAX_PRINTS ? count : CL_MAX_PRINTS;
    const cl_message *m = NULL;
    for (uint32_t i = 0; i < have && !m; i++) {
        const cl_message *c = &cl->messages[(count - 1 - i) % CL_MAX_PRINTS];
        if (c->kind == CL_MSG_CENTER && c->time <= t)
            m = c;
    }
    if (!m || t - m->time >= 3.0)
        return;
    double left = 3.0 - (t - m->time);
    float alpha = left < 0.2 ? (float)(left / 0.2) : 1.0f;
    int lines = 1;
    for (const char *p = m->text; *p; p++)
        lines += *p == '\n';
    float y = 480 * 0.30f - lines * BIGCHAR / 2.0f;
    for (const char *p = m->text;;) {
        char buf[64];
        int l = 0;
        while (l < 50 && p[l] && p[l] != '\n')
            l++;
        snprintf(buf, sizeof buf, "%.*s", l, p);
        float w = BIGCHAR * plain_len(buf);
        draw_string(s, (640 - w) / 2, y, buf, (rgba){1, 1, 1, alpha}, 0, 1, BIGCHAR,
                    BIGCHAR * 1.5f, 0);
        y += BIGCHAR * 1.5f;
        while (*p && *p != '\n')
            p++;
        if (!*p)
            break;
        p++;
    }
}

/* CG_DrawFollow: "following" and the name in giant white letters. */
static void follow_name(const scr *s, const cl_state *cl, int follow)
{
    const char *name = cl->players[follow].name;
    big_string(s, 320 - 9 * 8, 24, "following", 1);
    float x = 0.5f * (640 - GIANT_W * plain_len(name));
    draw_string(s, x, 40, name, white, 1, 1, GIANT_W, GIANT_H, 0);
}

/* CG_PlaceString's words */
static void place_string(int rank, char *out, size_t cap)
{
    const char *suffix = rank % 100 >= 11 && rank % 100 <= 13 ? "th"
                         : rank % 10 == 1                    ? "st"
                         : rank % 10 == 2                    ? "nd"
                         : rank % 10 == 3                    ? "rd"
                                                             : "th";
    snprintf(out, cap, "%d%s", rank, suffix);
}

/* CG_DrawOldScoreboard: the title (place or team lead) at y 60, the column heads at 86, the
 * players from 118 by score (team games: the leading team first), 40 units a row or 16 when
 * more than nine, each " %5i %4i %s" (score, ping, name: the time column is not in the
 * client state) in BIGCHAR from x 160, the viewed player's row on a band coloured by rank. */
static void scoreboard(const scr *s, const cl_state *cl, int slot, const cl_stats *st)
{
    enum { SB_HEADER = 86, SB_TOP = SB_HEADER + 32, SB_SCORELINE_X = 112,
           SB_RATING_WIDTH = 6 * BIGCHAR };
    int order[CL_MAX_PLAYERS], n = 0, teams = team_game(cl);
    int red_first = cl->team_score[0] >= cl->team_score[1];
    for (int i = 0; i < CL_MAX_PLAYERS; i++)
        if (cl->players[i].active && !cl->players[i].spectator)
            order[n++] = i;
    for (int i = 1; i < n; i++) /* stable: equal scores keep slot order */
        for (int j = i; j > 0; j--) {
            const cl_player *a = &cl->players[order[j]], *b = &cl->players[order[j - 1]];
            int ta = teams ? (a->team == (red_first ? CL_TEAM_RED : CL_TEAM_BLUE) ? 0 : 1) : 0;
            int tb = teams ? (b->team == (red_first ? CL_TEAM_RED : CL_TEAM_BLUE) ? 0 : 1) : 0;
            /* (a score not sent, no "scores" command in the demo: below the known ones) */
            if (ta > tb || (ta == tb && (a->frags_known != b->frags_known ? !a->frags_known
                                                                          : a->frags <= b->frags)))
                break;
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    char title[96];
    if (teams) {
        int r = cl->team_score[0], b = cl->team_score[1];
        if (r == b)
            snprintf(title, sizeof title, "Teams are tied at %d", r);
        else if (r > b)
            snprintf(title, sizeof title, "Red leads %d to %d", r, b);
        else
            snprintf(title, sizeof title, "Blue leads %d to %d", b, r);
    } else {
        title[0] = 0;
        int rank = -1;
        for (int i = 0; i < n; i++)
            if (order[i] == slot)
                rank = i;
        if (rank >= 0 && st && !(st->flags & CL_ST_SPECTATOR)) {
            char place[16];
            place_string(rank + 1, place, sizeof place);
            snprintf(title, sizeof title, "%s place with %d", place, (int)cl->players[slot].frags);
        }
    }
    if (title[0])
        big_string(s, (640 - plain_len(title) * BIGCHAR) / 2, 60, title, 1);
    static const char *const heads[3] = {"Score", "Ping", "Name"};
    static const float head_x[3] = {SB_SCORELINE_X + BIGCHAR + SB_RATING_WIDTH / 2.0f,
                                     SB_SCORELINE_X + 12 * BIGCHAR + 8 - SB_RATING_WIDTH / 2.0f,
                                     /* over the names: the time column is left out */
                                     SB_SCORELINE_X + SB_RATING_WIDTH / 2.0f + 12 * BIGCHAR};
    for (int i = 0; i < 3; i++)
        big_string(s, head_x[i], SB_HEADER + 8, heads[i], 1);
    int line_h = n > (480 - SB_TOP) / 40 ? 16 : 40;
    int max_rows = (480 - SB_TOP) / line_h - (line_h == 16);
    for (int r = 0; r < n && r < max_rows; r++) {
        const cl_player *p = &cl->players[order[r]];
        float y = (float)(SB_TOP + r * line_h);
        if (order[r] == slot) {
            static const rgba band[4] = {{0, 0, 0.7f, 0.7f}, {0.7f, 0, 0, 0.7f},
                                         {0.7f, 0.7f, 0, 0.7f}, {0.7f, 0.7f, 0.7f, 0.7f}};
            fill(s, SB_SCORELINE_X + BIGCHAR + SB_RATING_WIDTH / 2.0f, y,
                 640 - SB_SCORELINE_X - BIGCHAR, BIGCHAR + 1, band[r < 3 ? r : 3]);
        } else if (teams && (p->team == CL_TEAM_RED || p->team == CL_TEAM_BLUE)) {
            fill(s, SB_SCORELINE_X + BIGCHAR + SB_RATING_WIDTH / 2.0f, y,
                 640 - SB_SCORELINE_X - BIGCHAR, BIGCHAR + 1,
                 p->team == CL_TEAM_RED ? (rgba){1, 0, 0, 0.33f} : (rgba){0, 0, 1, 0.33f});
        }
        pic(s, 64 + SB_RATING_WIDTH / 2.0f, y, BIGCHAR, BIGCHAR, s->h->head[order[r]], white);
        char row[96];
        int score = p->frags < -9999 ? -9999 : p->frags > 99999 ? 99999 : (int)p->frags;
        if (p->frags_known)
            snprintf(row, sizeof row, " %5d %4d %.40s", score, p->ping, p->name);
        else /* (score and ping both come in a "scores" command: neither was sent) */
            snprintf(row, sizeof row, "     -    - %.40s", p->name);
        big_string(s, SB_SCORELINE_X + SB_RATING_WIDTH / 2.0f, y, row, 1);
    }
}

void r_hud3_health_color(int health, int armor, float rgb[3])
{
    if (health <= 0) {
        rgb[0] = rgb[1] = rgb[2] = 0;
        return;
    }
    /* the armor that can absorb damage: at most health * 0.66 / (1 - 0.66), truncated */
    int absorb = (int)(health * 0.66 / (1.0 - 0.66));
    int total = health + (armor < absorb ? armor : absorb);
    rgb[0] = 1;
    rgb[1] = total > 60 ? 1.0f : total < 30 ? 0.0f : (float)((total - 30) / 30.0);
    rgb[2] = total >= 100 ? 1.0f : total < 66 ? 0.0f : (float)((total - 66) / 33.0);
}

/* CG_DrawCrosshair: cg_crosshairSize 24 virtual units square at the centre of the view,
 * tinted by cg_crosshairHealth's default 1 (the colour for health), alpha-blended as a 2D
 * picture's default shader blends. The pickup pulse is left out (no pickup time kept). */
static void crosshair(const scr *s, const cl_stats *st)
{
    if (!s->h->crosshair)
        return;
    float c[3];
    r_hud3_health_color(st->health, st->armor, c);
    pic(s, (640 - 24) / 2.0f, (480 - 24) / 2.0f, 24, 24, s->h->crosshair,
        (rgba){c[0], c[1], c[2], 1});
}

int r_hud3_draw(const r_hud3 *h, const cl_state *cl, int follow, unsigned flags, double t,
                rast_fb *fb)
{
    int show_scores = (flags & R_HUD3_SCORES) != 0;
    if (!h || !cl || !fb || !fb->color || fb->w <= 0 || fb->h <= 0)
        return 0;
    scr s = {h, fb, fb->w / 640.0f, fb->h / 480.0f};
    if (follow >= CL_MAX_PLAYERS || (follow >= 0 && !cl->players[follow].active))
        follow = -1;
    int slot = follow >= 0 ? follow : cl_view_player(cl);
    const cl_stats *st = cl_stats_of(cl, slot);
    if (st && !(st->flags & CL_ST_VALID))
        st = NULL;
    if (cl->intermission) { /* CG_DrawIntermission: the scoreboard only */
        scoreboard(&s, cl, slot, st);
        notify(&s, cl, t);
        return 1;
    }
    if (st && !(st->flags & CL_ST_SPECTATOR) && !show_scores && st->health > 0) {
        status_bar(&s, cl, slot, st, t);
        /* CG_Draw2D draws it after the status bar, under everything else */
        if (flags & R_HUD3_CROSSHAIR)
            crosshair(&s, st);
    } else if (st && (st->flags & CL_ST_SPECTATOR) && !show_scores) {
        /* CG_DrawSpectator, then the crosshair: "SPECTATOR", and in team games how to join
         * (a duel's "waiting to play": the game type is not in the client state) */
        big_string(&s, 320 - 9 * 8, 440, "SPECTATOR", 1);
        if (team_game(cl))
            big_string(&s, 320 - 39 * 8, 460, "press ESC and use the JOIN menu to play", 1);
        if (flags & R_HUD3_CROSSHAIR)
            crosshair(&s, st);
    }
    timer(&s, cl);
    lower_right(&s, cl, st, slot, t);
    if (follow >= 0)
        follow_name(&s, cl, follow);
    if (show_scores)
        scoreboard(&s, cl, slot, st);
    else
        center_string(&s, cl, t);
    notify(&s, cl, t);
    return 1;
}

int r_hud3_text(const r_hud3 *h, rast_fb *fb, float x, float y, const char *str, float cw,
                float ch, int shadow)
{
    if (!h || !fb || !fb->color || !str)
        return 0;
    scr s = {h, fb, fb->w / 640.0f, fb->h / 480.0f};
    draw_string(&s, x, y, str, white, 0, shadow, cw, ch, 0);
    return 1;
}
