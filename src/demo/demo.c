/* demo.c: the demo layer: reads a demo file, picks its decoder by content, and steps it. */
#include "demo.h"

#include "../common/file.h"
#include "demo_unpack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEMO_MAX_FILE (1ull << 30) /* 1 GiB: far above any real demo */

struct demo {
    char path[1024];
    uint8_t *data;
    size_t len;
    const demo_decoder *dec;
    void *state;
    demo_damage damage[DEMO_MAX_DAMAGE];
    int num_damage;
    /* The decoder knows the format but refused its version (QD_ERR_UNSUPPORTED at init):
     * the demo stays open so `info` can say what the file is, and every step returns this. */
    int refused;
    qd_error refusal;
    /* After the end or an error nothing more is decoded: every later step says done, or
     * repeats the error (code and offset). Cleared by demo_rewind and demo_restore. */
    uint8_t stopped;
    qd_err err_code;
    uint64_t err_offset;
    /* A gzip stream damaged or cut after some bytes came out (demo_unpack): the demo is
     * what came out, and an error at its end says why it ends there. */
    qd_error container_note;
};

/* Every decoder qdemo has, in the order ties are broken. */
static const demo_decoder *const decoders[] = {
    &demo_q1_decoder,
    &demo_mvd_decoder,
    &demo_qwd_decoder,
    &demo_q2_decoder,
    &demo_mvd2_decoder,
    &demo_q3_decoder,
};
#define NUM_DECODERS (sizeof decoders / sizeof decoders[0])

const char *demo_format_name(demo_format f)
{
    switch (f) {
    case DEMO_FMT_DEM: return "dem";
    case DEMO_FMT_QWD: return "qwd";
    case DEMO_FMT_MVD: return "mvd";
    case DEMO_FMT_DM2: return "dm2";
    case DEMO_FMT_DM3: return "dm3";
    case DEMO_FMT_MVD2: return "mvd2";
    default: return "unknown";
    }
}

/* Open bytes the demo takes over (owned: freed on failure too) or copies (owned == NULL),
 * with decoder `forced`, or the one the content names when it is NULL. */
