/* player.c: the interactive player: keys (mpv's where mpv has them), the timeline bar,
 * cameras and the HUD. */
#include "player.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/file.h"
#include "../render/draw2d.h"

#define FREE_SPEED 320.0f   /* units per second, like a running player */
#define FREE_FAST 4.0f      /* with Shift */
#define MOUSE_DEG 0.15f     /* degrees per pixel of mouse motion */

/* Quake's character set as plain ASCII: the high bit only picks a second colour, and the
 * low codes are glyphs (16/17 brackets, 18..27 digits, 28 a dot; conchars.lmp). */
static void plain_quake_text(char *s)
{
    for (; *s; s++) {
        unsigned c = (unsigned char)*s & 0x7f;
        if (c == 16)
            c = '[';
        else if (c == 17)
            c = ']';
        else if (c >= 18 && c <= 27)
            c = '0' + c - 18;
        else if (c == 28)
            c = '.';
        else if (c < 32 || c == 127)
            c = ' ';
        *s = (char)c;
    }
}

static void notice(player *p, const char *text)
{
    snprintf(p->notice, sizeof p->notice, "%s", text);
    plain_quake_text(p->notice);
    p->notice_until = p->wall + 2.0;
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The first frame of the level whose mark is at t: the next frame when the state at t is
 * still the level before's (a mark carries the time of the step that began the level). */
static double level_start(timeline_t *tl, double t)
{
    const cl_state *at = tl_state_at(tl, t, NULL);
    uint32_t level = at ? at->level_count : 0;
    double next = tl_next_frame(tl, t);
    const cl_state *then = tl_state_at(tl, next, NULL);
    return then && then->level_count != level ? next : t;
}

static void fmt_time(char *buf, size_t cap, double s);

static void seek_to(player *p, double t)
{
    p->t = clampd(t, p->start, p->end);
}

void player_init(player *p, timeline_t *tl, int fb_w, int fb_h)
{
    memset(p, 0, sizeof *p);
    p->tl = tl;
    p->start = tl_start(tl);
    p->end = tl_end(tl);
    p->t = p->start;
    p->speed = 1.0;
    p->volume = 1.0f;
    p->follow = -1;
    p->mode = R_MODE_TEXTURED;
    p->hud = PLAYER_HUD_GAME;
    p->camera = PLAYER_CAM_POV;
    p->fb_w = fb_w;
    p->fb_h = fb_h;
    p->bar_until = PLAYER_BAR_SECONDS;
    p->cut_in = p->cut_out = -1;
    /* (a newcomer learns where the keys are: said for the first seconds) */
    snprintf(p->notice, sizeof p->notice, "? for the keys");
    p->notice_until = 4.0;
}

void player_bar_rect(int w, int h, int *x, int *y, int *bw, int *bh)
{
    int scale = h >= 600 ? 2 : 1;
    *bh = 14 * scale;
    *x = 8 * scale;
    *bw = w - 16 * scale;
    *y = h - *bh - 6 * scale;
}

/* The time a mouse x position on the bar stands for. */
static double bar_time(const player *p, int mx)
{
    int x, y, bw, bh;
    player_bar_rect(p->fb_w, p->fb_h, &x, &y, &bw, &bh);
    double f = bw > 0 ? (double)(mx - x) / bw : 0;
    return p->start + clampd(f, 0, 1) * (p->end - p->start);
}

static int on_bar(const player *p, int mx, int my)
{
    int x, y, bw, bh;
    player_bar_rect(p->fb_w, p->fb_h, &x, &y, &bw, &bh);
    return mx >= x - 4 && mx < x + bw + 4 && my >= y - 6 && my < y + bh + 6;
}

/* The players that have a body to follow, in slot order; none when the only one is the
 * recorded view's own (the recorded view shows it: a review saw Tab in a one-player demo
 * follow the recorder, its gun gone). */
static int next_player(const player *p, const cl_state *cl, int from, int dir)
{
    int others = 0, self = cl_view_player(cl);
    for (int s = 0; s < CL_MAX_PLAYERS; s++)
        others += cl->players[s].active && !cl->players[s].spectator &&
                  cl->players[s].entity > 0 && s != self;
    if (!others)
        return -1;
    for (int k = 1; k <= CL_MAX_PLAYERS + 1; k++) {
        int s = from + dir * k;
        /* -1 (the recorded view) sits between the last and the first slot */
        s = ((s + 1) % (CL_MAX_PLAYERS + 1) + (CL_MAX_PLAYERS + 1)) % (CL_MAX_PLAYERS + 1) - 1;
        if (s < 0)
            return -1;
        const cl_player *pl = &cl->players[s];
        if (pl->active && !pl->spectator && pl->entity > 0)
            return s;
    }
    (void)p;
    return -1;
}

static void toggle_pause(player *p)
{
    p->paused = !p->paused;
    if (!p->paused && p->t >= p->end)
        p->t = p->start; /* play again from the start, as mpv does at the end */
    p->bar_until = p->wall + PLAYER_BAR_SECONDS;
}

/* Choose this session's file for camera keys: a new file qdemo-camera-YYYYmmdd-HHMMSS.path
 * (then -2, -3, ... when taken) in save_dir, created here so it is never an existing file,
 * an input included. Says where on stderr; 0 with errno set when none could be made. */
static int reserve_path_file(player *p)
{
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32];
    if (!localtime_r(&now, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm))
        snprintf(stamp, sizeof stamp, "%lld", (long long)now);
    for (int i = 1; i < 100; i++) {
        char suffix[16] = "";
        if (i > 1)
            snprintf(suffix, sizeof suffix, "-%d", i);
        int n = snprintf(p->saved_file, sizeof p->saved_file, "%s%sqdemo-camera-%s%s.path",
                         p->save_dir ? p->save_dir : "", p->save_dir ? "/" : "", stamp, suffix);
        if (n < 0 || (size_t)n >= sizeof p->saved_file) {
            errno = ENAMETOOLONG;
            break;
        }
        int fd = qd_create_new(p->saved_file);
        if (fd >= 0) {
            close(fd);
            fprintf(stderr, "qdemo: camera keys are saved to %s\n", p->saved_file);
            return 1;
        }
        if (errno != EEXIST)
            break;
    }
    p->saved_file[0] = 0;
    return 0;
}

/* The path as it is now into this session's file ('k' and 'K'): 1 when saved, else 0 with
 * why in text. Until a save works, no file holds the path shown (path_unsaved: 'i'/'o'
 * then give no command for its view, player_cut_command; a review). */
static int path_save(player *p, char *text, size_t cap)
{
    qd_error e;
    p->path_unsaved = 1;
    if (!p->saved_file[0] && !reserve_path_file(p))
        snprintf(text, cap, "cannot create a camera path file: %.60s", strerror(errno));
    else if (player_path_save(p->saved_file, p->path, p->path_len, &e) != QD_OK)
        snprintf(text, cap, "cannot save: %.100s", e.msg);
    else
        p->path_unsaved = 0;
    return !p->path_unsaved;
}

