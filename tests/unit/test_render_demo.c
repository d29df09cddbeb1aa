/* test_render_demo.c: real demos on their real maps give full, varied, deterministic frames:
 * the sample (e1m1, every id model missing) and an .mvd on the GPL e1m7. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/app/player.h"
#include "../../src/app/world.h"
#include "../../src/output/out.h"
#include "../../src/render/r_local.h"
#include "../demo_world.h"
#include "../test.h"

/* A game folder in the scratch area holding maps/<map>.bsp, linked to a real-data BSP. */
static const char *game_dir_with(const char *map, const char *bsp_rel, char *dir, size_t cap)
{
    char rel[1024], bsp[PATH_MAX];
    if (!test_realfile(rel, sizeof rel, bsp_rel) || !realpath(rel, bsp))
        return NULL;
    snprintf(dir, cap, "%s/game-%s", test_tmpdir(), map);
    char maps[1200], link[1300];
    snprintf(maps, sizeof maps, "%s/maps", dir);
    mkdir(dir, 0777);
    mkdir(maps, 0777);
    snprintf(link, sizeof link, "%s/%s.bsp", maps, map);
    unlink(link);
    if (symlink(bsp, link) != 0)
        return NULL;
    return dir;
}

/* Render n frames spread over the demo and check each covers the screen with many colours;
 * returns the number of frames checked. */
static int check_frames(const char *demo, const char *paks, int n)
{
    qd_error err;
    app_opts o;
    app_world w;
    static player p;
    timeline_t *tl = demo_world(demo, paks, &o, &w, &p, 320, 240);
    if (!tl)
        return -1;
    rast_fb *fb = rast_fb_new(320, 240), *fb2 = rast_fb_new(320, 240);
    int checked = 0, few = 0;
    for (int k = 0; k < n; k++) {
        double t = tl_start(tl) + (tl_end(tl) - tl_start(tl)) * (k + 0.5) / n;
        const cl_state *cl = tl_state_at(tl, t, &err);
        app_world_update(&w, &o, cl);
        if (!w.assets || !r_assets_map(w.assets))
            break;
        r_camera cam;
        r_options opt;
        player_camera(&p, cl, t, &cam);
        player_options(&p, cl, &opt);
        /* holes show as the clear colour only where no texture is black: flat mode */
        opt.mode = R_MODE_FLAT;
        r_render(w.assets, cl, t, &cam, &opt, fb);
        r_render(w.assets, cl, t, &cam, &opt, fb2);
        if (memcmp(fb->color, fb2->color, 320 * 240 * 4) != 0)
            return -2;
        /* coverage: pixels not left at the clear colour (black); distinct colours */
        int covered = 0, distinct = 0;
        static uint32_t seen[4096];
        memset(seen, 0, sizeof seen);
        for (int i = 0; i < 320 * 240; i++) {
            uint32_t c = fb->color[i] & 0xffffffu;
            covered += c != 0;
            uint32_t h = (c * 2654435761u) >> 20;
            while (seen[h] && seen[h] != (c | 0x1000000u))
                h = (h + 1) & 4095;
            if (!seen[h]) {
                seen[h] = c | 0x1000000u;
                distinct++;
            }
        }
        /* every frame is whole (no holes to the clear colour); a close-up of one wall has
         * few colours (the players here often face one), so at most half the frames may */
        if (covered < 320 * 240 * 9 / 10) {
            fprintf(stderr, "    frame at %.2f: %d%% covered\n", t, covered * 100 / (320 * 240));
            return -3;
        }
        few += distinct < 20;
        checked++;
    }
    rast_fb_free(fb);
    rast_fb_free(fb2);
    app_world_free(&w);
    tl_close(tl);
    if (few * 2 > checked) {
        fprintf(stderr, "    %d of %d frames have under 20 colours\n", few, checked);
        return -4;
    }
    return checked;
}

TEST(render_sample_on_e1m1_with_models_missing)
{
    if (access("assets/smoothme.dem", R_OK) != 0)
        SKIP("run from the project root");
    CHECK_EQ(check_frames("assets/smoothme.dem", "assets", 8), 8);
}

