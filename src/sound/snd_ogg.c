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
 * comment length of 0xffffffff allocates 0 bytes and writes before or past it, a comment
 * count of 2^29 or more overflows its int allocation size (its clean-up then reads past its
 * buffer), and a length cut by the packet's end shifts its -1 end mark (UB). fuzz_sound found
 * these under ASan and UBSan. So the comment packet is checked first, where stb reads it: the
 * first packet of the second OGG page, continued over the following pages (RFC 3533 section 6:
 * a page is "OggS", version, flags, granule 8, serial 4, sequence 4, CRC 4, a count of lacing
 * values and the values; a value under 255 ends a packet). In it (Vorbis I spec 5.2, after
 * "\x03vorbis"): vendor length and bytes, a count, each comment's length and bytes; every
 * length within the packet. Returns 0 with *at the file offset of the page holding the fault. */
#define OGG_PAGE_HEADER 27
#define OGG_COMMENT_MAX (1u << 20) /* bytes of a comment packet looked at; more is refused */

/* The comment packet into pkt (at most OGG_COMMENT_MAX bytes): returns its length, or -1 when
 * the pages end or break first (stb then fails on them itself: nothing to check). */
static long ogg_comment_packet(const uint8_t *d, size_t len, uint8_t *pkt, size_t *page_at)
{
    size_t p = 0, n = 0;
    int page = 0, in_packet = 0;
    while (p + OGG_PAGE_HEADER <= len && memcmp(d + p, "OggS", 4) == 0) {
        size_t nseg = d[p + 26], body = p + OGG_PAGE_HEADER + nseg;
        if (body > len)
            return -1;
        size_t q = body;
        page++;
        if (page == 2)
            in_packet = 1, *page_at = p;
        for (size_t k = 0; k < nseg; k++) {
            size_t seg = d[p + OGG_PAGE_HEADER + k];
            if (seg > len - q)
                return -1;
            if (in_packet) {
                if (n + seg > OGG_COMMENT_MAX)
                    return (long)OGG_COMMENT_MAX + 1;
                memcpy(pkt + n, d + q, seg);
                n += seg;
                if (seg < 255)
                    return (long)n; /* the packet ends here */
            }
            q += seg;
        }
        p = q;
    }
    return -1;
}

static uint32_t le32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static int ogg_comments_ok(const uint8_t *d, size_t len, size_t *at)
{
    static const uint8_t sig[7] = {3, 'v', 'o', 'r', 'b', 'i', 's'};
    uint8_t *pkt = malloc(OGG_COMMENT_MAX);
    if (!pkt)
        return 0;
    *at = 0;
    long n = ogg_comment_packet(d, len, pkt, at);
    int ok = 1;
    if (n > (long)OGG_COMMENT_MAX) {
        ok = 0; /* a comment packet over 1 MiB: no sound file needs one */
    } else if (n >= (long)sizeof sig && memcmp(pkt, sig, sizeof sig) == 0) {
        size_t p = sizeof sig, end = (size_t)n;
        uint32_t count = 1; /* the vendor string first, then the comments */
        for (uint32_t k = 0; ok && k <= count; k++) {
            if (end - p < 4) {
                ok = 0;
                break;
            }
            uint32_t v = le32(pkt + p);
            p += 4;
            if (k == 1) { /* after the vendor: the count, each comment at least 4 bytes */
                if (v > (end - p) / 4)
                    ok = 0;
                count = v + 1;
            } else if (v > end - p) {
                ok = 0;
            } else {
                p += v;
            }
        }
    }
    free(pkt);
    return ok;
}

qd_err snd_decode_ogg(const uint8_t *data, size_t len, snd_sample *out, qd_error *err)
{
    out->pcm = NULL;
    out->len = 0;
    if (len > 0x7fffffff)
        return qd_fail(err, QD_ERR_LIMIT, 0, "%zu bytes: too large an OGG file", len);
    size_t bad = 0;
    if (!ogg_comments_ok(data, len, &bad))
        return qd_fail(err, QD_ERR_BAD_DATA, bad,
                       "Vorbis comment header: a length past its packet's end");
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
