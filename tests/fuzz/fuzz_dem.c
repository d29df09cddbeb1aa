/* fuzz_dem.c: libFuzzer target for the demo layer and the Quake .dem decoder: arbitrary
 * bytes must give an error or a clean end, never a crash, a hang or unbounded memory. The
 * decode runs with a trace listener, so `qdemo dump`'s formatting is fuzzed too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/demo/demo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What `dump` does with each message: touch every byte of the name and the detail. */
static void on_msg(void *ctx, double t, uint32_t block, uint64_t offset, const char *name,
                   const char *detail)
{
    size_t *sum = ctx;
    (void)t;
    (void)block;
    (void)offset;
    *sum += strlen(name) + strlen(detail);
}

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
    size_t sum = 0;
    demo_trace trace = {&sum, on_msg};
    int done = 0;
    qd_err r = QD_OK;
    /* Every step consumes at least a block header, so size bounds the steps. */
    for (size_t steps = 0; !done && r == QD_OK && steps <= size; steps++) {
        r = demo_step(d, cl, &trace, &done, &err);
        if (demo_offset(d) > size)
            abort(); /* the read position left the file */
    }
    if (!done && r == QD_OK)
        abort(); /* more steps than the bytes allow: a step that reads nothing */
    if (r != QD_OK && (err.offset > size || !err.msg[0]))
        abort(); /* an error must say where, inside the file, and why */
    /* A stopped decoder stays stopped. */
    if (demo_step(d, cl, NULL, &done, &err) == QD_OK && !done)
        abort();
    (void)demo_protocol(d);
    demo_close(d);
    return 0;
}
