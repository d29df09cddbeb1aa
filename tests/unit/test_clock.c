/* test_clock.c: the game's clock (cl_game_clock), which the Quake III HUD's timer and the
 * neutral HUD show: the time since CS_LEVEL_START_TIME. Expected values are read by hand
 * from `qdemo dump` of each file (the configstring's value and the first snapshot's
 * serverTime, with their byte offsets). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../src/client/cl.h"
#include "../../src/demo/demo.h"
#include "../test.h"

/* Decodes path into cl until frame `frames`, or demo time `until`, or the end; 0 when it
 * cannot be opened. */
static int play_until(const char *path, cl_state *cl, uint32_t frames, double until)
{
    qd_error err;
    demo_t *d = demo_open(path, &err);
    if (!d)
        return 0;
    cl_reset(cl);
    int done = 0;
    while (!done && cl->frame_count < frames && cl->time < until &&
           demo_step(d, cl, NULL, &done, &err) == QD_OK)
        ;
    demo_close(d);
    return 1;
}

static int play_to(const char *path, cl_state *cl, uint32_t frames)
{
    return play_until(path, cl, frames, 1e30);
}

TEST(clock_from_level_start_time)
{
    static const struct {
        const char *file;
        double start; /* demo time of 0:00 at the first frame: (levelStart - first) / 1000 */
    } demos[] = {
        /* index=21 "66070" at offset 890; first snapshot serverTime=166790 at 2979 */
        {"dm_68/udt_baseq3_1_map_2_matches.dm_68", (66070.0 - 166790.0) / 1000},
        /* OpenArena: index=21 "0" at 1388; serverTime=137300 at 3748 */
        {"dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71", -137.3},
        /* Quake Live 73: index=13 "873550" at 3489; serverTime=994850 at 6366 */
        {"dm_73/udt_ql_duel_scores.dm_73", (873550.0 - 994850.0) / 1000},
    };
    cl_state *cl = malloc(sizeof *cl);
    CHECK(cl);
    int played = 0;
    for (size_t i = 0; cl && i < sizeof demos / sizeof demos[0]; i++) {
        char path[1024];
        if (!test_realfile(path, sizeof path, demos[i].file) || !play_to(path, cl, 1))
            continue;
        played++;
        CHECK_MSG(cl->has_clock, "%s", demos[i].file);
        CHECK_MSG(fabs(cl->clock_start - demos[i].start) < 1e-9, "%s: %.4f, want %.4f",
                  demos[i].file, cl->clock_start, demos[i].start);
        CHECK(fabs(cl_game_clock(cl) - (cl->time - demos[i].start)) < 1e-9);
    }
    /* the first demo's map_restart: "cs 21 \"194081\"" (svc_serverCommand at 67586), then
     * its next snapshot serverTime=194481 (68228): from there 0:00 is at demo time
     * (194081 - 166790) / 1000 (the next "cs 21" comes at 366425, demo time 126) */
    char path[1024];
    if (cl && test_realfile(path, sizeof path, demos[0].file) &&
        play_until(path, cl, 1u << 30, 60.0)) {
        CHECK(fabs(cl->clock_start - (194081.0 - 166790.0) / 1000) < 1e-9);
        CHECK(fabs(cl_game_clock(cl) - (cl->time - 27.291)) < 1e-6);
    }
    /* formats without a clock: the demo time */
    if (cl && test_realfile(path, sizeof path, "dem/vektar_demo1.dem") && play_to(path, cl, 50)) {
        CHECK(!cl->has_clock);
        CHECK(cl_game_clock(cl) == cl->time);
    }
    free(cl);
    if (!played)
        SKIP("real data missing");
}
