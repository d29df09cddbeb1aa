/* pack.h: the timeline's keyframe packing (pack.c), separate so it can be tested alone. */
#ifndef QD_TL_PACK_H
#define QD_TL_PACK_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes tl_pack writes for n input bytes. */
size_t tl_pack_bound(size_t n);

/* Pack n bytes of src (n a multiple of 8) into dst (tl_pack_bound(n) bytes) as runs: a
 * 32-bit count of zero 8-byte words, a 32-bit count of literal words, the literal words;
 * returns the packed length. */
size_t tl_pack(const uint8_t *src, size_t n, uint8_t *dst);

/* Unpack len packed bytes into dst (n bytes): 1 when the runs fill dst exactly, 0 when
 * they are damaged (a run past the end, a cut record, too few bytes). */
int tl_unpack(const uint8_t *p, size_t len, uint8_t *dst, size_t n);

#endif
