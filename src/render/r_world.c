/* r_world.c: draws the world BSP (camera leaf, PVS, front-to-back walk with frustum culling,
 * back-face culling) and brush models (submodels and item .bsp files) at their placement. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "r_local.h"

/* Quake's BACKFACE_EPSILON (r_local.h): a face is drawn when the eye is this far in front. */
#define BACKFACE_EPSILON 0.01f

static void draw_face(r_view *v, const r_bsp *rb, uint32_t fi, const float eye[3], int frame)
{
    const mdl_bsp *b = rb->bsp;
    const mdl_face *f = &b->faces[fi];
    if (f->flags & MDL_SURF_NODRAW)
        return;
    if ((v->pass == R_PASS_TEXTURED || v->pass == R_PASS_Q3_BLEND) && v->assets &&
        v->assets->q3 && rb == &v->assets->world) {
        r_q3_face(v, rb, fi, eye); /* culls by its shader */
        return;
    }
    if (!v->xray && dot3(f->normal, eye) - f->dist <= BACKFACE_EPSILON)
        return;
    const float(*pts)[3] = (const float(*)[3])b->verts[f->first_vert];
    if (v->pass == R_PASS_TEXTURED)
        r_surf_face(v, rb, fi, NULL, frame, pts, (int)f->num_verts);
    else
        r_emit_poly(v, pts, (int)f->num_verts, rb->flat[fi], rb->wire[fi]);
}

/* The child of node on the eye's side (0 front, 1 back), or -1 when the node's box is
 * outside the frustum. */
static int near_side(const r_view *v, const mdl_bsp *b, const mdl_node *node)
{
    if (!r_box_visible(v, node->mins, node->maxs))
        return -1;
    const mdl_plane *pl = &b->planes[node->plane];
    return dot3(pl->normal, v->org) - pl->dist >= 0 ? 0 : 1;
}

/* Draw the faces of each node on the node's plane, in front-to-back order: the nearer
 * child's subtree, the node's faces, the farther child's (Quake's R_RecursiveWorldNode:
 * the node's plane separates what is nearer than its faces from what is farther). Only
 * faces that visible[] marks 1 (they become 2); nodes outside the frustum are skipped.
 * Opaque fills then cover their pixels (RAST_COVER), so what lies behind reads no texel. */
static void draw_nodes(r_view *v, const r_bsp *rb, uint8_t *visible)
{
    const mdl_bsp *b = rb->bsp;
    /* entries: a node to open (>= 0), or ~n: node n's faces */
    int32_t stack[3 * MDL_BSP_MAX_DEPTH + 8];
    int sp = 0;
    stack[sp++] = b->models[0].headnode;
    v->cover = 1;
    while (sp > 0) {
        int32_t n = stack[--sp];
        if (n < 0) {
            const mdl_node *node = &b->nodes[~n];
            for (uint32_t k = 0; k < node->num_faces; k++)
                if (visible[node->first_face + k] == 1) {
                    visible[node->first_face + k] = 2; /* drawn */
                    draw_face(v, rb, node->first_face + k, v->org, R_WORLD_FRAME);
                }
            continue;
        }
        const mdl_node *node = &b->nodes[n];
        /* as the frame's walk found it, where it came (the same test, the same answer) */
        const r_walk *w = v->walk;
        int side = w && (uint32_t)n < w->num_nodes ? w->side[n] : R_WALK_UNSEEN;
        if (side == R_WALK_UNSEEN)
            side = near_side(v, b, node);
        if (side < 0 || sp + 3 > (int)(sizeof stack / sizeof stack[0]))
            continue; /* outside the frustum; the stack cannot fill: depth is capped */
        if (node->children[side ^ 1] >= 0)
            stack[sp++] = node->children[side ^ 1]; /* far side, popped last */
        stack[sp++] = ~n;
        if (node->children[side] >= 0)
            stack[sp++] = node->children[side];
    }
    v->cover = 0;
}

