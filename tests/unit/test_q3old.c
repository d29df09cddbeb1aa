/* test_q3old.c: Quake III 1.1x-1.27 demos (protocols 43..48, .dm3 and .dm_48). No sample
 * file of either exists in the shared data, so the demos here are written bit by bit from
 * the sources' description (q3_local.h [Q3OLD]: UberDemoTools' message.cpp and parser.cpp,
 * CDP's IdTech3 reader), and every expected value is the one written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/client/cl.h"
#include "../../src/demo/demo.h"
#include "../../src/demo/q3_local.h"
#include "../test.h"

/* ---- the tables, typed from UDT message.cpp EntityStateFields48 and PlayerStateFields48
 * (CDP's Protocol48NetFields are the same); dm3's differ only as checked below ---- */
typedef struct row {
    const char *name;
    int bits;
} row;

static const row es48[] = {
    {"eType", 8}, {"eFlags", 19}, {"pos.trType", 8}, {"pos.trTime", 32},
    {"pos.trDuration", 32}, {"pos.trBase[0]", 0}, {"pos.trBase[1]", 0}, {"pos.trBase[2]", 0},
    {"pos.trDelta[0]", 0}, {"pos.trDelta[1]", 0}, {"pos.trDelta[2]", 0}, {"apos.trType", 8},
    {"apos.trTime", 32}, {"apos.trDuration", 32}, {"apos.trBase[0]", 0}, {"apos.trBase[1]", 0},
    {"apos.trBase[2]", 0}, {"apos.trDelta[0]", 0}, {"apos.trDelta[1]", 0},
    {"apos.trDelta[2]", 0}, {"time", 32}, {"time2", 32}, {"origin[0]", 0}, {"origin[1]", 0},
    {"origin[2]", 0}, {"origin2[0]", 0}, {"origin2[1]", 0}, {"origin2[2]", 0},
    {"angles[0]", 0}, {"angles[1]", 0}, {"angles[2]", 0}, {"angles2[0]", 0},
    {"angles2[1]", 0}, {"angles2[2]", 0}, {"otherEntityNum", 10}, {"otherEntityNum2", 10},
    {"groundEntityNum", 10}, {"loopSound", 8}, {"constantLight", 32}, {"modelindex", 8},
    {"modelindex2", 8}, {"frame", 16}, {"clientNum", 8}, {"solid", 24}, {"event", 10},
    {"eventParm", 8}, {"powerups", 16}, {"weapon", 8}, {"legsAnim", 8}, {"torsoAnim", 8},
    {"generic1", 8},
};

static const row ps48[] = {
    {"commandTime", 32}, {"pm_type", 8}, {"bobCycle", 8}, {"pm_flags", 16}, {"pm_time", -16},
    {"origin[0]", 0}, {"origin[1]", 0}, {"origin[2]", 0}, {"velocity[0]", 0},
    {"velocity[1]", 0}, {"velocity[2]", 0}, {"weaponTime", -16}, {"gravity", 16},
    {"speed", 16}, {"delta_angles[0]", 16}, {"delta_angles[1]", 16}, {"delta_angles[2]", 16},
    {"groundEntityNum", 10}, {"legsTimer", 8}, {"torsoTimer", 12}, {"legsAnim", 8},
    {"torsoAnim", 8}, {"movementDir", 4}, {"eFlags", 16}, {"eventSequence", 16},
    {"events[0]", 8}, {"events[1]", 8}, {"eventParms[0]", 8}, {"eventParms[1]", 8},
    {"externalEvent", 10}, {"externalEventParm", 8}, {"clientNum", 8}, {"weapon", 5},
    {"weaponstate", 4}, {"viewangles[0]", 0}, {"viewangles[1]", 0}, {"viewangles[2]", 0},
    {"viewheight", -8}, {"damageEvent", 8}, {"damageYaw", 8}, {"damagePitch", 8},
    {"damageCount", 8}, {"grapplePoint[0]", 0}, {"grapplePoint[1]", 0},
    {"grapplePoint[2]", 0}, {"jumppad_ent", 10}, {"loopSound", 16}, {"generic1", 8},
};

