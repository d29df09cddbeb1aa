/* q3_local.h: Quake III-family protocol constants, the Huffman bit reader and the .dm_NN
 * decoder state, shared by q3.c, q3_huff.c and their tests (which build messages by these
 * names).
 *
 * Sources, named where each fact is used:
 *   [DM68] /work/shared/specs/dm68-quake3.txt (Andrey Nazarov, "Quake III Arena Demo File
 *          Specifications"): section numbers as [DM68 n].
 *   [UDT]  mightycow/uberdemotools UDT_DLL/src/message.cpp: protocols 66, 67 and 68 share the
 *          68 field tables; 73, 90 and 91 (Quake Live) have their own ([QL] below). Its
 *          Huffman encoder table (code and length per byte) was used to check q3_huff_nodes:
 *          all 256 codes agree. */
#ifndef QD_Q3_LOCAL_H
#define QD_Q3_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "../client/cl.h"
#include "../common/err.h"
#include "../common/rd.h"
#include "delta.h"

/* ---- Demo blocks [DM68 3] ---- */
#define Q3_MAX_MSGLEN 16384 /* MAX_MSGLEN: no block is longer */

/* ---- Server messages [DM68 8] ---- */
#define Q3_SVC_BAD 0
#define Q3_SVC_NOP 1
#define Q3_SVC_GAMESTATE 2
#define Q3_SVC_CONFIGSTRING 3 /* only inside svc_gamestate */
#define Q3_SVC_BASELINE 4     /* only inside svc_gamestate */
#define Q3_SVC_SERVERCOMMAND 5
#define Q3_SVC_DOWNLOAD 6
#define Q3_SVC_SNAPSHOT 7
#define Q3_SVC_EOF 8

/* ---- Limits [DM68 6, 9, 10] ---- */
#define Q3_GENTITYNUM_BITS 10
#define Q3_MAX_GENTITIES (1 << Q3_GENTITYNUM_BITS)
#define Q3_ENTITYNUM_NONE (Q3_MAX_GENTITIES - 1)
#define Q3_MAX_CONFIGSTRINGS 1024
#define Q3_MAX_RELIABLE_COMMANDS 64 /* a server's unacknowledged commands at most (q_shared.h) */
#define Q3_BIG_INFO_STRING 8192
#define Q3_MAX_STRING_CHARS 1024
#define Q3_PACKET_BACKUP 32 /* MAX_SNAPSHOTS: the ring of snapshots deltas refer to */
#define Q3_PACKET_MASK (Q3_PACKET_BACKUP - 1)
#define Q3_MAX_SNAP_ENTITIES 256 /* MAX_ENTITIES_IN_SNAPSHOT */
#define Q3_MAX_CLIENTS 64
#define Q3_EVENT_VALID_MSEC 300 /* bg_public.h */
#define Q3_SNAPPED_BITS 13 /* integral floats are sent in 13 bits, biased by 4096 */
#define Q3_MAX_AREA_BYTES 32

/* ---- Configstring layout of baseq3 1.32 (game/bg_public.h), which OSP, CPMA and OpenArena
 * keep ---- */
#define Q3_CS_SERVERINFO 0
#define Q3_CS_SYSTEMINFO 1
#define Q3_CS_MESSAGE 3
#define Q3_CS_WARMUP 5 /* bg_public.h: the server time the match starts */
#define Q3_CS_MODELS 32
#define Q3_CS_SOUNDS 288
#define Q3_CS_PLAYERS 544
#define Q3_CS_LOCATIONS 608
#define Q3_CS_SCORES1 6 /* red team score, CS_SCORES2 blue */
#define Q3_CS_GAME_VERSION 20 /* GAME_VERSION: "baseq3-1"; OpenArena 0.8.5 on "baseoa-1" */
#define Q3_CS_SCORES2 7
#define Q3_MAX_MODELS 256
#define Q3_MAX_SOUNDS 256