/* The n faces of list (a walk's) nearest first: each by the squared distance from eye to
 * its nearest corner, a float's bits (as unsigned they order as the floats do, for these
 * are never negative), sorted by four stable byte passes; equal ones keep the walk's
 * order (so a Quake III run of triangles listed in turn, r_q3_group's, stays in turn: its
 * triangles share corners and take the run's least). A new list; NULL out of memory.
 * A Quake III map's faces lie in its leaves only, and the walk lists them leaf by leaf: a
 * face reached from a near leaf may lie far, and a leaf's faces come in the file's order.
 * Drawn nearest first, more of what lies behind finds its pixels taken: fewer texels read
 * and lit (rast.c box_hidden drops a hidden face whole). The same picture: each opaque
 * pixel keeps the nearest depth whatever the order, but where two faces lie at exactly
 * the same depth (a patch and a brush face on one plane), which was first. */
static uint32_t *near_first(const mdl_bsp *b, const uint8_t *group, const uint32_t *list,
                            uint32_t n, const float eye[3])
{
    uint32_t *out = malloc((n ? n : 1) * sizeof *out), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    uint32_t *key = malloc((n ? n : 1) * sizeof *key), *tkey = malloc((n ? n : 1) * sizeof *tkey);
    if (!out || !tmp || !key || !tkey) {
        free(out);
        free(tmp);
        free(key);
        free(tkey);
        return NULL;
    }
    for (uint32_t k = 0; k < n; k++) {
        const mdl_face *f = &b->faces[list[k]];
        float best = INFINITY;
        for (uint32_t j = 0; j < f->num_verts; j++) {
            const float *p = b->verts[f->first_vert + j];
            const float d[3] = {p[0] - eye[0], p[1] - eye[1], p[2] - eye[2]};
            const float dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            best = dd < best ? dd : best;
        }
        best = best >= 0 ? best : INFINITY; /* (a NaN corner: last) */
        memcpy(&key[k], &best, sizeof key[k]);
        out[k] = list[k];
    }
    /* a run listed in turn (r_draw_world's test for one) takes its least key */
    for (uint32_t k = 0; group && k < n; k++) {
        const uint32_t fi = list[k], g = group[fi];
        if (g < 2 || g > n - k)
            continue;
        uint32_t j = 1, least = key[k];
        while (j < g && list[k + j] == fi + j) {
            least = key[k + j] < least ? key[k + j] : least;
            j++;
        }
        if (j < g)
            continue;
        for (j = 0; j < g; j++)
            key[k + j] = least;
        k += g - 1;
    }
    for (int pass = 0; pass < 4; pass++) {
        uint32_t count[257] = {0};
        const int sh = 8 * pass;
        for (uint32_t k = 0; k < n; k++)
            count[(key[k] >> sh & 255) + 1]++;
        for (int c = 0; c < 256; c++)
            count[c + 1] += count[c];
        for (uint32_t k = 0; k < n; k++) {
            uint32_t at = count[key[k] >> sh & 255]++;
            tmp[at] = out[k];
            tkey[at] = key[k];
        }
        uint32_t *t = out;
        out = tmp;
        tmp = t;
        t = key;
        key = tkey;
        tkey = t;
    }
    free(tmp);
    free(key);
    free(tkey);
    return out;
}

/* Walk the world tree from its root, nearer child first, skipping nodes and leaves outside
 * the frustum and leaves outside the PVS (of v->pvs_org, or the eye); each leaf's faces are
 * visible, listed in w in the order the walk first reaches them. The depth of the tree is
 * capped at load, so a fixed stack suffices. */
