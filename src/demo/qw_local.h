/* qw_local.h: QuakeWorld protocol constants and the .qwd/.mvd decoder state, shared by qw.c
 * and its tests (which build protocol bytes by these names).
 *
 * Sources, named where each fact is used in qw.c:
 *   [QWD]   /work/shared/specs/qwd-quakeworld-v1.0.5.txt (Uwe Girlich, protocols 24..28)
 *   [EZPROT] QW-Group/ezquake-source and QW-Group/mvdsv src/protocol.h (svc, PF_, DF_, U_, dem_)
 *   [EZPARSE] ezquake-source src/cl_parse.c, cl_ents.c, cl_demo.c, com_msg.c (how a client reads them)
 *   [FTEPROT] fte-team/fteqw engine/common/protocol.h (PEXT/PEXT2/EZPEXT1 bit names)
 *   [QWEXT] PEXT_FLOATCOORDS: FTE engine/client/cl_parse.c CLQW_ParseServerData (the netprim
 *           becomes float coordinates and 2-byte angles), ezQuake cl_parse.c
 *           CL_ParseServerData (msg_coordsize 4, msg_anglesize 2) with com_msg.c
 *           MSG_ReadCoord / MSG_ReadAngle, and mvdsv sv_init.c / sv_demo.c (the same sizes
 *           under sv_bigcoords, for .mvd too): every coordinate and angle those readers
 *           read, in every message; usercmd, MVD DF_ANGLES, velocities and nails unchanged.
 *   [FTESVC] FTE's QuakeWorld messages from 55 up as FTE's client reads them: fte-team/fteqw
 *           engine/client/cl_parse.c CLQW_ParseServerMessage (setview, soundextended through
 *           CLNQ_ParseStartSoundPacket, the short lists, lightstylecol, the particle, picture,
 *           precache, stat, sized and angle-base messages, spawnstaticsound2), cl_tent.c
 *           CL_ParseCustomTEnt, common.c MSG_ReadUInt64 / MSG_ReadBigEntity, sv_ents.c (the
 *           sized CSQC writer).
 *   [FTEEXT] FTE's bits SPLITSCREEN, TE_BULLET, LERPTIME, INFOBLOBS and VRINPUTS, and how many
 *           entities a replacement-delta frame carries: fte-team/fteqw engine/client/cl_parse.c
 *           (CLQW_ParseServerData, CLQW_ParseServerMessage, CL_ParseSetInfoBlob), cl_ents.c
 *           (CLFTE_ParseEntities, CLFTE_ReadDelta), cl_tent.c (CL_ParseTEnt), cl_demo.c
 *           (CLQW_RecordServerData, CL_WriteDemoCmd), common.c (MSG_ReadULEB128,
 *           InfoBuf_DecodeString), common/protocol.h, bothdefs.h (MAX_EDICTS),
 *           config_fteqw.h (MAX_SPLITS), server/sv_ents.c (SVFTE_WriteUpdate,
 *           SVFTE_EmitPacketEntities), sv_main.c (max_net_ents), sv_send.c (SV_SyncInfoBuf). */
#ifndef QD_QW_LOCAL_H
#define QD_QW_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"
#include "delta.h"
#include "quake_rules.h"

/* ---- Demo block types [EZPROT] "demo recording"; high 5 bits = player for single/stats ---- */
#define QW_DEM_CMD 0
#define QW_DEM_READ 1
#define QW_DEM_SET 2
#define QW_DEM_MULTIPLE 3 /* MVD: 32-bit player mask, then length + data */
#define QW_DEM_SINGLE 4   /* MVD: for player (type >> 3) */
#define QW_DEM_STATS 5    /* MVD: stats of player (type >> 3) */
#define QW_DEM_ALL 6      /* MVD: for everybody */

