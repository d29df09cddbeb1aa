/* r_assets.c: the asset set of one level: the map and every precached model loaded through a
 * read callback, with per-face colours computed once. Missing files become placeholders. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pak-loader/pak.h"
#include "r_local.h"

/* Remember the first problem in err and count it. */
static void note(r_assets *a, qd_error *err, qd_err code, const char *name, const qd_error *why)
{
    a->missing++;
    size_t n = strlen(name);
    int named = why && !strncmp(why->msg, name, n) && why->msg[n] == ':'; /* (loaders name it) */
    if (err && err->code == QD_OK)
        qd_fail(err, code, why ? why->offset : 0, "%s%s%s", named ? "" : name, named ? "" : ": ",
                why && why->msg[0] ? why->msg : qd_strerror(code));
}

static qd_err read_file(mdl_read_fn read, void *ctx, const char *name, uint8_t **data,
                        size_t *len, qd_error *e)
{
    *data = NULL;
    *len = 0;
    if (!read)
        return qd_fail(e, QD_ERR_NOT_FOUND, 0, "%s: no search path", name);
    qd_err r = read(ctx, name, data, len, e);
    if (r != QD_OK) {
        free(*data);
        *data = NULL;
    }
    return r;
}

typedef struct tex_key {
    const uint8_t *pixels;
    uint32_t w, h;
    int32_t index;
} tex_key;

