/* q2_local.h: Quake II protocol constants and the .dm2 decoder state, shared by q2.c and its
 * tests (which build protocol bytes by these names).
 *
 * Sources, named where each fact is used in q2.c:
 *   [DM2]    /work/shared/specs/dm2-quake2-v1.0.4.txt (Uwe Girlich, protocols 26..34)
 *   [Q2CL]   id Software Quake II 3.21 client/cl_ents.c, cl_parse.c, cl_tent.c (how the
 *            reference client reads the messages; GPL, read through the search tool)
 *   [Q2SV]   id Software Quake II 3.21 server/sv_ccmds.c SV_ServerRecord_f, sv_ents.c
 *            SV_RecordDemoMessage (how server-side recordings are written)
 *   [Q2PRO]  skullernet/q2pro inc/common/protocol.h (numbers of later protocols)
 *   [LMPC]   Uwe Girlich's LMPC (GPL; Doom-Utils/lmpc src/udm2.c): its .dm2 block walk,
 *            which notes that 3.00 ("q2test") files lack the end block
 *   [R1Q2]   R1Q2 35 and Q2PRO 36 as their clients read them: skullernet/q2pro
 *            src/client/parse.c (CL_ParseServerData's tail, CL_ParseFrame's packed header,
 *            CL_ParseZPacket: raw deflate, CL_ParseGamestate), src/common/msg.c
 *            (MSG_ParseDeltaPlayerstate_Enhanced's EPS_* bits, MSG_ParseDeltaEntity: long
 *            solid, U_ANGLE16 a short per angle bit); res2k/q2proto
 *            q2proto_proto_r1q2.c and q2proto_proto_q2pro.c (the same, and R1Q2's
 *            zdownload); tastyspleen/r1q2-archive client/cl_parse.c. Current R1Q2 and
 *            Q2PRO clients write their demos as 34 (or Q2PRO's extended 3434..3436); 35
 *            and 36 appear in the raw dumps older builds made.
 *   [Q2X]    Q2PRO's extended-limits demos 3434..3436 (/work/notes/q2ext/FINDINGS.md):
 *            skullernet/q2pro src/client/demo.c CL_Record_f (3434 for an extended game),
 *            src/client/parse.c CL_ParseServerData / CL_ParseFrame /
 *            CL_ParseMuzzleFlashPacket / CL_ParseStartSoundPacket, src/common/msg.c
 *            MSG_ParseEntityBits, MSG_ParseDeltaEntity, MSG_ReadDeltaInt23, MSG_ReadStats,
 *            MSG_ReadBlend, MSG_ReadFog, inc/shared/shared.h (MAX_EDICTS, MAX_MODELS 8192,
 *            CS_*); res2k/q2proto src/q2proto_proto_q2pro_extdemo.c (the 3434/3435/3436
 *            serverdata, frame and player state), q2proto_proto_q2pro.c (entity delta),
 *            q2proto_internal_io.h (q2pro_i23, var_u64), q2proto_internal_protocol.h. */
#ifndef QD_Q2_LOCAL_H
#define QD_Q2_LOCAL_H

#include <stdint.h>

#include "../client/cl.h"
#include "../common/err.h"
#include "../common/rd.h"
#include "delta.h"

/* ---- Server messages [DM2] 3.1..3.21 ---- */
#define Q2_SVC_BAD 0
#define Q2_SVC_MUZZLEFLASH 1
#define Q2_SVC_MUZZLEFLASH2 2
#define Q2_SVC_TEMP_ENTITY 3
#define Q2_SVC_LAYOUT 4
#define Q2_SVC_INVENTORY 5
#define Q2_SVC_NOP 6
#define Q2_SVC_DISCONNECT 7
#define Q2_SVC_RECONNECT 8
#define Q2_SVC_SOUND 9
#define Q2_SVC_PRINT 10
#define Q2_SVC_STUFFTEXT 11
#define Q2_SVC_SERVERDATA 12
#define Q2_SVC_CONFIGSTRING 13
#define Q2_SVC_SPAWNBASELINE 14
#define Q2_SVC_CENTERPRINT 15
#define Q2_SVC_DOWNLOAD 16
#define Q2_SVC_PLAYERINFO 17
#define Q2_SVC_PACKETENTITIES 18
#define Q2_SVC_DELTAPACKETENTITIES 19
#define Q2_SVC_FRAME 20
#define Q2_SVC_COUNT 21

/* ---- Protocols [DM2] 3.13 table 3, [Q2PRO] ---- */
/* 3.00, the test release: recognised, not decoded. [DM2] 1.2 says only that 3.05 reordered
 * its message ids (so that muzzleflash..inventory became 1..5) and changed svc_spawnbaseline;
 * the draft that listed 3.00's ids (0.0.2) was never published ([DM2] 4), and its blocks
 * lack the end marker ([LMPC] isDM2bin: "not necessary in q2test"). */
