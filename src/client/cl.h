/* cl.h: the format-neutral client state: everything a viewer knows about a demo at one moment.
 *
 * Decoders (src/demo/) speak to it only through the cl_* update calls below: the "neutral
 * update language" of DESIGN.md. The state is one plain struct with no pointers, so a
 * keyframe is a memcpy (src/timeline/). The renderer reads it through cl_entity_at() and
 * cl_view_at(), which interpolate between the two latest frames. */
#ifndef QD_CL_H
#define QD_CL_H

#include <stddef.h>
#include <stdint.h>

#define CL_MAX_ENTITIES 8192  /* entity numbers 0..8191; Q1 666 (FitzQuake) is the widest user */
#define CL_MAX_STATICS 1024
#define CL_MAX_MODELS 4096    /* precache slots, index 0 unused; FitzQuake 666 allows 2048,
                               * Quake II extended models go above the players (q2_local.h) */
#define CL_MAX_SOUNDS 2048
#define CL_SOUND_FIND 1024 /* cl_state.sound_find's entries (a power of two) */
#define CL_MAX_PLAYERS 64     /* Q3 MAX_CLIENTS; Q1/QW use 16..32 */
#define CL_MAX_LIGHTSTYLES 64
#define CL_MAX_PRINTS 8       /* recent prints kept for the screen */
#define CL_NAME_LEN 64
#define CL_SKIN_SLOTS 320     /* model slot i's .skin file at slot i + this (Q3 players) */
#define CL_FLASH_SLOTS 1200   /* weapon model slot i's muzzle flash model at slot i + this (Q3) */
#define CL_HAND_SLOTS 1300    /* weapon model slot i's first-person hand model (tags only) */
#define CL_BARREL_SLOTS 1400  /* weapon model slot i's spinning barrel model (Q3) */
#define CL_HAND_FALLBACK 1700 /* the hand model of a weapon without one (Q3: the shotgun's) */
#define CL_Q3_IMPACT_MODELS 1701 /* Quake III cgame's impact models: the ring (plasma's and
                                  * rail's), the bullet's puff, the lightning's crackle */
#define CL_Q3_GIB_MODELS 1704    /* Quake III cgame's gibs: skull, brain, abdomen, arm, chest,
                                  * fist, foot, forearm, intestine, leg */
#define CL_Q3_GIBS 10
#define CL_Q3_BRASS_MODELS 1714  /* Quake III cgame's brass: the machine gun's, the shotgun's */
#define CL_Q3_ITEM_SPHERES 1716  /* Quake III health items' second models (bg_itemlist
                                  * world_model[1]): small, medium, large, mega sphere */
#define CL_Q3_ITEM_RINGS 1720    /* Quake III powerups' second models, which spin: quad,
                                  * enviro, haste, invis, regen, flight ring */
#define CL_Q3_TELEPORT_MODEL 1726 /* Quake III cgame's teleportEffectModel (misc/telep.md3) */
#define CL_TEXT_LEN 256

typedef enum cl_game { CL_GAME_NONE, CL_GAME_Q1, CL_GAME_QW, CL_GAME_Q2, CL_GAME_Q3 } cl_game;

/* What an entity looks like in one frame. Units are the game's (Quake units, degrees).
 * Only neutral facts: each decoder maps its game's EF_* / RF_* / eFlags / powerups to fx
 * (a small table next to its constants) and keeps any raw numbers in its own state. */
typedef struct cl_entstate {  /* 40 bytes */
    float origin[3];
    float angles[3];   /* pitch, yaw, roll in degrees */
    uint16_t model;    /* precache index; 0 = draws nothing */
    uint16_t model2;   /* attached weapon model (Q2 modelindex2, Q3 weapon), 0 none */
    uint16_t frame;    /* model animation frame; Q3 players: legs animation (legsAnim) */
    uint16_t frame2;   /* Q3 players: torso animation (torsoAnim); else 0 */
                       /* Q3 players' model is the legs' slot m: the torso is m + 1, the
                        * head m + 2, and the .skin of slot i (if named) is i + CL_SKIN_SLOTS */
    uint16_t skin;     /* Q3 players: the movement direction 0..7 (angles2[YAW]) instead */
    uint16_t fx;       /* CL_FX_* below: persistent effects by look */
    uint8_t player;    /* player slot + 1 (colour translation, whose body), 0 = none */
    uint8_t alpha;     /* 255 opaque; FitzQuake 666 U_ALPHA; 0 means "default" (opaque) */
    uint8_t scale;     /* 16 = 1.0; 0 means 1.0 */
    uint8_t flags;     /* CL_EF_* below */
} cl_entstate;

/* cl_entstate.flags */
#define CL_EF_TELEPORT 0x01 /* the decoder knows this update is a jump: snap, do not lerp */
#define CL_EF_PLAYER 0x02   /* the entity is a client (QW playerinfo, Q1 ent 1..maxclients) */
#define CL_EF_DEAD 0x04     /* a dead body (QW PF_DEAD, Q2/Q3 pm_type): cl_body_view's eye */
#define CL_EF_GIBBED 0x08   /* a gibbed body, only the head left (QW PF_GIB, Q2 PM_GIB) */
#define CL_EF_TRAJ 0x10     /* Q3: cl_state.motion moves it at render time (cl_entity_update_traj) */
#define CL_EF_FULLBRIGHT 0x20 /* drawn without light (Q2 RF_FULLBRIGHT) */
#define CL_EF_BMODEL 0x40   /* model is the map's own submodel number, not a precache slot (a
                             * Quake III mover: SOLID_BMODEL's modelindex, cg_ents.c CG_Mover) */

/* cl_entstate.fx: what an entity carries, by look, not by game (trails, glows, flags) */
#define CL_FX_ROCKET 0x0001       /* rocket smoke trail */
#define CL_FX_GRENADE 0x0002      /* grenade smoke trail */
#define CL_FX_BLOOD 0x0004        /* blood trail (gibs) */
#define CL_FX_BLOOD_SLIGHT 0x0008 /* a thinner blood trail */
#define CL_FX_TRACER 0x0010       /* tracer (wizard spit, tracker) */
#define CL_FX_TRACER2 0x0020      /* second tracer colour (knight spike) */
#define CL_FX_BLASTER 0x0040      /* blaster bolt glow and trail */
#define CL_FX_PLASMA 0x0080       /* plasma ball */
#define CL_FX_MUZZLE 0x0100       /* firing: a muzzle flash light this frame */
#define CL_FX_LIGHT_BRIGHT 0x0200 /* a bright dynamic light */
#define CL_FX_LIGHT_DIM 0x0400    /* a dim dynamic light */
#define CL_FX_GLOW_BLUE 0x0800    /* blue glow (quad damage) */
#define CL_FX_GLOW_RED 0x1000     /* red glow (pentagram, invulnerability) */
#define CL_FX_ROTATE 0x2000       /* spins in place (items) */
#define CL_FX_FLAG_RED 0x4000     /* carries the red flag */
#define CL_FX_FLAG_BLUE 0x8000    /* carries the blue flag */

