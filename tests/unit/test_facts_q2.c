/* test_facts_q2.c: the neutral client facts of a real Quake II demo (issue #10, plan 11),
 * each expected value read by hand from `qdemo dump` of the base build (65edfc8) of
 * dm2/libq2_testdata_testduel.dm2 (recorder player=2, claire), the dump line cited. */
#include <math.h>
#include <stdlib.h>

#include "../../src/demo/demo.h"
#include "../../src/demo/q2_rules.h"
#include "../test.h"

#define MAX_SEEN 4096

/* Everything the decode added, collected step by step (the rings are bounded). */
typedef struct seen {
    cl_event ev[MAX_SEEN];
    int n_ev;
    cl_fxev fx[MAX_SEEN];
    int n_fx;
    cl_sound snd[MAX_SEEN];
    int n_snd;
    /* the view and the view's stats when a frame at these times closed */
    cl_stats st_at[8];
    cl_view view_at[8];
    int have_at[8];
    cl_player players[4]; /* at 36 s */
    int view_player, done;
} seen;

static const double probe_t[8] = {35.7, 104.7, 104.8, 105.9, 224.3, 314.8, 0, 0};

static int near(double a, double b) { return fabs(a - b) < 0.001; }

/* testduel opened into *d with a fresh client state *cl: 1, 0 when the file is missing, -1
 * on an error (nothing left open). */
static int open_duel(demo_t **d, cl_state **cl)
{
    char path[1024];
    *d = NULL;
    *cl = NULL;
    if (!test_realfile(path, sizeof path, "dm2/libq2_testdata_testduel.dm2"))
        return 0;
    qd_error err;
    *d = demo_open(path, &err);
    *cl = malloc(sizeof **cl);
    if (!*d || !*cl) {
        demo_close(*d);
        free(*cl);
        return -1;
    }
    cl_reset(*cl);
    return 1;
}

static int decode(seen *sn)
{
    demo_t *d;
    cl_state *cl;
    int opened = open_duel(&d, &cl);
    if (opened <= 0)
        return opened;
    qd_error err;
    uint32_t ev0 = 0, fx0 = 0, snd0 = 0;
    int done = 0;
    while (!done && demo_step(d, cl, NULL, &done, &err) == QD_OK) {
        for (; ev0 < cl->event_count; ev0++)
            if (sn->n_ev < MAX_SEEN && cl_event_get(cl, ev0))
                sn->ev[sn->n_ev++] = *cl_event_get(cl, ev0);
        for (; fx0 < cl->fxlog.fx_count; fx0++)
            if (sn->n_fx < MAX_SEEN)
                sn->fx[sn->n_fx++] = cl->fxlog.fx[fx0 % CL_FX_LOG];
        for (; snd0 < cl->fxlog.sound_count; snd0++)
            if (sn->n_snd < MAX_SEEN)
                sn->snd[sn->n_snd++] = cl->fxlog.sounds[snd0 % CL_SOUND_LOG];
        for (int i = 0; i < 8; i++)
            if (probe_t[i] > 0 && !cl->in_frame && near(cl->time, probe_t[i])) {
                sn->st_at[i] = *cl_stats_of(cl, -1);
                sn->view_at[i] = cl->view;
                sn->have_at[i] = 1;
            }
        if (cl->time > 36 && cl->time < 36.2) {
            memcpy(sn->players, cl->players, sizeof sn->players);
            sn->view_player = cl_view_player(cl);
        }
    }
    sn->done = done;
    demo_close(d);
    free(cl);
    return 1;
}

static const cl_event *find_event(const seen *sn, int kind, double t)
{
    for (int i = 0; i < sn->n_ev; i++)
        if (sn->ev[i].kind == kind && near(sn->ev[i].time, t))
            return &sn->ev[i];
    return NULL;
}

