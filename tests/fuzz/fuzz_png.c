/* fuzz_png.c: libFuzzer target for the PNG check that `render --resume` runs on frames found in
 * the output folder (out_png_check): any bytes as a frame file, checked against the size in
 * its own IHDR and against a fixed one. */
#include <stdint.h>

#include "../../src/output/out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int w = 0, h = 0;
    if (size >= 24) { /* IHDR's width and height, big-endian, right after the signature */
        w = (int)((uint32_t)data[16] << 24 | (uint32_t)data[17] << 16 | data[18] << 8 | data[19]);
        h = (int)((uint32_t)data[20] << 24 | (uint32_t)data[21] << 16 | data[22] << 8 | data[23]);
    }
    (void)out_png_check(data, size, w, h);
    (void)out_png_check(data, size, 64, 48);
    return 0;
}
