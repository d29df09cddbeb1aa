/* r_part.c: Quake's and QuakeWorld's particles, made from the effects log.
 *
 * Facts, not code, from id's WinQuake r_part.c (R_RunParticleEffect, R_ParticleExplosion,
 * R_BlobExplosion, R_LavaSplash, R_TeleportSplash, R_DrawParticles) and cl_tent.c (which
 * effect each temporary entity makes): each effect throws its particles once, and each then
 * moves by its type's rule every frame (a velocity that grows, decays or falls at
 * sv_gravity x 0.05). Those rules are solved here in closed form, so a particle's place and
 * colour at any time follow from its effect's start alone: a seek shows what playing shows,
 * and the engines' rand() is a hash of the effect (the same picture every time). A rocket's
 * smoke trail (R_RocketTrail for a model flagged EF_ROCKET) is laid along its straight
 * flight since it appeared, a grenade's (EF_GRENADE) along its falling path; the other
 * trails (gibs', tracers') are not made. */
#include <math.h>
#include <string.h>

#include "r_local.h"

enum { PT_SLOWGRAV, PT_EXPLODE, PT_EXPLODE2, PT_BLOB, PT_BLOB2 };

#define GRAVITY 40.0f /* sv_gravity 800 x 0.05, units a second squared */

typedef struct part_gen {
    uint32_t h;
} part_gen;

static uint32_t next(part_gen *g)
{
    g->h = g->h * 1664525u + 1013904223u;
    return g->h >> 8;
}

/* One particle: where and what colour at age a seconds, 0 when it has died. */
typedef struct particle {
    float org[3], vel[3];
    float die;   /* age at which it goes */
    float ramp;  /* explode ramps' start */
    uint8_t type, color;
} particle;

static const uint8_t ramp1[8] = {0x6f, 0x6d, 0x6b, 0x69, 0x67, 0x65, 0x63, 0x61};
static const uint8_t ramp2[8] = {0x6f, 0x6e, 0x6d, 0x6c, 0x6b, 0x6a, 0x68, 0x66};

static int particle_at(const particle *p, float a, float out[3], uint8_t *color)
{
    if (a < 0 || a >= p->die)
        return 0;
    *color = p->color;
    switch (p->type) {
    case PT_EXPLODE: { /* vel += vel x 4 dt, vel.z -= g dt; ramp += 10 dt (ramp1) */
        float ramp = p->ramp + 10 * a;
        if (ramp >= 8)
            return 0;
        *color = ramp1[(int)ramp];
        float e = (expf(4 * a) - 1) / 4;
        for (int i = 0; i < 2; i++)
            out[i] = p->org[i] + p->vel[i] * e;
        out[2] = p->org[2] + (p->vel[2] - GRAVITY / 4) * e + GRAVITY / 4 * a;
        return 1;
    }
    case PT_EXPLODE2: { /* vel -= vel dt, vel.z -= g dt; ramp += 15 dt (ramp2) */
        float ramp = p->ramp + 15 * a;
        if (ramp >= 8)
            return 0;
        *color = ramp2[(int)ramp];
        float e = 1 - expf(-a);
        for (int i = 0; i < 2; i++)
            out[i] = p->org[i] + p->vel[i] * e;
        out[2] = p->org[2] + (p->vel[2] + GRAVITY) * e - GRAVITY * a;
        return 1;
    }
    case PT_BLOB: { /* vel += vel x 4 dt, vel.z -= g dt */
        float e = (expf(4 * a) - 1) / 4;
        for (int i = 0; i < 2; i++)
            out[i] = p->org[i] + p->vel[i] * e;
        out[2] = p->org[2] + (p->vel[2] - GRAVITY / 4) * e + GRAVITY / 4 * a;
        return 1;
    }
    case PT_BLOB2: { /* vel.xy -= vel.xy x 4 dt, vel.z -= g dt */
        float e = (1 - expf(-4 * a)) / 4;
        for (int i = 0; i < 2; i++)
            out[i] = p->org[i] + p->vel[i] * e;
        out[2] = p->org[2] + p->vel[2] * a - GRAVITY / 2 * a * a;
        return 1;
    }
    default: /* pt_slowgrav: vel.z -= g dt */
        for (int i = 0; i < 2; i++)
            out[i] = p->org[i] + p->vel[i] * a;
        out[2] = p->org[2] + p->vel[2] * a - GRAVITY / 2 * a * a;
        return 1;
    }
}

/* R_RunParticleEffect: count particles of colour (its row's 8 shades) near org moving along
 * dir x 15, for 0 .. 0.4 s; a count of 1024 is R_ParticleExplosion's rocket explosion (half
 * pt_explode, half pt_explode2, 16 units around, -256..255 a second, for their ramps). */
static int run_effect(part_gen *g, const float org[3], const float dir[3], int color, int count,
                      particle *out, int cap)
{
    int n = 0;
    for (int i = 0; i < count && n < cap; i++, n++) {
        particle *p = &out[n];
        memset(p, 0, sizeof *p);
        if (count == 1024) {
            p->die = 5;
            p->color = ramp1[0];
            p->ramp = (float)(next(g) & 3);
            p->type = i & 1 ? PT_EXPLODE : PT_EXPLODE2;
            for (int j = 0; j < 3; j++) {
                p->org[j] = org[j] + (float)((int)(next(g) % 32) - 16);
                p->vel[j] = (float)((int)(next(g) % 512) - 256);
            }
        } else {
            p->die = 0.1f * (float)(next(g) % 5);
            p->color = (uint8_t)((color & ~7) + (next(g) & 7));
            p->type = PT_SLOWGRAV;
            for (int j = 0; j < 3; j++) {
                p->org[j] = org[j] + (float)((int)(next(g) & 15) - 8);
                p->vel[j] = dir[j] * 15;
            }
        }
    }
    return n;
}

/* R_BlobExplosion (a tarbaby's): 1024, half pt_blob in 66 .. 71, half pt_blob2 in 150 .. 155,
 * for 1 .. 1.4 s. */
static int blob(part_gen *g, const float org[3], particle *out, int cap)
{
    int n = 0;
    for (int i = 0; i < 1024 && n < cap; i++, n++) {
        particle *p = &out[n];
        memset(p, 0, sizeof *p);
        p->die = 1 + (float)(next(g) & 8) * 0.05f;
        p->type = i & 1 ? PT_BLOB : PT_BLOB2;
        p->color = (uint8_t)((i & 1 ? 66 : 150) + next(g) % 6);
        for (int j = 0; j < 3; j++) {
            p->org[j] = org[j] + (float)((int)(next(g) % 32) - 16);
            p->vel[j] = (float)((int)(next(g) % 512) - 256);
        }
    }
    return n;
}

/* R_ParticleExplosion2 (the mission packs' TE_EXPLOSION2, WinQuake 1.09 r_part.c): 512
 * pt_blob in turn through the colours start .. start + length - 1 (length 0 taken as 1),
 * for 0.3 s, within 16 units, at up to 256 a second. */
static int blob2(part_gen *g, const float org[3], int start, int length, particle *out,
                 int cap)
{
    int n = 0;
    length = length > 0 ? length : 1;
    for (int i = 0; i < 512 && n < cap; i++, n++) {
        particle *p = &out[n];
        memset(p, 0, sizeof *p);
        p->die = 0.3f;
        p->type = PT_BLOB;
        p->color = (uint8_t)(start + i % length);
        for (int j = 0; j < 3; j++) {
            p->org[j] = org[j] + (float)((int)(next(g) % 32) - 16);
            p->vel[j] = (float)((int)(next(g) % 512) - 256);
        }
    }
    return n;
}

