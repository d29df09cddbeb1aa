/* mvd2.c: the Q2PRO / GTV multi-view demo decoder (.mvd2, protocol 37), every player followable.
 *
 * A .mvd2 file is "MVD2", then blocks of [uint16 length][messages], length 0 at the end
 * [Q2P-CLIENT demo_load_message]. A step decodes one block, which a recording server writes
 * once a frame: an mvd_frame (every player's packed state, then every entity's delta, each
 * against the last state sent for it) and what the frame multicast, unicast, sounded and
 * printed [Q2P-PARSE MVD_ParseMessage]. The first block's mvd_serverdata holds the level's
 * configstrings and a first frame. Entity deltas are protocol 34's, read by q2.c's readers;
 * configstrings, stats and prints go through q2.c too (q2_local.h). Sources: mvd2_local.h.
 * Q2PRO's extended limits (MVF_EXTLIMITS, MVF_EXTLIMITS_2) change the fields' widths as its
 * extended client demos do: which, is the data of wires[] [Q2P-EXT]. The rerelease's version
 * is refused by name. */
#include "demo.h"
#include "demo_local.h"
#include "mvd2_local.h"
#include "../common/rd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#define MVD2_STRING_MAX 2048 /* MAX_STRING_CHARS; longer strings are cut */

/* What one step works with. */
typedef struct ctx {
    mvd2_state *s;
    cl_state *cl;
    const demo_trace *trace;
    qd_error *err;
    rd_t r;              /* the messages of the current block */
    uint64_t base;       /* file offset of r's first byte */
    uint64_t msg_ofs;    /* file offset of the message being parsed */
    uint32_t pl_changed[MVD2_MAX_CLIENTS / 32]; /* players in the frame being parsed */
    char esc[640];       /* trace only: an escaped copy of a string */
} ctx;

static const char *const op_names[MVD2_OP_COUNT] = {
    "mvd_bad", "mvd_nop", "mvd_disconnect", "mvd_reconnect", "mvd_serverdata",
    "mvd_configstring", "mvd_frame", "mvd_frame_nodelta", "mvd_unicast", "mvd_unicast_r",
    "mvd_multicast_all", "mvd_multicast_phs", "mvd_multicast_pvs", "mvd_multicast_all_r",
    "mvd_multicast_phs_r", "mvd_multicast_pvs_r", "mvd_sound", "mvd_print", "mvd_stufftext",
};

static const char *op_name(int op)
{
    return op >= 0 && op < MVD2_OP_COUNT ? op_names[op] : "mvd_unknown";
}

#define fail DEMO_FAIL
#define TRACE DEMO_TRACE

static const char *esc(ctx *c, const char *s) { return demo_escape(c->esc, sizeof c->esc, s); }

static qd_err truncated(ctx *c, const char *what)
{
    return fail(c, QD_ERR_TRUNCATED, c->msg_ofs, "%s runs past the end of its block (%zu bytes)",
                what, c->r.len);
}

static inline int bit_get(const uint32_t *set, int i) { return (set[i >> 5] >> (i & 31)) & 1; }
static inline __attribute__((always_inline)) void bit_put(uint32_t *set, int i, int on)
{
    if (on)
        set[i >> 5] |= 1u << (i & 31);
    else
        set[i >> 5] &= ~(1u << (i & 31));
}

/* The bits set in v, without a call (the baseline x86-64 has no popcnt: the builtin is
 * libgcc's function) */
