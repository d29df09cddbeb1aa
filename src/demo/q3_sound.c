/* q3_sound.c: Quake III entity events that make a sound the cgame names itself (weapon fire,
 * impacts, item pickups, the player model's jump, pain, death and fall sounds), logged as
 * sound starts on precache slots past the configstrings' 256 that hold those names. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "q3_local.h"

/* entity_event_t of baseq3 1.32 and OpenArena (bg_public.h), the ones handled here */
enum {
    Q3_EV_FOOTSTEP = 1, Q3_EV_FOOTSTEP_METAL = 2, Q3_EV_FOOTSPLASH = 3, Q3_EV_SWIM = 5,
    Q3_EV_FALL_SHORT = 10, Q3_EV_FALL_MEDIUM = 11, Q3_EV_FALL_FAR = 12, Q3_EV_JUMP = 14,
    Q3_EV_ITEM_PICKUP = 19, Q3_EV_GLOBAL_ITEM_PICKUP = 20, Q3_EV_FIRE_WEAPON = 23,
    Q3_EV_ITEM_RESPAWN = 40, Q3_EV_PLAYER_TELEPORT_IN = 42, Q3_EV_PLAYER_TELEPORT_OUT = 43,
    Q3_EV_BULLET_HIT_FLESH = 48, Q3_EV_BULLET_HIT_WALL = 49, Q3_EV_PAIN = 56,
    Q3_EV_DEATH1 = 57, Q3_EV_DEATH3 = 59
};
/* weapon_t (bg_public.h) */
enum { Q3_WP_SHOTGUN = 3 }; /* (the others: q3_local.h) */
/* soundChannel_t (q_shared.h) */
enum { Q3_CHAN_AUTO = 0, Q3_CHAN_VOICE = 3, Q3_CHAN_ITEM = 4, Q3_CHAN_WEAPON = 2,
       Q3_CHAN_BODY = 5 };

/* cg_weapons.c CG_RegisterWeapon: each weapon's flashSound[0] (weapon_t 1..9); the machine gun
 * has four, picked at random by the cgame and here by variant() */
static const char *const fire_sound[] = {
    NULL, "sound/weapons/melee/fstatck.wav", "sound/weapons/machinegun/machgf%db.wav",
    "sound/weapons/shotgun/sshotf1b.wav", "sound/weapons/grenade/grenlf1a.wav",
    "sound/weapons/rocket/rocklf1a.wav", "sound/weapons/lightning/lg_fire.wav",
    "sound/weapons/railgun/railgf1a.wav", "sound/weapons/plasma/hyprbf1a.wav",
    "sound/weapons/bfg/bfg_fire.wav"};

/* cg_weapons.c CG_MissileHitWall: the impact's sound by weapon, r the pick of rand() & 3
 * (names: cg_main.c CG_RegisterSounds, and CG_RegisterWeapon for the lightning gun's);
 * NULL for the shotgun. The switch's default falls into the lightning gun's case. */
static const char *impact_sound(int weapon, int r)
{
    static const char *const ric[] = {"sound/weapons/machinegun/ric1.wav",
                                      "sound/weapons/machinegun/ric2.wav",
                                      "sound/weapons/machinegun/ric3.wav",
                                      "sound/weapons/machinegun/ric3.wav"};
    static const char *const lghit[] = {"sound/weapons/lightning/lg_hit2.wav",
                                        "sound/weapons/lightning/lg_hit2.wav",
                                        "sound/weapons/lightning/lg_hit.wav",
                                        "sound/weapons/lightning/lg_hit3.wav"};
    switch (weapon) {
    case Q3_WP_GRENADE_LAUNCHER:
    case Q3_WP_ROCKET_LAUNCHER:
    case Q3_WP_BFG:
        return "sound/weapons/rocket/rocklx1a.wav"; /* sfx_rockexp */
    case Q3_WP_RAILGUN:
    case Q3_WP_PLASMAGUN:
        return "sound/weapons/plasma/plasmx1a.wav"; /* sfx_plasmaexp */
    case Q3_WP_SHOTGUN:
        return NULL;
    case 2: /* WP_MACHINEGUN */
        return ric[r & 3];
    default:
        return lghit[r & 3];
    }
}

