/* r_q3mark.c: Quake III's wall marks, the burns, holes and bullet marks an impact leaves on
 * the map for ten seconds.
 *
 * Facts from ioq3 (GPL-2.0, described, not copied): cg_weapons.c CG_MissileHitWall (which
 * mark and how big, by weapon), cg_marks.c CG_ImpactMark (the mark's square and its
 * texture coordinates) and CG_AddMarks (its life and fades), q_math.c PerpendicularVector
 * and RotatePointAroundVector, renderergl1 tr_marks.c R_MarkFragments (the world's
 * triangles near the mark cut to the square's prism). The decoder logs each mark as it is
 * made (q3.c impact_mark; cl_marks_at); what it looks like at t is worked out here from the
 * map, so a frame shows the same marks however it was reached. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "r_local.h"
#include "../common/dirs.h"

/* A mark's square is cut into at most this many pieces of this many corners in all
 * (cg_marks.c MAX_MARK_FRAGMENTS, MAX_MARK_POINTS); a piece is kept with its first ten
 * corners (cg_local.h MAX_VERTS_ON_POLY), and no more than 256 pieces show at once
 * (MAX_MARK_POLYS: the game frees the oldest marks' pieces). */
#define MARK_FRAGMENTS R_MARK_FRAGMENTS
#define MARK_POINTS R_MARK_POINTS
#define MARK_KEPT 10
#define MARK_POLYS 256
/* tr_marks.c MAX_VERTS_ON_POLY: a cut piece with this many corners or more is dropped */
#define CLIP_VERTS 64
/* Triangles of the map looked at for one mark (ioq3 looks at 64 surfaces), and nodes
 * walked: bounds on what a hostile map can make one mark cost. */
#define BOX_TRIS 1024
#define BOX_NODES 8192
/* the leaves' face references one walk (box_tris, a trace) looks at, at most: a hostile
 * map's leaf may list millions, or one face over and over (real maps: a few hundred) */
#define WALK_CHECKS 65536
#define SEEN_SLOTS 2048 /* box_tris' faces taken, hashed (> BOX_TRIS, a power of two) */
#define MARK_TOTAL_MS 10000 /* cg_marks.c MARK_TOTAL_TIME, MARK_FADE_TIME */
#define MARK_FADE_MS 1000

static int normalize3(float v[3])
{
    float len = sqrtf(dot3(v, v));
    if (!(len > 1e-6f) || !isfinite(len))
        return 0;
    for (int j = 0; j < 3; j++)
        v[j] /= len;
    return 1;
}

int r_q3_mark_kind(int weapon, float *radius)
{
    switch (weapon) { /* bg_public.h weapon_t; Team Arena's 11 nail gun, 12 prox, 13 chain */
    case 4: case 5: case 12: *radius = 64; return R_Q3MARK_BURN; /* grenade, rocket, mine */
    case 9: *radius = 32; return R_Q3MARK_BURN;                  /* BFG */
    case 7: *radius = 24; return R_Q3MARK_ENERGY;                /* rail */
    case 8: *radius = 16; return R_Q3MARK_ENERGY;                /* plasma */
    case 3: *radius = 4; return R_Q3MARK_BULLET;                 /* shotgun */
    case 2: case 13: *radius = 8; return R_Q3MARK_BULLET;        /* machine gun, chain gun */
    default: *radius = 12; return R_Q3MARK_HOLE; /* lightning, nail gun, the switch's default */
    }
}

/* Keep the part of polygon in (n corners) on the front of plane (normal, dist), the points
 * within epsilon of it kept as they are (tr_marks.c R_ChopPolyBehindPlane, epsilon 0.5);
 * the count, 0 when nothing is left or in has CLIP_VERTS - 2 corners or more. */
static int chop(const float (*in)[3], int n, float (*out)[3], const float normal[3],
                float dist)
{
    enum { FRONT, BACK, ON };
    float d[CLIP_VERTS + 1];
    int side[CLIP_VERTS + 1], counts[3] = {0, 0, 0};
    if (n >= CLIP_VERTS - 2)
        return 0;
    for (int i = 0; i < n; i++) {
        d[i] = dot3(in[i], normal) - dist;
        side[i] = d[i] > 0.5f ? FRONT : d[i] < -0.5f ? BACK : ON;
        counts[side[i]]++;
    }
    d[n] = d[0];
    side[n] = side[0];
    if (!counts[FRONT])
        return 0;
    if (!counts[BACK]) {
        memcpy(out, in, (size_t)n * sizeof *out);
        return n;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (side[i] == ON) {
            memcpy(out[k++], in[i], sizeof *out);
            continue;
        }
        if (side[i] == FRONT)
            memcpy(out[k++], in[i], sizeof *out);
        if (side[i + 1] == ON || side[i + 1] == side[i])
            continue;
        const float *p1 = in[i], *p2 = in[(i + 1) % n];
        float den = d[i] - d[i + 1], f = den != 0 ? d[i] / den : 0;
        for (int j = 0; j < 3; j++)
            out[k][j] = p1[j] + f * (p2[j] - p1[j]);
        k++;
    }
    return k;
}

/* Whether box (lo, hi) lies wholly on one side of the plane n . x = dist. */
static int box_off_plane(const float lo[3], const float hi[3], const float n[3], float dist)
{
    float near = 0, far = 0;
    for (int j = 0; j < 3; j++) {
        near += n[j] * (n[j] >= 0 ? lo[j] : hi[j]);
        far += n[j] * (n[j] >= 0 ? hi[j] : lo[j]);
    }
    return near > dist || far < dist;
}

/* The world's triangles in leaves the box touches that take a mark projected along -axis0
 * (tr_marks.c R_BoxSurfaces_r and R_MarkFragments): a planar surface's whose plane goes
 * through the box and faces the mark within 60 degrees, a curve's facing it at all, none
 * of a triangle soup (r_marksOnTriangleMeshes 0) or of a shader without marks; each once,
 * in the walk's order. */
