/* test_textured_q3.c: Quake III textures: the image loader and its extension fallback, the
 * shader parser, and OpenArena maps drawn in the textured mode from their deathmatch starts
 * (Debian's openarena-data and openarena-081-maps; skipped when not installed): coverage and
 * a mean colour derived from the images and lightmaps in view, a map whose images are all
 * missing drawn flat without an error, and 1 thread equal to 3 byte for byte. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pak-loader/pak.h"
#include "../../src/app/player.h"
#include "../../src/app/world.h"
#include "../../src/output/out.h"
#include "../../src/common/dirs.h"
#include "../../src/render/r_local.h"
#include "../../src/timeline/timeline.h"
#include "../demo_world.h"
#include "../fxbuild.h"
#include "../md3build.h"
#include "../test.h"

#define OA_DIR "/usr/share/games/openarena/baseoa"
#define W 320
#define H 240

/* ---- images ---- */

typedef struct mem_file {
    const char *name;
    const uint8_t *data;
    size_t len;
} mem_file;

static qd_err mem_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    const mem_file *f = ctx;
    if (strcmp(name, f->name) != 0)
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
    *data = malloc(f->len);
    memcpy(*data, f->data, f->len);
    *len = f->len;
    return QD_OK;
}

/* The PNG in the fuzz corpus was written with pixel (x, y) = (60x, 60y, 100, 255 - 40x);
 * a shader asking for .tga finds it as .png, and the JPEG's size is its SOF0 header's. */
TEST(q3tex_image_fallback)
{
    size_t len;
    uint8_t *png = test_read_file("tests/fuzz/corpus/image/rgba4x3.png", &len);
    if (!png)
        SKIP("run from the project root");
    mem_file f = {"textures/a/b.png", png, len};
    mdl_image *im = NULL;
    qd_error err = {0};
    CHECK_MSG(mdl_image_find(mem_read, &f, "textures/a/b.tga", &im, &err) == QD_OK, "%s",
              err.msg);
    CHECK_EQ(im->w, 4);
    CHECK_EQ(im->h, 3);
    for (uint32_t y = 0; y < 3; y++)
        for (uint32_t x = 0; x < 4; x++) {
            uint32_t c = im->pixels[y * 4 + x];
            CHECK_EQ(c & 255, 60 * x);
            CHECK_EQ(c >> 8 & 255, 60 * y);
            CHECK_EQ(c >> 16 & 255, 100);
            CHECK_EQ(c >> 24, 255 - 40 * x);
        }
    mdl_image_free(im);
    CHECK_EQ(mdl_image_find(mem_read, &f, "textures/a/c", &im, &err), QD_ERR_NOT_FOUND);
    CHECK(im == NULL);
    /* A name whose extension is longer than the formats' (a map's texture name is any
     * text): found as given (its buffer once had room for the stem and 8 bytes only: a
     * heap overrun, found by a review); one over MDL_IMAGE_MAX_NAME bytes in all, however
     * short its stem, is refused. */
    char longext[MDL_IMAGE_MAX_NAME + 2];
    snprintf(longext, sizeof longext, "textures/a.%s",
             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    mem_file fl = {longext, png, len};
    CHECK_MSG(mdl_image_find(mem_read, &fl, longext, &im, &err) == QD_OK, "%s", err.msg);
    CHECK(im && im->w == 4 && im->h == 3);
    mdl_image_free(im);
    im = NULL;
    memset(longext, 'x', sizeof longext - 1);
    longext[sizeof longext - 1] = 0;
    longext[1] = '.';
    CHECK_EQ(mdl_image_find(mem_read, &fl, longext, &im, &err), QD_ERR_LIMIT);
    CHECK(im == NULL);
    free(png);

    uint8_t *jpg = test_read_file("tests/fuzz/corpus/image/small.jpg", &len);
    CHECK(jpg);
    size_t sof = 2; /* walk the markers to SOF0/SOF2: height, width after precision */
    while (sof + 9 < len && !(jpg[sof] == 0xff && (jpg[sof + 1] == 0xc0 || jpg[sof + 1] == 0xc2)))
        sof += 2 + ((size_t)jpg[sof + 2] << 8 | jpg[sof + 3]);
    CHECK(sof + 9 < len);
    uint32_t h = (uint32_t)jpg[sof + 5] << 8 | jpg[sof + 6], w = (uint32_t)jpg[sof + 7] << 8 | jpg[sof + 8];
    mem_file g = {"x.jpg", jpg, len};
    CHECK(mdl_image_find(mem_read, &g, "x.tga", &im, &err) == QD_OK);
    CHECK_EQ(im->w, w);
    CHECK_EQ(im->h, h);
    mdl_image_free(im);
    /* damage: the first bytes only */
    CHECK(mdl_image_load(jpg, 40, "cut.jpg", &im, &err) != QD_OK && im == NULL);
    CHECK(strstr(err.msg, "cut.jpg") != NULL);
    free(jpg);
}

/* A kept crasher of fuzz_image decoded: the error (err filled) or -1 when the file is not
 * there; *len gets its size. Nothing is left allocated. */
static int crasher(const char *file, size_t *len, uint8_t head[64], qd_error *err)
{
    uint8_t *d = test_read_file(file, len);
    if (!d)
        return -1;
    memset(head, 0, 64);
    memcpy(head, d, *len < 64 ? *len : 64);
    mdl_image *im = NULL;
    int r = (int)mdl_image_load(d, *len, file, &im, err);
    if (im)
        r = -2; /* decoded: never expected here */
    mdl_image_free(im);
    free(d);
    return r;
}

/* stb 2.27 wrote past its Huffman table for the first three (fuzz_image; the second's table
 * comes before its frame header, which stb's size query already reads; the third's segment
 * runs past the file's end); the last two's scans use a table no DHT defined (stb's assert
 * aborted on one, the other read its symbols at index -29); the last's scan comes with no
 * quantisation table defined (stb multiplied by unset memory and overflowed its int). Each
 * is refused with the offset of the table or the scan. */
TEST(q3tex_image_huffman_tables_refused)
{
    static const char *const files[] = {"tests/crashers/image/jpeg-huffman-overflow.jpg",
                                        "tests/crashers/image/jpeg-huffman-in-header.jpg",
                                        "tests/crashers/image/jpeg-huffman-cut-segment.jpg",
                                        "tests/crashers/image/jpeg-huffman-assert.jpg",
                                        "tests/crashers/image/jpeg-undefined-table.jpg",
                                        "tests/crashers/image/jpeg-16bit-quant.jpg"};
    for (int i = 0; i < 6; i++) {
        size_t len;
        uint8_t head[64];
        qd_error err = {0};
        int r = crasher(files[i], &len, head, &err);
        if (r == -1)
            SKIP("run from the project root");
        CHECK_MSG(r == QD_ERR_BAD_DATA, "%s: %d %s", files[i], r, err.msg);
        CHECK_MSG(err.offset > 2 && err.offset < len, "%s: %s", files[i], err.msg);
    }
}

/* A baseline JPEG (SOF0 at byte 158) whose first scan (SOS at 292: three components, the
 * third with table byte 0x02, Ss 0, Se 0) names AC table 2, which none of the four DHT
 * segments before it defines (they define DC 0, AC 0, DC 1, AC 1: the bytes 0x00, 0x10,
 * 0x01, 0x11 at 181, 211, 252, 274). A baseline scan decodes every block with both of its
 * tables whatever Se says, so stb 2.27 decoded with a table it never built (fuzz_image,
 * UBSan: an index of values[] below 0 when the heap held the right garbage). Counted from
 * the file with a marker walk; refused at the scan. */
TEST(q3tex_image_baseline_scan_needs_ac_table)
{
    size_t len;
    uint8_t *d = test_read_file("tests/crashers/image/jpeg-baseline-undefined-ac.jpg", &len);
    if (!d)
        SKIP("run from the project root");
    CHECK_EQ(len, 1836);
    CHECK(d[158] == 0xff && d[159] == 0xc0);
    CHECK(d[181] == 0x00 && d[211] == 0x10 && d[252] == 0x01 && d[274] == 0x11);
    CHECK(d[292] == 0xff && d[293] == 0xda && d[296] == 3 && d[302] == 0x02 && d[304] == 0);
    mdl_image *im = NULL;
    qd_error err = {0};
    CHECK_EQ(mdl_image_load(d, len, "jpeg-baseline-undefined-ac.jpg", &im, &err),
             QD_ERR_BAD_DATA);
    CHECK_EQ(err.offset, 292);
    mdl_image_free(im);
    free(d);
}

/* A 69-byte run-length TGA whose header claims 4096 x 2304 (fuzz_image's slow input: stb
 * filled 37 MB for it): at most 64 pixels a byte can be described, so it is refused. */
TEST(q3tex_image_size_claim_refused)
{
    size_t len;
    uint8_t d[64];
    qd_error err = {0};
    int r = crasher("tests/crashers/image/tga-huge-claim.tga", &len, d, &err);
    if (r == -1)
        SKIP("run from the project root");
    CHECK_EQ(len, 69);
    CHECK_EQ(d[2], 10); /* run-length true colour */
    CHECK_EQ(d[12] | d[13] << 8, 4096);
    CHECK_EQ(d[14] | d[15] << 8, 2304);
    CHECK_EQ(r, QD_ERR_BAD_DATA);
    CHECK(strstr(err.msg, "4096x2304") != NULL);
}

/* stb offsets a NULL buffer for an empty first IDAT (fuzz_image, undefined behaviour): the
 * file is refused at that chunk (offset 33: signature 8, IHDR 25). */
TEST(q3tex_image_empty_idat_refused)
{
    size_t len;
    uint8_t d[64];
    qd_error err = {0};
    int r = crasher("tests/crashers/image/png-empty-idat.png", &len, d, &err);
    if (r == -1)
        SKIP("run from the project root");
    CHECK(memcmp(d + 37, "IDAT", 4) == 0 && d[33] == 0 && d[34] == 0 && d[35] == 0 && d[36] == 0);
    CHECK_EQ(r, QD_ERR_BAD_DATA);
    CHECK_EQ(err.offset, 33);
}

/* ---- shaders ---- */

static const char script[] =
    "// comment\n"
    "textures/base/wall\n{\n\tsurfaceparm trans\n\tcull none\n"
    "\t{\n\t\tmap $lightmap\n\t\trgbGen identity\n\t}\n"
    "\t{\n\t\tmap textures/base/wall.tga\n\t\tblendFunc GL_DST_COLOR GL_ZERO\n"
    "\t\talphaFunc GE128\n\t\ttcMod scroll 0.5 -0.25\n\t\ttcMod scale 2 3\n\t}\n}\n"
    "/* block\n comment */\n"
    "textures/sky/box\n{\n\tsurfaceparm sky\n\tskyParms env/box 512 -\n"
    "\t{\n\t\tanimMap 5 textures/a.jpg textures/b.jpg\n\t\tblendfunc add\n"
    "\t\trgbGen const ( 0.5 0.25 1 )\n\t}\n}\n"
    "textures/base/wall\n{\n\tsurfaceparm nodraw\n}\n"
    "textures/cut\n{\n\t{\n\t\tmap textures/cut.jpg\n";

TEST(q3tex_shader_parse)
{
    mdl_shader_set set = {0};
    qd_error err = {0};
    qd_err e = mdl_shader_parse(&set, script, sizeof script - 1, "t.shader", &err);
    /* the last shader is never closed: an error at the end, what came before is kept */
    CHECK_EQ(e, QD_ERR_TRUNCATED);
    CHECK_EQ(err.offset, sizeof script - 1);
    CHECK_EQ(set.count, 4);
    const mdl_shader *s = mdl_shader_find(&set, "TEXTURES/SKY/BOX");
    CHECK(s != NULL);
    CHECK(s->flags & MDL_SHADER_SKY);
    CHECK_STR(s->sky, "env/box");
    CHECK(s->cloud_height == 512.0f); /* skyParms' second word */
    CHECK_STR(s->stage.image, "textures/a.jpg");
    CHECK_EQ(s->blend, MDL_BLEND_ADD);
    CHECK_EQ(s->stage.rgbgen, MDL_RGBGEN_CONST);
    CHECK(s->stage.rgbconst[0] == 0.5f && s->stage.rgbconst[1] == 0.25f &&
          s->stage.rgbconst[2] == 1.0f);
    /* two definitions of the wall in one script: the first is found (ioq3
     * FindShaderInShaderText takes the first in the text); one in a script read after it
     * overrides both (ioq3 joins the scripts in the reverse of their listed order) */
    s = mdl_shader_find(&set, "textures/base/wall");
    CHECK(s && !(s->flags & MDL_SHADER_NODRAW) && (s->flags & MDL_SHADER_LIGHTMAP));
    /* tr_shader.c R_FindShader looks a name up without its extension (COM_StripExtension:
     * OpenArena's flags name "models/flags/...tga" for shaders defined without it); a dot
     * before the last '/' is no extension */
    CHECK(mdl_shader_find(&set, "textures/base/wall.tga") == s);
    CHECK(mdl_shader_find(&set, "textures/base/wall.jpg") == s);
    CHECK(mdl_shader_find(&set, "textures.tga/base/wall") == NULL);
    static const char later[] = "textures/base/wall { surfaceparm nodraw }\n"
                                "textures/base/wall { { map textures/other.tga } }\n";
    CHECK_EQ(mdl_shader_parse(&set, later, sizeof later - 1, "u.shader", &err), QD_OK);
    s = mdl_shader_find(&set, "textures/base/wall");
    CHECK(s && (s->flags & MDL_SHADER_NODRAW) && !s->stage.image[0]);
    /* the first definition, parsed alone */
    mdl_shader_set one = {0};
    const char *second = strstr(script, "/* block");
    CHECK_EQ(mdl_shader_parse(&one, script, (size_t)(second - script), "w.shader", &err), QD_OK);
    s = mdl_shader_find(&one, "textures/base/wall");
    CHECK(s != NULL);
    CHECK_EQ(s->blend, MDL_BLEND_NONE); /* the lightmap stage is first */
    CHECK(s->flags & MDL_SHADER_LIGHTMAP);
    CHECK(s->flags & MDL_SHADER_TWOSIDED);
    CHECK_STR(s->stage.image, "textures/base/wall.tga");
    CHECK_EQ(s->stage.blend, MDL_BLEND_FILTER);
    CHECK_EQ(s->stage.alpha_func, MDL_ALPHA_GE128);
    CHECK_EQ(s->stage.num_tcmods, 2);
    CHECK_EQ(s->stage.tcmods[0].type, MDL_TCMOD_SCROLL);
    CHECK(s->stage.tcmods[0].p[0] == 0.5f && s->stage.tcmods[0].p[1] == -0.25f);
    CHECK_EQ(s->stage.tcmods[1].type, MDL_TCMOD_SCALE);
    CHECK(mdl_shader_find(&one, "textures/base/none") == NULL);
    /* a brace where a name belongs */
    CHECK_EQ(mdl_shader_parse(&one, "}", 1, "b.shader", &err), QD_ERR_BAD_DATA);
    mdl_shader_set_clear(&one);
    mdl_shader_set_clear(&set);
}

/* The second layer (mdl_shader.stage2), on shaders written after OpenArena's own (scripts
 * in pak0.pk3): what each should give is read off the stages by ioq3's rules (every stage
 * drawn in order over the ones before; a stage without a blendFunc replaces the picture). */
static const char layers[] =
    /* acc.shader's brwnwater: a blended layer, then a filter over it */
    "w { surfaceparm trans { map w.tga blendFunc blend tcmod scroll .025 -.01 }\n"
    "    { map w.tga blendFunc filter tcmod scroll .05 -.007 } }\n"
    /* a glow added after the lit texture, pulsing */
    "g { { map $lightmap } { map g.tga blendFunc filter }\n"
    "    { map g_glow.tga blendfunc GL_ONE GL_ONE rgbGen wave sin 0 1 0 1 } }\n"
    /* a shine added, the lightmap after it: the lightmap multiplies the shine too */
    "e { { map e.tga } { map env.tga blendFunc add tcGen environment }\n"
    "    { map $lightmap blendFunc filter } }\n"
    /* metalfloor_wall_14: a stage without blendFunc replaces the picture before the add */
    "m { { map m.jpg } { map tin.tga tcgen environment } { map m.jpg blendfunc add }\n"
    "    { map $lightmap blendfunc filter } }\n"
    /* xmetalfloor_wall_14b: the glow covers the floor, which is blended back over it */
    "x { { map f.tga rgbgen identity } { map glow.jpg tcmod scroll 0 1 rgbgen identity }\n"
    "    { map f.tga blendfunc blend } { map $lightmap blendfunc filter } }\n"
    /* a stage without blendFunc after a lightmap's: the lightmap is covered too */
    "c { { map $lightmap } { map c.tga blendFunc filter } { map c2.tga } }\n"
    /* an alpha-tested stage covers only where its texels pass: not a new first stage but
     * a layer over it */
    "a { { map a.tga } { map a2.tga alphaFunc GE128 } }\n"
    /* dark_tin2: the environment map of 1 - the vertex colour covers the texture */
    "d { { map d.jpg rgbGen identity } { map c.jpg tcGen environment rgbGen oneMinusVertex }\n"
    "    { map d.jpg blendfunc add } { map $lightmap blendfunc filter } }\n"
    /* weapon_shotgun.shader: a blend qdemo has no exact form for (dst colour, dst alpha) */
    "s { { map s.tga } { map spec.tga blendfunc gl_dst_color gl_dst_alpha } }\n"
    /* a terrain's second texture blended by vertex alpha */
    "t { { map rock.jpg } { map grass.jpg blendFunc blend alphaGen vertex } }\n";

/* Script text into set, wholly read (1) or not (0). */
static int parse_all(mdl_shader_set *set, const char *text, size_t len)
{
    qd_error err = {0};
    return mdl_shader_parse(set, text, len, "t.shader", &err) == QD_OK;
}

/* Script text into set, then its shaders named a and b: 1 when it was wholly read and
 * both are found (*x and *y NULL when not). */
static int parse_two(mdl_shader_set *set, const char *text, size_t len, const char *a,
                     const mdl_shader **x, const char *b, const mdl_shader **y)
{
    int ok = parse_all(set, text, len);
    *x = mdl_shader_find(set, a);
    *y = mdl_shader_find(set, b);
    return ok && *x && *y;
}

/* OpenArena's rocketExplosion (pak6-patch088 weaphits.shader, its six stages shortened: two
 * animMap fireballs of GL_ONE GL_SRC_ALPHA, four fire sheets added): every stage is kept, the
 * fifth and sixth as more[2] and more[3] (drawn by the explosions' sprites); a seventh that
 * blends as exactly still has no room. */
TEST(q3tex_shader_keeps_six_stages)
{
    static const char text[] =
        "rocketExplosion {\n"
        "  { animmap 8 a1.tga a2.tga\n blendfunc gl_one gl_src_alpha }\n"
        "  { animmap 8 a2.tga a3.tga\n blendfunc gl_one gl_src_alpha }\n"
        "  { clampmap f3.tga blendfunc add }\n"
        "  { clampmap f4.tga blendfunc add }\n"
        "  { clampmap f5.tga blendfunc add }\n"
        "  { clampmap f6.tga blendfunc add }\n"
        "}\n"
        "seven { { map s1.tga } { map s2.tga blendfunc add } { map s3.tga blendfunc add }\n"
        "  { map s4.tga blendfunc add } { map s5.tga blendfunc add } { map s6.tga blendfunc add }\n"
        "  { map s7.tga blendfunc add } }\n";
    static const char *const want[2][6] = {
        {"rocketExplosion", "a1.tga", "a2.tga", "f3.tga", "f5.tga", "f6.tga"},
        {"seven", "s1.tga", "s2.tga", "s3.tga", "s5.tga", "s6.tga"}};
    mdl_shader_set set = {0};
    CHECK(parse_all(&set, text, sizeof text - 1));
    for (int k = 0; k < 2; k++) {
        const mdl_shader *sh = mdl_shader_find(&set, want[k][0]);
        const char *got[5] = {sh ? sh->stage.image : "", sh ? sh->stage2.image : "",
                              sh ? sh->more[0].image : "", sh ? sh->more[2].image : "",
                              sh ? sh->more[3].image : ""};
        for (int j = 0; j < 5; j++)
            CHECK_MSG(strcmp(got[j], want[k][j + 1]) == 0, "%s: %s where %s belongs",
                      want[k][0], got[j], want[k][j + 1]);
    }
    mdl_shader_set_clear(&set);
}

/* Where a $lightmap stage lies among the layers, on shaders written after OpenArena's
 * (pak0.pk3 scripts): clown.shader's team edges (textures/clown/b_edge: the lightmap blended
 * onto what lies behind at depthFunc equal, then the glow added) are drawn from the glow,
 * added, unlit (ioq3 draws the glow over the pixels behind whatever the lightmap stage
 * did: over the black of space, the glow); oasfx.shader's red_launchpad (the tread, a glow
 * added, the pad's frame blended, the lightmap, a glow added after it) keeps which layers
 * the lightmap comes after (mdl_stage.lit_map): the first glow and the frame, not the
 * last glow. */
TEST(q3tex_shader_lightmap_among_the_layers)
{
    static const char text[] =
        "edge { surfaceparm trans cull none\n"
        "  { map $lightmap blendFunc GL_DST_COLOR GL_ONE depthFunc equal }\n"
        "  { map e.tga blendFunc GL_ONE GL_ONE tcMod turb 3 .3 3 .3 } }\n"
        "pad { { map tread.jpg tcmod scroll 0 1 rgbgen identity }\n"
        "  { map rl.jpg blendfunc add tcmod scroll 0 4 rgbgen wave square 0 .7 0 1.4 }\n"
        "  { map frame.tga blendfunc blend rgbgen identity }\n"
        "  { map $lightmap blendfunc filter rgbgen identity }\n"
        "  { map rl2.jpg blendfunc add rgbgen wave square 0 .7 0 1.4 } }\n";
    mdl_shader_set set = {0};
    const mdl_shader *e, *p;
    CHECK(parse_two(&set, text, sizeof text - 1, "edge", &e, "pad", &p));
    if (e && p) {
        CHECK_STR(e->stage.image, "e.tga");
        CHECK_EQ(e->blend, MDL_BLEND_ADD);
        CHECK(!(e->flags & MDL_SHADER_LIGHTMAP));
        CHECK_STR(p->stage.image, "tread.jpg");
        CHECK_EQ(p->blend, MDL_BLEND_NONE);
        CHECK(p->flags & MDL_SHADER_LIGHTMAP);
        CHECK_STR(p->stage2.image, "rl.jpg");
        CHECK_STR(p->more[0].image, "frame.tga");
        CHECK_STR(p->more[1].image, "rl2.jpg");
        CHECK(p->stage2.lit_map && p->more[0].lit_map && !p->more[1].lit_map);
        CHECK(!p->lightmap_last);
    }
    mdl_shader_set_clear(&set);
}

/* ioq3 ParseStage reads a stage's keywords one after another whatever the lines: rgbGen and
 * alphaGen take their parameters only (rgbGen const's "( r g b )" with its closing
 * parenthesis), so a stage written on one line keeps what follows them (qdemo dropped the
 * rest of the line: the alphaGen, the tcMod). */
TEST(q3tex_shader_stage_on_one_line)
{
    static const char one[] =
        "m { { map m.tga blendFunc blend rgbGen vertex alphaGen vertex tcMod scale 2 3 } }\n"
        "c { { map c.tga rgbGen const ( 1 0.5 0 ) alphaGen wave sin 0.25 0.5 0 2 "
        "tcMod scroll 1 0 } }\n";
    mdl_shader_set set = {0};
    const mdl_shader *m, *c;
    CHECK(parse_two(&set, one, sizeof one - 1, "m", &m, "c", &c));
    if (m && c) {
        CHECK_EQ(m->stage.rgbgen, MDL_RGBGEN_VERTEX);
        CHECK(m->stage.alphagen);
        CHECK_EQ(m->stage.num_tcmods, 1);
        CHECK(m->stage.tcmods[0].type == MDL_TCMOD_SCALE && m->stage.tcmods[0].p[1] == 3.0f);
        CHECK_EQ(c->stage.rgbgen, MDL_RGBGEN_CONST);
        CHECK(c->stage.rgbconst[0] == 1.0f && c->stage.rgbconst[1] == 0.5f &&
              c->stage.rgbconst[2] == 0.0f);
        CHECK(c->stage.alphagen && c->stage.alphawave.func == MDL_WAVE_SIN &&
              c->stage.alphawave.base == 0.25f && c->stage.alphawave.freq == 2.0f);
        CHECK(c->stage.num_tcmods == 1 && c->stage.tcmods[0].type == MDL_TCMOD_SCROLL);
    }
    mdl_shader_set_clear(&set);
}

/* A set holds 4,096 shaders and one more per 64 bytes of script: 5,000 empty shaders of 10
 * bytes each ("s00000 {}" and a newline: 50,000 bytes) stop at 4096 + 50000 / 64 = 4877,
 * with the error at the first one over; the shaders before are kept. */
TEST(q3tex_shader_count_follows_the_scripts_bytes)
{
    enum { N = 5000 };
    char *text = malloc(N * 10 + 1), *p = text;
    CHECK(text != NULL);
    if (!text)
        return;
    for (int i = 0; i < N; i++)
        p += sprintf(p, "s%05d {}\n", i);
    CHECK_EQ(p - text, N * 10);
    mdl_shader_set set = {0};
    qd_error err = {0};
    CHECK_EQ(mdl_shader_parse(&set, text, (size_t)(p - text), "many.shader", &err), QD_ERR_LIMIT);
    CHECK_EQ(set.count, 4877);
    CHECK_EQ(err.offset, 4877 * 10 + 6); /* after the name of the one over */
    CHECK(strstr(err.msg, "many.shader") != NULL);
    mdl_shader_set_clear(&set);
    free(text);
}

/* A keyword whose words are missing at its line's end takes none from the next line (as
 * ioquake3 warns and goes on: a review found deformVertexes and skyParms swallowing the
 * next line's surfaceparm). */
TEST(q3tex_shader_keyword_ending_its_line)
{
    static const char two[] = "d {\n deformVertexes\n surfaceparm nodraw\n}\n"
                              "s {\n skyParms\n surfaceparm nodraw\n}\n";
    mdl_shader_set set = {0};
    const mdl_shader *d, *s;
    CHECK(parse_two(&set, two, sizeof two - 1, "d", &d, "s", &s));
    if (d && s) {
        CHECK(d->flags & MDL_SHADER_NODRAW);
        CHECK(s->flags & MDL_SHADER_NODRAW);
    }
    mdl_shader_set_clear(&set);
}

TEST(q3tex_shader_second_layer)
{
    mdl_shader_set set = {0};
    CHECK(parse_all(&set, layers, sizeof layers - 1));
    const mdl_shader *s = mdl_shader_find(&set, "w");
    CHECK(s && !strcmp(s->stage.image, "w.tga") && !strcmp(s->stage2.image, "w.tga"));
    CHECK(s && s->blend == MDL_BLEND_ALPHA && s->stage2.blend == MDL_BLEND_FILTER &&
          !s->stage2_lit && s->stage2.num_tcmods == 1);
    s = mdl_shader_find(&set, "g");
    CHECK(s && !strcmp(s->stage.image, "g.tga") && !strcmp(s->stage2.image, "g_glow.tga"));
    CHECK(s && s->stage2.blend == MDL_BLEND_ADD && !s->stage2_lit &&
          s->stage2.rgbgen == MDL_RGBGEN_WAVE);
    s = mdl_shader_find(&set, "e");
    CHECK(s && !strcmp(s->stage2.image, "env.tga") && s->stage2.env && s->stage2_lit);
    /* (a stage without blendFunc covers the ones before: the shader is drawn from it,
     * ioq3 RB_IterateStagesGeneric; qdemo drew the first alone until 2026-11-29) */
    s = mdl_shader_find(&set, "m");
    CHECK(s && !strcmp(s->stage.image, "tin.tga") && s->stage.env &&
          !strcmp(s->stage2.image, "m.jpg") && s->stage2.blend == MDL_BLEND_ADD &&
          s->stage2_lit && s->lightmap_last && (s->flags & MDL_SHADER_LIGHTMAP));
    s = mdl_shader_find(&set, "x");
    CHECK(s && !strcmp(s->stage.image, "glow.jpg") && s->stage.num_tcmods == 1 &&
          !strcmp(s->stage2.image, "f.tga") && s->stage2.blend == MDL_BLEND_ALPHA &&
          s->stage2_lit && s->lightmap_last && (s->flags & MDL_SHADER_LIGHTMAP) &&
          s->blend == MDL_BLEND_NONE);
    s = mdl_shader_find(&set, "c");
    CHECK(s && !strcmp(s->stage.image, "c2.tga") && !s->stage2.image[0] &&
          !(s->flags & MDL_SHADER_LIGHTMAP) && !s->lightmap_last);
    s = mdl_shader_find(&set, "a"); /* (the second drawn over it where its texels pass) */
    CHECK(s && !strcmp(s->stage.image, "a.tga") && !strcmp(s->stage2.image, "a2.tga") &&
          s->stage2.alpha_func == MDL_ALPHA_GE128);
    s = mdl_shader_find(&set, "d");
    CHECK(s && !strcmp(s->stage.image, "c.jpg") && s->stage.rgbgen == MDL_RGBGEN_VERTEX &&
          s->stage.one_minus && s->stage.env && !s->stage2.one_minus);
    s = mdl_shader_find(&set, "m"); /* (rgbGen vertex: not one minus) */
    CHECK(s && s->stage.rgbgen == MDL_RGBGEN_DEFAULT && !s->stage.one_minus);
    s = mdl_shader_find(&set, "s");
    CHECK(s && !strcmp(s->stage.image, "s.tga") && !s->stage2.image[0]);
    s = mdl_shader_find(&set, "t");
    CHECK(s && !strcmp(s->stage.image, "rock.jpg") && !s->stage2.image[0]);
    mdl_shader_set_clear(&set);
}

/* A portal shader (OpenArena's acc.shader textures/acc_dm3/fx_portal, as written there):
 * the keyword "portal" marks it; its fog stage of alphaGen portal (with its range) and the
 * stage after it are kept in more[0] and more[1] (drawn over the portal's view, in order),
 * a range left out is 256 (ioq3 ParseStage), and a shader without the keyword is none. */
TEST(q3tex_shader_portal)
{
    static const char text[] =
        "textures/acc_dm3/fx_portal\n{\n\tqer_editorimage textures/acc_dm3/fx_portal.jpg\n"
        "\tportal\n\tsurfaceparm nolightmap\n\tsurfaceparm nomarks\n"
        "\t{\n\t\tmap textures/acc_dm3/portal_sfx.tga\n"
        "\t\tblendFunc GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA\n\t\tdepthWrite\n\t}\n"
        "\t{\n\t\tmap textures/acc_dm3/portal_fog.jpg\n"
        "\t\tblendfunc gl_src_alpha gl_one_minus_src_alpha\n\t\talphagen portal 1024\n"
        "\t\trgbGen identity\t\n\t\ttcmod rotate .1 \n\t\ttcmod scroll .04 .01\n\t}\n"
        "\t{\n\t\tmap textures/acc_dm3/fx_tintedportal.jpg\n\t\trgbgen identity\n"
        "\t\tblendFunc filter\n\t}\n}\n"
        "p2 { portal { map a.tga blendFunc blend }\n"
        "{ map f.jpg blendFunc blend alphaGen portal } }\n"
        "np { { map a.tga blendFunc blend } }\n";
    mdl_shader_set set = {0};
    CHECK(parse_all(&set, text, sizeof text - 1));
    const mdl_shader *s = mdl_shader_find(&set, "textures/acc_dm3/fx_portal");
    CHECK(s != NULL);
    if (s) {
        CHECK(s->flags & MDL_SHADER_PORTAL);
        CHECK(!strcmp(s->stage.image, "textures/acc_dm3/portal_sfx.tga") &&
              s->blend == MDL_BLEND_ALPHA);
        CHECK(!s->stage2.image[0]); /* (the fog is not a plain second layer) */
        CHECK(!strcmp(s->more[0].image, "textures/acc_dm3/portal_fog.jpg"));
        CHECK(s->more[0].alpha_portal && s->more[0].portal_range == 1024.0f);
        CHECK(s->more[0].blend == MDL_BLEND_ALPHA && s->more[0].rgbgen == MDL_RGBGEN_IDENTITY);
        CHECK_EQ(s->more[0].num_tcmods, 2);
        CHECK(!strcmp(s->more[1].image, "textures/acc_dm3/fx_tintedportal.jpg"));
        CHECK(s->more[1].blend == MDL_BLEND_FILTER && !s->more[1].alpha_portal);
    }
    s = mdl_shader_find(&set, "p2");
    CHECK(s && (s->flags & MDL_SHADER_PORTAL) && s->more[0].alpha_portal &&
          s->more[0].portal_range == 256.0f && !s->more[1].image[0]);
    s = mdl_shader_find(&set, "np");
    CHECK(s && !(s->flags & MDL_SHADER_PORTAL) && !s->more[0].image[0]);
    mdl_shader_set_clear(&set);
}

/* ---- OpenArena maps ---- */

typedef struct oa_fs {
    pak_fs *fs;
    int hide_images; /* every .tga, .jpg and .png is "not found" */
} oa_fs;

static qd_err oa_read(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    const oa_fs *o = ctx;
    size_t n = strlen(name);
    if (o->hide_images && n > 4 &&
        (strcmp(name + n - 4, ".tga") == 0 || strcmp(name + n - 4, ".jpg") == 0 ||
         strcmp(name + n - 4, ".png") == 0))
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: hidden", name);
    return pak_read(o->fs, name, data, len, err);
}

static int oa_list(void *ctx, const char *prefix,
                   void (*fn)(void *u, const char *name, uint64_t size), void *u)
{
    const oa_fs *o = ctx;
    return pak_list_search_order(o->fs, prefix, fn, u);
}

/* The game folder, the map's level and assets with textures, and a camera at the map's
 * first deathmatch start. NULL when OpenArena is not installed. */
typedef struct oa_scene {
    oa_fs o;
    cl_state *cl;
    r_assets *a;
    r_camera cam;
} oa_scene;

#define OA_SHARD 257 /* (q3.c's slot of the armour shard: Q3_ITEM_MODELS + 1) */
#define OA_BLUE_FLAG 258 /* (slots of the scenes' own) */
#define OA_SPHERE 259
#define OA_LIGHTNING 260

static int oa_open(oa_scene *s, const char *map, int hide_images)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(OA_DIR "/pak0.pk3", "rb");
    if (!f)
        return 0;
    fclose(f);
    s->o.fs = pak_fs_open();
    qd_error err = {0};
    pak_fs_add_game_dir(s->o.fs, OA_DIR, &err);
    s->o.hide_images = hide_images;
    if (!pak_find(s->o.fs, map, NULL)) {
        pak_fs_close(s->o.fs);
        return 0;
    }
    s->cl = calloc(1, sizeof *s->cl);
    cl_reset(s->cl);
    snprintf(s->cl->level.map, sizeof s->cl->level.map, "%s", map);
    s->cl->level.num_models = 1;
    /* (the one effect model the scenes' tests draw: q3.c registers it with each level) */
    cl_set_model(s->cl, CL_Q3_TELEPORT_MODEL, "models/misc/telep.md3");
    cl_set_model(s->cl, OA_SHARD, "models/powerups/armor/shard.md3"); /* (an item's) */
    cl_set_model(s->cl, OA_BLUE_FLAG, "models/flags/b_flag.md3");
    cl_set_model(s->cl, OA_SPHERE, "models/powerups/health/large_sphere.md3");
    cl_set_model(s->cl, OA_LIGHTNING, "models/weapons2/lightning/lightning.md3");
    s->a = r_assets_load(&s->cl->level, oa_read, &s->o, NULL, &err);
    if (!s->a || !r_assets_map(s->a))
        return -1;
    if (r_assets_q3_textures(s->a, oa_read, oa_list, &s->o, &err) != QD_OK)
        return -1;
    const mdl_bsp *b = r_assets_map(s->a);
    char v[64];
    s->cam.fov = 90;
    if (!mdl_entity_value(b->entities, "info_player_deathmatch", 0, "origin", v, sizeof v) ||
        sscanf(v, "%f %f %f", &s->cam.origin[0], &s->cam.origin[1], &s->cam.origin[2]) != 3)
        return -1;
    s->cam.origin[2] += 26; /* Quake III's view height over the origin */
    if (mdl_entity_value(b->entities, "info_player_deathmatch", 0, "angle", v, sizeof v))
        s->cam.angles[1] = (float)atof(v);
    return 1;
}

