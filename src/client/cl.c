/* cl.c: the client state: applying neutral updates and interpolating between frames. */
#include "cl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void copy_name(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* Each game's camera on a body (cl_conventions); CL_GAME_NONE takes Quake's. Sources: Q1
 * QuakeC PlayerDie/ThrowHead view_ofs and SV_ClientThink (pitch = -v_angle / 3); QW
 * client/view.c V_CalcRefdef; Q2 pmove.c PM_CheckDuck (dead ducks: -2; PM_GIB 8) and
 * ClientEndServerFrame (pitch / 3); Q3 bg_public.h DEFAULT_VIEWHEIGHT, DEAD_VIEWHEIGHT. */
static const cl_conventions game_conventions[] = {
    [CL_GAME_NONE] = {22, -8, 8, -3, 90},
    [CL_GAME_Q1] = {22, -8, 8, -3, 90},
    [CL_GAME_QW] = {22, -16, 8, -3, 90},
    [CL_GAME_Q2] = {22, -2, 8, 3, 90},
    [CL_GAME_Q3] = {26, -16, -16, 1, 90},
};

void cl_reset(cl_state *cl)
{
    memset(cl, 0, sizeof *cl);
    cl_reset_zeroed(cl);
}

/* What a new level keeps (cl_level_begin): byte ranges of cl_state, in address order. */
typedef struct kept_span {
    size_t at, len;
} kept_span;

static const kept_span level_kept[] = {
    {offsetof(cl_state, players), sizeof ((cl_state *)0)->players},
    {offsetof(cl_state, messages), sizeof ((cl_state *)0)->messages},
    {offsetof(cl_state, player_stats), sizeof ((cl_state *)0)->player_stats},
    {offsetof(cl_state, events), sizeof ((cl_state *)0)->events},
};
_Static_assert(offsetof(cl_state, players) < offsetof(cl_state, messages) &&
                   offsetof(cl_state, messages) < offsetof(cl_state, player_stats) &&
                   offsetof(cl_state, player_stats) < offsetof(cl_state, events),
               "level_kept: in address order");

/* A clear: its state and the ranges it leaves as they are (address order). */
typedef struct clear_ctx {
    cl_state *cl;
    const kept_span *kept;
    int nkept;
} clear_ctx;

/* Zeros bytes [from, to) of the state, less the kept ranges. */
static void zero_span(const clear_ctx *z, size_t from, size_t to)
{
    for (int k = 0; k < z->nkept && from < to; k++) {
        const kept_span *r = &z->kept[k];
        if (r->at + r->len <= from || r->at >= to)
            continue;
        if (r->at > from)
            memset((char *)z->cl + from, 0, r->at - from);
        from = r->at + r->len;
    }
    if (to > from)
        memset((char *)z->cl + from, 0, to - from);
}

/* cl_reset_zeroed; the players' entities too when players (else they are kept). */
static void reset_zeroed(cl_state *cl, int players)
{
    cl->view.view_entity = -1;
    cl->view.view_height = 0;
    for (int i = 0; players && i < CL_MAX_PLAYERS; i++)
        cl->players[i].entity = -1;
    cl->level.conv = game_conventions[CL_GAME_NONE];
}

/* cl_clear, leaving the nkept ranges of kept as they are. */
static void clear_keeping(cl_state *cl, const kept_span *kept, int nkept)
{
    const clear_ctx z = {cl, kept, nkept};
    /* The marks only grow between clears (cl_set_model/sound, cl_entity_update_at,
     * cl_static_add); a listed entity was written, so the active list is shorter than the
     * entity mark. Everything between the big arrays is cleared whole. */
    size_t models = (size_t)(cl->level.num_models > 0 ? cl->level.num_models : 0);
    size_t sounds = (size_t)(cl->level.num_sounds > 0 ? cl->level.num_sounds : 0);
    size_t ents = (size_t)(cl->entity_hw > 0 ? cl->entity_hw : 0);
    size_t statics = (size_t)(cl->num_statics > 0 ? cl->num_statics : 0);
    size_t motions = (size_t)(cl->motion_hw > 0 ? cl->motion_hw : 0);
    size_t fx = cl->fxlog.fx_count < CL_FX_LOG ? cl->fxlog.fx_count : CL_FX_LOG;
    size_t snd = cl->fxlog.sound_count < CL_SOUND_LOG ? cl->fxlog.sound_count : CL_SOUND_LOG;
    size_t marks = cl->fxlog.mark_count < CL_MARK_LOG ? cl->fxlog.mark_count : CL_MARK_LOG;
    if (models > CL_MAX_MODELS || sounds > CL_MAX_SOUNDS || ents > CL_MAX_ENTITIES ||
        statics > CL_MAX_STATICS || motions > CL_MAX_MOTION) {
        /* marks out of range: not a state this code wrote */
        zero_span(&z, 0, sizeof *cl);
        reset_zeroed(cl, nkept == 0);
        return;
    }
    /* each big array: the used head, then everything up to the next big array */
    const size_t m = offsetof(cl_state, level.models), so = offsetof(cl_state, level.sounds);
    const size_t e = offsetof(cl_state, entities), a = offsetof(cl_state, active_list);
    const size_t st = offsetof(cl_state, statics), mo = offsetof(cl_state, motion);
    const size_t lf = offsetof(cl_state, fxlog.fx), ls = offsetof(cl_state, fxlog.sounds);
    const size_t lm = offsetof(cl_state, fxlog.marks);
    zero_span(&z, 0, m);
    zero_span(&z, m, m + models * CL_NAME_LEN);
    zero_span(&z, so, so + sounds * CL_NAME_LEN);
    zero_span(&z, so + sizeof cl->level.sounds, e);
    zero_span(&z, e, e + ents * sizeof cl->entities[0]);
    zero_span(&z, e + sizeof cl->entities, a);
    zero_span(&z, a, a + ents * sizeof cl->active_list[0]);
    zero_span(&z, a + sizeof cl->active_list, st);
    zero_span(&z, st, st + statics * sizeof cl->statics[0]);
    zero_span(&z, st + sizeof cl->statics, mo);
    zero_span(&z, mo, mo + motions * sizeof cl->motion[0]);
    zero_span(&z, mo + sizeof cl->motion, lf);
    /* the effects log's rings: the entries written (its counts since the clear) */
    zero_span(&z, lf, lf + fx * sizeof cl->fxlog.fx[0]);
    zero_span(&z, lf + sizeof cl->fxlog.fx, ls);
    zero_span(&z, ls, ls + snd * sizeof cl->fxlog.sounds[0]);
    zero_span(&z, ls + sizeof cl->fxlog.sounds, lm);
    zero_span(&z, lm, lm + marks * sizeof cl->fxlog.marks[0]);
    zero_span(&z, lm + sizeof cl->fxlog.marks, sizeof *cl);
    reset_zeroed(cl, nkept == 0);
}

