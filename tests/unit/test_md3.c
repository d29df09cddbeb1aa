/* test_md3.c: the MD3 loader on OpenArena's sarge (real data): counts from MANIFEST.md and the
 * header, tag names and a vertex read back from the file's own bytes by the test (qfiles.h
 * layout), every cut of a small model refused cleanly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"
#include "../test.h"

static uint32_t u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static mdl_md3 *load(const char *rel, uint8_t **bytes, size_t *len)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, rel))
        return NULL;
    *bytes = test_read_file(path, len);
    mdl_md3 *m = NULL;
    qd_error err;
    if (*bytes && mdl_md3_load(*bytes, *len, rel, &m, &err) != QD_OK)
        return NULL;
    return m;
}

TEST(md3_sarge_counts_tags_and_a_vertex)
{
    uint8_t *lb = NULL, *ub = NULL;
    size_t ll, ul;
    mdl_md3 *lower = load("md3/openarena-data_pak0_players_sarge_lower_2.md3", &lb, &ll);
    mdl_md3 *upper = load("md3/openarena-data_pak0_players_sarge_upper_2.md3", &ub, &ul);
    if (!lb || !ub)
        SKIP("sarge's md3 files not in realdata");
    CHECK(lower && upper);
    /* MANIFEST.md: lower 213 frames, 1 tag, 1 surface; upper 155 frames, 2 tags */
    CHECK_EQ(lower->num_frames, 213);
    CHECK_EQ(lower->num_tags, 1);
    CHECK_EQ(lower->num_surfaces, 1);
    CHECK_EQ(upper->num_frames, 155);
    CHECK_EQ(upper->num_tags, 2);
    CHECK(mdl_md3_tag_at(lower, 0, "tag_torso") != NULL);
    CHECK(mdl_md3_tag_at(upper, 10, "tag_head") != NULL);
    CHECK(mdl_md3_tag_at(upper, 10, "tag_nothing") == NULL);
    /* the first tag of frame 0, read by hand: header ofsTags at byte 96 (ident, version,
     * name[64], flags, numFrames, numTags, numSurfaces, numSkins, ofsFrames before it);
     * name[64], then origin[3] floats */
    const uint8_t *tag = lb + u32(lb + 96);
    float ox;
    memcpy(&ox, tag + 64, 4);
    CHECK(strncmp((const char *)tag, lower->tags[0].name, 64) == 0);
    CHECK(lower->tags[0].origin[0] == ox);
    /* the first surface's vertex 0 of frame 0: ofsSurfaces at byte 100; in the surface
     * (ident, name[64], flags, numFrames, numShaders first) numVerts at 80 and ofsXyzNormals
     * at 100; a short x in 1/64 units */
    const uint8_t *surf = lb + u32(lb + 100);
    CHECK(memcmp(surf, "IDP3", 4) == 0);
    CHECK_EQ(lower->surfaces[0].num_verts, u32(surf + 80));
    const uint8_t *xyz = surf + u32(surf + 100);
    int16_t sx = (int16_t)(xyz[0] | xyz[1] << 8);
    CHECK(lower->surfaces[0].xyz[0][0] == sx / 64.0f);
    for (uint32_t i = 0; i < lower->surfaces[0].num_tris; i++)
        for (int k = 0; k < 3; k++)
            CHECK(lower->surfaces[0].tris[i][k] < lower->surfaces[0].num_verts);
    mdl_md3_free(lower);
    mdl_md3_free(upper);
    free(lb);
    free(ub);
}

TEST(md3_cuts_and_damage_refused)
{
    uint8_t *b = NULL;
    size_t len;
    mdl_md3 *m = load("md3/openarena-data_pak0_weapons2_gauntlet_gauntlet.md3", &b, &len);
    if (!b)
        SKIP("gauntlet.md3 not in realdata");
    CHECK(m);
    mdl_md3_free(m);
    qd_error err;
    for (size_t cut = 0; cut < len; cut++) {
        mdl_md3 *c = NULL;
        CHECK_MSG(mdl_md3_load(b, cut, "cut", &c, &err) != QD_OK && !c, "cut at %zu loaded", cut);
    }
    /* a triangle index past the vertices: the first surface's first triangle (ofsTriangles
     * at 88 of the surface, numVerts at 80) */
    uint8_t *bad = malloc(len);
    memcpy(bad, b, len);
    uint8_t *surf = bad + u32(bad + 100);
    uint8_t *tri = surf + u32(surf + 88);
    uint32_t verts = u32(surf + 80);
    memcpy(tri, &verts, 4);
    mdl_md3 *c = NULL;
    CHECK(mdl_md3_load(bad, len, "bad", &c, &err) == QD_ERR_BAD_DATA && !c);
    CHECK(strstr(err.msg, "triangle index"));
    /* the first surface's positions (ofsXyzNormals at 100 of the surface) read from its own
     * header: inside the file, but outside the surface's arrays (surfaces could so all name
     * one block and outgrow the file) */
    memcpy(bad, b, len);
    surf = bad + u32(bad + 100);
    memset(surf + 100, 0, 4);
    CHECK(mdl_md3_load(bad, len, "bad", &c, &err) == QD_ERR_BAD_DATA && !c);
    CHECK(strstr(err.msg, "outside the surface"));
    free(bad);
    free(b);
}
