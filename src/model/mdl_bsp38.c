/* mdl_bsp38.c: loads Quake II maps (IBSP version 38) into the format-neutral mdl_bsp, and the
 * pieces the Quake II and Quake III loaders share (cluster PVS, colours from texture names);
 * the records Quake II shares with Quake are read by mdl_bspcore.c.
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

/* ---- Shared by the Quake II and Quake III loaders ---- */

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
#define Q2_SURF_TRANS33 0x10
#define Q2_SURF_TRANS66 0x20
#define Q2_SURF_FLOWING 0x40
/* An animation chain longer than this is a hostile map's (Quake II's have a few frames). */
#define Q2_MAX_ANIM 64
/* dleaf_t contents bits (yquake2 files.h) */
#define Q2_CONTENTS_SOLID 1
#define Q2_CONTENTS_LAVA 8
#define Q2_CONTENTS_SLIME 16
#define Q2_CONTENTS_WATER 32

static const mdl_map_format q2_format = {
    .header = 8, .num_lumps = Q2_COUNT, .rec = q2_rec, .names = q2_names,
    .entities = Q2_ENTITIES, .planes = Q2_PLANES, .vertexes = Q2_VERTEXES, .edges = Q2_EDGES,
    .surfedges = Q2_SURFEDGES, .faces = Q2_FACES, .marks = Q2_LEAFFACES, .nodes = Q2_NODES,
    .leafs = Q2_LEAFS, .models = Q2_MODELS,
};

/* One texture per texinfo: its name, a colour from the name, its SURF_ flags. The texture
 * vectors go into face_lm when the faces are read. */
static qd_err q2_texinfo(const mdl_map *ld, mdl_texinfo **out)
{
    mdl_bsp *b = ld->b;
    uint32_t n = ld->l[Q2_TEXINFO].count;
    if (n > MDL_BSP_MAX_TEXTURES)
        return qd_fail(ld->err, QD_ERR_LIMIT, ld->l[Q2_TEXINFO].ofs, "%s: %u texinfo (cap %u)",
                       ld->name, n, MDL_BSP_MAX_TEXTURES);
    b->num_textures = n;
    b->textures = mdl_calloc(n, sizeof *b->textures);
    mdl_texinfo *ti = *out = mdl_calloc(n, sizeof *ti);
    if (!b->textures || !ti)
        return mdl_map_nomem(ld, "texinfo");
    rd_t r = mdl_map_rd(ld, Q2_TEXINFO);
    for (uint32_t i = 0; i < n; i++) {
        mdl_texture *t = &b->textures[i];
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 4; k++)
                ti[i].vecs[j][k] = rd_f32(&r);
        ti[i].texture = (int32_t)i;
        uint32_t flags = rd_u32(&r);
        rd_skip(&r, 4); /* value */
        const uint8_t *nm = rd_bytes(&r, 32);
        int32_t next = (int32_t)rd_u32(&r);
        /* yquake2: a next of 0 or less ends the chain (texinfo 0 is never a frame) */
        t->anim_next = next > 0 && (uint32_t)next < n ? next : -1;
        mdl_copy_name(t->name, sizeof t->name, nm ? (const char *)nm : "", nm ? 32 : 0);
        t->color = mdl_name_color(t->name);
        t->flags = MDL_SURF_MISSING;
        if (flags & Q2_SURF_SKY)
            t->flags |= MDL_SURF_SKY;
        if (flags & Q2_SURF_WARP)
            t->flags |= MDL_SURF_TURB;
        if (flags & Q2_SURF_NODRAW)
            t->flags |= MDL_SURF_NODRAW;
        if (flags & Q2_SURF_FLOWING)
            t->flags |= MDL_SURF_FLOWING;
        if (flags & Q2_SURF_TRANS33)
            t->flags |= MDL_SURF_TRANS33;
        else if (flags & Q2_SURF_TRANS66)
            t->flags |= MDL_SURF_TRANS66;
    }
    /* The frames of each chain: counted from the texinfo to the chain's end or back to it,
     * as yquake2 counts numframes; a chain that runs into a loop without it, or longer than
     * Q2_MAX_ANIM, is not animated (the walk is bounded either way: n x Q2_MAX_ANIM). */
    for (uint32_t i = 0; i < n; i++) {
        mdl_texture *t = &b->textures[i];
        int32_t j = t->anim_next;
        unsigned count = 1;
        while (j >= 0 && (uint32_t)j != i && count <= Q2_MAX_ANIM) {
            j = b->textures[j].anim_next;
            count++;
        }
        t->anim_first = (int32_t)i;
        t->anim_count = count > 1 && count <= Q2_MAX_ANIM ? (uint8_t)count : 0;
        t->alt_first = -1;
    }
    return QD_OK;
}

