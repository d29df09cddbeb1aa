/* player.h: the interactive player's state and its input layer: keys and mouse in, demo time,
 * speed, cameras and overlays out. No SDL here: the window feeds in_events, tests feed
 * scripted ones, and both go through player_event(). */
#ifndef QD_PLAYER_H
#define QD_PLAYER_H

#include "../output/input.h"
#include "../render/rast.h"
#include "../render/render.h"
#include "../timeline/timeline.h"
#include "world.h"

/* PLAYER_CAM_PATH: along the path's keys (player_path_eval), as `render --camera free
 * --camera-path` draws it: the window's preview of such a render */
typedef enum player_cam {
    PLAYER_CAM_POV,
    PLAYER_CAM_CHASE,
    PLAYER_CAM_FREE,
    PLAYER_CAM_PATH
} player_cam;

#define PLAYER_MIN_SPEED (1.0 / 16.0)
#define PLAYER_MAX_SPEED 16.0
#define PLAYER_DROP_BYTES 16384 /* the paths of one drop of several files */
#define PLAYER_MAX_DROPS 256
#define PLAYER_BAR_SECONDS 2.0   /* the bar stays this long after the mouse moves */
#define PLAYER_MAX_PATH 1024     /* free-camera path keys */

/* One key of a free-camera path: where the camera is at demo time t. */
typedef struct player_cam_key {
    double t;
    float origin[3], angles[3];
} player_cam_key;

typedef struct player {
    timeline_t *tl;
    double t;            /* demo time shown */
    double start, end;   /* the timeline's first and last frame */
    double speed;
    int paused;
    int mute;            /* Shift+M: the window's sound is off */
    float volume;        /* '-' / '=': 0..2, 1 the default */
    int quit;
    int mode;            /* R_MODE_TEXTURED / R_MODE_FLAT / R_MODE_WIRE */
    int no_gun;          /* never draw the first-person weapon */
    int no_dlights;      /* no dynamic lights (r_options.no_dlights) */
    int hud;             /* PLAYER_HUD_* */
    int scores;          /* F1: the scoreboard shows */
    int help;            /* '?': the keys are listed over the picture */
    int xray;
    player_cam camera;
    int follow;          /* followed player slot, -1 = the recorded view */
    float free_origin[3], free_angles[3];
    unsigned move;       /* held movement keys: 1 w, 2 s, 4 a, 8 d, 16 shift */
    double wall;         /* wall seconds since start (from player_tick) */
    double bar_until;    /* wall time until which the bar shows */
    int dragging;        /* the left button is held on the bar */
    int fb_w, fb_h;      /* framebuffer size, for mouse positions */
    int mouse_x, hover;  /* the pointer's last place across, and whether it is over the bar
                          * (its time then shown there) */
    char notice[256];
    double notice_until;
    player_cam_key path[PLAYER_MAX_PATH]; /* in time order (player_path_add) */
    int path_len;
    const char *path_file; /* --camera-path's file (NULL: none), for the 'i'/'o' command */
    int path_unsaved;      /* a key 'k' added is in no file yet (its save failed) */
    const char *save_dir;  /* folder where 'k' creates its path file (NULL: the current one) */
    char saved_file[4096]; /* the file 'k' created this session ("" until the first key) */
    /* Requests for the window's owner (app_play), which clears them once handled. */
    int go;                /* 'n' +1: the playlist's next demo; 'p' -1: the one before */
    int shot;              /* F12: save this frame as a PNG beside the demo */
    /* 'i' / 'o': the span to render, in seconds from the demo's first frame (-1: not set);
     * cut_ready: both set, in before out, the command not yet said (player_cut_command) */
    double cut_in, cut_out;
    int cut_ready;
    int fullscreen;        /* F11 or a double click: toggle fullscreen */
    int is_fullscreen;     /* the window is fullscreen now (the window's owner keeps it):
                            * Esc then leaves fullscreen rather than quits */
    /* the files (or folders) dropped on the window since the frame began, one after another
     * with a 0 after each (ndrops of them; past PLAYER_DROP_BYTES or PLAYER_MAX_DROPS the
     * rest are left out): they become the playlist */
    char drops[PLAYER_DROP_BYTES];
    int ndrops;
    size_t drops_len;
} player;

/* Start at the first frame, playing at 1x, with the recorded view. */
void player_init(player *p, timeline_t *tl, int fb_w, int fb_h);

/* One input event. */
void player_event(player *p, const in_event *ev);

/* Advance wall time by dt seconds: demo time moves by dt * speed unless paused, and the
 * free camera flies. At the end the player holds the last frame, paused. */
void player_tick(player *p, double dt);

/* Key as one of p's path keys, in time order; a key at the time of one already there
 * replaces it (a camera placed again at the same moment). Its index, or -1 when the path
 * is full (PLAYER_MAX_PATH). */
int player_path_add(player *p, const player_cam_key *key);

/* The camera for state cl at demo time t, from the player's camera choice. The recorded
 * view falls back to it when a followed player has no body. */
void player_camera(const player *p, const cl_state *cl, double t, r_camera *cam);
/* Outside the free camera, keep cam (the view as shown) as the free camera's place: what
 * 'k' saves and where 'f' starts flying from (a review: 'k' saved the origin). */
void player_keep_view(player *p, const r_camera *cam);
/* The frame for a window of *w x *h: at most PLAYER_MAX_W x PLAYER_MAX_H pixels in all, of
 * the window's shape (a review: each side capped on its own gave a 3440 x 1440 window a
 * 16:9 frame between black bars, a portrait one a square). */
