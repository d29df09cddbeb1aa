/* test_model_hostile.c: hostile models and maps against the loaders' memory bounds (issue #9):
 * no allocation sized from a file's count before the file is shown to hold the records, and
 * every count the loaders derive themselves capped. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/model/model.h"
#include "../test.h"
#include "../testbuf.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* The process's data size (VmData of /proc/self/status) in bytes, or 0 when unknown. */
static size_t data_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmData: %zu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

/* Load data as a sprite (spr set) or an alias model; returns the loader's error code. */
static qd_err load_model(int spr, const uint8_t *d, size_t n)
{
    qd_error err;
    qd_err e;
    if (spr) {
        mdl_sprite *s = NULL;
        e = mdl_sprite_load(d, n, "hostile.spr", NULL, &s, &err);
        mdl_sprite_free(s);
    } else {
        mdl_alias *m = NULL;
        e = mdl_alias_load(d, n, "hostile.mdl", NULL, &m, &err);
        mdl_alias_free(m);
    }
    return e;
}

/* load_model in a child whose data size may grow by at most headroom bytes, so a loader
 * that allocates what the file cannot back gets NULL from malloc. Returns the loader's
 * error code, or -1 when the child could not run or crashed. */
static int load_limited(int spr, const uint8_t *data, size_t len, size_t headroom)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        size_t now = data_size();
        struct rlimit rl = {now + headroom, now + headroom};
        if (!now || setrlimit(RLIMIT_DATA, &rl) != 0)
            _exit(255);
        _exit((int)load_model(spr, data, len));
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) == 255)
        return -1;
    return WEXITSTATUS(st);
}

/* An MDL header (84 bytes) with the given counts and a unit scale, then extra zero bytes. */
static uint8_t *mdl_header(uint32_t skins, uint32_t sw, uint32_t sh, uint32_t verts,
                           uint32_t tris, uint32_t frames, size_t extra, size_t *len)
{
    gbuf b = {0};
    gput(&b, "IDPO", 4);
    g32(&b, 6);
    for (int j = 0; j < 3; j++)
        gf32(&b, 1);
    for (int j = 0; j < 3; j++)
        gf32(&b, 0);
    gf32(&b, 10);
    for (int j = 0; j < 3; j++)
        gf32(&b, 0);
    g32(&b, skins), g32(&b, sw), g32(&b, sh);
    g32(&b, verts), g32(&b, tris), g32(&b, frames);
    g32(&b, 0), g32(&b, 0), gf32(&b, 1);
    for (size_t i = 0; i < extra; i++)
        g8(&b, 0);
    *len = b.len;
    return b.p;
}