/* entityState eType ET_PLAYER, eFlags EF_TELEPORT_BIT, playerState pm_type (bg_public.h) */
#define Q3_ET_GENERAL 0
#define Q3_ET_PLAYER 1
#define Q3_ET_ITEM 2
#define Q3_ET_MOVER 4
#define Q3_ET_EVENTS 13 /* eType ET_EVENTS + n: a temporary entity carrying event n */
#define Q3_EV_EVENT_BITS 0x300 /* the toggle bits of entityState.event */
/* entity_event_t (bg_public.h of 1.32 / ioquake3) */
#define Q3_EV_GENERAL_SOUND 45
#define Q3_EV_GLOBAL_SOUND 46
#define Q3_EV_MISSILE_HIT 50
#define Q3_EV_MISSILE_MISS 51
#define Q3_EV_MISSILE_MISS_METAL 52
#define Q3_EV_RAILTRAIL 53
#define Q3_EV_OBITUARY 60
#define Q3_EF_DEAD 0x1
#define Q3_EF_TELEPORT_BIT 0x4
#define Q3_SNAPFLAG_SERVERCOUNT 4 /* q_shared.h: toggles with each map_restart */
#define Q3_EF_NODRAW 0x80  /* no model: an item waiting to respawn (cg_ents.c CG_Item) */
#define Q3_EF_FIRING 0x100 /* for lightning gun */
/* entityState.powerups: 1 << powerup_t (bg_public.h PW_QUAD 1, PW_REDFLAG 7, PW_BLUEFLAG 8) */
#define Q3_PWBIT_QUAD (1u << 1)
#define Q3_PWBIT_REDFLAG (1u << 7)
#define Q3_PWBIT_BLUEFLAG (1u << 8)
/* weapon_t (bg_public.h) with a missile trail (cg_weapons.c CG_RegisterWeapon) */
#define Q3_WP_GRENADE_LAUNCHER 4
#define Q3_WP_ROCKET_LAUNCHER 5
#define Q3_WP_PLASMAGUN 8
#define Q3_WP_GAUNTLET 1
#define Q3_WP_LIGHTNING 6
#define Q3_WP_RAILGUN 7
#define Q3_WP_BFG 9
#define Q3_ANIM_TOGGLEBIT 128 /* legsAnim / torsoAnim: flips when an animation restarts */
#define Q3_PM_SPECTATOR 2
#define Q3_PM_DEAD 3
/* playerState stats[] and persistant[] slots (bg_public.h statIndex_t, persEnum_t) */
#define Q3_STAT_HEALTH 0
#define Q3_STAT_WEAPONS 2
#define Q3_STAT_ARMOR 3
#define Q3_PERS_SCORE 0
#define Q3_PERS_TEAM 3
#define Q3_PM_INTERMISSION 5
#define Q3_PM_SPINTERMISSION 6

/* ---- Trajectory types [DM68 6] trType_t ---- */
enum { Q3_TR_STATIONARY, Q3_TR_INTERPOLATE, Q3_TR_LINEAR, Q3_TR_LINEAR_STOP, Q3_TR_SINE,
       Q3_TR_GRAVITY };

/* ---- The Huffman code [DM68 7] ---- */

/* The static tree that Huff_Init builds from the spec's byte counts. Each inner node holds
 * its two children: >= 0 another inner node, < 0 the leaf of byte -v - 1 (-257 is the NYT
 * leaf, which no encoder emits). Node 0 is the root. Codes are 1..11 bits. */
#define Q3_HUFF_NODES 256
extern const int16_t q3_huff_nodes[Q3_HUFF_NODES][2];

/* The message bit reader [DM68 4]: bits are taken LSB first from each byte; MSG_ReadBits
 * reads (bits & 7) raw bits, then whole bytes as Huffman symbols. It sits on the bounded
 * reader: r.len is the message length, r.err turns sticky at the first bit past it, and
 * every read after that yields 0. */
typedef struct q3_bits {
    rd_t r;      /* r.pos unused: the cursor is `bit` */
    size_t bit;  /* bits consumed */
    int bad_sym; /* a code led to the NYT leaf: the data is damaged */
    int plain;   /* no Huffman code: protocols 43..48 (.dm3, .dm_48) send every value as
                  * its bits, LSB first [Q3OLD] */
} q3_bits;

void q3_bits_init(q3_bits *b, const uint8_t *p, size_t len);
/* One raw bit (0 past the end). */
int q3_bit(q3_bits *b);
/* One Huffman-coded byte (0 past the end or on a bad code, with the error flag set). */
int q3_huff_byte(q3_bits *b);
/* MSG_ReadBits: 1 <= |bits| <= 32; negative bits sign-extend. */
int32_t q3_read_bits(q3_bits *b, int bits);
/* 1 once any read ran past the end or met a bad code. */
static inline int q3_bits_err(const q3_bits *b) { return b->r.err || b->bad_sym; }

/* ---- The same reader inline, for the hot loops (q3_huff.c's wrappers above and the delta
 * engine's Quake III field reader, delta.c dd_read_q3) ---- */

/* The code as a lookup table: indexed by the next 11 bits of the message (the first bit
 * read in bit 0), each entry is (code length << 8 | byte), or 0 for the NYT code, which
 * only the tree walk (q3_huff_walk) handles. */
extern const uint16_t q3_huff_table[1 << 11];
/* One Huffman byte bit by bit down q3_huff_nodes: the exact behaviour at the end of a
 * message and on the NYT code (the slow path of q3_huff_byte_in). */
int q3_huff_walk(q3_bits *b);

