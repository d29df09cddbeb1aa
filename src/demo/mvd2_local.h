/* mvd2_local.h: Q2PRO / GTV multi-view demo (.mvd2) constants and the decoder state, shared
 * by mvd2.c and its tests (which build protocol bytes by these names).
 *
 * Sources, named where each fact is used in mvd2.c (read for facts; no code taken):
 *   [Q2P-H]      skullernet/q2pro inc/common/protocol.h: MVD_MAGIC, mvd_ops_t, mvd_flags_t
 *                (MVF_*), PPS_* bits, PROTOCOL_VERSION_MVD*, SVCMD_BITS, MAX_MSGLEN
 *   [Q2P-PARSE]  skullernet/q2pro src/server/mvd/parse.c: MVD_ParseMessage and the parsers
 *                it calls (serverdata, configstring, frame, players, entities, unicast,
 *                multicast, sound, print), MVD_PlayerToEntityStates
 *   [Q2P-CLIENT] skullernet/q2pro src/server/mvd/client.c: demo_read_first,
 *                demo_load_message (the file's framing), demo_emit_snapshot
 *   [Q2P-MSG]    skullernet/q2pro src/common/msg.c: MSG_ParseDeltaPlayerstate_Packet,
 *                MSG_ParseDeltaEntity (the same wire as protocol 34's entity delta)
 *   [Q2P-UTIL]   skullernet/q2pro src/common/utils.c: Com_PlayerToEntityState,
 *                Com_ParseTimespec (ten frames a second)
 *   [Q2P-EXT]    the extended-limits streams (MVF_EXTLIMITS, MVF_EXTLIMITS_2), facts and
 *                revisions in /work/notes/mvd2ext/FINDINGS.md: skullernet/q2pro
 *                src/server/mvd/parse.c (00103c3e) MVD_ParseServerData, MVD_ParseSound,
 *                MVD_ParsePacketEntities; res2k/q2pro src/server/mvd/parse.c (177eb0e4)
 *                MVD_ParsePacketPlayers' PPS_MOREBITS; q2pro src/common/msg.c (EXTENSIONS_2
 *                era) MSG_ParseDeltaPlayerstate_Packet and its writer; src/server/mvd.c
 *                emit_gamestate; res2k/q2pro inc/common/protocol.h (07c14d2f) MAX_MSGLEN */
#ifndef QD_MVD2_LOCAL_H
#define QD_MVD2_LOCAL_H

#include <stdint.h>

#include "q2_local.h"

/* ---- The file [Q2P-CLIENT demo_read_first, demo_load_message] ----
 * "MVD2", then blocks of [uint16 length][length bytes of messages]; length 0 ends the
 * demo; a length over MAX_MSGLEN is an invalid file. */
#define MVD2_MAGIC "MVD2"
#define MVD2_MAX_MSGLEN 0x8000 /* MAX_MSGLEN [Q2P-H] */
#define MVD2_MAX_MSGLEN_EXT 0x10000 /* r2894's, with the extended limits: any uint16 [Q2P-EXT] */

/* ---- mvd_ops_t [Q2P-H]: a message id is op | extrabits << SVCMD_BITS ---- */
#define MVD2_BAD 0
#define MVD2_NOP 1
#define MVD2_DISCONNECT 2   /* reserved */
#define MVD2_RECONNECT 3    /* reserved */
#define MVD2_SERVERDATA 4
#define MVD2_CONFIGSTRING 5
#define MVD2_FRAME 6
#define MVD2_FRAME_NODELTA 7 /* reserved */
#define MVD2_UNICAST 8
#define MVD2_UNICAST_R 9
#define MVD2_MULTICAST_ALL 10
#define MVD2_MULTICAST_PHS 11
#define MVD2_MULTICAST_PVS 12
#define MVD2_MULTICAST_ALL_R 13
#define MVD2_MULTICAST_PHS_R 14
#define MVD2_MULTICAST_PVS_R 15
#define MVD2_SOUND 16
#define MVD2_PRINT 17
#define MVD2_STUFFTEXT 18   /* reserved */
#define MVD2_OP_COUNT 19
#define MVD2_SVCMD_BITS 5
#define MVD2_SVCMD_MASK ((1 << MVD2_SVCMD_BITS) - 1)

/* ---- mvd_serverdata [Q2P-H, Q2P-PARSE MVD_ParseServerData] ---- */
#define MVD2_PROTOCOL 37             /* PROTOCOL_VERSION_MVD */
#define MVD2_VERSION_MINIMUM 2009    /* r168 */
#define MVD2_VERSION_DEFAULT 2010    /* r177: the flags are the serverdata id's extrabits */
#define MVD2_VERSION_EXTLIMITS 2011  /* MVF_EXTLIMITS may be set */
#define MVD2_VERSION_EXTLIMITS_2 2012 /* the flags are a word after the version */
#define MVD2_VERSION_PLAYERFOG 2013
#define MVD2_VERSION_RERELEASE 3038  /* the Quake II rerelease's game */

/* mvd_flags_t [Q2P-H] */
#define MVD2_MVF_NOMSGS 1u     /* prints are not routed to a followed player */
#define MVD2_MVF_SINGLEPOV 2u  /* one point of view */
#define MVD2_MVF_EXTLIMITS 4u  /* from 2011: Q2PRO's extended limits (long solids, 16-bit
                                * angles, the extended configstrings, 8192 entities) */
