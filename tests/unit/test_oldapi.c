/* test_oldapi.c: the entity state after the old per-game API went (issue #10, plan 2.1). */
#include <stddef.h>

#include "../../src/client/cl.h"
#include "../../src/demo/quake_rules.h"
#include "../test.h"

/* Plan 2.1: 40 bytes, as before the new fields (the 32-bit effects paid for them), and the
 * fields at the places the plan gives. */
TEST(oldapi_entstate_layout)
{
    CHECK_EQ(sizeof(cl_entstate), 40);
    CHECK_EQ(offsetof(cl_entstate, model), 24);
    CHECK_EQ(offsetof(cl_entstate, model2), 26);
    CHECK_EQ(offsetof(cl_entstate, frame), 28);
    CHECK_EQ(offsetof(cl_entstate, frame2), 30);
    CHECK_EQ(offsetof(cl_entstate, skin), 32);
    CHECK_EQ(offsetof(cl_entstate, fx), 34);
    CHECK_EQ(offsetof(cl_entstate, player), 36);
    CHECK_EQ(offsetof(cl_entstate, flags), 39);
    /* the sixteen looks are sixteen distinct bits that fill fx */
    static const unsigned looks[] = {
        CL_FX_ROCKET,     CL_FX_GRENADE,      CL_FX_BLOOD,     CL_FX_BLOOD_SLIGHT,
        CL_FX_TRACER,     CL_FX_TRACER2,      CL_FX_BLASTER,   CL_FX_PLASMA,
        CL_FX_MUZZLE,     CL_FX_LIGHT_BRIGHT, CL_FX_LIGHT_DIM, CL_FX_GLOW_BLUE,
        CL_FX_GLOW_RED,   CL_FX_ROTATE,       CL_FX_FLAG_RED,  CL_FX_FLAG_BLUE};
    unsigned all = 0;
    for (size_t i = 0; i < sizeof looks / sizeof looks[0]; i++) {
        CHECK((looks[i] & (looks[i] - 1)) == 0 && !(all & looks[i]));
        all |= looks[i];
    }
    CHECK_EQ(all, 0xffffu);
}

/* Quake's protocol.h EF_BRIGHTFIELD 1 (no look of its own), EF_MUZZLEFLASH 2,
 * EF_BRIGHTLIGHT 4, EF_DIMLIGHT 8; QuakeWorld's protocol.h adds EF_FLAG1 16, EF_FLAG2 32,
 * EF_BLUE 64, EF_RED 128. Bits past the byte mean nothing. */
TEST(oldapi_quake_entity_fx)
{
    CHECK_EQ(qr_entity_fx(0), 0);
    CHECK_EQ(qr_entity_fx(1), 0);
    CHECK_EQ(qr_entity_fx(2), CL_FX_MUZZLE);
    CHECK_EQ(qr_entity_fx(4), CL_FX_LIGHT_BRIGHT);
    CHECK_EQ(qr_entity_fx(8), CL_FX_LIGHT_DIM);
    CHECK_EQ(qr_entity_fx(16), CL_FX_FLAG_RED);
    CHECK_EQ(qr_entity_fx(32), CL_FX_FLAG_BLUE);
    CHECK_EQ(qr_entity_fx(64), CL_FX_GLOW_BLUE);
    CHECK_EQ(qr_entity_fx(128), CL_FX_GLOW_RED);
    CHECK_EQ(qr_entity_fx(2 | 64 | 256), CL_FX_MUZZLE | CL_FX_GLOW_BLUE);
}
