/* fuzz_dm2.c: libFuzzer target for the Quake II .dm2 decoder (src/demo/q2.c). */
#include "fuzz_decoder.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_decoder(&demo_q2_decoder, "fuzz.dm2", data, size);
}