/* R_LavaSplash (lava, 224 .. 231, for 2 .. 2.62 s; 32 x 32 over 256 units) and
 * R_TeleportSplash (7 .. 14, for 0.2 .. 0.34 s; 8 x 8 x 14 in a 32 x 32 x 56 box): thrown out
 * from org at 50 .. 113 a second. */
static int splash(part_gen *g, const float org[3], int teleport, particle *out, int cap)
{
    int n = 0, step = teleport ? 4 : 1, klo = teleport ? -24 : 0, khi = teleport ? 32 : 1;
    for (int i = -16; i < 16; i += step)
        for (int j = -16; j < 16; j += step)
            for (int k = klo; k < khi && n < cap; k += step) {
                particle *p = &out[n++];
                memset(p, 0, sizeof *p);
                p->type = PT_SLOWGRAV;
                float d[3];
                if (teleport) {
                    p->die = 0.2f + (float)(next(g) & 7) * 0.02f;
                    p->color = (uint8_t)(7 + (next(g) & 7));
                    d[0] = (float)j * 8, d[1] = (float)i * 8, d[2] = (float)k * 8;
                    p->org[0] = org[0] + (float)i + (float)(next(g) & 3);
                    p->org[1] = org[1] + (float)j + (float)(next(g) & 3);
                    p->org[2] = org[2] + (float)k + (float)(next(g) & 3);
                } else {
                    p->die = 2 + (float)(next(g) & 31) * 0.02f;
                    p->color = (uint8_t)(224 + (next(g) & 7));
                    d[0] = (float)j * 8 + (float)(next(g) & 7);
                    d[1] = (float)i * 8 + (float)(next(g) & 7);
                    d[2] = 256;
                    p->org[0] = org[0] + d[0];
                    p->org[1] = org[1] + d[1];
                    p->org[2] = org[2] + (float)(next(g) & 63);
                }
                float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                float speed = 50 + (float)(next(g) & 63);
                for (int m = 0; m < 3; m++)
                    p->vel[m] = len > 0 ? d[m] / len * speed : 0;
            }
    return n;
}

/* The engines' rand() for effect e: a hash of its start, place and kind. */
static uint32_t fx_seed(const cl_fxev *e)
{
    uint32_t bits[3];
    memcpy(bits, e->origin, sizeof bits);
    return (uint32_t)(int64_t)(e->t0 * 1000.0) * 2654435761u ^ bits[0] * 40503u ^
           bits[1] * 69069u ^ bits[2] ^ e->kind * 7919u;
}

/* QuakeWorld's gunshot and blood: 20 particles a count (cl_tent.c), one when unsent, at
 * most 50 (1,000 of the 1,024 a generator holds). */
static int qw_count(const cl_fxev *e)
{
    return 20 * (e->count ? (e->count < 50 ? e->count : 50) : 1);
}

int r_particles_of(const cl_fxev *e, float age, r_particle *out, int cap)
{
    particle ps[1024]; /* (on the stack: bands draw at once) */
    part_gen g;
    g.h = fx_seed(e);
    const float zero[3] = {0, 0, 0};
    int n = 0;
    switch (e->kind) {
    case CL_FXK_IMPACT: { /* cl_tent.c: spike 10, superspike and gunshot 20, wizard 30 of
                           * 20, knight 20 of 226 */
        int color = e->style == 7 ? 20 : e->style == 8 ? 226 : 0;
        int count = e->style == 0 ? 10 : e->style == 7 ? 30 : 20;
        if (e->style == 2 && e->count) /* QuakeWorld's gunshot */
            count = qw_count(e);
        n = run_effect(&g, e->origin, zero, color, count, ps, 1024);
        break;
    }
    case CL_FXK_EXPLOSION: /* TE_EXPLOSION: R_ParticleExplosion; TE_EXPLOSION2 (style 12,
                            * Quake's only: QuakeWorld's 12 is blood) its colours' */
        if (e->style == 12)
            n = blob2(&g, e->origin, (int)e->end[0] & 255, (int)e->end[1] & 255, ps, 1024);
        else
            n = e->radius > 0 ? run_effect(&g, e->origin, zero, 0, 1024, ps, 1024)
                              : blob(&g, e->origin, ps, 1024);
        break;
    case CL_FXK_TELEPORT:
        n = splash(&g, e->origin, 1, ps, 1024);
        break;
    case CL_FXK_SPLASH:
        n = splash(&g, e->origin, 0, ps, 1024);
        break;
    case CL_FXK_BLOOD: /* QuakeWorld's TE_BLOOD (73, 20) and TE_LIGHTNINGBLOOD (225, 50) */
        n = run_effect(&g, e->origin, zero, e->style == 13 ? 225 : 73,
                       e->style == 13 ? 50 : qw_count(e), ps, 1024);
        break;
    case CL_FXK_PARTICLES: /* svc_particle: its colour, count and direction */
        n = run_effect(&g, e->origin, e->end, e->style, e->entity, ps, 1024);
        break;
    default:
        return 0;
    }
    int m = 0;
    for (int i = 0; i < n && m < cap; i++) {
        uint8_t color;
        if (particle_at(&ps[i], age, out[m].org, &color)) {
            out[m].color = color;
            m++;
        }
    }
    return m;
}

static const uint8_t ramp3[6] = {0x6d, 0x6b, 6, 5, 4, 3};

/* Entity num's straight flight at t: its state *s, velocity vel (units a second) from its
 * last two updates, speed, and the time it appeared (*start); 0 when it is not there or not
 * flying (1 to 4000 units a second). */
static int flight_of(const cl_state *cl, int num, double t, cl_entstate *s, float vel[3],
                     float *speed, double *start)
{
    cl_entity e;
    double since[2];
    if (!cl_entity_at(cl, num, t, s, NULL, NULL) || !cl_entity_anim_since(cl, num, since))
        return 0;
    cl_entity_settled(cl, num, &e);
    double dt = e.cur_time - e.prev_time;
    if (!(dt > 0))
        return 0;
    float sp = 0;
    for (int i = 0; i < 3; i++) {
        vel[i] = (float)((e.cur.origin[i] - e.prev.origin[i]) / dt);
        sp += vel[i] * vel[i];
    }
    *speed = sqrtf(sp);
    *start = since[0];
    return *speed >= 1 && *speed <= 4000;
}

int r_trail_type(uint32_t flags)
{
    /* cl_main.c CL_RelinkEntities, in its order: EF_GIB, EF_ZOMGIB, EF_TRACER, EF_TRACER2,
     * EF_ROCKET, EF_GRENADE, EF_TRACER3 */
    static const struct {
        uint32_t flag;
        int type;
    } order[] = {{4, 2}, {32, 4}, {16, 3}, {64, 5}, {1, 0}, {2, 1}, {128, 6}};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (flags & order[i].flag)
            return order[i].type;
    return -1;
}

