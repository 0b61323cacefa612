// CachedAttention for one lane count (PTEFORGE_SIMD_LANES, cc/simd/vectors.h): this file
// is compiled once per count (bazel/simd_lanes.bzl). It includes no standard algorithm:
// a template of the standard library instantiated here would be compiled for AVX2 in
// the eight-lane copy, and the linker could hand that copy to code running anywhere.
//
// How the work is laid out, per head (the figures for Whisper-tiny's cross-attention,
// 4 rows over 1500 positions of 64 floats):
//   - each row's span: the positions from its first to its last that the mask leaves
//     (its history in the self-attention cache's slots, its source's tokens); nothing
//     outside it is read;
//   - scores, four positions at a time: the four key vectors are read once from memory
//     and then from the L1 cache for every row whose span they are in and whose mask
//     leaves one of the four, each row's dot products in four accumulators added across
//     at the end (SumEach), not one horizontal sum per position;
//   - outputs, a row at a time: its weighted sum of the value vectors accumulates in
//     registers (up to eight vectors of the head's dimension at once) over the row's
//     span, instead of a load and store of the output per position.
#include "cc/kernels/attention_lanes.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "cc/simd/vectors.h"

namespace pteforge {
namespace kernels {
namespace PTEFORGE_SIMD_NAMESPACE {
namespace {

using simd::Floats;
using simd::Floats4;
using simd::kLanes;
using simd::Load;

constexpr float kLowest = std::numeric_limits<float>::lowest();
// A skipped position's score: below anything a real score can be.
constexpr float kSkipped = -std::numeric_limits<float>::infinity();
// Output vectors a row accumulates in registers at once.
constexpr int32_t kChunkVectors = 8;

// transformers' masked value (the lowest float) or -inf: the position adds nothing.
inline bool Skipped(float mask) { return mask <= kLowest; }

int32_t MaskRows(const AttentionShape& shape) { return shape.mask_rows > 0 ? shape.mask_rows : shape.rows; }

struct Span {
  int32_t first, end;  // positions [first, end); first == end: none
};

Span Attended(const float* mask, int32_t width) {
  if (mask == nullptr) return {0, width};
  int32_t first = 0, end = width;
  while (first < width && Skipped(mask[first])) ++first;
  while (end > first && Skipped(mask[end - 1])) --end;
  return {first, end};
}

float Dot(const float* a, const float* b, int32_t length) {
  Floats sum = {};
  int32_t i = 0;
  for (; i + kLanes <= length; i += kLanes) sum += Load(a + i) * Load(b + i);
  float total = simd::Sum(sum);
  for (; i < length; ++i) total += a[i] * b[i];
  return total;
}

// The query's dot products with four consecutive key vectors (key, key + dim, ...).
Floats4 Dot4(const float* query, const float* key, int32_t dim) {
  Floats sum0 = {}, sum1 = {}, sum2 = {}, sum3 = {};
  int32_t i = 0;
  for (; i + kLanes <= dim; i += kLanes) {
    const Floats q = Load(query + i);
    sum0 += q * Load(key + i);
    sum1 += q * Load(key + dim + i);
    sum2 += q * Load(key + 2 * dim + i);
    sum3 += q * Load(key + 3 * dim + i);
  }
  Floats4 sums = simd::SumEach(sum0, sum1, sum2, sum3);
  for (; i < dim; ++i) {
    for (int32_t j = 0; j < 4; ++j) sums[j] += query[i] * key[j * dim + i];
  }
  return sums;
}

// Replaces scores[first, end) by exp(score - max) (skipped ones by 0); returns their sum.
float ExpAndSum(float* scores, int32_t first, int32_t end) {
  const float top = simd::Max(scores + first, end - first);
  Floats sums = {};
  int32_t w = first;
  for (; w + kLanes <= end; w += kLanes) {
    const Floats shifted = Load(scores + w) - top;
    // A skipped position's -inf stays -inf here, which ExpNonPositive would take as
    // exp(-87): zero it instead.
    const Floats terms = simd::Select(shifted > kLowest, simd::ExpNonPositive(shifted), Floats{});
    simd::Store(scores + w, terms);
    sums += terms;
  }
  float sum = simd::Sum(sums);
  for (; w < end; ++w) {
    const float shifted = scores[w] - top;
    scores[w] = shifted > kLowest ? simd::ExpNonPositive(shifted) : 0.0f;
    sum += scores[w];
  }
  return sum;
}

// out[0, vectors * kLanes) = factor * sum over w in [first, end) of weights[w] *
// values[w * dim + ...], the accumulators in registers: `vectors` is kChunkVectors in
// the hot loop, a constant the compiler unrolls.
template <int32_t kVectors>
void WeightedSum(const float* weights, const float* values, int32_t dim, int32_t first, int32_t end, float factor,
                 float* out) {
  Floats sums[kVectors] = {};
  for (int32_t w = first; w < end; ++w) {
    const float weight = weights[w];
    if (weight == 0.0f) continue;
    const Floats broadcast = simd::Splat(weight);
    const float* value = values + static_cast<size_t>(w) * dim;
#pragma GCC unroll 8
    for (int32_t c = 0; c < kVectors; ++c) sums[c] += broadcast * Load(value + c * kLanes);
  }
#pragma GCC unroll 8
  for (int32_t c = 0; c < kVectors; ++c) simd::Store(out + c * kLanes, sums[c] * factor);
}

// The same for the columns [from, dim) of a row, fewer than kChunkVectors vectors and a
// scalar tail.
void WeightedSumTail(const float* weights, const float* values, int32_t dim, int32_t from, int32_t first,
                     int32_t end, float factor, float* out) {
  for (int32_t i = from; i < dim; ++i) out[i] = 0.0f;
  for (int32_t w = first; w < end; ++w) {
    const float weight = weights[w];
    if (weight == 0.0f) continue;
    const float* value = values + static_cast<size_t>(w) * dim;
    int32_t i = from;
    for (; i + kLanes <= dim; i += kLanes) simd::Store(out + i, Load(out + i) + Load(value + i) * weight);
    for (; i < dim; ++i) out[i] += value[i] * weight;
  }
  for (int32_t i = from; i < dim; ++i) out[i] *= factor;
}

// Position bias for positions [w, w + 4), P = positions: bias[(w + j) % P].
Floats4 Bias4(const float* bias, int32_t positions, int32_t w) {
  int32_t p = w % positions;
  Floats4 lanes;
  for (int32_t j = 0; j < 4; ++j) {
    lanes[j] = bias[p];
    p = p + 1 == positions ? 0 : p + 1;
  }
  return lanes;
}

// Scores of rows [first_row, end_row) over their spans: (query * scale) . key + bias + mask, kSkipped where
// the mask skips. Scores outside a row's span are left as they were (never read).
void Scores(const AttentionShape& shape, const AttentionArgs& args, const float* keys, const float* bias,
            const float* queries, const Span* spans, Span all, int32_t first_row, int32_t end_row, float* scores) {
  const int32_t width = shape.width, dim = shape.head_dim;
  int32_t w = all.first;
  for (; w + 4 <= all.end; w += 4) {
    const float* key = keys + static_cast<size_t>(w) * dim;
    const Floats4 position_bias = bias != nullptr ? Bias4(bias, shape.positions, w) : Floats4{};
    for (int32_t r = first_row; r < end_row; ++r) {
      if (w + 4 <= spans[r].first || w >= spans[r].end) continue;
      float* row_scores = scores + static_cast<size_t>(r) * width + w;
      if (args.mask == nullptr) {
        simd::Store4(row_scores, Dot4(queries + static_cast<size_t>(r) * dim, key, dim) + position_bias);
        continue;
      }
      const float* row_mask = args.mask + static_cast<size_t>(r % MaskRows(shape)) * width + w;
      // None of the four (another beam's history). Compared as floats: GCC 12 for
      // Helium miscompiled the same test on the lanes of a vector comparison at -Os
      // (wrong scores on the Cortex-M55: the OPUS replay caught it).
      if (Skipped(row_mask[0]) && Skipped(row_mask[1]) && Skipped(row_mask[2]) && Skipped(row_mask[3])) {
        simd::Store4(row_scores, Floats4{} + kSkipped);
        continue;
      }
      const Floats4 mask = simd::Load4(row_mask);
      const Floats4 score = Dot4(queries + static_cast<size_t>(r) * dim, key, dim) + position_bias;
      simd::Store4(row_scores, simd::Select4(mask > kLowest, score + mask, Floats4{} + kSkipped));
    }
  }
  for (; w < all.end; ++w) {
    const float* key = keys + static_cast<size_t>(w) * dim;
    for (int32_t r = first_row; r < end_row; ++r) {
      if (w < spans[r].first || w >= spans[r].end) continue;
      const float mask = args.mask != nullptr ? args.mask[static_cast<size_t>(r % MaskRows(shape)) * width + w] : 0.0f;
      float score = kSkipped;
      if (!Skipped(mask)) {
        score = Dot(queries + static_cast<size_t>(r) * dim, key, dim);
        if (bias != nullptr) score += bias[w % shape.positions];
        score += mask;
      }
      scores[static_cast<size_t>(r) * width + w] = score;
    }
  }
}

}  // namespace

void CachedAttentionHeads(const AttentionShape& shape, const AttentionArgs& args, int32_t first_head,
                          int32_t end_head, int32_t first_row, int32_t end_row) {
  const int32_t rows = shape.rows, width = shape.width, dim = shape.head_dim;
  float* scores = args.scratch;                                       // [rows, width]
  float* queries = args.scratch + static_cast<size_t>(rows) * width;  // [rows, dim]
  // [rows] spans, in the scratch's last 2 * rows floats' room.
  Span* spans = reinterpret_cast<Span*>(queries + static_cast<size_t>(rows) * dim);
  static_assert(sizeof(Span) == 2 * sizeof(float) && alignof(Span) <= alignof(float), "spans fit the scratch");
  // Every row's span and their union, whichever rows this call computes: Scores goes
  // four positions at a time from the union's first, and so a row is computed the same
  // way whichever rows share its call. Rows that read the same mask row share its span
  // (a decode step's query heads: one scan of the mask, not one per head).
  const int32_t distinct = args.mask != nullptr && MaskRows(shape) < rows ? MaskRows(shape) : rows;
  Span all = {width, 0};
  for (int32_t r = 0; r < rows; ++r) {
    if (r < distinct) {
      spans[r] = Attended(args.mask != nullptr ? args.mask + static_cast<size_t>(r) * width : nullptr, width);
    } else {
      spans[r] = spans[r % distinct];
    }
    if (spans[r].first < spans[r].end) {
      all.first = spans[r].first < all.first ? spans[r].first : all.first;
      all.end = spans[r].end > all.end ? spans[r].end : all.end;
    }
  }
  for (int32_t h = first_head; h < end_head; ++h) {
    const float* keys = args.keys + static_cast<size_t>(h) * width * dim;
    const float* values = args.values + static_cast<size_t>(h) * width * dim;
    const float* bias = args.bias != nullptr ? args.bias + static_cast<size_t>(h) * shape.positions : nullptr;
    for (int32_t r = first_row; r < end_row; ++r) {
      const float* query = args.query + (static_cast<size_t>(r) * shape.heads + h) * dim;
      for (int32_t i = 0; i < dim; ++i) queries[r * dim + i] = query[i] * args.scale;
    }
    Scores(shape, args, keys, bias, queries, spans, all, first_row, end_row, scores);
    for (int32_t r = first_row; r < end_row; ++r) {
      float* row = scores + static_cast<size_t>(r) * width;
      Span span = spans[r];
      float sum = span.first < span.end ? ExpAndSum(row, span.first, span.end) : 0.0f;
      if (sum == 0.0f) {
        // Nothing to attend to: eager's softmax of equal scores, the mean of the values.
        for (int32_t w = 0; w < width; ++w) row[w] = 1.0f;
        span = {0, width};
        sum = static_cast<float>(width);
      }
      const float inverse = 1.0f / sum;
      float* out = args.out + (static_cast<size_t>(r) * shape.heads + h) * dim;
      int32_t i = 0;
      for (; i + kChunkVectors * kLanes <= dim; i += kChunkVectors * kLanes) {
        WeightedSum<kChunkVectors>(row, values + i, dim, span.first, span.end, inverse, out + i);
      }
      WeightedSumTail(row, values, dim, i, span.first, span.end, inverse, out);
    }
  }
}

}  // namespace PTEFORGE_SIMD_NAMESPACE
}  // namespace kernels
}  // namespace pteforge
