/* sink.c: the frame sinks behind one call (null, PNG files, y4m stream) and the frame hash. */
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum sink_kind { SINK_NULL, SINK_PNG, SINK_Y4M } sink_kind;

struct out_sink {
    sink_kind kind;
    uint64_t count;
    uint64_t hash;  /* null sink: hash of the last frame */
    char *prefix;   /* PNG: file name before the frame number */
    FILE *f;        /* y4m: the stream, closed by us unless it is stdout */
    int fps_num, fps_den, bt709;
    int w, h;       /* y4m: size fixed by the first frame */
};

uint64_t out_fb_hash(const rast_fb *fb)
{
    uint64_t h = 0xcbf29ce484222325ull;
    if (!fb || !fb->color || fb->w < 1 || fb->h < 1)
        return h;
    const uint8_t *p = (const uint8_t *)fb->color;
    size_t n = (size_t)fb->w * (size_t)fb->h * 4;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

out_sink *out_sink_null_open(void)
{
    out_sink *s = calloc(1, sizeof *s);
    if (s)
        s->kind = SINK_NULL;
    return s;
}

out_sink *out_sink_png_open(const char *prefix, qd_error *err)
{
    if (!prefix) {
        qd_fail(err, QD_ERR_USAGE, 0, "png sink: no file name prefix");
        return NULL;
    }
    out_sink *s = calloc(1, sizeof *s);
    char *p = s ? strdup(prefix) : NULL;
    if (!p) {
        free(s);
        qd_fail(err, QD_ERR_NOMEM, 0, "png sink: no memory");
        return NULL;
    }
    s->kind = SINK_PNG;
    s->prefix = p;
    return s;
}

out_sink *out_sink_y4m_open(const char *path, int fps_num, int fps_den, int bt709,
                            qd_error *err)
{
    if (!path || !*path || fps_num < 1 || fps_den < 1) {
        qd_fail(err, QD_ERR_USAGE, 0, "y4m sink: no path or a bad frame rate");
        return NULL;
    }
    out_sink *s = calloc(1, sizeof *s);
    if (!s) {
        qd_fail(err, QD_ERR_NOMEM, 0, "y4m sink: no memory");
        return NULL;
    }
    s->kind = SINK_Y4M;
    if (strcmp(path, "-") == 0) {
        s->f = stdout;
    } else {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
        s->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (fd >= 0 && !s->f)
            close(fd);
    }
    if (!s->f) {
        qd_fail(err, QD_ERR_OUTPUT, 0, "y4m sink: cannot create %s: %s", path, strerror(errno));
        free(s);
        return NULL;
    }
    s->fps_num = fps_num;
    s->fps_den = fps_den;
    s->bt709 = bt709;
    return s;
}

qd_err out_sink_frame(out_sink *s, const rast_fb *fb, qd_error *err)
{
    if (!s || !fb)
        return qd_fail(err, QD_ERR_USAGE, 0, "sink: no sink or no frame");
    qd_err e = QD_OK;
    switch (s->kind) {
    case SINK_NULL:
        s->hash = out_fb_hash(fb);
        break;
    case SINK_PNG: {
        size_t n = strlen(s->prefix) + 32;
        char *path = malloc(n);
        if (!path)
            return qd_fail(err, QD_ERR_NOMEM, 0, "png sink: no memory");
        snprintf(path, n, "%s%06llu.png", s->prefix, (unsigned long long)s->count);
        e = out_png_write(path, fb, err);
        free(path);
        break;
    }
    case SINK_Y4M:
        if (s->count == 0) {
            e = out_y4m_begin(s->f, fb->w, fb->h, s->fps_num, s->fps_den, s->bt709, err);
            s->w = fb->w;
            s->h = fb->h;
        } else if (fb->w != s->w || fb->h != s->h) {
            e = qd_fail(err, QD_ERR_USAGE, s->count, "y4m sink: frame %llu is %dx%d, not %dx%d",
                        (unsigned long long)s->count, fb->w, fb->h, s->w, s->h);
        }
        if (!e)
            e = out_y4m_frame(s->f, fb, s->bt709, err);
        break;
    }
    if (!e)
        s->count++;
    return e;
}

uint64_t out_sink_count(const out_sink *s)
{
    return s ? s->count : 0;
}

uint64_t out_sink_last_hash(const out_sink *s)
{
    return s && s->kind == SINK_NULL && s->count ? s->hash : 0;
}

qd_err out_sink_close(out_sink *s, qd_error *err)
{
    if (!s)
        return QD_OK;
    qd_err e = QD_OK;
    if (s->f) {
        int bad = s->f == stdout ? fflush(s->f) != 0 : fclose(s->f) != 0;
        if (bad)
            e = qd_fail(err, QD_ERR_OUTPUT, 0, "y4m sink: cannot finish the stream: %s",
                        strerror(errno));
    }
    free(s->prefix);
    free(s);
    return e;
}