static void oa_close(oa_scene *s)
{
    r_assets_free(s->a);
    free(s->cl);
    pak_fs_close(s->o.fs);
}

#define OA_SCENE(s, map, hide)                                                             \
    oa_scene s;                                                                            \
    int got_ = oa_open(&s, map, hide);                                                     \
    if (got_ == 0)                                                                         \
        SKIP("OpenArena not installed (" OA_DIR ")");                                      \
    CHECK(got_ == 1)

static rast_fb *frame(oa_scene *s, int mode, int threads)
{
    rast_fb *fb = rast_fb_new(W, H);
    r_options o = {.mode = mode, .threads = threads};
    r_render(s->a, s->cl, 1.0, &s->cam, &o, fb);
    return fb;
}

/* Which face each pixel shows (-1: none), from flat mode with each face's colour its index
 * (alpha 1, which no drawing call makes). */
static int32_t *face_ids(oa_scene *s)
{
    r_bsp *rb = &s->a->world;
    uint32_t nf = rb->bsp->num_faces;
    uint32_t *saved = malloc(nf * sizeof *saved);
    memcpy(saved, rb->flat, nf * sizeof *saved);
    for (uint32_t i = 0; i < nf; i++)
        rb->flat[i] = (i & 0xffffffu) | 0x01000000u;
    rast_fb *fb = frame(s, R_MODE_FLAT, 1);
    memcpy(rb->flat, saved, nf * sizeof *saved);
    free(saved);
    int32_t *ids = malloc(W * H * sizeof *ids);
    for (int i = 0; i < W * H; i++)
        ids[i] = fb->color[i] >> 24 == 1 ? (int32_t)(fb->color[i] & 0xffffff) : -1;
    rast_fb_free(fb);
    return ids;
}

/* Quake III's light of a lightmap or vertex colour byte triple as ioquake3 shows it with
 * its hardware overbright bit (as Debian's runs, its log says: "GAMMA: hardware w/ 1
 * overbright bits"): shifted left by r_mapOverBrightBits 2 less that bit, 1, a colour over
 * 255 scaled down whole (R_ColorShiftLightingBytes), and the frame shown doubled: up to
 * 510, twice the texture. */
static void q3_light(const uint8_t *rgb, double out[3])
{
    double c[3], max = 255;
    for (int k = 0; k < 3; k++) {
        c[k] = rgb[k] * 2.0;
        max = c[k] > max ? c[k] : max;
    }
    for (int k = 0; k < 3; k++)
        out[k] = 2 * c[k] * 255 / max;
}

/* The mean light over triangle fi: its lightmap texels whose centres lie inside its lightmap
 * coordinates (the centroid's texel for a sliver), or its vertex colours' mean. */
static void tri_light(const mdl_bsp *b, uint32_t fi, double out[3])
{
    const mdl_face_q3 *fq = &b->face_q3[fi];
    double l[3];
    out[0] = out[1] = out[2] = 0;
    if (fq->lightmap < 0) {
        for (int c = 0; c < 3; c++) {
            q3_light(fq->rgba[c], l);
            for (int k = 0; k < 3; k++)
                out[k] += l[k] / 3;
        }
        return;
    }
    const uint8_t *page = b->lightmaps + (size_t)fq->lightmap * 128 * 128 * 3;
    double x[3], y[3];
    for (int c = 0; c < 3; c++) {
        x[c] = fq->lm[c][0] * 128;
        y[c] = fq->lm[c][1] * 128;
    }
    double area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
    int n = 0;
    for (int ty = 0; ty < 128 && fabs(area) > 0; ty++)
        for (int tx = 0; tx < 128; tx++) {
            double px = tx + 0.5, py = ty + 0.5;
            int inside = 1;
            for (int e = 0; e < 3; e++) {
                int a = e, c = (e + 1) % 3;
                double side = (x[c] - x[a]) * (py - y[a]) - (y[c] - y[a]) * (px - x[a]);
                inside &= side * area >= 0;
            }
            if (!inside)
                continue;
            q3_light(page + ((size_t)ty * 128 + (size_t)tx) * 3, l);
            for (int k = 0; k < 3; k++)
                out[k] += l[k];
            n++;
        }
    if (n == 0) {
        int tx = (int)((x[0] + x[1] + x[2]) / 3), ty = (int)((y[0] + y[1] + y[2]) / 3);
        tx = tx < 0 ? 0 : tx > 127 ? 127 : tx;
        ty = ty < 0 ? 0 : ty > 127 ? 127 : ty;
        q3_light(page + ((size_t)ty * 128 + (size_t)tx) * 3, out);
        return;
    }
    for (int k = 0; k < 3; k++)
        out[k] /= n;
}

typedef struct tex_mean {
    int ok;        /* 1: an opaque, lightmapped image to compare with */
    double rgb[3];
} tex_mean;

static void add_script(void *u, const char *name, uint64_t size)
{
    (void)size;
    void **pp = u;
    size_t n = strlen(name), len;
    if (n < 7 || strcmp(name + n - 7, ".shader") != 0)
        return;
    uint8_t *d;
    qd_error e;
    if (oa_read(pp[1], name, &d, &len, &e) == QD_OK)
        mdl_shader_parse(pp[0], (const char *)d, len, name, &e);
    free(d);
}

TEST(q3tex_oa_dm3_textured_colour)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    const mdl_bsp *b = r_assets_map(s.a);
    rast_fb *fb = frame(&s, R_MODE_TEXTURED, 1);
    char path[512];
    qd_error err = {0};
    snprintf(path, sizeof path, "%s/q3tex_oa_dm3.png", test_tmpdir());
    out_png_write(path, fb, &err); /* for eyes */
    int32_t *ids = face_ids(&s);
    /* the test's own reading of the scripts: a shader whose drawn stage is an image with a
     * lightmap stage, or no shader and the image of the name */
    mdl_shader_set set = {0};
    void *pp[2] = {&set, &s.o};
    pak_list_search_order(s.o.fs, "scripts/", add_script, pp);
    tex_mean *tm = calloc(b->num_textures, sizeof *tm);
    for (uint32_t t = 0; t < b->num_textures; t++) {
        const mdl_shader *sh = mdl_shader_find(&set, b->textures[t].name);
        const char *img = b->textures[t].name;
        if (sh) {
            if (!(sh->flags & MDL_SHADER_LIGHTMAP) || sh->blend != MDL_BLEND_NONE ||
                (sh->flags & MDL_SHADER_SKY) || sh->stage.num_tcmods || sh->stage.alpha_func)
                continue;
            img = sh->stage.image;
        }
        mdl_image *im = NULL;
        if (mdl_image_find(oa_read, &s.o, img, &im, &err) != QD_OK)
            continue;
        uint64_t sum[3] = {0, 0, 0};
        for (size_t i = 0; i < (size_t)im->w * im->h; i++)
            for (int k = 0; k < 3; k++)
                sum[k] += im->pixels[i] >> (8 * k) & 255;
        for (int k = 0; k < 3; k++)
            tm[t].rgb[k] = (double)sum[k] / ((double)im->w * im->h);
        tm[t].ok = 1;
        mdl_image_free(im);
    }
    /* expected: each pixel's image mean times its triangle's light (its corners' lightmap
     * texels, or vertex colours), / 255; compared over the frame */
    double want[3] = {0, 0, 0}, got[3] = {0, 0, 0};
    double *lights = calloc((size_t)b->num_faces * 4, sizeof *lights); /* [3]: computed */
    size_t n = 0, covered = 0;
    for (int i = 0; i < W * H; i++) {
        covered += fb->depth[i] > 0;
        int32_t f = ids[i];
        if (f < 0 || (uint32_t)f >= b->num_faces)
            continue;
        int32_t t = b->faces[f].texture;
        if (t < 0 || !tm[t].ok)
            continue;
        double *light = lights + (size_t)f * 4;
        if (light[3] == 0) {
            tri_light(b, (uint32_t)f, light);
            light[3] = 1;
        }
        for (int k = 0; k < 3; k++) {
            double w = tm[t].rgb[k] * light[k] / 255;
            want[k] += w < 255 ? w : 255; /* (the doubled frame saturates) */
            got[k] += fb->color[i] >> (8 * k) & 255;
        }
        n++;
    }
    CHECK_MSG(covered > W * H * 95 / 100, "covered %zu of %d", covered, W * H);
    CHECK_MSG(n > W * H / 2, "only %zu pixels of known images in view", n);
    for (int k = 0; k < 3; k++) {
        want[k] /= (double)n;
        got[k] /= (double)n;
        CHECK_MSG(fabs(got[k] - want[k]) <= 0.15 * want[k] + 4,
                  "channel %d: mean %.1f, expected %.1f from the images and lightmaps", k,
                  got[k], want[k]);
    }
    /* and not one flat colour: textures show their detail */
    size_t differ = 0;
    for (int i = 1; i < W * H; i++)
        differ += ids[i] == ids[i - 1] && ids[i] >= 0 && fb->color[i] != fb->color[i - 1];
    CHECK_MSG(differ > (size_t)W * H / 4, "%zu neighbours differ inside faces", differ);
    free(tm);
    free(lights);
    free(ids);
    mdl_shader_set_clear(&set);
    rast_fb_free(fb);
    oa_close(&s);
}

/* Every image hidden: every surface but the sky draws exactly as flat mode, with no error,
 * and the missing textures are named. */
TEST(q3tex_missing_images_draw_flat)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 1);
    CHECK(r_assets_missing_texture(s.a, 0) != NULL);
    rast_fb *tex = frame(&s, R_MODE_TEXTURED, 1), *flat = frame(&s, R_MODE_FLAT, 1);
    int32_t *ids = face_ids(&s);
    const mdl_bsp *b = r_assets_map(s.a);
    size_t same = 0, n = 0;
    for (int i = 0; i < W * H; i++) {
        if (ids[i] < 0 || (b->faces[ids[i]].flags & MDL_SURF_SKY))
            continue;
        n++;
        same += tex->color[i] == flat->color[i];
    }
    CHECK(n > W * H / 2);
    CHECK_MSG(same == n, "%zu of %zu pixels as flat", same, n);
    free(ids);
    rast_fb_free(tex);
    rast_fb_free(flat);
    oa_close(&s);
}