/* ---- Server messages [QWD] 5, [EZPROT] ---- */
#define QW_SVC_BAD 0
#define QW_SVC_NOP 1
#define QW_SVC_DISCONNECT 2
#define QW_SVC_UPDATESTAT 3
#define QW_SVC_SOUND 6
#define QW_SVC_PRINT 8
#define QW_SVC_STUFFTEXT 9
#define QW_SVC_SETANGLE 10
#define QW_SVC_SERVERDATA 11
#define QW_SVC_LIGHTSTYLE 12
#define QW_SVC_UPDATEFRAGS 14
#define QW_SVC_STOPSOUND 16
#define QW_SVC_DAMAGE 19
#define QW_SVC_SPAWNSTATIC 20
#define QW_SVC_FTE_SPAWNSTATIC2 21 /* PEXT_SPAWNSTATIC2 */
#define QW_SVC_SPAWNBASELINE 22
#define QW_SVC_TEMP_ENTITY 23
#define QW_SVC_SETPAUSE 24
#define QW_SVC_CENTERPRINT 26
#define QW_SVC_KILLEDMONSTER 27
#define QW_SVC_FOUNDSECRET 28
#define QW_SVC_SPAWNSTATICSOUND 29
#define QW_SVC_INTERMISSION 30
#define QW_SVC_FINALE 31
#define QW_SVC_CDTRACK 32
#define QW_SVC_SELLSCREEN 33
#define QW_SVC_SMALLKICK 34
#define QW_SVC_BIGKICK 35
#define QW_SVC_UPDATEPING 36
#define QW_SVC_UPDATEENTERTIME 37
#define QW_SVC_UPDATESTATLONG 38
#define QW_SVC_MUZZLEFLASH 39
#define QW_SVC_UPDATEUSERINFO 40
#define QW_SVC_DOWNLOAD 41
#define QW_SVC_PLAYERINFO 42
#define QW_SVC_NAILS 43
#define QW_SVC_CHOKECOUNT 44
#define QW_SVC_MODELLIST 45
#define QW_SVC_SOUNDLIST 46
#define QW_SVC_PACKETENTITIES 47
#define QW_SVC_DELTAPACKETENTITIES 48
#define QW_SVC_MAXSPEED 49
#define QW_SVC_ENTGRAVITY 50
#define QW_SVC_SETINFO 51
#define QW_SVC_SERVERINFO 52
#define QW_SVC_UPDATEPL 53
#define QW_SVC_NAILS2 54               /* mvdsv, MVD only: indexed nails */
#define QW_SVC_FTE_SPLITSCREENCONFIG 25 /* PEXT_SPLITSCREEN: seats, a player byte each */
#define QW_SVC_FTE_CHOOSESPLITCLIENT 68 /* PEXT_SPLITSCREEN: seat byte, then the message */
#define QW_SVC_FTE_SETINFOBLOB 89       /* PEXT2_INFOBLOBS: one chunk of an info value */
#define QW_SVC_FTE_MODELLISTSHORT 60   /* PEXT_MODELDBL */
#define QW_SVC_FTE_SPAWNBASELINE2 66   /* PEXT_SPAWNSTATIC2 */
#define QW_SVC_QIZMOVOICE 83           /* Qizmo proxy voice: 34 bytes */
#define QW_SVC_FTE_VOICECHAT 84        /* PEXT2_VOICECHAT */
#define QW_SVC_FTE_SETANGLEDELTA 85    /* PEXT2_SETANGLEDELTA: three 16-bit angles */
/* FTE's further messages [FTESVC] */
#define QW_SVC_SETVIEW 5
#define QW_SVC_FTE_SOUNDEXTENDED 55  /* PEXT_SOUNDDBL */
#define QW_SVC_FTE_SOUNDLISTSHORT 56 /* PEXT_SOUNDDBL */
#define QW_SVC_FTE_LIGHTSTYLECOL 57  /* PEXT_LIGHTSTYLECOL */
#define QW_SVC_FTE_PARTICLE2 63
#define QW_SVC_FTE_PARTICLE3 64
#define QW_SVC_FTE_PARTICLE4 65
#define QW_SVC_FTE_CUSTOMTEMPENT 67  /* PEXT_CUSTOMTEMPEFFECTS */
#define QW_SVC_FTE_SHOWPIC 69        /* PEXT_SHOWPIC: 69..72 */
#define QW_SVC_FTE_HIDEPIC 70
#define QW_SVC_FTE_MOVEPIC 71
#define QW_SVC_FTE_UPDATEPIC 72
#define QW_SVC_FTE_EFFECT 74
#define QW_SVC_FTE_EFFECT2 75
#define QW_SVC_FTE_CSQCENTITIES 76   /* PEXT_CSQC: the mod's bytes, no size */
#define QW_SVC_FTE_PRECACHE 77
#define QW_SVC_FTE_UPDATESTATSTRING 78
#define QW_SVC_FTE_UPDATESTATFLOAT 79
#define QW_SVC_FTE_TRAILPARTICLES 80
#define QW_SVC_FTE_POINTPARTICLES 81
#define QW_SVC_FTE_POINTPARTICLES1 82
#define QW_SVC_FTE_CGAMEPACKET 83    /* PEXT_CSQC: the mod's bytes, no size */
#define QW_SVC_FTE_CGAMEPACKET_SIZED 90
#define QW_SVC_FTE_TEMP_ENTITY_SIZED 91
#define QW_SVC_FTE_CSQCENTITIES_SIZED 92
#define QW_SVC_FTE_SETANGLEBASE 93
#define QW_SVC_FTE_SPAWNSTATICSOUND2 94
#define QW_SVC_FTE_UPDATEENTITIES 86   /* PEXT2_REPLACEMENTDELTAS: entities and players */

