/* r_local.h: internals of the render front end (r_*.c): the asset set, the per-call view, and
 * the clip-and-project helpers between world space and the rasteriser. */
#ifndef QD_R_LOCAL_H
#define QD_R_LOCAL_H

#include <stdint.h>

#include "render.h"

#define R_NEAR 2.0f   /* near plane distance in world units (GLQuake uses 4) */
/* The first-person weapon's inverse depths are raised by this, twice the largest any clipped
 * point has (1 / R_NEAR): it is nearer than everything drawn before it, and its own
 * triangles keep their order (1/w is affine on the screen, and so is 1/w + c). */
#define R_GUN_ZBIAS (2.0f / R_NEAR)
/* r_view.layers: a Quake III model's surfaces all drawn (0), only the opaque ones (the view
 * weapon drawn before the scene, whose pixels under it then fail the depth test), or only
 * the blended ones (the same weapon's, after the scene) */
#define R_LAYERS_ALL 0
#define R_LAYERS_OPAQUE 1
#define R_LAYERS_BLENDED 2
/* A Quake III shader's second layer is the same triangle drawn again over the first: its
 * inverse depth raised by this fraction passes the depth test against the first's (the
 * rasteriser's test is strict) and lets nothing farther than 1/100000 of the distance show
 * through (0.04 units at 4096). The same inputs give the same depths bit for bit, so
 * rounding needs far less. */
#define R_LAYER_ZREL 1e-5f
#define R_MAX_DLIGHTS 32 /* Quake's MAX_DLIGHTS */
#define R_GUARD 2.0f  /* side clip planes sit at R_GUARD times the screen's half-size */
/* Flat shading averages a texture, which keeps its mortar and shadows but loses the eye's pull
 * towards its highlights: rooms came out darker than the game. This lift was picked by eye on
 * e1m1 against the game's look. */
#define R_LIGHT_LIFT 1.5f
/* Textured mode's light gain over the software renderer's scale (where a lightmap sample of
 * 128 shows a texture as it is), on models (r_entity.c, r_md2.c) and on Quake II's walls (its
 * GL renderers double a texture's colours, `intensity 2`): ezQuake lights a model by
 * (shade x dot + ambient) / 256 with dot up to 2 and holds it at 1
 * (GLC_AliasModelLightPoint; r_alias_row holds it at the skin's colour too), and vektar's
 * statue against its frames (tests/data/fidelity/quake) needs the 2. Quake's walls take
 * R_QUAKE_WORLD_GAIN, 1: ezQuake draws a lightmap at the software renderer's scale (dm4's
 * rooms, tests/data/fidelity/quakeworld_dm4, and a survey's e1m3: twice as bright with 2,
 * at every luma level; mean luma 1.00 with 1). */
#define R_LIGHT_GAIN 2.0f
#define R_QUAKE_WORLD_GAIN 1
/* Room for a polygon in the clipper: a convex face of MDL_BSP_MAX_FACE_VERTS corners gains at
 * most one per clip plane (five). A face that is not convex can gain one per crossing edge;
 * past this it is dropped (r_draw_poly). */
#define R_MAX_POLY (MDL_BSP_MAX_FACE_VERTS + 8)

typedef enum r_kind {
    R_KIND_NONE,     /* slot 0 or empty name: draws nothing */
    R_KIND_WORLD,    /* the map itself (Q1 precaches it as model 1): drawn as the world */
    R_KIND_SUBMODEL, /* "*N": a brush model of the map */
    R_KIND_BRUSH,    /* "x.bsp": a brush model in its own file (Quake's item boxes) */
    R_KIND_ALIAS,
    R_KIND_SPRITE,
    R_KIND_MD3,      /* a Quake III model (r_md3.c) */
    R_KIND_Q3SPRITE, /* a Quake III shader drawn as a sprite facing the camera ("sprites/x":
                      * cg_weapons.c CG_Missile's plasma ball, radius 16) */
    R_KIND_MD2,      /* a Quake II model (r_md2.c) */
    R_KIND_MISSING,  /* not found or damaged: a wire box */
} r_kind;

/* Per-face colours of a loaded map, computed once at load. */
typedef struct r_bsp {
    mdl_bsp *bsp;
    uint32_t *flat;  /* shaded colour per face for flat mode */
    uint32_t *wire;  /* line colour per face for wire mode */
    /* the first texture index with the same pixels (a map may point many entries at one
     * miptex): the unlit copies of liquids are made once for all of them */
    int32_t *tex_same;
    uint8_t *lit;    /* a .lit file's R, G, B samples (3 per lightdata byte), or NULL */
    /* Quake III: runs of triangles that make one convex polygon (r_q3poly.c): group[f] is
     * the run's length at its first triangle f (0 elsewhere and for runs of one), its
     * outline poly_n[f] corners from poly_pts[poly_first[f]]. NULL: none made. */
    uint8_t *group, *poly_n;
    uint32_t *poly_first;
    float (*poly_pts)[3];
} r_bsp;

/* One skin of an MD2: its PCX picture (NULL: missing, drawn flat) and the light lookup
 * made from the picture's palette (r_lut_from_palette). */
typedef struct r_md2skin {
    mdl_pcx *pic;
    uint32_t *lut;
    uint32_t color; /* the picture's mean colour */
} r_md2skin;

typedef struct r_model {
    r_kind kind;
    uint32_t sub;    /* R_KIND_SUBMODEL: submodel index in the map */
    r_bsp brush;     /* R_KIND_BRUSH */
    mdl_alias *alias;
    mdl_sprite *sprite;
    mdl_md3 *md3;    /* R_KIND_MD3; owned by the first slot of that name (shared: 0) */
    mdl_md3 *lod[2]; /* R_KIND_MD3: its levels of detail 1 and 2 (NAME_1.md3, NAME_2.md3),
                      * each when found and alike (the same frames, surfaces of the same
                      * names), 2 only with 1; owned as md3 */
    uint32_t *lod_surf[2]; /* each level's surfaces as md3's surface numbers (the skins
                            * and materials go by those); owned as md3 */
    uint64_t cost;   /* what it took of the level's model room (r_assets model_room) */
    uint8_t lod_cut; /* R_KIND_MD3: a level of detail left out for want of room (so a load
                      * with more room would hold it: not given to one, donor_md3) */
    uint8_t shared;  /* md3 and anims (md2), or brush, alias and sprite, belong to an
                      * earlier slot of the same name */
    char (*shaders)[64]; /* R_KIND_MD3: each surface's shader, its skin's where it has one */
    int32_t *mats;   /* R_KIND_MD3: each surface's material in r_q3 (r_q3_model_tri), or -1;
                      * R_KIND_Q3SPRITE: its one material; NULL until r_assets_q3_textures */
    char *shader;    /* R_KIND_Q3SPRITE: the shader's name */
    uint8_t weapon;  /* R_KIND_MD3 under models/weapons2/: as an item, bigger and turned
                      * about its middle (cg_ents.c CG_Item) */
    mdl_md2 *md2;    /* R_KIND_MD2 */
    r_md2skin *skins; /* R_KIND_MD2: num_skins skins (the file's names, or the player's) */
    uint32_t num_skins;
    uint8_t own_skin; /* R_KIND_MD2: a Quake II player's body: skins[0] is the player's own
                       * skin and the entity's skin number (its client) is not a skin */
    uint8_t male;     /* R_KIND_MD2: a player model that was missing, male's loaded instead */
    mdl_anim *anims; /* a player's lower.md3: MDL_ANIM_COUNT animations of its folder's
                      * animation.cfg, or NULL */
} r_model;

