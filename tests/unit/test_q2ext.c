/* test_q2ext.c: Q2PRO's extended-limits .dm2 (protocols 3434..3436), written here byte by
 * byte by the rules of Q2PRO's readers ([Q2X] in q2_local.h; the facts in
 * /work/notes/q2ext/FINDINGS.md). Every expected value is worked out by hand from the bytes
 * written, in the comment beside it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/demo/demo.h"
#include "../../src/demo/q2_local.h"
#include "../q2build.h"
#include "../test.h"
#include "../testbuf.h"

static int xnear(double a, double b) { return fabs(a - b) < 0.01; }

/* The newest effect of kind, NULL none. */
static const cl_fxev *last_fx(const cl_state *cl, int kind)
{
    for (uint32_t i = cl->fxlog.fx_count; i > 0 && cl->fxlog.fx_count - i < CL_FX_LOG; i--) {
        const cl_fxev *e = &cl->fxlog.fx[(i - 1) % CL_FX_LOG];
        if (e->kind == kind)
            return e;
    }
    return NULL;
}

/* 3434: the extended configstring map (models at 62, sounds at 8254, player skins at
 * 12862), an entity numbered past 1023 with a 16-bit model index, alpha and scale (a fifth
 * bits byte), the extended sound word, a 16-bit gun index, svc_sound's 16-bit index and
 * svc_muzzleflash2's entity word; coordinates still shorts. */
static void write_3434(buf *f)
{
    static buf m;
    m.n = 0;
    serverdata(&m, Q2_PROTOCOL_Q2PRO_EXT, Q2_RECORD_CLIENT, "", 0);
    configstring(&m, 60, "4");                       /* CS_MAXCLIENTS: 4 */
    configstring(&m, 62 + 1, "maps/big.bsp");        /* model 1 */
    configstring(&m, 62 + 2, "models/objects/rocket/tris.md2");
    configstring(&m, 62 + 300, "models/big/tris.md2"); /* model 300: slot 300 + 1664 = 1964 */
    configstring(&m, 8254 + 1500, "big/hum.wav");    /* sound 1500 */
    configstring(&m, 12862 + 0, "Alice\\male/grunt"); /* client 0 */
    configstring(&m, 13629, "last");                 /* the last index (CS_GENERAL + 511) */
    put8(&m, Q2_SVC_SPAWNBASELINE); /* entity 3000: model 300 (a word), x 100 */
    ent_bits(&m, Q2_U_MODEL | Q2_U_MODEL16 | Q2_U_ORIGIN1, 3000);
    put16(&m, 300);
    put16(&m, 800);
    block(f, &m);

    m.n = 0;
    frame(&m, 1, -1);
    put8(&m, Q2_SVC_PLAYERINFO);
    put16(&m, (int)(Q2_PS_M_ORIGIN | Q2_PS_WEAPONINDEX | Q2_PS_FOV));
    put16(&m, 8);  /* x 1 */
    put16(&m, 16); /* y 2 */
    put16(&m, 24); /* z 3 */
    put16(&m, 2 | 5 << 13); /* gun model 2, gun skin 5 (dropped) */
    put8(&m, 90);           /* fov */
    put32(&m, 1u << Q2_STAT_HEALTH);
    put16(&m, 100);
    put8(&m, Q2_SVC_PACKETENTITIES);
    /* entity 2 from nothing: model 2 (a byte), yaw 16384 (U_ANGLE16: 90 degrees), sound
     * 1500 with a loop volume byte, a 32-bit solid, one more-effects byte */
    ent_bits(&m, Q2_U_MODEL | Q2_U_ANGLE2 | Q2_U_ANGLE16 | Q2_U_SOUND | Q2_U_SOLID |
                      Q2_U_MOREFX8, 2);
    put8(&m, 2);
    put16(&m, 16384);
    put16(&m, 1500 | (int)Q2_XSOUND_VOLUME);
    put8(&m, 200);
    put32(&m, 0x01020304u);
    put8(&m, 0x55);
    /* entity 3000 from its baseline: alpha 128, scale 32 (bit 32: a fifth byte) */
    ent_bits(&m, Q2_U_ALPHA | (uint64_t)Q2_U5_SCALE << 32, 3000);
    put8(&m, 128);
    put8(&m, 32);
    put16(&m, 0); /* the end of the entities */
    /* svc_sound: a 16-bit index 1500 on entity 3000, channel 1 */
    put8(&m, Q2_SVC_SOUND);
    put8(&m, Q2_SND_INDEX16 | Q2_SND_ENT);
    put16(&m, 1500);
    put16(&m, 3000 << 3 | 1);
    /* svc_muzzleflash2 on entity 3000, the weapon's bit 8 in the word's bit 13 */
    put8(&m, Q2_SVC_MUZZLEFLASH2);
    put16(&m, 3000 | 1 << 13);
    put8(&m, 7);
    block(f, &m);
    end_marker(f);
}

