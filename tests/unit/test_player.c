/* test_player.c: the window's key and mouse handling, driven by scripted events through the
 * same input layer the window uses (no display needed). */
#include <math.h>
#include <stdlib.h>

#include "../../src/app/player.h"
#include "../deadscan.h"
#include "../test.h"

static timeline_t *open_tl(const char *rel)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, rel))
        return NULL;
    qd_error err;
    demo_t *d = demo_open(path, &err);
    return d ? tl_open(d, 0, &err) : NULL;
}

static void key(player *p, in_key k, unsigned mods)
{
    in_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = IN_EV_KEY_DOWN;
    ev.key = k;
    ev.mods = mods;
    player_event(p, &ev);
    ev.type = IN_EV_KEY_UP;
    player_event(p, &ev);
}

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

/* A test's timeline tl of the real vektar_demo1.dem and a player p on it at 640 x 480;
 * skips without the file. */
#define VEKTAR(tl, p)                                                                      \
    timeline_t *tl = open_tl("dem/vektar_demo1.dem");                                      \
    if (!tl)                                                                               \
        SKIP("no realdata/dem/vektar_demo1.dem");                                          \
    static player p;                                                                       \
    player_init(&p, tl, 640, 480)

TEST(player_keys_follow_mpv)
{
    VEKTAR(tl, p);
    double start = p.start, end = p.end;
    CHECK(end - start > 70);
    CHECK(!p.paused);
    key(&p, IN_KEY_SPACE, 0);
    CHECK(p.paused);
    key(&p, IN_KEY_SPACE, 0);
    CHECK(!p.paused);
    key(&p, IN_KEY_RIGHT, 0);
    CHECK(NEAR(p.t, start + 5));
    key(&p, IN_KEY_UP, 0);
    CHECK(NEAR(p.t, start + 65));
    key(&p, IN_KEY_LEFT, 0);
    CHECK(NEAR(p.t, start + 60));
    key(&p, IN_KEY_DOWN, 0);
    CHECK(NEAR(p.t, start)); /* clamped at the start */
    key(&p, IN_KEY_END, 0);
    CHECK(NEAR(p.t, end));
    key(&p, IN_KEY_HOME, 0);
    CHECK(NEAR(p.t, start));
    key(&p, IN_KEY_0 + 5, 0);
    CHECK(NEAR(p.t, start + (end - start) * 0.5));
    /* speed: [ halves, ] doubles, within 1/16..16; Backspace resets */
    for (int i = 0; i < 10; i++)
        key(&p, IN_KEY_RBRACKET, 0);
    CHECK(NEAR(p.speed, 16));
    for (int i = 0; i < 10; i++)
        key(&p, IN_KEY_LBRACKET, 0);
    CHECK(NEAR(p.speed, 1.0 / 16));
    key(&p, IN_KEY_BACKSPACE, 0);
    CHECK(NEAR(p.speed, 1));
    /* . and , step one recorded frame, pausing */
    double t = p.t;
    key(&p, IN_KEY_PERIOD, 0);
    CHECK(p.paused);
    double t1 = p.t;
    CHECK(t1 > t && t1 - t < 0.2);
    CHECK(NEAR(t1, tl_next_frame(tl, t)));
    key(&p, IN_KEY_PERIOD, 0);
    key(&p, IN_KEY_COMMA, 0);
    CHECK(NEAR(p.t, t1));
    /* no stray key quits; q does ('k' saves a camera key: keep it out of the work tree) */
    p.save_dir = test_tmpdir();
    for (in_key k = IN_KEY_NONE; k < IN_KEY_COUNT; k++)
        if (k != IN_KEY_ESCAPE && k != IN_KEY_A + ('q' - 'a'))
            key(&p, k, 0);
    CHECK(!p.quit);
    key(&p, IN_KEY_A + ('q' - 'a'), 0);
    CHECK(p.quit);
    tl_close(tl);
}

TEST(player_holds_the_last_frame)
{
    timeline_t *tl = open_tl("dem/lmpc_src_smoothme.dem");
    if (!tl)
        SKIP("no realdata/dem/lmpc_src_smoothme.dem");
    static player p;
    player_init(&p, tl, 640, 480);
    key(&p, IN_KEY_0 + 9, 0);
    for (int i = 0; i < 100; i++)
        player_tick(&p, 0.1);
    CHECK(p.paused);
    CHECK(NEAR(p.t, p.end));
    CHECK(!p.quit);
    /* a step of NaN seconds (a clock gone wrong) moves nothing: NaN stuck in the clock */
    player_tick(&p, NAN);
    CHECK(NEAR(p.t, p.end) && isfinite(p.wall));
    tl_close(tl);
}

TEST(player_bar_click_and_drag_seek)
{
    timeline_t *tl = open_tl("dem/vektar_demo1.dem");
    if (!tl)
        SKIP("no realdata/dem/vektar_demo1.dem");
    static player p;
    player_init(&p, tl, 800, 600);
    int x, y, w, h;
    player_bar_rect(800, 600, &x, &y, &w, &h);
    in_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = IN_EV_BUTTON_DOWN;
    ev.button = IN_BUTTON_LEFT;
    ev.x = x + w / 4;
    ev.y = y + h / 2;
    player_event(&p, &ev);
    CHECK(fabs(p.t - (p.start + 0.25 * (p.end - p.start))) < 0.5);
    ev.type = IN_EV_MOTION;
    ev.x = x + 3 * w / 4;
    player_event(&p, &ev);
    CHECK(fabs(p.t - (p.start + 0.75 * (p.end - p.start))) < 0.5);
    ev.type = IN_EV_BUTTON_UP;
    player_event(&p, &ev);
    CHECK(!p.dragging);
    /* a click away from the bar does not seek */
    double t = p.t;
    ev.type = IN_EV_BUTTON_DOWN;
    ev.y = 10;
    player_event(&p, &ev);
    CHECK(NEAR(p.t, t));
    tl_close(tl);
}

