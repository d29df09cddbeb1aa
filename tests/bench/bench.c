/* bench.c: `make bench`: qdemo's speed tables, printed and written to B/bench-results.md.
 * Every number is measured on this machine in this run; nothing is assumed. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../../src/demo/demo.h"
#include "../../src/timeline/timeline.h"
#include "bench.h"

static FILE *md;

void bench_out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (md) {
        va_start(ap, fmt);
        vfprintf(md, fmt, ap);
        va_end(ap);
    }
    fflush(stdout);
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *bench_realdata(void)
{
    const char *e = getenv("QDEMO_REALDATA");
    return e && *e ? e : "../shared/realdata";
}

int bench_list(const char *sub, const char *const *exts, char names[][512], int max)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/%s", bench_realdata(), sub);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        size_t len = strlen(e->d_name);
        for (const char *const *x = exts; *x; x++) {
            size_t xl = strlen(*x);
            if (len > xl && strcmp(e->d_name + len - xl, *x) == 0) {
                snprintf(names[n++], 512, "%s/%.100s", dir, e->d_name);
                break;
            }
        }
    }
    closedir(d);
    /* sorted, so the table's order is stable */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j], names[j - 1]) < 0; j--) {
            char t[512];
            memcpy(t, names[j], 512);
            memcpy(names[j], names[j - 1], 512);
            memcpy(names[j - 1], t, 512);
        }
    return n;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Decode speed: the whole file from memory, its fastest pass in at least 0.5 s of them. */
static void bench_decode(const char *title, const char *sub, const char *const *exts)
{
    static char names[256][512];
    int n = bench_list(sub, exts, names, 256);
    if (n == 0) {
        bench_out("\n(%s: no files in %s/%s: skipped)\n", title, bench_realdata(), sub);
        return;
    }
    bench_out("\n### Decode speed: %s (one core, file in memory, the fastest pass in half a "
              "second)\n\n",
              title);
    /* issue #15: 300 MB/s or more for every format on its largest real demo; the smaller
     * files' rows are for reading (their time is mostly the fixed cost of a decode) */
    bench_out("| demo | size (KB) | frames | MB/s | frames/s | target MB/s | |\n"
              "|---|---:|---:|---:|---:|---:|---|\n");
    int largest = 0;
    off_t most = -1;
    for (int i = 0; i < n; i++) {
        struct stat stt;
        if (stat(names[i], &stt) == 0 && stt.st_size > most) {
            most = stt.st_size;
            largest = i;
        }
    }
    cl_state *cl = calloc(1, sizeof *cl);
    if (cl)
        cl_reset_zeroed(cl);
    for (int i = 0; i < n; i++) {
        qd_error err;
        demo_t *d = demo_open(names[i], &err);
        if (!d) {
            bench_out("| %s | | | error: %s | | 300 | NOT met |\n", base(names[i]), err.msg);
            continue;
        }
        /* the fastest of the passes in half a second, as the render rows take the least
         * of their tries: on this shared VM a pass's time swings by half with the
         * neighbours' load (the mean of them: 164 to 268 MB/s on one file within a minute) */
        uint32_t frames = 0;
        double t0 = bench_now(), t1, secs = 1e30;
        do {
            double p0 = bench_now();
            demo_rewind(d, &err);
            cl_clear(cl); /* as the timeline starts over */
            int done = 0;
            while (!done && demo_step(d, cl, NULL, &done, &err) == QD_OK) {
            }
            frames = cl->frame_count;
            t1 = bench_now();
            secs = t1 - p0 < secs ? t1 - p0 : secs;
        } while (t1 - t0 < 0.5);
        double mbs = demo_size(d) / secs / 1e6;
        if (i == largest)
            bench_out("| %s | %.0f | %u | %.0f | %.0f | 300 | %s |\n", base(names[i]),
                      demo_size(d) / 1024.0, frames, mbs, frames / secs, bench_met(mbs >= 300));
        else
            bench_out("| %s | %.0f | %u | %.0f | %.0f | - | (not the largest) |\n",
                      base(names[i]), demo_size(d) / 1024.0, frames, mbs, frames / secs);
        demo_close(d);
    }
    free(cl);
}