int r_trail_particles(const cl_state *cl, const mdl_bsp *b, int num, int type, double t,
                      r_particle *out, int cap)
{
    cl_entstate s;
    float vel[3], speed;
    double start;
    if (type < 0 || type > 6 || !flight_of(cl, num, t, &s, vel, &speed, &start))
        return 0;
    /* R_RocketTrail (WinQuake r_part.c; facts only): a particle every 3 units of the path
     * (each laid when the entity passed there, at its start plus 3 k / speed; type 4 every
     * 6), by type:
     * 0 (a rocket's): ramp3 from rand() & 3 at 5 a second until 6 (pt_fire, rising at
     *   sv_gravity x 0.05), within 3 units of the path;
     * 1 (a grenade's smoke): the same from (rand() & 3) + 2;
     * 2 (a gib's blood) and 4 (a zombie's gib's, slight): colour 67 + (rand() & 3) for 2 s,
     *   falling (pt_grav), within 3 units;
     * 3 and 5 (a wizard's and a death knight's spikes): colour 52 or 230, 8 more for four
     *   steps in eight (tracercount & 4, here the step's number), for 0.5 s on the path,
     *   drifting 30 a second to its left and right by turns (tracercount & 1);
     * 6 (a vore's ball): colour 9 x 16 + 8 + (rand() & 3) for 0.3 s, within 8 units.
     * A tossed thing's path (1, 2, 4) falls at sv_gravity 800 (its place age seconds back:
     * origin - vel age - 400 age^2 up); it bounces, and the path before a bounce is not
     * known, so a particle whose place is in the map's solid (the bent path carried on
     * through the floor or wall) is left out: missing before a bounce, never drawn wrong. */
    const int falls = type == 1 || type == 2 || type == 4, fire = type <= 1;
    const double step = type == 4 ? 6 : 3;
    const double life = type == 2 || type == 4 ? 2.0 : type == 3 || type == 5 ? 0.5
                        : type == 6                ? 0.3
                                                   : 1.2; /* (ramp3's end: none lives longer) */
    uint32_t seed = (uint32_t)num * 2654435761u ^ (uint32_t)(int64_t)(start * 1000.0);
    double first = t - life > start ? t - life : start;
    int64_t k0 = (int64_t)ceil((first - start) * speed / step),
            k1 = (int64_t)floor((t - start) * speed / step);
    int n = 0;
    for (int64_t k = k1; k >= k0 && k1 - k < 1024 && n < cap; k--) {
        double at = start + (double)k * step / speed, age = t - at;
        if (age < 0 || age >= life)
            continue;
        part_gen g = {seed ^ (uint32_t)k * 40503u};
        uint32_t r = next(&g);
        float ramp = (float)(r & 3) + (type == 1 ? 2 : 0) + 5 * (float)age;
        if (fire && ramp >= 6)
            continue;
        float at_[3];
        for (int j = 0; j < 3; j++)
            at_[j] = s.origin[j] - vel[j] * (float)age;
        if (falls) {
            at_[2] -= 400 * (float)(age * age);
            if (b && b->num_models > 0) {
                uint32_t li = mdl_bsp_point_leaf(b, b->models[0].headnode, at_);
                if (li < b->num_leaves && b->leaves[li].contents == MDL_CONTENTS_SOLID)
                    continue;
            }
        }
        r_particle *p = &out[n++];
        if (type == 3 || type == 5) {
            p->color = (uint8_t)((type == 3 ? 52 : 230) + ((k & 4) << 1));
            float side = k & 1 ? 30 : -30;
            p->org[0] = at_[0] + side * vel[1] / speed * (float)age;
            p->org[1] = at_[1] - side * vel[0] / speed * (float)age;
            p->org[2] = at_[2];
            continue;
        }
        int spread = type == 6 ? 16 : 6;
        p->color = fire ? ramp3[(int)ramp] : type == 6 ? (uint8_t)(9 * 16 + 8 + (r & 3))
                                                       : (uint8_t)(67 + (r & 3));
        for (int j = 0; j < 3; j++)
            p->org[j] = at_[j] + (float)((int)(next(&g) % (uint32_t)spread) - spread / 2);
        if (fire)
            p->org[2] += GRAVITY / 2 * (float)(age * age);
        else if (type != 6)
            p->org[2] -= GRAVITY / 2 * (float)(age * age);
    }
    return n;
}

/* A random number in -1..1 (cl_fx.c crand) of g. */
static float crand_of(part_gen *g) { return (float)(next(g) & 0xffff) / 32767.5f - 1; }

/* The next particle of out (*n so far) in color, faded by age of its life (Quake II's alpha
 * falling to 0 over it); NULL when it has died. */
static r_particle *fading(r_particle *out, int *n, uint8_t color, float age, float life)
{
    if (age >= life)
        return NULL;
    r_particle *p = &out[(*n)++];
    p->color = color;
    p->alpha = (uint8_t)(255 * (1 - age / life));
    return p;
}

/* Quake II's rail trail (cl_fx.c CL_RailTrail): a spiral of particles in 0x74 .. 0x7b, one a
 * unit, 3 units out and drifting out at 6 a second, fading over 1 .. 1.2 s, round a core of
 * particles of 0 .. 15 every 0.75 units within 3 of the line, fading over 0.6 .. 0.8 s. Past
 * 500 units the spacing grows so that no more than cap are made. */
int r_q2_rail_particles(const cl_fxev *e, float age, r_particle *out, int cap)
{
    float d[3], len = 0;
    for (int k = 0; k < 3; k++) {
        d[k] = e->end[k] - e->origin[k];
        len += d[k] * d[k];
    }
    len = sqrtf(len);
    if (!(len > 0) || !isfinite(len) || age < 0)
        return 0;
    for (int k = 0; k < 3; k++)
        d[k] /= len;
    /* MakeNormalVectors: a right and an up across the line */
    float right[3] = {d[2], -d[0], d[1]}, dt = right[0] * d[0] + right[1] * d[1] + right[2] * d[2];
    for (int k = 0; k < 3; k++)
        right[k] -= dt * d[k];
    float rl = sqrtf(right[0] * right[0] + right[1] * right[1] + right[2] * right[2]);
    if (!(rl > 0))
        return 0;
    for (int k = 0; k < 3; k++)
        right[k] /= rl;
    float up[3] = {right[1] * d[2] - right[2] * d[1], right[2] * d[0] - right[0] * d[2],
                   right[0] * d[1] - right[1] * d[0]};
    part_gen g;
    uint32_t bits[3];
    memcpy(bits, e->origin, sizeof bits);
    g.h = (uint32_t)(int64_t)(e->t0 * 1000.0) * 2654435761u ^ bits[0] ^ bits[1] * 40503u ^ bits[2];
    float step = len > 500 ? len / 500 : 1, dec = len > 375 ? len / 500 : 0.75f;
    int n = 0;
    for (float i = 0; i < len && n < cap; i += step) {
        float life = 1 + (float)(next(&g) & 255) / 255 * 0.2f, c = cosf(i * 0.1f),
              s = sinf(i * 0.1f);
        uint8_t color = (uint8_t)(0x74 + (next(&g) & 7));
        r_particle *p = fading(out, &n, color, age, life);
        if (!p)
            continue;
        for (int k = 0; k < 3; k++) {
            float dir = right[k] * c + up[k] * s;
            p->org[k] = e->origin[k] + d[k] * i + dir * (3 + 6 * age);
        }
    }
    for (float i = 0; i < len && n < cap; i += dec) {
        float life = 0.6f + (float)(next(&g) & 255) / 255 * 0.2f;
        uint8_t color = (uint8_t)(next(&g) & 15);
        float off[3];
        for (int k = 0; k < 3; k++)
            off[k] = ((float)(next(&g) & 255) / 127.5f - 1) * 3 +
                     ((float)(next(&g) & 255) / 127.5f - 1) * 3 * age;
        r_particle *p = fading(out, &n, color, age, life);
        if (!p)
            continue;
        for (int k = 0; k < 3; k++)
            p->org[k] = e->origin[k] + d[k] * i + off[k];
    }
    return n;
}