/* The offset 68's table gives the field of that name (each row lands where 68's does). */
static int offset68(const dd_field *t, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(t[i].name, name))
            return t[i].offset;
    return -1;
}

static void check_table(const dd_field *got, int n, const row *want, int nwant,
                        const dd_field *t68, int n68, const char *const *dm3_names,
                        const int *dm3_bits)
{
    CHECK_EQ(n, nwant);
    for (int i = 0; i < n && i < nwant; i++) {
        int bits = want[i].bits;
        for (int k = 0; dm3_names && dm3_names[k]; k++)
            if (!strcmp(want[i].name, dm3_names[k]))
                bits = dm3_bits[k];
        CHECK_MSG(!strcmp(got[i].name, want[i].name), "row %d: %s, UDT %s", i, got[i].name,
                  want[i].name);
        CHECK_MSG(got[i].bits == bits, "row %d (%s): %d bits, UDT %d", i, want[i].name,
                  got[i].bits, bits);
        CHECK_MSG(got[i].offset == offset68(t68, n68, want[i].name), "row %d (%s) slot", i,
                  want[i].name);
    }
}

TEST(q3old_tables_are_udts)
{
    check_table(q3_dm48_es_fields, Q3_DM48_ES, es48, 51, q3_es_fields, Q3_ES_COUNT, NULL, NULL);
    check_table(q3_dm48_ps_fields, Q3_DM48_PS, ps48, 48, q3_ps_fields, Q3_PS_COUNT, NULL, NULL);
    /* dm3: EntityStateFields3 has eFlags at 16 bits and no generic1 (50 rows);
     * PlayerStateFields3 reads pm_time, weaponTime and viewheight unsigned, externalEvent
     * in 8 bits, and stops after grapplePoint (45 rows) */
    static const char *const es3n[] = {"eFlags", NULL};
    static const int es3b[] = {16};
    check_table(q3_dm3_es_fields, Q3_DM3_ES, es48, 50, q3_es_fields, Q3_ES_COUNT, es3n, es3b);
    static const char *const ps3n[] = {"pm_time", "weaponTime", "externalEvent", "viewheight",
                                       NULL};
    static const int ps3b[] = {16, 16, 8, 8};
    check_table(q3_dm3_ps_fields, Q3_DM3_PS, ps48, 45, q3_ps_fields, Q3_PS_COUNT, ps3n, ps3b);
    /* UDT's first mask, 60 80 00..: rows 5, 6 and 15 */
    CHECK(!strcmp(q3_dm48_es_fields[5].name, "pos.trBase[0]"));
    CHECK(!strcmp(q3_dm48_es_fields[15].name, "apos.trBase[1]"));
    CHECK_EQ(q3_old_masks[0][0], 0x60);
    CHECK_EQ(q3_old_masks[0][1], 0x80);
    CHECK_EQ(q3_old_masks[30][6], 0x02);
}

/* The numbering dm3 uses, as UDT's protocol_conversion.cpp turns it into 68's. */
TEST(q3old_dm3_numbering)
{
    CHECK_EQ(q3_dm3_event(46), 46); /* EV_GLOBAL_SOUND */
    CHECK_EQ(q3_dm3_event(47), 48); /* EV_BULLET_HIT_FLESH */
    CHECK_EQ(q3_dm3_event(49), 50); /* EV_MISSILE_HIT */
    CHECK_EQ(q3_dm3_event(51), 53); /* EV_RAILTRAIL */
    CHECK_EQ(q3_dm3_event(58), 60); /* EV_OBITUARY */
    CHECK_EQ(q3_dm3_event(64), 76); /* EV_TAUNT */
    CHECK_EQ(q3_dm3_event(65), 0);
    CHECK_EQ(q3_dm3_cs(0), 0);
    CHECK_EQ(q3_dm3_cs(12), 20); /* CS_GAME_VERSION */
    CHECK_EQ(q3_dm3_cs(13), 21); /* CS_LEVEL_START_TIME */
    CHECK_EQ(q3_dm3_cs(15), 23); /* CS_FLAGSTATUS */
    CHECK_EQ(q3_dm3_cs(16), -1);
    CHECK_EQ(q3_dm3_cs(32), 32);  /* CS_MODELS */
    CHECK_EQ(q3_dm3_cs(607), 607); /* player 63 */
    CHECK_EQ(q3_dm3_cs(608), -1);  /* player 64: 68 has 64 slots */
    CHECK_EQ(q3_dm3_cs(672), 608); /* CS_LOCATIONS */
}