static inline int popcount32(uint32_t v)
{
    v = v - (v >> 1 & 0x55555555u);
    v = (v & 0x33333333u) + (v >> 2 & 0x33333333u);
    return (int)(((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u >> 24);
}

/* The words of ent_inuse that may hold a bit: up to the highest number in use this level. */
static int inuse_words(const mvd2_state *s) { return (s->inuse_hi >> 5) + 1; }

/* ---- what the serverdata's version and flags switch on [Q2P-EXT MVD_ParseServerData] ---- */

/* Each level as data: the entity deltas' layout (and with it the configstring map: the
 * extended one with Q2_ES_EXT), the entity numbers, the packed player state's widths, and
 * the name `info` gives the variant. */
static const struct wire {
    unsigned es;         /* Q2_ES_*: MSG_ES_* of the parser */
    uint16_t max_edicts; /* csr->max_edicts */
    uint8_t ps;          /* MSG_PS_*: 1 EXTENSIONS (the gun's model a word), 2 and
                          * EXTENSIONS_2 (int23 origins, the blend's mask, varint stats) */
    uint8_t morebits;    /* MSG_PS_MOREBITS: PPS_MOREBITS brings a third bits byte */
    const char *name;
} wires[] = {
    {0, Q2_MAX_EDICTS, 0, 0, NULL},
    {Q2_ES_EXTENDED, Q2_MAX_EDICTS_EXT, 1, 0, "Q2PRO extended limits"},
    {Q2_ES_EXTENDED | Q2_ES_EXT2, Q2_MAX_EDICTS_EXT, 2, 0, "Q2PRO extended limits v2"},
    {Q2_ES_EXTENDED | Q2_ES_EXT2, Q2_MAX_EDICTS_EXT, 2, 1,
     "Q2PRO extended limits v2 with player fog"},
};

/* The wires[] row of a serverdata: MVF_EXTLIMITS counts from 2011, MVF_EXTLIMITS_2 from 2012
 * and only with it, MOREBITS from 2013; -1 for MVF_EXTLIMITS_2 alone, which the parser
 * rejects. */
static int wire_of(int version, unsigned flags)
{
    int ext1 = version >= MVD2_VERSION_EXTLIMITS && (flags & MVD2_MVF_EXTLIMITS);
    int ext2 = version >= MVD2_VERSION_EXTLIMITS_2 && (flags & MVD2_MVF_EXTLIMITS_2);
    if (ext2)
        return ext1 ? 2 + (version >= MVD2_VERSION_PLAYERFOG) : -1;
    return ext1;
}

/* ---- packed player state [Q2P-MSG MSG_ParseDeltaPlayerstate_Packet] ----
 * (bit, field, kind, size, count) rows for DD_ROW, in the order of the wire, in groups where
 * the extended levels differ (read_pps): */
#define PPS_ROWS_TYPE(X) X(MVD2_PPS_M_TYPE, pm_type, DD_U8, 1, 1)
#define PPS_ROWS_ORIGIN(X) /* shorts; int23 deltas with EXTENSIONS_2 */                  \
    X(MVD2_PPS_M_ORIGIN, origin, DD_S16, 4, 2)                                             \
    X(MVD2_PPS_M_ORIGIN2, origin[2], DD_S16, 4, 1)
#define PPS_ROWS_VIEW(X)                                                                   \
    X(MVD2_PPS_VIEWOFFSET, viewoffset, DD_S8, 1, 3)                                        \
    X(MVD2_PPS_VIEWANGLES, viewangles, DD_S16, 2, 2)                                       \
    X(MVD2_PPS_VIEWANGLE2, viewangles[2], DD_S16, 2, 1)                                    \
    X(MVD2_PPS_KICKANGLES, kick_angles, DD_S8, 1, 3)
#define PPS_ROWS_GUN(X, KIND) /* the gun's model: a byte; a word with EXTENSIONS */      \
    X(MVD2_PPS_WEAPONINDEX, gunindex, KIND, 2, 1)                                          \
    X(MVD2_PPS_WEAPONFRAME, gunframe, DD_U8, 1, 1)                                         \
    X(MVD2_PPS_GUNOFFSET, gunoffset, DD_S8, 1, 3)                                          \
    X(MVD2_PPS_GUNANGLES, gunangles, DD_S8, 1, 3)
/* then the blend (q2_read_blend), the fog (PPS_FOG, read past), and */
#define PPS_ROWS_END(X)                                                                    \
    X(MVD2_PPS_FOV, fov, DD_U8, 1, 1)                                                      \
    X(MVD2_PPS_RDFLAGS, rdflags, DD_U8, 1, 1)
/* and the stats (q2_read_stats: a 32-bit mask, or EXTENSIONS_2's varint one of 64). */

static void read_pps(rd_t *r, q2_pstate *ps, unsigned bits, const struct wire *w)
{
    static const unsigned origin_bit[3] = {MVD2_PPS_M_ORIGIN, MVD2_PPS_M_ORIGIN,
                                           MVD2_PPS_M_ORIGIN2};
    dd_reader rd = {r, NULL, 0, 0};
#define READ_ROW(bit, field, kind, size, n) \
    DD_READ(&rd, NULL, bits, ps, DD_ROW(q2_pstate, bit, 0, field, kind, size, n));
    PPS_ROWS_TYPE(READ_ROW)
    if (w->ps >= 2) { /* against the player's last state (msg.c MSG_ReadDeltaInt23) */
        for (int i = 0; i < 3; i++)
            if (bits & origin_bit[i])
                ps->origin[i] = q2_read_i23(r, ps->origin[i]);
    } else {
        PPS_ROWS_ORIGIN(READ_ROW)
    }
    PPS_ROWS_VIEW(READ_ROW)
    if (w->ps) {
        PPS_ROWS_GUN(READ_ROW, DD_U16)
    } else {
        PPS_ROWS_GUN(READ_ROW, DD_U8)
    }
    if (bits & MVD2_PPS_BLEND)
        q2_read_blend(r, ps->blend, w->ps >= 2);
    if (bits & MVD2_PPS_FOG)
        q2_skip_fog(r);
    PPS_ROWS_END(READ_ROW)
#undef READ_ROW
    if (bits & MVD2_PPS_STATS)
        (void)q2_read_stats(r, ps->stats, w->ps >= 2);
}

/* ---- the client-state side ---- */

/* A player in the game: in use, not the server's observer, not a spectator by pm_type
 * (mods use stat 17 for other things: OpenTDM, realdata mvd2/libq2_testdata_test.mvd2). */
static int player_live(const mvd2_state *s, int slot)
{
    return bit_get(s->player_inuse, slot) && slot != s->clientnum &&
           s->players[slot].pm_type != Q2_PM_SPECTATOR;
}

/* The recorded view: the player shown so far while it plays, else the first player in the
 * game, else the server's observer; -1 when nobody is there. */
static int pick_view(const mvd2_state *s)
{
    if (s->view >= 0 && s->view < s->max_clients && player_live(s, s->view))
        return s->view;
    for (int i = 0; i < s->max_clients; i++)
        if (player_live(s, i))
            return i;
    if (s->clientnum >= 0 && bit_get(s->player_inuse, s->clientnum))
        return s->clientnum;
    return -1;
}

/* Every player's stats and frags that changed this frame (all of them in a level's first).
 * A player who leaves keeps the last ones shown: the state sent with PPS_REMOVE is already
 * cleared for the next match (realdata mvd2/libq2_testdata_test.mvd2, at the match's end). */
static void emit_players(ctx *c, double t, int first)
{
    mvd2_state *s = c->s;
    const int n = s->max_clients < CL_MAX_PLAYERS ? s->max_clients : CL_MAX_PLAYERS;
    for (int i = 0; i < n; i++) {
        if (!first) { /* the next changed player (the set's words, not every slot) */
            int k = i >> 5;
            uint32_t w = c->pl_changed[k] & (~0u << (i & 31));
            while (!w && ++k < (n + 31) >> 5)
                w = c->pl_changed[k];
            if (!w)
                break;
            i = (k << 5) + __builtin_ctz(w);
            if (i >= n)
                break;
        }
        cl_set_player_spectator(c->cl, i, !player_live(s, i));
        if (!bit_get(s->player_inuse, i))
            continue;
        const q2_pstate *ps = &s->players[i];
        cl_stats st;
        q2_fill_stats(&s->names, ps, t, &st);
        cl_set_stats(c->cl, i, &st);
        if (i == s->view)
            cl_set_stats(c->cl, -1, &st);
        cl_set_player_frags(c->cl, i, ps->stats[Q2_STAT_FRAGS]);
    }
    const int v = s->view; /* a view past the client's player slots: its stats still */
    if (v >= n && bit_get(s->player_inuse, v) && (first || bit_get(c->pl_changed, v))) {
        cl_stats st;
        q2_fill_stats(&s->names, &s->players[v], t, &st);
        cl_set_stats(c->cl, -1, &st);
    }
}

/* Open the client frame at t with the recorded view (pick_view). The view snaps (the frame
 * before is made to hold the same view) when it moves to another player or its eye moves
 * over 256 units on an axis, as the reference client would not interpolate that [Q2CL
 * cl_ents.c CL_CalcViewValues]. Returns 1 when the view changed player. */
static int frame_open(ctx *c, double t)
{
    mvd2_state *s = c->s;
    int view = pick_view(s), moved = view != s->view;
    cl_view v;
    if (view >= 0) {
        q2_ps_view(&s->players[view], view, &v);
        int snap = moved;
        for (int i = 0; i < 3; i++)
            if (fabsf(v.origin[i] - c->cl->view.origin[i]) > 256)
                snap = 1;
        if (snap)
            cl_set_view(c->cl, &v); /* copied into prev_view by cl_frame_begin */
    }
    s->view = view;
    cl_frame_begin(c->cl, t);
    s->in_frame = 1;
    if (view >= 0)
        cl_set_view(c->cl, &v);
    return moved;
}

/* Every entity in use: a player's body placed and turned by its player state
 * [Q2P-PARSE MVD_PlayerToEntityStates, Q2P-UTIL Com_PlayerToEntityState]. Unchanged ones
 * are kept; one that changes model, teleports or jumps over 512 units snaps. One the frame
 * brings into use comes in from its old origin as a .dm2's does (q2_entity_new): the
 * recorder sends it for a new entity (skullernet/q2pro src/server/mvd.c emit_frame's
 * MSG_ES_NEWENTITY; realdata mvd2/libq2_testdata_test.mvd2's rockets appear 65 units from
 * it, one frame's flight) and Q2PRO's MVD server hands it on to its spectators' clients.
 * Not in a level's first frame (whose entities carry none) nor for a body placed by its
 * player state (whose entity's origins are not sent, MSG_ES_FIRSTPERSON): those snap. */
static void emit_entities(ctx *c, int first)
{
    mvd2_state *s = c->s;
    /* The client's list before is the last frame's entities in use (each kept, or updated
     * and listed, below); those this frame removed leave it. */
    cl_list_begin(c->cl);
    const int words = inuse_words(s);
    for (int k = 0; k < words; k++)
        for (uint32_t w = s->ent_gone[k]; w; w &= w - 1)
            cl_list_leave(c->cl, (k << 5) + __builtin_ctz(w));
    /* The numbers in use, word by word (an extended level's 8192 numbers hold about a
     * hundred entities: a number at a time was half the decode, realdata's test.mvd2), in
     * ascending order as before. The stable ones (ent_stable: found equal to their look
     * at the last frame, and nothing their look is made of changed since) are kept whole
     * by the list (cl_list_keep_rest), as the test below would keep them one by one: most
     * of a frame's entities, whose looks were two thirds of this decode. */
    int carried = 0;
    for (int k = 0; k < words; k++) {
        const uint32_t in = s->ent_inuse[k] & (k ? ~0u : ~1u), stable = s->ent_stable[k] & in;
        carried += popcount32(stable);
        for (uint32_t w = in & ~stable; w; w &= w - 1) {
            const int num = (k << 5) + __builtin_ctz(w); /* (below max_edicts: put so) */
            const q2_ent *q = &s->ents[num];
            cl_entstate e;
            /* the frame's server time: ten frames a second from the level's start (the frame
             * was counted when it began) */
            q2_ent_look(q, s->max_clients, &s->names,
                        (s->level_frames ? s->level_frames - 1 : 0) * 100u, &e);
            int slot = num - 1, placed = 0;
            if (slot < s->max_clients && bit_get(s->player_inuse, slot) && slot != s->clientnum) {
                const q2_pstate *ps = &s->players[slot];
                if (ps->pm_type == Q2_PM_NORMAL) {
                    placed = 1;
                    for (int i = 0; i < 3; i++)
                        e.origin[i] = (float)ps->origin[i] * 0.125f;
                    e.angles[0] = (float)ps->viewangles[0] * (360.0f / 65536.0f) / 3.0f;
                    e.angles[1] = (float)ps->viewangles[1] * (360.0f / 65536.0f);
                    e.angles[2] = 0;
                }
                e.flags |= CL_EF_PLAYER;
                if (ps->pm_type == Q2_PM_DEAD)
                    e.flags |= CL_EF_DEAD;
                if (ps->pm_type == Q2_PM_GIB)
                    e.flags |= CL_EF_DEAD | CL_EF_GIBBED;
            }
            const cl_entity *ce = num < c->cl->num_entities ? &c->cl->entities[num] : NULL;
            if (ce && ce->active && !q->event) {
                cl_entstate was = ce->cur;
                was.flags &= (uint8_t)~CL_EF_TELEPORT;
                if (!memcmp(&was, &e, sizeof e) && cl_entity_keep(c->cl, num)) {
                    /* stable from now, but EF_ANIM* (its frame moves with the clock); a
                     * body is made unstable again when its player state is sent */
                    if (!(q->effects & Q2_EF_ANIM_ANY))
                        bit_put(s->ent_stable, num, 1);
                    continue;
                }
            }
            if (bit_get(s->ent_new, num) && !first && !placed) {
                q2_entity_new(c->cl, q, &e);
                cl_list_add(c->cl, num);
                continue;
            }
            int snap = !ce || !ce->active || ce->cur.model != e.model ||
                       q->event == Q2_EV_PLAYER_TELEPORT || q->event == Q2_EV_OTHER_TELEPORT;
            for (int i = 0; !snap && i < 3; i++)
                if (fabsf(e.origin[i] - ce->cur.origin[i]) > 512)
                    snap = 1;
            if (snap)
                e.flags |= CL_EF_TELEPORT;
            cl_entity_update(c->cl, num, &e);
            cl_list_add(c->cl, num);
        }
    }
    cl_list_keep_rest(c->cl, carried);
}

static void frame_close(ctx *c)
{
    if (!c->s->in_frame)
        return;
    cl_frame_end(c->cl, 1);
    c->s->in_frame = 0;
}

/* ---- mvd_frame [Q2P-PARSE MVD_ParseFrame, MVD_ParsePacketPlayers,
 * MVD_ParsePacketEntities] ---- */

static qd_err parse_frame(ctx *c)
{
    mvd2_state *s = c->s;
    rd_t *r = &c->r;
    const struct wire *w = &wires[s->wire];
    if (!s->have_level)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "mvd_frame before mvd_serverdata");
    frame_close(c);
    int portal = rd_u8(r); /* area portal states, for visibility only */
    rd_skip(r, (size_t)portal);
    memset(c->pl_changed, 0, sizeof c->pl_changed);
    /* the last frame's marks, all at numbers in use then (inuse_hi), and its events: an
     * event lasts one frame, and only an entity read then holds one */
    for (int k = 0, words = inuse_words(s); k < words; k++) {
        s->ent_new[k] = s->ent_gone[k] = 0;
        for (uint32_t w = s->ent_event[k]; w; w &= w - 1)
            s->ents[(k << 5) + __builtin_ctz(w)].event = 0;
        s->ent_event[k] = 0;
    }
    int players = 0, ents = 0, removed = 0;
    for (;;) {
        uint64_t ofs = c->base + r->pos;
        int num = rd_u8(r);
        if (r->err)
            return truncated(c, "mvd_frame");
        if (num == MVD2_CLIENTNUM_NONE)
            break;
        if (num >= s->max_clients)
            return fail(c, QD_ERR_BAD_DATA, ofs, "mvd_frame: player %d, maxclients %d", num,
                        (int)s->max_clients);
        unsigned bits = rd_u16(r);
        if (bits & MVD2_PPS_MOREBITS) /* [Q2P-EXT]: a third byte, or (before) the removal */
            bits |= w->morebits ? (unsigned)rd_u8(r) << 16 : MVD2_PPS_REMOVE;
        read_pps(r, &s->players[num], bits, w);
        if (r->err)
            return truncated(c, "mvd_frame");
        bit_put(s->player_inuse, num, !(bits & MVD2_PPS_REMOVE));
        bit_put(c->pl_changed, num, 1);
        bit_put(s->ent_stable, num + 1, 0); /* its body's look is made of this state */
        players++;
    }
    for (;;) {
        uint64_t ofs = c->base + r->pos;
        uint64_t bits;
        int num = q2_read_ent_bits(r, &bits, w->es);
        if (r->err)
            return truncated(c, "mvd_frame");
        if (num >= s->max_edicts)
            return fail(c, QD_ERR_BAD_DATA, ofs, "mvd_frame: entity %d over %d", num,
                        s->max_edicts - 1);
        if (num == 0)
            break;
        q2_read_delta(r, &s->ents[num], num, bits, w->es);
        if (num > s->ents_hi)
            s->ents_hi = (uint16_t)num; /* (num < max_edicts <= 8192) */
        bit_put(s->ent_stable, num, 0);
        if (r->err) {
            /* not marked in ent_event, an event read here would outlast the frame */
            s->ents[num].event = 0;
            return truncated(c, "mvd_frame");
        }
        /* A removed entity is gone from this frame on, a player's body too: Q2PRO's MVD
         * client marks it not in use [Q2P-PARSE MVD_ParsePacketEntities], leaves it out
         * of the bodies it places (MVD_PlayerToEntityStates: "not present in this frame")
         * and sends its spectators only the entities in use. (cl_frame_end would keep a
         * body: QuakeWorld sends its players apart from the entity lists.) */
        if ((bits & Q2_U_REMOVE) && bit_get(s->ent_inuse, num)) {
            cl_entity_remove(c->cl, num);
            bit_put(s->ent_gone, num, 1);
        }
        if (bits & Q2_U_REMOVE)
            s->ents[num].event = 0; /* (a hostile removal may carry U_EVENT) */
        else if (s->ents[num].event)
            bit_put(s->ent_event, num, 1);
        bit_put(s->ent_new, num, !(bits & Q2_U_REMOVE) && !bit_get(s->ent_inuse, num));
        bit_put(s->ent_inuse, num, !(bits & Q2_U_REMOVE));
        if (!(bits & Q2_U_REMOVE) && num > s->inuse_hi)
            s->inuse_hi = (uint16_t)num;
        removed += (bits & Q2_U_REMOVE) != 0;
        ents++;
    }
    /* a level's first frame comes at the time its serverdata set */
    /* the recorder writes a frame ten times a second, so a frame's time is its number in
     * the level (frames lost in damage counted, mvd2_step) after the level's start */
    int first = s->level_frames == 0;
    double t = s->time_base + (double)s->level_frames * MVD2_FRAME_TIME;
    s->time = t;
    s->frames++;
    s->level_frames++;
    s->block_frames++;
    int moved = frame_open(c, t);
    emit_players(c, t, first || moved);
    emit_entities(c, first);
    TRACE(c, "mvd_frame", "portalbytes=%d players=%d entities=%d removed=%d", portal, players,
          ents, removed);
    return QD_OK;
}

/* ---- mvd_serverdata [Q2P-PARSE MVD_ParseServerData] ---- */

/* Why a serverdata of this protocol and version is not decoded, or NULL. */
static const char *refusal(int32_t proto, int version)
{
    if (proto != MVD2_PROTOCOL)
        return "not the MVD protocol 37";
    if (version == MVD2_VERSION_RERELEASE)
        return "the Quake II rerelease's MVD version 3038";
    if (version < MVD2_VERSION_MINIMUM || version > MVD2_VERSION_PLAYERFOG)
        return "an MVD version Q2PRO never wrote (2009..2013 are known)";
    return NULL;
}

/* The header fields of a serverdata whose id byte r has just read (extrabits: its top
 * bits). */
typedef struct sd_head {
    int32_t proto, servercount;
    int version, clientnum;
    unsigned flags;
    char gamedir[64];
} sd_head;

static void read_head(rd_t *r, int extrabits, sd_head *h)
{
    h->proto = rd_s32(r);
    h->version = rd_u16(r);
    /* the flags: a word from 2012, the id's extrabits before */
    h->flags = h->version >= MVD2_VERSION_EXTLIMITS_2 ? rd_u16(r) : (unsigned)extrabits;
    h->servercount = rd_s32(r);
    rd_str(r, h->gamedir, sizeof h->gamedir);
    h->clientnum = rd_s16(r);
}

/* The bytes of ents[] a decode may have written: up to ents_hi (past it all are zero). */
static size_t ents_used(const mvd2_state *s)
{
    return ((size_t)s->ents_hi + 1) * sizeof s->ents[0];
}

static void level_reset(mvd2_state *s)
{
    memset(s->player_inuse, 0, sizeof s->player_inuse);
    memset(s->ent_inuse, 0, sizeof s->ent_inuse);
    memset(s->ent_stable, 0, sizeof s->ent_stable);
    memset(s->ent_new, 0, sizeof s->ent_new);
    memset(s->ent_gone, 0, sizeof s->ent_gone);
    memset(s->ent_event, 0, sizeof s->ent_event);
    s->inuse_hi = 0;
    memset(&s->names, 0, sizeof s->names);
    memset(s->players, 0, sizeof s->players);
    memset(s->ents, 0, ents_used(s));
    s->ents_hi = 0;
    s->view = -1;
    s->level_frames = 0;
}

static qd_err parse_serverdata(ctx *c, int extrabits)
{
    mvd2_state *s = c->s;
    rd_t *r = &c->r;
    sd_head h;
    read_head(r, extrabits, &h);
    if (r->err)
        return truncated(c, "mvd_serverdata");
    const char *why = refusal(h.proto, h.version);
    if (why)
        return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                    "Q2PRO MVD, protocol %d version %d flags 0x%x: %s is not decoded",
                    (int)h.proto, h.version, h.flags, why);
    int wire = wire_of(h.version, h.flags);
    if (wire < 0) /* [Q2P-EXT] */
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                    "mvd_serverdata: MVF_EXTLIMITS_2 without MVF_EXTLIMITS (flags 0x%x)",
                    h.flags);
    const q2_csmap *cs = q2_csmap_of((wires[wire].es & Q2_ES_EXT) ? Q2_CSMAP_Q2PRO : Q2_CSMAP_ID);
    /* The configstrings up to the end index: a first pass for maxclients and the title,
     * which the level starts with. */
    char str[MVD2_STRING_MAX], title[CL_NAME_LEN] = "";
    int maxclients = 0, count = 0;
    rd_t look = *r;
    for (;;) {
        int index = rd_u16(&look);
        if (look.err || index == cs->end)
            break;
        rd_str(&look, str, sizeof str);
        if (index == cs->maxclients)
            maxclients = demo_small_atoi(str);
        else if (index == Q2_CS_NAME)
            snprintf(title, sizeof title, "%.*s", (int)sizeof title - 1, str);
    }
    if (look.err)
        return truncated(c, "mvd_serverdata");
    if (maxclients < 1 || maxclients > MVD2_MAX_CLIENTS)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "mvd_serverdata: maxclients %d", maxclients);
    if (h.clientnum != -1 && (h.clientnum < 0 || h.clientnum >= maxclients))
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "mvd_serverdata: client %d, maxclients %d",
                    h.clientnum, maxclients);
    frame_close(c);
    if (s->frames)
        s->time += MVD2_FRAME_TIME; /* the next level goes on one frame later */
    s->time_base = s->time;
    s->protocol = h.proto;
    s->version = h.version;
    s->flags = h.flags;
    s->wire = (uint8_t)wire;
    s->max_edicts = wires[wire].max_edicts;
    s->servercount = h.servercount;
    s->clientnum = h.clientnum;
    s->max_clients = maxclients;
    s->have_level = 1;
    level_reset(s);
    s->names.ext = (wires[wire].es & Q2_ES_EXT) != 0;
    cl_level_begin(c->cl, CL_GAME_Q2, h.proto, maxclients, title);
    cl_set_gamedir(c->cl, h.gamedir[0] ? h.gamedir : "baseq2");
    for (;;) {
        uint64_t ofs = c->base + r->pos;
        int index = rd_u16(r);
        if (index == cs->end)
            break;
        rd_str(r, str, sizeof str);
        if (index > cs->end) /* [Q2P-PARSE]: "Bad configstring index" */
            return fail(c, QD_ERR_BAD_DATA, ofs, "mvd_serverdata: configstring %d over %d",
                        index, cs->end - 1);
        q2_configstring(c->cl, &s->names, index, str, (uint32_t)(ofs + 2));
        count++;
    }
    TRACE(c, "mvd_serverdata",
          "protocol=%d version=%d flags=0x%x servercount=%d gamedir=\"%s\" client=%d "
          "maxclients=%d configstrings=%d",
          (int)h.proto, h.version, h.flags, (int)h.servercount, esc(c, h.gamedir), h.clientnum,
          maxclients, count);
    /* the level's first frame follows [Q2P-PARSE MVD_ParseServerData: "parse baseline
     * frame"] */
    uint64_t keep = c->msg_ofs;
    c->msg_ofs = c->base + r->pos;
    qd_err e = parse_frame(c);
    c->msg_ofs = keep;
    return e;
}

