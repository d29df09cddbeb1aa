/* q3_proto.c: what changes with the Quake III-family protocol, as data: Quake Live's field
 * tables and one row of constants per protocol (q3_local.h q3_proto; sources [QL]). */
#include "q3_local.h"

#include <stddef.h>

/* A row of a table in wire order: the field's slot in q3_ent.f / q3_ps.f, its name, its
 * width (0 a float, < 0 signed) [DM68 6]. */
#define ES_W(slot, name, bits)                                                              \
    {name, 0, 0, (uint16_t)(offsetof(q3_ent, f) + 4 * (slot)),                             \
     (bits) ? DD_Q3INT : DD_Q3FLOAT, (bits), 4, 1, 0}
#define PS_W(slot, name, bits)                                                              \
    {name, 0, 0, (uint16_t)(offsetof(q3_ps, f) + 4 * (slot)),                              \
     (bits) ? DD_Q3INT : DD_Q3FLOAT, (bits), 4, 1, 0}

/* [QL] entityStateFieldsQldm91 / EntityStateFields91: 68's order with pos.gravity after
 * apos.trBase[0] and apos.gravity after apos.trDelta[2] (protocol 73, 53 rows), then
 * jumpTime and doubleJumped (90, 55 rows), then health, armor and location (91). Each
 * protocol's table is a prefix of this one. */
const dd_field q3_ql_es_fields[Q3_QL91_ES] = {
    ES_W(Q3_ES_POS_TRTIME, "pos.trTime", 32), ES_W(Q3_ES_POS_TRBASE0, "pos.trBase[0]", 0),
    ES_W(Q3_ES_POS_TRBASE1, "pos.trBase[1]", 0), ES_W(Q3_ES_POS_TRDELTA0, "pos.trDelta[0]", 0),
    ES_W(Q3_ES_POS_TRDELTA1, "pos.trDelta[1]", 0), ES_W(Q3_ES_POS_TRBASE2, "pos.trBase[2]", 0),
    ES_W(Q3_ES_APOS_TRBASE1, "apos.trBase[1]", 0),
    ES_W(Q3_ES_POS_TRDELTA2, "pos.trDelta[2]", 0),
    ES_W(Q3_ES_APOS_TRBASE0, "apos.trBase[0]", 0), ES_W(Q3_ES_POS_GRAVITY, "pos.gravity", 32),
    ES_W(Q3_ES_EVENT, "event", 10), ES_W(Q3_ES_ANGLES2_1, "angles2[1]", 0),
    ES_W(Q3_ES_ETYPE, "eType", 8), ES_W(Q3_ES_TORSOANIM, "torsoAnim", 8),
    ES_W(Q3_ES_EVENTPARM, "eventParm", 8), ES_W(Q3_ES_LEGSANIM, "legsAnim", 8),
    ES_W(Q3_ES_GROUNDENTITYNUM, "groundEntityNum", 10),
    ES_W(Q3_ES_POS_TRTYPE, "pos.trType", 8), ES_W(Q3_ES_EFLAGS, "eFlags", 19),
    ES_W(Q3_ES_OTHERENTITYNUM, "otherEntityNum", 10), ES_W(Q3_ES_WEAPON, "weapon", 8),
    ES_W(Q3_ES_CLIENTNUM, "clientNum", 8), ES_W(Q3_ES_ANGLES1, "angles[1]", 0),
    ES_W(Q3_ES_POS_TRDURATION, "pos.trDuration", 32),
    ES_W(Q3_ES_APOS_TRTYPE, "apos.trType", 8), ES_W(Q3_ES_ORIGIN0, "origin[0]", 0),
    ES_W(Q3_ES_ORIGIN1, "origin[1]", 0), ES_W(Q3_ES_ORIGIN2, "origin[2]", 0),
    ES_W(Q3_ES_SOLID, "solid", 24), ES_W(Q3_ES_POWERUPS, "powerups", 16),
    ES_W(Q3_ES_MODELINDEX, "modelindex", 8),
    ES_W(Q3_ES_OTHERENTITYNUM2, "otherEntityNum2", 10),
    ES_W(Q3_ES_LOOPSOUND, "loopSound", 8), ES_W(Q3_ES_GENERIC1, "generic1", 8),
    ES_W(Q3_ES_ORIGIN2_2, "origin2[2]", 0), ES_W(Q3_ES_ORIGIN2_0, "origin2[0]", 0),
    ES_W(Q3_ES_ORIGIN2_1, "origin2[1]", 0), ES_W(Q3_ES_MODELINDEX2, "modelindex2", 8),
    ES_W(Q3_ES_ANGLES0, "angles[0]", 0), ES_W(Q3_ES_TIME, "time", 32),
    ES_W(Q3_ES_APOS_TRTIME, "apos.trTime", 32),
    ES_W(Q3_ES_APOS_TRDURATION, "apos.trDuration", 32),
    ES_W(Q3_ES_APOS_TRBASE2, "apos.trBase[2]", 0),
    ES_W(Q3_ES_APOS_TRDELTA0, "apos.trDelta[0]", 0),
    ES_W(Q3_ES_APOS_TRDELTA1, "apos.trDelta[1]", 0),
    ES_W(Q3_ES_APOS_TRDELTA2, "apos.trDelta[2]", 0),
    ES_W(Q3_ES_APOS_GRAVITY, "apos.gravity", 32), ES_W(Q3_ES_TIME2, "time2", 32),
    ES_W(Q3_ES_ANGLES2, "angles[2]", 0), ES_W(Q3_ES_ANGLES2_0, "angles2[0]", 0),
    ES_W(Q3_ES_ANGLES2_2, "angles2[2]", 0), ES_W(Q3_ES_CONSTANTLIGHT, "constantLight", 32),
    ES_W(Q3_ES_FRAME, "frame", 16),
    /* 90 */
    ES_W(Q3_ES_JUMPTIME, "jumpTime", 32), ES_W(Q3_ES_DOUBLEJUMPED, "doubleJumped", 1),
    /* 91 */
    ES_W(Q3_ES_HEALTH, "health", 16), ES_W(Q3_ES_ARMOR, "armor", 16),
    ES_W(Q3_ES_LOCATION, "location", 8),
};

