// Four doubles in one AVX2 register, as GCC vector extensions: the vector and
// mask types and the operations every four-lane DEM kernel shares (the pair
// contacts, contact_laws/pair_contact_batch.cpp; the bonds,
// particles/bond_forces.cpp). The functions carry the avx2 target and are
// always inlined, so they take the flags of the kernel that calls them
// (-ffp-contract=off in bond_forces.cpp); the kernels are called only where
// the processor has AVX2.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>

namespace tessera::dem::avx2 {

using Vec = double __attribute__((vector_size(32)));
using Mask = decltype(Vec{} < Vec{});  // 64-bit lanes, all ones or zero
inline constexpr int kLanes = 4;

#define TESSERA_AVX2 [[gnu::target("avx2"), gnu::always_inline]] inline

TESSERA_AVX2 Vec Splat(double s) { return Vec{s, s, s, s}; }
TESSERA_AVX2 Vec Sqrt(Vec x) {
  return reinterpret_cast<Vec>(_mm256_sqrt_pd(reinterpret_cast<__m256d>(x)));
}
TESSERA_AVX2 Vec Select(Mask m, Vec a, Vec b) { return m ? a : b; }
// Whether any (all) lanes are set: work that only such lanes select can be
// skipped otherwise.
TESSERA_AVX2 bool Any(Mask m) { return _mm256_movemask_pd(reinterpret_cast<__m256d>(m)) != 0; }
TESSERA_AVX2 bool All(Mask m) { return _mm256_movemask_pd(reinterpret_cast<__m256d>(m)) == 0xF; }

}  // namespace tessera::dem::avx2

#endif
