/* test_clear.c: cl_clear (a level start's clear, which writes only below the state's
 * high-water marks so a first level start does not touch 1.4 MB) leaves exactly what a whole
 * cl_reset leaves, on states that real demos of every format built; and no decoder writes
 * past a mark (the invariant cl_clear stands on). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/client/cl.h"
#include "../../src/demo/demo.h"
#include "../test.h"

/* 1 when the n bytes at p are all zero. */
static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* Decodes path to its end (or its first error) into cl, from a zeroed state. */
static int play_whole(const char *path, cl_state *cl)
{
    qd_error err;
    demo_t *d = demo_open(path, &err);
    if (!d)
        return 0;
    memset(cl, 0, sizeof *cl);
    cl_reset_zeroed(cl);
    int done = 0;
    for (size_t steps = 0; !done && steps < 10000000; steps++)
        if (demo_step(d, cl, NULL, &done, &err) != QD_OK)
            break;
    demo_close(d);
    return 1;
}

TEST(clear_equals_reset_on_real_demos)
{
    static const char *const files[] = {
        "dem/quake-from-memory_demo1.dem",                /* Quake, statics, many entities */
        "librequake/dem/librequake_demo2.dem",            /* Quake, a level change */
        "qwd/paradoks81-quakeworld_slipgate-app_bps.qwd", /* QuakeWorld */
        "mvd/ezquake-source_manual_overkill.mvd",         /* MVD, 2288 frames */
        "dm2/libq2_testdata_testduel.dm2",                /* Quake II */
        "dm_68/udt_baseq3_1_map_2_matches.dm_68",         /* Quake III, two levels */
    };
    cl_state *cl = malloc(sizeof *cl), *ref = malloc(sizeof *ref);
    CHECK(cl && ref);
    int played = 0;
    for (size_t f = 0; cl && ref && f < sizeof files / sizeof files[0]; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", test_realdata(), files[f]);
        if (!play_whole(path, cl))
            continue;
        played++;
        CHECK_MSG(cl->entity_hw > 0 && cl->level.num_models > 1, "%s: nothing decoded", files[f]);
        /* the marks: nothing written past them */
        int hw = cl->entity_hw;
        CHECK_MSG(all_zero(&cl->entities[hw], (CL_MAX_ENTITIES - (size_t)hw) *
                                                  sizeof cl->entities[0]),
                  "%s: an entity past the mark %d", files[f], hw);
        CHECK_MSG(all_zero(&cl->active_list[hw], (CL_MAX_ENTITIES - (size_t)hw) *
                                                     sizeof cl->active_list[0]),
                  "%s: the active list past the mark", files[f]);
        int nm = cl->level.num_models, ns = cl->level.num_sounds, nst = cl->num_statics;
        CHECK_MSG(all_zero(cl->level.models[nm], (CL_MAX_MODELS - (size_t)nm) * CL_NAME_LEN),
                  "%s: a model name past %d", files[f], nm);
        CHECK_MSG(all_zero(cl->level.sounds[ns], (CL_MAX_SOUNDS - (size_t)ns) * CL_NAME_LEN),
                  "%s: a sound name past %d", files[f], ns);
        CHECK_MSG(all_zero(&cl->statics[nst], (CL_MAX_STATICS - (size_t)nst) *
                                                  sizeof cl->statics[0]),
                  "%s: a static past %d", files[f], nst);
        int mh = cl->motion_hw;
        CHECK_MSG(all_zero(&cl->motion[mh], (CL_MAX_MOTION - (size_t)mh) * sizeof cl->motion[0]),
                  "%s: a motion past %d", files[f], mh);
        uint32_t nfx = cl->fxlog.fx_count < CL_FX_LOG ? cl->fxlog.fx_count : CL_FX_LOG;
        uint32_t nsd = cl->fxlog.sound_count < CL_SOUND_LOG ? cl->fxlog.sound_count : CL_SOUND_LOG;
        CHECK_MSG(all_zero(&cl->fxlog.fx[nfx], (CL_FX_LOG - nfx) * sizeof cl->fxlog.fx[0]) &&
                      all_zero(&cl->fxlog.sounds[nsd],
                               (CL_SOUND_LOG - nsd) * sizeof cl->fxlog.sounds[0]),
                  "%s: an effect or sound past the log's count", files[f]);
        /* the clear against the whole reset */
        memcpy(ref, cl, sizeof *cl);
        cl_clear(cl);
        cl_reset(ref);
        CHECK_MSG(memcmp(cl, ref, sizeof *cl) == 0, "%s: cl_clear differs from cl_reset", files[f]);
    }
    free(cl);
    free(ref);
    if (!played)
        SKIP("no real demos under QDEMO_REALDATA");
}

/* Marks out of range (bytes no decoder wrote) fall back to the whole reset. */
TEST(clear_with_wild_marks_resets_whole)
{
    cl_state *cl = malloc(sizeof *cl), *ref = malloc(sizeof *ref);
    CHECK(cl && ref);
    if (!cl || !ref) {
        free(cl);
        free(ref);
        return;
    }
    for (int which = 0; which < 2; which++) {
        memset(cl, 0x5a, sizeof *cl);
        cl->level.num_models = cl->level.num_sounds = 2; /* every mark in range ... */
        cl->entity_hw = cl->num_statics = cl->motion_hw = 3;
        if (which == 0) /* ... but one */
            cl->entity_hw = CL_MAX_ENTITIES + 1;
        else
            cl->motion_hw = CL_MAX_MOTION + 1;
        cl_clear(cl);
        cl_reset(ref);
        CHECK_MSG(memcmp(cl, ref, sizeof *cl) == 0, "wild mark %d", which);
    }
    free(cl);
    free(ref);
}
