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

void r_alias_light(const r_view *v, const r_assets *a, const float origin[3], float *ambient,
                   float *shade)
{
    float l = 128;
    if (a && a->world.bsp)
        mdl_bsp_light_point(a->world.bsp, origin, v->style, &l);
    if (l < 8)
        l = 8; /* players never go totally black */
    /* WinQuake r_alias.c R_AliasSetupLighting (and ezQuake's R_AliasModelStandardLighting):
     * each dynamic light within its radius adds radius - distance to the ambient light, the
     * shade staying the floor's; then the clamps. Quake's only: Quake II lights its models
     * from its own R_LightPoint, Quake III from the light grid. */
    float add = 0;
    int quake = v->cl && (v->cl->level.game == CL_GAME_Q1 || v->cl->level.game == CL_GAME_QW);
    for (int k = 0; quake && k < v->num_dlights; k++) {
        const float *o = v->dlights[k].origin;
        float d[3] = {origin[0] - o[0], origin[1] - o[1], origin[2] - o[2]};
        float r = v->dlights[k].radius - sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (r > 0 && isfinite(r))
            add += r;
    }
    float amb = l + (add < 4096 ? add : 4096);
    *ambient = amb > 128 ? 128 : amb;
    *shade = l + *ambient > 192 ? 192 - *ambient : l;
    /* R_DrawAliasModel: "always give the gun some light", 24 at least (draw_gun draws it
     * with R_GUN_ZBIAS) */
    if (quake && v->zbias == R_GUN_ZBIAS && *ambient < 24)
        *ambient = *shade = 24;
}

/* The outward normal (unnormalised) of triangle t of posed vertices w: MDL triangles wind
 * clockwise seen from outside, so it is CA x BA. */
