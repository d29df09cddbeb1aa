/* snd_load.c: RIFF WAVE sounds through the bounded reader, linear resampling to 48 kHz, and the
 * bank that finds sounds by their precache name on a game's search path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rd.h"
#include "../common/text.h"
#include "snd.h"

void snd_sample_free(snd_sample *s)
{
    if (!s)
        return;
    free(s->pcm);
    s->pcm = NULL;
    s->len = 0;
    s->loop = -1;
}

qd_err snd_resample(const int16_t *in, uint32_t n, uint32_t in_rate, snd_sample *out,
                    qd_error *err)
{
    out->pcm = NULL;
    out->len = 0;
    out->loop = -1;
    if (n == 0 || in_rate < SND_MIN_IN_RATE || in_rate > SND_MAX_IN_RATE)
        return qd_fail(err, QD_ERR_BAD_DATA, 0, "%u samples at %u Hz cannot be resampled", n,
                       in_rate);
    uint64_t len = ((uint64_t)n * SND_RATE + in_rate - 1) / in_rate;
    if (len > SND_MAX_OUT)
        return qd_fail(err, QD_ERR_LIMIT, 0, "%llu samples at %d Hz: over the cap of %u",
                       (unsigned long long)len, SND_RATE, SND_MAX_OUT);
    out->pcm = malloc((size_t)len * sizeof *out->pcm);
    if (!out->pcm)
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory for %llu samples",
                       (unsigned long long)len);
    out->len = (uint32_t)len;
    for (uint32_t j = 0; j < out->len; j++) {
        /* input position j * in_rate / SND_RATE, in integer steps of 1/SND_RATE */
        uint64_t pos = (uint64_t)j * in_rate;
        uint32_t i = (uint32_t)(pos / SND_RATE), frac = (uint32_t)(pos % SND_RATE);
        int32_t a = in[i < n ? i : n - 1], b = in[i + 1 < n ? i + 1 : n - 1];
        out->pcm[j] = (int16_t)(a + (int32_t)((int64_t)(b - a) * frac / SND_RATE));
    }
    return QD_OK;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t tag(const char *s)
{
    return (uint32_t)(uint8_t)s[0] | (uint32_t)(uint8_t)s[1] << 8 |
           (uint32_t)(uint8_t)s[2] << 16 | (uint32_t)(uint8_t)s[3] << 24;
}

/* The "fmt " fields the decoder needs. */
typedef struct wav_fmt {
    uint16_t channels, bits, align;
    uint32_t rate;
} wav_fmt;

static qd_err read_fmt(rd_t *c, size_t at, wav_fmt *f, qd_error *err)
{
    uint16_t format = rd_u16(c);
    f->channels = rd_u16(c);
    f->rate = rd_u32(c);
    rd_u32(c); /* bytes per second: derived, not trusted */
    f->align = rd_u16(c);
    f->bits = rd_u16(c);
    if (c->err)
        return qd_fail(err, QD_ERR_TRUNCATED, at, "fmt chunk shorter than 16 bytes");
    if (format != 1)
        return qd_fail(err, QD_ERR_UNSUPPORTED, at, "format %u is not PCM (1)", format);
    if (f->channels != 1 && f->channels != 2)
        return qd_fail(err, QD_ERR_UNSUPPORTED, at, "%u channels (1 or 2 allowed)", f->channels);
    if (f->bits != 8 && f->bits != 16)
        return qd_fail(err, QD_ERR_UNSUPPORTED, at, "%u bits a sample (8 or 16 allowed)",
                       f->bits);
    if (f->align != f->channels * f->bits / 8)
        return qd_fail(err, QD_ERR_BAD_DATA, at, "block align %u is not %u channels x %u bits",
                       f->align, f->channels, f->bits);
    if (f->rate < SND_MIN_IN_RATE || f->rate > SND_MAX_IN_RATE)
        return qd_fail(err, QD_ERR_UNSUPPORTED, at, "rate %u Hz outside %d..%d", f->rate,
                       SND_MIN_IN_RATE, SND_MAX_IN_RATE);
    return QD_OK;
}

/* The PCM frames of a data chunk as mono 16-bit, then resampled. */
static qd_err decode_pcm(const uint8_t *p, uint32_t frames, const wav_fmt *f, snd_sample *out,
                         qd_error *err)
{
    int16_t *mono = malloc((size_t)frames * sizeof *mono);
    if (!mono)
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory for %u samples", frames);
    rd_t r = rd_make(p, (size_t)frames * f->align);
    for (uint32_t i = 0; i < frames; i++) {
        int32_t sum = 0;
        for (int ch = 0; ch < f->channels; ch++)
            sum += f->bits == 8 ? ((int32_t)rd_u8(&r) - 128) * 256 : rd_s16(&r);
        mono[i] = (int16_t)(sum / f->channels);
    }
    qd_err e = snd_resample(mono, frames, f->rate, out, err);
    free(mono);
    return e;
}