/* ---- Protocol words before the version in svc_serverdata [EZPROT], [FTEPROT] ---- */
#define QW_PROTOCOL_FTE 0x58455446u  /* 'FTEX' */
#define QW_PROTOCOL_FTE2 0x32455446u /* 'FTE2' */
#define QW_PROTOCOL_MVD1 0x3144564du /* 'MVD1' */
#define QW_PROTOCOL_MIN 24           /* QuakeWorld 1.64 [QWD] table 8 */
#define QW_PROTOCOL_MAX 28           /* QuakeWorld 2.30 */

/* FTE extension bits [FTEPROT] that qw.c implements (the rest are refused by name). */
#define QW_PEXT_TRANS 0x00000008u
#define QW_PEXT_MODELDBL 0x00001000u
#define QW_PEXT_ENTITYDBL 0x00002000u
#define QW_PEXT_ENTITYDBL2 0x00004000u
#define QW_PEXT_COLOURMOD 0x00080000u
#define QW_PEXT_SPAWNSTATIC2 0x00400000u
#define QW_PEXT_256PACKETENTITIES 0x01000000u
#define QW_PEXT_CHUNKEDDOWNLOADS 0x20000000u
/* Two bits ezQuake 3.6 asks for by default (ezQuake cl_main.c CL_SupportedFTEExtensions)
 * that change no message a demo holds: ACCURATETIMINGS only makes the server send its
 * time in every datagram as an svc_updatestatlong of STAT_TIME (mvdsv sv_send.c), a message
 * every demo may hold; HLBSP lets the client load Half-Life maps. */
#define QW_PEXT_ACCURATETIMINGS 0x00000040u
#define QW_PEXT_HLBSP 0x00000200u
/* FTE's per-entity and per-player look: a scale byte (16 = 1.0), a signed fatness byte (the
 * model pushed out along its normals; read, not drawn), a hull height byte (players only)
 * [QWEXT 3.3, 3.4: FTE cl_ents.c CLQW_ParseDelta, CLQW_ParsePlayerinfo] */
#define QW_PEXT_SCALE 0x00000002u
/* Bits whose messages are read as FTE's client reads them [FTESVC] */
#define QW_PEXT_SETVIEW 0x00000001u
#define QW_PEXT_LIGHTSTYLECOL 0x00000004u
#define QW_PEXT_VIEW2 0x00000010u /* the server may send svc_setview: no new form */
#define QW_PEXT_SOUNDDBL 0x00000080u
#define QW_PEXT_CUSTOMTEMPEFFECTS 0x00800000u
#define QW_PEXT_SHOWPIC 0x04000000u
#define QW_PEXT_CSQC 0x40000000u /* its unsized messages stop the demo by name */
/* [FTEEXT] svc_temp_entity types 14 and 15 (TE_BULLET, TE_SUPERBULLET): an origin */
#define QW_PEXT_TE_BULLET 0x00000400u
/* [FTEEXT] the serverdata's further seats, svc 68 and 25; seat 0 is the recorded view */
#define QW_PEXT_SPLITSCREEN 0x00100000u
#define QW_MAX_SEATS 4 /* FTE config_fteqw.h MAX_SPLITS */
/* Entity delta bits past YETMORE (Hexen II's draw flags and light, DarkPlaces' flags, light
 * and effects, attachments) [QWEXT 3.3], read as FTE's CLQW_ParseDelta reads them */
