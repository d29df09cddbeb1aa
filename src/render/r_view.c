/* r_view.c: the camera (Quake angles, FOV), frustum tests, and exact view-space clipping and
 * projection of polygons and lines for the rasteriser. */
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "r_local.h"

#define DEG2RAD 0.017453292519943295

void r_angle_vectors(const float angles[3], float fwd[3], float right[3], float up[3])
{
    /* Quake's AngleVectors (mathlib.c): angles are pitch, yaw, roll; forward z is -sin(pitch),
     * so a positive pitch looks down. */
    double sp = sin(angles[0] * DEG2RAD), cp = cos(angles[0] * DEG2RAD);
    double sy = sin(angles[1] * DEG2RAD), cy = cos(angles[1] * DEG2RAD);
    double sr = sin(angles[2] * DEG2RAD), cr = cos(angles[2] * DEG2RAD);
    fwd[0] = (float)(cp * cy);
    fwd[1] = (float)(cp * sy);
    fwd[2] = (float)-sp;
    right[0] = (float)(-sr * sp * cy + cr * sy);
    right[1] = (float)(-sr * sp * sy - cr * cy);
    right[2] = (float)(-sr * cp);
    up[0] = (float)(cr * sp * cy + sr * sy);
    up[1] = (float)(cr * sp * sy - sr * cy);
    up[2] = (float)(cr * cp);
}

void r_view_setup(r_view *v, const r_camera *cam, rast_fb *fb)
{
    memset(v, 0, sizeof *v);
    v->fb = fb;
    v->y1 = fb->h; /* all rows unless r_render gives a band */
    memcpy(v->org, cam->origin, sizeof v->org);
    memcpy(v->angles, cam->angles, sizeof v->angles);
    r_angle_vectors(cam->angles, v->fwd, v->right, v->up);
    double fov = cam->fov > 1 && cam->fov < 179 ? cam->fov : 90.0;
    /* Keep the vertical FOV of the 4:3 case (as modern ports do for wide screens):
     * fov_y = 2 atan(tan(fov/2) * 3/4), then fov_x follows the real aspect. */
    double ty = tan(fov * 0.5 * DEG2RAD) * 0.75;
    double tx = ty * (double)fb->w / (double)fb->h;
    v->tan_x = (float)tx;
    v->tan_y = (float)ty;
    v->scale = (float)(fb->h * 0.5 / ty);
    v->cx = (float)fb->w * 0.5f;
    v->cy = (float)fb->h * 0.5f;
    /* Inward planes: near, then left, right, bottom, top through the eye. */
    float n[5][3];
    for (int j = 0; j < 3; j++) {
        n[0][j] = v->fwd[j];
        n[1][j] = v->right[j] + v->tan_x * v->fwd[j];
        n[2][j] = -v->right[j] + v->tan_x * v->fwd[j];
        n[3][j] = v->up[j] + v->tan_y * v->fwd[j];
        n[4][j] = -v->up[j] + v->tan_y * v->fwd[j];
    }
    for (int i = 0; i < 5; i++) {
        memcpy(v->frustum[i], n[i], sizeof n[i]);
        v->frustum[i][3] = dot3(n[i], v->org) + (i == 0 ? R_NEAR : 0.0f);
    }
}

int r_box_visible(const r_view *v, const float mins[3], const float maxs[3])
{
    for (int i = 0; i < 5; i++) {
        const float *p = v->frustum[i];
        float far[3];
        for (int j = 0; j < 3; j++)
            far[j] = p[j] >= 0 ? maxs[j] : mins[j];
        if (dot3(p, far) < p[3])
            return 0;
    }
    return 1;
}

uint32_t r_shade(uint32_t c, float light)
{
    if (!(light > 0))
        return c & 0xff000000u;
    float k = light * (256.0f / 128.0f) * R_LIGHT_LIFT; /* the channel factor in 1/256 */
    unsigned s = k >= 2048 ? 2048 : (unsigned)(k + 0.5f);
    uint32_t out = c & 0xff000000u;
    for (int sh = 0; sh < 24; sh += 8) {
        unsigned ch = ((c >> sh & 255) * s + 128) >> 8;
        out |= (uint32_t)(ch > 255 ? 255 : ch) << sh;
    }
    return out;
}

/* ---- view space: x right, y up, z forward ---- */

typedef struct vpt {
    float x, y, z;
} vpt;

