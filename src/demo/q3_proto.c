/* q3_proto.c: what changes with the Quake III-family protocol, as data: the entity and
 * player-state field tables of 68 and of Quake Live, and one row of constants per protocol
 * (q3_local.h q3_proto; sources [DM68 6], [UDT], [QL]). */
#include "q3_local.h"

#include <stddef.h>

/* A row of a table, in wire order: the field's slot in q3_ent.f / q3_ps.f, its name, its
 * width (0 a float, < 0 signed) [DM68 6]. */
#define ROW(T, slot, name, bits)                                                            \
    {name, 0, 0, (uint16_t)(offsetof(T, f) + 4 * (slot)), (bits) ? DD_Q3INT : DD_Q3FLOAT,  \
     (bits), 4, 1, 0},
#define ES(slot, name, bits) ROW(q3_ent, Q3_ES_##slot, name, bits)
#define PS(slot, name, bits) ROW(q3_ps, Q3_PS_##slot, name, bits)

/* ---- entityState_t ----
 * 68's esTable [DM68 6] in three runs; Quake Live [QL] sends pos.gravity after the first
 * and apos.gravity after the second (73, 53 rows), then jumpTime and doubleJumped (90, 55
 * rows), then health, armor and location (91, 58 rows): each Quake Live table is a prefix
 * of the 91 one. */
#define ES_RUN1                                                                             \
    ES(POS_TRTIME, "pos.trTime", 32) ES(POS_TRBASE0, "pos.trBase[0]", 0)                   \
    ES(POS_TRBASE1, "pos.trBase[1]", 0) ES(POS_TRDELTA0, "pos.trDelta[0]", 0)              \
    ES(POS_TRDELTA1, "pos.trDelta[1]", 0) ES(POS_TRBASE2, "pos.trBase[2]", 0)              \
    ES(APOS_TRBASE1, "apos.trBase[1]", 0) ES(POS_TRDELTA2, "pos.trDelta[2]", 0)            \
    ES(APOS_TRBASE0, "apos.trBase[0]", 0)
#define ES_RUN2                                                                             \
    ES(EVENT, "event", 10) ES(ANGLES2_1, "angles2[1]", 0) ES(ETYPE, "eType", 8)            \
    ES(TORSOANIM, "torsoAnim", 8) ES(EVENTPARM, "eventParm", 8)                            \
    ES(LEGSANIM, "legsAnim", 8) ES(GROUNDENTITYNUM, "groundEntityNum", 10)                 \
    ES(POS_TRTYPE, "pos.trType", 8) ES(EFLAGS, "eFlags", 19)                               \
    ES(OTHERENTITYNUM, "otherEntityNum", 10) ES(WEAPON, "weapon", 8)                       \
    ES(CLIENTNUM, "clientNum", 8) ES(ANGLES1, "angles[1]", 0)                              \
    ES(POS_TRDURATION, "pos.trDuration", 32) ES(APOS_TRTYPE, "apos.trType", 8)             \
    ES(ORIGIN0, "origin[0]", 0) ES(ORIGIN1, "origin[1]", 0) ES(ORIGIN2, "origin[2]", 0)    \
    ES(SOLID, "solid", 24) ES(POWERUPS, "powerups", 16) ES(MODELINDEX, "modelindex", 8)    \
    ES(OTHERENTITYNUM2, "otherEntityNum2", 10) ES(LOOPSOUND, "loopSound", 8)               \
    ES(GENERIC1, "generic1", 8) ES(ORIGIN2_2, "origin2[2]", 0)                             \
    ES(ORIGIN2_0, "origin2[0]", 0) ES(ORIGIN2_1, "origin2[1]", 0)                          \
    ES(MODELINDEX2, "modelindex2", 8) ES(ANGLES0, "angles[0]", 0) ES(TIME, "time", 32)     \
    ES(APOS_TRTIME, "apos.trTime", 32) ES(APOS_TRDURATION, "apos.trDuration", 32)          \
    ES(APOS_TRBASE2, "apos.trBase[2]", 0) ES(APOS_TRDELTA0, "apos.trDelta[0]", 0)          \
    ES(APOS_TRDELTA1, "apos.trDelta[1]", 0) ES(APOS_TRDELTA2, "apos.trDelta[2]", 0)
#define ES_RUN3                                                                             \
    ES(TIME2, "time2", 32) ES(ANGLES2, "angles[2]", 0) ES(ANGLES2_0, "angles2[0]", 0)      \
    ES(ANGLES2_2, "angles2[2]", 0) ES(CONSTANTLIGHT, "constantLight", 32)                  \
    ES(FRAME, "frame", 16)

