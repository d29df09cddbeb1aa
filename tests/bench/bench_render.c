/* bench_render.c: rendering speed along a real demo's camera path, and export speed of the
 * whole `qdemo render` command to PNG and to y4m. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/app/player.h"
#include "../../src/app/world.h"
#include "../../src/render/render.h"
#include "../demo_world.h"
#include "bench.h"

#define SAMPLE "assets/smoothme.dem"

enum { FRAMES = 300 };

/* State cl at time t from the recorded camera into fb; returns the seconds r_render took. */
static double render_state(const cl_state *cl, double t, app_world *w, const app_opts *o,
                           player *p, rast_fb *fb, int mode, int threads, r_cache *cache)
{
    app_world_update(w, o, cl);
    r_camera cam;
    r_options opt;
    player_camera(p, cl, t, &cam);
    player_options(p, cl, &opt);
    opt.mode = mode;
    opt.cache = cache;
    opt.threads = threads;
    double t0 = bench_now();
    r_render(w->assets, cl, t, &cam, &opt, fb);
    return bench_now() - t0;
}

/* Frame k of frames along the demo's recorded camera (evenly spread from its start) into
 * fb; returns the seconds r_render took. */
static double render_at(timeline_t *tl, app_world *w, const app_opts *o, player *p,
                        rast_fb *fb, int mode, int threads, r_cache *cache, int k, int frames)
{
    qd_error err;
    double t = tl_start(tl) + (tl_end(tl) - tl_start(tl)) * k / frames;
    return render_state(tl_state_at(tl, t, &err), t, w, o, p, fb, mode, threads, cache);
}

/* Seconds spent in r_render over FRAMES frames along the sample's recorded camera, each
 * frame the least of TRIES passes over the whole path: this machine is a VM whose
 * neighbours take the CPU away for seconds at a time (single passes of the same row gave
 * 125 to 209 fps), and the least time is the one the renderer itself costs. */
enum { TRIES = 3 };

static double time_path(timeline_t *tl, app_world *w, const app_opts *o, player *p,
                        rast_fb *fb, int mode, int threads, r_cache *cache)
{
    double least[FRAMES];
    for (int i = 0; i < TRIES; i++)
        for (int k = 0; k < FRAMES; k++) {
            double s = render_at(tl, w, o, p, fb, mode, threads, cache, k, FRAMES);
            least[k] = i == 0 || s < least[k] ? s : least[k];
        }
    double busy = 0;
    for (int k = 0; k < FRAMES; k++)
        busy += least[k];
    return busy;
}

/* The timeline of demo, a world over the search path pak and a 1280x720 player on it, for
 * time_path; NULL when the demo cannot be opened. */
static timeline_t *path_open(const char *demo, const char *pak, app_opts *o, app_world *w,
                             player *p)
{
    return demo_world(demo, pak, o, w, p, 1280, 720);
}

/* The textured 1280x720 path again, its rows split over two threads (issue #11: at least
 * 1.7x one thread; passes on one and two threads in turn). Then what this machine gives two
 * busy cores at all: the one-thread path in two processes at once, each on its own, their
 * frames together against one alone (two vCPUs of a VM share more than two real cores do:
 * on 2026-11-28 two such renders ran at 1.6-1.7x one, the ceiling for the bands too). */