static vpt to_view(const r_view *v, const float p[3])
{
    float d[3] = {p[0] - v->org[0], p[1] - v->org[1], p[2] - v->org[2]};
    vpt o = {dot3(d, v->right), dot3(d, v->up), dot3(d, v->fwd)};
    return o;
}

/* Signed distance of p to clip plane i (>= 0 inside): near, then the guard band sides. */
static float plane_dist(const r_view *v, int i, vpt p)
{
    switch (i) {
    case 0:
        return p.z - R_NEAR;
    case 1:
        return R_GUARD * v->tan_x * p.z - p.x;
    case 2:
        return R_GUARD * v->tan_x * p.z + p.x;
    case 3:
        return R_GUARD * v->tan_y * p.z - p.y;
    case 4:
        return R_GUARD * v->tan_y * p.z + p.y;
    default: /* a mirror view's plane (r_view.clip_on) */
        return v->clipv[0] * p.x + v->clipv[1] * p.y + v->clipv[2] * p.z - v->clipv[3];
    }
}

static unsigned outcode(const r_view *v, vpt p)
{
    /* plane_dist's five distances, the same products in the same order, without its
     * switch */
    float gx = R_GUARD * v->tan_x * p.z, gy = R_GUARD * v->tan_y * p.z;
    return (unsigned)!(p.z - R_NEAR >= 0) | (unsigned)!(gx - p.x >= 0) << 1 |
           (unsigned)!(gx + p.x >= 0) << 2 | (unsigned)!(gy - p.y >= 0) << 3 |
           (unsigned)!(gy + p.y >= 0) << 4;
}

static vpt lerp_pt(vpt a, vpt b, float t)
{
    vpt o = {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
    return o;
}

/* Sutherland-Hodgman against one plane into out (room for cap points); returns the new
 * count. A convex polygon gains at most one point per plane; one that is not convex gains
 * one per edge that crosses, and when that would pass cap it is dropped (-1 is returned). */
static int clip_plane(const r_view *v, int plane, const vpt *in, int n, vpt *out, int cap)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m + 2 > cap)
            return -1;
        vpt a = in[i], b = in[(i + 1) % n];
        float da = plane_dist(v, plane, a), db = plane_dist(v, plane, b);
        if (da >= 0)
            out[m++] = a;
        if ((da >= 0) != (db >= 0)) {
            vpt c = lerp_pt(a, b, da / (da - db));
            if (plane == 0)
                c.z = R_NEAR; /* exactly on the near plane */
            out[m++] = c;
        }
    }
    return m;
}

static rast_vert project(const r_view *v, vpt p)
{
    float iz = 1.0f / p.z;
    rast_vert o = {v->cx + p.x * v->scale * iz, v->cy - p.y * v->scale * iz,
                   iz + iz * v->zrel + v->zbias};
    return o;
}

int r_box_hidden(const r_view *v, const float mins[3], const float maxs[3])
{
    rast_fb *fb = v->fb;
    if (!fb || (v->pass != R_PASS_FLAT && v->pass != R_PASS_TEXTURED))
        return 0;
    float x0 = 0, x1 = 0, y0 = 0, y1 = 0, z = 0;
    for (int i = 0; i < 8; i++) {
        const float c[3] = {i & 1 ? maxs[0] : mins[0], i & 2 ? maxs[1] : mins[1],
                            i & 4 ? maxs[2] : mins[2]};
        vpt q = to_view(v, c);
        if (!(q.z >= R_NEAR))
            return 0; /* (a corner behind the eye: no rectangle holds it) */
        rast_vert r = project(v, q);
        if (!(fabsf(r.x) < 1e7f && fabsf(r.y) < 1e7f && r.z > 0))
            return 0;
        x0 = i == 0 || r.x < x0 ? r.x : x0;
        x1 = i == 0 || r.x > x1 ? r.x : x1;
        y0 = i == 0 || r.y < y0 ? r.y : y0;
        y1 = i == 0 || r.y > y1 ? r.y : y1;
        z = i == 0 || r.z > z ? r.z : z;
    }
    /* the pixels whose centres the box's outline can hold */
    return r_rect_hidden(v, x0, y0, x1, y1, 0, z);
}

