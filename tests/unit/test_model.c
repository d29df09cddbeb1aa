/* test_model.c: tests of the model loaders: real maps and models load with the counts of
 * their lumps and the manifest, truncated and hostile files fail cleanly, PVS and entities. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/common/rd.h"
#include "../../src/model/model.h"
#include "../test.h"

uint8_t *test_bsp_build(const float (*quads)[4][3], const uint8_t *color, const uint8_t *light,
                        int n, const char *extra_ents, size_t *len);
uint8_t *test_bsp_build_fmt(const float (*quads)[4][3], const uint8_t *color,
                            const uint8_t *light, int n, const char *extra_ents, int fmt,
                            size_t *len);
uint8_t *test_mdl_build(size_t *len);
uint8_t *test_spr_build(size_t *len);

static void pal_load(uint32_t pal[256])
{
    size_t n;
    uint8_t *p = test_read_file("assets/palette.lmp", &n);
    mdl_palette_from_lmp(p, p ? n : 0, pal);
    free(p);
}

/* ---- real maps ---- */

static const struct {
    const char *file, *message;
    int format;
} maps[] = {
    {"bsp/id-maps-gpl_dm2_bsp29+appendedzip.bsp", "Claustrophobopolis", MDL_BSP_Q1_29},
    {"bsp/id-maps-gpl_dm3_bsp29+appendedzip.bsp", "The Abandoned Base", MDL_BSP_Q1_29},
    {"bsp/id-maps-gpl_dm4_bsp29+appendedzip.bsp", "The Bad Place", MDL_BSP_Q1_29},
    {"bsp/id-maps-gpl_dm6_bsp29+appendedzip.bsp", "The Dark Zone", MDL_BSP_Q1_29},
    {"bsp/id-maps-gpl_e1m1_bsp29+appendedzip.bsp", "the Slipgate Complex", MDL_BSP_Q1_29},
    {"bsp/id-maps-gpl_e1m7_bsp29+appendedzip.bsp", "The House of Chthon", MDL_BSP_Q1_29},
    {"bsp/paradoks81-quakeworld_slipgate-app_hud.bsp", "HUD testing by bps", MDL_BSP_Q1_29},
    {"bsp/quake-from-memory_maps_e1m3_chadquad.bsp", "the Police", MDL_BSP_Q1_29},
    {"bsp/quake-from-memory_maps_e2m6_dooplon_roj7_bsp2.bsp", "Cavernous Cell", MDL_BSP_Q1_BSP2},
    {"bsp/quake-from-memory_maps_end_chuma.bsp", "Shubby's Shack", MDL_BSP_Q1_29},
    /* the manifest's "None": these worldspawns carry no message at all */
    {"bsp/vektar_maps_bg.bsp", "", MDL_BSP_Q1_29},
    {"bsp/vektar_maps_start.bsp", "", MDL_BSP_Q1_29},
};

/* Records in lump i of a Q1 map, straight from its header. */
static uint32_t lump_records(const uint8_t *d, int i, uint32_t size)
{
    rd_t r = rd_make(d, 124);
    rd_seek(&r, 8 + 8 * (size_t)i);
    return rd_u32(&r) / size;
}

/* The end of the last lump: everything after it is not BSP data. */
static size_t lump_end(const uint8_t *d)
{
    rd_t r = rd_make(d, 124);
    rd_skip(&r, 4);
    size_t end = 0;
    for (int i = 0; i < 15; i++) {
        size_t o = rd_u32(&r), l = rd_u32(&r);
        if (o + l > end)
            end = o + l;
    }
    return end;
}

