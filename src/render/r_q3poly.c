/* r_q3poly.c: Quake III triangles joined back into the convex polygons they were cut from.
 *
 * A Quake III map stores each brush face as a few triangles of one surface (a wall is two);
 * drawn one by one, every row of such a face costs a span set-up per triangle. Where a run
 * of consecutive triangles lies in one plane, with one shader and one lightmap page, tiles
 * a convex polygon exactly (their outline is one convex loop whose area is theirs), and
 * carries texture and lightmap coordinates that are one affine map of the position, the
 * run is drawn as that polygon: the same pixels (the rasteriser's fill rule gives the
 * union of the triangles' pixels) with one span a row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "r_local.h"

#define GROUP_MAX 32     /* triangles a run may join */
#define POLY_CORNERS 60  /* corners its outline may have (the rasteriser's polygons: 64) */
#define PLANE_EPS 1e-5   /* normals within this of each other (1 - dot), dists 0.01 */
#define ST_EPS 1e-4      /* texture repeats: a tenth of a texel of a 1024 image */
#define LM_EPS 1e-5      /* lightmap page widths: an eightieth of a luxel */
#define AREA_EPS 1e-4    /* relative */
/* Edge comparisons all runs of a map may take (a run of n costs about 9 n^2 a step): past
 * it the rest of the map's triangles stay triangles, so a hostile map of millions of
 * coplanar fans loads in bounded time. Real maps take a few million. */
#define WORK_BUDGET 200000000ull

static double dot3d(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Whether faces f and g of b can share a polygon: one shader, one lightmap page, drawn, and
 * one plane. */
static int same_plane(const mdl_bsp *b, uint32_t f, uint32_t g)
{
    const mdl_face *a = &b->faces[f], *c = &b->faces[g];
    if (a->texture != c->texture || b->face_q3[f].lightmap != b->face_q3[g].lightmap ||
        b->face_q3[f].lightmap < 0 || ((a->flags | c->flags) & MDL_SURF_NODRAW) ||
        a->num_verts != 3 || c->num_verts != 3)
        return 0;
    double d = (double)a->normal[0] * c->normal[0] + (double)a->normal[1] * c->normal[1] +
               (double)a->normal[2] * c->normal[2];
    return d > 1 - PLANE_EPS && fabs((double)a->dist - c->dist) < 0.01;
}

/* The affine map through corners p of values a (as r_q3surf.c's planes are made): value at
 * x = dot(A, x) + c. 0 when the corners are degenerate. */
static int affine3(const float (*p)[3], const double a[3], double A[3], double *c)
{
    double e1[3], e2[3];
    for (int j = 0; j < 3; j++) {
        e1[j] = (double)p[1][j] - p[0][j];
        e2[j] = (double)p[2][j] - p[0][j];
    }
    double g11 = dot3d(e1, e1), g12 = dot3d(e1, e2), g22 = dot3d(e2, e2);
    double det = g11 * g22 - g12 * g12;
    if (!(fabs(det) > 1e-12))
        return 0;
    double d1 = a[1] - a[0], d2 = a[2] - a[0];
    double al = (d1 * g22 - d2 * g12) / det, be = (d2 * g11 - d1 * g12) / det;
    *c = a[0];
    for (int j = 0; j < 3; j++) {
        A[j] = al * e1[j] + be * e2[j];
        *c -= A[j] * p[0][j];
    }
    return 1;
}

/* Whether faces first..first+n-1 carry the head's texture and lightmap maps at every corner. */
static int one_mapping(const mdl_bsp *b, uint32_t first, uint32_t n)
{
    const float(*hp)[3] = (const float(*)[3])b->verts[b->faces[first].first_vert];
    const mdl_face_q3 *h = &b->face_q3[first];
    double A[4][3], c[4];
    for (int k = 0; k < 4; k++) {
        double v[3];
        for (int i = 0; i < 3; i++)
            v[i] = k < 2 ? h->st[i][k] : h->lm[i][k - 2];
        if (!affine3(hp, v, A[k], &c[k]))
            return 0;
    }
    for (uint32_t f = first + 1; f < first + n; f++) {
        const float(*p)[3] = (const float(*)[3])b->verts[b->faces[f].first_vert];
        const mdl_face_q3 *q = &b->face_q3[f];
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 4; k++) {
                double x[3] = {p[i][0], p[i][1], p[i][2]};
                double want = k < 2 ? q->st[i][k] : q->lm[i][k - 2];
                if (!(fabs(dot3d(A[k], x) + c[k] - want) <= (k < 2 ? ST_EPS : LM_EPS)))
                    return 0;
            }
    }
    return 1;
}

