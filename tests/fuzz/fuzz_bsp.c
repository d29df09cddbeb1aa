/* fuzz_bsp.c: libFuzzer target for the BSP loader (whole and names-only), the map queries
 * that run on what it loads (point leaf, PVS decompression, light point, entities, Quake
 * III's wall marks), and a tiny render of it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"
#include "../../src/render/r_local.h"
#include "fuzz_render.h"

static void render_it(const uint8_t *data, size_t size)
{
    cl_state *cl = calloc(1, sizeof *cl);
    if (!cl)
        return;
    strcpy(cl->level.map, "maps/fuzz.bsp");
    strcpy(cl->level.models[1], "maps/fuzz.bsp");
    strcpy(cl->level.models[2], "*1");
    cl->level.num_models = 3;
    cl->num_entities = 3;
    cl->entities[2].active = 1;
    cl->entities[2].cur.model = 2;
    cl->entities[2].cur.angles[1] = 30;
    /* the game from the map's kind (an IBSP 38 is Quake II's: its flowing and animated
     * chains; 46 Quake III's), else Quake or QuakeWorld by the input's size (their dynamic
     * lights and light styles); the brush entity on its alternate cycle and lit
     * (EF_BRIGHTLIGHT) in an odd size */
    int ibsp = size >= 8 && !memcmp(data, "IBSP", 4);
    cl->level.game = ibsp && data[4] == 38 ? CL_GAME_Q2
                     : ibsp && data[4] >= 46 ? CL_GAME_Q3
                     : size & 2 ? CL_GAME_QW
                                : CL_GAME_Q1;
    snprintf(cl->level.lightstyles[0], CL_NAME_LEN, "azmz");
    snprintf(cl->level.lightstyles[1], CL_NAME_LEN, "mmamammmmammamamaaamammma");
    cl->entities[2].cur.frame = (uint16_t)(size & 1);
    cl->entities[2].cur.fx = (uint16_t)(size & 1 ? CL_FX_LIGHT_BRIGHT : 0);
    cl->entities[2].prev = cl->entities[2].cur;
    memread in = {.data = data, .size = size, .names = {"maps/fuzz.bsp"}};
    /* the first camera crosses the faces of small maps (the comb maps in tests/crashers/bsp) */
    static const r_camera cams[3] = {
        {.origin = {0, 0, 0}, .angles = {0, 0, 0}, .fov = 90},
        {.origin = {100, -50, 20}, .angles = {30, 200, 10}, .fov = 90},
        {.origin = {-3e4f, 2e4f, 1e4f}, .angles = {-80, 45, 0}, .fov = 120}};
    fuzz_render(cl, &in, cams, 3, 0);
    fuzz_render(cl, &in, cams + 1, 1, 1.3); /* animated textures, flowing, warps on */
    free(cl);
}

/* The queries on a loaded map; names: loaded by mdl_bsp_load_names (`info`'s lean load: no
 * corners, lightmaps, light grid or visibility in a Quake III map), which must answer them
 * too. */
static int load_and_ask(const uint8_t *data, size_t size, int names)
{
    mdl_bsp *b = NULL;
    qd_error err;
    if ((names ? mdl_bsp_load_names(data, size, "fuzz", &b, &err)
               : mdl_bsp_load(data, size, "fuzz", NULL, &b, &err)) != QD_OK)
        return 0;
    size_t row = mdl_bsp_pvs_size(b);
    uint8_t *pvs = malloc(row);
    static const float points[4][3] = {{0, 0, 0}, {100, -50, 20}, {-1e9f, 3, 1e9f}, {1, 1, 1}};
    for (int i = 0; i < 4; i++) {
        for (uint32_t m = 0; m < b->num_models && m < 4; m++) {
            uint32_t leaf = mdl_bsp_point_leaf(b, b->models[m].headnode, points[i]);
            if (pvs)
                mdl_bsp_pvs(b, leaf, pvs);
        }
        float light;
        mdl_bsp_light_point(b, points[i], NULL, &light);
        static int bright[MDL_LIGHT_STYLES]; /* every style at 'z' (550) */
        for (int k = 0; k < MDL_LIGHT_STYLES; k++)
            bright[k] = 550;
        mdl_bsp_light_point(b, points[i], bright, &light);
    }
    for (uint32_t l = 0; pvs && l < b->num_leaves && l < 64; l++)
        mdl_bsp_pvs(b, l, pvs);
    char v[64];
    mdl_entity_value(b->entities, "info_player_start", 0, "origin", v, sizeof v);
    /* Quake III's wall marks cut on it (r_q3mark.c: its own walk of the tree and leaves) */
    static r_mark_frag frags[R_MARK_FRAGMENTS];
    static float pts[R_MARK_POINTS][3], st[R_MARK_POINTS][2];
    static const float dirs[3][3] = {{0, 0, 1}, {0.6f, -0.8f, 0}, {0, 0, -1}};
    for (int i = 0; i < 4; i++) {
        r_q3_mark_fragments(b, points[i], dirs[i % 3], (float)(i * 97), i ? 64.0f : 8.0f,
                            frags, pts, st);
        float t, end[3];
        uint32_t face;
        for (int j = 0; j < 3; j++)
            end[j] = points[i][j] + 4096 * dirs[(i + 1) % 3][j];
        r_q3_trace(b, points[i], end, &t, &face); /* a shotgun pellet's */
    }
    free(pvs);
    mdl_bsp_free(b);
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)load_and_ask(data, size, 1);
    if (load_and_ask(data, size, 0))
        render_it(data, size);
    return 0;
}
