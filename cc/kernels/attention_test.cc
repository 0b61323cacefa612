// CachedAttention against a double-precision attention over the same buffers: several
// rows and heads, masked positions (skipped), a position bias repeated per slot, widths
// that are and are not multiples of the vector, and a row with every position masked
// (the mean of the values, as eager's softmax of equal scores gives).
#include "cc/kernels/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace pteforge {
namespace kernels {
namespace {

constexpr float kMasked = std::numeric_limits<float>::lowest();

struct Case {
  int32_t rows, heads, width, dim, positions;
  bool mask;
};

std::vector<double> Reference(const Case& c, const std::vector<float>& query, const std::vector<float>& keys,
                              const std::vector<float>& values, const std::vector<float>& mask,
                              const std::vector<float>& bias, float scale) {
  std::vector<double> out(static_cast<size_t>(c.rows) * c.heads * c.dim, 0.0);
  for (int32_t r = 0; r < c.rows; ++r) {
    for (int32_t h = 0; h < c.heads; ++h) {
      std::vector<double> scores(c.width);
      double top = -std::numeric_limits<double>::infinity();
      for (int32_t w = 0; w < c.width; ++w) {
        double s = 0;
        for (int32_t i = 0; i < c.dim; ++i) {
          s += static_cast<double>(query[(r * c.heads + h) * c.dim + i] * scale) * keys[(h * c.width + w) * c.dim + i];
        }
        if (c.positions) s += bias[h * c.positions + w % c.positions];
        if (c.mask) s += mask[r * c.width + w];
        // float32's addition of the lowest float absorbs any score, as in eager.
        if (c.mask && mask[r * c.width + w] == kMasked) s = kMasked;
        scores[w] = s;
        top = std::max(top, s);
      }
      double sum = 0;
      for (double& s : scores) sum += (s = std::exp(s - top));
      for (int32_t w = 0; w < c.width; ++w) {
        for (int32_t i = 0; i < c.dim; ++i) {
          out[(r * c.heads + h) * c.dim + i] += scores[w] / sum * values[(h * c.width + w) * c.dim + i];
        }
      }
    }
  }
  return out;
}

TEST(CachedAttention, EqualsTheDoublePrecisionAttention) {
  std::mt19937 generator(3);
  std::normal_distribution<float> draw(0.0f, 1.0f);
  std::bernoulli_distribution masked(0.4);
  for (const Case& c : {Case{1, 6, 1500, 64, 0, false}, Case{4, 2, 48, 8, 12, true}, Case{3, 3, 21, 7, 7, true},
                        Case{2, 1, 5, 3, 0, true}}) {
    const size_t buffer = static_cast<size_t>(c.heads) * c.width * c.dim;
    std::vector<float> query(static_cast<size_t>(c.rows) * c.heads * c.dim), keys(buffer), values(buffer);
    std::vector<float> mask(static_cast<size_t>(c.rows) * c.width, 0.0f);
    std::vector<float> bias(static_cast<size_t>(c.heads) * c.positions);
    for (auto* v : {&query, &keys, &values, &bias}) {
      for (float& x : *v) x = draw(generator);
    }
    if (c.mask) {
      for (float& m : mask) m = masked(generator) ? kMasked : 0.0f;
      mask[0] = 0.0f;
      // The last row attends to nothing.
      std::fill(mask.end() - c.width, mask.end(), kMasked);
    }
    const float scale = 0.125f;
    const AttentionShape shape = {c.rows, c.heads, c.width, c.dim, c.positions};
    std::vector<float> scratch(AttentionScratchFloats(shape)), out(query.size(), NAN);
    AttentionArgs args{query.data(), keys.data(), values.data(), c.mask ? mask.data() : nullptr,
                       c.positions ? bias.data() : nullptr, scale, scratch.data(), out.data()};
    CachedAttention(shape, args);
    const std::vector<double> expected = Reference(c, query, keys, values, mask, bias, scale);
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_NEAR(out[i], expected[i], 1e-5) << "rows " << c.rows << " width " << c.width << " at " << i;
    }
  }
}

}  // namespace
}  // namespace kernels
}  // namespace pteforge
