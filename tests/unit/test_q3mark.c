/* test_q3mark.c: Quake III's wall marks (r_q3mark.c): which mark a weapon leaves and how it
 * fades (numbers worked out by hand from cg_weapons.c CG_MissileHitWall and cg_marks.c
 * CG_AddMarks), the pieces a mark is cut into on a real OpenArena map (checked against the
 * geometry of the face it lies on), the decoder's marks against its impacts, the shader
 * blends marks use, and a burn on a real frame. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pak-loader/pak.h"
#include "../../src/app/player.h"
#include "../../src/app/world.h"
#include "../../src/common/dirs.h"
#include "../../src/demo/demo.h"
#include "../../src/render/r_local.h"
#include "../../src/timeline/timeline.h"
#include "../test.h"

#define OA_DIR "/usr/share/games/openarena/baseoa"
#define DEMO088 "dm_71/openarena-088-data_pak6-patch088_demo088-test1.dm_71"

/* Whether Debian's OpenArena data is installed. */
static int have_oa(void)
{
    FILE *f = fopen(OA_DIR "/pak0.pk3", "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* The demo at path indexed, or NULL. */
static timeline_t *open_tl(const char *path)
{
    qd_error err;
    demo_t *d = demo_open(path, &err);
    return d ? tl_open(d, 0, &err) : NULL;
}

/* Options naming OpenArena's game folder, and an empty world to load into. */
static void oa_world(app_opts *o, app_world *w)
{
    memset(o, 0, sizeof *o);
    memset(w, 0, sizeof *w);
    o->paks[o->num_paks++] = OA_DIR;
}

/* A client state begun afresh, or NULL. */
static cl_state *fresh_cl(void)
{
    cl_state *cl = calloc(1, sizeof *cl);
    if (cl)
        cl_reset(cl);
    return cl;
}

/* demo088 indexed (tl), to be drawn with OpenArena's data; the test skips without either. */
#define OA_DEMO088(tl)                                                                     \
    char path_[1024];                                                                      \
    if (!have_oa())                                                                        \
        SKIP("OpenArena not installed (" OA_DIR ")");                                      \
    if (!test_realfile(path_, sizeof path_, DEMO088))                                      \
        SKIP("no " DEMO088);                                                               \
    timeline_t *tl = open_tl(path_);                                                       \
    CHECK(tl);                                                                             \
    if (!tl)                                                                               \
    return

TEST(q3mark_kind_and_size_by_weapon)
{
    /* cg_weapons.c CG_MissileHitWall: weapon -> mark shader, radius */
    static const struct {
        int weapon, kind;
        float radius;
    } want[] = {
        {2, R_Q3MARK_BULLET, 8},  {3, R_Q3MARK_BULLET, 4},  {4, R_Q3MARK_BURN, 64},
        {5, R_Q3MARK_BURN, 64},   {6, R_Q3MARK_HOLE, 12},   {7, R_Q3MARK_ENERGY, 24},
        {8, R_Q3MARK_ENERGY, 16}, {9, R_Q3MARK_BURN, 32},   {0, R_Q3MARK_HOLE, 12},
        {13, R_Q3MARK_BULLET, 8}, {12, R_Q3MARK_BURN, 64},  {11, R_Q3MARK_HOLE, 12},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        float r = -1;
        int k = r_q3_mark_kind(want[i].weapon, &r);
        CHECK_MSG(k == want[i].kind && r == want[i].radius, "weapon %d: kind %d radius %g",
                  want[i].weapon, k, (double)r);
    }
}

TEST(q3mark_fades_by_the_cgame_rules)
{
    static const uint8_t white[3] = {255, 255, 255}, blue[3] = {0, 0, 255},
                         magenta[3] = {255, 0, 255};
    uint8_t rgb[3], a;
    /* a burn: as made until its last second, then its colour 255 * left / 1000 */
    r_q3_mark_look(R_Q3MARK_BURN, white, 5.0, rgb, &a);
    CHECK(rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255 && a == 255);
    r_q3_mark_look(R_Q3MARK_BURN, white, 9.5, rgb, &a); /* 255 * 500 / 1000 = 127 */
    CHECK_MSG(rgb[0] == 127 && rgb[2] == 127 && a == 255, "%d %d", rgb[0], a);
    r_q3_mark_look(R_Q3MARK_BULLET, white, 9.9, rgb, &a); /* 255 * 100 / 1000 = 25 */
    CHECK_MSG(rgb[1] == 25 && a == 255, "%d", rgb[1]);
    /* past its 10 s, gone: 0 (the age was compared in seconds against milliseconds, so 10
     * to 10,000 s gave a fade below 0, a negative float made a byte: a review) */
    r_q3_mark_look(R_Q3MARK_BURN, white, 50.0, rgb, &a);
    CHECK_MSG(rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 0, "%d %d %d", rgb[0], rgb[1], rgb[2]);
    /* an energy mark: 450 - 450 t / 3 s, shown once under 255 (from 1.3 s) */
    r_q3_mark_look(R_Q3MARK_ENERGY, white, 1.0, rgb, &a); /* 300: still 255 */
    CHECK(rgb[0] == 255 && a == 255);
    r_q3_mark_look(R_Q3MARK_ENERGY, white, 2.0, rgb, &a); /* 150 */
    CHECK_MSG(rgb[0] == 150 && rgb[1] == 150 && a == 255, "%d", rgb[0]);
    r_q3_mark_look(R_Q3MARK_ENERGY, magenta, 2.0, rgb, &a); /* 150, 0, 150 */
    CHECK(rgb[0] == 150 && rgb[1] == 0 && rgb[2] == 150);
    r_q3_mark_look(R_Q3MARK_ENERGY, white, 5.0, rgb, &a); /* -300: 0 */
    CHECK(rgb[0] == 0 && a == 255);
    /* its last second fades its alpha instead (alphaFade): 255 * 250 / 1000 = 63 */
    r_q3_mark_look(R_Q3MARK_ENERGY, white, 9.75, rgb, &a);
    CHECK_MSG(rgb[0] == 0 && a == 63, "%d %d", rgb[0], a);
    /* a red byte of 0 keeps its colour (CG_AddMarks tests modulate[0]) */
    r_q3_mark_look(R_Q3MARK_ENERGY, blue, 5.0, rgb, &a);
    CHECK(rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 255);
}

TEST(q3mark_blendfuncs_made_filters)
{
    static const char text[] = "a { { map a.tga blendfunc gl_zero gl_one_minus_src_color } }\n"
                               "b { { map b.tga blendFunc GL_DST_COLOR GL_SRC_COLOR } }\n"
                               "c { { map c.tga blendfunc filter } }\n";
    mdl_shader_set set = {0};
    qd_error err;
    CHECK(mdl_shader_parse(&set, text, sizeof text - 1, "t.shader", &err) == QD_OK);
    const mdl_shader *a = mdl_shader_find(&set, "a"), *b = mdl_shader_find(&set, "b"),
                     *c = mdl_shader_find(&set, "c");
    CHECK(a && b && c);
    if (a && b && c) {
        CHECK(a->stage.blend == MDL_BLEND_FILTER && a->stage.blend_tex == MDL_BLENDTEX_INVERT &&
              a->stage.blend_exact);
        /* (GL_DST_COLOR GL_SRC_COLOR is drawn as it is since 2026-11-29: twice the
         * product, clamped; it was a filter by the doubled image before) */
        CHECK(b->stage.blend == MDL_BLEND_MOD2X && b->stage.blend_tex == MDL_BLENDTEX_NONE &&
              b->stage.blend_exact);
        CHECK(c->stage.blend == MDL_BLEND_FILTER && c->stage.blend_tex == MDL_BLENDTEX_NONE);
    }
    mdl_shader_set_clear(&set);
}

/* The radius of the circle inside triangle p and its centre. */
static float incircle(const float (*p)[3], float c[3])
{
    float l[3];
    for (int i = 0; i < 3; i++) {
        const float *a = p[(i + 1) % 3], *b = p[(i + 2) % 3]; /* the side opposite i */
        float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
        l[i] = sqrtf(dot3(d, d));
    }
    float per = l[0] + l[1] + l[2];
    if (!(per > 0))
        return 0;
    for (int j = 0; j < 3; j++)
        c[j] = (l[0] * p[0][j] + l[1] * p[1][j] + l[2] * p[2][j]) / per;
    float e1[3], e2[3], n[3];
    for (int j = 0; j < 3; j++) {
        e1[j] = p[1][j] - p[0][j];
        e2[j] = p[2][j] - p[0][j];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    return sqrtf(dot3(n, n)) / per; /* area / half the perimeter */
}

/* The area of convex polygon p (n corners). */
static double poly_area(const float (*p)[3], int n)
{
    double s[3] = {0, 0, 0};
    for (int k = 1; k + 1 < n; k++) {
        double e1[3], e2[3];
        for (int j = 0; j < 3; j++) {
            e1[j] = p[k][j] - p[0][j];
            e2[j] = p[k + 1][j] - p[0][j];
        }
        s[0] += e1[1] * e2[2] - e1[2] * e2[1];
        s[1] += e1[2] * e2[0] - e1[0] * e2[2];
        s[2] += e1[0] * e2[1] - e1[1] * e2[0];
    }
    return 0.5 * sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
}

/* A mark inside a big planar triangle of oa_dm3: its square whole on that triangle (area
 * (2r)^2, every corner on the triangle's plane and inside the square's prism, texture
 * coordinates 0..1 with the square's corners at 0 and 1), and at any orientation. */
TEST(q3mark_square_whole_on_a_wall_of_oa_dm3)
{
    if (!have_oa())
        SKIP("OpenArena not installed (" OA_DIR ")");
    pak_fs *fs = pak_fs_open();
    qd_error err = {0};
    pak_fs_add_game_dir(fs, OA_DIR, &err);
    uint8_t *data = NULL;
    size_t len = 0;
    if (pak_read(fs, "maps/oa_dm3.bsp", &data, &len, &err) != QD_OK) {
        pak_fs_close(fs);
        SKIP("maps/oa_dm3.bsp not in the OpenArena data");
    }
    uint32_t pal[256];
    mdl_palette_grey(pal);
    mdl_bsp *b = NULL;
    CHECK(mdl_bsp_load(data, len, "oa_dm3.bsp", pal, &b, &err) == QD_OK);
    free(data);
    pak_fs_close(fs);
    if (!b)
        return;
    int tried = 0;
    double worst = 0;
    static r_mark_frag frags[R_MARK_FRAGMENTS];
    static float pts[R_MARK_POINTS][3], st[R_MARK_POINTS][2];
    /* the world's own triangles (a brush entity's are in no leaf: ioq3 marks none) */
    uint32_t world_end = b->num_models ? b->models[0].first_face + b->models[0].num_faces : 0;
    for (uint32_t fi = 0; fi < world_end && tried < 40; fi++) {
        const mdl_face *face = &b->faces[fi];
        if (face->q3_type != MDL_Q3_PLANAR || face->flags & (MDL_SURF_NODRAW | MDL_SURF_SKY) ||
            (face->texture >= 0 && b->textures[face->texture].nomarks))
            continue;
        float c[3];
        float in = incircle((const float(*)[3])(b->verts + face->first_vert), c);
        const float r = 8; /* the square's half-diagonal 11.3, with room for the epsilon */
        if (!(in > r * 1.4143f + 2))
            continue;
        /* where a shot can hit it: in front of it an open leaf that lists it (a planar
         * surface's triangles may run on behind the walls) */
        float front[3] = {c[0] + 2 * face->normal[0], c[1] + 2 * face->normal[1],
                          c[2] + 2 * face->normal[2]};
        const mdl_leaf *lf = &b->leaves[mdl_bsp_point_leaf(b, 0, front)];
        int lists = 0;
        for (uint32_t m = 0; m < lf->num_marks && lf->cluster >= 0; m++)
            lists |= b->marks[lf->first_mark + m] == fi;
        if (!lists)
            continue;
        tried++;
        float orient = (float)(fi % 360);
        int nf = r_q3_mark_fragments(b, c, face->normal, orient, r, frags, pts, st);
        double area = 0;
        int on = 0;
        for (int k = 0; k < nf; k++) {
            if (frags[k].face != fi)
                continue;
            on++;
            const float(*p)[3] = (const float(*)[3])pts[frags[k].first];
            area += poly_area(p, frags[k].n);
            for (int i = 0; i < frags[k].n; i++) {
                float d[3] = {p[i][0] - c[0], p[i][1] - c[1], p[i][2] - c[2]};
                CHECK_MSG(fabsf(dot3(d, face->normal)) < 0.01f, "face %u: off its plane", fi);
                /* tr_marks.c keeps a corner within 0.5 of a plane as it is (its epsilon):
                 * within half a unit of the square, st within 0.5 / (2 r) of 0..1 */
                CHECK_MSG(sqrtf(dot3(d, d)) <= (r + 0.5f) * 1.4143f + 0.01f, "face %u: outside",
                          fi);
                const float *s = st[frags[k].first + i];
                const float e = 0.5f / (2 * r) + 0.001f;
                CHECK_MSG(s[0] > -e && s[0] < 1 + e && s[1] > -e && s[1] < 1 + e,
                          "face %u: st %g %g", fi, (double)s[0], (double)s[1]);
            }
        }
        CHECK_MSG(on == 1, "face %u: %d pieces on it", fi, on);
        /* the square's area, give or take its perimeter times that epsilon */
        CHECK_MSG(fabs(area - 4 * r * r) <= 8 * r * 0.5, "face %u: area %.3f, not %.0f", fi,
                  area, (double)(4 * r * r));
        worst = fabs(area - 4 * r * r) > worst ? fabs(area - 4 * r * r) : worst;
    }
    CHECK_MSG(tried >= 10, "only %d big planar triangles in oa_dm3", tried);
    printf("    %d marks, the worst area %.3f off %.0f\n", tried, worst, 4.0 * 8 * 8);
    /* a mark facing away from every surface near it (the normal turned over) takes none */
    for (uint32_t fi = 0; fi < world_end; fi++) {
        const mdl_face *face = &b->faces[fi];
        float c[3];
        if (face->q3_type != MDL_Q3_PLANAR || face->flags & MDL_SURF_NODRAW ||
            !(incircle((const float(*)[3])(b->verts + face->first_vert), c) > 20))
            continue;
        float front[3] = {c[0] + 2 * face->normal[0], c[1] + 2 * face->normal[1],
                          c[2] + 2 * face->normal[2]};
        if (b->leaves[mdl_bsp_point_leaf(b, 0, front)].cluster < 0)
            continue;
        float back[3] = {-face->normal[0], -face->normal[1], -face->normal[2]};
        int nf = r_q3_mark_fragments(b, c, back, 0, 8, frags, pts, st);
        int on = 0;
        for (int k = 0; k < nf; k++)
            on += frags[k].face == fi;
        CHECK_MSG(on == 0, "face %u takes a mark from behind", fi);
        break;
    }
    mdl_bsp_free(b);
}

/* Every mark the decoder logs is an impact's (the same time, place and normal), and every
 * machine-gun bullet's and rail's impact leaves one (those come only from misses: a wall,
 * and the rail's end); rail marks carry the shooter's colour as the ring does. */
TEST(q3mark_decoder_marks_follow_impacts)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, DEMO088))
        SKIP("no " DEMO088);
    qd_error err;
    demo_t *d = demo_open(path, &err);
    cl_state *cl = d ? fresh_cl() : NULL;
    CHECK(d && cl);
    if (!d || !cl) {
        free(cl);
        demo_close(d);
        return;
    }
    uint32_t fx_seen = 0, marks_seen = 0;
    int marks = 0, rails = 0, bullets = 0, unmatched = 0, missing = 0;
    int done = 0;
    while (!done && demo_step(d, cl, NULL, &done, &err) == QD_OK) {
        const cl_fxlog *log = &cl->fxlog;
        CHECK(log->fx_count - fx_seen <= CL_FX_LOG && log->mark_count - marks_seen <= CL_MARK_LOG);
        /* this step's impacts, and its marks: each mark an impact's */
        for (; marks_seen < log->mark_count; marks_seen++) {
            const cl_fxev *m = &log->marks[marks_seen % CL_MARK_LOG];
            if (m->kind != CL_FXK_IMPACT)
                continue; /* (a blast or a gibbing: their own tests below) */
            marks++;
            int found = 0;
            for (uint32_t i = fx_seen; i < log->fx_count && !found; i++) {
                const cl_fxev *e = &log->fx[i % CL_FX_LOG];
                found = e->kind == CL_FXK_EXPLOSION && e->t0 == m->t0 &&
                        !memcmp(e->origin, m->origin, sizeof e->origin) &&
                        !memcmp(e->end, m->end, sizeof e->end) && e->style == m->style &&
                        (m->style != 7 || !memcmp(e->rgb, m->rgb, 3));
            }
            unmatched += !found;
            float n[3] = {m->end[0] - m->origin[0], m->end[1] - m->origin[1],
                          m->end[2] - m->origin[2]};
            CHECK(fabsf(dot3(n, n) - 1) < 0.01f && m->life == (float)CL_MARK_WINDOW);
        }
        for (; fx_seen < log->fx_count; fx_seen++) {
            const cl_fxev *e = &log->fx[fx_seen % CL_FX_LOG];
            if (e->kind != CL_FXK_EXPLOSION || (e->style != 2 && e->style != 7))
                continue;
            float n[3] = {e->end[0] - e->origin[0], e->end[1] - e->origin[1],
                          e->end[2] - e->origin[2]};
            if (!(dot3(n, n) > 0.5f))
                continue; /* no normal: no mark */
            rails += e->style == 7;
            bullets += e->style == 2;
            int found = 0;
            for (uint32_t i = marks_seen > 64 ? marks_seen - 64 : 0; i < marks_seen; i++) {
                const cl_fxev *m = &log->marks[i % CL_MARK_LOG];
                found |= m->t0 == e->t0 && !memcmp(m->origin, e->origin, sizeof m->origin);
            }
            missing += !found;
        }
    }
    CHECK_MSG(unmatched == 0, "%d of %d marks match no impact", unmatched, marks);
    CHECK_MSG(missing == 0, "%d bullet and rail impacts left no mark", missing);
    CHECK_MSG(rails > 10 && bullets > 10 && marks > rails + bullets,
              "marks %d, rails %d, bullets %d", marks, rails, bullets);
    free(cl);
    demo_close(d);
}