static void two_threads_row(timeline_t *tl, app_world *w, app_opts *o, player *p,
                            r_cache *cache)
{
    rast_fb *fb = rast_fb_new(1280, 720);
    /* the path on one thread, then on two, TRIES times over, each frame the least of its
     * TRIES: the two sides take turns within seconds (a ratio of two rows timed a minute
     * apart swung from 1.2x to 2.0x). Whole passes, not frame by frame: a one-thread frame
     * right after a two-thread one finds half the frame in the other core's cache (on the
     * Quake sample that made the one-thread frames 18 % slower, flattering the ratio) */
    double least[2][FRAMES];
    for (int i = 0; i < TRIES; i++)
        for (int n = 0; n < 2; n++)
            for (int k = 0; k < FRAMES; k++) {
                double s = render_at(tl, w, o, p, fb, R_MODE_TEXTURED, n + 1, cache, k, FRAMES);
                least[n][k] = i == 0 || s < least[n][k] ? s : least[n][k];
            }
    double one = 0, two = 0;
    for (int k = 0; k < FRAMES; k++) {
        one += least[0][k];
        two += least[1][k];
    }
    bench_out("| textured, 2 threads (passes on 1 and on 2 in turn) | 1280x720 | %d | "
              "%.2f (1 thread: %.2f) | %.0f (%.2fx one thread) | 1.7x | %s |\n",
              FRAMES, two / FRAMES * 1e3, one / FRAMES * 1e3, FRAMES / two, one / two,
              bench_met(one / two >= 1.7));
    fflush(NULL); /* the children's copies of the output buffers stay empty */
    int fds[2][2], kids = 0;
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        if (pipe(fds[i]) != 0)
            break;
        pid[i] = fork();
        if (pid[i] == 0) {
            r_cache *own = r_cache_new(0);
            double busy = time_path(tl, w, o, p, fb, R_MODE_TEXTURED, 1, own);
            ssize_t wr = write(fds[i][1], &busy, sizeof busy);
            _exit(wr == (ssize_t)sizeof busy ? 0 : 1);
        }
        close(fds[i][1]);
        if (pid[i] < 0) {
            close(fds[i][0]);
            break;
        }
        kids++;
    }
    double each[2] = {0, 0};
    int got = 0;
    for (int i = 0; i < kids; i++) {
        got += read(fds[i][0], &each[i], sizeof each[i]) == (ssize_t)sizeof each[i];
        close(fds[i][0]);
        waitpid(pid[i], NULL, 0);
    }
    if (got == 2 && each[0] > 0 && each[1] > 0)
        bench_out("| textured, 1 thread in each of 2 processes at once | 1280x720 | %d each | "
                  "%.2f, %.2f | %.0f together (%.2fx one alone) | (the machine's ceiling) | "
                  "(no target) |\n",
                  FRAMES, each[0] / FRAMES * 1e3, each[1] / FRAMES * 1e3,
                  FRAMES / each[0] + FRAMES / each[1], one / each[0] + one / each[1]);
    else
        bench_out("| textured, 1 thread in each of 2 processes at once | 1280x720 | | | (could "
                  "not run two processes) | | |\n");
    rast_fb_free(fb);
}

void bench_render(void)
{
    app_opts o;
    app_world w;
    static player p;
    timeline_t *tl = path_open(SAMPLE, "assets", &o, &w, &p);
    if (!tl) {
        bench_out("\n(render benchmark: %s not found: skipped)\n", SAMPLE);
        return;
    }
    bench_out("\n### Rendering along the camera path of %s on e1m1 (one core; each frame the "
              "least of %d)\n\n", SAMPLE, TRIES);
    bench_out("| mode | size | frames | ms/frame | fps | target fps | |\n"
              "|---|---|---:|---:|---:|---:|---|\n");
    static const int sizes[2][2] = {{1280, 720}, {1920, 1080}};
    static const int modes[3] = {R_MODE_TEXTURED, R_MODE_FLAT, R_MODE_WIRE};
    static const char *const names[3] = {"textured", "flat", "wire"};
    /* issue #11: textured 250 fps at 1280x720 and 120 at 1920x1080 on one core */
    static const int targets[3][2] = {{250, 120}, {0, 0}, {0, 0}};
    r_cache *cache = r_cache_new(0);
    for (int mi = 0; mi < 3; mi++) {
        for (int si = 0; si < 2; si++) {
            rast_fb *fb = rast_fb_new(sizes[si][0], sizes[si][1]);
            double busy = time_path(tl, &w, &o, &p, fb, modes[mi], 1, cache);
            char target[16] = "-";
            if (targets[mi][si])
                snprintf(target, sizeof target, "%d", targets[mi][si]);
            bench_out("| %s | %dx%d | %d | %.2f | %.0f | %s | %s |\n", names[mi], sizes[si][0],
                      sizes[si][1], FRAMES, busy / FRAMES * 1e3, FRAMES / busy, target,
                      targets[mi][si] ? bench_met(FRAMES / busy >= targets[mi][si])
                                      : "(no target)");
            rast_fb_free(fb);
        }
    }
    two_threads_row(tl, &w, &o, &p, cache);
    r_cache_free(cache);
    app_world_free(&w);
    tl_close(tl);
}

