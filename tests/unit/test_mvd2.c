/* test_mvd2.c: the Q2PRO .mvd2 decoder on bytes built here (each MVD message it reads) and on
 * the real recording; expectations come from the format (mvd2_local.h) and from the file's
 * bytes walked here by hand, never from the decoder's own output. */
#include <math.h>
#include <stdlib.h>

#include "../../src/demo/demo.h"
#include "../../src/demo/mvd2_local.h"
#include "../q2build.h"
#include "../test.h"
#include "../testbuf.h"

#define REAL "mvd2/libq2_testdata_test.mvd2"

/* ---- running the decoder through the demo layer ---- */

typedef struct run {
    demo_t *d;
    cl_state *cl;
    int done, steps;
    qd_err e;
    qd_error err;
} run;

static int run_open(run *r, const uint8_t *data, size_t len)
{
    memset(r, 0, sizeof *r);
    r->cl = malloc(sizeof *r->cl);
    if (!r->cl)
        return 0;
    cl_reset(r->cl);
    r->d = demo_open_with(&demo_mvd2_decoder, "t.mvd2", data, len, &r->err);
    return r->d != NULL;
}

static qd_err run_step(run *r)
{
    r->e = demo_step(r->d, r->cl, NULL, &r->done, &r->err);
    r->steps++;
    return r->e;
}

static qd_err run_all(run *r)
{
    while (!r->done && r->e == QD_OK && (size_t)r->steps <= demo_size(r->d) + 1)
        run_step(r);
    return r->e;
}

static void run_close(run *r)
{
    demo_close(r->d);
    free(r->cl);
}

static int slot_of(const cl_state *cl, const char *name)
{
    for (int i = 0; i < CL_MAX_PLAYERS; i++)
        if (cl->players[i].active && !strcmp(cl->players[i].name, name))
            return i;
    return -1;
}

/* ---- building .mvd2 files ---- */

static void mblock(buf *f, const buf *m)
{
    put16(f, (int)m->n);
    putbuf(f, m);
}

static void cs(buf *m, int index, const char *s)
{
    put16(m, index);
    putstr(m, s);
}

/* mvd_serverdata's head: the flags in the id's extrabits before 2012, a word after the
 * version from 2012; servercount 77, observer 3. */
static void sd_head(buf *m, int version, unsigned flags, const char *gamedir)
{
    put8(m, MVD2_SERVERDATA | (version < MVD2_VERSION_EXTLIMITS_2 ? flags << 5 : 0));
    put32(m, MVD2_PROTOCOL);
    put16(m, version);
    if (version >= MVD2_VERSION_EXTLIMITS_2)
        put16(m, (int)flags);
    put32(m, 77);                          /* servercount */
    putstr(m, gamedir);
    put16(m, 3);                           /* the observer */
}

/* mvd_serverdata, version 2010 (flags in the id's extrabits), four clients, observer 3, the
 * configstrings, and a first frame with players 0 and 1 and their bodies. */
static void mserverdata(buf *m, int version, unsigned flags)
{
    sd_head(m, version, flags, "opentdm");
    cs(m, Q2_CS_NAME, "Test Level");
    cs(m, Q2_CS_MAXCLIENTS, "4");
    cs(m, Q2_CS_MODELS + 1, "maps/test.bsp");
    cs(m, Q2_CS_PLAYERSKINS + 0, "alice\\male/grunt");
    cs(m, Q2_CS_PLAYERSKINS + 1, "bob\\female/athena");
    cs(m, Q2_CS_PLAYERSKINS + 3, "[MVDSPEC]\\male/grunt");
    put16(m, Q2_MAX_CONFIGSTRINGS);        /* the end */
}

/* One player's packed state: type, origin (in 1/8 units), yaw, frags. */
static void player(buf *m, int num, int pm_type, int x8, int y8, int z8, int yaw16, int frags)
{
    put8(m, (unsigned)num);
    put16(m, (int)(MVD2_PPS_M_TYPE | MVD2_PPS_M_ORIGIN | MVD2_PPS_M_ORIGIN2 |
                   MVD2_PPS_VIEWANGLES | MVD2_PPS_STATS));
    put8(m, (unsigned)pm_type);
    put16(m, x8);
    put16(m, y8);
    put16(m, z8);
    put16(m, 0);                           /* pitch */
    put16(m, yaw16);
    put32(m, 1u << Q2_STAT_FRAGS);
    put16(m, frags);
}

/* An entity with a model and origin x (U_MODEL | U_ORIGIN1: two bytes of bits). */
static void entity(buf *m, int num, int model, int x8)
{
    put8(m, Q2_U_ORIGIN1 | Q2_U_MOREBITS1);
    put8(m, Q2_U_MODEL >> 8);
    put8(m, (unsigned)num);
    put8(m, (unsigned)model);
    put16(m, x8);
}

static void baseline_frame(buf *m)
{
    put8(m, 0);                            /* no portal bytes */
    player(m, 0, Q2_PM_NORMAL, 800, 0, 200, 16384, 3);   /* alice at 100,0,25 facing 90 */
    player(m, 1, Q2_PM_NORMAL, -800, 0, 200, 0, 1);
    put8(m, MVD2_CLIENTNUM_NONE);
    entity(m, 1, 255, 0);                  /* alice's body (its origin comes from her state) */
    entity(m, 2, 255, 0);
    entity(m, 10, 5, 400);                 /* an item at x 50 */
    put16(m, 0);                           /* entity 0: the end */
}

/* f emptied, then "MVD2" and a first block: the serverdata of this version and flags with
 * the baseline frame. */
static void first_block(buf *f, int version, unsigned flags)
{
    f->n = 0;
    buf m = {0};
    put8(f, 'M'); put8(f, 'V'); put8(f, 'D'); put8(f, '2');
    mserverdata(&m, version, flags);
    baseline_frame(&m);
    mblock(f, &m);
}

/* A whole small demo: serverdata + baseline, then a block with each other message, the end. */
static size_t build_demo(buf *f)
{
    first_block(f, MVD2_VERSION_DEFAULT, MVD2_MVF_NOMSGS);
    buf m = {0};
    put8(&m, MVD2_CONFIGSTRING);           /* reliable messages first, as the recorder does */
    cs(&m, Q2_CS_PLAYERSKINS + 2, "carol\\female/jezebel");
    put8(&m, MVD2_PRINT);
    put8(&m, 2);
    putstr(&m, "Fight!\n");
    put8(&m, MVD2_UNICAST_R);              /* 3 bytes of a layout to client 1 */
    put8(&m, 3);
    put8(&m, 1);
    put8(&m, Q2_SVC_LAYOUT); put8(&m, 'x'); put8(&m, 0);
    put8(&m, MVD2_NOP);
    put8(&m, MVD2_FRAME);
    put8(&m, 0);
    player(&m, 0, Q2_PM_NORMAL, 1600, 0, 200, 16384, 4);  /* alice to x 200, a frag */
    put8(&m, MVD2_CLIENTNUM_NONE);
    put8(&m, Q2_U_REMOVE);                 /* the item is taken */
    put8(&m, 10);
    put16(&m, 0);
    put8(&m, MVD2_MULTICAST_PVS | 1 << 5); /* 256 + 2 bytes, from leaf 7 */
    put8(&m, 2);
    put16(&m, 7);
    for (int i = 0; i < 258; i++)
        put8(&m, 0);
    put8(&m, MVD2_MULTICAST_ALL);          /* 1 byte, no leaf */
    put8(&m, 1);
    put8(&m, 0);
    put8(&m, MVD2_SOUND);                  /* sound 9 on entity 1, channel 2, volume 100 */
    put8(&m, Q2_SND_VOLUME);
    put8(&m, 9);
    put8(&m, 100);
    put16(&m, 1 << 3 | 2);
    mblock(f, &m);
    put16(f, 0);                           /* the end */
    return f->n;
}