qd_err snd_decode_wav(const uint8_t *data, size_t len, snd_sample *out, qd_error *err)
{
    return snd_decode_wav_max(data, len, SND_MAX_OUT, out, err);
}

qd_err snd_decode_wav_max(const uint8_t *data, size_t len, uint32_t max_out, snd_sample *out,
                          qd_error *err)
{
    out->pcm = NULL;
    out->len = 0;
    out->loop = -1;
    rd_t r = rd_make(data, len);
    uint32_t riff = rd_u32(&r), riff_len = rd_u32(&r), wave = rd_u32(&r);
    if (r.err)
        return qd_fail(err, QD_ERR_TRUNCATED, len, "%zu bytes: shorter than a RIFF header", len);
    if (riff != tag("RIFF") || wave != tag("WAVE"))
        return qd_fail(err, QD_ERR_BAD_DATA, 0, "not a RIFF WAVE file");
    if (riff_len < 4)
        return qd_fail(err, QD_ERR_BAD_DATA, 4, "RIFF length %u is under 4", riff_len);
    wav_fmt f = {0, 0, 0, 0};
    int have_fmt = 0;
    /* the chunks first: a cue point may follow the data (Cool Edit writes it there) */
    size_t data_at = 0, data_body = 0, cue_at = 0, mark_at = 0;
    uint32_t data_len = 0, cue_len = 0, mark_len = 0;
    while (rd_left(&r) > 0) {
        size_t at = r.pos;
        uint32_t id = rd_u32(&r), clen = rd_u32(&r);
        if ((r.err || clen > rd_left(&r)) && data_at)
            break; /* damage past the data: its chunks end there (as GetWavinfo's search) */
        if (r.err)
            return qd_fail(err, QD_ERR_TRUNCATED, at, "chunk header cut off");
        size_t body = r.pos;
        if (clen > rd_left(&r))
            return qd_fail(err, QD_ERR_TRUNCATED, at,
                           "chunk of %u bytes runs past the end of the file (%zu left)", clen,
                           rd_left(&r));
        rd_t c = rd_make(data + body, clen);
        if (id == tag("fmt ") && !data_at) { /* (one after the data is not read) */
            if (have_fmt)
                return qd_fail(err, QD_ERR_BAD_DATA, at, "a second fmt chunk");
            qd_err e = read_fmt(&c, at, &f, err);
            if (e != QD_OK)
                return e;
            have_fmt = 1;
        } else if (id == tag("data") && !data_at) {
            if (!have_fmt)
                return qd_fail(err, QD_ERR_BAD_DATA, at, "data chunk before the fmt chunk");
            data_at = at;
            data_body = body;
            data_len = clen;
        } else if (id == tag("cue ") && !cue_at) {
            cue_at = at;
            cue_len = clen;
        } else if (id == tag("LIST") && cue_at && !mark_at) {
            mark_at = at; /* (GetWavinfo's FindNextChunk: the first LIST after the cue) */
            mark_len = clen;
        }
        /* other chunks (smpl, a second data...) are skipped; bodies are padded to even */
        rd_skip(&r, clen);
        if ((clen & 1) && rd_left(&r) > 0)
            rd_skip(&r, 1);
    }
    if (!data_at)
        return qd_fail(err, QD_ERR_BAD_DATA, len, have_fmt ? "no data chunk" : "no fmt chunk");
    uint32_t frames = data_len / f.align;
    if (frames == 0)
        return qd_fail(err, QD_ERR_BAD_DATA, data_at, "data chunk holds no sample");
    if (frames > SND_MAX_IN_FRAMES)
        return qd_fail(err, QD_ERR_LIMIT, data_at, "%u sample frames: over the cap of %u",
                       frames, SND_MAX_IN_FRAMES);
    /* GetWavinfo: the loop start 32 bytes into the cue chunk (past its count and the first
     * cue point's name, position, chunk, chunk start and block start); a LIST whose bytes 28
     * on say "mark" holds the loop's length 24 bytes in (its ltxt's sample length) */
    int64_t loop = -1;
    if (cue_at && cue_len >= 28 && le32(data + cue_at + 8) > 0) {
        loop = le32(data + cue_at + 32);
        if (mark_at && mark_len >= 24 && memcmp(data + mark_at + 28, "mark", 4) == 0) {
            uint64_t end = (uint64_t)loop + le32(data + mark_at + 24);
            if (end > frames)
                return qd_fail(err, QD_ERR_BAD_DATA, mark_at + 24,
                               "loop of %u samples from %lld runs past the data's %u",
                               le32(data + mark_at + 24), (long long)loop, frames);
            if (end > 0) /* (WinQuake's 0 is "not given") */
                frames = (uint32_t)end; /* (it plays no further) */
        }
        if (loop >= frames)
            return qd_fail(err, QD_ERR_BAD_DATA, cue_at + 32,
                           "cue point at sample %lld, past the sound's %u", (long long)loop,
                           frames);
    }
    uint64_t outlen = f.rate ? ((uint64_t)frames * SND_RATE + f.rate - 1) / f.rate : 0;
    if (outlen > max_out)
        return qd_fail(err, QD_ERR_LIMIT, data_at, "%llu samples at %d Hz: over the %u left",
                       (unsigned long long)outlen, SND_RATE, max_out);
    qd_err e = decode_pcm(data + data_body, frames, &f, out, err);
    if (e != QD_OK && err)
        err->offset = data_at;
    if (e == QD_OK && loop >= 0) {
        /* ResampleSfx: loopstart / stepscale, stepscale = rate / output rate */
        int64_t at = loop * SND_RATE / f.rate;
        out->loop = (int32_t)(at < (int64_t)out->len ? at : (int64_t)out->len - 1);
    }
    return e;
}

