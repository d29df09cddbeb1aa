/* mdl_sprite.c: loads Quake sprites (SPR, "IDSP" version 1) into mdl_sprite.
 *
 * Format facts: id's Quake source (GPL) spritegn.h (dsprite_t header, dspriteframe_t with
 * origin[2], width, height, then pixels; dspritegroup_t with a count and intervals) and the
 * frame geometry of Mod_LoadSpriteFrame in model.c: up = origin[1], down = origin[1] - height,
 * left = origin[0], right = origin[0] + width. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rd.h"
#include "model_local.h"

#define IDSP_VERSION 1
#define HEADER_SIZE 36

static qd_err fail(qd_error *err, const char *name, qd_err code, uint64_t ofs, const char *what)
{
    return qd_fail(err, code, ofs, "%s: %s", name, what);
}

/* One picture; with f set its geometry and colour are kept. */
static qd_err read_picture(rd_t *r, const char *name, qd_error *err, mdl_sprite_frame *f,
                           const uint32_t palette[256])
{
    size_t at = r->pos;
    int32_t ox = rd_s32(r), oy = rd_s32(r);
    uint32_t w = rd_u32(r), h = rd_u32(r);
    if (r->err)
        return fail(err, name, QD_ERR_TRUNCATED, at, "frame header cut off");
    if (w > MDL_SPRITE_MAX_SIZE || h > MDL_SPRITE_MAX_SIZE)
        return fail(err, name, QD_ERR_LIMIT, at, "frame larger than the cap");
    if (ox < -65536 || ox > 65536 || oy < -65536 || oy > 65536)
        return fail(err, name, QD_ERR_BAD_DATA, at, "frame origin out of range");
    const uint8_t *px = rd_bytes(r, (size_t)w * h);
    if (!px)
        return fail(err, name, QD_ERR_TRUNCATED, at, "frame pixels cut off");
    if (f) {
        f->width = w;
        f->height = h;
        f->up = (float)oy;
        f->down = (float)oy - (float)h;
        f->left = (float)ox;
        f->right = (float)ox + (float)w;
        f->color = mdl_average_color(px, (size_t)w * h, palette, 1, &f->coverage);
        /* a copy of bytes the file holds: bounded by its size */
        size_t npx = (size_t)w * h;
        if (!(f->pixels = malloc(npx ? npx : 1)))
            return fail(err, name, QD_ERR_NOMEM, at, "frame pixels");
        memcpy(f->pixels, px, npx);
    }
    return QD_OK;
}