TEST(mvd2_built_messages)
{
    static buf f;
    build_demo(&f);
    CHECK_EQ(demo_mvd2_decoder.probe(f.b, f.n, NULL), 10);
    run r;
    CHECK(run_open(&r, f.b, f.n));
    CHECK_EQ(run_step(&r), QD_OK); /* serverdata and the first frame */
    cl_state *cl = r.cl;
    CHECK_EQ(demo_protocol(r.d), MVD2_PROTOCOL);
    CHECK_STR(cl->level.title, "Test Level");
    CHECK_STR(cl->level.map, "maps/test.bsp");
    CHECK_STR(cl->level.gamedir, "opentdm");
    CHECK_EQ(cl->level.max_clients, 4);
    CHECK_EQ(slot_of(cl, "alice"), 0);
    CHECK_EQ(slot_of(cl, "bob"), 1);
    CHECK_EQ(cl->players[0].frags, 3);
    CHECK_EQ(cl->players[1].frags, 1);
    CHECK_EQ(cl->players[0].entity, 1);
    CHECK(!cl->players[0].spectator && !cl->players[1].spectator);
    CHECK(cl->players[3].spectator); /* the observer, never in the game */
    /* alice's body stands where her state says, facing her view's yaw, marked a player */
    CHECK(cl->entities[1].active);
    CHECK(fabsf(cl->entities[1].cur.origin[0] - 100) < 0.01f);
    CHECK(fabsf(cl->entities[1].cur.origin[2] - 25) < 0.01f);
    CHECK(fabsf(cl->entities[1].cur.angles[1] - 90) < 0.01f);
    CHECK(cl->entities[1].cur.flags & CL_EF_PLAYER);
    CHECK(fabsf(cl->entities[2].cur.origin[0] + 100) < 0.01f);
    CHECK(cl->entities[10].active && cl->entities[10].cur.model == 5);
    CHECK(fabsf(cl->entities[10].cur.origin[0] - 50) < 0.01f);
    /* the recorded view: the first player in the game, her eye */
    CHECK_EQ(cl->view.player, 1);
    CHECK(fabsf(cl->view.origin[0] - 100) < 0.01f);
    CHECK(fabs(cl->time) < 1e-9);

    uint32_t msgs = cl->message_count, sounds = cl->fxlog.sound_count;
    CHECK_EQ(run_step(&r), QD_OK);
    CHECK(!r.done);
    CHECK(fabs(cl->time - MVD2_FRAME_TIME) < 1e-9);
    CHECK_EQ(slot_of(cl, "carol"), 2);               /* mvd_configstring */
    CHECK_EQ(cl->message_count, msgs + 1);           /* mvd_print */
    CHECK_STR(cl->messages[msgs % CL_MAX_PRINTS].text, "Fight!\n");
    CHECK_EQ(cl->players[0].frags, 4);               /* mvd_frame: the new state */
    CHECK(fabsf(cl->entities[1].cur.origin[0] - 200) < 0.01f);
    CHECK(!cl->entities[10].active);                 /* U_REMOVE */
    CHECK(cl->entities[2].active);                   /* not mentioned: kept */
    CHECK_EQ(cl->fxlog.sound_count, sounds + 1);     /* mvd_sound */
    const cl_sound *snd = &cl->fxlog.sounds[sounds % CL_SOUND_LOG];
    CHECK_EQ(snd->sound, 9);
    CHECK_EQ(snd->entity, 1);
    CHECK_EQ(snd->channel, 2);
    CHECK_EQ(snd->volume, 100);
    CHECK_EQ(run_step(&r), QD_OK);
    CHECK(r.done);
    CHECK(demo_ended(r.d));
    run_close(&r);
}

/* The demo of first_block (version 2010) and a second block of one mvd_frame without portal
 * bytes, whose player and entity lists are list's bytes, decoded up to that frame (at 0.1
 * s) in r (run_close it). Returns 0 when it did not get there. */
static int decode_second_frame(run *r, const buf *list)
{
    static buf f, m;
    first_block(&f, MVD2_VERSION_DEFAULT, 0);
    m.n = 0;
    put8(&m, MVD2_FRAME);
    put8(&m, 0);
    putbuf(&m, list);
    mblock(&f, &m);
    put16(&f, 0);
    return run_open(r, f.b, f.n) && run_step(r) == QD_OK && run_step(r) == QD_OK &&
           fabs(r->cl->time - MVD2_FRAME_TIME) < 1e-9;
}

/* A player leaves (PPS_REMOVE) and its body's entity is removed (U_REMOVE) in one frame:
 * the body is gone from that frame on. Expected from Q2PRO's MVD client, not from qdemo:
 * MVD_ParsePacketEntities marks a removed entity not in use, MVD_PlayerToEntityStates skips
 * an edict not in use ("not present in this frame"), and a spectator is sent only entities
 * in use; the body that stays (bob's) is still there. Real data: at the end of
 * mvd2/libq2_testdata_test.mvd2's match (615.1 s) both players' bodies go so. */
TEST(mvd2_removed_body_is_gone)
{
    /* (the frame before has her body: mvd2_built_messages) */
    buf m = {0};
    put8(&m, 0);                           /* alice leaves: bit 15, PPS_REMOVE in 2010 */
    put16(&m, (int)MVD2_PPS_MOREBITS);
    put8(&m, MVD2_CLIENTNUM_NONE);
    put8(&m, Q2_U_REMOVE);                 /* and her body's entity with her */
    put8(&m, 1);
    put16(&m, 0);
    run r;
    CHECK(decode_second_frame(&r, &m));
    CHECK(!r.cl->entities[1].active);      /* her body: removed in this frame */
    cl_entstate e;
    CHECK(!cl_entity_at(r.cl, 1, r.cl->time, &e, NULL, NULL));
    CHECK(r.cl->entities[2].active);       /* bob's: still in use */
    CHECK(r.cl->entities[10].active);      /* the item: still in use */
    run_close(&r);
}

/* An entity the frame brings into use comes in from its old origin over the frame, as a
 * .dm2's does (test q2_new_entity_comes_in_from_old_origin): Q2PRO's recorder sends
 * old_origin for a new entity (src/server/mvd.c emit_frame, MSG_ES_NEWENTITY) and its MVD
 * server hands it to the spectator's client, which starts the entity there
 * (entity_update_new). Hand-made numbers: at x 200, old origin x 135, it is at 135 at the
 * frame before's time, 167.5 halfway, 200 at its frame. */
TEST(mvd2_new_entity_comes_in_from_old_origin)
{
    buf m = {0};
    put8(&m, MVD2_CLIENTNUM_NONE);
    ent_new_x(&m, 20, 6, 200, 135, 0);
    put16(&m, 0);
    run r;
    CHECK(decode_second_frame(&r, &m));
    static const float x[3] = {135, 167.5f, 200};
    for (int k = 0; k < 3; k++) {
        double t = MVD2_FRAME_TIME * k / 2;
        cl_entstate e;
        CHECK(cl_entity_at(r.cl, 20, t, &e, NULL, NULL));
        CHECK_MSG(fabsf(e.origin[0] - x[k]) < 0.01f, "at %.2f: x %.2f", t, e.origin[0]);
    }
    run_close(&r);
}

/* A frame block with the packed players and entities in list (players' end and entities'
 * end included by the caller), after the messages in pre. */
static void frame_block(buf *f, const buf *pre, const buf *list)
{
    buf m = {0};
    if (pre)
        putbuf(&m, pre);
    put8(&m, MVD2_FRAME);
    put8(&m, 0);
    putbuf(&m, list);
    mblock(f, &m);
}

/* A body left behind by client 1 (entity 30, above maxclients: a body-queue corpse, model
 * and weapon model 255, skin 1 | view weapon 2 << 8) that no frame changes, while the
 * frames go on; then configstrings name two view weapons. The corpse's weapon model is its
 * client's weapon.md2 slot while the level names none ([Q2CL] CL_AddPacketEntities: an
 * unknown view weapon is weapon.md2), and its client's second view weapon after
 * (Q2_PLAYER_VWEP_SLOT + client x Q2_MAX_VWEPS + 2 - 1): the configstring changes the look of
 * an entity no delta named, which emit_entities keeps without a look while nothing changed
 * (ent_stable) and must look at again then. */
