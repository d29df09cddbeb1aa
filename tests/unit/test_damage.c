/* test_damage.c: hostile and damaged demos (issue #9): the cost of `info`, detection of cut
 * and foreign files, end markers, and decoding on past a damaged block. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/app/app.h"
#include "../../src/demo/demo.h"
#include "../test.h"
#include "../testbuf.h"

/* ---- info's model list costs work per precache change, not per block ---- */

/* A FitzQuake demo: one serverinfo with nmodels precaches, then `blocks` one-byte blocks
 * (svc_nop). Quake .dem framing [DEM 6.2]: int32 size, 3 float angles, size bytes. */
static void fitz_many_blocks(gbuf *f, int nmodels, int blocks)
{
    gput(f, "-1\n", 3);
    gbuf m = {0};
    g8(&m, 11); /* svc_serverinfo */
    g32(&m, 666);
    g8(&m, 1);  /* maxclients */
    g8(&m, 0);
    gput(&m, "hostile", 8);
    gput(&m, "maps/x.bsp", 11);
    char name[32];
    for (int i = 2; i <= nmodels; i++) {
        int n = snprintf(name, sizeof name, "progs/m%d.mdl", i);
        gput(&m, name, (size_t)n + 1);
    }
    g8(&m, 0);  /* end of models */
    g8(&m, 0);  /* no sounds */
    g32(f, (uint32_t)m.len);
    for (int i = 0; i < 3; i++)
        gf32(f, 0);
    gput(f, m.p, m.len);
    free(m.p);
    for (int i = 0; i < blocks; i++) {
        g32(f, 1);
        for (int k = 0; k < 3; k++)
            gf32(f, 0);
        g8(f, 1); /* svc_nop */
    }
}

TEST(damage_info_models_linear)
{
    gbuf f = {0};
    fitz_many_blocks(&f, 2047, 20000);
    qd_error err;
    demo_t *d = demo_open_mem("hostile.dem", f.p, f.len, &err);
    free(f.p);
    CHECK(d);
    cl_state *cl = malloc(sizeof *cl);
    cl_reset(cl);
    app_models m = {0};
    int done = 0, steps = 0;
    qd_err r = QD_OK;
    while (!done && r == QD_OK && steps < 30000) {
        r = demo_step(d, cl, NULL, &done, &err);
        app_models_update(&m, cl);
        steps++;
    }
    CHECK_EQ(r, QD_OK);
    CHECK_EQ(steps, 20001 + 1); /* the serverinfo block, the nops, the clean end */
    /* One precache change (the serverinfo): the list is read once, never per block. */
    CHECK_MSG(m.rebuilds <= 1, "model list read %u times for 1 precache change", m.rebuilds);
    /* Precache slots 1..2047: the map (slot 1) and 2046 models, no "*N" among them. */
    CHECK_EQ(m.n, 2047);
    app_models_free(&m);
    free(cl);
    demo_close(d);
}

/* ---- a broken -p archive is named, not dropped in silence ---- */

/* Run a shell command with its stderr (stream 2) or stdout (1) in `out` (cap bytes); returns
 * the exit status. */