void cl_clear(cl_state *cl)
{
    clear_keeping(cl, NULL, 0);
}

void cl_reset_zeroed(cl_state *cl)
{
    reset_zeroed(cl, 1);
}

void cl_level_begin(cl_state *cl, cl_game game, int protocol, int max_clients, const char *title)
{
    /* Players persist across a level change (the servers resend them anyway), with their
     * stats, the printed lines and the events: the clear passes over them in place. */
    uint32_t levels = cl->level_count, messages = cl->message_count;
    uint32_t frames = cl->frame_count, model_gen = cl->model_gen;
    double t = cl->time;
    uint32_t event_count = cl->event_count;
    /* also empties the effects log: the old level's effects are gone */
    clear_keeping(cl, level_kept, (int)(sizeof level_kept / sizeof level_kept[0]));
    cl->event_count = event_count;
    cl->message_count = messages;
    cl->frame_count = frames;
    cl->level_count = levels + 1;
    cl->model_gen = model_gen + 1;
    cl->time = cl->prev_time = t;
    cl->level.game = game;
    if ((unsigned)game < sizeof game_conventions / sizeof game_conventions[0])
        cl->level.conv = game_conventions[game];
    cl->level.protocol = protocol;
    cl->level.max_clients = max_clients;
    copy_name(cl->level.title, sizeof cl->level.title, title ? title : "");
}

void cl_set_map(cl_state *cl, const char *map)
{
    copy_name(cl->level.map, sizeof cl->level.map, map);
}

void cl_set_gamedir(cl_state *cl, const char *gamedir)
{
    copy_name(cl->level.gamedir, sizeof cl->level.gamedir, gamedir);
}

void cl_set_model(cl_state *cl, int index, const char *name)
{
    if (index <= 0 || index >= CL_MAX_MODELS)
        return;
    if (index < cl->level.num_models && strncmp(cl->level.models[index], name, CL_NAME_LEN - 1) == 0)
        return; /* unchanged: the list's generation stays */
    cl->model_gen++;
    copy_name(cl->level.models[index], CL_NAME_LEN, name);
    if (index >= cl->level.num_models)
        cl->level.num_models = index + 1;
}

/* FNV-1a of a name, the first CL_NAME_LEN - 1 bytes (as the slot holds it). */
static uint32_t sound_hash(const char *name)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < CL_NAME_LEN - 1 && name[i]; i++)
        h = (h ^ (uint8_t)name[i]) * 16777619u;
    return h;
}

void cl_set_sound(cl_state *cl, int index, const char *name)
{
    if (index <= 0 || index >= CL_MAX_SOUNDS)
        return;
    cl_level *l = &cl->level;
    int same = index < l->num_sounds && strncmp(l->sounds[index], name, CL_NAME_LEN - 1) == 0;
    copy_name(l->sounds[index], CL_NAME_LEN, name);
    if (index >= l->num_sounds)
        l->num_sounds = index + 1;
    if (same || cl->sound_find.full)
        return; /* (a slot given its own name again is found as it was) */
    if (cl->sound_find.n >= CL_SOUND_FIND * 3 / 4) {
        cl->sound_find.full = 1;
        return;
    }
    uint32_t at = sound_hash(l->sounds[index]) & (CL_SOUND_FIND - 1);
    while (cl->sound_find.slot[at])
        at = (at + 1) & (CL_SOUND_FIND - 1);
    cl->sound_find.slot[at] = (uint16_t)index;
    cl->sound_find.n++;
}

void cl_set_lightstyle(cl_state *cl, int index, const char *pattern)
{
    if (index < 0 || index >= CL_MAX_LIGHTSTYLES)
        return;
    copy_name(cl->level.lightstyles[index], CL_NAME_LEN, pattern);
}

void cl_frame_begin(cl_state *cl, double t)
{
    cl->prev_time = cl->time;
    cl->time = t;
    cl->prev_view = cl->view;
    cl->view_hold = 0;
    cl->in_frame = 1;
}

/* Store s as the entity's newest state at time t. An entity that was not in the previous
 * frame, changed model, or jumped further than any game moves snaps: prev = cur. */
