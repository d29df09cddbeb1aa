/* mdl_bspcore.c: the map loader core shared by Quake (BSP29, BSP2, 2PSB) and Quake II (IBSP
 * 38), whose lumps have one layout but for index widths: lump table, planes, polygon corners,
 * faces, marks, nodes and the tree check, submodels; Quake III (IBSP 46) shares the lump table,
 * planes and nodes.
 *
 * Format facts: id's Quake bspfile.h and yquake2 files.h (both GPL) give the records; the
 * widths per format are in mdl_bsp.c and mdl_bsp38.c's header comments. Leaves: Quake numbers
 * them from the shared solid leaf 0; IBSP files leave that leaf out, so qdemo shifts them by
 * one (file leaf k is leaf k + 1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rd.h"
#include "model_local.h"

/* ---- Formats: what differs between the Quake and Quake II records ---- */

/* BSP2 and 2PSB: 32-bit edge, face, node-face and mark indices. */
static int q1_wide(mdl_bsp_format f)
{
    return f == MDL_BSP_Q1_BSP2 || f == MDL_BSP_Q1_2PSB;
}

/* Quake II and III: file leaf k is leaf k + 1. */
static uint32_t leaf_shift(mdl_bsp_format f)
{
    return f == MDL_BSP_Q2_38 || f == MDL_BSP_Q3_46;
}

/* ---- The loader and its lump table ---- */

qd_err mdl_map_open(mdl_map *m, const mdl_map_format *f, const uint8_t *data, size_t len,
                    const char *name, mdl_bsp *b, qd_error *err)
{
    *m = (mdl_map){.data = data, .len = len, .name = name, .err = err, .b = b, .f = f};
    size_t header = f->header + (size_t)f->num_lumps * 8;
    if (f->num_lumps > MDL_MAP_MAX_LUMPS || len < header)
        return qd_fail(err, QD_ERR_TRUNCATED, len, "%s: lump table cut off", name);
    rd_t r = rd_make(data, len);
    rd_skip(&r, f->header);
    for (int i = 0; i < f->num_lumps; i++) {
        mdl_lump *l = &m->l[i];
        uint64_t at = f->header + (uint64_t)i * 8;
        l->ofs = rd_u32(&r);
        l->len = rd_u32(&r);
        if ((uint64_t)l->ofs + (uint64_t)l->len > (uint64_t)len)
            return qd_fail(err, QD_ERR_TRUNCATED, at,
                           "%s: lump %s (%u bytes at %u) ends past the file (%zu bytes)", name,
                           f->names[i], l->len, l->ofs, len);
        if (l->len % f->rec[i])
            return qd_fail(err, QD_ERR_BAD_DATA, at,
                           "%s: lump %s size %u is not a multiple of %u", name, f->names[i],
                           l->len, f->rec[i]);
        l->count = l->len / f->rec[i];
        if (f->rec[i] > 1 && l->count > MDL_BSP_MAX_RECORDS)
            return qd_fail(err, QD_ERR_LIMIT, at, "%s: %u %s (cap %u)", name, l->count,
                           f->names[i], MDL_BSP_MAX_RECORDS);
    }
    if (m->l[f->nodes].count == 0 || m->l[f->leafs].count == 0 || m->l[f->models].count == 0)
        return qd_fail(err, QD_ERR_BAD_DATA, f->header, "%s: no nodes, leafs or models", name);
    if (m->l[f->entities].len > MDL_BSP_MAX_ENTITIES_TEXT)
        return qd_fail(err, QD_ERR_LIMIT, f->header, "%s: entities text over its cap", name);
    return QD_OK;
}

rd_t mdl_map_rd(const mdl_map *m, int lump)
{
    return rd_make(m->data + m->l[lump].ofs, m->l[lump].len);
}

qd_err mdl_map_bad(const mdl_map *m, int lump, uint32_t i, const char *what)
{
    uint64_t ofs = (uint64_t)m->l[lump].ofs + (uint64_t)i * m->f->rec[lump];
    return qd_fail(m->err, QD_ERR_BAD_DATA, ofs, "%s: %s %u: %s", m->name, m->f->names[lump], i,
                   what);
}

qd_err mdl_map_nomem(const mdl_map *m, const char *what)
{
    return qd_fail(m->err, QD_ERR_NOMEM, 0, "%s: %s: out of memory", m->name, what);
}