TEST(facts_q2_testduel)
{
    seen *sn = calloc(1, sizeof *sn);
    CHECK(sn);
    int r = decode(sn);
    if (r == 0) {
        free(sn);
        SKIP("libq2_testdata_testduel.dm2 missing");
    }
    CHECK_EQ(r, 1);

    CHECK(sn->done);
    /* 0.000 3 5459 svc_configstring index=1313 string="shloo\\male/grunt", index=1314
     * "claire\\female/athena"; 0.000 0 ... svc_serverdata ... player=2 */
    CHECK_STR(sn->players[1].name, "shloo");
    CHECK_STR(sn->players[1].model, "male");
    CHECK_STR(sn->players[1].skin, "grunt");
    CHECK_STR(sn->players[2].name, "claire");
    CHECK_STR(sn->players[2].model, "female");
    CHECK_STR(sn->players[2].skin, "athena");
    CHECK_EQ(sn->view_player, 2);

    /* obituaries (level-1 prints):
     * 35.600 362 33984 svc_print level=1 text="shloo was railed by claire\n"
     * 57.500 581 52912 svc_print level=1 text="shloo almost dodged claire's rocket\n"
     * 104.700 1053 98214 svc_print level=1 text="claire was cut in half by shloo's chaingun\n" */
    static const struct { double t; int actor, target, means, weapon; } frag[] = {
        {35.6, 2, 1, CL_MOD_WEAPON, CL_WP_RAILGUN},
        {57.5, 2, 1, CL_MOD_SPLASH, CL_WP_ROCKET_LAUNCHER},
        {104.7, 1, 2, CL_MOD_WEAPON, CL_WP_CHAINGUN},
    };
    for (size_t i = 0; i < sizeof frag / sizeof frag[0]; i++) {
        const cl_event *e = find_event(sn, CL_EV_FRAG, frag[i].t);
        CHECK_MSG(e, "no frag at %.1f", frag[i].t);
        if (e)
            CHECK_MSG(e->actor == frag[i].actor && e->target == frag[i].target &&
                          e->means == frag[i].means && e->weapon == frag[i].weapon,
                      "frag at %.1f: %d %d %d %d", frag[i].t, e->actor, e->target, e->means,
                      e->weapon);
    }
    /* 143.500 1441 134028 level=1 "\x90anticheat\x91 DirkNight is not using anticheat.\n":
     * a level-1 print that is no obituary. The dump's level-1 lines are 7, 6 of them
     * obituaries (35.6, 57.5, 104.7, 136.4, 224.2, 273.9). */
    int frags = 0;
    for (int i = 0; i < sn->n_ev; i++)
        frags += sn->ev[i].kind == CL_EV_FRAG;
    CHECK_EQ(frags, 6);
    CHECK(!find_event(sn, CL_EV_FRAG, 143.5));

    /* 7.800 84 12919 svc_print level=3 text="lolek?-papuga: german, packetflinger where is
     * purri now\n"; index=1315 "lolek?-papuga\\male/grunt" */
    const cl_event *e = find_event(sn, CL_EV_CHAT, 7.8);
    CHECK(e);
    if (e) {
        CHECK_EQ(e->actor, 3);
        CHECK_STR(e->text, "german, packetflinger where is purri now");
    }
    /* 319.700 3203 276426 level=3 "Please report issues at ...": no player's name: no chat */
    CHECK(!find_event(sn, CL_EV_CHAT, 319.7));

    /* pickups: STAT_PICKUP_STRING (statbits bit 8) changes with a pickup sound on claire's
     * entity 3, channel 3 (CHAN_ITEM):
     * 18.900 194 21823 svc_playerinfo ... statbits=0x004011c0, 18.900 194 21894 svc_sound
     * sound=2 ... ent=3 chan=3 (index=290 "misc/w_pkup.wav": a weapon, the railgun she
     * rails shloo with at 35.6; index=1072 "Railgun");
     * 31.300 318 30318 svc_playerinfo ... statbits=0x08200180, 31.300 318 30387 svc_sound
     * sound=32 ... ent=3 chan=3 (index=320 "misc/am_pkup.wav": ammo; index=1077 "Rockets") */
    static const struct { double t; const char *item; } pick[] = {{18.9, "Railgun"},
                                                                   {31.3, "Rockets"}};
    for (size_t i = 0; i < sizeof pick / sizeof pick[0]; i++) {
        e = find_event(sn, CL_EV_PICKUP, pick[i].t);
        CHECK_MSG(e, "no pickup at %.1f", pick[i].t);
        if (e) {
            CHECK_EQ(e->actor, 2);
            CHECK_STR(e->text, pick[i].item);
        }
    }

    /* 314.800 3153 274947 svc_playerinfo ... pm_type=4 (PM_FREEZE): the intermission */
    CHECK(find_event(sn, CL_EV_INTERMISSION, 314.8));
    int inter = 0;
    for (int i = 0; i < sn->n_ev; i++)
        inter += sn->ev[i].kind == CL_EV_INTERMISSION;
    CHECK_EQ(inter, 1);

    /* 104.800 1053 98868 svc_playerinfo ... pm_type=2 (PM_DEAD) */
    CHECK(sn->have_at[2]);
    CHECK_EQ(sn->view_at[2].dead, 1);
    CHECK(sn->st_at[2].flags & CL_ST_DEAD);
    /* 105.900 1064 100416 svc_playerinfo ... pm_type=0: alive again */
    CHECK(sn->have_at[3]);
    CHECK_EQ(sn->view_at[3].dead, 0);
    CHECK(!(sn->st_at[3].flags & CL_ST_DEAD));
    /* 224.300 2248 196070 svc_playerinfo ... pm_type=3 (PM_GIB) */
    CHECK(sn->have_at[4]);
    CHECK_EQ(sn->view_at[4].gibbed, 1);
    CHECK(sn->st_at[4].flags & CL_ST_GIBBED);

    /* 104.700 1053 98260 svc_layout "... claire 2 1 ...": STAT_FRAGS 2; 314.700 3153 274911
     * svc_print "claire wins, 4 to 2.\n": 4 at 314.8 */
    CHECK(sn->have_at[1]);
    CHECK_EQ(sn->st_at[1].score, 2);
    CHECK(sn->have_at[5]);
    CHECK_EQ(sn->st_at[5].score, 4);

    /* 35.700 362 34255 svc_muzzleflash ent=3 value=6: claire (slot 2, entity 3) fires
     * MZ_RAILGUN (6, q_shared.h), so the view's weapon is the railgun and its ammo slugs;
     * the HUD's health is STAT_HEALTH, not slot 0 (STAT_HEALTH_ICON, an image index: 2,
     * "i_health" at 0.000 3 4340 index=546); alive, at most 250 (megahealth over 100) */
    CHECK(sn->have_at[0]);
    CHECK_EQ(sn->st_at[0].weapon, CL_WP_RAILGUN);
    CHECK_EQ(sn->st_at[0].ammo_type, CL_AMMO_SLUGS);
    CHECK_MSG(sn->st_at[0].health >= 1 && sn->st_at[0].health <= 250, "health %d",
              sn->st_at[0].health);
    CHECK(sn->st_at[0].health != 2);

    /* 35.700 362 34241 svc_temp_entity type=3 ... origin=191.9,333.2,70.1
     * end=172.1,847.9,164.4 (TE_RAILTRAIL) */
    int rail = 0, muzzle = 0, sound = 0;
    for (int i = 0; i < sn->n_fx; i++) {
        const cl_fxev *f = &sn->fx[i];
        if (f->kind == CL_FXK_BEAM_RAIL && near(f->t0, 35.7) && fabsf(f->origin[0] - 191.9f) < 0.1f &&
            fabsf(f->origin[1] - 333.2f) < 0.1f && fabsf(f->origin[2] - 70.1f) < 0.1f &&
            fabsf(f->end[0] - 172.1f) < 0.1f && fabsf(f->end[1] - 847.9f) < 0.1f &&
            fabsf(f->end[2] - 164.4f) < 0.1f)
            rail++;
        if (f->kind == CL_FXK_MUZZLE && near(f->t0, 35.7) && f->entity == 3 && f->style == 6)
            muzzle++;
    }
    CHECK_EQ(rail, 1);
    CHECK_EQ(muzzle, 1);
    /* 35.700 362 34236 svc_sound sound=9 vol=255 attn=64 ofs=0 ent=2 chan=4 */
    for (int i = 0; i < sn->n_snd; i++) {
        const cl_sound *s = &sn->snd[i];
        if (near(s->t0, 35.7) && s->sound == 9 && s->entity == 2 && s->channel == 4 &&
            s->volume == 255 && s->attenuation == 64 && !s->has_origin)
            sound++;
    }
    CHECK_EQ(sound, 1);
    free(sn);
}

