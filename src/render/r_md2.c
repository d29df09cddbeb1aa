/* r_md2.c: Quake II models (MD2) drawn: frames lerped, textured from their 8-bit PCX skins
 * through a light lookup made from the skin's own palette, lit as Quake models are (the
 * floor's light under the model, r_alias_light: Quake II's R_LightPoint traces the floor the
 * same way); a player's weapon model (modelindex2) drawn with the body at the same frame;
 * translucent, fullbright and shell/glow looks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "r_local.h"

#define SHELL_MIX 128 /* of 256: how far a shell's tint pulls the skin's colours */

void r_lut_from_palette(const uint32_t palette[256], uint32_t lut[64 * 256])
{
    /* row r shows a colour at (255 - 4 r) / 128 of itself: row 32 about as it is, row 0
     * about twice as bright, as Quake's colormap rows run (alias_textured's rows) */
    for (int r = 0; r < 64; r++) {
        int f = 255 - 4 * r;
        for (int i = 0; i < 256; i++) {
            uint32_t c = palette[i], out = 0xff000000u;
            for (int k = 0; k < 24; k += 8) {
                int x = (int)(c >> k & 255) * f / 128;
                out |= (uint32_t)(x > 255 ? 255 : x) << k;
            }
            lut[(size_t)r * 256 + i] = out;
        }
    }
}

const uint32_t *r_lut_look(const uint32_t *lut, const cl_entstate *s, uint32_t **own,
                           unsigned *flags)
{
    *own = NULL;
    *flags = RAST_OPAQUE;
    int alpha = s->alpha && s->alpha < 255 ? s->alpha : 255;
    int glow = s->fx & (CL_FX_GLOW_BLUE | CL_FX_GLOW_RED);
    if (alpha == 255 && !glow)
        return lut;
    uint32_t *l = malloc(64 * 256 * sizeof *l);
    if (!l)
        return lut;
    /* quad's blue, pentagram's red, both: purple (Quake II's RF_SHELL_RED | RF_SHELL_BLUE) */
    unsigned tint[3] = {s->fx & CL_FX_GLOW_RED ? 255u : 48u, 48u,
                        s->fx & CL_FX_GLOW_BLUE ? 255u : 48u};
    for (size_t i = 0; i < 64 * 256; i++) {
        uint32_t c = lut[i], out = (uint32_t)alpha << 24;
        for (int k = 0; k < 3; k++) {
            unsigned x = c >> (8 * k) & 255;
            if (glow)
                x = (x * (256 - SHELL_MIX) + tint[k] * SHELL_MIX) >> 8;
            out |= x << (8 * k);
        }
        l[i] = out;
    }
    if (alpha < 255)
        *flags = RAST_DEPTH_TEST | RAST_COLOR_WRITE | RAST_BLEND;
    *own = l;
    return l;
}

/* The outward normal of an MD2 triangle: they wind as MDL ones. */
static void tri_normal(const float (*w)[3], const mdl_md2_tri *t, float n[3])
{
    r_alias_normal(w[t->v[0]], w[t->v[1]], w[t->v[2]], n);
}

