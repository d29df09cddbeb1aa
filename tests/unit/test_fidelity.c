/* test_fidelity.c: the fidelity measure (tests/fid/) on hand-made images, and qdemo against
 * reference frames from the real engines kept in tests/data/fidelity/ (see its README.md). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/render/render.h"
#include "../fid/fid.h"
#include "../test.h"

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-6)

TEST(fidelity_ncc_by_hand)
{
    float a[4] = {1, 2, 3, 4}, twice[4] = {2, 4, 6, 8}, rev[4] = {4, 3, 2, 1},
          ends[4] = {1, 0, 0, 1}, flat3[4] = {3, 3, 3, 3}, flat5[4] = {5, 5, 5, 5};
    CHECK(NEAR(fid_ncc(a, twice, 4), 1.0));  /* a gain changes nothing */
    CHECK(NEAR(fid_ncc(a, rev, 4), -1.0));
    /* deviations (-1.5 -0.5 0.5 1.5) . (0.5 -0.5 -0.5 0.5) = -0.75 + 0.25 - 0.25 + 0.75 */
    CHECK(NEAR(fid_ncc(a, ends, 4), 0.0));
    /* (1 2 3 4) against (1 0 0 0): deviations . (0.75 -0.25 -0.25 -0.25) = -1.5;
     * |a dev|^2 = 5, |b dev|^2 = 0.75: -1.5 / sqrt(3.75) */
    float first[4] = {1, 0, 0, 0};
    CHECK(NEAR(fid_ncc(a, first, 4), -1.5 / sqrt(3.75)));
    CHECK(NEAR(fid_ncc(flat3, flat3, 4), 1.0));
    CHECK(NEAR(fid_ncc(flat3, flat5, 4), 0.0));
    CHECK(NEAR(fid_ncc(a, flat5, 4), 0.0));
    CHECK(NEAR(fid_mean(a, 4), 2.5));
}

TEST(fidelity_downscale_and_luma_by_hand)
{
    /* 9 x 5, value = x + 10 y: two 4x4 blocks; the 9th column and 5th row are dropped.
     * Block 0 mean: x 0..3 -> 1.5, y 0..3 -> 15: 16.5; block 1: 5.5 + 15 = 20.5 */
    float y[45], out[2];
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 9; i++)
            y[j * 9 + i] = (float)(i + 10 * j);
    fid_downscale(y, 9, 5, 4, out);
    CHECK(NEAR(out[0], 16.5));
    CHECK(NEAR(out[1], 20.5));
    rast_fb *fb = rast_fb_new(3, 1);
    CHECK(fb != NULL);
    fb->color[0] = rast_rgb(255, 0, 0);
    fb->color[1] = rast_rgb(0, 0, 255);
    fb->color[2] = rast_rgb(255, 255, 255);
    float l[3];
    fid_luma_fb(fb, l);
    rast_fb_free(fb);
    CHECK(fabs(l[0] - 0.299 * 255) < 1e-3); /* BT.601 weights */
    CHECK(fabs(l[1] - 0.114 * 255) < 1e-3);
    CHECK(fabs(l[2] - 255) < 1e-3);
}

TEST(fidelity_frames_csv_layouts_and_damage)
{
    static const char ez[] =
        "name,shot,engine_clock_s,cls_demotime_s,t_rel_s,sim_origin_x,sim_origin_y,"
        "sim_origin_z,pitch,yaw,roll\n"
        "t02000,41,3.399999,3.466982,1.999999,-438.375,130.75,32,0,264.375,0\r\n";
    static const char oa[] = "name,avi_frame,t_rel_ms\nt02500,49,2500\nt03000,59,3000\n";
    fid_frame f[4];
    qd_error err;
    CHECK_EQ(fid_frames_parse(ez, sizeof ez - 1, f, 4, &err), 1);
    CHECK_STR(f[0].name, "t02000");
    CHECK(f[0].has_pose && NEAR(f[0].t_rel, 1.999999));
    CHECK(NEAR(f[0].origin[0], -438.375) && NEAR(f[0].origin[2], 32) &&
          NEAR(f[0].angles[1], 264.375));
    CHECK_EQ(fid_frames_parse(oa, sizeof oa - 1, f, 4, &err), 2);
    CHECK(!f[1].has_pose && NEAR(f[1].t_rel, 3.0));
    CHECK_EQ(fid_frames_parse(oa, sizeof oa - 1, f, 1, &err), 1); /* capped */
    /* a short row: offset 24 is where it starts (after the 24-byte header line) */
    static const char bad[] = "name,avi_frame,t_rel_ms\nt02500,49\n";
    CHECK_EQ(fid_frames_parse(bad, sizeof bad - 1, f, 4, &err), -1);
    CHECK_EQ(err.offset, 24);
    static const char name[] = "name,avi_frame,t_rel_ms\n../x,1,2\n";
    CHECK_EQ(fid_frames_parse(name, sizeof name - 1, f, 4, &err), -1);
    CHECK_EQ(fid_frames_parse("x,y\n", 4, f, 4, &err), -1);
    CHECK_EQ(fid_frames_parse("", 0, f, 4, &err), -1);
}