/* Textured on an OpenArena map along an OpenArena demo's camera (issue #11's Quake III
 * rows): the same targets as Quake's, one thread. Needs the realdata demo and Debian's
 * openarena packages. */
/* path_open on the OpenArena demo dm_70/NAME of the real data over Debian's OpenArena
 * files; NULL, with a row saying what (what) needs, when either is missing. */
static timeline_t *oa_path_open(const char *name, const char *what, app_opts *o, app_world *w,
                                player *p)
{
    static const char *const oa = "/usr/share/games/openarena/baseoa";
    char path[1024];
    snprintf(path, sizeof path, "%s/dm_70/%s", bench_realdata(), name);
    timeline_t *tl = access(oa, R_OK) == 0 ? path_open(path, oa, o, w, p) : NULL;
    if (!tl)
        bench_out("\n(%s: needs %s and %s: skipped)\n", what, path, oa);
    return tl;
}

void bench_render_q3(void)
{
    app_opts o;
    app_world w;
    static player p;
    timeline_t *tl = oa_path_open("openarena-081-misc_pak6-misc_flyby_oa_dm3.dm_70",
                                  "Quake III render benchmark", &o, &w, &p);
    if (!tl)
        return;
    bench_out("\n### Textured Quake III: oa_dm3 along flyby_oa_dm3.dm_70 (OpenArena), one core; "
              "each frame the least of %d\n\n", TRIES);
    bench_out("| mode | size | frames | ms/frame | fps | target fps | |\n"
              "|---|---|---:|---:|---:|---:|---|\n");
    static const int sizes[2][2] = {{1280, 720}, {1920, 1080}}, targets[2] = {250, 120};
    /* kept between frames, as the player keeps its own (app_play.c): r_render splits a
     * frame's rows between threads by the time each band took in the frames before, and
     * without a kept cache every frame would split them evenly (1.23x against 1.46x on two
     * threads, 150 frames of this path alternately, 2026-11-28) */
    r_cache *cache = r_cache_new(0);
    for (int si = 0; si < 2; si++) {
        rast_fb *fb = rast_fb_new(sizes[si][0], sizes[si][1]);
        double busy = time_path(tl, &w, &o, &p, fb, R_MODE_TEXTURED, 1, cache);
        bench_out("| textured | %dx%d | %d | %.2f | %.0f | %d | %s |\n", sizes[si][0],
                  sizes[si][1], FRAMES, busy / FRAMES * 1e3, FRAMES / busy, targets[si],
                  bench_met(FRAMES / busy >= targets[si]));
        rast_fb_free(fb);
    }
    two_threads_row(tl, &w, &o, &p, cache); /* issue #11's 1.7x on this map too */
    r_cache_free(cache);
    app_world_free(&w);
    tl_close(tl);
}

/* Bodies in the client state at the path's frames (active entities flagged as players, the
 * recorder's own included): the snapshot holds the ones its server sent, those near the
 * recorder's view. Their mean over the FRAMES frames. */
static double mean_bodies(timeline_t *tl)
{
    qd_error err;
    long n = 0;
    for (int k = 0; k < FRAMES; k++) {
        double t = tl_start(tl) + (tl_end(tl) - tl_start(tl)) * k / FRAMES;
        const cl_state *cl = tl_state_at(tl, t, &err);
        for (int e = 0; cl && e < cl->num_entities; e++)
            n += cl->entities[e].active && (cl->entities[e].cur.flags & CL_EF_PLAYER);
    }
    return (double)n / FRAMES;
}

/* Issue #12's speed: the players drawn as their models must not halve the frame rate: a
 * frame of a bot match with 16 players or more keeps textured 1280x720 above 200 fps on
 * one thread. OpenArena's stress demo (24 bots on oa_bases3) along its recorded view. */