/* ---- the other messages ---- */

static qd_err parse_configstring(ctx *c)
{
    rd_t *r = &c->r;
    char str[MVD2_STRING_MAX];
    int index = rd_u16(r), end = q2_csmap_of(c->s->names.ext)->end;
    rd_str(r, str, sizeof str);
    if (r->err)
        return truncated(c, "mvd_configstring");
    if (index >= end) /* [Q2P-PARSE MVD_ParseConfigstring]: "bad index" */
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "mvd_configstring: index %d over %d",
                    index, end - 1);
    q2_configstring(c->cl, &c->s->names, index, str, (uint32_t)(c->msg_ofs + 3));
    /* a model's name may be any entity's look (q2_ent_look reads of the names only the
     * vwep count, which only CS_MODELS names change); the others, most of all the general
     * strings a match's clock rewrites every second (617 of realdata's test.mvd2's 653),
     * are no entity's */
    const q2_csmap *cs = q2_csmap_of(c->s->names.ext);
    if (index >= cs->models && index < cs->sounds)
        memset(c->s->ent_stable, 0, sizeof c->s->ent_stable);
    TRACE(c, "mvd_configstring", "index=%d string=\"%s\"", index, esc(c, str));
    return QD_OK;
}

/* mvd_unicast(_r): [length low byte][client][length bytes of svc_ messages to that client];
 * mvd_multicast_*: [length low byte][leaf word unless to all][bytes]; the length's high bits
 * are the id's extrabits [Q2P-PARSE MVD_ParseUnicast, MVD_ParseMulticast]. The bytes are
 * what the players were sent (layouts, effects): skipped. */
