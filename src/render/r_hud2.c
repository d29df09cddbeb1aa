/* r_hud2.c: Quake II's HUD as its server writes it: the status bar program (CS_STATUSBAR)
 * and the layout (svc_layout: scoreboards, help) in the layout language, run over the
 * recorded view's raw stats (cl_layout). The language and its placements are those of
 * Quake II's client, cl_scrn.c SCR_ExecuteLayoutString, SCR_DrawField and DrawHUDString
 * (GPL source, read for the facts): 8-pixel text cells, 16-pixel number cells, positions
 * relative to the screen's left/right/centre and top/bottom/centre. The pictures come from
 * the user's pics/ (r_hud2_load: the number pictures num_* and anum_*, conchars, and the
 * CS_IMAGES names `pic` indexes and `picn` names, 8-bit PCX with index 255 see-through as
 * Quake II's Draw_Pic has it); without them numbers are drawn in qdemo's own font in the
 * game's two number colours, text in it too, and pictures are left out. No free data set has
 * Quake II's pics/, so that path is tested on pictures made in the test. The screen is the
 * output at 1/k scale, k = height / 240 (at least 1), so the status bar keeps Quake II's
 * proportions at 320x240. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/text.h"
#include "draw2d.h"
#include "r_local.h"

#define Q2_STAT_HEALTH 1
#define Q2_STAT_AMMO 3
#define Q2_STAT_ARMOR 5
#define Q2_STAT_LAYOUTS 13
#define TEXT_CELL 8 /* conchars */
#define NUM_CELL 16 /* CHAR_WIDTH of the number pictures */

/* One picture of pics/ as palette indices with its file's palette. */
typedef struct pic2 {
    char name[CL_NAME_LEN / 2]; /* as a layout names it: "i_health" */
    mdl_pcx *pcx;
    size_t len;                 /* its file's bytes (what it cost with its pixels) */
    char path[CL_NAME_LEN + 16]; /* the file it names, lower case ("pics/i_health.pcx") */
    uint8_t shared;             /* pcx is an earlier entry's (the same file by another
                                 * name: "/PICS/A.PCX" and "/pics/a.pcx") */
} pic2;

/* The bytes one level's HUD pictures may cost, each its file's bytes and its pixels (a
 * review: 255 spellings of one 4096 x 4096 picture took 4.4 GB); Quake II's own pics/ are
 * about 0.3 MB in all. */
#define HUD2_ROOM ((uint64_t)64 << 20)

#define HUD2_MAX_PICS (CL_LAYOUT_IMAGES + 32)
struct r_hud2 {
    mdl_pcx *num[2][11]; /* num_0..9, num_minus; anum_* */
    mdl_pcx *conchars;
    size_t num_len[2][11], conchars_len; /* their files' bytes */
    pic2 pics[HUD2_MAX_PICS];
    int npics;
};

typedef struct lctx {
    const r_hud2 *pics;
    const cl_state *cl;
    rast_fb *fb;
    int k;        /* output pixels per layout pixel */
    int w, h;     /* the layout's screen */
    int x, y;     /* the cursor */
    uint32_t frame; /* for the flashing colours */
} lctx;

static const uint32_t text_white = 0xffffffffu, text_alt = 0xff40d040u; /* conchars' green */
static const uint32_t num_normal = 0xff30c0f0u, num_alt = 0xff3030e0u;  /* amber, red */

/* One token of the program at *p: a word, or a "quoted" string without its quotes; 0 at
 * the end. Cut at cap - 1 bytes. */
static int token(const char **p, char *out, size_t cap)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    if (!*s) {
        *p = s;
        return 0;
    }
    size_t n = 0;
    if (*s == '"') {
        for (s++; *s && *s != '"'; s++)
            if (n + 1 < cap)
                out[n++] = *s;
        if (*s == '"')
            s++;
    } else {
        for (; *s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r'; s++)
            if (n + 1 < cap)
                out[n++] = *s;
    }
    out[n] = 0;
    *p = s;
    return 1;
}

/* A coordinate from the program, kept where sums and scalings cannot overflow (far off the
 * screen draws nothing either way). */