const dd_field q3_es_fields[Q3_ES_COUNT] = {ES_RUN1 ES_RUN2 ES_RUN3};

const dd_field q3_ql_es_fields[Q3_QL91_ES] = {
    ES_RUN1 ES(POS_GRAVITY, "pos.gravity", 32)
    ES_RUN2 ES(APOS_GRAVITY, "apos.gravity", 32)
    ES_RUN3
    /* 90 */
    ES(JUMPTIME, "jumpTime", 32) ES(DOUBLEJUMPED, "doubleJumped", 1)
    /* 91 */
    ES(HEALTH, "health", 16) ES(ARMOR, "armor", 16) ES(LOCATION, "location", 8)
};

/* ---- playerState_t ----
 * 68's psTable [DM68 6], which 73 keeps. Quake Live's 90 and 91 [QL] widen pm_flags to 24
 * bits and add jumpTime and doubleJumped after loopSound; 91 also sends weaponPrimary after
 * weapon and ends with seven more. */
#define PS_RUN1                                                                             \
    PS(COMMANDTIME, "commandTime", 32) PS(ORIGIN0, "origin[0]", 0)                         \
    PS(ORIGIN1, "origin[1]", 0) PS(BOBCYCLE, "bobCycle", 8) PS(VELOCITY0, "velocity[0]", 0)\
    PS(VELOCITY1, "velocity[1]", 0) PS(VIEWANGLES1, "viewangles[1]", 0)                    \
    PS(VIEWANGLES0, "viewangles[0]", 0) PS(WEAPONTIME, "weaponTime", -16)                  \
    PS(ORIGIN2, "origin[2]", 0) PS(VELOCITY2, "velocity[2]", 0)                            \
    PS(LEGSTIMER, "legsTimer", 8) PS(PM_TIME, "pm_time", -16)                              \
    PS(EVENTSEQUENCE, "eventSequence", 16) PS(TORSOANIM, "torsoAnim", 8)                   \
    PS(MOVEMENTDIR, "movementDir", 4) PS(EVENTS0, "events[0]", 8)                          \
    PS(LEGSANIM, "legsAnim", 8) PS(EVENTS1, "events[1]", 8)
/* pm_flags between the first two runs */
#define PS_RUN2                                                                             \
    PS(GROUNDENTITYNUM, "groundEntityNum", 10) PS(WEAPONSTATE, "weaponstate", 4)           \
    PS(EFLAGS, "eFlags", 16) PS(EXTERNALEVENT, "externalEvent", 10)                        \
    PS(GRAVITY, "gravity", 16) PS(SPEED, "speed", 16)                                      \
    PS(DELTA_ANGLES1, "delta_angles[1]", 16) PS(EXTERNALEVENTPARM, "externalEventParm", 8) \
    PS(VIEWHEIGHT, "viewheight", -8) PS(DAMAGEEVENT, "damageEvent", 8)                     \
    PS(DAMAGEYAW, "damageYaw", 8) PS(DAMAGEPITCH, "damagePitch", 8)                        \
    PS(DAMAGECOUNT, "damageCount", 8) PS(GENERIC1, "generic1", 8)                          \
    PS(PM_TYPE, "pm_type", 8) PS(DELTA_ANGLES0, "delta_angles[0]", 16)                     \
    PS(DELTA_ANGLES2, "delta_angles[2]", 16) PS(TORSOTIMER, "torsoTimer", 12)              \
    PS(EVENTPARMS0, "eventParms[0]", 8) PS(EVENTPARMS1, "eventParms[1]", 8)                \
    PS(CLIENTNUM, "clientNum", 8) PS(WEAPON, "weapon", 5)
#define PS_RUN3                                                                             \
    PS(VIEWANGLES2, "viewangles[2]", 0) PS(GRAPPLEPOINT0, "grapplePoint[0]", 0)            \
    PS(GRAPPLEPOINT1, "grapplePoint[1]", 0) PS(GRAPPLEPOINT2, "grapplePoint[2]", 0)        \
    PS(JUMPPAD_ENT, "jumppad_ent", 10) PS(LOOPSOUND, "loopSound", 16)
#define PS_QL_JUMP PS(JUMPTIME, "jumpTime", 32) PS(DOUBLEJUMPED, "doubleJumped", 1)

const dd_field q3_ps_fields[Q3_PS_COUNT] = {
    PS_RUN1 PS(PM_FLAGS, "pm_flags", 16) PS_RUN2 PS_RUN3
};

