/* model.h: map and model loaders (Quake BSP29/BSP2 maps, MDL alias models, SPR sprites, the
 * palette) turning file bytes into format-neutral structs for the renderer.
 *
 * Loaders take bytes in memory and never keep a pointer to them. Each loaded object owns its
 * memory and is released with its _free function. Every loader validates the whole file
 * before using any of it: structural damage (an index out of range, a lump past the end, a
 * count over a cap) is an error; damage that only affects colour (a lightmap or a texture
 * whose pixels lie outside their lump, a bad visofs) degrades the look of one face and is
 * not an error, as in the engines.
 *
 * Loaders take the palette for texture colours; NULL stands for mdl_palette_grey().
 * Colours are packed like the rasteriser's (src/render/rast.h): bytes R, G, B, A in memory
 * order, i.e. MDL_RGB(r, g, b) below. The model stage does not include the render stage. */
#ifndef QD_MODEL_H
#define QD_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"

#define MDL_RGB(r, g, b)                                                                   \
    ((uint32_t)((r) & 255) | (uint32_t)((g) & 255) << 8 | (uint32_t)((b) & 255) << 16 |    \
     0xff000000u)

/* Reads a named file from the game's search path (e.g. a pak_fs): on success *data is a
 * malloc'd buffer the caller frees and *len its size; QD_ERR_NOT_FOUND when absent. */
typedef qd_err (*mdl_read_fn)(void *ctx, const char *name, uint8_t **data, size_t *len,
                              qd_error *err);

/* ---- Images (TGA, JPEG, PNG through stb_image; mdl_image.c) ---- */

#define MDL_IMAGE_MAX_SIZE 4096            /* width and height */
#define MDL_IMAGE_MAX_FILE (64u << 20)     /* bytes of one image file */
#define MDL_IMAGE_MAX_NAME 1024            /* bytes of a name to look up */

typedef struct mdl_image {
    uint32_t w, h;
    uint32_t *pixels; /* w * h colours, rows top down, bytes R, G, B, A (alpha kept) */
    uint32_t color;   /* the mean colour (alpha 255) */
} mdl_image;

/* Decode a TGA, JPEG or PNG file. The header's size is checked against MDL_IMAGE_MAX_SIZE
 * before any pixel is decoded, and the decoder's allocations are capped. On failure returns
 * the error (err names the file and the reason) and leaves *out NULL. */
qd_err mdl_image_load(const uint8_t *data, size_t len, const char *name, mdl_image **out,
                      qd_error *err);
/* The same with sides capped at max_side (at most MDL_IMAGE_MAX_SIZE), checked before
 * decoding. */
qd_err mdl_image_load_max(const uint8_t *data, size_t len, const char *name, int max_side,
                          mdl_image **out, qd_error *err);
void mdl_image_free(mdl_image *im);

/* Find and decode an image through read: name as given (when it has an extension), then
 * its stem with .tga, .jpg and .png, as Quake III's R_FindImageFile. QD_ERR_NOT_FOUND when
 * none is there; a damaged file gives its decode error. */
qd_err mdl_image_find(mdl_read_fn read, void *ctx, const char *name, mdl_image **out,
                      qd_error *err);
/* The same with sides capped at max_side (mdl_image_load_max). */
qd_err mdl_image_find_max(mdl_read_fn read, void *ctx, const char *name, int max_side,
                          mdl_image **out, qd_error *err);

/* ---- 8-bit PCX pictures (Quake II skins and sprite frames; mdl_pcx.c) ---- */

#define MDL_PCX_MAX_SIZE 4096 /* width and height */

typedef struct mdl_pcx {
    uint32_t w, h;
    uint8_t *pixels;      /* w * h palette indices, rows top down */
    uint32_t palette[256]; /* the file's own palette (alpha 255) */
} mdl_pcx;

/* Decode an 8-bit, single-plane, run-length PCX with its 256-colour palette at the end (as
 * Quake II writes them). Every size is checked against the bytes there before anything is
 * allocated; data that ends inside the picture, a run without its value, a missing
 * palette, bounds that end before they start are refused with the offset. On failure
 * *out stays NULL. */
qd_err mdl_pcx_load(const uint8_t *data, size_t len, const char *name, mdl_pcx **out,
                    qd_error *err);
void mdl_pcx_free(mdl_pcx *p);
/* The pixels a PCX's header says it has (width x height), 0 when the header is short or its
 * bounds end before they start: read before decoding, for budgets over several pictures. */
uint64_t mdl_pcx_pixels(const uint8_t *data, size_t len);

/* Pixels of all the pictures one model or sprite may decode (its frames or skins may all
 * name one picture: 16 frames of one 533 KB PCX made 256 MB; found by a review). A picture
 * past it is left out as one that is not there. */
#define MDL_PICTURES_MAX_PIXELS ((uint64_t)1 << 24)

/* A Quake II .wal (mdl_wal.c): data (len bytes) holds a header of MDL_WAL_HEADER bytes with
 * sides *w x *h of 8..MDL_WAL_MAX_SIDE each, and level k's (*w >> k) x (*h >> k) palette
 * indices whole at ofs[k] (k = 0..3). Returns the four levels' bytes, or 0 when it is not
 * such a file (nothing is read outside data either way). */
#define MDL_WAL_HEADER 100
#define MDL_WAL_MAX_SIDE 2048
size_t mdl_wal_check(const uint8_t *data, size_t len, uint32_t *w, uint32_t *h,
                     uint32_t ofs[4]);

/* ---- Quake III shader scripts (mdl_shader.c) ---- */

#define MDL_SHADER_MAX 65536      /* shaders in one set */
#define MDL_SHADER_MAX_TCMODS 4   /* tcMods kept per stage */

