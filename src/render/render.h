/* render.h: the render front end: draws the client state (src/client/cl.h) of one moment into a
 * rasteriser framebuffer (rast.h) with the level's map and models (src/model/model.h).
 *
 * The stage works in Quake's frame (X forward, Y left, Z up, angles pitch/yaw/roll in degrees,
 * positive pitch looking down). It finds the camera's leaf, decompresses its PVS, walks the
 * tree front to back culling by the frustum, culls back faces by plane side, clips polygons
 * at the near plane (and a guard band at the sides) in view space, then projects them for the
 * rasteriser. r_render is a pure function of its arguments: no globals, no clock; several
 * threads may render one r_assets into different framebuffers at once. */
#ifndef QD_RENDER_H
#define QD_RENDER_H

#include <stdint.h>

#include "../client/cl.h"
#include "../common/err.h"
#include "../model/model.h"
#include "rast.h"

/* The models of one level: the map and every precached model, loaded once through the read
 * callback. Owns all of them; free with r_assets_free. */
typedef struct r_assets r_assets;

/* Load lvl->map and each lvl->models[1..num_models-1] ("*N" a submodel of the map, "x.mdl" an
 * alias model, "x.spr" a sprite, "x.bsp" a brush model) through read(ctx, ...). A missing or
 * damaged file is not fatal: the map then draws as a ground grid with a notice, a model as a
 * wire box; err (if not NULL) gets the first such problem and its code, or QD_OK. Returns
 * NULL only when memory runs out (err says so). palette may be NULL (grey ramp). read may be
 * NULL: nothing is found. */
r_assets *r_assets_load(const cl_level *lvl, mdl_read_fn read, void *ctx,
                        const uint32_t palette[256], qd_error *err);
/* r_assets_load for `info`: the same map and models, without what only drawing needs (the
 * faces' colours, Quake III's triangle runs); r_assets_q3_textures on it resolves the
 * shaders and images as for drawing but leaves the lightmaps out. Draw with it nothing. */
r_assets *r_assets_load_names(const cl_level *lvl, mdl_read_fn read, void *ctx,
                              qd_error *err);
void r_assets_free(r_assets *a);
/* r_assets_load for the same map again (another model list: a Quake III player's new model,
 * skin or team), taking from donor (a set loaded for that map, NULL: none) what a fresh load
 * would read and make the same way: a Quake III map itself and the MD3 models of the same
 * names (donor keeps what it gave in name only; free it after). r_assets_q3_textures_from
 * likewise takes donor's decoded images. The result is a fresh load's (a review: each such
 * change read and decoded the whole level again, 0.9 s a frame of a demo that makes one a
 * snapshot). */
r_assets *r_assets_load_from(const cl_level *lvl, mdl_read_fn read, void *ctx,
                             const uint32_t palette[256], qd_error *err, r_assets *donor);
/* A Quake II level's sky box looked for again by another name (CS_SKY set mid-level), when
 * it is not the one a holds; a side that is there but damaged is said in err (NULL: not). */
void r_assets_set_sky(r_assets *a, const char *sky, mdl_read_fn read, void *ctx,
                      qd_error *err);
const mdl_bsp *r_assets_map(const r_assets *a);
/* How many of the level's models (map included) could not be loaded. */
int r_assets_missing(const r_assets *a);

/* Lists the files of the search path whose names start with prefix: fn(u, name) for each,
 * in the order ioquake3 lists them (pak_list_search_order: a shader defined in two scripts
 * is the last one read, as the game takes it). Returns how many, or -1 on failure. */
typedef int (*r_list_fn)(void *ctx, const char *prefix,
                         void (*fn)(void *u, const char *name, uint64_t size), void *u);

/* Quake III maps (a no-op for others): the textured mode's shaders (every scripts/ *.shader
 * that list finds), images (read, with the .tga/.jpg fallback) and lightmaps of a's map. A
 * shader script or image that is missing or damaged is not an error: its surfaces draw
 * flat, and r_assets_missing_texture names them. Returns QD_ERR_NOMEM (err says so) only
 * when memory runs out; a stays usable either way. */
