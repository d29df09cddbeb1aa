/* app_sound.h: the demo's sound for play and render: sound starts gathered from the client
 * state, found on the level's search path, mixed from the camera (src/sound). */
#ifndef QD_APP_SOUND_H
#define QD_APP_SOUND_H

#include <stdint.h>

#include "../model/model.h"
#include "../sound/snd.h"
#include "app.h"

#define APP_SND_MAX_ENTITY_LOOPS 62     /* entities' looping sounds mixed at once, besides
                                         * the static ones and Quake's two ambients */
#define APP_SND_AMBIENTS 2
#define APP_SND_MAX_STARTS (1u << 20) /* sound starts one export keeps (more are not heard) */
#define APP_SND_MAX_PREROLL 60.0      /* seconds before the span searched for sounds that
                                       * are still playing at its start */
#define APP_SND_MAX_WALK 20000u       /* frames the window's look-back walks at most */

/* Sounds, their search path and a mixer. Owns all of them. */
typedef struct app_audio {
    const app_opts *o;
    snd_bank *bank;
    snd_mixer *mix;
    pak_fs *fs;           /* the search path of level fs_level (0: none yet) */
    uint32_t fs_level;
    /* the static (looping) sounds of loops_level, then the entities' loops of the span */
    snd_loop loops[CL_MAX_STATIC_SOUNDS + APP_SND_MAX_ENTITY_LOOPS + APP_SND_AMBIENTS];
    int nloops;
    uint32_t loops_level;
    /* Quake's ambient sounds: the level's map (for the listener's leaf) and each ambient's
     * current volume, fading toward the leaf's (0..255) */
    mdl_bsp *map;
    uint32_t map_level;
    float ambient_vol[2];
    /* collected starts, in time order, and the level each belongs to */
    snd_start *starts;
    uint32_t *levels;
    size_t n, cap, next; /* next: the first not yet given to the mixer */
    uint32_t mix_level;  /* the level of the last start given to the mixer */
    /* play: the demo time up to which the log was read, the next sample to mix */
    double heard_until;
    int64_t play_pos;
    int live;
    /* the clock of the sample positions: sample 0 at demo time clock0, the demo going speed
     * seconds a sample second (an export: its start, 1; play: where it last restarted and
     * the window's speed) */
    double clock0, speed;
    int restarted;    /* play: the last call started the sound again, with its look-back
                       * (its samples begin a new lead: what the device still holds is to be
                       * dropped, and the walk's time is not the demo's) */
} app_audio;

/* An empty audio state reading sounds through o's search path. Returns 0 when out of memory. */
int app_audio_init(app_audio *a, const app_opts *o);
void app_audio_free(app_audio *a);

/* Take the sound starts of cl's log with t0 in [t_begin, t_end) into a's list, on a clock
 * where demo time clock0 is sample 0: each is found on the level's search path (missing
 * ones are silent), entity sounds without an origin take the entity's. Starts must be
 * added in time order. */
void app_audio_take(app_audio *a, const cl_state *cl, double t_begin, double t_end,
                    double clock0);

/* Walk tl's frames to collect every sound start in [t_begin, t_end) (app_audio_take).
 * Returns 0 when the timeline ran out of memory (err filled). */
int app_audio_collect(app_audio *a, timeline_t *tl, double t_begin, double t_end,
                      double clock0, qd_error *err);

/* Mix samples [pos, pos + n) of the collected starts heard from camera (origin, angles),
 * which is entity listener (its sounds at full volume in both ears; 0: none,
 * player_listener), with cl's static sounds (cl may be NULL) into out[2n]. */
void app_audio_mix(app_audio *a, const cl_state *cl, const float origin[3],
                   const float angles[3], int listener, int64_t pos, uint32_t n, int16_t *out);

/* The first sample of frame k of an export at fps: round(k * SND_RATE / fps), saturated at
 * int64's range (NaN: INT64_MAX). A render from the demo's start of count frames holds
 * app_audio_frame_start(count, fps) samples. */
int64_t app_audio_frame_start(int64_t k, double fps);
/* An export's track on the demo's clock (sample 0 at the demo's start): frame k of a render
 * whose first frame is off seconds after the start. When off is on the frame grid of a
 * render from the start (off x fps whole), that render's frame off x fps + k, so a demo
 * rendered in pieces joins sample for sample; else off's own sample plus frame k's. */
int64_t app_audio_track_pos(double off, int64_t k, double fps);
/* Cut the WAV at path (app_audio_export's, first frame off seconds after the demo's start)
 * to its first `frames` frames at fps: the file shortened and its header rewritten. 1 when
 * done. */
int app_audio_cut(const char *path, double off, int64_t frames, double fps);

/* `render --audio`: write the mix of frames [0, count) at from + k/fps, heard from the
 * export's camera, to o->audio (a new temporary file renamed at the end; refused as
 * app_audio_check refuses it). Returns an APP_EXIT_* code (reported on stderr). */
struct player;
/* Before the frames: the checks app_audio_export makes of o->audio that need no frame (an
 * input of the run, a folder, a folder that is not there or not writable), so that a bad
 * path fails at once rather than after hours of rendering. Returns an APP_EXIT_* code. */
int app_audio_check(const app_opts *o);
int app_audio_export(const app_opts *o, timeline_t *tl, const struct player *cam,
                     int free_path, double from, double fps, int64_t count);

/* play: after the window's frame at demo time t with state cl, the samples that follow: new
 * starts from cl's log, then the mix heard from the camera (origin, angles, listener as for
 * app_audio_mix) from the last mixed sample up to t (at most max
 * samples; a jump or a stall restarts from t - 0.05 s, with the starts of tl (when not NULL)
 * still heard at t, as app_audio_export looks back; that walk moves tl's state, so *clp is
 * then tl_state_at(tl, t) again: NULL on its error, err filled). live 0 (paused, scrubbing,
 * another speed): silence, everything stopped, nothing returned. Returns the sample frames
 * written to out[2 * max]. */
uint32_t app_audio_play(app_audio *a, timeline_t *tl, const cl_state **clp, double t,
                        double speed, const float origin[3], const float angles[3],
                        int listener, int live, int16_t *out, uint32_t max, qd_error *err);

#endif