const dd_field q3_ql90_ps_fields[Q3_QL90_PS] = {
    PS_RUN1 PS(PM_FLAGS, "pm_flags", 24) PS_RUN2 PS_RUN3 PS_QL_JUMP
};

const dd_field q3_ql91_ps_fields[Q3_QL91_PS] = {
    PS_RUN1 PS(PM_FLAGS, "pm_flags", 24) PS_RUN2
    PS(WEAPONPRIMARY, "weaponPrimary", 8)
    PS_RUN3 PS_QL_JUMP
    PS(CROUCHTIME, "crouchTime", 32) PS(CROUCHSLIDETIME, "crouchSlideTime", 32)
    PS(LOCATION, "location", 8) PS(FOV, "fov", 8) PS(FORWARDMOVE, "forwardmove", 8)
    PS(RIGHTMOVE, "rightmove", 8) PS(UPMOVE, "upmove", 8)
};

/* ---- Quake III 1.1x-1.27 (protocols 43..48) [Q3OLD] ----
 * The tables in entityState_t / playerState_t order, as UberDemoTools' EntityStateFields3/48
 * and PlayerStateFields3/48 list them (CDP's Protocol43NetFields and Protocol48NetFields
 * agree): dm3 sends 50 entity and 45 player fields, dm_48 widens entity eFlags to 19 bits
 * and adds generic1, and in the player table signs pm_time, weaponTime and viewheight,
 * widens externalEvent to 10 bits and adds jumppad_ent, loopSound and generic1. */
#define ES_OLD(eflags_bits)                                                                 \
    ES(ETYPE, "eType", 8) ES(EFLAGS, "eFlags", eflags_bits)                                \
    ES(POS_TRTYPE, "pos.trType", 8) ES(POS_TRTIME, "pos.trTime", 32)                       \
    ES(POS_TRDURATION, "pos.trDuration", 32) ES(POS_TRBASE0, "pos.trBase[0]", 0)           \
    ES(POS_TRBASE1, "pos.trBase[1]", 0) ES(POS_TRBASE2, "pos.trBase[2]", 0)                \
    ES(POS_TRDELTA0, "pos.trDelta[0]", 0) ES(POS_TRDELTA1, "pos.trDelta[1]", 0)            \
    ES(POS_TRDELTA2, "pos.trDelta[2]", 0) ES(APOS_TRTYPE, "apos.trType", 8)                \
    ES(APOS_TRTIME, "apos.trTime", 32) ES(APOS_TRDURATION, "apos.trDuration", 32)          \
    ES(APOS_TRBASE0, "apos.trBase[0]", 0) ES(APOS_TRBASE1, "apos.trBase[1]", 0)            \
    ES(APOS_TRBASE2, "apos.trBase[2]", 0) ES(APOS_TRDELTA0, "apos.trDelta[0]", 0)          \
    ES(APOS_TRDELTA1, "apos.trDelta[1]", 0) ES(APOS_TRDELTA2, "apos.trDelta[2]", 0)        \
    ES(TIME, "time", 32) ES(TIME2, "time2", 32) ES(ORIGIN0, "origin[0]", 0)                \
    ES(ORIGIN1, "origin[1]", 0) ES(ORIGIN2, "origin[2]", 0) ES(ORIGIN2_0, "origin2[0]", 0) \
    ES(ORIGIN2_1, "origin2[1]", 0) ES(ORIGIN2_2, "origin2[2]", 0)                          \
    ES(ANGLES0, "angles[0]", 0) ES(ANGLES1, "angles[1]", 0) ES(ANGLES2, "angles[2]", 0)    \
    ES(ANGLES2_0, "angles2[0]", 0) ES(ANGLES2_1, "angles2[1]", 0)                          \
    ES(ANGLES2_2, "angles2[2]", 0) ES(OTHERENTITYNUM, "otherEntityNum", 10)                \
    ES(OTHERENTITYNUM2, "otherEntityNum2", 10) ES(GROUNDENTITYNUM, "groundEntityNum", 10)  \
    ES(LOOPSOUND, "loopSound", 8) ES(CONSTANTLIGHT, "constantLight", 32)                   \
    ES(MODELINDEX, "modelindex", 8) ES(MODELINDEX2, "modelindex2", 8)                      \
    ES(FRAME, "frame", 16) ES(CLIENTNUM, "clientNum", 8) ES(SOLID, "solid", 24)            \
    ES(EVENT, "event", 10) ES(EVENTPARM, "eventParm", 8) ES(POWERUPS, "powerups", 16)      \
    ES(WEAPON, "weapon", 8) ES(LEGSANIM, "legsAnim", 8) ES(TORSOANIM, "torsoAnim", 8)