static void key_down(player *p, const in_event *ev)
{
    in_key k = ev->key;
    int shift = (ev->mods & IN_MOD_SHIFT) != 0;
    if (shift)
        p->move |= 16;
    switch ((int)k) {
    case IN_KEY_SLASH:
        p->help = !p->help;
        return;
    case IN_KEY_ESCAPE:
        if (p->help) { /* the list closed first */
            p->help = 0;
            return;
        }
        if (p->is_fullscreen) { /* out of fullscreen first, as video players do */
            p->fullscreen = 1;
            return;
        }
        if (p->camera == PLAYER_CAM_FREE || p->camera == PLAYER_CAM_PATH) {
            /* and the mouse given back, as a game's menu key does (a review); the path's
             * view left as well */
            p->camera = PLAYER_CAM_POV;
            return;
        }
        p->quit = 1;
        return;
    case IN_KEY_A + ('q' - 'a'):
        p->quit = 1;
        return;
    case IN_KEY_SPACE:
        if (!ev->repeat)
            toggle_pause(p);
        return;
    case IN_KEY_LEFT: seek_to(p, p->t - 5); break;
    case IN_KEY_RIGHT: seek_to(p, p->t + 5); break;
    case IN_KEY_UP: seek_to(p, p->t + 60); break;
    case IN_KEY_DOWN: seek_to(p, p->t - 60); break;
    case IN_KEY_HOME: seek_to(p, p->start); break;
    case IN_KEY_END: seek_to(p, p->end); break;
    case IN_KEY_LBRACKET:
    case IN_KEY_RBRACKET: {
        double s = k == IN_KEY_LBRACKET ? p->speed / 2 : p->speed * 2;
        p->speed = clampd(s, PLAYER_MIN_SPEED, PLAYER_MAX_SPEED);
        char text[64];
        snprintf(text, sizeof text, "speed %gx", p->speed);
        notice(p, text);
        break;
    }
    case IN_KEY_BACKSPACE:
        p->speed = 1.0;
        notice(p, "speed 1x");
        break;
    case IN_KEY_PERIOD:
        p->paused = 1;
        p->t = tl_next_frame(p->tl, p->t);
        break;
    case IN_KEY_COMMA:
        p->paused = 1;
        p->t = tl_prev_frame(p->tl, p->t);
        break;
    case IN_KEY_PAGEUP:
    case IN_KEY_PAGEDOWN: {
        /* PgUp/PgDn: frags, deaths, levels, intermission; with Shift also chat and pauses */
        int dir = k == IN_KEY_PAGEDOWN ? 1 : -1;
        const tl_mark *m;
        double from = p->t, to = p->t;
        /* a level's mark carries the time of the level before's last frame: its first frame
         * is the next one (a review: PgDn showed the old level); going back, a level start
         * already at is passed for the mark before it */
        while ((m = tl_find_mark(p->tl, from, dir, shift ? TL_MARKS_ALL : TL_MARKS_EVENTS))) {
            to = m->kind == TL_MARK_LEVEL ? level_start(p->tl, m->time) : m->time;
            if (dir > 0 || to < p->t - 1e-6)
                break;
            from = m->time;
        }
        if (m) {
            seek_to(p, to);
            char text[128];
            snprintf(text, sizeof text, "%s: %.100s", tl_mark_kind_name((tl_mark_kind)m->kind),
                     m->text);
            notice(p, text);
        } else {
            notice(p, k == IN_KEY_PAGEDOWN ? "no later mark" : "no earlier mark");
        }
        break;
    }
    case IN_KEY_A + ('w' - 'a'): p->move |= 1; return;
    case IN_KEY_A + ('s' - 'a'): p->move |= 2; return;
    case IN_KEY_A + ('a' - 'a'): p->move |= 4; return;
    case IN_KEY_A + ('d' - 'a'): p->move |= 8; return;
    case IN_KEY_A + ('f' - 'a'):
        p->camera = p->camera == PLAYER_CAM_FREE ? PLAYER_CAM_POV : PLAYER_CAM_FREE;
        notice(p, p->camera == PLAYER_CAM_FREE ? "free camera (mouse, WASD, Shift)"
                                               : "recorded view");
        return;
    case IN_KEY_A + ('c' - 'a'):
        p->camera = p->camera == PLAYER_CAM_CHASE ? PLAYER_CAM_POV : PLAYER_CAM_CHASE;
        notice(p, p->camera == PLAYER_CAM_CHASE ? "chase camera" : "recorded view");
        return;
    case IN_KEY_MINUS:
    case IN_KEY_EQUALS: {
        /* the window's volume in tenths, 0..2 */
        int v = (int)lroundf(p->volume * 10) + (k == IN_KEY_MINUS ? -1 : 1);
        p->volume = (float)(v < 0 ? 0 : v > 20 ? 20 : v) / 10.0f;
        char text[64];
        snprintf(text, sizeof text, "volume %d%%", (int)lroundf(p->volume * 100));
        notice(p, text);
        return;
    }
    case IN_KEY_A + ('m' - 'a'):
        if (shift) { /* M: mute; m: the drawing mode */
            p->mute = !p->mute;
            notice(p, p->mute ? "sound muted" : "sound on");
            return;
        }
        /* textured, flat, wire, then textured again */
        p->mode = p->mode == R_MODE_TEXTURED ? R_MODE_FLAT
                  : p->mode == R_MODE_FLAT   ? R_MODE_WIRE
                                             : R_MODE_TEXTURED;
        notice(p, p->mode == R_MODE_WIRE ? "wireframe"
                  : p->mode == R_MODE_FLAT ? "flat shaded"
                                           : "textured");
        return;
    case IN_KEY_A + ('n' - 'a'):
        p->go = 1;
        return;
    case IN_KEY_A + ('p' - 'a'):
        p->go = -1;
        return;
    case IN_KEY_F12:
        p->shot = 1;
        return;
    case IN_KEY_A + ('i' - 'a'):
    case IN_KEY_A + ('o' - 'a'): { /* a span to render (a review: what a movie maker
                                    * misses most after the camera path) */
        double at = p->t - p->start;
        if (k == IN_KEY_A + ('i' - 'a')) {
            p->cut_in = at;
            if (p->cut_out >= 0 && p->cut_out <= at)
                p->cut_out = -1;
        } else {
            p->cut_out = at;
            if (p->cut_in >= at)
                p->cut_in = -1;
            if (p->cut_in < 0)
                p->cut_in = 0; /* (from the start) */
        }
        char a[32], b[32], text[96];
        fmt_time(a, sizeof a, p->cut_in);
        fmt_time(b, sizeof b, p->cut_out);
        snprintf(text, sizeof text,
                 p->cut_out >= 0 ? "render %s to %s" : "render from %s (o: to)", a, b);
        notice(p, text);
        p->cut_ready = p->cut_in >= 0 && p->cut_out > p->cut_in;
        p->bar_until = p->wall + PLAYER_BAR_SECONDS;
        return;
    }
    case IN_KEY_F11:
        p->fullscreen = 1;
        return;
    case IN_KEY_F1:
        p->scores = !p->scores;
        return;
    case IN_KEY_A + ('h' - 'a'):
        /* the game's bar, one line, nothing, then the game's bar again */
        p->hud = p->hud == PLAYER_HUD_GAME ? PLAYER_HUD_MINIMAL
                 : p->hud == PLAYER_HUD_MINIMAL ? PLAYER_HUD_NONE
                                                : PLAYER_HUD_GAME;
        notice(p, p->hud == PLAYER_HUD_GAME ? "status bar" : p->hud == PLAYER_HUD_MINIMAL
                                                                 ? "minimal HUD"
                                                                 : "HUD off");
        return;
    case IN_KEY_A + ('x' - 'a'):
        p->xray = !p->xray;
        notice(p, p->xray ? "x-ray on" : "x-ray off");
        return;
    case IN_KEY_LESS:
    case IN_KEY_GREATER: {
        /* to the camera path's key before / after the time shown, paused there: a key is
         * then viewed ('v'), flown from ('f') and placed again ('k') or removed ('K') */
        int at = -1;
        for (int i = 0; i < p->path_len; i++) {
            double kt = p->path[i].t;
            if (k == IN_KEY_LESS && kt < p->t - 0.5e-4)
                at = i;
            if (k == IN_KEY_GREATER && kt > p->t + 0.5e-4 && at < 0)
                at = i;
        }
        char text[96];
        if (at < 0) {
            snprintf(text, sizeof text, p->path_len ? "no %s camera key" : "no camera path",
                     k == IN_KEY_LESS ? "earlier" : "later");
        } else {
            seek_to(p, p->path[at].t);
            p->paused = 1;
            snprintf(text, sizeof text, "camera key %d of %d", at + 1, p->path_len);
        }
        notice(p, text);
        return;
    }
    case IN_KEY_A + ('k' - 'a'): {
        char text[160];
        if (shift) { /* K: the key at the moment shown removed */
            int at = -1;
            for (int i = 0; i < p->path_len && at < 0; i++)
                if (fabs(p->path[i].t - p->t) <= 0.5e-4)
                    at = i;
            if (at < 0) {
                notice(p, "no camera key here (< and > go to the keys)");
                return;
            }
            memmove(&p->path[at], &p->path[at + 1],
                    (size_t)(p->path_len - at - 1) * sizeof p->path[0]);
            p->path_len--;
            if (p->path_len == 0 && p->camera == PLAYER_CAM_PATH)
                p->camera = PLAYER_CAM_POV;
            if (path_save(p, text, sizeof text))
                snprintf(text, sizeof text, "camera key %d removed (%d left) in %.80s", at + 1,
                         p->path_len, p->saved_file);
            notice(p, text);
            return;
        }
        /* the view shown, as the file will hold it (player_path_save's digits), so that
         * the window's path view ('v') is the render's to the unit */
        player_cam_key key;
        char num[64];
        snprintf(num, sizeof num, "%.4f", p->t);
        key.t = strtod(num, NULL);
        for (int i = 0; i < 3; i++) {
            snprintf(num, sizeof num, "%.2f", (double)p->free_origin[i]);
            key.origin[i] = strtof(num, NULL);
            snprintf(num, sizeof num, "%.2f", (double)p->free_angles[i]);
            key.angles[i] = strtof(num, NULL);
        }
        int had = p->path_len, at = player_path_add(p, &key);
        if (at < 0)
            snprintf(text, sizeof text, "the camera path is full (%d keys)", PLAYER_MAX_PATH);
        else if (path_save(p, text, sizeof text))
            snprintf(text, sizeof text, "camera key %d of %d %s %.80s (v: view the path)",
                     at + 1, p->path_len, p->path_len > had ? "saved to" : "replaced in",
                     p->saved_file);
        notice(p, text);
        return;
    }
    case IN_KEY_A + ('v' - 'a'):
        /* the view along the path (a movie maker's preview of `render --camera free
         * --camera-path`), or the recorded view again */
        if (p->camera == PLAYER_CAM_PATH) {
            p->camera = PLAYER_CAM_POV;
            notice(p, "recorded view");
        } else if (p->path_len == 0) {
            notice(p, "no camera path: f to fly, k to add the view as a key");
        } else {
            p->camera = PLAYER_CAM_PATH;
            char text[96];
            snprintf(text, sizeof text, "camera path: %d key%s (v: recorded view)", p->path_len,
                     p->path_len == 1 ? "" : "s");
            notice(p, text);
            p->bar_until = p->wall + PLAYER_BAR_SECONDS; /* (its keys are ticks on the bar) */
        }
        return;
    default:
        if (k >= IN_KEY_0 && k <= IN_KEY_9) {
            seek_to(p, p->start + (p->end - p->start) * (k - IN_KEY_0) / 10.0);
            break;
        }
        return;
    }
    p->bar_until = p->wall + PLAYER_BAR_SECONDS;
}

