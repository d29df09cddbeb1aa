/* test_textured.c: the textured mode on the bundled e1m1 (GPL map), and frames split over
 * threads (the same bytes as one thread, in every mode): a light style lights
 * exactly the faces that use it; a map whose textures are all absent draws exactly as flat
 * mode, without an error; the surface cache never changes a pixel; the sky leaves no marked
 * pixel behind. The face each pixel shows comes from an id frame: flat mode with every face's
 * flat colour replaced by its index (r_local.h: the tests may look inside the renderer). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/render/r_local.h"
#include "../test.h"

#define MAP "assets/maps/e1m1.bsp"
#define W 320
#define H 240

static uint8_t *slurp(const char *path, size_t *len)
{
    return test_read_file(path, len);
}

/* The map (from memory) and the sample's colormap and palette, by name. */
typedef struct world_files {
    const uint8_t *map;
    size_t map_len;
    const uint8_t *lit; /* maps/e1m1.lit, or NULL */
    size_t lit_len;
} world_files;

static qd_err read_world(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    const world_files *w = ctx;
    if (strcmp(name, "maps/e1m1.bsp") == 0) {
        *data = malloc(w->map_len);
        memcpy(*data, w->map, w->map_len);
        *len = w->map_len;
        return QD_OK;
    }
    if (strcmp(name, "maps/e1m1.lit") == 0 && w->lit) {
        *data = malloc(w->lit_len);
        memcpy(*data, w->lit, w->lit_len);
        *len = w->lit_len;
        return QD_OK;
    }
    if (strcmp(name, "gfx/colormap.lmp") == 0 && (*data = slurp("assets/gfx/colormap.lmp", len)))
        return QD_OK;
    return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
}

static void sample_palette(uint32_t pal[256])
{
    size_t len = 0;
    uint8_t *p = slurp("assets/palette.lmp", &len);
    if (!p || !mdl_palette_from_lmp(p, len, pal))
        mdl_palette_grey(pal);
    free(p);
}

/* The map in memory as the level's assets, with the sample's palette and colormap. */
static r_assets *load(const uint8_t *map, size_t len, cl_state *cl, qd_error *err)
{
    world_files wf = {map, len, NULL, 0};
    uint32_t pal[256];
    sample_palette(pal);
    return r_assets_load(&cl->level, read_world, &wf, pal, err);
}

/* A test's scene: e1m1 in memory (edit: a change to its bytes first), the level, its
 * assets and map; skips without the file. */
#define SCENE_EDIT(map, len, cl, a, b, err, edit)                                             \
    size_t len;                                                                              \
    uint8_t *map = slurp(MAP, &len);                                                         \
    if (!map)                                                                                \
        SKIP("run from the project root (" MAP ")");                                         \
    edit;                                                                                    \
    cl_state *cl = level();                                                                  \
    qd_error err;                                                                            \
    r_assets *a = load(map, len, cl, &err);                                                  \
    CHECK(a && r_assets_map(a));                                                             \
    const mdl_bsp *b = r_assets_map(a)
#define SCENE(map, len, cl, a, b, err) SCENE_EDIT(map, len, cl, a, b, err, (void)0)

static void done(r_assets *a, cl_state *cl, uint8_t *map)
{
    r_assets_free(a);
    free(cl);
    free(map);
}

static cl_state *level(void)
{
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    snprintf(cl->level.map, sizeof cl->level.map, "maps/e1m1.bsp");
    cl->level.num_models = 2;
    snprintf(cl->level.models[1], sizeof cl->level.models[1], "maps/e1m1.bsp");
    return cl;
}

/* Camera 96 units in front of face fi's centre, looking at it. */
static void face_camera(const mdl_bsp *b, uint32_t fi, r_camera *cam)
{
    const mdl_face *f = &b->faces[fi];
    float c[3] = {0, 0, 0};
    for (uint32_t i = 0; i < f->num_verts; i++)
        for (int j = 0; j < 3; j++)
            c[j] += b->verts[f->first_vert + i][j] / (float)f->num_verts;
    memset(cam, 0, sizeof *cam);
    for (int j = 0; j < 3; j++)
        cam->origin[j] = c[j] + f->normal[j] * 96.0f;
    /* forward = -normal; Quake's AngleVectors: forward z = -sin(pitch) */
    cam->angles[0] = (float)(asin(f->normal[2]) * 180.0 / M_PI);
    cam->angles[1] = (float)(atan2(-f->normal[1], -f->normal[0]) * 180.0 / M_PI);
    cam->fov = 90;
}

