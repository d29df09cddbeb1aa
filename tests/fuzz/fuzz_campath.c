/* fuzz_campath.c: libFuzzer target for the free-camera path parser (player_path_parse): any
 * bytes as a camera path file; what parses is then evaluated along the path, where a key's
 * numbers feed the camera. */
#include <math.h>
#include <stdint.h>

#include "../../src/app/player.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static player_cam_key keys[PLAYER_MAX_PATH];
    qd_error err;
    int n = player_path_parse((const char *)data, size, keys, PLAYER_MAX_PATH, &err);
    if (n > 0) {
        r_camera cam;
        double span = keys[n - 1].t - keys[0].t;
        /* what a camera can use: finite, the place within the path's bound (a fuzz run of
         * an extra harness found NaN from keys a subnormal time apart, which this target,
         * checking nothing, had passed) */
        for (int i = -1; i <= 4; i++) {
            player_path_eval(keys, n, keys[0].t + span * i / 3.0, &cam);
            for (int k = 0; k < 3; k++)
                if (!isfinite(cam.angles[k]) || !(fabsf(cam.origin[k]) <= 1.0e6f))
                    __builtin_trap();
        }
        for (int j = 0; j < n; j++) { /* at each key, and just past it */
            player_path_eval(keys, n, keys[j].t, &cam);
            player_path_eval(keys, n, nextafter(keys[j].t, INFINITY), &cam);
            for (int k = 0; k < 3; k++)
                if (!isfinite(cam.angles[k]) || !(fabsf(cam.origin[k]) <= 1.0e6f))
                    __builtin_trap();
        }
    }
    return 0;
}
