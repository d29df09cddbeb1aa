/* test_output_safety.c: hostile output folders and input paths: planted links, overlong -o,
 * junk frames under --resume, other people's temporary files, FIFOs as inputs, and 'k'
 * never writing over its input; no input file may change. */
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <stb_image.h>

#include "../../src/app/player.h"
#include "../test.h"

#define SAMPLE "assets/smoothme.dem"
/* two 64x48 frames of the sample: quick */
#define FAST "-p assets --size 64x48 --fps 2 --to 1 -q"

static const char *bin(void)
{
    const char *q = getenv("QDEMO");
    return q && *q ? q : "build/qdemo";
}

/* The sample and the qdemo binary are there (else the test skips); $QDEMO set to something
 * that is not a program fails the test (make test sets it: a wrong one is no reason to skip). */
static int have_sample(void)
{
    const char *q = getenv("QDEMO");
    if (q && *q && access(q, X_OK) != 0)
        test_fail_at(__FILE__, __LINE__, "$QDEMO is set but is not a program");
    return access(SAMPLE, R_OK) == 0 && access(bin(), X_OK) == 0;
}

/* Run a shell command of any length, stderr captured into err (cap bytes, may be NULL);
 * returns its exit status. Every command runs under `timeout 20`, so a hang gives 124. */
static int run(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run(char *err, size_t cap, const char *fmt, ...)
{
    char *cmd = NULL, *full = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&cmd, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    char errfile[600];
    snprintf(errfile, sizeof errfile, "%s/stderr.txt", test_tmpdir());
    n = asprintf(&full, "timeout 20 %s 2>%s", cmd, errfile);
    free(cmd);
    if (n < 0)
        return -1;
    int st = system(full);
    free(full);
    if (err && cap) {
        err[0] = 0;
        FILE *f = fopen(errfile, "r");
        if (f) {
            size_t got = fread(err, 1, cap - 1, f);
            err[got] = 0;
            fclose(f);
        }
    }
    return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int lines_of(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* FNV-1a 64 of a file's bytes; 0 when it cannot be read. */
static uint64_t file_hash(const char *path)
{
    size_t len;
    unsigned char *b = test_read_file(path, &len);
    if (!b)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    free(b);
    return h;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

/* A fresh folder tmp/name (removed first) whose path goes to buf. */
static const char *fresh_dir(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", test_tmpdir(), name);
    run(NULL, 0, "rm -rf '%s'", buf);
    mkdir(buf, 0777);
    return buf;
}

/* 1 when path is a regular file (not a link) holding a 64x48 image. */
/* A fresh folder for tag (dir, 600 bytes), the path of file name in it (700) and of its
 * "out" (700). */
static void fresh_dir_with(char *dir, const char *tag, char *file, const char *name, char *out)
{
    fresh_dir(dir, 600, tag);
    snprintf(file, 700, "%s/%s", dir, name);
    snprintf(out, 700, "%s/out", dir);
}

static int is_frame(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    int x, y, n;
    unsigned char *img = stbi_load(path, &x, &y, &n, 3);
    stbi_image_free(img);
    return img && x == 64 && y == 48;
}

/* Entries of dir whose name contains s (at_end: ends with s); -1 when dir cannot be read. */
static int count_named_at(const char *dir, const char *s, int at_end)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    size_t sl = strlen(s);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        n += at_end ? len >= sl && strcmp(e->d_name + len - sl, s) == 0
                    : strstr(e->d_name, s) != NULL;
    }
    closedir(d);
    return n;
}

static int count_named(const char *dir, const char *s) { return count_named_at(dir, s, 0); }
static int count_png(const char *dir) { return count_named_at(dir, ".png", 1); }

TEST(output_links_planted_in_the_folder_are_not_followed)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[600], demo[700], victim[700], out[700], link[800], frame[800];
    fresh_dir(dir, sizeof dir, "planted");
    snprintf(demo, sizeof demo, "%s/in.dem", dir);
    snprintf(victim, sizeof victim, "%s/victim.txt", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    CHECK_EQ(run(NULL, 0, "cp %s %s", SAMPLE, demo), 0);
    CHECK(write_text(victim, "not a frame\n"));
    mkdir(out, 0777);
    /* the old probe name links to the input demo; a frame name links to a file outside */
    snprintf(link, sizeof link, "%s/.qdemo-write-test", out);
    CHECK(symlink(demo, link) == 0);
    snprintf(frame, sizeof frame, "%s/000001.png", out);
    CHECK(symlink(victim, frame) == 0);
    uint64_t h_demo = file_hash(demo), h_victim = file_hash(victim), h_sample = file_hash(SAMPLE);
    CHECK(h_demo && h_victim);
    CHECK_EQ(run(NULL, 0, "%s render %s -o %s " FAST, bin(), demo, out), 0);
    CHECK(file_hash(demo) == h_demo);
    CHECK(file_hash(victim) == h_victim);
    CHECK(file_hash(SAMPLE) == h_sample);
    /* the frame link was replaced by a frame, the planted probe link left alone */
    CHECK(is_frame(frame));
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK_EQ(count_named(out, ".qdemo"), 1); /* no temporary file of ours is left */
}

/* A folder path of at least len bytes under base, in 100-byte components; returned malloc'd. */
static char *long_path(const char *base, size_t len)
{
    size_t cap = len + 200;
    char *p = malloc(cap);
    if (!p)
        return NULL;
    size_t n = (size_t)snprintf(p, cap, "%s", base);
    while (n < len) {
        p[n++] = '/';
        for (int i = 0; i < 99; i++)
            p[n++] = (char)('a' + i % 26);
        p[n] = 0;
    }
    return p;
}

TEST(output_long_o_paths_are_used_whole_or_refused)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char base[600], err[8192];
    fresh_dir(base, sizeof base, "long");
    /* 1000+ bytes: the system takes it, so the frames land exactly there */
    char *p = long_path(base, 1000);
    CHECK(p && strlen(p) >= 1000);
    int rc = run(err, sizeof err, "%s render %s -o %s " FAST, bin(), SAMPLE, p);
    CHECK_EQ(rc, 0);
    CHECK_EQ(count_png(p), 2);
    /* and nowhere above it */
    for (char *s = strrchr(p, '/'); s && s > p + strlen(base); s = strrchr(p, '/')) {
        *s = 0;
        CHECK_EQ(count_png(p), 0);
        CHECK_EQ(count_named(p, ".tmp"), 0);
    }
    free(p);
    /* 4200+ bytes: over PATH_MAX; refused with one line and exit 3, nothing created */
    char base2[700];
    snprintf(base2, sizeof base2, "%s/over", base);
    mkdir(base2, 0777);
    p = long_path(base2, 4200);
    CHECK(p && strlen(p) >= 4200);
    rc = run(err, sizeof err, "%s render %s -o %s " FAST, bin(), SAMPLE, p);
    free(p);
    CHECK_EQ(rc, 3);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "too long") != NULL);
    CHECK_EQ(count_named(base2, "a"), 0);
}