TEST(mvd2_kept_entity_takes_a_configstring_change)
{
    static buf f;
    first_block(&f, MVD2_VERSION_DEFAULT, 0);
    buf l = {0};
    put8(&l, MVD2_CLIENTNUM_NONE);
    ent_bits(&l, Q2_U_MODEL | Q2_U_MODEL2 | Q2_U_SKIN16 | Q2_U_ORIGIN1, 30);
    put8(&l, 255);
    put8(&l, 255);
    put16(&l, 1 | 2 << 8);
    put16(&l, 8 * 40); /* x 40 */
    put16(&l, 0);
    frame_block(&f, NULL, &l);
    buf none = {0};
    put8(&none, MVD2_CLIENTNUM_NONE);
    put16(&none, 0);
    for (int k = 0; k < 4; k++) /* nothing changes: kept frame after frame */
        frame_block(&f, NULL, &none);
    buf c = {0};
    put8(&c, MVD2_CONFIGSTRING);
    cs(&c, Q2_CS_MODELS + 2, "#w_blaster.md2");
    put8(&c, MVD2_CONFIGSTRING);
    cs(&c, Q2_CS_MODELS + 3, "#w_shotgun.md2");
    frame_block(&f, &c, &none);
    frame_block(&f, NULL, &none);
    put16(&f, 0);
    run r;
    CHECK(run_open(&r, f.b, f.n));
    for (int k = 0; k < 6 && run_step(&r) == QD_OK; k++) { /* the level and five frames */
    }
    CHECK(r.e == QD_OK && r.cl->entities[30].active);
    CHECK_EQ(r.cl->entities[30].cur.model2, Q2_PLAYER_WEAPON_SLOT + 1);
    CHECK(run_step(&r) == QD_OK); /* the configstrings and a frame */
    CHECK(r.cl->entities[30].active);
    CHECK_EQ(r.cl->entities[30].cur.model2, Q2_PLAYER_VWEP_SLOT + 1 * Q2_MAX_VWEPS + 1);
    CHECK(run_step(&r) == QD_OK); /* and one more, kept */
    CHECK_EQ(r.cl->entities[30].cur.model2, Q2_PLAYER_VWEP_SLOT + 1 * Q2_MAX_VWEPS + 1);
    CHECK(fabsf(r.cl->entities[30].cur.origin[0] - 40) < 0.01f);
    run_close(&r);
}

/* A player's body that nothing changes is kept frame after frame without a look at it
 * (ent_stable), through configstrings that are no entity's look (a match clock's general
 * string, as realdata mvd2/libq2_testdata_test.mvd2 sends every second); then its
 * player state moves it and the body must follow: the player state places the body, so
 * sending it makes the body's look stale. Hand-made numbers: alice's body at x 100
 * (baseline_frame), then her state at x 300 (2400 in 1/8 units). */
TEST(mvd2_kept_body_follows_its_player_state)
{
    static buf f;
    first_block(&f, MVD2_VERSION_DEFAULT, 0);
    buf none = {0};
    put8(&none, MVD2_CLIENTNUM_NONE);
    put16(&none, 0);
    for (int k = 0; k < 3; k++) /* nothing changes: kept frame after frame */
        frame_block(&f, NULL, &none);
    buf c = {0};
    put8(&c, MVD2_CONFIGSTRING);
    cs(&c, Q2_CS_GENERAL, "Time 9:59");
    frame_block(&f, &c, &none);
    frame_block(&f, NULL, &none);
    buf l = {0};
    player(&l, 0, Q2_PM_NORMAL, 2400, 0, 200, 16384, 3);
    put8(&l, MVD2_CLIENTNUM_NONE);
    put16(&l, 0);
    frame_block(&f, NULL, &l);
    frame_block(&f, NULL, &none);
    put16(&f, 0);
    run r;
    CHECK(run_open(&r, f.b, f.n));
    for (int k = 0; k < 6 && run_step(&r) == QD_OK; k++) { /* the level and five frames */
    }
    CHECK(r.e == QD_OK && r.cl->entities[1].active);
    CHECK(fabsf(r.cl->entities[1].cur.origin[0] - 100) < 0.01f);
    CHECK(run_step(&r) == QD_OK); /* her state moves her */
    CHECK(fabsf(r.cl->entities[1].cur.origin[0] - 300) < 0.01f);
    CHECK(run_step(&r) == QD_OK); /* and she stays there */
    CHECK(fabsf(r.cl->entities[1].cur.origin[0] - 300) < 0.01f);
    CHECK(fabsf(r.cl->entities[10].cur.origin[0] - 50) < 0.01f); /* the item, kept */
    run_close(&r);
}

/* An event lasts one frame, also one read in a frame its block cuts short: entity 20
 * (new at x 200 in the second block) is sent a teleport event in a third block that ends
 * inside that delta, after the event and before its solid (damaged: the frame is not
 * shown, the decoder goes on at the next block); the frames after it change nothing, so the entity is kept there, not snapped
 * again each frame by the event as if it were new (Q2PRO's client clears an entity's event
 * with each frame it parses, [Q2P-PARSE]; the decoder's ent_event marks the events to clear,
 * and a frame cut short left its last event unmarked: found by comparing the decoder with
 * the one before it on fuzzed inputs). */
TEST(mvd2_event_of_a_cut_frame_lasts_no_longer)
{
    static buf f;
    first_block(&f, MVD2_VERSION_DEFAULT, 0);
    buf l = {0};
    put8(&l, MVD2_CLIENTNUM_NONE);
    ent_new_x(&l, 20, 6, 200, 200, 0);
    put16(&l, 0);
    frame_block(&f, NULL, &l);
    buf cut = {0}; /* the teleport, and the block ends before the solid after it */
    put8(&cut, MVD2_CLIENTNUM_NONE);
    ent_bits(&cut, Q2_U_EVENT | Q2_U_SOLID, 20);
    put8(&cut, Q2_EV_OTHER_TELEPORT);
    frame_block(&f, NULL, &cut);
    buf none = {0};
    put8(&none, MVD2_CLIENTNUM_NONE);
    put16(&none, 0);
    for (int k = 0; k < 3; k++)
        frame_block(&f, NULL, &none);
    put16(&f, 0);
    run r;
    CHECK(run_open(&r, f.b, f.n));
    CHECK_EQ(run_all(&r), QD_OK);
    CHECK_EQ(demo_num_damaged(r.d), 1);
    CHECK(r.cl->entities[20].active);
    CHECK_MSG(!(r.cl->entities[20].cur.flags & CL_EF_TELEPORT), "flags 0x%x",
              r.cl->entities[20].cur.flags);
    CHECK(fabsf(r.cl->entities[20].cur.origin[0] - 200) < 0.01f);
    run_close(&r);
}

/* A first block whose serverdata has this version and flags: refused by name. */
static void check_refused(int version, unsigned flags, const char *why)
{
    static buf f;
    f.n = 0;
    buf m = {0};
    put8(&f, 'M'); put8(&f, 'V'); put8(&f, 'D'); put8(&f, '2');
    mserverdata(&m, version, flags);
    baseline_frame(&m);
    mblock(&f, &m);
    put16(&f, 0);
    run r;
    memset(&r, 0, sizeof r);
    qd_error err;
    demo_t *d = demo_open_mem("x.mvd2", f.b, f.n, &err);
    CHECK(d != NULL);
    if (d) {
        CHECK_EQ(demo_get_format(d), DEMO_FMT_MVD2);
        cl_state *cl = malloc(sizeof *cl);
        cl_reset(cl);
        int done = 0;
        CHECK_EQ(demo_step(d, cl, NULL, &done, &err), QD_ERR_UNSUPPORTED);
        CHECK_MSG(strstr(err.msg, why) != NULL, "%s", err.msg);
        free(cl);
        demo_close(d);
    }
}

TEST(mvd2_versions_refused_by_name)
{
    check_refused(MVD2_VERSION_RERELEASE, 0, "rerelease");
    check_refused(2008, 0, "2009..2013");
}

TEST(mvd2_version_2012_flags_word)
{
    /* from 2012 the flags are a word after the version: without the extended bits the rest
     * reads as 2010's */
    static buf f;
    first_block(&f, MVD2_VERSION_EXTLIMITS_2, MVD2_MVF_NOMSGS);
    put16(&f, 0);
    run r;
    CHECK(run_open(&r, f.b, f.n));
    CHECK_EQ(run_all(&r), QD_OK);
    CHECK(demo_ended(r.d));
    CHECK_EQ(slot_of(r.cl, "bob"), 1);
    run_close(&r);
}

