/* mdl_bsp38.c: loads Quake II maps (IBSP version 38) into the format-neutral mdl_bsp, and the
 * pieces the Quake II and Quake III loaders share (IBSP lump table, tree check, cluster PVS,
 * colours from texture names).
 *
 * Format facts: yquake2 src/common/header/files.h (GPL-2.0, from id's qfiles.h): the header
 * ident "IBSP" with BSPVERSION 38 and 19 lumps (LUMP_ENTITIES 0 .. LUMP_AREAPORTALS 18);
 * dplane_t (20 bytes), dvertex_t (12), dnode_t (int planenum, int children[2], short
 * mins/maxs[3], ushort firstface/numfaces: 28), texinfo_t (float vecs[2][4], int flags, int
 * value, char texture[32], int nexttexinfo: 76), dedge_t (2 ushort), dface_t (ushort planenum,
 * short side, int firstedge, short numedges, short texinfo, byte styles[4], int lightofs: 20),
 * dleaf_t (int contents, short cluster, short area, short mins/maxs[3], ushort firstleafface,
 * numleaffaces, firstleafbrush, numleafbrushes: 28), dmodel_t (float mins, maxs, origin[3],
 * int headnode, firstface, numfaces: 48), the SURF_* and CONTENTS_* bits, and dvis_t (int
 * numclusters, int bitofs[numclusters][2] of the PVS and PHS rows, compressed like Quake's).
 * Lightmaps are R, G, B bytes per luxel, 16 texels a luxel as in Quake (yquake2
 * R_BuildLightMap); a face without samples is drawn fullbright there. Leaf 0 is solid
 * (yquake2 CMod_LoadLeafs insists on it); qdemo still shifts leaves by one, as for Q3. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rd.h"
#include "model_local.h"

/* ---- Shared IBSP helpers ---- */

qd_err mdl_ibsp_lumps(const uint8_t *data, size_t len, int n, const uint32_t *rec,
                      const char *const *names, mdl_lump *out, const char *name, qd_error *err)
{
    size_t header = 8 + (size_t)n * 8;
    if (len < header)
        return qd_fail(err, QD_ERR_TRUNCATED, len, "%s: lump table cut off", name);
    rd_t r = rd_make(data, len);
    rd_skip(&r, 8);
    for (int i = 0; i < n; i++) {
        mdl_lump *l = &out[i];
        uint64_t at = 8 + (uint64_t)i * 8;
        l->ofs = rd_u32(&r);
        l->len = rd_u32(&r);
        if ((uint64_t)l->ofs + (uint64_t)l->len > (uint64_t)len)
            return qd_fail(err, QD_ERR_TRUNCATED, at,
                           "%s: lump %s (%u bytes at %u) ends past the file (%zu bytes)", name,
                           names[i], l->len, l->ofs, len);
        if (l->len % rec[i])
            return qd_fail(err, QD_ERR_BAD_DATA, at,
                           "%s: lump %s size %u is not a multiple of %u", name, names[i], l->len,
                           rec[i]);
        l->count = l->len / rec[i];
        if (rec[i] > 1 && l->count > MDL_BSP_MAX_RECORDS)
            return qd_fail(err, QD_ERR_LIMIT, at, "%s: %u %s (cap %u)", name, l->count,
                           names[i], MDL_BSP_MAX_RECORDS);
    }
    return QD_OK;
}

qd_err mdl_ibsp_tree(mdl_bsp *b, uint32_t num_file_leaves, const mdl_lump *l, uint32_t rec,
                     const char *name, qd_error *err)
{
    uint32_t nn = b->num_nodes;
    uint16_t *depth = mdl_calloc(nn, sizeof *depth);
    uint8_t *has_parent = mdl_calloc(nn, 1);
    qd_err e = QD_OK;
    if (!depth || !has_parent) {
        e = qd_fail(err, QD_ERR_NOMEM, 0, "%s: nodes", name);
        goto out;
    }
    for (uint32_t i = 0; i < nn && e == QD_OK; i++) {
        mdl_node *n = &b->nodes[i];
        uint64_t at = (uint64_t)l->ofs + (uint64_t)i * rec;
        for (int j = 0; j < 2; j++) {
            int32_t c = n->children[j];
            if (c >= 0) {
                if ((uint32_t)c >= nn) {
                    e = qd_fail(err, QD_ERR_BAD_DATA, at, "%s: node %u: child out of range",
                                name, i);
                    break;
                }
                if ((uint32_t)c <= i || has_parent[c]) {
                    e = qd_fail(err, QD_ERR_BAD_DATA, at,
                                "%s: node %u: child node is not below its parent", name, i);
                    break;
                }
                has_parent[c] = 1;
                depth[c] = (uint16_t)(depth[i] + 1);
                if (depth[c] > MDL_BSP_MAX_DEPTH) {
                    e = qd_fail(err, QD_ERR_LIMIT, at, "%s: tree deeper than %d", name,
                                MDL_BSP_MAX_DEPTH);
                    break;
                }
            } else {
                if (c == INT32_MIN || (uint32_t)(-(c + 1)) >= num_file_leaves) {
                    e = qd_fail(err, QD_ERR_BAD_DATA, at, "%s: node %u: leaf out of range",
                                name, i);
                    break;
                }
                n->children[j] = c - 1; /* file leaf k is leaf k + 1 */
            }
        }
    }
out:
    free(depth);
    free(has_parent);
    return e;
}