static int coord(long v)
{
    return v < -100000 ? -100000 : v > 100000 ? 100000 : (int)v;
}

static int stat(const lctx *c, int i)
{
    return i >= 0 && i < CL_LAYOUT_STATS ? c->cl->layout.stats[i] : 0;
}

/* Text at (x, y) of the layout screen, a character a cell; bytes with the high bit, or all
 * of them when alt is set, in the alternate colour (DrawAltString). */
static void blit(const lctx *c, const mdl_pcx *p, int sx, int sy, int w, int h, int x, int y);

static void text(const lctx *c, int x, int y, const char *s, int alt)
{
    if (c->pics && c->pics->conchars && c->pics->conchars->w >= 128 && c->pics->conchars->h >= 128) {
        for (int i = 0; s[i]; i++) { /* conchars: 16 x 16 cells of 8 x 8, the high bit green */
            unsigned char b = (unsigned char)s[i] | (alt ? 0x80 : 0);
            if ((b & 0x7f) != ' ')
                blit(c, c->pics->conchars, (b & 15) * 8, (b >> 4) * 8, 8, 8, x + i * TEXT_CELL, y);
        }
        return;
    }
    for (int i = 0; s[i]; i++) {
        unsigned char b = (unsigned char)s[i];
        char one[2] = {(char)(b & 0x7f), 0};
        if (one[0] < ' ')
            continue;
        draw_text(c->fb, (x + i * TEXT_CELL) * c->k + c->k, y * c->k, one,
                  alt || (b & 0x80) ? text_alt : text_white, c->k);
    }
}

/* SCR_DrawField: value in `width` (1..5) number cells, right-aligned 2 pixels in, the
 * digits that fit; alt picks the second colour (anum_*). */
static void field(const lctx *c, int width, int value, int alt)
{
    width = width < 1 ? 1 : width > 5 ? 5 : width;
    char num[16];
    snprintf(num, sizeof num, "%d", value);
    int l = (int)strlen(num);
    l = l > width ? width : l;
    int x = c->x + 2 + NUM_CELL * (width - l);
    for (int i = 0; i < l; i++) {
        const mdl_pcx *p = c->pics ? c->pics->num[alt ? 1 : 0][num[i] == '-' ? 10 : num[i] - '0'] : NULL;
        if (p) { /* SCR_DrawField: Draw_Pic of num_<c> or anum_<c> */
            blit(c, p, 0, 0, (int)p->w, (int)p->h, x + i * NUM_CELL, c->y);
            continue;
        }
        char one[2] = {num[i], 0};
        /* the font's 5x7 glyph at 2x: 10x14 in a 16x24 cell, centred */
        draw_text(c->fb, (x + i * NUM_CELL + 3) * c->k, (c->y + 5) * c->k, one,
                  alt ? num_alt : num_normal, 2 * c->k);
    }
}

/* DrawHUDString: each line centred in a 320-pixel box from x when centre is set. */
static void hud_string(const lctx *c, const char *s, int centre, int alt)
{
    int y = c->y;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char line[1024];
        n = n < sizeof line - 1 ? n : sizeof line - 1;
        memcpy(line, s, n);
        line[n] = 0;
        int x = c->x + (centre ? (320 - (int)n * TEXT_CELL) / 2 : 0);
        text(c, x, y, line, alt);
        y += TEXT_CELL;
        s += n + (nl ? 1 : 0);
        if (!nl)
            break;
    }
}

/* A scoreboard block: `client` (name, score, ping, time beside the player's icon) or `ctf`
 * (one "score ping name" row), at x, y relative to the screen's centre. */
