// Four float lanes as GCC/Clang vector extensions, and what pteforge's hand-vectorized
// loops do with them: one SSE, NEON or Helium register (plain scalar code where the
// target has no SIMD), without intrinsics, so the same source builds for every target.
// Four, not eight: baseline x86-64's SSE2 has no register for eight, and GCC 12 then
// made the comparisons scalar code. Scalar operands of an arithmetic operator broadcast.
#ifndef PTEFORGE_CC_SIMD_VECTORS_H_
#define PTEFORGE_CC_SIMD_VECTORS_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace pteforge {
namespace simd {

constexpr int kLanes = 4;

typedef float Floats __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t Ints __attribute__((vector_size(kLanes * sizeof(int32_t))));

inline Floats Load(const float* from) {
  Floats lanes;
  std::memcpy(&lanes, from, sizeof(lanes));
  return lanes;
}

inline void Store(float* to, Floats lanes) { std::memcpy(to, &lanes, sizeof(lanes)); }

// mask ? a : b, lane by lane (mask lanes are all ones or all zeros, as comparisons give).
inline Floats Select(Ints mask, Floats a, Floats b) {
  return reinterpret_cast<Floats>((mask & reinterpret_cast<Ints>(a)) | (~mask & reinterpret_cast<Ints>(b)));
}

inline float Sum(Floats lanes) { return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]); }

inline float Max(Floats lanes) { return std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3])); }

// The largest of values[0..width) (-inf for none).
inline float Max(const float* values, int64_t width) {
  int64_t i = 0;
  float top = -std::numeric_limits<float>::infinity();
  if (width >= kLanes) {
    Floats lanes = Load(values);
    for (i = kLanes; i + kLanes <= width; i += kLanes) {
      const Floats next = Load(values + i);
      lanes = Select(next > lanes, next, lanes);
    }
    top = Max(lanes);
  }
  for (; i < width; ++i) top = std::max(top, values[i]);
  return top;
}

// exp(x) for x <= 0 (Cephes' expf: x = n ln2 + r, |r| <= ln2 / 2, a degree-6 polynomial
// in r times 2^n; within 2 ulp of expf over the range that matters). Below -87 it
// returns exp(-87) ~ 1.6e-38 rather than a denormal or 0: a term that no sum with an
// exp(0) = 1 in it can notice. The same operations for four lanes (Floats) and for one
// (float), so a loop's tail gets the values its vectors would.
template <typename T>
inline T ExpNonPositive(T x) {
  constexpr bool kVector = sizeof(T) != sizeof(float);
  using I = typename std::conditional<kVector, Ints, int32_t>::type;
  const T floor_of = T{} - 87.0f;
  T n;
  I whole;
  if constexpr (kVector) {
    x = Select(x < floor_of, floor_of, x);
  } else {
    x = std::max(x, floor_of);
  }
  const T t = x * 1.44269504088896341f + 0.5f;
  if constexpr (kVector) {
    n = __builtin_convertvector(__builtin_convertvector(t, Ints), Floats);
    n += __builtin_convertvector(n > t, Floats);  // floor (t may be negative): a true lane is -1
    whole = __builtin_convertvector(n, Ints);
  } else {
    n = static_cast<float>(static_cast<int32_t>(t));
    n -= n > t ? 1.0f : 0.0f;
    whole = static_cast<int32_t>(n);
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

}  // namespace simd
}  // namespace pteforge

#endif  // PTEFORGE_CC_SIMD_VECTORS_H_