int32_t mdl_plane_type(const float n[3])
{
    for (int j = 0; j < 3; j++)
        if (n[j] == 1.0f || n[j] == -1.0f)
            return j;
    float ax = fabsf(n[0]), ay = fabsf(n[1]), az = fabsf(n[2]);
    if (ax >= ay && ax >= az)
        return 3;
    return ay >= az ? 4 : 5;
}

static int has_word(const char *name, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = name; *p; p++) {
        size_t k = 0;
        while (k < wl && p[k]) {
            char c = p[k];
            if (c >= 'A' && c <= 'Z')
                c = (char)(c - 'A' + 'a');
            if (c != word[k])
                break;
            k++;
        }
        if (k == wl)
            return 1;
    }
    return 0;
}

uint32_t mdl_name_color(const char *name)
{
    /* FNV-1a of the lower-cased name: the same name always gets the same colour. */
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++) {
        char c = *p;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        h = (h ^ (uint8_t)c) * 16777619u;
    }
    /* Words that say what a surface is made of pick its hue; the hash varies the shade so
     * that neighbouring textures of one kind still differ. */
    static const struct {
        const char *word;
        uint8_t r, g, b;
    } kinds[] = {
        {"sky", 110, 130, 170},   {"lava", 200, 80, 20},    {"slime", 70, 140, 40},
        {"water", 50, 80, 120},   {"liquid", 50, 80, 120},  {"fog", 120, 120, 130},
        {"wood", 120, 85, 55},    {"grass", 80, 110, 50},   {"rock", 115, 100, 85},
        {"stone", 120, 112, 100}, {"brick", 130, 80, 65},   {"sand", 160, 140, 100},
        {"dirt", 110, 90, 65},    {"rust", 130, 75, 45},    {"metal", 105, 110, 120},
        {"tech", 100, 108, 118},  {"base", 110, 110, 115},  {"floor", 100, 96, 90},
        {"trim", 125, 120, 110},  {"light", 200, 195, 170}, {"glass", 130, 150, 160},
        {"gothic", 115, 100, 90}, {"wall", 112, 106, 98},   {"ceil", 95, 95, 100},
    };
    int r = -1, g = 0, b = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (has_word(name, kinds[i].word)) {
            r = kinds[i].r;
            g = kinds[i].g;
            b = kinds[i].b;
            break;
        }
    /* Real textures average darker than their look suggests (mortar, shadows): the shades
     * stay low, picked by eye on q3dm6ish and Q2 backup against the games' look. */
    if (r < 0) {
        /* A muted colour: a grey of 64..120 tinted by at most 32 per channel. */
        int grey = 64 + (int)(h % 57);
        r = grey + (int)((h >> 8) % 33) - 16;
        g = grey + (int)((h >> 16) % 33) - 16;
        b = grey + (int)((h >> 24) % 33) - 16;
    } else {
        int d = (int)((h >> 8) % 25) - 12;
        r = r * 4 / 5 + d;
        g = g * 4 / 5 + d;
        b = b * 4 / 5 + d;
    }
    if (has_word(name, "dark")) {
        r = r * 2 / 3;
        g = g * 2 / 3;
        b = b * 2 / 3;
    }
    r = r < 0 ? 0 : r > 255 ? 255 : r;
    g = g < 0 ? 0 : g > 255 ? 255 : g;
    b = b < 0 ? 0 : b > 255 ? 255 : b;
    return MDL_RGB(r, g, b);
}

