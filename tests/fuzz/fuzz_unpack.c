/* fuzz_unpack.c: libFuzzer target for demos in containers (gzip, a zip of one demo): any
 * bytes give a demo, a clean pass-through or an error, within the output cap; what comes out
 * is opened and decoded to its end as a file would be. */
#include <stdint.h>
#include <stdlib.h>

#include "../../src/demo/demo.h"
#include "../../src/demo/demo_unpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cl_state *cl;
    if (!cl && !(cl = malloc(sizeof *cl)))
        return 0;
    demo_unpacked u;
    qd_error err;
    const size_t cap = 16u << 20;
    if (demo_unpack("fuzz.dem.gz", data, size, cap, &u, &err) == QD_OK) {
        if (u.data && u.len > cap)
            abort(); /* past the cap */
        if (u.note.code && u.note.offset > size)
            abort(); /* the damage must be inside the container */
        free(u.data);
    } else if (u.data || err.offset > size || !err.msg[0]) {
        abort(); /* an error leaves nothing behind and says where and why */
    }
    demo_t *d = demo_open_file_mem("fuzz.dem.gz", data, size, &err);
    if (!d)
        return 0;
    cl_reset(cl);
    int done = 0;
    qd_err r = QD_OK;
    size_t len = demo_size(d);
    for (size_t steps = 0; !done && r == QD_OK && steps <= len + 1; steps++)
        r = demo_step(d, cl, NULL, &done, &err);
    if (!done && r == QD_OK)
        abort(); /* more steps than the bytes allow */
    demo_close(d);
    return 0;
}
