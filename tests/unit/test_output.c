/* test_output.c: PNG and y4m encoders, sinks, the frame hash, 2D text, and the SDL window. */
#include "../test.h"

#include "../../src/output/out.h"
#include "../../src/render/draw2d.h"
#include "../../src/render/rast.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <stb_image.h> /* the decoder is compiled once, in tests/fid/stbi.c */

/* A frame with flat areas, gradients and noise, so every filter path sees real work. */
static rast_fb *test_frame(int w, int h, uint32_t seed)
{
    rast_fb *fb = rast_fb_new(w, h);
    if (!fb)
        return NULL;
    uint32_t s = seed;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            s = s * 1664525u + 1013904223u;
            uint32_t c;
            if (x < w / 3)
                c = rast_rgb(200, 30, 60);
            else if (x < 2 * w / 3)
                c = rast_rgb((unsigned)x * 7, (unsigned)y * 5, (unsigned)(x + y));
            else
                c = (s >> 8) | 0xff000000u;
            fb->color[y * w + x] = c;
        }
    return fb;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int same_rgb(const rast_fb *fb, const uint8_t *rgb)
{
    for (int i = 0; i < fb->w * fb->h; i++) {
        uint32_t c = fb->color[i];
        if (rgb[3 * i] != (c & 255) || rgb[3 * i + 1] != (c >> 8 & 255) ||
            rgb[3 * i + 2] != (c >> 16 & 255))
            return 0;
    }
    return 1;
}

TEST(png_round_trip)
{
    const int sizes[][2] = {{1, 1}, {173, 91}, {640, 360}};
    for (int k = 0; k < 3; k++) {
        rast_fb *fb = test_frame(sizes[k][0], sizes[k][1], 5u + (uint32_t)k);
        CHECK(fb != NULL);
        uint8_t *png;
        size_t len;
        qd_error err = {0};
        CHECK_EQ(out_png_encode(fb, &png, &len, &err), QD_OK);
        CHECK(len > 57 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
        /* Walk the chunks: lengths in bounds, every CRC right, IHDR first, IEND last. */
        size_t pos = 8;
        int nchunks = 0, seen_end = 0;
        while (pos + 12 <= len) {
            uint32_t n = be32(png + pos);
            CHECK(n <= len - pos - 12);
            uLong crc = crc32(0L, png + pos + 4, (uInt)(4 + n));
            CHECK_EQ(be32(png + pos + 8 + n), crc);
            if (nchunks == 0)
                CHECK(memcmp(png + pos + 4, "IHDR", 4) == 0 && n == 13);
            seen_end = memcmp(png + pos + 4, "IEND", 4) == 0;
            pos += 12 + n;
            nchunks++;
        }
        CHECK_EQ(pos, len);
        CHECK(seen_end);
        int w, h, n;
        uint8_t *rgb = stbi_load_from_memory(png, (int)len, &w, &h, &n, 3);
        CHECK(rgb != NULL);
        CHECK_EQ(w, fb->w);
        CHECK_EQ(h, fb->h);
        CHECK_EQ(n, 3);
        CHECK(same_rgb(fb, rgb));
        stbi_image_free(rgb);
        free(png);
        rast_fb_free(fb);
    }
}

TEST(png_write_atomic)
{
    rast_fb *fb = test_frame(64, 48, 9);
    CHECK(fb != NULL);
    char path[512], tmp[520];
    snprintf(path, sizeof path, "%s/shot.png", test_tmpdir());
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    qd_error err = {0};
    CHECK_EQ(out_png_write(path, fb, &err), QD_OK);
    CHECK(access(tmp, F_OK) != 0);
    size_t len;
    uint8_t *bytes = test_read_file(path, &len);
    CHECK(bytes != NULL);
    int w, h, n;
    uint8_t *rgb = stbi_load_from_memory(bytes, (int)len, &w, &h, &n, 3);
    CHECK(rgb && w == 64 && h == 48 && same_rgb(fb, rgb));
    stbi_image_free(rgb);
    free(bytes);
    /* A folder that is not there: an error with the reason, nothing left behind. */
    snprintf(path, sizeof path, "%s/no/such/dir/shot.png", test_tmpdir());
    CHECK_EQ(out_png_write(path, fb, &err), QD_ERR_OUTPUT);
    CHECK(strstr(err.msg, "no/such/dir") != NULL);
    rast_fb bad = {0, 0, NULL, NULL, NULL};
    uint8_t *png = (uint8_t *)1;
    CHECK_EQ(out_png_encode(&bad, &png, &len, &err), QD_ERR_USAGE);
    CHECK(png == NULL && len == 0);
    rast_fb_free(fb);
}

static void fill(rast_fb *fb, uint32_t c)
{
    for (int i = 0; i < fb->w * fb->h; i++)
        fb->color[i] = c;
}

TEST(y4m_header_and_frame)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    qd_error err = {0};
    rast_fb *fb = rast_fb_new(1280, 720);
    CHECK(fb != NULL);
    fill(fb, rast_rgb(255, 255, 255));
    CHECK_EQ(out_y4m_begin(f, 1280, 720, 60, 1, 1, &err), QD_OK);
    CHECK_EQ(out_y4m_frame(f, fb, 1, &err), QD_OK);
    fflush(f);
    const char *hdr = "YUV4MPEG2 W1280 H720 F60:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED "
                      "XCOLORMATRIX=BT709\n";
    size_t hl = strlen(hdr);
    CHECK(hl <= 96);
    CHECK_EQ(len, hl + 6 + 1280 * 720 * 3 / 2);
    CHECK(memcmp(buf, hdr, hl) == 0);
    CHECK(memcmp(buf + hl, "FRAME\n", 6) == 0);
    const uint8_t *y = (const uint8_t *)buf + hl + 6;
    CHECK_EQ(y[0], 235);
    CHECK_EQ(y[1280 * 720 - 1], 235);
    CHECK_EQ(y[1280 * 720], 128);
    CHECK_EQ(y[1280 * 720 * 3 / 2 - 1], 128);
    fclose(f);
    free(buf);
    /* Longest header we allow still fits ffmpeg's 96 bytes. */
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    CHECK_EQ(out_y4m_begin(f, 16384, 16384, 10000000, 99999, 0, &err), QD_OK);
    fclose(f);
    CHECK(len <= 96);
    free(buf);
    CHECK_EQ(out_y4m_begin(stdout, 0, 720, 60, 1, 0, &err), QD_ERR_USAGE);
    CHECK_EQ(out_y4m_begin(stdout, 64, 64, 0, 1, 0, &err), QD_ERR_USAGE);
    CHECK_EQ(out_y4m_begin(stdout, 64, 64, 30, 100001, 0, &err), QD_ERR_USAGE);
    CHECK_EQ(out_y4m_begin(stdout, 64, 64, 10000001, 1, 0, &err), QD_ERR_USAGE);
    rast_fb_free(fb);
}

