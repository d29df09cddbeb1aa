/* test_keyframes.c: the timeline's default keyframes, placed by decoded bytes (512 KiB
 * apart, 128 KiB for Quake III; none before the first) and packed: how many a real demo gets, and that a
 * seek restoring one gives the very bytes playing through gives. */
#include <stdlib.h>
#include <string.h>

#include "../../src/timeline/pack.h"
#include "../../src/timeline/timeline.h"
#include "../test.h"

/* timeline.c's TL_KEY_SPACING, and TL_KEY_SPACING_Q3 for Quake III's slower decoder */
#define SPACING (512u << 10)
#define SPACING_Q3 (128u << 10)

/* Open path twice: a timeline with the default keyframes, and a plain decoder. */
static void check_file(const char *rel)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, rel))
        return;
    size_t size = 0;
    unsigned char *bytes = test_read_file(path, &size);
    free(bytes);
    qd_error err;
    demo_t *d1 = demo_open(path, &err), *d2 = demo_open(path, &err);
    CHECK(d1 && d2);
    timeline_t *seek = tl_open(d1, 0, &err), *play = tl_open(d2, 0, &err);
    CHECK(seek && play);
    if (!seek || !play) {
        tl_close(seek);
        tl_close(play);
        return;
    }
    /* One keyframe each time SPACING more bytes have been decoded, at a block boundary at
     * or past it (a block is under 64 KiB in every format): none in a smaller file. */
    size_t spacing = strncmp(rel, "dm_", 3) == 0 ? SPACING_Q3 : SPACING;
    int k = tl_num_keyframes(seek);
    CHECK_MSG(k <= (int)(size / spacing), "%s: %d keyframes in %zu bytes", rel, k, size);
    CHECK_MSG(k >= (int)(size / (spacing + 65536)) - 1, "%s: %d keyframes in %zu bytes", rel,
              k, size);

    /* Seeks back and forth (each restores a keyframe or decodes from the start) against
     * one play-through: the client state's keyframe part is byte-identical. */
    double t0 = tl_start(play), t1 = tl_end(play);
    enum { N = 16 };
    double times[N];
    for (int i = 0; i < N; i++)
        times[i] = t0 + (t1 - t0) * (i + 0.5) / N;
    cl_state *want = malloc(N * sizeof *want);
    CHECK(want);
    if (!want)
        return;
    for (int i = 0; i < N; i++) {
        const cl_state *cl = tl_state_at(play, times[i], &err);
        CHECK(cl);
        if (cl)
            memcpy(&want[i], cl, sizeof *cl);
    }
    for (int j = 0; j < N; j++) {
        int i = (j * 11 + 5) % N;
        const cl_state *cl = tl_state_at(seek, times[i], &err);
        CHECK(cl);
        if (cl)
            CHECK_MSG(memcmp(cl, &want[i], CL_KEYFRAME_BYTES) == 0,
                      "%s: the state at %.3f differs after a seek", rel, times[i]);
    }
    free(want);
    tl_close(seek);
    tl_close(play);
}

TEST(keyframes_by_decoded_bytes_and_exact_seeks)
{
    static const char *const files[] = {
        /* the counts check_file allows: size / spacing at most, size / (spacing + a block's
         * 64 KiB) - 1 at least */
        "dm_68/udt_baseq3_1_map_2_matches.dm_68",                    /* 650 KB: 2 to 4 */
        "dm_66/udt_2001_Duel2_Quakecon.dm_66", /* 1.1 MB: 4 to 8, restored in any order */
        "mvd/mvdparser_duel_equ_vs_kaboom_povdmm4_20240422-1038.mvd", /* 703 KB: 0 or 1 */
        "dem/quake-from-memory_demo1.dem",
        "dm2/libq2_testdata_testduel.dm2", /* 277 KB: none, seeks decode from the start */
        "librequake/dem/librequake_demo1.dem",
    };
    char path[1024];
    int have = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (!test_realfile(path, sizeof path, files[i]))
            continue;
        have++;
        check_file(files[i]);
    }
    if (!have)
        SKIP("none of the demos in realdata");
}

/* The packing by hand: 4 words [0, A, B, 0] are a record (1 zero word, 2 literal words) and
 * its 16 bytes, then a record (1 zero word, 0 literal): 8 + 16 + 8 = 32 bytes. Unpacking
 * into a dirty buffer gives the zeros back. */
TEST(keyframes_pack_runs_by_hand)
{
    uint64_t src[4] = {0, 0x1122334455667788ull, 0x99, 0};
    uint8_t packed[128], out[32];
    size_t n = tl_pack((const uint8_t *)src, sizeof src, packed);
    CHECK_EQ(n, 32);
    uint32_t rec[2];
    memcpy(rec, packed, 8);
    CHECK(rec[0] == 1 && rec[1] == 2);
    CHECK(memcmp(packed + 8, &src[1], 16) == 0);
    memcpy(rec, packed + 24, 8);
    CHECK(rec[0] == 1 && rec[1] == 0);
    memset(out, 0xee, sizeof out);
    CHECK(tl_unpack(packed, n, out, sizeof out));
    CHECK(memcmp(out, src, sizeof src) == 0);
    /* damaged: cut inside a record or its literals, a run past the end, too short a result */
    CHECK(!tl_unpack(packed, 4, out, sizeof out));
    CHECK(!tl_unpack(packed, 20, out, sizeof out));
    CHECK(!tl_unpack(packed, n, out, 24));
    CHECK(!tl_unpack(packed, 24, out, sizeof out));
    rec[0] = 0xffffffffu;
    memcpy(packed, rec, 4);
    CHECK(!tl_unpack(packed, n, out, sizeof out));
}

/* Round trips of patterns, each within tl_pack_bound: all zero, none zero, alternating
 * (the worst case), and runs of every length up to 9 words. */
TEST(keyframes_pack_round_trips)
{
    enum { W = 257 };
    uint64_t src[W], back[W];
    uint8_t *packed = malloc(tl_pack_bound(sizeof src));
    CHECK(packed);
    if (!packed)
        return;
    for (int pattern = 0; pattern < 4; pattern++) {
        /* pattern 3: a zero run of 1 word, a literal run of 1, then of 2 and 2, ... up to 9
         * and 9, again from 1 */
        int len = 1, at = 0, zero_run = 1;
        for (int i = 0; i < W; i++) {
            uint64_t v = 0x0101010101010101ull * (uint64_t)(i % 251 + 1);
            int zero = pattern == 0 ? 1 : pattern == 1 ? 0 : pattern == 2 ? i % 2 : zero_run;
            src[i] = zero ? 0 : v;
            if (++at == len) { /* this run is over: the other kind, a word longer each pair */
                at = 0;
                len += !zero_run;
                len = len > 9 ? 1 : len;
                zero_run = !zero_run;
            }
        }
        size_t n = tl_pack((const uint8_t *)src, sizeof src, packed);
        CHECK(n <= tl_pack_bound(sizeof src));
        memset(back, 0x5a, sizeof back);
        CHECK(tl_unpack(packed, n, (uint8_t *)back, sizeof back));
        CHECK_MSG(memcmp(back, src, sizeof src) == 0, "pattern %d", pattern);
    }
    free(packed);
}
