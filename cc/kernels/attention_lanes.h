// CachedAttention's arithmetic for each lane count (cc/simd/vectors.h), compiled once per
// count (bazel/simd_lanes.bzl); attention.cc picks one with simd::RunLanes().
#ifndef PTEFORGE_CC_KERNELS_ATTENTION_LANES_H_
#define PTEFORGE_CC_KERNELS_ATTENTION_LANES_H_

#include "cc/kernels/attention_args.h"

namespace pteforge {
namespace kernels {
namespace lanes4 {
void CachedAttention(const AttentionShape& shape, const AttentionArgs& args);
}  // namespace lanes4
namespace lanes8 {  // x86-64 with AVX2 and FMA only
void CachedAttention(const AttentionShape& shape, const AttentionArgs& args);
}  // namespace lanes8
}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_ATTENTION_LANES_H_