/* A frame of demo088 at 72.7 s looking down at the floor where two rockets burst at 71.1 and
 * 71.9 s: their burns (a filter by the inverted image: GL_ZERO GL_ONE_MINUS_SRC_COLOR) darken
 * the floor there and brighten nothing, against the same frame without the rockets'
 * marks. */
TEST(q3mark_rocket_burns_darken_the_floor)
{
    OA_DEMO088(tl);
    qd_error err;
    const double t = 72.7;
    const cl_state *at = tl_state_at(tl, t, &err);
    CHECK(at);
    cl_state *none = malloc(sizeof *none);
    CHECK(none);
    if (!at || !none) {
        free(none);
        tl_close(tl);
        return;
    }
    memcpy(none, at, sizeof *none);
    for (int i = 0; i < CL_MARK_LOG; i++) /* the rockets' marks gone, the others kept */
        if (none->fxlog.marks[i].kind == CL_FXK_IMPACT && none->fxlog.marks[i].style == 5)
            none->fxlog.marks[i].t0 = -1e9;
    const cl_fxev *alive[CL_MARK_LOG];
    int burns = 0, n = cl_marks_at(at, t, alive, CL_MARK_LOG);
    for (int i = 0; i < n; i++)
        burns += alive[i]->style == 5; /* rockets */
    CHECK_MSG(burns >= 2, "%d rocket marks alive at %.1f s", burns, t);
    app_opts o;
    app_world w;
    oa_world(&o, &w);
    app_world_update(&w, &o, at);
    enum { FW = 320, FH = 180 };
    rast_fb *with = rast_fb_new(FW, FH), *without = rast_fb_new(FW, FH);
    /* 131 units over the floor at z 369, looking down 55 degrees along +x at the burst of
     * 71.1 s (39, -908, 369) */
    r_camera cam = {.origin = {-60, -908, 500}, .angles = {55, 0, 0}, .fov = 90};
    r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1};
    r_render(w.assets, at, t, &cam, &opt, with);
    r_render(w.assets, none, t, &cam, &opt, without);
    int darker = 0, brighter = 0;
    for (int i = 0; i < FW * FH; i++) {
        uint32_t a = with->color[i], b = without->color[i];
        int dk = 0, br = 0;
        for (int s = 0; s < 24; s += 8) {
            int ca = (int)(a >> s & 255), cb = (int)(b >> s & 255);
            dk |= ca < cb;
            br |= ca > cb;
        }
        darker += dk && !br;
        brighter += br;
    }
    CHECK_MSG(darker > FW * FH / 50 && brighter == 0, "darker %d, brighter %d of %d", darker,
              brighter, FW * FH);
    rast_fb_free(with);
    rast_fb_free(without);
    app_world_free(&w);
    free(none);
    tl_close(tl);
}

