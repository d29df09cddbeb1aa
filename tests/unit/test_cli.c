/* test_cli.c: the command line: exit codes, info --json, the basedir search path. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../test.h"

static const char *bin(void)
{
    const char *q = getenv("QDEMO");
    return q && *q ? q : "build/qdemo";
}

/* n bytes as the file path: 0 when they could not all be written. */
static int write_file(const char *path, const void *d, size_t n)
{
    FILE *o = fopen(path, "wb");
    if (!o)
        return 0;
    size_t put = fwrite(d, 1, n, o);
    return fclose(o) == 0 && put == n;
}

static int count_lines(const char *s)
{
    int lines = 0;
    for (; *s; s++)
        lines += *s == '\n';
    return lines;
}

TEST(cli_exit_codes)
{
    if (access(bin(), X_OK) != 0)
        SKIP("no qdemo binary");
    static char out[65536];
    CHECK_EQ(test_capture(out, sizeof out, "%s --version", bin()), 0);
    CHECK(strncmp(out, "qdemo ", 6) == 0);
    CHECK_EQ(test_capture(out, sizeof out, "%s --help", bin()), 0);
    CHECK(strstr(out, "usage:") != NULL);
    CHECK_EQ(test_capture(out, sizeof out, "%s 2>/dev/null", bin()), 1);
    CHECK_EQ(test_capture(out, sizeof out, "%s info --bogus x.dem 2>/dev/null", bin()), 1);
    CHECK_EQ(test_capture(out, sizeof out, "%s render assets/smoothme.dem 2>/dev/null", bin()), 1);
    /* unreadable input: exit 2 with one line naming the file, the offset and the reason */
    CHECK_EQ(test_capture(out, sizeof out, "%s info /nonexistent/demo.dem 2>&1", bin()), 2);
    CHECK(strstr(out, "/nonexistent/demo.dem") && strstr(out, "offset 0"));
    char cut[600];
    snprintf(cut, sizeof cut, "%s/cut.dem", test_tmpdir());
    CHECK_EQ(test_capture(out, sizeof out, "head -c 30000 assets/smoothme.dem > %s", cut), 0);
    CHECK_EQ(test_capture(out, sizeof out, "%s info %s 2>&1 >/dev/null", bin(), cut), 2);
    CHECK(strstr(out, "cut.dem: offset ") && strstr(out, "truncated"));
    CHECK_EQ(count_lines(out), 1);
}

TEST(cli_info_json_and_basedir)
{
    if (access(bin(), X_OK) != 0 || access("assets/smoothme.dem", R_OK) != 0)
        SKIP("no qdemo binary or sample");
    static char out[65536];
    /* without game data every model is missing */
    CHECK_EQ(test_capture(out, sizeof out, "QDEMO_BASEDIR= %s info --json assets/smoothme.dem", bin()),
             0);
    CHECK(strstr(out, "\"format\": \"dem\"") && strstr(out, "\"protocol\": 666"));
    CHECK(strstr(out, "\"map\": \"maps/e1m1.bsp\"") && strstr(out, "\"complete\": true"));
    CHECK(strstr(out, "\"models_missing\": [\"maps/e1m1.bsp\""));
    /* a basedir with id1/maps/e1m1.bsp: the map is no longer missing */
    char base[600], id1[700], maps[800], link[900], target[PATH_MAX];
    snprintf(base, sizeof base, "%s/quake", test_tmpdir());
    snprintf(id1, sizeof id1, "%s/ID1", base); /* folder names match in any case */
    snprintf(maps, sizeof maps, "%s/maps", id1);
    snprintf(link, sizeof link, "%s/e1m1.bsp", maps);
    mkdir(base, 0777);
    mkdir(id1, 0777);
    mkdir(maps, 0777);
    CHECK(realpath("assets/maps/e1m1.bsp", target));
    unlink(link);
    CHECK(symlink(target, link) == 0);
    CHECK_EQ(test_capture(out, sizeof out, "%s info --json -b %s assets/smoothme.dem", bin(), base), 0);
    CHECK(strstr(out, "\"models_missing\": [\"progs/player.mdl\""));
    CHECK(!strstr(out, "\"models_missing\": [\"maps/e1m1.bsp\""));
    /* the same through $QDEMO_BASEDIR */
    CHECK_EQ(test_capture(out, sizeof out, "QDEMO_BASEDIR=%s %s info --json assets/smoothme.dem",
                     base, bin()),
             0);
    CHECK(strstr(out, "\"models_missing\": [\"progs/player.mdl\""));
}