/* [QL] playerStateFieldsQldm90 / 91: 68's rows up to weapon with pm_flags widened to 24
 * bits (QL_PS_HEAD), then 91 alone sends weaponPrimary, then both the rest of 68's rows
 * and jumpTime, doubleJumped (QL_PS_TAIL); 91 ends with seven more. */
#define QL_PS_HEAD                                                                          \
    PS_W(Q3_PS_COMMANDTIME, "commandTime", 32), PS_W(Q3_PS_ORIGIN0, "origin[0]", 0),       \
    PS_W(Q3_PS_ORIGIN1, "origin[1]", 0), PS_W(Q3_PS_BOBCYCLE, "bobCycle", 8),              \
    PS_W(Q3_PS_VELOCITY0, "velocity[0]", 0), PS_W(Q3_PS_VELOCITY1, "velocity[1]", 0),      \
    PS_W(Q3_PS_VIEWANGLES1, "viewangles[1]", 0), PS_W(Q3_PS_VIEWANGLES0, "viewangles[0]", 0), \
    PS_W(Q3_PS_WEAPONTIME, "weaponTime", -16), PS_W(Q3_PS_ORIGIN2, "origin[2]", 0),        \
    PS_W(Q3_PS_VELOCITY2, "velocity[2]", 0), PS_W(Q3_PS_LEGSTIMER, "legsTimer", 8),        \
    PS_W(Q3_PS_PM_TIME, "pm_time", -16), PS_W(Q3_PS_EVENTSEQUENCE, "eventSequence", 16),   \
    PS_W(Q3_PS_TORSOANIM, "torsoAnim", 8), PS_W(Q3_PS_MOVEMENTDIR, "movementDir", 4),      \
    PS_W(Q3_PS_EVENTS0, "events[0]", 8), PS_W(Q3_PS_LEGSANIM, "legsAnim", 8),              \
    PS_W(Q3_PS_EVENTS1, "events[1]", 8), PS_W(Q3_PS_PM_FLAGS, "pm_flags", 24),             \
    PS_W(Q3_PS_GROUNDENTITYNUM, "groundEntityNum", 10),                                    \
    PS_W(Q3_PS_WEAPONSTATE, "weaponstate", 4), PS_W(Q3_PS_EFLAGS, "eFlags", 16),           \
    PS_W(Q3_PS_EXTERNALEVENT, "externalEvent", 10), PS_W(Q3_PS_GRAVITY, "gravity", 16),    \
    PS_W(Q3_PS_SPEED, "speed", 16), PS_W(Q3_PS_DELTA_ANGLES1, "delta_angles[1]", 16),      \
    PS_W(Q3_PS_EXTERNALEVENTPARM, "externalEventParm", 8),                                 \
    PS_W(Q3_PS_VIEWHEIGHT, "viewheight", -8), PS_W(Q3_PS_DAMAGEEVENT, "damageEvent", 8),   \
    PS_W(Q3_PS_DAMAGEYAW, "damageYaw", 8), PS_W(Q3_PS_DAMAGEPITCH, "damagePitch", 8),      \
    PS_W(Q3_PS_DAMAGECOUNT, "damageCount", 8), PS_W(Q3_PS_GENERIC1, "generic1", 8),        \
    PS_W(Q3_PS_PM_TYPE, "pm_type", 8), PS_W(Q3_PS_DELTA_ANGLES0, "delta_angles[0]", 16),   \
    PS_W(Q3_PS_DELTA_ANGLES2, "delta_angles[2]", 16),                                      \
    PS_W(Q3_PS_TORSOTIMER, "torsoTimer", 12), PS_W(Q3_PS_EVENTPARMS0, "eventParms[0]", 8), \
    PS_W(Q3_PS_EVENTPARMS1, "eventParms[1]", 8), PS_W(Q3_PS_CLIENTNUM, "clientNum", 8),    \
    PS_W(Q3_PS_WEAPON, "weapon", 5)