static int run_cmd(char *out, size_t cap, const char *cmd, int stream)
{
    char full[2048], path[600];
    snprintf(path, sizeof path, "%s/damage_cmd.txt", test_tmpdir());
    snprintf(full, sizeof full, "%s %d> %s", cmd, stream, path);
    int st = system(full);
    size_t len = 0;
    unsigned char *b = test_read_file(path, &len);
    size_t n = b ? (len < cap ? len : cap - 1) : 0;
    if (b)
        memcpy(out, b, n);
    out[n] = 0;
    free(b);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

TEST(damage_broken_pak_warns)
{
    if (access("build/qdemo", X_OK) != 0)
        SKIP("no qdemo binary");
    /* A PAK header [QUAKE PAK: "PACK", int32 dir offset, int32 dir length] whose 64-byte
     * directory at offset 12 lies past the 12-byte file. */
    char pak[600], cmd[2048];
    snprintf(pak, sizeof pak, "%s/broken.pak", test_tmpdir());
    FILE *f = fopen(pak, "wb");
    CHECK(f);
    fwrite("PACK\x0c\0\0\0\x40\0\0\0", 1, 12, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "build/qdemo info -p %s assets/smoothme.dem >/dev/null", pak);
    static char out[8192];
    /* The search path's -p archives are optional: warn and carry on (exit 0). */
    CHECK_EQ(run_cmd(out, sizeof out, cmd, 2), 0);
    CHECK_EQ(count_lines(out), 1);
    CHECK_MSG(strstr(out, "warning") && strstr(out, "broken.pak") && strstr(out, "offset 12"),
              "%.300s", out);
}

/* ---- detection by content: cut files keep their format ---- */

/* The format detected for bytes under a name, or DEMO_FMT_UNKNOWN when nothing opens. */
static demo_format detect(const char *name, const uint8_t *data, size_t len, qd_error *err)
{
    demo_t *d = demo_open_mem(name, data, len, err);
    if (!d)
        return DEMO_FMT_UNKNOWN;
    demo_format f = demo_get_format(d);
    demo_close(d);
    return f;
}

TEST(damage_cut_demos_keep_their_format)
{
    static const struct {
        const char *rel;
        demo_format fmt;
        const char *ext;
    } files[] = {
        {"dm_68/udt_osp_chat.dm_68", DEMO_FMT_DM3, "x.dm_68"},
        {"dm_66/udt_2001_Duel2_Quakecon.dm_66", DEMO_FMT_DM3, "x.dm_66"},
        {"dm2/libq2_testdata_testduel.dm2", DEMO_FMT_DM2, "x.dm2"},
        {"mvd2/libq2_testdata_test.mvd2", DEMO_FMT_MVD2, "x.mvd2"},
        {"qwd/paradoks81-quakeworld_slipgate-app_bps.qwd", DEMO_FMT_QWD, "x.qwd"},
        {"mvd/ezquake-source_manual_accel-1.mvd", DEMO_FMT_MVD, "x.mvd"},
        {"dem/lmpc_src_smoothme.dem", DEMO_FMT_DEM, "x.dem"},
        {"dem/quake-from-memory_demo1.dem", DEMO_FMT_DEM, "x.dem"},
    };
    static const size_t cuts[] = {1000, 3000, 20000};
    int tried = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        if (!test_realfile(path, sizeof path, files[i].rel))
            continue;
        size_t len = 0;
        uint8_t *data = test_read_file(path, &len);
        CHECK(data);
        qd_error err;
        CHECK_MSG(detect(files[i].ext, data, len, &err) == files[i].fmt, "%s whole", files[i].rel);
        for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
            if (cuts[k] >= len)
                continue;
            /* Both with the file's own extension and with none that means anything. */
            CHECK_MSG(detect(files[i].ext, data, cuts[k], &err) == files[i].fmt,
                      "%s cut at %zu", files[i].rel, cuts[k]);
            CHECK_MSG(detect("cut.bin", data, cuts[k], &err) == files[i].fmt,
                      "%s cut at %zu, no extension", files[i].rel, cuts[k]);
            tried++;
        }
        free(data);
    }
    if (!tried)
        SKIP("no real demos");
}

TEST(damage_truncated_q3_decodes_as_q3)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, "dm_68/udt_truncated.dm_68"))
        SKIP("no udt_truncated.dm_68");
    size_t len = 0;
    uint8_t *data = test_read_file(path, &len);
    CHECK(data);
    qd_error err;
    /* Under any name: the content says Quake III. */
    demo_t *d = demo_open_mem("truncated.dem", data, len, &err);
    free(data);
    CHECK(d);
    CHECK_EQ(demo_get_format(d), DEMO_FMT_DM3);
    cl_state *cl = malloc(sizeof *cl);
    cl_reset(cl);
    int done = 0;
    qd_err r = QD_OK;
    while (!done && r == QD_OK)
        r = demo_step(d, cl, NULL, &done, &err);
    CHECK(r != QD_OK);
    CHECK_EQ(err.code, QD_ERR_TRUNCATED);
    CHECK(cl->frame_count > 0);
    CHECK_EQ(demo_protocol(d), 68);
    free(cl);
    demo_close(d);
}

