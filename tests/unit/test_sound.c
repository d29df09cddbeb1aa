/* test_sound.c: sound loading (hand-made WAVs, damaged ones), the mixer's timing, balance,
 * channel override and voice limit, Quake III event sounds, and `render --audio`. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/app/app_sound.h"
#include "../../src/app/player.h"
#include "../../src/timeline/timeline.h"
#include "../q3scan.h"
#include "../test.h"

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

/* A PCM WAVE file in out (at least 44 + len bytes): RIFF, "fmt " (16 bytes), "data". */
static size_t make_wav(uint8_t *out, int channels, int bits, uint32_t rate, const void *pcm,
                       uint32_t len)
{
    memcpy(out, "RIFF", 4);
    put32(out + 4, 36 + len);
    memcpy(out + 8, "WAVEfmt ", 8);
    put32(out + 16, 16);
    put16(out + 20, 1);
    put16(out + 22, (unsigned)channels);
    put32(out + 24, rate);
    put32(out + 28, rate * (uint32_t)(channels * bits / 8));
    put16(out + 32, (unsigned)(channels * bits / 8));
    put16(out + 34, (unsigned)bits);
    memcpy(out + 36, "data", 4);
    put32(out + 40, len);
    memcpy(out + 44, pcm, len);
    return 44 + len;
}

/* A "cue " chunk of one cue point at sample `at` after the n bytes of the WAV file in out
 * (room for 36 more bytes), as Cool Edit writes it: count 1, then the point's name 1,
 * position 0, chunk "data", chunk start 0, block start 0 and sample offset at; the RIFF
 * length grown to match. Returns the new size. */
static size_t add_cue(uint8_t *out, size_t n, uint32_t at)
{
    uint8_t *c = out + n;
    memcpy(c, "cue ", 4);
    put32(c + 4, 28);
    put32(c + 8, 1);
    put32(c + 12, 1);
    put32(c + 16, 0);
    memcpy(c + 20, "data", 4);
    put32(c + 24, 0);
    put32(c + 28, 0);
    put32(c + 32, at);
    put32(out + 4, (uint32_t)(n + 36 - 8));
    return n + 36;
}

TEST(sound_wav_16bit_mono_48k_is_exact)
{
    uint8_t pcm[8], file[64];
    const int16_t v[4] = {0, 1000, -1000, 32767};
    for (int i = 0; i < 4; i++)
        put16(pcm + 2 * i, (uint16_t)v[i]);
    size_t n = make_wav(file, 1, 16, 48000, pcm, 8);
    snd_sample s;
    qd_error e;
    CHECK_EQ(snd_decode_wav(file, n, &s, &e), QD_OK);
    CHECK_EQ(s.len, 4u);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(s.pcm[i], v[i]);
    snd_sample_free(&s);
}

TEST(sound_wav_8bit_stereo_24k_mixed_down_and_resampled)
{
    /* two frames: (138, 158) and (118, 98): mono (10 + 30) / 2 * 256 = 5120, then
     * (-10 - 30) / 2 * 256 = -5120; at 24 kHz each input sample gives two outputs, the
     * second halfway to the next (0), the last held */
    const uint8_t pcm[4] = {138, 158, 118, 98};
    uint8_t file[64];
    size_t n = make_wav(file, 2, 8, 24000, pcm, 4);
    snd_sample s;
    qd_error e;
    CHECK_EQ(snd_decode_wav(file, n, &s, &e), QD_OK);
    CHECK_EQ(s.len, 4u);
    CHECK_EQ(s.pcm[0], 5120);
    CHECK_EQ(s.pcm[1], 0);
    CHECK_EQ(s.pcm[2], -5120);
    CHECK_EQ(s.pcm[3], -5120);
    snd_sample_free(&s);
}

TEST(sound_wav_damaged_is_refused_cleanly)
{
    uint8_t pcm[64], file[128];
    for (int i = 0; i < 64; i++)
        pcm[i] = (uint8_t)(i * 7);
    size_t n = make_wav(file, 1, 16, 22050, pcm, 64);
    snd_sample s;
    qd_error e;
    /* every cut: the data chunk (the last) then announces more than is there */
    for (size_t cut = 0; cut < n; cut++) {
        CHECK(snd_decode_wav(file, cut, &s, &e) != QD_OK);
        CHECK(s.pcm == NULL && s.len == 0);
        CHECK(e.offset <= n);
    }
    /* bad fields, each on a fresh copy: where (byte), what */
    struct { size_t at; uint32_t v; int width; qd_err want; uint64_t ofs; } bad[] = {
        {16, 0xfffffff0u, 4, QD_ERR_TRUNCATED, 12}, /* fmt length past the end */
        {16, 8, 4, QD_ERR_TRUNCATED, 12},           /* fmt shorter than 16 */
        {40, 0x7fffffffu, 4, QD_ERR_TRUNCATED, 36}, /* data length past the end */
        {40, 1, 4, QD_ERR_BAD_DATA, 36},            /* under one frame */
        {20, 3, 2, QD_ERR_UNSUPPORTED, 12},         /* not PCM */
        {22, 3, 2, QD_ERR_UNSUPPORTED, 12},         /* three channels */
        {34, 12, 2, QD_ERR_UNSUPPORTED, 12},        /* 12 bits */
        {32, 3, 2, QD_ERR_BAD_DATA, 12},            /* block align */
        {24, 0, 4, QD_ERR_UNSUPPORTED, 12},         /* rate 0 */
        {24, 4000000, 4, QD_ERR_UNSUPPORTED, 12},   /* rate 4 MHz */
        {8, 0x45564157u ^ 1, 4, QD_ERR_BAD_DATA, 0}, /* not WAVE */
        {36, 0x61746164u ^ 0x20, 4, QD_ERR_BAD_DATA, n}, /* no data chunk */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t f2[128];
        memcpy(f2, file, n);
        if (bad[i].width == 4)
            put32(f2 + bad[i].at, bad[i].v);
        else
            put16(f2 + bad[i].at, bad[i].v);
        qd_err got = snd_decode_wav(f2, n, &s, &e);
        CHECK_MSG(got == bad[i].want, "case %zu: %s", i, e.msg);
        CHECK_MSG(e.offset == bad[i].ofs, "case %zu: offset %llu", i,
                  (unsigned long long)e.offset);
        CHECK(s.pcm == NULL);
    }
    /* the loader by magic: garbage and a broken OGG are refused too */
    CHECK(snd_decode((const uint8_t *)"OggS\0\0\0\0", 8, &s, &e) != QD_OK);
    CHECK(snd_decode((const uint8_t *)"hello", 5, &s, &e) != QD_OK);
}

TEST(sound_resample_caps_output)
{
    int16_t one = 1;
    snd_sample s;
    qd_error e;
    CHECK_EQ(snd_resample(&one, 1, 999, &s, &e), QD_ERR_BAD_DATA);
    /* 64 Mi frames at 1 kHz would be 3 Gi samples at 48 kHz: refused before allocating */
    CHECK_EQ(snd_resample(&one, SND_MAX_IN_FRAMES, 1000, &s, &e), QD_ERR_LIMIT);
    CHECK(s.pcm == NULL);
}

/* ---- a folder game with one hand-made sound: sound/test.wav, 0.1 s of 10000 ---- */

static const char *sound_dir(void)
{
    static char dir[1024];
    snprintf(dir, sizeof dir, "%s/sound_game", test_tmpdir());
    char sub[1100];
    snprintf(sub, sizeof sub, "%s/sound", dir);
    mkdir(dir, 0777);
    mkdir(sub, 0777);
    static uint8_t pcm[4800 * 2], file[44 + sizeof pcm];
    for (int i = 0; i < 4800; i++)
        put16(pcm + 2 * i, 10000);
    size_t n = make_wav(file, 1, 16, 48000, pcm, sizeof pcm);
    char path[1200];
    snprintf(path, sizeof path, "%s/test.wav", sub);
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    fwrite(file, 1, n, f);
    fclose(f);
    /* ramp.wav: 4800 samples of 5 x i with a cue point at 1000 */
    static uint8_t ramp[4800 * 2], rwav[44 + sizeof ramp + 36];
    for (int i = 0; i < 4800; i++)
        put16(ramp + 2 * i, (uint16_t)(5 * i));
    snprintf(path, sizeof path, "%s/ramp.wav", sub);
    if (!(f = fopen(path, "wb")))
        return NULL;
    fwrite(rwav, 1, add_cue(rwav, make_wav(rwav, 1, 16, 48000, ramp, sizeof ramp), 1000), f);
    fclose(f);
    /* loop.wav: the same as test.wav with a cue point at 0, as id's looping sounds have */
    static uint8_t looped[sizeof file + 36];
    memcpy(looped, file, n);
    size_t ln = add_cue(looped, n, 0);
    snprintf(path, sizeof path, "%s/loop.wav", sub);
    if (!(f = fopen(path, "wb")))
        return NULL;
    fwrite(looped, 1, ln, f);
    fclose(f);
    return dir;
}

/* A Quake level with sound 1 = test.wav and one frame at time 1.0 s holding a start of it on
 * entity ent, channel chan at origin. */
static void add_start(cl_state *cl, double t, int ent, int chan, float x, float y)
{
    cl_frame_begin(cl, t);
    cl_sound s;
    memset(&s, 0, sizeof s);
    s.sound = 1;
    s.entity = (int16_t)ent;
    s.channel = (uint8_t)chan;
    s.volume = 255;
    s.attenuation = 64;
    s.has_origin = 1;
    s.origin[0] = x;
    s.origin[1] = y;
    cl_sound_add(cl, &s);
    cl_frame_end(cl, 0);
}

/* o searching the hand-made game folder; NULL (the test skips) when it cannot be written */
static const char *sound_opts(app_opts *o)
{
    memset(o, 0, sizeof *o);
    o->paks[0] = sound_dir();
    o->num_paks = 1;
    return o->paks[0];
}

static cl_state *quake_level(void)
{
    cl_state *cl = calloc(1, sizeof *cl);
    if (!cl)
        return NULL;
    cl_reset(cl);
    cl_level_begin(cl, CL_GAME_Q1, 15, 1, "sound test");
    cl_set_sound(cl, 1, "test.wav");
    return cl;
}

/* The hand-made game in o, a Quake level on it in *cl and an audio state reading it in a;
 * 0 when the sound cannot be written or memory ran out (the test skips). */
static int fixture(app_opts *o, cl_state **cl, app_audio *a)
{
    if (!sound_opts(o) || !(*cl = quake_level()))
        return 0;
    if (!app_audio_init(a, o)) {
        free(*cl);
        return 0;
    }
    return 1;
}

/* A bank holding the hand-made game's test.wav (10000, 4800 samples) and its search path in
 * *b and *fs (both to free); returns the sound's id, -1 when it failed. */
static int test_sound_bank(const app_opts *o, snd_bank **b, pak_fs **fs)
{
    qd_error e;
    *b = snd_bank_new();
    *fs = pak_fs_open();
    if (!*b || !*fs || pak_fs_add_game_dir(*fs, o->paks[0], &e) != QD_OK)
        return -1;
    return snd_bank_find(*b, *fs, CL_GAME_Q1, "test.wav");
}

/* A mixer at master 1 over test_sound_bank's bank of the hand-made game (id: test.wav). */
typedef struct mix_rig {
    app_opts o;
    snd_bank *b;
    pak_fs *fs;
    snd_mixer *m;
    int id;
} mix_rig;

static void rig_close(mix_rig *r)
{
    snd_mixer_free(r->m);
    snd_bank_free(r->b);
    pak_fs_close(r->fs);
}

/* 0 (all freed) when the sound cannot be written or loaded: the test skips. */
static int rig_open(mix_rig *r)
{
    memset(r, 0, sizeof *r);
    if (!sound_opts(&r->o))
        return 0;
    r->id = test_sound_bank(&r->o, &r->b, &r->fs);
    r->m = r->id >= 0 ? snd_mixer_new(r->b, 1.0f) : NULL;
    if (!r->m)
        rig_close(r);
    return r->m != NULL;
}