/* A game folder name in the scratch area holding n real-data files, linked as
 * files[i][0] (a path in the game) to files[i][1] (a path in the real data). */
static const char *game_with(const char *name, const char *const files[][2], int n, char *dir,
                             size_t cap)
{
    snprintf(dir, cap, "%s/%s", test_tmpdir(), name);
    mkdir(dir, 0777);
    for (int i = 0; i < n; i++) {
        char rel[1024], real[PATH_MAX], link[1300];
        if (!test_realfile(rel, sizeof rel, files[i][1]) || !realpath(rel, real))
            return NULL;
        snprintf(link, sizeof link, "%s/%s", dir, files[i][0]);
        char *slash = strrchr(link, '/');
        *slash = 0;
        mkdir(link, 0777);
        *slash = '/';
        unlink(link);
        if (symlink(real, link) != 0)
            return NULL;
    }
    return dir;
}

/* Run job (mode, demo, search path and reference set filled in) and print its scores. */
static int scores(const char *what, fid_job *job, fid_result *r)
{
    qd_error err;
    job->engine_pose = 1;
    if (fid_run(job, r, &err) != QD_OK) {
        fprintf(stderr, "    %s\n", err.msg);
        return -1;
    }
    fprintf(stderr, "    %s %s: %d frames, ncc %.4f, luma ratio %.4f\n", what,
            job->mode == R_MODE_FLAT ? "flat" : "textured", r->frames, r->ncc, r->luma_ratio);
    return 1;
}

/* A Quake job: the demo (a path in the real data) over LibreQuake's id1 (palette, colormap,
 * player and items) and a game folder name of n real-data files (game_with). 0 when the
 * real data is missing. */
static int quake_job(fid_job *job, const char *name, const char *const files[][2], int n,
                     const char *demo_rel, char game[1100], char demo[1024], char id1[1024])
{
    if (!game_with(name, files, n, game, 1100) || !test_realfile(demo, 1024, demo_rel) ||
        !test_realfile(id1, 1024, "librequake/id1/gfx.wad"))
        return 0;
    id1[strlen(id1) - strlen("/gfx.wad")] = 0;
    memset(job, 0, sizeof *job);
    job->demo = demo;
    job->paks[job->num_paks++] = id1;
    job->paks[job->num_paks++] = game;
    job->mode = R_MODE_TEXTURED;
    return 1;
}

/* qdemo's frames of vektar's demo1.dem against ezQuake's (tests/data/fidelity/quake): the
 * map and vektar's two models from the real data. 0 when the real data is missing. */
static int quake_scores(int mode, fid_result *r)
{
    static const char *const files[][2] = {
        {"maps/bg.bsp", "bsp/vektar_maps_bg.bsp"},
        {"progs/statue.mdl", "mdl/vektar_progs_statue.mdl"},
        {"progs/quaddama.mdl", "mdl/vektar_progs_quaddama.mdl"},
    };
    static char game[1100], demo[1024], id1[1024];
    fid_job job;
    if (!quake_job(&job, "fid-vektar", files, 3, "dem/vektar_demo1.dem", game, demo, id1))
        return 0;
    job.ref_dir = "tests/data/fidelity/quake";
    job.mode = mode;
    return scores("quake", &job, r);
}

