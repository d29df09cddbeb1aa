/* y4m.c: the YUV4MPEG2 writer: RGB to limited-range Y'CbCr 4:2:0 in integer arithmetic. */
#include "out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define Y4M_MAX_SIDE 16384
#define Y4M_MAX_RATE 100000

/* Luma weights Kr, Kb from ITU-R BT.601-7 (Kr 0.299, Kb 0.114) and ITU-R BT.709-6 (Kr 0.2126,
 * Kb 0.0722), Kg = 1 - Kr - Kb. With R, G, B in 0..255 and limited ("studio") range:
 *   Y  = 16  + 219/255 * (Kr R + Kg G + Kb B)
 *   Cb = 128 + 224/255 * (B - Y') / (2 (1 - Kb))
 *   Cr = 128 + 224/255 * (R - Y') / (2 (1 - Kr))
 * as 16.16 fixed point. Each row's green weight takes the rounding slack, so that white
 * lands on exactly 235 and every grey on exactly 128 chroma. */
#define FIX(x) ((int32_t)((x) * 65536.0 + ((x) < 0 ? -0.5 : 0.5)))
#define YS (219.0 / 255.0)
#define CS (224.0 / 255.0)
#define MATRIX(kr, kb)                                                                     \
    {                                                                                      \
        FIX(YS * (kr)), FIX(YS) - FIX(YS * (kr)) - FIX(YS * (kb)), FIX(YS * (kb)),         \
        FIX(-CS * (kr) / (2 * (1 - (kb)))),                                                \
        FIX(CS * (kr) / (2 * (1 - (kb)))) - FIX(CS * 0.5), FIX(CS * 0.5),                  \
        FIX(CS * 0.5), FIX((kb)*CS / (2 * (1 - (kr)))) - FIX(CS * 0.5),                   \
        FIX(-CS * (kb) / (2 * (1 - (kr)))),                                                \
    }

/* yr yg yb, ur ug ub, vr vg vb */
static const int32_t mat601[9] = MATRIX(0.299, 0.114);
static const int32_t mat709[9] = MATRIX(0.2126, 0.0722);

size_t out_y4m_frame_size(int w, int h)
{
    if (w < 1 || h < 1)
        return 0;
    size_t cw = ((size_t)w + 1) / 2, ch = ((size_t)h + 1) / 2;
    return (size_t)w * (size_t)h + 2 * cw * ch;
}

static inline uint8_t luma(const int32_t *m, uint32_t px)
{
    int32_t r = (int32_t)(px & 255), g = (int32_t)(px >> 8 & 255), b = (int32_t)(px >> 16 & 255);
    return (uint8_t)((m[0] * r + m[1] * g + m[2] * b + (16 << 16) + (1 << 15)) >> 16);
}

void out_rgb_to_yuv420(const rast_fb *fb, int bt709, uint8_t *yp, uint8_t *up, uint8_t *vp)
{
    const int32_t *m = bt709 ? mat709 : mat601;
    const int w = fb->w, h = fb->h, cw = (w + 1) / 2;
    for (int y = 0; y < h; y += 2) {
        const uint32_t *r0 = fb->color + (size_t)y * (size_t)w;
        const uint32_t *r1 = y + 1 < h ? r0 + w : r0;
        uint8_t *y0 = yp + (size_t)y * (size_t)w, *y1 = y + 1 < h ? y0 + w : NULL;
        uint8_t *u = up + (size_t)(y / 2) * (size_t)cw, *v = vp + (size_t)(y / 2) * (size_t)cw;
        for (int x = 0; x < w; x += 2) {
            int x1 = x + 1 < w ? x + 1 : x;
            uint32_t a = r0[x], b = r0[x1], c = r1[x], d = r1[x1];
            y0[x] = luma(m, a);
            if (x1 != x)
                y0[x1] = luma(m, b);
            if (y1) {
                y1[x] = luma(m, c);
                if (x1 != x)
                    y1[x1] = luma(m, d);
            }
            /* Sums of four pixels: chroma of the average, rounded, with 2 more bits. */
            int32_t rs = (int32_t)((a & 255) + (b & 255) + (c & 255) + (d & 255));
            int32_t gs = (int32_t)((a >> 8 & 255) + (b >> 8 & 255) + (c >> 8 & 255) + (d >> 8 & 255));
            int32_t bs = (int32_t)((a >> 16 & 255) + (b >> 16 & 255) + (c >> 16 & 255) +
                                   (d >> 16 & 255));
            u[x / 2] = (uint8_t)((m[3] * rs + m[4] * gs + m[5] * bs + (128 << 18) + (1 << 17)) >> 18);
            v[x / 2] = (uint8_t)((m[6] * rs + m[7] * gs + m[8] * bs + (128 << 18) + (1 << 17)) >> 18);
        }
    }
}

qd_err out_y4m_begin(FILE *f, int w, int h, int fps_num, int fps_den, int bt709, qd_error *err)
{
    if (!f || w < 1 || h < 1 || w > Y4M_MAX_SIDE || h > Y4M_MAX_SIDE || fps_num < 1 ||
        fps_den < 1 || fps_num > Y4M_MAX_RATE || fps_den > Y4M_MAX_RATE)
        return qd_fail(err, QD_ERR_USAGE, 0, "y4m: bad size %dx%d or rate %d:%d", w, h, fps_num,
                       fps_den);
    if (fprintf(f, "YUV4MPEG2 W%d H%d F%d:%d Ip A1:1 C420jpeg XCOLORRANGE=LIMITED "
                   "XCOLORMATRIX=%s\n",
                w, h, fps_num, fps_den, bt709 ? "BT709" : "BT601") < 0)
        return qd_fail(err, QD_ERR_OUTPUT, 0, "y4m: cannot write the header: %s",
                       strerror(errno));
    return QD_OK;
}

qd_err out_y4m_frame(FILE *f, const rast_fb *fb, int bt709, qd_error *err)
{
    if (!f || !fb || !fb->color || fb->w < 1 || fb->h < 1 || fb->w > Y4M_MAX_SIDE ||
        fb->h > Y4M_MAX_SIDE)
        return qd_fail(err, QD_ERR_USAGE, 0, "y4m: no framebuffer or a bad size");
    size_t n = out_y4m_frame_size(fb->w, fb->h);
    uint8_t *buf = malloc(6 + n);
    if (!buf)
        return qd_fail(err, QD_ERR_NOMEM, 0, "y4m: no memory for a %dx%d frame", fb->w, fb->h);
    size_t ysz = (size_t)fb->w * (size_t)fb->h, csz = (n - ysz) / 2;
    memcpy(buf, "FRAME\n", 6);
    out_rgb_to_yuv420(fb, bt709, buf + 6, buf + 6 + ysz, buf + 6 + ysz + csz);
    qd_err e = QD_OK;
    if (fwrite(buf, 1, 6 + n, f) != 6 + n)
        e = qd_fail(err, QD_ERR_OUTPUT, 0, "y4m: cannot write a frame: %s", strerror(errno));
    free(buf);
    return e;
}