qd_err r_assets_q3_textures(r_assets *a, mdl_read_fn read, r_list_fn list, void *ctx,
                            qd_error *err);
qd_err r_assets_q3_textures_from(r_assets *a, mdl_read_fn read, r_list_fn list, void *ctx,
                                 qd_error *err, r_assets *donor);
/* The name of the i-th texture (0-based) of a's Quake III map, or of a sprite's shader,
 * whose image could not be found, or NULL past the last. */
const char *r_assets_missing_texture(const r_assets *a, int i);
/* Quake III players as cgame loads them (cg_players.c CG_LoadClientInfo), on a copy of a
 * level's model names (n of them): each player's skin slot (q3.c names it as cgame's first
 * try) becomes the first of cgame's names for it that read finds (mdl_player_skin_paths);
 * a player whose three skins are not all there becomes cgame's DEFAULT_MODEL, "sarge", with
 * the skin cgame would give it. r_assets_load does this itself; `info` calls it to list
 * what is missing as the player would see it. */
void r_q3_players(char (*names)[CL_NAME_LEN], int n, mdl_read_fn read, void *ctx);

typedef struct r_camera {
    float origin[3]; /* the eye */
    float angles[3]; /* pitch (down positive), yaw, roll, in degrees */
    float fov;       /* horizontal field of view of a 4:3 screen in degrees; 0 means 90 */
    /* 1: a camera backed off from pivot (Quake III's dead player, seen from behind), which
     * r_render pulls in where the map's solid lies between, then turns to look at focus */
    uint8_t pivoted;
    float pivot[3], focus[3];
} r_camera;

/* The recorded camera of cl at time t (cl_view_at: eye origin and angles), FOV 90. */
void r_camera_from_view(const cl_state *cl, double t, r_camera *cam);

/* Quake's and QuakeWorld's lightning beams alive at t as the models the client draws for
 * them (cl_tent.c CL_UpdateTEnts): from the beam's start (the view entity's origin when it
 * fired it) a segment of progs/bolt.mdl (TE_LIGHTNING1), bolt2 (2), bolt3 (3) or beam.mdl
 * (TE_BEAM) every 30 units towards its end, turned along it, each rolled its own way; the
 * newest beam of an entity only (CL_ParseBeam). Up to cap into out; returns how many. */
int r_beam_segments(const cl_state *cl, double t, cl_entstate *out, int cap);

/* QuakeWorld's explosion sprite: id QW cl_tent.c puts progs/s_explod.spr at every
 * TE_EXPLOSION (CL_AllocExplosion; the server sends no sprite entity, where Quake's
 * BecomeExplosion does), and CL_UpdateExplosions shows its frame 10 (t - start) until the
 * last; of more than its MAX_EXPLOSIONS (8) the newest. None elsewhere, or when the sprite
 * is not loaded. Up to cap into out; returns how many. */
int r_explosion_sprites(const r_assets *a, const cl_state *cl, double t, cl_entstate *out,
                        int cap);

/* Quake's screen tint at t for an eye at `eye` (view.c V_CalcBlend of the cshifts: the
 * water, slime or lava the eye is in, the last hit's, an item's bonus flash, the powerup
 * held): its colour 0..255 and alpha 0..1 in rgba; 0 when there is none. */
int r_quake_tint(const r_assets *a, const cl_state *cl, double t, const float eye[3],
                 float rgba[4]);

#define R_MODE_FLAT 0 /* faces filled in their texture's average colour times their light */
#define R_MODE_WIRE 1 /* edges of faces and models, hidden lines removed unless xray */
#define R_MODE_TEXTURED 2 /* the game's look: textured, lightmapped faces (Quake maps; other
                           * maps and models as flat for now) */

/* Lit surface blocks kept between frames of one asset set (any set: it empties itself when
 * given another). One cache per thread: r_render writes to it. budget is in bytes (0: 64 MiB);
 * past it the cache empties and refills. Only speed depends on it, never a pixel. */
