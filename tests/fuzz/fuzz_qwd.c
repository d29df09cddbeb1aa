/* fuzz_qwd.c: libFuzzer target for the QuakeWorld .qwd decoder (src/demo/qw.c). */
#include "fuzz_decoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_decoder(&demo_qwd_decoder, "fuzz.qwd", data, size);
}