static qd_err parse_cast(ctx *c, int op, int extrabits)
{
    mvd2_state *s = c->s;
    rd_t *r = &c->r;
    const char *name = op_name(op);
    size_t length = rd_u8(r) | (size_t)extrabits << 8;
    int who = -1;
    if (op == MVD2_UNICAST || op == MVD2_UNICAST_R) {
        who = rd_u8(r);
        if (!r->err && who >= s->max_clients)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: client %d, maxclients %d", name,
                        who, (int)s->max_clients);
    } else if (op != MVD2_MULTICAST_ALL && op != MVD2_MULTICAST_ALL_R) {
        who = rd_u16(r); /* the leaf it was sent from */
    }
    rd_skip(r, length);
    if (r->err)
        return truncated(c, name);
    TRACE(c, name, "length=%zu %s=%d", length, op <= MVD2_UNICAST_R ? "client" : "leaf", who);
    return QD_OK;
}

/* [Q2P-PARSE MVD_ParseSound]: flags, index (a word under SND_INDEX16 in an extended stream
 * [Q2P-EXT]), the optional volume, attenuation and offset, then the entity and channel
 * (always): the sound is where that entity is. */
static qd_err parse_sound(ctx *c)
{
    mvd2_state *s = c->s;
    rd_t *r = &c->r;
    unsigned flags = rd_u8(r);
    int index = (wires[s->wire].es & Q2_ES_EXT) && (flags & Q2_SND_INDEX16) ? rd_u16(r)
                                                                             : rd_u8(r);
    int vol = 255, attn = 64, ofs = 0;
    if (flags & Q2_SND_VOLUME)
        vol = rd_u8(r);
    if (flags & Q2_SND_ATTENUATION)
        attn = rd_u8(r);
    if (flags & Q2_SND_OFFSET)
        ofs = rd_u8(r);
    unsigned sendchan = rd_u16(r);
    if (r->err)
        return truncated(c, "mvd_sound");
    int ent = (int)(sendchan >> 3);
    if (ent >= s->max_edicts)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "mvd_sound: entity %d over %d", ent,
                    s->max_edicts - 1);
    cl_sound snd;
    memset(&snd, 0, sizeof snd);
    snd.sound = (uint16_t)index;
    snd.entity = (int16_t)ent;
    snd.channel = (uint8_t)(sendchan & 7);
    snd.volume = (uint8_t)vol;
    snd.attenuation = (uint8_t)attn;
    if (bit_get(s->ent_inuse, ent)) {
        for (int i = 0; i < 3; i++)
            snd.origin[i] = (float)s->ents[ent].origin[i] * 0.125f;
        snd.has_origin = 1;
    }
    cl_sound_add(c->cl, &snd);
    TRACE(c, "mvd_sound", "sound=%d vol=%d attn=%d ofs=%d ent=%d chan=%u", index, vol, attn,
          ofs, ent, sendchan & 7);
    return QD_OK;
}