static demo_t *open_bytes(const char *name, const uint8_t *data, uint8_t *owned, size_t len,
                          const demo_decoder *forced, qd_error *err)
{
    /* By content first: each family scores how well the first blocks parse as its own
     * (probe without a name). The extension only breaks ties, and decides alone when no
     * family sees its content: a probe scoring higher with the name than without it
     * recognised its extension. */
    const demo_decoder *best = forced;
    int best_content = 0, best_ext = 0;
    for (size_t i = 0; !forced && i < NUM_DECODERS; i++) {
        int content = decoders[i]->probe(data, len, NULL);
        int ext = decoders[i]->probe(data, len, name) > content;
        if (content > best_content || (content == best_content && ext > best_ext)) {
            best_content = content;
            best_ext = ext;
            best = decoders[i];
        }
    }
    if (!forced && best && best_content == 0 && !best_ext)
        best = NULL;
    if (!best) {
        free(owned);
        qd_fail(err, QD_ERR_UNSUPPORTED, 0, "not a demo format qdemo knows");
        return NULL;
    }
    demo_t *d = calloc(1, sizeof *d);
    if (!d) {
        free(owned);
        qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    snprintf(d->path, sizeof d->path, "%s", name ? name : "");
    d->data = owned ? owned : malloc(len ? len : 1);
    d->state = qd_alloc_bulk_zero(best->state_size, len); /* (huge pages for a big demo) */
    if (!d->data || !d->state) {
        demo_close(d);
        qd_fail(err, QD_ERR_NOMEM, 0, "out of memory for a %zu-byte demo", len);
        return NULL;
    }
    if (len && !owned)
        memcpy(d->data, data, len);
    d->len = len;
    d->dec = best;
    if (best->init(d->state, d->data, d->len, err) != QD_OK) {
        if (err && err->code == QD_ERR_UNSUPPORTED) {
            d->refused = 1;
            d->refusal = *err;
            return d;
        }
        demo_close(d);
        return NULL;
    }
    return d;
}

demo_t *demo_open_mem(const char *name, const uint8_t *data, size_t len, qd_error *err)
{
    return open_bytes(name, data, NULL, len, NULL, err);
}

demo_t *demo_open_with(const demo_decoder *dec, const char *name, const uint8_t *data,
                       size_t len, qd_error *err)
{
    return open_bytes(name, data, NULL, len, dec, err);
}

/* A file's bytes (owned): the demo in them when they are a container (gzip, a zip of one
 * demo), named "path:member" so offsets in messages are read as the member's; else the
 * bytes themselves. */
/* How well the best decoder's probe takes data as its own by content (0: none does). */
static int content_score(const uint8_t *data, size_t len)
{
    int best = 0;
    for (size_t i = 0; data && i < NUM_DECODERS; i++) {
        int c = decoders[i]->probe(data, len, NULL);
        best = c > best ? c : best;
    }
    return best;
}

static demo_t *open_file_bytes(const char *path, uint8_t *buf, size_t len, qd_error *err)
{
    demo_unpacked u;
    qd_error uerr = {0};
    qd_err ur = demo_unpack(path, buf, len, DEMO_MAX_FILE, &u, &uerr);
    /* A demo whose first bytes only look like a container's (a Quake III demo's first
     * sequence number 559,903 is 1f 8b 08, gzip's mark; 67,324,752 is "PK\3\4"; a review):
     * when the unpacking fails or stops at damage and the bytes themselves parse as a demo
     * better than what came out, they are the demo. */
    if ((ur != QD_OK || (u.data && u.note.code != QD_OK)) &&
        content_score(buf, len) > (ur == QD_OK ? content_score(u.data, u.len) : 0)) {
        free(u.data);
        return open_bytes(path, buf, buf, len, NULL, err);
    }
    if (ur != QD_OK) {
        if (err)
            *err = uerr;
        free(buf);
        return NULL;
    }
    if (!u.data)
        return open_bytes(path, buf, buf, len, NULL, err); /* the buffer is the demo's now */
    free(buf);
    size_t n = strlen(path) + 1 + strlen(u.member) + 1;
    char *name = malloc(n);
    if (!name) {
        free(u.data);
        qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    snprintf(name, n, "%s:%s", path, u.member);
    demo_t *d = open_bytes(name, u.data, u.data, u.len, NULL, err);
    free(name);
    if (d)
        d->container_note = u.note;
    return d;
}

demo_t *demo_open(const char *path, qd_error *err)
{
    /* a FIFO, device or folder is refused, not waited on */
    uint8_t *buf;
    size_t len;
    if (qd_read_input(path, DEMO_MAX_FILE, &buf, &len, err) != QD_OK)
        return NULL;
    return open_file_bytes(path, buf, len, err);
}

demo_t *demo_open_file_mem(const char *path, const uint8_t *data, size_t len, qd_error *err)
{
    uint8_t *buf = malloc(len + 1);
    if (!buf) {
        qd_fail(err, QD_ERR_NOMEM, 0, "out of memory for a %zu-byte file", len);
        return NULL;
    }
    memcpy(buf, data, len);
    buf[len] = 0;
    return open_file_bytes(path, buf, len, err);
}

void demo_close(demo_t *d)
{
    if (!d)
        return;
    free(d->data);
    free(d->state);
    free(d);
}

/* Is pos a believable resync point: a block that looks like its format's (strict), then
 * whole blocks by their framing (up to 3 of them, or fewer then the end marker or the
 * file's end)? */
static int chain_ok(const demo_t *d, uint64_t pos)
{
    uint64_t size;
    if (d->dec->block_at(d->data, d->len, pos, 1, &size) != DEMO_BLOCK_WHOLE)
        return 0;
    for (int k = 0; k < 3; k++) {
        pos += size;
        if (pos == d->len)
            return 1;
        int b = d->dec->block_at(d->data, d->len, pos, 0, &size); /* framing only */
        if (b == DEMO_BLOCK_END || b == DEMO_BLOCK_CUT)
            return 1; /* a cut last block is found (and reported) when decoding gets there */
        if (b != DEMO_BLOCK_WHOLE)
            return 0;
    }
    return 1;
}

/* After step failed with err, in the blocks from `start`: find the damaged block and the
 * next one that parses, record the range, resume there. QD_OK when decoding goes on. */
static qd_err resync(demo_t *d, uint64_t start, cl_state *cl, qd_error *err)
{
    const qd_error why = *err;
    uint64_t p = start, size = 0, next = 0;
    int b = DEMO_BLOCK_NONE;
    /* The block holding the error: walk whole blocks from the step's start (an .mvd step is
     * a frame of several blocks). No count caps the walk: p only grows, up to the error's
     * offset, over bytes the step decoded (a cap of 65,536 blocks stopped inside an .mvd
     * frame of more, named a good block as the damage and decoded the blocks after it
     * twice; a review). */
    for (;;) {
        b = d->dec->block_at(d->data, d->len, p, 0, &size);
        if (b != DEMO_BLOCK_WHOLE || size == 0 || p + size > why.offset)
            break;
        p += size;
    }
    if (b == DEMO_BLOCK_CUT || b == DEMO_BLOCK_END || p >= d->len)
        return why.code; /* the file was cut (or ends) here: nothing to resume at */
    if (b == DEMO_BLOCK_WHOLE && (p + size == d->len || chain_ok(d, p + size))) {
        next = p + size; /* the damage is inside the block; its length is sound */
    } else {
        /* The header itself is damaged: the first believable block after it. */
        uint64_t end = d->len - p > DEMO_RESYNC_WINDOW ? p + DEMO_RESYNC_WINDOW : d->len;
        for (next = p + 1; next < end && !chain_ok(d, next); next++)
            ;
        if (next >= end)
            return why.code;
    }
    if (d->num_damage == 0 || p > d->damage[d->num_damage - 1].offset) {
        if (d->num_damage == DEMO_MAX_DAMAGE)
            return qd_fail(err, QD_ERR_LIMIT, p, "too much damage: over %d damaged ranges",
                           DEMO_MAX_DAMAGE);
        demo_damage *g = &d->damage[d->num_damage++];
        g->offset = p;
        g->length = next - p;
        g->why = why;
    }
    /* The frame decoded up to the damage is closed as it stands, as when decoding stops;
     * the decoder then only forgets its own frame and moves to the next good block. */
    if (cl->in_frame)
        cl_frame_end(cl, 0);
    d->dec->resume(d->state, next);
    return QD_OK;
}

/* "<err's reason> (<note's reason>)", as much as fits. */
static void append_note(qd_error *err, const qd_error *note)
{
    size_t n = strlen(err->msg), cap = sizeof err->msg;
    const char *s = note->msg;
    if (n + 4 > cap)
        return;
    err->msg[n++] = ' ';
    err->msg[n++] = '(';
    while (*s && n + 2 < cap)
        err->msg[n++] = *s++;
    err->msg[n++] = ')';
    err->msg[n] = 0;
}

qd_err demo_step(demo_t *d, cl_state *cl, const demo_trace *trace, int *done, qd_error *err)
{
    qd_error local;
    if (!err)
        err = &local; /* the resync needs the error's offset */
    if (d->refused) {
        *err = d->refusal;
        return err->code;
    }
    *done = 0;
    if (d->stopped) {
        if (d->err_code == QD_OK) {
            *done = 1;
            return QD_OK;
        }
        return qd_fail(err, d->err_code, d->err_offset, "decoder stopped by an earlier error");
    }
    uint64_t start = d->dec->offset(d->state);
    qd_err r = d->dec->step(d->state, d->data, d->len, cl, trace, done, err);
    if (r == QD_OK) {
        d->stopped = *done != 0;
        return r;
    }
    if (d->dec->block_at &&
        (r == QD_ERR_BAD_DATA || r == QD_ERR_TRUNCATED || r == QD_ERR_LIMIT)) {
        qd_err again = resync(d, start, cl, err);
        if (again == QD_OK) {
            *done = 0;
            return QD_OK;
        }
        r = again;
    }
    /* Stop. One rule for every format: the frame decoded up to the error is closed as it
     * stands (entities not yet updated stay), so it counts as a frame. */
    if (cl->in_frame)
        cl_frame_end(cl, 0);
    if (d->container_note.code)
        append_note(err, &d->container_note); /* the container's damage: the likely cause */
    d->stopped = 1;
    d->err_code = r;
    d->err_offset = err->offset;
    return r;
}

int demo_num_damaged(const demo_t *d) { return d->num_damage; }
const demo_damage *demo_damaged(const demo_t *d, int i)
{
    return i >= 0 && i < d->num_damage ? &d->damage[i] : NULL;
}

qd_err demo_rewind(demo_t *d, qd_error *err)
{
    if (d->refused)
        return QD_OK; /* the refusal comes from the first step, as after demo_open */
    d->stopped = 0;
    d->err_code = QD_OK;
    if (d->dec->clear)
        d->dec->clear(d->state);
    else
        memset(d->state, 0, d->dec->rewind_clear ? d->dec->rewind_clear : d->dec->state_size);
    return d->dec->init(d->state, d->data, d->len, err);
}

demo_format demo_get_format(const demo_t *d) { return d->dec->format; }
const char *demo_path(const demo_t *d) { return d->path; }
size_t demo_size(const demo_t *d) { return d->len; }
uint64_t demo_offset(const demo_t *d) { return d->dec->offset(d->state); }
int demo_protocol(const demo_t *d) { return d->dec->protocol(d->state); }

const char *demo_protocol_name(const demo_t *d)
{
    /* the variants a decoder reads beside its format's own numbers */
    static const struct {
        demo_format fmt;
        int protocol;
        const char *name;
    } names[] = {
        {DEMO_FMT_DM2, 35, "R1Q2"},
        {DEMO_FMT_DM2, 36, "Q2PRO"},
        {DEMO_FMT_DM2, 56, "KMQuake2"},
        {DEMO_FMT_DM2, 3434, "Q2PRO extended"},
        {DEMO_FMT_DM2, 3435, "Q2PRO extended v2"},
        {DEMO_FMT_DM2, 3436, "Q2PRO extended v2 with player fog"},
    };
    if (d->dec->variant && d->dec->variant(d->state))
        return d->dec->variant(d->state);
    int p = demo_protocol(d);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].fmt == d->dec->format && names[i].protocol == p)
            return names[i].name;
    return NULL;
}
int demo_ended(const demo_t *d) { return d->dec->ended(d->state); }