/* MDL_BLEND_MODADD: GL_DST_COLOR GL_ONE, what is behind brightened by the texel (old +
 * old x texel: water's and lava's sheets). MDL_BLEND_MOD2X: GL_DST_COLOR GL_SRC_COLOR, the
 * old times twice the texel, clamped (128 grey leaves it as it is: OpenArena's bullet
 * mark, its maps' detail stages) */
enum { MDL_BLEND_NONE, MDL_BLEND_ADD, MDL_BLEND_FILTER, MDL_BLEND_ALPHA, MDL_BLEND_MODADD,
       MDL_BLEND_MOD2X };
/* GL_ZERO GL_ONE_MINUS_SRC_COLOR (the old * (1 - texel): Quake III's burn and hole marks)
 * is a filter by the inverted image, exactly; GL_SRC_ALPHA GL_ONE (the old + texel x its
 * alpha: OpenArena's health spheres) an add of the image premultiplied by its alpha. */
enum { MDL_BLENDTEX_NONE, MDL_BLENDTEX_INVERT, MDL_BLENDTEX_PREMUL };
enum { MDL_ALPHA_NONE, MDL_ALPHA_GT0, MDL_ALPHA_LT128, MDL_ALPHA_GE128 };
enum { MDL_RGBGEN_DEFAULT, MDL_RGBGEN_IDENTITY, MDL_RGBGEN_VERTEX, MDL_RGBGEN_WAVE,
       MDL_RGBGEN_CONST };
enum { MDL_TCMOD_SCROLL = 1, MDL_TCMOD_SCALE, MDL_TCMOD_ROTATE, MDL_TCMOD_TURB,
       MDL_TCMOD_STRETCH };
enum { MDL_WAVE_NONE, MDL_WAVE_SIN, MDL_WAVE_TRIANGLE, MDL_WAVE_SQUARE, MDL_WAVE_SAWTOOTH,
       MDL_WAVE_INVSAWTOOTH, MDL_WAVE_NOISE };

/* mdl_shader.flags */
#define MDL_SHADER_SKY 0x01      /* surfaceparm sky */
#define MDL_SHADER_NODRAW 0x02   /* surfaceparm nodraw */
#define MDL_SHADER_LIGHTMAP 0x04 /* a stage maps $lightmap */
#define MDL_SHADER_TRANS 0x08    /* surfaceparm trans */
#define MDL_SHADER_TWOSIDED 0x10 /* cull none / twosided / disable */
#define MDL_SHADER_PORTAL 0x20   /* portal: a view from a portal camera shows on it (a mirror
                                  * when there is no camera) */
#define MDL_SHADER_FOG 0x40      /* fogParms: a fog volume's (fog_color, fog_depth) */

typedef struct mdl_wave {
    uint8_t func; /* MDL_WAVE_* */
    float base, amp, phase, freq;
} mdl_wave;

typedef struct mdl_tcmod {
    uint8_t type; /* MDL_TCMOD_* */
    float p[2];   /* scroll: s, t per second; scale: s, t; rotate: degrees per second */
    mdl_wave wave; /* turb (base amplitude phase frequency), stretch */
} mdl_tcmod;

/* animMap's most frames (ioq3 tr_local.h MAX_IMAGE_ANIMATIONS; ParseStage keeps the
 * first eight it names) */
#define MDL_ANIM_FRAMES 8

typedef struct mdl_stage {
    char image[64];     /* map / clampmap / animMap's first frame; "" none */
    uint8_t anim_frames; /* animMap: its frames (image, then anim[0..]); 0 or 1: a still */
    float anim_freq;     /* animMap: frames a second */
    char anim[MDL_ANIM_FRAMES - 1][64]; /* animMap: the frames after the first */
    uint8_t lightmap;   /* map $lightmap */
    uint8_t clamp;      /* clampmap */
    uint8_t blend;      /* MDL_BLEND_* */
    uint8_t alpha_func; /* MDL_ALPHA_* */
    uint8_t rgbgen;     /* MDL_RGBGEN_* */
    uint8_t env;        /* tcGen environment */
    uint8_t one_minus;  /* rgbGen oneMinusVertex (rgbgen MDL_RGBGEN_VERTEX): 1 - the vertex
                         * colour (ioq3 CGEN_ONE_MINUS_VERTEX) */
    uint8_t blend_exact; /* blend is exactly the blendFunc (add, filter, blend or their
                          * GL pairs), not the nearest of the three */
    uint8_t alphagen;   /* an alphaGen of any kind (only alphaGen wave is drawn: alphawave) */
    mdl_wave alphawave; /* alphaGen wave (func 0: none or another kind) */
    uint8_t alpha_portal; /* alphaGen portal: alpha from the distance, 1 at portal_range */
    float portal_range;
    uint8_t blend_tex;  /* MDL_BLENDTEX_*: the image made over so that blend (a filter)
                         * draws the blendFunc's pair */
    uint8_t lit_map;    /* a layer after the first with a $lightmap stage after it (the
                         * lightmap multiplies it too) */
    uint8_t num_tcmods;
    mdl_wave rgbwave;
    float rgbconst[3];  /* rgbGen const ( r g b ), 0..1 */
    mdl_tcmod tcmods[MDL_SHADER_MAX_TCMODS];
} mdl_stage;