/* A listener at the origin facing +x (right is -y), nobody. */
static snd_listener origin_listener(void)
{
    snd_listener l;
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    snd_listener_set(&l, eye, ang);
    return l;
}

/* n loops of sound id at full volume, attenuation att (x64), at (0, y, 0). */
static void test_loops(snd_loop *loops, int n, int id, int att, float y)
{
    memset(loops, 0, (size_t)n * sizeof *loops);
    for (int i = 0; i < n; i++) {
        loops[i].id = id;
        loops[i].volume = 255;
        loops[i].attenuation = (uint8_t)att;
        loops[i].origin[1] = y;
    }
}

/* A start of sound id at sample 0 on entity 5, channel 1, at full volume and the normal
 * attenuation, at the origin. */
static snd_start test_start(int id)
{
    snd_start s;
    memset(&s, 0, sizeof s);
    s.id = id;
    s.entity = 5;
    s.channel = 1;
    s.volume = 255;
    s.attenuation = 64;
    return s;
}

TEST(sound_event_heard_at_its_sample_on_its_side)
{
    app_opts o;
    cl_state *cl;
    app_audio a;
    if (!fixture(&o, &cl, &a))
        SKIP("cannot write the test sound");
    /* 600 units to the right of a listener at the origin facing +x (right is -y) */
    add_start(cl, 1.0, 5, 1, 0, -600);
    app_audio_take(&a, cl, 0, 10, 0.5); /* sample 0 = demo time 0.5 */
    CHECK_EQ(a.n, (size_t)1);
    CHECK_EQ(a.starts[0].at, (int64_t)24000);
    enum { N = 48000 };
    int16_t *out = malloc(N * 4);
    CHECK(out);
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    app_audio_mix(&a, cl, eye, ang, 0, 0, N, out);
    /* silent before 24000, then right = 10000 x 0.7 (volume) x (1 - 600/1000) x (1 + 1)
     * = 5600 (fixed-point gains: within 2; under SND_PaintChannelFrom8's clamp at full
     * volume, 7000), left 0, for 4800 samples */
    int first = -1;
    for (int i = 0; i < N && first < 0; i++)
        if (out[2 * i] || out[2 * i + 1])
            first = i;
    CHECK_EQ(first, 24000);
    CHECK(abs(out[2 * 24000 + 1] - 5600) <= 2);
    CHECK_EQ(out[2 * 24000], 0);
    CHECK(abs(out[2 * (24000 + 4799) + 1] - 5600) <= 2);
    CHECK_EQ(out[2 * (24000 + 4800) + 1], 0);
    app_audio_free(&a);

    /* the same on the left (+y): the other ear */
    cl_state *cl2 = quake_level();
    CHECK(cl2);
    add_start(cl2, 1.0, 5, 1, 0, 600);
    CHECK(app_audio_init(&a, &o));
    app_audio_take(&a, cl2, 0, 10, 0.5);
    app_audio_mix(&a, cl2, eye, ang, 0, 0, N, out);
    CHECK(abs(out[2 * 24000] - 5600) <= 2);
    CHECK_EQ(out[2 * 24000 + 1], 0);
    /* turned around (yaw 180): the source at +y is now on the right */
    app_audio_free(&a);
    CHECK(app_audio_init(&a, &o));
    app_audio_take(&a, cl2, 0, 10, 0.5);
    const float back[3] = {0, 180, 0};
    app_audio_mix(&a, cl2, eye, back, 0, 0, N, out);
    CHECK(abs(out[2 * 24000 + 1] - 5600) <= 2);
    CHECK(abs(out[2 * 24000]) <= 1);
    app_audio_free(&a);
    free(out);
    free(cl);
    free(cl2);
}

/* Two starts logged out of time order (entity 6 at 0.05 s first, then entity 5 at 0.0 s: a
 * Quake II muzzle flash is dated 33-100 ms on): taken in time order, and the earlier is
 * heard from its own sample though the track is mixed in spans of 1,200 samples. Before
 * the fix it waited behind the later one until the span that held 2,400 and lost its
 * first 2,400 samples. */
TEST(sound_starts_logged_out_of_order_mixed_in_time)
{
    app_opts o;
    cl_state *cl;
    app_audio a;
    if (!fixture(&o, &cl, &a))
        SKIP("cannot write the test sound");
    add_start(cl, 0.05, 6, 0, 0, 0);
    add_start(cl, 0.0, 5, 0, 0, 0);
    app_audio_take(&a, cl, 0, 10, 0);
    CHECK_EQ(a.n, (size_t)2);
    CHECK(a.n == 2 && a.starts[0].at == 0 && a.starts[1].at == 2400);
    int16_t out[1200 * 2];
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    app_audio_mix(&a, cl, eye, ang, 0, 0, 1200, out);
    CHECK(abs(out[2 * 100] - 7000) <= 2); /* (at distance 0: 10000 x 0.7) */
    app_audio_free(&a);
    free(cl);
}

/* An export's look-back: 100 starts long over before sample 0 (0.1 s each, at -2.0 .. -1.01
 * s) and one at -0.03 s that still sounds at 0 (until 0.07 s), all handed over before the
 * first span: the last is heard from sample 0. Before the fix the 64 voices filled with the
 * long-ended ones (the mixer's clock not yet started) and the last was turned away: the
 * span was silent (a review: the first 150 ms of an OpenArena export from 10 s). */
TEST(sound_look_back_keeps_the_starts_still_sounding)
{
    app_opts o;
    cl_state *cl;
    app_audio a;
    if (!fixture(&o, &cl, &a))
        SKIP("cannot write the test sound");
    for (int i = 0; i < 100; i++)
        add_start(cl, 0.01 * i, 100 + i, 0, 0, 0);
    add_start(cl, 1.97, 5, 0, 0, 0);
    app_audio_take(&a, cl, 0, 10, 2.0); /* sample 0 = demo time 2.0 */
    CHECK_EQ(a.n, (size_t)101);
    int16_t out[1200 * 2];
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    app_audio_mix(&a, cl, eye, ang, 0, 0, 1200, out);
    CHECK(abs(out[2 * 100] - 7000) <= 2); /* one voice at distance 0: 10000 x 0.7 */
    CHECK(snd_mixer_voices(a.mix) == 1);
    app_audio_free(&a);
    free(cl);
}

TEST(sound_channel_override_and_voice_limit)
{
    app_opts o;
    cl_state *cl;
    app_audio a;
    if (!fixture(&o, &cl, &a))
        SKIP("cannot write the test sound");
    /* entity 5 channel 1 at 0.0 s and again at 0.05 s: the first stops at 2400, so the
     * sum never doubles; a channel-0 start at 0.06 s on entity 6 is added on top (48000
     * samples a second, each start 0.1 s long) */
    add_start(cl, 0.0, 5, 1, 0, 0);
    add_start(cl, 0.05, 5, 1, 0, 0);
    add_start(cl, 0.06, 6, 0, 0, 0);
    app_audio_take(&a, cl, 0, 10, 0);
    CHECK_EQ(a.n, (size_t)3);
    int16_t *out = malloc(9600 * 4);
    CHECK(out);
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    app_audio_mix(&a, cl, eye, ang, 0, 0, 9600, out);
    /* at distance 0: both ears 10000 x 0.7 = 7000 a voice; entity 6's from 2880 to 7680 */
    CHECK(abs(out[2 * 100] - 7000) <= 2);
    CHECK(abs(out[2 * 2600] - 7000) <= 2); /* entity 5: one voice, not two */
    CHECK(abs(out[2 * 3000] - 14000) <= 3); /* and entity 6's on top */
    CHECK(abs(out[2 * 7000] - 14000) <= 3); /* the second plays its whole 0.1 s */
    CHECK(abs(out[2 * 7400] - 7000) <= 2); /* entity 5's second ended at 7200 */
    CHECK_EQ(out[2 * 7700], 0);
    app_audio_free(&a);
    free(out);

    /* 70 starts at once on channel 0: 64 voices */
    snd_bank *b;
    pak_fs *fs;
    int id = test_sound_bank(&o, &b, &fs);
    CHECK(id >= 0);
    CHECK_EQ(snd_bank_find(b, fs, CL_GAME_Q1, "nothere.wav"), -1);
    CHECK(snd_bank_missing(b, 0) && !strcmp(snd_bank_missing(b, 0), "sound/nothere.wav"));
    snd_mixer *m = snd_mixer_new(b, 1.0f);
    CHECK(m);
    for (int i = 0; i < 70; i++) {
        snd_start s;
        memset(&s, 0, sizeof s);
        s.id = id;
        s.volume = (uint8_t)(100 + i);
        s.full = 1;
        snd_mixer_start(m, &s);
    }
    CHECK_EQ(snd_mixer_voices(m), SND_VOICES);
    snd_mixer_free(m);
    snd_bank_free(b);
    pak_fs_close(fs);
    free(cl);
}

/* A WAV's loop as id's GetWavinfo reads it (WinQuake, Quake II snd_mem.c): the first cue
 * point's sample offset, wherever the "cue " chunk lies; a LIST after it whose bytes 28 on
 * say "mark" cuts the sound to the loop start plus the length 24 bytes in; resampled as
 * ResampleSfx (offset / (rate / 48000), truncated). 100 frames of 8 bits at 11025 Hz, cue at
 * 40: 436 samples (ceil(100 x 48000 / 11025) = ceil(435.37)), loop at 174 (40 x 48000 /
 * 11025 = 174.15); with a mark of 50: 90 frames, ceil(391.84) = 392 samples, loop 174; a
 * mark of 70 (to 110) or a cue at 100 is damage; no cue: no loop. */
TEST(sound_wav_cue_point_as_getwavinfo)
{
    uint8_t pcm[100], file[44 + 100 + 36 + 32];
    for (int i = 0; i < 100; i++)
        pcm[i] = (uint8_t)(28 + i);
    snd_sample s;
    qd_error e;
    size_t n = make_wav(file, 1, 8, 11025, pcm, 100);
    CHECK_EQ(snd_decode_wav(file, n, &s, &e), QD_OK);
    CHECK(s.len == 436 && s.loop == -1);
    snd_sample_free(&s);
    size_t nc = add_cue(file, n, 40);
    CHECK_EQ(snd_decode_wav(file, nc, &s, &e), QD_OK);
    CHECK_MSG(s.len == 436 && s.loop == 174, "%u %d", s.len, s.loop);
    snd_sample_free(&s);
    /* the LIST of Cool Edit's label: "adtl", then an "ltxt" of 20 bytes: name 1, sample
     * length, purpose "mark", country, language, dialect, code page */
    static const uint8_t list[32] = {'L', 'I', 'S', 'T', 24, 0, 0, 0, 'a', 'd', 't', 'l',
                                     'l', 't', 'x', 't', 20, 0, 0, 0, 1, 0, 0, 0,
                                     50, 0, 0, 0, 'm', 'a', 'r', 'k'};
    memcpy(file + nc, list, sizeof list);
    put32(file + 4, (uint32_t)(nc + 32 - 8));
    CHECK_EQ(snd_decode_wav(file, nc + 32, &s, &e), QD_OK);
    CHECK_MSG(s.len == 392 && s.loop == 174, "%u %d", s.len, s.loop);
    snd_sample_free(&s);
    file[nc + 24] = 70;
    CHECK_EQ(snd_decode_wav(file, nc + 32, &s, &e), QD_ERR_BAD_DATA);
    CHECK_EQ(e.offset, nc + 24);
    CHECK(s.pcm == NULL && s.len == 0);
    file[nc + 24] = 0; /* (0: no length given, GetWavinfo's "not set") */
    put32(file + n + 32, 100); /* the cue point at the 100th frame: past the 100 */
    CHECK_EQ(snd_decode_wav(file, nc + 32, &s, &e), QD_ERR_BAD_DATA);
    CHECK_EQ(e.offset, n + 32);
    /* bytes past the data that are no chunk are left alone, as before */
    n = make_wav(file, 1, 8, 11025, pcm, 100);
    memcpy(file + n, "cu", 2);
    CHECK_EQ(snd_decode_wav(file, n + 2, &s, &e), QD_OK);
    CHECK(s.len == 436 && s.loop == -1);
    snd_sample_free(&s);
}