/* The face index each pixel shows (-1: none), from a flat frame with index colours. */
static void id_frame(r_assets *a, const cl_state *cl, const r_camera *cam, int32_t *ids)
{
    r_bsp *rb = &a->world;
    uint32_t *keep = malloc(rb->bsp->num_faces * sizeof *keep);
    memcpy(keep, rb->flat, rb->bsp->num_faces * sizeof *keep);
    for (uint32_t i = 0; i < rb->bsp->num_faces; i++)
        rb->flat[i] = rast_rgb(i & 255, i >> 8 & 255, i >> 16 & 255) & 0x00ffffffu;
    /* alpha 0 would read as the sky's mark: index colours use alpha 1 */
    for (uint32_t i = 0; i < rb->bsp->num_faces; i++)
        rb->flat[i] |= 0x01000000u;
    rast_fb *fb = rast_fb_new(W, H);
    rast_clear(fb, 0);
    r_options o = {.mode = R_MODE_FLAT};
    r_render(a, cl, 0, cam, &o, fb);
    for (int i = 0; i < W * H; i++) {
        uint32_t c = fb->color[i];
        ids[i] = c >> 24 == 1 ? (int32_t)(c & 0xffffff) : -1;
    }
    rast_fb_free(fb);
    memcpy(rb->flat, keep, rb->bsp->num_faces * sizeof *keep);
    free(keep);
}

static int has_style(const mdl_bsp *b, int32_t fi, int style)
{
    if (fi < 0 || (uint32_t)fi >= b->num_faces)
        return 0;
    const mdl_face_lm *lm = &b->face_lm[fi];
    for (int k = 0; k < lm->num_styles; k++)
        if (lm->styles[k] == style)
            return 1;
    return 0;
}

TEST(textured_light_style_lights_its_faces_and_no_others)
{
    SCENE(map, len, cl, a, b, err);
    /* the biggest face (most corners) lit by a style other than 0 as well as style 0 */
    int32_t pick = -1;
    int style = -1;
    for (uint32_t i = 0; i < b->num_faces; i++) {
        const mdl_face_lm *lm = &b->face_lm[i];
        if (lm->num_styles >= 2 && lm->styles[1] != 0 && lm->styles[1] < CL_MAX_LIGHTSTYLES &&
            (pick < 0 || b->faces[i].num_verts > b->faces[pick].num_verts)) {
            pick = (int32_t)i;
            style = lm->styles[1];
        }
    }
    CHECK(pick >= 0);
    r_camera cam;
    face_camera(b, (uint32_t)pick, &cam);
    static int32_t ids[W * H];
    id_frame(a, cl, &cam, ids);
    rast_fb *on = rast_fb_new(W, H), *off = rast_fb_new(W, H);
    r_options o = {.mode = R_MODE_TEXTURED};
    snprintf(cl->level.lightstyles[style], CL_NAME_LEN, "m"); /* 264: normal */
    r_render(a, cl, 0, &cam, &o, on);
    snprintf(cl->level.lightstyles[style], CL_NAME_LEN, "a"); /* 0: off */
    r_render(a, cl, 0, &cam, &o, off);
    int changed = 0, styled = 0, stray = 0;
    for (int i = 0; i < W * H; i++) {
        int mine = has_style(b, ids[i], style);
        styled += mine;
        if (on->color[i] != off->color[i]) {
            changed++;
            stray += !mine;
        }
    }
    /* the picked face fills much of the view; the style reaches part of it (on e1m1's face
     * 5080, the one picked, its samples are non-zero on 36 of 60 luxels), and a pixel also
     * stays where the colormap gives the same colour for both lights (dark texels) */
    CHECK(styled > W * H / 10);
    CHECK(changed > W * H / 50);
    CHECK_EQ(stray, 0);
    rast_fb_free(on);
    rast_fb_free(off);
    done(a, cl, map);
}

/* Point the level-0 pixels of miptex `only` (-1: every one) outside the lump (bspfile.h:
 * lump 2 is the textures: a count, offsets, then miptex_t {name[16], width, height,
 * offsets[4]}); its name into name (16 bytes) when not NULL. */
static void lose_texture(uint8_t *map, size_t len, int only, char *name)
{
    uint32_t lofs = (uint32_t)map[4 + 16] | (uint32_t)map[4 + 17] << 8 |
                    (uint32_t)map[4 + 18] << 16 | (uint32_t)map[4 + 19] << 24;
    uint32_t n = (uint32_t)map[lofs] | (uint32_t)map[lofs + 1] << 8;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *p = map + lofs + 4 + 4 * i;
        int32_t o = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                              (uint32_t)p[3] << 24);
        if (o < 0 || lofs + (uint32_t)o + 40 > len || (only >= 0 && (uint32_t)only != i))
            continue;
        if (name)
            memcpy(name, map + lofs + (uint32_t)o, 16);
        uint8_t *mip0 = map + lofs + (uint32_t)o + 24;
        mip0[0] = mip0[1] = mip0[2] = 0xff;
        mip0[3] = 0x7f;
    }
}