TEST(model_real_maps_load)
{
    uint32_t pal[256];
    pal_load(pal);
    int loaded = 0;
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++) {
        char path[512];
        if (!test_realfile(path, sizeof path, maps[m].file))
            continue;
        size_t len;
        uint8_t *d = test_read_file(path, &len);
        CHECK(d);
        mdl_bsp *b = NULL;
        qd_error err = {0};
        qd_err e = mdl_bsp_load(d, len, maps[m].file, pal, &b, &err);
        CHECK_MSG(e == QD_OK, "%s: %s (%s at %llu)", maps[m].file, qd_strerror(e), err.msg,
                  (unsigned long long)err.offset);
        int wide = maps[m].format != MDL_BSP_Q1_29;
        CHECK_EQ(b->format, maps[m].format);
        CHECK_STR(b->message, maps[m].message);
        CHECK_EQ(b->num_planes, lump_records(d, 1, 20));
        CHECK_EQ(b->num_verts, lump_records(d, 13, 4));
        CHECK_EQ(b->num_faces, lump_records(d, 7, wide ? 28 : 20));
        CHECK_EQ(b->num_nodes, lump_records(d, 5, wide ? 44 : 24));
        CHECK_EQ(b->num_leaves, lump_records(d, 10, wide ? 44 : 28));
        CHECK_EQ(b->num_marks, lump_records(d, 11, wide ? 4 : 2));
        CHECK_EQ(b->num_models, lump_records(d, 14, 64));
        CHECK(b->models[0].num_faces > 0);
        CHECK(b->models[0].visleafs > 0 && b->models[0].visleafs < b->num_leaves);
        /* lit maps have lit faces of sensible brightness */
        if (b->light_len) {
            double sum = 0;
            uint32_t lit = 0;
            for (uint32_t i = 0; i < b->num_faces; i++)
                if (!(b->faces[i].flags & MDL_SURF_FULLBRIGHT) && b->faces[i].light > 0) {
                    sum += b->faces[i].light;
                    lit++;
                }
            CHECK_MSG(lit > b->num_faces / 2, "%s: %u of %u faces lit", maps[m].file, lit,
                      b->num_faces);
            CHECK_MSG(sum / lit > 10 && sum / lit < 250, "%s: mean light %.1f", maps[m].file,
                      sum / lit);
        }
        mdl_bsp_free(b);
        free(d);
        loaded++;
    }
    if (!loaded)
        SKIP("no real maps");
}

TEST(model_e1m1_details)
{
    char path[512];
    if (!test_realfile(path, sizeof path, "bsp/id-maps-gpl_e1m1_bsp29+appendedzip.bsp"))
        SKIP("e1m1 not in realdata");
    uint32_t pal[256];
    pal_load(pal);
    size_t len;
    uint8_t *d = test_read_file(path, &len);
    mdl_bsp *b = NULL;
    qd_error err;
    CHECK_EQ(mdl_bsp_load(d, len, "e1m1", pal, &b, &err), QD_OK);
    /* the player start and the PVS around it */
    char v[64];
    CHECK(mdl_entity_value(b->entities, "info_player_start", 0, "origin", v, sizeof v));
    float o[3];
    CHECK_EQ(sscanf(v, "%f %f %f", &o[0], &o[1], &o[2]), 3);
    uint32_t leaf = mdl_bsp_point_leaf(b, b->models[0].headnode, o);
    CHECK(leaf > 0 && leaf < b->num_leaves);
    CHECK_EQ(b->leaves[leaf].contents, MDL_CONTENTS_EMPTY);
    size_t row = mdl_bsp_pvs_size(b);
    CHECK_EQ(row, (b->models[0].visleafs + 7) / 8);
    uint8_t *pvs = malloc(row);
    mdl_bsp_pvs(b, leaf, pvs);
    uint32_t vis = 0;
    for (uint32_t i = 0; i < b->models[0].visleafs; i++)
        vis += pvs[i >> 3] >> (i & 7) & 1;
    CHECK_MSG(vis > 10 && vis < b->models[0].visleafs / 2, "%u of %u leaves visible", vis,
              b->models[0].visleafs);
    CHECK(pvs[(leaf - 1) >> 3] >> ((leaf - 1) & 7) & 1); /* a leaf sees itself */
    free(pvs);
    /* the floor under the start is lit */
    float light;
    CHECK(mdl_bsp_light_point(b, o, NULL, &light));
    CHECK_MSG(light > 40 && light <= 255, "light %.0f", light);
    /* each sample times its style's value, / 256 (RecursiveLightPoint): every style at
     * twice the normal value doubles it exactly, every style off gives none */
    static int twice[MDL_LIGHT_STYLES], off[MDL_LIGHT_STYLES];
    for (int k = 0; k < MDL_LIGHT_STYLES; k++)
        twice[k] = 512;
    float bright, dark;
    CHECK(mdl_bsp_light_point(b, o, twice, &bright));
    CHECK(mdl_bsp_light_point(b, o, off, &dark));
    CHECK_MSG(bright == 2 * light && dark == 0, "%.0f at twice, %.0f off", bright, dark);
    /* sky and liquid textures are recognised */
    int sky = 0, turb = 0;
    for (uint32_t i = 0; i < b->num_textures; i++) {
        sky += !!(b->textures[i].flags & MDL_SURF_SKY);
        turb += !!(b->textures[i].flags & MDL_SURF_TURB);
        CHECK(!(b->textures[i].flags & MDL_SURF_MISSING));
    }
    CHECK(sky >= 1 && turb >= 1);
    /* submodels: doors and lifts with faces inside the face array */
    CHECK(b->num_models > 1);
    for (uint32_t i = 1; i < b->num_models; i++)
        CHECK(b->models[i].first_face + b->models[i].num_faces <= b->num_faces);
    mdl_bsp_free(b);
    free(d);
}