/* Quake's and Quake II's mixers go on from a sound's loop point at its end until the voice
 * is cut (WinQuake S_PaintChannels; a door's or a train's moving sound, cut by the stop
 * sound on its channel): ramp.wav is 4800 samples of 5 x i at 48 kHz with a cue at 1000.
 * (sound_dir) Heard at full volume (master 1), sample 4807 plays index 1007 (5035),
 * sample 8602 index 1000 + (8602 - 1000) % 3800 = 1002 (5010); a start of test.wav (10000) on its entity and
 * channel at 9000 cuts it. Under Quake III (which reads no cue) it ends at 4800. */
TEST(sound_looped_voice_plays_on_until_cut)
{
    mix_rig r;
    if (!rig_open(&r))
        SKIP("cannot write the test sound");
    int ramp = snd_bank_find(r.b, r.fs, CL_GAME_Q1, "ramp.wav");
    CHECK(ramp >= 0 && snd_bank_get(r.b, ramp)->loop == 1000);
    snd_listener l = origin_listener();
    for (int g = 0; g < 2; g++) {
        snd_mixer_stop_all(r.m, INT64_MIN);
        snd_mixer_set_game(r.m, g ? CL_GAME_Q3 : CL_GAME_Q1);
        snd_start st = {.at = 0, .id = ramp, .entity = 5, .channel = 1, .volume = 255,
                        .full = 1};
        snd_mixer_start(r.m, &st);
        st.at = 9000;
        st.id = r.id;
        snd_mixer_start(r.m, &st);
        int16_t out[2 * 10];
        snd_mixer_mix(r.m, 4807, 1, &l, NULL, 0, out);
        CHECK_MSG(out[0] == (g ? 0 : 5035), "game %d: %d", g, out[0]);
        snd_mixer_mix(r.m, 8602, 1, &l, NULL, 0, out);
        CHECK_MSG(out[0] == (g ? 0 : 5010), "game %d: %d", g, out[0]);
        snd_mixer_mix(r.m, 9005, 1, &l, NULL, 0, out);
        CHECK_MSG(out[0] == 10000, "game %d: %d", g, out[0]);
    }
    rig_close(&r);
}

TEST(sound_static_loop_repeats)
{
    app_opts o;
    cl_state *cl;
    app_audio a;
    if (!fixture(&o, &cl, &a))
        SKIP("cannot write the test sound");
    /* test.wav has no cue point: WinQuake's S_StaticSound refuses it ("not looped") */
    cl_static_sound ss = {{0, 0, 0}, 1, 255, 64};
    CHECK(cl_static_sound_add(cl, &ss));
    int16_t out[2 * 200];
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    app_audio_mix(&a, cl, eye, ang, 0, 5, 200, out);
    CHECK(out[0] == 0 && out[399] == 0);
    app_audio_free(&a);
    free(cl);
    /* loop.wav has one (at 0): far past the sound's 4800 samples it still plays */
    if (!fixture(&o, &cl, &a))
        SKIP("cannot write the test sound");
    cl_set_sound(cl, 2, "loop.wav");
    ss.sound = 2;
    CHECK(cl_static_sound_add(cl, &ss));
    app_audio_mix(&a, cl, eye, ang, 0, 4800 * 37 + 5, 200, out);
    CHECK(abs(out[0] - 7000) <= 2 && abs(out[399] - 7000) <= 2);
    app_audio_free(&a);
    free(cl);
}

/* ---- real data: OpenArena ---- */

#define OA_BASE "/usr/share/games/openarena"

/* The OpenArena bot match's timeline; NULL when the real data is missing (*missing 1) or
 * does not open. */
static timeline_t *oa_bot_match(int *missing)
{
    char path[1024];
    *missing = !test_realfile(path, sizeof path,
                              "dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70");
    if (*missing)
        return NULL;
    qd_error e;
    demo_t *d = demo_open(path, &e);
    return d ? tl_open(d, 0, &e) : NULL;
}

TEST(sound_q3_weapon_and_pickup_events_logged)
{
    int missing;
    timeline_t *tl = oa_bot_match(&missing);
    if (missing)
        SKIP("real data missing");
    CHECK(tl);
    qd_error e;
    /* the bot match fires weapons in its first 20 seconds: the cgame's own sounds appear
     * as precache names past the configstrings' 256 and as logged starts on them */
    const cl_state *cl = tl_state_at(tl, tl_start(tl) + 20, &e);
    CHECK(cl);
    int weapons = 0, fired = 0, weapon_pickups = 0, item_pickups = 0;
    for (int i = 256; i < cl->level.num_sounds; i++)
        weapons += !strncmp(cl->level.sounds[i], "sound/weapons/", 14);
    /* the logged starts among the cgame's names: weapons firing (EV_FIRE_WEAPON's
     * flashSound, sound/weapons/...), and pickups (EV_ITEM_PICKUP's item pickup_sound,
     * bg_misc.c bg_itemlist: "sound/misc/w_pkup.wav" for every weapon, "sound/items/
     * X_health.wav" for health; the log's last CL_SOUND_LOG starts) */
    const cl_fxlog *log = &cl->fxlog;
    uint32_t first = log->sound_count > CL_SOUND_LOG ? log->sound_count - CL_SOUND_LOG : 0;
    for (uint32_t i = first; i < log->sound_count; i++) {
        int k = log->sounds[i % CL_SOUND_LOG].sound;
        const char *n = k >= 256 && k < cl->level.num_sounds ? cl->level.sounds[k] : "";
        fired += !strncmp(n, "sound/weapons/", 14);
        weapon_pickups += !strcmp(n, "sound/misc/w_pkup.wav");
        item_pickups += !strncmp(n, "sound/items/", 12) && strstr(n, "_health.wav");
    }
    CHECK(weapons > 0);
    CHECK_MSG(fired > 0 && weapon_pickups > 0 && item_pickups > 0,
              "weapons fired %d, weapon pickups %d, health pickups %d", fired, weapon_pickups,
              item_pickups);
    /* and the bots' footsteps (EV_FOOTSTEP): cg_main.c's names for a model's normal steps,
     * sound/player/footsteps/step1..4.wav, and no other footstep name than cgame's */
    int steps[5] = {0}, other = 0;
    for (int i = 256; i < cl->level.num_sounds; i++) {
        const char *n = cl->level.sounds[i];
        int k;
        if (sscanf(n, "sound/player/footsteps/step%d.wav", &k) == 1 && k >= 1 && k <= 4)
            steps[k]++;
        else if (strstr(n, "footsteps/") && !strstr(n, "/clank") && !strstr(n, "/splash"))
            other++;
    }
    CHECK(steps[1] + steps[2] + steps[3] + steps[4] >= 2 && other == 0);
    tl_close(tl);
}

/* Run `qdemo render` on demo with the given extra arguments; its exit status. */
static int render(const char *demo, const char *args)
{
    const char *q = getenv("QDEMO");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s render '%s' -b %s --size 64x48 --mode flat -q %s >/dev/null 2>&1",
             q && *q ? q : "build/qdemo", demo, OA_BASE, args);
    return system(cmd);
}

TEST(sound_render_audio_same_for_any_thread_count)
{
    char path[1024];
    struct stat st;
    if (!test_realfile(path, sizeof path,
                       "dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70") ||
        stat(OA_BASE "/baseoa", &st) != 0)
        SKIP("real data or OpenArena missing");
    const char *tmp = test_tmpdir();
    char a1[1200], a2[1200];
    snprintf(a1, sizeof a1, "%s/snd_t1.wav", tmp);
    snprintf(a2, sizeof a2, "%s/snd_t2.wav", tmp);
    for (int t = 1; t <= 2; t++) {
        char args[3000];
        snprintf(args, sizeof args, "-o '%s/snd_frames%d' --from 5 --to 8 --fps 25 --threads %d "
                 "--audio '%s'", tmp, t, t, t == 1 ? a1 : a2);
        CHECK_EQ(render(path, args), 0);
    }
    size_t n1, n2;
    unsigned char *b1 = test_read_file(a1, &n1), *b2 = test_read_file(a2, &n2);
    CHECK(b1 && b2);
    /* 75 frames at 25 fps: 3 s = 144000 sample frames of 4 bytes after the 44-byte header */
    CHECK_EQ(n1, (size_t)(44 + 144000 * 4));
    CHECK(n1 == n2 && !memcmp(b1, b2, n1));
    CHECK(!memcmp(b1, "RIFF", 4) && !memcmp(b1 + 8, "WAVEfmt ", 8));
    size_t loud = 0;
    for (size_t i = 44; i + 1 < n1; i += 2)
        loud += (b1[i] | b1[i + 1] << 8) != 0;
    CHECK(loud > 1000); /* the match is heard */
    /* the audio path must not be an input */
    char args[3000];
    snprintf(args, sizeof args, "-o '%s/snd_frames3' --from 5 --to 5.2 --audio '%s'", tmp, path);
    CHECK(render(path, args) != 0);
    CHECK(stat(path, &st) == 0 && st.st_size > 1000);
    free(b1);
    free(b2);
}

/* A demo rendered in pieces (--from on the frame grid of a render from its start) gives
 * tracks that join sample for sample into the track of one render: the loops' phase is
 * their place on the demo's clock, and each piece mixes its look-back as a render's frames
 * would (the ambients' fade, the voices its starts took and dropped, from the ear of the
 * frame before). Before, each piece's
 * loops started their phase and Quake's ambients their fade-in again at its first frame (the
 * sample's pieces differed by up to 6,740 from the cut on), and in the bot match the starts
 * looked back on went in at once with no ear (a difference of 213 for a second after the
 * cut; and 214 with the look-back mixed but reaching back only as far as the longest sound,
 * which is why it looks back twice that). */
static int pieces_join(const char *demo, const char *more, const char *fps, const char *a,
                       const char *b, const char *c, const char *name)
{
    const char *tmp = test_tmpdir();
    const char *range[3][2] = {{a, c}, {a, b}, {b, c}};
    unsigned char *w[3];
    size_t n[3];
    for (int i = 0; i < 3; i++) {
        char wav[1200], args[3000];
        snprintf(wav, sizeof wav, "%s/%s_%d.wav", tmp, name, i);
        snprintf(args, sizeof args, "%s -o '%s/%s_%d' --fps %s --from %s --to %s --audio '%s'",
                 more, tmp, name, i, fps, range[i][0], range[i][1], wav);
        if (render(demo, args) != 0)
            return -1;
        w[i] = test_read_file(wav, &n[i]);
        if (!w[i] || n[i] < 44)
            return -1;
    }
    /* the whole's data is the first piece's then the second's; and it is heard at the cut */
    size_t n1 = n[1] - 44, cut = 44 + n1, loud = 0;
    int same = n[0] == n1 + n[2] && !memcmp(w[0] + 44, w[1] + 44, n1) &&
               !memcmp(w[0] + cut, w[2] + 44, n[2] - 44);
    for (size_t i = cut; i + 1 < n[0] && i < cut + 48000 * 4; i += 2)
        loud += (w[0][i] | w[0][i + 1] << 8) != 0;
    for (int i = 0; i < 3; i++)
        free(w[i]);
    return same && loud > 1000;
}

TEST(sound_render_in_pieces_joins_sample_for_sample)
{
    struct stat st;
    if (stat("assets/smoothme.dem", &st) != 0)
        SKIP("run from the project root");
    /* the bundled sample: e1m1's loops and ambients, at 30 and at 30000/1001 fps */
    CHECK_EQ(pieces_join("assets/smoothme.dem", "-p assets", "30", "0", "3", "6", "pc_q1"), 1);
    CHECK_EQ(pieces_join("assets/smoothme.dem", "-p assets", "30000/1001", "1.001", "4.004",
                         "7.007", "pc_q1n"), 1);
    char path[1024];
    if (!test_realfile(path, sizeof path,
                       "dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70") ||
        stat(OA_BASE "/baseoa", &st) != 0)
        SKIP("real data or OpenArena missing");
    /* OpenArena's bot match: Quake III's copies rule and many voices at once */
    CHECK_EQ(pieces_join(path, "", "30", "5", "10", "15", "pc_q3a"), 1);
    CHECK_EQ(pieces_join(path, "", "30", "10", "22", "30", "pc_q3b"), 1);
    /* frames of two and three seconds (a review: the look-back's frames over a second were
     * skipped, and it fell a frame short) */
    CHECK_EQ(pieces_join(path, "", "0.5", "10", "22", "30", "pc_q3c"), 1);
    CHECK_EQ(pieces_join(path, "", "1/3", "12", "21", "30", "pc_q3d"), 1);
}