typedef struct mdl_shader {
    char name[64];
    uint32_t flags;   /* MDL_SHADER_* */
    uint8_t blend;    /* the first stage's blend: how the surface meets what is behind */
    mdl_stage stage;  /* the first stage with an image */
    /* the next stage with an image that blends over it exactly as qdemo draws (add,
     * filter, or blend by the texture's own alpha: a glow, a shine, a liquid's second
     * layer); image "" none */
    mdl_stage stage2;
    uint8_t stage2_lit; /* a $lightmap stage follows stage2: the lightmap multiplies it too */
    uint8_t lightmap_last; /* the last stage maps $lightmap */
    uint8_t lightmap_blend; /* the last $lightmap stage's blend (MDL_BLEND_*) */
    /* the next four stages after stage2 that blend as exactly (image "" none): the first two
     * drawn on surfaces and models, all four on the explosions' sprites (r_q3_explosions:
     * OpenArena's rocketExplosion has six stages); a portal's (flags MDL_SHADER_PORTAL)
     * stage of alphaGen portal and the one after it */
    mdl_stage more[4];
    char sky[64];     /* skyParms farbox: images sky + _rt _bk _lf _ft _up _dn; "" none */
    float cloud_height; /* skyParms cloud height as written (0: none, or not a number) */
    float fog_color[3];  /* fogParms ( r g b ), 0..1, and the depth at which it is opaque */
    float fog_depth;
    float deform_div; /* deformVertexes wave: spread, and the wave (func 0: none) */
    mdl_wave deform;
    float deform2_div; /* a second deformVertexes wave, applied after the first (OpenArena's
                        * flags: a slow wide wave and a quick small one) */
    mdl_wave deform2;
    uint8_t autosprite; /* deformVertexes autosprite: each quad turned to face the eye */
    float move[3];      /* deformVertexes move: every vertex moved by move x the wave */
    mdl_wave move_wave; /* (func 0: none) */
    uint32_t order;
    uint32_t file;      /* which mdl_shader_parse call of its set read it (0, 1, ...) */
} mdl_shader;

/* Every shader of a game's scripts: fill with mdl_shader_parse, file after file. */
typedef struct mdl_shader_set {
    uint32_t count, cap;
    mdl_shader *list;
    int sorted;
    uint32_t files;      /* mdl_shader_parse calls so far */
    uint64_t text_bytes; /* their texts' bytes (MDL_SHADER_TEXT_PER) */
} mdl_shader_set;

/* Shaders a set may hold: 4,096, and one more for each MDL_SHADER_TEXT_PER bytes of the
 * scripts read (up to MDL_SHADER_MAX). A shader takes 4.6 KB here and "a {}" 5 bytes of a
 * script: a 458 KB script of empty shaders made 287 MB (found by a review); real ones are
 * hundreds of bytes a shader (OpenArena: 2,223 in 104 scripts). */
#define MDL_SHADER_TEXT_PER 64

/* Add the shaders of one script text (len bytes, need not be terminated; file names it in
 * messages) to set. Total: a damaged script keeps the shaders read before the damage and
 * returns the error (offset and reason); QD_ERR_LIMIT past the shaders the set may hold. */
qd_err mdl_shader_parse(mdl_shader_set *set, const char *text, size_t len, const char *file,
                        qd_error *err);
/* The shader named name (case-insensitive), NULL when none: of the definitions in the
 * last script read that has one, the first (ioq3 takes the first in its scripts' text,
 * which it joins in the reverse of the order they are listed: r_list_fn). Sorts set on
 * first use after a parse (not thread-safe against a parse). */
const mdl_shader *mdl_shader_find(mdl_shader_set *set, const char *name);
void mdl_shader_set_clear(mdl_shader_set *set);

/* ---- Palette ---- */

/* Turn a Quake gfx/palette.lmp (768 bytes of R,G,B) into 256 packed colours. Returns 1 on
 * success; with fewer than 768 bytes it returns 0 and fills out with mdl_palette_grey(). */
int mdl_palette_from_lmp(const uint8_t *data, size_t len, uint32_t out[256]);
/* A 256-step grey ramp, the last resort when no palette at all is available (the shipped
 * fallback palette is assets/palette.lmp; see assets/palette.txt). */
void mdl_palette_grey(uint32_t out[256]);

/* ---- Maps (BSP) ---- */

/* Caps on what a map may hold. A file over a cap is refused with QD_ERR_LIMIT. */
#define MDL_BSP_MAX_RECORDS (1u << 22) /* per lump: planes, vertices, edges, faces, ... */
#define MDL_BSP_MAX_TEXTURES 65536
#define MDL_BSP_MAX_MODELS 65536
#define MDL_BSP_MAX_FACE_VERTS 1024 /* edges of one face */
#define MDL_BSP_MAX_DEPTH 1024      /* nodes from a model's root to its deepest leaf */
#define MDL_BSP_MAX_ENTITIES_TEXT (16u << 20)
#define MDL_BSP_MAX_TEX_SIZE 4096 /* texture width and height */

typedef enum mdl_bsp_format {
    MDL_BSP_Q1_29,     /* Quake BSP version 29 */
    MDL_BSP_Q1_BSP2,   /* "BSP2": 32-bit indices, float node/leaf bounds */
    MDL_BSP_Q1_2PSB,   /* "2PSB" (BSP2 of RMQ): 32-bit indices, short node/leaf bounds */
    MDL_BSP_Q2_38,     /* Quake II "IBSP" version 38 (mdl_bsp38.c) */
    MDL_BSP_Q3_46,     /* Quake III / OpenArena "IBSP" version 46 (mdl_bsp46.c) */
} mdl_bsp_format;

typedef struct mdl_plane {
    float normal[3];
    float dist;    /* points p on the plane have dot(normal, p) == dist */
    int32_t type;  /* 0..2: normal is the X/Y/Z axis; 3..5: nearest axis (Quake's PLANE_*) */
} mdl_plane;

/* mdl_texture.flags and mdl_face.flags */
#define MDL_SURF_SKY 0x01        /* drawn in the sky's colour, unlit */
#define MDL_SURF_TURB 0x02       /* water, slime, lava, teleporters: unlit */
#define MDL_SURF_NODRAW 0x04     /* never drawn (degenerate, or a no-draw surface) */
#define MDL_SURF_FULLBRIGHT 0x08 /* no lightmap applies: draw at the texture's colour */
#define MDL_SURF_MISSING 0x10    /* texture pixels absent: colour is a neutral grey */
/* Quake II's SURF_FLOWING, SURF_TRANS33, SURF_TRANS66 (yquake2 files.h): a texture that
 * scrolls along s; a surface drawn unlit over what is behind it at alpha 0.33 or 0.66 */
