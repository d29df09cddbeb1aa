/* demo.h: the demo layer: format detection and one decoder interface for every game.
 *
 * A demo_t owns the file's bytes and one decoder's state. demo_step() decodes the next
 * block (one frame or less) and emits neutral updates into a cl_state. The decoder's state
 * is plain data of a fixed size, so the timeline can save and restore it with memcpy
 * (demo_save / demo_restore), which is what makes seeking work the same for every format. */
#ifndef QD_DEMO_H
#define QD_DEMO_H

#include <stddef.h>
#include <stdint.h>

#include "../client/cl.h"
#include "../common/err.h"

typedef enum demo_format {
    DEMO_FMT_UNKNOWN = 0,
    DEMO_FMT_DEM,   /* Quake .dem, protocol 15 and FitzQuake 666 */
    DEMO_FMT_QWD,   /* QuakeWorld client recording */
    DEMO_FMT_MVD,   /* QuakeWorld server multi-view recording */
    DEMO_FMT_DM2,   /* Quake II, protocol 34 */
    DEMO_FMT_DM3,   /* Quake III family, protocols 66..71 and Quake Live 73, 90, 91 */
    DEMO_FMT_MVD2,  /* Quake II Q2PRO / GTV multi-view demo, protocol 37 */
    DEMO_FMT_COUNT
} demo_format;

/* The short name used in `info --json`: "dem", "qwd", "mvd", "dm2", "mvd2"; Quake III demos are
 * "dm3" here and "dm_<protocol>" in `info` (see demo_describe_format). */
const char *demo_format_name(demo_format f);

/* A listener for `qdemo dump`: one call per decoded message. NULL when nobody listens, and
 * decoders then format nothing. */
typedef struct demo_trace {
    void *ctx;
    /* t: demo time of the open frame; block: block index; offset: byte offset of the
     * message in the file; name: the message's id name (e.g. "svc_time"); detail: its key
     * fields as text. */
    void (*msg)(void *ctx, double t, uint32_t block, uint64_t offset, const char *name,
                const char *detail);
} demo_trace;

/* What every decoder implements. `state` is decoder-owned plain data of state_size bytes,
 * holding everything it needs to continue, including the read position: restoring a copy
 * resumes the decode exactly there. The file bytes are passed on every call and never
 * stored in the state. */
typedef struct demo_decoder {
    const char *name;
    demo_format format;
    size_t state_size;
    /* How sure the decoder is that these bytes are its format: 0 no, 1 weak (extension
     * only), 2..9 content evidence, 10 certain. */
    int (*probe)(const uint8_t *data, size_t len, const char *filename);
    /* Set up state for a decode from the start. The state arrives zeroed (demo.c clears it,
     * so a fresh state's pages stay untouched until the decode needs them; a rewind clears
     * its first rewind_clear bytes, below, or the decoder's clear does). */
    qd_err (*init)(void *state, const uint8_t *data, size_t len, qd_error *err);
    /* Decode the next block. Returns QD_OK with *done = 0 after a block, QD_OK with
     * *done = 1 at the clean end of the demo, or an error (with err filled: byte offset and
     * reason). A decoder need not remember either: demo_step stops calling it after the
     * end or an error, and closes a client frame the error left open. */
    qd_err (*step)(void *state, const uint8_t *data, size_t len, cl_state *cl,
                   const demo_trace *trace, int *done, qd_error *err);
    /* The file offset the decoder has reached. */
    uint64_t (*offset)(const void *state);
    /* The protocol number read from the file (0 before it is known). */
    int (*protocol)(const void *state);
    /* 1 once the decode reached the recording's own end: the container's end marker (.dm2's
     * 0xFFFFFFFF block, Quake III's -1/-1 block, .mvd2's zero-length block) or, for the
     * formats without one (.dem, .qwd, .mvd), the svc_disconnect every engine's stop command writes last. */
    int (*ended)(const void *state);
    /* The container's framing, for decoding on past damage (NULL: no resync). What is at
     * byte pos: DEMO_BLOCK_NONE (no plausible block header), DEMO_BLOCK_CUT (a plausible
     * header whose block runs past the file's end), DEMO_BLOCK_WHOLE (a plausible block of
     * *size bytes, header included, inside the file) or DEMO_BLOCK_END (the end marker).
     * strict also asks the block's first bytes to look like its messages (for resync
     * points); without it only the framing counts (to walk over a damaged block). */
    int (*block_at)(const uint8_t *data, size_t len, uint64_t pos, int strict, uint64_t *size);
    /* Continue a decoder stopped by an error at block offset pos: clear the error and the
     * decoder's own open frame (demo.c has closed the client's), keep everything else
     * (precaches, baselines). */
    void (*resume)(void *state, uint64_t pos);
    /* What the file's variant is called when the protocol number alone does not say (Q2PRO's
     * extended-limits .mvd2, protocol 37 all), for `info`; NULL (no member, or its answer):
     * demo_protocol_name's own table. */
    const char *(*variant)(const void *state);
    /* How many bytes from the state's start a rewind zeroes (0: all of it). A decoder whose
     * state ends in big tables that its init resets itself, or that it never reads before
     * writing, names the part before them: a rewind then costs what the decode used, not
     * the tables' whole size. */
    size_t rewind_clear;
    /* Zero the state, as memset(state, 0, state_size) would, writing only what a decode may
     * have written (for demo_rewind: a big state then costs what was used). NULL: demo.c
     * clears it (rewind_clear bytes of it, or whole). */
    void (*clear)(void *state);
} demo_decoder;

