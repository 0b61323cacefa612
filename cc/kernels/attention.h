// Attention over a cache where it lives: the arithmetic of pteforge::cached_attention
// (python/pteforge/seq2seq/attention_op.py has its definition in eager PyTorch).
//
// A decode step's few query rows attend over every position of a layer's key and value
// buffers. As XNNPACK batched matmuls, each step first packed both buffers into the
// layout its GEMM reads (the right-hand operand of a matmul is packed on every call
// when it is not a constant): for Whisper-tiny's cross-attention, 18 MB copied and
// read again per step, a third of an int8 step. Here each key and value vector is read
// once, in place, for all rows, and positions a row's mask excludes are skipped.
#ifndef PTEFORGE_CC_KERNELS_ATTENTION_H_
#define PTEFORGE_CC_KERNELS_ATTENTION_H_

#include <cstddef>
#include <cstdint>

namespace pteforge {
namespace kernels {

struct AttentionShape {
  int32_t rows;       // query rows (n)
  int32_t heads;      // H
  int32_t width;      // positions per head in the buffers (W)
  int32_t head_dim;   // d
  int32_t positions;  // the position bias's length P (width is a multiple), 0 without one
};

struct AttentionArgs {
  const float* query;   // [rows, heads, head_dim]
  const float* keys;    // [heads, width, head_dim]
  const float* values;  // [heads, width, head_dim]
  const float* mask;    // [rows, width], additive; null: every position
  const float* bias;    // [heads, positions]: added at position w % positions; or null
  float scale;          // the query's factor
  float* scratch;       // AttentionScratchFloats(shape) floats
  float* out;           // [rows, heads, head_dim]
};

// The scratch CachedAttention needs, in floats.
size_t AttentionScratchFloats(const AttentionShape& shape);

// For each row r and head h: scores = (query[r, h] * scale) . keys[h, w] + bias[h, w % P]
// + mask[r, w] over w < width; out[r, h] = softmax(scores) . values[h]. A position whose
// mask is the lowest float (transformers' masked value) or -inf adds nothing (its exp is
// 0 in float32, as in eager PyTorch); a row with every position so masked gets the
// mean of the values, as eager's softmax of equal scores gives.
void CachedAttention(const AttentionShape& shape, const AttentionArgs& args);

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_ATTENTION_H_
