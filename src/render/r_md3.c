/* r_md3.c: Quake III models (MD3) drawn: frames lerped, lit per vertex from the map's light
 * grid, textured through their shaders or skins; items spin and bob; players are assembled
 * from legs, torso, head and weapon joined at their tags, animated by animation.cfg.
 *
 * Facts from ioquake3's public code (GPL-2.0), described, not copied: cgame/cg_ents.c
 * CG_Item (spin of (time & 2047) * 360 / 2048 degrees, bob of 4 + 4 cos((time + 1000) *
 * (0.005 + number * 0.00001)) units, weapons 1.5 times as big, turned about the middle of
 * their bounds and lifted 8 units) and CG_Missile (missiles point along their velocity,
 * spun by time / 4 degrees); cgame/cg_players.c CG_PlayerAngles (the torso takes 3/4 of the
 * view's pitch, the head the rest) and CG_PositionRotatedEntityOnTag (a part's axes are its
 * own rotation times the tag's times the parent's, its origin the parent's moved along the
 * parent's axes by the tag's origin); renderergl1/tr_light.c R_SetupEntityLightingGrid and
 * tr_shade_calc.c RB_CalcDiffuseColor (the grid's eight samples around the point, solid
 * ones skipped, ambient times 0.6 plus 32, a vertex gets ambient + directed times the
 * cosine to the grid's direction, clamped at 255); tr_bsp.c R_ColorShiftLightingBytes
 * (grid bytes shifted by r_mapOverBrightBits less the hardware overbright bit, 1 as
 * Debian's ioquake3 runs, scaled down as a whole past 255, and the lit colour shown doubled,
 * as r_q3surf.c's lightmaps). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "r_local.h"

#define ANIM_TOGGLE 0x80     /* bg_public.h ANIM_TOGGLEBIT: set anew when an animation restarts */
#define PLAYER_RADIUS 64.0f  /* a player's parts lie this close to its origin (culling) */
#define ITEM_WEAPON_SCALE 1.5f

/* The light of a model: ambient and directed colours (0..255 a channel) and the direction
 * the directed light comes from (unit, world space). */
typedef struct md3_light {
    float ambient[3], directed[3], dir[3];
} md3_light;

/* Quake III's AnglesToAxis: forward, left, up. */
static void angles_axis(const float angles[3], float axis[3][3])
{
    float right[3];
    r_angle_vectors(angles, axis[0], right, axis[2]);
    for (int j = 0; j < 3; j++)
        axis[1][j] = -right[j];
}