TEST(damage_q2_protocol_25_unsupported)
{
    /* A .dm2 block [DM2 2.2] holding a 3.00 serverdata: an id byte, then protocol 25
     * (Quake II 3.00, [DM2] table 3), servercount, gamedir, then the end marker. 3.00's
     * message ids differ from 3.05's, so the id is not 12 here. */
    buf m = {{0}, 0};
    put8(&m, 7);
    put32(&m, 25);
    put32(&m, 1);
    putstr(&m, "baseq2");
    put16(&m, 0);
    putstr(&m, "base1");
    buf f = {{0}, 0};
    put32(&f, (uint32_t)m.n);
    putbuf(&f, &m);
    put32(&f, 0xffffffffu);
    /* The demo opens as what it is (Quake II, protocol 25), and its first step refuses it;
     * the same bytes under another name too: the content still says Quake II. */
    static const char *const names[] = {"old.dm2", "old.bin"};
    for (int i = 0; i < 2; i++) {
        qd_error err;
        demo_t *d = demo_open_mem(names[i], f.b, f.n, &err);
        CHECK(d != NULL);
        CHECK_EQ(demo_get_format(d), DEMO_FMT_DM2);
        CHECK_EQ(demo_protocol(d), 25);
        static cl_state cl;
        cl_reset(&cl);
        int done = 0;
        CHECK_EQ(demo_step(d, &cl, NULL, &done, &err), QD_ERR_UNSUPPORTED);
        CHECK_MSG(strstr(err.msg, "Quake II demo, protocol 25 (Quake II 3.00") != NULL, "%s",
                  err.msg);
        demo_close(d);
    }
}

/* ---- the containers' block framing, walked here by hand ---- */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Start offsets of the file's blocks into ofs (at most cap); returns how many. The end
 * markers (.dm2's 0xFFFFFFFF block, Quake III's -1/-1 block) are not listed. Framing:
 * .dem [DEM 6.1-6.2]: a CD track line, then int32 size + 3 float angles + data; .qwd
 * [QWD 3]: float time, byte type (0: 36-byte usercmd + angles, 2: 8 bytes, 1: int32 size +
 * data); .mvd: byte time delta, byte type (low 3 bits: 2 = 8 bytes, 3 = int32 mask + int32
 * size + data, else int32 size + data); .dm2 [DM2 2.2]: int32 size + data; .mvd2: "MVD2",
 * then uint16 size + data (Q2PRO src/server/mvd/client.c demo_load_message); Quake III:
 * int32 sequence, int32 size, data. */
static int walk_blocks(demo_format fmt, const uint8_t *d, size_t len, size_t *ofs, int cap)
{
    size_t p = 0;
    int n = 0;
    if (fmt == DEMO_FMT_DEM) {
        while (p < len && d[p] != '\n')
            p++;
        p++;
    }
    if (fmt == DEMO_FMT_MVD2)
        p = 4; /* past "MVD2" */
    while (p < len && n < cap) {
        size_t size;
        if (fmt == DEMO_FMT_DEM) {
            size = 16 + (size_t)le32(d + p);
        } else if (fmt == DEMO_FMT_QWD) {
            int type = d[p + 4];
            size = type == 0 ? 41 : type == 2 ? 13 : 9 + (size_t)le32(d + p + 5);
        } else if (fmt == DEMO_FMT_MVD) {
            int kind = d[p + 1] & 7;
            size = kind == 2 ? 10 : kind == 3 ? 10 + (size_t)le32(d + p + 6)
                                              : 6 + (size_t)le32(d + p + 2);
        } else if (fmt == DEMO_FMT_DM2) {
            if (le32(d + p) == 0xffffffffu)
                break;
            size = 4 + (size_t)le32(d + p);
        } else if (fmt == DEMO_FMT_MVD2) {
            if (p + 2 > len || (d[p] | d[p + 1] << 8) == 0)
                break;
            size = 2 + (size_t)(d[p] | d[p + 1] << 8);
        } else {
            if (le32(d + p) == 0xffffffffu)
                break;
            size = 8 + (size_t)le32(d + p + 4);
        }
        if (size > len - p)
            break;
        ofs[n++] = p;
        p += size;
    }
    return n;
}

