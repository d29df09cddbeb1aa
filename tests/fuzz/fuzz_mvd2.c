/* fuzz_mvd2.c: libFuzzer target for the Q2PRO .mvd2 decoder (src/demo/mvd2.c). */
#include "fuzz_decoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_decoder(&demo_mvd2_decoder, "fuzz.mvd2", data, size);
}
