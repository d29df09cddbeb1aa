/* fuzz_md2.c: libFuzzer target for the MD2 loader: any bytes as a model; what loads has its
 * triangles walked through every frame's positions and texture coordinates, then is drawn as
 * Quake II draws it: a player wearing a skin number past its skins, on a frame past its
 * frames lerping from frame 0, with the same model as its weapon (vwep), and a plain entity,
 * from outside and from a camera inside it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"
#include "fuzz_render.h"

static void render_it(const uint8_t *data, size_t size)
{
    cl_state *cl = calloc(1, sizeof *cl);
    if (!cl)
        return;
    cl->level.game = CL_GAME_Q2;
    strcpy(cl->level.models[1], "models/fuzz/tris.md2");
    cl->level.num_models = 2;
    cl->num_entities = 3;
    for (int i = 1; i < 3; i++) {
        cl_entity *e = &cl->entities[i];
        e->active = 1;
        e->cur.model = 1;
        e->cur.origin[0] = 40;
        e->cur.angles[1] = 30;
        e->cur.frame = i == 1 ? 60000 : 1;
        e->cur.skin = i == 1 ? 300 : 0;
        e->prev = e->cur;
        e->prev.frame = 0;
    }
    cl->entities[1].cur.model2 = cl->entities[1].prev.model2 = 1;
    cl->entities[1].cur.flags = cl->entities[1].prev.flags = CL_EF_PLAYER;
    cl->entities[1].cur.player = cl->entities[1].prev.player = 1;
    memread in = {.data = data, .size = size, .names = {"models/fuzz/tris.md2"}};
    static const r_camera cams[2] = {
        {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90},
        {.origin = {40, 0, 4}, .angles = {20, 170, 0}, .fov = 90}};
    fuzz_render(cl, &in, cams, 2, 0.05);
    free(cl);
}

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
    render_it(data, size);
    return 0;
}