/* Quake II's other particles (cl_fx.c): an explosion's 256 (CL_ExplosionParticles: 0xe0 ..
 * 0xe7 within 16 units, -192..191 a second, fading 0.8 over 0.5 .. 0.8 s) and an impact's or
 * blood's (CL_ParticleEffect: 40 of 0 .. 7 for a gunshot, 60 of 0xe8 .. 0xef for blood,
 * within 4 units, +-20 a second, fading over 0.5 .. 0.8 s); all fall at PARTICLE_GRAVITY
 * 40. */
int r_q2_particles_of(const cl_fxev *e, float age, r_particle *out, int cap)
{
    int count = e->kind == CL_FXK_EXPLOSION ? 256
                : e->kind == CL_FXK_BLOOD   ? 60
                : e->kind == CL_FXK_IMPACT  ? 40
                                            : 0;
    if (e->kind == CL_FXK_BEAM_RAIL)
        return r_q2_rail_particles(e, age, out, cap);
    if (!count || age < 0)
        return 0;
    part_gen g;
    uint32_t bits[3];
    memcpy(bits, e->origin, sizeof bits);
    g.h = (uint32_t)(int64_t)(e->t0 * 1000.0) * 2654435761u ^ bits[0] * 69069u ^ bits[1] ^
          bits[2] * 40503u ^ e->kind;
    int boom = e->kind == CL_FXK_EXPLOSION, base = boom ? 0xe0 : count == 60 ? 0xe8 : 0;
    int n = 0;
    for (int i = 0; i < count && n < cap; i++) {
        float life = 0.5f + (float)(next(&g) & 255) / 255 * 0.3f;
        if (boom)
            life /= 0.8f; /* (its alpha falls 0.8 a life) */
        uint8_t color = (uint8_t)(base + (next(&g) & 7));
        float org[3], vel[3];
        for (int k = 0; k < 3; k++) {
            org[k] = e->origin[k] + (boom ? (float)((int)(next(&g) % 32) - 16)
                                          : (float)((int)(next(&g) & 7) - 4));
            vel[k] = boom ? (float)((int)(next(&g) % 384) - 192)
                          : ((float)(next(&g) & 255) / 127.5f - 1) * 20;
        }
        r_particle *p = fading(out, &n, color, age, life);
        if (!p)
            continue;
        for (int k = 0; k < 3; k++)
            p->org[k] = org[k] + vel[k] * age - (k == 2 ? 20 * age * age : 0);
    }
    return n;
}

int r_q2_trail_particles(const cl_state *cl, int num, double t, r_particle *out, int cap)
{
    cl_entstate s;
    float dir[3], speed;
    double start;
    if (!flight_of(cl, num, t, &s, dir, &speed, &start) || !(s.fx & CL_FX_ROCKET))
        return 0;
    for (int i = 0; i < 3; i++)
        dir[i] /= speed;
    /* cl_fx.c CL_RocketTrail on the straight flight since the rocket appeared (start), each
     * particle laid when the rocket passed there: CL_DiminishingTrail's smoke every 0.5 units,
     * kept when (rand() & 1023) < trailcount (1024 at first, 5 less a step, 100 at least),
     * spread 4, 2 then 1 units and 15, 10 then 5 a second as trailcount passes 900 and 800,
     * colour 4 + (rand() & 7), rising at 20; and a fire particle every unit one time in eight
     * (rand() & 7 == 0), 0xdc + (rand() & 3), spread 5, 20 a second, falling at 40; each fades
     * from 1 over 1 .. 1.2 s */
    uint32_t seed = (uint32_t)num * 2654435761u ^ (uint32_t)(int64_t)(start * 1000.0);
    double flown = (t - start) * speed, from = (t - 1.2 - start) * speed;
    from = from > 0 ? from : 0;
    int n = 0;
    for (int fire = 0; fire < 2; fire++) {
        double step = fire ? 1.0 : 0.5;
        int64_t k0 = (int64_t)ceil(from / step), k1 = (int64_t)floor(flown / step);
        for (int64_t k = k1; k >= k0 && k1 - k < 4096 && n < cap; k--) {
            part_gen g = {seed ^ (uint32_t)k * 40503u ^ (uint32_t)fire * 69069u};
            double d = (double)k * step;
            float age = (float)(t - (start + d / speed));
            int count = k * 5 < 924 ? (int)(1024 - 5 * k) : 100; /* trailcount at step k */
            if (fire ? (next(&g) & 7) != 0 : (int)(next(&g) & 1023) >= count)
                continue;
            float life = 1 + (float)(next(&g) & 255) / 255 * 0.2f;
            float orgscale = fire ? 5 : count > 900 ? 4 : count > 800 ? 2 : 1;
            float velscale = fire ? 20 : count > 900 ? 15 : count > 800 ? 10 : 5;
            uint8_t color = (uint8_t)(fire ? 0xdc + (next(&g) & 3) : 4 + (next(&g) & 7));
            float org[3], vel[3];
            for (int j = 0; j < 3; j++) {
                org[j] = s.origin[j] - dir[j] * (float)(flown - d) + crand_of(&g) * orgscale;
                vel[j] = crand_of(&g) * velscale;
            }
            r_particle *p = fading(out, &n, color, age, life);
            if (!p)
                continue;
            for (int j = 0; j < 3; j++)
                p->org[j] = org[j] + vel[j] * age + (j == 2 ? (fire ? -20 : 10) * age * age : 0);
        }
    }
    return n;
}

#define R_PARTICLES_A_FRAME 32768 /* particles drawn a frame at most */

