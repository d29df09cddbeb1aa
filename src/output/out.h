/* out.h: where framebuffers go: PNG files, a y4m stream, an SDL2 window, or a null sink.
 *
 * The encoders read only the R, G, B bytes of each pixel (rast.h's layout); alpha is
 * ignored. Everything here is deterministic: the same framebuffer gives the same bytes. */
#ifndef QD_OUT_H
#define QD_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/err.h"
#include "../render/rast.h"
#include "input.h"

/* ---- PNG ---- */

/* Encode fb as an 8-bit RGB PNG (zlib level 2; filter Up on every row, None on the first)
 * into a new malloc'd buffer *png of *len bytes, which the caller frees. On failure *png is
 * NULL. */
qd_err out_png_encode(const rast_fb *fb, uint8_t **png, size_t *len, qd_error *err);
/* The same with a note (NULL for none): a tEXt chunk "qdemo" after IHDR holding its first
 * OUT_PNG_NOTE_MAX bytes, a byte outside 32..126 as '?'. `render` notes there the options
 * a frame's pixels depend on, which --resume compares. */
#define OUT_PNG_NOTE_MAX 4096
qd_err out_png_encode_noted(const rast_fb *fb, const char *note, uint8_t **png, size_t *len,
                            qd_error *err);

/* Write fb as a PNG file at path, atomically: the bytes go to a new temporary file beside
 * it (qd_replace_file), which is then renamed over path, so a reader never sees a
 * half-written file and a link at path is replaced, never followed. */
qd_err out_png_write(const char *path, const rast_fb *fb, qd_error *err);

/* 1 when png[0..len) is a whole PNG as out_png_encode writes them, of w x h: the signature,
 * IHDR first (8-bit RGB, not interlaced), every chunk inside the bytes with a matching
 * CRC-32, at least one IDAT, and IEND as the very last bytes; with note set, also a note
 * as out_png_encode_noted writes it: -1 when the PNG is whole but holds no such note. 0 for
 * anything else. */
int out_png_check(const uint8_t *png, size_t len, int w, int h, const char *note);

/* ---- YUV4MPEG2 (y4m) ---- */

/* Write the stream header for w x h frames (1..16384) at fps_num/fps_den frames per
 * second (each 1..100000), e.g.
 *   YUV4MPEG2 W1280 H720 F60:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED XCOLORMATRIX=BT709
 * ffmpeg reads the range from XCOLORRANGE but has no tag for the matrix: it ignores
 * XCOLORMATRIX, so pass -colorspace bt709 (or bt470bg for BT.601) when encoding. The
 * header stays under 96 bytes, the most ffmpeg >= 4.3 reads (older versions read 80). */
qd_err out_y4m_begin(FILE *f, int w, int h, int fps_num, int fps_den, int bt709,
                     qd_error *err);

/* Write one frame: "FRAME\n" and out_y4m_frame_size() bytes of limited-range Y'CbCr
 * 4:2:0, BT.709 when bt709 is set, else BT.601. fb must have the header's size. */
qd_err out_y4m_frame(FILE *f, const rast_fb *fb, int bt709, qd_error *err);

/* Bytes of one 4:2:0 frame after "FRAME\n": w*h + 2*ceil(w/2)*ceil(h/2). */
size_t out_y4m_frame_size(int w, int h);

/* Convert fb to planar 4:2:0: y gets w*h bytes, u and v ceil(w/2)*ceil(h/2) each; each
 * chroma sample is the average of a 2x2 block (the edge pixel repeats on odd sizes). */
void out_rgb_to_yuv420(const rast_fb *fb, int bt709, uint8_t *y, uint8_t *u, uint8_t *v);

/* ---- hashing ---- */

/* FNV-1a 64 over the colour bytes of fb (all four bytes of every pixel, row by row). */
uint64_t out_fb_hash(const rast_fb *fb);

/* ---- sinks: one call per frame, whatever the destination ---- */

typedef struct out_sink out_sink;

/* A sink that only counts frames and keeps the hash of the last one (for tests).
 * NULL only when out of memory. */
out_sink *out_sink_null_open(void);
/* PNG files "<prefix>000000.png", "<prefix>000001.png", ... (prefix may name a folder). */
out_sink *out_sink_png_open(const char *prefix, qd_error *err);
/* A y4m stream to path ("-" for stdout; a link at path is refused, not followed). The header is written with the first frame,
 * whose size every later frame must have. */
out_sink *out_sink_y4m_open(const char *path, int fps_num, int fps_den, int bt709,
                            qd_error *err);

/* Hand one frame to the sink. */
qd_err out_sink_frame(out_sink *s, const rast_fb *fb, qd_error *err);
/* Frames accepted so far. */
uint64_t out_sink_count(const out_sink *s);
/* out_fb_hash() of the last frame the null sink took; 0 for other sinks or no frame. */
uint64_t out_sink_last_hash(const out_sink *s);
/* Flush and free; reports a failed final write. s may be NULL. */
qd_err out_sink_close(out_sink *s, qd_error *err);

/* ---- SDL2 window (SDL loaded at run time: qdemo does not link it) ---- */

typedef struct out_window out_window;

/* A resizable window of w x h, titled title. SDL2 is loaded on the first call (dlopen of
 * libSDL2-2.0.so.0, sdl_local.h); NULL with err set (QD_ERR_OUTPUT, one line) when the
 * library is missing (naming the Debian package libsdl2-2.0-0), there is no display, or SDL
 * cannot start (SDL's reason in the text). */
out_window *out_window_open(const char *title, int w, int h, qd_error *err);
/* Show fb scaled to fit the window, keeping its aspect, with black borders. Waits for
 * the display's refresh where the driver allows. */
qd_err out_window_present(out_window *win, const rast_fb *fb, qd_error *err);
/* The drawable size in pixels (on high-DPI screens larger than the window size), so the
 * caller can render at the window's resolution. */
void out_window_size(out_window *win, int *w, int *h);
/* Take the next pending event into *ev; 0 when there are none left. Never blocks. */
int out_window_poll(out_window *win, in_event *ev);
/* Wait up to ms milliseconds for an event (left for out_window_poll); 1 when one came. */
int out_window_wait(out_window *win, int ms);
/* 1 when the window is minimised or hidden (nothing drawn there is seen). */
int out_window_hidden(out_window *win);
void out_window_set_title(out_window *win, const char *title);
/* Fullscreen (at the desktop's resolution) on, or back to the window. */
void out_window_toggle_fullscreen(out_window *win);
/* 1 when the window is fullscreen. */
int out_window_is_fullscreen(out_window *win);
/* Hide the cursor and report only relative motion (on = 1), or give it back (on = 0). */
void out_window_relative_mouse(out_window *win, int on);
/* Close the window; win may be NULL. */
void out_window_close(out_window *win);

/* The window's sound: the default audio device at rate Hz, 16-bit stereo, fed by queueing
 * (SDL_QueueAudio; SDL's own callback drains the queue). */
typedef struct out_audio out_audio;
/* Open the device, or NULL with err set when there is none (the window then plays silent). */
out_audio *out_audio_open(int rate, qd_error *err);
/* Queue n sample frames (left, right interleaved). */
void out_audio_queue(out_audio *a, const int16_t *frames, uint32_t n);
/* Sample frames queued and not yet played. */
uint32_t out_audio_queued(const out_audio *a);
/* Drop what is queued (a pause, a seek). */
void out_audio_clear(out_audio *a);
void out_audio_close(out_audio *a);

#endif