/* An unsupported version of a known format says what the file is (#9). Before, info said
 * "format": "unknown", "protocol": 0 for such a file. The bytes: one .dm2 block [DM2 2.2] of
 * 24 bytes holding svc_serverdata (12) of protocol 2023 (the rerelease's, 0x07e7),
 * servercount 1, isdemo 1, gamedir "", player 0, level "Test Level", and the end marker. */
TEST(cli_info_names_what_it_refuses)
{
    if (access(bin(), X_OK) != 0)
        SKIP("no qdemo binary");
    static const unsigned char d[] = {24,  0,   0,   0,   12,  0xe7, 0x07, 0,   0,   1,
                                      0,   0,   0,   1,   0,   0,    0,    'T', 'e', 's',
                                      't', ' ', 'L', 'e', 'v', 'e',  'l',  0,   0xff, 0xff,
                                      0xff, 0xff};
    char path[600];
    snprintf(path, sizeof path, "%s/rerelease.dm2", test_tmpdir());
    CHECK(write_file(path, d, sizeof d));
    static char out[65536];
    CHECK_EQ(test_capture(out, sizeof out, "%s info --json %s 2>/dev/null", bin(), path), 2);
    CHECK(strstr(out, "\"format\": \"dm2\"") != NULL);
    CHECK(strstr(out, "\"protocol\": 2023") != NULL);
    CHECK(strstr(out, "rerelease") && strstr(out, "unsupported"));
    CHECK_EQ(test_capture(out, sizeof out, "%s info %s 2>&1 >/dev/null", bin(), path), 2);
    CHECK_EQ(count_lines(out), 1);
}

/* KMQuake2's protocol 56 (#9: "every demo variant people share"): the manifest's
 * dm2/mission64-data_demos_demo1_kmq2-protocol56.dm2 ("Q2 DM2 protocol 56 ... gamedir
 * baseq64, maps/titlemap.bsp; 340 blocks, fully framed") decodes whole: 339 frames (its
 * server frames 6 to 344, read off the blocks that open with svc_frame in test_q2.c), the
 * map of its first configstrings. */
TEST(cli_info_kmquake2)
{
    if (access(bin(), X_OK) != 0)
        SKIP("no qdemo binary");
    char kmq2[600];
    if (!test_realfile(kmq2, sizeof kmq2, "dm2/mission64-data_demos_demo1_kmq2-protocol56.dm2"))
        SKIP("no realdata/dm2/mission64-data_demos_demo1_kmq2-protocol56.dm2");
    static char out[65536];
    CHECK_EQ(test_capture(out, sizeof out, "%s info --json %s 2>/dev/null", bin(), kmq2), 0);
    CHECK(strstr(out, "\"format\": \"dm2\"") != NULL);
    CHECK(strstr(out, "\"protocol\": 56") != NULL);
    CHECK(strstr(out, "\"complete\": true") != NULL);
    CHECK(strstr(out, "\"frames\": 339") != NULL);
    CHECK(strstr(out, "\"map\": \"maps/titlemap.bsp\"") != NULL);
}

/* Quake II 3.00 (protocol 25): info reports the file as a protocol-25 .dm2 and, on one line,
 * why it is not decoded. The bytes: one .dm2 block [DM2 2.2] of 24 bytes, no end marker (as
 * 3.00 wrote them, LMPC udm2.c), holding id 7, protocol 25, servercount 1, isdemo 1, gamedir
 * "", player 0, level "Test Level" (3.05's serverdata layout after 3.00's id; see
 * test_q2.c written_300). */
TEST(cli_info_protocol_25)
{
    if (access(bin(), X_OK) != 0)
        SKIP("no qdemo binary");
    static const unsigned char d[] = {24, 0, 0, 0, 7, 25, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
                                      'T', 'e', 's', 't', ' ', 'L', 'e', 'v', 'e', 'l', 0};
    char path[600];
    snprintf(path, sizeof path, "%s/q2test.dm2", test_tmpdir());
    CHECK(write_file(path, d, sizeof d));
    CHECK_EQ(sizeof d, 4 + 24);
    static char out[65536];
    CHECK_EQ(test_capture(out, sizeof out, "%s info --json %s 2>/dev/null", bin(), path), 2);
    CHECK(strstr(out, "\"format\": \"dm2\"") != NULL);
    CHECK(strstr(out, "\"protocol\": 25") != NULL);
    CHECK_EQ(test_capture(out, sizeof out, "%s info %s 2>&1 >/dev/null", bin(), path), 2);
    CHECK_MSG(strstr(out, "q2test.dm2: offset 4: ") && strstr(out, "Quake II 3.00") &&
                  strstr(out, "no public document gives its message ids"),
              "%.400s", out);
    CHECK_EQ(count_lines(out), 1);
}

