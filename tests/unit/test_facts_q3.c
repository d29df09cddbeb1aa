/* test_facts_q3.c: the neutral facts the Quake III decoder gives (issue #10): model names of
 * players, missiles and items, trajectories at render time, stats, players, events. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/client/cl.h"
#include "../../src/demo/demo.h"
#include "../test.h"

typedef struct q3run {
    demo_t *d;
    cl_state *cl;
    qd_error err;
} q3run;

static void q3run_close(q3run *r)
{
    if (r->d)
        demo_close(r->d);
    free(r->cl);
    memset(r, 0, sizeof *r);
}

/* A demo (by its path) opened with a fresh client state; 0 (nothing left open) when it
 * does not open. */
static int q3run_open_ours(q3run *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->d = demo_open(path, &r->err);
    r->cl = malloc(sizeof *r->cl);
    if (!r->d || !r->cl) {
        q3run_close(r);
        return 0;
    }
    cl_reset(r->cl);
    return 1;
}

/* A real demo (by its path under QDEMO_REALDATA) opened the same way; 0 when it is
 * missing or does not open: the test SKIPs. */
static int q3run_open(q3run *r, const char *rel)
{
    char path[1024];
    memset(r, 0, sizeof *r);
    return test_realfile(path, sizeof path, rel) && q3run_open_ours(r, path);
}

/* One step; 0 at the end or on an error. */
static int q3run_step(q3run *r)
{
    int done = 0;
    return demo_step(r->d, r->cl, NULL, &done, &r->err) == QD_OK && !done;
}

/* udt_dm_68_team_chat.dm_68, `qdemo dump` of the base build: configstring 544 (CS_PLAYERS +
 * 0) is "n\sausage\t\2\model\razor/default\hmodel\razor/default...", 546 is
 * "n\Sarge\t\1\model\sarge\hmodel\sarge...". Player bodies (ET_PLAYER entities and the
 * recorder's playerState body) show their client's legs mesh. */