TEST(q2_q2pro_extended_3434)
{
    static buf f;
    f.n = 0;
    write_3434(&f);
    q2_seed("written_q2pro_ext_3434.dm2", &f);
    q2_xrun x;
    CHECK(q2_xdecode(&x, f.b, f.n));
    CHECK_MSG(x.e == QD_OK && x.done, "%s", x.err.msg);
    CHECK_EQ(demo_q2_decoder.protocol(x.st), 3434);
    CHECK_EQ(x.cl->level.max_clients, 4);
    CHECK_STR(x.cl->level.models[1], "maps/big.bsp");
    CHECK_STR(x.cl->level.models[2], "models/objects/rocket/tris.md2");
    CHECK_STR(x.cl->level.models[300 + Q2_EXT_MODEL_SHIFT], "models/big/tris.md2");
    CHECK_EQ(300 + Q2_EXT_MODEL_SHIFT, 1964);
    CHECK_STR(x.cl->level.sounds[1500], "big/hum.wav");
    CHECK_STR(x.cl->players[0].name, "Alice");
    /* the view: origin (1, 2, 3), the gun model 2 */
    CHECK(xnear(x.cl->view.origin[0], 1) && xnear(x.cl->view.origin[1], 2));
    CHECK_EQ(x.cl->view.fov, 90);
    CHECK_EQ(cl_stats_of(x.cl, -1)->health, 100);
    CHECK_EQ(cl_stats_of(x.cl, -1)->gun_model, 2);
    /* entity 2 */
    const cl_entity *e2 = &x.cl->entities[2];
    CHECK(e2->active);
    CHECK_EQ(e2->cur.model, 2);
    CHECK(xnear(e2->cur.angles[1], 90));
    CHECK_EQ(e2->loop_sound, 1500);
    /* entity 3000: its baseline's model 300 in slot 1964, x 100, alpha and scale */
    const cl_entity *e = &x.cl->entities[3000];
    CHECK(e->active);
    CHECK_EQ(e->cur.model, 1964);
    CHECK(xnear(e->cur.origin[0], 100));
    CHECK_EQ(e->cur.alpha, 128);
    CHECK_EQ(e->cur.scale, 32);
    /* svc_sound: sound 1500 on entity 3000, channel 1 */
    const cl_sound *snd = &x.cl->fxlog.sounds[(x.cl->fxlog.sound_count - 1) % CL_SOUND_LOG];
    CHECK_EQ(x.cl->fxlog.sound_count, 1);
    CHECK_EQ(snd->sound, 1500);
    CHECK_EQ(snd->entity, 3000);
    CHECK_EQ(snd->channel, 1);
    /* svc_muzzleflash2: entity 3000 once the word's top 3 bits are taken off */
    const cl_fxev *mz = last_fx(x.cl, CL_FXK_MUZZLE);
    CHECK(mz && mz->entity == 3000);
    q2_xfree(&x);
}

/* 3435: int23 coordinates (absolute 3-byte form, 2-byte deltas from the source), 16-bit
 * pm_time and pm_flags, the blend under a mask byte, the stats under a varint mask of 64,
 * int23 positions in svc_temp_entity and svc_sound. */
