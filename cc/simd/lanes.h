// Which lane count of a hand-vectorized kernel this CPU runs (cc/simd/vectors.h): 8 on
// x86-64 CPUs with AVX2 and FMA, where the build made an eight-lane copy of the kernel
// (bazel/simd_lanes.bzl); 4 everywhere else. PTEFORGE_SIMD_LANES=4 in the environment
// forces four on such a CPU too (to compare the two, or to rule one out).
#ifndef PTEFORGE_CC_SIMD_LANES_H_
#define PTEFORGE_CC_SIMD_LANES_H_

namespace pteforge {
namespace simd {

// 4 or 8, decided once per process (thread-safe).
int RunLanes();

}  // namespace simd
}  // namespace pteforge

#endif  // PTEFORGE_CC_SIMD_LANES_H_
