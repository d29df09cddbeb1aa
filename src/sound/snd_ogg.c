/* snd_ogg.c: OGG Vorbis sounds (OpenArena's) decoded through stb_vorbis inside a fixed working
 * buffer, checked against the sample caps before and while decoding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "snd.h"

#define OGG_WORK_BYTES (1 << 20) /* stb_vorbis allocates only inside this buffer (OpenArena's need under 256 KiB) */
#define OGG_CHUNK 4096           /* sample frames held first when the headers give no length */

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

/* Packet number `want` of the stream (0 the identification header, 1 the comments, 2 the
 * setup) into pkt (at most OGG_COMMENT_MAX bytes), with the offset of the page it starts on in
 * *page_at: returns its length, -1 when the pages end or break first (stb then fails on them
 * itself: nothing to check), OGG_COMMENT_MAX + 1 when it is longer. The comment packet is the
 * first of the second page, where stb reads it, as the first page holds the identification
 * header alone (stb requires it). */
static long ogg_packet(const uint8_t *d, size_t len, int want, uint8_t *pkt, size_t *page_at)
{
    size_t p = 0, n = 0;
    int packet = 0;
    while (p + OGG_PAGE_HEADER <= len && memcmp(d + p, "OggS", 4) == 0) {
        size_t nseg = d[p + 26], q = p + OGG_PAGE_HEADER + nseg;
        if (q > len)
            return -1;
        for (size_t k = 0; k < nseg; k++) {
            size_t seg = d[p + OGG_PAGE_HEADER + k];
            if (seg > len - q) {
                if (packet != want || n + (len - q) > OGG_COMMENT_MAX)
                    return -1;
                if (n == 0)
                    *page_at = p;
                memcpy(pkt + n, d + q, len - q); /* cut by the file's end: stb reads what */
                return (long)(n + (len - q));    /* there is, so is it checked */
            }
            if (packet == want) {
                if (n == 0)
                    *page_at = p;
                if (n + seg > OGG_COMMENT_MAX)
                    return (long)OGG_COMMENT_MAX + 1;
                memcpy(pkt + n, d + q, seg);
                n += seg;
                if (seg < 255)
                    return (long)n; /* the packet ends here */
            } else if (seg < 255) {
                packet++;
            }
            q += seg;
        }
        p = q;
    }
    return -1;
}

/* Vorbis's bit order (spec 2.1.4): least significant bit of each byte first. */
typedef struct ogg_bits {
    const uint8_t *b;
    size_t len, pos; /* pos in bits */
} ogg_bits;

/* n bits (n <= 32), or -1 past the packet's end. */
static int64_t ogg_get(ogg_bits *r, int n)
{
    if (r->pos + (size_t)n > r->len * 8)
        return -1;
    uint64_t v = 0;
    for (int i = 0; i < n; i++, r->pos++)
        v |= (uint64_t)(r->b[r->pos >> 3] >> (r->pos & 7) & 1) << i;
    return (int64_t)v;
}

static int ogg_ilog(uint32_t v)
{
    int n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}


/* A decoded sample as stb_vorbis's own short conversion makes it
 * (FAST_SCALED_FLOAT_TO_INT(x, 15): the float sum x + 1.5 x 2^8 + 2^-16, whose low mantissa
 * bits are then x x 2^15 rounded; clamped to 16 bits), without its signed overflow: a
 * hostile stream's samples can be far outside -1..1 (fuzz_sound, UBSan at stb_vorbis.h
 * convert_channels_short_interleaved), so they are clamped first (the same result for any
 * |x| under 128, where the trick is exact) and NaN is silence. */
static int to_short(float x)
{
    if (!(x == x))
        return 0;
    x = x < -2 ? -2 : x > 2 ? 2 : x;
    float t = x + (1.5f * (float)(1 << 8) + 0.5f / (float)(1 << 15));
    int v = (int)((t - 384.0f) * 32768.0f); /* exact: t lies in [256, 512) */
    return v < -32768 ? -32768 : v > 32767 ? 32767 : v;
}

