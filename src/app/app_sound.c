/* app_sound.c: the demo's sound: sound starts read from the client state's log, found on the
 * level's search path, mixed from the camera for `render --audio` and the window. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/file.h"
#include "app_sound.h"
#include "player.h"

#define MASTER_VOLUME 0.7f /* Quake's "volume" default */

int app_audio_init(app_audio *a, const app_opts *o)
{
    memset(a, 0, sizeof *a);
    a->o = o;
    a->speed = 1;
    a->bank = snd_bank_new();
    a->mix = a->bank ? snd_mixer_new(a->bank, MASTER_VOLUME) : NULL;
    if (!a->mix) {
        app_audio_free(a);
        return 0;
    }
    return 1;
}

void app_audio_free(app_audio *a)
{
    mdl_bsp_free(a->map);
    snd_mixer_free(a->mix);
    snd_bank_free(a->bank);
    if (a->fs)
        pak_fs_close(a->fs);
    free(a->starts);
    free(a->levels);
    memset(a, 0, sizeof *a);
}

/* The search path of cl's level (made again when the level changes). */
static const pak_fs *level_fs(app_audio *a, const cl_state *cl)
{
    if (a->fs_level != cl->level_count || !a->fs) {
        if (a->fs)
            pak_fs_close(a->fs);
        qd_error e;
        a->fs = a->o ? app_search_path(a->o, &cl->level, &e) : NULL;
        a->fs_level = cl->level_count;
    }
    return a->fs;
}

static int sound_id(app_audio *a, const cl_state *cl, int index)
{
    if (index <= 0 || index >= CL_MAX_SOUNDS || !cl->level.sounds[index][0])
        return -1;
    return snd_bank_find(a->bank, level_fs(a, cl), cl->level.game, cl->level.sounds[index]);
}

static int push(app_audio *a, const snd_start *s, uint32_t level)
{
    if (a->n == a->cap) {
        if (a->cap >= APP_SND_MAX_STARTS)
            return 0;
        size_t nc = a->cap ? a->cap * 2 : 256;
        snd_start *ns = realloc(a->starts, nc * sizeof *ns);
        if (!ns)
            return 0;
        a->starts = ns;
        uint32_t *nl = realloc(a->levels, nc * sizeof *nl);
        if (!nl)
            return 0;
        a->levels = nl;
        a->cap = nc;
    }
    a->starts[a->n] = *s;
    a->levels[a->n] = level;
    a->n++;
    return 1;
}

void app_audio_take(app_audio *a, const cl_state *cl, double t_begin, double t_end,
                    double clock0)
{
    const cl_fxlog *log = &cl->fxlog;
    size_t batch = a->n; /* this span's starts, put in time order at the end */
    uint32_t first = log->sound_count > CL_SOUND_LOG ? log->sound_count - CL_SOUND_LOG : 0;
    for (uint32_t i = first; i < log->sound_count; i++) {
        const cl_sound *cs = &log->sounds[i % CL_SOUND_LOG];
        if (!(cs->t0 >= t_begin && cs->t0 < t_end))
            continue;
        snd_start s;
        memset(&s, 0, sizeof s);
        s.id = sound_id(a, cl, cs->sound);
        if (s.id < 0)
            continue;
        s.at = llround((cs->t0 - clock0) * SND_RATE / a->speed);
        s.entity = cs->entity;
        s.channel = cs->channel;
        s.volume = cs->volume;
        s.attenuation = cs->attenuation;
        /* Quake III's cgame starts an entity's sounds without an origin (they go where the
         * entity goes, snd_dma.c S_Spatialize: CL_GetEntitySoundOrigin); Quake II's server
         * sends a position for most, which then stays (fixed_origin); Quake's never move */
        s.follow = cs->entity > 0 && (cl->level.game == CL_GAME_Q3 ||
                                      (cl->level.game == CL_GAME_Q2 && !cs->has_origin));
        cl_entstate es;
        int nf;
        float bl;
        if (cs->has_origin)
            memcpy(s.origin, cs->origin, sizeof s.origin);
        else if (cs->entity >= 0 && cl_entity_at(cl, cs->entity, cs->t0, &es, &nf, &bl))
            memcpy(s.origin, es.origin, sizeof s.origin); /* Quake II: the entity's place */
        else
            s.full = 1; /* nowhere: heard as the listener's own */
        if (!push(a, &s, cl->level_count))
            break;
    }
    /* The log is in the order the starts were made, and some are dated later than others
     * made after them (Quake II's muzzle flashes 33-100 ms on, svc_sound's offset): the mixer
     * takes them in time order (a review: an earlier start listed after a later one waited
     * for it and lost its beginning), as Quake II's S_StartSound keeps its pending list.
     * Stable, and each span's starts are few (CL_SOUND_LOG at most). */
    for (size_t i = batch + 1; i < a->n; i++) {
        snd_start st = a->starts[i];
        uint32_t lv = a->levels[i];
        size_t j = i;
        for (; j > batch && a->starts[j - 1].at > st.at; j--) {
            a->starts[j] = a->starts[j - 1];
            a->levels[j] = a->levels[j - 1];
        }
        a->starts[j] = st;
        a->levels[j] = lv;
    }
}

