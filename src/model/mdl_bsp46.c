/* mdl_bsp46.c: loads Quake III Arena maps (IBSP version 46; OpenArena's maps) into the
 * format-neutral mdl_bsp: every drawn surface becomes triangles, each an mdl_face.
 *
 * Format facts: Kekoa Proudfoot, "Unofficial Quake 3 Map Specs" (mralligator.com/q3) and
 * ioq3 code/qcommon/qfiles.h (GPL-2.0): 17 lumps (entities, shaders, planes, nodes, leafs,
 * leafsurfaces, leafbrushes, models, brushes, brushsides, drawverts, drawindexes (meshverts),
 * fogs, surfaces, lightmaps, lightgrid, visibility); dshader_t (char[64], int surfaceFlags,
 * contentFlags: 72 bytes), dplane_t (16), dnode_t (int plane, children[2], mins[3], maxs[3]:
 * 36), dleaf_t (int cluster, area, mins[3], maxs[3], firstLeafSurface, numLeafSurfaces,
 * firstLeafBrush, numLeafBrushes: 48), dmodel_t (float mins[3], maxs[3], int firstSurface,
 * numSurfaces, firstBrush, numBrushes: 40), drawVert_t (xyz, st[2], lightmap[2], normal,
 * byte color[4]: 44), dsurface_t (104: shader, fog, type, firstVert, numVerts, firstIndex,
 * numIndexes, lightmapNum, lightmapX/Y/Width/Height, lightmapOrigin, lightmapVecs[3] whose
 * [2] is a planar surface's normal, patchWidth, patchHeight), surface types 1 planar, 2 patch,
 * 3 triangle soup, 4 flare; lightmaps 128x128 RGB; visibility: int numClusters, int
 * clusterBytes, then plain bit rows. Surface flags SURF_SKY 0x4 and SURF_NODRAW 0x80, contents
 * CONTENTS_LAVA 8, SLIME 16, WATER 32, FOG 64 (ioq3 code/game/surfaceflags.h). Triangles of
 * planar and soup surfaces index drawverts from firstVert; patches are grids of 3x3
 * biquadratic Bezier pieces sharing edges (ioq3 code/renderergl1/tr_curve.c). The light
 * grid has cells of 64x64x128 units over the world model's bounds, 8 bytes each (ambient RGB,
 * directed RGB, direction) (ioq3 code/renderergl1/tr_bsp.c R_LoadLightGrid). Lightmap,
 * vertex colour and grid bytes are shown shifted left by r_mapOverBrightBits (2) in all
 * (tr_bsp.c R_ColorShiftLightingBytes, with the hardware overbright bit in fullscreen), so
 * a byte of 64 shows the texture as it is: twice the byte is Quake's light scale, on which
 * 128 is the texture's own colour. Quake III's front faces are
 * clockwise as Quake's (GL_FRONT culling of counter-clockwise triangles in tr_backend.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rd.h"
#include "model_local.h"

enum {
    Q3_ENTITIES, Q3_SHADERS, Q3_PLANES, Q3_NODES, Q3_LEAFS, Q3_LEAFSURFACES, Q3_LEAFBRUSHES,
    Q3_MODELS, Q3_BRUSHES, Q3_BRUSHSIDES, Q3_DRAWVERTS, Q3_DRAWINDEXES, Q3_FOGS, Q3_SURFACES,
    Q3_LIGHTMAPS, Q3_LIGHTGRID, Q3_VISIBILITY, Q3_COUNT
};

#define LM_SIZE 128
#define LM_BYTES (LM_SIZE * LM_SIZE * 3)

static const uint32_t q3_rec[Q3_COUNT] = {1, 72, 16, 36, 48, 4, 4, 40, 12,
                                          8, 44, 4,  72, 104, LM_BYTES, 8, 1};
static const char *const q3_names[Q3_COUNT] = {
    "entities",   "shaders", "planes",      "nodes", "leafs",     "leafsurfaces",
    "leafbrushes", "models", "brushes",     "brushsides", "drawverts", "drawindexes",
    "fogs",       "surfaces", "lightmaps",  "lightgrid", "visibility",
};

#define Q3_SURF_SKY 0x4
#define Q3_SURF_NOIMPACT 0x10 /* surfaceflags.h; with NOMARKS: no wall marks (tr_marks.c) */
#define Q3_SURF_NOMARKS 0x20
#define Q3_SURF_NODRAW 0x80
#define Q3_CONTENTS_LIQUID (8 | 16 | 32)
#define Q3_CONTENTS_FOG 64

#define MST_PLANAR 1
#define MST_PATCH 2
#define MST_TRIANGLE_SOUP 3

/* A 3x3 piece of a patch is cut into n x m cells, each way as many as keep the straight
 * segments within PATCH_ERROR units of the curve (a quadratic's chord misses it by
 * |P0 - 2 P1 + P2| / 4, and by that over n^2 with n segments), 1..PATCH_MAX_LEVEL. Pieces
 * in one column share their count across, pieces in one row their count down, so that
 * neighbours meet without cracks (ioq3 tr_curve.c subdivides the whole grid the same way). */
#define PATCH_ERROR 1.0f
#define PATCH_MAX_LEVEL 16
#define PATCH_MAX_SIDE 129 /* control points along a patch side (q3map's MAX_PATCH_SIZE 32
                            * is far below; this only bounds the arithmetic) */

