/* test_dirs.c: the 162 byte directions (src/common/dirs.c). What the table must be, checked
 * without its own numbers: each entry a unit vector, each its own nearest (q_math.c
 * DirToByte, the largest dot product, would send entry i as byte i, so a mistyped entry
 * near another breaks it), no two alike, and the six axes where anorms.h has them (found by
 * hand in the header: +z is 5, +y 32, +x 52, -z 84, -y 104, -x 143). */
#include <math.h>

#include "../../src/common/dirs.h"
#include "../test.h"

TEST(dirs_unit_and_each_its_own_nearest)
{
    int bad_len = 0, bad_near = 0;
    for (int i = 0; i < QD_NUM_DIRS; i++) {
        const float *a = qd_bytedirs[i];
        float len = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        bad_len += fabsf(len - 1) > 1e-5f;
        int best = 0;
        float bestd = -2;
        for (int j = 0; j < QD_NUM_DIRS; j++) {
            const float *b = qd_bytedirs[j];
            float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            if (d > bestd) {
                bestd = d;
                best = j;
            }
        }
        bad_near += best != i;
    }
    CHECK(bad_len == 0);
    CHECK(bad_near == 0);
}

TEST(dirs_axes_and_bounds)
{
    static const struct {
        int b;
        float d[3];
    } axes[] = {{5, {0, 0, 1}},   {32, {0, 1, 0}},   {52, {1, 0, 0}},
                {84, {0, 0, -1}}, {104, {0, -1, 0}}, {143, {-1, 0, 0}}};
    for (unsigned i = 0; i < sizeof axes / sizeof axes[0]; i++) {
        float d[3];
        CHECK(qd_byte_to_dir(axes[i].b, d));
        for (int k = 0; k < 3; k++)
            CHECK(d[k] == axes[i].d[k]);
    }
    float d[3] = {1, 1, 1};
    CHECK(!qd_byte_to_dir(162, d) && d[0] == 0 && d[1] == 0 && d[2] == 0);
    CHECK(!qd_byte_to_dir(-1, d));
}