void r_draw_particles(r_view *v, const r_assets *a, const cl_state *cl, double t)
{
    if (!cl || !a ||
        (cl->level.game != CL_GAME_Q1 && cl->level.game != CL_GAME_QW &&
         cl->level.game != CL_GAME_Q2) ||
        (v->pass != R_PASS_TEXTURED && v->pass != R_PASS_FLAT))
        return;
    int q2 = cl->level.game == CL_GAME_Q2;
    const cl_fxev *fx[256];
    int nfx = cl_fx_at(cl, t, fx, 256);
    r_particle ps[1024];
    int ne = cl->num_entities < CL_MAX_ENTITIES ? cl->num_entities : CL_MAX_ENTITIES;
    /* one budget a frame, effects first, then the entities' trails in order: 8,190 rockets
     * with their trails made 8 M particles a frame (0.75 s at 640x360; a review). Quake's
     * own pool holds 2,048 (r_part.c MAX_PARTICLES); a real frame's busiest fight here
     * stays far under this */
    int budget = R_PARTICLES_A_FRAME;
    for (int i = -nfx; i < ne && budget > 0; i++) {
        int n = 0;
        if (i < 0) { /* the effects, then the entities' trails */
            const cl_fxev *e = fx[i + nfx];
            float age = (float)(t - e->t0);
            n = q2 ? r_q2_particles_of(e, age, ps, 1024) : r_particles_of(e, age, ps, 1024);
        } else if (q2) {
            const cl_entity *e = &cl->entities[i];
            if (!e->active || !(e->cur.fx & CL_FX_ROCKET))
                continue;
            n = r_q2_trail_particles(cl, i, t, ps, 1024);
        } else {
            const cl_entity *e = &cl->entities[i];
            uint16_t m = e->cur.model;
            int type = e->active && m < a->num_models && a->models[m].kind == R_KIND_ALIAS &&
                               a->models[m].alias
                           ? r_trail_type(a->models[m].alias->flags)
                           : -1;
            if (type < 0)
                continue;
            n = r_trail_particles(cl, a->world.bsp, i, type, t, ps, 1024);
        }
        n = n < budget ? n : budget;
        budget -= n;
        for (int k = 0; k < n; k++) {
            /* gl_rmisc / r_part.c R_DrawParticles: a particle grows with its distance
             * (1 + 0.004 a unit beyond 20) so it keeps a few pixels' size; it is a triangle
             * of sides 1.5 x that along the view's up and right, textured with a dot in the
             * texture's first quarter (GLQuake's dottexture, ezQuake's circle of radius a
             * quarter of the texture): a round dot 0.75 x that across, drawn here as an
             * octagon (a 1.5-unit square before: four times the dot's area, the teleport
             * splash around a spawning player a wall of grey squares) */
            const float *o = ps[k].org;
            float d = (o[0] - v->org[0]) * v->fwd[0] + (o[1] - v->org[1]) * v->fwd[1] +
                      (o[2] - v->org[2]) * v->fwd[2];
            if (!(d > 4))
                continue;
            float r = (d < 20 ? 1 : 1 + d * 0.004f) * 0.375f;
            static const float ring[8][2] = {
                {0.92388f, 0.38268f},  {0.38268f, 0.92388f},  {-0.38268f, 0.92388f},
                {-0.92388f, 0.38268f}, {-0.92388f, -0.38268f}, {-0.38268f, -0.92388f},
                {0.38268f, -0.92388f}, {0.92388f, -0.38268f}}; /* (cos, sin) of 22.5 + 45 k */
            float q[8][3];
            for (int c = 0; c < 8; c++)
                for (int j = 0; j < 3; j++)
                    q[c][j] = o[j] + (v->right[j] * ring[c][0] + v->up[j] * ring[c][1]) * r;
            uint32_t alpha = q2 ? ps[k].alpha : 255;
            r_draw_poly(v, (const float(*)[3])q, 8,
                        (a->palette[ps[k].color] & 0x00ffffffu) | alpha << 24,
                        RAST_DEPTH_TEST | RAST_COLOR_WRITE | (alpha < 255 ? RAST_BLEND : 0));
        }
    }
}

/* q_math.c PerpendicularVector (facts only): the axis of src's smallest component (the
 * first of equals under 1), projected onto the plane normal to src, made unit length. */
static void perpendicular(const float src[3], float dst[3])
{
    int pos = 0;
    float least = 1;
    for (int i = 0; i < 3; i++)
        if (fabsf(src[i]) < least) {
            pos = i;
            least = fabsf(src[i]);
        }
    float n2 = src[0] * src[0] + src[1] * src[1] + src[2] * src[2], len2 = 0;
    float d = n2 > 0 ? src[pos] / n2 : 0;
    for (int i = 0; i < 3; i++) {
        dst[i] = (i == pos) - d * src[i];
        len2 += dst[i] * dst[i];
    }
    float len = sqrtf(len2);
    for (int i = 0; len > 0 && i < 3; i++)
        dst[i] /= len;
}

/* OpenArena's rail rings (cg_weapons.c CG_RailTrail with cg_oldRail 0; facts only): from 20
 * units past the start, a disc every 10 units along the rail, 4 units off it at an angle
 * that turns 20 degrees a disc (q_math.c RotatePointAroundVector of PerpendicularVector
 * about the rail, ten degrees a 5-unit step, from the 18th step of 36), each drifting out
 * at 6 units a second for (its distance / 2) + 600 ms: a sprite of radius 1.1 (railDisc,
 * added, in colour 2: rgbGen vertex keeps no fade) on its own clock; none the eye is in. */
static void rail_rings(r_view *v, const cl_fxev *e, double age)
{
    int32_t mat = v->pass == R_PASS_TEXTURED ? r_q3_rail_disc_mat(v->assets) : -1;
    float dir[3], len2 = 0;
    for (int k = 0; k < 3; k++) {
        dir[k] = e->end[k] - e->origin[k];
        len2 += dir[k] * dir[k];
    }
    float len = sqrtf(len2);
    if (mat < 0 || !(len > 0) || !(len < 65536))
        return;
    for (int k = 0; k < 3; k++)
        dir[k] /= len;
    float temp[3], cross[3];
    perpendicular(dir, temp);
    cross[0] = dir[1] * temp[2] - dir[2] * temp[1];
    cross[1] = dir[2] * temp[0] - dir[0] * temp[2];
    cross[2] = dir[0] * temp[1] - dir[1] * temp[0];
    uint32_t light = rast_rgb(e->rgb[0], e->rgb[1], e->rgb[2]);
    double save = v->time;
    v->time = age; /* (tcMod rotate from the disc's start) */
    /* (g_weapon.c weapon_railgun_fire traces 8192 units: a longer rail is not the game's) */
    int reach = len < 8192 ? (int)len : 8192;
    for (int i = 0; i < reach; i += 10) {
        if (age >= ((i >> 1) + 600) / 1000.0)
            continue; /* gone */
        float ang = (float)(((18 + i / 5) % 36) * 10) * (float)M_PI / 180, p[3], d2 = 0, z = 0;
        for (int k = 0; k < 3; k++) {
            float axis = temp[k] * cosf(ang) + cross[k] * sinf(ang);
            p[k] = e->origin[k] + dir[k] * (float)(20 + i) + axis * (4 + 6 * (float)age);
            d2 += (p[k] - v->org[k]) * (p[k] - v->org[k]);
            z += (p[k] - v->org[k]) * v->fwd[k];
        }
        float c[2], r = z > 0 ? 1.6f * v->scale / z : 0; /* (its corners' reach, pixels) */
        if (d2 < 1.1f * 1.1f || !r_project_point(v, p, c) || c[0] < -r ||
            c[0] > (float)v->fb->w + r || c[1] < (float)v->y0 - r || c[1] > (float)v->y1 + r)
            continue; /* (CG_AddMoveScaleFade: the eye inside it frees it; out of view) */
        r_q3_autosprite(v, mat, p, 1.1f, light);
    }
    v->time = save;
}

