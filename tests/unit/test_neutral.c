/* test_neutral.c: the neutral client facts of issue #10 (events, effects log, stats, camera
 * conventions) and the timeline keeping effects equal after a seek, via a fake decoder. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/client/cl.h"
#include "../../src/demo/quake_rules.h"
#include "../../src/timeline/timeline.h"
#include "../test.h"

static cl_state *new_state(cl_game game)
{
    cl_state *cl = malloc(sizeof *cl);
    if (cl) {
        cl_reset(cl);
        if (game != CL_GAME_NONE)
            cl_level_begin(cl, game, 0, 16, "test");
    }
    return cl;
}

TEST(neutral_layout)
{
    /* the sizes plan 2.3-2.6 budgets (cl_stats grew by the view weapon's model and frame,
     * 4 bytes, for issue #12), and the effects log last: a keyframe is all before it */
    CHECK_EQ(sizeof(cl_stats), 84);
    CHECK_EQ(sizeof(cl_event), 96);
    CHECK_EQ(sizeof(cl_fxev), 48);
    CHECK_EQ(sizeof(cl_sound), 32);
    CHECK_EQ(CL_KEYFRAME_BYTES, offsetof(cl_state, fxlog));
    CHECK(sizeof(cl_state) - CL_KEYFRAME_BYTES < sizeof(cl_fxlog) + 8);
    CHECK(CL_WP_COUNT <= 32); /* cl_stats.weapons is a 32-bit mask */
}

TEST(neutral_event_ring)
{
    cl_state *cl = new_state(CL_GAME_QW);
    CHECK(cl);
    for (int i = 0; i < 40; i++) {
        cl_frame_begin(cl, 1.0 + i);
        cl_event e;
        memset(&e, 0, sizeof e);
        e.kind = CL_EV_CHAT;
        e.actor = (int8_t)(i % 8);
        e.target = -1;
        snprintf(e.text, sizeof e.text, "line %d", i);
        cl_event_add(cl, &e);
        cl_frame_end(cl, 0);
    }
    CHECK_EQ(cl->event_count, 40);
    /* 40 added, 32 kept: numbers 8..39, oldest first, stamped with their frame's time */
    CHECK(cl_event_get(cl, 0) == NULL);
    CHECK(cl_event_get(cl, 7) == NULL);
    CHECK(cl_event_get(cl, 40) == NULL);
    for (uint32_t i = 8; i < 40; i++) {
        const cl_event *e = cl_event_get(cl, i);
        CHECK(e != NULL);
        char want[16];
        snprintf(want, sizeof want, "line %u", i);
        CHECK_STR(e->text, want);
        CHECK(e->time == 1.0 + i);
        CHECK_EQ(e->actor, (int)(i % 8));
    }
    /* frags: deaths counted for the victim; no killer or the victim itself is a suicide */
    cl_event f;
    memset(&f, 0, sizeof f);
    f.kind = CL_EV_FRAG;
    f.means = CL_MOD_WEAPON;
    f.weapon = CL_WP_LIGHTNING;
    f.actor = 0;
    f.target = 2;
    cl_event_add(cl, &f);
    CHECK_EQ(cl->players[2].deaths, 1);
    CHECK_EQ(cl_event_get(cl, 40)->flags & CL_EVF_SUICIDE, 0);
    CHECK_EQ(cl_event_get(cl, 40)->actor, 0);
    f.actor = 2; /* killed himself */
    cl_event_add(cl, &f);
    CHECK_EQ(cl->players[2].deaths, 2);
    CHECK_EQ(cl_event_get(cl, 41)->flags & CL_EVF_SUICIDE, CL_EVF_SUICIDE);
    CHECK_EQ(cl_event_get(cl, 41)->actor, -1);
    f.actor = -1; /* the world (lava) */
    f.means = CL_MOD_LAVA;
    cl_event_add(cl, &f);
    CHECK_EQ(cl->players[2].deaths, 3);
    CHECK_EQ(cl_event_get(cl, 42)->flags & CL_EVF_SUICIDE, CL_EVF_SUICIDE);
    f.target = -1; /* an unknown victim counts nobody */
    cl_event_add(cl, &f);
    CHECK_EQ(cl->players[2].deaths, 3);
    /* an unterminated text is cut to 79 bytes */
    memset(&f, 0, sizeof f);
    f.kind = CL_EV_CENTER;
    memset(f.text, 'x', sizeof f.text);
    cl_event_add(cl, &f);
    CHECK_EQ(strlen(cl_event_get(cl, 44)->text), 79);
    /* a new level keeps the ring and the deaths, the players' bodies and printed lines
     * (the clear passes over them in place); the view's entity starts over */
    cl->players[2].entity = 3;
    cl->players[5].entity = 6;
    cl->view.view_entity = 3;
    cl->messages[1].text[0] = 'm';
    cl->message_count = 2;
    cl_level_begin(cl, CL_GAME_QW, 0, 16, "next");
    CHECK_EQ(cl->event_count, 45);
    CHECK_STR(cl_event_get(cl, 39)->text, "line 39");
    CHECK_EQ(cl->players[2].deaths, 3);
    CHECK_EQ(cl->players[2].entity, 3);
    CHECK_EQ(cl->players[5].entity, 6);
    CHECK_EQ(cl->players[4].entity, -1);
    CHECK_EQ(cl->view.view_entity, -1);
    CHECK_EQ(cl->messages[1].text[0], 'm');
    CHECK_EQ(cl->message_count, 2);
    free(cl);
}