/* bg_misc.c bg_itemlist: the pickup_sound of item 1..33 (armour, health, weapons 8..17, ammo
 * 18..25, holdables 26..27, powerups 28..33); the flags and later items have none here */
static const char *pickup_sound(int item)
{
    static const char *const health[] = {"sound/items/s_health.wav", "sound/items/n_health.wav",
                                         "sound/items/l_health.wav", "sound/items/m_health.wav"};
    static const char *const powerup[] = {
        "sound/items/quaddamage.wav", "sound/items/protect.wav", "sound/items/haste.wav",
        "sound/items/invisibility.wav", "sound/items/regeneration.wav", "sound/items/flight.wav"};
    if (item == 1)
        return "sound/misc/ar1_pkup.wav";
    if (item >= 2 && item <= 3)
        return "sound/misc/ar2_pkup.wav";
    if (item >= 4 && item <= 7)
        return health[item - 4];
    if (item >= 8 && item <= 17)
        return "sound/misc/w_pkup.wav";
    if (item >= 18 && item <= 25)
        return "sound/misc/am_pkup.wav";
    if (item >= 26 && item <= 27)
        return "sound/items/holdable.wav";
    if (item >= 28 && item <= 33)
        return powerup[item - 28];
    return NULL;
}

/* A start of the sound of that name at full volume: on entity (-1 none) and channel, at
 * attenuation x64 (0: heard everywhere), from org (NULL: none). */
static void start_sound(cl_state *cl, const char *name, int entity, int chan, int att,
                        const float *org)
{
    int slot = cl_sound_intern(cl, Q3_MAX_SOUNDS, name);
    if (!slot)
        return;
    cl_sound so;
    memset(&so, 0, sizeof so);
    so.sound = (uint16_t)slot;
    so.entity = (int16_t)entity;
    so.channel = (uint8_t)chan;
    so.volume = 255;
    so.attenuation = (uint8_t)att;
    if (org) {
        so.has_origin = 1;
        memcpy(so.origin, org, sizeof so.origin);
    }
    cl_sound_add(cl, &so);
}

/* The pick 0..3 of a sound the cgame picks by rand() & 3 (footsteps, the machine gun's
 * shots, ricochets, lightning hits): a hash of the time, the entity and the event with its
 * toggle bits, so a demo sounds the same on every run and after every seek, and each of
 * the four comes in turn (the time alone, on a 50 ms grid, gave two). */
static int variant(const cl_state *cl, const q3_ent *e, int ev)
{
    uint64_t h = (uint64_t)(int64_t)(cl->time * 1000) * 0x9e3779b97f4a7c15u;
    h ^= (uint64_t)e->number << 24 | (uint64_t)(uint16_t)e->f[Q3_ES_EVENT] << 8 | (uint8_t)ev;
    h ^= h >> 33; /* MurmurHash3's 64-bit finaliser */
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    return (int)(h & 3);
}

/* A name built piece by piece, cut as snprintf would cut it (snprintf's format parsing was
 * three quarters of the event sounds' time, 4 % of decoding the OpenArena bot match). */
typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t len)
{
    for (size_t i = 0; i < len && s[i] && b->n + 1 < b->cap; i++)
        b->p[b->n++] = s[i];
    b->p[b->n] = 0;
}

static void sb_str(sbuf *b, const char *s) { sb_put(b, s, SIZE_MAX); }

/* pattern with its one "%d" (if any) as digit 1..9 */
static void sb_digit(sbuf *b, const char *pattern, int digit)
{
    const char *pct = strstr(pattern, "%d");
    char d[2] = {(char)('0' + digit), 0};
    if (!pct) {
        sb_str(b, pattern);
        return;
    }
    sb_put(b, pattern, (size_t)(pct - pattern));
    sb_str(b, d);
    sb_str(b, pct + 2);
}