qd_err snd_decode(const uint8_t *data, size_t len, snd_sample *out, qd_error *err)
{
    return snd_decode_max(data, len, SND_MAX_OUT, out, err);
}

qd_err snd_decode_max(const uint8_t *data, size_t len, uint32_t max_out, snd_sample *out,
                      qd_error *err)
{
    if (len >= 4 && !memcmp(data, "OggS", 4))
        return snd_decode_ogg_max(data, len, max_out, out, err);
    return snd_decode_wav_max(data, len, max_out, out, err);
}

/* ---- The bank ---- */

typedef struct bank_entry {
    char *file;          /* the file name looked up */
    snd_sample s;        /* len 0: missing or damaged */
} bank_entry;

#define BANK_SLOTS (SND_BANK_MAX * 2)

struct snd_bank {
    bank_entry *e;
    int n;
    uint16_t slot[BANK_SLOTS]; /* open-addressing hash of file names: entry + 1, 0 empty */
    size_t bytes;
    uint32_t longest;
    int loops; /* a loaded sound has a loop point */
};

snd_bank *snd_bank_new(void)
{
    snd_bank *b = calloc(1, sizeof *b);
    if (b && !(b->e = calloc(SND_BANK_MAX, sizeof *b->e))) {
        free(b);
        b = NULL;
    }
    return b;
}

void snd_bank_free(snd_bank *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->n; i++) {
        free(b->e[i].file);
        snd_sample_free(&b->e[i].s);
    }
    free(b->e);
    free(b);
}

int snd_file_name(cl_game game, const char *name, char *out, size_t cap)
{
    const char *pre = "sound/";
    if (!name || !name[0])
        return 0;
    if (game == CL_GAME_Q3)
        pre = "";
    else if (game == CL_GAME_Q2 && name[0] == '#') {
        /* Quake II's "#" names are whole paths (snd_mem.c S_LoadSound): a player model's own
         * sound, "#players/<model>/<name>" (snd_dma.c S_RegisterSexedSound) */
        pre = "";
        name++;
    } else if (game == CL_GAME_Q2 && name[0] == '*') {
        /* a sexed sound of no known model: "male" (S_RegisterSexedSound's default), whose
         * sounds are the pak's sound/player/male/ */
        pre = "sound/player/male/";
        name++;
    }
    return cap > 0 && qd_concat(out, cap, pre, name);
}

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s)) * 16777619u;
    return h;
}

/* Read and decode file, a sound of at most max_out samples; 1 when it gave one. */
static int load(const pak_fs *fs, const char *file, uint32_t max_out, snd_sample *s)
{
    uint8_t *data = NULL;
    size_t len = 0;
    qd_error e;
    if (!fs || pak_read(fs, file, &data, &len, &e) != QD_OK)
        return 0;
    int ok = snd_decode_max(data, len, max_out, s, &e) == QD_OK;
    free(data);
    return ok;
}

/* load, and for Quake III a missing .wav as .ogg (ioquake3 snd_codec.c: the other extension) */
static int load_game(const pak_fs *fs, cl_game game, const char *file, uint32_t max_out,
                     snd_sample *s)
{
    if (load(fs, file, max_out, s))
        return 1;
    size_t n = strlen(file);
    if (game != CL_GAME_Q3 || n <= 4 || n > PAK_MAX_NAME || strcasecmp(file + n - 4, ".wav"))
        return 0;
    char alt[PAK_MAX_NAME + 1];
    memcpy(alt, file, n - 4);
    memcpy(alt + n - 4, ".ogg", 5);
    return load(fs, alt, max_out, s);
}

