/* test_ql.c: Quake Live demos (protocols 73, 90, 91): the field tables against WolfcamQL's,
 * deltas written here bit by bit, and the real dm_73 demo against its own framing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/demo/demo.h"
#include "../../src/demo/q3_local.h"
#include "../q3scan.h"
#include "../test.h"

/* ---- the sources' tables, typed from WolfcamQL code/qcommon/msg.c (entityStateFieldsQldm91,
 * playerStateFieldsQldm90 / 91; UberDemoTools message.cpp lists the same): a field's name
 * and width; `slot` names Quake Live's own fields, the others sit where 68 keeps the field
 * of that name (q3_es_fields / q3_ps_fields, checked by test_delta_q3port.c) ---- */
typedef struct want {
    const char *name;
    int bits;
    int slot; /* 0: 68's slot of that name */
} want;

static const want es91[] = {
    {"pos.trTime", 32, 0}, {"pos.trBase[0]", 0, 0}, {"pos.trBase[1]", 0, 0},
    {"pos.trDelta[0]", 0, 0}, {"pos.trDelta[1]", 0, 0}, {"pos.trBase[2]", 0, 0},
    {"apos.trBase[1]", 0, 0}, {"pos.trDelta[2]", 0, 0}, {"apos.trBase[0]", 0, 0},
    {"pos.gravity", 32, Q3_ES_POS_GRAVITY}, {"event", 10, 0}, {"angles2[1]", 0, 0},
    {"eType", 8, 0}, {"torsoAnim", 8, 0}, {"eventParm", 8, 0}, {"legsAnim", 8, 0},
    {"groundEntityNum", 10, 0}, {"pos.trType", 8, 0}, {"eFlags", 19, 0},
    {"otherEntityNum", 10, 0}, {"weapon", 8, 0}, {"clientNum", 8, 0}, {"angles[1]", 0, 0},
    {"pos.trDuration", 32, 0}, {"apos.trType", 8, 0}, {"origin[0]", 0, 0},
    {"origin[1]", 0, 0}, {"origin[2]", 0, 0}, {"solid", 24, 0}, {"powerups", 16, 0},
    {"modelindex", 8, 0}, {"otherEntityNum2", 10, 0}, {"loopSound", 8, 0},
    {"generic1", 8, 0}, {"origin2[2]", 0, 0}, {"origin2[0]", 0, 0}, {"origin2[1]", 0, 0},
    {"modelindex2", 8, 0}, {"angles[0]", 0, 0}, {"time", 32, 0}, {"apos.trTime", 32, 0},
    {"apos.trDuration", 32, 0}, {"apos.trBase[2]", 0, 0}, {"apos.trDelta[0]", 0, 0},
    {"apos.trDelta[1]", 0, 0}, {"apos.trDelta[2]", 0, 0},
    {"apos.gravity", 32, Q3_ES_APOS_GRAVITY}, {"time2", 32, 0}, {"angles[2]", 0, 0},
    {"angles2[0]", 0, 0}, {"angles2[2]", 0, 0}, {"constantLight", 32, 0}, {"frame", 16, 0},
    /* the 73 table ends here (53 rows); 90 adds two, 91 three more */
    {"jumpTime", 32, Q3_ES_JUMPTIME}, {"doubleJumped", 1, Q3_ES_DOUBLEJUMPED},
    {"health", 16, Q3_ES_HEALTH}, {"armor", 16, Q3_ES_ARMOR}, {"location", 8, Q3_ES_LOCATION},
};