static void add_fx(cl_state *cl, double t, float life, float x)
{
    cl_frame_begin(cl, t);
    cl_fxev e;
    memset(&e, 0, sizeof e);
    e.life = life;
    e.origin[0] = x;
    e.entity = -1;
    cl_fx_add(cl, &e);
    cl_frame_end(cl, 0);
}

/* The origin[0] tags of cl_fx_at(t) as a string "1 2 3", for compact checks. */
static const char *alive(const cl_state *cl, double t, int cap)
{
    static char buf[256];
    const cl_fxev *out[16];
    int n = cl_fx_at(cl, t, out, cap < 16 ? cap : 16);
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%g", i ? " " : "", out[i]->origin[0]);
    return buf;
}

TEST(neutral_fx_window)
{
    cl_state *cl = new_state(CL_GAME_Q2);
    CHECK(cl);
    add_fx(cl, 1.0, 0.5f, 1);     /* alive [1.0, 1.5) */
    cl_frame_begin(cl, 1.0);
    cl_fxev e;
    memset(&e, 0, sizeof e);
    e.life = 2.0f;                /* alive [1.0, 3.0) */
    e.origin[0] = 2;
    cl_fx_add(cl, &e);
    cl_frame_end(cl, 0);
    add_fx(cl, 1.2, 0.0f, 3);     /* no life: 0.1 s, alive [1.2, 1.3) */
    add_fx(cl, 2.0, 10.0f, 4);    /* clamped to CL_FX_WINDOW: [2.0, 5.0) */
    add_fx(cl, 2.5, NAN, 5);      /* NaN: 0.1 s, [2.5, 2.6) */
    CHECK_EQ(cl->fxlog.fx_count, 5);
    CHECK(cl->fxlog.fx[0].t0 == 1.0 && cl->fxlog.fx[2].t0 == 1.2);
    CHECK(cl->fxlog.fx[3].life == 3.0f);
    CHECK_STR(alive(cl, 0.99, 16), "");
    CHECK_STR(alive(cl, 1.0, 16), "1 2");
    CHECK_STR(alive(cl, 1.25, 16), "1 2 3");
    CHECK_STR(alive(cl, 1.25, 2), "2 3"); /* cap: the newest kept, oldest first */
    CHECK_STR(alive(cl, 1.5, 16), "2");   /* an effect's end is exclusive */
    CHECK_STR(alive(cl, 2.0, 16), "2 4");
    CHECK_STR(alive(cl, 2.55, 16), "2 4 5");
    CHECK_STR(alive(cl, 3.0, 16), "4");
    CHECK_STR(alive(cl, 4.99, 16), "4");
    CHECK_STR(alive(cl, 5.0, 16), "");
    /* the ring keeps the latest CL_FX_LOG: of 1100 at one time, numbers 76..1099 */
    cl_fxlog_clear(cl);
    CHECK_EQ(cl->fxlog.fx_count, 0);
    CHECK_STR(alive(cl, 2.0, 16), "");
    for (int i = 0; i < 1100; i++)
        add_fx(cl, 10.0, 1.0f, (float)i);
    static const cl_fxev *all[2048];
    CHECK_EQ(cl_fx_at(cl, 10.5, all, 2048), CL_FX_LOG);
    CHECK(all[0]->origin[0] == 76.0f && all[CL_FX_LOG - 1]->origin[0] == 1099.0f);
    /* sound starts: stamped, counted, ring of CL_SOUND_LOG */
    cl_frame_begin(cl, 12.5);
    for (int i = 0; i < 600; i++) {
        cl_sound s;
        memset(&s, 0, sizeof s);
        s.sound = (uint16_t)i;
        s.entity = -1;
        cl_sound_add(cl, &s);
    }
    cl_frame_end(cl, 0);
    CHECK_EQ(cl->fxlog.sound_count, 600);
    CHECK_EQ(cl->fxlog.sounds[599 % CL_SOUND_LOG].sound, 599);
    CHECK(cl->fxlog.sounds[0].t0 == 12.5);
    /* a new level empties the log */
    cl_level_begin(cl, CL_GAME_Q2, 0, 16, "next");
    CHECK_EQ(cl->fxlog.fx_count, 0);
    CHECK_EQ(cl->fxlog.sound_count, 0);
    free(cl);
}