qd_err demo_check_end(const demo_t *d, qd_error *err)
{
    if (demo_ended(d))
        return QD_OK;
    if (d->container_note.code) { /* it ends where the gzip stream stopped giving bytes */
        if (err)
            *err = d->container_note;
        return d->container_note.code;
    }
    /* Which marker each format's recorder writes when recording stops: .dm2 a block of size
     * 0xFFFFFFFF [DM2 2.2], Quake III a block of sequence and size -1 [DM68]; Quake, and the
     * QuakeWorld client and server, a last svc_disconnect (Quake's CL_Stop_f, QuakeWorld's
     * "EndOfDemo"); Q2PRO's .mvd2 a block of length 0 (src/server/mvd/client.c
     * demo_load_message), found at the end of every real recording in ../shared/realdata. */
    const char *marker;
    switch (d->dec->format) {
    case DEMO_FMT_DM2: marker = "the 0xFFFFFFFF end block"; break;
    case DEMO_FMT_DM3: marker = "the -1/-1 end block"; break;
    case DEMO_FMT_MVD2: marker = "the zero-length end block"; break;
    default: marker = "svc_disconnect, the last message of a whole recording"; break;
    }
    return qd_fail(err, QD_ERR_TRUNCATED, d->len,
                   "end marker missing: the file ends after a whole block without %s", marker);
}
size_t demo_state_size(const demo_t *d) { return d->dec->state_size; }
const void *demo_state(const demo_t *d) { return d->state; }
void demo_restore(demo_t *d, const void *state)
{
    memcpy(d->state, state, d->dec->state_size);
    d->stopped = 0; /* a saved state predates the end or the error */
    d->err_code = QD_OK;
}
