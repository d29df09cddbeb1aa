/* mdl_bsp.c: loads Quake BSP29, BSP2 and 2PSB maps into the format-neutral mdl_bsp.
 *
 * Format facts: id's Quake source (GPL) bspfile.h for BSP29 (lump order, dface_t, dnode_t,
 * dleaf_t, dmodel_t, miptex_t); ericw-tools include/common/bspfile.hh (GPL-2.0) for BSP2,
 * whose header ident is "BSP2" (BSP2VERSION) with bsp2_dnode_t/bsp2_dleaf_t (int32 children,
 * float bounds, uint32 face and marksurface ranges), bsp2_dface_t (int32 fields), uint32
 * edges and marksurfaces and 12-byte clipnodes, and for the older RMQ variant whose ident
 * reads "2PSB" on disk (BSP2RMQVERSION = 'B'<<24|'S'<<16|'P'<<8|'2') with the same records
 * except int16 node and leaf bounds (bsp2rmq_dnode_t, bsp2rmq_dleaf_t). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rd.h"
#include "model_local.h"

enum {
    L_ENTITIES, L_PLANES, L_TEXTURES, L_VERTEXES, L_VISIBILITY, L_NODES, L_TEXINFO, L_FACES,
    L_LIGHTING, L_CLIPNODES, L_LEAFS, L_MARKSURFACES, L_EDGES, L_SURFEDGES, L_MODELS, L_COUNT
};

#define HEADER_SIZE (4 + L_COUNT * 8)
#define TEX_SPECIAL 1 /* texinfo flag: sky or liquid, no lightmap (bspfile.h) */

/* Record sizes per lump for BSP29, BSP2, 2PSB; 1 means a byte lump. */
static const uint32_t rec_size[3][L_COUNT] = {
    /*        ent pla tex ver vis nod tin fac lig cli lea mar edg sed mod */
    [MDL_BSP_Q1_29] = {1, 20, 1, 12, 1, 24, 40, 20, 1, 8, 28, 2, 4, 4, 64},
    [MDL_BSP_Q1_BSP2] = {1, 20, 1, 12, 1, 44, 40, 28, 1, 12, 44, 4, 8, 4, 64},
    [MDL_BSP_Q1_2PSB] = {1, 20, 1, 12, 1, 32, 40, 28, 1, 12, 32, 4, 8, 4, 64},
};

static const char *const lump_names[L_COUNT] = {
    "entities", "planes",   "textures", "vertexes",     "visibility",
    "nodes",    "texinfo",  "faces",    "lighting",     "clipnodes",
    "leafs",    "marksurfaces", "edges", "surfedges",   "models",
};

typedef struct lump {
    uint32_t ofs, len, count;
} lump;

typedef struct texinfo {
    float vecs[2][4];
    int32_t texture; /* -1: none */
    uint32_t flags;
} texinfo;

/* Everything the loader needs while it runs; the temporary arrays die with it. */
typedef struct loader {
    const uint8_t *data;
    size_t len;
    qd_error *err;
    const char *name;
    mdl_bsp *b;
    lump l[L_COUNT];
    float (*vertexes)[3];
    uint32_t (*edges)[2];
    texinfo *texinfo;
} loader;

static qd_err fail(loader *ld, qd_err code, uint64_t ofs, const char *what)
{
    return qd_fail(ld->err, code, ofs, "%s: %s", ld->name, what);
}

static qd_err fail_rec(loader *ld, int lumpno, uint32_t i, const char *what)
{
    uint64_t ofs = (uint64_t)ld->l[lumpno].ofs + (uint64_t)i * rec_size[ld->b->format][lumpno];
    return qd_fail(ld->err, QD_ERR_BAD_DATA, ofs, "%s: %s %u: %s", ld->name,
                   lump_names[lumpno], i, what);
}

static rd_t lump_reader(const loader *ld, int lumpno)
{
    return rd_make(ld->data + ld->l[lumpno].ofs, ld->l[lumpno].len);
}

/* ---- Header and lump table: all validated before any lump is read ---- */

