/* pack.c: keyframe packing: runs of zero words and of literal words. */
#include "pack.h"

#include <string.h>

/* A keyframe's bytes are mostly zeros (unused entity slots, precache names) and the rest
 * changes little: they are packed as runs of zero 8-byte words and runs of literal words
 * (each run a 32-bit count of words), which costs a pass at memory speed where deflate cost
 * 30 times a plain decode of the demo; what the runs keep is 1-15 % of the state on the
 * real demos (a Quake demo 1 %, a Quake III duel 15 %). */
size_t tl_pack_bound(size_t n) { return n + 8 * (n / 8 / 2 + 2) + 8; }

size_t tl_pack(const uint8_t *src, size_t n, uint8_t *dst)
{
    size_t words = n / 8, w = 0, out = 0;
    while (w < words) {
        size_t z = w, l;
        uint64_t v;
        while (z < words && (memcpy(&v, src + z * 8, 8), v == 0))
            z++;
        l = z;
        while (l < words && (memcpy(&v, src + l * 8, 8), v != 0))
            l++;
        uint32_t runs[2] = {(uint32_t)(z - w), (uint32_t)(l - z)};
        memcpy(dst + out, runs, 8);
        memcpy(dst + out + 8, src + z * 8, (l - z) * 8);
        out += 8 + (l - z) * 8;
        w = l;
    }
    return out;
}

int tl_unpack(const uint8_t *p, size_t len, uint8_t *dst, size_t n)
{
    size_t at = 0, in = 0;
    while (in + 8 <= len) {
        uint32_t runs[2];
        memcpy(runs, p + in, 8);
        in += 8;
        size_t z = (size_t)runs[0] * 8, l = (size_t)runs[1] * 8;
        if (z > n - at || l > n - at - z || l > len - in)
            return 0;
        memset(dst + at, 0, z);
        memcpy(dst + at + z, p + in, l);
        at += z + l;
        in += l;
    }
    return at == n && in == len;
}