int r_walk_make(const r_view *v, const r_assets *a, r_walk *w)
{
    w->faces = w->near = NULL;
    w->side = NULL;
    w->n = w->num_nodes = 0;
    const r_bsp *rb = a ? &a->world : NULL;
    const mdl_bsp *b = rb ? rb->bsp : NULL;
    if (!b)
        return 0;
    const mdl_submodel *world = &b->models[0];
    uint32_t visleafs = world->visleafs;
    const float *eye = v->pvs_org ? v->pvs_org : v->org;
    uint32_t cam_leaf = mdl_bsp_point_leaf(b, world->headnode, eye);
    uint8_t *pvs = malloc(mdl_bsp_pvs_size(b));
    uint8_t *seen = calloc(b->num_faces ? b->num_faces : 1, 1);
    w->faces = malloc((b->num_faces ? b->num_faces : 1) * sizeof *w->faces);
    w->side = malloc(b->num_nodes ? b->num_nodes : 1);
    if (!pvs || !seen || !w->faces || !w->side) {
        free(pvs);
        free(seen);
        r_walk_free(w);
        return 0;
    }
    mdl_bsp_pvs(b, cam_leaf, pvs);
    memset(w->side, R_WALK_UNSEEN, b->num_nodes);
    w->num_nodes = b->num_nodes;
    int32_t stack[2 * MDL_BSP_MAX_DEPTH + 8];
    int sp = 0;
    stack[sp++] = world->headnode;
    while (sp > 0) {
        int32_t n = stack[--sp];
        if (n >= 0) {
            const mdl_node *node = &b->nodes[n];
            int side = near_side(v, b, node);
            w->side[n] = (int8_t)side;
            if (side < 0 || sp + 2 > (int)(sizeof stack / sizeof stack[0]))
                continue; /* outside the frustum; the stack cannot fill: depth is capped */
            stack[sp++] = node->children[side ^ 1]; /* far side, popped last */
            stack[sp++] = node->children[side];
            continue;
        }
        uint32_t li = (uint32_t)(-(n + 1));
        if (li == 0 || li > visleafs || !(pvs[(li - 1) >> 3] >> ((li - 1) & 7) & 1))
            continue;
        const mdl_leaf *leaf = &b->leaves[li];
        if (!r_box_visible(v, leaf->mins, leaf->maxs))
            continue;
        for (uint32_t k = 0; k < leaf->num_marks; k++) {
            uint32_t fi = b->marks[leaf->first_mark + k];
            if (!seen[fi]) {
                seen[fi] = 1;
                w->faces[w->n++] = fi; /* each face once: n <= num_faces */
            }
        }
    }
    free(pvs);
    free(seen);
    if (b->face_q3)
        w->near = near_first(b, rb->group, w->faces, w->n, v->org);
    return 1;
}

void r_walk_free(r_walk *w)
{
    free(w->faces);
    free(w->near);
    free(w->side);
    w->faces = w->near = NULL;
    w->side = NULL;
    w->n = w->num_nodes = 0;
}

/* The world from the walk (v->walk, or one made here): a Quake III map (faces in leaves
 * only) draws the faces in the walk's order; the others in node order (draw_nodes). */
void r_draw_world(r_view *v, const r_assets *a)
{
    const r_bsp *rb = &a->world;
    const mdl_bsp *b = rb->bsp;
    r_walk own = {NULL, NULL, 0, NULL, 0};
    const r_walk *w = v->walk;
    if (!w && r_walk_make(v, a, &own))
        w = v->walk = &own; /* draw_nodes reads its sides too */
    uint8_t *drawn = calloc(b->num_faces ? b->num_faces : 1, 1);
    /* node order where the nodes hold the faces (Quake, Quake II), for the opaque passes */
    int by_node = !b->face_q3 && (v->pass == R_PASS_TEXTURED || v->pass == R_PASS_FLAT) &&
                  !v->xray;
    /* a band left uncleared (render_band) is cleared here, or walked on stale rows: the
     * front-to-back walk writes each covered pixel once, the rest are cleared after it */
    int stale = v->clear_pending && by_node && w && drawn;
    if (v->clear_pending && !stale)
        rast_clear_rows(v->fb, v->clear_color, v->y0, v->y1);
    v->clear_pending = 0;
    if (!w || !drawn)
        goto out;
    /* a Quake III run of triangles that makes one polygon (r_q3poly.c) goes in one call
     * where the walk lists it whole, as it does a surface's triangles */
    const int runs = rb->group && v->pass == R_PASS_TEXTURED && v->assets && v->assets->q3 &&
                     rb == &v->assets->world;
    /* Quake III's opaque pass nearest first (near_first) */
    const uint32_t *order = v->pass == R_PASS_TEXTURED && w->near ? w->near : w->faces;
    for (uint32_t k = 0; k < w->n; k++) {
        uint32_t fi = order[k];
        if (fi >= b->num_faces)
            continue; /* (a walk of this map lists none) */
        drawn[fi] = 1;
        if (by_node)
            continue;
        uint32_t g = runs ? rb->group[fi] : 0;
        if (g >= 2 && g <= w->n - k) {
            uint32_t j = 1;
            while (j < g && order[k + j] == fi + j)
                j++;
            if (j == g && r_q3_group(v, rb, fi, v->org)) {
                for (j = 1; j < g; j++)
                    drawn[fi + j] = 1;
                k += g - 1;
                continue;
            }
        }
        draw_face(v, rb, fi, v->org, R_WORLD_FRAME);
    }
    if (by_node) {
        if (stale)
            rast_cover_begin_stale(v->fb, v->clear_color, v->y0, v->y1);
        else
            rast_cover_reset(v->fb, v->y0, v->y1);
        draw_nodes(v, rb, drawn);
        /* faces no node holds (a map whose nodes list none): by the depth test alone */
        for (uint32_t fi = 0; fi < b->num_faces; fi++)
            if (drawn[fi] == 1)
                draw_face(v, rb, fi, v->org, R_WORLD_FRAME);
        if (stale)
            rast_finish_rows(v->fb, v->y0, v->y1);
    }
out:
    free(drawn);
    if (v->walk == &own)
        v->walk = NULL;
    r_walk_free(&own);
}

