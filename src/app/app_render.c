/* app_render.c: the `render` command: frames at demo times from + k/fps, headless, to PNG files
 * or a y4m stream, rendered and encoded on every core, bit-identical whatever the thread
 * count.
 *
 * The main thread walks the timeline in order and hands each frame's client states (one per
 * motion-blur sub-frame) to a slot; workers render, average and encode a slot on their own;
 * PNGs are written by the workers (to a new hidden temporary file of this run, then renamed,
 * so a frame file exists only when whole and a link planted at its name is never followed), y4m frames by the main thread in order. A frame's bytes depend
 * only on its slot's contents, which is why the thread count cannot change them. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/file.h"
#include "../output/out.h"
#include "app_sound.h"
#include "player.h"
#include "world.h"

enum { SLOT_FREE, SLOT_QUEUED, SLOT_BUSY, SLOT_DONE };

typedef struct slot {
    int state;
    int64_t index;
    int nsub;
    cl_state *states;   /* nsub client states */
    double *times;
    r_camera *cams;
    r_options opt;
    uint8_t *out;       /* y4m: the frame's planes */
    size_t out_len;
    qd_err err;
    qd_error error;
} slot;

typedef struct exporter {
    const app_opts *o;
    app_world world;
    int w, h, blur, y4m;
    int bt709;            /* the y4m's matrix: --bt709 / --bt601, else by size (below) */
    const char *dir;      /* the output folder, as given (PNG output) */
    int nslots;
    slot *slots;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    int stop;
    int64_t next_out;     /* the next frame to write or account for, in order */
    int64_t done_frames;
    int64_t streamed; /* y4m frames written whole to the stream */
    int rc;               /* the exit code so far */
    int follow;           /* the followed player's slot for the HUD, -1 the recorded view */
    int first_person;     /* the camera is a player's eyes (the HUD's crosshair) */
    int show_progress;
    char note[OUT_PNG_NOTE_MAX]; /* the options each PNG frame notes (make_note) */
    int64_t renoted;      /* --resume: whole frames made with other options (drawn again) */
} exporter;

/* The slots' buffers (any may be NULL) and the slots. */
static void free_slots(exporter *x)
{
    for (int i = 0; x->slots && i < x->nslots; i++) {
        free(x->slots[i].states);
        free(x->slots[i].times);
        free(x->slots[i].cams);
        free(x->slots[i].out);
    }
    free(x->slots);
    x->slots = NULL;
}

/* With the lock held: write (y4m) or account for (PNG) finished slots in frame order. With
 * wait set, wait for a slot in flight rather than stop at it. */
static void drain(exporter *x, int wait)
{
    for (;;) {
        slot *s = NULL;
        for (int i = 0; i < x->nslots; i++)
            if (x->slots[i].state != SLOT_FREE && x->slots[i].index == x->next_out)
                s = &x->slots[i];
        if (!s)
            return;
        if (s->state != SLOT_DONE) {
            if (!wait)
                return;
            pthread_cond_wait(&x->done, &x->lock);
            continue;
        }
        if (s->err != QD_OK && x->rc == APP_EXIT_OK) {
            fprintf(stderr, "%sqdemo: %s\n", x->show_progress ? "\n" : "", s->error.msg);
            x->rc = s->err == QD_ERR_OUTPUT ? APP_EXIT_OUTPUT : APP_EXIT_INPUT;
        }
        if (x->y4m && x->rc == APP_EXIT_OK &&
            (fwrite("FRAME\n", 1, 6, stdout) != 6 ||
             fwrite(s->out, 1, s->out_len, stdout) != s->out_len)) {
            fprintf(stderr, "qdemo: stdout: write failed\n");
            x->rc = APP_EXIT_OUTPUT;
        }
        if (x->y4m && x->rc == APP_EXIT_OK)
            x->streamed++;
        s->state = SLOT_FREE;
        x->next_out++;
        x->done_frames++;
    }
}

