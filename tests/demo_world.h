/* demo_world.h: a real demo opened for drawing, as the render tests and the benchmark's
 * camera paths open it: its timeline, options searching one game folder, an empty world and
 * a player of a w x h view. */
#ifndef QD_DEMO_WORLD_H
#define QD_DEMO_WORLD_H

#include <string.h>

#include "../src/app/app.h"
#include "../src/app/player.h"
#include "../src/app/world.h"
#include "../src/demo/demo.h"
#include "../src/timeline/timeline.h"

/* demo's timeline, with o searching pak, an empty world w and a player p of a width x
 * height view; NULL when the demo cannot be opened. */
static inline timeline_t *demo_world(const char *demo, const char *pak, app_opts *o,
                                     app_world *w, player *p, int width, int height)
{
    qd_error err;
    demo_t *d = demo_open(demo, &err);
    timeline_t *tl = d ? tl_open(d, 0, &err) : NULL;
    if (!tl)
        return NULL;
    memset(o, 0, sizeof *o);
    o->paks[o->num_paks++] = pak;
    memset(w, 0, sizeof *w);
    player_init(p, tl, width, height);
    return tl;
}

#endif
