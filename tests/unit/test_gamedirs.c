/* test_gamedirs.c: finding the user's game installs without flags (src/app/gamedirs.c), on
 * fake install trees built in a scratch folder: Debian's packages, Steam, GOG, the engines'
 * home folders and qdemo.conf; and through `qdemo info` with $HOME pointing at one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/app/gamedirs.h"
#include "../test.h"

/* mkdir -p of base + "/" + rel */
static void make_dirs(const char *base, const char *rel)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", base, rel);
    for (char *p = path + strlen(base) + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0755);
            *p = '/';
        }
    }
    mkdir(path, 0755);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}


/* Where in d the folder ending in tail is, or -1. */
/* Folders root/q00 .. root/q39 and, into text (cap bytes), a qdemo.conf line naming each. */
static void forty_lines(const char *root, char *text, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < 40; i++) {
        char rel[32];
        snprintf(rel, sizeof rel, "q%02d", i);
        make_dirs(root, rel);
        n += (size_t)snprintf(text + n, cap - n, "basedir quake %s/%s\n", root, rel);
    }
}

static int index_of(const game_dirs *d, const char *tail)
{
    for (int i = 0; i < d->n; i++) {
        size_t n = strlen(d->dir[i]), t = strlen(tail);
        if (n >= t && strcmp(d->dir[i] + n - t, tail) == 0)
            return i;
    }
    return -1;
}

TEST(gamedirs_each_layout_is_found_in_priority_order)
{
    const char *root = test_scratch("gamedirs-layouts");
    if (!root)
        SKIP("no scratch folder");
    char home[1100];
    snprintf(home, sizeof home, "%s/home/user", root);
    make_dirs(root, "usr/share/games/quake/id1");
    make_dirs(root, "usr/share/games/openarena/baseoa");
    make_dirs(root, "usr/share/games/quake2/baseq2");
    make_dirs(root, "home/user/.local/share/Steam/steamapps/common/Quake/id1");
    make_dirs(root, "home/user/.local/share/Steam/steamapps/common/Quake 3 Arena/baseq3");
    make_dirs(root, "home/user/GOG Games/Quake II/baseq2");
    make_dirs(root, "home/user/.quakespasm/id1");
    make_dirs(root, "home/user/.ezquake/qw");
    make_dirs(root, "home/user/.openarena/baseoa");
    make_dirs(root, "home/user/.yq2/baseq2");
    game_env env = {root, home, NULL};

    game_dirs d;
    game_dirs_find(CL_GAME_Q1, &env, &d);
    CHECK_EQ(d.n, 4);
    int deb = index_of(&d, "/usr/share/games/quake"), steam = index_of(&d, "/common/Quake"),
        qs = index_of(&d, "/.quakespasm"), ez = index_of(&d, "/.ezquake");
    CHECK(deb == 0 && steam == 1 && qs == 2 && ez == 3); /* system, store, then the home's */
    CHECK(index_of(&d, "/openarena") < 0 && index_of(&d, "/.yq2") < 0); /* other games' */
    game_dirs_free(&d);

    game_dirs_find(CL_GAME_QW, &env, &d); /* QuakeWorld reads Quake's installs */
    CHECK_EQ(d.n, 4);
    game_dirs_free(&d);

    game_dirs_find(CL_GAME_Q2, &env, &d);
    CHECK_EQ(d.n, 3);
    CHECK_EQ(index_of(&d, "/usr/share/games/quake2"), 0);
    CHECK_EQ(index_of(&d, "/GOG Games/Quake II"), 1);
    CHECK_EQ(index_of(&d, "/.yq2"), 2);
    game_dirs_free(&d);

    game_dirs_find(CL_GAME_Q3, &env, &d);
    CHECK_EQ(d.n, 3);
    CHECK_EQ(index_of(&d, "/usr/share/games/openarena"), 0);
    CHECK_EQ(index_of(&d, "/Quake 3 Arena"), 1);
    CHECK_EQ(index_of(&d, "/.openarena"), 2);
    game_dirs_free(&d);

    /* no home: only the system's */
    game_env nohome = {root, NULL, NULL};
    game_dirs_find(CL_GAME_Q3, &nohome, &d);
    CHECK_EQ(d.n, 1);
    game_dirs_free(&d);
}

/* Each layout alone, for each game: the folder is found, and only for its own game. The
 * paths are written out here from the sources gamedirs.c names (game-data-packager's and
 * the openarena packages' file lists, Steam's and Flathub's library folders and the
 * stores' names of the games, GOG's installer default, the engines' READMEs). */
