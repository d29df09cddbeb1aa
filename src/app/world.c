/* world.c: loading a level's assets through the search path, once per level. */
#include "world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static qd_err read_fs(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    return pak_read((const pak_fs *)ctx, name, data, len, err);
}

static int list_fs(void *ctx, const char *prefix,
                   void (*fn)(void *u, const char *name, uint64_t size), void *u)
{
    return pak_list_search_order((const pak_fs *)ctx, prefix, fn, u);
}

#define FNV_START 1469598103934665603ull

/* FNV-1a of name into h, and a byte no name holds after it (so "ab","c" and "a","bc"
 * differ). */
static uint64_t fnv_name(uint64_t h, const char *name)
{
    for (const char *c = name; *c; c++)
        h = (h ^ (uint8_t)*c) * 1099511628211ull;
    return (h ^ 0xffu) * 1099511628211ull;
}

/* The map and game folder of lvl: a level of the same key reads the same map. */
static uint64_t map_key(const cl_level *lvl)
{
    return fnv_name(fnv_name(FNV_START, lvl->map), lvl->gamedir) | 1; /* (0: none) */
}

static uint64_t level_key(const cl_level *lvl)
{
    uint64_t h = map_key(lvl);
    for (int i = 1; i < lvl->num_models; i++)
        h = fnv_name(h, lvl->models[i]);
    return h ^ (uint64_t)lvl->num_models;
}

/* Quake II's layout image names (CS_IMAGES): the game registers more during a level
 * (gi.imageindex, G_SetStats' power armour icon), so hud2 is made again when they change. */
static uint64_t images_key(const cl_state *cl)
{
    uint64_t h = FNV_START;
    if (cl->level.game != CL_GAME_Q2)
        return 0;
    for (int i = 0; i < CL_LAYOUT_IMAGES; i++)
        h = fnv_name(h, cl->layout.images[i]);
    return h;
}

/* src into dst (cap bytes), a byte outside 32..126 as '?': the notices go to a terminal too
 * (a review) */
static void printable(char *dst, size_t cap, const char *src)
{
    size_t k = 0;
    for (const char *p = src; *p && k + 1 < cap; p++)
        dst[k++] = *p >= 32 && *p < 127 ? *p : '?';
    dst[k] = 0;
}

/* A file there but damaged (err: not found and out of memory are not) in w->damaged, when
 * w->damaged is empty and it is not what this level said before (a Quake II HUD set made
 * again mid-level finds its damaged picture again). */
static void say_damaged(app_world *w, const qd_error *err)
{
    if (w->damaged[0] || err->code == QD_OK || err->code == QD_ERR_NOT_FOUND ||
        err->code == QD_ERR_NOMEM)
        return;
    char msg[sizeof err->msg];
    printable(msg, sizeof msg, err->msg);
    snprintf(w->damaged, sizeof w->damaged, "%.280s (byte %llu)", msg,
             (unsigned long long)err->offset);
    if (!strcmp(w->damaged, w->damaged_said))
        w->damaged[0] = 0;
    else
        snprintf(w->damaged_said, sizeof w->damaged_said, "%s", w->damaged);
}