TEST(model_mdl_allocates_only_what_the_file_holds)
{
#ifdef UNDER_ASAN
    SKIP("the address sanitizer reserves memory that a data limit would refuse");
#else
    static const struct {
        uint32_t skins, sw, sh, verts, tris, frames;
        size_t extra;
        const char *what;
    } cases[] = {
        /* one 2048x2048 skin (4 MB) in a file of 100 bytes more than its header */
        {1, 2048, 2048, 3, 1, 1, 100, "skin"},
        /* no skins, yet the skin size asks for 4 MB of pixels */
        {0, 2048, 2048, 3, 1, 1, 0, "skin size without skins"},
        /* the caps' worth of st verts (192 KB), triangles (512 KB) and frames */
        {0, 8, 8, 16384, 1, 1, 0, "st verts"},
        {0, 8, 8, 1, 32768, 1, 12, "triangles"},
        {0, 8, 8, 1, 1, 4096, 12 + 16, "frames"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t len;
        uint8_t *d = mdl_header(cases[c].skins, cases[c].sw, cases[c].sh, cases[c].verts,
                                cases[c].tris, cases[c].frames, cases[c].extra, &len);
        /* 64 KB is far below each claim and far above what the file itself needs. */
        int got = load_limited(0, d, len, 64 << 10);
        free(d);
        CHECK_MSG(got == QD_ERR_TRUNCATED, "%s: got %d, want %d (truncated)", cases[c].what, got,
                  (int)QD_ERR_TRUNCATED);
    }
#endif
}

TEST(model_spr_allocates_only_what_the_file_holds)
{
#ifdef UNDER_ASAN
    SKIP("the address sanitizer reserves memory that a data limit would refuse");
#else
    /* A header claiming the cap of 4096 frames (128 KB of frame records) and no frames. */
    gbuf b = {0};
    gput(&b, "IDSP", 4);
    g32(&b, 1), g32(&b, 0), gf32(&b, 8);
    g32(&b, 4), g32(&b, 4), g32(&b, MDL_SPRITE_MAX_FRAMES), gf32(&b, 0), g32(&b, 0);
    g32(&b, 0);
    int got = load_limited(1, b.p, b.len, 16 << 10);
    free(b.p);
    CHECK_MSG(got == QD_ERR_TRUNCATED, "got %d, want %d (truncated)", got, (int)QD_ERR_TRUNCATED);
#endif
}

/* An MDL of one vertex and one triangle whose two frames are groups of n0 and n1 poses. */
static uint8_t *mdl_two_groups(uint32_t n0, uint32_t n1, size_t *len)
{
    size_t hl;
    uint8_t *h = mdl_header(0, 8, 8, 1, 1, 2, 12 + 16, &hl);
    gbuf b = {0};
    gput(&b, h, hl);
    free(h);
    const uint32_t n[2] = {n0, n1};
    for (int f = 0; f < 2; f++) {
        g32(&b, 1), g32(&b, n[f]), g32(&b, 0), g32(&b, 0); /* group, count, bounds */
        for (uint32_t i = 0; i < n[f]; i++)
            gf32(&b, 0.1f * (float)(i + 1));
        for (uint32_t i = 0; i < n[f]; i++) {
            g32(&b, 0), g32(&b, 0);
            gput(&b, "pose\0\0\0\0\0\0\0\0\0\0\0", 16);
            g32(&b, 0x01020304);
        }
    }
    *len = b.len;
    return b.p;
}

TEST(model_mdl_poses_capped)
{
    /* Frame groups expand into poses; all groups together hold at most
     * MDL_ALIAS_MAX_FRAMES (4096): 4000 + 96 load, 4000 + 97 are refused. */
    size_t len;
    mdl_alias *m = NULL;
    qd_error err = {0};
    uint8_t *d = mdl_two_groups(4000, 96, &len);
    CHECK_MSG(mdl_alias_load(d, len, "poses", NULL, &m, &err) == QD_OK, "%s", err.msg);
    free(d);
    CHECK_EQ(m->num_poses, 4096);
    CHECK_EQ(m->frames[1].first_pose, 4000);
    CHECK_EQ(m->frames[1].num_poses, 96);
    mdl_alias_free(m);
    m = NULL;
    d = mdl_two_groups(4000, 97, &len);
    CHECK_EQ(mdl_alias_load(d, len, "poses", NULL, &m, &err), QD_ERR_LIMIT);
    free(d);
    CHECK(m == NULL);
}

/* Each header count past its cap, or 0 where Mod_LoadAliasModel refuses 0, is named at its
 * own byte (a review: byte 48 for any cap, 60 and 52 for any zero): the counts follow the
 * 48 bytes of ident, version, scale, origin, radius and eye, 4 bytes each (by hand: skins
 * 48, width 52, height 56, vertices 60, triangles 64, frames 68). */
TEST(model_mdl_header_fields_named_at_their_byte)
{
    for (int k = 0; k < 6; k++) {
        for (int zero = 0; zero < 2; zero++) {
            uint32_t f[6] = {1, 8, 8, 3, 1, 1};
            f[k] = zero ? 0 : 0x7fffffffu;
            if (zero && k == 0)
                continue; /* (no skins is a model) */
            size_t len;
            uint8_t *d = mdl_header(f[0], f[1], f[2], f[3], f[4], f[5], 0, &len);
            mdl_alias *m = NULL;
            qd_error err = {0};
            qd_err e = mdl_alias_load(d, len, "h.mdl", NULL, &m, &err);
            free(d);
            mdl_alias_free(m);
            CHECK_EQ(e, zero ? QD_ERR_BAD_DATA : QD_ERR_LIMIT);
            CHECK_MSG(err.offset == 48 + 4 * (uint64_t)k, "field %d zero %d: byte %llu (%s)", k,
                      zero, (unsigned long long)err.offset, err.msg);
        }
    }
}
