/* test_md2.c: the MD2 loader on real Quake II-format models: counts from MANIFEST.md and the
 * header, a vertex decoded by the test from the file's own bytes (files.h layout), every cut
 * of the small crate refused cleanly, a bad triangle index refused with its offset. */
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"
#include "../test.h"

static uint32_t u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint8_t *real(const char *rel, size_t *len)
{
    char path[1024];
    return test_realfile(path, sizeof path, rel) ? test_read_file(path, len) : NULL;
}

TEST(md2_blaster_counts_and_a_vertex)
{
    size_t len;
    uint8_t *b = real("md2/mission64-data_weapons_v_blast_tris.md2", &len);
    if (!b)
        SKIP("v_blast md2 not in realdata");
    mdl_md2 *m = NULL;
    qd_error err;
    CHECK_EQ(mdl_md2_load(b, len, "v_blast", &m, &err), QD_OK);
    CHECK_EQ(m->num_frames, 56); /* MANIFEST.md: 56 frames */
    CHECK_EQ(m->num_verts, u32(b + 24));
    CHECK_EQ(m->num_tris, u32(b + 32));
    /* frame 1, vertex 2, x: ofs_frames at byte 56, framesize at 16; a frame is scale[3],
     * translate[3], name[16], then 4 bytes a vertex */
    const uint8_t *fr = b + u32(b + 56) + u32(b + 16);
    float sx, tx;
    memcpy(&sx, fr, 4);
    memcpy(&tx, fr + 12, 4);
    float want = fr[40 + 2 * 4] * sx + tx;
    CHECK(m->poses[(size_t)1 * m->num_verts + 2][0] == want);
    mdl_md2_free(m);
    free(b);
}

TEST(md2_cuts_and_damage_refused)
{
    size_t len;
    uint8_t *b = real("md2/mission64-data_objects_crate_tris.md2", &len);
    if (!b)
        SKIP("crate md2 not in realdata");
    mdl_md2 *m = NULL;
    qd_error err;
    CHECK_EQ(mdl_md2_load(b, len, "crate", &m, &err), QD_OK);
    mdl_md2_free(m);
    for (size_t cut = 0; cut < len; cut++) {
        m = NULL;
        CHECK_MSG(mdl_md2_load(b, cut, "cut", &m, &err) != QD_OK && !m, "cut at %zu loaded",
                  cut);
    }
    /* the first triangle's first position index set to num_xyz (ofs_tris at byte 52) */
    uint8_t *bad = malloc(len);
    memcpy(bad, b, len);
    uint32_t nv = u32(bad + 24), ot = u32(bad + 52);
    bad[ot] = (uint8_t)nv;
    bad[ot + 1] = (uint8_t)(nv >> 8);
    m = NULL;
    CHECK(mdl_md2_load(bad, len, "bad", &m, &err) == QD_ERR_BAD_DATA && !m);
    CHECK_EQ(err.offset, ot);
    free(bad);
    free(b);
}