/* --no-dlights: demo088-test1 4.805 s in, 5 ms after a bot's shotgun fires (the muzzle
 * flash test in test_md3_draw.c), one frame with and one without dynamic lights, from
 * Debian's OpenArena data (-b): the flash's light makes them differ. */
TEST(cli_no_dlights)
{
    char demo[1024];
    if (access(bin(), X_OK) != 0 ||
        !test_realfile(demo, sizeof demo,
                       "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71") ||
        access("/usr/share/games/openarena/baseoa/pak0.pk3", R_OK) != 0)
        SKIP("no qdemo binary, demo088 or Debian's OpenArena data");
    static char out[65536];
    const char *dir = test_tmpdir();
    CHECK_EQ(test_capture(out, sizeof out,
                          "%s render '%s' -b /usr/share/games/openarena -o %s/lit --from 4.805 --to 4.81 --fps 100 "
                          "--size 160x120 -q 2>&1",
                          bin(), demo, dir),
             0);
    CHECK_EQ(test_capture(out, sizeof out,
                          "%s render '%s' -b /usr/share/games/openarena -o %s/unlit --from 4.805 --to 4.81 --fps 100 "
                          "--size 160x120 -q --no-dlights 2>&1",
                          bin(), demo, dir),
             0);
    char lit[600], unlit[600];
    snprintf(lit, sizeof lit, "%s/lit/000000.png", dir);
    snprintf(unlit, sizeof unlit, "%s/unlit/000000.png", dir);
    CHECK_EQ(test_same_pixels(lit, unlit), 0);
}

/* A demo's strings reach `dump` and error lines escaped (a review found them raw): a Quake
 * .dem whose title holds an OSC sequence, whose player name holds a newline and then what
 * looks like another dump line, and whose light style holds ESC [2J; a Quake II cinematic
 * whose name holds a newline and ESC [2K (refused with one line). Bytes as the review's
 * script made them: "-1\n", one block of 90 bytes (svc_serverinfo 15, 1 client, title,
 * map, no models, no sounds; svc_updatename 0; svc_lightstyle 0; svc_disconnect); the .dm2
 * one svc_serverdata 34 with player -1 and its end marker. */
TEST(cli_demo_strings_escaped_in_lines)
{
    if (access(bin(), X_OK) != 0)
        SKIP("no qdemo binary");
    static const char dem[] = "-1\n\x5a\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
                              "\x0b\x0f\0\0\0\x01\0ti\x1b]0;pwned\x07tle\0maps/x.bsp\0\0\0"
                                 "\x0d\0evil\n     9.999      9        9 svc_fake\0"
                                 "\x0c\0ab\x1b[2Jc\0\x02";
    static const char dm2[] = "\x2d\0\0\0\x0c\x22\0\0\0\x01\0\0\0\0bad\x1b[31mdir\0\xff\xff"
                                 "intro\n\x1b[2Kfake: line\0\xff\xff\xff\xff";
    char d1[600], d2[600];
    snprintf(d1, sizeof d1, "%s/names.dem", test_tmpdir());
    snprintf(d2, sizeof d2, "%s/cinematic.dm2", test_tmpdir());
    CHECK(write_file(d1, dem, sizeof dem - 1) && sizeof dem - 1 == 109);
    CHECK(write_file(d2, dm2, sizeof dm2 - 1) && sizeof dm2 - 1 == 53);
    static char out[65536];
    test_capture(out, sizeof out, "%s dump %s 2>&1", bin(), d1);
    CHECK(strstr(out, "svc_updatename") != NULL);
    CHECK_MSG(!strchr(out, '\x1b') && !strchr(out, '\x07'), "%.300s", out);
    CHECK_MSG(!strstr(out, "\n     9.999"), "%.300s", out); /* no line made by the name */
    CHECK_EQ(test_capture(out, sizeof out, "%s info %s 2>&1 >/dev/null", bin(), d2), 2);
    CHECK(strstr(out, "cinematic") != NULL);
    CHECK_EQ(count_lines(out), 1);
    CHECK(!strchr(out, '\x1b'));
    /* a demo's own file name (any bytes: here a newline, ESC [31m and a quote) in info's
     * lines, dump's header and an error: printable, on one line each (a review) */
    char odd[700];
    snprintf(odd, sizeof odd, "%s/x\n\x1b[31m\"q.dem", test_tmpdir());
    CHECK(write_file(odd, dem, sizeof dem - 1));
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "%s info \"$(printf '%%s/x\\n\\033[31m\\042q.dem' '%s')\" 2>&1",
             bin(), test_tmpdir());
    test_capture(out, sizeof out, "%s", cmd);
    CHECK_MSG(strstr(out, "file:      ") && !strchr(out, '\x1b') && strstr(out, "\\x0a"), "%.300s",
              out);
    snprintf(cmd, sizeof cmd, "%s dump \"$(printf '%%s/x\\n\\033[31m\\042q.dem' '%s')\" 2>&1",
             bin(), test_tmpdir());
    test_capture(out, sizeof out, "%s", cmd);
    CHECK(out[0] == '#' && strchr(out, '\n') && !strchr(out, '\x1b'));
    const char *second = strchr(out, '\n') + 1;
    CHECK(second[0] == '#'); /* the header's two lines, the name not a third */
    remove(odd);
}

