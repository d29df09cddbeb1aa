/* test_facts_q3.c: the neutral facts the Quake III decoder gives (issue #10): model names of
 * players, missiles and items, trajectories at render time, stats, players, events. */
#include <math.h>
#include <stdlib.h>

#include "../../src/client/cl.h"
#include "../../src/demo/demo.h"
#include "../test.h"

/* A real demo opened with a fresh client state, or NULL (the test SKIPs). */
typedef struct q3run {
    demo_t *d;
    cl_state *cl;
    qd_error err;
} q3run;

static int q3run_open(q3run *r, const char *rel)
{
    char path[1024];
    memset(r, 0, sizeof *r);
    if (!test_realfile(path, sizeof path, rel))
        return 0;
    r->d = demo_open(path, &r->err);
    r->cl = malloc(sizeof *r->cl);
    if (!r->d || !r->cl)
        return 0;
    cl_reset(r->cl);
    return 1;
}

/* One step; 0 at the end or on an error. */
static int q3run_step(q3run *r)
{
    int done = 0;
    return demo_step(r->d, r->cl, NULL, &done, &r->err) == QD_OK && !done;
}

static void q3run_close(q3run *r)
{
    if (r->d)
        demo_close(r->d);
    free(r->cl);
}

/* udt_dm_68_team_chat.dm_68, `qdemo dump` of the base build: configstring 544 (CS_PLAYERS +
 * 0) is "n\sausage\t\2\model\razor/default\hmodel\razor/default...", 546 is
 * "n\Sarge\t\1\model\sarge\hmodel\sarge...". Player bodies (ET_PLAYER entities and the
 * recorder's playerState body) show their client's legs mesh. */
TEST(q3_player_model_from_configstring)
{
    q3run r;
    if (!q3run_open(&r, "dm_68/udt_dm_68_team_chat.dm_68")) {
        q3run_close(&r);
        SKIP("udt_dm_68_team_chat.dm_68 missing");
    }
    int bodies = 0;
    while (q3run_step(&r) && r.cl->frame_count < 200) {
        for (int n = 1; n <= 64; n++) {
            const cl_entity *e = &r.cl->entities[n];
            if (!e->active || !(e->cur.flags & CL_EF_PLAYER))
                continue;
            CHECK_MSG(e->cur.model > 0 && e->cur.model < r.cl->level.num_models,
                      "entity %d model %d", n, e->cur.model);
            const char *name = r.cl->level.models[e->cur.model];
            char want[64];
            snprintf(want, sizeof want, "models/players/%s/lower.md3", r.cl->players[n - 1].model);
            CHECK_STR(name, want);
            bodies++;
        }
    }
    const cl_player *p0 = &r.cl->players[0], *p2 = &r.cl->players[2];
    CHECK_STR(p0->name, "sausage");
    CHECK_STR(p0->model, "razor");
    CHECK_STR(p0->skin, "default");
    CHECK_STR(p0->head, "razor/default");
    CHECK_EQ(p0->team, CL_TEAM_BLUE);
    CHECK_STR(p2->model, "sarge");
    CHECK_STR(p2->skin, "default");
    CHECK_EQ(p2->team, CL_TEAM_RED);
    CHECK(bodies > 100);
    int found = 0;
    for (int i = 1; i < r.cl->level.num_models; i++)
        found += !strcmp(r.cl->level.models[i], "models/players/razor/lower.md3") ||
                 !strcmp(r.cl->level.models[i], "models/players/sarge/head.md3");
    CHECK_EQ(found, 2);
    q3run_close(&r);
}

/* udt_one_frag_only_with_plasma.dm_68: the plasma balls (ET_MISSILE 3, weapon WP_PLASMAGUN
 * 8) get the plasma sprite's name, as ioquake3 cg_weapons.c registers it. */
TEST(q3_missile_model_from_weapon)
{
    q3run r;
    if (!q3run_open(&r, "dm_68/udt_one_frag_only_with_plasma.dm_68")) {
        q3run_close(&r);
        SKIP("udt_one_frag_only_with_plasma.dm_68 missing");
    }
    int plasma = 0;
    while (q3run_step(&r)) {
        for (int i = 0; i < r.cl->num_listed; i++) {
            const cl_entity *e = &r.cl->entities[r.cl->active_list[i]];
            if (e->active && e->cur.model && e->cur.model < r.cl->level.num_models &&
                !strcmp(r.cl->level.models[e->cur.model], "sprites/plasma1"))
                plasma++;
        }
    }
    CHECK_MSG(plasma > 0, "no plasma ball drawn");
    q3run_close(&r);
}