struct r_assets {
    uint64_t serial;          /* unique per load: names this set for an r_cache */
    char (*names)[CL_NAME_LEN]; /* the models' names as loaded (Quake III players as cgame
                                 * finds them), num_models of them */
    r_bsp world;              /* world.bsp NULL when the map is missing */
    char map_name[CL_NAME_LEN];
    int num_models;           /* slots 0..num_models-1 of cl_level.models */
    r_model *models;
    int missing;
    char notice[160];         /* shown on screen when the map is missing */
    uint32_t palette[256];    /* the palette the assets were loaded with */
    uint8_t colormap[64 * 256]; /* gfx/colormap.lmp: light rows of palette indices */
    int colormap_ok;
    uint32_t lut[64 * 256];   /* palette index under each light row, as colours (r_surf_lut) */
    int sky_ok;               /* a 256x128 Quake sky texture was found: the layers below */
    uint32_t sky_back[128 * 128], sky_front[128 * 128]; /* front: alpha 0 is see-through */
    uint32_t sky_flat;        /* sky colour without layers */
    /* a Quake II sky box (cl_level.sky: env/<sky>rt ... dn, .tga or .pcx), sides as
     * r_sky_box_texel takes them; box_ok: all six found */
    uint32_t *box[6];
    int box_w[6], box_h[6], box_ok;
    char sky[32];             /* the sky name the box was looked for by (cl_level.sky) */
    struct r_q3 *q3;          /* Quake III maps: textures (r_assets_q3_textures), or NULL */
    int flag_model[2];        /* the slots of models/flags/r_flag.md3 and b_flag.md3 (a
                               * carrier's flag, Quake III), 0 none */
    int lean;                 /* r_assets_load_names: only what names the textures */
    uint64_t model_room;      /* bytes the level's models may still take (R_MODEL_ROOM):
                               * an alias model's decoded skins, poses and triangles, another
                               * model's file bytes with its levels of detail */
    uint64_t skin_room;       /* bytes the level's pictures may still take (R_SKIN_ROOM):
                               * Quake II skins (pixels and each one's 64 KiB light table),
                               * sprites' pixels (Quake's and Quake II's) and the bytes of
                               * the PCX files Quake II sprites read */
    qd_error pic_damaged;     /* the level's first picture there but damaged (a skin, a
                               * sprite's frame), said as the load's error when nothing
                               * else was; code QD_OK: none */
    /* Quake II: the client's own explosion models (cl_tent.c CL_RegisterTEntModels:
     * cl_mod_explo4 models/objects/r_explode/tris.md2, cl_mod_explo4_big r_explode2), the
     * model slots past the level's they were loaded in, 0 none */
    int q2_explode[2];
};

/* A pixel the sky will fill (r_surf_sky): no drawing call leaves a zero alpha byte. */
#define R_SKY_MARK 0x00000000u

/* One render call's camera and target. Lives on r_render's stack. */
/* An entity's placement: model x axis -> fwd, y -> left, z -> up, scaled, at origin. Quake
 * turns alias and brush models with the pitch negated (R_RotateForEntity,
 * R_AliasSetUpTransform). */
typedef struct r_xform {
    float origin[3];
    float axis[3][3]; /* axis[0] = forward, axis[1] = left, axis[2] = up, each times scale */
    int identity;     /* no rotation and scale 1: a translation only */
} r_xform;

/* A Quake II translucent face put off until the opaque scene is drawn (r_surf_trans): the
 * face fi of rb, in a brush entity's frame and placement (placed: x holds it). */
typedef struct r_trans {
    const struct r_bsp *rb;
    uint32_t fi;
    int frame;
    int placed;
    r_xform x;
} r_trans;
#define R_MAX_TRANS 16384 /* faces put off in a frame; the rest draw in walk order */

/* The frame r_surf_face gets for the world's faces (brush entities give theirs, >= 0). */
#define R_WORLD_FRAME (-1)

typedef struct r_view {
    rast_fb *fb;
    float org[3], fwd[3], right[3], up[3];
    float angles[3];       /* the camera's pitch, yaw, roll */
    float scale;           /* pixels per unit at depth 1 (square pixels) */
    float cx, cy;          /* screen centre */
    float tan_x, tan_y;    /* tangents of the half fields of view */
    float frustum[5][4];   /* world-space planes (normal, dist) facing inwards: near, sides */
    int pass;              /* R_PASS_*: what the emit calls draw */
    float zbias;           /* added to every projected inverse depth (draw_gun: R_GUN_ZBIAS) */
    int layers;            /* R_LAYERS_*: which of a Quake III model's surfaces are drawn */
    float zrel;            /* and this fraction of it (a shader's second layer: R_LAYER_ZREL) */
    /* a model triangle's corners' tcGen environment st, when its caller made them from its
     * vertices' normals in the model's own space (r_md3.c: RB_CalcEnvironmentTexCoords
     * reads tess.normal there); NULL: from the triangle's plane, in the world's */
    const float (*env)[2];
    int num_dlights;       /* dynamic lights this frame (r_dlights_collect) */
    /* Quake III items respawned within the last second (r_dlights_collect: cgame grows
     * them, cg_ents.c CG_Item): entity number and demo time */
    int num_respawns;
    struct r_respawn {
        int entity;
        double t0;
    } respawns[64];
    struct r_dlight {
        float origin[3], radius, minlight;
        float color[3];    /* Quake III's, 0..1 (Quake's are white) */
    } dlights[R_MAX_DLIGHTS];
    int clear_pending;     /* the band is not cleared yet: r_draw_world clears it, or walks
                            * it front to back on stale rows (rast_cover_begin_stale) */
    uint32_t clear_color;
    int y0, y1;            /* the band of rows this view draws (r_render's threads) */
    const r_assets *assets;
    const cl_state *cl;    /* the state drawn (players' colours), or NULL */
    r_cache *cache;        /* textured pass: lit surface blocks */
    double time;           /* demo time: light styles, animations, liquids, sky */
    int style[CL_MAX_LIGHTSTYLES]; /* light style values at time (r_style_value) */
    int32_t turb[128];     /* the liquids' warp at time (r_surf_turb_table) */
    int sky_marked;        /* a sky face was sent: r_surf_sky has pixels to fill */
    int xray;              /* lines ignore depth and back faces are kept */
    int cover;             /* the world's opaque fills skip covered pixels (RAST_COVER) */
    r_trans *trans;        /* translucent faces put off (num_trans of cap_trans), freed by */
    int num_trans, cap_trans; /* r_surf_trans */
    int trans_now;         /* r_surf_trans is drawing them */
    int count;             /* primitives sent to the rasteriser */
    const struct r_walk *walk; /* the world's walk for this camera, made once a frame for
                                * every band and pass (r_walk_make), or NULL: each
                                * r_draw_world walks for itself */
    int hidden_body;       /* the entity whose body this view does not draw (the recorded
                            * player's in first person), or -1: its blood is not drawn
                            * either (cg_effects.c CG_Bleed's RF_THIRD_PERSON) */
    uint8_t gun_shown;     /* the first-person weapon is drawn (r_options.gun): without it
                            * the hidden body's muzzle flash lights nothing (cgame adds that
                            * light with the view weapon, CG_AddPlayerWeapon's ps) */
    const struct r_marks *marks; /* Quake III's wall marks' pieces, made once a frame for
                                  * every band (r_q3_marks_make), or NULL: r_q3_marks cuts
                                  * them itself */
    int model_fog;         /* Quake III: the fog volume (+ 1; 0 none) the entity drawn is in */
    int clip_on;           /* a mirror view: polygons are clipped to the plane clipv too */
    float clipv[4];        /* (in view space: x right, y up, z forward; kept where n.p >= d) */
    const float *pvs_org;  /* the point whose PVS the walk draws (a portal view's camera,
                            * tr_main.c newParms.pvsOrigin), or NULL: org */
    const rast_fb *portal_fb; /* Quake III: the frame's portal view (r_render), which a
                               * portal shader's surfaces show before their stages, or NULL:
                               * none drawn this frame */
} r_view;