/* q_math.c Q_crandom by hand for seed 0: the seed becomes 1 (69069 x 0 + 1), 1 / 65536 scaled
 * to -1..1 is -0.9999695; then 69070, whose low 16 bits 3534 give -0.8921509. Along +x,
 * PerpendicularVector gives +y (the first of the axes x leans on least), up is x cross y =
 * +z: the first pellet ends 131072 along, -11199.66 right, -9992.09 up. */
TEST(q3mark_shotgun_pattern_by_hand)
{
    const float o[3] = {10, 20, 30}, fwd[3] = {1, 0, 0};
    float ends[QD_Q3_PELLETS][3];
    CHECK(qd_q3_pellet_ends(o, fwd, 0, ends));
    CHECK_MSG(fabsf(ends[0][0] - (10 + 131072)) < 0.01f &&
                  fabsf(ends[0][1] - (20 - 11199.658f)) < 0.05f &&
                  fabsf(ends[0][2] - (30 - 9992.09f)) < 0.05f,
              "%g %g %g", (double)ends[0][0], (double)ends[0][1], (double)ends[0][2]);
    /* every pellet within the spread: 700 x 16 each way */
    for (int i = 0; i < QD_Q3_PELLETS; i++)
        CHECK(fabsf(ends[i][1] - 20) <= 11200 && fabsf(ends[i][2] - 30) <= 11200 &&
              ends[i][0] == ends[0][0]);
    const float zero[3] = {0, 0, 0};
    CHECK(!qd_q3_pellet_ends(o, zero, 0, ends));
}

