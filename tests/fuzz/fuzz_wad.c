/* fuzz_wad.c: libFuzzer target for WAD2 picture archives (gfx.wad): any bytes as a wad; what
 * loads is drawn as Quake's status bar (every picture it names looked up and blitted, at two
 * scales) from stats whose numbers come from the input too. */
#include <stdint.h>
#include <string.h>

#include "../../src/render/render.h"
#include "../memread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mdl_wad *w = NULL;
    qd_error err;
    if (mdl_wad_load(data, size, "fuzz.wad", &w, &err) == QD_OK) {
        size_t sum = 0;
        for (uint32_t i = 0; i < w->num_pics; i++)
            sum += w->pics[i].pixels[(size_t)w->pics[i].width * w->pics[i].height - 1];
        (void)sum;
        mdl_wad_free(w);
    }
    memread m = {.data = data, .size = size, .names = {"gfx.wad"}};
    r_hud *h = r_hud_load(memread_fn, &m, NULL, NULL);
    if (h) {
        cl_stats st;
        memset(&st, 0, sizeof st);
        uint8_t b[16] = {0};
        memcpy(b, data, size < sizeof b ? size : sizeof b);
        st.flags = CL_ST_VALID;
        st.health = (int16_t)(b[12] | b[13] << 8);
        st.armor = (int16_t)(b[14] | b[15] << 8);
        st.ammo = (int16_t)-b[9];
        st.armor_type = b[10] % CL_ARMOR_COUNT;
        st.ammo_type = b[11] % CL_AMMO_COUNT;
        st.weapons = 0xffffffffu;
        st.items = b[3];
        for (int i = 0; i < CL_PU_COUNT; i++)
            st.powerup_end[i] = b[5] >> (i & 7) & 1 ? -1.0f : 0.0f;
        static const int sizes[2][2] = {{320, 200}, {700, 500}};
        for (int s = 0; s < 2; s++) {
            rast_fb *fb = rast_fb_new(sizes[s][0], sizes[s][1]);
            if (fb)
                r_hud_draw(h, &st, 1.0, fb);
            rast_fb_free(fb);
        }
        r_hud_free(h);
    }
    return 0;
}