/* 8 bytes at p, the first in the low byte. */
static inline uint64_t q3_load8(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

/* The next bits of the message from the cursor, the first in bit 0, zeros past the end;
 * *avail is how many of them are real (0 once the error flag is set). Only the bytes the
 * reader owns are touched: 8 at once from the cursor when 8 are left, else the message's
 * last 8 (one by one in a message shorter than that). */
static inline uint64_t q3_peek(const q3_bits *b, size_t *avail)
{
    size_t byte = b->bit >> 3, left;
    unsigned sh = (unsigned)(b->bit & 7);
    if (b->r.err || byte >= b->r.len) {
        *avail = 0;
        return 0;
    }
    left = b->r.len - byte;
    const uint8_t *p = b->r.p + byte;
    uint64_t w = 0;
    if (left >= 8) {
        w = q3_load8(p);
        *avail = 64 - sh;
    } else {
        /* the message's last 8 bytes, shifted down to the cursor's (every message's
         * last bytes are read so: a snapshot's tail), or one by one in a message of
         * fewer than 8 */
        if (b->r.len >= 8)
            w = q3_load8(b->r.p + b->r.len - 8) >> (8 * (8 - left));
        else
            for (size_t i = 0; i < left; i++)
                w |= (uint64_t)p[i] << (8 * i);
        *avail = left * 8 - sh;
    }
    return w >> sh;
}

/* q3_bit inline. */
static inline int q3_bit_in(q3_bits *b)
{
    size_t byte = b->bit >> 3;
    if (b->r.err || byte >= b->r.len) {
        b->r.err = 1;
        b->r.pos = b->r.len; /* (parked, as rd.h keeps a reader with err) */
        return 0;
    }
    int v = (b->r.p[byte] >> (b->bit & 7)) & 1;
    b->bit++;
    return v;
}

/* How many 0 bits w starts with (64 for none set). */
static inline size_t q3_zero_run(uint64_t w)
{
#if defined(__GNUC__)
    return w ? (size_t)__builtin_ctzll(w) : 64;
#else
    size_t n = 0;
    while (n < 64 && !(w >> n & 1))
        n++;
    return n;
#endif
}

static inline int32_t q3_read_bits_in(q3_bits *b, int bits);

/* The Huffman codes of a value's bits i..n-1 from w (the next bits of the message, the
 * first in bit 0), all in w: each code's byte ORed into *v from bit i on, its length added
 * to *used. Returns where it stopped: n, or less at the NYT code (the tree walk reports
 * it). */
static inline unsigned q3_huff_codes(uint64_t w, unsigned i, unsigned n, uint32_t *v,
                                     unsigned *used)
{
    for (; i < n; i += 8) {
        unsigned e = q3_huff_table[w & 0x7ff], len = e >> 8;
        if (!e)
            break;
        *v |= (e & 0xffu) << i;
        w >>= len;
        *used += len;
    }
    return i;
}

/* An n-bit value as read: the codes' bits past n dropped (a symbol's high bits are not
 * the field's), sign-extended when signed. */
static inline int32_t q3_bits_value(uint32_t v, unsigned n, int sign)
{
    if (n < 32) {
        v &= (1u << n) - 1;
        if (sign && (v & (1u << (n - 1))))
            v |= ~((1u << n) - 1);
    }
    return (int32_t)v;
}

/* The cursor to the next whole byte: protocols 43..48 align after each command of a message
 * and before strings [Q3OLD]. */
static inline void q3_bits_align(q3_bits *b) { b->bit = (b->bit + 7) & ~(size_t)7; }

/* Bits left in the message (0 once the error flag is set). */
static inline size_t q3_bits_left(const q3_bits *b)
{
    return b->r.err || b->bit >= b->r.len * 8 ? 0 : b->r.len * 8 - b->bit;
}

/* q3_huff_byte inline. */
static inline int q3_huff_byte_in(q3_bits *b)
{
    if (b->plain)
        return q3_read_bits_in(b, 8);
    size_t avail;
    uint64_t w = q3_peek(b, &avail);
    unsigned e = q3_huff_table[w & 0x7ff], len = e >> 8;
    if (e && len <= avail) { /* the code's bits are all in the message */
        b->bit += len;
        return (int)(e & 0xff);
    }
    return q3_huff_walk(b);
}

/* q3_read_bits inline (always: a constant width folds most of it away). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int32_t q3_read_bits_in(q3_bits *b, int bits)
{
    int sign = bits < 0;
    unsigned n = (unsigned)(sign ? -bits : bits);
    if (n == 0 || n > 32) {
        b->bad_sym = 1;
        return 0;
    }
    uint32_t v = 0;
    unsigned raw = n & 7, i;
    size_t avail;
    uint64_t w = q3_peek(b, &avail);
    if (b->plain) { /* the next n bits as they are [Q3OLD] */
        if (avail < n) {
            b->r.err = 1;
            b->r.pos = b->r.len;
            return 0;
        }
        v = (uint32_t)(w & (n < 32 ? (1ull << n) - 1 : 0xffffffffull));
        b->bit += n;
    } else if (avail >= raw + 11 * (n >> 3)) {
        /* all the codes are in w (at most 7 + 4 * 11 bits): decode them from it */
        unsigned used = raw;
        v = (uint32_t)w & ((1u << raw) - 1);
        i = q3_huff_codes(w >> raw, raw, n, &v, &used);
        b->bit += used;
        for (; i < n; i += 8)
            v |= (uint32_t)q3_huff_byte_in(b) << i;
    } else {
        /* near the end of the message: a symbol at a time, the tree walk for the last */
        if (raw) {
            if (avail >= raw) {
                v = (uint32_t)w & ((1u << raw) - 1);
                b->bit += raw;
            } else {
                for (i = 0; i < raw; i++)
                    v |= (uint32_t)q3_bit_in(b) << i;
            }
        }
        for (i = raw; i < n; i += 8)
            v |= (uint32_t)q3_huff_byte_in(b) << i;
    }
    return q3_bits_value(v, n, sign);
}

/* ---- Delta field tables [DM68 6]: the order of the wire, as rows of the delta engine
 * (delta.h): DD_Q3INT with bits > 0 unsigned, < 0 signed; DD_Q3FLOAT (bits 0) a float sent
 * as 13-bit integral or 32 raw bits. States hold the fields in this order as int32 (floats
 * by their bit pattern), so row i writes f[i]. ---- */