int r_rect_hidden(const r_view *v, float x0, float y0, float x1, float y1, int margin,
                  float z)
{
    rast_fb *fb = v->fb;
    int px0 = (int)floorf(x0) - margin, px1 = (int)ceilf(x1) + 1 + margin,
        py0 = (int)floorf(y0) - margin, py1 = (int)ceilf(y1) + 1 + margin;
    px0 = px0 < 0 ? 0 : px0;
    px1 = px1 > fb->w ? fb->w : px1;
    py0 = py0 < v->y0 ? v->y0 : py0;
    py1 = py1 > v->y1 ? v->y1 : py1;
    if (px1 <= px0 || py1 <= py0)
        return 1; /* none of its pixels in this band */
    return rast_rect_hidden(fb, px0, py0, px1, py1, z);
}

/* pts (n points) in view space clipped to the near plane and the guard band into buf's
 * rows; the clipped count (under 3: nothing to draw) and the row holding it in *which. */
static int clip_poly(const r_view *v, const float (*pts)[3], int n, vpt buf[2][R_MAX_POLY],
                     int *which)
{
    *which = 0;
    if (n < 3 || n > MDL_BSP_MAX_FACE_VERTS)
        return 0;
    unsigned all = v->clip_on ? 0x3f : 0x1f, any = 0;
    for (int i = 0; i < n; i++) {
        buf[0][i] = to_view(v, pts[i]);
        unsigned c = outcode(v, buf[0][i]);
        if (v->clip_on)
            c |= (unsigned)!(plane_dist(v, 5, buf[0][i]) >= 0) << 5;
        all &= c;
        any |= c;
    }
    if (all)
        return 0; /* wholly outside one plane */
    int cur = 0;
    for (int p = 0; p < 6 && n >= 3; p++) {
        if (!(any >> p & 1))
            continue;
        n = clip_plane(v, p, buf[cur], n, buf[cur ^ 1], R_MAX_POLY);
        cur ^= 1;
    }
    if (n < 3)
        return 0;
    for (int i = 0; i < n; i++)
        if (!isfinite(buf[cur][i].x) || !isfinite(buf[cur][i].y) || !isfinite(buf[cur][i].z))
            return 0; /* NaN or infinite coordinates from a damaged model */
    *which = cur;
    return n;
}

int r_outside_band(const r_view *v, const float (*pts)[3], int n)
{
    if (v->y0 <= 0 && v->y1 >= v->fb->h)
        return 0; /* the whole frame: its own frustum culled already */
    float lo = 0, hi = 0;
    for (int k = 0; k < n; k++) {
        vpt q = to_view(v, pts[k]);
        if (!(q.z >= R_NEAR))
            return 0; /* clipped at the near plane: left to the clipper */
        float y = project(v, q).y; /* as draw_poly projects it */
        lo = k == 0 || y < lo ? y : lo;
        hi = k == 0 || y > hi ? y : hi;
    }
    /* a row is drawn where its centre lies inside; vertices snap by under a pixel */
    return hi < (float)v->y0 - R_BAND_MARGIN || lo > (float)v->y1 + R_BAND_MARGIN;
}

/* The polygons draw_poly sends for a clipped polygon of n points: fans of 64 at most. */
static int fan_pieces(int n)
{
    return n >= 3 ? (n - 2 + 61) / 62 : 0;
}

int r_poly_outside_rows(r_view *v, const float (*pts)[3], int n, float *area)
{
    vpt buf[2][R_MAX_POLY];
    int cur;
    if (area)
        *area = 0;
    n = clip_poly(v, pts, n, buf, &cur);
    if (n < 3)
        return 1; /* draw_poly draws and counts nothing of it either */
    rast_vert p0 = project(v, buf[cur][0]), prev = p0;
    float lo = p0.y, hi = lo, twice = 0;
    for (int i = 1; i < n; i++) {
        rast_vert p = project(v, buf[cur][i]);
        lo = p.y < lo ? p.y : lo;
        hi = p.y > hi ? p.y : hi;
        twice += prev.x * p.y - p.x * prev.y; /* the shoelace */
        prev = p;
    }
    if (area)
        *area = fabsf(twice + prev.x * p0.y - p0.x * prev.y) * 0.5f;
    /* a row is drawn where its centre y + 0.5 lies inside; vertices snap by under a pixel;
     * the guard band lets a polygon lie wholly above or below the frame */
    int y0 = v->y0 > 0 ? v->y0 : 0, y1 = v->y1 < v->fb->h ? v->y1 : v->fb->h;
    if (!(hi < (float)y0 - 1.0f || lo > (float)y1 + 1.0f))
        return 0;
    v->count += fan_pieces(n);
    return 1;
}