TEST(textured_without_textures_draws_as_flat_without_error)
{
    SCENE_EDIT(map, len, cl, a, b, err, lose_texture(map, len, -1, NULL));
    CHECK_EQ(err.code, QD_OK);
    CHECK(b->num_textures > 0);
    for (uint32_t i = 0; i < b->num_textures; i++)
        CHECK(b->textures[i].mips[0] == NULL);
    /* three views of three different faces, each showing walls */
    rast_fb *tex = rast_fb_new(W, H), *flat = rast_fb_new(W, H);
    for (uint32_t k = 0; k < 3; k++) {
        r_camera cam;
        face_camera(b, k * (b->num_faces / 3), &cam);
        r_options ot = {.mode = R_MODE_TEXTURED}, of = {.mode = R_MODE_FLAT};
        r_render(a, cl, 1.0, &cam, &ot, tex);
        r_render(a, cl, 1.0, &cam, &of, flat);
        int drawn = 0;
        for (int i = 0; i < W * H; i++)
            drawn += flat->depth[i] > 0;
        CHECK_MSG(drawn > W * H / 4, "view %u: %d pixels drawn", k, drawn);
        CHECK(memcmp(tex->color, flat->color, sizeof(uint32_t) * W * H) == 0);
    }
    rast_fb_free(tex);
    rast_fb_free(flat);
    done(a, cl, map);
}

TEST(textured_cache_never_changes_a_pixel_and_sky_is_filled)
{
    SCENE(map, len, cl, a, b, err);
    /* a small cache (flushed often) shared by all views, against a fresh one per frame */
    r_cache *small = r_cache_new(64 * 1024);
    rast_fb *x = rast_fb_new(W, H), *y = rast_fb_new(W, H);
    int sky_faces = 0, distinct_max = 0;
    for (uint32_t k = 0; k < 24; k++) {
        uint32_t fi = k * (b->num_faces / 24);
        sky_faces += (b->faces[fi].flags & MDL_SURF_SKY) != 0;
        r_camera cam;
        face_camera(b, fi, &cam);
        snprintf(cl->level.lightstyles[0], CL_NAME_LEN, k & 1 ? "m" : "abcdefghijklmnopqrstuvwxyz");
        r_options shared = {.mode = R_MODE_TEXTURED, .cache = small},
                  own = {.mode = R_MODE_TEXTURED};
        r_render(a, cl, 0.25 * k, &cam, &shared, x);
        r_render(a, cl, 0.25 * k, &cam, &own, y);
        CHECK(memcmp(x->color, y->color, sizeof(uint32_t) * W * H) == 0);
        int marked = 0;
        for (int i = 0; i < W * H; i++)
            marked += x->color[i] == R_SKY_MARK;
        CHECK_EQ(marked, 0);
        /* a textured view has many colours (flat: one per face seen) */
        static uint32_t seen[8192];
        memset(seen, 0, sizeof seen);
        int distinct = 0;
        for (int i = 0; i < W * H; i++) {
            uint32_t c = (x->color[i] & 0xffffffu) | 0x1000000u, h = (c * 2654435761u) >> 19;
            while (seen[h] && seen[h] != c)
                h = (h + 1) & 8191;
            distinct += !seen[h];
            seen[h] = c;
        }
        distinct_max = distinct > distinct_max ? distinct : distinct_max;
    }
    /* the colormap gives at most 256 colours; a flat view of one face has one */
    CHECK(distinct_max >= 64);
    /* and a view of a sky face (the 24 above need not hold one): its pixels, as the face
     * ids show them, are all filled, none left with the sky's mark */
    uint32_t sky = 0;
    while (sky < b->num_faces && !(b->faces[sky].flags & MDL_SURF_SKY))
        sky++;
    CHECK_MSG(sky < b->num_faces, "e1m1 has no sky face (%d among the 24 views)", sky_faces);
    r_camera cam;
    face_camera(b, sky, &cam);
    static int32_t ids[W * H];
    id_frame(a, cl, &cam, ids);
    r_options own = {.mode = R_MODE_TEXTURED};
    r_render(a, cl, 1.0, &cam, &own, x);
    int sky_px = 0, marked = 0;
    for (int i = 0; i < W * H; i++) {
        sky_px += ids[i] >= 0 && (b->faces[ids[i]].flags & MDL_SURF_SKY);
        marked += x->color[i] == R_SKY_MARK;
    }
    CHECK_MSG(sky_px > W * H / 20 && marked == 0, "%d sky pixels, %d marked", sky_px, marked);
    r_cache_free(small);
    rast_fb_free(x);
    rast_fb_free(y);
    done(a, cl, map);
}