enum {
    Q3_ES_POS_TRTIME, Q3_ES_POS_TRBASE0, Q3_ES_POS_TRBASE1, Q3_ES_POS_TRDELTA0,
    Q3_ES_POS_TRDELTA1, Q3_ES_POS_TRBASE2, Q3_ES_APOS_TRBASE1, Q3_ES_POS_TRDELTA2,
    Q3_ES_APOS_TRBASE0, Q3_ES_EVENT, Q3_ES_ANGLES2_1, Q3_ES_ETYPE, Q3_ES_TORSOANIM,
    Q3_ES_EVENTPARM, Q3_ES_LEGSANIM, Q3_ES_GROUNDENTITYNUM, Q3_ES_POS_TRTYPE, Q3_ES_EFLAGS,
    Q3_ES_OTHERENTITYNUM, Q3_ES_WEAPON, Q3_ES_CLIENTNUM, Q3_ES_ANGLES1, Q3_ES_POS_TRDURATION,
    Q3_ES_APOS_TRTYPE, Q3_ES_ORIGIN0, Q3_ES_ORIGIN1, Q3_ES_ORIGIN2, Q3_ES_SOLID,
    Q3_ES_POWERUPS, Q3_ES_MODELINDEX, Q3_ES_OTHERENTITYNUM2, Q3_ES_LOOPSOUND, Q3_ES_GENERIC1,
    Q3_ES_ORIGIN2_2, Q3_ES_ORIGIN2_0, Q3_ES_ORIGIN2_1, Q3_ES_MODELINDEX2, Q3_ES_ANGLES0,
    Q3_ES_TIME, Q3_ES_APOS_TRTIME, Q3_ES_APOS_TRDURATION, Q3_ES_APOS_TRBASE2,
    Q3_ES_APOS_TRDELTA0, Q3_ES_APOS_TRDELTA1, Q3_ES_APOS_TRDELTA2, Q3_ES_TIME2,
    Q3_ES_ANGLES2, Q3_ES_ANGLES2_0, Q3_ES_ANGLES2_2, Q3_ES_CONSTANTLIGHT, Q3_ES_FRAME,
    Q3_ES_COUNT, /* 51: the rows of the protocol 68 table */
    /* Quake Live's additions [QL]: slots past the 68 rows, which its tables send in their
     * own order (q3_proto.c) */
    Q3_ES_POS_GRAVITY = Q3_ES_COUNT, Q3_ES_APOS_GRAVITY, Q3_ES_JUMPTIME, Q3_ES_DOUBLEJUMPED,
    Q3_ES_HEALTH, Q3_ES_ARMOR, Q3_ES_LOCATION,
    Q3_ES_SLOTS /* 58: every protocol's fields */
};

enum {
    Q3_PS_COMMANDTIME, Q3_PS_ORIGIN0, Q3_PS_ORIGIN1, Q3_PS_BOBCYCLE, Q3_PS_VELOCITY0,
    Q3_PS_VELOCITY1, Q3_PS_VIEWANGLES1, Q3_PS_VIEWANGLES0, Q3_PS_WEAPONTIME, Q3_PS_ORIGIN2,
    Q3_PS_VELOCITY2, Q3_PS_LEGSTIMER, Q3_PS_PM_TIME, Q3_PS_EVENTSEQUENCE, Q3_PS_TORSOANIM,
    Q3_PS_MOVEMENTDIR, Q3_PS_EVENTS0, Q3_PS_LEGSANIM, Q3_PS_EVENTS1, Q3_PS_PM_FLAGS,
    Q3_PS_GROUNDENTITYNUM, Q3_PS_WEAPONSTATE, Q3_PS_EFLAGS, Q3_PS_EXTERNALEVENT,
    Q3_PS_GRAVITY, Q3_PS_SPEED, Q3_PS_DELTA_ANGLES1, Q3_PS_EXTERNALEVENTPARM,
    Q3_PS_VIEWHEIGHT, Q3_PS_DAMAGEEVENT, Q3_PS_DAMAGEYAW, Q3_PS_DAMAGEPITCH,
    Q3_PS_DAMAGECOUNT, Q3_PS_GENERIC1, Q3_PS_PM_TYPE, Q3_PS_DELTA_ANGLES0,
    Q3_PS_DELTA_ANGLES2, Q3_PS_TORSOTIMER, Q3_PS_EVENTPARMS0, Q3_PS_EVENTPARMS1,
    Q3_PS_CLIENTNUM, Q3_PS_WEAPON, Q3_PS_VIEWANGLES2, Q3_PS_GRAPPLEPOINT0,
    Q3_PS_GRAPPLEPOINT1, Q3_PS_GRAPPLEPOINT2, Q3_PS_JUMPPAD_ENT, Q3_PS_LOOPSOUND,
    Q3_PS_COUNT, /* 48: the rows of the protocol 68 (and 73) table */
    Q3_PS_WEAPONPRIMARY = Q3_PS_COUNT, Q3_PS_JUMPTIME, Q3_PS_DOUBLEJUMPED, Q3_PS_CROUCHTIME,
    Q3_PS_CROUCHSLIDETIME, Q3_PS_LOCATION, Q3_PS_FOV, Q3_PS_FORWARDMOVE, Q3_PS_RIGHTMOVE,
    Q3_PS_UPMOVE,
    Q3_PS_SLOTS /* 58 */
};