void bench_render_players(void)
{
    app_opts o;
    app_world w;
    static player p;
    timeline_t *tl = oa_path_open("openarena-081-misc_pak6-misc_stress_bases3.dm_70",
                                  "player models benchmark", &o, &w, &p);
    if (!tl)
        return;
    bench_out("\n### Players as models: oa_bases3 along stress_bases3.dm_70 (24 bots, "
              "OpenArena), one core; each frame the least of %d\n\n", TRIES);
    bench_out("| mode | size | frames | bodies a frame | ms/frame | fps | target fps | |\n"
              "|---|---|---:|---:|---:|---:|---:|---|\n");
    rast_fb *fb = rast_fb_new(1280, 720);
    double bodies = mean_bodies(tl);
    double busy = time_path(tl, &w, &o, &p, fb, R_MODE_TEXTURED, 1, NULL);
    bench_out("| textured | 1280x720 | %d | %.1f | %.2f | %.0f | 200 | %s |\n", FRAMES, bodies,
              busy / FRAMES * 1e3, FRAMES / busy, bench_met(FRAMES / busy >= 200));
    rast_fb_free(fb);
    app_world_free(&w);
    tl_close(tl);
}

/* Issue #12's speed in Quake: "a 16-player frame (camper-style Quake deathmatch, ...) keeps
 * textured 1280x720 above 200 fps on one thread", and the models must not halve the frame
 * rate. No Quake demo here holds 16 players; the ffa MVD on the GPL dm4 holds five, its
 * recorded view following one of them. So each frame of its path gets, beside its own
 * players, players of other moments of the same match: from the places the five held at
 * CROWD_MOMENTS moments spread over the demo (each in its pose, frame and colours), the
 * ones nearest the camera inside its view (a cone of 45 degrees about where it looks),
 * until 15 bodies besides the viewer's stand there: sixteen players as a camper's view of
 * a busy dm4 would hold them, where players of this match really stood. Walls are not
 * asked about: a body behind one costs its set-up and depth tests, as the engines' own
 * would without a visibility test per model. The map is the GPL dm4 (linked as
 * maps/dm4.bsp in a scratch folder), the player model LibreQuake's (assets/). */
enum { CROWD = 16, CROWD_MOMENTS = 100, CROWD_POOL = CROWD_MOMENTS * 8 };

static struct {
    int n;
    cl_entity e[CROWD_POOL];
    double t[CROWD_POOL]; /* the moment each was taken at */
} pool;

/* The players of CROWD_MOMENTS moments of tl (the viewer's included: at another moment it
 * is a body like the rest). */
static void crowd_pool(timeline_t *tl)
{
    qd_error err;
    pool.n = 0;
    for (int j = 0; j < CROWD_MOMENTS; j++) {
        double t = tl_start(tl) + (tl_end(tl) - tl_start(tl)) * (j + 0.5) / CROWD_MOMENTS;
        const cl_state *o = tl_state_at(tl, t, &err);
        for (int e = 1; o && e < o->num_entities && pool.n < CROWD_POOL; e++)
            if (o->entities[e].active && (o->entities[e].cur.flags & CL_EF_PLAYER)) {
                cl_entity_settled(o, e, &pool.e[pool.n]); /* (settled: no list keeps it) */
                pool.t[pool.n++] = t;
            }
    }
}

/* How far org is from cam when it lies within 45 degrees of where cam looks (fwd) and no
 * nearer than 64 units (two players' boxes, 32 wide, cannot overlap), else -1. */
static float cone_dist(const r_camera *cam, const float fwd[3], const float org[3])
{
    float d[3] = {org[0] - cam->origin[0], org[1] - cam->origin[1], org[2] - cam->origin[2]};
    float l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    return l >= 64 && d[0] * fwd[0] + d[1] * fwd[1] + d[2] * fwd[2] > 0.7071f * l ? l : -1.0f;
}

/* The state at t with the crowd added (crowd 0: none; -1: no player at all, the map and
 * its items only) into out, seen from cam (the recorded view's); NULL when the timeline
 * cannot give it. *in_view: the bodies inside the view's cone. */
