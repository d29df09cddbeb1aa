/* fuzz_player.c: libFuzzer target for a Quake III player's text files: any bytes as an
 * animation.cfg (every animation's frames then asked for at a few times) and as a .skin
 * applied to a one-surface model; the first 63 bytes also as a skin slot's name (cgame's
 * other names for it, and sarge's). */
#include <stdint.h>
#include <stdlib.h>
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
    char name[64], paths[4][64], fb[64];
    size_t n = size < sizeof name - 1 ? size : sizeof name - 1;
    memcpy(name, data, n);
    name[n] = 0;
    int k = mdl_player_skin_paths(name, paths, 4);
    for (int i = 0; i < k; i++)
        if (!memchr(paths[i], 0, sizeof paths[i]) || strncmp(paths[i], "models/players/", 15))
            abort(); /* each a terminated path in the players' folder */
    if (mdl_player_fallback_skin(name, "sarge", fb) && mdl_player_skin_paths(fb, paths, 4) < 2)
        abort(); /* sarge's names are names of the same form */
    (void)sum;
    return 0;
}
