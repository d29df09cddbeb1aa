/* test_startup.c: start-up without SDL2 (the binary does not need it, only `play` loads it,
 * and a missing library is named with its package) and the y4m colour conversion (the same
 * bytes whatever the code path, size or thread count). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/output/out.h"
#include "../../src/output/sdl_local.h"
#include "../test.h"

static const char *qdemo_bin(void)
{
    const char *q = getenv("QDEMO");
    return q && *q ? q : "build/qdemo";
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The DT_NEEDED names of a 64-bit little-endian ELF file (ELF-64 Object File Format 1.5:
 * the section header table, the SHT_DYNAMIC section's 16-byte entries, their strings in the
 * section its sh_link names). Returns how many were found (at most max), -1 when f is no
 * such ELF file or its tables run past its end. */
static int elf_needed(const uint8_t *f, size_t len, char names[][64], int max)
{
    if (len < 64 || memcmp(f, "\x7f" "ELF", 4) != 0 || f[4] != 2 || f[5] != 1)
        return -1;
    uint64_t shoff = le(f + 0x28, 8), shentsize = le(f + 0x3a, 2), shnum = le(f + 0x3c, 2);
    if (shentsize < 64 || shoff > len || shnum > (len - shoff) / shentsize)
        return -1;
    for (uint64_t i = 0; i < shnum; i++) {
        const uint8_t *sh = f + shoff + i * shentsize;
        if (le(sh + 4, 4) != 6) /* SHT_DYNAMIC */
            continue;
        uint64_t off = le(sh + 24, 8), size = le(sh + 32, 8), link = le(sh + 40, 4);
        if (off > len || size > len - off || link >= shnum)
            return -1;
        const uint8_t *str = f + shoff + link * shentsize;
        uint64_t soff = le(str + 24, 8), ssize = le(str + 32, 8);
        if (soff > len || ssize > len - soff)
            return -1;
        int n = 0;
        for (uint64_t d = 0; d + 16 <= size; d += 16) {
            uint64_t tag = le(f + off + d, 8), val = le(f + off + d + 8, 8);
            if (tag == 0) /* DT_NULL */
                break;
            if (tag != 1 || val >= ssize) /* DT_NEEDED, inside the strings */
                continue;
            if (n < max)
                snprintf(names[n++], 64, "%.*s", (int)(ssize - val), (const char *)f + soff + val);
        }
        return n;
    }
    return 0; /* static: needs nothing */
}

/* Issue #15: qdemo links no SDL2 (only `play` loads it with dlopen); zlib and libc it does. */
TEST(startup_binary_needs_no_sdl)
{
    size_t len;
    uint8_t *f = test_read_file(qdemo_bin(), &len);
    if (!f)
        SKIP("no qdemo binary");
    char names[64][64];
    int n = elf_needed(f, len, names, 64);
    free(f);
    if (n < 0)
        SKIP("qdemo is not a 64-bit little-endian ELF file");
    int libc = 0, libz = 0;
    for (int i = 0; i < n; i++) {
        CHECK_MSG(strncmp(names[i], "libSDL", 6) != 0, "qdemo needs %.63s", names[i]);
        libc |= strncmp(names[i], "libc.so", 7) == 0;
        libz |= strncmp(names[i], "libz.so", 7) == 0;
    }
    CHECK(libc && libz); /* the reader found the real list */
}

/* The commands without a window never load SDL (the loader's own log says what it maps);
 * play, which fails without a display here, does: the log can see it. */
TEST(startup_commands_do_not_load_sdl)
{
    if (access("/lib64/ld-linux-x86-64.so.2", X_OK) != 0 &&
        access("/lib/ld-linux-aarch64.so.1", X_OK) != 0)
        SKIP("not glibc's dynamic loader (LD_DEBUG)");
    static const char *const cmds[] = {"--version", "--help", "info assets/smoothme.dem",
                                       "info --json assets/smoothme.dem",
                                       "dump assets/smoothme.dem"};
    char out[256];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        test_capture(out, sizeof out,
                     "LD_DEBUG=files %s %s 2>&1 >/dev/null | grep -c 'file=libSDL2'",
                     qdemo_bin(), cmds[i]);
        CHECK_MSG(atoi(out) == 0, "qdemo %s loads SDL2", cmds[i]);
    }
    const char *dir = test_scratch("startup-play");
    CHECK(dir != NULL);
    char abs[1024];
    CHECK(realpath(qdemo_bin(), abs) != NULL);
    char sample[1024];
    CHECK(realpath("assets/smoothme.dem", sample) != NULL);
    test_capture(out, sizeof out,
                 "cd '%s' && DISPLAY= WAYLAND_DISPLAY= SDL_VIDEODRIVER= LD_DEBUG=files '%s' "
                 "play '%s' --size 64x48 2>&1 >/dev/null | grep -c 'file=libSDL2'",
                 dir, abs, sample);
    if (atoi(out) == 0)
        SKIP("libSDL2-2.0.so.0 is not installed (play cannot load it)");
}

/* A missing library: one line naming it and the Debian package; the table stays empty. */
TEST(startup_sdl_missing_names_package)
{
    out_sdl_api api;
    memset(&api, 0xff, sizeof api);
    qd_error err = {0};
    CHECK_EQ(out_sdl_load("libqdemo-no-such-sdl.so.0", &api, &err), QD_ERR_OUTPUT);
    CHECK(strstr(err.msg, "libqdemo-no-such-sdl.so.0") != NULL);
    CHECK(strstr(err.msg, "libsdl2-2.0-0") != NULL);
    CHECK(strchr(err.msg, '\n') == NULL);
    CHECK(api.InitSubSystem == NULL && api.ClearQueuedAudio == NULL);
    /* a library without SDL's functions: the first missing one is named */
    CHECK_EQ(out_sdl_load("libz.so.1", &api, &err), QD_ERR_OUTPUT);
    CHECK_MSG(strstr(err.msg, "SDL_InitSubSystem") != NULL, "%s", err.msg);
    CHECK(api.InitSubSystem == NULL);
}

/* The installed SDL2 gives every function of the table. */
TEST(startup_sdl_table_complete)
{
    out_sdl_api api;
    qd_error err = {0};
    if (out_sdl_load(OUT_SDL_LIBRARY, &api, &err) != QD_OK)
        SKIP("libSDL2-2.0.so.0 is not installed");
    const unsigned char *p = (const unsigned char *)&api;
    for (size_t i = 0; i < sizeof api; i += sizeof(void *)) {
        void *fn;
        memcpy(&fn, p + i, sizeof fn);
        CHECK_MSG(fn != NULL, "entry %zu is empty", i / sizeof(void *));
    }
    CHECK(out_sdl(&err) != NULL);
    CHECK(out_sdl(&err) == out_sdl(&err)); /* loaded once */
}