#define Q2_PROTOCOL_300 25
#define Q2_PROTOCOL_MIN 26 /* 3.05, the first the spec covers */
#define Q2_PROTOCOL_MAX 34 /* 3.18 .. 3.20 */
#define Q2_PROTOCOL_R1Q2 35
#define Q2_PROTOCOL_Q2PRO 36
#define Q2_PROTOCOL_Q2PRO_MVD 37
#define Q2_PROTOCOL_KMQ2 56 /* KMQuake2 (realdata/dm2 mission64 demo1) [KMQ2] */
/* KMQuake2's protocol 56 [KMQ2] (m-x-d/KMQuake2: qcommon/qcommon.h, game/q_shared.h,
 * qcommon/common.c MSG_ReadCoord, client/cl_ents.c CL_ParseDelta and CL_ParsePlayerstate,
 * client/cl_parse.c, client/cl_tempent.c; facts only): id's 34 with 24-bit coordinates
 * (a byte of bits 16..23, then a word of bits 0..15), 16-bit model, sound and gun indices,
 * a 32-bit player-state flags word, 256 stats under a 32-bit mask and larger limits. */
#define Q2_KMQ2_CUSTOM_MODEL 8191 /* MAX_MODELS - 1: the player's own model (id: 255) */
#define Q2_MAX_SOUNDS_KMQ2 8192
#define Q2_KMQ2_STATS 256         /* MAX_STATS; the mask's bit i & 31 announces stat i */
#define Q2_KMQ2_SOUND_BASE 1024   /* the client's own sounds (sound_slot) go from here: the
                                   * server's 8192 would leave the client no slot; server
                                   * sounds at or past it are not set (q2_configstring) */
#define Q2_EXT_SOUND_BASE 1792    /* the same for Q2PRO's extended map, whose 2048 sounds fill
                                   * the client's CL_MAX_SOUNDS: its own get the top 256 (a
                                   * review: none had a slot, so none was heard) */
#define Q2_SVC_FOG_KMQ2 21        /* svc_fog: 10 bytes (cl_parse.c CL_ParseFog) */
/* entity bits 28..31 (qcommon.h U_MODEL5 .. U_ALPHA) */
#define Q2_U_MODEL5_KMQ2 (1u << 28)
#define Q2_U_MODEL6_KMQ2 (1u << 29)
#define Q2_U_ATTENUAT_KMQ2 (1u << 30)
#define Q2_U_ALPHA_KMQ2 (1u << 31)
/* player-state bits 15..23 (qcommon.h PS_WEAPONSKIN .. PS_STOPSPEED): a word each but the
 * second gun's frame (a byte, read with the first's) */
#define Q2_PS_WEAPONSKIN_KMQ2 (1u << 15)
#define Q2_PS_WEAPONINDEX2_KMQ2 (1u << 16)
#define Q2_PS_WEAPONFRAME2_KMQ2 (1u << 17)
/* the bits that each send one word read past: PS_WEAPONSKIN (15), PS_WEAPONSKIN2 (18),
 * PS_MAXSPEED, PS_DUCKSPEED, PS_WATERSPEED, PS_ACCEL, PS_STOPSPEED (19..23) */
#define Q2_PS_WORDS_KMQ2 (Q2_PS_WEAPONSKIN_KMQ2 | 0x00fc0000u)
/* Q2PRO's extended-limits demos [Q2X]: the 34 layout with the extended configstring map
 * and limits; from 3435 int23 coordinates (Q2PRO_PF_EXTENSIONS_2), 3436 adds player fog */
#define Q2_PROTOCOL_Q2PRO_EXT 3434
#define Q2_PROTOCOL_Q2PRO_EXT2 3435
#define Q2_PROTOCOL_Q2PRO_EXT_FOG 3436

/* serverdata.isdemo ("attractloop") [DM2] 3.13 */
#define Q2_RECORD_NETWORK 0
#define Q2_RECORD_CLIENT 1
#define Q2_RECORD_SERVER 2
#define Q2_RECORD_RELAY 0x80

/* ---- Configstring indices [DM2] 3.14 ---- */
#define Q2_CS_NAME 0
#define Q2_CS_SKY 2 /* q_shared.h: the sky box's name */
#define Q2_CS_STATUSBAR 5 /* q_shared.h: the status bar's layout program */
#define Q2_CS_MAXCLIENTS 30
#define Q2_CS_MODELS 32
#define Q2_CS_SOUNDS 288
#define Q2_CS_IMAGES 544
#define Q2_CS_LIGHTS 800
#define Q2_CS_ITEMS 1056
#define Q2_CS_PLAYERSKINS 1312
#define Q2_CS_GENERAL 1568
#define Q2_MAX_CONFIGSTRINGS 2080