/* demo088's shotgun blasts as the decoder logs them (EV_SHOTGUN: a unit forward, the seed a
 * byte, bit i for each pellet meeting a body with the nearest's distance), and drawn: just
 * after one whose pellets hit the floor ahead (2.95 s, from -10 -1399 417) the frame shows
 * their puffs (pixels brighter than without the blasts); three seconds on only the marks
 * (gfx/damage/bullet_mrk: bulletmult.tga, GL_DST_COLOR GL_SRC_COLOR: the wall times twice
 * the texel), which darken the wall at their holes and brighten it only where their
 * texels are over 128 (5,706 of bulletmult.tga's 65,536 pixels, read from pak0.pk3): fewer
 * channels brighter than darker. (Until 2026-11-29 the blend was drawn as a filter by the
 * doubled image, clamped, which brightened nothing.) */
TEST(q3mark_shotgun_pellets_puff_and_mark)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, DEMO088))
        SKIP("no " DEMO088);
    qd_error err;
    demo_t *d = demo_open(path, &err);
    cl_state *cl = d ? fresh_cl() : NULL;
    CHECK(d && cl);
    if (!d || !cl) {
        free(cl);
        demo_close(d);
        return;
    }
    uint32_t seen = 0;
    int blasts = 0, on_bodies = 0, done = 0;
    while (!done && demo_step(d, cl, NULL, &done, &err) == QD_OK) {
        for (; seen < cl->fxlog.mark_count; seen++) {
            const cl_fxev *m = &cl->fxlog.marks[seen % CL_MARK_LOG];
            if (m->kind != CL_FXK_SHOTGUN)
                continue;
            blasts++;
            float n[3] = {m->end[0] - m->origin[0], m->end[1] - m->origin[1],
                          m->end[2] - m->origin[2]};
            CHECK(fabsf(dot3(n, n) - 1) < 1e-3f);
            CHECK((m->entity & ~0x7ff) == 0 && (m->entity != 0) == (m->radius > 0));
            on_bodies += m->entity != 0 && m->radius < 2000;
        }
    }
    CHECK_MSG(blasts > 100 && on_bodies > 0, "%d blasts, %d meeting bodies", blasts, on_bodies);
    free(cl);
    demo_close(d);
    if (!have_oa())
        SKIP("OpenArena not installed (" OA_DIR ")");
    timeline_t *tl = open_tl(path);
    CHECK(tl);
    if (!tl)
        return;
    app_opts o;
    app_world w;
    oa_world(&o, &w);
    enum { FW = 320, FH = 180 };
    rast_fb *with = rast_fb_new(FW, FH), *without = rast_fb_new(FW, FH);
    cl_state *none = malloc(sizeof *none);
    r_camera cam = {.origin = {20, -1150, 420}, .angles = {20, 90, 0}, .fov = 90};
    r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1};
    static const double when[2] = {3.05, 6.0};
    for (int k = 0; k < 2 && none; k++) {
        const cl_state *at = tl_state_at(tl, when[k], &err);
        CHECK(at);
        if (!at)
            break;
        app_world_update(&w, &o, at);
        memcpy(none, at, sizeof *none);
        for (int i = 0; i < CL_MARK_LOG; i++) /* the marks (a shotgun's brass, plums kept) */
            if (none->fxlog.marks[i].kind != CL_FXK_BRASS &&
                none->fxlog.marks[i].kind != CL_FXK_SCORE_PLUM)
                none->fxlog.marks[i].t0 = -1e9;
        r_render(w.assets, at, when[k], &cam, &opt, with);
        r_render(w.assets, none, when[k], &cam, &opt, without);
        int darker = 0, brighter = 0;
        for (int i = 0; i < FW * FH; i++) {
            uint32_t a = with->color[i], b = without->color[i];
            for (int s = 0; s < 24; s += 8) {
                darker += (a >> s & 255) < (b >> s & 255);
                brighter += (a >> s & 255) > (b >> s & 255);
            }
        }
        if (k == 0)
            CHECK_MSG(brighter > 30, "at %.2f s: %d channels brighter", when[k], brighter);
        else
            CHECK_MSG(darker > 10 && brighter < darker, "at %.2f s: darker %d, brighter %d",
                      when[k], darker, brighter);
    }
    free(none);
    rast_fb_free(with);
    rast_fb_free(without);
    app_world_free(&w);
    tl_close(tl);
}

/* cg_effects.c CG_Bleed, for EV_BULLET_HIT_FLESH, EV_MISSILE_HIT and the shotgun's pellets
 * that meet a body: demo088's blood lies on the bodies hit (within their box, -15..15 x
 * -15..15 x -24..32 about the body's origin, give or take a snapshot's move: 64 units) for
 * 500 ms, and shows (3.1 s, a bot shot at 2.95 seen from behind its shooter). A body's own
 * blood is not drawn in its own first-person view (RF_THIRD_PERSON): the same blood made
 * the recorder's leaves that frame as it is without blood, and shows again when the
 * recorder's body is drawn (a chase camera: show_view_entity). (The recorder's real blood,
 * at its feet and chest, never lies in its field of view.) */