/* Model rm (an R_KIND_MD2) at s's place between frames f0 and f1, with skin number skin. */
static void draw_md2(r_view *v, const r_assets *a, const r_model *rm, const cl_entstate *s,
                     uint32_t f0, uint32_t f1, float blend, uint32_t skin, double t)
{
    const mdl_md2 *m = rm->md2;
    uint32_t nv = m->num_verts;
    f0 = f0 < m->num_frames ? f0 : 0;
    f1 = f1 < m->num_frames ? f1 : f0;
    float scale = s->scale ? s->scale / 16.0f : 1.0f;
    const float(*p0)[3] = m->poses + (size_t)f0 * nv, (*p1)[3] = m->poses + (size_t)f1 * nv;
    /* cull by a sphere around the origin holding both frames */
    float r2 = 0;
    for (uint32_t i = 0; i < nv; i++) {
        float d0 = dot3(p0[i], p0[i]), d1 = dot3(p1[i], p1[i]);
        r2 = d0 > r2 ? d0 : r2;
        r2 = d1 > r2 ? d1 : r2;
    }
    float r = sqrtf(r2) * scale + 1, mins[3], maxs[3];
    for (int j = 0; j < 3; j++) {
        mins[j] = s->origin[j] - r;
        maxs[j] = s->origin[j] + r;
    }
    if (r < 1e6f && !r_box_visible(v, mins, maxs))
        return;
    /* Quake II's R_DrawAliasModel negates the pitch before R_RotateForEntity ("sigh"), so an
     * MD2 pitches the other way round from a Quake model (r_xform_setup's): positive down */
    float angles[3] = {-s->angles[0], s->angles[1], s->angles[2]};
    if (s->fx & CL_FX_ROTATE)
        angles[1] = (float)fmod(100.0 * t, 360.0); /* Q2 EF_ROTATE: 100 degrees/s */
    r_xform x;
    r_xform_setup(&x, s->origin, angles, scale);
    float(*w)[3] = malloc((size_t)nv * sizeof *w);
    float(*nrm)[3] = calloc(nv, sizeof *nrm);
    if (!w || !nrm) {
        free(w);
        free(nrm);
        return;
    }
    for (uint32_t i = 0; i < nv; i++) {
        float p[3];
        mdl_md2_vertex(m, f0, f1, blend, i, p);
        r_xform_point(&x, p, w[i]);
    }
    for (uint32_t i = 0; i < m->num_tris; i++) {
        float n[3];
        tri_normal((const float(*)[3])w, &m->tris[i], n);
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++)
                nrm[m->tris[i].v[k]][j] += n[j];
    }
    float ambient, shade;
    r_alias_light(v, a, s->origin, &ambient, &shade);
    const r_md2skin *sk = NULL;
    if (rm->num_skins) {
        sk = &rm->skins[skin < rm->num_skins ? skin : 0];
        if (!sk->pic)
            sk = &rm->skins[0]; /* a missing skin: the first one, as Quake II does */
        if (!sk->pic)
            sk = NULL;
    }
    uint32_t *own = NULL;
    unsigned flags = RAST_OPAQUE;
    r_skin8 s8 = {0};
    if (v->pass == R_PASS_TEXTURED && sk) {
        s8.pixels = sk->pic->pixels;
        s8.lut = r_lut_look(sk->lut, s, &own, &flags);
        s8.w = (int)sk->pic->w;
        s8.h = (int)sk->pic->h;
    }
    /* texel coordinates: the file's st are in pixels of its header's skin size */
    float su = s8.pixels && m->skin_width ? (float)s8.w / (float)m->skin_width : 1;
    float tu = s8.pixels && m->skin_height ? (float)s8.h / (float)m->skin_height : 1;
    uint32_t base = sk ? sk->color : rast_rgb(110, 110, 110);
    for (uint32_t i = 0; i < m->num_tris; i++) {
        const mdl_md2_tri *tr = &m->tris[i];
        const float *P[3] = {w[tr->v[0]], w[tr->v[1]], w[tr->v[2]]};
        float n[3];
        tri_normal((const float(*)[3])w, tr, n);
        float rel[3] = {v->org[0] - P[0][0], v->org[1] - P[0][1], v->org[2] - P[0][2]};
        if (!v->xray && !(dot3(n, rel) > 0))
            continue;
        float row[3];
        for (int k = 0; k < 3; k++)
            row[k] = s->flags & CL_EF_FULLBRIGHT ? 32.0f
                                                  : r_alias_row(ambient, shade, nrm[tr->v[k]]);
        if (s8.pixels) {
            float sv[3], tv[3];
            for (int k = 0; k < 3; k++) {
                sv[k] = (float)m->st[tr->st[k]][0] * su;
                tv[k] = (float)m->st[tr->st[k]][1] * tu;
            }
            r_skin_tri(v, P, n, sv, tv, row, &s8, flags);
            continue;
        }
        float L = (255.0f - (row[0] + row[1] + row[2]) / 3.0f * 4.0f) / R_LIGHT_GAIN;
        float tri[3][3];
        for (int k = 0; k < 3; k++)
            memcpy(tri[k], P[k], sizeof tri[k]);
        r_emit_poly(v, (const float(*)[3])tri, 3, r_shade(base, L), r_wire_color(base));
    }
    free(own);
    free(w);
    free(nrm);
}