TEST(sound_ogg_decodes_and_q3_falls_back_from_wav_to_ogg)
{
    /* tests/fuzz/corpus/sound/sine.ogg: 0.05 s of 440 Hz at 11025 Hz, made with ffmpeg's
     * libvorbis: about 2400 samples at 48 kHz */
    size_t n;
    unsigned char *ogg = test_read_file("tests/fuzz/corpus/sound/sine.ogg", &n);
    if (!ogg)
        SKIP("run from the project root");
    snd_sample s;
    qd_error e;
    CHECK_EQ(snd_decode(ogg, n, &s, &e), QD_OK);
    CHECK(s.len >= 2300 && s.len <= 2500);
    int peak = 0;
    for (uint32_t i = 0; i < s.len; i++)
        peak = abs(s.pcm[i]) > peak ? abs(s.pcm[i]) : peak;
    CHECK(peak > 1000);
    snd_sample_free(&s);
    /* cut short: refused or shorter, never a crash */
    for (size_t cut = 0; cut < n; cut += 97)
        if (snd_decode_ogg(ogg, cut, &s, &e) == QD_OK)
            snd_sample_free(&s);
    free(ogg);

    struct stat st;
    if (stat(OA_BASE "/baseoa/pak6-patch088.pk3", &st) != 0 ||
        stat(OA_BASE "/baseoa/pak0.pk3", &st) != 0)
        SKIP("OpenArena 0.8.8 missing");
    pak_fs *fs = pak_fs_open();
    CHECK(fs && pak_fs_add_file(fs, OA_BASE "/baseoa/pak0.pk3", &e) == QD_OK);
    CHECK(pak_fs_add_file(fs, OA_BASE "/baseoa/pak6-patch088.pk3", &e) == QD_OK);
    snd_bank *b = snd_bank_new();
    CHECK(b);
    /* OpenArena ships neko's death sounds as .ogg only: a .wav name finds them */
    CHECK(snd_bank_find(b, fs, CL_GAME_Q3, "sound/player/neko/death1.wav") >= 0);
    /* a model without its own sound uses sarge's (pak0 has sarge's) */
    CHECK(snd_bank_find(b, fs, CL_GAME_Q3, "sound/player/nosuchmodel/jump1.wav") >= 0);
    CHECK_EQ(snd_bank_find(b, fs, CL_GAME_Q3, "sound/nosuch.wav"), -1);
    snd_bank_free(b);
    pak_fs_close(fs);
}

/* snd_decode_max refuses a sound past its room before decoding it (WAV: from the data
 * chunk's size) or as soon as the decode passes it (OGG), and decodes one within it as
 * snd_decode does. 11,025 frames at 11,025 Hz are 48,000 samples at 48 kHz (by hand);
 * sine.ogg's 0.05 s at 11,025 Hz about 2,400. (A bank passes its room, so a full one reads
 * nothing and a long sound is not decoded whole to be thrown away: a review's pak of 64
 * names of one long OGG took 49 s.) */
TEST(sound_decode_max_stops_at_the_room_left)
{
    static uint8_t pcm[11025], file[44 + 11025];
    memset(pcm, 128, sizeof pcm);
    size_t n = make_wav(file, 1, 8, 11025, pcm, sizeof pcm);
    snd_sample s;
    qd_error e;
    CHECK_EQ(snd_decode_max(file, n, 47999, &s, &e), QD_ERR_LIMIT);
    CHECK(s.pcm == NULL && s.len == 0);
    CHECK_EQ(snd_decode_max(file, n, 48000, &s, &e), QD_OK);
    CHECK_EQ(s.len, 48000u);
    snd_sample_free(&s);
    size_t on;
    unsigned char *ogg = test_read_file("tests/fuzz/corpus/sound/sine.ogg", &on);
    if (!ogg)
        SKIP("run from the project root");
    CHECK_EQ(snd_decode(ogg, on, &s, &e), QD_OK);
    uint32_t whole = s.len;
    snd_sample_free(&s);
    CHECK(whole > 2000);
    CHECK_EQ(snd_decode_max(ogg, on, whole / 2, &s, &e), QD_ERR_LIMIT);
    CHECK(s.pcm == NULL);
    CHECK_EQ(snd_decode_max(ogg, on, whole, &s, &e), QD_OK);
    CHECK_EQ(s.len, whole);
    snd_sample_free(&s);
    free(ogg);
}

/* The window's feed (app_audio_play) heard from the origin, nobody listening, into
 * feed_out; with the fixture's level holding one start of test.wav at 1.0 s. */
static int16_t feed_out[2 * 12000];

static uint32_t feed(app_audio *a, const cl_state *cl, double t, double speed, int live)
{
    static const float zero[3] = {0, 0, 0};
    return app_audio_play(a, NULL, &cl, t, speed, zero, zero, 0, live, feed_out, 12000, NULL);
}

static int feed_fixture(app_opts *o, cl_state **cl, app_audio *a)
{
    if (!fixture(o, cl, a))
        return 0;
    add_start(*cl, 1.0, 5, 1, 0, 0);
    return 1;
}

TEST(sound_window_feed_follows_demo_time_at_any_speed)
{
    app_opts o;
    cl_state *cl;
    app_audio a;
    if (!feed_fixture(&o, &cl, &a))
        SKIP("cannot write the test sound");
    const int16_t *out = feed_out;
    /* first frame at 0.95 s: starts 0.05 s behind, silent (the start is at 1.0) */
    CHECK_EQ(feed(&a, cl, 0.95, 1, 1), 2400u);
    CHECK_EQ(out[0], 0);
    /* at 1.05 s: samples 45600..50400, the sound from sample 48000 (index 2400) */
    CHECK_EQ(feed(&a, cl, 1.05, 1, 1), 4800u);
    CHECK_EQ(out[2 * 2399], 0);
    CHECK(abs(out[2 * 2400] - 7000) <= 2);
    /* paused, dragged or muted: nothing, and the voice is gone */
    CHECK_EQ(feed(&a, cl, 1.06, 1, 0), 0u);
    CHECK_EQ(snd_mixer_voices(a.mix), 0);
    /* At another speed the window is not silent (a review: only 1x was heard): a sound
     * starts when the demo reaches it and plays at its own pitch and length, as a game's
     * timescale does. At 2x from 0.9 s, the start at 1.0 s is 0.05 s of sound clock later
     * (sample 2,400 of the first 0.1 s of demo after the first call's 2,400 lead-in: index
     * 2,400), and the 4,800 samples of test.wav end 4,800 samples after that (index 2,400
     * of the next span): a sound squeezed to the demo's speed would end at 1,200. */
    CHECK_EQ(feed(&a, cl, 0.9, 2, 1), 2400u);
    CHECK_EQ(feed(&a, cl, 1.1, 2, 1), 4800u);
    CHECK_EQ(out[2 * 2399], 0);
    CHECK(abs(out[2 * 2400] - 7000) <= 2);
    CHECK_EQ(feed(&a, cl, 1.3, 2, 1), 4800u);
    CHECK(abs(out[2 * 2399] - 7000) <= 2);
    CHECK_EQ(out[2 * 2400], 0);
    /* another speed starts the clock again: what played stops */
    CHECK_EQ(feed(&a, cl, 1.31, 1, 1), 2400u);
    CHECK_EQ(snd_mixer_voices(a.mix), 0);
    app_audio_free(&a);
    free(cl);
}

/* fuzz_sound's OGGs whose headers stb 1.22 cannot take: a comment header claiming more than
 * its packet holds (a count of 2^29+ overflowed its allocation size and its clean-up read past
 * its buffer: CI's ASan replay; a cut length shifted the -1 end-of-packet mark: UBSan), a
 * lookup-type-1 codebook whose dimensions make pow() overflow int (UBSan float-cast), and
 * (2026-11-30) a codebook of 4 entries with codewords of 1, 31, 31 and 4 bits, which stb's
 * linear search masks with 1 << 31 in int (UBSan). Each is refused first, with the offset of
 * the page holding the packet, inside the file. */
TEST(sound_ogg_comment_count_overflow_refused)
{
    static const char *const files[] = {"tests/crashers/sound/ogg-comment-count-overflow",
                                        "tests/crashers/sound/ogg-comment-length-past-packet",
                                        "tests/crashers/sound/ogg-codebook-lookup1-float-overflow",
                                        "tests/crashers/sound/ogg-codebook-31bit-codeword"};
    for (int i = 0; i < 4; i++) {
        size_t n = 0;
        unsigned char *d = test_read_file(files[i], &n);
        if (!d)
            SKIP("run from the project root");
        snd_sample s;
        qd_error err = {0};
        CHECK_EQ(snd_decode_ogg(d, n, &s, &err), QD_ERR_BAD_DATA);
        CHECK_MSG(err.offset > 0 && err.offset + 27 <= n, "%s: offset %llu", files[i],
                  (unsigned long long)err.offset);
        CHECK(strstr(err.msg, "Vorbis headers") != NULL);
        CHECK(s.pcm == NULL);
        free(d);
    }
}

/* `info` names the sounds no file on the search path holds: the bundled sample asks for
 * Quake's weapons/r_exp3.wav (its serverinfo's sound list) and the sample carries no sound;
 * OpenArena's demo088 asks for sound/world/fireloud.wav, which no pk3 of Debian's OpenArena
 * data holds (checked with unzip -l), while its other sounds are there. */
TEST(sound_info_lists_missing_sounds)
{
    const char *q = getenv("QDEMO");
    if (!q || !*q || access(q, X_OK) != 0 || access("assets/smoothme.dem", R_OK) != 0)
        SKIP("run from the project root with QDEMO set (make test)");
    static char out[1 << 16];
    CHECK_EQ(test_capture(out, sizeof out, "%s info --json assets/smoothme.dem -p assets", q), 0);
    const char *m = strstr(out, "\"sounds_missing\": [");
    CHECK(m && strstr(m, "\"weapons/r_exp3.wav\"") && strstr(m, "]") > strstr(m, "r_exp3"));
    char path[1024];
    if (!test_realfile(path, sizeof path,
                       "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71") ||
        access("/usr/share/games/openarena/baseoa", R_OK) != 0)
        SKIP("no demo088 or no OpenArena data");
    CHECK_EQ(test_capture(out, sizeof out, "%s info --json -b /usr/share/games/openarena '%s'",
                          q, path),
             0);
    m = strstr(out, "\"sounds_missing\": [");
    CHECK_MSG(m && strncmp(m, "\"sounds_missing\": [\"sound/world/fireloud.wav\"]", 46) == 0,
              "%.200s", m ? m : out);
}

/* Entities' looping sounds (Quake II's entity sound, Quake III's loopSound): heard while the
 * entity is active, from where it is, at the loop's attenuation. The test sound (10000, 4800
 * samples) loops on entity 7, 600 units to the left (+y) of a listener at the origin facing
 * +x; a loop is at full volume (255) under the master volume 0.7: left = 10000 x 0.7 x
 * (1 - 600 x 1 / 1000) x 2 = 5600 at the normal attenuation, right 0; Quake II's loops
 * (S_AddLoopSounds, S_SpatializeOrigin at SOUND_LOOPATTENUATE 0.003, full within 80 units,
 * each ear 0.5 x (1 +/- dot)), 100 units to the left: 10000 x 0.7 x (1 - 20 x 0.003) x 0.5
 * x 2 = 6580. */