static void key_up(player *p, const in_event *ev)
{
    switch ((int)ev->key) {
    case IN_KEY_A + ('w' - 'a'): p->move &= ~1u; break;
    case IN_KEY_A + ('s' - 'a'): p->move &= ~2u; break;
    case IN_KEY_A + ('a' - 'a'): p->move &= ~4u; break;
    case IN_KEY_A + ('d' - 'a'): p->move &= ~8u; break;
    default: break;
    }
    if (!(ev->mods & IN_MOD_SHIFT))
        p->move &= ~16u;
}

void player_event(player *p, const in_event *ev)
{
    switch (ev->type) {
    case IN_EV_KEY_DOWN:
        if (ev->key == IN_KEY_TAB) {
            const cl_state *cl = tl_state_at(p->tl, p->t, NULL);
            if (cl) {
                p->follow = next_player(p, cl, p->follow, (ev->mods & IN_MOD_SHIFT) ? -1 : 1);
                char text[96];
                if (p->follow >= 0)
                    snprintf(text, sizeof text, "following %.60s", cl->players[p->follow].name);
                else
                    snprintf(text, sizeof text, "recorded view");
                notice(p, text);
            }
            return;
        }
        key_down(p, ev);
        break;
    case IN_EV_KEY_UP:
        key_up(p, ev);
        break;
    case IN_EV_MOTION:
        /* (not while the free camera is steered by the mouse: a review saw the bar stay) */
        if (p->camera != PLAYER_CAM_FREE || p->dragging)
            p->bar_until = p->wall + PLAYER_BAR_SECONDS;
        p->mouse_x = ev->x;
        p->hover = p->camera != PLAYER_CAM_FREE && on_bar(p, ev->x, ev->y);
        if (p->dragging) {
            seek_to(p, bar_time(p, ev->x));
        } else if (p->camera == PLAYER_CAM_FREE) {
            p->free_angles[1] -= (float)ev->dx * MOUSE_DEG;
            p->free_angles[0] += (float)ev->dy * MOUSE_DEG;
            if (p->free_angles[0] > 89)
                p->free_angles[0] = 89;
            if (p->free_angles[0] < -89)
                p->free_angles[0] = -89;
        }
        break;
    case IN_EV_BUTTON_DOWN:
        p->bar_until = p->wall + PLAYER_BAR_SECONDS;
        if (ev->button == IN_BUTTON_LEFT && on_bar(p, ev->x, ev->y)) {
            p->dragging = 1;
            seek_to(p, bar_time(p, ev->x));
        } else if (ev->button == IN_BUTTON_LEFT && ev->clicks == 2) {
            p->fullscreen = 1; /* a double click off the bar, as video players do */
        }
        break;
    case IN_EV_WHEEL:
        /* mpv's wheel: 10 s a notch, away from the user forward */
        p->bar_until = p->wall + PLAYER_BAR_SECONDS;
        if (ev->dy)
            seek_to(p, p->t + 10.0 * ev->dy);
        break;
    case IN_EV_DROP: { /* (several at once: SDL sends one event each) */
        size_t n = ev->path ? strlen(ev->path) + 1 : 0;
        if (n > 1 && p->ndrops < PLAYER_MAX_DROPS && n <= sizeof p->drops - p->drops_len) {
            memcpy(p->drops + p->drops_len, ev->path, n);
            p->drops_len += n;
            p->ndrops++;
        }
        break;
    }
    case IN_EV_BUTTON_UP:
        if (ev->button == IN_BUTTON_LEFT)
            p->dragging = 0;
        break;
    case IN_EV_RESIZE:
        p->fb_w = ev->w;
        p->fb_h = ev->h;
        break;
    case IN_EV_QUIT:
        p->quit = 1;
        break;
    default:
        break;
    }
}

static void angle_vectors(const float angles[3], float fwd[3], float right[3])
{
    float p = angles[0] * (float)M_PI / 180.0f, y = angles[1] * (float)M_PI / 180.0f;
    fwd[0] = cosf(p) * cosf(y);
    fwd[1] = cosf(p) * sinf(y);
    fwd[2] = -sinf(p);
    right[0] = sinf(y);
    right[1] = -cosf(y);
    right[2] = 0;
}

void player_tick(player *p, double dt)
{
    if (!(dt >= 0)) /* (NaN too: it stuck in the clock; a review) */
        dt = 0;
    p->wall += dt;
    if (!p->paused && !p->dragging) {
        p->t += dt * p->speed;
        if (p->t >= p->end) {
            p->t = p->end;
            p->paused = 1; /* hold the last frame */
            p->bar_until = p->wall + PLAYER_BAR_SECONDS;
        }
    }
    if (p->camera == PLAYER_CAM_FREE && (p->move & 15)) {
        float fwd[3], right[3];
        angle_vectors(p->free_angles, fwd, right);
        float v = FREE_SPEED * (float)dt * ((p->move & 16) ? FREE_FAST : 1.0f);
        float f = ((p->move & 1) ? 1.0f : 0.0f) - ((p->move & 2) ? 1.0f : 0.0f);
        float s = ((p->move & 8) ? 1.0f : 0.0f) - ((p->move & 4) ? 1.0f : 0.0f);
        for (int i = 0; i < 3; i++)
            p->free_origin[i] += v * (fwd[i] * f + right[i] * s);
    }
}

