/* mdl_shader.c: Quake III shader scripts (the .shader files in scripts/) reduced to what a demo watcher
 * sees of a surface: its image, lightmap, blend, alpha test, texture motion and sky box.
 *
 * Syntax facts: the Q3Radiant Shader Manual (Paul Jaquays, Brian Hook) and ioq3
 * code/renderergl1/tr_shader.c (GPL-2.0): a shader is a name then { ... }; inside, keyword
 * lines and stages { ... }; tokens end at white space, // and / * * / are comments, a
 * keyword's parameters end with its line. Parsing is total: unknown keywords are skipped to
 * the end of their line, a damaged shader keeps what was read before the damage. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model_local.h"

#define TOK_CAP 256

/* A cursor over the text; tokens never cross p + len. */
typedef struct lex {
    const char *p;
    size_t len, pos;
    int newline; /* a line ended between the previous token and this one */
    char tok[TOK_CAP];
    int truncated;
} lex;

/* Skip white space and comments; sets newline when a line ends on the way. */
static void skip_space(lex *l)
{
    while (l->pos < l->len) {
        char c = l->p[l->pos];
        if (c == '\n') {
            l->newline = 1;
            l->pos++;
        } else if ((unsigned char)c <= ' ') {
            l->pos++;
        } else if (c == '/' && l->pos + 1 < l->len && l->p[l->pos + 1] == '/') {
            while (l->pos < l->len && l->p[l->pos] != '\n')
                l->pos++;
        } else if (c == '/' && l->pos + 1 < l->len && l->p[l->pos + 1] == '*') {
            l->pos += 2;
            while (l->pos < l->len &&
                   !(l->p[l->pos] == '*' && l->pos + 1 < l->len && l->p[l->pos + 1] == '/')) {
                l->newline |= l->p[l->pos] == '\n';
                l->pos++;
            }
            l->pos = l->pos + 2 < l->len ? l->pos + 2 : l->len;
        } else {
            return;
        }
    }
}

/* The next token into l->tok; with same_line, none (returns 0) when a line ends first. */
static int next(lex *l, int same_line)
{
    const size_t start = l->pos;
    l->newline = 0;
    skip_space(l);
    l->tok[0] = 0;
    l->truncated = 0;
    if (same_line && l->newline) {
        /* left before the line's end: the next same-line read stops there too (a keyword
         * ending its line took the next line's words as its own; found by a review) */
        l->pos = start;
        return 0;
    }
    if (l->pos >= l->len)
        return 0;
    size_t n = 0;
    char c = l->p[l->pos];
    if (c == '{' || c == '}') {
        l->tok[n++] = c;
        l->pos++;
    } else if (c == '"') {
        l->pos++;
        while (l->pos < l->len && l->p[l->pos] != '"' && l->p[l->pos] != '\n') {
            if (n + 1 < TOK_CAP)
                l->tok[n++] = l->p[l->pos];
            else
                l->truncated = 1;
            l->pos++;
        }
        if (l->pos < l->len && l->p[l->pos] == '"')
            l->pos++;
    } else {
        while (l->pos < l->len && (unsigned char)l->p[l->pos] > ' ' &&
               !(l->p[l->pos] == '/' && l->pos + 1 < l->len &&
                 (l->p[l->pos + 1] == '/' || l->p[l->pos + 1] == '*'))) {
            if (n + 1 < TOK_CAP)
                l->tok[n++] = l->p[l->pos];
            else
                l->truncated = 1;
            l->pos++;
        }
    }
    l->tok[n] = 0;
    return 1;
}

/* Tokens to the end of the current line are dropped. */
static void skip_line(lex *l)
{
    for (;;) {
        size_t save = l->pos;
        if (!next(l, 1) || l->tok[0] == '}' || l->tok[0] == '{') {
            l->pos = save;
            return;
        }
    }
}

static int is(const lex *l, const char *word) { return strcasecmp(l->tok, word) == 0; }

/* A number parameter on this line, or dflt when there is none or it is not a number. */
static float num(lex *l, float dflt)
{
    size_t save = l->pos;
    if (!next(l, 1) || l->tok[0] == '}' || l->tok[0] == '{') {
        l->pos = save;
        return dflt;
    }
    char *end;
    double v = strtod(l->tok, &end);
    if (end == l->tok || !(v > -1e9 && v < 1e9))
        return dflt;
    return (float)v;
}