/* A file in which no level ever starts and the decoder skipped damage (a Quake map, which
 * the .dem reader takes: all of it "message before svc_serverinfo") is not a demo: `render`
 * (and the window, through the same opening) says so in one line and exits 2, where it made
 * frames of an empty grid (a review). A demo cut short still renders what it holds. */
TEST(cli_render_refuses_what_is_no_demo)
{
    char bsp[1024], out[4096];
    if (!test_realfile(bsp, sizeof bsp, "bsp/vektar_maps_bg.bsp"))
        SKIP("no realdata/bsp/vektar_maps_bg.bsp");
    const char *dir = test_tmpdir();
    CHECK_EQ(test_capture(out, sizeof out, "%s render '%s' -o %s/nodemo --fps 1 -q 2>&1", bin(),
                          bsp, dir),
             2);
    CHECK_MSG(strstr(out, "not a demo: no level starts in it") && strstr(out, "vektar_maps_bg"),
              "%.300s", out);
    CHECK_EQ(test_capture(out, sizeof out,
                          "head -c 30000 assets/smoothme.dem > %s/cut.dem && %s render "
                          "%s/cut.dem -p assets -o %s/cut --fps 1 --size 64x48 -q 2>/dev/null; "
                          "ls %s/cut | wc -l",
                          dir, bin(), dir, dir, dir),
             0);
    CHECK_MSG(atoi(out) == 5, "%.100s", out); /* (it plays to 4.954 s: ceil(4.954) frames) */
}


/* A folder named on the command line that cannot be read is said with why, not only as
 * "no demo" (a review), and the names are printable. As root the folder's mode does not
 * stop a read, so the program runs as nobody (util-linux's setpriv) when the test is root. */
TEST(cli_unreadable_folder_says_why)
{
    if (access(bin(), X_OK) != 0)
        SKIP("no qdemo binary");
    int root = geteuid() == 0;
    if (root && system("command -v setpriv >/dev/null 2>&1") != 0)
        SKIP("root without setpriv: a folder's mode stops no read");
    char top[] = "/tmp/qdemo-unreadable-XXXXXX", dir[128], out[4096];
    CHECK(mkdtemp(top) != NULL);
    chmod(top, 0755);
    snprintf(dir, sizeof dir, "%s/locked", top);
    CHECK(mkdir(dir, 0) == 0);
    int rc = test_capture(out, sizeof out, "%s %s info '%s' 2>&1",
                          root ? "setpriv --reuid 65534 --regid 65534 --clear-groups" : "",
                          bin(), dir);
    rmdir(dir);
    rmdir(top);
    if (rc == 126 || rc == 127)
        SKIP("qdemo cannot be run as nobody here");
    CHECK_EQ(rc, 2);
    CHECK_MSG(strstr(out, ": cannot read the folder: Permission denied") != NULL, "%.300s", out);
}

/* The y4m's colour matrix: by default BT.709 from 1280 wide or 577 high and BT.601 below,
 * the guess players make for untagged video (mpv's mp_csp_guess_colorspace, RetroArch's
 * ffmpeg core: width >= 1280 || height > 576); --bt709 and --bt601 choose. The header says
 * it, and the frame's bytes are the chosen matrix's (the default's the same as the flag's,
 * the other's not). */