void q3_event_sound(cl_state *cl, const q3_ent *e, int ev, const float org[3])
{
    char name[CL_NAME_LEN * 2];
    sbuf sb = {name, 0, sizeof name};
    int parm = e->f[Q3_ES_EVENTPARM], chan = Q3_CHAN_VOICE, global = 0;
    const char *custom = NULL; /* a player model sound (cg_players.c cg_customSoundNames) */
    name[0] = 0;
    if (cl->level.protocol > 71)
        return; /* Quake Live numbers its events differently */
    if (ev == Q3_EV_BULLET_HIT_WALL || (ev >= Q3_EV_MISSILE_HIT && ev <= Q3_EV_RAILTRAIL)) {
        /* cg_event.c CG_EntityEvent: a missile that hit a player sounds only when it
         * explodes (CG_MissileHitPlayer: grenade, rocket, plasma, BFG); one that missed by
         * its weapon (CG_MissileHitWall); a rail's end unless on a no-impact surface
         * (eventParm 255), as the railgun; a bullet in a wall as the machine gun's
         * (CG_Bullet). Heard where it hit, on no entity (ENTITYNUM_WORLD, CHAN_AUTO). */
        int w = ev == Q3_EV_BULLET_HIT_WALL ? 2 : ev == Q3_EV_RAILTRAIL ? Q3_WP_RAILGUN
                                                                        : e->f[Q3_ES_WEAPON];
        if (ev == Q3_EV_MISSILE_HIT && w != Q3_WP_GRENADE_LAUNCHER &&
            w != Q3_WP_ROCKET_LAUNCHER && w != Q3_WP_PLASMAGUN && w != Q3_WP_BFG)
            return;
        if (ev == Q3_EV_RAILTRAIL && parm == 255)
            return;
        const char *s = impact_sound(w, variant(cl, e, ev));
        if (s)
            start_sound(cl, s, -1, Q3_CHAN_AUTO, 64, org);
        return;
    }
    if (ev >= Q3_EV_FOOTSTEP && ev <= Q3_EV_SWIM) {
        /* cg_event.c CG_EntityEvent, cg_main.c CG_RegisterSounds: footsteps[type][rand & 3],
         * "step" for a model's normal footsteps (its animation.cfg may name boot, flesh,
         * mech or energy: the decoder does not read it), "clank" on metal, "splash" in
         * water (EV_FOOTSPLASH, EV_FOOTWADE, EV_SWIM); the pick by variant(), not rand().
         * The names written out: most of a match's events, each built a character at a
         * time cost what all the rest of its event took. */
        static const char *const footstep[3][4] = {
            {"sound/player/footsteps/step1.wav", "sound/player/footsteps/step2.wav",
             "sound/player/footsteps/step3.wav", "sound/player/footsteps/step4.wav"},
            {"sound/player/footsteps/clank1.wav", "sound/player/footsteps/clank2.wav",
             "sound/player/footsteps/clank3.wav", "sound/player/footsteps/clank4.wav"},
            {"sound/player/footsteps/splash1.wav", "sound/player/footsteps/splash2.wav",
             "sound/player/footsteps/splash3.wav", "sound/player/footsteps/splash4.wav"}};
        int type = ev == Q3_EV_FOOTSTEP ? 0 : ev == Q3_EV_FOOTSTEP_METAL ? 1 : 2;
        start_sound(cl, footstep[type][variant(cl, e, ev)], e->number + 1, Q3_CHAN_BODY, 64,
                    org);
        return;
    } else if (ev == Q3_EV_FIRE_WEAPON) {
        /* cg_weapons.c CG_FireWeapon */
        int w = e->f[Q3_ES_WEAPON];
        if (w <= 0 || w >= (int)(sizeof fire_sound / sizeof fire_sound[0]))
            return;
        sb_digit(&sb, fire_sound[w], 1 + variant(cl, e, ev));
        chan = Q3_CHAN_WEAPON;
    } else if (ev == Q3_EV_ITEM_PICKUP || ev == Q3_EV_GLOBAL_ITEM_PICKUP) {
        /* cg_event.c CG_EntityEvent: the item's pickup sound at the picker, but for a powerup
         * or team item (28..35, IT_POWERUP and IT_TEAM) n_healthSound, as its own sound
         * goes to everyone in EV_GLOBAL_ITEM_PICKUP: played on cg.snap->ps.clientNum, the
         * listener's entity (q3.c passes it), heard at full volume */
        const char *s = ev == Q3_EV_ITEM_PICKUP && parm >= 28 && parm <= 35
                            ? "sound/items/n_health.wav"
                            : pickup_sound(parm);
        if (!s)
            return;
        sb_str(&sb, s);
        chan = Q3_CHAN_AUTO;
        global = ev == Q3_EV_GLOBAL_ITEM_PICKUP;
    } else if (ev == Q3_EV_JUMP) {
        custom = "jump1.wav";
    } else if (ev == Q3_EV_PAIN) {
        /* cg_event.c CG_PainEvent: by the health left (eventParm) */
        custom = parm < 25 ? "pain25_1.wav" : parm < 50 ? "pain50_1.wav"
                 : parm < 75 ? "pain75_1.wav" : "pain100_1.wav";
    } else if (ev >= Q3_EV_DEATH1 && ev <= Q3_EV_DEATH3) {
        static const char *const death[] = {"death1.wav", "death2.wav", "death3.wav"};
        custom = death[ev - Q3_EV_DEATH1];
    } else if (ev == Q3_EV_FALL_SHORT) {
        sb_str(&sb, "sound/player/land1.wav");
        chan = Q3_CHAN_AUTO;
    } else if (ev == Q3_EV_FALL_MEDIUM) {
        custom = "pain100_1.wav";
    } else if (ev == Q3_EV_FALL_FAR) {
        custom = "fall1.wav";
    } else if (ev == Q3_EV_PLAYER_TELEPORT_IN || ev == Q3_EV_PLAYER_TELEPORT_OUT) {
        sb_str(&sb, ev == Q3_EV_PLAYER_TELEPORT_IN ? "sound/world/telein.wav"
                                                   : "sound/world/teleout.wav");
        chan = Q3_CHAN_AUTO;
    } else if (ev == Q3_EV_ITEM_RESPAWN) {
        sb_str(&sb, "sound/items/respawn1.wav");
        chan = Q3_CHAN_AUTO;
    } else {
        return;
    }
    if (custom) {
        /* CG_CustomSound: the sounds of the client's model (sarge when unknown) */
        int cn = e->f[Q3_ES_CLIENTNUM];
        const char *model = cn >= 0 && cn < CL_MAX_PLAYERS && cl->players[cn].model[0]
                                ? cl->players[cn].model : "sarge";
        sb_str(&sb, "sound/player/");
        sb_put(&sb, model, strcspn(model, "/"));
        sb_str(&sb, "/");
        sb_str(&sb, custom);
    }
    start_sound(cl, name, e->number + 1, chan, global ? 0 : 64, global ? NULL : org);
}

