/* r_main.c: r_render, the frame: clear, then per pass the world (or a ground grid and a notice
 * when the map is missing) and every entity of the client state. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdatomic.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../common/dirs.h"
#include "draw2d.h"
#include "r_local.h"

#define CLEAR_COLOR rast_rgb(0, 0, 0)
#define NOMAP_COLOR rast_rgb(24, 26, 34)
#define GRID_COLOR rast_rgb(70, 76, 92)
#define GRID_STEP 64.0f
#define GRID_HALF 24    /* lines each side of the camera */
#define EYE_TO_FEET 46  /* Quake's eye is 22 above the origin, the feet 24 below it */

/* view.c V_CalcBob: the eye's bob over a cl_bobcycle of 0.6 s (up for its first half,
 * cl_bobup 0.5), proportional to the speed across the ground (cl_bob 0.02): 0.3 of it
 * steady and 0.7 in a sine, held within -7 .. 4 units. The cycle runs on demo time (Quake's
 * on the server's, a phase apart). */
static float quake_bob(const cl_state *cl, double t)
{
    const float *v = cl->view.velocity;
    double cycle = fmod(t, 0.6) / 0.6;
    if (cycle < 0)
        cycle += 1;
    cycle = cycle < 0.5 ? M_PI * cycle / 0.5 : M_PI + M_PI * (cycle - 0.5) / 0.5;
    float bob = sqrtf(v[0] * v[0] + v[1] * v[1]) * 0.02f;
    if (!isfinite(bob))
        return 0;
    bob = bob * 0.3f + bob * 0.7f * (float)sin(cycle);
    return bob > 4 ? 4 : bob < -7 ? -7 : bob;
}

/* Quake's first-person view beyond the demo's angles and eye (view.c V_CalcRefdef,
 * V_CalcViewRoll): the bob, the roll of strafing (V_CalcRoll: the speed along the view's
 * right, cl_rollangle 2 degrees at cl_rollspeed 200 and over), the fading kick of the
 * last hit (V_ParseDamage) and a dead player's view on its side (roll 80). */
static void quake_view(const cl_state *cl, double t, r_camera *cam)
{
    cam->origin[2] += quake_bob(cl, t);
    const float *v = cl->view.velocity;
    float yaw = cam->angles[1] * (float)(M_PI / 180);
    float side = v[0] * sinf(yaw) - v[1] * cosf(yaw); /* along the right (pitch and roll
                                                       * of the view aside) */
    float roll = fabsf(side) < 200 ? fabsf(side) * 2 / 200 : 2;
    if (isfinite(roll))
        cam->angles[2] += side < 0 ? -roll : roll;
    double age = t - cl->view.dmg_time;
    if ((cl->view.dmg_roll != 0 || cl->view.dmg_pitch != 0) && age >= 0 && age < 0.5) {
        float k = (float)(1 - age / 0.5);
        cam->angles[2] += k * cl->view.dmg_roll;
        cam->angles[0] += k * cl->view.dmg_pitch;
    }
    const cl_stats *st = cl_stats_of(cl, -1);
    if (st && (st->flags & CL_ST_VALID) && st->health <= 0)
        cam->angles[2] = 80;
}

/* Whether the recorded player is drawn from behind (Quake III, dead: cg_view.c
 * CG_DrawActiveFrame renders in third person when STAT_HEALTH <= 0), its own body then
 * shown. */
static int q3_third_person(const cl_state *cl, double t)
{
    return cl && cl->level.game == CL_GAME_Q3 && cl_view_facts(cl, t)->dead;
}

/* The pitch that looks from view at focus (cg_view.c CG_OffsetThirdPersonView's last
 * step). */
static float pitch_to(const float view[3], const float focus[3])
{
    float d[3] = {focus[0] - view[0], focus[1] - view[1], focus[2] - view[2]};
    float dist = sqrtf(d[0] * d[0] + d[1] * d[1]);
    return -(float)(atan2(d[2], dist > 1 ? dist : 1) * (180.0 / M_PI));
}

/* A dead Quake III player's camera (cg_view.c CG_OffsetThirdPersonView, cg_thirdPersonRange
 * 40 and cg_thirdPersonAngle 0, the defaults): it turns to STAT_DEAD_YAW (the killer),
 * backs off 40 units along the view (its pitch halved) from 8 units over the eye, and
 * pitches to look at the point 512 units ahead of the eye along the view (pitch at most
 * 45). The game pulls the camera in where a box traced from the eye meets the map: r_render
 * does (camera_pull_in). */
static void q3_death_camera(const cl_state *cl, double t, r_camera *cam)
{
    float ang[3] = {cam->angles[0], cl_view_facts(cl, t)->dead_yaw, cam->angles[2]};
    float focus_ang[3] = {ang[0] > 45 ? 45 : ang[0], ang[1], ang[2]};
    float fwd[3], right[3], up[3], focus[3], view[3];
    r_angle_vectors(focus_ang, fwd, right, up);
    for (int j = 0; j < 3; j++) {
        focus[j] = cam->origin[j] + 512 * fwd[j];
        view[j] = cam->origin[j];
    }
    view[2] += 8;
    ang[0] *= 0.5f;
    r_angle_vectors(ang, fwd, right, up);
    for (int j = 0; j < 3; j++)
        view[j] -= 40 * fwd[j];
    ang[0] = pitch_to(view, focus);
    cam->pivoted = 1;
    memcpy(cam->pivot, cam->origin, sizeof cam->pivot);
    memcpy(cam->focus, focus, sizeof focus);
    memcpy(cam->origin, view, sizeof view);
    memcpy(cam->angles, ang, sizeof ang);
}

/* How far (0..1) along from -> to the map's solid is first met, sampled every 2 units (a
 * point in a leaf of no cluster: Quake III's solid and outside); 1 when never. */
static float solid_fraction(const mdl_bsp *b, const float from[3], const float to[3])
{
    float d[3] = {to[0] - from[0], to[1] - from[1], to[2] - from[2]};
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    int n = len > 0 && len < 4096 ? (int)(len / 2) + 1 : 0;
    for (int i = 1; i <= n; i++) {
        float f = (float)i / (float)n, p[3];
        for (int j = 0; j < 3; j++)
            p[j] = from[j] + f * d[j];
        uint32_t leaf = mdl_bsp_point_leaf(b, b->models[0].headnode, p);
        if (leaf == 0 || leaf >= b->num_leaves || b->leaves[leaf].cluster < 0)
            return (float)(i - 1) / (float)n;
    }
    return 1;
}

int r_entity_at(const r_assets *a, const cl_state *cl, int num, double t, cl_entstate *out,
                int *next_frame, float *blend)
{
    if (!cl_entity_at(cl, num, t, out, next_frame, blend))
        return 0;
    const mdl_bsp *b = a ? a->world.bsp : NULL;
    float from[3];
    if (b && b->num_models && b->num_leaves && cl_entity_lead_from(cl, num, t, from)) {
        /* cg_ents.c CG_CalcEntityLerpPositions: "don't let the projectile go through the
         * floor" (a point sampled every 2 units for the game's trace) */
        float f = solid_fraction(b, from, out->origin);
        for (int j = 0; f < 1 && j < 3; j++)
            out->origin[j] = from[j] + f * (out->origin[j] - from[j]);
    }
    return 1;
}

