/* timeline.c: one indexing pass, packed keyframes, and seeking by restore-and-decode. */
#include "timeline.h"

#include "pack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/file.h"

/* Keyframes are placed by the bytes decoded since the last one, so a seek decodes at most
 * that many bytes and indexing costs little more than a plain decode (a demo shorter than
 * the spacing gets none: a seek decodes from the start). The spacing is a couple of
 * milliseconds of decoding on one core: 512 KiB for the Quake, QuakeWorld and Quake II
 * decoders (200-600 MB/s in `make bench`), 128 KiB for Quake III's Huffman-coded stream
 * (60-110 MB/s). A caller may ask for keyframes by demo time instead (tl_open's
 * keyframe_interval: the tests, to seek often). */
#define TL_KEY_SPACING (512u << 10)
#define TL_KEY_SPACING_Q3 (128u << 10)
#define TL_MAX_MARKS 100000
/* Frames a timeline indexes, 8 bytes each (128 MiB): over 60 hours at 77 frames a second.
 * A variable so that a test can reach it with a real demo (timeline.h). */
uint32_t tl_max_frames = TL_MAX_FRAMES;
uint64_t tl_seek_bytes = TL_SEEK_BYTES;
_Static_assert(CL_KEYFRAME_BYTES % 8 == 0, "keyframes pack the client state in whole words");
/* A keyframe also needs this many bytes decoded since the last one, so a hostile file whose
 * every tiny block jumps time ahead cannot make one per block; and keyframes together stay
 * under TL_MAX_KEY_BYTES: past it every other one goes and the interval doubles. */
#define TL_MIN_KEY_SPACING 4096
#define TL_MAX_KEY_BYTES (64u << 20)

/* Keyframes are packed one after another into blocks of KEY_BLOCK bytes or more (a block
 * holds at least one keyframe's worst case), on 2 MiB boundaries, which Linux may back with
 * huge pages (madvise MADV_HUGEPAGE). On this project's VM a page fault costs about 10 us:
 * written into a fresh malloc block each, a 15-minute Quake III demo's 2.6 MB of keyframes
 * took 640 or more faults, and indexing took 1.6x a plain decode instead of 1.1-1.3x
 * (measured 2026-12-01; glibc's own glibc.malloc.hugetlb=1 gave the same 1.1-1.3x). A
 * block's untouched pages cost nothing. */
#define KEY_BLOCK ((size_t)8 << 20)
#define KEY_ALIGN ((size_t)2 << 20)
typedef struct key_block {
    uint8_t *base;
    size_t used, size;
} key_block;

typedef struct tl_keyframe {
    double time;          /* cl->time of the saved state */
    uint64_t offset;      /* demo_offset there */
    uint8_t *blob;        /* pack(decoder state || CL_KEYFRAME_BYTES of the client state) */
    uint32_t blob_len;
} tl_keyframe;

struct timeline {
    demo_t *demo;
    double interval;
    double *frame_times;
    uint32_t num_frames, cap_frames;
    tl_mark *marks;
    int num_marks, cap_marks;
    tl_keyframe *keys;
    int num_keys, cap_keys;
    size_t key_bytes;
    uint64_t key_spacing; /* bytes between keyframes (0: by interval, in demo seconds) */
    int complete;
    qd_error error;

    /* The live decode: the state the next tl_state_at continues from. */
    cl_state *cl;
    double live_before;   /* cl->time before the step that reached the live state */
    int live_valid;       /* cl holds "the state at t" for t in (live_before, cl->time] */
    int live_done;        /* the decoder reached the end or an error */
    double live_origin;   /* the keyframe time the live decode began from (-1e30: the start);
                           * its effects log holds only what came after, so it gives the
                           * effects alive at t only when live_origin < t - CL_LOG_WINDOW */
    uint8_t *scratch;     /* decoder state + keyframe part of the client state */
    size_t scratch_len;
    key_block *blocks;    /* where the keyframes' packed bytes live; the last is filled */
    int num_blocks;
};

static const char *const mark_names[TL_MARK_KINDS] = {"level", "frag", "death", "chat",
                                                       "intermission", "pause"};