void *mdl_map_alloc(const mdl_map *m, int lump, size_t size, uint32_t *count)
{
    *count = m->l[lump].count;
    return mdl_calloc(*count, size);
}

qd_err mdl_map_copy(const mdl_map *m, int lump, uint8_t **dst, size_t *len)
{
    const mdl_lump *l = &m->l[lump];
    *dst = mdl_calloc(l->len, 1);
    if (!*dst)
        return mdl_map_nomem(m, m->f->names[lump]);
    memcpy(*dst, m->data + l->ofs, l->len);
    *len = l->len;
    return QD_OK;
}

qd_err mdl_map_entities(const mdl_map *m)
{
    const mdl_lump *l = &m->l[m->f->entities];
    if (mdl_bsp_set_entities(m->b, m->data + l->ofs, l->len) != QD_OK)
        return mdl_map_nomem(m, "entities");
    return QD_OK;
}

/* ---- Geometry ---- */

/* normal, dist, then (with_type) Quake's plane type */
static int read_planes(mdl_bsp *b, rd_t *r, uint32_t count, int with_type)
{
    b->num_planes = count;
    b->planes = mdl_calloc(count, sizeof *b->planes);
    if (!b->planes)
        return 0;
    for (uint32_t i = 0; i < count; i++) {
        mdl_plane *p = &b->planes[i];
        mdl_rd_vec3(r, p->normal);
        p->dist = rd_f32(r);
        p->type = with_type ? rd_s32(r) : mdl_plane_type(p->normal);
    }
    return 1;
}

qd_err mdl_map_planes(const mdl_map *m)
{
    rd_t r = mdl_map_rd(m, m->f->planes);
    if (!read_planes(m->b, &r, m->l[m->f->planes].count, m->b->format != MDL_BSP_Q3_46))
        return mdl_map_nomem(m, "planes");
    return QD_OK;
}

qd_err mdl_map_corners(const mdl_map *m)
{
    mdl_bsp *b = m->b;
    const mdl_map_format *f = m->f;
    uint32_t nv = m->l[f->vertexes].count, ne = m->l[f->edges].count;
    float(*vx)[3] = mdl_calloc(nv, sizeof *vx);
    uint32_t(*ed)[2] = mdl_calloc(ne, sizeof *ed);
    b->num_verts = m->l[f->surfedges].count;
    b->verts = mdl_calloc(b->num_verts, sizeof *b->verts);
    qd_err e = QD_OK;
    if (!vx || !ed || !b->verts) {
        e = mdl_map_nomem(m, "vertexes");
        goto out;
    }
    rd_t r = mdl_map_rd(m, f->vertexes);
    for (uint32_t i = 0; i < nv; i++)
        mdl_rd_vec3(&r, vx[i]);
    r = mdl_map_rd(m, f->edges);
    int wide = q1_wide(b->format);
    for (uint32_t i = 0; i < ne && !e; i++)
        for (int j = 0; j < 2; j++) {
            ed[i][j] = wide ? rd_u32(&r) : rd_u16(&r);
            if (ed[i][j] >= nv) {
                e = mdl_map_bad(m, f->edges, i, "vertex index out of range");
                break;
            }
        }
    r = mdl_map_rd(m, f->surfedges);
    for (uint32_t i = 0; i < b->num_verts && !e; i++) {
        int32_t se = rd_s32(&r);
        uint32_t v;
        if (se >= 0 && (uint32_t)se < ne)
            v = ed[se][0];
        else if (se < 0 && se != INT32_MIN && (uint32_t)-se < ne)
            v = ed[-se][1];
        else {
            e = mdl_map_bad(m, f->surfedges, i, "edge index out of range");
            break;
        }
        memcpy(b->verts[i], vx[v], sizeof b->verts[i]);
    }
out:
    free(vx);
    free(ed);
    return e;
}

/* ---- Faces ---- */

/* Quake's CalcSurfaceExtents, with the products done in double as QuakeSpasm's gl_model.c
 * does so that the lightmap size matches the light compiler's (x87) arithmetic. */