TEST(model_real_maps_truncated)
{
    int tried = 0;
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++) {
        char path[512];
        if (!test_realfile(path, sizeof path, maps[m].file))
            continue;
        size_t len;
        uint8_t *d = test_read_file(path, &len);
        size_t end = lump_end(d);
        size_t cuts[] = {0, 1, 3, 4, 64, 123, 124, end / 4, end / 2, end - 1};
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            /* a fresh copy of exactly cuts[c] bytes, so ASan sees any overread */
            uint8_t *t = malloc(cuts[c] ? cuts[c] : 1);
            memcpy(t, d, cuts[c]);
            mdl_bsp *b = (mdl_bsp *)1;
            qd_error err;
            qd_err e = mdl_bsp_load(t, cuts[c], "cut", NULL, &b, &err);
            free(t);
            CHECK_MSG(e == QD_ERR_TRUNCATED, "%s cut at %zu: %s", maps[m].file, cuts[c],
                      qd_strerror(e));
            CHECK(b == NULL);
        }
        free(d);
        tried++;
    }
    if (!tried)
        SKIP("no real maps");
}

/* ---- synthetic maps: valid, then hostile ---- */

static const float quads2[2][4][3] = {
    {{0, -64, -64}, {0, -64, 64}, {0, 64, 64}, {0, 64, -64}},
    {{-32, -64, -48}, {-32, 64, -48}, {64, 64, -48}, {64, -64, -48}},
};
static const uint8_t colors2[2] = {251, 79};
static const uint8_t lights2[2] = {200, 64};

TEST(model_synthetic_bsp)
{
    uint32_t pal[256];
    pal_load(pal);
    size_t len;
    uint8_t *d = test_bsp_build(quads2, colors2, lights2, 2,
                                "{\n\"classname\" \"info_player_start\"\n\"origin\" \"1 2 3\"\n}\n",
                                &len);
    mdl_bsp *b = NULL;
    qd_error err;
    CHECK_EQ(mdl_bsp_load(d, len, "synth", pal, &b, &err), QD_OK);
    CHECK_EQ(b->num_faces, 2);
    CHECK_EQ(b->num_verts, 8);
    CHECK_EQ(b->faces[0].num_verts, 4);
    CHECK_EQ(b->faces[0].color, pal[251]);
    CHECK_EQ(b->faces[1].color, pal[79]);
    CHECK(fabsf(b->faces[0].light - 200) < 0.01f);
    CHECK(fabsf(b->faces[1].light - 64) < 0.01f);
    CHECK_STR(b->message, "synthetic");
    char v[32];
    CHECK(mdl_entity_value(b->entities, "info_player_start", 0, "origin", v, sizeof v));
    CHECK_STR(v, "1 2 3");
    CHECK(!mdl_entity_value(b->entities, "info_player_start", 1, "origin", v, sizeof v));
    CHECK(mdl_entity_value(b->entities, NULL, 1, "classname", v, sizeof v));
    CHECK_STR(v, "info_player_start");
    /* light under a point above the floor quad: the floor quad is not on a node plane, so
     * the trace finds nothing, as Quake would */
    float light;
    CHECK(!mdl_bsp_light_point(b, (const float[3]){0, 0, 0}, NULL, &light));
    float p[3] = {10, 10, 10};
    CHECK_EQ(mdl_bsp_point_leaf(b, 0, p), 1);
    p[2] = -9000;
    CHECK_EQ(mdl_bsp_point_leaf(b, 0, p), 0);
    /* every leaf sees everything without vis data */
    uint8_t pvs[4] = {0, 0x5a, 0x5a, 0x5a};
    CHECK_EQ(mdl_bsp_pvs_size(b), 1);
    mdl_bsp_pvs(b, 1, pvs);
    CHECK_EQ(pvs[0], 0xff);
    CHECK_EQ(pvs[1], 0x5a);
    mdl_bsp_free(b);
    /* every shorter copy fails */
    for (size_t cut = 0; cut < len; cut += (cut < 200 ? 1 : 7)) {
        uint8_t *t = malloc(cut ? cut : 1);
        memcpy(t, d, cut);
        qd_err e = mdl_bsp_load(t, cut, "cut", pal, &b, &err);
        free(t);
        CHECK_MSG(e != QD_OK && b == NULL, "cut at %zu of %zu loaded", cut, len);
    }
    free(d);
}