#define QW_PEXT_HEXEN2 0x00200000u
#define QW_PEXT_SETATTACHMENT 0x08000000u
#define QW_PEXT_DPFLAGS 0x80000000u
#define QW_PEXT_FATNESS 0x00000100u
#define QW_PEXT_HULLSIZE 0x00000800u
/* every coordinate a float32, every angle 16 bits [QWEXT 3.1] */
#define QW_PEXT_FLOATCOORDS 0x00008000u
#define QW_PEXT_SUPPORTED                                                                      \
    (QW_PEXT_TRANS | QW_PEXT_MODELDBL | QW_PEXT_ENTITYDBL | QW_PEXT_ENTITYDBL2 |               \
     QW_PEXT_FLOATCOORDS | QW_PEXT_SCALE | QW_PEXT_FATNESS | QW_PEXT_HULLSIZE |                \
     QW_PEXT_HEXEN2 | QW_PEXT_SETATTACHMENT | QW_PEXT_DPFLAGS | QW_PEXT_SETVIEW |              \
     QW_PEXT_LIGHTSTYLECOL | QW_PEXT_VIEW2 | QW_PEXT_SOUNDDBL | QW_PEXT_CUSTOMTEMPEFFECTS |     \
     QW_PEXT_SHOWPIC | QW_PEXT_CSQC | QW_PEXT_TE_BULLET | QW_PEXT_SPLITSCREEN |                \
     QW_PEXT_COLOURMOD | QW_PEXT_SPAWNSTATIC2 | QW_PEXT_256PACKETENTITIES |                    \
     QW_PEXT_CHUNKEDDOWNLOADS | QW_PEXT_ACCURATETIMINGS | QW_PEXT_HLBSP)
#define QW_PEXT2_PRYDONCURSOR 0x00000001u /* changes client->server moves only */
#define QW_PEXT2_VOICECHAT 0x00000002u
/* FTE's replacement deltas [QWEXT 4] (FTE cl_ents.c CLFTE_ParseEntities, CLFTE_ReadDelta;
 * common.c MSG_ReadBigEntity): svc 86 carries every entity and player as changes against the
 * frame before; PREDINFO and NEWSIZEENCODING change two of its fields; MAXPLAYERS the
 * serverdata's player bytes (FTE cl_parse.c CLQW_ParseServerData). */
#define QW_PEXT2_SETANGLEDELTA 0x00000004u
#define QW_PEXT2_REPLACEMENTDELTAS 0x00000008u
#define QW_PEXT2_MAXPLAYERS 0x00000010u
#define QW_PEXT2_PREDINFO 0x00000020u
#define QW_PEXT2_NEWSIZEENCODING 0x00000040u
/* [FTEEXT] svc 89: an info value in chunks */
#define QW_PEXT2_INFOBLOBS 0x00000080u
/* [FTEEXT] client-to-server moves only; the serverdata's seat byte loses its spectator bit */
#define QW_PEXT2_VRINPUTS 0x00000200u
/* [FTEEXT] replacement deltas' integers as ULEB128 and a lerp time (bit 9, UF_16BIT) */
#define QW_PEXT2_LERPTIME 0x00000400u
#define QW_PEXT2_SUPPORTED                                                                     \
    (QW_PEXT2_PRYDONCURSOR | QW_PEXT2_VOICECHAT | QW_PEXT2_SETANGLEDELTA |                     \
     QW_PEXT2_REPLACEMENTDELTAS | QW_PEXT2_MAXPLAYERS | QW_PEXT2_PREDINFO |                    \
     QW_PEXT2_NEWSIZEENCODING | QW_PEXT2_INFOBLOBS | QW_PEXT2_VRINPUTS | QW_PEXT2_LERPTIME)
/* mvdsv/ezQuake extension bits [EZPROT] MVD_PEXT1_*, [FTEPROT] EZPEXT1_* */
#define QW_MVD_PEXT1_FLOATCOORDS 0x00000001u     /* entity and player origins as floats */
#define QW_MVD_PEXT1_HIGHLAGTELEPORT 0x00000002u /* svc_setangle carries a reason byte */
#define QW_MVD_PEXT1_HIDDEN_MESSAGES 0x00000020u /* dem_multiple(0) holds hidden data */
/* Server-side weapon switching and its debugging (mvdsv/KTX; ezQuake cl_pext_serversideweapon):
 * the client sends new clc messages (clc 200, 201, mvd_weapon_full_impulse), the server a
 * stufftext ("//mvdsv_ssw ...") and, in an .mvd, hidden blocks (types 0, 2, 8, 9) inside
 * dem_multiple(0): nothing a demo holds changes form [QWEXT 2.3, 5: qwprot protocol.h,
 * mvdsv sv_user.c, sv_demo_misc.c]. */
