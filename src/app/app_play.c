/* app_play.c: the `play` command: the demo in an SDL2 window, in real time, driven by the
 * player's input layer. Demo time is chosen from the wall clock; everything drawn is a pure
 * function of that time (DESIGN.md decision 3). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/file.h"

#include "../output/out.h"
#include "../render/draw2d.h"
#include "app_sound.h"
#include "player.h"
#include "world.h"

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Open the demo and index it; reports and returns NULL on failure. */
/* app_open_timeline, the reason it failed or what stopped its index early (tl_error) in
 * *why (NULL: not kept; code QD_OK when whole). */
static timeline_t *open_timeline_why(const app_opts *o, qd_error *why)
{
    qd_error err = {0};
    if (why)
        *why = err;
    demo_t *d = demo_open(o->demo, &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    if (!tl) {
        app_report(o->demo, &err);
        if (why)
            *why = err;
        return NULL;
    }
    if (!tl_complete(tl)) { /* play what decodes, and say where it stopped */
        /* no level ever began, and damage: not a demo (a map or a picture that the Quake
         * .dem reader took, all of it skipped as damage; a review: the window showed an
         * empty grid) */
        const cl_state *end = tl_state_at(tl, tl_end(tl), NULL);
        if (!end || end->level_count == 0) {
            qd_fail(&err, QD_ERR_BAD_DATA, tl_error(tl)->offset,
                    "not a demo: no level starts in it (%.200s)", tl_error(tl)->msg);
            tl_close(tl);
            app_report(o->demo, &err);
            if (why)
                *why = err;
            return NULL;
        }
        app_report(o->demo, tl_error(tl));
        if (why)
            *why = *tl_error(tl);
    }
    return tl;
}

timeline_t *app_open_timeline(const app_opts *o) { return open_timeline_why(o, NULL); }

/* No display: say so, and render a few frames to PNG instead. */
static int fallback_frames(const app_opts *o, const char *why)
{
    fprintf(stderr, "qdemo: %s; rendering 5 frames to qdemo-frames/ instead\n", why);
    app_opts r = *o;
    if (r.camera && !strcmp(r.camera, "free") && !r.camera_path)
        r.camera = NULL; /* (a free camera with no path has no place to be: the recorded
                          * view; a review saw the fallback refuse the play's options) */
    r.out_dir = "qdemo-frames";
    r.fps = 0; /* app_render: 5 frames spread over the demo */
    return app_render(&r);
}

/* What the window's owner does when a demo's loop ends. */
enum { PLAY_QUIT, PLAY_NEXT, PLAY_PREV, PLAY_OPEN };

void app_save_shot(const char *demo, double t, const rast_fb *fb, char *notice, size_t cap)
{
    uint8_t *png = NULL;
    size_t len = 0;
    qd_error err = {0};
    if (out_png_encode(fb, &png, &len, &err) != QD_OK) {
        snprintf(notice, cap, "screenshot: %.100s", err.msg);
        return;
    }
    long long m = player_minutes(&t);
    size_t n = strlen(demo) + 64;
    char *path = malloc(n);
    int fd = -1;
    /* beside the demo; where that folder may not be written (a read-only mount, a CD, a
     * shared folder), in the current one, as `k` writes its paths (a review) */
    const char *slash = strrchr(demo, '/');
    const char *stems[2] = {demo, slash ? slash + 1 : demo};
    for (int s = 0; s < 2 && fd < 0; s++) {
        if (s == 1 && !(slash && (errno == EACCES || errno == EROFS || errno == EPERM)))
            break;
        for (int k = 1; path && k < 100 && fd < 0; k++) {
            if (k == 1)
                snprintf(path, n, "%s-%lldm%06.3fs.png", stems[s], m, t - (double)m * 60);
            else
                snprintf(path, n, "%s-%lldm%06.3fs-%d.png", stems[s], m, t - (double)m * 60,
                         k);
            fd = qd_create_new(path);
            if (fd < 0 && errno != EEXIST)
                break;
        }
    }
    int written = fd >= 0 && qd_write_all(fd, png, len);
    if (fd >= 0 && close(fd) != 0)
        written = 0;
    if (written) {
        const char *base = strrchr(path, '/');
        snprintf(notice, cap, "saved %s%.100s", base ? "" : slash ? "./" : "",
                 base ? base + 1 : path);
    } else {
        int why = errno;
        if (fd >= 0)
            unlink(path); /* ours, and not whole */
        snprintf(notice, cap, "screenshot not saved: %s", path ? strerror(why) : "no memory");
    }
    free(path);
    free(png);
}

/* One demo of the playlist in the window until quit (PLAY_QUIT), 'n' or 'p' (PLAY_NEXT,
 * PLAY_PREV: only when the playlist has one that way) or files dropped on it (PLAY_OPEN:
 * their paths in drops, PLAYER_DROP_BYTES, *ndrops of them, each ended by a 0). *at: where
 * to begin (below the demo's start: at its start), then where it ended; notice (NULL: none):
 * a line shown for the first seconds; place: after the file name in the title (" (3/7)").
 * *rc gets the exit code. */
static int play_one(const app_opts *o, out_window *win, timeline_t *tl,
                    const player_cam_key *keys, int nkeys, int has_prev, int has_next,
                    char *drops, int *ndrops, double *at, const char *notice,
                    const char *place, int *rc_out)
{
    qd_error err = {0};
    int w = o->width, h = o->height;
    out_window_size(win, &w, &h);
    player_frame_size(&w, &h);
    rast_fb *fb = rast_fb_new(w, h);
    r_cache *cache = NULL; /* lit surfaces kept between frames */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cores < 1 ? 1 : cores > R_MAX_THREADS ? R_MAX_THREADS : (int)cores;
    player *p = calloc(1, sizeof *p);
    app_world world;
    memset(&world, 0, sizeof world);
    if (!fb || !p) {
        rast_fb_free(fb);
        free(p);
        *rc_out = APP_EXIT_INPUT;
        return PLAY_QUIT;
    }
    player_init(p, tl, w, h);
    if (keys) {
        memcpy(p->path, keys, (size_t)nkeys * sizeof *keys);
        p->path_len = nkeys;
        p->path_file = o->camera_path;
    }
    /* --camera free: along --camera-path's keys, as `render` draws them; without a path,
     * flying from the first frame's recorded view (before, from the map's origin, the
     * mouse not taken until 'f' was pressed twice) */
    int start_free = 0;
    if (o->camera && !strcmp(o->camera, "chase"))
        p->camera = PLAYER_CAM_CHASE;
    else if (o->camera && !strcmp(o->camera, "free") && p->path_len > 0)
        p->camera = PLAYER_CAM_PATH;
    else if (o->camera && !strcmp(o->camera, "free"))
        start_free = 1;
    p->mode = o->mode;
    p->no_gun = o->no_gun;
    p->no_dlights = o->no_dlights;
    p->hud = o->hud >= 0 ? o->hud : PLAYER_HUD_GAME;
    int follow_set = o->follow == NULL;
    if (*at > p->start)
        p->t = *at < p->end ? *at : p->end;
    if (notice && notice[0]) {
        snprintf(p->notice, sizeof p->notice, "%.250s", notice);
        p->notice_until = p->wall + 8.0;
    }

    /* sound: the same mixer as render --audio, heard while playing at any speed */
    app_audio audio;
    int have_audio = app_audio_init(&audio, o);
    out_audio *dev = have_audio ? out_audio_open(SND_RATE, &err) : NULL;
    static int told; /* (once a run: a review found the silence unexplained) */
    if (have_audio && !dev && !told++)
        fprintf(stderr, "qdemo: no sound: %s\n", err.msg);
    err = (qd_error){0};
    int16_t *abuf = dev ? malloc((size_t)SND_RATE / 4 * 4) : NULL;

    int rc = APP_EXIT_OK, action = PLAY_QUIT;
    double last = wall_now(), drawn_at = -1;
    int said_end = 0;
    char title[512] = "";
    while (!p->quit) {
        in_event ev;
        int events = 0;
        p->is_fullscreen = out_window_is_fullscreen(win);
        while (out_window_poll(win, &ev)) {
            events++;
            if (ev.type == IN_EV_RESIZE) {
                int nw = ev.w, nh = ev.h;
                player_frame_size(&nw, &nh);
                if (nw >= 16 && nh >= 16 && (nw != fb->w || nh != fb->h)) {
                    rast_fb *nfb = rast_fb_new(nw, nh);
                    if (nfb) {
                        rast_fb_free(fb);
                        fb = nfb;
                    }
                }
                ev.w = fb->w;
                ev.h = fb->h;
            }
            int was_free = p->camera == PLAYER_CAM_FREE;
            player_event(p, &ev);
            /* (the free camera starts where the view shown was: player_keep_view keeps it,
             * the followed player's or the chase camera's too; a review saw it jump to the
             * recorder's) */
            if (was_free != (p->camera == PLAYER_CAM_FREE))
                out_window_relative_mouse(win, p->camera == PLAYER_CAM_FREE);
        }
        double now = wall_now();
        player_tick(p, now - last);
        last = now;
        /* a demo cut short: said again when it is played to where it stops */
        if (notice && notice[0] && !tl_complete(tl) && p->t >= p->end && !said_end) {
            snprintf(p->notice, sizeof p->notice, "%.250s", notice);
            p->notice_until = p->wall + 8.0;
            said_end = 1;
        }

        const cl_state *cl = tl_state_at(tl, p->t, &err);
        if (!cl) {
            app_report(o->demo, &err);
            rc = APP_EXIT_INPUT;
            break;
        }
        if (!follow_set && cl->frame_count > 0) {
            p->follow = player_find(cl, o->follow);
            follow_set = 1;
        }
        double load0 = wall_now();
        app_world_update(&world, o, cl);
        last += wall_now() - load0; /* (a level's load is not played through: a review saw
                                     * the first second of each level skipped) */
        r_camera cam;
        player_camera(p, cl, p->t, &cam);
        player_keep_view(p, &cam);
        if (start_free) {
            p->camera = PLAYER_CAM_FREE;
            out_window_relative_mouse(win, 1);
            start_free = 0;
        }
        if (abuf) {
            int live = !p->paused && !p->dragging && !p->mute;
            snd_mixer_set_volume(audio.mix, 0.7f * p->volume);
            double a0 = wall_now();
            uint32_t n = app_audio_play(&audio, tl, &cl, p->t, p->speed, cam.origin, cam.angles,
                                        player_listener(p, cl, p->t), live, abuf, SND_RATE / 4,
                                        &err);
            if (audio.restarted) /* (its look-back's walk is not played through: a review
                                  * saw it count as a stall, and restart, every frame) */
                last += wall_now() - a0;
            if (!cl) {
                app_report(o->demo, &err);
                rc = APP_EXIT_INPUT;
                break;
            }
            /* a restart's lead replaces what was queued (a review: each seek or speed change
             * added 50 ms of delay, and past a quarter second mixes were thrown away); a
             * queue grown past a quarter second (a device's clock drifting from the wall's)
             * starts the sound again in the next frame rather than dropping a mix */
            if (!live || audio.restarted)
                out_audio_clear(dev);
            if (live && out_audio_queued(dev) > SND_RATE / 4) {
                out_audio_clear(dev);
                audio.live = 0;
            } else if (live) {
                out_audio_queue(dev, abuf, n);
            }
        }
        /* Nothing to draw for: a minimised window, or a paused one with nothing new (no
         * event, the camera not flying) drawn under a quarter second ago, when notices and
         * the bar's fading are looked at again (a review: both drew at full speed, a whole
         * core). The sound goes on. */
        int idle = out_window_hidden(win) ||
                   (!events && !p->shot && p->paused && !p->dragging &&
                    p->camera != PLAYER_CAM_FREE && drawn_at >= 0 && p->wall - drawn_at < 0.25);
        if (idle) {
            out_window_wait(win, 20);
        } else {
            r_options opt;
            player_options(p, cl, &opt);
            if (!cache)
                cache = r_cache_new(0);
            opt.cache = cache;
            opt.threads = threads; /* the window's frame over every core: bands of rows */
            r_render(world.assets, cl, p->t, &cam, &opt, fb);
            player_draw_huds(p->hud, p->follow, p->scores, p->camera == PLAYER_CAM_POV, cl,
                             &world, p->t, fb);
            if (p->shot) { /* the game's frame and HUD, without qdemo's own text and bar (a
                            * review: the notices and the bar were in the picture) */
                /* (times from the demo's first frame, as --from takes them and the bar
                 * shows: a review found the name's time refused by --from) */
                app_save_shot(o->demo, p->t - p->start, fb, p->notice, sizeof p->notice);
                p->notice_until = p->wall + 3.0;
                p->shot = 0;
            }
            if (world.notice[0] && p->wall < 6.0)
                draw_text(fb, 8, fb->h / 2, world.notice, rast_rgb(255, 220, 120),
                          fb->h >= 600 ? 2 : 1);
            player_overlay(p, cl, fb);
            if (out_window_present(win, fb, &err) != QD_OK) {
                fprintf(stderr, "qdemo: %s\n", err.msg);
                rc = APP_EXIT_OUTPUT;
                break;
            }
            drawn_at = p->wall;
        }
        if (p->fullscreen) {
            out_window_toggle_fullscreen(win);
            p->fullscreen = 0;
        }
        if (p->cut_ready) { /* 'i' and 'o': the command that renders the span */
            char cmd[2800], *abs_path = realpath(o->demo, NULL); /* (to run anywhere) */
            int have = player_cut_command(p, cl, abs_path ? abs_path : o->demo, cmd, sizeof cmd);
            free(abs_path);
            fprintf(stderr, have ? "qdemo: to render this span: %s\n" : "qdemo: %s\n", cmd);
            if (have && p->camera == PLAYER_CAM_FREE) /* (a review: not said) */
                snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd),
                         " (the recorded view: the free camera renders as a path, k and v)");
            snprintf(p->notice, sizeof p->notice, "%.250s", cmd);
            p->notice_until = p->wall + 8.0;
            p->cut_ready = 0;
        }
        /* the title: the demo's file name, the map and the time */
        const char *base = strrchr(o->demo, '/');
        double tt = p->t - p->start;
        long long m = player_minutes(&tt);
        char t2[512], file[208], map[64], ltitle[104];
        player_title_text(file, sizeof file, base ? base + 1 : o->demo);
        player_title_text(map, sizeof map, cl->level.map);
        player_title_text(ltitle, sizeof ltitle, cl->level.title);
        snprintf(t2, sizeof t2, "%s%s - %s %s - %lld:%02d - qdemo", file, place, map, ltitle,
                 m, (int)(tt - (double)m * 60));
        if (strcmp(t2, title)) {
            memcpy(title, t2, sizeof title);
            out_window_set_title(win, title);
        }
        if (p->ndrops) {
            memcpy(drops, p->drops, p->drops_len);
            *ndrops = p->ndrops;
            action = PLAY_OPEN;
            break;
        }
        if ((p->go > 0 && has_next) || (p->go < 0 && has_prev)) {
            action = p->go > 0 ? PLAY_NEXT : PLAY_PREV;
            break;
        }
        if (p->go) {
            snprintf(p->notice, sizeof p->notice, "%s", p->go > 0 ? "the last demo of the list"
                                                                  : "the first demo of the list");
            p->notice_until = p->wall + 2.0;
            p->go = 0;
        }
    }
    *at = p->t;
    free(abuf);
    out_audio_close(dev);
    if (have_audio)
        app_audio_free(&audio);
    app_world_free(&world);
    r_cache_free(cache);
    free(p);
    rast_fb_free(fb);
    *rc_out = rc;
    return rc == APP_EXIT_OK ? action : PLAY_QUIT;
}