/* persEnum_t (bg_public.h) and the rank's tie bit */
enum {
    Q3_PERS_HITS = 1, Q3_PERS_RANK = 2, Q3_PERS_TEAM_ = 3, Q3_PERS_PLAYEREVENTS = 5,
    Q3_PERS_IMPRESSIVE = 9, Q3_PERS_EXCELLENT = 10, Q3_PERS_DEFEND = 11, Q3_PERS_ASSIST = 12,
    Q3_PERS_GAUNTLET = 13, Q3_PERS_CAPTURES = 14, Q3_RANK_TIED = 0x4000,
    Q3_PLAYEREVENT_DENIEDREWARD = 1, Q3_PLAYEREVENT_GAUNTLETREWARD = 2,
    Q3_PLAYEREVENT_HOLYSHIT = 4
};

/* A sound heard everywhere (trap_S_StartLocalSound), by name. */
static void local_sound(cl_state *cl, const char *name)
{
    start_sound(cl, name, -1, Q3_CHAN_AUTO, 0, NULL);
}

void q3_local_sounds(cl_state *cl, const int32_t pers[16], const int32_t old[16], int team_game)
{
    if (cl->level.protocol > 71 || pers[Q3_PERS_TEAM_] != old[Q3_PERS_TEAM_])
        return; /* Quake Live numbers them otherwise; a team change says nothing */
    /* the media names are cg_main.c CG_RegisterSounds' */
    if (pers[Q3_PERS_HITS] > old[Q3_PERS_HITS])
        local_sound(cl, "sound/feedback/hit.wav");
    else if (pers[Q3_PERS_HITS] < old[Q3_PERS_HITS])
        local_sound(cl, "sound/feedback/hit_teammate.wav");
    if (cl->intermission)
        return;
    int reward = 0;
    static const struct {
        int pers;
        const char *sound;
    } rewards[] = {
        {Q3_PERS_CAPTURES, "sound/teamplay/flagcapture_yourteam.wav"},
        {Q3_PERS_IMPRESSIVE, "sound/feedback/impressive.wav"},
        {Q3_PERS_EXCELLENT, "sound/feedback/excellent.wav"},
        {Q3_PERS_GAUNTLET, "sound/feedback/humiliation.wav"},
        {Q3_PERS_DEFEND, "sound/feedback/defense.wav"},
        {Q3_PERS_ASSIST, "sound/feedback/assist.wav"},
    };
    for (size_t i = 0; i < sizeof rewards / sizeof rewards[0]; i++)
        if (pers[rewards[i].pers] != old[rewards[i].pers]) {
            local_sound(cl, rewards[i].sound);
            reward = 1;
        }
    int changed = pers[Q3_PERS_PLAYEREVENTS] ^ old[Q3_PERS_PLAYEREVENTS];
    if (changed & Q3_PLAYEREVENT_DENIEDREWARD)
        local_sound(cl, "sound/feedback/denied.wav");
    if (changed & Q3_PLAYEREVENT_GAUNTLETREWARD)
        local_sound(cl, "sound/feedback/humiliation.wav");
    if (changed & Q3_PLAYEREVENT_HOLYSHIT)
        local_sound(cl, "sound/feedback/holyshit.wav");
    /* lead changes, outside team games and when no reward spoke (warmup is not told) */
    if (reward || team_game || pers[Q3_PERS_RANK] == old[Q3_PERS_RANK])
        return;
    if (pers[Q3_PERS_RANK] == 0)
        local_sound(cl, "sound/feedback/takenlead.wav");
    else if (pers[Q3_PERS_RANK] == Q3_RANK_TIED)
        local_sound(cl, "sound/feedback/tiedlead.wav");
    else if ((old[Q3_PERS_RANK] & ~Q3_RANK_TIED) == 0)
        local_sound(cl, "sound/feedback/lostlead.wav");
}