static const struct {
    const char *rel;
    demo_format fmt;
} damage_files[] = {
    {"dem/lmpc_src_smoothme.dem", DEMO_FMT_DEM},
    {"qwd/paradoks81-quakeworld_slipgate-app_bps.qwd", DEMO_FMT_QWD},
    {"mvd/ezquake-source_manual_accel-1.mvd", DEMO_FMT_MVD},
    {"dm2/libq2_testdata_testduel.dm2", DEMO_FMT_DM2},
    {"mvd2/libq2_testdata_test.mvd2", DEMO_FMT_MVD2},
    {"dm_68/udt_osp_chat.dm_68", DEMO_FMT_DM3},
};
#define NUM_DAMAGE_FILES (sizeof damage_files / sizeof damage_files[0])
#define MAX_BLOCKS 200000

/* Decode bytes to the end; returns the last error (QD_OK when the decode ended cleanly and
 * the end marker was read), with the frame count and last frame time. */
static qd_err decode_all(const char *name, const uint8_t *data, size_t len, uint32_t *frames,
                         double *last_time, demo_t **keep, qd_error *err)
{
    demo_t *d = demo_open_mem(name, data, len, err);
    if (!d)
        return err->code;
    cl_state *cl = malloc(sizeof *cl);
    cl_reset(cl);
    int done = 0;
    qd_err r = QD_OK;
    for (long guard = 0; !done && r == QD_OK && guard < 10000000; guard++)
        r = demo_step(d, cl, NULL, &done, err);
    if (r == QD_OK)
        r = demo_check_end(d, err);
    *frames = cl->frame_count;
    *last_time = cl->time;
    free(cl);
    if (keep)
        *keep = d;
    else
        demo_close(d);
    return r;
}

/* damage_files[i] read whole (caller frees), or NULL when the real data is absent. */
static uint8_t *load_damage_file(size_t i, size_t *len)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, damage_files[i].rel))
        return NULL;
    return test_read_file(path, len);
}

TEST(damage_cut_at_block_boundary_is_incomplete)
{
    int tried = 0;
    size_t *ofs = malloc((MAX_BLOCKS + 1) * sizeof *ofs);
    for (size_t i = 0; i < NUM_DAMAGE_FILES; i++) {
        size_t len = 0;
        uint8_t *data = load_damage_file(i, &len);
        if (!data)
            continue;
        int n = walk_blocks(damage_files[i].fmt, data, len, ofs, MAX_BLOCKS);
        CHECK(n > 10);
        uint32_t frames;
        double t;
        qd_error err;
        /* Whole, the recording ends with its marker. */
        CHECK_MSG(decode_all("x", data, len, &frames, &t, NULL, &err) == QD_OK, "%s: %s",
                  damage_files[i].rel, err.msg);
        /* Cut exactly where the middle block starts: every block whole, the marker gone. */
        size_t cut = ofs[n / 2];
        CHECK_MSG(decode_all("x", data, cut, &frames, &t, NULL, &err) == QD_ERR_TRUNCATED,
                  "%s cut at %zu", damage_files[i].rel, cut);
        CHECK_MSG(strstr(err.msg, "end marker missing") != NULL, "%s", err.msg);
        CHECK_EQ(err.offset, cut);
        CHECK(frames > 0);
        free(data);
        tried++;
    }
    free(ofs);
    if (!tried)
        SKIP("no real demos");
}

/* ---- a damaged block is skipped; decoding goes on at the next block ---- */

/* Where the block at ofs keeps its messages, and how many bytes they take: past the
 * headers of TEST walk_blocks, and for a .qwd game packet past its two sequence numbers.
 * 0 when the block carries no messages (.qwd dem_cmd/dem_set, .mvd dem_set). */