TEST(output_resume_keeps_only_whole_frames)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[600], ref[700], small[700], out[700], victim[700], f[8][800], err[4096];
    fresh_dir(dir, sizeof dir, "resume");
    snprintf(ref, sizeof ref, "%s/ref", dir);
    snprintf(small, sizeof small, "%s/small", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(victim, sizeof victim, "%s/victim.txt", dir);
    CHECK(write_text(victim, "outside the output folder\n"));
    /* reference frames 0..5 at 64x48, and a 32x24 frame of the wrong size */
    CHECK_EQ(run(NULL, 0, "%s render %s -o %s -p assets --size 64x48 --fps 6 --to 1 -q", bin(),
                 SAMPLE, ref),
             0);
    CHECK_EQ(run(NULL, 0, "%s render %s -o %s -p assets --size 32x24 --fps 6 --to 1 -q", bin(),
                 SAMPLE, small),
             0);
    mkdir(out, 0777);
    for (int i = 0; i < 6; i++)
        snprintf(f[i], sizeof f[i], "%s/%06d.png", out, i);
    CHECK(write_text(f[0], "junk text\n"));                            /* text */
    CHECK(symlink(victim, f[1]) == 0);                                /* link outside */
    CHECK_EQ(run(NULL, 0, "head -c 100 %s/000002.png > %s", ref, f[2]), 0); /* cut short */
    CHECK_EQ(run(NULL, 0, "cp %s/000003.png %s", small, f[3]), 0);         /* wrong size */
    CHECK_EQ(run(NULL, 0, "cp %s/000004.png %s", ref, f[4]), 0);           /* whole: kept */
    char ref1[800];
    snprintf(ref1, sizeof ref1, "%s/000001.png", ref);
    CHECK(symlink(ref1, f[5]) == 0); /* a link, even to a good frame, is not kept */
    struct stat kept;
    CHECK(stat(f[4], &kept) == 0);
    uint64_t h_victim = file_hash(victim), h_ref1 = file_hash(ref1), h_sample = file_hash(SAMPLE);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x48 --fps 6 --to 1 "
                                  "--resume -q",
                 bin(), SAMPLE, out),
             0);
    for (int i = 0; i < 6; i++)
        CHECK_MSG(is_frame(f[i]), "frame %d is not a whole 64x48 PNG file", i);
    struct stat now;
    CHECK(stat(f[4], &now) == 0 && now.st_ino == kept.st_ino); /* kept, not rewritten */
    CHECK(file_hash(victim) == h_victim);
    CHECK(file_hash(ref1) == h_ref1);
    CHECK(file_hash(SAMPLE) == h_sample);
    /* a folder in the way: one line naming it, exit 3, the folder left alone */
    char out2[700], sub[800];
    snprintf(out2, sizeof out2, "%s/out2", dir);
    mkdir(out2, 0777);
    snprintf(sub, sizeof sub, "%s/000000.png", out2);
    mkdir(sub, 0777);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s " FAST " --resume", bin(), SAMPLE, out2),
             3);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "000000.png") != NULL);
    struct stat st;
    CHECK(lstat(sub, &st) == 0 && S_ISDIR(st.st_mode));
}