/* One dynamic entity: its two latest recorded states and when they were valid. */
typedef struct cl_entity {
    /* first what every frame touches (one cache line), then the older state */
    uint32_t cur_frame;         /* cl.frame_count when cur was set */
    uint8_t active;             /* in the latest frame */
    uint8_t listed;             /* in cl_state.active_list */
    uint8_t still;              /* prev equals cur: the entity is not moving */
    uint8_t pad;
    double cur_time;            /* demo time of cur */
    cl_entstate cur;
    double prev_time;           /* demo time of prev; equal to cur_time after a snap */
    cl_entstate prev;
    /* demo time at which cur.frame ([0]) and cur.frame2 ([1]) took their values: where a
     * Quake III animation (the value with its toggle bit) starts */
    double anim_since[2];
    uint16_t loop_sound;        /* a sound precache index the entity plays in a loop while
                                 * active (Quake II's entity sound, Quake III's loopSound) */
    uint16_t pad2;
    /* the entity list (cl_list_begin) it was last put in or kept in, 0 none: with
     * cl_state.lazy, whether a list kept whole (cl_list_keep_rest) holds it */
    uint32_t list_gen;
} cl_entity;

/* ---- Quake III motion (plan 2.2, 8): trajectories evaluated at render time ---- */

/* trType_t (bg_public.h) */
typedef enum cl_traj_type {
    CL_TR_STATIONARY, CL_TR_INTERPOLATE, CL_TR_LINEAR, CL_TR_LINEAR_STOP, CL_TR_SINE,
    CL_TR_GRAVITY
} cl_traj_type;
typedef struct cl_traj {        /* 40 bytes: BG_EvaluateTrajectory's inputs */
    float base[3];              /* trBase */
    float delta[3];             /* trDelta (units or degrees per second; SINE: amplitude) */
    int32_t t0_ms;              /* trTime on the demo clock (demo ms, not server ms) */
    int32_t duration_ms;        /* trDuration */
    uint8_t type, pad;          /* cl_traj_type */
    /* drawn this far ahead of the demo clock (cl_entity_at): OpenArena's unlagged cgame
     * leads a missile by one server frame (q3.c missile_lead); 0 for everything else */
    uint16_t lead_ms;
    uint8_t pad2[4];
} cl_traj;
/* One moving entity's trajectories: [1] the newest, valid from demo time `since`, [0] the
 * one before (cgame draws the snapshot at or before its time). */
typedef struct cl_motion {      /* 176 bytes */
    cl_traj pos[2], apos[2];
    double since;
    int32_t entity;             /* cl entity number, 0 = a free slot */
    uint8_t pad[4];
} cl_motion;
#define CL_MAX_MOTION 256       /* moving entities at once: Q3 MAX_ENTITIES_IN_SNAPSHOT */
#define CL_MOTION_ENTITIES 1024 /* cl entity numbers that may move: Q3 entities 0..1022 */

/* ---- Stats: named facts, never a game's slot numbers (issue #10, plan 2.3) ---- */

/* Weapons by what they are, not by a game's number (< 32: cl_stats.weapons is a mask). */
typedef enum cl_weapon {
    CL_WP_NONE, CL_WP_MELEE /* axe, gauntlet */, CL_WP_BLASTER, CL_WP_SHOTGUN,
    CL_WP_SUPER_SHOTGUN, CL_WP_MACHINEGUN, CL_WP_CHAINGUN, CL_WP_NAILGUN, CL_WP_SUPER_NAILGUN,
    CL_WP_GRENADE_LAUNCHER, CL_WP_HAND_GRENADE, CL_WP_ROCKET_LAUNCHER, CL_WP_LIGHTNING,
    CL_WP_HYPERBLASTER, CL_WP_RAILGUN, CL_WP_PLASMA, CL_WP_BFG, CL_WP_GRAPPLE, CL_WP_PROX,
    CL_WP_OTHER, CL_WP_COUNT
} cl_weapon;
/* Ammunition kinds; Quake's nails count as BULLETS. */
typedef enum cl_ammo {
    CL_AMMO_NONE, CL_AMMO_SHELLS, CL_AMMO_BULLETS, CL_AMMO_GRENADES, CL_AMMO_ROCKETS,
    CL_AMMO_CELLS, CL_AMMO_SLUGS, CL_AMMO_OTHER, CL_AMMO_COUNT
} cl_ammo;
/* Armour: LIGHT green (Q1) / jacket (Q2), MEDIUM yellow / combat, HEAVY red / body; SHIELD
 * Quake II's power screen or shield. */
typedef enum cl_armor {
    CL_ARMOR_NONE, CL_ARMOR_LIGHT, CL_ARMOR_MEDIUM, CL_ARMOR_HEAVY, CL_ARMOR_SHIELD,
    CL_ARMOR_COUNT
} cl_armor;
/* Powerups, index into cl_stats.powerup_end. */
typedef enum cl_powerup {
    CL_PU_QUAD, CL_PU_INVULN, CL_PU_SUIT, CL_PU_INVIS, CL_PU_HASTE, CL_PU_REGEN, CL_PU_FLIGHT,
    CL_PU_FLAG, CL_PU_COUNT
} cl_powerup;

/* cl_stats.flags */
#define CL_ST_DEAD 0x01
#define CL_ST_GIBBED 0x02
#define CL_ST_SPECTATOR 0x04
#define CL_ST_VALID 0x80     /* a decoder filled these stats (set by cl_set_stats) */
/* cl_stats.items */
#define CL_IT_KEY_SILVER 0x01u
#define CL_IT_KEY_GOLD 0x02u
#define CL_IT_SIGIL(n) (0x04u << (n)) /* Quake's four runes, n = 0..3 */

/* One player's (or the recorded view's) status, as a HUD shows it. 80 bytes, plain data. */
typedef struct cl_stats {
    int16_t health, armor;
    int16_t ammo;                   /* of the current weapon */
    int16_t ammo_of[CL_AMMO_COUNT]; /* by kind (a HUD's ammo row) */
    uint8_t armor_type;             /* cl_armor */
    uint8_t ammo_type;              /* cl_ammo of the current weapon */
    uint8_t weapon;                 /* cl_weapon */
    uint8_t flags;                  /* CL_ST_* */
    uint8_t pad[2];
    uint32_t weapons;               /* 1u << cl_weapon for each owned */
    uint32_t items;                 /* CL_IT_* */
    float powerup_end[CL_PU_COUNT]; /* demo time it ends; 0 not held; -1 held, end unknown */
    int32_t score;                  /* frags or score */
    int16_t monsters, monsters_total, secrets, secrets_total; /* Quake single player */
    uint16_t gun_model, gun_frame;  /* the first-person weapon: model precache index (0:
                                     * none) and its frame (Quake STAT_WEAPON/WEAPONFRAME) */
} cl_stats;

