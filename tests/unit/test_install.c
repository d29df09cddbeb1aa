/* test_install.c: `make install DESTDIR=...` stages the program, its manual page, the desktop
 * entry, the demo file types and the bundled data; the installed program finds that data;
 * `make uninstall` takes it all away again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"

static const char *const installed[] = {
    "usr/bin/qdemo",
    "usr/share/man/man1/qdemo.1",
    "usr/share/applications/qdemo.desktop",
    "usr/share/mime/packages/qdemo.xml",
    "usr/share/icons/hicolor/128x128/apps/qdemo.png", /* the entry's Icon=qdemo */
    "usr/share/qdemo/progs/player.mdl",
    "usr/share/qdemo/maps/b_bh25.bsp",
    "usr/share/qdemo/sound/ambience/drone6.wav",
    "usr/share/qdemo/gfx.wad",
    "usr/share/qdemo/gfx/colormap.lmp",
    "usr/share/qdemo/librequake-licence/COPYING",
    "usr/share/qdemo/README.md", /* which data is whose, under which licence */
    "usr/share/qdemo/LICENSE",
};

static int exists(const char *dir, const char *rel)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return access(p, F_OK) == 0;
}

TEST(install_stages_every_file_and_uninstall_removes_them)
{
    const char *q = getenv("QDEMO");
    if (!q || !*q || access(q, X_OK) != 0 || access("Makefile", R_OK) != 0)
        SKIP("run from the project root with QDEMO set (make test)");
    /* the build folder the suite runs from: QDEMO is B/qdemo */
    char b[1024];
    snprintf(b, sizeof b, "%s", q);
    char *slash = strrchr(b, '/');
    if (!slash)
        SKIP("QDEMO is not B/qdemo");
    *slash = 0;
    char dest[1024];
    /* (a space in it: the Makefile quotes its paths) */
    snprintf(dest, sizeof dest, "%s/install dir-%d", test_tmpdir(), (int)getpid());
    static char out[1 << 16];
    CHECK_EQ(test_capture(out, sizeof out, "make -s B='%s' DESTDIR='%s' PREFIX=/usr install 2>&1", b,
                          dest),
             0);
    for (size_t i = 0; i < sizeof installed / sizeof installed[0]; i++)
        CHECK_MSG(exists(dest, installed[i]), "missing %s", installed[i]);

    /* the manual page is the help text: every option line of --help is in it */
    static char help[1 << 14], man[1 << 16];
    CHECK_EQ(test_capture(help, sizeof help, "'%s/usr/bin/qdemo' --help", dest), 0);
    CHECK_EQ(test_capture(man, sizeof man, "cat '%s/usr/share/man/man1/qdemo.1'", dest), 0);
    CHECK(strncmp(man, ".TH QDEMO 1 ", 12) == 0);
    int options = 0;
    for (char *line = strtok(help, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "  -", 3) != 0)
            continue;
        options++;
        CHECK_MSG(strstr(man, line) != NULL, "not in the manual page: %s", line);
    }
    CHECK(options >= 10);

    /* desktop-file-validate accepts the entry (desktop-file-utils: make test installs it) */
    if (system("command -v desktop-file-validate >/dev/null 2>&1") == 0)
        CHECK_EQ(test_capture(out, sizeof out,
                              "desktop-file-validate '%s/usr/share/applications/qdemo.desktop' 2>&1",
                              dest),
                 0);
    /* shared-mime-info reads the types: its globs file maps *.qwd to QuakeWorld's */
    if (system("command -v update-mime-database >/dev/null 2>&1") == 0) {
        CHECK_EQ(test_capture(out, sizeof out, "update-mime-database '%s/usr/share/mime' 2>&1", dest),
                 0);
        CHECK_EQ(test_capture(out, sizeof out, "cat '%s/usr/share/mime/globs'", dest), 0);
        CHECK(strstr(out, "application/x-quakeworld-demo:*.qwd") != NULL);
        CHECK(strstr(out, "application/x-quake3-demo:*.dm_68") != NULL);
    }

    /* the installed program reads its own data below everything: the sample's player model
     * is found with no -p; not with --no-autodetect */
    if (access("assets/smoothme.dem", R_OK) == 0) {
        const char *env = "env -u QDEMO_BASEDIR QDEMO_NO_AUTODETECT=0 HOME=/nonexistent";
        CHECK_EQ(test_capture(out, sizeof out, "%s '%s/usr/bin/qdemo' info --json assets/smoothme.dem",
                              env, dest),
                 0);
        const char *miss = strstr(out, "\"models_missing\"");
        CHECK(miss && !strstr(miss, "progs/player.mdl"));
        CHECK_EQ(test_capture(out, sizeof out,
                              "%s '%s/usr/bin/qdemo' info --json --no-autodetect "
                              "assets/smoothme.dem",
                              env, dest),
                 0);
        miss = strstr(out, "\"models_missing\"");
        CHECK(miss && strstr(miss, "progs/player.mdl"));
    }

    CHECK_EQ(test_capture(out, sizeof out, "make -s B='%s' DESTDIR='%s' PREFIX=/usr uninstall 2>&1",
                          b, dest),
             0);
    for (size_t i = 0; i < sizeof installed / sizeof installed[0]; i++)
        CHECK_MSG(!exists(dest, installed[i]), "left behind: %s", installed[i]);
}