#define QW_MVD_PEXT1_SERVERSIDEWEAPON 0x00000004u
#define QW_MVD_PEXT1_DEBUG_WEAPON 0x00000008u
#define QW_MVD_PEXT1_DEBUG_ANTILAG 0x00000010u
#define QW_MVD_PEXT1_SERVERSIDEWEAPON2 0x00000040u
#define QW_MVD_PEXT1_SUPPORTED                                                                 \
    (QW_MVD_PEXT1_FLOATCOORDS | QW_MVD_PEXT1_HIGHLAGTELEPORT | QW_MVD_PEXT1_HIDDEN_MESSAGES |  \
     QW_MVD_PEXT1_SERVERSIDEWEAPON | QW_MVD_PEXT1_DEBUG_WEAPON | QW_MVD_PEXT1_DEBUG_ANTILAG |   \
     QW_MVD_PEXT1_SERVERSIDEWEAPON2)

/* ---- Replacement delta bits (UF_*) and prediction bits (UFP_*) [QWEXT 4.3] ---- */
#define QW_UF_FRAME (1u << 0)
#define QW_UF_ORIGINXY (1u << 1)
#define QW_UF_ORIGINZ (1u << 2)
#define QW_UF_ANGLESXZ (1u << 3)
#define QW_UF_ANGLESY (1u << 4)
#define QW_UF_EFFECTS (1u << 5)
#define QW_UF_PREDINFO (1u << 6)
#define QW_UF_EXTEND1 (1u << 7)
#define QW_UF_RESET (1u << 8)
#define QW_UF_16BIT (1u << 9) /* with PEXT2_LERPTIME: a lerp time follows the angles */
#define QW_UF_MODEL (1u << 10)
#define QW_UF_SKIN (1u << 11)
#define QW_UF_COLORMAP (1u << 12)
#define QW_UF_SOLID (1u << 13)
#define QW_UF_FLAGS (1u << 14)
#define QW_UF_EXTEND2 (1u << 15)
#define QW_UF_ALPHA (1u << 16)
#define QW_UF_SCALE (1u << 17)
#define QW_UF_BONEDATA (1u << 18)
#define QW_UF_DRAWFLAGS (1u << 19)
#define QW_UF_TAGINFO (1u << 20)
#define QW_UF_LIGHT (1u << 21)
#define QW_UF_TRAILEFFECT (1u << 22)
#define QW_UF_EXTEND3 (1u << 23)
#define QW_UF_COLORMOD (1u << 24)
#define QW_UF_GLOW (1u << 25)
#define QW_UF_FATNESS (1u << 26)
#define QW_UF_MODELINDEX2 (1u << 27)
#define QW_UF_GRAVITYDIR (1u << 28)
#define QW_UF_EFFECTS2 (1u << 29) /* an error with PEXT2_LERPTIME */
#define QW_UF_UNUSED1 (1u << 30) /* an error, as UF_EXTEND4 */
#define QW_UF_EXTEND4 (1u << 31)
#define QW_UFP_FORWARD (1u << 0)
#define QW_UFP_SIDE (1u << 1)
#define QW_UFP_UP (1u << 2)
#define QW_UFP_MOVETYPE (1u << 3)
#define QW_UFP_VELOCITYXY (1u << 4)
#define QW_UFP_VELOCITYZ (1u << 5)
#define QW_UFP_MSEC (1u << 6)
#define QW_UFP_VIEWANGLE (1u << 7) /* with PEXT2_PREDINFO; else the old weapon frame */