#define MVD2_MVF_EXTLIMITS_2 8u /* from 2012, with EXTLIMITS: int23 coordinates, blend masks,
                                 * 64 stats; from 2013 also PPS_MOREBITS [Q2P-EXT] */

#define MVD2_MAX_CLIENTS 256     /* MAX_CLIENTS */
#define MVD2_CLIENTNUM_NONE 255  /* ends the player list [Q2P-H CLIENTNUM_NONE] */

/* ---- packetized player state bits [Q2P-H PPS_*] ---- */
#define MVD2_PPS_M_TYPE (1u << 0)
#define MVD2_PPS_M_ORIGIN (1u << 1)
#define MVD2_PPS_M_ORIGIN2 (1u << 2)
#define MVD2_PPS_VIEWOFFSET (1u << 3)
#define MVD2_PPS_VIEWANGLES (1u << 4)
#define MVD2_PPS_VIEWANGLE2 (1u << 5)
#define MVD2_PPS_KICKANGLES (1u << 6)
#define MVD2_PPS_BLEND (1u << 7)
#define MVD2_PPS_FOV (1u << 8)
#define MVD2_PPS_WEAPONINDEX (1u << 9)
#define MVD2_PPS_WEAPONFRAME (1u << 10)
#define MVD2_PPS_GUNOFFSET (1u << 11)
#define MVD2_PPS_GUNANGLES (1u << 12)
#define MVD2_PPS_RDFLAGS (1u << 13)
#define MVD2_PPS_STATS (1u << 14)
/* Bit 15 is PPS_REMOVE in every stream but the 2013 EXTLIMITS_2 ones, where it is
 * PPS_MOREBITS: a third byte, bits 16..23, follows, and PPS_REMOVE is bit 16 [Q2P-EXT]. The
 * decoder turns the old bit 15 into MVD2_PPS_REMOVE. */
#define MVD2_PPS_MOREBITS (1u << 15)
#define MVD2_PPS_REMOVE (1u << 16)
#define MVD2_PPS_FOG (1u << 17) /* Q2PRO's player fog, after the blend */

#define MVD2_FRAME_TIME 0.1 /* ten frames a second [Q2P-UTIL Com_ParseTimespec] */

/* The whole decoder state: plain data, no pointers; copy it with memcpy. The players and
 * entities are the stream's current ones: each delta is against the last state sent for
 * that player or entity, kept when it leaves [Q2P-PARSE]. */
typedef struct mvd2_state {
    uint64_t pos;          /* file offset of the next block */
    uint32_t block;        /* blocks decoded */
    int32_t protocol;      /* 0 until mvd_serverdata */
    int32_t version;       /* the minor version */
    uint32_t flags;        /* MVF_* */
    uint8_t wire;          /* what the version and flags switch on: mvd2.c wires[] */
    uint8_t pad2;
    uint16_t max_edicts;   /* entity numbers below this (1024, or 8192 extended) */
    uint16_t inuse_hi;     /* the highest entity number in use since the level began */
    uint16_t ents_hi;      /* the highest entity number read since the level began: every
                            * ents[] past it is zero (level_reset and mvd2_clear clear no
                            * more than that) */
    int32_t servercount;
    int32_t clientnum;     /* the server's own MVD observer (the "dummy"), -1 none */
    int32_t max_clients;
    int32_t view;          /* the player slot shown as the recorded view, -1 none */
    uint8_t have_level;    /* mvd_serverdata seen */
    uint8_t in_frame;      /* cl_frame_begin called, cl_frame_end not yet */
    uint8_t ended;         /* the zero-length end block was read */
    uint8_t pad;
    double time;           /* demo time of the newest frame */
    uint32_t frames;       /* mvd_frame messages decoded (the serverdata's included) */
    uint32_t level_frames; /* frames since the level's serverdata, lost ones counted */
    uint32_t block_frames; /* frames decoded in the block being parsed */
    uint32_t lost_frames;  /* of them, in the damaged block before the damage */
    double time_base;      /* demo time of the level's first frame */
    uint64_t block_pos;    /* file offset of the block being parsed */
    uint64_t lost_pos;     /* after a resume: where the damaged block began, else 0 */
    uint32_t block_cap;    /* the file's largest block (max_block), once known, else 0 */
    uint32_t player_inuse[MVD2_MAX_CLIENTS / 32];
    uint32_t ent_inuse[Q2_MAX_EDICTS_EXT / 32];
    /* entities whose client state was their look at the last frame, found equal, and whose
     * look has not changed since: no delta, no configstring, not a body (mvd2.c
     * emit_entities keeps them without making their look again) */
    uint32_t ent_stable[Q2_MAX_EDICTS_EXT / 32];
    /* the newest frame's entities: brought into use, removed (of those in use), read with
     * an event (cleared when the next frame begins, to inuse_hi) */
    uint32_t ent_new[Q2_MAX_EDICTS_EXT / 32];
    uint32_t ent_gone[Q2_MAX_EDICTS_EXT / 32];
    uint32_t ent_event[Q2_MAX_EDICTS_EXT / 32];
    q2_names names;
    q2_pstate players[MVD2_MAX_CLIENTS];
    q2_ent ents[Q2_MAX_EDICTS_EXT];
} mvd2_state;

#endif