/* baseq3's cgame (and OpenArena's, and Team Arena's): mods such as CPMA and OSP count their
 * own time (a warmup, rounds) and speak otherwise; Quake Live numbers its configstrings
 * otherwise. */
static int base_cgame(const cl_state *cl)
{
    /* each name with its NUL as one fixed-size compare (the array holds 32 bytes): asked
     * several times a frame, where three strcmp calls cost more than the rest */
    const char *g = cl->level.gamedir;
    _Static_assert(sizeof cl->level.gamedir >= sizeof "missionpack", "gamedir holds the names");
    return cl->level.protocol <= 71 &&
           (!memcmp(g, "baseq3", sizeof "baseq3") || !memcmp(g, "baseoa", sizeof "baseoa") ||
            !memcmp(g, "missionpack", sizeof "missionpack"));
}

void q3_warmup_cs(cl_state *cl, q3_state *s, const char *value, int announce)
{
    if (!base_cgame(cl))
        return;
    int warmup = 0;
    for (const char *p = value; *p >= '0' && *p <= '9' && warmup < 100000000; p++)
        warmup = warmup * 10 + (*p - '0');
    if (value[0] == '-') /* atoi: only -1 (waiting for players) is ever sent */
        warmup = -1;
    s->warmup_count = -1;
    if (announce && warmup > 0 && s->warmup <= 0)
        local_sound(cl, "sound/feedback/prepare.wav"); /* cgs.media.countPrepareSound */
    s->warmup = warmup;
}

