#include "cc/generate/log_softmax.h"

#include "cc/generate/log_softmax_lanes.h"
#include "cc/simd/lanes.h"

namespace pteforge {

void LogSoftmax(float* values, int64_t width) {
#if defined(__x86_64__)
  if (simd::RunLanes() == 8) return lanes8::LogSoftmax(values, width);
#endif
  lanes4::LogSoftmax(values, width);
}

}  // namespace pteforge