static void client_block(lctx *c, const char **p, int ctf)
{
    char t[6][64];
    int n = ctf ? 5 : 6;
    for (int i = 0; i < n; i++)
        if (!token(p, t[i], sizeof t[i]))
            return;
    int x = coord(c->w / 2 - 160 + (long)qd_atoi(t[0]));
    int y = coord(c->h / 2 - 120 + (long)qd_atoi(t[1]));
    int who = qd_atoi(t[2]);
    const char *name = who >= 0 && who < CL_MAX_PLAYERS ? c->cl->players[who].name : "";
    char line[96];
    if (ctf) {
        snprintf(line, sizeof line, "%3d %3d %-12.12s", qd_atoi(t[3]), qd_atoi(t[4]), name);
        text(c, x, y, line, who == cl_view_player(c->cl));
        return;
    }
    text(c, x + 32, y, name, 1);
    text(c, x + 32, y + 8, "Score: ", 0);
    snprintf(line, sizeof line, "%d", qd_atoi(t[3]));
    text(c, x + 32 + 7 * 8, y + 8, line, 1);
    snprintf(line, sizeof line, "Ping:  %d", qd_atoi(t[4]));
    text(c, x + 32, y + 16, line, 0);
    snprintf(line, sizeof line, "Time:  %d", qd_atoi(t[5]));
    text(c, x + 32, y + 24, line, 0);
}

/* The loaded picture a layout names, or NULL. */
static const mdl_pcx *find_pic(const r_hud2 *h, const char *name)
{
    for (int i = 0; h && name[0] && i < h->npics; i++)
        if (!strcmp(h->pics[i].name, name))
            return h->pics[i].pcx;
    return NULL;
}

/* Columns sx..sx+w-1, rows sy..sy+h-1 of p drawn with their top-left at layout point (x, y),
 * each texel k x k output pixels; index 255 is see-through (Draw_Pic). */
static void blit(const lctx *c, const mdl_pcx *p, int sx, int sy, int w, int h, int x, int y)
{
    /* only the texels that land on the frame: a picture up to 4096 x 4096 from a hostile
     * pics/ folder, named by every command of a layout, walked whole each time was billions
     * of texels a frame (a review); x, y within +-100000 (coord) */
    const long k = c->k;
    long u0 = x < 0 ? -(long)x : 0, v0 = y < 0 ? -(long)y : 0;
    long u1 = ((long)c->fb->w + k - 1) / k - x, v1 = ((long)c->fb->h + k - 1) / k - y;
    if (u1 > w)
        u1 = w;
    if (v1 > h)
        v1 = h;
    for (long v = v0; v < v1 && sy + v < (long)p->h; v++)
        for (long u = u0; u < u1 && sx + u < (long)p->w; u++) {
            uint8_t i = p->pixels[(size_t)(sy + v) * p->w + (size_t)(sx + u)];
            if (i != 255)
                draw_fill_rect(c->fb, (x + u) * c->k, (y + v) * c->k, c->k, c->k,
                               p->palette[i] | 0xff000000u);
        }
}

