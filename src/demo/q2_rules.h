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

#endif