void mdl_bsp_cluster_pvs(const mdl_bsp *b, uint32_t leaf, uint8_t *out)
{
    size_t row = mdl_bsp_pvs_size(b);
    int32_t c = leaf < b->num_leaves ? b->leaves[leaf].cluster : -1;
    /* Outside the map, in solid or without vis data the engines draw everything
     * (yquake2 R_MarkLeaves with r_viewcluster == -1). */
    if (c < 0 || (uint32_t)c >= b->num_clusters || b->cluster_ofs[c] == UINT32_MAX) {
        memset(out, 0xff, row);
        return;
    }
    size_t crow = ((size_t)b->num_clusters + 7) / 8;
    uint8_t *bits = malloc(crow);
    if (!bits) {
        memset(out, 0xff, row);
        return;
    }
    const uint8_t *in = b->visdata + b->cluster_ofs[c];
    const uint8_t *end = b->visdata + b->vis_len;
    size_t o = 0;
    if (b->format == MDL_BSP_Q3_46) {
        /* Q3 rows are plain bits (checked at load to fit). */
        size_t n = (size_t)(end - in) < crow ? (size_t)(end - in) : crow;
        memcpy(bits, in, n);
        o = n;
    } else {
        /* Q2 rows: Quake's run-length coding of zero bytes (CM_DecompressVis). */
        o = mdl_vis_decompress(in, end, bits, crow);
    }
    if (o < crow) /* data cut short: what it does not say is visible */
        memset(bits + o, 0xff, crow - o);
    memset(out, 0, row);
    uint32_t nl = b->num_leaves ? b->num_leaves - 1 : 0;
    if ((size_t)nl > row * 8)
        nl = (uint32_t)(row * 8);
    for (uint32_t i = 0; i < nl; i++) {
        int32_t lc = b->leaves[i + 1].cluster;
        if (lc >= 0 && (uint32_t)lc < b->num_clusters && (bits[lc >> 3] >> (lc & 7) & 1))
            out[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    free(bits);
}

/* ---- Quake II ---- */

enum {
    Q2_ENTITIES, Q2_PLANES, Q2_VERTEXES, Q2_VISIBILITY, Q2_NODES, Q2_TEXINFO, Q2_FACES,
    Q2_LIGHTING, Q2_LEAFS, Q2_LEAFFACES, Q2_LEAFBRUSHES, Q2_EDGES, Q2_SURFEDGES, Q2_MODELS,
    Q2_BRUSHES, Q2_BRUSHSIDES, Q2_POP, Q2_AREAS, Q2_AREAPORTALS, Q2_COUNT
};

static const uint32_t q2_rec[Q2_COUNT] = {1, 20, 12, 1, 28, 76, 20, 1, 28, 2,
                                          2, 4,  4,  48, 12, 4, 1, 8,  8};
static const char *const q2_names[Q2_COUNT] = {
    "entities", "planes",    "vertexes",    "visibility", "nodes",      "texinfo", "faces",
    "lighting", "leafs",     "leaffaces",   "leafbrushes", "edges",     "surfedges", "models",
    "brushes",  "brushsides", "pop",        "areas",      "areaportals",
};

/* texinfo_t flags (yquake2 files.h) */
#define Q2_SURF_SKY 0x4
#define Q2_SURF_WARP 0x8
#define Q2_SURF_NODRAW 0x80
/* dleaf_t contents bits (yquake2 files.h) */
#define Q2_CONTENTS_SOLID 1
#define Q2_CONTENTS_LAVA 8
#define Q2_CONTENTS_SLIME 16
#define Q2_CONTENTS_WATER 32

typedef struct q2_loader {
    const uint8_t *data;
    const char *name;
    qd_error *err;
    mdl_bsp *b;
    mdl_lump l[Q2_COUNT];
} q2_loader;

static rd_t q2_reader(const q2_loader *ld, int lumpno)
{
    return mdl_lump_rd(ld->data, &ld->l[lumpno]);
}

static qd_err q2_bad(q2_loader *ld, int lumpno, uint32_t i, const char *what)
{
    return mdl_bad_record(ld->err, ld->name, q2_names[lumpno], &ld->l[lumpno], q2_rec[lumpno], i,
                          what);
}

static qd_err q2_nomem(q2_loader *ld, const char *what)
{
    return mdl_nomem(ld->err, ld->name, what);
}

static qd_err q2_planes(q2_loader *ld)
{
    rd_t r = q2_reader(ld, Q2_PLANES);
    if (!mdl_read_planes(ld->b, &r, ld->l[Q2_PLANES].count, 1))
        return q2_nomem(ld, "planes");
    return QD_OK;
}

/* Polygon corners, one per surfedge, as mdl_bsp.c does for Q1. */
static qd_err q2_verts(q2_loader *ld)
{
    mdl_bsp *b = ld->b;
    uint32_t nv = ld->l[Q2_VERTEXES].count, ne = ld->l[Q2_EDGES].count;
    float(*vx)[3] = mdl_calloc(nv, sizeof *vx);
    uint16_t(*ed)[2] = mdl_calloc(ne, sizeof *ed);
    b->num_verts = ld->l[Q2_SURFEDGES].count;
    b->verts = mdl_calloc(b->num_verts, sizeof *b->verts);
    qd_err e = QD_OK;
    if (!vx || !ed || !b->verts) {
        e = q2_nomem(ld, "vertexes");
        goto out;
    }
    rd_t r = q2_reader(ld, Q2_VERTEXES);
    for (uint32_t i = 0; i < nv; i++)
        for (int j = 0; j < 3; j++)
            vx[i][j] = rd_f32(&r);
    r = q2_reader(ld, Q2_EDGES);
    for (uint32_t i = 0; i < ne && !e; i++)
        for (int j = 0; j < 2; j++) {
            ed[i][j] = rd_u16(&r);
            if (ed[i][j] >= nv) {
                e = q2_bad(ld, Q2_EDGES, i, "vertex index out of range");
                break;
            }
        }
    r = q2_reader(ld, Q2_SURFEDGES);
    for (uint32_t i = 0; i < b->num_verts && !e; i++) {
        int32_t se = rd_s32(&r);
        uint32_t v;
        if (se >= 0 && (uint32_t)se < ne)
            v = ed[se][0];
        else if (se < 0 && se != INT32_MIN && (uint32_t)-se < ne)
            v = ed[-se][1];
        else {
            e = q2_bad(ld, Q2_SURFEDGES, i, "edge index out of range");
            break;
        }
        memcpy(b->verts[i], vx[v], sizeof b->verts[i]);
    }
out:
    free(vx);
    free(ed);
    return e;
}

/* One texture per texinfo: its name, a colour from the name, its SURF_ flags. The texture
 * vectors go into face_lm when the faces are read. */
static qd_err q2_texinfo(q2_loader *ld, float (**vecs)[2][4])
{
    mdl_bsp *b = ld->b;
    uint32_t n = ld->l[Q2_TEXINFO].count;
    if (n > MDL_BSP_MAX_TEXTURES)
        return qd_fail(ld->err, QD_ERR_LIMIT, ld->l[Q2_TEXINFO].ofs, "%s: %u texinfo (cap %u)",
                       ld->name, n, MDL_BSP_MAX_TEXTURES);
    b->num_textures = n;
    b->textures = mdl_calloc(n, sizeof *b->textures);
    *vecs = mdl_calloc(n, sizeof **vecs);
    if (!b->textures || !*vecs)
        return q2_nomem(ld, "texinfo");
    rd_t r = q2_reader(ld, Q2_TEXINFO);
    for (uint32_t i = 0; i < n; i++) {
        mdl_texture *t = &b->textures[i];
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 4; k++)
                (*vecs)[i][j][k] = rd_f32(&r);
        uint32_t flags = rd_u32(&r);
        rd_skip(&r, 4); /* value */
        const uint8_t *nm = rd_bytes(&r, 32);
        rd_skip(&r, 4); /* nexttexinfo */
        mdl_copy_name(t->name, sizeof t->name, nm ? (const char *)nm : "", nm ? 32 : 0);
        t->color = mdl_name_color(t->name);
        t->flags = MDL_SURF_MISSING;
        if (flags & Q2_SURF_SKY)
            t->flags |= MDL_SURF_SKY;
        if (flags & Q2_SURF_WARP)
            t->flags |= MDL_SURF_TURB;
        if (flags & Q2_SURF_NODRAW)
            t->flags |= MDL_SURF_NODRAW;
    }
    return QD_OK;
}

/* The average brightness of the face's first light style: the mean of R, G, B over its
 * luxels, on Quake's scale (128 shows the texture as it is). */
static void q2_face_light(const mdl_bsp *b, mdl_face *f, mdl_face_lm *lm, uint8_t style0,
                          int32_t lightofs)
{
    lm->ofs = -1;
    if (f->flags & (MDL_SURF_SKY | MDL_SURF_TURB) || b->light_len == 0 || style0 == 255 ||
        lightofs < 0 || (size_t)lightofs >= b->light_len) {
        /* yquake2 R_BuildLightMap: a surface without samples is fullbright */
        f->flags |= MDL_SURF_FULLBRIGHT;
        f->light = 128;
        return;
    }
    uint64_t size = (uint64_t)((lm->extents[0] >> 4) + 1) * (uint64_t)((lm->extents[1] >> 4) + 1);
    uint64_t avail = (b->light_len - (size_t)lightofs) / 3;
    if (size > avail)
        size = avail;
    uint64_t sum = 0;
    const uint8_t *s = b->lightdata + lightofs;
    for (uint64_t i = 0; i < size * 3; i++)
        sum += s[i];
    lm->ofs = lightofs;
    f->light = size ? (float)((double)sum / (double)(size * 3)) : 0.0f;
}

static qd_err q2_faces(q2_loader *ld, const float (*vecs)[2][4])
{
    mdl_bsp *b = ld->b;
    rd_t r = q2_reader(ld, Q2_FACES);
    b->num_faces = ld->l[Q2_FACES].count;
    b->faces = mdl_calloc(b->num_faces, sizeof *b->faces);
    b->face_lm = mdl_calloc(b->num_faces, sizeof *b->face_lm);
    if (!b->faces || !b->face_lm)
        return q2_nomem(ld, "faces");
    for (uint32_t i = 0; i < b->num_faces; i++) {
        mdl_face *f = &b->faces[i];
        uint32_t plane = rd_u16(&r);
        int side = rd_s16(&r) != 0;
        uint32_t firstedge = rd_u32(&r);
        uint32_t numedges = rd_u16(&r);
        uint32_t tinfo = rd_u16(&r);
        uint8_t styles[4];
        for (int j = 0; j < 4; j++)
            styles[j] = rd_u8(&r);
        int32_t lightofs = rd_s32(&r);
        if (plane >= b->num_planes)
            return q2_bad(ld, Q2_FACES, i, "plane index out of range");
        if (numedges > MDL_BSP_MAX_FACE_VERTS)
            return qd_fail(ld->err, QD_ERR_LIMIT,
                           ld->l[Q2_FACES].ofs + (uint64_t)i * q2_rec[Q2_FACES],
                           "%s: face %u has %u edges (cap %u)", ld->name, i, numedges,
                           MDL_BSP_MAX_FACE_VERTS);
        if ((uint64_t)firstedge + numedges > b->num_verts)
            return q2_bad(ld, Q2_FACES, i, "edge range out of range");
        if (tinfo >= b->num_textures)
            return q2_bad(ld, Q2_FACES, i, "texinfo index out of range");
        const mdl_plane *p = &b->planes[plane];
        const mdl_texture *t = &b->textures[tinfo];
        f->first_vert = firstedge;
        f->num_verts = numedges;
        for (int j = 0; j < 3; j++)
            f->normal[j] = side ? -p->normal[j] : p->normal[j];
        f->dist = side ? -p->dist : p->dist;
        f->texture = (int32_t)tinfo;
        f->color = t->color;
        f->flags = t->flags;
        if (numedges < 3)
            f->flags |= MDL_SURF_NODRAW;
        mdl_bsp_face_extents(b, f, vecs[tinfo], &b->face_lm[i]);
        q2_face_light(b, f, &b->face_lm[i], styles[0], lightofs);
    }
    return QD_OK;
}

static qd_err q2_leaves(q2_loader *ld)
{
    mdl_bsp *b = ld->b;
    rd_t r = q2_reader(ld, Q2_LEAFFACES);
    b->num_marks = ld->l[Q2_LEAFFACES].count;
    b->marks = mdl_calloc(b->num_marks, sizeof *b->marks);
    if (!b->marks)
        return q2_nomem(ld, "leaffaces");
    for (uint32_t i = 0; i < b->num_marks; i++) {
        b->marks[i] = rd_u16(&r);
        if (b->marks[i] >= b->num_faces)
            return q2_bad(ld, Q2_LEAFFACES, i, "face index out of range");
    }
    uint32_t nl = ld->l[Q2_LEAFS].count;
    b->num_leaves = nl + 1;
    b->leaves = mdl_calloc(b->num_leaves, sizeof *b->leaves);
    if (!b->leaves)
        return q2_nomem(ld, "leafs");
    b->leaves[0].contents = MDL_CONTENTS_SOLID;
    b->leaves[0].cluster = -1;
    b->leaves[0].visofs = -1;
    r = q2_reader(ld, Q2_LEAFS);
    for (uint32_t i = 0; i < nl; i++) {
        mdl_leaf *lf = &b->leaves[i + 1];
        uint32_t contents = rd_u32(&r);
        lf->cluster = rd_s16(&r);
        lf->area = rd_s16(&r);
        for (int j = 0; j < 3; j++)
            lf->mins[j] = rd_s16(&r);
        for (int j = 0; j < 3; j++)
            lf->maxs[j] = rd_s16(&r);
        lf->first_mark = rd_u16(&r);
        lf->num_marks = rd_u16(&r);
        rd_skip(&r, 4); /* leaf brushes */
        lf->visofs = -1;
        lf->contents = contents & Q2_CONTENTS_SOLID   ? MDL_CONTENTS_SOLID
                       : contents & Q2_CONTENTS_LAVA  ? MDL_CONTENTS_LAVA
                       : contents & Q2_CONTENTS_SLIME ? MDL_CONTENTS_SLIME
                       : contents & Q2_CONTENTS_WATER ? MDL_CONTENTS_WATER
                                                      : MDL_CONTENTS_EMPTY;
        if ((uint64_t)lf->first_mark + lf->num_marks > b->num_marks)
            return q2_bad(ld, Q2_LEAFS, i, "leaf face range out of range");
        if (lf->cluster < -1 || (b->num_clusters && lf->cluster >= (int32_t)b->num_clusters))
            return q2_bad(ld, Q2_LEAFS, i, "cluster out of range");
    }
    return QD_OK;
}

static qd_err q2_nodes(q2_loader *ld)
{
    mdl_bsp *b = ld->b;
    rd_t r = q2_reader(ld, Q2_NODES);
    b->num_nodes = ld->l[Q2_NODES].count;
    b->nodes = mdl_calloc(b->num_nodes, sizeof *b->nodes);
    if (!b->nodes)
        return q2_nomem(ld, "nodes");
    for (uint32_t i = 0; i < b->num_nodes; i++) {
        mdl_node *n = &b->nodes[i];
        n->plane = rd_u32(&r);
        n->children[0] = rd_s32(&r);
        n->children[1] = rd_s32(&r);
        for (int j = 0; j < 3; j++)
            n->mins[j] = rd_s16(&r);
        for (int j = 0; j < 3; j++)
            n->maxs[j] = rd_s16(&r);
        n->first_face = rd_u16(&r);
        n->num_faces = rd_u16(&r);
        if (n->plane >= b->num_planes)
            return q2_bad(ld, Q2_NODES, i, "plane index out of range");
        if ((uint64_t)n->first_face + n->num_faces > b->num_faces)
            return q2_bad(ld, Q2_NODES, i, "face range out of range");
    }
    return mdl_ibsp_tree(b, ld->l[Q2_LEAFS].count, &ld->l[Q2_NODES], q2_rec[Q2_NODES], ld->name,
                         ld->err);
}

static qd_err q2_models(q2_loader *ld)
{
    mdl_bsp *b = ld->b;
    rd_t r = q2_reader(ld, Q2_MODELS);
    b->num_models = ld->l[Q2_MODELS].count;
    if (b->num_models > MDL_BSP_MAX_MODELS)
        return qd_fail(ld->err, QD_ERR_LIMIT, ld->l[Q2_MODELS].ofs, "%s: too many models",
                       ld->name);
    b->models = mdl_calloc(b->num_models, sizeof *b->models);
    if (!b->models)
        return q2_nomem(ld, "models");
    for (uint32_t i = 0; i < b->num_models; i++) {
        mdl_submodel *m = &b->models[i];
        for (int j = 0; j < 3; j++)
            m->mins[j] = rd_f32(&r);
        for (int j = 0; j < 3; j++)
            m->maxs[j] = rd_f32(&r);
        for (int j = 0; j < 3; j++)
            m->origin[j] = rd_f32(&r);
        m->headnode = rd_s32(&r);
        m->first_face = rd_u32(&r);
        m->num_faces = rd_u32(&r);
        /* A brush model whose tree is a single leaf has a leaf for its headnode
         * (-(leaf + 1), e.g. in Mission64's titlemap); it keeps the world's root, since
         * headnode is a node index here and submodels draw their face range anyway. */
        if (m->headnode < 0 && i > 0 && m->headnode != INT32_MIN &&
            (uint32_t)(-(m->headnode + 1)) < ld->l[Q2_LEAFS].count)
            m->headnode = 0;
        if (m->headnode < 0 || (uint32_t)m->headnode >= b->num_nodes)
            return q2_bad(ld, Q2_MODELS, i, "headnode out of range");
        if ((uint64_t)m->first_face + m->num_faces > b->num_faces)
            return q2_bad(ld, Q2_MODELS, i, "face range out of range");
        m->visleafs = i == 0 ? b->num_leaves - 1 : 0;
    }
    return QD_OK;
}

/* dvis_t: the PVS offset of each cluster. A row outside the lump damages only culling. */
static qd_err q2_vis(q2_loader *ld)
{
    mdl_bsp *b = ld->b;
    const mdl_lump *l = &ld->l[Q2_VISIBILITY];
    b->vis_len = l->len;
    b->visdata = mdl_calloc(l->len, 1);
    if (!b->visdata)
        return q2_nomem(ld, "visibility");
    memcpy(b->visdata, ld->data + l->ofs, l->len);
    if (l->len < 4)
        return QD_OK; /* no vis: everything is seen */
    rd_t r = rd_make(b->visdata, b->vis_len);
    uint32_t n = rd_u32(&r);
    if (n > MDL_BSP_MAX_RECORDS || 4 + (uint64_t)n * 8 > l->len)
        return qd_fail(ld->err, QD_ERR_BAD_DATA, l->ofs, "%s: %u vis clusters in %u bytes",
                       ld->name, n, l->len);
    b->num_clusters = n;
    b->cluster_ofs = mdl_calloc(n, sizeof *b->cluster_ofs);
    if (!b->cluster_ofs)
        return q2_nomem(ld, "visibility");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pvs = rd_u32(&r);
        rd_skip(&r, 4); /* PHS */
        b->cluster_ofs[i] = pvs < l->len ? pvs : UINT32_MAX;
    }
    return QD_OK;
}