TEST(sound_entity_loop_heard_from_its_place)
{
    app_opts o;
    cl_state *cl;
    app_audio a;
    if (!fixture(&o, &cl, &a))
        SKIP("cannot write the test sound");
    cl_frame_begin(cl, 1.0);
    cl_entstate st;
    memset(&st, 0, sizeof st);
    st.origin[1] = 600;
    cl_entity_update(cl, 7, &st);
    cl_entity_set_loop(cl, 7, 1);
    cl_frame_end(cl, 0);
    enum { N = 9600 };
    int16_t *out = malloc(N * 4);
    CHECK(out);
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    app_audio_mix(&a, cl, eye, ang, 0, 0, N, out);
    CHECK_MSG(abs(out[0] - 5600) <= 2 && out[1] == 0, "%d %d", out[0], out[1]);
    CHECK(abs(out[2 * 7000] - 5600) <= 2); /* past the sound's length: it loops */
    /* a second source of the same sound at the same place: one channel, the gains summed
     * (2 x 0.56) but at most full volume (S_Update sums static channels and
     * SND_PaintChannelFrom8 clamps at 255: master 0.7): 7000 */
    cl_frame_begin(cl, 1.05);
    cl_entity_update(cl, 7, &st);
    cl_entity_update(cl, 8, &st);
    cl_entity_set_loop(cl, 8, 1);
    cl_frame_end(cl, 0);
    app_audio_mix(&a, cl, eye, ang, 0, N / 2, N / 2, out);
    CHECK_MSG(abs(out[0] - 7000) <= 2, "%d", out[0]);
    cl_entity_set_loop(cl, 8, 0);
    st.origin[1] = 100;
    cl_frame_begin(cl, 1.06);
    cl_entity_update(cl, 7, &st);
    cl_frame_end(cl, 0);
    cl->level.game = CL_GAME_Q2;
    app_audio_mix(&a, cl, eye, ang, 0, N, N, out);
    CHECK_MSG(abs(out[0] - 6580) <= 2, "%d", out[0]);
    /* no loop, or an entity gone from the frame: silence */
    cl_entity_set_loop(cl, 7, 0);
    app_audio_mix(&a, cl, eye, ang, 0, 2 * N, N, out);
    CHECK(out[0] == 0 && out[2 * 100] == 0);
    cl_entity_set_loop(cl, 7, 1);
    cl_frame_begin(cl, 1.1);
    cl_frame_end(cl, 1); /* entity 7 not in this frame */
    app_audio_mix(&a, cl, eye, ang, 0, 3 * N, N, out);
    CHECK(out[0] == 0 && out[2 * 100] == 0);
    free(out);
    app_audio_free(&a);
    free(cl);
}

uint8_t *test_bsp_build(const float (*quads)[4][3], const uint8_t *color, const uint8_t *light,
                        int n, const char *extra_ents, size_t *len);

static void write_file(const char *dir, const char *rel, const void *data, size_t n)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

/* Quake's ambient sounds (S_UpdateAmbientSounds): the listener's leaf asks for water at 200
 * and sky at 100 (the leaf's ambient_level bytes, set in a made-up map: its leaf 1 holds the
 * origin); the water sound is the test sound (10000) as ambience/water1.wav, the sky's is
 * missing (silent). The water's volume fades in at ambient_fade, 100 a second: 10 a 0.1 s
 * span, up to 0.3 x 200 = 60; heard alike in both ears: 10000 x v / 255 x master 0.7. */
TEST(sound_quake_ambient_fades_in_from_the_leaf)
{
    app_opts o;
    cl_state *cl;
    app_audio a;
    if (!fixture(&o, &cl, &a))
        SKIP("cannot write the test sound");
    const float q[1][4][3] = {{{100, -10, -10}, {100, 10, -10}, {100, 10, 10}, {100, -10, 10}}};
    const uint8_t col[1] = {15}, light[1] = {128};
    size_t len;
    uint8_t *bsp = test_bsp_build(q, col, light, 1, NULL, &len);
    CHECK(bsp);
    /* dleaf_t (bspfile.h): contents, visofs, 6 shorts of bounds, firstmarksurface,
     * nummarksurfaces, then ambient_level[4]: leaf 1's at the leaf lump (header entry 10)
     * + 28 + 24 */
    uint32_t lofs = (uint32_t)bsp[4 + 10 * 8] | (uint32_t)bsp[5 + 10 * 8] << 8 |
                    (uint32_t)bsp[6 + 10 * 8] << 16 | (uint32_t)bsp[7 + 10 * 8] << 24;
    CHECK(lofs + 56 <= len);
    bsp[lofs + 28 + 24] = 200; /* water */
    bsp[lofs + 28 + 25] = 100; /* sky */
    char maps[1200], amb[1200];
    snprintf(maps, sizeof maps, "%s/maps", o.paks[0]);
    snprintf(amb, sizeof amb, "%s/sound/ambience", o.paks[0]);
    mkdir(maps, 0777);
    mkdir(amb, 0777);
    write_file(o.paks[0], "maps/ambient.bsp", bsp, len);
    free(bsp);
    uint8_t pcm[4800 * 2], wav[44 + sizeof pcm + 36];
    for (int i = 0; i < 4800; i++)
        put16(pcm + 2 * i, 10000);
    write_file(o.paks[0], "sound/ambience/water1.wav", wav,
               add_cue(wav, make_wav(wav, 1, 16, 48000, pcm, sizeof pcm), 0));
    cl_set_map(cl, "maps/ambient.bsp");
    int16_t out[2 * 4800];
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    for (int k = 1; k <= 8; k++) {
        app_audio_mix(&a, cl, eye, ang, 0, (int64_t)(k - 1) * 4800, 4800, out);
        int v = k * 10 < 60 ? k * 10 : 60;
        int want = (int)(10000.0 * v / 255 * 0.7);
        CHECK_MSG(abs(out[0] - want) <= 3 && out[0] == out[1], "span %d: %d %d, want %d", k,
                  out[0], out[1], want);
    }
    /* a listener outside the map's leaves that ask (leaf 0, the solid one): fades out */
    const float away[3] = {0, 0, -9000};
    app_audio_mix(&a, cl, away, ang, 0, 8 * 4800, 4800, out);
    CHECK(abs(out[0] - (int)(10000.0 * 50 / 255 * 0.7)) <= 3);
    app_audio_free(&a);
    free(cl);
}

/* cg_playerstate.c CG_CheckLocalSounds on a real duel: udt_one_frag_only_with_plasma.dm_68's
 * recorder scores its one frag at 16.104 s (dump: the first svc_snapshot with score=1, at
 * offset 47475), so it takes the lead then (PERS_RANK to 0, within a frame or two):
 * sound/feedback/takenlead.wav once, after plasma hits beeped (hit.wav), and no other lead
 * sound. */
TEST(sound_q3_local_feedback_sounds)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, "dm_68/udt_one_frag_only_with_plasma.dm_68"))
        SKIP("real data missing");
    qd_error e;
    demo_t *d = demo_open(path, &e);
    CHECK(d);
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    if (!d || !cl) {
        demo_close(d);
        free(cl);
        return;
    }
    cl_reset_zeroed(cl);
    int done = 0, taken = 0, other = 0, hits_before = 0;
    double taken_at = -1;
    uint32_t seen = 0;
    while (!done && demo_step(d, cl, NULL, &done, &e) == QD_OK) {
        const cl_fxlog *log = &cl->fxlog;
        for (; seen < log->sound_count; seen++) {
            const cl_sound *s = &log->sounds[seen % CL_SOUND_LOG];
            const char *n = cl->level.sounds[s->sound];
            if (!strcmp(n, "sound/feedback/takenlead.wav")) {
                taken++;
                taken_at = s->t0;
            } else if (strstr(n, "lead.wav")) {
                other++;
            } else if (!strcmp(n, "sound/feedback/hit.wav") && taken_at < 0) {
                hits_before++;
            }
        }
    }
    CHECK_EQ(taken, 1);
    CHECK_MSG(taken_at >= 16.1 && taken_at < 16.25, "taken the lead at %.3f", taken_at);
    CHECK(hits_before > 0 && other == 0);
    demo_close(d);
    free(cl);
}

/* The announcer's time limit warnings (CG_CheckLocalSounds) and "fight": udt_baseq3_1_map_2_matches.dm_68
 * is baseq3 with timelimit 1 (dump: the serverinfo, index=0 at offset 12), so each match
 * says "one minute" as it starts: after each of the demo's two map_restart commands (their
 * times read from the file by q3scan.h); the demo opens in the intermission of an earlier
 * match (silent), and a limit of 1 has no five-minute warning. */
TEST(sound_q3_time_limit_warnings)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, "dm_68/udt_baseq3_1_map_2_matches.dm_68"))
        SKIP("real data missing");
    qd_error e;
    demo_t *d = demo_open(path, &e);
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(d && cl);
    if (!d || !cl) {
        demo_close(d);
        free(cl);
        return;
    }
    cl_reset_zeroed(cl);
    double at[4], fight[4];
    int n = 0, nf = 0, other = 0, done = 0;
    uint32_t seen = 0;
    while (!done && demo_step(d, cl, NULL, &done, &e) == QD_OK)
        for (; seen < cl->fxlog.sound_count; seen++) {
            const cl_sound *s = &cl->fxlog.sounds[seen % CL_SOUND_LOG];
            const char *nm = cl->level.sounds[s->sound];
            if (!strcmp(nm, "sound/feedback/1_minute.wav") && n < 4)
                at[n++] = s->t0;
            else if (!strcmp(nm, "sound/feedback/fight.wav") && nf < 4)
                fight[nf++] = s->t0;
            else if (strstr(nm, "5_minute") || strstr(nm, "sudden_death") ||
                     strstr(nm, "prepare") || strstr(nm, "three"))
                other++;
        }
    /* the map_restarts' times from the file (q3scan.h): 0 at its first snapshot */
    double rt[8] = {0};
    CHECK_EQ(q3scan_times(path, "map_restart", rt), 2);
    double r0 = rt[0], r1 = rt[1];
    CHECK_EQ(n, 2);
    CHECK_MSG(at[0] >= r0 && at[0] < r0 + 0.7 && at[1] >= r1 && at[1] < r1 + 0.7,
              "one minute at %.3f and %.3f, the restarts at %.3f and %.3f", at[0], at[1], r0,
              r1);
    /* and each map_restart, with no CS_WARMUP in the whole demo, says "fight"
     * (CG_MapRestart) */
    CHECK_EQ(nf, 2);
    CHECK_MSG(fabs(fight[0] - r0) < 0.001 && fabs(fight[1] - r1) < 0.001,
              "fight at %.3f and %.3f, the restarts at %.3f and %.3f", fight[0], fight[1], r0,
              r1);
    CHECK_EQ(other, 0);
    demo_close(d);
    free(cl);
}

/* The CTF announcer (cg_event.c EV_GLOBAL_TEAM_SOUND, queued by CG_AddBufferedSound and
 * played 750 ms apart): tests/data/oa's CTF bot match, followed player client 3 (Kyonshi,
 * t\\2: blue, CS_PLAYERS 547 in `dump`; the snapshots say client=3 around both moments).
 * Block 1023 (serverTime 66000: 55.000 s after the first snapshot's 11000) prints "Grism
 * got the BLUE flag!": the red team took the blue flag, so a blue player hears "enemy took
 * your flag" (voc_enemy_flag), once, in that frame. Block 1386 (84900: 73.9 s) prints the
 * capture and sets CS_SCORES1 to 1: "opponent captured" (flagcapture_opponent) and "red
 * leads" (redleads) follow within the next second, 750 ms or more apart. */