/* Limited range: black 16, white 235, greys with 128 chroma; red against the published
 * values (BT.601: 81, 90, 240; BT.709: 63, 102, 240). */
TEST(y4m_colour_conversion)
{
    rast_fb *fb = rast_fb_new(4, 2);
    CHECK(fb != NULL);
    uint8_t y[8], u[2], v[2];
    struct {
        uint32_t c;
        int bt709;
        uint8_t y, u, v;
    } cases[] = {
        {rast_rgb(0, 0, 0), 0, 16, 128, 128},       {rast_rgb(0, 0, 0), 1, 16, 128, 128},
        {rast_rgb(255, 255, 255), 0, 235, 128, 128}, {rast_rgb(255, 255, 255), 1, 235, 128, 128},
        {rast_rgb(128, 128, 128), 0, 126, 128, 128}, {rast_rgb(128, 128, 128), 1, 126, 128, 128},
        {rast_rgb(255, 0, 0), 0, 81, 90, 240},       {rast_rgb(255, 0, 0), 1, 63, 102, 240},
        {rast_rgb(0, 0, 255), 0, 41, 240, 110},      {rast_rgb(0, 0, 255), 1, 32, 240, 118},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fill(fb, cases[i].c);
        out_rgb_to_yuv420(fb, cases[i].bt709, y, u, v);
        CHECK_MSG(y[0] == cases[i].y && y[7] == cases[i].y && u[0] == cases[i].u &&
                      v[1] == cases[i].v,
                  "case %zu: got %d %d %d", i, y[0], u[0], v[0]);
    }
    /* Every grey keeps chroma at 128, and luma climbs from 16 to 235 without a gap. */
    for (unsigned g = 0; g < 256; g++) {
        fill(fb, rast_rgb(g, g, g));
        out_rgb_to_yuv420(fb, 1, y, u, v);
        CHECK(u[0] == 128 && v[0] == 128);
        CHECK_EQ(y[0], (16 * 255 + 219 * g + 127) / 255);
    }
    /* Chroma is the 2x2 average: half black, half white columns give grey chroma. */
    for (int i = 0; i < 8; i++)
        fb->color[i] = i % 2 ? rast_rgb(255, 0, 0) : rast_rgb(0, 0, 0);
    out_rgb_to_yuv420(fb, 0, y, u, v);
    CHECK_EQ(y[0], 16);
    CHECK_EQ(y[1], 81);
    CHECK_EQ(v[0], (128 + 240 + 1) / 2);
    rast_fb_free(fb);
    /* Odd sizes: chroma planes round up and the edge pixel repeats. */
    CHECK_EQ(out_y4m_frame_size(5, 3), 15 + 2 * 3 * 2);
    CHECK_EQ(out_y4m_frame_size(1280, 720), 1280 * 720 * 3 / 2);
    fb = rast_fb_new(5, 3);
    CHECK(fb != NULL);
    fill(fb, rast_rgb(255, 255, 255));
    uint8_t y5[15], u5[6], v5[6];
    out_rgb_to_yuv420(fb, 0, y5, u5, v5);
    for (int i = 0; i < 15; i++)
        CHECK_EQ(y5[i], 235);
    for (int i = 0; i < 6; i++)
        CHECK(u5[i] == 128 && v5[i] == 128);
    rast_fb_free(fb);
}

