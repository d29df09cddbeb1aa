/* r_entity.c: draws one entity: alias models (interpolated poses, lit from the floor under
 * them), sprites (camera-facing quads), brush models, and wire boxes for missing models. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "r_local.h"

#define EF_ROTATE 8 /* alias model flag: items spin (Quake's CL_RelinkEntities) */

/* The box drawn for a model that is missing: Quake's player hull, 32 x 32 x 56. */
static const float missing_mins[3] = {-16, -16, -24}, missing_maxs[3] = {16, 16, 32};
#define MISSING_COLOR rast_rgb(255, 200, 0)

/* The fixed direction light comes from for alias models (Quake uses a fixed vector too). */
static const float light_dir[3] = {0.6f, 0.2f, 0.7745967f};

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Quake's R_DrawAliasModel lighting: ambient and shade both start at the floor's light
 * (R_LightPoint), ambient capped at 128 and ambient + shade at 192; a vertex gets ambient
 * plus shade times the cosine to the light. */
static void alias_light(const r_assets *a, const float origin[3], float *ambient, float *shade)
{
    float l = 128;
    if (a && a->world.bsp)
        mdl_bsp_light_point(a->world.bsp, origin, &l);
    if (l < 8)
        l = 8; /* players never go totally black */
    *ambient = l > 128 ? 128 : l;
    *shade = l + *ambient > 192 ? 192 - *ambient : l;
}