void q3_warmup_tick(cl_state *cl, q3_state *s, int32_t now)
{
    if (!base_cgame(cl) || s->warmup <= 0)
        return;
    int64_t sec = ((int64_t)s->warmup - now) / 1000; /* C's division, toward zero */
    if (sec < 0) {
        s->warmup = 0;
        sec = 0;
    }
    if (sec == s->warmup_count)
        return;
    s->warmup_count = (int32_t)(sec > 1000000 ? 1000000 : sec);
    /* cg_main.c CG_RegisterSounds: count1Sound .. count3Sound */
    static const char *const count[] = {"sound/feedback/one.wav", "sound/feedback/two.wav",
                                        "sound/feedback/three.wav"};
    if (sec <= 2)
        local_sound(cl, count[sec]);
    char text[32];
    snprintf(text, sizeof text, "Starts in: %d", (int)s->warmup_count + 1);
    cl_message_add(cl, CL_MSG_CENTER, text);
}

void q3_map_restart(cl_state *cl, q3_state *s)
{
    if (!base_cgame(cl) || s->warmup != 0)
        return;
    local_sound(cl, "sound/feedback/fight.wav"); /* cgs.media.countFightSound */
    cl_message_add(cl, CL_MSG_CENTER, "FIGHT!");
}

/* cg_main.c CG_RegisterSounds' team and CTF announcer sounds, by cgs.media name. */
enum {
    TS_NONE, TS_CAPTURE_YOURS, TS_CAPTURE_OPPONENT, TS_RETURN_YOURS, TS_RETURN_OPPONENT,
    TS_RED_RETURNED, TS_BLUE_RETURNED, TS_ENEMY_TOOK_YOURS, TS_YOURS_TOOK_ENEMYS, TS_RED_SCORED,
    TS_BLUE_SCORED, TS_RED_LEADS, TS_BLUE_LEADS, TS_TIED, TS_COUNT
};
static const char *const team_sound_name[TS_COUNT] = {
    NULL,
    "sound/teamplay/flagcapture_yourteam.wav",
    "sound/teamplay/flagcapture_opponent.wav",
    "sound/teamplay/flagreturn_yourteam.wav",
    "sound/teamplay/flagreturn_opponent.wav",
    "sound/teamplay/voc_red_returned.wav",
    "sound/teamplay/voc_blue_returned.wav",
    "sound/teamplay/voc_enemy_flag.wav",
    "sound/teamplay/voc_team_flag.wav",
    "sound/teamplay/voc_red_scores.wav",
    "sound/teamplay/voc_blue_scores.wav",
    "sound/feedback/redleads.wav",
    "sound/feedback/blueleads.wav",
    "sound/feedback/teamstied.wav",
};

/* CG_AddBufferedSound: a full ring drops its oldest. */
static void buffer_sound(q3_state *s, int id)
{
    int n = (int)sizeof s->sound_buffer;
    s->sound_buffer[s->sound_in % n] = (uint8_t)id;
    s->sound_in = (uint8_t)((s->sound_in + 1) % n);
    if (s->sound_in == s->sound_out)
        s->sound_out = (uint8_t)((s->sound_out + 1) % n);
}