TEST(q3tex_threads_identical)
{
    static const char *const maps[] = {"maps/oa_dm3.bsp", "maps/oa_ctf2.bsp"};
    for (int m = 0; m < 2; m++) {
        OA_SCENE(s, maps[m], 0);
        rast_fb *one = frame(&s, R_MODE_TEXTURED, 1), *three = frame(&s, R_MODE_TEXTURED, 3);
        CHECK_MSG(memcmp(one->color, three->color, (size_t)W * H * 4) == 0, "%s", maps[m]);
        CHECK(memcmp(one->depth, three->depth, (size_t)W * H * 4) == 0);
        rast_fb_free(one);
        rast_fb_free(three);
        oa_close(&s);
    }
}

/* The world brought to cl, and the player's camera and textured options at t, as the
 * player draws a frame of a demo. */
static void demo_view(app_world *w, const app_opts *o, player *p, const cl_state *cl, double t,
                      r_camera *cam, r_options *opt)
{
    app_world_update(w, o, cl);
    player_camera(p, cl, t, cam);
    player_options(p, cl, opt);
    opt->mode = R_MODE_TEXTURED;
}

/* Along two real OpenArena demos (oa_dm3's flyby; 24 bots on oa_bases3), frames split into
 * 2, 3 and 5 bands give the bytes one thread gives: each band skips the Quake III triangles
 * wholly above or below its rows (the world's and the bodies'), and its boundaries move
 * from frame to frame with the work (a cache kept for each count, as the player keeps
 * one), so many boundaries are crossed. A triangle skipped where it reaches the band shows
 * as a hole. */
TEST(q3tex_bands_along_demos_identical)
{
    static const char *const demos[] = {
        "dm_70/openarena-081-misc_pak6-misc_flyby_oa_dm3.dm_70",
        "dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70"};
    static const int counts[4] = {1, 2, 3, 5};
    enum { FW = 640, FH = 360, FRAMES = 12 };
    FILE *f = fopen(OA_DIR "/pak0.pk3", "rb");
    if (!f)
        SKIP("OpenArena not installed (" OA_DIR ")");
    fclose(f);
    int ran = 0;
    for (int di = 0; di < 2; di++) {
        char path[1024];
        if (!test_realfile(path, sizeof path, demos[di]))
            continue;
        qd_error err;
        demo_t *d = demo_open(path, &err);
        CHECK(d);
        timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
        CHECK(tl);
        if (!tl)
            continue;
        app_opts o;
        memset(&o, 0, sizeof o);
        o.paks[o.num_paks++] = OA_DIR;
        app_world w;
        memset(&w, 0, sizeof w);
        static player p;
        player_init(&p, tl, FW, FH);
        rast_fb *fb[4];
        r_cache *cache[4];
        for (int c = 0; c < 4; c++) {
            fb[c] = rast_fb_new(FW, FH);
            cache[c] = r_cache_new(0);
        }
        int differ = 0;
        for (int k = 0; k < FRAMES; k++) {
            double t = tl_start(tl) + (tl_end(tl) - tl_start(tl)) * (k + 0.5) / FRAMES;
            const cl_state *cl = tl_state_at(tl, t, &err);
            CHECK(cl);
            if (!cl)
                break;
            r_camera cam;
            r_options opt;
            demo_view(&w, &o, &p, cl, t, &cam, &opt);
            for (int c = 0; c < 4; c++) {
                opt.threads = counts[c];
                opt.cache = cache[c];
                r_render(w.assets, cl, t, &cam, &opt, fb[c]);
                if (c > 0 && memcmp(fb[c]->color, fb[0]->color, sizeof(uint32_t) * FW * FH))
                    differ++;
            }
        }
        CHECK_MSG(differ == 0, "%s: %d frames differ from one thread's", demos[di], differ);
        ran++;
        for (int c = 0; c < 4; c++) {
            rast_fb_free(fb[c]);
            r_cache_free(cache[c]);
        }
        app_world_free(&w);
        tl_close(tl);
    }
    if (!ran)
        SKIP("no OpenArena demos in the real data");
}

/* A boundary between two bands at every row near where a bot's rocket flare shows (24 bots
 * on oa_bases3, the frame 19/20 along the demo, 1920x1080 as `make bench` draws it): each
 * gives the bytes one thread gives. A band skipped a model surface whose box lay outside
 * its rows; an autosprite surface (the flare) is drawn as squares facing the eye, which
 * reach rows the box does not: with the boundary at row 541, four pixels of row 540 lost
 * the flare (found 2026-12-02 by hashing frames with both threads on one core: one run in
 * twelve). The rows are the real ones: the frame's work moves the boundaries, so any row
 * can be one. */
TEST(q3tex_band_boundary_at_each_row_near_a_flare)
{
    enum { FW = 1920, FH = 1080, FROM = 520, TO = 560 };
    FILE *f = fopen(OA_DIR "/pak0.pk3", "rb");
    if (!f)
        SKIP("OpenArena not installed (" OA_DIR ")");
    fclose(f);
    char path[1024];
    if (!test_realfile(path, sizeof path,
                       "dm_70/openarena-081-misc_pak6-misc_stress_bases3.dm_70"))
        SKIP("the bases3 stress demo is not in the real data");
    app_opts o;
    app_world w;
    static player p;
    timeline_t *tl = demo_world(path, OA_DIR, &o, &w, &p, 1280, 720);
    CHECK(tl);
    if (!tl)
        return;
    qd_error err;
    double t = tl_start(tl) + (tl_end(tl) - tl_start(tl)) * 19 / 20;
    const cl_state *cl = tl_state_at(tl, t, &err);
    CHECK(cl);
    rast_fb *one = rast_fb_new(FW, FH), *two = rast_fb_new(FW, FH);
    r_cache *cache = r_cache_new(0);
    if (cl && one && two && cache) {
        r_camera cam;
        r_options opt;
        demo_view(&w, &o, &p, cl, t, &cam, &opt);
        opt.threads = 1;
        r_render(w.assets, cl, t, &cam, &opt, one);
        opt.threads = 2;
        opt.cache = cache;
        int differ = 0, first = -1;
        for (int row = FROM; row <= TO; row++) {
            const double split[3] = {0, (double)row / FH, 1};
            r_cache_set_bands(cache, 2, split);
            r_render(w.assets, cl, t, &cam, &opt, two);
            if (memcmp(one->color, two->color, sizeof(uint32_t) * FW * FH)) {
                differ++;
                first = first < 0 ? row : first;
            }
        }
        CHECK_MSG(differ == 0, "%d boundaries of %d differ from one thread (the first at row %d)",
                  differ, TO - FROM + 1, first);
    }
    rast_fb_free(one);
    rast_fb_free(two);
    r_cache_free(cache);
    app_world_free(&w);
    tl_close(tl);
}

/* ---- runs of triangles drawn as polygons (r_q3poly.c) ---- */

static void sub3(const float *a, const float *b, double o[3])
{
    for (int j = 0; j < 3; j++)
        o[j] = (double)a[j] - b[j];
}

/* (a x b) . n */
static double cross_dot(const double a[3], const double b[3], const double n[3])
{
    return (a[1] * b[2] - a[2] * b[1]) * n[0] + (a[2] * b[0] - a[0] * b[2]) * n[1] +
           (a[0] * b[1] - a[1] * b[0]) * n[2];
}

/* The test's own check of one run: one shader and page, every corner on the head's plane
 * and on the polygon, the polygon convex, of the triangles' area, and each corner's texture
 * and lightmap coordinates those of the head triangle's affine map at its place. Returns a
 * reason, or NULL. */
static const char *check_run(const mdl_bsp *b, const r_bsp *rb, uint32_t f)
{
    uint32_t g = rb->group[f];
    const float(*poly)[3] = (const float(*)[3])rb->poly_pts[rb->poly_first[f]];
    int pn = rb->poly_n[f];
    const mdl_face *h = &b->faces[f];
    double N[3] = {h->normal[0], h->normal[1], h->normal[2]};
    if (pn < 3 || f + g > b->num_faces)
        return "polygon under 3 corners or past the faces";
    double parea = 0, tarea = 0;
    for (int i = 0; i < pn; i++) {
        double e1[3], e2[3];
        sub3(poly[(i + 1) % pn], poly[i], e1);
        sub3(poly[(i + 2) % pn], poly[(i + 1) % pn], e2);
        if (cross_dot(e1, e2, N) > 1e-6) /* the maps' winding: cross(b - a, c - a) . N < 0 */
            return "polygon not convex";
        if (fabs(N[0] * poly[i][0] + N[1] * poly[i][1] + N[2] * poly[i][2] - h->dist) > 0.05)
            return "polygon corner off the plane";
    }
    for (int i = 1; i + 1 < pn; i++) {
        double e1[3], e2[3];
        sub3(poly[i], poly[0], e1);
        sub3(poly[i + 1], poly[0], e2);
        parea -= cross_dot(e1, e2, N) / 2;
    }
    for (uint32_t t = f; t < f + g; t++) {
        const mdl_face *tf = &b->faces[t];
        if (tf->texture != h->texture || b->face_q3[t].lightmap != b->face_q3[f].lightmap)
            return "shader or lightmap page differs";
        const float(*p)[3] = (const float(*)[3])b->verts[tf->first_vert];
        double e1[3], e2[3];
        sub3(p[1], p[0], e1);
        sub3(p[2], p[0], e2);
        tarea -= cross_dot(e1, e2, N) / 2;
        for (int k = 0; k < 3; k++) {
            if (fabs(N[0] * p[k][0] + N[1] * p[k][1] + N[2] * p[k][2] - h->dist) > 0.05)
                return "triangle corner off the plane";
            for (int i = 0; i < pn; i++) { /* inside or on every edge */
                double a[3], c[3];
                sub3(poly[(i + 1) % pn], poly[i], a);
                sub3(p[k], poly[i], c);
                double len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
                if (cross_dot(a, c, N) > 1e-3 * len)
                    return "triangle corner outside the polygon";
            }
        }
    }
    if (!(fabs(parea - tarea) <= 1e-3 * tarea))
        return "polygon's area is not the triangles'";
    /* each coordinate at a corner p: the head's corner values interpolated by p's place in
     * the head's frame (p - hp0 = u e1 + w e2 in the plane: Gram matrix of e1, e2) */
    const float(*hp)[3] = (const float(*)[3])b->verts[h->first_vert];
    for (int c = 0; c < 4; c++) {
        double e1[3], e2[3];
        sub3(hp[1], hp[0], e1);
        sub3(hp[2], hp[0], e2);
        const mdl_face_q3 *hq = &b->face_q3[f];
        double v0 = c < 2 ? hq->st[0][c] : hq->lm[0][c - 2];
        double v1 = (c < 2 ? hq->st[1][c] : hq->lm[1][c - 2]) - v0;
        double v2 = (c < 2 ? hq->st[2][c] : hq->lm[2][c - 2]) - v0;
        double g11 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
        double g12 = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
        double g22 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2], det = g11 * g22 - g12 * g12;
        for (uint32_t t = f; t < f + g; t++) {
            const float(*p)[3] = (const float(*)[3])b->verts[b->faces[t].first_vert];
            const mdl_face_q3 *q = &b->face_q3[t];
            for (int k = 0; k < 3; k++) {
                double d[3];
                sub3(p[k], hp[0], d);
                double got = c < 2 ? q->st[k][c] : q->lm[k][c - 2];
                double a1 = d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2];
                double a2 = d[0] * e2[0] + d[1] * e2[1] + d[2] * e2[2];
                double u = (a1 * g22 - a2 * g12) / det, w = (a2 * g11 - a1 * g12) / det;
                double want = v0 + u * v1 + w * v2;
                if (!(fabs(want - got) <= (c < 2 ? 2e-4 : 2e-5)))
                    return "a corner's coordinates are not the run's one mapping";
            }
        }
    }
    return NULL;
}

/* Hand-made runs for r_q3_groups, on the floor z = 0 (normal up; the maps' winding:
 * cross(b - a, c - a) points down), st = (x, y) / 64 and lightmap coordinates (x, y) / 1024
 * unless a corner says otherwise. */
typedef struct hand_map {
    mdl_bsp b;
    mdl_face f[8];
    mdl_face_q3 q[8];
    float v[24][3];
} hand_map;

static void hand_tri(hand_map *m, const float (*p)[2])
{
    uint32_t i = m->b.num_faces++;
    mdl_face *f = &m->f[i];
    memset(f, 0, sizeof *f);
    f->first_vert = i * 3;
    f->num_verts = 3;
    f->normal[2] = 1;
    f->texture = 0;
    for (int k = 0; k < 3; k++) {
        /* clockwise seen from above: corners 0, 2, 1 of the counter-clockwise list */
        const float *c = p[k == 0 ? 0 : 3 - k];
        m->v[i * 3 + (uint32_t)k][0] = c[0];
        m->v[i * 3 + (uint32_t)k][1] = c[1];
        m->v[i * 3 + (uint32_t)k][2] = 0;
        m->q[i].st[k][0] = c[0] / 64;
        m->q[i].st[k][1] = c[1] / 64;
        m->q[i].lm[k][0] = c[0] / 1024;
        m->q[i].lm[k][1] = c[1] / 1024;
    }
    m->q[i].lightmap = 0;
}

static void hand_init(hand_map *m)
{
    memset(m, 0, sizeof *m);
    m->b.faces = m->f;
    m->b.face_q3 = m->q;
    m->b.verts = m->v;
}

/* r_q3_groups over m's triangles: the run length at face f (0: none) and its outline's
 * corner count into *corners. */
static int run_at(hand_map *m, uint32_t f, int *corners)
{
    r_bsp rb;
    memset(&rb, 0, sizeof rb);
    rb.bsp = &m->b;
    int g = -1;
    *corners = 0;
    if (r_q3_groups(&rb) && rb.group) {
        g = rb.group[f];
        *corners = rb.poly_n[f];
    }
    r_q3_groups_free(&rb);
    return g;
}

/* A square's two halves, then third (NULL: none) after them */
static void square_and(hand_map *m, const float (*third)[2])
{
    static const float sq_a[3][2] = {{0, 0}, {64, 0}, {64, 64}},
                       sq_b[3][2] = {{0, 0}, {64, 64}, {0, 64}};
    hand_init(m);
    hand_tri(m, sq_a);
    hand_tri(m, sq_b);
    if (third)
        hand_tri(m, third);
}

TEST(q3tex_triangle_runs_by_hand)
{
    hand_map m;
    int k;
    /* a square cut along its diagonal: one run of two, its outline the four corners */
    square_and(&m, NULL);
    CHECK_EQ(run_at(&m, 0, &k), 2);
    CHECK_EQ(k, 4);
    /* the second triangle's far corner's texture moved by half a texel of a 64-texel image
     * (1/128 of a repeat): two mappings, no run; on another lightmap page: no run */
    m.q[1].st[1][0] += 1.0f / 128;
    CHECK_EQ(run_at(&m, 0, &k), 0);
    m.q[1].st[1][0] -= 1.0f / 128;
    m.q[1].lightmap = 1;
    CHECK_EQ(run_at(&m, 0, &k), 0);
    /* a third triangle whose far corner (128, -64) turns the outline back at (64, 0) (a
     * reflex corner): the square joins, the third does not */
    static const float reflex[3][2] = {{64, 0}, {128, -64}, {64, 64}};
    square_and(&m, reflex);
    CHECK_EQ(run_at(&m, 0, &k), 2);
    CHECK_EQ(run_at(&m, 2, &k), 0);
    /* (64, 0), (128, 0), (64, 64) makes a trapezoid with it: one run of three, four corners
     * ((64, 0) lies on the straight bottom edge and is dropped) */
    static const float trapezoid[3][2] = {{64, 0}, {128, 0}, {64, 64}};
    square_and(&m, trapezoid);
    CHECK_EQ(run_at(&m, 0, &k), 3);
    CHECK_EQ(k, 4);
    /* a regular hexagon's fan of four triangles: one run, six corners */
    float hex[6][2];
    for (int i = 0; i < 6; i++) {
        hex[i][0] = 100 * cosf((float)i * (float)M_PI / 3);
        hex[i][1] = 100 * sinf((float)i * (float)M_PI / 3);
    }
    hand_init(&m);
    for (int i = 1; i + 1 < 6; i++) {
        const float t[3][2] = {{hex[0][0], hex[0][1]}, {hex[i][0], hex[i][1]},
                               {hex[i + 1][0], hex[i + 1][1]}};
        hand_tri(&m, t);
    }
    CHECK_EQ(run_at(&m, 0, &k), 4);
    CHECK_EQ(k, 6);
    /* the same half of a square twice, one on the other: no run */
    static const float half[3][2] = {{0, 0}, {64, 0}, {64, 64}};
    hand_init(&m);
    hand_tri(&m, half);
    hand_tri(&m, half);
    CHECK_EQ(run_at(&m, 0, &k), 0);
}

/* A Quake III map keeps its brush faces as triangles; r_q3poly.c joins runs of them back
 * into convex polygons, which draw one span a row instead of one per triangle. On two
 * OpenArena maps: every run checked on its own terms here (check_run), most of the map
 * joined (q3map cuts each brush face, a convex polygon, into two or more triangles: on
 * maps built of brushes at least half the triangles belong to one), and a frame drawn
 * with the runs against the same frame drawn triangle by triangle: the same pixels covered,
 * and the same colours but where a texel's choice moved (the rasteriser's 32-pixel runs
 * start at each span's left end, so a polygon's runs fall elsewhere than its triangles':
 * a neighbouring texel, or the next mip level, at a few pixels in a thousand). */
TEST(q3tex_triangle_runs_as_polygons)
{
    static const char *const maps[] = {"maps/oa_dm3.bsp", "maps/oa_bases3.bsp"};
    for (int mi = 0; mi < 2; mi++) {
        OA_SCENE(s, maps[mi], 0);
        r_bsp *rb = &s.a->world;
        const mdl_bsp *b = rb->bsp;
        CHECK(rb->group && rb->poly_n && rb->poly_first && rb->poly_pts);
        if (!rb->group) {
            oa_close(&s);
            continue;
        }
        uint32_t joined = 0, bad = 0;
        const char *why = NULL;
        for (uint32_t f = 0; f < b->num_faces; f++) {
            if (rb->group[f] < 2)
                continue;
            joined += rb->group[f];
            const char *w = check_run(b, rb, f);
            if (w) {
                bad++;
                why = w;
            }
        }
        CHECK_MSG(bad == 0, "%s: %u runs fail: %s", maps[mi], bad, why ? why : "");
        CHECK_MSG(joined * 2 >= b->num_faces, "%s: %u of %u triangles in runs", maps[mi],
                  joined, b->num_faces);
        rast_fb *with = frame(&s, R_MODE_TEXTURED, 1);
        uint8_t *group = rb->group;
        rb->group = NULL; /* drawn triangle by triangle */
        rast_fb *without = frame(&s, R_MODE_TEXTURED, 1);
        rb->group = group;
        size_t cover_differ = 0, far = 0;
        double sum[2][3] = {{0}};
        for (int i = 0; i < W * H; i++) {
            cover_differ += (with->depth[i] > 0) != (without->depth[i] > 0);
            int d = 0;
            for (int k = 0; k < 3; k++) {
                int a = with->color[i] >> (8 * k) & 255, c = without->color[i] >> (8 * k) & 255;
                d = abs(a - c) > d ? abs(a - c) : d;
                sum[0][k] += a;
                sum[1][k] += c;
            }
            far += d > 24;
        }
        CHECK_MSG(cover_differ <= (size_t)W * H / 1000, "%s: coverage differs at %zu pixels",
                  maps[mi], cover_differ);
        CHECK_MSG(far <= (size_t)W * H / 100, "%s: %zu pixels differ by more than 24",
                  maps[mi], far);
        for (int k = 0; k < 3; k++)
            CHECK_MSG(fabs(sum[0][k] - sum[1][k]) <= 0.01 * sum[1][k] + W * H,
                      "%s: channel %d's mean moved", maps[mi], k);
        rast_fb_free(with);
        rast_fb_free(without);
        oa_close(&s);
    }
}

/* The maps' frames at every level of the rasteriser against the SSE2 one's (it leaves the
 * level changed: its caller puts it back, however this returns). */
static void avx2_against_sse2(void)
{
    const int top = rast_simd(4); /* the highest level here */
    if (top < 2)
        SKIP("this processor or build has no AVX2 copy");
    static const char *const maps[] = {"maps/oa_dm3.bsp", "maps/oa_ctf2.bsp"};
    for (int m = 0; m < 2; m++) {
        OA_SCENE(s, maps[m], 0);
        CHECK_EQ(rast_simd(1), 1);
        rast_fb *sse = frame(&s, R_MODE_TEXTURED, 1);
        for (int level = 2; level <= top; level++) {
            CHECK_EQ(rast_simd(level), level);
            rast_fb *avx = frame(&s, R_MODE_TEXTURED, 1);
            CHECK_MSG(memcmp(avx->color, sse->color, (size_t)W * H * 4) == 0, "%s level %d",
                      maps[m], level);
            CHECK(memcmp(avx->depth, sse->depth, (size_t)W * H * 4) == 0);
            rast_fb_free(avx);
        }
        rast_fb_free(sse);
        oa_close(&s);
    }
}

/* The AVX2 copies of the rasteriser (rast_avx2.c with loads, rast_avx2g.c with gathers of
 * texels and light, rast_avx512.c in AVX-512's encoding) draw the bytes the SSE2 one does, on two OpenArena maps; the level is
 * put back for the tests after, whether this passes, fails or skips. */
TEST(q3tex_avx2_identical_to_sse2)
{
    int was = rast_simd(-1);
    avx2_against_sse2();
    rast_simd(was);
}

/* `qdemo info --json DEMO -p PAK`'s output into out; 0 when it cannot be run. */
static int info_json(const char *qdemo, const char *demo, const char *pak, char *out, size_t cap)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "%s info --json %s -p %s", qdemo, demo, pak);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    size_t got = 0, n;
    while (got + 1 < cap && (n = fread(out + got, 1, cap - 1 - got, p)) > 0)
        got += n;
    out[got] = 0;
    pclose(p);
    return 1;
}

/* `info` names a Quake III map's textures that cannot be found: with the maps archive alone
 * (no textures) the walls of oa_dm3 (textures/acc_dm3/concrt is one of its shaders, with no
 * script: its image is its name) are listed; with the whole game they are not. */
/* `info`'s lean load (r_assets_load_names: mdl_bsp_load_names, no lightmaps, colours or
 * runs) names the same missing textures as the drawing load, in the same order, with every
 * image hidden so that each drawn shader counts (and none, with them found); its faces are
 * the drawing load's, texture for texture. On two maps of Debian's OpenArena. */