/* The obituary matcher on lines built here: names with spaces and prefixes of each other,
 * a killer that is no player, suicides ending in ".". */
/* ---- the sounds the client starts itself ---- */

/* A sound start of testduel by name. */
typedef struct heard {
    char name[CL_NAME_LEN];
    double t0;
    int entity, channel, volume, attenuation, has_origin;
} heard;

/* Every sound start of testduel into a new array (*n of them); 0 when the file is missing,
 * -1 on an error. */
static int decode_heard(heard **out, int *n)
{
    *out = NULL;
    *n = 0;
    demo_t *d;
    cl_state *cl;
    int opened = open_duel(&d, &cl);
    if (opened <= 0)
        return opened;
    int cap = 1 << 15;
    heard *h = calloc((size_t)cap, sizeof *h);
    if (!h) {
        demo_close(d);
        free(cl);
        return -1;
    }
    qd_error err;
    uint32_t snd0 = 0;
    int done = 0;
    while (!done && demo_step(d, cl, NULL, &done, &err) == QD_OK)
        for (; snd0 < cl->fxlog.sound_count; snd0++) {
            const cl_sound *s = &cl->fxlog.sounds[snd0 % CL_SOUND_LOG];
            if (*n >= cap || s->sound >= CL_MAX_SOUNDS)
                continue;
            heard *e = &h[(*n)++];
            snprintf(e->name, sizeof e->name, "%s", cl->level.sounds[s->sound]);
            e->t0 = s->t0;
            e->entity = s->entity;
            e->channel = s->channel;
            e->volume = s->volume;
            e->attenuation = s->attenuation;
            e->has_origin = s->has_origin;
        }
    demo_close(d);
    free(cl);
    *out = h;
    return done ? 1 : -1;
}

