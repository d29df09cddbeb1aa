/* png.c: the PNG encoder (8-bit RGB, Up-filtered rows, one zlib IDAT), its atomic file
 * write, and the check that a file is a whole frame. */
#include "out.h"

#include "../common/file.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PNG_MAX_SIDE 16384
/* zlib level 2: as fast as level 1 on rendered frames and 3-5 % smaller (README, Speed). */
#define PNG_ZLIB_LEVEL 2
/* Signature 8, IHDR chunk 25, IDAT length/type/CRC 12, IEND chunk 12. */
#define PNG_OVERHEAD (8 + 25 + 12 + 12)
/* The keyword of the note out_png_encode_noted writes. */
#define PNG_NOTE_KEY "qdemo"

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Fill in a chunk at p whose n data bytes follow its type: the length before, the CRC
 * of type and data after. Returns the byte after the chunk. */
static uint8_t *chunk_close(uint8_t *p, uint32_t n)
{
    put32(p, n);
    uLong crc = crc32(0L, p + 4, (uInt)(4 + n));
    put32(p + 8 + n, (uint32_t)crc);
    return p + 12 + n;
}

/* One row of RGBA pixels px as filtered PNG bytes, dropping alpha: filter type 2 (Up), each
 * byte minus the same byte of the row above (above), or type 0 (None) for the first row
 * (above NULL). Flat areas and whatever repeats from row to row become zeros, which deflate
 * loves; chosen by measurement over Sub, None and Paeth (README, Speed). Branch-free loops
 * that GCC vectorises. */
static void filter_row(uint8_t *out, const uint32_t *px, const uint32_t *above, int w)
{
    const uint8_t *s = (const uint8_t *)px;
    *out++ = above ? 2 : 0;
    if (!above) {
        for (int x = 0; x < w; x++) {
            out[3 * x] = s[4 * x];
            out[3 * x + 1] = s[4 * x + 1];
            out[3 * x + 2] = s[4 * x + 2];
        }
        return;
    }
    const uint8_t *a = (const uint8_t *)above;
    for (int x = 0; x < w; x++) {
        out[3 * x] = (uint8_t)(s[4 * x] - a[4 * x]);
        out[3 * x + 1] = (uint8_t)(s[4 * x + 1] - a[4 * x + 1]);
        out[3 * x + 2] = (uint8_t)(s[4 * x + 2] - a[4 * x + 2]);
    }
}

qd_err out_png_encode(const rast_fb *fb, uint8_t **png, size_t *len, qd_error *err)
{
    return out_png_encode_noted(fb, NULL, png, len, err);
}

qd_err out_png_encode_noted(const rast_fb *fb, const char *note, uint8_t **png, size_t *len,
                            qd_error *err)
{
    if (png)
        *png = NULL;
    if (len)
        *len = 0;
    if (!png || !len || !fb || !fb->color || fb->w < 1 || fb->h < 1 || fb->w > PNG_MAX_SIDE ||
        fb->h > PNG_MAX_SIDE)
        return qd_fail(err, QD_ERR_USAGE, 0, "png: no framebuffer or a bad size");
    size_t rowlen = 1 + 3 * (size_t)fb->w;
    size_t raw = rowlen * (size_t)fb->h;

    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, PNG_ZLIB_LEVEL, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return qd_fail(err, QD_ERR_NOMEM, 0, "png: zlib would not start");
    uLong bound = deflateBound(&z, (uLong)raw);
    if (bound > 0x7fffffffUL) {
        deflateEnd(&z);
        return qd_fail(err, QD_ERR_LIMIT, 0, "png: %dx%d is too large", fb->w, fb->h);
    }
    /* the note as a tEXt chunk (ISO/IEC 15948 11.3.4.3: keyword, a zero byte, Latin-1 text
     * without zero bytes): "qdemo", then the note's printable ASCII */
    size_t note_len = note ? strnlen(note, OUT_PNG_NOTE_MAX) : 0;
    size_t text_chunk = note ? 12 + sizeof PNG_NOTE_KEY + note_len : 0;
    uint8_t *buf = malloc((size_t)bound + PNG_OVERHEAD + text_chunk), *row = malloc(rowlen);
    if (!buf || !row) {
        free(buf);
        free(row);
        deflateEnd(&z);
        return qd_fail(err, QD_ERR_NOMEM, 0, "png: no memory for %dx%d", fb->w, fb->h);
    }

    memcpy(buf, "\x89PNG\r\n\x1a\n", 8);
    uint8_t *p = buf + 8;
    memcpy(p + 4, "IHDR", 4);
    put32(p + 8, (uint32_t)fb->w);
    put32(p + 12, (uint32_t)fb->h);
    p[16] = 8; /* bit depth */
    p[17] = 2; /* colour type: RGB */
    p[18] = 0; /* deflate */
    p[19] = 0; /* adaptive filtering, one filter type per row */
    p[20] = 0; /* not interlaced */
    p = chunk_close(p, 13);
    if (note) {
        memcpy(p + 4, "tEXt", 4);
        memcpy(p + 8, PNG_NOTE_KEY, sizeof PNG_NOTE_KEY); /* (its zero byte included) */
        uint8_t *t = p + 8 + sizeof PNG_NOTE_KEY;
        for (size_t i = 0; i < note_len; i++)
            t[i] = note[i] >= 32 && note[i] < 127 ? (uint8_t)note[i] : '?';
        p = chunk_close(p, (uint32_t)(sizeof PNG_NOTE_KEY + note_len));
    }

    uint8_t *idat = p;
    memcpy(idat + 4, "IDAT", 4);
    z.next_out = idat + 8;
    z.avail_out = (uInt)bound;
    int zr = Z_OK;
    for (int y = 0; y < fb->h && zr == Z_OK; y++) {
        const uint32_t *px = fb->color + (size_t)y * (size_t)fb->w;
        filter_row(row, px, y ? px - fb->w : NULL, fb->w);
        z.next_in = row;
        z.avail_in = (uInt)rowlen;
        zr = deflate(&z, y == fb->h - 1 ? Z_FINISH : Z_NO_FLUSH);
    }
    uLong n = z.total_out;
    deflateEnd(&z);
    free(row);
    if (zr != Z_STREAM_END) {
        free(buf);
        return qd_fail(err, QD_ERR_OUTPUT, 0, "png: zlib failed (%d)", zr);
    }
    p = chunk_close(idat, (uint32_t)n);
    memcpy(p + 4, "IEND", 4);
    p = chunk_close(p, 0);

    size_t total = (size_t)(p - buf);
    uint8_t *shrunk = realloc(buf, total);
    *png = shrunk ? shrunk : buf;
    *len = total;
    return QD_OK;
}