TEST(neutral_body_view)
{
    /* a body at (10,20,30) with pitch 5, yaw 90, roll 7; eye heights and pitch scales from
     * each game's source (cl.c game_conventions): worked by hand */
    static const struct {
        cl_game game;
        float live, dead, gibbed, pitch;
    } want[] = {
        {CL_GAME_Q1, 30 + 22, 30 - 8, 30 + 8, -15},
        {CL_GAME_QW, 30 + 22, 30 - 16, 30 + 8, -15},
        {CL_GAME_Q2, 30 + 22, 30 - 2, 30 + 8, 15},
        {CL_GAME_Q3, 30 + 26, 30 - 16, 30 - 16, 5},
    };
    cl_state *cl = new_state(CL_GAME_NONE);
    CHECK(cl);
    cl_entstate s;
    memset(&s, 0, sizeof s);
    s.origin[0] = 10, s.origin[1] = 20, s.origin[2] = 30;
    s.angles[0] = 5, s.angles[1] = 90, s.angles[2] = 7;
    float o[3], a[3];
    /* no level yet: Quake's (what the player assumed for every game before) */
    cl_body_view(cl, &s, o, a);
    CHECK(o[2] == 52 && a[0] == -15);
    for (size_t g = 0; g < sizeof want / sizeof want[0]; g++) {
        cl_level_begin(cl, want[g].game, 0, 16, "");
        s.flags = 0;
        cl_body_view(cl, &s, o, a);
        CHECK_MSG(o[0] == 10 && o[1] == 20 && o[2] == want[g].live, "game %d live z %g",
                  (int)want[g].game, o[2]);
        CHECK_MSG(a[0] == want[g].pitch && a[1] == 90 && a[2] == 0, "game %d pitch %g",
                  (int)want[g].game, a[0]);
        s.flags = CL_EF_DEAD | CL_EF_PLAYER;
        cl_body_view(cl, &s, o, a);
        CHECK_MSG(o[2] == want[g].dead, "game %d dead z %g", (int)want[g].game, o[2]);
        s.flags = CL_EF_DEAD | CL_EF_GIBBED; /* gibbed wins */
        cl_body_view(cl, &s, o, a);
        CHECK_MSG(o[2] == want[g].gibbed, "game %d gibbed z %g", (int)want[g].game, o[2]);
    }
    /* a decoder's own conventions replace the game's */
    cl_conventions c = {40, 0, 0, 2, 110};
    cl_set_conventions(cl, &c);
    s.flags = 0;
    cl_body_view(cl, &s, o, a);
    CHECK(o[2] == 70 && a[0] == 10);
    free(cl);
}

