/* model_local.h: helpers shared by the model loaders; not part of the public API. */
#ifndef QD_MODEL_LOCAL_H
#define QD_MODEL_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"
#include "../common/rd.h"
#include "model.h"

/* The grey used for a texture or skin whose pixels are missing. */
#define MDL_GREY MDL_RGB(128, 128, 128)

/* calloc for n records of size bytes; NULL when n * size overflows or memory runs out.
 * n == 0 still returns a valid (1-byte) block so that "no records" is not an error. */
void *mdl_calloc(size_t n, size_t size);

/* Copy at most n bytes of a possibly unterminated on-disk name into dst (cap >= 1), stopping
 * at the first NUL; always terminated. */
void mdl_copy_name(char *dst, size_t cap, const char *src, size_t n);

/* A model file being parsed: its bytes, its name for messages, where an error goes. */
typedef struct mdl_file {
    const uint8_t *data;
    size_t len;
    const char *name;
    qd_error *err;
} mdl_file;

/* Fill f's error with "name: what" at byte ofs; returns code. */
qd_err mdl_file_fail(const mdl_file *f, qd_err code, uint64_t ofs, const char *what);

/* Average colour of n palette-index pixels. With skip255 set, index 255 is transparent and
 * left out; *coverage (if not NULL) gets the fraction of pixels counted. Returns MDL_GREY
 * when no pixel counts. A NULL palette is the grey ramp. */
uint32_t mdl_average_color(const uint8_t *pix, size_t n, const uint32_t palette[256],
                           int skip255, float *coverage);

/* One token of an entities text (Quake's COM_Parse rules: // comments, braces, quoted or
 * bare words). Returns the position after the token, or NULL at the end of the text. The
 * token is copied into tok (truncated to cap - 1); *quoted tells a quoted string from a
 * brace. */
const char *mdl_ent_token(const char *p, char *tok, size_t cap, int *quoted);

/* ---- Shared by the map loaders (mdl_bsp.c: Q1, mdl_bsp38.c: Q2, mdl_bsp46.c: Q3) ---- */

typedef struct mdl_lump {
    uint32_t ofs, len, count; /* count = len / record size */
} mdl_lump;

/* What a map format keeps where: the bytes before its lump table (Quake 4: the version;
 * IBSP 8: ident and version), its lumps' record sizes (1: a byte lump) and names, and which
 * lump holds each of the records the loader core reads (-1: none in this format). */
#define MDL_MAP_MAX_LUMPS 19
typedef struct mdl_map_format {
    uint32_t header;
    int num_lumps;
    const uint32_t *rec;
    const char *const *names;
    int entities, planes, vertexes, edges, surfedges, faces, marks, nodes, leafs, models;
} mdl_map_format;

/* A map being loaded (mdl_bspcore.c): the file, its validated lump table, the mdl_bsp being
 * filled and where errors go. Lives on the loader's stack; owns nothing. */
typedef struct mdl_map {
    const uint8_t *data;
    size_t len;
    const char *name;
    qd_error *err;
    mdl_bsp *b;
    const mdl_map_format *f;
    mdl_lump l[MDL_MAP_MAX_LUMPS];
} mdl_map;

/* One texinfo as the faces use it: texture vectors, the texture (-1: none) and face flags
 * to add to the texture's (Quake's TEX_SPECIAL: fullbright). */
typedef struct mdl_texinfo {
    float vecs[2][4];
    int32_t texture;
    uint8_t flags;
} mdl_texinfo;

/* Set up m for the file data (len bytes) and read its lump table at f->header: every lump
 * inside the file (64-bit sums), a whole number of records, record lumps capped at
 * MDL_BSP_MAX_RECORDS, nodes, leafs and models present, the entities text capped. Nothing
 * else of the file is read before this succeeds. */
qd_err mdl_map_open(mdl_map *m, const mdl_map_format *f, const uint8_t *data, size_t len,
                    const char *name, mdl_bsp *b, qd_error *err);

/* A reader over lump number lump (validated by mdl_map_open). */
rd_t mdl_map_rd(const mdl_map *m, int lump);

/* "file: lump i: what" as QD_ERR_BAD_DATA at record i of lump number lump. */
qd_err mdl_map_bad(const mdl_map *m, int lump, uint32_t i, const char *what);

/* "file: what: out of memory" as QD_ERR_NOMEM. */
qd_err mdl_map_nomem(const mdl_map *m, const char *what);