/* One message appended to a good first block: the error it gives, with the offset. */
static qd_err bad_second_block(const buf *m2, qd_error *err)
{
    static buf f;
    first_block(&f, MVD2_VERSION_DEFAULT, 0);
    size_t at = f.n + 2;
    mblock(&f, m2);
    put16(&f, 0);
    run r;
    qd_err e = QD_ERR_USAGE;
    if (run_open(&r, f.b, f.n)) {
        run_all(&r);
        e = r.e;
        *err = r.err;
        run_close(&r);
    }
    if (e != QD_OK && err->offset < at) /* the damage is in the second block */
        e = QD_ERR_USAGE;
    return e;
}

TEST(mvd2_bad_messages)
{
    qd_error err;
    buf m = {0};
    put8(&m, MVD2_STUFFTEXT); /* reserved */
    CHECK_EQ(bad_second_block(&m, &err), QD_ERR_BAD_DATA);
    CHECK(strstr(err.msg, "mvd_stufftext") != NULL);
    m.n = 0;
    put8(&m, MVD2_FRAME); /* a player past maxclients (4) */
    put8(&m, 0);
    put8(&m, 4);
    put16(&m, 0);
    CHECK_EQ(bad_second_block(&m, &err), QD_ERR_BAD_DATA);
    CHECK(strstr(err.msg, "player 4") != NULL);
    m.n = 0;
    put8(&m, MVD2_UNICAST); /* client 9 of 4 */
    put8(&m, 0);
    put8(&m, 9);
    CHECK_EQ(bad_second_block(&m, &err), QD_ERR_BAD_DATA);
    m.n = 0;
    put8(&m, MVD2_CONFIGSTRING);
    cs(&m, Q2_MAX_CONFIGSTRINGS, "x");
    CHECK_EQ(bad_second_block(&m, &err), QD_ERR_BAD_DATA);
    m.n = 0;
    put8(&m, MVD2_MULTICAST_PHS); /* 10 bytes announced, 2 there */
    put8(&m, 10);
    put16(&m, 1);
    put16(&m, 0);
    CHECK_EQ(bad_second_block(&m, &err), QD_ERR_TRUNCATED);
    m.n = 0;
    put8(&m, MVD2_SOUND); /* entity 1024 */
    put8(&m, 0);
    put8(&m, 1);
    put16(&m, 1024 << 3);
    CHECK_EQ(bad_second_block(&m, &err), QD_ERR_BAD_DATA);
}

/* ---- Q2PRO's extended limits (MVF_EXTLIMITS, MVF_EXTLIMITS_2) ----
 * Files written here by the rules of Q2PRO's MVD parser (/work/notes/mvd2ext/FINDINGS.md);
 * every expected value is worked out by hand from the bytes, in the comment beside them.
 * QDEMO_MVD2_SEEDS=DIR keeps two of them there (tests/fuzz/corpus/mvd2/written_*).
 * The extended configstring map's numbers are Q2PRO's shared.h ones (FINDINGS, q2ext §2):
 * CS_MAXCLIENTS 60, CS_MODELS 62, CS_SOUNDS 8254, CS_PLAYERSKINS 12862, the end 13630. */

static int xnear(double a, double b) { return fabs(a - b) < 0.01; }
static const char *str_or_none(const char *s) { return s ? s : "(none)"; }

/* The serverdata of an extended stream: four clients, observer 3, the extended map's
 * indices. */
static void ext_serverdata(buf *m, int version, unsigned flags)
{
    sd_head(m, version, flags, "");       /* gamedir: baseq2 */
    cs(m, 0, "Ext Level");                /* CS_NAME */
    cs(m, 60, "4");                       /* CS_MAXCLIENTS */
    cs(m, 62 + 1, "maps/ext.bsp");        /* CS_MODELS + 1 */
    cs(m, 62 + 300, "models/big/tris.md2");
    cs(m, 8254 + 1500, "big/hum.wav");    /* CS_SOUNDS + 1500 */
    cs(m, 12862 + 0, "alice\\male/grunt"); /* CS_PLAYERSKINS + 0 */
    cs(m, 12862 + 1, "bob\\female/athena");
    cs(m, 12862 + 3, "[MVDSPEC]\\male/grunt");
    put16(m, 13630);                      /* the end: the extended map's size */
}

/* 2011, MVF_EXTLIMITS in the id's extrabits (0x84): a 16-bit gun model, an entity numbered
 * past 1023 with a 16-bit model index, 16-bit angle, the sound word, a 32-bit solid, alpha
 * and scale; coordinates and stats as before. */
static void write_ext1(buf *f)
{
    static buf m;
    f->n = 0;
    m.n = 0;
    put8(f, 'M'); put8(f, 'V'); put8(f, 'D'); put8(f, '2');
    ext_serverdata(&m, MVD2_VERSION_EXTLIMITS, MVD2_MVF_EXTLIMITS);
    put8(&m, 0);                          /* no portal bytes */
    put8(&m, 0);                          /* alice: type, origin, angles, gun, frags */
    put16(&m, (int)(MVD2_PPS_M_TYPE | MVD2_PPS_M_ORIGIN | MVD2_PPS_M_ORIGIN2 |
                    MVD2_PPS_VIEWANGLES | MVD2_PPS_WEAPONINDEX | MVD2_PPS_STATS));
    put8(&m, Q2_PM_NORMAL);
    put16(&m, 800);                       /* x 100 */
    put16(&m, 0);
    put16(&m, 200);                       /* z 25 */
    put16(&m, 0);
    put16(&m, 16384);                     /* yaw 90 */
    put16(&m, 300);                       /* gun model 300: a word */
    put32(&m, 1u << Q2_STAT_FRAGS);
    put16(&m, 3);
    put8(&m, 1);                          /* bob at (-100, 0, 25), 1 frag */
    put16(&m, (int)(MVD2_PPS_M_TYPE | MVD2_PPS_M_ORIGIN | MVD2_PPS_M_ORIGIN2 | MVD2_PPS_STATS));
    put8(&m, Q2_PM_NORMAL);
    put16(&m, -800);
    put16(&m, 0);
    put16(&m, 200);
    put32(&m, 1u << Q2_STAT_FRAGS);
    put16(&m, 1);
    put8(&m, MVD2_CLIENTNUM_NONE);
    ent_bits(&m, Q2_U_MODEL, 1);          /* the bodies */
    put8(&m, 255);
    ent_bits(&m, Q2_U_MODEL, 2);
    put8(&m, 255);
    /* entity 3000 (U_NUMBER16): model 300 as a word, x 50, yaw 90 as a short, sound 1500 with
     * a loop volume byte, a 32-bit solid, alpha 128, scale 32 (bit 32: a fifth bits byte) */
    ent_bits(&m, Q2_U_MODEL | Q2_U_MODEL16 | Q2_U_ORIGIN1 | Q2_U_ANGLE2 | Q2_U_ANGLE16 |
                     Q2_U_SOUND | Q2_U_SOLID | Q2_U_ALPHA | (uint64_t)Q2_U5_SCALE << 32, 3000);
    put16(&m, 300);
    put16(&m, 400);
    put16(&m, 16384);
    put16(&m, 1500 | (int)Q2_XSOUND_VOLUME);
    put8(&m, 200);
    put32(&m, 0x01020304u);
    put8(&m, 128);
    put8(&m, 32);
    put16(&m, 0);
    mblock(f, &m);
    m.n = 0;
    put8(&m, MVD2_CONFIGSTRING);          /* carol in CS_PLAYERSKINS + 2 */
    cs(&m, 12862 + 2, "carol\\female/jezebel");
    put8(&m, MVD2_SOUND);                 /* sound 1500 (a word), volume 100, entity 3000 ch 1 */
    put8(&m, Q2_SND_INDEX16 | Q2_SND_VOLUME);
    put16(&m, 1500);
    put8(&m, 100);
    put16(&m, 3000 << 3 | 1);
    put8(&m, MVD2_FRAME);
    put8(&m, 0);
    put8(&m, 0);                          /* alice to x 200 (M_ORIGIN: x and y) */
    put16(&m, (int)MVD2_PPS_M_ORIGIN);
    put16(&m, 1600);
    put16(&m, 0);
    put8(&m, MVD2_CLIENTNUM_NONE);
    ent_bits(&m, Q2_U_ORIGIN1, 3000);     /* entity 3000 to x 100 */
    put16(&m, 800);
    put16(&m, 0);
    mblock(f, &m);
    put16(f, 0);
}