void r_q3_rails(r_view *v, const cl_state *cl, double t)
{
    if (!cl || cl->level.game != CL_GAME_Q3)
        return;
    const cl_fxev *fx[256];
    int nfx = cl_fx_at(cl, t, fx, 256);
    for (int i = 0; i < nfx; i++) {
        const cl_fxev *e = fx[i];
        double age = t - e->t0;
        if (e->kind == CL_FXK_RAIL_RINGS && age >= 0 && age < e->life)
            rail_rings(v, e, age);
        if (e->kind != CL_FXK_BEAM_RAIL || !(age >= 0 && age < e->life))
            continue;
        /* cg_weapons.c CG_RailTrail: the core in color1 x 0.75, fading to nothing over
         * cg_railTrailTime (LE_FADE_RGB), from and to where the decoder put its ends (the
         * cgame's nudges); tr_surface.c DoRailCore: r_railCoreWidth 6 across, turned to
         * face the eye */
        const float *from = e->origin, *to = e->end;
        float d[3], to_eye[3], side[3], len2 = 0;
        for (int k = 0; k < 3; k++) {
            d[k] = to[k] - from[k];
            to_eye[k] = v->org[k] - from[k];
        }
        side[0] = d[1] * to_eye[2] - d[2] * to_eye[1];
        side[1] = d[2] * to_eye[0] - d[0] * to_eye[2];
        side[2] = d[0] * to_eye[1] - d[1] * to_eye[0];
        for (int k = 0; k < 3; k++)
            len2 += side[k] * side[k];
        float len = sqrtf(len2);
        if (!(len > 0) || !isfinite(len))
            continue;
        float fade = 1 - (float)(age / e->life);
        int32_t core = v->pass == R_PASS_TEXTURED ? r_q3_rail_mat(v->assets) : -1;
        if (core >= 0) {
            /* tr_surface.c DoRailCore with r_railCoreWidth 6: corners 6 either side, s along
             * the beam one every 256 units, the railCore shader added in the entity's colour
             * (color1 x 0.75, faded), a quarter of it along one edge */
            float beam = 0, q[4][3];
            for (int k = 0; k < 3; k++)
                beam += d[k] * d[k];
            beam = sqrtf(beam);
            uint32_t full = rast_rgb((unsigned)(e->rgb[0] * 3 / 4 * fade),
                                     (unsigned)(e->rgb[1] * 3 / 4 * fade),
                                     (unsigned)(e->rgb[2] * 3 / 4 * fade)),
                     quarter = rast_rgb((unsigned)(e->rgb[0] * 3 / 4 * fade / 4),
                                        (unsigned)(e->rgb[1] * 3 / 4 * fade / 4),
                                        (unsigned)(e->rgb[2] * 3 / 4 * fade / 4));
            for (int k = 0; k < 3; k++) {
                float s = side[k] / len * 6;
                q[0][k] = from[k] + s;
                q[1][k] = from[k] - s;
                q[2][k] = to[k] + s;
                q[3][k] = to[k] - s;
            }
            const float st[4][2] = {{0, 0}, {0, 1}, {beam / 256, 0}, {beam / 256, 1}};
            const uint32_t light[4] = {quarter, full, quarter, full};
            static const int tri[2][3] = {{0, 1, 2}, {2, 1, 3}};
            for (int h = 0; h < 2; h++) {
                float p[3][3], tst[3][2];
                uint32_t l[3];
                for (int c = 0; c < 3; c++) {
                    memcpy(p[c], q[tri[h][c]], sizeof p[c]);
                    memcpy(tst[c], st[tri[h][c]], sizeof tst[c]);
                    l[c] = light[tri[h][c]];
                }
                r_q3_model_tri(v, core, (const float(*)[3])p, (const float(*)[2])tst, l, 0);
            }
            continue;
        }
        float q[4][3];
        for (int k = 0; k < 3; k++) {
            float s = side[k] / len * 3;
            q[0][k] = from[k] - s;
            q[1][k] = from[k] + s;
            q[2][k] = to[k] + s;
            q[3][k] = to[k] - s;
        }
        uint32_t a8 = (uint32_t)(fade * 255);
        uint32_t color = rast_rgb((unsigned)(e->rgb[0] * 3 / 4), (unsigned)(e->rgb[1] * 3 / 4),
                                  (unsigned)(e->rgb[2] * 3 / 4)) &
                         0x00ffffffu;
        r_draw_poly(v, (const float(*)[3])q, 4, color | a8 << 24,
                    RAST_DEPTH_TEST | RAST_COLOR_WRITE | RAST_BLEND);
    }
}

/* bg_public.h weapon_t: an explosion's style in a Quake III demo (the event's weapon) */
enum {
    Q3_WEAPON_MACHINEGUN = 2, Q3_WEAPON_GRENADE = 4, Q3_WEAPON_ROCKET = 5, Q3_WEAPON_RAIL = 7,
    Q3_WEAPON_PLASMA = 8, Q3_WEAPON_BFG = 9
};

/* The shader of a Quake III explosion (cg_weapons.c CG_MissileHitWall), R_Q3FX_*, or -1:
 * the grenade's, rocket's and BFG's are sprites, the others' models (*model: the slot). */
static int explosion_fx(const cl_fxev *e, int *model)
{
    *model = e->style == Q3_WEAPON_MACHINEGUN ? CL_Q3_IMPACT_MODELS + 1 : CL_Q3_IMPACT_MODELS;
    switch (e->style) {
    case Q3_WEAPON_GRENADE: *model = 0; return R_Q3FX_GRENADE;
    case Q3_WEAPON_ROCKET: *model = 0; return R_Q3FX_ROCKET;
    case Q3_WEAPON_BFG: *model = 0; return R_Q3FX_BFG;
    case Q3_WEAPON_PLASMA: return R_Q3FX_PLASMA;
    case Q3_WEAPON_RAIL: return R_Q3FX_RAIL;
    case Q3_WEAPON_MACHINEGUN: return R_Q3FX_BULLET;
    default: return -1;
    }
}

/* The unit normal of explosion e (end - origin, the decoder's) into n, or 0 (none). */
static int explosion_normal(const cl_fxev *e, float n[3])
{
    float n2 = 0;
    for (int j = 0; j < 3; j++) {
        n[j] = e->end[j] - e->origin[j];
        n2 += n[j] * n[j];
    }
    return n2 > 0.81f && n2 < 1.21f; /* (else no normal came: none, as ByteToDir) */
}

/* A model explosion (cg_effects.c CG_MakeExplosion without isSprite): axis 0 the surface's
 * normal (none: the world's axes), axis 1 a perpendicular turned about it by the hash's
 * angle (RotateAroundDirection), axis 2 their cross product; its materials on every
 * surface at its age's shader time. */
