/* mdl_alias.c: loads Quake alias models (MDL, "IDPO" version 6) into mdl_alias.
 *
 * Format facts: id's Quake source (GPL) modelgen.h (mdl_t header, stvert_t, dtriangle_t,
 * trivertx_t, daliasframe_t, daliasgroup_t, daliasskingroup_t) and the reading order of
 * Mod_LoadAliasModel in model.c: header, skins, st verts, triangles, frames. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../common/rd.h"
#include "model_local.h"

#define IDPO_VERSION 6
#define HEADER_SIZE 84

typedef mdl_file loader;

/* calloc for count records of size bytes once r is shown to hold them at rec file bytes
 * each; NULL with *e set (truncated: what is cut off; or out of memory) otherwise. */
static void *alloc_backed(const loader *ld, const rd_t *r, uint32_t count, size_t rec,
                          size_t size, const char *what, qd_err *e)
{
    if ((uint64_t)count * rec > rd_left(r)) {
        *e = mdl_file_fail(ld, QD_ERR_TRUNCATED, r->pos, what);
        return NULL;
    }
    void *p = mdl_calloc(count, size);
    if (!p)
        *e = mdl_file_fail(ld, QD_ERR_NOMEM, r->pos, "model");
    return p;
}

/* Skins: a type (0 single, else a group of n pictures with n intervals); each picture is
 * width * height palette indices. Keeps each skin's average colour and first picture
 * (skin0), and a group's later pictures with their intervals (more, for mdl_alias_skin).
 * A first walk counts the groups' pictures in the file; nothing is allocated before the
 * file is shown to hold them. */
static qd_err read_skins(const loader *ld, rd_t *r, mdl_alias *m, const uint32_t palette[256])
{
    size_t pic = (size_t)m->skin_width * m->skin_height;
    /* Each skin holds at least its type and one picture: the file must have that much
     * before anything is allocated (a skin is up to 4 MB). */
    if ((uint64_t)m->num_skins * (4 + (uint64_t)pic) > rd_left(r))
        return mdl_file_fail(ld, QD_ERR_TRUNCATED, r->pos, "skins cut off");
    uint32_t more = 0;
    rd_t w = *r;
    for (uint32_t i = 0; i < m->num_skins; i++) {
        size_t at = w.pos;
        int group = rd_s32(&w) != 0;
        uint32_t n = group ? rd_u32(&w) : 1;
        if (n == 0 || n > MDL_ALIAS_MAX_SKINS)
            return mdl_file_fail(ld, n ? QD_ERR_LIMIT : QD_ERR_BAD_DATA, at, "bad skin group size");
        if (group)
            rd_skip(&w, (size_t)n * 4); /* intervals */
        if (!rd_bytes(&w, pic * n) || w.err)
            return mdl_file_fail(ld, QD_ERR_TRUNCATED, at, "skin cut off");
        more += n - 1;
        if (more > MDL_ALIAS_MAX_SKINS * 4u)
            return mdl_file_fail(ld, QD_ERR_LIMIT, at, "too many skin pictures");
    }
    m->skin_colors = mdl_calloc(m->num_skins, sizeof *m->skin_colors);
    /* the walk above bounds these by the file's size */
    m->skin0 = mdl_calloc(m->num_skins ? (size_t)m->num_skins * pic : 0, 1);
    m->skin_more = mdl_calloc((size_t)more * pic, 1);
    m->skin_groups = mdl_calloc(m->num_skins, sizeof *m->skin_groups);
    m->skin_end = mdl_calloc((size_t)more + m->num_skins, sizeof *m->skin_end);
    if (!m->skin_colors || !m->skin0 || !m->skin_more || !m->skin_groups || !m->skin_end)
        return mdl_file_fail(ld, QD_ERR_NOMEM, r->pos, "skins");
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->num_skins; i++) {
        int32_t type = rd_s32(r);
        uint32_t n = 1;
        mdl_alias_skingroup *g = &m->skin_groups[i];
        g->first = k + i; /* this skin's pictures' ends in skin_end */
        if (type != 0) {
            n = rd_u32(r);
            /* intervals: as a frame group's, a time that does not grow is 0.1 s on */
            float last = 0;
            for (uint32_t j = 0; j < n; j++) {
                float end = rd_f32(r);
                m->skin_end[g->first + j] = last = end > last && end < 1e6f ? end : last + 0.1f;
            }
        }
        g->num = n;
        g->more = k;
        for (uint32_t j = 0; j < n; j++) {
            const uint8_t *px = rd_bytes(r, pic);
            if (j == 0) {
                m->skin_colors[i] = mdl_average_color(px, pic, palette, 0, NULL);
                memcpy(m->skin0 + (size_t)i * pic, px, pic);
            } else {
                memcpy(m->skin_more + (size_t)(k++) * pic, px, pic);
            }
        }
    }
    m->color = m->num_skins ? m->skin_colors[0] : MDL_GREY;
    return QD_OK;
}