/* The index of the last frame at or before t (0 when none is). */
static uint32_t frame_before(const timeline_t *tl, double t)
{
    uint32_t lo = 0, hi = tl_num_frames(tl);
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tl_frame_time(tl, mid) <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int app_audio_collect(app_audio *a, timeline_t *tl, double t_begin, double t_end,
                      double clock0, qd_error *err)
{
    /* The state at a frame's time holds every start before that time (tl_state_at): take
     * [prev, frame) at each frame, so starts at a frame's own time, whose blocks may not all
     * be decoded yet, are taken at the next one. */
    uint32_t nf = tl_num_frames(tl);
    double prev = t_begin;
    for (uint32_t i = frame_before(tl, t_begin); i < nf && prev < t_end; i++) {
        double tf = tl_frame_time(tl, i);
        if (tf <= prev)
            continue;
        const cl_state *cl = tl_state_at(tl, tf, err);
        if (!cl)
            return 0;
        app_audio_take(a, cl, prev, tf < t_end ? tf : t_end, clock0);
        prev = tf;
    }
    if (prev < t_end) { /* the last frame's own starts */
        const cl_state *cl = tl_state_at(tl, tl_end(tl) + 1, err);
        if (!cl)
            return 0;
        app_audio_take(a, cl, prev, t_end, clock0);
    }
    return 1;
}

static void update_loops(app_audio *a, const cl_state *cl)
{
    if (a->loops_level == cl->level_count && a->nloops == cl->num_static_sounds)
        return;
    a->loops_level = cl->level_count;
    a->nloops = 0;
    for (int i = 0; i < cl->num_static_sounds && i < CL_MAX_STATIC_SOUNDS; i++) {
        const cl_static_sound *ss = &cl->static_sounds[i];
        snd_loop *l = &a->loops[a->nloops];
        l->id = sound_id(a, cl, ss->sound);
        memcpy(l->origin, ss->origin, sizeof l->origin);
        l->volume = ss->volume;
        l->attenuation = ss->attenuation;
        l->cue = 1; /* (from its cue point; not heard without one) */
        a->nloops += l->id >= 0;
    }
}

_Static_assert(CL_MAX_STATIC_SOUNDS + APP_SND_MAX_ENTITY_LOOPS + APP_SND_AMBIENTS <=
                   SND_MAX_LOOPS,
               "loops");

/* The map of cl's level for the ambient sounds (Quake and QuakeWorld), loaded once a level
 * through its search path; NULL without one. */
static const mdl_bsp *level_map(app_audio *a, const cl_state *cl)
{
    if (a->map_level == cl->level_count)
        return a->map;
    mdl_bsp_free(a->map);
    a->map = NULL;
    a->map_level = cl->level_count;
    const pak_fs *fs = (cl->level.game == CL_GAME_Q1 || cl->level.game == CL_GAME_QW) &&
                               cl->level.map[0]
                           ? level_fs(a, cl)
                           : NULL;
    uint8_t *data = NULL;
    size_t len = 0;
    qd_error e;
    if (fs && pak_read(fs, cl->level.map, &data, &len, &e) == QD_OK &&
        mdl_bsp_load(data, len, cl->level.map, NULL, &a->map, &e) != QD_OK)
        a->map = NULL;
    free(data);
    return a->map;
}

/* Quake's ambient sounds (WinQuake snd_dma.c S_UpdateAmbientSounds): water
 * (ambience/water1.wav) and sky (ambience/wind2.wav), heard everywhere alike at
 * ambient_level 0.3 times the level of the listener's leaf (none under 8), each fading toward
 * it at ambient_fade, 100 a second; the span's n samples are its time. Into out; returns how
 * many. */
static int ambient_loops(app_audio *a, const cl_state *cl, const float origin[3], uint32_t n,
                         snd_loop *out)
{
    static const char *const names[APP_SND_AMBIENTS] = {"ambience/water1.wav",
                                                        "ambience/wind2.wav"};
    const mdl_bsp *b = level_map(a, cl);
    const mdl_leaf *leaf = NULL;
    if (b && b->num_models > 0) {
        uint32_t li = mdl_bsp_point_leaf(b, b->models[0].headnode, origin);
        leaf = li < b->num_leaves ? &b->leaves[li] : NULL;
    }
    float step = (float)n / SND_RATE * 100.0f;
    int k = 0;
    for (int i = 0; i < APP_SND_AMBIENTS; i++) {
        float want = leaf ? 0.3f * leaf->ambient[i] : 0;
        want = want < 8 ? 0 : want;
        float *v = &a->ambient_vol[i];
        *v = *v < want ? (*v + step < want ? *v + step : want)
                       : (*v - step > want ? *v - step : want);
        if (*v < 1)
            continue;
        snd_loop *l = &out[k];
        l->id = snd_bank_find(a->bank, level_fs(a, cl), cl->level.game, names[i]);
        memcpy(l->origin, origin, sizeof l->origin); /* at the ear: the same in both */
        l->volume = (uint8_t)(*v > 255 ? 255 : *v);
        l->attenuation = 0;
        l->cue = 1;
        k += l->id >= 0;
    }
    return k;
}

/* The looping sounds of cl's active entities (Quake II's entity sound, attenuated as its
 * snd_dma.c SOUND_LOOPATTENUATE 0.003, which is ATTN_STATIC's dist_mult; Quake III's
 * loopSound, whose distance model has no attenuation) into out, at most APP_SND_MAX_ENTITY_LOOPS; returns how many. */
static int entity_loops(app_audio *a, const cl_state *cl, snd_loop *out)
{
    int n = 0;
    uint8_t att = cl->level.game == CL_GAME_Q2 ? 192 : 64;
    for (int k = 0; k < cl->num_listed && n < APP_SND_MAX_ENTITY_LOOPS; k++) {
        const cl_entity *e = &cl->entities[cl->active_list[k]];
        if (!e->active || !e->loop_sound)
            continue;
        snd_loop *l = &out[n];
        l->id = sound_id(a, cl, e->loop_sound);
        memcpy(l->origin, e->cur.origin, sizeof l->origin);
        l->volume = 255;
        l->attenuation = att;
        l->cue = 0; /* (whole, as S_AddLoopSounds) */
        n += l->id >= 0;
    }
    return n;
}

/* snd_mixer_follow's callback: entity's place in the state being mixed, while it is in the
 * frame. */
static int entity_place(void *ctx, int entity, float origin[3])
{
    const cl_state *cl = ctx;
    if (entity <= 0 || entity >= CL_MAX_ENTITIES || !cl->entities[entity].active)
        return 0;
    memcpy(origin, cl->entities[entity].cur.origin, 3 * sizeof *origin);
    return 1;
}

void app_audio_mix(app_audio *a, const cl_state *cl, const float origin[3],
                   const float angles[3], int listener, int64_t pos, uint32_t n, int16_t *out)
{
    if (cl)
        snd_mixer_set_game(a->mix, cl->level.game);
    /* starts are given to the mixer before the span that holds them; a start of a later
     * level stops the voices of the one before (S_StopAllSounds on a new map) */
    while (a->next < a->n && a->starts[a->next].at < pos + (int64_t)n) {
        /* the voices ended by this start's time are gone before it (a review: an export
         * from the middle got its look-back's 200 starts at once, the 64 voices filled
         * with long-ended ones and the starts still sounding at --from were turned away) */
        int64_t at = a->starts[a->next].at;
        snd_mixer_seek(a->mix, at < pos ? at : pos);
        if (a->levels[a->next] != a->mix_level && a->mix_level)
            snd_mixer_stop_all(a->mix, a->starts[a->next].at);
        a->mix_level = a->levels[a->next];
        snd_mixer_start(a->mix, &a->starts[a->next]);
        a->next++;
    }
    snd_listener l;
    snd_listener_set(&l, origin, angles);
    l.entity = listener;
    int nloops = 0;
    if (cl) {
        snd_mixer_follow(a->mix, entity_place, (void *)cl);
        update_loops(a, cl);
        nloops = a->nloops + entity_loops(a, cl, a->loops + a->nloops);
        nloops += ambient_loops(a, cl, origin, n, a->loops + nloops);
    }
    snd_mixer_mix(a->mix, pos, n, &l, a->loops, nloops, out);
}

int64_t app_audio_frame_start(int64_t k, double fps)
{
    double v = floor((double)k * SND_RATE / fps + 0.5);
    /* (saturated: past int64 the conversion was undefined; a review) */
    return v < 9.2e18 ? (v > -9.2e18 ? (int64_t)v : INT64_MIN) : INT64_MAX;
}

/* Whether path names the same file as the demo, the camera path or a -p input (the camera
 * path was overwritten by `--audio` naming it; found by a review). */
static int is_input(const app_opts *o, const char *path)
{
    struct stat a, b;
    if (stat(path, &a) != 0)
        return 0;
    if (stat(o->demo, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return 1;
    if (o->camera_path && stat(o->camera_path, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        return 1;
    for (int i = 0; i < o->num_paks; i++)
        if (stat(o->paks[i], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return 1;
    return 0;
}

/* Little-endian 16-bit samples, whatever the host. */
static void to_le(int16_t *s, size_t n)
{
    uint8_t *b = (uint8_t *)s;
    for (size_t i = 0; i < n; i++) {
        uint16_t u = (uint16_t)s[i];
        b[2 * i] = (uint8_t)u;
        b[2 * i + 1] = (uint8_t)(u >> 8);
    }
}

int app_audio_check(const app_opts *o)
{
    const char *path = o->audio;
    if (!path)
        return APP_EXIT_OK;
    if (is_input(o, path)) {
        fprintf(stderr, "qdemo: %s: is an input of this run; not overwritten\n", path);
        return APP_EXIT_OUTPUT;
    }
    struct stat st;
    size_t n = strlen(path);
    if ((n && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
        fprintf(stderr, "qdemo: %s: is a folder, not a file for the sound track\n", path);
        return APP_EXIT_OUTPUT;
    }
    /* the track is made beside it and renamed over it: a FIFO or a device (/dev/null as
     * root) would be replaced by a plain file (a review) */
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
        fprintf(stderr, "qdemo: %s: is %s, not a file for the sound track\n", path,
                qd_file_kind(st.st_mode));
        return APP_EXIT_OUTPUT;
    }
    /* its folder: there and writable (the file itself is made at the end) */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) >= sizeof dir) {
        fprintf(stderr, "qdemo: %s: path too long\n", path);
        return APP_EXIT_OUTPUT;
    }
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int why = stat(dir, &st) != 0 ? errno
              : !S_ISDIR(st.st_mode) ? ENOTDIR
              : access(dir, W_OK) != 0 ? errno
                                       : 0;
    if (why) {
        fprintf(stderr, "qdemo: %s: cannot write there: %s\n", path, strerror(why));
        return APP_EXIT_OUTPUT;
    }
    return APP_EXIT_OK;
}

int64_t app_audio_track_pos(double off, int64_t k, double fps)
{
    double kf = off * fps, k0 = floor(kf + 0.5);
    /* (on the grid within a millionth of a frame: --from 2.5 at 30 fps is frame 75, though
     * start + 2.5 - start need not give 2.5 back exactly) */
    if (kf >= 0 && kf < 1e15 && fabs(kf - k0) < 1e-6)
        return app_audio_frame_start((int64_t)k0 + k, fps);
    double p0 = floor(off * SND_RATE + 0.5);
    int64_t f = app_audio_frame_start(k, fps), sum;
    if (!(p0 > -9e18 && p0 < 9e18) || __builtin_add_overflow((int64_t)p0, f, &sum))
        return f < 0 ? INT64_MIN : INT64_MAX; /* (saturated, as app_audio_frame_start) */
    return sum;
}

/* The samples of frames [0, count) of a track whose first frame is off seconds after the
 * demo's start (app_audio_track_pos); UINT64_MAX when that is no number of samples. */
static uint64_t track_len(double off, int64_t count, double fps)
{
    int64_t a = app_audio_track_pos(off, 0, fps), b = app_audio_track_pos(off, count, fps), n;
    return b < a || __builtin_sub_overflow(b, a, &n) ? UINT64_MAX : (uint64_t)n;
}

int app_audio_cut(const char *path, double off, int64_t frames, double fps)
{
    uint64_t total = track_len(off, frames > 0 ? frames : 0, fps);
    uint8_t head[44];
    if (!path || !snd_wav_header(head, total))
        return 0;
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
             (uint64_t)st.st_size >= sizeof head + total * 4 &&
             ftruncate(fd, (off_t)(sizeof head + total * 4)) == 0 &&
             pwrite(fd, head, sizeof head, 0) == (ssize_t)sizeof head;
    if (close(fd) != 0)
        ok = 0;
    return ok;
}

/* How far before demo time `from` (state c0) starts can still be heard then: the level's
 * longest sound (its sounds loaded first), at most APP_SND_MAX_PREROLL; with a sound that
 * loops, back to the level's start. */
static double look_back(app_audio *a, timeline_t *tl, const cl_state *c0, double from)
{
    for (int i = 1; i < c0->level.num_sounds && i < CL_MAX_SOUNDS; i++)
        sound_id(a, c0, i);
    double pre = (double)snd_bank_longest(a->bank) / SND_RATE;
    if (pre > APP_SND_MAX_PREROLL)
        pre = APP_SND_MAX_PREROLL;
    if (c0->level.game != CL_GAME_Q3 && snd_bank_loops(a->bank)) {
        /* a sound with a loop point plays until cut, however long ago it began: every start
         * of the level that holds `from` (a review: a moving platform's loop was silent in
         * a render from its middle) */
        const tl_mark *lv = tl_find_mark(tl, from + 1e-6, -1, 1u << TL_MARK_LEVEL);
        double begin = lv && lv->time > tl_start(tl) ? lv->time : tl_start(tl);
        pre = from - begin > pre ? from - begin : pre;
    }
    return pre;
}

/* An export's ear at demo time t (state cl): the camera's place and the entity it is (0:
 * none; a free camera path is nobody). */
static int export_ear(const player *cam, int free_path, const cl_state *cl, double t,
                      r_camera *rc)
{
    if (free_path) {
        player_path_eval(cam->path, cam->path_len, t, rc);
        return 0;
    }
    player_camera(cam, cl, t, rc);
    return player_listener(cam, cl, t);
}

/* The mixer's state at an export's first frame is what the frames before made of it: which
 * voices the look-back's starts took and dropped (each taken with the ear of the frame
 * before it: its loudness, Quake III's copies on one entity), the followed voices' places,
 * Quake's ambients' fade (ambient_loops). So the `frames` frames before the first are mixed
 * here as a render's would be, from the same ear, and not written, after the ear of the one
 * before them (not mixed): on the grid of a render from the demo's start when the export's
 * first frame is on it (app_audio_track_pos), else on its own; none before the demo's start.
 * A render in pieces then joins its tracks sample for sample where the look-back reaches
 * back to everything still heard (before, each piece's look-back starts went in at once with
 * no ear, and its ambients faded in from silence). buf and cap: the export's buffer. 0 when
 * the timeline or memory ran out (err filled). */
static int mix_before(app_audio *a, timeline_t *tl, const player *cam, int free_path,
                      double start, double off, int64_t frames, double fps, int16_t **buf,
                      uint32_t *cap, qd_error *err)
{
    for (int64_t k = -frames - 1; frames > 0 && k < 0; k++) {
        double t = start + off + (double)k / fps;
        int64_t s0 = app_audio_track_pos(off, k, fps), s1 = app_audio_track_pos(off, k + 1, fps);
        if (t < start - 0.5 / fps || s1 <= s0)
            continue; /* (before the demo: a render from its start has no such frame) */
        /* the frame before the first mixed: only its ear, which the first frame's starts are
         * taken with, as a render's are with the frame's before them (a review: none, so
         * Quake III's copies rule and a steal's loudness saw no listener) */
        const int ear_only = k == -frames - 1;
        uint32_t n = ear_only ? 1 : (uint32_t)(s1 - s0); /* (fps >= 0.001: it fits) */
        if (n > *cap) {
            int16_t *nb = realloc(*buf, (size_t)n * 4);
            if (!nb) {
                qd_fail(err, QD_ERR_NOMEM, 0, "out of memory for the audio");
                return 0;
            }
            *buf = nb;
            *cap = n;
        }
        const cl_state *cl = tl_state_at(tl, t, err);
        if (!cl)
            return 0;
        r_camera rc;
        int listener = export_ear(cam, free_path, cl, t, &rc);
        app_audio_mix(a, cl, rc.origin, rc.angles, listener, ear_only ? s1 : s0,
                      ear_only ? 0 : n, *buf);
    }
    return 1;
}

int app_audio_export(const app_opts *o, timeline_t *tl, const player *cam, int free_path,
                     double from, double fps, int64_t count)
{
    const char *path = o->audio;
    /* the track on the demo's clock (app_audio_track_pos): rendered in pieces, a demo's
     * tracks join sample for sample (a loop's phase is its place on that clock) */
    const double start = tl_start(tl), off = from - start;
    uint64_t total = track_len(off, count, fps);
    uint8_t head[44];
    if (!snd_wav_header(head, total)) {
        fprintf(stderr, "qdemo: %s: %llu samples do not fit a WAV file\n", path,
                (unsigned long long)total);
        return APP_EXIT_USAGE;
    }
    int rc = app_audio_check(o); /* (again: the render's frames took a while) */
    if (rc != APP_EXIT_OK)
        return rc;
    app_audio a;
    qd_error err = {0};
    if (!app_audio_init(&a, o)) {
        fprintf(stderr, "qdemo: out of memory for the audio\n");
        return APP_EXIT_INPUT;
    }
    const cl_state *c0 = tl_state_at(tl, from, &err);
    double pre = c0 ? look_back(&a, tl, c0, from) : 0;
    /* mixed before the first frame (mix_before): twice the longest sound, as what the mixer
     * did with a start still heard at from (Quake III's copies rule, the 64 voices' steals)
     * looked at the voices of as long before it (an OpenArena bot match's pieces joined with
     * a one-second difference looking back once); at most APP_SND_MAX_PREROLL (a loop begun
     * longer ago needs no mixing for its phase, which is its place on the demo's clock) */
    double lead = 2.0 * snd_bank_longest(a.bank) / SND_RATE;
    lead = lead < APP_SND_MAX_PREROLL ? lead : APP_SND_MAX_PREROLL;
    /* in whole frames, none short of it (a review: at 0.5 fps the floor left 4 s of 5.56),
     * and at most APP_SND_MAX_WALK of them (the window's bound: 60 s at 10,000 fps was 2 s
     * of mixing before 10 frames; a render that fast joins exactly only within it) */
    int64_t lead_frames = lead > 0 && lead * fps < 1e8 ? (int64_t)ceil(lead * fps - 1e-6) : 0;
    lead_frames = lead_frames < (int64_t)APP_SND_MAX_WALK ? lead_frames : APP_SND_MAX_WALK;
    lead = (double)(lead_frames + 1) / fps; /* (and the frame before them: its starts) */
    pre = pre > lead ? pre : lead;
    double to = from + (double)count / fps;
    int16_t *buf = NULL;
    uint32_t cap = 0;
    if (!c0 || !app_audio_collect(&a, tl, from - pre, to, start, &err) ||
        !mix_before(&a, tl, cam, free_path, start, off, lead_frames, fps, &buf, &cap, &err)) {
        app_report(o->demo, &err);
        free(buf);
        app_audio_free(&a);
        return APP_EXIT_INPUT;
    }
    char *tmp = NULL;
    int fd = qd_create_temp(path, &tmp);
    if (fd < 0) {
        fprintf(stderr, "qdemo: %s: %s\n", path, strerror(errno));
        free(buf);
        app_audio_free(&a);
        return APP_EXIT_OUTPUT;
    }
    int ok = qd_write_all(fd, head, sizeof head);
    for (int64_t k = 0; ok && k < count; k++) {
        int64_t s0 = app_audio_track_pos(off, k, fps), s1 = app_audio_track_pos(off, k + 1, fps);
        uint32_t n = (uint32_t)(s1 - s0);
        if (n > cap) {
            int16_t *nb = realloc(buf, (size_t)n * 4);
            if (!nb) {
                ok = 0;
                break;
            }
            buf = nb;
            cap = n;
        }
        double t = from + (double)k / fps;
        const cl_state *cl = tl_state_at(tl, t, &err);
        if (!cl) {
            ok = 0;
            break;
        }
        r_camera rc;
        int listener = export_ear(cam, free_path, cl, t, &rc);
        app_audio_mix(&a, cl, rc.origin, rc.angles, listener, s0, n, buf);
        to_le(buf, (size_t)n * 2);
        ok = qd_write_all(fd, buf, (size_t)n * 4);
    }
    free(buf);
    if (ok && fsync(fd) != 0 && errno != EINVAL)
        ok = 0;
    if (close(fd) != 0)
        ok = 0;
    if (ok && rename(tmp, path) != 0)
        ok = 0;
    if (!ok) {
        fprintf(stderr, "qdemo: %s: %s\n", path, errno ? strerror(errno) : "cannot be written");
        unlink(tmp);
    }
    free(tmp);
    app_audio_free(&a);
    return ok ? APP_EXIT_OK : APP_EXIT_OUTPUT;
}

uint32_t app_audio_play(app_audio *a, timeline_t *tl, const cl_state **clp, double t,
                        double speed, const float origin[3], const float angles[3],
                        int listener, int live, int16_t *out, uint32_t max, qd_error *err)
{
    /* the play clock: sample 0 at demo time clock0, the demo going speed seconds a second;
     * each sound at its own pitch, started when the demo reaches it (a game's timescale) */
    double sp = speed >= 1.0 / 64 && speed <= 64 ? speed : 1;
    a->restarted = 0;
    int64_t target = llround((t - a->clock0) * SND_RATE / sp);
    if (!live || !a->live || sp != a->speed || t < a->heard_until ||
        target - a->play_pos > (int64_t)max) {
        /* a seek, a pause, another speed, a stall: what played stops; start again just
         * before t */
        snd_mixer_stop_all(a->mix, INT64_MIN);
        a->n = a->next = 0;
        a->heard_until = t;
        a->clock0 = t;
        a->speed = sp;
        target = 0;
        a->play_pos = -SND_RATE / 20;
        a->live = live;
        if (!live)
            return 0;
        a->restarted = 1;
        /* with what began before t and still sounds (a long sound, a loop begun at the
         * level's start), as an export from t has (a review: after a seek or a pause a
         * lift's loop was silent until it started again) */
        if (tl) {
            double pre = look_back(a, tl, *clp, t) * sp; /* (in demo seconds) */
            if (pre > APP_SND_MAX_PREROLL) /* (a window's seek walks at most a minute of
                                            * demo: ~40 ms for a Quake demo here; a loop
                                            * begun longer ago is heard when started again) */
                pre = APP_SND_MAX_PREROLL;
            /* and at most APP_SND_MAX_WALK frames, the latest (a review: a demo of 20,000
             * frames a second made each walk half a second) */
            uint32_t last = frame_before(tl, t), first = frame_before(tl, t - pre);
            if (last - first > APP_SND_MAX_WALK &&
                tl_frame_time(tl, last - APP_SND_MAX_WALK) > t - pre)
                pre = t - tl_frame_time(tl, last - APP_SND_MAX_WALK);
            qd_error e = {0};
            if (pre > 0 && !app_audio_collect(a, tl, t - pre, t, a->clock0, &e))
                a->n = a->next = 0; /* (then only what starts from t on) */
            *clp = tl_state_at(tl, t, err); /* the walk moved the timeline's state */
            if (!*clp)
                return 0;
        }
    }
    const cl_state *cl = *clp;
    app_audio_take(a, cl, a->heard_until, t, a->clock0);
    a->heard_until = t;
    uint32_t n = target > a->play_pos ? (uint32_t)(target - a->play_pos) : 0;
    if (n > max)
        n = max;
    if (n)
        app_audio_mix(a, cl, origin, angles, listener, a->play_pos, n, out);
    a->play_pos += n;
    /* the list keeps only what the mixer has not taken */
    if (a->next == a->n)
        a->n = a->next = 0;
    return n;
}
