/* test_md3_draw.c: Quake III models drawn: MD3 normals and skins, animation.cfg frames, the
 * tags that join OpenArena's sarge, and a bot of an OpenArena demo drawn textured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../pak-loader/pak.h"
#include "../../src/demo/demo.h"
#include "../../src/model/model.h"
#include "../../src/render/r_local.h"
#include "../../src/timeline/timeline.h"
#include "../md3build.h"
#include "../q3scan.h"
#include "../test.h"

#define OA_DIR "/usr/share/games/openarena/baseoa"


static float getf(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &v, 4);
    return f;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Debian's OpenArena data as a search path; NULL when it is not installed. */
static pak_fs *oa_fs(void)
{
    FILE *f = fopen(OA_DIR "/pak0.pk3", "rb");
    if (!f)
        return NULL;
    fclose(f);
    pak_fs *fs = pak_fs_open();
    qd_error err = {0};
    if (fs && pak_fs_add_game_dir(fs, OA_DIR, &err) != QD_OK) {
        pak_fs_close(fs);
        return NULL;
    }
    return fs;
}

#define OA_FS(fs)                                                                          \
    pak_fs *fs = oa_fs();                                                                  \
    if (!fs) {                                                                             \
        CHECK_MSG(access(OA_DIR "/pak0.pk3", R_OK) != 0,                                   \
                  "OpenArena's pk3s are there but do not open as a game folder");          \
        SKIP("OpenArena not installed (" OA_DIR ")");                                      \
    }


/* qfiles.h: the normal short is lat << 8 | lng, stored little-endian (lng first); the unit
 * vector is (cos lat sin lng, sin lat sin lng, cos lng) with 256 steps a turn. lng 64 is a
 * quarter turn: lat 0 gives +x, lat 64 gives +y; lng 0 is +z whatever lat. */
/* tcGen environment on a model (tr_shade_calc.c RB_CalcEnvironmentTexCoords) works in the
 * model's own space, from each vertex's normal. By hand: a model turned 90 degrees (its
 * first axis along world y, its second along -x) at the origin, the eye at world (0, 100,
 * 0): the eye in its space is (100, 0, 0). At a vertex (0, 0, 0) of normal (1, 0, 0) the
 * direction to the eye is (1, 0, 0), its reflection itself: s = 0.5 + 0 / 2, t = 0.5 -
 * 0 / 2. With normal (0, 1, 0) (an unnormalised (0, 2, 0) the same) the reflection is
 * -(1, 0, 0): s and t 0.5 again. From vertex (100, -100, 0) of normal (0, 1, 0), the eye
 * lies along (0, 1, 0): it reflects to itself, s = 0.5 + 1 / 2 = 1, t = 0.5. A scaled model
 * (axes twice as long) sees the eye at the same place: (200 x 0 ... ) / 2. */
