/* test_model_q2q3.c: Quake II (IBSP 38) and Quake III (IBSP 46) maps: the real maps load with
 * the counts of their lumps and the manifest's titles, cut copies fail cleanly, and a render
 * from a deathmatch start covers the screen; tiny synthetic maps of both formats check the
 * tree, the cluster PVS and hostile fields. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/common/rd.h"
#include "../../src/model/model.h"
#include "../../src/output/out.h"
#include "../../src/render/render.h"
#include "../test.h"
#include "../testbuf.h"

static const struct {
    const char *file, *message, *map;
    int format;
    const char *eye; /* origin and angles of the view, when the start does not do */
} ibsp_maps[] = {
    {"bsp/libq2_testdata_backup.bsp", "there is no backup .by. deathcubek", "maps/backup.bsp",
     MDL_BSP_Q2_38, NULL},
    /* a title-screen map: its info_player_start is a sealed box of no-draw walls; the view
     * is the title camera's path (path_corner_2, looking along the corridor) */
    {"bsp/mission64-data_maps_titlemap.bsp", "Welcome to Mission 64", "maps/titlemap.bsp",
     MDL_BSP_Q2_38, "-659 -32 163 0 90 0"},
    {"bsp/openarena-081-maps_pak1-maps_oa_bases3_ibsp46.bsp", "some bases", "maps/oa_bases3.bsp",
     MDL_BSP_Q3_46, NULL},
    {"bsp/openarena-081-maps_pak1-maps_oa_ctf2_ibsp46.bsp", "oa_ctf2", "maps/oa_ctf2.bsp",
     MDL_BSP_Q3_46, NULL},
    {"bsp/openarena-081-maps_pak1-maps_oa_dm3_ibsp46.bsp", "The Abandoned Base", "maps/oa_dm3.bsp",
     MDL_BSP_Q3_46, NULL},
    {"bsp/openarena-081-maps_pak1-maps_q3dm6ish_ibsp46.bsp", "q3dm6ish by aardappel",
     "maps/q3dm6ish.bsp", MDL_BSP_Q3_46, NULL},
};

/* Length of lump i of an IBSP file, from its header. */
static uint32_t ibsp_lump_len(const uint8_t *d, int i)
{
    rd_t r = rd_make(d, 8 + 8 * (size_t)(i + 1));
    rd_seek(&r, 8 + 8 * (size_t)i + 4);
    return rd_u32(&r);
}

static uint8_t *load_real(int m, size_t *len)
{
    char path[512];
    if (!test_realfile(path, sizeof path, ibsp_maps[m].file))
        return NULL;
    return test_read_file(path, len);
}

TEST(model_ibsp_real_maps_load)
{
    int loaded = 0;
    for (int m = 0; m < (int)(sizeof ibsp_maps / sizeof ibsp_maps[0]); m++) {
        size_t len;
        uint8_t *d = load_real(m, &len);
        if (!d)
            continue;
        mdl_bsp *b = NULL;
        qd_error err = {0};
        qd_err e = mdl_bsp_load(d, len, ibsp_maps[m].file, NULL, &b, &err);
        CHECK_MSG(e == QD_OK, "%s: %s (%s)", ibsp_maps[m].file, qd_strerror(e), err.msg);
        CHECK_EQ(b->format, ibsp_maps[m].format);
        CHECK_STR(b->message, ibsp_maps[m].message);
        if (b->format == MDL_BSP_Q2_38) {
            CHECK_EQ(b->num_planes, ibsp_lump_len(d, 1) / 20);
            CHECK_EQ(b->num_nodes, ibsp_lump_len(d, 4) / 28);
            CHECK_EQ(b->num_textures, ibsp_lump_len(d, 5) / 76);
            CHECK_EQ(b->num_faces, ibsp_lump_len(d, 6) / 20);
            CHECK_EQ(b->light_len, ibsp_lump_len(d, 7));
            CHECK_EQ(b->num_leaves, ibsp_lump_len(d, 8) / 28 + 1);
            CHECK_EQ(b->num_marks, ibsp_lump_len(d, 9) / 2);
            CHECK_EQ(b->num_verts, ibsp_lump_len(d, 12) / 4);
            CHECK_EQ(b->num_models, ibsp_lump_len(d, 13) / 48);
        } else {
            CHECK_EQ(b->num_textures, ibsp_lump_len(d, 1) / 72);
            CHECK_EQ(b->num_planes, ibsp_lump_len(d, 2) / 16);
            CHECK_EQ(b->num_nodes, ibsp_lump_len(d, 3) / 36);
            CHECK_EQ(b->num_leaves, ibsp_lump_len(d, 4) / 48 + 1);
            CHECK_EQ(b->num_models, ibsp_lump_len(d, 7) / 40);
            CHECK_EQ(b->num_verts, b->num_faces * 3);
            CHECK(b->num_faces >= ibsp_lump_len(d, 13) / 104);
        }
        CHECK(b->models[0].num_faces > 0);
        CHECK_EQ(b->models[0].visleafs, b->num_leaves - 1);
        CHECK_EQ(b->leaves[0].contents, MDL_CONTENTS_SOLID);
        /* faces are planar: every corner lies on the face's plane */
        for (uint32_t i = 0; i < b->num_faces; i++) {
            const mdl_face *f = &b->faces[i];
            if (f->flags & MDL_SURF_NODRAW)
                continue;
            for (uint32_t k = 0; k < f->num_verts; k++) {
                const float *v = b->verts[f->first_vert + k];
                float dd =
                    f->normal[0] * v[0] + f->normal[1] * v[1] + f->normal[2] * v[2] - f->dist;
                CHECK_MSG(fabsf(dd) < 0.5f, "%s face %u corner %u off its plane by %g",
                          ibsp_maps[m].file, i, k, dd);
            }
        }
        /* the lit faces are lit */
        double sum = 0;
        uint32_t lit = 0;
        for (uint32_t i = 0; i < b->num_faces; i++)
            if (!(b->faces[i].flags & MDL_SURF_FULLBRIGHT) && b->faces[i].light > 0) {
                sum += b->faces[i].light;
                lit++;
            }
        CHECK_MSG(lit > b->num_faces / 2, "%s: %u of %u faces lit", ibsp_maps[m].file, lit,
                  b->num_faces);
        CHECK_MSG(sum / lit > 10 && sum / lit <= 255, "%s: mean light %.1f", ibsp_maps[m].file,
                  sum / lit);
        mdl_bsp_free(b);
        free(d);
        loaded++;
    }
    if (!loaded)
        SKIP("no IBSP maps in realdata");
}

/* Every cut of a real map fails with an error (never a crash, never success). */
TEST(model_ibsp_truncated_fail)
{
    int tried = 0;
    for (int m = 0; m < (int)(sizeof ibsp_maps / sizeof ibsp_maps[0]); m++) {
        size_t len;
        uint8_t *d = load_real(m, &len);
        if (!d)
            continue;
        /* the end of the last lump: cuts before it must fail */
        size_t end = 0;
        int nl = ibsp_maps[m].format == MDL_BSP_Q2_38 ? 19 : 17;
        rd_t r = rd_make(d, len);
        rd_skip(&r, 8);
        for (int i = 0; i < nl; i++) {
            size_t o = rd_u32(&r), l = rd_u32(&r);
            if (o + l > end)
                end = o + l;
        }
        static const double cuts[] = {0, 0.001, 0.01, 0.1, 0.3, 0.5, 0.77, 0.9, 0.99, 0.9999};
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            size_t n = (size_t)((double)end * cuts[c]);
            if (n >= end)
                n = end - 1;
            uint8_t *t = malloc(n ? n : 1);
            memcpy(t, d, n);
            mdl_bsp *b = (mdl_bsp *)1;
            qd_error err = {0};
            qd_err e = mdl_bsp_load(t, n, "cut", NULL, &b, &err);
            CHECK_MSG(e != QD_OK && b == NULL, "%s cut at %zu loaded", ibsp_maps[m].file, n);
            CHECK(err.msg[0]);
            free(t);
            tried++;
        }
        free(d);
    }
    if (!tried)
        SKIP("no IBSP maps in realdata");
}

