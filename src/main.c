/* main.c: qdemo's command line: parses options, runs a command, turns errors into exit codes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "common/file.h"
#include "common/text.h"
#include "app/player.h"
#include "render/render.h"

#define QDEMO_VERSION "0.1.0"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: qdemo [play] DEMO... [options]     watch demos in a window (a folder: its\n"
            "                                         demos; n/p next/previous)\n"
            "       qdemo render DEMO -o DIR [options] write frames as DIR/000000.png ...\n"
            "                                         (-o - writes a y4m stream to stdout)\n"
            "       qdemo info [--json] DEMO...       decode each demo whole and report on it\n"
            "                                         (--json: one object a line)\n"
            "       qdemo dump DEMO                   print every message as a line of text\n"
            "\n"
            "options:\n"
            "  -b, --basedir DIR   game install holding id1/, qw/, baseq2/, baseq3/ or baseoa/\n"
            "                      (default $QDEMO_BASEDIR; installs found on the machine\n"
            "                      and qdemo.conf's basedir lines are read beneath it)\n"
            "  --no-autodetect     read only -b, $QDEMO_BASEDIR and -p\n"
            "  -p, --pak FILE|DIR  add a PAK/PK3 archive or a game folder on top (repeatable)\n"
            "  --fps N             render: frames per second, or N/D (30000/1001; default 30)\n"
            "  --size WxH          render size (default 1280x720; play: the window's size)\n"
            "  --from T, --to T    render: start and end, in seconds or mm:ss.fff\n"
            "  --mode textured|flat|wire  drawing mode (default textured)\n"
            "  --no-gun            no first-person weapon in the recorded view\n"
            "  --no-dlights        no dynamic lights (muzzle flashes, rockets, explosions)\n"
            "  --hud none|minimal|game  status bar (default: game in the window, none in\n"
            "                      render)\n"
            "  --camera pov|chase|free, --follow NAME|N, --camera-path FILE\n"
            "  --threads N, --blur N, --resume\n"
            "  --bt709, --bt601    y4m colour matrix (default: BT.709 from 1280 wide or 577\n"
            "                      high, as players take untagged video; BT.601 below)\n"
            "  --audio FILE.wav    render: also write the sound track (48 kHz stereo)\n"
            "  -h, --help          this text\n"
            "  --version           print the version\n"
            "\n"
            "exit status: 0 ok, 1 usage, 2 unreadable/damaged/unsupported input, 3 output not\n"
            "writable.\n");
}

/* Seconds from "12.5" or "mm:ss.fff" (or "hh:mm:ss.fff"); -1 when malformed. */
static double parse_time(const char *s)
{
    double t = 0;
    const char *p = s;
    for (int part = 0; part < 3; part++) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v) || v < 0 || v > 1e7)
            return -1;
        t = t * 60 + v;
        if (*end == 0)
            return t;
        if (*end != ':')
            return -1;
        p = end + 1;
    }
    return -1;
}

/* The command cmd on o (after its options and demos are parsed). */
static int run(const char *cmd, app_opts *o)
{
    /* a -p that is neither a folder nor a file stops the command; a broken archive is one
     * warning line, then the command goes on without it */
    if (app_check_paks(o) < 0)
        return APP_EXIT_INPUT;
    if (!strcmp(cmd, "info")) {
        int rc = APP_EXIT_OK;
        for (int i = 0; i < o->num_demos; i++) { /* one report (JSON: one line) a demo */
            o->demo = o->demos[i];
            int r = app_info(o);
            rc = r > rc ? r : rc;
        }
        return rc;
    }
    if (!strcmp(cmd, "dump"))
        return app_dump(o);
    qd_heap_huge(); /* (play and render load a level's textures: a second less on oa_dm3) */
    if (!strcmp(cmd, "render")) {
        if (!o->out_dir) {
            fprintf(stderr, "qdemo: render needs -o DIR (or -o - for a y4m stream)\n");
            return APP_EXIT_USAGE;
        }
        return app_render(o);
    }
    return app_play(o);
}

