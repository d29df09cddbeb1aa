/* mdl_md3.c: Quake III MD3 models (IDP3 version 15) into format-neutral arrays: frames with
 * their bounds, tags per frame (where a torso, head or weapon attaches), and surfaces of
 * triangles with texture coordinates and per-frame vertex positions and normals.
 *
 * Format facts: ioquake3 code/qcommon/qfiles.h (GPL-2.0): md3Header_t (ident "IDP3",
 * version 15, name[64], flags, numFrames, numTags, numSurfaces, numSkins, ofsFrames,
 * ofsTags, ofsSurfaces, ofsEnd: 108 bytes), md3Frame_t (bounds[2][3], localOrigin[3],
 * radius, name[16]: 56 bytes), md3Tag_t (name[64], origin[3], axis[3][3]: 112 bytes, stored
 * frame by frame), md3Surface_t (ident, name[64], flags, numFrames, numShaders, numVerts,
 * numTriangles, ofsTriangles, ofsShaders, ofsSt, ofsXyzNormals, ofsEnd, offsets from the
 * surface's start: 108 bytes), md3Shader_t (name[64], index), triangles of three ints,
 * st of two floats, md3XyzNormal_t (short xyz[3] in 1/64 units, short normal: latitude
 * and longitude bytes of 256 steps around the circle); MD3_MAX_* caps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rd.h"
#include "model_local.h"

#define MD3_HEADER 108
#define MD3_FRAME 56
#define MD3_TAG 112
#define MD3_SURFACE 108

typedef mdl_file loader;

/* A record array of n records of size bytes at ofs (from base) lies inside the file. */
static int inside(const loader *ld, uint64_t base, uint64_t ofs, uint64_t n, uint64_t size)
{
    uint64_t at = base + ofs;
    return at <= ld->len && n * size <= ld->len - at;
}

static void rd_vec(rd_t *r, float v[3])
{
    for (int j = 0; j < 3; j++)
        v[j] = rd_f32(r);
}

/* A finite float, else 0 (a damaged file's NaN must not reach the renderer's arithmetic). */
static float finite_or_0(float f)
{
    return isfinite(f) ? f : 0.0f;
}

/* 1 when count records of size bytes at ofs (from a surface's start) lie between its
 * header and end. */
static int in_surface(uint64_t ofs, uint64_t count, uint64_t size, uint64_t end)
{
    return count == 0 || (ofs >= MD3_SURFACE && ofs <= end && count * size <= end - ofs);
}