/* ---- renders from a deathmatch start ---- */

typedef struct one_file {
    const char *name;
    const uint8_t *data;
    size_t len;
} one_file;

static qd_err one_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    const one_file *f = ctx;
    if (strcmp(name, f->name) != 0)
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
    *data = malloc(f->len);
    memcpy(*data, f->data, f->len);
    *len = f->len;
    return QD_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int distinct_colours(const rast_fb *fb)
{
    size_t n = (size_t)fb->w * fb->h;
    uint32_t *c = malloc(n * 4);
    memcpy(c, fb->color, n * 4);
    qsort(c, n, 4, cmp_u32);
    int d = n > 0;
    for (size_t i = 1; i < n; i++)
        d += c[i] != c[i - 1];
    free(c);
    return d;
}

TEST(render_ibsp_deathmatch_starts)
{
    int rendered = 0;
    for (int m = 0; m < (int)(sizeof ibsp_maps / sizeof ibsp_maps[0]); m++) {
        size_t len;
        uint8_t *d = load_real(m, &len);
        if (!d)
            continue;
        cl_state *cl = calloc(1, sizeof *cl);
        cl_reset(cl);
        snprintf(cl->level.map, sizeof cl->level.map, "%s", ibsp_maps[m].map);
        snprintf(cl->level.models[1], sizeof cl->level.models[1], "%s", ibsp_maps[m].map);
        cl->level.num_models = 2;
        cl->view.view_entity = 1;
        one_file f = {ibsp_maps[m].map, d, len};
        qd_error err = {0};
        r_assets *a = r_assets_load(&cl->level, one_read, &f, NULL, &err);
        CHECK_MSG(a && r_assets_map(a), "%s: %s", ibsp_maps[m].file, err.msg);
        const mdl_bsp *b = r_assets_map(a);
        char v[64];
        const char *cls = "info_player_deathmatch";
        if (!mdl_entity_value(b->entities, cls, 0, "origin", v, sizeof v))
            cls = "info_player_start";
        CHECK_MSG(mdl_entity_value(b->entities, cls, 0, "origin", v, sizeof v),
                  "%s: no start", ibsp_maps[m].file);
        r_camera cam = {.origin = {0}, .angles = {0}, .fov = 90};
        CHECK_EQ(sscanf(v, "%f %f %f", &cam.origin[0], &cam.origin[1], &cam.origin[2]), 3);
        cam.origin[2] += 22; /* about the eye height of both games */
        if (mdl_entity_value(b->entities, cls, 0, "angle", v, sizeof v))
            cam.angles[1] = (float)atof(v);
        else if (mdl_entity_value(b->entities, cls, 0, "angles", v, sizeof v))
            CHECK_EQ(sscanf(v, "%f %f %f", &cam.angles[0], &cam.angles[1], &cam.angles[2]), 3);
        if (ibsp_maps[m].eye)
            CHECK_EQ(sscanf(ibsp_maps[m].eye, "%f %f %f %f %f %f", &cam.origin[0],
                            &cam.origin[1], &cam.origin[2], &cam.angles[0], &cam.angles[1],
                            &cam.angles[2]),
                     6);
        uint32_t leaf = mdl_bsp_point_leaf(b, b->models[0].headnode, cam.origin);
        CHECK(leaf > 0 && leaf < b->num_leaves);
        CHECK(b->leaves[leaf].cluster >= 0 || b->num_clusters == 0);
        float light = -1;
        mdl_bsp_light_point(b, cam.origin, NULL, &light);
        CHECK(light >= 0 && light <= 255);

        rast_fb *fb = rast_fb_new(320, 240);
        r_options flat = {.mode = R_MODE_FLAT};
        int prims = r_render(a, cl, 0, &cam, &flat, fb);
        char path[512];
        snprintf(path, sizeof path, "%s/ibsp_%s.png", test_tmpdir(), ibsp_maps[m].map + 5);
        out_png_write(path, fb, &err); /* for eyes only */
        size_t covered = 0, n = 320 * 240;
        for (size_t i = 0; i < n; i++)
            covered += fb->depth[i] > 0;
        CHECK_MSG(prims > 5, "%s: %d primitives", ibsp_maps[m].file, prims);
        CHECK_MSG(covered > n * 9 / 10, "%s: flat covers %zu of %zu pixels", ibsp_maps[m].file,
                  covered, n);
        int dc = distinct_colours(fb);
        CHECK_MSG(dc > 10, "%s: %d distinct colours", ibsp_maps[m].file, dc);
        rast_fb_free(fb);
        r_assets_free(a);
        free(cl);
        free(d);
        rendered++;
    }
    if (!rendered)
        SKIP("no IBSP maps in realdata");
}

/* ---- tiny synthetic maps: one room wall of 100x100 at x = 100 facing the origin ---- */

static void bstr(gbuf *b, const char *s, size_t n)
{
    char tmp[64] = {0};
    snprintf(tmp, sizeof tmp, "%s", s);
    gput(b, tmp, n);
}

static const float wall[4][3] = {{100, -50, -50}, {100, 50, -50}, {100, 50, 50}, {100, -50, 50}};
static const char synth_ents[] = "{\n\"classname\" \"worldspawn\"\n\"message\" \"Synthetic\"\n}\n"
                                 "{\n\"classname\" \"info_player_deathmatch\"\n"
                                 "\"origin\" \"0 0 0\"\n}\n";

/* Assemble lumps (each a gbuf) after an IBSP header of version ver. */
static uint8_t *assemble(int ver, gbuf *l, int n, size_t *len)
{
    gbuf out = {0};
    gput(&out, "IBSP", 4);
    g32(&out, (uint32_t)ver);
    size_t ofs = 8 + (size_t)n * 8;
    for (int i = 0; i < n; i++) {
        g32(&out, (uint32_t)ofs);
        g32(&out, (uint32_t)l[i].len);
        ofs += (l[i].len + 3) & ~(size_t)3;
    }
    for (int i = 0; i < n; i++) {
        if (l[i].len)
            gput(&out, l[i].p, l[i].len);
        while (out.len & 3)
            g8(&out, 0);
        free(l[i].p);
    }
    *len = out.len;
    return out.p;
}

/* A Quake II texinfo: its texture's name, SURF_* flags and nexttexinfo. */
typedef struct q2_texinfo {
    const char *name;
    uint32_t flags;
    int32_t next;
} q2_texinfo;

static uint8_t *build_q2_tex(const q2_texinfo *ti, int nti, int face_ti, size_t *len);

