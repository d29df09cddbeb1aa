/* snd_mix.c: the mixer: voices started at exact samples, spatialised per mixed span from one
 * listener, summed in integers (so the bytes are the same on every run), clipped to 16 bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "snd.h"

#define GAIN_ONE 4096    /* fixed-point gain 1.0 */
#define MIX_MAX_SPAN (1u << 20)

typedef struct voice {
    int64_t start, end;  /* samples [start, end) on the caller's clock */
    int32_t id, entity;
    float origin[3];
    uint8_t channel, volume, attenuation, full, follow;
    float loud;          /* max(left, right) for the last listener: the voice limit's key */
} voice;

struct snd_mixer {
    const snd_bank *bank;
    float master;
    cl_game game;        /* whose distance, stereo and start rules (snd_mixer_set_game) */
    voice v[SND_VOICES];
    int n;
    int64_t mixed;       /* the end of the last mixed span */
    int have_listener;
    snd_listener last;
    int32_t *acc;        /* 2 x MIX_MAX_SPAN accumulators */
};

void snd_listener_set(snd_listener *l, const float origin[3], const float angles[3])
{
    const double d2r = 3.14159265358979323846 / 180.0;
    double sp = sin(angles[0] * d2r), cp = cos(angles[0] * d2r);
    double sy = sin(angles[1] * d2r), cy = cos(angles[1] * d2r);
    double sr = sin(angles[2] * d2r), cr = cos(angles[2] * d2r);
    memcpy(l->origin, origin, sizeof l->origin);
    l->entity = 0;
    l->right[0] = (float)(-sr * sp * cy + cr * sy);
    l->right[1] = (float)(-sr * sp * sy - cr * cy);
    l->right[2] = (float)(-sr * cp);
}

/* Quake II's distance factor (client/snd_dma.c S_IssuePlaysound: dist_mult is the
 * attenuation x 0.0005, ATTN_STATIC's x 0.001; 0 for ATTN_NONE). */
static float q2_dist_mult(int attenuation64)
{
    return attenuation64 == 192 ? 3 * 0.001f : attenuation64 / 64.0f * 0.0005f;
}

void snd_spatialize(const snd_listener *l, cl_game game, const float origin[3], float vol,
                    int attenuation64, int full, float *left, float *right)
{
    /* Quake II S_SpatializeOrigin: no distance and no pan without a dist_mult; Quake III
     * has no attenuation, so its "heard everywhere" sounds are heard as the listener's */
    if (full || !l || (game == CL_GAME_Q2 && attenuation64 == 0) ||
        (game == CL_GAME_Q3 && attenuation64 == 0)) {
        *left = *right = vol;
        return;
    }
    float v[3], d2 = 0, dot = 0;
    for (int i = 0; i < 3; i++) {
        v[i] = origin[i] - l->origin[i];
        d2 += v[i] * v[i];
    }
    float d = sqrtf(d2);
    if (!(d < 1e7f)) { /* NaN or absurd: unheard */
        *left = *right = 0;
        return;
    }
    if (d > 0)
        dot = (l->right[0] * v[0] + l->right[1] * v[1] + l->right[2] * v[2]) / d;
    float dist, pan;
    if (game == CL_GAME_Q2 || game == CL_GAME_Q3) {
        /* Quake II client/snd_dma.c and ioquake3 snd_dma.c S_SpatializeOrigin: full volume
         * within SOUND_FULLVOLUME (80), then dist_mult a unit (ioquake3's SOUND_ATTENUATE
         * 0.0008 for all); each ear 0.5 x (1 +/- dot) */
        float beyond = d > 80 ? d - 80 : 0;
        dist = beyond * (game == CL_GAME_Q2 ? q2_dist_mult(attenuation64) : 0.0008f);
        pan = 0.5f;
    } else {
        /* Quake's SND_Spatialize: sound_nominal_clip_dist 1000; each ear (1 +/- dot) */
        dist = d * ((float)attenuation64 / 64.0f) / 1000.0f;
        pan = 1;
    }
    float r = vol * (1.0f - dist) * pan * (1.0f + dot);
    float lft = vol * (1.0f - dist) * pan * (1.0f - dot);
    *right = r > 0 ? r : 0;
    *left = lft > 0 ? lft : 0;
}

