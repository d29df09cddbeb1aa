/* test_startup.c: issue #15's start-up and export: no SDL2 until `play` (the binary does not
 * need it, a missing library is named with its package), the y4m colour conversion (the same
 * bytes whatever the code path, size or thread count) and the PNG filter and zlib level. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

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
    /* a library there but damaged: the loader's reason, not "install" (a review) */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/libSDL2-2.0.so.0", test_tmpdir());
    FILE *f = fopen(bad, "wb");
    CHECK(f != NULL);
    if (f) {
        for (int i = 0; i < 4096; i++)
            fputc((i * 73 + 11) & 255, f);
        fclose(f);
    }
    CHECK_EQ(out_sdl_load(bad, &api, &err), QD_ERR_OUTPUT);
    CHECK_MSG(strstr(err.msg, "cannot be loaded: ") && !strstr(err.msg, "install"), "%s",
              err.msg);
    CHECK(strchr(err.msg, '\n') == NULL);
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

/* ---- the y4m colour conversion ---- */

/* A w x h framebuffer of pseudo-random pixels (alpha random too: it must be ignored), with
 * runs of equal pixels so flat areas are covered as well. */
static rast_fb *noise_frame(int w, int h, uint32_t seed)
{
    rast_fb *fb = rast_fb_new(w, h);
    if (!fb)
        return NULL;
    uint32_t s = seed, c = 0;
    for (int i = 0; i < w * h; i++) {
        s = s * 1664525u + 1013904223u;
        if ((s >> 28) != 0) /* 15 in 16: a new colour */
            c = s ^ (s >> 13) * 2654435761u;
        fb->color[i] = c;
    }
    return fb;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The planes of out_rgb_to_yuv420 in both matrices, hashed (FNV-1a 64). */
static uint64_t convert_hash(const rast_fb *fb)
{
    size_t n = out_y4m_frame_size(fb->w, fb->h), ysz = (size_t)fb->w * (size_t)fb->h;
    size_t csz = (n - ysz) / 2;
    uint8_t *buf = malloc(n);
    if (!buf)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int bt709 = 0; bt709 < 2; bt709++) {
        out_rgb_to_yuv420(fb, bt709, buf, buf + ysz, buf + ysz + csz);
        h = fnv(h, buf, n);
    }
    free(buf);
    return h;
}

static const struct {
    int w, h;
    uint64_t hash;
} pinned[] = {
    {1, 1, 0xf7254a75260e4612ull}, {2, 2, 0x13b18bb05b7ebc81ull},
    {3, 3, 0xbf810fafb396eda8ull}, {8, 2, 0x36b7e15066beebdcull},
    {9, 3, 0x459f5147ae552874ull}, {15, 7, 0x8c6abfb8c595d9c7ull},
    {16, 16, 0x44cf9ab4a256ed64ull}, {17, 9, 0x0d3d68ee923cef3aull},
    {33, 17, 0x15ee0edf3a61269eull}, {321, 241, 0x813151d223b1b13dull},
    {1280, 720, 0xbf26e101026f2959ull}, {1920, 1080, 0x845ff1c8599c769cull},
};

/* Issue #15: the vectorised conversion writes the bytes the scalar one wrote before it (the
 * hashes were taken from the scalar code of 8230634, every edge case of odd sizes in). */
TEST(y4m_conversion_same_bytes_as_scalar)
{
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++) {
        rast_fb *fb = noise_frame(pinned[i].w, pinned[i].h, (uint32_t)i + 7);
        CHECK(fb != NULL);
        uint64_t h = convert_hash(fb);
        rast_fb_free(fb);
        CHECK_MSG(h == pinned[i].hash, "%dx%d: hash %016llx", pinned[i].w, pinned[i].h,
                  (unsigned long long)h);
    }
}

/* Every pixel's luma and every block's chroma within one step of the formulas the README
 * states (y4m.c's comment: limited range, BT.601 Kr 0.299 Kb 0.114, BT.709 Kr 0.2126 Kb
 * 0.0722), worked in doubles here; the 16.16 fixed point may round the other way only when
 * the exact value sits within 1/100 of a half. */