static void draw_alias(r_view *v, const r_assets *a, const mdl_alias *m, const cl_entstate *s,
                       int next_frame, float blend, double t)
{
    float angles[3] = {s->angles[0], s->angles[1], s->angles[2]};
    if (m->flags & EF_ROTATE)
        angles[1] = (float)fmod(100.0 * t, 360.0);
    float scale = s->scale ? s->scale / 16.0f : 1.0f;
    uint32_t f0 = s->frame < m->num_frames ? s->frame : 0;
    uint32_t f1 =
        next_frame >= 0 && (uint32_t)next_frame < m->num_frames ? (uint32_t)next_frame : f0;
    /* Cull by a sphere holding both frames' boxes, whatever the rotation. */
    float r2 = 0;
    for (int k = 0; k < 2; k++) {
        const mdl_alias_frame *fr = &m->frames[k ? f1 : f0];
        float e2 = 0;
        for (int j = 0; j < 3; j++) {
            float lo = fabsf(fr->mins[j]), hi = fabsf(fr->maxs[j]);
            e2 += (lo > hi ? lo : hi) * (lo > hi ? lo : hi);
        }
        r2 = e2 > r2 ? e2 : r2;
    }
    float r = sqrtf(r2) * scale + 1;
    float mins[3], maxs[3];
    for (int j = 0; j < 3; j++) {
        mins[j] = s->origin[j] - r;
        maxs[j] = s->origin[j] + r;
    }
    if (r < 1e6f && !r_box_visible(v, mins, maxs))
        return;
    r_xform x;
    r_xform_setup(&x, s->origin, angles, scale);

    if (!(blend > 0))
        blend = 0;
    if (blend > 1)
        blend = 1;
    const float(*p0)[3] = m->poses + (size_t)m->frames[f0].first_pose * m->num_verts;
    const float(*p1)[3] = m->poses + (size_t)m->frames[f1].first_pose * m->num_verts;
    float(*w)[3] = malloc((size_t)m->num_verts * sizeof *w);
    if (!w)
        return;
    for (uint32_t i = 0; i < m->num_verts; i++) {
        float p[3];
        for (int j = 0; j < 3; j++)
            p[j] = p0[i][j] + (p1[i][j] - p0[i][j]) * blend;
        r_xform_point(&x, p, w[i]);
    }
    uint32_t base = s->skin < m->num_skins ? m->skin_colors[s->skin] : m->color;
    uint32_t wire = r_wire_color(base);
    float ambient, shade;
    alias_light(a, s->origin, &ambient, &shade);
    for (uint32_t i = 0; i < m->num_tris; i++) {
        const float *A = w[m->tris[i].v[0]], *B = w[m->tris[i].v[1]], *C = w[m->tris[i].v[2]];
        /* MDL triangles wind clockwise seen from outside: the outward normal is CA x BA. */
        float e1[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
        float e2[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        float rel[3] = {v->org[0] - A[0], v->org[1] - A[1], v->org[2] - A[2]};
        if (!v->xray && !(dot3(n, rel) > 0))
            continue;
        float len = sqrtf(dot3(n, n));
        float c = len > 0 ? dot3(n, light_dir) / len : 0;
        float tri[3][3];
        memcpy(tri[0], A, sizeof tri[0]);
        memcpy(tri[1], B, sizeof tri[1]);
        memcpy(tri[2], C, sizeof tri[2]);
        r_emit_poly(v, (const float(*)[3])tri, 3, r_shade(base, ambient + shade * (c > 0 ? c : 0)),
                    wire);
    }
    free(w);
}

/* Quake's R_DrawSprite: the quad's right and up vectors by sprite type. */
static void draw_sprite(r_view *v, const mdl_sprite *sp, const cl_entstate *s)
{
    const mdl_sprite_frame *f = &sp->frames[s->frame < sp->num_frames ? s->frame : 0];
    float scale = s->scale ? s->scale / 16.0f : 1.0f;
    float right[3], up[3];
    switch (sp->type) {
    case MDL_SPR_VP_PARALLEL_UPRIGHT:
    case MDL_SPR_FACING_UPRIGHT: {
        float d[2];
        if (sp->type == MDL_SPR_FACING_UPRIGHT) {
            d[0] = s->origin[0] - v->org[0];
            d[1] = s->origin[1] - v->org[1];
        } else {
            d[0] = v->fwd[0];
            d[1] = v->fwd[1];
        }
        float l = sqrtf(d[0] * d[0] + d[1] * d[1]);
        if (!(l > 0))
            return;
        right[0] = d[1] / l;
        right[1] = -d[0] / l;
        right[2] = 0;
        up[0] = up[1] = 0;
        up[2] = 1;
        break;
    }
    case MDL_SPR_ORIENTED: {
        float fwd[3];
        r_angle_vectors(s->angles, fwd, right, up);
        break;
    }
    default:
        memcpy(right, v->right, sizeof right);
        memcpy(up, v->up, sizeof up);
        break;
    }
    const float corners[4][2] = {
        {f->left, f->down}, {f->left, f->up}, {f->right, f->up}, {f->right, f->down}};
    float q[4][3];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            q[i][j] = s->origin[j] + (right[j] * corners[i][0] + up[j] * corners[i][1]) * scale;
    r_emit_poly(v, (const float(*)[3])q, 4, f->color, r_wire_color(f->color));
}

static void draw_missing(r_view *v, const cl_entstate *s)
{
    float yaw[3] = {0, s->angles[1], 0};
    r_xform x;
    r_xform_setup(&x, s->origin, yaw, 1.0f);
    r_draw_box(v, &x, missing_mins, missing_maxs, MISSING_COLOR);
}

void r_draw_entity(r_view *v, const r_assets *a, const cl_entstate *s, int next_frame,
                   float blend, double t)
{
    if (s->model == 0)
        return;
    if (!a || s->model >= a->num_models) {
        draw_missing(v, s);
        return;
    }
    const r_model *m = &a->models[s->model];
    float scale = s->scale ? s->scale / 16.0f : 1.0f;
    r_xform x;
    switch (m->kind) {
    case R_KIND_WORLD:
        return;
    case R_KIND_SUBMODEL:
        r_xform_setup(&x, s->origin, s->angles, scale);
        r_draw_brush(v, &a->world, &a->world.bsp->models[m->sub], &x, s->frame);
        return;
    case R_KIND_BRUSH:
        r_xform_setup(&x, s->origin, s->angles, scale);
        r_draw_brush(v, &m->brush, &m->brush.bsp->models[0], &x, s->frame);
        return;
    case R_KIND_ALIAS:
        draw_alias(v, a, m->alias, s, next_frame, blend, t);
        return;
    case R_KIND_SPRITE:
        draw_sprite(v, m->sprite, s);
        return;
    default:
        draw_missing(v, s);
        return;
    }
}