TEST(q3mark_blood_on_the_bodies_hit)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, DEMO088))
        SKIP("no " DEMO088);
    qd_error err;
    demo_t *d = demo_open(path, &err);
    cl_state *cl = d ? fresh_cl() : NULL;
    CHECK(d && cl);
    if (!d || !cl) {
        free(cl);
        demo_close(d);
        return;
    }
    uint32_t seen = 0;
    int bloods = 0, near = 0, done = 0, own = 0;
    while (!done && demo_step(d, cl, NULL, &done, &err) == QD_OK) {
        for (; seen < cl->fxlog.fx_count; seen++) {
            const cl_fxev *f = &cl->fxlog.fx[seen % CL_FX_LOG];
            if (f->kind != CL_FXK_BLOOD)
                continue;
            bloods++;
            CHECK(f->life == 0.5f && !memcmp(f->origin, f->end, sizeof f->end));
            own += f->entity == cl->view.view_entity;
            if (f->entity <= 0 || f->entity >= cl->num_entities)
                continue;
            const cl_entity *b = &cl->entities[f->entity];
            float d2 = 0;
            for (int j = 0; j < 3; j++)
                d2 += (f->origin[j] - b->cur.origin[j]) * (f->origin[j] - b->cur.origin[j]);
            near += b->active && (b->cur.flags & CL_EF_PLAYER) && d2 < 64 * 64;
        }
    }
    CHECK_MSG(bloods > 100 && near * 20 >= bloods * 19 && own > 0,
              "%d bloods, %d on their bodies, %d the recorder's", bloods, near, own);
    free(cl);
    demo_close(d);
    if (!have_oa())
        SKIP("OpenArena not installed (" OA_DIR ")");
    timeline_t *tl = open_tl(path);
    CHECK(tl);
    if (!tl)
        return;
    app_opts o;
    app_world w;
    oa_world(&o, &w);
    enum { FW = 320, FH = 180 };
    rast_fb *fb[4];
    for (int k = 0; k < 4; k++)
        fb[k] = rast_fb_new(FW, FH);
    cl_state *none = malloc(sizeof *none), *mine = malloc(sizeof *mine);
    const double t = 3.1;
    const cl_state *at = tl_state_at(tl, t, &err);
    CHECK(at && none && mine);
    if (at && none && mine) {
        app_world_update(&w, &o, at);
        memcpy(none, at, sizeof *none);
        memcpy(mine, at, sizeof *mine);
        for (int i = 0; i < CL_FX_LOG; i++)
            if (at->fxlog.fx[i].kind == CL_FXK_BLOOD) {
                none->fxlog.fx[i].t0 = -1e9;
                mine->fxlog.fx[i].entity = (int16_t)at->view.view_entity;
            }
        r_camera cam = {.origin = {-10, -1220, 410}, .angles = {5, 90, 0}, .fov = 90};
        r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1};
        r_render(w.assets, at, t, &cam, &opt, fb[0]);
        r_render(w.assets, none, t, &cam, &opt, fb[1]);
        r_render(w.assets, mine, t, &cam, &opt, fb[2]);
        opt.show_view_entity = 1;
        r_render(w.assets, mine, t, &cam, &opt, fb[3]);
        const size_t bytes = sizeof(uint32_t) * FW * FH;
        CHECK_MSG(memcmp(fb[0]->color, fb[1]->color, bytes), "no blood drawn at %.1f s", t);
        CHECK_MSG(!memcmp(fb[2]->color, fb[1]->color, bytes), "the recorder's own blood drawn");
        CHECK_MSG(memcmp(fb[3]->color, fb[1]->color, bytes) &&
                      memcmp(fb[3]->color, fb[2]->color, bytes),
                  "the chased recorder's blood not drawn");
    }
    free(none);
    free(mine);
    for (int k = 0; k < 4; k++)
        rast_fb_free(fb[k]);
    app_world_free(&w);
    tl_close(tl);
}

/* cg_weapons.c CG_LightningBolt: demo088's bot (entity 6) fires the lightning gun at 18.8 s
 * at a body ahead of it; seen from behind and beside it, its beam (four quads of
 * "lightningBoltNew" from the flash to the hit) changes the frame over 100 pixels across,
 * and more pixels than the flash alone (the firing flag's other effect: 222 pixels over 30
 * across without the beam) and a beam over 80 columns at least two pixels thick would
 * (222 + 160). The shader is pak0's beams.shader's one-stage "lightningBoltnew", which ioq3
 * takes before oanew.shader's two-stage one (its scripts joined in the reverse of their
 * listed order, the first definition found): 448 pixels with 32-pixel runs along the
 * grazing beam, 440 since its runs are shorter (rast.c run_pixels); 450 and more with
 * oanew.shader's. */
TEST(q3mark_lightning_beam_drawn)
{
    OA_DEMO088(tl);
    qd_error err;
    const double t = 18.8;
    const cl_state *at = tl_state_at(tl, t, &err);
    cl_state *cold = malloc(sizeof *cold);
    CHECK(at && cold && at->num_entities > 6 && (at->entities[6].cur.fx & CL_FX_MUZZLE) &&
          strstr(at->level.models[at->entities[6].cur.model2], "lightning"));
    if (at && cold && at->num_entities > 6) {
        memcpy(cold, at, sizeof *cold);
        cold->entities[6].cur.fx &= (uint16_t)~CL_FX_MUZZLE;
        cold->entities[6].prev.fx &= (uint16_t)~CL_FX_MUZZLE;
        app_opts o;
        app_world w;
        oa_world(&o, &w);
        app_world_update(&w, &o, at);
        enum { FW = 640, FH = 360 };
        rast_fb *on = rast_fb_new(FW, FH), *off = rast_fb_new(FW, FH);
        r_camera cam = {.origin = {80, -1420, 430}, .angles = {5, 110, 0}, .fov = 90};
        r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1};
        r_render(w.assets, at, t, &cam, &opt, on);
        r_render(w.assets, cold, t, &cam, &opt, off);
        int lo = FW, hi = -1, n = 0;
        for (int i = 0; i < FW * FH; i++)
            if (on->color[i] != off->color[i]) {
                n++;
                lo = i % FW < lo ? i % FW : lo;
                hi = i % FW > hi ? i % FW : hi;
            }
        CHECK_MSG(n > 222 + 2 * 80 && hi - lo > 80, "%d pixels over x %d..%d", n, lo, hi);
        rast_fb_free(on);
        rast_fb_free(off);
        app_world_free(&w);
    }
    free(cold);
    tl_close(tl);
}

/* Whether each frame at when[k] from cam changes when drop(copy, ctx) takes something out
 * of a copy of the state then (differ[k]); 0 when a state could not be had. */
static int frames_change(timeline_t *tl, app_world *w, const app_opts *o, const r_camera *cam,
                         const double *when, int n, void (*drop)(cl_state *, const void *),
                         const void *ctx, int *differ)
{
    enum { FW = 320, FH = 180 };
    rast_fb *with = rast_fb_new(FW, FH), *without = rast_fb_new(FW, FH);
    cl_state *none = malloc(sizeof *none);
    r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1};
    qd_error err;
    int ok = none != NULL;
    for (int s = 0; s < n && ok; s++) {
        const cl_state *cs = tl_state_at(tl, when[s], &err);
        if (!(ok = cs != NULL))
            break;
        app_world_update(w, o, cs);
        memcpy(none, cs, sizeof *none);
        drop(none, ctx);
        r_render(w->assets, cs, when[s], cam, &opt, with);
        r_render(w->assets, none, when[s], cam, &opt, without);
        differ[s] = memcmp(with->color, without->color, sizeof(uint32_t) * FW * FH) != 0;
    }
    free(none);
    rast_fb_free(with);
    rast_fb_free(without);
    return ok;
}

/* (frames_change's drops: the gibbing at *t0 from the marks' log; the recorder's machine
 * gun burst of 6.9 to 7.6 s from the effects') */
static void drop_gibbing(cl_state *cs, const void *t0)
{
    for (int i = 0; i < CL_MARK_LOG; i++)
        if (cs->fxlog.marks[i].kind == CL_FXK_GIBS && cs->fxlog.marks[i].t0 == *(const double *)t0)
            cs->fxlog.marks[i].t0 = -1e9;
}

static void drop_burst(cl_state *cs, const void *unused)
{
    (void)unused;
    for (int i = 0; i < CL_FX_LOG; i++) {
        cl_fxev *f = &cs->fxlog.fx[i];
        if (f->kind == CL_FXK_BRASS && f->entity == 1 && f->style == 2 && f->t0 > 6.85 &&
            f->t0 < 7.65)
            f->t0 = -1e9;
    }
}

