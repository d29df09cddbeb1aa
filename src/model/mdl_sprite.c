/* mdl_sprite.c: loads Quake sprites (SPR, "IDSP" version 1) into mdl_sprite.
 *
 * Format facts: id's Quake source (GPL) spritegn.h (dsprite_t header, dspriteframe_t with
 * origin[2], width, height, then pixels; dspritegroup_t with a count and intervals) and the
 * frame geometry of Mod_LoadSpriteFrame in model.c: up = origin[1], down = origin[1] - height,
 * left = origin[0], right = origin[0] + width. */
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
    free(s);
}
