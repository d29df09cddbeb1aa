/* fuzz_dm3.c: libFuzzer target for the Quake III .dm_NN decoder (src/demo/q3.c). */
#include "fuzz_decoder.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_decoder(&demo_q3_decoder, "fuzz.dm_68", data, size);
}