/* Quake II: the wall as one face, a node on its plane, solid leaf 0 behind it and leaf 1
 * (cluster 0) in front, one cluster of vis, a lightmap of 100; its texinfo names
 * e1u1/floor1_1 with the given SURF_* flags. */
static uint8_t *build_q2_flags(uint32_t flags, size_t *len)
{
    const q2_texinfo ti = {"e1u1/floor1_1", flags, -1};
    return build_q2_tex(&ti, 1, 0, len);
}

static uint8_t *build_q2(size_t *len) { return build_q2_flags(0, len); }

/* The same with nti texinfos (s along +y, t along +z), the face using face_ti. */
static uint8_t *build_q2_tex(const q2_texinfo *ti, int nti, int face_ti, size_t *len)
{
    gbuf l[19] = {{0}};
    gput(&l[0], synth_ents, sizeof synth_ents);
    gf32(&l[1], -1), gf32(&l[1], 0), gf32(&l[1], 0), gf32(&l[1], -100), g32(&l[1], 0);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            gf32(&l[2], wall[i][j]);
    g32(&l[3], 1), g32(&l[3], 12), g32(&l[3], 12), g8(&l[3], 1); /* one cluster sees itself */
    g32(&l[4], 0), g32(&l[4], (uint32_t)-2), g32(&l[4], (uint32_t)-1);
    for (int j = 0; j < 3; j++)
        g16(&l[4], (unsigned)(uint16_t)-64);
    for (int j = 0; j < 3; j++)
        g16(&l[4], 128);
    g16(&l[4], 0), g16(&l[4], 1);
    for (int i = 0; i < nti; i++) {
        gf32(&l[5], 0), gf32(&l[5], 1), gf32(&l[5], 0), gf32(&l[5], 0); /* texinfo s */
        gf32(&l[5], 0), gf32(&l[5], 0), gf32(&l[5], 1), gf32(&l[5], 0); /* t */
        g32(&l[5], ti[i].flags), g32(&l[5], 0), bstr(&l[5], ti[i].name, 32);
        g32(&l[5], (uint32_t)ti[i].next);
    }
    g16(&l[6], 0), g16(&l[6], 0), g32(&l[6], 0), g16(&l[6], 4), g16(&l[6], (unsigned)face_ti);
    g8(&l[6], 0), g8(&l[6], 255), g8(&l[6], 255), g8(&l[6], 255), g32(&l[6], 0);
    for (int i = 0; i < 9 * 9 * 3; i++)
        g8(&l[7], 100);
    for (int leaf = 0; leaf < 2; leaf++) {
        g32(&l[8], leaf ? 0 : 1); /* contents: solid, then empty */
        g16(&l[8], leaf ? 0 : (unsigned)(uint16_t)-1), g16(&l[8], (unsigned)leaf);
        for (int j = 0; j < 3; j++)
            g16(&l[8], (unsigned)(uint16_t)-64);
        for (int j = 0; j < 3; j++)
            g16(&l[8], 128);
        g16(&l[8], 0), g16(&l[8], (unsigned)leaf), g16(&l[8], 0), g16(&l[8], 0);
    }
    g16(&l[9], 0);
    g16(&l[11], 0), g16(&l[11], 0);
    for (unsigned i = 0; i < 4; i++)
        g16(&l[11], i), g16(&l[11], (i + 1) & 3);
    for (uint32_t i = 1; i <= 4; i++)
        g32(&l[12], i);
    for (int j = 0; j < 3; j++)
        gf32(&l[13], -64);
    for (int j = 0; j < 3; j++)
        gf32(&l[13], 128);
    for (int j = 0; j < 3; j++)
        gf32(&l[13], 0);
    g32(&l[13], 0), g32(&l[13], 0), g32(&l[13], 1);
    return assemble(38, l, 19, len);
}

static void q3_vert(gbuf *b, float x, float y, float z, float lu, float lv, int c)
{
    gf32(b, x), gf32(b, y), gf32(b, z), gf32(b, 0), gf32(b, 0), gf32(b, lu), gf32(b, lv);
    gf32(b, -1), gf32(b, 0), gf32(b, 0);
    g8(b, (unsigned)c), g8(b, (unsigned)c), g8(b, (unsigned)c), g8(b, 255);
}

/* Quake III: the wall as a planar surface of two triangles and a flat 3x3 patch in front of
 * it, both in leaf 1 (cluster 0), one lightmap page of 50, a 3x3x1 light grid. With
 * extra_surfs more copies of the patch surface follow (in no leaf), and leaf 1 lists the
 * patch extra_marks more times. */
/* build_q3 with extra_surfs more patches and leaf 1 listing the patch extra_marks more times
 * (or, with flare, a flare surface of no triangles appended, listed those times by both
 * leaves: the same range of leaf surfaces). */
static uint8_t *build_q3_more(uint32_t extra_surfs, uint32_t extra_marks, int flare,
                              uint32_t unused_indexes, size_t *len)
{
    gbuf l[17] = {{0}};
    gput(&l[0], synth_ents, sizeof synth_ents);
    bstr(&l[1], "textures/base_wall/concrete", 64), g32(&l[1], 0), g32(&l[1], 1);
    gf32(&l[2], -1), gf32(&l[2], 0), gf32(&l[2], 0), gf32(&l[2], -100);
    g32(&l[3], 0), g32(&l[3], (uint32_t)-2), g32(&l[3], (uint32_t)-1);
    for (int j = 0; j < 3; j++)
        g32(&l[3], (uint32_t)-64);
    for (int j = 0; j < 3; j++)
        g32(&l[3], 128);
    for (int leaf = 0; leaf < 2; leaf++) {
        g32(&l[4], leaf ? 0 : (uint32_t)-1), g32(&l[4], 0);
        for (int j = 0; j < 3; j++)
            g32(&l[4], (uint32_t)-64);
        for (int j = 0; j < 3; j++)
            g32(&l[4], 128);
        g32(&l[4], 0), g32(&l[4], leaf || flare ? 2 + extra_marks : 0), g32(&l[4], 0),
            g32(&l[4], 0);
    }
    g32(&l[5], 0), g32(&l[5], 1);
    for (uint32_t i = 0; i < extra_marks; i++)
        g32(&l[5], flare ? 2 + extra_surfs : 1);
    for (int j = 0; j < 3; j++)
        gf32(&l[7], j == 0 ? 0 : j == 1 ? -64 : 0);
    for (int j = 0; j < 3; j++)
        gf32(&l[7], j == 0 ? 128 : 64);
    g32(&l[7], 0), g32(&l[7], 2), g32(&l[7], 0), g32(&l[7], 0);
    for (int i = 0; i < 4; i++)
        q3_vert(&l[10], wall[i][0], wall[i][1], wall[i][2], 0.1f + 0.1f * (float)(i & 1),
                0.1f + 0.05f * (float)(i >> 1), 60);
    for (int r = 0; r < 3; r++) /* patch rows go up, columns go +y: seen from -x, clockwise */
        for (int c = 0; c < 3; c++)
            q3_vert(&l[10], 90, 20 - 10 * (float)c, 20 + 10 * (float)r, 0.5f, 0.5f, 60);
    g32(&l[11], 0), g32(&l[11], 1), g32(&l[11], 2), g32(&l[11], 0), g32(&l[11], 2), g32(&l[11], 3);
    for (uint32_t i = 0; i < unused_indexes; i++) /* (no surface names them) */
        g32(&l[11], 0);
    for (uint32_t s = 0; s < 2 + extra_surfs; s++) {
        g32(&l[13], 0), g32(&l[13], (uint32_t)-1), g32(&l[13], s ? 2 : 1);
        g32(&l[13], s ? 4 : 0), g32(&l[13], s ? 9 : 4), g32(&l[13], 0), g32(&l[13], s ? 0 : 6);
        g32(&l[13], 0), g32(&l[13], 0), g32(&l[13], 0), g32(&l[13], 8), g32(&l[13], 8);
        for (int j = 0; j < 9; j++)
            gf32(&l[13], 0);
        gf32(&l[13], -1), gf32(&l[13], 0), gf32(&l[13], 0);
        g32(&l[13], s ? 3 : 0), g32(&l[13], s ? 3 : 0);
    }
    for (int f = 0; f < flare; f++) { /* MST_FLARE (4): no vertex, no index, no triangle */
        g32(&l[13], 0), g32(&l[13], (uint32_t)-1), g32(&l[13], 4);
        for (int j = 0; j < 4; j++)
            g32(&l[13], 0);
        g32(&l[13], (uint32_t)-1);
        for (int j = 0; j < 4 + 3 + 6 + 3 + 2; j++)
            g32(&l[13], 0);
    }
    for (int i = 0; i < 128 * 128 * 3; i++)
        g8(&l[14], 50);
    for (int i = 0; i < 9; i++)
        for (int k = 0; k < 8; k++)
            g8(&l[15], k < 6 ? 40 : 0);
    g32(&l[16], 1), g32(&l[16], 1), g8(&l[16], 1);
    return assemble(46, l, 17, len);
}