qd_err mdl_sprite_load(const uint8_t *data, size_t len, const char *name,
                       const uint32_t palette[256], mdl_sprite **out, qd_error *err)
{
    *out = NULL;
    if (!name)
        name = "sprite";
    if (!data)
        return fail(err, name, QD_ERR_USAGE, 0, "no data");
    if (len < HEADER_SIZE)
        return fail(err, name, QD_ERR_TRUNCATED, len, "shorter than a sprite header");
    if (memcmp(data, "IDSP", 4) != 0)
        return fail(err, name, QD_ERR_BAD_DATA, 0, "not a sprite (IDSP) file");
    rd_t r = rd_make(data, len);
    rd_skip(&r, 4);
    int32_t version = rd_s32(&r);
    if (version != IDSP_VERSION)
        return qd_fail(err, QD_ERR_UNSUPPORTED, 4, "%s: sprite version %d (only 1)", name,
                       version);
    int32_t type = rd_s32(&r);
    float radius = rd_f32(&r);
    uint32_t max_w = rd_u32(&r), max_h = rd_u32(&r), num_frames = rd_u32(&r);
    rd_skip(&r, 8); /* beamlength, synctype */
    if (num_frames == 0)
        return fail(err, name, QD_ERR_BAD_DATA, 24, "no frames");
    if (num_frames > MDL_SPRITE_MAX_FRAMES)
        return fail(err, name, QD_ERR_LIMIT, 24, "too many frames");
    /* Each frame holds at least its type and a picture header (4 + 16 bytes): the file must
     * have that much before the frames are allocated. */
    if ((uint64_t)num_frames * 20 > rd_left(&r))
        return fail(err, name, QD_ERR_TRUNCATED, HEADER_SIZE, "frames cut off");

    mdl_sprite *s = calloc(1, sizeof *s);
    if (!s)
        return fail(err, name, QD_ERR_NOMEM, 0, "sprite");
    mdl_copy_name(s->name, sizeof s->name, name, strlen(name));
    s->type = type;
    s->radius = radius;
    s->max_width = max_w;
    s->max_height = max_h;
    s->num_frames = num_frames;
    s->frames = mdl_calloc(num_frames, sizeof *s->frames);
    qd_err e = QD_OK;
    if (!s->frames) {
        e = fail(err, name, QD_ERR_NOMEM, 0, "sprite frames");
        goto fail;
    }
    uint32_t pictures = 0;
    for (uint32_t i = 0; i < num_frames && !e; i++) {
        size_t at = r.pos;
        int32_t ftype = rd_s32(&r);
        uint32_t n = 1;
        if (ftype != 0) {
            n = rd_u32(&r);
            if (r.err) {
                e = fail(err, name, QD_ERR_TRUNCATED, at, "frame group cut off");
                break;
            }
            if (n == 0 || n > MDL_SPRITE_MAX_FRAMES) {
                e = fail(err, name, n ? QD_ERR_LIMIT : QD_ERR_BAD_DATA, at, "bad frame group size");
                break;
            }
            rd_skip(&r, (size_t)n * 4); /* intervals */
        }
        if (pictures + n > MDL_SPRITE_MAX_FRAMES) {
            e = fail(err, name, QD_ERR_LIMIT, at, "too many pictures");
            break;
        }
        pictures += n;
        for (uint32_t j = 0; j < n && !e; j++)
            e = read_picture(&r, name, err, j == 0 ? &s->frames[i] : NULL, palette);
    }
    if (e)
        goto fail;
    s->color = s->frames[0].color;
    *out = s;
    return QD_OK;
fail:
    mdl_sprite_free(s);
    return e;
}

void mdl_sprite_free(mdl_sprite *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; s->frames && i < s->num_frames; i++)
        free(s->frames[i].pixels);
    free(s->frames);
    free(s->palette);
    free(s);
}

/* ---- Quake II sprites (SP2, "IDS2" version 2) ----
 * Format facts: yquake2 src/common/header/files.h dsprite_t (ident, version, numframes, then
 * numframes dsprframe_t: width, height, origin_x, origin_y as ints and a 64-byte PCX name)
 * and the quad of its GL renderer's R_DrawSpriteModel: from -origin_x to width - origin_x
 * along the view's right, -origin_y to height - origin_y along its up. */

#define SP2_HEADER 12
#define SP2_FRAME 80
#define SP2_NAME_SLOTS (2 * MDL_SPRITE_MAX_FRAMES) /* a power of two, over the frames */

/* What a picture costs, cost (its file's bytes and its pixels), taken from *budget and
 * from *room (NULL: none) when both hold it: 1, else 0 (neither changed). */
static int sp2_take(uint64_t cost, uint64_t *budget, uint64_t *room)
{
    if (cost > *budget || (room && cost > *room))
        return 0;
    *budget -= cost;
    if (room)
        *room -= cost;
    return 1;
}

/* The picture of frame f from the PCX named in the file; absent, damaged or past the bytes
 * left in *budget or *room: f keeps its geometry, no pixels, a grey colour. The first
 * picture's palette becomes the sprite's. */
