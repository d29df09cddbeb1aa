/* fuzz_effects.c: libFuzzer target for what the renderers make of a decoded demo's effects
 * (a hostile demo's logged marks, shotgun blasts, gibs, brass, smoke, rails, explosions,
 * beams, particles, trails and dynamic lights, none of which the map and model targets
 * reach: they draw an empty state). The first byte picks the game (Quake III, Quake II,
 * QuakeWorld .mvd), the rest is decoded as its demo, and the state it leaves is drawn on that
 * game's synthetic map from the fuzz corpus (tests/fuzz/corpus/bsp, read once; the
 * target is run from the project's folder) at the state's time and half a second later,
 * flat, wire and textured, one thread and in bands (fuzz_render: the bands must agree). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_decoder.h"
#include "fuzz_render.h"

/* The synthetic map of game g (0 Quake III, 1 Quake II, 2 Quake), read once; NULL without. */
static const uint8_t *map_of(int g, size_t *len)
{
    static const char *const path[3] = {"tests/fuzz/corpus/bsp/synthetic_ibsp46.bsp",
                                        "tests/fuzz/corpus/bsp/synthetic_ibsp38.bsp",
                                        "tests/fuzz/corpus/bsp/synthetic_2quads.bsp"};
    static uint8_t *data[3];
    static size_t size[3];
    static int tried[3];
    if (!tried[g]) {
        tried[g] = 1;
        FILE *f = fopen(path[g], "rb");
        if (f && fseek(f, 0, SEEK_END) == 0) {
            long n = ftell(f);
            if (n > 0 && n < (1 << 22) && fseek(f, 0, SEEK_SET) == 0 &&
                (data[g] = malloc((size_t)n)) && fread(data[g], 1, (size_t)n, f) == (size_t)n)
                size[g] = (size_t)n;
        }
        if (f)
            fclose(f);
    }
    *len = size[g];
    return size[g] ? data[g] : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const demo_decoder *const dec[3] = {&demo_q3_decoder, &demo_q2_decoder,
                                               &demo_mvd_decoder};
    static const char *const name[3] = {"fuzz.dm_68", "fuzz.dm2", "fuzz.mvd"};
    int g = data[0] % 3;
    cl_state *cl = fuzz_decoder_state(dec[g], name[g], data + 1, size - 1);
    size_t maplen;
    const uint8_t *map = map_of(g, &maplen);
    if (!cl || !map || cl->level.game == CL_GAME_NONE)
        return 0;
    /* the decoded level on the synthetic map (its other models are not found: placeholders) */
    snprintf(cl->level.map, sizeof cl->level.map, "maps/fuzz.bsp");
    snprintf(cl->level.models[1], sizeof cl->level.models[1], "maps/fuzz.bsp");
    if (cl->level.num_models < 2)
        cl->level.num_models = 2;
    memread in = {.data = map, .size = maplen, .names = {"maps/fuzz.bsp"}};
    static const r_camera cams[2] = {
        {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90},
        {.origin = {100, -50, 20}, .angles = {30, 200, 10}, .fov = 90}};
    double t = cl->time;
    fuzz_render(cl, &in, cams, 2, t);
    fuzz_render(cl, &in, cams, 1, t + 0.5);
    return 0;
}
