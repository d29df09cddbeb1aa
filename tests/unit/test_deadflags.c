/* test_deadflags.c: dead and gibbed bodies (CL_EF_DEAD / CL_EF_GIBBED) from QuakeWorld's
 * playerinfo DF_DEAD / DF_GIB and Quake II's pm_type, checked against the tests' own reading
 * of the same bytes (deadscan.h) on real demos, and the eye height cl_body_view gives them. */
#include <math.h>
#include <stdlib.h>

#include "../../src/demo/demo.h"
#include "../../src/timeline/timeline.h"
#include "../deadscan.h"
#include "../test.h"

static timeline_t *open_rel(const char *rel, uint8_t **bytes, size_t *len)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, rel))
        return NULL;
    *bytes = test_read_file(path, len);
    qd_error err;
    demo_t *d = *bytes ? demo_open(path, &err) : NULL;
    return d ? tl_open(d, 0, &err) : NULL;
}

/* The eye above a body's origin that cl_body_view gives at time t, or NAN when the entity
 * is not there; *flags gets its CL_EF_DEAD | CL_EF_GIBBED. */
static float eye_at(const cl_state *cl, int ent, double t, unsigned *flags)
{
    cl_entstate s;
    if (!cl_entity_at(cl, ent, t, &s, NULL, NULL))
        return NAN;
    float o[3], a[3];
    cl_body_view(cl, &s, o, a);
    *flags = s.flags & (CL_EF_DEAD | CL_EF_GIBBED);
    return o[2] - s.origin[2];
}

/* Every half second of a 2-on-2 .mvd, each player's body is dead, gibbed or alive as its
 * last playerinfo says; the eye is QW's V_CalcRefdef: gibbed 8, dead -16, else 22. */
TEST(deadflags_mvd_bodies_follow_df_dead_and_df_gib)
{
    const char *rel = "mvd/paradoks81-quakeworld_2on2_sr_vs_red_dm4_20260327-1259.mvd";
    uint8_t *bytes = NULL;
    size_t len = 0;
    timeline_t *tl = open_rel(rel, &bytes, &len);
    if (!tl) {
        free(bytes);
        SKIP("no realdata/mvd/paradoks81-quakeworld_2on2_sr_vs_red_dm4_20260327-1259.mvd");
    }
    int dead = 0, gibbed = 0, alive = 0, skipped = 0;
    /* off the millisecond grid of the blocks: no frame sits exactly at a sample */
    for (double t = 1.0003; t < 76.0 && !test_failed(); t += 0.5) {
        /* the state at t lerps towards the frame after t: a player whose bits change within
         * 0.1 s of t is no sample */
        uint8_t bits[32], before[32], after[32];
        CHECK(ds_mvd_dead_at(bytes, len, t, bits) > 0);
        ds_mvd_dead_at(bytes, len, t - 0.1, before);
        ds_mvd_dead_at(bytes, len, t + 0.1, after);
        const cl_state *cl = tl_state_at(tl, t, NULL);
        CHECK(cl != NULL);
        if (!cl)
            break;
        for (int slot = 0; slot < 4; slot++) {
            unsigned flags = 0;
            float eye = eye_at(cl, slot + 1, t, &flags);
            if (isnan(eye))
                continue;
            if (before[slot] != bits[slot] || after[slot] != bits[slot]) {
                skipped++;
                continue;
            }
            unsigned want = ((bits[slot] & DS_DEAD) ? CL_EF_DEAD : 0u) |
                            ((bits[slot] & DS_GIB) ? CL_EF_GIBBED : 0u);
            CHECK_EQ(flags, want);
            float want_eye = (bits[slot] & DS_GIB) ? 8.0f : (bits[slot] & DS_DEAD) ? -16.0f : 22.0f;
            CHECK(fabsf(eye - want_eye) < 1e-3f);
            gibbed += (bits[slot] & DS_GIB) != 0;
            dead += bits[slot] == DS_DEAD;
            alive += bits[slot] == 0;
        }
    }
    /* the match has deaths and gibs at these samples (both seen in the bytes) */
    CHECK(dead > 0);
    CHECK(gibbed > 0);
    CHECK(alive > dead + gibbed);
    CHECK(skipped < dead + gibbed);
    tl_close(tl);
    free(bytes);
}

/* The recorder's slot from a .dm2's first block: svc_serverdata (12), protocol, servercount,
 * the attract-loop byte, the game folder, then the 16-bit player slot [DM2 3.13]. */
static int dm2_player_slot(const uint8_t *d, size_t n)
{
    if (n < 4 + 1 + 9 || d[4] != 12)
        return -1;
    size_t i = 4 + 1 + 9;
    while (i < n && d[i])
        i++;
    if (n - i < 3)
        return -1;
    return (int16_t)(d[i + 1] | d[i + 2] << 8);
}

/* A Quake II duel recorded by a player who dies once (PM_DEAD) and is gibbed once (PM_GIB):
 * the recorder's body (entity slot + 1) carries the look while the player state says so;
 * the eye is PM_CheckDuck's viewheight: dead (ducked) -2, gibbed 8, else 22. */
TEST(deadflags_dm2_recorder_body_follows_pm_type)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    timeline_t *tl = open_rel("dm2/libq2_testdata_testduel.dm2", &bytes, &len);
    if (!tl) {
        free(bytes);
        SKIP("no realdata/dm2/libq2_testdata_testduel.dm2");
    }
    int slot = dm2_player_slot(bytes, len);
    CHECK_EQ(slot, 2); /* "player=2" in the header's bytes */
    ds_q2_run runs[8];
    int n = ds_q2_pm_runs(bytes, len, runs, 8);
    int seen_dead = 0, seen_gib = 0;
    for (int k = 0; k < n; k++) {
        if (runs[k].pm_type != 2 && runs[k].pm_type != 3)
            continue; /* PM_FREEZE (the intermission) is no death */
        int gib = runs[k].pm_type == 3;
        double mid = (runs[k].t0 + runs[k].t1) / 2 + 0.003;
        const cl_state *cl = tl_state_at(tl, mid, NULL);
        CHECK(cl != NULL);
        if (!cl)
            break;
        unsigned flags = 0;
        float eye = eye_at(cl, slot + 1, mid, &flags);
        CHECK(!isnan(eye));
        CHECK_EQ(flags, gib ? CL_EF_DEAD | CL_EF_GIBBED : (unsigned)CL_EF_DEAD);
        CHECK(fabsf(eye - (gib ? 8.0f : -2.0f)) < 1e-3f);
        /* a second before the run the player was alive */
        double before = runs[k].t0 - 1.0 + 0.003;
        cl = tl_state_at(tl, before, NULL);
        CHECK(cl != NULL);
        if (!cl)
            break;
        eye = eye_at(cl, slot + 1, before, &flags);
        CHECK_EQ(flags, 0u);
        CHECK(fabsf(eye - 22.0f) < 1e-3f);
        seen_dead += !gib;
        seen_gib += gib;
    }
    CHECK_EQ(seen_dead, 1);
    CHECK_EQ(seen_gib, 1);
    tl_close(tl);
    free(bytes);
}