#define MDL_SURF_FLOWING 0x20
#define MDL_SURF_TRANS33 0x40
#define MDL_SURF_TRANS66 0x80
#define MDL_SURF_TRANS (MDL_SURF_TRANS33 | MDL_SURF_TRANS66)

typedef struct mdl_texture {
    char name[64];         /* Q1: 15 chars; Q2: 32; Q3 shader names: 64 */
    uint32_t width, height;
    uint32_t color;        /* average colour of mip level 0 through the palette */
    uint8_t flags;         /* MDL_SURF_* */
    /* Q1: palette indices of mip level k ((width >> k) x (height >> k)) inside
     * mdl_bsp.texdata, or NULL when the file does not hold it (then the levels below are
     * used, and without level 0 the face is flat). */
    const uint8_t *mips[4];
    /* Q1 animated textures (Mod_LoadTextures): "+0name".."+9name" cycle every 0.2 s,
     * "+aname".."+jname" are the alternate cycle a brush entity's frame 1 selects. anim[0] is
     * the cycle's first texture, anim_count its length (0: not animated); alt likewise.
     * Q2 (a texinfo's nexttexinfo chain, yquake2 Mod_LoadTexinfo): anim_first is the texinfo
     * itself, anim_count the chain's length back to it or to its end, anim_next the next. */
    int32_t anim_first, alt_first, anim_next; /* anim_next: the next frame of its own cycle */
    uint8_t anim_count, alt_count;
    uint8_t nomarks;       /* Q3: SURF_NOIMPACT or SURF_NOMARKS, or fog: takes no wall marks */
    uint8_t fog;           /* Q3: CONTENTS_FOG (a fog volume's side: no-draw unless its shader
                            * has stages, as lava's: the renderer's to decide) */
} mdl_texture;

/* A face: one convex polygon in one colour. Q1/Q2/Q3 maps all become these. */
typedef struct mdl_face {
    uint32_t first_vert, num_verts; /* the polygon in mdl_bsp.verts, in winding order */
    float normal[3], dist;          /* the face's own plane, its normal out of the drawn side */
    uint32_t color;                 /* the texture's average colour */
    float light;       /* average lightmap brightness, 0..255; in Quake 128 shows the texture
                        * at its own colour and 255 about twice as bright (r_view.c r_shade) */
    int32_t texture;   /* index in textures, or -1 */
    uint8_t flags;     /* MDL_SURF_* */
    uint8_t q3_type;   /* Q3: the surface the triangle came from, MDL_Q3_PLANAR, _PATCH or
                        * _SOUP; 0 in other formats */
    uint8_t pad[2];
} mdl_face;
enum { MDL_Q3_PLANAR = 1, MDL_Q3_PATCH, MDL_Q3_SOUP };

/* How a face maps onto its lightmap (Q1, Q2): what R_LightPoint needs. */
typedef struct mdl_face_lm {
    float vecs[2][4];    /* s = dot(vecs[0].xyz, p) + vecs[0][3], t likewise */
    int32_t mins[2];     /* texturemins: s, t of the lightmap's first luxel (multiples of 16) */
    int32_t extents[2];  /* lightmap size in texels; luxels are (extents >> 4) + 1 */
    int32_t ofs;         /* first sample of the face's first light style in lightdata, or -1 */
    uint8_t styles[4];   /* light style of each lightmap; num_styles of them are usable */
    uint8_t num_styles;  /* lightmaps at ofs, one after another, all inside lightdata */
    uint8_t pad[3];
} mdl_face_lm;

/* How a Quake III triangle is textured and lit (mdl_bsp.face_q3, one per face). */
typedef struct mdl_face_q3 {
    float st[3][2];     /* texture coordinates of the corners (1.0: once across the image) */
    float lm[3][2];     /* lightmap coordinates of the corners on their page (0..1) */
    uint8_t rgba[3][4]; /* vertex colours as the file holds them */
    int32_t lightmap;   /* page in mdl_bsp.lightmaps, or -1: lit by the vertex colours */
    int32_t fog;        /* its surface's fog volume in mdl_bsp.fogs, or -1: none */
} mdl_face_q3;

/* A Quake III fog volume (dfog_t, ioq3 tr_bsp.c R_LoadFogs): its shader (whose fogparms
 * give the colour and the depth at which the fog is opaque) and the plane of the brush
 * side the fog is seen through (its outward normal: a point is in the fog below it), or
 * none (has_surface 0: the fog is everywhere its surfaces are). */
#define MDL_BSP_MAX_FOGS 256 /* q3map's MAX_MAP_FOGS */
typedef struct mdl_fog {
    char shader[64];
    uint8_t has_surface;
    float normal[3], dist;
    uint8_t has_bounds;      /* its brush's box (its first six sides, the axial ones) */
    float mins[3], maxs[3];
} mdl_fog;

typedef struct mdl_node {
    uint32_t plane;
    int32_t children[2];  /* >= 0: node index; < 0: leaf -(child + 1). [0] is the front */
    float mins[3], maxs[3];
    uint32_t first_face, num_faces; /* faces on this node's plane */
} mdl_node;

/* Leaf contents (Quake's CONTENTS_*) */
#define MDL_CONTENTS_EMPTY (-1)
#define MDL_CONTENTS_SOLID (-2)
#define MDL_CONTENTS_WATER (-3)
#define MDL_CONTENTS_SLIME (-4)
#define MDL_CONTENTS_LAVA (-5)
#define MDL_CONTENTS_SKY (-6)