TEST(sound_q3_ctf_announcer)
{
    qd_error e;
    if (access("tests/data/oa/oa_ctf4ish_follow.dm_71", R_OK) != 0)
        SKIP("run from the project root");
    demo_t *d = demo_open("tests/data/oa/oa_ctf4ish_follow.dm_71", &e);
    CHECK_MSG(d, "%s", e.msg);
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    if (!cl) {
        demo_close(d);
        return;
    }
    cl_reset_zeroed(cl);
    double took = -1, capture = -1, leads = -1;
    int other = 0, done = 0;
    uint32_t seen = 0;
    while (!done && demo_step(d, cl, NULL, &done, &e) == QD_OK)
        for (; seen < cl->fxlog.sound_count; seen++) {
            const cl_sound *s = &cl->fxlog.sounds[seen % CL_SOUND_LOG];
            const char *nm = cl->level.sounds[s->sound];
            if (!strcmp(nm, "sound/teamplay/voc_enemy_flag.wav") && took < 0)
                took = s->t0;
            else if (!strcmp(nm, "sound/teamplay/flagcapture_opponent.wav") && capture < 0)
                capture = s->t0;
            else if (!strcmp(nm, "sound/feedback/redleads.wav") && leads < 0)
                leads = s->t0;
            else if (strstr(nm, "sound/teamplay/") || strstr(nm, "leads.wav") ||
                     strstr(nm, "tied.wav"))
                other++;
        }
    CHECK_MSG(fabs(took - 55.0) < 0.001, "enemy took the flag at %.3f", took);
    CHECK_MSG(capture >= 73.9 && capture < 75.0 && leads >= 73.9 && leads < 75.0 &&
                  fabs(capture - leads) >= 0.75,
              "capture at %.3f, red leads at %.3f", capture, leads);
    CHECK_EQ(other, 0);
    demo_close(d);
    free(cl);
}

/* Entity 5 of cl at (0, y, 0), in a frame at time t. */
static void place_entity(cl_state *cl, double t, float y)
{
    cl_frame_begin(cl, t);
    cl_entstate st;
    memset(&st, 0, sizeof st);
    st.origin[1] = y;
    cl_entity_update(cl, 5, &st);
    cl_frame_end(cl, 0);
}

/* A one-shot sound goes where its entity goes in Quake III (cgame's trap_S_StartSound with
 * no origin: snd_dma.c spatializes it from the entity each mix) and stays where it started
 * in Quake (SND_Spatialize uses the channel's origin). The test sound (10000, 0.1 s) starts
 * at 1.0 s on entity 5, 100 units to the listener's right (-y); after 2400 samples the
 * entity is 100 units to the left (+y): the next span is heard on the left in Quake III
 * (ioquake3 S_SpatializeOrigin: 10000 x 0.7 x (1 - (100 - 80) x 0.0008) x 0.5 x 2 = 6888),
 * still on the right in Quake (10000 x 0.7 x (1 - 100 / 1000) x 2 = 12600, clamped at full
 * volume by SND_PaintChannelFrom8: 7000). */
TEST(sound_q3_one_shot_follows_its_entity)
{
    app_opts o;
    if (!sound_opts(&o))
        SKIP("cannot write the test sound");
    enum { N = 2400 };
    int16_t out[2 * N];
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    for (int game = 0; game < 2; game++) {
        cl_state *cl = calloc(1, sizeof *cl);
        app_audio a;
        CHECK(cl);
        if (!cl)
            return;
        cl_reset(cl);
        cl_level_begin(cl, game ? CL_GAME_Q3 : CL_GAME_Q1, game ? 68 : 15, 1, "follow test");
        cl_set_sound(cl, 1, game ? "sound/test.wav" : "test.wav"); /* Quake III: as given */
        CHECK(app_audio_init(&a, &o));
        place_entity(cl, 0.9, -100);
        add_start(cl, 1.0, 5, 1, 0, -100);
        app_audio_take(&a, cl, 0, 10, 0.5);
        CHECK_EQ(a.n, (size_t)1);
        CHECK_EQ((int)a.starts[0].follow, game);
        for (int64_t pos = 0; pos < 24000; pos += N) /* up to the start */
            app_audio_mix(&a, cl, eye, ang, 0, pos, N, out);
        app_audio_mix(&a, cl, eye, ang, 0, 24000, N, out);
        int want = game ? 6888 : 7000;
        CHECK(abs(out[1] - want) <= 2 && out[0] == 0);
        place_entity(cl, 1.05, 100);
        app_audio_mix(&a, cl, eye, ang, 0, 24000 + N, N, out);
        if (game)
            CHECK_MSG(abs(out[0] - want) <= 2 && out[1] == 0, "Quake III: %d %d", out[0],
                      out[1]);
        else
            CHECK_MSG(abs(out[1] - want) <= 2 && out[0] == 0, "Quake: %d %d", out[0], out[1]);
        app_audio_free(&a);
        free(cl);
    }
}

/* The bundled sample is not silent: e1m1 places 14 static ambient loops (`dump`: 14
 * svc_spawnstaticsound at 0.000 s, block 1; their precaches are ambience/fl_hum1, comp1,
 * buzz1, hum1 and drone6) whose stand-ins assets/sound/ambience holds; `render --audio` over
 * the whole sample writes a track with sound in it. */
TEST(sound_bundled_sample_is_heard)
{
    const char *q = getenv("QDEMO");
    if (!q || !*q || access(q, X_OK) != 0 || access("assets/smoothme.dem", R_OK) != 0)
        SKIP("run from the project root with QDEMO set (make test)");
    char dir[1024], wav[1100], out[4096];
    snprintf(dir, sizeof dir, "%s/sample-audio-%d", test_tmpdir(), (int)getpid());
    snprintf(wav, sizeof wav, "%s.wav", dir);
    CHECK_EQ(test_capture(out, sizeof out,
                          "%s render assets/smoothme.dem -p assets -o '%s' --fps 1 --size 64x48 "
                          "--audio '%s' -q 2>&1",
                          q, dir, wav),
             0);
    size_t len;
    uint8_t *d = test_read_file(wav, &len);
    CHECK(d && len > 44);
    long loud = 0;
    for (size_t i = 44; d && i + 1 < len; i += 2) {
        int16_t x = (int16_t)(d[i] | d[i + 1] << 8);
        loud += x > 300 || x < -300;
    }
    CHECK_MSG(loud > 48000, "%ld loud samples", loud);
    free(d);
    char cmd[2300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, wav);
    CHECK_EQ(system(cmd), 0);
}

/* A kept OGG crasher of n bytes (an OggS stream) decodes or is refused as damaged: never a
 * crash or, in the sanitizer run, anything undefined. */
static void ogg_crasher(const char *path, size_t want)
{
    size_t n = 0;
    unsigned char *d = test_read_file(path, &n);
    if (!d)
        SKIP("run from the project root");
    CHECK_EQ(n, want);
    CHECK(memcmp(d, "OggS", 4) == 0);
    snd_sample s;
    memset(&s, 0, sizeof s);
    qd_error err = {0};
    qd_err e = snd_decode_ogg(d, n, &s, &err);
    CHECK_MSG(e == QD_OK || e == QD_ERR_BAD_DATA, "%d %s", e, err.msg);
    free(s.pcm);
    free(d);
}

/* fuzz_sound, 2026-11-26 (second run): an OGG whose frame is cut by its page's granule
 * position below the start of its window and which goes on after it: stb 1.22 keeps a
 * negative previous_length and shifts it left on the next frame (UBSan at stb_vorbis.h
 * get_window), then ends the stream. qdemo decodes frame by frame and ends it before that
 * shift, with the samples stb gives (the same bytes as before the change on it and on
 * OpenArena's 21 OGGs). The sanitizer run replays it through fuzz_sound. */
TEST(sound_ogg_frame_shorter_than_window_ends_cleanly)
{
    ogg_crasher("tests/crashers/sound/ogg-frame-shorter-than-window", 4069);
}

/* fuzz_sound, 2026-11-26: an OGG whose decoded samples lie far outside -1..1, which stb
 * 1.22's own float-to-short trick turns into a signed overflow (UBSan at stb_vorbis.h,
 * convert_channels_short_interleaved). qdemo reads stb's floats and converts them itself,
 * clamped (snd_ogg.c to_short): the stream decodes or is refused, and the sanitizer run
 * (which replays tests/crashers through fuzz_sound) finds nothing undefined. */
TEST(sound_ogg_samples_out_of_range_clamped)
{
    ogg_crasher("tests/crashers/sound/ogg-samples-out-of-range", 2780);
    if (test_failed())
        return;
    /* and it decodes, its samples beyond -1..1 pinned to full scale: many at exactly
     * -32768 or 32767 (a conversion that wrapped would spread them over the range) */
    size_t n = 0;
    unsigned char *d = test_read_file("tests/crashers/sound/ogg-samples-out-of-range", &n);
    if (!d)
        return;
    snd_sample s;
    memset(&s, 0, sizeof s);
    qd_error err = {0};
    CHECK_MSG(snd_decode_ogg(d, n, &s, &err) == QD_OK, "%s", err.msg);
    uint32_t full = 0;
    for (uint32_t i = 0; i < s.len; i++)
        full += s.pcm[i] == 32767 || s.pcm[i] == -32768;
    CHECK_MSG(s.len > 0 && full * 5 >= s.len, "%u of %u samples at full scale", full, s.len);
    free(s.pcm);
    free(d);
}

/* cg_event.c picks a footstep by rand() & 3 and cg_weapons.c CG_FireWeapon a machine gun
 * shot by rand() % 4: over a whole bot match each of the four samples of both is about a
 * quarter. qdemo picks them from a hash (the same on every run and after a seek): walked a
 * second at a time, each start counted once, every sample is at least an
 * eighth of its kind's (the time's last bits, on a 50 ms grid, gave step1 and step3 and
 * machgf1b and machgf3b only). */
TEST(sound_q3_variant_samples_all_used_on_a_real_demo)
{
    int steps[5] = {0}, mg[5] = {0}, missing;
    double last = -1, seen = -1; /* the newest start counted */
    timeline_t *tl = oa_bot_match(&missing);
    if (missing)
        SKIP("real data missing");
    CHECK(tl);
    qd_error e;
    for (double t = tl_start(tl); t <= tl_end(tl) + 1; t += 1) {
        const cl_state *cl = tl_state_at(tl, t, &e);
        CHECK(cl);
        if (!cl)
            break;
        const cl_fxlog *log = &cl->fxlog;
        uint32_t first = log->sound_count > CL_SOUND_LOG ? log->sound_count - CL_SOUND_LOG : 0;
        for (uint32_t i = first; i < log->sound_count; i++) {
            const cl_sound *s = &log->sounds[i % CL_SOUND_LOG];
            int k = s->sound, v;
            if (s->t0 <= last || k < 256 || k >= cl->level.num_sounds)
                continue;
            seen = s->t0 > seen ? s->t0 : seen;
            const char *n = cl->level.sounds[k];
            if (sscanf(n, "sound/player/footsteps/step%d.wav", &v) == 1 && v >= 1 && v <= 4)
                steps[v]++;
            else if (sscanf(n, "sound/weapons/machinegun/machgf%db.wav", &v) == 1 && v >= 1 &&
                     v <= 4)
                mg[v]++;
        }
        last = seen;
    }
    int nsteps = steps[1] + steps[2] + steps[3] + steps[4], nmg = mg[1] + mg[2] + mg[3] + mg[4];
    CHECK(nsteps > 100 && nmg > 20);
    for (int v = 1; v <= 4; v++)
        CHECK_MSG(steps[v] * 8 >= nsteps && mg[v] * 8 >= nmg,
                  "step%d %d of %d, machgf%db %d of %d", v, steps[v], nsteps, v, mg[v], nmg);
    tl_close(tl);
}

/* Quake II and Quake III use their own distance and stereo model, not Quake's. The listener
 * is at the origin facing +x (right is -y); volume 1. Expected gains from the engines:
 * - Quake II client/snd_dma.c S_SpatializeOrigin: dist = max(0, d - 80) x dist_mult,
 *   dist_mult = attn x 0.0005 (S_IssuePlaysound; ATTN_STATIC 3 x 0.001), each ear (1 - dist)
 *   x 0.5 x (1 +/- dot), no pan when dist_mult is 0;
 * - ioquake3 snd_dma.c S_SpatializeOrigin: the same with dist_mult 0.0008.
 * Quake (SND_Spatialize) keeps (1 - d x attn / 1000) x (1 +/- dot). */