TEST(md3_environment_map_in_the_model_space)
{
    r_place p = {.origin = {0, 0, 0}, .axis = {{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}}};
    const float org[3] = {0, 100, 0};
    float eye[3], st[2];
    r_md3_env_eye(&p, org, eye);
    CHECK_MSG(fabsf(eye[0] - 100) < 1e-4f && fabsf(eye[1]) < 1e-4f && fabsf(eye[2]) < 1e-4f,
              "%g %g %g", eye[0], eye[1], eye[2]);
    static const float q0[3] = {0, 0, 0}, q1[3] = {100, -100, 0};
    static const float nx[3] = {1, 0, 0}, ny[3] = {0, 2, 0};
    r_md3_env_st(eye, q0, nx, st);
    CHECK(fabsf(st[0] - 0.5f) < 1e-5f && fabsf(st[1] - 0.5f) < 1e-5f);
    r_md3_env_st(eye, q0, ny, st);
    CHECK(fabsf(st[0] - 0.5f) < 1e-5f && fabsf(st[1] - 0.5f) < 1e-5f);
    r_md3_env_st(eye, q1, ny, st);
    CHECK_MSG(fabsf(st[0] - 1) < 1e-5f && fabsf(st[1] - 0.5f) < 1e-5f, "%g %g", st[0], st[1]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            p.axis[i][j] *= 2;
    r_md3_env_eye(&p, org, eye);
    CHECK_MSG(fabsf(eye[0] - 100) < 1e-4f, "%g", eye[0]);
}

TEST(md3_normal_bytes_are_longitude_then_latitude)
{
    static const struct {
        uint8_t lng, lat;
        float n[3];
    } cases[] = {{64, 0, {1, 0, 0}}, {64, 64, {0, 1, 0}}, {0, 64, {0, 0, 1}}, {128, 0, {0, 0, -1}}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t len;
        uint8_t *b = tiny_md3(cases[c].lng, cases[c].lat, &len);
        mdl_md3 *m = NULL;
        qd_error err;
        CHECK(mdl_md3_load(b, len, "tiny.md3", &m, &err) == QD_OK);
        for (int j = 0; j < 3; j++)
            CHECK_MSG(fabsf(m->surfaces[0].normal[0][j] - cases[c].n[j]) < 1e-5f,
                      "case %zu axis %d: %f", c, j, m->surfaces[0].normal[0][j]);
        mdl_md3_free(m);
        free(b);
    }
}

/* ---- .skin ---- */

TEST(md3_skin_names_surfaces_shaders)
{
    size_t len;
    uint8_t *b = tiny_md3(0, 0, &len);
    mdl_md3 *m = NULL;
    qd_error err;
    CHECK(mdl_md3_load(b, len, "tiny.md3", &m, &err) == QD_OK);
    CHECK_STR(m->surfaces[0].shader, "old/shader");
    char shaders[1][64] = {"old/shader"};
    static const char skin[] = "tag_head,\r\nother,x/y\nS_BODY, models/new/skin.tga \r\n";
    CHECK(mdl_md3_skin(m, shaders, skin, sizeof skin - 1, "t.skin", &err) == QD_OK);
    CHECK_STR(shaders[0], "models/new/skin.tga");
    CHECK_STR(m->surfaces[0].shader, "old/shader");
    /* a name of 64 bytes (the MD3's own limit is 63 and a NUL): refused at its line */
    char longer[128] = "s_body,";
    memset(longer + 7, 'a', 64);
    static const char first[] = "tag_torso,\n";
    char text[256];
    snprintf(text, sizeof text, "%s%s\n", first, longer);
    CHECK(mdl_md3_skin(m, shaders, text, strlen(text), "t.skin", &err) == QD_ERR_LIMIT);
    CHECK_EQ(err.offset, sizeof first - 1);
    CHECK_STR(shaders[0], "models/new/skin.tga");
    mdl_md3_free(m);
    free(b);
}

/* ---- animation.cfg ---- */

/* Animation a after t seconds shows frame f0, then f1, lerp of the way between. */
static int frames_are(const mdl_anim *a, double t, uint32_t f0, uint32_t f1, float lerp)
{
    uint32_t g0, g1;
    float l;
    mdl_anim_frames(a, t, &g0, &g1, &l);
    if (g0 != f0 || g1 != f1 || fabsf(l - lerp) > 1e-3f) {
        printf("    t %.2f: frames %u %u lerp %.3f\n", t, g0, g1, l);
        return 0;
    }
    return 1;
}

/* Values the parser never makes but mdl_anim_frames' contract allows (a review found both
 * undefined): a loop longer than the animation loops all of it (one frame of 1: frame 0,
 * where n - loop wrapped to 2^32), and an fps of +inf shows the first frame. */
TEST(md3_anim_frames_odd_values)
{
    mdl_anim a = {.first = 0, .num = 1, .loop = 5, .fps = 1};
    CHECK(frames_are(&a, 5, 0, 0, 0));
    mdl_anim b = {.first = 3, .num = 4, .loop = 9, .fps = 10};
    CHECK(frames_are(&b, 0.55, 3 + 1, 3 + 2, 0.5f)); /* x 5.5: past 4 by 1.5, a loop of 4 */
    mdl_anim c = {.first = 2, .num = 3, .loop = 1, .fps = INFINITY};
    CHECK(frames_are(&c, 1, 2, 3, 0));
}

/* Frames by hand from the text below: LEGS_WALKCR's first frame 30 less TORSO_GESTURE's 10
 * shifts every legs animation down by 20; the team gestures are left out (they copy
 * TORSO_GESTURE). */
TEST(md3_anims_parse_by_hand)
{
    static const char cfg[] =
        "// comment\nsex m\nheadoffset 0 0 0\nfootsteps boot\n"
        "0 5 0 10\n4 1 0 10\n5 5 0 10\n9 1 0 10\n10 -4 0 0\n14 1 0 10\n" /* deaths: 0..5 */
        "10 8 0 20\n18 2 0 15\n20 2 0 15\n22 2 0 20\n24 2 0 20\n26 1 0 15\n27 1 0 15\n"
        "30 4 4 20\n34 6 6 20\n40 5 5 10\n45 4 4 18\n49 4 4 15\n53 3 0 15\n56 3 0 20\n"
        "59 3 0 15\n62 3 0 20\n65 5 5 10\n70 5 5 10\n75 3 3 18\n";
    mdl_anim a[MDL_ANIM_COUNT];
    qd_error err;
    CHECK_MSG(mdl_anims_parse(cfg, sizeof cfg - 1, "t.cfg", a, &err) == QD_OK, "%s", err.msg);
    CHECK_EQ(a[MDL_ANIM_BOTH_DEATH3].first, 10);
    CHECK_EQ(a[MDL_ANIM_BOTH_DEATH3].num, 4);
    CHECK(a[MDL_ANIM_BOTH_DEATH3].reversed);
    CHECK(a[MDL_ANIM_BOTH_DEATH3].fps == 1); /* fps 0 is 1 */
    CHECK_EQ(a[MDL_ANIM_TORSO_GESTURE].first, 10);
    CHECK_EQ(a[MDL_ANIM_LEGS_WALKCR].first, 10);
    CHECK_EQ(a[MDL_ANIM_LEGS_RUN].first, 20);
    CHECK_EQ(a[MDL_ANIM_LEGS_TURN].first, 55);
    CHECK_EQ(a[MDL_ANIM_TORSO_GETFLAG].first, 10);
    CHECK_EQ(a[MDL_ANIM_TORSO_NEGATIVE].num, 8);
    CHECK_EQ(a[MDL_ANIM_LEGS_BACKWALK].first, 14); /* LEGS_WALK, reversed */
    CHECK(a[MDL_ANIM_LEGS_BACKWALK].reversed);
    /* LEGS_RUN: 5 frames from 20, all looping, 10 fps. At 0.75 s: 7.5 frames in, frame 7 is
     * (7 - 5) % 5 = 2 of the loop: 22, then 23, half way */
    CHECK(frames_are(&a[MDL_ANIM_LEGS_RUN], 0.75, 22, 23, 0.5f));
    /* TORSO_GESTURE does not loop: held at its last frame 17 */
    CHECK(frames_are(&a[MDL_ANIM_TORSO_GESTURE], 3.0, 17, 17, 0));
    /* BOTH_DEATH3 reversed at 1 fps: 2.25 s in is frame 2 from the end: 13 - 2 = 11 */
    CHECK(frames_are(&a[MDL_ANIM_BOTH_DEATH3], 2.25, 11, 10, 0.25f));
    /* one animation short: an error naming the offset at the end */
    CHECK(mdl_anims_parse(cfg, 60, "t.cfg", a, &err) == QD_ERR_BAD_DATA);
    CHECK(mdl_anims_parse("0 5 0 x", 7, "t.cfg", a, &err) == QD_ERR_BAD_DATA);
    CHECK_EQ(err.offset, 5);
}

/* ---- OpenArena's sarge ---- */

/* Tag `name` of frame f read from the file's bytes (qfiles.h: header ofsTags at 96, numTags
 * at 80; tags frame by frame, 112 bytes: name[64], origin[3], axis[3][3]). */
static int tag_bytes(const uint8_t *b, size_t len, uint32_t f, const char *name, float org[3],
                     float axis[3][3])
{
    uint32_t n = get32(b + 80), ofs = get32(b + 96);
    for (uint32_t i = 0; i < n; i++) {
        size_t at = ofs + ((size_t)f * n + i) * 112;
        if (at + 112 > len)
            return 0;
        if (strncmp((const char *)b + at, name, 64) != 0)
            continue;
        for (int j = 0; j < 3; j++)
            org[j] = getf(b + at + 64 + 4 * j);
        for (int k = 0; k < 9; k++)
            axis[k / 3][k % 3] = getf(b + at + 76 + 4 * k);
        return 1;
    }
    return 0;
}

/* sarge's animation.cfg (pak0.pk3), by hand: TORSO_GESTURE starts at 90 and LEGS_WALKCR at
 * 153, so legs animations lose 63 frames. LEGS_IDLE "234 10 10 10" starts at 171; LEGS_RUN
 * "173 9 9 15" at 110: 0.7 s in is 10.5 frames, frame 10 is loop frame (10 - 9) % 9 = 1, so
 * 111 then 112, half way; TORSO_STAND "151 1 0 15" is 151. */
TEST(md3_sarge_animation_cfg)
{
    OA_FS(fs);
    uint8_t *data = NULL;
    size_t len = 0;
    qd_error err = {0};
    CHECK(pak_read(fs, "models/players/sarge/animation.cfg", &data, &len, &err) == QD_OK);
    mdl_anim a[MDL_ANIM_COUNT];
    CHECK_MSG(mdl_anims_parse((const char *)data, len, "animation.cfg", a, &err) == QD_OK, "%s",
              err.msg);
    CHECK_EQ(a[MDL_ANIM_LEGS_IDLE].first, 171);
    CHECK_EQ(a[MDL_ANIM_TORSO_STAND].first, 151);
    CHECK(frames_are(&a[MDL_ANIM_LEGS_RUN], 0.7, 111, 112, 0.5f));
    free(data);
    pak_fs_close(fs);
}

static mdl_md3 *oa_md3(pak_fs *fs, const char *name, uint8_t **data, size_t *len)
{
    qd_error err = {0};
    mdl_md3 *m = NULL;
    if (pak_read(fs, name, data, len, &err) != QD_OK ||
        mdl_md3_load(*data, *len, name, &m, &err) != QD_OK)
        return NULL;
    return m;
}

/* sarge standing (legs LEGS_IDLE 171, torso TORSO_STAND 151) at the origin facing yaw 90:
 * the legs' axes are forward (0 1 0), left (-1 0 0), up (0 0 1), so the torso sits at the
 * legs' tag_torso origin (x, y, z) turned: (-y, x, z); its axes are tag_torso's axes times
 * the legs'; the head sits at the torso's tag_head origin along those axes. Every number
 * comes from the files' bytes; the order (head above torso above feet) follows from them. */
TEST(md3_sarge_tags_join_head_torso_legs)
{
    OA_FS(fs);
    uint8_t *lb = NULL, *ub = NULL;
    size_t ll = 0, ul = 0;
    mdl_md3 *legs = oa_md3(fs, "models/players/sarge/lower.md3", &lb, &ll);
    mdl_md3 *torso = oa_md3(fs, "models/players/sarge/upper.md3", &ub, &ul);
    CHECK(legs && torso);
    float to[3], ta[3][3], ho[3], ha[3][3], wo[3], wa[3][3];
    CHECK(tag_bytes(lb, ll, 171, "tag_torso", to, ta));
    CHECK(tag_bytes(ub, ul, 151, "tag_head", ho, ha));
    CHECK(tag_bytes(ub, ul, 151, "tag_weapon", wo, wa));
    const float L[3][3] = {{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}};
    float exp_torso[3] = {-to[1], to[0], to[2]}, T[3][3], exp_head[3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            T[i][j] = ta[i][0] * L[0][j] + ta[i][1] * L[1][j] + ta[i][2] * L[2][j];
    for (int j = 0; j < 3; j++)
        exp_head[j] = exp_torso[j] + ho[0] * T[0][j] + ho[1] * T[1][j] + ho[2] * T[2][j];
    r_frames lf = {171, 171, 0}, tf = {151, 151, 0};
    const float origin[3] = {0, 0, 0}, angles[3] = {0, 90, 0};
    r_place p[4];
    CHECK_EQ(r_md3_body(legs, torso, &lf, &tf, origin, angles, 0, p), 15);
    for (int j = 0; j < 3; j++) {
        CHECK_MSG(fabsf(p[1].origin[j] - exp_torso[j]) < 1e-3f, "torso %d: %f vs %f", j,
                  p[1].origin[j], exp_torso[j]);
        CHECK_MSG(fabsf(p[2].origin[j] - exp_head[j]) < 1e-3f, "head %d: %f vs %f", j,
                  p[2].origin[j], exp_head[j]);
        for (int i = 0; i < 3; i++)
            CHECK(fabsf(p[1].axis[i][j] - T[i][j]) < 1e-3f);
    }
    /* the files put the torso above the legs' origin and the head above the torso */
    CHECK(to[2] > 0);
    CHECK(exp_head[2] > exp_torso[2]);
    CHECK(p[2].origin[2] > p[1].origin[2] && p[1].origin[2] > p[0].origin[2]);
    /* the weapon hangs at the torso's tag_weapon, forward of the body along yaw 90 (+y) */
    float exp_w[3];
    for (int j = 0; j < 3; j++)
        exp_w[j] = exp_torso[j] + wo[0] * T[0][j] + wo[1] * T[1][j] + wo[2] * T[2][j];
    for (int j = 0; j < 3; j++)
        CHECK(fabsf(p[3].origin[j] - exp_w[j]) < 1e-3f);
    /* moving diagonally (direction 2: cg_players.c movementOffsets 45 degrees) the legs face
     * yaw 135, the torso gets 45 / 4 over the view's 90 (its own turn -33.75 on the legs'),
     * and the torso's tag stays where the legs carry it */
    CHECK_EQ(r_md3_body(legs, torso, &lf, &tf, origin, angles, 2, p), 15);
    float c = cosf(135 * (float)M_PI / 180), sn = sinf(135 * (float)M_PI / 180);
    CHECK(fabsf(p[0].axis[0][0] - c) < 1e-4f && fabsf(p[0].axis[0][1] - sn) < 1e-4f);
    float tor[3] = {to[0] * c - to[1] * sn, to[0] * sn + to[1] * c, to[2]};
    for (int j = 0; j < 3; j++)
        CHECK(fabsf(p[1].origin[j] - tor[j]) < 1e-3f);
    /* the torso's forward axis: its own turn's forward (cos, sin, 0) of -33.75 degrees,
     * through the tag's axes, then the legs' */
    float ct = cosf(-33.75f * (float)M_PI / 180), st = sinf(-33.75f * (float)M_PI / 180);
    float ot[3], lc[3][3] = {{c, sn, 0}, {-sn, c, 0}, {0, 0, 1}};
    for (int k = 0; k < 3; k++)
        ot[k] = ct * ta[0][k] + st * ta[1][k];
    for (int j = 0; j < 3; j++) {
        float e = ot[0] * lc[0][j] + ot[1] * lc[1][j] + ot[2] * lc[2][j];
        CHECK_MSG(fabsf(p[1].axis[0][j] - e) < 1e-3f, "torso forward %d: %f vs %f", j,
                  p[1].axis[0][j], e);
    }
    mdl_md3_free(legs);
    mdl_md3_free(torso);
    free(lb);
    free(ub);
    pak_fs_close(fs);
}

/* ---- a bot drawn ---- */

typedef struct oa_ctx {
    pak_fs *fs;
    int hide_players; /* models/players/ is "not found": the bodies become boxes */
} oa_ctx;

static qd_err oa_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    const oa_ctx *o = ctx;
    if (o->hide_players && strncmp(name, "models/players/", 15) == 0)
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: hidden", name);
    return pak_read(o->fs, name, data, len, err);
}

static int oa_list(void *ctx, const char *prefix,
                   void (*fn)(void *u, const char *name, uint64_t size), void *u)
{
    const oa_ctx *o = ctx;
    return pak_list_search_order(o->fs, prefix, fn, u);
}

#define BW 640
#define BH 480
#define BOX_COLOR rast_rgb(255, 200, 0) /* r_entity.c's missing-model box */

static int no_dlights_; /* oa_frame_from's r_options.no_dlights */

/* The view of cl at t from cam (textured, 640 x 480, OpenArena's files). */
static rast_fb *oa_frame_from(const cl_state *cl, double t, oa_ctx *o, const r_camera *cam)
{
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, oa_read, o, NULL, &err);
    rast_fb *fb = rast_fb_new(BW, BH);
    if (!a || !fb || r_assets_q3_textures(a, oa_read, oa_list, o, &err) != QD_OK) {
        r_assets_free(a);
        rast_fb_free(fb);
        return NULL;
    }
    r_options opt = {.mode = R_MODE_TEXTURED, .no_dlights = no_dlights_};
    r_render(a, cl, t, cam, &opt, fb);
    r_assets_free(a);
    return fb;
}