TEST(render_threads_give_the_same_bytes_as_one)
{
    SCENE(map, len, cl, a, b, err);
    snprintf(cl->level.lightstyles[0], CL_NAME_LEN, "mmnmmommommnonmmonqnmmo");
    rast_fb *one = rast_fb_new(W, H), *many = rast_fb_new(W, H);
    r_cache *c1 = r_cache_new(0), *cn = r_cache_new(0);
    static const int counts[3] = {2, 3, 7}; /* 7 splits 240 rows unevenly */
    for (uint32_t k = 0; k < 6; k++) {
        r_camera cam;
        face_camera(b, 1 + k * (b->num_faces / 6), &cam);
        for (int mode = 0; mode < 3; mode++)
            for (int j = 0; j < 3; j++) {
                r_options o1 = {.mode = mode, .cache = c1, .threads = 1},
                          on = {.mode = mode, .cache = cn, .threads = counts[j]};
                int n1 = r_render(a, cl, 0.3 * k, &cam, &o1, one);
                int nn = r_render(a, cl, 0.3 * k, &cam, &on, many);
                CHECK_EQ(n1, nn);
                CHECK(memcmp(one->color, many->color, sizeof(uint32_t) * W * H) == 0);
                CHECK(memcmp(one->depth, many->depth, sizeof(float) * W * H) == 0);
            }
    }
    r_cache_free(c1);
    r_cache_free(cn);
    rast_fb_free(one);
    rast_fb_free(many);
    done(a, cl, map);
}

/* The AVX2 copies of the rasteriser (rast_avx2.c with loads, rast_avx2g.c with gathers,
 * rast_avx512.c in AVX-512's encoding where the processor has it) draw the bytes the SSE2
 * one does: the same six views of the sample map in the three modes, one thread, at each
 * level. */
TEST(render_avx2_gives_the_same_bytes_as_sse2)
{
    int was = rast_simd(-1);
    const int top = rast_simd(4); /* the highest level here */
    if (top < 2) {
        rast_simd(was);
        SKIP("this processor or build has no AVX2 copy");
    }
    SCENE(map, len, cl, a, b, err);
    rast_fb *x = rast_fb_new(W, H), *y = rast_fb_new(W, H);
    r_cache *c1 = r_cache_new(0), *c2 = r_cache_new(0);
    for (uint32_t k = 0; k < 6; k++) {
        r_camera cam;
        face_camera(b, 1 + k * (b->num_faces / 6), &cam);
        for (int mode = 0; mode < 3; mode++)
            for (int level = 2; level <= top; level++) {
                r_options o1 = {.mode = mode, .cache = c1, .threads = 1},
                          o2 = {.mode = mode, .cache = c2, .threads = 1};
                CHECK_EQ(rast_simd(level), level);
                r_render(a, cl, 0.3 * k, &cam, &o1, x);
                CHECK_EQ(rast_simd(1), 1);
                r_render(a, cl, 0.3 * k, &cam, &o2, y);
                CHECK(memcmp(x->color, y->color, sizeof(uint32_t) * W * H) == 0);
                CHECK(memcmp(x->depth, y->depth, sizeof(float) * W * H) == 0);
            }
    }
    rast_simd(was);
    r_cache_free(c1);
    r_cache_free(c2);
    rast_fb_free(x);
    rast_fb_free(y);
    done(a, cl, map);
}

/* `info` names the textures a map lacks (drawn flat): the sample on a copy of e1m1 whose
 * first miptex lost its pixels lists exactly that one; the map as shipped lists none. */