static size_t block_payload(demo_format fmt, const uint8_t *d, size_t ofs, size_t size,
                            size_t *skip)
{
    switch (fmt) {
    case DEMO_FMT_DEM: *skip = 16; break;
    case DEMO_FMT_QWD:
        if (d[ofs + 4] != 1 || le32(d + ofs + 9) == 0xffffffffu)
            return 0;
        *skip = 9 + 8;
        break;
    case DEMO_FMT_MVD: {
        int kind = d[ofs + 1] & 7;
        if (kind == 2)
            return 0;
        *skip = kind == 3 ? 10 : 6;
        break;
    }
    case DEMO_FMT_DM2: *skip = 4; break;
    case DEMO_FMT_MVD2: *skip = 2; break;
    default: *skip = 8; break;
    }
    return size > *skip + 4 ? size - *skip : 0;
}

TEST(damage_block_skipped_and_decode_goes_on)
{
    int tried = 0;
    size_t *ofs = malloc((MAX_BLOCKS + 1) * sizeof *ofs);
    for (size_t i = 0; i < NUM_DAMAGE_FILES; i++) {
        demo_format fmt = damage_files[i].fmt;
        size_t len = 0;
        uint8_t *data = load_damage_file(i, &len);
        if (!data)
            continue;
        int n = walk_blocks(fmt, data, len, ofs, MAX_BLOCKS);
        CHECK(n > 10);
        ofs[n] = len;
        /* The first block from the middle on that carries messages. */
        int k = n / 2;
        size_t skip = 0, pay = 0;
        while (k < n - 2 && (pay = block_payload(fmt, data, ofs[k], ofs[k + 1] - ofs[k], &skip)) == 0)
            k++;
        CHECK(pay > 0);
        uint32_t frames0, frames1;
        double t0, t1;
        qd_error err;
        CHECK_EQ(decode_all("x", data, len, &frames0, &t0, NULL, &err), QD_OK);
        /* Damage: every message byte of that block set to 0, svc_bad in all four games'
         * numbering (Quake III's Huffman-coded zeros decode to no valid message either). */
        memset(data + ofs[k] + skip, 0, pay);
        demo_t *d = NULL;
        qd_err r = decode_all("x", data, len, &frames1, &t1, &d, &err);
        CHECK(d);
        CHECK_MSG(demo_num_damaged(d) == 1, "%s: %d damaged ranges (%s)", damage_files[i].rel,
                  demo_num_damaged(d), err.msg);
        const demo_damage *g = demo_damaged(d, 0);
        CHECK_MSG(g->offset == ofs[k] && g->length == ofs[k + 1] - ofs[k],
                  "%s: damage %llu+%llu, block %zu+%zu", damage_files[i].rel,
                  (unsigned long long)g->offset, (unsigned long long)g->length, ofs[k],
                  ofs[k + 1] - ofs[k]);
        CHECK(g->why.offset >= ofs[k] && g->why.offset < ofs[k + 1]);
        /* Everything after the damage decodes: the end (marker included) is reached, and
         * the last frame is the undamaged file's. */
        CHECK_MSG(r == QD_OK, "%s: %s", damage_files[i].rel, err.msg);
        CHECK_MSG(t1 == t0 && frames1 + 2 >= frames0, "%s: %u frames to %.3f s, whole %u to %.3f",
                  damage_files[i].rel, frames1, t1, frames0, t0);
        demo_close(d);
        /* The command line: exit 2, complete false, the range in "damaged". */
        if (i == 0 && access("build/qdemo", X_OK) == 0) {
            char dpath[600], cmd[1400];
            snprintf(dpath, sizeof dpath, "%s/damaged.dem", test_tmpdir());
            FILE *f = fopen(dpath, "wb");
            CHECK(f);
            fwrite(data, 1, len, f);
            fclose(f);
            snprintf(cmd, sizeof cmd, "build/qdemo info --json %s 2>/dev/null", dpath);
            static char out[65536];
            CHECK_EQ(run_cmd(out, sizeof out, cmd, 1), 2);
            char want[100];
            snprintf(want, sizeof want, "\"damaged\": [{\"offset\": %zu, \"length\": %zu,",
                     ofs[k], ofs[k + 1] - ofs[k]);
            CHECK_MSG(strstr(out, want) != NULL, "%.400s", out);
            CHECK(strstr(out, "\"complete\": false") != NULL);
        }
        free(data);
        tried++;
    }
    free(ofs);
    if (!tried)
        SKIP("no real demos");
}