static const cl_state *crowd_at(timeline_t *tl, double t, int crowd, player *p, cl_state *out,
                                r_camera *cam, int *in_view)
{
    qd_error err;
    const cl_state *cl = tl_state_at(tl, t, &err);
    if (!cl)
        return NULL;
    memcpy(out, cl, sizeof *out);
    player_camera(p, out, t, cam);
    const float yaw = cam->angles[1] * (float)(M_PI / 180),
                pitch = cam->angles[0] * (float)(M_PI / 180);
    const float fwd[3] = {cosf(pitch) * cosf(yaw), cosf(pitch) * sinf(yaw), -sinf(pitch)};
    int have = 0; /* bodies besides the viewer's */
    *in_view = 0;
    for (int e = 1; e < out->num_entities; e++) {
        cl_entity *x = &out->entities[e];
        if (!x->active || !(x->cur.flags & CL_EF_PLAYER) || e == out->view.view_entity)
            continue; /* (the viewer's, never drawn, places the camera) */
        if (crowd < 0) {
            x->active = 0;
            continue;
        }
        have++;
        *in_view += cone_dist(cam, fwd, x->cur.origin) >= 0;
    }
    /* the pool's bodies in the cone, nearest first */
    static int pick[CROWD_POOL];
    static float dist[CROWD_POOL];
    int np = 0;
    for (int i = 0; crowd > 0 && i < pool.n; i++) {
        float dd = cone_dist(cam, fwd, pool.e[i].cur.origin);
        if (dd < 0)
            continue;
        int k = np++;
        for (; k > 0 && dist[k - 1] > dd; k--) {
            dist[k] = dist[k - 1];
            pick[k] = pick[k - 1];
        }
        dist[k] = dd;
        pick[k] = i;
    }
    for (int i = 0; i < np && have < CROWD - 1 && out->num_entities < CL_MAX_ENTITIES; i++) {
        cl_entity *g = &out->entities[out->num_entities++];
        *g = pool.e[pick[i]];
        double shift = t - pool.t[pick[i]]; /* its own moment, moved to t */
        g->cur_time += shift;
        g->prev_time += shift;
        g->anim_since[0] += shift;
        g->anim_since[1] += shift;
        g->listed = 0;
        have++;
        ++*in_view;
    }
    return out;
}

static uint64_t fb_hash(const rast_fb *fb);

/* Seconds r_render took over the FRAMES frames of the path with crowd (crowd_at), each
 * frame the least of TRIES; *bodies: the mean number of player bodies a frame (the
 * viewer's not counted), *seen: of them in the view's cone. */
static double time_crowd(timeline_t *tl, app_world *w, const app_opts *o, player *p,
                         rast_fb *fb, int crowd, r_cache *cache, double *bodies, double *seen)
{
    static cl_state *st;
    if (!st && !(st = malloc(sizeof *st)))
        return 0;
    double least[FRAMES] = {0};
    long nb = 0, nv = 0;
    /* QDEMO_BENCH_QUICK=1: one pass over every tenth frame (for counting instructions) */
    const int quick = getenv("QDEMO_BENCH_QUICK") != NULL;
    const int hashes = getenv("QDEMO_BENCH_HASHES") != NULL;
    for (int i = 0; i < (quick ? 1 : TRIES); i++)
        for (int k = 0; k < FRAMES; k += quick ? 10 : 1) {
            double t = tl_start(tl) + (tl_end(tl) - tl_start(tl)) * k / FRAMES;
            r_camera cam;
            int in_view = 0;
            const cl_state *cl = crowd_at(tl, t, crowd, p, st, &cam, &in_view);
            if (!cl)
                return 0;
            for (int e = 1; i == 0 && e < cl->num_entities; e++)
                nb += cl->entities[e].active && (cl->entities[e].cur.flags & CL_EF_PLAYER) &&
                      e != cl->view.view_entity;
            nv += i == 0 ? in_view : 0;
            app_world_update(w, o, cl);
            r_options opt;
            player_options(p, cl, &opt);
            opt.mode = R_MODE_TEXTURED;
            opt.cache = cache;
            opt.threads = 1;
            double t0 = bench_now();
            r_render(w->assets, cl, t, &cam, &opt, fb);
            double took = bench_now() - t0;
            least[k] = i == 0 || took < least[k] ? took : least[k];
            if (hashes && i == 0) /* QDEMO_BENCH_HASHES=1: each frame's hash (fb_hash) */
                printf("%d %d %016llx\n", crowd, k, (unsigned long long)fb_hash(fb));
        }
    double busy = 0;
    for (int k = 0; k < FRAMES; k++)
        busy += least[k];
    *bodies = (double)nb / FRAMES;
    *seen = (double)nv / FRAMES;
    return busy;
}

