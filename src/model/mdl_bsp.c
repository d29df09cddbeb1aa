/* mdl_bsp.c: loads Quake BSP29, BSP2 and 2PSB maps into the format-neutral mdl_bsp.
 *
 * Format facts: id's Quake source (GPL) bspfile.h for BSP29 (lump order, dface_t, dnode_t,
 * dleaf_t, dmodel_t, miptex_t); ericw-tools include/common/bspfile.hh (GPL-2.0) for BSP2,
 * whose header ident is "BSP2" (BSP2VERSION) with bsp2_dnode_t/bsp2_dleaf_t (int32 children,
 * float bounds, uint32 face and marksurface ranges), bsp2_dface_t (int32 fields), uint32
 * edges and marksurfaces and 12-byte clipnodes, and for the older RMQ variant whose ident
 * reads "2PSB" on disk (BSP2RMQVERSION = 'B'<<24|'S'<<16|'P'<<8|'2') with the same records
 * except int16 node and leaf bounds (bsp2rmq_dnode_t, bsp2rmq_dleaf_t). */
#include <stdlib.h>
#include <string.h>

#include "../common/rd.h"
#include "model_local.h"

enum {
    L_ENTITIES, L_PLANES, L_TEXTURES, L_VERTEXES, L_VISIBILITY, L_NODES, L_TEXINFO, L_FACES,
    L_LIGHTING, L_CLIPNODES, L_LEAFS, L_MARKSURFACES, L_EDGES, L_SURFEDGES, L_MODELS, L_COUNT
};

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

/* The lump table follows the version (bspfile.h dheader_t). */
#define Q1_FORMAT(v)                                                                         \
    {.header = 4, .num_lumps = L_COUNT, .rec = rec_size[v], .names = lump_names,               \
     .entities = L_ENTITIES, .planes = L_PLANES, .vertexes = L_VERTEXES, .edges = L_EDGES,     \
     .surfedges = L_SURFEDGES, .faces = L_FACES, .marks = L_MARKSURFACES, .nodes = L_NODES,    \
     .leafs = L_LEAFS, .models = L_MODELS}
static const mdl_map_format q1_formats[3] = {
    [MDL_BSP_Q1_29] = Q1_FORMAT(MDL_BSP_Q1_29),
    [MDL_BSP_Q1_BSP2] = Q1_FORMAT(MDL_BSP_Q1_BSP2),
    [MDL_BSP_Q1_2PSB] = Q1_FORMAT(MDL_BSP_Q1_2PSB),
};

/* ---- Header: the version picks the format, then the core validates the lump table ---- */