typedef struct dvert {
    float xyz[3];
    float st[2];
    float lm[2];
    float normal[3];
    uint8_t color[4];
} dvert;

static const mdl_map_format q3_format = {
    .header = 8, .num_lumps = Q3_COUNT, .rec = q3_rec, .names = q3_names,
    .entities = Q3_ENTITIES, .planes = Q3_PLANES, .vertexes = -1, .edges = -1, .surfedges = -1,
    .faces = -1, .marks = -1, .nodes = Q3_NODES, .leafs = Q3_LEAFS, .models = Q3_MODELS,
};

/* The map, and what the loader keeps while it runs. */
typedef struct q3_loader {
    mdl_map m;
    dvert *verts;
    uint32_t *surf_first, *surf_count; /* each surface's range of mdl_faces */
} q3_loader;

static qd_err q3_shaders(q3_loader *ld)
{
    mdl_bsp *b = ld->m.b;
    uint32_t n = ld->m.l[Q3_SHADERS].count;
    if (n > MDL_BSP_MAX_TEXTURES)
        return qd_fail(ld->m.err, QD_ERR_LIMIT, ld->m.l[Q3_SHADERS].ofs, "%s: %u shaders (cap %u)",
                       ld->m.name, n, MDL_BSP_MAX_TEXTURES);
    b->num_textures = n;
    b->textures = mdl_calloc(n, sizeof *b->textures);
    if (!b->textures)
        return mdl_map_nomem(&ld->m, "shaders");
    rd_t r = mdl_map_rd(&ld->m, Q3_SHADERS);
    for (uint32_t i = 0; i < n; i++) {
        mdl_texture *t = &b->textures[i];
        const uint8_t *nm = rd_bytes(&r, 64);
        uint32_t flags = rd_u32(&r), contents = rd_u32(&r);
        mdl_copy_name(t->name, sizeof t->name, nm ? (const char *)nm : "", nm ? 64 : 0);
        t->color = mdl_name_color(t->name);
        t->flags = MDL_SURF_MISSING;
        if (flags & Q3_SURF_SKY)
            t->flags |= MDL_SURF_SKY;
        if (flags & Q3_SURF_NODRAW || contents & Q3_CONTENTS_FOG)
            t->flags |= MDL_SURF_NODRAW;
        t->fog = !(flags & Q3_SURF_NODRAW) && (contents & Q3_CONTENTS_FOG);
        if (contents & Q3_CONTENTS_LIQUID)
            t->flags |= MDL_SURF_TURB;
        t->nomarks = (flags & (Q3_SURF_NOIMPACT | Q3_SURF_NOMARKS)) || (contents & Q3_CONTENTS_FOG);
    }
    return QD_OK;
}

static qd_err q3_verts(q3_loader *ld)
{
    uint32_t n = ld->m.l[Q3_DRAWVERTS].count;
    ld->verts = mdl_calloc(n, sizeof *ld->verts);
    if (!ld->verts)
        return mdl_map_nomem(&ld->m, "drawverts");
    rd_t r = mdl_map_rd(&ld->m, Q3_DRAWVERTS);
    for (uint32_t i = 0; i < n; i++) {
        dvert *v = &ld->verts[i];
        for (int j = 0; j < 3; j++)
            v->xyz[j] = rd_f32(&r);
        v->st[0] = rd_f32(&r);
        v->st[1] = rd_f32(&r);
        v->lm[0] = rd_f32(&r);
        v->lm[1] = rd_f32(&r);
        for (int j = 0; j < 3; j++)
            v->normal[j] = rd_f32(&r);
        for (int j = 0; j < 4; j++)
            v->color[j] = rd_u8(&r);
    }
    return QD_OK;
}

typedef struct dsurf {
    uint32_t shader, type, first_vert, num_verts, first_index, num_indexes;
    int32_t fog;
    int32_t lightmap;
    float normal[3];
    uint32_t pw, ph;
} dsurf;

static dsurf read_surf(rd_t *r)
{
    dsurf s;
    s.shader = rd_u32(r);
    s.fog = rd_s32(r);
    s.type = rd_u32(r);
    s.first_vert = rd_u32(r);
    s.num_verts = rd_u32(r);
    s.first_index = rd_u32(r);
    s.num_indexes = rd_u32(r);
    s.lightmap = rd_s32(r);
    rd_skip(r, 16 + 12 + 24); /* lightmap rectangle, origin, vecs[0..1] */
    for (int j = 0; j < 3; j++)
        s.normal[j] = rd_f32(r);
    s.pw = rd_u32(r);
    s.ph = rd_u32(r);
    return s;
}

/* Cells across piece column x (along u: dir 0) or down piece row y (dir 1) of patch s. */
static uint32_t patch_level(const q3_loader *ld, const dsurf *s, int dir, uint32_t k)
{
    uint32_t np = dir ? (s->pw - 1) / 2 : (s->ph - 1) / 2; /* pieces the other way */
    float worst = 0;
    for (uint32_t o = 0; o < np; o++)
        for (uint32_t line = 0; line < 3; line++) {
            const float *p[3];
            for (uint32_t j = 0; j < 3; j++) {
                uint32_t col = dir ? 2 * o + line : 2 * k + j;
                uint32_t row = dir ? 2 * k + j : 2 * o + line;
                p[j] = ld->verts[s->first_vert + row * s->pw + col].xyz;
            }
            float d2 = 0;
            for (int c = 0; c < 3; c++) {
                float e = (p[0][c] - 2 * p[1][c] + p[2][c]) * 0.25f;
                d2 += e * e;
            }
            worst = d2 > worst ? d2 : worst;
        }
    float n = ceilf(sqrtf(sqrtf(worst) / PATCH_ERROR));
    return !(n >= 1) ? 1 : n > PATCH_MAX_LEVEL ? PATCH_MAX_LEVEL : (uint32_t)n;
}

