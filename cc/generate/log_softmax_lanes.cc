// LogSoftmax for one lane count (PTEFORGE_SIMD_LANES, cc/simd/vectors.h), compiled once
// per count (bazel/simd_lanes.bzl): no template of the standard library is instantiated
// here (the eight-lane copy's would be AVX2 code the linker could hand to anyone).
#include "cc/generate/log_softmax_lanes.h"

#include <cmath>
#include <cstdint>

#include "cc/simd/vectors.h"

namespace pteforge {
namespace PTEFORGE_SIMD_NAMESPACE {
namespace {

using simd::ExpNonPositive;
using simd::Floats;
using simd::kLanes;
using simd::Load;

constexpr int64_t kChunk = 256;

}  // namespace

void LogSoftmax(float* values, int64_t width) {
  const float top = simd::Max(values, width);
  // Float sums of kChunk columns in kLanes lanes, added up in double: a vocabulary-wide
  // float sum would lose digits the log-probabilities keep.
  double sum = 0;
  int64_t i = 0;
  while (i + kLanes <= width) {
    Floats lanes = {};
    for (const int64_t end = width < i + kChunk ? width : i + kChunk; i + kLanes <= end; i += kLanes) {
      lanes += ExpNonPositive(Load(values + i) - top);
    }
    for (int j = 0; j < kLanes; ++j) sum += lanes[j];
  }
  for (; i < width; ++i) sum += ExpNonPositive(values[i] - top);
  // In torch's order, (x - max) - log(sum): the first difference is exact where the
  // result is small. A -inf maximum: every column is -inf, and -inf - -inf is NaN.
  const float log_sum = static_cast<float>(std::log(sum));
  int64_t k = 0;
  for (; k + kLanes <= width; k += kLanes) simd::Store(values + k, (Load(values + k) - top) - log_sum);
  for (; k < width; ++k) values[k] = (values[k] - top) - log_sum;
}

}  // namespace PTEFORGE_SIMD_NAMESPACE
}  // namespace pteforge