TEST(sound_q2_q3_distance_and_stereo_model)
{
    snd_listener l = origin_listener();
    static const struct {
        cl_game game;
        float x, y;
        int att;
        float left, right;
    } c[] = {
        /* Q2 ATTN_NORM 580 to the right: (580 - 80) x 0.0005 = 0.25; 0.75 x 0.5 x 2 = 0.75
         * (Quake: (1 - 0.58) x 2 = 0.84) */
        {CL_GAME_Q2, 0, -580, 64, 0, 0.75f},
        /* Q2 ATTN_NORM 1580 ahead: 1500 x 0.0005 = 0.75; 0.25 x 0.5 = 0.125 each (Quake:
         * silent past 1000) */
        {CL_GAME_Q2, 1580, 0, 64, 0.125f, 0.125f},
        /* Q2 within SOUND_FULLVOLUME, 50 to the right: dist 0; 1 x 0.5 x 2 = 1 (Quake 1.9) */
        {CL_GAME_Q2, 0, -50, 64, 0, 1},
        /* Q2 ATTN_NONE 500 to the right: no distance, no pan: 1 each (Quake: 0 and 2) */
        {CL_GAME_Q2, 0, -500, 0, 1, 1},
        /* Q2 ATTN_STATIC 330 ahead: 250 x 0.003 = 0.75; 0.25 x 0.5 = 0.125 each */
        {CL_GAME_Q2, 330, 0, 192, 0.125f, 0.125f},
        /* Q3 580 to the right: 500 x 0.0008 = 0.4; 0.6 x 0.5 x 2 = 0.6 */
        {CL_GAME_Q3, 0, -580, 64, 0, 0.6f},
        /* Q3 1080 ahead: 1000 x 0.0008 = 0.8; 0.2 x 0.5 = 0.1 each (Quake: silent) */
        {CL_GAME_Q3, 1080, 0, 64, 0.1f, 0.1f},
        /* Quake unchanged: 500 to the right at attn 1: 0.5 x 2 = 1 */
        {CL_GAME_Q1, 0, -500, 64, 0, 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const float src[3] = {c[i].x, c[i].y, 0};
        float gl, gr;
        snd_spatialize(&l, c[i].game, src, 1, c[i].att, 0, &gl, &gr);
        CHECK_MSG(fabsf(gl - c[i].left) < 1e-4f && fabsf(gr - c[i].right) < 1e-4f,
                  "case %zu: %f %f, want %f %f", i, gl, gr, c[i].left, c[i].right);
    }

    /* and the mixer mixes so (master 1, the test sound 10000): a Quake II start 1580 ahead is
     * 0.125 x 10000 = 1250 in each ear; three Quake II loops at the ear give 0.5 each an
     * ear, summed 1.5, clamped at S_AddLoopSounds' 255 of 255: 10000; five Quake III loops
     * (2.5) clamp at 255 of master_vol 127: 10000 x 255 / 127 = 20078 */
    mix_rig rig;
    if (!rig_open(&rig))
        SKIP("cannot write or load the test sound");
    snd_mixer *m = rig.m;
    int16_t out[2 * 100];
    snd_mixer_set_game(m, CL_GAME_Q2);
    snd_start s = test_start(rig.id);
    s.origin[0] = 1580;
    snd_mixer_start(m, &s);
    snd_mixer_mix(m, 0, 100, &l, NULL, 0, out);
    CHECK_MSG(abs(out[0] - 1250) <= 2 && abs(out[1] - 1250) <= 2, "%d %d", out[0], out[1]);
    snd_mixer_stop_all(m, 100);
    snd_loop loops[5];
    test_loops(loops, 5, rig.id, 192, 0);
    snd_mixer_mix(m, 100, 100, &l, loops, 3, out);
    CHECK_MSG(abs(out[0] - 10000) <= 2 && abs(out[1] - 10000) <= 2, "%d %d", out[0], out[1]);
    snd_mixer_set_game(m, CL_GAME_Q3);
    snd_mixer_mix(m, 200, 100, &l, loops, 5, out);
    CHECK_MSG(abs(out[0] - 20078) <= 3 && abs(out[1] - 20078) <= 3, "%d %d", out[0], out[1]);
    rig_close(&rig);
}

/* Full volume goes to the entity the listener is (QuakeSpasm SND_Spatialize: entnum ==
 * cl.viewentity; Quake II S_Spatialize: cl.playernum + 1; ioquake3 listener_number), and
 * qdemo's listener is the camera: the recorded view, a followed player's eye, or a chase or
 * free camera, which are nobody. Entity 1 is the recorded view and entity 2 player slot 1;
 * entity 1's sound (the test sound, 10000) starts 600 units to the listener's right (-y),
 * master 0.7. Heard as the listener's own: 10000 x 0.7 = 7000 in both ears; heard as
 * another's (Quake, SND_Spatialize): right 10000 x 0.7 x (1 - 600 / 1000) x 2 = 5600, left
 * 10000 x 0.7 x 0.4 x 0 = 0. */
TEST(sound_full_volume_is_the_camera_entity)
{
    app_opts o;
    cl_state *cl;
    app_audio a;
    if (!fixture(&o, &cl, &a))
        SKIP("cannot write the test sound");
    cl->view.view_entity = 1;
    cl->players[0].entity = 1;
    cl->players[1].entity = 2;
    cl_frame_begin(cl, 0.9);
    cl_entstate st;
    memset(&st, 0, sizeof st);
    cl_entity_update(cl, 1, &st);
    st.origin[0] = 300;
    cl_entity_update(cl, 2, &st);
    cl_frame_end(cl, 0);
    add_start(cl, 1.0, 1, 1, 0, -600);
    static const struct {
        player_cam camera;
        int follow;
        int left, right;
    } c[] = {
        {PLAYER_CAM_POV, -1, 7000, 7000}, /* the recorded view: entity 1 itself */
        {PLAYER_CAM_POV, 1, 0, 5600},     /* first person as player 1 (entity 2) */
        {PLAYER_CAM_CHASE, -1, 0, 5600},  /* chase camera: nobody */
        {PLAYER_CAM_FREE, -1, 0, 5600},   /* free camera: nobody */
    };
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    int16_t out[2 * 100];
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        player p;
        memset(&p, 0, sizeof p);
        p.camera = c[i].camera;
        p.follow = c[i].follow;
        app_audio_free(&a);
        CHECK(app_audio_init(&a, &o));
        app_audio_take(&a, cl, 0, 10, 0.5); /* sample 24000 = demo time 1.0 */
        app_audio_mix(&a, cl, eye, ang, player_listener(&p, cl, 1.0), 24000, 100, out);
        CHECK_MSG(abs(out[0] - c[i].left) <= 2 && abs(out[1] - c[i].right) <= 2,
                  "case %zu: %d %d, want %d %d", i, out[0], out[1], c[i].left, c[i].right);
    }
    app_audio_free(&a);
    free(cl);
}

/* Quake III has no channel override (ioquake3 snd_dma.c S_Base_StartSoundEx): a start of a
 * sound its entity began under 50 ms before is dropped, and one is dropped when more than 4
 * copies are playing on that entity (8 on the listener's); Quake's rule (SND_PickChannel: the
 * same entity and channel cut the old voice) is not Quake III's. The listener is at the
 * origin, every start there on entity 5, channel 1, master 1; within SOUND_FULLVOLUME each
 * ear gets 0.5 x (1 +/- 0) = 0.5 of a voice. */
TEST(sound_q3_starts_keep_their_tails)
{
    /* long.wav: 1 s of 1000, so copies 60 ms apart overlap (written before the search
     * path is opened) */
    static uint8_t pcm[2 * 48000], file[44 + sizeof pcm];
    for (int i = 0; i < 48000; i++)
        put16(pcm + 2 * i, 1000);
    size_t n = make_wav(file, 1, 16, 48000, pcm, sizeof pcm);
    const char *dir = sound_dir();
    if (dir)
        write_file(dir, "sound/long.wav", file, n);
    mix_rig rig;
    if (!rig_open(&rig))
        SKIP("cannot write or load the test sound");
    snd_mixer *m = rig.m;
    int lid = snd_bank_find(rig.b, rig.fs, CL_GAME_Q1, "long.wav");
    CHECK(lid >= 0);
    snd_listener l = origin_listener();
    int16_t out[2 * 100];
    snd_start s = test_start(rig.id);
    snd_mixer_set_game(m, CL_GAME_Q3);
    snd_mixer_mix(m, -100, 100, &l, NULL, 0, out); /* the listener heard once */
    /* test.wav (10000, 4800 samples) at 0, 2400 (50 ms later: kept) and 3400 (under 50 ms
     * after the second: dropped). At 3000 and 4000 two voices: 2 x 0.5 x 10000 = 10000 an
     * ear (Quake's rule: the second cuts the first, 5000); at 7000 the second alone, 5000
     * (the third would add 5000) */
    const int64_t at[3] = {0, 2400, 3400};
    for (int i = 0; i < 3; i++) {
        s.at = at[i];
        snd_mixer_start(m, &s);
    }
    const int64_t when[3] = {3000, 4000, 7000};
    const int want[3] = {10000, 10000, 5000};
    for (int i = 0; i < 3; i++) {
        snd_mixer_mix(m, when[i], 1, &l, NULL, 0, out);
        CHECK_MSG(abs(out[0] - want[i]) <= 2 && abs(out[1] - want[i]) <= 2,
                  "at %d: %d %d, want %d", (int)when[i], out[0], out[1], want[i]);
    }
    snd_mixer_stop_all(m, INT64_MIN);

    /* long.wav six times, 60 ms (2880 samples) apart from 10000: the sixth finds 5 copies
     * playing (more than 4) and is dropped, so after it 5 x 0.5 x 1000 = 2500 an ear; with
     * the listener on entity 5 its sounds are its own (full volume, 1000 a copy) and 8 copies
     * are allowed: 6 x 1000 = 6000 */
    for (int lis = 0; lis < 2; lis++) {
        l.entity = lis ? 5 : 0;
        snd_mixer_mix(m, 9900 + 100000 * lis, 100, &l, NULL, 0, out);
        s.id = lid;
        for (int i = 0; i < 6; i++) {
            s.at = 10000 + 100000 * lis + 2880 * i;
            snd_mixer_start(m, &s);
        }
        snd_mixer_mix(m, 10000 + 100000 * lis + 2880 * 5 + 100, 1, &l, NULL, 0, out);
        int w = lis ? 6000 : 2500;
        CHECK_MSG(abs(out[0] - w) <= 3 && abs(out[1] - w) <= 3, "listener %d: %d %d, want %d",
                  l.entity, out[0], out[1], w);
        snd_mixer_stop_all(m, INT64_MIN);
    }
    rig_close(&rig);
}

/* Quake clamps each ear of an 8-bit voice at 255, full volume (QuakeSpasm snd_mix.c
 * SND_PaintChannelFrom8), and its static sounds' summed gains likewise (S_Update combines
 * them, the paint clamps). The test sound (10000) 100 units to the right of a listener at
 * the origin facing +x, master 1: SND_Spatialize gives the right ear 255 x (1 - 100 / 1000)
 * x 2 = 459, clamped to 255: 10000 (not 18000), the left 0; at volume 128, 128 x 0.9 x 2 =
 * 230 is under the clamp: 10000 x 128 / 255 x 0.9 x 2 = 9035; three static loops there sum
 * 3 x 459, clamped to 255: 10000 (not 2 x 10000). */
TEST(sound_quake_voice_clamped_at_full_volume)
{
    mix_rig rig;
    if (!rig_open(&rig))
        SKIP("cannot write or load the test sound");
    snd_mixer *m = rig.m;
    snd_mixer_set_game(m, CL_GAME_Q1);
    snd_listener l = origin_listener();
    int16_t out[2 * 100];
    snd_start s = test_start(rig.id);
    s.origin[1] = -100;
    snd_mixer_start(m, &s);
    snd_mixer_mix(m, 0, 100, &l, NULL, 0, out);
    CHECK_MSG(out[0] == 0 && abs(out[1] - 10000) <= 2, "%d %d", out[0], out[1]);
    s.volume = 128;
    s.at = 100;
    snd_mixer_start(m, &s); /* takes entity 5's channel 1 over */
    snd_mixer_mix(m, 100, 100, &l, NULL, 0, out);
    CHECK_MSG(out[0] == 0 && abs(out[1] - 9035) <= 3, "%d %d", out[0], out[1]);
    snd_mixer_stop_all(m, 200);
    snd_loop loops[3];
    test_loops(loops, 3, rig.id, 64, -100);
    snd_mixer_mix(m, 200, 100, &l, loops, 3, out);
    CHECK_MSG(out[0] == 0 && abs(out[1] - 10000) <= 2, "%d %d", out[0], out[1]);
    rig_close(&rig);
}