static const want ps90[] = {
    {"commandTime", 32, 0}, {"origin[0]", 0, 0}, {"origin[1]", 0, 0}, {"bobCycle", 8, 0},
    {"velocity[0]", 0, 0}, {"velocity[1]", 0, 0}, {"viewangles[1]", 0, 0},
    {"viewangles[0]", 0, 0}, {"weaponTime", -16, 0}, {"origin[2]", 0, 0},
    {"velocity[2]", 0, 0}, {"legsTimer", 8, 0}, {"pm_time", -16, 0},
    {"eventSequence", 16, 0}, {"torsoAnim", 8, 0}, {"movementDir", 4, 0},
    {"events[0]", 8, 0}, {"legsAnim", 8, 0}, {"events[1]", 8, 0}, {"pm_flags", 24, 0},
    {"groundEntityNum", 10, 0}, {"weaponstate", 4, 0}, {"eFlags", 16, 0},
    {"externalEvent", 10, 0}, {"gravity", 16, 0}, {"speed", 16, 0},
    {"delta_angles[1]", 16, 0}, {"externalEventParm", 8, 0}, {"viewheight", -8, 0},
    {"damageEvent", 8, 0}, {"damageYaw", 8, 0}, {"damagePitch", 8, 0},
    {"damageCount", 8, 0}, {"generic1", 8, 0}, {"pm_type", 8, 0},
    {"delta_angles[0]", 16, 0}, {"delta_angles[2]", 16, 0}, {"torsoTimer", 12, 0},
    {"eventParms[0]", 8, 0}, {"eventParms[1]", 8, 0}, {"clientNum", 8, 0}, {"weapon", 5, 0},
    {"viewangles[2]", 0, 0}, {"grapplePoint[0]", 0, 0}, {"grapplePoint[1]", 0, 0},
    {"grapplePoint[2]", 0, 0}, {"jumppad_ent", 10, 0}, {"loopSound", 16, 0},
    {"jumpTime", 32, Q3_PS_JUMPTIME}, {"doubleJumped", 1, Q3_PS_DOUBLEJUMPED},
};
/* 91 = 90 with weaponPrimary after weapon (row 42) and seven more at the end */
static const want ps91_primary = {"weaponPrimary", 8, Q3_PS_WEAPONPRIMARY};
static const want ps91_end[] = {
    {"crouchTime", 32, Q3_PS_CROUCHTIME}, {"crouchSlideTime", 32, Q3_PS_CROUCHSLIDETIME},
    {"location", 8, Q3_PS_LOCATION}, {"fov", 8, Q3_PS_FOV}, {"forwardmove", 8, Q3_PS_FORWARDMOVE},
    {"rightmove", 8, Q3_PS_RIGHTMOVE}, {"upmove", 8, Q3_PS_UPMOVE},
};

static int ps91(int i, want *w)
{
    if (i < 42)
        *w = ps90[i];
    else if (i == 42)
        *w = ps91_primary;
    else if (i < 51)
        *w = ps90[i - 1];
    else if (i < 58)
        *w = ps91_end[i - 51];
    else
        return 0;
    return 1;
}

/* The slot a wanted row fills: its own, or 68's row of that name (-1 none). */
static int slot_of(const want *w, const dd_field *base68, int n68)
{
    if (w->slot)
        return w->slot;
    for (int i = 0; i < n68; i++)
        if (!strcmp(base68[i].name, w->name))
            return i;
    return -1;
}

/* ---- a bit writer: raw bits LSB first, bytes by their Huffman code [DM68 4, 7] ---- */
typedef struct bits_out {
    uint8_t b[1024];
    size_t n; /* bits written */
} bits_out;

static uint16_t hcode[256];
static uint8_t hlen[256];

static void hcodes(void)
{
    for (unsigned i = 0; i < 2048; i++) { /* q3_huff_table: index = the next 11 bits */
        unsigned e = q3_huff_table[i], l = e >> 8;
        if (e && !hlen[e & 0xff]) {
            hlen[e & 0xff] = (uint8_t)l;
            hcode[e & 0xff] = (uint16_t)(i & ((1u << l) - 1));
        }
    }
}

static void out_raw(bits_out *o, uint32_t v, int n)
{
    for (int i = 0; i < n; i++, o->n++)
        if (v >> i & 1)
            o->b[o->n >> 3] |= (uint8_t)(1u << (o->n & 7));
}

/* MSG_WriteBits: n & 7 raw bits, then each byte as its code */
static void out_bits(bits_out *o, uint32_t v, int bits)
{
    int n = bits < 0 ? -bits : bits;
    out_raw(o, v, n & 7);
    for (int i = n & 7; i < n; i += 8)
        out_raw(o, hcode[(v >> i) & 0xff], hlen[(v >> i) & 0xff]);
}

/* The value a row gets in the tests: distinct per row, inside the width, not zero; a float
 * as an integral value (the 13-bit form). */
