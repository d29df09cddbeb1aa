/* mdl_image.c: TGA, JPEG and PNG images (Quake III textures) decoded through stb_image, bounded,
 * and found on the search path with the engine's extension fallback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "model_local.h"

/* stb_image's allocations are capped (a hostile PNG's zlib stream or a JPEG's progressive
 * buffers cannot ask for more than this), and its dimensions too (checked again below from
 * the header before any pixel is decoded). */
#define IMAGE_MAX_ALLOC ((size_t)MDL_IMAGE_MAX_SIZE * MDL_IMAGE_MAX_SIZE * 4 * 2)

static void *image_malloc(size_t n) { return n <= IMAGE_MAX_ALLOC ? malloc(n) : NULL; }
static void *image_realloc(void *p, size_t n) { return n <= IMAGE_MAX_ALLOC ? realloc(p, n) : NULL; }

#define STBI_MALLOC(n) image_malloc(n)
#define STBI_REALLOC(p, n) image_realloc(p, n)
#define STBI_FREE(p) free(p)
#define STBI_MAX_DIMENSIONS MDL_IMAGE_MAX_SIZE
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_ONLY_JPEG
#define STBI_ONLY_PNG
#define STBI_ONLY_TGA
#define STBI_NO_FAILURE_STRINGS
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#if defined(__GNUC__)
/* stb's static declarations of what it leaves out are reported at the end of the file */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* Debian's stb_image (2.27) builds a JPEG Huffman table from its 16 code counts without
 * checking them: counts that sum past 256 write past the table (found by fuzz_image; stb
 * 2.28 checks). And a scan may name a table no DHT defined, whose memory stb never set: a
 * code then indexes its symbols with garbage (fuzz_image, an index of -29). Walk the
 * markers and refuse both first: at most 2^n codes of length n, at most 256 in all, and
 * every table a scan uses defined before it. A baseline scan (SOF0, SOF1) decodes every
 * block with its DC and its AC table whatever Ss and Se say (T.81 F.1.2; stb's
 * stbi__jpeg_decode_block), so both must exist; a progressive scan uses DC when Ss is 0 and
 * AC when Se is above 0 (T.81 G.1.2). Returns 0 with *at the offset of the fault. */
