#include "cc/generate/log_softmax.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace pteforge {
namespace {

constexpr int kLanes = 4;
constexpr int64_t kChunk = 256;

// Four lanes, scalar operands broadcast: one SSE, NEON or Helium register. (With eight,
// baseline x86-64's SSE2 has no register to hold them, and GCC 12 made the comparisons
// scalar code.)
typedef float Floats __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t Ints __attribute__((vector_size(kLanes * sizeof(int32_t))));

inline Floats Load(const float* from) {
  Floats lanes;
  std::memcpy(&lanes, from, sizeof(lanes));
  return lanes;
}

inline void Store(float* to, Floats lanes) { std::memcpy(to, &lanes, sizeof(lanes)); }

// mask ? a : b, lane by lane (mask lanes are all ones or all zeros).
inline Floats Select(Ints mask, Floats a, Floats b) {
  return reinterpret_cast<Floats>((mask & reinterpret_cast<Ints>(a)) | (~mask & reinterpret_cast<Ints>(b)));
}

// exp(x) for x <= 0 (Cephes' expf: x = n ln2 + r, |r| <= ln2 / 2, a degree-6 polynomial
// in r times 2^n). Below -87 it returns exp(-87) ~ 1.6e-38 rather than a denormal or 0:
// a term that no sum with an exp(0) = 1 in it can notice. The same operations serve a
// vector (Floats) and a lone column (float), so the tail gets the same values.
template <typename T, typename I>
inline T ExpNonPositive(T x) {
  const T floor_of = T{} - 87.0f;
  if constexpr (sizeof(T) == sizeof(float)) {
    x = std::max(x, floor_of);
  } else {
    x = Select(x < floor_of, floor_of, x);
  }
  const T t = x * 1.44269504088896341f + 0.5f;
  T n;
  I whole;
  if constexpr (sizeof(T) == sizeof(float)) {
    n = static_cast<float>(static_cast<int32_t>(t));
    n -= n > t ? 1.0f : 0.0f;  // floor (t may be negative)
    whole = static_cast<int32_t>(n);
  } else {
    n = __builtin_convertvector(__builtin_convertvector(t, Ints), Floats);
    n += __builtin_convertvector(n > t, Floats);  // floor: a true lane is -1
    whole = __builtin_convertvector(n, Ints);
  }
  const T r = x - n * 0.693359375f + n * 2.12194440e-4f;
  T p = T{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const I bits = (whole + 127) << 23;
  T scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

float Max(const float* values, int64_t width) {
  int64_t i = 0;
  float top = -std::numeric_limits<float>::infinity();
  if (width >= kLanes) {
    Floats lanes = Load(values);
    for (i = kLanes; i + kLanes <= width; i += kLanes) {
      const Floats next = Load(values + i);
      lanes = Select(next > lanes, next, lanes);
    }
    for (int j = 0; j < kLanes; ++j) top = std::max(top, lanes[j]);
  }
  for (; i < width; ++i) top = std::max(top, values[i]);
  return top;
}

}  // namespace

void LogSoftmax(float* values, int64_t width) {
  const float top = Max(values, width);
  // Float sums of kChunk columns in kLanes lanes, added up in double: a vocabulary-wide
  // float sum would lose digits the log-probabilities keep.
  double sum = 0;
  int64_t i = 0;
  while (i + kLanes <= width) {
    Floats lanes = {};
    for (const int64_t end = std::min(width, i + kChunk); i + kLanes <= end; i += kLanes) {
      lanes += ExpNonPositive<Floats, Ints>(Load(values + i) - top);
    }
    for (int j = 0; j < kLanes; ++j) sum += lanes[j];
  }
  for (; i < width; ++i) sum += ExpNonPositive<float, int32_t>(values[i] - top);
  // In torch's order, (x - max) - log(sum): the first difference is exact where the
  // result is small. A -inf maximum: every column is -inf, and -inf - -inf is NaN.
  const float log_sum = static_cast<float>(std::log(sum));
  int64_t k = 0;
  for (; k + kLanes <= width; k += kLanes) Store(values + k, (Load(values + k) - top) - log_sum);
  for (; k < width; ++k) values[k] = (values[k] - top) - log_sum;
}

}  // namespace pteforge