static void copy_word(char *dst, size_t cap, const lex *l)
{
    if (l->truncated || strlen(l->tok) >= cap)
        dst[0] = 0; /* longer than the engine's MAX_QPATH: it could never be found */
    else
        memcpy(dst, l->tok, strlen(l->tok) + 1);
}

static int wave_func(const lex *l)
{
    static const char *const names[] = {"sin", "triangle", "square", "sawtooth",
                                        "inversesawtooth", "noise"};
    for (int i = 0; i < 6; i++)
        if (is(l, names[i]))
            return MDL_WAVE_SIN + i;
    return MDL_WAVE_NONE;
}

/* func base amplitude phase frequency */
static void read_wave(lex *l, mdl_wave *w)
{
    if (!next(l, 1))
        return;
    w->func = (uint8_t)wave_func(l);
    w->base = num(l, 0);
    w->amp = num(l, 0);
    w->phase = num(l, 0);
    w->freq = num(l, 0);
}

/* A blendFunc factor's name (GL_ONE ...) as one of id's GLS_* pairs' halves. */
static int factor(const lex *l)
{
    static const char *const names[] = {
        "GL_ZERO", "GL_ONE", "GL_SRC_COLOR", "GL_ONE_MINUS_SRC_COLOR", "GL_DST_COLOR",
        "GL_ONE_MINUS_DST_COLOR", "GL_SRC_ALPHA", "GL_ONE_MINUS_SRC_ALPHA", "GL_DST_ALPHA",
        "GL_ONE_MINUS_DST_ALPHA", "GL_SRC_ALPHA_SATURATE"};
    for (int i = 0; i < 11; i++)
        if (is(l, names[i]))
            return i;
    return -1;
}

/* blendFunc add | filter | blend | SRC DST, as one of qdemo's blends; *exact 1 when the
 * blend is that one exactly (GL_ONE GL_ONE, GL_DST_COLOR GL_ZERO or GL_ZERO GL_SRC_COLOR,
 * GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA, GL_DST_COLOR GL_ONE, GL_DST_COLOR GL_SRC_COLOR,
 * GL_ONE GL_ZERO; GL_ZERO GL_ONE_MINUS_SRC_COLOR by its image made over, *tex), 0 when
 * only the nearest. */
static int read_blend(lex *l, uint8_t *exact, uint8_t *tex)
{
    *exact = 1;
    *tex = MDL_BLENDTEX_NONE;
    if (!next(l, 1))
        return MDL_BLEND_NONE;
    if (is(l, "add"))
        return MDL_BLEND_ADD;
    if (is(l, "filter"))
        return MDL_BLEND_FILTER;
    if (is(l, "blend"))
        return MDL_BLEND_ALPHA;
    int src = factor(l);
    size_t save = l->pos;
    if (!next(l, 1) || l->tok[0] == '}') {
        l->pos = save;
        *exact = 0;
        return MDL_BLEND_NONE;
    }
    int dst = factor(l);
    enum { Z, ONE, SC, OMSC, DC, OMDC, SA, OMSA };
    if (src == ONE && dst == Z)
        return MDL_BLEND_NONE;
    if ((src == DC && dst == Z) || (src == Z && dst == SC))
        return MDL_BLEND_FILTER;
    if (src == ONE && dst == ONE)
        return MDL_BLEND_ADD;
    if (src == SA && dst == OMSA)
        return MDL_BLEND_ALPHA;
    if (src == DC && dst == ONE)
        return MDL_BLEND_MODADD;
    if (src == DC && dst == SC)
        return MDL_BLEND_MOD2X;
    /* GL_ONE GL_SRC_ALPHA keeps what is behind by the image's alpha: an add where the
     * image is opaque, as OpenArena's rocket explosion uses it (JPEG frames, no alpha:
     * its two animMap stages cross-fade, so the second is its second layer) */
    if (src == ONE && dst == SA)
        return MDL_BLEND_ADD;
    if (src == Z && dst == OMSC) { /* a filter by 255 - texel (MDL_BLENDTEX_INVERT) */
        *tex = MDL_BLENDTEX_INVERT;
        return MDL_BLEND_FILTER;
    }
    if (src == SA && dst == ONE) { /* an add of texel x alpha (MDL_BLENDTEX_PREMUL) */
        *tex = MDL_BLENDTEX_PREMUL;
        return MDL_BLEND_ADD;
    }
    *exact = 0;
    if (dst == ONE) /* GL_ONE_MINUS_SRC_ALPHA GL_ONE and the like: light added */
        return MDL_BLEND_ADD;
    if (src == DC || dst == SC || src == Z)
        return MDL_BLEND_FILTER;
    return MDL_BLEND_ALPHA;
}