/* ---- Packet entity delta bits [EZPROT] ---- */
#define QW_U_ORIGIN1 (1u << 9)
#define QW_U_ORIGIN2 (1u << 10)
#define QW_U_ORIGIN3 (1u << 11)
#define QW_U_ANGLE2 (1u << 12)
#define QW_U_FRAME (1u << 13)
#define QW_U_REMOVE (1u << 14)
#define QW_U_MOREBITS (1u << 15)
#define QW_U_ANGLE1 (1u << 0) /* the MOREBITS byte */
#define QW_U_ANGLE3 (1u << 1)
#define QW_U_MODEL (1u << 2)
#define QW_U_COLORMAP (1u << 3)
#define QW_U_SKIN (1u << 4)
#define QW_U_EFFECTS (1u << 5)
#define QW_U_SOLID (1u << 6)
#define QW_U_FTE_EVENMORE (1u << 7)
/* the EVENMORE byte (and YETMORE << 8) */
#define QW_U_FTE_SCALE (1u << 0)
#define QW_U_FTE_TRANS (1u << 1)
#define QW_U_FTE_FATNESS (1u << 2)
#define QW_U_FTE_MODELDBL (1u << 3)
#define QW_U_FTE_ENTITYDBL (1u << 5)
#define QW_U_FTE_ENTITYDBL2 (1u << 6)
#define QW_U_FTE_YETMORE (1u << 7)
#define QW_U_FTE_DRAWFLAGS (1u << 8)  /* PEXT_HEXEN2: a byte */
#define QW_U_FTE_ABSLIGHT (1u << 9)   /* PEXT_HEXEN2: a byte */
#define QW_U_FTE_COLOURMOD (1u << 10)
#define QW_U_FTE_DPFLAGS (1u << 11)   /* PEXT_DPFLAGS: a byte */
#define QW_U_FTE_TAGINFO (1u << 12)   /* PEXT_SETATTACHMENT: two shorts */
#define QW_U_FTE_LIGHT (1u << 13)     /* PEXT_DPFLAGS: four shorts, two bytes */
#define QW_U_FTE_EFFECTS16 (1u << 14) /* PEXT_DPFLAGS: the effects' high byte */

/* ---- .qwd playerinfo flags [EZPROT] PF_*; with PEXT_TRANS bit 15 announces a third byte ---- */
#define QW_PF_MSEC (1u << 0)
#define QW_PF_COMMAND (1u << 1)
#define QW_PF_VELOCITY1 (1u << 2)
#define QW_PF_MODEL (1u << 5)
#define QW_PF_SKINNUM (1u << 6)
#define QW_PF_EFFECTS (1u << 7)
#define QW_PF_WEAPONFRAME (1u << 8)
#define QW_PF_DEAD (1u << 9)
#define QW_PF_GIB (1u << 10)
#define QW_PF_EXTRA_PFS (1u << 15) /* only with PEXT_TRANS */
#define QW_PF_TRANS_Z (1u << 17)   /* alpha byte follows */
/* FTE's further player flags in the extended regime [QWEXT 3.4], each with data */
#define QW_PF_HULLSIZE_Z (1u << 14) /* byte */
#define QW_PF_SCALE (1u << 16)      /* byte, 50 = 1.0 (FTE: the scale x 50; entities' x 16) */
#define QW_PF_FATNESS (1u << 18)    /* signed byte */
#define QW_PF_COLOURMOD (1u << 19)  /* 3 bytes */

/* ---- .mvd playerinfo flags [EZPROT] DF_*: per-field presence against the last state ---- */
#define QW_DF_ORIGIN (1u << 0) /* << 0..2 per axis */
#define QW_DF_ANGLES (1u << 3) /* << 0..2 per axis */
#define QW_DF_EFFECTS (1u << 6)
#define QW_DF_SKINNUM (1u << 7)
#define QW_DF_DEAD (1u << 8)
#define QW_DF_GIB (1u << 9)
#define QW_DF_WEAPONFRAME (1u << 10)
#define QW_DF_MODEL (1u << 11)

/* usercmd delta bits [EZPROT] CM_* */
#define QW_CM_ANGLE1 (1u << 0)
#define QW_CM_ANGLE3 (1u << 1)
#define QW_CM_FORWARD (1u << 2)
#define QW_CM_SIDE (1u << 3)
#define QW_CM_UP (1u << 4)
#define QW_CM_BUTTONS (1u << 5)
#define QW_CM_IMPULSE (1u << 6)
#define QW_CM_ANGLE2 (1u << 7)