extern const dd_field q3_es_fields[Q3_ES_COUNT];
extern const dd_field q3_ps_fields[Q3_PS_COUNT];
extern const dd_table q3_es_table, q3_ps_table;

/* One entityState_t, compact: every protocol's wire fields and the number (236 bytes). */
typedef struct q3_ent {
    int32_t f[Q3_ES_SLOTS];
    uint16_t number;
    uint8_t still; /* set by the decoder (q3.c): not a body, and nothing moves it in time */
    uint8_t pad;
} q3_ent;

/* The sound an entity event ev of e makes at org when the cgame names it itself (weapon
 * fire, pickups, player model sounds: q3_sound.c), logged with cl_sound_add. */
void q3_event_sound(cl_state *cl, const q3_ent *e, int ev, const float org[3]);
/* cg_playerstate.c CG_CheckLocalSounds: the recorder's own sounds from how its persistant[]
 * changed since the last playerState (hit beeps, rewards, lead changes), heard everywhere. */
void q3_local_sounds(cl_state *cl, const int32_t pers[16], const int32_t old[16], int team_game);

/* One playerState_t: every protocol's wire fields and the four arrays [DM68 6]. */
typedef struct q3_ps {
    int32_t f[Q3_PS_SLOTS];
    int32_t stats[16], persistant[16], ammo[16], powerups[16];
} q3_ps;

/* MSG_ReadDeltaEntity after the number [DM68 6] by the entity table es: from (NULL: all
 * zero) to *to. Returns 1 when the entity was removed, 0 when present, -1 when maxFieldNum
 * is over the table. */
int q3_read_delta_entity_by(q3_bits *b, const dd_table *es, const q3_ent *from, q3_ent *to,
                            int number);
/* MSG_ReadDeltaPlayerstate [DM68 6] by the player-state table ps; -1 when maxFieldNum is
 * over the table. */
int q3_read_delta_ps_by(q3_bits *b, const dd_table *ps, const q3_ps *from, q3_ps *to);
/* The same by protocol 68's tables. */
int q3_read_delta_entity(q3_bits *b, const q3_ent *from, q3_ent *to, int number);
int q3_read_delta_ps(q3_bits *b, const q3_ps *from, q3_ps *to);

/* ---- What changes with the protocol, as data (q3_proto.c) ----
 *
 * [QL] Quake Live, from two public readers that agree on every table used here:
 *   WolfcamQL (brugal/wolfcamql) code/qcommon/msg.c entityStateFieldsQldm73/90/91 and
 *   playerStateFieldsQldm90/91 (73 sends playerStateFieldsQ3), code/game/bg_public.h
 *   (CS_MODELS 17, CS_PLAYERS 529, entity_event_t), code/game/bg_misc.c (STAT_WEAPONS 3,
 *   STAT_ARMOR 4, bg_itemlist: item_armor_jacket at 4), code/cgame/cg_servercmds.c
 *   CG_ParseScores (18 numbers per client, clientNum and score first, against 14);
 *   UberDemoTools (mightycow/uberdemotools) UDT_DLL/src/message.cpp EntityStateFields73/90/
 *   91 and PlayerStateFields73/90/91, look_up_tables.cpp (config string FirstPlayer 529,
 *   EntityEvents_73p, Items_73, PowerUps_3_90), and its RealReadString (protocol 91 keeps
 *   bytes over 127). Their svc numbering, gamestate, snapshot and array layouts are 68's. */
typedef struct q3_proto {
    int16_t protocol;          /* the serverinfo's protocol this row serves */
    const dd_table *es, *ps;   /* entityState_t / playerState_t fields in wire order */
    uint16_t cs_models, cs_sounds, cs_players; /* configstring bases */
    uint8_t stat_weapons, stat_armor;          /* playerState stats[] slots */
    /* entity_event_t values (CG_EntityEvent); missile miss / miss metal follow missile hit */
    uint8_t ev_general_sound, ev_global_sound, ev_missile_hit, ev_railtrail, ev_obituary;
    /* powerup_t of quad and the red and blue flags; 0: not known for this protocol */
    uint8_t pw_quad, pw_redflag, pw_blueflag;
    uint8_t high_ascii;        /* strings keep bytes over 127 */
    uint8_t score_fields;      /* numbers per client in a "scores" command */
    /* bg_itemlist index -> baseq3 1.32's index (whose models q3.c registers), 0 none;
     * NULL: the same list */
    const uint8_t *items;
    uint8_t num_items;
    /* CS_LEVEL_START_TIME, the server time the match clock started: 21 (ioquake3
     * bg_public.h), 13 in Quake Live (UberDemoTools' CS_LEVEL_START_TIME_73p) */
    uint8_t cs_level_start;
    /* CS_FLAGSTATUS, the CTF flags' states: 23 (bg_public.h), 658 in Quake Live
     * (UberDemoTools' CS_FLAGSTATUS_73p); and the g_gametype of capture the flag: GT_CTF 4,
     * 5 in Quake Live (WolfcamQL cg_main.c gametypeConfigs: ffa duel race tdm ca ctf) */
    uint16_t cs_flagstatus;
    uint8_t gt_ctf;
} q3_proto;

