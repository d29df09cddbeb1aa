/* rast_avx2.c: rast.c compiled once more, with -mavx2 (the Makefile's flag for this file on
 * x86-64), its public functions named rast_avx2_*: texels read by loads. rast.c hands the
 * textured polygons to this copy on processors with AVX2 whose gathers are slow, or to
 * rast_avx2g.c's (the same with vpgatherdd) where they are quick (rast_simd in rast.h). */
#if defined(__AVX2__)
#define QD_RAST_AVX2 1
#include "rast.c"
#else
typedef int rast_avx2_unused; /* other processors: nothing here (ISO C wants a declaration) */
#endif