TEST(neutral_stats)
{
    /* Quake: the stat slots fill the named stats (qr_fill_stats, which the Quake and
     * QuakeWorld decoders call; the slot numbers are quakedef.h's STAT_*) */
    cl_state *cl = new_state(CL_GAME_Q1);
    CHECK(cl);
    CHECK(cl_stats_of(cl, -1) == &cl->view_stats);
    CHECK_EQ(cl->view_stats.flags & CL_ST_VALID, 0);
    int32_t raw[QR_NUM_STATS] = {0};
    raw[0] = 87;       /* STAT_HEALTH */
    raw[3] = 25;       /* STAT_AMMO */
    raw[4] = 150;      /* STAT_ARMOR */
    raw[6] = 30;       /* STAT_SHELLS */
    raw[7] = 99;       /* STAT_NAILS */
    raw[8] = 5;        /* STAT_ROCKETS */
    raw[9] = 7;        /* STAT_CELLS */
    raw[12] = 35;      /* STAT_TOTALMONSTERS */
    raw[14] = 3;       /* STAT_MONSTERS */
    raw[1] = 1000000;  /* STAT_FRAGS: not a cl_stats field here */
    cl_stats filled;
    qr_fill_stats(raw, 0, &filled);
    cl_set_stats(cl, -1, &filled);
    const cl_stats *st = cl_stats_of(cl, -1);
    CHECK_EQ(st->flags & CL_ST_VALID, CL_ST_VALID);
    CHECK_EQ(st->health, 87);
    CHECK_EQ(st->ammo, 25);
    CHECK_EQ(st->armor, 150);
    CHECK_EQ(st->ammo_of[CL_AMMO_SHELLS], 30);
    CHECK_EQ(st->ammo_of[CL_AMMO_BULLETS], 99);
    CHECK_EQ(st->ammo_of[CL_AMMO_ROCKETS], 5);
    CHECK_EQ(st->ammo_of[CL_AMMO_CELLS], 7);
    CHECK_EQ(st->monsters_total, 35);
    CHECK_EQ(st->monsters, 3);
    CHECK_EQ(st->score, 0);
    raw[0] = 100000; /* saturates in 16 bits */
    qr_fill_stats(raw, 0, &filled);
    cl_set_stats(cl, -1, &filled);
    CHECK_EQ(st->health, 32767);

    /* Quake II / III slot numbers mean other things: no numbers until the decoder's own */
    cl_level_begin(cl, CL_GAME_Q2, 0, 16, "");
    CHECK_EQ(cl->view_stats.flags, 0); /* a level start clears the view's stats */
    CHECK_EQ(cl_stats_of(cl, -1)->flags & CL_ST_VALID, 0);
    CHECK_EQ(cl_stats_of(cl, -1)->health, 0);
    cl_stats mine;
    memset(&mine, 0, sizeof mine);
    mine.health = 64;
    cl_set_stats(cl, -1, &mine);
    CHECK_EQ(cl_stats_of(cl, -1)->health, 64);
    CHECK_EQ(cl_stats_of(cl, -1)->flags & CL_ST_VALID, CL_ST_VALID);
    CHECK_EQ(cl_view_player(cl), -1); /* Q2's view entity says nothing about slots */

    /* QuakeWorld .mvd: per-player stats; the view's player from its entity */
    cl_level_begin(cl, CL_GAME_QW, 0, 32, "");
    cl->view.view_entity = 3;
    CHECK_EQ(cl_view_player(cl), 2);
    CHECK(cl_stats_of(cl, 2) == &cl->view_stats); /* the view's player, no own stats yet */
    CHECK(cl_stats_of(cl, 5) == NULL);             /* someone else: nothing known */
    CHECK(cl_stats_of(cl, CL_MAX_PLAYERS) == NULL);
    cl_stats his;
    memset(&his, 0, sizeof his);
    his.health = 66;
    cl_set_stats(cl, 5, &his);
    CHECK_EQ(cl->players[5].has_stats, 1);
    CHECK(cl_stats_of(cl, 5) == &cl->player_stats[5]);
    CHECK_EQ(cl_stats_of(cl, 5)->health, 66);
    cl->view.player = 6; /* a decoder's answer wins over the entity rule */
    CHECK_EQ(cl_view_player(cl), 5);
    /* a level start keeps players' own stats (they persist with the players) */
    cl_level_begin(cl, CL_GAME_QW, 0, 32, "");
    CHECK_EQ(cl_stats_of(cl, 5)->health, 66);
    /* Quake: entity numbers past maxclients are not players */
    cl_level_begin(cl, CL_GAME_Q1, 0, 4, "");
    cl->view.view_entity = 5;
    CHECK_EQ(cl_view_player(cl), -1);
    cl->view.view_entity = 4;
    CHECK_EQ(cl_view_player(cl), 3);
    free(cl);
}