TEST(mvd2_extlimits)
{
    static buf f;
    write_ext1(&f);
    test_seed("QDEMO_MVD2_SEEDS", "written_q2pro_extlimits.mvd2", &f);
    CHECK_EQ(demo_mvd2_decoder.probe(f.b, f.n, NULL), 10);
    run r;
    CHECK(run_open(&r, f.b, f.n));
    CHECK_STR(str_or_none(demo_protocol_name(r.d)), "Q2PRO extended limits"); /* the header's */
    CHECK_EQ(run_step(&r), QD_OK);
    CHECK_MSG(r.e == QD_OK, "%s", r.err.msg);
    cl_state *cl = r.cl;
    CHECK_EQ(cl->level.max_clients, 4);   /* CS_MAXCLIENTS at 60 */
    CHECK_STR(cl->level.title, "Ext Level");
    CHECK_STR(cl->level.map, "maps/ext.bsp");
    CHECK_STR(cl->level.models[1964], "models/big/tris.md2"); /* 300 + 1664, q2_model_slot */
    CHECK_STR(cl->level.sounds[1500], "big/hum.wav");
    CHECK_EQ(slot_of(cl, "alice"), 0);
    CHECK_EQ(slot_of(cl, "bob"), 1);
    CHECK_EQ(cl->players[0].frags, 3);
    CHECK_EQ(cl->players[1].frags, 1);
    CHECK_EQ(cl_stats_of(cl, -1)->gun_model, 1964); /* alice is the view: gun model 300 */
    CHECK(xnear(cl->view.origin[0], 100));
    CHECK(xnear(cl->entities[1].cur.origin[0], 100)); /* her body, placed by her state */
    const cl_entity *e = &cl->entities[3000];
    CHECK(e->active);
    CHECK_EQ(e->cur.model, 1964);
    CHECK(xnear(e->cur.origin[0], 50));
    CHECK(xnear(e->cur.angles[1], 90));   /* 16384 / 65536 turns */
    CHECK_EQ(e->cur.alpha, 128);
    CHECK_EQ(e->cur.scale, 32);
    const mvd2_state *s = demo_state(r.d);
    if (!test_failed()) { /* the decoder's own state, once it took the level */
        CHECK_EQ(s->ents[3000].solid, 0x01020304u);
        CHECK_EQ(s->ents[3000].sound, 1500);
    }
    CHECK_EQ(run_step(&r), QD_OK);
    CHECK_EQ(slot_of(cl, "carol"), 2);    /* mvd_configstring at 12862 + 2 */
    CHECK_EQ(cl->fxlog.sound_count, 1);
    const cl_sound *snd = &cl->fxlog.sounds[0];
    CHECK_EQ(snd->sound, 1500);
    CHECK_EQ(snd->entity, 3000);
    CHECK_EQ(snd->channel, 1);
    CHECK_EQ(snd->volume, 100);
    CHECK(snd->has_origin && xnear(snd->origin[0], 50)); /* before the frame moved it */
    CHECK(xnear(cl->view.origin[0], 200));
    CHECK(xnear(cl->entities[3000].cur.origin[0], 100));
    CHECK_EQ(run_step(&r), QD_OK);
    CHECK(r.done && demo_ended(r.d));
    run_close(&r);
}

/* 2012 with the flags word MVF_EXTLIMITS | MVF_EXTLIMITS_2, or 2013 (fog: PPS_MOREBITS
 * brings a third bits byte, PPS_FOG the fog after the blend): int23 origins, the blend's
 * mask, a varint stat mask of 64, and a player removed both ways. */
static void write_ext2(buf *f, int fog)
{
    static buf m;
    f->n = 0;
    m.n = 0;
    put8(f, 'M'); put8(f, 'V'); put8(f, 'D'); put8(f, '2');
    ext_serverdata(&m, fog ? MVD2_VERSION_PLAYERFOG : MVD2_VERSION_EXTLIMITS_2,
                   MVD2_MVF_EXTLIMITS | MVD2_MVF_EXTLIMITS_2);
    put8(&m, 0);
    unsigned bits = MVD2_PPS_M_TYPE | MVD2_PPS_M_ORIGIN | MVD2_PPS_M_ORIGIN2 |
                    MVD2_PPS_VIEWANGLES | MVD2_PPS_BLEND | MVD2_PPS_FOV | MVD2_PPS_STATS;
    put8(&m, 0);                          /* alice */
    put16(&m, (int)(bits | (fog ? MVD2_PPS_MOREBITS : 0u)));
    if (fog)
        put8(&m, MVD2_PPS_FOG >> 16);     /* bit 17: 0x02 */
    put8(&m, Q2_PM_NORMAL);
    put_i23_delta(&m, 16);                /* x: 0 + 16 = 16 (2 units) */
    put_i23_abs(&m, -40000);              /* y: -40000 (-5000 units): bytes 81 C7 FE */
    put_i23_delta(&m, 24);                /* z: 24 (3 units) */
    put16(&m, 0);
    put16(&m, 16384);
    put_ext2_ps_tail(&m, fog);            /* blend 200, the fog, fov 100, health 75 */
    put8(&m, 1);                          /* bob at (-2, 0, 3) */
    put16(&m, (int)(MVD2_PPS_M_TYPE | MVD2_PPS_M_ORIGIN | MVD2_PPS_M_ORIGIN2));
    put8(&m, Q2_PM_NORMAL);
    put_i23_delta(&m, -16);
    put_i23_delta(&m, 0);
    put_i23_delta(&m, 24);
    put8(&m, MVD2_CLIENTNUM_NONE);
    ent_bits(&m, Q2_U_MODEL, 1);
    put8(&m, 255);
    ent_bits(&m, Q2_U_MODEL, 2);
    put8(&m, 255);
    /* entity 10: model 5, x 40000 (5000 units, absolute), old origin (80, 0, 0) eighths as
     * three int23 from 0 */
    ent_bits(&m, Q2_U_MODEL | Q2_U_ORIGIN1 | Q2_U_OLDORIGIN, 10);
    put8(&m, 5);
    put_i23_abs(&m, 40000);
    put_i23_delta(&m, 80);
    put_i23_delta(&m, 0);
    put_i23_delta(&m, 0);
    put16(&m, 0);
    mblock(f, &m);

    m.n = 0;
    put8(&m, MVD2_FRAME);
    put8(&m, 0);
    put8(&m, 0);                          /* alice: x + 8 = 24 (3 units), y unchanged */
    put16(&m, (int)MVD2_PPS_M_ORIGIN);
    put_i23_delta(&m, 8);
    put_i23_delta(&m, 0);
    put8(&m, 1);                          /* bob leaves: bit 15, then (2013) bit 16's byte */
    put16(&m, (int)MVD2_PPS_MOREBITS);
    if (fog)
        put8(&m, MVD2_PPS_REMOVE >> 16);  /* 0x01 */
    put8(&m, MVD2_CLIENTNUM_NONE);
    ent_bits(&m, Q2_U_ORIGIN1, 10);       /* entity 10: 40000 - 16 = 39984 (4998 units) */
    put_i23_delta(&m, -16);
    put16(&m, 0);
    if (fog) { /* a frame: alice's bit 15 with a zero third byte is no removal; pm_type 0 */
        put8(&m, MVD2_FRAME);
        put8(&m, 0);
        put8(&m, 0);
        put16(&m, (int)(MVD2_PPS_MOREBITS | MVD2_PPS_M_TYPE));
        put8(&m, 0);
        put8(&m, Q2_PM_NORMAL);
        put8(&m, MVD2_CLIENTNUM_NONE);
        put16(&m, 0);
    }
    mblock(f, &m);
    put16(f, 0);
}