static int box_tris(const mdl_bsp *b, const float lo[3], const float hi[3],
                    const float axis0[3], uint32_t *out)
{
    if (!b->num_nodes || !b->nodes || !b->planes)
        return 0;
    int32_t stack[MDL_BSP_MAX_DEPTH + 2];
    int sp = 0, n = 0, visits = 0, checks = 0;
    uint32_t seen[SEEN_SLOTS];
    memset(seen, 0xff, sizeof seen);
    stack[sp++] = 0;
    while (sp > 0 && visits++ < BOX_NODES && checks < WALK_CHECKS) {
        int32_t node = stack[--sp];
        if (node >= 0) {
            if ((uint32_t)node >= b->num_nodes)
                continue;
            const mdl_node *nd = &b->nodes[node];
            if (nd->plane >= b->num_planes)
                continue;
            const mdl_plane *pl = &b->planes[nd->plane];
            float near = 0, far = 0;
            for (int j = 0; j < 3; j++) {
                near += pl->normal[j] * (pl->normal[j] >= 0 ? lo[j] : hi[j]);
                far += pl->normal[j] * (pl->normal[j] >= 0 ? hi[j] : lo[j]);
            }
            /* the back first on the stack: the front is walked first */
            if (far >= pl->dist && near < pl->dist) {
                if (sp + 2 > (int)(sizeof stack / sizeof stack[0]))
                    continue;
                stack[sp++] = nd->children[1];
                stack[sp++] = nd->children[0];
            } else {
                if (sp + 1 > (int)(sizeof stack / sizeof stack[0]))
                    continue;
                stack[sp++] = near >= pl->dist ? nd->children[0] : nd->children[1];
            }
            continue;
        }
        uint32_t leaf = (uint32_t)(-(node + 1)); /* (as mdl_bsp_point_leaf) */
        if (leaf >= b->num_leaves)
            continue;
        const mdl_leaf *lf = &b->leaves[leaf];
        if (lf->first_mark > b->num_marks || lf->num_marks > b->num_marks - lf->first_mark)
            continue;
        for (uint32_t m = 0; m < lf->num_marks && n < BOX_TRIS && checks++ < WALK_CHECKS; m++) {
            uint32_t fi = b->marks[lf->first_mark + m];
            if (fi >= b->num_faces)
                continue;
            const mdl_face *f = &b->faces[fi];
            if (f->flags & (MDL_SURF_NODRAW | MDL_SURF_SKY) || f->num_verts != 3 ||
                f->first_vert > b->num_verts || b->num_verts - f->first_vert < 3)
                continue;
            if (f->texture >= 0 && (uint32_t)f->texture < b->num_textures &&
                b->textures[f->texture].nomarks)
                continue;
            float facing = dot3(f->normal, axis0);
            if (f->q3_type == MDL_Q3_PLANAR) {
                if (box_off_plane(lo, hi, f->normal, f->dist) || !(facing >= 0.5f))
                    continue;
            } else if (f->q3_type == MDL_Q3_PATCH) {
                if (!(facing > 0.05f))
                    continue;
            } else {
                continue;
            }
            uint32_t slot = (fi * 2654435761u) & (SEEN_SLOTS - 1);
            while (seen[slot] != UINT32_MAX && seen[slot] != fi)
                slot = (slot + 1) & (SEEN_SLOTS - 1);
            if (seen[slot] == UINT32_MAX) { /* (n < BOX_TRIS: a slot is always free) */
                seen[slot] = fi;
                out[n++] = fi;
            }
        }
    }
    return n;
}

/* cg_marks.c CG_ImpactMark's texture axes: axis0 the normal, axis1 a perpendicular of it
 * (q_math.c PerpendicularVector: the world axis the normal leans on least, put into the
 * plane), turned about the normal by orientation degrees into axis2, then axis1 as
 * axis0 x axis2. 0 when dir is not a direction. */
static int mark_axes(const float dir[3], float orientation, float axis[3][3])
{
    memcpy(axis[0], dir, sizeof axis[0]);
    float p[3];
    if (!normalize3(axis[0]) || !qd_perpendicular(axis[0], p))
        return 0;
    /* about axis0 by the angle (Rodrigues' formula; p is perpendicular to axis0) */
    float a = orientation * (float)M_PI / 180, c = cosf(a), s = sinf(a), kxp[3];
    cross3(axis[0], p, kxp);
    for (int j = 0; j < 3; j++)
        axis[2][j] = p[j] * c + kxp[j] * s;
    cross3(axis[0], axis[2], axis[1]);
    return 1;
}

/* A ray's nearest hit on the world's triangles (a shot's trace, cg_weapons.c
 * CG_ShotgunPellet's CG_Trace with MASK_SHOT, on the drawn surfaces instead of the
 * collision brushes): the planar and curved surfaces' triangles facing the ray, not
 * liquids' (a shot goes through water) nor a triangle soup's; the sky's stop it. */
typedef struct trace_hit {
    float t;        /* distance along the unit direction; len: none */
    uint32_t face;
    int visits, checks;
} trace_hit;

static void trace_leaf(const mdl_bsp *b, const mdl_leaf *lf, const float start[3],
                       const float dir[3], trace_hit *h)
{
    if (lf->first_mark > b->num_marks || lf->num_marks > b->num_marks - lf->first_mark)
        return;
    for (uint32_t m = 0; m < lf->num_marks && m < BOX_TRIS && h->checks++ < WALK_CHECKS; m++) {
        uint32_t fi = b->marks[lf->first_mark + m];
        if (fi >= b->num_faces)
            continue;
        const mdl_face *f = &b->faces[fi];
        if ((f->flags & (MDL_SURF_NODRAW | MDL_SURF_TURB)) || f->num_verts != 3 ||
            (f->q3_type != MDL_Q3_PLANAR && f->q3_type != MDL_Q3_PATCH) ||
            f->first_vert > b->num_verts || b->num_verts - f->first_vert < 3 ||
            !(dot3(f->normal, dir) < 0))
            continue;
        /* Moller and Trumbore's ray and triangle */
        const float *p0 = b->verts[f->first_vert], *p1 = b->verts[f->first_vert + 1],
                    *p2 = b->verts[f->first_vert + 2];
        float e1[3], e2[3], pv[3], tv[3], qv[3];
        for (int j = 0; j < 3; j++) {
            e1[j] = p1[j] - p0[j];
            e2[j] = p2[j] - p0[j];
            tv[j] = start[j] - p0[j];
        }
        cross3(dir, e2, pv);
        float det = dot3(e1, pv);
        if (!(fabsf(det) > 1e-12f))
            continue;
        float inv = 1 / det, u = dot3(tv, pv) * inv;
        if (!(u >= 0 && u <= 1))
            continue;
        cross3(tv, e1, qv);
        float w = dot3(dir, qv) * inv, t = dot3(e2, qv) * inv;
        if (!(w >= 0 && u + w <= 1) || !(t >= 0) || !(t < h->t))
            continue;
        h->t = t;
        h->face = fi;
    }
}

/* The segment of the ray from t0 to t1 (p1 to p2) through node's subtree, the near side
 * first: 1 when a hit was found in it (nothing farther can be nearer). */
static int trace_node(const mdl_bsp *b, int32_t node, const float start[3], const float dir[3],
                      float t0, float t1, trace_hit *h, int depth)
{
    if (++h->visits > BOX_NODES || depth > MDL_BSP_MAX_DEPTH)
        return 1; /* (a hostile tree: give up, as if it stopped here) */
    if (node < 0) {
        uint32_t leaf = (uint32_t)(-(node + 1));
        if (leaf < b->num_leaves)
            trace_leaf(b, &b->leaves[leaf], start, dir, h);
        return h->t <= t1 + 0.5f;
    }
    if ((uint32_t)node >= b->num_nodes || b->nodes[node].plane >= b->num_planes)
        return 0;
    const mdl_node *nd = &b->nodes[node];
    const mdl_plane *pl = &b->planes[nd->plane];
    float s = dot3(pl->normal, start) - pl->dist, dd = dot3(pl->normal, dir);
    float d0 = s + dd * t0, d1 = s + dd * t1;
    if (d0 >= 0 && d1 >= 0)
        return trace_node(b, nd->children[0], start, dir, t0, t1, h, depth + 1);
    if (d0 < 0 && d1 < 0)
        return trace_node(b, nd->children[1], start, dir, t0, t1, h, depth + 1);
    float tm = -s / dd; /* (dd is not 0: the ends are on both sides) */
    int near = d0 < 0;
    if (trace_node(b, nd->children[near], start, dir, t0, tm, h, depth + 1))
        return 1;
    return trace_node(b, nd->children[!near], start, dir, tm, t1, h, depth + 1);
}