static void write_3435(buf *f, int proto)
{
    static buf m;
    m.n = 0;
    serverdata(&m, proto, Q2_RECORD_CLIENT, "", 0);
    configstring(&m, 62 + 1, "maps/big.bsp");
    configstring(&m, 62 + 2, "models/objects/rocket/tris.md2");
    put8(&m, Q2_SVC_SPAWNBASELINE); /* entity 2: model 2, x 40000/8 = 5000 (absolute) */
    ent_bits(&m, Q2_U_MODEL | Q2_U_ORIGIN1, 2);
    put8(&m, 2);
    put_i23_abs(&m, 40000); /* bytes 81 38 01: (40000 << 1 | 1) = 80001 = 0x013881 */
    block(f, &m);

    m.n = 0; /* frame 1 from nothing */
    frame(&m, 1, -1);
    put8(&m, Q2_SVC_PLAYERINFO);
    unsigned flags = Q2_PS_M_ORIGIN | Q2_PS_M_TIME | Q2_PS_M_FLAGS | Q2_PS_BLEND | Q2_PS_FOV;
    if (proto == Q2_PROTOCOL_Q2PRO_EXT_FOG)
        flags |= Q2_PS_MOREBITS;
    put16(&m, (int)(flags & 0xffff));
    if (proto == Q2_PROTOCOL_Q2PRO_EXT_FOG)
        put8(&m, Q2_PS_FOG >> 16); /* bit 16: fog */
    put_i23_delta(&m, 16);     /* x: 0 + 16 = 16 (2 units) */
    put_i23_abs(&m, -40000);   /* y: -40000 (-5000 units): bytes 81 C7 FE */
    put_i23_delta(&m, 24);     /* z: 24 (3 units) */
    put16(&m, 0x1234);         /* pm_time, a word */
    put16(&m, 0x0100);         /* pm_flags, a word: no teleport bit (32) */
    put_ext2_ps_tail(&m, proto == Q2_PROTOCOL_Q2PRO_EXT_FOG); /* blend 200, fov 100, health 75 */
    put8(&m, Q2_SVC_PACKETENTITIES);
    /* entity 2 from its baseline: x + 8 (40008 = 5001 units); the old origin (80, 0, 0) as
     * three int23 (2-byte forms from 0); a teleport event after them */
    ent_bits(&m, Q2_U_ORIGIN1 | Q2_U_OLDORIGIN | Q2_U_EVENT, 2);
    put_i23_delta(&m, 8);
    put_i23_delta(&m, 80);
    put_i23_delta(&m, 0);
    put_i23_delta(&m, 0);
    put8(&m, Q2_EV_PLAYER_TELEPORT);
    put16(&m, 0);
    /* TE_EXPLOSION1 (5) at (40000, 0, -8) eighths = (5000, 0, -1) */
    put8(&m, Q2_SVC_TEMP_ENTITY);
    put8(&m, 5);
    put_i23_abs(&m, 40000);
    put_i23_delta(&m, 0);
    put_i23_delta(&m, -8);
    /* svc_sound 1 at (-40000, 8, 0) eighths = (-5000, 1, 0) */
    put8(&m, Q2_SVC_SOUND);
    put8(&m, Q2_SND_POS);
    put8(&m, 1);
    put_i23_abs(&m, -40000);
    put_i23_delta(&m, 8);
    put_i23_delta(&m, 0);
    block(f, &m);

    m.n = 0; /* frame 2 from 1: player x 16 + 8 = 24 (3 units); entity 2 x 40008 - 16 */
    frame(&m, 2, 1);
    put8(&m, Q2_SVC_PLAYERINFO);
    put16(&m, (int)Q2_PS_M_ORIGIN);
    put_i23_delta(&m, 8);
    put_i23_delta(&m, 0);
    put_i23_delta(&m, 0);
    put8(&m, 0); /* no stats: an empty varint */
    put8(&m, Q2_SVC_PACKETENTITIES);
    ent_bits(&m, Q2_U_ORIGIN1, 2);
    put_i23_delta(&m, -16);
    put16(&m, 0);
    block(f, &m);
    end_marker(f);
}