/* Clipped points pts (n of them, in view space) projected now (the view's zrel and zbias)
 * and filled as a fan from vertex 0 in pieces of at most 64 vertices. */
static inline void draw_clipped(r_view *v, const vpt *pts, int n, uint32_t color,
                                const rast_tex *tex, unsigned flags)
{
    if (n < 3)
        return;
    if (v->cover && flags == RAST_OPAQUE)
        flags |= RAST_COVER; /* the world's walk is nearest first (r_draw_world) */
    rast_vert rv[64];
    rv[0] = project(v, pts[0]);
    for (int start = 1; start + 1 < n; start += 62) {
        int k = n - start < 63 ? n - start : 63;
        for (int i = 0; i < k; i++)
            rv[1 + i] = project(v, pts[start + i]);
        if (tex)
            rast_polygon_tex_rows(v->fb, rv, k + 1, tex, flags, v->y0, v->y1);
        else
            rast_polygon_rows(v->fb, rv, k + 1, color, flags, v->y0, v->y1);
        v->count++;
    }
}

static void draw_poly(r_view *v, const float (*pts)[3], int n, uint32_t color,
                      const rast_tex *tex, unsigned flags)
{
    vpt buf[2][R_MAX_POLY];
    int cur;
    n = clip_poly(v, pts, n, buf, &cur);
    draw_clipped(v, buf[cur], n, color, tex, flags);
}

void r_clip_poly(const r_view *v, const float (*pts)[3], int n, r_clipped *out)
{
    vpt buf[2][R_MAX_POLY];
    int cur;
    n = clip_poly(v, pts, n, buf, &cur);
    out->n = n < 3 ? 0 : n;
    for (int i = 0; i < out->n; i++) {
        out->p[i][0] = buf[cur][i].x;
        out->p[i][1] = buf[cur][i].y;
        out->p[i][2] = buf[cur][i].z;
    }
}

void r_draw_clipped_tex(r_view *v, const r_clipped *c, const rast_tex *tex, unsigned flags)
{
    vpt buf[R_MAX_POLY];
    for (int i = 0; i < c->n; i++) {
        vpt q = {c->p[i][0], c->p[i][1], c->p[i][2]};
        buf[i] = q;
    }
    draw_clipped(v, buf, c->n, 0, tex, flags);
}

int r_project_point(const r_view *v, const float p[3], float out[2])
{
    vpt q = to_view(v, p);
    if (!(q.z >= R_NEAR))
        return 0;
    rast_vert r = project(v, q);
    out[0] = r.x;
    out[1] = r.y;
    return 1;
}

unsigned r_view_vert(const r_view *v, const float p[3], rast_vert *out)
{
    vpt q = to_view(v, p);
    unsigned c = outcode(v, q);
    if (v->clip_on && !(plane_dist(v, 5, q) >= 0))
        c |= R_VERT_CLIP;
    if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z))
        c |= R_VERT_BAD;
    if (q.z >= R_NEAR)
        *out = project(v, q);
    else
        c |= R_VERT_BEHIND;
    return c;
}