/* out = a times b, axes as rows (Quake III's MatrixMultiply). */
static void axis_mul(const float a[3][3], const float b[3][3], float out[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
}

static void place_point(const r_place *p, const float in[3], float out[3])
{
    for (int j = 0; j < 3; j++)
        out[j] = p->origin[j] + in[0] * p->axis[0][j] + in[1] * p->axis[1][j] +
                 in[2] * p->axis[2][j];
}

/* ---- light ---- */

/* One grid byte triple as ioquake3 keeps it with its hardware overbright bit: shifted left
 * by 1 (r_mapOverBrightBits 2 less the bit), scaled down as a whole when a channel passes
 * 255; the models' lit colours are then doubled (r_q3_model_tri's half, mesh_pass's flat
 * fills), as the frame is shown. */
static void grid_rgb(const uint8_t *g, float out[3])
{
    float c[3], max = 255;
    for (int k = 0; k < 3; k++) {
        c[k] = (float)(g[k] << 1);
        max = c[k] > max ? c[k] : max;
    }
    for (int k = 0; k < 3; k++)
        out[k] = c[k] * 255 / max;
}

/* The light at p from b's light grid (trilinear over the eight cells around p, cells that
 * lie in solid, all zero, left out); a grey ambient and a light from above without a grid. */
static void grid_light(const mdl_bsp *b, const float p[3], md3_light *l)
{
    static const float up[3] = {0.3f, 0.2f, 0.93f};
    memset(l, 0, sizeof *l);
    memcpy(l->dir, up, sizeof l->dir);
    int pos[3];
    float frac[3];
    int ok = b && b->lightgrid && b->grid_dims[0] && b->grid_dims[1] && b->grid_dims[2];
    for (int j = 0; ok && j < 3; j++) {
        float c = (p[j] - b->grid_origin[j]) / b->grid_size[j];
        if (!isfinite(c))
            ok = 0;
        else {
            float f = floorf(c);
            f = f < 0 ? 0 : f > (float)(b->grid_dims[j] - 1) ? (float)(b->grid_dims[j] - 1) : f;
            pos[j] = (int)f;
            frac[j] = c - f;
            frac[j] = frac[j] < 0 ? 0 : frac[j] > 1 ? 1 : frac[j];
        }
    }
    if (!ok) {
        for (int k = 0; k < 3; k++)
            l->ambient[k] = l->directed[k] = 48; /* (kept at half, as the grid's) */
        return;
    }
    float total = 0, dir[3] = {0, 0, 0};
    for (int i = 0; i < 8; i++) {
        size_t idx = 0, stride = 1;
        float factor = 1;
        int inside = 1;
        for (int j = 0; j < 3; j++) {
            int c = pos[j] + (i >> j & 1);
            if (c >= (int)b->grid_dims[j])
                inside = 0;
            factor *= i >> j & 1 ? frac[j] : 1 - frac[j];
            idx += (size_t)c * stride;
            stride *= b->grid_dims[j];
        }
        const uint8_t *g = b->lightgrid + idx * 8;
        if (!inside || !(g[0] | g[1] | g[2]))
            continue; /* past the grid, or a sample in solid */
        float amb[3], dl[3];
        grid_rgb(g, amb);
        grid_rgb(g + 3, dl);
        double lat = g[7] * (2 * M_PI / 256), lng = g[6] * (2 * M_PI / 256);
        float n[3] = {(float)(cos(lat) * sin(lng)), (float)(sin(lat) * sin(lng)),
                      (float)cos(lng)};
        for (int k = 0; k < 3; k++) {
            l->ambient[k] += factor * amb[k];
            l->directed[k] += factor * dl[k];
            dir[k] += factor * n[k];
        }
        total += factor;
    }
    if (total > 0 && total < 0.99f)
        for (int k = 0; k < 3; k++) {
            l->ambient[k] /= total;
            l->directed[k] /= total;
        }
    for (int k = 0; k < 3; k++)
        /* r_ambientScale, and the minimum light add, tr.identityLight * 32: 16 with the
         * overbright bit */
        l->ambient[k] = l->ambient[k] * 0.6f + 16;
    float len = sqrtf(dot3(dir, dir));
    if (len > 1e-6f)
        for (int k = 0; k < 3; k++)
            l->dir[k] = dir[k] / len;
}

/* The frame's dynamic lights on a model at p, as ioq3 tr_light.c R_SetupEntityLighting adds
 * them: each adds power / d^2 of its colour (0..1) to the directed light, power 16 x radius^2
 * (DLIGHT_AT_RADIUS), d its distance, 16 at least (DLIGHT_MINIMUM_RADIUS), and pulls the
 * light's direction towards it by the same weight (the grid's direction weighted by the
 * directed light's length). Only lights with a colour (Quake III's). */
static void dlights_on_model(const r_view *v, const float p[3], md3_light *l)
{
    float d0 = sqrtf(dot3(l->directed, l->directed));
    float dir[3] = {l->dir[0] * d0, l->dir[1] * d0, l->dir[2] * d0};
    int any = 0;
    for (int k = 0; k < v->num_dlights; k++) {
        const struct r_dlight *dl = &v->dlights[k];
        if (!(dl->color[0] > 0 || dl->color[1] > 0 || dl->color[2] > 0))
            continue;
        float to[3] = {dl->origin[0] - p[0], dl->origin[1] - p[1], dl->origin[2] - p[2]};
        float d = sqrtf(dot3(to, to));
        if (!isfinite(d))
            continue;
        for (int j = 0; d > 0 && j < 3; j++)
            to[j] /= d;
        d = d < 16 ? 16 : d;
        float w = 16 * dl->radius * dl->radius / (d * d);
        for (int j = 0; j < 3; j++) {
            l->directed[j] += w * dl->color[j];
            dir[j] += w * to[j];
        }
        any = 1;
    }
    float len = sqrtf(dot3(dir, dir));
    if (any && len > 1e-6f && isfinite(len))
        for (int j = 0; j < 3; j++)
            l->dir[j] = dir[j] / len;
}

/* A vertex with world normal n under l: ambient + directed times the cosine, clamped. */
static uint32_t diffuse(const md3_light *l, const float n[3])
{
    float c = dot3(n, l->dir);
    unsigned rgb[3];
    for (int k = 0; k < 3; k++) {
        float x = l->ambient[k] + (c > 0 ? c * l->directed[k] : 0);
        rgb[k] = x >= 255 ? 255 : x > 0 ? (unsigned)x : 0;
    }
    return rast_rgb(rgb[0], rgb[1], rgb[2]);
}

/* A colour times a light colour (channels / 255): the flat modes' shade of a surface. */
static uint32_t modulate(uint32_t c, uint32_t l)
{
    uint32_t out = 0xff000000u;
    for (int s = 0; s < 24; s += 8)
        out |= ((c >> s & 255) * (l >> s & 255) / 255) << s;
    return out;
}

/* ---- one mesh ---- */

/* A triangle whose corners (screen positions sp, all in front of the camera) cover less
 * than TINY_AREA pixels: its texture cannot show, so it is filled with the image's mean
 * colour under its light, which costs a fraction of a textured fill (distant players). */
#define TINY_AREA 2.0f
static int tiny(const rast_vert *sp, const uint8_t *code, const uint32_t *ix)
{
    if ((code[ix[0]] | code[ix[1]] | code[ix[2]]) & R_VERT_BEHIND)
        return 0;
    const rast_vert *a = &sp[ix[0]], *b = &sp[ix[1]], *c = &sp[ix[2]];
    float area = ((b->x - a->x) * (c->y - a->y) - (c->x - a->x) * (b->y - a->y)) * 0.5f;
    return fabsf(area) < TINY_AREA;
}

/* Mesh rm placed by p, between frames f0 and f1 (lerp 0..1 towards f1), lit by l; with shell
 * >= 0 every surface takes that material instead (textured passes only). Each vertex moves
 * along its normal by its material's deformVertexes wave. */
static void mesh_pass(r_view *v, const r_assets *a, const r_model *rm, const r_place *p,
                      uint32_t f0, uint32_t f1, float lerp, const md3_light *l, int32_t shell);

static void draw_mesh(r_view *v, const r_assets *a, const r_model *rm, const r_place *p,
                      uint32_t f0, uint32_t f1, float lerp, const md3_light *l)
{
    mesh_pass(v, a, rm, p, f0, f1, lerp, l, -1);
}

/* The shells of a player's powerups (CL_SHELL_*), in draw_mesh_fx's fx above the CL_FX_*
 * bits, with the regeneration shell's blink at demo time t already applied. */
#define FX_SHELLS_SHIFT 16

/* 1 when entity num is the live body of s's player (Quake III: its client's entity), whose
 * turn and shells the client keeps in the player's slot; a corpse (a body-queue entity with
 * the same player) has its own, drawn from its state. */
static int live_body(const r_view *v, const cl_entstate *s, int num)
{
    return v->cl && v->cl->level.game == CL_GAME_Q3 && s->player > 0 &&
           s->player <= CL_MAX_PLAYERS && num >= 0 && num == v->cl->players[s->player - 1].entity;
}

static unsigned player_shells(const r_view *v, const cl_entstate *s, int num, double t)
{
    if (!live_body(v, s, num))
        return 0;
    unsigned sh = v->cl->players[s->player - 1].shells;
    /* CG_AddRefEntityWithPowerups: the regeneration shell when (cg.time / 100) % 10 == 1 */
    double tenths = floor(t * 10);
    if ((sh & CL_SHELL_REGEN) && !(tenths >= 0 && fmod(tenths, 10) == 1))
        sh &= ~(unsigned)CL_SHELL_REGEN;
    return sh << FX_SHELLS_SHIFT;
}

/* cg_players.c CG_AddRefEntityWithPowerups (and cg_weapons.c's for the weapon): a body with
 * quad damage is drawn again with the quad shader, with the battle suit with its shell, and
 * with regeneration with its shell for 100 ms of each second; an invisible one only as its
 * shell (OpenArena's powerups/invisibility is a blend at 3 % alpha, which qdemo's shells
 * cannot fade: it draws nothing there). */
static void draw_mesh_fx(r_view *v, const r_assets *a, const r_model *rm, const r_place *p,
                         uint32_t f0, uint32_t f1, float lerp, const md3_light *l, unsigned fx)
{
    unsigned shells = fx >> FX_SHELLS_SHIFT;
    if (shells & CL_SHELL_INVIS)
        return;
    mesh_pass(v, a, rm, p, f0, f1, lerp, l, -1);
    if (v->pass != R_PASS_TEXTURED)
        return;
    int32_t quad = fx & CL_FX_GLOW_BLUE ? r_q3_quad_mat(a) : -1;
    if (quad >= 0)
        mesh_pass(v, a, rm, p, f0, f1, lerp, l, quad);
    static const unsigned bit[2] = {CL_SHELL_BATTLESUIT, CL_SHELL_REGEN};
    for (int k = 0; k < 2; k++) {
        int32_t m = shells & bit[k] ? r_q3_shell_mat(a, k) : -1;
        if (m >= 0)
            mesh_pass(v, a, rm, p, f0, f1, lerp, l, m);
    }
}

/* ioquake3's R_ComputeLOD (tr_mesh.c, with ProjectRadius; facts only): the radius of the
 * frame's bounds (RadiusFromBounds) projected at the placed origin's distance along the
 * view, as a fraction of the half screen height (at most 1; 0 at or behind the eye, which
 * keeps level 0: the view weapon), gives flod = 1 - radius x r_lodscale (5, the default),
 * times the number of levels, truncated, within 0..levels-1 (r_lodbias 0). Tags are always
 * read from level 0 (R_LerpTag), as r_md3_on_tag does. (r_local.h) */
#define LOD_SCALE 5.0f
int r_md3_lod(const r_view *v, const r_model *rm, const r_place *p, uint32_t frame)
{
    const mdl_md3 *m = rm->md3;
    int levels = 1 + (rm->lod[0] != NULL) + (rm->lod[0] && rm->lod[1]);
    if (levels == 1 || frame >= m->num_frames || !(v->tan_y > 0))
        return 0;
    const mdl_md3_frame *fr = &m->frames[frame];
    float a[3], rel[3];
    for (int j = 0; j < 3; j++) {
        float lo = fabsf(fr->mins[j]), hi = fabsf(fr->maxs[j]);
        a[j] = lo > hi ? lo : hi;
        rel[j] = p->origin[j] - v->org[j];
    }
    float radius = sqrtf(dot3(a, a)), dist = dot3(v->fwd, rel), flod = 0;
    if (dist > 0) {
        float pr = radius / (dist * v->tan_y);
        flod = 1.0f - (pr < 1.0f ? pr : 1.0f) * LOD_SCALE;
    }
    flod *= (float)levels;
    return flod > 0 && flod < (float)levels ? (int)flod : flod > 0 ? levels - 1 : 0;
}

/* 1 when surface s of frames f0..f1 at lerp, placed by p, lies wholly above or below v's
 * band (r_outside_band): the corners of its two frames' boxes placed as its vertices are
 * (place_point is affine, so they hold every vertex between the frames). Never for a
 * material whose deformVertexes moves vertices off the boxes, an autosprite one (its quads
 * are drawn as squares facing the eye: one seen edge-on spans rows its corners do not; a
 * rocket's flare on a bot of oa_bases3 lost a row of 1920x1080 pixels to a band boundary
 * there, 2026-12-02), or a lerp outside 0..1. */
static int surface_outside_band(const r_view *v, const r_assets *a, const r_place *p,
                                const mdl_md3_surface *s, uint32_t f0, uint32_t f1,
                                float lerp, int32_t mat)
{
    if ((v->y0 <= 0 && v->y1 >= v->fb->h) || !s->box || !(lerp >= 0 && lerp <= 1) ||
        r_q3_mat_deforms(a, mat) || r_q3_mat_autosprite(a, mat))
        return 0; /* the whole frame, or not sure */
    float lo[3], hi[3], corner[8][3];
    for (int j = 0; j < 3; j++) {
        lo[j] = fminf(s->box[f0][0][j], s->box[f1][0][j]);
        hi[j] = fmaxf(s->box[f0][1][j], s->box[f1][1][j]);
    }
    for (int k = 0; k < 8; k++) {
        const float c[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]};
        place_point(p, c, corner[k]);
    }
    return r_outside_band(v, (const float(*)[3])corner, 8);
}

/* ioq3 tr_shade_calc.c AutospriteDeform on a model's surface (facts only): each four
 * vertices in turn a quad, drawn as a square about their middle facing the eye
 * (r_q3_autosprite), half-side the first corner's distance from the middle x 0.707 in the
 * model's own units (the scale of its axes taken back out: nonNormalizedAxes), white (the
 * stage's rgbGen identity). The rocket's flare (rocket.md3's rocketFlare) is one. A last part
 * quad, which the game reads past its vertices for, is not drawn. */
static void autosprite_quads(r_view *v, int32_t mat, const r_place *p, const float (*w)[3],
                             uint32_t nv)
{
    float scale = sqrtf(dot3(p->axis[0], p->axis[0]));
    scale = scale > 1e-6f && isfinite(scale) ? scale : 1;
    for (uint32_t i = 0; i + 4 <= nv; i += 4) {
        float mid[3], d[3];
        for (int j = 0; j < 3; j++) {
            mid[j] = (w[i][j] + w[i + 1][j] + w[i + 2][j] + w[i + 3][j]) * 0.25f;
            d[j] = w[i][j] - mid[j];
        }
        float radius = sqrtf(dot3(d, d)) * 0.707f / scale;
        if (radius > 0 && isfinite(radius))
            r_q3_autosprite(v, mat, mid, radius, 0xffffffffu);
    }
}