static void check_3435(const q2_xrun *x)
{
    /* the view after frame 2: x 24/8 = 3, y -40000/8 = -5000, z 24/8 = 3 */
    CHECK(xnear(x->cl->view.origin[0], 3));
    CHECK(xnear(x->cl->view.origin[1], -5000));
    CHECK(xnear(x->cl->view.origin[2], 3));
    CHECK_EQ(x->cl->view.fov, 100);
    CHECK_EQ(cl_stats_of(x->cl, -1)->health, 75);
    const q2_state *s = x->st;
    CHECK_EQ(s->ps.pm_time, 0x1234);
    CHECK_EQ(s->ps.pm_flags, 0x0100);
    CHECK_EQ(s->ps.blend[0], 200);
    /* entity 2: 40000 + 8 - 16 = 39992 eighths = 4999 units */
    CHECK(x->cl->entities[2].active);
    CHECK(xnear(x->cl->entities[2].cur.origin[0], 4999));
    const cl_fxev *ex = last_fx(x->cl, CL_FXK_EXPLOSION);
    CHECK(ex && xnear(ex->origin[0], 5000) && xnear(ex->origin[2], -1));
    /* three sounds: the teleport event's misc/tele1.wav (cl_ents.c CL_EntityEvent), the
     * explosion's weapons/rocklx1a.wav (cl_tent.c TE_EXPLOSION1), both on the client's own
     * slots (before the review's fix the extended map left them none: only the third was
     * logged), and svc_sound 1 at (-5000, 1, 0) */
    CHECK_EQ(x->cl->fxlog.sound_count, 3);
    int tele = 0, boom = 0, sent = 0;
    for (uint32_t i = 0; i < x->cl->fxlog.sound_count && i < CL_SOUND_LOG; i++) {
        const cl_sound *snd = &x->cl->fxlog.sounds[i];
        const char *name = snd->sound < CL_MAX_SOUNDS ? x->cl->level.sounds[snd->sound] : "";
        tele += !strcmp(name, "misc/tele1.wav");
        boom += !strcmp(name, "weapons/rocklx1a.wav");
        sent += snd->sound == 1 && snd->has_origin && xnear(snd->origin[0], -5000) &&
                xnear(snd->origin[1], 1);
    }
    CHECK(tele == 1 && boom == 1 && sent == 1);
}

/* 3435, and 3436 with PS_MOREBITS and the fog between the blend and the fov. */
TEST(q2_q2pro_extended_3435_3436)
{
    static const int protos[2] = {Q2_PROTOCOL_Q2PRO_EXT2, Q2_PROTOCOL_Q2PRO_EXT_FOG};
    static const char *const seeds[2] = {"written_q2pro_ext_3435.dm2",
                                         "written_q2pro_ext_3436.dm2"};
    for (int k = 0; k < 2; k++) {
        static buf f;
        f.n = 0;
        write_3435(&f, protos[k]);
        q2_seed(seeds[k], &f);
        q2_xrun x;
        CHECK(q2_xdecode(&x, f.b, f.n));
        CHECK_MSG(x.e == QD_OK && x.done, "%d: %s", protos[k], x.err.msg);
        CHECK_EQ(demo_q2_decoder.protocol(x.st), protos[k]);
        check_3435(&x);
        q2_xfree(&x);
    }
}

/* Hostile bytes stop with an error at the offending message's offset; every cut copy
 * errors inside itself or ends at a block boundary, without a crash. */