TEST(gamedirs_every_layout_alone)
{
    static const struct {
        cl_game game;
        const char *dir;
    } layouts[] = {
        {CL_GAME_Q1, "usr/share/games/quake"},
        {CL_GAME_Q1, "usr/local/games/quake"},
        {CL_GAME_Q1, "home/u/.local/share/Steam/steamapps/common/Quake"},
        {CL_GAME_Q1, "home/u/.steam/steam/steamapps/common/Quake"},
        {CL_GAME_Q1, "home/u/.var/app/com.valvesoftware.Steam/.local/share/Steam/steamapps/"
                     "common/Quake"},
        {CL_GAME_Q1, "home/u/GOG Games/Quake"},
        {CL_GAME_Q1, "home/u/.quakespasm"},
        {CL_GAME_Q1, "home/u/.ironwail"},
        {CL_GAME_Q1, "home/u/.vkquake"},
        {CL_GAME_QW, "home/u/.ezquake"},
        {CL_GAME_QW, "home/u/.fte"},
        {CL_GAME_Q2, "usr/share/games/quake2"},
        {CL_GAME_Q2, "usr/local/games/quake2"},
        {CL_GAME_Q2, "home/u/.local/share/Steam/steamapps/common/Quake 2"},
        {CL_GAME_Q2, "home/u/.steam/steam/steamapps/common/Quake 2"},
        {CL_GAME_Q2, "home/u/.var/app/com.valvesoftware.Steam/.local/share/Steam/steamapps/"
                     "common/Quake 2"},
        {CL_GAME_Q2, "home/u/GOG Games/Quake II"},
        {CL_GAME_Q2, "home/u/.yq2"},
        {CL_GAME_Q2, "home/u/.q2pro"},
        {CL_GAME_Q2, "home/u/.quake2"},
        {CL_GAME_Q3, "usr/share/games/quake3"},
        {CL_GAME_Q3, "usr/share/games/openarena"},
        {CL_GAME_Q3, "usr/local/games/quake3"},
        {CL_GAME_Q3, "home/u/.local/share/Steam/steamapps/common/Quake 3 Arena"},
        {CL_GAME_Q3, "home/u/.steam/steam/steamapps/common/Quake 3 Arena"},
        {CL_GAME_Q3, "home/u/.var/app/com.valvesoftware.Steam/.local/share/Steam/steamapps/"
                     "common/Quake 3 Arena"},
        {CL_GAME_Q3, "home/u/.local/share/Steam/steamapps/common/Quake Live"},
        {CL_GAME_Q3, "home/u/.steam/steam/steamapps/common/Quake Live"},
        {CL_GAME_Q3, "home/u/.var/app/com.valvesoftware.Steam/.local/share/Steam/steamapps/"
                     "common/Quake Live"},
        {CL_GAME_Q3, "home/u/GOG Games/Quake III Arena"},
        {CL_GAME_Q3, "home/u/.q3a"},
        {CL_GAME_Q3, "home/u/.openarena"},
    };
    static const cl_game games[] = {CL_GAME_Q1, CL_GAME_QW, CL_GAME_Q2, CL_GAME_Q3};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        char name[64], root[1100], home[1200], want[1400];
        snprintf(name, sizeof name, "gamedirs-alone-%zu", i);
        const char *r = test_scratch(name);
        if (!r)
            SKIP("no scratch folder");
        snprintf(root, sizeof root, "%s", r);
        snprintf(home, sizeof home, "%s/home/u", root);
        make_dirs(root, "home/u");
        make_dirs(root, layouts[i].dir);
        snprintf(want, sizeof want, "%s/%s", root, layouts[i].dir);
        game_env env = {root, home, NULL};
        cl_game own = layouts[i].game == CL_GAME_QW ? CL_GAME_Q1 : layouts[i].game;
        for (size_t g = 0; g < sizeof games / sizeof games[0]; g++) {
            cl_game fam = games[g] == CL_GAME_QW ? CL_GAME_Q1 : games[g];
            game_dirs d;
            game_dirs_find(games[g], &env, &d);
            if (fam == own)
                CHECK_MSG(d.n == 1 && strcmp(d.dir[0], want) == 0, "%s not found for game %d",
                          layouts[i].dir, (int)games[g]);
            else
                CHECK_MSG(d.n == 0, "%s found for game %d", layouts[i].dir, (int)games[g]);
            game_dirs_free(&d);
        }
    }
}

/* qdemo.conf's `basedir GAME PATH` lines come last (they win), for their game only; "~/"
 * is the home; comments, other keys, unknown games and missing folders are passed over. */