static void entity_set(cl_state *cl, cl_entity *e, const cl_entstate *s, double t)
{
    if (e->list_gen) { /* (never in a list: never kept lazily, nothing to settle) */
        cl_lazy_settle(cl, e);
        e->list_gen = 0; /* in a list only through cl_list_add */
    }
    if (!e->active || e->cur.frame != s->frame)
        e->anim_since[0] = t;
    if (!e->active || e->cur.frame2 != s->frame2)
        e->anim_since[1] = t;
    if (e->active && e->cur_frame == cl->frame_count + 1u && cl->in_frame) {
        /* A second update in the same frame replaces the first one, and snaps where it
         * jumps from the state before the frame. */
        if ((s->flags & CL_EF_TELEPORT) || s->model != e->prev.model ||
            cl_is_jump(e->prev.origin, s->origin, t - e->prev_time)) {
            e->prev = *s;
            e->prev_time = t;
        }
        e->cur = *s;
        e->cur_time = t;
        e->still = memcmp(&e->prev, &e->cur, sizeof e->cur) == 0;
        return;
    }
    if (e->active && e->still && memcmp(&e->cur, s, sizeof *s) == 0) {
        /* Standing still (most entities, most frames): only the time moves on. prev keeps
         * its older time, which no lerp between equal states can show. */
        e->cur_time = t;
        cl->touched += e->cur_frame != cl->frame_count + 1u;
        e->cur_frame = cl->frame_count + 1u;
        return;
    }
    int snap = !e->active || e->cur.model != s->model || (s->flags & CL_EF_TELEPORT) ||
               cl_is_jump(e->cur.origin, s->origin, t - e->cur_time);
    if (snap) {
        e->prev = *s;
        e->prev_time = t;
    } else {
        e->prev = e->cur;
        e->prev_time = e->cur_time;
    }
    e->cur = *s;
    e->cur_time = t;
    e->active = 1;
    e->still = memcmp(&e->prev, &e->cur, sizeof e->cur) == 0;
    cl->touched += e->cur_frame != cl->frame_count + 1u;
    e->cur_frame = cl->frame_count + 1u;
    if (!e->listed) {
        e->listed = 1;
        cl->active_list[cl->num_listed++] = (uint16_t)(e - cl->entities);
    }
}

int cl_entity_update(cl_state *cl, int num, const cl_entstate *s)
{
    return cl_entity_update_at(cl, num, s, cl->time);
}

int cl_entity_update_at(cl_state *cl, int num, const cl_entstate *s, double t)
{
    if (num < 0 || num >= CL_MAX_ENTITIES)
        return 0;
    if (num >= cl->num_entities)
        cl->num_entities = num + 1;
    if (num >= cl->entity_hw)
        cl->entity_hw = num + 1;
    entity_set(cl, &cl->entities[num], s, t);
    return 1;
}

int cl_entity_update_from(cl_state *cl, int num, const cl_entstate *s, const float from[3])
{
    if (!cl_entity_update(cl, num, s))
        return 0;
    cl_entity *e = &cl->entities[num];
    e->prev = e->cur;
    memcpy(e->prev.origin, from, sizeof e->prev.origin);
    e->prev_time = cl->prev_time < cl->time ? cl->prev_time : cl->time;
    e->still = memcmp(&e->prev, &e->cur, sizeof e->cur) == 0;
    return 1;
}

static int traj_moves(const cl_traj *tr)
{
    return tr->type >= CL_TR_LINEAR && tr->type <= CL_TR_GRAVITY;
}

/* The motion slot of entity num, allocated when alloc is set (a slot whose entity stopped
 * moving or left is taken back), or NULL. */
static cl_motion *motion_of(cl_state *cl, int num, int alloc)
{
    int k = cl->motion_slot[num];
    if (k)
        return &cl->motion[k - 1];
    if (!alloc)
        return NULL;
    for (int i = 0; i < CL_MAX_MOTION; i++) {
        cl_motion *m = &cl->motion[i];
        const cl_entity *o = &cl->entities[m->entity];
        if (m->entity && o->active && (o->cur.flags & CL_EF_TRAJ))
            continue;
        if (m->entity)
            cl->motion_slot[m->entity] = 0;
        memset(m, 0, sizeof *m);
        m->entity = num;
        cl->motion_slot[num] = (uint16_t)(i + 1);
        if (i + 1 > cl->motion_hw)
            cl->motion_hw = i + 1;
        return m;
    }
    return NULL;
}

int cl_entity_update_traj(cl_state *cl, int num, const cl_entstate *s, const cl_traj *pos,
                          const cl_traj *apos)
{
    if (num <= 0 || num >= CL_MOTION_ENTITIES)
        return cl_entity_update(cl, num, s);
    cl_entity *e = &cl->entities[num];
    cl_lazy_settle(cl, e);
    int again = e->active && e->cur_frame == cl->frame_count + 1u && cl->in_frame;
    /* only trajectories that move are kept: players, items and movers at rest take no slot */
    static const cl_traj none;
    if (!traj_moves(pos))
        pos = &none;
    if (!traj_moves(apos))
        apos = &none;
    int moves = pos != &none || apos != &none;
    cl_motion *m = motion_of(cl, num, moves);
    cl_entstate st = *s;
    st.flags = (uint8_t)((st.flags & ~CL_EF_TRAJ) | (m && moves ? CL_EF_TRAJ : 0));
    cl_entity_update(cl, num, &st);
    if (!m)
        return 1;
    if (!moves && !again) { /* stopped: the slot is free again */
        cl->motion_slot[num] = 0;
        memset(m, 0, sizeof *m);
        return 1;
    }
    if (e->prev_time == cl->time && e->cur_time == cl->time) {
        /* snapped (or first seen): no older trajectory */
        m->pos[0] = m->pos[1] = *pos;
        m->apos[0] = m->apos[1] = *apos;
        m->since = cl->time;
    } else if (memcmp(&m->pos[1], pos, sizeof *pos) || memcmp(&m->apos[1], apos, sizeof *apos)) {
        if (!again) { /* a second update in one frame replaces the first */
            m->pos[0] = m->pos[1];
            m->apos[0] = m->apos[1];
        }
        m->pos[1] = *pos;
        m->apos[1] = *apos;
        m->since = cl->time;
    }
    return 1;
}