TEST(render_overkill_mvd_on_e1m7)
{
    char demo[1024], dir[1024];
    if (!test_realfile(demo, sizeof demo, "mvd/ezquake-source_manual_overkill.mvd") ||
        !game_dir_with("e1m7", "bsp/id-maps-gpl_e1m7_bsp29+appendedzip.bsp", dir, sizeof dir))
        SKIP("no realdata overkill.mvd or e1m7 map");
    CHECK_EQ(check_frames(demo, dir, 10), 10);
}

TEST(render_mvd_on_dm4)
{
    char demo[1024], dir[1024];
    if (!test_realfile(demo, sizeof demo, "mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd") ||
        !game_dir_with("dm4", "bsp/id-maps-gpl_dm4_bsp29+appendedzip.bsp", dir, sizeof dir))
        SKIP("no realdata ffa mvd or dm4 map");
    CHECK_EQ(check_frames(demo, dir, 10), 10);
}

/* The recorded view shows its weapon: the sample at 7 s holds the shotgun (the view's
 * STAT_WEAPON names progs/v_shot.mdl, which assets/ holds), so with the gun on, pixels of
 * the lower middle change and the top rows, above the gun, do not; --no-gun's option gives
 * the frame without it, byte for byte; a camera away from the recorded view never draws it. */
TEST(render_sample_first_person_weapon)
{
    if (access("assets/smoothme.dem", R_OK) != 0 || access("assets/progs/v_shot.mdl", R_OK) != 0)
        SKIP("run from the project root");
    qd_error err;
    demo_t *d = demo_open("assets/smoothme.dem", &err);
    CHECK_MSG(d, "%s", err.msg);
    timeline_t *tl = tl_open(d, 0, &err);
    CHECK(tl);
    app_opts o;
    memset(&o, 0, sizeof o);
    o.paks[o.num_paks++] = "assets";
    app_world w;
    memset(&w, 0, sizeof w);
    static player p;
    player_init(&p, tl, 320, 240);
    const cl_state *cl = tl_state_at(tl, 7.0, &err);
    app_world_update(&w, &o, cl);
    const cl_stats *st = cl_stats_of(cl, -1);
    CHECK(st && st->gun_model > 0);
    CHECK(strcmp(cl->level.models[st->gun_model], "progs/v_shot.mdl") == 0);
    r_camera cam;
    r_options opt;
    player_camera(&p, cl, 7.0, &cam);
    player_options(&p, cl, &opt);
    CHECK_EQ(opt.gun, 1);
    rast_fb *gun = rast_fb_new(320, 240), *none = rast_fb_new(320, 240);
    r_render(w.assets, cl, 7.0, &cam, &opt, gun);
    p.no_gun = 1;
    player_options(&p, cl, &opt);
    CHECK_EQ(opt.gun, 0);
    r_render(w.assets, cl, 7.0, &cam, &opt, none);
    int top = 0, low = 0;
    for (int y = 0; y < 240; y++)
        for (int x = 0; x < 320; x++) {
            int diff = gun->color[y * 320 + x] != none->color[y * 320 + x];
            top += diff && y < 100;
            low += diff && y >= 180 && x >= 120 && x < 200;
        }
    CHECK_EQ(top, 0);
    CHECK(low > 500);
    p.no_gun = 0;
    p.camera = PLAYER_CAM_CHASE;
    player_options(&p, cl, &opt);
    CHECK_EQ(opt.gun, 0);
    rast_fb_free(gun);
    rast_fb_free(none);
    app_world_free(&w);
    tl_close(tl);
}

/* Quake's dynamic lights (WinQuake R_AddDynamicLights, cl_tent.c TE_EXPLOSION: radius 350,
 * shrinking 300 a second): the ffa MVD on dm4, `dump`: svc_temp_entity type=3
 * (TE_EXPLOSION) at 11.207 s, origin 383.4,-114.4,-312.1. Seen from 123 units west of it and
 * 62 up, 0.04 s later (radius 338), the lit walls and floor around it are brighter than in
 * the same state without the explosion in the effects log, and nowhere less red (green and
 * blue may fall where the light passes the ramp's top: the hue is kept, below); in
 * ezQuake's colour (QuakeWorld's client: its dlightcolor 100 50 10 for an explosion, in
 * 128ths, gl_colorlights 1), its red rising more than three times its blue, relatively, in
 * most lit pixels (a white light: in almost none). */