/* cl_player.team */
enum { CL_TEAM_NONE, CL_TEAM_RED, CL_TEAM_BLUE, CL_TEAM_SPECTATOR };

typedef struct cl_player {
    char name[32];
    int32_t frags;
    uint8_t top, bottom;  /* shirt and pants colour, 0..15 */
    uint8_t active;       /* slot in use (name non-empty) */
    uint8_t spectator;
    uint8_t frags_known;  /* frags is a number the demo gave (Quake and QuakeWorld: from
                           * the player's taking the slot; Quake II and III: once
                           * cl_set_player_frags sent one, as Quake III's other players'
                           * scores come only in a "scores" command and Quake II's only for
                           * the recorder); else shown as unknown */
    int32_t entity;       /* entity number of the player's body, or -1 */
    /* Neutral facts (issue #10); the decoders fill them as they are ported. */
    char model[32], skin[32]; /* "player"/"base", "male"/"grunt", "razor"/"default" */
    char head[32];            /* Quake III hmodel "razor/default", else "" */
    int32_t deaths;           /* counted by cl_event_add from CL_EV_FRAG events */
    int16_t ping;             /* ms, 0 unknown */
    uint8_t team;             /* CL_TEAM_* */
    char team_name[16];       /* the team as the game names it (QuakeWorld's "team" userinfo:
                               * "red", "dvc", ...), "" none: the scoreboard's team rows */
    uint8_t has_stats;        /* cl_state.player_stats[slot] is this player's own */
    /* Quake III: the body's turn as cgame swings it towards the view (q3.c; cg_players.c
     * CG_PlayerAngles): legs yaw, torso yaw, torso pitch, and the legs' lean into their
     * motion (pitch, roll), in degrees at the body's last two updates (body_time: demo
     * time); whether each of the first three is swinging; body_ok once set */
    uint8_t body_ok;
    uint8_t body_swing[3];
    uint8_t shells;           /* CL_SHELL_*: what the body's powerups draw over it */
    uint8_t float_sprite;     /* CL_FLOAT_*: what floats over the body (Quake III eFlags) */
    float body[2][5];
    double body_time[2];
} cl_player;

/* cl_player.shells: Quake III powerups drawn as the body's look (cg_players.c
 * CG_AddRefEntityWithPowerups) */
#define CL_SHELL_BATTLESUIT 0x01 /* the battle suit's shell over the body */
#define CL_SHELL_REGEN 0x02      /* regeneration: a shell 100 ms of every second */
#define CL_SHELL_INVIS 0x04      /* invisibility: the body drawn only as a faint shell */

/* cl_player.float_sprite: the sprite cgame floats over a live body (cg_players.c
 * CG_PlayerSprites): a connection problem, talking, an award of the last two seconds.
 * CL_FLOAT_FRIEND is the renderer's own: over a team-mate of the view's player when no
 * other floats there. */
enum { CL_FLOAT_NONE, CL_FLOAT_CONNECTION, CL_FLOAT_TALK, CL_FLOAT_IMPRESSIVE,
       CL_FLOAT_EXCELLENT, CL_FLOAT_GAUNTLET, CL_FLOAT_DEFEND, CL_FLOAT_ASSIST, CL_FLOAT_CAPTURE,
       CL_FLOAT_FRIEND, CL_FLOAT_KINDS };

/* The recorded view: what the recording client saw. Origin comes from view_entity unless
 * has_origin is set (QW/Q2/Q3 carry it explicitly). */
typedef struct cl_view {
    int32_t view_entity;
    float origin[3];      /* valid when has_origin */
    float angles[3];
    float punch[3];
    float view_height;    /* added to origin[2] */
    uint8_t has_origin;
    uint8_t dead, gibbed; /* the recorded player is dead / gibbed (Q2/Q3 pm_type, QW flags) */
    uint8_t bob_cycle;    /* Quake III ps.bobCycle (bit 7 the leg, 0..127 the phase); 0 else */
    int32_t player;       /* slot + 1 of the recorded view's player; 0 none or unknown (a
                           * zeroed cl_view means "unknown"): read it with cl_view_player */
    float fov;            /* horizontal degrees (Q2 ps.fov); 0: the level's convention */
    /* the first-person weapon's place against the eye, in world axes and units, and its
     * turn against the view in degrees (Quake II's gunoffset and gunangles); 0 elsewhere */
    float gun_offset[3], gun_angles[3];
    float xyspeed;        /* the recorded player's speed across the ground, units/s (Quake
                           * III's first-person weapon bob); 0 elsewhere */
    float dead_yaw;       /* Quake III STAT_DEAD_YAW: where a dead player's camera looks (at
                           * the killer); 0 elsewhere */
    /* Quake III: ps.viewheight (within origin) and its change at this view's snapshot
     * (cg_playerstate.c CG_TransitionPlayerState's cg.duckChange; 0 none): cl_view_at
     * holds the eye at the height of the view before and lets it rise or sink through
     * DUCK_TIME after, as cg_view.c CG_OffsetFirstPersonView; 0 elsewhere */
    float eye_height, duck;
    /* Quake: the recorded player's velocity (svc_clientdata: the bob and the strafe roll)
     * and the view's kick of its last svc_damage, degrees of roll and pitch at dmg_time
     * (demo seconds), fading over 0.5 s (view.c V_ParseDamage); Quake III's kick of its
     * last damage the same way (cg_view.c CG_DamageFeedback, in 0.1 s and back in 0.4 s;
     * velocity 0); 0 elsewhere */
    float velocity[3];
    float dmg_roll, dmg_pitch;
    double dmg_time;
    /* Quake's screen tints (view.c cshifts): the damage one's percent at dmg_time (it fades
     * 150 a second) and colour; the demo time of the last bonus flash (stufftext "bf": 50
     * percent of gold fading 100 a second), 0 none */
    float dmg_percent;
    uint8_t dmg_rgb[3];
    double bonus_time;
} cl_view;

typedef enum cl_msg_kind { CL_MSG_PRINT, CL_MSG_CENTER, CL_MSG_CHAT } cl_msg_kind;

typedef struct cl_message {
    double time;
    uint8_t kind;  /* cl_msg_kind */
    char text[CL_TEXT_LEN];
} cl_message;

/* How a game places a camera on a body: set per game by cl_level_begin, a decoder may
 * override them (cl_set_conventions) at level start. */
