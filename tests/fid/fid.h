/* fid.h: fidelity against the real engines: qdemo's frame of a reference frame's moment,
 * compared after a 4x box downscale by the normalised cross-correlation and the mean of luma. */
#ifndef QD_FID_H
#define QD_FID_H

#include <stddef.h>

#include "../../src/common/err.h"
#include "../../src/render/rast.h"

#define FID_MAX_FRAMES 64
#define FID_MAX_SIDE 4096 /* reference frames wider or taller than this are refused */
#define FID_SCALE 4       /* the box downscale before comparing */

/* One row of a reference set's frames.csv (written by ../shared/tools/engine-reference-frames):
 * the picture tNNNNN.png shows the demo at t_rel seconds after its first time stamp; ezQuake's
 * rows also give the engine's camera (has_pose). */
typedef struct fid_frame {
    char name[16];
    double t_rel;
    int has_pose;
    float origin[3], angles[3];
} fid_frame;

/* Parse frames.csv text (header line first). Two layouts: ezQuake's
 * "name,shot,engine_clock_s,cls_demotime_s,t_rel_s,x,y,z,pitch,yaw,roll" and ioquake3's
 * "name,avi_frame,t_rel_ms". Returns the number of rows (at most cap), or -1 with err set on
 * an unknown header, a malformed row or a name that is not tNNNNN. */
int fid_frames_parse(const char *text, size_t len, fid_frame *out, int cap, qd_error *err);

/* Luma (BT.601 weights on the stored 8-bit values) of each pixel of fb into y (w*h). */
void fid_luma_fb(const rast_fb *fb, float *y);
/* y (w x h) box-averaged over f x f blocks into out ((w/f) x (h/f)); a partial last row or
 * column of blocks is dropped. f >= 1. */
void fid_downscale(const float *y, int w, int h, int f, float *out);
/* Normalised cross-correlation of a and b (n values): sum((a-ma)(b-mb)) / sqrt(sum(a-ma)^2
 * sum(b-mb)^2); 1 when both are constant and equal, 0 when only one is constant. */
double fid_ncc(const float *a, const float *b, size_t n);
double fid_mean(const float *a, size_t n);

/* The PNG at path as a new framebuffer (caller frees with rast_fb_free), or NULL with err
 * set. Decoded by stb_image (its implementation: tests/fid/stbi.c). */
rast_fb *fid_load_png(const char *path, qd_error *err);

typedef struct fid_job {
    const char *demo;
    const char *paks[4];   /* the search path, as qdemo's -p */
    int num_paks;
    const char *ref_dir;   /* frames.csv and tNNNNN.png */
    int mode;              /* R_MODE_* */
    int engine_pose;       /* 1: render from the engine's camera where frames.csv has one */
    int max_frames;        /* 0: every row */
    double shift;          /* seconds added to every frame's time (0: none; a diagnostic) */
    const char *sbs_dir;   /* when set: engine | qdemo side by side as NAME.png there */
} fid_job;

typedef struct fid_result {
    int frames;
    double ncc;            /* mean over frames */
    double luma_ratio;     /* mean luma of qdemo's frames / the engine's */
    double pose_dpos;      /* largest distance between the engine's and qdemo's eye */
    double pose_dang;      /* largest angle difference (degrees) */
    int posed;             /* frames that had an engine pose */
} fid_result;

/* Render and compare every reference frame of job. Returns QD_OK, or an error (a missing
 * or damaged reference file, a demo that does not open) with err saying which file. */
qd_err fid_run(const fid_job *job, fid_result *res, qd_error *err);

#endif
