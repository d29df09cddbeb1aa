/* demo_unpack.c: demos inside containers: gzip (.dem.gz, .mvd.gz) and a zip holding one demo. */
#include "demo_unpack.h"
#include "demo_local.h"

#include "../../pak-loader/pak.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int demo_is_demo_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || strchr(dot, '/'))
        return 0;
    static const char *const exts[] = {".dem", ".qwd", ".mvd", ".dm2", ".mvd2", ".dm3"};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (strcasecmp(dot, exts[i]) == 0)
            return 1;
    /* .dm_NN: two or more digits */
    if (strncasecmp(dot, ".dm_", 4) != 0 || !dot[4] || !dot[5])
        return 0;
    for (const char *p = dot + 4; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* The last component of path. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Grow *buf (capacity *cap) to hold at least need bytes, doubling, never past max; need is
 * at most max (the caller stops at max first), so the doubling ends. The first buffer is
 * 64 KiB, or max when that is less (before, a cap under 64 KiB was overrun by the first
 * buffer, and past it the doubling never reached need: found by a review). */
static int grow(uint8_t **buf, size_t *cap, size_t need, size_t max)
{
    if (need <= *cap)
        return 1;
    if (need > max)
        return 0;
    size_t c = *cap ? *cap : (max < (1u << 16) ? max : 1u << 16);
    while (c < need)
        c = c > max / 2 ? max : c * 2;
    uint8_t *n = realloc(*buf, c + 1); /* + 1: a spare 0 after the end, as qd_read_fd gives */
    if (!n)
        return 0;
    *buf = n;
    *cap = c;
    return 1;
}

/* RFC 1952: a gzip file is one or more members, each a header, a deflate stream and a
 * CRC-32/length trailer, which zlib checks (inflateInit2 with 16 + MAX_WBITS). Members are
 * inflated one after another into one buffer, as gzip -d does. Damage or a cut after some
 * bytes came out keeps those bytes (a cut download still plays to where it stops) and says
 * where in *note. */
static qd_err gunzip(const uint8_t *data, size_t len, size_t max,
                     demo_unpacked *out, qd_error *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return qd_fail(err, QD_ERR_NOMEM, 0, "cannot start inflate");
    uint8_t *buf = NULL;
    size_t cap = 0, have = 0, in = 0;
    qd_err r = QD_OK;
    qd_error why = {0};
    for (;;) {
        /* Each pass of inflate gets at most 1 GiB in and out (its counts are uInt). */
        size_t in_now = len - in < (1u << 30) ? len - in : 1u << 30;
        /* (room for one byte past max: only a byte that comes out past it is over the
         * cap, not an empty member after exactly max; a review) */
        if (have > max) {
            r = qd_fail(&why, QD_ERR_LIMIT, in, "inflates to more than %zu bytes", max);
            break;
        }
        if (!grow(&buf, &cap, have + 1, max < SIZE_MAX ? max + 1 : max)) {
            r = qd_fail(&why, QD_ERR_NOMEM, in, "out of memory inflating");
            break;
        }
        z.next_in = (Bytef *)(data + in);
        z.avail_in = (uInt)in_now;
        z.next_out = buf + have;
        z.avail_out = (uInt)(cap - have < (1u << 30) ? cap - have : 1u << 30);
        uInt out_before = z.avail_out;
        int ret = inflate(&z, Z_NO_FLUSH);
        in += in_now - z.avail_in;
        have += out_before - z.avail_out;
        if (ret == Z_STREAM_END) {
            /* Another member may follow; anything else after the last member is left out,
             * as gzip -d does, and said as it warns (a review: a member whose first byte was
             * damaged lost the rest of the demo in silence); zeros (tape padding) are not
             * said */
            if (len - in >= 2 && data[in] == 0x1f && data[in + 1] == 0x8b) {
                inflateReset(&z);
                continue;
            }
            size_t k = in;
            while (k < len && data[k] == 0)
                k++;
            if (k < len)
                qd_fail(&why, QD_ERR_BAD_DATA, in,
                        "%zu byte%s after the last gzip member %s no gzip member: left out",
                        len - in, len - in == 1 ? "" : "s", len - in == 1 ? "is" : "are");
            break;
        }
        if (ret == Z_OK)
            continue;
        if (ret == Z_BUF_ERROR && z.avail_out == 0)
            continue; /* no room was left: grow and go on */
        if (ret == Z_BUF_ERROR) { /* room, but no input left to make progress with */
            r = qd_fail(&why, QD_ERR_TRUNCATED, in, "the gzip stream is cut at byte %zu",
                        in);
            break;
        }
        r = qd_fail(&why, ret == Z_MEM_ERROR ? QD_ERR_NOMEM : QD_ERR_BAD_DATA, in,
                    "gzip data damaged at byte %zu: %s", in,
                    z.msg ? z.msg : "inflate error");
        break;
    }
    inflateEnd(&z);
    if (r == QD_OK && have > max) /* (the last member ended past the cap) */
        r = qd_fail(&why, QD_ERR_LIMIT, in, "inflates to more than %zu bytes", max);
    if (r != QD_OK && (have == 0 || r == QD_ERR_NOMEM || r == QD_ERR_LIMIT)) {
        free(buf);
        if (err)
            *err = why;
        return r;
    }
    buf[have] = 0;
    out->data = buf;
    out->len = have;
    out->note = why; /* code QD_OK when whole */
    return QD_OK;
}

typedef struct zip_scan {
    char first[PAK_MAX_NAME + 1];
    int count;
    char names[200]; /* the first few, for the message */
} zip_scan;

static void zip_each(void *ctx, const char *name, uint64_t size)
{
    zip_scan *s = ctx;
    (void)size;
    if (!demo_is_demo_name(name))
        return;
    if (s->count++ == 0)
        snprintf(s->first, sizeof s->first, "%s", name);
    size_t n = strlen(s->names);
    char shown[120]; /* (escaped for the message: a member's name is any bytes; a review) */
    if (n < sizeof s->names - 1)
        snprintf(s->names + n, sizeof s->names - n, "%s%s", n ? ", " : "",
                 demo_escape(shown, sizeof shown, name));
}

/* A zip whose one demo is read out through the pak-loader (stored or deflated members). */
static qd_err unzip(const char *label, const uint8_t *data, size_t len, size_t max,
                    demo_unpacked *out, qd_error *err)
{
    pak_fs *fs = pak_fs_open();
    if (!fs)
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    pak_fs_set_max_file(fs, max);
    qd_err r = pak_fs_add_mem(fs, label, data, len, err);
    zip_scan s = {0};
    if (r == QD_OK && pak_list(fs, "", zip_each, &s) < 0)
        r = qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    /* a demo the loader left out for its name (a ".." part, or over PAK_MAX_NAME bytes):
     * said, not "no demo" (a review) */
    char odd[96] = "";
    int why = 0, found = 0;
    for (uint32_t i = 0; r == QD_OK && s.count == 0 && !found && i < 8; i++) {
        pak_fs_unusable(fs, i, odd, sizeof odd, &why);
        found = why != 0 && demo_is_demo_name(odd);
    }
    if (found)
        r = qd_fail(err, QD_ERR_UNSUPPORTED, 0,
                    "the zip's demo \"%s\" is not read: its name %s (extract it and play "
                    "the file)",
                    odd, why == PAK_NAME_DOTDOT ? "has a \"..\" part" : "is too long");
    else if (r == QD_OK && s.count == 0 && pak_fs_unusable(fs, 0, NULL, 0, NULL) > 8)
        /* more names left out than the loader keeps: a demo may be among the unseen */
        r = qd_fail(err, QD_ERR_UNSUPPORTED, 0,
                    "the zip holds no demo qdemo can read: %u of its names are not read "
                    "(a \"..\" part, or too long) and a demo may be among them; extract it "
                    "and play the file",
                    (unsigned)pak_fs_unusable(fs, 0, NULL, 0, NULL));
    else if (r == QD_OK && s.count == 0)
        r = qd_fail(err, QD_ERR_UNSUPPORTED, 0,
                    "the zip holds no demo (.dem, .qwd, .mvd, .dm2, .dm_NN)");
    if (r == QD_OK && s.count > 1)
        r = qd_fail(err, QD_ERR_UNSUPPORTED, 0,
                    "the zip holds %d demos (%s): extract the one to play", s.count,
                    s.names);
    if (r == QD_OK)
        r = pak_read(fs, s.first, &out->data, &out->len, err);
    if (r == QD_OK)
        snprintf(out->member, sizeof out->member, "%s", s.first);
    pak_fs_close(fs);
    return r;
}

qd_err demo_unpack(const char *label, const uint8_t *data, size_t len, size_t max,
                   demo_unpacked *out, qd_error *err)
{
    memset(out, 0, sizeof *out);
    const int gz = len >= 3 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 8,
              zip = len >= 4 && memcmp(data, "PK\3\4", 4) == 0;
    if ((gz || zip) && max == 0) /* (the pak-loader reads 0 as its default cap) */
        return qd_fail(err, QD_ERR_LIMIT, 0, "unpacks to more than 0 bytes");
    if (gz) {
        /* the member's name: the file's own without .gz */
        const char *b = base_name(label);
        size_t n = strlen(b);
        if (n > 3 && strcasecmp(b + n - 3, ".gz") == 0)
            n -= 3;
        snprintf(out->member, sizeof out->member, "%.*s", (int)n, b);
        return gunzip(data, len, max, out, err);
    }
    if (zip)
        return unzip(label, data, len, max, out, err);
    return QD_OK; /* not a container: out->data stays NULL */
}