TEST(q3tex_names_only_load_names_the_same_textures)
{
    static const char *const maps[2] = {"maps/oa_dm3.bsp", "maps/oa_bases3.bsp"};
    for (int i = 0; i < 2; i++)
        for (int hide = 0; hide < 2; hide++) {
            OA_SCENE(s, maps[i], hide);
            qd_error err = {0};
            r_assets *lean = r_assets_load_names(&s.cl->level, oa_read, &s.o, &err);
            CHECK(lean && r_assets_map(lean));
            CHECK(r_assets_q3_textures(lean, oa_read, oa_list, &s.o, &err) == QD_OK);
            const mdl_bsp *b = r_assets_map(s.a), *l = r_assets_map(lean);
            CHECK(l->names_only && !b->names_only && l->num_faces == b->num_faces);
            uint32_t differ = 0;
            for (uint32_t f = 0; f < b->num_faces && f < l->num_faces; f++)
                differ += l->faces[f].texture != b->faces[f].texture;
            CHECK_MSG(differ == 0, "%s: %u faces of another texture", maps[i], differ);
            int n = 0;
            for (int k = 0;; k++) {
                const char *x = r_assets_missing_texture(s.a, k);
                const char *y = r_assets_missing_texture(lean, k);
                if (!x && !y)
                    break;
                CHECK_MSG(x && y && !strcmp(x, y), "%s: missing %d: %s against %s", maps[i], k,
                          x ? x : "(none)", y ? y : "(none)");
                n++;
            }
            CHECK_MSG(hide ? n > 10 : n == 0, "%s: %d missing with images %s", maps[i], n,
                      hide ? "hidden" : "found");
            r_assets_free(lean);
            oa_close(&s);
        }
}

TEST(q3tex_info_lists_missing_textures)
{
    const char *q = getenv("QDEMO");
    char demo[512];
    if (!q || !*q)
        SKIP("run with QDEMO set (make test)");
    if (!test_realfile(demo, sizeof demo, "dm_70/openarena-081-misc_pak6-misc_flyby_oa_dm3.dm_70"))
        SKIP("real data missing");
    FILE *f = fopen(OA_DIR "/pak1-maps.pk3", "rb");
    if (!f)
        SKIP("OpenArena not installed (" OA_DIR ")");
    fclose(f);
    static char out[1 << 17];
    const char *paths[2] = {OA_DIR "/pak1-maps.pk3", OA_DIR};
    for (int g = 0; g < 2; g++) {
        CHECK(info_json(q, demo, paths[g], out, sizeof out));
        const char *list = strstr(out, "\"textures_missing\": [");
        CHECK(list);
        const char *end = strchr(list, ']');
        CHECK(end);
        const char *hit = strstr(list, "\"maps/OA_DM3.bsp: textures/acc_dm3/concrt\"");
        CHECK_MSG(g == 0 ? hit && hit < end : !hit || hit > end, "with %s", paths[g]);
    }
}

/* ---- the rasteriser's second texture and combines ---- */

/* A square filling a 16x16 frame at depth 1, texture planes s = px / 16 * w (the texel
 * across the frame), the light likewise. */
static void square_planes(rast_tex *t, int w, int h, int lw, int lh)
{
    memset(t, 0, sizeof *t);
    t->w = w, t->h = h;
    t->s[0] = (double)w / 16, t->t[1] = (double)h / 16, t->q[2] = 1;
    if (lw) {
        t->lw = lw, t->lh = lh;
        t->ls[0] = (double)lw / 16, t->lt[1] = (double)lh / 16;
    }
}

static void square(rast_fb *fb, const rast_tex *t, unsigned flags)
{
    rast_vert v[4] = {{0, 0, 1}, {16, 0, 1}, {16, 16, 1}, {0, 16, 1}};
    rast_polygon_tex(fb, v, 4, t, flags);
}

/* A lit span along a wall seen square (the divisor q the same at every pixel) is stepped in
 * runs of 64 pixels (rast.c LIT_RUN): linear steps are then exact, so every pixel of a
 * 256-pixel span shows the texel under its centre (texel x at pixel x, s = x + 0.5), the
 * light's reads past the eighth of a run are made, and the pixels a nearer fill already
 * holds (columns 40..49 and 100..103, inside the runs' later blocks) stay as they are. */
/* A repeating one-row texture of w texels under a white light (light[4] filled here): s = x
 * at the pixel's centre x + 0.5, so texel x lands on pixel x; the light read between the
 * four light texels' centres. */
static void white_lit_row(rast_tex *t, const uint32_t *texels, int w, uint32_t light[4])
{
    for (int i = 0; i < 4; i++)
        light[i] = rast_rgb(255, 255, 255);
    memset(t, 0, sizeof *t);
    t->texels = texels;
    t->w = w;
    t->h = 1;
    t->wrap = 1;
    t->s[0] = 1;
    t->q[2] = 1;
    t->light = light;
    t->lw = t->lh = 2;
    t->ls[2] = t->lt[2] = 1;
}

TEST(q3tex_rast_long_runs_where_q_is_constant)
{
    enum { FW = 256, FH = 4 };
    rast_fb *fb = rast_fb_new(FW, FH);
    static uint32_t texels[FW];
    for (int i = 0; i < FW; i++)
        texels[i] = rast_rgb((unsigned)i, 255u - (unsigned)i, (unsigned)(i * 7) & 255u);
    uint32_t light[4];
    rast_tex t;
    white_lit_row(&t, texels, FW, light);
    for (int pass = 0; pass < 2; pass++) {
        rast_clear(fb, 0);
        if (pass) { /* nearer flat fills first */
            rast_vert a[4] = {{40, 0, 2}, {50, 0, 2}, {50, FH, 2}, {40, FH, 2}};
            rast_vert b[4] = {{100, 0, 2}, {104, 0, 2}, {104, FH, 2}, {100, FH, 2}};
            rast_polygon(fb, a, 4, rast_rgb(1, 2, 3), RAST_OPAQUE);
            rast_polygon(fb, b, 4, rast_rgb(1, 2, 3), RAST_OPAQUE);
        }
        rast_vert v[4] = {{0, 0, 1}, {FW, 0, 1}, {FW, FH, 1}, {0, FH, 1}};
        rast_polygon_tex(fb, v, 4, &t, RAST_OPAQUE);
        int bad = 0;
        for (int y = 0; y < FH; y++)
            for (int x = 0; x < FW; x++) {
                int hidden = pass && ((x >= 40 && x < 50) || (x >= 100 && x < 104));
                uint32_t want = hidden ? rast_rgb(1, 2, 3) : texels[x] | 0xff000000u;
                if (fb->color[y * FW + x] != want && bad++ < 3)
                    CHECK_MSG(0, "pass %d pixel (%d, %d): %08x, want %08x", pass, x, y,
                              fb->color[y * FW + x], want);
            }
        CHECK_MSG(bad == 0, "pass %d: %d pixels wrong", pass, bad);
    }
    rast_fb_free(fb);
}

/* A lit span whose end falls inside a block of four: the block is drawn whole, its lanes
 * past the span never in front (tex_lit_body). Each span of widths 1..11 on the last row,
 * at two places and at the row's end (where the scalar pixels serve: a block there would
 * read and write past the frame, which the sanitizer run reports), must draw its own
 * pixels, leave a nearer pixel inside it alone and change nothing else. Expected values by
 * hand: a white light leaves each texel as it is (255 x t / 255), texel x at pixel x. */
TEST(q3tex_rast_span_ends_inside_a_block)
{
    enum { FW = 48, FH = 3 };
    const uint32_t mark = rast_rgb(9, 8, 7), near = rast_rgb(1, 2, 3);
    rast_fb *fb = rast_fb_new(FW, FH);
    static uint32_t texels[64];
    for (int i = 0; i < 64; i++)
        texels[i] = rast_rgb((unsigned)(4 * i), 255u - (unsigned)i, 100);
    uint32_t light[4];
    rast_tex t;
    white_lit_row(&t, texels, 64, light);
    int bad = 0;
    for (int n = 1; n <= 11; n++)
        for (int place = 0; place < 3; place++) {
            int x0 = place == 2 ? FW - n : 3 + 5 * place;
            rast_clear(fb, mark);
            int hide = n >= 3 ? x0 + n - 2 : -1; /* a nearer pixel in the span's last block */
            if (hide >= 0) {
                rast_vert h[4] = {{(float)hide, FH - 1, 2}, {(float)hide + 1, FH - 1, 2},
                                  {(float)hide + 1, FH, 2}, {(float)hide, FH, 2}};
                rast_polygon(fb, h, 4, near, RAST_OPAQUE);
            }
            rast_vert v[4] = {{(float)x0, FH - 1, 1}, {(float)(x0 + n), FH - 1, 1},
                              {(float)(x0 + n), FH, 1}, {(float)x0, FH, 1}};
            rast_polygon_tex(fb, v, 4, &t, RAST_OPAQUE);
            for (int y = 0; y < FH; y++)
                for (int x = 0; x < FW; x++) {
                    uint32_t want = mark;
                    float wz = 0;
                    if (y == FH - 1 && x == hide) {
                        want = near;
                        wz = 2;
                    } else if (y == FH - 1 && x >= x0 && x < x0 + n) {
                        want = texels[x] | 0xff000000u;
                        wz = 1;
                    }
                    uint32_t got = fb->color[y * FW + x];
                    float gz = fb->depth[y * FW + x];
                    if ((got != want || gz != wz) && bad++ < 4)
                        CHECK_MSG(0, "span %d at %d: pixel (%d, %d) %08x depth %g, want %08x %g",
                                  n, x0, x, y, got, gz, want, wz);
                }
        }
    CHECK_MSG(bad == 0, "%d pixels wrong", bad);
    rast_fb_free(fb);
}

/* A Quake III wall close up (rast_tex.mag_linear: level 0, two or more pixels a texel) is
 * read as GL_LINEAR reads it, between texel centres, as ioquake3 draws it
 * (r_textureMode GL_LINEAR_MIPMAP_NEAREST): a repeating 2 x 2 texture, black column 0 and
 * white column 1, stretched to 8 pixels a texel (s = (x + 0.5) / 8) under white light. By
 * hand, in 16.16 as the rasteriser steps: u = s - 1/2 texel; pixel 0: u = -0.4375, texels
 * 1 (white) and 0 (black) at weight 144/256 (-0.4375 + 1 = 0.5625): (255 x 112 + 128) /
 * 256 = 112; pixel 4: u = 0.0625, black to white at 16/256: (255 x 16 + 128) / 256 = 16;
 * pixel 8: u = 0.5625, 144/256: 143; pixel 12: u = 1.0625, white to black (wrapping) at
 * 16/256: (255 x 240 + 128) / 256 = 239. Nearest reads 0, 0, 255, 255 there. */
/* The 2 x 2 texture (black column 0, white column 1) at 8 pixels a texel under white light,
 * repeating (wrap) or clamped, read bilinearly when mag: pixels 0, 4, 8 and 12 of its
 * first row against want. */
static void close_up(int wrap, int mag, const uint8_t want[4])
{
    rast_fb *fb = rast_fb_new(16, 16);
    const uint32_t k = rast_rgb(0, 0, 0), wh = rast_rgb(255, 255, 255);
    uint32_t tex[4] = {k, wh, k, wh}, one = rast_rgb(128, 128, 128), light[4];
    for (int i = 0; i < 4; i++)
        light[i] = wh;
    const uint32_t *mips[2] = {tex, &one};
    rast_tex t;
    square_planes(&t, 2, 2, 2, 2);
    t.texels = tex;
    t.mips = mips;
    t.num_mips = 2;
    t.wrap = (uint8_t)wrap;
    t.light = light;
    t.mag_linear = (uint8_t)mag;
    rast_clear(fb, 0);
    square(fb, &t, RAST_OPAQUE);
    int bad = -1;
    for (int i = 0; i < 4 && bad < 0; i++) {
        uint32_t c = fb->color[4 * i];
        if ((c & 255) != want[i] || (c >> 8 & 255) != want[i] || (c >> 16 & 255) != want[i])
            bad = i;
    }
    uint32_t got = bad >= 0 ? fb->color[4 * bad] : 0;
    rast_fb_free(fb);
    CHECK_MSG(bad < 0, "wrap %d mag %d pixel %d: %08x, want %u", wrap, mag, 4 * bad, got,
              want[bad < 0 ? 0 : bad]);
}

TEST(q3tex_close_walls_read_bilinearly)
{
    static const uint8_t linear[4] = {112, 16, 143, 239}, nearest[4] = {0, 0, 255, 255};
    close_up(1, 0, nearest);
    close_up(1, 1, linear);
}

/* The same close up of a clamped image (a clampmap: sprites, flares, blood): GL_LINEAR with
 * GL_CLAMP_TO_EDGE reads the neighbours of a sample within the image. By hand, as above:
 * pixel 0 (u = -0.4375) mixes texel -1 and 0, both clamped to 0 (black): 0; pixels 4 and 8
 * as the repeating image's, 16 and 143; pixel 12 (u = 1.0625) mixes texels 1 and 2, both
 * clamped to 1 (white): 255 (repeating: 239). qdemo read a clamped image nearest: 0, 0,
 * 255, 255. */
TEST(q3tex_close_clamped_images_read_bilinearly)
{
    static const uint8_t want[4] = {0, 16, 143, 255};
    close_up(0, 1, want);
}

TEST(q3tex_rast_modulate_and_combine)
{
    rast_fb *fb = rast_fb_new(16, 16);
    /* texel (200, 100, 50) times a flat light (128, 64, 255): round(200 * 128 / 255) = 100,
     * round(100 * 64 / 255) = 25, 50 */
    uint32_t tex = rast_rgb(200, 100, 50), light[4];
    for (int i = 0; i < 4; i++)
        light[i] = rast_rgb(128, 64, 255);
    rast_tex t;
    square_planes(&t, 1, 1, 2, 2);
    t.texels = &tex;
    t.light = light;
    rast_clear(fb, 0);
    square(fb, &t, RAST_OPAQUE);
    for (int i = 0; i < 16 * 16; i++)
        CHECK_EQ(fb->color[i], rast_rgb(100, 25, 50));
    /* a light ramp 0 -> 255 across two texels: bilinear between the centres (x = 4 and 12
     * in pixels), clamped outside them, read at every fourth pixel (0, 4, 8, 12) and linear
     * between. Pixel 4 (centre 4.5): 255 * 0.5 / 8 = 15.9, the 8-bit weights of 16.16
     * coordinates give 15; pixel 8: 255 * 4.5 / 8 = 143.4, 143; pixels 0 and 12 are clamped
     * (0, 255). Between: pixel 3 = (1 x 0 + 3 x 15) / 4 = 11; pixel 7 = (15 + 3 x 143) / 4
     * = 111; pixel 15 = 255 (both reads clamped). The same four-wide path serves the clamped
     * image here and a repeating one. */
    uint32_t white = rast_rgb(255, 255, 255);
    light[0] = light[2] = rast_rgb(0, 0, 0);
    light[1] = light[3] = white;
    t.texels = &white;
    for (int wrap = 0; wrap < 2; wrap++) {
        t.wrap = wrap;
        rast_clear(fb, 0);
        square(fb, &t, RAST_OPAQUE);
        static const uint8_t want[16] = {0, 3, 7, 11, 15, 47, 79, 111, 143, 171, 199, 227,
                                         255, 255, 255, 255};
        for (int x = 0; x < 16; x++)
            CHECK_MSG((fb->color[x] & 255) == want[x], "wrap %d pixel %d: %u", wrap, x,
                      fb->color[x] & 255);
    }
    /* The same ramp stretched to 32 pixels a luxel pair (ls = (x + 0.5) / 16): a luxel is
     * 16 pixels wide, more than eight, so the light is read at every eighth pixel (0, 8,
     * 16) and is linear between. In 16.16 the reads are at 2048 + 4096 x: pixel 0 is
     * clamped (0); pixel 8 is 2048 past the first centre, weight 8 of 256: 255 x 8 / 256 =
     * 7; pixel 16, weight 136: 255 x 136 / 256 = 135. Pixel x = 8 i + q takes (8 L_i + q
     * (L_i+1 - L_i)) / 8: pixels 1..7 are 7 q / 8 (0 0 1 2 3 4 5 6), pixels 8..15 are (56 +
     * 128 q) / 8 (7 23 39 ... 119). */
    t.ls[0] = 2.0 / 32;
    for (int wrap = 0; wrap < 2; wrap++) {
        t.wrap = wrap;
        rast_clear(fb, 0);
        square(fb, &t, RAST_OPAQUE);
        static const uint8_t want[16] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 23, 39, 55, 71, 87,
                                         103, 119};
        for (int x = 0; x < 16; x++)
            CHECK_MSG((fb->color[x] & 255) == want[x], "wide, wrap %d pixel %d: %u", wrap, x,
                      fb->color[x] & 255);
    }
    t.wrap = 0;
    /* add, multiply, alpha test over an old colour of (100, 100, 100) */
    uint32_t half = rast_rgb(200, 50, 10);
    square_planes(&t, 1, 1, 0, 0);
    t.texels = &half;
    /* and both, GL_DST_COLOR GL_ONE (Quake III's dynamic lights): old + old x texel, 100 +
     * round(100 x 200 / 255) = 178, 100 + 20 = 120, 100 + 4 = 104 */
    /* blend by the texel's alpha 128: round((200 x 128 + 100 x 127) / 255) = 150, (50 x
     * 128 + 12700) / 255 = 74.9 -> 75, (10 x 128 + 12700) / 255 = 54.8 -> 55 */
    /* and RAST_MUL | RAST_BLEND, GL_DST_COLOR GL_SRC_COLOR (detail textures): twice the
     * product, 2 x 78 = 156, 2 x 20 = 40, 2 x 4 = 8 */
    unsigned modes[5] = {RAST_ADD, RAST_MUL, RAST_ADD | RAST_MUL, RAST_BLEND,
                         RAST_MUL | RAST_BLEND};
    uint32_t want[5] = {rast_rgb(255, 150, 110), rast_rgb(78, 20, 4), rast_rgb(178, 120, 104),
                        rast_rgb(150, 75, 55), rast_rgb(156, 40, 8)};
    /* unlit (span_tex), then lit by white light texels (the lit span's four-wide blocks,
     * whose light changes nothing): the same colours on every pixel */
    for (int lit = 0; lit < 2; lit++)
        for (int m = 0; m < 5; m++) {
            uint32_t px = m == 3 ? (half & 0xffffffu) | 128u << 24 : half;
            square_planes(&t, 1, 1, lit ? 2 : 0, lit ? 2 : 0);
            t.texels = &px;
            t.light = lit ? light : NULL;
            for (int i = 0; i < 4; i++)
                light[i] = white;
            rast_clear(fb, rast_rgb(100, 100, 100));
            square(fb, &t, RAST_COLOR_WRITE | modes[m]);
            for (int i = 0; i < 16 * 16; i++)
                CHECK_MSG(fb->color[i] == want[m], "lit %d mode %d pixel %d: %08x", lit, m, i,
                          fb->color[i]);
        }
    uint32_t cut[2] = {rast_rgb(9, 9, 9) & 0x7fffffffu, rast_rgb(7, 7, 7)}; /* alpha 127, 255 */
    for (int lit = 0; lit < 2; lit++) {
        square_planes(&t, 2, 1, lit ? 2 : 0, lit ? 2 : 0);
        t.texels = cut;
        t.light = lit ? light : NULL;
        rast_clear(fb, rast_rgb(100, 100, 100));
        square(fb, &t, RAST_OPAQUE | RAST_ALPHA_TEST);
        CHECK_EQ(fb->color[2], rast_rgb(100, 100, 100)); /* left half: alpha 127 cut away */
        CHECK(fb->depth[2] == 0);
        CHECK_EQ(fb->color[13], rast_rgb(7, 7, 7));
    }
    rast_fb_free(fb);
}

/* A mip chain's level per run: texels 4x4 red, 2x2 green, 1x1 blue, lit by white, drawn
 * with s and t in texels of level 0. Quake's thresholds (level 0 while a pixel spans at most
 * 1.25 texels, one more level for each doubling), worked by hand from the planes: 1 texel a
 * pixel each way is level 0; 1.2 is still 0; 2 along the row is 1 (2 / 2 = 1 <= 1.25); 3
 * down the column alone is 2 (3 / 2 = 1.5, / 4 = 0.75), the same clamped or repeating; 100
 * is past the last level, which is read. */
TEST(q3tex_rast_mip_level_by_footprint)
{
    uint32_t red[16], green[4], blue = rast_rgb(0, 0, 255), white[4];
    for (int i = 0; i < 16; i++)
        red[i] = rast_rgb(255, 0, 0);
    for (int i = 0; i < 4; i++) {
        green[i] = rast_rgb(0, 255, 0);
        white[i] = rast_rgb(255, 255, 255);
    }
    const uint32_t *chain[3] = {red, green, &blue};
    static const struct {
        double ds, dt;
        int wrap;
        uint32_t want;
    } cases[] = {
        {1, 1, 1, 0xff0000ffu},   {1.2, 1.2, 1, 0xff0000ffu}, {2, 1, 1, 0xff00ff00u},
        {1, 3, 1, 0xffff0000u},   {1, 3, 0, 0xffff0000u},     {100, 1, 1, 0xffff0000u},
    };
    rast_fb *fb = rast_fb_new(16, 16);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rast_tex t;
        square_planes(&t, 4, 4, 2, 2);
        t.s[0] = cases[c].ds, t.t[1] = cases[c].dt;
        t.texels = red, t.mips = chain, t.num_mips = 3;
        t.light = white, t.wrap = cases[c].wrap;
        rast_clear(fb, 0);
        square(fb, &t, RAST_OPAQUE);
        for (int i = 0; i < 16 * 16; i++)
            CHECK_MSG(fb->color[i] == cases[c].want, "case %zu pixel %d: %08x", c, i,
                      fb->color[i]);
    }
    rast_fb_free(fb);
}

/* The sky: at 5 s into flyby_oa_dm3.dm_70 the camera sees open sky over oa_dm3; the sky's
 * pixels all get the sky shader's first image (textures/acc_dm3/sp_flatsky.jpg, projected as
 * a cloud layer): none keeps the sky's mark, and their mean colour is that image's mean
 * within 25 %. */
/* Debian's flyby_oa_dm3.dm_70 at secs past its start: a copy of the client state there
 * (free it) into *out, the recorded camera into cam and the demo time into *t. -1 when the
 * real data lacks the demo, 0 when it cannot be decoded. */