snd_mixer *snd_mixer_new(const snd_bank *b, float master)
{
    snd_mixer *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->acc = malloc((size_t)MIX_MAX_SPAN * 2 * sizeof *m->acc);
    if (!m->acc) {
        free(m);
        return NULL;
    }
    m->bank = b;
    m->mixed = INT64_MIN;
    snd_mixer_set_volume(m, master);
    return m;
}

void snd_mixer_free(snd_mixer *m)
{
    if (!m)
        return;
    free(m->acc);
    free(m);
}

void snd_mixer_set_volume(snd_mixer *m, float master)
{
    m->master = master >= 0 && master <= 4 ? master : master > 4 ? 4 : 0;
}

void snd_mixer_set_game(snd_mixer *m, cl_game game) { m->game = game; }

int snd_mixer_voices(const snd_mixer *m) { return m->n; }

/* The most a loop's summed sources give an ear, in units of a full-volume sound: Quake II
 * S_AddLoopSounds clamps at 255 on a full volume of 255, ioquake3's at 255 on 127; Quake's
 * S_Update sums its static channels and SND_PaintChannelFrom8 clamps at 255. */
static float loop_cap(cl_game game)
{
    return game == CL_GAME_Q3 ? 255.0f / 127.0f : 1.0f;
}

/* Quake's and QuakeWorld's mixing (the default): QuakeSpasm snd_mix.c SND_PaintChannelFrom8
 * clamps each ear of an 8-bit voice at 255, full volume, so one voice on one side is not
 * louder than the listener's own sounds (Quake II's and Quake III's pan halves instead). */
static int quake_clamps(cl_game game)
{
    return game != CL_GAME_Q2 && game != CL_GAME_Q3;
}

/* Whether v is heard at full volume by l: a sound from nowhere, or one of the entity the
 * listener is (QuakeSpasm SND_Spatialize, Quake II S_Spatialize, ioquake3
 * S_Base_HearingThroughEntity), checked each mix as they do. */
static int heard_full(const voice *v, const snd_listener *l)
{
    return v->full || (l && v->entity > 0 && v->entity == l->entity);
}

static float loudness(const snd_mixer *m, const voice *v)
{
    float l, r;
    const snd_listener *ear = m->have_listener ? &m->last : NULL;
    snd_spatialize(ear, m->game, v->origin, v->volume / 255.0f, v->attenuation,
                   heard_full(v, ear), &l, &r);
    float loud = l > r ? l : r;
    return quake_clamps(m->game) && loud > 1 ? 1 : loud;
}

/* Whether sample s loops in m's game: Quake's, QuakeWorld's and Quake II's mixers go on
 * from a sound's loop point at its end (WinQuake and Quake II snd_mix.c S_PaintChannels);
 * ioquake3 reads no loop point. */
static int loops_in(const snd_mixer *m, const snd_sample *s)
{
    return s && s->loop >= 0 && (uint32_t)s->loop < s->len && m->game != CL_GAME_Q3;
}

/* The sample of s played i samples after its start: past its end, from its loop point
 * round (loops_in) or, without one, its end. */
static int64_t loop_index(const snd_sample *s, int64_t i)
{
    if (i < (int64_t)s->len || s->loop < 0)
        return i;
    return s->loop + (i - s->loop) % ((int64_t)s->len - s->loop);
}

/* The voice's last audible sample + 1. */
static int64_t voice_end(const snd_mixer *m, const voice *v)
{
    const snd_sample *s = snd_bank_get(m->bank, v->id);
    if (loops_in(m, s))
        return v->end; /* (until cut) */
    int64_t len = s ? (int64_t)s->len : 0;
    int64_t e = v->start > INT64_MAX - len ? INT64_MAX : v->start + len; /* (saturated: a
                                                                           * review) */
    return e < v->end ? e : v->end;
}

/* Drop voices that ended before the next sample to mix. */
static void reap(snd_mixer *m)
{
    int k = 0;
    for (int i = 0; i < m->n; i++)
        if (voice_end(m, &m->v[i]) > m->mixed || m->mixed == INT64_MIN)
            m->v[k++] = m->v[i];
    m->n = k;
}