/* A brush model: faces first_face..+num_faces of rb's map, placed by x. Back faces are culled
 * against the eye carried into the model's frame. */
void r_draw_brush(r_view *v, const r_bsp *rb, const mdl_submodel *m, const r_xform *x,
                  int frame)
{
    /* Cull by the model's bounds: exact when only translated, else a sphere's box. */
    float mins[3], maxs[3];
    if (x->identity) {
        for (int j = 0; j < 3; j++) {
            mins[j] = m->mins[j] + x->origin[j];
            maxs[j] = m->maxs[j] + x->origin[j];
        }
    } else {
        float r = 0;
        for (int j = 0; j < 3; j++) {
            float e = m->mins[j] < 0 ? -m->mins[j] : m->mins[j];
            float f = m->maxs[j] < 0 ? -m->maxs[j] : m->maxs[j];
            r += (e > f ? e : f) * (e > f ? e : f);
        }
        float s = x->axis[0][0] * x->axis[0][0] + x->axis[0][1] * x->axis[0][1] +
                  x->axis[0][2] * x->axis[0][2];
        r = sqrtf(r * s);
        for (int j = 0; j < 3; j++) {
            mins[j] = x->origin[j] - r;
            maxs[j] = x->origin[j] + r;
        }
    }
    if (!r_box_visible(v, mins, maxs))
        return;
    /* The eye in the model's frame: the transpose of the (orthogonal, scaled) axes. */
    float rel[3] = {v->org[0] - x->origin[0], v->org[1] - x->origin[1], v->org[2] - x->origin[2]};
    float eye[3];
    if (x->identity) {
        memcpy(eye, rel, sizeof eye);
    } else {
        for (int i = 0; i < 3; i++) {
            float l2 = dot3(x->axis[i], x->axis[i]);
            eye[i] = l2 > 0 ? dot3(rel, x->axis[i]) / l2 : 0;
        }
    }
    const mdl_bsp *b = rb->bsp;
    float pts[R_MAX_POLY][3];
    for (uint32_t k = 0; k < m->num_faces; k++) {
        uint32_t fi = m->first_face + k;
        const mdl_face *f = &b->faces[fi];
        if (f->flags & MDL_SURF_NODRAW || f->num_verts > MDL_BSP_MAX_FACE_VERTS)
            continue; /* the loaders cap num_verts; pts has room for that many */
        if (!v->xray && dot3(f->normal, eye) - f->dist <= BACKFACE_EPSILON)
            continue;
        if (x->identity && x->origin[0] == 0 && x->origin[1] == 0 && x->origin[2] == 0) {
            draw_face(v, rb, fi, eye, frame);
            continue;
        }
        for (uint32_t i = 0; i < f->num_verts; i++)
            r_xform_point(x, b->verts[f->first_vert + i], pts[i]);
        if (v->pass == R_PASS_TEXTURED && v->assets && v->assets->q3 && rb == &v->assets->world &&
            f->num_verts == 3)
            r_q3_face_at(v, rb, fi, (const float(*)[3])pts); /* (a Quake III mover) */
        else if (v->pass == R_PASS_TEXTURED)
            r_surf_face(v, rb, fi, x, frame, (const float(*)[3])pts, (int)f->num_verts);
        else
            r_emit_poly(v, (const float(*)[3])pts, (int)f->num_verts, rb->flat[fi],
                        rb->wire[fi]);
    }
}
