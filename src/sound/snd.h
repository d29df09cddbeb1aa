/* snd.h: sound: WAV and OGG Vorbis sounds decoded to 48 kHz mono, a bank of them by name, and
 * a deterministic spatial mixer (each game's attenuation and stereo model) producing 16-bit
 * stereo.
 *
 * Time is counted in output samples (SND_RATE a second) on a clock the caller chooses (an
 * export counts from its first frame). Nothing here reads the clock or a global: the same
 * calls give the same bytes on every run and thread count. */
#ifndef QD_SND_H
#define QD_SND_H

#include <stddef.h>
#include <stdint.h>

#include "../../pak-loader/pak.h"
#include "../client/cl.h"
#include "../common/err.h"

#define SND_RATE 48000                    /* output rate, samples per second */
#define SND_MAX_IN_FRAMES (64u << 20)     /* sample frames a file may hold (64 Mi) */
#define SND_MAX_OUT (1u << 24)            /* samples after resampling (~349 s at 48 kHz) */
#define SND_MIN_IN_RATE 1000              /* a file's rate outside [1 kHz, 192 kHz] is refused */
#define SND_MAX_IN_RATE 192000
#define SND_VOICES 64                     /* voices at once; the quietest is dropped */
#define SND_MAX_LOOPS 320                 /* looping sources mixed at once: the static
                                           * ones and the entities' (app_sound.h) */
#define SND_BANK_MAX 4096                 /* names a bank remembers (found or missing) */
#define SND_BANK_MAX_BYTES ((size_t)512 << 20) /* decoded samples a bank keeps */

/* One decoded sound: mono, SND_RATE, len samples (len >= 1). loop: where it loops from, a
 * sample before len, or -1 when it does not (a WAV's cue point, which Quake and Quake II
 * loop from; snd_mixer_start, snd_loop). */
typedef struct snd_sample {
    int16_t *pcm;
    uint32_t len;
    int32_t loop;
} snd_sample;

/* Decode a RIFF WAVE file (PCM 8-bit unsigned or 16-bit signed, 1 or 2 channels, any rate in
 * [SND_MIN_IN_RATE, SND_MAX_IN_RATE]) held in data[0..len) into out, mixed down to mono and
 * resampled to SND_RATE by linear interpolation. Its loop as id's GetWavinfo (WinQuake and
 * Quake II snd_mem.c) reads it: the first "cue " chunk's first cue point's sample offset,
 * and, when the next LIST chunk after it is a Cool Edit "mark" label, the sound cut to that
 * many samples past the loop start; resampled to out->loop (the offset x SND_RATE / rate,
 * truncated as their ResampleSfx does). Every chunk length is checked against the file; a
 * damaged or unsupported file (a loop past the data included) gives an error (offset and
 * reason in err) and leaves out empty. The caller frees out with snd_sample_free. */
qd_err snd_decode_wav(const uint8_t *data, size_t len, snd_sample *out, qd_error *err);
/* The same for an OGG Vorbis file (stb_vorbis, in a fixed 1 MiB working buffer; the stream
 * length is checked before decoding and the decode stops at the caps). */
qd_err snd_decode_ogg(const uint8_t *data, size_t len, snd_sample *out, qd_error *err);
/* snd_decode_wav or snd_decode_ogg by the file's first bytes ("RIFF" / "OggS"). */
qd_err snd_decode(const uint8_t *data, size_t len, snd_sample *out, qd_error *err);
/* snd_decode for a sound of at most max_out samples after resampling (<= SND_MAX_OUT): a
 * longer one is QD_ERR_LIMIT, found from its header or as soon as the decode passes it, not
 * after (a bank that is nearly full decodes no long sound whole to throw it away). */
qd_err snd_decode_max(const uint8_t *data, size_t len, uint32_t max_out, snd_sample *out,
                      qd_error *err);
qd_err snd_decode_wav_max(const uint8_t *data, size_t len, uint32_t max_out, snd_sample *out,
                          qd_error *err);
qd_err snd_decode_ogg_max(const uint8_t *data, size_t len, uint32_t max_out, snd_sample *out,
                          qd_error *err);
void snd_sample_free(snd_sample *s);