const char *tl_mark_kind_name(tl_mark_kind k)
{
    return (unsigned)k < TL_MARK_KINDS ? mark_names[k] : "?";
}

static void plain_text(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p && n + 1 < cap; p++) {
        unsigned c = *p & 0x7f;
        if (c == '\n' || c == '\r')
            continue;
        dst[n++] = (char)(c < 32 ? ' ' : c);
    }
    dst[n] = 0;
}

static void add_mark(timeline_t *tl, double t, tl_mark_kind kind, const char *text)
{
    if (tl->num_marks >= TL_MAX_MARKS)
        return;
    if (tl->num_marks == tl->cap_marks) {
        int ncap = tl->cap_marks ? tl->cap_marks * 2 : 64;
        tl_mark *nm = realloc(tl->marks, (size_t)ncap * sizeof *nm);
        if (!nm)
            return;
        tl->marks = nm;
        tl->cap_marks = ncap;
    }
    /* in time order: a step that held frames before a level's start stamps that level's
     * mark with its end, before the step's earlier events (a review: PgDn and PgUp then
     * passed marks by); only within one step, so the shift is short */
    int at = tl->num_marks++;
    while (at > 0 && tl->marks[at - 1].time > t) {
        tl->marks[at] = tl->marks[at - 1];
        at--;
    }
    tl_mark *m = &tl->marks[at];
    m->time = t;
    m->kind = (uint8_t)kind;
    plain_text(m->text, sizeof m->text, text);
}

static int add_frame(timeline_t *tl, double t)
{
    if (tl->num_frames == tl->cap_frames) {
        uint32_t ncap = tl->cap_frames ? tl->cap_frames * 2 : 1024;
        double *nf = realloc(tl->frame_times, ncap * sizeof *nf);
        if (!nf)
            return 0;
        tl->frame_times = nf;
        tl->cap_frames = ncap;
    }
    tl->frame_times[tl->num_frames++] = t;
    return 1;
}

/* Room for need bytes at the end of the last block (a new block when it has none);
 * NULL when memory is short. */
static uint8_t *key_room(timeline_t *tl, size_t need)
{
    key_block *last = tl->num_blocks ? &tl->blocks[tl->num_blocks - 1] : NULL;
    if (last && last->size - last->used >= need)
        return last->base + last->used;
    size_t size = need > KEY_BLOCK ? (need + KEY_ALIGN - 1) / KEY_ALIGN * KEY_ALIGN : KEY_BLOCK;
    key_block *nb = realloc(tl->blocks, (size_t)(tl->num_blocks + 1) * sizeof *nb);
    if (!nb)
        return NULL;
    tl->blocks = nb;
    uint8_t *base = qd_alloc_bulk(size); /* (2 MiB-aligned, asked for huge pages) */
    if (!base)
        return NULL;
    nb[tl->num_blocks].base = base;
    nb[tl->num_blocks].used = 0;
    nb[tl->num_blocks].size = size;
    tl->num_blocks++;
    return base;
}

/* The bytes just written at key_room's place taken (kept 8-byte aligned). */
static void key_took(timeline_t *tl, size_t n)
{
    key_block *last = &tl->blocks[tl->num_blocks - 1];
    last->used += (n + 7) & ~(size_t)7;
    last->used = last->used < last->size ? last->used : last->size;
}

static void blocks_free(key_block *b, int n)
{
    for (int i = 0; i < n; i++)
        free(b[i].base);
    free(b);
}