/* The outline of faces first..first+n-1 into out (in the triangles' winding) when they tile
 * one convex polygon; its corner count, or 0. */
static int outline(const mdl_bsp *b, uint32_t first, uint32_t n, float (*out)[3])
{
    enum { MAXV = 3 * GROUP_MAX };
    const float *vp[MAXV];
    int nv = 0, tri[GROUP_MAX][3];
    for (uint32_t t = 0; t < n; t++)
        for (int k = 0; k < 3; k++) {
            const float *p = b->verts[b->faces[first + t].first_vert + (uint32_t)k];
            int id = -1;
            for (int i = 0; i < nv && id < 0; i++)
                if (vp[i][0] == p[0] && vp[i][1] == p[1] && vp[i][2] == p[2])
                    id = i;
            if (id < 0) {
                id = nv;
                vp[nv++] = p;
            }
            tri[t][k] = id;
        }
    /* the directed edges met once (their reverse in no triangle) are the outline's; one met
     * twice means overlapping triangles */
    int next[MAXV], nb = 0;
    for (int i = 0; i < nv; i++)
        next[i] = -1;
    for (uint32_t t = 0; t < n; t++)
        for (int k = 0; k < 3; k++) {
            int u = tri[t][k], w = tri[t][(k + 1) % 3], fwd = 0, rev = 0;
            if (u == w)
                return 0;
            for (uint32_t s = 0; s < n; s++)
                for (int j = 0; j < 3; j++) {
                    int a = tri[s][j], c = tri[s][(j + 1) % 3];
                    fwd += a == u && c == w;
                    rev += a == w && c == u;
                }
            if (fwd != 1 || rev > 1)
                return 0;
            if (!rev) {
                if (next[u] >= 0)
                    return 0; /* two outline edges leave one corner: not one simple loop */
                next[u] = w;
                nb++;
            }
        }
    /* one loop through every outline edge */
    int start = -1;
    for (int i = 0; i < nv && start < 0; i++)
        if (next[i] >= 0)
            start = i;
    if (start < 0 || nb > POLY_CORNERS)
        return 0;
    int loop[MAXV], m = 0;
    for (int u = start; m <= nb;) {
        loop[m++] = u;
        u = next[u];
        if (u < 0)
            return 0;
        if (u == start)
            break;
    }
    if (m != nb)
        return 0;
    /* convex, turning the triangles' way (drop corners on a straight line), and of their
     * area: no gaps, no overlaps */
    const mdl_face *h = &b->faces[first];
    double N[3] = {h->normal[0], h->normal[1], h->normal[2]};
    double tri_area = 0;
    for (uint32_t t = 0; t < n; t++) {
        const float(*p)[3] = (const float(*)[3])b->verts[b->faces[first + t].first_vert];
        double e1[3], e2[3], c[3];
        for (int j = 0; j < 3; j++) {
            e1[j] = (double)p[1][j] - p[0][j];
            e2[j] = (double)p[2][j] - p[0][j];
        }
        c[0] = e1[1] * e2[2] - e1[2] * e2[1];
        c[1] = e1[2] * e2[0] - e1[0] * e2[2];
        c[2] = e1[0] * e2[1] - e1[1] * e2[0];
        tri_area += -dot3d(c, N); /* the normal points against cross(b - a, c - a) */
    }
    if (!(tri_area > 0))
        return 0;
    int k = 0;
    double poly_area = 0;
    for (int i = 0; i < m; i++) {
        const float *a = vp[loop[(i + m - 1) % m]], *p = vp[loop[i]], *c = vp[loop[(i + 1) % m]];
        double e1[3], e2[3], x[3];
        for (int j = 0; j < 3; j++) {
            e1[j] = (double)p[j] - a[j];
            e2[j] = (double)c[j] - p[j];
        }
        x[0] = e1[1] * e2[2] - e1[2] * e2[1];
        x[1] = e1[2] * e2[0] - e1[0] * e2[2];
        x[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double turn = -dot3d(x, N), len = sqrt(dot3d(e1, e1) * dot3d(e2, e2));
        if (turn < -1e-9 * len)
            return 0; /* a reflex corner */
        if (turn <= 1e-9 * len)
            continue; /* straight on */
        memcpy(out[k++], p, sizeof out[0]);
    }
    if (k < 3)
        return 0;
    for (int i = 1; i + 1 < k; i++) {
        double e1[3], e2[3], x[3];
        for (int j = 0; j < 3; j++) {
            e1[j] = (double)out[i][j] - out[0][j];
            e2[j] = (double)out[i + 1][j] - out[0][j];
        }
        x[0] = e1[1] * e2[2] - e1[2] * e2[1];
        x[1] = e1[2] * e2[0] - e1[0] * e2[2];
        x[2] = e1[0] * e2[1] - e1[1] * e2[0];
        poly_area += -dot3d(x, N);
    }
    return fabs(poly_area - tri_area) <= AREA_EPS * tri_area ? k : 0;
}

void r_q3_groups_free(r_bsp *rb)
{
    free(rb->group);
    free(rb->poly_n);
    free(rb->poly_first);
    free(rb->poly_pts);
    rb->group = rb->poly_n = NULL;
    rb->poly_first = NULL;
    rb->poly_pts = NULL;
}

int r_q3_groups(r_bsp *rb)
{
    const mdl_bsp *b = rb->bsp;
    r_q3_groups_free(rb);
    if (!b || !b->face_q3 || !b->num_faces)
        return 1;
    uint32_t nf = b->num_faces;
    rb->group = calloc(nf, 1);
    rb->poly_n = calloc(nf, 1);
    rb->poly_first = calloc(nf, sizeof *rb->poly_first);
    size_t cap = 1024, used = 0;
    rb->poly_pts = malloc(cap * sizeof *rb->poly_pts);
    if (!rb->group || !rb->poly_n || !rb->poly_first || !rb->poly_pts) {
        r_q3_groups_free(rb);
        return 0;
    }
    float best[POLY_CORNERS][3], cand[POLY_CORNERS][3];
    uint64_t work = 0;
    for (uint32_t f = 0; f < nf;) {
        /* grow the run while it stays one convex polygon with one mapping */
        uint32_t n = 1;
        int k = 0;
        while (n < GROUP_MAX && f + n < nf && same_plane(b, f, f + n) && work < WORK_BUDGET) {
            work += 9ull * (n + 1) * (n + 1) + 16;
            int kk = outline(b, f, n + 1, cand);
            if (!kk || !one_mapping(b, f, n + 1))
                break;
            n++;
            k = kk;
            memcpy(best, cand, (size_t)kk * sizeof best[0]);
        }
        if (n >= 2) {
            if (used + (size_t)k > cap) {
                size_t nc = cap * 2 + (size_t)k;
                float(*np)[3] = realloc(rb->poly_pts, nc * sizeof *np);
                if (!np) {
                    r_q3_groups_free(rb);
                    return 0;
                }
                rb->poly_pts = np;
                cap = nc;
            }
            rb->group[f] = (uint8_t)n;
            rb->poly_n[f] = (uint8_t)k;
            rb->poly_first[f] = (uint32_t)used;
            memcpy(rb->poly_pts + used, best, (size_t)k * sizeof best[0]);
            used += (size_t)k;
        }
        f += n;
    }
    return 1;
}