static rast_fb *oa_frame(const cl_state *cl, double t, oa_ctx *o)
{
    r_camera cam;
    r_camera_from_view(cl, t, &cam);
    return oa_frame_from(cl, t, o, &cam);
}

/* The fidelity demo's timeline (tests/data/fidelity/oa) and its state 11 s in, where
 * ioquake3's frame shows the other bot; 0 when the demo is not found (not run from the
 * project root), -1 when it is there but does not open. */
static int fidelity_at_11(timeline_t **tl, const cl_state **cl, double *t)
{
    static const char path[] = "tests/data/fidelity/oa/oa_dm3_follow.dm_71";
    *tl = NULL;
    *cl = NULL;
    *t = 0;
    if (access(path, R_OK) != 0)
        return 0;
    qd_error err = {0};
    demo_t *d = demo_open(path, &err);
    *tl = d ? tl_open(d, 0, &err) : NULL;
    *t = *tl ? tl_start(*tl) + 11.0 : 0;
    *cl = *tl ? tl_state_at(*tl, *t, &err) : NULL;
    return *cl ? 1 : -1;
}

/* The declarations and the skip of the tests at 11 s into the fidelity demo (fs closed
 * when it skips or fails). */
#define FIDELITY_AT_11(fs, tl, cl, t)                                                      \
    timeline_t *tl;                                                                        \
    const cl_state *cl;                                                                    \
    double t;                                                                              \
    int fid_at_ = fidelity_at_11(&tl, &cl, &t);                                            \
    if (fid_at_ <= 0) {                                                                    \
        pak_fs_close(fs);                                                                  \
        tl_close(tl);                                                                      \
        CHECK_MSG(fid_at_ == 0, "the fidelity demo is there but does not play to 11 s");   \
        SKIP("run from the project root");                                                 \
    }

/* The demo of tests/data/fidelity/oa at 11 s, where ioquake3's frame shows the other bot:
 * with the player models hidden it is a wire box; with them, the box's screen rectangle
 * shows the textured model: no box colour left, most of it changed, many colours. */
TEST(md3_bot_drawn_textured_where_the_box_was)
{
    OA_FS(fs);
    FIDELITY_AT_11(fs, tl, cl, t);
    CHECK(tl && cl);
    oa_ctx boxes = {fs, 1}, models = {fs, 0};
    rast_fb *b = oa_frame(cl, t, &boxes), *m = oa_frame(cl, t, &models);
    CHECK(b && m);
    int x0 = BW, y0 = BH, x1 = -1, y1 = -1;
    for (int y = 0; y < BH; y++)
        for (int x = 0; x < BW; x++)
            if (b->color[y * BW + x] == BOX_COLOR) {
                x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
            }
    CHECK_MSG(x1 - x0 >= 10 && y1 - y0 >= 20, "no box in view: %d %d %d %d", x0, y0, x1, y1);
    int area = (x1 - x0 + 1) * (y1 - y0 + 1), changed = 0, box = 0, distinct = 0;
    static uint8_t seen[1 << 15];
    memset(seen, 0, sizeof seen);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            uint32_t c = m->color[y * BW + x];
            box += c == BOX_COLOR;
            if (c == b->color[y * BW + x])
                continue;
            changed++;
            uint32_t k = (c & 0xf8) >> 3 | (c >> 11 & 0x1f) << 5 | (c >> 19 & 0x1f) << 10;
            distinct += !seen[k];
            seen[k] = 1;
        }
    CHECK_EQ(box, 0);
    CHECK_MSG(changed * 4 >= area, "%d of %d pixels changed", changed, area);
    CHECK_MSG(distinct >= 40, "%d colours", distinct);
    rast_fb_free(b);
    rast_fb_free(m);
    tl_close(tl);
    pak_fs_close(fs);
}

/* ioq3 tr_light.c R_SetupEntityLighting: a dynamic light adds 16 x radius^2 / d^2 of its
 * colour to a model's directed light (d at least 16). The bot in view at 11 s into the
 * fidelity demo (found as the active player entity that is not the followed one) with a
 * rocket explosion (light 300, 1 0.75 0) 40 units above it: inside its silhouette (the
 * pixels that change when the bot is hidden) most pixels are redder than without the
 * explosion, and the blue channel, whose light is 0, grows on none (the world around it
 * takes the light as GL_DST_COLOR GL_ONE, which leaves blue too). */