static int flyby_at(double secs, cl_state **out, r_camera *cam, double *t)
{
    char demo[512];
    if (!test_realfile(demo, sizeof demo, "dm_70/openarena-081-misc_pak6-misc_flyby_oa_dm3.dm_70"))
        return -1;
    qd_error err = {0};
    demo_t *d = demo_open(demo, &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    *t = tl ? tl_start(tl) + secs : 0;
    const cl_state *at = tl ? tl_state_at(tl, *t, &err) : NULL;
    *out = at ? malloc(sizeof **out) : NULL;
    if (*out) {
        memcpy(*out, at, sizeof **out);
        r_camera_from_view(*out, *t, cam);
    }
    tl_close(tl);
    return *out != NULL;
}

/* The flyby's state and camera at secs (cl, cam, t), in a test: skipped without the demo,
 * failed when it does not decode. */
#define FLYBY_AT(secs)                                                                     \
    cl_state *cl;                                                                          \
    r_camera cam;                                                                          \
    double t;                                                                              \
    int flyby_ = flyby_at(secs, &cl, &cam, &t);                                            \
    if (flyby_ < 0)                                                                        \
        SKIP("real data missing");                                                         \
    CHECK(flyby_ == 1);                                                                    \
    if (flyby_ != 1)                                                                       \
        return

TEST(q3tex_sky_from_its_shader)
{
    FLYBY_AT(5);
    free(cl);
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    qd_error err = {0};
    s.cam = cam;
    const mdl_bsp *b = r_assets_map(s.a);
    mdl_image *im = NULL;
    CHECK(mdl_image_find(oa_read, &s.o, "textures/acc_dm3/sp_flatsky.jpg", &im, &err) == QD_OK);
    double want[3] = {0, 0, 0}, got[3] = {0, 0, 0};
    for (size_t i = 0; i < (size_t)im->w * im->h; i++)
        for (int k = 0; k < 3; k++)
            want[k] += (double)(im->pixels[i] >> (8 * k) & 255) / ((double)im->w * im->h);
    mdl_image_free(im);
    int32_t *ids = face_ids(&s);
    rast_fb *fb = frame(&s, R_MODE_TEXTURED, 1);
    size_t sky = 0;
    for (int i = 0; i < W * H; i++) {
        CHECK(fb->color[i] != R_SKY_MARK);
        if (ids[i] < 0 || !(b->faces[ids[i]].flags & MDL_SURF_SKY))
            continue;
        sky++;
        for (int k = 0; k < 3; k++)
            got[k] += fb->color[i] >> (8 * k) & 255;
    }
    CHECK_MSG(sky > W * H / 4, "%zu sky pixels", sky);
    for (int k = 0; k < 3; k++)
        CHECK_MSG(fabs(got[k] / (double)sky - want[k]) <= 0.25 * want[k] + 4,
                  "channel %d: sky mean %.1f, image mean %.1f", k, got[k] / (double)sky,
                  want[k]);
    free(ids);
    rast_fb_free(fb);
    oa_close(&s);
}

/* An explosion of weapon style, light radius 300, orange, `ahead` units along the
 * camera's yaw and 40 under its eye. */
static cl_fxev explosion_ahead(const oa_scene *s, float ahead, int style)
{
    float yaw = s->cam.angles[1] * (float)M_PI / 180;
    cl_fxev fx;
    memset(&fx, 0, sizeof fx);
    fx.kind = CL_FXK_EXPLOSION;
    fx.life = 1.0f;
    fx.radius = 300;
    fx.rgb[0] = 255;
    fx.rgb[1] = 191;
    fx.entity = -1;
    fx.origin[0] = s->cam.origin[0] + ahead * cosf(yaw);
    fx.origin[1] = s->cam.origin[1] + ahead * sinf(yaw);
    fx.origin[2] = s->cam.origin[2] - 40;
    fx.style = style;
    return fx;
}

/* Quake III's dynamic lights (r_dlights_collect, r_q3surf.c dlight_tris): a rocket's
 * explosion (cg_weapons.c CG_MissileHitWall: light 300 in 1, 0.75, 0; full radius for the
 * first half of its life) 80 units ahead of the camera and 40 under the eye lights oa_dm3's
 * floor and walls around it: GL_DST_COLOR GL_ONE adds the surface's colour times the light,
 * so red and green grow and blue, whose light is 0, stays exactly as it was; nothing gets
 * darker. Compared with the same explosion without its light (radius 0): its sprite, added
 * over both, is the same in each. A plasma ball's explosion makes no light (cgame gives it
 * none) and no sprite (its ring model is not drawn): the same frame. */
TEST(q3tex_explosion_lights_the_world)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    s.cl->time = 1.0;
    rast_fb *plain = frame(&s, R_MODE_TEXTURED, 1);
    cl_fxev fx = explosion_ahead(&s, 80, 8); /* WP_PLASMAGUN */
    cl_fx_add(s.cl, &fx);
    rast_fb *plasma = frame(&s, R_MODE_TEXTURED, 1);
    CHECK(memcmp(plasma->color, plain->color, W * H * sizeof(uint32_t)) == 0);
    cl_fxlog_clear(s.cl);
    fx.style = 5; /* WP_ROCKET_LAUNCHER */
    fx.radius = 0;
    cl_fx_add(s.cl, &fx);
    rast_fb_free(plain);
    plain = frame(&s, R_MODE_TEXTURED, 1);
    cl_fxlog_clear(s.cl);
    fx.radius = 300;
    cl_fx_add(s.cl, &fx);
    rast_fb *lit = frame(&s, R_MODE_TEXTURED, 1);
    char path[512];
    qd_error err = {0};
    snprintf(path, sizeof path, "%s/q3tex_explosion.png", test_tmpdir());
    out_png_write(path, lit, &err); /* for eyes */
    int redder = 0, darker = 0, blue_changed = 0;
    for (int i = 0; i < W * H; i++) {
        uint32_t a = lit->color[i], b = plain->color[i];
        redder += (a & 255) > (b & 255);
        darker += (a & 255) < (b & 255) || (a >> 8 & 255) < (b >> 8 & 255);
        blue_changed += (a >> 16 & 255) != (b >> 16 & 255);
    }
    CHECK_MSG(redder > W * H / 10, "%d pixels redder", redder);
    CHECK_EQ(darker, 0);
    CHECK_EQ(blue_changed, 0);
    rast_fb_free(plain);
    rast_fb_free(plasma);
    rast_fb_free(lit);
    oa_close(&s);
}

/* OpenArena's rocket explosion (weaponhits.shader in pak0.pk3, read with unzip -p): two
 * animMaps of the eight rlboom frames cross-fading (GL_ONE GL_SRC_ALPHA: an add for JPEG
 * frames without alpha), then two fireball stages added. Parsed: the frames and their
 * frequency (ioq3 ParseStage keeps the first eight), both animMaps as the two layers, the
 * fireballs as the two stages after them; a ninth frame is dropped. */
static const char boom[] =
    "rocketExplosion\n{\n\t{\n\t\tanimmap 8 r/b1.tga r/b2.tga r/b3.tga r/b4.tga r/b5.tga "
    "r/b6.tga r/b7.tga r/b8.tga r/b9.tga\n\t\tblendfunc gl_one gl_src_alpha\n"
    "\t\trgbGen wave inversesawtooth 0 1 0 8\n\t}\n\t{\n\t\tanimmap 8 r/b2.tga r/b3.tga\n"
    "\t\tblendfunc gl_one gl_src_alpha\n\t\trgbGen wave sawtooth 0 1 0 8\n\t}\n"
    "\t{\n\t\tclampmap textures/oa/fiar.tga\n\t\tblendfunc add\n\t\ttcMod rotate 77\n\t}\n"
    "\t{\n\t\tclampmap textures/oa/fiar2.tga\n\t\tblendfunc add\n\t}\n}\n";

TEST(q3tex_shader_anim_map_and_all_stages)
{
    mdl_shader_set set = {0};
    CHECK(parse_all(&set, boom, sizeof boom - 1));
    const mdl_shader *s = mdl_shader_find(&set, "rocketExplosion");
    CHECK(s != NULL);
    if (s) {
        CHECK_EQ(s->stage.anim_frames, 8);
        CHECK(s->stage.anim_freq == 8.0f);
        CHECK_STR(s->stage.image, "r/b1.tga");
        CHECK_STR(s->stage.anim[0], "r/b2.tga");
        CHECK_STR(s->stage.anim[6], "r/b8.tga");
        CHECK_EQ(s->stage.blend, MDL_BLEND_ADD);
        CHECK_EQ(s->stage.rgbwave.func, MDL_WAVE_INVSAWTOOTH);
        CHECK_EQ(s->stage2.anim_frames, 2);
        CHECK_STR(s->stage2.image, "r/b2.tga");
        CHECK_EQ(s->stage2.rgbwave.func, MDL_WAVE_SAWTOOTH);
        CHECK_STR(s->more[0].image, "textures/oa/fiar.tga");
        CHECK(s->more[0].clamp && s->more[0].num_tcmods == 1);
        CHECK_STR(s->more[1].image, "textures/oa/fiar2.tga");
    }
    mdl_shader_set_clear(&set);
}

/* How many of colour q's channels (R, G, B) are above, and how many below, colour p's. */
static void channels_vs(uint32_t q, uint32_t p, int *up, int *down)
{
    *up = *down = 0;
    for (int sh = 0; sh < 24; sh += 8) {
        *up += (q >> sh & 255) > (p >> sh & 255);
        *down += (q >> sh & 255) < (p >> sh & 255);
    }
}

/* A rocket's explosion 120 units ahead of the camera on oa_dm3, its normal towards the
 * camera, drawn as cgame draws it (cg_localents.c CG_AddSpriteExplosion: a sprite of radius
 * 30 + 42 x its age's fraction, its shader rocketExplosion, started up to 63 ms early by
 * CG_MakeExplosion's skew), without dynamic lights: added over the scene (no pixel darker),
 * centred on the screen (the sprite sits 16 units out along the normal: 104 units away),
 * within the sprite's corners at 0.05 s (radius at most 30 + 42 x 0.113 = 34.7 units: at
 * most 34.7 x sqrt 2 / 104 x 160 = 75.5 pixels from the centre at 320 x 240 with a 90
 * degree view, 2 more for edges), and larger at 0.6 s. Nothing of it without the scripts'
 * shader (its images hidden). */
TEST(q3tex_rocket_explosion_sprite)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    s.cl->time = 1.0;
    float yaw = s.cam.angles[1] * (float)M_PI / 180, fwd[3] = {cosf(yaw), sinf(yaw), 0};
    const float ahead[3] = {s.cam.origin[0] + 120 * fwd[0], s.cam.origin[1] + 120 * fwd[1],
                            s.cam.origin[2] + 120 * fwd[2]};
    cl_fxev fx = test_fx(CL_FXK_EXPLOSION, 5 /* WP_ROCKET_LAUNCHER */, 1.0f, ahead);
    for (int k = 0; k < 3; k++)
        fx.end[k] = fx.origin[k] - fwd[k];
    r_options o = {.mode = R_MODE_TEXTURED, .no_dlights = 1};
    rast_fb *plain = rast_fb_new(W, H), *at[2] = {rast_fb_new(W, H), rast_fb_new(W, H)};
    r_render(s.a, s.cl, 1.0, &s.cam, &o, plain);
    cl_fx_add(s.cl, &fx);
    static const double age[2] = {0.05, 0.6};
    double reach[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        r_render(s.a, s.cl, 1.0 + age[i], &s.cam, &o, at[i]);
        int brighter = 0, darker = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                uint32_t p = plain->color[y * W + x], q = at[i]->color[y * W + x];
                int up, down;
                channels_vs(q, p, &up, &down);
                brighter += up > 0;
                darker += down > 0;
                double d = hypot(x + 0.5 - W / 2.0, y + 0.5 - H / 2.0);
                if (up && d > reach[i])
                    reach[i] = d;
            }
        CHECK_EQ(darker, 0);
        CHECK_MSG(brighter > 2000, "%.2f s: %d pixels brighter", age[i], brighter);
    }
    CHECK_MSG(reach[0] <= 75.5 + 2, "at 0.05 s a pixel %.1f from the centre", reach[0]);
    CHECK_MSG(reach[1] > reach[0] * 1.2, "%.1f then %.1f", reach[0], reach[1]);
    char path[512];
    qd_error err = {0};
    snprintf(path, sizeof path, "%s/q3tex_rocket_explosion.png", test_tmpdir());
    out_png_write(path, at[1], &err); /* for eyes */
    rast_fb_free(plain);
    rast_fb_free(at[0]);
    rast_fb_free(at[1]);
    oa_close(&s);
}

/* Scene s at time t without effect fx (plain), then with it, added at 1 s (with), textured
 * and without dynamic lights. */
static void render_with_fx(oa_scene *s, const cl_fxev *fx, double t, rast_fb *plain,
                           rast_fb *with)
{
    r_options o = {.mode = R_MODE_TEXTURED, .no_dlights = 1};
    r_render(s->a, s->cl, t, &s->cam, &o, plain);
    s->cl->time = 1.0;
    cl_fx_add(s->cl, fx);
    r_render(s->a, s->cl, t, &s->cam, &o, with);
}

/* cg_players.c CG_PlayerShadow: a body at oa_dm3's first spawn point, its origin 20 units
 * over the floor there (the floor found straight under the spawn point), its body hidden
 * (r_options.hide_entity, as the view's own in first person: the shadow is still drawn),
 * seen from 100 units over it looking straight down (320 x 240, 90 degrees: 160 pixels a
 * unit at depth 1). The "markShadow" mark (gfx/damage/shadow.tga filtered by its
 * inverse, GL_ZERO GL_ONE_MINUS_SRC_COLOR, its vertex colour 1 - 20 / 128) darkens the
 * floor within 24 units of the point under the body: 24 x 160 / 120 = 32 pixels about the
 * centre (the square's corners 1.42 times that), and brightens nothing. Raised 140 units
 * over the floor (past the trace's 128) or invisible, it casts none. */
TEST(q3tex_player_blob_shadow)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    const mdl_bsp *b = r_assets_map(s.a);
    float spot[3] = {s.cam.origin[0], s.cam.origin[1], s.cam.origin[2] - 26}, dist;
    const float down[3] = {spot[0], spot[1], spot[2] - 512};
    uint32_t face;
    CHECK(r_q3_trace(b, spot, down, &dist, &face));
    const float floor_z = spot[2] - dist;
    r_camera cam = {.origin = {spot[0], spot[1], floor_z + 120}, .angles = {90, 0, 0}, .fov = 90};
    rast_fb *plain = rast_fb_new(W, H), *with = rast_fb_new(W, H);
    r_options o = {.mode = R_MODE_TEXTURED, .no_dlights = 1, .hide_entity = 1};
    static const struct {
        float over;
        uint8_t shells;
        int cast;
    } cases[] = {{20, 0, 1}, {140, 0, 0}, {20, CL_SHELL_INVIS, 0}};
    for (int k = 0; k < 3; k++) {
        r_render(s.a, s.cl, 1.0, &cam, &o, plain);
        cl_entstate st;
        memset(&st, 0, sizeof st);
        st.origin[0] = spot[0];
        st.origin[1] = spot[1];
        st.origin[2] = floor_z + cases[k].over;
        st.model = OA_SHARD; /* (any model: the body is hidden) */
        st.player = 1;
        st.flags = CL_EF_PLAYER;
        s.cl->players[0].shells = cases[k].shells;
        cl_frame_begin(s.cl, 1.0);
        cl_entity_update(s.cl, 1, &st);
        cl_frame_end(s.cl, CL_DROP_ALL);
        r_render(s.a, s.cl, 1.0, &cam, &o, with);
        int darker = 0, brighter = 0, outside = 0;
        for (int i = 0; i < W * H; i++) {
            int dx = i % W - W / 2, dy = i / W - H / 2, d, u;
            channels_vs(with->color[i], plain->color[i], &u, &d);
            darker += d > 0;
            brighter += u > 0;
            outside += (d || u) && dx * dx + dy * dy > 48 * 48;
        }
        CHECK_MSG(cases[k].cast ? darker > 500 : darker == 0, "case %d: %d pixels darker", k,
                  darker);
        CHECK_MSG(brighter == 0 && outside == 0, "case %d: %d brighter, %d outside", k,
                  brighter, outside);
        cl_frame_begin(s.cl, 1.0);
        cl_entity_remove(s.cl, 1);
        cl_frame_end(s.cl, CL_DROP_ALL);
    }
    s.cl->players[0].shells = 0;
    rast_fb_free(plain);
    rast_fb_free(with);
    oa_close(&s);
}

/* OpenArena's rail rings (cg_weapons.c CG_RailTrail with cg_oldRail 0, CL_FXK_RAIL_RINGS)
 * across oa_dm3's first corridor 150 units ahead, 0.05 s old. Its spawn point looks along
 * -y (angle 270), so the rail runs from 40 units left of the view's axis (+x) to 40 right,
 * along (-1, 0, 0). By hand: PerpendicularVector takes the first axis of its least
 * component, y, so the ring's axes are (0, 1, 0) (towards the eye) and the rail x it,
 * (0, 0, -1); disc k (every 10 units from 20 in) sits 4 + 6 x 0.05 = 4.3 units off the rail
 * at (18 + 2k) x 10 degrees: (0, cos a, -sin a) x 4.3. At 160 pixels a unit of depth: disc
 * 0 (a = 180) on the rail's row, 154.3 deep, 20 units left: (-20.7, 0); disc 2 (a = 220)
 * 2.76 up at 153.3 deep on the axis: (0, -2.9); disc 4 (a = 260) 4.24 up at 150.7 deep, 20
 * right: (21.2, -4.5). A disc is a sprite of radius 1.1: no pixel changes more than (4.3 +
 * 1.1 x 1.42) x 160 / 145.7 = 6.4 rows from the centre (2 more for edges). */
TEST(q3tex_rail_rings_by_hand)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    CHECK(s.cam.angles[1] == 270 && s.cam.angles[0] == 0);
    const float from[3] = {s.cam.origin[0] + 40, s.cam.origin[1] - 150, s.cam.origin[2]};
    cl_fxev fx = test_fx(CL_FXK_RAIL_RINGS, 0, 2.0f, from);
    memcpy(fx.end, from, sizeof fx.end);
    fx.end[0] -= 80;
    fx.rgb[0] = fx.rgb[2] = 255; /* (colour 2 magenta: 5) */
    rast_fb *plain = rast_fb_new(W, H), *rings = rast_fb_new(W, H);
    render_with_fx(&s, &fx, 1.05, plain, rings);
    static const float disc[3][2] = {{-20.7f, 0}, {0, -2.9f}, {21.2f, -4.5f}};
    int changed = 0, outside = 0, near[3] = {0, 0, 0};
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (plain->color[y * W + x] == rings->color[y * W + x])
                continue;
            changed++;
            double dx = x + 0.5 - W / 2.0, dy = y + 0.5 - H / 2.0;
            outside += fabs(dy) > 6.4 + 2;
            for (int k = 0; k < 3; k++)
                near[k] += fabs(dx - disc[k][0]) < 2 && fabs(dy - disc[k][1]) < 2;
        }
    char path[512];
    qd_error err = {0};
    snprintf(path, sizeof path, "%s/q3tex_rail_rings.png", test_tmpdir());
    out_png_write(path, rings, &err); /* for eyes */
    CHECK_MSG(changed > 20, "%d pixels changed", changed);
    CHECK_EQ(outside, 0);
    for (int k = 0; k < 3; k++)
        CHECK_MSG(near[k] > 0, "no pixel of disc %d", k);
    rast_fb_free(plain);
    rast_fb_free(rings);
    oa_close(&s);
}

/* A score plum of 8 points (cg_localents.c CG_AddScorePlum) made 2 s ago 300 units ahead
 * and 200 under the eye on oa_dm3, under the floor: drawn with no depth test, it shows. By
 * hand: at c = 0.5 it has risen 110 - 50 = 60 units (140 under the eye) and swayed -10 +
 * 20 sin(pi) = -10 units along (eye - it) x up = (1, 0, 0) (the view looks along -y: +x is
 * the screen's left), its one digit 8 x (1/2) = 4 back: 6 units right, 140 down, 300 deep:
 * 3.2 pixels right of the centre and 74.7 under it at 160 pixels a unit of depth, a sprite
 * of radius 4 (2.1 pixels) in green (8 points: 2 and up). Nothing else changes. */
TEST(q3tex_score_plum_by_hand)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    CHECK(s.cam.angles[1] == 270 && s.cam.angles[0] == 0);
    const float at[3] = {s.cam.origin[0], s.cam.origin[1] - 300, s.cam.origin[2] - 200};
    cl_fxev fx = test_fx(CL_FXK_SCORE_PLUM, 0, 10.0f, at);
    fx.radius = 8;
    r_options o = {.mode = R_MODE_TEXTURED, .no_dlights = 1};
    rast_fb *plain = rast_fb_new(W, H), *plum = rast_fb_new(W, H);
    r_render(s.a, s.cl, 3.0, &s.cam, &o, plain);
    s.cl->time = 1.0;
    cl_mark_add(s.cl, &fx);
    r_render(s.a, s.cl, 3.0, &s.cam, &o, plum);
    int changed = 0, outside = 0, not_green = 0, greener = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint32_t p = plain->color[y * W + x], q = plum->color[y * W + x];
            if (p == q)
                continue;
            changed++;
            outside += fabs(x + 0.5 - W / 2.0 - 3.2) > 2.1 + 1 || fabs(y + 0.5 - H / 2.0 - 74.7) > 2.1 + 1;
            /* (blended towards a green texel: red and blue never rise) */
            not_green += (q & 255) > (p & 255) || (q >> 16 & 255) > (p >> 16 & 255);
            greener += (q >> 8 & 255) > (p >> 8 & 255);
        }
    CHECK_MSG(changed > 0, "%d pixels changed", changed);
    CHECK_EQ(outside, 0);
    CHECK_EQ(not_green, 0);
    CHECK(greener > 0);
    rast_fb_free(plain);
    rast_fb_free(plum);
    oa_close(&s);
}

/* A score plum 10,000,000 units to the side and 3 ahead (an event origin within the
 * decoder's bound): projected billions of pixels off the frame, it draws nothing, and its
 * pixel bounds are not made from such numbers (an int overflowed at 1920x1080; a review;
 * the sanitizer run is what sees the difference). */
TEST(q3tex_score_plum_far_to_the_side)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    const float at[3] = {1e7f, s.cam.origin[1] - 3, s.cam.origin[2] - 60};
    cl_fxev fx = test_fx(CL_FXK_SCORE_PLUM, 0, 10.0f, at);
    fx.radius = 8;
    r_options o = {.mode = R_MODE_TEXTURED, .no_dlights = 1};
    rast_fb *plain = rast_fb_new(1920, 1080), *plum = rast_fb_new(1920, 1080);
    r_render(s.a, s.cl, 3.0, &s.cam, &o, plain);
    s.cl->time = 1.0;
    cl_mark_add(s.cl, &fx);
    r_render(s.a, s.cl, 3.0, &s.cam, &o, plum);
    CHECK(plain && plum &&
          !memcmp(plain->color, plum->color, (size_t)1920 * 1080 * sizeof *plain->color));
    rast_fb_free(plain);
    rast_fb_free(plum);
    oa_close(&s);
}

/* cg_effects.c CG_SpawnEffect: a player coming out of a teleporter 150 units ahead on oa_dm3:
 * 0.1 s after, OpenArena's teleportEffect (added glows turned to the eye, on
 * models/misc/telep.md3 24 units down) brightens the frame there and darkens nothing; at
 * 0.5 s it is gone. */
TEST(q3tex_teleport_effect)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    float yaw = s.cam.angles[1] * (float)M_PI / 180;
    const float at[3] = {s.cam.origin[0] + 150 * cosf(yaw), s.cam.origin[1] + 150 * sinf(yaw),
                         s.cam.origin[2]};
    cl_fxev fx = test_fx(CL_FXK_TELEPORT, 0, 0.5f, at);
    rast_fb *plain = rast_fb_new(W, H), *with = rast_fb_new(W, H);
    for (int k = 0; k < 2; k++) {
        double t = k ? 1.5 : 1.1;
        render_with_fx(&s, &fx, t, plain, with);
        int brighter = 0, darker = 0;
        for (int i = 0; i < W * H; i++) {
            int u, d;
            channels_vs(with->color[i], plain->color[i], &u, &d);
            brighter += u;
            darker += d;
        }
        CHECK_EQ(darker, 0);
        if (k)
            CHECK_EQ(brighter, 0);
        else
            CHECK_MSG(brighter > 100, "%d channels brighter", brighter);
    }
    rast_fb_free(plain);
    rast_fb_free(with);
    oa_close(&s);
}