TEST(model_synthetic_bsp2_formats)
{
    /* The same two quads written as BSP2 and as 2PSB load to the same faces as BSP29. */
    static const int want[3] = {MDL_BSP_Q1_29, MDL_BSP_Q1_BSP2, MDL_BSP_Q1_2PSB};
    mdl_bsp *ref = NULL;
    for (int fmt = 0; fmt < 3; fmt++) {
        size_t len;
        uint8_t *d = test_bsp_build_fmt(quads2, colors2, lights2, 2, NULL, fmt, &len);
        mdl_bsp *b = NULL;
        qd_error err;
        CHECK_MSG(mdl_bsp_load(d, len, "synth", NULL, &b, &err) == QD_OK, "fmt %d: %s", fmt,
                  err.msg);
        CHECK_EQ(b->format, want[fmt]);
        CHECK_EQ(b->num_faces, 2);
        CHECK_EQ(b->num_leaves, 2);
        CHECK_EQ(b->leaves[1].num_marks, 2);
        CHECK_EQ(b->nodes[0].children[0], -2);
        CHECK(b->nodes[0].maxs[2] == 8192 && b->leaves[1].mins[0] == -8192);
        float p[3] = {10, 10, 10};
        CHECK_EQ(mdl_bsp_point_leaf(b, 0, p), 1);
        if (!ref) {
            ref = b;
        } else {
            CHECK(memcmp(b->faces, ref->faces, 2 * sizeof *b->faces) == 0);
            CHECK(memcmp(b->verts, ref->verts, 8 * sizeof *b->verts) == 0);
            mdl_bsp_free(b);
        }
        /* a cut copy fails in every format */
        qd_err e = mdl_bsp_load(d, len - 1, "cut", NULL, &b, &err);
        CHECK(e != QD_OK && !b);
        free(d);
    }
    mdl_bsp_free(ref);
}