/* The world's faces in the order the front-to-back walk from the camera first reaches
 * them (a visible leaf's marks in turn, each face once): what decides which faces a frame
 * draws and, for Quake III, in what order. The same for every band and pass of a frame. */
typedef struct r_walk {
    uint32_t *faces;
    uint32_t *near; /* Quake III: the same faces nearest first (r_walk_make), for the
                     * opaque pass; NULL elsewhere */
    uint32_t n;
    int8_t *side; /* each node's nearer child as the walk found it (0 front, 1 back, -1
                   * outside the frustum; R_WALK_UNSEEN where it did not come) */
    uint32_t num_nodes;
} r_walk;
#define R_WALK_UNSEEN (-2)

/* v's walk over a's world into w (its faces: free with r_walk_free); 0 when there is no
 * world or no memory (w empty: r_draw_world then walks for itself). */
int r_walk_make(const r_view *v, const r_assets *a, r_walk *w);
void r_walk_free(r_walk *w);

/* Flat mode is one pass; wire mode a depth-only pass of the faces (unless xray), then the
 * lines. The scene is walked once per pass, so every pass sees the same primitives. */
#define R_PASS_FLAT 0
#define R_PASS_DEPTH 1
#define R_PASS_LINES 2
#define R_PASS_TEXTURED 3 /* world faces textured and lit, everything else as flat */
#define R_PASS_Q3_BLEND 4 /* Quake III: the world's blended surfaces, after the sky */

/* a . b and a x b of three-vectors */
static inline float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Quake's AngleVectors: forward, right, up of pitch/yaw/roll in degrees. */
void r_angle_vectors(const float angles[3], float fwd[3], float right[3], float up[3]);

/* Set up v for cam on fb: vertical FOV of the 4:3 case, widened to fb's aspect. */
void r_view_setup(r_view *v, const r_camera *cam, rast_fb *fb);

/* 1 when the box is at least partly inside the view frustum. */
int r_box_visible(const r_view *v, const float mins[3], const float maxs[3]);
/* 1 when nothing inside the box can pass the depth test where it is drawn now: every pixel
 * the box's outline on screen can cover (in this view's band) already holds a depth at
 * least as near as the box's nearest corner. 0 when a corner lies behind the eye, or
 * outside the flat and textured passes. Reads the depth buffer (its rows' put-off clear
 * made first): for what is drawn after the world's covering fills. */
int r_box_hidden(const r_view *v, const float mins[3], const float maxs[3]);
/* 1 when every pixel of the screen box x0..x1, y0..y1 (its pixels whose centres it can hold,
 * margin more each way) within v's rows already holds a depth of z or nearer, or none is in
 * them (rast_rect_hidden). */
int r_rect_hidden(const r_view *v, float x0, float y0, float x1, float y1, int margin,
                  float z);
/* 1 (the default): a Quake model wholly behind what is drawn is not drawn (r_box_hidden);
 * 0: drawn and hidden pixel by pixel (the tests compare the two; set it before drawing). */
extern int r_cull_hidden;

/* A convex polygon of n (3..MDL_BSP_MAX_FACE_VERTS) world-space points: clipped in view
 * space (near plane exactly, the guard band at the sides), projected and filled with flags.
 * Any other n draws nothing; so does a polygon that is not convex (a damaged map's) whose
 * clipped form would pass R_MAX_POLY points. */
void r_draw_poly(r_view *v, const float (*pts)[3], int n, uint32_t color, unsigned flags);
/* pts as r_draw_poly would draw them: clipped (near plane, guard band, the view's clip
 * plane) and projected to the screen into out; the count, 0 when nothing is left. */
int r_screen_poly(const r_view *v, const float (*pts)[3], int n, rast_vert out[R_MAX_POLY]);

/* 1 when polygon pts (n points, as r_draw_poly takes them) surely draws no pixel in v's
 * rows y0..y1-1 of the frame (another band's, or above or below the frame inside the guard
 * band), having counted it in v->count as r_draw_poly would (so a band can skip building
 * its texels and still count what the other bands count); 0 when it may draw. */
/* ... and *area (when not NULL) the pixels the polygon covers in the whole frame, clipped to
 * the view (the same in every band). */
int r_poly_outside_rows(r_view *v, const float (*pts)[3], int n, float *area);

/* 1 when v draws a band of the frame's rows (r_render's threads) and the n points pts
 * (n >= 1) lie wholly above or below it, R_BAND_MARGIN pixels clear, all in front of the
 * near plane: nothing inside their hull reaches the band, and a Quake III triangle (the
 * world's or a model's) or a body's surface is then skipped before its set-up, uncounted.
 * 0 for the whole frame's view. */
#define R_BAND_MARGIN 2.0f
int r_outside_band(const r_view *v, const float (*pts)[3], int n);

/* r_draw_poly filled from tex (whose planes are the whole surface's). */
void r_draw_poly_tex(r_view *v, const float (*pts)[3], int n, const rast_tex *tex,
                     unsigned flags);

/* A polygon clipped in view space as r_draw_poly clips it: n points (0 when nothing is
 * left), for the layers of one surface, each drawn from it by r_draw_clipped_tex as
 * r_draw_poly_tex would draw the polygon (only the projected depth, of the view's zrel
 * then, differs between them). */