/* Triangles a surface becomes; 0 for flares, unknown types and malformed patches. Index and
 * vertex ranges are checked here, before anything is built. */
static qd_err surf_tris(q3_loader *ld, uint32_t i, const dsurf *s, uint64_t *tris)
{
    *tris = 0;
    if (s->shader >= ld->m.b->num_textures)
        return mdl_map_bad(&ld->m, Q3_SURFACES, i, "shader index out of range");
    if (s->type != MST_PLANAR && s->type != MST_PATCH && s->type != MST_TRIANGLE_SOUP)
        return QD_OK;
    if ((uint64_t)s->first_vert + s->num_verts > ld->m.l[Q3_DRAWVERTS].count)
        return mdl_map_bad(&ld->m, Q3_SURFACES, i, "vertex range out of range");
    if (s->type == MST_PATCH) {
        if (s->pw < 3 || s->ph < 3 || !(s->pw & 1) || !(s->ph & 1) || s->pw > PATCH_MAX_SIDE ||
            s->ph > PATCH_MAX_SIDE || (uint64_t)s->pw * s->ph > s->num_verts)
            return mdl_map_bad(&ld->m, Q3_SURFACES, i, "bad patch size");
        uint64_t across = 0, down = 0;
        for (uint32_t x = 0; x < (s->pw - 1) / 2; x++)
            across += patch_level(ld, s, 0, x);
        for (uint32_t y = 0; y < (s->ph - 1) / 2; y++)
            down += patch_level(ld, s, 1, y);
        *tris = across * down * 2;
        return QD_OK;
    }
    if ((uint64_t)s->first_index + s->num_indexes > ld->m.l[Q3_DRAWINDEXES].count)
        return mdl_map_bad(&ld->m, Q3_SURFACES, i, "index range out of range");
    rd_t r = mdl_map_rd(&ld->m, Q3_DRAWINDEXES);
    rd_seek(&r, (size_t)s->first_index * 4);
    for (uint32_t k = 0; k < s->num_indexes; k++)
        if (rd_u32(&r) >= s->num_verts)
            return mdl_map_bad(&ld->m, Q3_SURFACES, i, "index past the surface's vertices");
    *tris = s->num_indexes / 3;
    return QD_OK;
}

/* Quake's light (0..255, 128 the texture's colour) of a Q3 lighting colour: the mean of R,
 * G, B shifted as R_ColorShiftLightingBytes does (doubled on the Quake scale), clamped. */
static float q3_light(const uint8_t rgb[3])
{
    float l = (float)(rgb[0] + rgb[1] + rgb[2]) * (2.0f / 3.0f);
    return l > 255 ? 255 : l;
}

/* Texel of a lightmap coordinate (0..1 across the page), clamped to the page. */
static int lm_texel(float st)
{
    float f = st * LM_SIZE;
    return !(f >= 0) ? 0 : f >= LM_SIZE - 1 ? LM_SIZE - 1 : (int)f;
}

/* Mean brightness of page lm over the box of texels that the corners' lightmap coordinates
 * span: the corners lie in their surface's rectangle, so the box does too. */
static float lm_box(const q3_loader *ld, int32_t lm, const float (*st)[2], int n)
{
    const uint8_t *page = ld->m.data + ld->m.l[Q3_LIGHTMAPS].ofs + (size_t)lm * LM_BYTES;
    int lo[2] = {LM_SIZE, LM_SIZE}, hi[2] = {0, 0};
    for (int k = 0; k < n; k++)
        for (int j = 0; j < 2; j++) {
            int t = lm_texel(st[k][j]);
            lo[j] = t < lo[j] ? t : lo[j];
            hi[j] = t > hi[j] ? t : hi[j];
        }
    /* at most 16x16 samples, so that hostile maps of huge triangles stay quick */
    int step[2] = {(hi[0] - lo[0]) / 16 + 1, (hi[1] - lo[1]) / 16 + 1};
    float sum = 0;
    int count = 0;
    for (int y = lo[1]; y <= hi[1]; y += step[1])
        for (int x = lo[0]; x <= hi[0]; x += step[0]) {
            sum += q3_light(page + ((size_t)y * LM_SIZE + (size_t)x) * 3);
            count++;
        }
    return count ? sum / (float)count : 0;
}

/* A triangle of a surface: its corners in winding order, their lightmap coordinates and
 * the brightness of their vertex colours. */
typedef struct tri {
    float p[3][3];
    float st[3][2];
    float lm[3][2];
    float light[3];
    uint8_t rgba[3][4];
} tri;

/* A triangle face's shader: its texture, and that texture's colour and flags (all a
 * names-only load keeps of it). */
static void face_shader(const mdl_bsp *b, mdl_face *f, uint32_t shader)
{
    f->texture = (int32_t)shader;
    f->color = b->textures[shader].color;
    f->flags = b->textures[shader].flags;
}