static qd_err read_header(loader *ld)
{
    rd_t r = rd_make(ld->data, ld->len);
    if (ld->len < 4)
        return fail(ld, QD_ERR_TRUNCATED, 0, "shorter than a BSP header");
    const uint8_t *id = ld->data;
    uint32_t version = rd_u32(&r);
    if (version == 29)
        ld->b->format = MDL_BSP_Q1_29;
    else if (memcmp(id, "BSP2", 4) == 0)
        ld->b->format = MDL_BSP_Q1_BSP2;
    else if (memcmp(id, "2PSB", 4) == 0)
        ld->b->format = MDL_BSP_Q1_2PSB;
    else if (memcmp(id, "IBSP", 4) == 0 || memcmp(id, "RBSP", 4) == 0 || version == 30)
        return qd_fail(ld->err, QD_ERR_UNSUPPORTED, 0,
                       "%s: unsupported map (IBSP other than 38/46, RBSP or Half-Life)",
                       ld->name);
    else
        return fail(ld, QD_ERR_BAD_DATA, 0, "not a BSP file");
    if (ld->len < HEADER_SIZE)
        return fail(ld, QD_ERR_TRUNCATED, ld->len, "lump table cut off");
    for (int i = 0; i < L_COUNT; i++) {
        lump *l = &ld->l[i];
        l->ofs = rd_u32(&r);
        l->len = rd_u32(&r);
        uint64_t at = 4 + (uint64_t)i * 8;
        if ((uint64_t)l->ofs + (uint64_t)l->len > (uint64_t)ld->len)
            return qd_fail(ld->err, QD_ERR_TRUNCATED, at,
                           "%s: lump %s (%u bytes at %u) ends past the file (%zu bytes)", ld->name,
                           lump_names[i], l->len, l->ofs, ld->len);
        uint32_t rs = rec_size[ld->b->format][i];
        if (l->len % rs)
            return qd_fail(ld->err, QD_ERR_BAD_DATA, at,
                           "%s: lump %s size %u is not a multiple of %u", ld->name, lump_names[i],
                           l->len, rs);
        l->count = l->len / rs;
        if (rs > 1 && l->count > MDL_BSP_MAX_RECORDS)
            return qd_fail(ld->err, QD_ERR_LIMIT, at, "%s: %u %s (cap %u)", ld->name, l->count,
                           lump_names[i], MDL_BSP_MAX_RECORDS);
    }
    if (ld->l[L_NODES].count == 0 || ld->l[L_LEAFS].count == 0 || ld->l[L_MODELS].count == 0)
        return fail(ld, QD_ERR_BAD_DATA, 4, "no nodes, leafs or models");
    if (ld->l[L_ENTITIES].len > MDL_BSP_MAX_ENTITIES_TEXT)
        return fail(ld, QD_ERR_LIMIT, 4, "entities text over its cap");
    return QD_OK;
}

/* ---- Geometry ---- */

int mdl_read_planes(mdl_bsp *b, rd_t *r, uint32_t count, int with_type)
{
    b->num_planes = count;
    b->planes = mdl_calloc(count, sizeof *b->planes);
    if (!b->planes)
        return 0;
    for (uint32_t i = 0; i < count; i++) {
        mdl_plane *p = &b->planes[i];
        for (int j = 0; j < 3; j++)
            p->normal[j] = rd_f32(r);
        p->dist = rd_f32(r);
        p->type = with_type ? rd_s32(r) : mdl_plane_type(p->normal);
    }
    return 1;
}

static qd_err load_planes(loader *ld)
{
    rd_t r = lump_reader(ld, L_PLANES);
    if (!mdl_read_planes(ld->b, &r, ld->l[L_PLANES].count, 1))
        return fail(ld, QD_ERR_NOMEM, 0, "planes");
    return QD_OK;
}

static qd_err load_vertexes_edges(loader *ld)
{
    uint32_t nv = ld->l[L_VERTEXES].count, ne = ld->l[L_EDGES].count;
    ld->vertexes = mdl_calloc(nv, sizeof *ld->vertexes);
    ld->edges = mdl_calloc(ne, sizeof *ld->edges);
    if (!ld->vertexes || !ld->edges)
        return fail(ld, QD_ERR_NOMEM, 0, "vertexes");
    rd_t r = lump_reader(ld, L_VERTEXES);
    for (uint32_t i = 0; i < nv; i++)
        for (int j = 0; j < 3; j++)
            ld->vertexes[i][j] = rd_f32(&r);
    r = lump_reader(ld, L_EDGES);
    int wide = ld->b->format != MDL_BSP_Q1_29;
    for (uint32_t i = 0; i < ne; i++) {
        for (int j = 0; j < 2; j++) {
            uint32_t v = wide ? rd_u32(&r) : rd_u16(&r);
            if (v >= nv)
                return fail_rec(ld, L_EDGES, i, "vertex index out of range");
            ld->edges[i][j] = v;
        }
    }
    return QD_OK;
}

