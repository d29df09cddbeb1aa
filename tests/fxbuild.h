/* fxbuild.h: an effect for the tests to add to a client's log. */
#ifndef QD_FXBUILD_H
#define QD_FXBUILD_H

#include <string.h>

#include "../src/client/cl.h"

/* An effect of kind and style lasting life seconds at origin, on no entity, with no light. */
static inline cl_fxev test_fx(int kind, int style, float life, const float origin[3])
{
    cl_fxev fx;
    memset(&fx, 0, sizeof fx);
    fx.kind = (uint8_t)kind;
    fx.style = (uint8_t)style;
    fx.life = life;
    fx.entity = -1;
    memcpy(fx.origin, origin, sizeof fx.origin);
    return fx;
}

#endif