TEST(sinks_and_hash)
{
    rast_fb *a = test_frame(32, 24, 1), *b = test_frame(32, 24, 2);
    CHECK(a && b);
    CHECK(out_fb_hash(a) == out_fb_hash(a));
    CHECK(out_fb_hash(a) != out_fb_hash(b));
    uint32_t px = rast_rgb(1, 2, 3);
    float z = 0;
    rast_fb one = {1, 1, &px, &z, NULL};
    uint64_t want = 0xcbf29ce484222325ull; /* FNV-1a 64 of the bytes 1, 2, 3, 255 */
    const uint8_t bytes4[4] = {1, 2, 3, 255};
    for (int i = 0; i < 4; i++)
        want = (want ^ bytes4[i]) * 0x100000001b3ull;
    CHECK(out_fb_hash(&one) == want);
    qd_error err = {0};
    out_sink *s = out_sink_null_open();
    CHECK(s != NULL);
    CHECK_EQ(out_sink_last_hash(s), 0);
    CHECK_EQ(out_sink_frame(s, a, &err), QD_OK);
    CHECK_EQ(out_sink_frame(s, b, &err), QD_OK);
    CHECK_EQ(out_sink_count(s), 2);
    CHECK(out_sink_last_hash(s) == out_fb_hash(b));
    CHECK_EQ(out_sink_close(s, &err), QD_OK);

    char prefix[512], path[600];
    snprintf(prefix, sizeof prefix, "%s/frame", test_tmpdir());
    s = out_sink_png_open(prefix, &err);
    CHECK(s != NULL);
    CHECK_EQ(out_sink_frame(s, a, &err), QD_OK);
    CHECK_EQ(out_sink_frame(s, b, &err), QD_OK);
    CHECK_EQ(out_sink_close(s, &err), QD_OK);
    snprintf(path, sizeof path, "%s000001.png", prefix);
    CHECK(access(path, R_OK) == 0);

    snprintf(path, sizeof path, "%s/sink.y4m", test_tmpdir());
    s = out_sink_y4m_open(path, 30, 1, 0, &err);
    CHECK(s != NULL);
    CHECK_EQ(out_sink_frame(s, a, &err), QD_OK);
    CHECK_EQ(out_sink_frame(s, b, &err), QD_OK);
    rast_fb *c = test_frame(16, 16, 3);
    CHECK_EQ(out_sink_frame(s, c, &err), QD_ERR_USAGE);
    CHECK_EQ(out_sink_count(s), 2);
    CHECK_EQ(out_sink_close(s, &err), QD_OK);
    size_t len;
    uint8_t *bytes = test_read_file(path, &len);
    CHECK(bytes != NULL);
    size_t hl = strlen("YUV4MPEG2 W32 H24 F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED "
                       "XCOLORMATRIX=BT601\n");
    CHECK_EQ(len, hl + 2 * (6 + 32 * 24 * 3 / 2));
    free(bytes);
    snprintf(path, sizeof path, "%s/no/such/dir/x.y4m", test_tmpdir());
    CHECK(out_sink_y4m_open(path, 30, 1, 0, &err) == NULL);
    CHECK_EQ(err.code, QD_ERR_OUTPUT);
    rast_fb_free(a);
    rast_fb_free(b);
    rast_fb_free(c);
}