TEST(fidelity_quake_correlation_against_ezquake)
{
    fid_result tex, flat;
    int ok = quake_scores(R_MODE_TEXTURED, &tex);
    if (!ok)
        SKIP("vektar demo, map or LibreQuake data missing");
    CHECK(ok > 0);
    CHECK_EQ(tex.frames, 6);
    /* the engine's camera is the demo's: the eye within 0.01 units, angles within 0.01 deg */
    CHECK_EQ(tex.posed, 6);
    CHECK(tex.pose_dpos < 0.01 && tex.pose_dang < 0.01);
    CHECK_MSG(tex.ncc >= 0.85, "textured ncc %.4f under the target 0.85", tex.ncc);
    CHECK(quake_scores(R_MODE_FLAT, &flat) > 0);
    CHECK_MSG(tex.ncc > flat.ncc, "textured ncc %.4f not above flat %.4f", tex.ncc, flat.ncc);
}

TEST(fidelity_quake_mean_luma_against_ezquake)
{
    fid_result tex;
    int ok = quake_scores(R_MODE_TEXTURED, &tex);
    if (!ok)
        SKIP("vektar demo, map or LibreQuake data missing");
    CHECK(ok > 0);
    /* 0.50 before the skinned models and a light gain of 2 on walls and models, 1.02 after;
     * 0.84 since the walls' gain went back to 1 (2026-11-30: the lit maps of
     * fidelity_quakeworld_dm4_against_ezquake and a survey's e1m3 say ezQuake draws a
     * lightmap as the software renderer does). These frames are a statue over its dark
     * pedestal, every face of the map lit by style 2 (the slow pulse "abc..zyx..a"): the
     * pedestal's pixels are within 10 % of ezQuake's (0.90 .. 1.06, but 0.42 at 4.0 s,
     * the pulse near its dark end). ezQuake draws the statue the same in every frame, fully
     * lit; qdemo lights a model by the floor's samples times their styles' values, as
     * WinQuake's RecursiveLightPoint and ezQuake's own R_LightFromSurface do, and holds it
     * at its skin's colour as the GL engines clamp it: the statue matches ezQuake's within
     * 3 % in four frames and is 0.17 and 0.46 of it at 4.0 and 8.0 s, where the pulse is
     * dark (why ezQuake keeps it lit there: not found). Mean luma 0.79 so; the 10 %
     * is held on dm4's lit rooms (fidelity_quakeworld_dm4_against_ezquake). */
    CHECK_MSG(tex.luma_ratio >= 0.75 && tex.luma_ratio <= 1.10, "mean luma %.3f of ezQuake's",
              tex.luma_ratio);
}

/* qdemo's frames of a five-player QuakeWorld FFA on the GPL dm4 against ezQuake's
 * (tests/data/fidelity/quakeworld_dm4, README there): LibreQuake's id1 and the ammo and health
 * boxes as vektar's tiny start.bsp, as in the engine's pak. 0 when the real data is missing. */
static int quakeworld_scores(fid_result *r)
{
    static const char *const files[][2] = {
        {"maps/dm4.bsp", "bsp/id-maps-gpl_dm4_bsp29+appendedzip.bsp"},
        {"maps/b_bh10.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_bh25.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_bh100.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_nail0.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_nail1.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_rock0.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_rock1.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_shell0.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_shell1.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_batt0.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_batt1.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_explob.bsp", "bsp/vektar_maps_start.bsp"},
        {"maps/b_exbox2.bsp", "bsp/vektar_maps_start.bsp"},
    };
    static char game[1100], demo[1024], id1[1024];
    fid_job job;
    if (!quake_job(&job, "fid-qwdm4", files, 14, "mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd",
                   game, demo, id1))
        return 0;
    job.ref_dir = "tests/data/fidelity/quakeworld_dm4";
    /* ezQuake's demo clock for this MVD starts 0.05 s before qdemo's (README there) */
    job.shift = -0.05;
    return scores("quakeworld dm4", &job, r);
}

/* Six frames of lit dm4 rooms, one of them the followed player lying dead. Before
 * 2026-11-30: ncc 0.800, mean luma 1.89 of ezQuake's (walls lit at twice the software
 * renderer's scale; the dead view not rolled: 0.02 on that frame); after, 0.960 and 1.00;
 * 0.968 with models held at their skin's colour; 0.964 with models lit by dynamic lights
 * (ezQuake's reference draws its players fullbright: a light adds nothing there). */