/* ---- a fake decoder: one frame per byte, each adding an effect and a sound ---- */

#define FAKE_DT 0.25 /* seconds per frame */
#define FAKE_LEVEL2 100 /* the frame that starts a second level */

typedef struct fake_state {
    uint64_t pos;
    int ended;
} fake_state;

static int fake_probe(const uint8_t *data, size_t len, const char *name)
{
    (void)data, (void)len, (void)name;
    return 0;
}
static qd_err fake_init(void *state, const uint8_t *data, size_t len, qd_error *err)
{
    (void)data, (void)len, (void)err;
    memset(state, 0, sizeof(fake_state));
    return QD_OK;
}
/* The effect's life from its byte: tenths of a second (40 is clamped to 3 s). */
static float fake_life(uint8_t b) { return b / 10.0f > 3.0f ? 3.0f : b / 10.0f; }

static qd_err fake_step(void *state, const uint8_t *data, size_t len, cl_state *cl,
                        const demo_trace *trace, int *done, qd_error *err)
{
    (void)trace, (void)err;
    fake_state *s = state;
    *done = 0;
    if (s->pos >= len) {
        s->ended = 1;
        *done = 1;
        return QD_OK;
    }
    if (s->pos == 0 || s->pos == FAKE_LEVEL2)
        cl_level_begin(cl, CL_GAME_Q1, 15, 1, "fake");
    cl_frame_begin(cl, (double)s->pos * FAKE_DT);
    cl_fxev e;
    memset(&e, 0, sizeof e);
    e.life = data[s->pos] / 10.0f;
    e.origin[0] = (float)s->pos;
    e.entity = -1;
    e.kind = (uint8_t)(s->pos % CL_FXK_KINDS);
    cl_fx_add(cl, &e);
    cl_sound sd;
    memset(&sd, 0, sizeof sd);
    sd.sound = (uint16_t)s->pos;
    sd.entity = -1;
    cl_sound_add(cl, &sd);
    if (s->pos % 7 == 0) {
        cl_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = CL_EV_PICKUP;
        ev.target = -1;
        snprintf(ev.text, sizeof ev.text, "item %u", (unsigned)s->pos);
        cl_event_add(cl, &ev);
    }
    cl_frame_end(cl, 0);
    s->pos++;
    return QD_OK;
}
/* 4096 "bytes" a frame, so every frame may carry a keyframe (TL_MIN_KEY_SPACING). */
static uint64_t fake_offset(const void *state) { return ((const fake_state *)state)->pos * 4096; }
static int fake_protocol(const void *state) { return (void)state, 15; }
static int fake_ended(const void *state) { return ((const fake_state *)state)->ended; }

static const demo_decoder fake_decoder = {
    "fake", DEMO_FMT_DEM, sizeof(fake_state), fake_probe, fake_init, fake_step,
    fake_offset, fake_protocol, fake_ended, NULL, NULL, NULL, 0, NULL,
};

/* The effects alive at t as the fake data defines them, worked out without the client:
 * frame i starts at i * FAKE_DT and lives fake_life(data[i]); a level start (frame
 * FAKE_LEVEL2) empties the log, so before it nothing older survives. */
static int expected_alive(const uint8_t *data, int n, double t, int decoded_to)
{
    int k = 0;
    int first = decoded_to >= FAKE_LEVEL2 ? FAKE_LEVEL2 : 0;
    for (int i = first; i <= decoded_to && i < n; i++) {
        double t0 = i * FAKE_DT;
        if (t0 <= t && t < t0 + fake_life(data[i]))
            k++;
    }
    return k;
}