/* ---- Quake III 1.1x-1.27: protocols 43..48, .dm3 and .dm_48 files ----
 * [Q3OLD] UberDemoTools (mightycow/uberdemotools), the only public decoder of these:
 *   UDT_DLL/src/message.cpp EntityStateFields3/48, PlayerStateFields3/48, KnownBitMasks,
 *   ReadBits (no Huffman below protocol 66: plain bits, LSB first), ReadFloat (a bit, then
 *   32 raw bits or 13 bits less 4096), ReadDeltaEntity (a 5-bit index into KnownBitMasks,
 *   31 an explicit mask, then each masked field's value with no "zero" bit) and
 *   ReadDeltaPlayerstateDM3 (a bit a field; each array a bit, a 16-bit mask, its values);
 *   parser.cpp ParseServerMessage (no reliableAcknowledge in dm3; the cursor to the next
 *   byte after each command; svc_bad or the end of the data ends a message),
 *   ParseGamestate (svc_bad or svc_EOF ends it; no clientNum or checksumFeed after),
 *   ParseSnapshot (dm3 sends a 32-bit client command sequence before serverTime);
 *   look_up_tables.cpp and protocol_conversion.cpp (dm3's configstring indices, entity
 *   events from 47 on, ET_EVENTS 12, persistant slots; a dm_48 whose serverinfo says
 *   protocol 43 numbers its configstrings as dm3). CDP's IdTech3 reader (Entity.cs,
 *   Demo.cs, SvcGameState.cs, SvcSnapshot.cs, BitReader.cs) agrees on the masks, the tables,
 *   the float coding, the alignment and dm3's extra snapshot field. The recorder's slot is
 *   the playerState's clientNum. */
enum { Q3_OLD_NONE, Q3_OLD_DM3, Q3_OLD_48 };
#define Q3_DM3_ES 50
#define Q3_DM48_ES 51
#define Q3_DM3_PS 45
#define Q3_DM48_PS 48
extern const dd_field q3_dm3_es_fields[Q3_DM3_ES], q3_dm48_es_fields[Q3_DM48_ES];
extern const dd_field q3_dm3_ps_fields[Q3_DM3_PS], q3_dm48_ps_fields[Q3_DM48_PS];
extern const dd_table q3_dm3_es_table, q3_dm48_es_table, q3_dm3_ps_table, q3_dm48_ps_table;
/* UDT's KnownBitMasks: the changed fields (bit i of byte i / 8: table row i) of mask index
 * 0..30; index 31 sends its mask */
extern const uint8_t q3_old_masks[31][7];
/* The changed fields of an entity delta in plain bits [Q3OLD]: a 5-bit mask index, then
 * each masked field's value (q3_read_delta_entity_by reads the rest of the delta). */
void q3_old_entity_fields(q3_bits *b, const dd_table *es, q3_ent *to);
/* The fields of a playerState delta in plain bits: a bit a field, then its value (the
 * arrays follow with no bit before them: q3_read_delta_ps_by). */
void q3_old_ps_fields(q3_bits *b, const dd_table *ps, q3_ps *to);
/* dm3's entity_event_t value as 68's (protocol_conversion.cpp
 * ConvertEntityEventNumber3to68_helper), 0 for one 68 has no number for. */
int q3_dm3_event(int ev);
/* dm3's configstring index as 68's (ConfigStringIndices_3 with ConvertConfigStringIndex3to68),
 * -1 for one 68 has no slot for. */
int q3_dm3_cs(int index);
/* The row of a file of shape Q3_OLD_DM3 or Q3_OLD_48, else NULL. */
const q3_proto *q3_proto_old(int shape);

/* cg_players.c CG_SwingAngles (ioquake3, facts only): *angle turns towards destination
 * once it is more than tolerance away, by dt_ms x speed x (0.5, 1 or 2 as the gap is under
 * half the tolerance, under it, or over) degrees a millisecond, stopping there; then it is
 * kept within clamp of it. */
void q3_swing_angle(float destination, float tolerance, float clamp, float speed, float *angle,
                    uint8_t *swinging, double dt_ms);
/* CG_PlayerAngles' swing for client cn's body at cl->time: the view's yaw and pitch, the
 * legs and torso animations (toggle bit ignored), the movement direction 0..7, dead; reset
 * (a new or teleported body) aligns legs and torso with the view; velocity (NULL: at rest)
 * leans the legs into the motion. */
void q3_body_swing(cl_state *cl, int cn, float yaw, float pitch, int legs, int torso, int dir,
                   int dead, int reset, const float velocity[3]);

/* The row of a serverinfo protocol: 66..71 share 68's; 73, 90, 91 their own; NULL for
 * any other. */
const q3_proto *q3_proto_find(int protocol);
/* The row of protocol 68 (the default when the serverinfo names none). */
const q3_proto *q3_proto_68(void);
/* Quake Live's tables, for tests: 73 sends the first Q3_QL73_ES rows of q3_ql_es_fields,
 * 90 the first Q3_QL90_ES, 91 all Q3_QL91_ES. */
