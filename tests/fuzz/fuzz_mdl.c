/* fuzz_mdl.c: libFuzzer target for the alias model (MDL) and sprite (SPR) loaders; every
 * input goes through both, then a tiny render of it as an entity of each kind, from outside
 * and from a camera inside it (so the near plane cuts its triangles). */
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
    strcpy(cl->level.models[1], "progs/fuzz.mdl");
    strcpy(cl->level.models[2], "progs/fuzz.spr");
    cl->level.num_models = 3;
    cl->num_entities = 3;
    for (int i = 1; i < 3; i++) {
        cl_entity *e = &cl->entities[i];
        e->active = 1;
        e->cur.model = (uint16_t)i;
        e->cur.origin[0] = 40;
        e->cur.angles[1] = 30;
        e->cur.frame = 1;
        e->prev = e->cur;
        e->prev.frame = 0;
    }
    memread in = {.data = data, .size = size, .names = {"progs/fuzz.mdl", "progs/fuzz.spr"}};
    static const r_camera cams[2] = {
        {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90},
        {.origin = {40, 0, 4}, .angles = {20, 170, 0}, .fov = 90}};
    fuzz_render(cl, &in, cams, 2, 0.05);
    free(cl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qd_error err;
    mdl_alias *m = NULL;
    int any = 0;
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
        any = 1;
    }
    mdl_sprite *s = NULL;
    if (mdl_sprite_load(data, size, "fuzz.spr", NULL, &s, &err) == QD_OK) {
        mdl_sprite_free(s);
        any = 1;
    }
    if (any)
        render_it(data, size);
    return 0;
}