/* The point fraction f of the way from `from` to `to`, less 4 units (the game's box is 8
 * wide: it stops short of the wall), not behind `from`. */
static void stop_short(const float from[3], const float to[3], float f, float out[3])
{
    float d[3] = {to[0] - from[0], to[1] - from[1], to[2] - from[2]};
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    float g = f - (len > 0 ? 4 / len : 0);
    g = g > 0 ? g : 0;
    for (int j = 0; j < 3; j++)
        out[j] = from[j] + g * d[j];
}

/* cg_view.c CG_OffsetThirdPersonView's trace, from the eye to the backed-off camera: where
 * the map's solid comes between, the camera stops there, rises by (1 - fraction) 32 units
 * and stops again where a second trace from the eye meets solid; then it looks at the
 * focus point again. A point sampled every 2 units stands in for the game's box. */
static void camera_pull_in(const r_assets *a, r_camera *cam)
{
    const mdl_bsp *b = a ? a->world.bsp : NULL;
    if (!b || !b->num_models || !b->num_leaves)
        return;
    float f = solid_fraction(b, cam->pivot, cam->origin);
    if (f >= 1)
        return;
    float view[3];
    stop_short(cam->pivot, cam->origin, f, view);
    view[2] += (1 - f) * 32;
    float f2 = solid_fraction(b, cam->pivot, view);
    if (f2 < 1)
        stop_short(cam->pivot, view, f2, view);
    memcpy(cam->origin, view, sizeof view);
    cam->angles[0] = pitch_to(view, cam->focus);
}

void r_camera_from_view(const cl_state *cl, double t, r_camera *cam)
{
    memset(cam, 0, sizeof *cam);
    cl_view_at(cl, t, cam->origin, cam->angles);
    cam->fov = 90;
    cl_entstate s;
    if (cl && cl->level.game == CL_GAME_Q1 && cl->intermission &&
        cl_entity_at(cl, cl->view.view_entity, t, &s, NULL, NULL)) {
        /* view.c V_CalcIntermissionRefdef: the eye at the view entity's origin with its
         * angles (not the demo's view angles: a cutscene moves and turns the entity), no
         * view height, and V_AddIdle at v_idlescale 1 (v_i*_cycle 2, 0.5, 1 and v_i*_level
         * 0.3, 0.1, 0.3 for yaw, roll and pitch) */
        memcpy(cam->origin, s.origin, sizeof cam->origin);
        memcpy(cam->angles, s.angles, sizeof cam->angles);
        cam->angles[0] += (float)(sin(t * 1.0) * 0.3);
        cam->angles[1] += (float)(sin(t * 2.0) * 0.3);
        cam->angles[2] += (float)(sin(t * 0.5) * 0.1);
    } else if (cl && cl->level.game == CL_GAME_Q1) {
        quake_view(cl, t, cam);
    } else if (cl && cl->level.game == CL_GAME_QW && !cl->intermission &&
               cl_view_facts(cl, t)->dead) {
        /* id QW view.c V_CalcRefdef: a dead player's view on its side, roll 80 (PF_GIB comes
         * with PF_DEAD), as ezQuake draws it (its $cam_angles print the roll as 0) */
        cam->angles[2] = 80;
    } else if (q3_third_person(cl, t)) {
        q3_death_camera(cl, t, cam);
    } else if (cl && cl->level.game == CL_GAME_Q3) {
        /* cg_view.c CG_OffsetFirstPersonView's bob (cg_bobpitch and cg_bobroll 0.002,
         * cg_bobup 0.005): pitch by the bob at no less than 200 units/s, roll the same, its
         * sign from the leg (bobCycle bit 7), the eye up by at most 6 units. (Its run pitch
         * and roll need the velocity's direction, and the duck, fall and step offsets
         * their moments: not kept.) */
        int cyc;
        float xy;
        r_q3_bob(cl, t, &cyc, &xy);
        float fracsin = fabsf(sinf((float)(cyc & 127) / 127.0f * (float)M_PI));
        float speed = xy > 200 ? xy : 200;
        cam->angles[0] += fracsin * 0.002f * speed;
        cam->angles[2] += (cyc & 128 ? -1 : 1) * fracsin * 0.002f * speed;
        float bob = fracsin * xy * 0.005f;
        cam->origin[2] += bob > 6 ? 6 : bob;
        /* its damage kick (CG_DamageFeedback's): in over DAMAGE_DEFLECT_TIME (100 ms), back
         * over DAMAGE_RETURN_TIME (400 ms) */
        const cl_view *f = cl_view_facts(cl, t);
        double ms = (t - f->dmg_time) * 1000;
        float k = ms < 0 || !(f->dmg_pitch != 0 || f->dmg_roll != 0) ? 0
                  : ms < 100                                          ? (float)(ms / 100)
                  : ms < 500                                          ? (float)(1 - (ms - 100) / 400)
                                                                      : 0;
        cam->angles[0] += k * f->dmg_pitch;
        cam->angles[2] += k * f->dmg_roll;
    }
}

/* Without a map: a grid on the floor under the camera so entities have a frame of reference. */
static void draw_grid(r_view *v)
{
    if (v->pass == R_PASS_DEPTH)
        return;
    float z = v->org[2] - EYE_TO_FEET;
    float cx = floorf(v->org[0] / GRID_STEP) * GRID_STEP;
    float cy = floorf(v->org[1] / GRID_STEP) * GRID_STEP;
    float ext = GRID_HALF * GRID_STEP;
    for (int i = -GRID_HALF; i <= GRID_HALF; i++) {
        float a[3] = {cx + (float)i * GRID_STEP, cy - ext, z},
              b[3] = {cx + (float)i * GRID_STEP, cy + ext, z};
        r_draw_line(v, a, b, GRID_COLOR, RAST_COLOR_WRITE | RAST_DEPTH_TEST);
        float c[3] = {cx - ext, cy + (float)i * GRID_STEP, z},
              d[3] = {cx + ext, cy + (float)i * GRID_STEP, z};
        r_draw_line(v, c, d, GRID_COLOR, RAST_COLOR_WRITE | RAST_DEPTH_TEST);
    }
}

/* The level's model slot of name, 0 none. */
static int model_slot(const cl_state *cl, const char *name)
{
    for (int i = 1; i < cl->level.num_models && i < CL_MAX_MODELS; i++)
        if (!strcmp(cl->level.models[i], name))
            return i;
    return 0;
}