/* ---- Limits ---- */
#define QW_MAX_CLIENTS 32
#define QW_UPDATE_BACKUP 64 /* [QWD] 5.45, [EZPROT] UPDATE_BACKUP */
#define QW_UPDATE_MASK (QW_UPDATE_BACKUP - 1)
#define QW_MAX_EDICTS 2048        /* 9 bits + ENTITYDBL (512) + ENTITYDBL2 (1024) */
#define QW_MAX_PACKET_ENTITIES 300 /* [EZPROT] MAX_MVD_PACKET_ENTITIES */
#define QW_ENT_POOL 1024           /* entity states shared by the frame ring (delta.h): a
                                    * frame writes only what changed, so a source stays usable
                                    * while 596 states follow it (an .mvd's previous frame
                                    * wrote at most 300) */
#define QW_ENT_REFS 1024           /* the frames' references into the pool: a .qwd delta
                                    * source is too old once 724 refs follow it; a frame that
                                    * changed nothing shares its source's refs (dd_repeat) */
#define QW_ENT_YOUNG 128           /* shared entries older than this are copied forward; the
                                    * small pool and ref ring keep keyframes below the old
                                    * copy-per-frame pool's size */
/* Replacement deltas [FTEEXT]: FTE's client takes any number of entities in a frame, each
 * numbered up to MAX_EDICTS (2^18 - 1), and its server sends up to max_net_ents (its
 * pr_maxedicts, 32768 or 131072 by default) in one. qdemo's client state holds entity
 * numbers below CL_MAX_ENTITIES (8192); the nails are drawn at the top 512 of them, so
 * replacement-delta entities are numbered below 7680, and as numbers rise within a frame,
 * a frame holds at most 7680. Their frames are written in turn into the two halves of the
 * pool and ref ring below, each starting at its half (a frame only deltas from the one
 * before); the classic ones use only the first QW_ENT_POOL / QW_ENT_REFS entries. What is
 * not written stays zero and costs nothing in a packed keyframe. */
#define QW_RD_MAX_EDICTS 7680
#define QW_RD_HALF 8192
#define QW_RD_POOL (2 * QW_RD_HALF)
#define QW_RD_REFS (2 * QW_RD_HALF)
#define QW_MAX_BLOCK (1u << 20)    /* cap on one block's length */
#define QW_MAX_STATS 32

/* One packet entity, compact (32 bytes): what the wire can say about it. */
typedef struct qw_ent {
    uint16_t number;
    uint16_t model;
    float origin[3];
    int16_t angles[3]; /* 1/65536 turns: bytes * 256, or PEXT_FLOATCOORDS's shorts */
    uint16_t frame;
    uint8_t colormap;
    uint8_t skin;
    uint8_t trans; /* PEXT_TRANS: 0/255 opaque */
    uint8_t colourmod[3];
    uint8_t scale;  /* PEXT_SCALE: 16 = 1.0, 0 = 1.0 */
    int8_t fatness; /* PEXT_FATNESS */
    uint16_t fx;   /* CL_FX_* of the EF_* byte, mapped when the byte arrives (the delta
                    * reads the byte here, qr_entity_fx maps it in place) */
} qw_ent;

/* The frame ring and entity pool (delta.h): frames numbered by the incoming sequence. */
typedef DD_STORE(qw_ent, QW_RD_POOL, QW_RD_REFS, QW_UPDATE_BACKUP) qw_store;

/* One player as the last playerinfo left it. */
typedef struct qw_player {
    float origin[3];
    float viewangles[3];
    double time;      /* demo time the state was valid */
    uint16_t model;
    uint16_t fx;   /* CL_FX_* of the EF_* byte, mapped when it arrives */
    uint8_t frame, skin, weaponframe, alpha;
    uint8_t flags; /* CL_EF_DEAD, CL_EF_GIBBED (PF_DEAD / PF_GIB, DF_DEAD / DF_GIB) */
    uint8_t valid; /* a state was received since the level began */
    uint8_t scale; /* PF_SCALE: 16 = 1.0, 0 = 1.0 */
    uint8_t model_sent; /* .mvd: a DF_MODEL came since the state was begun afresh */
    uint32_t seq;  /* .mvd: frame of the last update */
} qw_player;