static void emit_tri(q3_loader *ld, const dsurf *s, const tri *t, uint32_t fi)
{
    mdl_bsp *b = ld->m.b;
    mdl_face *f = &b->faces[fi];
    f->first_vert = fi * 3;
    f->num_verts = 3;
    f->q3_type = (uint8_t)s->type;
    face_shader(b, f, s->shader);
    b->face_lm[fi].ofs = -1;
    mdl_face_q3 *fq = &b->face_q3[fi];
    memcpy(fq->st, t->st, sizeof fq->st);
    memcpy(fq->lm, t->lm, sizeof fq->lm);
    memcpy(fq->rgba, t->rgba, sizeof fq->rgba);
    fq->fog = s->fog >= 0 && (uint32_t)s->fog < b->num_fogs ? s->fog : -1;
    fq->lightmap = s->lightmap >= 0 && (uint32_t)s->lightmap < ld->m.l[Q3_LIGHTMAPS].count
                       ? s->lightmap
                       : -1;
    /* Quake's convention: the corners run clockwise seen from the front, so
     * cross(b - a, c - a) points to the back. */
    float e1[3], e2[3], n[3];
    for (int j = 0; j < 3; j++) {
        e1[j] = t->p[1][j] - t->p[0][j];
        e2[j] = t->p[2][j] - t->p[0][j];
    }
    n[0] = -(e1[1] * e2[2] - e1[2] * e2[1]);
    n[1] = -(e1[2] * e2[0] - e1[0] * e2[2]);
    n[2] = -(e1[0] * e2[1] - e1[1] * e2[0]);
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++)
        memcpy(b->verts[fi * 3 + (uint32_t)k], t->p[k], sizeof t->p[k]);
    if (!(len > 1e-6f) || !isfinite(len)) {
        f->flags |= MDL_SURF_NODRAW;
        return;
    }
    for (int j = 0; j < 3; j++)
        f->normal[j] = n[j] / len;
    f->dist = f->normal[0] * t->p[0][0] + f->normal[1] * t->p[0][1] + f->normal[2] * t->p[0][2];
    if (f->flags & (MDL_SURF_SKY | MDL_SURF_TURB)) {
        f->flags |= MDL_SURF_FULLBRIGHT;
        f->light = 128;
        return;
    }
    /* Light: the lightmap over the triangle's texels, or the vertex colours for vertex-lit
     * surfaces (lightmapNum < 0) and lightmap numbers past the lump. */
    if (s->lightmap >= 0 && (uint32_t)s->lightmap < ld->m.l[Q3_LIGHTMAPS].count) {
        f->light = lm_box(ld, s->lightmap, (const float(*)[2])t->lm, 3);
    } else if (t->light[0] >= 254 && t->light[1] >= 254 && t->light[2] >= 254) {
        /* White vertex colours: a map compiled without light (oa_ctf2), which the game
         * shows at the textures' own colours. A fixed light from above and one side keeps
         * the shapes readable in flat colours. */
        f->light = 104 + 20 * f->normal[2] + 8 * f->normal[0] + 4 * f->normal[1];
    } else {
        f->light = (t->light[0] + t->light[1] + t->light[2]) / 3;
    }
}

static void fill_corner(tri *t, int k, const dvert *v)
{
    memcpy(t->p[k], v->xyz, sizeof t->p[k]);
    memcpy(t->st[k], v->st, sizeof t->st[k]);
    memcpy(t->lm[k], v->lm, sizeof t->lm[k]);
    memcpy(t->rgba[k], v->color, sizeof t->rgba[k]);
    t->light[k] = q3_light(v->color);
}

/* A point of a biquadratic Bezier piece (control points c[row][col]) at (u, v). */
static void bezier(const dvert *c[3][3], float u, float v, dvert *out)
{
    float bu[3] = {(1 - u) * (1 - u), 2 * u * (1 - u), u * u};
    float bv[3] = {(1 - v) * (1 - v), 2 * v * (1 - v), v * v};
    memset(out, 0, sizeof *out);
    float col[4] = {0, 0, 0, 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            float w = bv[i] * bu[j];
            const dvert *p = c[i][j];
            for (int k = 0; k < 3; k++) {
                out->xyz[k] += w * p->xyz[k];
                out->normal[k] += w * p->normal[k];
            }
            for (int k = 0; k < 2; k++) {
                out->st[k] += w * p->st[k];
                out->lm[k] += w * p->lm[k];
            }
            for (int k = 0; k < 4; k++)
                col[k] += w * p->color[k];
        }
    for (int k = 0; k < 4; k++)
        out->color[k] = (uint8_t)(col[k] < 0 ? 0 : col[k] > 255 ? 255 : col[k]);
}

/* A cell of levels lx x ly of piece c: its corner (i, j) (row i of ly, column j of lx). */
static void piece_point(const dvert *c[3][3], uint32_t lx, uint32_t ly, uint32_t i, uint32_t j,
                        dvert *out)
{
    bezier(c, (float)j / (float)lx, (float)i / (float)ly, out);
}