int snd_bank_find(snd_bank *b, const pak_fs *fs, cl_game game, const char *name)
{
    char file[PAK_MAX_NAME + 1];
    if (!b || !snd_file_name(game, name, file, sizeof file))
        return -1;
    uint32_t h = hash_name(file) % BANK_SLOTS;
    for (; b->slot[h]; h = (h + 1) % BANK_SLOTS) {
        bank_entry *e = &b->e[b->slot[h] - 1];
        if (!strcasecmp(e->file, file))
            return e->s.len ? b->slot[h] - 1 : -1;
    }
    if (b->n >= SND_BANK_MAX)
        return -1; /* the bank is full: silent */
    bank_entry *e = &b->e[b->n];
    if (!(e->file = strdup(file)))
        return -1;
    /* what the bank has room for: a sound past it is not decoded whole to be dropped (a
     * review: 64 names of one long OGG in a 148 KB pak decoded for 49 s), and a full bank
     * reads no more */
    size_t room = (SND_BANK_MAX_BYTES - b->bytes) / 2;
    uint32_t max_out = room < SND_MAX_OUT ? (uint32_t)room : SND_MAX_OUT;
    int ok = max_out > 0 && load_game(fs, game, file, max_out, &e->s);
    /* a model without its own sound: Quake III's uses sarge's (cg_players.c
     * CG_LoadClientInfo), Quake II's the male one (snd_dma.c S_RegisterSexedSound:
     * "player/male/<name>") */
    const char *fallback = game == CL_GAME_Q3 && !strncasecmp(file, "sound/player/", 13)
                               ? "sound/player/sarge"
                           : game == CL_GAME_Q2 && name[0] == '#' &&
                                   !strncasecmp(file, "players/", 8)
                               ? "sound/player/male"
                               : NULL;
    if (!ok && fallback) {
        const char *base = strrchr(file, '/');
        char alt[PAK_MAX_NAME + 1];
        if (max_out > 0 && snprintf(alt, sizeof alt, "%s%s", fallback, base) < (int)sizeof alt)
            ok = load_game(fs, game, alt, max_out, &e->s);
    }
    if (ok && b->bytes + (size_t)e->s.len * 2 > SND_BANK_MAX_BYTES) {
        snd_sample_free(&e->s);
        ok = 0;
    }
    if (ok) {
        b->bytes += (size_t)e->s.len * 2;
        if (e->s.len > b->longest)
            b->longest = e->s.len;
        b->loops |= e->s.loop >= 0;
    }
    b->slot[h] = (uint16_t)(b->n + 1);
    b->n++;
    return ok ? b->n - 1 : -1;
}

const snd_sample *snd_bank_get(const snd_bank *b, int id)
{
    if (!b || id < 0 || id >= b->n || !b->e[id].s.len)
        return NULL;
    return &b->e[id].s;
}

const char *snd_bank_missing(const snd_bank *b, int i)
{
    for (int k = 0; b && k < b->n; k++)
        if (!b->e[k].s.len && i-- == 0)
            return b->e[k].file;
    return NULL;
}

uint32_t snd_bank_longest(const snd_bank *b) { return b ? b->longest : 0; }

int snd_bank_loops(const snd_bank *b) { return b && b->loops; }

int snd_wav_header(uint8_t out[44], uint64_t frames)
{
    uint64_t data = frames * 4;
    if (frames > ((uint64_t)1 << 32) || data + 36 > 0xffffffffu)
        return 0;
    static const uint8_t fixed[36 - 4] = {
        'W', 'A', 'V', 'E', 'f', 'm', 't', ' ', 16, 0, 0, 0, 1, 0, 2, 0,
        SND_RATE & 0xff, (SND_RATE >> 8) & 0xff, (SND_RATE >> 16) & 0xff, 0,
        (SND_RATE * 4) & 0xff, ((SND_RATE * 4) >> 8) & 0xff, ((SND_RATE * 4) >> 16) & 0xff, 0,
        4, 0, 16, 0, 'd', 'a', 't', 'a'};
    uint32_t riff = (uint32_t)(data + 36), d = (uint32_t)data;
    memcpy(out, "RIFF", 4);
    for (int i = 0; i < 4; i++) {
        out[4 + i] = (uint8_t)(riff >> (8 * i));
        out[40 + i] = (uint8_t)(d >> (8 * i));
    }
    memcpy(out + 8, fixed, sizeof fixed);
    return 1;
}
