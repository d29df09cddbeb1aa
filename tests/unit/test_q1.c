/* test_q1.c: the Quake .dem decoder on bytes built here, and on every real .dem. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>

#include "../../src/demo/demo.h"
#include "../../src/render/render.h"
#include "../../src/timeline/timeline.h"
#include "../test.h"
#include "../testbuf.h"

/* ---- building demos in memory ---- */

/* Append one block holding the message bytes of msg. */
static void block(buf *file, const buf *msg, float yaw)
{
    put32(file, (uint32_t)msg->n);
    putf(file, 0);
    putf(file, yaw);
    putf(file, 0);
    memcpy(file->b + file->n, msg->b, msg->n);
    file->n += msg->n;
}

static void serverinfo_of(buf *m, int protocol, int maxclients)
{
    put8(m, 11);
    put32(m, (uint32_t)protocol);
    put8(m, maxclients);
    put8(m, maxclients > 1); /* deathmatch */
    putstr(m, "Test Level");
    putstr(m, "maps/test.bsp");
    putstr(m, "progs/player.mdl");
    putstr(m, "");
    putstr(m, "weapons/r_exp3.wav");
    putstr(m, "");
}

static void serverinfo(buf *m, int protocol) { serverinfo_of(m, protocol, 1); }

static void baseline(buf *m, int ent, int model, float x)
{
    put8(m, 22);
    put16(m, ent);
    put8(m, model);
    put8(m, 0); /* frame */
    put8(m, 0); /* colormap */
    put8(m, 0); /* skin */
    for (int i = 0; i < 3; i++) {
        putcoord(m, i == 0 ? x : 0);
        put8(m, 0);
    }
}

static void time_msg(buf *m, float t)
{
    put8(m, 7);
    putf(m, t);
}

/* An update moving entity ent to x (origin1 only). */
static void update_x(buf *m, int ent, float x)
{
    put8(m, 0x80 | 0x02); /* U_ORIGIN1 */
    put8(m, ent);
    putcoord(m, x);
}

static cl_state *new_cl(void)
{
    cl_state *cl = malloc(sizeof *cl);
    cl_reset(cl);
    return cl;
}

/* Decode a whole in-memory demo; returns the final error code. */
static qd_err run_all(const buf *file, cl_state *cl, qd_error *err)
{
    demo_t *d = demo_open_mem("test.dem", file->b, file->n, err);
    if (!d)
        return err->code;
    int done = 0;
    qd_err r = QD_OK;
    for (int guard = 0; !done && r == QD_OK && guard < 100000; guard++)
        r = demo_step(d, cl, NULL, &done, err);
    demo_close(d);
    return r;
}

/* A new demo in f (its "-1" track line) whose first block holds the serverinfo, the view
 * on entity 1 and the baselines of entities 1 and 2 (x 0 and 100). */
static void two_entity_level(buf *f, int protocol, int maxclients)
{
    memset(f, 0, sizeof *f);
    memcpy(f->b, "-1\n", 3);
    f->n = 3;
    buf m = {{0}, 0};
    serverinfo_of(&m, protocol, maxclients);
    put8(&m, 5); /* setview */
    put16(&m, 1);
    baseline(&m, 1, 2, 0);
    baseline(&m, 2, 2, 100);
    block(f, &m, 0);
}

/* A small two-frame level: serverinfo, baseline of entity 1 and 2, two timed frames. */
static void small_demo(buf *f, int protocol)
{
    two_entity_level(f, protocol, 1);
    buf m = {{0}, 0};
    time_msg(&m, 1.0f);
    update_x(&m, 1, 10);
    update_x(&m, 2, 100);
    block(f, &m, 10);
    m.n = 0;
    time_msg(&m, 1.1f);
    update_x(&m, 1, 20);
    block(f, &m, 30);
}

TEST(q1_decodes_small_demo)
{
    static buf f;
    small_demo(&f, 15);
    cl_state *cl = new_cl();
    qd_error err;
    CHECK_EQ(run_all(&f, cl, &err), QD_OK);
    CHECK_STR(cl->level.map, "maps/test.bsp");
    CHECK_STR(cl->level.title, "Test Level");
    CHECK_STR(cl->level.models[2], "progs/player.mdl");
    CHECK_STR(cl->level.sounds[1], "weapons/r_exp3.wav");
    CHECK_EQ(cl->frame_count, 2);
    /* Demo time starts at the first svc_time: server time 1.0 is demo time 0. */
    CHECK(fabs(cl->time - 0.1) < 1e-6);
    /* Entity 1 moved 10 -> 20 between the frames; entity 2 was not in the last frame. */
    cl_entstate s;
    int next;
    float blend;
    CHECK(cl_entity_at(cl, 1, 0.05, &s, &next, &blend));
    CHECK(fabsf(s.origin[0] - 15.0f) < 1e-3f);
    CHECK(fabsf(blend - 0.5f) < 1e-3f);
    CHECK(!cl_entity_at(cl, 2, 0.05, &s, &next, &blend));
    /* View angles come from the block headers and lerp too. */
    float o[3], a[3];
    cl_view_at(cl, 0.05, o, a);
    CHECK(fabsf(a[1] - 20.0f) < 1e-3f);
    CHECK(fabsf(o[2] - 22.0f) < 1e-3f); /* view height default */
    free(cl);
}

TEST(q1_unknown_protocol_names_it)
{
    static buf f;
    small_demo(&f, 42);
    cl_state *cl = new_cl();
    qd_error err;
    qd_err r = run_all(&f, cl, &err);
    CHECK_EQ(r, QD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "42") != NULL);
    CHECK_EQ(err.offset, 3 + 16); /* the serverinfo message */
    free(cl);
}

/* 1 when off ends a block of the .dem in f (its CD track line, then blocks of a 32-bit
 * length, three float angles and that many bytes [DEM 6.1, 6.2]), walked by hand. */
static int dem_block_end(const buf *f, size_t off)
{
    size_t pos = 3; /* "-1\n" */
    while (pos + 16 <= f->n && pos < off) {
        size_t len = (size_t)f->b[pos] | (size_t)f->b[pos + 1] << 8 |
                     (size_t)f->b[pos + 2] << 16 | (size_t)f->b[pos + 3] << 24;
        pos += 16 + len;
    }
    return pos == off && off > 3;
}