/* stb_vorbis 1.22's lookup1_values (a codebook of lookup type 1) converts
 * pow(r + 1, dimensions) and pow(r, dimensions) to int unchecked, and divides by the
 * dimensions (0 gives NaN): out of int's range that is undefined (fuzz_sound, UBSan), and a
 * lookup type 2 multiplies entries by dimensions in int. Walk the setup header's codebooks
 * (Vorbis I spec 3.2.1: sync, dimensions 16 bits, entries 24, ordered or sparse lengths,
 * lookup type 4; type 1 or 2: minimum 32, delta 32, value bits 4, sequence 1, then the
 * values) and say 0 for a codebook whose numbers stb cannot take. A packet that ends early
 * is left to stb, which reports it. */
static int ogg_codebooks_ok(const uint8_t *pkt, size_t n)
{
    static const uint8_t sig[7] = {5, 'v', 'o', 'r', 'b', 'i', 's'};
    if (n < sizeof sig || memcmp(pkt, sig, sizeof sig) != 0)
        return 1;
    ogg_bits r = {pkt + sizeof sig, n - sizeof sig, 0};
    int64_t count = ogg_get(&r, 8);
    for (int64_t i = 0; count >= 0 && i <= count; i++) {
        int64_t sync = ogg_get(&r, 24), dims = ogg_get(&r, 16), entries = ogg_get(&r, 24);
        int64_t ordered = ogg_get(&r, 1);
        if (sync != 0x564342 || dims < 0 || entries < 0 || ordered < 0)
            return 1; /* stb refuses it itself, or the packet ended */
        int64_t longest = 0; /* the longest codeword, in bits (1..32) */
        if (ordered) {
            int64_t cur = 0, len = ogg_get(&r, 5);
            while (len >= 0 && cur < entries) {
                int64_t num = ogg_get(&r, ogg_ilog((uint32_t)(entries - cur)));
                if (num < 0 || cur + num > entries)
                    return 1;
                if (num > 0 && len + 1 > longest)
                    longest = len + 1;
                cur += num;
                len++;
            }
        } else {
            int64_t sparse = ogg_get(&r, 1);
            for (int64_t j = 0; sparse >= 0 && j < entries; j++) {
                int64_t present = sparse ? ogg_get(&r, 1) : 1;
                int64_t len = present > 0 ? ogg_get(&r, 5) : 0;
                if (present < 0 || len < 0)
                    return 1;
                if (present && len + 1 > longest)
                    longest = len + 1;
            }
        }
        /* stb 1.22 accepts an incomplete Huffman tree, and decodes a codebook of 8 entries or
         * fewer by a linear search that masks with (1 << length) - 1 in int: a 31-bit codeword
         * is 1 << 31 (UB, fuzz_sound at stb_vorbis.h:1699). A whole code of 8 entries or
         * fewer is at most 7 bits long: no real stream has one. */
        if (entries <= 8 && longest >= 31)
            return 0;
        int64_t type = ogg_get(&r, 4);
        if (type == 0)
            continue; /* no lookup table */
        if (type < 0 || type > 2)
            return 1; /* the packet ended, or a type stb refuses */
        ogg_get(&r, 32);
        ogg_get(&r, 32);
        int64_t bits = ogg_get(&r, 4), seq = ogg_get(&r, 1);
        if (bits < 0 || seq < 0)
            return 1;
        int64_t values;
        if (type == 1) {
            if (dims == 0 || entries == 0)
                return 0; /* log(0) or a division by zero dimensions */
            /* stb's own expression, checked before its casts to int */
            double r0 = floor(exp((float)log((float)entries) / (int)dims));
            if (r0 >= 2147483647.0 || pow((float)r0 + 1, (int)dims) >= 2147483647.0 ||
                pow((float)r0, (int)dims) >= 2147483647.0)
                return 0;
            values = (int64_t)r0 + ((int64_t)floor(pow((float)r0 + 1, (int)dims)) <= entries);
        } else {
            if (entries * dims > 2147483647)
                return 0;
            values = entries * dims;
        }
        if (values <= 0)
            return 1;
        if ((uint64_t)values * (uint64_t)(bits + 1) > (uint64_t)(r.len * 8 - r.pos))
            return 1; /* more than the packet holds: stb stops at its end */
        r.pos += (size_t)values * (size_t)(bits + 1);
    }
    return 1;
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
    long n = ogg_packet(d, len, 1, pkt, at);
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
    if (ok) {
        size_t setup_at = 0;
        long m = ogg_packet(d, len, 2, pkt, &setup_at);
        if (m > (long)OGG_COMMENT_MAX || (m > 0 && !ogg_codebooks_ok(pkt, (size_t)m))) {
            ok = 0;
            *at = setup_at;
        }
    }
    free(pkt);
    return ok;
}