typedef struct r_clipped {
    int n;
    float p[R_MAX_POLY][3];
} r_clipped;
void r_clip_poly(const r_view *v, const float (*pts)[3], int n, r_clipped *out);
void r_draw_clipped_tex(r_view *v, const r_clipped *c, const rast_tex *tex, unsigned flags);

/* A world-space segment, clipped and drawn as a line. */
void r_draw_line(r_view *v, const float a[3], const float b[3], uint32_t color, unsigned flags);

/* A convex world-space polygon as the pass wants it: filled in fill (flat), depth only, or its
 * edges as lines in line. */
void r_emit_poly(r_view *v, const float (*pts)[3], int n, uint32_t fill, uint32_t line);

void r_xform_setup(r_xform *x, const float origin[3], const float angles[3], float scale);
void r_xform_point(const r_xform *x, const float in[3], float out[3]);

/* A wire box from mins to maxs placed by x (missing models). */
void r_draw_box(r_view *v, const r_xform *x, const float mins[3], const float maxs[3],
                uint32_t color);

/* Colour c scaled by light/128 per channel (Quake's colormap: 128 is the texture itself,
 * 255 about twice as bright) times R_LIGHT_LIFT, clamped to 255. */
uint32_t r_shade(uint32_t c, float light);

/* A line colour for c that shows on black: c brightened until its largest channel is 200. */
uint32_t r_wire_color(uint32_t c);

/* The outward normal (unnormalised) of an alias triangle A, B, C (MDL and MD2 triangles
 * wind clockwise seen from outside): CA x BA. */
void r_alias_normal(const float *A, const float *B, const float *C, float n[3]);

/* Quake's R_DrawAliasModel lighting: ambient and shade both start at the floor's light
 * under origin (R_LightPoint; 128 without a map), at least 8, ambient capped at 128 and
 * ambient + shade at 192; a vertex gets ambient plus shade times the cosine to the light.
 * MD2 models use it too: Quake II's R_LightPoint lights them from the same floor trace. */
/* The frame's light style values (v->style) weigh each lightmap under origin; Quake's dynamic
 * lights (v->dlights) add to the ambient light. */
_Static_assert(CL_MAX_LIGHTSTYLES == MDL_LIGHT_STYLES, "r_view.style is a light point's");
void r_alias_light(const r_view *v, const r_assets *a, const float origin[3], float *ambient,
                   float *shade);

/* The light row (0..63 of a 64-row lookup, 32 showing a texel as it is) of a vertex with
 * world normal vn (any length; zero: ambient only) under r_alias_light's ambient and shade,
 * times R_LIGHT_GAIN. */
float r_alias_row(float ambient, float shade, const float vn[3]);

/* An 8-bit skin: w x h palette indices coloured through lut (64 rows of 256 colours, row
 * 32 about the colour itself; alpha bytes used with RAST_BLEND). */
typedef struct r_skin8 {
    const uint8_t *pixels;
    const uint32_t *lut;
    int w, h;
} r_skin8;

/* Triangle P (world space, n its normal facing the eye) textured from sk at the corners'
 * texel coordinates sv, tv, lit at the corners' light rows row (Gouraud, affine on screen),
 * filled with flags; its skin affine on screen too where that strays from the perspective
 * by under half a texel (r_skin_affine). A degenerate triangle draws nothing. */
void r_skin_tri(r_view *v, const float *P[3], const float n[3], const float sv[3],
                const float tv[3], const float row[3], const r_skin8 *sk, unsigned flags);

/* A player's colours put into a light table rather than into the skin (WinQuake's
 * translation tables; a review: a skin translated per entity cost its whole size, 165 ms a
 * frame for 40 skins of 2048 x 2048): out[row][i] = base[row][map[i]] for the 64 rows of 256
 * (map: Quake's shirt and pants rows). r_cache_player_lut keeps them in c between frames
 * (keyed by base and the colours; the assets' change empties c); NULL when memory runs out. */
void r_player_lut(uint32_t *out, const uint32_t *base, const uint8_t map[256]);
const uint32_t *r_cache_player_lut(r_cache *c, const uint32_t *base, int top, int bottom,
                                   const uint8_t map[256]);

/* 1 (the default): r_skin_tri maps a skin affinely where it may; 0: always in perspective
 * (the tests compare the two; set it before drawing, never while threads draw). */
extern int r_skin_affine;

/* Draw the world of a: PVS, front-to-back walk, faces. */
void r_draw_world(r_view *v, const r_assets *a);

/* Draw a brush model (faces of m in rb's map) placed by x; frame is the entity's (its
 * animated textures' alternate cycle). */
void r_draw_brush(r_view *v, const r_bsp *rb, const mdl_submodel *m, const r_xform *x,
                  int frame);

/* The box of a missing model (Quake's player hull) at s, turned by its yaw. */
void r_draw_missing(r_view *v, const cl_entstate *s);

/* cl_entity_at, and an entity the client places ahead of the clock (cl_entity_lead_from:
 * OpenArena's missiles) stopped where the map's solid meets the way from where it is at the
 * clock, as cgame's trace stops it. */
int r_entity_at(const r_assets *a, const cl_state *cl, int num, double t, cl_entstate *out,
                int *next_frame, float *blend);

/* Draw one entity state with its model (brush, alias, sprite, MD3 or missing box); num is
 * its entity number (its animation times), -1 for statics and the gun. */
void r_draw_entity(r_view *v, const r_assets *a, const cl_entstate *s, int num, int next_frame,
                   float blend, double t);

/* Quake's light style value of pattern at time t: 22 per letter past 'a' ('m' = 264, the
 * normal light), ten letters a second; an empty pattern is 256. */
int r_style_value(const char *pattern, double t);

/* Face fi of rb's map (pts: its n corners as placed, x its entity's placement or NULL for the
 * world, frame the entity's frame or R_WORLD_FRAME: Quake's 1 picks the alternate texture
 * animation, Quake II's steps along the texinfo chain), textured and lit from v's cache; sky
 * faces are marked for r_surf_sky; without a texture, flat. Quake II's translucent faces
 * are put off for r_surf_trans. */
void r_surf_face(r_view *v, const r_bsp *rb, uint32_t fi, const r_xform *x, int frame,
                 const float (*pts)[3], int n);

/* The translucent faces r_surf_face put off, farthest first (the walks' order reversed, as
 * Quake II's r_alpha_surfaces chain), blended over the frame; the list is freed. */
void r_surf_trans(r_view *v);

/* Fill a->lut: each palette index under each colormap row (or the RGB ramp). */
void r_surf_lut(r_assets *a);

/* Screen-space planes of an attribute a = dot(A, p) + a0 over the points p of the plane
 * dot(N, p) = dist (world space), as rast_tex wants them: a/w, or q = 1/w when A is NULL. */
void r_attr_plane(const r_view *v, const float N[3], float dist, const float *A, float a0,
                  double out[3]);
/* r_attr_plane in two steps, for several attributes over one plane: q = 1/w once
 * (r_attr_q), then each attribute from it (r_attr_from); the same numbers. */