TEST(q3_player_model_from_configstring)
{
    q3run r;
    if (!q3run_open(&r, "dm_68/udt_dm_68_team_chat.dm_68"))
        SKIP("udt_dm_68_team_chat.dm_68 missing");
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
    if (!q3run_open(&r, "dm_68/udt_one_frag_only_with_plasma.dm_68"))
        SKIP("udt_one_frag_only_with_plasma.dm_68 missing");
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

/* cg_ents.c CG_Item draws a health item's or powerup's second model (bg_itemlist
 * world_model[1]): the cross's sphere (models/powerups/health/<size>_cross.md3 with
 * <size>_sphere.md3), the powerup's ring (models/powerups/instant/<name>.md3 with
 * <name>_ring.md3); other items have none. So every item entity of demo088 that shows a
 * cross or a powerup shows the matching second model, and no other has one. */
TEST(q3_items_second_models)
{
    q3run r;
    if (!q3run_open(&r, "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71"))
        SKIP("demo088-test1.dm_71 missing");
    int crosses = 0, wrong = 0;
    while (q3run_step(&r)) {
        const cl_level *l = &r.cl->level;
        for (int i = 0; i < r.cl->num_listed; i++) {
            const cl_entity *e = &r.cl->entities[r.cl->active_list[i]];
            if (!e->active || !(e->cur.fx & CL_FX_ROTATE) || !e->cur.model ||
                e->cur.model >= l->num_models)
                continue;
            const char *m = l->models[e->cur.model], *m2 = e->cur.model2 < l->num_models
                                                              ? l->models[e->cur.model2]
                                                              : "";
            char want[CL_NAME_LEN] = "";
            size_t n = strlen(m);
            if (!strncmp(m, "models/powerups/health/", 23) && n > 10 &&
                !strcmp(m + n - 10, "_cross.md3")) {
                snprintf(want, sizeof want, "%.*s_sphere.md3", (int)(n - 10), m);
                crosses++;
            } else if (!strncmp(m, "models/powerups/instant/", 24) && n > 4) {
                snprintf(want, sizeof want, "%.*s_ring.md3", (int)(n - 4), m);
            }
            wrong += want[0] ? strcmp(m2, want) != 0 : e->cur.model2 != 0;
        }
    }
    q3run_close(&r);
    CHECK_MSG(crosses > 10, "%d health items seen", crosses);
    CHECK_EQ(wrong, 0);
}

/* cg_event.c EV_PLAYER_TELEPORT_IN and _OUT: CG_SpawnEffect where the player comes out (the
 * event comes with every spawn too: g_client.c ClientSpawn) and where it went in (the place
 * it left, g_misc.c TeleportPlayer, in the same server frame as its coming out). In demo088
 * each coming-out effect lies on a player: within 64 units of an active body or of the
 * recorder's view (its eye is 26 over its origin; one bot is 56 units on from its spawn
 * point in the snapshot of its spawn at 152.45 s); its players spawn but use no teleporter,
 * so the going-in half is the aggressor survey's (README) alone. */
TEST(q3_teleport_effects_on_players)
{
    int effects = 0, off = 0, outs = 0, unpaired = 0;
    uint32_t seen = 0;
    q3run r;
    if (!q3run_open(&r, "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71"))
        SKIP("demo088-test1.dm_71 missing");
    while (q3run_step(&r)) {
        int ins = 0, step_outs = 0;
        for (; seen < r.cl->fxlog.fx_count; seen++) {
            const cl_fxev *f = &r.cl->fxlog.fx[seen % CL_FX_LOG];
            if (f->kind != CL_FXK_TELEPORT)
                continue;
            if (f->style) {
                step_outs++;
                continue;
            }
            ins++;
            effects++;
            float best = 1e9f;
            for (int i = 0; i < r.cl->num_entities; i++) {
                const cl_entity *e = &r.cl->entities[i];
                if (!e->active || !(e->cur.flags & CL_EF_PLAYER))
                    continue;
                float d2 = 0;
                for (int k = 0; k < 3; k++)
                    d2 += (e->cur.origin[k] - f->origin[k]) * (e->cur.origin[k] - f->origin[k]);
                best = d2 < best ? d2 : best;
            }
            float v2 = 0;
            for (int k = 0; k < 3; k++) {
                float d = r.cl->view.origin[k] - f->origin[k] - (k == 2 ? 26 : 0);
                v2 += d * d;
            }
            best = v2 < best ? v2 : best;
            off += !(best < 64 * 64) || !(f->life == 0.5f);
        }
        outs += step_outs;
        unpaired += step_outs > ins;
    }
    q3run_close(&r);
    CHECK_MSG(effects > 5, "%d coming out, %d going in", effects, outs);
    CHECK_EQ(off, 0);
    CHECK_EQ(unpaired, 0);
}

/* g_items.c RespawnItem clears an item's EF_NODRAW and adds EV_ITEM_RESPAWN, which cgame
 * takes as the start of the item's growing back (cg_event.c: cent->miscTime). In demo088
 * each respawn names an item that shows a model in that snapshot and did not in the one
 * before (taken, or not yet sent). */
TEST(q3_item_respawns_name_reappearing_items)
{
    int respawns = 0, wrong = 0;
    uint32_t seen = 0;
    static uint16_t was[CL_MAX_ENTITIES];
    memset(was, 0, sizeof was);
    q3run r;
    if (!q3run_open(&r, "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71"))
        SKIP("demo088-test1.dm_71 missing");
    while (q3run_step(&r)) {
        for (; seen < r.cl->fxlog.fx_count; seen++) {
            const cl_fxev *f = &r.cl->fxlog.fx[seen % CL_FX_LOG];
            if (f->kind != CL_FXK_ITEM_RESPAWN)
                continue;
            respawns++;
            int n = f->entity;
            const cl_entity *e = n > 0 && n < CL_MAX_ENTITIES ? &r.cl->entities[n] : NULL;
            wrong += !e || !e->active || !(e->cur.fx & CL_FX_ROTATE) || !e->cur.model ||
                     was[n] != 0 || f->life != 1.0f;
        }
        for (int i = 0; i < CL_MAX_ENTITIES && i < r.cl->num_entities; i++)
            was[i] = r.cl->entities[i].active ? r.cl->entities[i].cur.model : 0;
    }
    q3run_close(&r);
    CHECK_MSG(respawns > 10, "%d respawns", respawns);
    CHECK_EQ(wrong, 0);
}

static int near3(const float a[3], float x, float y, float z)
{
    return fabsf(a[0] - x) < 1e-3f && fabsf(a[1] - y) < 1e-3f && fabsf(a[2] - z) < 1e-3f;
}

/* BG_EvaluateTrajectory (ioquake3 bg_misc.c) by hand, each type at demo time 1.5 s with
 * trTime 1000 ms: dt = 0.5 s. */
TEST(q3_traj_eval_each_type)
{
    cl_traj tr = {.base = {100, 200, 300}, .delta = {10, -20, 40}, .t0_ms = 1000,
                  .duration_ms = 2000, .type = CL_TR_STATIONARY};
    float o[3];
    cl_traj_eval(&tr, 1.5, o);
    CHECK(near3(o, 100, 200, 300));
    tr.type = CL_TR_INTERPOLATE;
    cl_traj_eval(&tr, 1.5, o);
    CHECK(near3(o, 100, 200, 300));
    tr.type = CL_TR_LINEAR; /* base + delta * 0.5 */
    cl_traj_eval(&tr, 1.5, o);
    CHECK(near3(o, 105, 190, 320));
    tr.type = CL_TR_LINEAR_STOP; /* stops at 1000 + 2000 ms: dt at most 2 s, never < 0 */
    cl_traj_eval(&tr, 1.5, o);
    CHECK(near3(o, 105, 190, 320));
    cl_traj_eval(&tr, 9.0, o);
    CHECK(near3(o, 120, 160, 380));
    cl_traj_eval(&tr, 0.2, o);
    CHECK(near3(o, 100, 200, 300));
    tr.type = CL_TR_SINE; /* sin(2 pi 500 / 2000) = sin(pi / 2) = 1; at 2.0 s sin(pi) = 0 */
    cl_traj_eval(&tr, 1.5, o);
    CHECK(near3(o, 110, 180, 340));
    cl_traj_eval(&tr, 2.0, o);
    CHECK(near3(o, 100, 200, 300));
    tr.type = CL_TR_GRAVITY; /* z: 300 + 40 * 0.5 - 400 * 0.25 = 220 */
    cl_traj_eval(&tr, 1.5, o);
    CHECK(near3(o, 105, 190, 220));
    tr.base[0] = 1e30f; /* not sane: base stays, or 0 */
    tr.delta[0] = 1e30f;
    cl_traj_eval(&tr, 1.5, o);
    CHECK(o[0] == 0);
}

/* A trajectory that does not move (TR_STATIONARY, TR_INTERPOLATE) evaluates as the rule for
 * every type does with dt = 0 and no gravity, bit for bit: v = base + delta x 0 in double,
 * and a v that is not finite or beyond 1e7 gives base when base is finite and under 1e7,
 * else 0 (cl.h). The reference is that rule written here, over the values that make it
 * differ from plain base: signed zeros, non-finite deltas, bases at and past 1e7, NaN and
 * infinite bases; cl_traj_eval takes a shorter way for these types. */
TEST(q3_traj_eval_still_types_follow_the_rule)
{
    static const float bases[] = {0.0f, -0.0f, 1.0f, -3.5f, 1e7f, -1e7f, 10000001.0f,
                                  3e38f, INFINITY, -INFINITY, NAN};
    static const float deltas[] = {0.0f, -0.0f, 5.0f, -5.0f, 1e30f, INFINITY, -INFINITY, NAN};
    for (size_t bi = 0; bi < sizeof bases / sizeof bases[0]; bi++)
        for (size_t di = 0; di < sizeof deltas / sizeof deltas[0]; di++)
            for (int type = CL_TR_STATIONARY; type <= CL_TR_INTERPOLATE; type++) {
                cl_traj tr = {.base = {bases[bi], -bases[bi], bases[bi]},
                              .delta = {deltas[di], deltas[di], -deltas[di]},
                              .t0_ms = 1000, .type = (uint8_t)type};
                float o[3], want[3];
                cl_traj_eval(&tr, 1.5, o);
                for (int i = 0; i < 3; i++) {
                    double v = (double)tr.base[i] + (double)tr.delta[i] * 0.0 - 0.0;
                    if (!isfinite(v) || fabs(v) > 1e7)
                        v = isfinite(tr.base[i]) && fabsf(tr.base[i]) < 1e7f ? tr.base[i] : 0;
                    want[i] = (float)v;
                }
                CHECK_MSG(memcmp(o, want, sizeof o) == 0,
                          "type %d base %g delta %g: %g %g %g, want %g %g %g", type,
                          (double)bases[bi], (double)deltas[di], (double)o[0], (double)o[1],
                          (double)o[2], (double)want[0], (double)want[1], (double)want[2]);
            }
}

/* A missile between two snapshots is where its trajectory puts it at the render time, not
 * on the straight line between the two sampled points; a changed trajectory (a grenade's
 * bounce) applies from the frame that brought it. */
TEST(q3_entity_at_evaluates_trajectory)
{
    cl_state *cl = malloc(sizeof *cl);
    CHECK(cl);
    cl_reset(cl);
    cl_level_begin(cl, CL_GAME_Q3, 68, 8, "t");
    /* gravity from (0, 0, 100), up at 200 u/s, trTime 0 */
    cl_traj pos = {.base = {0, 0, 100}, .delta = {100, 0, 200}, .type = CL_TR_GRAVITY}, apos;
    memset(&apos, 0, sizeof apos);
    cl_entstate st;
    memset(&st, 0, sizeof st);
    st.model = 1;
    for (int k = 0; k < 2; k++) {
        double t = k * 0.1;
        cl_frame_begin(cl, t);
        cl_traj_eval(&pos, t, st.origin);
        CHECK(cl_entity_update_traj(cl, 70, &st, &pos, &apos));
        cl_frame_end(cl, 1);
    }
    cl_entstate out;
    int nf;
    float bl;
    CHECK(cl_entity_at(cl, 70, 0.05, &out, &nf, &bl));
    CHECK(out.flags & CL_EF_TRAJ);
    /* z = 100 + 200 * 0.05 - 400 * 0.0025 = 109 (a lerp would give 109.5) */
    CHECK_MSG(near3(out.origin, 5, 0, 109), "%f %f %f", out.origin[0], out.origin[1],
              out.origin[2]);
    /* the bounce at 0.2 s: a new trajectory from (20, 0, 124) flat at 50 u/s */
    cl_traj b = {.base = {20, 0, 124}, .delta = {50, 0, 0}, .t0_ms = 200, .type = CL_TR_LINEAR};
    cl_frame_begin(cl, 0.2);
    cl_traj_eval(&b, 0.2, st.origin);
    CHECK(cl_entity_update_traj(cl, 70, &st, &b, &apos));
    cl_frame_end(cl, 1);
    CHECK(cl_entity_at(cl, 70, 0.15, &out, &nf, &bl)); /* still the old one */
    CHECK_MSG(near3(out.origin, 15, 0, 121), "%f %f %f", out.origin[0], out.origin[1],
              out.origin[2]);
    CHECK(cl_entity_at(cl, 70, 0.2, &out, &nf, &bl));
    CHECK(near3(out.origin, 20, 0, 124));
    /* a stationary entity keeps the plain lerp and no CL_EF_TRAJ */
    cl_traj still = {.type = CL_TR_INTERPOLATE};
    cl_frame_begin(cl, 0.3);
    st.origin[0] = 5;
    CHECK(cl_entity_update_traj(cl, 71, &st, &still, &still));
    cl_frame_end(cl, 1);
    CHECK(cl_entity_at(cl, 71, 0.3, &out, &nf, &bl));
    CHECK(!(out.flags & CL_EF_TRAJ));
    CHECK(out.origin[0] == 5);
    free(cl);
}

/* OpenArena's unlagged cgame draws a missile one server frame ahead of the clock
 * (cg_ents.c CG_CalcEntityLerpPositions: BG_EvaluateTrajectory at cg.time + timeshift); a
 * trajectory the decoder gave a lead is read so, and cl_entity_lead_from gives the point the
 * game's trace of the lead starts from. By hand: base (0, 0, 50), 900 u/s along x from
 * trTime 0, lead 50 ms: at 0.05 s the rocket is drawn at x = 900 x 0.1 = 90, its trace
 * starting at x = 45; without a lead, at 45 and no trace. */
TEST(q3_led_missile_ahead_of_the_clock)
{
    cl_state *cl = malloc(sizeof *cl);
    CHECK(cl);
    cl_reset(cl);
    cl_level_begin(cl, CL_GAME_Q3, 71, 8, "t");
    cl_traj led = {.base = {0, 0, 50}, .delta = {900, 0, 0}, .type = CL_TR_LINEAR,
                   .lead_ms = 50},
            plain = led, still = {.type = CL_TR_STATIONARY};
    plain.lead_ms = 0;
    cl_entstate st;
    memset(&st, 0, sizeof st);
    st.model = 1;
    for (int k = 0; k < 2; k++) { /* frames at 0 and 0.1 s, the same flight in both */
        cl_frame_begin(cl, k * 0.1);
        cl_traj_eval(&led, k * 0.1, st.origin);
        CHECK(cl_entity_update_traj(cl, 70, &st, &led, &still) &&
              cl_entity_update_traj(cl, 71, &st, &plain, &still));
        cl_frame_end(cl, 1);
    }
    cl_entstate out;
    float from[3];
    CHECK(cl_entity_at(cl, 70, 0.05, &out, NULL, NULL));
    CHECK_MSG(near3(out.origin, 90, 0, 50), "%f %f %f", out.origin[0], out.origin[1],
              out.origin[2]);
    CHECK(cl_entity_lead_from(cl, 70, 0.05, from));
    CHECK(near3(from, 45, 0, 50));
    CHECK(cl_entity_at(cl, 71, 0.05, &out, NULL, NULL));
    CHECK(near3(out.origin, 45, 0, 50));
    CHECK(!cl_entity_lead_from(cl, 71, 0.05, from));
    CHECK(!cl_entity_lead_from(cl, 72, 0.05, from)); /* (no such entity) */
    free(cl);
}

/* Which missiles are led, and by how much, from the demos themselves: realdata's OpenArena
 * bot match (stress_bases3.dm_70) holds "sv_fps\20" in its CS_SYSTEMINFO, put there by
 * OpenArena's game (g_main.c: sv_fps CVAR_SYSTEMINFO), so its rockets and plasma are drawn
 * 1000 / 20 = 50 ms ahead; its recorder fires nothing (a spectator's camera), so another's
 * grenades are not led. A baseq3 demo (udt_one_frag_only_with_plasma.dm_68: no sv_fps in
 * its CS_SYSTEMINFO, `qdemo dump`) leads nothing. */
static void missile_leads(const char *rel, int *rockets, int *grenades, int lead[2][2])
{
    q3run r;
    *rockets = *grenades = 0;
    memset(lead, 0, 4 * sizeof(int));
    if (!q3run_open(&r, rel))
        return;
    while (q3run_step(&r)) {
        for (int i = 1; i < r.cl->num_entities && i < CL_MOTION_ENTITIES; i++) {
            const cl_entity *e = &r.cl->entities[i];
            int g = (e->cur.fx & CL_FX_GRENADE) != 0;
            if (!e->active || !(e->cur.fx & (CL_FX_ROCKET | CL_FX_GRENADE | CL_FX_PLASMA)) ||
                !r.cl->motion_slot[i])
                continue;
            const cl_traj *tr = &r.cl->motion[r.cl->motion_slot[i] - 1].pos[1];
            *(g ? grenades : rockets) += 1;
            lead[g][tr->lead_ms == 50] += 1;
        }
    }
    q3run_close(&r);
}

TEST(q3_unlagged_game_leads_missiles)
{
    int rockets, grenades, lead[2][2];
    missile_leads("dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70", &rockets,
                  &grenades, lead);
    if (!rockets)
        SKIP("stress_bases3.dm_70 missing");
    CHECK_MSG(rockets > 100, "%d rocket and plasma sightings", rockets);
    CHECK_EQ(lead[0][0], 0); /* every rocket and plasma ball led by 50 ms */
    CHECK_MSG(grenades > 10, "%d grenade sightings", grenades);
    CHECK_EQ(lead[1][1], 0); /* no grenade of another led */
    missile_leads("dm_68/udt_one_frag_only_with_plasma.dm_68", &rockets, &grenades, lead);
    if (!rockets)
        SKIP("udt_one_frag_only_with_plasma.dm_68 missing");
    CHECK_EQ(lead[0][1] + lead[1][1], 0);
}

/* Counts of the events a whole demo gives. */
typedef struct evcount {
    int frag, chat, center, inter, fx_explosion, fx_rail;
    cl_event first_frag;
} evcount;

static int count_events(const char *rel, evcount *n)
{
    q3run r;
    memset(n, 0, sizeof *n);
    if (!q3run_open(&r, rel))
        return 0;
    uint32_t seen = 0, fx_seen = 0;
    while (q3run_step(&r)) {
        for (; seen < r.cl->event_count; seen++) {
            const cl_event *ev = cl_event_get(r.cl, seen);
            if (!ev)
                continue;
            if (ev->kind == CL_EV_FRAG && !n->frag++)
                n->first_frag = *ev;
            n->chat += ev->kind == CL_EV_CHAT;
            n->center += ev->kind == CL_EV_CENTER;
            n->inter += ev->kind == CL_EV_INTERMISSION;
        }
        for (; fx_seen < r.cl->fxlog.fx_count; fx_seen++) {
            const cl_fxev *fx = &r.cl->fxlog.fx[fx_seen % CL_FX_LOG];
            n->fx_explosion += fx->kind == CL_FXK_EXPLOSION;
            n->fx_rail += fx->kind == CL_FXK_BEAM_RAIL;
        }
    }
    q3run_close(&r);
    return 1;
}

/* The rails a whole demo gives: cores (CL_FXK_BEAM_RAIL); ring spirals (CL_FXK_RAIL_RINGS)
 * that follow a core at once with its ends; the rails whose impact (the explosion logged
 * after, from the same point) lies `drop` units above the core's end; the last core's
 * life. */
typedef struct railcount {
    int cores, rings, paired, impacts, at_drop;
    float life;
} railcount;

static int count_rails(const char *rel, float drop, railcount *n)
{
    q3run r;
    memset(n, 0, sizeof *n);
    if (!q3run_open(&r, rel))
        return 0;
    uint32_t seen = 0;
    cl_fxev core;
    memset(&core, 0, sizeof core);
    while (q3run_step(&r))
        for (; seen < r.cl->fxlog.fx_count; seen++) {
            const cl_fxev *fx = &r.cl->fxlog.fx[seen % CL_FX_LOG];
            int same = core.kind == CL_FXK_BEAM_RAIL && fx->t0 == core.t0;
            if (fx->kind == CL_FXK_BEAM_RAIL) {
                n->cores++;
                n->life = fx->life;
                core = *fx;
            } else if (fx->kind == CL_FXK_RAIL_RINGS) {
                n->rings++;
                n->paired += same && !memcmp(core.origin, fx->origin, sizeof fx->origin) &&
                             !memcmp(core.end, fx->end, sizeof fx->end);
            } else if (fx->kind == CL_FXK_EXPLOSION && fx->style == 7 && same) {
                n->impacts++;
                n->at_drop += fx->origin[0] == core.end[0] && fx->origin[1] == core.end[1] &&
                              fx->origin[2] - drop == core.end[2];
                core.kind = 0;
            }
        }
    q3run_close(&r);
    return 1;
}

/* cg_weapons.c CG_RailTrail: with cg_oldRail 1 (ioquake3's cgame) the core's ends are 8
 * units under the rail's (the start 4 more), no rings, cg_railTrailTime 400 ms; OpenArena's
 * cgame (cg_oldRail 0, cg_railTrailTime 600: its cg_main.c) keeps the end where the rail
 * hit and lays the ring spiral along it. realdata's demo088 (OpenArena, its sv_fps in
 * CS_SYSTEMINFO) and the 2001 Quakecon duel (baseq3) both hold rails that hit walls. */
TEST(q3_rail_rings_in_openarena_only)
{
    railcount n;
    if (!count_rails("dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71", 0, &n))
        SKIP("demo088-test1.dm_71 missing");
    CHECK_MSG(n.cores > 10, "%d rails", n.cores);
    CHECK_EQ(n.rings, n.cores);
    CHECK_EQ(n.paired, n.cores);
    CHECK_MSG(n.impacts > 5, "%d impacts", n.impacts);
    CHECK_EQ(n.at_drop, n.impacts);
    CHECK(n.life == 0.6f);
    if (!count_rails("dm_66/udt_2001_Duel2_Quakecon.dm_66", 8, &n))
        SKIP("udt_2001_Duel2_Quakecon.dm_66 missing");
    CHECK_MSG(n.cores > 10, "%d rails", n.cores);
    CHECK_EQ(n.rings, 0);
    CHECK_MSG(n.impacts > 5, "%d impacts", n.impacts);
    CHECK_EQ(n.at_drop, n.impacts);
    CHECK(n.life == 0.4f);
}

/* g_combat.c AddScore raises the scorer's PERS_SCORE and sends it a score plum of the points
 * (ScorePlum: EV_SCOREPLUM, SVF_SINGLECLIENT, entityState.time the points); cgame shows the
 * viewed player's (CG_ScorePlum). So in realdata's demo088 every snapshot that brings plums
 * raises the recorder's score by their sum, and every rise comes with its plums. */
TEST(q3_score_plums_follow_the_score)
{
    q3run r;
    if (!q3run_open(&r, "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71"))
        SKIP("demo088-test1.dm_71 missing");
    uint32_t seen = 0;
    int plums = 0, steps = 0, matched = 0, have = 0;
    int32_t before = 0;
    while (q3run_step(&r)) {
        const cl_stats *st = cl_stats_of(r.cl, -1);
        int sum = 0, n = 0;
        for (; seen < r.cl->fxlog.mark_count; seen++) {
            const cl_fxev *m = &r.cl->fxlog.marks[seen % CL_MARK_LOG];
            if (m->kind == CL_FXK_SCORE_PLUM) {
                sum += (int)m->radius;
                n++;
            }
        }
        if (st && have && (n || st->score != before)) {
            steps++;
            matched += st->score - before == sum;
        }
        plums += n;
        if (st && r.cl->frame_count > 0) { /* (from the first snapshot's score on) */
            before = st->score;
            have = 1;
        }
    }
    q3run_close(&r);
    CHECK_MSG(plums > 10, "%d plums", plums);
    CHECK_EQ(matched, steps);
}

/* udt_one_frag_only_with_plasma.dm_68 holds one frag (its name), made with the plasma gun:
 * one EV_OBITUARY, MOD_PLASMA or MOD_PLASMA_SPLASH. */
TEST(q3_obituary_frag_event)
{
    evcount n;
    if (!count_events("dm_68/udt_one_frag_only_with_plasma.dm_68", &n))
        SKIP("udt_one_frag_only_with_plasma.dm_68 missing");
    CHECK_EQ(n.frag, 1);
    CHECK_EQ(n.first_frag.weapon, CL_WP_PLASMA);
    CHECK(n.first_frag.means == CL_MOD_WEAPON || n.first_frag.means == CL_MOD_SPLASH);
    CHECK(n.first_frag.actor >= 0 && n.first_frag.target >= 0 &&
          n.first_frag.actor != n.first_frag.target);
    CHECK(n.fx_explosion > 0); /* the plasma balls' EV_MISSILE_MISS / HIT */
}
/* udt_dm_68_team_chat.dm_68, `qdemo dump` of the base build: seq=24 "tchat
 * \"\x19(sausage^7\x19) (Mega Health Room)\x19: ^5a\"": a team chat event from slot 0
 * ("sausage", configstring 544). */
TEST(q3_chat_event_sender)
{
    q3run r;
    if (!q3run_open(&r, "dm_68/udt_dm_68_team_chat.dm_68"))
        SKIP("udt_dm_68_team_chat.dm_68 missing");
    int found = 0;
    uint32_t seen = 0;
    while (q3run_step(&r) && !found) {
        for (; seen < r.cl->event_count && !found; seen++) {
            const cl_event *ev = cl_event_get(r.cl, seen);
            if (ev && ev->kind == CL_EV_CHAT) {
                CHECK_STR(ev->text, "(sausage^7) (Mega Health Room): ^5a");
                CHECK(ev->flags & CL_EVF_TEAM);
                CHECK_EQ(ev->actor, 0);
                found = 1;
            }
        }
    }
    CHECK(found);
    q3run_close(&r);
}

/* The effect after *seen in r's log (*seen moves past it), or NULL when none is new; one
 * overwritten before it was read is passed over. */
static const cl_fxev *next_fx(q3run *r, uint32_t *seen)
{
    const cl_fxlog *log = &r->cl->fxlog;
    if (log->fx_count - *seen > CL_FX_LOG)
        *seen = log->fx_count - CL_FX_LOG;
    if (*seen >= log->fx_count)
        return NULL;
    return &log->fx[(*seen)++ % CL_FX_LOG];
}

/* cg_weapons.c CG_MissileHitWall: a rocket's explosion lights 1, 0.75, 0 (255, 191, 0 in
 * bytes), a grenade's the function's default 1, 1, 0 (255, 255, 0); both radius 300. The
 * OpenArena bot match on oa_bases3 holds rocket explosions; every one decoded must say so. */
TEST(q3_explosion_light_colour_by_weapon)
{
    q3run r;
    if (!q3run_open(&r, "dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70"))
        SKIP("stress_bases3.dm_70 missing");
    int rockets = 0, grenades = 0, wrong = 0, not_unit = 0, floors = 0;
    uint32_t seen = 0;
    while (q3run_step(&r)) {
        for (const cl_fxev *f; (f = next_fx(&r, &seen));) {
            if (f->kind != CL_FXK_EXPLOSION || (f->style != 4 && f->style != 5))
                continue;
            int rocket = f->style == 5;
            rockets += rocket;
            grenades += !rocket;
            wrong += f->rgb[0] != 255 || f->rgb[1] != (rocket ? 191 : 255) || f->rgb[2] != 0 ||
                     f->radius != 300;
            /* the surface's normal, eventParm's byte (g_missile.c DirToByte of the plane
             * hit): a unit vector (end less origin in floats: 2.4e-4 apart at 4096 units,
             * so within 2e-3 squared), straight up from a floor for many */
            float n[3] = {f->end[0] - f->origin[0], f->end[1] - f->origin[1],
                          f->end[2] - f->origin[2]};
            not_unit += fabsf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1) > 2e-3f;
            floors += n[2] > 0.999f;
        }
    }
    CHECK_MSG(rockets > 0, "%d rocket explosions, %d grenade", rockets, grenades);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(not_unit, 0);
    CHECK_MSG(floors * 4 > rockets + grenades, "%d of %d on floors", floors, rockets + grenades);
    q3run_close(&r);
}

