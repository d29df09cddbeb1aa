/* app.h: what the command line hands to the program's commands, and the helpers they share:
 * options, the search path for a demo's game, and decoding a whole demo for `info`. */
#ifndef QD_APP_H
#define QD_APP_H

#include <stdio.h>

#include "../../pak-loader/pak.h"
#include "../client/cl.h"
#include "../common/err.h"
#include "../demo/demo.h"
#include "../render/rast.h"
#include "../timeline/timeline.h"
#include "gamedirs.h"

#define APP_MAX_PAKS 32

/* Exit codes (the contract): only main.c returns them. */
enum { APP_EXIT_OK = 0, APP_EXIT_USAGE = 1, APP_EXIT_INPUT = 2, APP_EXIT_OUTPUT = 3 };

typedef struct app_opts {
    const char *demo;                 /* the demo (the first of demos) */
    const char *const *demos;         /* every demo named, folders expanded (play's playlist,
                                       * info's files); NULL when only demo */
    int num_demos;
    const char *basedir;              /* -b or $QDEMO_BASEDIR; NULL for none */
    const char *paks[APP_MAX_PAKS];   /* -p, in the order given (later wins) */
    int num_paks;
    int json;                         /* info --json */
    /* play / render */
    const char *out_dir;              /* -o */
    double fps;                       /* --fps, default 30 */
    long fps_num, fps_den;            /* --fps N/D as given (30000/1001), else 0 */
    int width, height;                /* --size */
    double from, to;                  /* --from, --to in seconds; to < 0 = the end */
    int mode;                         /* R_MODE_* */
    int no_gun;                       /* --no-gun: no first-person weapon */
    int no_dlights;                   /* --no-dlights: no dynamic lights */
    int hud;                          /* --hud: PLAYER_HUD_*, -1 the command's default (the
                                       * window: game; render: none) */
    const char *follow;               /* --follow NAME|N */
    const char *camera;               /* --camera pov|chase|free */
    const char *camera_path;          /* --camera-path FILE */
    int threads;                      /* --threads, 0 = core count */
    int blur;                         /* --blur N */
    int resume;                       /* --resume */
    int bt709;                        /* --bt709 1, --bt601 0, -1 by the size (y4m) */
    const char *audio;                /* render --audio FILE.wav: the sound track */
    int quiet;
    int no_autodetect;                /* --no-autodetect: only -b, $QDEMO_BASEDIR and -p */
} app_opts;

/* The install folders a level's game is read from, lowest priority first: those found on
 * the machine (gamedirs.h; not with --no-autodetect or $QDEMO_NO_AUTODETECT set to
 * anything but 0), then -b / $QDEMO_BASEDIR. Free with game_dirs_free. */
void app_game_folders(const app_opts *o, const cl_level *lvl, game_dirs *out);
/* 1 when the install folders found on the machine are searched (not --no-autodetect, nor
 * $QDEMO_NO_AUTODETECT set to anything but 0). */
int app_autodetect(const app_opts *o);

/* The search path for a level of a demo: under each of app_game_folders, the game folders
 * the game uses (id1, qw + the mod folder, baseq2, baseq3/baseoa + mod), then every -p in
 * order (the last wins).
 * Never NULL unless out of memory; problems with -p files are reported in err but the
 * search path is still returned with what could be added. */
pak_fs *app_search_path(const app_opts *o, const cl_level *lvl, qd_error *err);
/* The same, app_game_folders' folders kept in *folders (free with game_dirs_free) rather
 * than looked for again: `info` lists them, and each look is a dozen stat calls. */
pak_fs *app_search_path_folders(const app_opts *o, const cl_level *lvl, qd_error *err,
                                game_dirs *folders);

/* Check every -p before the command runs. One that exists but is neither a folder nor a
 * regular file (a FIFO would block) is reported in one line and -1 returned: the command
 * stops. Every archive that cannot be read prints one warning line "qdemo: warning: FILE:
 * offset N: reason; left out of the search path" and is dropped from o (the command goes on
 * without it, a missing one included); returns how many were dropped. */
int app_check_paks(app_opts *o);

/* The demos args name, folders replaced by the demos directly in them (by extension: .dem,
 * .qwd, .mvd, .dm2, .mvd2, .dm3, .dm_NN, those with .gz after them, .zip), sorted by name;
 * other names are kept as given. A new list in *out (free with app_free_demos); returns
 * its length, -1 when out of memory. */
int app_expand_demos(const char *const *args, int nargs, char ***out);
void app_free_demos(char **v, int n);

/* The window's F12: fb as "<demo>-<m>m<ss.fff>s.png" beside the demo ("-2", "-3" ... after
 * it when the name is taken), always a new file (qd_create_new: nothing that exists, a
 * planted link included, is written through); "saved NAME" or the reason into notice. */
void app_save_shot(const char *demo, double t, const rast_fb *fb, char *notice, size_t cap);

/* Print one line "qdemo: FILE: offset N: reason" to stderr. */
void app_report(const char *file, const qd_error *e);
/* s to f as printable text: bytes outside 32..126 as \xNN (a name from a demo or a file
 * name is never a terminal escape or a second line). */
void app_put_text(FILE *f, const char *s);

/* Open o->demo and index it (src/timeline); reports and returns NULL when nothing decodes.
 * A demo damaged part way is indexed up to the damage, which is reported. */
timeline_t *app_open_timeline(const app_opts *o);

/* The models a demo asks for over all its levels, brush submodels ("*N") left out, each once
 * in the order first seen, at most APP_MAX_MODEL_NAMES. Zero-initialise, feed it the client
 * state after every decoder step with app_models_update, free with app_models_free. */
#define APP_MAX_MODEL_NAMES 65536
typedef struct app_models {
    char (*names)[CL_NAME_LEN];
    int n, cap;
    uint32_t *slots;     /* open-addressing hash set: index into names + 1, 0 empty */
    uint32_t nslots;     /* a power of two, over twice cap */
    uint32_t gen;        /* cl->model_gen when the list was last read */
    int have_gen;
    uint32_t rebuilds;   /* how often the precache list was read (the tests count work) */
} app_models;

/* Add cl's model precache list to m, reading it only when it changed since the last call
 * (cl->model_gen), so a whole decode costs O(precache changes x models), not O(blocks x
 * models). Returns 0 when out of memory (m keeps what it had). */
int app_models_update(app_models *m, const cl_state *cl);
void app_models_free(app_models *m);

int app_info(const app_opts *o);
int app_dump(const app_opts *o);
int app_play(const app_opts *o);
int app_render(const app_opts *o);

#endif