/* BG_EvaluateTrajectory, ioquake3 code/game/bg_misc.c (facts only): with dt = (t - trTime)
 * in seconds, LINEAR base + delta dt; LINEAR_STOP the same with t clamped to trTime +
 * trDuration and dt >= 0; SINE base + delta sin(2 pi (t - trTime) / trDuration); GRAVITY
 * base + delta dt, z minus DEFAULT_GRAVITY (800) dt^2 / 2; STATIONARY, INTERPOLATE base. */
void cl_traj_eval(const cl_traj *tr, double t, float out[3])
{
    double ms = t * 1000.0, k = 0, g = 0;
    if (tr->type != CL_TR_LINEAR && tr->type != CL_TR_LINEAR_STOP && tr->type != CL_TR_SINE &&
        tr->type != CL_TR_GRAVITY) {
        /* Not moving (most of a demo's bodies and items, TR_INTERPOLATE or TR_STATIONARY):
         * the loop below with k = g = 0, written out: base + delta x 0, which is base but for
         * a base of -0 (it takes the sign of delta's product: -0 + +0 is +0), and for a delta
         * that is not finite (a NaN, then base as the fallback if under 1e7) or a base past
         * 1e7 or not finite (the fallback's 0) */
        for (int i = 0; i < 3; i++) {
            float b = tr->base[i], d = tr->delta[i];
            if (fabsf(d) <= FLT_MAX && fabsf(b) <= 1e7f)
                out[i] = b + d * 0.0f; /* (exact: d x 0 is a zero) */
            else
                out[i] = !isfinite(d) && fabsf(b) < 1e7f ? b : 0;
        }
        return;
    }
    switch (tr->type) {
    case CL_TR_LINEAR:
        k = (ms - tr->t0_ms) * 0.001;
        break;
    case CL_TR_LINEAR_STOP:
        if (ms > (double)tr->t0_ms + tr->duration_ms)
            ms = (double)tr->t0_ms + tr->duration_ms;
        k = (ms - tr->t0_ms) * 0.001;
        if (k < 0)
            k = 0;
        break;
    case CL_TR_SINE:
        if (tr->duration_ms > 0)
            k = sin((ms - tr->t0_ms) / tr->duration_ms * 6.283185307179586);
        break;
    case CL_TR_GRAVITY:
        k = (ms - tr->t0_ms) * 0.001;
        g = 0.5 * 800.0 * k * k;
        break;
    default:
        break;
    }
    for (int i = 0; i < 3; i++) {
        double v = (double)tr->base[i] + (double)tr->delta[i] * k - (i == 2 ? g : 0);
        if (!isfinite(v) || fabs(v) > 1e7)
            v = isfinite(tr->base[i]) && fabsf(tr->base[i]) < 1e7f ? tr->base[i] : 0;
        out[i] = (float)v;
    }
}

void cl_entity_remove(cl_state *cl, int num)
{
    if (num < 0 || num >= cl->num_entities)
        return;
    cl_lazy_settle(cl, &cl->entities[num]); /* its last state as a removal leaves it */
    cl->entities[num].active = 0;
    cl->removed = 1;
}

/* Bring every entity kept by lists kept whole up to date; the run of such lists ends. */
static void settle_all(cl_state *cl)
{
    for (int32_t k = 0; k < cl->num_listed; k++)
        cl_lazy_settle(cl, &cl->entities[cl->active_list[k]]);
    cl->lazy.lazy_from = cl->lazy.lazy_to = 0;
}

void cl_list_begin(cl_state *cl)
{
    if (++cl->lazy.list_gen == 0) {
        /* 2^32 lists: start the numbering again, settled, the list before as number 1 and
         * this one as 2 (so this list may still keep the one before whole) */
        settle_all(cl);
        for (int32_t k = 0; k < cl->num_listed; k++) {
            cl_entity *e = &cl->entities[cl->active_list[k]];
            e->list_gen = e->list_gen == UINT32_MAX ? 1 : 0;
        }
        cl->lazy.list_gen = 2;
    }
}

void cl_list_leave(cl_state *cl, int num)
{
    if (num < 0 || num >= CL_MAX_ENTITIES)
        return;
    cl_entity *e = &cl->entities[num];
    cl_lazy_settle(cl, e); /* kept up to the list before */
    e->list_gen = 0;
}

void cl_list_keep_rest(cl_state *cl, int count)
{
    const uint32_t g = cl->lazy.list_gen;
    if (cl->lazy.lazy_to && cl->lazy.lazy_to != g - 1)
        settle_all(cl); /* the lists in between were not kept whole */
    if (!cl->lazy.lazy_to)
        cl->lazy.lazy_from = g;
    cl->lazy.lazy_to = g;
    cl->lazy.lazy_frame = cl->frame_count + 1u;
    cl->lazy.lazy_time = cl->time;
    cl->touched += count;
}