TEST(md3_explosion_lights_the_bot)
{
    OA_FS(fs);
    FIDELITY_AT_11(fs, tl, cl, t);
    CHECK(tl && cl);
    cl_state *boom = cl ? malloc(sizeof *boom) : NULL;
    int bot = -1, view = cl ? cl_view_player(cl) : -1;
    cl_entstate s;
    for (int i = 1; cl && i < cl->num_entities && bot < 0; i++)
        if (cl_entity_at(cl, i, t, &s, NULL, NULL) && (s.flags & CL_EF_PLAYER) &&
            s.player > 0 && s.player - 1 != view)
            bot = i;
    CHECK(bot > 0);
    if (cl && boom && bot > 0) {
        memcpy(boom, cl, sizeof *boom);
        boom->time = t;
        cl_fxev fx;
        memset(&fx, 0, sizeof fx);
        fx.kind = CL_FXK_EXPLOSION;
        fx.style = 5; /* WP_ROCKET_LAUNCHER */
        fx.life = 1.0f;
        fx.radius = 300;
        fx.rgb[0] = 255;
        fx.rgb[1] = 191;
        fx.entity = -1;
        memcpy(fx.origin, s.origin, sizeof fx.origin);
        fx.origin[2] += 40;
        cl_fx_add(boom, &fx);
        oa_ctx o = {fs, 0};
        r_camera cam;
        r_camera_from_view(cl, t, &cam);
        qd_error e2 = {0};
        r_assets *a = r_assets_load(&cl->level, oa_read, &o, NULL, &e2);
        CHECK(a && r_assets_q3_textures(a, oa_read, oa_list, &o, &e2) == QD_OK);
        rast_fb *lit = rast_fb_new(BW, BH), *hid = rast_fb_new(BW, BH),
                *plain = rast_fb_new(BW, BH);
        r_options opt = {.mode = R_MODE_TEXTURED};
        r_render(a, boom, t, &cam, &opt, lit);
        r_render(a, cl, t, &cam, &opt, plain);
        opt.hide_entity = bot;
        r_render(a, boom, t, &cam, &opt, hid);
        int body = 0, redder = 0;
        long red_gain = 0, blue_gain = 0;
        for (int i = 0; i < BW * BH; i++) {
            if (lit->color[i] == hid->color[i])
                continue;
            body++;
            int r = (int)(lit->color[i] & 255) - (int)(plain->color[i] & 255);
            redder += r > 0;
            red_gain += r;
            blue_gain += (int)(lit->color[i] >> 16 & 255) - (int)(plain->color[i] >> 16 & 255);
        }
        CHECK_MSG(body > 100, "bot covers %d pixels", body);
        /* the faces turned away from the light take none (the directed term's cosine) */
        CHECK_MSG(redder * 2 > body, "%d of %d redder", redder, body);
        /* the light's own blue is 0: blue moves only as the light's direction turns */
        CHECK_MSG(red_gain > 4 * (blue_gain > 0 ? blue_gain : -blue_gain),
                  "red %ld, blue %ld", red_gain, blue_gain);
        rast_fb_free(lit);
        rast_fb_free(hid);
        rast_fb_free(plain);
        r_assets_free(a);
    }
    free(boom);
    tl_close(tl);
    pak_fs_close(fs);
}

/* A plasma ball (cg_weapons.c: the shader sprites/plasma1 as a sprite of radius 16, no
 * model file) 24 units in front of the camera on oa_dm3: drawn from its shader's image,
 * added over the wall (no pixel darker, many brighter), never the missing-model box. */
TEST(md3_plasma_ball_is_its_shader)
{
    OA_FS(fs);
    oa_ctx o = {fs, 0};
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl);
    cl_reset(cl);
    snprintf(cl->level.map, sizeof cl->level.map, "maps/oa_dm3.bsp");
    snprintf(cl->level.models[1], sizeof cl->level.models[1], "sprites/plasma1");
    cl->level.num_models = 2;
    cl->view.view_entity = -1;
    qd_error err = {0};
    r_assets *a = r_assets_load(&cl->level, oa_read, &o, NULL, &err);
    CHECK(a && r_assets_map(a));
    CHECK(r_assets_q3_textures(a, oa_read, oa_list, &o, &err) == QD_OK);
    CHECK_EQ(r_assets_missing(a), 0);
    const mdl_bsp *b = r_assets_map(a);
    char val[64];
    r_camera cam = {.fov = 90};
    CHECK(mdl_entity_value(b->entities, "info_player_deathmatch", 0, "origin", val, sizeof val));
    CHECK(sscanf(val, "%f %f %f", &cam.origin[0], &cam.origin[1], &cam.origin[2]) == 3);
    cam.origin[2] += 26;
    if (mdl_entity_value(b->entities, "info_player_deathmatch", 0, "angle", val, sizeof val))
        cam.angles[1] = (float)atof(val);
    rast_fb *bare = rast_fb_new(BW, BH), *ball = rast_fb_new(BW, BH);
    r_options opt = {.mode = R_MODE_TEXTURED};
    r_render(a, cl, 1.0, &cam, &opt, bare);
    cl_entstate st;
    memset(&st, 0, sizeof st);
    float yaw = cam.angles[1] * (float)M_PI / 180;
    st.origin[0] = cam.origin[0] + 24 * cosf(yaw);
    st.origin[1] = cam.origin[1] + 24 * sinf(yaw);
    st.origin[2] = cam.origin[2];
    st.model = 1;
    cl_frame_begin(cl, 1.0);
    cl_entity_update(cl, 1, &st);
    cl_frame_end(cl, 1);
    r_render(a, cl, 1.0, &cam, &opt, ball);
    int brighter = 0, darker = 0, box = 0;
    for (int i = 0; i < BW * BH; i++) {
        uint32_t p = bare->color[i], q = ball->color[i];
        box += q == BOX_COLOR;
        int up = 0, down = 0;
        for (int s = 0; s < 24; s += 8) {
            up |= (q >> s & 255) > (p >> s & 255);
            down |= (q >> s & 255) < (p >> s & 255);
        }
        brighter += up;
        darker += down;
    }
    CHECK_EQ(box, 0);
    CHECK_EQ(darker, 0);
    CHECK_MSG(brighter > 1000, "%d pixels brighter", brighter);
    rast_fb_free(bare);
    rast_fb_free(ball);
    r_assets_free(a);
    free(cl);
    pak_fs_close(fs);
}

/* ---- info ---- */

/* The part of info --json's object from key's list to its closing bracket, or NULL. */
static const char *json_list(const char *out, const char *key, const char **end)
{
    const char *l = strstr(out, key);
    *end = l ? strchr(l, ']') : NULL;
    return *end ? l : NULL;
}

static int listed(const char *l, const char *end, const char *item)
{
    const char *h = strstr(l, item);
    return h && h < end;
}

/* demo088-test1 (a free-for-all) has a bot "Jenna" with model ayumi/jenna. Debian's
 * OpenArena holds models/players/ayumi/lower_default.skin (pak2-players-mature.pk3) and
 * ayumi/jenna/head_blue.skin and head_red.skin (team skins), but none of the names cgame
 * tries for Jenna's legs outside team games (ayumi/lower_jenna_default.skin,
 * ayumi/lower_jenna.skin, the same under characters/; checked with unzip -l), so cgame
 * (OpenArena gamecode cg_players.c CG_LoadClientInfo) draws her as DEFAULT_MODEL "sarge"
 * with its default skin: `info` lists sarge's skins and nothing missing, and Ayumi's own
 * default skins (another player) as they are found. */
TEST(md3_info_lists_player_skins)
{
    const char *q = getenv("QDEMO");
    char demo[512];
    if (!q || !*q)
        SKIP("run with QDEMO set (make test)");
    if (!test_realfile(demo, sizeof demo,
                       "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71"))
        SKIP("real data missing");
    FILE *f = fopen(OA_DIR "/pak2-players-mature.pk3", "rb");
    if (!f)
        SKIP("OpenArena not installed (" OA_DIR ")");
    fclose(f);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "%s info --json %s -p %s", q, demo, OA_DIR);
    FILE *p = popen(cmd, "r");
    CHECK(p);
    static char out[1 << 17];
    size_t got = 0, n;
    while (got + 1 < sizeof out && (n = fread(out + got, 1, sizeof out - 1 - got, p)) > 0)
        got += n;
    out[got] = 0;
    pclose(p);
    const char *me, *ue;
    const char *missing = json_list(out, "\"models_missing\": [", &me);
    const char *models = json_list(out, "\"models\": [", &ue);
    CHECK(missing && models);
    CHECK(listed(models, ue, "\"models/players/ayumi/lower.md3\""));
    CHECK(listed(models, ue, "\"models/players/ayumi/lower_default.skin\""));
    CHECK(listed(models, ue, "\"models/players/sarge/lower_default.skin\""));
    CHECK(listed(models, ue, "\"models/players/sarge/head_default.skin\""));
    CHECK(!listed(models, ue, "jenna"));
    CHECK(me == missing + strlen("\"models_missing\": [")); /* [] : every model and skin found */
}

/* cgame's names for a skin slot, in its order (OpenArena gamecode and ioquake3
 * cg_players.c CG_FindClientModelFile and CG_FindClientHeadFile, read by hand). */
TEST(md3_player_skin_paths_follow_cgame)
{
    char p[4][64];
    CHECK_EQ(mdl_player_skin_paths("models/players/ayumi/lower_jenna_default.skin", p, 4), 4);
    CHECK_STR(p[0], "models/players/ayumi/lower_jenna_default.skin");
    CHECK_STR(p[1], "models/players/ayumi/lower_jenna.skin");
    CHECK_STR(p[2], "models/players/characters/ayumi/lower_jenna_default.skin");
    CHECK_STR(p[3], "models/players/characters/ayumi/lower_jenna.skin");
    /* a team game: the team's colour replaces the skin on the second try */
    CHECK_EQ(mdl_player_skin_paths("models/players/sarge/upper_my_skin_red.skin", p, 4), 4);
    CHECK_STR(p[0], "models/players/sarge/upper_my_skin_red.skin");
    CHECK_STR(p[1], "models/players/sarge/upper_red.skin");
    /* heads: the skin's folder first, then head_<skin>, then the heads/ folder */
    CHECK_EQ(mdl_player_skin_paths("models/players/ayumi/jenna/head_blue.skin", p, 4), 4);
    CHECK_STR(p[0], "models/players/ayumi/jenna/head_blue.skin");
    CHECK_STR(p[1], "models/players/ayumi/head_blue.skin");
    CHECK_STR(p[2], "models/players/heads/ayumi/jenna/head_blue.skin");
    CHECK_STR(p[3], "models/players/heads/ayumi/head_blue.skin");
    CHECK_EQ(mdl_player_skin_paths("models/players/ayumi/jenna/head_default.skin", p, 4), 4);
    CHECK_STR(p[1], "models/players/ayumi/head_jenna.skin");
    /* not a player's skin slot */
    CHECK_EQ(mdl_player_skin_paths("models/players/ayumi/lower.md3", p, 4), 0);
    CHECK_EQ(mdl_player_skin_paths("models/players/ayumi/lower_jenna_green.skin", p, 4), 0);
    CHECK_EQ(mdl_player_skin_paths("models/players/ayumi/lower_default.skin", p, 4), 0);
    CHECK_EQ(mdl_player_skin_paths("maps/x/lower_a_default.skin", p, 4), 0);
    char fb[64];
    CHECK(mdl_player_fallback_skin("models/players/ayumi/lower_jenna_default.skin", "sarge", fb));
    CHECK_STR(fb, "models/players/sarge/lower_default_default.skin");
    CHECK(mdl_player_fallback_skin("models/players/ayumi/jenna/head_red.skin", "sarge", fb));
    CHECK_STR(fb, "models/players/sarge/jenna/head_red.skin");
}