/* cg_event.c EV_GIB_PLAYER (cg_effects.c CG_GibPlayer): demo088's gibbings (the first at
 * 15.05 s on the bridge of oa_shouse, floor at z 368) throw ten gibs each; thrown up at 250
 * units a second more or less, bouncing at 0.6, they have come down within 4 s: each
 * standing gib then lies on a surface (a trace 1 unit over it down to 3 under meets the
 * map), none is higher than its first throw could take it (250 + 250 up: 500^2 / 1600 =
 * 156 units), all are gone after 8 s (CG_LaunchGib: 5 to 8 s). The frame shows them
 * (0.45 s after, seen from the bridge) and, once they are gone, their blood marks for 10 s
 * after their bounces, then nothing. */
TEST(q3mark_gibs_fly_and_lie)
{
    OA_DEMO088(tl);
    qd_error err;
    const cl_state *at = tl_state_at(tl, 15.5, &err);
    CHECK(at);
    const cl_fxev *alive[CL_MARK_LOG], *gib = NULL;
    int n = at ? cl_marks_at(at, 15.5, alive, CL_MARK_LOG) : 0;
    for (int i = 0; i < n; i++)
        gib = alive[i]->kind == CL_FXK_GIBS ? alive[i] : gib;
    CHECK_MSG(gib && fabs(gib->t0 - 15.05) < 0.01, "no gibbing at 15.05 s");
    app_opts o;
    app_world w;
    oa_world(&o, &w);
    if (gib && at) {
        cl_fxev e = *gib;
        app_world_update(&w, &o, at);
        const mdl_bsp *b = w.assets ? w.assets->world.bsp : NULL;
        CHECK(b);
        float places[CL_Q3_GIBS][3];
        int standing[CL_Q3_GIBS], stood = 0, floating = 0, high = 0;
        CHECK_EQ(r_q3_gib_places(b, &e, 0.0, places, standing), CL_Q3_GIBS);
        int k = r_q3_gib_places(b, &e, 4.0, places, standing);
        for (int i = 0; i < k; i++) {
            high += places[i][2] > e.origin[2] + 157;
            if (!standing[i])
                continue;
            stood++;
            float from[3] = {places[i][0], places[i][1], places[i][2] + 1},
                  to[3] = {places[i][0], places[i][1], places[i][2] - 3}, d;
            uint32_t face;
            floating += !r_q3_trace(b, from, to, &d, &face);
        }
        CHECK_MSG(k == CL_Q3_GIBS && stood >= 5 && floating == 0 && high == 0,
                  "%d gibs at 4 s, %d standing, %d of them on nothing, %d too high", k, stood,
                  floating, high);
        CHECK_EQ(r_q3_gib_places(b, &e, 8.0, places, standing), 0);
        /* the frames */
        r_camera cam = {.origin = {6, -1450, 450}, .angles = {10, 90, 0}, .fov = 90};
        static const double when[3] = {15.5, 23.5, 27.0};
        int differ[3];
        CHECK(frames_change(tl, &w, &o, &cam, when, 3, drop_gibbing, &e.t0, differ));
        for (int k = 0; k < 3; k++)
            CHECK_MSG(differ[k] == (k < 2), "at %.1f s the gibbing %s the frame", when[k],
                      differ[k] ? "changes" : "does not change");
    }
    app_world_free(&w);
    tl_close(tl);
}

/* cg_ents.c CG_Mover: a brush mover (entityState.solid SOLID_BMODEL) draws the map's inline
 * model its modelindex names (SV_SetBrushModel sets it to the number after '*'), not a
 * CS_MODELS slot. demo088's movers (oa_shouse has some) carry the flag with a number below
 * the map's model count, and a frame that shows them has no missing model's placeholder
 * (255, 200, 0 boxes) left: qdemo drew every mover so, floating where the brush's origin
 * is. Its faces draw with their own shaders where it has moved (r_q3_face_at). */
TEST(q3mark_movers_are_the_maps_own_models)
{
    OA_DEMO088(tl);
    qd_error err;
    const double t = 3.0;
    const cl_state *at = tl_state_at(tl, t, &err);
    CHECK(at);
    app_opts o;
    app_world w;
    oa_world(&o, &w);
    if (at) {
        app_world_update(&w, &o, at);
        const mdl_bsp *b = w.assets ? w.assets->world.bsp : NULL;
        CHECK(b);
        int movers = 0, bad = 0;
        for (int i = 1; b && i < at->num_entities; i++) {
            const cl_entity *e = &at->entities[i];
            if (!e->active || !(e->cur.flags & CL_EF_BMODEL))
                continue;
            movers++;
            bad += e->cur.model == 0 || e->cur.model >= b->num_models;
        }
        CHECK_MSG(movers >= 2 && bad == 0, "%d movers, %d with no model of the map", movers,
                  bad);
        enum { FW = 640, FH = 360 };
        rast_fb *fb = rast_fb_new(FW, FH);
        r_camera cam = {.origin = {-10, -1330, 430}, .angles = {5, 90, 0}, .fov = 90};
        r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1};
        r_render(w.assets, at, t, &cam, &opt, fb);
        int yellow = 0;
        for (int i = 0; i < FW * FH; i++)
            yellow += (fb->color[i] & 0xffffff) == (rast_rgb(255, 200, 0) & 0xffffff);
        CHECK_MSG(yellow == 0, "%d pixels of a missing model's box", yellow);
        rast_fb_free(fb);
    }
    app_world_free(&w);
    tl_close(tl);
}

/* oa_shouse (demo088) seen at 100 s from its hall and at 3 s from the bridge:
 * - its braziers' flames are autosprite quads (deformVertexes autosprite, then move: twenty
 *   "bigflame_N" rising on their own phases, each a flame.tga glow added, at most orange
 *   over its dark cage): drawn where the map left them they stacked into a square of
 *   saturated yellow (R and G over 240, B under 80) some thousand pixels large;
 * - its sky box (env/moon1: the side ahead one flat blue) has the shader's cloud layer
 *   (dimclouds.jpg, added) over it: the sky above the bridge holds many colours, where the
 *   box alone gives one or two;
 * - its lava smoke is alphaGen wave (0.9 down to 0 as a puff rises): parsed as a wave. */
TEST(q3mark_autosprites_clouds_and_fading_smoke)
{
    static const char text[] = "s { { map s.tga blendfunc blend "
                               "alphaGen wave sawtooth 0.9 -0.9 0.25 0.1 } }\n";
    mdl_shader_set set = {0};
    qd_error err;
    CHECK(mdl_shader_parse(&set, text, sizeof text - 1, "t.shader", &err) == QD_OK);
    const mdl_shader *sh = mdl_shader_find(&set, "s");
    CHECK(sh && sh->stage.alphawave.func == MDL_WAVE_SAWTOOTH &&
          sh->stage.alphawave.base == 0.9f && sh->stage.alphawave.amp == -0.9f &&
          sh->stage.alphawave.phase == 0.25f && sh->stage.alphawave.freq == 0.1f);
    mdl_shader_set_clear(&set);
    OA_DEMO088(tl);
    app_opts o;
    app_world w;
    oa_world(&o, &w);
    enum { FW = 640, FH = 360 };
    rast_fb *fb = rast_fb_new(FW, FH);
    r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1};
    const cl_state *at = tl_state_at(tl, 100, &err);
    CHECK(at && fb);
    if (at && fb) {
        app_world_update(&w, &o, at);
        r_camera cam = {.origin = {103, 825, 538}, .angles = {-15, -80, 0}, .fov = 90};
        r_render(w.assets, at, 100, &cam, &opt, fb);
        int yellow = 0;
        for (int i = 0; i < FW * FH; i++) {
            uint32_t c = fb->color[i];
            yellow += (c & 255) > 240 && (c >> 8 & 255) > 240 && (c >> 16 & 255) < 80;
        }
        CHECK_MSG(yellow < 100, "%d pixels of saturated yellow at 100 s", yellow);
    }
    at = tl_state_at(tl, 3.0, &err);
    CHECK(at);
    if (at && fb) {
        app_world_update(&w, &o, at);
        r_camera cam = {.origin = {-10, -1330, 430}, .angles = {5, 90, 0}, .fov = 90};
        r_render(w.assets, at, 3.0, &cam, &opt, fb);
        /* distinct colours of the top 40 rows (the sky there), by a small open hash */
        static uint32_t seen[4096];
        memset(seen, 0, sizeof seen);
        int distinct = 0;
        for (int i = 0; i < FW * 40; i++) {
            uint32_t c = fb->color[i] | 0xff000000u, h = (c * 2654435761u) >> 20;
            while (seen[h] && seen[h] != c)
                h = (h + 1) & 4095;
            if (!seen[h]) {
                seen[h] = c;
                distinct += distinct < 4000;
            }
        }
        CHECK_MSG(distinct > 50, "%d colours in the sky's rows", distinct);
    }
    rast_fb_free(fb);
    app_world_free(&w);
    tl_close(tl);
}