static int save_keyframe(timeline_t *tl)
{
    demo_t *d = tl->demo;
    size_t ds = demo_state_size(d);
    /* packed straight into its block: only the bytes written are touched. The two parts
     * are packed one after the other (runs never need to cross them) when both are whole
     * words; else through the scratch copy. */
    uint8_t *buf = key_room(tl, tl_pack_bound(tl->scratch_len));
    if (!buf)
        return 0;
    size_t cap;
    if (ds % 8 == 0) {
        cap = tl_pack(demo_state(d), ds, buf);
        cap += tl_pack((const uint8_t *)tl->cl, CL_KEYFRAME_BYTES, buf + cap);
    } else {
        memcpy(tl->scratch, demo_state(d), ds);
        memcpy(tl->scratch + ds, tl->cl, CL_KEYFRAME_BYTES); /* not the effects log */
        cap = tl_pack(tl->scratch, tl->scratch_len, buf);
    }
    if (tl->num_keys == tl->cap_keys) {
        int ncap = tl->cap_keys ? tl->cap_keys * 2 : 32;
        tl_keyframe *nk = realloc(tl->keys, (size_t)ncap * sizeof *nk);
        if (!nk)
            return 0;
        tl->keys = nk;
        tl->cap_keys = ncap;
    }
    key_took(tl, cap);
    tl_keyframe *k = &tl->keys[tl->num_keys++];
    k->time = tl->cl->time;
    k->offset = demo_offset(d);
    k->blob = buf;
    k->blob_len = (uint32_t)cap;
    tl->key_bytes += cap;
    if (tl->key_bytes > TL_MAX_KEY_BYTES) {
        /* every other one kept, copied into new blocks (the old ones freed whole) */
        key_block *old = tl->blocks;
        int old_n = tl->num_blocks, n = 0;
        tl->blocks = NULL;
        tl->num_blocks = 0;
        tl->key_bytes = 0;
        for (int i = 0; i < tl->num_keys; i++) {
            if (i % 2 == 0 || i == tl->num_keys - 1) {
                uint8_t *to = key_room(tl, tl->keys[i].blob_len);
                if (!to) {
                    blocks_free(old, old_n);
                    tl->num_keys = n;
                    return 0;
                }
                memcpy(to, tl->keys[i].blob, tl->keys[i].blob_len);
                key_took(tl, tl->keys[i].blob_len);
                tl->keys[n] = tl->keys[i];
                tl->keys[n++].blob = to;
                tl->key_bytes += tl->keys[i].blob_len;
            }
        }
        blocks_free(old, old_n);
        tl->num_keys = n;
        tl->interval *= 2;
        tl->key_spacing *= 2;
    }
    return 1;
}

static int load_keyframe(timeline_t *tl, const tl_keyframe *k)
{
    if (!tl_unpack(k->blob, k->blob_len, tl->scratch, tl->scratch_len))
        return 0;
    size_t ds = demo_state_size(tl->demo);
    demo_restore(tl->demo, tl->scratch);
    memcpy(tl->cl, tl->scratch + ds, CL_KEYFRAME_BYTES);
    cl_fxlog_clear(tl->cl);
    return 1;
}

/* A player's name for a mark, or "world" for no one. */
static const char *slot_name(const cl_state *cl, int slot)
{
    return slot >= 0 && slot < CL_MAX_PLAYERS && cl->players[slot].name[0]
               ? cl->players[slot].name
               : "world";
}

/* Marks from what one step changed. Deaths and chat come from the decoders' typed events
 * (each game's rules for recognising them live with its decoder); levels, intermission and
 * pauses from the neutral state. */
static void note_changes(timeline_t *tl, uint32_t levels, uint32_t events, uint8_t inter,
                         uint8_t paused)
{
    const cl_state *cl = tl->cl;
    double t = cl->time;
    if (cl->level_count != levels) {
        char text[160];
        snprintf(text, sizeof text, "%s %s", cl->level.map, cl->level.title);
        add_mark(tl, t, TL_MARK_LEVEL, text);
    }
    uint32_t first = events;
    if (cl->event_count - first > CL_MAX_EVENTS)
        first = cl->event_count - CL_MAX_EVENTS; /* a step adds far fewer than the ring holds */
    for (uint32_t i = first; i != cl->event_count; i++) {
        const cl_event *e = cl_event_get(cl, i);
        char text[192];
        if (!e)
            continue;
        if (e->kind == CL_EV_CHAT) {
            snprintf(text, sizeof text, "%s: %s", slot_name(cl, e->actor), e->text);
            add_mark(tl, e->time, TL_MARK_CHAT, text);
        } else if (e->kind == CL_EV_FRAG) {
            if (e->flags & CL_EVF_SUICIDE)
                snprintf(text, sizeof text, "%s died", slot_name(cl, e->target));
            else
                snprintf(text, sizeof text, "%s killed by %s", slot_name(cl, e->target),
                         slot_name(cl, e->actor));
            add_mark(tl, e->time, TL_MARK_DEATH, text);
        }
    }
    if (cl->intermission && !inter)
        add_mark(tl, t, TL_MARK_INTERMISSION, "intermission");
    if (cl->paused && !paused)
        add_mark(tl, t, TL_MARK_PAUSE, "paused");
}

