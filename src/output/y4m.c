/* y4m.c: the YUV4MPEG2 writer: RGB to limited-range Y'CbCr 4:2:0 in integer arithmetic. */
#include "out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define Y4M_MAX_SIDE 16384
/* render --fps 0.001 .. 10000 in thousandths: numerators up to 10000000 (a review: 123.457 was
 * refused as 123457:1000); the longest header, at 10000000:99999, is ffmpeg's 96 bytes */
#define Y4M_MAX_RATE_NUM 10000000
#define Y4M_MAX_RATE_DEN 100000

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

/* One chroma sample from the sums of a 2x2 block's channels (weights m[0..2] of a chroma
 * row): the average's chroma, rounded, with 2 more bits. */
static inline uint8_t chroma(const int32_t *m, int32_t rs, int32_t gs, int32_t bs)
{
    return (uint8_t)((m[0] * rs + m[1] * gs + m[2] * bs + (128 << 18) + (1 << 17)) >> 18);
}

/* One 2x2 block: pixels a b over c d, lumas to ya yb (row 0) and yc yd (row 1), chroma to
 * *u, *v. A block cut by the frame's edge passes its edge pixel (and the luma it writes)
 * twice, so the repeated stores write the same byte again. */
static inline void block(const int32_t *m, uint32_t a, uint32_t b, uint32_t c, uint32_t d,
                         uint8_t *ya, uint8_t *yb, uint8_t *yc, uint8_t *yd, uint8_t *u,
                         uint8_t *v)
{
    *ya = luma(m, a);
    *yb = luma(m, b);
    *yc = luma(m, c);
    *yd = luma(m, d);
    int32_t rs = (int32_t)((a & 255) + (b & 255) + (c & 255) + (d & 255));
    int32_t gs = (int32_t)((a >> 8 & 255) + (b >> 8 & 255) + (c >> 8 & 255) + (d >> 8 & 255));
    int32_t bs =
        (int32_t)((a >> 16 & 255) + (b >> 16 & 255) + (c >> 16 & 255) + (d >> 16 & 255));
    *u = chroma(m + 3, rs, gs, bs);
    *v = chroma(m + 6, rs, gs, bs);
}

#ifdef __SSE2__
#include <emmintrin.h>

/* The 32-bit luma sums of 4 pixels before the shift, exactly the scalar's: _mm_madd_epi16
 * multiplies 16-bit pairs, so each pixel becomes (r, g) and (b, g) and the green weight is
 * split in two halves that each fit an int16. */
static inline __m128i luma4(__m128i px, __m128i w_rg, __m128i w_bg)
{
    const __m128i lo = _mm_set1_epi32(255);
    __m128i g = _mm_slli_epi32(_mm_and_si128(px, _mm_set1_epi32(0xff00)), 8);
    __m128i rg = _mm_or_si128(_mm_and_si128(px, lo), g);
    __m128i bg = _mm_or_si128(_mm_and_si128(_mm_srli_epi32(px, 16), lo), g);
    __m128i sum = _mm_add_epi32(_mm_madd_epi16(rg, w_rg), _mm_madd_epi16(bg, w_bg));
    return _mm_srai_epi32(_mm_add_epi32(sum, _mm_set1_epi32((16 << 16) + (1 << 15))), 16);
}

/* The channel sums (r, g, b, a as int16) of the 2x2 blocks of 4 pixels over 4 pixels:
 * block 0 in the low half, block 1 in the high half. */
static inline __m128i sums2(__m128i p0, __m128i p1)
{
    const __m128i z = _mm_setzero_si128();
    __m128i lo = _mm_add_epi16(_mm_unpacklo_epi8(p0, z), _mm_unpacklo_epi8(p1, z));
    __m128i hi = _mm_add_epi16(_mm_unpackhi_epi8(p0, z), _mm_unpackhi_epi8(p1, z));
    return _mm_add_epi16(_mm_unpacklo_epi64(lo, hi), _mm_unpackhi_epi64(lo, hi));
}

/* Chroma of 4 blocks (s01: blocks 0 1, s23: blocks 2 3) with weights w = (cr, cg, cb, 0)
 * twice, as 4 int32 lanes after the shift. */
static inline __m128i chroma4(__m128i s01, __m128i s23, __m128i w)
{
    __m128 a = _mm_castsi128_ps(_mm_madd_epi16(s01, w));
    __m128 b = _mm_castsi128_ps(_mm_madd_epi16(s23, w));
    __m128i even = _mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
    __m128i odd = _mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
    __m128i sum = _mm_add_epi32(_mm_add_epi32(even, odd), _mm_set1_epi32((128 << 18) + (1 << 17)));
    return _mm_srai_epi32(sum, 18);
}

