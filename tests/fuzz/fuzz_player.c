/* fuzz_player.c: libFuzzer target for a Quake III player's text files: any bytes as an
 * animation.cfg (every animation's frames then asked for at a few times) and as a .skin
 * applied to a one-surface model. */
#include <stdint.h>
#include <string.h>

#include "../../src/model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mdl_anim a[MDL_ANIM_COUNT];
    qd_error err;
    (void)mdl_anims_parse((const char *)data, size, "fuzz.cfg", a, &err);
    uint32_t sum = 0;
    for (int i = 0; i < MDL_ANIM_COUNT; i++)
        for (int k = 0; k < 4; k++) {
            uint32_t f0, f1;
            float lerp;
            mdl_anim_frames(&a[i], k * 7.3, &f0, &f1, &lerp);
            sum += f0 + f1;
        }
    mdl_md3_surface s;
    memset(&s, 0, sizeof s);
    memcpy(s.name, "s_body", 7);
    mdl_md3 m;
    memset(&m, 0, sizeof m);
    m.num_surfaces = 1;
    m.surfaces = &s;
    char shaders[1][64] = {""};
    (void)mdl_md3_skin(&m, shaders, (const char *)data, size, "fuzz.skin", &err);
    (void)sum;
    return 0;
}
