/* world.h: the assets a demo's current level needs (search path, palette, map and models),
 * reloaded when the level changes. Shared by play and render. */
#ifndef QD_WORLD_H
#define QD_WORLD_H

#include "../render/render.h"
#include "app.h"

typedef struct app_world {
    const app_opts *opts;
    pak_fs *fs;
    uint32_t palette[256];
    r_assets *assets;
    r_hud *hud;         /* the game's status bar pictures, or NULL */
    r_hud3 *hud3;       /* Quake III's HUD pictures (Quake III levels only), or NULL */
    r_hud2 *hud2;       /* Quake II's HUD pictures (Quake II levels only), or NULL */
    uint64_t level_key; /* hash of the level the assets were loaded for */
    uint64_t map_key;   /* hash of its map and game folder (0: none loaded) */
    uint64_t images_key; /* Quake II: hash of the layout's image names hud2 holds */
    char sky[32];       /* Quake II: the sky name the assets' sky box was looked for by */
    char notice[160];   /* what is missing, for the user */
    char damaged[320];  /* after an update, the level's first damaged model, skin or
                         * picture not said before: "name: reason (byte N)", printable;
                         * "" none */
    char damaged_said[320]; /* the last said this level */
} app_world;

/* Make sure w holds the assets of cl's level (loading them the first time and after a
 * level change). Missing files are never fatal; w->notice says what was missing. */
void app_world_update(app_world *w, const app_opts *o, const cl_state *cl);
void app_world_free(app_world *w);
/* Whether cl's level (map, gamedir, model list), or a Quake II level's layout image names
 * or sky, is not the one w holds assets for. */
int app_world_stale(const app_world *w, const cl_state *cl);

/* The palette compiled in from assets/palette.lmp (build/gen/palette_data.c). */
extern const uint8_t qd_builtin_palette[768];

#endif