enum { DEMO_BLOCK_NONE, DEMO_BLOCK_CUT, DEMO_BLOCK_WHOLE, DEMO_BLOCK_END };

/* A damaged byte range that decoding skipped: the block the error was in, up to the next
 * block that parses. `why` holds the error (its offset is where the damage was found). */
typedef struct demo_damage {
    uint64_t offset, length;
    qd_error why;
} demo_damage;

#define DEMO_MAX_DAMAGE 64         /* more damaged ranges than this: "too much damage" */
#define DEMO_RESYNC_WINDOW (1u << 20) /* how far past a damaged header a resync looks */

typedef struct demo demo_t;

/* Open a demo file: read it whole (capped at 1 GiB), unpack it if it is gzipped or a zip of
 * one demo, detect the format by content (the extension only breaks ties), set up its
 * decoder. NULL on failure with err filled. A file
 * of a known format in a version qdemo does not decode (the Quake II rerelease's protocol 2023,
 * say) still opens, so its format and protocol can be reported: its first demo_step
 * returns the QD_ERR_UNSUPPORTED error naming the version. */
demo_t *demo_open(const char *path, qd_error *err);
/* As demo_open with the file's bytes in memory (copied): a gzip stream or a zip holding one
 * demo is unpacked first (demo_unpack.h), the demo then named "path:member". */
demo_t *demo_open_file_mem(const char *path, const uint8_t *data, size_t len, qd_error *err);
/* The same from bytes in memory (copied). `name` is used for messages and the extension. */
demo_t *demo_open_mem(const char *name, const uint8_t *data, size_t len, qd_error *err);
/* The same with decoder dec, without detection (tests drive the layers above with a fake
 * decoder this way). */
demo_t *demo_open_with(const demo_decoder *dec, const char *name, const uint8_t *data,
                       size_t len, qd_error *err);
void demo_close(demo_t *d);

/* Decode the next block into cl. See demo_decoder.step. After the end every later call
 * returns QD_OK with *done = 1; after an error that is not skipped (below) a frame left
 * open in cl is closed and every later call returns the same error code and offset
 * ("decoder stopped by an earlier error"), until demo_rewind or demo_restore. Where the container frames its
 * blocks by length, a block whose data is damaged (bad data, cut short inside, over a
 * limit) is skipped: the decode resumes at the next block that parses (looking at most
 * DEMO_RESYNC_WINDOW bytes ahead), the range is recorded (demo_num_damaged) and QD_OK is
 * returned. It fails as before when no block follows (the file was cut), and with
 * QD_ERR_LIMIT "too much damage" past DEMO_MAX_DAMAGE ranges. */
qd_err demo_step(demo_t *d, cl_state *cl, const demo_trace *trace, int *done, qd_error *err);
/* Restart from the beginning (cl is not touched: reset it yourself). */
qd_err demo_rewind(demo_t *d, qd_error *err);

/* The damaged ranges met so far, in file order (replays after a seek add none twice). */
int demo_num_damaged(const demo_t *d);
const demo_damage *demo_damaged(const demo_t *d, int i);

demo_format demo_get_format(const demo_t *d);
const char *demo_path(const demo_t *d);
size_t demo_size(const demo_t *d);
uint64_t demo_offset(const demo_t *d);
int demo_protocol(const demo_t *d);
/* What the protocol number names when it is a variant of its format's own ("R1Q2", "Q2PRO
 * extended"), or the decoder's name for the file's variant (demo_decoder.variant: "Q2PRO
 * extended limits v2"), for `info`; NULL for the format's plain protocols. */
const char *demo_protocol_name(const demo_t *d);
/* Whether the decode has reached the recording's end marker (see demo_decoder.ended): a
 * demo that stops cleanly at a block boundary without it was cut there. */
int demo_ended(const demo_t *d);
/* After a decode that stopped cleanly: QD_OK when the end marker was read, else
 * QD_ERR_TRUNCATED with err saying "end marker missing" at the file's end. */
qd_err demo_check_end(const demo_t *d, qd_error *err);

/* The decoder state as bytes, for keyframes. demo_restore copies a saved state back; the
 * size must equal demo_state_size. */
size_t demo_state_size(const demo_t *d);
const void *demo_state(const demo_t *d);
void demo_restore(demo_t *d, const void *state);

/* The decoders, for tests and the fuzz targets. */
extern const demo_decoder demo_q1_decoder;  /* src/demo/q1.c */
extern const demo_decoder demo_qwd_decoder; /* src/demo/qw.c */
extern const demo_decoder demo_mvd_decoder; /* src/demo/qw.c */
extern const demo_decoder demo_q2_decoder;  /* src/demo/q2.c */
extern const demo_decoder demo_q3_decoder;  /* src/demo/q3.c */
extern const demo_decoder demo_mvd2_decoder; /* src/demo/mvd2.c */

#endif
