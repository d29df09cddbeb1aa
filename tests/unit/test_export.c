/* test_export.c: `qdemo render` end to end on the bundled sample: frame counts, PNGs that
 * decode to the framebuffer, identical output for any thread count, resume after a kill,
 * ffmpeg reading the output, and exit 3 for an unwritable folder. */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stb_image.h>

#include "../../src/app/player.h"
#include "../../src/app/world.h"
#include "../../src/output/out.h"
#include "../test.h"

#define SAMPLE "assets/smoothme.dem"

static const char *qdemo_bin(void)
{
    const char *q = getenv("QDEMO");
    return q && *q ? q : "build/qdemo";
}

/* Run a shell command line; returns the exit status (or -1). */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int count_png(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        n += len == 10 && strcmp(e->d_name + 6, ".png") == 0;
    }
    closedir(d);
    return n;
}

/* The sample's length read from the file itself, not through qdemo: a .dem is its CD track
 * line, then blocks of a 32-bit length, three float view angles and that many bytes of
 * server message ([DEM] Girlich v1.0.9, 6.1 and 6.2); each of the sample's blocks starts with
 * svc_time (0x07) and its float (7.8). The last time less the first: 65.097 - 53.859 =
 * 11.238 s. -1 if absent. */
static double sample_duration(void)
{
    size_t n = 0;
    unsigned char *d = test_read_file(SAMPLE, &n);
    if (!d)
        return -1;
    size_t p = 0;
    while (p < n && d[p] != '\n')
        p++;
    p++;
    double first = -1, last = -1;
    while (p + 16 <= n) {
        uint32_t len = (uint32_t)d[p] | (uint32_t)d[p + 1] << 8 | (uint32_t)d[p + 2] << 16 |
                       (uint32_t)d[p + 3] << 24;
        if (len > n - p - 16)
            break;
        const unsigned char *m = d + p + 16;
        if (len >= 5 && m[0] == 7) {
            float t;
            memcpy(&t, m + 1, 4); /* little-endian, as this machine */
            first = first < 0 ? t : first;
            last = t;
        }
        p += 16 + len;
    }
    free(d);
    return first >= 0 ? last - first : -1;
}

/* The sample and the qdemo binary are there (else the test skips); $QDEMO set to something
 * that is not a program fails the test (make test sets it: a wrong one is no reason to skip). */
static int have_sample(void)
{
    const char *q = getenv("QDEMO");
    if (q && *q && access(q, X_OK) != 0)
        test_fail_at(__FILE__, __LINE__, "$QDEMO is set but is not a program");
    return access(SAMPLE, R_OK) == 0 && access(qdemo_bin(), X_OK) == 0;
}

TEST(export_frame_count_is_duration_times_fps)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    double len = sample_duration();
    CHECK(len > 5);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/count", test_tmpdir());
    CHECK_EQ(run("%s render %s -p assets -o %s --fps 10 --size 64x48 -q", qdemo_bin(), SAMPLE,
                 dir),
             0);
    CHECK_EQ(count_png(dir), (long long)ceil(len * 10 - 1e-9));
    snprintf(dir, sizeof dir, "%s/range", test_tmpdir());
    CHECK_EQ(run("%s render %s -p assets -o %s --fps 24 --from 2 --to 0:05.5 --size 64x48 -q",
                 qdemo_bin(), SAMPLE, dir),
             0);
    CHECK_EQ(count_png(dir), 84); /* 3.5 s at 24 fps */
}

TEST(export_png_decodes_to_the_framebuffer)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/match", test_tmpdir());
    CHECK_EQ(run("%s render %s -p assets -o %s --fps 2 --from 3 --to 4 --size 160x120 -q",
                 qdemo_bin(), SAMPLE, dir),
             0);
    /* the same frame rendered here: demo time start + 3.5 s (frame 1) */
    qd_error err;
    demo_t *d = demo_open(SAMPLE, &err);
    CHECK(d);
    timeline_t *tl = tl_open(d, 0, &err);
    CHECK(tl);
    double t = tl_start(tl) + 3.5;
    const cl_state *cl = tl_state_at(tl, t, &err);
    app_opts o;
    memset(&o, 0, sizeof o);
    o.paks[o.num_paks++] = "assets";
    app_world w;
    memset(&w, 0, sizeof w);
    app_world_update(&w, &o, cl);
    static player p;
    player_init(&p, tl, 160, 120);
    r_camera cam;
    r_options opt;
    player_camera(&p, cl, t, &cam);
    player_options(&p, cl, &opt);
    rast_fb *fb = rast_fb_new(160, 120);
    r_render(w.assets, cl, t, &cam, &opt, fb);
    char path[600];
    snprintf(path, sizeof path, "%s/000001.png", dir);
    int x, y, n;
    unsigned char *img = stbi_load(path, &x, &y, &n, 3);
    CHECK(img && x == 160 && y == 120);
    int diff = 0;
    for (int i = 0; i < 160 * 120; i++) {
        uint32_t c = fb->color[i];
        diff += img[3 * i] != (c & 255) || img[3 * i + 1] != ((c >> 8) & 255) ||
                img[3 * i + 2] != ((c >> 16) & 255);
    }
    CHECK_EQ(diff, 0);
    stbi_image_free(img);
    rast_fb_free(fb);
    app_world_free(&w);
    tl_close(tl);
}