static uint8_t *build_q3(size_t *len)
{
    return build_q3_more(0, 0, 0, 0, len);
}

TEST(model_ibsp_synthetic)
{
    for (int fmt = 0; fmt < 2; fmt++) {
        size_t len;
        uint8_t *d = fmt ? build_q3(&len) : build_q2(&len);
        mdl_bsp *b = NULL;
        qd_error err = {0};
        CHECK_MSG(mdl_bsp_load(d, len, "synth", NULL, &b, &err) == QD_OK, "fmt %d: %s", fmt,
                  err.msg);
        CHECK_EQ(b->format, fmt ? MDL_BSP_Q3_46 : MDL_BSP_Q2_38);
        CHECK_STR(b->message, "Synthetic");
        CHECK_EQ(b->num_leaves, 3);
        CHECK_EQ(b->num_faces, fmt ? 2 + 2 : 1); /* the flat patch: one cell, 2 triangles */
        CHECK_EQ(b->num_marks, b->num_faces);
        CHECK_EQ(b->num_clusters, 1);
        /* the origin is in front of the wall: file leaf 1, our leaf 2 */
        const float o[3] = {0, 0, 0}, behind[3] = {200, 0, 0};
        uint32_t leaf = mdl_bsp_point_leaf(b, 0, o);
        CHECK_EQ(leaf, 2);
        CHECK_EQ(b->leaves[leaf].cluster, 0);
        CHECK_EQ(mdl_bsp_point_leaf(b, 0, behind), 1);
        CHECK_EQ(b->leaves[1].contents, MDL_CONTENTS_SOLID);
        uint8_t pvs[1];
        mdl_bsp_pvs(b, leaf, pvs);
        CHECK_EQ(pvs[0] & 3, 2); /* leaf 2 (bit 1) is seen, the solid file leaf 0 is not */
        /* every face looks at the origin and is lit */
        for (uint32_t i = 0; i < b->num_faces; i++) {
            const mdl_face *f = &b->faces[i];
            CHECK_MSG(f->normal[0] < -0.99f && f->dist < 0, "face %u normal %g %g %g", i,
                      f->normal[0], f->normal[1], f->normal[2]);
            CHECK_MSG(fabsf(f->light - 100) < 1, "face %u light %g", i, f->light);
        }
        float light = -1;
        mdl_bsp_light_point(b, o, NULL, &light); /* Q2: no floor under the origin, so 0 */
        CHECK(light >= 0 && light <= 255);
        if (fmt) {
            CHECK_EQ(b->grid_dims[0] * b->grid_dims[1] * b->grid_dims[2], 9);
            CHECK_MSG(fabsf(light - 120) < 1, "grid light %g", light); /* 80 + 80 / 2 */
        }
        mdl_bsp_free(b);
        /* Kept as fuzz seeds when asked (QDEMO_WRITE_SEEDS=dir). */
        const char *seeds = getenv("QDEMO_WRITE_SEEDS");
        if (seeds) {
            char path[512];
            snprintf(path, sizeof path, "%s/synthetic_ibsp%d.bsp", seeds, fmt ? 46 : 38);
            FILE *fp = fopen(path, "wb");
            if (fp) {
                fwrite(d, 1, len, fp);
                fclose(fp);
            }
        }
        free(d);
    }
}

/* Offset of lump i of an IBSP file. */
static uint32_t ibsp_lump_ofs(const uint8_t *d, int i)
{
    rd_t r = rd_make(d, 8 + 8 * (size_t)(i + 1));
    rd_seek(&r, 8 + 8 * (size_t)i);
    return rd_u32(&r);
}

static void patch32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