static int32_t value_for(int row, int bits)
{
    if (!bits) {
        float f = (float)(row * 7 - 150);
        int32_t v;
        memcpy(&v, &f, 4);
        return v;
    }
    int n = bits < 0 ? -bits : bits;
    uint32_t v = (0x9e3779b9u * (uint32_t)(row + 1)) & (n == 32 ? 0xffffffffu : (1u << n) - 1);
    if (!v)
        v = 1;
    if (bits < 0 && v >> (n - 1)) /* signed: the reader extends the sign */
        v |= ~((1u << n) - 1);
    return (int32_t)v;
}

/* One field's value on the wire after its "changed" bit (and an entity's "not zero" bit). */
static void out_value(bits_out *o, int row, int bits)
{
    if (!bits) {
        out_raw(o, 0, 1); /* integral: 0, then value + 4096 in 13 bits */
        out_bits(o, (uint32_t)(row * 7 - 150 + 4096), 13);
    } else {
        out_bits(o, (uint32_t)value_for(row, bits), bits);
    }
}

/* Entity delta of a table of n rows from zero, changing row k only; decoded, k's slot must
 * hold its value and every other slot 0. */
static void check_es_row(const dd_table *t, int k, int slot, int bits)
{
    bits_out o;
    memset(&o, 0, sizeof o);
    out_raw(&o, 0, 1); /* not removed */
    out_raw(&o, 1, 1); /* a delta */
    out_bits(&o, (uint32_t)(k + 1), 8);
    for (int i = 0; i < k; i++)
        out_raw(&o, 0, 1);
    out_raw(&o, 1, 1); /* changed */
    out_raw(&o, 1, 1); /* not zero */
    out_value(&o, k, bits);
    q3_bits b;
    q3_bits_init(&b, o.b, (o.n + 7) / 8);
    q3_ent to;
    CHECK_EQ(q3_read_delta_entity_by(&b, t, NULL, &to, 9), 0);
    CHECK(!q3_bits_err(&b));
    for (int s = 0; s < Q3_ES_SLOTS; s++)
        CHECK_MSG(to.f[s] == (s == slot ? value_for(k, bits) : 0), "row %d slot %d: %d", k, s,
                  to.f[s]);
}

/* The same for a player state (no "not zero" bits; the arrays' flag 0). */
static void check_ps_row(const dd_table *t, int k, int slot, int bits)
{
    bits_out o;
    memset(&o, 0, sizeof o);
    out_bits(&o, (uint32_t)(k + 1), 8);
    for (int i = 0; i < k; i++)
        out_raw(&o, 0, 1);
    out_raw(&o, 1, 1);
    out_value(&o, k, bits);
    out_raw(&o, 0, 1);
    q3_bits b;
    q3_bits_init(&b, o.b, (o.n + 7) / 8);
    q3_ps to;
    CHECK_EQ(q3_read_delta_ps_by(&b, t, NULL, &to), 0);
    CHECK(!q3_bits_err(&b));
    for (int s = 0; s < Q3_PS_SLOTS; s++)
        CHECK_MSG(to.f[s] == (s == slot ? value_for(k, bits) : 0), "row %d slot %d: %d", k, s,
                  to.f[s]);
}

static void check_row(const dd_field *f, const want *w, int i)
{
    CHECK_MSG(!strcmp(f->name, w->name), "row %d: %s, want %s", i, f->name, w->name);
    CHECK_MSG(f->bits == w->bits, "row %d (%s): %d bits, want %d", i, w->name, f->bits, w->bits);
    CHECK_EQ(f->kind, w->bits ? DD_Q3INT : DD_Q3FLOAT);
}

TEST(ql_entity_tables_are_wolfcams)
{
    hcodes();
    const q3_proto *p73 = q3_proto_find(73), *p90 = q3_proto_find(90), *p91 = q3_proto_find(91);
    CHECK(p73 && p90 && p91);
    /* each protocol's table is the first rows of 91's */
    CHECK_EQ(p73->es->n, 53);
    CHECK_EQ(p90->es->n, 55);
    CHECK_EQ(p91->es->n, (int)(sizeof es91 / sizeof es91[0]));
    CHECK(p73->es->f == p91->es->f && p90->es->f == p91->es->f);
    for (int i = 0; i < p91->es->n; i++) {
        check_row(&p91->es->f[i], &es91[i], i);
        int slot = slot_of(&es91[i], q3_es_fields, Q3_ES_COUNT);
        CHECK_MSG(slot >= 0, "row %d (%s) has no slot", i, es91[i].name);
        check_es_row(p91->es, i, slot, es91[i].bits);
        if (i < p73->es->n)
            check_es_row(p73->es, i, slot, es91[i].bits);
    }
    /* 73 has no row 53: a count of 54 is damage */
    bits_out o;
    memset(&o, 0, sizeof o);
    out_raw(&o, 0, 1);
    out_raw(&o, 1, 1);
    out_bits(&o, 54, 8);
    q3_bits b;
    q3_bits_init(&b, o.b, sizeof o.b);
    q3_ent to;
    CHECK_EQ(q3_read_delta_entity_by(&b, p73->es, NULL, &to, 9), -1);
}