void r_attr_q(const r_view *v, const float N[3], float dist, double q[3]);
void r_attr_from(const r_view *v, const double q[3], const float *A, float a0, double out[3]);

/* The screen position of world point p; 0 when it lies behind the near plane. */
int r_project_point(const r_view *v, const float p[3], float out[2]);

/* World point p in view: its clip outcode (the near plane and the guard band: bits 0..4),
 * R_VERT_BAD when a coordinate is not finite, R_VERT_BEHIND when it lies behind the near
 * plane; else *out is its screen position and depth (as r_project_point's and draw_poly's). */
#define R_VERT_BAD 0x20u
#define R_VERT_BEHIND 0x40u
#define R_VERT_CLIP 0x80u /* outside a mirror view's plane (r_view.clip_on) */
unsigned r_view_vert(const r_view *v, const float p[3], rast_vert *out);
/* r_view_vert of n points p into out and code. */
void r_view_verts(const r_view *v, const float (*p)[3], uint32_t n, rast_vert *out,
                  uint8_t *code);
/* A triangle of three r_view_vert points whose codes are all 0 (inside every clip plane,
 * finite), filled with color: what r_emit_poly draws in the flat and textured passes,
 * without clipping or projecting again. 0 (nothing drawn) in the other passes. */
int r_emit_tri_inside(r_view *v, const rast_vert rv[3], uint32_t color);

/* The liquids' warp table at time t (rast_tex.warp). */
void r_surf_turb_table(double t, int32_t out[128]);

/* Fill the pixels marked R_SKY_MARK with the sky seen through them. */
void r_surf_sky(r_view *v, const r_assets *a);

/* ---- Quake III surfaces (r_q3surf.c) ---- */

/* A Quake III map's textures, shaders and lightmaps for the textured pass. */
typedef struct r_q3 r_q3;
void r_q3_free(r_q3 *q);

/* One row of a mip level (r_q3surf.c build_levels): texel x of t (lw wide) the rounded
 * mean, channel by channel, of texels 2x and 2x + 1 of rows r0 and r1 of the level above
 * (uw texels wide: a power of two; at 1 the one column twice). */
void r_q3_level_row(uint32_t *t, int lw, const uint32_t *r0, const uint32_t *r1, int uw);
/* Face fi of the world (a Quake III map) drawn textured in pass R_PASS_TEXTURED (opaque
 * surfaces, sky marks) or R_PASS_Q3_BLEND (blended surfaces over them); eye for culling. */
void r_q3_face(r_view *v, const r_bsp *rb, uint32_t fi, const float eye[3]);
/* The run of rb->group[fi] triangles from fi drawn as r_q3_face draws them, its first layer
 * as one polygon (rb->poly_*); 0 when its shader is not drawn that way (the caller draws
 * the triangles one by one). Only in pass R_PASS_TEXTURED. */
/* Quake III face fi drawn at corners at (moved: a mover's face, its texture and light its
 * own), seen from the view's eye. */
void r_q3_face_at(r_view *v, const r_bsp *rb, uint32_t fi, const float (*at)[3]);
int r_q3_group(r_view *v, const r_bsp *rb, uint32_t fi, const float eye[3]);
/* Find rb's runs of triangles that make convex polygons (Quake III maps; others get none).
 * 0 when out of memory (none then). */
int r_q3_groups(r_bsp *rb);
void r_q3_groups_free(r_bsp *rb);
/* One triangle of a model drawn with material mat (an r_model.mats entry): its image at
 * the corners' texture coordinates st through the shader's tcMods, modulated by the
 * corners' light colours (bilinear across the triangle), blended as the shader says; the
 * caller has culled back faces. Returns 0 (drawing nothing) when mat has no image: the
 * caller draws it flat. */
int r_q3_model_tri(r_view *v, int32_t mat, const float (*pts)[3], const float (*st)[2],
                   const uint32_t light[3], int half);
/* (half: the light colours are kept at half, as a light grid's under ioquake3's hardware
 * overbright bit: the lit colour is doubled; 0: as they are) */
/* Quad q (corners in order around it, texture coordinates st) drawn with material mat
 * unlit (white), as two r_q3_model_tri triangles; 0 (nothing drawn) when mat has no image. */
int r_q3_quad(r_view *v, int32_t mat, const float (*q)[3], const float (*st)[2]);
/* The mean colour of material mat's image (flat and wire modes), or grey. */
uint32_t r_q3_mat_color(const r_assets *a, int32_t mat);
/* A sky box's texel in direction d: sides +x, -x, +y, -y, +z, -z (the rt, lf, bk, ft, up,
 * dn images of Quake II and III), each w x h colours (ioq3 tr_sky.c st_to_vec, inverted). */
uint32_t r_sky_box_texel(const uint32_t *const tex[6], const int w[6], const int h[6],
                         const float d[3]);
/* The material of Quake III's quad damage shell ("powerups/quad"), or -1. */
int32_t r_q3_quad_mat(const r_assets *a);
/* The battle suit's (k 0), regeneration's (1) and invisibility's (2) shell, or -1. */
int32_t r_q3_shell_mat(const r_assets *a, int k);
/* cgame's explosion shaders (cg_main.c CG_RegisterGraphics): "grenadeExplosion",
 * "rocketExplosion", "bfgExplosion" (sprites), "plasmaExplosion", "railExplosion" (on the
 * ring model), "bulletExplosion" (on the bullet's); "bloodExplosion" (CG_Bleed's sprite);
 * "lightningBoltNew" (the lightning gun's beam); "teleportEffect" (CG_SpawnEffect's). */
enum { R_Q3FX_GRENADE, R_Q3FX_ROCKET, R_Q3FX_BFG, R_Q3FX_PLASMA, R_Q3FX_RAIL, R_Q3FX_BULLET,
       R_Q3FX_BLOOD, R_Q3FX_LIGHTNING, R_Q3FX_TELEPORT, R_Q3FX_COUNT };
/* cgame's smokePuff at alpha (0..1 of its image's own), to the nearest 1/R_Q3_SMOKE_FADES
 * under it; -1 for none (or under the first fade). */
#define R_Q3_SMOKE_FADES 32
int32_t r_q3_smoke_mat(const r_assets *a, float alpha);
/* cgame's railCore (its colour the corners' light), or -1. */
int32_t r_q3_rail_mat(const r_assets *a);
/* The rail rings' material ("railDisc"), or -1. */
int32_t r_q3_rail_disc_mat(const r_assets *a);
/* What floats over a body (CL_FLOAT_*, cg_players.c CG_PlayerSprites), or -1. */
int32_t r_q3_float_mat(const r_assets *a, int kind);
/* cgame's bloodTrail (a gib's, CG_BloodTrail) the same way. */
int32_t r_q3_blood_trail_mat(const r_assets *a, float alpha);
/* A puff (CG_SmokePuff's sprite) of material mat at p, radius, turned by angle degrees, its
 * shader on its own clock at age (r_part.c). */