TEST(render_explosion_lights_the_walls)
{
    char demo[1024], dir[1024];
    if (!test_realfile(demo, sizeof demo, "mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd") ||
        !game_dir_with("dm4", "bsp/id-maps-gpl_dm4_bsp29+appendedzip.bsp", dir, sizeof dir))
        SKIP("no realdata ffa mvd or dm4 map");
    qd_error err;
    demo_t *d = demo_open(demo, &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    CHECK(tl);
    if (!tl)
        return;
    double t = tl_start(tl) + 11.25;
    const cl_state *cl = tl_state_at(tl, t, &err);
    CHECK_MSG(cl, "%s", err.msg);
    cl_state *dark = malloc(sizeof *dark);
    CHECK(dark);
    app_opts o;
    memset(&o, 0, sizeof o);
    o.paks[o.num_paks++] = dir;
    app_world w;
    memset(&w, 0, sizeof w);
    if (cl && dark) {
        memcpy(dark, cl, sizeof *dark);
        cl_fxlog_clear(dark);
        app_world_update(&w, &o, cl);
        CHECK(w.assets && r_assets_map(w.assets));
        r_camera cam = {.origin = {260, -114, -250}, .angles = {20, 0, 0}, .fov = 90};
        r_options opt = {.mode = R_MODE_TEXTURED};
        rast_fb *lit = rast_fb_new(320, 240), *plain = rast_fb_new(320, 240);
        r_render(w.assets, cl, t, &cam, &opt, lit);
        r_render(w.assets, dark, t, &cam, &opt, plain);
        int brighter = 0, darker = 0, lit_px = 0, warm = 0, hot = 0, white = 0;
        for (int i = 0; i < 320 * 240; i++) {
            uint32_t a = lit->color[i], b = plain->color[i];
            int la = (int)(a & 255) + (int)(a >> 8 & 255) + (int)(a >> 16 & 255);
            int lb = (int)(b & 255) + (int)(b >> 8 & 255) + (int)(b >> 16 & 255);
            brighter += la > lb;
            darker += (a & 255) < (b & 255);
            /* how much each channel rose against what it was: a white light raises red and
             * blue alike (by the same factor), ezQuake's 100 50 10 red ten times more */
            int r0 = (int)(b & 255), b0 = (int)(b >> 16 & 255);
            int dr = (int)(a & 255) - r0, db = (int)(a >> 16 & 255) - b0;
            if (la > lb + 30 && r0 > 16 && b0 > 16 && (int)(a & 255) < 250) {
                lit_px++;
                warm += dr * b0 > 3 * db * r0;
            }
            /* strongly lit (red up by half or more, below the screen's 255): green risen as
             * much as red, relatively, means the hue was lost to a cap on each channel
             * (near the centre, where red passes the ramp's top) */
            int g0 = (int)(b >> 8 & 255), g1 = (int)(a >> 8 & 255), r1 = (int)(a & 255);
            if (r0 > 16 && g0 > 16 && r1 < 250 && r1 * 2 >= r0 * 3) {
                hot++;
                white += g1 * r0 * 10 >= 9 * r1 * g0;
            }
        }
        fprintf(stderr, "    %d pixels strongly lit, %d of them whitened\n", hot, white);
        CHECK_MSG(hot > 100 && white * 10 < hot, "%d of %d strongly lit pixels whitened", white,
                  hot);
        CHECK_MSG(brighter > 320 * 240 / 4, "%d pixels brighter", brighter);
        CHECK_MSG(darker < 320 * 240 / 200, "%d pixels less red", darker);
        CHECK_MSG(lit_px > 1000 && warm > lit_px / 2, "%d of %d lit pixels warm", warm,
                  lit_px);
        rast_fb_free(lit);
        rast_fb_free(plain);
    }
    free(dark);
    app_world_free(&w);
    tl_close(tl);
}

/* A real demo over its map, for the tests below: its timeline, search path and world, a
 * player of a 640x360 view, and two frames of that size. */
typedef struct real_scene {
    app_opts o;
    app_world w;
    player *p;
    timeline_t *tl;
    rast_fb *x, *y;
} real_scene;

/* The real data's demo demo_rel over its map (linked as maps/MAP.bsp from bsp_rel) and the
 * assets' models into sc; 0 when either is missing. sc->o keeps the map's folder's path and
 * sc->p is one player: valid until the next call. */
static int scene_open(real_scene *sc, const char *demo_rel, const char *map,
                      const char *bsp_rel)
{
    char demo[1024];
    static char dir[1024]; /* (sc->o.paks holds it past the return) */
    static player p;
    if (!test_realfile(demo, sizeof demo, demo_rel) ||
        !game_dir_with(map, bsp_rel, dir, sizeof dir))
        return 0;
    sc->p = &p;
    sc->tl = demo_world(demo, dir, &sc->o, &sc->w, sc->p, 640, 360);
    if (!sc->tl)
        return 0;
    sc->o.paks[sc->o.num_paks++] = "assets";
    sc->x = rast_fb_new(640, 360);
    sc->y = rast_fb_new(640, 360);
    return 1;
}

static void scene_close(real_scene *sc)
{
    rast_fb_free(sc->x);
    rast_fb_free(sc->y);
    app_world_free(&sc->w);
    tl_close(sc->tl);
}

/* The state at t of sc's timeline, its world updated, the recorded view's camera and
 * options for one textured thread; NULL when the timeline cannot give it. */
static const cl_state *textured_at(real_scene *sc, double t, r_camera *cam, r_options *opt)
{
    qd_error err;
    const cl_state *cl = tl_state_at(sc->tl, t, &err);
    if (!cl)
        return NULL;
    app_world_update(&sc->w, &sc->o, cl);
    player_camera(sc->p, cl, t, cam);
    player_options(sc->p, cl, opt);
    opt->mode = R_MODE_TEXTURED;
    opt->threads = 1;
    return cl;
}

/* Frames of demo (its map linked as maps/MAP.bsp from the real data's bsp/BSP) at the
 * moments at[0..n-1], from the recorded view and from cam, drawn at every SIMD level from
 * AVX2 up and at SSE2, each with a fresh cache (every lit block built by that level): the
 * frames that differ, of *frames; -1 when the data is missing, -2 without an AVX2 copy. */
static int simd_frames_differ(const char *demo_rel, const char *map, const char *bsp_rel,
                              const double *at, int n, r_camera cam, int *frames)
{
    int was = rast_simd(-1);
    const int top = rast_simd(4); /* the highest level here */
    rast_simd(was);
    if (top < 2)
        return -2;
    real_scene sc;
    if (!scene_open(&sc, demo_rel, map, bsp_rel))
        return -1;
    int differ = 0;
    *frames = 0;
    for (int i = 0; i < n; i++)
        for (int view = 0; view < 2; view++) {
            double t = tl_start(sc.tl) + at[i];
            r_camera c;
            r_options opt;
            const cl_state *cl = textured_at(&sc, t, &c, &opt);
            if (!cl)
                continue;
            if (view == 1)
                c = cam;
            for (int level = 2; level <= top; level++) {
                r_cache *c1 = r_cache_new(0), *c2 = r_cache_new(0);
                rast_simd(level);
                opt.cache = c1;
                r_render(sc.w.assets, cl, t, &c, &opt, sc.x);
                rast_simd(1);
                opt.cache = c2;
                r_render(sc.w.assets, cl, t, &c, &opt, sc.y);
                differ += r_cache_texels_built(c1) < 100000 ||
                          memcmp(sc.x->color, sc.y->color, sizeof(uint32_t) * 640 * 360) != 0;
                ++*frames;
                r_cache_free(c1);
                r_cache_free(c2);
            }
        }
    rast_simd(was);
    scene_close(&sc);
    return differ;
}

/* The lit blocks' rows are built eight texels at a time from AVX2 up (block_row3_avx2 for
 * QuakeWorld's three channels, ezQuake's coloured light; block_row1_avx2 for Quake's one,
 * through the colormap): the same integers as the one-texel loops. The ffa MVD on dm4
 * around its explosion at 11.207 s (its coloured light, the muzzle flashes' and the
 * rockets') and at four other moments, from the recorded view and from beside the
 * explosion; and Quake from Memory's demo on its e1m3 at five moments (its rockets and
 * the player's muzzle flashes), at 640x360 (levels 0 and 1 of the blocks, the ones built
 * eight at a time): each frame at every level against the SSE2 one, byte for byte. */
TEST(render_light_blocks_same_bytes_at_every_simd_level)
{
    static const double qw_at[5] = {11.25, 3.0, 20.5, 41.0, 66.0};
    static const double nq_at[5] = {5.0, 14.0, 27.5, 40.0, 55.0};
    int qw_frames = 0, nq_frames = 0;
    int qw = simd_frames_differ("mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd", "dm4",
                                "bsp/id-maps-gpl_dm4_bsp29+appendedzip.bsp", qw_at, 5,
                                (r_camera){.origin = {260, -114, -250}, .fov = 90}, &qw_frames);
    int nq = simd_frames_differ("dem/quake-from-memory_demo1.dem", "e1m3",
                                "bsp/quake-from-memory_maps_e1m3_chadquad.bsp", nq_at, 5,
                                (r_camera){.fov = 90}, &nq_frames);
    fprintf(stderr, "    QuakeWorld %d of %d frames differ, Quake %d of %d\n", qw, qw_frames, nq,
            nq_frames);
    if (qw == -2 || nq == -2)
        SKIP("this processor or build has no AVX2 copy");
    if (qw == -1 && nq == -1)
        SKIP("no realdata ffa mvd and dm4, nor quake-from-memory demo1 and e1m3");
    CHECK_MSG(qw <= 0, "QuakeWorld: %d of %d frames differ", qw, qw_frames);
    CHECK_MSG(nq <= 0, "Quake: %d of %d frames differ", nq, nq_frames);
    CHECK(qw_frames + nq_frames >= 20);
}

/* Skins mapped affinely where that strays by under half a texel (r_skin_tri, as software
 * Quake's alias spans): the ffa MVD's players on dm4 seen from 80, 160 and 320 units in
 * front at their eyes' height, with LibreQuake's player (1,060 triangles), drawn affine and
 * in perspective. The bodies' pixels (those the body changes against the same view with it
 * hidden) are mostly the same texels: at most a quarter differ and the mean difference is
 * small; and some differ (the affine path drew them). A wrong plane (s and t swapped, or
 * one off by a texel's worth) fails both bounds. */
TEST(render_alias_skin_affine_close_to_perspective)
{
    char demo[1024], dir[1024];
    if (!test_realfile(demo, sizeof demo, "mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd") ||
        !game_dir_with("dm4", "bsp/id-maps-gpl_dm4_bsp29+appendedzip.bsp", dir, sizeof dir))
        SKIP("no realdata ffa mvd or dm4 map");
    if (access("assets/progs/player.mdl", R_OK) != 0)
        SKIP("run from the project root");
    enum { W = 480, H = 360 };
    qd_error err;
    app_opts o;
    app_world w;
    static player p;
    timeline_t *tl = demo_world(demo, dir, &o, &w, &p, W, H);
    CHECK(tl);
    if (!tl)
        return;
    o.paks[o.num_paks++] = "assets";
    rast_fb *aff = rast_fb_new(W, H), *per = rast_fb_new(W, H), *none = rast_fb_new(W, H);
    long body = 0, differ = 0, diff_sum = 0;
    for (int k = 0; k < 4; k++) {
        double t = tl_start(tl) + 8.0 + 15.0 * k;
        const cl_state *cl = tl_state_at(tl, t, &err);
        CHECK_MSG(cl, "%s", err.msg);
        if (!cl)
            continue;
        app_world_update(&w, &o, cl);
        for (int e = 1; e < cl->num_entities && e <= 32; e++) {
            cl_entstate s;
            if (e == cl->view.view_entity || !cl_entity_at(cl, e, t, &s, NULL, NULL) ||
                !(cl->entities[e].cur.flags & CL_EF_PLAYER))
                continue;
            static const float dist[3] = {80, 160, 320};
            for (int di = 0; di < 3; di++) {
                /* in front of it (along its yaw), at its eyes' height, looking back at it */
                float yaw = s.angles[1] * (float)(M_PI / 180);
                r_camera cam = {.origin = {s.origin[0] + dist[di] * cosf(yaw),
                                           s.origin[1] + dist[di] * sinf(yaw), s.origin[2] + 22},
                                .angles = {0, s.angles[1] + 180, 0},
                                .fov = 90};
                r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1};
                r_skin_affine = 1;
                r_render(w.assets, cl, t, &cam, &opt, aff);
                r_skin_affine = 0;
                r_render(w.assets, cl, t, &cam, &opt, per);
                opt.hide_entity = e;
                r_render(w.assets, cl, t, &cam, &opt, none);
                r_skin_affine = 1;
                for (int i = 0; i < W * H; i++) {
                    if (per->color[i] == none->color[i])
                        continue; /* not the body's (or the body's where it looks the same) */
                    body++;
                    uint32_t a = aff->color[i], b = per->color[i];
                    differ += a != b;
                    for (int ch = 0; ch < 24; ch += 8) {
                        int da = (int)(a >> ch & 255) - (int)(b >> ch & 255);
                        diff_sum += da < 0 ? -da : da;
                    }
                }
            }
        }
    }
    r_skin_affine = 1;
    double mean = body ? (double)diff_sum / (3.0 * (double)body) : 0;
    fprintf(stderr, "    %ld body pixels, %ld drawn differently, mean difference %.2f\n", body,
            differ, mean);
    CHECK_MSG(body > 20000, "%ld body pixels", body);
    CHECK_MSG(differ > 0 && differ * 4 < body, "%ld of %ld body pixels differ", differ, body);
    CHECK_MSG(mean < 4.0, "mean difference %.2f", mean);
    rast_fb_free(aff);
    rast_fb_free(per);
    rast_fb_free(none);
    app_world_free(&w);
    tl_close(tl);
}