int r_beam_segments(const cl_state *cl, double t, cl_entstate *out, int cap)
{
    if (!cl || (cl->level.game != CL_GAME_Q1 && cl->level.game != CL_GAME_QW))
        return 0;
    const cl_fxev *fx[256];
    int nfx = cl_fx_at(cl, t, fx, 256), n = 0;
    for (int i = 0; i < nfx && n < cap; i++) {
        const cl_fxev *b = fx[i];
        if (b->kind != CL_FXK_BEAM_LIGHTNING)
            continue;
        int newer = 0;
        for (int j = i + 1; j < nfx && !newer; j++)
            newer = fx[j]->kind == CL_FXK_BEAM_LIGHTNING && fx[j]->entity == b->entity;
        const char *name = b->style == 5   ? "progs/bolt.mdl"
                           : b->style == 6 ? "progs/bolt2.mdl"
                           : b->style == 9 ? "progs/bolt3.mdl"
                                           : "progs/beam.mdl";
        int model = newer ? 0 : model_slot(cl, name);
        if (!model)
            continue;
        float start[3], d[3];
        memcpy(start, b->origin, sizeof start);
        cl_entstate owner;
        if (b->entity > 0 && b->entity == cl->view.view_entity &&
            cl_entity_at(cl, b->entity, t, &owner, NULL, NULL))
            memcpy(start, owner.origin, sizeof start); /* it follows its firer */
        for (int k = 0; k < 3; k++)
            d[k] = b->end[k] - start[k];
        float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (!isfinite(len) || len <= 0)
            continue; /* (before the angles' conversions to int) */
        float pitch, yaw, fwd = sqrtf(d[0] * d[0] + d[1] * d[1]);
        if (d[0] == 0 && d[1] == 0) {
            yaw = 0;
            pitch = d[2] > 0 ? 90 : 270;
        } else {
            yaw = (float)(int)(atan2f(d[1], d[0]) * 180 / (float)M_PI);
            yaw += yaw < 0 ? 360 : 0;
            pitch = (float)(int)(atan2f(d[2], fwd) * 180 / (float)M_PI);
            pitch += pitch < 0 ? 360 : 0;
        }
        for (int k = 0; k < 3; k++)
            d[k] /= len;
        /* each segment's roll: the engine's rand() % 360, here a hash of the beam's start
         * time and the segment (the same picture every time) */
        uint32_t h = (uint32_t)(int64_t)(b->t0 * 1000) * 2654435761u;
        for (float at = 0; at < len && n < cap; at += 30) {
            cl_entstate *s = &out[n++];
            memset(s, 0, sizeof *s);
            s->model = (uint16_t)model;
            for (int k = 0; k < 3; k++)
                s->origin[k] = start[k] + d[k] * at;
            s->angles[0] = pitch;
            s->angles[1] = yaw;
            h = h * 1664525u + 1013904223u;
            s->angles[2] = (float)((h >> 8) % 360);
        }
    }
    return n;
}

int r_explosion_sprites(const r_assets *a, const cl_state *cl, double t, cl_entstate *out,
                        int cap)
{
    int model = cl && cl->level.game == CL_GAME_QW ? model_slot(cl, "progs/s_explod.spr") : 0;
    if (!a || !model || model >= a->num_models || a->models[model].kind != R_KIND_SPRITE ||
        !a->models[model].sprite)
        return 0;
    const cl_fxev *fx[256];
    int nfx = cl_fx_at(cl, t, fx, 256), n = 0;
    for (int i = nfx - 1; i >= 0 && n < cap && n < 8; i--) {
        const cl_fxev *e = fx[i];
        double f = (t - e->t0) * 10;
        if (e->kind != CL_FXK_EXPLOSION || e->style != 3 || !(f >= 0) ||
            f >= a->models[model].sprite->num_frames)
            continue;
        cl_entstate *s = &out[n++];
        memset(s, 0, sizeof *s);
        s->model = (uint16_t)model;
        s->frame = (uint16_t)f;
        memcpy(s->origin, e->origin, sizeof s->origin);
    }
    return n;
}

static void draw_entities(r_view *v, const r_assets *a, const cl_state *cl, double t,
                          const r_options *o)
{
    if (!cl)
        return;
    int n = cl->num_entities < CL_MAX_ENTITIES ? cl->num_entities : CL_MAX_ENTITIES;
    for (int i = 0; i < n; i++) {
        if ((i == cl->view.view_entity && !o->show_view_entity && !q3_third_person(cl, t)) ||
            (o->hide_entity > 0 && i == o->hide_entity))
            continue;
        cl_entstate s;
        int next = 0;
        float blend = 0;
        if (!r_entity_at(a, cl, i, t, &s, &next, &blend))
            continue;
        r_draw_entity(v, a, &s, i, next, blend, t);
    }
    int ns = cl->num_statics < CL_MAX_STATICS ? cl->num_statics : CL_MAX_STATICS;
    for (int i = 0; i < ns; i++)
        r_draw_entity(v, a, &cl->statics[i], -1, cl->statics[i].frame, 0, t);
    cl_entstate beams[64]; /* Quake's MAX_TEMP_ENTITIES */
    int nb = r_beam_segments(cl, t, beams, 64);
    for (int i = 0; i < nb; i++)
        r_draw_entity(v, a, &beams[i], -1, 0, 0, t);
    nb = r_explosion_sprites(a, cl, t, beams, 64);
    for (int i = 0; i < nb; i++)
        r_draw_entity(v, a, &beams[i], -1, beams[i].frame, 0, t);
    r_draw_particles(v, a, cl, t);
}

static void draw_scene(r_view *v, const r_assets *a, const cl_state *cl, double t,
                       const r_options *o)
{
    if (a && a->world.bsp) {
        r_draw_world(v, a);
        draw_entities(v, a, cl, t, o);
    } else {
        /* entities first so that the grid is hidden behind them */
        draw_entities(v, a, cl, t, o);
        draw_grid(v);
    }
}

/* The first-person weapon (Quake's view entity, V_CalcRefdef and R_DrawViewModel; Quake II's
 * gun entity of CL_AddViewWeapon, moved by the view's gunoffset and turned by its gunangles
 * (the server's bob and sway); Quake III's at the hand, r_md3_view_weapon): the model of the
 * view's gun_model stat at the eye, turned with the view (pitch negated, as
 * alias models are), drawn over the scene: its depths are raised above any the scene can
 * hold (R_GUN_ZBIAS), so the gun never sinks into a wall (GL engines squeeze its depth range
 * for the same end) and nothing has to be cleared. */