TEST(neutral_seek_keeps_effects)
{
    enum { N = 200 };
    uint8_t data[N];
    for (int i = 0; i < N; i++)
        data[i] = (uint8_t)(1 + (i * 7) % 40); /* lives 0.1 .. 3.0 s, some clamped */
    qd_error err;
    demo_t *d1 = demo_open_with(&fake_decoder, "fake", data, N, &err);
    demo_t *d2 = demo_open_with(&fake_decoder, "fake", data, N, &err);
    CHECK(d1 && d2);
    timeline_t *play = tl_open(d1, 1.0, &err), *seek = tl_open(d2, 1.0, &err);
    CHECK(play && seek);
    CHECK(tl_num_keyframes(seek) > 10);
    enum { T = 60 };
    double times[T], sorted[T];
    uint32_t rng = 99;
    for (int i = 0; i < T; i++) {
        rng = rng * 1664525u + 1013904223u;
        times[i] = -0.5 + (N * FAKE_DT + 1.0) * (double)(rng >> 8) / (double)(1u << 24);
        sorted[i] = times[i];
    }
    times[0] = sorted[0] = 30.1; /* a few hand-placed ones: around keyframes and the level */
    times[1] = sorted[1] = 25.0;
    times[2] = sorted[2] = 24.9;
    for (int i = 1; i < T; i++)
        for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; j--) {
            double x = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = x;
        }
    /* play through in time order, remembering the effects at each t */
    static cl_fxev want[T][64];
    static int want_n[T];
    static uint32_t play_count[T], want_events[T];
    for (int i = 0; i < T; i++) {
        const cl_state *cl = tl_state_at(play, sorted[i], &err);
        CHECK(cl);
        const cl_fxev *out[64];
        want_n[i] = cl_fx_at(cl, sorted[i], out, 64);
        for (int k = 0; k < want_n[i]; k++)
            want[i][k] = *out[k];
        play_count[i] = cl->fxlog.fx_count;
        want_events[i] = cl->event_count;
        int decoded_to = (int)lround(cl->time / FAKE_DT);
        CHECK_MSG(want_n[i] == expected_alive(data, N, sorted[i], decoded_to),
                  "t=%.3f: %d alive, expected %d", sorted[i], want_n[i],
                  expected_alive(data, N, sorted[i], decoded_to));
    }
    /* seek in random order: the same effects, though the log itself is shorter */
    int shorter = 0;
    for (int i = 0; i < T; i++) {
        int j = 0;
        while (sorted[j] != times[i])
            j++;
        const cl_state *cl = tl_state_at(seek, times[i], &err);
        CHECK(cl);
        const cl_fxev *out[64];
        int n = cl_fx_at(cl, times[i], out, 64);
        CHECK_MSG(n == want_n[j], "t=%.3f: %d effects after a seek, %d after playing", times[i],
                  n, want_n[j]);
        for (int k = 0; k < n; k++)
            CHECK_MSG(memcmp(out[k], &want[j][k], sizeof *out[k]) == 0,
                      "t=%.3f: effect %d differs", times[i], k);
        CHECK_EQ(cl->event_count, want_events[j]);
        shorter += cl->fxlog.fx_count < play_count[j];
    }
    /* keyframes do not carry the log: some seek restored one and started it empty */
    CHECK(shorter > 0);
    tl_close(play);
    tl_close(seek);
}

/* One entity's state for the list test: entity num at x, model 2. */
static cl_entstate list_ent(int num, float x)
{
    cl_entstate s;
    memset(&s, 0, sizeof s);
    s.origin[0] = x;
    s.origin[1] = (float)num;
    s.model = 2;
    return s;
}

/* The two states read the same: every entity as it reads (cl_entity_settled), where the
 * renderer would put it between the last two frames, and the lists' counts. */
static int same_reading(const cl_state *a, const cl_state *b)
{
    if (a->num_listed != b->num_listed || a->num_entities != b->num_entities)
        return 0;
    for (int i = 0; i < 64; i++) {
        cl_entity ea, eb;
        cl_entity_settled(a, i, &ea);
        cl_entity_settled(b, i, &eb);
        if (memcmp(&ea, &eb, sizeof ea))
            return 0;
        for (int k = 0; k <= 4; k++) {
            cl_entstate sa, sb;
            double t = a->prev_time + (a->time - a->prev_time) * k / 4.0 - 0.05;
            int ha = cl_entity_at(a, i, t, &sa, NULL, NULL), hb = cl_entity_at(b, i, t, &sb, NULL, NULL);
            if (ha != hb || (ha && memcmp(&sa, &sb, sizeof sa)))
                return 0;
        }
    }
    return 1;
}