TEST(textured_info_lists_missing_textures)
{
    const char *q = getenv("QDEMO");
    size_t len;
    uint8_t *map = slurp(MAP, &len);
    if (!map || !q || !*q)
        SKIP("run from the project root with QDEMO set (make test)");
    char name[17] = {0}, dir[600], path[700], cmd[2000], want[64];
    lose_texture(map, len, 0, name);
    snprintf(dir, sizeof dir, "%s/lost", test_tmpdir());
    snprintf(path, sizeof path, "%s/maps", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s", path);
    CHECK_EQ(system(cmd), 0);
    snprintf(path, sizeof path, "%s/maps/e1m1.bsp", dir);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(map, 1, len, fp) == len);
    fclose(fp);
    static char out[1 << 16];
    const char *games[2] = {dir, "assets"};
    for (int g = 0; g < 2; g++) {
        snprintf(cmd, sizeof cmd, "%s info --json assets/smoothme.dem -p %s", q, games[g]);
        FILE *p = popen(cmd, "r");
        CHECK(p);
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        pclose(p);
        const char *list = strstr(out, "\"textures_missing\": [");
        CHECK(list);
        if (g == 0) {
            snprintf(want, sizeof want, "\"textures_missing\": [\"maps/e1m1.bsp: %s\"]", name);
            CHECK(strncmp(list, want, strlen(want)) == 0);
        } else {
            CHECK(strncmp(list, "\"textures_missing\": []", 22) == 0);
        }
    }
    free(map);
}

/* A .lit beside the map colours the light: with every sample pure red (R = the map's own
 * sample, G = B = 0), the pixels of lit faces keep only their red (fullbright palette
 * entries, 224 and up, keep their colour: few pixels; no light leaves 1/32 of a texel); the
 * sky and liquids are unlit either way. A .lit of the wrong size is ignored. */
TEST(textured_lit_file_colours_the_light)
{
    SCENE(map, len, cl, a, b, err);
    size_t ll = b->light_len;
    uint8_t *lit = malloc(8 + 3 * ll);
    memcpy(lit, "QLIT\1\0\0\0", 8);
    for (size_t i = 0; i < ll; i++) {
        lit[8 + 3 * i] = b->lightdata[i];
        lit[8 + 3 * i + 1] = lit[8 + 3 * i + 2] = 0;
    }
    cl_state *cl2 = level();
    for (int wrong = 0; wrong < 2; wrong++) {
        world_files wf = {map, len, lit, wrong ? 8 + 3 * ll - 3 : 8 + 3 * ll};
        uint32_t pal[256];
        sample_palette(pal);
        r_assets *red = r_assets_load(&cl2->level, read_world, &wf, pal, &err);
        CHECK(red && r_assets_map(red));
        rast_fb *fb = rast_fb_new(W, H), *plain = rast_fb_new(W, H);
        int pixels = 0, reddish = 0;
        for (uint32_t k = 0, fi = 0; k < 8; k++, fi += b->num_faces / 8) {
            while (fi + 1 < b->num_faces &&
                   (b->faces[fi].flags & (MDL_SURF_SKY | MDL_SURF_TURB) ||
                    b->face_lm[fi].num_styles == 0))
                fi++; /* a lit wall, not the sky or a liquid */
            r_camera cam;
            face_camera(b, fi, &cam);
            r_options o = {.mode = R_MODE_TEXTURED};
            r_render(red, cl2, 0, &cam, &o, fb);
            r_render(a, cl, 0, &cam, &o, plain);
            static int32_t ids[W * H];
            id_frame(a, cl, &cam, ids);
            for (int i = 0; i < W * H; i++) {
                uint32_t c = fb->color[i];
                const mdl_face *f = ids[i] >= 0 ? &b->faces[ids[i]] : NULL;
                if (!f || f->flags & (MDL_SURF_SKY | MDL_SURF_TURB | MDL_SURF_FULLBRIGHT))
                    continue; /* unlit in Quake: the sky, liquids, special surfaces */
                pixels += (c & 0xffffff) != 0;
                /* the darkest light still shows 1/32 of a texel (the colormap's last row) */
                reddish += (c & 0xffffff) != 0 && (c >> 8 & 255) <= 8 && (c >> 16 & 255) <= 8;
            }
            if (wrong) /* ignored: as without a .lit */
                CHECK(memcmp(fb->color, plain->color, sizeof(uint32_t) * W * H) == 0);
        }
        if (!wrong)
            CHECK(pixels > W * H && reddish * 50 > pixels * 49);
        rast_fb_free(fb);
        rast_fb_free(plain);
        r_assets_free(red);
    }
    free(cl2);
    free(lit);
    done(a, cl, map);
}

/* Quake's sky, pixel by pixel from GLQuake's formula (R_DrawSkyChain / EmitSkyPolys, as
 * r_surf.c's comment gives it): the direction through the pixel's centre, its height
 * tripled, scaled to 378 / length; the front layer (16 texels a second) over the back (8),
 * the front's alpha 0 see-through. Every pixel of a frame all marked as sky, looked at from
 * a tilted view, against that formula written out here in the same float operations: r_surf_sky
 * draws four pixels at a time where it can, so this checks those against the formula too. */