static void draw_gun(r_view *v, const r_assets *a, const cl_state *cl, double t)
{
    const cl_stats *st = cl ? cl_stats_of(cl, -1) : NULL;
    /* no gun at a level's end (V_CalcIntermissionRefdef: view->model = NULL) */
    if (!st || !st->gun_model || st->flags & CL_ST_DEAD || !a || st->gun_model >= a->num_models ||
        cl->intermission)
        return;
    /* cg_weapons.c CG_AddViewWeapon: a Quake III spectator holds none (the recorder of
     * OpenArena's bot match flies free: PM_SPECTATOR, TEAM_SPECTATOR) */
    if (cl->level.game == CL_GAME_Q3 && (st->flags & CL_ST_SPECTATOR))
        return;
    r_kind kind = a->models[st->gun_model].kind;
    if (kind != R_KIND_ALIAS && kind != R_KIND_MD2 && kind != R_KIND_MD3)
        return;
    cl_entstate s;
    memset(&s, 0, sizeof s);
    memcpy(s.origin, v->org, sizeof s.origin);
    /* Quake's V_CalcRefdef negates the view model's pitch; Quake II's V_AddViewWeapon
     * does not, its renderer negates every MD2's (r_md2.c): both follow the view */
    s.angles[0] = a->models[st->gun_model].kind == R_KIND_MD2 ? v->angles[0] : -v->angles[0];
    s.angles[1] = v->angles[1];
    s.angles[2] = v->angles[2];
    s.model = st->gun_model;
    s.frame = st->gun_frame;
    if (cl->level.game == CL_GAME_Q1) {
        /* V_CalcRefdef: the gun turns with the view's angles before the punch is added
         * and without its roll (so a shot's kick moves it on screen), and moves ahead by
         * 0.4 of the bob (the bob's height is the eye's already) */
        s.angles[0] = -(v->angles[0] - cl->view.punch[0]);
        s.angles[1] = v->angles[1] - cl->view.punch[1];
        s.angles[2] = 0;
        float bob = quake_bob(cl, t) * 0.4f;
        for (int i = 0; i < 3; i++)
            s.origin[i] += v->fwd[i] * bob;
    }
    if (kind == R_KIND_MD2 && cl) { /* zero for the other games */
        for (int i = 0; i < 3; i++) {
            float o = cl->view.gun_offset[i], g = cl->view.gun_angles[i];
            s.origin[i] += isfinite(o) && fabsf(o) < 64 ? o : 0;
            s.angles[i] += isfinite(g) && fabsf(g) < 360 ? g : 0;
        }
    }
    v->zbias = R_GUN_ZBIAS;
    if (kind == R_KIND_MD3) /* Quake III: the weapon at the hand (cg_weapons.c) */
        r_md3_view_weapon(v, a, st->gun_model, t);
    else /* Quake's viewmodel, Quake II's gunindex / gunframe (drawn the same way) */
        r_draw_entity(v, a, &s, -1, -1, 0, t);
    v->zbias = 0;
}

/* One band of rows of one frame: what r_render draws, limited to rows y0..y1-1. */
typedef struct band {
    const r_assets *a;
    const cl_state *cl;
    double t;
    const r_camera *cam;
    const r_options *o;
    rast_fb *fb;
    int y0, y1;
    r_cache *cache;
    const r_walk *walk; /* the frame's world walk, or NULL */
    const r_marks *marks; /* the frame's wall marks' pieces, or NULL */
    const float *pvs;     /* the walk's PVS point (a portal view's camera), or NULL: the eye */
    const rast_fb *portal_fb; /* the frame's Quake III portal view, or NULL */
    const float *clip;    /* a mirror view's plane (N, dist), or NULL */
    int count;
    double took;   /* seconds of wall time from `from` (or its own start) to its end */
    double from;   /* when the frame handed it over: a band its thread starts late on (a
                    * sleeping worker takes 0.3-0.5 ms to wake on this VM) counts the wait,
                    * so the next frames' split gives it fewer rows and the bands end
                    * together */
} band;

int r_quake_tint(const r_assets *a, const cl_state *cl, double t, const float eye[3],
                 float rgba[4])
{
    rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0;
    if (!cl || cl->level.game != CL_GAME_Q1)
        return 0;
    float shift[4][4]; /* contents, damage, bonus, powerup: r, g, b, percent */
    memset(shift, 0, sizeof shift);
    /* V_SetContentsColor: the eye's leaf */
    const mdl_bsp *b = a ? a->world.bsp : NULL;
    if (b && b->num_models > 0 && eye) {
        uint32_t li = mdl_bsp_point_leaf(b, b->models[0].headnode, eye);
        int32_t c = li < b->num_leaves ? b->leaves[li].contents : MDL_CONTENTS_EMPTY;
        static const float water[4] = {130, 80, 50, 128}, slime[4] = {0, 25, 5, 150},
                           lava[4] = {255, 80, 0, 150};
        const float *s = c == MDL_CONTENTS_WATER   ? water
                         : c == MDL_CONTENTS_SLIME ? slime
                         : c == MDL_CONTENTS_LAVA  ? lava
                                                   : NULL;
        if (s)
            memcpy(shift[0], s, sizeof shift[0]);
    }
    const cl_view *v = &cl->view;
    double since = t - v->dmg_time;
    if (v->dmg_percent > 0 && since >= 0) {
        for (int i = 0; i < 3; i++)
            shift[1][i] = v->dmg_rgb[i];
        shift[1][3] = v->dmg_percent - 150 * (float)since;
    }
    since = t - v->bonus_time;
    if (v->bonus_time > 0 && since >= 0) {
        shift[2][0] = 215, shift[2][1] = 186, shift[2][2] = 69;
        shift[2][3] = 50 - 100 * (float)since;
    }
    /* V_CalcPowerupCshift: the first of quad, suit, ring, pentagram held */
    const cl_stats *st = cl_stats_of(cl, -1);
    if (st && (st->flags & CL_ST_VALID)) {
        static const struct {
            int pu;
            float c[4];
        } pw[4] = {{CL_PU_QUAD, {0, 0, 255, 30}},
                   {CL_PU_SUIT, {0, 255, 0, 20}},
                   {CL_PU_INVIS, {100, 100, 100, 100}},
                   {CL_PU_INVULN, {255, 255, 0, 30}}};
        for (int k = 0; k < 4; k++) {
            float end = st->powerup_end[pw[k].pu];
            if (end < 0 || end > t) {
                memcpy(shift[3], pw[k].c, sizeof shift[3]);
                break;
            }
        }
    }
    /* V_CalcBlend: each tint over the ones before by its percent of 255 */
    float r = 0, g = 0, bl = 0, al = 0;
    for (int j = 0; j < 4; j++) {
        float a2 = shift[j][3] / 255;
        if (!(a2 > 0))
            continue;
        al = al + a2 * (1 - al);
        a2 = a2 / al;
        r = r * (1 - a2) + shift[j][0] * a2;
        g = g * (1 - a2) + shift[j][1] * a2;
        bl = bl * (1 - a2) + shift[j][2] * a2;
    }
    if (!(al > 0))
        return 0;
    rgba[0] = r, rgba[1] = g, rgba[2] = bl, rgba[3] = al > 1 ? 1 : al;
    return 1;
}

/* The view's rows under Quake's tint (gl_rmain.c R_PolyBlend: the colour over the 3D view by
 * its alpha). */