/* One simple frame (daliasframe_t: bboxmin, bboxmax, name[16], then the verts). With pose
 * set the verts are decompressed into it. */
static void read_pose(rd_t *r, const mdl_alias *m, const float scale[3],
                      const float translate[3], mdl_alias_frame *f, float (*pose)[3],
                      uint8_t *normals)
{
    uint8_t bb[8];
    for (int j = 0; j < 8; j++)
        bb[j] = rd_u8(r);
    const uint8_t *name = rd_bytes(r, 16);
    if (f && name) {
        mdl_copy_name(f->name, sizeof f->name, (const char *)name, 16);
        for (int j = 0; j < 3; j++) {
            f->mins[j] = bb[j] * scale[j] + translate[j];
            f->maxs[j] = bb[4 + j] * scale[j] + translate[j];
        }
    }
    const uint8_t *v = rd_bytes(r, (size_t)m->num_verts * 4);
    if (!v || !pose)
        return;
    for (uint32_t i = 0; i < m->num_verts; i++, v += 4) {
        for (int j = 0; j < 3; j++)
            pose[i][j] = v[j] * scale[j] + translate[j];
        normals[i] = v[3];
    }
}

/* The frames, walked twice: once (m->poses NULL) to check sizes and count poses before
 * anything is allocated, once to fill. */
static qd_err read_frames(const loader *ld, rd_t *r, mdl_alias *m, const float scale[3],
                          const float translate[3])
{
    uint32_t poses = 0;
    for (uint32_t i = 0; i < m->num_frames; i++) {
        size_t at = r->pos;
        int32_t type = rd_s32(r);
        uint32_t n = 1;
        if (type != 0) {
            n = rd_u32(r);
            if (n == 0)
                return mdl_file_fail(ld, QD_ERR_BAD_DATA, at, "empty frame group");
            if (n > MDL_ALIAS_MAX_FRAMES)
                return mdl_file_fail(ld, QD_ERR_LIMIT, at, "frame group too large");
            rd_skip(r, 8); /* group bboxmin, bboxmax */
            /* intervals: each pose's end time in the group's cycle. Quake refuses one that
             * does not grow; here it becomes 0.1 s after the one before. */
            float last = 0;
            for (uint32_t j = 0; j < n; j++) {
                float end = rd_f32(r);
                if (!(end > last && end < 1e6f))
                    end = last + 0.1f;
                if (m->pose_end)
                    m->pose_end[poses + j] = end;
                last = end;
            }
        }
        if (poses + n > MDL_ALIAS_MAX_FRAMES)
            return mdl_file_fail(ld, QD_ERR_LIMIT, at, "too many poses");
        mdl_alias_frame *f = m->poses ? &m->frames[i] : NULL;
        if (f) {
            f->first_pose = poses;
            f->num_poses = n;
        }
        for (uint32_t j = 0; j < n; j++) {
            float (*pose)[3] = m->poses ? m->poses + (size_t)(poses + j) * m->num_verts : NULL;
            uint8_t *nrm = m->poses ? m->normals + (size_t)(poses + j) * m->num_verts : NULL;
            read_pose(r, m, scale, translate, j == 0 ? f : NULL, pose, nrm);
        }
        if (r->err)
            return mdl_file_fail(ld, QD_ERR_TRUNCATED, at, "frame cut off");
        poses += n;
    }
    m->num_poses = poses;
    return QD_OK;
}