TEST(textured_quake_sky_layers_by_hand)
{
    enum { SW = 67, SH = 23 }; /* a width that leaves a partial block of four on each row */
    r_assets *a = calloc(1, sizeof *a);
    rast_fb *fb = rast_fb_new(SW, SH);
    CHECK(a && fb);
    a->sky_ok = 1;
    for (int i = 0; i < 128 * 128; i++) {
        a->sky_back[i] = 0xff000000u | (uint32_t)i * 2654435761u >> 8;
        /* the front see-through on a checkerboard of 8-texel squares */
        a->sky_front[i] = ((i >> 3 ^ i >> 10) & 1) ? 0xff000000u | (uint32_t)i * 40503u : 0;
    }
    for (int i = 0; i < SW * SH; i++)
        fb->color[i] = R_SKY_MARK;
    fb->color[5] = 0xff123456u; /* one pixel that is not sky stays */
    r_view v;
    memset(&v, 0, sizeof v);
    v.fb = fb;
    v.y0 = 0;
    v.y1 = SH;
    v.sky_marked = 1;
    v.time = 3.7;
    v.scale = 40.0f;
    v.cx = SW / 2.0f;
    v.cy = SH / 2.0f;
    const float ang[3] = {-35, 20, 10}; /* looking up, turned, rolled */
    r_angle_vectors(ang, v.fwd, v.right, v.up);
    r_surf_sky(&v, a);
    float back = (float)fmod(3.7 * 8.0, 128.0), front = (float)fmod(3.7 * 16.0, 128.0);
    float inv = 1.0f / v.scale;
    int bad = 0;
    for (int y = 0; y < SH; y++) {
        float dy = -((float)y + 0.5f - v.cy) * inv;
        for (int x = 0; x < SW; x++) {
            uint32_t want = 0xff123456u;
            if (y * SW + x != 5) {
                float dx = ((float)x + 0.5f - v.cx) * inv, d[3];
                for (int j = 0; j < 3; j++)
                    d[j] = v.fwd[j] + v.right[j] * dx + v.up[j] * dy;
                d[2] *= 3;
                float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                float k = len > 0 ? 378.0f / len : 0, us = d[0] * k, ut = d[1] * k;
                int bs = (int)floorf(back + us) & 127, bt = (int)floorf(back + ut) & 127;
                int fs = (int)floorf(front + us) & 127, ft = (int)floorf(front + ut) & 127;
                uint32_t c = a->sky_front[ft * 128 + fs];
                want = c >> 24 ? c : a->sky_back[bt * 128 + bs];
            }
            bad += fb->color[y * SW + x] != want;
        }
    }
    CHECK_EQ(bad, 0);
    rast_fb_free(fb);
    free(a);
}

static uint32_t le32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A hostile edit of e1m1's bytes (BSP29: lump i's offset and size at 4 + 8i): every plain
 * texinfo's axes (40-byte entries of lump 6, flags 0) times `scale` and every face without a
 * lightmap (20-byte entries of lump 7, styles at 12..15 set to 255): its faces' texture
 * extents grow that much, their lit blocks with them. */
static void huge_extents(uint8_t *map, size_t len, float scale)
{
    uint32_t tofs = le32_at(map + 4 + 8 * 6), tlen = le32_at(map + 4 + 8 * 6 + 4);
    uint32_t fofs = le32_at(map + 4 + 8 * 7), flen = le32_at(map + 4 + 8 * 7 + 4);
    for (uint32_t i = 0; tofs + (i + 1) * 40 <= len && (i + 1) * 40 <= tlen; i++) {
        uint8_t *t = map + tofs + i * 40;
        if (le32_at(t + 36) != 0)
            continue;
        for (int k = 0; k < 8; k++) {
            if (k % 4 == 3)
                continue; /* (the offsets) */
            float v;
            memcpy(&v, t + 4 * k, 4);
            v *= scale;
            memcpy(t + 4 * k, &v, 4);
        }
    }
    for (uint32_t i = 0; fofs + (i + 1) * 20 <= len && (i + 1) * 20 <= flen; i++)
        memset(map + fofs + i * 20 + 12, 255, 4);
}

/* Faces whose texture axes are 32 times too long (a hostile map's: extents of thousands of
 * texels on small faces): their blocks are made at most 16 texels a pixel they cover (or
 * 16,384), so the six views build a bounded number of texels: 16 a pixel of the frame four
 * times over (overdraw) and 16,384 a polygon drawn. Before the fix each face's block was
 * made whole at mip 3, up to 1 M texels: 137 M texels for the view of 1,913 polygons
 * (bound 36 M; now 4.0 M); a review measured 3 s a frame on a dm4 so edited. */