/* --resume keeps a frame only when it was made with the options the run asks for: each PNG
 * frame notes them (a tEXt chunk), so frames of another --fps, --from or --mode, with the
 * machine's installs searched or not, or of an earlier qdemo that wrote no note, are drawn
 * again (a review: they were kept, and a
 * sequence mixed two frame rates), and a run going on past a shorter one's --to keeps its
 * frames. */
TEST(output_resume_keeps_only_frames_of_the_same_options)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[600], a[700], f0[800], f1[800], err[4096];
    fresh_dir(dir, sizeof dir, "resume_options");
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(f0, sizeof f0, "%s/000000.png", a);
    snprintf(f1, sizeof f1, "%s/000001.png", a);
    /* 6 fps to 1 s: frames 0..5 (frame 1 at 1/6 s) */
    CHECK_EQ(run(NULL, 0, "%s render %s -o %s -p assets --size 64x48 --fps 6 --to 1 -q", bin(),
                 SAMPLE, a),
             0);
    CHECK_EQ(count_png(a), 6);
    struct stat s0, s1, now;
    CHECK(stat(f0, &s0) == 0 && stat(f1, &s1) == 0);
    /* the same options to 2 s: the six kept (the same files), six more made, nothing said */
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x48 --fps 6 --to 2 "
                                  "--resume -q",
                 bin(), SAMPLE, a),
             0);
    CHECK_EQ(count_png(a), 12);
    CHECK(stat(f1, &now) == 0 && now.st_ino == s1.st_ino);
    CHECK_MSG(strstr(err, "other options") == NULL, "%.200s", err);
    /* --fps 5 on them: frame 1 is now at 1/5 s, so every frame is drawn again (new files),
     * and one line says why */
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x48 --fps 5 --to 2 "
                                  "--resume -q",
                 bin(), SAMPLE, a),
             0);
    CHECK(stat(f1, &now) == 0 && now.st_ino != s1.st_ino);
    /* (and one that frames 10 and 11, of the 6 fps run, are past this run's end) */
    CHECK_EQ(lines_of(err), 2);
    const char *said = strstr(err, "other options");
    CHECK(said && strstr(said + 1, "other options") == NULL);
    CHECK(strstr(err, "000000.png was made") != NULL);
    /* the frames just made kept by a resume of the same run; --from 0.5 or --mode flat
     * draws them again */
    CHECK(stat(f1, &s1) == 0);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x48 --fps 5 --to 2 "
                                  "--resume -q",
                 bin(), SAMPLE, a),
             0);
    CHECK(stat(f1, &now) == 0 && now.st_ino == s1.st_ino);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x48 --fps 5 --to 2 "
                                  "--from 0.5 --resume -q",
                 bin(), SAMPLE, a),
             0);
    CHECK(stat(f1, &now) == 0 && now.st_ino != s1.st_ino);
    CHECK(stat(f1, &s1) == 0);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x48 --fps 5 --to 2 "
                                  "--from 0.5 --mode flat --resume -q",
                 bin(), SAMPLE, a),
             0);
    CHECK(stat(f1, &now) == 0 && now.st_ino != s1.st_ino);
    /* a whole frame without the note (an earlier qdemo's): the same PNG less its tEXt
     * chunk, found by hand in the file (length, "tEXt", data, CRC), is drawn again */
    FILE *fp = fopen(f0, "rb");
    CHECK(fp != NULL);
    static unsigned char png[1 << 20];
    size_t len = fp ? fread(png, 1, sizeof png, fp) : 0;
    if (fp)
        fclose(fp);
    unsigned char *t = len > 41 ? memmem(png, len, "tEXt", 4) : NULL;
    CHECK(t != NULL && t == png + 8 + 25 + 4); /* right after IHDR */
    if (!t)
        return;
    size_t n = (size_t)t[-4] << 24 | (size_t)t[-3] << 16 | (size_t)t[-2] << 8 | t[-1];
    CHECK(n > 6 && memcmp(t + 4, "qdemo", 6) == 0 && strstr((char *)t + 10, "mode flat"));
    size_t cut = 12 + n;
    memmove(t - 4, t - 4 + cut, len - (size_t)(t - 4 - png) - cut);
    fp = fopen(f0, "wb");
    CHECK(fp && fwrite(png, 1, len - cut, fp) == len - cut);
    if (fp)
        fclose(fp);
    CHECK(is_frame(f0));
    CHECK(stat(f0, &s0) == 0 && stat(f1, &s1) == 0);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x48 --fps 5 --to 2 "
                                  "--from 0.5 --mode flat --resume -q",
                 bin(), SAMPLE, a),
             0);
    CHECK(stat(f0, &now) == 0 && now.st_ino != s0.st_ino); /* drawn again */
    CHECK(stat(f1, &now) == 0 && now.st_ino == s1.st_ino); /* kept */
    CHECK(strstr(err, "000000.png was made with other options") != NULL);
    /* the machine's installs searched this time (they were not: the tests set
     * QDEMO_NO_AUTODETECT): other data, drawn again (a review) */
    CHECK_EQ(run(err, sizeof err, "env QDEMO_NO_AUTODETECT=0 %s render %s -o %s -p assets --size "
                                  "64x48 --fps 5 --to 2 --from 0.5 --mode flat --resume -q",
                 bin(), SAMPLE, a),
             0);
    CHECK(stat(f1, &now) == 0 && now.st_ino != s1.st_ino);
}