/* Quake II's player sounds [Q2CL snd_dma.c S_RegisterSexedSound, snd_mem.c S_LoadSound]:
 * "#players/<model>/<name>" is read from players/<model>/<name>, and when the model lacks
 * it from the male one, "player/male/<name>" under sound/. A "*name" of no model is the
 * male one too. */
TEST(sound_q2_player_sounds_by_model_fall_back_to_male)
{
    const char *dir = sound_dir();
    if (!dir)
        SKIP("cannot write the test sound");
    char sub[1200];
    static const char *const dirs[] = {"sound/player", "sound/player/male", "players",
                                       "players/female"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(sub, sizeof sub, "%s/%s", dir, dirs[i]);
        mkdir(sub, 0777);
    }
    uint8_t pcm[480 * 2], wav[44 + sizeof pcm];
    for (int level = 1; level <= 2; level++) { /* male 1000, female 2000 */
        for (int i = 0; i < 480; i++)
            put16(pcm + 2 * i, 1000 * level);
        write_file(dir, level == 1 ? "sound/player/male/jump1.wav" : "players/female/jump1.wav",
                   wav, make_wav(wav, 1, 16, 48000, pcm, sizeof pcm));
    }
    char file[128];
    CHECK(snd_file_name(CL_GAME_Q2, "#players/female/jump1.wav", file, sizeof file));
    CHECK_STR(file, "players/female/jump1.wav");
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK(fs && pak_fs_add_game_dir(fs, dir, &e) == QD_OK);
    snd_bank *b = snd_bank_new();
    CHECK(b);
    static const struct { const char *name; int level; } want[] = {
        {"#players/female/jump1.wav", 2000}, {"#players/cyborg/jump1.wav", 1000},
        {"*jump1.wav", 1000}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const snd_sample *s = snd_bank_get(b, snd_bank_find(b, fs, CL_GAME_Q2, want[i].name));
        CHECK_MSG(s && s->len > 0 && s->pcm[0] == want[i].level, "%s", want[i].name);
    }
    snd_bank_free(b);
    pak_fs_close(fs);
}

/* A game folder <tmp>/name (into dir) whose sound/weapons/pkup.wav is 0.3 s of one value
 * (8 bits, 200: 18432) with a cue point at 0, for the two tests below. 1 when written. */
static int looped_pickup_game(char *dir, size_t size, const char *name)
{
    char sub[1100], path[1200], out[256];
    snprintf(dir, size, "%s/%s", test_tmpdir(), name);
    snprintf(sub, sizeof sub, "%s/sound/weapons", dir);
    if (test_capture(out, sizeof out, "mkdir -p '%s'", sub) != 0)
        return 0;
    static uint8_t pcm[3308], wav[44 + sizeof pcm + 36];
    memset(pcm, 200, sizeof pcm);
    snprintf(path, sizeof path, "%s/pkup.wav", sub);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    size_t n = add_cue(wav, make_wav(wav, 1, 8, 11025, pcm, sizeof pcm), 0);
    int ok = fwrite(wav, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* A sound with a loop point plays until cut however long ago it began, so an export from
 * the middle takes every start of its level, not only those within the longest sound's
 * length (a review: silent). quake-from-memory_demo1.dem starts weapons/pkup.wav on entity 1
 * (the recorder: heard at full volume), channel 3, at 3.832 s and weapons/lock4.wav cuts it
 * at 6.166 s (`qdemo dump`); pkup here is 0.3 s of one value (8 bits, 200: 18432) with a cue
 * at 0 and no other sound is there. The track rendered from 5.5 s to 6 s is the whole
 * render's from sample 264,000 (5.5 x 48,000), sample for sample, and not silent: 18432 x
 * 0.7 = 12902 in each ear. */
TEST(sound_export_from_the_middle_hears_a_loop_begun_long_before)
{
    const char *q = getenv("QDEMO");
    char demo[1024];
    if (!q || !*q || access(q, X_OK) != 0)
        SKIP("run with QDEMO set (make test)");
    if (!test_realfile(demo, sizeof demo, "dem/quake-from-memory_demo1.dem"))
        SKIP("no realdata/dem/quake-from-memory_demo1.dem");
    char dir[1024], path[1200], out[4096];
    CHECK(looped_pickup_game(dir, sizeof dir, "loopgame"));
    for (int k = 0; k < 2; k++)
        CHECK_EQ(test_capture(out, sizeof out,
                              "%s render '%s' --no-autodetect -p '%s' -o '%s/f%d' --size 16x16 "
                              "--fps 10 %s --audio '%s/a%d.wav' -q 2>&1",
                              q, demo, dir, dir, k, k ? "--from 5.5 --to 6" : "--to 7", dir, k),
                 0);
    size_t la, lb;
    snprintf(path, sizeof path, "%s/a0.wav", dir);
    uint8_t *a = test_read_file(path, &la);
    snprintf(path, sizeof path, "%s/a1.wav", dir);
    uint8_t *b = test_read_file(path, &lb);
    CHECK(a && b && la == 44 + 7 * 48000 * 4 && lb == 44 + 24000 * 4);
    if (a && b && la == 44 + 7 * 48000 * 4 && lb == 44 + 24000 * 4) {
        CHECK(memcmp(a + 44 + 264000 * 4, b + 44, 24000 * 4) == 0);
        int16_t x = (int16_t)(b[44 + 4000 * 4] | b[44 + 4000 * 4 + 1] << 8);
        CHECK_MSG(abs(x - 12902) <= 2, "%d", x);
    }
    free(a);
    free(b);
}

/* demo's timeline (NULL: a check failed), *o searching dir alone and *a an audio state on
 * it (free both with app_audio_free and tl_close). */
static timeline_t *loop_feed_open(const char *demo, const char *dir, app_opts *o,
                                  app_audio *a, qd_error *err)
{
    demo_t *d = demo_open(demo, err);
    timeline_t *tl = d ? tl_open(d, 0, err) : NULL;
    memset(o, 0, sizeof *o);
    o->paks[o->num_paks++] = dir;
    o->no_autodetect = 1;
    if (!tl || !app_audio_init(a, o)) {
        test_fail_at(__FILE__, __LINE__, tl ? "out of memory" : err->msg);
        tl_close(tl);
        return NULL;
    }
    return tl;
}

/* The window's sound after a seek or a pause hears what began before and still sounds, as
 * the export from the middle above does (a review: a lift's loop was silent until started
 * again). The same demo and looping pkup.wav (cue at 0; 18432 x 0.7 = 12902 in each ear,
 * entity 1 being the listener); the feed starts at 5.5 s, past the start at 3.832 s, in
 * process (what `play` does after a seek), and its first samples are the loop's. The
 * timeline's state is the one at 5.5 s again after the walk back (its time checked). */
TEST(sound_window_after_a_seek_hears_a_loop_begun_before)
{
    char demo[1024];
    if (!test_realfile(demo, sizeof demo, "dem/quake-from-memory_demo1.dem"))
        SKIP("no realdata/dem/quake-from-memory_demo1.dem");
    char dir[1024];
    CHECK(looped_pickup_game(dir, sizeof dir, "loopwin"));
    qd_error err;
    app_opts o;
    app_audio a;
    timeline_t *tl = loop_feed_open(demo, dir, &o, &a, &err);
    if (!tl)
        return;
    double t = tl_start(tl) + 5.5;
    const cl_state *cl = tl_state_at(tl, t, &err);
    CHECK(cl != NULL);
    static int16_t pcm_out[2 * 12000];
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    CHECK_EQ(app_audio_play(&a, tl, &cl, t, 1, eye, ang, 1, 1, pcm_out, 12000, &err), 2400u);
    CHECK(cl != NULL && cl == tl_state_at(tl, t, &err));
    CHECK_MSG(abs(pcm_out[2 * 1000] - 12902) <= 2 && abs(pcm_out[2 * 1000 + 1] - 12902) <= 2,
              "%d %d", pcm_out[2 * 1000], pcm_out[2 * 1000 + 1]);
    /* and it goes on in the next frame's samples */
    CHECK_EQ(app_audio_play(&a, tl, &cl, t + 0.02, 1, eye, ang, 1, 1, pcm_out, 12000, &err), 960u);
    CHECK_MSG(abs(pcm_out[2 * 500] - 12902) <= 2, "%d", pcm_out[2 * 500]);
    app_audio_free(&a);
    tl_close(tl);
}

/* A Quake demo message being made, and its block (angles 0) onto f. */
typedef struct dmsg {
    uint8_t b[256];
    size_t n;
} dmsg;

static void dm8(dmsg *m, unsigned v) { m->b[m->n++] = (uint8_t)v; }
static void dm16(dmsg *m, unsigned v) { dm8(m, v & 255), dm8(m, v >> 8 & 255); }
static void dm32(dmsg *m, uint32_t v) { dm16(m, v & 0xffff), dm16(m, v >> 16); }
static void dmstr(dmsg *m, const char *s)
{
    while (*s)
        dm8(m, (uint8_t)*s++);
    dm8(m, 0);
}

static void dem_block(FILE *f, const dmsg *m)
{
    uint8_t head[16] = {(uint8_t)m->n, (uint8_t)(m->n >> 8), 0, 0};
    fwrite(head, 1, sizeof head, f);
    fwrite(m->b, 1, m->n, f);
}

/* The window's look-back walks at most APP_SND_MAX_WALK (20,000) frames, the latest (a
 * review: a demo of 20,000 frames a second made each restart's walk half a second, and the
 * window restart every frame). A Quake demo made here of 500 frames a second for 70 s
 * whose recorder (entity 1, the listener) starts the looped pkup.wav on channel 1 at 20 s
 * and on channel 2 at 35 s: from 70 s the last 20,000 frames reach back to 30 s, so only the
 * second is heard, 12,902 (by hand as above); both would be 25,804. */
TEST(sound_window_look_back_walks_a_bounded_number_of_frames)
{
    char dir[1024], path[1200];
    CHECK(looped_pickup_game(dir, sizeof dir, "loopdense"));
    snprintf(path, sizeof path, "%s/dense.dem", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("-1\n", f); /* (the CD track line) */
    static dmsg m;
    m.n = 0;
    dm8(&m, 11); /* svc_serverinfo */
    dm32(&m, 15);
    dm8(&m, 1);
    dm8(&m, 0);
    dmstr(&m, "dense");
    dmstr(&m, "maps/none.bsp");
    dmstr(&m, "");
    dmstr(&m, "weapons/pkup.wav");
    dmstr(&m, "");
    dem_block(f, &m);
    for (int k = 1; k <= 70 * 500; k++) {
        m.n = 0;
        dm8(&m, 7); /* svc_time */
        float tk = (float)k / 500;
        uint32_t bits;
        memcpy(&bits, &tk, 4);
        dm32(&m, bits);
        if (k == 20 * 500 || k == 35 * 500) {
            dm8(&m, 6); /* svc_sound: no volume or attenuation, entity 1 on channel 1 or 2 */
            dm8(&m, 0);
            dm16(&m, 1 << 3 | (k == 20 * 500 ? 1 : 2));
            dm8(&m, 1);
            for (int i = 0; i < 3; i++)
                dm16(&m, 0); /* (the origin: 0, the listener's) */
        }
        dem_block(f, &m);
    }
    fclose(f);
    qd_error err;
    app_opts o;
    app_audio a;
    timeline_t *tl = loop_feed_open(path, dir, &o, &a, &err);
    if (!tl)
        return;
    double t = tl_start(tl) + 69.9;
    const cl_state *cl = tl_state_at(tl, t, &err);
    static int16_t pcm_out[2 * 12000];
    const float eye[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
    CHECK_EQ(app_audio_play(&a, tl, &cl, t, 1, eye, ang, 1, 1, pcm_out, 12000, &err), 2400u);
    CHECK_MSG(abs(pcm_out[2 * 1000] - 12902) <= 2, "%d", pcm_out[2 * 1000]);
    app_audio_free(&a);
    tl_close(tl);
}