TEST(gamedirs_config_file_lines)
{
    const char *root = test_scratch("gamedirs-config");
    if (!root)
        SKIP("no scratch folder");
    char home[1100], conf[1200], text[4096];
    snprintf(home, sizeof home, "%s/h", root);
    make_dirs(root, "h/.config/qdemo");
    make_dirs(root, "h/games/q1");
    make_dirs(root, "h/.quakespasm");
    make_dirs(root, "opt/quake3");
    snprintf(conf, sizeof conf, "%s/.config/qdemo/qdemo.conf", home);
    snprintf(text, sizeof text,
             "# my games\n"
             "basedir quake ~/games/q1\n"
             "  basedir   quake3   %s/opt/quake3  \r\n"
             "basedir doom %s/opt\n"
             "volume 11\n"
             "basedir quake %s/not-there\n",
             root, root, root);
    write_text(conf, text);
    game_env env = {root, home, NULL};
    game_dirs d;
    game_dirs_find(CL_GAME_Q1, &env, &d);
    CHECK_EQ(d.n, 2);
    CHECK_EQ(index_of(&d, "/.quakespasm"), 0);
    CHECK_EQ(index_of(&d, "/h/games/q1"), 1);
    CHECK(d.n == 2 && d.from_config[1] && !d.from_config[0]);
    game_dirs_free(&d);
    game_dirs_find(CL_GAME_Q3, &env, &d);
    CHECK_EQ(d.n, 1);
    CHECK_EQ(index_of(&d, "/opt/quake3"), 0);
    game_dirs_free(&d);

    /* $XDG_CONFIG_HOME moves the file */
    make_dirs(root, "xdg/qdemo");
    char xdg[1100], conf2[1200];
    snprintf(xdg, sizeof xdg, "%s/xdg", root);
    snprintf(conf2, sizeof conf2, "%s/qdemo/qdemo.conf", xdg);
    snprintf(text, sizeof text, "basedir quake2 %s/opt/quake3\n", root);
    write_text(conf2, text);
    game_env env2 = {root, home, xdg};
    game_dirs_find(CL_GAME_Q2, &env2, &d);
    CHECK_EQ(d.n, 1);
    game_dirs_free(&d);
    game_dirs_find(CL_GAME_Q1, &env2, &d); /* the home's file is not read now */
    CHECK_EQ(d.n, 1);
    game_dirs_free(&d);
}

/* A qdemo.conf line naming a folder found on the machine moves it up to the line's place
 * (later lines win; it stayed below the other found folders), one folder reached by two
 * paths (a link, as Steam's ~/.steam/steam) is listed once, and lines past the 32 places
 * push out the lowest rather than being dropped (a review). */
TEST(gamedirs_config_line_raises_a_found_folder)
{
    const char *root = test_scratch("gamedirs-raise");
    if (!root)
        SKIP("no scratch folder");
    char home[1100], conf[1200], link[1200], to[1200];
    static char text[40 * 1200];
    snprintf(home, sizeof home, "%s/h", root);
    make_dirs(root, "h/.config/qdemo");
    make_dirs(root, "h/.quakespasm");
    make_dirs(root, "h/.vkquake");
    snprintf(link, sizeof link, "%s/h/.qs-link", root);
    snprintf(to, sizeof to, "%s/h/.quakespasm", root);
    CHECK(symlink(to, link) == 0);
    snprintf(conf, sizeof conf, "%s/.config/qdemo/qdemo.conf", home);
    snprintf(text, sizeof text, "basedir quake ~/.quakespasm\nbasedir quake ~/.qs-link\n");
    write_text(conf, text);
    game_env env = {root, home, NULL};
    game_dirs d;
    game_dirs_find(CL_GAME_Q1, &env, &d);
    CHECK_EQ(d.n, 2); /* .vkquake (found) and .quakespasm once, named last */
    CHECK(d.n == 2 && index_of(&d, "/.vkquake") == 0 && index_of(&d, "/.qs-link") == 1 &&
          d.from_config[1] && !d.from_config[0]);
    game_dirs_free(&d);
    /* 40 lines: the last 32 kept, the found folders pushed out first */
    forty_lines(root, text, sizeof text);
    write_text(conf, text);
    game_dirs_find(CL_GAME_Q1, &env, &d);
    CHECK_EQ(d.n, 32);
    CHECK(d.n == 32 && index_of(&d, "/q08") == 0 && index_of(&d, "/q39") == 31 &&
          index_of(&d, "/q07") < 0);
    game_dirs_free(&d);
}