TEST(mvd2_extlimits_2)
{
    static const char *const names[2] = {"Q2PRO extended limits v2",
                                         "Q2PRO extended limits v2 with player fog"};
    for (int fog = 0; fog < 2; fog++) {
        static buf f;
        write_ext2(&f, fog);
        if (fog)
            test_seed("QDEMO_MVD2_SEEDS", "written_q2pro_extlimits_2.mvd2", &f);
        run r;
        CHECK(run_open(&r, f.b, f.n));
        CHECK_EQ(run_step(&r), QD_OK);
        const mvd2_state *s = demo_state(r.d);
        if (!test_failed()) /* before the next delta moves it on */
            CHECK_EQ(s->ents[10].old_origin[0], 80);
        run_all(&r);
        CHECK_MSG(r.e == QD_OK && r.done, "fog %d: %s", fog, r.err.msg);
        CHECK_STR(str_or_none(demo_protocol_name(r.d)), names[fog]);
        cl_state *cl = r.cl;
        /* alice's eye: (24, -40000, 24) eighths = (3, -5000, 3); the fov read after the fog */
        CHECK_EQ(cl->view.player, 1);
        CHECK(xnear(cl->view.origin[0], 3));
        CHECK(xnear(cl->view.origin[1], -5000));
        CHECK(xnear(cl->view.origin[2], 3));
        CHECK_EQ(cl->view.fov, 100);
        CHECK_EQ(cl_stats_of(cl, -1)->health, 75);
        CHECK(!cl->players[0].spectator);
        CHECK(cl->players[1].spectator);  /* bob removed */
        if (!test_failed()) {
            CHECK_EQ(s->players[0].blend[0], 200);
            CHECK_EQ(s->players[1].origin[0], -16);
        }
        CHECK(cl->entities[10].active && cl->entities[10].cur.model == 5);
        CHECK(xnear(cl->entities[10].cur.origin[0], 4998));
        run_close(&r);
    }
}

/* An extended file, or a plain one, with a second block of n mvd_nop. */
static void write_nops(buf *f, int ext, size_t n)
{
    static buf m;
    f->n = 0;
    m.n = 0;
    put8(f, 'M'); put8(f, 'V'); put8(f, 'D'); put8(f, '2');
    if (ext)
        ext_serverdata(&m, MVD2_VERSION_EXTLIMITS, MVD2_MVF_EXTLIMITS);
    else
        mserverdata(&m, MVD2_VERSION_DEFAULT, 0);
    put8(&m, 0);
    put8(&m, MVD2_CLIENTNUM_NONE);
    put16(&m, 0);
    mblock(f, &m);
    m.n = 0;
    for (size_t i = 0; i < n; i++)
        put8(&m, MVD2_NOP);
    mblock(f, &m);
    put16(f, 0);
}

/* The decoder's own first error on f (no skipping of damaged blocks), code QD_OK for none. */
static qd_error first_error(const buf *f)
{
    qd_error err = {0};
    void *st = calloc(1, demo_mvd2_decoder.state_size);
    cl_state *cl = malloc(sizeof *cl);
    qd_err e = st && cl ? QD_OK : QD_ERR_NOMEM;
    if (e == QD_OK) {
        cl_reset(cl);
        e = demo_mvd2_decoder.init(st, f->b, f->n, &err);
    }
    int done = 0;
    for (size_t n = 0; e == QD_OK && !done && n <= f->n; n++)
        e = demo_mvd2_decoder.step(st, f->b, f->n, cl, NULL, &done, &err);
    err.code = e;
    free(st);
    free(cl);
    return err;
}

/* The errors the extended rules bring, at their message's offset; the version gates. */
TEST(mvd2_extlimits_errors)
{
    static buf f, m;
    qd_error err;
    run r;
    /* MVF_EXTLIMITS_2 without MVF_EXTLIMITS: the parser's error */
    f.n = 0;
    m.n = 0;
    put8(&f, 'M'); put8(&f, 'V'); put8(&f, 'D'); put8(&f, '2');
    ext_serverdata(&m, MVD2_VERSION_EXTLIMITS_2, MVD2_MVF_EXTLIMITS_2);
    mblock(&f, &m);
    put16(&f, 0);
    err = first_error(&f);
    CHECK_EQ(err.code, QD_ERR_BAD_DATA);
    CHECK_MSG(strstr(err.msg, "MVF_EXTLIMITS_2 without MVF_EXTLIMITS") != NULL, "%s", err.msg);
    CHECK_EQ(err.offset, 6u);             /* the serverdata: after "MVD2" and the length */
    /* MVF_EXTLIMITS in a 2010 stream's extrabits counts for nothing: a plain file */
    f.n = 0;
    m.n = 0;
    put8(&f, 'M'); put8(&f, 'V'); put8(&f, 'D'); put8(&f, '2');
    mserverdata(&m, MVD2_VERSION_DEFAULT, MVD2_MVF_EXTLIMITS);
    baseline_frame(&m);
    mblock(&f, &m);
    put16(&f, 0);
    CHECK(run_open(&r, f.b, f.n));
    CHECK_EQ(run_all(&r), QD_OK);
    CHECK(demo_protocol_name(r.d) == NULL);
    CHECK_EQ(slot_of(r.cl, "bob"), 1);
    run_close(&r);
    /* entity 8192, one past MAX_EDICTS, and configstring 13630, the extended map's end */
    for (int k = 0; k < 2; k++) {
        write_ext1(&f);
        size_t at = f.n - 2;              /* the end block's place: one more block there */
        f.n = at;
        m.n = 0;
        if (k == 0) {
            put8(&m, MVD2_FRAME);
            put8(&m, 0);
            put8(&m, MVD2_CLIENTNUM_NONE);
            ent_bits(&m, Q2_U_ORIGIN1, 8192);
            put16(&m, 8);
        } else {
            put8(&m, MVD2_CONFIGSTRING);
            cs(&m, 13630, "x");
        }
        mblock(&f, &m);
        put16(&f, 0);
        err = first_error(&f);
        CHECK_EQ(err.code, QD_ERR_BAD_DATA);
        /* the entity header after the id, the portal count and the players' end; the
         * configstring's id */
        CHECK_EQ(err.offset, (uint64_t)(k == 0 ? at + 2 + 3 : at + 2));
        CHECK_MSG(strstr(err.msg, k == 0 ? "entity 8192 over 8191" : "13630 over 13629"), "%s",
                  err.msg);
    }
    /* a block of 0x9000 bytes: past 0x8000, within the extended MAX_MSGLEN 0x10000 */
    for (int ext = 0; ext < 2; ext++) {
        write_nops(&f, ext, 0x9000);
        err = first_error(&f);
        if (ext) {
            CHECK_MSG(err.code == QD_OK, "%s", err.msg);
        } else {
            CHECK_EQ(err.code, QD_ERR_BAD_DATA);
            CHECK_MSG(strstr(err.msg, "block size 36864 over 32768") != NULL, "%s", err.msg);
        }
    }
}

/* Every cut of the extended files (which decode whole): an error at or before the cut, or a
 * clean end. */
TEST(mvd2_extlimits_cuts)
{
    static buf f;
    uint8_t *copy = malloc(sizeof f.b);
    for (int k = 0; k < 3 && copy; k++) {
        if (k == 0)
            write_ext1(&f);
        else
            write_ext2(&f, k - 1);
        qd_error whole = first_error(&f);
        CHECK_MSG(whole.code == QD_OK, "file %d: %s", k, whole.msg);
        for (size_t cut = 0; cut < f.n && !test_failed(); cut++) {
            memcpy(copy, f.b, cut);
            run r;
            if (!run_open(&r, copy, cut)) {
                CHECK_MSG(cut < 4, "cut %zu: %s", cut, r.err.msg);
                run_close(&r);
                continue;
            }
            run_all(&r);
            CHECK_MSG(r.e != QD_OK ? r.err.offset <= cut && r.err.msg[0] : r.done,
                      "file %d cut %zu: %s", k, cut, r.err.msg);
            run_close(&r);
        }
    }
    free(copy);
}

/* ---- the real recording ---- */

/* The real file's bytes (free them), or NULL when it is not there. */
static uint8_t *real_file(size_t *len)
{
    char path[1024];
    return test_realfile(path, sizeof path, REAL) ? test_read_file(path, len) : NULL;
}

/* The file walked by its framing: blocks (end block excluded), and the players the first
 * block's serverdata names (CS_PLAYERSKINS), read here by hand. */
typedef struct walk {
    int blocks, ended;
    size_t end_ofs;
    char names[MVD2_MAX_CLIENTS][32];
    int maxclients;
} walk;