TEST(q2_q2pro_extended_errors)
{
    static buf f, m;
    struct {
        const char *what;
        int kind;
    } cases[] = {
        {"entity 8192 over 8191", 0},
        {"index 13630 over 13629", 1},
        {"svc_muzzleflash2: entity 0", 2},
        {"sound 2048 over 2047", 3},
        {"entity 5: model index 8192", 4},
    };
    for (int k = 0; k < 5; k++) {
        f.n = m.n = 0;
        serverdata(&m, Q2_PROTOCOL_Q2PRO_EXT, Q2_RECORD_CLIENT, "", 0);
        size_t at = 4 + m.n; /* the bad message's file offset */
        switch (cases[k].kind) {
        case 0: /* a baseline numbered past the extended limit */
            put8(&m, Q2_SVC_SPAWNBASELINE);
            ent_bits(&m, 0, 8192);
            break;
        case 1:
            configstring(&m, 13630, "x");
            break;
        case 2: /* entity word 0x2000: entity 0 once the weapon bits are off */
            put8(&m, Q2_SVC_MUZZLEFLASH2);
            put16(&m, 0x2000);
            put8(&m, 1);
            break;
        case 3:
            put8(&m, Q2_SVC_SOUND);
            put8(&m, Q2_SND_INDEX16);
            put16(&m, 2048);
            break;
        default: /* a 16-bit model index past MAX_MODELS 8192 */
            put8(&m, Q2_SVC_SPAWNBASELINE);
            ent_bits(&m, Q2_U_MODEL | Q2_U_MODEL16, 5);
            put16(&m, 8192);
            break;
        }
        block(&f, &m);
        end_marker(&f);
        q2_xrun x;
        CHECK(q2_xdecode(&x, f.b, f.n));
        CHECK_EQ(x.e, QD_ERR_BAD_DATA);
        CHECK_MSG(strstr(x.err.msg, cases[k].what) != NULL, "%s", x.err.msg);
        CHECK_EQ(x.err.offset, at);
        q2_xfree(&x);
    }

    f.n = 0;
    write_3435(&f, Q2_PROTOCOL_Q2PRO_EXT_FOG);
    static uint8_t cut[65536];
    for (size_t n = 1; n < f.n; n++) {
        memcpy(cut, f.b, n);
        q2_xrun x;
        CHECK(q2_xdecode(&x, cut, n));
        CHECK_MSG(x.e == QD_OK || x.err.offset <= n, "cut %zu: error at %llu", n,
                  (unsigned long long)x.err.offset);
        q2_xfree(&x);
    }
}

/* `info` names the protocol and what it is. */
TEST(q2_q2pro_extended_info)
{
    const char *q = getenv("QDEMO");
    const char *bin = q && *q ? q : "build/qdemo";
    if (access(bin, X_OK) != 0)
        SKIP("no qdemo binary");
    static buf f;
    f.n = 0;
    write_3434(&f);
    char path[] = "/tmp/qdemo-q2ext-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK_EQ(write(fd, f.b, f.n), (ssize_t)f.n);
    close(fd);
    static char out[65536];
    CHECK_EQ(test_capture(out, sizeof out, "%s info %s 2>&1", bin, path), 0);
    CHECK_MSG(strstr(out, "protocol 3434 (Q2PRO extended)") != NULL, "%.200s", out);
    CHECK_EQ(test_capture(out, sizeof out, "%s info --json %s 2>&1", bin, path), 0);
    CHECK_MSG(strstr(out, "\"protocol\": 3434") != NULL, "%.200s", out);
    CHECK_MSG(strstr(out, "\"protocol_name\": \"Q2PRO extended\"") != NULL, "%.200s", out);
    unlink(path);
}

/* ---- R1Q2 / Q2PRO recovery and the client's own sounds (review findings, 2026-12-02) ---- */

#include <zlib.h>

/* The decode through the demo layer (damaged blocks skipped, demo.c): the client state at
 * the end, the damage list. */
typedef struct q2_drun {
    demo_t *d;
    cl_state *cl;
    int done;
    qd_err e;
    qd_error err;
} q2_drun;

static int q2_drun_all(q2_drun *r, const buf *f)
{
    memset(r, 0, sizeof *r);
    r->cl = malloc(sizeof *r->cl);
    if (!r->cl)
        return 0;
    cl_reset(r->cl);
    r->d = demo_open_with(&demo_q2_decoder, "t.dm2", f->b, f->n, &r->err);
    if (!r->d)
        return 0;
    for (size_t n = 0; !r->done && r->e == QD_OK && n <= f->n + 1; n++)
        r->e = demo_step(r->d, r->cl, NULL, &r->done, &r->err);
    return 1;
}

