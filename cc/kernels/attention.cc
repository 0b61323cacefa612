#include "cc/kernels/attention.h"

#include <algorithm>
#include <limits>

#include "cc/simd/vectors.h"

namespace pteforge {
namespace kernels {
namespace {

using simd::Floats;
using simd::kLanes;
using simd::Load;

constexpr float kLowest = std::numeric_limits<float>::lowest();
// A skipped position's score: below anything a real score can be.
constexpr float kSkipped = -std::numeric_limits<float>::infinity();

float Dot(const float* a, const float* b, int32_t length) {
  Floats sum0 = {}, sum1 = {};
  int32_t i = 0;
  for (; i + 2 * kLanes <= length; i += 2 * kLanes) {
    sum0 += Load(a + i) * Load(b + i);
    sum1 += Load(a + i + kLanes) * Load(b + i + kLanes);
  }
  for (; i + kLanes <= length; i += kLanes) sum0 += Load(a + i) * Load(b + i);
  float sum = simd::Sum(sum0 + sum1);
  for (; i < length; ++i) sum += a[i] * b[i];
  return sum;
}

// to += factor * from, over length floats.
void AddScaled(float* to, const float* from, float factor, int32_t length) {
  int32_t i = 0;
  for (; i + kLanes <= length; i += kLanes) simd::Store(to + i, Load(to + i) + Load(from + i) * factor);
  for (; i < length; ++i) to[i] += from[i] * factor;
}

// Replaces the row's scores by exp(score - max) (skipped ones by 0); returns their sum.
float ExpAndSum(float* scores, int32_t width) {
  const float top = simd::Max(scores, width);
  Floats sums = {};
  int32_t w = 0;
  for (; w + kLanes <= width; w += kLanes) {
    const Floats shifted = Load(scores + w) - top;
    // A skipped position's -inf stays -inf here, which ExpNonPositive would take as
    // exp(-87): zero it instead.
    const Floats terms = simd::Select(shifted > kLowest, simd::ExpNonPositive(shifted), Floats{});
    simd::Store(scores + w, terms);
    sums += terms;
  }
  float sum = simd::Sum(sums);
  for (; w < width; ++w) {
    const float shifted = scores[w] - top;
    scores[w] = shifted > kLowest ? simd::ExpNonPositive(shifted) : 0.0f;
    sum += scores[w];
  }
  return sum;
}

}  // namespace

size_t AttentionScratchFloats(const AttentionShape& shape) {
  // Each row's scores over the positions, and its scaled query.
  return static_cast<size_t>(shape.rows) * (static_cast<size_t>(shape.width) + shape.head_dim);
}

void CachedAttention(const AttentionShape& shape, const AttentionArgs& args) {
  const int32_t rows = shape.rows, width = shape.width, dim = shape.head_dim;
  float* scores = args.scratch;                                    // [rows, width]
  float* queries = args.scratch + static_cast<size_t>(rows) * width;  // [rows, dim]
  for (int32_t h = 0; h < shape.heads; ++h) {
    const float* keys = args.keys + static_cast<size_t>(h) * width * dim;
    const float* values = args.values + static_cast<size_t>(h) * width * dim;
    const float* bias = args.bias != nullptr ? args.bias + static_cast<size_t>(h) * shape.positions : nullptr;
    for (int32_t r = 0; r < rows; ++r) {
      const float* query = args.query + (static_cast<size_t>(r) * shape.heads + h) * dim;
      for (int32_t i = 0; i < dim; ++i) queries[r * dim + i] = query[i] * args.scale;
    }
    // Scores: each key vector read once for every row that attends to it.
    for (int32_t w = 0; w < width; ++w) {
      const float* key = keys + static_cast<size_t>(w) * dim;
      const float position_bias = bias != nullptr ? bias[w % shape.positions] : 0.0f;
      for (int32_t r = 0; r < rows; ++r) {
        const float mask = args.mask != nullptr ? args.mask[static_cast<size_t>(r) * width + w] : 0.0f;
        float& score = scores[static_cast<size_t>(r) * width + w];
        if (mask <= kLowest) {
          score = kSkipped;
          continue;
        }
        score = Dot(queries + r * dim, key, dim);
        if (bias != nullptr) score += position_bias;
        if (args.mask != nullptr) score += mask;
      }
    }
    // Softmax, each row's probabilities in place of its scores (a row with nothing to
    // attend to: equal scores, so the mean of the values).
    for (int32_t r = 0; r < rows; ++r) {
      float* row = scores + static_cast<size_t>(r) * width;
      if (std::all_of(row, row + width, [](float score) { return score == kSkipped; })) std::fill(row, row + width, 0.0f);
      const float inverse = 1.0f / ExpAndSum(row, width);
      for (int32_t w = 0; w < width; ++w) row[w] *= inverse;
      float* out = args.out + (static_cast<size_t>(r) * shape.heads + h) * dim;
      std::fill(out, out + dim, 0.0f);
    }
    // Outputs: each value vector read once for every row with weight on it.
    for (int32_t w = 0; w < width; ++w) {
      const float* value = values + static_cast<size_t>(w) * dim;
      for (int32_t r = 0; r < rows; ++r) {
        const float weight = scores[static_cast<size_t>(r) * width + w];
        if (weight != 0.0f) AddScaled(args.out + (static_cast<size_t>(r) * shape.heads + h) * dim, value, weight, dim);
      }
    }
  }
}

}  // namespace kernels
}  // namespace pteforge
