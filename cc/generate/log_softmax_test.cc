// LogSoftmax against a double-precision log-softmax with libm's exp, on four lanes and
// (on x86-64 CPUs with AVX2) eight: rows of logits as a model gives them (a
// vocabulary-wide spread, widths that are and are not multiples of the vectors), -inf
// columns, a row of -inf.
#include "cc/generate/log_softmax.h"

#include <gtest/gtest.h>

#include "cc/generate/log_softmax_lanes.h"
#include "cc/simd/lanes.h"

#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace pteforge {
namespace {

std::vector<double> Reference(const std::vector<float>& logits) {
  double top = -std::numeric_limits<double>::infinity();
  for (float x : logits) top = std::max(top, static_cast<double>(x));
  double sum = 0;
  for (float x : logits) sum += std::exp(x - top);
  std::vector<double> out;
  for (float x : logits) out.push_back(x - top - std::log(sum));
  return out;
}

// The kernels LogSoftmax chooses from on this CPU.
std::vector<std::pair<const char*, void (*)(float*, int64_t)>> Kernels() {
  std::vector<std::pair<const char*, void (*)(float*, int64_t)>> kernels = {{"4 lanes", lanes4::LogSoftmax}};
#if defined(__x86_64__)
  if (simd::RunLanes() == 8) kernels.push_back({"8 lanes", lanes8::LogSoftmax});
#endif
  return kernels;
}

TEST(LogSoftmax, EqualsTheDoublePrecisionOneOnLogitRows) {
  for (const auto& [lanes, LogSoftmax] : Kernels()) {
    std::mt19937 generator(7);
    for (int64_t width : {1, 7, 8, 13, 96, 32128, 51865}) {
      for (float spread : {0.5f, 4.0f, 30.0f}) {
        std::normal_distribution<float> draw(2.0f, spread);
        std::vector<float> logits(width);
        for (float& x : logits) x = draw(generator);
        const std::vector<double> expected = Reference(logits);
        LogSoftmax(logits.data(), width);
        for (int64_t i = 0; i < width; ++i) {
          // float32's own rounding of the result and of the logits it came from.
          ASSERT_NEAR(logits[i], expected[i], 1e-6 * (1.0 + std::fabs(expected[i])))
              << lanes << ": width " << width << ", spread " << spread << ", column " << i;
        }
      }
    }
  }
}

TEST(LogSoftmax, KeepsMinusInfinityColumnsAndGivesNanForARowOfThem) {
  for (const auto& [lanes, LogSoftmax] : Kernels()) {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> row = {1.0f, -inf, 3.0f, -inf, -inf, -inf, -inf, -inf, -inf, 2.0f};
    const std::vector<double> expected = Reference(row);
    LogSoftmax(row.data(), static_cast<int64_t>(row.size()));
    for (size_t i = 0; i < row.size(); ++i) {
      if (std::isinf(expected[i])) {
        EXPECT_EQ(row[i], -inf) << i;
      } else {
        EXPECT_NEAR(row[i], expected[i], 1e-6) << i;
      }
    }
    std::vector<float> empty(9, -inf);
    LogSoftmax(empty.data(), 9);
    for (float x : empty) EXPECT_TRUE(std::isnan(x)) << lanes;
  }
}

TEST(LogSoftmax, RunsTheCpusWidestLanes) {
  std::vector<float> dispatched(1001), direct;
  for (size_t i = 0; i < dispatched.size(); ++i) dispatched[i] = std::sin(0.7f * i) * 9.0f;
  direct = dispatched;
  LogSoftmax(dispatched.data(), static_cast<int64_t>(dispatched.size()));
  Kernels().back().second(direct.data(), static_cast<int64_t>(direct.size()));
  EXPECT_EQ(dispatched, direct);
}

}  // namespace
}  // namespace pteforge