TEST(q1_every_truncation_is_an_error_not_a_crash)
{
    static buf f, g;
    small_demo(&f, 15);
    cl_state *cl = new_cl();
    int clean = 0;
    for (size_t cut = 0; cut < f.n; cut++) {
        g = f;
        g.n = cut;
        qd_error err;
        memset(&err, 0, sizeof err);
        cl_reset(cl);
        qd_err r = run_all(&g, cl, &err);
        /* A cut exactly at a block's end is a shorter, valid demo; any other ends in an
         * error at or before the cut. */
        if (r == QD_OK) {
            CHECK_MSG(dem_block_end(&f, cut), "cut %zu inside a block decoded cleanly", cut);
            clean++;
            continue;
        }
        CHECK_MSG(err.offset <= cut, "cut %zu: offset %llu past the end", cut,
                  (unsigned long long)err.offset);
        CHECK(err.msg[0] != 0);
    }
    CHECK(clean >= 1); /* (the cut after the second block, at least) */
    free(cl);
}

TEST(q1_unknown_message_and_bad_entity)
{
    static buf f;
    small_demo(&f, 15);
    buf m = {{0}, 0};
    put8(&m, 60); /* no such svc */
    block(&f, &m, 0);
    cl_state *cl = new_cl();
    qd_error err;
    /* The block is skipped as damaged (demo.h), its error kept. */
    demo_t *d0 = demo_open_mem("test.dem", f.b, f.n, &err);
    CHECK(d0);
    int done0 = 0;
    while (!done0 && demo_step(d0, cl, NULL, &done0, &err) == QD_OK)
        ;
    CHECK_EQ(demo_num_damaged(d0), 1);
    CHECK_EQ(demo_damaged(d0, 0)->why.code, QD_ERR_BAD_DATA);
    CHECK(strstr(demo_damaged(d0, 0)->why.msg, "unknown message id 60") != NULL);
    demo_close(d0);

    small_demo(&f, 15);
    m.n = 0;
    put8(&m, 22); /* baseline for entity 9000: over the cap */
    put16(&m, 9000);
    block(&f, &m, 0);
    cl_reset(cl);
    /* A whole block whose data is bad is skipped (demo.h: damage and resync), the error
     * kept with its range. */
    demo_t *d = demo_open_mem("test.dem", f.b, f.n, &err);
    CHECK(d);
    int done = 0;
    qd_err r = QD_OK;
    while (!done && r == QD_OK)
        r = demo_step(d, cl, NULL, &done, &err);
    CHECK_EQ(r, QD_OK);
    CHECK_EQ(demo_num_damaged(d), 1);
    CHECK_EQ(demo_damaged(d, 0)->why.code, QD_ERR_LIMIT);
    CHECK_EQ(demo_damaged(d, 0)->offset + demo_damaged(d, 0)->length, f.n);
    demo_close(d);
    free(cl);
}

TEST(q1_fitz666_fields)
{
    static buf f;
    memset(&f, 0, sizeof f);
    memcpy(f.b, "-1\n", 3);
    f.n = 3;
    buf m = {{0}, 0};
    serverinfo(&m, 666);
    /* spawnbaseline2 with a large model index and alpha */
    put8(&m, 42);
    put16(&m, 3);
    put8(&m, 1 | 4); /* B_LARGEMODEL | B_ALPHA */
    put16(&m, 2);    /* model (16 bits) */
    put8(&m, 0);     /* frame */
    put8(&m, 0);
    put8(&m, 0);
    for (int i = 0; i < 3; i++) {
        putcoord(&m, 0);
        put8(&m, 0);
    }
    put8(&m, 128); /* alpha */
    block(&f, &m, 0);
    m.n = 0;
    time_msg(&m, 2.0f);
    /* update: MOREBITS + EXTEND1 with U_ALPHA and U_FRAME2 */
    put8(&m, 0x80 | 0x01 | 0x40); /* U_MOREBITS | U_FRAME */
    put8(&m, 0x80);                /* U_EXTEND1 (bit 15) */
    put8(&m, 0x01 | 0x02);         /* U_ALPHA | U_FRAME2 */
    put8(&m, 3);                   /* entity */
    put8(&m, 0x34);                /* frame low byte */
    put8(&m, 255);                 /* alpha: opaque */
    put8(&m, 0x01);                /* frame high byte */
    /* a 666 sound with a large entity and sound index */
    put8(&m, 6);
    put8(&m, 8 | 16);
    put16(&m, 3);
    put8(&m, 1);
    put16(&m, 1);
    putcoord(&m, 0);
    putcoord(&m, 0);
    putcoord(&m, 0);
    block(&f, &m, 0);
    cl_state *cl = new_cl();
    qd_error err;
    CHECK_EQ(run_all(&f, cl, &err), QD_OK);
    CHECK_EQ(cl->level.protocol, 666);
    cl_entstate s;
    CHECK(cl_entity_at(cl, 3, 0.0, &s, NULL, NULL));
    CHECK_EQ(s.model, 2);
    CHECK_EQ(s.frame, 0x134);
    CHECK_EQ(s.alpha, 255); /* 255 on the wire is fully opaque */
    free(cl);
}

TEST(q1_clientdata_items_old_and_new)
{
    /* Bit 0x0200 clear: 1.07+ still sends items ([DEM] 7.16); 1.06 does not. The decoder
     * must pick the reading after which the block parses. */
    for (int with_items = 0; with_items < 2; with_items++) {
        static buf f;
        small_demo(&f, 15);
        buf m = {{0}, 0};
        time_msg(&m, 1.2f);
        put8(&m, 15);
        put16(&m, 0x0001); /* only viewheight */
        put8(&m, 30);
        if (with_items)
            put32(&m, 0x1001);
        put16(&m, 77); /* health */
        static const uint8_t rest[6] = {25, 25, 0, 0, 0, 1}; /* ammo, shells..cells, weapon */
        for (int i = 0; i < 6; i++)
            put8(&m, rest[i]);
        update_x(&m, 1, 30);
        block(&f, &m, 0);
        cl_state *cl = new_cl();
        qd_error err;
        CHECK_EQ(run_all(&f, cl, &err), QD_OK);
        const cl_stats *st = cl_stats_of(cl, -1);
        CHECK_EQ(st->health, 77);
        CHECK(fabsf(cl->view.view_height - 30.0f) < 1e-6f);
        /* items 0x1001 (IT_AXE | IT_SHOTGUN), or 0x4001 (IT_ARMOR2 | IT_SHOTGUN) for 1.06,
         * as quakedef.h's IT_* bits */
        CHECK_EQ(st->weapons, with_items ? (1u << CL_WP_MELEE) | (1u << CL_WP_SHOTGUN)
                                         : 1u << CL_WP_SHOTGUN);
        CHECK_EQ(st->armor_type, with_items ? CL_ARMOR_NONE : CL_ARMOR_MEDIUM);
        free(cl);
    }
}

