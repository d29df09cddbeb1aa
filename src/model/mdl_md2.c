/* mdl_md2.c: Quake II MD2 models (IDP2 version 8) into format-neutral arrays: skin names,
 * triangles with position and texture-coordinate indices, texture coordinates in skin
 * pixels, and every frame's decompressed vertex positions.
 *
 * Format facts: yquake2 src/common/header/files.h (GPL-2.0): dmdl_t (ident "IDP2", version 8,
 * skinwidth, skinheight, framesize, num_skins, num_xyz, num_st, num_tris, num_glcmds,
 * num_frames, ofs_skins, ofs_st, ofs_tris, ofs_frames, ofs_glcmds, ofs_end: 68 bytes),
 * skin names of MAX_SKINNAME 64 bytes, dstvert_t (short s, t), dtriangle_t (short
 * index_xyz[3], index_st[3]), daliasframe_t (scale[3], translate[3], name[16], then
 * num_xyz dtrivertx_t: v[3] bytes and a lightnormalindex), MAX_MD2SKINS 32, MAX_VERTS 2048,
 * MAX_TRIANGLES 4096, MAX_FRAMES 512. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rd.h"
#include "model_local.h"

#define MD2_HEADER 68

qd_err mdl_md2_load(const uint8_t *data, size_t len, const char *name, mdl_md2 **out,
                    qd_error *err)
{
    *out = NULL;
    mdl_file f = {data, len, name ? name : "model", err};
    if (!data || len < MD2_HEADER)
        return mdl_file_fail(&f, QD_ERR_TRUNCATED, len, "shorter than an MD2 header");
    if (memcmp(data, "IDP2", 4) != 0)
        return mdl_file_fail(&f, QD_ERR_BAD_DATA, 0, "not an MD2 (IDP2) file");
    rd_t r = rd_make(data, len);
    rd_skip(&r, 4);
    int32_t version = rd_s32(&r);
    if (version != 8)
        return qd_fail(err, QD_ERR_UNSUPPORTED, 4, "%s: MD2 version %d (only 8)", f.name,
                       version);
    uint32_t skin_w = rd_u32(&r), skin_h = rd_u32(&r), framesize = rd_u32(&r);
    uint32_t skins = rd_u32(&r), verts = rd_u32(&r), sts = rd_u32(&r), tris = rd_u32(&r);
    rd_skip(&r, 4); /* num_glcmds: the GL command lists are not used */
    uint32_t frames = rd_u32(&r), ofs_skins = rd_u32(&r), ofs_st = rd_u32(&r),
             ofs_tris = rd_u32(&r), ofs_frames = rd_u32(&r);
    rd_skip(&r, 4); /* ofs_glcmds */
    uint32_t ofs_end = rd_u32(&r);
    if (ofs_end > len)
        return mdl_file_fail(&f, QD_ERR_TRUNCATED, 64, "file shorter than its header says");
    if (skins > MDL_MD2_MAX_SKINS || verts > MDL_MD2_MAX_VERTS || tris > MDL_MD2_MAX_TRIS ||
        frames > MDL_MD2_MAX_FRAMES || sts > MDL_MD2_MAX_VERTS * 4 ||
        skin_w > MDL_ALIAS_MAX_SKIN_SIZE || skin_h > MDL_ALIAS_MAX_SKIN_SIZE)
        return mdl_file_fail(&f, QD_ERR_LIMIT, 8, "counts or skin size over the caps");
    if (frames == 0 || verts == 0)
        return mdl_file_fail(&f, QD_ERR_BAD_DATA, 8, "no frames or no vertices");
    if (framesize < 40 + 4 * (uint64_t)verts)
        return mdl_file_fail(&f, QD_ERR_BAD_DATA, 16, "frame size smaller than its vertices");
    uint64_t spans[4][3] = {{ofs_skins, skins, 64}, {ofs_st, sts, 4}, {ofs_tris, tris, 12},
                            {ofs_frames, frames, framesize}};
    for (int i = 0; i < 4; i++)
        if (spans[i][0] > len || spans[i][1] * spans[i][2] > len - spans[i][0])
            return mdl_file_fail(&f, QD_ERR_TRUNCATED, 48 + 4 * (uint64_t)i,
                                 "skins, st, triangles or frames past the end");
    mdl_md2 *m = calloc(1, sizeof *m);
    if (!m)
        return mdl_file_fail(&f, QD_ERR_NOMEM, 0, "model");
    m->skin_width = skin_w;
    m->skin_height = skin_h;
    m->num_skins = skins;
    m->num_verts = verts;
    m->num_st = sts;
    m->num_tris = tris;
    m->num_frames = frames;
    /* each array is no larger than the file bytes it was read from, times a constant */
    m->skins = mdl_calloc(skins, sizeof *m->skins);
    m->st = mdl_calloc(sts, sizeof *m->st);
    m->tris = mdl_calloc(tris, sizeof *m->tris);
    m->frames = mdl_calloc(frames, sizeof *m->frames);
    m->poses = mdl_calloc((size_t)frames * verts, sizeof *m->poses);
    m->normals = mdl_calloc((size_t)frames * verts, 1);
    qd_err e = QD_OK;
    if ((skins && !m->skins) || (sts && !m->st) || (tris && !m->tris) || !m->frames ||
        !m->poses || !m->normals) {
        e = mdl_file_fail(&f, QD_ERR_NOMEM, 0, "model");
        goto out;
    }
    for (uint32_t i = 0; i < skins; i++)
        mdl_copy_name(m->skins[i], sizeof m->skins[i], (const char *)data + ofs_skins + 64 * i,
                      64);
    rd_t s = rd_make(data + ofs_st, (size_t)sts * 4);
    for (uint32_t i = 0; i < sts; i++) {
        m->st[i][0] = rd_s16(&s);
        m->st[i][1] = rd_s16(&s);
    }
    rd_t t = rd_make(data + ofs_tris, (size_t)tris * 12);
    for (uint32_t i = 0; i < tris && !e; i++) {
        for (int k = 0; k < 3; k++)
            m->tris[i].v[k] = rd_u16(&t);
        for (int k = 0; k < 3; k++)
            m->tris[i].st[k] = rd_u16(&t);
        for (int k = 0; k < 3 && !e; k++)
            if (m->tris[i].v[k] >= verts || m->tris[i].st[k] >= sts)
                e = mdl_file_fail(&f, QD_ERR_BAD_DATA, ofs_tris + (uint64_t)i * 12,
                                  "triangle index past the vertices or st");
    }
    for (uint32_t i = 0; i < frames && !e; i++) {
        rd_t fr = rd_make(data + ofs_frames + (size_t)i * framesize, framesize);
        float scale[3], translate[3];
        for (int j = 0; j < 3; j++)
            scale[j] = rd_f32(&fr);
        for (int j = 0; j < 3; j++)
            translate[j] = rd_f32(&fr);
        for (int j = 0; j < 3; j++) {
            scale[j] = isfinite(scale[j]) ? scale[j] : 0;
            translate[j] = isfinite(translate[j]) ? translate[j] : 0;
        }
        mdl_copy_name(m->frames[i].name, sizeof m->frames[i].name,
                      (const char *)rd_bytes(&fr, 16), 16);
        for (uint32_t v = 0; v < verts; v++) {
            float *p = m->poses[(size_t)i * verts + v];
            for (int j = 0; j < 3; j++)
                p[j] = rd_u8(&fr) * scale[j] + translate[j];
            m->normals[(size_t)i * verts + v] = rd_u8(&fr);
        }
    }
out:
    if (e) {
        mdl_md2_free(m);
        return e;
    }
    *out = m;
    return QD_OK;
}

void mdl_md2_vertex(const mdl_md2 *m, uint32_t f0, uint32_t f1, float lerp, uint32_t i,
                    float out[3])
{
    out[0] = out[1] = out[2] = 0;
    if (i >= m->num_verts)
        return;
    f0 = f0 < m->num_frames ? f0 : 0;
    f1 = f1 < m->num_frames ? f1 : 0;
    const float *a = m->poses[(size_t)f0 * m->num_verts + i],
                *b = m->poses[(size_t)f1 * m->num_verts + i];
    for (int j = 0; j < 3; j++)
        out[j] = a[j] + (b[j] - a[j]) * lerp;
}

void mdl_md2_free(mdl_md2 *m)
{
    if (!m)
        return;
    free(m->skins);
    free(m->st);
    free(m->tris);
    free(m->frames);
    free(m->poses);
    free(m->normals);
    free(m);
}