#define QL_PS_TAIL                                                                          \
    PS_W(Q3_PS_VIEWANGLES2, "viewangles[2]", 0),                                           \
    PS_W(Q3_PS_GRAPPLEPOINT0, "grapplePoint[0]", 0),                                       \
    PS_W(Q3_PS_GRAPPLEPOINT1, "grapplePoint[1]", 0),                                       \
    PS_W(Q3_PS_GRAPPLEPOINT2, "grapplePoint[2]", 0),                                       \
    PS_W(Q3_PS_JUMPPAD_ENT, "jumppad_ent", 10), PS_W(Q3_PS_LOOPSOUND, "loopSound", 16),    \
    PS_W(Q3_PS_JUMPTIME, "jumpTime", 32), PS_W(Q3_PS_DOUBLEJUMPED, "doubleJumped", 1)

const dd_field q3_ql90_ps_fields[Q3_QL90_PS] = {QL_PS_HEAD, QL_PS_TAIL};

const dd_field q3_ql91_ps_fields[Q3_QL91_PS] = {
    QL_PS_HEAD,
    PS_W(Q3_PS_WEAPONPRIMARY, "weaponPrimary", 8),
    QL_PS_TAIL,
    PS_W(Q3_PS_CROUCHTIME, "crouchTime", 32),
    PS_W(Q3_PS_CROUCHSLIDETIME, "crouchSlideTime", 32),
    PS_W(Q3_PS_LOCATION, "location", 8), PS_W(Q3_PS_FOV, "fov", 8),
    PS_W(Q3_PS_FORWARDMOVE, "forwardmove", 8), PS_W(Q3_PS_RIGHTMOVE, "rightmove", 8),
    PS_W(Q3_PS_UPMOVE, "upmove", 8),
};

const dd_table q3_ql73_es_table = {q3_ql_es_fields, Q3_QL73_ES, 0, NULL};
const dd_table q3_ql90_es_table = {q3_ql_es_fields, Q3_QL90_ES, 0, NULL};
const dd_table q3_ql91_es_table = {q3_ql_es_fields, Q3_QL91_ES, 0, NULL};
const dd_table q3_ql90_ps_table = {q3_ql90_ps_fields, Q3_QL90_PS, 0, NULL};
const dd_table q3_ql91_ps_table = {q3_ql91_ps_fields, Q3_QL91_PS, 0, NULL};

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
 * client). Quake Live scores carry 18 [QL]. Quake Live [QL]: CS_MODELS 17, so CS_SOUNDS 17 + 256 = 273
 * and CS_PLAYERS 529; STAT_WEAPONS 3, STAT_ARMOR 4; EV_GENERAL_SOUND 42, EV_GLOBAL_SOUND 43,
 * EV_MISSILE_HIT 47, EV_RAILTRAIL 50, EV_OBITUARY 58. 73 and 90 keep 68's powerup numbers
 * (UDT PowerUps_3_90); 91 renumbered them, and WolfcamQL's powerupQldm91_t and UDT's
 * PowerUps_91 disagree by one, so 91 shows none. */
static const q3_proto protos[] = {
    {68, &q3_es_table, &q3_ps_table, 32, 288, 544, 2, 3, 45, 46, 50, 53, 60, 1, 7, 8, 0, 14,
     NULL, 0},
    {73, &q3_ql73_es_table, &q3_ps_table, 17, 273, 529, 3, 4, 42, 43, 47, 50, 58, 1, 7, 8, 0,
     18, ql_items, sizeof ql_items},
    {90, &q3_ql90_es_table, &q3_ql90_ps_table, 17, 273, 529, 3, 4, 42, 43, 47, 50, 58, 1, 7, 8,
     0, 18, ql_items, sizeof ql_items},
    {91, &q3_ql91_es_table, &q3_ql91_ps_table, 17, 273, 529, 3, 4, 42, 43, 47, 50, 58, 0, 0, 0,
     1, 18, ql_items, sizeof ql_items},
};

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