typedef struct cl_conventions {
    float eye_height;       /* above the origin: 22 Q1/QW/Q2, 26 Q3 (DEFAULT_VIEWHEIGHT) */
    float eye_dead;         /* dead body: Q1 -8 (PlayerDie view_ofs), QW -16 (V_CalcRefdef),
                             * Q2 -2 (PM_CheckDuck: dead is ducked), Q3 -16 (DEAD_VIEWHEIGHT) */
    float eye_gibbed;       /* gibbed: 8 Q1/QW/Q2 (ThrowHead, V_CalcRefdef, PM_GIB); Q3 -16 */
    float body_pitch_scale; /* view pitch = body pitch * this: -3 Q1/QW, 3 Q2, 1 Q3 */
    float fov;              /* 90 */
} cl_conventions;

/* The level: map and precache lists. Set by cl_level_begin and cl_set_model/sound. */
typedef struct cl_level {
    cl_game game;
    int32_t protocol;
    int32_t max_clients;
    char map[CL_NAME_LEN];          /* e.g. "maps/e1m1.bsp" */
    char title[CL_NAME_LEN];        /* the level's message, e.g. "the Slipgate Complex" */
    char sky[32];                   /* the sky box the level names (Quake II CS_SKY:
                                     * env/<sky>rt.pcx ...), "" none */
    char gamedir[32];               /* "id1", "qw", mod name... */
    cl_conventions conv;            /* camera placement on bodies */
    /* Quake: the demo time at which the server's clock (svc_time) read 0, with has_server_time
     * set: the lights' and spinning items' phase run on it (cl_game_time). Quake III: the
     * demo time at which the server time (snapshot serverTime, cg.time) read 0: its shaders'
     * tcMods, waves and animMaps run on that clock (ioq3 tess.shaderTime) */
    double server_time0;
    uint8_t has_server_time;
    int32_t num_models, num_sounds; /* highest index set + 1 */
    char models[CL_MAX_MODELS][CL_NAME_LEN];
    char sounds[CL_MAX_SOUNDS][CL_NAME_LEN];
    char lightstyles[CL_MAX_LIGHTSTYLES][CL_NAME_LEN];
} cl_level;

/* ---- Events (plan 2.5): what happened, in a bounded ring inside keyframes ---- */

typedef enum cl_event_kind {
    CL_EV_FRAG,         /* a death: target died, actor killed (actor -1 or == target: none) */
    CL_EV_PICKUP,       /* actor picked up text */
    CL_EV_CHAT,         /* actor said text */
    CL_EV_CENTER,       /* a centre print */
    CL_EV_LEVEL,        /* a level starts: text "map title" */
    CL_EV_INTERMISSION,
    CL_EV_PAUSE,
    CL_EV_KINDS
} cl_event_kind;
/* Means of death. */
typedef enum cl_means {
    CL_MOD_UNKNOWN, CL_MOD_WEAPON /* cl_weapon in cl_event.weapon */, CL_MOD_TELEFRAG,
    CL_MOD_FALL, CL_MOD_WATER, CL_MOD_SLIME, CL_MOD_LAVA, CL_MOD_CRUSH, CL_MOD_SUICIDE,
    CL_MOD_TRIGGER, CL_MOD_EXPLOSION, CL_MOD_SPLASH, CL_MOD_DISCHARGE, CL_MOD_COUNT
} cl_means;
/* cl_event.flags */
#define CL_EVF_TEAM 0x01     /* team chat */
#define CL_EVF_SUICIDE 0x02  /* a death without a killer (set by cl_event_add) */
#define CL_EVF_TEAMKILL 0x04

typedef struct cl_event {     /* 96 bytes */
    double time;              /* stamped by cl_event_add */
    uint8_t kind, means, weapon; /* cl_event_kind, cl_means, cl_weapon */
    uint8_t flags;            /* CL_EVF_* */
    int8_t actor;             /* killer / sender / picker slot, -1 world or unknown */
    int8_t target;            /* victim slot, -1 */
    uint8_t pad[2];
    char text[80];            /* chat line, item name, centre print, "map title" */
} cl_event;
#define CL_MAX_EVENTS 32

/* ---- Transient effects and sound starts (plan 2.6): outside keyframes ---- */

typedef enum cl_fx_kind {
    CL_FXK_EXPLOSION, CL_FXK_BEAM_LIGHTNING, CL_FXK_BEAM_GRAPPLE, CL_FXK_BEAM_RAIL,
    CL_FXK_BEAM_LASER, CL_FXK_TRAIL, CL_FXK_MUZZLE, CL_FXK_TELEPORT, CL_FXK_IMPACT,
    CL_FXK_BLOOD, CL_FXK_SPLASH, CL_FXK_DLIGHT,
    CL_FXK_PARTICLES, /* Quake's svc_particle: style its colour, entity its count, end its
                       * direction */
    CL_FXK_SHOTGUN,   /* Quake III's shotgun blast (in the marks' log): origin the muzzle,
                       * end origin plus the unit forward, style the pattern's seed, entity
                       * the pellets (bit i: pellet i) that meet a body, radius how far the
                       * nearest such body is (r_q3mark.c traces the rest through the map) */
    CL_FXK_GIBS,      /* Quake III's gibbed body (in the marks' log): origin where it was;
                       * r_q3mark.c throws the gibs */
    CL_FXK_BRASS,     /* Quake III's brass from a machine gun's or shotgun's shot: origin the
                       * shooter's, end its angles (pitch, yaw, roll), style the weapon;
                       * r_q3mark.c throws the shells (a machine gun's logged with the
                       * effects, CL_FX_WINDOW; a shotgun's with the marks) */
    CL_FXK_ITEM_RESPAWN, /* Quake III's item respawned (EV_ITEM_RESPAWN): entity the item,
                          * which cgame grows from nothing over life (1 s) */
    CL_FXK_SCORE_PLUM,/* Quake III's score plum (in the marks' log): origin where it rises
                       * from, radius the score (cg_effects.c CG_ScorePlum) */
    CL_FXK_RAIL_RINGS,/* Quake III's rail with rings (OpenArena's cgame, cg_oldRail 0): origin
                       * and end the rail's, rgb the shooter's colour 2; r_part.c lays the
                       * spiral of discs */
    CL_FXK_KINDS
} cl_fx_kind;

/* A Quake II explosion's style: the client's model it shows (cl_tent.c CL_ParseTEnt's ex_poly:
 * r_explode's 15 frames from 0 or 15, a grenade's 19 from 30, r_explode2's 15), or none. */
enum { CL_BOOM_NONE, CL_BOOM_ROCKET, CL_BOOM_GRENADE, CL_BOOM_BIG };