/* `qdemo info` on the bundled sample with $HOME holding ~/.quakespasm/id1/maps/e1m1.bsp:
 * the map is found without flags, the folder is listed; --no-autodetect does without. */
TEST(gamedirs_info_finds_a_home_install_without_flags)
{
    const char *q = getenv("QDEMO");
    if (!q || !*q || access(q, X_OK) != 0 || access("assets/maps/e1m1.bsp", R_OK) != 0)
        SKIP("run from the project root with QDEMO set (make test)");
    const char *root = test_scratch("gamedirs-info");
    if (!root)
        SKIP("no scratch folder");
    make_dirs(root, "home/.quakespasm/id1/maps");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp assets/maps/e1m1.bsp '%s/home/.quakespasm/id1/maps/'", root);
    CHECK_EQ(system(cmd), 0);
    static char out[1 << 16];
    const char *env = "env -u QDEMO_BASEDIR QDEMO_NO_AUTODETECT=0 XDG_CONFIG_HOME=";
    CHECK_EQ(test_capture(out, sizeof out, "%s HOME='%s/home' %s info --json assets/smoothme.dem", env,
                 root, q),
             0);
    char want[1200];
    snprintf(want, sizeof want, "\"%s/home/.quakespasm\"", root);
    const char *folders = strstr(out, "\"game_folders\": [");
    CHECK_MSG(folders && strstr(folders, want) && strstr(folders, want) < strchr(folders, ']'),
              "%.300s", out);
    const char *missing = strstr(out, "\"models_missing\"");
    CHECK(missing && !strstr(missing, "maps/e1m1.bsp"));
    CHECK_EQ(test_capture(out, sizeof out, "%s HOME='%s/home' %s info --json --no-autodetect "
                                  "assets/smoothme.dem",
                 env, root, q),
             0);
    missing = strstr(out, "\"models_missing\"");
    CHECK(missing && strstr(missing, "maps/e1m1.bsp"));
    CHECK(strstr(out, "\"game_folders\": []"));
    /* a qdemo.conf over its 1 MiB is read as none, and said (one line naming it) */
    make_dirs(root, "home/.config/qdemo");
    snprintf(cmd, sizeof cmd, "head -c 1100000 /dev/zero | tr '\\0' '#' > '%s/home/.config/qdemo/qdemo.conf'",
             root);
    CHECK_EQ(system(cmd), 0);
    CHECK_EQ(test_capture(out, sizeof out, "%s HOME='%s/home' %s info assets/smoothme.dem 2>&1 "
                                           ">/dev/null",
                          env, root, q),
             0);
    CHECK_MSG(strstr(out, "qdemo.conf: not read") != NULL, "%.300s", out);
}

/* A qdemo.conf naming 40 Quake folders (more than GAME_DIRS_MAX, 32) and `-b`: the -b folder
 * is still searched, last (a review: it was dropped in silence once the config filled the
 * list). Its name, "basé" in UTF-8 and a byte 0xff that is no UTF-8, is listed in the JSON
 * as UTF-8 with U+FFFD for the stray byte (a review: every byte was cut to 7 bits, "basC)").
 * Folders and names made here. */
TEST(gamedirs_b_folder_kept_past_a_full_config)
{
    const char *q = getenv("QDEMO");
    if (!q || !*q || access(q, X_OK) != 0 || access("assets/smoothme.dem", R_OK) != 0)
        SKIP("run from the project root with QDEMO set (make test)");
    const char *root = test_scratch("gamedirs-full");
    if (!root)
        SKIP("no scratch folder");
    make_dirs(root, "xdg/qdemo");
    make_dirs(root, "bas\xc3\xa9\xff");
    static char text[40 * 1200];
    forty_lines(root, text, sizeof text);
    char conf[1200];
    snprintf(conf, sizeof conf, "%s/xdg/qdemo/qdemo.conf", root);
    write_text(conf, text);
    static char out[1 << 16];
    CHECK_EQ(test_capture(out, sizeof out,
                          "env -u QDEMO_BASEDIR QDEMO_NO_AUTODETECT=0 HOME='%s' "
                          "XDG_CONFIG_HOME='%s/xdg' %s info --json -b '%s/bas\xc3\xa9\xff' "
                          "assets/smoothme.dem",
                          root, root, q, root),
             0);
    char want[1200];
    snprintf(want, sizeof want, "\"%s/bas\xc3\xa9\\ufffd\"]", root); /* the last folder */
    const char *folders = strstr(out, "\"game_folders\": [");
    CHECK_MSG(folders && strstr(folders, want), "%.400s", folders ? folders : out);
}