/* ---- resync is bounded: many damaged blocks end in "too much damage" ---- */

TEST(damage_too_much_damage)
{
    /* A .dem of a serverinfo block, then 100 pairs of whole blocks: one bad message (id 60:
     * no such server message), one svc_nop. */
    gbuf f = {0};
    fitz_many_blocks(&f, 2, 0);
    for (int i = 0; i < 2 * (DEMO_MAX_DAMAGE + 36); i++) {
        g32(&f, 1);
        for (int k = 0; k < 3; k++)
            gf32(&f, 0);
        g8(&f, i % 2 ? 1 : 60);
    }
    qd_error err;
    demo_t *d = demo_open_mem("bad.dem", f.p, f.len, &err);
    free(f.p);
    CHECK(d);
    cl_state *cl = malloc(sizeof *cl);
    cl_reset(cl);
    int done = 0, steps = 0;
    qd_err r = QD_OK;
    while (!done && r == QD_OK && steps < 1000) {
        r = demo_step(d, cl, NULL, &done, &err);
        steps++;
    }
    CHECK_EQ(r, QD_ERR_LIMIT);
    CHECK(strstr(err.msg, "too much damage") != NULL);
    CHECK_EQ(demo_num_damaged(d), DEMO_MAX_DAMAGE);
    /* Each damaged range is one 17-byte block, every other block from the first bad one. */
    CHECK_EQ(demo_damaged(d, 1)->offset - demo_damaged(d, 0)->offset, 34);
    CHECK_EQ(demo_damaged(d, 0)->length, 17);
    free(cl);
    demo_close(d);
}

/* A .qwd whose block times after the first 40 % of its blocks are set 5,000,000 s before
 * its first (the review's input): demo time holds where it was, as the other decoders keep
 * it, instead of running back (the duration was -5,000,000 s and render refused the demo).
 * The last good time is the file's own: the float of the last block left as it was. */
TEST(damage_qwd_time_never_runs_backwards)
{
    size_t len;
    uint8_t *d = load_damage_file(1, &len);
    if (!d)
        SKIP("no .qwd in the real data");
    size_t *ofs = malloc(MAX_BLOCKS * sizeof *ofs);
    CHECK(ofs != NULL);
    int n = ofs ? walk_blocks(DEMO_FMT_QWD, d, len, ofs, MAX_BLOCKS) : 0;
    CHECK(n > 10);
    if (n > 10) {
        float t0, tk, back;
        memcpy(&t0, d + ofs[0], 4);
        int k = n * 4 / 10;
        memcpy(&tk, d + ofs[k - 1], 4);
        back = t0 - 5e6f;
        for (int i = k; i < n; i++)
            memcpy(d + ofs[i], &back, 4);
        uint32_t frames;
        double last;
        qd_error err = {0};
        decode_all("back.qwd", d, len, &frames, &last, NULL, &err);
        CHECK_MSG(last >= (double)tk - (double)t0 - 1e-3, "last time %.3f, before %.3f", last,
                  (double)tk - (double)t0);
        CHECK(frames > 0);
    }
    free(ofs);
    free(d);
}

/* ---- the damaged block found where it is (review findings, 2026-12-02) ---- */

/* The damage list of data decoded whole: its count, and the first range's offset in *at. */
static int damage_at(const char *name, const uint8_t *data, size_t len, uint64_t *at)
{
    uint32_t frames;
    double last;
    qd_error err;
    demo_t *d = NULL;
    decode_all(name, data, len, &frames, &last, &d, &err);
    int n = d ? demo_num_damaged(d) : -1;
    *at = n > 0 ? demo_damaged(d, 0)->offset : 0;
    demo_close(d);
    return n;
}

/* damage_files[i] read whole (*len) with its blocks' offsets (*n of them, in ofs of
 * MAX_BLOCKS), or NULL when the real data is absent. */
static uint8_t *load_with_blocks(size_t i, size_t *len, size_t *ofs, int *n)
{
    uint8_t *d = load_damage_file(i, len);
    *n = d ? walk_blocks(damage_files[i].fmt, d, *len, ofs, MAX_BLOCKS) : 0;
    return d;
}