static volatile sig_atomic_t interrupted; /* the signal that stopped the render, or 0 */
static void on_signal(int sig) { interrupted = sig; }

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* DIR/NNNNNN.png in a new malloc'd string; NULL when out of memory. */
static char *frame_path(const exporter *x, int64_t index)
{
    char name[32];
    snprintf(name, sizeof name, "%06lld.png", (long long)index);
    return qd_path_join(x->dir, name);
}

/* The options a frame's pixels depend on, which each PNG frame notes (out_png_encode_noted)
 * and --resume compares: the demo (its name and size), the game data named on the command
 * line and whether the machine's installs are searched, the frame times (--fps and
 * --from; --to too for the preview's 5 frames, spread over the range), and what is drawn
 * and from where. Not the size (the PNG's IHDR holds it),
 * --to otherwise (a longer run keeps the frames of a shorter one), --threads (the same
 * bytes at any count), -q or --audio. */
static void make_note(const app_opts *o, char *note, size_t cap)
{
    struct stat st;
    long long size = stat(o->demo, &st) == 0 ? (long long)st.st_size : -1;
    const char *base = strrchr(o->demo, '/') ? strrchr(o->demo, '/') + 1 : o->demo;
    char fps[64], to[64] = "";
    if (o->fps_den)
        snprintf(fps, sizeof fps, "%ld/%ld", o->fps_num, o->fps_den);
    else
        snprintf(fps, sizeof fps, "%.17g", o->fps);
    if (o->fps <= 0)
        snprintf(to, sizeof to, "; to %.17g", o->to);
    size_t n = (size_t)snprintf(
        note, cap,
        "qdemo render: demo %s (%lld bytes); fps %s; from %.17g%s; mode %s; blur %d; hud %s; "
        "gun %s; dynamic lights %s; camera %s; camera path %s; follow %s; autodetect %s; "
        "-b %s",
        base, size, fps, o->from, to,
        o->mode == R_MODE_WIRE ? "wire" : o->mode == R_MODE_FLAT ? "flat" : "textured",
        o->blur > 1 ? o->blur : 1,
        o->hud == PLAYER_HUD_GAME      ? "game"
        : o->hud == PLAYER_HUD_MINIMAL ? "minimal"
                                       : "none", /* (render's default: none) */
        o->no_gun ? "off" : "on",
        o->no_dlights ? "off" : "on", o->camera ? o->camera : "pov",
        o->camera_path ? o->camera_path : "-", o->follow ? o->follow : "-",
        app_autodetect(o) ? "on" : "off", o->basedir ? o->basedir : "-");
    for (int i = 0; i < o->num_paks && n < cap; i++)
        n += (size_t)snprintf(note + n, cap - n, "; -p %s", o->paks[i]);
}

/* --resume: is the file at path a finished w x h frame of this run's options? 1: keep it;
 * 0: render it again (missing, a link, a FIFO, junk, cut short, another size, another
 * run's options: x->renoted counts those); -1: a folder is in the way (err set). */
static int frame_done(exporter *x, const char *path, int w, int h, qd_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (S_ISDIR(st.st_mode)) {
        qd_fail(err, QD_ERR_OUTPUT, 0, "%s: a folder is in the way", path);
        return -1;
    }
    if (!S_ISREG(st.st_mode))
        return 0;
    /* more than any PNG of ours can be: deflate at its worst adds under 1% */
    uint64_t raw = (uint64_t)h * (1 + 3 * (uint64_t)w);
    uint8_t *png;
    size_t len;
    if (qd_read_input(path, raw * 2 + 4096, &png, &len, NULL) != QD_OK)
        return 0;
    int ok = out_png_check(png, len, w, h, x->note);
    free(png);
    if (ok < 0 && x->renoted++ == 0)
        fprintf(stderr, "%sqdemo: warning: %s was made with other options (--fps, --from, "
                "--mode, the demo or its data); such frames are rendered again\n",
                x->show_progress ? "\n" : "", path);
    return ok > 0;
}