/* Where the configstring ranges start: id's map above, or Q2PRO's extended one [Q2X]
 * (shared.h CS_* under USE_PROTOCOL_EXTENSIONS: 8192 models, 2048 sounds and images). */
/* The configstring maps: q2_names.ext, q2_csmap_of */
#define Q2_CSMAP_ID 0
#define Q2_CSMAP_Q2PRO 1 /* Q2PRO's extended demos */
#define Q2_CSMAP_KMQ2 2  /* KMQuake2 [KMQ2] q_shared.h: 8192 models and sounds, 2048 images */
typedef struct q2_csmap {
    uint16_t maxclients, models, sounds, images, lights, items, playerskins, general, end;
} q2_csmap;
/* The map of q2_names.ext (Q2_CSMAP_*). */
const q2_csmap *q2_csmap_of(int map);

/* R1Q2 / Q2PRO additions [R1Q2]: the 5-bit command in each byte (35, 36) */
#define Q2_SVC_ZPACKET 21
#define Q2_SVC_ZDOWNLOAD 22
#define Q2_SVC_GAMESTATE 23     /* Q2PRO; R1Q2's svc_playerupdate */
#define Q2_SVC_SETTING 24
#define Q2_SVC_CONFIGSTRINGSTREAM 25 /* Q2PRO */
#define Q2_SVC_BASELINESTREAM 26     /* Q2PRO */
#define Q2_SVCCMD_BITS 5
#define Q2_FRAMENUM_BITS 27          /* svc_frame's word: the frame, then 5 bits of delta */
#define Q2_R1Q2_LONGSOLID 1905       /* R1Q2 minor version of the 32-bit solid */
#define Q2_Q2PRO_SHORT_ANGLES 1018   /* Q2PRO minor versions: U_ANGLE16 */
#define Q2_Q2PRO_CLIENTNUM_SHORT 1022
#define Q2_Q2PRO_EXTENDED_LIMITS 1024 /* a 16-bit protocol flags word in svc_serverdata */
#define Q2_Q2PRO_PF_EXTENSIONS (1u << 3) /* Q2PRO's extended limits: not decoded */
#define Q2_U_ANGLE16 (1u << 13)
/* Q2PRO extensions [Q2X] (msg.c MSG_ParseDeltaEntity under MSG_ES_EXTENSIONS): the entity
 * bits' fourth byte's top bits, and a fifth byte after U_MOREBITS4 (bits 32..39) */
#define Q2_U_MODEL16 (1u << 28)  /* every model index sent is a u16 */
#define Q2_U_MOREFX8 (1u << 29)  /* more effects: 8, 16 (with U_MOREFX16) or 32 bits */
#define Q2_U_ALPHA (1u << 30)    /* a byte, alpha x 255 */
#define Q2_U_MOREBITS4 (1u << 31)
#define Q2_U5_SCALE (1u << 0)    /* bit 32: a byte, scale x 16 */
#define Q2_U5_MOREFX16 (1u << 1) /* bit 33 */
#define Q2_XSOUND_VOLUME (1u << 14) /* the extended sound word: a loop volume byte follows */
#define Q2_XSOUND_ATTENUATION (1u << 15) /* a loop attenuation byte follows */
#define Q2_PS_MOREBITS (1u << 15) /* 3436: one more flags byte (bits 16..23) */
#define Q2_PS_FOG (1u << 16)      /* 3436: player fog, after the blend */
#define Q2_SND_INDEX16 (1u << 5)  /* extended: the sound index is a u16 */
/* How an entity delta is laid out, Q2PRO's msgEsFlags_t as its readers use them [R1Q2], [Q2X]
 * (msg.c MSG_ParseEntityBits, MSG_ParseDeltaEntity): q2.c picks them by protocol, mvd2.c by
 * the MVD flags. None: 34's delta (a 16-bit solid, byte angles). */
#define Q2_ES_LONGSOLID (1u << 0)   /* U_SOLID: 32 bits */
#define Q2_ES_SHORTANGLES (1u << 1) /* U_ANGLE16: a short per angle */
#define Q2_ES_EXT (1u << 2)  /* MSG_ES_EXTENSIONS: the fifth bits byte, U_MODEL16, the sound
                              * word, more effects, alpha, scale */
#define Q2_ES_EXT2 (1u << 3) /* MSG_ES_EXTENSIONS_2: int23 origins and old origins */
#define Q2_ES_KMQ2 (1u << 4) /* KMQuake2 [KMQ2]: read by q2.c kmq2_delta alone */
#define Q2_ES_KMQ2_ANGLE16 (1u << 5) /* with it: later builds' 16-bit angles (common.c
                                      * MSG_WriteDeltaEntity), under the same number */