static void q2_drun_free(q2_drun *r)
{
    demo_close(r->d);
    free(r->cl);
}

/* R1Q2's serverdata (protocol 35, minor 1900: the enhanced flag byte and the word). */
static void r1q2_head(buf *f)
{
    buf m = {0};
    serverdata(&m, Q2_PROTOCOL_R1Q2, Q2_RECORD_CLIENT, "", 0);
    put8(&m, 1);
    put16(&m, 1900);
    configstring(&m, 30, "4"); /* CS_MAXCLIENTS */
    block(f, &m);
}

/* An R1Q2 svc_frame for serverframe k (no delta: 31 in the top 5 bits), its command byte
 * carrying EPS_STATS (bit 5, in the byte's top three bits as 2: 0x54) when stats, then the
 * player state (no flags; stat 1 = health when stats) and no entities. */
static void r1q2_frame(buf *m, int k, int stats)
{
    put8(m, Q2_SVC_FRAME | (stats ? 2u << 5 : 0));
    put32(m, (uint32_t)k | 31u << 27);
    put8(m, 0);    /* suppress count */
    put8(m, 1);    /* area bits */
    put8(m, 0xff);
    put16(m, 0);   /* player state flags */
    if (stats) {
        put32(m, 1u << Q2_STAT_HEALTH);
        put16(m, 100 + k);
    }
    put8(m, 0);    /* the entities' end */
    put8(m, 0);
}

/* 40 frames in 40 blocks, the 20th block an svc_bad: that block is skipped and the rest
 * play, with EPS bits in the frames' command bytes too. Before the fix the resync refused
 * every block starting with such a byte (over svc_frame), landed in the damage and stopped
 * at frame 19. The damage skipped is block 20, from its size word; the last frame's health
 * 100 + 40. */
TEST(q2_r1q2_resync_past_a_bad_block)
{
    for (int stats = 0; stats <= 1; stats++) {
        static buf f;
        f.n = 0;
        r1q2_head(&f);
        size_t bad_at = 0;
        for (int k = 1; k <= 40; k++) {
            buf m = {0};
            if (k == 20) {
                bad_at = f.n; /* (the damage: from the block's size word) */
                put8(&m, Q2_SVC_BAD);
                for (int i = 0; i < 10; i++)
                    put8(&m, 0);
            } else {
                r1q2_frame(&m, k, stats);
            }
            block(&f, &m);
        }
        end_marker(&f);
        q2_drun r;
        CHECK(q2_drun_all(&r, &f));
        CHECK_MSG(r.e == QD_OK && r.done, "stats %d: stopped: %s", stats, r.err.msg);
        CHECK_EQ(demo_num_damaged(r.d), 1);
        if (demo_num_damaged(r.d) == 1)
            CHECK_EQ(demo_damaged(r.d, 0)->offset, (uint64_t)bad_at);
        if (stats) {
            const cl_stats *st = cl_stats_of(r.cl, -1);
            CHECK(st && st->health == 140);
        }
        q2_drun_free(&r);
    }
}

/* Raw deflate of in (svc_zpacket's body): its length, 0 on failure. */
static size_t raw_deflate(const buf *in, uint8_t *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    z.next_in = (Bytef *)(uintptr_t)in->b;
    z.avail_in = (uInt)in->n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int r = deflate(&z, Z_FINISH);
    size_t n = z.total_out;
    deflateEnd(&z);
    return r == Z_STREAM_END ? n : 0;
}

/* A bad entity inside an svc_zpacket (30000 svc_nop bytes, then a frame with entity 2000):
 * the error names the zpacket's own offset, within the file, so the damage skipped is that
 * block (from its size word) and the decode goes on past it to frame 199. Before the
 * fix the offset was the inflated body's, 30 KB past this 3 KB file: the resync counted
 * every block up to there as damaged and the demo stopped at frame 10. */