/* One polygon corner per surfedge: a face's corners are then a range of this array. */
static qd_err load_surfedges(loader *ld)
{
    mdl_bsp *b = ld->b;
    rd_t r = lump_reader(ld, L_SURFEDGES);
    uint32_t ne = ld->l[L_EDGES].count;
    b->num_verts = ld->l[L_SURFEDGES].count;
    b->verts = mdl_calloc(b->num_verts, sizeof *b->verts);
    if (!b->verts)
        return fail(ld, QD_ERR_NOMEM, 0, "surfedges");
    for (uint32_t i = 0; i < b->num_verts; i++) {
        int32_t se = rd_s32(&r);
        uint32_t e, v;
        if (se >= 0) {
            e = (uint32_t)se;
            if (e >= ne)
                return fail_rec(ld, L_SURFEDGES, i, "edge index out of range");
            v = ld->edges[e][0];
        } else {
            if (se == INT32_MIN || (uint32_t)-se >= ne)
                return fail_rec(ld, L_SURFEDGES, i, "edge index out of range");
            v = ld->edges[-se][1];
        }
        memcpy(b->verts[i], ld->vertexes[v], sizeof b->verts[i]);
    }
    return QD_OK;
}

/* ---- Textures: miptex lump (count, offsets, then miptex_t headers and mip levels) ---- */

static int name_starts(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++) {
        char c = *s;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != *prefix)
            return 0;
    }
    return 1;
}

static qd_err load_textures(loader *ld, const uint32_t palette[256])
{
    mdl_bsp *b = ld->b;
    const lump *l = &ld->l[L_TEXTURES];
    rd_t r = lump_reader(ld, L_TEXTURES);
    uint32_t n = l->len >= 4 ? rd_u32(&r) : 0;
    if (n > MDL_BSP_MAX_TEXTURES)
        return fail(ld, QD_ERR_LIMIT, l->ofs, "too many textures");
    if ((uint64_t)n * 4 + 4 > l->len && n)
        return fail(ld, QD_ERR_BAD_DATA, l->ofs, "texture directory longer than its lump");
    b->num_textures = n;
    b->textures = mdl_calloc(n, sizeof *b->textures);
    if (!b->textures)
        return fail(ld, QD_ERR_NOMEM, 0, "textures");
    for (uint32_t i = 0; i < n; i++) {
        mdl_texture *t = &b->textures[i];
        int32_t ofs = rd_s32(&r);
        t->color = MDL_GREY;
        t->flags = MDL_SURF_MISSING;
        /* A missing texture (-1) or a header outside the lump leaves a grey one: damage to
         * colour only. */
        if (ofs < 0 || (uint32_t)ofs > l->len || l->len - (uint32_t)ofs < 40)
            continue;
        rd_t m = rd_make(ld->data + l->ofs + (uint32_t)ofs, l->len - (uint32_t)ofs);
        const uint8_t *name = rd_bytes(&m, 16);
        mdl_copy_name(t->name, sizeof t->name, (const char *)name, 16);
        t->width = rd_u32(&m);
        t->height = rd_u32(&m);
        uint32_t mip0 = rd_u32(&m);
        if (name_starts(t->name, "sky"))
            t->flags |= MDL_SURF_SKY;
        else if (t->name[0] == '*')
            t->flags |= MDL_SURF_TURB;
        if (t->width == 0 || t->height == 0 || t->width > MDL_BSP_MAX_TEX_SIZE ||
            t->height > MDL_BSP_MAX_TEX_SIZE)
            continue;
        size_t npix = (size_t)t->width * t->height;
        if (mip0 > m.len || m.len - mip0 < npix)
            continue; /* pixels absent (external WAD) or outside the lump */
        t->color = mdl_average_color(m.p + mip0, npix, palette, 0, NULL);
        t->flags &= (uint8_t)~MDL_SURF_MISSING;
    }
    return QD_OK;
}

static qd_err load_texinfo(loader *ld)
{
    uint32_t n = ld->l[L_TEXINFO].count;
    rd_t r = lump_reader(ld, L_TEXINFO);
    ld->texinfo = mdl_calloc(n, sizeof *ld->texinfo);
    if (!ld->texinfo)
        return fail(ld, QD_ERR_NOMEM, 0, "texinfo");
    for (uint32_t i = 0; i < n; i++) {
        texinfo *t = &ld->texinfo[i];
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 4; k++)
                t->vecs[j][k] = rd_f32(&r);
        uint32_t miptex = rd_u32(&r);
        t->flags = rd_u32(&r);
        /* Quake's Mod_LoadTexinfo: no textures at all means "notexture"; otherwise the
         * index must be in range. */
        if (ld->b->num_textures == 0)
            t->texture = -1;
        else if (miptex >= ld->b->num_textures)
            return fail_rec(ld, L_TEXINFO, i, "texture index out of range");
        else
            t->texture = (int32_t)miptex;
    }
    return QD_OK;
}

/* ---- Faces ---- */

/* Quake's CalcSurfaceExtents, with the products done in double as QuakeSpasm's gl_model.c
 * does so that the lightmap size matches the light compiler's (x87) arithmetic. */
