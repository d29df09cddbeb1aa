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
#define CL_MAX_MODELS 2048    /* precache slots, index 0 unused; FitzQuake 666 allows 2048 */
#define CL_MAX_SOUNDS 2048
#define CL_MAX_PLAYERS 64     /* Q3 MAX_CLIENTS; Q1/QW use 16..32 */
#define CL_MAX_LIGHTSTYLES 64
#define CL_MAX_STATS 64
#define CL_MAX_TEMPS 64       /* temporary effects kept in the ring */
#define CL_MAX_PRINTS 8       /* recent prints kept for the screen */
#define CL_NAME_LEN 64
#define CL_TEXT_LEN 256

typedef enum cl_game { CL_GAME_NONE, CL_GAME_Q1, CL_GAME_QW, CL_GAME_Q2, CL_GAME_Q3 } cl_game;

/* What an entity looks like in one frame. Units are the game's (Quake units, degrees). */
typedef struct cl_entstate {
    float origin[3];
    float angles[3];   /* pitch, yaw, roll in degrees */
    uint16_t model;    /* precache index; 0 = draws nothing */
    uint16_t frame;    /* model animation frame */
    uint16_t skin;
    uint8_t colormap;  /* Q1: player slot + 1 for colour translation, 0 = none */
    uint8_t alpha;     /* 255 opaque; FitzQuake 666 U_ALPHA; 0 means "default" (opaque) */
    uint32_t effects;  /* EF_* bits of the entity's game */
    uint8_t scale;     /* 16 = 1.0; 0 means 1.0 */
    uint8_t flags;     /* CL_EF_* below */
    uint8_t pad[2];
} cl_entstate;

/* cl_entstate.flags */
#define CL_EF_TELEPORT 0x01 /* the decoder knows this update is a jump: snap, do not lerp */
#define CL_EF_PLAYER 0x02   /* the entity is a client (QW playerinfo, Q1 ent 1..maxclients) */

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
} cl_entity;

typedef struct cl_player {
    char name[32];
    int32_t frags;
    uint8_t top, bottom;  /* shirt and pants colour, 0..15 */
    uint8_t active;       /* slot in use (name non-empty) */
    uint8_t spectator;
    int32_t entity;       /* entity number of the player's body, or -1 */
    int32_t stats[32];    /* per-player stats (MVD dem_stats); the recorder's are cl.stats */
} cl_player;

/* The recorded view: what the recording client saw. Origin comes from view_entity unless
 * has_origin is set (QW/Q2/Q3 carry it explicitly). */
typedef struct cl_view {
    int32_t view_entity;
    float origin[3];      /* valid when has_origin */
    float angles[3];
    float punch[3];
    float view_height;    /* added to origin[2] */
    uint8_t has_origin;
    uint8_t pad[3];
} cl_view;

typedef enum cl_msg_kind { CL_MSG_PRINT, CL_MSG_CENTER, CL_MSG_CHAT } cl_msg_kind;

typedef struct cl_message {
    double time;
    uint8_t kind;  /* cl_msg_kind */
    char text[CL_TEXT_LEN];
} cl_message;

typedef struct cl_temp {
    double time;
    uint16_t type;        /* the game's TE_* number */
    uint8_t game;         /* cl_game */
    int32_t entity;
    float origin[3];
    float end[3];
} cl_temp;

/* The level: map and precache lists. Set by cl_level_begin and cl_set_model/sound. */
typedef struct cl_level {
    cl_game game;
    int32_t protocol;
    int32_t max_clients;
    char map[CL_NAME_LEN];          /* e.g. "maps/e1m1.bsp" */
    char title[CL_NAME_LEN];        /* the level's message, e.g. "the Slipgate Complex" */
    char gamedir[32];               /* "id1", "qw", mod name... */
    int32_t num_models, num_sounds; /* highest index set + 1 */
    char models[CL_MAX_MODELS][CL_NAME_LEN];
    char sounds[CL_MAX_SOUNDS][CL_NAME_LEN];
    char lightstyles[CL_MAX_LIGHTSTYLES][CL_NAME_LEN];
} cl_level;