#define Q2_ES_EXTENDED (Q2_ES_LONGSOLID | Q2_ES_SHORTANGLES | Q2_ES_EXT) /* Q2PRO's extended
                                                                         * limits */
#define Q2_GUNINDEX_BITS 13       /* extended gunindex: the model; the top 3 bits its skin */
#define Q2_ENTITYNUM_BITS 13      /* extended svc_muzzleflash2: the weapon's bits 8..10 above */
/* EPS_* extra player-state bits: 4 in svc_frame's flags byte, 3 in its command byte */
#define Q2_EPS_GUNOFFSET (1u << 0)
#define Q2_EPS_GUNANGLES (1u << 1)
#define Q2_EPS_M_VELOCITY2 (1u << 2)
#define Q2_EPS_M_ORIGIN2 (1u << 3)
#define Q2_EPS_VIEWANGLE2 (1u << 4)
#define Q2_EPS_STATS (1u << 5)
#define Q2_EPS_CLIENTNUM (1u << 6)
#define Q2_MAX_ZPACKET 0x10000 /* inflated bytes of one svc_zpacket (Q2PRO: 0x8000) */

/* ---- Entity delta bits [DM2] 3.15 (U_* of id's qcommon.h) ---- */
#define Q2_U_ORIGIN1 (1u << 0)
#define Q2_U_ORIGIN2 (1u << 1)
#define Q2_U_ANGLE2 (1u << 2)
#define Q2_U_ANGLE3 (1u << 3)
#define Q2_U_FRAME8 (1u << 4)
#define Q2_U_EVENT (1u << 5)
#define Q2_U_REMOVE (1u << 6)
#define Q2_U_MOREBITS1 (1u << 7)
#define Q2_U_NUMBER16 (1u << 8)
#define Q2_U_ORIGIN3 (1u << 9)
#define Q2_U_ANGLE1 (1u << 10)
#define Q2_U_MODEL (1u << 11)
#define Q2_U_RENDERFX8 (1u << 12)
#define Q2_U_EFFECTS8 (1u << 14)
#define Q2_U_MOREBITS2 (1u << 15)
#define Q2_U_SKIN8 (1u << 16)
#define Q2_U_FRAME16 (1u << 17)
#define Q2_U_RENDERFX16 (1u << 18)
#define Q2_U_EFFECTS16 (1u << 19)
#define Q2_U_MODEL2 (1u << 20)
#define Q2_U_MODEL3 (1u << 21)
#define Q2_U_MODEL4 (1u << 22)
#define Q2_U_MOREBITS3 (1u << 23)
#define Q2_U_OLDORIGIN (1u << 24)
#define Q2_U_SKIN16 (1u << 25)
#define Q2_U_SOUND (1u << 26)
#define Q2_U_SOLID (1u << 27)

/* ---- Player state bits [DM2] 3.18 (PS_* of id's qcommon.h) ---- */
#define Q2_PS_M_TYPE (1u << 0)
#define Q2_PS_M_ORIGIN (1u << 1)
#define Q2_PS_M_VELOCITY (1u << 2)
#define Q2_PS_M_TIME (1u << 3)
#define Q2_PS_M_FLAGS (1u << 4)
#define Q2_PS_M_GRAVITY (1u << 5)
#define Q2_PS_M_DELTA_ANGLES (1u << 6)
#define Q2_PS_VIEWOFFSET (1u << 7)
#define Q2_PS_VIEWANGLES (1u << 8)
#define Q2_PS_KICKANGLES (1u << 9)
#define Q2_PS_BLEND (1u << 10)
#define Q2_PS_FOV (1u << 11)
#define Q2_PS_WEAPONINDEX (1u << 12)
#define Q2_PS_WEAPONFRAME (1u << 13)
#define Q2_PS_RDFLAGS (1u << 14)

#define Q2_PMF_TIME_TELEPORT 32 /* pm_flags: the player just teleported [Q2CL q_shared.h]; the
                                 * same bit in Q2PRO's 16-bit extended pm_flags [Q2X] */

/* sound flags [DM2] 3.10 */
#define Q2_SND_VOLUME (1u << 0)
#define Q2_SND_ATTENUATION (1u << 1)
#define Q2_SND_POS (1u << 2)
#define Q2_SND_ENT (1u << 3)
#define Q2_SND_OFFSET (1u << 4)

/* entity events [DM2] 3.15; EV_OTHER_TELEPORT is 3.20's [Q2CL q_shared.h] */
#define Q2_EV_PLAYER_TELEPORT 6
#define Q2_EV_OTHER_TELEPORT 7