TEST(fidelity_quakeworld_dm4_against_ezquake)
{
    fid_result r;
    int ok = quakeworld_scores(&r);
    if (!ok)
        SKIP("dm4, the MVD or LibreQuake data missing");
    CHECK(ok > 0);
    CHECK_EQ(r.frames, 6);
    CHECK_EQ(r.posed, 6);
    CHECK_MSG(r.ncc >= 0.90, "ncc %.4f", r.ncc);
    CHECK_MSG(fabs(r.luma_ratio - 1) <= 0.10, "mean luma %.3f of ezQuake's", r.luma_ratio);
}

/* qdemo's frames of an OpenArena demo against ioquake3's (ref_dir): the textures, shaders,
 * models (and maps) from Debian's OpenArena data (.ci/run installs it) where present
 * (*have_oa); with dm3, oa_dm3 from the real data too. 0 when that is missing. */
static int oa_scores(const char *what, const char *demo, const char *ref_dir, int dm3,
                     fid_result *r, int *have_oa)
{
    static const char *const files[][2] = {
        {"maps/oa_dm3.bsp", "bsp/openarena-081-maps_pak1-maps_oa_dm3_ibsp46.bsp"},
    };
    static char game[1100];
    if (dm3 && !game_with("fid-oa", files, 1, game, sizeof game))
        return 0;
    fid_job job;
    memset(&job, 0, sizeof job);
    job.demo = demo;
    const char *baseoa = "/usr/share/games/openarena/baseoa";
    *have_oa = access(baseoa, R_OK) == 0;
    if (*have_oa)
        job.paks[job.num_paks++] = baseoa;
    if (dm3)
        job.paks[job.num_paks++] = game;
    job.ref_dir = ref_dir;
    job.mode = R_MODE_TEXTURED;
    return scores(what, &job, r);
}

TEST(fidelity_quake3_against_ioquake3)
{
    fid_result r;
    int have_oa;
    int ok = oa_scores("quake3", "tests/data/fidelity/oa/oa_dm3_follow.dm_71",
                       "tests/data/fidelity/oa", 1, &r, &have_oa);
    if (!ok)
        SKIP("oa_dm3 missing from the real data");
    CHECK(ok > 0);
    CHECK(r.frames > 0);
    if (!have_oa)
        SKIP("no OpenArena data in /usr/share/games/openarena/baseoa: score reported only");
    /* issue 11 part 8: correlation 0.75 or more on Quake III, mean luma within 10 %. On
     * these four frames: 0.888 before the first-person weapon, which the reference lacks
     * (cg_drawGun 0) and fid.c then drew; 0.784 with it; 0.802 with cgame's view bob; 0.920
     * since fid.c leaves the weapon out as the reference does; 0.991 with shaders' second
     * layers (the water's filter stage darkens it as ioquake3 does); 0.995 with the
     * lightmaps shown up to twice the texture, as ioquake3 with its overbright bit. Held
     * at 0.98. */
    CHECK_MSG(r.ncc >= 0.98, "ncc %.3f", r.ncc);
    CHECK_MSG(fabs(r.luma_ratio - 1) <= 0.10, "mean luma %.3f of ioquake3's", r.luma_ratio);
}

/* oa_dm3's sky against ioquake3's (tests/data/fidelity/oa_sky): three frames looking up
 * through an opening at the sky shader textures/acc_dm3/fx_dm3sky, whose clouds
 * (sp_flatsky2.tga, rgbGen identity, tcMod scroll and scale) blend over a flat brown. Before
 * the sky was drawn as ioq3 maps its cloud layers (R_InitSkyTexCoords' sphere, each stage
 * with its tcMods on the server's clock, the hardware overbright bit) qdemo drew the first
 * stage alone, flat brown: ncc 0.920, mean luma 0.792 of ioquake3's; since, 0.998 and
 * 0.996. Held at 0.98 and 10 %. */
TEST(fidelity_quake3_sky_against_ioquake3)
{
    fid_result r;
    int have_oa;
    int ok = oa_scores("quake3 sky", "tests/data/fidelity/oa_sky/oa_dm3_skylook.dm_71",
                       "tests/data/fidelity/oa_sky", 1, &r, &have_oa);
    if (!ok)
        SKIP("oa_dm3 missing from the real data");
    if (!have_oa)
        SKIP("no OpenArena data in /usr/share/games/openarena/baseoa");
    CHECK(ok > 0);
    CHECK_EQ(r.frames, 3);
    CHECK_MSG(r.ncc >= 0.98, "ncc %.3f", r.ncc);
    CHECK_MSG(fabs(r.luma_ratio - 1) <= 0.10, "mean luma %.3f of ioquake3's", r.luma_ratio);
}