/* A lit block whose only change is its dynamic lights is made again only where they reach,
 * before or now (r_surf.c build_block, partial): frames a fiftieth of a second apart through
 * the ffa MVD's explosion at 11.207 s (its light shrinking, rockets and muzzle flashes
 * moving), and through Quake from Memory's e1m3 demo from 20 s, drawn with one cache kept
 * between them and each with a fresh cache: the same bytes, frame by frame, and the kept
 * cache made far fewer texels (the partial builds ran). */
static int kept_cache_frames_differ(const char *demo_rel, const char *map, const char *bsp_rel,
                                    double from, uint64_t *kept_built, uint64_t *fresh_built)
{
    real_scene sc;
    if (!scene_open(&sc, demo_rel, map, bsp_rel))
        return -1;
    r_cache *kept = r_cache_new(0);
    int differ = 0;
    *fresh_built = 0;
    for (int k = 0; k < 25; k++) {
        double t = tl_start(sc.tl) + from + 0.02 * k;
        r_camera cam;
        r_options opt;
        const cl_state *cl = textured_at(&sc, t, &cam, &opt);
        if (!cl)
            continue;
        opt.cache = kept;
        r_render(sc.w.assets, cl, t, &cam, &opt, sc.x);
        r_cache *fresh = r_cache_new(0);
        opt.cache = fresh;
        r_render(sc.w.assets, cl, t, &cam, &opt, sc.y);
        *fresh_built += r_cache_texels_built(fresh);
        r_cache_free(fresh);
        differ += memcmp(sc.x->color, sc.y->color, sizeof(uint32_t) * 640 * 360) != 0;
    }
    *kept_built = r_cache_texels_built(kept);
    r_cache_free(kept);
    scene_close(&sc);
    return differ;
}