/* Whether Quake III starts nv (ioquake3 snd_dma.c S_Base_StartSoundEx): no channel is taken
 * over; a start of a sound its entity began under 50 ms before is dropped, and so is one
 * when more than 4 copies of it on that entity are playing (8 on the listener's entity). */
static int q3_start_kept(const snd_mixer *m, const voice *nv)
{
    int allowed = m->have_listener && nv->entity == m->last.entity ? 8 : 4, inplay = 0;
    for (int i = 0; i < m->n; i++) {
        const voice *v = &m->v[i];
        if (v->entity != nv->entity || v->id != nv->id || v->start > nv->start ||
            voice_end(m, v) <= nv->start)
            continue;
        if (nv->start - v->start < SND_RATE / 20)
            return 0;
        inplay++;
    }
    return inplay <= allowed;
}

void snd_mixer_start(snd_mixer *m, const snd_start *s)
{
    if (!m || !snd_bank_get(m->bank, s->id))
        return;
    voice nv;
    memset(&nv, 0, sizeof nv);
    nv.start = s->at;
    nv.end = INT64_MAX;
    nv.id = s->id;
    nv.entity = s->entity;
    memcpy(nv.origin, s->origin, sizeof nv.origin);
    nv.channel = s->channel;
    nv.volume = s->volume;
    nv.attenuation = s->attenuation;
    nv.full = s->full;
    nv.follow = s->follow && s->entity > 0;
    nv.loud = loudness(m, &nv);
    if (m->game == CL_GAME_Q3) {
        if (!q3_start_kept(m, &nv))
            return;
    } else if (nv.entity > 0 && nv.channel != 0) {
        /* QuakeSpasm snd_dma.c SND_PickChannel, Quake II S_PickChannel: a start on the same
         * entity and channel takes the channel over */
        for (int i = 0; i < m->n; i++)
            if (m->v[i].entity == nv.entity && m->v[i].channel == nv.channel &&
                m->v[i].end > nv.start)
                m->v[i].end = nv.start;
    }
    reap(m);
    if (m->n < SND_VOICES) {
        m->v[m->n++] = nv;
        return;
    }
    /* full: the quietest goes (the older on a tie; the new one when it is the quietest) */
    int q = 0;
    for (int i = 1; i < m->n; i++)
        if (m->v[i].loud < m->v[q].loud ||
            (m->v[i].loud == m->v[q].loud && m->v[i].start < m->v[q].start))
            q = i;
    if (nv.loud > m->v[q].loud)
        m->v[q] = nv;
}

void snd_mixer_seek(snd_mixer *m, int64_t at)
{
    if (m && (m->mixed == INT64_MIN || m->mixed < at)) {
        m->mixed = at;
        reap(m);
    }
}

void snd_mixer_follow(snd_mixer *m, int (*where)(void *ctx, int entity, float origin[3]),
                      void *ctx)
{
    for (int i = 0; m && where && i < m->n; i++) {
        float o[3];
        if (m->v[i].follow && where(ctx, m->v[i].entity, o) && isfinite(o[0]) &&
            isfinite(o[1]) && isfinite(o[2]))
            memcpy(m->v[i].origin, o, sizeof o);
    }
}

void snd_mixer_stop_all(snd_mixer *m, int64_t at)
{
    for (int i = 0; i < m->n; i++)
        if (m->v[i].end > at)
            m->v[i].end = at;
    reap(m); /* those that can no longer be heard go now */
}

static int32_t fixed_gain(float g)
{
    float f = g * GAIN_ONE + 0.5f;
    return f < 0 ? 0 : f > 8 * GAIN_ONE ? 8 * GAIN_ONE : (int32_t)f;
}