TEST(y4m_conversion_follows_the_formulas)
{
    static const double kr[2] = {0.299, 0.2126}, kb[2] = {0.114, 0.0722};
    rast_fb *fb = noise_frame(37, 11, 3);
    CHECK(fb != NULL);
    int w = 37, h = 11, cw = 19, ch = 6;
    uint8_t y[37 * 11], u[19 * 6], v[19 * 6];
    for (int m = 0; m < 2; m++) {
        out_rgb_to_yuv420(fb, m, y, u, v);
        double kg = 1 - kr[m] - kb[m];
        for (int i = 0; i < w * h; i++) {
            uint32_t c = fb->color[i];
            double e = 16 + 219.0 / 255 * (kr[m] * (c & 255) + kg * (c >> 8 & 255) +
                                           kb[m] * (c >> 16 & 255));
            CHECK_MSG(fabs(y[i] - e) < 0.51, "matrix %d pixel %d: Y %d, formula %.3f", m, i,
                      y[i], e);
        }
        for (int by = 0; by < ch; by++)
            for (int bx = 0; bx < cw; bx++) {
                double r = 0, g = 0, b = 0;
                for (int k = 0; k < 4; k++) { /* the edge pixel repeats on odd sizes */
                    int px = 2 * bx + (k & 1), py = 2 * by + (k >> 1);
                    uint32_t c = fb->color[(py < h ? py : h - 1) * w + (px < w ? px : w - 1)];
                    r += (c & 255) / 4.0;
                    g += (c >> 8 & 255) / 4.0;
                    b += (c >> 16 & 255) / 4.0;
                }
                double yy = kr[m] * r + kg * g + kb[m] * b;
                double eu = 128 + 224.0 / 255 * (b - yy) / (2 * (1 - kb[m]));
                double ev = 128 + 224.0 / 255 * (r - yy) / (2 * (1 - kr[m]));
                int j = by * cw + bx;
                CHECK_MSG(fabs(u[j] - eu) < 0.51 && fabs(v[j] - ev) < 0.51,
                          "matrix %d block %d,%d: %d %d, formula %.3f %.3f", m, bx, by, u[j],
                          v[j], eu, ev);
            }
    }
    rast_fb_free(fb);
}

/* A y4m export is the same stream for one thread and two, at an odd size. */
TEST(y4m_export_same_for_any_thread_count)
{
    char a[128], b[128];
    const char *cmd = "%s render assets/smoothme.dem -p assets -o - --fps 10 --to 1.5 "
                      "--size 161x91 --mode flat --threads %d -q | cksum";
    CHECK_EQ(test_capture(a, sizeof a, cmd, qdemo_bin(), 1), 0);
    CHECK_EQ(test_capture(b, sizeof b, cmd, qdemo_bin(), 2), 0);
    /* cksum prints the CRC and the byte count: an 81-byte header and 15 frames of
     * 6 + 161*91 + 2*81*46 bytes */
    CHECK_MSG(strstr(a, " 331716\n") != NULL, "%s", a);
    CHECK_STR(a, b);
}

/* The PNG rows as chosen by measurement (README, Speed): zlib level 2 (the stream header's
 * FLEVEL 1, RFC 1950), the first row filter None, every other row Up (ISO/IEC 15948 9.2),
 * alpha dropped. Checked by inflating the IDAT of a 3x3 frame by hand-worked bytes. */
TEST(png_up_filter_and_level)
{
    rast_fb *fb = rast_fb_new(3, 3);
    CHECK(fb != NULL);
    for (int i = 0; i < 9; i++) /* R = 10 i, G = 100 + i, B = 250 - 20 i, alpha 77 */
        fb->color[i] = (uint32_t)(10 * i) | (uint32_t)(100 + i) << 8 |
                       (uint32_t)((250 - 20 * i) & 255) << 16 | 77u << 24;
    uint8_t *png;
    size_t len;
    qd_error err = {0};
    CHECK_EQ(out_png_encode(fb, &png, &len, &err), QD_OK);
    rast_fb_free(fb);
    /* signature 8, IHDR 25, then the IDAT's length, type and zlib stream */
    CHECK(len > 8 + 25 + 8 + 2 && memcmp(png + 8 + 25 + 4, "IDAT", 4) == 0);
    const uint8_t *z = png + 8 + 25 + 8;
    uLong n = (uLong)png[33] << 24 | (uLong)png[34] << 16 | (uLong)png[35] << 8 | png[36];
    CHECK_EQ(z[0], 0x78);             /* deflate, 32 KiB window */
    CHECK_EQ((z[1] >> 6) & 3, 1);     /* FLEVEL 1: zlib levels 2 to 5 */
    uint8_t raw[3 * 10];
    uLongf rawlen = sizeof raw;
    int zr = uncompress(raw, &rawlen, z, n);
    free(png);
    CHECK_EQ(zr, Z_OK);
    CHECK_EQ(rawlen, 30);
    static const uint8_t want[30] = {
        0, 0, 100, 250, 10, 101, 230, 20, 102, 210,         /* None: the bytes */
        2, 30, 3, 196, 30, 3, 196, 30, 3, 196,              /* Up: +30 red, +3 green, -60 blue */
        2, 30, 3, 196, 30, 3, 196, 30, 3, 196,
    };
    for (int i = 0; i < 30; i++)
        CHECK_MSG(raw[i] == want[i], "byte %d: %d, want %d", i, raw[i], want[i]);
}