TEST(q1_cd_track_variants)
{
    static buf f, g;
    small_demo(&f, 15);
    cl_state *cl = new_cl();
    qd_error err;
    /* No CD track line at all (the fscanf variant allowed it). */
    g.n = f.n - 3;
    memcpy(g.b, f.b + 3, g.n);
    CHECK_EQ(run_all(&g, cl, &err), QD_OK);
    CHECK_EQ(cl->frame_count, 2);
    /* "  4\n" */
    memcpy(g.b, "  4\n", 4);
    memcpy(g.b + 4, f.b + 3, f.n - 3);
    g.n = f.n + 1;
    cl_reset(cl);
    CHECK_EQ(run_all(&g, cl, &err), QD_OK);
    CHECK_EQ(cl->frame_count, 2);
    free(cl);
}

TEST(q1_teleport_snaps)
{
    static buf f;
    small_demo(&f, 15);
    buf m = {{0}, 0};
    time_msg(&m, 1.2f);
    update_x(&m, 1, 3000); /* 2980 units in 0.1 s: a teleport */
    block(&f, &m, 0);
    cl_state *cl = new_cl();
    qd_error err;
    CHECK_EQ(run_all(&f, cl, &err), QD_OK);
    cl_entstate s;
    CHECK(cl_entity_at(cl, 1, 0.15, &s, NULL, NULL));
    CHECK(fabsf(s.origin[0] - 3000.0f) < 1e-3f); /* no smear across the gap */
    free(cl);
}

/* Quake's client unlinks an entity its last message did not send, players too
 * (cl_main.c CL_RelinkEntities: msgtime != cl.mtime[0]), and a server sends a player out of
 * the recorder's PVS no more (sv_main.c SV_WriteEntitiesToClient): the other player (2 of
 * maxclients 2) left out of the second frame is gone, not frozen where it was last seen.
 * The view entity stays through a frame that leaves it out: its origin is the camera's. */
TEST(q1_player_left_out_of_a_frame_is_gone)
{
    static buf f;
    two_entity_level(&f, 15, 2);
    buf m = {{0}, 0};
    static const float t[3] = {1.0f, 1.1f, 1.2f};
    for (int k = 0; k < 3; k++) {
        m.n = 0;
        time_msg(&m, t[k]);
        if (k < 2)
            update_x(&m, 1, 10.0f * (float)(k + 1));
        if (k == 0)
            update_x(&m, 2, 100);
        block(&f, &m, 0);
        cl_state *cl = new_cl();
        qd_error err;
        CHECK_EQ(run_all(&f, cl, &err), QD_OK);
        CHECK_EQ(cl->frame_count, (uint32_t)(k + 1));
        CHECK(cl->entities[2].cur.flags & CL_EF_PLAYER);
        CHECK_EQ(cl->entities[2].active, k == 0); /* in the first frame only */
        CHECK(cl->entities[1].active);
        free(cl);
    }
}

/* view.c V_CalcIntermissionRefdef: at a level's end (svc_intermission, svc_finale,
 * svc_cutscene) Quake's eye is the view entity's origin (no view height) with the entity's
 * angles, which a cutscene moves and turns, not the demo's view angles; plus V_AddIdle's
 * sway of at most 0.3 degrees. The view entity turns to yaw 90 (angle byte 64) at x 40
 * while the blocks' view angles stay at yaw 10. */
TEST(q1_cutscene_camera_is_the_view_entity)
{
    static buf f;
    two_entity_level(&f, 15, 1);
    buf m = {{0}, 0};
    time_msg(&m, 1.0f);
    update_x(&m, 1, 10);
    block(&f, &m, 10);
    m.n = 0;
    time_msg(&m, 1.1f);
    put8(&m, 34); /* svc_cutscene [DEM] 7.35, its centre text */
    putstr(&m, "");
    put8(&m, 0x80 | 0x02 | 0x10); /* U_ORIGIN1 | U_ANGLE2 */
    put8(&m, 1);
    putcoord(&m, 40);
    put8(&m, 64);
    block(&f, &m, 10);
    cl_state *cl = new_cl();
    qd_error err;
    CHECK_EQ(run_all(&f, cl, &err), QD_OK);
    CHECK_EQ(cl->intermission, CL_INTER_CUTSCENE);
    r_camera cam;
    r_camera_from_view(cl, cl->time, &cam);
    CHECK_MSG(fabsf(cam.angles[1] - 90) <= 0.31f, "yaw %g", (double)cam.angles[1]);
    CHECK_MSG(fabsf(cam.origin[0] - 40) < 1e-3f && fabsf(cam.origin[2]) < 1e-3f,
              "eye %g %g %g", (double)cam.origin[0], (double)cam.origin[1],
              (double)cam.origin[2]);
    free(cl);
}

/* A one-frame level (maxclients 1) whose frame holds msg's bytes after its svc_time,
 * decoded into a new state (free it). */
static cl_state *one_frame(const buf *msg)
{
    static buf f;
    two_entity_level(&f, 15, 1);
    buf m = {{0}, 0};
    time_msg(&m, 1.0f);
    memcpy(m.b + m.n, msg->b, msg->n);
    m.n += msg->n;
    block(&f, &m, 0);
    cl_state *cl = new_cl();
    qd_error err;
    if (run_all(&f, cl, &err) != QD_OK) {
        free(cl);
        return NULL;
    }
    return cl;
}

/* cl_main.c CL_RelinkEntities: an entity's EF_MUZZLEFLASH (2) makes a light 16 units above
 * it and 18 ahead (yaw 0: +x), radius 200 (plus rand() & 31), minlight 32, for 0.1 s, on
 * its own: the server clears the bit after a frame (SV_CleanupEnts). */
TEST(q1_muzzle_flash_light_lasts_a_tenth)
{
    buf m = {{0}, 0};
    put8(&m, 0x80 | 0x01 | 0x02); /* U_SIGNAL | U_MOREBITS | U_ORIGIN1 */
    put8(&m, 0x20);               /* U_EFFECTS >> 8 */
    put8(&m, 1);
    put8(&m, 2); /* EF_MUZZLEFLASH */
    putcoord(&m, 10);
    cl_state *cl = one_frame(&m);
    CHECK(cl);
    const cl_fxlog *log = &cl->fxlog;
    int n = 0;
    for (uint32_t i = 0; i < log->fx_count && i < CL_FX_LOG; i++) {
        const cl_fxev *e = &log->fx[i];
        if (e->kind != CL_FXK_MUZZLE)
            continue;
        n++;
        CHECK(e->entity == 1 && fabsf(e->life - 0.1f) < 1e-6f && e->radius == 200);
        CHECK(fabsf(e->origin[0] - 28) < 1e-3f && fabsf(e->origin[1]) < 1e-3f &&
              fabsf(e->origin[2] - 16) < 1e-3f);
    }
    CHECK_EQ(n, 1);
    free(cl);
}