qd_err snd_decode_ogg(const uint8_t *data, size_t len, snd_sample *out, qd_error *err)
{
    return snd_decode_ogg_max(data, len, SND_MAX_OUT, out, err);
}

qd_err snd_decode_ogg_max(const uint8_t *data, size_t len, uint32_t max_out, snd_sample *out,
                          qd_error *err)
{
    out->pcm = NULL;
    out->len = 0;
    if (len > 0x7fffffff)
        return qd_fail(err, QD_ERR_LIMIT, 0, "%zu bytes: too large an OGG file", len);
    size_t bad = 0;
    if (!ogg_comments_ok(data, len, &bad))
        return qd_fail(err, QD_ERR_BAD_DATA, bad,
                       "Vorbis headers: a comment header length past its packet, or a "
                       "codebook stb_vorbis cannot size");
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
    uint32_t n = 0;
    if (info.channels < 1 || info.sample_rate < SND_MIN_IN_RATE ||
        info.sample_rate > SND_MAX_IN_RATE)
        rc = qd_fail(err, QD_ERR_UNSUPPORTED, 0, "%d channels at %u Hz", info.channels,
                     info.sample_rate);
    /* the input frames that give at most max_out samples at SND_RATE (snd_resample's
     * length, ceil(n * SND_RATE / rate), at most max_out) */
    uint64_t max_in = rc == QD_OK ? (uint64_t)max_out * info.sample_rate / SND_RATE : 0;
    if (max_in > SND_MAX_IN_FRAMES)
        max_in = SND_MAX_IN_FRAMES;
    if (rc == QD_OK && total > max_in)
        rc = qd_fail(err, QD_ERR_LIMIT, 0, "%u sample frames at %u Hz: over the %llu that fit",
                     total, info.sample_rate, (unsigned long long)max_in);
    /* the declared length only names the last page's position: the buffer starts small and
     * grows with what is decoded (a review: a 4 KB file declaring 64 Mi frames asked for
     * 128 MiB before its first sample) */
    uint32_t cap = total && total < OGG_CHUNK ? total : OGG_CHUNK;
    if (rc == QD_OK) {
        mono = malloc((size_t)cap * sizeof *mono);
        if (!mono)
            rc = qd_fail(err, QD_ERR_NOMEM, 0, "out of memory for %u samples", cap);
    }
    /* Frame by frame (what stb_vorbis_get_samples_float_interleaved does inside), so the
     * decoder's state is looked at between frames. A last frame cut by its page's granule
     * position (every real stream's end) can leave stb 1.22 a negative previous_length:
     * harmless at the end, but when a damaged stream goes on, stb's next frame shifts it
     * left (UB, fuzz_sound), finds no window for it and ends the stream with no sample. It
     * ends here instead, with the same samples and no shift. */
    while (rc == QD_OK) {
        if (v->previous_length < 0)
            break;
        float **ch = NULL;
        int got = stb_vorbis_get_frame_float(v, NULL, &ch);
        if (got <= 0 || !ch)
            break;
        if ((uint64_t)n + (uint32_t)got > max_in) {
            rc = qd_fail(err, QD_ERR_LIMIT, 0, "over %llu sample frames at %u Hz",
                         (unsigned long long)max_in, info.sample_rate);
            break;
        }
        if (n + (uint32_t)got > cap) {
            /* grow, still under the cap */
            uint32_t ncap = cap * 2 < n + (uint32_t)got ? n + (uint32_t)got : cap * 2;
            if (ncap > max_in)
                ncap = (uint32_t)max_in;
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
            for (int c = 0; c < info.channels; c++)
                sum += to_short(ch[c][i]);
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
    return rc;
}
