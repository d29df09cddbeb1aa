/* md2build.h: Quake II files built byte by byte for the tests: a growing byte buffer, an
 * 8-bit run-length PCX with its palette, and an MD2 (layouts of yquake2's files.h). */
#ifndef QD_MD2BUILD_H
#define QD_MD2BUILD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbuf.h"

/* Files are built in testbuf.h's growing gbuf. */
typedef gbuf bytes;

static inline void pname(bytes *b, const char *s, size_t n)
{
    char buf[64] = {0};
    snprintf(buf, sizeof buf, "%s", s);
    gput(b, buf, n);
}

/* An 8-bit PCX of w x h indices pix, run-length coded (runs of up to 63, bytes of 0xc0 and
 * up always as a run), with palette pal (R, G, B bytes of 256 colours) at the end. */
static inline bytes pcx(int w, int h, const uint8_t *pix, const uint8_t pal[768])
{
    bytes b = {0};
    uint8_t hdr[128] = {0x0a, 5, 1, 8};
    hdr[8] = (uint8_t)(w - 1);
    hdr[9] = (uint8_t)((w - 1) >> 8);
    hdr[10] = (uint8_t)(h - 1);
    hdr[11] = (uint8_t)((h - 1) >> 8);
    hdr[65] = 1;
    hdr[66] = (uint8_t)w;
    hdr[67] = (uint8_t)(w >> 8);
    gput(&b, hdr, 128);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w;) {
            uint8_t c = pix[y * w + x];
            int run = 1;
            while (x + run < w && run < 63 && pix[y * w + x + run] == c)
                run++;
            if (run > 1 || c >= 0xc0)
                g8(&b, 0xc0u | (unsigned)run);
            g8(&b, c);
            x += run;
        }
    g8(&b, 0x0c);
    gput(&b, pal, 768);
    return b;
}

/* An MD2 of nv vertices per frame (xyz bytes in v, frame after frame, scale and translate
 * per frame), nt triangles (tri: 3 vertex then 3 st indices each), ns st pairs, one skin
 * named skin of sw x sh. Layout of yquake2's files.h, offsets counted here. */
static inline bytes md2(int nf, int nv, const uint8_t *v, const float *scale, const float *trans,
                 int nt, const uint16_t *tri, int ns, const int16_t *st, const char *skin,
                 int sw, int sh)
{
    bytes b = {0};
    uint32_t framesize = 40 + 4 * (uint32_t)nv;
    uint32_t ofs_skins = 68, ofs_st = ofs_skins + 64, ofs_tris = ofs_st + 4 * (uint32_t)ns,
             ofs_frames = ofs_tris + 12 * (uint32_t)nt,
             ofs_end = ofs_frames + framesize * (uint32_t)nf;
    gput(&b, "IDP2", 4);
    g32(&b, 8);
    g32(&b, (uint32_t)sw);
    g32(&b, (uint32_t)sh);
    g32(&b, framesize);
    g32(&b, 1);
    g32(&b, (uint32_t)nv);
    g32(&b, (uint32_t)ns);
    g32(&b, (uint32_t)nt);
    g32(&b, 0);
    g32(&b, (uint32_t)nf);
    g32(&b, ofs_skins);
    g32(&b, ofs_st);
    g32(&b, ofs_tris);
    g32(&b, ofs_frames);
    g32(&b, ofs_end);
    g32(&b, ofs_end);
    pname(&b, skin, 64);
    for (int i = 0; i < 2 * ns; i++)
        g16(&b, (uint16_t)st[i]);
    for (int i = 0; i < 6 * nt; i++)
        g16(&b, tri[i]);
    for (int f = 0; f < nf; f++) {
        for (int j = 0; j < 3; j++)
            gf32(&b, scale[3 * f + j]);
        for (int j = 0; j < 3; j++)
            gf32(&b, trans[3 * f + j]);
        pname(&b, "frame", 16);
        for (int i = 0; i < nv; i++) {
            gput(&b, v + (size_t)(f * nv + i) * 3, 3);
            g8(&b, 0);
        }
    }
    return b;
}

#endif