qd_err mdl_alias_load(const uint8_t *data, size_t len, const char *name,
                      const uint32_t palette[256], mdl_alias **out, qd_error *err)
{
    *out = NULL;
    loader ld = {data, len, name ? name : "model", err};
    if (!data)
        return mdl_file_fail(&ld, QD_ERR_USAGE, 0, "no data");
    if (len < HEADER_SIZE)
        return mdl_file_fail(&ld, QD_ERR_TRUNCATED, len, "shorter than an MDL header");
    if (memcmp(data, "IDPO", 4) != 0)
        return mdl_file_fail(&ld, QD_ERR_BAD_DATA, 0, "not an MDL (IDPO) file");
    rd_t r = rd_make(data, len);
    rd_skip(&r, 4);
    int32_t version = rd_s32(&r);
    if (version != IDPO_VERSION)
        return qd_fail(err, QD_ERR_UNSUPPORTED, 4, "%s: MDL version %d (only 6)", ld.name,
                       version);
    float scale[3], translate[3];
    for (int j = 0; j < 3; j++)
        scale[j] = rd_f32(&r);
    for (int j = 0; j < 3; j++)
        translate[j] = rd_f32(&r);
    float radius = rd_f32(&r);
    rd_skip(&r, 12); /* eye position */
    uint32_t num_skins = rd_u32(&r), skin_w = rd_u32(&r), skin_h = rd_u32(&r);
    uint32_t num_verts = rd_u32(&r), num_tris = rd_u32(&r), num_frames = rd_u32(&r);
    rd_skip(&r, 4); /* synctype */
    uint32_t flags = rd_u32(&r);
    rd_skip(&r, 4); /* size */

    /* each field checked with its own offset (a review: one offset for all of them) */
    static const struct {
        uint32_t max;
        const char *what;
    } caps[6] = {{MDL_ALIAS_MAX_SKINS, "skins"},         {MDL_ALIAS_MAX_SKIN_SIZE, "skin width"},
                 {MDL_ALIAS_MAX_SKIN_SIZE, "skin height"}, {MDL_ALIAS_MAX_VERTS, "vertices"},
                 {MDL_ALIAS_MAX_TRIS, "triangles"},       {MDL_ALIAS_MAX_FRAMES, "frames"}};
    const uint32_t field[6] = {num_skins, skin_w, skin_h, num_verts, num_tris, num_frames};
    for (int k = 0; k < 6; k++) {
        char what[64];
        if (field[k] > caps[k].max) {
            snprintf(what, sizeof what, "%u %s (cap %u)", field[k], caps[k].what, caps[k].max);
            return mdl_file_fail(&ld, QD_ERR_LIMIT, 48 + 4 * (uint64_t)k, what);
        }
        /* Mod_LoadAliasModel refuses these too (a size 0 only matters with skins) */
        if (field[k] == 0 && (k >= 3 || (k > 0 && num_skins))) {
            snprintf(what, sizeof what, "no %s", caps[k].what);
            return mdl_file_fail(&ld, QD_ERR_BAD_DATA, 48 + 4 * (uint64_t)k, what);
        }
    }

    mdl_alias *m = calloc(1, sizeof *m);
    if (!m)
        return mdl_file_fail(&ld, QD_ERR_NOMEM, 0, "model");
    mdl_copy_name(m->name, sizeof m->name, ld.name, strlen(ld.name));
    m->num_skins = num_skins;
    m->skin_width = skin_w;
    m->skin_height = skin_h;
    m->num_verts = num_verts;
    m->num_tris = num_tris;
    m->num_frames = num_frames;
    m->flags = flags;
    m->radius = radius;

    qd_err e = read_skins(&ld, &r, m, palette);
    if (e)
        goto fail;

    /* Each array is allocated once the file is shown to hold its records: st verts (12
     * bytes) and triangles (16) here, frames after the first walk over them. */
    m->st = alloc_backed(&ld, &r, num_verts, 12, sizeof *m->st, "texture coordinates cut off", &e);
    if (!m->st)
        goto fail;
    for (uint32_t i = 0; i < num_verts; i++) {
        m->st[i].onseam = rd_u32(&r) != 0;
        m->st[i].s = rd_s32(&r);
        m->st[i].t = rd_s32(&r);
    }
    m->tris = alloc_backed(&ld, &r, num_tris, 16, sizeof *m->tris, "triangles cut off", &e);
    if (!m->tris)
        goto fail;
    for (uint32_t i = 0; i < num_tris; i++) {
        m->tris[i].front = rd_u32(&r) != 0;
        for (int j = 0; j < 3; j++) {
            m->tris[i].v[j] = rd_u32(&r);
            if (m->tris[i].v[j] >= num_verts) {
                e = qd_fail(err, QD_ERR_BAD_DATA, r.pos - 4,
                            "%s: triangle %u: vertex index out of range", ld.name, i);
                goto fail;
            }
        }
    }

    rd_t frames_start = r;
    if ((e = read_frames(&ld, &r, m, scale, translate)))
        goto fail;
    /* Each frame and pose took file bytes (a pose num_verts * 4), so these allocations are
     * bounded by the file. */
    m->frames = mdl_calloc(num_frames, sizeof *m->frames);
    m->poses = mdl_calloc((size_t)m->num_poses * num_verts, sizeof *m->poses);
    m->normals = mdl_calloc((size_t)m->num_poses * num_verts, 1);
    m->pose_end = mdl_calloc(m->num_poses, sizeof *m->pose_end);
    if (!m->frames || !m->poses || !m->normals || !m->pose_end) {
        e = mdl_file_fail(&ld, QD_ERR_NOMEM, 0, "poses");
        goto fail;
    }
    r = frames_start;
    if ((e = read_frames(&ld, &r, m, scale, translate)))
        goto fail;
    *out = m;
    return QD_OK;
fail:
    mdl_alias_free(m);
    return e;
}