TEST(ql_playerstate_tables_are_wolfcams)
{
    hcodes();
    const q3_proto *p73 = q3_proto_find(73), *p90 = q3_proto_find(90), *p91 = q3_proto_find(91);
    CHECK(p73 && p90 && p91);
    CHECK(p73->ps == &q3_ps_table); /* 73 sends playerStateFieldsQ3 */
    CHECK_EQ(p90->ps->n, (int)(sizeof ps90 / sizeof ps90[0]));
    CHECK_EQ(p91->ps->n, 58);
    for (int i = 0; i < p90->ps->n; i++) {
        check_row(&p90->ps->f[i], &ps90[i], i);
        int slot = slot_of(&ps90[i], q3_ps_fields, Q3_PS_COUNT);
        CHECK_MSG(slot >= 0, "row %d (%s) has no slot", i, ps90[i].name);
        check_ps_row(p90->ps, i, slot, ps90[i].bits);
    }
    want w;
    for (int i = 0; ps91(i, &w); i++) {
        check_row(&p91->ps->f[i], &w, i);
        int slot = slot_of(&w, q3_ps_fields, Q3_PS_COUNT);
        CHECK(slot >= 0);
        check_ps_row(p91->ps, i, slot, w.bits);
    }
}

/* The numbers of q3_proto.c against the sources: WolfcamQL bg_public.h CS_PLAYERS 529,
 * CS_MODELS 17 (so sounds from 17 + 256), bg_misc.c STAT_WEAPONS 3 and STAT_ARMOR 4,
 * entity_event_t EV_OBITUARY 58, EV_GENERAL_SOUND 42; cg_servercmds.c SCSIZE 18. */
TEST(ql_protocol_rows)
{
    static const int protocols[] = {73, 90, 91};
    for (size_t i = 0; i < 3; i++) {
        const q3_proto *p = q3_proto_find(protocols[i]);
        CHECK(p);
        CHECK_EQ(p->cs_players, 529);
        CHECK_EQ(p->cs_models, 17);
        CHECK_EQ(p->cs_sounds, 273);
        CHECK_EQ(p->stat_weapons, 3);
        CHECK_EQ(p->stat_armor, 4);
        CHECK_EQ(p->ev_obituary, 58);
        CHECK_EQ(p->ev_general_sound, 42);
        CHECK_EQ(p->score_fields, 18);
    }
    CHECK(q3_proto_find(68) == q3_proto_68() && q3_proto_find(66) == q3_proto_68());
    CHECK(!q3_proto_find(72) && !q3_proto_find(92));
}

/* ---- the real demo ---- */

/* The names of the gamestate's player configstrings ("n\\NAME\\..."), in index order. */
typedef struct names_seen {
    int n;
    int index[4];
    char name[4][64];
} names_seen;

/* What the file's own framing says (tests/q3scan.h): snapshots of a new server time, the
 * first and last time, the last "scores" command and the gamestate's players. */
typedef struct walk {
    q3scan s;
    char scores[1024];
    names_seen names; /* the gamestate's players */
} walk;

static void keep_scores(void *ctx, int32_t server_ms, const char *cmd)
{
    (void)server_ms;
    walk *w = ctx;
    if (!strncmp(cmd, "scores ", 7)) {
        size_t k = strnlen(cmd, sizeof w->scores - 1);
        memcpy(w->scores, cmd, k);
        w->scores[k] = 0;
    }
}