/* player_state_t.stats slots: STAT_* of id's GPL Quake II 3.21 game/q_shared.h (facts only) */
#define Q2_STAT_HEALTH_ICON 0
#define Q2_STAT_HEALTH 1
#define Q2_STAT_AMMO_ICON 2
#define Q2_STAT_AMMO 3
#define Q2_STAT_ARMOR_ICON 4
#define Q2_STAT_ARMOR 5
#define Q2_STAT_PICKUP_STRING 8
#define Q2_STAT_TIMER_ICON 9
#define Q2_STAT_TIMER 10 /* seconds left of the powerup shown by STAT_TIMER_ICON */
#define Q2_STAT_FRAGS 14 /* also [DM2] 3.18 */
#define Q2_STAT_SPECTATOR 17

/* pmtype_t [q_shared.h] */
#define Q2_PM_NORMAL 0
#define Q2_PM_SPECTATOR 1
#define Q2_PM_DEAD 2
#define Q2_PM_GIB 3
#define Q2_PM_FREEZE 4 /* intermission */

/* svc_muzzleflash value: MZ_SILENCED is or'ed into the weapon number [q_shared.h] */
#define Q2_MZ_SILENCED 128
#define Q2_RF_FULLBRIGHT 8 /* entity_state_t.renderfx RF_* [q_shared.h] */
#define Q2_RF_TRANSLUCENT 32
#define Q2_RF_FRAMELERP 64
#define Q2_RF_BEAM 128
#define Q2_RF_SHELL_RED 1024
#define Q2_RF_SHELL_BLUE 4096
/* modelindex 255 is "the client's own model" [Q2CL cl_ents.c CL_AddPacketEntities: the
 * clientinfo of skinnum & 255]: client c's body, players/M/tris.md2 of its player-skin
 * configstring, goes in model slot Q2_PLAYER_MODEL_SLOT + c, its skin players/M/S.pcx in
 * that slot + CL_SKIN_SLOTS and its weapon players/M/weapon.md2 (modelindex2 255) in slot
 * Q2_PLAYER_WEAPON_SLOT + c; clients up to CL_MAX_PLAYERS. */
#define Q2_CUSTOM_MODEL 255
#define Q2_PLAYER_MODEL_SLOT 256
#define Q2_PLAYER_WEAPON_SLOT (Q2_PLAYER_MODEL_SLOT + CL_SKIN_SLOTS + CL_MAX_PLAYERS)
/* The view weapons (vwep): CS_MODELS names "#w_x.md2" are, in index order, weapons 1..
 * Q2_MAX_VWEPS of every player (0 is weapon.md2) [Q2CL cl_view.c CL_PrepRefresh]; a body's
 * skinnum >> 8 picks one. Client c's weapon k >= 1, players/M/w_x.md2, is in model slot
 * Q2_PLAYER_VWEP_SLOT + c * Q2_MAX_VWEPS + k - 1. */
#define Q2_MAX_VWEPS 19 /* MAX_CLIENTWEAPONMODELS 20, less weapon.md2 */
#define Q2_PLAYER_VWEP_SLOT (Q2_PLAYER_WEAPON_SLOT + CL_MAX_PLAYERS)

/* entity_state_t.effects EF_* [q_shared.h] that have a neutral look (q2.c q2_fx) */
#define Q2_EF_ROTATE 0x1u
#define Q2_EF_GIB 0x2u
#define Q2_EF_BLASTER 0x8u
#define Q2_EF_ROCKET 0x10u
#define Q2_EF_GRENADE 0x20u
#define Q2_EF_HYPERBLASTER 0x40u
#define Q2_EF_BFG 0x80u
/* the frame chosen by the client's clock (q_shared.h: 0/1 or 2/3 at 2 Hz, every frame at
 * 2 Hz or at 10 Hz) */
#define Q2_EF_ANIM01 0x400u
#define Q2_EF_ANIM23 0x800u
#define Q2_EF_ANIM_ALL 0x1000u
#define Q2_EF_ANIM_ALLFAST 0x2000u
#define Q2_EF_ANIM_ANY (Q2_EF_ANIM01 | Q2_EF_ANIM23 | Q2_EF_ANIM_ALL | Q2_EF_ANIM_ALLFAST)
#define Q2_EF_QUAD 0x8000u
#define Q2_EF_PENT 0x10000u
#define Q2_EF_FLAG1 0x40000u /* CTF team 1: red */
#define Q2_EF_FLAG2 0x80000u
#define Q2_EF_IONRIPPER 0x100000u
#define Q2_EF_GREENGIB 0x200000u
#define Q2_EF_BLUEHYPERBLASTER 0x400000u
#define Q2_EF_PLASMA 0x1000000u
#define Q2_EF_TRACKER 0x4000000u