/* cg_event.c: a bullet in a wall (EV_BULLET_HIT_WALL) makes the machine gun's impact
 * (CG_Bullet -> CG_MissileHitWall, WP_MACHINEGUN 2: 600 ms, no light), and a rail's end
 * that met a surface (EV_RAILTRAIL, eventParm not 255) the railgun's (7) in the shooter's
 * colour 1 (the core's, not the rings' colour 2): on demo088 (a free-for-all with machine guns and railguns), there are both; each
 * rail impact lies where a rail trail of the same moment ends, in its colour; every
 * impact carries its surface's normal (a unit vector; floats near 4096: within 2e-3). */
TEST(q3_bullet_and_rail_impacts)
{
    q3run r;
    if (!q3run_open(&r, "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71"))
        SKIP("demo088-test1.dm_71 missing");
    int bullets = 0, rails = 0, unmatched = 0, not_unit = 0, lit = 0;
    uint32_t seen = 0;
    while (q3run_step(&r)) {
        const cl_fxlog *log = &r.cl->fxlog;
        for (const cl_fxev *f; (f = next_fx(&r, &seen));) {
            if (f->kind != CL_FXK_EXPLOSION || (f->style != 2 && f->style != 7))
                continue;
            float n[3] = {f->end[0] - f->origin[0], f->end[1] - f->origin[1],
                          f->end[2] - f->origin[2]};
            not_unit += fabsf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1) > 2e-3f;
            lit += f->radius != 0 || fabsf(f->life - 0.6f) > 1e-6f;
            if (f->style == 2) {
                bullets++;
                continue;
            }
            rails++;
            int match = 0; /* the trail added just before it (or before its rings) */
            const cl_fxev *b = &log->fx[(seen + CL_FX_LOG - 2) % CL_FX_LOG];
            if (b->kind == CL_FXK_RAIL_RINGS && seen > 2)
                b = &log->fx[(seen + CL_FX_LOG - 3) % CL_FX_LOG];
            match = seen > 1 && b->kind == CL_FXK_BEAM_RAIL && b->t0 == f->t0 &&
                    !memcmp(b->end, f->origin, sizeof b->end) && !memcmp(b->rgb, f->rgb, 3);
            unmatched += !match;
        }
    }
    CHECK_MSG(bullets > 0 && rails > 0, "%d bullet impacts, %d rail", bullets, rails);
    CHECK_EQ(unmatched, 0);
    CHECK_EQ(not_unit, 0);
    CHECK_EQ(lit, 0);
    q3run_close(&r);
}