static void build_patch(q3_loader *ld, const dsurf *s, uint32_t fi)
{
    uint32_t px = (s->pw - 1) / 2, py = (s->ph - 1) / 2;
    for (uint32_t y = 0; y < py; y++) {
        uint32_t ly = patch_level(ld, s, 1, y);
        for (uint32_t x = 0; x < px; x++) {
            uint32_t lx = patch_level(ld, s, 0, x);
            const dvert *c[3][3];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    c[i][j] = &ld->verts[s->first_vert + (2 * y + (uint32_t)i) * s->pw + 2 * x +
                                         (uint32_t)j];
            for (uint32_t i = 0; i < ly; i++)
                for (uint32_t j = 0; j < lx; j++) {
                    /* Two triangles per grid cell, wound as the control grid's rows run
                     * (q3map emits the grid's own triangles the same way round). */
                    dvert g00, g10, g01, g11;
                    piece_point(c, lx, ly, i, j, &g00);
                    piece_point(c, lx, ly, i + 1, j, &g10);
                    piece_point(c, lx, ly, i, j + 1, &g01);
                    piece_point(c, lx, ly, i + 1, j + 1, &g11);
                    const dvert *q[2][3] = {{&g00, &g10, &g01}, {&g10, &g11, &g01}};
                    for (int h = 0; h < 2; h++) {
                        tri t;
                        for (int k = 0; k < 3; k++)
                            fill_corner(&t, k, q[h][k]);
                        emit_tri(ld, s, &t, fi++);
                    }
                }
        }
    }
}

/* The fog volumes (ioq3 tr_bsp.c R_LoadFogs): each one's shader name and the plane of its
 * brush's visible side. A fog whose brush, side or plane lies outside its lump has no
 * surface (as one without a visible side): drawn, not refused. */
static qd_err q3_fogs(q3_loader *ld)
{
    mdl_bsp *b = ld->m.b;
    uint32_t n = ld->m.l[Q3_FOGS].count;
    if (n == 0)
        return QD_OK;
    if (n > MDL_BSP_MAX_FOGS)
        return qd_fail(ld->m.err, QD_ERR_LIMIT, ld->m.l[Q3_FOGS].ofs, "%s: %u fogs (cap %u)",
                       ld->m.name, n, MDL_BSP_MAX_FOGS);
    b->fogs = mdl_calloc(n, sizeof *b->fogs);
    if (!b->fogs)
        return mdl_map_nomem(&ld->m, "fogs");
    b->num_fogs = n;
    uint32_t nb = ld->m.l[Q3_BRUSHES].count, nsides = ld->m.l[Q3_BRUSHSIDES].count;
    rd_t r = mdl_map_rd(&ld->m, Q3_FOGS);
    for (uint32_t i = 0; i < n; i++) {
        mdl_fog *f = &b->fogs[i];
        const uint8_t *name = rd_bytes(&r, sizeof f->shader);
        if (name)
            memcpy(f->shader, name, sizeof f->shader);
        f->shader[sizeof f->shader - 1] = 0;
        uint32_t brush = rd_u32(&r);
        int32_t side = rd_s32(&r);
        if (brush >= nb)
            continue;
        rd_t br = mdl_map_rd(&ld->m, Q3_BRUSHES);
        rd_seek(&br, (size_t)brush * 12);
        uint32_t first = rd_u32(&br), count = rd_u32(&br);
        /* the box: q3map sorts a brush's axial sides first (-x, +x, -y, +y, -z, +z) */
        if (count >= 6 && (uint64_t)first + 6 <= nsides) {
            rd_t ar = mdl_map_rd(&ld->m, Q3_BRUSHSIDES);
            rd_seek(&ar, (size_t)first * 8);
            int ok = 1;
            for (int k = 0; k < 6; k++) {
                uint32_t pl = rd_u32(&ar);
                rd_skip(&ar, 4);
                if (pl >= b->num_planes || !isfinite(b->planes[pl].dist)) {
                    ok = 0;
                    break;
                }
                if (k & 1)
                    f->maxs[k / 2] = b->planes[pl].dist;
                else
                    f->mins[k / 2] = -b->planes[pl].dist;
            }
            f->has_bounds = (uint8_t)ok;
        }
        if (side < 0)
            continue;
        if ((uint32_t)side >= count || (uint64_t)first + (uint32_t)side >= nsides)
            continue;
        rd_t sr = mdl_map_rd(&ld->m, Q3_BRUSHSIDES);
        rd_seek(&sr, ((size_t)first + (uint32_t)side) * 8);
        uint32_t plane = rd_u32(&sr);
        if (plane >= b->num_planes)
            continue;
        f->has_surface = 1;
        memcpy(f->normal, b->planes[plane].normal, sizeof f->normal);
        f->dist = b->planes[plane].dist;
    }
    return QD_OK;
}

/* A range [lo, hi) of drawverts or drawindexes a surface uses. */
typedef struct span32 {
    uint32_t lo, hi;
} span32;

