/* model_local.h: helpers shared by the model loaders; not part of the public API. */
#ifndef QD_MODEL_LOCAL_H
#define QD_MODEL_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* The grey used for a texture or skin whose pixels are missing. */
#define MDL_GREY MDL_RGB(128, 128, 128)

/* calloc for n records of size bytes; NULL when n * size overflows or memory runs out.
 * n == 0 still returns a valid (1-byte) block so that "no records" is not an error. */
void *mdl_calloc(size_t n, size_t size);

/* Copy at most n bytes of a possibly unterminated on-disk name into dst (cap >= 1), stopping
 * at the first NUL; always terminated. */
void mdl_copy_name(char *dst, size_t cap, const char *src, size_t n);

/* Average colour of n palette-index pixels. With skip255 set, index 255 is transparent and
 * left out; *coverage (if not NULL) gets the fraction of pixels counted. Returns MDL_GREY
 * when no pixel counts. A NULL palette is the grey ramp. */
uint32_t mdl_average_color(const uint8_t *pix, size_t n, const uint32_t palette[256],
                           int skip255, float *coverage);

/* One token of an entities text (Quake's COM_Parse rules: // comments, braces, quoted or
 * bare words). Returns the position after the token, or NULL at the end of the text. The
 * token is copied into tok (truncated to cap - 1); *quoted tells a quoted string from a
 * brace. */
const char *mdl_ent_token(const char *p, char *tok, size_t cap, int *quoted);

#endif