void r_md3_env_eye(const r_place *p, const float org[3], float eye[3])
{
    float len0 = sqrtf(dot3(p->axis[0], p->axis[0]));
    float rel[3] = {org[0] - p->origin[0], org[1] - p->origin[1], org[2] - p->origin[2]};
    for (int j = 0; j < 3; j++)
        eye[j] = len0 > 0 && isfinite(len0) ? dot3(rel, p->axis[j]) / len0 : 0;
}

void r_md3_env_st(const float eye[3], const float q[3], const float n[3], float st[2])
{
    float nl = sqrtf(dot3(n, n)), d[3] = {eye[0] - q[0], eye[1] - q[1], eye[2] - q[2]}, u[3];
    float dl = sqrtf(dot3(d, d));
    for (int j = 0; j < 3; j++) {
        u[j] = nl > 0 ? n[j] / nl : 0;
        d[j] = dl > 0 ? d[j] / dl : 0;
    }
    float nd = dot3(u, d);
    st[0] = 0.5f + (2 * nd * u[1] - d[1]) * 0.5f;
    st[1] = 0.5f - (2 * nd * u[2] - d[2]) * 0.5f;
}

/* Four of a mesh's vertices posed (mesh_pass): each one's position and normal lerped
 * between the frames (model space, [axis][vertex]) and its normal turned to the world and
 * made unit. */
typedef struct pose4 {
    float q[3][4], n[3][4], wn[3][4];
} pose4;

/* A mesh's frames at a lerp, placed, and its normals' rotation (the placement's axes made
 * unit). */
typedef struct posing {
    const float (*x0)[3], (*x1)[3], (*n0)[3], (*n1)[3];
    float lerp;
    const r_place *p;
    float rot[3][3];
} posing;

/* Vertex i posed into lane k of out, placed into w. */
static void pose_one(const posing *ps, uint32_t i, int k, float w[3], pose4 *out)
{
    float q[3], n[3], wn[3];
    for (int j = 0; j < 3; j++) {
        q[j] = ps->x0[i][j] + (ps->x1[i][j] - ps->x0[i][j]) * ps->lerp;
        n[j] = ps->n0[i][j] + (ps->n1[i][j] - ps->n0[i][j]) * ps->lerp;
    }
    place_point(ps->p, q, w);
    for (int j = 0; j < 3; j++)
        wn[j] = n[0] * ps->rot[0][j] + n[1] * ps->rot[1][j] + n[2] * ps->rot[2][j];
    float len = sqrtf(dot3(wn, wn));
    for (int j = 0; len > 0 && j < 3; j++)
        wn[j] /= len;
    for (int j = 0; j < 3; j++) {
        out->q[j][k] = q[j];
        out->n[j][k] = n[j];
        out->wn[j][k] = wn[j];
    }
}

#if defined(__SSE2__)
/* Four float[3] in a row as their x, y and z. */
static inline void load3x4(const float *m, __m128 out[3])
{
    __m128 a = _mm_loadu_ps(m), b = _mm_loadu_ps(m + 4), c = _mm_loadu_ps(m + 8);
    __m128 xy23 = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 1, 3, 2));
    __m128 yz01 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1));
    out[0] = _mm_shuffle_ps(a, xy23, _MM_SHUFFLE(2, 0, 3, 0));
    out[1] = _mm_shuffle_ps(yz01, xy23, _MM_SHUFFLE(3, 1, 2, 0));
    out[2] = _mm_shuffle_ps(yz01, c, _MM_SHUFFLE(3, 0, 3, 1));
}

/* load3x4 undone. */
static inline void store3x4(float *m, const __m128 v[3])
{
    __m128 xy01 = _mm_unpacklo_ps(v[0], v[1]), xy23 = _mm_unpackhi_ps(v[0], v[1]);
    __m128 z0x1 = _mm_shuffle_ps(v[2], v[0], _MM_SHUFFLE(1, 1, 0, 0));
    __m128 y1z1 = _mm_shuffle_ps(v[1], v[2], _MM_SHUFFLE(1, 1, 1, 1));
    __m128 z2x3 = _mm_shuffle_ps(v[2], v[0], _MM_SHUFFLE(3, 3, 2, 2));
    __m128 y3z3 = _mm_shuffle_ps(v[1], v[2], _MM_SHUFFLE(3, 3, 3, 3));
    _mm_storeu_ps(m, _mm_shuffle_ps(xy01, z0x1, _MM_SHUFFLE(2, 0, 1, 0)));
    _mm_storeu_ps(m + 4, _mm_shuffle_ps(y1z1, xy23, _MM_SHUFFLE(1, 0, 2, 0)));
    _mm_storeu_ps(m + 8, _mm_shuffle_ps(z2x3, y3z3, _MM_SHUFFLE(2, 0, 2, 0)));
}

/* b where mask, else a. */
static inline __m128 pick(__m128 mask, __m128 b, __m128 a)
{
    return _mm_or_ps(_mm_and_ps(mask, b), _mm_andnot_ps(mask, a));
}

/* pose_one of vertices i..i+3 (w their four rows), each lane the same operations in the same
 * order (SSE rounds each as the scalar code: no contraction; square root and division
 * exact). */
static void pose_four(const posing *ps, uint32_t i, float (*w)[3], pose4 *out)
{
    const __m128 lerp = _mm_set1_ps(ps->lerp);
    __m128 a[3], b[3], q[3], n[3], x[3], wn[3];
    load3x4(ps->x0[i], a);
    load3x4(ps->x1[i], b);
    for (int j = 0; j < 3; j++)
        q[j] = _mm_add_ps(a[j], _mm_mul_ps(_mm_sub_ps(b[j], a[j]), lerp));
    load3x4(ps->n0[i], a);
    load3x4(ps->n1[i], b);
    for (int j = 0; j < 3; j++)
        n[j] = _mm_add_ps(a[j], _mm_mul_ps(_mm_sub_ps(b[j], a[j]), lerp));
    const r_place *p = ps->p;
    for (int j = 0; j < 3; j++) {
        x[j] = _mm_add_ps(_mm_set1_ps(p->origin[j]), _mm_mul_ps(q[0], _mm_set1_ps(p->axis[0][j])));
        x[j] = _mm_add_ps(x[j], _mm_mul_ps(q[1], _mm_set1_ps(p->axis[1][j])));
        x[j] = _mm_add_ps(x[j], _mm_mul_ps(q[2], _mm_set1_ps(p->axis[2][j])));
        wn[j] = _mm_add_ps(_mm_mul_ps(n[0], _mm_set1_ps(ps->rot[0][j])),
                           _mm_mul_ps(n[1], _mm_set1_ps(ps->rot[1][j])));
        wn[j] = _mm_add_ps(wn[j], _mm_mul_ps(n[2], _mm_set1_ps(ps->rot[2][j])));
    }
    store3x4(w[i], x);
    __m128 len = _mm_sqrt_ps(_mm_add_ps(
        _mm_add_ps(_mm_mul_ps(wn[0], wn[0]), _mm_mul_ps(wn[1], wn[1])), _mm_mul_ps(wn[2], wn[2])));
    __m128 some = _mm_cmpgt_ps(len, _mm_setzero_ps());
    for (int j = 0; j < 3; j++) {
        wn[j] = pick(some, _mm_div_ps(wn[j], len), wn[j]);
        _mm_storeu_ps(out->q[j], q[j]);
        _mm_storeu_ps(out->n[j], n[j]);
        _mm_storeu_ps(out->wn[j], wn[j]);
    }
}

/* r_md3_env_st of the four vertices of ps into st, lane by lane as it works. */
static void env_st_four(const float eye[3], const pose4 *ps, float (*st)[2])
{
    const __m128 zero = _mm_setzero_ps(), half = _mm_set1_ps(0.5f);
    __m128 n[3], d[3];
    for (int j = 0; j < 3; j++) {
        n[j] = _mm_loadu_ps(ps->n[j]);
        d[j] = _mm_sub_ps(_mm_set1_ps(eye[j]), _mm_loadu_ps(ps->q[j]));
    }
    __m128 nl = _mm_sqrt_ps(_mm_add_ps(
        _mm_add_ps(_mm_mul_ps(n[0], n[0]), _mm_mul_ps(n[1], n[1])), _mm_mul_ps(n[2], n[2])));
    __m128 dl = _mm_sqrt_ps(_mm_add_ps(
        _mm_add_ps(_mm_mul_ps(d[0], d[0]), _mm_mul_ps(d[1], d[1])), _mm_mul_ps(d[2], d[2])));
    __m128 nsome = _mm_cmpgt_ps(nl, zero), dsome = _mm_cmpgt_ps(dl, zero);
    for (int j = 0; j < 3; j++) {
        n[j] = _mm_and_ps(nsome, _mm_div_ps(n[j], nl));
        d[j] = _mm_and_ps(dsome, _mm_div_ps(d[j], dl));
    }
    __m128 nd = _mm_add_ps(_mm_add_ps(_mm_mul_ps(n[0], d[0]), _mm_mul_ps(n[1], d[1])),
                           _mm_mul_ps(n[2], d[2]));
    __m128 nd2 = _mm_mul_ps(_mm_set1_ps(2), nd);
    __m128 s = _mm_add_ps(half, _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(nd2, n[1]), d[1]), half));
    __m128 t = _mm_sub_ps(half, _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(nd2, n[2]), d[2]), half));
    _mm_storeu_ps(st[0], _mm_unpacklo_ps(s, t));
    _mm_storeu_ps(st[2], _mm_unpackhi_ps(s, t));
}