static int jpeg_tables_ok(const uint8_t *d, size_t len, size_t *at)
{
    unsigned defined = 0; /* bit (class * 4 + id): DC 0..3, AC 4..7 */
    unsigned quant = 0, needq = 0; /* quantisation tables defined, and those frames use */
    int progressive = 0;           /* SOF2; a baseline scan (SOF0, SOF1) uses both tables */
    size_t p = 0;
    while (p < len && d[p] == 0xff)
        p++;
    p++; /* past the SOI */
    while (p + 4 <= len) {
        if (d[p] != 0xff) { /* entropy-coded data between markers: on to the next 0xff */
            const uint8_t *ff = memchr(d + p, 0xff, len - 3 - p); /* (at p .. len - 4) */
            p = ff ? (size_t)(ff - d) : len - 3;
            continue;
        }
        uint8_t m = d[p + 1];
        if (m == 0x00 || m == 0xff || (m >= 0xd0 && m <= 0xd7) || m == 0x01) {
            p += m == 0xff ? 1 : 2; /* stuffed byte, fill, restart: no length */
            continue;
        }
        if (m == 0xd9)
            return 1;
        size_t seg = (size_t)d[p + 2] << 8 | d[p + 3];
        if (seg < 2)
            return 1; /* stb reports the damage itself */
        if (m == 0xc4) {
            /* a segment cut by the file's end is still read (stb's bytes past the end are
             * zeros, which count no codes) */
            size_t q = p + 4, end = seg > len - p - 2 ? len : p + 2 + seg;
            while (q < end) {
                unsigned total = 0;
                for (int i = 0; i < 16; i++) {
                    size_t at_c = q + 1 + (size_t)i;
                    unsigned c = at_c < len ? d[at_c] : 0; /* stb reads on past the segment */
                    if (c > (2u << i)) {
                        *at = q;
                        return 0;
                    }
                    total += c;
                }
                if (total > 256) {
                    *at = q;
                    return 0;
                }
                if (q < len)
                    defined |= 1u << (((d[q] >> 4) & 1) * 4 + (d[q] & 3));
                q += 17 + total;
            }
        }
        if (m == 0xdb && seg >= 3 && p + 4 < len && d[p + 4] >> 4 != 0) {
            /* 16-bit quantisation (Pq 1) is for 12-bit samples only (T.81 B.2.4.1), which
             * stb does not decode; its products overflow stb's int (fuzz_image) */
            *at = p;
            return 0;
        }
        for (size_t q = p + 4; m == 0xdb && q < len && q < p + 2 + seg; q += 65)
            quant |= 1u << (d[q] & 3);
        if (m >= 0xc0 && m <= 0xc2)
            progressive = m == 0xc2;
        if (m >= 0xc0 && m <= 0xc2 && p + 9 < len) /* SOF: each component's table */
            for (size_t i = 0, nf = d[p + 9]; i < nf && p + 12 + 3 * i < len; i++)
                needq |= 1u << (d[p + 12 + 3 * i] & 3);
        if (m == 0xda && (needq & ~quant)) {
            *at = p; /* stb would dequantise with memory no DQT set (fuzz_image) */
            return 0;
        }
        if (m == 0xda && seg >= 3 && seg <= len - p - 2) {
            /* SOS: Ns, then per component its id and DC << 4 | AC table, then Ss, Se */
            size_t ns = d[p + 4];
            if (ns >= 1 && ns <= 4 && 2 + 1 + 2 * ns + 3 <= seg) {
                uint8_t ss = d[p + 5 + 2 * ns], se = d[p + 6 + 2 * ns];
                for (size_t i = 0; i < ns; i++) {
                    uint8_t t = d[p + 6 + 2 * i];
                    int dc = ss == 0 || !progressive, ac = se > 0 || !progressive;
                    if ((dc && !(defined >> (t >> 4 & 3) & 1)) ||
                        (ac && !(defined >> (4 + (t & 3)) & 1))) {
                        *at = p;
                        return 0;
                    }
                }
            }
        }
        if (seg > len - p - 2)
            return 1;
        p += 2 + seg;
    }
    return 1;
}

/* Debian's stb_image offsets its (still NULL) IDAT buffer by 0 for an empty first IDAT
 * chunk, which is undefined behaviour (fuzz_image). Such a PNG is refused first: returns 0
 * with *at the chunk's offset. */
static int png_chunks_ok(const uint8_t *d, size_t len, size_t *at)
{
    size_t p = 8;
    while (p + 8 <= len) {
        size_t n = (size_t)d[p] << 24 | (size_t)d[p + 1] << 16 | (size_t)d[p + 2] << 8 | d[p + 3];
        if (memcmp(d + p + 4, "IDAT", 4) == 0) {
            if (n == 0) {
                *at = p;
                return 0;
            }
            return 1; /* a first IDAT with data: the buffer exists from here on */
        }
        if (n > len - p - 8)
            return 1;
        p += 12 + n;
    }
    return 1;
}

/* Whether len bytes can hold a w x h image at all: deflate expands at most 1032 times
 * (PNG), a TGA run packet of 2 bytes covers at most 128 pixels, a JPEG needs at least a bit
 * for each 8x8 block. A 69-byte TGA that claims 4096 x 2304 is refused before stb allocates
 * and fills 37 MB for it (fuzz_image's slow input). */
static int size_plausible(const uint8_t *data, size_t len, int w, int h)
{
    uint64_t px = (uint64_t)w * (uint64_t)h;
    if (len >= 8 && memcmp(data, "\x89PNG", 4) == 0)
        return px <= (uint64_t)len * 1032;
    if (len >= 2 && data[0] == 0xff)
        return px / 64 <= (uint64_t)len * 8;
    return px <= (uint64_t)len * 64; /* TGA */
}