typedef struct cl_fxev {      /* 48 bytes */
    double t0;                /* start, demo seconds (stamped by cl_fx_add) */
    float life;               /* seconds, 0 < life <= CL_FX_WINDOW (cl_fx_add clamps) */
    float radius;             /* dynamic light radius, 0 none */
    float origin[3], end[3];  /* end: beams and lines; a Quake III explosion's origin plus
                               * the unit normal of the surface it hit (or origin); Quake's
                               * TE_EXPLOSION2 (style 12): its colour start and length */
    int16_t entity;           /* attached (beam owner, muzzle flash), -1 none */
    uint8_t kind, style;      /* cl_fx_kind, variant (size, weapon) */
    uint8_t rgb[3];           /* light colour */
    uint8_t count;            /* QuakeWorld's gunshot and blood: the count byte (cl_tent.c:
                               * 20 particles each), 0 unsent (one) */
} cl_fxev;

typedef struct cl_sound {     /* 32 bytes */
    double t0;                /* start, demo seconds (stamped by cl_sound_add) */
    float origin[3];          /* valid when has_origin */
    uint16_t sound;           /* precache index */
    int16_t entity;           /* entity the sound follows, -1 none */
    uint8_t channel, volume;  /* volume 0..255 */
    uint8_t attenuation;      /* x64 */
    uint8_t has_origin;
    uint8_t pad[4];
} cl_sound;

/* A looping sound at a fixed place for the whole level (Quake's svc_spawnstaticsound). */
typedef struct cl_static_sound { /* 16 bytes */
    float origin[3];
    uint16_t sound;               /* precache index */
    uint8_t volume;               /* 0..255 */
    uint8_t attenuation;          /* x64 */
} cl_static_sound;
#define CL_MAX_STATIC_SOUNDS 256

#define CL_FX_LOG 1024
#define CL_SOUND_LOG 512
#define CL_FX_WINDOW 3.0      /* no transient effect lives longer (seconds) */
/* Quake III's wall marks (cg_marks.c): each lives MARK_TOTAL_TIME, 10 s, and the game keeps
 * MAX_MARK_POLYS, 256 polygons, freeing the oldest: no more than 256 marks can show, so the
 * ring keeps the latest 256. */
#define CL_MARK_LOG 256
#define CL_MARK_WINDOW 10.0
/* The longest of the logs' windows: how long before t a seek starts decoding. */
#define CL_LOG_WINDOW CL_MARK_WINDOW

/* Rings of the latest effects, sound starts and wall marks. Not part of a keyframe: the
 * timeline restores a keyframe older than t - CL_LOG_WINDOW and decodes forward, so the
 * effects alive at t are the same either way; read them by time (cl_fx_at, cl_marks_at),
 * never by ring position. A mark is a cl_fxev: origin the impact, end origin plus the unit
 * normal of the surface hit, style the weapon, rgb its colour (a rail's: its shooter's); or
 * a CL_FXK_SHOTGUN blast, whose pellets' marks the renderer finds. */
typedef struct cl_fxlog {
    uint32_t fx_count, sound_count, mark_count, pad; /* added so far (since the last clear) */
    cl_fxev fx[CL_FX_LOG];
    cl_sound sounds[CL_SOUND_LOG];
    cl_fxev marks[CL_MARK_LOG];
} cl_fxlog;

/* The whole client state. Plain data: copy it with memcpy. About 1.1 MB. */
/* A game's own HUD programs, as its server sends them (Quake II's layout language, read by
 * r_hud2.c): the status bar program (CS_STATUSBAR), the latest svc_layout (a scoreboard or
 * help screen, shown while bit 0 of stats[13], STAT_LAYOUTS, is set), the recorded view's
 * raw stats they read, and the image names (CS_IMAGES) their `pic` commands index. */
#define CL_LAYOUT_LEN 1536
#define CL_LAYOUT_STATS 32
#define CL_LAYOUT_IMAGES 256
typedef struct cl_layout {
    char statusbar[CL_LAYOUT_LEN];
    char layout[CL_LAYOUT_LEN];
    int16_t stats[CL_LAYOUT_STATS];
    uint8_t has_stats;
    uint8_t pad[7];
    char images[CL_LAYOUT_IMAGES][CL_NAME_LEN / 2]; /* "i_health": short names */
} cl_layout;

/* A Quake III portal surface's camera (g_misc.c misc_portal_surface sends ET_PORTAL, its
 * origin the surface's, origin2 the misc_portal_camera's; cg_ents.c CG_Portal makes the
 * render entity the renderer pairs with a portal shader's surface: tr_main.c
 * R_GetPortalOrientations). Kept per entity number while the entity is; the renderer draws
 * it only while the entity is in the frame. */
#define CL_MAX_PORTALS 8
typedef struct cl_portal {
    int32_t entity;    /* the entity (its origin is the surface's); 0: a free slot */
    float camera[3];   /* origin2: the camera (equal to the origin: a mirror) */
    float dir[3];      /* the camera's forward: ByteToDir(eventParm) (zero: none sent) */
    float roll;        /* degrees about the forward: (int)(clientNum / 256 x 360) */
    uint16_t swing;    /* powerups (the render entity's oldframe): the camera turns */
    uint16_t speed;    /* frame: turning at this many degrees a second; 0 swings */
} cl_portal;