static qd_err sp2_picture(mdl_sprite *s, mdl_sprite_frame *f, const char *pcx,
                          mdl_read_fn read, void *ctx, uint64_t *budget, uint64_t *room,
                          qd_error *aside)
{
    uint8_t *data = NULL;
    size_t len = 0;
    qd_error e = {0};
    f->color = MDL_GREY;
    if (*budget == 0 || (room && *room == 0))
        return QD_OK; /* (nothing left: not even read) */
    if (!read || read(ctx, pcx, &data, &len, &e) != QD_OK) {
        free(data);
        return e.code == QD_ERR_NOMEM ? QD_ERR_NOMEM : QD_OK;
    }
    /* the file's bytes and its pixels, before decoding (that is the time too); a file
     * past what is left still costs its bytes (a 2 MB file named by 4,096 frames: 8 GB
     * read, found by a review) */
    uint64_t cost = (uint64_t)len + mdl_pcx_pixels(data, len);
    if (!sp2_take(cost, budget, room)) {
        free(data);
        uint64_t spent = (uint64_t)len < *budget ? (uint64_t)len : *budget;
        *budget -= spent;
        if (room)
            *room -= (uint64_t)len < *room ? (uint64_t)len : *room;
        return QD_OK;
    }
    mdl_pcx *p = NULL;
    qd_err r = mdl_pcx_load(data, len, pcx, &p, &e);
    free(data);
    if (r != QD_OK && r != QD_ERR_NOMEM && aside && aside->code == QD_OK)
        *aside = e; /* (drawn grey; said: a review) */
    if (r != QD_OK)
        return r == QD_ERR_NOMEM ? r : QD_OK;
    if (!s->palette && (s->palette = malloc(256 * sizeof *s->palette)))
        memcpy(s->palette, p->palette, 256 * sizeof *s->palette);
    if (s->palette) {
        /* the picture's own size, placed by the frame's origin */
        f->right = f->left + (float)p->w;
        f->up = f->down + (float)p->h;
        f->width = p->w;
        f->height = p->h;
        f->pixels = p->pixels;
        p->pixels = NULL;
        f->color = mdl_average_color(f->pixels, (size_t)f->width * f->height, s->palette, 1,
                                     &f->coverage);
    }
    mdl_pcx_free(p);
    return s->palette ? QD_OK : QD_ERR_NOMEM;
}

/* Frame f's picture as frame g's, which was made from the same PCX: its pixels copied (at
 * the cost of its pixels), its size placed by f's origin. */
static qd_err sp2_copy(mdl_sprite_frame *f, const mdl_sprite_frame *g, uint64_t *budget,
                       uint64_t *room)
{
    f->color = MDL_GREY;
    if (!g->pixels)
        return QD_OK; /* (absent, damaged or past the room: so is this one) */
    size_t n = (size_t)g->width * g->height;
    if (!sp2_take(n, budget, room))
        return QD_OK;
    if (!(f->pixels = malloc(n)))
        return QD_ERR_NOMEM;
    memcpy(f->pixels, g->pixels, n);
    f->right = f->left + (float)g->width;
    f->up = f->down + (float)g->height;
    f->width = g->width;
    f->height = g->height;
    f->color = g->color;
    f->coverage = g->coverage;
    return QD_OK;
}

