#include "cc/kernels/attention.h"

#include "cc/kernels/attention_lanes.h"
#include "cc/simd/lanes.h"

namespace pteforge {
namespace kernels {

void CachedAttention(const AttentionShape& shape, const AttentionArgs& args) {
#if defined(__x86_64__)
  if (simd::RunLanes() == 8) return lanes8::CachedAttention(shape, args);
#endif
  lanes4::CachedAttention(shape, args);
}

}  // namespace kernels
}  // namespace pteforge