static uint32_t lump_ofs(const uint8_t *d, int i)
{
    rd_t r = rd_make(d, 124);
    rd_seek(&r, 4 + 8 * (size_t)i);
    return rd_u32(&r);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

TEST(model_hostile_bsp)
{
    size_t len;
    uint8_t *d = test_bsp_build(quads2, colors2, lights2, 2, NULL, &len);
    uint8_t *t = malloc(len);
    /* Each case patches one field of a fresh copy: lump, byte offset in it, width, value,
     * and the error it must give. */
    static const struct {
        int lump; /* -1: the header */
        uint32_t at;
        int width;
        uint32_t value;
        qd_err want;
        const char *what;
    } cases[] = {
        {-1, 4 + 8 * 7 + 4, 4, 0xffffff00u, QD_ERR_TRUNCATED, "faces lump past the end"},
        {-1, 4 + 8 * 7, 4, 0xfffffff0u, QD_ERR_TRUNCATED, "faces ofs+len wraps 32 bits"},
        {-1, 4 + 8 * 7 + 4, 4, 41, QD_ERR_BAD_DATA, "faces lump not whole records"},
        {-1, 0, 4, 28, QD_ERR_BAD_DATA, "bad version"},
        {-1, 0, 4, 0x50534249u, QD_ERR_UNSUPPORTED, "IBSP"},
        {7, 0, 2, 9, QD_ERR_BAD_DATA, "face plane out of range"},
        {7, 4, 4, 0xfffffffeu, QD_ERR_BAD_DATA, "face first edge wraps"},
        {7, 8, 2, 9, QD_ERR_BAD_DATA, "face edges past surfedges"},
        {7, 8, 2, 2000, QD_ERR_LIMIT, "face with 2000 edges"},
        {7, 10, 2, 7, QD_ERR_BAD_DATA, "face texinfo out of range"},
        {13, 0, 4, 99, QD_ERR_BAD_DATA, "surfedge out of range"},
        {13, 0, 4, 0x80000000u, QD_ERR_BAD_DATA, "surfedge INT_MIN"},
        {12, 4, 2, 60000, QD_ERR_BAD_DATA, "edge vertex out of range"},
        {6, 32, 4, 5, QD_ERR_BAD_DATA, "texinfo miptex out of range"},
        {5, 0, 4, 77, QD_ERR_BAD_DATA, "node plane out of range"},
        {5, 4, 2, 0, QD_ERR_BAD_DATA, "node is its own child"},
        {5, 4, 2, 0xfff0, QD_ERR_BAD_DATA, "node child leaf out of range"},
        {5, 20, 2, 3, QD_ERR_BAD_DATA, "node faces past the faces"},
        {10, 28 + 20, 2, 0xffff, QD_ERR_BAD_DATA, "leaf marksurfaces past the end"},
        {11, 0, 2, 2, QD_ERR_BAD_DATA, "marksurface out of range"},
        {14, 36, 4, 1, QD_ERR_BAD_DATA, "model headnode out of range"},
        {14, 36, 4, 0x80000000u, QD_ERR_BAD_DATA, "model headnode negative"},
        {14, 56, 4, 1, QD_ERR_BAD_DATA, "model faces past the faces"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(t, d, len);
        uint32_t at = cases[c].lump < 0 ? cases[c].at : lump_ofs(d, cases[c].lump) + cases[c].at;
        if (cases[c].width == 4)
            put32(t + at, cases[c].value);
        else
            put16(t + at, cases[c].value);
        mdl_bsp *b = (mdl_bsp *)1;
        qd_error err = {0};
        qd_err e = mdl_bsp_load(t, len, "hostile", NULL, &b, &err);
        CHECK_MSG(e == cases[c].want, "%s: got %s (%s)", cases[c].what, qd_strerror(e), err.msg);
        CHECK(b == NULL);
        CHECK(err.msg[0]);
    }
    /* damage to colour data only is tolerated: a texture offset past its lump and a
     * lightofs past the lighting give grey / unlit faces */
    memcpy(t, d, len);
    put32(t + lump_ofs(d, 2) + 4, 0x7fffff00u);
    put32(t + lump_ofs(d, 7) + 16, 0x7fffff00u);
    mdl_bsp *b = NULL;
    qd_error err;
    CHECK_EQ(mdl_bsp_load(t, len, "colour damage", NULL, &b, &err), QD_OK);
    CHECK(b->faces[0].flags & MDL_SURF_MISSING);
    CHECK_EQ(b->faces[0].light, 0);
    mdl_bsp_free(b);
    free(t);
    free(d);
}

TEST(model_pvs_bounded)
{
    /* A hand-made map state: 20 visleafs (3-byte rows) and vis rows that try to overrun. */
    uint8_t vis[] = {0x00, 0xff,             /* leaf 1: a run of 255 zero bytes */
                     0x81, 0x42, 0x00, 0x07, /* leaf 2: two literal bytes, a run of 7 */
                     0x09, 0x00};            /* leaf 3: a literal, then a run cut off */
    mdl_leaf leaves[4] = {{.visofs = -1}, {.visofs = 0}, {.visofs = 2}, {.visofs = 6}};
    mdl_submodel model = {.visleafs = 20};
    mdl_bsp b = {.num_leaves = 4, .leaves = leaves, .num_models = 1, .models = &model,
                 .visdata = vis, .vis_len = sizeof vis};
    CHECK_EQ(mdl_bsp_pvs_size(&b), 3);
    uint8_t out[8];
    memset(out, 0xaa, sizeof out);
    mdl_bsp_pvs(&b, 1, out);
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 0xaa);
    memset(out, 0xaa, sizeof out);
    mdl_bsp_pvs(&b, 2, out);
    CHECK(out[0] == 0x81 && out[1] == 0x42 && out[2] == 0 && out[3] == 0xaa);
    memset(out, 0xaa, sizeof out);
    mdl_bsp_pvs(&b, 3, out);
    CHECK(out[0] == 0x09 && out[1] == 0xff && out[2] == 0xff && out[3] == 0xaa);
    memset(out, 0xaa, sizeof out);
    mdl_bsp_pvs(&b, 0, out);
    CHECK(out[0] == 0xff && out[2] == 0xff && out[3] == 0xaa);
    mdl_bsp_pvs(&b, 99, out); /* out of range: sees everything, no crash */
    CHECK(out[0] == 0xff);
}

TEST(model_entities_parse)
{
    const char *text = "// comment\n{ \"classname\" \"worldspawn\" \"message\" \"a // b\" }\n"
                       "{ classname light origin \"1 2 3\" }\n"
                       "{ \"classname\" \"light\" \"origin\" \"4 5 6\" \n"; /* never closed */
    char v[16];
    CHECK(mdl_entity_value(text, "worldspawn", 0, "message", v, sizeof v));
    CHECK_STR(v, "a // b");
    CHECK(mdl_entity_value(text, "light", 0, "origin", v, sizeof v));
    CHECK_STR(v, "1 2 3");
    CHECK(mdl_entity_value(text, "light", 1, "origin", v, sizeof v));
    CHECK_STR(v, "4 5 6");
    CHECK(!mdl_entity_value(text, "light", 2, "origin", v, sizeof v));
    CHECK(!mdl_entity_value(text, "worldspawn", 0, "wad", v, sizeof v));
    char tiny[4];
    CHECK(mdl_entity_value(text, "light", 1, "origin", tiny, sizeof tiny));
    CHECK_STR(tiny, "4 5");
    CHECK(!mdl_entity_value("", NULL, 0, "x", v, sizeof v));
    CHECK(!mdl_entity_value("\"", NULL, 0, "x", v, sizeof v));
    CHECK(!mdl_entity_value("{ \"a", NULL, 0, "a", v, sizeof v));
}

/* ---- alias models and sprites ---- */

static const struct {
    const char *file;
    uint32_t frames;
} models[] = {
    {"mdl/qwtf-client-media_progs_flare.mdl", 1},
    {"mdl/qwtf-client-media_progs_h_player.mdl", 1},
    {"mdl/qwtf-client-media_progs_player.mdl", 143},
    {"mdl/vektar_progs_quaddama.mdl", 1},
    {"mdl/vektar_progs_statue.mdl", 1},
};

TEST(model_real_mdl_load)
{
    uint32_t pal[256];
    pal_load(pal);
    int loaded = 0;
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        char path[512];
        if (!test_realfile(path, sizeof path, models[m].file))
            continue;
        size_t len;
        uint8_t *d = test_read_file(path, &len);
        mdl_alias *a = NULL;
        qd_error err;
        qd_err e = mdl_alias_load(d, len, models[m].file, pal, &a, &err);
        CHECK_MSG(e == QD_OK, "%s: %s", models[m].file, err.msg);
        CHECK_EQ(a->num_frames, models[m].frames);
        CHECK(a->num_poses >= a->num_frames);
        CHECK(a->num_tris > 0 && a->num_verts > 0);
        for (uint32_t i = 0; i < a->num_tris; i++)
            for (int j = 0; j < 3; j++)
                CHECK(a->tris[i].v[j] < a->num_verts);
        /* every position is inside the frame bounds, within one scale step */
        const mdl_alias_frame *f = &a->frames[0];
        for (uint32_t v = 0; v < a->num_verts; v++)
            for (int j = 0; j < 3; j++) {
                float x = a->poses[f->first_pose * a->num_verts + v][j];
                CHECK(x >= f->mins[j] - 0.01f && x <= f->maxs[j] + 0.01f);
            }
        CHECK(a->color != 0);
        /* truncated copies fail (some files carry junk after the last frame, so the cuts
         * stay below three quarters) */
        size_t cuts[] = {0, 4, 83, 84, 85, len / 3, len / 2, len / 4 * 3};
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            uint8_t *t = malloc(cuts[c] ? cuts[c] : 1);
            memcpy(t, d, cuts[c]);
            mdl_alias *x = NULL;
            e = mdl_alias_load(t, cuts[c], "cut", pal, &x, &err);
            free(t);
            CHECK_MSG(e == QD_ERR_TRUNCATED && !x, "%s cut at %zu: %s", models[m].file, cuts[c],
                      qd_strerror(e));
        }
        mdl_alias_free(a);
        free(d);
        loaded++;
    }
    if (!loaded)
        SKIP("no real models");
}