qd_err mdl_image_load(const uint8_t *data, size_t len, const char *name, mdl_image **out,
                      qd_error *err)
{
    return mdl_image_load_max(data, len, name, MDL_IMAGE_MAX_SIZE, out, err);
}

qd_err mdl_image_load_max(const uint8_t *data, size_t len, const char *name, int max_side,
                          mdl_image **out, qd_error *err)
{
    *out = NULL;
    max_side = max_side < MDL_IMAGE_MAX_SIZE ? max_side : MDL_IMAGE_MAX_SIZE;
    if (!data || len < 4)
        return qd_fail(err, QD_ERR_TRUNCATED, 0, "%s: %zu bytes is not an image", name, len);
    if (len > MDL_IMAGE_MAX_FILE || len > (size_t)INT32_MAX)
        return qd_fail(err, QD_ERR_LIMIT, 0, "%s: %zu bytes (cap %u)", name, len,
                       (unsigned)MDL_IMAGE_MAX_FILE);
    size_t bad = 0, soi = 0;
    while (soi < len && data[soi] == 0xff) /* stb takes fill bytes before the SOI marker */
        soi++;
    if (soi > 0 && soi < len && data[soi] == 0xd8 && !jpeg_tables_ok(data, len, &bad))
        return qd_fail(err, QD_ERR_BAD_DATA, bad, "%s: JPEG table damaged or missing",
                       name);
    if (len >= 8 && memcmp(data, "\x89PNG", 4) == 0 && !png_chunks_ok(data, len, &bad))
        return qd_fail(err, QD_ERR_BAD_DATA, bad, "%s: empty first IDAT chunk", name);
    int w = 0, h = 0, comp = 0;
    if (!stbi_info_from_memory(data, (int)len, &w, &h, &comp))
        return qd_fail(err, QD_ERR_BAD_DATA, 0, "%s: not a TGA, JPEG or PNG image", name);
    if (w < 1 || h < 1 || w > max_side || h > max_side)
        return qd_fail(err, QD_ERR_LIMIT, 0, "%s: %dx%d image (cap %d)", name, w, h, max_side);
    if (!size_plausible(data, len, w, h))
        return qd_fail(err, QD_ERR_BAD_DATA, 0, "%s: %dx%d image in %zu bytes", name, w, h,
                       len);
    int dw = 0, dh = 0;
    uint8_t *pix = stbi_load_from_memory(data, (int)len, &dw, &dh, &comp, 4);
    if (!pix)
        return qd_fail(err, QD_ERR_BAD_DATA, 0, "%s: image data damaged", name);
    if (dw != w || dh != h) {
        stbi_image_free(pix);
        return qd_fail(err, QD_ERR_BAD_DATA, 0, "%s: image size changed while decoding", name);
    }
    mdl_image *im = calloc(1, sizeof *im);
    if (!im) {
        stbi_image_free(pix);
        return qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", name);
    }
    size_t n = (size_t)w * (size_t)h; /* (at most MDL_IMAGE_MAX_SIZE squared) */
    /* stb's buffer (malloc'd, STBI_MALLOC) is kept as the texels: bytes R, G, B, A, which a
     * little-endian uint32_t reads low byte first as they are (not copied: 63 M
     * instructions of memcpy opening oa_dm3); elsewhere each texel is put together in place */
    uint32_t *px = (uint32_t *)(void *)pix;
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = pix + i * 4;
        px[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    }
#endif
    /* the sums of red, green and blue (exact: 64 bits hold 4096 x 4096 x 255) */
    uint64_t sum[3] = {0, 0, 0};
    size_t i = 0;
#if defined(__SSE2__)
    { /* four texels at a time: one channel masked, its bytes summed by psadbw */
        const __m128i z = _mm_setzero_si128(), mr = _mm_set1_epi32(0xff),
                      mg = _mm_set1_epi32(0xff00), mb = _mm_set1_epi32(0xff0000);
        __m128i r = z, g = z, b = z;
        for (; i + 4 <= n; i += 4) {
            __m128i v = _mm_loadu_si128((const __m128i *)(px + i));
            r = _mm_add_epi64(r, _mm_sad_epu8(_mm_and_si128(v, mr), z));
            g = _mm_add_epi64(g, _mm_sad_epu8(_mm_and_si128(v, mg), z));
            b = _mm_add_epi64(b, _mm_sad_epu8(_mm_and_si128(v, mb), z));
        }
        uint64_t lanes[6];
        _mm_storeu_si128((__m128i *)lanes, r);
        _mm_storeu_si128((__m128i *)(lanes + 2), g);
        _mm_storeu_si128((__m128i *)(lanes + 4), b);
        for (int c = 0; c < 3; c++)
            sum[c] = lanes[2 * c] + lanes[2 * c + 1];
    }
#endif
    for (; i < n; i++) {
        sum[0] += px[i] & 255;
        sum[1] += px[i] >> 8 & 255;
        sum[2] += px[i] >> 16 & 255;
    }
    im->w = (uint32_t)w;
    im->h = (uint32_t)h;
    im->pixels = px;
    im->color = MDL_RGB(sum[0] / n, sum[1] / n, sum[2] / n);
    *out = im;
    return QD_OK;
}