void bench_render_players_quake(void)
{
    char demo[1024], bsp[PATH_MAX], dir[PATH_MAX + 64], link[PATH_MAX + 128];
    snprintf(demo, sizeof demo, "%s/mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd", bench_realdata());
    snprintf(link, sizeof link, "%s/bsp/id-maps-gpl_dm4_bsp29+appendedzip.bsp", bench_realdata());
    char tmpl[] = "/tmp/qdemo-bench-XXXXXX";
    if (access(demo, R_OK) != 0 || !realpath(link, bsp) || !mkdtemp(tmpl)) {
        bench_out("\n(Quake players benchmark: needs %s and %s: skipped)\n", demo, link);
        return;
    }
    snprintf(dir, sizeof dir, "%s/maps", tmpl);
    snprintf(link, sizeof link, "%s/dm4.bsp", dir);
    app_opts o;
    app_world w;
    static player p;
    timeline_t *tl = mkdir(dir, 0700) == 0 && symlink(bsp, link) == 0
                         ? path_open(demo, tmpl, &o, &w, &p)
                         : NULL;
    if (tl)
        o.paks[o.num_paks++] = "assets"; /* LibreQuake's progs/player.mdl */
    else
        bench_out("\n(Quake players benchmark: cannot open %s over %s: skipped)\n", demo, tmpl);
    if (tl) {
        crowd_pool(tl);
        bench_out("\n### Players as models, Quake: dm4 along mvdparser_ffa_5_dm4 (5 players), "
                  "with players of other moments of the match added in view to make 16 "
                  "(issue #12), one core; each frame the least of %d\n\n", TRIES);
        bench_out("| players | size | frames | bodies a frame (in view) | ms/frame | fps | "
                  "target fps | |\n|---|---|---:|---:|---:|---:|---:|---|\n");
        rast_fb *fb = rast_fb_new(1280, 720);
        r_cache *cache = r_cache_new(0);
        static const int crowds[3] = {-1, 0, 1};
        static const char *const names[3] = {"none (the map and items)", "the demo's 5",
                                             "16 (the demo's and others in view)"};
        double none_fps = 0;
        /* QDEMO_BENCH_CROWD=N: only row N (0 none, 1 the demo's, 2 the 16), for a profile */
        const char *only = getenv("QDEMO_BENCH_CROWD");
        for (int c = 0; c < 3; c++) {
            if (only && atoi(only) != c)
                continue;
            double bodies = 0, seen = 0;
            double busy = time_crowd(tl, &w, &o, &p, fb, crowds[c], cache, &bodies, &seen);
            double fps = busy > 0 ? FRAMES / busy : 0;
            none_fps = c == 0 ? fps : none_fps;
            if (c < 2 || (only && c == 2)) /* (alone, the map's own rate is not known) */
                bench_out("| %s | 1280x720 | %d | %.1f (%.1f) | %.2f | %.0f | - | %s |\n",
                          names[c], FRAMES, bodies, seen, busy / FRAMES * 1e3, fps,
                          c < 2 ? "(no target)" : "(the row alone: see the whole table)");
            else /* above 200 fps, and at least half the rate with no player drawn */
                bench_out("| %s | 1280x720 | %d | %.1f (%.1f) | %.2f | %.0f | 200 (and half of "
                          "%.0f) | %s |\n",
                          names[c], FRAMES, bodies, seen, busy / FRAMES * 1e3, fps, none_fps,
                          bench_met(fps >= 200 && fps >= none_fps / 2));
        }
        r_cache_free(cache);
        rast_fb_free(fb);
        app_world_free(&w);
        tl_close(tl);
    }
    unlink(link);
    rmdir(dir);
    rmdir(tmpl);
}

/* FNV-1a over a frame's colour bytes. */
static uint64_t fb_hash(const rast_fb *fb)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)fb->color;
    size_t n = (size_t)fb->w * (size_t)fb->h * sizeof *fb->color;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