static void read_tcmod(lex *l, mdl_stage *st)
{
    if (!next(l, 1))
        return;
    if (st->num_tcmods >= MDL_SHADER_MAX_TCMODS) {
        skip_line(l);
        return;
    }
    mdl_tcmod *m = &st->tcmods[st->num_tcmods];
    memset(m, 0, sizeof *m);
    if (is(l, "scroll")) {
        m->type = MDL_TCMOD_SCROLL;
        m->p[0] = num(l, 0);
        m->p[1] = num(l, 0);
    } else if (is(l, "scale")) {
        m->type = MDL_TCMOD_SCALE;
        m->p[0] = num(l, 1);
        m->p[1] = num(l, 1);
    } else if (is(l, "rotate")) {
        m->type = MDL_TCMOD_ROTATE;
        m->p[0] = num(l, 0);
    } else if (is(l, "turb")) {
        m->type = MDL_TCMOD_TURB;
        m->wave.func = MDL_WAVE_SIN;
        m->wave.base = num(l, 0);
        m->wave.amp = num(l, 0);
        m->wave.phase = num(l, 0);
        m->wave.freq = num(l, 0);
    } else if (is(l, "stretch")) {
        m->type = MDL_TCMOD_STRETCH;
        read_wave(l, &m->wave);
    } else {
        skip_line(l);
        return;
    }
    st->num_tcmods++;
}

/* One stage { ... }: returns 0 when the text ends inside it. */
static int read_stage(lex *l, mdl_stage *st)
{
    memset(st, 0, sizeof *st);
    while (next(l, 0)) {
        if (l->tok[0] == '}')
            return 1;
        if (l->tok[0] == '{')
            continue; /* damaged: a stage inside a stage; read on */
        if (is(l, "map") || is(l, "clampmap")) {
            int clamp = is(l, "clampmap");
            if (!next(l, 1))
                continue;
            if (is(l, "$lightmap")) {
                st->lightmap = 1;
            } else {
                copy_word(st->image, sizeof st->image, l);
                st->clamp = (uint8_t)clamp;
            }
        } else if (is(l, "animMap")) {
            /* animMap <frequency> <image>...: up to MDL_ANIM_FRAMES, the rest ignored
             * (ioq3 ParseStage) */
            st->anim_freq = num(l, 0);
            st->anim_frames = 0;
            for (;;) {
                size_t save = l->pos;
                if (!next(l, 1) || l->tok[0] == '}' || l->tok[0] == '{') {
                    l->pos = save; /* (as skip_line) */
                    break;
                }
                if (st->anim_frames == 0)
                    copy_word(st->image, sizeof st->image, l);
                else if (st->anim_frames < MDL_ANIM_FRAMES)
                    copy_word(st->anim[st->anim_frames - 1], sizeof st->anim[0], l);
                else
                    continue;
                st->anim_frames++;
            }
        } else if (is(l, "blendFunc")) {
            st->blend = (uint8_t)read_blend(l, &st->blend_exact, &st->blend_tex);
        } else if (is(l, "alphaFunc")) {
            if (next(l, 1))
                st->alpha_func = is(l, "GT0")     ? MDL_ALPHA_GT0
                                 : is(l, "LT128") ? MDL_ALPHA_LT128
                                 : is(l, "GE128") ? MDL_ALPHA_GE128
                                                  : MDL_ALPHA_NONE;
        } else if (is(l, "rgbGen")) {
            if (!next(l, 1))
                continue;
            if (is(l, "identity") || is(l, "identityLighting"))
                st->rgbgen = MDL_RGBGEN_IDENTITY;
            else if (is(l, "vertex") || is(l, "exactVertex") || is(l, "oneMinusVertex")) {
                st->rgbgen = MDL_RGBGEN_VERTEX;
                st->one_minus = is(l, "oneMinusVertex");
            }
            else if (is(l, "wave")) {
                st->rgbgen = MDL_RGBGEN_WAVE;
                read_wave(l, &st->rgbwave);
            } else if (is(l, "const") || is(l, "constant")) {
                /* ( r g b ), each 0..1 */
                st->rgbgen = MDL_RGBGEN_CONST;
                if (next(l, 1) && is(l, "(")) {
                    for (int k = 0; k < 3; k++)
                        st->rgbconst[k] = num(l, 1);
                    size_t save = l->pos;
                    if (!next(l, 1) || !is(l, ")"))
                        l->pos = save;
                }
            } else if (is(l, "lightingDiffuse"))
                st->rgbgen = MDL_RGBGEN_VERTEX;
            /* (ioq3 ParseStage reads on after the parameters: a stage written on one line
             * keeps what follows) */
        } else if (is(l, "alphaGen")) {
            st->alphagen = 1;
            if (next(l, 1)) { /* its parameters as ParseStage reads them */
                if (is(l, "wave"))
                    read_wave(l, &st->alphawave);
                else if (is(l, "portal")) { /* the range: 256 when none is written */
                    st->alpha_portal = 1;
                    st->portal_range = num(l, 256);
                } else if (is(l, "const"))
                    num(l, 0);
            }
        } else if (is(l, "tcMod")) {
            read_tcmod(l, st);
        } else if (is(l, "tcGen")) {
            /* ioq3 ParseStage reads one word after it (and two vectors after "vector"):
             * what follows on the line is the stage's still */
            if (next(l, 1)) {
                if (is(l, "environment"))
                    st->env = 1;
                else if (is(l, "vector"))
                    skip_line(l);
            }
        } else {
            skip_line(l);
        }
    }
    return 0;
}