static qd_err q2_light(q2_loader *ld)
{
    mdl_bsp *b = ld->b;
    const mdl_lump *l = &ld->l[Q2_LIGHTING];
    b->light_len = l->len;
    b->light_rgb = 1;
    b->lightdata = mdl_calloc(l->len, 1);
    if (!b->lightdata)
        return q2_nomem(ld, "lighting");
    memcpy(b->lightdata, ld->data + l->ofs, l->len);
    return QD_OK;
}

qd_err mdl_bsp38_load(const uint8_t *data, size_t len, const char *name, mdl_bsp *b,
                      qd_error *err)
{
    q2_loader ld = {.data = data, .name = name, .err = err, .b = b};
    b->format = MDL_BSP_Q2_38;
    qd_err e = mdl_ibsp_lumps(data, len, Q2_COUNT, q2_rec, q2_names, ld.l, name, err);
    if (e)
        return e;
    if (ld.l[Q2_NODES].count == 0 || ld.l[Q2_LEAFS].count == 0 || ld.l[Q2_MODELS].count == 0)
        return qd_fail(err, QD_ERR_BAD_DATA, 8, "%s: no nodes, leafs or models", name);
    if (ld.l[Q2_ENTITIES].len > MDL_BSP_MAX_ENTITIES_TEXT)
        return qd_fail(err, QD_ERR_LIMIT, 8, "%s: entities text over its cap", name);
    float(*vecs)[2][4] = NULL;
    if ((e = q2_vis(&ld)) || (e = q2_light(&ld)) || (e = q2_planes(&ld)) ||
        (e = q2_verts(&ld)) || (e = q2_texinfo(&ld, &vecs)) ||
        (e = q2_faces(&ld, (const float(*)[2][4])vecs)) || (e = q2_leaves(&ld)) ||
        (e = q2_nodes(&ld)) || (e = q2_models(&ld))) {
        free(vecs);
        return e;
    }
    free(vecs);
    if (mdl_bsp_set_entities(b, data + ld.l[Q2_ENTITIES].ofs, ld.l[Q2_ENTITIES].len))
        return q2_nomem(&ld, "entities");
    return QD_OK;
}