void q3_team_sound(cl_state *cl, q3_state *s, int parm)
{
    if (!base_cgame(cl))
        return;
    /* cg.snap->ps.persistant[PERS_TEAM]: the followed player's team (1 red, 2 blue) */
    int team = s->have_pers ? s->pers[Q3_PERS_TEAM_] : 0;
    enum { GTS_RED_CAPTURE, GTS_BLUE_CAPTURE, GTS_RED_RETURN, GTS_BLUE_RETURN, GTS_RED_TAKEN,
           GTS_BLUE_TAKEN, GTS_REDOBELISK, GTS_BLUEOBELISK, GTS_REDTEAM_SCORED,
           GTS_BLUETEAM_SCORED, GTS_REDTEAM_TOOK_LEAD, GTS_BLUETEAM_TOOK_LEAD,
           GTS_TEAMS_ARE_TIED };
    switch (parm) {
    case GTS_RED_CAPTURE:
    case GTS_BLUE_CAPTURE:
        buffer_sound(s, team == (parm == GTS_RED_CAPTURE ? 1 : 2) ? TS_CAPTURE_YOURS
                                                                   : TS_CAPTURE_OPPONENT);
        break;
    case GTS_RED_RETURN: /* the blue flag came back */
    case GTS_BLUE_RETURN:
        buffer_sound(s, team == (parm == GTS_RED_RETURN ? 1 : 2) ? TS_RETURN_YOURS
                                                                 : TS_RETURN_OPPONENT);
        buffer_sound(s, parm == GTS_RED_RETURN ? TS_BLUE_RETURNED : TS_RED_RETURNED);
        break;
    case GTS_RED_TAKEN: /* the red team took the blue flag; its taker hears its own */
    case GTS_BLUE_TAKEN:
        if (s->ps_flags & (parm == GTS_RED_TAKEN ? 2 : 1))
            break;
        if (team == (parm == GTS_RED_TAKEN ? 2 : 1))
            buffer_sound(s, TS_ENEMY_TOOK_YOURS);
        else if (team == (parm == GTS_RED_TAKEN ? 1 : 2))
            buffer_sound(s, TS_YOURS_TOOK_ENEMYS);
        break;
    case GTS_REDTEAM_SCORED:
        buffer_sound(s, TS_RED_SCORED);
        break;
    case GTS_BLUETEAM_SCORED:
        buffer_sound(s, TS_BLUE_SCORED);
        break;
    case GTS_REDTEAM_TOOK_LEAD:
        buffer_sound(s, TS_RED_LEADS);
        break;
    case GTS_BLUETEAM_TOOK_LEAD:
        buffer_sound(s, TS_BLUE_LEADS);
        break;
    case GTS_TEAMS_ARE_TIED:
        buffer_sound(s, TS_TIED);
        break;
    default: /* the obelisks and the kamikaze: Team Arena's */
        break;
    }
}

void q3_buffered_sounds(cl_state *cl, q3_state *s, int32_t now)
{
    int n = (int)sizeof s->sound_buffer;
    if (!(s->sound_time < now) || s->sound_out == s->sound_in)
        return;
    int id = s->sound_buffer[s->sound_out % n];
    s->sound_buffer[s->sound_out % n] = 0;
    s->sound_out = (uint8_t)((s->sound_out + 1) % n);
    if (id <= TS_NONE || id >= TS_COUNT)
        return;
    local_sound(cl, team_sound_name[id]);
    s->sound_time = now > INT32_MAX - 750 ? INT32_MAX : now + 750; /* a hostile serverTime */
}

void q3_limit_sounds(cl_state *cl, q3_state *s)
{
    if (!base_cgame(cl))
        return;
    if (s->timelimit > 0 && cl->has_clock) {
        double msec = (cl->time - cl->clock_start) * 1000.0;
        if (!(s->time_warned & 4) && msec > (s->timelimit * 60.0 + 2) * 1000) {
            s->time_warned |= 1 | 2 | 4;
            local_sound(cl, "sound/feedback/sudden_death.wav");
        } else if (!(s->time_warned & 2) && msec > (s->timelimit - 1) * 60000.0) {
            s->time_warned |= 1 | 2;
            local_sound(cl, "sound/feedback/1_minute.wav");
        } else if (s->timelimit > 5 && !(s->time_warned & 1) &&
                   msec > (s->timelimit - 5) * 60000.0) {
            s->time_warned |= 1;
            local_sound(cl, "sound/feedback/5_minute.wav");
        }
    }
    /* GT_CTF is 4: the frag limit speaks in free for all, duel and team deathmatch */
    if (s->fraglimit > 0 && s->gametype < 4) {
        int high = cl->team_score[0];
        if (s->gametype == 3 && cl->team_score[1] > high)
            high = cl->team_score[1];
        if (!(s->frag_warned & 4) && high == s->fraglimit - 1) {
            s->frag_warned |= 1 | 2 | 4;
            local_sound(cl, "sound/feedback/1_frag.wav");
        } else if (s->fraglimit > 2 && !(s->frag_warned & 2) && high == s->fraglimit - 2) {
            s->frag_warned |= 1 | 2;
            local_sound(cl, "sound/feedback/2_frags.wav");
        } else if (s->fraglimit > 3 && !(s->frag_warned & 1) && high == s->fraglimit - 3) {
            s->frag_warned |= 1;
            local_sound(cl, "sound/feedback/3_frags.wav");
        }
    }
}