TEST(model_ibsp_hostile_fields)
{
    static const struct {
        int q3;
        int lump; /* -1: the header */
        uint32_t at, width, value;
        qd_err want;
        const char *what;
    } cases[] = {
        {0, -1, 8 + 8 * 6 + 4, 4, 0xffffff00u, QD_ERR_TRUNCATED, "q2 faces past the end"},
        {0, -1, 8 + 8 * 6, 4, 0xfffffff0u, QD_ERR_TRUNCATED, "q2 faces ofs+len wraps"},
        {0, -1, 8 + 8 * 6 + 4, 4, 21, QD_ERR_BAD_DATA, "q2 faces not whole records"},
        {0, -1, 4, 4, 37, QD_ERR_UNSUPPORTED, "IBSP version 37"},
        {0, 6, 0, 2, 5, QD_ERR_BAD_DATA, "q2 face plane"},
        {0, 6, 8, 2, 9, QD_ERR_BAD_DATA, "q2 face edges past surfedges"},
        {0, 6, 8, 2, 2000, QD_ERR_LIMIT, "q2 face with 2000 edges"},
        {0, 6, 10, 2, 3, QD_ERR_BAD_DATA, "q2 face texinfo"},
        {0, 12, 0, 4, 0x80000000u, QD_ERR_BAD_DATA, "q2 surfedge INT_MIN"},
        {0, 11, 4, 2, 99, QD_ERR_BAD_DATA, "q2 edge vertex"},
        {0, 4, 4, 4, 0, QD_ERR_BAD_DATA, "q2 node is its own child"},
        {0, 4, 4, 4, (uint32_t)-9, QD_ERR_BAD_DATA, "q2 node leaf out of range"},
        {0, 4, 0, 4, 7, QD_ERR_BAD_DATA, "q2 node plane"},
        {0, 8, 28 + 4, 2, 5, QD_ERR_BAD_DATA, "q2 leaf cluster past the vis"},
        {0, 8, 28 + 22, 2, 3, QD_ERR_BAD_DATA, "q2 leaf faces past leaffaces"},
        {0, 9, 0, 2, 1, QD_ERR_BAD_DATA, "q2 leafface"},
        {0, 13, 36, 4, 3, QD_ERR_BAD_DATA, "q2 model headnode"},
        {0, 3, 0, 4, 0x40000000u, QD_ERR_BAD_DATA, "q2 vis cluster count"},
        {1, -1, 8 + 8 * 13 + 4, 4, 0xffffff00u, QD_ERR_TRUNCATED, "q3 surfaces past the end"},
        {1, -1, 8 + 8 * 14 + 4, 4, 100, QD_ERR_BAD_DATA, "q3 lightmaps not whole pages"},
        {1, 13, 0, 4, 1, QD_ERR_BAD_DATA, "q3 surface shader"},
        {1, 13, 16, 4, 99, QD_ERR_BAD_DATA, "q3 surface vertices"},
        {1, 13, 20, 4, 0xfffffffeu, QD_ERR_BAD_DATA, "q3 surface index range wraps"},
        {1, 11, 4, 4, 7, QD_ERR_BAD_DATA, "q3 index past its vertices"},
        {1, 13, 104 + 96, 4, 4, QD_ERR_BAD_DATA, "q3 patch width even"},
        {1, 13, 104 + 96, 4, 1001, QD_ERR_BAD_DATA, "q3 patch too wide"},
        {1, 5, 4, 4, 2, QD_ERR_BAD_DATA, "q3 leafsurface"},
        {1, 4, 48 + 36, 4, 0xffffffffu, QD_ERR_BAD_DATA, "q3 leaf surfaces wrap"},
        {1, 4, 48, 4, 3, QD_ERR_BAD_DATA, "q3 leaf cluster"},
        {1, 3, 4, 4, 0x80000000u, QD_ERR_BAD_DATA, "q3 node child INT_MIN"},
        {1, 7, 28, 4, 3, QD_ERR_BAD_DATA, "q3 model surfaces"},
    };
    size_t len2, len3;
    uint8_t *d2 = build_q2(&len2), *d3 = build_q3(&len3);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint8_t *d = cases[c].q3 ? d3 : d2;
        size_t len = cases[c].q3 ? len3 : len2;
        uint8_t *t = malloc(len);
        memcpy(t, d, len);
        uint32_t at =
            cases[c].lump < 0 ? cases[c].at : ibsp_lump_ofs(d, cases[c].lump) + cases[c].at;
        if (cases[c].width == 4)
            patch32(t + at, cases[c].value);
        else
            t[at] = (uint8_t)cases[c].value, t[at + 1] = (uint8_t)(cases[c].value >> 8);
        mdl_bsp *b = (mdl_bsp *)1;
        qd_error err = {0};
        qd_err e = mdl_bsp_load(t, len, "hostile", NULL, &b, &err);
        CHECK_MSG(e == cases[c].want && b == NULL, "%s: got %s (%s)", cases[c].what,
                  qd_strerror(e), err.msg);
        free(t);
    }
    free(d2);
    free(d3);
}

/* The triangles Quake III surfaces become are derived counts: capped by the vertices and
 * indexes that back them (64 triangles for each, plus 4096: mdl_bsp46.c q3_surfaces), and
 * the leaves' lists of them at MDL_BSP_MAX_RECORDS. */
TEST(model_ibsp46_derived_counts_capped)
{
    /* build_q3 has 13 drawverts and 6 indexes: room for 64 * 19 + 4096 = 5312 triangles.
     * The planar surface makes 2 and each flat 3x3 patch one cell of 2 (its curve is exact
     * with one segment each way): with 2654 more patches 2 + 2655 * 2 = 5312 fit, with
     * 2655 more 5314 do not. */
    static const struct {
        uint32_t surfs, marks;
        qd_err want;
        uint32_t faces, nmarks;
        int flare;
        uint32_t unused;
    } cases[] = {
        {2654, 0, QD_OK, 5312, 4, 0, 0},
        {2655, 0, QD_ERR_LIMIT, 0, 0, 0, 0},
        /* indexes no surface uses do not count: 100 more in the lump, still 5312 (before,
         * the lump's length counted: 64 * 119 + 4096 = 11712 let 5314 through) */
        {2655, 0, QD_ERR_LIMIT, 0, 0, 0, 100},
        /* leaf 1 lists 2 + 2 triangles, then 2 for each extra listing of the patch:
         * 2097150 more give 4194304 marks, 2097151 more 4194306, past 1 << 22 = 4194304. */
        {0, 2097150, QD_OK, 4, 4194304, 0, 0},
        {0, 2097151, QD_ERR_LIMIT, 0, 0, 0, 0},
        /* both leaves list the wall, the patch and a flare (no triangles, no marks)
         * 2097150 more times: 2 x 2097152 = 4194304 entries walked, at the cap; one more
         * each is past it, though the marks stay 2 x 4 (before, only the marks were capped,
         * and leaves sharing such a range took seconds a megabyte) */
        {0, 2097150, QD_OK, 4, 8, 1, 0},
        {0, 2097151, QD_ERR_LIMIT, 0, 0, 1, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t len;
        uint8_t *d = build_q3_more(cases[c].surfs, cases[c].marks, cases[c].flare,
                                   cases[c].unused, &len);
        mdl_bsp *b = NULL;
        qd_error err = {0};
        qd_err e = mdl_bsp_load(d, len, "counts", NULL, &b, &err);
        free(d);
        CHECK_MSG(e == cases[c].want, "case %zu: got %s (%s)", c, qd_strerror(e), err.msg);
        if (e == QD_OK) {
            CHECK_EQ(b->num_faces, cases[c].faces);
            CHECK_EQ(b->num_marks, cases[c].nmarks);
        } else {
            CHECK(b == NULL);
        }
        mdl_bsp_free(b);
    }
}

/* A curved patch is cut by its curvature: build_q3's patch with its middle row pulled 64
 * units towards -x bends along v by |P0 - 2 P1 + P2| / 4 = |90 - 52 + 90| / 4 = 32 units,
 * so ceil(sqrt(32 / 1)) = 6 rows of cells keep every chord within a unit of the curve; it
 * stays straight along u (one column): 6 * 1 * 2 = 12 triangles beside the wall's 2. Every
 * corner lies on x(v) = 90 - 128 v (1 - v), z = 20 + 20 v, and a cell's chord misses the
 * curve by at most 32 / 36 units at its middle. */
TEST(model_ibsp46_patch_subdivides_by_curvature)
{
    size_t len;
    uint8_t *d = build_q3(&len);
    uint32_t verts = ibsp_lump_ofs(d, 10);
    for (int c = 0; c < 3; c++) {
        float x = 26;
        uint32_t bits;
        memcpy(&bits, &x, 4);
        patch32(d + verts + (uint32_t)(4 + 3 + c) * 44, bits);
    }
    mdl_bsp *b = NULL;
    qd_error err = {0};
    CHECK_MSG(mdl_bsp_load(d, len, "arch", NULL, &b, &err) == QD_OK, "%s", err.msg);
    free(d);
    CHECK_EQ(b->num_faces, 2 + 12);
    double worst = 0;
    for (uint32_t f = 2; f < b->num_faces; f++)
        for (int k = 0; k < 3; k++) {
            const float *p = b->verts[b->faces[f].first_vert + (uint32_t)k];
            double v = (p[2] - 20) / 20.0;
            CHECK_MSG(fabs(p[0] - (90 - 128 * v * (1 - v))) < 1e-3, "corner off the curve");
            const float *q = b->verts[b->faces[f].first_vert + (uint32_t)(k + 1) % 3];
            if (fabs(q[2] - p[2]) < 1e-3)
                continue; /* an edge along u */
            double vm = ((p[2] + q[2]) / 2 - 20) / 20.0, xm = (p[0] + q[0]) / 2.0;
            double dev = fabs(xm - (90 - 128 * vm * (1 - vm)));
            worst = dev > worst ? dev : worst;
        }
    CHECK_MSG(worst <= 32.0 / 36 + 1e-3, "a chord misses the curve by %.3f", worst);
    mdl_bsp_free(b);
}

/* ---- Quake II textures: textures/<name>.wal through pics/colormap.pcx's palette ---- */

/* Files by name: a map, and optionally a WAL and a colormap. */
typedef struct some_files {
    one_file f[16];
    int n;
} some_files;

static qd_err some_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    const some_files *s = ctx;
    for (int i = 0; i < s->n; i++)
        if (!strcmp(name, s->f[i].name))
            return one_read((void *)&s->f[i], name, data, len, err);
    return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
}