static int same_files(const char *a, const char *b, int n)
{
    for (int i = 0; i < n; i++) {
        char pa[600], pb[600];
        snprintf(pa, sizeof pa, "%s/%06d.png", a, i);
        snprintf(pb, sizeof pb, "%s/%06d.png", b, i);
        if (run("cmp -s %s %s", pa, pb) != 0)
            return 0;
    }
    return 1;
}

TEST(export_identical_for_any_thread_count)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/t1", test_tmpdir());
    snprintf(b, sizeof b, "%s/t2", test_tmpdir());
    CHECK_EQ(run("%s render %s -p assets -o %s --fps 8 --size 200x150 --threads 1 --blur 2 -q",
                 qdemo_bin(), SAMPLE, a),
             0);
    CHECK_EQ(run("%s render %s -p assets -o %s --fps 8 --size 200x150 --threads 2 --blur 2 -q",
                 qdemo_bin(), SAMPLE, b),
             0);
    int n = count_png(a);
    CHECK(n > 50);
    CHECK_EQ(count_png(b), n);
    CHECK(same_files(a, b, n));
    /* and from run to run, into a new folder (nothing there to be left as it was) */
    char c[512];
    snprintf(c, sizeof c, "%s/t3", test_tmpdir());
    CHECK_EQ(run("%s render %s -p assets -o %s --fps 8 --size 200x150 --threads 2 --blur 2 -q",
                 qdemo_bin(), SAMPLE, c),
             0);
    CHECK_EQ(count_png(c), n);
    CHECK(same_files(a, c, n));
}

TEST(export_resume_after_kill)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char full[512], cut[512];
    snprintf(full, sizeof full, "%s/full", test_tmpdir());
    const char *args = "-p assets --fps 60 --size 320x240 -q";
    CHECK_EQ(run("%s render %s %s -o %s", qdemo_bin(), SAMPLE, args, full), 0);
    int n = count_png(full);
    CHECK(n > 600);
    /* kill -9 part way. The kill races the render (1.7 s here, sooner on a faster machine,
     * and a loaded machine may not run this loop for a while): a run that finished before
     * the kill landed proves nothing either way, so it is tried again, in a new folder. */
    int partial = 0;
    for (int attempt = 0; attempt < 5; attempt++) {
        snprintf(cut, sizeof cut, "%s/cut%d", test_tmpdir(), attempt);
        pid_t pid = fork();
        if (pid == 0) {
            execl(qdemo_bin(), "qdemo", "render", SAMPLE, "-p", "assets", "--fps", "60",
                  "--size", "320x240", "-q", "-o", cut, (char *)NULL);
            _exit(127);
        }
        CHECK(pid > 0);
        int got = 0;
        for (int i = 0; i < 4000 && got < 10; i++) {
            usleep(1000);
            got = count_png(cut);
        }
        kill(pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
        partial = count_png(cut);
        if (partial < n)
            break;
    }
    CHECK_MSG(partial > 0 && partial < n, "killed after %d of %d frames", partial, n);
    /* every frame present is whole */
    for (int i = 0; i < n; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/%06d.png", cut, i);
        if (access(p, F_OK) != 0)
            continue;
        int x, y, c;
        unsigned char *img = stbi_load(p, &x, &y, &c, 3);
        CHECK_MSG(img != NULL, "frame %d is not a whole PNG", i);
        stbi_image_free(img);
    }
    /* the frames the killed run finished, as they are: a resume that drew them again would
     * replace them (a new file renamed over each: another inode, another time) */
    static struct stat kept[2048];
    static int had[2048];
    CHECK(n <= 2048);
    for (int i = 0; i < n; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/%06d.png", cut, i);
        had[i] = stat(p, &kept[i]) == 0;
    }
    CHECK_EQ(run("%s render %s %s -o %s --resume", qdemo_bin(), SAMPLE, args, cut), 0);
    CHECK_EQ(count_png(cut), n);
    CHECK(same_files(full, cut, n));
    for (int i = 0; i < n; i++) {
        char p[600];
        struct stat now;
        snprintf(p, sizeof p, "%s/%06d.png", cut, i);
        CHECK(stat(p, &now) == 0);
        CHECK_MSG(!had[i] || (now.st_ino == kept[i].st_ino &&
                              now.st_mtim.tv_sec == kept[i].st_mtim.tv_sec &&
                              now.st_mtim.tv_nsec == kept[i].st_mtim.tv_nsec),
                  "frame %d, whole before the resume, was written again", i);
    }
}

