#include "cc/simd/lanes.h"

#include <cstdlib>
#include <cstring>

namespace pteforge {
namespace simd {
namespace {

int Decide() {
#if defined(__x86_64__)  // bazel/simd_lanes.bzl links an eight-lane copy of every kernel there
  const char* forced = std::getenv("PTEFORGE_SIMD_LANES");
  if (forced != nullptr && std::strcmp(forced, "4") == 0) return 4;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
#endif
  return 4;
}

}  // namespace

int RunLanes() {
  static const int lanes = Decide();
  return lanes;
}

}  // namespace simd
}  // namespace pteforge
