/* snd_ogg.c: OGG Vorbis sounds (OpenArena's) decoded through stb_vorbis inside a fixed working
 * buffer, checked against the sample caps before and while decoding. */
#include <stdlib.h>
#include <string.h>

#include "snd.h"

#define OGG_WORK_BYTES (1 << 20) /* stb_vorbis allocates only inside this buffer (OpenArena's need under 256 KiB) */
#define OGG_CHUNK 4096           /* sample frames decoded per call */

#define STB_VORBIS_NO_STDIO
#define STB_VORBIS_NO_PUSHDATA_API
#define STB_VORBIS_MAX_CHANNELS 8
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-value"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif
#include <stb_vorbis.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* stb_vorbis 1.22 (Debian's) reads the comment header's lengths unchecked: a vendor or
 * comment length of 0xffffffff allocates 0 bytes and writes before or past it, and a comment
 * count of 2^29 or more overflows its int allocation size, after which its clean-up reads the
 * list past the end (fuzz_sound under ASan). Refuse those first: walk the comment header
 * (Vorbis I spec 5.2: "\x03vorbis", vendor length and bytes, a count, then each comment's
 * length and bytes), no length past the bytes left in the file. Returns 0 with *at the
 * offset of the bad length. The header normally lies within one OGG page; a file whose
 * header a page boundary splits may be refused too (and plays silent). */
static int ogg_comments_ok(const uint8_t *d, size_t len, size_t *at)
{
    static const uint8_t sig[7] = {3, 'v', 'o', 'r', 'b', 'i', 's'};
    size_t p = 0;
    while (p + sizeof sig <= len && memcmp(d + p, sig, sizeof sig) != 0)
        p++;
    if (p + sizeof sig > len)
        return 1; /* no comment header: stb reports that itself */
    p += sizeof sig;
    uint32_t count = 1; /* the vendor string first, then the comments */
    for (uint32_t k = 0; k <= count; k++) {
        if (len - p < 4) {
            *at = p;
            return 0;
        }
        uint32_t n = (uint32_t)d[p] | (uint32_t)d[p + 1] << 8 | (uint32_t)d[p + 2] << 16 |
                     (uint32_t)d[p + 3] << 24;
        if (k == 1) { /* after the vendor: the count, each comment at least 4 bytes */
            if (n > (len - p - 4) / 4) {
                *at = p;
                return 0;
            }
            count = n + 1;
            p += 4;
            continue;
        }
        if (n > len - p - 4) {
            *at = p;
            return 0;
        }
        p += 4 + n;
    }
    return 1;
}

qd_err snd_decode_ogg(const uint8_t *data, size_t len, snd_sample *out, qd_error *err)
{
    out->pcm = NULL;
    out->len = 0;
    if (len > 0x7fffffff)
        return qd_fail(err, QD_ERR_LIMIT, 0, "%zu bytes: too large an OGG file", len);
    size_t bad;
    if (!ogg_comments_ok(data, len, &bad))
        return qd_fail(err, QD_ERR_BAD_DATA, bad, "Vorbis comment header: a length past the file's end");
    stb_vorbis_alloc work;
    work.alloc_buffer_length_in_bytes = OGG_WORK_BYTES;
    work.alloc_buffer = malloc(OGG_WORK_BYTES);
    if (!work.alloc_buffer)
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory for the OGG decoder");
    int verr = 0;
    stb_vorbis *v = stb_vorbis_open_memory(data, (int)len, &verr, &work);
    if (!v) {
        free(work.alloc_buffer);
        return qd_fail(err, QD_ERR_BAD_DATA, 0, "not a Vorbis stream stb_vorbis reads (error %d)",
                       verr);
    }
    stb_vorbis_info info = stb_vorbis_get_info(v);
    qd_err rc = QD_OK;
    unsigned total = stb_vorbis_stream_length_in_samples(v);
    int16_t *mono = NULL;
    short *buf = NULL;
    uint32_t n = 0;
    if (info.channels < 1 || info.sample_rate < SND_MIN_IN_RATE ||
        info.sample_rate > SND_MAX_IN_RATE)
        rc = qd_fail(err, QD_ERR_UNSUPPORTED, 0, "%d channels at %u Hz", info.channels,
                     info.sample_rate);
    else if (total > SND_MAX_IN_FRAMES)
        rc = qd_fail(err, QD_ERR_LIMIT, 0, "%u sample frames: over the cap of %u", total,
                     SND_MAX_IN_FRAMES);
    uint32_t cap = total ? total : OGG_CHUNK;
    if (rc == QD_OK) {
        mono = malloc((size_t)cap * sizeof *mono);
        buf = malloc((size_t)OGG_CHUNK * info.channels * sizeof *buf);
        if (!mono || !buf)
            rc = qd_fail(err, QD_ERR_NOMEM, 0, "out of memory for %u samples", cap);
    }
    while (rc == QD_OK) {
        int got = stb_vorbis_get_samples_short_interleaved(v, info.channels, buf,
                                                           OGG_CHUNK * info.channels);
        if (got <= 0)
            break;
        if ((uint64_t)n + (uint32_t)got > SND_MAX_IN_FRAMES) {
            rc = qd_fail(err, QD_ERR_LIMIT, 0, "over %u sample frames", SND_MAX_IN_FRAMES);
            break;
        }
        if (n + (uint32_t)got > cap) {
            /* the header's length was short: grow, still under the cap */
            uint32_t ncap = cap * 2 < n + (uint32_t)got ? n + (uint32_t)got : cap * 2;
            if (ncap > SND_MAX_IN_FRAMES)
                ncap = SND_MAX_IN_FRAMES;
            int16_t *m2 = realloc(mono, (size_t)ncap * sizeof *mono);
            if (!m2) {
                rc = qd_fail(err, QD_ERR_NOMEM, 0, "out of memory for %u samples", ncap);
                break;
            }
            mono = m2;
            cap = ncap;
        }
        for (int i = 0; i < got; i++) {
            int32_t sum = 0;
            for (int ch = 0; ch < info.channels; ch++)
                sum += buf[i * info.channels + ch];
            mono[n++] = (int16_t)(sum / info.channels);
        }
    }
    if (rc == QD_OK && n == 0)
        rc = qd_fail(err, QD_ERR_BAD_DATA, 0, "the Vorbis stream holds no sample");
    if (rc == QD_OK)
        rc = snd_resample(mono, n, info.sample_rate, out, err);
    stb_vorbis_close(v);
    free(work.alloc_buffer);
    free(mono);
    free(buf);
    return rc;
}
