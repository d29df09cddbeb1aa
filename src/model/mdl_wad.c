/* mdl_wad.c: Quake's WAD2 picture archives (gfx.wad): the directory, and its pictures (qpic:
 * width, height, then that many palette indices) and the raw 128x128 conchars.
 *
 * Format facts: id's GPL Quake source, wad.h (wadinfo_t: identification "WAD2", numlumps,
 * infotableofs; lumpinfo_t: filepos, disksize, size, type, compression, pad[2], name[16];
 * TYP_QPIC 0x42, conchars stored raw as 128x128 bytes) and the qpic_t layout in wad.h. */
#include <stdlib.h>
#include <string.h>

#include "../common/rd.h"
#include "model_local.h"

#define WAD_TYP_QPIC 0x42
#define WAD_CONCHARS 16384 /* 128 x 128 */

static qd_err fail(qd_error *err, const char *name, qd_err code, uint64_t at, const char *why)
{
    return qd_fail(err, code, at, "%s: %s", name, why);
}

/* Names compared as mdl_wad_pic matches them: byte by byte with bit 0x20 set (so case
 * does not count). */
static int name_cmp(const char *a, const char *b)
{
    while (*a && *b && (*a | 0x20) == (*b | 0x20))
        a++, b++;
    int x = *a ? (*a | 0x20) & 255 : -1, y = *b ? (*b | 0x20) & 255 : -1;
    return (x > y) - (x < y);
}

static _Thread_local const mdl_pic *sort_pics; /* (qsort has no context argument) */

static int by_name(const void *x, const void *y)
{
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    int c = name_cmp(sort_pics[i].name, sort_pics[j].name);
    return c ? c : (i > j) - (i < j); /* the first of one name first */
}

qd_err mdl_wad_load(const uint8_t *data, size_t len, const char *name, mdl_wad **out,
                    qd_error *err)
{
    *out = NULL;
    name = name ? name : "wad";
    if (!data || len < 12)
        return fail(err, name, QD_ERR_TRUNCATED, len, "shorter than a WAD header");
    if (memcmp(data, "WAD2", 4) != 0)
        return fail(err, name, QD_ERR_BAD_DATA, 0, "not a WAD2 file");
    rd_t r = rd_make(data, len);
    rd_skip(&r, 4);
    uint32_t n = rd_u32(&r), dir = rd_u32(&r);
    if (n > MDL_WAD_MAX_LUMPS)
        return fail(err, name, QD_ERR_LIMIT, 4, "too many lumps");
    if (dir > len || (uint64_t)n * 32 > len - dir)
        return fail(err, name, QD_ERR_TRUNCATED, 8, "directory past the end");
    mdl_wad *w = calloc(1, sizeof *w);
    if (!w)
        return fail(err, name, QD_ERR_NOMEM, 0, "wad");
    /* The pictures point into one copy of the file; each is checked to lie inside it. */
    w->data = malloc(len);
    w->pics = mdl_calloc(n, sizeof *w->pics);
    if (!w->data || !w->pics) {
        mdl_wad_free(w);
        return fail(err, name, QD_ERR_NOMEM, 0, "wad");
    }
    memcpy(w->data, data, len);
    rd_t d = rd_make(data + dir, (size_t)n * 32);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pos = rd_u32(&d), disk = rd_u32(&d), size = rd_u32(&d);
        uint8_t type = rd_u8(&d), comp = rd_u8(&d);
        rd_skip(&d, 2);
        const uint8_t *nm = rd_bytes(&d, 16);
        (void)size;
        if (comp || pos > len || disk > len - pos)
            continue; /* compressed (never used by id) or outside the file: left out */
        mdl_pic *p = &w->pics[w->num_pics];
        mdl_copy_name(p->name, sizeof p->name, (const char *)nm, 16);
        if (type == WAD_TYP_QPIC && disk >= 8) {
            rd_t q = rd_make(data + pos, disk);
            uint32_t pw = rd_u32(&q), ph = rd_u32(&q);
            if (pw == 0 || ph == 0 || pw > MDL_WAD_MAX_PIC || ph > MDL_WAD_MAX_PIC ||
                (uint64_t)pw * ph > disk - 8)
                continue;
            p->width = pw;
            p->height = ph;
            p->pixels = w->data + pos + 8;
        } else if (disk == WAD_CONCHARS) {
            p->width = p->height = 128;
            p->pixels = w->data + pos;
        } else {
            continue;
        }
        w->num_pics++;
    }
    w->order = mdl_calloc(w->num_pics ? w->num_pics : 1, sizeof *w->order);
    if (!w->order) {
        mdl_wad_free(w);
        return fail(err, name, QD_ERR_NOMEM, 0, "wad");
    }
    for (uint32_t i = 0; i < w->num_pics; i++)
        w->order[i] = i;
    sort_pics = w->pics;
    qsort(w->order, w->num_pics, sizeof *w->order, by_name);
    *out = w;
    return QD_OK;
}

const mdl_pic *mdl_wad_pic(const mdl_wad *w, const char *name)
{
    if (!w || !name)
        return NULL;
    uint32_t lo = 0, hi = w->num_pics; /* the first at or past name */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (name_cmp(w->pics[w->order[mid]].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->num_pics && name_cmp(w->pics[w->order[lo]].name, name) == 0
               ? &w->pics[w->order[lo]]
               : NULL;
}

void mdl_wad_free(mdl_wad *w)
{
    if (!w)
        return;
    free(w->data);
    free(w->pics);
    free(w->order);
    free(w);
}