void cl_frame_end(cl_state *cl, int drop_missing)
{
    cl->frame_count++;
    cl->in_frame = 0;
    /* nothing to drop or unlist: every listed entity is active and stays (and the highest
     * of them is num_entities, which only their updates raised since the last walk) */
    const int same = !cl->removed && (!drop_missing || cl->touched == cl->num_listed);
    cl->touched = 0;
    cl->removed = 0;
#if !defined(CL_CHECK_SKIP)
    if (same)
        return;
#endif
    /* Walk only the listed entities: drop the ones this frame did not mention (when the
     * format lists every visible entity each frame), and unlist the inactive ones. */
    /* Locals: the byte stores below may alias any field of cl, which would be read again
     * for every entity of every frame. */
    const uint32_t frame = cl->frame_count;
    const int32_t listed = cl->num_listed;
    uint16_t *list = cl->active_list;
    cl_entity *ents = cl->entities;
    int32_t n = 0, top = 0;
    const int lazy = cl->lazy.lazy_to != 0;
    /* This frame's list was kept whole (cl_list_keep_rest in this frame: most walks come
     * after a removal in such a frame): an entity it kept is in this frame, as a settled
     * one would read (its cur_frame this frame's), so it stays without being settled, and
     * the run of lists kept whole goes on. Else every entity is settled first. */
    const int kept_now = lazy && cl->lazy.lazy_to == cl->lazy.list_gen &&
                         cl->lazy.lazy_frame == frame;
    const uint8_t stays = drop_missing == CL_DROP_ALL ? 0 : CL_EF_PLAYER;
    const int32_t view = cl->view.view_entity;
    for (int32_t k = 0; k < listed; k++) {
        uint16_t i = list[k];
        cl_entity *e = &ents[i];
        int now = 0;
        if (kept_now)
            now = cl_lazy_kept(cl, e);
        else if (lazy)
            cl_lazy_settle(cl, e);
        if (drop_missing && e->active && !now && e->cur_frame != frame &&
            !(e->cur.flags & stays) && (stays || i != view))
            e->active = 0;
        if (e->active) {
            list[n++] = i;
            if (i + 1 > top)
                top = i + 1;
        } else {
            e->listed = 0;
        }
    }
#if defined(CL_CHECK_SKIP) /* a build that walks anyway and checks the skip was right */
    if (same && (n != listed || top != cl->num_entities))
        abort();
#endif
    cl->num_listed = n;
    cl->num_entities = top;
    if (!kept_now)
        cl->lazy.lazy_from = cl->lazy.lazy_to = 0; /* every kept entity brought up to date */
}

int cl_portal_set(cl_state *cl, const cl_portal *p)
{
    int slot = -1;
    for (int i = 0; i < CL_MAX_PORTALS; i++) {
        if (cl->portals[i].entity == p->entity) {
            slot = i;
            break;
        }
        if (slot < 0 && cl->portals[i].entity == 0)
            slot = i;
    }
    if (slot < 0 || p->entity <= 0)
        return 0;
    cl->num_portals += cl->portals[slot].entity == 0;
    cl->portals[slot] = *p;
    return 1;
}

void cl_portal_drop(cl_state *cl, int num)
{
    for (int i = 0; i < CL_MAX_PORTALS; i++)
        if (cl->portals[i].entity == num && num > 0) {
            memset(&cl->portals[i], 0, sizeof cl->portals[i]);
            cl->num_portals--;
        }
}

int cl_static_add(cl_state *cl, const cl_entstate *s)
{
    if (cl->num_statics >= CL_MAX_STATICS)
        return 0;
    cl->statics[cl->num_statics++] = *s;
    return 1;
}

int cl_static_sound_add(cl_state *cl, const cl_static_sound *s)
{
    if (cl->num_static_sounds >= CL_MAX_STATIC_SOUNDS)
        return 0;
    cl->static_sounds[cl->num_static_sounds++] = *s;
    return 1;
}

void cl_set_view(cl_state *cl, const cl_view *v) { cl->view = *v; }

void cl_view_cut(cl_state *cl) { cl->prev_view = cl->view; }

void cl_view_hold(cl_state *cl) { cl->view_hold = 1; }

const cl_view *cl_view_shown(const cl_state *cl, double t)
{
    return cl->view_hold && t < cl->time ? &cl->prev_view : &cl->view;
}

const cl_view *cl_view_facts(const cl_state *cl, double t)
{
    return t < cl->time && cl->prev_time < cl->time ? &cl->prev_view : &cl->view;
}

void cl_set_view_entity(cl_state *cl, int ent) { cl->view.view_entity = ent; }

void cl_set_view_angles(cl_state *cl, const float angles[3])
{
    memcpy(cl->view.angles, angles, sizeof cl->view.angles);
}

static int16_t clamp16(int v) { return (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v); }

static cl_player *player(cl_state *cl, int slot)
{
    return slot >= 0 && slot < CL_MAX_PLAYERS ? &cl->players[slot] : NULL;
}

void cl_set_player_name(cl_state *cl, int slot, const char *name)
{
    cl_player *p = player(cl, slot);
    if (!p)
        return;
    copy_name(p->name, sizeof p->name, name);
    cl->player_gen += p->active != (name[0] != 0);
    /* a player leaving takes its score with it; one taking the slot in Quake and
     * QuakeWorld has the frags the server keeps for the slot, 0 at a connect and sent on
     * every change (svc_updatefrags, which may come before the name); in Quake II and III
     * a score only once one is sent */
    if (p->active && !name[0])
        p->frags_known = 0;
    else if (!p->active && name[0] &&
             (cl->level.game == CL_GAME_Q1 || cl->level.game == CL_GAME_QW))
        p->frags_known = 1;
    p->active = name[0] != 0;
}