static int count_color(const rast_fb *fb, uint32_t c)
{
    int n = 0;
    for (int i = 0; i < fb->w * fb->h; i++)
        n += fb->color[i] == c;
    return n;
}

TEST(draw2d_text_and_rects)
{
    rast_fb *fb = rast_fb_new(120, 40);
    CHECK(fb != NULL);
    uint32_t black = rast_rgb(0, 0, 0), white = rast_rgb(255, 255, 255);
    rast_clear(fb, black);
    draw_text(fb, 2, 2, "I", white, 1);
    CHECK_EQ(count_color(fb, white), 11); /* .###. ..#.. x5 .###. */
    CHECK_EQ(fb->color[2 * 120 + 3], white);
    rast_clear(fb, black);
    draw_text(fb, 2, 2, "I", white, 3);
    CHECK_EQ(count_color(fb, white), 11 * 9);
    rast_clear(fb, black);
    draw_text(fb, 0, 0, "Hello, qdemo! 0:12.5", white, 1);
    int lit = count_color(fb, white);
    CHECK(lit > 60 && lit < 20 * 35);
    /* Every printable character has pixels, except the space. */
    for (int c = 33; c < 127; c++) {
        char s[2] = {(char)c, 0};
        rast_clear(fb, black);
        draw_text(fb, 1, 1, s, white, 1);
        CHECK_MSG(count_color(fb, white) > 0, "glyph %d is empty", c);
    }
    CHECK_EQ(draw_text_width("", 1), 0);
    CHECK_EQ(draw_text_width("Hello", 1), 30);
    CHECK_EQ(draw_text_width("ab\ncde", 2), 36);
    CHECK_EQ(draw_text_height("ab\ncde", 2), 40); /* (2 lines of 7 + 2 + 1 rows, x2) */
    /* g, j, p, q and y descend two rows below the baseline (row 6); capitals do not (a
     * review: "maps" read "maPs") */
    for (const char *c = "gjpqyPQJY"; *c; c++) {
        char s[2] = {*c, 0};
        rast_clear(fb, black);
        draw_text(fb, 0, 0, s, white, 1);
        int below = 0;
        for (int x = 0; x < 5; x++)
            below += fb->color[8 * 120 + x] == white;
        CHECK_MSG((below > 0) == (*c >= 'a'), "'%c' %s", *c, below ? "descends" : "does not");
    }
    CHECK_EQ(draw_text_height("", 2), 0);
    /* Clipping and odd input never write outside the framebuffer. */
    rast_clear(fb, black);
    draw_text(fb, -7, -3, "clipped\n\xff\x01 text", white, 2);
    draw_text(fb, 2147483600, 2147483600, "far away", white, 64);
    draw_text(fb, -2147483600, 10, "far left", white, 1000);
    draw_text(fb, 0, 0, NULL, white, 1);
    draw_fill_rect(fb, -2147483647, -2147483647, 2147483647, 2147483647, white);
    draw_fill_rect(fb, 2147483000, 5, 2147483647, 2147483647, white);
    draw_text(NULL, 0, 0, "x", white, 1);
    /* Rectangles: opaque writes, translucent blends, alpha 0 does nothing. */
    rast_clear(fb, black);
    draw_fill_rect(fb, 110, 30, 50, 50, white);
    CHECK_EQ(count_color(fb, white), 10 * 10);
    draw_fill_rect(fb, 0, 0, 4, 4, 0x80ffffffu);
    CHECK_EQ(fb->color[0] & 0xffffffu, 0x808080u);
    draw_fill_rect(fb, 0, 0, 4, 4, 0x00ffffffu);
    CHECK_EQ(fb->color[0] & 0xffffffu, 0x808080u);
    rast_fb_free(fb);
}