static qd_err read_surface(const loader *ld, uint64_t at, uint32_t num_frames,
                           mdl_md3_surface *s, uint64_t *next)
{
    if (!inside(ld, at, 0, 1, MD3_SURFACE))
        return mdl_file_fail(ld, QD_ERR_TRUNCATED, at, "surface header cut off");
    rd_t r = rd_make(ld->data + at, MD3_SURFACE);
    if (memcmp(rd_bytes(&r, 4), "IDP3", 4) != 0)
        return mdl_file_fail(ld, QD_ERR_BAD_DATA, at, "surface without its IDP3 ident");
    mdl_copy_name(s->name, sizeof s->name, (const char *)rd_bytes(&r, 64), 64);
    rd_skip(&r, 4); /* flags */
    uint32_t frames = rd_u32(&r), shaders = rd_u32(&r), verts = rd_u32(&r), tris = rd_u32(&r);
    uint32_t ofs_tris = rd_u32(&r), ofs_shaders = rd_u32(&r), ofs_st = rd_u32(&r),
             ofs_xyz = rd_u32(&r), ofs_end = rd_u32(&r);
    if (frames != num_frames)
        return mdl_file_fail(ld, QD_ERR_BAD_DATA, at, "surface frame count differs from the model's");
    if (verts > MDL_MD3_MAX_VERTS || tris > MDL_MD3_MAX_TRIS || shaders > MDL_MD3_MAX_SHADERS)
        return mdl_file_fail(ld, QD_ERR_LIMIT, at, "surface over the caps");
    if (!inside(ld, at, ofs_tris, tris, 12) || !inside(ld, at, ofs_shaders, shaders, 68) ||
        !inside(ld, at, ofs_st, verts, 8) ||
        !inside(ld, at, ofs_xyz, (uint64_t)verts * frames, 8) || !inside(ld, at, ofs_end, 0, 0) ||
        ofs_end < MD3_SURFACE)
        return mdl_file_fail(ld, QD_ERR_TRUNCATED, at, "surface arrays past the end");
    /* Each array within its own surface, between the header and ofs_end (where the next
     * surface starts), as every MD3 of OpenArena's pk3s has them: else surfaces could all
     * name one block and the arrays made from it outgrow the file without bound (a 4 MB
     * model made 384 MB; found by a review). */
    if (!in_surface(ofs_tris, tris, 12, ofs_end) || !in_surface(ofs_shaders, shaders, 68, ofs_end) ||
        !in_surface(ofs_st, verts, 8, ofs_end) ||
        !in_surface(ofs_xyz, (uint64_t)verts * frames, 8, ofs_end))
        return mdl_file_fail(ld, QD_ERR_BAD_DATA, at, "surface arrays outside the surface");
    s->num_verts = verts;
    s->num_tris = tris;
    if (shaders) {
        rd_t sh = rd_make(ld->data + at + ofs_shaders, 64);
        mdl_copy_name(s->shader, sizeof s->shader, (const char *)rd_bytes(&sh, 64), 64);
    }
    /* every array below took bytes of its own surface of at least its count: bounded by
     * the file */
    s->tris = mdl_calloc(tris, sizeof *s->tris);
    s->st = mdl_calloc(verts, sizeof *s->st);
    s->xyz = mdl_calloc((size_t)verts * frames, sizeof *s->xyz);
    s->normal = mdl_calloc((size_t)verts * frames, sizeof *s->normal);
    s->box = mdl_calloc(frames, sizeof *s->box);
    if ((tris && !s->tris) || (verts && (!s->st || !s->xyz || !s->normal)) ||
        (frames && !s->box))
        return mdl_file_fail(ld, QD_ERR_NOMEM, at, "surface");
    rd_t t = rd_make(ld->data + at + ofs_tris, (size_t)tris * 12);
    for (uint32_t i = 0; i < tris; i++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = rd_u32(&t);
            if (v >= verts)
                return mdl_file_fail(ld, QD_ERR_BAD_DATA, at + ofs_tris + (uint64_t)i * 12,
                            "triangle index past the surface's vertices");
            s->tris[i][k] = v;
        }
    rd_t st = rd_make(ld->data + at + ofs_st, (size_t)verts * 8);
    for (uint32_t i = 0; i < verts; i++) {
        s->st[i][0] = finite_or_0(rd_f32(&st));
        s->st[i][1] = finite_or_0(rd_f32(&st));
    }
    /* sines and cosines of the 256 steps a turn of the normals' angles */
    double sn[256], cs[256];
    for (int k = 0; k < 256; k++) {
        sn[k] = sin(k * (2 * M_PI / 256));
        cs[k] = cos(k * (2 * M_PI / 256));
    }
    rd_t x = rd_make(ld->data + at + ofs_xyz, (size_t)verts * frames * 8);
    for (size_t i = 0; i < (size_t)verts * frames; i++) {
        for (int j = 0; j < 3; j++)
            s->xyz[i][j] = (float)rd_s16(&x) / 64.0f;
        /* the normal's longitude (low byte, first in the file) and latitude (high byte),
         * 256 steps a turn (ioq3 tr_model.c R_LoadMD3: lat = normal >> 8, lng = normal & 255) */
        uint8_t lng = rd_u8(&x), lat = rd_u8(&x);
        s->normal[i][0] = (float)(cs[lat] * sn[lng]);
        s->normal[i][1] = (float)(sn[lat] * sn[lng]);
        s->normal[i][2] = (float)cs[lng];
    }
    for (uint32_t f = 0; verts && f < frames; f++)
        for (uint32_t i = 0; i < verts; i++)
            for (int j = 0; j < 3; j++) {
                float c = s->xyz[(size_t)f * verts + i][j];
                s->box[f][0][j] = i == 0 || c < s->box[f][0][j] ? c : s->box[f][0][j];
                s->box[f][1][j] = i == 0 || c > s->box[f][1][j] ? c : s->box[f][1][j];
            }
    *next = at + ofs_end;
    return QD_OK;
}