void r_q3_puff(r_view *v, int32_t mat, const float p[3], float radius, float angle, double age);
/* The material of explosion shader k (R_Q3FX_*): its first two stages, with more 1 the
 * next two (drawn over them), with more 2 the two after those; -1 none. */
int32_t r_q3_fx_mat(const r_assets *a, int k, int more);
/* cgame's wall marks (cg_main.c CG_RegisterGraphics): bulletMarkShader
 * "gfx/damage/bullet_mrk", burnMarkShader "gfx/damage/burn_med_mrk", holeMarkShader
 * "gfx/damage/hole_lg_mrk", energyMarkShader "gfx/damage/plasma_mrk"; bloodMarkShader
 * "bloodMark" (a gib's bounce, cg_localents.c CG_FragmentBounceMark); shadowMarkShader
 * "markShadow" (a player's blob shadow, r_q3_shadows). */
enum { R_Q3MARK_BULLET, R_Q3MARK_BURN, R_Q3MARK_HOLE, R_Q3MARK_ENERGY, R_Q3MARK_BLOOD,
       R_Q3MARK_SHADOW, R_Q3MARK_COUNT };
/* A fading mark's copies of its image (r_q3_mark_mat) */
#define R_Q3_MARK_FADES 16
/* Mark shader k's material as drawn with the vertex colour rgb and alpha (cg_marks.c's
 * modulate bytes), and the light for its corners (*light); -1 when it shows nothing (no
 * image, or faded out). A colour fade of a filter by the inverted image, or an alpha
 * fade, picks the copy at or under it (R_Q3_MARK_FADES of them); the colour of a vertex-lit
 * one is the corners' light. */
int32_t r_q3_mark_mat(const r_assets *a, int k, const uint8_t rgb[3], int alpha,
                      uint32_t *light);
/* Which mark an impact of weapon (bg_public.h weapon_t) leaves, and its radius
 * (cg_weapons.c CG_MissileHitWall). */
int r_q3_mark_kind(int weapon, float *radius);
/* How mark kind (R_Q3MARK_*) of colour color looks age seconds after it was made
 * (cg_marks.c CG_AddMarks): its vertex colour and alpha bytes. */
void r_q3_mark_look(int kind, const uint8_t color[3], double age, uint8_t rgb[3],
                    uint8_t *alpha);
/* The pieces of a mark on map b (tr_marks.c R_MarkFragments as CG_ImpactMark calls it):
 * the square of half-side radius about origin on the plane of normal dir, turned by
 * orientation degrees, cut by the world's triangles near it. Each piece's corners and
 * texture coordinates from pts[first], st[first]; at most R_MARK_FRAGMENTS pieces and
 * R_MARK_POINTS corners. Returns the count of pieces. */
#define R_MARK_FRAGMENTS 128
#define R_MARK_POINTS 384
typedef struct r_mark_frag {
    int first, n;  /* corners pts[first .. first + n - 1], 3..10 */
    uint32_t face; /* the map's triangle it lies on */
    float after;   /* seconds after its mark's time that it is made (a gib's bounce), or 0 */
} r_mark_frag;
int r_q3_mark_fragments(const mdl_bsp *b, const float origin[3], const float dir[3],
                        float orientation, float radius, r_mark_frag *frags,
                        float (*pts)[3], float (*st)[2]);
/* Whether Quake III material mat is drawn from both sides (cull disable, none, twosided). */
int r_q3_mat_twosided(const r_assets *a, int32_t mat);
/* How far deformVertexes wave moves a vertex of material mat at p (the model's own
 * coordinates, as ioq3's tess.xyz) along its normal n at t (RB_CalcDeformVertexes; a
 * second wave from where the first left it); 0 without one. */
float r_q3_mat_deform(const r_assets *a, int32_t mat, const float p[3], const float n[3],
                      double t);
/* Whether material mat has a deformVertexes wave (r_q3_mat_deform may move its vertices). */
int r_q3_mat_deforms(const r_assets *a, int32_t mat);
/* 1 when material mat is drawn blended over what lies behind (its first stage's blend) */
int r_q3_mat_blended(const r_assets *a, int32_t mat);
/* 1 when a stage of material mat takes its st from tcGen environment */
int r_q3_mat_env(const r_assets *a, int32_t mat);
/* A deformVertexes autosprite quad or a sprite (ioq3 tr_shade_calc.c AutospriteDeform,
 * tr_surface.c RB_SurfaceSprite, RB_AddQuadStamp): a square of half-side radius about mid
 * along the view's left and up, texture 0 0 at left + up and 1 1 at -left - up, drawn with
 * material mat, its vertices' colour light. */
void r_q3_autosprite(r_view *v, int32_t mat, const float mid[3], float radius, uint32_t light);
/* Digit digit (0..9, 10 the minus) of cgame's numberShaders (gfx/2d/numbers) as a sprite of
 * radius at p, its texels times rgb and alpha (0..255) blended over the frame with no depth
 * test (a shader registered for 2D: GLS_DEPTHTEST_DISABLE), within v's band of rows. */
void r_q3_digit_sprite(r_view *v, int digit, const float p[3], float radius, uint32_t rgb,
                       unsigned alpha);
/* 1 when material mat is deformVertexes autosprite (a model's quads turned to the eye) */
int r_q3_mat_autosprite(const r_assets *a, int32_t mat);

/* Model slot slot (an MD3) in frame 0 at origin, turned by axis, every surface drawn with
 * material mat (a cgame effect's custom shader); nothing when the slot holds no MD3. */
void r_md3_effect(r_view *v, const r_assets *a, int slot, const float origin[3],
                  const float axis[3][3], int32_t mat);
/* Draw entity s whose model is an R_KIND_Q3SPRITE: a square of radius 16 facing the camera. */
void r_q3_sprite_entity(r_view *v, const r_assets *a, const cl_entstate *s);

/* Where a model part goes: a model point p is origin + p[0] axis[0] + p[1] axis[1] +
 * p[2] axis[2] (Quake III's orientation_t; the axis rows may be scaled). */
typedef struct r_place {
    float origin[3];
    float axis[3][3];
} r_place;

/* cg_ents.c CG_Item's yaw of item s at the items' clock ms (r_q3_item_ms): a health item
 * (its sphere, the decoder's model2) at cg.autoAnglesFast, a turn a 1024 ms; the others at
 * cg.autoAngles, a turn a 2048 ms. */
float r_q3_item_yaw(const cl_entstate *s, double ms);
/* tr_main.c R_RotateForEntity's view origin in the space of a model placed by p (the offset
 * from p's origin along each axis, over the first axis's length) from the world's org. */
void r_md3_env_eye(const r_place *p, const float org[3], float eye[3]);
/* tr_shade_calc.c RB_CalcEnvironmentTexCoords at a model's vertex q (its space) of normal n
 * seen from eye (r_md3_env_eye): the direction to the eye reflected in the unit normal,
 * s = 0.5 + its y / 2, t = 0.5 - its z / 2. */
void r_md3_env_st(const float eye[3], const float q[3], const float n[3], float st[2]);