/* Render one slot into fb (averaging the sub-frames into acc), then encode it. */
static void render_slot(exporter *x, slot *s, rast_fb *fb, rast_fb *sub, uint32_t *acc,
                        r_cache *cache)
{
    size_t npix = (size_t)x->w * (size_t)x->h;
    r_options opt = s->opt;
    opt.cache = cache; /* the worker's own: only speed depends on it */
    if (s->nsub == 1) {
        r_render(x->world.assets, &s->states[0], s->times[0], &s->cams[0], &opt, fb);
    } else {
        memset(acc, 0, npix * 3 * sizeof *acc);
        for (int j = 0; j < s->nsub; j++) {
            r_render(x->world.assets, &s->states[j], s->times[j], &s->cams[j], &opt, sub);
            for (size_t i = 0; i < npix; i++) {
                uint32_t c = sub->color[i];
                acc[3 * i] += c & 255;
                acc[3 * i + 1] += (c >> 8) & 255;
                acc[3 * i + 2] += (c >> 16) & 255;
            }
        }
        uint32_t n = (uint32_t)s->nsub;
        for (size_t i = 0; i < npix; i++)
            fb->color[i] = rast_rgb((acc[3 * i] + n / 2) / n, (acc[3 * i + 1] + n / 2) / n,
                                    (acc[3 * i + 2] + n / 2) / n);
    }
    /* the HUD over the finished frame (after the blur), as the state of its last sub-frame */
    if (x->o->hud > 0) {
        const cl_state *last = &s->states[s->nsub - 1];
        player_draw_huds(x->o->hud, x->follow, 0, x->first_person, last, &x->world,
                         s->times[s->nsub - 1], fb);
    }
    if (x->y4m) {
        size_t ysz = npix, csz = (size_t)((x->w + 1) / 2) * (size_t)((x->h + 1) / 2);
        s->out_len = ysz + 2 * csz;
        out_rgb_to_yuv420(fb, x->bt709, s->out, s->out + ysz, s->out + ysz + csz);
        s->err = QD_OK;
        return;
    }
    uint8_t *png = NULL;
    size_t len = 0;
    s->err = out_png_encode_noted(fb, x->note, &png, &len, &s->error);
    if (s->err != QD_OK)
        return;
    char *final = frame_path(x, s->index);
    s->err = final ? qd_replace_file(final, png, len, &s->error)
                   : qd_fail(&s->error, QD_ERR_NOMEM, 0, "out of memory");
    free(final);
    free(png);
}

static void *worker(void *arg)
{
    exporter *x = arg;
    rast_fb *fb = rast_fb_new(x->w, x->h);
    rast_fb *sub = x->blur > 1 ? rast_fb_new(x->w, x->h) : NULL;
    uint32_t *acc = x->blur > 1 ? malloc((size_t)x->w * (size_t)x->h * 3 * sizeof *acc) : NULL;
    r_cache *cache = r_cache_new(0);
    int ok = fb && (x->blur <= 1 || (sub && acc));
    pthread_mutex_lock(&x->lock);
    for (;;) {
        slot *s = NULL;
        while (!x->stop) {
            /* the queued slot with the lowest frame index */
            for (int i = 0; i < x->nslots; i++)
                if (x->slots[i].state == SLOT_QUEUED &&
                    (!s || x->slots[i].index < s->index))
                    s = &x->slots[i];
            if (s)
                break;
            pthread_cond_wait(&x->work, &x->lock);
        }
        if (!s)
            break;
        s->state = SLOT_BUSY;
        pthread_mutex_unlock(&x->lock);
        if (ok)
            render_slot(x, s, fb, sub, acc, cache);
        else
            s->err = qd_fail(&s->error, QD_ERR_NOMEM, 0, "out of memory for a framebuffer");
        pthread_mutex_lock(&x->lock);
        s->state = SLOT_DONE;
        pthread_cond_broadcast(&x->done);
    }
    pthread_mutex_unlock(&x->lock);
    rast_fb_free(fb);
    rast_fb_free(sub);
    free(acc);
    r_cache_free(cache);
    return NULL;
}

