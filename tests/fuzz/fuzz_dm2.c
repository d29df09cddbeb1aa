/* fuzz_dm2.c: libFuzzer target for the Quake II .dm2 decoder (src/demo/q2.c), and for the
 * HUD's layout interpreter (src/render/r_hud2.c) on the programs and stats it left. */
#include "../../src/render/render.h"
#include "fuzz_decoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rast_fb *fb;
    if (!fb && !(fb = rast_fb_new(320, 240)))
        return 0;
    cl_state *cl = fuzz_decoder_state(&demo_q2_decoder, "fuzz.dm2", data, size);
    if (cl && cl->level.game == CL_GAME_Q2) {
        cl->layout.stats[13] |= 1; /* the layout too */
        (void)r_hud2_draw(NULL, cl, fb);
    }
    return 0;
}
