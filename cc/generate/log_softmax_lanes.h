// LogSoftmax's arithmetic for each lane count (cc/simd/vectors.h), compiled once per
// count (bazel/simd_lanes.bzl); log_softmax.cc picks one with simd::RunLanes().
#ifndef PTEFORGE_CC_GENERATE_LOG_SOFTMAX_LANES_H_
#define PTEFORGE_CC_GENERATE_LOG_SOFTMAX_LANES_H_

#include <cstdint>

namespace pteforge {
namespace lanes4 {
void LogSoftmax(float* values, int64_t width);
}  // namespace lanes4
namespace lanes8 {  // x86-64 with AVX2 and FMA only
void LogSoftmax(float* values, int64_t width);
}  // namespace lanes8
}  // namespace pteforge

#endif  // PTEFORGE_CC_GENERATE_LOG_SOFTMAX_LANES_H_