/* Fold a stage into the shader: the first stage decides the blend, the first with an image
 * is the one drawn, and the next with an image that blends over what is drawn, as qdemo
 * draws blends exactly, is its second layer, the two after it its third and fourth (ioq3
 * draws every stage in order, each blended over the ones before). A stage that covers the
 * picture starts it again (restart); one that blends otherwise ends the layers (*stop). */
/* Whether a stage after the first covers every stage before it: an image drawn GL_ONE
 * GL_ZERO (no blendFunc, or that pair written) with no alphaFunc. ioq3 RB_IterateStagesGeneric
 * draws a shader's stages in order over the same pixels (each at depthFunc lequal, so each
 * passes where the first did), and such a stage's pixels replace what the earlier ones drew:
 * OpenArena's xmetalfloor_wall_* (a floor, then its scrolling glow opaque, then the floor
 * again blended by its own alpha, then the lightmap) shows the glow along the floor's
 * lines, where the floor's alpha is low. */
static int replaces(const mdl_stage *st)
{
    return st->blend == MDL_BLEND_NONE && st->alpha_func == MDL_ALPHA_NONE && !st->lightmap;
}

/* The shader drawn from stage st on, as if it were the first with an image: the layers
 * and the lightmap before it are covered (a later $lightmap stage sets the flag again). */
static void restart(mdl_shader *sh, const mdl_stage *st, int *stop)
{
    sh->stage = *st;
    memset(&sh->stage2, 0, sizeof sh->stage2);
    memset(sh->more, 0, sizeof sh->more);
    sh->stage2_lit = 0;
    sh->flags &= ~(uint32_t)MDL_SHADER_LIGHTMAP;
    *stop = 0;
}

static void take_stage(mdl_shader *sh, const mdl_stage *st, int first, int *stop)
{
    if (first)
        sh->blend = st->blend;
    if (st->lightmap) {
        sh->flags |= MDL_SHADER_LIGHTMAP;
        sh->stage2_lit = sh->stage2.image[0] != 0;
        /* (the layers so far: the lightmap multiplies what they drew) */
        sh->stage2.lit_map = sh->stage2.image[0] != 0;
        for (int k = 0; k < 4; k++)
            sh->more[k].lit_map = sh->more[k].image[0] != 0 && !sh->more[0].alpha_portal;
    }
    if (st->image[0] && !sh->stage.image[0]) {
        sh->stage = *st;
    } else if (st->image[0] && replaces(st) && !sh->more[0].alpha_portal) {
        restart(sh, st, stop);
    } else if (st->image[0] && st->alpha_portal && !sh->more[0].image[0]) {
        /* a portal's fog (alphaGen portal: blended by the distance) and the stage after it,
         * drawn over the portal's view (r_q3surf.c portal_layers) */
        sh->more[0] = *st;
    } else if (st->image[0] && sh->more[0].alpha_portal && !sh->more[1].image[0]) {
        if (st->blend != MDL_BLEND_NONE && st->blend_exact)
            sh->more[1] = *st;
    } else if (st->image[0] && !*stop) {
        mdl_stage *to = !sh->stage2.image[0]    ? &sh->stage2
                        : !sh->more[0].image[0] ? &sh->more[0]
                        : !sh->more[1].image[0] ? &sh->more[1]
                        : !sh->more[2].image[0] ? &sh->more[2]
                        : !sh->more[3].image[0] ? &sh->more[3]
                                                : NULL;
        /* (an alpha-tested stage without a blendFunc covers where its texels pass: drawn
         * as a layer blended by them, opaque where they are; OpenArena's flags' emblem) */
        if (to && ((st->blend != MDL_BLEND_NONE && st->blend_exact &&
                    !((st->blend == MDL_BLEND_ALPHA || st->blend_tex == MDL_BLENDTEX_PREMUL) &&
                      st->alphagen)) ||
                   (st->blend == MDL_BLEND_NONE && st->alpha_func != MDL_ALPHA_NONE)))
            *to = *st;
        else
            *stop = 1;
    }
}

