// CachedAttention's arithmetic for heads [first_head, end_head), rows [first_row,
// end_row) of each (a row gets the same bits whichever rows share its call),
// args.scratch holding AttentionScratchFloats(shape) floats, for each lane count
// (cc/simd/vectors.h), compiled once per count (bazel/simd_lanes.bzl); attention.cc
// picks one with simd::RunLanes().
#ifndef PTEFORGE_CC_KERNELS_ATTENTION_LANES_H_
#define PTEFORGE_CC_KERNELS_ATTENTION_LANES_H_

#include <cstdint>

#include "cc/kernels/attention_args.h"

namespace pteforge {
namespace kernels {
namespace lanes4 {
void CachedAttentionHeads(const AttentionShape& shape, const AttentionArgs& args, int32_t first_head,
                          int32_t end_head, int32_t first_row, int32_t end_row);
}  // namespace lanes4
namespace lanes8 {  // x86-64 with AVX2 and FMA only
void CachedAttentionHeads(const AttentionShape& shape, const AttentionArgs& args, int32_t first_head,
                          int32_t end_head, int32_t first_row, int32_t end_row);
}  // namespace lanes8
}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_ATTENTION_LANES_H_