/* ---- a writer of plain bits, LSB first, and of demo blocks ---- */
typedef struct bits_out {
    uint8_t b[2048];
    size_t n; /* bits written */
} bits_out;

static void w_bits(bits_out *o, uint32_t v, int n)
{
    for (int i = 0; i < n; i++, o->n++)
        if (v >> i & 1)
            o->b[o->n >> 3] |= (uint8_t)(1u << (o->n & 7));
}

static void w_align(bits_out *o) { o->n = (o->n + 7) & ~(size_t)7; }

static void w_string(bits_out *o, const char *s)
{
    w_align(o);
    for (; *s; s++)
        w_bits(o, (uint8_t)*s, 8);
    w_bits(o, 0, 8);
}

/* a float field: 0 and 13 bits of value + 4096, or 1 and its 32 bits */
static void w_fint(bits_out *o, int v)
{
    w_bits(o, 0, 1);
    w_bits(o, (uint32_t)(v + 4096), 13);
}

static void w_ffull(bits_out *o, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    w_bits(o, 1, 1);
    w_bits(o, u, 32);
}

typedef struct demo_out {
    uint8_t b[8192];
    size_t n;
} demo_out;

static void put32(demo_out *d, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        d->b[d->n++] = (uint8_t)(v >> (8 * i));
}

static void block(demo_out *d, int seq, const bits_out *m)
{
    size_t len = (m->n + 7) / 8;
    put32(d, (uint32_t)seq);
    put32(d, (uint32_t)len);
    memcpy(d->b + d->n, m->b, len);
    d->n += len;
}

/* A playerState delta of `rows` fields with bits set only for the rows in `set` (given in
 * increasing order with their writers). */
typedef void (*field_fn)(bits_out *o);

/* ---- .dm_48: a gamestate, two snapshots, the second delta'd from the first ---- */

static void ps48_first(bits_out *o)
{
    for (int i = 0; i < Q3_DM48_PS; i++) {
        int set = i == 0 || i == 5 || i == 6 || i == 7 || i == 31 || i == 35 || i == 37;
        w_bits(o, (uint32_t)set, 1);
        if (!set)
            continue;
        switch (i) {
        case 0: w_bits(o, 9990, 32); break;      /* commandTime */
        case 5: w_fint(o, 100); break;           /* origin[0] */
        case 6: w_ffull(o, -2.5f); break;        /* origin[1] */
        case 7: w_fint(o, 24); break;            /* origin[2] */
        case 31: w_bits(o, 2, 8); break;         /* clientNum */
        case 35: w_ffull(o, 90.0f); break;       /* viewangles[1] */
        case 37: w_bits(o, 26, 8); break;        /* viewheight */
        }
    }
    w_bits(o, 1, 1); /* stats: health (slot 0) 100 */
    w_bits(o, 1, 16);
    w_bits(o, 100, 16);
    w_bits(o, 1, 1); /* persistant: score (slot 0) -3 */
    w_bits(o, 1, 16);
    w_bits(o, (uint32_t)-3 & 0xffff, 16);
    w_bits(o, 0, 1); /* ammo */
    w_bits(o, 0, 1); /* powerups */
}

