/* fuzz_decoder.h: the body every single-decoder fuzz target shares: probe, init, then step
 * to the end with the trace on for half the inputs (so dump's formatting is fuzzed too).
 * Arbitrary bytes must give an error or a clean end, never a crash, a hang or unbounded
 * memory. */
#ifndef QD_FUZZ_DECODER_H
#define QD_FUZZ_DECODER_H

#include <stdint.h>
#include <stdlib.h>

#include "../../src/demo/demo.h"

static void fuzz_sink(void *ctx, double t, uint32_t block, uint64_t offset, const char *name,
                      const char *detail)
{
    (void)t;
    (void)block;
    (void)offset;
    *(size_t *)ctx += (size_t)name[0] + (size_t)detail[0];
}

static int fuzz_decoder(const demo_decoder *dec, const char *filename, const uint8_t *data,
                        size_t size)
{
    static cl_state *cl;
    static void *state;
    static size_t state_size;
    if (!cl && !(cl = malloc(sizeof *cl)))
        return 0;
    if (state_size < dec->state_size) {
        free(state);
        state_size = 0;
        if (!(state = malloc(dec->state_size)))
            return 0;
        state_size = dec->state_size;
    }
    (void)dec->probe(data, size, filename);
    cl_reset(cl);
    qd_error err;
    if (dec->init(state, data, size, &err) != QD_OK)
        return 0;
    size_t acc = 0;
    demo_trace tr = {&acc, fuzz_sink};
    const demo_trace *t = (size & 1) ? &tr : NULL;
    int done = 0;
    qd_err r = QD_OK;
    /* Every step consumes at least a block header, so size bounds the steps. */
    for (size_t steps = 0; !done && r == QD_OK && steps <= size + 1; steps++)
        r = dec->step(state, data, size, cl, t, &done, &err);
    return 0;
}

#endif