#define PLAYER_MAX_W 1920
#define PLAYER_MAX_H 1080
void player_frame_size(int *w, int *h);
/* Printable window-title text of s into out (cap bytes): its first line, Quake III's colour
 * codes left out, a byte outside 32..126 as '?' (a review: a level title's newlines and a
 * file name's Latin-1 bytes reached the window manager, which then kept "qdemo"). */
void player_title_text(char *out, size_t cap, const char *s);
/* The entity player_camera's camera is (0: none, the chase and free cameras): the followed
 * player's in a first-person follow, else the recorded view's. Its sounds are the
 * listener's own (QuakeSpasm SND_Spatialize: cl.viewentity; Quake II S_Spatialize:
 * cl.playernum + 1; ioquake3 S_Base_HearingThroughEntity: listener_number). */
int player_listener(const player *p, const cl_state *cl, double t);
/* Whole minutes of *s seconds, for an m:ss shown: *s is first bounded to [0, 1e12] (NaN: 0)
 * and rounded to the millisecond (so the seconds left never print as 60.000), and the
 * minutes counted in 64 bits. */
long long player_minutes(double *s);

/* The render options for the current mode and camera (cl: the state being drawn). */
void player_options(const player *p, const cl_state *cl, r_options *opt);

/* Draw the timeline bar (when it shows) and notices over fb. */
/* s wrapped at its spaces into lines of at most width characters ('\n' between them; a word
 * longer than a line cut), into out (cap bytes, always ended). */
void player_wrap(const char *s, int width, char *out, size_t cap);
/* The `qdemo render` command of p's span ('i' and 'o') of demo, with the camera shown (the
 * followed player by name in cl, the chase camera, the camera path's file), into out (cap
 * bytes); the path and the name quoted for a POSIX shell. 0, with why in out, when the
 * view shown is a camera path no file holds (a key whose save failed). */
int player_cut_command(const player *p, const cl_state *cl, const char *demo, char *out,
                       size_t cap);
void player_overlay(const player *p, const cl_state *cl, rast_fb *fb);

/* What the HUD shows (--hud, `h` in the window). */
#define PLAYER_HUD_NONE 0
#define PLAYER_HUD_MINIMAL 1 /* one line: whose view, health, armour, ammo */
#define PLAYER_HUD_GAME 2    /* the game's status bar when its pictures exist, else minimal */

/* The HUD of mode for the player in slot follow (-1: the recorded view) over fb, from hud's
 * pictures (may be NULL). */
void player_draw_hud(int mode, int follow, const cl_state *cl, const r_hud *hud,
                     const r_hud2 *hud2, rast_fb *fb);

/* The messages of mode's HUD at time t: the last prints and chat of 3 s at the top left and
 * the latest centerprint of 2 s in the middle, in the game's font when hud has it. */
void player_draw_messages(int mode, const cl_state *cl, const r_hud *hud, double t,
                          rast_fb *fb);

/* The scoreboard when shown is set (F1) or at intermission: the players by frags with their
 * colours (palette: the game's), in the game's font when hud has it. */
/* A team's row of QuakeWorld's team scoreboard. */
typedef struct player_team {
    char name[16];
    int total, players, low, high; /* frags: the sum, and the lowest and highest player's */
} player_team;

/* The teams of cl's playing players, most frags first, into rows (at most max); 0 when this
 * is no team game (fewer than two teams, or a player without a team name). */
int player_team_totals(const cl_state *cl, player_team *rows, int max);

void player_draw_scores(int mode, int shown, const cl_state *cl, const r_hud *hud,
                        const uint32_t palette[256], rast_fb *fb);

/* All of mode's HUD from w's HUD pictures: Quake III's own (r_hud3_draw, with its crosshair
 * when first_person) in PLAYER_HUD_GAME when w holds Quake III's, else player_draw_hud (Quake
 * II's programs there with w's pictures), player_draw_messages and player_draw_scores above. */
void player_draw_huds(int mode, int follow, int shown, int first_person, const cl_state *cl,
                      const app_world *w, double t, rast_fb *fb);

/* Where the bar is in an fb of height h: its top row and height in pixels. */
void player_bar_rect(int w, int h, int *x, int *y, int *bw, int *bh);

/* Free-camera paths: a text file of lines "t x y z pitch yaw roll". Load returns the number
 * of keys read (0 with err set on failure; anything but a regular file is refused, a FIFO
 * without waiting on it). Save replaces file atomically (a new file renamed over it, so a
 * link there is replaced, never followed) and returns QD_OK or err's code. The 'k' key
 * saves only to a file it created itself (saved_file), never over an input. */
int player_path_load(const char *file, player_cam_key *keys, int max, qd_error *err);
/* The same from text in memory: every line a key or a comment ('#') or blank; a line that is
 * not seven finite numbers within +-1e6, a line over 256 bytes, or more than max keys is an
 * error naming the line and its byte offset (returns 0). Keys come back in time order. */
int player_path_parse(const char *text, size_t len, player_cam_key *keys, int max,
                      qd_error *err);
qd_err player_path_save(const char *file, const player_cam_key *keys, int n, qd_error *err);
/* The camera on a path at time t: a cubic through the keys with Catmull-Rom slopes over
 * their times (two keys: a straight line; two keys of one time: a cut), angles the
 * shortest way between neighbours; before the first key its place, after the last the
 * last's. */
void player_path_eval(const player_cam_key *keys, int n, double t, r_camera *cam);

/* Choose the followed player from "--follow NAME|N" against cl's players: the slot, or -1
 * when nothing matches. */
int player_find(const cl_state *cl, const char *spec);

#endif