/* SCR_ExecuteLayoutString over program s. */
static void run(lctx *c, const char *s)
{
    char t[CL_LAYOUT_LEN];
    const char *p = s;
    c->x = c->y = 0;
    while (token(&p, t, sizeof t)) {
        char a[64];
        if (!strcmp(t, "xl") || !strcmp(t, "xr") || !strcmp(t, "xv")) {
            if (!token(&p, a, sizeof a))
                return;
            c->x = coord((t[1] == 'l' ? 0L : t[1] == 'r' ? c->w : c->w / 2 - 160) + (long)qd_atoi(a));
        } else if (!strcmp(t, "yt") || !strcmp(t, "yb") || !strcmp(t, "yv")) {
            if (!token(&p, a, sizeof a))
                return;
            c->y = coord((t[1] == 't' ? 0L : t[1] == 'b' ? c->h : c->h / 2 - 120) + (long)qd_atoi(a));
        } else if (!strcmp(t, "pic") || !strcmp(t, "picn")) {
            if (!token(&p, a, sizeof a))
                return;
            const char *name = a;
            if (t[3] != 'n') { /* pic STAT: the CS_IMAGES name the stat indexes */
                int i = stat(c, qd_atoi(a));
                name = i > 0 && i < CL_LAYOUT_IMAGES ? c->cl->layout.images[i] : "";
            }
            const mdl_pcx *pc = find_pic(c->pics, name);
            if (pc)
                blit(c, pc, 0, 0, (int)pc->w, (int)pc->h, c->x, c->y);
        } else if (!strcmp(t, "stat_string")) {
            if (!token(&p, a, sizeof a)) /* configstring text the state does not keep */
                return;
        } else if (!strcmp(t, "client") || !strcmp(t, "ctf")) {
            client_block(c, &p, t[1] == 't');
        } else if (!strcmp(t, "num")) {
            char w[16];
            if (!token(&p, w, sizeof w) || !token(&p, a, sizeof a))
                return;
            field(c, qd_atoi(w), stat(c, qd_atoi(a)), 0);
        } else if (!strcmp(t, "hnum")) { /* health: flashing below 26, red at 0 */
            int v = stat(c, Q2_STAT_HEALTH);
            field(c, 3, v, v > 25 ? 0 : v > 0 ? (int)(c->frame >> 2 & 1) : 1);
        } else if (!strcmp(t, "anum")) { /* ammo: flashing at 5 and below, none below 0 */
            int v = stat(c, Q2_STAT_AMMO);
            if (v >= 0)
                field(c, 3, v, v > 5 ? 0 : (int)(c->frame >> 2 & 1));
        } else if (!strcmp(t, "rnum")) { /* armour, when there is some */
            int v = stat(c, Q2_STAT_ARMOR);
            if (v >= 1)
                field(c, 3, v, 0);
        } else if (!strcmp(t, "string") || !strcmp(t, "string2") || !strcmp(t, "cstring") ||
                   !strcmp(t, "cstring2")) {
            char str[CL_LAYOUT_LEN];
            if (!token(&p, str, sizeof str))
                return;
            int centre = t[0] == 'c';
            hud_string(c, str, centre, t[strlen(t) - 1] == '2');
        } else if (!strcmp(t, "if")) { /* skip to the matching endif when the stat is 0 */
            if (!token(&p, a, sizeof a))
                return;
            if (!stat(c, qd_atoi(a)))
                while (token(&p, t, sizeof t) && strcmp(t, "endif") != 0)
                    ;
        }
        /* "endif" and unknown words: nothing */
    }
}

/* The file name names: pics/<name>.pcx, or a path when it starts with / or \\
 * (Draw_FindPic), lower case with / for \\ as the search path takes it. */
static void pic_path(const char *name, char *path, size_t cap)
{
    if (name[0] == '/' || name[0] == '\\')
        snprintf(path, cap, "%s", name + 1);
    else
        snprintf(path, cap, "pics/%s.pcx", name);
    for (char *c = path; *c; c++)
        *c = *c == '\\' ? '/' : *c >= 'A' && *c <= 'Z' ? (char)(*c - 'A' + 'a') : *c;
}

/* What a decoded picture costs against *room: its pixels (its file's bytes were spent). */
/* What a decoded picture of a file of len bytes costs against the room: the bytes and its
 * pixels, as load_pic takes them. */
static uint64_t pic_cost(const mdl_pcx *p, size_t len)
{
    return p ? (uint64_t)len + (uint64_t)p->w * p->h : 0;
}

/* The picture name names, or NULL; it and its file's bytes taken from *room (the bytes in
 * *len_out), and nothing read once the room is spent. */
static mdl_pcx *load_pic(mdl_read_fn read, void *ctx, const char *name, uint64_t *room,
                         size_t *len_out, qd_error *damaged)
{
    char path[CL_NAME_LEN + 16];
    pic_path(name, path, sizeof path);
    uint8_t *data = NULL;
    size_t len = 0;
    qd_error e = {0};
    mdl_pcx *p = NULL;
    qd_err r = *room == 0 ? QD_ERR_LIMIT : read(ctx, path, &data, &len, &e);
    if (r != QD_OK) {
        r_damaged_aside(damaged, r, &e);
        free(data);
        return NULL;
    }
    uint64_t cost = (uint64_t)len + mdl_pcx_pixels(data, len);
    r = cost <= *room ? mdl_pcx_load(data, len, path, &p, &e) : QD_ERR_LIMIT;
    if (r == QD_OK)
        *room -= cost;
    else
        *room -= (uint64_t)len < *room ? (uint64_t)len : *room;
    if (r != QD_ERR_LIMIT) /* (past the room: left out as one not there) */
        r_damaged_aside(damaged, r, &e);
    free(data);
    *len_out = len;
    return p;
}