/* Where PgDn (dir 1) or PgUp (-1) from t must land, found by walking every mark
 * (tl_get_mark), not by the lookup the player uses: the nearest mark past t of a level,
 * frag, death or intermission, or of any kind with Shift; NAN when there is none. */
static double mark_time(const timeline_t *tl, double t, int dir, int shift)
{
    double best = NAN;
    for (int i = 0; i < tl_num_marks(tl); i++) {
        const tl_mark *m = tl_get_mark(tl, i);
        int event = m->kind == TL_MARK_LEVEL || m->kind == TL_MARK_FRAG ||
                    m->kind == TL_MARK_DEATH || m->kind == TL_MARK_INTERMISSION;
        double d = (m->time - t) * dir;
        if ((event || shift) && d > 1e-6 && (isnan(best) || d < (best - t) * dir))
            best = m->time;
    }
    return best;
}

TEST(player_marks_pgdn_pgup)
{
    timeline_t *tl = open_tl("mvd/paradoks81-quakeworld_2on2_sr_vs_red_dm4_20260327-1259.mvd");
    if (!tl)
        SKIP("no realdata/mvd/paradoks81-quakeworld_2on2_sr_vs_red_dm4_20260327-1259.mvd");
    static player p;
    player_init(&p, tl, 640, 480);
    /* from mid-game, PgDn lands on the next frag (or the death that goes with it) */
    key(&p, IN_KEY_0 + 3, 0);
    double from = p.t, next = mark_time(tl, from, 1, 0);
    CHECK(!isnan(next));
    key(&p, IN_KEY_PAGEDOWN, 0);
    CHECK_MSG(NEAR(p.t, next), "PgDn to %.3f, want %.3f", p.t, next);
    int frag_or_death = 0;
    for (int i = 0; i < tl_num_marks(tl); i++) {
        const tl_mark *m = tl_get_mark(tl, i);
        if (fabs(m->time - next) < 1e-9)
            frag_or_death |= m->kind == TL_MARK_FRAG || m->kind == TL_MARK_DEATH;
    }
    CHECK(frag_or_death);
    /* Shift+PgDn stops at any mark, chat included */
    double any = mark_time(tl, p.t, 1, 1);
    CHECK(!isnan(any) && any <= mark_time(tl, p.t, 1, 0));
    key(&p, IN_KEY_PAGEDOWN, IN_MOD_SHIFT);
    CHECK_MSG(NEAR(p.t, any), "Shift+PgDn to %.3f, want %.3f", p.t, any);
    /* and PgUp goes back to the event mark before it */
    double prev = mark_time(tl, p.t, -1, 0);
    CHECK(!isnan(prev));
    key(&p, IN_KEY_PAGEUP, 0);
    CHECK_MSG(NEAR(p.t, prev), "PgUp to %.3f, want %.3f", p.t, prev);
    CHECK(p.t < any);
    tl_close(tl);
}

TEST(player_free_camera_flies)
{
    VEKTAR(tl, p);
    key(&p, IN_KEY_A + ('f' - 'a'), 0);
    CHECK(p.camera == PLAYER_CAM_FREE);
    in_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = IN_EV_KEY_DOWN;
    ev.key = IN_KEY_A + ('w' - 'a');
    player_event(&p, &ev);
    player_tick(&p, 1.0);
    CHECK(fabsf(p.free_origin[0] - 320.0f) < 1e-3f); /* yaw 0: forward is +X */
    /* with Shift four times as fast (player.c FREE_FAST): another 1280 units, 1600 in all */
    ev.mods = IN_MOD_SHIFT;
    player_event(&p, &ev);
    player_tick(&p, 1.0);
    CHECK(fabsf(p.free_origin[0] - (320.0f + 320.0f * 4)) < 1e-2f);
    ev.type = IN_EV_KEY_UP;
    player_event(&p, &ev);
    player_tick(&p, 1.0);
    CHECK(fabsf(p.free_origin[0] - (320.0f + 320.0f * 4)) < 1e-2f);
    /* mouse look: 0.15 degrees a pixel (player.c MOUSE_DEG, qdemo's own choice, near a
     * common Quake sensitivity), 100 pixels right turn the yaw 15 degrees right */
    ev.type = IN_EV_MOTION;
    ev.dx = 100;
    player_event(&p, &ev);
    CHECK(fabsf(p.free_angles[1] + 15.0f) < 1e-3f);
    key(&p, IN_KEY_A + ('c' - 'a'), 0);
    CHECK(p.camera == PLAYER_CAM_CHASE);
    tl_close(tl);
}

TEST(player_camera_path_file)
{
    player_cam_key keys[2] = {{1.0, {0, 0, 0}, {0, 350, 0}}, {3.0, {100, 200, 300}, {10, 10, 0}}};
    char path[512];
    snprintf(path, sizeof path, "%s/cam.txt", test_tmpdir());
    qd_error err;
    CHECK_EQ(player_path_save(path, keys, 2, &err), QD_OK);
    player_cam_key back[8];
    CHECK_EQ(player_path_load(path, back, 8, &err), 2);
    r_camera cam;
    player_path_eval(back, 2, 2.0, &cam);
    CHECK(fabsf(cam.origin[0] - 50) < 1e-3f && fabsf(cam.origin[2] - 150) < 1e-3f);
    CHECK(fabsf(cam.angles[1] - 0.0f) < 1e-3f || fabsf(cam.angles[1] - 360.0f) < 1e-3f);
    player_path_eval(back, 2, 10.0, &cam);
    CHECK(fabsf(cam.origin[1] - 200) < 1e-3f);
}