static void quake_tint(r_view *v, const r_assets *a, const cl_state *cl, double t)
{
    float c[4];
    if (!r_quake_tint(a, cl, t, v->org, c))
        return;
    int k = (int)(c[3] * 256 + 0.5f), ik = 256 - k;
    uint32_t add[3] = {(uint32_t)(c[0] * (float)k), (uint32_t)(c[1] * (float)k),
                       (uint32_t)(c[2] * (float)k)};
    rast_fb *fb = v->fb;
    for (int y = v->y0; y < v->y1; y++) {
        uint32_t *row = fb->color + (size_t)y * (size_t)fb->w;
        for (int x = 0; x < fb->w; x++) {
            uint32_t p = row[x]; /* (a << 24 | b << 16 | g << 8 | r: rast.h) */
            uint32_t rr = ((p & 255) * (uint32_t)ik + add[0]) >> 8,
                     gg = ((p >> 8 & 255) * (uint32_t)ik + add[1]) >> 8,
                     bb = ((p >> 16 & 255) * (uint32_t)ik + add[2]) >> 8;
            row[x] = (p & 0xff000000u) | bb << 16 | gg << 8 | rr;
        }
    }
}

static void render_band(band *bd)
{
    const r_assets *a = bd->a;
    const cl_state *cl = bd->cl;
    const r_options *o = bd->o;
    double t = bd->t;
    int have_map = a && a->world.bsp;
    /* a textured map's band is cleared by r_draw_world, which may leave the pixels its
     * front-to-back walk covers as they are until it writes them (rast_cover_begin_stale) */
    int lazy = o->mode == R_MODE_TEXTURED && have_map && bd->cache;
    if (!lazy)
        rast_clear_rows(bd->fb, have_map ? CLEAR_COLOR : NOMAP_COLOR, bd->y0, bd->y1);
    r_view v;
    r_view_setup(&v, bd->cam, bd->fb);
    v.walk = bd->walk;
    v.marks = bd->marks;
    v.pvs_org = bd->pvs;
    v.portal_fb = bd->portal_fb;
    if (bd->clip) { /* the plane in view space (r_view.clipv) */
        const float *N = bd->clip;
        v.clip_on = 1;
        v.clipv[0] = dot3(N, v.right);
        v.clipv[1] = dot3(N, v.up);
        v.clipv[2] = dot3(N, v.fwd);
        v.clipv[3] = bd->clip[3] - dot3(N, v.org);
    }
    int own_body_hidden = !o->show_view_entity && cl && !q3_third_person(cl, t);
    v.hidden_body = o->hide_entity > 0 ? o->hide_entity
                    : own_body_hidden  ? cl->view.view_entity
                                       : -1;
    v.gun_shown = o->gun != 0;
    v.y0 = bd->y0;
    v.y1 = bd->y1;
    v.cl = cl;
    v.clear_pending = lazy;
    v.clear_color = CLEAR_COLOR;
    if (o->mode == R_MODE_WIRE) {
        v.xray = o->xray != 0;
        if (!v.xray) {
            v.pass = R_PASS_DEPTH;
            draw_scene(&v, a, cl, t, o);
        }
        v.pass = R_PASS_LINES;
        draw_scene(&v, a, cl, t, o);
    } else if (o->mode == R_MODE_TEXTURED && have_map && bd->cache) {
        v.pass = R_PASS_TEXTURED;
        v.assets = a;
        v.cache = bd->cache;
        /* Quake III's shaders run on the server's clock (ioq3 tess.shaderTime is cg.time):
         * a sky's or a liquid's scroll is where the game had it at that moment */
        v.time = cl && cl->level.game == CL_GAME_Q3 ? cl_game_time(cl, t) : t;
        for (int i = 0; i < CL_MAX_LIGHTSTYLES; i++)
            v.style[i] = cl ? r_style_value(cl->level.lightstyles[i], cl_game_time(cl, t)) : 256;
        r_surf_turb_table(t, v.turb);
        if (!o->no_dlights)
            r_dlights_collect(&v, cl, t);
        r_q3_respawns_collect(&v, cl, t);
        /* Quake III: the weapon's opaque surfaces first. Its depths beat any the scene can
         * hold (R_GUN_ZBIAS), so the scene's pixels under it fail the depth test before
         * their texels are read (a fifth of a bot match's frame lies under the gun), and
         * the same pixels result; its blended surfaces (flash, shells) come last, over
         * everything, as before. */
        int gun_first = a->q3 && o->gun;
        if (gun_first) {
            if (v.clear_pending)
                rast_clear_rows(bd->fb, CLEAR_COLOR, bd->y0, bd->y1);
            v.clear_pending = 0;
            v.layers = R_LAYERS_OPAQUE;
            draw_gun(&v, a, cl, t);
            v.layers = R_LAYERS_ALL;
        }
        draw_scene(&v, a, cl, t, o);
        if (v.clear_pending) /* draw_scene walks the world first; never left, but sure */
            rast_clear_rows(bd->fb, CLEAR_COLOR, bd->y0, bd->y1);
        if (a->q3) { /* Quake III: the sky, the wall marks, the blended surfaces over them */
            r_q3_sky(&v, a);
            r_q3_gibs(&v, cl, t);
            r_q3_marks(&v, cl, t);
            r_q3_shadows(&v, cl, t);
            v.pass = R_PASS_Q3_BLEND;
            r_draw_world(&v, a);
            v.pass = R_PASS_TEXTURED;
            r_q3_rails(&v, cl, t);
            r_q3_explosions(&v, cl, t);
            r_q3_pellet_puffs(&v, cl, t);
            r_q3_smoke(&v, cl, t);
            r_q3_float_sprites(&v, cl, t);
            r_q3_plums(&v, cl, t);
        } else {
            r_surf_sky(&v, a);
            r_q2_explosions(&v, a, cl, t); /* (over the sky: translucent at their end) */
            r_surf_trans(&v); /* Quake II's translucent faces, over the sky */
        }
        /* the gun last (Quake III: its blended surfaces), over everything */
        if (o->gun) {
            v.layers = gun_first ? R_LAYERS_BLENDED : R_LAYERS_ALL;
            draw_gun(&v, a, cl, t);
            v.layers = R_LAYERS_ALL;
        } else if (a->q3 && cl && !q3_third_person(cl, t) && !o->show_view_entity &&
                   !cl->intermission && !(cl_stats_of(cl, -1) &&
                                          (cl_stats_of(cl, -1)->flags & CL_ST_SPECTATOR))) {
            r_md3_no_gun_lightning(&v, a, t);
        }
    } else {
        v.pass = R_PASS_FLAT;
        draw_scene(&v, a, cl, t, o);
        if (o->gun)
            draw_gun(&v, a, cl, t);
    }
    if (o->mode != R_MODE_WIRE)
        quake_tint(&v, a, cl, t);
    free(v.trans); /* r_surf_trans frees it; a pass that never came to it too */
    bd->count = v.count;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *band_thread(void *arg)
{
    band *bd = arg;
    double t0 = bd->from > 0 ? bd->from : now_s();
    render_band(bd);
    bd->took = now_s() - t0;
    return NULL;
}

/* The band workers, kept between frames: a frame's bands go to threads already running
 * (made on the first frame that wants them), not to threads made and joined each frame
 * (10-30 us each here, and a cold stack). A worker that finished waits for the next frame
 * spinning a while, then asleep on a condition variable: waking a sleeping thread takes
 * 0.3-0.5 ms on this VM (measured: a worker spinning 5 ms instead of 50 us took the
 * sample's two-thread frames from 2.20 to 1.68 ms). How long it spins follows how frames
 * come: right after one another (an export with bands, the player catching up, a
 * benchmark: the gaps between two frames' bands measured 0.05-0.3 ms along the sample) it
 * spins up to POOL_SPIN_MAX_US and stays awake (the next frame ends the spin: only a
 * burst's last frame spins it out); at a display's pace (gaps of many milliseconds) only
 * POOL_SPIN_US, a few per cent of nothing. One caller at a time (pool.busy): another
 * r_render at the same moment makes its own threads as before. */
#define POOL_SPIN_US 50u
#define POOL_SPIN_MAX_US 2000u
#define POOL_SPIN_MAX_S (POOL_SPIN_MAX_US * 1e-6)
#define POOL_WAIT_S 1e-3
static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake, done_cv;
    int made;                  /* workers running */
    int busy;                  /* a caller holds the pool */
    band *job[R_MAX_THREADS];  /* worker i's band, for the frame job_gen[i] names */
    _Atomic unsigned job_gen[R_MAX_THREADS];
    _Atomic unsigned gen;      /* frames posted */
    _Atomic unsigned left;     /* bands of this frame not finished */
    _Atomic unsigned spin_us;  /* how long a worker spins after this frame's band */
    double last_end;           /* when the last frame's bands were all done (0 none) */
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .done_cv = PTHREAD_COND_INITIALIZER};