/* cg_weapons.c CG_RailTrail's core (tr_surface.c DoRailCore): the railCore shader (OpenArena's
 * railcore.tga, blendFunc add, rgbGen vertex) in the shooter's colour x 0.75 fading over
 * cg_railTrailTime: added, so it only brightens what is behind it. demo088's red rail at
 * 70.8 s hits a wall; 0.2 s on, seen from in front of the wall, the frame with the trail
 * is brighter where it differs and darker nowhere (drawn as a blend of its colour over the
 * wall, it darkened the wall's green and blue). */
TEST(q3mark_rail_core_added)
{
    OA_DEMO088(tl);
    qd_error err;
    const double t = 71.0;
    const cl_state *at = tl_state_at(tl, t, &err);
    cl_state *none = malloc(sizeof *none);
    CHECK(at && none);
    app_opts o;
    app_world w;
    oa_world(&o, &w);
    if (at && none) {
        app_world_update(&w, &o, at);
        memcpy(none, at, sizeof *none);
        int rails = 0;
        for (int i = 0; i < CL_FX_LOG; i++)
            if (none->fxlog.fx[i].kind == CL_FXK_BEAM_RAIL) {
                rails += at->fxlog.fx[i].t0 <= t && t < at->fxlog.fx[i].t0 + at->fxlog.fx[i].life;
                none->fxlog.fx[i].t0 = -1e9;
            }
        CHECK(rails >= 1);
        enum { FW = 640, FH = 360 };
        rast_fb *with = rast_fb_new(FW, FH), *without = rast_fb_new(FW, FH);
        r_camera cam = {.origin = {-35, -1700, 430}, .angles = {5, -90, 0}, .fov = 90};
        r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1};
        r_render(w.assets, at, t, &cam, &opt, with);
        r_render(w.assets, none, t, &cam, &opt, without);
        int brighter = 0, darker = 0;
        for (int i = 0; i < FW * FH; i++)
            for (int s = 0; s < 24; s += 8) {
                int a = (int)(with->color[i] >> s & 255), b = (int)(without->color[i] >> s & 255);
                brighter += a > b;
                darker += a < b;
            }
        CHECK_MSG(brighter > 100 && darker == 0, "%d channels brighter, %d darker", brighter,
                  darker);
        rast_fb_free(with);
        rast_fb_free(without);
    }
    free(none);
    app_world_free(&w);
    tl_close(tl);
}

/* A hostile map's leaves may list one face over and over (a file's counts allow millions):
 * a mark's walk (box_tris) and a shot's trace look at WALK_CHECKS (65536) references in
 * all, so the face listed after that many is not reached (before: every reference, each
 * against every face taken, or 1024 a leaf over up to 8192 leaves a trace). The maps
 * are made here: a mark's one node (the plane z = 0) with face 0 listed `repeat` times
 * in its front leaf, face 1 in its back one; a trace's 100 nodes (planes x = 10 i), each
 * back leaf listing face 0 1024 times (the per-leaf cap), the last front leaf face 1, a
 * wall at x = 995 the ray along +x hits at 1000. With few references both reach face 1. */
typedef struct walk_map {
    mdl_bsp b;
    mdl_plane planes[100];
    mdl_node nodes[100];
    mdl_leaf leaves[101];
    mdl_face faces[2];
    float verts[6][3];
    uint32_t *marks;
} walk_map;

static void walk_face(walk_map *m, int k, const float p[3][3], const float n[3])
{
    memcpy(m->verts[3 * k], p, sizeof m->verts[0] * 3);
    mdl_face *f = &m->faces[k];
    f->first_vert = (uint32_t)(3 * k);
    f->num_verts = 3;
    memcpy(f->normal, n, sizeof f->normal);
    f->dist = n[0] * p[0][0] + n[1] * p[0][1] + n[2] * p[0][2];
    f->texture = -1;
    f->q3_type = MDL_Q3_PLANAR;
}

static void walk_init(walk_map *m, uint32_t nodes, uint32_t marks)
{
    memset(m, 0, sizeof *m);
    m->marks = calloc(marks, sizeof *m->marks);
    m->b.planes = m->planes;
    m->b.nodes = m->nodes;
    m->b.leaves = m->leaves;
    m->b.faces = m->faces;
    m->b.verts = m->verts;
    m->b.marks = m->marks;
    m->b.num_planes = m->b.num_nodes = nodes;
    m->b.num_leaves = nodes + 1;
    m->b.num_faces = 2;
    m->b.num_verts = 6;
    m->b.num_marks = marks;
}

static int mark_reaches_face1(uint32_t repeat)
{
    walk_map *m = malloc(sizeof *m);
    walk_init(m, 1, repeat + 1);
    m->planes[0] = (mdl_plane){{0, 0, 1}, 0, 2};
    m->nodes[0].children[0] = -1; /* leaf 0 */
    m->nodes[0].children[1] = -2; /* leaf 1 */
    m->leaves[0].num_marks = repeat;
    m->leaves[1].first_mark = repeat;
    m->leaves[1].num_marks = 1;
    m->marks[repeat] = 1;
    static const float up[3] = {0, 0, 1};
    static const float f0[3][3] = {{-100, -100, 0}, {0, -100, 0}, {0, 100, 0}};
    static const float f1[3][3] = {{0, -100, 0}, {100, -100, 0}, {0, 100, 0}};
    walk_face(m, 0, f0, up);
    walk_face(m, 1, f1, up);
    static r_mark_frag frags[R_MARK_FRAGMENTS];
    static float pts[R_MARK_POINTS][3], st[R_MARK_POINTS][2];
    static const float origin[3] = {0, 0, 0};
    int nf = r_q3_mark_fragments(&m->b, origin, up, 0, 16, frags, pts, st), one = 0;
    for (int i = 0; i < nf; i++)
        one |= frags[i].face == 1;
    free(m->marks);
    free(m);
    return one;
}

