/* mdl_wal.c: Quake II's .wal textures checked before their levels are read.
 *
 * Format facts: yquake2 src/common/header/files.h miptex_t: a 32-byte name, width, height,
 * four mip offsets (little-endian uint32), a 32-byte next-frame name, flags, contents, value:
 * 100 bytes, then 8-bit palette indices, level k (width >> k) x (height >> k). */
#include "model_local.h"

static uint32_t u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

size_t mdl_wal_check(const uint8_t *data, size_t len, uint32_t *w, uint32_t *h,
                     uint32_t ofs[4])
{
    if (len < MDL_WAL_HEADER)
        return 0;
    *w = u32le(data + 32);
    *h = u32le(data + 36);
    if (*w < 8 || *h < 8 || *w > MDL_WAL_MAX_SIDE || *h > MDL_WAL_MAX_SIDE)
        return 0;
    size_t total = 0;
    for (int k = 0; k < 4; k++) {
        size_t n = (size_t)(*w >> k) * (size_t)(*h >> k);
        ofs[k] = u32le(data + 40 + 4 * k);
        if (ofs[k] < MDL_WAL_HEADER || ofs[k] > len || n > len - ofs[k])
            return 0;
        total += n;
    }
    return total;
}
