/* fuzz_md3.c: libFuzzer target for the MD3 loader: any bytes as a model; what loads has its
 * tags looked up in every frame and its triangles walked, then is drawn as a player's legs,
 * torso, head and weapon (animated by an animation.cfg, with a level of detail of the same
 * bytes) and as a spinning item, from outside and from inside. */
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
    /* the player's animation.cfg (OpenArena's sarge's, GPL-2.0, Debian's openarena-data,
     * its comments cut: the legs' and torso's frames run past a small model's, so the
     * animated frames and their clamping are reached) and its first level of detail, the
     * same bytes */
    static const char cfg[] =
        "sex m\n0 30 0 25\n29 1 0 25\n30 30 0 25\n59 1 0 25\n60 30 0 25\n"
        "89 1 0 25\n90 40 0 13\n130 6 0 15\n136 6 0 15\n142 5 0 20\n"
        "147 4 0 20\n151 1 0 15\n152 1 0 15\n153 8 8 20\n161 12 12 20\n"
        "173 9 9 15\n182 10 10 18\n185 10 10 15\n202 8 0 15\n211 8 0 20\n"
        "219 9 0 15\n228 6 0 20\n234 10 10 10\n244 10 10 10\n254 7 7 18\n";
    memread in = {.data = data,
                  .size = size,
                  .names = {"models/players/f/lower.md3", "models/players/f/upper.md3",
                            "models/players/f/head.md3", "models/weapons2/f/f.md3",
                            "models/players/f/lower_1.md3", "models/players/f/upper_1.md3"},
                  .text_names = {"models/players/f/animation.cfg"},
                  .texts = {cfg}};
    for (int i = 0; i < 4; i++)
        strcpy(cl->level.models[1 + i], in.names[i]);
    cl->level.num_models = 5;
    cl->num_entities = 3;
    for (int i = 1; i < 3; i++) {
        cl_entity *e = &cl->entities[i];
        e->active = 1;
        e->cur.origin[0] = 40;
        e->cur.angles[0] = 30;
        e->cur.angles[1] = 30;
        e->cur.frame = 1;
        e->cur.frame2 = 0x80 | 11;
        e->prev = e->cur;
        e->prev.frame = 0;
    }
    cl->entities[1].cur.model = cl->entities[1].prev.model = 1; /* a player with a weapon */
    cl->entities[1].cur.model2 = cl->entities[1].prev.model2 = 4;
    cl->entities[1].cur.flags = cl->entities[1].prev.flags = CL_EF_PLAYER;
    cl->entities[1].cur.player = cl->entities[1].prev.player = 1;
    cl->entities[2].cur.model = cl->entities[2].prev.model = 4; /* an item */
    cl->entities[2].cur.fx = cl->entities[2].prev.fx = CL_FX_ROTATE;
    static const r_camera cams[2] = {
        {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90},
        {.origin = {40, 0, 4}, .angles = {20, 170, 0}, .fov = 90}};
    fuzz_render(cl, &in, cams, 2, 0.05);
    free(cl);
}

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
    render_it(data, size);
    return 0;
}
