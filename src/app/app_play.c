/* app_play.c: the `play` and `render` commands (placeholders until the renderer lands). */
#include <stdio.h>

#include "app.h"

int app_play(const app_opts *o)
{
    (void)o;
    fprintf(stderr, "qdemo: play: not yet\n");
    return APP_EXIT_OK;
}

int app_render(const app_opts *o)
{
    (void)o;
    fprintf(stderr, "qdemo: render: not yet\n");
    return APP_EXIT_OK;
}
