/* fuzz_mdl.c: libFuzzer target for the alias model (MDL) and sprite (SPR) loaders; every
 * input goes through both. */
#include <stdint.h>

#include "../../src/model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qd_error err;
    mdl_alias *m = NULL;
    if (mdl_alias_load(data, size, "fuzz.mdl", NULL, &m, &err) == QD_OK) {
        /* touch what the renderer reads: every triangle's pose positions */
        float sum = 0;
        for (uint32_t f = 0; f < m->num_frames; f++) {
            const float (*pose)[3] = m->poses + (size_t)m->frames[f].first_pose * m->num_verts;
            for (uint32_t t = 0; t < m->num_tris; t++)
                sum += pose[m->tris[t].v[0]][0] + pose[m->tris[t].v[2]][2];
        }
        (void)sum;
        mdl_alias_free(m);
    }
    mdl_sprite *s = NULL;
    if (mdl_sprite_load(data, size, "fuzz.spr", NULL, &s, &err) == QD_OK)
        mdl_sprite_free(s);
    return 0;
}