typedef struct mdl_leaf {
    int32_t contents;
    int32_t visofs;       /* Q1: compressed PVS in mdl_bsp.visdata, or -1: sees everything */
    int32_t cluster;      /* Q2/Q3: PVS cluster (< mdl_bsp.num_clusters), or -1: never seen */
    int32_t area;         /* Q2/Q3: the area of the leaf; Q1: 0 */
    float mins[3], maxs[3];
    uint32_t first_mark, num_marks; /* faces in mdl_bsp.marks */
    uint8_t ambient[4];   /* Q1: the ambient sound levels (water, sky, slime, lava), 0..255 */
} mdl_leaf;

/* Model 0 is the world; *1, *2, ... are the brush entities (doors, lifts). */
typedef struct mdl_submodel {
    float mins[3], maxs[3], origin[3];
    int32_t headnode;     /* hull 0 root: a node index */
    uint32_t visleafs;    /* leaves covered by the PVS rows (world only) */
    uint32_t first_face, num_faces;
} mdl_submodel;

typedef struct mdl_bsp {
    char name[64];
    mdl_bsp_format format;
    uint32_t num_planes, num_verts, num_faces, num_textures, num_nodes, num_leaves,
        num_marks, num_models;
    mdl_plane *planes;
    float (*verts)[3];        /* face polygon corners (one per surfedge; Q3: 3 a triangle) */
    mdl_face *faces;
    mdl_face_lm *face_lm;     /* num_faces entries */
    mdl_texture *textures;    /* Q1: the miptex lump; Q2: one per texinfo; Q3: per shader */
    mdl_node *nodes;
    mdl_leaf *leaves;         /* leaf 0 is Quake's shared solid leaf */
    uint32_t *marks;          /* face indices for leaves */
    mdl_submodel *models;
    uint8_t *visdata;         /* compressed PVS rows */
    size_t vis_len;
    uint8_t *lightdata;       /* 8-bit lightmap samples (Q2: R, G, B triples; Q3: none) */
    uint8_t *texdata;         /* Q1: the miptex lump, which mdl_texture.mips point into */
    size_t light_len;
    /* Q2/Q3 only: the PVS is stored per cluster. Row c starts at visdata + cluster_ofs[c]
     * (UINT32_MAX: no row), run-length compressed as Q1's (Q2) or plain bits (Q3). Without
     * clusters (num_clusters 0) every leaf sees everything. Leaves are shifted by one so
     * that leaf 0 stays the shared solid leaf: file leaf i is leaves[i + 1]. */
    uint32_t num_clusters;
    uint32_t *cluster_ofs;
    uint8_t light_rgb;        /* lightdata holds R, G, B triples (Q2) */
    uint8_t pad[3];
    uint8_t *lightgrid;       /* Q3: ambient RGB, directed RGB, 2 direction bytes per cell */
    uint32_t grid_dims[3];    /* Q3: cells along x, y, z; 0 without a usable grid */
    float grid_origin[3];     /* Q3: the sample point of cell (0, 0, 0) */
    float grid_size[3];       /* Q3: cell size, 64 64 128 unless worldspawn "gridsize" */
    mdl_face_q3 *face_q3;     /* Q3: num_faces entries; NULL for other formats */
    mdl_fog *fogs;            /* Q3: the fog volumes (num_fogs) */
    uint32_t num_fogs;
    uint8_t *lightmaps;       /* Q3: num_lightmaps pages of 128x128 R, G, B bytes */
    uint32_t num_lightmaps;
    char *entities;           /* the entities lump as text, NUL-terminated */
    char message[128];        /* worldspawn "message": the level's title, or "" */
    uint8_t names_only;       /* mdl_bsp_load_names: a Quake III map's faces hold only their
                               * texture and flags */
} mdl_bsp;

/* Parse a Quake BSP29, BSP2 or 2PSB map, a Quake II IBSP 38 or a Quake III IBSP 46 map
 * (chosen by the magic). name is for messages. palette gives the texture
 * colours. Bytes after the last lump (e.g. an appended zip) are ignored. On failure returns
 * the error (err filled with the offset and reason) and leaves *out NULL. */
qd_err mdl_bsp_load(const uint8_t *data, size_t len, const char *name,
                    const uint32_t palette[256], mdl_bsp **out, qd_error *err);
/* mdl_bsp_load for naming what a map draws (`info`): a Quake III map's faces (one per
 * triangle, as mdl_bsp_load makes them) hold only their texture and flags, without corners,
 * lightmaps, light grid or visibility; other formats load whole. Not for drawing. */
qd_err mdl_bsp_load_names(const uint8_t *data, size_t len, const char *name, mdl_bsp **out,
                          qd_error *err);
void mdl_bsp_free(mdl_bsp *b);

/* The leaf containing point p, walking from the node root (a submodel's headnode, 0 for the
 * world). Never fails: returns a valid leaf index. */
uint32_t mdl_bsp_point_leaf(const mdl_bsp *b, int32_t root, const float p[3]);

/* Bytes of one decompressed PVS row: (world visleafs + 7) / 8, at least 1. */
size_t mdl_bsp_pvs_size(const mdl_bsp *b);
/* Decompress the PVS of leaf into out (mdl_bsp_pvs_size bytes): bit (i-1) set means leaf i
 * may be seen. Leaf 0, leaves without vis data and maps without vis see everything. Bounded:
 * never reads past visdata, never writes past the row. */
void mdl_bsp_pvs(const mdl_bsp *b, uint32_t leaf, uint8_t *out);

/* Quake's R_LightPoint: the light of the floor under p, found by tracing 2048 units down
 * through the world: the sum of its lightmaps' samples there, each times its style's value
 * in style[] (MDL_LIGHT_STYLES of them, 256 the normal light; NULL: 256 for each), / 256.
 * Returns 0 and sets *light to 0 when nothing lit is hit; maps without lighting give 255
 * (fullbright) and return 1. Quake II maps trace the same way through their RGB lightmaps
 * (the mean of R, G, B). Quake III maps read the light grid at p (ambient plus directed, as
 * R_LightForPoint) and give 128 without a grid or outside it. */
