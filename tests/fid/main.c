/* main.c: build/tests/fidelity, qdemo's frames against reference frames from the real engines.
 *
 *   fidelity [--mode textured|flat|wire] [--pose engine|demo] [--sbs DIR] [-n N]
 *            [--shift SECONDS] DEMO REFDIR [-p PATH]...
 *
 * REFDIR is one folder written by ../shared/tools/engine-reference-frames (frames.csv and
 * tNNNNN.png). Prints the mean luma correlation after a 4x box downscale, the mean-luma ratio
 * and how far qdemo's recorded camera is from the engine's. Exit 0, or 1 on an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/render/render.h"
#include "fid.h"

static int usage(void)
{
    fprintf(stderr, "usage: fidelity [--mode textured|flat|wire] [--pose engine|demo] "
                    "[--sbs DIR] [-n N] [--shift SECONDS] DEMO REFDIR [-p PATH]...\n");
    return 1;
}

int main(int argc, char **argv)
{
    fid_job job;
    memset(&job, 0, sizeof job);
    job.mode = R_MODE_TEXTURED;
    job.engine_pose = 1;
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--mode") && v) {
            job.mode = !strcmp(v, "flat") ? R_MODE_FLAT
                       : !strcmp(v, "wire") ? R_MODE_WIRE
                       : !strcmp(v, "textured") ? R_MODE_TEXTURED : -1;
            if (job.mode < 0)
                return usage();
            i++;
        } else if (!strcmp(a, "--pose") && v) {
            job.engine_pose = !strcmp(v, "engine");
            i++;
        } else if (!strcmp(a, "--sbs") && v) {
            job.sbs_dir = v;
            i++;
        } else if (!strcmp(a, "--shift") && v) {
            job.shift = atof(v);
            i++;
        } else if (!strcmp(a, "-n") && v) {
            job.max_frames = atoi(v);
            i++;
        } else if (!strcmp(a, "-p") && v) {
            if (job.num_paks == 4)
                return usage();
            job.paks[job.num_paks++] = v;
            i++;
        } else if (a[0] != '-' && npos < 2) {
            pos[npos++] = a;
        } else {
            return usage();
        }
    }
    if (npos != 2)
        return usage();
    job.demo = pos[0];
    job.ref_dir = pos[1];
    fid_result r;
    qd_error err;
    memset(&err, 0, sizeof err);
    if (fid_run(&job, &r, &err) != QD_OK) {
        fprintf(stderr, "fidelity: %s\n", err.msg);
        return 1;
    }
    printf("frames %d  ncc %.4f  luma_ratio %.4f", r.frames, r.ncc, r.luma_ratio);
    if (r.posed)
        printf("  pose: max |eye diff| %.3f units, max angle diff %.3f deg (%d frames)",
               r.pose_dpos, r.pose_dang, r.posed);
    printf("\n");
    return 0;
}