void cl_set_player_frags(cl_state *cl, int slot, int frags)
{
    cl_player *p = player(cl, slot);
    if (p) {
        cl->player_gen += p->frags != frags || !p->frags_known;
        p->frags = frags;
        p->frags_known = 1;
    }
}

void cl_set_player_colors(cl_state *cl, int slot, int top, int bottom)
{
    cl_player *p = player(cl, slot);
    if (p) {
        p->top = (uint8_t)(top & 15);
        p->bottom = (uint8_t)(bottom & 15);
    }
}

void cl_set_player_entity(cl_state *cl, int slot, int entity)
{
    cl_player *p = player(cl, slot);
    if (p)
        p->entity = entity;
}

void cl_set_player_spectator(cl_state *cl, int slot, int spectator)
{
    cl_player *p = player(cl, slot);
    if (p)
        p->spectator = (uint8_t)(spectator != 0);
}

void cl_message_add(cl_state *cl, cl_msg_kind kind, const char *text)
{
    cl_message *m = &cl->messages[cl->message_count % CL_MAX_PRINTS];
    m->time = cl->time;
    m->kind = (uint8_t)kind;
    copy_name(m->text, sizeof m->text, text);
    cl->message_count++;
}

void cl_set_paused(cl_state *cl, int paused) { cl->paused = (uint8_t)(paused != 0); }

void cl_set_intermission(cl_state *cl, int kind)
{
    if (!cl->intermission && kind > 0)
        cl->inter_time = cl->time;
    cl->intermission = (uint8_t)(kind <= 0 ? 0 : kind > CL_INTER_CUTSCENE ? CL_INTER_SHOW : kind);
}

/* ---- neutral facts (issue #10) ---- */

void cl_set_conventions(cl_state *cl, const cl_conventions *conv) { cl->level.conv = *conv; }

void cl_set_stats(cl_state *cl, int slot, const cl_stats *st)
{
    cl_stats *dst;
    if (slot == -1) {
        dst = &cl->view_stats;
    } else {
        cl_player *p = player(cl, slot);
        if (!p)
            return;
        p->has_stats = 1;
        dst = &cl->player_stats[slot];
    }
    *dst = *st;
    dst->flags |= CL_ST_VALID;
}

void cl_set_player_look(cl_state *cl, int slot, const char *model, const char *skin,
                        const char *head)
{
    cl_player *p = player(cl, slot);
    if (!p)
        return;
    if (model)
        copy_name(p->model, sizeof p->model, model);
    if (skin)
        copy_name(p->skin, sizeof p->skin, skin);
    if (head)
        copy_name(p->head, sizeof p->head, head);
}

void cl_set_player_team(cl_state *cl, int slot, int team)
{
    cl_player *p = player(cl, slot);
    if (p)
        p->team = (uint8_t)(team >= CL_TEAM_NONE && team <= CL_TEAM_SPECTATOR ? team
                                                                               : CL_TEAM_NONE);
}

void cl_set_player_team_name(cl_state *cl, int slot, const char *name)
{
    cl_player *p = player(cl, slot);
    if (p)
        copy_name(p->team_name, sizeof p->team_name, name);
}

void cl_set_player_ping(cl_state *cl, int slot, int ping)
{
    cl_player *p = player(cl, slot);
    if (p)
        p->ping = clamp16(ping);
}

void cl_event_add(cl_state *cl, const cl_event *ev)
{
    cl_event *e = &cl->events[cl->event_count % CL_MAX_EVENTS];
    *e = *ev;
    e->time = cl->time;
    e->text[sizeof e->text - 1] = 0;
    if (e->kind == CL_EV_FRAG) {
        if (e->actor < 0 || e->actor == e->target) {
            e->flags |= CL_EVF_SUICIDE;
            e->actor = -1;
        }
        cl_player *victim = player(cl, e->target);
        if (victim)
            victim->deaths++;
    }
    cl->event_count++;
}

const cl_event *cl_event_get(const cl_state *cl, uint32_t i)
{
    if (i >= cl->event_count || cl->event_count - i > CL_MAX_EVENTS)
        return NULL;
    return &cl->events[i % CL_MAX_EVENTS];
}

void cl_fx_add(cl_state *cl, const cl_fxev *e)
{
    cl_fxlog *log = &cl->fxlog;
    cl_fxev *f = &log->fx[log->fx_count % CL_FX_LOG];
    *f = *e;
    f->t0 = cl->time - cl->event_lead;
    if (!(f->life > 0)) /* also NaN */
        f->life = 0.1f;
    if (f->life > (float)CL_FX_WINDOW)
        f->life = (float)CL_FX_WINDOW;
    log->fx_count++;
}

void cl_mark_add(cl_state *cl, const cl_fxev *e)
{
    cl_fxlog *log = &cl->fxlog;
    cl_fxev *f = &log->marks[log->mark_count % CL_MARK_LOG];
    *f = *e;
    f->t0 = cl->time - cl->event_lead;
    f->life = (float)CL_MARK_WINDOW;
    log->mark_count++;
}

void cl_sound_add(cl_state *cl, const cl_sound *s) { cl_sound_add_after(cl, s, 0); }

void cl_sound_add_after(cl_state *cl, const cl_sound *s, double delay)
{
    cl_fxlog *log = &cl->fxlog;
    cl_sound *d = &log->sounds[log->sound_count % CL_SOUND_LOG];
    *d = *s;
    if (!(delay > 0)) /* also NaN */
        delay = 0;
    d->t0 = cl->time - cl->event_lead + (delay < 1 ? delay : 1);
    log->sound_count++;
}