qd_err out_png_write(const char *path, const rast_fb *fb, qd_error *err)
{
    if (!path || !*path)
        return qd_fail(err, QD_ERR_USAGE, 0, "png: no file name");
    uint8_t *png;
    size_t len;
    qd_err e = out_png_encode(fb, &png, &len, err);
    if (e)
        return e;
    e = qd_replace_file(path, png, len, err);
    free(png);
    return e;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int out_png_check(const uint8_t *png, size_t len, int w, int h, const char *note)
{
    /* PNG (ISO/IEC 15948): signature, then chunks of length, type, data, CRC-32 of type
     * and data; IHDR first, IEND last. */
    if (!png || len < 8 || memcmp(png, "\x89PNG\r\n\x1a\n", 8) != 0)
        return 0;
    size_t pos = 8;
    int chunks = 0, idat = 0, noted = 0;
    size_t note_len = note ? strnlen(note, OUT_PNG_NOTE_MAX) : 0;
    while (len - pos >= 12) {
        uint32_t n = get32(png + pos);
        if (n > len - pos - 12)
            return 0;
        const uint8_t *type = png + pos + 4, *data = type + 4;
        if (get32(data + n) != (uint32_t)crc32(0L, type, (uInt)n + 4))
            return 0;
        int is_ihdr = memcmp(type, "IHDR", 4) == 0;
        if (is_ihdr != (chunks == 0))
            return 0;
        /* 8-bit RGB, deflate, standard filters, not interlaced: what out_png_encode writes */
        if (is_ihdr && (n != 13 || get32(data) != (uint32_t)w || get32(data + 4) != (uint32_t)h ||
                        data[8] != 8 || data[9] != 2 || data[10] || data[11] || data[12]))
            return 0;
        /* our note, as out_png_encode_noted writes it (its bytes the same, '?' for what it
         * replaced) */
        if (note && memcmp(type, "tEXt", 4) == 0 && n == sizeof PNG_NOTE_KEY + note_len &&
            memcmp(data, PNG_NOTE_KEY, sizeof PNG_NOTE_KEY) == 0) {
            int same = 1;
            for (size_t i = 0; i < note_len && same; i++)
                same = data[sizeof PNG_NOTE_KEY + i] ==
                       (note[i] >= 32 && note[i] < 127 ? (uint8_t)note[i] : '?');
            noted |= same;
        }
        idat |= memcmp(type, "IDAT", 4) == 0;
        if (memcmp(type, "IEND", 4) == 0)
            return !idat || n != 0 || pos + 12 != len ? 0 : !note || noted ? 1 : -1;
        pos += 12 + (size_t)n;
        chunks++;
    }
    return 0;
}