int bench_render_frames(const char *demo, const char *pak, int w, int h, int frames,
                        int threads)
{
    app_opts o;
    app_world wo;
    static player p;
    timeline_t *tl = path_open(demo, pak, &o, &wo, &p);
    rast_fb *fb = tl ? rast_fb_new(w, h) : NULL;
    if (!fb || frames < 1) {
        fprintf(stderr, "qdemo-bench frames: cannot open %s or make a %dx%d frame\n", demo, w,
                h);
        tl_close(tl);
        return 1;
    }
    r_cache *cache = r_cache_new(0);
    double busy = 0;
    /* QDEMO_BENCH_TRIES=N: each frame the least of N renders (time_path's way, against a
     * busy machine), for comparing two builds by the clock */
    const char *tries_env = getenv("QDEMO_BENCH_TRIES");
    int tries = tries_env ? atoi(tries_env) : 1;
    tries = tries < 1 ? 1 : tries > 100 ? 100 : tries;
    for (int k = 0; k < frames; k++) {
        double least = 0;
        for (int i = 0; i < tries; i++) {
            double s = render_at(tl, &wo, &o, &p, fb, R_MODE_TEXTURED, threads, cache, k, frames);
            least = i == 0 || s < least ? s : least;
        }
        busy += least;
        printf("%d %016llx\n", k, (unsigned long long)fb_hash(fb));
    }
    fprintf(stderr, "r_render: %.3f ms a frame; %.2f M surface texels built a frame\n",
            busy / frames * 1e3, (double)r_cache_texels_built(cache) / frames / 1e6);
    rast_fb_free(fb);
    r_cache_free(cache);
    app_world_free(&wo);
    tl_close(tl);
    return 0;
}

/* Issue #15's export targets, 1280x720 on 2 threads: flat y4m 400 fps, flat PNG 150 fps,
 * textured y4m 200 fps. */
void bench_export(void)
{
    char *q = (char *)bench_qdemo();
    if (access(SAMPLE, R_OK) != 0 || access(q, X_OK) != 0) {
        bench_out("\n(export benchmark: needs %s and %s: skipped)\n", SAMPLE, q);
        return;
    }
    bench_out("\n### Export: `qdemo render` of the whole sample (11.2 s of demo) at 60 fps, "
              "1280x720, 2 threads\n\n");
    bench_out("Whole command: process start, indexing, rendering, encoding, writing. CPU: user "
              "+ system of both threads (what a busy machine does not change).\n\n");
    bench_out("| output | mode | frames | seconds | fps | CPU s | target fps | |\n"
              "|---|---|---:|---:|---:|---:|---:|---|\n");
    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/qdemo-bench-%d", (int)getpid());
    static const struct {
        const char *out, *mode;
        int target;
    } rows[] = {{"PNG files", "flat", 150}, {"y4m to /dev/null", "flat", 400},
                {"y4m to /dev/null", "textured", 200}};
    int frames = 11200 * 60 / 1000 + 1; /* the y4m rows: every frame of the sample */
    for (int i = 0; i < 3; i++) {
        int png = rows[i].out[0] == 'P';
        char *argv[] = {q,        "render",     SAMPLE,          "-p",     "assets",
                        "--fps",  "60",         "--size",        "1280x720", "--mode",
                        (char *)rows[i].mode, "--threads", "2", "-q", "-o", png ? dir : "-",
                        NULL};
        double t0 = bench_now(), cpu = bench_run_cpu(argv, NULL, NULL), t = bench_now() - t0;
        if (png) {
            for (frames = 0;; frames++) {
                char p[512];
                snprintf(p, sizeof p, "%s/%06d.png", dir, frames);
                if (access(p, F_OK) != 0)
                    break;
            }
            char cmd[512];
            snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
            if (system(cmd) != 0)
                bench_out("(could not remove %s)\n", dir);
        }
        if (cpu < 0) {
            bench_out("| %s | %s | failed | | | | %d | NOT met |\n", rows[i].out, rows[i].mode,
                      rows[i].target);
            continue;
        }
        bench_out("| %s | %s | %d | %.2f | %.0f | %.2f | %d | %s |\n", rows[i].out,
                  rows[i].mode, frames, t, frames / t, cpu, rows[i].target,
                  bench_met(frames / t >= rows[i].target));
    }
}