/* cg_weapons.c CG_RocketTrail: a rocket's smoke stays 2 s after it is gone, so the decoder
 * logs each rocket's flight when it ends (CL_FXK_TRAIL: origin trBase, end trDelta, radius
 * the seconds flown). OpenArena's g_weapon.c fire_rocket sends trDelta = 900 x the aim
 * (SnapVector: each component cut to whole units, towards zero), so every logged flight
 * moves at 900 units a second or up to sqrt 3 less;
 * a flight that ends in an explosion ends where it exploded, less than one snapshot's
 * flight (45 units) and the impact's snap away. */
TEST(q3_rocket_flights_logged)
{
    q3run r;
    if (!q3run_open(&r, "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71"))
        SKIP("demo088-test1.dm_71 missing");
    int flights = 0, off_speed = 0, ended = 0;
    uint32_t seen = 0;
    cl_fxev booms[64];
    int nb = 0;
    while (q3run_step(&r)) {
        for (const cl_fxev *f; (f = next_fx(&r, &seen));) {
            if (f->kind == CL_FXK_EXPLOSION && f->style == 5)
                booms[nb++ % 64] = *f;
            if (f->kind != CL_FXK_TRAIL || f->style != 5)
                continue; /* (a grenade's: below) */
            flights++;
            float v = sqrtf(f->end[0] * f->end[0] + f->end[1] * f->end[1] + f->end[2] * f->end[2]);
            off_speed += !(v > 900 - 1.75f && v < 900.01f) || !(f->radius > 0);
            for (int i = 0; i < nb && i < 64; i++) {
                float d2 = 0;
                for (int k = 0; k < 3; k++) {
                    float p = f->origin[k] + f->end[k] * f->radius - booms[i].origin[k];
                    d2 += p * p;
                }
                ended += booms[i].t0 == f->t0 && d2 < 60 * 60;
            }
        }
    }
    CHECK_MSG(flights > 10, "%d flights", flights);
    CHECK_EQ(off_speed, 0);
    CHECK_MSG(ended * 2 > flights, "%d of %d flights end at an explosion", ended, flights);
    q3run_close(&r);
}