TEST(model_synthetic_mdl)
{
    uint32_t pal[256];
    pal_load(pal);
    size_t len;
    uint8_t *d = test_mdl_build(&len);
    mdl_alias *a = NULL;
    qd_error err;
    CHECK_EQ(mdl_alias_load(d, len, "synth.mdl", pal, &a, &err), QD_OK);
    CHECK_EQ(a->num_frames, 2);
    CHECK_EQ(a->num_poses, 3);
    CHECK_EQ(a->num_skins, 2);
    CHECK_EQ(a->flags, 8);
    CHECK_EQ(a->frames[0].first_pose, 0);
    CHECK_EQ(a->frames[1].first_pose, 1);
    CHECK_EQ(a->frames[1].num_poses, 2);
    CHECK_STR(a->frames[1].name, "run1");
    CHECK_EQ(a->skin_colors[0], pal[80]);
    CHECK_EQ(a->skin_colors[1], pal[15]);
    CHECK_EQ(a->skin0[5], 80);
    CHECK_EQ(a->st[2].onseam, 1);
    CHECK_EQ(a->st[1].s, 4);
    /* vertex 2 of pose 2 (second pose of the group): x = (20 + 2) * 2 - 10 */
    CHECK(fabsf(a->poses[2 * 3 + 2][0] - 34) < 1e-4f);
    CHECK(fabsf(a->poses[2 * 3 + 2][2] - 205) < 1e-4f);
    CHECK_EQ(a->normals[2 * 3 + 2], 7);
    CHECK(fabsf(a->frames[0].maxs[0] - 10) < 1e-4f);
    mdl_alias_free(a);
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *t = malloc(cut ? cut : 1);
        memcpy(t, d, cut);
        qd_err e = mdl_alias_load(t, cut, "cut", pal, &a, &err);
        free(t);
        CHECK_MSG(e != QD_OK && !a, "cut at %zu of %zu loaded", cut, len);
    }
    /* hostile headers and indices */
    static const struct {
        uint32_t at, value;
        qd_err want;
    } cases[] = {
        {4, 7, QD_ERR_UNSUPPORTED},      /* version */
        {48, 100000, QD_ERR_LIMIT},      /* skins */
        {60, 0x7fffffff, QD_ERR_LIMIT},  /* verts */
        {64, 0, QD_ERR_BAD_DATA},        /* tris */
        {68, 0xffffffff, QD_ERR_LIMIT},  /* frames */
        {52, 0, QD_ERR_BAD_DATA},        /* skin width */
        {84 + 4 + 32 + 4, 0, QD_ERR_BAD_DATA},      /* empty skin group */
        {84 + 4 + 32 + 4, 5000, QD_ERR_LIMIT},      /* huge skin group */
        {84 + 36 + 16 + 64 + 36 + 4, 3, QD_ERR_BAD_DATA}, /* triangle vertex index */
    };
    uint8_t *t = malloc(len);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(t, d, len);
        put32(t + cases[c].at, cases[c].value);
        qd_err e = mdl_alias_load(t, len, "hostile", pal, &a, &err);
        CHECK_MSG(e == cases[c].want && !a, "case %zu: %s (%s)", c, qd_strerror(e), err.msg);
    }
    free(t);
    free(d);
}