/* Open path and index it: app_open_timeline for one file of the playlist; a line for the
 * window into note (cap bytes) when it fails, or when its index stopped early: the time the
 * demo now ends at, the reason and its byte (a review: only the terminal was told, which a
 * file manager's launch does not show). */
static timeline_t *open_demo(const app_opts *o, const char *path, char *note, size_t cap)
{
    app_opts one = *o;
    one.demo = path;
    qd_error why;
    timeline_t *tl = open_timeline_why(&one, &why);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char name[64], msg[sizeof why.msg];
    player_title_text(name, sizeof name, base);
    player_title_text(msg, sizeof msg, why.msg);
    if (!tl) {
        snprintf(note, cap, "%.60s: %.200s", name, msg);
    } else if (why.code != QD_OK) {
        double tt = tl_end(tl) - tl_start(tl);
        long long m = player_minutes(&tt);
        /* (where first: a narrow window wraps the reason) */
        snprintf(note, cap, "damaged at byte %llu: plays to %lld:%06.3f; %.160s",
                 (unsigned long long)why.offset, m, tt - (double)m * 60, msg);
    } else {
        note[0] = 0;
    }
    return tl;
}

int app_play(const app_opts *o)
{
    /* the playlist: the demos named (a folder gives its demos, in name order: main.c) */
    const char *const *list = o->num_demos > 0 ? o->demos : &o->demo;
    int n = o->num_demos > 0 ? o->num_demos : 1, i = 0;
    timeline_t *tl = NULL;
    char first[320];
    while (i < n && !(tl = open_demo(o, list[i], first, sizeof first)))
        i++; /* a demo that does not open was reported: the next one */
    if (!tl)
        return APP_EXIT_INPUT;
    qd_error err = {0};
    /* --camera-path: the keys 'k' adds to; they are saved to a new file, never into this one */
    player_cam_key *keys = NULL;
    int nkeys = 0;
    if (o->camera_path) {
        keys = malloc(PLAYER_MAX_PATH * sizeof *keys);
        if (keys)
            nkeys = player_path_load(o->camera_path, keys, PLAYER_MAX_PATH, &err);
        else
            qd_fail(&err, QD_ERR_NOMEM, 0, "out of memory");
        if (nkeys == 0) {
            app_report(o->camera_path, &err);
            free(keys);
            tl_close(tl);
            return APP_EXIT_INPUT;
        }
    }
    out_window *win = out_window_open("qdemo", o->width, o->height, &err);
    if (!win) {
        free(keys);
        tl_close(tl);
        app_opts one = *o;
        one.demo = list[i];
        return fallback_frames(&one, err.msg);
    }
    /* what was dropped on the window: one file is played (current; 'n'/'p' then go back to
     * the list), several files or a folder become the playlist (owned) */
    char *dropped = malloc(PLAYER_DROP_BYTES), *current = NULL;
    char **owned = NULL;
    int nowned = 0, ndropped = 0;
    char note[320];
    snprintf(note, sizeof note, "%s", first); /* (the first demo's damage, if any) */
    double at = -1; /* where the next play_one begins (below the start: at the start) */
    int rc = APP_EXIT_OK;
    while (tl && dropped) {
        app_opts one = *o;
        one.demo = current ? current : list[i];
        /* after a dropped file, 'n' and 'p' go back to the list where it was */
        char place[32] = ""; /* the playlist's place in the title: " (3/7)" (a review) */
        if (!current && n > 1)
            snprintf(place, sizeof place, " (%d/%d)", i + 1, n);
        int action = play_one(&one, win, tl, keys, nkeys, current ? 1 : i > 0,
                              current ? 1 : i + 1 < n, dropped, &ndropped, &at, note, place,
                              &rc);
        tl_close(tl);
        tl = NULL;
        if (action == PLAY_QUIT)
            break;
        double was = at;
        at = -1;
        if (action == PLAY_OPEN) {
            /* a folder gives its demos, as on the command line (a review: refused, and of
             * several files only the last was played) */
            const char *args[PLAYER_MAX_DROPS];
            const char *at_path = dropped;
            for (int k = 0; k < ndropped; k++, at_path += strlen(at_path) + 1)
                args[k] = at_path;
            char **got = NULL;
            int ngot = app_expand_demos(args, ndropped, &got);
            if (ngot == 1) {
                char *next = strdup(got[0]);
                app_free_demos(got, ngot);
                if (next && (tl = open_demo(o, next, note, sizeof note))) {
                    free(current);
                    current = next;
                    continue;
                }
                free(next);
            } else if (ngot > 1) {
                int j = 0;
                while (j < ngot && !(tl = open_demo(o, got[j], note, sizeof note)))
                    j++;
                if (tl) { /* the new playlist, at the first that opens */
                    app_free_demos(owned, nowned);
                    owned = got;
                    nowned = ngot;
                    list = (const char *const *)owned;
                    n = nowned;
                    i = j;
                    free(current);
                    current = NULL;
                    continue;
                }
                app_free_demos(got, ngot);
            } else {
                snprintf(note, sizeof note, "%s", ngot < 0 ? "out of memory listing the demos"
                                                          : "no demo in what was dropped");
            }
        } else {
            int dir = action == PLAY_NEXT ? 1 : -1, from = i;
            if (current) {
                free(current);
                current = NULL;
                dir = 0; /* 'n'/'p' after a dropped file: the list where it was */
            }
            for (i = from + dir;
                 i >= 0 && i < n && !(tl = open_demo(o, list[i], note, sizeof note));
                 i += dir ? dir : 1)
                ;
            if (tl)
                continue;
            i = from; /* none that way opens: back to the one we had */
        }
        /* nothing new opens: the one playing goes on where it was, the reason shown (a
         * review: it started again at 0:00, said only on the terminal; then the same after
         * 'n' onto a file that does not open) */
        char why[320];
        snprintf(why, sizeof why, "%s", note);
        tl = open_demo(o, current ? current : list[i], note, sizeof note);
        if (!tl && current) {
            free(current);
            current = NULL;
            tl = open_demo(o, list[i], note, sizeof note);
        }
        snprintf(note, sizeof note, "%s", why);
        at = was;
    }
    free(dropped);
    free(current);
    app_free_demos(owned, nowned);
    free(keys);
    out_window_close(win);
    return rc;
}