/* dleaf_t; file leaf i is leaves[i + 1] behind the shared solid leaf 0. */
static qd_err q2_leaves(const mdl_map *ld)
{
    mdl_bsp *b = ld->b;
    uint32_t nl = ld->l[Q2_LEAFS].count;
    b->num_leaves = nl + 1;
    b->leaves = mdl_calloc(b->num_leaves, sizeof *b->leaves);
    if (!b->leaves)
        return mdl_map_nomem(ld, "leafs");
    b->leaves[0].contents = MDL_CONTENTS_SOLID;
    b->leaves[0].cluster = -1;
    b->leaves[0].visofs = -1;
    rd_t r = mdl_map_rd(ld, Q2_LEAFS);
    for (uint32_t i = 0; i < nl; i++) {
        mdl_leaf *lf = &b->leaves[i + 1];
        uint32_t contents = rd_u32(&r);
        lf->cluster = rd_s16(&r);
        lf->area = rd_s16(&r);
        mdl_rd_bounds(&r, b->format, lf->mins, lf->maxs);
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
            return mdl_map_bad(ld, Q2_LEAFS, i, "leaf face range out of range");
        if (lf->cluster < -1 || (b->num_clusters && lf->cluster >= (int32_t)b->num_clusters))
            return mdl_map_bad(ld, Q2_LEAFS, i, "cluster out of range");
    }
    return QD_OK;
}

/* dvis_t: the PVS offset of each cluster. A row outside the lump damages only culling. */
static qd_err q2_vis(const mdl_map *ld)
{
    mdl_bsp *b = ld->b;
    const mdl_lump *l = &ld->l[Q2_VISIBILITY];
    qd_err e = mdl_map_copy(ld, Q2_VISIBILITY, &b->visdata, &b->vis_len);
    if (e)
        return e;
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
        return mdl_map_nomem(ld, "visibility");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pvs = rd_u32(&r);
        rd_skip(&r, 4); /* PHS */
        b->cluster_ofs[i] = pvs < l->len ? pvs : UINT32_MAX;
    }
    return QD_OK;
}

/* R, G, B per luxel. */
static qd_err q2_light(const mdl_map *ld)
{
    ld->b->light_rgb = 1;
    return mdl_map_copy(ld, Q2_LIGHTING, &ld->b->lightdata, &ld->b->light_len);
}

qd_err mdl_bsp38_load(const uint8_t *data, size_t len, const char *name, mdl_bsp *b,
                      qd_error *err)
{
    mdl_map m;
    mdl_texinfo *ti = NULL;
    b->format = MDL_BSP_Q2_38;
    qd_err e;
    if ((e = mdl_map_open(&m, &q2_format, data, len, name, b, err)) || (e = q2_vis(&m)) ||
        (e = q2_light(&m)) || (e = mdl_map_planes(&m)) || (e = mdl_map_corners(&m)) ||
        (e = q2_texinfo(&m, &ti)) || (e = mdl_map_faces(&m, ti, b->num_textures)) ||
        (e = mdl_map_marks(&m)) || (e = q2_leaves(&m)) || (e = mdl_map_nodes(&m)) ||
        (e = mdl_map_models(&m)) || (e = mdl_map_entities(&m))) {
        free(ti);
        return e;
    }
    free(ti);
    return QD_OK;
}
