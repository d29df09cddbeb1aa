/* fuzz_decoder.h: the body every single-decoder fuzz target shares: probe, open with that
 * decoder, then step (demo_step, resync included) to the end with the trace on for half the
 * inputs (so dump's formatting is fuzzed too).
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

/* The state the decode left (NULL when out of memory): for targets that go on to use it. */
static inline cl_state *fuzz_decoder_state(const demo_decoder *dec, const char *filename,
                                    const uint8_t *data, size_t size)
{
    static cl_state *cl;
    if (!cl && !(cl = malloc(sizeof *cl)))
        return NULL;
    (void)dec->probe(data, size, filename);
    cl_reset(cl);
    qd_error err;
    /* through the demo layer, so the skip past damaged blocks (demo_step's resync) is fuzzed
     * with each format's framing */
    demo_t *d = demo_open_with(dec, filename, data, size, &err);
    if (!d)
        return cl;
    size_t acc = 0;
    demo_trace tr = {&acc, fuzz_sink};
    const demo_trace *t = (size & 1) ? &tr : NULL;
    int done = 0;
    qd_err r = QD_OK;
    /* Every step consumes at least a block header, so size bounds the steps. */
    for (size_t steps = 0; !done && r == QD_OK && steps <= size + 1; steps++)
        r = demo_step(d, cl, t, &done, &err);
    demo_close(d);
    return cl;
}

static inline int fuzz_decoder(const demo_decoder *dec, const char *filename, const uint8_t *data,
                        size_t size)
{
    (void)fuzz_decoder_state(dec, filename, data, size);
    return 0;
}

#endif