static size_t build_dm48(demo_out *d)
{
    bits_out m;
    memset(d, 0, sizeof *d);
    /* block 1: the gamestate */
    memset(&m, 0, sizeof m);
    w_bits(&m, 0, 32); /* reliableAcknowledge */
    w_bits(&m, Q3_SVC_GAMESTATE, 8);
    w_bits(&m, 0, 32);
    w_bits(&m, Q3_SVC_CONFIGSTRING, 8);
    w_bits(&m, 0, 16);
    w_string(&m, "\\protocol\\48\\mapname\\q3dm17\\sv_maxclients\\8\\g_gametype\\0");
    w_bits(&m, Q3_SVC_CONFIGSTRING, 8);
    w_bits(&m, 13, 16); /* 68's CS_TEAMVOTE_TIME + 1 (nothing here); dm3's level start */
    w_string(&m, "9000");
    w_bits(&m, Q3_SVC_CONFIGSTRING, 8);
    w_bits(&m, 544, 16);
    w_string(&m, "n\\Visor\\t\\0\\model\\visor\\hmodel\\visor");
    w_bits(&m, Q3_SVC_BASELINE, 8);
    w_bits(&m, 5, 10); /* entity 5 */
    w_bits(&m, 0, 1);  /* not removed */
    w_bits(&m, 1, 1);  /* changed */
    w_bits(&m, 31, 5); /* an explicit mask: eType (row 0) and modelindex (row 39) */
    static const uint8_t mask[6] = {0x01, 0, 0, 0, 0x80, 0};
    for (int i = 0; i < 6; i++)
        w_bits(&m, mask[i], 8);
    w_bits(&m, 0, 3); /* rows 48..50 */
    w_bits(&m, 0, 8); /* eType ET_GENERAL */
    w_bits(&m, 3, 8); /* modelindex 3 */
    w_bits(&m, Q3_SVC_EOF, 8);
    block(d, 1, &m);
    /* block 2: a snapshot from nothing */
    memset(&m, 0, sizeof m);
    w_bits(&m, 1, 32);
    w_bits(&m, Q3_SVC_SNAPSHOT, 8);
    w_bits(&m, 10000, 32); /* serverTime */
    w_bits(&m, 0, 8);      /* deltaNum */
    w_bits(&m, 0, 8);      /* snapFlags */
    w_bits(&m, 0, 8);      /* areamask bytes */
    ps48_first(&m);
    w_bits(&m, 5, 10); /* entity 5, from its baseline */
    w_bits(&m, 0, 1);
    w_bits(&m, 1, 1);
    w_bits(&m, 0, 5);      /* mask 0: pos.trBase[0], pos.trBase[1], apos.trBase[1] */
    w_fint(&m, 300);
    w_ffull(&m, 12.5f);
    w_fint(&m, 45);
    w_bits(&m, 1023, 10); /* the end of the entities */
    w_align(&m);
    w_bits(&m, Q3_SVC_EOF, 8);
    block(d, 2, &m);
    /* block 3: a snapshot from block 2's */
    memset(&m, 0, sizeof m);
    w_bits(&m, 1, 32);
    w_bits(&m, Q3_SVC_SNAPSHOT, 8);
    w_bits(&m, 10050, 32);
    w_bits(&m, 1, 8); /* from the snapshot one block back */
    w_bits(&m, 0, 8);
    w_bits(&m, 0, 8);
    for (int i = 0; i < Q3_DM48_PS; i++) { /* only origin[0] changes */
        w_bits(&m, i == 5, 1);
        if (i == 5)
            w_fint(&m, 110);
    }
    for (int k = 0; k < 4; k++)
        w_bits(&m, 0, 1);
    w_bits(&m, 5, 10);
    w_bits(&m, 0, 1);
    w_bits(&m, 1, 1);
    w_bits(&m, 1, 5); /* mask 1: pos.trBase[0] and [1] */
    w_fint(&m, 310);
    w_fint(&m, 20);
    w_bits(&m, 1023, 10);
    w_align(&m);
    w_bits(&m, Q3_SVC_EOF, 8);
    block(d, 3, &m);
    put32(d, 0xffffffffu);
    put32(d, 0xffffffffu);
    return d->n;
}