static int trace_reaches_face1(uint32_t repeat)
{
    walk_map *m = malloc(sizeof *m);
    walk_init(m, 100, repeat + 1);
    for (int i = 0; i < 100; i++) {
        m->planes[i] = (mdl_plane){{1, 0, 0}, 10.0f * (float)i, 0};
        m->nodes[i].plane = (uint32_t)i;
        m->nodes[i].children[0] = i < 99 ? i + 1 : -101; /* the front; the last: leaf 100 */
        m->nodes[i].children[1] = -(i + 1);               /* leaf i */
        m->leaves[i].num_marks = repeat;
    }
    m->leaves[100].first_mark = repeat;
    m->leaves[100].num_marks = 1;
    m->marks[repeat] = 1;
    static const float back[3] = {-1, 0, 0};
    static const float f0[3][3] = {{0, 0, 500}, {0, 0, 510}, {0, 10, 500}};
    static const float f1[3][3] = {{995, -50, -50}, {995, 50, -50}, {995, 0, 50}};
    walk_face(m, 0, f0, back);
    walk_face(m, 1, f1, back);
    static const float from[3] = {-5, 1, 1}, to[3] = {2000, 1, 1};
    float t = 0;
    uint32_t face = 0;
    int hit = r_q3_trace(&m->b, from, to, &t, &face) && face == 1 && fabsf(t - 1000) < 0.01f;
    free(m->marks);
    free(m);
    return hit;
}

TEST(q3mark_hostile_leaves_bounded)
{
    CHECK(mark_reaches_face1(10));
    CHECK(!mark_reaches_face1(100000));
    CHECK(trace_reaches_face1(10));
    CHECK(!trace_reaches_face1(1024));
}

/* cg_weapons.c CG_MachineGunEjectBrass: demo088's recorder fires the machine gun from 6.9 to
 * 7.6 s (its EV_FIRE_WEAPON every 100 ms); each shot throws a shell from its origin plus
 * (8, -4, 24) along its view's axes (25.6 units away: sqrt(64 + 16 + 576); at age 0 up to
 * 15 ms of its flight, trTime's rand() & 15, at most sqrt(90^2 + 150^2) = 175 units a
 * second: within 2.7 units of that), which flies at
 * most sqrt(0 + 90^2) = 90 units a second sideways before it bounces (by 0.4: slower after),
 * lies on a surface within 2 s and is gone after cg_brassTime's 2.5 + 0.625 s. The frame
 * from beside the recorder changes with the burst's shells while they fly and lie, not
 * after (11 s: the last gone by 7.6 + 3.125). */
TEST(q3mark_brass_ejected_and_lying)
{
    OA_DEMO088(tl);
    qd_error err;
    const cl_state *at = tl_state_at(tl, 8.0, &err);
    CHECK(at);
    static const cl_fxev *fx[CL_FX_LOG];
    const cl_fxev *shot[16];
    int nfx = at ? cl_fx_at(at, 8.0, fx, CL_FX_LOG) : 0, n = 0;
    for (int i = 0; i < nfx && n < 16; i++)
        if (fx[i]->kind == CL_FXK_BRASS && fx[i]->entity == 1 && fx[i]->style == 2)
            shot[n++] = fx[i];
    CHECK_MSG(n >= 7, "%d machine gun shells of the recorder", n);
    app_opts o;
    app_world w;
    oa_world(&o, &w);
    if (at && n >= 7) {
        app_world_update(&w, &o, at);
        const mdl_bsp *b = w.assets ? w.assets->world.bsp : NULL;
        CHECK(b);
        int away = 0, lying = 0, floating = 0, far = 0, gone = 0;
        for (int i = 0; i < n; i++) {
            float p[2][3];
            int lies[2];
            CHECK_EQ(r_q3_brass_places(b, shot[i], 0.0, p, lies), 1);
            float d[3] = {p[0][0] - shot[i]->origin[0], p[0][1] - shot[i]->origin[1],
                          p[0][2] - shot[i]->origin[2]};
            away += fabsf(sqrtf(dot3(d, d)) - 25.6125f) > 2.7f;
            if (r_q3_brass_places(b, shot[i], 2.0, p, lies) == 1 && lies[0]) {
                lying++;
                float from[3] = {p[0][0], p[0][1], p[0][2] + 1},
                      to[3] = {p[0][0], p[0][1], p[0][2] - 3}, dd;
                uint32_t face;
                floating += !r_q3_trace(b, from, to, &dd, &face);
                float h = hypotf(p[0][0] - shot[i]->origin[0], p[0][1] - shot[i]->origin[1]);
                far += h > 25.6125f + 90 * 2;
            }
            gone += r_q3_brass_places(b, shot[i], 3.2, p, lies) == 0;
        }
        CHECK_MSG(away == 0 && lying == n && floating == 0 && far == 0 && gone == n,
                  "%d shells: %d not near 25.6 units, %d lying at 2 s (%d on nothing, %d too far), "
                  "%d gone at 3.2 s",
                  n, away, lying, floating, far, gone);
        r_camera cam = {.origin = {50, -330, 420}, .angles = {30, -120, 0}, .fov = 90};
        static const double when[3] = {7.45, 8.5, 11.0};
        int differ[3];
        CHECK(frames_change(tl, &w, &o, &cam, when, 3, drop_burst, NULL, differ));
        for (int k = 0; k < 3; k++)
            CHECK_MSG(differ[k] == (k < 2), "at %.2f s the burst's shells %s the frame",
                      when[k], differ[k] ? "change" : "do not change");
    }
    app_world_free(&w);
    tl_close(tl);
}

/* A frame is the same bytes whatever was drawn before it: the marks' pieces are cut into
 * scratch arrays each frame, and a gib's bounce time (r_mark_frag.after) set there by one
 * frame was read back by the next frame's marks as theirs, hiding their pieces until that
 * time (demo088's red rail mark at 71.0 s vanished after a frame of the 15.05 s gibbing). The
 * frame at 71.0 s, fresh, then after a frame at 15.5 s, is the same. */
TEST(q3mark_frame_the_same_after_another)
{
    OA_DEMO088(tl);
    qd_error err;
    app_opts o;
    app_world w;
    oa_world(&o, &w);
    enum { FW = 320, FH = 180 };
    rast_fb *first = rast_fb_new(FW, FH), *other = rast_fb_new(FW, FH),
            *again = rast_fb_new(FW, FH);
    r_camera cam = {.origin = {-35, -1700, 430}, .angles = {5, -90, 0}, .fov = 90}, gib_cam = {.origin = {6, -1450, 450}, .angles = {10, 90, 0}, .fov = 90};
    r_options opt = {.mode = R_MODE_TEXTURED, .threads = 1};
    const struct {
        double t;
        const r_camera *cam;
        rast_fb *fb;
    } order[3] = {{71.0, &cam, first}, {15.5, &gib_cam, other}, {71.0, &cam, again}};
    for (int k = 0; k < 3; k++) {
        const cl_state *at = tl_state_at(tl, order[k].t, &err);
        CHECK(at);
        if (!at)
            break;
        app_world_update(&w, &o, at);
        r_render(w.assets, at, order[k].t, order[k].cam, &opt, order[k].fb);
    }
    int differ = 0;
    for (int i = 0; i < FW * FH; i++)
        differ += first->color[i] != again->color[i];
    CHECK_MSG(differ == 0, "%d pixels differ between the two frames at 71.0 s", differ);
    rast_fb_free(first);
    rast_fb_free(other);
    rast_fb_free(again);
    app_world_free(&w);
    tl_close(tl);
}
