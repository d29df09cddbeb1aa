/* fuzz_mdl.c: libFuzzer target for the alias model (MDL) and sprite (SPR) loaders; every
 * input goes through both, then a tiny render of it as an entity of each kind, from outside
 * and from a camera inside it (so the near plane cuts its triangles). An input starting
 * "IDS2" is a Quake II sprite (SP2) instead: every picture its frames name reads the bytes
 * after its frame records, within a small room, then it is drawn the same way. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"
#include "fuzz_render.h"

/* The room an SP2's pictures are read from: small, so that running out of it is fuzzed */
#define FUZZ_SP2_ROOM ((uint64_t)4 << 20)

/* The bytes an SP2's pictures read: those after its header (12 bytes) and frame records (80
 * bytes each), none when the header's count does not fit. */
static memread sp2_pictures(const uint8_t *data, size_t size)
{
    memread in = {.rest = data, .rest_size = 0};
    if (size >= 12) {
        uint64_t n = (uint64_t)data[8] | (uint64_t)data[9] << 8 | (uint64_t)data[10] << 16 |
                     (uint64_t)data[11] << 24;
        if (12 + 80 * n <= size) {
            in.rest = data + 12 + 80 * n;
            in.rest_size = size - (size_t)(12 + 80 * n);
        }
    }
    return in;
}

/* names: the level's models 1 and 2, shown by entities 1 and 2; rest: what any other name
 * reads (an SP2's pictures), NULL for none. */
static void render_it(const uint8_t *data, size_t size, const char *const names[2],
                      const memread *rest)
{
    cl_state *cl = calloc(1, sizeof *cl);
    if (!cl)
        return;
    strcpy(cl->level.models[1], names[0]);
    strcpy(cl->level.models[2], names[1]);
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
    memread in = {.data = data, .size = size, .names = {names[0], names[1]}};
    if (rest) {
        in.rest = rest->rest;
        in.rest_size = rest->rest_size;
    }
    static const r_camera cams[2] = {
        {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90},
        {.origin = {40, 0, 4}, .angles = {20, 170, 0}, .fov = 90}};
    fuzz_render(cl, &in, cams, 2, 0.05);
    free(cl);
}

/* An SP2 with its pictures: what loads has every frame's pixels touched, then is drawn. */
static void sp2(const uint8_t *data, size_t size)
{
    /* (one file in both slots: loaded once, shared) */
    static const char *const names[2] = {"sprites/fuzz.sp2", "sprites/fuzz.sp2"};
    qd_error err;
    memread pics = sp2_pictures(data, size);
    uint64_t room = FUZZ_SP2_ROOM;
    mdl_sprite *s = NULL;
    qd_error aside = {0};
    if (mdl_sp2_load(data, size, "fuzz.sp2", memread_fn, &pics, &room, &aside, &s, &err) !=
        QD_OK)
        return;
    uint32_t sum = s->palette ? s->palette[255] : 0;
    for (uint32_t f = 0; f < s->num_frames; f++) {
        const mdl_sprite_frame *fr = &s->frames[f];
        if (fr->pixels && fr->width && fr->height)
            sum += fr->pixels[0] + fr->pixels[(size_t)fr->width * fr->height - 1];
    }
    (void)sum;
    mdl_sprite_free(s);
    render_it(data, size, names, &pics);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[2] = {"progs/fuzz.mdl", "progs/fuzz.spr"};
    qd_error err;
    mdl_alias *m = NULL;
    int any = 0;
    if (size >= 4 && memcmp(data, "IDS2", 4) == 0) {
        sp2(data, size);
        return 0;
    }
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
        render_it(data, size, names, NULL);
    return 0;
}