/* The centre pixel of the synthetic Quake II wall, drawn textured from the origin at demo
 * time t, the level's sky box named sky; with fx, entity 2 carrying those effects 20 units
 * in front of the wall's middle. */
static uint32_t q2_wall_centre_fx(some_files *files, const char *sky, double t, uint32_t fx)
{
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    if (fx) {
        cl->level.game = CL_GAME_Q2;
        cl_frame_begin(cl, t);
        cl_entstate s;
        memset(&s, 0, sizeof s);
        s.origin[0] = 80;
        s.fx = fx;
        cl_entity_update(cl, 2, &s);
        cl_frame_end(cl, 1);
    }
    snprintf(cl->level.sky, sizeof cl->level.sky, "%s", sky);
    snprintf(cl->level.map, sizeof cl->level.map, "maps/synth.bsp");
    snprintf(cl->level.models[1], sizeof cl->level.models[1], "maps/synth.bsp");
    cl->level.num_models = 2;
    cl->view.view_entity = 1;
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, some_read, files, NULL, &err);
    rast_fb *fb = rast_fb_new(64, 48);
    r_camera cam = {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90};
    r_options tex = {.mode = R_MODE_TEXTURED};
    r_render(a, cl, t, &cam, &tex, fb);
    uint32_t c = fb->color[24 * 64 + 32];
    rast_fb_free(fb);
    r_assets_free(a);
    free(cl);
    return c;
}

static uint32_t q2_wall_centre_at(some_files *files, const char *sky, double t)
{
    return q2_wall_centre_fx(files, sky, t, 0);
}

static uint32_t q2_wall_centre_sky(some_files *files, const char *sky)
{
    return q2_wall_centre_at(files, sky, 0);
}

static uint32_t q2_wall_centre(some_files *files) { return q2_wall_centre_sky(files, ""); }

/* The synthetic wall's texinfo names e1u1/floor1_1; its lightmap is 100 everywhere. A WAL of
 * that name (16 x 16, every texel palette index 5, its four levels after the 100-byte
 * header) with a colormap.pcx whose index 5 is pure red (the rest grey 40) draws the wall
 * red: green and blue exactly 0 (0 times any light), red lit. Without the WAL the wall takes
 * the palette colour nearest its name's (a grey: not red), still lit. */
TEST(render_ibsp38_wal_textures)
{
    size_t len;
    uint8_t *map = build_q2(&len);
    static uint8_t wal[100 + 256 + 64 + 16 + 4], pcx[128 + 769];
    memset(wal, 0, sizeof wal);
    memcpy(wal, "e1u1/floor1_1", 13);
    const uint32_t w = 16, ofs[4] = {100, 356, 420, 436};
    for (int i = 0; i < 4; i++)
        wal[32 + i] = (uint8_t)(w >> (8 * i)), wal[36 + i] = (uint8_t)(w >> (8 * i));
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 4; i++)
            wal[40 + 4 * k + i] = (uint8_t)(ofs[k] >> (8 * i));
    memset(wal + 100, 5, sizeof wal - 100);
    memset(pcx, 0, sizeof pcx);
    pcx[128] = 12;
    for (int i = 0; i < 256; i++)
        for (int k = 0; k < 3; k++)
            pcx[129 + 3 * i + k] = (uint8_t)(i == 5 ? (k == 0 ? 255 : 0) : 40);
    some_files files = {{{"maps/synth.bsp", map, len},
                         {"pics/colormap.pcx", pcx, sizeof pcx},
                         {"textures/e1u1/floor1_1.wal", wal, sizeof wal}},
                        3};
    uint32_t red = q2_wall_centre(&files);
    CHECK_MSG((red & 255) > 40 && (red >> 8 & 255) == 0 && (red >> 16 & 255) == 0, "0x%08x",
              red);
    files.n = 2; /* no WAL */
    uint32_t grey = q2_wall_centre(&files);
    CHECK_MSG((grey >> 8 & 255) > 0 && (grey & 255) == (grey >> 8 & 255), "0x%08x", grey);
    free(map);
}

/* yquake2 CL_AddPacketEntities: a rocket (EF_ROCKET) carries a light of 200 in 1 1 0, which
 * the GL refresh adds to the lightmap (R_AddDynamicLights: (radius - distance) x colour
 * where it reaches). 20 units in front of the grey synthetic wall (lightmap 100, no WAL)
 * it makes the wall's middle redder and greener; its red and green pass 255 there (100 +
 * 200 - 20 at the nearest luxel), and gl1_light.c R_BuildLightMap scales the three down
 * together, keeping the hue: blue falls to no less than 100 x 255 / 280 of itself (91 %). A
 * blue flag carrier's 225 in 0.1 0.1 1 makes it bluer most. */
TEST(render_ibsp38_dynamic_light_colours)
{
    size_t len;
    uint8_t *map = build_q2(&len);
    some_files files = {{{"maps/synth.bsp", map, len}}, 1};
    uint32_t bare = q2_wall_centre(&files), rocket = q2_wall_centre_fx(&files, "", 0, CL_FX_ROCKET),
             flag = q2_wall_centre_fx(&files, "", 0, CL_FX_FLAG_BLUE);
    int b[3], r[3], f[3];
    for (int c = 0; c < 3; c++) {
        b[c] = (int)(bare >> (8 * c) & 255);
        r[c] = (int)(rocket >> (8 * c) & 255);
        f[c] = (int)(flag >> (8 * c) & 255);
    }
    CHECK_MSG(r[0] > b[0] + 20 && r[1] > b[1] + 20 && r[2] <= b[2] && r[2] * 100 >= b[2] * 90,
              "0x%08x -> 0x%08x", bare, rocket);
    CHECK_MSG(f[2] - b[2] > 2 * (f[0] - b[0]) && f[2] > b[2] + 20, "0x%08x -> 0x%08x", bare,
              flag);
    free(map);
}

/* yquake2 RI_SetSky: the sky box env/<name><rt|bk|lf|ft|up|dn>; the wall made a SURF_SKY
 * (4) face shows, straight ahead along +x, the rt side's middle: 1x1 TGAs of six colours
 * written here (32-bit, BGRA), rt pure red. With one side missing no box is drawn. */