TEST(cli_y4m_matrix_follows_the_size)
{
    if (access(bin(), X_OK) != 0)
        SKIP("no qdemo binary");
    static const struct {
        const char *size, *flag, *want;
    } cases[] = {
        {"1280x720", "", "BT709"},      {"1280x720", "--bt709", "BT709"},
        {"1280x720", "--bt601", "BT601"}, {"640x480", "", "BT601"},
        {"720x576", "", "BT601"},       {"1024x578", "", "BT709"},
        {"640x480", "--bt709", "BT709"},
    };
    char sums[7][64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static char out[4096];
        char f[600];
        snprintf(f, sizeof f, "%s/m%zu.y4m", test_tmpdir(), i);
        CHECK_EQ(test_capture(out, sizeof out,
                              "%s render assets/smoothme.dem -p assets -o - --size %s %s "
                              "--mode flat --fps 25 --to 0.04 -q > %s && head -n 1 %s",
                              bin(), cases[i].size, cases[i].flag, f, f),
                 0);
        char want[64];
        snprintf(want, sizeof want, "XCOLORMATRIX=%s", cases[i].want);
        CHECK_MSG(strstr(out, want) != NULL, "%s %s: %.200s", cases[i].size, cases[i].flag, out);
        CHECK_EQ(test_capture(sums[i], sizeof sums[i], "tail -n +2 %s | md5sum", f), 0);
    }
    CHECK_STR(sums[0], sums[1]);
    CHECK(strcmp(sums[0], sums[2]) != 0);
    CHECK(strcmp(sums[3], sums[6]) != 0);
}

/* `play` with no display renders five frames instead, with the play's options; a free
 * camera with no path (which the window now flies from the recorded view) is the recorded
 * view there (a review: the fallback refused it, exit 1). */
TEST(cli_play_without_display_takes_a_free_camera)
{
    if (access(bin(), X_OK) != 0)
        SKIP("no qdemo binary");
    static char out[4096];
    char cwd[PATH_MAX], dir[700], prog[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL && realpath(bin(), prog) != NULL);
    snprintf(dir, sizeof dir, "%s/nodisplay", test_tmpdir());
    CHECK_EQ(test_capture(out, sizeof out,
                          "mkdir -p %s && cd %s && DISPLAY= WAYLAND_DISPLAY= "
                          "SDL_VIDEODRIVER= %s play '%s/assets/smoothme.dem' -p '%s/assets' "
                          "--camera free 2>&1 && ls qdemo-frames | wc -l",
                          dir, dir, prog, cwd, cwd),
             0);
    CHECK_MSG(strstr(out, "5\n") != NULL, "%.300s", out);
}

/* A score the demo never sent is unknown, not 0: OpenArena's demo088 holds no "scores"
 * command (`qdemo dump` shows none), the one server command that carries other players'
 * scores in Quake III, so only the recorder's (its playerState's PERS_SCORE) is a number;
 * its 14 bots are "frags": null (before: 0 each, and the scoreboard listed them so). In a
 * QuakeWorld demo every player's frags are the server's (svc_updatefrags): no null. */
TEST(cli_info_json_unknown_scores_are_null)
{
    char q3[1024], qw[1024];
    if (access(bin(), X_OK) != 0)
        SKIP("no qdemo binary");
    if (!test_realfile(q3, sizeof q3,
                       "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71") ||
        !test_realfile(qw, sizeof qw, "mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd"))
        SKIP("real data missing");
    static char out[65536];
    CHECK_EQ(test_capture(out, sizeof out, "%s dump %s 2>/dev/null | grep -c 'scores ' || true",
                          bin(), q3),
             0);
    CHECK_EQ(atoi(out), 0);
    CHECK_EQ(test_capture(out, sizeof out, "%s info --json %s", bin(), q3), 0);
    int nulls = 0;
    for (const char *p = out; (p = strstr(p, "\"frags\": null")) != NULL; p++)
        nulls++;
    CHECK_EQ(nulls, 14);
    const char *rec = strstr(out, "{\"name\": \"Test Player\", \"frags\": ");
    CHECK(rec && rec[strlen("{\"name\": \"Test Player\", \"frags\": ")] != 'n');
    CHECK_EQ(test_capture(out, sizeof out, "%s info --json %s", bin(), qw), 0);
    CHECK(strstr(out, "\"frags\": ") && !strstr(out, "\"frags\": null"));
}