/* Two whole rows, 8 pixels (4 blocks) a step; returns the first column left undone. Every
 * sum is the scalar's in the same integers, so the bytes are the scalar's. */
static int rows_sse2(const int32_t *m, const uint32_t *r0, const uint32_t *r1, uint8_t *y0,
                     uint8_t *y1, uint8_t *u, uint8_t *v, int w)
{
    int32_t g1 = m[1] / 2, g2 = m[1] - m[1] / 2;
    const __m128i w_rg = _mm_set1_epi32((int32_t)((uint32_t)g1 << 16 | (uint32_t)m[0]));
    const __m128i w_bg = _mm_set1_epi32((int32_t)((uint32_t)g2 << 16 | (uint32_t)m[2]));
    const __m128i w_u = _mm_set_epi16(0, (int16_t)m[5], (int16_t)m[4], (int16_t)m[3], 0,
                                      (int16_t)m[5], (int16_t)m[4], (int16_t)m[3]);
    const __m128i w_v = _mm_set_epi16(0, (int16_t)m[8], (int16_t)m[7], (int16_t)m[6], 0,
                                      (int16_t)m[8], (int16_t)m[7], (int16_t)m[6]);
    int x = 0;
    for (; x + 8 <= w; x += 8) {
        __m128i a0 = _mm_loadu_si128((const __m128i *)(r0 + x));
        __m128i a1 = _mm_loadu_si128((const __m128i *)(r0 + x + 4));
        __m128i c0 = _mm_loadu_si128((const __m128i *)(r1 + x));
        __m128i c1 = _mm_loadu_si128((const __m128i *)(r1 + x + 4));
        __m128i ya = _mm_packs_epi32(luma4(a0, w_rg, w_bg), luma4(a1, w_rg, w_bg));
        __m128i yc = _mm_packs_epi32(luma4(c0, w_rg, w_bg), luma4(c1, w_rg, w_bg));
        _mm_storel_epi64((__m128i *)(y0 + x), _mm_packus_epi16(ya, ya));
        _mm_storel_epi64((__m128i *)(y1 + x), _mm_packus_epi16(yc, yc));
        __m128i s01 = sums2(a0, c0), s23 = sums2(a1, c1);
        __m128i uv = _mm_packs_epi32(chroma4(s01, s23, w_u), chroma4(s01, s23, w_v));
        uv = _mm_packus_epi16(uv, uv);
        uint32_t u4 = (uint32_t)_mm_cvtsi128_si32(uv);
        uint32_t v4 = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(uv, 4));
        memcpy(u + x / 2, &u4, 4);
        memcpy(v + x / 2, &v4, 4);
    }
    return x;
}
#endif

void out_rgb_to_yuv420(const rast_fb *fb, int bt709, uint8_t *yp, uint8_t *up, uint8_t *vp)
{
    const int32_t *m = bt709 ? mat709 : mat601;
    const int w = fb->w, h = fb->h, cw = (w + 1) / 2;
    for (int y = 0; y < h; y += 2) {
        /* an odd frame's last row pairs with itself (its lumas written twice) */
        const uint32_t *r0 = fb->color + (size_t)y * (size_t)w;
        const uint32_t *r1 = y + 1 < h ? r0 + w : r0;
        uint8_t *y0 = yp + (size_t)y * (size_t)w, *y1 = y + 1 < h ? y0 + w : y0;
        uint8_t *u = up + (size_t)(y / 2) * (size_t)cw, *v = vp + (size_t)(y / 2) * (size_t)cw;
        int x = 0;
#ifdef __SSE2__
        x = rows_sse2(m, r0, r1, y0, y1, u, v, w);
#endif
        for (; x + 1 < w; x += 2)
            block(m, r0[x], r0[x + 1], r1[x], r1[x + 1], y0 + x, y0 + x + 1, y1 + x, y1 + x + 1,
                  u + x / 2, v + x / 2);
        if (x < w) /* an odd width's last column pairs with itself */
            block(m, r0[x], r0[x], r1[x], r1[x], y0 + x, y0 + x, y1 + x, y1 + x, u + x / 2,
                  v + x / 2);
    }
}

qd_err out_y4m_begin(FILE *f, int w, int h, int fps_num, int fps_den, int bt709, qd_error *err)
{
    if (!f || w < 1 || h < 1 || w > Y4M_MAX_SIDE || h > Y4M_MAX_SIDE || fps_num < 1 ||
        fps_den < 1 || fps_num > Y4M_MAX_RATE_NUM || fps_den > Y4M_MAX_RATE_DEN)
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