/* A frag mark is a rise in a player's count over the last value the demo gave; the first
 * value a player shows (joining mid-game, a new level) is no mark. */
typedef struct frag_watch {
    int32_t frags[CL_MAX_PLAYERS];
    uint8_t known[CL_MAX_PLAYERS];
    uint32_t player_gen; /* cl->player_gen when last looked at */
} frag_watch;

/* After a step (levels: the level count before it): marks for the frags that rose. The
 * players are only looked at when one's frags or presence changed (cl->player_gen). */
static void note_frags(timeline_t *tl, uint32_t levels, frag_watch *fw)
{
    const cl_state *cl = tl->cl;
    if (cl->level_count != levels)
        memset(fw->known, 0, sizeof fw->known);
    else if (cl->player_gen == fw->player_gen)
        return;
    fw->player_gen = cl->player_gen;
    for (int i = 0; i < CL_MAX_PLAYERS; i++) {
        const cl_player *p = &cl->players[i];
        if (!p->active) {
            fw->known[i] = 0;
            continue;
        }
        if (fw->known[i] && p->frags > fw->frags[i]) {
            char text[96];
            snprintf(text, sizeof text, "%s: %d frags", p->name, (int)p->frags);
            add_mark(tl, cl->time, TL_MARK_FRAG, text);
        }
        fw->frags[i] = p->frags;
        fw->known[i] = 1;
    }
}

