/* rast_avx512.c: rast.c compiled once more with AVX-512 allowed (-mavx512f, bw, vl and dq
 * beside -mavx2: the Makefile's flags for this file on x86-64), its public functions named
 * rast_avx512_*: the AVX2 copy's source with texels read by loads (as rast_avx2.c), which
 * the compiler then encodes with EVEX (32 vector registers, so fewer spills in the lit
 * spans' loops, and mask registers for the blends). Its intrinsics stay 128 and 256 bits
 * wide and nothing is contracted (-ffp-contract=off), so it draws the bytes the others do.
 * rast.c picks it on processors with those extensions unless their gathers are quick
 * (rast_simd in rast.h). */
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) &&                \
    defined(__AVX512DQ__)
#define QD_RAST_AVX2 1
#define QD_RAST_AVX512 1
#include "rast.c"
#else
typedef int rast_avx512_unused; /* other processors: nothing here (ISO C wants a declaration) */
#endif
