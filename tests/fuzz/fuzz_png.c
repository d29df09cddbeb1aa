/* fuzz_png.c: libFuzzer target for the PNG check that `render --resume` runs on frames found in
 * the output folder (out_png_check): any bytes as a frame file, checked against the size in
 * its own IHDR and against a fixed one, with no note asked for and with a note (the options
 * a frame of qdemo's notes in its tEXt chunk), one with a byte outside 32..126 too. */
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
    (void)out_png_check(data, size, w, h, NULL);
    (void)out_png_check(data, size, 64, 48, NULL);
    (void)out_png_check(data, size, w, h, "qdemo render: demo a.dem (1 bytes); fps 30");
    (void)out_png_check(data, size, w, h, "x\ty");
    return 0;
}