/* Spins until *v differs from `from` or `limit` seconds have passed; returns its last
 * value. */
static unsigned spin_while(_Atomic unsigned *v, unsigned from, double limit)
{
    double t0 = now_s();
    unsigned x;
    for (int k = 1; (x = atomic_load_explicit(v, memory_order_acquire)) == from; k++) {
#if defined(__SSE2__)
        _mm_pause();
#endif
        if (!(k & 63) && now_s() - t0 > limit)
            break;
    }
    return x;
}

static void *pool_worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    unsigned seen = 0;
    for (;;) {
        double spin = atomic_load_explicit(&pool.spin_us, memory_order_relaxed) * 1e-6;
        unsigned g = spin_while(&pool.gen, seen, spin);
        if (g == seen) {
            pthread_mutex_lock(&pool.mu);
            while ((g = atomic_load_explicit(&pool.gen, memory_order_acquire)) == seen)
                pthread_cond_wait(&pool.wake, &pool.mu);
            pthread_mutex_unlock(&pool.mu);
        }
        seen = g;
        /* a band of this frame, or none (a frame may want fewer workers than run) */
        if (atomic_load_explicit(&pool.job_gen[me], memory_order_acquire) != g)
            continue;
        band *b = pool.job[me];
        band_thread(b);
        if (atomic_fetch_sub_explicit(&pool.left, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&pool.mu);
            pthread_cond_signal(&pool.done_cv);
            pthread_mutex_unlock(&pool.mu);
        }
    }
    return NULL;
}

/* Bands 1..n-1 to the pool's workers; 0 when the pool is taken or its threads cannot be
 * made (the caller then makes its own). */
static int pool_post(band *bands, int n)
{
    pthread_mutex_lock(&pool.mu);
    if (pool.busy) {
        pthread_mutex_unlock(&pool.mu);
        return 0;
    }
    while (pool.made < n - 1) {
        pthread_t t;
        if (pthread_create(&t, NULL, pool_worker, (void *)(intptr_t)(pool.made + 1)) != 0)
            break;
        pthread_detach(t);
        pool.made++;
    }
    if (pool.made < n - 1) {
        pthread_mutex_unlock(&pool.mu);
        return 0;
    }
    pool.busy = 1;
    unsigned g = atomic_load_explicit(&pool.gen, memory_order_relaxed) + 1;
    for (int i = 1; i < n; i++) {
        pool.job[i] = &bands[i];
        atomic_store_explicit(&pool.job_gen[i], g, memory_order_release);
    }
    atomic_store_explicit(&pool.left, (unsigned)(n - 1), memory_order_relaxed);
    double gap = pool.last_end > 0 ? now_s() - pool.last_end : 1;
    unsigned spin = gap < POOL_SPIN_MAX_S ? POOL_SPIN_MAX_US : POOL_SPIN_US;
    atomic_store_explicit(&pool.spin_us, spin, memory_order_relaxed);
    atomic_store_explicit(&pool.gen, g, memory_order_release);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
    return 1;
}

/* Waits for the posted bands, and gives the pool back: spinning up to POOL_WAIT_S (the
 * bands were split to end together, and this thread has nothing else to do), then asleep. */
static void pool_wait(void)
{
    double t0 = now_s(), rest;
    unsigned left;
    while ((left = atomic_load_explicit(&pool.left, memory_order_acquire)) > 0 &&
           (rest = POOL_WAIT_S - (now_s() - t0)) > 0)
        spin_while(&pool.left, left, rest);
    pthread_mutex_lock(&pool.mu);
    while (atomic_load_explicit(&pool.left, memory_order_acquire) > 0)
        pthread_cond_wait(&pool.done_cv, &pool.mu);
    pool.last_end = now_s();
    pool.busy = 0;
    pthread_mutex_unlock(&pool.mu);
}

/* p (at right angles to unit k) turned about k by deg degrees (q_math.c
 * RotatePointAroundVector, by Rodrigues' formula). */
static void turn_about(const float k[3], float p[3], float deg)
{
    float a = deg * (float)(M_PI / 180), c = cosf(a), s = sinf(a), kxp[3];
    cross3(k, p, kxp);
    for (int j = 0; j < 3; j++)
        p[j] = p[j] * c + kxp[j] * s;
}

/* tr_main.c R_GetPortalOrientations and R_MirrorViewBySurface for a portal (not a mirror):
 * the surface's axes its normal N, a perpendicular of it and their cross, at the portal
 * entity's origin ent put onto the plane (N, dist); the camera's from cg_ents.c CG_Portal
 * (p->dir, minus a perpendicular of it, their cross; the first two negated), turned about
 * its first axis by the roll, or turning at p->speed degrees a second, or swinging 4
 * degrees about the roll at ms (the server's clock in milliseconds), when p->swing; the
 * eye's place and axes carried from the surface's axes to the camera's. 0 when a
 * direction is not one or the result is not finite. */