timeline_t *tl_open(demo_t *d, double keyframe_interval, qd_error *err)
{
    timeline_t *tl = calloc(1, sizeof *tl);
    if (!tl) {
        demo_close(d);
        qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    tl->demo = d;
    tl->interval = keyframe_interval > 0 ? keyframe_interval : 0;
    tl->key_spacing = keyframe_interval > 0                  ? 0
                      : demo_get_format(d) == DEMO_FMT_DM3 ? TL_KEY_SPACING_Q3
                                                           : TL_KEY_SPACING;
    tl->cl = calloc(1, sizeof *tl->cl);
    /* whole 8-byte words for the packing (the tail word's spare bytes stay zero) */
    tl->scratch_len = (demo_state_size(d) + CL_KEYFRAME_BYTES + 7) & ~(size_t)7;
    tl->scratch = calloc(1, tl->scratch_len);
    if (!tl->cl || !tl->scratch) {
        tl_close(tl);
        qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    cl_reset_zeroed(tl->cl);
    if (demo_rewind(d, &tl->error) != QD_OK) {
        *err = tl->error;
        tl_close(tl);
        return NULL;
    }

    frag_watch fw;
    memset(&fw, 0, sizeof fw);
    double next_key = -1e30;
    uint64_t last_key_ofs = 0;
    int done = 0;
    tl->complete = 1;
    while (!done) {
        cl_state *cl = tl->cl;
        uint32_t frames = cl->frame_count, levels = cl->level_count, events = cl->event_count;
        uint8_t inter = cl->intermission, paused = cl->paused;
        /* A keyframe sits on a block boundary, before the step, once a frame exists: every
         * key_spacing bytes (none before the first: a seek there decodes from the start),
         * or by demo time when asked (then TL_MIN_KEY_SPACING bytes apart at least). */
        int due = tl->key_spacing
                      ? demo_offset(d) >= last_key_ofs + tl->key_spacing
                      : cl->time >= next_key && (tl->num_keys == 0 ||
                                                 demo_offset(d) >= last_key_ofs + TL_MIN_KEY_SPACING);
        if (cl->frame_count > 0 && due) {
            last_key_ofs = demo_offset(d);
            if (!save_keyframe(tl)) {
                qd_fail(err, QD_ERR_NOMEM, demo_offset(d), "out of memory for keyframes");
                tl_close(tl);
                return NULL;
            }
            next_key = cl->time + tl->interval;
        }
        if (tl->num_frames >= tl_max_frames) {
            /* (a review: 107 M frames of 10 bytes, 2 MB gzipped, made a 0.9 GB index) */
            tl->complete = 0;
            qd_fail(&tl->error, QD_ERR_LIMIT, demo_offset(d),
                    "more than %u frames: the rest is left out", tl_max_frames);
            break;
        }
        qd_err r = demo_step(d, cl, NULL, &done, &tl->error);
        if (cl->frame_count != frames && !add_frame(tl, cl->time)) {
            qd_fail(err, QD_ERR_NOMEM, demo_offset(d), "out of memory for the frame index");
            tl_close(tl);
            return NULL;
        }
        note_changes(tl, levels, events, inter, paused);
        note_frags(tl, levels, &fw);
        if (r != QD_OK) {
            tl->complete = 0;
            break;
        }
    }
    if (tl->complete && demo_check_end(d, &tl->error) != QD_OK)
        tl->complete = 0; /* everything decoded, but the recording was cut at a block */
    if (demo_num_damaged(d) > 0) {
        /* Damaged blocks were skipped (demo_step): the first is the one to report. */
        tl->complete = 0;
        tl->error = demo_damaged(d, 0)->why;
    }
    if (tl->num_frames == 0 && !tl->complete) {
        *err = tl->error;
        tl_close(tl);
        return NULL;
    }
    /* Leave the live decode at the start; the client state is reset (or a keyframe loaded)
     * by the first tl_state_at, as live_valid is 0. */
    demo_rewind(d, NULL);
    tl->live_valid = 0;
    tl->live_done = 0;
    tl->live_origin = -1e30;
    return tl;
}

void tl_close(timeline_t *tl)
{
    if (!tl)
        return;
    blocks_free(tl->blocks, tl->num_blocks);
    free(tl->keys);
    free(tl->frame_times);
    free(tl->marks);
    free(tl->cl);
    free(tl->scratch);
    demo_close(tl->demo);
    free(tl);
}

/* Decode forward until a frame at time >= t has ended (or the demo stops). */
static void advance(timeline_t *tl, double t)
{
    cl_state *cl = tl->cl;
    while (!tl->live_done && !(cl->frame_count > 0 && cl->time >= t)) {
        /* no frame before the step: no earlier step is the state at any t (a review: the
         * first frame's time was never served from the state held, a frameless demo was
         * decoded whole at every seek) */
        double before = cl->frame_count > 0 ? cl->time : -1e30;
        int done = 0;
        qd_error e;
        qd_err r = demo_step(tl->demo, cl, NULL, &done, &e);
        tl->live_before = before;
        if (r != QD_OK || done)
            tl->live_done = 1;
    }
    tl->live_valid = 1;
}

/* The last keyframe whose time is below t, -1 none. */
static int key_before(const timeline_t *tl, double t)
{
    int lo = 0, hi = tl->num_keys - 1, k = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (tl->keys[mid].time < t) {
            k = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return k;
}

const cl_state *tl_state_at(timeline_t *tl, double t, qd_error *err)
{
    cl_state *cl = tl->cl;
    /* The last keyframe strictly before t - CL_LOG_WINDOW: every effect and mark alive at
     * t starts after it, so decoding on from it fills the logs as playing through did. But
     * at most tl_seek_bytes before the last keyframe before t: a hostile file of 80 MB within
     * those seconds cost a second a seek (a review); past it the effects begun earlier are
     * left out, which no real demo reaches (10 s of the densest is a few hundred KB). */
    int k = key_before(tl, t - CL_LOG_WINDOW);
    if (k >= 0) {
        /* (strictly before t: a keyframe at t may hold blocks after the first that reached
         * t, so restoring it gave a later state; a review) */
        int j = key_before(tl, t);
        uint64_t near = tl->keys[j].offset;
        if (near - tl->keys[k].offset > tl_seek_bytes) {
            int lo = k + 1, hi = j; /* the first key within the bound */
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (near - tl->keys[mid].offset > tl_seek_bytes)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            k = lo;
        }
    }
    /* Already there? Not when the live decode began too late to hold the effects alive at t
     * (a seek back from a keyframe restored for a later time; fuzz_timeline found it): it
     * must have begun at keyframe k or before it (or at the start, when k is none). */
    int log_covers = tl->live_origin <= (k >= 0 ? tl->keys[k].time : -1e30);
    if (tl->live_valid && log_covers && (cl->frame_count > 0 || tl->live_done) &&
        t > tl->live_before && (t <= cl->time || tl->live_done))
        return cl;
    /* Continue from the live state when it is at or past that keyframe and before t. */
    int can_continue = tl->live_valid && log_covers && cl->frame_count > 0 && cl->time < t &&
                       (k < 0 || cl->time >= tl->keys[k].time);
    if (!can_continue) {
        if (k >= 0) {
            if (!load_keyframe(tl, &tl->keys[k])) {
                qd_fail(err, QD_ERR_NOMEM, 0, "keyframe %d could not be restored", k);
                return NULL;
            }
            tl->live_origin = tl->keys[k].time;
        } else {
            demo_rewind(tl->demo, NULL);
            cl_clear(cl);
            tl->live_origin = -1e30;
        }
        tl->live_done = 0;
        tl->live_before = -1e30;
    }
    advance(tl, t);
    return cl;
}

double tl_next_frame(const timeline_t *tl, double t)
{
    int lo = 0, hi = (int)tl->num_frames - 1, best = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (tl->frame_times[mid] > t + 1e-9) {
            best = mid;
            hi = mid - 1;
        } else {
            lo = mid + 1;
        }
    }
    return best >= 0 ? tl->frame_times[best] : t;
}

double tl_prev_frame(const timeline_t *tl, double t)
{
    int lo = 0, hi = (int)tl->num_frames - 1, best = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (tl->frame_times[mid] < t - 1e-9) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best >= 0 ? tl->frame_times[best] : t;
}

double tl_start(const timeline_t *tl) { return tl->num_frames ? tl->frame_times[0] : 0; }
double tl_end(const timeline_t *tl)
{
    return tl->num_frames ? tl->frame_times[tl->num_frames - 1] : 0;
}
uint32_t tl_num_frames(const timeline_t *tl) { return tl->num_frames; }
double tl_frame_time(const timeline_t *tl, uint32_t i)
{
    return i < tl->num_frames ? tl->frame_times[i] : 0;
}
int tl_num_marks(const timeline_t *tl) { return tl->num_marks; }
const tl_mark *tl_get_mark(const timeline_t *tl, int i)
{
    return i >= 0 && i < tl->num_marks ? &tl->marks[i] : NULL;
}

const tl_mark *tl_find_mark(const timeline_t *tl, double t, int dir, unsigned kinds)
{
    if (dir > 0) {
        for (int i = 0; i < tl->num_marks; i++)
            if (tl->marks[i].time > t + 1e-6 && (kinds >> tl->marks[i].kind & 1))
                return &tl->marks[i];
    } else {
        for (int i = tl->num_marks - 1; i >= 0; i--)
            if (tl->marks[i].time < t - 1e-6 && (kinds >> tl->marks[i].kind & 1))
                return &tl->marks[i];
    }
    return NULL;
}

int tl_complete(const timeline_t *tl) { return tl->complete; }
const qd_error *tl_error(const timeline_t *tl) { return &tl->error; }
demo_t *tl_demo(timeline_t *tl) { return tl->demo; }
int tl_num_keyframes(const timeline_t *tl) { return tl->num_keys; }

size_t tl_index_bytes(const timeline_t *tl)
{
    size_t n = (size_t)tl->num_frames * sizeof(double) + (size_t)tl->num_marks * sizeof(tl_mark);
    for (int i = 0; i < tl->num_keys; i++)
        n += tl->keys[i].blob_len + sizeof(tl_keyframe);
    return n;
}

double tl_live_origin(const timeline_t *tl) { return tl->live_origin; }