/* The body of a shader after its "{": returns 0 when the text ends inside it. */
static int read_body(lex *l, mdl_shader *sh)
{
    int stages = 0, stop = 0, lead = 0;
    while (next(l, 0)) {
        if (l->tok[0] == '}')
            return 1;
        if (l->tok[0] == '{') {
            mdl_stage st;
            int ok = read_stage(l, &st);
            /* A first stage that blends the lightmap onto what lies behind (OpenArena's
             * team-coloured edges, clown.shader textures/clown/b_edge: $lightmap of
             * GL_DST_COLOR GL_ONE at depthFunc equal, then the glow added) draws on the
             * pixels behind, not on this surface's: left out, the next stage is the first
             * (its blend the surface's, unlit by the lightmap, as ioq3 draws it) */
            if (stages == lead && st.lightmap && st.blend != MDL_BLEND_NONE)
                lead++;
            else
                take_stage(sh, &st, stages == lead, &stop);
            sh->lightmap_last = st.lightmap;
            if (st.lightmap)
                sh->lightmap_blend = st.blend;
            stages++;
            if (!ok)
                return 0;
        } else if (is(l, "surfaceparm")) {
            if (next(l, 1)) {
                if (is(l, "sky"))
                    sh->flags |= MDL_SHADER_SKY;
                else if (is(l, "nodraw"))
                    sh->flags |= MDL_SHADER_NODRAW;
                else if (is(l, "trans"))
                    sh->flags |= MDL_SHADER_TRANS;
            }
        } else if (is(l, "portal")) { /* ioq3 ParseShader: sort SS_PORTAL, isPortal */
            sh->flags |= MDL_SHADER_PORTAL;
        } else if (is(l, "fogParms")) {
            /* ( r g b ) depthForOpaque (ioq3 ParseShader: ParseVector, then a number; the
             * rest of the line, old gradient directions, skipped) */
            size_t save = l->pos;
            if (next(l, 1) && is(l, "(")) {
                for (int k = 0; k < 3; k++)
                    sh->fog_color[k] = num(l, 0);
                if (next(l, 1) && is(l, ")")) {
                    sh->flags |= MDL_SHADER_FOG;
                    sh->fog_depth = num(l, 0);
                }
            } else {
                l->pos = save;
            }
            skip_line(l);
        } else if (is(l, "skyParms")) {
            /* farbox, cloud height, nearbox (ioq3 ParseSkyParms) */
            if (next(l, 1) && !is(l, "-"))
                copy_word(sh->sky, sizeof sh->sky, l);
            if (l->tok[0] != '{' && l->tok[0] != '}')
                sh->cloud_height = num(l, 0);
            skip_line(l);
        } else if (is(l, "cull")) {
            if (next(l, 1) && (is(l, "none") || is(l, "twosided") || is(l, "disable")))
                sh->flags |= MDL_SHADER_TWOSIDED;
        } else if (is(l, "deformVertexes")) {
            if (next(l, 1) && is(l, "wave")) {
                /* (ioq3 ParseDeform: up to MAX_SHADER_DEFORMS, each in turn; two kept) */
                int second = sh->deform.func != MDL_WAVE_NONE;
                if (second && sh->deform2.func != MDL_WAVE_NONE) {
                    skip_line(l);
                    continue;
                }
                *(second ? &sh->deform2_div : &sh->deform_div) = num(l, 0);
                read_wave(l, second ? &sh->deform2 : &sh->deform);
            } else if (is(l, "autosprite")) {
                sh->autosprite = 1;
            } else if (is(l, "move")) { /* ioq3 ParseDeform: x y z, then the wave */
                for (int k = 0; k < 3; k++)
                    sh->move[k] = num(l, 0);
                read_wave(l, &sh->move_wave);
            }
            skip_line(l);
        } else {
            skip_line(l);
        }
    }
    return 0;
}