int r_q3_trace(const mdl_bsp *b, const float start[3], const float end[3], float *t,
               uint32_t *face)
{
    float dir[3] = {end[0] - start[0], end[1] - start[1], end[2] - start[2]};
    float len = sqrtf(dot3(dir, dir));
    if (!b || !b->num_nodes || !(len > 1e-3f) || !isfinite(len))
        return 0;
    for (int j = 0; j < 3; j++)
        dir[j] /= len;
    trace_hit h = {len, 0, 0, 0};
    trace_node(b, 0, start, dir, 0, len, &h, 0);
    if (!(h.t < len))
        return 0;
    *t = h.t;
    *face = h.face;
    return 1;
}

int r_q3_mark_fragments(const mdl_bsp *b, const float origin[3], const float dir[3],
                        float orientation, float radius, r_mark_frag *frags,
                        float (*pts)[3], float (*st)[2])
{
    float axis[3][3], quad[4][3];
    if (!b || !(radius > 0 && radius < 4096) || !mark_axes(dir, orientation, axis))
        return 0;
    for (int j = 0; j < 3; j++) {
        if (!isfinite(origin[j]) || fabsf(origin[j]) > 1e6f)
            return 0;
        quad[0][j] = origin[j] - radius * axis[1][j] - radius * axis[2][j];
        quad[1][j] = origin[j] + radius * axis[1][j] - radius * axis[2][j];
        quad[2][j] = origin[j] + radius * axis[1][j] + radius * axis[2][j];
        quad[3][j] = origin[j] - radius * axis[1][j] + radius * axis[2][j];
    }
    /* projected 20 units into the wall (CG_ImpactMark's projection, dir * -20); the box
     * holds the square, it so projected, and it 20 units out of the wall */
    float lo[3], hi[3];
    for (int j = 0; j < 3; j++)
        lo[j] = hi[j] = quad[0][j];
    for (int i = 0; i < 4; i++)
        for (int s = -1; s <= 1; s += 2)
            for (int j = 0; j < 3; j++) {
                float q = quad[i][j] + (float)s * 20 * axis[0][j];
                for (int e = 0; e < 2; e++) {
                    float x = e ? q : quad[i][j];
                    lo[j] = x < lo[j] ? x : lo[j];
                    hi[j] = x > hi[j] ? x : hi[j];
                }
            }
    /* the prism's sides (each edge swept along the projection, facing in), and its near
     * and far ends: 32 units into the wall, 20 out of it */
    float normals[6][3], dists[6];
    for (int i = 0; i < 4; i++) {
        float e[3], sweep[3];
        for (int j = 0; j < 3; j++) {
            e[j] = quad[(i + 1) % 4][j] - quad[i][j];
            sweep[j] = 20 * axis[0][j];
        }
        cross3(e, sweep, normals[i]);
        if (!normalize3(normals[i]))
            return 0;
        dists[i] = dot3(normals[i], quad[i]);
    }
    for (int j = 0; j < 3; j++) {
        normals[4][j] = -axis[0][j];
        normals[5][j] = axis[0][j];
    }
    dists[4] = dot3(normals[4], quad[0]) - 32;
    dists[5] = dot3(normals[5], quad[0]) - 20;

    uint32_t tris[BOX_TRIS];
    int nt = box_tris(b, lo, hi, axis[0], tris), nf = 0, np = 0;
    float scale = 0.5f / radius;
    for (int i = 0; i < nt && nf < MARK_FRAGMENTS; i++) {
        const mdl_face *f = &b->faces[tris[i]];
        float buf[2][CLIP_VERTS][3];
        memcpy(buf[0], b->verts + f->first_vert, 3 * sizeof buf[0][0]);
        int n = 3, cur = 0;
        for (int p = 0; p < 6 && n > 0; p++) {
            n = chop((const float(*)[3])buf[cur], n, buf[!cur], normals[p], dists[p]);
            cur = !cur;
        }
        if (n <= 0 || np + n > MARK_POINTS)
            continue;
        if (n > MARK_KEPT) /* CG_ImpactMark keeps the first ten corners */
            n = MARK_KEPT;
        frags[nf].first = np;
        frags[nf].n = n;
        frags[nf].face = tris[i];
        frags[nf].after = 0; /* (a gib's bounce sets its own; the array is reused) */
        for (int k = 0; k < n; k++, np++) {
            float delta[3];
            memcpy(pts[np], buf[cur][k], sizeof pts[np]);
            for (int j = 0; j < 3; j++)
                delta[j] = pts[np][j] - origin[j];
            st[np][0] = 0.5f + dot3(delta, axis[1]) * scale;
            st[np][1] = 0.5f + dot3(delta, axis[2]) * scale;
        }
        nf++;
    }
    return nf;
}

void r_q3_mark_look(int kind, const uint8_t color[3], double age, uint8_t rgb[3],
                    uint8_t *alpha)
{
    /* (age is in seconds: compared in milliseconds, or 10 to 10,000 s gave a fade below 0
     * and a negative float to a byte, undefined; a review) */
    int ms = age > 0 ? age * 1000 < MARK_TOTAL_MS ? (int)(age * 1000) : MARK_TOTAL_MS : 0;
    float c[3];
    for (int j = 0; j < 3; j++) {
        c[j] = color[j] / 255.0f;
        rgb[j] = (uint8_t)(c[j] * 255); /* CG_ImpactMark's colors[], as bytes */
    }
    *alpha = 255;
    /* CG_AddMarks: the energy bursts from 450 down to 0 over 3 s (shown from where that
     * passes under 255); a mark whose red byte is 0 never does (the game tests it) */
    if (kind == R_Q3MARK_ENERGY && rgb[0] != 0) {
        int fade = (int)(450 - 450 * (ms / 3000.0));
        if (fade < 255) {
            fade = fade < 0 ? 0 : fade;
            for (int j = 0; j < 3; j++)
                rgb[j] = (uint8_t)(c[j] * (float)fade);
        }
    }
    /* the last second: the energy mark's alpha, the others' colour, to 0 */
    int left = MARK_TOTAL_MS - ms;
    if (left < MARK_FADE_MS) {
        int fade = 255 * left / MARK_FADE_MS;
        if (kind == R_Q3MARK_ENERGY || kind == R_Q3MARK_BLOOD) /* (alphaFade) */
            *alpha = (uint8_t)fade;
        else
            for (int j = 0; j < 3; j++)
                rgb[j] = (uint8_t)(c[j] * (float)fade);
    }
}

