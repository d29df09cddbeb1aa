/* fuzz_md3.c: libFuzzer target for the MD3 loader: any bytes as a model; what loads has its
 * tags looked up in every frame and its triangles walked. */
#include <stdint.h>

#include "../../src/model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mdl_md3 *m = NULL;
    qd_error err;
    if (mdl_md3_load(data, size, "fuzz.md3", &m, &err) != QD_OK)
        return 0;
    float sum = 0;
    for (uint32_t f = 0; f < m->num_frames; f++) {
        const mdl_md3_tag *t = mdl_md3_tag_at(m, f, "tag_torso");
        sum += t ? t->origin[0] : 0;
    }
    for (uint32_t s = 0; s < m->num_surfaces; s++) {
        const mdl_md3_surface *sf = &m->surfaces[s];
        for (uint32_t i = 0; i < sf->num_tris; i++)
            for (int k = 0; k < 3; k++)
                sum += sf->xyz[(size_t)(m->num_frames - 1) * sf->num_verts + sf->tris[i][k]][2];
    }
    (void)sum;
    mdl_md3_free(m);
    return 0;
}