static int cmp_span(const void *a, const void *b)
{
    const span32 *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* How many of the values the n ranges cover, each counted once. */
static uint64_t covered(span32 *s, size_t n)
{
    qsort(s, n, sizeof *s, cmp_span);
    uint64_t sum = 0;
    uint32_t end = 0; /* covered below end so far */
    for (size_t i = 0; i < n; i++) {
        uint32_t lo = s[i].lo > end ? s[i].lo : end;
        if (s[i].hi > lo)
            sum += s[i].hi - lo;
        end = s[i].hi > end ? s[i].hi : end;
    }
    return sum;
}

static qd_err q3_surfaces(q3_loader *ld)
{
    mdl_bsp *b = ld->m.b;
    uint32_t ns = ld->m.l[Q3_SURFACES].count;
    ld->surf_first = mdl_calloc(ns, sizeof *ld->surf_first);
    ld->surf_count = mdl_calloc(ns, sizeof *ld->surf_count);
    if (!ld->surf_first || !ld->surf_count)
        return mdl_map_nomem(&ld->m, "surfaces");
    rd_t r = mdl_map_rd(&ld->m, Q3_SURFACES);
    uint64_t total = 0;
    /* the vertex and index ranges of the surfaces that make triangles */
    span32 *vs = malloc((size_t)(ns ? ns : 1) * sizeof *vs),
           *is = malloc((size_t)(ns ? ns : 1) * sizeof *is);
    size_t nv = 0, ni = 0;
    if (!vs || !is) {
        free(vs);
        free(is);
        return mdl_map_nomem(&ld->m, "surfaces");
    }
    for (uint32_t i = 0; i < ns; i++) {
        dsurf s = read_surf(&r);
        uint64_t n;
        qd_err e = surf_tris(ld, i, &s, &n);
        if (!e && total + n > MDL_BSP_MAX_RECORDS)
            e = qd_fail(ld->m.err, QD_ERR_LIMIT, ld->m.l[Q3_SURFACES].ofs,
                        "%s: surfaces make over %u triangles", ld->m.name, MDL_BSP_MAX_RECORDS);
        if (e) {
            free(vs);
            free(is);
            return e;
        }
        ld->surf_first[i] = (uint32_t)total;
        total += n;
        ld->surf_count[i] = (uint32_t)n;
        if (n) { /* (surf_tris checked both ranges against their lumps) */
            vs[nv++] = (span32){s.first_vert, s.first_vert + s.num_verts};
            is[ni++] = (span32){s.first_index, s.first_index + s.num_indexes};
        }
    }
    /* Surfaces may share vertices, so a few hundred bytes of patches could ask for millions
     * of triangles: real maps make a few per vertex (a 3x3 patch: 9 vertices, 32 triangles,
     * at most 512 at the finest cut). The vertices and indexes counted are those the
     * surfaces use, each once (counting the lumps' whole lengths, 8,192 patches sharing 9
     * vertices beside 65,536 indexes no surface used made 4 M triangles and 838 MB; found
     * by a review). */
    const uint64_t used = covered(vs, nv) + covered(is, ni), fair = 64 * used + 4096;
    free(vs);
    free(is);
    if (total > fair)
        return qd_fail(ld->m.err, QD_ERR_LIMIT, ld->m.l[Q3_SURFACES].ofs,
                       "%s: %llu triangles from %llu vertices and indexes", ld->m.name,
                       (unsigned long long)total, (unsigned long long)used);
    b->num_faces = (uint32_t)total;
    b->faces = mdl_calloc(b->num_faces, sizeof *b->faces);
    if (!b->faces)
        return mdl_map_nomem(&ld->m, "triangles");
    if (b->names_only) { /* each triangle's shader only, as emit_tri sets it */
        r = mdl_map_rd(&ld->m, Q3_SURFACES);
        for (uint32_t i = 0; i < ns; i++) {
            dsurf s = read_surf(&r);
            for (uint32_t k = 0; k < ld->surf_count[i]; k++)
                face_shader(b, &b->faces[ld->surf_first[i] + k], s.shader);
        }
        return QD_OK;
    }
    b->num_verts = (uint32_t)total * 3;
    b->face_lm = mdl_calloc(b->num_faces, sizeof *b->face_lm);
    b->verts = mdl_calloc(b->num_verts, sizeof *b->verts);
    b->face_q3 = mdl_calloc(b->num_faces, sizeof *b->face_q3);
    if (!b->face_lm || !b->verts || !b->face_q3)
        return mdl_map_nomem(&ld->m, "triangles");
    r = mdl_map_rd(&ld->m, Q3_SURFACES);
    for (uint32_t i = 0; i < ns; i++) {
        dsurf s = read_surf(&r);
        uint32_t fi = ld->surf_first[i];
        if (!ld->surf_count[i])
            continue;
        if (s.type == MST_PATCH) {
            build_patch(ld, &s, fi);
            continue;
        }
        rd_t ir = mdl_map_rd(&ld->m, Q3_DRAWINDEXES);
        rd_seek(&ir, (size_t)s.first_index * 4);
        for (uint32_t k = 0; k < ld->surf_count[i]; k++) {
            tri t;
            for (int c = 0; c < 3; c++)
                fill_corner(&t, c, &ld->verts[s.first_vert + rd_u32(&ir)]);
            emit_tri(ld, &s, &t, fi + k);
        }
    }
    return QD_OK;
}

/* Leaves, and their surfaces expanded into marks: every triangle of every surface. */
static qd_err q3_leaves(q3_loader *ld)
{
    mdl_bsp *b = ld->m.b;
    uint32_t nl = ld->m.l[Q3_LEAFS].count, nls = ld->m.l[Q3_LEAFSURFACES].count;
    uint32_t ns = ld->m.l[Q3_SURFACES].count;
    uint32_t *ls = mdl_calloc(nls, sizeof *ls);
    if (!ls)
        return mdl_map_nomem(&ld->m, "leafsurfaces");
    qd_err e = QD_OK;
    rd_t r = mdl_map_rd(&ld->m, Q3_LEAFSURFACES);
    for (uint32_t i = 0; i < nls; i++) {
        ls[i] = rd_u32(&r);
        if (ls[i] >= ns) {
            e = mdl_map_bad(&ld->m, Q3_LEAFSURFACES, i, "surface index out of range");
            goto out;
        }
    }
    b->num_leaves = nl + 1;
    b->leaves = mdl_calloc(b->num_leaves, sizeof *b->leaves);
    if (!b->leaves) {
        e = mdl_map_nomem(&ld->m, "leafs");
        goto out;
    }
    b->leaves[0].contents = MDL_CONTENTS_SOLID;
    b->leaves[0].cluster = -1;
    b->leaves[0].visofs = -1;
    uint64_t marks = 0;
    for (int pass = 0; pass < 2; pass++) {
        r = mdl_map_rd(&ld->m, Q3_LEAFS);
        marks = 0;
        /* the leaf-surface entries walked, bounded as the triangles are: surfaces with no
         * triangle (flares, fewer than three indexes) add no mark, and every leaf may name
         * the whole list, so without it a 2 MB map of them took 12 s (found by a review) */
        uint64_t walked = 0;
        for (uint32_t i = 0; i < nl; i++) {
            mdl_leaf *lf = &b->leaves[i + 1];
            lf->cluster = rd_s32(&r);
            lf->area = rd_s32(&r);
            mdl_rd_bounds(&r, b->format, lf->mins, lf->maxs);
            uint32_t first = rd_u32(&r), n = rd_u32(&r);
            rd_skip(&r, 8); /* leaf brushes */
            lf->visofs = -1;
            lf->contents = lf->cluster < 0 ? MDL_CONTENTS_SOLID : MDL_CONTENTS_EMPTY;
            if ((uint64_t)first + n > nls) {
                e = mdl_map_bad(&ld->m, Q3_LEAFS, i, "leaf surface range out of range");
                goto out;
            }
            if (lf->cluster < -1 || (b->num_clusters && lf->cluster >= (int32_t)b->num_clusters)) {
                e = mdl_map_bad(&ld->m, Q3_LEAFS, i, "cluster out of range");
                goto out;
            }
            walked += n;
            if (walked > MDL_BSP_MAX_RECORDS) {
                e = qd_fail(ld->m.err, QD_ERR_LIMIT, ld->m.l[Q3_LEAFS].ofs,
                            "%s: leaves list over %u surfaces", ld->m.name,
                            MDL_BSP_MAX_RECORDS);
                goto out;
            }
            lf->first_mark = (uint32_t)marks;
            for (uint32_t k = 0; k < n; k++) {
                uint32_t s = ls[first + k];
                if (pass == 1)
                    for (uint32_t t = 0; t < ld->surf_count[s]; t++)
                        b->marks[marks + t] = ld->surf_first[s] + t;
                marks += ld->surf_count[s];
                if (marks > MDL_BSP_MAX_RECORDS) {
                    e = qd_fail(ld->m.err, QD_ERR_LIMIT, ld->m.l[Q3_LEAFS].ofs,
                                "%s: leaves list over %u triangles", ld->m.name,
                                MDL_BSP_MAX_RECORDS);
                    goto out;
                }
            }
            lf->num_marks = (uint32_t)marks - lf->first_mark;
        }
        if (pass == 0) {
            b->num_marks = (uint32_t)marks;
            b->marks = mdl_calloc(b->num_marks, sizeof *b->marks);
            if (!b->marks) {
                e = mdl_map_nomem(&ld->m, "marks");
                goto out;
            }
        }
    }
out:
    free(ls);
    return e;
}

static qd_err q3_models(q3_loader *ld)
{
    mdl_bsp *b = ld->m.b;
    rd_t r = mdl_map_rd(&ld->m, Q3_MODELS);
    uint32_t ns = ld->m.l[Q3_SURFACES].count;
    qd_err e = mdl_map_model_table(&ld->m);
    if (e)
        return e;
    for (uint32_t i = 0; i < b->num_models; i++) {
        mdl_submodel *m = &b->models[i];
        mdl_rd_vec3(&r, m->mins);
        mdl_rd_vec3(&r, m->maxs);
        uint32_t first = rd_u32(&r), n = rd_u32(&r);
        rd_skip(&r, 8); /* brushes */
        if ((uint64_t)first + n > ns)
            return mdl_map_bad(&ld->m, Q3_MODELS, i, "surface range out of range");
        /* Surfaces become consecutive triangles, so a surface range is a face range. */
        m->first_face = n ? ld->surf_first[first] : 0;
        m->num_faces = n ? ld->surf_first[first + n - 1] + ld->surf_count[first + n - 1] -
                               m->first_face
                         : 0;
        m->headnode = 0; /* Q3 submodels have no tree of their own */
        m->visleafs = i == 0 ? b->num_leaves - 1 : 0;
    }
    return QD_OK;
}

/* Visibility: numClusters rows of clusterBytes plain bits. A lump too short for its rows, or
 * rows too short for the clusters, damages only culling: everything is seen. */
static qd_err q3_vis(q3_loader *ld)
{
    mdl_bsp *b = ld->m.b;
    const mdl_lump *l = &ld->m.l[Q3_VISIBILITY];
    if (l->len < 8)
        return QD_OK;
    rd_t r = mdl_map_rd(&ld->m, Q3_VISIBILITY);
    uint32_t n = rd_u32(&r), sz = rd_u32(&r);
    if (n == 0 || n > MDL_BSP_MAX_RECORDS || sz < (n + 7) / 8 ||
        8 + (uint64_t)n * sz > l->len)
        return QD_OK;
    b->vis_len = l->len;
    b->visdata = mdl_calloc(l->len, 1);
    b->cluster_ofs = mdl_calloc(n, sizeof *b->cluster_ofs);
    if (!b->visdata || !b->cluster_ofs)
        return mdl_map_nomem(&ld->m, "visibility");
    memcpy(b->visdata, ld->m.data + l->ofs, l->len);
    for (uint32_t i = 0; i < n; i++)
        b->cluster_ofs[i] = 8 + i * sz;
    b->num_clusters = n;
    return QD_OK;
}

/* The light grid (ioq3 tr_bsp.c R_LoadLightGrid): cells of 64x64x128 (or the worldspawn's
 * "gridsize", R_LoadEntities) over the world model's bounds, origin at the first cell inside
 * the mins. A lump that does not match the cell count is ignored. Needs the entities. */
static qd_err q3_grid(q3_loader *ld)
{
    mdl_bsp *b = ld->m.b;
    const mdl_lump *l = &ld->m.l[Q3_LIGHTGRID];
    float *size = b->grid_size;
    char v[64];
    size[0] = 64, size[1] = 64, size[2] = 128;
    if (mdl_entity_value(b->entities, "worldspawn", 0, "gridsize", v, sizeof v)) {
        float g[3];
        if (sscanf(v, "%f %f %f", &g[0], &g[1], &g[2]) == 3 && g[0] >= 1 && g[1] >= 1 &&
            g[2] >= 1 && g[0] < 65536 && g[1] < 65536 && g[2] < 65536)
            memcpy(size, g, sizeof g);
    }
    if (!b->num_models || !l->count)
        return QD_OK;
    uint64_t cells = 1;
    uint32_t dims[3];
    for (int j = 0; j < 3; j++) {
        float lo = ceilf(b->models[0].mins[j] / size[j]);
        float hi = floorf(b->models[0].maxs[j] / size[j]);
        if (!(hi >= lo) || !(hi - lo < 65536))
            return QD_OK;
        dims[j] = (uint32_t)(hi - lo) + 1;
        b->grid_origin[j] = lo * size[j];
        cells *= dims[j];
    }
    if (cells != l->count)
        return QD_OK;
    b->lightgrid = mdl_calloc(l->len, 1);
    if (!b->lightgrid)
        return mdl_map_nomem(&ld->m, "lightgrid");
    memcpy(b->lightgrid, ld->m.data + l->ofs, l->len);
    memcpy(b->grid_dims, dims, sizeof dims);
    return QD_OK;
}

/* The lightmap pages, kept for the textured renderer. */
static qd_err q3_lightmaps(q3_loader *ld)
{
    mdl_bsp *b = ld->m.b;
    size_t len;
    qd_err e = mdl_map_copy(&ld->m, Q3_LIGHTMAPS, &b->lightmaps, &len);
    if (e)
        return e;
    b->num_lightmaps = (uint32_t)(len / LM_BYTES);
    return QD_OK;
}

int mdl_bsp46_light_point(const mdl_bsp *b, const float p[3], float *light)
{
    const float *size = b->grid_size;
    *light = 128;
    if (!b->lightgrid || !b->grid_dims[0])
        return 1;
    size_t idx = 0, stride = 1;
    for (int j = 0; j < 3; j++) {
        float c = (p[j] - b->grid_origin[j]) / size[j];
        if (!(c >= 0) || !(c < (float)b->grid_dims[j]))
            return 1;
        idx += (size_t)c * stride;
        stride *= b->grid_dims[j];
    }
    const uint8_t *g = b->lightgrid + idx * 8;
    /* ambient plus half the directed light, as a model lit from the side sees it */
    float l = q3_light(g) + q3_light(g + 3) / 2;
    *light = l > 255 ? 255 : l;
    return 1;
}

qd_err mdl_bsp46_load(const uint8_t *data, size_t len, const char *name, mdl_bsp *b,
                      qd_error *err)
{
    q3_loader ld = {0};
    b->format = MDL_BSP_Q3_46;
    qd_err e;
    if ((e = mdl_map_open(&ld.m, &q3_format, data, len, name, b, err)) ||
        (e = mdl_map_entities(&ld.m)) || (!b->names_only && (e = q3_vis(&ld))) ||
        (e = q3_shaders(&ld)) ||
        (e = mdl_map_planes(&ld.m)) || (e = q3_verts(&ld)) ||
        (!b->names_only && (e = q3_fogs(&ld))) || (e = q3_surfaces(&ld)) ||
        (e = q3_leaves(&ld)) || (e = mdl_map_nodes(&ld.m)) || (e = q3_models(&ld)))
        goto out;
    if (!b->names_only && ((e = q3_grid(&ld)) || (e = q3_lightmaps(&ld))))
        goto out;
out:
    free(ld.verts);
    free(ld.surf_first);
    free(ld.surf_count);
    return e;
}