/* in[0..n) at rate in_rate (mono) resampled linearly to SND_RATE into a new sample. Output
 * sample j takes the input at j * in_rate / SND_RATE, interpolated between its neighbours
 * (the last input sample held at the end). Returns QD_ERR_LIMIT when the result would be
 * over SND_MAX_OUT, QD_ERR_NOMEM. */
qd_err snd_resample(const int16_t *in, uint32_t n, uint32_t in_rate, snd_sample *out,
                    qd_error *err);

/* ---- A bank: sounds loaded once, by name ---- */

typedef struct snd_bank snd_bank;

snd_bank *snd_bank_new(void);
void snd_bank_free(snd_bank *b);
/* The file a game's precache name is read from: Quake, QuakeWorld, Quake II "sound/" + name
 * (Quake II's "#path" as path, its "*name" player sounds of no known model as
 * "sound/player/male/name"), Quake III the name as given.
 * Writes at most cap bytes with its 0; returns 0 when it does not fit (the sound is missing). */
int snd_file_name(cl_game game, const char *name, char *out, size_t cap);
/* The bank id of precache name in game, loading it through fs the first time (Quake III: a
 * missing .wav is tried as .ogg, as ioquake3's S_CodecLoad does; a player model's missing
 * sound is sarge's, Quake II's "#players/<model>/<name>" the male one). A missing or damaged file
 * gives -1, remembered as missing (snd_bank_missing), never an error. fs may be NULL (all
 * missing). */
int snd_bank_find(snd_bank *b, const pak_fs *fs, cl_game game, const char *name);
/* Sound id, or NULL for an id that is not a loaded sound. */
const snd_sample *snd_bank_get(const snd_bank *b, int id);
/* The i-th name that was missing or damaged (i from 0), NULL past the last. */
const char *snd_bank_missing(const snd_bank *b, int i);
/* The longest loaded sound, in samples. */
uint32_t snd_bank_longest(const snd_bank *b);
/* 1 when a loaded sound has a loop point (snd_sample.loop): in Quake and Quake II it may play
 * on however long ago it started. */
int snd_bank_loops(const snd_bank *b);

/* ---- The mixer ---- */

/* A sound start, resolved for the mixer. */
typedef struct snd_start {
    int64_t at;           /* first sample, on the caller's clock */
    int32_t id;           /* bank id (>= 0) */
    float origin[3];
    int32_t entity;       /* 0 or less: none (never overridden) */
    uint8_t channel;      /* 0: auto (never overrides); else, but in Quake III, a new start
                           * on the same entity and channel ends the old one (Quake's and
                           * Quake II's S_StartSound) */
    uint8_t volume;       /* 0..255 */
    uint8_t attenuation;  /* x64: 64 = ATTN_NORM, 0 = ATTN_NONE (snd_spatialize) */
    uint8_t full;         /* full volume in both ears whoever listens (a sound from nowhere);
                           * the listener's entity's sounds are so anyway (snd_listener) */
    uint8_t follow;       /* heard from where its entity is as it moves (snd_mixer_follow;
                           * Quake III and Quake II start entity sounds so), else from
                           * origin throughout (Quake's rule) */
} snd_start;

/* A looping source: plays its sample round and round wherever it is, from its loop point
 * with cue set (Quake's static and ambient sounds: WinQuake loops them from the WAV's cue
 * point and S_StaticSound refuses a sound without one, so such a sound is not heard), else
 * whole (Quake II's and Quake III's entity sounds). */
typedef struct snd_loop {
    int32_t id;
    float origin[3];
    uint8_t volume, attenuation, cue;
} snd_loop;

/* Where the mix is heard from: the camera's eye and its right-hand direction (unit), and the
 * entity the camera is, whose sounds are the listener's own: full volume in both ears
 * (QuakeSpasm SND_Spatialize: cl.viewentity; Quake II S_Spatialize: cl.playernum + 1;
 * ioquake3: listener_number). 0: none (a chase or free camera). */
typedef struct snd_listener {
    float origin[3];
    float right[3];
    int32_t entity;
} snd_listener;

/* The right-hand unit vector of a camera with angles pitch, yaw, roll in degrees (Quake's
 * AngleVectors convention); entity 0. */