void r_view_verts(const r_view *v, const float (*p)[3], uint32_t n, rast_vert *out,
                  uint8_t *code)
{
    uint32_t i = 0;
#if defined(__SSE2__)
    /* four at a time, each lane the operations of to_view, outcode, plane_dist and project
     * in their order (SSE rounds each as the scalar code: no contraction, division exact) */
    const __m128 zero = _mm_setzero_ps();
    const float *axes[3] = {v->right, v->up, v->fwd};
    for (; i + 4 <= n; i += 4) {
        __m128 d[3], q[3];
        for (int j = 0; j < 3; j++)
            d[j] = _mm_sub_ps(_mm_setr_ps(p[i][j], p[i + 1][j], p[i + 2][j], p[i + 3][j]),
                              _mm_set1_ps(v->org[j]));
        for (int k = 0; k < 3; k++)
            q[k] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(d[0], _mm_set1_ps(axes[k][0])),
                                         _mm_mul_ps(d[1], _mm_set1_ps(axes[k][1]))),
                              _mm_mul_ps(d[2], _mm_set1_ps(axes[k][2])));
        __m128 gx = _mm_mul_ps(_mm_set1_ps(R_GUARD * v->tan_x), q[2]),
               gy = _mm_mul_ps(_mm_set1_ps(R_GUARD * v->tan_y), q[2]);
        __m128 plane = _mm_sub_ps(
            _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(v->clipv[0]), q[0]),
                                  _mm_mul_ps(_mm_set1_ps(v->clipv[1]), q[1])),
                       _mm_mul_ps(_mm_set1_ps(v->clipv[2]), q[2])),
            _mm_set1_ps(v->clipv[3]));
        /* outcode's bits, then R_VERT_CLIP, R_VERT_BAD and R_VERT_BEHIND, as lanes' masks */
        const __m128 out_of[8] = {
            _mm_cmpnge_ps(_mm_sub_ps(q[2], _mm_set1_ps(R_NEAR)), zero),
            _mm_cmpnge_ps(_mm_sub_ps(gx, q[0]), zero),
            _mm_cmpnge_ps(_mm_add_ps(gx, q[0]), zero),
            _mm_cmpnge_ps(_mm_sub_ps(gy, q[1]), zero),
            _mm_cmpnge_ps(_mm_add_ps(gy, q[1]), zero),
            v->clip_on ? _mm_cmpnge_ps(plane, zero) : zero,
            /* x - x is 0 exactly where x is finite */
            _mm_or_ps(_mm_or_ps(_mm_cmpneq_ps(_mm_sub_ps(q[0], q[0]), zero),
                                _mm_cmpneq_ps(_mm_sub_ps(q[1], q[1]), zero)),
                      _mm_cmpneq_ps(_mm_sub_ps(q[2], q[2]), zero)),
            _mm_cmpnge_ps(q[2], _mm_set1_ps(R_NEAR))};
        static const unsigned bit[8] = {1, 2, 4, 8, 16, R_VERT_CLIP, R_VERT_BAD, R_VERT_BEHIND};
        __m128i c = _mm_setzero_si128();
        for (int b = 0; b < 8; b++)
            c = _mm_or_si128(c, _mm_and_si128(_mm_castps_si128(out_of[b]),
                                              _mm_set1_epi32((int)bit[b])));
        c = _mm_packs_epi32(c, c);
        uint32_t codes = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(c, c));
        memcpy(code + i, &codes, 4);
        __m128 iz = _mm_div_ps(_mm_set1_ps(1.0f), q[2]);
        __m128 scale = _mm_set1_ps(v->scale);
        float sx[4], sy[4], sz[4];
        _mm_storeu_ps(sx, _mm_add_ps(_mm_set1_ps(v->cx), _mm_mul_ps(_mm_mul_ps(q[0], scale), iz)));
        _mm_storeu_ps(sy, _mm_sub_ps(_mm_set1_ps(v->cy), _mm_mul_ps(_mm_mul_ps(q[1], scale), iz)));
        _mm_storeu_ps(sz, _mm_add_ps(_mm_add_ps(iz, _mm_mul_ps(iz, _mm_set1_ps(v->zrel))),
                                     _mm_set1_ps(v->zbias)));
        for (int k = 0; k < 4; k++)
            if (!(code[i + k] & R_VERT_BEHIND)) {
                rast_vert r = {sx[k], sy[k], sz[k]};
                out[i + k] = r;
            }
    }
#endif
    for (; i < n; i++)
        code[i] = (uint8_t)r_view_vert(v, p[i], &out[i]);
}

/* draw_poly's path for a polygon clip_poly leaves as it is (no plane to cut, every
 * coordinate finite): the points' projections as one fan. */
int r_emit_tri_inside(r_view *v, const rast_vert rv[3], uint32_t color)
{
    if (v->pass != R_PASS_FLAT && v->pass != R_PASS_TEXTURED)
        return 0;
    unsigned flags = v->cover ? RAST_OPAQUE | RAST_COVER : RAST_OPAQUE;
    rast_polygon_rows(v->fb, rv, 3, color, flags, v->y0, v->y1);
    v->count++;
    return 1;
}

void r_draw_poly(r_view *v, const float (*pts)[3], int n, uint32_t color, unsigned flags)
{
    draw_poly(v, pts, n, color, NULL, flags);
}

int r_screen_poly(const r_view *v, const float (*pts)[3], int n, rast_vert out[R_MAX_POLY])
{
    vpt buf[2][R_MAX_POLY];
    int cur;
    n = clip_poly(v, pts, n, buf, &cur);
    for (int i = 0; i < n; i++)
        out[i] = project(v, buf[cur][i]);
    return n < 3 ? 0 : n;
}