/* ---- Limits ---- */
#define Q2_MAX_EDICTS 1024    /* [DM2] 3.10, 3.19 */
#define Q2_MAX_EDICTS_EXT 8192 /* Q2PRO extended [Q2X]: entity numbers 0..8191 */
#define Q2_MAX_STATS 32
#define Q2_MAX_MSGLEN 1400    /* [DM2] 2.2: id's own client recordings */
#define Q2_MAX_BLOCK 0x10000  /* cap on one block: later clients write up to 32k [Q2PRO] */
#define Q2_UPDATE_BACKUP 16   /* frames kept for deltas [Q2CL] UPDATE_BACKUP */
#define Q2_UPDATE_MASK (Q2_UPDATE_BACKUP - 1)
#define Q2_ENT_POOL 4096      /* entity states shared by the frame ring (delta.h) */
#define Q2_ENT_REFS 4096      /* the frames' references into the pool: a delta source is
                               * too old once 3072 refs follow it, the reference client's
                               * parse_entities ring (MAX_PARSE_ENTITIES 1024) x 3 */
#define Q2_ENT_YOUNG 256      /* shared entries older than this are copied forward: the
                               * pool never ages a source out before its refs do */
#define Q2_MAX_MODELS 256     /* MAX_MODELS, MAX_IMAGES [q_shared.h] */
#define Q2_MAX_IMAGES 256
#define Q2_MAX_ITEMS 256
#define Q2_MAX_MODELS_EXT 8192 /* Q2PRO extended [Q2X] shared.h; q2pro-ng's 4096 is another
                                * engine's and never in a 343x demo */
#define Q2_MAX_SOUNDS_EXT 2048
#define Q2_MAX_IMAGES_EXT 2048
/* An extended model index n >= 256 is shown in client slot n + Q2_EXT_MODEL_SHIFT, above
 * the players' slots (Q2_PLAYER_MODEL_SLOT..): indices up to CL_MAX_MODELS - 1 -
 * Q2_EXT_MODEL_SHIFT (2431) are drawn, higher ones not (q2_model_slot). */
#define Q2_EXT_MODEL_SLOT (Q2_PLAYER_VWEP_SLOT + CL_MAX_PLAYERS * Q2_MAX_VWEPS)
#define Q2_EXT_MODEL_SHIFT (Q2_EXT_MODEL_SLOT - Q2_MAX_MODELS)
#define Q2_MAX_AREABYTES 32   /* MAX_MAP_AREAS / 8 [DM2] 3.21 */
#define Q2_NUMVERTEXNORMALS 162

/* One entity as the wire describes it (64 bytes). Coordinates in 1/8 units (shorts, or
 * Q2PRO's int23 from 3435), angles in 1/65536 turns (a byte angle times 256; Q2PRO's
 * U_ANGLE16 sends them so), as sent. */
typedef struct q2_ent {
    uint16_t number;
    uint16_t frame;
    uint16_t model[4]; /* modelindex, modelindex2..4: bytes, or Q2PRO's U_MODEL16 words */
    uint32_t skin;     /* skinnum: player slot | vwep << 8 for players */
    uint32_t effects;
    uint32_t renderfx;
    int32_t origin[3];
    int32_t old_origin[3];
    int16_t angles[3];
    uint16_t sound;    /* a byte; 14 bits in Q2PRO's extended sound word */
    uint8_t event;
    uint8_t alpha;     /* Q2PRO extended U_ALPHA: alpha x 255, 0 none sent */
    uint8_t scale;     /* Q2PRO extended U_SCALE: scale x 16, 0 none sent */
    uint8_t pad;
    uint32_t solid;    /* 16 bits in 34; R1Q2 1905 on and Q2PRO send 32 */
} q2_ent;

/* The recorder's player state [DM2] 3.18, in wire units. */
typedef struct q2_pstate {
    int32_t origin[3];   /* 1/8 units: shorts, or Q2PRO's int23 from 3435 */
    int32_t velocity[3];
    int16_t gravity;
    int16_t delta_angles[3];
    int16_t viewangles[3]; /* 360/65536 degrees */
    int16_t stats[Q2_MAX_STATS];
    int8_t viewoffset[3]; /* 1/4 units */
    int8_t kick_angles[3];
    int8_t gunoffset[3];
    int8_t gunangles[3];
    uint16_t pm_time, pm_flags; /* bytes; Q2PRO's 16 bits from 3435 */
    uint16_t gunindex;          /* a byte; Q2PRO extended: 13 bits (the skin dropped) */
    uint8_t pm_type, gunframe, fov, rdflags;
    uint8_t blend[4];
} q2_pstate;

/* Positions (read_pos): id's shorts, Q2PRO's int23 (3435 on), KMQuake2's 24 bits */
#define Q2_POS_SHORT 0
#define Q2_POS_I23 1
#define Q2_POS_KMQ2 2