/* cg_ents.c CG_Item grows an item back from nothing over the second after its
 * EV_ITEM_RESPAWN (frac = msec / ITEM_SCALEUP_TIME): an armour shard 80 units ahead covers
 * about a quarter of its pixels half a second after it respawned (its size halved each way;
 * its bob is the same at both). */
TEST(q3tex_respawned_item_grows_back)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    float yaw = s.cam.angles[1] * (float)M_PI / 180;
    cl_entstate st;
    memset(&st, 0, sizeof st);
    st.model = OA_SHARD;
    st.fx = CL_FX_ROTATE;
    st.origin[0] = s.cam.origin[0] + 80 * cosf(yaw);
    st.origin[1] = s.cam.origin[1] + 80 * sinf(yaw);
    st.origin[2] = s.cam.origin[2] - 10;
    r_options o = {.mode = R_MODE_TEXTURED, .no_dlights = 1};
    rast_fb *plain = rast_fb_new(W, H), *whole = rast_fb_new(W, H), *half = rast_fb_new(W, H);
    r_render(s.a, s.cl, 1.5, &s.cam, &o, plain);
    cl_frame_begin(s.cl, 1.0);
    CHECK(cl_entity_update(s.cl, 100, &st));
    cl_frame_end(s.cl, 1);
    r_render(s.a, s.cl, 1.5, &s.cam, &o, whole);
    cl_fxev fx = test_fx(CL_FXK_ITEM_RESPAWN, 0, 1.0f, st.origin);
    fx.entity = 100;
    cl_fx_add(s.cl, &fx); /* (at 1.0 s: 0.5 s before the frame) */
    r_render(s.a, s.cl, 1.5, &s.cam, &o, half);
    int n_whole = 0, n_half = 0;
    for (int i = 0; i < W * H; i++) {
        n_whole += whole->color[i] != plain->color[i];
        n_half += half->color[i] != plain->color[i];
    }
    CHECK_MSG(n_whole > 100, "%d pixels of the whole shard", n_whole);
    CHECK_MSG(n_half * 6 > n_whole && n_half * 3 < n_whole, "%d of %d pixels at half size",
              n_half, n_whole);
    rast_fb_free(plain);
    rast_fb_free(whole);
    rast_fb_free(half);
    oa_close(&s);
}

/* The large health's sphere (models/powerups/health/large_sphere.md3, shader largecrossEnv:
 * its environment map added, blendfunc gl_src_alpha gl_one) far down oa_dm3's first
 * corridor, 40 units short of the wall the view meets: its triangles cover under 2 pixels
 * each, where a model's are filled with the image's mean colour (tiny: cheaper than
 * texturing them). An opaque fill drew the sphere as a brown ball over the wall; added
 * light makes nothing darker: every channel of every pixel is at least the frame's
 * without it, and some are brighter. */
TEST(q3tex_distant_blended_model_stays_blended)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    const mdl_bsp *b = r_assets_map(s.a);
    float yaw = s.cam.angles[1] * (float)M_PI / 180, dist;
    const float far[3] = {s.cam.origin[0] + 4000 * cosf(yaw), s.cam.origin[1] + 4000 * sinf(yaw),
                          s.cam.origin[2]};
    uint32_t face;
    CHECK(r_q3_trace(b, s.cam.origin, far, &dist, &face));
    dist = dist - 40 < 900 ? dist - 40 : 900;
    CHECK_MSG(dist > 400, "the wall %g units on", (double)dist);
    cl_entstate st;
    memset(&st, 0, sizeof st);
    st.model = OA_SPHERE;
    st.origin[0] = s.cam.origin[0] + dist * cosf(yaw);
    st.origin[1] = s.cam.origin[1] + dist * sinf(yaw);
    st.origin[2] = s.cam.origin[2];
    r_options o = {.mode = R_MODE_TEXTURED, .no_dlights = 1};
    rast_fb *plain = rast_fb_new(W, H), *with = rast_fb_new(W, H);
    r_render(s.a, s.cl, 1.5, &s.cam, &o, plain);
    cl_frame_begin(s.cl, 1.0);
    CHECK(cl_entity_update(s.cl, 100, &st));
    cl_frame_end(s.cl, 1);
    r_render(s.a, s.cl, 1.5, &s.cam, &o, with);
    int darker = 0, brighter = 0;
    for (int i = 0; i < W * H; i++) {
        int u, d;
        channels_vs(with->color[i], plain->color[i], &u, &d);
        brighter += u;
        darker += d;
    }
    CHECK_MSG(darker == 0, "%d channels darker", darker);
    CHECK_MSG(brighter > 10, "%d channels brighter", brighter);
    rast_fb_free(plain);
    rast_fb_free(with);
    oa_close(&s);
}

/* cg_weapons.c CG_AddViewWeapon with cg_drawGun 0 (the engine-reference frames' setting,
 * and qdemo's --no-gun): no weapon, but while the view's player fires the lightning gun
 * (EF_FIRING: CL_FX_MUZZLE, its weapon the lightning gun) the beam from 8 units under the
 * eye along the view; and the view player's muzzle flash lights nothing, its light being
 * the view weapon's (CG_AddPlayerWeapon adds it for ps, or in third person, or for
 * another player). At oa_dm3's spawn point, the view entity 1 at the eye: firing, the
 * frame changes, blue over most of the changed pixels (the lightningBoltNew beam and
 * crackle); a machine gun's muzzle flash at the same place leaves the frame as it was
 * without the gun, and lights the walls with it. */
TEST(q3tex_no_gun_view_lightning_and_flash)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    cl_entstate st;
    memset(&st, 0, sizeof st);
    memcpy(st.origin, s.cam.origin, sizeof st.origin);
    st.origin[2] -= 26;
    st.angles[1] = s.cam.angles[1];
    st.model2 = OA_LIGHTNING;
    st.flags = CL_EF_PLAYER;
    st.player = 1;
    cl_frame_begin(s.cl, 1.0);
    CHECK(cl_entity_update(s.cl, 1, &st));
    cl_frame_end(s.cl, CL_DROP_ALL);
    s.cl->view.view_entity = 1;
    r_options o = {.mode = R_MODE_TEXTURED, .no_dlights = 0};
    rast_fb *plain = rast_fb_new(W, H), *with = rast_fb_new(W, H);
    r_render(s.a, s.cl, 1.0, &s.cam, &o, plain);
    s.cl->entities[1].cur.fx = s.cl->entities[1].prev.fx = CL_FX_MUZZLE;
    r_render(s.a, s.cl, 1.0, &s.cam, &o, with);
    int changed = 0, blue = 0;
    for (int i = 0; i < W * H; i++) {
        uint32_t c = with->color[i];
        if (c == plain->color[i])
            continue;
        changed++;
        /* (rast_rgb's order: red in the low byte) */
        blue += (c >> 16 & 255) > (c & 255);
    }
    CHECK_MSG(changed > 200, "%d pixels changed by the beam", changed);
    CHECK_MSG(blue * 2 > changed, "%d of %d blue", blue, changed);
    s.cl->entities[1].cur.fx = s.cl->entities[1].prev.fx = 0;
    s.cl->time = 1.0;
    o.gun = 1; /* (no weapon to draw: the state holds no stats) */
    r_render(s.a, s.cl, 1.02, &s.cam, &o, plain);
    cl_fxev fx = test_fx(CL_FXK_MUZZLE, 2 /* WP_MACHINEGUN */, 0.1f, st.origin);
    fx.entity = 1;
    cl_fx_add(s.cl, &fx);
    o.gun = 0;
    r_render(s.a, s.cl, 1.02, &s.cam, &o, with);
    CHECK_MSG(memcmp(with->color, plain->color, (size_t)W * H * 4) == 0,
              "the view's own flash lit the world without the gun");
    o.gun = 1;
    r_render(s.a, s.cl, 1.02, &s.cam, &o, with);
    CHECK_MSG(memcmp(with->color, plain->color, (size_t)W * H * 4) != 0,
              "the flash lit nothing with the gun shown");
    rast_fb_free(plain);
    rast_fb_free(with);
    oa_close(&s);
}

/* A rocket's smoke (cg_weapons.c CG_RocketTrail, cg_localents.c CG_AddScaleFade): a flight
 * logged as it ended (CL_FXK_TRAIL, q3.c) across the view 150 units ahead, from 100 left
 * to 100 right at 900 units a second, ended at 1 s; half a second later its puffs (every 50
 * ms, each 8 + 64 x its age's fraction of 2 s across, alpha 0.33 fading) change the frame,
 * only within the band the biggest puff can reach: 8 + 64 x 0.45 = 36.8 units, its corner
 * 52 units from the path, 55.5 rows at 150 deep (160 rows a unit of depth), 2 more for
 * edges. */
TEST(q3tex_rocket_smoke)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    float yaw = s.cam.angles[1] * (float)M_PI / 180;
    const float fwd[3] = {cosf(yaw), sinf(yaw), 0}, right[3] = {sinf(yaw), -cosf(yaw), 0};
    float from[3];
    for (int k = 0; k < 3; k++)
        from[k] = s.cam.origin[k] + 150 * fwd[k] - 100 * right[k];
    cl_fxev fx = test_fx(CL_FXK_TRAIL, 5, 2.0f, from);
    for (int k = 0; k < 3; k++)
        fx.end[k] = 900 * right[k];
    fx.radius = 200.0f / 900.0f;
    rast_fb *plain = rast_fb_new(W, H), *smoke = rast_fb_new(W, H);
    render_with_fx(&s, &fx, 1.5, plain, smoke);
    int changed = 0, outside = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (plain->color[y * W + x] == smoke->color[y * W + x])
                continue;
            changed++;
            outside += fabs(y + 0.5 - H / 2.0) > 55.5 + 2;
        }
    CHECK_MSG(changed > 500, "%d pixels changed", changed);
    CHECK_EQ(outside, 0);
    rast_fb_free(plain);
    rast_fb_free(smoke);
    oa_close(&s);
}

/* ---- the faded copies within the budget of texels ---- */

typedef struct budget_files {
    const uint8_t *bsp, *tga;
    size_t bsp_len, tga_len;
    const char *script; /* scripts/b.shader (budget_script when NULL) */
} budget_files;

/* the smoke's, the blood trail's and the six marks' shaders, each of the one image "big"
 * (their faded copies: the burn's, bullet's, hole's and shadow's colour, the others'
 * alpha; the same fades of the one image are made once, faded_image) */
static const char budget_script[] =
    "smokePuff { { map big.tga blendFunc GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA\nalphaGen vertex } }\n"
    "gfx/damage/bullet_mrk { { map big.tga blendFunc GL_ZERO GL_ONE_MINUS_SRC_COLOR rgbGen vertex } }\n"
    "gfx/damage/burn_med_mrk { { map big.tga blendFunc GL_ZERO GL_ONE_MINUS_SRC_COLOR rgbGen vertex } }\n"
    "gfx/damage/hole_lg_mrk { { map big.tga blendFunc GL_ZERO GL_ONE_MINUS_SRC_COLOR rgbGen vertex } }\n"
    "gfx/damage/plasma_mrk { { map big.tga blendFunc GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA\n"
    "rgbGen vertex\nalphaGen vertex } }\n"
    "bloodMark { { map big.tga blendFunc GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA\n"
    "rgbGen identityLighting\nalphaGen vertex } }\n"
    "bloodTrail { { map big.tga blendFunc GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA\n"
    "alphaGen vertex } }\n"
    "markShadow { polygonoffset { map big.tga blendfunc gl_zero gl_one_minus_src_color\n"
    "rgbGen Vertex } }\n";

/* A read callback's answer: a copy of the n bytes at src, or name not found (src NULL). */
static qd_err file_copy(const uint8_t *src, size_t n, const char *name, uint8_t **data,
                        size_t *len, qd_error *err)
{
    if (!src)
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
    *data = malloc(n);
    memcpy(*data, src, n);
    *len = n;
    return QD_OK;
}

static qd_err budget_read(void *ctx, const char *name, uint8_t **data, size_t *len,
                          qd_error *err)
{
    const budget_files *f = ctx;
    const char *script = f->script ? f->script : budget_script;
    const uint8_t *src = strcmp(name, "maps/b.bsp") == 0     ? f->bsp
                         : strcmp(name, "big.tga") == 0      ? f->tga
                         : strcmp(name, "scripts/b.shader") == 0 ? (const uint8_t *)script
                                                                 : NULL;
    size_t n = src == f->bsp ? f->bsp_len : src == f->tga ? f->tga_len : strlen(script);
    return file_copy(src, n, name, data, len, err);
}

static int budget_list(void *ctx, const char *prefix,
                       void (*fn)(void *u, const char *name, uint64_t size), void *u)
{
    const budget_files *f = ctx;
    (void)prefix;
    fn(u, "scripts/b.shader", strlen(f->script ? f->script : budget_script));
    return 1;
}

/* An s x s run-length TGA of one colour, its bytes blue, green, red, alpha (a few bytes
 * a 128 texels: a small file, a big image). */
static uint8_t *colour_tga(int s, const uint8_t bgra[4], size_t *len);

static uint8_t *budget_tga(int s, size_t *len)
{
    static const uint8_t bgra[4] = {40, 80, 120, 200};
    return colour_tga(s, bgra, len);
}

static uint8_t *colour_tga(int s, const uint8_t bgra[4], size_t *len)
{
    size_t packets = ((size_t)s * s + 127) / 128;
    uint8_t *t = calloc(1, 18 + 5 * packets);
    t[2] = 10;
    t[12] = (uint8_t)s, t[13] = (uint8_t)(s >> 8), t[14] = (uint8_t)s, t[15] = (uint8_t)(s >> 8);
    t[16] = 32, t[17] = 8;
    size_t left = (size_t)s * s;
    for (size_t p = 0; p < packets; p++, left -= 128) {
        size_t n = left < 128 ? left : 128;
        uint8_t *q = t + 18 + 5 * p;
        q[0] = (uint8_t)(0x80 | (n - 1));
        memcpy(q + 1, bgra, 4);
    }
    *len = 18 + 5 * packets;
    return t;
}

/* The smoke's and the blood trail's 32 and each mark's 16 faded copies of their image count against the budget
 * of texels (TEXEL_BUDGET, 256 M) as the images do: one 4096 x 4096 image (22 M texels
 * with its levels) is 144 copies, 13 GB, which a map's scripts must not make the player
 * hold; it gets no smoke and no marks, as a missing image would. A small one gets both. */
TEST(q3tex_faded_copies_within_the_texel_budget)
{
    size_t bsp_len;
    uint8_t *bsp = test_read_file("tests/fuzz/corpus/bsp/synthetic_ibsp46.bsp", &bsp_len);
    CHECK(bsp);
    cl_level *lvl = calloc(1, sizeof *lvl);
    strcpy(lvl->map, "maps/b.bsp");
    strcpy(lvl->models[1], "maps/b.bsp");
    lvl->num_models = 2;
    static const uint8_t white[3] = {255, 255, 255};
    for (int big = 0; big < 2 && bsp; big++) {
        budget_files f = {bsp, NULL, bsp_len, 0, NULL};
        uint8_t *tga = budget_tga(big ? 4096 : 64, &f.tga_len);
        f.tga = tga;
        qd_error err = {0};
        r_assets *a = r_assets_load(lvl, budget_read, &f, NULL, &err);
        CHECK(a && r_assets_q3_textures(a, budget_read, budget_list, &f, &err) == QD_OK);
        uint32_t light;
        int32_t smoke = r_q3_smoke_mat(a, 0.33f);
        CHECK_MSG(big ? smoke < 0 : smoke >= 0, "%s image: smoke %d", big ? "big" : "small",
                  (int)smoke);
        int32_t trail = r_q3_blood_trail_mat(a, 0.33f);
        CHECK_MSG(big ? trail < 0 : trail >= 0, "%s image: blood trail %d",
                  big ? "big" : "small", (int)trail);
        for (int k = 0; k < R_Q3MARK_COUNT; k++) {
            int32_t m = r_q3_mark_mat(a, k, white, 255, &light);
            CHECK_MSG(big ? m < 0 : m >= 0, "%s image: mark %d %d", big ? "big" : "small", k,
                      (int)m);
        }
        r_assets_free(a);
        free(tga);
    }
    free(lvl);
    free(bsp);
}

/* The synthetic Quake III map (one shader, textures/base_wall/concrete) with the scripts
 * `script` and big.tga a tga_size square of one colour: its assets with their Quake III
 * textures, NULL when that failed (budget_close frees what it holds either way). */
typedef struct budget_run {
    uint8_t *bsp, *tga;
    cl_level *lvl;
    budget_files f;
    r_assets *a;
} budget_run;

static r_assets *budget_open(budget_run *r, const char *script, int tga_size)
{
    memset(r, 0, sizeof *r);
    size_t bsp_len = 0;
    r->bsp = test_read_file("tests/fuzz/corpus/bsp/synthetic_ibsp46.bsp", &bsp_len);
    r->lvl = calloc(1, sizeof *r->lvl);
    if (!r->bsp || !r->lvl)
        return NULL;
    strcpy(r->lvl->map, "maps/b.bsp");
    strcpy(r->lvl->models[1], "maps/b.bsp");
    r->lvl->num_models = 2;
    r->f = (budget_files){r->bsp, NULL, bsp_len, 0, script};
    r->tga = budget_tga(tga_size, &r->f.tga_len);
    r->f.tga = r->tga;
    qd_error err = {0};
    r->a = r_assets_load(r->lvl, budget_read, &r->f, NULL, &err);
    if (r->a && r_assets_q3_textures(r->a, budget_read, budget_list, &r->f, &err) != QD_OK) {
        r_assets_free(r->a);
        r->a = NULL;
    }
    return r->a;
}

static void budget_close(budget_run *r)
{
    r_assets_free(r->a);
    free(r->tga);
    free(r->lvl);
    free(r->bsp);
}

/* A copy's name is not a file's: the map's shader naming "big.tga#a1/32" (the name the
 * smoke's 32nd-alpha copies of big.tga were looked up by) loads that file, not found, and
 * the smoke's copies of the 4096 x 4096 big.tga are still charged to the budget of texels
 * (none made: no smoke). Before the review's fix the found entry passed for the copies
 * made already: nothing charged, and 32 copies made outside the budget (1.3 GB each such
 * image), the smoke drawn from the empty entry and the images after it. */
TEST(q3tex_copy_names_are_not_file_names)
{
    static const char script[] =
        "textures/base_wall/concrete { { map big.tga#a1/32 } }\n"
        "smokePuff { { map big.tga blendFunc GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA\n"
        "alphaGen vertex } }\n";
    budget_run r;
    r_assets *a = budget_open(&r, script, 4096);
    CHECK(a);
    int32_t smoke = a ? r_q3_smoke_mat(a, 0.33f) : 0;
    budget_close(&r);
    CHECK_MSG(smoke < 0, "smoke %d: copies made outside the budget", (int)smoke);
}

/* Every effect shader given its image, each explosion six stages (its first pair and the
 * two pairs after, fx_more): each gets its material, and the materials stay within the
 * array counted for them. The explosions' third pair was not counted (a review): with all
 * of these a script wrote 8 materials past the array (the sanitizer run's heap overflow;
 * the plain build may pass over it). */
TEST(q3tex_every_effect_shader_has_its_material)
{
    static const char *const fx[] = {"grenadeExplosion", "rocketExplosion", "bfgExplosion",
                                     "plasmaExplosion",  "railExplosion",   "bulletExplosion",
                                     "bloodExplosion",   "lightningBoltNew", "teleportEffect"};
    static const char *const plain[] = {
        "powerups/quad", "powerups/battleSuit", "powerups/regen", "powerups/invisibility",
        "disconnected", "sprites/balloon3", "medal_impressive", "medal_excellent",
        "medal_gauntlet", "medal_defend", "medal_assist", "medal_capture", "sprites/foe"};
    char *script = malloc(16384);
    CHECK(script);
    size_t n = 0;
    for (size_t i = 0; script && i < sizeof fx / sizeof fx[0]; i++) {
        n += (size_t)snprintf(script + n, 16384 - n, "%s {", fx[i]);
        for (int k = 0; k < 6; k++)
            n += (size_t)snprintf(script + n, 16384 - n, " { map big.tga blendFunc add }");
        n += (size_t)snprintf(script + n, 16384 - n, " }\n");
    }
    for (size_t i = 0; script && i < sizeof plain / sizeof plain[0]; i++)
        n += (size_t)snprintf(script + n, 16384 - n, "%s { { map big.tga } }\n", plain[i]);
    if (script)
        n += (size_t)snprintf(script + n, 16384 - n, "%s%s%s", budget_script,
                              "railCore { { map big.tga blendFunc add rgbGen vertex } }\n",
                              "railDisc { { map big.tga blendFunc add rgbGen vertex } }\n");
    CHECK(n < 16384);
    budget_run r;
    r_assets *a = script ? budget_open(&r, script, 16) : NULL;
    CHECK(a);
    for (int k = 0; a && k < R_Q3FX_COUNT; k++)
        for (int more = 0; more <= 2; more++)
            CHECK_MSG(r_q3_fx_mat(a, k, more) >= 0, "explosion %d, part %d", k, more);
    CHECK(a && r_q3_quad_mat(a) >= 0 && r_q3_rail_mat(a) >= 0);
    for (int k = 0; a && k < 3; k++)
        CHECK(r_q3_shell_mat(a, k) >= 0);
    static const uint8_t white[3] = {255, 255, 255};
    uint32_t light;
    for (int k = 0; a && k < R_Q3MARK_COUNT; k++)
        CHECK_MSG(r_q3_mark_mat(a, k, white, 255, &light) >= 0, "mark %d", k);
    CHECK(a && r_q3_smoke_mat(a, 0.33f) >= 0 && r_q3_blood_trail_mat(a, 0.33f) >= 0);
    budget_close(&r);
    free(script);
}

/* ---- a model shader's every layer ---- */

typedef struct layered_files {
    const uint8_t *bsp, *md3;
    size_t bsp_len, md3_len;
    uint8_t *tga[3];
    size_t tga_len[3];
    const char *script; /* scripts/l.shader */
} layered_files;

/* the model's shader as OpenArena's kyonshi is written: an opaque first stage (white), an
 * added shine (red), the first image again blended by its alpha (green, alpha 255) */
static const char layered_script[] =
    "old/shader { cull none { map w.tga } { map r.tga blendfunc add }\n"
    "{ map g.tga blendfunc blend } }\n";

static qd_err layered_read(void *ctx, const char *name, uint8_t **data, size_t *len,
                           qd_error *err)
{
    const layered_files *f = ctx;
    static const char *const tga[3] = {"w.tga", "r.tga", "g.tga"};
    const uint8_t *src = NULL;
    size_t n = 0;
    if (!strcmp(name, "maps/b.bsp"))
        src = f->bsp, n = f->bsp_len;
    else if (!strcmp(name, "models/t.md3"))
        src = f->md3, n = f->md3_len;
    else if (!strcmp(name, "scripts/l.shader"))
        src = (const uint8_t *)f->script, n = strlen(f->script);
    for (int k = 0; k < 3; k++)
        if (!strcmp(name, tga[k]))
            src = f->tga[k], n = f->tga_len[k];
    return file_copy(src, n, name, data, len, err);
}

static int layered_list(void *ctx, const char *prefix,
                        void (*fn)(void *u, const char *name, uint64_t size), void *u)
{
    const layered_files *f = ctx;
    (void)prefix;
    fn(u, "scripts/l.shader", strlen(f->script));
    return 1;
}