TEST(render_dynamic_light_blocks_made_again_where_they_reach)
{
    uint64_t qk = 0, qf = 0, nk = 0, nf = 0;
    int qw = kept_cache_frames_differ("mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd", "dm4",
                                      "bsp/id-maps-gpl_dm4_bsp29+appendedzip.bsp", 11.15, &qk,
                                      &qf);
    int nq = kept_cache_frames_differ("dem/quake-from-memory_demo1.dem", "e1m3",
                                      "bsp/quake-from-memory_maps_e1m3_chadquad.bsp", 20.0, &nk,
                                      &nf);
    if (qw == -1 && nq == -1)
        SKIP("no realdata ffa mvd and dm4, nor quake-from-memory demo1 and e1m3");
    fprintf(stderr, "    ffa: %d frames differ, texels made %llu kept, %llu fresh; e1m3: %d, "
            "%llu, %llu\n", qw, (unsigned long long)qk, (unsigned long long)qf, nq,
            (unsigned long long)nk, (unsigned long long)nf);
    CHECK_MSG(qw <= 0 && nq <= 0, "frames differ: ffa %d, e1m3 %d", qw, nq);
    /* the kept cache: each block made once whole, then only where the lights reach */
    CHECK(qw < 0 || qk * 5 < qf);
    CHECK(nq < 0 || nk * 5 < nf);
}