static qd_err parse_message(ctx *c, int op, int extrabits)
{
    rd_t *r = &c->r;
    const char *name = op_name(op);
    char text[MVD2_STRING_MAX];
    if (!c->s->have_level && op != MVD2_SERVERDATA && op != MVD2_NOP)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s before mvd_serverdata", name);
    switch (op) {
    case MVD2_NOP:
        TRACE(c, name, "%s", "");
        return QD_OK;
    case MVD2_SERVERDATA:
        return parse_serverdata(c, extrabits);
    case MVD2_CONFIGSTRING:
        return parse_configstring(c);
    case MVD2_FRAME:
        return parse_frame(c);
    case MVD2_UNICAST:
    case MVD2_UNICAST_R:
    case MVD2_MULTICAST_ALL:
    case MVD2_MULTICAST_PHS:
    case MVD2_MULTICAST_PVS:
    case MVD2_MULTICAST_ALL_R:
    case MVD2_MULTICAST_PHS_R:
    case MVD2_MULTICAST_PVS_R:
        return parse_cast(c, op, extrabits);
    case MVD2_SOUND:
        return parse_sound(c);
    case MVD2_PRINT: { /* [Q2P-PARSE MVD_ParsePrint]: level, text */
        int level = rd_u8(r);
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        q2_print(c->cl, level, text);
        TRACE(c, name, "level=%d text=\"%s\"", level, esc(c, text));
        return QD_OK;
    }
    default: /* mvd_bad, the reserved ids and ids past mvd_stufftext [Q2P-PARSE: "Illegible
              * command"] */
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "unknown MVD message %d (%s)", op, name);
    }
}