typedef struct r_cache r_cache;
#define R_MAX_THREADS 16
r_cache *r_cache_new(size_t budget);
void r_cache_free(r_cache *c);
/* The texels of every block c and its band threads' caches have built (or rebuilt) since
 * r_cache_new: how much surface building the frames drawn with c cost. */
uint64_t r_cache_texels_built(const r_cache *c);
/* The first rows of the bands the next frame drawn with c on n threads takes (split[i] for
 * band i as a fraction of the height; split[0] 0, split[n] 1), as the times of the frames
 * before would leave them: for a test that asks a boundary at a given row. */
void r_cache_set_bands(r_cache *c, int n, const double *split);

typedef struct r_options {
    int mode;             /* R_MODE_* */
    int xray;             /* wire mode: draw every edge, ignoring depth */
    int show_view_entity; /* draw the recording player's own body (chase cameras) */
    int hide_entity;      /* when > 0, an entity not to draw: the body a first-person
                           * camera follows */
    r_cache *cache;       /* textured mode: the caller's cache, or NULL for one per call */
    int gun;              /* draw the recorded view's first-person weapon (cl_stats
                           * gun_model at the camera, over the scene) */
    int threads;          /* split the frame's rows over this many threads (0 or 1: the
                           * caller's only; at most R_MAX_THREADS); the same bytes for any */
    int no_dlights;       /* no dynamic lights (the engines' r_dynamiclight 0) */
} r_options;

/* Draw the state cl at demo time t, seen from cam, into fb (cleared first). The world comes
 * from a (a NULL a draws entities over a grid too), the entities from cl_entity_at for
 * entities 0..num_entities-1 (minus the view entity unless opt->show_view_entity) and
 * cl->statics. opt may be NULL (flat). Returns the number of polygons and lines sent to the
 * rasteriser (with several threads, by the first band, which leaves out the Quake III
 * triangles wholly below its rows). Identical arguments give identical bytes, with any
 * number of threads. */
int r_render(const r_assets *a, const cl_state *cl, double t, const r_camera *cam,
             const r_options *opt, rast_fb *fb);

/* ---- The game's status bar ---- */

/* The game's 2D pictures read through read: Quake's gfx.wad (status bar, numbers, faces,
 * icons, conchars). NULL when there are none (or memory runs out). palette may be NULL.
 * A gfx.wad there but damaged is said in *damaged (may be NULL) when it holds nothing yet,
 * as each HUD's loader below says its first damaged picture (left out, as one not there). */
typedef struct r_hud r_hud;
r_hud *r_hud_load(mdl_read_fn read, void *ctx, const uint32_t palette[256], qd_error *damaged);
void r_hud_free(r_hud *h);
/* Draw the status bar of st (Quake's sbar and ibar, their layout scaled by whole pixels and
 * centred at the bottom of fb). Returns 1 when drawn, 0 when it cannot be (no pictures, or
 * st not filled by a decoder): then the caller shows its own. */
int r_hud_draw(const r_hud *h, const cl_stats *st, double t, rast_fb *fb);

/* Quake II's HUD pictures from pics/ (the number pictures, conchars, and the images cl's
 * level names), or NULL when there are none. Their files' bytes and pixels share a room of
 * 64 MiB (a picture past it is left out, as one not there); a file named two ways is read
 * once. old (NULL: none), the same level's set before, gives its pictures to the new one
 * (the caller still frees it). */
typedef struct r_hud2 r_hud2;
r_hud2 *r_hud2_load(mdl_read_fn read, void *ctx, const cl_state *cl, r_hud2 *old,
                    qd_error *damaged);
void r_hud2_free(r_hud2 *h);
/* Quake II's HUD from cl's layout programs (r_hud2.c): the status bar program, and the
 * layout while STAT_LAYOUTS bit 0 is set, with pics' pictures (NULL: qdemo's font and no
 * pictures). Returns 1 when drawn, 0 when cl is not a Quake II state with a status bar
 * program and stats (the caller shows its own then). */