typedef struct cl_state {
    cl_level level;
    uint32_t level_count;     /* how many level starts so far */
    uint32_t model_gen;       /* changes whenever level.models changes (level start, precache) */
    uint32_t player_gen;      /* changes whenever a player's frags or in-use flag changes */

    double time;              /* demo time of the latest frame */
    double prev_time;         /* demo time of the frame before */
    /* how long before time the effects and sounds logged now begin (cl_fx_add, cl_mark_add,
     * cl_sound_add): an MVD frame's from the frame before's time, as ezQuake plays an MVD a
     * frame ahead (together with the frame's new and removed entities); 0 elsewhere */
    double event_lead;
    uint32_t frame_count;     /* frames ended so far */
    uint8_t in_frame;         /* a frame is open (cl_frame_begin without end) */
    uint8_t paused;
    uint8_t intermission;     /* CL_INTER_*: 0 none */
    double inter_time;        /* demo time the level's end screen began (cl.completed_time) */
    uint8_t has_clock;        /* the format carries the game's clock: clock_start is set */
    double clock_start;       /* demo time at which the game's clock read 0:00 */

    cl_view view, prev_view;
    uint8_t view_hold;        /* the view cut at this frame (cl_view_hold): prev_view shows
                               * until the frame's time */

    cl_player players[CL_MAX_PLAYERS];

    int32_t num_entities;     /* highest entity number used + 1 */
    int32_t entity_hw;        /* highest entity number written since the last clear + 1 */
    cl_entity entities[CL_MAX_ENTITIES];
    /* The entities that may be active, so a frame's end touches only those. */
    int32_t num_listed;
    /* Since the last frame's end: the entities touched for this frame (cur_frame set to
     * frame_count + 1; all of them listed) and whether one was removed. When none was
     * removed and every listed one was touched (or the frame drops none), cl_frame_end
     * has nothing to change and skips its walk. */
    int32_t touched;
    int32_t removed;
    uint16_t active_list[CL_MAX_ENTITIES];

    int32_t num_statics;
    cl_entstate statics[CL_MAX_STATICS];

    uint32_t message_count;   /* total prints ever; messages[] is a ring of the latest */
    cl_message messages[CL_MAX_PRINTS];

    /* Neutral facts (issue #10); filled by the decoders as they are ported. */
    cl_stats view_stats;                  /* the recorded view's: read with cl_stats_of */
    int32_t team_score[2];                /* red, blue; 0 outside team games */
    int32_t score_limit;                  /* the limit shown beside the scores; 0 none */
    uint8_t ctf;                          /* a capture-the-flag game: the flags' states show */
    int8_t flag_status[2];                /* red, blue flag: 0 at base, 1 taken, 2 dropped,
                                           * -1 unknown (drawn only when ctf) */
    cl_stats player_stats[CL_MAX_PLAYERS]; /* per player when the format has them (MVD) */
    cl_portal portals[CL_MAX_PORTALS];    /* Quake III portal cameras (cl_portal_set) */
    int32_t num_portals;                  /* of them, the slots in use */
    uint32_t event_count;                 /* events ever added; events[] holds the latest */
    cl_event events[CL_MAX_EVENTS];
    /* Q3 trajectories of the CL_EF_TRAJ entities (zeros elsewhere: cheap in keyframes) */
    uint16_t motion_slot[CL_MOTION_ENTITIES]; /* entity number -> motion index + 1, 0 none */
    int32_t motion_hw;        /* highest motion slot taken since the last clear + 1 */
    cl_motion motion[CL_MAX_MOTION];

    int32_t num_static_sounds;
    cl_static_sound static_sounds[CL_MAX_STATIC_SOUNDS];

    cl_layout layout;         /* Quake II's HUD programs */

    /* Entity lists kept whole (cl_list_keep_rest): lists lazy_from .. lazy_to (generations,
     * list_gen the newest begun; lazy_to 0: none) kept every entity of the list before them
     * that they did not update or remove, without touching it. Such an entity is as
     * cl_entity_keep would have left it at lazy_to's frame (lazy_frame, at lazy_time); it
     * is brought up to date when anything reads or writes it (cl_lazy_settle). */
    struct {
        uint32_t list_gen, lazy_from, lazy_to, lazy_frame;
        double lazy_time;
    } lazy;

    /* The level's sound slots by name (cl_sound_intern): an open-addressed table of slot
     * numbers (0 empty) hashed by the name each was given; an entry whose slot was since
     * renamed stays, and a look-up passes over it. Past CL_SOUND_FIND * 3 / 4 entries, no
     * more go in (full) and look-ups walk the list as before. Here, not in cl_level, so
     * that the layout before it stays as it was (the pages a small process touches). */
    struct {
        uint16_t slot[CL_SOUND_FIND];
        uint16_t n;
        uint8_t full;
    } sound_find;

    cl_fxlog fxlog;           /* LAST: a keyframe is the CL_KEYFRAME_BYTES before it */
} cl_state;

/* What a keyframe saves of a cl_state: everything but the effects log. */
#define CL_KEYFRAME_BYTES offsetof(cl_state, fxlog)

/* The game's clock at the state's time in seconds (the match time a game's HUD shows: Quake
 * III's CS_LEVEL_START_TIME), or the demo time when the format carries none; 0 for times
 * before the start or out of range. */
/* The server's time at demo time t (the lights' and spinning items' phase: Quake's
 * R_AnimateLight and CL_RelinkEntities run on it), or t when the format gives none. */
static inline double cl_game_time(const cl_state *cl, double t)
{
    return cl && cl->level.has_server_time ? t - cl->level.server_time0 : t;
}

static inline double cl_game_clock(const cl_state *cl)
{
    double t = cl->has_clock ? cl->time - cl->clock_start : cl->time;
    return t > 0 && t < 1e7 ? t : 0;
}

/* ---- Lifetime ---- */

/* Reset to the empty state (no level). */
void cl_reset(cl_state *cl);
/* cl_reset for memory that is already all zero (from calloc): sets only the fields whose
 * empty value is not 0, so pages a demo never uses are never touched (a first touch costs a
 * page fault). */
void cl_reset_zeroed(cl_state *cl);
/* cl_reset for a state that is already valid (reset before): writes zeros only where bytes
 * can be non-zero (the entities, precache names, statics and active list up to their
 * high-water marks, the rest whole), so a first level start does not touch the 1.4 MB. */
void cl_clear(cl_state *cl);

/* ---- The neutral update language (called by decoders) ---- */

/* A new level: clears entities, statics, precache lists, view, the view's stats and the
 * effects log, and sets the game's default cl_conventions; keeps players (names, their
 * stats: servers resend them anyway), messages and events. */
void cl_level_begin(cl_state *cl, cl_game game, int protocol, int max_clients,
                    const char *title);
void cl_set_map(cl_state *cl, const char *map);
void cl_set_gamedir(cl_state *cl, const char *gamedir);
/* Precache slots; out-of-range indices are ignored (decoders check and report them). */
void cl_set_model(cl_state *cl, int index, const char *name);
void cl_set_sound(cl_state *cl, int index, const char *name);
void cl_set_lightstyle(cl_state *cl, int index, const char *pattern);

/* Open a frame at demo time t. Entities updated before cl_frame_end are the frame's. */
void cl_frame_begin(cl_state *cl, double t);
/* An entity's state in the open frame. Returns 0 when num is out of range. */
int cl_entity_update(cl_state *cl, int num, const cl_entstate *s);
/* An entity's state with its own time (QW playerinfo, MVD): lerps at its own times. */
int cl_entity_update_at(cl_state *cl, int num, const cl_entstate *s, double t);
/* An entity new to the open frame that comes in from `from`: stored as cl_entity_update
 * stores s, then its older state is s at `from` at the time of the frame before (the
 * previous cl_frame_begin's), so it is drawn moving from there to s over the frame's
 * interval. Quake II's client starts a new entity at its old_origin (id client/cl_ents.c
 * CL_DeltaEntity, Q2PRO entity_update_new): a rocket leaves the launcher instead of
 * appearing one frame's flight ahead. Returns 0 when num is out of range. */