/* A hash of mark e: its orientation (CG_ImpactMark's random() * 360). */
static uint32_t mark_seed(const cl_fxev *e)
{
    uint32_t h = 2166136261u, w[4];
    memcpy(w, e->origin, sizeof(float) * 3);
    double t0 = e->t0;
    uint64_t tb;
    memcpy(&tb, &t0, sizeof tb);
    w[3] = (uint32_t)tb ^ (uint32_t)(tb >> 32);
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++)
            h = (h ^ (w[i] >> (8 * k) & 255)) * 16777619u;
    return h;
}

/* One mark's pieces as r_q3_mark_fragments cut them, and what they were cut for. */
typedef struct mark_cut {
    double t0;
    float origin[3], end[3], radius;
    int16_t entity;
    uint8_t kind, style, live, rgb[3];
    int nf;
    r_mark_frag *frags;
    float (*pts)[3], (*st)[2];
    /* a shotgun blast's pellets that hit the map's walls: where, the surface's normal */
    int nhits;
    float hits[QD_Q3_PELLETS][6];
    struct gib_path *gibs; /* a gibbing's gibs (CL_Q3_GIBS of them), or NULL */
} mark_cut;

/* The brass a frame keeps in flight with the marks (cgame's local entities: 512 for all) */
#define R_BRASS_CAP 256
#define R_CUTS (CL_MARK_LOG + R_BRASS_CAP)

struct r_marks {
    uint64_t serial;          /* r_assets.serial the pieces were cut on */
    int n;                    /* cuts held */
    mark_cut cut[R_CUTS];
    int num_frame;            /* this frame's marks, newest first, then its brass: indices in
                               * cut */
    int frame[R_CUTS];
};

/* The marks alive at t (newest first; a shotgun's brass is logged with them), then the
 * machine guns' brass in flight (the effects' log), into out[R_CUTS]; their count. */
static int alive_cuts(const cl_state *cl, double t, const cl_fxev **out)
{
    int n = cl_marks_at(cl, t, out, CL_MARK_LOG), brass = 0;
    const cl_fxev *fx[CL_FX_LOG];
    int nfx = cl_fx_at(cl, t, fx, CL_FX_LOG);
    for (int i = nfx - 1; i >= 0 && brass < R_BRASS_CAP; i--)
        if (fx[i]->kind == CL_FXK_BRASS)
            out[n + brass++] = fx[i];
    return n + brass;
}

static void cut_free(mark_cut *c)
{
    free(c->frags);
    free(c->pts);
    free(c->st);
    free(c->gibs);
    c->frags = NULL;
    c->pts = NULL;
    c->st = NULL;
    c->gibs = NULL;
}

void r_marks_free(r_marks *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n; i++)
        cut_free(&m->cut[i]);
    free(m);
}

static int same_mark(const mark_cut *c, const cl_fxev *e)
{
    return c->t0 == e->t0 && c->style == e->style && c->kind == e->kind &&
           c->entity == e->entity && !memcmp(&c->radius, &e->radius, sizeof c->radius) &&
           !memcmp(c->origin, e->origin, sizeof c->origin) &&
           !memcmp(c->end, e->end, sizeof c->end) && !memcmp(c->rgb, e->rgb, 3);
}

/* Append pieces frags[0 .. nf-1] (corners from pts, st) to c's; 0 when out of memory. */
static int cut_append(mark_cut *c, const r_mark_frag *frags, int nf, const float (*pts)[3],
                      const float (*st)[2])
{
    if (nf <= 0)
        return 1;
    int np0 = c->nf ? c->frags[c->nf - 1].first + c->frags[c->nf - 1].n : 0;
    int np = frags[nf - 1].first + frags[nf - 1].n;
    r_mark_frag *f = realloc(c->frags, (size_t)(c->nf + nf) * sizeof *f);
    if (f)
        c->frags = f;
    float(*p)[3] = f ? realloc(c->pts, (size_t)(np0 + np) * sizeof *p) : NULL;
    if (p)
        c->pts = p;
    float(*q)[2] = p ? realloc(c->st, (size_t)(np0 + np) * sizeof *q) : NULL;
    if (!q)
        return 0;
    c->st = q;
    for (int k = 0; k < nf; k++) {
        c->frags[c->nf + k] = frags[k];
        c->frags[c->nf + k].first += np0;
    }
    memcpy(c->pts + np0, pts, (size_t)np * sizeof *pts);
    memcpy(c->st + np0, st, (size_t)np * sizeof *st);
    c->nf += nf;
    return 1;
}

/* A shotgun blast e's pellets traced through map b (its ends as CG_ShotgunPattern makes
 * them): a pellet that meets a body first (the decoder's: bit i of e->entity, the nearest
 * such body e->radius away) hits no wall; one that meets a surface without marks or
 * impacts (the sky's) makes nothing (CG_ShotgunPellet: SURF_NOIMPACT); the others leave a
 * bullet's puff and mark (CG_MissileHitWall for WP_SHOTGUN: the bullet flash model, the
 * bullet mark, radius 4), turned by a hash of the blast and the pellet. */
static int cut_pellets(const mdl_bsp *b, const cl_fxev *e, mark_cut *c, r_mark_frag *frags,
                       float (*pts)[3], float (*st)[2])
{
    float fwd[3], ends[QD_Q3_PELLETS][3];
    for (int j = 0; j < 3; j++)
        fwd[j] = e->end[j] - e->origin[j];
    if (!normalize3(fwd) || !qd_q3_pellet_ends(e->origin, fwd, e->style, ends))
        return 1;
    for (int i = 0; i < QD_Q3_PELLETS; i++) {
        float t;
        uint32_t fi;
        if (!r_q3_trace(b, e->origin, ends[i], &t, &fi))
            continue;
        if ((e->entity >> i & 1) && e->radius <= t)
            continue; /* a body first */
        const mdl_face *f = &b->faces[fi];
        if ((f->flags & MDL_SURF_SKY) ||
            (f->texture >= 0 && (uint32_t)f->texture < b->num_textures &&
             b->textures[f->texture].nomarks))
            continue;
        float dir[3], at[3];
        for (int j = 0; j < 3; j++) {
            dir[j] = ends[i][j] - e->origin[j];
        }
        normalize3(dir);
        for (int j = 0; j < 3; j++)
            at[j] = e->origin[j] + dir[j] * t;
        float *hit = c->hits[c->nhits++];
        memcpy(hit, at, sizeof at);
        memcpy(hit + 3, f->normal, sizeof f->normal);
        uint32_t h = (mark_seed(e) ^ (uint32_t)i * 2654435761u) * 16777619u;
        int nf = r_q3_mark_fragments(b, at, f->normal, (float)(h % 36000) / 100.0f, 4, frags,
                                     pts, st);
        if (!cut_append(c, frags, nf, (const float(*)[3])pts, (const float(*)[2])st))
            return 0;
    }
    return 1;
}

/* A gib's flight (cg_effects.c CG_LaunchGib, cg_localents.c CG_AddFragment): pieces of
 * TR_GRAVITY paths (bg_misc.c: DEFAULT_GRAVITY 800), each begun by a bounce, until one
 * stands (TR_STATIONARY). Times in seconds after the gibbing. */