int r_hud2_draw(const r_hud2 *pics, const cl_state *cl, rast_fb *fb);
/* Text in the game's font (Quake's conchars: 8x8 cells, all 256 characters, the high half
 * the brown/red set), k pixels a font pixel, top-left at (x, y); '\n' starts a line; a
 * leading 1 or 2 (Con_Print's chat mark) puts the rest in the high half. Returns 0 (drawing
 * nothing) without the font. */
int r_hud_text(const r_hud *h, rast_fb *fb, int x, int y, const char *s, int k);
/* ezQuake's colour codes in text (console.c Con_PrintW, facts only): "&cRGB", three hex
 * digits, colours the characters after it 255 * digit / 16 a channel (the glyph's texels
 * times it); "&r" goes back to the glyphs' own colours. The length of the code at s (5 or
 * 2; 0: none) and *tint set to it (0: none, else 0xBBGGRR). r_hud_text draws them so. */
int r_hud_color_code(const char *s, uint32_t *tint);

/* ---- Quake III's HUD (r_hud3.c) ---- */

/* Quake III's 2D pictures read through read: gfx/2d/bigchars, the status bar's numbers, the
 * ammo and armour icons, gfx/2d/select and each of cl's players' head icon (cl may be NULL:
 * no heads). A picture that is missing is drawn with qdemo's own font or left out. NULL when
 * none of bigchars and the numbers are found (the caller's own HUD then) or memory runs out.
 * Free with r_hud3_free. */
typedef struct r_hud3 r_hud3;
r_hud3 *r_hud3_load(mdl_read_fn read, void *ctx, const cl_state *cl, qd_error *damaged);
/* Player slot's head icon in h (NULL: none, or slot out of range). */
const mdl_image *r_hud3_head(const r_hud3 *h, int slot);
void r_hud3_free(r_hud3 *h);
/* Draw Quake III's HUD of cl at demo time t over fb as ioquake3's cgame lays it out on its
 * 640x480 screen stretched to fb: the status bar of the player in slot follow (-1: the
 * recorded view), the clock, the scores at the bottom right, "following" and the name when
 * follow >= 0, the centerprint, the console's notify lines, when flags has R_HUD3_SCORES or
 * at intermission the scoreboard, and when it has R_HUD3_CROSSHAIR (a first-person view) the
 * crosshair. Returns 0 (drawing nothing) when h is NULL. */
#define R_HUD3_SCORES 1u
#define R_HUD3_CROSSHAIR 2u
int r_hud3_draw(const r_hud3 *h, const cl_state *cl, int follow, unsigned flags, double t,
                rast_fb *fb);
/* CG_GetColorForHealth: the crosshair's colour for health and armor (armor counts up to
 * what ARMOR_PROTECTION 0.66 lets it absorb): white at 100 or more, through yellow to red,
 * black when dead. rgb in 0..1. */
void r_hud3_health_color(int health, int armor, float rgb[3]);
/* str in Quake III's font at virtual (x, y) of the 640x480 screen, cells cw x ch virtual
 * units, colour codes honoured from white, with the 2-unit black shadow when shadow is set
 * (CG_DrawStringExt). Returns 0 when h is NULL. */
int r_hud3_text(const r_hud3 *h, rast_fb *fb, float x, float y, const char *str, float cw,
                float ch, int shadow);

/* Quake III colour codes (q_shared.h Q_IsColorString, ColorIndex): the colour index 0..7
 * when s starts a code ('^' then any character but NUL and '^': (c - '0') & 7), else -1. */
int r_q3_color_code(const char *s);
/* g_color_table[index & 7] as a rast_rgb colour (0 black, 1 red, 2 green, 3 yellow, 4 blue,
 * 5 cyan, 6 magenta, 7 white). */
uint32_t r_q3_color_rgb(int index);
/* s without its colour codes into out (cap bytes, always terminated, cut when short; out may
 * be NULL). Returns the number of characters drawn for s (CG_DrawStrlen), all of them. */
size_t r_q3_text_plain(const char *s, char *out, size_t cap);

#endif