/* oa_bases3's sky against ioquake3's (tests/data/fidelity/oa_sky_bases3, three frames of a
 * demo recorded there looking up): textures/skies/moons1, a farbox (env/moon1) with
 * killsky_1.jpg added and intelredclouds.jpg filtering both: dark red in the game. Before
 * the sky's second stage was drawn qdemo showed the box and the added layer, purple: ncc
 * -0.39, mean luma 1.33 of ioquake3's; with it, 0.90 and 0.92; with the lightmaps shown as
 * ioquake3 shows them with its overbright bit (up to twice the texture, r_q3surf.c),
 * 0.991 and 0.986. Held at 0.98 and 10 %. The map is OpenArena's own (Debian's data). */
/* A test against ioquake3's frames of set `dir` (demo in it) on a map of OpenArena's own
 * data: frames, then the correlation at least ncc_min (and, OA_OWN_MAP_SCORES, the mean
 * luma within 10 %). */
#define OA_OWN_MAP_NCC(what, demo, dir, nframes, ncc_min)                                  \
    fid_result r;                                                                          \
    int have_oa;                                                                           \
    if (access("/usr/share/games/openarena/baseoa", R_OK) != 0)                            \
        SKIP("no OpenArena data in /usr/share/games/openarena/baseoa");                    \
    CHECK(oa_scores(what, dir "/" demo, dir, 0, &r, &have_oa) > 0);                        \
    CHECK_EQ(r.frames, nframes);                                                           \
    CHECK_MSG(r.ncc >= ncc_min, "ncc %.3f", r.ncc)
#define OA_OWN_MAP_SCORES(what, demo, dir, nframes, ncc_min)                               \
    OA_OWN_MAP_NCC(what, demo, dir, nframes, ncc_min);                                     \
    CHECK_MSG(fabs(r.luma_ratio - 1) <= 0.10, "mean luma %.3f of ioquake3's", r.luma_ratio)

TEST(fidelity_quake3_sky_bases3_against_ioquake3)
{
    OA_OWN_MAP_SCORES("quake3 sky bases3", "oa_bases3_skylook.dm_71",
                      "tests/data/fidelity/oa_sky_bases3", 3, 0.98);
}

/* oa_dm3's portal (tests/data/fidelity/oa_portal: two frames of a demo recorded there
 * looking at the teleporter by the mast, textures/acc_dm3/fx_portal with its
 * misc_portal_surface and misc_portal_camera) against ioquake3's classic renderer
 * (renderer_opengl1), which draws the view from the portal's camera in the surface, as id's
 * Quake III did; Debian's default renderer (opengl2) draws the surface white there, its
 * fog at full instead (README, Fidelity). Before qdemo drew portal views it showed the
 * stages over the dark behind the surface: ncc -0.17 on these frames; with the portal view,
 * 0.97. Held at 0.9. The mean luma is not held: this engine ran without the hardware
 * overbright bit ("GAMMA: hardware w/ 0 overbright bits": its world is drawn darker than
 * the overbright frames qdemo follows, 1.21 of it). */
TEST(fidelity_quake3_portal_against_ioquake3)
{
    fid_result r;
    int have_oa;
    int ok = oa_scores("quake3 portal", "tests/data/fidelity/oa_portal/oa_dm3_portallook.dm_71",
                       "tests/data/fidelity/oa_portal", 1, &r, &have_oa);
    if (!ok)
        SKIP("oa_dm3 missing from the real data");
    if (!have_oa)
        SKIP("no OpenArena data in /usr/share/games/openarena/baseoa");
    CHECK(ok > 0);
    CHECK_EQ(r.frames, 2);
    CHECK_MSG(r.ncc >= 0.9, "ncc %.3f", r.ncc);
}