/* What the configstrings name, for the HUD stats (plain data, part of a decoder state). */
typedef struct q2_names {
    uint8_t ext;                             /* the configstring map, Q2_CSMAP_* */
    uint8_t num_vweps;                       /* "#" CS_MODELS names, the first Q2_MAX_VWEPS */
    uint16_t vwep_model[Q2_MAX_VWEPS];       /* their client model slots, in index order */
    uint8_t image_kind[Q2_MAX_IMAGES_EXT];   /* q2_image_kind of each CS_IMAGES name */
    uint8_t model_weapon[Q2_MAX_MODELS_EXT]; /* q2_model_weapon of each CS_MODELS name */
    uint32_t item_ofs[Q2_MAX_ITEMS];         /* file offset of each CS_ITEMS name, 0 unset */
} q2_names;

/* The client model slot of model index n under nm's map: n itself, or for an extended
 * index >= 256 n + Q2_EXT_MODEL_SHIFT; 0 (nothing drawn) past the client's slots. */
static inline int q2_model_slot(const q2_names *nm, int n)
{
    if (!nm->ext || n < Q2_MAX_MODELS)
        return n;
    return n + Q2_EXT_MODEL_SHIFT < CL_MAX_MODELS ? n + Q2_EXT_MODEL_SHIFT : 0;
}

/* The frame ring [Q2CL] frame_t and its entity pool (delta.h): frames[serverframe &
 * Q2_UPDATE_MASK], each frame's player state in ps_ring at the same slot. */
typedef DD_STORE(q2_ent, Q2_ENT_POOL, Q2_ENT_REFS, Q2_UPDATE_BACKUP) q2_store;

/* The whole decoder state: plain data, no pointers; copy it with memcpy. */
/* A sound name's client slot (q2_state.sfx, start_sound): its table name (NULL: an empty
 * entry), variant and the level (cl level_count) it was interned in. Q2_SFX_SLOTS entries,
 * a key looked for in at most Q2_SFX_PROBE from its hash. */
typedef struct q2_sfx {
    const void *snd;
    uint32_t level;
    uint16_t slot;
    uint8_t var, pad;
} q2_sfx;
#define Q2_SFX_BITS 6
#define Q2_SFX_SLOTS (1 << Q2_SFX_BITS)
#define Q2_SFX_PROBE 8

typedef struct q2_state {
    uint8_t in_zpacket;   /* parsing the inflated body of an svc_zpacket */
    uint8_t isdemo;       /* Q2_RECORD_* of the current level */
    uint8_t have_level;   /* svc_serverdata seen */
    uint8_t in_frame;     /* cl_frame_begin called, cl_frame_end not yet */
    uint8_t pending;      /* svc_frame read, waiting for its playerinfo */
    uint8_t have_ps;      /* the open frame's player state was read */
    uint8_t ended;        /* the 0xFFFFFFFF end block was read */
    uint8_t resynced;     /* blocks were skipped (damage): until a frame decodes whole, a
                           * delta from a lost frame is taken from the newest one kept */
    uint64_t pos;         /* file offset of the next block */
    uint64_t ahead_mark;  /* pos + 1 of the block whose svc_serverdata last looked at the
                           * blocks after it (q2.c ahead_from) */
    uint32_t block;       /* blocks decoded */
    int32_t protocol;     /* 0 until svc_serverdata */
    int32_t minor;        /* R1Q2 / Q2PRO minor version (svc_serverdata), else 0 */
    uint8_t ext;          /* Q2PRO extended [Q2X]: 0 none, 1 from 3434, 2 from 3435 */
    uint8_t fog;          /* 3436: player states may carry fog */
    uint8_t kmq2;         /* KMQuake2's protocol 56 [KMQ2] */
    uint8_t pos_kind;     /* how positions are sent: Q2_POS_* (read_pos) */
    uint16_t max_edicts;  /* entity numbers below this: Q2_MAX_EDICTS or _EXT */
    uint32_t eps;         /* the open frame's EPS_* bits (35, 36) */
    int32_t playernum;    /* the recorder's slot, -1 for server recordings */
    int32_t servercount;
    int32_t max_clients;
    int32_t frame0;       /* serverframe of the level's first frame */
    uint8_t have_frame0;
    uint8_t cur_valid;    /* the frame being parsed has a usable delta source */
    uint8_t es;           /* the entity deltas' layout: Q2_ES_* of the protocol */
    uint8_t anim_read;    /* an entity delta has made an EF_ANIM* entity since the state
                           * was zeroed; until then no pool entry has one (emit_entities) */
    /* High-water marks, for q2_clear to zero only what was written since the state was
     * zeroed: baselines[0 .. baseline_hw) (level_reset clears those and starts again), the
     * store's pool entries [0 .. pool_hw) and refs [0 .. ref_hw) (absolute heads, capped at
     * the store's size: once there the whole ring is written). */
    uint32_t baseline_hw, pool_hw, ref_hw;
    int32_t serverframe, deltaframe; /* of the frame being parsed */
    double time;          /* demo time of the newest frame */
    double time_base;     /* demo time of the level's first frame */
    uint32_t frames;      /* svc_frame messages decoded */
    uint32_t bad_deltas;  /* frames whose delta source was gone */
    int32_t last_emitted; /* ring slot of the frame last sent to the client, -1 none */
    q2_pstate ps;         /* the player state being parsed */
    /* the client-side sounds' slots by table name and variant, for the level (cl
     * level_count) they were interned in: start_sound builds and looks up a name once */
    q2_sfx sfx[Q2_SFX_SLOTS];
    q2_names names;
    q2_pstate ps_ring[Q2_UPDATE_BACKUP];
    q2_store store;
    q2_ent baselines[Q2_MAX_EDICTS_EXT]; /* last: classic demos leave 1024.. zero */
} q2_state;