static qd_err read_header(mdl_map *m, const uint8_t *data, size_t len, const char *name,
                          mdl_bsp *b, qd_error *err)
{
    if (len < 4)
        return qd_fail(err, QD_ERR_TRUNCATED, 0, "%s: shorter than a BSP header", name);
    rd_t r = rd_make(data, len);
    uint32_t version = rd_u32(&r);
    if (version == 29)
        b->format = MDL_BSP_Q1_29;
    else if (memcmp(data, "BSP2", 4) == 0)
        b->format = MDL_BSP_Q1_BSP2;
    else if (memcmp(data, "2PSB", 4) == 0)
        b->format = MDL_BSP_Q1_2PSB;
    else if (memcmp(data, "IBSP", 4) == 0 || memcmp(data, "RBSP", 4) == 0 || version == 30)
        return qd_fail(err, QD_ERR_UNSUPPORTED, 0,
                       "%s: unsupported map (IBSP other than 38/46, RBSP or Half-Life)", name);
    else
        return qd_fail(err, QD_ERR_BAD_DATA, 0, "%s: not a BSP file", name);
    return mdl_map_open(m, &q1_formats[b->format], data, len, name, b, err);
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

/* Quake's Mod_LoadTextures sequencing: "+0".."+9" and "+a".."+j" prefixes of one base name
 * form the main and the alternate cycle. A cycle must be complete from its first frame: a
 * gap leaves the textures after it out, as the engine refuses such a map (here only the
 * animation is lost). */
static int anim_frame(const char *name, int *alt)
{
    if (name[0] != '+')
        return -1;
    char c = name[1];
    if (c >= 'A' && c <= 'J')
        c = (char)(c - 'A' + 'a');
    *alt = c >= 'a' && c <= 'j';
    return c >= '0' && c <= '9' ? c - '0' : *alt ? c - 'a' : -1;
}

static void link_animations(mdl_bsp *b)
{
    /* a texture a scan has passed (its base name's) starts none of its own: a frame named
     * twice, left out of its cycle, scanned again from itself, so n copies cost n^2 / 2
     * (65,536 entries of one "+0" name took 16 s; a review). NULL: as before. */
    uint8_t *seen = calloc(b->num_textures ? b->num_textures : 1, 1);
    for (uint32_t i = 0; i < b->num_textures; i++) {
        mdl_texture *t = &b->textures[i];
        int alt;
        if (t->anim_count || t->alt_count || (seen && seen[i]) || anim_frame(t->name, &alt) < 0)
            continue;
        int32_t cyc[2][10];
        int num[2] = {0, 0};
        for (int k = 0; k < 2; k++)
            for (int f = 0; f < 10; f++)
                cyc[k][f] = -1;
        for (uint32_t j = i; j < b->num_textures; j++) {
            const mdl_texture *u = &b->textures[j];
            int a, fr = anim_frame(u->name, &a);
            if (fr < 0 || strcmp(u->name + 2, t->name + 2) != 0)
                continue;
            if (seen)
                seen[j] = 1;
            if (cyc[a][fr] >= 0)
                continue;
            cyc[a][fr] = (int32_t)j;
        }
        for (int k = 0; k < 2; k++)
            while (num[k] < 10 && cyc[k][num[k]] >= 0)
                num[k]++;
        for (int k = 0; k < 2; k++)
            for (int f = 0; f < num[k]; f++) {
                mdl_texture *u = &b->textures[cyc[k][f]];
                u->anim_first = num[0] ? cyc[0][0] : -1;
                u->anim_count = (uint8_t)num[0];
                u->alt_first = num[1] ? cyc[1][0] : -1;
                u->alt_count = (uint8_t)num[1];
                u->anim_next = cyc[k][(f + 1) % num[k]];
            }
    }
    free(seen);
}

/* The average colour of a texture's npix pixels: all of them up to 65,536 (256 x 256, the
 * most a real map's texture has), else every step-th, at most 65,536 (entries of a hostile
 * map's texture list may all name one 4096 x 4096 picture: 256 of them took 5 s, 65,536
 * would take minutes; a review). */
static uint32_t texture_average(const uint8_t *pix, size_t npix, const uint32_t palette[256])
{
    enum { SAMPLE = 65536 };
    if (npix <= SAMPLE)
        return mdl_average_color(pix, npix, palette, 0, NULL);
    uint8_t *s = malloc(SAMPLE);
    if (!s)
        return mdl_average_color(pix, 1, palette, 0, NULL);
    size_t step = (npix + SAMPLE - 1) / SAMPLE, n = 0;
    for (size_t i = 0; i < npix && n < SAMPLE; i += step)
        s[n++] = pix[i];
    uint32_t c = mdl_average_color(s, n, palette, 0, NULL);
    free(s);
    return c;
}

static qd_err load_textures(const mdl_map *ld, const uint32_t palette[256])
{
    mdl_bsp *b = ld->b;
    const mdl_lump *l = &ld->l[L_TEXTURES];
    rd_t r = mdl_map_rd(ld, L_TEXTURES);
    uint32_t n = l->len >= 4 ? rd_u32(&r) : 0;
    if (n > MDL_BSP_MAX_TEXTURES)
        return qd_fail(ld->err, QD_ERR_LIMIT, l->ofs, "%s: too many textures", ld->name);
    if ((uint64_t)n * 4 + 4 > l->len && n)
        return qd_fail(ld->err, QD_ERR_BAD_DATA, l->ofs,
                       "%s: texture directory longer than its lump", ld->name);
    b->num_textures = n;
    b->textures = mdl_calloc(n, sizeof *b->textures);
    if (!b->textures)
        return mdl_map_nomem(ld, "textures");
    size_t tex_len;
    qd_err e = mdl_map_copy(ld, L_TEXTURES, &b->texdata, &tex_len);
    if (e)
        return e;
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
        t->color = texture_average(m.p + mip0, npix, palette);
        t->flags &= (uint8_t)~MDL_SURF_MISSING;
        /* Level k is (width >> k) x (height >> k) at its own offset; one outside the lump is
         * left out (miptex_t offsets[4] are relative to the miptex header). */
        uint32_t base = (uint32_t)ofs;
        t->mips[0] = b->texdata + base + mip0;
        rd_t o = rd_make(ld->data + l->ofs + base + 28, 12);
        for (int k = 1; k < 4; k++) {
            uint32_t mo = rd_u32(&o);
            size_t mw = t->width >> k, mh = t->height >> k;
            if (mw && mh && mo <= m.len && m.len - mo >= mw * mh)
                t->mips[k] = b->texdata + base + mo;
        }
    }
    link_animations(b);
    return QD_OK;
}