/* cl_tent.c CL_ParseTEnt starts the temporary entities' sounds itself (no server sends
 * them): TE_EXPLOSION (3) weapons/r_exp3.wav, TE_WIZSPIKE (7) wizard/hit.wav, TE_KNIGHTSPIKE
 * (8) hknight/hit.wav, at full volume and ATTN_NORM (64 in x64) from the origin; a
 * TE_GUNSHOT (2) none. TE_TAREXPLOSION (4) has its sound but no light (no CL_AllocDlight). */
TEST(q1_temp_entities_sound)
{
    static const struct {
        int type;
        const char *sound;
    } te[] = {{3, "weapons/r_exp3.wav"}, {7, "wizard/hit.wav"}, {8, "hknight/hit.wav"},
              {2, NULL}, {4, "weapons/r_exp3.wav"}};
    for (size_t k = 0; k < sizeof te / sizeof te[0]; k++) {
        buf m = {{0}, 0};
        put8(&m, 23); /* svc_temp_entity */
        put8(&m, te[k].type);
        putcoord(&m, 100);
        putcoord(&m, 200);
        putcoord(&m, 300);
        cl_state *cl = one_frame(&m);
        CHECK(cl);
        const cl_fxlog *log = &cl->fxlog;
        CHECK_EQ(log->sound_count, te[k].sound ? 1u : 0u);
        if (te[k].sound && log->sound_count == 1) {
            const cl_sound *so = &log->sounds[0];
            CHECK_STR(cl->level.sounds[so->sound], te[k].sound);
            CHECK(so->volume == 255 && so->attenuation == 64 && so->has_origin);
            CHECK(so->origin[0] == 100 && so->origin[1] == 200 && so->origin[2] == 300);
        }
        for (uint32_t i = 0; i < log->fx_count && i < CL_FX_LOG; i++)
            if (log->fx[i].kind == CL_FXK_EXPLOSION)
                CHECK_MSG((log->fx[i].radius > 0) == (te[k].type == 3), "type %d light",
                          te[k].type);
        free(cl);
    }
}

/* TE_EXPLOSION2 (12, the mission packs'): origin, then its colour start and length
 * (cl_tent.c CL_ParseTEnt: MSG_ReadByte twice), kept for R_ParticleExplosion2 (r_part.c);
 * the message after it read from the right place. Before a review the two bytes were
 * skipped and the explosion drawn as a rocket's. */
TEST(q1_explosion2_keeps_its_colours)
{
    buf m = {{0}, 0};
    put8(&m, 23); /* svc_temp_entity */
    put8(&m, 12);
    putcoord(&m, 100);
    putcoord(&m, 200);
    putcoord(&m, 300);
    put8(&m, 208); /* colour start */
    put8(&m, 8);   /* colour length */
    put8(&m, 23);  /* then a TE_EXPLOSION at 1 2 3 */
    put8(&m, 3);
    putcoord(&m, 1);
    putcoord(&m, 2);
    putcoord(&m, 3);
    cl_state *cl = one_frame(&m);
    CHECK(cl);
    const cl_fxlog *log = cl ? &cl->fxlog : NULL;
    CHECK(log && log->fx_count == 2);
    if (log && log->fx_count == 2) {
        const cl_fxev *e2 = &log->fx[0], *e = &log->fx[1];
        CHECK(e2->kind == CL_FXK_EXPLOSION && e2->style == 12 && e2->origin[0] == 100 &&
              e2->end[0] == 208 && e2->end[1] == 8);
        CHECK(e->kind == CL_FXK_EXPLOSION && e->style == 3 && e->origin[2] == 3);
    }
    free(cl);
}

/* Quake's camera beyond the demo's eye and angles (view.c): a hit's kick (V_ParseDamage:
 * count = save/2 + take/2, at least 10; roll count x side x 0.6 fading over 0.5 s), the
 * bob (V_CalcBob: xy speed x 0.02, 0.3 of it steady and 0.7 in a sine over a 0.6 s cycle,
 * within -7..4), the strafe roll (V_CalcRoll: 2 degrees at 200 units a second along the
 * right) and a dead player's roll of 80 (V_CalcViewRoll). */
TEST(q1_view_kick_bob_roll_and_death)
{
    /* a hit of 20 health from 100 units to the right of the view entity (at 0 0 0, yaw 0:
     * its right is -y): count 10, side 1, roll 6 at once and 3 a quarter second on */
    buf m = {{0}, 0};
    update_x(&m, 1, 0);
    put8(&m, 19); /* svc_damage: armour saved, health taken, from */
    put8(&m, 0);
    put8(&m, 20);
    putcoord(&m, 0);
    putcoord(&m, -100);
    putcoord(&m, 0);
    cl_state *cl = one_frame(&m);
    CHECK(cl);
    r_camera cam, still;
    r_camera_from_view(cl, cl->time, &cam);
    CHECK_MSG(fabsf(cam.angles[2] - 6) < 1e-3f, "roll %g", (double)cam.angles[2]);
    r_camera_from_view(cl, cl->time + 0.25, &cam);
    CHECK_MSG(fabsf(cam.angles[2] - 3) < 1e-3f, "roll %g", (double)cam.angles[2]);
    r_camera_from_view(cl, cl->time + 0.5, &cam);
    CHECK(fabsf(cam.angles[2]) < 1e-3f);
    /* running at 320 along x: at demo time 0.15 the cycle is a quarter in, sin 1: 6.4,
     * held at 4; at 0.45 three quarters, sin -1: 6.4 x 0.3 - 6.4 x 0.7 = -2.56 */
    cl->view.velocity[0] = 320;
    cl->view.dmg_roll = 0;
    r_camera_from_view(cl, 0.15, &cam);
    cl->view.velocity[0] = 0;
    r_camera_from_view(cl, 0.15, &still);
    CHECK_MSG(fabsf(cam.origin[2] - still.origin[2] - 4) < 1e-3f, "bob %g",
              (double)(cam.origin[2] - still.origin[2]));
    cl->view.velocity[0] = 320;
    r_camera_from_view(cl, 0.45, &cam);
    cl->view.velocity[0] = 0;
    r_camera_from_view(cl, 0.45, &still);
    CHECK_MSG(fabsf(cam.origin[2] - still.origin[2] + 2.56f) < 1e-3f, "bob %g",
              (double)(cam.origin[2] - still.origin[2]));
    /* strafing right at 100 (-y at yaw 0): roll 1 */
    cl->view.velocity[1] = -100;
    r_camera_from_view(cl, 0.45, &cam);
    CHECK_MSG(fabsf(cam.angles[2] - 1) < 1e-3f, "roll %g", (double)cam.angles[2]);
    /* dead: on its side */
    cl_stats st = *cl_stats_of(cl, -1);
    st.flags |= CL_ST_VALID;
    st.health = 0;
    cl_set_stats(cl, -1, &st);
    r_camera_from_view(cl, 0.45, &cam);
    CHECK_EQ(cam.angles[2], 80);
    free(cl);
}

