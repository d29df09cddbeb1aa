/* fuzz_mvd.c: libFuzzer target for the QuakeWorld .mvd decoder (src/demo/qw.c). */
#include "fuzz_decoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_decoder(&demo_mvd_decoder, "fuzz.mvd", data, size);
}
