/* test_desktop.c: meeting the desktop: folders and several files as a playlist, the
 * window's keys and mouse for it (n/p, F11 and a double click, F12, a dropped file), the
 * screenshot beside the demo, `info` on several demos. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/app/app.h"
#include "../../src/app/player.h"
#include "../test.h"

static void touch(const char *dir, const char *name)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f)
        fclose(f);
}


/* A folder gives its demos by name (what a demo site's download holds: .dem, .mvd.gz, .zip),
 * not other files, hidden ones or subfolders; a file is kept as named, in its place. */
TEST(desktop_folder_expands_to_its_demos_by_name)
{
    const char *dir = test_scratch("desktop-list");
    if (!dir)
        SKIP("no scratch folder");
    touch(dir, "b.mvd.gz");
    touch(dir, "a.dem");
    touch(dir, "c.zip");
    touch(dir, "d.DM_68");
    touch(dir, "notes.txt");
    touch(dir, "e.txt.gz");
    touch(dir, ".hidden.dem");
    char sub[1100];
    snprintf(sub, sizeof sub, "%s/sub.dem", dir); /* a folder named like a demo */
    mkdir(sub, 0755);
    const char *args[] = {"first.qwd", dir, "missing.dm2"};
    char **v = NULL;
    int n = app_expand_demos(args, 3, &v);
    CHECK_EQ(n, 6);
    if (n == 6) {
        static const char *const want[] = {"a.dem", "b.mvd.gz", "c.zip", "d.DM_68"};
        CHECK_STR(v[0], "first.qwd");
        for (int i = 0; i < 4; i++) {
            char p[2048];
            snprintf(p, sizeof p, "%s/%s", dir, want[i]);
            CHECK(strcmp(v[1 + i], p) == 0);
        }
        CHECK_STR(v[5], "missing.dm2");
    }
    app_free_demos(v, n);
}

/* The keys and the mouse ask the window's owner for the playlist's next and previous demo,
 * a screenshot, fullscreen; a dropped file is kept whole to be opened. */
TEST(desktop_keys_and_mouse_requests)
{
    static player p;
    memset(&p, 0, sizeof p);
    p.speed = 1;
    in_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = IN_EV_KEY_DOWN;
    ev.key = IN_KEY_A + ('n' - 'a');
    player_event(&p, &ev);
    CHECK_EQ(p.go, 1);
    ev.key = IN_KEY_A + ('p' - 'a');
    player_event(&p, &ev);
    CHECK_EQ(p.go, -1);
    ev.key = IN_KEY_F12;
    player_event(&p, &ev);
    CHECK_EQ(p.shot, 1);
    ev.key = IN_KEY_F11;
    player_event(&p, &ev);
    CHECK_EQ(p.fullscreen, 1);
    p.fullscreen = 0;
    memset(&ev, 0, sizeof ev);
    ev.type = IN_EV_BUTTON_DOWN;
    ev.button = IN_BUTTON_LEFT;
    ev.clicks = 1;
    ev.x = 10;
    ev.y = 10;
    p.fb_w = 640;
    p.fb_h = 480;
    player_event(&p, &ev);
    CHECK_EQ(p.fullscreen, 0); /* one click: no */
    ev.clicks = 2;
    player_event(&p, &ev);
    CHECK_EQ(p.fullscreen, 1);
    memset(&ev, 0, sizeof ev);
    ev.type = IN_EV_DROP;
    ev.path = "/home/someone/Downloads/duel.mvd.gz";
    player_event(&p, &ev);
    CHECK(p.ndrops == 1 && strcmp(p.drops, "/home/someone/Downloads/duel.mvd.gz") == 0);
    /* a second file of the same drop follows it */
    ev.path = "/tmp/b.dem";
    player_event(&p, &ev);
    CHECK(p.ndrops == 2 && strcmp(p.drops + strlen(p.drops) + 1, "/tmp/b.dem") == 0);
}

/* F12's file: beside the demo, named by the time, a new file each time; a link planted at
 * the name is not written through (the next name is taken). */
TEST(desktop_screenshot_beside_the_demo)
{
    const char *dir = test_scratch("desktop-shot");
    if (!dir)
        SKIP("no scratch folder");
    char demo[1200], first[1300], second[1300], third[1300], target[1300];
    snprintf(demo, sizeof demo, "%s/duel.dem", dir);
    snprintf(first, sizeof first, "%s-1m05.250s.png", demo);
    snprintf(second, sizeof second, "%s-1m05.250s-2.png", demo);
    snprintf(third, sizeof third, "%s-1m05.250s-3.png", demo);
    snprintf(target, sizeof target, "%s/precious.txt", dir);
    FILE *f = fopen(target, "w");
    if (f) {
        fputs("keep me", f);
        fclose(f);
    }
    rast_fb *fb = rast_fb_new(32, 24);
    CHECK(fb);
    if (!fb)
        return;
    char notice[128];
    app_save_shot(demo, 65.25, fb, notice, sizeof notice);
    CHECK(access(first, F_OK) == 0);
    CHECK_MSG(strstr(notice, "saved duel.dem-1m05.250s.png") != NULL, "%s", notice);
    CHECK(symlink(target, second) == 0); /* planted at the next name */
    app_save_shot(demo, 65.25, fb, notice, sizeof notice);
    CHECK(access(third, F_OK) == 0);
    f = fopen(target, "r");
    char buf[16] = "";
    if (f) {
        CHECK(fgets(buf, sizeof buf, f) != NULL);
        fclose(f);
    }
    CHECK_STR(buf, "keep me");
    rast_fb_free(fb);
}