static void walk_file(const uint8_t *d, size_t len, walk *w)
{
    memset(w, 0, sizeof *w);
    size_t pos = 4;
    while (pos + 2 <= len) {
        size_t n = (size_t)(d[pos] | d[pos + 1] << 8);
        if (n == 0) {
            w->ended = 1;
            w->end_ofs = pos + 2;
            break;
        }
        if (w->blocks == 0) { /* id, protocol, version, servercount, gamedir, client */
            size_t p = pos + 2 + 1 + 4 + 2 + 4;
            while (d[p])
                p++;
            p += 3;
            for (;;) {
                int index = d[p] | d[p + 1] << 8;
                p += 2;
                if (index == Q2_MAX_CONFIGSTRINGS)
                    break;
                const char *s = (const char *)d + p;
                if (index >= Q2_CS_PLAYERSKINS && index < Q2_CS_PLAYERSKINS + MVD2_MAX_CLIENTS) {
                    char *o = w->names[index - Q2_CS_PLAYERSKINS];
                    size_t k = 0;
                    while (s[k] && s[k] != '\\' && k < 31) {
                        o[k] = s[k];
                        k++;
                    }
                }
                if (index == Q2_CS_MAXCLIENTS)
                    w->maxclients = atoi(s);
                p += strlen(s) + 1;
            }
        }
        w->blocks++;
        pos += 2 + n;
    }
}

typedef struct tally {
    int frames, serverdata;
} tally;

static void tally_sink(void *ctx, double t, uint32_t blk, uint64_t offset, const char *name,
                       const char *detail)
{
    (void)t;
    (void)blk;
    (void)offset;
    (void)detail;
    tally *n = ctx;
    n->frames += !strcmp(name, "mvd_frame");
    n->serverdata += !strcmp(name, "mvd_serverdata");
}

TEST(mvd2_realdata_complete)
{
    size_t len;
    uint8_t *data = real_file(&len);
    if (!data)
        SKIP(REAL " missing");
    static walk w;
    walk_file(data, len, &w);
    CHECK(w.ended && w.end_ofs == len);
    CHECK_EQ(w.maxclients, 25);
    run r;
    CHECK(run_open(&r, data, len));
    tally n = {0, 0};
    demo_trace tr = {&n, tally_sink};
    int max_frags[CL_MAX_PLAYERS] = {0}, followed[CL_MAX_PLAYERS] = {0};
    while (!r.done && r.e == QD_OK) {
        r.e = demo_step(r.d, r.cl, &tr, &r.done, &r.err);
        r.steps++;
        for (int i = 0; i < CL_MAX_PLAYERS; i++) {
            const cl_player *p = &r.cl->players[i];
            if (p->frags > max_frags[i])
                max_frags[i] = p->frags;
            /* followable: in the game with a body the client draws as a player */
            if (p->active && !p->spectator && p->entity > 0 &&
                r.cl->entities[p->entity].active &&
                (r.cl->entities[p->entity].cur.flags & CL_EF_PLAYER))
                followed[i]++;
        }
    }
    CHECK_EQ(r.e, QD_OK);
    CHECK_MSG(r.e == QD_OK, "%s", r.err.msg);
    CHECK(demo_ended(r.d));
    CHECK_EQ(demo_num_damaged(r.d), 0);
    CHECK_EQ(demo_offset(r.d), (uint64_t)len);
    CHECK_EQ(r.steps, w.blocks + 1);      /* a step a block, then the end block */
    CHECK_EQ(n.serverdata, 1);
    /* the recorder writes one block a server frame, ten a second: the serverdata's block
     * holds the first frame, every other block one */
    CHECK_EQ(n.frames, w.blocks);
    CHECK(fabs(r.cl->time - (w.blocks - 1) * 0.1) < 1e-6);
    for (int i = 0; i < MVD2_MAX_CLIENTS && i < CL_MAX_PLAYERS; i++)
        if (w.names[i][0])
            CHECK_MSG(slot_of(r.cl, w.names[i]) == i, "%s not in slot %d", w.names[i], i);
    /* "claire wins, 17 to 7." printed at the match's end */
    int claire = slot_of(r.cl, "claire"), shloo = slot_of(r.cl, "[dream]shloo");
    CHECK(claire >= 0 && shloo >= 0);
    if (claire >= 0 && shloo >= 0) {
        CHECK_EQ(max_frags[claire], 17);
        CHECK_EQ(max_frags[shloo], 7);
        /* both play the ten minutes: followable nearly every frame */
        CHECK(followed[claire] > w.blocks * 9 / 10);
        CHECK(followed[shloo] > w.blocks * 9 / 10);
    }
    int observer = slot_of(r.cl, "[MVDSPEC]");
    CHECK(observer >= 0);
    CHECK_EQ(followed[observer], 0); /* the server's observer */
    run_close(&r);
    free(data);
}

/* A rewind leaves the decoder's state as opening did, byte for byte, although it clears
 * the entities only up to the highest number the decode read (mvd2_clear: ents_hi; each
 * level's start clears no more either): the whole decode again gives the client the same
 * bytes. A clear that stopped short, or a number read without raising ents_hi, leaves the
 * decode's entities in the state. */
TEST(mvd2_rewind_decodes_as_opened)
{
    size_t len;
    uint8_t *data = real_file(&len);
    if (!data)
        SKIP(REAL " missing");
    run r;
    CHECK(run_open(&r, data, len));
    size_t n = demo_state_size(r.d);
    uint8_t *fresh = malloc(n);
    cl_state *opened = malloc(sizeof *opened);
    CHECK(fresh && opened);
    if (test_failed())
        goto out;
    memcpy(fresh, demo_state(r.d), n);
    unsigned most = 0;
    while (!r.done && r.e == QD_OK) {
        r.e = demo_step(r.d, r.cl, NULL, &r.done, &r.err);
        const mvd2_state *s = demo_state(r.d);
        most = s->ents_hi > most ? s->ents_hi : most;
    }
    CHECK_EQ(r.e, QD_OK);
    CHECK(most > 0); /* (entities were read: the clear had some to clear) */
    memcpy(opened, r.cl, sizeof *opened);
    CHECK_EQ(demo_rewind(r.d, &r.err), QD_OK);
    CHECK_MSG(memcmp(fresh, demo_state(r.d), n) == 0, "the rewound state differs");
    cl_reset(r.cl);
    r.done = 0;
    r.e = QD_OK;
    while (!r.done && r.e == QD_OK)
        r.e = demo_step(r.d, r.cl, NULL, &r.done, &r.err);
    CHECK_EQ(r.e, QD_OK);
    CHECK_MSG(memcmp(opened, r.cl, sizeof *opened) == 0, "the client state differs");
out:
    free(fresh);
    free(opened);
    run_close(&r);
    free(data);
}

/* Every cut of the first 8 KiB (the first block is 7 KiB): a clean error at or before the
 * cut, never past it, or a clean end at a block boundary. */
TEST(mvd2_realdata_cuts)
{
    size_t len;
    uint8_t *data = real_file(&len);
    if (!data)
        SKIP(REAL " missing");
    uint8_t *copy = malloc(8192);
    for (size_t cut = 0; cut < 8192 && cut < len && !test_failed(); cut++) {
        memcpy(copy, data, cut);
        run r;
        if (!run_open(&r, copy, cut)) {
            CHECK_MSG(cut < 4 && r.err.offset <= cut, "cut %zu: %s", cut, r.err.msg);
            run_close(&r);
            continue;
        }
        run_all(&r);
        CHECK_MSG(r.e != QD_OK ? r.err.offset <= cut && r.err.msg[0] : r.done,
                  "cut %zu: %s at %llu", cut, r.err.msg, (unsigned long long)r.err.offset);
        run_close(&r);
    }
    free(copy);
    free(data);
}

/* A damaged byte inside a block: that block is skipped (block_at's framing) and the decode
 * goes on to the end. */