/* The whole decoder state: plain data, no pointers; copy it with memcpy. */
typedef struct qw_state {
    uint8_t mvd;      /* 1 for .mvd */
    uint8_t started;  /* the first block was read */
    uint8_t spectator;
    uint64_t pos;     /* file offset of the next block */
    uint32_t block;   /* blocks decoded */
    int32_t protocol; /* 0 until svc_serverdata */
    uint32_t fte_ext, fte_ext2, mvd_ext;
    int32_t playernum; /* .qwd: the recorder's slot */
    int32_t view_player; /* .mvd: the followed player, or -1 */
    /* .mvd: the followed player as the frame before showed it (set_view): slot + 1 (0
     * none), origin, model, frame, whether that frame sent it; and the players a
     * svc_setangle named in the open frame (bit per slot) */
    int32_t view_was;
    float view_was_origin[3];
    uint16_t view_was_model;
    uint8_t view_was_frame, view_was_sent;
    uint32_t fixangle;
    double time;      /* demo time of the current frame */
    double time0;     /* .qwd: time stamp of the first block */
    uint64_t mvd_ms;  /* .mvd: accumulated time deltas */
    uint32_t in_seq, out_seq;
    uint32_t mvd_frames; /* .mvd: frame counter used as sequence */
    int32_t last_pe_frame; /* .mvd: ring slot of the newest packet entities, -1 none */
    uint8_t cte_style[256];  /* svc_fte_customtempent: each defined effect's netstyle */
    uint8_t cte_defined[32]; /* and which ids are defined (bits) */
    uint8_t slots;         /* the server's player slots (PEXT2_MAXPLAYERS, else 32): under
                            * replacement deltas entities 1..slots are the players */
    uint8_t num_seats;     /* .qwd: split-screen seats (1 without PEXT_SPLITSCREEN) */
    uint8_t seat_player[QW_MAX_SEATS]; /* each seat's player slot; seat 0 is playernum */
    /* svcfte_setinfoblob [FTEEXT]: the value being received in chunks (one key at a time,
     * as FTE's server sends them), cut to what qdemo keeps */
    int16_t blob_slot;     /* FTE's 1-based slot (0 serverinfo), -1 none */
    uint32_t blob_len;     /* bytes received so far */
    char blob_key[32];
    char blob_val[64];
    uint32_t ue_seq;       /* svc_fte_updateentities: its own frame counter */
    int32_t ue_last;       /* the ring slot of the newest valid one, -1 none */
    uint32_t flushed;   /* packet entity updates dropped: delta source gone */
    uint32_t players_seen;    /* bit per player updated in the open frame */
    uint32_t players_visible; /* bit per player entity emitted and not removed */
    float cmd_angles[3];      /* .qwd: view angles of the newest dem_cmd */
    uint8_t in_frame;     /* cl_frame_begin was called, cl_frame_end not yet */
    uint8_t frame_had_pe; /* the open frame holds packet entities */
    uint8_t intermission;
    uint8_t ended;        /* the last message read was svc_disconnect (the stop command's) */
    uint32_t last_chat_hash;  /* .mvd: the chat line last passed on, and when: a line sent */
    double last_chat_time;    /* to several players arrives once per player */
    qr_line print_line;       /* level 0/1 svc_print pieces of the line not yet ended */
    float inter_origin[3], inter_angles[3];
    uint16_t model_player, model_spike; /* precache indices of progs/player.mdl, spike.mdl */
    uint16_t model_head;                /* and of progs/h_player.mdl (a gibbed player) */
    uint16_t num_models, num_sounds;
    uint8_t top[QW_MAX_CLIENTS], bottom[QW_MAX_CLIENTS];
    int32_t stats[QW_MAX_CLIENTS + 1][QW_MAX_STATS]; /* raw stat slots: .mvd per player, the
                                                      * recorder's (.qwd) last */
    qw_player players[QW_MAX_CLIENTS];
    qw_store store;
    /* A rewind zeroes the state up to store.refs (QW_REWIND_CLEAR): the store's refs and
     * pool are only read through the frames, which it zeroes; level_reset zeroes the
     * baselines up to their high-water mark, which must survive the rewind to say how far. */
    uint16_t baselines_hw; /* highest baseline number set since the level began, + 1 */
    qw_ent baselines[QW_RD_MAX_EDICTS];
} qw_state;

#define QW_REWIND_CLEAR offsetof(qw_state, store.refs)

#endif