/* ---- blocks [Q2P-CLIENT demo_load_message] ---- */

static int has_magic(const uint8_t *data, size_t len)
{
    return len >= 4 && !memcmp(data, MVD2_MAGIC, 4);
}

/* The first block's serverdata header, when the file starts with one: 1 and h filled. */
static int first_head(const uint8_t *data, size_t len, sd_head *h)
{
    if (!has_magic(data, len) || len < 7)
        return 0;
    size_t size = (size_t)(data[4] | data[5] << 8);
    if (size == 0) /* an extended recorder's may be any length (max_block) */
        return 0;
    if (size > len - 6) /* a file cut inside its first block: read what is there */
        size = len - 6;
    rd_t r = rd_make(data + 6, size);
    int id = rd_u8(&r);
    if ((id & MVD2_SVCMD_MASK) != MVD2_SERVERDATA)
        return 0;
    read_head(&r, id >> MVD2_SVCMD_BITS, h);
    return !r.err;
}

/* The largest block the file's recorder writes [Q2P-CLIENT demo_load_message]: MAX_MSGLEN,
 * which is 0x10000 (any length) in the builds with the extended limits [Q2P-EXT], when the
 * first serverdata has them. */
static size_t max_block(const uint8_t *data, size_t len)
{
    sd_head h;
    return first_head(data, len, &h) && wire_of(h.version, h.flags) > 0 ? MVD2_MAX_MSGLEN_EXT
                                                                         : MVD2_MAX_MSGLEN;
}