TEST(output_leaves_other_temporary_files_alone)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[600], a[700], b[700];
    fresh_dir(dir, sizeof dir, "temps");
    snprintf(a, sizeof a, "%s/.000001.png.tmp", dir);
    snprintf(b, sizeof b, "%s/.holiday.png.tmp", dir);
    CHECK(write_text(a, "someone else's\n"));
    CHECK(write_text(b, "someone else's too\n"));
    uint64_t ha = file_hash(a), hb = file_hash(b);
    CHECK_EQ(run(NULL, 0, "%s render %s -o %s " FAST, bin(), SAMPLE, dir), 0);
    CHECK(file_hash(a) == ha);
    CHECK(file_hash(b) == hb);
    CHECK_EQ(count_named(dir, ".qdemo"), 0); /* ours are gone */
    CHECK_EQ(count_png(dir), 2);
}

TEST(output_unwritable_folders_exit_3)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[600], file[700], err[4096];
    fresh_dir(dir, sizeof dir, "unwritable");
    snprintf(file, sizeof file, "%s/plain.txt", dir);
    CHECK(write_text(file, "a regular file\n"));
    uint64_t h = file_hash(file), h_sample = file_hash(SAMPLE);
    /* a folder under a regular file, the regular file itself, and /proc (root cannot write) */
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s/sub " FAST, bin(), SAMPLE, file), 3);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "plain.txt") != NULL);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s " FAST, bin(), SAMPLE, file), 3);
    CHECK_EQ(lines_of(err), 1);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o /proc/qdemo-no " FAST, bin(), SAMPLE), 3);
    CHECK_EQ(lines_of(err), 1);
    CHECK(file_hash(file) == h);
    CHECK(file_hash(SAMPLE) == h_sample);
}