static uint32_t rng = 1;
static double rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (double)(rng >> 8) / (double)(1u << 24);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Seeking on the longest demo of a format: index build, 100 random seeks, index memory. */
static void bench_seek_row(const char *fmt, const char *sub, const char *const *exts)
{
    static char names[256][512];
    int n = bench_list(sub, exts, names, 256);
    if (n == 0) {
        bench_out("| %s | (no files) | | | | | | |\n", fmt);
        return;
    }
    /* the longest by duration: index each (cheap) and keep the longest */
    int best = -1;
    double best_len = -1;
    for (int i = 0; i < n; i++) {
        qd_error err;
        demo_t *d = demo_open(names[i], &err);
        if (!d)
            continue;
        timeline_t *tl = tl_open(d, 0, &err);
        if (!tl)
            continue;
        double len = tl_end(tl) - tl_start(tl);
        if (len > best_len) {
            best_len = len;
            best = i;
        }
        tl_close(tl);
    }
    if (best < 0) {
        bench_out("| %s | (none decodes) | | | | | | |\n", fmt);
        return;
    }
    qd_error err;
    /* a plain decode of the same file for the index's cost ratio (into a new client state,
     * as `info` does and as tl_open does) and the index build, each the best of five, the
     * two taken in turn: run as two groups they met different neighbours on this VM */
    double plain = 1e30, build = 1e30;
    timeline_t *tl = NULL;
    for (int k = 0; k < 5; k++) {
        demo_t *pd = demo_open(names[best], &err);
        double p0 = bench_now(); /* the state's allocation counts, as tl_open's does */
        cl_state *cl = pd ? calloc(1, sizeof *cl) : NULL;
        if (cl) {
            cl_reset_zeroed(cl);
            int done = 0;
            while (!done && demo_step(pd, cl, NULL, &done, &err) == QD_OK)
                ;
            double p = bench_now() - p0;
            plain = p < plain ? p : plain;
        }
        free(cl);
        demo_close(pd);
        tl_close(tl);
        demo_t *d = demo_open(names[best], &err);
        double t0 = bench_now();
        tl = tl_open(d, 0, &err);
        double b = bench_now() - t0; /* demo_open is outside both measures */
        build = b < build ? b : build;
    }
    double start = tl_start(tl), end = tl_end(tl);
    enum { SEEKS = 100 };
    double lat[SEEKS];
    for (int i = 0; i < SEEKS; i++) {
        double t = start + (end - start) * rnd();
        double s0 = bench_now();
        tl_state_at(tl, t, &err);
        lat[i] = (bench_now() - s0) * 1e3;
    }
    qsort(lat, SEEKS, sizeof lat[0], cmp_double);
    double minutes = (end - start) / 60.0;
    double ratio = build / (plain > 0 ? plain : 1e-9);
    bench_out("| %s | %s | %.1f | %.1f (%.2f%%) | %.2f %s | %.2f | %.2f | %.0f |\n", fmt,
              base(names[best]), end - start, build * 1e3,
              100.0 * build / (end - start > 0 ? end - start : 1), ratio,
              ratio <= 1.5 ? "met" : "NOT met", lat[SEEKS / 2], lat[SEEKS - 1],
              minutes > 0 ? tl_index_bytes(tl) / 1024.0 / minutes : 0);
    tl_close(tl);
}

/* Keyframe bytes per demo minute, every demo of a format: the timeline's index bytes minus
 * the frame index (so keyframes, plus the few marks), over the demo's length. The gate for
 * issue #10's ports: none may raise a row. */
static void bench_keyframe_rows(const char *fmt, const char *sub, const char *const *exts)
{
    static char names[256][512];
    int n = bench_list(sub, exts, names, 256);
    for (int i = 0; i < n; i++) {
        qd_error err;
        demo_t *d = demo_open(names[i], &err);
        timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
        if (!tl) {
            bench_out("| %s | %s | error: %s | | |\n", fmt, base(names[i]), err.msg);
            continue;
        }
        double len = tl_end(tl) - tl_start(tl);
        size_t bytes = tl_index_bytes(tl) - (size_t)tl_num_frames(tl) * sizeof(double);
        bench_out("| %s | %s | %.1f | %d | %.0f |\n", fmt, base(names[i]), len,
                  tl_num_keyframes(tl), len > 0 ? bytes / (len / 60.0) : 0);
        tl_close(tl);
    }
}

/* Every demo format: its table name (also its realdata folder) and file endings. */
static const char *const ext_dem[] = {".dem", NULL}, *const ext_qwd[] = {".qwd", NULL},
                         *const ext_mvd[] = {".mvd", NULL}, *const ext_dm2[] = {".dm2", NULL},
                         *const ext_q3[] = {".dm_66", ".dm_67", ".dm_68", ".dm_70", ".dm_71",
                                            NULL};
static const struct {
    const char *fmt;
    const char *const *exts;
} formats[] = {{"dem", ext_dem},   {"qwd", ext_qwd},   {"mvd", ext_mvd},
               {"dm2", ext_dm2},   {"dm_66", ext_q3},  {"dm_67", ext_q3},
               {"dm_68", ext_q3},  {"dm_70", ext_q3},  {"dm_71", ext_q3}};
#define NUM_FORMATS (sizeof formats / sizeof formats[0])