/* oa_dm1's lava (tests/data/fidelity/oa_lava: two frames of a demo recorded there looking
 * down at the lava channel, textures/liquids/lavahell: "surfaceparm fog" with three stages,
 * the first opaque, two added) against ioquake3 (its default renderer, as oa_sky). Before,
 * qdemo drew no lava at all (a fog volume's side was never drawn): ncc 0.843, mean luma
 * 0.937 of ioquake3's; with its first two stages 0.885 and 0.902; with the third too 0.904
 * and 0.965. Held at 0.89 and 10 %. The map is OpenArena's own (Debian's data). */
TEST(fidelity_quake3_lava_against_ioquake3)
{
    OA_OWN_MAP_SCORES("quake3 lava", "oa_dm1_lavalook.dm_71", "tests/data/fidelity/oa_lava", 2,
                      0.89);
}

/* oa_bases3's pool (tests/data/fidelity/oa_water: two frames of a demo recorded there
 * looking along its edge, textures/liquids2/clear_ripple1_q3dm1light: three GL_DST_COLOR
 * GL_ONE sheets, an environment map added, and a fog volume under it) against ioquake3 (its
 * default renderer). Before (GL_DST_COLOR GL_ONE taken for an add, no fog) ncc 0.832; with
 * the fog pass alone 0.831; with GL_DST_COLOR GL_ONE drawn as it is (old + old x texel) and
 * the sheets after the second, 0.897; with the shader's last stage, the lightmap as a
 * filter, multiplying all that lies under the water at the end (the sheets unlit, as ioq3
 * draws them in order; 2026-11-30, the next session), 0.985 and luma 0.96. Held at 0.97
 * and 10 %. */
TEST(fidelity_quake3_water_against_ioquake3)
{
    OA_OWN_MAP_NCC("quake3 water", "oa_bases3_waterlook.dm_71", "tests/data/fidelity/oa_water",
                   2, 0.97);
    CHECK_MSG(fabs(r.luma_ratio - 1) <= 0.10, "mean luma %.3f of ioquake3's", r.luma_ratio);
}

/* oa_dm1's mirror (tests/data/fidelity/oa_mirror: two frames of a demo recorded in front of
 * it, textures/common/portal with an untargeted misc_portal_surface: the recorder's own
 * body in it) against ioquake3's classic renderer (as oa_portal's). Before qdemo drew
 * mirrors it showed the dark behind the panel: ncc 0.04; with the mirror, 0.92. Held at
 * 0.85; the mean luma is not (that renderer's frame is darker, no overbright bit: 1.66). */
TEST(fidelity_quake3_mirror_against_ioquake3)
{
    OA_OWN_MAP_NCC("quake3 mirror", "oa_dm1_mirrorlook.dm_71", "tests/data/fidelity/oa_mirror",
                   2, 0.85);
}

/* oa_ctf4ish from its spawn point (tests/data/fidelity/oa_ctf4ish: two frames of a demo
 * recorded there, looking over the floor at the platforms) against ioquake3 (its default
 * renderer, as oa_sky). Its floors (textures/sfx/xmetalfloor_wall_*: the floor, its
 * scrolling glow drawn opaque over it, the floor again blended by its own alpha, the
 * lightmap) and the platforms' trims (an environment map of rgbGen vertex covering the
 * stage before it, the texture added, the lightmap) are drawn from the stage that covers
 * the ones before (mdl_shader.c restart). Before: ncc 0.978, mean luma 1.091 of ioquake3's
 * (the floor's lines light where the game's glow shows, the trims' texture unlit); with
 * the restart but the floor's faces drawn as runs, 0.899 and 0.818 (the floor's second
 * layer failed the depth test far off: its triangles' depths are not the run polygon's);
 * without the trims' lightmap after their layers, 0.981 and 1.002; now 0.995 and 0.987.
 * Held at 0.99 and 5 %. The map is OpenArena's own (Debian's data). */
TEST(fidelity_quake3_covering_stage_against_ioquake3)
{
    OA_OWN_MAP_NCC("quake3 covering stage", "oa_ctf4ish_spawnlook.dm_71",
                   "tests/data/fidelity/oa_ctf4ish", 2, 0.99);
    CHECK_MSG(fabs(r.luma_ratio - 1) <= 0.05, "mean luma %.3f of ioquake3's", r.luma_ratio);
}