TEST(q2_zpacket_error_at_the_zpacket)
{
    static buf f, inner;
    static uint8_t z[65536];
    f.n = inner.n = 0;
    r1q2_head(&f);
    for (int k = 1; k <= 10; k++) {
        buf m = {0};
        r1q2_frame(&m, k, 0);
        block(&f, &m);
    }
    for (int i = 0; i < 30000; i++)
        put8(&inner, Q2_SVC_NOP);
    put8(&inner, Q2_SVC_FRAME);
    put32(&inner, 11u | 31u << 27);
    put8(&inner, 0);
    put8(&inner, 1);
    put8(&inner, 0xff);
    put16(&inner, 0);
    ent_bits_in(&inner, 0, 2000, 0); /* entity 2000: over 1023 in 35 */
    put8(&inner, 0);
    put8(&inner, 0);
    size_t zn = raw_deflate(&inner, z, sizeof z);
    CHECK(zn > 0 && zn < 0x10000);
    size_t zp_at = f.n; /* the damaged block, from its size word */
    buf m = {0};
    put8(&m, Q2_SVC_ZPACKET);
    put16(&m, (int)zn);
    put16(&m, (int)inner.n);
    for (size_t i = 0; i < zn; i++)
        put8(&m, z[i]);
    block(&f, &m);
    for (int k = 12; k <= 199; k++) {
        buf g = {0};
        r1q2_frame(&g, k, 0);
        block(&f, &g);
    }
    end_marker(&f);
    q2_drun r;
    CHECK(q2_drun_all(&r, &f));
    CHECK_MSG(r.e == QD_OK && r.done, "stopped: %s", r.err.msg);
    CHECK_EQ(demo_num_damaged(r.d), 1);
    if (demo_num_damaged(r.d) == 1)
        CHECK_MSG(demo_damaged(r.d, 0)->offset == zp_at, "damage at %llu, want %zu",
                  (unsigned long long)demo_damaged(r.d, 0)->offset, zp_at);
    q2_drun_free(&r);
}

/* The sounds the client starts itself (a muzzle flash's, a temp entity's) go on precache
 * slots past the server's. Q2PRO's extended map names 2048 sounds, all CL_MAX_SOUNDS: the
 * client's own now take the top 256 (Q2_EXT_SOUND_BASE). MZ_BLASTER starts
 * weapons/blastf1a.wav, TE_ROCKET_EXPLOSION weapons/rocklx1a.wav (cl_fx.c, cl_tent.c), in
 * 34 as in 3434; before the fix 3434 had no slot for either (nothing heard). */
TEST(q2_q2pro_extended_client_sounds_have_slots)
{
    const int protos[2] = {34, Q2_PROTOCOL_Q2PRO_EXT};
    for (int p = 0; p < 2; p++) {
        static buf f;
        f.n = 0;
        buf m = {0};
        serverdata(&m, protos[p], Q2_RECORD_CLIENT, "", 0);
        put8(&m, Q2_SVC_MUZZLEFLASH);
        put16(&m, 1);  /* entity 1 */
        put8(&m, 0);   /* MZ_BLASTER */
        put8(&m, Q2_SVC_TEMP_ENTITY);
        put8(&m, 7);   /* TE_ROCKET_EXPLOSION at 0 0 0 */
        put16(&m, 0);
        put16(&m, 0);
        put16(&m, 0);
        block(&f, &m);
        end_marker(&f);
        q2_xrun x;
        CHECK(q2_xdecode(&x, f.b, f.n));
        int blaster = 0, rocket = 0;
        for (int i = 1; i < x.cl->level.num_sounds && i < CL_MAX_SOUNDS; i++) {
            blaster |= !strcmp(x.cl->level.sounds[i], "weapons/blastf1a.wav");
            rocket |= !strcmp(x.cl->level.sounds[i], "weapons/rocklx1a.wav");
        }
        CHECK_MSG(blaster && rocket, "protocol %d: blaster %d, rocket %d", protos[p], blaster,
                  rocket);
        q2_xfree(&x);
    }
}
