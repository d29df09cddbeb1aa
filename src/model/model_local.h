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

/* Read and validate an IBSP lump table ("IBSP", version, then n lumps of ofs, len) of a file
 * of len bytes: every lump inside the file (64-bit sums), a whole number of rec[i]-byte
 * records (1: a byte lump), record lumps capped at MDL_BSP_MAX_RECORDS. */
qd_err mdl_ibsp_lumps(const uint8_t *data, size_t len, int n, const uint32_t *rec,
                      const char *const *names, mdl_lump *out, const char *name, qd_error *err);

/* Quake II and Quake III loaders, called by mdl_bsp_load on the magic "IBSP" with version 38
 * or 46. They fill b (whose name is set); on failure the caller frees it. */
qd_err mdl_bsp38_load(const uint8_t *data, size_t len, const char *name, mdl_bsp *b,
                      qd_error *err);
qd_err mdl_bsp46_load(const uint8_t *data, size_t len, const char *name, mdl_bsp *b,
                      qd_error *err);

/* b->nodes[*].children hold the raw values of an IBSP file (>= 0 a node, < 0 leaf -(c + 1)
 * of num_file_leaves): check them as mdl_bsp.c checks Q1 trees (children after their parent,
 * one parent each, depth capped) and shift leaf children by one (file leaf i is leaf i + 1).
 * l is the nodes lump and rec its record size, for error offsets. */
qd_err mdl_ibsp_tree(mdl_bsp *b, uint32_t num_file_leaves, const mdl_lump *l, uint32_t rec,
                     const char *name, qd_error *err);

/* A muted colour for a texture or shader that has no pixels in the map, derived from its name
 * alone: a hue from words in it (sky, water, lava, metal, ...) or else from a hash. */
uint32_t mdl_name_color(const char *name);

/* Quake's plane type of a normal: 0..2 axial, 3..5 the nearest axis. */
int32_t mdl_plane_type(const float n[3]);

/* Quake's CalcSurfaceExtents of face f with the texture vectors vecs (Q1 and Q2). */
void mdl_bsp_face_extents(const mdl_bsp *b, const mdl_face *f, const float vecs[2][4],
                          mdl_face_lm *lm);

/* Copy an entities lump (n bytes, up to its first NUL) into b->entities and take the
 * worldspawn message. Returns QD_ERR_NOMEM or QD_OK. */
qd_err mdl_bsp_set_entities(mdl_bsp *b, const uint8_t *p, size_t n);

/* mdl_bsp_pvs for Q2/Q3 maps: the camera leaf's cluster row expanded to a leaf bitset. */
void mdl_bsp_cluster_pvs(const mdl_bsp *b, uint32_t leaf, uint8_t *out);

/* mdl_bsp_light_point for Q3 maps (the light grid). */
int mdl_bsp46_light_point(const mdl_bsp *b, const float p[3], float *light);

/* The planes lump of every BSP format: normal and dist as floats, then (Q1, Q2) a type int32,
 * which Q3 leaves out (with_type 0: derived from the normal). Fills b->planes and
 * b->num_planes from count records at r; 0 when out of memory. */
int mdl_read_planes(mdl_bsp *b, rd_t *r, uint32_t count, int with_type);

/* Quake's run-length coding of PVS rows (zero bytes as 0, count): decode from in..end into
 * out (row bytes); returns how many bytes were filled before the data ran out. */
size_t mdl_vis_decompress(const uint8_t *in, const uint8_t *end, uint8_t *out, size_t row);

/* A reader over one lump of data (validated by the lump table). */
static inline rd_t mdl_lump_rd(const uint8_t *data, const mdl_lump *l)
{
    return rd_make(data + l->ofs, l->len);
}

/* "file: lump i: what" as QD_ERR_BAD_DATA at record i (of rec bytes) of lump l. */
qd_err mdl_bad_record(qd_error *err, const char *file, const char *lump, const mdl_lump *l,
                      uint32_t rec, uint32_t i, const char *what);

/* "file: what: out of memory" as QD_ERR_NOMEM. */
qd_err mdl_nomem(qd_error *err, const char *file, const char *what);

#endif