/* The most bytes a name qdemo makes in the output folder can add to its path: "/", then
 * ".NNNNNNNNN.png.qdemo-PID-N.tmp" with a 20-digit PID and a 10-digit N. */
#define NAME_ROOM 64

/* Create dir (and its parents) and prove it can be written, by creating a new temporary
 * file there (never opening one that exists) and removing it. */
static int prepare_dir(const char *dir, char *why, size_t cap)
{
    size_t len = strlen(dir);
    if (len + NAME_ROOM >= PATH_MAX) {
        snprintf(why, cap, "the path is too long (%zu bytes; the frames' paths must stay under "
                 "%d)", len, PATH_MAX);
        return 0;
    }
    char *path = strdup(dir);
    if (!path) {
        snprintf(why, cap, "out of memory");
        return 0;
    }
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        mkdir(path, 0777);
        *p = '/';
    }
    int made = mkdir(path, 0777) == 0 || errno == EEXIST;
    int e = errno;
    free(path);
    if (!made) {
        snprintf(why, cap, "cannot create: %s", strerror(e));
        return 0;
    }
    char *probe = qd_path_join(dir, "write-test"), *tmp = NULL;
    int fd = probe ? qd_create_temp(probe, &tmp) : -1;
    e = probe ? errno : ENOMEM;
    free(probe);
    if (fd < 0) {
        snprintf(why, cap, "cannot write there: %s", strerror(e));
        return 0;
    }
    close(fd);
    unlink(tmp);
    free(tmp);
    return 1;
}