#define Q3_QL73_ES 53
#define Q3_QL90_ES 55
#define Q3_QL91_ES 58
#define Q3_QL90_PS 50
#define Q3_QL91_PS 58
extern const dd_field q3_ql_es_fields[Q3_QL91_ES];
extern const dd_field q3_ql90_ps_fields[Q3_QL90_PS], q3_ql91_ps_fields[Q3_QL91_PS];
extern const dd_table q3_ql73_es_table, q3_ql90_es_table, q3_ql91_es_table,
    q3_ql90_ps_table, q3_ql91_ps_table;

static inline float q3_f(int32_t v)
{
    float f;
    memcpy(&f, &v, 4);
    return f;
}

/* ---- The decoder state ---- */

/* The snapshot ring and the entity pool [DM68 10] are a store of the delta engine
 * (delta.h): an entity that did not change keeps its pool entry, so a frame costs what
 * changed. An entry older than Q3_POOL / 2 is copied forward when a new frame keeps it; a
 * frame is usable as a delta source while none of its entries can have been overwritten
 * (dd_usable). Each ring slot's playerState is in q3_state.ps_ring. */
#define Q3_POOL 2048
#define Q3_REFS (Q3_PACKET_BACKUP * Q3_MAX_SNAP_ENTITIES)
typedef DD_STORE(q3_ent, Q3_POOL, Q3_REFS, Q3_PACKET_BACKUP) q3_store;

/* What q3.c ps_stats reads (no padding: compared with memcmp). */
typedef struct q3_stats_key {
    int32_t pm, weapon, score, team;
    int64_t time0;
    int32_t stat_armor, stat_weapons;
    int32_t stats[16], ammo[16], powerups[16];
} q3_stats_key;

/* The whole decoder state: plain data, no pointers; copy it with memcpy (about 680 KB, most
 * of it the baselines and the pool). */