TEST(textured_huge_texture_extents_build_bounded_blocks)
{
    SCENE_EDIT(map, len, cl, a, b, err, huge_extents(map, len, 32.0f));
    r_cache *c = r_cache_new(0);
    rast_fb *fb = rast_fb_new(W, H);
    uint64_t worst = 0, faces = 0;
    for (uint32_t k = 0; k < 6; k++) {
        r_camera cam;
        face_camera(b, 1 + k * (b->num_faces / 6), &cam);
        uint64_t before = r_cache_texels_built(c);
        r_options o = {.mode = R_MODE_TEXTURED, .cache = c, .threads = 1};
        int drawn = r_render(a, cl, 0.3 * k, &cam, &o, fb);
        uint64_t built = r_cache_texels_built(c) - before;
        worst = built > worst ? built : worst;
        faces += (uint64_t)(drawn > 0 ? drawn : 0);
        CHECK_MSG(built <= 16ull * 4 * W * H + 16384ull * (uint64_t)(drawn > 0 ? drawn : 0),
                  "view %u: %llu texels built for %d polygons", k, (unsigned long long)built,
                  drawn);
    }
    fprintf(stderr, "worst %llu texels, %llu polygons\n", (unsigned long long)worst,
            (unsigned long long)faces);
    r_cache_free(c);
    rast_fb_free(fb);
    done(a, cl, map);
}

/* e1m1 with a texture lump of 8 entries more, all one 4096 x 4096 liquid ("*bigwater", every
 * level present, each a pattern of its own), and every liquid texinfo on one of the 8: a new
 * buffer (free it), NULL when it cannot be made. */
static uint8_t *big_liquid(const uint8_t *map, size_t len, size_t *out_len)
{
    enum { EXTRA = 8, SIDE = 4096 };
    uint32_t lofs = le32_at(map + 4 + 8 * 2), llen = le32_at(map + 4 + 8 * 2 + 4);
    uint32_t tofs = le32_at(map + 4 + 8 * 6), tlen = le32_at(map + 4 + 8 * 6 + 4);
    uint32_t n = le32_at(map + lofs);
    size_t pixels = (size_t)SIDE * SIDE * 85 / 64; /* the four levels */
    size_t grow = 4 * EXTRA, new_len = 4 + 4 * (size_t)(n + EXTRA) + (llen - 4 - 4 * n) + 40 + pixels;
    uint8_t *m = malloc(len + new_len);
    if (!m || lofs + llen > len || 4 + 4 * n > llen || tofs + tlen > len)
        return free(m), NULL;
    memcpy(m, map, len);
    uint8_t *l = m + len; /* the new lump, at the end */
    uint32_t big = (uint32_t)(new_len - 40 - pixels);
    uint32_t v = n + EXTRA;
    memcpy(l, &v, 4);
    for (uint32_t i = 0; i < n; i++) {
        int32_t o = (int32_t)le32_at(map + lofs + 4 + 4 * i);
        if (o >= 0)
            o += (int32_t)grow;
        memcpy(l + 4 + 4 * i, &o, 4);
    }
    for (uint32_t i = n; i < n + EXTRA; i++)
        memcpy(l + 4 + 4 * i, &big, 4);
    memcpy(l + 4 + 4 * (n + EXTRA), map + lofs + 4 + 4 * n, llen - 4 - 4 * n);
    uint8_t *t = l + big;
    memset(t, 0, 40);
    memcpy(t, "*bigwater", 9);
    uint32_t wh = SIDE, at = 40;
    memcpy(t + 16, &wh, 4);
    memcpy(t + 20, &wh, 4);
    for (int k = 0; k < 4; k++) {
        memcpy(t + 24 + 4 * k, &at, 4);
        uint32_t side = SIDE >> k;
        for (uint32_t y = 0; y < side; y++)
            for (uint32_t x = 0; x < side; x++)
                t[at + y * side + x] = (uint8_t)(((x >> 3) ^ (y >> 3)) * 7 + 32 * k);
        at += side * side;
    }
    uint32_t nofs = (uint32_t)len, nlen = (uint32_t)new_len;
    memcpy(m + 4 + 8 * 2, &nofs, 4);
    memcpy(m + 4 + 8 * 2 + 4, &nlen, 4);
    /* the liquids' texinfos on the new entries, in turn */
    for (uint32_t i = 0, k = 0; (i + 1) * 40 <= tlen; i++) {
        uint8_t *ti = m + tofs + i * 40;
        int32_t mt = (int32_t)le32_at(ti + 32);
        int32_t o = mt >= 0 && (uint32_t)mt < n ? (int32_t)le32_at(map + lofs + 4 + 4 * mt) : -1;
        if (o < 0 || lofs + (uint32_t)o + 16 > len || map[lofs + (uint32_t)o] != '*')
            continue;
        uint32_t to = n + k++ % EXTRA;
        memcpy(ti + 32, &to, 4);
    }
    *out_len = len + new_len;
    return m;
}

