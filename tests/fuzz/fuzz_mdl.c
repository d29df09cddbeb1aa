/* fuzz_mdl.c: libFuzzer target for the alias model (MDL) and sprite (SPR) loaders; every
 * input goes through both, then a tiny render of it as an entity of each kind, from outside
 * and from a camera inside it (so the near plane cuts its triangles). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"
#include "../../src/render/render.h"

typedef struct input {
    const uint8_t *data;
    size_t size;
} input;

static qd_err read_input(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    const input *in = ctx;
    if (strcmp(name, "progs/fuzz.mdl") != 0 && strcmp(name, "progs/fuzz.spr") != 0)
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s", name);
    *data = malloc(in->size ? in->size : 1);
    if (!*data)
        return QD_ERR_NOMEM;
    if (in->size)
        memcpy(*data, in->data, in->size);
    *len = in->size;
    return QD_OK;
}

static void render_it(const uint8_t *data, size_t size)
{
    cl_state *cl = calloc(1, sizeof *cl);
    rast_fb *fb = rast_fb_new(32, 24);
    if (!cl || !fb)
        goto out;
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
    input in = {data, size};
    qd_error err;
    r_assets *a = r_assets_load(&cl->level, read_input, &in, NULL, &err);
    static const r_camera cams[2] = {{{0, 0, 0}, {0, 0, 0}, 90}, {{40, 0, 4}, {20, 170, 0}, 90}};
    for (int c = 0; c < 2; c++)
        for (int mode = 0; mode < 2; mode++) {
            r_options o = {mode, c == 1, 0, 0};
            r_render(a, cl, 0.05, &cams[c], &o, fb);
        }
    r_assets_free(a);
out:
    rast_fb_free(fb);
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
