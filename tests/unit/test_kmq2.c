/* test_kmq2.c: KMQuake2's protocol-56 .dm2, written here byte by byte by the layout of its
 * readers ([KMQ2] in q2_local.h: m-x-d/KMQuake2 client/cl_ents.c, client/cl_parse.c,
 * client/cl_tempent.c, qcommon/common.c, game/q_shared.h). Every expected value is worked
 * out by hand from the bytes written, in the comment beside it. The real file is decoded in test_q2.c (q2_realdata)
 * and test_cli.c (cli_info_kmquake2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/demo/demo.h"
#include "../../src/demo/q2_local.h"
#include "../q2build.h"
#include "../test.h"
#include "../testbuf.h"

static int knear(double a, double b) { return fabs(a - b) < 0.01; }

/* An entity header as KMQuake2 writes it: up to four bit bytes (bits 28..31 are its own
 * fields, never a fifth byte), then the number. */
static void kent(buf *m, uint32_t bits, int num) { ent_bits_in(m, bits, num, 0); }

/* A 24-bit coordinate (1/8 units): bits 16..23 first, then the low word. */
static void kcoord(buf *m, int32_t v)
{
    uint32_t u = (uint32_t)v & 0xffffff;
    put8(m, u >> 16);
    put16(m, (int)(u & 0xffff));
}

/* The level, a baseline with an angle (a byte, or with angle16 a word), then one frame with
 * the player state, two entities, svc_fog, a temp entity, a sound and a muzzle flash. */
static void write_kmq2(buf *f, int angle16)
{
    static buf m;
    m.n = 0;
    serverdata(&m, Q2_PROTOCOL_KMQ2, Q2_RECORD_CLIENT, "baseq64", 0);
    configstring(&m, 30, "1");                        /* CS_MAXCLIENTS: 1 */
    configstring(&m, 32 + 1, "maps/t.bsp");           /* CS_MODELS 32: model 1 */
    configstring(&m, 32 + 300, "models/big/tris.md2"); /* model 300: slot 300 + 1664 */
    configstring(&m, 8224 + 5, "world/hum.wav");      /* CS_SOUNDS 8224: sound 5 */
    configstring(&m, 8224 + 2000, "far.wav");         /* sound 2000: past the client's 1024 */
    configstring(&m, 18976 + 0, "Alice\\female/athena"); /* CS_PLAYERSKINS 18976: client 0 */
    put8(&m, Q2_SVC_SPAWNBASELINE);
    /* entity 5: model 300 (a word), x -70000/8 = -8750 (0xFEEE90: FE, then 90 EE), yaw 90
     * (a byte 64: 64 x 256 = 16384, or the word 16384) */
    kent(&m, Q2_U_MODEL | Q2_U_ORIGIN1 | Q2_U_ANGLE2, 5);
    put16(&m, 300);
    kcoord(&m, -70000);
    if (angle16)
        put16(&m, 16384);
    else
        put8(&m, 64);
    put8(&m, Q2_SVC_STUFFTEXT);
    putstr(&m, "precache\n");
    block(f, &m);

    m.n = 0;
    frame(&m, 1, -1);
    put8(&m, Q2_SVC_PLAYERINFO);
    put32(&m, Q2_PS_M_ORIGIN | Q2_PS_WEAPONINDEX | Q2_PS_WEAPONINDEX2_KMQ2 |
                  Q2_PS_WEAPONFRAME2_KMQ2 | (1u << 19) /* PS_MAXSPEED */ | Q2_PS_FOV);
    kcoord(&m, -16);    /* x -2: FF F0 FF */
    kcoord(&m, 800);    /* y 100 */
    kcoord(&m, 65536);  /* z 8192: 01 00 00 */
    put16(&m, 2);       /* the gun: model 2 */
    put16(&m, 7);       /* the second gun: read past */
    put8(&m, 9);        /* the second gun's frame (no first frame sent) */
    for (int i = 0; i < 6; i++)
        put8(&m, 0);    /* gun offset and angles, after either frame */
    put16(&m, 300);     /* max speed: read past */
    put8(&m, 90);       /* fov */
    /* stats: mask bit 1 sends stats 1, 33, 65, ... 225: eight words; the first is the
     * health, 77 */
    put32(&m, 1u << Q2_STAT_HEALTH);
    put16(&m, 77);
    for (int i = 1; i < 8; i++)
        put16(&m, 1000 + i);
    put8(&m, Q2_SVC_PACKETENTITIES);
    /* entity 1, the player: model 8191 (MAX_MODELS - 1: the client's own), skin 0 */
    kent(&m, Q2_U_MODEL | Q2_U_SKIN8, 1);
    put16(&m, 8191);
    put8(&m, 0);
    /* entity 5 from its baseline: x 800/8 = 100, alpha 128 (bit 31, after the origin), its
     * loop sound 5 (a word) and an attenuation byte (bit 30, after the sound) */
    kent(&m, Q2_U_ORIGIN1 | Q2_U_ALPHA_KMQ2 | Q2_U_SOUND | Q2_U_ATTENUAT_KMQ2, 5);
    kcoord(&m, 800);
    put8(&m, 128);
    put16(&m, 5);
    put8(&m, 64);
    put16(&m, 0); /* the end of the entities */
    put8(&m, Q2_SVC_FOG_KMQ2); /* svc_fog: on, mode, density, near, far, r, g, b */
    const uint8_t fog[10] = {1, 0, 50, 10, 0, 0, 4, 128, 128, 128};
    for (int i = 0; i < 10; i++)
        put8(&m, fog[i]);
    /* TE_BLUEHYPERBLASTER: (1, 2, 3) and a direction byte (id's: two positions) */
    put8(&m, Q2_SVC_TEMP_ENTITY);
    put8(&m, 27);
    kcoord(&m, 8);
    kcoord(&m, 16);
    kcoord(&m, 24);
    put8(&m, 0);
    /* svc_sound: index 5 (a word) on entity 5, channel 2, at (-1, 0, 4096) */
    put8(&m, Q2_SVC_SOUND);
    put8(&m, Q2_SND_ENT | Q2_SND_POS);
    put16(&m, 5);
    put16(&m, 5 << 3 | 2);
    kcoord(&m, -8);
    kcoord(&m, 0);
    kcoord(&m, 32768);
    put8(&m, Q2_SVC_MUZZLEFLASH2); /* entity 5, flash 1 */
    put16(&m, 5);
    put8(&m, 1);
    block(f, &m);
    end_marker(f);
}