#define GIB_SEGS 16
typedef struct gib_seg {
    float base[3], delta[3];
    float t0;
    uint8_t still;
} gib_seg;
typedef struct gib_path {
    uint8_t model; /* CL_Q3_GIB_MODELS + model (brass: CL_Q3_BRASS_MODELS + model) */
    uint8_t nseg;
    float life;
    float angles[3], spin[3]; /* brass: its angles at age 0 and degrees a second (LEF_TUMBLE) */
    gib_seg seg[GIB_SEGS];
} gib_path;

/* The place of gib g at age (its last piece begun by then). */
static void gib_at(const gib_path *g, float age, float out[3])
{
    int k = 0;
    while (k + 1 < g->nseg && g->seg[k + 1].t0 <= age)
        k++;
    const gib_seg *s = &g->seg[k];
    float dt = s->still ? 0 : age - s->t0;
    for (int j = 0; j < 3; j++)
        out[j] = s->base[j] + s->delta[j] * dt;
    out[2] -= 400 * dt * dt;
}

/* rand() of the gibbing: a xorshift of its hash */
static uint32_t gib_rand(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x & 0x7fff; /* (RAND_MAX of the game's own bg_lib rand: 0x7fff) */
}

static float gib_random(uint32_t *x) { return (float)gib_rand(x) / 32767.0f; }
static float gib_crandom(uint32_t *x) { return 2 * (gib_random(x) - 0.5f); }

/* Piece g's flight from its first segment (set by the caller, with its life): 25 ms steps
 * (cgame moves local entities each frame, here at 40 a second), traced through the map
 * (r_q3_trace); at a hit it bounces (CG_ReflectVelocity: the velocity at the hit mirrored
 * in the surface, times bounce) and stands when a floor leaves it rising slower than 40 a
 * second. A bounce's piece begins at the hit's own time, so the path is whole. When hit
 * is not NULL the first hit is put there (its time, place and the surface's normal): 1 when
 * there was one. */
static int fly(const mdl_bsp *b, gib_path *g, float bounce, float hit[7])
{
    const float step = 0.025f;
    float cur[3];
    memcpy(cur, g->seg[0].base, sizeof cur);
    g->nseg = 1;
    int hits = 0;
    for (float time = step; time < g->life && g->nseg < GIB_SEGS; time += step) {
        gib_seg *s = &g->seg[g->nseg - 1];
        if (s->still)
            break;
        float next[3], t, d[3];
        uint32_t fi;
        gib_at(g, time, next);
        for (int j = 0; j < 3; j++)
            d[j] = next[j] - cur[j];
        float len = sqrtf(dot3(d, d));
        if (!(len > 1e-4f) || !r_q3_trace(b, cur, next, &t, &fi) || !(t < len)) {
            memcpy(cur, next, sizeof cur);
            continue;
        }
        const float *n = b->faces[fi].normal;
        float hit_time = time - step + step * (t / len), at[3], v[3];
        for (int j = 0; j < 3; j++)
            at[j] = cur[j] + d[j] / len * t + 0.125f * n[j]; /* (SURFACE_CLIP_EPSILON) */
        if (!hits++ && hit) {
            hit[0] = hit_time;
            memcpy(hit + 1, at, sizeof at);
            memcpy(hit + 4, n, sizeof at);
        }
        float dt = hit_time - s->t0;
        for (int j = 0; j < 3; j++)
            v[j] = s->delta[j];
        v[2] -= 800 * dt;
        float dn = dot3(v, n);
        gib_seg *ns = &g->seg[g->nseg++];
        for (int j = 0; j < 3; j++)
            ns->delta[j] = (v[j] - 2 * dn * n[j]) * bounce;
        memcpy(ns->base, at, sizeof ns->base);
        ns->t0 = hit_time;
        ns->still = n[2] > 0 && (ns->delta[2] < 40 || ns->delta[2] < -step * ns->delta[2]);
        memcpy(cur, at, sizeof cur);
    }
    return hits > 0;
}

/* cg_effects.c CG_GibPlayer: a skull or a brain (rand() & 1), then an abdomen, an arm, a
 * chest, a fist, a foot, a forearm, intestines and two legs, each thrown from the body's
 * place at crandom() x GIB_VELOCITY 250 each way and GIB_JUMP 250 more up, for 5 to 8 s
 * (CG_LaunchGib: 5000 + random() x 3000 ms; its trTime up to 15 ms back), bouncing by 0.6
 * (fly); at its first hit a gib leaves a blood mark (CG_FragmentBounceMark:
 * bloodMarkShader, radius 16 + rand() & 31, turned at random, fading its alpha). */
static int throw_gibs(const mdl_bsp *b, const cl_fxev *e, mark_cut *c, r_mark_frag *frags,
                      float (*pts)[3], float (*st)[2])
{
    static const uint8_t order[CL_Q3_GIBS] = {0, 2, 3, 4, 5, 6, 7, 8, 9, 9};
    if (!(c->gibs = calloc(CL_Q3_GIBS, sizeof *c->gibs)))
        return 0;
    uint32_t x = mark_seed(e) | 1u;
    for (int i = 0; i < CL_Q3_GIBS; i++) {
        gib_path *g = &c->gibs[i];
        g->model = order[i];
        if (i == 0 && !(gib_rand(&x) & 1))
            g->model = 1; /* the brain */
        float vel[3] = {gib_crandom(&x) * 250, gib_crandom(&x) * 250, 250 + gib_crandom(&x) * 250};
        g->life = 5 + gib_random(&x) * 3;
        gib_seg *s = &g->seg[0];
        memcpy(s->base, e->origin, sizeof s->base);
        memcpy(s->delta, vel, sizeof s->delta);
        s->t0 = -(float)(gib_rand(&x) & 15) / 1000;
        float hit[7];
        if (fly(b, g, 0.6f, hit)) {
            float radius = (float)(16 + (gib_rand(&x) & 31));
            float orient = gib_random(&x) * 360;
            int nf = r_q3_mark_fragments(b, hit + 1, hit + 4, orient, radius, frags, pts, st);
            for (int k = 0; k < nf; k++)
                frags[k].after = hit[0];
            if (!cut_append(c, frags, nf, (const float(*)[3])pts, (const float(*)[2])st))
                return 0;
        }
    }
    return 1;
}

/* cg_weapons.c CG_MachineGunEjectBrass (style 2) and CG_ShotgunEjectBrass (3, two shells):
 * from the shooter's origin plus (8, -4, 24) (the shotgun's (8, 0, 24)) along its angles'
 * forward, left and up, at (0, -50 + 40 crandom(), 100 + 50 crandom()) (the shotgun's
 * (60 + 60 crandom(), 40 + 10 crandom(), 100 + 50 crandom())) turned the same way, for
 * cg_brassTime 2500 + random() x 625 ms (the shotgun's 7500 + random() x 2500, its shots
 * logged with the marks for 10 s), bouncing by 0.4 (0.3), tumbling from
 * (rand() & 31) degrees each way at (2, 1, 0) (1, 0.5, 0) a second; trTime up to 15 ms
 * back. Not in water (its waterScale 0.1 is left out). */