int cl_entity_update_from(cl_state *cl, int num, const cl_entstate *s, const float from[3]);
/* Entity lists (formats whose frames list their entities as changes to the frame before:
 * QuakeWorld's and Quake II's packet entities). cl_list_begin starts the open frame's
 * list; an entity updated for it is put in it with cl_list_add, one kept with
 * cl_entity_keep (which marks it). cl_list_keep_rest then keeps every other entity of the
 * list before (but those named by cl_list_leave) without a look at any of them: `count`,
 * how many that is, counts as touched (cl_frame_end's skip). The result is what
 * cl_entity_keep on each would give, brought about when the entity is next read or
 * written. */
void cl_list_begin(cl_state *cl);
static inline void cl_list_add(cl_state *cl, int num)
{
    if (num >= 0 && num < CL_MAX_ENTITIES && cl->entities[num].active)
        cl->entities[num].list_gen = cl->lazy.list_gen;
}
/* Entity num of the list before is not in this one: it is not kept, and cl_frame_end
 * drops it (it stays active until then, as an entity a frame left out does). Before
 * cl_list_keep_rest. */
void cl_list_leave(cl_state *cl, int num);
void cl_list_keep_rest(cl_state *cl, int count);

/* 1 when entity e is kept by a list kept whole and not yet brought up to date. */
static inline int cl_lazy_kept(const cl_state *cl, const cl_entity *e)
{
    /* (lazy_from >= 1 whenever lazy_to is set) */
    return cl->lazy.lazy_to && e->active && e->list_gen &&
           e->list_gen >= cl->lazy.lazy_from - 1u && e->list_gen < cl->lazy.lazy_to;
}

/* Bring e up to date: what cl_entity_keep did at the first kept frame (it stops where it
 * is) and at the last (its time and frame). */
static inline void cl_lazy_settle(const cl_state *cl, cl_entity *e)
{
    if (!cl_lazy_kept(cl, e))
        return;
    if (!e->still) {
        e->prev = e->cur;
        e->prev_time = e->cur_time;
        e->still = 1;
    }
    e->cur_time = cl->lazy.lazy_time;
    e->cur_frame = cl->lazy.lazy_frame;
    e->list_gen = cl->lazy.lazy_to;
}

/* The entity is in the open frame with the same state it had in the latest one (formats
 * that send only changes). Returns 0 when it is not active: send its state instead.
 * Inline: those formats keep most entities of most frames. */
static inline int cl_entity_keep(cl_state *cl, int num)
{
    if (num < 0 || num >= cl->num_entities)
        return 0;
    cl_entity *e = &cl->entities[num];
    if (!e->active)
        return 0;
    cl_lazy_settle(cl, e);
    e->list_gen = cl->lazy.list_gen;
    if (e->cur_frame == cl->frame_count + 1u && cl->in_frame)
        return 1;
    /* As cl_entity_update with the same state: it stops where it is. */
    if (!e->still) {
        e->prev = e->cur;
        e->prev_time = e->cur_time;
        e->still = 1;
    }
    e->cur_time = cl->time;
    cl->touched += e->cur_frame != cl->frame_count + 1u;
    e->cur_frame = cl->frame_count + 1u;
    return 1;
}
/* cl_entity_update for a Quake III entity moved by trajectories (pos: origin, apos: angles)
 * that the renderer evaluates at its own time (cl_entity_at). s holds their values at the
 * frame's time; the state gets CL_EF_TRAJ when either depends on time and a motion slot
 * is free. Returns 0 when num is out of range; num >= CL_MOTION_ENTITIES is updated without
 * trajectories. */
int cl_entity_update_traj(cl_state *cl, int num, const cl_entstate *s, const cl_traj *pos,
                          const cl_traj *apos);
/* BG_EvaluateTrajectory at demo time t (seconds): out = the trajectory's position. A
 * result that is not finite or beyond 1e7 units gives base (0 if base is not sane). */
void cl_traj_eval(const cl_traj *tr, double t, float out[3]);
/* Remove an entity now. */
void cl_entity_remove(cl_state *cl, int num);
/* Entity num's looping sound (0: none), kept until changed. Inline: a decoder sets it for
 * every entity it sends, and it seldom changes. */
static inline void cl_entity_set_loop(cl_state *cl, int num, uint16_t sound)
{
    if (num < 0 || num >= CL_MAX_ENTITIES || cl->entities[num].loop_sound == sound)
        return;
    if (num >= cl->entity_hw)
        cl->entity_hw = num + 1;
    cl->entities[num].loop_sound = sound;
}
/* Close the frame. drop_missing CL_DROP_MISSING: entities not updated in this frame vanish
 * (packet-entity formats list every visible entity in every frame), but for bodies
 * (CL_EF_PLAYER), which QuakeWorld sends apart from its entity lists;
 * CL_DROP_ALL: bodies too, but for the view entity (whose last origin a camera may read).
 * Quake III's cgame draws a snapshot's entities and no others (CG_AddPacketEntities), and
 * Quake's client unlinks an entity its last message did not send (CL_RelinkEntities:
 * msgtime != cl.mtime[0]), so there a player out of the recorder's PVS, or a corpse the
 * server unlinked, is gone. */
#define CL_DROP_MISSING 1
#define CL_DROP_ALL 2
void cl_frame_end(cl_state *cl, int drop_missing);

int cl_static_add(cl_state *cl, const cl_entstate *s);
/* Portal p (p->entity its entity number) kept, replacing that entity's; 0 when all
 * CL_MAX_PORTALS slots hold others. cl_portal_drop forgets entity num's, if any. */
int cl_portal_set(cl_state *cl, const cl_portal *p);
void cl_portal_drop(cl_state *cl, int num);
/* A looping static sound for the rest of the level; returns 0 when CL_MAX_STATIC_SOUNDS are
 * already there (it is then not heard). */
int cl_static_sound_add(cl_state *cl, const cl_static_sound *s);
void cl_set_view(cl_state *cl, const cl_view *v);
/* The view set in the open frame does not lerp from the frame before (a teleport, a
 * respawn, another player followed): it holds from the frame's start. */
void cl_view_cut(cl_state *cl);
/* The same cut as Quake III's cgame makes it (cg_predict.c CG_InterpolatePlayerState
 * returns the older snapshot's playerState whole when the next is a teleport): the view
 * before shows until the frame's time, then the new one. */
void cl_view_hold(cl_state *cl);
/* The view shown at t: the one before through a held cut (cl_view_hold), else the newest. */
const cl_view *cl_view_shown(const cl_state *cl, double t);
/* The view whose facts (dead, the dead player's yaw) hold at t: the one before until the
 * frame's time. Quake III's cgame takes them from cg.snap, the older snapshot, whose
 * playerState it interpolates the origin and angles of only (CG_InterpolatePlayerState):
 * a death shows in the newer snapshot's time, not the interval before. */