/* A Quake model wholly behind what is drawn is not drawn (r_box_hidden: every pixel its box
 * can cover already nearer than the box's nearest corner): the ffa MVD's players on dm4 seen
 * from each other's eyes at six moments (some in view, some behind walls and floors), drawn
 * with the test and without it: the same bytes, frame by frame, and fewer polygons sent
 * with it (bodies behind walls were left out). */
TEST(render_hidden_bodies_left_out_same_bytes)
{
    real_scene sc;
    if (!scene_open(&sc, "mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd", "dm4",
                    "bsp/id-maps-gpl_dm4_bsp29+appendedzip.bsp"))
        SKIP("no realdata ffa mvd or dm4 map");
    qd_error err;
    rast_fb *x = sc.x, *y = sc.y;
    long sent_with = 0, sent_without = 0;
    int frames = 0, differ = 0;
    for (int k = 0; k < 6; k++) {
        double t = tl_start(sc.tl) + 5.0 + 11.0 * k;
        const cl_state *cl = tl_state_at(sc.tl, t, &err);
        if (!cl)
            continue;
        app_world_update(&sc.w, &sc.o, cl);
        for (int e = 1; e < cl->num_entities && e <= 32; e++) {
            cl_entstate s;
            if (!cl_entity_at(cl, e, t, &s, NULL, NULL) ||
                !(cl->entities[e].cur.flags & CL_EF_PLAYER))
                continue;
            for (int yaw = 0; yaw < 360; yaw += 90) {
                r_camera cam = {.origin = {s.origin[0], s.origin[1], s.origin[2] + 22},
                                .angles = {0, (float)yaw, 0},
                                .fov = 90};
                r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1, .hide_entity = e};
                r_cull_hidden = 1;
                sent_with += r_render(sc.w.assets, cl, t, &cam, &opt, x);
                r_cull_hidden = 0;
                sent_without += r_render(sc.w.assets, cl, t, &cam, &opt, y);
                r_cull_hidden = 1;
                frames++;
                differ += memcmp(x->color, y->color, sizeof(uint32_t) * 640 * 360) != 0 ||
                          memcmp(x->depth, y->depth, sizeof(float) * 640 * 360) != 0;
            }
        }
    }
    fprintf(stderr, "    %d frames, %d differ; polygons sent %ld with the test, %ld without\n",
            frames, differ, sent_with, sent_without);
    CHECK(frames >= 40);
    CHECK_EQ(differ, 0);
    CHECK(sent_with < sent_without);
    scene_close(&sc);
}