static void bench_keyframes(void)
{
    bench_out("\n### Keyframe bytes per demo minute (index bytes minus the frame index)\n\n");
    bench_out("| format | demo | length (s) | keyframes | bytes per minute |\n"
              "|---|---|---:|---:|---:|\n");
    for (size_t i = 0; i < NUM_FORMATS; i++)
        bench_keyframe_rows(formats[i].fmt, formats[i].fmt, formats[i].exts);
}

static void bench_timeline(void)
{
    bench_out("\n### Timeline: index build, seeking (100 random seeks), index memory\n\n");
    bench_out("| format | longest demo | length (s) | index build ms (%% of length) | "
              "x plain decode (target 1.5) | seek median ms | seek worst ms | "
              "index KB per minute |\n"
              "|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < NUM_FORMATS; i++)
        bench_seek_row(formats[i].fmt, formats[i].fmt, formats[i].exts);
}

/* The demo at path, open, and an all-zero client state for it in *cl; NULL (said on stderr)
 * when either fails. */
static demo_t *open_with_state(const char *path, cl_state **cl)
{
    qd_error err;
    demo_t *d = demo_open(path, &err);
    *cl = calloc(1, sizeof **cl);
    if (!d || !*cl) {
        fprintf(stderr, "%s: %s\n", path, d ? "out of memory" : err.msg);
        if (d)
            demo_close(d);
        free(*cl);
        return NULL;
    }
    return d;
}

/* `qdemo-bench decode RUNS DEMO`: the whole demo decoded RUNS times and nothing else, for
 * an instruction count that load does not change (tests/bench/instructions.sh: RUNS 1 minus RUNS
 * 0 is the decode alone). Prints the size and the frames of the last run. */
static int bench_decode_only(const char *runs_text, const char *path)
{
    qd_error err;
    cl_state *cl;
    demo_t *d = open_with_state(path, &cl);
    if (!d)
        return 1;
    int runs = atoi(runs_text);
    for (int i = 0; i < runs; i++) {
        demo_rewind(d, &err);
        cl_clear(cl); /* as bench_decode and the timeline start over */
        int done = 0;
        while (!done && demo_step(d, cl, NULL, &done, &err) == QD_OK) {
        }
    }
    printf("%zu bytes, %u frames\n", demo_size(d), runs > 0 ? cl->frame_count : 0u);
    demo_close(d);
    free(cl);
    return 0;
}

/* FNV-like over the 8-byte words of bytes [from, to) of p (both multiples of 8). */
static uint64_t hash_words(uint64_t a, const void *p, size_t from, size_t to)
{
    /* each word by memcpy: read through a uint64_t pointer, the state's floats and structs
     * would be accessed as another type (undefined; with link-time inlining the compiler
     * read a local entity's words before its copy had written them) */
    const unsigned char *b = (const unsigned char *)p + from;
    for (size_t i = 0; i < (to - from) / 8; i++) {
        uint64_t w;
        memcpy(&w, b + 8 * i, sizeof w);
        a = (a ^ w) * 0x100000001b3ull + (a >> 29);
    }
    return a;
}

/* `qdemo-bench states DEMO`: one hash of the whole client state after every frame a decode
 * ends, chained, and the frame count: a decoder change that must not change what the client
 * gets (a faster path to the same state) prints the same line before and after. The state
 * comes from calloc and each step writes it, so its bytes, padding included, are the
 * decoder's doing; entities a list kept whole (cl_list_keep_rest) are hashed as they read
 * (cl_entity_settled), so a state hashes the same whether they were kept lazily or one by
 * one. */
static int bench_states(const char *path)
{
    qd_error err;
    cl_state *cl;
    demo_t *d = open_with_state(path, &cl);
    if (!d)
        return 1;
    cl_reset_zeroed(cl);
    uint64_t h = 1469598103934665603ull;
    uint32_t hashed = 0;
    int done = 0;
    while (!done && demo_step(d, cl, NULL, &done, &err) == QD_OK) {
        if (cl->frame_count == hashed)
            continue;
        hashed = cl->frame_count;
        /* the state as it reads: entities kept lazily brought up to date, the lists'
         * bookkeeping (cl_state.lazy, cl_entity.list_gen) left out */
        const size_t e0 = offsetof(cl_state, entities), e1 = e0 + sizeof cl->entities;
        const size_t l0 = offsetof(cl_state, lazy), l1 = offsetof(cl_state, fxlog);
        h = hash_words(h, cl, 0, e0);
        for (int i = 0; i < CL_MAX_ENTITIES; i++) {
            cl_entity e;
            cl_entity_settled(cl, i, &e);
            h = hash_words(h, &e, 0, sizeof e);
        }
        h = hash_words(h, cl, e1, l0);
        h = hash_words(h, cl, l1, sizeof *cl);
    }
    printf("%016llx %u frames %s\n", (unsigned long long)h, cl->frame_count, path);
    demo_close(d);
    free(cl);
    return 0;
}

/* `qdemo-bench` runs every section into $QDEMO_BENCH_OUT; `qdemo-bench keyframes`,
 * `qdemo-bench timeline`, `qdemo-bench render` (`render-q3`: its Quake III rows;
 * `render-players`: the players' rows, `render-quake-players` Quake's), `qdemo-bench
 * process` and `qdemo-bench export` print only that table (quick, for checking a change) and write no file;
 * `qdemo-bench decode RUNS DEMO` only decodes; `qdemo-bench states DEMO` hashes the client
 * state frame by frame; `qdemo-bench frames DEMO PAK W H N THREADS`
 * prints N frame hashes (bench.h). */
/* Every format's decode table. */
static void bench_decode_tables(void)
{
    static const char *const dem[] = {".dem", NULL};
    static const char *const qwd[] = {".qwd", NULL};
    static const char *const mvd[] = {".mvd", NULL};
    bench_decode("Quake .dem", "dem", dem);
    bench_decode("QuakeWorld .qwd", "qwd", qwd);
    bench_decode("QuakeWorld .mvd", "mvd", mvd);
    static const char *const dm2[] = {".dm2", NULL};
    bench_decode("Quake II .dm2", "dm2", dm2);
    static const char *const mvd2[] = {".mvd2", NULL};
    bench_decode("Quake II .mvd2 (Q2PRO)", "mvd2", mvd2);
    static const char *const q3[] = {".dm_66", ".dm_67", ".dm_68", ".dm_70", ".dm_71", ".dm_73",
                                     NULL};
    bench_decode("Quake III .dm_66 (1.1x)", "dm_66", q3);
    bench_decode("Quake III .dm_67 (1.2x)", "dm_67", q3);
    bench_decode("Quake III .dm_68", "dm_68", q3);
    bench_decode("Quake III .dm_70 (OpenArena)", "dm_70", q3);
    bench_decode("Quake III .dm_71 (OpenArena)", "dm_71", q3);
    bench_decode("Quake Live .dm_73", "dm_73", q3);
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "rusage") == 0)
        return bench_rusage_main(argv + 2);
    if (argc == 4 && strcmp(argv[1], "decode") == 0)
        return bench_decode_only(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "states") == 0)
        return bench_states(argv[2]);
    if (argc == 8 && strcmp(argv[1], "frames") == 0)
        return bench_render_frames(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]),
                                   atoi(argv[6]), atoi(argv[7]));
    if (argc > 1 && strcmp(argv[1], "decode-tables") == 0) { /* only the decode rows */
        bench_decode_tables();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "keyframes") == 0) {
        bench_keyframes();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "timeline") == 0) {
        bench_timeline();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "process") == 0) { /* start-up, memory, peers */
        bench_process();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "export") == 0) { /* the export table */
        bench_export();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "render-quake-players") == 0) { /* only Quake's */
        bench_render_players_quake();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "render-players") == 0) { /* only the players' rows */
        bench_render_players_quake();
        bench_render_players();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "render-q3") == 0) { /* only Quake III's rows */
        bench_render_q3();
        bench_render_players();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "render") == 0) { /* only the render table, no file */
        bench_render();
        bench_render_q3();
        bench_render_players_quake();
        bench_render_players();
        return 0;
    }
    /* the table file: $QDEMO_BENCH_OUT (make bench sets B/bench-results.md) */
    const char *out = getenv("QDEMO_BENCH_OUT");
    if (!out || !*out)
        out = "bench-results.md";
    md = fopen(out, "w");
    struct utsname u;
    uname(&u);
    char cpu[256] = "unknown CPU";
    FILE *ci = fopen("/proc/cpuinfo", "r");
    if (ci) {
        char line[512];
        while (fgets(line, sizeof line, ci))
            if (strncmp(line, "model name", 10) == 0) {
                char *p = strchr(line, ':');
                if (p) {
                    snprintf(cpu, sizeof cpu, "%s", p + 2);
                    cpu[strcspn(cpu, "\n")] = 0;
                }
                break;
            }
        fclose(ci);
    }
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    char load[64] = "unknown";
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fgets(load, sizeof load, la))
            load[strcspn(load, " ")] = 0; /* the 1-minute load average */
        fclose(la);
    }
    bench_out("# qdemo benchmark\n\nMachine: %s, %ld cores online, %s %s, load %s; %s.\n",
              cpu, sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.machine, load, date);

    bench_decode_tables();

    bench_timeline();
    bench_keyframes();

    bench_render();
    bench_render_q3();
    bench_render_players_quake();
    bench_render_players();
    bench_export();
    bench_process();
    if (md)
        fclose(md);
    printf("\n(written to %s)\n", out);
    return 0;
}