TEST(output_fifo_inputs_are_refused_not_waited_on)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[600], fifo[700], out[700], err[4096];
    fresh_dir_with(dir, "fifo", fifo, "pipe.dem", out);
    CHECK(mkfifo(fifo, 0666) == 0);
    uint64_t h_sample = file_hash(SAMPLE);
    /* as the demo: exit 2, one line naming the file and saying why */
    CHECK_EQ(run(err, sizeof err, "%s info %s", bin(), fifo), 2);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "pipe.dem") && strstr(err, "FIFO"));
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s " FAST, bin(), fifo, out), 2);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "pipe.dem") && strstr(err, "FIFO"));
    /* as the camera path */
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s --camera free --camera-path %s " FAST,
                 bin(), SAMPLE, out, fifo),
             2);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "pipe.dem") && strstr(err, "FIFO"));
    /* as a -p (folders are fine, a FIFO is not) */
    CHECK_EQ(run(err, sizeof err, "%s info -p %s %s", bin(), fifo, SAMPLE), 2);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "pipe.dem") && strstr(err, "FIFO"));
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p %s " FAST, bin(), SAMPLE, out, fifo), 2);
    CHECK(file_hash(SAMPLE) == h_sample);
}

TEST(output_k_saves_a_new_path_file_never_the_input)
{
    if (access(SAMPLE, R_OK) != 0)
        SKIP("no sample demo");
    char dir[600], input[3][700];
    fresh_dir(dir, sizeof dir, "camkeys");
    /* the names the session's file would take this second and the next two, already there
     * (as a path file given to qdemo would be): each must stay as it is */
    uint64_t h[3];
    time_t now = time(NULL);
    for (int i = 0; i < 3; i++) {
        time_t at = now + i;
        struct tm tm;
        char stamp[32];
        CHECK(localtime_r(&at, &tm) && strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm));
        snprintf(input[i], sizeof input[i], "%s/qdemo-camera-%s.path", dir, stamp);
        CHECK(write_text(input[i], "1.0 0 0 0 0 0 0\n2.0 10 0 0 0 90 0\n"));
        h[i] = file_hash(input[i]);
    }
    qd_error err;
    demo_t *d = demo_open(SAMPLE, &err);
    CHECK(d);
    timeline_t *tl = tl_open(d, 0, &err);
    CHECK(tl);
    static player p;
    player_init(&p, tl, 64, 48);
    p.save_dir = dir;
    in_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = IN_EV_KEY_DOWN;
    ev.key = IN_KEY_A + ('k' - 'a');
    player_event(&p, &ev);
    p.t += 0.5; /* (a key at the same moment would replace the first) */
    player_event(&p, &ev);
    tl_close(tl);
    for (int i = 0; i < 3; i++) {
        CHECK_MSG(file_hash(input[i]) == h[i], "the file of second %d was written", i);
        CHECK(strcmp(p.saved_file, input[i]) != 0);
    }
    /* one new file qdemo-camera-YYYYmmdd-HHMMSS-N.path beside them, holding both keys */
    CHECK_EQ(count_named(dir, "qdemo-camera-"), 4);
    CHECK(strncmp(p.saved_file, dir, strlen(dir)) == 0);
    CHECK(strstr(p.saved_file, "/qdemo-camera-") && strstr(p.saved_file, "-2.path"));
    player_cam_key keys[4];
    CHECK_EQ(player_path_load(p.saved_file, keys, 4, &err), 2);
}

/* `--audio` is checked before the first frame (a review found the camera path overwritten by
 * a WAV with exit 0, and a folder reported only after every frame was written): an input of
 * the run or a folder is refused with one line, exit 3, no frame written and the input as
 * it was; an empty -o, a y4m stream to a full disk and an --fps under 0.001 fail too. */