int cl_sound_intern(cl_state *cl, int first, const char *name)
{
    const cl_level *l = &cl->level;
    int n = l->num_sounds;
    if (first < 1)
        return 0;
    if (!cl->sound_find.full && name[0]) {
        /* every slot named so far is in the table under its name: the lowest from first
         * on that holds name now is among the entries of name's chain (the empty name is
         * walked for: the slots below num_sounds never named hold it with no entry) */
        int best = 0;
        uint32_t at = sound_hash(name) & (CL_SOUND_FIND - 1);
        for (int k = cl->sound_find.slot[at]; k; at = (at + 1) & (CL_SOUND_FIND - 1),
                 k = cl->sound_find.slot[at])
            if (k >= first && k < n && (!best || k < best) && !strcmp(l->sounds[k], name))
                best = k;
        if (best)
            return best;
    } else {
        for (int i = first; i < n; i++)
            if (!strcmp(l->sounds[i], name))
                return i;
    }
    int at = n > first ? n : first;
    if (at >= CL_MAX_SOUNDS || strlen(name) >= CL_NAME_LEN)
        return 0;
    cl_set_sound(cl, at, name);
    return at;
}

void cl_fxlog_clear(cl_state *cl) { memset(&cl->fxlog, 0, sizeof cl->fxlog); }

int cl_fx_at(const cl_state *cl, double t, const cl_fxev **out, int cap)
{
    const cl_fxlog *log = &cl->fxlog;
    uint32_t n = log->fx_count < CL_FX_LOG ? log->fx_count : CL_FX_LOG;
    int k = 0;
    /* the newest cap, walked from the newest back, then put oldest first */
    for (uint32_t i = 0; i < n && k < cap; i++) {
        const cl_fxev *f = &log->fx[(log->fx_count - 1 - i) % CL_FX_LOG];
        if (f->t0 <= t && t < f->t0 + f->life)
            out[k++] = f;
    }
    for (int a = 0, b = k - 1; a < b; a++, b--) {
        const cl_fxev *x = out[a];
        out[a] = out[b];
        out[b] = x;
    }
    return k;
}

int cl_marks_at(const cl_state *cl, double t, const cl_fxev **out, int cap)
{
    const cl_fxlog *log = &cl->fxlog;
    uint32_t n = log->mark_count < CL_MARK_LOG ? log->mark_count : CL_MARK_LOG;
    int k = 0;
    for (uint32_t i = 0; i < n && k < cap; i++) {
        const cl_fxev *f = &log->marks[(log->mark_count - 1 - i) % CL_MARK_LOG];
        if (f->t0 <= t && t < f->t0 + CL_MARK_WINDOW)
            out[k++] = f;
    }
    return k;
}

int cl_view_player(const cl_state *cl)
{
    int p = cl->view.player;
    if (p > 0 && p <= CL_MAX_PLAYERS)
        return p - 1;
    /* Bridge until the Quake decoders set view.player: entity n (1..maxclients) is client
     * n - 1 in Quake and QuakeWorld. */
    int e = cl->view.view_entity;
    if ((cl->level.game == CL_GAME_Q1 || cl->level.game == CL_GAME_QW) && e >= 1 &&
        e <= cl->level.max_clients && e <= CL_MAX_PLAYERS)
        return e - 1;
    return -1;
}

const cl_stats *cl_stats_of(const cl_state *cl, int slot)
{
    if (slot >= 0 && slot < CL_MAX_PLAYERS && cl->players[slot].has_stats)
        return &cl->player_stats[slot];
    if (slot == -1 || (slot >= 0 && slot == cl_view_player(cl)))
        return &cl->view_stats;
    return NULL;
}

void cl_body_view(const cl_state *cl, const cl_entstate *s, float origin[3], float angles[3])
{
    const cl_conventions *c = &cl->level.conv;
    float eye = (s->flags & CL_EF_GIBBED) ? c->eye_gibbed
              : (s->flags & CL_EF_DEAD)   ? c->eye_dead
                                          : c->eye_height;
    origin[0] = s->origin[0];
    origin[1] = s->origin[1];
    origin[2] = s->origin[2] + eye;
    angles[0] = s->angles[0] * c->body_pitch_scale;
    angles[1] = s->angles[1];
    /* QuakeWorld's dead on their side (id QW view.c V_CalcRefdef: PF_DEAD, roll 80) */
    angles[2] = cl->level.game == CL_GAME_QW && (s->flags & CL_EF_DEAD) ? 80 : 0;
}

/* ---- interpolation ---- */

float cl_lerp_angle(float a, float b, float f)
{
    float d = fmodf(b - a, 360.0f);
    if (d > 180.0f)
        d -= 360.0f;
    else if (d < -180.0f)
        d += 360.0f;
    return a + d * f;
}

/* The fastest thing in any of the games moves at about 2000 units/s (rockets 1000, a
 * rocket-jumping player well under 2000); allow 2500 plus slack for the time quantisation
 * of the recordings. */
#define CL_MAX_SPEED 2500.0
#define CL_JUMP_SLACK 64.0

int cl_is_jump(const float a[3], const float b[3], double dt)
{
    double dx = (double)b[0] - a[0], dy = (double)b[1] - a[1], dz = (double)b[2] - a[2];
    double d2 = dx * dx + dy * dy + dz * dz;
    if (dt < 0)
        dt = 0;
    double lim = CL_MAX_SPEED * dt + CL_JUMP_SLACK;
    return d2 > lim * lim;
}

static float frac_at(double t, double t0, double t1)
{
    if (t1 <= t0)
        return 1.0f;
    double f = (t - t0) / (t1 - t0);
    if (f < 0)
        f = 0;
    if (f > 1)
        f = 1;
    return (float)f;
}