void r_alias_normal(const float *A, const float *B, const float *C, float n[3])
{
    float e1[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
    float e2[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

static void tri_normal(const float (*w)[3], const mdl_alias_tri *t, float n[3])
{
    r_alias_normal(w[t->v[0]], w[t->v[1]], w[t->v[2]], n);
}

/* The affine attribute over triangle A, B, C that takes the values val[0..2] at its corners:
 * G (in the triangle's plane) and g0 with a = dot(G, p) + g0. 0 for a degenerate triangle. */
static int tri_gradient(const float *A, const float *B, const float *C, const float val[3],
                        float G[3], float *g0)
{
    float e1[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
    float e2[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
    double d11 = dot3(e1, e1), d12 = dot3(e1, e2), d22 = dot3(e2, e2);
    double det = d11 * d22 - d12 * d12;
    if (!(det > 1e-9))
        return 0;
    double da1 = val[1] - val[0], da2 = val[2] - val[0];
    double al = (da1 * d22 - da2 * d12) / det, be = (da2 * d11 - da1 * d12) / det;
    for (int j = 0; j < 3; j++)
        G[j] = (float)(al * e1[j] + be * e2[j]);
    *g0 = val[0] - dot3(G, A);
    return 1;
}

/* The affine planes in screen space through the values val[k] (k < n) at the projected
 * corners sp (rast evaluates planes at pixel centres: each plane through corner 0) into
 * out[k]; 0 when the three are in a line on screen. */
static int screen_planes(const float sp[3][2], int n, const float *const val[],
                         double (*out)[3])
{
    double x1 = sp[1][0] - sp[0][0], y1 = sp[1][1] - sp[0][1];
    double x2 = sp[2][0] - sp[0][0], y2 = sp[2][1] - sp[0][1];
    double det = x1 * y2 - x2 * y1;
    if (!(fabs(det) > 1e-6))
        return 0;
    for (int k = 0; k < n; k++) {
        double d1 = val[k][1] - val[k][0], d2 = val[k][2] - val[k][0];
        out[k][0] = (d1 * y2 - d2 * y1) / det;
        out[k][1] = (d2 * x1 - d1 * x2) / det;
        out[k][2] = val[k][0] - out[k][0] * sp[0][0] - out[k][1] * sp[0][1];
    }
    return 1;
}

float r_alias_row(float ambient, float shade, const float vn[3])
{
    float len = sqrtf(dot3(vn, vn));
    float c = len > 0 ? dot3(vn, light_dir) / len : 0;
    float L = (ambient + shade * (c > 0 ? c : 0)) * R_LIGHT_GAIN;
    /* no brighter than the skin itself: the GL engines clamp a model's light at 1
     * (ezQuake glc_aliasmodel.c GLC_AliasModelLightPoint, min(l, 1); GL's glColor), where
     * the colormap's rows above 32 would double it (a survey's armour under a torch was
     * 1.6 times ezQuake's) */
    float row = (255.0f - L) / 4.0f;
    return row < 32 ? 32 : row;
}

int r_skin_affine = 1;
int r_cull_hidden = 1;

/* The view depth of world point p (along the view's forward axis). */
static float view_depth(const r_view *v, const float p[3])
{
    float d[3] = {p[0] - v->org[0], p[1] - v->org[1], p[2] - v->org[2]};
    return dot3(d, v->fwd);
}

/* r_skin_tri's texture for triangle P whose corners lie at sp on screen (ok 0 when one is
 * behind the near plane) at view depths z[3]; 0 for a degenerate triangle. */
static int skin_tex(r_view *v, const float *P[3], const float n[3], const float sv[3],
                    const float tv[3], const float row[3], const r_skin8 *sk,
                    const float sp[3][2], int ok, const float z[3], rast_tex *tex)
{
    memset(tex, 0, sizeof *tex);
    tex->index = sk->pixels;
    tex->lut = sk->lut;
    tex->w = sk->w;
    tex->h = sk->h;
    float zmin = z[0], zmax = z[0];
    for (int i = 1; i < 3; i++) {
        zmin = z[i] < zmin ? z[i] : zmin;
        zmax = z[i] > zmax ? z[i] : zmax;
    }
    /* the light rows (and s and t) as affine planes in screen space; the rows' mean when
     * a corner is behind the near plane or the three are in a line on screen */
    const float *vals[3] = {row, sv, tv};
    double planes[3][3];
    int on_screen = ok && screen_planes(sp, 3, vals, planes);
    if (on_screen) {
        memcpy(tex->lrow, planes[0], sizeof tex->lrow);
    } else {
        tex->lrow[0] = tex->lrow[1] = 0;
        tex->lrow[2] = (row[0] + row[1] + row[2]) / 3.0;
    }
    /* Affine across the screen (q = 1), as software Quake steps an alias triangle's skin
     * (WinQuake d_polyse.c, D_PolysetDrawSpans8), where that strays from the perspective
     * by under half a texel: at most about the triangle's texel extent times its depth
     * ratio less one, over four. Its spans then take no division. A triangle nearer or
     * deeper than that keeps the perspective (GLQuake's way). */
    float ext = 0;
    for (int k = 1; k < 3; k++) {
        float es = fabsf(sv[k] - sv[0]), et = fabsf(tv[k] - tv[0]);
        ext = es > ext ? es : ext;
        ext = et > ext ? et : ext;
    }
    if (r_skin_affine && on_screen && zmin > 0 && ext * (zmax / zmin - 1) <= 2.0f) {
        memcpy(tex->s, planes[1], sizeof tex->s);
        memcpy(tex->t, planes[2], sizeof tex->t);
        tex->q[2] = 1;
        return 1;
    }
    float S[3], T[3], s0, t0;
    if (!tri_gradient(P[0], P[1], P[2], sv, S, &s0) ||
        !tri_gradient(P[0], P[1], P[2], tv, T, &t0))
        return 0;
    float dist = dot3(n, P[0]);
    r_attr_q(v, n, dist, tex->q);
    r_attr_from(v, tex->q, S, s0, tex->s);
    r_attr_from(v, tex->q, T, t0, tex->t);
    return 1;
}

void r_skin_tri(r_view *v, const float *P[3], const float n[3], const float sv[3],
                const float tv[3], const float row[3], const r_skin8 *sk, unsigned flags)
{
    float sp[3][2], z[3];
    int ok = 1;
    for (int i = 0; i < 3; i++) {
        ok &= r_project_point(v, P[i], sp[i]);
        z[i] = view_depth(v, P[i]);
    }
    rast_tex tex;
    if (!skin_tex(v, P, n, sv, tv, row, sk, (const float(*)[2])sp, ok, z, &tex))
        return;
    float tri[3][3];
    for (int k = 0; k < 3; k++)
        memcpy(tri[k], P[k], sizeof tri[k]);
    r_draw_poly_tex(v, (const float(*)[3])tri, 3, &tex, flags);
}

/* r_skin_tri for a triangle wholly inside the view whose corners r_view_vert placed at rv
 * (their view depths z): drawn from those points as draw_poly would draw them (the same
 * pixels), without projecting or clipping again. */
static void skin_tri_inside(r_view *v, const float *P[3], const float n[3], const float sv[3],
                            const float tv[3], const float row[3], const r_skin8 *sk,
                            unsigned flags, const rast_vert rv[3], const float z[3])
{
    const float sp[3][2] = {{rv[0].x, rv[0].y}, {rv[1].x, rv[1].y}, {rv[2].x, rv[2].y}};
    rast_tex tex;
    if (!skin_tex(v, P, n, sv, tv, row, sk, sp, 1, z, &tex))
        return;
    if (v->cover && flags == RAST_OPAQUE)
        flags |= RAST_COVER;
    rast_polygon_tex_rows(v->fb, rv, 3, &tex, flags, v->y0, v->y1);
    v->count++;
}

/* Textured alias triangles (Quake's skins through the colormap, Gouraud light per vertex as
 * R_AliasTransformAndProjectFinalVerts: light L = ambient + shade * cos, row (255 - L) / 4).
 * Vertex normals are the mean of the posed triangles' normals around each vertex. */
static void alias_textured(r_view *v, const r_assets *a, const mdl_alias *m,
                           const cl_entstate *s, const float (*w)[3], float ambient,
                           float shade, double t)
{
    const uint8_t *pixels = mdl_alias_skin(m, s->skin, t); /* a skin group by demo time */
    int player = s->player;
    /* A player's shirt and pants (Quake's CL_NewTranslation / R_TranslatePlayerSkin): skin
     * indices 16..31 take the player's top colour row, 96..111 the bottom one, each row of
     * 16 shades running up for colours below 8 and down for the rest. */
    /* They are put into the light table the skin is read through (a skin's pixel p reads
     * base[row][map[p]]), whatever the skin's size. */
    const uint32_t *base = a->lut;
    uint32_t *own = NULL;
    if (player > 0 && player <= CL_MAX_PLAYERS && v->cl) {
        const cl_player *pl = &v->cl->players[player - 1];
        uint8_t map[256];
        for (int i = 0; i < 256; i++)
            map[i] = (uint8_t)i;
        for (int i = 0; i < 16; i++) {
            int top = (pl->top & 15) * 16, bot = (pl->bottom & 15) * 16;
            map[16 + i] = (uint8_t)(top < 128 ? top + i : top + 15 - i);
            map[96 + i] = (uint8_t)(bot < 128 ? bot + i : bot + 15 - i);
        }
        const uint32_t *kept =
            v->cache ? r_cache_player_lut(v->cache, a->lut, pl->top, pl->bottom, map) : NULL;
        if (kept) {
            base = kept;
        } else if ((own = malloc(sizeof a->lut))) {
            r_player_lut(own, a->lut, map);
            base = own;
        }
    }
    /* the triangles' normals (kept for the back-face test below), summed at each vertex;
     * then each vertex's light row, once */
    float(*nrm)[3] = calloc((size_t)m->num_verts, sizeof *nrm);
    float(*tn)[3] = malloc(((size_t)m->num_tris + 1) * sizeof *tn);
    float *rows = malloc(((size_t)m->num_verts + 1) * sizeof *rows);
    if (!nrm || !tn || !rows) {
        free(nrm);
        free(tn);
        free(rows);
        free(own);
        return;
    }
    for (uint32_t i = 0; i < m->num_tris; i++) {
        tri_normal(w, &m->tris[i], tn[i]);
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++)
                nrm[m->tris[i].v[k]][j] += tn[i][j];
    }
    for (uint32_t i = 0; i < m->num_verts; i++)
        rows[i] = r_alias_row(ambient, shade, nrm[i]);
    /* EF looks as a tint (quad blue, pentagram red) and FitzQuake's alpha */
    uint32_t *look = NULL;
    unsigned flags;
    const uint32_t *lut = r_lut_look(base, s, &look, &flags);
    r_skin8 sk = {pixels, lut, (int)m->skin_width, (int)m->skin_height};
    /* each vertex placed on screen once (r_view_vert), for the triangles wholly inside the
     * view; the rest are clipped as any polygon (r_skin_tri) */
    rast_vert *sp = v->pass == R_PASS_TEXTURED ? malloc((size_t)m->num_verts * sizeof *sp) : NULL;
    float *vz = sp ? malloc((size_t)m->num_verts * sizeof *vz) : NULL;
    uint8_t *code = vz ? malloc((size_t)m->num_verts) : NULL;
    for (uint32_t i = 0; code && i < m->num_verts; i++) {
        code[i] = (uint8_t)r_view_vert(v, w[i], &sp[i]);
        vz[i] = view_depth(v, w[i]);
    }
    for (uint32_t i = 0; i < m->num_tris; i++) {
        const mdl_alias_tri *tr = &m->tris[i];
        const float *P[3] = {w[tr->v[0]], w[tr->v[1]], w[tr->v[2]]};
        const float *n = tn[i];
        float rel[3] = {v->org[0] - P[0][0], v->org[1] - P[0][1], v->org[2] - P[0][2]};
        if (!(dot3(n, rel) > 0))
            continue;
        const int inside = code && !(code[tr->v[0]] | code[tr->v[1]] | code[tr->v[2]]);
        const rast_vert rv[3] = {inside ? sp[tr->v[0]] : (rast_vert){0, 0, 0},
                                 inside ? sp[tr->v[1]] : (rast_vert){0, 0, 0},
                                 inside ? sp[tr->v[2]] : (rast_vert){0, 0, 0}};
        if (inside && rast_no_centre(rv, 3)) {
            v->count++; /* (sent, as draw_poly would, and drawing nothing) */
            continue;
        }
        float sv[3], tv[3], row[3];
        for (int k = 0; k < 3; k++) {
            const mdl_alias_st *st = &m->st[tr->v[k]];
            /* the back half of the skin for a seam vertex of a back-facing triangle */
            sv[k] = (float)st->s + (st->onseam && !tr->front ? (float)m->skin_width * 0.5f : 0);
            tv[k] = (float)st->t;
            row[k] = rows[tr->v[k]];
        }
        if (inside) {
            const float z[3] = {vz[tr->v[0]], vz[tr->v[1]], vz[tr->v[2]]};
            skin_tri_inside(v, P, n, sv, tv, row, &sk, flags, rv, z);
        } else {
            r_skin_tri(v, P, n, sv, tv, row, &sk, flags);
        }
    }
    free(sp);
    free(vz);
    free(code);
    free(look);
    free(nrm);
    free(tn);
    free(rows);
    free(own);
}

static void draw_alias(r_view *v, const r_assets *a, const mdl_alias *m, const cl_entstate *s,
                       int next_frame, float blend, double t)
{
    float angles[3] = {s->angles[0], s->angles[1], s->angles[2]};
    if (m->flags & EF_ROTATE) /* (CL_RelinkEntities' bobjrotate, on the server's clock) */
        angles[1] = (float)fmod(100.0 * cl_game_time(v->cl, t), 360.0);
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
    /* a frame group's pose by demo time (torches, flames) */
    const float(*p0)[3] = m->poses + (size_t)mdl_alias_pose(m, f0, t) * m->num_verts;
    const float(*p1)[3] = m->poses + (size_t)mdl_alias_pose(m, f1, t) * m->num_verts;
    float(*w)[3] = malloc((size_t)m->num_verts * sizeof *w);
    if (!w)
        return;
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}; /* the posed vertices' box */
    for (uint32_t i = 0; i < m->num_verts; i++) {
        float p[3];
        for (int j = 0; j < 3; j++)
            p[j] = p0[i][j] + (p1[i][j] - p0[i][j]) * blend;
        r_xform_point(&x, p, w[i]);
        for (int j = 0; j < 3; j++) {
            lo[j] = i == 0 || w[i][j] < lo[j] ? w[i][j] : lo[j];
            hi[j] = i == 0 || w[i][j] > hi[j] ? w[i][j] : hi[j];
        }
    }
    /* wholly behind what is drawn (a body behind a wall): the box of its posed vertices,
     * not the file's frame boxes, which a damaged model may not keep to */
    if (r_cull_hidden && m->num_verts > 0 && r_box_hidden(v, lo, hi)) {
        free(w);
        return;
    }
    uint32_t base = s->skin < m->num_skins ? m->skin_colors[s->skin] : m->color;
    uint32_t wire = r_wire_color(base);
    float ambient, shade;
    r_alias_light(v, a, s->origin, &ambient, &shade);
    if (v->pass == R_PASS_TEXTURED && m->skin0 && m->num_skins) {
        alias_textured(v, a, m, s, (const float(*)[3])w, ambient, shade, t);
        free(w);
        return;
    }
    for (uint32_t i = 0; i < m->num_tris; i++) {
        const float *A = w[m->tris[i].v[0]], *B = w[m->tris[i].v[1]], *C = w[m->tris[i].v[2]];
        float n[3];
        tri_normal(w, &m->tris[i], n);
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
    if (v->pass == R_PASS_TEXTURED && f->pixels && scale > 0) {
        /* unlit, index 255 see-through (D_SpriteDrawSpans): texel s = x - left, t = up - y
         * for the quad point origin + (right x + up y) scale */
        float S[3], T[3], N[3] = {right[1] * up[2] - right[2] * up[1],
                                  right[2] * up[0] - right[0] * up[2],
                                  right[0] * up[1] - right[1] * up[0]};
        for (int j = 0; j < 3; j++) {
            S[j] = right[j] / scale;
            T[j] = -up[j] / scale;
        }
        rast_tex tex;
        memset(&tex, 0, sizeof tex);
        tex.index = f->pixels;
        /* row 0 of a one-row table: the palette itself (an SP2's own) */
        tex.lut = sp->palette ? sp->palette : v->assets->palette;
        tex.w = (int)f->width;
        tex.h = (int)f->height;
        tex.has_key = 1;
        tex.key = 255;
        float dist = dot3(N, s->origin);
        r_attr_plane(v, N, dist, S, -dot3(S, s->origin) - f->left, tex.s);
        r_attr_plane(v, N, dist, T, -dot3(T, s->origin) + f->up, tex.t);
        r_attr_plane(v, N, dist, NULL, 0, tex.q);
        r_draw_poly_tex(v, (const float(*)[3])q, 4, &tex, RAST_OPAQUE);
        return;
    }
    r_emit_poly(v, (const float(*)[3])q, 4, f->color, r_wire_color(f->color));
}

void r_draw_missing(r_view *v, const cl_entstate *s)
{
    float yaw[3] = {0, s->angles[1], 0};
    r_xform x;
    r_xform_setup(&x, s->origin, yaw, 1.0f);
    r_draw_box(v, &x, missing_mins, missing_maxs, MISSING_COLOR);
}

void r_draw_entity(r_view *v, const r_assets *a, const cl_entstate *s, int num, int next_frame,
                   float blend, double t)
{
    if (s->model == 0)
        return;
    if (s->flags & CL_EF_BMODEL) { /* the map's own submodel (a Quake III mover) */
        if (a && a->world.bsp && s->model < a->world.bsp->num_models) {
            r_xform x;
            r_xform_setup(&x, s->origin, s->angles, 1.0f);
            r_draw_brush(v, &a->world, &a->world.bsp->models[s->model], &x, s->frame);
        }
        return;
    }
    if (!a || s->model >= a->num_models) {
        r_draw_missing(v, s);
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
    case R_KIND_MD3: {
        /* its first frame's radius about its origin (R_ComputeFogNum takes the frame's) */
        float r = m->md3 && m->md3->num_frames ? m->md3->frames[0].radius : 0;
        v->model_fog = r_q3_fog_at(a, s->origin, isfinite(r) && r > 0 && r < 4096 ? r : 32);
        r_md3_entity(v, a, s, num, next_frame, blend, t);
        v->model_fog = 0;
        return;
    }
    case R_KIND_Q3SPRITE:
        r_q3_sprite_entity(v, a, s);
        return;
    case R_KIND_MD2:
        r_md2_entity(v, a, s, next_frame, blend, t);
        return;
    default:
        r_draw_missing(v, s);
        return;
    }
}
