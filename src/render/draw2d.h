/* draw2d.h: 2D overlays drawn straight into a framebuffer: filled rectangles and text in a
 * built-in 5x7 pixel font (printable ASCII), for the timeline bar, HUD numbers and notices. */
#ifndef QD_DRAW2D_H
#define QD_DRAW2D_H

#include <stdint.h>

#include "rast.h"

/* One character cell at scale 1: a 5x7 glyph, two rows below it for g, j, p, q and y, a
 * column and a row of spacing. */
#define DRAW_FONT_W 6
#define DRAW_FONT_H 10

/* Fill the rectangle at (x, y) of w x h pixels, clipped to fb. A colour whose alpha byte is
 * below 255 is blended over the pixels (rast.h's RAST_BLEND rule); alpha 0 draws nothing.
 * Depth is left alone. */
void draw_fill_rect(rast_fb *fb, int x, int y, int w, int h, uint32_t color);

/* Draw s with its first cell's top-left corner at (x, y), each font pixel a scale x scale
 * block (scale is clamped to 1..64). '\n' starts a new line at x; bytes outside printable
 * ASCII draw as '?'. Clipped to fb; colour as for draw_fill_rect. */
void draw_text(rast_fb *fb, int x, int y, const char *s, uint32_t color, int scale);

/* Width in pixels of the widest line of s at scale, spacing column included; 0 for "". */
int draw_text_width(const char *s, int scale);
/* Height in pixels of the lines of s at scale: DRAW_FONT_H * scale per line. */
int draw_text_height(const char *s, int scale);

#endif