void mdl_bsp_face_extents(const mdl_bsp *b, const mdl_face *f, const float vecs[2][4],
                          mdl_face_lm *lm)
{
    double mins[2] = {1e30, 1e30}, maxs[2] = {-1e30, -1e30};
    for (uint32_t i = 0; i < f->num_verts; i++) {
        const float *v = b->verts[f->first_vert + i];
        for (int j = 0; j < 2; j++) {
            float val = (float)((double)v[0] * vecs[j][0] + (double)v[1] * vecs[j][1] +
                                (double)v[2] * vecs[j][2] + vecs[j][3]);
            if (val < mins[j])
                mins[j] = val;
            if (val > maxs[j])
                maxs[j] = val;
        }
    }
    for (int j = 0; j < 2; j++) {
        memcpy(lm->vecs[j], vecs[j], sizeof lm->vecs[j]);
        double lo = floor(mins[j] / 16), hi = ceil(maxs[j] / 16);
        /* Hostile (huge or NaN) coordinates could overflow an int: clamp to a sane range. */
        lo = lo > -1e6 ? (lo < 1e6 ? lo : 1e6) : -1e6;
        hi = hi > lo ? (hi < 1e6 ? hi : 1e6) : lo;
        lm->mins[j] = (int32_t)lo * 16;
        lm->extents[j] = (int32_t)(hi - lo) * 16;
    }
}

static void face_light(const mdl_bsp *b, mdl_face *f, mdl_face_lm *lm, uint8_t style0,
                       int32_t lightofs)
{
    lm->ofs = -1;
    f->light = 0;
    if (f->flags & (MDL_SURF_SKY | MDL_SURF_TURB)) {
        f->flags |= MDL_SURF_FULLBRIGHT;
        f->light = 128;
        return;
    }
    if (b->light_len == 0) {
        /* A map compiled without light: engines show it fullbright. */
        f->flags |= MDL_SURF_FULLBRIGHT;
        f->light = 128;
        return;
    }
    if (style0 == 255 || lightofs < 0 || (size_t)lightofs >= b->light_len)
        return; /* unlit face in a lit map: black, as in the engines */
    uint64_t size = (uint64_t)((lm->extents[0] >> 4) + 1) * (uint64_t)((lm->extents[1] >> 4) + 1);
    uint64_t avail = b->light_len - (size_t)lightofs;
    if (size > avail)
        size = avail;
    uint64_t sum = 0;
    const uint8_t *s = b->lightdata + lightofs;
    for (uint64_t i = 0; i < size; i++)
        sum += s[i];
    lm->ofs = lightofs;
    f->light = size ? (float)((double)sum / (double)size) : 0.0f;
}

static qd_err load_faces(loader *ld)
{
    mdl_bsp *b = ld->b;
    rd_t r = lump_reader(ld, L_FACES);
    int wide = b->format != MDL_BSP_Q1_29;
    b->num_faces = ld->l[L_FACES].count;
    b->faces = mdl_calloc(b->num_faces, sizeof *b->faces);
    b->face_lm = mdl_calloc(b->num_faces, sizeof *b->face_lm);
    if (!b->faces || !b->face_lm)
        return fail(ld, QD_ERR_NOMEM, 0, "faces");
    for (uint32_t i = 0; i < b->num_faces; i++) {
        mdl_face *f = &b->faces[i];
        uint32_t plane = wide ? rd_u32(&r) : rd_u16(&r);
        uint32_t side = wide ? rd_u32(&r) : rd_u16(&r);
        uint32_t firstedge = rd_u32(&r);
        uint32_t numedges = wide ? rd_u32(&r) : rd_u16(&r);
        uint32_t tinfo = wide ? rd_u32(&r) : rd_u16(&r);
        uint8_t styles[4];
        for (int j = 0; j < 4; j++)
            styles[j] = rd_u8(&r);
        int32_t lightofs = rd_s32(&r);

        if (plane >= b->num_planes)
            return fail_rec(ld, L_FACES, i, "plane index out of range");
        if (numedges > MDL_BSP_MAX_FACE_VERTS)
            return qd_fail(ld->err, QD_ERR_LIMIT,
                           ld->l[L_FACES].ofs + (uint64_t)i * rec_size[b->format][L_FACES],
                           "%s: face %u has %u edges (cap %u)", ld->name, i, numedges,
                           MDL_BSP_MAX_FACE_VERTS);
        if ((uint64_t)firstedge + numedges > b->num_verts)
            return fail_rec(ld, L_FACES, i, "edge range out of range");
        if (tinfo >= ld->l[L_TEXINFO].count)
            return fail_rec(ld, L_FACES, i, "texinfo index out of range");
        const texinfo *ti = &ld->texinfo[tinfo];
        const mdl_plane *p = &b->planes[plane];

        f->first_vert = firstedge;
        f->num_verts = numedges;
        for (int j = 0; j < 3; j++)
            f->normal[j] = side ? -p->normal[j] : p->normal[j];
        f->dist = side ? -p->dist : p->dist;
        f->texture = ti->texture;
        if (ti->texture >= 0) {
            const mdl_texture *t = &b->textures[ti->texture];
            f->color = t->color;
            f->flags = t->flags & (MDL_SURF_SKY | MDL_SURF_TURB | MDL_SURF_MISSING);
        } else {
            f->color = MDL_GREY;
            f->flags = MDL_SURF_MISSING;
        }
        if (numedges < 3)
            f->flags |= MDL_SURF_NODRAW;
        mdl_bsp_face_extents(b, f, (const float(*)[4])ti->vecs, &b->face_lm[i]);
        if (ti->flags & TEX_SPECIAL && !(f->flags & (MDL_SURF_SKY | MDL_SURF_TURB)))
            f->flags |= MDL_SURF_FULLBRIGHT;
        face_light(b, f, &b->face_lm[i], styles[0], lightofs);
        if (f->flags & MDL_SURF_FULLBRIGHT)
            f->light = 128;
    }
    return QD_OK;
}