/* The body the camera follows: the followed player's, or the recorded view's entity. */
static int followed_entity(const player *p, const cl_state *cl)
{
    if (p->follow >= 0 && p->follow < CL_MAX_PLAYERS && cl->players[p->follow].entity > 0)
        return cl->players[p->follow].entity;
    return cl->view.view_entity;
}

void player_keep_view(player *p, const r_camera *cam)
{
    if (p->camera == PLAYER_CAM_FREE)
        return;
    memcpy(p->free_origin, cam->origin, sizeof p->free_origin);
    memcpy(p->free_angles, cam->angles, sizeof p->free_angles);
}

void player_frame_size(int *w, int *h)
{
    double px = (double)*w * *h, most = (double)PLAYER_MAX_W * PLAYER_MAX_H;
    if (px > most) {
        double k = sqrt(most / px);
        *w = (int)(*w * k);
        *h = (int)(*h * k);
    }
}

void player_title_text(char *out, size_t cap, const char *s)
{
    size_t k = 0;
    for (; *s && *s != '\n' && k + 1 < cap; s++) {
        if (s[0] == '^' && s[1] >= '0' && s[1] <= '9') {
            s++;
            continue;
        }
        out[k++] = *s >= 32 && *s < 127 ? *s : '?';
    }
    out[k] = 0;
}

int player_path_add(player *p, const player_cam_key *key)
{
    /* one moment: within half the file's last digit of time (player_path_save's %.4f) */
    int i = 0;
    while (i < p->path_len && p->path[i].t < key->t - 0.5e-4)
        i++;
    if (i < p->path_len && fabs(p->path[i].t - key->t) <= 0.5e-4) {
        p->path[i] = *key;
        return i;
    }
    if (p->path_len >= PLAYER_MAX_PATH)
        return -1;
    memmove(&p->path[i + 1], &p->path[i], (size_t)(p->path_len - i) * sizeof p->path[0]);
    p->path[i] = *key;
    p->path_len++;
    return i;
}

void player_camera(const player *p, const cl_state *cl, double t, r_camera *cam)
{
    memset(cam, 0, sizeof *cam);
    if (p->camera == PLAYER_CAM_PATH && p->path_len > 0) {
        player_path_eval(p->path, p->path_len, t, cam);
        return;
    }
    if (p->camera == PLAYER_CAM_FREE) {
        memcpy(cam->origin, p->free_origin, sizeof cam->origin);
        memcpy(cam->angles, p->free_angles, sizeof cam->angles);
        return;
    }
    cl_entstate s;
    int ent = followed_entity(p, cl);
    int have = cl_entity_at(cl, ent, t, &s, NULL, NULL);
    if (p->camera == PLAYER_CAM_POV) {
        if (p->follow < 0 || !have) {
            r_camera_from_view(cl, t, cam);
            return;
        }
        cl_body_view(cl, &s, cam->origin, cam->angles); /* the game's eye and pitch */
        return;
    }
    /* chase: behind and above the body, looking the way it faces */
    r_camera view;
    r_camera_from_view(cl, t, &view);
    float target[3];
    float yaw = view.angles[1];
    if (have) {
        memcpy(target, s.origin, sizeof target);
        yaw = s.angles[1];
    } else {
        memcpy(target, view.origin, sizeof target);
    }
    float y = yaw * (float)M_PI / 180.0f;
    cam->origin[0] = target[0] - 110.0f * cosf(y);
    cam->origin[1] = target[1] - 110.0f * sinf(y);
    cam->origin[2] = target[2] + 50.0f;
    cam->angles[0] = 18.0f;
    cam->angles[1] = yaw;
}

int player_listener(const player *p, const cl_state *cl, double t)
{
    if (p->camera != PLAYER_CAM_POV)
        return 0; /* chase and free cameras are nobody */
    cl_entstate s;
    int ent = followed_entity(p, cl);
    if (p->follow < 0 || !cl_entity_at(cl, ent, t, &s, NULL, NULL))
        return cl->view.view_entity; /* player_camera's recorded view */
    return ent;
}

void player_options(const player *p, const cl_state *cl, r_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->mode = p->mode;
    opt->xray = p->xray;
    opt->show_view_entity = p->camera != PLAYER_CAM_POV || p->follow >= 0;
    /* the weapon belongs to the recorded view only (its stats are the recorder's) */
    opt->gun = !p->no_gun && p->camera == PLAYER_CAM_POV && p->follow < 0;
    opt->no_dlights = p->no_dlights;
    /* a first-person view of a followed player must not show that player's own body */
    if (p->camera == PLAYER_CAM_POV && p->follow >= 0 && cl)
        opt->hide_entity = cl->players[p->follow].entity;
}

/* Minutes of s seconds, for m:ss shown: s bounded to [0, 1e12] (NaN: 0), rounded to the
 * millisecond and counted in 64 bits (a hostile demo's clock of many levels passed an int's
 * minutes; a review). */
long long player_minutes(double *s)
{
    *s = !(*s >= 0) ? 0 : *s > 1e12 ? 1e12 : *s;
    /* to the millisecond shown first, so 59.9996 s is 1:00.000, not 0:60.000 (a review) */
    *s = floor(*s * 1000 + 0.5) / 1000;
    return (long long)(*s / 60);
}

static void fmt_time(char *buf, size_t cap, double s)
{
    long long m = player_minutes(&s);
    snprintf(buf, cap, "%lld:%06.3f", m, s - (double)m * 60);
}

/* f clamped to 0..1, NaN to 0: a place along the timeline bar. */
static double bar_frac(double f) { return !(f >= 0) ? 0 : f > 1 ? 1 : f; }

/* One line of text at (x, y): the game's font when hud has it (k pixels a font pixel),
 * else the built-in one on a dim band. */
static void hud_line(const r_hud *hud, rast_fb *fb, int x, int y, const char *text, int k)
{
    if (r_hud_text(hud, fb, x, y, text, k))
        return;
    char plain[CL_TEXT_LEN + 1];
    size_t n = 0;
    for (const char *c = text + (*text == 1 || *text == 2); *c && n < CL_TEXT_LEN; c++) {
        /* (the chat mark and the colour codes left out) */
        uint32_t tint;
        int code = r_hud_color_code(c, &tint);
        if (code)
            c += code - 1;
        else
            plain[n++] = *c;
    }
    plain[n] = 0;
    plain_quake_text(plain);
    draw_fill_rect(fb, x - 1, y - 1, draw_text_width(plain, k) + 2, DRAW_FONT_H * k + 2,
                   0xa0000000u);
    draw_text(fb, x, y, plain, rast_rgb(255, 255, 255), k);
}