TEST(render_ibsp38_sky_box)
{
    size_t len;
    uint8_t *map = build_q2_flags(4, &len);
    static const char *const sides[6] = {"rt", "lf", "bk", "ft", "up", "dn"};
    static const uint8_t bgr[6][3] = {{0, 0, 255}, {0, 255, 0}, {255, 0, 0},
                                      {0, 255, 255}, {255, 0, 255}, {255, 255, 0}};
    static uint8_t tga[6][22];
    static char names[6][32];
    some_files files = {{{"maps/synth.bsp", map, len}}, 7};
    for (int k = 0; k < 6; k++) {
        static const uint8_t head[18] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 32, 8};
        memcpy(tga[k], head, 18);
        memcpy(tga[k] + 18, bgr[k], 3);
        tga[k][21] = 255;
        snprintf(names[k], sizeof names[k], "env/unit%s.tga", sides[k]);
        files.f[1 + k] = (one_file){names[k], tga[k], sizeof tga[k]};
    }
    uint32_t c = q2_wall_centre_sky(&files, "unit");
    CHECK_MSG((c & 0xffffff) == 0x0000ff, "0x%08x", c); /* red: R in the low byte */
    files.n = 6; /* no dn: no box */
    c = q2_wall_centre_sky(&files, "unit");
    CHECK_MSG((c & 0xffffff) != 0x0000ff, "0x%08x", c);
    free(map);
}

/* The sky box named again mid-level (CS_SKY: r_assets_set_sky, which app_world_update
 * calls when the level's sky changes; a review: the box stayed the first one the render met,
 * so a frame depended on where the render began): the wall of render_ibsp38_sky_box shows
 * the red rt side of "unit", then the blue one of "blue". A side that is there but damaged
 * (a TGA of two bytes) is said in err, as is one over 1024 texels a side (a 2048 x 1 TGA
 * header, refused before any pixel is decoded), and "bad" draws no box. */
TEST(render_ibsp38_sky_box_named_again)
{
    size_t len;
    uint8_t *map = build_q2_flags(4, &len);
    static const char *const sides[6] = {"rt", "lf", "bk", "ft", "up", "dn"};
    static uint8_t red[22], blue[22], big[18];
    static const uint8_t head[18] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 32, 8};
    memcpy(red, head, 18);
    memcpy(red + 18, (uint8_t[]){0, 0, 255, 255}, 4); /* BGRA */
    memcpy(blue, head, 18);
    memcpy(blue + 18, (uint8_t[]){255, 0, 0, 255}, 4);
    memcpy(big, head, 18);
    big[12] = 0, big[13] = 8; /* 2048 wide */
    static char names[13][32];
    some_files files = {{{"maps/synth.bsp", map, len}}, 13};
    for (int k = 0; k < 6; k++) {
        snprintf(names[k], sizeof names[k], "env/unit%s.tga", sides[k]);
        files.f[1 + k] = (one_file){names[k], red, sizeof red};
        snprintf(names[6 + k], sizeof names[6 + k], "env/blue%s.tga", sides[k]);
        files.f[7 + k] = (one_file){names[6 + k], blue, sizeof blue};
    }
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    snprintf(cl->level.sky, sizeof cl->level.sky, "unit");
    snprintf(cl->level.map, sizeof cl->level.map, "maps/synth.bsp");
    snprintf(cl->level.models[1], sizeof cl->level.models[1], "maps/synth.bsp");
    cl->level.num_models = 2;
    cl->view.view_entity = 1;
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, some_read, &files, NULL, &err);
    rast_fb *fb = rast_fb_new(64, 48);
    r_camera cam = {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90};
    r_options tex = {.mode = R_MODE_TEXTURED};
    r_render(a, cl, 0, &cam, &tex, fb);
    CHECK_MSG((fb->color[24 * 64 + 32] & 0xffffff) == 0x0000ff, "0x%08x",
              fb->color[24 * 64 + 32]);
    r_assets_set_sky(a, "blue", some_read, &files, &err);
    r_render(a, cl, 0, &cam, &tex, fb);
    CHECK_MSG((fb->color[24 * 64 + 32] & 0xffffff) == 0xff0000, "0x%08x",
              fb->color[24 * 64 + 32]);
    CHECK_EQ(err.code, QD_OK);
    /* "bad": rt a two-byte TGA, lf a 2048 x 1 one; the rest as blue's */
    static char bad[6][32];
    for (int k = 0; k < 6; k++) {
        snprintf(bad[k], sizeof bad[k], "env/bad%s.tga", sides[k]);
        files.f[7 + k] = (one_file){bad[k], k == 0 ? (const uint8_t *)"xx" : k == 1 ? big : blue,
                                    k == 0 ? 2 : k == 1 ? sizeof big : sizeof blue};
    }
    r_assets_set_sky(a, "bad", some_read, &files, &err);
    CHECK(err.code != QD_OK && strstr(err.msg, "env/badrt.tga") != NULL);
    r_render(a, cl, 0, &cam, &tex, fb);
    CHECK_MSG((fb->color[24 * 64 + 32] & 0xffffff) != 0xff0000, "0x%08x",
              fb->color[24 * 64 + 32]);
    err = (qd_error){0};
    files.f[7] = (one_file){bad[0], blue, sizeof blue}; /* rt whole again: lf is the one */
    r_assets_set_sky(a, "unit", some_read, &files, &err); /* (another name: looked again) */
    r_assets_set_sky(a, "bad", some_read, &files, &err);
    CHECK(err.code == QD_ERR_LIMIT && strstr(err.msg, "env/badlf.tga") != NULL &&
          strstr(err.msg, "2048x1") != NULL);
    rast_fb_free(fb);
    r_assets_free(a);
    free(cl);
    free(map);
}

/* A 16 x 16 WAL named name whose columns below split are palette index lo and the rest hi
 * (its four levels after the 100-byte header, each the level above halved); and a
 * colormap.pcx whose index 5 is pure red, 6 pure green, the rest grey 40. */
static uint8_t wal_buf[3][100 + 256 + 64 + 16 + 4], pcx_buf[128 + 769];
static void make_wal(uint8_t *wal, const char *name, uint8_t lo, uint8_t hi, int split)
{
    memset(wal, 0, 100);
    memcpy(wal, name, strlen(name));
    const uint32_t w = 16, ofs[4] = {100, 356, 420, 436};
    for (int i = 0; i < 4; i++)
        wal[32 + i] = (uint8_t)(w >> (8 * i)), wal[36 + i] = (uint8_t)(w >> (8 * i));
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < 4; i++)
            wal[40 + 4 * k + i] = (uint8_t)(ofs[k] >> (8 * i));
        int side = 16 >> k;
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++)
                wal[ofs[k] + (uint32_t)(y * side + x)] = x < (split >> k) ? lo : hi;
    }
    memset(pcx_buf, 0, sizeof pcx_buf);
    pcx_buf[128] = 12;
    for (int i = 0; i < 256; i++)
        for (int k = 0; k < 3; k++)
            pcx_buf[129 + 3 * i + k] =
                (uint8_t)(i == 5 ? (k == 0 ? 255 : 0) : i == 6 ? (k == 1 ? 255 : 0) : 40);
}

static int reddish(uint32_t c) { return (c & 255) > 40 && (c >> 8 & 255) == 0; }
static int greenish(uint32_t c) { return (c >> 8 & 255) > 40 && (c & 255) == 0; }