/* ---- The tree ---- */

static void read_bounds(rd_t *r, int floats, float mins[3], float maxs[3])
{
    for (int j = 0; j < 3; j++)
        mins[j] = floats ? rd_f32(r) : (float)rd_s16(r);
    for (int j = 0; j < 3; j++)
        maxs[j] = floats ? rd_f32(r) : (float)rd_s16(r);
}

/* Nodes must form a forest whose children come after their parent (id's qbsp and its
 * descendants emit them in pre-order), each node with at most one parent: then every walk is
 * linear and ends, whatever the file says. Depth is capped so recursive walks are bounded. */
static qd_err load_nodes(loader *ld)
{
    mdl_bsp *b = ld->b;
    rd_t r = lump_reader(ld, L_NODES);
    int wide = b->format != MDL_BSP_Q1_29;
    uint32_t nn = ld->l[L_NODES].count, nl = ld->l[L_LEAFS].count;
    b->num_nodes = nn;
    b->nodes = mdl_calloc(nn, sizeof *b->nodes);
    uint16_t *depth = mdl_calloc(nn, sizeof *depth);
    uint8_t *has_parent = mdl_calloc(nn, 1);
    qd_err e = QD_OK;
    if (!b->nodes || !depth || !has_parent) {
        e = fail(ld, QD_ERR_NOMEM, 0, "nodes");
        goto out;
    }
    for (uint32_t i = 0; i < nn; i++) {
        mdl_node *n = &b->nodes[i];
        n->plane = rd_u32(&r);
        for (int j = 0; j < 2; j++) {
            int32_t c;
            if (wide) {
                c = rd_s32(&r);
                if (c >= 0 && (uint32_t)c >= nn)
                    c = INT32_MIN; /* flagged below */
                else if (c < 0 && (c == INT32_MIN || (uint32_t)(-(c + 1)) >= nl))
                    c = INT32_MIN;
            } else {
                /* BSP29 children are int16; QuakeSpasm reads them unsigned so that maps
                 * with more than 32767 nodes work: below numnodes a node, else leaf
                 * 65535 - child. */
                uint32_t u = rd_u16(&r);
                if (u < nn)
                    c = (int32_t)u;
                else if (65535 - u < nl)
                    c = -(int32_t)(65535 - u) - 1;
                else
                    c = INT32_MIN;
            }
            if (c == INT32_MIN) {
                e = fail_rec(ld, L_NODES, i, "child index out of range");
                goto out;
            }
            if (c >= 0) {
                if ((uint32_t)c <= i || has_parent[c]) {
                    e = fail_rec(ld, L_NODES, i, "child node is not below its parent");
                    goto out;
                }
                has_parent[c] = 1;
                depth[c] = (uint16_t)(depth[i] + 1);
                if (depth[c] > MDL_BSP_MAX_DEPTH) {
                    e = qd_fail(ld->err, QD_ERR_LIMIT, ld->l[L_NODES].ofs,
                                "%s: tree deeper than %d", ld->name, MDL_BSP_MAX_DEPTH);
                    goto out;
                }
            }
            n->children[j] = c;
        }
        read_bounds(&r, b->format == MDL_BSP_Q1_BSP2, n->mins, n->maxs);
        n->first_face = wide ? rd_u32(&r) : rd_u16(&r);
        n->num_faces = wide ? rd_u32(&r) : rd_u16(&r);
        if (n->plane >= b->num_planes) {
            e = fail_rec(ld, L_NODES, i, "plane index out of range");
            goto out;
        }
        if ((uint64_t)n->first_face + n->num_faces > b->num_faces) {
            e = fail_rec(ld, L_NODES, i, "face range out of range");
            goto out;
        }
    }
out:
    free(depth);
    free(has_parent);
    return e;
}

