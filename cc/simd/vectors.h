// Float lanes as GCC/Clang vector extensions, and what pteforge's hand-vectorized loops
// do with them, without intrinsics, so the same source builds for every target.
//
// Four lanes by default: one SSE, NEON or Helium register (plain scalar code where the
// target has no SIMD). Baseline x86-64's SSE2 has no register for eight, and GCC 12 then
// made the comparisons scalar code. A translation unit compiled with
// PTEFORGE_SIMD_LANES=8 and -mavx2 -mfma (bazel/simd_lanes.bzl) gets eight: AVX2 registers,
// chosen at run time on CPUs that have them (cc/simd/lanes.h). Each lane count lives
// in its own inline namespace (lanes4, lanes8), so the two compilations of one source
// define different symbols and the linker never mixes them.
//
// Scalar operands of an arithmetic operator broadcast.
#ifndef PTEFORGE_CC_SIMD_VECTORS_H_
#define PTEFORGE_CC_SIMD_VECTORS_H_

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#ifndef PTEFORGE_SIMD_LANES
#define PTEFORGE_SIMD_LANES 4
#endif
#if PTEFORGE_SIMD_LANES == 4
#define PTEFORGE_SIMD_NAMESPACE lanes4
#elif PTEFORGE_SIMD_LANES == 8
#define PTEFORGE_SIMD_NAMESPACE lanes8
#else
#error "PTEFORGE_SIMD_LANES must be 4 or 8"
#endif

namespace pteforge {
namespace simd {
inline namespace PTEFORGE_SIMD_NAMESPACE {

constexpr int kLanes = PTEFORGE_SIMD_LANES;

typedef float Floats __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t Ints __attribute__((vector_size(kLanes * sizeof(int32_t))));
// Four lanes whatever kLanes is: four sums at once (SumEach).
typedef float Floats4 __attribute__((vector_size(4 * sizeof(float))));
typedef int32_t Ints4 __attribute__((vector_size(4 * sizeof(int32_t))));

inline Floats Load(const float* from) {
  Floats lanes;
  std::memcpy(&lanes, from, sizeof(lanes));
  return lanes;
}

inline Floats4 Load4(const float* from) {
  Floats4 lanes;
  std::memcpy(&lanes, from, sizeof(lanes));
  return lanes;
}

inline void Store(float* to, Floats lanes) { std::memcpy(to, &lanes, sizeof(lanes)); }

inline void Store4(float* to, Floats4 lanes) { std::memcpy(to, &lanes, sizeof(lanes)); }

inline Floats Splat(float value) { return Floats{} + value; }

// mask ? a : b, lane by lane (mask lanes are all ones or all zeros, as comparisons give).
inline Floats Select(Ints mask, Floats a, Floats b) {
  return reinterpret_cast<Floats>((mask & reinterpret_cast<Ints>(a)) | (~mask & reinterpret_cast<Ints>(b)));
}

#if PTEFORGE_SIMD_LANES == 8
inline Floats4 Select4(Ints4 mask, Floats4 a, Floats4 b) {
  return reinterpret_cast<Floats4>((mask & reinterpret_cast<Ints4>(a)) | (~mask & reinterpret_cast<Ints4>(b)));
}
#else
inline Floats4 Select4(Ints4 mask, Floats4 a, Floats4 b) { return Select(mask, a, b); }
#endif

// The lanes added pairwise down to four: lane i of the result is the sum of the lanes
// i, i + 4, ... of `lanes`.
inline Floats4 Fold4(Floats lanes) {
#if PTEFORGE_SIMD_LANES == 8
  return __builtin_shufflevector(lanes, lanes, 0, 1, 2, 3) + __builtin_shufflevector(lanes, lanes, 4, 5, 6, 7);
#else
  return lanes;
#endif
}

inline float Sum(Floats lanes) {
  const Floats4 four = Fold4(lanes);
  return (four[0] + four[1]) + (four[2] + four[3]);
}

// {Sum(a), Sum(b), Sum(c), Sum(d)}, as a transpose of the four and three additions.
inline Floats4 SumEach(Floats a, Floats b, Floats c, Floats d) {
  const Floats4 a4 = Fold4(a), b4 = Fold4(b), c4 = Fold4(c), d4 = Fold4(d);
  const Floats4 ab = __builtin_shufflevector(a4, b4, 0, 4, 1, 5) + __builtin_shufflevector(a4, b4, 2, 6, 3, 7);
  const Floats4 cd = __builtin_shufflevector(c4, d4, 0, 4, 1, 5) + __builtin_shufflevector(c4, d4, 2, 6, 3, 7);
  return __builtin_shufflevector(ab, cd, 0, 1, 4, 5) + __builtin_shufflevector(ab, cd, 2, 3, 6, 7);
}

inline float Max(Floats lanes) {
  float top = lanes[0];
  for (int i = 1; i < kLanes; ++i) top = lanes[i] > top ? lanes[i] : top;
  return top;
}

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
  for (; i < width; ++i) top = values[i] > top ? values[i] : top;
  return top;
}

// exp(x) for x <= 0 (Cephes' expf: x = n ln2 + r, |r| <= ln2 / 2, a degree-6 polynomial
// in r times 2^n; within 2 ulp of expf over the range that matters). Below -87 it
// returns exp(-87) ~ 1.6e-38 rather than a denormal or 0: a term that no sum with an
// exp(0) = 1 in it can notice. The same operations for kLanes lanes (Floats) and for
// one (float), so a loop's tail gets the values its vectors would (where the compiler
// contracts a multiply and an add into one FMA, as the eight-lane build lets it, both
// get contracted alike).
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
    x = x < floor_of ? floor_of : x;
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

}  // namespace PTEFORGE_SIMD_NAMESPACE
}  // namespace simd
}  // namespace pteforge

#endif  // PTEFORGE_CC_SIMD_VECTORS_H_