typedef struct q3_state {
    uint8_t old;          /* Q3_OLD_DM3 or Q3_OLD_48: the file's shape, from its first block
                           * (q3_init); Q3_OLD_NONE for 66 on */
    uint8_t cs_dm3;       /* configstrings in dm3's numbering (q3_dm3_cs) */
    uint8_t have_level;   /* a gamestate was decoded */
    uint8_t have_time0;
    uint8_t rebase;       /* a later gamestate: the next frame continues the demo clock */
    uint8_t ended;        /* the -1/-1 end block was read */
    uint8_t resynced;     /* blocks were skipped (damage): until a snapshot decodes whole, a
                           * delta from a lost snapshot is taken from the newest one kept */
    uint64_t pos;         /* file offset of the next block */
    uint32_t block;       /* blocks decoded */
    int32_t protocol;     /* 0 until the gamestate's serverinfo */
    int32_t seq;          /* sequence of the current block */
    int32_t client_num;   /* the recorder's slot (gamestate) */
    int32_t cmd_seq;      /* the newest reliable server command seen */
    int64_t time0;        /* serverTime of the first snapshot; after a later gamestate, of
                           * the demo clock's 0 (64 bits: past 24 days of clock the int32
                           * wrapped and the next level froze; a review) */
    int32_t level_start;  /* CS_LEVEL_START_TIME: serverTime the match clock reads 0:00 */
    uint8_t have_level_start;
    int32_t last_eflags;  /* the recorder's eFlags in the last frame (teleport toggles) */
    /* the view's last playerState eFlags, client and snapFlags (have_view: set), against
     * which the next one cuts (CG_SetNextSnap); snap_flags: the snapshot being shown */
    int32_t view_eflags, view_client, view_snapflags, snap_flags;
    uint8_t have_view;
    /* the view's last playerState damageEvent, and the kick of the last damage (degrees of
     * pitch and roll, from demo time dmg_time: cg_view.c CG_DamageFeedback) */
    int32_t view_damage_event;
    float dmg_pitch, dmg_roll;
    double dmg_time;
    /* the weapons' and missiles' loop sounds' slots (weapon_loop), for the level (cl
     * level_count) they were interned in; 0 not yet */
    uint32_t loop_level;
    uint16_t loop_slot[3][16];
    /* each client's rail colour (its userinfo's "c1", cg_players.c CG_ColorFromString) */
    uint8_t rail_rgb[Q3_MAX_CLIENTS][3];  /* each client's colour 1 (c1): the rail's core */
    uint8_t rail2_rgb[Q3_MAX_CLIENTS][3]; /* and colour 2 (c2): its rings */
    int32_t shown_time;   /* serverTime of the snapshot whose entities the client got last
                           * (dd_shown): the time its trajectories were evaluated at */
    int32_t shown_cn;     /* the client whose body its playerState stood for */
    double time;          /* demo time of the newest frame */
    uint32_t frames;      /* client frames emitted (snapshots of a new server time) */
    int32_t bcs_index;    /* the big configstring being assembled (bcs0/1/2), -1 none */
    uint32_t bcs_len;
    char bcs[Q3_BIG_INFO_STRING];
    /* entity events (cg_event.c CG_CheckEvents): each entity's event value in the last
     * frame shown (eType for a temporary event entity, else its event), and whether it was
     * in that frame (bit per entity) */
    uint16_t ev_last[Q3_MAX_GENTITIES];
    /* the serverTime of the last snapshot shown with the entity, set when it leaves: one
     * back within EVENT_VALID_MSEC keeps its last event (cg_snapshot.c CG_ResetEntity) */
    int32_t ev_left_ms[Q3_MAX_GENTITIES];
    /* each entity's EF_TELEPORT_BIT as last shown (bit per entity): a toggle against it
     * snaps the entity (CG_SetNextSnap compares with cent->currentState) */
    uint8_t tele_shown[Q3_MAX_GENTITIES / 8];
    uint8_t ev_present[Q3_MAX_GENTITIES / 8];
    uint8_t was_intermission;
    /* ps_stats' last result and everything it was made from (the HUD's numbers change
     * seldom; a server frame sent in several snapshots repeats them) */
    q3_stats_key stats_key;
    uint8_t stats_cached;
    cl_stats stats_made;
    uint8_t team_game;        /* the serverinfo's g_gametype is a team game (GT_TEAM, 3, on) */
    uint8_t gametype;         /* g_gametype */
    /* the stats[] numbered as the missionpack's (bg_public.h statIndex_t with
     * STAT_PERSISTANT_POWERUP at 2: STAT_WEAPONS 3, STAT_ARMOR 4, STAT_DEAD_YAW 5): by
     * OpenArena's game (CS_GAME_VERSION "baseoa-1": realdata's demo088 and its recordings
     * hold weapon masks, 238, 78, 6 at a spawn, in baseq3's STAT_ARMOR) and by a game in
     * the folder missionpack (fs_game: Team Arena's, OpenArena's missionpack, realdata's
     * boomtest.dm_68 with its mask 6); else the protocol's row (q3_proto) */
    uint8_t mp_version, mp_fs_game;
    /* 1000 / sv_fps of CS_SYSTEMINFO, 0 when it holds none: an unlagged game (OpenArena's
     * g_main.c registers sv_fps CVAR_SYSTEMINFO "so the client's sv_fps will be
     * automagically set"; ioquake3's server keeps it to itself), whose cgame draws missiles
     * ahead of the clock (q3.c missile_lead) */
    uint16_t unlagged_ms;
    float plum_z; /* the last score plum's height (cg_effects.c CG_ScorePlum's lastPos) */
    uint8_t time_warned, frag_warned; /* cg.timelimitWarnings, cg.fraglimitWarnings */
    int32_t timelimit, fraglimit;     /* the serverinfo's, minutes and frags; 0 none */
    uint8_t have_pers;        /* pers holds the recorder's last persistant[] */
    int32_t pers_client;      /* whose they were */
    int32_t pers[16];
    /* the recorder's playerState events in the last playerState (cg_playerstate.c
     * CG_CheckPlayerstateEvents): whose, its eventSequence, events[2], externalEvent */
    int32_t warmup;           /* CS_WARMUP: the server time the match starts, -1 waiting
                               * for players, 0 none (cg.warmup) */
    int32_t warmup_count;     /* the last whole second of the countdown (cg.warmupCount) */
    /* cg_event.c CG_AddBufferedSound: announcer sounds (an index of q3_sound.c's list) that
     * play one after another, 750 ms apart (CG_PlayBufferedSounds); the recorder's flags */
    uint8_t sound_buffer[20], sound_in, sound_out;
    int32_t sound_time;       /* server time the next buffered sound may start after */
    uint8_t ps_flags;         /* the recorder holds the red (1) or blue (2) flag */
    uint8_t have_ps_events;
    int32_t ps_ev_client, ps_ev_seq, ps_ev[2], ps_ev_ext;
    q3_store store;
    q3_ps ps_ring[Q3_PACKET_BACKUP]; /* the playerState of each ring slot's snapshot */
    uint16_t baselines_hw; /* baselines from here up are zero: a gamestate clears those below
                            * (a fresh state's 1024 are zero already: 66 page faults saved) */
    q3_ent baselines[Q3_MAX_GENTITIES];
} q3_state;

/* The rest of CG_CheckLocalSounds: the announcer's time limit (5 minutes, 1 minute, sudden
 * death) and frag limit (3, 2, 1 frags left) warnings, each once until the flags reset. */
void q3_limit_sounds(cl_state *cl, q3_state *s);
/* CS_WARMUP (5 in baseq3 and OpenArena) changed to value: cg_servercmds.c CG_ParseWarmup
 * ("prepare" when a countdown starts; announce 0 for the gamestate's, CG_SetConfigValues). */
void q3_warmup_cs(cl_state *cl, q3_state *s, const char *value, int announce);
/* cg_draw.c CG_DrawWarmup at server time now: "three", "two", "one" as the countdown's whole
 * seconds reach 2, 1, 0, and "Starts in: N" as a centre print each second. */
void q3_warmup_tick(cl_state *cl, q3_state *s, int32_t now);
/* cg_servercmds.c CG_MapRestart: "fight" and a centre print when no warmup is pending. */
void q3_map_restart(cl_state *cl, q3_state *s);
/* cg_event.c EV_GLOBAL_TEAM_SOUND (global_team_sound_t parm): the CTF announcer, queued. */
void q3_team_sound(cl_state *cl, q3_state *s, int parm);
/* cg_event.c CG_PlayBufferedSounds at server time now. */
void q3_buffered_sounds(cl_state *cl, q3_state *s, int32_t now);

#endif
