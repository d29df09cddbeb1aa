/* fid.c: the fidelity measure: reference frames from the real engines against qdemo's. */
#include "fid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image.h>

#include "../../src/app/player.h"
#include "../../src/app/world.h"
#include "../../src/common/file.h"
#include "../../src/output/out.h"

#define CSV_MAX (1u << 20)

/* The next line of text[*pos..len) into line (cut at cap - 1); 0 at the end. */
static int next_line(const char *text, size_t len, size_t *pos, char *line, size_t cap)
{
    if (*pos >= len)
        return 0;
    size_t n = 0;
    while (*pos < len && text[*pos] != '\n') {
        if (n + 1 < cap)
            line[n++] = text[*pos];
        (*pos)++;
    }
    (*pos)++;
    while (n && line[n - 1] == '\r')
        n--;
    line[n] = 0;
    return 1;
}

/* Split line at commas into at most cap fields (in place); returns the count. */
static int split(char *line, char **f, int cap)
{
    int n = 0;
    char *p = line;
    while (n < cap) {
        f[n++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p++ = 0;
    }
    return n;
}

static int number(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return end != s && *end == 0 && isfinite(*v) && fabs(*v) < 1e7;
}

int fid_frames_parse(const char *text, size_t len, fid_frame *out, int cap, qd_error *err)
{
    static const char ez[] =
        "name,shot,engine_clock_s,cls_demotime_s,t_rel_s,sim_origin_x,sim_origin_y,"
        "sim_origin_z,pitch,yaw,roll";
    static const char oa[] = "name,avi_frame,t_rel_ms";
    size_t pos = 0, at;
    char line[512];
    if (!next_line(text, len, &pos, line, sizeof line) ||
        (strcmp(line, ez) != 0 && strcmp(line, oa) != 0)) {
        qd_fail(err, QD_ERR_BAD_DATA, 0, "frames.csv: offset 0: unknown header");
        return -1;
    }
    int posed = strcmp(line, ez) == 0, n = 0;
    for (at = pos; n < cap && next_line(text, len, &pos, line, sizeof line); at = pos) {
        if (!line[0])
            continue;
        char *f[12];
        int nf = split(line, f, 12);
        double v[11];
        int ok = nf == (posed ? 11 : 3) && strlen(f[0]) == 6 && f[0][0] == 't' &&
                 strspn(f[0] + 1, "0123456789") == 5;
        for (int i = 1; ok && i < nf; i++)
            ok = number(f[i], &v[i]);
        if (!ok) {
            qd_fail(err, QD_ERR_BAD_DATA, at, "frames.csv: offset %zu: malformed row", at);
            return -1;
        }
        fid_frame *r = &out[n++];
        memset(r, 0, sizeof *r);
        memcpy(r->name, f[0], 7);
        r->has_pose = posed;
        r->t_rel = posed ? v[4] : v[2] / 1000.0;
        for (int i = 0; posed && i < 3; i++) {
            r->origin[i] = (float)v[5 + i];
            r->angles[i] = (float)v[8 + i];
        }
    }
    return n;
}

void fid_luma_fb(const rast_fb *fb, float *y)
{
    size_t n = (size_t)fb->w * (size_t)fb->h;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = fb->color[i];
        y[i] = 0.299f * (float)(c & 255) + 0.587f * (float)((c >> 8) & 255) +
               0.114f * (float)((c >> 16) & 255);
    }
}

void fid_downscale(const float *y, int w, int h, int f, float *out)
{
    int ow = w / f, oh = h / f;
    for (int oy = 0; oy < oh; oy++)
        for (int ox = 0; ox < ow; ox++) {
            double s = 0;
            for (int j = 0; j < f; j++)
                for (int i = 0; i < f; i++)
                    s += y[(size_t)(oy * f + j) * (size_t)w + (size_t)(ox * f + i)];
            out[(size_t)oy * (size_t)ow + (size_t)ox] = (float)(s / (f * f));
        }
}

double fid_mean(const float *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return n ? s / (double)n : 0;
}

double fid_ncc(const float *a, const float *b, size_t n)
{
    double ma = fid_mean(a, n), mb = fid_mean(b, n), sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; i++) {
        double da = a[i] - ma, db = b[i] - mb;
        sab += da * db;
        saa += da * da;
        sbb += db * db;
    }
    if (saa == 0 && sbb == 0)
        return ma == mb ? 1 : 0;
    if (saa == 0 || sbb == 0)
        return 0;
    return sab / sqrt(saa * sbb);
}