int main(int argc, char **argv)
{
    app_opts o;
    memset(&o, 0, sizeof o);
    o.bt709 = -1; /* (by the size: app_render.c) */
    o.fps = 30;
    o.width = 1280;
    o.height = 720;
    o.to = -1;
    o.mode = R_MODE_TEXTURED;
    o.hud = -1;
    const char *cmd = NULL;
    /* the demos named; a static root, so an early return leaves nothing unreachable */
    static const char **args;
    args = malloc((size_t)argc * sizeof *args);
    int nargs = 0;
    if (!args)
        return APP_EXIT_INPUT;
    const char *env = getenv("QDEMO_BASEDIR");
    if (env && *env)
        o.basedir = env;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDS_VALUE                                                                        \
    do {                                                                                   \
        if (!v) {                                                                          \
            fprintf(stderr, "qdemo: %s needs a value\n", a);                               \
            return APP_EXIT_USAGE;                                                         \
        }                                                                                  \
        i++;                                                                               \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return APP_EXIT_OK;
        } else if (!strcmp(a, "--version")) {
            printf("qdemo %s\n", QDEMO_VERSION);
            return APP_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            o.json = 1;
        } else if (!strcmp(a, "-b") || !strcmp(a, "--basedir")) {
            NEEDS_VALUE;
            o.basedir = v;
        } else if (!strcmp(a, "--no-autodetect")) {
            o.no_autodetect = 1;
        } else if (!strcmp(a, "-p") || !strcmp(a, "--pak")) {
            NEEDS_VALUE;
            if (o.num_paks >= APP_MAX_PAKS) {
                fprintf(stderr, "qdemo: at most %d -p options\n", APP_MAX_PAKS);
                return APP_EXIT_USAGE;
            }
            o.paks[o.num_paks++] = v;
        } else if (!strcmp(a, "-o")) {
            NEEDS_VALUE;
            if (!v[0]) { /* (an empty folder name read past its buffer; found by a review) */
                fprintf(stderr, "qdemo: -o takes a folder (or - for a y4m stream), not \"\"\n");
                return APP_EXIT_USAGE;
            }
            o.out_dir = v;
        } else if (!strcmp(a, "--fps")) {
            NEEDS_VALUE;
            /* a number, or N/D (30000/1001, NTSC's 29.97) kept as given for the y4m header;
             * nothing after it (a review: "29,97" was taken as 29, "2997/100" as 2997) */
            char *end = NULL;
            o.fps = strtod(v, &end);
            o.fps_num = o.fps_den = 0;
            if (end != v && *end == '/') {
                char *end2 = NULL;
                double d = strtod(end + 1, &end2);
                int whole = end2 != end + 1 && o.fps == floor(o.fps) && d == floor(d) &&
                            o.fps >= 1 && o.fps <= 10000000 && d >= 1 && d <= 100000;
                o.fps_num = whole ? (long)o.fps : 0;
                o.fps_den = whole ? (long)d : 0;
                o.fps = whole ? o.fps / d : -1;
                end = whole ? end2 : end;
            }
            /* (a y4m header's rate is in thousandths; under one the sound track's sample
             * arithmetic overflowed: found by a review) */
            if (end == v || *end || !(o.fps >= 0.001 && o.fps <= 10000)) {
                fprintf(stderr, "qdemo: --fps takes a number or N/D between 0.001 and 10000 "
                                "(%s)\n", v);
                return APP_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--size")) {
            NEEDS_VALUE;
            /* digits x digits and nothing else, each 16..16384 (sscanf's %d on a longer
             * number is undefined, and "64x36junk" was taken: found by a review) */
            char *e1 = NULL, *e2 = NULL;
            long w = strtol(v, &e1, 10), h = *e1 == 'x' ? strtol(e1 + 1, &e2, 10) : 0;
            if (!(v[0] >= '0' && v[0] <= '9') || *e1 != 'x' || !(e1[1] >= '0' && e1[1] <= '9') ||
                !e2 || *e2 || w < 16 || h < 16 || w > 16384 || h > 16384) {
                fprintf(stderr, "qdemo: --size takes WxH, each 16..16384\n");
                return APP_EXIT_USAGE;
            }
            o.width = (int)w;
            o.height = (int)h;
        } else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
            NEEDS_VALUE;
            double t = parse_time(v);
            if (t < 0) {
                fprintf(stderr, "qdemo: %s takes seconds or mm:ss.fff, not \"%s\"\n", a, v);
                return APP_EXIT_USAGE;
            }
            if (a[2] == 'f')
                o.from = t;
            else
                o.to = t;
        } else if (!strcmp(a, "--mode")) {
            NEEDS_VALUE;
            if (!strcmp(v, "flat"))
                o.mode = R_MODE_FLAT;
            else if (!strcmp(v, "wire"))
                o.mode = R_MODE_WIRE;
            else if (!strcmp(v, "textured"))
                o.mode = R_MODE_TEXTURED;
            else {
                fprintf(stderr, "qdemo: --mode takes textured, flat or wire\n");
                return APP_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--camera")) {
            NEEDS_VALUE;
            if (strcmp(v, "pov") && strcmp(v, "chase") && strcmp(v, "free")) {
                fprintf(stderr, "qdemo: --camera takes pov, chase or free\n");
                return APP_EXIT_USAGE;
            }
            o.camera = v;
        } else if (!strcmp(a, "--follow")) {
            NEEDS_VALUE;
            o.follow = v;
        } else if (!strcmp(a, "--camera-path")) {
            NEEDS_VALUE;
            o.camera_path = v;
        } else if (!strcmp(a, "--hud")) {
            NEEDS_VALUE;
            if (!strcmp(v, "none"))
                o.hud = PLAYER_HUD_NONE;
            else if (!strcmp(v, "minimal"))
                o.hud = PLAYER_HUD_MINIMAL;
            else if (!strcmp(v, "game"))
                o.hud = PLAYER_HUD_GAME;
            else {
                fprintf(stderr, "qdemo: --hud takes none, minimal or game\n");
                return APP_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--no-gun")) {
            o.no_gun = 1;
        } else if (!strcmp(a, "--no-dlights")) {
            o.no_dlights = 1;
        } else if (!strcmp(a, "--threads")) {
            NEEDS_VALUE;
            o.threads = qd_atoi(v);
            if (o.threads < 1 || o.threads > 64) {
                fprintf(stderr, "qdemo: --threads takes 1..64\n");
                return APP_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--blur")) {
            NEEDS_VALUE;
            o.blur = qd_atoi(v);
            if (o.blur < 1 || o.blur > 256) {
                fprintf(stderr, "qdemo: --blur takes 1..256\n");
                return APP_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--audio")) {
            NEEDS_VALUE;
            o.audio = v;
        } else if (!strcmp(a, "--resume")) {
            o.resume = 1;
        } else if (!strcmp(a, "--bt709") || !strcmp(a, "--bt601")) {
            o.bt709 = !strcmp(a, "--bt709");
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o.quiet = 1;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "qdemo: unknown option %s (see qdemo --help)\n", a);
            return APP_EXIT_USAGE;
        } else if (!cmd && !o.demo &&
                   (!strcmp(a, "play") || !strcmp(a, "render") || !strcmp(a, "info") ||
                    !strcmp(a, "dump"))) {
            cmd = a;
        } else {
            if (!o.demo)
                o.demo = a;
            args[nargs++] = a; /* argc bounds them */
        }
#undef NEEDS_VALUE
    }
    if (!o.demo) {
        usage(stderr);
        return APP_EXIT_USAGE;
    }
    if (!cmd)
        cmd = "play";
    if (nargs > 1 && (!strcmp(cmd, "render") || !strcmp(cmd, "dump"))) {
        fprintf(stderr, "qdemo: %s takes one demo (%d given)\n", cmd, nargs);
        return APP_EXIT_USAGE;
    }
    /* folders become the demos in them, by name; several files or a folder make play's
     * playlist and info's list */
    static char **expanded;
    int nexp = app_expand_demos(args, nargs, &expanded);
    if (nexp < 0) {
        fprintf(stderr, "qdemo: out of memory listing the demos\n");
        return APP_EXIT_INPUT;
    }
    if (nexp == 0) {
        fputs("qdemo: no demo in ", stderr);
        app_put_text(stderr, o.demo);
        fputc('\n', stderr);
        return APP_EXIT_INPUT;
    }
    if (nexp > 1 && (!strcmp(cmd, "render") || !strcmp(cmd, "dump"))) {
        /* (a folder: a review found only its first demo used, in silence) */
        fprintf(stderr, "qdemo: %s takes one demo (%s holds %d)\n", cmd, o.demo, nexp);
        app_free_demos(expanded, nexp);
        free(args);
        return APP_EXIT_USAGE;
    }
    o.demos = (const char *const *)expanded;
    o.num_demos = nexp;
    o.demo = expanded[0];
    int rc = run(cmd, &o);
    app_free_demos(expanded, nexp);
    free(args);
    return rc;
}

