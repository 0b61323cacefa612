#include "cc/generate/log_softmax.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace pteforge {
namespace {

constexpr int kBlock = 8;
constexpr int64_t kChunk = 256;

// exp(x) for x <= 0 (Cephes' expf: x = n ln2 + r, |r| <= ln2 / 2, a degree-6 polynomial
// in r times 2^n). Below -87 it returns exp(-87) ~ 1.6e-38 rather than a denormal or 0:
// a term that no sum with an exp(0) = 1 in it can notice. Branch-free, to vectorize.
inline float ExpNonPositive(float x) {
  x = std::max(x, -87.0f);
  const float t = x * 1.44269504088896341f + 0.5f;
  float n = static_cast<float>(static_cast<int32_t>(t));
  n -= n > t ? 1.0f : 0.0f;  // floor (t may be negative)
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

}  // namespace

void LogSoftmax(float* values, int64_t width) {
  const float top = *std::max_element(values, values + width);
  // Float sums of kChunk columns in kBlock lanes, added up in double: a vocabulary-wide
  // float sum would lose digits the log-probabilities keep.
  double sum = 0;
  int64_t i = 0;
  while (i + kBlock <= width) {
    float lanes[kBlock] = {};
    for (const int64_t end = std::min(width, i + kChunk); i + kBlock <= end; i += kBlock) {
      for (int j = 0; j < kBlock; ++j) lanes[j] += ExpNonPositive(values[i + j] - top);
    }
    for (float lane : lanes) sum += lane;
  }
  for (; i < width; ++i) sum += ExpNonPositive(values[i] - top);
  // In torch's order, (x - max) - log(sum): the first difference is exact where the
  // result is small. A -inf maximum: every column is -inf, and -inf - -inf is NaN.
  const float log_sum = static_cast<float>(std::log(sum));
  for (int64_t k = 0; k < width; ++k) values[k] = (values[k] - top) - log_sum;
}

}  // namespace pteforge