static int throw_brass(const mdl_bsp *b, const cl_fxev *e, mark_cut *c)
{
    int shotgun = e->style == 3, n = shotgun ? 2 : 1;
    if (!(c->gibs = calloc(2, sizeof *c->gibs)))
        return 0;
    float axis[3][3], right[3];
    r_angle_vectors(e->end, axis[0], right, axis[2]);
    for (int j = 0; j < 3; j++)
        axis[1][j] = -right[j]; /* (AnglesToAxis: forward, left, up) */
    uint32_t x = mark_seed(e) | 1u;
    for (int i = 0; i < n; i++) {
        gib_path *g = &c->gibs[i];
        g->model = (uint8_t)shotgun;
        float v[3];
        v[0] = shotgun ? 60 + 60 * gib_crandom(&x) : 0;
        v[1] = shotgun ? 40 + 10 * gib_crandom(&x) : -50 + 40 * gib_crandom(&x);
        v[2] = 100 + 50 * gib_crandom(&x);
        g->life = shotgun ? 7.5f + 2.5f * gib_random(&x) : 2.5f + 0.625f * gib_random(&x);
        const float off[3] = {8, shotgun ? 0 : -4, 24};
        gib_seg *s = &g->seg[0];
        for (int j = 0; j < 3; j++) {
            s->base[j] =
                e->origin[j] + off[0] * axis[0][j] + off[1] * axis[1][j] + off[2] * axis[2][j];
            s->delta[j] = v[0] * axis[0][j] + v[1] * axis[1][j] + v[2] * axis[2][j];
            g->angles[j] = (float)(gib_rand(&x) & 31);
        }
        s->t0 = -(float)(gib_rand(&x) & 15) / 1000;
        g->spin[0] = shotgun ? 1 : 2;
        g->spin[1] = shotgun ? 0.5f : 1;
        fly(b, g, shotgun ? 0.3f : 0.4f, NULL);
    }
    c->nhits = n; /* (the shells thrown) */
    return 1;
}

/* Cut mark e on map b into c (its arrays just big enough); 0 when out of memory. */
static int cut_mark(const mdl_bsp *b, const cl_fxev *e, mark_cut *c, r_mark_frag *frags,
                    float (*pts)[3], float (*st)[2])
{
    memset(c, 0, sizeof *c);
    c->t0 = e->t0;
    memcpy(c->origin, e->origin, sizeof c->origin);
    memcpy(c->end, e->end, sizeof c->end);
    c->radius = e->radius;
    c->entity = e->entity;
    c->kind = e->kind;
    c->style = e->style;
    memcpy(c->rgb, e->rgb, 3);
    if (e->kind == CL_FXK_SCORE_PLUM)
        return 1; /* (r_q3_plums draws it: no pieces) */
    if (e->kind == CL_FXK_SHOTGUN || e->kind == CL_FXK_GIBS || e->kind == CL_FXK_BRASS) {
        if (e->kind == CL_FXK_SHOTGUN ? cut_pellets(b, e, c, frags, pts, st)
            : e->kind == CL_FXK_GIBS  ? throw_gibs(b, e, c, frags, pts, st)
                                      : throw_brass(b, e, c))
            return 1;
        cut_free(c);
        return 0;
    }
    float radius, dir[3];
    r_q3_mark_kind(e->style, &radius);
    for (int j = 0; j < 3; j++)
        dir[j] = e->end[j] - e->origin[j];
    float orient = (float)(mark_seed(e) % 36000) / 100.0f;
    int nf = r_q3_mark_fragments(b, e->origin, dir, orient, radius, frags, pts, st);
    if (cut_append(c, frags, nf, (const float(*)[3])pts, (const float(*)[2])st))
        return 1;
    cut_free(c);
    return 0;
}

const r_marks *r_q3_marks_make(r_cache *cache, const r_assets *a, const cl_state *cl, double t)
{
    r_marks **slot = r_cache_marks(cache);
    if (!slot || !a || !a->world.bsp || !cl || cl->level.game != CL_GAME_Q3)
        return NULL;
    const cl_fxev *alive[R_CUTS];
    int na = alive_cuts(cl, t, alive);
    if (!*slot && !na)
        return NULL;
    if (!*slot && !(*slot = calloc(1, sizeof **slot)))
        return NULL;
    r_marks *m = *slot;
    if (m->serial != a->serial) { /* another map, or the same loaded again */
        for (int i = 0; i < m->n; i++)
            cut_free(&m->cut[i]);
        m->n = 0;
        m->serial = a->serial;
    }
    /* the marks cut before (their pieces kept), the others' dropped */
    int idx[R_CUTS];
    for (int i = 0; i < m->n; i++)
        m->cut[i].live = 0;
    for (int i = 0; i < na; i++) {
        idx[i] = -1;
        for (int k = 0; k < m->n && idx[i] < 0; k++)
            if (!m->cut[k].live && same_mark(&m->cut[k], alive[i])) {
                idx[i] = k;
                m->cut[k].live = 1;
            }
    }
    int remap[R_CUTS], kept = 0;
    for (int k = 0; k < m->n; k++) {
        if (!m->cut[k].live) {
            cut_free(&m->cut[k]);
            remap[k] = -1;
            continue;
        }
        remap[k] = kept;
        if (kept != k)
            m->cut[kept] = m->cut[k];
        kept++;
    }
    m->n = kept;
    /* the new ones cut now */
    r_mark_frag frags[R_MARK_FRAGMENTS];
    float pts[R_MARK_POINTS][3], st[R_MARK_POINTS][2];
    for (int i = 0; i < na; i++) {
        if (idx[i] >= 0) {
            idx[i] = remap[idx[i]];
            continue;
        }
        if (m->n >= R_CUTS || !cut_mark(a->world.bsp, alive[i], &m->cut[m->n], frags,
                                              pts, st))
            return NULL; /* no memory: each band cuts its own */
        m->cut[m->n].live = 1;
        idx[i] = m->n++;
    }
    m->num_frame = na;
    memcpy(m->frame, idx, (size_t)na * sizeof idx[0]);
    return m;
}

/* Pieces frags[0..nf) of a mark (their corners pts, texture coordinates st, after seconds
 * since): each on its triangle's plane, in material mat lit light. */
static void draw_frags(r_view *v, const mdl_bsp *b, const r_mark_frag *frags, int nf,
                       const float (*pts_all)[3], const float (*st_all)[2], double since,
                       int32_t mat, uint32_t light)
{
    const uint32_t corners[3] = {light, light, light};
    for (int f = 0; f < nf; f++) {
        const r_mark_frag *fr = &frags[f];
        if (fr->face >= b->num_faces || !(since >= fr->after))
            continue; /* (a gib's mark before its bounce) */
        const mdl_face *face = &b->faces[fr->face];
        const float(*pts)[3] = pts_all + fr->first;
        const float(*st)[2] = st_all + fr->first;
        float rel[3];
        for (int j = 0; j < 3; j++)
            rel[j] = v->org[j] - pts[0][j];
        if (!(dot3(face->normal, rel) > 0))
            continue; /* the wall seen from behind */
        /* on the wall's own plane: brought a little towards the eye along each corner's
         * line of sight (the shader's polygonOffset), which moves no corner on screen */
        float p[MARK_KEPT][3];
        for (int k = 0; k < fr->n && k < MARK_KEPT; k++)
            for (int j = 0; j < 3; j++)
                p[k][j] = v->org[j] + (pts[k][j] - v->org[j]) * 0.998f;
        for (int k = 1; k + 1 < fr->n && k + 1 < MARK_KEPT; k++) {
            const float tri[3][3] = {{p[0][0], p[0][1], p[0][2]},
                                     {p[k][0], p[k][1], p[k][2]},
                                     {p[k + 1][0], p[k + 1][1], p[k + 1][2]}};
            const float tst[3][2] = {{st[0][0], st[0][1]},
                                     {st[k][0], st[k][1]},
                                     {st[k + 1][0], st[k + 1][1]}};
            r_q3_model_tri(v, mat, tri, tst, corners, 0);
        }
    }
}