/* A list kept whole (cl_list_keep_rest) reads as keeping each entity one by one
 * (cl_entity_keep) would, over frames that move, remove and add entities, a frame without
 * a list between, and a list kept one by one inside a run of whole ones. Expected states
 * come from the one-by-one client, which the decoders used before lists were kept whole.
 * The lists are numbered from first_gen on (the counter wraps after 2^32 of them). */
static void lists_whole_and_one_by_one(uint32_t first_gen)
{
    cl_state *a = new_state(CL_GAME_QW), *b = new_state(CL_GAME_QW);
    CHECK(a && b);
    if (!a || !b)
        return;
    a->lazy.list_gen = b->lazy.list_gen = first_gen - 1u;
    /* per frame: moved entity (-1 none), removed one, added one, whether it has a list,
     * whether b keeps it whole */
    static const struct { int moved, removed, added, list, whole; } fr[] = {
        {-1, -1, -1, 1, 0}, /* the first list: entities 40..49 */
        {41, 42, -1, 1, 1}, {-1, -1, -1, 0, 0}, {44, -1, -1, 1, 1}, {-1, -1, -1, 1, 1},
        {45, -1, -1, 1, 0}, {-1, -1, 50, 1, 1}, {41, 47, -1, 1, 1}, {-1, -1, -1, 1, 1},
    };
    int in_list[64] = {0};
    float x[64] = {0};
    for (int i = 40; i < 50; i++)
        in_list[i] = 1;
    for (size_t f = 0; f < sizeof fr / sizeof fr[0]; f++) {
        double t = 1.0 + 0.1 * (double)f;
        cl_state *both[2] = {a, b};
        if (fr[f].moved >= 0)
            x[fr[f].moved] += 8.0f;
        for (int w = 0; w < 2; w++) {
            cl_state *cl = both[w];
            cl_frame_begin(cl, t);
            cl_entstate p = list_ent(1, 100.0f + (float)f); /* a player, in no list */
            p.flags = CL_EF_PLAYER;
            cl_entity_update(cl, 1, &p);
            if (!fr[f].list) {
                cl_frame_end(cl, 0);
                continue;
            }
            cl_list_begin(cl);
            int whole = w == 1 && fr[f].whole, sent = 0, kept = 0;
            if (whole && fr[f].removed >= 0)
                cl_list_leave(cl, fr[f].removed);
            for (int i = 40; i < 64; i++) {
                if (i == fr[f].removed || !(in_list[i] || i == fr[f].added))
                    continue;
                if (f == 0 || i == fr[f].moved || i == fr[f].added) {
                    cl_entstate s = list_ent(i, x[i]);
                    cl_entity_update(cl, i, &s);
                    cl_list_add(cl, i);
                    sent++;
                } else if (whole) {
                    kept++;
                } else {
                    cl_entity_keep(cl, i);
                }
            }
            if (whole)
                cl_list_keep_rest(cl, kept);
            cl_frame_end(cl, 1);
        }
        if (fr[f].removed >= 0)
            in_list[fr[f].removed] = 0;
        if (fr[f].added >= 0)
            in_list[fr[f].added] = 1;
        CHECK_MSG(same_reading(a, b), "frame %zu reads differently", f);
    }
    /* the run of whole lists did leave entities unsettled, and moved ones stopped */
    CHECK(b->lazy.lazy_to != 0);
    cl_entstate s;
    CHECK(cl_entity_at(b, 44, b->time, &s, NULL, NULL) && s.origin[0] == 8.0f);
    CHECK(!cl_entity_at(b, 42, b->time, &s, NULL, NULL) && !cl_entity_at(b, 47, b->time, &s, NULL, NULL));
    free(a);
    free(b);
}

TEST(neutral_list_kept_whole_reads_as_kept_one_by_one) { lists_whole_and_one_by_one(1); }

