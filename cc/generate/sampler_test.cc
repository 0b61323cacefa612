// The sampler against transformers' rules (repetition penalty, temperature, top-k with
// ties, top-p's boundary) and its reproducibility. The end-to-end checks (greedy equal to
// Python, sampling equal between x86_64 and aarch64) are in tests/llm.
#include "cc/generate/sampler.h"

#include <cmath>
#include <map>
#include <vector>

#include <gtest/gtest.h>

namespace pteforge {
namespace {

SamplingOptions Sampling(double temperature = 1.0, int64_t top_k = 0, double top_p = 1.0) {
  SamplingOptions options;
  options.do_sample = true;
  options.temperature = temperature;
  options.top_k = top_k;
  options.top_p = top_p;
  return options;
}

// How often each token is drawn from `logits` in `draws` draws.
std::map<int64_t, int> Counts(const SamplingOptions& options, const std::vector<float>& logits, int draws,
                              uint64_t seed = 7) {
  Sampler sampler(options, seed);
  std::map<int64_t, int> counts;
  for (int i = 0; i < draws; ++i) {
    std::vector<float> copy = logits;
    ++counts[sampler.Next(&copy, {})];
  }
  return counts;
}

TEST(SamplerTest, GreedyIsTheFirstLargest) {
  Sampler sampler(SamplingOptions(), 0);
  std::vector<float> logits = {0.5f, 2.0f, -1.0f, 2.0f};
  EXPECT_EQ(sampler.Next(&logits, {}), 1);
}

TEST(SamplerTest, RepetitionPenaltyDividesPositiveAndMultipliesNegativeScoresOnce) {
  SamplingOptions options;
  options.repetition_penalty = 2.0;
  Sampler sampler(options, 0);
  std::vector<float> logits = {3.0f, 2.0f, -1.0f, 0.5f};
  // Token 0 seen twice is divided once: 1.5; token 2 becomes -2.
  EXPECT_EQ(sampler.Next(&logits, {0, 0, 2}), 1);
  EXPECT_EQ(logits, (std::vector<float>{1.5f, 2.0f, -2.0f, 0.5f}));
}

TEST(SamplerTest, TheSameSeedDrawsTheSameTokens) {
  const std::vector<float> logits = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.0f, -0.3f, 0.25f};
  auto draws = [&](uint64_t seed) {
    Sampler sampler(Sampling(), seed);
    std::vector<int64_t> tokens;
    for (int i = 0; i < 200; ++i) {
      std::vector<float> copy = logits;
      tokens.push_back(sampler.Next(&copy, {}));
    }
    return tokens;
  };
  EXPECT_EQ(draws(42), draws(42));
  EXPECT_NE(draws(42), draws(43));
}

TEST(SamplerTest, DrawsFollowTheSoftmaxOfScoresOverTemperature) {
  const std::vector<float> logits = {1.0f, 2.0f, 0.0f, 1.5f};
  const double temperature = 0.7;
  const int draws = 40000;
  auto counts = Counts(Sampling(temperature), logits, draws);
  double total = 0;
  for (float l : logits) total += std::exp(l / temperature);
  for (size_t id = 0; id < logits.size(); ++id) {
    const double expected = std::exp(logits[id] / temperature) / total;
    // Five standard deviations of a binomial count.
    const double sigma = std::sqrt(draws * expected * (1 - expected));
    EXPECT_NEAR(counts[id], draws * expected, 5 * sigma) << "token " << id;
  }
}

TEST(SamplerTest, TopKKeepsTheKMostLikelyAndTiesWithTheKth) {
  auto counts = Counts(Sampling(1.0, 2), {0.0f, 3.0f, 1.0f, 2.0f, 2.0f}, 3000);
  EXPECT_EQ(counts.count(0) + counts.count(2), 0u);
  EXPECT_GT(counts[1], 0);
  EXPECT_GT(counts[3], 0);
  EXPECT_GT(counts[4], 0);  // as likely as the second: kept, as transformers keeps it
}

TEST(SamplerTest, TopPKeepsTokensUntilTheMoreLikelyOnesReachP) {
  // Probabilities 0.5, 0.3, 0.2 (ids 2, 0, 1).
  const std::vector<float> logits = {std::log(0.3f), std::log(0.2f), std::log(0.5f)};
  auto counts = Counts(Sampling(1.0, 0, 0.6), logits, 3000);
  EXPECT_EQ(counts.count(1), 0u);  // 0.5 + 0.3 >= 0.6 before it
  EXPECT_GT(counts[0], 0);
  EXPECT_GT(counts[2], 0);
  // At exactly 0.5 the first token reaches p alone: transformers drops the rest
  // (cumulative probability <= 1 - p).
  counts = Counts(Sampling(1.0, 0, 0.5), logits, 1000);
  EXPECT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts[2], 1000);
}

TEST(SamplerTest, OptionsOutOfRangeAreRefused) {
  EXPECT_FALSE(CheckSamplingOptions(Sampling(0.0)).ok());
  EXPECT_FALSE(CheckSamplingOptions(Sampling(1.0, -1)).ok());
  EXPECT_FALSE(CheckSamplingOptions(Sampling(1.0, 0, 1.5)).ok());
  EXPECT_FALSE(CheckSamplingOptions(Sampling(1.0, 0, 0.0)).ok());
  EXPECT_TRUE(CheckSamplingOptions(Sampling(0.8, 40, 0.95)).ok());
}

}  // namespace
}  // namespace pteforge