TEST(mvd2_realdata_resync)
{
    size_t len;
    uint8_t *data = real_file(&len);
    if (!data)
        SKIP(REAL " missing");
    /* block 1000 by the framing: its first message id becomes 31, no MVD message */
    size_t pos = 4;
    for (int b = 0; b < 1000; b++)
        pos += 2 + (size_t)(data[pos] | data[pos + 1] << 8);
    data[pos + 2] = 31;
    run r;
    CHECK(run_open(&r, data, len));
    CHECK_EQ(run_all(&r), QD_OK);
    CHECK(r.done && demo_ended(r.d));
    CHECK_EQ(demo_num_damaged(r.d), 1);
    /* the frames after the damage keep their times: a block a frame, ten a second */
    static walk w;
    walk_file(data, len, &w);
    CHECK_MSG(fabs(r.cl->time - (w.blocks - 1) * 0.1) < 1e-6, "ends at %.3f", r.cl->time);
    if (demo_num_damaged(r.d) == 1)
        CHECK_EQ(demo_damaged(r.d, 0)->offset, (uint64_t)pos);
    uint64_t size = 0;
    CHECK_EQ(demo_mvd2_decoder.block_at(data, len, pos, 1, &size), DEMO_BLOCK_NONE);
    CHECK_EQ(demo_mvd2_decoder.block_at(data, len, pos, 0, &size), DEMO_BLOCK_WHOLE);
    CHECK_EQ(size, 2u + (data[pos] | data[pos + 1] << 8));
    CHECK_EQ(demo_mvd2_decoder.block_at(data, len, len - 2, 1, &size), DEMO_BLOCK_END);
    size_t last = pos; /* the last block before the end block, cut by one byte */
    while (last + 2 + (size_t)(data[last] | data[last + 1] << 8) < len - 2)
        last += 2 + (size_t)(data[last] | data[last + 1] << 8);
    CHECK_EQ(demo_mvd2_decoder.block_at(data, len - 3, last, 1, &size), DEMO_BLOCK_CUT);
    run_close(&r);
    free(data);
}

/* ---- the view's stats and the clock after damage (review findings, 2026-12-02) ---- */

/* A player's state with only its health: the first time also its pm_type (a new player). */
static void pstat(buf *m, int num, int first, int health)
{
    put8(m, (unsigned)num);
    put16(m, (int)((first ? MVD2_PPS_M_TYPE : 0) | MVD2_PPS_STATS));
    if (first)
        put8(m, Q2_PM_NORMAL);
    put32(m, 1u << Q2_STAT_HEALTH);
    put16(m, health);
}

/* "MVD2" and a first block: serverdata (maxclients given, no observer in use) and a frame
 * with the players of `players` (each slot once, health 100). */
static void small_head(buf *f, const char *maxclients, const int *players, int np)
{
    f->n = 0;
    buf m = {0};
    put8(f, 'M'); put8(f, 'V'); put8(f, 'D'); put8(f, '2');
    sd_head(&m, MVD2_VERSION_DEFAULT, 0, "baseq2");
    cs(&m, Q2_CS_NAME, "test");
    cs(&m, Q2_CS_MAXCLIENTS, maxclients);
    put16(&m, Q2_MAX_CONFIGSTRINGS);
    put8(&m, 0); /* no portal bytes */
    for (int i = 0; i < np; i++)
        pstat(&m, players[i], 1, 100);
    put8(&m, MVD2_CLIENTNUM_NONE);
    put16(&m, 0);
    mblock(f, &m);
}

/* A frame message: player num's health, nothing else. */
static void health_frame(buf *m, int num, int health)
{
    put8(m, MVD2_FRAME);
    put8(m, 0);
    pstat(m, num, 0, health);
    put8(m, MVD2_CLIENTNUM_NONE);
    put16(m, 0);
}

/* Health of the recorded view after each block (a frame each here; the end block not
 * counted): at most `cap` of them, -1 where its stats are not valid. */
static int view_healths(const buf *f, int *out, int cap)
{
    run r;
    int n = 0;
    if (!run_open(&r, f->b, f->n)) {
        run_close(&r);
        return -1;
    }
    while (!r.done && run_step(&r) == QD_OK && !r.done && n < cap) {
        const cl_stats *st = cl_stats_of(r.cl, -1);
        out[n++] = st && (st->flags & CL_ST_VALID) ? st->health : -1;
    }
    run_close(&r);
    return n;
}

/* The view on a player in slot 70 of 128 (past the client's 64 player slots): its stats
 * are still the view's (Q2PRO's MVD client follows any slot below maxclients). Before the
 * fix the view's stats were never set: -1 (not valid) at every frame. */
TEST(mvd2_view_past_the_player_slots_has_stats)
{
    static buf f;
    const int only70[] = {70};
    small_head(&f, "128", only70, 1);
    for (int h = 90; h >= 70; h -= 10) {
        buf m = {0};
        health_frame(&m, 70, h);
        mblock(&f, &m);
    }
    put16(&f, 0);
    int got[8], n = view_healths(&f, got, 8);
    CHECK_EQ(n, 4);
    /* the first block's 100, then the three frames' 90, 80, 70 */
    for (int i = 0; i < n && i < 4; i++)
        CHECK_MSG(got[i] == 100 - 10 * i, "frame %d: health %d, want %d", i, got[i],
                  100 - 10 * i);
}

/* After the damage: two good frames (player 0's health 50, 40), a block each, and the end. */
static void two_frames_and_end(buf *f)
{
    for (int h = 50; h >= 40; h -= 10) {
        buf k = {0};
        health_frame(&k, 0, h);
        mblock(f, &k);
    }
    put16(f, 0);
}

/* The decode's clock at its end, on f. */
static double end_time(const buf *f, int *damaged)
{
    run r;
    double t = -1;
    if (run_open(&r, f->b, f->n)) {
        run_all(&r);
        t = r.cl->time;
        *damaged = demo_num_damaged(r.d);
    }
    run_close(&r);
    return t;
}

/* A block whose length is over MAX_MSGLEN, after a block of `before` frames: the decode
 * skips it as one lost frame (a block a frame, demo.c's rule for damage), so the frames
 * after it keep ten a second. Counted by hand: the first block's frame at 0, `before` frames
 * at 0.1 each, the lost block 0.1, then two frames: (before + 3) x 0.1. Before the fix the
 * lost count started at the block before the damage: 0.1 too many with none before it,
 * 0.1 too few with two. */
static void bad_header_after(int before, double *t, int *damaged)
{
    static buf f;
    const int p0[] = {0};
    small_head(&f, "4", p0, 1);
    buf m = {0};
    if (before == 0)
        put8(&m, MVD2_NOP);
    for (int i = 0; i < before; i++)
        health_frame(&m, 0, 90 - i);
    mblock(&f, &m);
    put16(&f, 0x9000); /* over MAX_MSGLEN 0x8000, then junk no block chain starts in */
    for (int i = 0; i < 64; i++)
        put8(&f, 0xff);
    two_frames_and_end(&f);
    *t = end_time(&f, damaged);
}

TEST(mvd2_lost_frames_after_a_bad_block_length)
{
    for (int before = 2; before >= 0; before--) {
        double t;
        int damaged = 0;
        bad_header_after(before, &t, &damaged);
        CHECK_EQ(damaged, 1);
        CHECK_MSG(fabs(t - (before + 3) * 0.1) < 1e-6, "%d frame(s) before: ends at %.3f, want %.3f",
                  before, t, (before + 3) * 0.1);
    }
}

/* A damaged block (a message id no MVD has) then 4000 zero bytes before the next good
 * block: the zeros are no frames (an end marker's length, over and over). Counted by hand:
 * the first block 0, one frame 0.1, the damaged block 0.2, two frames 0.3 and 0.4. Before
 * the fix every two zero bytes counted as a lost frame: 200 s more. */
TEST(mvd2_zeros_after_damage_are_no_frames)
{
    static buf f;
    const int p0[] = {0};
    small_head(&f, "4", p0, 1);
    buf m = {0};
    health_frame(&m, 0, 90);
    mblock(&f, &m);
    put16(&f, 8);
    for (int i = 0; i < 8; i++)
        put8(&f, 0); /* message id 0: none */
    for (int i = 0; i < 4000; i++)
        put8(&f, 0);
    two_frames_and_end(&f);
    int damaged = 0;
    double t = end_time(&f, &damaged);
    CHECK_EQ(damaged, 1);
    CHECK_MSG(fabs(t - 0.4) < 1e-6, "ends at %.3f, want 0.400", t);
}