/* ioq3 draws every stage of a model's shader (RB_IterateStagesGeneric); qdemo drew a
 * model's first two layers only, so a third that covers the second (OpenArena's kyonshi:
 * its body blended over a gold shine) was lost and the shine stayed. A one-triangle MD3
 * (tiny_md3: a unit across) of the script above, seen from 3.3 units: every pixel it
 * covers fully is the third stage's green, by hand (alpha 255: the blend keeps none of
 * what is below; no rgbGen: white, unlit), where the first two gave white plus red. */
/* The pixels a one-triangle MD3 (tiny_md3: a unit across) of shader "old/shader" in
 * script covers, seen from 3.3 units, w.tga, r.tga and g.tga the colours (blue, green,
 * red, alpha) bgra: how many, and how many of them are within 1 of rgb (rast_rgb's) in
 * each channel. */
static void layered_pixels(const char *script, const uint8_t bgra[3][4], uint32_t rgb,
                           int *changed, int *matching)
{
    size_t bsp_len;
    uint8_t *bsp = test_read_file("tests/fuzz/corpus/bsp/synthetic_ibsp46.bsp", &bsp_len);
    CHECK(bsp);
    layered_files f = {bsp, NULL, bsp_len, 0, {NULL}, {0}, script};
    uint8_t *md3 = tiny_md3(0, 0, &f.md3_len);
    f.md3 = md3;
    for (int k = 0; k < 3; k++)
        f.tga[k] = colour_tga(8, bgra[k], &f.tga_len[k]);
    cl_state *cl = calloc(1, sizeof *cl);
    cl_reset(cl);
    cl->level.game = CL_GAME_Q3;
    strcpy(cl->level.map, "maps/b.bsp");
    cl_set_model(cl, 1, "maps/b.bsp");
    cl_set_model(cl, 2, "models/t.md3");
    qd_error err = {0};
    r_assets *a = bsp ? r_assets_load(&cl->level, layered_read, &f, NULL, &err) : NULL;
    CHECK(a && r_assets_q3_textures(a, layered_read, layered_list, &f, &err) == QD_OK);
    r_camera cam = {.origin = {-3, 0.33f, 0.33f}, .fov = 90};
    r_options o = {.mode = R_MODE_TEXTURED, .no_dlights = 1};
    rast_fb *plain = rast_fb_new(W, H), *with = rast_fb_new(W, H);
    if (a) {
        r_render(a, cl, 1.0, &cam, &o, plain);
        cl_entstate st;
        memset(&st, 0, sizeof st);
        st.model = 2;
        cl_frame_begin(cl, 1.0);
        CHECK(cl_entity_update(cl, 1, &st));
        cl_frame_end(cl, CL_DROP_ALL);
        r_render(a, cl, 1.0, &cam, &o, with);
    }
    *changed = *matching = 0;
    for (int i = 0; a && i < W * H; i++) {
        if (with->color[i] == plain->color[i])
            continue;
        ++*changed;
        int near = 1;
        for (int sh = 0; sh < 24; sh += 8)
            near &= abs((int)(with->color[i] >> sh & 255) - (int)(rgb >> sh & 255)) <= 1;
        *matching += near;
    }
    rast_fb_free(plain);
    rast_fb_free(with);
    r_assets_free(a);
    free(cl);
    for (int k = 0; k < 3; k++)
        free(f.tga[k]);
    free(md3);
    free(bsp);
}

TEST(q3tex_model_shader_every_layer)
{
    static const uint8_t colours[3][4] = {{255, 255, 255, 255}, {0, 0, 255, 255}, {0, 255, 0, 255}};
    int changed, green;
    layered_pixels(layered_script, colours, rast_rgb(0, 255, 0), &changed, &green);
    CHECK_MSG(changed > 500, "%d pixels of the triangle", changed);
    CHECK_MSG(green * 10 > changed * 9, "%d of %d green", green, changed);
}

/* blendFunc GL_SRC_ALPHA GL_ONE adds the texel times its alpha (OpenArena's health spheres'
 * glow at alpha 0.3): over an opaque black first stage, red at alpha 128 adds 128 of red,
 * by hand (qdemo drew it as a plain add of 255, or, as a second stage, not at all). */
TEST(q3tex_add_of_src_alpha)
{
    static const char script[] = "old/shader { cull none { map w.tga }\n"
                                 "{ map r.tga blendFunc GL_SRC_ALPHA GL_ONE } }\n";
    static const uint8_t colours[3][4] = {{0, 0, 0, 255}, {0, 0, 255, 128}, {0, 0, 0, 255}};
    int changed, red;
    layered_pixels(script, colours, rast_rgb(128, 0, 0), &changed, &red);
    CHECK_MSG(changed > 500, "%d pixels of the triangle", changed);
    CHECK_MSG(red * 10 > changed * 9, "%d of %d half red", red, changed);
    mdl_shader_set set = {0};
    CHECK(parse_all(&set, script, sizeof script - 1));
    const mdl_shader *sh = mdl_shader_find(&set, "old/shader");
    CHECK(sh && sh->stage2.blend == MDL_BLEND_ADD && sh->stage2.blend_exact &&
          sh->stage2.blend_tex == MDL_BLENDTEX_PREMUL);
    mdl_shader_set_clear(&set);
}

/* ---- the cloud layer's level of detail ---- */

/* the synthetic map's one shader made a sky whose only stage is the cloud image, repeated 8
 * times as often (and for the zenith test below, as it is) */
static const char cloud_script[] =
    "textures/base_wall/concrete\n{\n\tsurfaceparm sky\n\t{\n\t\tmap big.tga\n"
    "\t\ttcMod scale 8 8\n\t}\n}\n";
static const char zenith_script[] =
    "textures/base_wall/concrete\n{\n\tsurfaceparm sky\n\tskyParms - 512 -\n"
    "\t{\n\t\tmap big.tga\n\t}\n}\n";

/* An uncompressed 32-bit TGA s x s whose texel (x, y) (y from the top) is texel(x, y). */
static uint8_t *sky_tga(int s, uint32_t (*texel)(int x, int y), size_t *len)
{
    *len = 18 + (size_t)s * s * 4;
    uint8_t *tga = calloc(1, *len);
    tga[2] = 2; /* uncompressed true colour */
    tga[12] = s & 255, tga[13] = s >> 8, tga[14] = s & 255, tga[15] = s >> 8;
    tga[16] = 32, tga[17] = 8 | 0x20; /* alpha bits, rows from the top */
    for (int y = 0; y < s; y++)
        for (int x = 0; x < s; x++) {
            uint8_t *p = tga + 18 + ((size_t)y * s + x) * 4;
            uint32_t c = texel(x, y); /* 0xAARRGGBB */
            p[0] = c & 255, p[1] = c >> 8 & 255, p[2] = c >> 16 & 255, p[3] = c >> 24;
        }
    return tga;
}

static uint32_t checker(int x, int y) { return (x + y) & 1 ? 0xffffffffu : 0xff000000u; }

/* red x, green y */
static uint32_t where(int x, int y) { return 0xff000000u | (uint32_t)x << 16 | (uint32_t)y << 8; }

/* The synthetic map with script's sky over image, drawn into fb every pixel of which holds
 * the sky's mark, from camera cam at time 0. 0 when the map is missing. */
static int sky_frame(const char *script, uint8_t *tga, size_t tga_len, const r_camera *cam,
                     rast_fb *fb)
{
    size_t bsp_len;
    uint8_t *bsp = test_read_file("tests/fuzz/corpus/bsp/synthetic_ibsp46.bsp", &bsp_len);
    if (!bsp)
        return 0;
    cl_level *lvl = calloc(1, sizeof *lvl);
    strcpy(lvl->map, "maps/b.bsp");
    lvl->num_models = 1;
    budget_files f = {bsp, tga, bsp_len, tga_len, script};
    qd_error err = {0};
    r_assets *a = r_assets_load(lvl, budget_read, &f, NULL, &err);
    int ok = a && r_assets_q3_textures(a, budget_read, budget_list, &f, &err) == QD_OK;
    for (int i = 0; i < fb->w * fb->h; i++)
        fb->color[i] = R_SKY_MARK;
    if (ok) {
        r_view v;
        r_view_setup(&v, cam, fb);
        v.sky_marked = 1;
        r_q3_sky(&v, a);
    }
    r_assets_free(a);
    free(lvl);
    free(bsp);
    return ok ? 1 : -1;
}

/* A mip level's row against the box filter's definition, worked here byte by byte: each
 * channel of texel x is (a + b + c + d + 2) / 4 of texels 2x and 2x + 1 of both rows above
 * (GL's GL_LINEAR_MIPMAP box, rounded). Rows of every width the maps use, from 1 (its one
 * column twice) to 512, the texels pseudo-random in all four channels (so a texel or a
 * channel in the wrong lane, or a sum rounded otherwise, shows), the rows apart and the
 * same row twice (a level one texel high). */
TEST(q3tex_mip_rows_by_the_box_filter)
{
    enum { ROW = 512 };
    static uint32_t r0[ROW], r1[ROW], out[ROW / 2 + 1];
    uint32_t seed = 12345;
    for (int i = 0; i < ROW; i++) {
        seed = seed * 1664525u + 1013904223u;
        r0[i] = seed;
        seed = seed * 1664525u + 1013904223u;
        r1[i] = seed;
    }
    r0[0] = 0xffffffffu, r1[0] = 0xffffffffu, r0[1] = 0xfffefdfcu; /* (the largest sums) */
    int bad = 0;
    for (int uw = 1; uw <= ROW; uw *= 2)
        for (int same = 0; same < 2; same++) {
            const uint32_t *b = same ? r0 : r1;
            int lw = uw > 1 ? uw / 2 : 1;
            out[lw] = 0x5a5a5a5au; /* (nothing past the row is written) */
            r_q3_level_row(out, lw, r0, b, uw);
            bad += out[lw] != 0x5a5a5a5au;
            for (int x = 0; x < lw; x++) {
                int x0 = 2 * x, x1 = uw > 1 ? 2 * x + 1 : 0;
                uint32_t want = 0;
                for (int c = 0; c < 4; c++) {
                    unsigned sum = (r0[x0] >> 8 * c & 255) + (r0[x1] >> 8 * c & 255) +
                                   (b[x0] >> 8 * c & 255) + (b[x1] >> 8 * c & 255);
                    want |= (uint32_t)((sum + 2) / 4) << 8 * c;
                }
                if (out[x] != want && bad++ < 4)
                    fprintf(stderr, "    width %d rows %s texel %d: %08x, box %08x\n", uw,
                            same ? "same" : "apart", x, out[x], want);
            }
        }
    CHECK_EQ(bad, 0);
}

static uint32_t ramps(int x, int y)
{
    return 0xff000000u | (uint32_t)(40 * x) << 16 | (uint32_t)(30 * y) << 8 | (uint32_t)(3 * (x + y));
}

/* An image's mean colour (its flat look, the flat mode's face colour) from every texel: a
 * 7 x 7 TGA of red 40x, green 30y, blue 3(x + y), so the means are 40 x 3, 30 x 3 and 3 x 6
 * (x and y average 3): 120, 90, 18. 49 texels: twelve fours and one more. The texels as
 * written, red lowest. */
TEST(q3tex_image_mean_colour)
{
    size_t len;
    uint8_t *tga = sky_tga(7, ramps, &len);
    mdl_image *im = NULL;
    qd_error err = {0};
    CHECK_MSG(mdl_image_load(tga, len, "ramps.tga", &im, &err) == QD_OK, "%s", err.msg);
    if (im) {
        CHECK_EQ(im->color, MDL_RGB(120, 90, 18));
        CHECK_EQ(im->pixels[6 * 7 + 5], 0xff000000u | 33u << 16 | 180u << 8 | 200u);
    }
    mdl_image_free(im);
    free(tga);
}

/* GL mipmaps a sky's cloud image like any stage's, so a pixel that spans several of its
 * texels shows their average, not one of them. A 256 x 256 checkerboard of single black
 * and white texels as the only cloud layer, repeated 8 times as often (tcMod scale 8 8),
 * seen level from the origin at 90 degrees in a 128 x 128 frame. ioq3's layer coordinates
 * (R_InitSkyTexCoords: acos of the point where the view ray meets a sphere of radius 4096 +
 * 512 centred 4096 under the eye), worked for every pixel of this frame from that formula
 * (a short script, not qdemo), change by at least 0.42 / 256 of a repeat between a pixel
 * and its neighbour to the right or below: times 8, at least 3.3 texels a pixel, well past
 * the rasteriser's 1.25, so every pixel reads level 1 or coarser, where each texel is the
 * 2x2 box of two black and two white: (2 * 255 + 2) / 4 = 128 in every colour channel.
 * Level 0 would give only black and white. */
TEST(q3tex_sky_clouds_mipmapped)
{
    enum { N = 128 };
    size_t tga_len;
    uint8_t *tga = sky_tga(256, checker, &tga_len);
    rast_fb *fb = rast_fb_new(N, N);
    r_camera cam = {.fov = 90};
    int ok = sky_frame(cloud_script, tga, tga_len, &cam, fb);
    CHECK(ok);
    int grey = 0;
    for (int i = 0; ok > 0 && i < N * N; i++)
        grey += fb->color[i] == 0xff808080u;
    CHECK_MSG(grey == N * N, "%d of %d pixels the level's grey (pixel 0: %08x)", grey, N * N,
              fb->color[0]);
    rast_fb_free(fb);
    free(tga);
}

/* Straight up, the view ray meets ioq3's cloud sphere right overhead, where the point seen
 * from the sphere's centre is (0, 0, 1): the layer's coordinates are acos(0) = pi / 2 each
 * way (R_InitSkyTexCoords), 0.5708 of a repeat past a whole one, texel 0.5708 * 256 = 146.1
 * of a 256 x 256 image. The four pixels around the centre of a 128 x 128 frame (90 degrees:
 * half a pixel is 0.0059 units of the view plane off the axis) see it 0.0059 * 512 / 4608 =
 * 0.00065 radians away, 0.17 of a texel: texels 145 to 147 across and down. The image's
 * texels hold their own column in red and row in green. Before, qdemo put the layer's
 * texel 0 there (Quake's sky formula). */
TEST(q3tex_sky_zenith_by_hand)
{
    enum { N = 128 };
    size_t tga_len;
    uint8_t *tga = sky_tga(256, where, &tga_len);
    rast_fb *fb = rast_fb_new(N, N);
    r_camera cam = {.fov = 90, .angles = {-90, 0, 0}}; /* pitch -90: looking up */
    int ok = sky_frame(zenith_script, tga, tga_len, &cam, fb);
    CHECK(ok);
    for (int y = N / 2 - 1; ok > 0 && y <= N / 2; y++)
        for (int x = N / 2 - 1; x <= N / 2; x++) {
            uint32_t c = fb->color[y * N + x];
            int r = c & 255, g = c >> 8 & 255; /* (rast_rgb: red lowest) */
            CHECK_MSG(r >= 145 && r <= 147 && g >= 145 && g <= 147,
                      "pixel %d,%d: texel %d,%d (%08x)", x, y, r, g, c);
        }
    rast_fb_free(fb);
    free(tga);
}

/* Quake III's items spin and bob, and its shaders move, on cg.time, the server's clock
 * (cg_ents.c CG_Item: (time & 2047) * 360 / 2048 degrees; tess.shaderTime): the first
 * snapshot of flyby_oa_dm3.dm_70 carries serverTime 12600 (`qdemo dump`, its first
 * svc_snapshot) and is the timeline's start, so 4.9 s later the items' clock reads 17500
 * ms, a spin of (17500 - 8 * 2048) * 360 / 2048 = 196.2 degrees. Before, they ran on the
 * demo's own clock: 4900 ms, 141.3 degrees. */
TEST(q3tex_items_on_the_servers_clock)
{
    char demo[512];
    if (!test_realfile(demo, sizeof demo, "dm_70/openarena-081-misc_pak6-misc_flyby_oa_dm3.dm_70"))
        SKIP("real data missing");
    qd_error err = {0};
    demo_t *d = demo_open(demo, &err);
    CHECK(d);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    CHECK(tl);
    if (!tl)
        return;
    double t = tl_start(tl) + 4.9;
    const cl_state *cl = tl_state_at(tl, t, &err);
    CHECK(cl);
    double ms = cl ? r_q3_item_ms(cl, t) : 0;
    CHECK_MSG(fabs(ms - 17500) < 0.5, "the items' clock at 4.9 s: %.1f ms", ms);
    tl_close(tl);
}

/* cg_ents.c CG_Item turns a health item at cg.autoAnglesFast ((cg.time & 1023) x 360 / 1024)
 * and any other at cg.autoAngles ((cg.time & 2047) x 360 / 2048). By hand at 17500 ms:
 * 17500 - 17 x 1024 = 92 ms, 32.34 degrees for the health; 17500 - 8 x 2048 = 1116 ms,
 * 196.17 for the armour. */
TEST(q3tex_health_items_turn_twice_as_fast)
{
    cl_entstate health, armour;
    memset(&health, 0, sizeof health);
    memset(&armour, 0, sizeof armour);
    health.model2 = CL_Q3_ITEM_SPHERES + 1; /* (a medium health's sphere) */
    CHECK_MSG(fabsf(r_q3_item_yaw(&health, 17500) - 32.34375f) < 1e-3f, "%g",
              r_q3_item_yaw(&health, 17500));
    CHECK_MSG(fabsf(r_q3_item_yaw(&armour, 17500) - 196.171875f) < 1e-3f, "%g",
              r_q3_item_yaw(&armour, 17500));
}

/* A portal's camera (tr_main.c R_GetPortalOrientations, R_MirrorPoint/Vector with cg_ents.c
 * CG_Portal's axes), by hand for oa_dm3's first portal: its surface the plane x = 1180
 * facing +x (normal (1, 0, 0): axes (1,0,0), its perpendicular (0,1,0), their cross
 * (0,0,1)), its entity at (1208, -904, 8) (28 units off the plane: the surface's origin
 * (1180, -904, 8)); its camera at (1328, 608, 104) looking along angle 270, (0, -1, 0),
 * roll 180 (the map's misc_portal_camera), swinging (powerups 1), so the camera's axes are
 * (0,1,0) and (1,0,0) (the perpendicular of (0,-1,0) is (1,0,0), both negated), then the
 * second turned about the first by 180 + 4 sin(0.003 ms) degrees: at ms 0, (-1,0,0), and the
 * third their cross (0,0,1). The eye at (1330, -904, 10) looking along -x is (150, 0, 2) in
 * the surface's axes: at the camera 150 (0,1,0) + 2 (0,0,1) = (1328, 758, 106), looking
 * along -(0,1,0): yaw -90, no pitch, no roll. At ms = 523.6 (sin = 1) the turn is 184
 * degrees: the third axis (sin 184, 0, -cos 184) = (0.0698, 0, 0.9976), so the eye is 2 x
 * that higher and up leans 4 degrees: roll atan2(up . right, up . up0) = -4. */
TEST(q3tex_portal_camera_by_hand)
{
    const float N[3] = {1, 0, 0}, ent[3] = {1208, -904, 8};
    cl_portal p;
    memset(&p, 0, sizeof p);
    p.entity = 98;
    p.camera[0] = 1328, p.camera[1] = 608, p.camera[2] = 104;
    p.dir[1] = -1;
    p.roll = 180;
    p.swing = 1;
    r_camera eye = {.origin = {1330, -904, 10}, .angles = {0, 180, 0}, .fov = 90}, out;
    CHECK(r_portal_camera(N, 1180, &p, ent, 0, &eye, 0, &out));
    CHECK(fabsf(out.origin[0] - 1328) < 0.01f && fabsf(out.origin[1] - 758) < 0.01f &&
          fabsf(out.origin[2] - 106) < 0.01f);
    CHECK(fabsf(out.angles[0]) < 0.01f && fabsf(out.angles[1] + 90) < 0.01f &&
          fabsf(out.angles[2]) < 0.01f);
    CHECK(out.fov == 90);
    CHECK(r_portal_camera(N, 1180, &p, ent, 523.599, &eye, 0, &out));
    CHECK(fabsf(out.origin[0] - (1328 + 2 * 0.069756f)) < 0.01f &&
          fabsf(out.origin[1] - 758) < 0.01f &&
          fabsf(out.origin[2] - (104 + 2 * 0.997564f)) < 0.01f);
    CHECK(fabsf(out.angles[1] + 90) < 0.01f && fabsf(out.angles[2] + 4) < 0.01f);
    /* not a direction: none */
    p.dir[1] = 0;
    CHECK(!r_portal_camera(N, 1180, &p, ent, 0, &eye, 0, &out));
    /* a mirror, the plane x = 100 facing +x (its entity's camera its own origin): the eye at
     * (150, 20, 30) looking along -x is reflected to (50, 20, 30) looking along +x (yaw 0),
     * up still up; the right-handed view's picture is the mirror's flipped left to right */
    const float M[3] = {1, 0, 0}, ment[3] = {110, 0, 0};
    r_camera me = {.origin = {150, 20, 30}, .angles = {0, 180, 0}, .fov = 90};
    CHECK(r_portal_camera(M, 100, &p, ment, 0, &me, 1, &out));
    CHECK(fabsf(out.origin[0] - 50) < 0.01f && fabsf(out.origin[1] - 20) < 0.01f &&
          fabsf(out.origin[2] - 30) < 0.01f);
    CHECK(fabsf(out.angles[0]) < 0.01f && fabsf(out.angles[1]) < 0.01f &&
          fabsf(out.angles[2]) < 0.01f);
}

/* A portal's pixels in the w x h frames of s's camera at t: the frame with cl's portals
 * and without them (none), told apart by the faces of shader (a flat frame of face
 * numbers): how many show it (*on), how many of those differ between the two (*changed),
 * how many others do (*other), how many unlike its first pixel (*varied); 1 when two
 * threads draw the same bytes as one. */
typedef struct portal_px {
    int on, changed, other, varied, same_threads;
} portal_px;

static portal_px portal_pixels(oa_scene *s, const cl_state *cl, const cl_state *none, double t,
                               int w, int h, const char *shader)
{
    portal_px r = {0, 0, 0, 0, 0};
    const mdl_bsp *b = r_assets_map(s->a);
    r_bsp *rb = &s->a->world;
    rast_fb *with = rast_fb_new(w, h), *without = rast_fb_new(w, h), *two = rast_fb_new(w, h);
    rast_fb *idfb = rast_fb_new(w, h);
    uint32_t *saved = malloc(b->num_faces * sizeof *saved);
    r_options o = {.mode = R_MODE_TEXTURED, .threads = 1};
    r_render(s->a, cl, t, &s->cam, &o, with);
    r_render(s->a, none, t, &s->cam, &o, without);
    o.threads = 2;
    r_render(s->a, cl, t, &s->cam, &o, two);
    memcpy(saved, rb->flat, b->num_faces * sizeof *saved);
    for (uint32_t i = 0; i < b->num_faces; i++)
        rb->flat[i] = (i & 0xffffffu) | 0x01000000u;
    r_options fo = {.mode = R_MODE_FLAT};
    r_render(s->a, none, t, &s->cam, &fo, idfb);
    memcpy(rb->flat, saved, b->num_faces * sizeof *saved);
    uint32_t first = 0;
    for (int i = 0; i < w * h; i++) {
        uint32_t id = idfb->color[i];
        int on = id >> 24 == 1 && (id & 0xffffffu) < b->num_faces &&
                 !strcmp(b->textures[b->faces[id & 0xffffffu].texture].name, shader);
        int diff = with->color[i] != without->color[i];
        if (on && !r.on)
            first = with->color[i];
        r.varied += on && with->color[i] != first;
        r.on += on;
        r.changed += on && diff;
        r.other += !on && diff;
    }
    r.same_threads = !memcmp(with->color, two->color, (size_t)w * h * sizeof *with->color);
    free(saved);
    rast_fb_free(with);
    rast_fb_free(without);
    rast_fb_free(two);
    rast_fb_free(idfb);
    return r;
}