/* Texinfo: texture vectors and the miptex; TEX_SPECIAL (sky, liquids) is fullbright. */
static qd_err load_texinfo(const mdl_map *ld, mdl_texinfo **out)
{
    uint32_t n = ld->l[L_TEXINFO].count;
    rd_t r = mdl_map_rd(ld, L_TEXINFO);
    mdl_texinfo *ti = *out = mdl_calloc(n, sizeof *ti);
    if (!ti)
        return mdl_map_nomem(ld, "texinfo");
    for (uint32_t i = 0; i < n; i++) {
        mdl_texinfo *t = &ti[i];
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 4; k++)
                t->vecs[j][k] = rd_f32(&r);
        uint32_t miptex = rd_u32(&r);
        uint32_t flags = rd_u32(&r);
        /* Quake's Mod_LoadTexinfo: no textures at all means "notexture"; otherwise the
         * index must be in range. */
        if (ld->b->num_textures == 0)
            t->texture = -1;
        else if (miptex >= ld->b->num_textures)
            return mdl_map_bad(ld, L_TEXINFO, i, "texture index out of range");
        else
            t->texture = (int32_t)miptex;
        uint8_t tex_flags = t->texture >= 0 ? ld->b->textures[t->texture].flags : 0;
        if (flags & TEX_SPECIAL && !(tex_flags & (MDL_SURF_SKY | MDL_SURF_TURB)))
            t->flags = MDL_SURF_FULLBRIGHT;
    }
    return QD_OK;
}

/* ---- Leaves (dleaf_t: BSP2 float bounds, BSP2/2PSB 32-bit mark ranges) ---- */