/* Declares h and n, every start of testduel (freed by the test); skips when it is missing. */
#define HEARD(h, n)                                                                        \
    heard *h;                                                                              \
    int n;                                                                                 \
    do {                                                                                   \
        int r_ = decode_heard(&h, &n);                                                     \
        if (r_ == 0)                                                                       \
            SKIP("libq2_testdata_testduel.dm2 missing");                                   \
        CHECK_EQ(r_, 1);                                                                   \
    } while (0)

/* How many starts are named name (prefix: a name starting so). */
static int count_heard(const heard *h, int n, const char *name, int prefix)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += prefix ? !strncmp(h[i].name, name, strlen(name)) : !strcmp(h[i].name, name);
    return k;
}

static const heard *find_heard(const heard *h, int n, const char *name, double t0)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(h[i].name, name) && fabs(h[i].t0 - t0) < 1e-6)
            return &h[i];
    return NULL;
}

/* Weapon fire: the file's svc_muzzleflash (review-snd q2duel.txt, `qdemo dump`: 1 value=0
 * MZ_BLASTER, 5 =1 MZ_MACHINEGUN, 48 =3 CHAINGUN1, 46 =4 CHAINGUN2, 225 =5 CHAINGUN3, 21 =6
 * RAILGUN, 54 =7 ROCKET) each start cl_fx.c CL_ParseMuzzleFlash's sounds: one machgf?b per
 * MZ_MACHINEGUN and CHAINGUN1, two per CHAINGUN2, three per CHAINGUN3 (5 + 48 + 92 + 675),
 * rocklf1a and rocklr1b per rocket. "49.700 502 46504 svc_muzzleflash ent=3 value=7". */
TEST(facts_q2_testduel_weapon_fire_sounds)
{
    HEARD(h, n);
    CHECK_EQ(count_heard(h, n, "weapons/blastf1a.wav", 0), 1);
    CHECK_EQ(count_heard(h, n, "weapons/machgf", 1), 5 + 48 + 92 + 675);
    CHECK_EQ(count_heard(h, n, "weapons/rocklf1a.wav", 0), 54);
    CHECK_EQ(count_heard(h, n, "weapons/rocklr1b.wav", 0), 54);
    const heard *fire = find_heard(h, n, "weapons/rocklf1a.wav", 49.7);
    const heard *tail = find_heard(h, n, "weapons/rocklr1b.wav", 49.8);
    CHECK(fire && tail);
    if (fire && tail)
        CHECK(fire->entity == 3 && fire->channel == 1 && tail->entity == 3 && !tail->channel);
    free(h);
}

/* Temp entities: the file's (q2duel.txt) 59 TE_ROCKET_EXPLOSION (type=7), 3
 * TE_GRENADE_EXPLOSION (8), 1 TE_BLASTER (2) and 21 TE_RAILTRAIL (3) each start cl_tent.c
 * CL_ParseTEnt's sound: rocklx1a, grenlx1a, lashit, and railgf1a at the trail's end (21
 * more railgf1a come from the 21 MZ_RAILGUN flashes); its 698 TE_GUNSHOT (0) and 57
 * TE_BULLET_SPARKS (14) ricochet 3 times in 16 (rand() & 15), about 142; its 36 TE_SPLASH
 * are water (style=2): silent. "50.500 510 47121 svc_temp_entity type=7 ent=-1
 * origin=637.6,433.5,68.0", "23.500 240 25432 svc_temp_entity type=3 ...
 * end=1151.9,349.0,164.2". */