static void face_extents(const mdl_bsp *b, const mdl_face *f, const float vecs[2][4],
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

/* The average brightness of the face's first light style: the mean of its samples (Q2: of R,
 * G and B), on Quake's scale (128 shows the texture as it is). Sky, liquids and maps without
 * light are fullbright; a face without samples in a lit map is black in Quake and fullbright
 * in Quake II (yquake2 R_BuildLightMap). */
static void face_light(const mdl_bsp *b, mdl_face *f, mdl_face_lm *lm, const uint8_t styles[4],
                       int32_t lightofs)
{
    lm->ofs = -1;
    f->light = 0;
    int unlit = styles[0] == 255 || lightofs < 0 || (size_t)lightofs >= b->light_len;
    if (f->flags & (MDL_SURF_SKY | MDL_SURF_TURB) || b->light_len == 0 ||
        (unlit && b->format == MDL_BSP_Q2_38)) {
        f->flags |= MDL_SURF_FULLBRIGHT;
        f->light = 128;
        return;
    }
    if (unlit)
        return;
    uint64_t per = b->light_rgb ? 3 : 1;
    uint64_t size = (uint64_t)((lm->extents[0] >> 4) + 1) * (uint64_t)((lm->extents[1] >> 4) + 1);
    uint64_t avail = (b->light_len - (size_t)lightofs) / per;
    /* The styles whose whole lightmap lies inside the lump (a style of 255 ends the list). */
    while (lm->num_styles < 4 && styles[lm->num_styles] != 255 &&
           (uint64_t)(lm->num_styles + 1) * size <= avail) {
        lm->styles[lm->num_styles] = styles[lm->num_styles];
        lm->num_styles++;
    }
    if (size > avail)
        size = avail;
    /* Every luxel up to 4,096 of them (a real face has at most a few hundred: 256 texels a
     * side); past that every step-th, so that a hostile face's extents (clamped only to
     * +-1e6 luxels) cannot make each face walk the whole lump: 50,000 faces over 1 MB of
     * light took 29 s before (found by a review) */
    const uint64_t step = size > 4096 ? (size + 4095) / 4096 : 1;
    uint64_t sum = 0, count = 0;
    const uint8_t *s = b->lightdata + lightofs;
    for (uint64_t i = 0; i < size; i += step)
        for (uint64_t c = 0; c < per; c++, count++)
            sum += s[i * per + c];
    lm->ofs = lightofs;
    f->light = count ? (float)((double)sum / (double)count) : 0.0f;
}

qd_err mdl_map_faces(const mdl_map *m, const mdl_texinfo *ti, uint32_t num_texinfo)
{
    mdl_bsp *b = m->b;
    int lump = m->f->faces;
    rd_t r = mdl_map_rd(m, lump);
    int wide = q1_wide(b->format);
    b->faces = mdl_map_alloc(m, lump, sizeof *b->faces, &b->num_faces);
    b->face_lm = mdl_calloc(b->num_faces, sizeof *b->face_lm);
    if (!b->faces || !b->face_lm)
        return mdl_map_nomem(m, "faces");
    for (uint32_t i = 0; i < b->num_faces; i++) {
        mdl_face *f = &b->faces[i];
        /* dface_t: Quake and Quake II alike; BSP2 widens the 16-bit fields. */
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
            return mdl_map_bad(m, lump, i, "plane index out of range");
        if (numedges > MDL_BSP_MAX_FACE_VERTS)
            return qd_fail(m->err, QD_ERR_LIMIT,
                           m->l[lump].ofs + (uint64_t)i * m->f->rec[lump],
                           "%s: face %u has %u edges (cap %u)", m->name, i, numedges,
                           MDL_BSP_MAX_FACE_VERTS);
        if ((uint64_t)firstedge + numedges > b->num_verts)
            return mdl_map_bad(m, lump, i, "edge range out of range");
        if (tinfo >= num_texinfo)
            return mdl_map_bad(m, lump, i, "texinfo index out of range");
        const mdl_texinfo *t = &ti[tinfo];
        const mdl_plane *p = &b->planes[plane];
        f->first_vert = firstedge;
        f->num_verts = numedges;
        for (int j = 0; j < 3; j++)
            f->normal[j] = side ? -p->normal[j] : p->normal[j];
        f->dist = side ? -p->dist : p->dist;
        f->texture = t->texture;
        if (t->texture >= 0) {
            f->color = b->textures[t->texture].color;
            f->flags = b->textures[t->texture].flags;
        } else {
            f->color = MDL_GREY;
            f->flags = MDL_SURF_MISSING;
        }
        f->flags |= t->flags;
        if (numedges < 3)
            f->flags |= MDL_SURF_NODRAW;
        face_extents(b, f, (const float(*)[4])t->vecs, &b->face_lm[i]);
        face_light(b, f, &b->face_lm[i], styles, lightofs);
        if (f->flags & MDL_SURF_FULLBRIGHT)
            f->light = 128;
    }
    return QD_OK;
}

qd_err mdl_map_marks(const mdl_map *m)
{
    mdl_bsp *b = m->b;
    int lump = m->f->marks;
    rd_t r = mdl_map_rd(m, lump);
    int wide = q1_wide(b->format);
    b->marks = mdl_map_alloc(m, lump, sizeof *b->marks, &b->num_marks);
    if (!b->marks)
        return mdl_map_nomem(m, m->f->names[lump]);
    for (uint32_t i = 0; i < b->num_marks; i++) {
        b->marks[i] = wide ? rd_u32(&r) : rd_u16(&r);
        if (b->marks[i] >= b->num_faces)
            return mdl_map_bad(m, lump, i, "face index out of range");
    }
    return QD_OK;
}

/* ---- The tree ---- */

void mdl_rd_bounds(rd_t *r, mdl_bsp_format fmt, float mins[3], float maxs[3])
{
    for (int j = 0; j < 6; j++) {
        float *v = j < 3 ? &mins[j] : &maxs[j - 3];
        *v = fmt == MDL_BSP_Q1_BSP2  ? rd_f32(r)
             : fmt == MDL_BSP_Q3_46 ? (float)rd_s32(r)
                                    : (float)rd_s16(r);
    }
}

/* One dnode_t: plane, two children, bounds, then (but in Quake III) a face range. BSP29's
 * children are int16 that QuakeSpasm reads unsigned so that maps with more than 32767 nodes
 * work: below numnodes a node, else leaf 65535 - child; they become the IBSP convention here
 * (>= 0 a node, < 0 file leaf -(c + 1)). */
static void read_node(rd_t *r, mdl_bsp_format fmt, uint32_t num_nodes, mdl_node *n)
{
    n->plane = rd_u32(r);
    for (int j = 0; j < 2; j++) {
        if (fmt == MDL_BSP_Q1_29) {
            uint32_t u = rd_u16(r);
            n->children[j] = u < num_nodes ? (int32_t)u : -(int32_t)(65535 - u) - 1;
        } else {
            n->children[j] = rd_s32(r);
        }
    }
    mdl_rd_bounds(r, fmt, n->mins, n->maxs);
    if (fmt == MDL_BSP_Q3_46)
        return;
    n->first_face = q1_wide(fmt) ? rd_u32(r) : rd_u16(r);
    n->num_faces = q1_wide(fmt) ? rd_u32(r) : rd_u16(r);
}

/* Nodes must form a forest whose children come after their parent (id's qbsp and its
 * descendants emit them in pre-order), each node with at most one parent: then every walk is
 * linear and ends, whatever the file says. Depth is capped so recursive walks are bounded.
 * Leaf children are shifted to qdemo's numbering on the way. */
static qd_err tree_check(const mdl_map *m)
{
    mdl_bsp *b = m->b;
    uint32_t nn = b->num_nodes, num_file_leaves = m->l[m->f->leafs].count;
    uint32_t shift = leaf_shift(b->format);
    uint16_t *depth = mdl_calloc(nn, sizeof *depth);
    uint8_t *has_parent = mdl_calloc(nn, 1);
    qd_err e = QD_OK;
    if (!depth || !has_parent) {
        e = mdl_map_nomem(m, "nodes");
        goto out;
    }
    for (uint32_t i = 0; i < nn && e == QD_OK; i++) {
        mdl_node *n = &b->nodes[i];
        uint64_t at = (uint64_t)m->l[m->f->nodes].ofs + (uint64_t)i * m->f->rec[m->f->nodes];
        for (int j = 0; j < 2; j++) {
            int32_t c = n->children[j];
            if (c >= 0) {
                if ((uint32_t)c >= nn) {
                    e = qd_fail(m->err, QD_ERR_BAD_DATA, at, "%s: node %u: child out of range",
                                m->name, i);
                    break;
                }
                if ((uint32_t)c <= i || has_parent[c]) {
                    e = qd_fail(m->err, QD_ERR_BAD_DATA, at,
                                "%s: node %u: child node is not below its parent", m->name, i);
                    break;
                }
                has_parent[c] = 1;
                depth[c] = (uint16_t)(depth[i] + 1);
                if (depth[c] > MDL_BSP_MAX_DEPTH) {
                    e = qd_fail(m->err, QD_ERR_LIMIT, at, "%s: tree deeper than %d", m->name,
                                MDL_BSP_MAX_DEPTH);
                    break;
                }
            } else {
                if (c == INT32_MIN || (uint32_t)(-(c + 1)) >= num_file_leaves) {
                    e = qd_fail(m->err, QD_ERR_BAD_DATA, at, "%s: node %u: leaf out of range",
                                m->name, i);
                    break;
                }
                n->children[j] = c - (int32_t)shift;
            }
        }
    }
out:
    free(depth);
    free(has_parent);
    return e;
}

qd_err mdl_map_nodes(const mdl_map *m)
{
    mdl_bsp *b = m->b;
    int lump = m->f->nodes;
    rd_t r = mdl_map_rd(m, lump);
    b->nodes = mdl_map_alloc(m, lump, sizeof *b->nodes, &b->num_nodes);
    if (!b->nodes)
        return mdl_map_nomem(m, "nodes");
    for (uint32_t i = 0; i < b->num_nodes; i++) {
        mdl_node *n = &b->nodes[i];
        read_node(&r, b->format, b->num_nodes, n);
        if (n->plane >= b->num_planes)
            return mdl_map_bad(m, lump, i, "plane index out of range");
        if ((uint64_t)n->first_face + n->num_faces > b->num_faces)
            return mdl_map_bad(m, lump, i, "face range out of range");
    }
    return tree_check(m);
}

/* ---- Submodels ---- */

qd_err mdl_map_model_table(const mdl_map *m)
{
    int lump = m->f->models;
    if (m->l[lump].count > MDL_BSP_MAX_MODELS)
        return qd_fail(m->err, QD_ERR_LIMIT, m->l[lump].ofs, "%s: too many models", m->name);
    m->b->models = mdl_map_alloc(m, lump, sizeof *m->b->models, &m->b->num_models);
    if (!m->b->models)
        return mdl_map_nomem(m, "models");
    return QD_OK;
}

qd_err mdl_map_models(const mdl_map *m)
{
    mdl_bsp *b = m->b;
    int lump = m->f->models;
    rd_t r = mdl_map_rd(m, lump);
    int q1 = b->format <= MDL_BSP_Q1_2PSB;
    qd_err e = mdl_map_model_table(m);
    if (e)
        return e;
    for (uint32_t i = 0; i < b->num_models; i++) {
        mdl_submodel *sm = &b->models[i];
        mdl_rd_vec3(&r, sm->mins);
        mdl_rd_vec3(&r, sm->maxs);
        mdl_rd_vec3(&r, sm->origin);
        sm->headnode = rd_s32(&r);
        int32_t visleafs = 0;
        if (q1) {
            rd_skip(&r, 12); /* clipping hulls 1..3 */
            visleafs = rd_s32(&r);
        }
        sm->first_face = rd_u32(&r);
        sm->num_faces = rd_u32(&r);
        /* A Quake II brush model whose tree is a single leaf has a leaf for its headnode
         * (-(leaf + 1), e.g. in Mission64's titlemap); it keeps the world's root, since
         * headnode is a node index here and submodels draw their face range anyway. */
        if (!q1 && sm->headnode < 0 && i > 0 && sm->headnode != INT32_MIN &&
            (uint32_t)(-(sm->headnode + 1)) < m->l[m->f->leafs].count)
            sm->headnode = 0;
        if (sm->headnode < 0 || (uint32_t)sm->headnode >= b->num_nodes)
            return mdl_map_bad(m, lump, i, "headnode out of range");
        if ((uint64_t)sm->first_face + sm->num_faces > b->num_faces)
            return mdl_map_bad(m, lump, i, "face range out of range");
        /* Quake's visleafs only sizes the PVS rows: clamp it to the leaves there are. Quake
         * II's world covers every leaf of the file. */
        if (!q1)
            visleafs = i == 0 ? (int32_t)(b->num_leaves - 1) : 0;
        if (visleafs < 0)
            visleafs = 0;
        if ((uint32_t)visleafs > b->num_leaves - 1)
            visleafs = (int32_t)(b->num_leaves - 1);
        sm->visleafs = (uint32_t)visleafs;
    }
    return QD_OK;
}