#define MDL_LIGHT_STYLES 64 /* style values a caller gives: Quake's MAX_LIGHTSTYLES */
int mdl_bsp_light_point(const mdl_bsp *b, const float p[3], const int *style, float *light);

/* The value of key in the nth (0-based) entity whose "classname" is classname (NULL: any
 * entity) in an entities text, copied into out (always terminated). Returns 1 when found. */
int mdl_entity_value(const char *entities, const char *classname, int nth, const char *key,
                     char *out, size_t cap);

/* ---- Alias models (MDL, IDPO version 6) ---- */

#define MDL_ALIAS_MAX_VERTS 16384
#define MDL_ALIAS_MAX_TRIS 32768
#define MDL_ALIAS_MAX_FRAMES 4096   /* frames and frame groups, and poses in all groups */
#define MDL_ALIAS_MAX_SKINS 256
#define MDL_ALIAS_MAX_SKIN_SIZE 2048 /* skin width and height */

typedef struct mdl_alias_tri {
    uint32_t v[3];
    uint8_t front;  /* facesfront: 0 means the back half of the skin for onseam vertices */
    uint8_t pad[3];
} mdl_alias_tri;

typedef struct mdl_alias_st {
    int32_t s, t;
    uint8_t onseam;
    uint8_t pad[3];
} mdl_alias_st;

/* One animation frame as the entity's frame number sees it: a single pose, or a group of
 * poses that the engine cycles by time (mdl_alias_pose). */
typedef struct mdl_alias_frame {
    char name[16];
    uint32_t first_pose, num_poses;
    float mins[3], maxs[3]; /* bounds of the first pose */
} mdl_alias_frame;

typedef struct mdl_alias {
    char name[64];
    uint32_t num_verts, num_tris, num_frames, num_poses, num_skins;
    uint32_t skin_width, skin_height;
    uint32_t flags;          /* EF_ROCKET, EF_ROTATE, ... of the model header */
    float radius;
    mdl_alias_tri *tris;
    mdl_alias_st *st;
    mdl_alias_frame *frames;
    float (*poses)[3];       /* num_poses * num_verts positions, scale/translate applied */
    uint8_t *normals;        /* num_poses * num_verts lightnormalindex bytes */
    float *pose_end;         /* per pose of a group: its end in the group's cycle (s), growing;
                              * 0 for a single frame's pose */
    uint32_t *skin_colors;   /* average colour of each skin (first picture of a group) */
    uint8_t *skin0;          /* every skin's (first) picture as palette indices, skin i at
                              * skin0 + i * skin_width * skin_height */
    uint32_t color;          /* skin_colors[0], or grey without skins */
    uint8_t *skin_more;      /* the later pictures of skin groups, one after another */
    struct mdl_alias_skingroup {
        uint32_t num;        /* pictures of the skin (1: a single skin) */
        uint32_t more;       /* its picture j >= 1 is skin_more picture more + j - 1 */
        uint32_t first;      /* its pictures' end times start at skin_end[first] */
    } *skin_groups;          /* num_skins entries */
    float *skin_end;         /* per picture of a group: its end in the group's cycle (s) */
} mdl_alias;
typedef struct mdl_alias_skingroup mdl_alias_skingroup;

/* The picture skin (out of range: skin 0) shows at time t (R_AliasSetupSkin: a skin group
 * runs through its pictures by their intervals, over and over); NULL without skins. */
const uint8_t *mdl_alias_skin(const mdl_alias *m, uint32_t skin, double t);

/* The pose frame f shows at time t (R_AliasSetupFrame: a group runs through its poses by
 * their intervals, over and over); out-of-range f is frame 0. */
uint32_t mdl_alias_pose(const mdl_alias *m, uint32_t f, double t);

/* Parse a Quake MDL (IDPO version 6). Errors as mdl_bsp_load. */
qd_err mdl_alias_load(const uint8_t *data, size_t len, const char *name,
                      const uint32_t palette[256], mdl_alias **out, qd_error *err);
void mdl_alias_free(mdl_alias *m);

/* ---- Sprites (SPR, IDSP version 1) ---- */

#define MDL_SPRITE_MAX_FRAMES 4096 /* frames, and pictures in all groups */
#define MDL_SPRITE_MAX_SIZE 4096   /* picture width and height */

/* Quake's sprite orientations (spr_type) */
#define MDL_SPR_VP_PARALLEL_UPRIGHT 0
#define MDL_SPR_FACING_UPRIGHT 1
#define MDL_SPR_VP_PARALLEL 2
#define MDL_SPR_ORIENTED 3
#define MDL_SPR_VP_PARALLEL_ORIENTED 4

/* A picture as a quad in the sprite's plane, in units from the entity's origin (Quake's
 * mspriteframe_t): right is +x, up is +z on screen. */
typedef struct mdl_sprite_frame {
    uint32_t width, height;
    float left, right, down, up;
    uint32_t color;  /* average of the opaque pixels (index 255 is transparent) */
    float coverage;  /* fraction of opaque pixels, 0..1 */
    uint8_t *pixels; /* the (first) picture: width * height palette indices, 255 see-through */
} mdl_sprite_frame;

typedef struct mdl_sprite {
    char name[64];
    int32_t type;            /* MDL_SPR_* */
    float radius;
    uint32_t max_width, max_height;
    uint32_t num_frames;     /* the entity's frame numbers; a group shows its first picture */
    mdl_sprite_frame *frames;
    uint32_t color;          /* frames[0].color */
    uint32_t *palette;       /* SP2: the first picture's own palette (256); NULL: the game's */
} mdl_sprite;

/* Parse a Quake sprite (IDSP version 1). Errors as mdl_bsp_load. */
qd_err mdl_sprite_load(const uint8_t *data, size_t len, const char *name,
                       const uint32_t palette[256], mdl_sprite **out, qd_error *err);