static void check_kmq2(int angle16)
{
    static buf f;
    f.n = 0;
    write_kmq2(&f, angle16);
    q2_seed(angle16 ? "written_kmq2_angle16.dm2" : "written_kmq2.dm2", &f);
    q2_xrun x;
    CHECK(q2_xdecode(&x, f.b, f.n));
    CHECK_MSG(x.e == QD_OK && x.done, "%s", x.err.msg);
    CHECK_EQ(demo_q2_decoder.protocol(x.st), 56);
    CHECK_EQ(x.cl->level.max_clients, 1);
    CHECK_STR(x.cl->level.models[1], "maps/t.bsp");
    CHECK_STR(x.cl->level.models[300 + Q2_EXT_MODEL_SHIFT], "models/big/tris.md2");
    CHECK_STR(x.cl->level.sounds[5], "world/hum.wav");
    CHECK_STR(x.cl->level.sounds[2000], "");
    CHECK_STR(x.cl->players[0].name, "Alice");
    CHECK_STR(x.cl->level.gamedir, "baseq64");
    /* the view from the 24-bit origin (viewoffset 0) */
    CHECK_MSG(knear(x.cl->view.origin[0], -2) && knear(x.cl->view.origin[1], 100) &&
                  knear(x.cl->view.origin[2], 8192),
              "%f %f %f", x.cl->view.origin[0], x.cl->view.origin[1], x.cl->view.origin[2]);
    CHECK_EQ(x.cl->view.fov, 90);
    CHECK_EQ(cl_stats_of(x.cl, -1)->health, 77);
    CHECK_EQ(cl_stats_of(x.cl, -1)->gun_model, 2);
    /* entity 5: the baseline's model and yaw, the frame's x, alpha and loop sound */
    const cl_entity *e = &x.cl->entities[5];
    CHECK(e->active);
    CHECK_EQ(e->cur.model, 300 + Q2_EXT_MODEL_SHIFT);
    CHECK(knear(e->cur.origin[0], 100));
    CHECK_MSG(knear(e->cur.angles[1], 90), "%f", e->cur.angles[1]);
    CHECK_EQ(e->cur.alpha, 128);
    CHECK_EQ(e->loop_sound, 5);
    /* entity 1: model 8191 is the player's own */
    CHECK_EQ(x.cl->entities[1].cur.model, Q2_PLAYER_MODEL_SLOT + 0);
    /* the sound after the temp entity: read in the right place */
    CHECK_EQ(x.cl->fxlog.sound_count, 1);
    const cl_sound *snd = &x.cl->fxlog.sounds[0];
    CHECK_EQ(snd->sound, 5);
    CHECK_EQ(snd->entity, 5);
    CHECK_EQ(snd->channel, 2);
    CHECK(snd->has_origin && knear(snd->origin[0], -1) && knear(snd->origin[2], 4096));
    q2_xfree(&x);
}

TEST(q2_kmquake2_bytes) { check_kmq2(0); }

/* The same with the entities' angles as words (later KMQuake2 builds): told from the
 * baselines, which read cleanly only so. */
TEST(q2_kmquake2_word_angles) { check_kmq2(1); }

/* A cut anywhere in the frame's block ends with an error at or before the cut, never a
 * crash; the cut file's first block still opens. */
TEST(q2_kmquake2_cut)
{
    static buf f;
    f.n = 0;
    write_kmq2(&f, 0);
    size_t first = 4 + (f.b[0] | f.b[1] << 8 | (size_t)f.b[2] << 16);
    for (size_t cut = first + 5; cut < f.n - 4; cut++) {
        q2_xrun x;
        CHECK(q2_xdecode(&x, f.b, cut));
        CHECK_MSG(x.e != QD_OK && x.err.offset <= cut, "cut %zu: %d at %llu", cut, (int)x.e,
                  (unsigned long long)x.err.offset);
        q2_xfree(&x);
    }
}