/* Zeroed room for the records of lump number lump, each size bytes; *count gets their
 * number. NULL when out of memory. */
void *mdl_map_alloc(const mdl_map *m, int lump, size_t size, uint32_t *count);

/* Three floats (a point, a bound) from r into v. */
static inline void mdl_rd_vec3(rd_t *r, float v[3])
{
    for (int j = 0; j < 3; j++)
        v[j] = rd_f32(r);
}

/* A node's or leaf's bounds, mins then maxs: floats in BSP2, int32 in Quake III, else
 * int16. */
void mdl_rd_bounds(rd_t *r, mdl_bsp_format fmt, float mins[3], float maxs[3]);

/* A malloc'd copy of byte lump number lump into *dst, its size in *len. */
qd_err mdl_map_copy(const mdl_map *m, int lump, uint8_t **dst, size_t *len);

/* The entities lump into b->entities and b->message (mdl_bsp_set_entities). */
qd_err mdl_map_entities(const mdl_map *m);

/* The planes lump (Quake, Quake II: with their type; Quake III: type from the normal). */
qd_err mdl_map_planes(const mdl_map *m);

/* Polygon corners, one per surfedge, from vertexes, edges (BSP2/2PSB: 32-bit indices) and
 * surfedges, each index checked; a face's corners are then a range of b->verts. */
qd_err mdl_map_corners(const mdl_map *m);

/* The faces (Quake and Quake II dface_t; BSP2/2PSB widen its 16-bit fields) over num_texinfo
 * texinfo: every index checked, plane side, corners, colour and flags from the texture,
 * lightmap extents and average light. Needs planes, corners, textures, lighting. */
qd_err mdl_map_faces(const mdl_map *m, const mdl_texinfo *ti, uint32_t num_texinfo);

/* The marks (Quake marksurfaces, Quake II leaffaces) as face indices, each checked. */
qd_err mdl_map_marks(const mdl_map *m);

/* The nodes of any BSP format, plane and face range checked, then the tree: children after
 * their parent, one parent each, depth capped at MDL_BSP_MAX_DEPTH, leaves in range; leaf
 * children renumbered to qdemo's (IBSP file leaf k is leaf k + 1). Needs planes and faces. */
qd_err mdl_map_nodes(const mdl_map *m);

/* b->models for the models lump, zeroed: QD_ERR_LIMIT over MDL_BSP_MAX_MODELS. */
qd_err mdl_map_model_table(const mdl_map *m);

/* The submodels of a Quake or Quake II map: headnode and face range checked, visleafs
 * clamped to the leaves there are. Needs nodes and leaves. */
qd_err mdl_map_models(const mdl_map *m);

/* Quake II and Quake III loaders, called by mdl_bsp_load on the magic "IBSP" with version 38
 * or 46. They fill b (whose name is set); on failure the caller frees it. */
qd_err mdl_bsp38_load(const uint8_t *data, size_t len, const char *name, mdl_bsp *b,
                      qd_error *err);
qd_err mdl_bsp46_load(const uint8_t *data, size_t len, const char *name, mdl_bsp *b,
                      qd_error *err);

/* A muted colour for a texture or shader that has no pixels in the map, derived from its name
 * alone: a hue from words in it (sky, water, lava, metal, ...) or else from a hash. */
uint32_t mdl_name_color(const char *name);

/* Quake's plane type of a normal: 0..2 axial, 3..5 the nearest axis. */
int32_t mdl_plane_type(const float n[3]);

/* Copy an entities lump (n bytes, up to its first NUL) into b->entities and take the
 * worldspawn message. Returns QD_ERR_NOMEM or QD_OK. */
qd_err mdl_bsp_set_entities(mdl_bsp *b, const uint8_t *p, size_t n);

/* mdl_bsp_pvs for Q2/Q3 maps: the camera leaf's cluster row expanded to a leaf bitset. */
void mdl_bsp_cluster_pvs(const mdl_bsp *b, uint32_t leaf, uint8_t *out);

/* mdl_bsp_light_point for Q3 maps (the light grid). */
int mdl_bsp46_light_point(const mdl_bsp *b, const float p[3], float *light);

/* Quake's run-length coding of PVS rows (zero bytes as 0, count): decode from in..end into
 * out (row bytes); returns how many bytes were filled before the data ran out. */
size_t mdl_vis_decompress(const uint8_t *in, const uint8_t *end, uint8_t *out, size_t row);

#endif