void snd_listener_set(snd_listener *l, const float origin[3], const float angles[3]);

/* The left and right gains of a source at origin of volume vol (0..1) heard by l in game's
 * model (d = |src - ear|, dot = right . unit(src - ear), each gain at least 0):
 * - Quake, QuakeWorld (WinQuake snd_dma.c SND_Spatialize): dist = d x attenuation / 1000,
 *   each ear vol x (1 - dist) x (1 +/- dot);
 * - Quake II (client/snd_dma.c S_SpatializeOrigin): dist = max(0, d - 80) x dist_mult,
 *   dist_mult = attenuation x 0.0005 (ATTN_STATIC, 192/64: x 0.001), each ear vol x
 *   (1 - dist) x 0.5 x (1 +/- dot); ATTN_NONE (0): vol in both ears;
 * - Quake III (ioquake3 snd_dma.c S_SpatializeOrigin): as Quake II with dist_mult 0.0008
 *   whatever the attenuation; attenuation 0 ("heard everywhere"): vol in both ears.
 * full, or no listener: vol in both ears. */
void snd_spatialize(const snd_listener *l, cl_game game, const float origin[3], float vol,
                    int attenuation64, int full, float *left, float *right);

typedef struct snd_mixer snd_mixer;

/* A mixer over bank (which must outlive it). master: the volume, 0..1 (Quake's 0.7 default). */
snd_mixer *snd_mixer_new(const snd_bank *b, float master);
void snd_mixer_free(snd_mixer *m);
void snd_mixer_set_volume(snd_mixer *m, float master);
/* Mix as game's engine does (snd_spatialize; the loops' clamp). CL_GAME_NONE, the default,
 * mixes as Quake. */
void snd_mixer_set_game(snd_mixer *m, cl_game game);
/* Start a sound at s->at (which may lie ahead of the next mixed sample, or before it: it
 * then plays from the middle). Quake, QuakeWorld, Quake II: a sound with a loop point
 * (snd_sample.loop) plays on from there at its end, until cut (their S_PaintChannels); a
 * start on the same entity (> 0) and channel (!= 0) as a voice cuts that voice at s->at.
 * Quake III (ioquake3 S_Base_StartSoundEx): nothing is cut; a start is dropped when its
 * entity started the same sound under 50 ms before, or has more than 4 copies of it playing
 * (8 for the last listener's entity). With SND_VOICES voices playing the quietest for the
 * last listener (the new one included; the older one on a tie) is dropped. */
void snd_mixer_start(snd_mixer *m, const snd_start *s);
/* Forget the voices that end before sample `at` (no later than the next span to mix): a
 * caller handing starts over in time order moves it to each start first, so a pile of
 * starts from before the first span (an export's look-back) holds only the voices still
 * sounding then, and the newest are not turned away by the voice limit. */
void snd_mixer_seek(snd_mixer *m, int64_t at);
/* Every voice stops at sample at (a level change, a seek). */
void snd_mixer_stop_all(snd_mixer *m, int64_t at);
/* Mix samples [pos, pos + n) heard from l, with nloops looping sources (at most
 * SND_MAX_LOOPS used), into out[2 * n] (left, right interleaved, 16-bit, clipped). Voices
 * that have ended are dropped. A span reaching past int64's samples is silence. */
void snd_mixer_mix(snd_mixer *m, int64_t pos, uint32_t n, const snd_listener *l,
                   const snd_loop *loops, int nloops, int16_t *out);
/* Voices held (started and not yet dropped). */
int snd_mixer_voices(const snd_mixer *m);
/* Move each following voice (snd_start.follow) to where(ctx, entity, origin) puts its
 * entity; a voice whose entity where does not place (returns 0) keeps its last origin.
 * Called before a snd_mixer_mix, it spatializes that span from there. */
void snd_mixer_follow(snd_mixer *m, int (*where)(void *ctx, int entity, float origin[3]),
                      void *ctx);

/* ---- Output ---- */

/* The 44-byte header of a 16-bit stereo SND_RATE PCM WAVE file holding frames sample frames.
 * Returns 0 when the data would not fit a RIFF file (over 4 GiB). */
int snd_wav_header(uint8_t out[44], uint64_t frames);

#endif