void mdl_sprite_free(mdl_sprite *s);

/* Parse a Quake II sprite (IDS2 version 2): its frames' PCX pictures are read through read
 * (a missing or damaged picture leaves its frame flat grey, not an error); drawn facing
 * the view, index 255 see-through. Each picture costs its file's bytes and its pixels,
 * from MDL_PICTURES_MAX_PIXELS for the sprite and from *room (NULL: none; the level's room
 * for pictures, which a picture past it leaves unread or undecoded, as one not there); a
 * frame naming the picture of an earlier frame copies its pixels (one read). A picture
 * there but damaged is said in *aside (NULL: not) when it holds no error yet. Errors as
 * mdl_bsp_load. */
qd_err mdl_sp2_load(const uint8_t *data, size_t len, const char *name, mdl_read_fn read,
                    void *ctx, uint64_t *room, qd_error *aside, mdl_sprite **out,
                    qd_error *err);

/* ---- Picture archives (WAD2, gfx.wad) ---- */

#define MDL_WAD_MAX_LUMPS 65536
#define MDL_WAD_MAX_PIC 4096 /* picture width and height */

/* A picture: width x height palette indices (qpic; index 255 is see-through where Quake draws
 * it transparent), or the raw 128x128 conchars (index 0 see-through). */
typedef struct mdl_pic {
    char name[16];
    uint32_t width, height;
    const uint8_t *pixels; /* inside mdl_wad.data */
} mdl_pic;

typedef struct mdl_wad {
    uint8_t *data;        /* a copy of the file */
    uint32_t num_pics;
    mdl_pic *pics;        /* the usable lumps: qpics and conchars */
    uint32_t *order;      /* pics' indexes by name (case folded), then by index: mdl_wad_pic
                           * searches it (a review: a scan of 65,000 lumps a picture, 32
                           * pictures a frame, made the status bar 5x slower) */
} mdl_wad;

/* Parse a WAD2 file: the directory must lie inside the file; a lump that does not (or a
 * compressed one, or a picture whose pixels run past its lump) is left out, not an error. */
qd_err mdl_wad_load(const uint8_t *data, size_t len, const char *name, mdl_wad **out,
                    qd_error *err);
/* The picture of that name (case-insensitive), or NULL. */
const mdl_pic *mdl_wad_pic(const mdl_wad *w, const char *name);
void mdl_wad_free(mdl_wad *w);

/* ---- Quake III models (MD3, IDP3 version 15) ---- */

#define MDL_MD3_MAX_FRAMES 1024  /* ioq3 qfiles.h MD3_MAX_FRAMES */
#define MDL_MD3_MAX_TAGS 16
#define MDL_MD3_MAX_SURFACES 32
#define MDL_MD3_MAX_VERTS 4096   /* per surface */
#define MDL_MD3_MAX_TRIS 8192
#define MDL_MD3_MAX_SHADERS 256

typedef struct mdl_md3_frame {
    float mins[3], maxs[3], origin[3];
    float radius;
    char name[16];
} mdl_md3_frame;

/* Where another model attaches in one frame: its origin and axes in this model's frame. */
typedef struct mdl_md3_tag {
    char name[64];        /* "tag_torso", "tag_head", "tag_weapon", ... */
    float origin[3];
    float axis[3][3];
} mdl_md3_tag;

typedef struct mdl_md3_surface {
    char name[64];
    char shader[64];      /* the first shader's name, or "" */
    uint32_t num_verts, num_tris;
    uint32_t (*tris)[3];  /* vertex indices, each < num_verts */
    float (*st)[2];       /* texture coordinates per vertex */
    float (*xyz)[3];      /* num_frames * num_verts positions (units) */
    float (*normal)[3];   /* num_frames * num_verts unit normals */
    float (*box)[2][3];   /* num_frames: the least box (mins, maxs) of each frame's positions,
                           * made from them here (the file's frame bounds are not trusted) */
} mdl_md3_surface;

typedef struct mdl_md3 {
    char name[64];
    uint32_t num_frames, num_tags, num_surfaces;
    mdl_md3_frame *frames;
    mdl_md3_tag *tags;    /* num_frames * num_tags, frame by frame */
    mdl_md3_surface *surfaces;
} mdl_md3;

/* Parse an MD3. Every count is capped, every offset and index checked; non-finite numbers
 * become 0. Errors as mdl_bsp_load. */
qd_err mdl_md3_load(const uint8_t *data, size_t len, const char *name, mdl_md3 **out,
                    qd_error *err);
/* The tag of that name in frame (out of range: frame 0), or NULL. */
const mdl_md3_tag *mdl_md3_tag_at(const mdl_md3 *m, uint32_t frame, const char *name);
void mdl_md3_free(mdl_md3 *m);

/* ---- Quake III players: animation.cfg and .skin files (mdl_player.c) ---- */