static qd_err load_leaves(loader *ld)
{
    mdl_bsp *b = ld->b;
    rd_t r = lump_reader(ld, L_LEAFS);
    int wide = b->format != MDL_BSP_Q1_29;
    b->num_leaves = ld->l[L_LEAFS].count;
    b->leaves = mdl_calloc(b->num_leaves, sizeof *b->leaves);
    if (!b->leaves)
        return fail(ld, QD_ERR_NOMEM, 0, "leafs");
    for (uint32_t i = 0; i < b->num_leaves; i++) {
        mdl_leaf *lf = &b->leaves[i];
        lf->contents = rd_s32(&r);
        lf->visofs = rd_s32(&r);
        read_bounds(&r, b->format == MDL_BSP_Q1_BSP2, lf->mins, lf->maxs);
        lf->first_mark = wide ? rd_u32(&r) : rd_u16(&r);
        lf->num_marks = wide ? rd_u32(&r) : rd_u16(&r);
        rd_skip(&r, 4); /* ambient sound levels */
        if ((uint64_t)lf->first_mark + lf->num_marks > b->num_marks)
            return fail_rec(ld, L_LEAFS, i, "marksurface range out of range");
        /* A visofs outside the vis data damages only culling: that leaf sees everything. */
        if (lf->visofs < 0 || (size_t)lf->visofs >= b->vis_len)
            lf->visofs = -1;
    }
    return QD_OK;
}

static qd_err load_marks(loader *ld)
{
    mdl_bsp *b = ld->b;
    rd_t r = lump_reader(ld, L_MARKSURFACES);
    int wide = b->format != MDL_BSP_Q1_29;
    b->num_marks = ld->l[L_MARKSURFACES].count;
    b->marks = mdl_calloc(b->num_marks, sizeof *b->marks);
    if (!b->marks)
        return fail(ld, QD_ERR_NOMEM, 0, "marksurfaces");
    for (uint32_t i = 0; i < b->num_marks; i++) {
        b->marks[i] = wide ? rd_u32(&r) : rd_u16(&r);
        if (b->marks[i] >= b->num_faces)
            return fail_rec(ld, L_MARKSURFACES, i, "face index out of range");
    }
    return QD_OK;
}

static qd_err load_models(loader *ld)
{
    mdl_bsp *b = ld->b;
    rd_t r = lump_reader(ld, L_MODELS);
    b->num_models = ld->l[L_MODELS].count;
    if (b->num_models > MDL_BSP_MAX_MODELS)
        return fail(ld, QD_ERR_LIMIT, ld->l[L_MODELS].ofs, "too many models");
    b->models = mdl_calloc(b->num_models, sizeof *b->models);
    if (!b->models)
        return fail(ld, QD_ERR_NOMEM, 0, "models");
    for (uint32_t i = 0; i < b->num_models; i++) {
        mdl_submodel *m = &b->models[i];
        for (int j = 0; j < 3; j++)
            m->mins[j] = rd_f32(&r);
        for (int j = 0; j < 3; j++)
            m->maxs[j] = rd_f32(&r);
        for (int j = 0; j < 3; j++)
            m->origin[j] = rd_f32(&r);
        m->headnode = rd_s32(&r);
        rd_skip(&r, 12); /* clipping hulls 1..3 */
        int32_t visleafs = rd_s32(&r);
        m->first_face = rd_u32(&r);
        m->num_faces = rd_u32(&r);
        if (m->headnode < 0 || (uint32_t)m->headnode >= b->num_nodes)
            return fail_rec(ld, L_MODELS, i, "headnode out of range");
        if ((uint64_t)m->first_face + m->num_faces > b->num_faces)
            return fail_rec(ld, L_MODELS, i, "face range out of range");
        /* visleafs only sizes the PVS rows: clamp it to the leaves there are. */
        if (visleafs < 0)
            visleafs = 0;
        if ((uint32_t)visleafs > b->num_leaves - 1)
            visleafs = (int32_t)(b->num_leaves - 1);
        m->visleafs = (uint32_t)visleafs;
    }
    return QD_OK;
}

static qd_err copy_bytes(loader *ld, int lumpno, uint8_t **dst, size_t *len)
{
    const lump *l = &ld->l[lumpno];
    *dst = mdl_calloc(l->len, 1);
    if (!*dst)
        return fail(ld, QD_ERR_NOMEM, 0, lump_names[lumpno]);
    memcpy(*dst, ld->data + l->ofs, l->len);
    *len = l->len;
    return QD_OK;
}