void snd_mixer_mix(snd_mixer *m, int64_t pos, uint32_t n, const snd_listener *l,
                   const snd_loop *loops, int nloops, int16_t *out)
{
    if (pos > INT64_MAX - (int64_t)n - MIX_MAX_SPAN) { /* (past int64's samples: silence, not
                                                        * an overflow; a review) */
        memset(out, 0, (size_t)n * 2 * sizeof *out);
        return;
    }
    while (n > MIX_MAX_SPAN) {
        snd_mixer_mix(m, pos, MIX_MAX_SPAN, l, loops, nloops, out);
        pos += MIX_MAX_SPAN;
        n -= MIX_MAX_SPAN;
        out += 2 * (size_t)MIX_MAX_SPAN;
    }
    if (l) {
        m->last = *l;
        m->have_listener = 1;
    }
    int32_t *acc = m->acc;
    memset(acc, 0, (size_t)n * 2 * sizeof *acc);
    for (int i = 0; i < m->n; i++) {
        voice *v = &m->v[i];
        const snd_sample *s = snd_bank_get(m->bank, v->id);
        float gl, gr;
        snd_spatialize(l, m->game, v->origin, v->volume / 255.0f * m->master, v->attenuation,
                       heard_full(v, l), &gl, &gr);
        if (quake_clamps(m->game)) {
            gl = gl < m->master ? gl : m->master;
            gr = gr < m->master ? gr : m->master;
        }
        v->loud = loudness(m, v);
        int64_t a = v->start > pos ? v->start : pos, b = voice_end(m, v);
        if (b > pos + (int64_t)n)
            b = pos + (int64_t)n;
        int32_t il = fixed_gain(gl), ir = fixed_gain(gr);
        if (!s || (il == 0 && ir == 0))
            continue;
        if (a >= b)
            continue;
        int64_t at = loop_index(s, a - v->start); /* (past len only when it loops) */
        for (int64_t k = a; k < b; k++) {
            int32_t x = s->pcm[at];
            size_t o = (size_t)(k - pos) * 2;
            acc[o] += (x * il) >> 12;
            acc[o + 1] += (x * ir) >> 12;
            if (++at == (int64_t)s->len)
                at = s->loop; /* (reached only when it loops: else b is its end) */
        }
    }
    if (nloops > SND_MAX_LOOPS)
        nloops = SND_MAX_LOOPS;
    for (int i = 0; loops && i < nloops; i++) {
        const snd_sample *s = snd_bank_get(m->bank, loops[i].id);
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = loops[j].id == loops[i].id;
        if (!s || seen)
            continue; /* mixed with the first of its sound */
        /* every source of one sound is one channel: their gains summed per ear, at most
         * what one source at full volume gives an ear (Quake II and Quake III
         * S_AddLoopSounds clamp at 255; Quake's S_Update sums its static sounds too) */
        /* Quake's statics and ambients from the cue point; a sound without one is not
         * heard (S_StaticSound: "not looped") */
        int64_t base = loops[i].cue ? (s->loop >= 0 && (uint32_t)s->loop < s->len ? s->loop : -1)
                                    : 0;
        if (base < 0)
            continue;
        float gl = 0, gr = 0;
        for (int j = i; j < nloops; j++) {
            if (loops[j].id != loops[i].id)
                continue;
            float jl, jr;
            snd_spatialize(l, m->game, loops[j].origin, loops[j].volume / 255.0f * m->master,
                           loops[j].attenuation, 0, &jl, &jr);
            gl += jl;
            gr += jr;
        }
        float full = loop_cap(m->game) * m->master;
        gl = gl < full ? gl : full;
        gr = gr < full ? gr : full;
        int32_t il = fixed_gain(gl), ir = fixed_gain(gr);
        if (il == 0 && ir == 0)
            continue;
        int64_t span = (int64_t)s->len - base, at = (pos - base) % span;
        at = base + (at < 0 ? at + span : at);
        for (uint32_t k = 0; k < n; k++) {
            int32_t x = s->pcm[at];
            acc[2 * k] += (x * il) >> 12;
            acc[2 * k + 1] += (x * ir) >> 12;
            if (++at == (int64_t)s->len)
                at = base;
        }
    }
    for (size_t k = 0; k < (size_t)n * 2; k++)
        out[k] = (int16_t)(acc[k] > 32767 ? 32767 : acc[k] < -32768 ? -32768 : acc[k]);
    m->mixed = pos + (int64_t)n;
    reap(m);
}