/* The same with the list counter wrapping inside a run of lists kept whole (frame 4's list,
 * kept whole after frame 3's, is the first after 2^32 - 1): before, the wrap unmarked every
 * entity, so that list kept none of the ones before although it counted them touched, and
 * the frame's end skipped its walk with their times stale. */
TEST(neutral_list_kept_whole_across_the_counter_wrap)
{
    lists_whole_and_one_by_one(UINT32_MAX - 2u);
}

/* cl_sound_intern finds a name by its hash table (cl_state.sound_find): the answers are the
 * list walk's, worked out here by hand. Slots 1..3 as a server's list sets them; the
 * decoder's own names go from slot 10 on. */
TEST(neutral_sound_intern_by_name)
{
    cl_state *cl = new_state(CL_GAME_Q3);
    CHECK(cl != NULL);
    if (!cl)
        return;
    cl_set_sound(cl, 1, "a.wav");
    cl_set_sound(cl, 2, "b.wav");
    cl_set_sound(cl, 3, "a.wav"); /* a name twice in the server's list */
    /* from slot 1 on, the lowest slot holding it; from 3 on, slot 3 */
    CHECK_EQ(cl_sound_intern(cl, 1, "a.wav"), 1);
    CHECK_EQ(cl_sound_intern(cl, 2, "a.wav"), 3);
    CHECK_EQ(cl_sound_intern(cl, 2, "b.wav"), 2);
    /* past the list: added at the first free slot from first on, then found there */
    CHECK_EQ(cl_sound_intern(cl, 10, "a.wav"), 10);
    CHECK_EQ(cl_sound_intern(cl, 10, "c.wav"), 11);
    CHECK_EQ(cl_sound_intern(cl, 10, "c.wav"), 11);
    CHECK_EQ(cl_sound_intern(cl, 10, "a.wav"), 10);
    CHECK_EQ(cl->level.num_sounds, 12);
    /* a slot renamed: found under its new name, not under its old one */
    cl_set_sound(cl, 2, "d.wav");
    CHECK_EQ(cl_sound_intern(cl, 1, "d.wav"), 2);
    CHECK_EQ(cl_sound_intern(cl, 10, "b.wav"), 12);
    CHECK_STR(cl->level.sounds[12], "b.wav");
    /* a name too long for a slot, or a first below 1: none */
    char longname[CL_NAME_LEN + 4];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK_EQ(cl_sound_intern(cl, 10, longname), 0);
    CHECK_EQ(cl_sound_intern(cl, 0, "a.wav"), 0);
    /* the empty name: slots 4..9 were never named and hold it (no table entry), so the
     * lowest of them from first on, as the walk gives; slot 2 given "" is found again */
    CHECK_EQ(cl_sound_intern(cl, 1, ""), 4);
    CHECK_EQ(cl_sound_intern(cl, 5, ""), 5);
    cl_set_sound(cl, 2, "");
    CHECK_EQ(cl_sound_intern(cl, 1, ""), 2);
    cl_set_sound(cl, 2, "d.wav");
    /* many names: past the table's three quarters they are walked for, with the same
     * answers (slot 13 + k holds "s<k>.wav") */
    for (int k = 0; k < CL_SOUND_FIND; k++) {
        char nm[16];
        snprintf(nm, sizeof nm, "s%d.wav", k);
        CHECK_EQ(cl_sound_intern(cl, 10, nm), 13 + k);
    }
    CHECK_EQ(cl->sound_find.full, 1);
    for (int k = 0; k < CL_SOUND_FIND; k += 97) {
        char nm[16];
        snprintf(nm, sizeof nm, "s%d.wav", k);
        CHECK_EQ(cl_sound_intern(cl, 10, nm), 13 + k);
    }
    CHECK_EQ(cl_sound_intern(cl, 1, "a.wav"), 1);
    CHECK_EQ(cl_sound_intern(cl, 1, "d.wav"), 2);
    /* a new level starts the table over */
    cl_level_begin(cl, CL_GAME_Q3, 68, 8, "next");
    CHECK_EQ(cl->sound_find.full, 0);
    CHECK_EQ(cl_sound_intern(cl, 10, "c.wav"), 10);
    free(cl);
}