/* Mark c drawn at t (its pieces' corners, texture coordinates and their world triangles),
 * up to *room pieces (the pieces the game would still hold; taken from *room). */
static void draw_mark(r_view *v, const mdl_bsp *b, const mark_cut *c, double t, int *room)
{
    if (c->kind == CL_FXK_BRASS || c->kind == CL_FXK_SCORE_PLUM)
        return; /* (a shotgun's shells, logged with the marks: r_q3_gibs throws them) */
    float radius;
    int kind = c->kind == CL_FXK_GIBS ? R_Q3MARK_BLOOD
                                      : r_q3_mark_kind(c->kind == CL_FXK_SHOTGUN ? 3 : c->style,
                                                       &radius);
    uint8_t rgb[3], alpha;
    /* (a gib's marks, made at its bounces within a second or two of the gibbing, are timed
     * from the gibbing: the log keeps it 10 s, so they fade out as it ends) */
    r_q3_mark_look(kind,
                   c->kind == CL_FXK_IMPACT ? c->rgb : (const uint8_t[3]){255, 255, 255},
                   t - c->t0, rgb, &alpha);
    uint32_t light;
    int32_t mat = r_q3_mark_mat(v->assets, kind, rgb, alpha, &light);
    int nf = c->nf < *room ? c->nf : *room;
    *room -= nf;
    if (mat >= 0)
        draw_frags(v, b, c->frags, nf, (const float(*)[3])c->pts, (const float(*)[2])c->st,
                   t - c->t0, mat, light);
}

void r_q3_marks(r_view *v, const cl_state *cl, double t)
{
    const r_assets *a = v->assets;
    if (!cl || cl->level.game != CL_GAME_Q3 || v->pass != R_PASS_TEXTURED || !a ||
        !a->world.bsp)
        return;
    int room = MARK_POLYS; /* newest first, until 256 pieces */
    if (v->marks) {
        for (int i = 0; i < v->marks->num_frame && room > 0; i++)
            draw_mark(v, a->world.bsp, &v->marks->cut[v->marks->frame[i]], t, &room);
        return;
    }
    const cl_fxev *alive[CL_MARK_LOG];
    int na = cl_marks_at(cl, t, alive, CL_MARK_LOG);
    r_mark_frag frags[R_MARK_FRAGMENTS];
    float pts[R_MARK_POINTS][3], st[R_MARK_POINTS][2];
    for (int i = 0; i < na && room > 0; i++) {
        mark_cut c;
        if (!cut_mark(a->world.bsp, alive[i], &c, frags, pts, st))
            return;
        draw_mark(v, a->world.bsp, &c, t, &room);
        cut_free(&c);
    }
}

/* CG_PlayerShadow: a trace 128 units down from the body's origin (the game's box, 30 by
 * 30 by 2 units, stands here as the ray down its middle, against the drawn triangles);
 * where it meets the ground, the shadow mark of radius 24 there, on the ground's plane,
 * turned by the body's yaw, its vertex colour 1 - the trace's fraction (nearer the ground,
 * darker). Every player body but an invisible one (PW_INVIS), the view's own too (cgame
 * adds it for the predicted player, whose body only mirrors show). */
void r_q3_shadows(r_view *v, const cl_state *cl, double t)
{
    const r_assets *a = v->assets;
    const mdl_bsp *b = a ? a->world.bsp : NULL;
    if (!cl || cl->level.game != CL_GAME_Q3 || v->pass != R_PASS_TEXTURED || !b)
        return;
    r_mark_frag frags[R_MARK_FRAGMENTS];
    float pts[R_MARK_POINTS][3], st[R_MARK_POINTS][2];
    int n = cl->num_entities < CL_MAX_ENTITIES ? cl->num_entities : CL_MAX_ENTITIES;
    for (int i = 1; i < n; i++) {
        const cl_entity *e = &cl->entities[i];
        cl_entstate s;
        if (!e->active || !(e->cur.flags & CL_EF_PLAYER) || !e->cur.model ||
            !r_entity_at(a, cl, i, t, &s, NULL, NULL))
            continue;
        int slot = s.player - 1;
        if (slot >= 0 && slot < CL_MAX_PLAYERS && s.player == i &&
            (cl->players[slot].shells & CL_SHELL_INVIS))
            continue; /* (a live body's powerups: its slot's) */
        const float end[3] = {s.origin[0], s.origin[1], s.origin[2] - 128};
        float dist;
        uint32_t face;
        if (!r_q3_trace(b, s.origin, end, &dist, &face) || face >= b->num_faces)
            continue;
        const float at[3] = {s.origin[0], s.origin[1], s.origin[2] - dist};
        uint8_t c = (uint8_t)(255 * (1 - dist / 128) + 0.5f), rgb[3] = {c, c, c};
        uint32_t light;
        int32_t mat = r_q3_mark_mat(a, R_Q3MARK_SHADOW, rgb, 255, &light);
        if (mat < 0)
            continue;
        int nf = r_q3_mark_fragments(b, at, b->faces[face].normal, s.angles[1], 24, frags, pts,
                                     st);
        draw_frags(v, b, frags, nf, (const float(*)[3])pts, (const float(*)[2])st, 0, mat,
                   light);
    }
}

/* The puff of each pellet of cut c that hit a wall (CG_MissileHitWall's explosion for
 * WP_SHOTGUN: the bullet flash model and bulletExplosionShader, as the machine gun's, for
 * 600 ms). */
static void pellet_puffs(r_view *v, const mark_cut *c, double t)
{
    if (c->kind != CL_FXK_SHOTGUN || !(t - c->t0 < 0.7))
        return;
    for (int i = 0; i < c->nhits; i++) {
        cl_fxev fx;
        memset(&fx, 0, sizeof fx);
        fx.kind = CL_FXK_EXPLOSION;
        fx.style = 2; /* WP_MACHINEGUN's model and shader */
        fx.life = 0.6f;
        fx.entity = -1;
        fx.t0 = c->t0;
        for (int j = 0; j < 3; j++) {
            fx.origin[j] = c->hits[i][j];
            fx.end[j] = c->hits[i][j] + c->hits[i][3 + j];
        }
        r_q3_explosion(v, &fx, t);
    }
}

/* fn on each cut of kind alive at t: the frame's (v->marks), or each cut now and dropped
 * (no cache, or no memory for one). */