static void model_explosion(r_view *v, const cl_fxev *e, int model, int32_t mat, int32_t more,
                            double age, uint32_t h)
{
    float ax[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, n[3];
    if (explosion_normal(e, n)) {
        /* any perpendicular: the turn about the normal is random in cgame */
        float p[3] = {-n[1], n[0], 0};
        if (fabsf(n[2]) > 0.9f) {
            p[0] = 0;
            p[1] = -n[2];
            p[2] = n[1];
        }
        float pl = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        float a = (float)(h % 360) * (float)M_PI / 180, c = cosf(a), s = sinf(a);
        float q[3] = {n[1] * p[2] - n[2] * p[1], n[2] * p[0] - n[0] * p[2],
                      n[0] * p[1] - n[1] * p[0]}; /* n x p */
        for (int j = 0; j < 3; j++) {
            ax[0][j] = n[j];
            ax[1][j] = (p[j] * c + q[j] * s) / pl;
        }
        ax[2][0] = ax[0][1] * ax[1][2] - ax[0][2] * ax[1][1];
        ax[2][1] = ax[0][2] * ax[1][0] - ax[0][0] * ax[1][2];
        ax[2][2] = ax[0][0] * ax[1][1] - ax[0][1] * ax[1][0];
    }
    double save = v->time;
    v->time = age;
    r_md3_effect(v, v->assets, model, e->origin, (const float(*)[3])ax, mat);
    if (more >= 0)
        r_md3_effect(v, v->assets, model, e->origin, (const float(*)[3])ax, more);
    v->time = save;
}

void r_q3_explosions(r_view *v, const cl_state *cl, double t)
{
    if (!cl || cl->level.game != CL_GAME_Q3 || v->pass != R_PASS_TEXTURED)
        return;
    const cl_fxev *fx[256];
    int nfx = cl_fx_at(cl, t, fx, 256);
    for (int i = 0; i < nfx; i++)
        r_q3_explosion(v, fx[i], t);
}

/* cg_effects.c CG_SpawnEffect (facts only): a player going in or out of a teleporter (or
 * spawning): teleportEffectModel unturned 24 units under the place, every surface with the
 * teleportEffect shader (an autosprite in OpenArena's: glows turned to the eye) on its own
 * clock, for 500 ms (LE_FADE_RGB fades only an entity-coloured stage: none here). */
static void spawn_effect(r_view *v, const cl_fxev *e, double t)
{
    double age = t - e->t0;
    int32_t mat = r_q3_fx_mat(v->assets, R_Q3FX_TELEPORT, 0);
    if (!(age >= 0 && age < e->life) || mat < 0)
        return;
    static const float axis[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const float at[3] = {e->origin[0], e->origin[1], e->origin[2] - 24};
    double save = v->time;
    v->time = age;
    r_md3_effect(v, v->assets, CL_Q3_TELEPORT_MODEL, at, axis, mat);
    v->time = save;
}

void r_q3_explosion(r_view *v, const cl_fxev *e, double t)
{
    if (e->kind == CL_FXK_TELEPORT) {
        spawn_effect(v, e, t);
        return;
    }
    /* cg_effects.c CG_Bleed: a hit body bleeds a sprite of radius 24 with bloodExplosion
     * for 500 ms, turned by rand(); not in the view of the body's own eyes */
    int blood = e->kind == CL_FXK_BLOOD;
    if (blood && e->entity > 0 && e->entity == v->hidden_body)
        return;
    int model = 0, k = e->kind == CL_FXK_EXPLOSION ? explosion_fx(e, &model)
                       : blood                     ? R_Q3FX_BLOOD
                                                   : -1;
    int32_t mat = k >= 0 ? r_q3_fx_mat(v->assets, k, 0) : -1,
            more = k >= 0 ? r_q3_fx_mat(v->assets, k, 1) : -1;
    if (mat < 0)
        return;
    /* cg_effects.c CG_MakeExplosion: started up to 63 ms early ("skew the time a bit so
     * they aren't all in sync"), turned by 0..359 degrees, both rand(): here a hash of
     * the effect; the sprite 16 units out along the surface's normal (end - origin, the
     * decoder's) */
    uint32_t h = fx_seed(e);
    double age = t - e->t0 + (blood ? 0 : (double)(h >> 8 & 63) / 1000.0); /* (CG_Bleed: now) */
    if (!(age >= 0 && age < e->life))
        return;
    if (model) { /* CG_AddExplosion: the model along the normal, turned about it */
        model_explosion(v, e, model, mat, more, age, h);
        return;
    }
    /* cg_localents.c CG_AddSpriteExplosion: radius 30, growing by 42 over the life (the
     * blood's: CG_AddExplosion, its 24 as it is) */
    float c = (float)(1 - age / e->life);
    float radius = blood ? 24 : 42 * (1 - c) + 30;
    float ang = (float)(h % 360) * (float)M_PI / 180, sn = sinf(ang), cs = cosf(ang);
    float org[3], q[4][3], n[3];
    int unit = explosion_normal(e, n);
    for (int j = 0; j < 3; j++)
        org[j] = e->origin[j] + (unit ? 16 * n[j] : 0);
    /* tr_surface.c RB_SurfaceSprite: the view's left and up turned by the rotation,
     * corners left + up, -left + up, -left - up, left - up at s, t 0 0, 1 0, 1 1, 0 1 */
    float left[3], up[3];
    for (int j = 0; j < 3; j++) {
        left[j] = (-v->right[j] * cs - v->up[j] * sn) * radius;
        up[j] = (v->up[j] * cs - v->right[j] * sn) * radius;
        q[0][j] = org[j] + left[j] + up[j];
        q[1][j] = org[j] - left[j] + up[j];
        q[2][j] = org[j] - left[j] - up[j];
        q[3][j] = org[j] + left[j] - up[j];
    }
    static const float st[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    /* its shader's waves and frames on its own clock (tr_shade.c: the shader time less
     * the entity's shaderTime, CG_MakeExplosion's start) */
    double save = v->time;
    v->time = age;
    int32_t after = r_q3_fx_mat(v->assets, k, 2); /* (OpenArena's rocket: stages 5 and 6) */
    for (int part = 0; part < 3; part++) {
        int32_t m = part == 0 ? mat : part == 1 ? more : after;
        if (m >= 0)
            r_q3_quad(v, m, (const float(*)[3])q, st);
    }
    v->time = save;
}

/* The puffs of one rocket's smoke (cg_weapons.c CG_RocketTrail, cg_effects.c CG_SmokePuff,
 * cg_localents.c CG_AddScaleFade; facts only): one every 50 ms of the flight (at the
 * clock's multiples of 50 ms after it was first seen, here trTime + 50 ms: the missile's
 * prestep) up to end, at the trajectory's place then (base + delta x (time - launch)),
 * each for 2 s (wiTrailTime) from its time: radius 8 growing to 72 (trailRadius 64), alpha
 * 0.33 fading to 0, turned by rand() (a hash), its shader (tcMod rotate) on its own clock;
 * none nearer the eye than 64. A grenade's (grenade: CG_GrenadeTrail, the same) for 700 ms,
 * growing to 40, on one piece of its falling path (a bounce starts the next, with no
 * prestep: its first puff comes 50 ms late). */
static void rocket_puffs(r_view *v, const float base[3], const float delta[3], double launch,
                         double end, double t, int grenade)
{
    /* the grenade's (CG_GrenadeTrail): wiTrailTime 700 ms, trailRadius 32, on its falling
     * path (bg_misc.c TR_GRAVITY: DEFAULT_GRAVITY 800) */
    const double life = grenade ? 0.7 : 2.0;
    const float grow = grenade ? 32 : 64;
    double k0 = floor((launch + 0.05) * 20) + 1, from = floor((t - life) * 20) + 1;
    k0 = from > k0 ? from : k0; /* (older puffs are gone) */
    if (!(k0 > -1e12 && k0 < 1e12))
        return;
    for (int i = 0; i <= 40; i++) { /* a puff every 50 ms: 2 s holds 40 */
        double at = (k0 + i) / 20;
        if (at > end || at > t)
            break;
        double age = t - at;
        float c = (float)(1 - age / life);
        int32_t mat = r_q3_smoke_mat(v->assets, 0.33f * c);
        if (!(c > 0) || mat < 0)
            continue;
        float p[3], d2 = 0, dt = (float)(at - launch);
        for (int j = 0; j < 3; j++) {
            p[j] = base[j] + delta[j] * dt;
            if (grenade && j == 2)
                p[j] -= 0.5f * 800 * dt * dt;
            d2 += (p[j] - v->org[j]) * (p[j] - v->org[j]);
        }
        if (d2 < 64 * 64 || !(d2 < 1e12f))
            continue;
        float radius = grow * (1 - c) + 8;
        uint32_t h = (uint32_t)(int64_t)(at * 1000.0) * 2654435761u ^
                     (uint32_t)(int64_t)(launch * 1000.0) * 40503u;
        r_q3_puff(v, mat, p, radius, (float)(h % 360), age);
    }
}

void r_q3_puff(r_view *v, int32_t mat, const float p[3], float radius, float angle, double age)
{
    float ang = angle * (float)M_PI / 180, sn = sinf(ang), cs = cosf(ang);
    float q[4][3];
    for (int j = 0; j < 3; j++) {
        float left = (-v->right[j] * cs - v->up[j] * sn) * radius;
        float up = (v->up[j] * cs - v->right[j] * sn) * radius;
        q[0][j] = p[j] + left + up;
        q[1][j] = p[j] - left + up;
        q[2][j] = p[j] - left - up;
        q[3][j] = p[j] + left - up;
    }
    static const float st[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    double save = v->time;
    v->time = age;
    r_q3_quad(v, mat, (const float(*)[3])q, st);
    v->time = save;
}

void r_q3_smoke(r_view *v, const cl_state *cl, double t)
{
    if (!cl || cl->level.game != CL_GAME_Q3 || v->pass != R_PASS_TEXTURED ||
        r_q3_smoke_mat(v->assets, 0.33f) < 0)
        return;
    /* the flights that ended (q3.c logs them) */
    const cl_fxev *fx[256];
    int nfx = cl_fx_at(cl, t, fx, 256);
    for (int i = 0; i < nfx; i++)
        if (fx[i]->kind == CL_FXK_TRAIL && fx[i]->radius > 0)
            rocket_puffs(v, fx[i]->origin, fx[i]->end, fx[i]->t0 - fx[i]->radius, fx[i]->t0,
                         t, fx[i]->style == Q3_WEAPON_GRENADE);
    /* the rockets and grenades in flight (a grenade at rest, TR_STATIONARY, makes none) */
    int n = cl->num_entities < CL_MOTION_ENTITIES ? cl->num_entities : CL_MOTION_ENTITIES;
    for (int i = 1; i < n; i++) {
        const cl_entity *e = &cl->entities[i];
        if (!e->active || !(e->cur.fx & (CL_FX_ROCKET | CL_FX_GRENADE)) ||
            !(e->cur.flags & CL_EF_TRAJ) || !cl->motion_slot[i])
            continue;
        const cl_traj *tr = &cl->motion[cl->motion_slot[i] - 1].pos[1];
        int grenade = (e->cur.fx & CL_FX_GRENADE) != 0;
        if (tr->type == (grenade ? CL_TR_GRAVITY : CL_TR_LINEAR))
            rocket_puffs(v, tr->base, tr->delta, tr->t0_ms / 1000.0, t, t, grenade);
    }
}

/* cg_localents.c CG_AddScorePlum (facts only): each score plum of the viewed player, 4 s: c
 * the life left (1 to 0); its digits (a minus first for a score under 0), 8 units apart as
 * sprites of radius 4, centred across the view on its origin raised 110 - 100 c units and
 * swayed -10 + 20 sin(2 pi c) units sideways (across the line to the eye); white for 1, green
 * from 2, yellow from 10, blue from 20, magenta from 50, red below 0; alpha 4 c in its last
 * second; none within 20 units of the eye. Drawn over everything (no depth test). */
void r_q3_plums(r_view *v, const cl_state *cl, double t)
{
    if (!cl || cl->level.game != CL_GAME_Q3 || v->pass != R_PASS_TEXTURED)
        return;
    const cl_fxev *alive[CL_MARK_LOG];
    int na = cl_marks_at(cl, t, alive, CL_MARK_LOG);
    for (int i = na - 1; i >= 0; i--) { /* (oldest first: as cgame added them) */
        const cl_fxev *e = alive[i];
        double age = t - e->t0;
        if (e->kind != CL_FXK_SCORE_PLUM || !(age >= 0 && age < 4) ||
            !(fabsf(e->radius) < 1e9f))
            continue;
        float c = (float)(1 - age / 4), o[3], dir[3], side[3];
        int score = (int)e->radius;
        uint32_t rgb = score < 0     ? rast_rgb(255, 0x11, 0x11)
                       : score >= 50 ? rast_rgb(255, 0, 255)
                       : score >= 20 ? rast_rgb(0, 0, 255)
                       : score >= 10 ? rast_rgb(255, 255, 0)
                       : score >= 2  ? rast_rgb(0, 255, 0)
                                     : rast_rgb(255, 255, 255);
        unsigned alpha = c < 0.25f ? (unsigned)(255 * 4 * c) : 255;
        memcpy(o, e->origin, sizeof o);
        o[2] += 110 - c * 100;
        for (int k = 0; k < 3; k++)
            dir[k] = v->org[k] - o[k];
        side[0] = dir[1]; /* dir x (0, 0, 1) */
        side[1] = -dir[0];
        side[2] = 0;
        float len = sqrtf(side[0] * side[0] + side[1] * side[1]);
        if (!(len > 0))
            continue;
        float sway = -10 + 20 * sinf(c * 2 * (float)M_PI), d2 = 0;
        for (int k = 0; k < 3; k++) {
            side[k] /= len;
            o[k] += sway * side[k];
            d2 += (o[k] - v->org[k]) * (o[k] - v->org[k]);
        }
        if (d2 < 20 * 20)
            continue;
        int digits[12], n = 0;
        unsigned u = score < 0 ? 0u - (unsigned)score : (unsigned)score;
        do
            digits[n++] = (int)(u % 10);
        while ((u /= 10) && n < 11);
        if (score < 0)
            digits[n++] = 10;
        for (int k = 0; k < n; k++) {
            float p[3], off = ((float)n / 2 - (float)k) * 8;
            for (int j = 0; j < 3; j++)
                p[j] = o[j] + off * side[j];
            r_q3_digit_sprite(v, digits[n - 1 - k], p, 4, rgb, alpha);
        }
    }
}

/* CG_PlayerFloatSprite: RT_SPRITE of radius 10 at the body's origin raised 48 units
 * (cent->lerpOrigin: as the body is drawn), depth-tested; for the view's own body only in
 * mirrors (RF_THIRD_PERSON: v->hidden_body). The friend's mark (cgs.media.friendShader)
 * over a body of the view's player's team, not dead, in a team game (cgame: gametype >=
 * GT_TEAM and PERS_TEAM equal to the body's clientinfo team; teams are red and blue only
 * there). */
void r_q3_float_sprites(r_view *v, const cl_state *cl, double t)
{
    if (!cl || cl->level.game != CL_GAME_Q3 || v->pass != R_PASS_TEXTURED)
        return;
    int vp = cl_view_player(cl);
    int mine = vp >= 0 && vp < CL_MAX_PLAYERS ? cl->players[vp].team : CL_TEAM_NONE;
    int n = cl->num_entities < CL_MAX_PLAYERS + 1 ? cl->num_entities : CL_MAX_PLAYERS + 1;
    for (int i = 1; i < n; i++) {
        const cl_player *pl = &cl->players[i - 1];
        cl_entstate s;
        if (i == v->hidden_body || !pl->active || !r_entity_at(v->assets, cl, i, t, &s, NULL, NULL) ||
            !(s.flags & CL_EF_PLAYER) || s.player != i || !s.model)
            continue; /* (a client's live body is the entity of its number) */
        int kind = pl->float_sprite;
        if (!kind && !(s.flags & CL_EF_DEAD) && (mine == CL_TEAM_RED || mine == CL_TEAM_BLUE) &&
            pl->team == mine)
            kind = CL_FLOAT_FRIEND;
        int32_t mat = r_q3_float_mat(v->assets, kind);
        if (mat < 0)
            continue;
        float p[3] = {s.origin[0], s.origin[1], s.origin[2] + 48};
        r_q3_puff(v, mat, p, 10, 0, t);
    }
}