/* The state entity e interpolates from and the times of that state and its newest, a
 * lazily kept entity's as cl_lazy_settle would leave them. */
static void entity_span(const cl_state *cl, const cl_entity *e, const cl_entstate **prev,
                        double *prev_time, double *cur_time)
{
    *prev = &e->prev;
    *prev_time = e->prev_time;
    *cur_time = e->cur_time;
    if (cl_lazy_kept(cl, e)) {
        if (!e->still) {
            *prev = &e->cur;
            *prev_time = e->cur_time;
        }
        *cur_time = cl->lazy.lazy_time;
    }
}

int cl_entity_at(const cl_state *cl, int num, double t, cl_entstate *out, int *next_frame,
                 float *blend)
{
    if (num < 0 || num >= cl->num_entities || !cl->entities[num].active)
        return 0;
    const cl_entity *e = &cl->entities[num];
    const cl_entstate *prev;
    double prev_time, cur_time;
    entity_span(cl, e, &prev, &prev_time, &cur_time);
    float f = frac_at(t, prev_time, cur_time);
    *out = e->cur;
    for (int i = 0; i < 3; i++) {
        out->origin[i] = prev->origin[i] + (e->cur.origin[i] - prev->origin[i]) * f;
        out->angles[i] = cl_lerp_angle(prev->angles[i], e->cur.angles[i], f);
    }
    if ((e->cur.flags & CL_EF_TRAJ) && num < CL_MOTION_ENTITIES && cl->motion_slot[num]) {
        /* the trajectory of the state shown at t (cgame: the snapshot at or before it) */
        const cl_motion *m = &cl->motion[cl->motion_slot[num] - 1];
        double tt = t < prev_time ? prev_time : t > cur_time ? cur_time : t;
        int k = tt >= m->since;
        /* (a lead: the trajectory at the clock's time plus it, origin and angles alike) */
        if (traj_moves(&m->pos[k]))
            cl_traj_eval(&m->pos[k], tt + m->pos[k].lead_ms / 1000.0, out->origin);
        if (traj_moves(&m->apos[k]))
            cl_traj_eval(&m->apos[k], tt + m->apos[k].lead_ms / 1000.0, out->angles);
    }
    out->frame = prev->frame;
    if (next_frame)
        *next_frame = e->cur.frame;
    if (blend)
        *blend = f;
    return 1;
}

int cl_entity_lead_from(const cl_state *cl, int num, double t, float from[3])
{
    if (num <= 0 || num >= cl->num_entities || num >= CL_MOTION_ENTITIES ||
        !cl->entities[num].active || !(cl->entities[num].cur.flags & CL_EF_TRAJ) ||
        !cl->motion_slot[num])
        return 0;
    const cl_motion *m = &cl->motion[cl->motion_slot[num] - 1];
    const cl_entstate *prev;
    double prev_time, cur_time;
    entity_span(cl, &cl->entities[num], &prev, &prev_time, &cur_time);
    double tt = t < prev_time ? prev_time : t > cur_time ? cur_time : t; /* (cl_entity_at's) */
    const cl_traj *tr = &m->pos[tt >= m->since];
    if (!tr->lead_ms || !traj_moves(tr))
        return 0;
    cl_traj_eval(tr, tt, from);
    return 1;
}

void cl_entity_settled(const cl_state *cl, int num, cl_entity *out)
{
    *out = cl->entities[num];
    cl_lazy_settle(cl, out);
    out->list_gen = 0;
}

int cl_entity_anim_since(const cl_state *cl, int num, double since[2])
{
    if (num < 0 || num >= cl->num_entities || !cl->entities[num].active)
        return 0;
    since[0] = cl->entities[num].anim_since[0];
    since[1] = cl->entities[num].anim_since[1];
    return 1;
}

/* cg_view.c DUCK_TIME: a change of view height (a crouch, a respawn) eased over 100 ms */
#define DUCK_TIME 0.1

void cl_view_at(const cl_state *cl, double t, float origin[3], float angles[3])
{
    float f = frac_at(t, cl->prev_time, cl->time);
    const cl_view *v = &cl->view, *pv = &cl->prev_view;
    if (cl->view_hold) /* (held: no lerp into the new view) */
        v = pv = cl_view_shown(cl, t);
    for (int i = 0; i < 3; i++)
        angles[i] = cl_lerp_angle(pv->angles[i], v->angles[i], f) + v->punch[i];
    if (v->has_origin) {
        for (int i = 0; i < 3; i++)
            origin[i] = pv->has_origin ? pv->origin[i] + (v->origin[i] - pv->origin[i]) * f
                                       : v->origin[i];
    } else {
        cl_entstate s;
        if (cl_entity_at(cl, v->view_entity, t, &s, NULL, NULL))
            memcpy(origin, s.origin, sizeof s.origin);
        else
            origin[0] = origin[1] = origin[2] = 0;
    }
    origin[2] += v->view_height;
    if (pv->duck != 0 || pv->eye_height != v->eye_height) {
        /* Quake III: the older snapshot's view height (cgame lerps the origin only), less
         * its change eased out over DUCK_TIME from that snapshot's time */
        origin[2] -= (v->eye_height - pv->eye_height) * f;
        double since = t - (cl->view_hold && t >= cl->time ? cl->time : cl->prev_time);
        if (pv->duck != 0 && since >= 0 && since < DUCK_TIME)
            origin[2] -= pv->duck * (float)((DUCK_TIME - since) / DUCK_TIME);
    }
}
