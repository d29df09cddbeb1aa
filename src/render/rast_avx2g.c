/* rast_avx2g.c: rast.c compiled once more with -mavx2 (as rast_avx2.c) and its texels and
 * light read by vpgatherdd (QD_RAST_GATHER), its public functions named rast_avx2g_*: the
 * copy rast.c picks where the processor's gathers are quick (rast_simd in rast.h). */
#if defined(__AVX2__)
#define QD_RAST_AVX2 1
#define QD_RAST_GATHER 1
#include "rast.c"
#else
typedef int rast_avx2g_unused; /* other processors: nothing here (ISO C wants a declaration) */
#endif