/* cg_weapons.c CG_GrenadeTrail: a grenade smokes along its falling path, and each bounce
 * (g_missile.c G_BounceMissile) starts a new trajectory at the bounce: trBase the trace's
 * end (one unit off the surface), trTime the server frame's, trDelta the reflected velocity
 * times 0.65. The decoder logs each piece as it ends (CL_FXK_TRAIL, style 4, entity the
 * grenade's). So a piece that follows another of the same grenade starts where the earlier
 * one's path had come to at its trTime, give or take the part of a 50 ms server frame after
 * the hit (at most 0.05 s of the earlier piece's speed there) and the unit off the surface;
 * and it is no faster than the earlier one's speed there. */
TEST(q3_grenade_bounces_logged)
{
    q3run r;
    if (!q3run_open(&r, "dm_67/udt_2002_Duel2_CPL_Nostromo.dm_67"))
        SKIP("udt_2002_Duel2_CPL_Nostromo.dm_67 missing");
    int pieces = 0, follows = 0, off = 0, faster = 0;
    uint32_t seen = 0;
    cl_fxev last[CL_MAX_ENTITIES / 64]; /* (a small map of the latest piece by entity) */
    int16_t last_ent[CL_MAX_ENTITIES / 64];
    int nl = 0;
    while (q3run_step(&r)) {
        for (const cl_fxev *f; (f = next_fx(&r, &seen));) {
            if (f->kind != CL_FXK_TRAIL || f->style != 4)
                continue;
            pieces++;
            double t0 = f->t0 - f->radius; /* this piece's trTime */
            for (int i = 0; i < nl; i++) {
                if (last_ent[i] != f->entity || fabs(last[i].t0 - t0) > 0.06)
                    continue; /* (another grenade, or not the piece just before) */
                follows++;
                float dt = (float)(t0 - (last[i].t0 - last[i].radius)), d2 = 0, v2 = 0, nv2 = 0;
                for (int k = 0; k < 3; k++) {
                    float vel = last[i].end[k] - (k == 2 ? 800 * dt : 0);
                    float p = last[i].origin[k] + last[i].end[k] * dt - (k == 2 ? 400 * dt * dt : 0);
                    d2 += (p - f->origin[k]) * (p - f->origin[k]);
                    v2 += vel * vel;
                    nv2 += f->end[k] * f->end[k];
                }
                off += sqrtf(d2) > 0.05f * sqrtf(v2) + 2;
                faster += sqrtf(nv2) > sqrtf(v2) + 1;
            }
            int slot = 0;
            while (slot < nl && last_ent[slot] != f->entity)
                slot++;
            if (slot == nl && nl < (int)(sizeof last / sizeof last[0]))
                nl++;
            if (slot < nl) {
                last[slot] = *f;
                last_ent[slot] = f->entity;
            }
        }
    }
    CHECK_MSG(pieces > 20 && follows > 10, "%d pieces, %d after a bounce", pieces, follows);
    CHECK_MSG(off == 0 && faster == 0, "%d of %d bounces off the path, %d faster", off,
              follows, faster);
    q3run_close(&r);
}