rast_fb *fid_load_png(const char *path, qd_error *err)
{
    int w, h, n;
    if (!stbi_info(path, &w, &h, &n)) {
        qd_fail(err, QD_ERR_BAD_DATA, 0, "%s: offset 0: not a PNG stb_image reads", path);
        return NULL;
    }
    if (w < FID_SCALE || h < FID_SCALE || w > FID_MAX_SIDE || h > FID_MAX_SIDE) {
        qd_fail(err, QD_ERR_LIMIT, 0, "%s: offset 0: %d x %d is not a frame size", path, w, h);
        return NULL;
    }
    unsigned char *rgb = stbi_load(path, &w, &h, &n, 3);
    rast_fb *fb = rgb ? rast_fb_new(w, h) : NULL;
    if (!fb) {
        stbi_image_free(rgb);
        qd_fail(err, rgb ? QD_ERR_NOMEM : QD_ERR_BAD_DATA, 0, "%s: offset 0: %s", path,
                rgb ? "out of memory" : "damaged PNG");
        return NULL;
    }
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        fb->color[i] = rast_rgb(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
    stbi_image_free(rgb);
    return fb;
}

/* Angle difference in degrees, folded into [0, 180]. */
static double angle_diff(double a, double b)
{
    double d = fmod(fabs(a - b), 360.0);
    return d > 180 ? 360 - d : d;
}

/* Write engine | qdemo side by side as dir/name.png. */
static qd_err write_sbs(const char *dir, const char *name, const rast_fb *ref,
                        const rast_fb *ours, qd_error *err)
{
    rast_fb *s = rast_fb_new(ref->w * 2, ref->h);
    if (!s)
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    for (int y = 0; y < ref->h; y++) {
        memcpy(s->color + (size_t)y * (size_t)s->w, ref->color + (size_t)y * (size_t)ref->w,
               (size_t)ref->w * 4);
        memcpy(s->color + (size_t)y * (size_t)s->w + (size_t)ref->w,
               ours->color + (size_t)y * (size_t)ref->w, (size_t)ref->w * 4);
    }
    uint8_t *png = NULL;
    size_t len = 0;
    qd_err e = out_png_encode(s, &png, &len, err);
    rast_fb_free(s);
    if (e != QD_OK)
        return e;
    char file[32];
    snprintf(file, sizeof file, "%.6s.png", name);
    char *path = qd_path_join(dir, file);
    e = path ? qd_replace_file(path, png, len, err)
             : qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    free(path);
    free(png);
    return e;
}

/* Everything fid_run holds, freed in one place. */
typedef struct fid_ctx {
    timeline_t *tl;
    app_world world;
    rast_fb *ref, *ours;
    float *yr, *yo, *sr, *so;
} fid_ctx;

static void ctx_free(fid_ctx *c)
{
    app_world_free(&c->world);
    rast_fb_free(c->ref);
    rast_fb_free(c->ours);
    free(c->yr);
    free(c->yo);
    free(c->sr);
    free(c->so);
    if (c->tl)
        tl_close(c->tl);
}

/* Compare one reference frame r (its picture already in c->ref); adds to the sums. */
static qd_err one_frame(const fid_job *job, fid_ctx *c, const app_opts *o, const fid_frame *r,
                        double sums[3], fid_result *res, qd_error *err)
{
    int w = c->ref->w, h = c->ref->h;
    if (!c->ours || c->ours->w != w || c->ours->h != h) {
        rast_fb_free(c->ours);
        free(c->yr);
        free(c->yo);
        free(c->sr);
        free(c->so);
        size_t n = (size_t)w * (size_t)h;
        c->ours = rast_fb_new(w, h);
        c->yr = malloc(n * sizeof(float));
        c->yo = malloc(n * sizeof(float));
        c->sr = malloc(n * sizeof(float));
        c->so = malloc(n * sizeof(float));
        if (!c->ours || !c->yr || !c->yo || !c->sr || !c->so)
            return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    }
    double t = tl_start(c->tl) + r->t_rel + job->shift;
    const cl_state *cl = tl_state_at(c->tl, t, err);
    if (!cl)
        return err->code;
    app_world_update(&c->world, o, cl);
    static player p; /* large; one caller at a time (the tests and the tool are serial) */
    player_init(&p, c->tl, w, h);
    r_camera cam;
    r_options opt;
    player_camera(&p, cl, t, &cam);
    player_options(&p, cl, &opt);
    opt.mode = job->mode;
    /* the reference frames are captured without the first-person weapon
     * (engine-reference-frames sets r_drawviewmodel 0 in ezQuake, cg_drawGun 0 in ioquake3) */
    opt.gun = 0;
    if (r->has_pose) {
        /* ezQuake's $cam_pos is the body's origin (cl.simorg); V_CalcRefdef puts the eye
         * cl.viewheight above it: the demo's view height, as qdemo's recorded camera has it */
        float eye[3] = {r->origin[0], r->origin[1], r->origin[2] + cl->view.view_height};
        double d2 = 0, da = 0;
        /* the engine's angles are its view's before V_CalcRefdef rolls it (a dead
         * player's roll 80 is not in $cam_angles): pitch and yaw compared and taken, the
         * roll the engine's but for a dead view's 80, qdemo's (the capture turns the
         * other rolls off: cl_rollangle 0, v_kicktime 0) */
        for (int i = 0; i < 3; i++) {
            double d = cam.origin[i] - eye[i];
            d2 += d * d;
            double a = i < 2 ? angle_diff(cam.angles[i], r->angles[i]) : 0;
            da = a > da ? a : da;
        }
        if (sqrt(d2) > res->pose_dpos)
            res->pose_dpos = sqrt(d2);
        if (da > res->pose_dang)
            res->pose_dang = da;
        res->posed++;
        if (job->engine_pose) {
            memcpy(cam.origin, eye, sizeof cam.origin);
            cam.angles[0] = r->angles[0];
            cam.angles[1] = r->angles[1];
            if (cam.angles[2] != 80)
                cam.angles[2] = r->angles[2];
        }
    }
    r_render(c->world.assets, cl, t, &cam, &opt, c->ours);
    fid_luma_fb(c->ref, c->yr);
    fid_luma_fb(c->ours, c->yo);
    fid_downscale(c->yr, w, h, FID_SCALE, c->sr);
    fid_downscale(c->yo, w, h, FID_SCALE, c->so);
    size_t n = (size_t)(w / FID_SCALE) * (size_t)(h / FID_SCALE);
    sums[0] += fid_ncc(c->so, c->sr, n);
    sums[1] += fid_mean(c->so, n);
    sums[2] += fid_mean(c->sr, n);
    if (job->sbs_dir)
        return write_sbs(job->sbs_dir, r->name, c->ref, c->ours, err);
    return QD_OK;
}

qd_err fid_run(const fid_job *job, fid_result *res, qd_error *err)
{
    memset(res, 0, sizeof *res);
    char *csv_path = qd_path_join(job->ref_dir, "frames.csv");
    if (!csv_path)
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    uint8_t *csv;
    size_t csv_len;
    qd_err e = qd_read_input(csv_path, CSV_MAX, &csv, &csv_len, err);
    if (e != QD_OK) {
        free(csv_path);
        return e;
    }
    static fid_frame rows[FID_MAX_FRAMES];
    int nrows = fid_frames_parse((const char *)csv, csv_len, rows, FID_MAX_FRAMES, err);
    free(csv);
    if (nrows < 0) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg + strlen("frames.csv: "));
        e = qd_fail(err, err->code, err->offset, "%s: %s", csv_path, why);
    }
    free(csv_path);
    if (nrows < 0)
        return e;
    if (job->max_frames > 0 && nrows > job->max_frames)
        nrows = job->max_frames;
    app_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < job->num_paks && i < 4; i++)
        o.paks[o.num_paks++] = job->paks[i];
    fid_ctx c;
    memset(&c, 0, sizeof c);
    demo_t *d = demo_open(job->demo, err);
    if (d)
        c.tl = tl_open(d, 0, err); /* owns d from here, also on failure */
    double sums[3] = {0, 0, 0};
    e = c.tl ? QD_OK : err->code;
    for (int k = 0; e == QD_OK && k < nrows; k++) {
        char file[32];
        snprintf(file, sizeof file, "%.6s.png", rows[k].name);
        char *path = qd_path_join(job->ref_dir, file);
        if (!path) {
            e = qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
            break;
        }
        rast_fb_free(c.ref);
        c.ref = fid_load_png(path, err);
        free(path);
        if (!c.ref) {
            e = err->code;
            break;
        }
        e = one_frame(job, &c, &o, &rows[k], sums, res, err);
        res->frames += e == QD_OK;
    }
    if (e == QD_OK && res->frames) {
        res->ncc = sums[0] / res->frames;
        res->luma_ratio = sums[2] > 0 ? sums[1] / sums[2] : 0;
    }
    ctx_free(&c);
    return e;
}