void r_md2_entity(r_view *v, const r_assets *a, const cl_entstate *s, int next_frame,
                  float blend, double t)
{
    if (!(blend > 0))
        blend = 0;
    if (blend > 1)
        blend = 1;
    const r_model *rm = &a->models[s->model];
    uint32_t f1 = next_frame >= 0 ? (uint32_t)next_frame : s->frame;
    /* a player's body (a slot with its own skin) wears skin 0; others pick by number */
    draw_md2(v, a, rm, s, s->frame, f1, blend, rm->own_skin ? 0 : s->skin, t);
    if (s->model2 && s->model2 < a->num_models && a->models[s->model2].kind == R_KIND_MD2)
        draw_md2(v, a, &a->models[s->model2], s, s->frame, f1, blend, 0, t);
}

void r_q2_explosions(r_view *v, const r_assets *a, const cl_state *cl, double t)
{
    if (!cl || !a || cl->level.game != CL_GAME_Q2 ||
        (v->pass != R_PASS_TEXTURED && v->pass != R_PASS_FLAT))
        return;
    const cl_fxev *fx[256];
    int nfx = cl_fx_at(cl, t, fx, 256);
    for (int i = 0; i < nfx; i++) {
        const cl_fxev *e = fx[i];
        /* its model (the decoder's CL_BOOM_*: cl_tent.c CL_ParseTEnt's ex_poly): a
         * rocket's 15 frames from 0 or 15, a grenade's 19 from 30, the big one's r_explode2 */
        int boom = e->kind == CL_FXK_EXPLOSION ? e->style : CL_BOOM_NONE;
        int frames = boom == CL_BOOM_GRENADE ? 19 : 15, base = boom == CL_BOOM_GRENADE ? 30 : 0;
        int slot = boom == CL_BOOM_ROCKET || boom == CL_BOOM_GRENADE ? a->q2_explode[0]
                   : boom == CL_BOOM_BIG                          ? a->q2_explode[1]
                                                                  : 0;
        if (!slot || slot >= a->num_models || a->models[slot].kind != R_KIND_MD2)
            continue;
        /* CL_AddExplosions: frac = (cl.time - start) / 100 ms, the start one frame (100 ms)
         * before the frame that brought it, whose server time is the effect's t0; frame
         * f + 1 of it lerped from f by frac's fraction, gone at f = frames - 1 */
        double frac = (t - e->t0) * 10 + 1;
        int f = (int)floor(frac);
        if (!(frac >= 0) || f >= frames - 1)
            continue;
        /* rand(): a hash of the effect (the yaw, and the rocket's half-and-half pick of
         * frames 0 or 15) */
        uint32_t bits[3];
        memcpy(bits, e->origin, sizeof bits);
        uint32_t h = (uint32_t)(int64_t)(e->t0 * 1000.0) * 2654435761u ^ bits[0] * 40503u ^
                     bits[1] * 69069u ^ bits[2];
        if (frames == 15 && (h >> 12 & 1))
            base = 15;
        cl_entstate s;
        memset(&s, 0, sizeof s);
        memcpy(s.origin, e->origin, sizeof s.origin);
        s.angles[1] = (float)(h % 360);
        s.model = (uint16_t)slot;
        s.frame = (uint32_t)(base + f);
        s.flags = CL_EF_FULLBRIGHT; /* RF_FULLBRIGHT */
        /* its skins 0..4 over the first 10 frames, then translucent (RF_TRANSLUCENT) at
         * (16 - f) / 16 in skin 5, from frame 13 skin 6 */
        if (f < 10) {
            s.skin = (uint32_t)(f >> 1);
        } else {
            s.skin = f < 13 ? 5 : 6;
            s.alpha = (uint8_t)((16 - f) * 255 / 16);
        }
        r_md2_entity(v, a, &s, base + f + 1, (float)(frac - f), t);
    }
}