/* Decodes the whole demo into a new client state; *ok: it opened as Quake III and every
 * block decoded to the end marker. msg: the error, if any. */
static cl_state *decode_all(const char *name, const uint8_t *data, size_t len, int *ok,
                            char msg[256])
{
    qd_error err;
    *ok = 0;
    msg[0] = 0;
    demo_t *d = demo_open_mem(name, data, len, &err);
    if (!d) {
        snprintf(msg, 256, "open: %s", err.msg);
        return NULL;
    }
    cl_state *cl = calloc(1, sizeof *cl);
    if (!cl) {
        demo_close(d);
        return NULL;
    }
    cl_reset(cl);
    int done = 0;
    qd_err e = QD_OK;
    while (!done && (e = demo_step(d, cl, NULL, &done, &err)) == QD_OK) {
    }
    if (e != QD_OK)
        snprintf(msg, 256, "decode: %s", err.msg);
    *ok = demo_get_format(d) == DEMO_FMT_DM3 && e == QD_OK && done;
    demo_close(d);
    return cl;
}

/* cl: the client state of the whole written demo d (n bytes) opened as name, which must
 * decode to its end */
#define WRITTEN_DECODES(cl, name, d, n)                                                    \
    int ok_ = 0;                                                                           \
    char msg_[256];                                                                        \
    cl_state *cl = decode_all(name, (d).b, n, &ok_, msg_);                                 \
    CHECK_MSG(cl && ok_, "%s", msg_)

/* QDEMO_Q3OLD_SEEDS=DIR writes the two demos there (the fuzz corpus keeps them as seeds:
 * tests/fuzz/corpus/dm3/written.dm3, written.dm_48). */
static void write_seed(const char *name, const uint8_t *data, size_t len)
{
    const char *dir = getenv("QDEMO_Q3OLD_SEEDS");
    char path[512];
    if (!dir || !*dir || snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return;
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, len, f);
        fclose(f);
    }
}

TEST(q3old_dm48_written_demo)
{
    static demo_out d;
    size_t n = build_dm48(&d);
    write_seed("written.dm_48", d.b, n);
    WRITTEN_DECODES(cl, "written.bin", d, n); /* a name that says nothing: the content */
    CHECK_EQ(cl->level.protocol, 48);
    CHECK(strstr(cl->level.map, "q3dm17") != NULL);
    CHECK_EQ(cl->frame_count, 2);
    CHECK(fabs(cl->time - 0.05) < 1e-9);
    CHECK(!strcmp(cl->players[0].name, "Visor"));
    /* the recorder is the playerState's clientNum 2; its eye is origin + viewheight */
    CHECK_EQ(cl_view_player(cl), 2);
    CHECK(cl->view.has_origin);
    CHECK(fabsf(cl->view.origin[0] - 110.0f) < 1e-4f);
    CHECK(fabsf(cl->view.origin[1] + 2.5f) < 1e-4f);
    CHECK(fabsf(cl->view.origin[2] - 50.0f) < 1e-4f);
    CHECK(fabsf(cl->view.angles[1] - 90.0f) < 1e-4f);
    const cl_stats *st = cl_stats_of(cl, -1);
    CHECK_EQ(st->health, 100);
    CHECK_EQ(cl->players[2].frags, -3);
    /* entity 5 (client slot 6): its baseline's model, block 3's position, block 2's yaw */
    const cl_entity *e = &cl->entities[6];
    CHECK(e->active);
    CHECK_EQ(e->cur.model, 3);
    CHECK(fabsf(e->cur.origin[0] - 310.0f) < 1e-4f);
    CHECK(fabsf(e->cur.origin[1] - 20.0f) < 1e-4f);
    CHECK(fabsf(e->cur.angles[1] - 45.0f) < 1e-4f);
    free(cl);
}