TEST(output_audio_and_arguments_checked_before_the_frames)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[600], cam[700], out[700], err[4096];
    fresh_dir_with(dir, "audiocheck", cam, "cam.path", out);
    CHECK(write_text(cam, "0.0 0 0 0 0 0 0\n1.0 10 0 0 0 90 0\n"));
    uint64_t h_cam = file_hash(cam), h_sample = file_hash(SAMPLE);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s --camera free --camera-path %s --audio %s "
                 FAST, bin(), SAMPLE, out, cam, cam),
             3);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "cam.path") && strstr(err, "input"));
    CHECK(file_hash(cam) == h_cam);
    CHECK(count_png(out) <= 0); /* (-1: the folder was not even made) */
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s --audio %s " FAST, bin(), SAMPLE, out,
                 SAMPLE),
             3);
    CHECK(file_hash(SAMPLE) == h_sample);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s --audio %s " FAST, bin(), SAMPLE, out, dir),
             3);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "folder") != NULL);
    CHECK(count_png(out) <= 0); /* (-1: the folder was not even made) */
    /* a FIFO (a review: it was replaced by a plain file, exit 0, and a reader of the FIFO
     * waited for ever) */
    char fifo[700];
    snprintf(fifo, sizeof fifo, "%s/track.wav", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s --audio %s " FAST, bin(), SAMPLE, out,
                 fifo),
             3);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "FIFO") != NULL);
    struct stat fst;
    CHECK(lstat(fifo, &fst) == 0 && S_ISFIFO(fst.st_mode));
    CHECK(count_png(out) <= 0);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o '' " FAST, bin(), SAMPLE), 1);
    /* a size with more after it or past an int, and a range that ends before it starts */
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x36junk -q", bin(),
                 SAMPLE, out),
             1);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 4294967312x16 -q", bin(),
                 SAMPLE, out),
             1);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x48 --from 5 --to 1 -q",
                 bin(), SAMPLE, out),
             1);
    CHECK(strstr(err, "--from") != NULL);
    CHECK(count_png(out) <= 0);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --fps 0.0005 -q", bin(), SAMPLE,
                 out),
             1);
    /* a rate --fps takes whose thousandths do not reduce far (a review: 123457:1000 was
     * refused as a bad y4m rate, exit 3) */
    CHECK_EQ(run(err, sizeof err, "%s render %s -o - -p assets --size 64x36 --fps 123.457 "
                 "--to 0.05 -q > /dev/null", bin(), SAMPLE),
             0);
    /* --fps with more after the number ("29,97" was taken as 29, exit 0: a review), and
     * N/D, whose y4m header keeps the ratio as given (NTSC's 30000/1001, not 2997:100) */
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --fps 29,97 -q", bin(), SAMPLE,
                 out),
             1);
    CHECK(strstr(err, "--fps") != NULL);
    char hdr[700];
    snprintf(hdr, sizeof hdr, "%s/y4m_header.txt", dir);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o - -p assets --size 64x36 --fps 30000/1001 "
                 "--to 0.1 -q | head -c 40 > %s",
                 bin(), SAMPLE, hdr),
             0);
    char line[64] = "";
    FILE *hf = fopen(hdr, "r");
    CHECK(hf && fgets(line, sizeof line, hf));
    if (hf)
        fclose(hf);
    CHECK_MSG(strstr(line, " F30000:1001 ") != NULL, "header %s", line);
    /* a short stream fits stdio's buffer: the full disk shows only at the last flush */
    if (access("/dev/full", W_OK) == 0) {
        CHECK_EQ(run(err, sizeof err, "%s render %s -o - -p assets --size 64x36 --fps 5 --to 0.2 "
                     "-q > /dev/full", bin(), SAMPLE),
                 3);
        CHECK(strstr(err, "stdout") != NULL);
    }
}

/* `render -o - --audio a.wav` piped to a reader that opens the WAV once the stream's header
 * is in (as `ffmpeg -i - -i a.wav` does, the README's one pipe): the WAV is whole by then,
 * 44 bytes of header and 48,000 stereo 16-bit samples for 10 frames at 10 fps (by hand:
 * round(10 x 48000 / 10)). Before the fix it was written after the last frame: the reader
 * found no file (or one left from an earlier run). */