/* diffuse of the four vertices of at into col, lane by lane as it works. */
static void diffuse_four(const md3_light *l, const pose4 *at, uint32_t *col)
{
    const __m128 zero = _mm_setzero_ps(), top = _mm_set1_ps(255);
    __m128 n[3];
    for (int j = 0; j < 3; j++)
        n[j] = _mm_loadu_ps(at->wn[j]);
    __m128 c = _mm_add_ps(_mm_add_ps(_mm_mul_ps(n[0], _mm_set1_ps(l->dir[0])),
                                     _mm_mul_ps(n[1], _mm_set1_ps(l->dir[1]))),
                          _mm_mul_ps(n[2], _mm_set1_ps(l->dir[2])));
    __m128 lit = _mm_cmpgt_ps(c, zero);
    __m128i rgb = _mm_set1_epi32((int)0xff000000u);
    for (int k = 0; k < 3; k++) {
        __m128 x = _mm_add_ps(_mm_set1_ps(l->ambient[k]),
                              _mm_and_ps(lit, _mm_mul_ps(c, _mm_set1_ps(l->directed[k]))));
        __m128i full = _mm_castps_si128(_mm_cmpge_ps(x, top)),
                some = _mm_castps_si128(_mm_cmpgt_ps(x, zero));
        __m128i part = _mm_and_si128(some, _mm_cvttps_epi32(x)); /* (truncated, as (unsigned)) */
        __m128i ch = _mm_or_si128(_mm_and_si128(full, _mm_set1_epi32(255)),
                                  _mm_andnot_si128(full, part));
        rgb = _mm_or_si128(rgb, _mm_slli_epi32(ch, 8 * k));
    }
    _mm_storeu_si128((__m128i *)col, rgb);
}
#endif

/* Vertices i..i+k-1 (k 1..4) posed into at's lanes, placed into w and lit by l into col;
 * with est, their environment st (r_md3_env_st, seen from eye) too. */
static void pose(const posing *ps, uint32_t i, uint32_t k, float (*w)[3], pose4 *at,
                 const md3_light *l, uint32_t *col, const float eye[3], float (*est)[2])
{
#if defined(__SSE2__)
    if (k == 4) {
        pose_four(ps, i, w, at);
        diffuse_four(l, at, col + i);
        if (est)
            env_st_four(eye, at, est + i);
        return;
    }
#endif
    for (uint32_t j = 0; j < k; j++) {
        pose_one(ps, i + j, (int)j, w[i + j], at);
        const float q[3] = {at->q[0][j], at->q[1][j], at->q[2][j]},
                    n[3] = {at->n[0][j], at->n[1][j], at->n[2][j]},
                    wn[3] = {at->wn[0][j], at->wn[1][j], at->wn[2][j]};
        col[i + j] = diffuse(l, wn);
        if (est)
            r_md3_env_st(eye, q, n, est[i + j]);
    }
}

/* 1 when a surface whose vertices v projected into sp (codes code, nv of them) would draw
 * no pixel in v's rows, being wholly behind what is drawn there (a body behind a wall or a
 * nearer body): every vertex inside the guard band, so that each of its fills (a layer's,
 * a fog's, a flat one) is its triangle's corners as projected here, at a depth raised by
 * R_LAYER_ZREL at most over a layer (v's own zrel and zbias 0); a fill's pixels lie in its
 * corners' box and keep to its highest corner's depth (rast.c poly_draw), so where each
 * pixel of the box of all the corners holds one at least that of the highest corner
 * raised so, none passes the depth test: the same bytes, as r_box_hidden's Quake models.
 * 0 outside the textured pass, in x-ray, and when r_cull_hidden is 0. */
static int surface_hidden(const r_view *v, const rast_vert *sp, const uint8_t *code,
                          uint32_t nv)
{
    rast_fb *fb = v->fb;
    if (!r_cull_hidden || !fb || v->pass != R_PASS_TEXTURED || v->xray || v->cover ||
        v->zrel != 0 || v->zbias != 0)
        return 0;
    float x0 = sp[0].x, x1 = x0, y0 = sp[0].y, y1 = y0, z = sp[0].z;
    for (uint32_t i = 0; i < nv; i++) {
        if (code[i])
            return 0; /* (clipped, or not seen from the front) */
        x0 = sp[i].x < x0 ? sp[i].x : x0;
        x1 = sp[i].x > x1 ? sp[i].x : x1;
        y0 = sp[i].y < y0 ? sp[i].y : y0;
        y1 = sp[i].y > y1 ? sp[i].y : y1;
        z = sp[i].z > z ? sp[i].z : z;
    }
    /* the pixels whose centres the corners can reach, snapped (a pixel's margin); a
     * layer's depth as r_view.c's project makes it: 1/z + 1/z x R_LAYER_ZREL */
    return r_rect_hidden(v, x0, y0, x1, y1, 1, z + z * R_LAYER_ZREL);
}

static void mesh_pass(r_view *v, const r_assets *a, const r_model *rm, const r_place *p,
                      uint32_t f0, uint32_t f1, float lerp, const md3_light *l, int32_t shell)
{
    int lod = r_md3_lod(v, rm, p, f1);
    const mdl_md3 *m = lod ? rm->lod[lod - 1] : rm->md3;
    const uint32_t *surf = lod ? rm->lod_surf[lod - 1] : NULL; /* m's surfaces as md3's */
    f0 = f0 < m->num_frames ? f0 : m->num_frames - 1;
    f1 = f1 < m->num_frames ? f1 : m->num_frames - 1;
    /* the rotation without scale for the normals */
    posing ps = {.lerp = lerp, .p = p};
    for (int i = 0; i < 3; i++) {
        float len = sqrtf(dot3(p->axis[i], p->axis[i]));
        for (int j = 0; j < 3; j++)
            ps.rot[i][j] = len > 0 ? p->axis[i][j] / len : 0;
    }
    for (uint32_t si = 0; si < m->num_surfaces; si++) {
        const mdl_md3_surface *s = &m->surfaces[si];
        int32_t mat = shell >= 0 ? shell : rm->mats ? rm->mats[surf ? surf[si] : si] : -1;
        uint32_t nv = s->num_verts;
        if (!nv || !s->num_tris)
            continue;
        if (v->pass == R_PASS_TEXTURED && surface_outside_band(v, a, p, s, f0, f1, lerp, mat))
            continue; /* another thread's rows: not even posed */
        float(*w)[3] = malloc((size_t)nv * sizeof *w);
        rast_vert *sp = malloc((size_t)nv * sizeof *sp);
        uint32_t *col = malloc((size_t)nv * sizeof *col);
        uint8_t *code = malloc(nv); /* r_view_vert's */
        if (!w || !sp || !col || !code) {
            free(w);
            free(sp);
            free(col);
            free(code);
            return;
        }
        const int deforms = v->pass == R_PASS_TEXTURED && r_q3_mat_deforms(a, mat);
        const int blended = shell < 0 && r_q3_mat_blended(a, mat);
        /* tr_shade_calc.c RB_CalcEnvironmentTexCoords in the model's own space: the eye
         * there (tr_main.c R_RotateForEntity: the offset along each axis over the first
         * axis's length), each vertex's normal */
        float (*est)[2] = v->pass == R_PASS_TEXTURED && r_q3_mat_env(a, mat)
                              ? malloc((size_t)nv * sizeof *est)
                              : NULL;
        float eye[3];
        r_md3_env_eye(p, v->org, eye);
        ps.x0 = s->xyz + (size_t)f0 * nv, ps.x1 = s->xyz + (size_t)f1 * nv;
        ps.n0 = s->normal + (size_t)f0 * nv, ps.n1 = s->normal + (size_t)f1 * nv;
        for (uint32_t i0 = 0; i0 < nv; i0 += 4) {
            const uint32_t four = nv - i0 < 4 ? nv - i0 : 4;
            pose4 at;
            pose(&ps, i0, four, w, &at, l, col, eye, est);
            for (uint32_t k = 0; deforms && k < four; k++) {
                const float q[3] = {at.q[0][k], at.q[1][k], at.q[2][k]},
                            n[3] = {at.n[0][k], at.n[1][k], at.n[2][k]};
                /* the shader's deformVertexes wave along the normal (a flag's cloth waves;
                 * the quad shell stands off the body: OpenArena's by 0.5 units, baseq3's by
                 * 3) */
                float dv = r_q3_mat_deform(a, mat, q, n, v->time);
                for (int j = 0; dv != 0 && j < 3; j++)
                    w[i0 + k][j] += dv * at.wn[j][k];
            }
        }
        r_view_verts(v, (const float(*)[3])w, nv, sp, code);
        const int sprite = v->pass == R_PASS_TEXTURED && r_q3_mat_autosprite(a, mat);
        if (!sprite && surface_hidden(v, sp, code, nv)) {
            free(w);
            free(sp);
            free(col);
            free(code);
            free(est);
            continue; /* (not sent) */
        }
        if (sprite) /* (its quads stand for its triangles) */
            autosprite_quads(v, mat, p, (const float(*)[3])w, nv);
        uint32_t base = r_q3_mat_color(a, mat);
        int both = v->xray || r_q3_mat_twosided(a, mat); /* a flag's cloth: cull disable */
        for (uint32_t t = 0; !sprite && t < s->num_tris; t++) {
            const uint32_t *ix = s->tris[t];
            /* MD3 triangles wind so that (B - A) x (C - A) points inwards, as the maps' do */
            const float *a0 = w[ix[0]], *a1 = w[ix[1]], *a2 = w[ix[2]];
            float e1[3], e2[3], nrm[3], rel[3];
            for (int j = 0; j < 3; j++) {
                e1[j] = a1[j] - a0[j];
                e2[j] = a2[j] - a0[j];
                rel[j] = v->org[j] - a0[j];
            }
            nrm[0] = e1[1] * e2[2] - e1[2] * e2[1];
            nrm[1] = e1[2] * e2[0] - e1[0] * e2[2];
            nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
            if (!both && !(dot3(nrm, rel) < 0))
                continue;
            /* wholly inside and no pixel centre within reach: nothing would be drawn, by its
             * layers or a fill, so none of their set-ups is made (a distant body's small
             * triangles: about a sixth of those over TINY_AREA in a bot match's frames) */
            const int inside = !(code[ix[0]] | code[ix[1]] | code[ix[2]]);
            const rast_vert rv[3] = {sp[ix[0]], sp[ix[1]], sp[ix[2]]};
            if (inside && (v->pass == R_PASS_FLAT || v->pass == R_PASS_TEXTURED) &&
                rast_no_centre(rv, 3)) {
                v->count++; /* (sent, as r_emit_tri_inside would, and drawing nothing) */
                continue;
            }
            float tri[3][3], st[3][2], tst[3][2];
            for (int k = 0; k < 3; k++) {
                memcpy(tri[k], w[ix[k]], sizeof tri[k]);
                memcpy(st[k], s->st[ix[k]], sizeof st[k]);
            }
            uint32_t light[3] = {col[ix[0]], col[ix[1]], col[ix[2]]};
            if (est)
                for (int k = 0; k < 3; k++)
                    memcpy(tst[k], est[ix[k]], sizeof tst[k]);
            v->env = est ? (const float(*)[2])tst : NULL;
            /* (a blended material's tiny triangle too: an opaque fill of its mean colour
             * made a distant health sphere, added light in the game, a brown ball) */
            int drawn = v->pass == R_PASS_TEXTURED &&
                        (!tiny(sp, code, ix) || blended) &&
                        r_q3_model_tri(v, mat, (const float(*)[3])tri, (const float(*)[2])st,
                                       light, 1);
            v->env = NULL;
            if (drawn)
                continue;
            if (shell >= 0 || v->layers == R_LAYERS_BLENDED)
                continue; /* a shell has no flat look; a flat fill is opaque */
            uint32_t fill = rast_twice(modulate(base, col[ix[0]])); /* (the light kept at half) */
            /* wholly inside: as r_emit_poly would draw it, from the points made above */
            if (inside && r_emit_tri_inside(v, rv, fill))
                continue;
            r_emit_poly(v, (const float(*)[3])tri, 3, fill, r_wire_color(base));
        }
        free(w);
        free(sp);
        free(col);
        free(code);
        free(est);
    }
}