TEST(facts_q2_testduel_temp_entity_sounds)
{
    HEARD(h, n);
    CHECK_EQ(count_heard(h, n, "weapons/rocklx1a.wav", 0), 59);
    CHECK_EQ(count_heard(h, n, "weapons/grenlx1a.wav", 0), 3);
    CHECK_EQ(count_heard(h, n, "weapons/lashit.wav", 0), 1);
    CHECK_EQ(count_heard(h, n, "weapons/railgf1a.wav", 0), 42);
    CHECK_EQ(count_heard(h, n, "world/spark", 1), 0);
    int ric = count_heard(h, n, "world/ric", 1);
    CHECK_MSG(ric > 100 && ric < 190, "%d ricochets", ric);
    const heard *boom = find_heard(h, n, "weapons/rocklx1a.wav", 50.5);
    CHECK(boom && boom->has_origin && boom->entity == -1 && boom->attenuation == 64);
    int rail_end = 0;
    for (int i = 0; i < n; i++)
        rail_end += !strcmp(h[i].name, "weapons/railgf1a.wav") && h[i].has_origin &&
                    fabs(h[i].t0 - 23.5) < 1e-6;
    CHECK_EQ(rail_end, 1);
    free(h);
}

/* Footsteps: the players' EV_FOOTSTEP start cl_fx.c CL_EntityEvent's player/step1..4.wav
 * (rand() & 3) on CHAN_BODY (4) on a player's entity (2 or 3: shloo and claire, the
 * CS_PLAYERSKINS 1313 and 1314 of `qdemo dump`); all four are heard. */
TEST(facts_q2_testduel_footsteps)
{
    HEARD(h, n);
    int each[4] = {0, 0, 0, 0}, all = 0;
    for (int i = 0; i < n; i++)
        if (!strncmp(h[i].name, "player/step", 11)) {
            all++;
            int k = h[i].name[11] - '1';
            if (k >= 0 && k < 4)
                each[k]++;
            CHECK(h[i].channel == 4 && (h[i].entity == 2 || h[i].entity == 3));
        }
    CHECK(all > 100);
    for (int k = 0; k < 4; k++)
        CHECK_MSG(each[k] > all / 8, "step%d.wav %d of %d", k + 1, each[k], all);
    free(h);
}

/* Player sounds by model: "0.000 2 4094 svc_configstring index=352 string="*jump1.wav""
 * (sound 64), started 118 times on entity 2 (shloo, "shloo\\male/grunt") and 97 on entity 3
 * (claire, "claire\\female/athena", configstring 1314): snd_dma.c S_RegisterSexedSound
 * names them #players/male/jump1.wav and #players/female/jump1.wav. */
TEST(facts_q2_testduel_sexed_sounds)
{
    HEARD(h, n);
    int male = 0, female = 0;
    for (int i = 0; i < n; i++) {
        male += !strcmp(h[i].name, "#players/male/jump1.wav") && h[i].entity == 2;
        female += !strcmp(h[i].name, "#players/female/jump1.wav") && h[i].entity == 3;
    }
    CHECK_EQ(male, 118);
    CHECK_EQ(female, 97);
    CHECK_EQ(count_heard(h, n, "*jump1.wav", 0), 0);
    free(h);
}

TEST(facts_q2_obituary_templates)
{
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    cl_reset(cl);
    cl_set_player_name(cl, 0, "ab");
    cl_set_player_name(cl, 1, "ab cd");
    cl_set_player_name(cl, 2, "was");
    cl_event ev;
    CHECK(q2_obituary(cl, "ab cd was railed by was\n", &ev));
    CHECK_EQ(ev.target, 1);
    CHECK_EQ(ev.actor, 2);
    CHECK(q2_obituary(cl, "was ate ab's rocket\n", &ev));
    CHECK_EQ(ev.target, 2);
    CHECK_EQ(ev.actor, 0);
    CHECK_EQ(ev.weapon, CL_WP_ROCKET_LAUNCHER);
    CHECK(q2_obituary(cl, "ab cratered.\n", &ev));
    CHECK_EQ(ev.means, CL_MOD_FALL);
    CHECK_EQ(ev.actor, -1);
    CHECK(q2_obituary(cl, "ab blew herself up.\n", &ev));
    CHECK_EQ(ev.means, CL_MOD_SPLASH);
    CHECK(!q2_obituary(cl, "ab was railed by nobody\n", &ev));
    CHECK(!q2_obituary(cl, "ab cratered\n", &ev));
    CHECK(!q2_obituary(cl, "zz was railed by ab\n", &ev));
    CHECK(!q2_obituary(cl, "", &ev));
    CHECK(q2_chat(cl, "(ab cd): go\n", &ev));
    CHECK_EQ(ev.actor, 1);
    CHECK(ev.flags & CL_EVF_TEAM);
    CHECK_STR(ev.text, "go");
    CHECK(!q2_chat(cl, "ab", &ev));
    free(cl);
}