static qd_err parse_block(ctx *c, const uint8_t *data, size_t len, int *done)
{
    mvd2_state *s = c->s;
    size_t pos = (size_t)s->pos;
    c->msg_ofs = pos;
    if (len - pos < 2)
        return fail(c, QD_ERR_TRUNCATED, pos, "block header cut off (%zu bytes left)", len - pos);
    size_t size = (size_t)(data[pos] | data[pos + 1] << 8);
    if (size == 0) {
        s->pos = pos + 2;
        s->ended = 1;
        *done = 1;
        TRACE(c, "end", "%s", "");
        return QD_OK;
    }
    s->block_pos = pos; /* (before the size checks: mvd2_resume counts from here) */
    s->block_frames = 0;
    if (!s->block_cap) /* (the first block's header, read once a decode) */
        s->block_cap = (uint32_t)max_block(data, len);
    size_t cap = s->block_cap;
    if (size > cap)
        return fail(c, QD_ERR_BAD_DATA, pos, "block size %zu over %zu", size, cap);
    if (size > len - pos - 2)
        return fail(c, QD_ERR_TRUNCATED, pos, "block of %zu bytes cut off at %zu", size,
                    len - pos - 2);
    c->base = pos + 2;
    c->r = rd_make(data + pos + 2, size);
    s->pos = pos + 2 + size;
    while (rd_left(&c->r) > 0) {
        c->msg_ofs = c->base + c->r.pos;
        int id = rd_u8(&c->r);
        qd_err e = parse_message(c, id & MVD2_SVCMD_MASK, id >> MVD2_SVCMD_BITS);
        if (e)
            return e;
    }
    frame_close(c);
    return QD_OK;
}

/* ---- the decoder interface ---- */