/* The level of detail (0, 1, 2: rm->md3 or rm->lod[level - 1]) ioquake3 draws MD3 slot rm
 * at in frame frame, placed at p->origin, seen from v (r_md3.c, after R_ComputeLOD). */
int r_md3_lod(const r_view *v, const r_model *rm, const r_place *p, uint32_t frame);

/* Two frames of a model and how far between them (0: f0, 1: f1). */
typedef struct r_frames {
    uint32_t f0, f1;
    float lerp;
} r_frames;

/* The place of a child at m's tag name between frames f0 and f1 (the tags lerped, axes
 * normalised, as ioq3's R_LerpTag) on parent, the child turned by its own rotation local
 * (cg_players.c CG_PositionRotatedEntityOnTag: local x tag x parent). 0 when m lacks the
 * tag (out untouched). */
int r_md3_on_tag(const mdl_md3 *m, uint32_t f0, uint32_t f1, float lerp, const char *name,
                 const r_place *parent, const float local[3][3], r_place *out);

/* A Quake III player's parts at origin with the body's angles and movement direction dir
 * (0..7, bg_pmove.c): out[0] the legs (the yaw turned by dir's offset), out[1] the torso at
 * the legs' tag_torso (a quarter of the offset, 3/4 of the pitch), out[2] the head at the
 * torso's tag_head (the view's yaw, the rest of the pitch), out[3] the weapon at
 * tag_weapon. lf and tf are the legs' and torso's frames. Returns a mask of the parts
 * placed (bit i: out[i]). */
unsigned r_md3_body(const mdl_md3 *legs, const mdl_md3 *torso, const r_frames *lf,
                    const r_frames *tf, const float origin[3], const float angles[3], int dir,
                    r_place out[4]);

/* Draw entity s (number num, -1 for a static or the gun) whose model slot is an MD3: items
 * spin and bob, players are assembled from legs, torso, head and weapon. */
void r_md3_entity(r_view *v, const r_assets *a, const cl_entstate *s, int num, int next_frame,
                  float blend, double t);

/* ---- Quake II models (r_md2.c) ---- */

/* A 64-row light lookup for an 8-bit picture with its own palette: row r shows each colour
 * at (255 - 4 r) / 128 of itself (row 32 about as it is), as r_skin_tri's rows want. */
void r_lut_from_palette(const uint32_t palette[256], uint32_t lut[64 * 256]);

/* r_part.c: Quake's and QuakeWorld's particles. One of an effect's particles at age seconds:
 * its place and palette colour. */
typedef struct r_particle {
    float org[3];
    uint8_t color, alpha; /* alpha: Quake II's fade (Quake's are opaque) */
} r_particle;
/* The particles of effect e alive at age (up to cap into out; the effect's own, the same
 * every time); 0 for an effect that makes none. */
int r_particles_of(const cl_fxev *e, float age, r_particle *out, int cap);
/* The trail of entity num at t (R_RocketTrail of the type r_trail_type gives: 0 a rocket's,
 * 3, 5, 6 the monsters' missiles', laid along its straight flight since it appeared; 1 a
 * grenade's smoke, 2 and 4 a gib's blood, along its falling path, none where that path is
 * in b's solid, b NULL: no test); up to cap into out. */
int r_trail_particles(const cl_state *cl, const mdl_bsp *b, int num, int type, double t,
                      r_particle *out, int cap);
/* The R_RocketTrail type of a Quake alias model of header flags (EF_GIB 4, EF_ZOMGIB 32,
 * EF_TRACER 16, EF_TRACER2 64, EF_ROCKET 1, EF_GRENADE 2, EF_TRACER3 128), or -1: none. */
int r_trail_type(uint32_t flags);
/* Quake II's rail trail effect e at age: its spiral and core particles (cl_fx.c
 * CL_RailTrail), up to cap into out. */
int r_q2_rail_particles(const cl_fxev *e, float age, r_particle *out, int cap);
/* Quake II's rocket trail of entity num at t (cl_fx.c CL_RocketTrail), up to cap into out. */
int r_q2_trail_particles(const cl_state *cl, int num, double t, r_particle *out, int cap);
/* Quake II's particles of effect e at age (explosions, impacts, blood, rail trails). */
int r_q2_particles_of(const cl_fxev *e, float age, r_particle *out, int cap);
/* Quake III's rail trails alive at t: their cores, fading (cg_weapons.c CG_RailTrail). */
void r_q3_rails(r_view *v, const cl_state *cl, double t);
/* Quake III's explosions alive at t drawn as sprites with their shaders (the grenade's,
 * rocket's and BFG's: cg_localents.c CG_AddSpriteExplosion), over the scene. */
void r_q3_explosions(r_view *v, const cl_state *cl, double t);
/* One of them: effect e (a CL_FXK_EXPLOSION) as it looks at t. */
void r_q3_explosion(r_view *v, const cl_fxev *e, double t);
/* Quake III rockets' smoke at t, in flight and for 2 s after (cg_weapons.c CG_RocketTrail). */
void r_q3_smoke(r_view *v, const cl_state *cl, double t);
/* The viewed player's score plums (CL_FXK_SCORE_PLUM in the marks' log) rising at t, over
 * everything (r_part.c). */
void r_q3_plums(r_view *v, const cl_state *cl, double t);
/* cg_players.c CG_PlayerSprites: the sprite over each live body (cl_player.float_sprite,
 * else the friend's mark over a team-mate of the view's player) but the hidden body. */
void r_q3_float_sprites(r_view *v, const cl_state *cl, double t);
/* Quake III's wall marks alive at t (r_q3mark.c), on the world's surfaces. */
void r_q3_marks(r_view *v, const cl_state *cl, double t);
/* cg_players.c CG_PlayerShadow (cg_shadows 1, the default): under each player's body
 * within 128 units of the ground, the "markShadow" mark of radius 24, darker the nearer. */
void r_q3_shadows(r_view *v, const cl_state *cl, double t);
/* Quake III's gibs flying and lying at t (r_q3mark.c: thrown, bouncing and sinking as
 * cg_effects.c CG_GibPlayer and cg_localents.c CG_AddFragment move them). */
void r_q3_gibs(r_view *v, const cl_state *cl, double t);
/* The places of gibbing e's gibs still there at age seconds on map b, and whether each
 * stands (standing[i]); returns how many (up to CL_Q3_GIBS). */
int r_q3_gib_places(const mdl_bsp *b, const cl_fxev *e, double age, float (*out)[3],
                    int *standing);
/* The shells of brass e (CL_FXK_BRASS) on map b at age seconds: each place into out (up to
 * two) and whether it lies at rest (lying[i]); returns how many are still there. */
int r_q3_brass_places(const mdl_bsp *b, const cl_fxev *e, double age, float (*out)[3],
                      int *lying);
/* An MD3 model slot drawn in frame 0 at origin, turned by axis, with its own shaders, lit
 * by the map's light grid there (r_md3.c). */
void r_md3_model(r_view *v, const r_assets *a, int slot, const float origin[3],
                 const float axis[3][3]);