TEST(model_synthetic_spr)
{
    uint32_t pal[256];
    pal_load(pal);
    size_t len;
    uint8_t *d = test_spr_build(&len);
    mdl_sprite *s = NULL;
    qd_error err;
    CHECK_EQ(mdl_sprite_load(d, len, "synth.spr", pal, &s, &err), QD_OK);
    CHECK_EQ(s->num_frames, 2);
    CHECK_EQ(s->type, MDL_SPR_VP_PARALLEL);
    CHECK_EQ(s->frames[0].width, 4);
    CHECK(s->frames[0].left == -2 && s->frames[0].right == 2);
    CHECK(s->frames[0].up == 1 && s->frames[0].down == -1);
    CHECK(fabsf(s->frames[0].coverage - 0.5f) < 1e-6f);
    CHECK_EQ(s->frames[0].color, pal[251]);
    CHECK_EQ(s->frames[1].color, pal[254]);
    mdl_sprite_free(s);
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *t = malloc(cut ? cut : 1);
        memcpy(t, d, cut);
        qd_err e = mdl_sprite_load(t, cut, "cut", pal, &s, &err);
        free(t);
        CHECK_MSG(e != QD_OK && !s, "cut at %zu of %zu loaded", cut, len);
    }
    uint8_t *t = malloc(len);
    memcpy(t, d, len);
    put32(t + 4, 2); /* Half-Life sprite version */
    CHECK_EQ(mdl_sprite_load(t, len, "hl", pal, &s, &err), QD_ERR_UNSUPPORTED);
    memcpy(t, d, len);
    put32(t + 36 + 12, 0x10000); /* frame width over the cap */
    CHECK_EQ(mdl_sprite_load(t, len, "wide", pal, &s, &err), QD_ERR_LIMIT);
    memcpy(t, d, len);
    put32(t + 24, 0);
    CHECK_EQ(mdl_sprite_load(t, len, "none", pal, &s, &err), QD_ERR_BAD_DATA);
    free(t);
    free(d);
}