static qd_err mvd2_init(void *state, const uint8_t *data, size_t len, qd_error *err)
{
    mvd2_state *s = state;
    s->clientnum = -1;
    s->view = -1;
    s->pos = 4;
    if (!has_magic(data, len))
        return qd_fail(err, QD_ERR_BAD_DATA, 0, "not a Q2PRO MVD: the file does not start with "
                                                "\"MVD2\"");
    sd_head h;
    if (first_head(data, len, &h)) {
        /* `info` reports what the file is, refused or not */
        s->protocol = h.proto;
        s->version = h.version;
        s->flags = h.flags;
        const char *why = refusal(h.proto, h.version);
        if (why)
            return qd_fail(err, QD_ERR_UNSUPPORTED, 6,
                           "Q2PRO MVD, protocol %d version %d flags 0x%x: %s is not decoded",
                           (int)h.proto, h.version, h.flags, why);
        int wire = wire_of(h.version, h.flags);
        s->wire = (uint8_t)(wire > 0 ? wire : 0);
    }
    return QD_OK;
}

static qd_err mvd2_step(void *state, const uint8_t *data, size_t len, cl_state *cl,
                        const demo_trace *trace, int *done, qd_error *err)
{
    mvd2_state *s = state;
    *done = 0;
    if (s->pos >= len) { /* no end block: the file simply ends after a whole block */
        *done = 1;
        return QD_OK;
    }
    if (s->lost_pos) { /* resumed past damage: the frames of the blocks skipped */
        uint32_t blocks = 0;
        for (uint64_t p = s->lost_pos; p < s->pos && len - p >= 2; blocks++) {
            size_t n = (size_t)(data[p] | data[p + 1] << 8);
            if (n == 0 && p != s->lost_pos)
                break; /* an end marker (or zeros) is no frame */
            p += 2 + (uint64_t)n;
        }
        if (blocks > s->lost_frames && s->have_level)
            s->level_frames += blocks - s->lost_frames; /* a block a frame */
        s->lost_pos = 0;
    }
    ctx c; /* (not zeroed whole: its escape buffer is written before it is read) */
    c.s = s;
    c.cl = cl;
    c.trace = trace && trace->msg ? trace : NULL;
    c.err = err;
    c.base = c.msg_ofs = 0;
    c.r = rd_make(data, 0);
    memset(c.pl_changed, 0, sizeof c.pl_changed);
    qd_err e = parse_block(&c, data, len, done);
    s->block++;
    return e; /* an error: demo_step closes the frame left open, then stops or resumes */
}

static uint64_t mvd2_offset(const void *state) { return ((const mvd2_state *)state)->pos; }
static int mvd2_protocol(const void *state) { return ((const mvd2_state *)state)->protocol; }
static int mvd2_ended(const void *state) { return ((const mvd2_state *)state)->ended; }
static const char *mvd2_variant(const void *state)
{
    return wires[((const mvd2_state *)state)->wire].name;
}

/* [Q2P-CLIENT demo_load_message]: a little-endian uint16 length, then the messages (a known
 * id first); length 0 is the end. */
static int mvd2_block_at(const uint8_t *data, size_t len, uint64_t pos, int strict,
                         uint64_t *size)
{
    if (pos < 4 || pos >= len || len - pos < 2)
        return DEMO_BLOCK_NONE;
    size_t n = (size_t)(data[pos] | data[pos + 1] << 8);
    *size = 2;
    if (n == 0)
        return DEMO_BLOCK_END;
    if (n > max_block(data, len))
        return DEMO_BLOCK_NONE;
    if (n > len - pos - 2)
        return DEMO_BLOCK_CUT;
    int op = data[pos + 2] & MVD2_SVCMD_MASK;
    if (strict && (op == MVD2_BAD || op == MVD2_DISCONNECT || op == MVD2_RECONNECT ||
                   op == MVD2_FRAME_NODELTA || op >= MVD2_STUFFTEXT))
        return DEMO_BLOCK_NONE;
    *size = 2 + (uint64_t)n;
    return DEMO_BLOCK_WHOLE;
}

/* Go on at block pos. demo.c has closed the client's frame; the players and entities stay
 * as they were, and the next frames' deltas bring them up to date. The next step counts the
 * frames skipped, so the times after the damage stay right. */
static void mvd2_resume(void *state, uint64_t pos)
{
    mvd2_state *s = state;
    s->lost_pos = s->block_pos;
    s->lost_frames = s->block_frames; /* decoded before the damage */
    s->in_frame = 0;
    s->pos = pos;
}

static int has_mvd2_ext(const char *name)
{
    const char *dot = name ? strrchr(name, '.') : NULL;
    return dot && strlen(dot) == 5 && (dot[1] | 0x20) == 'm' && (dot[2] | 0x20) == 'v' &&
           (dot[3] | 0x20) == 'd' && dot[4] == '2';
}

/* Content evidence: "MVD2" then a first block starting with mvd_serverdata (10), or the
 * magic alone (9); the extension alone is weak (1). */
static int mvd2_probe(const uint8_t *data, size_t len, const char *filename)
{
    sd_head h;
    if (first_head(data, len, &h))
        return 10;
    if (has_magic(data, len))
        return 9;
    return has_mvd2_ext(filename) ? 1 : 0;
}

/* demo_decoder.clear: the state as memset would leave it, the entities only to ents_hi
 * (past it they are zero already): a rewind, and each level's start (level_reset), clear
 * what the decode used, not 8,192 entities (the bench's rewinds of realdata's .mvd2
 * cleared about 1 MB a pass of a 581 KB file) */
static void mvd2_clear(void *state)
{
    mvd2_state *s = state;
    memset(s, 0, offsetof(mvd2_state, ents) + ents_used(s));
}

const demo_decoder demo_mvd2_decoder = {
    "mvd2", DEMO_FMT_MVD2, sizeof(mvd2_state), mvd2_probe, mvd2_init, mvd2_step, mvd2_offset,
    mvd2_protocol, mvd2_ended, mvd2_block_at, mvd2_resume, mvd2_variant, 0, mvd2_clear,
};