int r_portal_camera(const float N[3], float dist, const cl_portal *po, const float ent[3],
                    double ms, const r_camera *eye_cam, int mirror, r_camera *out)
{
    float fwd[3], right[3], up0[3];
    r_angle_vectors(eye_cam->angles, fwd, right, up0);
    float d = dot3(ent, N) - dist;
    float sax[3][3], cax[3][3], so[3], corg[3];
    memcpy(sax[0], N, sizeof sax[0]);
    if (!qd_perpendicular(sax[0], sax[1]))
        return 0;
    cross3(sax[0], sax[1], sax[2]);
    if (mirror) {
        /* the surface's origin N dist, the camera there with its first axis reversed */
        for (int j = 0; j < 3; j++) {
            so[j] = corg[j] = N[j] * dist;
            cax[0][j] = -sax[0][j];
            cax[1][j] = sax[1][j];
            cax[2][j] = sax[2][j];
        }
    } else {
        memcpy(cax[0], po->dir, sizeof cax[0]);
        if (!qd_perpendicular(cax[0], cax[1]))
            return 0;
        for (int j = 0; j < 3; j++) {
            so[j] = ent[j] - d * N[j];
            corg[j] = po->camera[j];
            cax[0][j] = -po->dir[j];
        }
        cross3(po->dir, (float[3]){-cax[1][0], -cax[1][1], -cax[1][2]}, cax[2]);
    }
    if (!mirror && po->swing) { /* (a mirror does not turn) */
        float deg = po->speed ? (float)(ms / 1000.0 * po->speed)
                              : po->roll + (float)sin(ms * 0.003) * 4;
        turn_about(cax[0], cax[1], deg);
        cross3(cax[0], cax[1], cax[2]);
    } else if (!mirror && po->roll != 0) {
        turn_about(cax[0], cax[1], po->roll);
        cross3(cax[0], cax[1], cax[2]);
    }
    /* R_MirrorPoint, R_MirrorVector: in the surface's axes, out in the camera's */
    float eye[3] = {eye_cam->origin[0] - so[0], eye_cam->origin[1] - so[1],
                    eye_cam->origin[2] - so[2]};
    float o[3] = {0, 0, 0}, fw[3] = {0, 0, 0}, up[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        float de = dot3(eye, sax[i]), df = dot3(fwd, sax[i]), du = dot3(up0, sax[i]);
        for (int j = 0; j < 3; j++) {
            o[j] += de * cax[i][j];
            fw[j] += df * cax[i][j];
            up[j] += du * cax[i][j];
        }
    }
    memset(out, 0, sizeof *out);
    for (int j = 0; j < 3; j++)
        out->origin[j] = o[j] + corg[j];
    /* Quake's angles of those axes (r_angle_vectors inverted): yaw and pitch of forward,
     * the roll between up and the unrolled up and right */
    float pitch = -asinf(fw[2] > 1 ? 1 : fw[2] < -1 ? -1 : fw[2]);
    float yaw = atan2f(fw[1], fw[0]);
    float sp = sinf(pitch), cp = cosf(pitch), sy = sinf(yaw), cy = cosf(yaw);
    float r0[3] = {sy, -cy, 0}, u0[3] = {sp * cy, sp * sy, cp};
    float roll = atan2f(dot3(up, r0), dot3(up, u0));
    out->angles[0] = pitch * (float)(180 / M_PI);
    out->angles[1] = yaw * (float)(180 / M_PI);
    out->angles[2] = roll * (float)(180 / M_PI);
    out->fov = eye_cam->fov;
    return isfinite(out->origin[0] + out->origin[1] + out->origin[2] + out->angles[0] +
                    out->angles[1] + out->angles[2]);
}

/* A Quake III frame's portal view (tr_main.c R_SortDrawSurfs, R_MirrorViewBySurface,
 * SurfIsOffscreen, R_GetPortalOrientations, with cg_ents.c CG_Portal's render entity): the
 * first triangle of a portal shader in the walk that faces the eye, is not wholly outside
 * the frustum and comes within its shader's range (alphaGen portal) of the eye, with a
 * portal of the frame (cl_portal) within 64 units of its plane. The camera: the eye's place
 * and axes carried from the surface (its normal, a perpendicular of it, their cross) to
 * the portal camera's (the byte direction negated, a perpendicular of it, their cross;
 * turned by its roll, or turning at its speed or swinging on the server's clock); the PVS
 * is the camera's. Its rows: those every portal triangle of the walk reaches on screen (each
 * shows this one view, as the game draws it into the whole screen); all of them when one
 * comes near the eye's plane. A mirror (a portal whose camera is its own origin; no range)
 * sets *mirror and its plane (N, dist) in plane. 0 when there is none. */
static int portal_view(const r_assets *a, const cl_state *cl, double t, const r_camera *cam,
                       const r_walk *walk, rast_fb *fb, r_camera *out, float pvs[3], int *y0,
                       int *y1, int *mirror, float plane[4])
{
    const mdl_bsp *b = a->world.bsp;
    r_view v;
    r_view_setup(&v, cam, fb);
    int found = 0;
    float lo = 1e30f, hi = -1e30f;
    for (uint32_t k = 0; k < walk->n; k++) {
        uint32_t fi = walk->faces[k];
        float range;
        if (fi >= b->num_faces || !r_q3_face_portal(a, fi, &range))
            continue;
        const mdl_face *f = &b->faces[fi];
        const float(*p)[3] = (const float(*)[3])b->verts[f->first_vert];
        int off = 0;
        for (int i = 0; i < 5 && !off; i++)
            off = dot3(v.frustum[i], p[0]) < v.frustum[i][3] &&
                  dot3(v.frustum[i], p[1]) < v.frustum[i][3] &&
                  dot3(v.frustum[i], p[2]) < v.frustum[i][3];
        if (off)
            continue;
        float nearest = 1e30f;
        for (int j = 0; j < 3; j++) {
            float d[3] = {p[j][0] - v.org[0], p[j][1] - v.org[1], p[j][2] - v.org[2]};
            float z = dot3(d, v.fwd);
            if (!(z > 1)) { /* near the eye's plane: every row */
                lo = 0;
                hi = (float)fb->h;
            } else {
                float y = v.cy - dot3(d, v.up) / z * v.scale;
                lo = y < lo ? y : lo;
                hi = y > hi ? y : hi;
            }
            float dd = dot3(d, d);
            nearest = dd < nearest ? dd : nearest;
        }
        const float *N = f->normal;
        if (found || dot3(N, v.org) - f->dist <= 0)
            continue;
        for (int i = 0; i < CL_MAX_PORTALS && !found; i++) {
            const cl_portal *po = &cl->portals[i];
            cl_entstate s;
            if (po->entity <= 0 || !cl_entity_at(cl, po->entity, t, &s, NULL, NULL))
                continue;
            float d = dot3(s.origin, N) - f->dist;
            if (!(d >= -64 && d <= 64))
                continue;
            /* a mirror: a portal whose camera is its own origin; only a portal's view ends
             * at its shader's range (SurfIsOffscreen: IsMirror first) */
            int mir = !memcmp(po->camera, s.origin, sizeof po->camera);
            if ((!mir && !(nearest <= range * range)) ||
                !r_portal_camera(N, f->dist, po, s.origin, cl_game_time(cl, t) * 1000, cam, mir,
                                 out))
                break;
            memcpy(pvs, po->camera, 3 * sizeof *pvs);
            *mirror = mir;
            memcpy(plane, N, 3 * sizeof *plane);
            plane[3] = f->dist;
            found = 1;
        }
    }
    if (!found)
        return 0;
    if (!(lo >= -1e6f && hi <= 1e6f)) { /* (not finite: a hostile map's corners) every row */
        lo = 0;
        hi = (float)fb->h;
    }
    *y0 = lo < 0 ? 0 : lo > (float)fb->h ? fb->h : (int)lo;
    *y1 = hi + 2 > (float)fb->h ? fb->h : hi < 0 ? 0 : (int)hi + 2;
    return *y1 > *y0;
}

