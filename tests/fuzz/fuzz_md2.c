/* fuzz_md2.c: libFuzzer target for the MD2 loader: any bytes as a model; what loads has its
 * triangles walked through every frame's positions and texture coordinates. */
#include <stdint.h>

#include "../../src/model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mdl_md2 *m = NULL;
    qd_error err;
    if (mdl_md2_load(data, size, "fuzz.md2", &m, &err) != QD_OK)
        return 0;
    float sum = 0;
    for (uint32_t f = 0; f < m->num_frames; f++)
        for (uint32_t i = 0; i < m->num_tris; i++)
            for (int k = 0; k < 3; k++)
                sum += m->poses[(size_t)f * m->num_verts + m->tris[i].v[k]][0] +
                       m->st[m->tris[i].st[k]][0];
    (void)sum;
    mdl_md2_free(m);
    return 0;
}
