/* test_facts_quake.c: neutral facts (issue #10) of real Quake and QuakeWorld demos against
 * values read by hand from `qdemo dump` of the base build (65edfc8); each dump line is quoted. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../src/client/cl.h"
#include "../../src/demo/demo.h"
#include "../../src/demo/quake_rules.h"
#include "../../src/timeline/timeline.h"
#include "../test.h"

/* The dump prints times to the millisecond: a state just after the printed time holds it. */
#define AT(t) ((t) + 0.0005)
#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 0.0006)

/* The timeline of a real demo (it owns the demo), NULL when the file is missing. */
static timeline_t *open_real(const char *rel)
{
    char path[1024];
    qd_error err;
    snprintf(path, sizeof path, "%s/%s", test_realdata(), rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fclose(f);
    demo_t *d = demo_open(path, &err);
    return d ? tl_open(d, 0, &err) : NULL;
}

/* How many events of kind at time t are in cl's ring; the last one in *out. */
static int events_at(const cl_state *cl, int kind, double t, const cl_event **out)
{
    int n = 0;
    uint32_t first = cl->event_count > CL_MAX_EVENTS ? cl->event_count - CL_MAX_EVENTS : 0;
    for (uint32_t i = first; i < cl->event_count; i++) {
        const cl_event *e = cl_event_get(cl, i);
        if (e && e->kind == kind && NEAR(e->time, t)) {
            n++;
            if (out)
                *out = e;
        }
    }
    return n;
}

TEST(facts_quake_dem)
{
    timeline_t *tl = open_real("dem/quake-from-memory_demo1.dem");
    if (!tl)
        SKIP("no realdata dem/quake-from-memory_demo1.dem");
    qd_error err;
    const cl_state *cl;
    const cl_event *e = NULL;

    /* 0.000 0 53 svc_serverinfo protocol=15 maxclients=1 multi=0 title="the Police"
     *   map="maps/e1m3.bsp" */
    cl = tl_state_at(tl, AT(0.0), &err);
    CHECK(cl);
    CHECK_EQ(events_at(cl, CL_EV_LEVEL, 0.0, &e), 1);
    CHECK_STR(e->text, "maps/e1m3.bsp the Police");
    /* 0.000 2 5830 svc_updatestat stat=12 value=35 (STAT_TOTALMONSTERS) */
    CHECK_EQ(cl->view_stats.monsters_total, 35);

    /* 3.832 263 22906 svc_clientdata ... items=0x1411 health=100 armor=0 ammo=5 weapon=16
     * 3.832 264 23013/23027/23045 svc_print "You got the " "Grenade Launcher" "" (the \n) */
    cl = tl_state_at(tl, AT(3.832), &err);
    CHECK(cl);
    const cl_stats *st = cl_stats_of(cl, -1);
    CHECK(st && (st->flags & CL_ST_VALID));
    CHECK_EQ(st->health, 100);
    CHECK_EQ(st->armor, 0);
    CHECK_EQ(st->armor_type, CL_ARMOR_NONE);
    CHECK_EQ(st->weapon, CL_WP_GRENADE_LAUNCHER);
    CHECK_EQ(st->ammo, 5);
    CHECK_EQ(st->ammo_type, CL_AMMO_ROCKETS);
    CHECK_EQ(st->weapons, (1u << CL_WP_MELEE) | (1u << CL_WP_SHOTGUN) |
                              (1u << CL_WP_GRENADE_LAUNCHER));
    CHECK_EQ(events_at(cl, CL_EV_PICKUP, 3.832, &e), 1);
    CHECK_EQ(e->actor, 0);
    CHECK_STR(e->text, "Grenade Launcher");

    /* 5.444 380 36010 svc_temp_entity type=3 ent=-1 origin=37.6,96.5,49.2
     * 5.444 381 36034/36035/36036 svc_killedmonster (the first three of the demo) */
    cl = tl_state_at(tl, AT(5.444), &err);
    CHECK(cl);
    CHECK_EQ(cl_stats_of(cl, -1)->monsters, 3);
    const cl_fxev *fx[64];
    int nfx = cl_fx_at(cl, AT(5.444), fx, 64), explosions = 0;
    for (int i = 0; i < nfx; i++)
        if (fx[i]->kind == CL_FXK_EXPLOSION && fabsf(fx[i]->origin[0] - 37.6f) < 0.1f &&
            fabsf(fx[i]->origin[1] - 96.5f) < 0.1f && fabsf(fx[i]->origin[2] - 49.2f) < 0.1f)
            explosions++;
    CHECK_EQ(explosions, 1);

    /* 0.347 26 7168 svc_sound ent=100 chan=2 sound=66 (ogre/ogidle.wav) */
    cl = tl_state_at(tl, AT(0.347), &err);
    CHECK(cl);
    int sounds = 0;
    uint32_t ns = cl->fxlog.sound_count < CL_SOUND_LOG ? cl->fxlog.sound_count : CL_SOUND_LOG;
    for (uint32_t i = 0; i < ns; i++) {
        const cl_sound *s = &cl->fxlog.sounds[i];
        if (NEAR(s->t0, 0.347) && s->entity == 100 && s->channel == 2 && s->sound == 66)
            sounds++;
    }
    CHECK_EQ(sounds, 1);

    /* 21.088 1509 301873 svc_clientdata ... items=0x1215 ... ammo=30 weapon=4 (IT_NAILGUN)
     * 21.088 1510 302044/302058 svc_print "You got the " "Nailgun" */
    cl = tl_state_at(tl, AT(21.088), &err);
    CHECK(cl);
    st = cl_stats_of(cl, -1);
    CHECK_EQ(st->weapon, CL_WP_NAILGUN);
    CHECK_EQ(st->ammo, 30);
    CHECK_EQ(st->ammo_type, CL_AMMO_BULLETS);
    CHECK_EQ(events_at(cl, CL_EV_PICKUP, 21.088, &e), 1);
    CHECK_STR(e->text, "Nailgun");

    /* 45.731 3174 558462..558487 svc_print "You get " "2" " rockets  " "" */
    cl = tl_state_at(tl, AT(45.731), &err);
    CHECK(cl);
    CHECK_EQ(events_at(cl, CL_EV_PICKUP, 45.731, &e), 1);
    CHECK_STR(e->text, "2 rockets");

    /* 50.986 3501 602674 svc_centerprint text="You need the gold key" */
    cl = tl_state_at(tl, AT(50.986), &err);
    CHECK(cl);
    CHECK_EQ(events_at(cl, CL_EV_CENTER, 50.986, &e), 1);
    CHECK_STR(e->text, "You need the gold key");

    /* 58.132 3970 664690 svc_clientdata ... items=0x1115; 58.201 3975 665355 ...
     * items=0x41115 (IT_KEY2, the gold key) */
    cl = tl_state_at(tl, AT(58.132), &err);
    CHECK(cl);
    CHECK_EQ(cl_stats_of(cl, -1)->items & CL_IT_KEY_GOLD, 0);
    cl = tl_state_at(tl, AT(58.201), &err);
    CHECK(cl);
    CHECK_EQ(cl_stats_of(cl, -1)->items, CL_IT_KEY_GOLD);

    /* Single player, no obituary lines: no frag or death event in the whole demo. */
    cl = tl_state_at(tl, tl_end(tl), &err);
    CHECK(cl);
    for (uint32_t i = 0; i < cl->event_count; i++) {
        const cl_event *ev = cl_event_get(cl, i);
        CHECK(!ev || ev->kind != CL_EV_FRAG);
    }
    tl_close(tl);
}

TEST(facts_quakeworld_mvd)
{
    timeline_t *tl = open_real("mvd/mvdparser_duel_equ_vs_kaboom_povdmm4_20240422-1038.mvd");
    if (!tl)
        SKIP("no realdata duel .mvd");
    qd_error err;
    const cl_state *cl;
    const cl_event *e = NULL;

    /* 0.000 7 3879 svc_updateping player=0 value=25
     * 0.000 7 3892 svc_updateuserinfo player=0 ... bottomcolor\\4\\topcolor\\4\\team\\red\\
     *   name\\eQu (no skin key: "base")
     * 0.000 7 3986 svc_updateuserinfo player=1 ... *spectator\\1 ... name\\[ServeMe] */
    cl = tl_state_at(tl, AT(0.0), &err);
    CHECK(cl);
    CHECK_STR(cl->players[0].name, "eQu");
    CHECK_EQ(cl->players[0].team, CL_TEAM_RED);
    CHECK_EQ(cl->players[0].top, 4);
    CHECK_EQ(cl->players[0].bottom, 4);
    CHECK_STR(cl->players[0].model, "player");
    CHECK_STR(cl->players[0].skin, "base");
    CHECK_EQ(cl->players[0].ping, 25);
    CHECK_STR(cl->players[1].name, "[ServeMe]");
    CHECK(cl->players[1].spectator);

    /* 10.156 1323 33181 svc_print level=2 text="Protection is almost burned out\n": none */
    cl = tl_state_at(tl, AT(10.156), &err);
    CHECK(cl);
    for (int k = 0; k < CL_EV_KINDS; k++)
        CHECK_EQ(events_at(cl, k, 10.156, NULL), 0);

    /* 14.313 2024 49419 svc_print level=1 text="Kab\xcf\xcfm accepts eQu's shaft\n"
     * 14.313 2024 49489 svc_updatefrags player=0 frags=1 */
    cl = tl_state_at(tl, AT(14.313), &err);
    CHECK(cl);
    CHECK_EQ(events_at(cl, CL_EV_FRAG, 14.313, &e), 1);
    CHECK_EQ(e->actor, 0);
    CHECK_EQ(e->target, 2);
    CHECK_EQ(e->means, CL_MOD_WEAPON);
    CHECK_EQ(e->weapon, CL_WP_LIGHTNING);
    CHECK_EQ(cl->players[0].frags, 1);
    CHECK(cl->players[0].has_stats);
    CHECK_EQ(cl_stats_of(cl, 0)->score, 1);

    /* 34.793 5114 123941 level=1 "eQu was gibbed by Kab\xcf\xcfm's rocket" */
    cl = tl_state_at(tl, AT(34.793), &err);
    CHECK(cl);
    CHECK_EQ(events_at(cl, CL_EV_FRAG, 34.793, &e), 1);
    CHECK_EQ(e->actor, 2);
    CHECK_EQ(e->target, 0);
    CHECK_EQ(e->weapon, CL_WP_ROCKET_LAUNCHER);

    /* 35.943 5265 130548 level=1 "Kab\xcf\xcfm rides eQu's rocket" */
    cl = tl_state_at(tl, AT(35.943), &err);
    CHECK(cl);
    CHECK_EQ(events_at(cl, CL_EV_FRAG, 35.943, &e), 1);
    CHECK_EQ(e->actor, 0);
    CHECK_EQ(e->target, 2);
    CHECK_EQ(e->weapon, CL_WP_ROCKET_LAUNCHER);

    /* 62.333 9210 236909 level=1 "eQu becomes bored with life": a suicide */
    cl = tl_state_at(tl, AT(62.333), &err);
    CHECK(cl);
    CHECK_EQ(events_at(cl, CL_EV_FRAG, 62.333, &e), 1);
    CHECK_EQ(e->actor, -1);
    CHECK_EQ(e->target, 0);
    CHECK(e->flags & CL_EVF_SUICIDE);

    /* The dump's 43 level=1 lines are all obituaries: 20 "Kab..m accepts eQu's shaft", 1
     * "Kab..m rides eQu's rocket" (Kaboom dies 21 times); 15 "eQu accepts Kab..m's shaft",
     * 2 "eQu rides ...", 3 "eQu was gibbed by ...", 2 suicides (eQu dies 22 times). */
    cl = tl_state_at(tl, tl_end(tl), &err);
    CHECK(cl);
    CHECK_EQ(cl->players[0].deaths, 22);
    CHECK_EQ(cl->players[2].deaths, 21);
    tl_close(tl);
}

/* The matcher takes the players' names as sent (spaces, high-bit characters) and no phrase
 * from a name that is not a player's. */
TEST(facts_quake_obituary_names)
{
    static cl_state cl;
    cl_reset(&cl);
    cl_level_begin(&cl, CL_GAME_QW, 28, 32, "");
    cl_set_player_name(&cl, 3, "a b");
    cl_set_player_name(&cl, 5, "a b c");
    cl_set_player_name(&cl, 7, "\xcf\xcf");
    cl_event ev;
    CHECK(qr_obituary(&cl, "a b c was nailed by \xcf\xcf\n", &ev));
    CHECK_EQ(ev.target, 5);
    CHECK_EQ(ev.actor, 7);
    CHECK_EQ(ev.weapon, CL_WP_NAILGUN);
    CHECK(qr_obituary(&cl, "\xcf\xcf ate 2 loads of a b's buckshot", &ev));
    CHECK_EQ(ev.target, 7);
    CHECK_EQ(ev.actor, 3);
    CHECK(!qr_obituary(&cl, "zed was nailed by a b", &ev));
    CHECK(!qr_obituary(&cl, "a b was nailed by zed", &ev));
    /* the space a print ending "\n " leaves before the next line (overkill.mvd at 34.406 s
     * and 102.015 s: "...electrocutes himself.\n " then an obituary) */
    CHECK(qr_obituary(&cl, " a b c was gibbed by \xcf\xcf's rocket\n", &ev));
    CHECK_EQ(ev.target, 5);
    CHECK_EQ(ev.actor, 7);
    /* the review's quick tests before the names (a template's head, tail, least length and
     * its text between): a head before the first name, a teammate's telefrag taken by its
     * own template (not "by %k" with the name "a b's teammate"), a name that is itself
     * another template's text, a line one byte short of its template */
    CHECK(qr_obituary(&cl, "Satan's power deflects a b's telefrag", &ev));
    CHECK_EQ(ev.target, 3);
    CHECK(qr_obituary(&cl, "a b c was telefragged by a b's teammate", &ev));
    CHECK(ev.target == 5 && ev.actor == 3 && (ev.flags & CL_EVF_TEAMKILL));
    cl_set_player_name(&cl, 9, "x died");
    CHECK(qr_obituary(&cl, "x died died", &ev));
    CHECK_EQ(ev.target, 9);
    CHECK(!qr_obituary(&cl, "a b die", &ev));
    CHECK(!qr_obituary(&cl, "a b was nailed by", &ev));
    CHECK(qr_chat(&cl, "(a b c): go quad", &ev));
    CHECK_EQ(ev.actor, 5);
    CHECK(ev.flags & CL_EVF_TEAM);
    CHECK_STR(ev.text, "go quad");
}

/* A spectator's recording has no health of its own: spectator, not dead. */
TEST(facts_quakeworld_qwd_spectator)
{
    timeline_t *tl = open_real("qwd/paradoks81-quakeworld_slipgate-app_bps.qwd");
    if (!tl)
        SKIP("no realdata .qwd");
    qd_error err;
    /* 0.000 0 17 svc_serverdata protocol=28 ... player=0 spectator=1 title="HUD testing by bps"
     * 0.000 51 37388 svc_updatestat stat=16 value=22 (the first stat: stats are filled) */
    const cl_state *cl = tl_state_at(tl, AT(0.0), &err);
    CHECK(cl);
    const cl_stats *st = cl_stats_of(cl, -1);
    CHECK(st && (st->flags & CL_ST_VALID));
    CHECK(st->flags & CL_ST_SPECTATOR);
    CHECK(!(st->flags & CL_ST_DEAD));
    tl_close(tl);
}

/* A mod (vektar_demo1.dem) holds the shotgun without its item bit: it is still owned. */
TEST(facts_quake_held_weapon_is_owned)
{
    timeline_t *tl = open_real("dem/vektar_demo1.dem");
    if (!tl)
        SKIP("no realdata dem/vektar_demo1.dem");
    qd_error err;
    /* 78.342 4785 270098 svc_clientdata bits=0x4600 ... items=0x100 health=100 armor=0
     *   ammo=25 weapon=1 (IT_SHOTGUN active; items only IT_SHELLS) */
    const cl_state *cl = tl_state_at(tl, AT(78.342), &err);
    CHECK(cl);
    const cl_stats *st = cl_stats_of(cl, -1);
    CHECK_EQ(st->weapon, CL_WP_SHOTGUN);
    CHECK_EQ(st->ammo_type, CL_AMMO_SHELLS);
    CHECK_EQ(st->weapons, 1u << CL_WP_SHOTGUN);
    tl_close(tl);
}