/* oa_dm6 from its spawn point (tests/data/fidelity/oa_dm6: two frames) against ioquake3
 * (its default renderer). Its walls (textures/base_trim/dark_tin2: the texture, a chrome
 * environment map of rgbGen oneMinusVertex covering it, the texture added, the lightmap)
 * take 255 less the vertex colour, nearly black where the vertices are lit white: qdemo
 * read oneMinusVertex as vertex, and the walls were pale and shining. Before: ncc 0.341,
 * mean luma 1.438 of ioquake3's; now 0.903 and 1.076 (the beams' chrome trims a little
 * bright yet). Held at 0.88 and 10 %. */
TEST(fidelity_quake3_one_minus_vertex_against_ioquake3)
{
    OA_OWN_MAP_SCORES("quake3 one minus vertex", "oa_dm6_spawnlook.dm_71",
                      "tests/data/fidelity/oa_dm6", 2, 0.88);
}

/* oa_ctf2 from its spawn point (tests/data/fidelity/oa_ctf2: two frames over its floor)
 * against ioquake3 (its default renderer). The floor (textures/clown/steel_r_shine: the
 * steel, a chrome shine added in a constant colour, the steel again as a filter, the
 * lightmap last) is the steel times itself times the lightmap: qdemo left out every layer
 * after the first, as the shine is one it cannot light (its own colour times the
 * lightmap), and the floor was twice as bright as the game's. Now the shine alone is left
 * out and the filter drawn, lit as the first layer. Before: ncc 0.856, mean luma 1.993 of
 * ioquake3's; now 0.968 and 0.956. Held at 0.95 and 10 %. */
TEST(fidelity_quake3_layers_after_an_unlit_add_against_ioquake3)
{
    OA_OWN_MAP_SCORES("quake3 layers after an unlit add", "oa_ctf2_spawnlook.dm_71",
                      "tests/data/fidelity/oa_ctf2", 2, 0.95);
}

/* hydronex from its spawn point (tests/data/fidelity/oa_hydronex: two frames, most of each
 * its sky) against ioquake3 (its default renderer). Its sky (textures/skies/moonsky: stars,
 * then clouds added, each of rgbGen const, no farbox) is the images times those dark teal
 * colours: qdemo drew the clouds' images as they are, grey. Before: ncc 0.455, mean luma
 * 2.652 of ioquake3's; with the colours at the half-scale frame's full value (as rgbGen
 * identity's), the sky's pixels exactly twice the game's (luma 1.54 over six frames); now
 * 0.982 and 0.987. Held at 0.95 and 5 %. */
TEST(fidelity_quake3_sky_of_constant_colours_against_ioquake3)
{
    OA_OWN_MAP_NCC("quake3 sky of constant colours", "hydronex_spawnlook.dm_71",
                   "tests/data/fidelity/oa_hydronex", 2, 0.95);
    CHECK_MSG(fabs(r.luma_ratio - 1) <= 0.05, "mean luma %.3f of ioquake3's", r.luma_ratio);
}

/* oa_dm3 looking into the void under its platforms (tests/data/fidelity/oa_void: one
 * frame) against ioquake3 (its default renderer). No surface covers the lower third of the
 * view; ioquake3 draws its sky there, because it draws the sky box over the rectangles, on
 * each of the box's sides, that its sky surfaces in view project to (tr_sky.c), under
 * everything else, not through the sky surfaces' own pixels: qdemo left those pixels at
 * the clear colour, black. Before: ncc 0.673, mean luma 0.773 of ioquake3's; now 0.949 and
 * 0.966. Held at 0.92 and 10 %. */
TEST(fidelity_quake3_sky_in_the_void_against_ioquake3)
{
    OA_OWN_MAP_SCORES("quake3 sky in the void", "oa_dm3_voidlook.dm_71",
                      "tests/data/fidelity/oa_void", 1, 0.92);
}

/* OpenArena's oa_dm4 after the recorder is gibbed (tests/data/fidelity/oa_death: two frames)
 * against ioquake3's classic renderer. cgame draws a dead player in third person, turned
 * to the killer (STAT_DEAD_YAW) and backed off 40 units (cg_view.c
 * CG_OffsetThirdPersonView); qdemo kept a first-person view rolled 40 degrees, and the
 * recorder's last pose stood in front of it once gibbed. Before: ncc -0.395; now 0.812.
 * Held at 0.7. */