void app_world_update(app_world *w, const app_opts *o, const cl_state *cl)
{
    uint64_t key = level_key(&cl->level);
    if (w->assets && key == w->level_key) {
        /* the same level: only a Quake II image registered since (a review: one named
         * mid-level was never drawn, so a render's frames depended on where it began) */
        w->damaged[0] = 0; /* (said at the level's load; only something new now) */
        uint64_t ik = images_key(cl);
        if (ik != w->images_key) {
            r_hud2 *was = w->hud2; /* (its pictures go on to the new set) */
            qd_error hud_err = {0};
            w->hud2 = r_hud2_load(w->fs ? read_fs : NULL, w->fs, cl, was, &hud_err);
            r_hud2_free(was);
            w->images_key = ik;
            say_damaged(w, &hud_err);
        }
        /* likewise the sky box when the level names another sky (a review: the sky was the
         * first one the render met, so its frames depended on where it began) */
        if (strcmp(w->sky, cl->level.sky) != 0) {
            r_assets_set_sky(w->assets, cl->level.sky, w->fs ? read_fs : NULL, w->fs, NULL);
            snprintf(w->sky, sizeof w->sky, "%s", cl->level.sky);
        }
        return;
    }
    snprintf(w->sky, sizeof w->sky, "%s", cl->level.sky);
    w->images_key = images_key(cl);
    /* the same map with other models (a Quake III player's new model, skin or team): the
     * map and what was decoded for it taken from the set before, which a fresh load would
     * read and make the same way (a review: each such change read and decoded the whole
     * level again, 0.9 s a frame of a demo that makes one a snapshot) */
    uint64_t mk = map_key(&cl->level);
    r_assets *donor = w->assets && mk == w->map_key ? w->assets : NULL;
    if (!donor)
        r_assets_free(w->assets);
    w->assets = NULL;
    w->map_key = mk;
    r_hud_free(w->hud);
    w->hud = NULL;
    r_hud3_free(w->hud3);
    w->hud3 = NULL;
    r_hud2_free(w->hud2);
    w->hud2 = NULL;
    pak_fs_close(w->fs);
    w->fs = app_search_path(o, &cl->level, NULL);
    w->level_key = key;
    uint8_t *pal = NULL;
    size_t len = 0;
    qd_error err = {0}, hud_err = {0}, pal_err = {0};
    int got = w->fs && pak_read(w->fs, "gfx/palette.lmp", &pal, &len, NULL) == QD_OK;
    if (!got || !mdl_palette_from_lmp(pal, len, w->palette)) {
        if (got) /* (a review: one cut short was left out in silence) */
            qd_fail(&pal_err, QD_ERR_TRUNCATED, len,
                    "gfx/palette.lmp: %zu bytes, a palette needs 768", len);
        mdl_palette_from_lmp(qd_builtin_palette, sizeof qd_builtin_palette, w->palette);
    }
    free(pal);
    w->assets =
        r_assets_load_from(&cl->level, w->fs ? read_fs : NULL, w->fs, w->palette, &err, donor);
    w->hud = r_hud_load(w->fs ? read_fs : NULL, w->fs, w->palette, &hud_err);
    if (cl->level.game == CL_GAME_Q3)
        w->hud3 = r_hud3_load(w->fs ? read_fs : NULL, w->fs, cl, &hud_err);
    if (cl->level.game == CL_GAME_Q2)
        w->hud2 = r_hud2_load(w->fs ? read_fs : NULL, w->fs, cl, NULL, &hud_err);
    if (w->assets && w->fs) /* (else flat) */
        (void)r_assets_q3_textures_from(w->assets, read_fs, list_fs, w->fs, NULL, donor);
    r_assets_free(donor);
    w->notice[0] = 0;
    w->damaged[0] = 0;
    if (!donor) /* (the same map: what was said of it is not said again) */
        w->damaged_said[0] = 0;
    /* (a review: a file there but damaged was only counted as missing, never named; then
     * a damaged HUD picture was left out in silence) */
    say_damaged(w, &pal_err);
    say_damaged(w, &err);
    say_damaged(w, &hud_err);
    if (w->assets && !r_assets_map(w->assets)) {
        char map[64];
        printable(map, sizeof map, cl->level.map);
        snprintf(w->notice, sizeof w->notice, "map %.60s not found: use -b or -p", map);
    }
    else if (w->assets && r_assets_missing(w->assets) > 0)
        snprintf(w->notice, sizeof w->notice, "%d models missing (drawn as boxes)",
                 r_assets_missing(w->assets));
}

int app_world_stale(const app_world *w, const cl_state *cl)
{
    return !w->assets || level_key(&cl->level) != w->level_key ||
           images_key(cl) != w->images_key || strcmp(w->sky, cl->level.sky) != 0;
}

void app_world_free(app_world *w)
{
    r_hud_free(w->hud);
    r_hud3_free(w->hud3);
    r_hud2_free(w->hud2);
    r_assets_free(w->assets);
    pak_fs_close(w->fs);
    memset(w, 0, sizeof *w);
}