/* Run cmd with the file at path on its standard input; its exit status, or -1. */
static int run_with_input(const char *cmd, const char *path)
{
    char full[1200];
    snprintf(full, sizeof full, "%s < '%s'", cmd, path);
    int st = system(full);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(ffmpeg_reads_our_output)
{
    if (access("/usr/bin/ffmpeg", X_OK) != 0)
        SKIP("no /usr/bin/ffmpeg");
    qd_error err = {0};
    char y4m[512], png[512];
    snprintf(y4m, sizeof y4m, "%s/ff.y4m", test_tmpdir());
    snprintf(png, sizeof png, "%s/ff.png", test_tmpdir());
    rast_fb *fb = test_frame(320, 180, 11);
    CHECK(fb != NULL);
    FILE *f = fopen(y4m, "wb");
    CHECK(f != NULL);
    CHECK_EQ(out_y4m_begin(f, 320, 180, 60, 1, 1, &err), QD_OK);
    for (int i = 0; i < 3; i++) {
        draw_text(fb, 4, 4 + 10 * i, "frame", rast_rgb(255, 255, 0), 1);
        CHECK_EQ(out_y4m_frame(f, fb, 1, &err), QD_OK);
    }
    CHECK(fclose(f) == 0);
    CHECK_EQ(out_png_write(png, fb, &err), QD_OK);
    /* The y4m through a pipe, as an encoder would read it. */
    CHECK_EQ(run_with_input("/usr/bin/ffmpeg -v error -i - -f null - 2>&1", y4m), 0);
    CHECK_EQ(run_with_input("/usr/bin/ffmpeg -v error -f png_pipe -i - -f null - 2>&1", png), 0);
    if (access("/usr/bin/ffprobe", X_OK) == 0) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd,
                 "/usr/bin/ffprobe -v error -count_frames -show_entries "
                 "stream=width,height,color_range,nb_read_frames -of csv=p=0 '%s'",
                 y4m);
        FILE *p = popen(cmd, "r");
        CHECK(p != NULL);
        char line[256] = "";
        char *got = fgets(line, sizeof line, p);
        pclose(p);
        CHECK(got != NULL);
        CHECK_STR(line, "320,180,tv,3\n");
    }
    rast_fb_free(fb);
}

TEST(window_dummy_driver)
{
    const char *old = getenv("SDL_VIDEODRIVER");
    char *saved = old ? strdup(old) : NULL;
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    qd_error err = {0};
    out_window *w = out_window_open("qdemo test", 320, 200, &err);
    if (saved) {
        setenv("SDL_VIDEODRIVER", saved, 1);
        free(saved);
    } else {
        unsetenv("SDL_VIDEODRIVER");
    }
    if (!w)
        SKIP("SDL's dummy video driver is not available");
    int ww = 0, wh = 0;
    out_window_size(w, &ww, &wh);
    CHECK(ww > 0 && wh > 0);
    rast_fb *fb = test_frame(160, 100, 4);
    CHECK(fb != NULL);
    CHECK_EQ(out_window_present(w, fb, &err), QD_OK);
    rast_fb *big = test_frame(400, 300, 5); /* a new size makes a new texture */
    CHECK(big != NULL);
    CHECK_EQ(out_window_present(w, big, &err), QD_OK);
    out_window_set_title(w, "qdemo test 2");
    out_window_relative_mouse(w, 1);
    out_window_relative_mouse(w, 0);
    in_event ev;
    for (int i = 0; i < 100 && out_window_poll(w, &ev); i++)
        CHECK(ev.type != IN_EV_NONE);
    CHECK_EQ(out_window_present(w, NULL, &err), QD_ERR_USAGE);
    out_window_close(w);
    out_window_close(NULL);
    rast_fb_free(fb);
    rast_fb_free(big);
}