/* The md3 of model slot i, or NULL. */
static const r_model *md3_at(const r_assets *a, int i)
{
    return i > 0 && i < a->num_models && a->models[i].kind == R_KIND_MD3 ? &a->models[i]
                                                                          : NULL;
}

int r_md3_on_tag(const mdl_md3 *m, uint32_t f0, uint32_t f1, float lerp, const char *name,
                 const r_place *parent, const float local[3][3], r_place *out)
{
    /* ioq3 R_LerpTag: origins and axes lerped, the axes normalised */
    const mdl_md3_tag *t0 = mdl_md3_tag_at(m, f0, name), *t1 = mdl_md3_tag_at(m, f1, name);
    if (!t0 || !t1)
        return 0;
    float org[3], ax[3][3], tmp[3][3];
    for (int j = 0; j < 3; j++)
        org[j] = t0->origin[j] + (t1->origin[j] - t0->origin[j]) * lerp;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            ax[i][j] = t0->axis[i][j] + (t1->axis[i][j] - t0->axis[i][j]) * lerp;
        float len = sqrtf(dot3(ax[i], ax[i]));
        for (int j = 0; len > 0 && j < 3; j++)
            ax[i][j] /= len;
    }
    place_point(parent, org, out->origin);
    axis_mul(local, ax, tmp);
    axis_mul(tmp, parent->axis, out->axis);
    return 1;
}

/* A body turned as cgame's swing leaves it (cl_player.body, q3_body.c): legs yaw, torso yaw,
 * torso pitch, legs pitch and roll (the lean) in body[], the view's pitch and yaw in view[];
 * each part's own rotation is its angles less its parent's (CG_PlayerAngles'
 * AnglesSubtract). */
static float angle_diff(float a, float b)
{
    float d = fmodf(a - b, 360.0f);
    return d > 180 ? d - 360 : d < -180 ? d + 360 : d;
}