/* bg_public.h animNumber_t: the file's 31 animations, then 5 that cgame derives itself */
enum { MDL_ANIM_BOTH_DEATH1, MDL_ANIM_BOTH_DEAD1, MDL_ANIM_BOTH_DEATH2, MDL_ANIM_BOTH_DEAD2,
       MDL_ANIM_BOTH_DEATH3, MDL_ANIM_BOTH_DEAD3, MDL_ANIM_TORSO_GESTURE,
       MDL_ANIM_TORSO_ATTACK, MDL_ANIM_TORSO_ATTACK2, MDL_ANIM_TORSO_DROP,
       MDL_ANIM_TORSO_RAISE, MDL_ANIM_TORSO_STAND, MDL_ANIM_TORSO_STAND2,
       MDL_ANIM_LEGS_WALKCR, MDL_ANIM_LEGS_WALK, MDL_ANIM_LEGS_RUN, MDL_ANIM_LEGS_BACK,
       MDL_ANIM_LEGS_SWIM, MDL_ANIM_LEGS_JUMP, MDL_ANIM_LEGS_LAND, MDL_ANIM_LEGS_JUMPB,
       MDL_ANIM_LEGS_LANDB, MDL_ANIM_LEGS_IDLE, MDL_ANIM_LEGS_IDLECR, MDL_ANIM_LEGS_TURN,
       MDL_ANIM_TORSO_GETFLAG, MDL_ANIM_TORSO_NEGATIVE = 30, MDL_ANIM_FILE_COUNT,
       MDL_ANIM_LEGS_BACKCR = MDL_ANIM_FILE_COUNT, MDL_ANIM_LEGS_BACKWALK, MDL_ANIM_FLAG_RUN,
       MDL_ANIM_FLAG_STAND, MDL_ANIM_FLAG_STAND2RUN, MDL_ANIM_COUNT };

#define MDL_PLAYER_MAX_FILE (64u << 10) /* bytes of an animation.cfg or a .skin */

typedef struct mdl_anim {
    uint32_t first, num, loop; /* frames of the model (legs ones already shifted down) */
    float fps;                 /* > 0 */
    uint8_t reversed;
    uint8_t pad[3];
} mdl_anim;

/* Parse a player's animation.cfg as cgame's CG_ParseAnimationFile (cg_players.c): optional
 * keywords (footsteps, headoffset, sex, fixedlegs, fixedtorso), then first frame, frame
 * count (negative: reversed), looping frames and fps of each animation in animNumber_t
 * order; the team gestures (TORSO_GETFLAG..NEGATIVE) may be left out (they copy
 * TORSO_GESTURE). The legs-only animations (LEGS_WALKCR on) are shifted down by
 * LEGS_WALKCR's first frame less TORSO_GESTURE's: lower.md3 lacks the torso-only frames.
 * Numbers are bounded (frames by MDL_MD3_MAX_FRAMES, fps to (0, 1000]: 0 or less is 1, as
 * cgame's). Errors (with the offset): too long, an animation missing or not a number. out
 * is filled either way. */
qd_err mdl_anims_parse(const char *text, size_t len, const char *name,
                       mdl_anim out[MDL_ANIM_COUNT], qd_error *err);

/* The files cgame tries, in its order, for a player's skin slot named as its first try:
 * "models/players/M/P_S_T.skin" (a body part) or "models/players/H/S/head_T.skin" (a head),
 * T one of default, red, blue (mdl_player.c says the order and its source). Writes up to
 * max paths (max >= 4) and returns how many; 0 when the name is neither form. */
int mdl_player_skin_paths(const char *name, char (*out)[64], int max);
/* The same slot's name for cgame's fallback player model (its DEFAULT_MODEL, "sarge"):
 * skin "default" outside team games, the same skin in them. 0 when name is neither form. */
int mdl_player_fallback_skin(const char *name, const char *model, char out[64]);

/* The frames of animation a after elapsed seconds from its start (cg_players.c
 * CG_RunLerpFrame made a function of time): f0 shows, f1 comes next and lerp (0..1) is how
 * far between. Past the end a looping animation repeats its last loop frames; one that
 * does not loop holds its last frame. elapsed < 0 counts as 0. */
void mdl_anim_frames(const mdl_anim *a, double elapsed, uint32_t *f0, uint32_t *f1,
                     float *lerp);

/* Apply a .skin file (lines "surface,shader"; "tag_" lines ignored, as ioq3's
 * RE_RegisterSkin) to m's surfaces: shaders[i] (m->num_surfaces entries, the caller's) takes
 * the shader the file names for surface i and is left as it is for a surface it does not
 * name. Bounded: at most MDL_PLAYER_MAX_FILE bytes, names over 63 bytes are refused with
 * the offset (the lines before it applied). */
qd_err mdl_md3_skin(const mdl_md3 *m, char (*shaders)[64], const char *text, size_t len,
                    const char *name, qd_error *err);

/* ---- Quake II models (MD2, IDP2 version 8) ---- */

#define MDL_MD2_MAX_SKINS 32    /* yquake2 files.h MAX_MD2SKINS */
#define MDL_MD2_MAX_VERTS 2048
#define MDL_MD2_MAX_TRIS 4096
#define MDL_MD2_MAX_FRAMES 512

typedef struct mdl_md2_tri {
    uint16_t v[3];  /* position indices, each < num_verts */
    uint16_t st[3]; /* texture coordinate indices, each < num_st */
} mdl_md2_tri;

typedef struct mdl_md2_frame {
    char name[16];
} mdl_md2_frame;

typedef struct mdl_md2 {
    uint32_t skin_width, skin_height;
    uint32_t num_skins, num_verts, num_st, num_tris, num_frames;
    char (*skins)[64];      /* skin picture names ("players/male/grunt.pcx") */
    int16_t (*st)[2];       /* texture coordinates in skin pixels */
    mdl_md2_tri *tris;
    mdl_md2_frame *frames;
    float (*poses)[3];      /* num_frames * num_verts positions, scale and translate applied */
    uint8_t *normals;       /* num_frames * num_verts lightnormalindex bytes */
} mdl_md2;

/* Parse an MD2. Counts capped, offsets and indices checked. Errors as mdl_bsp_load. */
qd_err mdl_md2_load(const uint8_t *data, size_t len, const char *name, mdl_md2 **out,
                    qd_error *err);
/* Vertex i of m between frames f0 and f1 (out of range: frame 0), lerp 0 at f0 and 1 at f1,
 * in model units; an out-of-range i gives the origin. */
void mdl_md2_vertex(const mdl_md2 *m, uint32_t f0, uint32_t f1, float lerp, uint32_t i,
                    float out[3]);
void mdl_md2_free(mdl_md2 *m);

#endif