TEST(export_quiet_stderr_when_not_a_terminal)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[512], errf[512];
    snprintf(dir, sizeof dir, "%s/quiet", test_tmpdir());
    snprintf(errf, sizeof errf, "%s/quiet.err", test_tmpdir());
    /* no -q: with stderr not a terminal there is no progress line and no notice */
    CHECK_EQ(run("%s render %s -p assets -o %s --fps 5 --size 64x48 2> %s", qdemo_bin(), SAMPLE,
                 dir, errf),
             0);
    struct stat st;
    CHECK(stat(errf, &st) == 0);
    CHECK_EQ(st.st_size, 0);
}

/* A .qwd's models arrive just after its first frame: the frame at t = 1 must be the same
 * whether the render starts at 0 or at 1 (the map loads either way). The models are there
 * (LibreQuake's, in id1/progs), and the frame shows them: without them it differs. */
TEST(export_qwd_frame_independent_of_start)
{
    char demo[1024], bsp[1024], progs[1024];
    if (!have_sample() ||
        !test_realfile(demo, sizeof demo, "qwd/paradoks81-quakeworld_slipgate-app_bps.qwd") ||
        !test_realfile(bsp, sizeof bsp, "bsp/paradoks81-quakeworld_slipgate-app_hud.bsp") ||
        !test_realfile(progs, sizeof progs, "librequake/id1/progs"))
        SKIP("no realdata qwd, its map or LibreQuake's models");
    char progs_abs[4096]; /* (the link must not depend on where the real data was named from) */
    CHECK(realpath(progs, progs_abs) != NULL);
    char base[512], bare[512], a[512], b[512], c[512];
    snprintf(base, sizeof base, "%s/qwbase", test_tmpdir());
    snprintf(bare, sizeof bare, "%s/qwbare", test_tmpdir());
    snprintf(a, sizeof a, "%s/qa", test_tmpdir());
    snprintf(b, sizeof b, "%s/qb", test_tmpdir());
    snprintf(c, sizeof c, "%s/qc", test_tmpdir());
    CHECK_EQ(run("mkdir -p %s/qw/maps %s/id1 %s/qw/maps && cp '%s' %s/qw/maps/hud.bsp && "
                 "cp '%s' %s/qw/maps/hud.bsp && ln -sfn '%s' %s/id1/progs",
                 base, base, bare, bsp, base, bsp, bare, progs_abs, base),
             0);
    CHECK_EQ(run("%s render '%s' -b %s -o %s --fps 1 --to 3 --size 160x120 -q", qdemo_bin(),
                 demo, base, a),
             0);
    CHECK_EQ(run("%s render '%s' -b %s -o %s --from 1 --fps 1 --to 3 --size 160x120 -q",
                 qdemo_bin(), demo, base, b),
             0);
    char fa[600], fb[600], fc[600];
    snprintf(fa, sizeof fa, "%s/000001.png", a);
    snprintf(fb, sizeof fb, "%s/000000.png", b);
    snprintf(fc, sizeof fc, "%s/000000.png", c);
    CHECK_EQ(test_same_pixels(fa, fb), 1);
    CHECK_EQ(run("%s render '%s' -b %s -o %s --from 1 --fps 1 --to 3 --size 160x120 -q",
                 qdemo_bin(), demo, bare, c),
             0);
    CHECK_MSG(test_same_pixels(fb, fc) == 0,
              "the frame at 1 s is the same without the models");
}

TEST(export_unwritable_output_exits_3)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    CHECK_EQ(run("%s render %s -o /proc/qdemo-cannot-write -q 2>/dev/null", qdemo_bin(),
                 SAMPLE),
             3);
}

TEST(export_ffmpeg_reads_y4m_and_png)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    if (access("/usr/bin/ffmpeg", X_OK) != 0)
        SKIP("ffmpeg is not installed");
    char out[512];
    snprintf(out, sizeof out, "%s/y4m.mp4", test_tmpdir());
    CHECK_EQ(run("%s render %s -p assets -o - --fps 30 --size 320x240 --to 2 -q | "
                 "ffmpeg -v error -y -i - -c:v mpeg4 %s",
                 qdemo_bin(), SAMPLE, out),
             0);
    struct stat st;
    CHECK(stat(out, &st) == 0 && st.st_size > 1000);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/ffpng", test_tmpdir());
    CHECK_EQ(run("%s render %s -p assets -o %s --fps 30 --size 320x240 --to 2 -q", qdemo_bin(),
                 SAMPLE, dir),
             0);
    snprintf(out, sizeof out, "%s/png.mp4", test_tmpdir());
    CHECK_EQ(run("ffmpeg -v error -y -framerate 30 -i %s/%%06d.png -c:v mpeg4 %s", dir, out), 0);
    CHECK(stat(out, &st) == 0 && st.st_size > 1000);
    /* the y4m stream decodes to 60 frames */
    CHECK_EQ(run("test \"$(%s render %s -p assets -o - --fps 30 --size 320x240 --to 2 -q | "
                 "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                 "stream=nb_read_frames -of csv=p=0 -)\" = 60",
                 qdemo_bin(), SAMPLE),
             0);
}