/* `qdemo info --json A B` prints one object a line; render and dump take one demo. */
TEST(desktop_info_on_several_demos)
{
    const char *q = getenv("QDEMO");
    if (!q || !*q || access(q, X_OK) != 0 || access("assets/smoothme.dem", R_OK) != 0)
        SKIP("run from the project root with QDEMO set (make test)");
    static char out[1 << 16];
    CHECK_EQ(test_capture(out, sizeof out, "%s info --json assets/smoothme.dem "
                                          "assets/smoothme.dem 2>/dev/null",
                          q),
             0);
    int lines = 0;
    for (const char *s = out; (s = strstr(s, "{\"format\": \"dem\"")); s++)
        lines++;
    CHECK_EQ(lines, 2);
    CHECK(strchr(out, '\n') && strchr(out, '\n') < strrchr(out, '{')); /* one a line */
    CHECK_EQ(test_capture(out, sizeof out, "%s dump assets/smoothme.dem assets/smoothme.dem "
                                          "2>&1",
                          q),
             1);
    CHECK(strstr(out, "takes one demo") != NULL);
    /* a folder of two demos (a review: render and dump used its first in silence) */
    char dir[] = "/tmp/qdemo-twodemos-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_EQ(test_capture(out, sizeof out, "cp assets/smoothme.dem %s/a.dem && cp "
                                          "assets/smoothme.dem %s/b.dem && %s dump %s 2>&1",
                          dir, dir, q, dir),
             1);
    CHECK(strstr(out, "takes one demo") && strstr(out, "holds 2"));
    CHECK_EQ(test_capture(out, sizeof out, "rm -r %s/b.dem && %s dump %s > /dev/null 2>&1",
                          dir, q, dir),
             0); /* one in it: that one */
    CHECK_EQ(test_capture(out, sizeof out, "rm -r %s", dir), 0);
}

/* QuakeWorld's team scoreboard rows (Sbar_TeamOverlay: low/avg/high, team, total,
 * players), most frags first; no rows without two teams or with a player on none. */
TEST(desktop_team_totals_by_hand)
{
    static cl_state cl;
    cl_reset(&cl);
    cl_level_begin(&cl, CL_GAME_QW, 28, 32, "");
    const struct {
        const char *name, *team;
        int frags;
    } who[] = {{"a", "blue", 5}, {"b", "red", 3}, {"c", "blue", -1}, {"d", "red", 9}};
    for (int i = 0; i < 4; i++) {
        cl_set_player_name(&cl, i, who[i].name);
        cl_set_player_team_name(&cl, i, who[i].team);
        cl_set_player_frags(&cl, i, who[i].frags);
    }
    player_team rows[8];
    CHECK_EQ(player_team_totals(&cl, rows, 8), 2);
    CHECK_STR(rows[0].name, "red"); /* 3 + 9 = 12 over 5 - 1 = 4 */
    CHECK(rows[0].total == 12 && rows[0].players == 2 && rows[0].low == 3 && rows[0].high == 9);
    CHECK_STR(rows[1].name, "blue");
    CHECK(rows[1].total == 4 && rows[1].players == 2 && rows[1].low == -1 && rows[1].high == 5);
    cl_set_player_team_name(&cl, 3, ""); /* d on no team: no team game to show */
    CHECK_EQ(player_team_totals(&cl, rows, 8), 0);
    for (int i = 0; i < 4; i++)
        cl_set_player_team_name(&cl, i, "red"); /* one team: no rows either */
    CHECK_EQ(player_team_totals(&cl, rows, 8), 0);
}

/* F12 beside a demo whose folder may not be written (sysfs refuses a new file, root or not)
 * saves in the current folder, and says so with "./" (a review: only "not saved"). */
TEST(desktop_screenshot_falls_back_to_the_current_folder)
{
    if (access("/sys/kernel", F_OK) != 0)
        SKIP("no /sys here");
    char old[4096];
    CHECK(getcwd(old, sizeof old) != NULL);
    CHECK_EQ(chdir(test_tmpdir()), 0);
    rast_fb *fb = rast_fb_new(32, 24);
    char notice[256] = "";
    app_save_shot("/sys/kernel/qdemo-shot.dem", 65.25, fb, notice, sizeof notice);
    CHECK_MSG(access("qdemo-shot.dem-1m05.250s.png", F_OK) == 0, "%s", notice);
    CHECK_MSG(strstr(notice, "saved ./qdemo-shot.dem-1m05.250s.png") != NULL, "%s", notice);
    unlink("qdemo-shot.dem-1m05.250s.png");
    rast_fb_free(fb);
    CHECK_EQ(chdir(old), 0);
}