TEST(player_tab_follows_each_player_of_a_4_player_mvd)
{
    timeline_t *tl = open_tl("mvd/paradoks81-quakeworld_2on2_sr_vs_red_dm4_20260327-1259.mvd");
    if (!tl)
        SKIP("no realdata/mvd/paradoks81-quakeworld_2on2_sr_vs_red_dm4_20260327-1259.mvd");
    static player p;
    player_init(&p, tl, 640, 480);
    key(&p, IN_KEY_0 + 5, 0); /* mid-game */
    const cl_state *cl = tl_state_at(tl, p.t, NULL);
    CHECK(cl);
    int playing = 0;
    for (int i = 0; i < CL_MAX_PLAYERS; i++)
        playing += cl->players[i].active && !cl->players[i].spectator;
    CHECK_EQ(playing, 4);
    /* Who is dead or gibbed then, by the DF_DEAD / DF_GIB bits of the file's playerinfos:
     * the eye is QW's V_CalcRefdef height for that body (gibbed 8, dead -16, else 22). */
    char path[1024];
    size_t len = 0;
    const char *file = test_realfile(
        path, sizeof path, "mvd/paradoks81-quakeworld_2on2_sr_vs_red_dm4_20260327-1259.mvd");
    uint8_t *bytes = file ? test_read_file(file, &len) : NULL;
    uint8_t bits[32];
    CHECK(bytes && ds_mvd_dead_at(bytes, len, p.t, bits) > 0);
    free(bytes);
    int seen[CL_MAX_PLAYERS] = {0}, order[CL_MAX_PLAYERS];
    CHECK(playing >= 2 && playing <= CL_MAX_PLAYERS);
    for (int k = 0; k <= playing; k++) {
        key(&p, IN_KEY_TAB, 0);
        if (k < playing) {
            CHECK(p.follow >= 0);
            CHECK(!cl->players[p.follow].spectator);
            seen[p.follow]++;
            order[k] = p.follow;
            /* the camera is that player's eye */
            r_camera cam;
            player_camera(&p, cl, p.t, &cam);
            cl_entstate s;
            CHECK(cl_entity_at(cl, cl->players[p.follow].entity, p.t, &s, NULL, NULL));
            CHECK(fabsf(cam.origin[0] - s.origin[0]) < 1e-3f);
            unsigned b = p.follow < 32 ? bits[p.follow] : 0;
            float eye = (b & DS_GIB) ? 8.0f : (b & DS_DEAD) ? -16.0f : 22.0f;
            CHECK(fabsf(cam.origin[2] - s.origin[2] - eye) < 1e-3f);
        } else {
            CHECK_EQ(p.follow, -1); /* back to the recorded view */
        }
    }
    for (int i = 0; i < CL_MAX_PLAYERS; i++)
        CHECK(seen[i] <= 1);
    /* Shift+Tab goes the other way: from the recorded view to the last Tab reached, then
     * the one before it; Tab from the last goes back to the recorded view */
    key(&p, IN_KEY_TAB, IN_MOD_SHIFT);
    CHECK_EQ(p.follow, order[playing - 1]);
    key(&p, IN_KEY_TAB, IN_MOD_SHIFT);
    CHECK_EQ(p.follow, order[playing - 2]);
    key(&p, IN_KEY_TAB, 0);
    CHECK_EQ(p.follow, order[playing - 1]);
    key(&p, IN_KEY_TAB, 0);
    CHECK_EQ(p.follow, -1);
    tl_close(tl);
}

/* Hostile camera paths (#9): every bad line is refused with its byte offset; the expected
 * offsets are counted by hand in the strings below. */