static long gcd(long a, long b)
{
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void progress(int64_t done, int64_t total, double t0)
{
    double el = wall_now() - t0;
    double fps = el > 0 ? (double)done / el : 0;
    double eta = fps > 0 ? (double)(total - done) / fps : 0;
    long long secs = eta < 1e12 ? (long long)eta : 999999999999LL; /* (an int overflowed) */
    fprintf(stderr, "\r%lld/%lld frames  %.1f fps  ETA %lld:%02lld  ", (long long)done,
            (long long)total, fps, secs / 60, secs % 60);
}

int app_render(const app_opts *o)
{
    exporter x;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.y4m = !strcmp(o->out_dir, "-");
    x.w = o->width;
    x.h = o->height;
    /* Untagged video is shown as BT.709 from 1280 wide or 577 high, else as BT.601: the
     * guess players make (mpv's mp_csp_guess_colorspace, RetroArch's ffmpeg core
     * set_colorspace: width >= 1280 || height > 576), and ffmpeg does not tag what it reads
     * from y4m; so the default matrix follows it (before, BT.601 at any size: HD renders'
     * colours came out shifted in players unless --bt709 was given). */
    x.bt709 = o->bt709 >= 0 ? o->bt709 : x.w >= 1280 || x.h > 576;
    x.blur = o->blur > 1 ? o->blur : 1;
    char why[256];
    int audio_rc = app_audio_check(o);
    if (audio_rc != APP_EXIT_OK)
        return audio_rc;
    if (!x.y4m) {
        make_note(o, x.note, sizeof x.note);
        x.dir = o->out_dir;
        if (!prepare_dir(x.dir, why, sizeof why)) {
            fprintf(stderr, "qdemo: %s: %s\n", x.dir, why);
            return APP_EXIT_OUTPUT;
        }
    }
    timeline_t *tl = app_open_timeline(o);
    if (!tl)
        return APP_EXIT_INPUT;

    /* The frame schedule: demo times from + k/fps in [from, to). fps 0 is `make run`'s
     * no-display preview: 5 frames spread over the demo. */
    double start = tl_start(tl), end = tl_end(tl);
    double from = start + o->from;
    double to = o->to >= 0 ? start + o->to : end;
    if (to > end)
        to = end;
    if (from > to) { /* (an empty range rendered one frame and said nothing; a review) */
        fprintf(stderr, "qdemo: --from %.3f s is past %s (%.3f s of demo)\n", o->from,
                o->to >= 0 && start + o->to < end ? "--to" : "the demo's end", to - start);
        tl_close(tl);
        return APP_EXIT_USAGE;
    }
    double fps = o->fps;
    int64_t count;
    x.rc = APP_EXIT_OK;
    if (fps <= 0) {
        count = 5;
        fps = to > from ? 5.0 / (to - from) : 1.0;
    } else {
        double span = (to - from) * fps;
        if (!(span < 1e9)) {
            fprintf(stderr, "qdemo: %g frames to render; narrow it with --from and --to\n",
                    span);
            tl_close(tl);
            return APP_EXIT_USAGE;
        }
        count = (int64_t)ceil(span - 1e-9);
    }
    if (count < 1)
        count = 1;

    player cam_player; /* the same camera choices as play */
    player_init(&cam_player, tl, x.w, x.h);
    if (o->camera && !strcmp(o->camera, "chase"))
        cam_player.camera = PLAYER_CAM_CHASE;
    int free_path = 0;
    if (o->camera && !strcmp(o->camera, "free")) {
        qd_error e;
        if (!o->camera_path) {
            fprintf(stderr, "qdemo: --camera free needs --camera-path FILE\n");
            tl_close(tl);
            return APP_EXIT_USAGE;
        }
        cam_player.path_len =
            player_path_load(o->camera_path, cam_player.path, PLAYER_MAX_PATH, &e);
        if (cam_player.path_len == 0) {
            app_report(o->camera_path, &e);
            tl_close(tl);
            return APP_EXIT_INPUT;
        }
        free_path = 1;
        cam_player.camera = PLAYER_CAM_FREE;
    }
    cam_player.mode = o->mode;
    cam_player.no_gun = o->no_gun;
    cam_player.no_dlights = o->no_dlights;
    qd_error err = {0};
    if (o->follow) {
        /* once, from the first frame of the range: a resumed run follows the same player */
        const cl_state *c0 = tl_state_at(tl, from, &err);
        cam_player.follow = c0 ? player_find(c0, o->follow) : -1;
        if (cam_player.follow < 0)
            fprintf(stderr, "qdemo: --follow %s: no such player; using the recorded view\n",
                    o->follow);
    }

    x.follow = cam_player.follow;
    x.first_person = cam_player.camera == PLAYER_CAM_POV;
    int threads = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    x.nslots = threads + 1;
    /* each slot holds blur client states (about 1.2 MB each): keep them under 1 GiB */
    size_t per_slot = (size_t)x.blur * sizeof(cl_state);
    while (x.nslots > 2 && (size_t)x.nslots * per_slot > ((size_t)1 << 30))
        x.nslots--;
    if (threads > x.nslots - 1)
        threads = x.nslots - 1;
    x.slots = calloc((size_t)x.nslots, sizeof *x.slots);
    int ok = x.slots != NULL;
    for (int i = 0; ok && i < x.nslots; i++) {
        slot *s = &x.slots[i];
        s->states = malloc((size_t)x.blur * sizeof *s->states);
        s->times = malloc((size_t)x.blur * sizeof *s->times);
        s->cams = malloc((size_t)x.blur * sizeof *s->cams);
        if (x.y4m)
            s->out = malloc((size_t)x.w * x.h * 2);
        ok = s->states && s->times && s->cams && (!x.y4m || s->out);
    }
    if (!ok) {
        fprintf(stderr, "qdemo: out of memory for %d render slots\n", x.nslots);
        free_slots(&x);
        tl_close(tl);
        return APP_EXIT_INPUT;
    }
    /* A stream's sound track is made before its first frame: a reader given both (ffmpeg
     * -i - -i a.wav) opens the WAV once the stream's header is in, and the stream waits for
     * it (a review: the README's one pipe found no file, or one left from an earlier run) */
    int audio_first = x.y4m && o->audio;
    if (audio_first) {
        int arc = app_audio_export(o, tl, &cam_player, free_path, from, fps, count);
        if (arc != APP_EXIT_OK) {
            free_slots(&x);
            tl_close(tl);
            return arc;
        }
    }
    if (x.y4m) {
        /* N/D as --fps gave it, else the rate in thousandths */
        long num = o->fps_den ? o->fps_num : lround(fps * 1000),
             den = o->fps_den ? o->fps_den : 1000, g = gcd(num, den);
        qd_error e;
        if (out_y4m_begin(stdout, x.w, x.h, (int)(num / g), (int)(den / g), x.bt709, &e) !=
            QD_OK) {
            fprintf(stderr, "qdemo: stdout: %s\n", e.msg);
            free_slots(&x);
            tl_close(tl);
            return APP_EXIT_OUTPUT;
        }
    }

    pthread_mutex_init(&x.lock, NULL);
    pthread_cond_init(&x.work, NULL);
    pthread_cond_init(&x.done, NULL);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    int started = 0;
    for (int i = 0; tids && i < threads; i++)
        started += pthread_create(&tids[i], NULL, worker, &x) == 0;
    if (started == 0) {
        fprintf(stderr, "qdemo: cannot start a render thread\n");
        x.rc = APP_EXIT_INPUT;
        x.stop = 1;
    }

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    interrupted = 0;

    x.show_progress = isatty(2) && !o->quiet;
    double t0 = wall_now(), last_progress = 0;


    pthread_mutex_lock(&x.lock);
    for (int64_t k = 0; k < count && x.rc == APP_EXIT_OK && !interrupted; k++) {
        if (o->resume && !x.y4m) {
            /* keep only whole frames of this size; anything else is rendered again */
            char *path = frame_path(&x, k);
            int done = path ? frame_done(&x, path, x.w, x.h, &err) : 0;
            free(path);
            if (done < 0) {
                drain(&x, 1);
                fprintf(stderr, "%sqdemo: %s\n", x.show_progress ? "\n" : "", err.msg);
                x.rc = APP_EXIT_OUTPUT;
                break;
            }
            if (done) {
                drain(&x, 1);
                x.next_out = k + 1;
                continue;
            }
        }
        /* a free slot, writing out what is finished meanwhile */
        slot *s = NULL;
        for (;;) {
            drain(&x, 0);
            for (int i = 0; i < x.nslots && !s; i++)
                if (x.slots[i].state == SLOT_FREE)
                    s = &x.slots[i];
            if (s)
                break;
            pthread_cond_wait(&x.done, &x.lock);
        }
        pthread_mutex_unlock(&x.lock);
        double t = from + (double)k / fps;
        s->index = k;
        s->nsub = x.blur;
        for (int j = 0; j < x.blur; j++) {
            double tj = t + (double)j / (fps * x.blur);
            const cl_state *cl = tl_state_at(tl, tj, &err);
            if (!cl) {
                app_report(o->demo, &err);
                x.rc = APP_EXIT_INPUT;
                break;
            }
            if (j > 0 && cl->level_count != s->states[0].level_count) {
                /* a new level inside the frame's shutter: the frame ends before it (a
                 * review: the new level's sub-frames were drawn with the old one's assets,
                 * blended in as placeholder boxes) */
                s->nsub = j;
                break;
            }
            s->states[j] = *cl;
            s->times[j] = tj;
            if (free_path)
                player_path_eval(cam_player.path, cam_player.path_len, tj, &s->cams[j]);
            else
                player_camera(&cam_player, cl, tj, &s->cams[j]);
        }
        /* only the main thread writes x.world, so reading it here needs no lock; from the
         * last sub-frame, whose lists hold what the level's earlier ones name */
        int level_changed =
            x.rc == APP_EXIT_OK && app_world_stale(&x.world, &s->states[s->nsub - 1]);
        player_options(&cam_player, &s->states[0], &s->opt);
        pthread_mutex_lock(&x.lock);
        if (x.rc != APP_EXIT_OK)
            break;
        if (level_changed) {
            /* new assets: wait until no worker draws with the old ones */
            for (int i = 0; i < x.nslots; i++)
                while (x.slots[i].state == SLOT_QUEUED || x.slots[i].state == SLOT_BUSY)
                    pthread_cond_wait(&x.done, &x.lock);
            app_world_update(&x.world, o, &s->states[s->nsub - 1]);
            /* a notice, not an error: only for a person at a terminal */
            if (x.world.notice[0] && x.show_progress)
                fprintf(stderr, "\rqdemo: %s\n", x.world.notice);
            if (x.world.damaged[0] && !o->quiet)
                fprintf(stderr, "%sqdemo: damaged, drawn without it: %s\n",
                        x.show_progress ? "\r" : "", x.world.damaged);
        }
        s->state = SLOT_QUEUED;
        pthread_cond_signal(&x.work);
        if (x.show_progress && wall_now() - last_progress > 0.25) {
            last_progress = wall_now();
            progress(x.done_frames, count, t0);
        }
    }
    /* finish what is queued (also after Ctrl-C: those frames are whole) */
    for (int i = 0; i < x.nslots; i++)
        while (x.slots[i].state == SLOT_QUEUED || x.slots[i].state == SLOT_BUSY)
            pthread_cond_wait(&x.done, &x.lock);
    drain(&x, 1);
    x.stop = 1;
    pthread_cond_broadcast(&x.work);
    pthread_mutex_unlock(&x.lock);
    for (int i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    free(tids);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    /* the stream's last bytes may still be in stdio's buffer: a full disk or a closed pipe
     * shows only here (a short render to /dev/full exited 0; found by a review) */
    if (x.y4m && (fflush(stdout) != 0 || ferror(stdout)) && x.rc == APP_EXIT_OK) {
        fprintf(stderr, "qdemo: stdout: write failed: %s\n", strerror(errno));
        x.rc = APP_EXIT_OUTPUT;
    }
    if (x.show_progress) {
        progress(x.done_frames, count, t0);
        fprintf(stderr, "\n");
    }
    if (o->audio && !audio_first && x.rc == APP_EXIT_OK && !interrupted) /* its own pass */
        x.rc = app_audio_export(o, tl, &cam_player, free_path, from, fps, count);
    if (audio_first && (x.rc != APP_EXIT_OK || interrupted)) {
        /* the track was made for every frame: cut to those the stream got (a review: a
         * stopped stream left a whole-range WAV beside it) */
        if (app_audio_cut(o->audio, from - start, x.streamed, fps))
            fprintf(stderr, "qdemo: %s: cut to the %lld frames streamed\n", o->audio,
                    (long long)x.streamed);
    }
    if (interrupted) {
        fprintf(stderr, "qdemo: interrupted after %lld whole frames%s\n",
                (long long)(x.y4m ? x.streamed : x.done_frames),
                x.y4m ? "" : "; --resume continues");
        x.rc = 128 + (int)interrupted;
    } else if (o->fps <= 0 && x.rc == APP_EXIT_OK) {
        fprintf(stderr, "qdemo: wrote %s/000000.png .. %06lld.png\n", x.dir,
                (long long)count - 1);
    }
    if (!x.y4m && x.rc == APP_EXIT_OK && !interrupted) {
        /* a frame past this run's last, from an earlier and longer one, would be taken
         * for part of it by a %06d.png reader (a review): said, not deleted */
        char *next = frame_path(&x, count);
        struct stat st;
        if (next && lstat(next, &st) == 0)
            fprintf(stderr, "qdemo: %s is from an earlier run (this one ends at %06lld.png)\n",
                    next, (long long)count - 1);
        free(next);
    }
    free_slots(&x);
    app_world_free(&x.world);
    pthread_mutex_destroy(&x.lock);
    pthread_cond_destroy(&x.work);
    pthread_cond_destroy(&x.done);
    tl_close(tl);
    return x.rc;
}