/* r_q3_players on a made-up search path: a player whose three skins are found keeps its
 * model with the names found; one with a skin missing becomes sarge with sarge's. */
static const char *const fake_files[] = {
    "models/players/a/lower_x.skin", "models/players/a/upper_x.skin",
    "models/players/a/head_x.skin",  "models/players/b/lower_y.skin",
    "models/players/sarge/lower_default.skin", "models/players/sarge/upper_default.skin",
    "models/players/sarge/head_default.skin",
};

static qd_err fake_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *e)
{
    (void)ctx;
    for (size_t i = 0; i < sizeof fake_files / sizeof fake_files[0]; i++)
        if (strcmp(name, fake_files[i]) == 0) {
            *data = malloc(1);
            *len = 0;
            return *data ? QD_OK : QD_ERR_NOMEM;
        }
    return qd_fail(e, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
}

TEST(md3_player_without_its_skins_is_sarge)
{
    static char names[CL_SKIN_SLOTS + 8][CL_NAME_LEN];
    memset(names, 0, sizeof names);
    const char *set[][2] = {
        {"models/players/a/lower.md3", "models/players/a/lower_x_default.skin"},
        {"models/players/a/upper.md3", "models/players/a/upper_x_default.skin"},
        {"models/players/a/head.md3", "models/players/a/x/head_default.skin"},
        {"models/players/b/lower.md3", "models/players/b/lower_y_default.skin"},
        {"models/players/b/upper.md3", "models/players/b/upper_y_default.skin"},
        {"models/players/b/head.md3", "models/players/b/y/head_default.skin"},
    };
    for (int i = 0; i < 6; i++) {
        snprintf(names[1 + i], CL_NAME_LEN, "%s", set[i][0]);
        snprintf(names[1 + i + CL_SKIN_SLOTS], CL_NAME_LEN, "%s", set[i][1]);
    }
    r_q3_players(names, CL_SKIN_SLOTS + 8, fake_read, NULL);
    CHECK_STR(names[1], "models/players/a/lower.md3");
    CHECK_STR(names[1 + CL_SKIN_SLOTS], "models/players/a/lower_x.skin");
    CHECK_STR(names[3 + CL_SKIN_SLOTS], "models/players/a/head_x.skin");
    /* b has only its legs' skin: all of b is sarge */
    CHECK_STR(names[4], "models/players/sarge/lower.md3");
    CHECK_STR(names[5], "models/players/sarge/upper.md3");
    CHECK_STR(names[6], "models/players/sarge/head.md3");
    CHECK_STR(names[4 + CL_SKIN_SLOTS], "models/players/sarge/lower_default.skin");
    CHECK_STR(names[6 + CL_SKIN_SLOTS], "models/players/sarge/head_default.skin");
}

/* Two players of one model in a team game: the mesh is loaded once, each keeps its own skin.
 * sarge's lower_red.skin and lower_blue.skin (pak0.pk3) read "l_legs,models/players/grism/
 * redskin.tga" and "l_legs,models/players/grism/blueskin.tga". */
TEST(md3_shared_mesh_keeps_each_skin)
{
    OA_FS(fs);
    oa_ctx o = {fs, 0};
    cl_level *lvl = calloc(1, sizeof *lvl);
    CHECK(lvl);
    const char *names[][2] = {{"models/players/sarge/lower.md3", "lower_red.skin"},
                              {"models/players/sarge/lower.md3", "lower_blue.skin"}};
    for (int i = 0; i < 2; i++) {
        snprintf(lvl->models[1 + i], CL_NAME_LEN, "%s", names[i][0]);
        snprintf(lvl->models[1 + i + CL_SKIN_SLOTS], CL_NAME_LEN, "models/players/sarge/%s",
                 names[i][1]);
    }
    lvl->num_models = 3 + CL_SKIN_SLOTS;
    qd_error err = {0};
    r_assets *a = r_assets_load(lvl, oa_read, &o, NULL, &err);
    CHECK(a);
    CHECK_EQ(r_assets_missing(a), 0); /* no map named: a grid, not a problem */
    const r_model *red = &a->models[1], *blue = &a->models[2];
    CHECK(red->kind == R_KIND_MD3 && blue->kind == R_KIND_MD3);
    CHECK(red->md3 == blue->md3);
    CHECK(red->anims && red->anims == blue->anims);
    CHECK_STR(red->md3->surfaces[0].name, "l_legs");
    CHECK_STR(red->shaders[0], "models/players/grism/redskin.tga");
    CHECK_STR(blue->shaders[0], "models/players/grism/blueskin.tga");
    r_assets_free(a);
    free(lvl);
    pak_fs_close(fs);
}

/* Levels of detail as ioquake3's R_RegisterMD3 and R_ComputeLOD make them: kyonshi's
 * upper.md3 has upper_1.md3 and upper_2.md3 beside it (pak2-players.pk3), whose surfaces
 * come in another order (read from the files' surface headers: base u_sleeve u_torso
 * u_hands, level 1 u_torso u_sleeve u_hands, level 2 u_sleeve u_hands u_torso), so each
 * level's surfaces map to the base's by name. The level at distance d along the view from a
 * frame's bounds radius r (RadiusFromBounds: the length of the larger |min|, |max| per axis)
 * with tan(fov_y / 2) = 0.75: pr = r / (0.75 d), flod = (1 - 5 pr) x 3 levels, truncated:
 * pr 0.3 gives -1.5 (level 0), 0.1 gives 1.5 (1), 0.02 gives 2.7 (2); behind the eye 0. */
TEST(md3_levels_of_detail_as_ioquake3)
{
    OA_FS(fs);
    oa_ctx o = {fs, 0};
    cl_level *lvl = calloc(1, sizeof *lvl);
    CHECK(lvl);
    snprintf(lvl->models[1], CL_NAME_LEN, "models/players/kyonshi/upper.md3");
    lvl->num_models = 2;
    qd_error err = {0};
    r_assets *a = r_assets_load(lvl, oa_read, &o, NULL, &err);
    CHECK(a);
    const r_model *rm = &a->models[1];
    CHECK(rm->kind == R_KIND_MD3 && rm->lod[0] && rm->lod[1]);
    static const uint32_t map1[3] = {1, 0, 2}, map2[3] = {0, 2, 1};
    CHECK_EQ(rm->lod[0]->num_surfaces, 3u);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(rm->lod_surf[0][i], map1[i]);
        CHECK_EQ(rm->lod_surf[1][i], map2[i]);
    }
    CHECK_STR(rm->lod[1]->surfaces[1].name, "u_hands");
    const mdl_md3_frame *fr = &rm->md3->frames[0];
    float ax[3];
    for (int j = 0; j < 3; j++)
        ax[j] = fabsf(fr->mins[j]) > fabsf(fr->maxs[j]) ? fabsf(fr->mins[j]) : fabsf(fr->maxs[j]);
    float r = sqrtf(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    CHECK(r > 10 && r < 100); /* a body's part */
    r_view v;
    memset(&v, 0, sizeof v);
    v.tan_y = 0.75f;
    v.fwd[0] = 1;
    r_place p;
    memset(&p, 0, sizeof p);
    static const struct {
        float pr;
        int level;
    } at[] = {{0.3f, 0}, {0.1f, 1}, {0.02f, 2}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        p.origin[0] = r / (0.75f * at[i].pr);
        CHECK_EQ(r_md3_lod(&v, rm, &p, 0), at[i].level);
    }
    p.origin[0] = -r / (0.75f * 0.02f); /* as far, behind the eye */
    CHECK_EQ(r_md3_lod(&v, rm, &p, 0), 0);
    r_assets_free(a);
    free(lvl);
    pak_fs_close(fs);
}

/* Seek == play with animated players: the state at 11 s reached by playing from the start in
 * 0.5 s steps, and by seeking to the end and back, draws the same bytes (the animations'
 * start times are in the client state, so in keyframes). */
TEST(md3_seek_draws_what_play_draws)
{
    OA_FS(fs);
    qd_error err = {0};
    timeline_t *tl[2];
    if (access("tests/data/fidelity/oa/oa_dm3_follow.dm_71", R_OK) != 0) {
        pak_fs_close(fs);
        SKIP("run from the project root");
    }
    for (int k = 0; k < 2; k++) {
        demo_t *d = demo_open("tests/data/fidelity/oa/oa_dm3_follow.dm_71", &err);
        CHECK_MSG(d, "%s", err.msg);
        tl[k] = tl_open(d, 0, &err);
        CHECK(tl[k]);
    }
    double t = tl_start(tl[0]) + 11.0;
    const cl_state *play = NULL;
    for (double u = tl_start(tl[0]); u < t; u += 0.5)
        play = tl_state_at(tl[0], u, &err);
    play = tl_state_at(tl[0], t, &err);
    (void)tl_state_at(tl[1], tl_end(tl[1]), &err);
    const cl_state *seek = tl_state_at(tl[1], t, &err);
    CHECK(play && seek);
    oa_ctx o = {fs, 0};
    rast_fb *a = oa_frame(play, t, &o), *b = oa_frame(seek, t, &o);
    CHECK(a && b);
    CHECK(memcmp(a->color, b->color, (size_t)BW * BH * 4) == 0);
    rast_fb_free(a);
    rast_fb_free(b);
    tl_close(tl[0]);
    tl_close(tl[1]);
    pak_fs_close(fs);
}

/* The real demo rel (under $QDEMO_REALDATA) on a timeline in *tl (NULL when it does not
 * open); 0 when the file is not there. */
static int real_tl(const char *rel, timeline_t **tl)
{
    char path[1024];
    *tl = NULL;
    if (!test_realfile(path, sizeof path, rel))
        return 0;
    qd_error err = {0};
    demo_t *d = demo_open(path, &err);
    *tl = d ? tl_open(d, 0, &err) : NULL;
    return 1;
}

/* OpenArena's files as fs and the real demo rel's timeline as tl, or the test SKIPs. */
#define OA_REAL_TL(fs, tl, rel)                                                            \
    OA_FS(fs);                                                                             \
    timeline_t *tl;                                                                        \
    if (!real_tl(rel, &tl)) {                                                              \
        pak_fs_close(fs);                                                                  \
        SKIP("real data missing");                                                         \
    }

/* cg_weapons.c CG_AddPlayerWeapon: a bot's shotgun fires at 4.8 s into demo088-test1
 * (EV_FIRE_WEAPON on entity 12, weapon 3), and for MUZZLE_FLASH_TIME (20 ms) its flash model
 * (models/weapons2/shotgun/shotgun_flash.md3, the world model with "_flash") is drawn at
 * the weapon's tag_flash: without dynamic lights, the frame 5 ms after the shot changes
 * where the flash is and nowhere else when the effect is taken out of the log (the
 * blast's pellets, in the marks' log, kept); with them
 * the flash's light (316 units, yellow: 1, 1, 0) also brightens the world around it, red
 * and green only; 40 ms after, there is none. */
TEST(md3_muzzle_flash_while_it_lasts)
{
    OA_REAL_TL(fs, tl, "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71");
    qd_error err = {0};
    CHECK(tl);
    const cl_state *cl = tl ? tl_state_at(tl, 4.805, &err) : NULL;
    CHECK(cl);
    cl_state *bare = cl ? malloc(sizeof *bare) : NULL;
    oa_ctx o = {fs, 0};
    if (cl && bare) {
        int flash_model = 0;
        for (int i = CL_FLASH_SLOTS; i < cl->level.num_models; i++)
            flash_model |= !strcmp(cl->level.models[i], "models/weapons2/shotgun/shotgun_flash.md3");
        CHECK(flash_model);
        memcpy(bare, cl, sizeof *bare);
        cl_fxlog_clear(bare);
        /* (the blast's pellets, logged with the wall marks, kept: only the flash goes) */
        bare->fxlog.mark_count = cl->fxlog.mark_count;
        memcpy(bare->fxlog.marks, cl->fxlog.marks, sizeof bare->fxlog.marks);
        rast_fb *lit = oa_frame(cl, 4.805, &o), *unlit = oa_frame(bare, 4.805, &o);
        int wider = 0, bluer = 0;
        for (int i = 0; lit && unlit && i < BW * BH; i++) {
            uint32_t a = lit->color[i], b = unlit->color[i];
            wider += (a & 0xffff) != (b & 0xffff);
            bluer += (a >> 16 & 255) > (b >> 16 & 255);
        }
        CHECK_MSG(wider > 5000 && bluer < 2000, "%d pixels lit, %d bluer", wider, bluer);
        rast_fb_free(lit);
        rast_fb_free(unlit);
        no_dlights_ = 1;
        rast_fb *with = oa_frame(cl, 4.805, &o), *without = oa_frame(bare, 4.805, &o);
        no_dlights_ = 0;
        CHECK(with && without);
        int diff = 0, minx = BW, maxx = -1;
        for (int i = 0; with && without && i < BW * BH; i++)
            if (with->color[i] != without->color[i]) {
                diff++;
                minx = i % BW < minx ? i % BW : minx;
                maxx = i % BW > maxx ? i % BW : maxx;
            }
        CHECK_MSG(diff > 20 && diff < 2000 && maxx - minx < 60, "%d pixels, x %d..%d", diff,
                  minx, maxx);
        rast_fb_free(with);
        rast_fb_free(without);
        /* the flash is entity 12's muzzle effect, there at 4.805 s and gone at 4.845 s */
        const cl_fxev *fx[64];
        int was_on = 0, n = cl_fx_at(cl, 4.805, fx, 64);
        for (int i = 0; i < n; i++)
            was_on |= fx[i]->kind == CL_FXK_MUZZLE && fx[i]->entity == 12;
        CHECK(was_on);
        const cl_state *later = tl_state_at(tl, 4.845, &err);
        CHECK(later);
        int on = 0;
        n = cl_fx_at(later, 4.845, fx, 64);
        for (int i = 0; i < n; i++)
            on |= fx[i]->kind == CL_FXK_MUZZLE && fx[i]->entity == 12;
        CHECK(!on);
    }
    free(bare);
    tl_close(tl);
    pak_fs_close(fs);
}


/* A camera 96 units behind body's view at t and 24 up, looking down 10 degrees (the
 * powerup shells' tests). 0 when the body is not there. */
static int behind(const cl_state *cl, int body, double t, r_camera *cam)
{
    cl_entstate s;
    int nf;
    float bl;
    if (!cl_entity_at(cl, body, t, &s, &nf, &bl))
        return 0;
    float yaw = s.angles[1] * (float)M_PI / 180;
    r_camera c = {.origin = {s.origin[0] - 96 * cosf(yaw), s.origin[1] - 96 * sinf(yaw),
                             s.origin[2] + 24},
                  .angles = {10, s.angles[1], 0},
                  .fov = 90};
    *cam = c;
    return 1;
}

/* CG_AddRefEntityWithPowerups's other shells on body (cl_player.shells, set here in the copy
 * bare, the input): the battle suit's shell (OpenArena's powerups/battleSuit) changes many
 * pixels; regeneration's shows only 100 ms of each second ((cg.time / 100) % 10 == 1); an
 * invisible body draws nothing: the frame equals one without that body at all. */
static void other_shells(cl_state *bare, int body, double t0, oa_ctx *o, const r_camera *cam)
{
    int slot = bare->entities[body].cur.player - 1;
    CHECK(slot >= 0);
    if (slot < 0)
        return;
    double k = floor(t0 * 10) + 1; /* a tenth of the second that shows the shell, one not */
    while (fmod(k, 10) != 1)
        k++;
    double t_on = (k + 0.5) / 10, t_off = t_on + 0.1;
    bare->players[slot].shells = 0;
    rast_fb *plain = oa_frame_from(bare, t0, o, cam), *plain_on = oa_frame_from(bare, t_on, o, cam),
            *plain_off = oa_frame_from(bare, t_off, o, cam);
    bare->players[slot].shells = CL_SHELL_BATTLESUIT;
    rast_fb *suit = oa_frame_from(bare, t0, o, cam);
    bare->players[slot].shells = CL_SHELL_REGEN;
    rast_fb *regen_on = oa_frame_from(bare, t_on, o, cam),
            *regen_off = oa_frame_from(bare, t_off, o, cam);
    bare->players[slot].shells = CL_SHELL_INVIS;
    rast_fb *invis = oa_frame_from(bare, t0, o, cam);
    bare->players[slot].shells = 0;
    bare->entities[body].active = 0;
    rast_fb *gone = oa_frame_from(bare, t0, o, cam);
    rast_fb *all[] = {plain, plain_on, plain_off, suit, regen_on, regen_off, invis, gone};
    int ok = 1;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ok &= all[i] != NULL;
    CHECK(ok);
    int n = BW * BH, suit_changed = 0, regen_changed = 0;
    for (int i = 0; ok && i < n; i++) {
        suit_changed += suit->color[i] != plain->color[i];
        regen_changed += regen_on->color[i] != plain_on->color[i];
    }
    CHECK_MSG(suit_changed > 500, "%d pixels changed by the battle suit", suit_changed);
    CHECK_MSG(regen_changed > 500, "%d pixels changed by regeneration", regen_changed);
    size_t bytes = (size_t)n * sizeof(uint32_t);
    CHECK(ok && memcmp(regen_off->color, plain_off->color, bytes) == 0);
    CHECK(ok && memcmp(invis->color, gone->color, bytes) == 0);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        rast_fb_free(all[i]);
}

/* cg_players.c CG_AddRefEntityWithPowerups: a body with quad damage is drawn a second time
 * with the shader powerups/quad (OpenArena: textures/oafx/quadshell.tga, blendfunc add,
 * vertices pushed out 0.5 units). In the OpenArena bot match stress_bases3 a bot holds quad
 * damage at 33 s (a player entity with the quad's fx: found by scanning the states, it is
 * the input, not an expectation). Seen from 96 units behind it, the frame with the quad
 * differs from the same state without the quad's fx bit over many pixels, and the shell
 * only adds light: nearly every changed pixel is at least as bright in every channel and
 * bluer than before (the shell's texture is blue). The other shells are tried on the same
 * body (other_shells). */
TEST(md3_quad_shell_added_over_the_body)
{
    OA_REAL_TL(fs, tl, "dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70");
    qd_error err = {0};
    CHECK(tl);
    double t = tl ? tl_start(tl) + 33.0 : 0;
    const cl_state *cl = tl ? tl_state_at(tl, t, &err) : NULL;
    cl_state *bare = cl ? malloc(sizeof *bare) : NULL;
    int quad = -1;
    for (int i = 1; cl && i < CL_MAX_ENTITIES && quad < 0; i++)
        if (cl->entities[i].active && cl->entities[i].cur.flags & CL_EF_PLAYER &&
            cl->entities[i].cur.fx & CL_FX_GLOW_BLUE)
            quad = i;
    CHECK_MSG(quad > 0, "no body with quad damage at 33 s");
    if (quad > 0 && bare) {
        memcpy(bare, cl, sizeof *bare);
        bare->entities[quad].cur.fx &= (uint16_t)~CL_FX_GLOW_BLUE;
        bare->entities[quad].prev.fx &= (uint16_t)~CL_FX_GLOW_BLUE;
        r_camera cam;
        CHECK(behind(cl, quad, t, &cam));
        oa_ctx o = {fs, 0};
        rast_fb *with = oa_frame_from(cl, t, &o, &cam), *without = oa_frame_from(bare, t, &o, &cam);
        CHECK(with && without);
        int changed = 0, added = 0;
        for (int i = 0; with && without && i < BW * BH; i++) {
            uint32_t a = with->color[i], b = without->color[i];
            if (a == b)
                continue;
            changed++;
            added += (a & 255) >= (b & 255) && (a >> 8 & 255) >= (b >> 8 & 255) &&
                     (a >> 16 & 255) > (b >> 16 & 255);
        }
        CHECK_MSG(changed > 500, "%d pixels changed", changed);
        CHECK_MSG(added * 100 >= changed * 95, "%d of %d changed pixels brighter and bluer",
                  added, changed);
        rast_fb_free(with);
        rast_fb_free(without);
        other_shells(bare, quad, t, &o, &cam);
    }
    free(bare);
    tl_close(tl);
    pak_fs_close(fs);
}

/* The views of a and b at t from cam (oa_frame_from): 1 when both are made. */
static int two_frames(pak_fs *fs, const cl_state *a, const cl_state *b, double t,
                      const r_camera *cam, rast_fb **fa, rast_fb **fb)
{
    oa_ctx o = {fs, 0};
    *fa = oa_frame_from(a, t, &o, cam);
    *fb = oa_frame_from(b, t, &o, cam);
    return *fa && *fb;
}

/* A camera dist units from body s, turn degrees round from where it faces, 40 units over
 * its origin, looking at it (pitch down by pitch degrees), 90 degrees wide. */
static r_camera facing(const cl_entstate *s, float turn, float dist, float pitch)
{
    float a = (s->angles[1] + turn) * (float)M_PI / 180;
    float cx = s->origin[0] + dist * cosf(a), cy = s->origin[1] + dist * sinf(a);
    r_camera cam = {
        .origin = {cx, cy, s->origin[2] + 40},
        .angles = {pitch, atan2f(s->origin[1] - cy, s->origin[0] - cx) * 180 / (float)M_PI, 0},
        .fov = 90};
    return cam;
}

/* cg_players.c CG_TrailItem: tests/data/oa's CTF bot match, where Grism (client 2, entity 3)
 * takes the blue flag and captures it (the server's prints "got the BLUE flag" at 55.0 s and
 * "captured the BLUE flag" at 73.9 s, read from the file by q3scan.h and checked below). A
 * second after the take his body carries the blue flag (its powerups' PW_BLUEFLAG, the fx
 * bit here); seen from 150
 * units to his right, the frame differs from the same state without that bit over many
 * pixels, among them the flag's blue cloth (OpenArena's models/flags/b_flag shader is
 * proto_zzztblu3, blue, cull disable: seen from either side). */
TEST(md3_flag_carrier_trails_the_flag)
{
    OA_FS(fs);
    qd_error err = {0};
    if (access("tests/data/oa/oa_ctf4ish_follow.dm_71", R_OK) != 0) {
        pak_fs_close(fs);
        SKIP("run from the project root");
    }
    double took[8] = {0}, capt[8] = {0};
    CHECK_EQ(q3scan_times("tests/data/oa/oa_ctf4ish_follow.dm_71", "got the BLUE flag", took), 1);
    CHECK_EQ(q3scan_times("tests/data/oa/oa_ctf4ish_follow.dm_71", "captured the BLUE", capt), 1);
    CHECK(took[0] + 1.0 < capt[0]);
    demo_t *d = demo_open("tests/data/oa/oa_ctf4ish_follow.dm_71", &err);
    CHECK_MSG(d, "%s", err.msg);
    timeline_t *tl = tl_open(d, 0, &err);
    CHECK(tl);
    double t = tl ? tl_start(tl) + took[0] + 1.0 : 0;
    const cl_state *cl = tl ? tl_state_at(tl, t, &err) : NULL;
    cl_state *bare = cl ? malloc(sizeof *bare) : NULL;
    CHECK(cl && cl->entities[3].active && cl->entities[3].cur.fx & CL_FX_FLAG_BLUE);
    CHECK(cl && cl->entities[3].cur.player == 3); /* client 2's body */
    if (cl && bare && cl->entities[3].cur.fx & CL_FX_FLAG_BLUE) {
        memcpy(bare, cl, sizeof *bare);
        bare->entities[3].cur.fx &= (uint16_t)~CL_FX_FLAG_BLUE;
        bare->entities[3].prev.fx &= (uint16_t)~CL_FX_FLAG_BLUE;
        cl_entstate s;
        int nf;
        float bl;
        CHECK(cl_entity_at(cl, 3, t, &s, &nf, &bl));
        r_camera cam = facing(&s, -90, 150, 5);
        rast_fb *with, *without;
        CHECK(two_frames(fs, cl, bare, t, &cam, &with, &without));
        int changed = 0, blue = 0;
        for (int i = 0; with && without && i < BW * BH; i++) {
            uint32_t c = with->color[i];
            changed += c != without->color[i];
            blue += c != without->color[i] && (c >> 16 & 255) > 2 * (c & 255) &&
                    (c >> 16 & 255) > 2 * (c >> 8 & 255);
        }
        CHECK_MSG(changed > 300, "%d pixels changed", changed);
        CHECK_MSG(blue > 30, "%d of them blue", blue);
        rast_fb_free(with);
        rast_fb_free(without);
    }
    free(bare);
    tl_close(tl);
    pak_fs_close(fs);
}

/* Slot's float over the demo's capture (the command holding text, read by q3scan.h):
 * the capture medal at each of the n times dt after it where medal[k] says so, else not. */
static void capture_medal(const char *demo, const char *text, int slot, const double *dt,
                          const int *medal, int n)
{
    double capt[8] = {0};
    CHECK_EQ(q3scan_times(demo, text, capt), 1);
    qd_error err = {0};
    demo_t *d = demo_open(demo, &err);
    CHECK_MSG(d, "%s", err.msg);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    CHECK(tl);
    for (int k = 0; tl && k < n; k++) {
        const cl_state *cl = tl_state_at(tl, tl_start(tl) + capt[0] + dt[k], &err);
        CHECK(cl && cl->players[slot].active);
        CHECK_MSG(cl && (cl->players[slot].float_sprite == CL_FLOAT_CAPTURE) == medal[k],
                  "%s at %+.1f s: float %d", demo, dt[k], cl ? cl->players[slot].float_sprite : -1);
    }
    tl_close(tl);
}

/* g_team.c Team_TouchOurFlag: the capturer's eFlags get EF_AWARD_CAP until rewardTime,
 * REWARD_SPRITE_TIME (2000 ms) on (g_active.c clears the awards past it), and cgame floats
 * the capture medal over him (cg_players.c CG_PlayerSprites). Grism captures in both CTF
 * matches of the tests' data (client 2 in tests/data/oa's, 1.55 s before its end; client
 * 3 in the fidelity set oa_ctf's); the server's print "captured the ... flag" comes in
 * the capture's snapshot. */
TEST(q3_capture_medal_floats_two_seconds)
{
    const char *a = "tests/data/oa/oa_ctf4ish_follow.dm_71",
               *b = "tests/data/fidelity/oa_ctf/oa_ctf4ish_flaglook.dm_71";
    if (access(a, R_OK) != 0 || access(b, R_OK) != 0)
        SKIP("run from the project root");
    static const double dt_a[] = {-1.0, -0.2, 0.1, 0.8, 1.4}, dt_b[] = {-0.5, 0.1, 1.9, 2.3, 3.0};
    static const int on_a[] = {0, 0, 1, 1, 1}, on_b[] = {0, 1, 1, 0, 0};
    capture_medal(a, "captured the BLUE", 2, dt_a, on_a, 5);
    capture_medal(b, "captured the RED", 3, dt_b, on_b, 5);
}

/* The friend's mark (cgs.media.friendShader "sprites/foe": OpenArena's ctf.shader maps
 * sprites/foe2.tga, a green V) over each live team-mate of the view's player, 48 units
 * over the body's origin, radius 10 (CG_PlayerSprites, CG_PlayerFloatSprite). In
 * tests/data/oa's CTF match, 3 s after the capture, a team-mate of the followed player
 * seen from 120 units away: the frame differs from the same state with the view's
 * player in no team over the mark's pixels, green ones, above the body. */
TEST(q3_friend_mark_over_team_mates)
{
    OA_FS(fs);
    const char *demo = "tests/data/oa/oa_ctf4ish_follow.dm_71";
    if (access(demo, R_OK) != 0) {
        pak_fs_close(fs);
        SKIP("run from the project root");
    }
    double capt[8] = {0};
    CHECK_EQ(q3scan_times(demo, "captured the BLUE", capt), 1);
    qd_error err = {0};
    demo_t *d = demo_open(demo, &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    CHECK(tl);
    double t = tl ? tl_start(tl) + capt[0] + 3 : 0;
    const cl_state *cl = tl ? tl_state_at(tl, t, &err) : NULL;
    int vp = cl ? cl_view_player(cl) : -1, mate = -1;
    cl_entstate s;
    for (int p = 0; vp >= 0 && p < CL_MAX_PLAYERS && mate < 0; p++)
        if (p != vp && cl->players[p].active && cl->players[p].team == cl->players[vp].team &&
            cl_entity_at(cl, p + 1, t, &s, NULL, NULL) && (s.flags & CL_EF_PLAYER) &&
            !(s.flags & CL_EF_DEAD) && s.player == p + 1)
            mate = p;
    CHECK_MSG(mate >= 0, "no live team-mate of player %d", vp);
    CHECK(vp >= 0 && (cl->players[vp].team == CL_TEAM_RED || cl->players[vp].team == CL_TEAM_BLUE));
    cl_state *bare = mate >= 0 ? malloc(sizeof *bare) : NULL;
    if (bare) {
        memcpy(bare, cl, sizeof *bare);
        bare->players[vp].team = CL_TEAM_NONE;
        r_camera cam = facing(&s, 0, 120, 0);
        rast_fb *with, *without;
        CHECK(two_frames(fs, cl, bare, t, &cam, &with, &without));
        int changed = 0, green = 0, near = 0;
        double sy = 0;
        for (int i = 0; with && without && i < BW * BH; i++) {
            uint32_t c = with->color[i];
            if (c == without->color[i])
                continue;
            changed++;
            green += (c >> 8 & 255) > 2 * (c & 255) && (c >> 8 & 255) > 2 * (c >> 16 & 255);
            /* the mark 8 units over the eye, 120 on: centred (320, 219), 27 pixels each
             * way at 90 degrees over 640 columns */
            int x = i % BW - BW / 2, y = i / BW - (BH / 2 - 21);
            near += x * x + y * y < 40 * 40;
            sy += i / BW;
        }
        CHECK_MSG(changed > 100, "%d pixels changed", changed);
        CHECK_MSG(green > changed / 2, "%d of %d green", green, changed);
        CHECK_MSG(near == changed, "%d of %d about the mark's place", near, changed);
        CHECK_MSG(changed && sy / changed < BH / 2, "their mean row %.0f", changed ? sy / changed : 0);
        rast_fb_free(with);
        rast_fb_free(without);
    }
    free(bare);
    tl_close(tl);
    pak_fs_close(fs);
}

/* The 24 bots of stress_bases3 are kyonshi in team skins: the dress and sleeves
 * (models/players/kyonshi/dressblue etc.: blendfunc blend, alphaGen wave sin 0.8 0 0 0)
 * fade their 512 x 512 skins, 16 copies each (R_Q3_ALPHA_FADES). Each body's materials made
 * and charged their own copies (23 bodies: 4 of those skins x 16 x 350 K texels each,
 * 1 GB held), so the texel budget ran out before the wall marks' and the shadow's images
 * loaded: bases3 drew no marks and no shadows. Made once per image and fade, the marks
 * load: their materials are there. */
TEST(md3_bodies_of_one_skin_share_their_fades)
{
    OA_REAL_TL(fs, tl, "dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70");
    qd_error err = {0};
    CHECK(tl);
    const cl_state *cl = tl ? tl_state_at(tl, tl_start(tl) + 10.0, &err) : NULL;
    oa_ctx o = {fs, 0};
    r_assets *a = cl ? r_assets_load(&cl->level, oa_read, &o, NULL, &err) : NULL;
    CHECK(a && r_assets_q3_textures(a, oa_read, oa_list, &o, &err) == QD_OK);
    static const uint8_t white[3] = {255, 255, 255};
    uint32_t light;
    for (int k = 0; a && k < R_Q3MARK_COUNT; k++)
        CHECK_MSG(r_q3_mark_mat(a, k, white, 255, &light) >= 0, "mark %d has no material", k);
    r_assets_free(a);
    tl_close(tl);
    pak_fs_close(fs);
}

/* OpenArena's bot match stress_bases3.dm_70 is recorded by a spectator flying free (its
 * snapshots' player state: pm_type 2 PM_SPECTATOR, persistant[PERS_TEAM] 3
 * TEAM_SPECTATOR, read by the decoder into CL_ST_SPECTATOR): cg_weapons.c
 * CG_AddViewWeapon draws no weapon for it, so the frame with the gun asked for is the frame
 * without; demo088's recorder plays, and its gun is drawn (the frames differ). */
TEST(md3_spectator_holds_no_weapon)
{
    OA_FS(fs);
    static const struct {
        const char *rel;
        double at;
        int spectator;
    } demos[] = {{"dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70", 10.0, 1},
                 {"dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71", 40.0, 0}};
    for (int k = 0; k < 2; k++) {
        timeline_t *tl;
        if (!real_tl(demos[k].rel, &tl)) {
            pak_fs_close(fs);
            SKIP("real data missing");
        }
        qd_error err = {0};
        const cl_state *cl = tl ? tl_state_at(tl, tl_start(tl) + demos[k].at, &err) : NULL;
        CHECK(cl);
        const cl_stats *st = cl ? cl_stats_of(cl, -1) : NULL;
        CHECK(st && !(st->flags & CL_ST_SPECTATOR) == !demos[k].spectator);
        oa_ctx o = {fs, 0};
        r_assets *a = cl ? r_assets_load(&cl->level, oa_read, &o, NULL, &err) : NULL;
        rast_fb *gun = rast_fb_new(BW, BH), *none = rast_fb_new(BW, BH);
        CHECK(a && r_assets_q3_textures(a, oa_read, oa_list, &o, &err) == QD_OK);
        if (a && cl) {
            r_camera cam;
            double t = tl_start(tl) + demos[k].at;
            r_camera_from_view(cl, t, &cam);
            r_options opt = {.mode = R_MODE_TEXTURED, .no_dlights = 1, .gun = 1};
            r_render(a, cl, t, &cam, &opt, gun);
            opt.gun = 0;
            r_render(a, cl, t, &cam, &opt, none);
            int same = !memcmp(gun->color, none->color, (size_t)BW * BH * sizeof(uint32_t));
            CHECK_MSG(same == demos[k].spectator, "%s: frames %s", demos[k].rel,
                      same ? "the same" : "differ");
        }
        rast_fb_free(gun);
        rast_fb_free(none);
        r_assets_free(a);
        tl_close(tl);
    }
    pak_fs_close(fs);
}
