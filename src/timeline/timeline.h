/* timeline.h: the demo's index and instant seeking, the same for every format.
 *
 * tl_open() makes one pass over the demo: it records every frame's time, event marks
 * (level changes, frags, deaths, chat, intermission, pauses) and, every 512 KiB of input
 * (128 KiB for Quake III), a keyframe: the decoder's state and the client state without
 * its effects log (CL_KEYFRAME_BYTES), copied (DESIGN.md decision 2) and packed (pack.h). tl_state_at(t) then
 * restores the nearest keyframe before t - CL_LOG_WINDOW, empties the effects log and decodes
 * forward, so the effects alive at t (cl_fx_at) are also the same as after playing.
 *
 * "The state at time t" is defined once, here: the client state right after the first block
 * whose end leaves a frame at time >= t (or the final state, past the end). Play-through and
 * seeking both reach it the same way, so a frame rendered after a seek is byte-identical to
 * the same frame reached by playing from the start.
 *
 * The timeline sits above src/demo and src/client because it drives the one and copies the
 * other. It owns the demo_t it is given. */
#ifndef QD_TIMELINE_H
#define QD_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "../client/cl.h"
#include "../common/err.h"
#include "../demo/demo.h"

typedef enum tl_mark_kind {
    TL_MARK_LEVEL,        /* a level starts */
    TL_MARK_FRAG,         /* a player's frag count went up */
    TL_MARK_DEATH,        /* a death (the decoder's CL_EV_FRAG event) */
    TL_MARK_CHAT,         /* a chat line (CL_EV_CHAT) */
    TL_MARK_INTERMISSION, /* the end-of-level screen */
    TL_MARK_PAUSE,        /* the game was paused */
    TL_MARK_KINDS
} tl_mark_kind;

typedef struct tl_mark {
    double time;
    uint8_t kind;  /* tl_mark_kind */
    char text[96]; /* the print, or "name: 12 frags" */
} tl_mark;

typedef struct timeline timeline_t;

/* Index a demo (taking ownership of d, also on failure). keyframe_interval > 0 places
 * keyframes by demo seconds instead of by bytes (0 = the default, by bytes). A demo that fails to decode part way is still indexed up
 * to the damage: the error is stored (tl_error) and NULL is returned only when nothing
 * could be decoded or memory ran out (err filled). */
timeline_t *tl_open(demo_t *d, double keyframe_interval, qd_error *err);
/* The most frames a timeline indexes (TL_MAX_FRAMES, 2^24); past it the rest of the demo is
 * left out as after a cut, said with its byte. Only a test changes it. */
#define TL_MAX_FRAMES (1u << 24)
extern uint32_t tl_max_frames;
/* A seek decodes from the keyframe before its time less the effects' window (CL_LOG_WINDOW),
 * but from at most this many bytes before the last keyframe before its time (4 MiB: about 15 ms
 * at 300 MB/s, 70 ms at Quake III's 60 MB/s); only a test changes it. */
#define TL_SEEK_BYTES ((uint64_t)4 << 20)
extern uint64_t tl_seek_bytes;
/* The time of the keyframe the state last returned was decoded from (-1e30: the demo's
 * start): for tests. */
double tl_live_origin(const timeline_t *tl);
void tl_close(timeline_t *tl);

/* The client state at demo time t (see above). The pointer stays valid until the next call
 * on tl; the state must not be changed. NULL only when out of memory (err filled). */
const cl_state *tl_state_at(timeline_t *tl, double t, qd_error *err);

/* Step to the next or previous recorded frame from time t: the time of that frame (t itself
 * when there is none). */
double tl_next_frame(const timeline_t *tl, double t);
double tl_prev_frame(const timeline_t *tl, double t);

double tl_start(const timeline_t *tl);  /* time of the first frame */
double tl_end(const timeline_t *tl);    /* time of the last frame */
uint32_t tl_num_frames(const timeline_t *tl);
double tl_frame_time(const timeline_t *tl, uint32_t i);
int tl_num_marks(const timeline_t *tl);
const tl_mark *tl_get_mark(const timeline_t *tl, int i);
/* The first mark after t (+1) or the last before t (-1) whose kind is in kinds (a mask of
 * 1 << tl_mark_kind; TL_MARKS_ALL for any), or NULL. */
const tl_mark *tl_find_mark(const timeline_t *tl, double t, int dir, unsigned kinds);
#define TL_MARKS_ALL ((1u << TL_MARK_KINDS) - 1)
/* The marks worth jumping to: levels, frags, deaths, intermissions (not chat, not pauses). */
#define TL_MARKS_EVENTS                                                                    \
    (1u << TL_MARK_LEVEL | 1u << TL_MARK_FRAG | 1u << TL_MARK_DEATH | 1u << TL_MARK_INTERMISSION)
const char *tl_mark_kind_name(tl_mark_kind k);

/* Whether the whole demo decoded; if not, the error that stopped it. */
int tl_complete(const timeline_t *tl);
const qd_error *tl_error(const timeline_t *tl);
demo_t *tl_demo(timeline_t *tl);

/* Memory held by the index (frame times, marks, keyframes), for the benchmark. */
size_t tl_index_bytes(const timeline_t *tl);
int tl_num_keyframes(const timeline_t *tl);


#endif