static int tex_key_cmp(const void *a, const void *b)
{
    const tex_key *x = a, *y = b;
    if (x->pixels != y->pixels)
        return (uintptr_t)x->pixels < (uintptr_t)y->pixels ? -1 : 1;
    if (x->w != y->w)
        return x->w < y->w ? -1 : 1;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* rb->tex_same: each texture index to the first with the same pixels and size (a hostile map
 * pointed 64 entries at one 4096 x 4096 liquid, each copied for itself; a review). */
static qd_err same_textures(r_bsp *rb)
{
    const mdl_bsp *b = rb->bsp;
    uint32_t n = b->num_textures;
    rb->tex_same = malloc((n ? n : 1) * sizeof *rb->tex_same);
    tex_key *k = malloc((n ? n : 1) * sizeof *k);
    if (!rb->tex_same || !k) {
        free(rb->tex_same);
        rb->tex_same = NULL;
        free(k);
        return QD_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        k[i] = (tex_key){b->textures[i].mips[0], b->textures[i].width, b->textures[i].height,
                         (int32_t)i};
    qsort(k, n, sizeof *k, tex_key_cmp);
    for (uint32_t i = 0; i < n; i++) {
        int same = i > 0 && k[i].pixels && k[i].pixels == k[i - 1].pixels &&
                   k[i].w == k[i - 1].w && k[i].h == k[i - 1].h;
        rb->tex_same[k[i].index] = same ? rb->tex_same[k[i - 1].index] : k[i].index;
    }
    free(k);
    return QD_OK;
}

/* Flat colour: the texture's average times the face's average light (128 = as is); sky,
 * liquids and unlit maps at the texture's own colour. Wire colour: the same, brightened so
 * that lines show on black. */
static qd_err colour_faces(r_bsp *rb)
{
    const mdl_bsp *b = rb->bsp;
    rb->flat = calloc(b->num_faces ? b->num_faces : 1, sizeof *rb->flat);
    rb->wire = calloc(b->num_faces ? b->num_faces : 1, sizeof *rb->wire);
    if (!rb->flat || !rb->wire)
        return QD_ERR_NOMEM;
    for (uint32_t i = 0; i < b->num_faces; i++) {
        const mdl_face *f = &b->faces[i];
        uint32_t c = f->flags & MDL_SURF_FULLBRIGHT ? f->color : r_shade(f->color, f->light);
        rb->flat[i] = c | 0xff000000u;
        rb->wire[i] = r_wire_color(c) | 0xff000000u;
    }
    return QD_OK;
}

static void free_bsp(r_bsp *rb)
{
    r_q3_groups_free(rb);
    free(rb->lit);
    mdl_bsp_free(rb->bsp);
    free(rb->flat);
    free(rb->wire);
    free(rb->tex_same);
    memset(rb, 0, sizeof *rb);
}

/* "*N" with N a decimal submodel number; -1 if the name is not that. */
static long submodel_number(const char *name)
{
    if (name[0] != '*' || !name[1])
        return -1;
    long n = 0;
    for (const char *p = name + 1; *p; p++) {
        if (*p < '0' || *p > '9' || n > 1000000)
            return -1;
        n = n * 10 + (*p - '0');
    }
    return n;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* name with its last k bytes replaced by tail, in a new string (NULL: no memory). */
static char *swap_tail(const char *name, size_t k, const char *tail)
{
    size_t n = strlen(name), t = strlen(tail);
    char *out = k <= n ? malloc(n - k + t + 1) : NULL;
    if (out) {
        memcpy(out, name, n - k);
        memcpy(out + n - k, tail, t + 1);
    }
    return out;
}

static void free_md2(r_model *m)
{
    for (uint32_t i = 0; m->skins && i < m->num_skins; i++) {
        mdl_pcx_free(m->skins[i].pic);
        free(m->skins[i].lut);
    }
    free(m->skins);
    m->skins = NULL;
    m->num_skins = 0;
    if (!m->shared)
        mdl_md2_free(m->md2);
    m->md2 = NULL;
}

/* The bytes a level's Quake II skins may take, pixels and light tables (r_assets.skin_room):
 * each slot's model loads its skins itself (a review: 64 slots of 32 skins each naming one
 * big picture took 2.6 GB and 37 s). */
#define R_SKIN_ROOM ((uint64_t)128 << 20)
/* The bytes a level's models may take: id1's whole progs/ decodes to about 10 MB, a large
 * mod's to a few hundred; past it a model is refused as one too big (a review: 200
 * spellings of one 16 MB model took 3.6 GB, and a zip of many names can hold more). */
#define R_MODEL_ROOM ((uint64_t)512 << 20)
#define R_SKIN_LUT_BYTES ((uint64_t)64 * 256 * sizeof(uint32_t))

void r_damaged_aside(qd_error *err, qd_err code, const qd_error *why)
{
    if (err && err->code == QD_OK && code != QD_OK && code != QD_ERR_NOMEM &&
        code != QD_ERR_NOT_FOUND)
        *err = *why;
}

/* The PCX picture name into sk with its light lookup and mean colour. A picture that is
 * absent or damaged leaves sk empty (drawn flat): QD_ERR_NOT_FOUND or its error, a damaged
 * one also kept in a->pic_damaged when it is the level's first; the caller decides whether
 * it counts. budget (NULL: none): the pixels its model may still decode
 * (MDL_PICTURES_MAX_PIXELS); a->skin_room: the level's bytes left (R_SKIN_ROOM), which the
 * file's bytes are taken from too (a review: a 2 MB file of one pixel, named by every skin
 * of every slot); a picture past either is QD_ERR_LIMIT, as one not there. */
static qd_err load_skin(r_md2skin *sk, const char *name, mdl_read_fn read, void *ctx,
                        uint64_t *budget, r_assets *a)
{
    uint8_t *data;
    size_t len;
    qd_error e = {0};
    qd_err r = read_file(read, ctx, name, &data, &len, &e);
    if (r != QD_OK)
        return r;
    uint64_t pixels = mdl_pcx_pixels(data, len), cost = pixels + R_SKIN_LUT_BYTES + len;
    if ((budget && pixels > *budget) || cost > a->skin_room) {
        free(data);
        a->skin_room -= (uint64_t)len < a->skin_room ? (uint64_t)len : a->skin_room;
        return QD_ERR_LIMIT;
    }
    if (budget)
        *budget -= pixels;
    a->skin_room -= cost;
    mdl_pcx *p = NULL;
    r = mdl_pcx_load(data, len, name, &p, &e);
    free(data);
    r_damaged_aside(&a->pic_damaged, r, &e);
    if (r != QD_OK)
        return r;
    uint32_t *lut = malloc(64 * 256 * sizeof *lut);
    if (!lut) {
        mdl_pcx_free(p);
        return QD_ERR_NOMEM;
    }
    r_lut_from_palette(p->palette, lut);
    uint64_t sum[3] = {0, 0, 0}, n = (uint64_t)p->w * p->h;
    for (uint64_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            sum[k] += p->palette[p->pixels[i]] >> (8 * k) & 255;
    mdl_pcx_free(sk->pic);
    free(sk->lut);
    sk->pic = p;
    sk->lut = lut;
    sk->color = rast_rgb((unsigned)(sum[0] / n), (unsigned)(sum[1] / n), (unsigned)(sum[2] / n));
    return QD_OK;
}

/* The skins an MD2 names, as PCX pictures; a missing or damaged one draws flat and is not
 * an error (QD_ERR_NOMEM only when memory runs out). */
static qd_err md2_skins(r_model *m, mdl_read_fn read, void *ctx, r_assets *a)
{
    uint32_t n = m->md2->num_skins;
    if (!(m->skins = calloc(n ? n : 1, sizeof *m->skins)))
        return QD_ERR_NOMEM;
    m->num_skins = n;
    uint64_t budget = MDL_PICTURES_MAX_PIXELS; /* (its skins may all name one picture) */
    for (uint32_t i = 0; i < n; i++)
        if (load_skin(&m->skins[i], m->md2->skins[i], read, ctx, &budget, a) ==
            QD_ERR_NOMEM)
            return QD_ERR_NOMEM;
    return QD_OK;
}

/* A Quake II player's skin, slot si ("players/M/S.pcx" as the player-skin configstring
 * names it), made skin 0 of the MD2 in slot si - CL_SKIN_SLOTS, which then wears no other
 * (the entity's skin number is its client). Without that picture: M's grunt.pcx, then the
 * model's own first skin (cl_parse.c CL_LoadClientinfo falls back the same way); a body
 * that fell back to male/tris.md2 wears male/grunt.pcx. QD_ERR_NOMEM only when memory runs
 * out. */
static qd_err apply_pcx(r_assets *a, int si, const char *name, mdl_read_fn read, void *ctx,
                        qd_error *err)
{
    r_model *m = &a->models[si - CL_SKIN_SLOTS];
    if (m->kind != R_KIND_MD2)
        return QD_OK;
    if (!m->num_skins) {
        free(m->skins);
        if (!(m->skins = calloc(1, sizeof *m->skins)))
            return QD_ERR_NOMEM;
        m->num_skins = 1;
    }
    m->own_skin = 1;
    qd_err r = m->male ? QD_ERR_NOT_FOUND
                       : load_skin(&m->skins[0], name, read, ctx, NULL, a);
    if (r == QD_OK || r == QD_ERR_NOMEM)
        return r;
    if (!m->male)
        note(a, err, r, name, NULL);
    const char *slash = strrchr(name, '/');
    char *grunt = m->male ? strdup("players/male/grunt.pcx")
                          : swap_tail(name, strlen(slash ? slash + 1 : name), "grunt.pcx");
    if (!grunt)
        return QD_ERR_NOMEM;
    r = load_skin(&m->skins[0], grunt, read, ctx, NULL, a);
    free(grunt);
    return r == QD_ERR_NOMEM ? r : QD_OK;
}

/* "players/M/F" whose file was not found: "players/male/F" in a new string (Quake II's
 * fallback for a player model it lacks); NULL for other names or without memory. */
static char *male_fallback(const char *name)
{
    if (strncmp(name, "players/", 8) != 0 || strncmp(name, "players/male/", 13) == 0)
        return NULL;
    const char *slash = strchr(name + 8, '/');
    if (!slash || strchr(slash + 1, '/'))
        return NULL;
    size_t n = strlen(slash + 1);
    char *out = malloc(13 + n + 1);
    if (out) {
        memcpy(out, "players/male/", 13);
        memcpy(out + 13, slash + 1, n + 1);
    }
    return out;
}

/* What an alias model holds decoded: its skins' pictures, poses (positions and normals),
 * triangles and texture coordinates. */
static uint64_t alias_bytes(const mdl_alias *m)
{
    uint64_t pictures = 0;
    for (uint32_t i = 0; i < m->num_skins; i++)
        pictures += m->skin_groups ? m->skin_groups[i].num : 1;
    return pictures * m->skin_width * m->skin_height +
           (uint64_t)m->num_poses * m->num_verts * (sizeof *m->poses + 1) +
           (uint64_t)m->num_tris * sizeof *m->tris + (uint64_t)m->num_verts * sizeof *m->st;
}

uint64_t r_model_room = R_MODEL_ROOM;

/* A model past the level's room: QD_ERR_LIMIT, said in e. */
static qd_err room_refused(const char *name, qd_error *e)
{
    return qd_fail(e, QD_ERR_LIMIT, 0, "%s: passes the level's room for models (%llu MiB)",
                   name, (unsigned long long)(r_model_room >> 20));
}

/* Load one precached model file, choosing the loader by the file's magic. */
static qd_err load_model(r_model *m, const char *name, mdl_read_fn read, void *ctx,
                         const uint32_t palette[256], r_assets *a, qd_error *e)
{
    uint8_t *data;
    size_t len;
    qd_err r = read_file(read, ctx, name, &data, &len, e);
    if (r != QD_OK)
        return r;
    if (len > a->model_room) { /* (nothing decoded once the room is spent) */
        free(data);
        return room_refused(name, e);
    }
    if (len >= 4 && memcmp(data, "IDPO", 4) == 0) {
        r = mdl_alias_load(data, len, name, palette, &m->alias, e);
        m->kind = R_KIND_ALIAS;
    } else if (len >= 4 && memcmp(data, "IDP3", 4) == 0) {
        r = mdl_md3_load(data, len, name, &m->md3, e);
        m->kind = R_KIND_MD3;
        m->weapon = strncmp(name, "models/weapons2/", 16) == 0;
    } else if (len >= 4 && memcmp(data, "IDP2", 4) == 0) {
        r = mdl_md2_load(data, len, name, &m->md2, e);
        m->kind = R_KIND_MD2;
        if (r == QD_OK)
            r = md2_skins(m, read, ctx, a);
    } else if (len >= 4 && memcmp(data, "IDS2", 4) == 0) {
        r = mdl_sp2_load(data, len, name, read, ctx, &a->skin_room, &a->pic_damaged,
                         &m->sprite, e);
        m->kind = R_KIND_SPRITE;
    } else if (len >= 4 && memcmp(data, "IDSP", 4) == 0) {
        r = mdl_sprite_load(data, len, name, palette, &m->sprite, e);
        m->kind = R_KIND_SPRITE;
        /* its pictures from the level's room too (a review: 4,000 sprites of one 4096 x
         * 4096 frame each, a few KB each in a zip, would take 64 GB) */
        uint64_t pixels = 0;
        for (uint32_t k = 0; r == QD_OK && k < m->sprite->num_frames; k++)
            pixels += (uint64_t)m->sprite->frames[k].width * m->sprite->frames[k].height;
        if (r == QD_OK && pixels > a->skin_room) {
            mdl_sprite_free(m->sprite);
            m->sprite = NULL;
            r = qd_fail(e, QD_ERR_LIMIT, 0, "%s: its pictures pass the level's room (%llu MiB)",
                        name, (unsigned long long)(R_SKIN_ROOM >> 20));
        } else if (r == QD_OK) {
            a->skin_room -= pixels;
        }
    } else {
        r = mdl_bsp_load(data, len, name, palette, &m->brush.bsp, e);
        if (r == QD_OK && ((r = colour_faces(&m->brush)) != QD_OK ||
                           (r = same_textures(&m->brush)) != QD_OK))
            qd_fail(e, r, 0, "%s: out of memory", name);
        m->kind = R_KIND_BRUSH;
    }
    free(data);
    if (r == QD_OK && m->kind != R_KIND_SPRITE) { /* (sprites: from the skin room) */
        uint64_t cost = m->kind == R_KIND_ALIAS ? alias_bytes(m->alias) : (uint64_t)len;
        if (cost > a->model_room) {
            r = room_refused(name, e);
        } else {
            a->model_room -= cost;
            m->cost = cost;
        }
    }
    if (r != QD_OK) {
        free_bsp(&m->brush);
        mdl_alias_free(m->alias);
        m->alias = NULL;
        mdl_md3_free(m->md3);
        m->md3 = NULL;
        free_md2(m);
        m->kind = R_KIND_MISSING;
    }
    return r;
}

/* The level of detail lod (1, 2) of slot m's MD3 name: ioquake3's R_RegisterMD3 reads
 * NAME_1.md3 and NAME_2.md3 beside NAME.md3. Kept only when alike: as many frames (the
 * animations index them) and the same surfaces in the same order (skins and materials
 * go by surface); else, or when missing, the lower levels stand in. Only running out of
 * memory is an error. */
static qd_err load_lod(r_model *m, const char *name, int lod, mdl_read_fn read, void *ctx,
                       r_assets *a, qd_error *err)
{
    size_t n = strlen(name);
    if (n < 4 || n + 3 > CL_NAME_LEN || !ends_with(name, ".md3"))
        return QD_OK;
    char lname[CL_NAME_LEN + 4];
    snprintf(lname, sizeof lname, "%.*s_%d.md3", (int)(n - 4), name, lod);
    uint8_t *data;
    size_t len;
    qd_error e = {0};
    qd_err r = read_file(read, ctx, lname, &data, &len, &e);
    if (r != QD_OK)
        return r == QD_ERR_NOMEM ? r : QD_OK;
    if (len > a->model_room) { /* (past the level's room: the lower levels stand in) */
        free(data);
        m->lod_cut = 1;
        return QD_OK;
    }
    mdl_md3 *l = NULL;
    r = mdl_md3_load(data, len, lname, &l, &e);
    free(data);
    r_damaged_aside(err, r, &e);
    if (r != QD_OK)
        return r == QD_ERR_NOMEM ? r : QD_OK;
    int alike = l->num_frames == m->md3->num_frames &&
                l->num_surfaces == m->md3->num_surfaces;
    uint32_t *map = alike ? malloc((l->num_surfaces + 1u) * sizeof *map) : NULL;
    if (alike && !map) {
        mdl_md3_free(l);
        return QD_ERR_NOMEM;
    }
    /* each surface of the level is the base's of the same name (OpenArena's list them in
     * another order); a name found twice or not at all and the level is not used */
    for (uint32_t i = 0; alike && i < l->num_surfaces; i++) {
        uint32_t hits = 0;
        for (uint32_t k = 0; k < m->md3->num_surfaces; k++)
            if (strncmp(l->surfaces[i].name, m->md3->surfaces[k].name,
                        sizeof l->surfaces[i].name) == 0) {
                map[i] = k;
                hits++;
            }
        alike = hits == 1;
    }
    if (!alike) {
        free(map);
        mdl_md3_free(l);
        return QD_OK;
    }
    m->lod[lod - 1] = l;
    m->lod_surf[lod - 1] = map;
    a->model_room -= len;
    m->cost += len;
    return QD_OK;
}

/* The first slot before i, not itself shared, whose kind is in kinds (a mask of 1 << r_kind)
 * and whose name is slot i's, or 0: the mesh of an MD3 or MD2 slot, or the file a brush
 * model, alias model or sprite was loaded from (or failed to load from: R_KIND_MISSING),
 * each read-only once loaded. A demo may name one file in every slot (a review: 4,000
 * slots of one sprite of 1 MB took 4.5 GB and 41 s). */
static int first_of(const r_assets *a, char (*names)[CL_NAME_LEN], int i, unsigned kinds)
{
    for (int j = 1; j < i; j++)
        if ((kinds >> a->models[j].kind & 1) && !a->models[j].shared &&
            strcmp(names[j], names[i]) == 0)
            return j;
    return 0;
}

/* names[0..n) as the search path reads them (pak_name_normalize: "Progs/X.mdl",
 * "./progs//x.mdl" and "progs/x.mdl" are one file; a review: each spelling decoded the file
 * again), for first_of; a name that names no file is kept as it is. */
static void file_keys(char (*names)[CL_NAME_LEN], char (*keys)[CL_NAME_LEN], int n)
{
    char buf[PAK_MAX_NAME + 1];
    for (int i = 0; i < n; i++) {
        int len = pak_name_normalize(names[i], strnlen(names[i], CL_NAME_LEN), buf, sizeof buf);
        if (len > 0 && len < CL_NAME_LEN)
            memcpy(keys[i], buf, (size_t)len + 1);
        else
            memcpy(keys[i], names[i], CL_NAME_LEN);
    }
}

/* m's surfaces' own shader names, in a new array (NULL: no memory). */
static char (*md3_shaders(const mdl_md3 *m))[64]
{
    char(*s)[64] = calloc(m->num_surfaces + 1u, sizeof *s);
    for (uint32_t i = 0; s && i < m->num_surfaces; i++)
        memcpy(s[i], m->surfaces[i].shader, sizeof s[i]);
    return s;
}

/* A player's skin, slot si (the name r_q3_players found), applied to the MD3 of slot
 * si - CL_SKIN_SLOTS; one that is not there counts as missing (the surfaces keep their own
 * shaders). Returns QD_ERR_NOMEM only when memory runs out. */
static qd_err apply_skin(r_assets *a, int si, const char *name, mdl_read_fn read, void *ctx,
                         qd_error *err)
{
    r_model *m = &a->models[si - CL_SKIN_SLOTS];
    if (m->kind != R_KIND_MD3)
        return QD_OK; /* no mesh: its own absence is the problem to report */
    uint8_t *data;
    size_t len;
    qd_error e = {0};
    qd_err r = read_file(read, ctx, name, &data, &len, &e);
    if (r != QD_OK) {
        note(a, err, r, name, &e);
        return r == QD_ERR_NOMEM ? r : QD_OK;
    }
    e = (qd_error){0};
    r = mdl_md3_skin(m->md3, m->shaders, (const char *)data, len, name, &e);
    free(data);
    if (r == QD_ERR_NOMEM)
        return r;
    if (r != QD_OK)
        note(a, err, r, name, &e);
    return QD_OK;
}

_Static_assert(CL_NAME_LEN == 64, "skin paths are model names");

/* Slot name's skin as the first of cgame's names for it that can be read: 1 and name
 * rewritten, 0 when none can, -1 when name is not a player's skin slot. */
static int resolve_skin(char name[CL_NAME_LEN], mdl_read_fn read, void *ctx)
{
    char paths[4][64];
    int n = mdl_player_skin_paths(name, paths, 4);
    if (!n)
        return -1;
    for (int k = 0; k < n; k++) {
        uint8_t *data;
        size_t len;
        qd_error e = {0};
        if (read_file(read, ctx, paths[k], &data, &len, &e) == QD_OK) {
            free(data);
            memcpy(name, paths[k], sizeof paths[k]);
            return 1;
        }
    }
    return 0;
}

void r_q3_players(char (*names)[CL_NAME_LEN], int n, mdl_read_fn read, void *ctx)
{
    static const char *const mesh[3] = {"lower", "upper", "head"};
    for (int i = 1; i + 2 + CL_SKIN_SLOTS < n; i++) {
        char(*sk)[CL_NAME_LEN] = names + i + CL_SKIN_SLOTS;
        if (!ends_with(names[i], "/lower.md3") || !ends_with(names[i + 1], "/upper.md3") ||
            !ends_with(names[i + 2], "/head.md3") || !sk[0][0])
            continue;
        int found = 0, form = 1;
        char first[3][CL_NAME_LEN]; /* as named, for the fallback's names */
        memcpy(first, sk, sizeof first);
        for (int k = 0; k < 3; k++) {
            int r = resolve_skin(sk[k], read, ctx);
            found += r == 1;
            form &= r >= 0;
        }
        if (form && found < 3) {
            /* cg_players.c CG_LoadClientInfo: a player whose skins are not all there is
             * drawn as DEFAULT_MODEL ("sarge", cg_local.h) */
            char fb[3][64];
            int ok = 1;
            for (int k = 0; k < 3; k++)
                ok &= mdl_player_fallback_skin(first[k], "sarge", fb[k]);
            for (int k = 0; ok && k < 3; k++) {
                snprintf(names[i + k], CL_NAME_LEN, "models/players/sarge/%s.md3", mesh[k]);
                memcpy(sk[k], fb[k], sizeof fb[k]);
                resolve_skin(sk[k], read, ctx);
            }
        }
        i += 2;
    }
}

/* A player's legs ("models/players/M/lower.md3"): the animations of M's animation.cfg.
 * Without one (or a damaged one) the body shows its first frames. QD_ERR_NOMEM only when
 * memory runs out. */
static qd_err load_anims(r_model *m, const char *name, mdl_read_fn read, void *ctx,
                         qd_error *err)
{
    if (!ends_with(name, "/lower.md3"))
        return QD_OK;
    char *cfg = swap_tail(name, strlen("lower.md3"), "animation.cfg");
    if (!cfg)
        return QD_ERR_NOMEM;
    uint8_t *data;
    size_t len;
    qd_error e = {0};
    qd_err r = read_file(read, ctx, cfg, &data, &len, &e);
    if (r != QD_OK) {
        free(cfg);
        return r == QD_ERR_NOMEM ? r : QD_OK;
    }
    m->anims = calloc(MDL_ANIM_COUNT, sizeof *m->anims);
    r = m->anims ? mdl_anims_parse((const char *)data, len, cfg, m->anims, &e) : QD_ERR_NOMEM;
    free(data);
    free(cfg);
    r_damaged_aside(err, r, &e);
    if (r != QD_OK) {
        free(m->anims);
        m->anims = NULL;
    }
    return r == QD_ERR_NOMEM ? r : QD_OK;
}

/* The sky's two layers from the map's 256x128 sky texture (the last one, as Quake's
 * R_InitSky is run for each): the right half is the back layer, the left half the front,
 * whose index 0 is see-through. */
static void sky_layers(r_assets *a)
{
    const mdl_bsp *b = a->world.bsp;
    a->sky_flat = rast_rgb(96, 104, 140);
    for (uint32_t i = 0; b && i < b->num_textures; i++) {
        const mdl_texture *t = &b->textures[i];
        if (!(t->flags & MDL_SURF_SKY))
            continue;
        a->sky_flat = t->color | 0xff000000u;
        if (!t->mips[0] || t->width != 256 || t->height != 128)
            continue;
        for (int y = 0; y < 128; y++)
            for (int x = 0; x < 128; x++) {
                uint8_t f = t->mips[0][y * 256 + x], k = t->mips[0][y * 256 + 128 + x];
                a->sky_back[y * 128 + x] = a->palette[k] | 0xff000000u;
                a->sky_front[y * 128 + x] = f ? a->palette[f] | 0xff000000u : 0;
            }
        a->sky_ok = 1;
    }
}

/* The coloured light of a Quake map: "maps/x.lit" beside "maps/x.bsp", the "QLIT" header,
 * version 1, then R, G, B for every byte of the map's lightdata (the format of the .lit
 * files that MHColour, ericw-tools' light -lit and the id-maps-gpl builds write; its use is
 * described in QuakeSpasm's and ezQuake's loaders). Any other size is not for this map. */
static void load_lit(r_bsp *rb, const char *map, mdl_read_fn read, void *ctx)
{
    const mdl_bsp *b = rb->bsp;
    size_t n = strlen(map);
    if (!b || b->format > MDL_BSP_Q1_2PSB || b->light_len == 0 || n < 4 ||
        strcmp(map + n - 4, ".bsp") != 0)
        return;
    char *name = malloc(n + 1);
    if (!name)
        return;
    memcpy(name, map, n - 4);
    memcpy(name + n - 4, ".lit", 5);
    uint8_t *data;
    size_t len;
    qd_error e = {0};
    if (read_file(read, ctx, name, &data, &len, &e) == QD_OK) {
        if (len >= 8 && memcmp(data, "QLIT", 4) == 0 && data[4] == 1 && !data[5] && !data[6] &&
            !data[7] && (len - 8) / 3 == b->light_len && (len - 8) % 3 == 0 &&
            (rb->lit = malloc(len - 8)))
            memcpy(rb->lit, data + 8, len - 8);
        free(data);
    }
    free(name);
}

/* ---- Quake II map textures ----
 * A Quake II map names its textures, which live in the game's archives as
 * textures/<name>.wal (yquake2 src/common/header/files.h miptex_t: a 32-byte name, width,
 * height, four mip offsets, a 32-byte next-frame name, flags, contents, value: 100 bytes,
 * then 8-bit indices), coloured through the palette of pics/colormap.pcx (its last 769
 * bytes: a 12, then 256 RGB triples; yquake2 VID_GetPalette). A texture the search path
 * lacks becomes a 16 x 16 of the palette colour nearest the colour its name was given, so
 * its faces still take their lightmaps. Decoded textures are held up to Q2_TEX_BUDGET
 * bytes; past it, the rest are solid. */
#define Q2_TEX_BUDGET ((size_t)64 << 20)
#define Q2_SOLID_SIDE 16

static uint8_t nearest_index(const uint32_t palette[256], uint32_t c)
{
    int best = 0;
    long best_d = -1;
    for (int i = 0; i < 256; i++) {
        long d = 0;
        for (int k = 0; k < 3; k++) {
            long x = (long)(palette[i] >> (8 * k) & 255) - (long)(c >> (8 * k) & 255);
            d += x * x;
        }
        if (best_d < 0 || d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return (uint8_t)best;
}

static void q2_palette(r_assets *a, mdl_read_fn read, void *ctx)
{
    uint8_t *pcx;
    size_t len;
    qd_error e = {0};
    if (read_file(read, ctx, "pics/colormap.pcx", &pcx, &len, &e) != QD_OK)
        return;
    if (len >= 128 + 769 && pcx[len - 769] == 12) {
        const uint8_t *p = pcx + len - 768;
        for (int i = 0; i < 256; i++)
            a->palette[i] = (uint32_t)p[3 * i] | (uint32_t)p[3 * i + 1] << 8 |
                            (uint32_t)p[3 * i + 2] << 16;
        r_surf_lut(a);
    }
    free(pcx);
}

typedef struct named {
    const char *name;
    uint32_t index;
} named;

static int by_name(const void *x, const void *y)
{
    const named *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : a->index < b->index ? -1 : a->index > b->index;
}

static void q2_textures(r_assets *a, mdl_read_fn read, void *ctx)
{
    mdl_bsp *b = (mdl_bsp *)a->world.bsp;
    if (!b || b->format != MDL_BSP_Q2_38 || !b->num_textures || b->texdata)
        return;
    q2_palette(a, read, ctx);
    uint32_t n = b->num_textures;
    uint8_t **wal = calloc(n, sizeof *wal);
    size_t *size = calloc(n, sizeof *size);
    int32_t *same = malloc(n * sizeof *same); /* an earlier texture of the same name, or -1 */
    uint32_t(*wofs)[4] = malloc(n * sizeof *wofs); /* a WAL's level offsets (mdl_wal_check) */
    if (!wal || !size || !same || !wofs)
        goto out;
    /* texinfo share names: each name is read once, for its first texinfo (sorted by name,
     * then index: n log n, as a hostile map may hold 65536) */
    named *by = malloc(n * sizeof *by);
    if (!by)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        by[i].name = b->textures[i].name;
        by[i].index = i;
    }
    qsort(by, n, sizeof *by, by_name);
    for (uint32_t k = 0, first = 0; k < n; k++) {
        if (k && strcmp(by[k].name, by[k - 1].name))
            first = k;
        same[by[k].index] = k == first ? -1 : (int32_t)by[first].index;
    }
    free(by);
    size_t total = 0, decoded = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (same[i] >= 0)
            continue;
        char name[96];
        size_t len = 0;
        uint32_t w, h;
        qd_error e = {0};
        size[i] = Q2_SOLID_SIDE * Q2_SOLID_SIDE * 85 / 64; /* the four solid levels */
        if (b->textures[i].name[0] &&
            snprintf(name, sizeof name, "textures/%s.wal", b->textures[i].name) <
                (int)sizeof name &&
            read_file(read, ctx, name, &wal[i], &len, &e) == QD_OK) {
            size_t t = mdl_wal_check(wal[i], len, &w, &h, wofs[i]);
            if (t && decoded + t <= Q2_TEX_BUDGET) {
                size[i] = t;
                decoded += t;
                b->textures[i].width = w; /* the levels' sizes, read below */
                b->textures[i].height = h;
            } else {
                free(wal[i]);
                wal[i] = NULL;
            }
        }
        total += size[i];
    }
    b->texdata = malloc(total ? total : 1);
    if (!b->texdata)
        goto out;
    size_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        mdl_texture *t = &b->textures[i];
        if (same[i] >= 0) {
            const mdl_texture *o = &b->textures[same[i]];
            t->width = o->width;
            t->height = o->height;
            memcpy(t->mips, o->mips, sizeof t->mips);
            continue;
        }
        uint8_t *dst = b->texdata + at;
        if (t->flags & MDL_SURF_SKY) { /* drawn from the env box, never from its texture */
            at += size[i];
            continue;
        }
        if (wal[i]) {
            for (int k = 0; k < 4; k++) {
                size_t m = (size_t)(t->width >> k) * (size_t)(t->height >> k);
                memcpy(dst, wal[i] + wofs[i][k], m);
                t->mips[k] = dst;
                dst += m;
            }
        } else {
            t->width = t->height = Q2_SOLID_SIDE;
            uint8_t c = nearest_index(a->palette, t->color);
            for (int k = 0; k < 4; k++) {
                size_t m = (size_t)(Q2_SOLID_SIDE >> k) * (size_t)(Q2_SOLID_SIDE >> k);
                memset(dst, c, m);
                t->mips[k] = dst;
                dst += m;
            }
        }
        at += size[i];
    }
out:
    for (uint32_t i = 0; wal && i < n; i++)
        free(wal[i]);
    free(wal);
    free(size);
    free(same);
    free(wofs);
}

/* A Quake II map's sky box (yquake2 RI_SetSky: env/<name><suffix>, suffixes rt bk lf ft up
 * dn; a .tga, else the 8-bit .pcx through its own palette). Sides in r_sky_box_texel's
 * order: +x rt, -x lf, +y bk, -y ft, +z up, -z dn. Drawn only when all six load; a side
 * over Q2_SKY_MAX_SIDE each way (Quake II's are 256) is refused. */
#define Q2_SKY_MAX_SIDE 1024
static void q2_sky_box(r_assets *a, const char *sky, mdl_read_fn read, void *ctx,
                       qd_error *err)
{
    static const char *const suffix[6] = {"rt", "lf", "bk", "ft", "up", "dn"};
    for (int k = 0; k < 6; k++) { /* (a level's sky named again: r_assets_set_sky) */
        free(a->box[k]);
        a->box[k] = NULL;
    }
    a->box_ok = 0;
    snprintf(a->sky, sizeof a->sky, "%s", sky);
    const mdl_bsp *b = a->world.bsp;
    if (!b || b->format != MDL_BSP_Q2_38 || !sky[0])
        return;
    int got = 0;
    for (int k = 0; k < 6; k++) {
        char name[96];
        qd_error e = {0};
        mdl_image *im = NULL;
        uint8_t *data;
        size_t len;
        if (snprintf(name, sizeof name, "env/%s%s.tga", sky, suffix[k]) >= (int)sizeof name)
            return;
        /* each side's size checked before it is decoded (a review: six 4096 x 4096 sides
         * took 3 s a level to be refused) */
        if (read_file(read, ctx, name, &data, &len, &e) == QD_OK) {
            if (mdl_image_load_max(data, len, name, Q2_SKY_MAX_SIDE, &im, &e) == QD_OK) {
                size_t n = (size_t)im->w * im->h;
                a->box[k] = malloc(n * sizeof *a->box[k]);
                if (a->box[k]) {
                    for (size_t i = 0; i < n; i++)
                        a->box[k][i] = im->pixels[i] | 0xff000000u;
                    a->box_w[k] = (int)im->w;
                    a->box_h[k] = (int)im->h;
                }
            }
            mdl_image_free(im);
            free(data);
        }
        if (!a->box[k]) {
            mdl_pcx *p = NULL;
            qd_error tga = e; /* (said when the .pcx is not there either) */
            e = (qd_error){0};
            snprintf(name, sizeof name, "env/%s%s.pcx", sky, suffix[k]);
            if (read_file(read, ctx, name, &data, &len, &e) != QD_OK) {
                r_damaged_aside(err, tga.code, &tga); /* (a review: silent) */
            } else {
                if (mdl_pcx_pixels(data, len) > (uint64_t)Q2_SKY_MAX_SIDE * Q2_SKY_MAX_SIDE)
                    qd_fail(&e, QD_ERR_LIMIT, 4, "%s: over %d x %d", name, Q2_SKY_MAX_SIDE,
                            Q2_SKY_MAX_SIDE);
                else if (mdl_pcx_load(data, len, name, &p, &e) == QD_OK &&
                         (p->w > Q2_SKY_MAX_SIDE || p->h > Q2_SKY_MAX_SIDE))
                    qd_fail(&e, QD_ERR_LIMIT, 4, "%s: over %d x %d", name, Q2_SKY_MAX_SIDE,
                            Q2_SKY_MAX_SIDE);
                else if (p) {
                    size_t n = (size_t)p->w * p->h;
                    a->box[k] = malloc(n * sizeof *a->box[k]);
                    for (size_t i = 0; a->box[k] && i < n; i++)
                        a->box[k][i] = p->palette[p->pixels[i]] | 0xff000000u;
                    a->box_w[k] = (int)p->w;
                    a->box_h[k] = (int)p->h;
                }
                if (!a->box[k])
                    r_damaged_aside(err, e.code, &e);
                mdl_pcx_free(p);
                free(data);
            }
        }
        got += a->box[k] != NULL;
    }
    a->box_ok = got == 6;
}

/* gfx/colormap.lmp: 64 rows of 256 palette indices (id's file has one byte more). */
static void load_colormap(r_assets *a, mdl_read_fn read, void *ctx, qd_error *err)
{
    uint8_t *data;
    size_t len;
    qd_error e = {0};
    if (read_file(read, ctx, "gfx/colormap.lmp", &data, &len, &e) != QD_OK)
        return;
    if (len >= sizeof a->colormap) {
        memcpy(a->colormap, data, sizeof a->colormap);
        a->colormap_ok = 1;
    } else { /* (a review: one cut short was left out in silence) */
        qd_fail(&e, QD_ERR_TRUNCATED, len, "gfx/colormap.lmp: %zu bytes, a light table needs %zu",
                len, sizeof a->colormap);
        r_damaged_aside(err, e.code, &e);
    }
    free(data);
}

/* A Quake III weapon's flash, hand or barrel model (q3.c registers them for every weapon at
 * slot + CL_FLASH_SLOTS, CL_HAND_SLOTS, CL_BARREL_SLOTS): cgame loads them without a word
 * when they are not there (the gauntlet and the grapple have no flash in OpenArena, most
 * weapons no barrel), so neither does this. */
static int optional_flash(int slot, const char *name)
{
    if (slot >= CL_Q3_IMPACT_MODELS && slot <= CL_Q3_TELEPORT_MODEL)
        return 1; /* (the impacts', gibs', brass and items' second models: cgame registers
                   * them so; OpenArena has no invis_ring.md3) */
    return slot > CL_FLASH_SLOTS && (ends_with(name, "_flash.md3") ||
                                     ends_with(name, "_hand.md3") ||
                                     ends_with(name, "_barrel.md3"));
}

/* Frees what r_assets_load built so far and says why. */
static r_assets *out_of_memory(r_assets *a, void *names, qd_error *err)
{
    free(names);
    r_assets_free(a);
    qd_fail(err, QD_ERR_NOMEM, 0, "asset set: out of memory");
    return NULL;
}

/* The slot of donor's that owns an MD3 model loaded from name (not given away yet), or 0;
 * not one whose levels of detail the room cut (a review: a load with more room would hold
 * them, so the model given differed from a fresh load's). */
static int donor_md3(const r_assets *donor, const char *name)
{
    for (int j = 1; donor && donor->names && j < donor->num_models; j++)
        if (donor->models[j].kind == R_KIND_MD3 && !donor->models[j].shared &&
            !donor->models[j].lod_cut && !strcmp(donor->names[j], name))
            return j;
    return 0;
}

static r_assets *assets_load(const cl_level *lvl, mdl_read_fn read, void *ctx,
                             const uint32_t palette[256], qd_error *err, int lean,
                             r_assets *donor)
{
    static _Atomic uint64_t serials;
    if (err) {
        err->code = QD_OK;
        err->offset = 0;
        err->msg[0] = 0;
    }
    r_assets *a = calloc(1, sizeof *a);
    if (a) {
        a->skin_room = R_SKIN_ROOM;
        a->model_room = r_model_room;
    }
    if (!a) {
        qd_fail(err, QD_ERR_NOMEM, 0, "asset set: out of memory");
        return NULL;
    }
    qd_error e = {0};
    a->serial = ++serials;
    a->lean = lean;
    if (palette)
        memcpy(a->palette, palette, sizeof a->palette);
    else
        mdl_palette_grey(a->palette);
    load_colormap(a, read, ctx, &a->pic_damaged);
    r_surf_lut(a);
    snprintf(a->map_name, sizeof a->map_name, "%s", lvl->map);
    /* the same Quake III map from the set loaded before: taken whole, with what was made of
     * it (its faces' colours, triangle runs), as loading it again would make it */
    int carried = donor && !lean && !donor->lean && donor->world.bsp &&
                  donor->world.bsp->format == MDL_BSP_Q3_46 && lvl->map[0] &&
                  !strcmp(donor->map_name, lvl->map);
    if (carried) {
        a->world = donor->world;
        memset(&donor->world, 0, sizeof donor->world);
    } else if (!lvl->map[0]) {
        snprintf(a->notice, sizeof a->notice, "NO MAP");
    } else {
        uint8_t *data;
        size_t len;
        qd_err r = read_file(read, ctx, lvl->map, &data, &len, &e);
        if (r == QD_OK) {
            r = lean ? mdl_bsp_load_names(data, len, lvl->map, &a->world.bsp, &e)
                     : mdl_bsp_load(data, len, lvl->map, palette, &a->world.bsp, &e);
            free(data);
        }
        if (r == QD_OK && !lean && colour_faces(&a->world) != QD_OK) {
            free_bsp(&a->world);
            return out_of_memory(a, NULL, err);
        }
        if (r == QD_OK && !lean)
            r_q3_groups(&a->world); /* (without memory: drawn as triangles) */
        if (r != QD_OK) {
            note(a, err, r, lvl->map, &e);
            snprintf(a->notice, sizeof a->notice, "MAP %s: %s",
                     r == QD_ERR_NOT_FOUND ? "NOT FOUND" : "UNREADABLE", lvl->map);
        }
    }

    load_lit(&a->world, lvl->map, read, ctx);
    q2_textures(a, read, ctx);
    if (a->world.bsp && !lean && !carried) /* (after Quake II's .wal files: the pixels are
                                            * final; a carried map had it done) */
        (void)same_textures(&a->world); /* (without memory: each index its own copy) */
    q2_sky_box(a, lvl->sky, read, ctx, err);
    sky_layers(a);
    int n = lvl->num_models;
    n = n < 0 ? 0 : n > CL_MAX_MODELS ? CL_MAX_MODELS : n;
    /* Quake II: the client's explosion models in two slots past the level's (Q2_EXPLODE) */
    static const char *const q2_explode[2] = {"models/objects/r_explode/tris.md2",
                                              "models/objects/r_explode2/tris.md2"};
    int extra = lvl->game == CL_GAME_Q2 && !lean ? 2 : 0, base = n > 0 ? n : 1;
    a->num_models = extra ? base + extra : n;
    a->models = calloc(a->num_models ? (size_t)a->num_models : 1, sizeof *a->models);
    if (!a->models)
        return out_of_memory(a, NULL, err);
    /* the names as loaded: Quake III players as cgame finds them */
    /* (and after them the same names as file keys, file_keys) */
    char(*names)[CL_NAME_LEN] =
        malloc((a->num_models ? (size_t)a->num_models : 1) * 2 * CL_NAME_LEN);
    if (!names)
        return out_of_memory(a, NULL, err);
    if (n)
        memcpy(names, lvl->models, (size_t)n * CL_NAME_LEN);
    if (extra && !n)
        names[0][0] = 0; /* (slot 0 is never loaded) */
    for (int k = 0; k < extra; k++) {
        snprintf(names[base + k], CL_NAME_LEN, "%s", q2_explode[k]);
        a->q2_explode[k] = base + k;
    }
    r_q3_players(names, a->num_models, read, ctx);
    char(*keys)[CL_NAME_LEN] = names + (a->num_models ? a->num_models : 1);
    file_keys(names, keys, a->num_models);
    for (int i = 1; i < a->num_models; i++) {
        r_model *m = &a->models[i];
        const char *name = names[i];
        if (!name[0] || name[0] == '#')
            continue; /* "#w_x.md2": a Quake II view weapon's name, not a file (q2.c) */
        if (strcmp(name, lvl->map) == 0) {
            m->kind = R_KIND_WORLD;
            continue;
        }
        if (ends_with(name, ".skin") || (i > CL_SKIN_SLOTS && ends_with(name, ".pcx")))
            continue; /* applied to its mesh below */
        long sub = submodel_number(name);
        if (sub >= 0) {
            if (a->world.bsp && sub > 0 && (unsigned long)sub < a->world.bsp->num_models) {
                m->kind = R_KIND_SUBMODEL;
                m->sub = (uint32_t)sub;
            } else {
                m->kind = R_KIND_MISSING;
                if (a->world.bsp) /* without a map its submodels are part of that problem */
                    note(a, err, QD_ERR_BAD_DATA, name, NULL);
            }
            continue;
        }
        e = (qd_error){0};
        qd_err r = QD_OK;
        int same = ends_with(name, ".md3") ? first_of(a, keys, i, 1u << R_KIND_MD3) : 0;
        /* the donor's slot whose model this one takes (charged as when it was read) */
        int given = ends_with(name, ".md3") && !same ? donor_md3(donor, name) : 0;
        if (given && donor->models[given].cost > a->model_room)
            given = 0;
        int same2 = ends_with(name, ".md2") ? first_of(a, keys, i, 1u << R_KIND_MD2) : 0;
        int same3 = same || same2 ? 0
                                  : first_of(a, keys, i,
                                             1u << R_KIND_BRUSH | 1u << R_KIND_ALIAS |
                                                 1u << R_KIND_SPRITE | 1u << R_KIND_MISSING);
        if (same3 && a->models[same3].kind == R_KIND_MISSING) {
            m->kind = R_KIND_MISSING; /* (said once, for the first) */
            continue;
        }
        if (same3) { /* the file's model, sprite or brushes, loaded once */
            *m = a->models[same3];
            m->shared = 1;
            continue;
        }
        if (same) { /* every player of one model: its mesh loaded once */
            *m = a->models[same];
            m->shared = 1;
            m->shaders = NULL;
            m->mats = NULL;
        } else if (same2) { /* likewise for Quake II players, each with its own skins */
            *m = a->models[same2];
            m->shared = 1;
            m->skins = NULL;
            m->num_skins = 0;
            m->own_skin = 0;
            r = md2_skins(m, read, ctx, a);
        } else if (given) {
            /* the MD3 model the set before loaded from this name, with its levels of detail
             * and animations; its skins and materials made again as for a fresh load */
            r_model *d = &donor->models[given];
            m->kind = R_KIND_MD3;
            m->md3 = d->md3;
            m->lod[0] = d->lod[0], m->lod[1] = d->lod[1];
            m->lod_surf[0] = d->lod_surf[0], m->lod_surf[1] = d->lod_surf[1];
            m->anims = d->anims;
            m->weapon = d->weapon;
            m->cost = d->cost; /* (charged as when it was read) */
            a->model_room -= d->cost;
            d->shared = 1; /* (donor frees it no more) */
        } else {
            r = load_model(m, name, read, ctx, palette, a, &e);
        }
        if (r == QD_OK && m->kind == R_KIND_MD3 && !(m->shaders = md3_shaders(m->md3)))
            return out_of_memory(a, names, err);
        char *male = r == QD_ERR_NOT_FOUND ? male_fallback(name) : NULL;
        if (male) { /* a Quake II player model that is not there: male's, as the game does */
            qd_error me = {0};
            qd_err mr = load_model(m, male, read, ctx, palette, a, &me);
            free(male);
            if (mr == QD_OK)
                m->male = 1;
            else if (mr == QD_ERR_NOMEM)
                r = mr;
        }
        if (r == QD_ERR_NOT_FOUND && strncmp(name, "sprites/", 8) == 0 && !strchr(name, '.')) {
            /* no such file: a Quake III shader, resolved with the map's textures */
            m->kind = R_KIND_Q3SPRITE;
            if (!(m->shader = strdup(name)))
                return out_of_memory(a, names, err);
            continue;
        }
        if (r == QD_ERR_NOMEM)
            return out_of_memory(a, names, err);
        if (r != QD_OK && !(r == QD_ERR_NOT_FOUND && (optional_flash(i, name) || i >= n)))
            note(a, err, r, name, &e);
        if (r == QD_OK && m->kind == R_KIND_MD3 && !m->shared && !given &&
            (load_anims(m, name, read, ctx, err) != QD_OK ||
             load_lod(m, name, 1, read, ctx, a, err) != QD_OK ||
             (m->lod[0] && load_lod(m, name, 2, read, ctx, a, err) != QD_OK)))
            return out_of_memory(a, names, err);
    }
    for (int i = 1; i < a->num_models; i++)
        for (int k = 0; k < 2; k++)
            if (!a->flag_model[k] && a->models[i].kind == R_KIND_MD3 &&
                !strcmp(names[i], k ? "models/flags/b_flag.md3" : "models/flags/r_flag.md3"))
                a->flag_model[k] = i;
    for (int i = CL_SKIN_SLOTS + 1; i < a->num_models; i++)
        if ((ends_with(names[i], ".skin") && apply_skin(a, i, names[i], read, ctx, err) != QD_OK) ||
            (ends_with(names[i], ".pcx") && apply_pcx(a, i, names[i], read, ctx, err) != QD_OK))
            return out_of_memory(a, names, err);
    /* a skin or a sprite's picture there but damaged, drawn flat (a review: not said) */
    r_damaged_aside(err, a->pic_damaged.code, &a->pic_damaged);
    a->names = names; /* (kept for a load that takes from this set) */
    return a;
}

r_assets *r_assets_load(const cl_level *lvl, mdl_read_fn read, void *ctx,
                        const uint32_t palette[256], qd_error *err)
{
    return assets_load(lvl, read, ctx, palette, err, 0, NULL);
}

r_assets *r_assets_load_from(const cl_level *lvl, mdl_read_fn read, void *ctx,
                             const uint32_t palette[256], qd_error *err, r_assets *donor)
{
    return assets_load(lvl, read, ctx, palette, err, 0, donor);
}

r_assets *r_assets_load_names(const cl_level *lvl, mdl_read_fn read, void *ctx,
                              qd_error *err)
{
    return assets_load(lvl, read, ctx, NULL, err, 1, NULL);
}

void r_assets_free(r_assets *a)
{
    if (!a)
        return;
    for (int k = 0; k < 6; k++)
        free(a->box[k]);
    free_bsp(&a->world);
    r_q3_free(a->q3);
    for (int i = 0; a->models && i < a->num_models; i++) {
        free_md2(&a->models[i]);
        if (!a->models[i].shared) {
            free_bsp(&a->models[i].brush);
            mdl_alias_free(a->models[i].alias);
            mdl_sprite_free(a->models[i].sprite);
            mdl_md3_free(a->models[i].md3);
            for (int k = 0; k < 2; k++) {
                mdl_md3_free(a->models[i].lod[k]);
                free(a->models[i].lod_surf[k]);
            }
            free(a->models[i].anims);
        }
        free(a->models[i].mats);
        free(a->models[i].shader);
        free(a->models[i].shaders);
    }
    free(a->models);
    free(a->names);
    free(a);
}

void r_assets_set_sky(r_assets *a, const char *sky, mdl_read_fn read, void *ctx,
                      qd_error *err)
{
    if (a && strcmp(a->sky, sky) != 0)
        q2_sky_box(a, sky, read, ctx, err);
}

const mdl_bsp *r_assets_map(const r_assets *a) { return a ? a->world.bsp : NULL; }

int r_assets_missing(const r_assets *a) { return a ? a->missing : 0; }