/* cl_main.c CL_RelinkEntities snaps an entity that moved over 100 units along an axis since
 * the message before ("assume a teleportation, not a motion"): 150 units in 0.05 s (under
 * qdemo's own speed limit for a jump) is at 150 halfway between the frames, not 75; 90
 * units lerps (45 halfway). */
TEST(q1_move_over_100_units_snaps)
{
    static const float to[2] = {150, 90}, half[2] = {150, 45};
    for (int k = 0; k < 2; k++) {
        static buf f;
        two_entity_level(&f, 15, 1);
        buf m = {{0}, 0};
        time_msg(&m, 1.0f);
        update_x(&m, 2, 0);
        block(&f, &m, 0);
        m.n = 0;
        time_msg(&m, 1.05f);
        update_x(&m, 2, to[k]);
        block(&f, &m, 0);
        cl_state *cl = new_cl();
        qd_error err;
        CHECK_EQ(run_all(&f, cl, &err), QD_OK);
        cl_entstate s;
        CHECK(cl_entity_at(cl, 2, 0.025, &s, NULL, NULL));
        CHECK_MSG(fabsf(s.origin[0] - half[k]) < 1e-3f, "x %g, want %g", (double)s.origin[0],
                  (double)half[k]);
        free(cl);
    }
}

/* The "bf" command a server stuffs when an item is picked up (view.c V_BonusFlash_f) starts
 * the bonus tint at that frame's time; other commands do not. */
TEST(q1_bonus_flash_from_stufftext)
{
    static const char *const text[2] = {"bf\n", "bfx\n"};
    for (int k = 0; k < 2; k++) {
        buf m = {{0}, 0};
        put8(&m, 9); /* svc_stufftext */
        putstr(&m, text[k]);
        cl_state *cl = one_frame(&m);
        CHECK(cl);
        CHECK_MSG((cl->view.bonus_time > 0) == (k == 0), "%s", text[k]);
        free(cl);
    }
}

/* Quake animates its light styles and spins its items on the server's time (r_light.c
 * R_AnimateLight: cl.time x 10; cl_main.c: bobjrotate 100 x cl.time), which svc_time
 * carries: small_demo's first svc_time is 1.0 at demo time 0, so demo time 0.05 is the
 * server's 1.05. */
TEST(q1_server_time_for_lights_and_spin)
{
    static buf f;
    small_demo(&f, 15);
    cl_state *cl = new_cl();
    qd_error err;
    CHECK_EQ(run_all(&f, cl, &err), QD_OK);
    CHECK(fabs(cl_game_time(cl, 0.05) - 1.05) < 1e-6);
    free(cl);
}

/* Sbar_IntermissionOverlay's time is the server's when the level ended (cl_parse.c:
 * svc_intermission sets cl.completed_time = cl.time): server time 100.0 at the first frame,
 * 163.5 at the one that brings svc_intermission. */
TEST(q1_intermission_time_is_the_servers)
{
    static buf f;
    two_entity_level(&f, 15, 1);
    buf m = {{0}, 0};
    time_msg(&m, 100.0f);
    block(&f, &m, 0);
    m.n = 0;
    time_msg(&m, 163.5f);
    put8(&m, 30); /* svc_intermission */
    block(&f, &m, 0);
    cl_state *cl = new_cl();
    qd_error err;
    CHECK_EQ(run_all(&f, cl, &err), QD_OK);
    CHECK_EQ(cl->intermission, CL_INTER_SHOW);
    CHECK(fabs(cl_game_time(cl, cl->inter_time) - 163.5) < 1e-4);
    free(cl);
}

/* ---- real demos ---- */

/* The map the manifest names for dem/<name>, from its "map maps/x.bsp" wording. */
static int manifest_map(const char *name, char *map, size_t cap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/MANIFEST.md", test_realdata());
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    char key[300];
    snprintf(key, sizeof key, "| dem/%s |", name);
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, strlen(key)) != 0)
            continue;
        char *p = strstr(line, " map ");
        if (p && sscanf(p + 5, "%255s", map) == 1) {
            map[cap - 1] = 0;
            found = 1;
        } else {
            map[0] = 0;
            found = 2; /* listed, with no map (a hand-made sample) */
        }
        break;
    }
    fclose(f);
    return found;
}

typedef void (*dem_fn)(const char *path, const char *name);

static int each_dem(dem_fn fn)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/dem", test_realdata());
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".dem") != 0)
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        fn(path, e->d_name);
        n++;
        if (test_failed())
            break;
    }
    closedir(d);
    return n;
}

static void decode_real(const char *path, const char *name)
{
    qd_error err;
    demo_t *d = demo_open(path, &err);
    CHECK_MSG(d != NULL, "%s: %s", name, err.msg);
    CHECK_EQ(demo_get_format(d), DEMO_FMT_DEM);
    cl_state *cl = new_cl();
    int done = 0;
    qd_err r = QD_OK;
    char first_map[CL_NAME_LEN] = "";
    while (!done && r == QD_OK) {
        r = demo_step(d, cl, NULL, &done, &err);
        if (!first_map[0] && cl->level.map[0])
            snprintf(first_map, sizeof first_map, "%s", cl->level.map);
    }
    demo_close(d);
    CHECK_MSG(r == QD_OK, "%s: offset %llu: %s", name, (unsigned long long)err.offset, err.msg);
    char want[256];
    int listed = manifest_map(name, want, sizeof want);
    CHECK_MSG(listed, "%s is not in the manifest", name);
    if (listed == 1)
        CHECK_MSG(strcmp(first_map, want) == 0, "%s: map %s, manifest says %s", name,
                  first_map, want);
    free(cl);
}

TEST(q1_real_demos_decode_completely)
{
    if (each_dem(decode_real) == 0)
        SKIP("no realdata/dem");
}

