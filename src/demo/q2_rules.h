/* q2_rules.h: Quake II's game rules as data: obituary and chat lines, icon and weapon model
 * names, temp entity kinds, mapped to the neutral client facts (src/client/cl.h). */
#ifndef QD_Q2_RULES_H
#define QD_Q2_RULES_H

#include <stdint.h>

#include "../client/cl.h"

/* What an image (CS_IMAGES) name stands for, one byte: the class in the high nibble, the
 * cl_armor / cl_ammo / cl_powerup value in the low one. 0: nothing the HUD shows. */
#define Q2_NK_ARMOR 0x10
#define Q2_NK_AMMO 0x20
#define Q2_NK_POWERUP 0x30
#define Q2_NK_CLASS(k) ((k) & 0xf0)
#define Q2_NK_VALUE(k) ((k) & 0x0f)

/* The kind of an icon image name ("i_combatarmor", "a_slugs", "p_quad"). */
uint8_t q2_image_kind(const char *name);
/* The cl_weapon of a view weapon model name ("models/weapons/v_rail/tris.md2"), or
 * CL_WP_NONE. */
uint8_t q2_model_weapon(const char *name);

/* A level-1 print (the obituary, trailing newline included or not) matched against Quake
 * II's ClientObituary templates with the active players' names of cl: 1 with ev filled
 * (CL_EV_FRAG, actor, target, means, weapon), else 0. */
int q2_obituary(const cl_state *cl, const char *line, cl_event *ev);
/* A level-3 print "name: text" or "(name): text" (team) of an active player: 1 with ev
 * filled (CL_EV_CHAT, actor, text without the newline), else 0. */
int q2_chat(const cl_state *cl, const char *line, cl_event *ev);

/* The effect of temp entity `type` under protocol: fx->kind, life, radius and rgb filled
 * (origin, end and entity left to the caller). 0 for types shown as nothing. */
int q2_temp_fx(int type, int protocol, cl_fxev *fx);

/* Quake II's sound channels and attenuations (q_shared.h CHAN_*, ATTN_*; x64 as cl_sound
 * keeps them). */
enum { Q2_CHAN_AUTO = 0, Q2_CHAN_WEAPON = 1, Q2_CHAN_BODY = 4 };
enum { Q2_ATT_NONE = 0, Q2_ATT_NORM = 64, Q2_ATT_IDLE = 128, Q2_ATT_STATIC = 192 };

/* A sound Quake II's client starts by itself: the name (a "%d" in it a variant 1..variants
 * the caller picks), the channel, the attenuation x64 and the delay in seconds. */
typedef struct q2_snd {
    const char *name;
    uint8_t chan, att, variants;
    float delay;
} q2_snd;

/* The sounds a player's svc_muzzleflash of weapon mz (MZ_*, the silenced bit cleared)
 * starts on its entity (cl_fx.c CL_ParseMuzzleFlash): up to 3 into out; returns how many.
 * *loud is set when the silencer does not lower them (the login flashes). */
int q2_muzzle_sounds(int mz, q2_snd out[3], int *loud);

/* Where a temp entity's sound starts. */
enum { Q2_TS_ORIGIN, Q2_TS_END, Q2_TS_ENTITY };

/* The sound Quake II's client starts for temp entity type under protocol (cl_tent.c
 * CL_ParseTEnt): 1 with *out filled and *where (Q2_TS_*), 0 for none. splash is a TE_SPLASH's
 * colour byte; roll stands in for the engine's rand() (the ricochets and sparks). */
int q2_temp_sound(int type, int protocol, int splash, uint32_t roll, q2_snd *out, int *where);

/* The sound Quake II's client starts for entity event ev (EV_*) on its entity (cl_fx.c
 * CL_EntityEvent): 1 with *out filled (a "%d" in the name: one of out->variants), 0 for
 * none. */
int q2_event_sound(int ev, q2_snd *out);

#endif