qd_err mdl_md3_load(const uint8_t *data, size_t len, const char *name, mdl_md3 **out,
                    qd_error *err)
{
    *out = NULL;
    loader ld = {data, len, name ? name : "model", err};
    if (!data || len < MD3_HEADER)
        return mdl_file_fail(&ld, QD_ERR_TRUNCATED, len, "shorter than an MD3 header");
    if (memcmp(data, "IDP3", 4) != 0)
        return mdl_file_fail(&ld, QD_ERR_BAD_DATA, 0, "not an MD3 (IDP3) file");
    rd_t r = rd_make(data, len);
    rd_skip(&r, 4);
    int32_t version = rd_s32(&r);
    if (version != 15)
        return qd_fail(err, QD_ERR_UNSUPPORTED, 4, "%s: MD3 version %d (only 15)", ld.name,
                       version);
    char mname[64];
    mdl_copy_name(mname, sizeof mname, (const char *)rd_bytes(&r, 64), 64);
    rd_skip(&r, 4); /* flags */
    uint32_t frames = rd_u32(&r), tags = rd_u32(&r), surfaces = rd_u32(&r);
    rd_skip(&r, 4); /* numSkins: unused by the format */
    uint32_t ofs_frames = rd_u32(&r), ofs_tags = rd_u32(&r), ofs_surfaces = rd_u32(&r);
    if (frames == 0)
        return mdl_file_fail(&ld, QD_ERR_BAD_DATA, 76, "no frames");
    if (frames > MDL_MD3_MAX_FRAMES || tags > MDL_MD3_MAX_TAGS ||
        surfaces > MDL_MD3_MAX_SURFACES)
        return mdl_file_fail(&ld, QD_ERR_LIMIT, 76, "frames, tags or surfaces over the caps");
    if (!inside(&ld, 0, ofs_frames, frames, MD3_FRAME) ||
        !inside(&ld, 0, ofs_tags, (uint64_t)frames * tags, MD3_TAG))
        return mdl_file_fail(&ld, QD_ERR_TRUNCATED, 88, "frames or tags past the end");
    mdl_md3 *m = calloc(1, sizeof *m);
    if (!m)
        return mdl_file_fail(&ld, QD_ERR_NOMEM, 0, "model");
    memcpy(m->name, mname, sizeof m->name);
    m->num_frames = frames;
    m->num_tags = tags;
    m->frames = mdl_calloc(frames, sizeof *m->frames);
    m->tags = mdl_calloc((size_t)frames * tags, sizeof *m->tags);
    m->surfaces = mdl_calloc(surfaces, sizeof *m->surfaces);
    qd_err e = QD_OK;
    if (!m->frames || (tags && !m->tags) || (surfaces && !m->surfaces)) {
        e = mdl_file_fail(&ld, QD_ERR_NOMEM, 0, "model");
        goto out;
    }
    rd_t f = rd_make(data + ofs_frames, (size_t)frames * MD3_FRAME);
    for (uint32_t i = 0; i < frames; i++) {
        mdl_md3_frame *fr = &m->frames[i];
        rd_vec(&f, fr->mins);
        rd_vec(&f, fr->maxs);
        rd_vec(&f, fr->origin);
        fr->radius = finite_or_0(rd_f32(&f));
        mdl_copy_name(fr->name, sizeof fr->name, (const char *)rd_bytes(&f, 16), 16);
        for (int j = 0; j < 3; j++) {
            fr->mins[j] = finite_or_0(fr->mins[j]);
            fr->maxs[j] = finite_or_0(fr->maxs[j]);
            fr->origin[j] = finite_or_0(fr->origin[j]);
        }
    }
    rd_t t = rd_make(data + ofs_tags, (size_t)frames * tags * MD3_TAG);
    for (size_t i = 0; i < (size_t)frames * tags; i++) {
        mdl_md3_tag *tg = &m->tags[i];
        mdl_copy_name(tg->name, sizeof tg->name, (const char *)rd_bytes(&t, 64), 64);
        rd_vec(&t, tg->origin);
        for (int k = 0; k < 3; k++)
            rd_vec(&t, tg->axis[k]);
        for (int j = 0; j < 3; j++) {
            tg->origin[j] = finite_or_0(tg->origin[j]);
            for (int k = 0; k < 3; k++)
                tg->axis[k][j] = finite_or_0(tg->axis[k][j]);
        }
    }
    uint64_t at = ofs_surfaces;
    for (uint32_t i = 0; i < surfaces && !e; i++) {
        e = read_surface(&ld, at, frames, &m->surfaces[i], &at);
        m->num_surfaces = i + 1; /* freed with the model, whole or not */
    }
out:
    if (e) {
        mdl_md3_free(m);
        return e;
    }
    *out = m;
    return QD_OK;
}

const mdl_md3_tag *mdl_md3_tag_at(const mdl_md3 *m, uint32_t frame, const char *name)
{
    if (!m || !m->num_tags)
        return NULL;
    if (frame >= m->num_frames)
        frame = 0;
    for (uint32_t i = 0; i < m->num_tags; i++) {
        const mdl_md3_tag *t = &m->tags[(size_t)frame * m->num_tags + i];
        if (strcmp(t->name, name) == 0)
            return t;
    }
    return NULL;
}

void mdl_md3_free(mdl_md3 *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; m->surfaces && i < m->num_surfaces; i++) {
        free(m->surfaces[i].tris);
        free(m->surfaces[i].st);
        free(m->surfaces[i].xyz);
        free(m->surfaces[i].normal);
        free(m->surfaces[i].box);
    }
    free(m->surfaces);
    free(m->frames);
    free(m->tags);
    free(m);
}