TEST(model_palette)
{
    uint32_t pal[256];
    uint8_t lmp[768];
    for (int i = 0; i < 768; i++)
        lmp[i] = (uint8_t)(i * 7);
    CHECK(mdl_palette_from_lmp(lmp, sizeof lmp, pal));
    CHECK_EQ(pal[1], MDL_RGB(21, 28, 35));
    CHECK(!mdl_palette_from_lmp(lmp, 767, pal));
    CHECK_EQ(pal[200], MDL_RGB(200, 200, 200));
    /* the shipped fallback is Quake's palette: index 254 white, 255 the pink key colour */
    size_t n;
    uint8_t *p = test_read_file("assets/palette.lmp", &n);
    if (!p)
        SKIP("assets/palette.lmp not found (run from the repo root)");
    CHECK_EQ(n, 768);
    CHECK(mdl_palette_from_lmp(p, n, pal));
    CHECK_EQ(pal[254], MDL_RGB(255, 255, 255));
    CHECK_EQ(pal[255], MDL_RGB(159, 91, 83));
    free(p);
}

/* Frame groups run by their intervals and every skin's picture is kept: in the built model
 * frame 1 is a group of two poses ending at 0.1 s and 0.2 s, skin 1 a group whose first
 * picture is all index 15 (test_model_build.c). */
TEST(model_mdl_frame_groups_and_skins)
{
    size_t len;
    uint8_t *d = test_mdl_build(&len);
    mdl_alias *a = NULL;
    qd_error err;
    CHECK_EQ(mdl_alias_load(d, len, "synth.mdl", NULL, &a, &err), QD_OK);
    CHECK_EQ(mdl_alias_pose(a, 0, 0.15), 0);
    CHECK_EQ(mdl_alias_pose(a, 1, 0.05), 1);
    CHECK_EQ(mdl_alias_pose(a, 1, 0.15), 2);
    CHECK_EQ(mdl_alias_pose(a, 1, 0.25), 1); /* the cycle again: 0.25 - 0.2 = 0.05 */
    CHECK_EQ(mdl_alias_pose(a, 1, 1.19), 2);
    CHECK_EQ(mdl_alias_pose(a, 7, 0.15), 0); /* no frame 7: frame 0 */
    size_t pic = (size_t)a->skin_width * a->skin_height;
    CHECK_EQ(pic, 32);
    CHECK_EQ(a->skin0[5], 80);
    CHECK_EQ(a->skin0[pic + 5], 15);
    mdl_alias_free(a);
    free(d);
}

/* qdemo's own item boxes (assets/items/make-item-boxes.py): each loads as a BSP29 map of six
 * faces on one texture named for its kind, lit, its model the box of the generator's table
 * (32 x 32, 16 high for the small boxes, 24 for the large, 32 for the mega health, 64 for the
 * exploding box), a point inside it in the empty leaf 1 (its one node's both sides). */
TEST(model_bundled_item_boxes)
{
    static const struct {
        const char *file, *texture;
        float height;
    } boxes[] = {{"b_bh10", "health", 16},   {"b_bh25", "health", 16},
                 {"b_bh100", "health", 32},  {"b_shell0", "shells", 16},
                 {"b_shell1", "shells", 24}, {"b_nail0", "nails", 16},
                 {"b_nail1", "nails", 24},   {"b_rock0", "rockets", 16},
                 {"b_rock1", "rockets", 24}, {"b_batt0", "cells", 16},
                 {"b_batt1", "cells", 24},   {"b_explob", "explob", 64}};
    uint32_t pal[256];
    pal_load(pal);
    for (size_t i = 0; i < sizeof boxes / sizeof boxes[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "assets/maps/%s.bsp", boxes[i].file);
        size_t len;
        uint8_t *d = test_read_file(path, &len);
        if (!d)
            SKIP("run from the project root");
        mdl_bsp *b = NULL;
        qd_error err = {0};
        CHECK_MSG(mdl_bsp_load(d, len, path, pal, &b, &err) == QD_OK, "%s: %s", path, err.msg);
        if (b) {
            CHECK_EQ(b->num_faces, 6);
            CHECK_EQ(b->num_textures, 1);
            CHECK_STR(b->textures[0].name, boxes[i].texture);
            CHECK(b->light_len > 0);
            CHECK(b->models[0].num_faces == 6 && b->models[0].maxs[0] == 32 &&
                  b->models[0].maxs[1] == 32 && b->models[0].maxs[2] == boxes[i].height);
            float inside[3] = {16, 16, boxes[i].height / 2};
            CHECK_EQ(mdl_bsp_point_leaf(b, b->models[0].headnode, inside), 1);
        }
        mdl_bsp_free(b);
        free(d);
    }
}