/* What r_render draws, of rows y0..y1-1, the walk from pvs (or the eye), with portal_fb
 * (the frame's portal view, or NULL) under the portal surfaces; in_portal: this is a portal
 * view (none drawn within it), clip its mirror's plane (N, dist: what lies behind it is cut
 * away) or NULL. */
static int render_view(const r_assets *a, const cl_state *cl, double t, const r_camera *cam,
                       const r_options *o, rast_fb *fb, int ry0, int ry1, const float *pvs,
                       int in_portal, const float *clip)
{
    int have_map = a && a->world.bsp;
    int n = o->threads > 1 ? o->threads : 1;
    n = n > R_MAX_THREADS ? R_MAX_THREADS : n;
    n = n > ry1 - ry0 ? ry1 - ry0 : n;
    if (n < 1)
        return 0;
    /* Each band walks the whole scene with its own cache (the caches only save work: the
     * bytes are the same with any of them), so the bands share nothing they write. */
    r_cache *own = NULL;
    r_cache *caches[R_MAX_THREADS] = {0};
    if (o->mode == R_MODE_TEXTURED && have_map) {
        r_cache *c = o->cache ? o->cache : (own = r_cache_new(0));
        for (int i = 0; c && i < n; i++) {
            r_cache_bind(c, a);
            caches[i] = c;
            c = i + 1 < n ? r_cache_next(c) : NULL;
        }
        for (int i = 0; i < n; i++)
            if (!caches[i])
                n = i > 0 ? i : 1; /* out of memory: fewer bands */
    }
    /* the world's walk once for the frame: every band and pass draws from the same list
     * (they would each walk the same tree to the same faces in the same order) */
    r_walk walk = {NULL, NULL, 0, NULL, 0};
    int walked = 0;
    if (have_map) {
        r_view wv;
        r_view_setup(&wv, cam, fb);
        wv.pvs_org = pvs;
        walked = r_walk_make(&wv, a, &walk);
    }
    /* Quake III: the portal view first, its rows into a frame of its own (kept in the
     * cache), drawn with a cache of its own */
    const rast_fb *portal_fb = NULL;
    r_camera pcam;
    float ppvs[3], plane[4];
    int py0, py1, mirror = 0;
    if (!in_portal && walked && o->mode == R_MODE_TEXTURED && a->q3 && cl && cl->num_portals &&
        caches[0] &&
        portal_view(a, cl, t, cam, &walk, fb, &pcam, ppvs, &py0, &py1, &mirror, plane)) {
        rast_fb *pf = r_cache_portal_fb(caches[0], fb->w, fb->h);
        r_options po = *o;
        po.gun = 0;
        po.show_view_entity = 1; /* (RF_THIRD_PERSON bodies show in portals) */
        po.hide_entity = 0;
        po.cache = r_cache_portal(caches[0]);
        if (pf && po.cache) {
            render_view(a, cl, t, &pcam, &po, pf, py0, py1, ppvs, 1, mirror ? plane : NULL);
            /* a mirror's view was drawn by a right-handed camera: flipped left to right it
             * is the mirror's (the projection is symmetric: pixel x is w - 1 - x's) */
            for (int y = py0; mirror && y < py1; y++) {
                uint32_t *row = pf->color + (size_t)y * (size_t)pf->w;
                for (int x = 0, z = pf->w - 1; x < z; x++, z--) {
                    uint32_t c = row[x];
                    row[x] = row[z];
                    row[z] = c;
                }
            }
            portal_fb = pf;
        }
    }
    /* Quake III's wall marks cut once for the frame, kept between frames in the cache */
    const r_marks *marks = o->mode == R_MODE_TEXTURED && have_map && a->q3 && caches[0]
                               ? r_q3_marks_make(caches[0], a, cl, t)
                               : NULL;
    band bands[R_MAX_THREADS];
    pthread_t tid[R_MAX_THREADS];
    int started[R_MAX_THREADS] = {0};
    /* the rows split by the work each band had in the frames before (textured, where the
     * cache lives on), else evenly */
    int y[R_MAX_THREADS + 1];
    r_cache_bands(n > 1 ? caches[0] : NULL, n, ry1 - ry0, y);
    for (int i = 0; i <= n; i++)
        y[i] += ry0;
    const double handed = n > 1 ? now_s() : 0; /* when bands 1..n-1 are handed over */
    for (int i = 0; i < n; i++)
        bands[i] = (band){a, cl, t, cam, o, fb, y[i], y[i + 1], caches[i],
                          walked ? &walk : NULL, marks, pvs, portal_fb, clip, 0, 0,
                          i > 0 ? handed : 0};
    int pooled = n > 1 && pool_post(bands, n);
    for (int i = 1; i < n && !pooled; i++)
        started[i] = pthread_create(&tid[i], NULL, band_thread, &bands[i]) == 0;
    band_thread(&bands[0]);
    if (pooled)
        pool_wait();
    int all_threads = 1;
    for (int i = 1; i < n && !pooled; i++) {
        if (started[i]) {
            pthread_join(tid[i], NULL);
        } else {
            band_thread(&bands[i]); /* no thread to be had: this one draws it */
            all_threads = 0;
        }
    }
    if (n > 1 && caches[0] && all_threads) {
        double took[R_MAX_THREADS];
        int yr[R_MAX_THREADS + 1];
        for (int i = 0; i < n; i++)
            took[i] = bands[i].took;
        for (int i = 0; i <= n; i++)
            yr[i] = y[i] - ry0;
        r_cache_bands_took(caches[0], n, ry1 - ry0, yr, took);
    }
    r_cache_free(own);
    r_walk_free(&walk);
    if (!have_map && !in_portal) {
        /* centred on the grid's lower half: the corners and the top belong to the HUD
         * (the message feed, the clock, the status bar) */
        const char *msg = a && a->notice[0] ? a->notice : "NO MAP";
        int s = fb->h >= 480 ? 2 : 1;
        int x = (fb->w - draw_text_width(msg, s)) / 2, y = fb->h * 5 / 8;
        x = x < 4 * s ? 4 * s : x;
        draw_text(fb, x + s, y + s, msg, rast_rgb(0, 0, 0), s);
        draw_text(fb, x, y, msg, rast_rgb(255, 220, 120), s);
    }
    return bands[0].count; /* every band sends the same primitives */
}

int r_render(const r_assets *a, const cl_state *cl, double t, const r_camera *cam,
             const r_options *opt, rast_fb *fb)
{
    static const r_options defaults = {0};
    const r_options *o = opt ? opt : &defaults;
    if (!fb || !cam)
        return 0;
    if (cam->pivoted) {
        r_camera pulled = *cam;
        camera_pull_in(a, &pulled);
        return render_view(a, cl, t, &pulled, o, fb, 0, fb->h, NULL, 0, NULL);
    }
    return render_view(a, cl, t, cam, o, fb, 0, fb->h, NULL, 0, NULL);
}