/* Quake III's portal view on real data. Debian's flyby_oa_dm3.dm_70 passes oa_dm3's second
 * portal about 37 s in: the snapshots then hold its misc_portal_surface (ET_PORTAL), whose
 * camera the map names (its "target t3": the misc_portal_camera at (184, -360, 80), angle 45,
 * roll 90, no spawnflags). Decoded as g_misc.c locateCamera and cg_ents.c CG_Portal send
 * it: the camera at origin2, the direction the byte of (cos 45, sin 45, 0) (DirToByte: the
 * first of the 162 of largest dot), roll 90 (clientNum 90 / 360 x 256 = 64, back to 64 / 256
 * x 360), swinging (powerups 1 without spawnflag 4), speed 0 (frame: no rotate flags).
 * Drawn: the portal's pixels (its faces' shader textures/acc_dm3/fx_portal) show the view
 * from that camera, so most of them differ from the same frame drawn without the portal
 * (the state's portals emptied: the stages then blend over what lies behind), and every
 * other pixel is the same byte for byte; two threads draw the same bytes as one. */
TEST(q3tex_portal_view_on_flyby)
{
    FLYBY_AT(37.1);
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    cl_state *none = malloc(sizeof *none);
    const cl_portal *p = NULL;
    for (int i = 0; i < CL_MAX_PORTALS; i++)
        if (cl->portals[i].entity > 0 && cl->portals[i].camera[0] == 184.0f &&
            cl->portals[i].camera[1] == -360.0f && cl->portals[i].camera[2] == 80.0f)
            p = &cl->portals[i];
    CHECK(p != NULL);
    if (p) {
        const float c45 = (float)cos(M_PI / 4), want[3] = {c45, c45, 0};
        int best = 0;
        float most = -2;
        for (int k = 0; k < QD_NUM_DIRS; k++) {
            const float *bd = qd_bytedirs[k];
            float dot = want[0] * bd[0] + want[1] * bd[1] + want[2] * bd[2];
            if (dot > most) {
                most = dot;
                best = k;
            }
        }
        CHECK(!memcmp(p->dir, qd_bytedirs[best], sizeof p->dir));
        CHECK(p->roll == 90.0f && p->swing == 1 && p->speed == 0);
    }
    memcpy(none, cl, sizeof *none);
    memset(none->portals, 0, sizeof none->portals);
    none->num_portals = 0;
    s.cam = cam;
    /* (a wide frame, as the demo was watched: at 4:3 the portal is just off the right edge) */
    portal_px px = portal_pixels(&s, cl, none, t, 426, 240, "textures/acc_dm3/fx_portal");
    CHECK_MSG(px.on > 426 * 240 / 50, "%d portal pixels", px.on);
    CHECK_MSG(px.changed * 10 > px.on * 9, "%d of %d portal pixels changed", px.changed, px.on);
    CHECK_MSG(px.other == 0, "%d other pixels changed", px.other);
    CHECK(px.same_threads);
    free(cl);
    free(none);
    oa_close(&s);
}

/* OpenArena's flags (ctf.shader, models/flags/b_flag as written there) wave their cloth by
 * two deformVertexes waves, each moving the vertex along its normal from where the one
 * before left it (ioq3 tr_shade_calc.c RB_DeformTessGeometry, RB_CalcDeformVertexes: the
 * wave's phase plus (x + y + z) / div), and draw the emblem over the cloth's environment
 * map where its alpha passes GE128 (a stage without a blendFunc: it covers there). By hand
 * for a vertex at (10, 20, 30), normal (0, 1, 0), at 0.3 s: the first wave 2 + 8 sin(2 pi
 * (60 / 80 + 0.3 x 3)), the second 2 x square(0.5 + (60 + the first) / 20 + 0.3 x 0.2). */
TEST(q3tex_flag_cloth_waves_twice)
{
    static const char text[] =
        "models/flags/b_flag\n{\n\tcull disable\n\tdeformVertexes wave 80 sin 2 8 0 3 \n"
        "\tdeformVertexes wave 20 square 0 2 0.5 0.2 \n"
        "\t{\n\t\tmap textures/sfx/proto_zzztblu3.tga\n\t\trgbGen identity\n"
        "\t\ttcMod turb 1 1 0.5 0.3\n\t\ttcGen environment \n\t}\n"
        "\t{\n\t\tmap models/flags/b_flag.tga\n\t\trgbGen lightingDiffuse\n"
        "\t\talphaFunc GE128\n\t}\n}\n";
    mdl_shader_set set = {0};
    const mdl_shader *sh, *none;
    CHECK(parse_two(&set, text, sizeof text - 1, "models/flags/b_flag", &sh,
                    "models/flags/b_flag.tga", &none) &&
          none == sh); /* (both names: the extension stripped) */
    CHECK(sh && sh->deform.func == MDL_WAVE_SIN && sh->deform_div == 80 &&
          sh->deform.amp == 8 && sh->deform.freq == 3);
    CHECK(sh && sh->deform2.func == MDL_WAVE_SQUARE && sh->deform2_div == 20 &&
          sh->deform2.phase == 0.5f && sh->deform2.freq == 0.2f);
    CHECK(sh && !strcmp(sh->stage2.image, "models/flags/b_flag.tga") &&
          sh->stage2.alpha_func == MDL_ALPHA_GE128);
    mdl_shader_set_clear(&set);

    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    const r_model *rm = &s.a->models[OA_BLUE_FLAG];
    int32_t cloth = -1;
    for (uint32_t k = 0; rm->kind == R_KIND_MD3 && k < rm->md3->num_surfaces; k++)
        if (rm->mats[k] >= 0 && r_q3_mat_deforms(s.a, rm->mats[k]))
            cloth = rm->mats[k];
    CHECK_MSG(cloth >= 0, "no waving surface in models/flags/b_flag.md3");
    const float p[3] = {10, 20, 30}, n[3] = {0, 1, 0};
    double w1 = 2 + 8 * sin(2 * M_PI * (60.0 / 80 + 0.3 * 3));
    double x2 = 0.5 + (60 + w1) / 20 + 0.3 * 0.2;
    double w2 = 2 * (x2 - floor(x2) < 0.5 ? 1 : -1);
    float d = r_q3_mat_deform(s.a, cloth, p, n, 0.3);
    CHECK_MSG(fabs(d - (w1 + w2)) < 1e-3, "moved %g, want %g", (double)d, w1 + w2);
    oa_close(&s);
}

/* Fog volumes (issue 11 part 4): OpenArena's water shader (liquid_water.shader's
 * textures/liquids2/clear_ripple1_q3dm1light, as written there) gives its fogParms colour
 * and depth; oa_bases3's one fog (its fogs lump: that shader, brush side 5 of its brush, the
 * plane z = -160 facing up: read from the file's brush and plane lumps for this test) is
 * loaded with that plane, and its surfaces' triangles (the pool's floor and walls) take it:
 * each touches the volume, a corner at or under its plane. */
TEST(q3tex_fog_volume_loaded)
{
    static const char text[] =
        "textures/liquids2/clear_ripple1_q3dm1light\n{\n"
        "\tqer_editorimage textures/liquids/pool3d_5e.jpg\n\tsurfaceparm trans\n"
        "\tsurfaceparm nonsolid\n\tsurfaceparm water\n\tcull none\n"
        "\tq3map_surfacelight 100\n\tfogparms ( 0.215686 0.278431 0.333333 ) 1024\n"
        "\tdeformvertexes wave 256 sin .5 .5 .5 .5\n"
        "\t{ \n\t\tmap textures/liquids/pool3d_5e.jpg\n\t\tblendFunc gl_dst_color gl_one\n\t}\n}\n"
        "nofog { { map a.tga } }\n";
    mdl_shader_set set = {0};
    CHECK(parse_all(&set, text, sizeof text - 1));
    const mdl_shader *sh = mdl_shader_find(&set, "textures/liquids2/clear_ripple1_q3dm1light");
    CHECK(sh && (sh->flags & MDL_SHADER_FOG) && sh->fog_depth == 1024.0f &&
          sh->fog_color[0] == 0.215686f && sh->fog_color[1] == 0.278431f &&
          sh->fog_color[2] == 0.333333f);
    CHECK(sh && sh->deform.func == MDL_WAVE_SIN); /* (the line after it still read) */
    /* GL_DST_COLOR GL_ONE: old + old x texel, exactly (the rasteriser's add of a multiply) */
    CHECK(sh && sh->blend == MDL_BLEND_MODADD && sh->stage.blend_exact);
    sh = mdl_shader_find(&set, "nofog");
    CHECK(sh && !(sh->flags & MDL_SHADER_FOG));
    mdl_shader_set_clear(&set);

    OA_SCENE(s, "maps/oa_bases3.bsp", 0);
    const mdl_bsp *b = r_assets_map(s.a);
    CHECK_EQ(b->num_fogs, 1);
    if (b->num_fogs == 1) {
        const mdl_fog *f = &b->fogs[0];
        CHECK(!strcmp(f->shader, "textures/liquids2/clear_ripple1_q3dm1light"));
        CHECK(f->has_surface && f->normal[0] == 0 && f->normal[1] == 0 && f->normal[2] == 1 &&
              f->dist == -160.0f);
    }
    uint32_t fogged = 0, touching = 0;
    for (uint32_t i = 0; i < b->num_faces; i++) {
        if (b->face_q3[i].fog != 0)
            continue;
        fogged++;
        const float(*p)[3] = (const float(*)[3])b->verts[b->faces[i].first_vert];
        touching += p[0][2] <= -159.0f || p[1][2] <= -159.0f || p[2][2] <= -159.0f;
    }
    CHECK_MSG(fogged > 50, "%u triangles in the fog", fogged);
    CHECK_MSG(touching == fogged, "%u of %u touch the volume", touching, fogged);
    /* the fog's box from its brush's axial sides, read from the file for this test: x 944 ..
     * 2352, y -1504 .. 608, z -576 .. -160; a body (a sphere about its origin) is in it when
     * the sphere reaches into the box (R_ComputeFogNum) */
    if (b->num_fogs == 1) {
        const mdl_fog *f = &b->fogs[0];
        CHECK(f->has_bounds && f->mins[0] == 944 && f->maxs[0] == 2352 && f->mins[1] == -1504 &&
              f->maxs[1] == 608 && f->mins[2] == -576 && f->maxs[2] == -160);
    }
    const float deep[3] = {1500, -500, -300}, above[3] = {1500, -500, 0},
                surface[3] = {1500, -500, -140}, aside[3] = {900, -500, -300};
    CHECK_EQ(r_q3_fog_at(s.a, deep, 30), 1);
    CHECK_EQ(r_q3_fog_at(s.a, above, 30), 0);
    CHECK_EQ(r_q3_fog_at(s.a, surface, 30), 1); /* (its sphere reaches -170) */
    CHECK_EQ(r_q3_fog_at(s.a, aside, 30), 0);   /* (to 930: short of 944) */
    oa_close(&s);
}

/* A fog volume's side with stages is drawn: oa_dm1's lava (textures/liquids/lavahell,
 * "surfaceparm fog", its BSP contents 0x20000068 holding CONTENTS_FOG 64, read from the
 * file's shader lump for this test) was never drawn; its triangles (none degenerate) are
 * drawable once the shaders are read, and its fog (the map's one) is loaded. */
TEST(q3tex_lava_with_fog_contents_drawn)
{
    OA_SCENE(s, "maps/oa_dm1.bsp", 0);
    const mdl_bsp *b = r_assets_map(s.a);
    uint32_t lava = 0, drawable = 0;
    for (uint32_t i = 0; i < b->num_faces; i++) {
        int32_t t = b->faces[i].texture;
        if (t < 0 || strcmp(b->textures[t].name, "textures/liquids/lavahell") != 0)
            continue;
        lava++;
        drawable += !(b->faces[i].flags & MDL_SURF_NODRAW);
    }
    CHECK_MSG(lava > 0 && drawable == lava, "%u of %u lava triangles drawable", drawable, lava);
    CHECK_EQ(b->num_fogs, 1);
    CHECK(b->num_fogs == 1 && !strcmp(b->fogs[0].shader, "textures/liquids/lavahell"));
    /* the fog image (tr_image.c R_CreateFogImage, R_FogFactor with the fog table's square
     * roots), texel (x, y) at s = (x + 0.5) / 256, t = (y + 0.5) / 32, alpha 255 d truncated,
     * by hand: (0, 31): s - 1/512 = 0, d 0; (255, 31): s past 1/8, d 1; (16, 31): s - 1/512
     * = 1/16, x 8 = 0.5, entry 127, d sqrt(127 / 255) = 0.7057, 179; (16, 16): t 0.515625
     * scales s by (t - 1/32) / (30/32) = 0.516667, x 8 = 0.258333, entry 65, sqrt(65 / 255) =
     * 0.50488, 128; (0, 0): t under 1/32, 0. White everywhere. */
    const uint32_t *fog = r_q3_fog_image(s.a);
    CHECK(fog != NULL);
    if (fog) {
        CHECK_EQ(fog[31 * 256 + 0] >> 24, 0);
        CHECK_EQ(fog[31 * 256 + 255] >> 24, 255);
        CHECK_EQ(fog[31 * 256 + 16] >> 24, 179);
        CHECK_EQ(fog[16 * 256 + 16] >> 24, 128);
        CHECK_EQ(fog[0 * 256 + 128] >> 24, 0);
        CHECK_EQ(fog[16 * 256 + 16] & 0xffffffu, 0xffffffu);
    }
    oa_close(&s);
}

/* A mirror (a portal entity whose camera is its own origin: oa_dm1's misc_portal_surface at
 * (272, 1600, -80), no target, by its textures/common/portal panel at x = 268, facing +x):
 * seen from (420, 1600, -74) along -x, the panel shows the world reflected in its plane
 * (r_portal_camera's mirror, by hand in q3tex_portal_camera_by_hand; drawn from the
 * right-handed view and flipped, what lies behind the plane cut away): its pixels change
 * from the frame without the portal entity, no other pixel does, the reflection is not all
 * one colour, and two threads draw the same bytes. */
TEST(q3tex_mirror_on_oa_dm1)
{
    OA_SCENE(s, "maps/oa_dm1.bsp", 0);
    cl_state *cl = s.cl, *none = malloc(sizeof *none);
    cl->level.game = CL_GAME_Q3;
    cl_frame_begin(cl, 1.0);
    cl_entstate e;
    memset(&e, 0, sizeof e);
    e.origin[0] = 272, e.origin[1] = 1600, e.origin[2] = -80;
    cl_entity_update(cl, 50, &e);
    cl_frame_end(cl, 0);
    memcpy(none, cl, sizeof *none);
    cl_portal p;
    memset(&p, 0, sizeof p);
    p.entity = 50;
    memcpy(p.camera, e.origin, sizeof p.camera);
    CHECK(cl_portal_set(cl, &p));
    s.cam = (r_camera){.origin = {420, 1600, -74}, .angles = {0, 180, 0}, .fov = 90};
    portal_px px = portal_pixels(&s, cl, none, 1.0, 320, 240, "textures/common/portal");
    CHECK_MSG(px.on > 320 * 240 / 50, "%d mirror pixels", px.on);
    CHECK_MSG(px.changed * 10 > px.on * 9, "%d of %d mirror pixels changed", px.changed, px.on);
    CHECK_MSG(px.other == 0, "%d other pixels changed", px.other);
    CHECK_MSG(px.varied * 2 > px.on, "%d of %d unlike the first", px.varied, px.on);
    CHECK(px.same_threads);
    free(none);
    oa_close(&s);
}

/* A dynamic light's pass is drawn per triangle over its face's first layer, its depths
 * raised a little; over a run's polygon (r_q3_group) a triangle's depths are not the
 * polygon's, and with R_LAYER_ZREL's raise the light failed the depth test in patches.
 * The light of a rocket's explosion on oa_dm3, near and far along the view: where it adds
 * red to a pixel drawn triangle by triangle, it adds at least half as much with the runs,
 * at all but 1 % of them (raised by R_LAYER_ZREL, 1e-5: 2,354 of 64,579 at 80 units; by
 * 1e-4: 89, and 281 of 3,537 at 400; by R_DLIGHT_ZREL, 1e-3: 89 and 4, none further). */
TEST(q3tex_dynamic_light_over_runs)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    s.cl->level.game = CL_GAME_Q3;
    s.cl->time = 1.0;
    r_bsp *rb = &s.a->world;
    static const float dists[] = {80, 400, 900, 1500};
    for (int k = 0; k < 4; k++) {
        cl_fxev fx = explosion_ahead(&s, dists[k], 5); /* WP_ROCKET_LAUNCHER */
        /* the pixels the light reaches drawn triangle by triangle (red raised by more than
         * 8), and there the light's part with runs against that one */
        rast_fb *fb[2][2];
        uint8_t *group = rb->group;
        for (int g = 0; g < 2; g++) {
            rb->group = g ? group : NULL;
            cl_fxlog_clear(s.cl);
            fb[g][0] = frame(&s, R_MODE_TEXTURED, 1);
            cl_fx_add(s.cl, &fx);
            fb[g][1] = frame(&s, R_MODE_TEXTURED, 1);
        }
        rb->group = group;
        size_t lit = 0, missed = 0;
        for (int i = 0; i < W * H; i++) {
            int add[2]; /* red added by the light, each way */
            for (int g = 0; g < 2; g++)
                add[g] = (int)(fb[g][1]->color[i] & 255) - (int)(fb[g][0]->color[i] & 255);
            if (add[0] <= 8)
                continue;
            lit++;
            missed += add[1] < add[0] / 2; /* (not the light's part: the texel under it
                                            * may differ by a little either way) */
        }
        fprintf(stderr, "    at %.0f units: %zu pixels lit, %zu of them under half so with runs\n",
                dists[k], lit, missed);
        CHECK_MSG(missed <= lit / 100, "at %.0f units: %zu of %zu lit pixels differ with runs",
                  dists[k], missed, lit);
        for (int g = 0; g < 2; g++)
            for (int j = 0; j < 2; j++)
                rast_fb_free(fb[g][j]);
    }
    oa_close(&s);
}

/* Two scripts defining one shader, as OpenArena's data has them (pak0.pk3's evil8.shader and
 * pak6-patch088.pk3's evil8_base.shader both define textures/evil8_trim/e8trimlight2_blue;
 * read with unzip -p): ioquake3 lists the scripts from the highest-priority archive down,
 * joins them in the reverse of that order and takes the first definition in the text
 * (ScanAndLoadShaderFiles, FindShaderInShaderText), so pak0's, with its scrolling strip
 * added over the lightmap, is the one hydronex's trims show; qdemo took the patch's (no
 * strip: the trims black where the game's glow blue). The scripts read in
 * pak_list_search_order's order, the shader found is pak0's. */
TEST(q3tex_shader_defined_twice_as_ioquake3_takes_it)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    mdl_shader_set set = {0};
    void *pp[2] = {&set, &s.o};
    pak_list_search_order(s.o.fs, "scripts/", add_script, pp);
    const mdl_shader *sh = mdl_shader_find(&set, "textures/evil8_trim/e8trimlight2_blue");
    CHECK(sh && !strcmp(sh->stage.image, "textures/evil8_trim/e8trimlight2_blue.tga") &&
          !strcmp(sh->stage2.image, "textures/evil8_trim/e8trimlight2_blue.blend.tga") &&
          sh->stage2.blend == MDL_BLEND_ADD && sh->stage2.num_tcmods == 1);
    mdl_shader_set_clear(&set);
    oa_close(&s);
}

/* Quake III's opaque pass draws the walk's faces nearest first (r_world.c near_first): on
 * oa_dm3 from its first deathmatch start, the walk's near list is the same faces once
 * each, ordered by the squared distance from the eye to each face's nearest corner
 * (worked out here in double from the map's vertices: a run of triangles that
 * r_draw_world joins, listed in turn, counts as its nearest triangle's), and every such
 * run listed in turn in the walk is in turn in it too. */
TEST(q3tex_walk_nearest_first)
{
    OA_SCENE(s, "maps/oa_dm3.bsp", 0);
    const mdl_bsp *b = r_assets_map(s.a);
    const uint8_t *group = s.a->world.group;
    rast_fb *fb = rast_fb_new(W, H);
    r_view v;
    r_view_setup(&v, &s.cam, fb);
    r_walk w;
    CHECK(r_walk_make(&v, s.a, &w));
    CHECK(w.near != NULL && w.n > 100);
    if (!w.near || !fb) {
        r_walk_free(&w);
        rast_fb_free(fb);
        oa_close(&s);
        return;
    }
    /* each face's key; a run listed in turn takes its least */
    double *key = calloc(b->num_faces, sizeof *key);
    uint8_t *seen = calloc(b->num_faces, 1);
    for (uint32_t k = 0; k < w.n; k++) {
        const mdl_face *f = &b->faces[w.faces[k]];
        double best = INFINITY;
        for (uint32_t j = 0; j < f->num_verts; j++) {
            const float *p = b->verts[f->first_vert + j];
            double dd = 0;
            for (int c = 0; c < 3; c++)
                dd += ((double)p[c] - v.org[c]) * ((double)p[c] - v.org[c]);
            best = dd < best ? dd : best;
        }
        key[w.faces[k]] = best;
    }
    uint32_t runs = 0;
    for (uint32_t k = 0; group && k < w.n; k++) {
        uint32_t fi = w.faces[k], g = group[fi], j = 1;
        if (g < 2 || g > w.n - k)
            continue;
        while (j < g && w.faces[k + j] == fi + j)
            j++;
        if (j < g)
            continue;
        double least = key[fi];
        for (j = 1; j < g; j++)
            least = key[fi + j] < least ? key[fi + j] : least;
        for (j = 0; j < g; j++)
            key[fi + j] = least;
        /* in turn in the near list too */
        uint32_t at = 0;
        while (at < w.n && w.near[at] != fi)
            at++;
        int in_turn = at + g <= w.n;
        for (j = 1; in_turn && j < g; j++)
            in_turn = w.near[at + j] == fi + j;
        CHECK_MSG(in_turn, "the run of %u from face %u is split", g, fi);
        runs++;
        k += g - 1;
    }
    uint32_t once = 0, out_of_order = 0;
    for (uint32_t k = 0; k < w.n; k++) {
        once += w.near[k] < b->num_faces && !seen[w.near[k]]++;
        /* (float keys: equal within their rounding) */
        if (k > 0 && key[w.near[k]] < key[w.near[k - 1]] * (1 - 1e-6))
            out_of_order++;
    }
    for (uint32_t k = 0; k < w.n; k++)
        once -= seen[w.faces[k]] != 1; /* each walked face listed once */
    CHECK_EQ(once, w.n);
    CHECK_EQ(out_of_order, 0);
    CHECK(runs > 10);
    free(key);
    free(seen);
    r_walk_free(&w);
    rast_fb_free(fb);
    oa_close(&s);
}
