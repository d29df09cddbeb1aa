/* fuzz_dem.c: libFuzzer target for the demo layer and the Quake .dem decoder: arbitrary
 * bytes must give an error or a clean end, never a crash, a hang or unbounded memory. */
#include <stdint.h>
#include <stdlib.h>

#include "../../src/demo/demo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cl_state *cl;
    if (!cl && !(cl = malloc(sizeof *cl)))
        return 0;
    cl_reset(cl);
    qd_error err;
    demo_t *d = demo_open_mem("fuzz.dem", data, size, &err);
    if (!d)
        return 0;
    int done = 0;
    qd_err r = QD_OK;
    /* Every step consumes at least a block header, so size bounds the steps. */
    for (size_t steps = 0; !done && r == QD_OK && steps <= size; steps++)
        r = demo_step(d, cl, NULL, &done, &err);
    demo_close(d);
    return 0;
}
