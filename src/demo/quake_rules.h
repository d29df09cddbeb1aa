/* quake_rules.h: QuakeC's rules shared by the Quake and QuakeWorld decoders (stats, obituaries,
 * pickup phrases, temporary entities), turned into neutral cl_* facts. */
#ifndef QD_QUAKE_RULES_H
#define QD_QUAKE_RULES_H

#include <stdint.h>

#include "../client/cl.h"

#define QR_NUM_STATS 32 /* Quake's MAX_CL_STATS, QuakeWorld's too */

/* Raw stat slots (id's quakedef.h STAT_*, QW bothdefs.h: the same numbers) -> cl_stats. score
 * is the player's frags. Fills every field of *out. */
void qr_fill_stats(const int32_t raw[QR_NUM_STATS], int32_t score, cl_stats *out);

/* The entity EF_* byte of Quake (protocol.h: BRIGHTFIELD 1, MUZZLEFLASH 2, BRIGHTLIGHT 4,
 * DIMLIGHT 8) and QuakeWorld (also FLAG1 16, FLAG2 32, BLUE 64, RED 128) as CL_FX_* bits.
 * Inline for the usual case, no bit that has a look: it runs for every entity emitted. */
uint16_t qr_entity_fx_map(uint32_t effects);
static inline uint16_t qr_entity_fx(uint32_t effects)
{
    return (effects & ~1u) ? qr_entity_fx_map(effects) : 0; /* BRIGHTFIELD alone: none */
}

/* One whole print line (no trailing newline needed) checked against the QuakeC obituary
 * templates with the active players' names of cl at the name places. On a match fills *ev
 * as a CL_EV_FRAG (actor, target, means, weapon) and returns 1; else 0. */
int qr_obituary(const cl_state *cl, const char *line, cl_event *ev);

/* A pickup line ("You got the Nailgun", "You get 2 rockets", "You receive 15 health"): fills
 * *ev as a CL_EV_PICKUP by actor with the item's text and returns 1; else 0. */
int qr_pickup(const char *line, int actor, cl_event *ev);

/* A chat line "name: text" or "(name): text" (team): fills *ev as a CL_EV_CHAT with the
 * sender's slot (-1 when no player's name matches) and the text after ": ". Always 1. */
int qr_chat(const cl_state *cl, const char *line, cl_event *ev);

/* Quake and QuakeWorld servers print a line in pieces (one sprint a name or word); the
 * joiner collects them until the newline. Plain data, so it lives in the decoder's state. */
typedef struct qr_line {
    uint16_t len;
    char text[CL_TEXT_LEN];
} qr_line;
/* Feed one print's text: calls on_line(ctx, line) for each line it completes (without the
 * newline); keeps the rest for the next print. A line longer than the buffer is cut. */
void qr_line_feed(qr_line *l, const char *text, void (*on_line)(void *ctx, const char *line),
                  void *ctx);

/* Add an event with only a kind and a text (a centre print, a level start, "" for none). */
void qr_text_event(cl_state *cl, cl_event_kind kind, const char *text);

/* A Quake or QuakeWorld TE_* number (id's protocol.h; QW: 12 blood, 13 lightning blood) with
 * its entity, origin and end as a logged effect. Returns 0 for a type without one. */
int qr_temp_fx(cl_game game, int type, int entity, const float origin[3], const float end[3],
               cl_fxev *out);

/* The sound the client itself starts for that TE_* at origin (cl_tent.c CL_ParseTEnt:
 * explosions weapons/r_exp3.wav, spikes tink1 or ric1..3, wizard and knight spikes their
 * hits; no server sends them), logged with cl_sound_add; pick (any stable number, the same
 * for the same moment) chooses the ricochet as rand() does there. */
void qr_temp_sound(cl_state *cl, cl_game game, int type, const float origin[3], uint32_t pick);

/* A muzzle flash's light (cl_main.c CL_RelinkEntities' EF_MUZZLEFLASH: 16 units above the
 * entity; QuakeWorld's CL_MuzzleFlash: at the player's origin): `up` units above origin and
 * 18 ahead along angles (pitch down positive), radius 200 (the engines add rand() & 31), for
 * 0.1 s, logged as a CL_FXK_MUZZLE effect of entity. */
void qr_muzzle_flash(cl_state *cl, int entity, const float origin[3], const float angles[3],
                     float up);

#endif