qd_err mdl_sp2_load(const uint8_t *data, size_t len, const char *name, mdl_read_fn read,
                    void *ctx, uint64_t *room, qd_error *aside, mdl_sprite **out,
                    qd_error *err)
{
    *out = NULL;
    name = name ? name : "sprite";
    if (!data || len < SP2_HEADER)
        return fail(err, name, QD_ERR_TRUNCATED, len, "shorter than an SP2 header");
    if (memcmp(data, "IDS2", 4) != 0)
        return fail(err, name, QD_ERR_BAD_DATA, 0, "not an SP2 (IDS2) sprite");
    rd_t r = rd_make(data, len);
    rd_skip(&r, 4);
    int32_t version = rd_s32(&r);
    uint32_t n = rd_u32(&r);
    if (version != 2)
        return fail(err, name, QD_ERR_UNSUPPORTED, 4, "SP2 version not 2");
    if (n == 0 || n > MDL_SPRITE_MAX_FRAMES)
        return fail(err, name, n ? QD_ERR_LIMIT : QD_ERR_BAD_DATA, 8,
                    "frame count zero or over the cap");
    if ((uint64_t)n * SP2_FRAME > len - SP2_HEADER)
        return fail(err, name, QD_ERR_TRUNCATED, SP2_HEADER, "frames past the end");
    mdl_sprite *s = calloc(1, sizeof *s);
    if (!s || !(s->frames = calloc(n, sizeof *s->frames))) {
        free(s);
        return fail(err, name, QD_ERR_NOMEM, 0, "out of memory");
    }
    mdl_copy_name(s->name, sizeof s->name, name, strlen(name));
    s->type = MDL_SPR_VP_PARALLEL;
    s->num_frames = n;
    qd_err e = QD_OK;
    uint64_t budget = MDL_PICTURES_MAX_PIXELS;
    /* the frames' picture names seen, each as its first frame + 1 (open addressing) */
    uint16_t *seen = calloc(SP2_NAME_SLOTS, sizeof *seen);
    if (!seen) {
        mdl_sprite_free(s);
        return fail(err, name, QD_ERR_NOMEM, 0, "out of memory");
    }
    for (uint32_t i = 0; i < n && !e; i++) {
        mdl_sprite_frame *f = &s->frames[i];
        size_t at = r.pos;
        uint32_t w = rd_u32(&r), h = rd_u32(&r);
        int32_t ox = rd_s32(&r), oy = rd_s32(&r);
        char pcx[65];
        mdl_copy_name(pcx, sizeof pcx, (const char *)rd_bytes(&r, 64), 64);
        if (w > MDL_SPRITE_MAX_SIZE || h > MDL_SPRITE_MAX_SIZE || ox < -MDL_SPRITE_MAX_SIZE ||
            ox > MDL_SPRITE_MAX_SIZE || oy < -MDL_SPRITE_MAX_SIZE || oy > MDL_SPRITE_MAX_SIZE) {
            e = fail(err, name, QD_ERR_LIMIT, at, "frame size or origin over the cap");
            break;
        }
        f->width = w;
        f->height = h;
        f->left = (float)-ox;
        f->right = (float)w - (float)ox;
        f->down = (float)-oy;
        f->up = (float)h - (float)oy;
        /* an earlier frame of the same picture (its 64 name bytes the same) */
        const uint8_t *key = data + at + 16;
        uint64_t hash = 14695981039346656037ull; /* FNV-1a */
        for (int k = 0; k < 64; k++)
            hash = (hash ^ key[k]) * 1099511628211ull;
        uint32_t slot = (uint32_t)hash & (SP2_NAME_SLOTS - 1), g = i;
        while (seen[slot] && g == i) {
            const uint8_t *other = data + SP2_HEADER + (size_t)(seen[slot] - 1) * SP2_FRAME + 16;
            if (memcmp(other, key, 64) == 0)
                g = seen[slot] - 1;
            slot = (slot + 1) & (SP2_NAME_SLOTS - 1);
        }
        if (g == i)
            seen[slot] = (uint16_t)(i + 1);
        e = g < i ? sp2_copy(f, &s->frames[g], &budget, room)
                  : sp2_picture(s, f, pcx, read, ctx, &budget, room, aside);
        if (e != QD_OK)
            fail(err, name, e, at, "out of memory");
        s->max_width = f->width > s->max_width ? f->width : s->max_width;
        s->max_height = f->height > s->max_height ? f->height : s->max_height;
        float rx = f->left * f->left > f->right * f->right ? f->left : f->right;
        float ry = f->down * f->down > f->up * f->up ? f->down : f->up;
        float rad = sqrtf(rx * rx + ry * ry);
        s->radius = rad > s->radius ? rad : s->radius;
    }
    free(seen);
    if (e) {
        mdl_sprite_free(s);
        return e;
    }
    s->color = s->frames[0].color;
    *out = s;
    return QD_OK;
}