static unsigned body_turned(const mdl_md3 *legs, const mdl_md3 *torso, const r_frames *lf,
                            const r_frames *tf, const float origin[3], const float view[3],
                            const float body[5], r_place out[4])
{
    float pitch = view[0] > 180 ? view[0] - 360 : view[0];
    float yaw_only[3] = {body[3], body[0], body[4]},
          tp[3] = {body[2] - body[3], angle_diff(body[1], body[0]), -body[4]},
          hp[3] = {pitch - body[2], angle_diff(view[1], body[1]), 0};
    float trot[3][3], hrot[3][3], none[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    memcpy(out[0].origin, origin, sizeof out[0].origin);
    angles_axis(yaw_only, out[0].axis);
    angles_axis(tp, trot);
    angles_axis(hp, hrot);
    unsigned got = 1;
    if (!r_md3_on_tag(legs, lf->f0, lf->f1, lf->lerp, "tag_torso", &out[0], trot, &out[1]))
        return got;
    got |= 2;
    if (r_md3_on_tag(torso, tf->f0, tf->f1, tf->lerp, "tag_head", &out[1], hrot, &out[2]))
        got |= 4;
    if (r_md3_on_tag(torso, tf->f0, tf->f1, tf->lerp, "tag_weapon", &out[1], none, &out[3]))
        got |= 8;
    return got;
}

unsigned r_md3_body(const mdl_md3 *legs, const mdl_md3 *torso, const r_frames *lf,
                    const r_frames *tf, const float origin[3], const float angles[3], int dir,
                    r_place out[4])
{
    /* cg_players.c CG_PlayerAngles where the swing has caught up: the legs turn by the
     * movement direction's offset, the torso by a quarter of it, the head looks along the
     * view; the torso takes 3/4 of the pitch, the head the rest */
    static const float offsets[8] = {0, 22, 45, -22, 0, 22, -45, -22};
    float off = dir >= 0 && dir < 8 ? offsets[dir] : 0;
    float pitch = angles[0] > 180 ? angles[0] - 360 : angles[0];
    const float body[5] = {angles[1] + off, angles[1] + 0.25f * off, pitch * 0.75f, 0, 0};
    return body_turned(legs, torso, lf, tf, origin, angles, body, out);
}

/* The turn of s's player at t, between the body's last two swing steps; 0 when there is
 * none (not a Quake III player, or not yet stepped). */
static int body_at(const r_view *v, const cl_entstate *s, int num, double t, float body[5])
{
    if (!live_body(v, s, num))
        return 0;
    const cl_player *p = &v->cl->players[s->player - 1];
    if (!p->body_ok)
        return 0;
    double t0 = p->body_time[0], t1 = p->body_time[1];
    float f = t1 > t0 ? (float)((t - t0) / (t1 - t0)) : 1.0f;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    for (int k = 0; k < 5; k++)
        body[k] = p->body[0][k] + angle_diff(p->body[1][k], p->body[0][k]) * f;
    return 1;
}

/* ---- players ---- */

/* The frames of animation value anim (toggle bit ignored) at elapsed seconds into it; frame 0
 * without animations or for a number past them. */
static void anim_at(const r_model *legs, int anim, double elapsed, r_frames *f)
{
    anim &= ~ANIM_TOGGLE;
    memset(f, 0, sizeof *f);
    if (legs->anims && anim >= 0 && anim < MDL_ANIM_COUNT)
        mdl_anim_frames(&legs->anims[anim], elapsed, &f->f0, &f->f1, &f->lerp);
}

/* cg_weapons.c CG_LightningBolt (facts only): the lightning gun's beam, from the flash's
 * place (from) to where a shot from the muzzle (the eye, eye, 14 units along the view's
 * forward, angles) meets the map or a body within LIGHTNING_RANGE, 768 units (CG_Trace with
 * MASK_SHOT: here the drawn surfaces, r_q3_trace, and every other player's box as drawn at
 * t); drawn as tr_surface.c RB_SurfaceLightningBolt draws RT_LIGHTNING: four quads 16 wide
 * about the beam (DoRailCore: the first across the plane of the eye and the beam's ends,
 * each next turned 45 degrees about it; s along the beam, 1 every 256 units, t across)
 * with the "lightningBoltNew" shader; where it meets something, the crackle model
 * (lightningExplosionModel) 16 units back along it, turned every frame at random (a hash
 * of the time here). */
static void lightning_bolt(r_view *v, const r_assets *a, const float from[3], const float eye[3],
                           const float angles[3], int self, double t)
{
    float ax[3][3], muzzle[3], end[3];
    angles_axis(angles, ax);
    for (int j = 0; j < 3; j++) {
        muzzle[j] = eye[j] + 14 * ax[0][j];
        end[j] = muzzle[j] + 768 * ax[0][j];
    }
    float hit = 768, d;
    uint32_t face;
    if (a->world.bsp && r_q3_trace(a->world.bsp, muzzle, end, &d, &face) && d < hit)
        hit = d;
    const cl_state *cl = v->cl;
    int n = cl->num_entities < CL_MAX_ENTITIES ? cl->num_entities : CL_MAX_ENTITIES;
    for (int i = 1; i < n; i++) { /* the bodies: bg_pmove.c's standing box */
        cl_entstate b;
        if (i == self || !cl->entities[i].active || !(cl->entities[i].cur.flags & CL_EF_PLAYER) ||
            !cl_entity_at(cl, i, t, &b, NULL, NULL))
            continue;
        static const float lo[3] = {-15, -15, -24}, hi[3] = {15, 15, 32};
        float t0 = 0, t1 = hit;
        for (int j = 0; j < 3 && t0 <= t1; j++) {
            float dd = ax[0][j], a0 = b.origin[j] + lo[j] - muzzle[j],
                  a1 = b.origin[j] + hi[j] - muzzle[j];
            if (fabsf(dd) < 1e-9f) {
                if (a0 > 0 || a1 < 0)
                    t1 = -1;
                continue;
            }
            float ta = a0 / dd, tb = a1 / dd;
            t0 = fmaxf(t0, fminf(ta, tb));
            t1 = fminf(t1, fmaxf(ta, tb));
        }
        if (t0 <= t1)
            hit = t0;
    }
    float stop[3], dir[3], v1[3], v2[3], right[3];
    for (int j = 0; j < 3; j++) {
        stop[j] = muzzle[j] + hit * ax[0][j];
        dir[j] = stop[j] - from[j];
        v1[j] = from[j] - v->org[j];
        v2[j] = stop[j] - v->org[j];
    }
    float len = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    int32_t mat = r_q3_fx_mat(a, R_Q3FX_LIGHTNING, 0), more = r_q3_fx_mat(a, R_Q3FX_LIGHTNING, 1);
    right[0] = v1[1] * v2[2] - v1[2] * v2[1];
    right[1] = v1[2] * v2[0] - v1[0] * v2[2];
    right[2] = v1[0] * v2[1] - v1[1] * v2[0];
    float rl = sqrtf(right[0] * right[0] + right[1] * right[1] + right[2] * right[2]);
    if (mat >= 0 && len > 1e-3f && rl > 1e-9f && isfinite(len)) {
        for (int j = 0; j < 3; j++) {
            dir[j] /= len;
            right[j] /= rl;
        }
        const float s1 = len / 256;
        const float st[4][2] = {{0, 0}, {s1, 0}, {s1, 1}, {0, 1}};
        const float c45 = 0.70710678f;
        for (int k = 0; k < 4; k++) {
            float q[4][3];
            for (int j = 0; j < 3; j++) {
                q[0][j] = from[j] + 8 * right[j];
                q[1][j] = stop[j] + 8 * right[j];
                q[2][j] = stop[j] - 8 * right[j];
                q[3][j] = from[j] - 8 * right[j];
            }
            r_q3_quad(v, mat, (const float(*)[3])q, st);
            if (more >= 0)
                r_q3_quad(v, more, (const float(*)[3])q, st);
            /* right turned 45 degrees about the beam (right is across it) */
            float c[3] = {dir[1] * right[2] - dir[2] * right[1], dir[2] * right[0] - dir[0] * right[2],
                          dir[0] * right[1] - dir[1] * right[0]};
            for (int j = 0; j < 3; j++)
                right[j] = right[j] * c45 + c[j] * c45;
        }
    }
    if (hit < 768) {
        const r_model *crackle = md3_at(a, CL_Q3_IMPACT_MODELS + 2);
        if (!crackle || !(len > 1e-3f))
            return;
        uint32_t h = (uint32_t)(int64_t)(t * 1000.0) * 2654435761u ^ (uint32_t)self * 40503u;
        float ang[3] = {(float)(h % 360), (float)(h / 360 % 360), (float)(h / 129600 % 360)};
        r_place cp;
        angles_axis(ang, cp.axis);
        for (int j = 0; j < 3; j++)
            cp.origin[j] = stop[j] - 16 * dir[j];
        md3_light l;
        grid_light(a->world.bsp, cp.origin, &l);
        draw_mesh(v, a, crackle, &cp, 0, 0, 0, &l);
    }
}

/* cg_weapons.c CG_AddPlayerWeapon: the weapon's flash model (slot + CL_FLASH_SLOTS) at its
 * tag_flash while the entity's muzzle flash lasts (a fire event's 20 ms), and all the time
 * the lightning gun fires (EF_FIRING, CL_FX_MUZZLE: cgame draws the flash of the lightning
 * gun, the gauntlet and the grapple while firing), with its beam (lightning_bolt: the shot
 * from eye along angles, the body's view). */
static void draw_flash(r_view *v, const r_assets *a, const cl_entstate *s, int num,
                       const r_model *weapon, const r_place *at, double t, const md3_light *l,
                       const float eye[3], const float angles[3])
{
    const r_model *flash = md3_at(a, s->model2 + CL_FLASH_SLOTS);
    if (!v->cl || num < 0)
        return;
    int lightning = (s->fx & CL_FX_MUZZLE) && a->models[s->model2].kind == R_KIND_MD3 &&
                    strstr(v->cl->level.models[s->model2], "lightning") != NULL;
    int on = lightning;
    const cl_fxev *fx[256];
    int n = on ? 0 : cl_fx_at(v->cl, t, fx, 256);
    for (int i = 0; i < n && !on; i++)
        on = fx[i]->kind == CL_FXK_MUZZLE && fx[i]->entity == num;
    static const float none[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    r_place fp;
    if (!on || !r_md3_on_tag(weapon->md3, 0, 0, 0, "tag_flash", at, none, &fp))
        return;
    if (flash)
        draw_mesh(v, a, flash, &fp, 0, 0, 0, l);
    if (lightning && v->pass == R_PASS_TEXTURED)
        lightning_bolt(v, a, fp.origin, eye, angles, num, t);
}

/* cg_weapons.c CG_MachinegunSpinAngle: a barrel turns at SPIN_SPEED, 0.9 degrees a ms, while
 * its owner fires (EF_FIRING: CL_FX_MUZZLE), made a function of the time; out of fire it
 * stands (cgame lets it coast to a stop over COAST_TIME, 1 s, from the angle where the firing
 * ended, which needs the moment it ended: not kept). */
static float barrel_roll(const cl_entstate *s, double t)
{
    return s->fx & CL_FX_MUZZLE ? (float)fmod(t * 900.0, 360.0) : 0;
}

/* cg_weapons.c CG_AddPlayerWeapon: the weapon's barrel model (slot + CL_BARREL_SLOTS; the
 * machine gun's and the gauntlet's) at its tag_barrel, rolled about its axis. */
static void draw_barrel(r_view *v, const r_assets *a, const cl_entstate *s, int weapon_slot,
                        const r_place *at, double t, const md3_light *l, unsigned fx)
{
    const r_model *weapon = md3_at(a, weapon_slot),
                  *barrel = md3_at(a, weapon_slot + CL_BARREL_SLOTS);
    if (!weapon || !barrel)
        return;
    float roll[3] = {0, 0, barrel_roll(s, t)}, rot[3][3];
    angles_axis(roll, rot);
    r_place bp;
    if (r_md3_on_tag(weapon->md3, 0, 0, 0, "tag_barrel", at, rot, &bp))
        draw_mesh_fx(v, a, barrel, &bp, 0, 0, 0, l, fx); /* CG_AddWeaponWithPowerups */
}

/* cg_players.c CG_TrailItem: a flag carrier's flag (CG_PlayerPowerups: the red or blue flag
 * powerup) is the flag's item model 16 units behind the body and 16 up, turned a quarter
 * left of its yaw. (Models with the flag animations wave a cloth flag from the torso
 * instead, CG_PlayerFlag; every carrier gets the trailing flag here.) */
static void draw_carried_flags(r_view *v, const r_assets *a, const cl_entstate *s,
                               const md3_light *l)
{
    for (int k = 0; k < 2; k++) {
        const r_model *flag = md3_at(a, a->flag_model[k]);
        if (!flag || !(s->fx & (k ? CL_FX_FLAG_BLUE : CL_FX_FLAG_RED)))
            continue;
        float yaw[3] = {0, s->angles[1], 0}, ax[3][3];
        angles_axis(yaw, ax);
        r_place p;
        for (int j = 0; j < 3; j++)
            p.origin[j] = s->origin[j] - 16 * ax[0][j];
        p.origin[2] += 16;
        yaw[1] += 90;
        angles_axis(yaw, p.axis);
        draw_mesh(v, a, flag, &p, 0, 0, 0, l);
    }
}

static void draw_player(r_view *v, const r_assets *a, const cl_entstate *s, int num,
                        int next_frame, double t)
{
    const r_model *legs = md3_at(a, s->model), *torso = md3_at(a, s->model + 1),
                  *head = md3_at(a, s->model + 2);
    if (!legs || !torso || !head) {
        r_draw_missing(v, s);
        return;
    }
    float mins[3], maxs[3];
    for (int j = 0; j < 3; j++) {
        mins[j] = s->origin[j] - PLAYER_RADIUS;
        maxs[j] = s->origin[j] + PLAYER_RADIUS;
    }
    if (!r_box_visible(v, mins, maxs))
        return;
    double since[2] = {t, t};
    if (num >= 0 && v->cl)
        cl_entity_anim_since(v->cl, num, since);
    r_frames lf, tf;
    anim_at(legs, next_frame >= 0 ? next_frame : s->frame, t - since[0], &lf);
    anim_at(legs, s->frame2, t - since[1], &tf);
    r_place p[4];
    float body[5];
    /* (a dead body's legs take no movement offset: CG_PlayerAngles, "don't let dead
     * bodies twitch") */
    unsigned got = body_at(v, s, num, t, body)
                       ? body_turned(legs->md3, torso->md3, &lf, &tf, s->origin, s->angles, body, p)
                       : r_md3_body(legs->md3, torso->md3, &lf, &tf, s->origin, s->angles,
                                    s->flags & CL_EF_DEAD ? 0 : s->skin, p);
    md3_light light;
    grid_light(a->world.bsp, s->origin, &light);
    dlights_on_model(v, s->origin, &light);
    unsigned fx = s->fx | player_shells(v, s, num, t);
    draw_mesh_fx(v, a, legs, &p[0], lf.f0, lf.f1, lf.lerp, &light, fx);
    if (got & 2)
        draw_mesh_fx(v, a, torso, &p[1], tf.f0, tf.f1, tf.lerp, &light, fx);
    if (got & 4)
        draw_mesh_fx(v, a, head, &p[2], 0, 0, 0, &light, fx);
    const r_model *weapon = md3_at(a, s->model2);
    if (weapon && got & 8) {
        draw_mesh_fx(v, a, weapon, &p[3], 0, 0, 0, &light, fx);
        draw_barrel(v, a, s, s->model2, &p[3], t, &light, fx);
        /* CG_LightningBolt's muzzle: the body's view height over its origin, 12 crouched
         * (LEGS_WALKCR, LEGS_IDLECR) or DEFAULT_VIEWHEIGHT 26 */
        int legs_anim = s->frame & ~ANIM_TOGGLE;
        float eye[3] = {s->origin[0], s->origin[1],
                        s->origin[2] + (legs_anim == MDL_ANIM_LEGS_WALKCR ||
                                                legs_anim == MDL_ANIM_LEGS_IDLECR
                                            ? 12
                                            : 26)};
        draw_flash(v, a, s, num, weapon, &p[3], t, &light, eye, s->angles);
    }
    draw_carried_flags(v, a, s, &light);
}

/* ---- items, missiles, map models ---- */

/* A missile's axes: forward along its velocity (the newest trajectory's delta), spun about
 * it by time / 4 degrees. 0 when it does not move. */
static int missile_axis(const r_view *v, int num, double t, float axis[3][3])
{
    const cl_state *cl = v->cl;
    if (!cl || num < 0 || num >= CL_MOTION_ENTITIES || !cl->motion_slot[num] ||
        cl->motion_slot[num] > CL_MAX_MOTION)
        return 0;
    const float *d = cl->motion[cl->motion_slot[num] - 1].pos[1].delta;
    float len = sqrtf(dot3(d, d));
    if (!(len > 1e-3f) || !isfinite(len))
        return 0;
    float f[3] = {d[0] / len, d[1] / len, d[2] / len};
    /* a perpendicular: the axis f is least along, made orthogonal */
    float ref[3] = {0, 0, 0};
    int k = fabsf(f[0]) < fabsf(f[1]) ? (fabsf(f[0]) < fabsf(f[2]) ? 0 : 2)
                                      : (fabsf(f[1]) < fabsf(f[2]) ? 1 : 2);
    ref[k] = 1;
    float dd = dot3(ref, f), r[3], u[3];
    for (int j = 0; j < 3; j++)
        r[j] = ref[j] - dd * f[j];
    float rl = sqrtf(dot3(r, r));
    for (int j = 0; j < 3; j++)
        r[j] /= rl;
    u[0] = f[1] * r[2] - f[2] * r[1];
    u[1] = f[2] * r[0] - f[0] * r[2];
    u[2] = f[0] * r[1] - f[1] * r[0];
    double ang = fmod(t * 1000.0 / 4.0, 360.0) * M_PI / 180;
    float c = (float)cos(ang), sn = (float)sin(ang);
    for (int j = 0; j < 3; j++) {
        axis[0][j] = f[j];
        axis[1][j] = r[j] * c + u[j] * sn;
        axis[2][j] = u[j] * c - r[j] * sn;
    }
    return 1;
}

float r_q3_item_yaw(const cl_entstate *s, double ms)
{
    double turn = s->model2 >= CL_Q3_ITEM_SPHERES && s->model2 < CL_Q3_ITEM_SPHERES + 4
                      ? 1024.0
                      : 2048.0;
    return isfinite(ms) ? (float)(fmod(ms, turn) * 360.0 / turn) : 0;
}

void r_md3_entity(r_view *v, const r_assets *a, const cl_entstate *s, int num, int next_frame,
                  float blend, double t)
{
    const r_model *rm = &a->models[s->model];
    if (s->flags & CL_EF_PLAYER && s->player) {
        draw_player(v, a, s, num, next_frame, t);
        return;
    }
    const mdl_md3 *m = rm->md3;
    uint32_t f0 = s->frame < m->num_frames ? s->frame : 0;
    uint32_t f1 = next_frame >= 0 && (uint32_t)next_frame < m->num_frames ? (uint32_t)next_frame
                                                                          : f0;
    float lerp = blend > 0 ? blend < 1 ? blend : 1 : 0;
    r_place p;
    memcpy(p.origin, s->origin, sizeof p.origin);
    double tm = r_q3_item_ms(v->cl, t);
    float grow = 1; /* (an item growing back: CG_Item's frac) */
    if (s->fx & CL_FX_ROTATE) {
        float spin[3] = {0, r_q3_item_yaw(s, tm), 0};
        angles_axis(spin, p.axis);
        double scale = 0.005 + (num > 0 ? num : 0) * 0.00001;
        p.origin[2] += (float)(4 + cos((tm + 1000) * scale) * 4);
        if (rm->weapon) {
            const mdl_md3_frame *fr = &m->frames[0];
            for (int j = 0; j < 3; j++) {
                float mid = (fr->mins[j] + fr->maxs[j]) * 0.5f;
                for (int k = 0; k < 3; k++)
                    p.origin[k] -= mid * p.axis[j][k];
            }
            p.origin[2] += 8;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    p.axis[i][j] *= ITEM_WEAPON_SCALE;
        }
        /* cg_ents.c CG_Item: "if just respawned, slowly scale up" over ITEM_SCALEUP_TIME
         * (1000 ms) from its EV_ITEM_RESPAWN */
        for (int k = 0; k < v->num_respawns; k++) {
            double age = t - v->respawns[k].t0;
            if (v->respawns[k].entity == num && age >= 0 && age < 1)
                grow = (float)age;
        }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                p.axis[i][j] *= grow;
    } else if (!missile_axis(v, num, t, p.axis)) {
        angles_axis(s->angles, p.axis);
    }
    float r = m->frames[f0].radius > m->frames[f1].radius ? m->frames[f0].radius
                                                          : m->frames[f1].radius;
    r = r * ITEM_WEAPON_SCALE + 8 + sqrtf(dot3(m->frames[f0].origin, m->frames[f0].origin));
    /* cg_ents.c CG_Item: a health item's sphere and a powerup's ring (the decoder's model2),
     * at the bobbing origin, the sphere unturned, the ring 12 units up spinning a turn a
     * 1024 ms of the clock the other way */
    r_place p2 = p;
    const r_model *second = NULL;
    if ((s->fx & CL_FX_ROTATE) && s->model2 >= CL_Q3_ITEM_SPHERES &&
        s->model2 < CL_Q3_ITEM_RINGS + 6 && (second = md3_at(a, s->model2)) != NULL) {
        float spin[3] = {0, 0, 0};
        if (s->model2 >= CL_Q3_ITEM_RINGS) {
            p2.origin[2] += 12;
            spin[1] = (float)((int64_t)floor(tm) & 1023) * 360 / -1024.0f;
        }
        angles_axis(spin, p2.axis);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                p2.axis[i][j] *= grow;
        const mdl_md3_frame *f2 = &second->md3->frames[0];
        float r2 = f2->radius + 8 + sqrtf(dot3(f2->origin, f2->origin)) + 12;
        r = r2 > r ? r2 : r;
    }
    float mins[3], maxs[3];
    for (int j = 0; j < 3; j++) {
        mins[j] = p.origin[j] - r;
        maxs[j] = p.origin[j] + r;
    }
    if (r < 1e6f && !r_box_visible(v, mins, maxs))
        return;
    md3_light light;
    grid_light(a->world.bsp, s->origin, &light);
    dlights_on_model(v, s->origin, &light);
    draw_mesh(v, a, rm, &p, f0, f1, lerp, &light);
    if (second)
        draw_mesh(v, a, second, &p2, 0, 0, 0, &light);
}

void r_q3_sprite_entity(r_view *v, const r_assets *a, const cl_entstate *s)
{
    const r_model *rm = &a->models[s->model];
    const float radius = 16; /* cg_weapons.c CG_Missile: the plasma ball */
    float q[4][3];
    static const float corner[4][2] = {{-1, -1}, {-1, 1}, {1, 1}, {1, -1}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            q[i][j] = s->origin[j] +
                      (v->right[j] * corner[i][0] + v->up[j] * corner[i][1]) * radius;
    int32_t mat = rm->mats ? rm->mats[0] : -1;
    /* texture s runs along right, t down the screen */
    static const float st[4][2] = {{0, 1}, {0, 0}, {1, 0}, {1, 1}};
    if (v->pass == R_PASS_TEXTURED && r_q3_quad(v, mat, (const float(*)[3])q, st))
        return;
    uint32_t c = r_q3_mat_color(a, mat);
    r_emit_poly(v, (const float(*)[3])q, 4, c, r_wire_color(c));
}

void r_md3_effect(r_view *v, const r_assets *a, int slot, const float origin[3],
                  const float axis[3][3], int32_t mat)
{
    const r_model *rm = md3_at(a, slot);
    if (!rm || mat < 0 || rm->md3->num_frames == 0)
        return;
    r_place p;
    memcpy(p.origin, origin, sizeof p.origin);
    memcpy(p.axis, axis, sizeof p.axis);
    md3_light light; /* (the effects' shaders give their own colours) */
    grid_light(a->world.bsp, origin, &light);
    mesh_pass(v, a, rm, &p, 0, 0, 0, &light, mat);
}

void r_md3_model(r_view *v, const r_assets *a, int slot, const float origin[3],
                 const float axis[3][3])
{
    const r_model *rm = md3_at(a, slot);
    if (!rm || rm->md3->num_frames == 0)
        return;
    r_place p;
    memcpy(p.origin, origin, sizeof p.origin);
    memcpy(p.axis, axis, sizeof p.axis);
    md3_light light;
    grid_light(a->world.bsp, origin, &light);
    dlights_on_model(v, origin, &light);
    draw_mesh(v, a, rm, &p, 0, 0, 0, &light);
}

/* cg_weapons.c CG_MapTorsoToWeaponFrame: the hand's frame for torso frame f: the weapon
 * drop's 9 frames from TORSO_DROP's first are hand frames 6..14, the first 6 of either attack
 * 1..6, anything else 0. */
static uint32_t hand_frame(const mdl_anim *an, uint32_t f)
{
    const mdl_anim *drop = &an[MDL_ANIM_TORSO_DROP], *at1 = &an[MDL_ANIM_TORSO_ATTACK],
                   *at2 = &an[MDL_ANIM_TORSO_ATTACK2];
    if (f >= drop->first && f < drop->first + 9)
        return f - drop->first + 6;
    if (f >= at1->first && f < at1->first + 6)
        return 1 + f - at1->first;
    if (f >= at2->first && f < at2->first + 6)
        return 1 + f - at2->first;
    return 0;
}

double r_q3_item_ms(const cl_state *cl, double t)
{
    double g = cl_game_time(cl, t);
    return g > 0 && g < 1e7 ? g * 1000.0 : 0;
}

void r_q3_bob(const cl_state *cl, double t, int *cycle, float *xyspeed)
{
    /* cg_snapshot.c CG_InterpolatePlayerState: the bob cycle between the two playerStates
     * (wrapping at 256), truncated to a whole step; the speed likewise */
    double span = cl->time - cl->prev_time;
    float f = span > 0 ? (float)((t - cl->prev_time) / span) : 1;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    int c0 = cl->prev_view.bob_cycle, c1 = cl->view.bob_cycle;
    *cycle = (int)((float)c0 + f * (float)((c1 < c0 ? c1 + 256 : c1) - c0)) & 255;
    float xy = cl->prev_view.xyspeed + f * (cl->view.xyspeed - cl->prev_view.xyspeed);
    *xyspeed = xy > 0 && xy < 10000 ? xy : 0;
}

void r_md3_view_weapon(r_view *v, const r_assets *a, int model, double t)
{
    const r_model *rm = md3_at(a, model);
    if (!rm)
        return;
    const cl_state *cl = v->cl;
    /* cg_weapons.c CG_CalculateWeaponPosition: the hand at the eye (cg_gun_x/y/z 0) turned
     * with the view, plus the bob (bobCycle's bit 7 picks the leg, which turns roll and yaw
     * the other way; its low 7 bits the phase) and the idle drift of sin(cg.time in s) */
    float ang[3] = {v->angles[0], v->angles[1], v->angles[2]};
    if (cl) {
        int cyc;
        float xy;
        r_q3_bob(cl, t, &cyc, &xy);
        float fracsin = fabsf(sinf((float)(cyc & 127) / 127.0f * (float)M_PI));
        float scale = cyc & 128 ? -xy : xy;
        ang[2] += scale * fracsin * 0.005f;
        ang[1] += scale * fracsin * 0.01f;
        ang[0] += xy * fracsin * 0.005f;
        float drift = (xy + 40) * (float)sin(t) * 0.01f;
        for (int j = 0; j < 3; j++)
            ang[j] += drift;
    }
    r_place hand;
    angles_axis(ang, hand.axis);
    memcpy(hand.origin, v->org, sizeof hand.origin);
    /* the followed body's torso frame picks the hand's (CG_AddViewWeapon), which holds the
     * weapon's recoil and the weapon change; the body's state also says whether it fires */
    cl_entstate s;
    memset(&s, 0, sizeof s);
    int ve = cl ? cl->view.view_entity : 0, nf;
    float blend;
    r_frames hf = {0};
    if (ve > 0 && cl_entity_at(cl, ve, t, &s, &nf, &blend)) {
        const r_model *legs = md3_at(a, s.model);
        if (legs && legs->anims) {
            double since[2] = {t, t};
            cl_entity_anim_since(cl, ve, since);
            r_frames tf;
            anim_at(legs, s.frame2, t - since[1], &tf);
            hf.f0 = hand_frame(legs->anims, tf.f0);
            hf.f1 = hand_frame(legs->anims, tf.f1);
            hf.lerp = tf.lerp;
        }
    } else {
        ve = -1;
    }
    s.model2 = (uint16_t)model;
    const r_model *hm = md3_at(a, model + CL_HAND_SLOTS);
    if (!hm)
        hm = md3_at(a, CL_HAND_FALLBACK); /* CG_RegisterWeapon: the shotgun's hand */
    static const float none[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    r_place p;
    if (!hm || !r_md3_on_tag(hm->md3, hf.f0, hf.f1, hf.lerp, "tag_weapon", &hand, none, &p)) {
        /* no hand model at all: where tag_weapon lies in frame 0 of baseq3's and
         * OpenArena's machinegun_hand.md3, 6.16 forward, 5.83 right, 7.8 down */
        static const float tag[3] = {6.16f, -5.83f, -7.8f};
        p = hand;
        place_point(&hand, tag, p.origin);
    }
    md3_light l;
    grid_light(a->world.bsp, v->org, &l);
    dlights_on_model(v, v->org, &l);
    draw_mesh_fx(v, a, rm, &p, 0, 0, 0, &l, s.fx);
    draw_barrel(v, a, &s, model, &p, t, &l, s.fx);
    draw_flash(v, a, &s, ve, rm, &p, t, &l, v->org, v->angles); /* (the view's own eye) */
}

void r_md3_no_gun_lightning(r_view *v, const r_assets *a, double t)
{
    const cl_state *cl = v->cl;
    int ve = cl ? cl->view.view_entity : 0;
    cl_entstate s;
    if (ve <= 0 || v->pass != R_PASS_TEXTURED || !cl_entity_at(cl, ve, t, &s, NULL, NULL) ||
        !(s.fx & CL_FX_MUZZLE) || !s.model2 || s.model2 >= a->num_models ||
        a->models[s.model2].kind != R_KIND_MD3 ||
        !strstr(cl->level.models[s.model2], "lightning"))
        return; /* (CG_LightningBolt: the lightning gun's only, while it fires) */
    float from[3];
    for (int j = 0; j < 3; j++)
        from[j] = v->org[j] - 8 * v->up[j];
    lightning_bolt(v, a, from, v->org, v->angles, ve, t);
}