TEST(player_camera_path_parse_hostile)
{
    static player_cam_key keys[PLAYER_MAX_PATH];
    qd_error err;
    /* a good file out of time order, with a comment, a blank line and CRLF endings */
    const char *good = "# c\r\n2 1 2 3 4 5 6\r\n\r\n1 10 20 30 40 50 60\n";
    CHECK_EQ(player_path_parse(good, strlen(good), keys, 8, &err), 2);
    CHECK(keys[0].t == 1.0 && keys[0].origin[2] == 30.0f && keys[1].angles[2] == 6.0f);
    /* not a number: "nan" and "inf" parse as floats but no camera can use them */
    const char *nan_line = "0 0 0 0 0 0 0\n1 nan 0 0 0 0 0\n";
    CHECK_EQ(player_path_parse(nan_line, strlen(nan_line), keys, 8, &err), 0);
    CHECK_EQ(err.code, QD_ERR_BAD_DATA);
    CHECK_EQ(err.offset, 14); /* the second line starts after "0 0 0 0 0 0 0\n" */
    /* each of these is refused at its only line, byte 0 */
    const char *inf_time = "inf 0 0 0 0 0 0\n";
    const char *huge = "0 0 0 1e30 0 0 0\n";
    /* trailing junk, and a NUL inside a line */
    const char *junk = "0 0 0 0 0 0 0 x\n";
    static const char nul[] = "0 0 0 0\0 0 0 0\n";
    const struct {
        const char *text;
        size_t len;
    } bad[] = {{inf_time, strlen(inf_time)},
               {huge, strlen(huge)},
               {junk, strlen(junk)},
               {nul, sizeof nul - 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        err.offset = 99;
        CHECK_EQ(player_path_parse(bad[i].text, bad[i].len, keys, 8, &err), 0);
        CHECK_EQ(err.code, QD_ERR_BAD_DATA);
        CHECK_MSG(err.offset == 0, "bad line %zu: offset %llu", i,
                  (unsigned long long)err.offset);
    }
    /* a line of 300 bytes */
    char longl[400];
    memset(longl, ' ', 300);
    memcpy(longl + 300, "0 0 0 0 0 0 0\n", 15);
    CHECK_EQ(player_path_parse(longl, strlen(longl), keys, 8, &err), 0);
    CHECK_EQ(err.offset, 0);
    /* one key more than the caller holds is an error, not a silent cut */
    const char *three = "0 0 0 0 0 0 0\n1 0 0 0 0 0 0\n2 0 0 0 0 0 0\n";
    CHECK_EQ(player_path_parse(three, strlen(three), keys, 2, &err), 0);
    CHECK_EQ(err.code, QD_ERR_LIMIT);
    CHECK_EQ(err.offset, 28);
    CHECK_EQ(player_path_parse(three, strlen(three), keys, 3, &err), 3);
}

/* m:ss of times shown (the bar, the title, a screenshot's name): minutes in 64 bits of a time
 * bounded to [0, 1e12] s, NaN as 0 (a hostile demo of many levels passed an int's minutes
 * and overflowed; a review). By hand: 3e9 s is 50,000,000 min; 1e13 is held at 1e12 s,
 * 16,666,666,666 min 40 s. */
TEST(player_minutes_past_an_int)
{
    double s = 3e9;
    CHECK_EQ(player_minutes(&s), 50000000LL);
    CHECK(s == 3e9);
    s = 1e13;
    CHECK_EQ(player_minutes(&s), 16666666666LL);
    CHECK(s == 1e12 && fabs(s - 16666666666.0 * 60 - 40) < 1e-3);
    s = -5;
    CHECK_EQ(player_minutes(&s), 0);
    CHECK(s == 0);
    s = NAN;
    CHECK_EQ(player_minutes(&s), 0);
    CHECK(s == 0);
    s = 125.5;
    CHECK_EQ(player_minutes(&s), 2);
    /* a minute's last half millisecond is the next minute's 0.000 s (printf's %06.3f of
     * 59.9996 is "60.000": 0:60.000 on the bar before) */
    s = 59.9996;
    CHECK_EQ(player_minutes(&s), 1);
    CHECK(s == 60.0);
    s = 119.9994;
    CHECK_EQ(player_minutes(&s), 1);
    CHECK(fabs(s - 119.999) < 1e-9);
}

/* The window's frame keeps the window's shape under the pixel cap (PLAYER_MAX_W x
 * PLAYER_MAX_H, 2,073,600): a 3440 x 1440 window gets sqrt(2,073,600 / 4,953,600) =
 * 0.64700 of each side, 2225 x 931 (2225.67, 931.68 cut down); 2560 x 1600, 0.71151: 1821 x
 * 1138; a portrait 1080 x 1920 is at the cap and 1280 x 720 under it: as they are (before,
 * each side was capped alone: 1920 x 1080, 1920 x 1080 and 1080 x 1080). */
TEST(player_frame_keeps_the_window_shape)
{
    static const int in[4][2] = {{3440, 1440}, {2560, 1600}, {1080, 1920}, {1280, 720}};
    static const int want[4][2] = {{2225, 931}, {1821, 1138}, {1080, 1920}, {1280, 720}};
    for (int i = 0; i < 4; i++) {
        int w = in[i][0], h = in[i][1];
        player_frame_size(&w, &h);
        CHECK_MSG(w == want[i][0] && h == want[i][1], "%dx%d -> %dx%d", in[i][0], in[i][1], w,
                  h);
    }
}

/* The window title's text: a level title's first line only, Quake III's colour codes out,
 * other bytes outside 32..126 as '?' (the FTE .mvd's title holds newlines; a file name may
 * be Latin-1). */
TEST(player_title_text_is_printable)
{
    char out[64];
    player_title_text(out, sizeof out, "DMM4 Arena\nBy Povo-Hat\n");
    CHECK_STR(out, "DMM4 Arena");
    player_title_text(out, sizeof out, "d\xe9mo\xff.dem");
    CHECK_STR(out, "d?mo?.dem");
    player_title_text(out, sizeof out, "^1Red^7 base\t1");
    CHECK_STR(out, "Red base?1");
    player_title_text(out, 4, "abcdef");
    CHECK_STR(out, "abc");
}

/* 'k' outside the free camera keeps the view as shown (player_keep_view, which the window
 * calls each frame with the camera it draws): before, it kept the free camera's place,
 * (0, 0, 0) until 'f' had been pressed. */
TEST(player_k_keeps_the_view_shown)
{
    VEKTAR(tl, p);
    snprintf(p.saved_file, sizeof p.saved_file, "%s/k.path", test_tmpdir());
    key(&p, IN_KEY_0 + 5, 0);
    const cl_state *cl = tl_state_at(tl, p.t, NULL);
    CHECK(cl != NULL);
    if (!cl) {
        tl_close(tl);
        return;
    }
    r_camera cam;
    player_camera(&p, cl, p.t, &cam);
    CHECK(fabsf(cam.origin[0]) + fabsf(cam.origin[1]) > 1); /* (not the map's origin) */
    player_keep_view(&p, &cam);
    key(&p, IN_KEY_A + ('k' - 'a'), 0);
    CHECK_EQ(p.path_len, 1);
    /* (as the file holds it: to 1/100 of a unit and of a degree, player_path_save, and a
     * float's rounding at these sizes) */
    int same = 1;
    for (int i = 0; i < 3; i++)
        same &= fabsf(p.path[0].origin[i] - cam.origin[i]) <= 0.0051f &&
                fabsf(p.path[0].angles[i] - cam.angles[i]) <= 0.0051f;
    CHECK(same);
    tl_close(tl);
}

/* PgDn to a level's mark shows the new level: vektar_demo1.dem's blocks (its last, with
 * svc_disconnect, left out) then quake-from-memory_demo1.dem's make one demo of two levels,
 * bg then e1m3. The level's mark carries the time of bg's last frame, so seeking to it showed
 * bg; and PgUp from e1m3's first frame goes to a mark before the level's, not to it again. */
TEST(player_pgdn_to_a_level_shows_it)
{
    char a[1024], b[1024];
    if (!test_realfile(a, sizeof a, "dem/vektar_demo1.dem") ||
        !test_realfile(b, sizeof b, "dem/quake-from-memory_demo1.dem"))
        SKIP("no realdata vektar_demo1.dem or quake-from-memory_demo1.dem");
    size_t la, lb;
    unsigned char *da = test_read_file(a, &la), *db = test_read_file(b, &lb);
    CHECK(da && db);
    /* .dem: the CD track line, then blocks of a length (LE32), three angles, the messages */
    size_t pa = 0, last = 0, pb = 0;
    while (da && pa < la && da[pa] != '\n')
        pa++;
    for (size_t at = pa + 1; da && at + 16 <= la;) {
        size_t n = (size_t)da[at] | (size_t)da[at + 1] << 8 | (size_t)da[at + 2] << 16 |
                   (size_t)da[at + 3] << 24;
        last = at;
        at += 16 + n;
    }
    while (db && pb < lb && db[pb] != '\n')
        pb++;
    char two[1200];
    snprintf(two, sizeof two, "%s/two.dem", test_tmpdir());
    FILE *f = fopen(two, "wb");
    CHECK(f && last > 0);
    if (f) {
        fwrite(da, 1, last, f);
        fwrite(db + pb + 1, 1, lb - pb - 1, f);
        fclose(f);
    }
    free(da);
    free(db);
    qd_error err;
    demo_t *d = demo_open(two, &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    CHECK(tl != NULL);
    if (!tl)
        return;
    const tl_mark *lv = NULL;
    for (int i = 0; i < tl_num_marks(tl) && !lv; i++)
        if (tl_get_mark(tl, i)->kind == TL_MARK_LEVEL && tl_get_mark(tl, i)->time > tl_start(tl))
            lv = tl_get_mark(tl, i);
    CHECK(lv != NULL);
    static player p;
    player_init(&p, tl, 640, 480);
    if (lv) {
        double mt = lv->time;
        p.t = tl_prev_frame(tl, mt);
        key(&p, IN_KEY_PAGEDOWN, 0);
        const cl_state *cl = tl_state_at(tl, p.t, NULL);
        CHECK_MSG(cl && !strcmp(cl->level.map, "maps/e1m3.bsp"), "at %.3f (mark %.3f): %s",
                  p.t, mt, cl ? cl->level.map : "-");
        double level_t = p.t;
        key(&p, IN_KEY_PAGEUP, 0);
        CHECK_MSG(p.t < mt, "PgUp from %.3f to %.3f", level_t, p.t);
    }
    tl_close(tl);
}

/* The mouse wheel seeks as mpv's does, 10 s a notch (dy > 0, away from the user: forward);
 * Esc leaves fullscreen when the window is (asks for the toggle) and quits otherwise. */
TEST(player_wheel_seeks_and_esc_leaves_fullscreen)
{
    VEKTAR(tl, p);
    key(&p, IN_KEY_0 + 5, 0);
    double t0 = p.t;
    in_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = IN_EV_WHEEL;
    ev.dy = 2;
    player_event(&p, &ev);
    CHECK_MSG(NEAR(p.t, t0 + 20), "%.3f -> %.3f", t0, p.t);
    ev.dy = -1;
    player_event(&p, &ev);
    CHECK(NEAR(p.t, t0 + 10));
    p.is_fullscreen = 1;
    key(&p, IN_KEY_ESCAPE, 0);
    CHECK(p.fullscreen == 1 && !p.quit);
    p.fullscreen = 0;
    p.is_fullscreen = 0;
    key(&p, IN_KEY_ESCAPE, 0);
    CHECK(p.quit && !p.fullscreen);
    tl_close(tl);
}

/* p's overlay drawn over a white 640 x 480 frame (NULL: no memory). */
static rast_fb *overlay_on_white(const player *p)
{
    rast_fb *fb = rast_fb_new(640, 480);
    if (fb) {
        rast_clear(fb, rast_rgb(255, 255, 255));
        player_overlay(p, NULL, fb);
    }
    return fb;
}

/* '?' lists the keys over the picture and again hides them; Esc hides the list before it
 * quits; a newcomer is told of '?' for the first seconds. The list is drawn over the frame's
 * middle (dimmed: the middle pixel of a white frame is no longer white), not without it. */
TEST(player_question_mark_lists_the_keys)
{
    VEKTAR(tl, p);
    CHECK(strstr(p.notice, "?") != NULL && p.notice_until > p.wall);
    rast_fb *fb = overlay_on_white(&p);
    CHECK(fb != NULL);
    if (!fb) {
        tl_close(tl);
        return;
    }
    CHECK_EQ(fb->color[240 * 640 + 320], rast_rgb(255, 255, 255));
    key(&p, IN_KEY_SLASH, 0);
    CHECK(p.help);
    player_overlay(&p, NULL, fb);
    CHECK(fb->color[240 * 640 + 320] != rast_rgb(255, 255, 255));
    key(&p, IN_KEY_SLASH, 0);
    CHECK(!p.help);
    key(&p, IN_KEY_SLASH, 0);
    key(&p, IN_KEY_ESCAPE, 0);
    CHECK(!p.help && !p.quit);
    key(&p, IN_KEY_ESCAPE, 0);
    CHECK(p.quit);
    rast_fb_free(fb);
    tl_close(tl);
}

/* In a one-player demo Tab has nobody but the recorder to follow, whom the recorded view
 * shows: it stays there (a review: it followed the recorder, the gun gone); Esc leaves the
 * free camera before it quits, as a game's menu key gives the mouse back. */
TEST(player_tab_alone_and_esc_leaves_the_free_camera)
{
    VEKTAR(tl, p);
    key(&p, IN_KEY_0 + 5, 0);
    const cl_state *cl = tl_state_at(tl, p.t, NULL);
    CHECK(cl != NULL);
    int playing = 0;
    for (int i = 0; cl && i < CL_MAX_PLAYERS; i++)
        playing += cl->players[i].active && !cl->players[i].spectator;
    CHECK_EQ(playing, 1);
    key(&p, IN_KEY_TAB, 0);
    CHECK_EQ(p.follow, -1);
    key(&p, IN_KEY_A + ('f' - 'a'), 0);
    CHECK_EQ(p.camera, PLAYER_CAM_FREE);
    key(&p, IN_KEY_ESCAPE, 0);
    CHECK(p.camera != PLAYER_CAM_FREE && !p.quit);
    key(&p, IN_KEY_ESCAPE, 0);
    CHECK(p.quit);
    tl_close(tl);
}

/* A notice wider than the frame is wrapped at its spaces (a review: a damage notice ran off
 * the window, its byte lost); a word longer than a line is cut where the line ends. By
 * hand: width 12. */
TEST(player_notice_wraps_at_spaces)
{
    char out[128];
    player_wrap("damaged at byte 20480: plays to 0:07.788", 12, out, sizeof out);
    CHECK_STR(out, "damaged at\nbyte 20480:\nplays to\n0:07.788");
    player_wrap("abcdefghijklmnopq rs", 8, out, sizeof out);
    CHECK_STR(out, "abcdefgh\nijklmnop\nq rs");
    player_wrap("short", 12, out, sizeof out);
    CHECK_STR(out, "short");
}

/* 'i' and 'o' mark a span to render and make its command (a review: a movie maker's most
 * missed key after the camera path): at 5 s and 10 s of vektar, `--from 5.000 --to 10.000`;
 * 'o' before 'i' starts the span at 0; an 'i' past 'o' drops 'o'; the path is quoted for a
 * shell (a quote in it as '\''), and the followed player named, quoted. */
TEST(player_in_and_out_make_a_render_command)
{
    VEKTAR(tl, p);
    CHECK(p.cut_in < 0 && p.cut_out < 0 && !p.cut_ready);
    key(&p, IN_KEY_A + ('o' - 'a'), 0);
    CHECK(p.cut_in == 0 && p.cut_out == 0 && !p.cut_ready); /* (an empty span) */
    key(&p, IN_KEY_0 + 1, 0); /* 10 % */
    double at = p.t - p.start;
    key(&p, IN_KEY_A + ('i' - 'a'), 0);
    CHECK(NEAR(p.cut_in, at) && p.cut_out < 0 && !p.cut_ready);
    key(&p, IN_KEY_RIGHT, 0);
    key(&p, IN_KEY_A + ('o' - 'a'), 0);
    CHECK(NEAR(p.cut_out, at + 5) && p.cut_ready);
    char cmd[200], want[200];
    player_cut_command(&p, NULL, "/tmp/it's.dem", cmd, sizeof cmd);
    /* (the window's HUD is the game's by default: the render is asked for it too) */
    snprintf(want, sizeof want,
             "qdemo render '/tmp/it'\\''s.dem' --from %.3f --to %.3f --hud game -o frames", at,
             at + 5);
    CHECK_STR(cmd, want);
    /* what the window shows goes with it: the flat mode, no HUD, no gun */
    p.mode = R_MODE_FLAT;
    p.hud = PLAYER_HUD_NONE;
    p.no_gun = 1;
    player_cut_command(&p, NULL, "a.dem", cmd, sizeof cmd);
    CHECK(strstr(cmd, " --mode flat --no-gun -o frames") && !strstr(cmd, "--hud"));
    p.mode = R_MODE_TEXTURED;
    p.hud = PLAYER_HUD_GAME;
    p.no_gun = 0;
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl != NULL);
    if (cl) {
        snprintf(cl->players[2].name, sizeof cl->players[2].name, "o'neil");
        p.follow = 2;
        player_cut_command(&p, cl, "a.dem", cmd, sizeof cmd);
        CHECK(strstr(cmd, " --follow 'o'\\''neil'") != NULL);
        free(cl);
    }
    key(&p, IN_KEY_0 + 5, 0);
    key(&p, IN_KEY_A + ('i' - 'a'), 0); /* past 'o': 'o' dropped */
    CHECK(p.cut_out < 0 && !p.cut_ready);
    tl_close(tl);
}

/* The pointer over the bar shows the time under it (a review: none), and mouse-look in the
 * free camera does not keep the bar up. */
TEST(player_bar_hover_shows_its_time)
{
    VEKTAR(tl, p);
    int bx, by, bw, bh;
    player_bar_rect(640, 480, &bx, &by, &bw, &bh);
    in_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = IN_EV_MOTION;
    ev.x = bx + bw / 2;
    ev.y = by + bh / 2;
    player_event(&p, &ev);
    CHECK(p.hover);
    rast_fb *fb = overlay_on_white(&p);
    CHECK(fb != NULL);
    if (!fb) {
        tl_close(tl);
        return;
    }
    /* the label's dim box just above the bar's middle, its top padding row (2 pixels above
     * the 7-pixel text, which is 4 above the bar less its height: by - 12 at scale 1) */
    CHECK(fb->color[(size_t)(by - 12) * 640 + (size_t)(bx + bw / 2)] != rast_rgb(255, 255, 255));
    ev.y = 10; /* off the bar */
    player_event(&p, &ev);
    CHECK(!p.hover);
    key(&p, IN_KEY_A + ('f' - 'a'), 0);
    p.wall += 10;
    double until = p.bar_until;
    ev.dx = 5;
    player_event(&p, &ev);
    CHECK(p.bar_until == until);
    rast_fb_free(fb);
    tl_close(tl);
}

/* 'v' views along the camera path as `render --camera free --camera-path` draws it (a
 * review's "Left": no preview of a path in the window). Keys added with 'k' out of time
 * order go in order, one at the same moment replaces the old, and the keys held are the
 * saved file's to the digit, so the window's camera is the one the render computes from
 * that file. */
TEST(player_v_views_along_the_camera_path)
{
    VEKTAR(tl, p);
    snprintf(p.saved_file, sizeof p.saved_file, "%s/v.path", test_tmpdir());
    key(&p, IN_KEY_A + ('v' - 'a'), 0);
    CHECK(p.camera == PLAYER_CAM_POV && strstr(p.notice, "no camera path") != NULL);
    key(&p, IN_KEY_A + ('f' - 'a'), 0);
    CHECK(p.camera == PLAYER_CAM_FREE);
    static const float where[3][3] = {{100.123f, 200, 30}, {-50, 60.456f, 70}, {5, 6, 7}};
    static const int at[3] = {5, 1, 1}; /* 50 %, 10 %, then 10 % again: a replacement */
    for (int i = 0; i < 3; i++) {
        key(&p, IN_KEY_0 + at[i], 0);
        memcpy(p.free_origin, where[i], sizeof p.free_origin);
        p.free_angles[1] = 10.0f * (float)i + 0.3333f;
        key(&p, IN_KEY_A + ('k' - 'a'), 0);
    }
    CHECK_EQ(p.path_len, 2);
    CHECK(p.path[0].t < p.path[1].t);
    CHECK(fabsf(p.path[0].origin[0] - 5.0f) < 1e-4f &&
          fabsf(p.path[1].origin[0] - 100.12f) < 1e-4f); /* (%.2f: 100.123 saved as 100.12) */
    CHECK(strstr(p.notice, "key 1 of 2 replaced") != NULL);
    player_cam_key file[8];
    qd_error err;
    CHECK_EQ(player_path_load(p.saved_file, file, 8, &err), 2);
    CHECK(!memcmp(&file[0].t, &p.path[0].t, sizeof file[0].t) &&
          !memcmp(file[0].origin, p.path[0].origin, sizeof file[0].origin) &&
          !memcmp(file[1].angles, p.path[1].angles, sizeof file[1].angles));
    key(&p, IN_KEY_A + ('v' - 'a'), 0);
    CHECK(p.camera == PLAYER_CAM_PATH);
    double t = (p.path[0].t + p.path[1].t) / 2;
    const cl_state *cl = tl_state_at(tl, t, NULL);
    CHECK(cl != NULL);
    r_camera shown, rendered;
    if (cl)
        player_camera(&p, cl, t, &shown);
    player_path_eval(file, 2, t, &rendered);
    /* halfway: the origin's x between 5 and 100.12 */
    CHECK(cl && !memcmp(&shown, &rendered, sizeof shown) &&
          fabsf(rendered.origin[0] - 52.56f) < 1e-3f);
    /* 'i' / 'o' in the path view name the path file for the render */
    key(&p, IN_KEY_A + ('i' - 'a'), 0);
    key(&p, IN_KEY_RIGHT, 0);
    key(&p, IN_KEY_A + ('o' - 'a'), 0);
    char cmd[2800];
    player_cut_command(&p, cl, "a.dem", cmd, sizeof cmd);
    CHECK(strstr(cmd, " --camera free --camera-path '") != NULL && strstr(cmd, "/v.path'"));
    /* and 'v' again is the recorded view */
    key(&p, IN_KEY_A + ('v' - 'a'), 0);
    CHECK(p.camera == PLAYER_CAM_POV);
    tl_close(tl);
}

/* qdemo's notices sit below the game's message lines, not over them (a review's "Left":
 * both at the top left). Four Quake notify lines of the longest text drawn into one frame,
 * a notice into another: no row holds pixels of both. With no HUD (no message lines) the
 * notice is at the top again. */
TEST(player_notice_below_the_game_messages)
{
    VEKTAR(tl, p);
    cl_state *cl = calloc(1, sizeof *cl);
    rast_fb *game = rast_fb_new(640, 480), *ours = rast_fb_new(640, 480);
    CHECK(cl && game && ours);
    if (!cl || !game || !ours) {
        free(cl);
        rast_fb_free(game);
        rast_fb_free(ours);
        tl_close(tl);
        return;
    }
    for (int i = 0; i < 4; i++) {
        cl->messages[i].time = 1.0;
        cl->messages[i].kind = CL_MSG_PRINT;
        memset(cl->messages[i].text, 'W', 60);
    }
    cl->message_count = 4;
    rast_clear(game, 0);
    player_draw_messages(PLAYER_HUD_GAME, cl, NULL, 1.5, game);
    int game_rows = 0, last_game = -1;
    for (int y = 0; y < 480; y++)
        for (int x = 0; x < 640; x++)
            if (game->color[y * 640 + x] != 0) {
                game_rows++;
                last_game = y;
                break;
            }
    CHECK(game_rows > 20); /* (four lines were drawn) */
    snprintf(p.notice, sizeof p.notice, "a notice");
    p.notice_until = p.wall + 5;
    int first_ours = -1;
    for (int pass = 0; pass < 2; pass++) {
        p.hud = pass == 0 ? PLAYER_HUD_GAME : PLAYER_HUD_NONE;
        p.bar_until = -1;
        p.paused = 0;
        rast_clear(ours, 0);
        player_overlay(&p, cl, ours);
        first_ours = -1;
        for (int y = 0; y < 480 && first_ours < 0; y++)
            for (int x = 0; x < 640; x++)
                if (ours->color[y * 640 + x] != 0) {
                    first_ours = y;
                    break;
                }
        if (pass == 0)
            CHECK(first_ours > last_game);
        else
            CHECK(first_ours >= 0 && first_ours < 10);
    }
    free(cl);
    rast_fb_free(game);
    rast_fb_free(ours);
    tl_close(tl);
}

/* A review of the path view: a key whose save failed is in no file, so 'i'/'o' in the path
 * view give no render command (the command named the loaded file without the key, or the
 * recorded view); Esc leaves the path view before it quits; a key's time may be a demo
 * clock's (up to 1e7 s, as the decoders and --from take it; 1e6 was refused on reload). */
TEST(player_unsaved_path_gives_no_command)
{
    VEKTAR(tl, p);
    p.save_dir = "/nonexistent/qdemo-review";
    key(&p, IN_KEY_A + ('f' - 'a'), 0);
    key(&p, IN_KEY_0 + 5, 0);
    key(&p, IN_KEY_A + ('k' - 'a'), 0);
    CHECK(p.path_len == 1 && p.path_unsaved && strstr(p.notice, "cannot create"));
    key(&p, IN_KEY_A + ('v' - 'a'), 0);
    CHECK(p.camera == PLAYER_CAM_PATH);
    key(&p, IN_KEY_A + ('i' - 'a'), 0);
    key(&p, IN_KEY_RIGHT, 0);
    key(&p, IN_KEY_A + ('o' - 'a'), 0);
    char cmd[2800];
    CHECK_EQ(player_cut_command(&p, NULL, "a.dem", cmd, sizeof cmd), 0);
    CHECK(strstr(cmd, "not saved") != NULL && strstr(cmd, "qdemo render") == NULL);
    key(&p, IN_KEY_ESCAPE, 0);
    CHECK(p.camera == PLAYER_CAM_POV && !p.quit);
    /* saved once a save works again: the command then names the file */
    p.save_dir = test_tmpdir();
    key(&p, IN_KEY_A + ('k' - 'a'), 0);
    CHECK(!p.path_unsaved);
    key(&p, IN_KEY_A + ('v' - 'a'), 0);
    CHECK_EQ(player_cut_command(&p, NULL, "a.dem", cmd, sizeof cmd), 1);
    CHECK(strstr(cmd, "--camera-path") != NULL);
    player_cam_key keys[2];
    qd_error err;
    const char *late = "5000000.5 1 2 3 0 0 0\n", *later = "20000000 1 2 3 0 0 0\n";
    CHECK_EQ(player_path_parse(late, strlen(late), keys, 2, &err), 1);
    CHECK_EQ(player_path_parse(later, strlen(later), keys, 2, &err), 0);
    tl_close(tl);
}

/* A path of three or more keys glides through them: a cubic with Catmull-Rom slopes over
 * the keys' times (a review: linear, the camera turned a corner at every key). By hand for
 * x keys 0, 10, 0 at 0, 1, 2 s: the middle key's slope (0 - 0) / 2 = 0, the first's the
 * segment's own 10; at 0.5 s the Hermite weights 1/2, 1/8, 1/2, -1/8 give
 * 0 + 10/8 + 5 - 0 = 6.25 (a straight line: 5). Yaw 350, 10, 30 unwraps to 350, 370, 390,
 * evenly: 360 at 0.5 s. Two keys of one time are a cut: the path jumps there, and the
 * slopes on either side are the segments' own. */
TEST(player_path_glides_through_its_keys)
{
    player_cam_key k[5] = {{0, {0, 0, 0}, {0, 350, 0}},
                           {1, {10, 0, 0}, {0, 10, 0}},
                           {2, {0, 0, 0}, {0, 30, 0}},
                           {2, {500, 0, 0}, {0, 30, 0}},
                           {3, {600, 0, 0}, {0, 30, 0}}};
    r_camera c;
    player_path_eval(k, 3, 0.5, &c);
    CHECK(fabsf(c.origin[0] - 6.25f) < 1e-4f);
    CHECK(fabsf(fmodf(c.angles[1] + 360.0f, 360.0f)) < 1e-3f ||
          fabsf(fmodf(c.angles[1] + 360.0f, 360.0f) - 360.0f) < 1e-3f);
    player_path_eval(k, 3, 1.0, &c);
    CHECK(fabsf(c.origin[0] - 10.0f) < 1e-5f); /* through the key */
    /* no corner at the middle key: the same height a step either side */
    r_camera l, r;
    player_path_eval(k, 3, 1.0 - 1e-3, &l);
    player_path_eval(k, 3, 1.0 + 1e-3, &r);
    CHECK(fabsf(l.origin[0] - r.origin[0]) < 1e-4f && l.origin[0] < 10.0f);
    /* the cut at 2 s: just before, near 0; at it, the later key; after, towards 600 */
    player_path_eval(k, 5, 2.0 - 1e-6, &c);
    CHECK(fabsf(c.origin[0]) < 1e-3f);
    player_path_eval(k, 5, 2.0, &c);
    CHECK(fabsf(c.origin[0] - 500.0f) < 1e-4f);
    player_path_eval(k, 5, 2.5, &c);
    CHECK(fabsf(c.origin[0] - 550.0f) < 1e-3f); /* (a segment with no neighbours: straight) */
    /* keys a subnormal time apart (a fuzz run: an infinite slope, then NaN): finite */
    player_cam_key tiny[3] = {{0, {0, 0, 0}, {0, 0, 0}},
                              {5e-324, {1, 0, 0}, {0, 90, 0}},
                              {1e-323, {2, 0, 0}, {0, 0, 0}}};
    static const double at[] = {0, 2.5e-324, 5e-324, 7.4e-324, 1, NAN};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        for (int n = 2; n <= 3; n++) {
            player_path_eval(tiny, n, at[i], &c);
            CHECK(isfinite(c.origin[0]) && isfinite(c.angles[1]));
        }
}

/* '<' and '>' go to the camera path's keys (paused there), and 'K' removes the key at the
 * moment shown, the file saved again (a review, as a movie maker: a key could not be
 * removed, nor the path stepped key by key). */
TEST(player_steps_and_removes_camera_keys)
{
    VEKTAR(tl, p);
    snprintf(p.saved_file, sizeof p.saved_file, "%s/steps.path", test_tmpdir());
    key(&p, IN_KEY_GREATER, 0);
    CHECK(strstr(p.notice, "no camera path") != NULL);
    double at[3];
    for (int i = 0; i < 3; i++) {
        key(&p, IN_KEY_0 + 2 + 3 * i, 0); /* 20, 50, 80 % */
        at[i] = p.t;
        p.free_origin[0] = (float)i;
        key(&p, IN_KEY_A + ('k' - 'a'), 0);
    }
    CHECK_EQ(p.path_len, 3);
    key(&p, IN_KEY_HOME, 0);
    key(&p, IN_KEY_GREATER, 0);
    CHECK(p.paused && fabs(p.t - at[0]) < 1e-4 && strstr(p.notice, "key 1 of 3"));
    key(&p, IN_KEY_GREATER, 0);
    CHECK(fabs(p.t - at[1]) < 1e-4);
    key(&p, IN_KEY_LESS, 0);
    CHECK(fabs(p.t - at[0]) < 1e-4);
    key(&p, IN_KEY_LESS, 0);
    CHECK(fabs(p.t - at[0]) < 1e-4 && strstr(p.notice, "no earlier"));
    key(&p, IN_KEY_GREATER, 0);
    key(&p, IN_KEY_A + ('k' - 'a'), IN_MOD_SHIFT); /* the middle key */
    CHECK(p.path_len == 2 && strstr(p.notice, "key 2 removed (2 left)"));
    CHECK(p.path[0].origin[0] == 0.0f && p.path[1].origin[0] == 2.0f);
    player_cam_key file[4];
    qd_error err;
    CHECK_EQ(player_path_load(p.saved_file, file, 4, &err), 2);
    key(&p, IN_KEY_A + ('k' - 'a'), IN_MOD_SHIFT);
    CHECK(p.path_len == 2 && strstr(p.notice, "no camera key here"));
    tl_close(tl);
}