/* An .mvd frame of 65,537 blocks (dem_set's 10 bytes each, then 20 prints to all) whose
 * last block is an svc_bad (a dem_all of one 0 byte): one damaged range, that block. The
 * walk to the damaged block stopped after 65,536 blocks: a good dem_set was named the
 * damage and the blocks after it decoded twice (two ranges). Framing [walk_blocks]. */
TEST(damage_long_mvd_frame_names_its_block)
{
    size_t len;
    static size_t ofs[MAX_BLOCKS];
    int n, cut = -1;
    uint8_t *src = load_with_blocks(2, &len, ofs, &n);
    if (!src)
        SKIP("real data missing");
    for (int i = n / 2; i < n && cut < 0; i++)
        if (src[ofs[i]] != 0) /* a frame's first block: a time delta */
            cut = i;
    CHECK(cut > 0);
    if (cut <= 0) {
        free(src);
        return;
    }
    gbuf f = {0};
    gput(&f, src, ofs[cut]);
    for (int i = 0; i < 65536; i++) {
        const uint8_t set[10] = {i ? 0 : 5, 2, 1, 0, 0, 0, 1, 0, 0, 0};
        gput(&f, set, sizeof set);
    }
    for (int k = 0; k < 20; k++) {
        char text[16];
        int tl = snprintf(text, sizeof text, "PRINT%02d\n", k) + 1;
        const uint8_t head[8] = {0, 6, (uint8_t)(tl + 2), 0, 0, 0, 8, 2}; /* svc_print 2 */
        gput(&f, head, sizeof head);
        gput(&f, text, (size_t)tl);
    }
    const size_t bad = f.len;
    const uint8_t svc_bad[7] = {0, 6, 1, 0, 0, 0, 0};
    gput(&f, svc_bad, sizeof svc_bad);
    gput(&f, src + ofs[cut], len - ofs[cut]);
    uint64_t at = 0;
    int damaged = damage_at("long.mvd", f.p, f.len, &at);
    CHECK_EQ(damaged, 1);
    CHECK_MSG(at == bad, "damage at %llu, the bad block at %zu", (unsigned long long)at, bad);
    free(f.p);
    free(src);
}

/* A Quake III message one byte short (its length shrunk to match: the framing whole) runs
 * past its end: the damage is that block, not the next (its end, where the error was
 * placed, is the next block's start, and a good block was skipped for it). The first of
 * the file's middle blocks whose cut the decoder notices. */
TEST(damage_q3_message_past_its_end_names_its_block)
{
    size_t len;
    static size_t ofs[MAX_BLOCKS];
    int n, tried = 0, found = 0;
    uint8_t *src = load_with_blocks(5, &len, ofs, &n);
    if (!src)
        SKIP("real data missing");
    uint8_t *cutf = malloc(len);
    CHECK(cutf);
    for (int i = n / 2; cutf && i + 1 < n && !found && tried < 50; i++, tried++) {
        size_t p = ofs[i], msg = le32(src + p + 4);
        if (msg < 2)
            continue;
        /* the bytes up to the block, its header with length - 1, its message less its last
         * byte, the rest */
        memcpy(cutf, src, p + 4);
        uint32_t m1 = (uint32_t)msg - 1;
        const uint8_t l[4] = {(uint8_t)m1, (uint8_t)(m1 >> 8), (uint8_t)(m1 >> 16),
                              (uint8_t)(m1 >> 24)};
        memcpy(cutf + p + 4, l, 4);
        memcpy(cutf + p + 8, src + p + 8, m1);
        memcpy(cutf + p + 8 + m1, src + p + 8 + msg, len - (p + 8 + msg));
        uint64_t at = 0;
        int damaged = damage_at("cut.dm_68", cutf, len - 1, &at);
        if (damaged <= 0)
            continue; /* this block's last byte held nothing read */
        found = 1;
        CHECK_EQ(damaged, 1);
        CHECK_MSG(at == p, "block %d at %zu cut: damage at %llu", i, p, (unsigned long long)at);
    }
    CHECK_MSG(found, "no cut noticed in %d blocks", tried);
    free(cutf);
    free(src);
}
