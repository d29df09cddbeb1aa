/* fuzz_qwd.c: libFuzzer target for the QuakeWorld .qwd decoder (src/demo/qw.c): arbitrary
 * bytes must give an error or a clean end, never a crash, a hang or unbounded memory. The
 * trace is on for half the inputs so its formatting is fuzzed too. */
#include <stdint.h>
#include <stdlib.h>

#include "../../src/demo/demo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sink(void *ctx, double t, uint32_t block, uint64_t offset, const char *name,
                 const char *detail)
{
    (void)t;
    (void)block;
    (void)offset;
    *(size_t *)ctx += (size_t)name[0] + (size_t)detail[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cl_state *cl;
    static void *state;
    const demo_decoder *dec = &demo_qwd_decoder;
    if (!cl && !(cl = malloc(sizeof *cl)))
        return 0;
    if (!state && !(state = malloc(dec->state_size)))
        return 0;
    (void)dec->probe(data, size, "fuzz.qwd");
    cl_reset(cl);
    qd_error err;
    if (dec->init(state, data, size, &err) != QD_OK)
        return 0;
    size_t acc = 0;
    demo_trace tr = {&acc, sink};
    const demo_trace *t = (size & 1) ? &tr : NULL;
    int done = 0;
    qd_err r = QD_OK;
    /* Every step consumes at least a block header, so size bounds the steps. */
    for (size_t steps = 0; !done && r == QD_OK && steps <= size + 1; steps++)
        r = dec->step(state, data, size, cl, t, &done, &err);
    return 0;
}