static qd_err load_leaves(const mdl_map *ld)
{
    mdl_bsp *b = ld->b;
    rd_t r = mdl_map_rd(ld, L_LEAFS);
    int wide = b->format != MDL_BSP_Q1_29;
    b->leaves = mdl_map_alloc(ld, L_LEAFS, sizeof *b->leaves, &b->num_leaves);
    if (!b->leaves)
        return mdl_map_nomem(ld, "leafs");
    for (uint32_t i = 0; i < b->num_leaves; i++) {
        mdl_leaf *lf = &b->leaves[i];
        lf->contents = rd_s32(&r);
        lf->visofs = rd_s32(&r);
        mdl_rd_bounds(&r, b->format, lf->mins, lf->maxs);
        lf->first_mark = wide ? rd_u32(&r) : rd_u16(&r);
        lf->num_marks = wide ? rd_u32(&r) : rd_u16(&r);
        for (int k = 0; k < 4; k++)
            lf->ambient[k] = rd_u8(&r); /* ambient_level[NUM_AMBIENTS] (bspfile.h) */
        if ((uint64_t)lf->first_mark + lf->num_marks > b->num_marks)
            return mdl_map_bad(ld, L_LEAFS, i, "marksurface range out of range");
        /* A visofs outside the vis data damages only culling: that leaf sees everything. */
        if (lf->visofs < 0 || (size_t)lf->visofs >= b->vis_len)
            lf->visofs = -1;
    }
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

static qd_err bsp_load(const uint8_t *data, size_t len, const char *name,
                       const uint32_t palette[256], mdl_bsp **out, qd_error *err, int names)
{
    *out = NULL;
    name = name ? name : "map";
    if (!data)
        return qd_fail(err, QD_ERR_USAGE, 0, "%s: no data", name);
    mdl_bsp *b = calloc(1, sizeof *b);
    if (!b)
        return qd_fail(err, QD_ERR_NOMEM, 0, "%s: map", name);
    mdl_copy_name(b->name, sizeof b->name, name, strlen(name));
    qd_err e;
    /* Quake II and III: "IBSP" then the version (yquake2 files.h BSPVERSION 38; ioq3
     * qfiles.h BSP_VERSION 46). Other IBSP versions fall to read_header's refusal. */
    if (len >= 8 && memcmp(data, "IBSP", 4) == 0) {
        rd_t r = rd_make(data + 4, 4);
        uint32_t version = rd_u32(&r);
        e = QD_ERR_UNSUPPORTED;
        if (version == 38)
            e = mdl_bsp38_load(data, len, name, b, err);
        else if (version == 46) {
            b->names_only = (uint8_t)(names != 0);
            e = mdl_bsp46_load(data, len, name, b, err);
        }
        if (version == 38 || version == 46) {
            if (e != QD_OK) {
                mdl_bsp_free(b);
                b = NULL;
            }
            *out = b;
            return e;
        }
    }
    mdl_map m;
    mdl_texinfo *ti = NULL;
    if ((e = read_header(&m, data, len, name, b, err)) ||
        (e = mdl_map_copy(&m, L_VISIBILITY, &b->visdata, &b->vis_len)) ||
        (e = mdl_map_copy(&m, L_LIGHTING, &b->lightdata, &b->light_len)) ||
        (e = mdl_map_planes(&m)) || (e = mdl_map_corners(&m)) ||
        (e = load_textures(&m, palette)) || (e = load_texinfo(&m, &ti)) ||
        (e = mdl_map_faces(&m, ti, m.l[L_TEXINFO].count)) || (e = mdl_map_marks(&m)) ||
        (e = load_leaves(&m)) || (e = mdl_map_nodes(&m)) || (e = mdl_map_models(&m)) ||
        (e = mdl_map_entities(&m))) {
        mdl_bsp_free(b);
        b = NULL;
    }
    free(ti);
    *out = b;
    return e;
}

qd_err mdl_bsp_load(const uint8_t *data, size_t len, const char *name,
                    const uint32_t palette[256], mdl_bsp **out, qd_error *err)
{
    return bsp_load(data, len, name, palette, out, err, 0);
}

qd_err mdl_bsp_load_names(const uint8_t *data, size_t len, const char *name, mdl_bsp **out,
                          qd_error *err)
{
    return bsp_load(data, len, name, NULL, out, err, 1);
}

void mdl_bsp_free(mdl_bsp *b)
{
    if (!b)
        return;
    free(b->planes);
    free(b->verts);
    free(b->faces);
    free(b->face_lm);
    free(b->face_q3);
    free(b->fogs);
    free(b->lightmaps);
    free(b->textures);
    free(b->nodes);
    free(b->leaves);
    free(b->marks);
    free(b->models);
    free(b->visdata);
    free(b->lightdata);
    free(b->texdata);
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
static int light_recurse(const mdl_bsp *b, int32_t n, const float start[3], const float end[3],
                         const int *style)
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
        return light_recurse(b, node->children[side], start, end, style);
    float frac = front / (front - back);
    float mid[3];
    for (int j = 0; j < 3; j++)
        mid[j] = start[j] + (end[j] - start[j]) * frac;
    int r = light_recurse(b, node->children[side], start, mid, style);
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
        size_t lw = (size_t)((lm->extents[0] >> 4) + 1), lh = (size_t)((lm->extents[1] >> 4) + 1);
        size_t cell = (size_t)((int)dt >> 4) * lw + (size_t)((int)ds >> 4);
        /* WinQuake r_light.c RecursiveLightPoint (and ezQuake's R_LightFromSurface): every
         * style's sample times its value (256 the normal), summed, / 256; Quake II's the
         * mean of R, G, B the same way (yquake2 R_RecursiveLightPoint). The face's
         * lightmaps lie inside lightdata (mdl_bspcore face_light), the cell within the
         * face's. */
        int64_t sum = 0;
        for (int k = 0; k < lm->num_styles; k++) {
            int value = !style ? 256
                               : style[lm->styles[k] < MDL_LIGHT_STYLES ? lm->styles[k] : 0];
            size_t at = (size_t)k * lw * lh + cell;
            if (b->light_rgb) {
                const uint8_t *c = b->lightdata + (size_t)lm->ofs + at * 3;
                sum += (int64_t)((c[0] + c[1] + c[2]) / 3) * value;
            } else {
                sum += (int64_t)b->lightdata[(size_t)lm->ofs + at] * value;
            }
        }
        sum >>= 8;
        return sum > 65535 ? 65535 : (int)sum;
    }
    return light_recurse(b, node->children[!side], mid, end, style);
}

int mdl_bsp_light_point(const mdl_bsp *b, const float p[3], const int *style, float *light)
{
    if (b->format == MDL_BSP_Q3_46)
        return mdl_bsp46_light_point(b, p, light);
    if (b->light_len == 0) {
        *light = 255;
        return 1;
    }
    float end[3] = {p[0], p[1], p[2] - 2048};
    int r = light_recurse(b, b->models[0].headnode, p, end, style);
    *light = r > 0 ? (float)r : 0.0f;
    return r >= 0;
}