void player_draw_hud(int mode, int follow, const cl_state *cl, const r_hud *hud,
                     const r_hud2 *hud2, rast_fb *fb)
{
    if (mode == PLAYER_HUD_NONE || !cl)
        return;
    /* QuakeSpasm's Sbar_Draw draws nothing at a level's end ("never draw sbar during
     * intermission"): the end screen is the overlay's (player_draw_scores) */
    if (mode == PLAYER_HUD_GAME && cl->level.game == CL_GAME_Q1 && cl->intermission)
        return;
    int slot = follow >= 0 ? follow : cl_view_player(cl);
    const cl_stats *st = cl_stats_of(cl, slot);
    if (mode == PLAYER_HUD_GAME && follow < 0 && r_hud2_draw(hud2, cl, fb))
        return; /* Quake II's own programs (the recorded view's stats only): its mods draw
                 * their own timers where a clock would go */
    /* the clock (the game's where the demo has it, else demo time) at the top right and,
     * when one is followed, whose view it is above the status bar, as ezQuake's "tracking"
     * line (a review: at the top it sat on the game's message lines) */
    int k = fb->h / 240 < 1 ? 1 : fb->h / 240;
    char clock[32];
    double t = cl_game_clock(cl);
    snprintf(clock, sizeof clock, "%d:%02d", (int)(t / 60), (int)t % 60);
    hud_line(hud, fb, fb->w - ((int)strlen(clock) + 1) * 8 * k, 4 * k, clock, k);
    if (follow >= 0 && follow < CL_MAX_PLAYERS && cl->players[follow].name[0]) {
        char who[64];
        snprintf(who, sizeof who, "%.40s", cl->players[follow].name);
        hud_line(hud, fb, (fb->w - (int)strlen(who) * 8 * k) / 2, fb->h - 60 * k, who, k);
    }
    if (mode == PLAYER_HUD_GAME && r_hud_draw(hud, st, cl->time, fb))
        return;

    /* minimal: whose view, and their stats when a decoder knows them (cl_stats_of) */
    int scale = fb->h >= 600 ? 2 : 1;
    uint32_t white = rast_rgb(255, 255, 255), dim = 0xa0000000u;
    char text[160];
    const char *who = "";
    if (slot >= 0 && slot < CL_MAX_PLAYERS && (follow >= 0 || cl->players[slot].has_stats))
        who = cl->players[slot].name;
    if (st && (st->flags & CL_ST_VALID))
        snprintf(text, sizeof text, "%.31s%shealth %d  armor %d  ammo %d", who,
                 who[0] ? "  " : "", st->health, st->armor, st->ammo);
    else
        snprintf(text, sizeof text, "%.31s", who);
    plain_quake_text(text);
    if (!text[0])
        return;
    int th = DRAW_FONT_H * scale;
    int bx, by, bw, bh;
    player_bar_rect(fb->w, fb->h, &bx, &by, &bw, &bh);
    draw_fill_rect(fb, bx - 2, by - th - 10 * scale, draw_text_width(text, scale) + 4, th + 2,
                   dim);
    draw_text(fb, bx, by - th - 9 * scale, text, white, scale);
}

/* A QuakeWorld chat line as ezQuake prints it (cl_parse.c FlushString, facts only; as
 * id's client with con_ormask 128 but for the braces): every character in the high half
 * (gold) but line ends and a leading 1 or 2, except what is between braces after the
 * speaker's name ("red{white}red", cl_parseWhiteText 1), kept as it is, the braces left
 * out; ezQuake's colour codes work there only, where their characters are not moved. The
 * name's end: after the first ": " (TP_CategorizeMessage's offset). */
static void chat_white_text(const char *in, char *out, size_t cap)
{
    const char *name_end = strstr(in, ": ");
    size_t offset = name_end ? (size_t)(name_end - in) + 2 : 0, n = 0;
    for (const char *p = in; *p && n + 1 < cap; p++) {
        const char *close;
        if (*p == '{' && (size_t)(p - in) >= offset && (close = strchr(p + 1, '}'))) {
            for (p++; p < close && n + 1 < cap; p++)
                out[n++] = *p;
            continue; /* (p at the brace) */
        }
        unsigned char c = (unsigned char)*p;
        int keep = c == '\n' || c == '\r' || (p == in && (c == 1 || c == 2));
        out[n++] = (char)(keep ? c : c | 128);
    }
    out[n] = 0;
}

void player_draw_messages(int mode, const cl_state *cl, const r_hud *hud, double t,
                          rast_fb *fb)
{
    if (mode == PLAYER_HUD_NONE || !cl)
        return;
    int k = fb->h / 240 < 1 ? 1 : fb->h / 240; /* the font's 8 pixels at 240 rows */
    /* Quake's notify lines (con_notifytime 3 s, the last four) at the top left, and the
     * latest centerprint within scr_centertime (2 s) in the middle of the upper half. */
    const int max_lines = 4;
    const cl_message *feed[4];
    int n = 0;
    const cl_message *center = NULL;
    uint32_t count = cl->message_count, have = count < CL_MAX_PRINTS ? count : CL_MAX_PRINTS;
    for (uint32_t i = 0; i < have; i++) {
        const cl_message *m = &cl->messages[(count - 1 - i) % CL_MAX_PRINTS];
        if (m->time > t)
            continue; /* a seek's state holds nothing after t; play's neither */
        if (m->kind == CL_MSG_CENTER) {
            if (!center && t - m->time < 2.0)
                center = m;
        } else if (n < max_lines && t - m->time < 3.0) {
            feed[n++] = m;
        }
    }
    for (int i = 0; i < n; i++) { /* oldest at the top */
        char line[CL_TEXT_LEN + 2];
        const cl_message *m = feed[n - 1 - i];
        if (m->kind == CL_MSG_CHAT && cl->level.game == CL_GAME_QW)
            chat_white_text(m->text, line, sizeof line);
        else /* Quake's chat (Con_Print's mark 1) in the high half */
            snprintf(line, sizeof line, "%s%s", m->kind == CL_MSG_CHAT ? "\x01" : "", m->text);
        line[strcspn(line, "\n")] = 0;
        hud_line(hud, fb, 8 * k, (4 + 8 * i) * k, line, k);
    }
    if (center) {
        char text[CL_TEXT_LEN + 1];
        snprintf(text, sizeof text, "%s", center->text);
        char *line = text;
        for (int row = 0; line && row < 8; row++) { /* its lines, each centred */
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = 0;
            int w = (int)strlen(line) * 8 * k;
            hud_line(hud, fb, (fb->w - w) / 2, fb->h / 3 + row * 9 * k, line, k);
            line = nl ? nl + 1 : NULL;
        }
    }
}

int player_team_totals(const cl_state *cl, player_team *rows, int max)
{
    int n = 0, named = 0, players = 0;
    for (int i = 0; i < CL_MAX_PLAYERS; i++) {
        const cl_player *pl = &cl->players[i];
        if (!pl->active || pl->spectator)
            continue;
        players++;
        if (!pl->team_name[0])
            continue;
        named++;
        int t = 0;
        while (t < n && strcmp(rows[t].name, pl->team_name) != 0)
            t++;
        if (t == n) {
            if (n == max)
                continue;
            memset(&rows[n], 0, sizeof rows[n]);
            snprintf(rows[n].name, sizeof rows[n].name, "%s", pl->team_name);
            rows[n].low = rows[n].high = pl->frags;
            n++;
        }
        player_team *r = &rows[t];
        r->total += pl->frags;
        r->players++;
        r->low = pl->frags < r->low ? pl->frags : r->low;
        r->high = pl->frags > r->high ? pl->frags : r->high;
    }
    if (n < 2 || named != players)
        return 0; /* no team game: one team, or players without one */
    for (int i = 1; i < n; i++) /* most frags first, ties in the order first seen */
        for (int j = i; j > 0 && rows[j].total > rows[j - 1].total; j--) {
            player_team t = rows[j];
            rows[j] = rows[j - 1];
            rows[j - 1] = t;
        }
    return n;
}

/* Whether a goes above b on a scoreboard: more frags, a known score above one not sent. */
static int above(const cl_player *a, const cl_player *b)
{
    return a->frags_known != b->frags_known ? a->frags_known : a->frags > b->frags;
}

/* QuakeWorld's Sbar_TeamOverlay (client/sbar.c): "low/avg/high team total players", then a
 * row a team, 8 units apart from y; returns the y below them. */
static int draw_team_rows(const cl_state *cl, const r_hud *hud, rast_fb *fb, int x0, int k)
{
    player_team rows[CL_MAX_PLAYERS];
    int n = player_team_totals(cl, rows, CL_MAX_PLAYERS);
    if (n == 0)
        return 40;
    int x = x0 + 36 * k, y = 24;
    draw_fill_rect(fb, x - 4 * k, (y - 4) * k, 256 * k, (n * 8 + 20) * k, 0xa0000000u);
    hud_line(hud, fb, x, y * k, "low/avg/high team total players", k);
    y += 16;
    for (int i = 0; i < n && y + 8 <= 120; i++, y += 8) {
        char line[64];
        int avg = rows[i].players ? rows[i].total / rows[i].players : 0;
        snprintf(line, sizeof line, "%3d/%3d/%3d %-4.4s %5d %7d", rows[i].low, avg, rows[i].high,
                 rows[i].name, rows[i].total, rows[i].players);
        hud_line(hud, fb, x, y * k, line, k);
    }
    return y + 8;
}