/* The puffs of the shotgun blasts' pellets that hit the walls, alive at t. */
void r_q3_pellet_puffs(r_view *v, const cl_state *cl, double t);
/* A shot from start to end traced through map b's drawn surfaces (r_q3mark.c): 1 and the
 * distance to the nearest hit and its triangle, or 0 when it meets none. */
int r_q3_trace(const mdl_bsp *b, const float start[3], const float end[3], float *t,
               uint32_t *face);
/* The pieces of the marks alive at t, cut once for a frame's bands and kept in cache c
 * between frames (a mark's pieces are the same every frame it lives): NULL when there
 * are none, no cache or no memory (r_q3_marks then cuts them itself). Not thread-safe:
 * made before the bands start, read by them. */
typedef struct r_marks r_marks;
const r_marks *r_q3_marks_make(r_cache *c, const r_assets *a, const cl_state *cl, double t);
/* r_cache's slot for them, and freeing them (r_cache_free). */
r_marks **r_cache_marks(r_cache *c);
void r_marks_free(r_marks *m);
/* Draw the particles alive at t over the scene (depth tested, not written). */
void r_draw_particles(r_view *v, const r_assets *a, const cl_state *cl, double t);

/* The lookup an entity's look asks for: lut itself, or a copy (in *own, the caller frees
 * it) tinted by a quad (blue) or pentagram (red) glow and carrying s->alpha for a
 * translucent entity; *flags gets the fill flags (RAST_BLEND without depth writes for a
 * translucent one). Out of memory: lut unchanged. */
const uint32_t *r_lut_look(const uint32_t *lut, const cl_entstate *s, uint32_t **own,
                           unsigned *flags);

/* Draw entity s whose model slot is an MD2 (frame lerped towards next_frame by blend), its
 * weapon model (model2, an MD2) at the same frames, t the demo time (EF_ROTATE). */
void r_md2_entity(r_view *v, const r_assets *a, const cl_entstate *s, int next_frame,
                  float blend, double t);
/* Quake II's explosions alive at t as the client draws them (cl_tent.c CL_AddExplosions:
 * the r_explode model's frames at 10 a second, its skins fading, translucent at the end). */
void r_q2_explosions(r_view *v, const r_assets *a, const cl_state *cl, double t);

/* The clock Quake III's items spin and bob on (cg_ents.c CG_Item: cg.time, the server's):
 * cl's game time at demo time t, in milliseconds (0 outside 0..1e7 s). */
double r_q3_item_ms(const cl_state *cl, double t);
/* The first-person weapon of a Quake III view at demo time t: the MD3 of model slot model
 * (nothing unless it is one) at the tag_weapon of its hand model (slot + CL_HAND_SLOTS, or
 * CL_HAND_FALLBACK) in the frame the followed body's torso gives, the hand at the eye turned
 * with the view and its bob; its barrel and its flash while it fires; lit from the light
 * grid at the eye. */
void r_md3_view_weapon(r_view *v, const r_assets *a, int model, double t);
/* cg_weapons.c CG_AddViewWeapon with cg_drawGun 0: no weapon, but while the view's player
 * fires the lightning gun its beam, from 8 units under the eye ("special hack for
 * lightning gun"). */
void r_md3_no_gun_lightning(r_view *v, const r_assets *a, double t);
/* The recorded Quake III view's bob cycle (0..255) and speed across the ground at t,
 * between the last two playerStates as cgame interpolates them. */
void r_q3_bob(const cl_state *cl, double t, int *cycle, float *xyspeed);
/* Quake's dynamic lights at t from cl's entities and effects (cl_main.c CL_RelinkEntities:
 * muzzle flashes, bright and dim lights, rockets, QuakeWorld's quad and pentagram glows;
 * cl_tent.c TE_EXPLOSION) into v, which the lit blocks of world faces then add
 * (r_surf.c). */
/* The Quake III items respawned within the last second at t into v->respawns. */
void r_q3_respawns_collect(r_view *v, const cl_state *cl, double t);
void r_dlights_collect(r_view *v, const cl_state *cl, double t);
/* r_render's band boundaries for n threads over h rows: band i is rows y[i]..y[i+1]-1, from
 * how long each took in the frames c drew before (even bands at first), so two threads
 * share the work and not only the rows; the frame's bytes do not depend on them. */
void r_cache_bands(r_cache *c, int n, int h, int y[R_MAX_THREADS + 1]);
/* After a frame: band i took took[i] seconds. */
void r_cache_bands_took(r_cache *c, int n, int h, const int y[R_MAX_THREADS + 1],
                        const double took[R_MAX_THREADS]);

/* Fill the sky marks from the map's sky box, its cloud image or its flat colour. */
void r_q3_sky(r_view *v, const r_assets *a);

/* Empty c when it holds another asset set's blocks. */
void r_cache_bind(r_cache *c, const r_assets *a);

/* The cache after c in its chain (one per band thread), made on first use; NULL when out of
 * memory. Freed with c. */
r_cache *r_cache_next(r_cache *c);
/* c's chain for Quake III's portal views (r_render draws one a frame at most), made on
 * first use, and a frame of w x h for them kept in c (made anew at another size); NULL
 * when out of memory. Freed with c. */
r_cache *r_cache_portal(r_cache *c);
rast_fb *r_cache_portal_fb(r_cache *c, int w, int h);
/* The camera of a portal view (r_main.c): portal p, whose entity is at ent, over the plane
 * (N, dist) of its surface, seen from eye_cam at ms on the server's clock; with mirror, the
 * eye reflected in the plane, its view turned into a right-handed one (the picture drawn
 * from it is the mirror's flipped left to right). 0 when none can be made. */
int r_portal_camera(const float N[3], float dist, const cl_portal *p, const float ent[3],
                    double ms, const r_camera *eye_cam, int mirror, r_camera *out);
/* tr_main.c R_ComputeFogNum: the first fog volume of a's map whose box the sphere (origin,
 * radius) reaches, + 1; 0 none. */
int r_q3_fog_at(const r_assets *a, const float origin[3], float radius);
/* The fog image of a Quake III map with fog volumes (256 x 32 texels, load_fogs), or NULL. */
const uint32_t *r_q3_fog_image(const r_assets *a);
/* 1 when world face fi's shader is a portal (drawn blended), its alphaGen portal range in
 * *range (0: none, so no view is drawn for it: tr_main.c SurfIsOffscreen). */
int r_q3_face_portal(const r_assets *a, uint32_t fi, float *range);

/* A file that is there but damaged and is done without (a level of detail, an
 * animation.cfg, a picture): why in *err (may be NULL) when nothing was said there before
 * (a review: silent); a missing file and memory running out are not damage. */
void r_damaged_aside(qd_error *err, qd_err code, const qd_error *why);

/* The model room each new asset set starts with (R_MODEL_ROOM in r_assets.c, 512 MiB; a test
 * lowers it to reach its end with small files). */
extern uint64_t r_model_room;

#endif