qd_err mdl_bsp_set_entities(mdl_bsp *b, const uint8_t *p, size_t len)
{
    const uint8_t *nul = len ? memchr(p, 0, len) : NULL;
    size_t n = nul ? (size_t)(nul - p) : len;
    b->entities = malloc(n + 1);
    if (!b->entities)
        return QD_ERR_NOMEM;
    if (n)
        memcpy(b->entities, p, n);
    b->entities[n] = 0;
    mdl_entity_value(b->entities, "worldspawn", 0, "message", b->message, sizeof b->message);
    return QD_OK;
}

static qd_err load_entities(loader *ld)
{
    const lump *l = &ld->l[L_ENTITIES];
    if (mdl_bsp_set_entities(ld->b, ld->data + l->ofs, l->len) != QD_OK)
        return fail(ld, QD_ERR_NOMEM, 0, "entities");
    return QD_OK;
}

qd_err mdl_bsp_load(const uint8_t *data, size_t len, const char *name,
                    const uint32_t palette[256], mdl_bsp **out, qd_error *err)
{
    *out = NULL;
    loader ld = {.data = data, .len = len, .err = err, .name = name ? name : "map"};
    if (!data)
        return fail(&ld, QD_ERR_USAGE, 0, "no data");
    mdl_bsp *b = calloc(1, sizeof *b);
    if (!b)
        return fail(&ld, QD_ERR_NOMEM, 0, "map");
    ld.b = b;
    mdl_copy_name(b->name, sizeof b->name, ld.name, strlen(ld.name));
    qd_err e;
    /* Quake II and III: "IBSP" then the version (yquake2 files.h BSPVERSION 38; ioq3
     * qfiles.h BSP_VERSION 46). Other IBSP versions fall to read_header's refusal. */
    if (len >= 8 && memcmp(data, "IBSP", 4) == 0) {
        rd_t r = rd_make(data + 4, 4);
        uint32_t version = rd_u32(&r);
        e = QD_ERR_UNSUPPORTED;
        if (version == 38)
            e = mdl_bsp38_load(data, len, ld.name, b, err);
        else if (version == 46)
            e = mdl_bsp46_load(data, len, ld.name, b, err);
        if (version == 38 || version == 46) {
            if (e != QD_OK) {
                mdl_bsp_free(b);
                b = NULL;
            }
            *out = b;
            return e;
        }
    }
    if ((e = read_header(&ld)) || (e = copy_bytes(&ld, L_VISIBILITY, &b->visdata, &b->vis_len)) ||
        (e = copy_bytes(&ld, L_LIGHTING, &b->lightdata, &b->light_len)) ||
        (e = load_planes(&ld)) || (e = load_vertexes_edges(&ld)) ||
        (e = load_surfedges(&ld)) || (e = load_textures(&ld, palette)) ||
        (e = load_texinfo(&ld)) || (e = load_faces(&ld)) || (e = load_marks(&ld)) ||
        (e = load_leaves(&ld)) || (e = load_nodes(&ld)) || (e = load_models(&ld)) ||
        (e = load_entities(&ld))) {
        mdl_bsp_free(b);
        b = NULL;
    }
    free(ld.vertexes);
    free(ld.edges);
    free(ld.texinfo);
    *out = b;
    return e;
}

void mdl_bsp_free(mdl_bsp *b)
{
    if (!b)
        return;
    free(b->planes);
    free(b->verts);
    free(b->faces);
    free(b->face_lm);
    free(b->textures);
    free(b->nodes);
    free(b->leaves);
    free(b->marks);
    free(b->models);
    free(b->visdata);
    free(b->lightdata);
    free(b->entities);
    free(b->cluster_ofs);
    free(b->lightgrid);
    free(b);
}

/* ---- Queries ---- */

uint32_t mdl_bsp_point_leaf(const mdl_bsp *b, int32_t root, const float p[3])
{
    int32_t n = root;
    if (n < 0 || (uint32_t)n >= b->num_nodes)
        return 0;
    /* Children always have larger indices (checked at load), so this ends. */
    while (n >= 0) {
        const mdl_node *node = &b->nodes[n];
        const mdl_plane *pl = &b->planes[node->plane];
        float d = pl->normal[0] * p[0] + pl->normal[1] * p[1] + pl->normal[2] * p[2] - pl->dist;
        n = node->children[d >= 0 ? 0 : 1];
    }
    return (uint32_t)(-(n + 1));
}

size_t mdl_bsp_pvs_size(const mdl_bsp *b)
{
    size_t leaves = b->num_models ? b->models[0].visleafs : 0;
    size_t row = (leaves + 7) / 8;
    return row ? row : 1;
}