/* ---- .dm3: no acknowledge, an extra field before serverTime, dm3's numbering ---- */

static size_t build_dm3(demo_out *d)
{
    bits_out m;
    memset(d, 0, sizeof *d);
    memset(&m, 0, sizeof m);
    w_bits(&m, Q3_SVC_GAMESTATE, 8); /* no reliableAcknowledge */
    w_bits(&m, 0, 32);
    w_bits(&m, Q3_SVC_CONFIGSTRING, 8);
    w_bits(&m, 0, 16);
    w_string(&m, "\\protocol\\43\\mapname\\q3dm1\\sv_maxclients\\8\\g_gametype\\0");
    w_bits(&m, Q3_SVC_CONFIGSTRING, 8);
    w_bits(&m, 13, 16); /* dm3's CS_LEVEL_START_TIME */
    w_string(&m, "9000");
    w_bits(&m, Q3_SVC_CONFIGSTRING, 8);
    w_bits(&m, 544, 16);
    w_string(&m, "n\\Sarge\\model\\sarge");
    w_bits(&m, Q3_SVC_CONFIGSTRING, 8);
    w_bits(&m, 545, 16);
    w_string(&m, "n\\Doom\\model\\doom");
    w_bits(&m, Q3_SVC_BAD, 8); /* svc_bad ends a dm3 gamestate as svc_EOF does */
    block(d, 1, &m);

    memset(&m, 0, sizeof m);
    w_bits(&m, Q3_SVC_SNAPSHOT, 8);
    w_bits(&m, 77, 32);    /* the client command sequence */
    w_bits(&m, 10000, 32); /* serverTime */
    w_bits(&m, 0, 8);
    w_bits(&m, 0, 8);
    w_bits(&m, 0, 8);
    for (int i = 0; i < Q3_DM3_PS; i++) { /* origin[0] 64, viewheight 22 (8 bits) */
        w_bits(&m, i == 5 || i == 37, 1);
        if (i == 5)
            w_fint(&m, 64);
        if (i == 37)
            w_bits(&m, 22, 8);
    }
    w_bits(&m, 1, 1); /* stats: health 125 */
    w_bits(&m, 1, 16);
    w_bits(&m, 125, 16);
    w_bits(&m, 1, 1); /* persistant: score 5 (slot 0), attacker 1 (dm3's slot 7) */
    w_bits(&m, 1u | 1u << 7, 16);
    w_bits(&m, 5, 16);
    w_bits(&m, 1, 16);
    w_bits(&m, 0, 1);
    w_bits(&m, 0, 1);
    /* entity 40: an obituary event entity, eType ET_EVENTS (12 in dm3) + dm3's EV_OBITUARY
     * (58): Doom (client 1) killed by Sarge (client 0) with a rocket (MOD_ROCKET 6) */
    w_bits(&m, 40, 10);
    w_bits(&m, 0, 1);
    w_bits(&m, 1, 1);
    w_bits(&m, 31, 5); /* explicit: eType 0, otherEntityNum 34, otherEntityNum2 35,
                        * eventParm 45 */
    static const uint8_t mask[6] = {0x01, 0, 0, 0, 0x0c, 0x20};
    for (int i = 0; i < 6; i++)
        w_bits(&m, mask[i], 8);
    w_bits(&m, 0, 2); /* rows 48, 49 */
    w_bits(&m, 12 + 58, 8);
    w_bits(&m, 1, 10);
    w_bits(&m, 0, 10);
    w_bits(&m, 6, 8);
    w_bits(&m, 1023, 10);
    block(d, 2, &m); /* no svc_EOF: the data's end ends a dm3 message */
    put32(d, 0xffffffffu);
    put32(d, 0xffffffffu);
    return d->n;
}

