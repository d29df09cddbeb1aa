/* fuzz_timeline.c: libFuzzer target for the timeline: index arbitrary bytes as a demo, then
 * seek to times taken from the input, forward and backward. Nothing may crash or hang,
 * tl_state_at may return NULL only when memory runs out, and every seek must give exactly
 * the state a plain decode from the start gives (timeline.h's definition of "the state at
 * time t").
 *
 * Input layout: the demo's bytes, then 8 control bytes (an input of 8 bytes or less is all
 * demo): byte 0 picks the keyframe interval (its bits 0-1) and the seek's look-back bound
 * (bits 2-3: the bound in use, or 0, 4 KiB, 64 KiB, so that inputs this small reach it;
 * under a lowered bound only the keyframe part must match, the effects begun before it
 * being left out by design), bytes 1..7 are seek targets, each a fraction of the demo's
 * span (0 is before the start, 255 past the end). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/demo/demo.h"
#include "../../src/timeline/timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CTRL_LEN 8

/* The reference: decode from the start until the first block whose end leaves a frame at
 * time >= t, or the end, or an error. */
static void decode_to(demo_t *d, cl_state *cl, double t)
{
    qd_error err;
    demo_rewind(d, &err);
    cl_reset(cl);
    int done = 0;
    while (!(cl->frame_count > 0 && cl->time >= t)) {
        if (demo_step(d, cl, NULL, &done, &err) != QD_OK || done)
            break;
    }
}

static double seek_target(const timeline_t *tl, uint8_t b)
{
    double start = tl_start(tl), end = tl_end(tl);
    if (b == 0)
        return start - 1.0;
    if (b == 255)
        return end + 1.0;
    if (b == 254) /* exactly the last frame: the end is a boundary worth hitting */
        return end;
    if (b == 1)
        return start;
    return start + (end - start) * (b / 255.0);
}

/* The effects alive at t, the same in both states, in the same order. */
static int same_fx(const cl_state *a, const cl_state *b, double t)
{
    static const cl_fxev *fa[CL_FX_LOG], *fb[CL_FX_LOG];
    int na = cl_fx_at(a, t, fa, CL_FX_LOG), nb = cl_fx_at(b, t, fb, CL_FX_LOG);
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (memcmp(fa[i], fb[i], sizeof *fa[i]) != 0)
            return 0;
    return 1;
}

static int fx_checked = 1; /* 0 under a lowered look-back bound */

static void check_seek(timeline_t *tl, demo_t *ref, cl_state *ref_cl, double t)
{
    qd_error err;
    const cl_state *s = tl_state_at(tl, t, &err);
    if (!s) {
        if (err.code == QD_ERR_NOMEM)
            return;
        fprintf(stderr, "tl_state_at(%.17g) returned NULL: %s\n", t, err.msg);
        abort();
    }
    decode_to(ref, ref_cl, t);
    /* Everything a keyframe holds is equal; the effect log is not in keyframes, so only the
     * effects alive at t must be (cl.h: a seek's log is a suffix of a play's). */
    if (memcmp(s, ref_cl, CL_KEYFRAME_BYTES) != 0 || (fx_checked && !same_fx(s, ref_cl, t))) {
        fprintf(stderr, "tl_state_at(%.17g): time %.17g frames %u, a decode from the start "
                "gives time %.17g frames %u\n", t, s->time, (unsigned)s->frame_count,
                ref_cl->time, (unsigned)ref_cl->frame_count);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cl_state *ref_cl;
    if (!ref_cl && !(ref_cl = malloc(sizeof *ref_cl)))
        return 0;
    uint8_t ctrl[CTRL_LEN] = {0, 128, 64, 200, 1, 254, 255, 0};
    if (size > CTRL_LEN) {
        memcpy(ctrl, data + size - CTRL_LEN, CTRL_LEN);
        size -= CTRL_LEN;
    }
    qd_error err;
    demo_t *d = demo_open_mem("fuzz.dem", data, size, &err);
    if (!d)
        return 0;
    demo_t *ref = demo_open_mem("fuzz.dem", data, size, &err);
    if (!ref) {
        demo_close(d);
        return 0;
    }
    static const double intervals[4] = {0, 0.5, 1.0, 2.0};
    static const uint64_t bounds[4] = {TL_SEEK_BYTES, 0, 4096, 65536};
    tl_seek_bytes = bounds[ctrl[0] >> 2 & 3];
    fx_checked = tl_seek_bytes == TL_SEEK_BYTES;
    timeline_t *tl = tl_open(d, intervals[ctrl[0] & 3], &err);
    if (!tl) {
        demo_close(ref);
        return 0;
    }

    for (int i = 1; i < CTRL_LEN; i++)
        check_seek(tl, ref, ref_cl, seek_target(tl, ctrl[i]));

    /* Frame stepping and marks: walk a few frames each way from the last seek. */
    double t = seek_target(tl, ctrl[CTRL_LEN - 1]);
    for (int i = 0; i < 4; i++)
        check_seek(tl, ref, ref_cl, t = tl_next_frame(tl, t));
    for (int i = 0; i < 4; i++)
        check_seek(tl, ref, ref_cl, t = tl_prev_frame(tl, t));
    uint32_t n = tl_num_frames(tl);
    for (uint32_t i = 1; i < n; i++)
        if (tl_frame_time(tl, i) < tl_frame_time(tl, i - 1))
            abort(); /* frame times run backwards */
    for (const tl_mark *m = tl_find_mark(tl, tl_start(tl) - 1.0, 1, TL_MARKS_ALL); m;
         m = tl_find_mark(tl, m->time, 1, TL_MARKS_ALL))
        if (!memchr(m->text, 0, sizeof m->text))
            abort();
    for (const tl_mark *m = tl_find_mark(tl, tl_end(tl) + 1.0, -1, TL_MARKS_ALL); m;
         m = tl_find_mark(tl, m->time, -1, TL_MARKS_ALL))
        (void)tl_mark_kind_name((tl_mark_kind)m->kind);
    for (int i = 0; i < tl_num_marks(tl); i++)
        (void)tl_get_mark(tl, i);
    (void)tl_complete(tl);
    (void)tl_error(tl);
    (void)tl_index_bytes(tl);

    tl_close(tl);
    demo_close(ref);
    return 0;
}