#define PS_OLD(time_bits, ext_bits, vh_bits)                                                \
    PS(COMMANDTIME, "commandTime", 32) PS(PM_TYPE, "pm_type", 8)                           \
    PS(BOBCYCLE, "bobCycle", 8) PS(PM_FLAGS, "pm_flags", 16)                               \
    PS(PM_TIME, "pm_time", time_bits) PS(ORIGIN0, "origin[0]", 0)                          \
    PS(ORIGIN1, "origin[1]", 0) PS(ORIGIN2, "origin[2]", 0)                                \
    PS(VELOCITY0, "velocity[0]", 0) PS(VELOCITY1, "velocity[1]", 0)                        \
    PS(VELOCITY2, "velocity[2]", 0) PS(WEAPONTIME, "weaponTime", time_bits)                \
    PS(GRAVITY, "gravity", 16) PS(SPEED, "speed", 16)                                      \
    PS(DELTA_ANGLES0, "delta_angles[0]", 16) PS(DELTA_ANGLES1, "delta_angles[1]", 16)      \
    PS(DELTA_ANGLES2, "delta_angles[2]", 16) PS(GROUNDENTITYNUM, "groundEntityNum", 10)    \
    PS(LEGSTIMER, "legsTimer", 8) PS(TORSOTIMER, "torsoTimer", 12)                         \
    PS(LEGSANIM, "legsAnim", 8) PS(TORSOANIM, "torsoAnim", 8)                              \
    PS(MOVEMENTDIR, "movementDir", 4) PS(EFLAGS, "eFlags", 16)                             \
    PS(EVENTSEQUENCE, "eventSequence", 16) PS(EVENTS0, "events[0]", 8)                     \
    PS(EVENTS1, "events[1]", 8) PS(EVENTPARMS0, "eventParms[0]", 8)                        \
    PS(EVENTPARMS1, "eventParms[1]", 8) PS(EXTERNALEVENT, "externalEvent", ext_bits)       \
    PS(EXTERNALEVENTPARM, "externalEventParm", 8) PS(CLIENTNUM, "clientNum", 8)            \
    PS(WEAPON, "weapon", 5) PS(WEAPONSTATE, "weaponstate", 4)                              \
    PS(VIEWANGLES0, "viewangles[0]", 0) PS(VIEWANGLES1, "viewangles[1]", 0)                \
    PS(VIEWANGLES2, "viewangles[2]", 0) PS(VIEWHEIGHT, "viewheight", vh_bits)              \
    PS(DAMAGEEVENT, "damageEvent", 8) PS(DAMAGEYAW, "damageYaw", 8)                        \
    PS(DAMAGEPITCH, "damagePitch", 8) PS(DAMAGECOUNT, "damageCount", 8)                    \
    PS(GRAPPLEPOINT0, "grapplePoint[0]", 0) PS(GRAPPLEPOINT1, "grapplePoint[1]", 0)        \
    PS(GRAPPLEPOINT2, "grapplePoint[2]", 0)

const dd_field q3_dm3_es_fields[Q3_DM3_ES] = {ES_OLD(16)};
const dd_field q3_dm48_es_fields[Q3_DM48_ES] = {ES_OLD(19) ES(GENERIC1, "generic1", 8)};
const dd_field q3_dm3_ps_fields[Q3_DM3_PS] = {PS_OLD(16, 8, 8)};
const dd_field q3_dm48_ps_fields[Q3_DM48_PS] = {
    PS_OLD(-16, 10, -8) PS(JUMPPAD_ENT, "jumppad_ent", 10) PS(LOOPSOUND, "loopSound", 16)
    PS(GENERIC1, "generic1", 8)
};
const dd_table q3_dm3_es_table = {q3_dm3_es_fields, Q3_DM3_ES, 0, NULL};
const dd_table q3_dm48_es_table = {q3_dm48_es_fields, Q3_DM48_ES, 0, NULL};
const dd_table q3_dm3_ps_table = {q3_dm3_ps_fields, Q3_DM3_PS, 0, NULL};
const dd_table q3_dm48_ps_table = {q3_dm48_ps_fields, Q3_DM48_PS, 0, NULL};