/* A liquid texture of 4096 x 4096 (a hostile map's, as big as the loader takes) behind 8
 * texture entries: its unlit copy is made once for all 8 and from its level 3 (512 x 512 =
 * 262,144 texels, within R_SURF_MAX_RGBA), and still drawn textured. Before the fix each
 * entry took its own copy of level 0, 16.8 M texels (64 MB) apiece: a review measured 20 s a
 * frame. */
TEST(textured_huge_liquid_copied_once_and_small)
{
    size_t len0, len;
    uint8_t *map0 = slurp(MAP, &len0);
    if (!map0)
        SKIP("run from the project root (" MAP ")");
    uint8_t *map = big_liquid(map0, len0, &len);
    free(map0);
    CHECK(map);
    if (!map)
        return;
    cl_state *cl = level();
    qd_error err;
    r_assets *a = load(map, len, cl, &err);
    CHECK(a && r_assets_map(a));
    if (!a || !r_assets_map(a)) {
        done(a, cl, map);
        return;
    }
    const mdl_bsp *b = r_assets_map(a);
    r_cache *c = r_cache_new(0);
    rast_fb *fb = rast_fb_new(W, H);
    static int32_t ids[W * H];
    int views = 0;
    for (uint32_t fi = 0; fi < b->num_faces && views < 4; fi += 7) {
        if (!(b->faces[fi].flags & MDL_SURF_TURB))
            continue;
        r_camera cam;
        face_camera(b, fi, &cam);
        id_frame(a, cl, &cam, ids);
        uint64_t before = r_cache_texels_built(c);
        r_options o = {.mode = R_MODE_TEXTURED, .cache = c, .threads = 1};
        r_render(a, cl, 0.5, &cam, &o, fb);
        uint64_t built = r_cache_texels_built(c) - before;
        /* the liquid's copy (at most once) and the lit walls around it (under 2 M in
         * e1m1's views) */
        CHECK_MSG(built <= 262144 * (views == 0) + 2000000, "%llu texels built",
                  (unsigned long long)built);
        static uint32_t seen[64];
        int distinct = 0, liquid_px = 0;
        for (int i = 0; i < W * H; i++) {
            if (ids[i] < 0 || !(b->faces[ids[i]].flags & MDL_SURF_TURB))
                continue;
            liquid_px++;
            uint32_t col = fb->color[i] & 0xffffffu;
            int j = 0;
            while (j < distinct && seen[j] != col)
                j++;
            if (j == distinct && distinct < 64)
                seen[distinct++] = col;
        }
        CHECK_MSG(liquid_px < 100 || distinct >= 4, "%d liquid pixels of %d colours",
                  liquid_px, distinct);
        views++;
    }
    CHECK(views > 0);
    /* Quake II's translucent liquids of one texture at 33 and 66 %, in turn (flags set on
     * the loaded faces: the test looks inside): a frame drawn again builds nothing, each
     * alpha keeping its own copy. Before, the two took turns to rebuild one shared copy
     * (a review: 15 M texels a frame drawn again on a Quake II map) */
    mdl_bsp *mb = (mdl_bsp *)b;
    uint32_t turb = 0, k = 0;
    for (uint32_t fi = 0; fi < mb->num_faces; fi++)
        if (mb->faces[fi].flags & MDL_SURF_TURB) {
            mb->faces[fi].flags |= k++ & 1 ? MDL_SURF_TRANS33 : MDL_SURF_TRANS66;
            turb = fi;
        }
    r_camera cam;
    face_camera(b, turb, &cam);
    r_options o = {.mode = R_MODE_TEXTURED, .cache = c, .threads = 1};
    r_render(a, cl, 0.5, &cam, &o, fb);
    uint64_t before = r_cache_texels_built(c);
    r_render(a, cl, 0.5, &cam, &o, fb);
    CHECK_MSG(r_cache_texels_built(c) == before, "%llu texels built again",
              (unsigned long long)(r_cache_texels_built(c) - before));
    r_cache_free(c);
    rast_fb_free(fb);
    done(a, cl, map);
}