TEST(fidelity_quake3_death_camera_against_ioquake3)
{
    OA_OWN_MAP_NCC("quake3 death camera", "oa_dm4_deathlook.dm_71",
                   "tests/data/fidelity/oa_death", 2, 0.7);
}

/* The same demo at 12.3 s (tests/data/fidelity/oa_rocket: one frame) against ioquake3's
 * classic renderer: a bot's rocket flies across the view, past a pillar. OpenArena's
 * unlagged cgame draws a missile one server frame (50 ms, sv_fps 20) ahead of the clock,
 * and rocket.md3's rocketFlare surface (deformVertexes autosprite) is a flare turned to
 * the eye: qdemo drew the rocket 45 units behind the game's and its flare edge-on, unseen.
 * Before: ncc 0.480; now 0.948. Held at 0.9. (The demo is oa_death's.) */
TEST(fidelity_quake3_rocket_led_and_flared_against_ioquake3)
{
    fid_result r;
    int have_oa;
    if (access("/usr/share/games/openarena/baseoa", R_OK) != 0)
        SKIP("no OpenArena data in /usr/share/games/openarena/baseoa");
    CHECK(oa_scores("quake3 rocket", "tests/data/fidelity/oa_death/oa_dm4_deathlook.dm_71",
                    "tests/data/fidelity/oa_rocket", 0, &r, &have_oa) > 0);
    CHECK_EQ(r.frames, 1);
    CHECK_MSG(r.ncc >= 0.9, "ncc %.3f", r.ncc);
}

/* OpenArena's oa_ctf4ish in a capture-the-flag game (tests/data/fidelity/oa_ctf: four
 * frames) against ioquake3's classic renderer. At 8.45 s the red flag on its base, a
 * teammate before it. The flag models name their shaders with an extension ("models/flags/r_flag.tga"),
 * which ioq3 strips before looking up (tr_shader.c R_FindShader, COM_StripExtension), so
 * the pole took the image, not its chrome; and cgame puts a base model under each team's
 * flag (cg_ents.c CG_TeamBase: ET_TEAM entities, in CTF, one-flag and elimination CTF),
 * which qdemo left out: that frame's ncc 0.961 -> 0.977. At 4.3, 19.8 and 23.55 s the
 * blue team's glowing edges (a first stage blending the lightmap onto what lies behind,
 * then the glow added: drawn as the glow, mdl_shader.c read_body) and the jump pads'
 * frames (red_launchpad: the frame blended before the lightmap stage, a glow after it;
 * the layers now drawn each lit or not by where the lightmap stage lies). The four:
 * 0.952 before these, 0.983 after. At 23.35 and 23.45 s the followed bot respawns after
 * falling into the void: cgame shows the older playerState whole until the respawn's
 * snapshot (CG_InterpolatePlayerState: no lerp into a teleport), then eases the eye up
 * from the dead one's height over 100 ms (CG_TransitionPlayerState's duckChange);
 * qdemo showed the new view from the snapshot before. The six: 0.720 before that, 0.985
 * now. Held at 0.975 (the correlation only: this renderer runs without the overbright
 * bit). */
TEST(fidelity_quake3_ctf_flag_and_base_against_ioquake3)
{
    OA_OWN_MAP_NCC("quake3 ctf flag", "oa_ctf4ish_flaglook.dm_71", "tests/data/fidelity/oa_ctf",
                   6, 0.975);
}

/* oa_dm7 from its spawn point (tests/data/fidelity/oa_dm7: one frame) against ioquake3 (its
 * default renderer). Its walls and floors (detailtest.shader: textures/gothic_wall/
 * streetbricks14 and others, the texture, the lightmap, then one or two detail images of
 * blendFunc GL_DST_COLOR GL_SRC_COLOR: the wall times twice the texel, d_stone and d_rock
 * brightening it by about a tenth each) were drawn without their detail stages (qdemo took
 * the blend for an inexact filter). Before: ncc 0.967, mean luma 0.787 of ioquake3's; now
 * 0.973 and 0.920. Held at 0.95 and 10 %. */
TEST(fidelity_quake3_detail_stages_against_ioquake3)
{
    OA_OWN_MAP_SCORES("quake3 detail stages", "oa_dm7_spawnlook.dm_71",
                      "tests/data/fidelity/oa_dm7", 1, 0.95);
}