/* yquake2 R_TextureAnimation: a texinfo's nexttexinfo chain is its animation; the world's
 * frame is the time x 2, so the wall (texinfo 1: red, next 2: green, next 1) is red at 0 s,
 * green at 0.5 s, red again at 1 s, green at 1.5 s (frame 3, 3 % 2 = 1). A chain that runs
 * into a loop without its texinfo (1 -> 2 -> 2) is not animated: red at 0.5 s. */
TEST(render_ibsp38_texture_chains)
{
    q2_texinfo ti[3] = {{"e1u1/floor1_1", 0, -1}, {"anim/red", 0, 2}, {"anim/green", 0, 1}};
    size_t len;
    uint8_t *map = build_q2_tex(ti, 3, 1, &len);
    make_wal(wal_buf[0], "anim/red", 5, 5, 16);
    make_wal(wal_buf[1], "anim/green", 6, 6, 16);
    some_files files = {{{"maps/synth.bsp", map, len},
                         {"pics/colormap.pcx", pcx_buf, sizeof pcx_buf},
                         {"textures/anim/red.wal", wal_buf[0], sizeof wal_buf[0]},
                         {"textures/anim/green.wal", wal_buf[1], sizeof wal_buf[1]}},
                        4};
    static const double at[4] = {0, 0.5, 1.0, 1.5};
    for (int i = 0; i < 4; i++) {
        uint32_t c = q2_wall_centre_at(&files, "", at[i]);
        CHECK_MSG(i & 1 ? greenish(c) : reddish(c), "%.1f s: 0x%08x", at[i], c);
    }
    free(map);
    ti[2].next = 2;
    map = build_q2_tex(ti, 3, 1, &len);
    files.f[0].data = map;
    uint32_t c = q2_wall_centre_at(&files, "", 0.5);
    CHECK_MSG(reddish(c), "0x%08x", c);
    free(map);
}

/* yquake2 R_DrawAlphaSurfaces: SURF_TRANS33 (0x10) and SURF_TRANS66 (0x20) draw the texture
 * unlit at alpha 0.33 and 0.66 over what is behind: here the black of an empty frame, so
 * the red wall's pixel is 255 x 84 / 255 = 84 and 255 x 168 / 255 = 168 red (the blender's
 * division may truncate one below), green and blue 0. Lit (no flag), the lightmap's 100
 * makes it neither. */
TEST(render_ibsp38_translucent)
{
    static const struct {
        uint32_t flags;
        unsigned red;
    } cases[2] = {{0x10, 84}, {0x20, 168}};
    make_wal(wal_buf[0], "e1u1/floor1_1", 5, 5, 16);
    for (int i = 0; i < 3; i++) {
        size_t len;
        uint8_t *map = build_q2_flags(i < 2 ? cases[i].flags : 0, &len);
        some_files files = {{{"maps/synth.bsp", map, len},
                             {"pics/colormap.pcx", pcx_buf, sizeof pcx_buf},
                             {"textures/e1u1/floor1_1.wal", wal_buf[0], sizeof wal_buf[0]}},
                            3};
        uint32_t c = q2_wall_centre(&files);
        if (i < 2)
            CHECK_MSG((c & 255) + 1 >= cases[i].red && (c & 255) <= cases[i].red &&
                          (c & 0xffff00) == 0,
                      "flags 0x%x: 0x%08x", cases[i].flags, c);
        else
            CHECK_MSG(reddish(c) && (c & 255) != 84 && (c & 255) != 168, "0x%08x", c);
        free(map);
    }
}

/* yquake2 R_DrawGLFlowingPoly: SURF_FLOWING (0x40) moves the texture -64 (t/40 - floor(t/40))
 * widths along s, which is -(1.6 t mod 1) widths; at 0.3125 s that is half a width, so on a
 * WAL whose left half is red and right half green the wall's centre changes colour (at any
 * mip level: each level is split in half too). Without the flag it keeps its colour. */
TEST(render_ibsp38_flowing)
{
    make_wal(wal_buf[0], "e1u1/floor1_1", 5, 6, 8);
    for (int flowing = 0; flowing < 2; flowing++) {
        size_t len;
        uint8_t *map = build_q2_flags(flowing ? 0x40 : 0, &len);
        some_files files = {{{"maps/synth.bsp", map, len},
                             {"pics/colormap.pcx", pcx_buf, sizeof pcx_buf},
                             {"textures/e1u1/floor1_1.wal", wal_buf[0], sizeof wal_buf[0]}},
                            3};
        uint32_t a = q2_wall_centre_at(&files, "", 0), b = q2_wall_centre_at(&files, "", 0.3125);
        CHECK_MSG(reddish(a) || greenish(a), "0x%08x", a);
        if (flowing)
            CHECK_MSG(reddish(a) ? greenish(b) : reddish(b), "0x%08x then 0x%08x", a, b);
        else
            CHECK_MSG(a == b, "0x%08x then 0x%08x", a, b);
        free(map);
    }
}

/* A texinfo both SURF_SKY (4) and SURF_TRANS33 (0x10) is sky (yquake2 chains sky faces
 * before translucent ones): the box's rt side shows, not a hole. And a translucent face
 * whose animation steps to a frame without the flag keeps its own alpha (yquake2 takes it
 * from the face's texinfo): texinfo 1 TRANS33 red, next 2 green and opaque, at 0.5 s shows
 * green at 0.33 over black: 255 x 84 / 255, one below with the blender's truncation. */
TEST(render_ibsp38_sky_and_chain_alpha)
{
    size_t len;
    uint8_t *map = build_q2_flags(4 | 0x10, &len);
    static uint8_t tga[6][22];
    static char names[6][32];
    static const char *const sides[6] = {"rt", "lf", "bk", "ft", "up", "dn"};
    some_files files = {{{"maps/synth.bsp", map, len}}, 7};
    for (int k = 0; k < 6; k++) {
        static const uint8_t head[18] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 32, 8};
        memcpy(tga[k], head, 18);
        tga[k][18] = 0, tga[k][19] = 0, tga[k][20] = (uint8_t)(k == 0 ? 255 : 0);
        tga[k][21] = 255;
        snprintf(names[k], sizeof names[k], "env/unit%s.tga", sides[k]);
        files.f[1 + k] = (one_file){names[k], tga[k], sizeof tga[k]};
    }
    uint32_t c = q2_wall_centre_sky(&files, "unit");
    CHECK_MSG((c & 0xffffff) == 0x0000ff, "0x%08x", c);
    free(map);

    q2_texinfo ti[3] = {{"e1u1/floor1_1", 0, -1}, {"anim/red", 0x10, 2}, {"anim/green", 0, 1}};
    map = build_q2_tex(ti, 3, 1, &len);
    make_wal(wal_buf[0], "anim/red", 5, 5, 16);
    make_wal(wal_buf[1], "anim/green", 6, 6, 16);
    some_files more = {{{"maps/synth.bsp", map, len},
                        {"pics/colormap.pcx", pcx_buf, sizeof pcx_buf},
                        {"textures/anim/red.wal", wal_buf[0], sizeof wal_buf[0]},
                        {"textures/anim/green.wal", wal_buf[1], sizeof wal_buf[1]}},
                       4};
    c = q2_wall_centre_at(&more, "", 0.5);
    unsigned g = c >> 8 & 255;
    CHECK_MSG((c & 255) == 0 && g + 1 >= 84 && g <= 84, "0x%08x", c);
    free(map);
}
