// Attention over a cache where it lives: the arithmetic of pteforge::cached_attention
// (python/pteforge/lower/attention_op.py has its definition in eager PyTorch).
//
// A decode step's few query rows attend over every position of a layer's key and value
// buffers. As XNNPACK batched matmuls, each step first packed both buffers into the
// layout its GEMM reads (the right-hand operand of a matmul is packed on every call
// when it is not a constant): for Whisper-tiny's cross-attention, 18 MB copied and
// read again per step, a third of an int8 step. Here each key and value vector is read
// once, in place, for all rows, and positions a row's mask excludes are skipped
// (attention_lanes.cc says how).
#ifndef PTEFORGE_CC_KERNELS_ATTENTION_H_
#define PTEFORGE_CC_KERNELS_ATTENTION_H_

#include <cstddef>

#include "cc/kernels/attention_args.h"

namespace pteforge {
namespace kernels {

// For each row r and head h: scores = (query[r, h] * scale) . keys[h, w] + bias[h, w % P]
// + mask[r % mask_rows, w] over w < width; out[r, h] = softmax(scores) . values[h]. A position whose
// mask is the lowest float (transformers' masked value) or -inf adds nothing (its exp is
// 0 in float32, as in eager PyTorch); a row with every position so masked gets the
// mean of the values, as eager's softmax of equal scores gives. On eight lanes where
// the CPU has them (cc/simd/lanes.h), else four.
//
// `workers`: the heads, or with few heads their rows, are shared among this many threads
// of the runtime's pool (cc/parallel/parallel_for.h; parallel::Workers(), or 1 for the
// calling thread alone), args.scratch holding workers * AttentionScratchFloats(shape)
// floats. The result does not depend on it: each row of each head is computed the same
// way on whichever thread.
void CachedAttention(const AttentionShape& shape, const AttentionArgs& args, size_t workers = 1);

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_ATTENTION_H_