void mdl_alias_free(mdl_alias *m)
{
    if (!m)
        return;
    free(m->tris);
    free(m->st);
    free(m->frames);
    free(m->poses);
    free(m->normals);
    free(m->pose_end);
    free(m->skin_colors);
    free(m->skin0);
    free(m->skin_more);
    free(m->skin_groups);
    free(m->skin_end);
    free(m);
}

uint32_t mdl_alias_pose(const mdl_alias *m, uint32_t f, double t)
{
    if (f >= m->num_frames)
        f = 0;
    const mdl_alias_frame *fr = &m->frames[f];
    if (fr->num_poses <= 1 || !m->pose_end)
        return fr->first_pose;
    double cycle = m->pose_end[fr->first_pose + fr->num_poses - 1];
    double k = t > 0 && t < 1e9 && cycle > 0 ? fmod(t, cycle) : 0;
    for (uint32_t j = 0; j < fr->num_poses; j++)
        if (m->pose_end[fr->first_pose + j] > k)
            return fr->first_pose + j;
    return fr->first_pose + fr->num_poses - 1;
}

const uint8_t *mdl_alias_skin(const mdl_alias *m, uint32_t skin, double t)
{
    if (!m->num_skins)
        return NULL;
    skin = skin < m->num_skins ? skin : 0;
    size_t pic = (size_t)m->skin_width * m->skin_height;
    const mdl_alias_skingroup *g = m->skin_groups ? &m->skin_groups[skin] : NULL;
    if (!g || g->num <= 1)
        return m->skin0 + (size_t)skin * pic;
    const float *end = m->skin_end + g->first;
    double cycle = end[g->num - 1];
    double k = t > 0 && t < 1e9 && cycle > 0 ? fmod(t, cycle) : 0;
    uint32_t j = 0;
    while (j + 1 < g->num && !(end[j] > k))
        j++;
    return j == 0 ? m->skin0 + (size_t)skin * pic : m->skin_more + (size_t)(g->more + j - 1) * pic;
}