void player_draw_scores(int mode, int shown, const cl_state *cl, const r_hud *hud,
                        const uint32_t palette[256], rast_fb *fb)
{
    if (mode == PLAYER_HUD_NONE || !cl || !(shown || cl->intermission))
        return;
    if (!shown && cl->level.game == CL_GAME_Q1 && cl->intermission != CL_INTER_SHOW)
        return; /* gl_screen.c SCR_UpdateScreen: a finale or cutscene shows no scores */
    if (!shown && cl->level.game == CL_GAME_Q1 && cl->level.max_clients <= 1) {
        /* Sbar_IntermissionOverlay, single player: the level's tally, its time the
         * server's when the level ended (cl.completed_time) */
        const cl_stats *st = cl_stats_of(cl, -1);
        if (!st)
            return;
        double done = cl_game_time(cl, cl->inter_time);
        int secs = done > 0 && done < 1e6 ? (int)done : 0;
        char line[96];
        snprintf(line, sizeof line, "Time %d:%02d   Secrets %d/%d   Kills %d/%d", secs / 60,
                 secs % 60, st->secrets, st->secrets_total, st->monsters, st->monsters_total);
        int k = fb->h / 240 < 1 ? 1 : fb->h / 240;
        hud_line(hud, fb, (fb->w - (int)strlen(line) * 8 * k) / 2, fb->h / 3, line, k);
        return;
    }
    /* Quake's Sbar_DeathmatchOverlay: players by frags, most first (ties in slot order),
     * each row the shirt colour over the pants colour in a 40 x 8 box holding the frags,
     * then the name; 10 units a row from y 40, column at x 80 of a 320-unit screen. */
    int order[CL_MAX_PLAYERS], n = 0;
    for (int i = 0; i < CL_MAX_PLAYERS; i++)
        if (cl->players[i].active && !cl->players[i].spectator)
            order[n++] = i;
    for (int i = 1; i < n; i++) /* (a score not sent, Quake II's others', last: unknown) */
        for (int j = i; j > 0 && above(&cl->players[order[j]], &cl->players[order[j - 1]]);
             j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    int k = fb->h / 240 < fb->w / 320 ? fb->h / 240 : fb->w / 320;
    k = k < 1 ? 1 : k;
    int x0 = (fb->w - 320 * k) / 2;
    int top = draw_team_rows(cl, hud, fb, x0, k); /* a team game: the teams first */
    draw_fill_rect(fb, x0 + 72 * k, (top - 8) * k, 176 * k, (n * 10 + 12) * k, 0xa0000000u);
    for (int r = 0; r < n && top + r * 10 + 8 <= 240; r++) {
        const cl_player *pl = &cl->players[order[r]];
        int x = x0 + 80 * k, y = (top + r * 10) * k;
        /* Sbar_ColorForMap: the middle shade of the colour's row of 16 */
        uint32_t top = palette[(pl->top & 15) * 16 + 8], bot = palette[(pl->bottom & 15) * 16 + 8];
        draw_fill_rect(fb, x, y, 40 * k, 4 * k, top | 0xff000000u);
        draw_fill_rect(fb, x, y + 4 * k, 40 * k, 4 * k, bot | 0xff000000u);
        char frags[16] = "  -";
        if (pl->frags_known)
            snprintf(frags, sizeof frags, "%3d",
                     (int)(pl->frags < -99 ? -99 : pl->frags > 999 ? 999 : pl->frags));
        hud_line(hud, fb, x + 8 * k, y, frags, k);
        hud_line(hud, fb, x + 64 * k, y, pl->name, k);
    }
}

void player_draw_huds(int mode, int follow, int shown, int first_person, const cl_state *cl,
                      const app_world *w, double t, rast_fb *fb)
{
    unsigned flags = (shown ? R_HUD3_SCORES : 0u) | (first_person ? R_HUD3_CROSSHAIR : 0u);
    if (mode == PLAYER_HUD_GAME && r_hud3_draw(w->hud3, cl, follow, flags, t, fb))
        return;
    const r_hud *hud = w->hud;
    const uint32_t *palette = w->palette;
    player_draw_hud(mode, follow, cl, hud, w->hud2, fb);
    player_draw_messages(mode, cl, hud, t, fb);
    player_draw_scores(mode, shown, cl, hud, palette, fb);
}

void player_wrap(const char *s, int width, char *out, size_t cap)
{
    size_t o = 0;
    int col = 0;
    if (width < 8)
        width = 8;
    while (*s && o + 2 < cap) {
        /* the next word's length (a word longer than a line is cut where the line ends) */
        size_t w = 0;
        while (s[w] && s[w] != ' ')
            w++;
        if (col > 0 && col + 1 + (int)(w < (size_t)width ? w : (size_t)width) > width) {
            out[o++] = '\n';
            col = 0;
        } else if (col > 0) {
            out[o++] = ' ';
            col++;
        }
        for (size_t k = 0; k < w && o + 2 < cap; k++) {
            if (col == width) {
                out[o++] = '\n';
                col = 0;
            }
            out[o++] = s[k];
            col++;
        }
        s += w;
        while (*s == ' ')
            s++;
    }
    out[o] = 0;
}

/* s in single quotes for a POSIX shell (a quote in it as '\''; high bits cleared, as
 * --follow compares names) into out (cap >= 8). */
static void shell_quote(const char *s, int plain, char *out, size_t cap)
{
    size_t o = 0;
    out[o++] = '\'';
    for (; *s && o + 6 < cap; s++) {
        char c = plain ? (char)(*s & 0x7f) : *s;
        if (c == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else if (c) {
            out[o++] = c;
        }
    }
    out[o++] = '\'';
    out[o] = 0;
}

int player_cut_command(const player *p, const cl_state *cl, const char *demo, char *out,
                       size_t cap)
{
    if (p->camera == PLAYER_CAM_PATH && p->path_unsaved) {
        snprintf(out, cap, "the camera path is not saved (k could not write it): no render "
                           "command for this view");
        return 0;
    }
    char q[1200], who[128], cam[1300] = "";
    shell_quote(demo, 0, q, sizeof q);
    if (p->camera == PLAYER_CAM_CHASE)
        snprintf(cam, sizeof cam, " --camera chase");
    const char *path = p->saved_file[0] ? p->saved_file : p->path_file;
    if (p->camera == PLAYER_CAM_PATH && path && path[0]) {
        /* the keys as the file holds them ('k' saves each; --camera-path's own file else) */
        char qp[1200], *abs_path = realpath(path, NULL); /* (to run anywhere) */
        shell_quote(abs_path ? abs_path : path, 0, qp, sizeof qp);
        free(abs_path);
        snprintf(cam, sizeof cam, " --camera free --camera-path %s", qp);
    } else if (p->follow >= 0 && p->follow < CL_MAX_PLAYERS && cl && cl->players[p->follow].name[0]) {
        shell_quote(cl->players[p->follow].name, 1, who, sizeof who);
        snprintf(cam + strlen(cam), sizeof cam - strlen(cam), " --follow %s", who);
    }
    /* what else the window shows that a render's defaults do not (a review: the frames
     * then differed from the view): the drawing mode, the HUD, no gun, no lights */
    char look[96] = "";
    if (p->mode == R_MODE_FLAT || p->mode == R_MODE_WIRE)
        snprintf(look, sizeof look, " --mode %s", p->mode == R_MODE_FLAT ? "flat" : "wire");
    if (p->hud == PLAYER_HUD_GAME || p->hud == PLAYER_HUD_MINIMAL)
        snprintf(look + strlen(look), sizeof look - strlen(look), " --hud %s",
                 p->hud == PLAYER_HUD_GAME ? "game" : "minimal");
    if (p->no_gun)
        snprintf(look + strlen(look), sizeof look - strlen(look), " --no-gun");
    if (p->no_dlights)
        snprintf(look + strlen(look), sizeof look - strlen(look), " --no-dlights");
    snprintf(out, cap, "qdemo render %s --from %.3f --to %.3f%s%s -o frames", q, p->cut_in,
             p->cut_out, cam, look);
    return 1;
}

/* The keys (README, "Watching: keys and mouse"), as '?' lists them. */
static const char *const help_lines[] = {
    "Space        pause / play",
    "Left Right   back / forward 5 s",
    "Down Up      back / forward 60 s",
    "wheel        back / forward 10 s",
    "[ ]  Bksp    half / double speed, 1x",
    ", .          one frame back / forward",
    "Home End 0-9 start, end, 0% .. 90%",
    "PgUp PgDn    previous / next frag, death,",
    "             level (Shift: any mark)",
    "f  c         free camera (WASD, mouse) / chase",
    "k  v         save the view as a camera path",
    "             key / view along the path",
    "< >  K       previous / next key, remove it",
    "i  o         render from / to here: the",
    "             command is printed",
    "m  x         textured, flat, wire / x-ray",
    "h  F1        HUD / scoreboard",
    "M  - =       sound off / on, volume",
    "n  p         next / previous demo",
    "F11          fullscreen",
    "F12          save the frame as a PNG",
    "Tab Shift+Tab follow the next / previous",
    "click, drag  seek on the bar",
    "double click fullscreen",
    "drop files   play them (a folder: its demos)",
    "?            this list",
    "q  Esc       quit (Esc: this list, the",
    "             free camera, fullscreen first)",
};

static void draw_help(rast_fb *fb, int scale)
{
    int n = (int)(sizeof help_lines / sizeof help_lines[0]), wide = 0;
    int line = (DRAW_FONT_H + 1) * scale; /* (the font's descent is space enough) */
    for (int i = 0; i < n; i++) {
        int w = draw_text_width(help_lines[i], scale);
        wide = w > wide ? w : wide;
    }
    int x = (fb->w - wide) / 2, y = (fb->h - n * line) / 2;
    x = x < 4 * scale ? 4 * scale : x;
    y = y < 4 * scale ? 4 * scale : y;
    draw_fill_rect(fb, x - 6 * scale, y - 6 * scale, wide + 12 * scale, n * line + 9 * scale,
                   0xc0000000u);
    for (int i = 0; i < n; i++)
        draw_text(fb, x, y + i * line, help_lines[i], rast_rgb(255, 255, 255), scale);
}

void player_overlay(const player *p, const cl_state *cl, rast_fb *fb)
{
    (void)cl;
    int scale = fb->h >= 600 ? 2 : 1;
    uint32_t white = rast_rgb(255, 255, 255), dim = 0xa0000000u;
    int th = DRAW_FONT_H * scale;
    int bx, by, bw, bh;
    player_bar_rect(fb->w, fb->h, &bx, &by, &bw, &bh);

    if (p->notice[0] && p->wall < p->notice_until) {
        /* wrapped at spaces to the frame's width (a review: a damage notice ran off a
         * 1200-pixel window, its byte lost) */
        char lines[2 * sizeof p->notice];
        int cell = draw_text_width("x", scale);
        player_wrap(p->notice, (fb->w - 16 * scale) / (cell > 0 ? cell : 1), lines,
                    sizeof lines);
        /* below the game's message lines (a review: both at the top left, one over the
         * other): Quake's four notify lines end at 36 of its 240 rows (player_draw_messages:
         * 4 + 4 x 8, whole multiples), Quake III's four SMALLCHAR lines at 64 of 480
         * (r_hud3.c notify); with no HUD there are none */
        int k = fb->h / 240 < 1 ? 1 : fb->h / 240, top = 0;
        if (p->hud != PLAYER_HUD_NONE)
            top = 36 * k > fb->h * 64 / 480 ? 36 * k : fb->h * 64 / 480;
        draw_fill_rect(fb, 6 * scale, top + 6 * scale, draw_text_width(lines, scale) + 4 * scale,
                       draw_text_height(lines, scale) + 4 * scale, dim);
        draw_text(fb, 8 * scale, top + 8 * scale, lines, white, scale);
    }

    if (p->help)
        draw_help(fb, scale);
    int show_bar = p->paused || p->wall < p->bar_until || p->dragging;
    if (!show_bar)
        return;
    draw_fill_rect(fb, bx - 4, by - 4, bw + 8, bh + 8, dim);
    draw_fill_rect(fb, bx, by + bh / 2 - scale, bw, 2 * scale, rast_rgb(90, 90, 90));
    double len = p->end - p->start;
    int px = bx + (len > 0 ? (int)(bar_frac((p->t - p->start) / len) * bw) : 0);
    draw_fill_rect(fb, bx, by + bh / 2 - scale, px - bx, 2 * scale, rast_rgb(230, 120, 40));
    /* marks as ticks, coloured by kind */
    static const uint32_t kind_rgb[TL_MARK_KINDS] = {0xff40c0ff, 0xff4040ff, 0xff4080ff,
                                                     0xffffc040, 0xffff40ff, 0xffc0c0c0};
    for (int i = 0; i < tl_num_marks(p->tl); i++) {
        const tl_mark *m = tl_get_mark(p->tl, i);
        /* (a mark before the first frame, an event of the file's opening, was off the
         * bar by billions of pixels: an int overflowed; a review) */
        int mx = bx + (len > 0 ? (int)(bar_frac((m->time - p->start) / len) * bw) : 0);
        draw_fill_rect(fb, mx, by, scale, bh, kind_rgb[m->kind % TL_MARK_KINDS]);
    }
    for (int i = 0; i < p->path_len && len > 0; i++) { /* the camera path's keys, below */
        int kx = bx + (int)(bar_frac((p->path[i].t - p->start) / len) * bw);
        draw_fill_rect(fb, kx - scale, by + bh - 3 * scale, 3 * scale, 3 * scale,
                       rast_rgb(120, 255, 120));
    }
    if (p->cut_in >= 0 && len > 0) { /* 'i' .. 'o' (or the playhead while 'o' is unset) */
        double to = p->cut_out >= 0 ? p->cut_out : p->t - p->start;
        int x0 = bx + (int)(bar_frac(p->cut_in / len) * bw),
            x1 = bx + (int)(bar_frac(to / len) * bw);
        if (x1 > x0)
            draw_fill_rect(fb, x0, by + bh / 2 + scale, x1 - x0, 2 * scale,
                           rast_rgb(90, 200, 255));
    }
    draw_fill_rect(fb, px - scale, by - 2 * scale, 3 * scale, bh + 4 * scale, white);
    if (p->hover && !p->dragging) { /* the time under the pointer, above the bar */
        char at[32];
        fmt_time(at, sizeof at, bar_time(p, p->mouse_x) - p->start);
        int w = draw_text_width(at, scale), x = p->mouse_x - w / 2;
        x = x < bx ? bx : x + w > bx + bw ? bx + bw - w : x;
        draw_fill_rect(fb, x - 2 * scale, by - th - 6 * scale, w + 4 * scale, th + 4 * scale, dim);
        draw_text(fb, x, by - th - 4 * scale, at, white, scale);
    }
    char a[32], b[32], text[96];
    fmt_time(a, sizeof a, p->t - p->start);
    fmt_time(b, sizeof b, len);
    snprintf(text, sizeof text, "%s / %s  %gx%s", a, b, p->speed, p->paused ? "  paused" : "");
    draw_text(fb, fb->w - bx - draw_text_width(text, scale), by - th - 9 * scale, text, white,
              scale);
}

/* A camera path is small text: 1 MiB holds thousands of keys more than PLAYER_MAX_PATH. */
#define PATH_FILE_MAX (1u << 20)
#define PATH_LINE_MAX 256     /* longer than any line player_path_save writes */
#define PATH_COORD_MAX 1.0e6f /* beyond any map's extent (Quake II's are +-4096, BSP2 more) */
/* a demo's clock: the decoders' and --from's bound (a review: a key at 5e6 s of a demo's
 * time was saved and then refused) */
#define PATH_TIME_MAX 1.0e7

/* A value a camera can use: finite and within +-PATH_COORD_MAX. */
static int path_value_ok(double v) { return isfinite(v) && fabs(v) <= PATH_COORD_MAX; }

int player_path_parse(const char *text, size_t len, player_cam_key *keys, int max,
                      qd_error *err)
{
    int n = 0, line_no = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t at = pos, line_len = end - pos;
        pos = end + 1;
        line_no++;
        if (line_len > PATH_LINE_MAX) {
            qd_fail(err, QD_ERR_BAD_DATA, at, "line %d: longer than %d bytes", line_no,
                    PATH_LINE_MAX);
            return 0;
        }
        char line[PATH_LINE_MAX + 1];
        memcpy(line, text + at, line_len);
        line[line_len] = 0;
        if (memchr(line, 0, line_len)) {
            qd_fail(err, QD_ERR_BAD_DATA, at, "line %d: a NUL byte in text", line_no);
            return 0;
        }
        const char *p = line + strspn(line, " \t\r");
        if (*p == '#' || *p == 0)
            continue;
        player_cam_key k;
        int used = 0;
        if (sscanf(p, "%lf %f %f %f %f %f %f %n", &k.t, &k.origin[0], &k.origin[1],
                   &k.origin[2], &k.angles[0], &k.angles[1], &k.angles[2], &used) != 7 ||
            p[used] != 0) {
            qd_fail(err, QD_ERR_BAD_DATA, at, "line %d: expected \"t x y z pitch yaw roll\"",
                    line_no);
            return 0;
        }
        int ok = isfinite(k.t) && fabs(k.t) <= PATH_TIME_MAX;
        for (int i = 0; i < 3; i++)
            ok = ok && path_value_ok(k.origin[i]) && path_value_ok(k.angles[i]);
        if (!ok) {
            qd_fail(err, QD_ERR_BAD_DATA, at,
                    "line %d: a value that is not a number within +-%.0f (the time: "
                    "+-%.0f s)",
                    line_no, (double)PATH_COORD_MAX, PATH_TIME_MAX);
            return 0;
        }
        if (n == max) {
            qd_fail(err, QD_ERR_LIMIT, at, "line %d: more than %d camera keys", line_no, max);
            return 0;
        }
        keys[n++] = k;
    }
    /* keys in time order (insertion sort: stable, and n is at most PLAYER_MAX_PATH) */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && keys[j].t < keys[j - 1].t; j--) {
            player_cam_key t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    if (n == 0)
        qd_fail(err, QD_ERR_BAD_DATA, 0, "no camera keys");
    return n;
}

int player_path_load(const char *file, player_cam_key *keys, int max, qd_error *err)
{
    uint8_t *text = NULL;
    size_t len = 0;
    if (qd_read_input(file, PATH_FILE_MAX, &text, &len, err) != QD_OK) /* FIFOs refused */
        return 0;
    int n = player_path_parse((const char *)text, len, keys, max, err);
    free(text);
    return n;
}

qd_err player_path_save(const char *file, const player_cam_key *keys, int n, qd_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", file);
    fprintf(f, "# qdemo camera path: demo time, origin x y z, angles pitch yaw roll\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "%.4f %.2f %.2f %.2f %.2f %.2f %.2f\n", keys[i].t, keys[i].origin[0],
                keys[i].origin[1], keys[i].origin[2], keys[i].angles[0], keys[i].angles[1],
                keys[i].angles[2]);
    if (fclose(f) != 0) {
        free(text);
        return qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", file);
    }
    qd_err e = qd_replace_file(file, text, len, err);
    free(text);
    return e;
}

/* The shortest signed turn from angle a to angle b, in degrees (-180..180). */
static double turn(double a, double b)
{
    double d = fmod(b - a, 360.0);
    return d > 180.0 ? d - 360.0 : d < -180.0 ? d + 360.0 : d;
}

/* Number c of key k (0..2 the origin, 3..5 the angles). */
static double key_num(const player_cam_key *k, int c)
{
    return c < 3 ? (double)k->origin[c] : (double)k->angles[c - 3];
}

void player_path_eval(const player_cam_key *keys, int n, double t, r_camera *cam)
{
    memset(cam, 0, sizeof *cam);
    if (n <= 0)
        return;
    int i = 0;
    while (i + 1 < n && keys[i + 1].t <= t)
        i++;
    const player_cam_key *a = &keys[i], *b = &keys[i + 1 < n ? i + 1 : i];
    double h = b->t - a->t;
    if (!(h > 0)) { /* past the last key (or before the first: its place) */
        memcpy(cam->origin, a->origin, sizeof cam->origin);
        memcpy(cam->angles, a->angles, sizeof cam->angles);
        return;
    }
    /* A cubic through the keys with Catmull-Rom slopes over their times (the slope at a
     * key from its neighbours on both sides; at an end or next to a cut, two keys of one
     * time, from the segment itself), so the camera passes each key without a corner, as
     * a movie maker's camera tools glide (a review: linear, it kinked at every key). Two
     * keys alone are a straight line, as before. Angles go the shortest way between
     * neighbours. */
    double u = (t - a->t) / h;
    u = !(u > 0) ? 0 : u > 1 ? 1 : u; /* (NaN: the key) */
    const double u2 = u * u, u3 = u2 * u;
    const double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2,
                 h11 = u3 - u2;
    const player_cam_key *pa = i > 0 && keys[i - 1].t < a->t ? &keys[i - 1] : NULL;
    const player_cam_key *nb = i + 2 < n && keys[i + 2].t > b->t ? &keys[i + 2] : NULL;
    /* the slopes times the segment's length: a neighbour's span over the segment's (at most
     * 1, as the neighbour is beyond it), never a difference over a time (a fuzz run: keys
     * 5e-324 s apart gave an infinite slope, and 0 x inf NaN) */
    const double rp = pa ? fmin(1.0, h / (b->t - pa->t)) : 0,
                 rn = nb ? fmin(1.0, h / (nb->t - a->t)) : 0;
    for (int c = 0; c < 6; c++) {
        const int ang = c >= 3;
        double va = key_num(a, c);
        double vb = ang ? va + turn(va, key_num(b, c)) : key_num(b, c);
        double ma = vb - va, mb = ma; /* (the chord's) */
        if (pa) {
            double vp = ang ? va - turn(key_num(pa, c), va) : key_num(pa, c);
            ma = (vb - vp) * rp;
        }
        if (nb) {
            double vn = ang ? vb + turn(vb, key_num(nb, c)) : key_num(nb, c);
            mb = (vn - va) * rn;
        }
        double v = h00 * va + h10 * ma + h01 * vb + h11 * mb;
        if (ang)
            cam->angles[c - 3] = (float)v;
        else /* (a cubic overshoots its keys: kept within a path's coordinates, a fuzz run
              * saw 1.5e6 from keys at 1e6) */
            cam->origin[c] = (float)fmax(-PATH_COORD_MAX, fmin(PATH_COORD_MAX, v));
    }
}

int player_find(const cl_state *cl, const char *spec)
{
    if (!spec || !*spec)
        return -1;
    char *end;
    long n = strtol(spec, &end, 10);
    if (*end == 0) {
        /* N counts the active players from 1, in slot order */
        int k = 0;
        for (int i = 0; i < CL_MAX_PLAYERS; i++)
            if (cl->players[i].active && !cl->players[i].spectator && ++k == n)
                return i;
        return -1;
    }
    for (int i = 0; i < CL_MAX_PLAYERS; i++) {
        if (!cl->players[i].active)
            continue;
        char plain[32];
        size_t j = 0;
        for (const char *c = cl->players[i].name; *c && j + 1 < sizeof plain; c++)
            plain[j++] = (char)(*c & 0x7f);
        plain[j] = 0;
        if (strcasecmp(plain, spec) == 0)
            return i;
    }
    return -1;
}