/* The whole client state. Plain data: copy it with memcpy. About 1 MB. */
typedef struct cl_state {
    cl_level level;
    uint32_t level_count;     /* how many level starts so far */
    uint32_t model_gen;       /* changes whenever level.models changes (level start, precache) */

    double time;              /* demo time of the latest frame */
    double prev_time;         /* demo time of the frame before */
    uint32_t frame_count;     /* frames ended so far */
    uint8_t in_frame;         /* a frame is open (cl_frame_begin without end) */
    uint8_t paused;
    uint8_t intermission;
    uint8_t pad;

    cl_view view, prev_view;
    int32_t stats[CL_MAX_STATS];

    cl_player players[CL_MAX_PLAYERS];

    int32_t num_entities;     /* highest entity number used + 1 */
    cl_entity entities[CL_MAX_ENTITIES];
    /* The entities that may be active, so a frame's end touches only those. */
    int32_t num_listed;
    uint16_t active_list[CL_MAX_ENTITIES];

    int32_t num_statics;
    cl_entstate statics[CL_MAX_STATICS];

    uint32_t message_count;   /* total prints ever; messages[] is a ring of the latest */
    cl_message messages[CL_MAX_PRINTS];
    uint32_t temp_count;
    cl_temp temps[CL_MAX_TEMPS];
} cl_state;

/* ---- Lifetime ---- */

/* Reset to the empty state (no level). */
void cl_reset(cl_state *cl);

/* ---- The neutral update language (called by decoders) ---- */

/* A new level: clears entities, statics, precache lists, view and stats; keeps players'
 * names (servers resend them anyway). */
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
/* The entity is in the open frame with the same state it had in the latest one (formats
 * that send only changes). Returns 0 when it is not active: send its state instead. */
int cl_entity_keep(cl_state *cl, int num);
/* Remove an entity now. */
void cl_entity_remove(cl_state *cl, int num);
/* Close the frame. When drop_missing is set, entities not updated in this frame vanish
 * (Q1 and packet-entity formats list every visible entity in every frame). */
void cl_frame_end(cl_state *cl, int drop_missing);

int cl_static_add(cl_state *cl, const cl_entstate *s);
void cl_set_view(cl_state *cl, const cl_view *v);
void cl_set_view_entity(cl_state *cl, int ent);
void cl_set_view_angles(cl_state *cl, const float angles[3]);
void cl_set_stat(cl_state *cl, int index, int value);
void cl_set_player_name(cl_state *cl, int slot, const char *name);
void cl_set_player_frags(cl_state *cl, int slot, int frags);
void cl_set_player_colors(cl_state *cl, int slot, int top, int bottom);
void cl_set_player_entity(cl_state *cl, int slot, int entity);
void cl_set_player_spectator(cl_state *cl, int slot, int spectator);
void cl_set_player_stat(cl_state *cl, int slot, int index, int value);
void cl_message_add(cl_state *cl, cl_msg_kind kind, const char *text);
void cl_temp_add(cl_state *cl, const cl_temp *te);
void cl_set_paused(cl_state *cl, int paused);
void cl_set_intermission(cl_state *cl, int on);

/* ---- Reading the state (renderer, info, tests) ---- */

/* An entity interpolated at demo time t (clamped to [prev_time, cur_time]), with the frame
 * blend: out->frame is the older frame, *next_frame the newer, *blend in [0,1] between them.
 * Returns 0 when the entity is not active. */
int cl_entity_at(const cl_state *cl, int num, double t, cl_entstate *out, int *next_frame,
                 float *blend);

/* The recorded camera at time t: eye origin (entity origin + view height) and angles. */
void cl_view_at(const cl_state *cl, double t, float origin[3], float angles[3]);

/* Interpolation helpers, exposed for the tests. */
float cl_lerp_angle(float a, float b, float f);
/* True when moving from a to b in dt seconds is faster than any game allows (a teleport). */
int cl_is_jump(const float a[3], const float b[3], double dt);

#endif