const cl_view *cl_view_facts(const cl_state *cl, double t);
void cl_set_view_entity(cl_state *cl, int ent);
void cl_set_view_angles(cl_state *cl, const float angles[3]);
void cl_set_player_name(cl_state *cl, int slot, const char *name);
void cl_set_player_frags(cl_state *cl, int slot, int frags);
void cl_set_player_colors(cl_state *cl, int slot, int top, int bottom);
void cl_set_player_entity(cl_state *cl, int slot, int entity);
void cl_set_player_spectator(cl_state *cl, int slot, int spectator);
void cl_message_add(cl_state *cl, cl_msg_kind kind, const char *text);
void cl_set_paused(cl_state *cl, int paused);
/* The level's end screen: 0 none, CL_INTER_SHOW a game's intermission, CL_INTER_FINALE and
 * CL_INTER_CUTSCENE Quake's svc_finale and svc_cutscene (each with its own screen:
 * Sbar_FinaleOverlay, none) */
#define CL_INTER_SHOW 1
#define CL_INTER_FINALE 2
#define CL_INTER_CUTSCENE 3
void cl_set_intermission(cl_state *cl, int kind);

/* ---- Neutral facts (issue #10): decoders call these as they are ported ---- */

/* Replace the game's default camera conventions (cl_level_begin sets them per game). */
void cl_set_conventions(cl_state *cl, const cl_conventions *conv);
/* A player's stats (slot 0..CL_MAX_PLAYERS-1, marks it has_stats) or, slot -1, the recorded
 * view's. Sets CL_ST_VALID. Out-of-range slots are ignored. */
void cl_set_stats(cl_state *cl, int slot, const cl_stats *st);
/* Model, skin and head names ("" leaves head empty; NULL keeps a field). */
void cl_set_player_look(cl_state *cl, int slot, const char *model, const char *skin,
                        const char *head);
void cl_set_player_team(cl_state *cl, int slot, int team);
/* The team's own name (longer names are cut at 15 bytes; Quake's scoreboard shows 4). */
void cl_set_player_team_name(cl_state *cl, int slot, const char *name);
void cl_set_player_ping(cl_state *cl, int slot, int ping);
/* Append an event, stamped with cl->time; the ring keeps the latest CL_MAX_EVENTS. A
 * CL_EV_FRAG counts a death for its target and is marked CL_EVF_SUICIDE when it has no
 * other killer (actor -1 or the target). */
void cl_event_add(cl_state *cl, const cl_event *ev);
/* Event number i (0 = the first ever added), or NULL when it left the ring or is not yet. */
const cl_event *cl_event_get(const cl_state *cl, uint32_t i);
/* Log a transient effect starting now (t0 = cl->time); life is clamped into
 * (0, CL_FX_WINDOW], a life <= 0 or NaN gives one frame's worth (0.1 s). */
void cl_fx_add(cl_state *cl, const cl_fxev *e);
/* Log a wall mark made now (t0 = cl->time, life CL_MARK_WINDOW). */
void cl_mark_add(cl_state *cl, const cl_fxev *e);
/* Log a sound start now (t0 = cl->time). */
void cl_sound_add(cl_state *cl, const cl_sound *s);
/* Log a sound start delay seconds from now (t0 = cl->time + delay, delay clamped into [0, 1],
 * NaN 0): a start an engine delays (Quake II's timeofs). The log then holds a start later
 * than cl->time; its readers take starts by t0 (app_audio_take), so it is heard then. */
void cl_sound_add_after(cl_state *cl, const cl_sound *s, double delay);
/* The precache slot holding name among the slots from first (>= 1) on, the ones past the
 * server's list that a decoder fills with the names its game's client starts by itself;
 * added the first time (the slots live in the level, so keyframes keep them). 0 when they
 * are all taken or the name does not fit. */
int cl_sound_intern(cl_state *cl, int first, const char *name);
/* Empty the effects log (a restored keyframe, a new level). */
void cl_fxlog_clear(cl_state *cl);

/* ---- Reading the state (renderer, info, tests) ---- */

/* An entity interpolated at demo time t (clamped to [prev_time, cur_time]), with the frame
 * blend: out->frame is the older frame, *next_frame the newer, *blend in [0,1] between them.
 * A CL_EF_TRAJ entity's origin and angles are its time-dependent trajectories at t.
 * Returns 0 when the entity is not active. */
int cl_entity_at(const cl_state *cl, int num, double t, cl_entstate *out, int *next_frame,
                 float *blend);
/* 1 when cl_entity_at places entity num at t ahead of the clock (a trajectory's lead_ms),
 * with *from the origin it would have without the lead (where the game's trace of the lead
 * starts: the renderer stops the entity at the map's solid between); 0 otherwise. */
int cl_entity_lead_from(const cl_state *cl, int num, double t, float from[3]);
/* Entity num (0 <= num < CL_MAX_ENTITIES) as it reads now, a list kept whole brought to
 * it, without its list mark (list_gen 0): what states compare by (tests, qdemo-bench). */
void cl_entity_settled(const cl_state *cl, int num, cl_entity *out);

/* When entity num's frame (since[0]) and frame2 (since[1]) took the values they have in its
 * newest state, in demo seconds (cl_entity.anim_since). Returns 0 when it is not active. */
int cl_entity_anim_since(const cl_state *cl, int num, double since[2]);

/* The recorded camera at time t: eye origin (entity origin + view height) and angles. */
void cl_view_at(const cl_state *cl, double t, float origin[3], float angles[3]);

/* The effects alive at t (t0 <= t < t0 + life), oldest first: up to cap pointers into
 * cl's log in out (the newest cap when more are alive); returns how many. */
int cl_fx_at(const cl_state *cl, double t, const cl_fxev **out, int cap);
/* The wall marks alive at t (t0 <= t < t0 + CL_MARK_WINDOW), newest first: up to cap. */
int cl_marks_at(const cl_state *cl, double t, const cl_fxev **out, int cap);

/* The slot of the recorded view's player, or -1 when none is known. */
int cl_view_player(const cl_state *cl);
/* Stats to show for slot: the player's own (has_stats), the view's for slot -1 or the view's
 * player, else NULL (nothing known: show nothing rather than someone else's numbers). The
 * result may lack CL_ST_VALID (no decoder filled it). */
const cl_stats *cl_stats_of(const cl_state *cl, int slot);

/* A camera on a body in state s: origin + the eye height for a live, dead (CL_EF_DEAD) or
 * gibbed (CL_EF_GIBBED) body, pitch = body pitch * body_pitch_scale, yaw as the body, no
 * roll (the level's cl_conventions). */
void cl_body_view(const cl_state *cl, const cl_entstate *s, float origin[3], float angles[3]);

/* Interpolation helpers, exposed for the tests. */
float cl_lerp_angle(float a, float b, float f);
/* True when moving from a to b in dt seconds is faster than any game allows (a teleport). */
int cl_is_jump(const float a[3], const float b[3], double dt);

#endif