/* A capture-the-flag game (tests/data/fidelity/oa_ctf's demo, g_gametype 4 on oa_ctf4ish)
 * shows each team's flag base (cg_ents.c CG_TeamBase) under its flag: an entity of
 * models/mapobjects/flagbase/red_base.md3 and one of blue_base.md3, each within 64 units
 * of its team's flag item (models/flags/r_flag.md3, b_flag.md3) while that flag is home,
 * which it is in the demo's first snapshot (no capture yet: `capturelimit 0`, a fresh map). */
TEST(q3_ctf_flag_bases_under_the_flags)
{
    q3run r;
    CHECK(q3run_open_ours(&r, "tests/data/fidelity/oa_ctf/oa_ctf4ish_flaglook.dm_71"));
    int steps = 0, bases[2] = {0, 0}, near[2] = {0, 0};
    while (q3run_step(&r) && steps++ < 40) {
        const cl_level *l = &r.cl->level;
        const cl_entity *base[2] = {NULL, NULL}, *flag[2] = {NULL, NULL};
        for (int i = 0; i < r.cl->num_listed; i++) {
            const cl_entity *e = &r.cl->entities[r.cl->active_list[i]];
            if (!e->active || !e->cur.model || e->cur.model >= l->num_models)
                continue;
            const char *m = l->models[e->cur.model];
            for (int t = 0; t < 2; t++) {
                if (!strcmp(m, t ? "models/mapobjects/flagbase/blue_base.md3"
                                 : "models/mapobjects/flagbase/red_base.md3"))
                    base[t] = e;
                if (!strcmp(m, t ? "models/flags/b_flag.md3" : "models/flags/r_flag.md3"))
                    flag[t] = e;
            }
        }
        for (int t = 0; t < 2; t++) {
            bases[t] += base[t] != NULL;
            if (base[t] && flag[t]) {
                float d2 = 0;
                for (int j = 0; j < 3; j++) {
                    float d = base[t]->cur.origin[j] - flag[t]->cur.origin[j];
                    d2 += d * d;
                }
                near[t] += d2 < 64 * 64;
            }
        }
    }
    q3run_close(&r);
    CHECK_MSG(bases[0] > 0 && bases[1] > 0, "red base seen %d times, blue %d", bases[0], bases[1]);
    CHECK_MSG(near[0] > 0 && near[1] > 0, "red flag on its base %d times, blue %d", near[0],
              near[1]);
}