static void truncate_real(const char *path, const char *name)
{
    FILE *f = fopen(path, "rb");
    CHECK(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n);
    CHECK(fread(data, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    cl_state *cl = new_cl();
    /* Cut at 20 places, and flip bytes at 20 places: errors, never a crash or a hang. */
    for (int k = 1; k <= 40; k++) {
        size_t cut = (size_t)n * (size_t)(k % 20 + 1) / 21;
        uint8_t saved = data[cut];
        if (k > 20)
            data[cut] ^= 0x5a;
        qd_error err;
        memset(&err, 0, sizeof err);
        demo_t *d = demo_open_mem(name, data, k > 20 ? (size_t)n : cut, &err);
        if (d) {
            cl_reset(cl);
            int done = 0;
            qd_err r = QD_OK;
            long steps = 0;
            while (!done && r == QD_OK && steps++ < 10000000)
                r = demo_step(d, cl, NULL, &done, &err);
            CHECK(done || r != QD_OK);
            if (k <= 20 && r != QD_OK)
                CHECK_MSG(err.offset <= cut, "%s cut at %zu: error offset %llu", name, cut,
                          (unsigned long long)err.offset);
            demo_close(d);
        }
        data[cut] = saved;
    }
    free(cl);
    free(data);
}

TEST(q1_real_demos_damaged_copies_fail_cleanly)
{
    if (each_dem(truncate_real) == 0)
        SKIP("no realdata/dem");
}

/* The recording player's view path, sampled every 10 ms, never jumps except at a
 * teleport's arrival (its fog). */
static void path_continuous(const char *path, const char *name)
{
    qd_error err;
    demo_t *d = demo_open(path, &err);
    CHECK(d);
    timeline_t *tl = tl_open(d, 0, &err);
    CHECK(tl);
    if (tl_num_frames(tl) < 10) {
        tl_close(tl);
        return;
    }
    double t0 = tl_start(tl), t1 = tl_end(tl), dt = 0.01;
    float prev[3] = {0, 0, 0};
    int have_prev = 0, jumps = 0;
    uint32_t prev_level = 0;
    double level_t0 = t0;
    for (double t = t0; t <= t1; t += dt) {
        const cl_state *cl = tl_state_at(tl, t, &err);
        CHECK(cl);
        float o[3], a[3];
        cl_view_at(cl, t, o, a);
        /* The view entity's body: is this sample's state a snap (prev == cur, both recent)? */
        if (have_prev && cl->level_count == prev_level) {
            float step[3] = {o[0] - prev[0], o[1] - prev[1], o[2] - prev[2]};
            double dist = sqrt((double)step[0] * step[0] + (double)step[1] * step[1] +
                               (double)step[2] * step[2]);
            /* 2500 u/s is above any player speed; 40 units covers view height changes. */
            /* (the level's first tenth of a second: the view has no position before it) */
            if (dist > 2500.0 * dt + 40.0 && t - level_t0 > 0.1) {
                /* only where the game put a teleport's fog (TE_TELEPORT, which a teleporter
                 * and a respawn spawn at the arrival: progs' spawn_tfog) within half a second
                 * and 128 units of where the view lands */
                int fog = 0;
                const cl_fxlog *log = &cl->fxlog;
                uint32_t first = log->fx_count > CL_FX_LOG ? log->fx_count - CL_FX_LOG : 0;
                for (uint32_t i = first; i < log->fx_count && !fog; i++) {
                    const cl_fxev *te = &log->fx[i % CL_FX_LOG];
                    double dx = te->origin[0] - o[0], dy = te->origin[1] - o[1],
                           dz = te->origin[2] - o[2];
                    fog = te->kind == CL_FXK_TELEPORT && fabs(te->t0 - t) < 0.5 &&
                          dx * dx + dy * dy + dz * dz < 128.0 * 128.0;
                }
                CHECK_MSG(fog, "%s: view jumps %.1f units at t=%.3f without a teleport", name,
                          dist, t);
                jumps++;
            }
        }
        if (!have_prev || cl->level_count != prev_level)
            level_t0 = t;
        memcpy(prev, o, sizeof prev);
        have_prev = 1;
        prev_level = cl->level_count;
    }
    CHECK_MSG(jumps < 20, "%s: %d teleports is implausible", name, jumps);
    tl_close(tl);
}

TEST(q1_real_view_path_is_continuous)
{
    if (each_dem(path_continuous) == 0)
        SKIP("no realdata/dem");
}

/* ---- every message type, built here, with its effect on the client state ---- */

static char seen_names[64][32];
static int num_seen;

static void collect(void *ctx, double t, uint32_t block, uint64_t offset, const char *name,
                    const char *detail)
{
    (void)ctx;
    (void)t;
    (void)block;
    (void)offset;
    (void)detail;
    if (strcmp(name, "block") && num_seen < 64)
        snprintf(seen_names[num_seen++], sizeof seen_names[0], "%s", name);
}

TEST(q1_every_message_type)
{
    for (int protocol = 15; protocol <= 666; protocol += 651) {
        static buf f;
        memset(&f, 0, sizeof f);
        memcpy(f.b, "-1\n", 3);
        f.n = 3;
        buf m = {{0}, 0};
        put8(&m, 1);                             /* nop */
        serverinfo(&m, protocol);                /* serverinfo */
        put8(&m, 4); put32(&m, (uint32_t)protocol); /* version */
        put8(&m, 32); put8(&m, 3); put8(&m, 3);  /* cdtrack */
        put8(&m, 5); put16(&m, 1);               /* setview */
        put8(&m, 25); put8(&m, 1);               /* signonnum */
        put8(&m, 12); put8(&m, 3); putstr(&m, "azaz"); /* lightstyle */
        put8(&m, 13); put8(&m, 0); putstr(&m, "Ranger"); /* updatename */
        put8(&m, 14); put8(&m, 0); put16(&m, 7); /* updatefrags */
        put8(&m, 17); put8(&m, 0); put8(&m, 0x4d); /* updatecolors: shirt 4, pants 13 */
        baseline(&m, 1, 2, 0);                   /* spawnbaseline */
        put8(&m, 20);                            /* spawnstatic */
        for (int i = 0; i < 4; i++)
            put8(&m, i == 0 ? 2 : 0);
        for (int i = 0; i < 3; i++) {
            putcoord(&m, 64);
            put8(&m, 0);
        }
        put8(&m, 29);                            /* spawnstaticsound */
        for (int i = 0; i < 3; i++)
            putcoord(&m, 0);
        put8(&m, 1); put8(&m, 255); put8(&m, 64);
        block(&f, &m, 0);
        m.n = 0;
        time_msg(&m, 1.0f);                      /* time */
        put8(&m, 3); put8(&m, 0); put32(&m, 85); /* updatestat: health 85 */
        put8(&m, 15); put16(&m, 0x0200); put32(&m, 0x1001); /* clientdata with items */
        put16(&m, 90);
        for (int i = 0; i < 6; i++)
            put8(&m, i == 5 ? 1 : 10);
        update_x(&m, 1, 8);                      /* updateentity */
        put8(&m, 6); put8(&m, 0); put16(&m, 1 << 3 | 1); put8(&m, 1); /* sound */
        for (int i = 0; i < 3; i++)
            putcoord(&m, 0);
        put8(&m, 16); put16(&m, 1 << 3 | 1);     /* stopsound */
        put8(&m, 18);                            /* particle */
        for (int i = 0; i < 3; i++)
            putcoord(&m, 0);
        for (int i = 0; i < 3; i++)
            put8(&m, 0);
        put8(&m, 20); put8(&m, 73);
        put8(&m, 19); put8(&m, 3); put8(&m, 5);  /* damage */
        for (int i = 0; i < 3; i++)
            putcoord(&m, 0);
        put8(&m, 23); put8(&m, 3);               /* temp_entity: explosion */
        for (int i = 0; i < 3; i++)
            putcoord(&m, 32);
        put8(&m, 23); put8(&m, 6); put16(&m, 1); /* temp_entity: lightning */
        for (int i = 0; i < 6; i++)
            putcoord(&m, 16);
        put8(&m, 8); putstr(&m, "You got the shells\n");        /* print */
        put8(&m, 8); putstr(&m, "\001Ranger: gg\n");             /* print: chat */
        put8(&m, 9); putstr(&m, "bf\n");                         /* stufftext */
        put8(&m, 10); put8(&m, 0); put8(&m, 64); put8(&m, 0);    /* setangle */
        put8(&m, 26); putstr(&m, "The door is locked");          /* centerprint */
        put8(&m, 27);                                            /* killedmonster */
        put8(&m, 28);                                            /* foundsecret */
        put8(&m, 24); put8(&m, 1);                               /* setpause */
        put8(&m, 21 + 12); /* sellscreen (33) */
        block(&f, &m, 0);
        m.n = 0;
        time_msg(&m, 1.1f);
        put8(&m, 30);                            /* intermission */
        put8(&m, 31); putstr(&m, "The end");     /* finale */
        put8(&m, 34); putstr(&m, "Cut");         /* cutscene */
        if (protocol == 666) {
            put8(&m, 37); putstr(&m, "sky1");    /* skybox */
            put8(&m, 40);                        /* bf */
            put8(&m, 41); put8(&m, 100); put8(&m, 1); put8(&m, 2); put8(&m, 3); put16(&m, 0);
            put8(&m, 42); put16(&m, 5); put8(&m, 0); put8(&m, 2); put8(&m, 0); /* baseline2 */
            put8(&m, 0); put8(&m, 0);
            for (int i = 0; i < 3; i++) {
                putcoord(&m, 0);
                put8(&m, 0);
            }
            put8(&m, 43); put8(&m, 0); put8(&m, 2); put8(&m, 0); /* spawnstatic2 */
            put8(&m, 0); put8(&m, 0);
            for (int i = 0; i < 3; i++) {
                putcoord(&m, 0);
                put8(&m, 0);
            }
            put8(&m, 44);                        /* spawnstaticsound2 */
            for (int i = 0; i < 3; i++)
                putcoord(&m, 0);
            put16(&m, 1); put8(&m, 255); put8(&m, 64);
        }
        put8(&m, 2);                             /* disconnect */
        block(&f, &m, 0);

        cl_state *cl = new_cl();
        qd_error err;
        demo_t *d = demo_open_mem("every.dem", f.b, f.n, &err);
        CHECK(d);
        num_seen = 0;
        demo_trace tr = {NULL, collect};
        int done = 0;
        qd_err r = QD_OK;
        while (!done && r == QD_OK)
            r = demo_step(d, cl, &tr, &done, &err);
        demo_close(d);
        CHECK_MSG(r == QD_OK, "protocol %d: %s", protocol, err.msg);
        static const char *const want[] = {
            "svc_nop", "svc_serverinfo", "svc_version", "svc_cdtrack", "svc_setview",
            "svc_signonnum", "svc_lightstyle", "svc_updatename", "svc_updatefrags",
            "svc_updatecolors", "svc_spawnbaseline", "svc_spawnstatic", "svc_spawnstaticsound",
            "svc_time", "svc_updatestat", "svc_clientdata", "svc_updateentity", "svc_sound",
            "svc_stopsound", "svc_particle", "svc_damage", "svc_temp_entity", "svc_temp_entity",
            "svc_print", "svc_print", "svc_stufftext", "svc_setangle", "svc_centerprint",
            "svc_killedmonster", "svc_foundsecret", "svc_setpause", "svc_sellscreen",
            "svc_time", "svc_intermission", "svc_finale", "svc_cutscene"};
        int n = (int)(sizeof want / sizeof want[0]);
        for (int i = 0; i < n; i++)
            CHECK_MSG(i < num_seen && !strcmp(seen_names[i], want[i]), "message %d: %s, want %s",
                      i, i < num_seen ? seen_names[i] : "(none)", want[i]);
        if (protocol == 666) {
            static const char *const fitz[] = {"svc_skybox", "svc_bf", "svc_fog",
                                               "svc_spawnbaseline2", "svc_spawnstatic2",
                                               "svc_spawnstaticsound2"};
            for (int i = 0; i < 6; i++)
                CHECK(!strcmp(seen_names[n + i], fitz[i]));
            n += 6;
        }
        CHECK(!strcmp(seen_names[n], "svc_disconnect"));
        /* their effects */
        CHECK_EQ(cl->level.protocol, protocol);
        CHECK_EQ(cl->view.view_entity, 1);
        CHECK_STR(cl->level.lightstyles[3], "azaz");
        CHECK_STR(cl->players[0].name, "Ranger");
        CHECK_EQ(cl->players[0].frags, 7);
        CHECK_EQ(cl->players[0].top, 4);
        CHECK_EQ(cl->players[0].bottom, 13);
        CHECK_EQ(cl->num_statics, protocol == 666 ? 2 : 1);
        CHECK(fabsf(cl->statics[0].origin[0] - 64) < 1e-3f);
        const cl_stats *st = cl_stats_of(cl, -1);
        CHECK_EQ(st->health, 90); /* clientdata's health came after updatestat's 85 */
        /* items 0x1001: IT_AXE | IT_SHOTGUN (quakedef.h), no armour */
        const uint32_t owned = (1u << CL_WP_MELEE) | (1u << CL_WP_SHOTGUN);
        CHECK_EQ(st->weapons & owned, owned);
        CHECK_EQ(st->weapons & ~(owned | 1u << st->weapon), 0); /* nothing else but the held */
        CHECK_EQ(st->armor_type, CL_ARMOR_NONE);
        CHECK_EQ(st->secrets, 1);  /* found secrets */
        CHECK_EQ(st->monsters, 1); /* killed monsters */
        /* in the effects log, in the messages' order: the particle effect (at 0 0 0, its
         * count and colour as written above), then the two temporary entities,
         * TE_EXPLOSION (3) and TE_LIGHTNING2 from entity 1 */
        CHECK_EQ(cl->fxlog.fx_count, 3);
        CHECK_EQ(cl->fxlog.fx[0].kind, CL_FXK_PARTICLES);
        CHECK(cl->fxlog.fx[0].entity == 20 && cl->fxlog.fx[0].style == 73);
        CHECK_EQ(cl->fxlog.fx[1].kind, CL_FXK_EXPLOSION);
        CHECK_EQ(cl->fxlog.fx[1].style, 3);
        CHECK_EQ(cl->fxlog.fx[2].kind, CL_FXK_BEAM_LIGHTNING);
        CHECK_EQ(cl->fxlog.fx[2].entity, 1);
        CHECK(cl->paused && cl->intermission);
        CHECK(cl->message_count >= 5);
        int chats = 0, centers = 0;
        for (uint32_t i = 0; i < cl->message_count && i < CL_MAX_PRINTS; i++) {
            chats += cl->messages[i].kind == CL_MSG_CHAT;
            centers += cl->messages[i].kind == CL_MSG_CENTER;
        }
        CHECK_EQ(chats, 1);
        CHECK_EQ(centers, 3); /* centerprint, finale, cutscene */
        free(cl);
    }
}

/* ProQuake demos are protocol 15 with no binary change: ProQuake's 16-bit "precise aim"
 * angles travel only from client to server, and its team scores, match clock and pings
 * (CRMod's proquake.qc, read by ProQuake's cl_parse.c CL_ParseProQuakeMessage) ride in
 * svc_stufftext as a NUL-terminated string: byte 1, a pqc_* code, then bytes 0x10..0x1f
 * (research notes: glneo/proquake protocol.h pqc_*, jp-grossman/crmod proquake.qc). A demo
 * holding them decodes on, and none of them shows as text. The bytes are written here by
 * CRMod's rules: team 4 (4 + 16), its frags 37 as short_pq (0, 37: 10 10 12 15); the match
 * clock 5:09 as two byte_pq; player 2's ping 80 as short_pq of 2 * 4096 + 80 = 0x2050
 * (byte_pq 0x20: 12 10, byte_pq 0x50: 15 10), then four 0x10. */
TEST(q1_proquake_crmod_messages_decode_silently)
{
    static buf f;
    small_demo(&f, 15);
    buf m = {{0}, 0};
    time_msg(&m, 1.2f);
    static const uint8_t pq[][12] = {
        {1, 4, 0x14, 0x10, 0x10, 0x12, 0x15, 0},              /* pqc_team_frags */
        {1, 5, 0x10, 0x15, 0x10, 0x19, 0},                    /* pqc_match_time 5:09 */
        {1, 7, 0x12, 0x10, 0x15, 0x10, 0x10, 0x10, 0x10, 0x10, 0}, /* pqc_ping_times */
    };
    for (size_t i = 0; i < sizeof pq / sizeof pq[0]; i++) {
        put8(&m, 9); /* svc_stufftext */
        for (size_t k = 0; pq[i][k]; k++)
            put8(&m, pq[i][k]);
        put8(&m, 0);
    }
    put8(&m, 8); /* svc_print */
    putstr(&m, "hello\n");
    update_x(&m, 1, 30);
    block(&f, &m, 40);
    cl_state *cl = new_cl();
    qd_error err;
    CHECK_EQ(run_all(&f, cl, &err), QD_OK);
    CHECK_EQ(cl->frame_count, 3);
    CHECK_EQ(cl->message_count, 1);
    CHECK_STR(cl->messages[0].text, "hello\n");
    cl_entstate s;
    int next;
    float blend;
    CHECK(cl_entity_at(cl, 1, cl->time, &s, &next, &blend));
    CHECK(fabsf(s.origin[0] - 30.0f) < 1e-3f);
    free(cl);
}

/* Marks are kept in time order though a step stamps a level's start with the step's end,
 * after the step's earlier events: one block holding "svc_time 1; a chat line; svc_time 2;
 * svc_serverinfo" stored its marks as level, level, chat (the chat stamped earlier than the
 * second level), so a search forward from before the chat passed it by and found the level
 * (a review). Now they are in order, and found one after the other: chat, then level. */
TEST(q1_marks_in_time_order)
{
    static buf f;
    two_entity_level(&f, 15, 1);
    buf m = {{0}, 0};
    time_msg(&m, 0.5f);
    block(&f, &m, 0);
    m.n = 0;
    time_msg(&m, 1.0f);
    put8(&m, 8); /* svc_print: a chat line (its first byte 1, Quake's chat sound) */
    putstr(&m, "\x01"
               "bob: hi\n");
    time_msg(&m, 2.0f);
    serverinfo(&m, 15);
    block(&f, &m, 0);
    qd_error err;
    demo_t *d = demo_open_mem("marks.dem", f.b, f.n, &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    CHECK(tl != NULL);
    if (!tl)
        return;
    int chat = -1;
    for (int i = 0; i < tl_num_marks(tl); i++) {
        const tl_mark *k = tl_get_mark(tl, i);
        CHECK_MSG(i == 0 || k->time >= tl_get_mark(tl, i - 1)->time, "mark %d at %.3f", i,
                  k->time);
        if (k->kind == TL_MARK_CHAT)
            chat = i;
    }
    CHECK(chat == 1 && tl_num_marks(tl) == 3);
    const tl_mark *first = tl_get_mark(tl, 0), *c = tl_get_mark(tl, 1);
    const tl_mark *next = tl_find_mark(tl, first->time, 1, TL_MARKS_ALL);
    CHECK(next == c);
    next = tl_find_mark(tl, c->time, 1, TL_MARKS_ALL);
    CHECK(next && next->kind == TL_MARK_LEVEL && next->time > c->time);
    tl_close(tl);
}