const dd_table q3_es_table = {q3_es_fields, Q3_ES_COUNT, 0, NULL};
const dd_table q3_ps_table = {q3_ps_fields, Q3_PS_COUNT, 0, NULL};
const dd_table q3_ql73_es_table = {q3_ql_es_fields, Q3_QL73_ES, 0, NULL};
const dd_table q3_ql90_es_table = {q3_ql_es_fields, Q3_QL90_ES, 0, NULL};
const dd_table q3_ql91_es_table = {q3_ql_es_fields, Q3_QL91_ES, 0, NULL};
const dd_table q3_ql90_ps_table = {q3_ql90_ps_fields, Q3_QL90_PS, 0, NULL};
const dd_table q3_ql91_ps_table = {q3_ql91_ps_fields, Q3_QL91_PS, 0, NULL};

/* ---- the constants ---- */

/* [QL] Quake Live's bg_itemlist (bg_misc.c, UDT Items_73) is baseq3's with
 * item_armor_jacket (no baseq3 model) at 4: Quake Live item i >= 5 is baseq3's i - 1.
 * Quake Live's later items (37 on: missionpack items, keys, the heavy machinegun) have no
 * model here. */
static const uint8_t ql_items[] = {
    0,  1,  2,  3,  0,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
    18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,
};

/* One row per protocol. 66 .. 71: baseq3 1.32's bg_public.h (CS_MODELS 32, CS_SOUNDS 288,
 * CS_PLAYERS 544; STAT_WEAPONS 2, STAT_ARMOR 3; EV_GENERAL_SOUND 45 .. EV_OBITUARY 60; PW_QUAD
 * 1, PW_REDFLAG 7, PW_BLUEFLAG 8) and g_cmds.c DeathmatchScoreboardMessage (14 numbers per
 * client). Quake Live [QL]: CS_MODELS 17, so CS_SOUNDS 17 + 256 = 273 and CS_PLAYERS 529;
 * STAT_WEAPONS 3, STAT_ARMOR 4; EV_GENERAL_SOUND 42, EV_GLOBAL_SOUND 43, EV_MISSILE_HIT 47,
 * EV_RAILTRAIL 50, EV_OBITUARY 58; scores carry 18 numbers per client. 73 and 90 keep 68's
 * powerup numbers (UDT PowerUps_3_90); 91 renumbered them, and WolfcamQL's powerupQldm91_t
 * and UDT's PowerUps_91 disagree by one, so 91 shows none. */
static const q3_proto protos[] = {
    {68, &q3_es_table, &q3_ps_table, 32, 288, 544, 2, 3, 45, 46, 50, 53, 60, 1, 7, 8, 0, 14,
     NULL, 0, 21, 23, 4},
    {73, &q3_ql73_es_table, &q3_ps_table, 17, 273, 529, 3, 4, 42, 43, 47, 50, 58, 1, 7, 8, 0,
     18, ql_items, sizeof ql_items, 13, 658, 5},
    {90, &q3_ql90_es_table, &q3_ql90_ps_table, 17, 273, 529, 3, 4, 42, 43, 47, 50, 58, 1, 7, 8,
     0, 18, ql_items, sizeof ql_items, 13, 658, 5},
    {91, &q3_ql91_es_table, &q3_ql91_ps_table, 17, 273, 529, 3, 4, 42, 43, 47, 50, 58, 0, 0, 0,
     1, 18, ql_items, sizeof ql_items, 13, 658, 5},
};

/* Protocols 43..48 [Q3OLD], by the shape of the file (q3.c): their events, entity types,
 * configstrings and persistant slots are turned into 68's as they are read (q3.c), so the
 * constants are 68's; dm3's "scores" sends 6 numbers a client (UDT plug_in_scores.cpp
 * ParseScoresCommand), dm_48's 14. */
static const q3_proto old_protos[] = {
    {43, &q3_dm3_es_table, &q3_dm3_ps_table, 32, 288, 544, 2, 3, 45, 46, 50, 53, 60, 1, 7, 8,
     0, 6, NULL, 0, 21, 23, 4},
    {48, &q3_dm48_es_table, &q3_dm48_ps_table, 32, 288, 544, 2, 3, 45, 46, 50, 53, 60, 1, 7,
     8, 0, 14, NULL, 0, 21, 23, 4},
};

const q3_proto *q3_proto_old(int shape)
{
    return shape == Q3_OLD_DM3 ? &old_protos[0] : shape == Q3_OLD_48 ? &old_protos[1] : NULL;
}

const q3_proto *q3_proto_68(void) { return &protos[0]; }

const q3_proto *q3_proto_find(int protocol)
{
    if (protocol >= 66 && protocol <= 71)
        return &protos[0];
    for (size_t i = 1; i < sizeof protos / sizeof protos[0]; i++)
        if (protos[i].protocol == protocol)
            return &protos[i];
    return NULL;
}