/* Quake's Mod_DecompressVis: a zero byte is followed by a count of zero bytes. */
void mdl_bsp_pvs(const mdl_bsp *b, uint32_t leaf, uint8_t *out)
{
    if (b->format == MDL_BSP_Q2_38 || b->format == MDL_BSP_Q3_46) {
        mdl_bsp_cluster_pvs(b, leaf, out);
        return;
    }
    size_t row = mdl_bsp_pvs_size(b);
    if (leaf == 0 || leaf >= b->num_leaves || b->leaves[leaf].visofs < 0) {
        memset(out, 0xff, row);
        return;
    }
    size_t o = mdl_vis_decompress(b->visdata + b->leaves[leaf].visofs,
                                  b->visdata + b->vis_len, out, row);
    /* Data cut short: what it does not say is visible, so nothing is wrongly culled. */
    if (o < row)
        memset(out + o, 0xff, row - o);
}

size_t mdl_vis_decompress(const uint8_t *in, const uint8_t *end, uint8_t *out, size_t row)
{
    size_t o = 0;
    while (o < row && in < end) {
        uint8_t c = *in++;
        if (c) {
            out[o++] = c;
            continue;
        }
        if (in >= end)
            break;
        size_t run = *in++;
        while (run-- && o < row)
            out[o++] = 0;
    }
    return o;
}

/* Quake's RecursiveLightPoint (r_light.c): follow the segment start-end down the tree and
 * return the style-0 lightmap sample of the first face it hits, or -1. */
static int light_recurse(const mdl_bsp *b, int32_t n, const float start[3], const float end[3])
{
    if (n < 0)
        return -1;
    const mdl_node *node = &b->nodes[n];
    const mdl_plane *pl = &b->planes[node->plane];
    float front = pl->normal[0] * start[0] + pl->normal[1] * start[1] +
                  pl->normal[2] * start[2] - pl->dist;
    float back = pl->normal[0] * end[0] + pl->normal[1] * end[1] + pl->normal[2] * end[2] -
                 pl->dist;
    int side = front < 0;
    if ((back < 0) == side)
        return light_recurse(b, node->children[side], start, end);
    float frac = front / (front - back);
    float mid[3];
    for (int j = 0; j < 3; j++)
        mid[j] = start[j] + (end[j] - start[j]) * frac;
    int r = light_recurse(b, node->children[side], start, mid);
    if (r >= 0)
        return r;
    for (uint32_t i = 0; i < node->num_faces; i++) {
        uint32_t fi = node->first_face + i;
        const mdl_face *f = &b->faces[fi];
        const mdl_face_lm *lm = &b->face_lm[fi];
        if (f->flags & (MDL_SURF_SKY | MDL_SURF_TURB))
            continue;
        float s = mid[0] * lm->vecs[0][0] + mid[1] * lm->vecs[0][1] + mid[2] * lm->vecs[0][2] +
                  lm->vecs[0][3];
        float t = mid[0] * lm->vecs[1][0] + mid[1] * lm->vecs[1][1] + mid[2] * lm->vecs[1][2] +
                  lm->vecs[1][3];
        if (!(s >= (float)lm->mins[0] && t >= (float)lm->mins[1]))
            continue;
        float ds = s - (float)lm->mins[0], dt = t - (float)lm->mins[1];
        if (ds > (float)lm->extents[0] || dt > (float)lm->extents[1])
            continue;
        if (lm->ofs < 0)
            return 0;
        size_t cell = (size_t)((int)dt >> 4) * (size_t)((lm->extents[0] >> 4) + 1) +
                      (size_t)((int)ds >> 4);
        if (b->light_rgb) { /* Q2: R, G, B per luxel (yquake2 R_RecursiveLightPoint) */
            size_t idx = (size_t)lm->ofs + cell * 3;
            if (idx >= b->light_len || b->light_len - idx < 3)
                return 0;
            const uint8_t *c = b->lightdata + idx;
            return (c[0] + c[1] + c[2]) / 3;
        }
        size_t idx = (size_t)lm->ofs + cell;
        return idx < b->light_len ? b->lightdata[idx] : 0;
    }
    return light_recurse(b, node->children[!side], mid, end);
}

int mdl_bsp_light_point(const mdl_bsp *b, const float p[3], float *light)
{
    if (b->format == MDL_BSP_Q3_46)
        return mdl_bsp46_light_point(b, p, light);
    if (b->light_len == 0) {
        *light = 255;
        return 1;
    }
    float end[3] = {p[0], p[1], p[2] - 2048};
    int r = light_recurse(b, b->models[0].headnode, p, end);
    *light = r > 0 ? (float)r : 0.0f;
    return r >= 0;
}
