// What pteforge::cached_attention's kernel is given (attention.h): the shape of one call
// and its buffers.
#ifndef PTEFORGE_CC_KERNELS_ATTENTION_ARGS_H_
#define PTEFORGE_CC_KERNELS_ATTENTION_ARGS_H_

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
  // The mask's rows m (rows is a multiple of it): row r reads mask row r % m (a causal
  // LM's query heads that share a key/value head, one mask row per position); 0: rows.
  int32_t mask_rows = 0;
};

struct AttentionArgs {
  const float* query;   // [rows, heads, head_dim]
  const float* keys;    // [heads, width, head_dim]
  const float* values;  // [heads, width, head_dim]
  const float* mask;    // [mask_rows, width], additive; null: every position
  const float* bias;    // [heads, positions]: added at position w % positions; or null
  float scale;          // the query's factor
  float* scratch;       // AttentionScratchFloats(shape) floats
  float* out;           // [rows, heads, head_dim]
};

// The scratch CachedAttention needs, in floats: each row's scores over the positions,
// its scaled query, and the span of positions its mask leaves (two integers' room).
inline size_t AttentionScratchFloats(const AttentionShape& shape) {
  return static_cast<size_t>(shape.rows) * (static_cast<size_t>(shape.width) + shape.head_dim + 2);
}

}  // namespace kernels
}  // namespace pteforge

#endif  // PTEFORGE_CC_KERNELS_ATTENTION_ARGS_H_