TEST(q3old_dm3_written_demo)
{
    static demo_out d;
    size_t n = build_dm3(&d);
    write_seed("written.dm3", d.b, n);
    WRITTEN_DECODES(cl, "written.dm3", d, n);
    CHECK_EQ(cl->level.protocol, 43);
    CHECK_EQ(cl->frame_count, 1);
    CHECK(!strcmp(cl->players[0].name, "Sarge"));
    CHECK(!strcmp(cl->players[1].name, "Doom"));
    CHECK_EQ(cl_view_player(cl), 0); /* clientNum 0 */
    CHECK(fabsf(cl->view.origin[0] - 64.0f) < 1e-4f);
    CHECK(fabsf(cl->view.origin[2] - 22.0f) < 1e-4f);
    CHECK_EQ(cl_stats_of(cl, -1)->health, 125);
    CHECK_EQ(cl->players[0].frags, 5);
    /* dm3's configstring 13 is 68's CS_LEVEL_START_TIME: the clock read 0:00 at server
     * time 9000, one second before the first snapshot */
    CHECK(cl->has_clock);
    CHECK(fabs(cl->clock_start + 1.0) < 1e-9);
    /* the obituary, numbered as 68 numbers it */
    int frags = 0;
    for (uint32_t i = 0; i < cl->event_count && i < CL_MAX_EVENTS; i++) {
        const cl_event *ev = &cl->events[i];
        if (ev->kind != CL_EV_FRAG)
            continue;
        frags++;
        CHECK_EQ(ev->target, 1);
        CHECK_EQ(ev->actor, 0);
        CHECK_EQ(ev->means, CL_MOD_WEAPON);
        CHECK_EQ(ev->weapon, CL_WP_ROCKET_LAUNCHER);
    }
    CHECK_EQ(frags, 1);
    free(cl);
}

/* UDT protocol_conversion.cpp: a .dm_48 whose serverinfo says protocol 43 numbers its
 * configstrings as dm3 does (its 13 is the level start), one of 48 as 68 does. */
TEST(q3old_dm48_of_protocol_43_numbers_configstrings_as_dm3)
{
    static demo_out d;
    size_t n = build_dm48(&d);
    int ok = 0;
    char msg[256];
    cl_state *cl = decode_all("written.dm_48", d.b, n, &ok, msg);
    CHECK_MSG(cl && ok, "%s", msg);
    CHECK(!cl->has_clock);
    free(cl);
    for (size_t i = 0; i + 11 < n; i++)
        if (!memcmp(d.b + i, "protocol\\48", 11))
            d.b[i + 10] = '3';
    cl = decode_all("written.dm_48", d.b, n, &ok, msg);
    CHECK_MSG(cl && ok, "%s", msg);
    CHECK_EQ(cl->level.protocol, 43);
    CHECK(cl->has_clock);
    CHECK(fabs(cl->clock_start + 1.0) < 1e-9);
    free(cl);
}

/* A plain file (43..48's shape) that says protocol 68 is refused with the reason (the other
 * way round, a Huffman-coded file that says 48: test_q3.c
 * q3_refuses_old_protocol_in_huffman_coding). */
TEST(q3old_protocol_must_match_the_coding)
{
    static demo_out d;
    size_t n = build_dm48(&d);
    /* the serverinfo's "48" as "68" (same length): the file's shape still says 43..48 */
    for (size_t i = 0; i + 11 < n; i++)
        if (!memcmp(d.b + i, "protocol\\48", 11)) {
            d.b[i + 9] = '6';
            break;
        }
    qd_error err;
    demo_t *dm = demo_open_mem("written.dm_48", d.b, n, &err);
    CHECK(dm != NULL);
    if (!dm)
        return;
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    int done = 0;
    qd_err e = QD_OK;
    while (!done && (e = demo_step(dm, cl, NULL, &done, &err)) == QD_OK) {
    }
    CHECK(e != QD_OK);
    CHECK_MSG(strstr(err.msg, "protocol 68") != NULL, "%s", err.msg);
    demo_close(dm);
    free(cl);
}