qd_err mdl_shader_parse(mdl_shader_set *set, const char *text, size_t len, const char *file,
                        qd_error *err)
{
    lex l;
    memset(&l, 0, sizeof l);
    l.p = text;
    l.len = text ? len : 0;
    const uint32_t file_no = set->files++;
    set->text_bytes += l.len;
    uint64_t allowed = 4096 + set->text_bytes / MDL_SHADER_TEXT_PER;
    allowed = allowed < MDL_SHADER_MAX ? allowed : MDL_SHADER_MAX;
    while (next(&l, 0)) {
        size_t at = l.pos;
        if (l.tok[0] == '{' || l.tok[0] == '}')
            return qd_fail(err, QD_ERR_BAD_DATA, at - 1, "%s: brace where a shader name belongs",
                           file);
        mdl_shader sh;
        memset(&sh, 0, sizeof sh);
        sh.file = file_no;
        copy_word(sh.name, sizeof sh.name, &l);
        if (!next(&l, 0) || l.tok[0] != '{')
            return qd_fail(err, QD_ERR_BAD_DATA, l.pos, "%s: shader %.64s has no body", file,
                           sh.name);
        int ok = read_body(&l, &sh);
        if (sh.name[0]) {
            if (set->count >= allowed)
                return qd_fail(err, QD_ERR_LIMIT, at, "%s: over %u shaders for %llu bytes of "
                               "scripts", file, (unsigned)allowed,
                               (unsigned long long)set->text_bytes);
            if (set->count == set->cap) {
                uint32_t cap = set->cap ? set->cap * 2 : 256;
                mdl_shader *n = realloc(set->list, (size_t)cap * sizeof *n);
                if (!n)
                    return qd_fail(err, QD_ERR_NOMEM, at, "%s: out of memory", file);
                set->list = n;
                set->cap = cap;
            }
            set->list[set->count++] = sh;
            set->sorted = 0;
        }
        if (!ok)
            return qd_fail(err, QD_ERR_TRUNCATED, l.len, "%s: shader %.64s not closed", file,
                           sh.name);
    }
    return QD_OK;
}

static int cmp_name(const void *a, const void *b)
{
    const mdl_shader *x = a, *y = b;
    int c = strcasecmp(x->name, y->name);
    /* the same name: keep the order read (mdl_shader_find) */
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

const mdl_shader *mdl_shader_find(mdl_shader_set *set, const char *full)
{
    if (!set || !set->count || !full)
        return NULL;
    /* tr_shader.c R_FindShader looks the name up without its extension (COM_StripExtension:
     * from the last '.' after the last '/'): OpenArena's flags, gibs, armour shard and
     * powerups name their surfaces' shaders "....tga" */
    char name[256];
    size_t n = strlen(full), cut = n;
    for (size_t i = n; i > 0; i--) {
        if (full[i - 1] == '/')
            break;
        if (full[i - 1] == '.') {
            cut = i - 1;
            break;
        }
    }
    if (cut >= sizeof name)
        return NULL;
    memcpy(name, full, cut);
    name[cut] = 0;
    if (!set->sorted) {
        for (uint32_t i = 0; i < set->count; i++)
            set->list[i].order = i;
        qsort(set->list, set->count, sizeof *set->list, cmp_name);
        set->sorted = 1;
    }
    /* the definitions of this name in the last file read that has one, the first of them:
     * ioq3 ScanAndLoadShaderFiles joins the scripts in the reverse of their listed order
     * and FindShaderInShaderText takes the first definition in that text */
    uint32_t lo = 0, hi = set->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcasecmp(set->list[mid].name, name) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || strcasecmp(set->list[lo - 1].name, name) != 0)
        return NULL;
    uint32_t k = lo - 1;
    while (k > 0 && set->list[k - 1].file == set->list[lo - 1].file &&
           strcasecmp(set->list[k - 1].name, name) == 0)
        k--;
    return &set->list[k];
}

void mdl_shader_set_clear(mdl_shader_set *set)
{
    if (!set)
        return;
    free(set->list);
    memset(set, 0, sizeof *set);
}