TEST(output_stream_sound_track_ready_with_its_header)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[600], wav[700], out[700], err[4096], size_file[700];
    fresh_dir_with(dir, "audiopipe", wav, "a.wav", out);
    snprintf(size_file, sizeof size_file, "%s/size.txt", dir);
    CHECK_EQ(run(err, sizeof err,
                 "%s render %s -o - -p assets --size 64x36 --fps 10 --to 1 --audio %s -q | "
                 "{ head -c 40 > /dev/null; stat -c %%s %s > %s 2>&1; cat > /dev/null; }",
                 bin(), SAMPLE, wav, wav, size_file),
             0);
    FILE *f = fopen(size_file, "r");
    long size = -1;
    CHECK(f && fscanf(f, "%ld", &size) == 1);
    if (f)
        fclose(f);
    CHECK_MSG(size == 44 + 48000 * 4, "the WAV was %ld bytes when the header came", size);
    /* the stream fails (a full disk): the WAV made for all 10 frames (384,044 bytes) is cut
     * to the frames the stream took, its header saying so (a review: a whole-range track
     * was left beside a stream that had stopped) */
    if (access("/dev/full", W_OK) == 0) {
        CHECK_EQ(run(err, sizeof err, "%s render %s -o - -p assets --size 64x36 --fps 10 --to 1 "
                     "--audio %s -q > /dev/full", bin(), SAMPLE, wav),
                 3);
        CHECK(strstr(err, "cut to the") != NULL);
        size_t n = 0;
        uint8_t *w = test_read_file(wav, &n);
        CHECK(w && n >= 44 && n < 44 + 48000 * 4 && (n - 44) % 4 == 0);
        if (w && n >= 44)
            CHECK_EQ((size_t)(w[40] | w[41] << 8 | w[42] << 16 | (uint32_t)w[43] << 24), n - 44);
        free(w);
    }
}

/* A shorter render into the folder of a longer one: one line says the frame past its last
 * is from the earlier run (a review: a %06d.png reader took the old frames for part of the
 * new render, in silence); nothing is deleted. */
TEST(output_frames_past_the_last_from_an_earlier_run_said)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[600], f[700], out[700], err[4096];
    fresh_dir_with(dir, "stale", f, "x", out);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x36 --fps 10 --to 1 -q",
                 bin(), SAMPLE, out),
             0);
    CHECK(strstr(err, "earlier run") == NULL);
    CHECK_EQ(count_png(out), 10);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets --size 64x36 --fps 10 --to 0.5 "
                 "-q", bin(), SAMPLE, out),
             0);
    CHECK_EQ(lines_of(err), 1);
    CHECK(strstr(err, "000005.png is from an earlier run") != NULL);
    CHECK_EQ(count_png(out), 10);
}

/* A model that is there but damaged (the sample's player.mdl cut to 3,000 bytes, in a -p
 * folder searched after assets): the render goes on with it drawn without, and one line
 * names the file, the reason and the byte (a review: it was only counted among the
 * missing, and only at a terminal). The skins start at byte 84 (the MDL header's size). */
TEST(output_damaged_model_named_with_its_offset)
{
    if (!have_sample())
        SKIP("no sample demo or qdemo binary");
    char dir[600], mdl[700], out[700], err[4096];
    fresh_dir_with(dir, "damaged", mdl, "progs", out);
    CHECK(mkdir(mdl, 0755) == 0);
    size_t n = 0;
    uint8_t *whole = test_read_file("assets/progs/player.mdl", &n);
    CHECK(whole && n > 3000);
    char path[800];
    snprintf(path, sizeof path, "%s/player.mdl", mdl);
    FILE *f = fopen(path, "wb");
    CHECK(f && whole && fwrite(whole, 1, 3000, f) == 3000);
    if (f)
        fclose(f);
    free(whole);
    CHECK_EQ(run(err, sizeof err, "%s render %s -o %s -p assets -p %s --size 64x36 --fps 2 "
                 "--to 1", bin(), SAMPLE, out, dir),
             0);
    CHECK_EQ(lines_of(err), 1);
    CHECK_MSG(strstr(err, "progs/player.mdl: ") && strstr(err, "(byte 84)"), "%.300s", err);
    CHECK_EQ(count_png(out), 2);
}
