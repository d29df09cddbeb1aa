/* mdl_pcx.c: 8-bit PCX pictures (Quake II skins, sprite frames and pics): RLE pixels and the
 * 256-colour palette at the end of the file, every count checked.
 *
 * Format facts: ZSoft's PCX technical reference (header of 128 bytes: manufacturer 0x0a,
 * version, encoding 1 = RLE, bits per pixel, xmin, ymin, xmax, ymax, ..., colour planes at
 * byte 65, bytes per line at 66; a byte with its top two bits set is a run of its low six
 * bits times the next byte; a VGA palette is 0x0c and 768 bytes R, G, B at the end) and
 * Quake II's own use of it (yquake2 src/client/refresh/files/pcx.c: one plane of 8 bits,
 * runs may cross the end of a row). */
#include <stdlib.h>
#include <string.h>

#include "model_local.h"

#define PCX_HEADER 128
#define PCX_PALETTE 769 /* 0x0c and 768 bytes */

uint64_t mdl_pcx_pixels(const uint8_t *data, size_t len)
{
    if (!data || len < PCX_HEADER)
        return 0;
    rd_t r = rd_make(data, len);
    rd_seek(&r, 4);
    uint16_t xmin = rd_u16(&r), ymin = rd_u16(&r), xmax = rd_u16(&r), ymax = rd_u16(&r);
    if (xmax < xmin || ymax < ymin)
        return 0;
    return (uint64_t)(xmax - xmin + 1) * (uint64_t)(ymax - ymin + 1);
}

qd_err mdl_pcx_load(const uint8_t *data, size_t len, const char *name, mdl_pcx **out,
                    qd_error *err)
{
    *out = NULL;
    mdl_file f = {data, len, name ? name : "picture", err};
    if (!data || len < PCX_HEADER + PCX_PALETTE)
        return mdl_file_fail(&f, QD_ERR_TRUNCATED, len,
                             "shorter than a PCX header and its palette");
    rd_t r = rd_make(data, len);
    uint8_t manufacturer = rd_u8(&r), version = rd_u8(&r), encoding = rd_u8(&r),
            bpp = rd_u8(&r);
    uint16_t xmin = rd_u16(&r), ymin = rd_u16(&r), xmax = rd_u16(&r), ymax = rd_u16(&r);
    if (manufacturer != 0x0a || encoding != 1)
        return mdl_file_fail(&f, QD_ERR_BAD_DATA, 0, "not an RLE PCX picture");
    if (version != 5 || bpp != 8 || data[65] != 1)
        return mdl_file_fail(&f, QD_ERR_UNSUPPORTED, 1,
                             "not an 8-bit single-plane PCX (version 5)");
    if (xmax < xmin || ymax < ymin)
        return mdl_file_fail(&f, QD_ERR_BAD_DATA, 4, "picture bounds end before they start");
    uint32_t w = (uint32_t)xmax - xmin + 1, h = (uint32_t)ymax - ymin + 1;
    rd_seek(&r, 66);
    uint32_t line = rd_u16(&r);
    if (w > MDL_PCX_MAX_SIZE || h > MDL_PCX_MAX_SIZE)
        return mdl_file_fail(&f, QD_ERR_LIMIT, 4, "picture over the size cap");
    /* ZSoft pads a row to an even count, no more: a longer line would make a picture of
     * w x h cost line x h in runs (a review: 1 x 4096 at 65,535 bytes a line, 0.6 s) */
    if (line < w || line > w + 1)
        return mdl_file_fail(&f, QD_ERR_BAD_DATA, 66,
                             line < w ? "bytes per line shorter than a row"
                                      : "bytes per line past a row and its pad byte");
    size_t pal = len - PCX_PALETTE;
    if (data[pal] != 0x0c)
        return mdl_file_fail(&f, QD_ERR_BAD_DATA, pal, "no 256-colour palette at the end");
    /* each 2 bytes of data give at most 63 bytes of rows: refuse a size the data cannot fill
     * before allocating for it */
    uint64_t need = (uint64_t)line * h, avail = pal - PCX_HEADER;
    if (need > avail / 2 * 63 + (avail & 1) * 1)
        return mdl_file_fail(&f, QD_ERR_TRUNCATED, PCX_HEADER,
                             "pixel data too short for the picture's size");
    mdl_pcx *p = calloc(1, sizeof *p);
    uint8_t *pix = p ? malloc((size_t)w * h) : NULL;
    if (!pix) {
        free(p);
        return mdl_file_fail(&f, QD_ERR_NOMEM, 0, "picture");
    }
    p->w = w;
    p->h = h;
    p->pixels = pix;
    for (int i = 0; i < 256; i++) {
        const uint8_t *c = data + pal + 1 + 3 * i;
        p->palette[i] = MDL_RGB(c[0], c[1], c[2]);
    }
    /* the rows' bytes as one run-length stream; pad bytes past w in a row are dropped */
    size_t pos = PCX_HEADER;
    uint64_t at = 0;
    uint32_t x = 0, y = 0; /* at's place: at = y * line + x */
    while (at < need) {
        if (pos >= pal) {
            mdl_pcx_free(p);
            return mdl_file_fail(&f, QD_ERR_TRUNCATED, pos, "pixel data ends inside the picture");
        }
        uint8_t c = data[pos++];
        uint32_t run = 1;
        if ((c & 0xc0) == 0xc0) {
            run = c & 0x3fu;
            if (pos >= pal) {
                mdl_pcx_free(p);
                return mdl_file_fail(&f, QD_ERR_TRUNCATED, pos - 1, "run without its value");
            }
            c = data[pos++];
        }
        for (uint32_t k = 0; k < run && at < need; k++, at++) {
            if (x < w)
                pix[(size_t)y * w + x] = c;
            if (++x == line) {
                x = 0;
                y++;
            }
        }
    }
    *out = p;
    return QD_OK;
}

void mdl_pcx_free(mdl_pcx *p)
{
    if (!p)
        return;
    free(p->pixels);
    free(p);
}