void r_draw_poly_tex(r_view *v, const float (*pts)[3], int n, const rast_tex *tex,
                     unsigned flags)
{
    draw_poly(v, pts, n, 0, tex, flags);
}

void r_draw_line(r_view *v, const float a[3], const float b[3], uint32_t color, unsigned flags)
{
    vpt p = to_view(v, a), q = to_view(v, b);
    float t0 = 0, t1 = 1;
    for (int i = 0; i < 5; i++) {
        float dp = plane_dist(v, i, p), dq = plane_dist(v, i, q);
        if (dp < 0 && dq < 0)
            return;
        if (!(dp >= 0 && dq >= 0)) {
            float t = dp / (dp - dq);
            if (!(t == t))
                return;
            if (dp < 0) {
                if (t > t0)
                    t0 = t;
            } else if (t < t1) {
                t1 = t;
            }
        }
    }
    if (t0 >= t1)
        return;
    vpt c = lerp_pt(p, q, t0), d = lerp_pt(p, q, t1);
    if (c.z < R_NEAR)
        c.z = R_NEAR;
    if (d.z < R_NEAR)
        d.z = R_NEAR;
    rast_line_rows(v->fb, project(v, c), project(v, d), color, flags, v->y0, v->y1);
    v->count++;
}

void r_emit_poly(r_view *v, const float (*pts)[3], int n, uint32_t fill, uint32_t line)
{
    switch (v->pass) {
    case R_PASS_FLAT:
    case R_PASS_TEXTURED:
        r_draw_poly(v, pts, n, fill, RAST_OPAQUE);
        break;
    case R_PASS_DEPTH:
        r_draw_poly(v, pts, n, 0, RAST_DEPTH_TEST | RAST_DEPTH_WRITE);
        break;
    default:
        for (int i = 0; i < n; i++)
            r_draw_line(v, pts[i], pts[i + 1 < n ? i + 1 : 0], line,
                        RAST_COLOR_WRITE | (v->xray ? 0 : RAST_DEPTH_TEST));
        break;
    }
}

void r_xform_setup(r_xform *x, const float origin[3], const float angles[3], float scale)
{
    memcpy(x->origin, origin, sizeof x->origin);
    float a[3] = {-angles[0], angles[1], angles[2]}, fwd[3], right[3], up[3];
    r_angle_vectors(a, fwd, right, up);
    for (int j = 0; j < 3; j++) {
        x->axis[0][j] = fwd[j] * scale;
        x->axis[1][j] = -right[j] * scale;
        x->axis[2][j] = up[j] * scale;
    }
    x->identity = angles[0] == 0 && angles[1] == 0 && angles[2] == 0 && scale == 1;
}

void r_xform_point(const r_xform *x, const float in[3], float out[3])
{
    if (x->identity) {
        for (int j = 0; j < 3; j++)
            out[j] = in[j] + x->origin[j];
        return;
    }
    for (int j = 0; j < 3; j++)
        out[j] = x->origin[j] + in[0] * x->axis[0][j] + in[1] * x->axis[1][j] +
                 in[2] * x->axis[2][j];
}

void r_draw_box(r_view *v, const r_xform *x, const float mins[3], const float maxs[3],
                uint32_t color)
{
    if (v->pass == R_PASS_DEPTH)
        return;
    float c[8][3];
    for (int i = 0; i < 8; i++) {
        float p[3] = {i & 1 ? maxs[0] : mins[0], i & 2 ? maxs[1] : mins[1],
                      i & 4 ? maxs[2] : mins[2]};
        r_xform_point(x, p, c[i]);
    }
    /* the 12 edges join corners that differ in one bit */
    for (int i = 0; i < 8; i++)
        for (int b = 1; b < 8; b <<= 1)
            if (!(i & b))
                r_draw_line(v, c[i], c[i | b], color,
                            RAST_COLOR_WRITE | (v->xray ? 0 : RAST_DEPTH_TEST));
}

uint32_t r_wire_color(uint32_t c)
{
    unsigned r = c & 255, g = c >> 8 & 255, b = c >> 16 & 255;
    unsigned m = r > g ? (r > b ? r : b) : (g > b ? g : b);
    if (m >= 200)
        return c | 0xff000000u;
    if (m == 0)
        return rast_rgb(96, 96, 96);
    return rast_rgb(r * 200 / m, g * 200 / m, b * 200 / m);
}