static void each_cut(r_view *v, const cl_state *cl, double t, int kind,
                     void (*fn)(r_view *, const mark_cut *, double))
{
    const r_assets *a = v->assets;
    if (!cl || cl->level.game != CL_GAME_Q3 || v->pass != R_PASS_TEXTURED || !a ||
        !a->world.bsp)
        return;
    if (v->marks) {
        for (int i = 0; i < v->marks->num_frame; i++)
            if (v->marks->cut[v->marks->frame[i]].kind == kind)
                fn(v, &v->marks->cut[v->marks->frame[i]], t);
        return;
    }
    const cl_fxev *alive[R_CUTS];
    int na = alive_cuts(cl, t, alive);
    r_mark_frag frags[R_MARK_FRAGMENTS];
    float pts[R_MARK_POINTS][3], st[R_MARK_POINTS][2];
    for (int i = 0; i < na; i++) {
        mark_cut c;
        if (alive[i]->kind != kind)
            continue;
        if (!cut_mark(a->world.bsp, alive[i], &c, frags, pts, st))
            return;
        fn(v, &c, t);
        cut_free(&c);
    }
}

void r_q3_pellet_puffs(r_view *v, const cl_state *cl, double t)
{
    each_cut(v, cl, t, CL_FXK_SHOTGUN, pellet_puffs);
}

/* The gibs of cut c at t: each model at its place, unturned (CG_LaunchGib: axisDefault),
 * sinking 16 units into the ground over its last second once it stands (SINK_TIME). */
static void draw_gibs(r_view *v, const mark_cut *c, double t)
{
    float age = (float)(t - c->t0);
    if (c->kind != CL_FXK_GIBS || !c->gibs || !(age >= 0))
        return;
    static const float axis[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < CL_Q3_GIBS; i++) {
        const gib_path *g = &c->gibs[i];
        if (!(age < g->life))
            continue;
        float at[3];
        gib_at(g, age, at);
        if (g->seg[g->nseg - 1].still && age >= g->seg[g->nseg - 1].t0 && g->life - age < 1)
            at[2] -= 16 * (1 - (g->life - age));
        r_md3_model(v, v->assets, CL_Q3_GIB_MODELS + g->model, at, axis);
    }
    /* cg_localents.c CG_BloodTrail: a flying gib leaves a bloodTrail puff every 150 ms of the
     * clock (CG_SmokePuff: radius 20, alpha 1, 2 s) where it is then; each
     * (LE_FALL_SCALE_FADE) drops 40 units over its life, grows from 16 to 36 and fades out,
     * turned at random (a hash here); CG_AddFallScaleFade frees one the eye is within its
     * radius (20) of, "so it doesn't add too much overdraw" (here: while the eye is there) */
    for (int i = 0; i < CL_Q3_GIBS; i++) {
        const gib_path *g = &c->gibs[i];
        float flies = g->seg[g->nseg - 1].still ? g->seg[g->nseg - 1].t0 : g->life;
        double first = floor((c->t0 + (age - 2 > 0 ? age - 2 : 0)) / 0.15) * 0.15;
        for (int k = 0; k < 16; k++) {
            double when = first + 0.15 * k;
            float pa = (float)(when - c->t0), puff_age = age - pa;
            if (!(pa >= 0) || pa > flies || pa > age || !(puff_age < 2))
                continue;
            float f = 1 - puff_age / 2, p[3];
            int32_t mat = r_q3_blood_trail_mat(v->assets, f);
            if (mat < 0)
                continue;
            gib_at(g, pa, p);
            p[2] -= (1 - f) * 40;
            float d2 = 0;
            for (int j = 0; j < 3; j++)
                d2 += (p[j] - v->org[j]) * (p[j] - v->org[j]);
            if (d2 < 20 * 20)
                continue;
            uint32_t h = (uint32_t)(int64_t)(when * 1000.0) * 2654435761u ^ (uint32_t)i * 40503u;
            r_q3_puff(v, mat, p, 20 * (1 - f) + 16, (float)(h % 360), puff_age);
        }
    }
}

/* The shells of cut c at t (cg_localents.c CG_AddFragment): each brass model at its place,
 * turned by its tumbling angles (LEF_TUMBLE: AnglesToAxis of angles + spin x age, kept as
 * they were when it came to rest), sinking 16 units over its last second once it lies. */
static void draw_brass(r_view *v, const mark_cut *c, double t)
{
    float age = (float)(t - c->t0);
    if (c->kind != CL_FXK_BRASS || !c->gibs || !(age >= 0))
        return;
    for (int i = 0; i < c->nhits && i < 2; i++) {
        const gib_path *g = &c->gibs[i];
        if (!(age < g->life))
            continue;
        const gib_seg *last = &g->seg[g->nseg - 1];
        int lies = last->still && age >= last->t0;
        float at[3], ang[3], axis[3][3], right[3];
        gib_at(g, age, at);
        if (lies && g->life - age < 1)
            at[2] -= 16 * (1 - (g->life - age));
        for (int j = 0; j < 3; j++)
            ang[j] = g->angles[j] + g->spin[j] * (lies ? last->t0 : age);
        r_angle_vectors(ang, axis[0], right, axis[2]);
        for (int j = 0; j < 3; j++)
            axis[1][j] = -right[j];
        r_md3_model(v, v->assets, CL_Q3_BRASS_MODELS + g->model, at, (const float(*)[3])axis);
    }
}

void r_q3_gibs(r_view *v, const cl_state *cl, double t)
{
    each_cut(v, cl, t, CL_FXK_GIBS, draw_gibs);
    each_cut(v, cl, t, CL_FXK_BRASS, draw_brass);
}


/* The pieces of cut e (gibs or brass) on map b at age: their places and whether each is at
 * rest; how many are still there. */
static int piece_places(const mdl_bsp *b, const cl_fxev *e, int kind, double age,
                        float (*out)[3], int *rest)
{
    mark_cut c;
    r_mark_frag frags[R_MARK_FRAGMENTS];
    float pts[R_MARK_POINTS][3], st[R_MARK_POINTS][2];
    if (!b || e->kind != kind || !cut_mark(b, e, &c, frags, pts, st) || !c.gibs)
        return 0;
    int n = 0, pieces = kind == CL_FXK_GIBS ? CL_Q3_GIBS : c.nhits < 2 ? c.nhits : 2;
    for (int i = 0; i < pieces; i++) {
        const gib_path *g = &c.gibs[i];
        if (!(age < g->life))
            continue;
        gib_at(g, (float)age, out[n]);
        rest[n++] = g->seg[g->nseg - 1].still && age >= g->seg[g->nseg - 1].t0;
    }
    cut_free(&c);
    return n;
}

int r_q3_gib_places(const mdl_bsp *b, const cl_fxev *e, double age, float (*out)[3],
                    int *standing)
{
    return piece_places(b, e, CL_FXK_GIBS, age, out, standing);
}

int r_q3_brass_places(const mdl_bsp *b, const cl_fxev *e, double age, float (*out)[3],
                      int *lying)
{
    return piece_places(b, e, CL_FXK_BRASS, age, out, lying);
}
