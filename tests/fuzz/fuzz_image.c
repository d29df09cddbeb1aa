/* fuzz_image.c: libFuzzer target for the image loaders (TGA, JPEG, PNG through stb_image;
 * 8-bit PCX; Quake II's WAL check, its levels then read whole): any bytes as an image file,
 * and through the search path's extension fallback. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct one {
    const uint8_t *data;
    size_t size;
} one;

/* Only "x.jpg" exists: a lookup of "x.tga" must fall back to it. */
static qd_err read_one(void *ctx, const char *name, uint8_t **out, size_t *len, qd_error *err)
{
    const one *o = ctx;
    (void)err;
    if (strcmp(name, "x.jpg") != 0)
        return QD_ERR_NOT_FOUND;
    *out = malloc(o->size ? o->size : 1);
    if (!*out)
        return QD_ERR_NOMEM;
    if (o->size)
        memcpy(*out, o->data, o->size);
    *len = o->size;
    return QD_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mdl_image *im = NULL;
    qd_error err = {0};
    if (mdl_image_load(data, size, "fuzz", &im, &err) == QD_OK)
        mdl_image_free(im);
    mdl_pcx *pcx = NULL;
    if (mdl_pcx_load(data, size, "fuzz.pcx", &pcx, &err) == QD_OK)
        mdl_pcx_free(pcx);
    uint32_t w, h, ofs[4];
    if (mdl_wal_check(data, size, &w, &h, ofs)) {
        volatile unsigned sum = 0; /* every byte of every level, as r_assets copies them */
        for (int k = 0; k < 4; k++)
            for (size_t i = 0; i < (size_t)(w >> k) * (h >> k); i++)
                sum += data[ofs[k] + i];
    }
    one o = {data, size};
    if (mdl_image_find(read_one, &o, "x.tga", &im, &err) == QD_OK)
        mdl_image_free(im);
    return 0;
}