void mdl_image_free(mdl_image *im)
{
    if (!im)
        return;
    free(im->pixels);
    free(im);
}

/* The length of name without its extension (a dot after the last slash). */
static size_t stem_len(const char *name)
{
    const char *dot = strrchr(name, '.'), *slash = strrchr(name, '/');
    return dot && (!slash || dot > slash) ? (size_t)(dot - name) : strlen(name);
}

qd_err mdl_image_find(mdl_read_fn read, void *ctx, const char *name, mdl_image **out,
                      qd_error *err)
{
    return mdl_image_find_max(read, ctx, name, MDL_IMAGE_MAX_SIZE, out, err);
}

qd_err mdl_image_find_max(mdl_read_fn read, void *ctx, const char *name, int max_side,
                          mdl_image **out, qd_error *err)
{
    static const char *const exts[] = {".tga", ".jpg", ".png"};
    *out = NULL;
    if (!read || !name || !name[0])
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: no search path", name ? name : "");
    size_t stem = stem_len(name), full = strlen(name);
    if (full > MDL_IMAGE_MAX_NAME)
        return qd_fail(err, QD_ERR_LIMIT, 0, "image name of %zu bytes (cap %u)", full,
                       (unsigned)MDL_IMAGE_MAX_NAME);
    /* room for the name as given and for its stem with each extension: an extension of 8
     * bytes or more overran a buffer sized by the stem alone (a map's texture name; found by
     * a review) */
    char *buf = malloc((full > stem ? full : stem) + 8);
    if (!buf)
        return qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", name);
    /* The name as given first (when it has an extension), then the other formats: a shader
     * that says .tga finds the .jpg a pk3 holds instead (ioq3 tr_image.c R_FindImageFile). */
    qd_err r = QD_ERR_NOT_FOUND;
    for (int k = -1; k < 3 && r == QD_ERR_NOT_FOUND; k++) {
        if (k < 0) {
            if (stem == full)
                continue;
            memcpy(buf, name, full + 1);
        } else {
            memcpy(buf, name, stem);
            memcpy(buf + stem, exts[k], 5);
            if (stem != full && strcmp(buf, name) == 0)
                continue;
        }
        uint8_t *data = NULL;
        size_t len = 0;
        qd_error e = {0};
        r = read(ctx, buf, &data, &len, &e);
        if (r == QD_OK) {
            r = mdl_image_load_max(data, len, buf, max_side, out, err);
        } else if (r != QD_ERR_NOT_FOUND) {
            if (err)
                *err = e;
        }
        free(data);
    }
    if (r == QD_ERR_NOT_FOUND)
        qd_fail(err, r, 0, "%s: not found as .tga, .jpg or .png", name);
    free(buf);
    return r;
}