static void collect_names(void *ctx, int index, const char *value)
{
    names_seen *ns = &((walk *)ctx)->names;
    if (strncmp(value, "n\\", 2) || ns->n >= 4)
        return;
    const char *e = strchr(value + 2, '\\');
    size_t k = e ? (size_t)(e - (value + 2)) : strlen(value + 2);
    k = k < sizeof ns->name[0] - 1 ? k : sizeof ns->name[0] - 1;
    memcpy(ns->name[ns->n], value + 2, k);
    ns->name[ns->n][k] = 0;
    ns->index[ns->n++] = index;
}

static void walk_file(const uint8_t *d, size_t len, walk *w)
{
    w->scores[0] = 0;
    memset(&w->names, 0, sizeof w->names);
    q3scan_file(d, len, &w->s, keep_scores, collect_names, w);
}

/* Number i (from 0) of a command's words. */
static int word(const char *s, int i)
{
    while (i-- > 0) {
        s = strchr(s, ' ');
        if (!s)
            return -99999;
        s++;
    }
    return atoi(s);
}

/* Mid-game both players are bodies with positions (client k is entity k + 1). At the end
 * of this demo client 0's entity turns eType 0, so the check is made halfway. */
static void check_bodies(const cl_state *cl, int *checked)
{
    for (int k = 0; k < 2; k++) {
        cl_entstate st;
        int nf;
        float fr;
        CHECK(cl_entity_at(cl, k + 1, cl->time, &st, &nf, &fr));
        CHECK_MSG(st.flags & CL_EF_PLAYER, "client %d: flags %x", k, st.flags);
        CHECK(st.origin[0] != 0 || st.origin[1] != 0 || st.origin[2] != 0);
        CHECK_EQ(st.player, k + 1);
    }
    *checked = 1;
}

TEST(ql_realdata_dm73_decodes_to_its_end)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, "dm_73/udt_ql_duel_scores.dm_73"))
        SKIP("no realdata/dm_73/udt_ql_duel_scores.dm_73");
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    CHECK(data);
    walk w;
    walk_file(data, len, &w);
    CHECK(w.s.ended && w.s.snapshots > 1000);
    qd_error err;
    demo_t *d = demo_open(path, &err);
    CHECK_MSG(d != NULL, "%s", err.msg);
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    cl_reset(cl);
    int done = 0, bodies = 0;
    qd_err e = QD_OK;
    double half = (w.s.last - w.s.first) / 2000.0;
    while (!done && !e) {
        e = demo_step(d, cl, NULL, &done, &err);
        if (!bodies && cl->time >= half)
            check_bodies(cl, &bodies);
    }
    CHECK(bodies);
    CHECK_MSG(e == QD_OK, "%s at %llu", err.msg, (unsigned long long)err.offset);
    CHECK_EQ(demo_check_end(d, &err), QD_OK);
    CHECK_EQ(demo_protocol(d), 73);
    CHECK_STR(cl->level.map, "maps/hektik.bsp");
    /* one client frame per new server time, t = 0 at the first */
    CHECK_EQ((int)cl->frame_count, w.s.snapshots);
    CHECK_MSG(fabs(cl->time - (w.s.last - w.s.first) / 1000.0) < 1e-6, "%.3f s, want %.3f", cl->time,
              (w.s.last - w.s.first) / 1000.0);
    /* the last scores command: "scores 2 red blue" then 18 numbers per client, clientNum
     * and score first (WolfcamQL CG_ParseScores) */
    CHECK_EQ(word(w.scores, 1), 2);
    for (int i = 0; i < 2; i++) {
        int cn = word(w.scores, 4 + 18 * i), score = word(w.scores, 5 + 18 * i);
        CHECK(cn >= 0 && cn < 2);
        CHECK_MSG(cl->players[cn].frags == score, "client %d: %d frags, want %d", cn,
                  cl->players[cn].frags, score);
    }
    /* the two players' names as the file's gamestate gives them: the lowest configstring
     * holding a player's "n\\" key is client 0's, the next client 1's (q3scan.h) */
    const names_seen *names = &w.names;
    CHECK_MSG(names->n >= 2 && names->index[1] == names->index[0] + 1, "%d player strings",
              names->n);
    CHECK_STR(cl->players[0].name, names->name[0]);
    CHECK_STR(cl->players[1].name, names->name[1]);
    CHECK_STR(cl->players[0].name, "mejtisson");
    CHECK_STR(cl->players[1].name, "^4Terifire^7");
    free(cl);
    demo_close(d);
    free(data);
}