/* Take *from (an earlier set's picture of a file of len bytes, NULL none) for the new set,
 * at what load_pic charged for it, so a set made again holds what a fresh one would (a
 * review: charged less, it held more, and what was drawn depended on where a render
 * began). */
static mdl_pcx *take_pic(mdl_pcx **from, size_t len, uint64_t *room)
{
    mdl_pcx *p = *from;
    if (!p || pic_cost(p, len) > *room)
        return NULL;
    *room -= pic_cost(p, len);
    *from = NULL;
    return p;
}

r_hud2 *r_hud2_load(mdl_read_fn read, void *ctx, const cl_state *cl, r_hud2 *old,
                    qd_error *damaged)
{
    if (!read || !cl)
        return NULL;
    r_hud2 *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    uint64_t room = HUD2_ROOM;
    int found = 0;
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < 11; i++) {
            char name[32];
            snprintf(name, sizeof name, "%s_%s", a ? "anum" : "num", i < 10 ? (char[2]){(char)('0' + i), 0} : "minus");
            h->num[a][i] = old ? take_pic(&old->num[a][i], old->num_len[a][i], &room) : NULL;
            if (h->num[a][i])
                h->num_len[a][i] = old->num_len[a][i];
            else
                h->num[a][i] = load_pic(read, ctx, name, &room, &h->num_len[a][i], damaged);
            found += h->num[a][i] != NULL;
        }
    h->conchars = old ? take_pic(&old->conchars, old->conchars_len, &room) : NULL;
    if (h->conchars)
        h->conchars_len = old->conchars_len;
    else
        h->conchars = load_pic(read, ctx, "conchars", &room, &h->conchars_len, damaged);
    found += h->conchars != NULL;
    /* the images the level names, each file once: those of an earlier set (old, the same
     * level before an image was registered) taken over, not read again (a review: 255
     * names a frame read again at each change, 0.9 s a frame) */
    for (int i = 1; i < CL_LAYOUT_IMAGES && h->npics < HUD2_MAX_PICS; i++) {
        const char *n = cl->layout.images[i];
        if (!n[0] || find_pic(h, n))
            continue;
        pic2 *q = &h->pics[h->npics];
        pic_path(n, q->path, sizeof q->path);
        for (int j = 0; j < h->npics && !q->pcx; j++)
            if (h->pics[j].pcx && !strcmp(h->pics[j].path, q->path)) {
                q->pcx = h->pics[j].pcx;
                q->shared = 1;
            }
        for (int j = 0; old && j < old->npics && !q->pcx; j++)
            if (!old->pics[j].shared && !strcmp(old->pics[j].path, q->path) &&
                (q->pcx = take_pic(&old->pics[j].pcx, old->pics[j].len, &room)))
                q->len = old->pics[j].len;
        if (!q->pcx)
            q->pcx = load_pic(read, ctx, n, &room, &q->len, damaged);
        if (!q->pcx)
            continue;
        snprintf(q->name, sizeof q->name, "%s", n);
        h->npics++;
        found++;
    }
    if (!found) {
        r_hud2_free(h);
        return NULL;
    }
    return h;
}

void r_hud2_free(r_hud2 *h)
{
    if (!h)
        return;
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < 11; i++)
            mdl_pcx_free(h->num[a][i]);
    mdl_pcx_free(h->conchars);
    for (int i = 0; i < h->npics; i++)
        if (!h->pics[i].shared)
            mdl_pcx_free(h->pics[i].pcx);
    free(h);
}

int r_hud2_draw(const r_hud2 *pics, const cl_state *cl, rast_fb *fb)
{
    if (!cl || !fb || cl->level.game != CL_GAME_Q2 || !cl->layout.has_stats ||
        !cl->layout.statusbar[0])
        return 0;
    lctx c = {pics, cl, fb, fb->h / 240 > 1 ? fb->h / 240 : 1, 0, 0, 0, 0, cl->frame_count};
    c.w = fb->w / c.k;
    c.h = fb->h / c.k;
    run(&c, cl->layout.statusbar);
    if (cl->layout.stats[Q2_STAT_LAYOUTS] & 1)
        run(&c, cl->layout.layout);
    return 1;
}