/* ---- Pieces of q2.c that the Q2PRO MVD2 decoder (mvd2.c) shares: the wire is the same ---- */

/* The bit mask and entity number that start an entity delta [DM2 3.15] (U_MOREBITS1..3,
 * U_NUMBER16; with Q2_ES_EXT a fifth byte after U_MOREBITS4, bits 32..39 [Q2X]). Returns the
 * number; a read past the end sets r's error. */
int q2_read_ent_bits(rd_t *r, uint64_t *bits, unsigned es);
/* The fields bits announce, laid out by es (Q2_ES_*), read over *to (which holds the source),
 * number set, event cleared, old_origin starting as the source's origin [Q2CL CL_ParseDelta]. */
void q2_read_delta(rd_t *r, q2_ent *to, int num, uint64_t bits, unsigned es);
/* Q2PRO's int23 [Q2X] (msg.c MSG_ReadDeltaInt23): a 2-byte delta from prev, or a 3-byte
 * absolute value. */
int32_t q2_read_i23(rd_t *r, int32_t prev);
/* A player state's blend [DM2 3.18]: 4 bytes; with Q2PRO's EXTENSIONS_2 (ext2) a mask byte,
 * then the blend bytes it names and the damage blend's (read past) [Q2X] (msg.c
 * MSG_ReadBlend). */
void q2_read_blend(rd_t *r, uint8_t blend[4], int ext2);
/* Q2PRO's player fog [Q2X] (msg.c MSG_ReadFog), read past. */
void q2_skip_fog(rd_t *r);
/* A player state's stats [DM2 3.18]: a 32-bit mask, or with EXTENSIONS_2 (ext2) a varint mask
 * of 64 [Q2X] (msg.c MSG_ReadStats), then a short per bit; stats past the 32 kept are read
 * past. Returns the mask. */
uint64_t q2_read_stats(rd_t *r, int16_t stats[Q2_MAX_STATS], int ext2);
/* What the client state gets from an entity: origin, angles, models (modelindex 255: its
 * client's body and, by nm's view weapons, weapon slots), frame, skin, fx, the player slot
 * of entities 1..max_clients, translucency, fullbright (flags), shells as glows; an
 * EF_ANIM* entity's frame from the frame's server time in ms. */
void q2_ent_look(const q2_ent *q, int max_clients, const q2_names *nm, uint32_t server_ms,
                 cl_entstate *e);
/* Entity q, new to the frame, with e its client state: it comes in from its old_origin
 * over the frame (cl_entity_update_from) as Quake II's client draws it, or, for a teleport,
 * a beam or RF_FRAMELERP, snaps where it is (e gets CL_EF_TELEPORT). */
void q2_entity_new(cl_state *cl, const q2_ent *q, cl_entstate *e);
/* The camera of player state ps (eye: pmove origin + viewoffset; angles: viewangles + kick),
 * player slot playernum (-1 none). */
void q2_ps_view(const q2_pstate *ps, int playernum, cl_view *v);
/* The named stats of player state ps at demo time t: icons by their CS_IMAGES names, the
 * weapon by the view model's CS_MODELS name (q2_rules.c), frags, dead/gibbed/spectator. */
void q2_fill_stats(const q2_names *nm, const q2_pstate *ps, double t, cl_stats *st);
/* Configstring index (0..Q2_MAX_CONFIGSTRINGS-1, checked by the caller) set to str
 * [DM2 3.14]: models (the world names the map and starts a CL_EV_LEVEL event), sounds,
 * lightstyles, player names and looks, icon and weapon kinds into nm. str_ofs: the file
 * offset of the string (item names are read back from there). str is modified and
 * restored. */
void q2_configstring(cl_state *cl, q2_names *nm, int index, char *str, uint32_t str_ofs);
/* svc_print of level (PRINT_* [q_shared.h]) and text: a message, and an obituary or chat
 * event when it is one (q2_rules.c). */
void q2_print(cl_state *cl, int level, const char *text);

#endif
